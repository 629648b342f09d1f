/* bench_accuracy: ifsim's predictions against every published nccl-tests
 * run in tests/data/reference, reference2 and reference3 that has a
 * matching system (tests/data/systems).
 *
 *   bench_accuracy [DATA_DIR]   (default: the source tree's tests/data)
 *
 * Prints, per dataset, every size's measured and predicted busbw, the
 * algorithm/protocol/channels ifsim chose, the error, and the median and
 * worst |error| for sizes >= 1 MiB and below, twice: in-sample (the model
 * as it ships, its constants fitted on every dataset) and left out (the
 * constants fitted again on every other dataset: what a system the model
 * has not seen would get).  Then the fits, and the medians pooled over
 * every size of every dataset.  ANOMALOUS datasets are misconfigured
 * systems: a good model predicts well above them; no fit reads them. */
#include <math.h>
#include <stdio.h>
#include <sys/resource.h>
#include <string.h>
#include <time.h>

#include "validate/accuracy.h"
#include "validate/measure.h"

static void pool(const ValAccuracy *a, GArray *large, GArray *small)
{
  for (guint r = 0; r < a->rows->len; r++) {
    const ValAccuracyRow *row = &g_array_index(a->rows, ValAccuracyRow, r);
    double e = fabs(row->error);

    g_array_append_val(row->size_bytes >= (1u << 20) ? large : small, e);
  }
}

int main(int argc, char **argv)
{
  const char *dir = argc > 1 ? argv[1] : IFSIM_TEST_DATA_DIR;
  guint n;
  const ValDataset *d = val_datasets(&n);
  g_autofree ValAccuracy *a = g_new0(ValAccuracy, n);
  g_autofree ValFit *out = g_new0(ValFit, n);
  g_autoptr(GArray) in_large = g_array_new(FALSE, FALSE, sizeof(double));
  g_autoptr(GArray) in_small = g_array_new(FALSE, FALSE, sizeof(double));
  g_autoptr(GArray) out_large = g_array_new(FALSE, FALSE, sizeof(double));
  g_autoptr(GArray) out_small = g_array_new(FALSE, FALSE, sizeof(double));
  ValFit all, model;
  int status = 0;
  clock_t cpu0 = clock();
  gint64 wall0 = g_get_monotonic_time();
  struct rusage ru;

  for (guint i = 0; i < n; i++) {
    g_autoptr(GError) error = NULL;

    if (!val_accuracy_run(&d[i], dir, &a[i], &error)) {
      fprintf(stderr, "bench_accuracy: %s\n", error->message);
      return 2;
    }
  }
  val_fit(a, d, n, G_MAXUINT, &all);
  val_fit_defaults(&model);
  for (guint i = 0; i < n; i++)
    val_fit(a, d, n, i, &out[i]);

  for (guint i = 0; i < n; i++) {
    ValAccuracy *x = &a[i];
    double lo_large, lo_small, lo_ratio, lo_worst_large, lo_worst_small;
    g_autofree char *fit = NULL;
    /* a summary table's datasets share its file: named by their rows too */
    g_autofree char *name =
        d[i].select ? g_strdup_printf("%s[%.*s;%s]", d[i].file,
                                      (int)strcspn(d[i].select, ";"),
                                      d[i].select, d[i].collective)
                    : g_strdup(d[i].file);

    /* left out first, then in-sample: the table shows the model as it
     * ships */
    val_accuracy_retime(x, &out[i]);
    lo_large = x->median_large;
    lo_small = x->median_small;
    lo_ratio = x->median_ratio;
    lo_worst_large = x->worst_large;
    lo_worst_small = x->worst_small;
    if (!d[i].anomalous)
      pool(x, out_large, out_small);
    val_accuracy_retime(x, &model);
    if (!d[i].anomalous)
      pool(x, in_large, in_small);

    printf("## %s/%s\n# %s (%u ranks; system %s)%s\n", d[i].dir, name,
           d[i].what, d[i].ranks, d[i].system,
           d[i].anomalous ? " -- ANOMALOUS: predictions must be far above"
                          : "");
    printf("%14s %12s %12s %8s  %-8s %-6s %3s\n", "size_bytes", "meas_GBps",
           "pred_GBps", "error", "algo", "proto", "ch");
    for (guint r = 0; r < x->rows->len; r++) {
      ValAccuracyRow *row = &g_array_index(x->rows, ValAccuracyRow, r);

      printf("%14" G_GUINT64_FORMAT " %12.2f %12.2f %+7.1f%%  %-8s %-6s %3u\n",
             row->size_bytes, row->measured_GBps, row->predicted_GBps,
             row->error * 100, row->algo, row->proto, row->channels);
    }
    printf("SUMMARY %s in-sample median_err_ge1M=%.1f%% worst_ge1M=%.1f%% "
           "median_err_lt1M=%.1f%% worst_lt1M=%.1f%% median_pred/meas=%.2f\n",
           name, x->median_large * 100, x->worst_large * 100,
           x->median_small * 100, x->worst_small * 100, x->median_ratio);
    fit = val_fit_describe(&out[i]);
    printf("SUMMARY %s left-out  median_err_ge1M=%.1f%% worst_ge1M=%.1f%% "
           "median_err_lt1M=%.1f%% worst_lt1M=%.1f%% median_pred/meas=%.2f "
           "(%s)\n\n",
           name, lo_large * 100, lo_worst_large * 100, lo_small * 100,
           lo_worst_small * 100, lo_ratio, fit);
  }
  {
    g_autofree char *fit_all = val_fit_describe(&all);
    g_autofree char *fit_model = val_fit_describe(&model);

    printf("FIT all datasets: %s\nFIT the model's [nccl] defaults: %s\n",
           fit_all, fit_model);
  }
  printf("POOLED in-sample median_err_ge1M=%.1f%% median_err_lt1M=%.1f%% "
         "(%u and %u sizes)\n",
         val_median(in_large) * 100, val_median(in_small) * 100, in_large->len,
         in_small->len);
  printf("POOLED left-out  median_err_ge1M=%.1f%% median_err_lt1M=%.1f%%\n",
         val_median(out_large) * 100, val_median(out_small) * 100);
  getrusage(RUSAGE_SELF, &ru);
  printf("# wall %.2f s, cpu %.2f s, peak RSS %ld KiB\n",
         (double)(g_get_monotonic_time() - wall0) / 1e6,
         (double)(clock() - cpu0) / CLOCKS_PER_SEC, ru.ru_maxrss);
  for (guint i = 0; i < n; i++)
    val_accuracy_clear(&a[i]);
  return status;
}
