/* `ifsim calibrate` and `ifsim validate`: measurements (validate/measure.h,
 * any importable format) against the models of a system
 * (validate/calibrate.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "collectives/nccl/nccl.h"
#include "sim/units.h"
#include "tools/cli.h"
#include "tools/plot.h"
#include "traces/csvtext.h"
#include "traces/output.h"
#include "validate/calibrate.h"

/* What both commands read: the measurement files and the system. */
typedef struct {
  char *topology;
  char **models;
  char **files;
  /* for nccl files that do not say them: --gpus-per-process, --iters,
   * --graph-launches, --nccl-version, --collective, --ranks */
  char *gpus_per_process, *iters, *graph_launches, *nccl_version, *collective,
      *ranks;
  GPtrArray *sets;      /* ValMeasurements: a file's, or one per run of a
                           paste of several nccl-tests runs */
  GPtrArray *set_files; /* the file of each set (borrowed from files) */
  TopoSystem *sys;
} Inputs;

/* The options both commands take for nccl files that do not say them. */
static void add_nccl_entries(GOptionContext *ctx, Inputs *in)
{
  const GOptionEntry e[] = {
      {"gpus-per-process", 0, 0, G_OPTION_ARG_STRING, &in->gpus_per_process,
       "For nccl measurements that do not say it (no gpus_per_process key): "
       "the GPUs one process drove, as nccl-tests -g G",
       "G"},
      {"iters", 0, 0, G_OPTION_ARG_STRING, &in->iters,
       "For nccl measurements that do not say it (no iters key): the calls "
       "timed back to back, as nccl-tests -n N",
       "N"},
      {"graph-launches", 0, 0, G_OPTION_ARG_STRING, &in->graph_launches,
       "For nccl measurements that do not say it (no graph_launches key): "
       "the CUDA graph launches of the timed calls, as nccl-tests -G K (0: "
       "none)",
       "K"},
      {"nccl-version", 0, 0, G_OPTION_ARG_STRING, &in->nccl_version,
       "For nccl measurements that do not say it (no nccl.version or nccl "
       "key): the NCCL release measured, e.g. 2.26.2",
       "VERSION"},
      {"collective", 0, 0, G_OPTION_ARG_STRING, &in->collective,
       "For nccl-tests tables that do not say it (no test name, no "
       "'# collective =' line): the collective measured, allreduce, "
       "allgather, reducescatter, broadcast, reduce, alltoall or sendrecv",
       "NAME"},
      {"ranks", 0, 0, G_OPTION_ARG_STRING, &in->ranks,
       "For nccl-tests tables that do not say it (no rank lines, no "
       "'# ranks =' line): the ranks of the run",
       "N"},
      G_OPTION_ENTRY_NULL};

  cli_add_main_entries(ctx, e);
}

static void inputs_clear(Inputs *in)
{
  g_free(in->topology);
  g_strfreev(in->models);
  g_strfreev(in->files);
  g_free(in->gpus_per_process);
  g_free(in->iters);
  g_free(in->graph_launches);
  g_free(in->nccl_version);
  g_free(in->collective);
  g_free(in->ranks);
  if (in->sets)
    g_ptr_array_unref(in->sets);
  if (in->set_files)
    g_ptr_array_unref(in->set_files);
  topo_system_free(in->sys);
}

