/* bench_accuracy: ifsim's predictions against every published nccl-tests
 * run in tests/data/reference that has a matching system.
 *
 *   bench_accuracy [DIR]     (default: the source tree's reference data)
 *
 * Prints, per dataset, every size's measured and predicted busbw, the
 * algorithm/protocol/channels ifsim chose, the error, and the median and
 * worst |error| for sizes >= 1 MiB and below.  ANOMALOUS datasets are
 * misconfigured systems: a good model predicts well above them. */
#include <stdio.h>

#include "validate/accuracy.h"

int main(int argc, char **argv)
{
  const char *dir = argc > 1 ? argv[1] : IFSIM_REFERENCE_DIR;
  guint n;
  const ValDataset *d = val_datasets(&n);
  int status = 0;

  for (guint i = 0; i < n; i++) {
    ValAccuracy a;
    g_autoptr(GError) error = NULL;

    printf("## %s\n# %s (%u ranks)%s\n", d[i].file, d[i].what, d[i].ranks,
           d[i].anomalous ? " -- ANOMALOUS: predictions must be far above"
                          : "");
    if (!val_accuracy_run(&d[i], dir, &a, &error)) {
      fprintf(stderr, "bench_accuracy: %s\n", error->message);
      val_accuracy_clear(&a);
      status = 2;
      continue;
    }
    printf("%14s %12s %12s %8s  %-8s %-6s %3s\n", "size_bytes", "meas_GBps",
           "pred_GBps", "error", "algo", "proto", "ch");
    for (guint r = 0; r < a.rows->len; r++) {
      ValAccuracyRow *row = &g_array_index(a.rows, ValAccuracyRow, r);

      printf("%14" G_GUINT64_FORMAT " %12.2f %12.2f %+7.1f%%  %-8s %-6s %3u\n",
             row->size_bytes, row->measured_GBps, row->predicted_GBps,
             row->error * 100, row->algo, row->proto, row->channels);
    }
    printf("SUMMARY %s median_err_ge1M=%.1f%% worst_ge1M=%.1f%% "
           "median_err_lt1M=%.1f%% worst_lt1M=%.1f%% median_pred/meas=%.2f\n\n",
           d[i].file, a.median_large * 100, a.worst_large * 100,
           a.median_small * 100, a.worst_small * 100, a.median_ratio);
    val_accuracy_clear(&a);
  }
  return status;
}