static gboolean inputs_load(Inputs *in, const char *command, GError **error)
{
  g_autoptr(GHashTable) given =
      g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);

  if (!in->files || !in->files[0]) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "no measurement file given (ifsim-probe output, nccl-tests, "
                "perftest, p2pBandwidthLatencyTest or nvbandwidth output)");
    return FALSE;
  }
  if (!in->topology) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "-t/--topology is required: the system the measurements were "
                "taken on");
    return FALSE;
  }
  if (in->gpus_per_process &&
      !g_ascii_string_to_unsigned(in->gpus_per_process, 10, 1, 1024, NULL,
                                  NULL)) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--gpus-per-process: '%s' is not a count from 1 to 1024",
                in->gpus_per_process);
    return FALSE;
  }
  if (in->iters &&
      !g_ascii_string_to_unsigned(in->iters, 10, 1, G_MAXUINT32, NULL, NULL)) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--iters: '%s' is not a count from 1 to %u", in->iters,
                G_MAXUINT32);
    return FALSE;
  }
  if (in->graph_launches &&
      !g_ascii_string_to_unsigned(in->graph_launches, 10, 0, G_MAXINT32, NULL,
                                  NULL)) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--graph-launches: '%s' is not a count from 0 to %d",
                in->graph_launches, G_MAXINT32);
    return FALSE;
  }
  if (in->nccl_version &&
      !nccl_version_parse(in->nccl_version, "--nccl-version", &(guint32){0},
                          error))
    return FALSE;
  if (in->collective) {
    NcclColl c;

    if (!nccl_coll_parse(in->collective, &c)) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--collective: '%s' is not a collective (expected "
                  "allreduce, allgather, reducescatter, broadcast, reduce, "
                  "alltoall or sendrecv)",
                  in->collective);
      return FALSE;
    }
    g_hash_table_replace(given, g_strdup("collective"),
                         g_strdup(nccl_coll_name(c)));
  }
  if (in->ranks) {
    if (!g_ascii_string_to_unsigned(in->ranks, 10, 1, 1u << 20, NULL, NULL)) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--ranks: '%s' is not a count from 1 to %u", in->ranks,
                  1u << 20);
      return FALSE;
    }
    g_hash_table_replace(given, g_strdup("ranks"), g_strdup(in->ranks));
  }
  in->sets = g_ptr_array_new_with_free_func((GDestroyNotify)val_meas_free);
  in->set_files = g_ptr_array_new();
  for (guint i = 0; in->files[i]; i++) {
    guint first = in->sets->len;
    if (!val_meas_load_sets(in->files[i], given, in->sets, error))
      return FALSE;
    for (guint k = first; k < in->sets->len; k++) {
      ValMeasurements *m = in->sets->pdata[k];
      /* the file's own values win */
      if (in->gpus_per_process && !val_meas_get(m, "gpus_per_process"))
        val_meas_set(m, "gpus_per_process", in->gpus_per_process);
      if (in->iters && !val_meas_get(m, "iters"))
        val_meas_set(m, "iters", in->iters);
      if (in->graph_launches && !val_meas_get(m, "graph_launches"))
        val_meas_set(m, "graph_launches", in->graph_launches);
      if (in->nccl_version && !val_meas_get(m, "nccl.version") &&
          !val_meas_get(m, "nccl"))
        val_meas_set(m, "nccl.version", in->nccl_version);
      g_ptr_array_add(in->set_files, in->files[i]);
    }
  }
  in->sys =
      topo_system_load(in->topology, (const char *const *)in->models, error);
  if (!in->sys)
    return FALSE;
  {
    /* a measurement of other hardware than the system's: said, not
     * refused (comparing them may be the point) */
    g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func(g_free);

    for (guint i = 0; i < in->sets->len; i++)
      val_meas_check_system(in->sets->pdata[i], in->set_files->pdata[i],
                            in->sys, warnings);
    for (guint i = 0; i < warnings->len; i++)
      fprintf(stderr, "ifsim: %s: warning: %s\n", command,
              (const char *)warnings->pdata[i]);
  }
  return TRUE;
}

/* Collectives launched as CUDA graphs across servers: a captured call
 * waits for a host function NCCL adds, which is not modelled (as run's
 * note, tools/cmd_run.c graph_notes). */
static void graph_note(const TopoSystem *sys, const ValReport *r)
{
  for (guint i = 0; i < r->points->len; i++) {
    const ValPoint *p = &g_array_index(r->points, ValCompare, i).point;

    if (p->probe == VAL_PROBE_NCCL && p->graph_launches &&
        p->ranks > topo_system_gpus_per_server(sys)) {
      printf("# note: " CLI_GRAPH_NOTE "\n");
      return;
    }
  }
}

static void print_series(FILE *out, const ValReport *r)
{
  fprintf(out, "# %-7s %-14s %-8s %-9s %-9s %5s %5s %9s %9s %9s %9s %8s %8s\n",
          "probe", "test", "mode", "src", "dst", "ranks", "sizes", "alpha_us",
          "beta_GBps", "m_alpha", "m_beta", "med_err%", "max_err%");
  for (guint i = 0; i < r->series->len; i++) {
    const ValSeries *s = &g_array_index(r->series, ValSeries, i);

    fprintf(out, "  %-7s %-14s %-8s %-9s %-9s %5u %5u ",
            val_probe_name(s->key.probe), s->key.test,
            s->key.mode[0] ? s->key.mode : "-", s->key.src, s->key.dst,
            s->key.ranks, s->n);
    if (s->fitted && s->beta_GBps > 0)
      fprintf(out, "%9.3f %9.2f ", s->alpha_us, s->beta_GBps);
    else if (s->fitted)
      fprintf(out, "%9.3f %9s ", s->alpha_us, "-");
    else
      fprintf(out, "%9s %9s ", "-", "-");
    if (s->predicted && s->model_beta_GBps > 0)
      fprintf(out, "%9.3f %9.2f %8.1f %8.1f\n", s->model_alpha_us,
              s->model_beta_GBps, 100 * s->median_abs_err,
              100 * s->worst_abs_err);
    else if (s->predicted)
      fprintf(out, "%9.3f %9s %8.1f %8.1f\n", s->model_alpha_us, "-",
              100 * s->median_abs_err, 100 * s->worst_abs_err);
    else
      fprintf(out, "not predicted: %s\n", s->why);
  }
}

/* --- ifsim calibrate ------------------------------------------------------- */

int cli_cmd_calibrate(int argc, char **argv)
{
  Inputs in = {0};
  char *output = NULL;
  GOptionEntry entries[] = {
      {"topology", 't', 0, G_OPTION_ARG_FILENAME, &in.topology,
       "The system the measurements were taken on (required)", "TOPO.ini"},
      {"models", 'm', 0, G_OPTION_ARG_FILENAME_ARRAY, &in.models,
       "Model file applied first (repeatable)", "FILE"},
      {"output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
       "Write the calibrated model file here (required)", "CALIBRATED.ini"},
      {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &in.files, NULL,
       NULL},
      G_OPTION_ENTRY_NULL};
  g_autoptr(GOptionContext) ctx = cli_context_new(
      "MEASUREMENTS... -t TOPO.ini -o CALIBRATED.ini",
      "Fit link models to measurements and write a model file.",
      "Each measured series is fitted to time = alpha + size / beta. Links "
      "that limit bandwidth series reaching 1 MiB get an efficiency (measured "
      "over modelled beta); p2p sm_latency and verbs latency tests move link "
      "and NIC latencies.\nUse the result with 'ifsim run -m "
      "CALIBRATED.ini' and check it with 'ifsim validate -m "
      "CALIBRATED.ini'.");
  g_autoptr(GError) error = NULL;
  ValReport rep = {0};
  char *ini = NULL;
  int status = CLI_EXIT_USAGE;

  cli_add_main_entries(ctx, entries);
  add_nccl_entries(ctx, &in);
  if (!cli_parse(ctx, "calibrate", &argc, &argv, &status))
    goto out;
  if (!output)
    g_set_error(&error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "-o/--output is required: where to write the model file");
  if (error || !inputs_load(&in, "calibrate", &error))
    goto fail;
  val_report_build(in.sys, (ValMeasurements *const *)in.sets->pdata,
                   in.sets->len, &rep);
  ini =
      val_calibration_ini(in.sys, &rep, (const char *const *)in.files, &error);
  if (!ini) {
    g_autofree char *files = g_strjoinv(", ", in.files);

    print_series(stderr, &rep);
    g_prefix_error(&error, "%s: ", files);
    goto fail;
  }
  /* The model file must load where it is meant to be used: checked from
   * a temporary copy, so a failure leaves no output behind. */
  {
    g_autofree char *tmp = NULL;
    g_autoptr(TopoSystem) check = NULL;
    int fd = g_file_open_tmp("ifsim-calibration-XXXXXX.ini", &tmp, &error);
    char *models[] = {NULL, NULL};

    if (fd < 0)
      goto fail;
    close(fd);
    models[0] = tmp;
    if (g_file_set_contents(tmp, ini, -1, &error))
      check =
          topo_system_load(in.topology, (const char *const *)models, &error);
    g_unlink(tmp);
    if (!check) {
      g_prefix_error(&error, "the calibration does not load (a bug): ");
      goto fail;
    }
  }
  /* the series first: when they cannot be written (a full disk), the
   * commit sees it and replaces no file */
  print_series(stdout, &rep);
  if (!trc_write_text(output, g_steal_pointer(&ini), &error))
    goto fail;
  printf("# wrote %s; use it with: ifsim run -t %s -m %s\n", output,
         in.topology, output);
  status = CLI_EXIT_OK;
  goto out;
fail:
  status = cli_report("calibrate", error);
out:
  g_free(ini);
  g_free(output);
  val_report_clear(&rep);
  inputs_clear(&in);
  return status;
}

/* --- ifsim validate --------------------------------------------------------- */

static char *compare_csv(const ValReport *r)
{
  GString *s = g_string_new(
      "# ifsim validate: predicted against measured, per point\n"
      "probe,test,mode,src,dst,ranks,size_bytes,measured_us,predicted_us,"
      "error_pct\n");

  for (guint i = 0; i < r->points->len; i++) {
    const ValCompare *c = &g_array_index(r->points, ValCompare, i);

    val_point_csv_names(s, &c->point);
    g_string_append_printf(s, ",%u,%" G_GUINT64_FORMAT ",%.6g,%.6g,%.3f\n",
                           c->point.ranks, c->point.size_bytes,
                           c->point.time_us_median, c->predicted_us,
                           100 * c->error);
  }
  return g_string_free(s, FALSE);
}

/* Measured (points) and predicted (lines) time against size, log-log, one
 * colour per series, drawn by gnuplot into an SVG or PNG: into a temporary
 * of outs, renamed to path with the run's other outputs. */
static gint cmp_u64(gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *)a, y = *(const guint64 *)b;

  return x < y ? -1 : x > y;
}

static gboolean plot(const ValReport *r, TrcOutputs *outs, const char *path,
                     GError **error)
{
  g_autofree char *gnuplot = g_find_program_in_path("gnuplot");
  g_autofree char *dir = NULL;
  g_autofree char *data = NULL, *script = NULL;
  const char *tmp;
  g_autoptr(GString) d = g_string_new(NULL);
  g_autoptr(GString) cmd = g_string_new(NULL);
  g_autofree char *out_err = NULL;
  const char *term;
  gint wait = 0;
  guint shown = 0;

  if (!gnuplot) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "--plot: gnuplot is not installed (Debian: gnuplot-nox)");
    return FALSE;
  }
  if (g_str_has_suffix(path, ".svg"))
    term = "svg size 1024,768 dynamic";
  else if (g_str_has_suffix(path, ".png"))
    term = "pngcairo size 1024,768";
  else {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "--plot %s: expected a file name ending in .svg or .png", path);
    return FALSE;
  }
  tmp = trc_outputs_reserve(outs, path, error);
  if (!tmp)
    return FALSE;
  dir = g_dir_make_tmp("ifsim-plot-XXXXXX", error);
  if (!dir)
    return FALSE;
  data = g_build_filename(dir, "points.dat", NULL);
  script = g_build_filename(dir, "plot.gp", NULL);
  g_string_append_printf(cmd,
                         "set terminal %s\nset output '%s'\n"
                         "set logscale xy\nset xlabel 'message size (bytes)'\n"
                         "set ylabel 'time per operation (µs)'\n"
                         "set key top left Left reverse box opaque\n"
                         "set grid\nset format y '%%g'\n"
                         "set termoption noenhanced\n"
                         "set title 'ifsim validate: measured (points) and "
                         "predicted (lines)'\n",
                         term, tmp);
  {
    /* the sizes in binary units (8B ... 1K ... 8G), as ifsim plot has them */
    guint64 lo = G_MAXUINT64, hi = 0;

    for (guint k = 0; k < r->points->len; k++) {
      guint64 b = g_array_index(r->points, ValCompare, k).point.size_bytes;
      lo = MIN(lo, b);
      hi = MAX(hi, b);
    }
    if (hi > 0)
      cli_plot_size_axis(cmd, lo, hi, 12);
  }
  g_string_append(cmd, "plot ");
  /* One curve per kind of series (probe, test, mode; a collective's ranks):
   * the pairs of a p2p or nvbandwidth matrix measure the same thing, and a
   * legend of 56 pairs would hide the plot.  Every measured point is drawn;
   * the line is the median prediction per size. */
  {
    g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GPtrArray) members =
        g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);

    for (guint i = 0; i < r->series->len; i++) {
      const ValSeries *sr = &g_array_index(r->series, ValSeries, i);
      g_autofree char *key = NULL;
      guint g;

      if (!sr->predicted)
        continue;
      key = sr->key.probe == VAL_PROBE_NCCL
                ? g_strdup_printf("%s %s %s, %u ranks",
                                  val_probe_name(sr->key.probe), sr->key.test,
                                  sr->key.mode, sr->key.ranks)
                : g_strdup_printf("%s %s %s", val_probe_name(sr->key.probe),
                                  sr->key.test, sr->key.mode);
      for (g = 0; g < keys->len; g++)
        if (g_str_equal(keys->pdata[g], key))
          break;
      if (g == keys->len) {
        g_ptr_array_add(keys, g_steal_pointer(&key));
        g_ptr_array_add(members, g_array_new(FALSE, FALSE, sizeof(guint)));
      }
      g_array_append_val((GArray *)members->pdata[g], i);
    }
    for (guint g = 0; g < keys->len; g++) {
      GArray *ms = members->pdata[g];
      g_autoptr(GArray) sizes = g_array_new(FALSE, FALSE, sizeof(guint64));
      g_autofree char *title = NULL;

      /* the measured points, then "size median-prediction" per size */
      for (guint k = 0; k < r->points->len; k++) {
        const ValCompare *c = &g_array_index(r->points, ValCompare, k);

        for (guint j = 0; j < ms->len; j++)
          if (c->series == g_array_index(ms, guint, j)) {
            gboolean seen = FALSE;

            g_string_append_printf(d, "%" G_GUINT64_FORMAT " %.9g\n",
                                   c->point.size_bytes,
                                   c->point.time_us_median);
            for (guint q = 0; q < sizes->len && !seen; q++)
              seen = g_array_index(sizes, guint64, q) == c->point.size_bytes;
            if (!seen)
              g_array_append_val(sizes, c->point.size_bytes);
          }
      }
      g_string_append(d, "\n\n");
      g_array_sort(sizes, cmp_u64);
      for (guint q = 0; q < sizes->len; q++) {
        guint64 b = g_array_index(sizes, guint64, q);
        g_autoptr(GArray) pred = g_array_new(FALSE, FALSE, sizeof(double));

        for (guint k = 0; k < r->points->len; k++) {
          const ValCompare *c = &g_array_index(r->points, ValCompare, k);

          if (c->point.size_bytes != b)
            continue;
          for (guint j = 0; j < ms->len; j++)
            if (c->series == g_array_index(ms, guint, j))
              g_array_append_val(pred, c->predicted_us);
        }
        g_string_append_printf(d, "%" G_GUINT64_FORMAT " %.9g\n", b,
                               val_median(pred));
      }
      g_string_append(d, "\n\n");
      title = ms->len > 1 ? g_strdup_printf("%s (%u pairs)",
                                            (char *)keys->pdata[g], ms->len)
                          : g_strdup(keys->pdata[g]);
      g_strdelimit(title, "'\"", ' ');
      g_string_append_printf(
          cmd,
          "%s'%s' index %u using 1:2 with points pt 7 ps 1.2 lc %u title "
          "'%s, measured', '' index %u using 1:2 with linespoints pt 6 ps 1.6 "
          "lw 2 lc %u title "
          "'%s, predicted'",
          shown ? ", " : "", data, 2 * shown, shown + 1, title, 2 * shown + 1,
          shown + 1, title);
      shown++;
    }
  }
  g_string_append_c(cmd, '\n');
  if (shown == 0) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "--plot: no series could be predicted, nothing to plot");
    g_rmdir(dir);
    return FALSE;
  }
  {
    char *argv[] = {gnuplot, script, NULL};
    gboolean ok = g_file_set_contents(data, d->str, -1, error) &&
                  g_file_set_contents(script, cmd->str, -1, error) &&
                  g_spawn_sync(NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL,
                               NULL, NULL, NULL, &out_err, &wait, error);
    if (ok && !g_spawn_check_wait_status(wait, NULL)) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "--plot: gnuplot failed: %s", out_err ? out_err : "");
      ok = FALSE;
    }
    g_unlink(data);
    g_unlink(script);
    g_rmdir(dir);
    return ok;
  }
}

int cli_cmd_validate(int argc, char **argv)
{
  Inputs in = {0};
  char *csv = NULL, *plot_path = NULL, *max_error = NULL;
  gboolean all = FALSE;
  GOptionEntry entries[] = {
      {"topology", 't', 0, G_OPTION_ARG_FILENAME, &in.topology,
       "The system the measurements were taken on (required)", "TOPO.ini"},
      {"models", 'm', 0, G_OPTION_ARG_FILENAME_ARRAY, &in.models,
       "Model file applied first, e.g. a calibration (repeatable)", "FILE"},
      {"csv", 0, 0, G_OPTION_ARG_FILENAME, &csv,
       "Write predicted against measured per point as CSV", "FILE"},
      {"plot", 0, 0, G_OPTION_ARG_FILENAME, &plot_path,
       "Plot measured and predicted time per size (gnuplot; .svg or .png)",
       "FILE"},
      {"points", 0, 0, G_OPTION_ARG_NONE, &all,
       "Print every point, not only the per-series summary", NULL},
      {"max-error", 0, 0, G_OPTION_ARG_STRING, &max_error,
       "Exit 1 when the median |error| over all points exceeds PCT percent",
       "PCT"},
      {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &in.files, NULL,
       NULL},
      G_OPTION_ENTRY_NULL};
  g_autoptr(GOptionContext) ctx = cli_context_new(
      "MEASUREMENTS... -t TOPO.ini",
      "Compare predictions with measurements, per size.",
      "Prints, per measured series, the fit time = alpha + size / beta of the "
      "measurements (alpha_us, beta_GBps) and of the predictions (m_alpha, "
      "m_beta), and the median and worst |predicted - measured| / measured "
      "over its sizes; then the same over every point.");
  g_autoptr(GError) error = NULL;
  g_autoptr(TrcOutputs) outs = trc_outputs_new();
  ValReport rep = {0};
  double limit = -1;
  int status = CLI_EXIT_USAGE;

  cli_add_main_entries(ctx, entries);
  add_nccl_entries(ctx, &in);
  if (!cli_parse(ctx, "validate", &argc, &argv, &status))
    goto out;
  if (max_error) {
    if (!sim_decimal_parse(max_error, &limit) || !(limit >= 0))
      g_set_error(&error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--max-error: '%s' is not a percentage (expected a number "
                  ">= 0)",
                  max_error);
  }
  if (error || !inputs_load(&in, "validate", &error))
    goto fail;
  val_report_build(in.sys, (ValMeasurements *const *)in.sets->pdata,
                   in.sets->len, &rep);
  if (rep.points->len == 0) {
    g_autofree char *files = g_strjoinv(", ", in.files);

    g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s: no measured point can be predicted on system '%s' (see "
                "the reasons above)",
                files, topo_system_name(in.sys));
    print_series(stderr, &rep);
    goto fail;
  }
  if (csv && !trc_outputs_add(outs, csv, compare_csv(&rep), &error))
    goto fail;
  if (plot_path && !plot(&rep, outs, plot_path, &error))
    goto fail;
  /* the report first: when it cannot be written (a full disk), the commit
   * sees it and replaces no file */
  {
    guint files = g_strv_length(in.files);
    g_autofree char *runs =
        in.sets->len != files
            ? g_strdup_printf(" (%u measurement sets: one per nccl-tests "
                              "run of a paste)",
                              in.sets->len)
            : g_strdup("");
    printf("# ifsim validate: system %s, %u file(s)%s, %u series, %u points "
           "predicted\n",
           topo_system_name(in.sys), files, runs, rep.series->len,
           rep.points->len);
  }
  graph_note(in.sys, &rep);
  print_series(stdout, &rep);
  if (all) {
    printf("# %-7s %-14s %-8s %-9s %-9s %12s %12s %12s %8s\n", "probe", "test",
           "mode", "src", "dst", "size_bytes", "measured_us", "predicted_us",
           "error%");
    for (guint i = 0; i < rep.points->len; i++) {
      const ValCompare *c = &g_array_index(rep.points, ValCompare, i);
      printf("  %-7s %-14s %-8s %-9s %-9s %12" G_GUINT64_FORMAT
             " %12.3f %12.3f %8.1f\n",
             val_probe_name(c->point.probe), c->point.test,
             c->point.mode[0] ? c->point.mode : "-", c->point.src, c->point.dst,
             c->point.size_bytes, c->point.time_us_median, c->predicted_us,
             100 * c->error);
    }
  }
  printf("# all points: median |error| %.1f%%, worst %.1f%%\n",
         100 * rep.median_abs_err, 100 * rep.worst_abs_err);
  if (!trc_outputs_commit(outs, &error))
    goto fail;
  status = CLI_EXIT_OK;
  if (limit >= 0 && 100 * rep.median_abs_err > limit) {
    fprintf(stderr,
            "ifsim: validate: median |error| %.1f%% exceeds --max-error "
            "%g%%\n",
            100 * rep.median_abs_err, limit);
    status = 1;
  }
  goto out;
fail:
  status = cli_report("validate", error);
out:
  g_free(csv);
  g_free(plot_path);
  g_free(max_error);
  val_report_clear(&rep);
  inputs_clear(&in);
  return status;
}
