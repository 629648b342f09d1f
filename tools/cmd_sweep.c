/* `ifsim sweep`: a what-if grid of collective size sweeps written as one
 * CSV (docs/sweep.md).
 *
 * The grid (tools/sweep.c) is built from a plan file and the command
 * line; its points run here, in this process (-j 1), in worker processes
 * (-j N: tools/workers.h, each worker taking every N-th point of this
 * process's share and sending its results back over a pipe as frames), and across
 * MPI ranks when mpirun started the process (tools/sweep_mpi.h: point p
 * goes to rank p mod K, rank 0 gathers).  Processes, not threads: the
 * simulator keeps process-wide state (the memory limit, the interrupt
 * flag).  Results are put back in point order before the CSV is written,
 * so the output is the same byte for byte whatever -j and K are.
 *
 * A failed point fails the sweep (exit 2, the lowest failed point named
 * with its values and reason) unless --keep-going, which records it as a
 * "# point N failed: reason" comment; a sweep where every point failed
 * still exits 2.  The CSV is written through TrcOutputs: an error or an
 * interrupt leaves no partial file. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/error.h"
#include "sim/interrupt.h"
#include "tools/cli.h"
#include "tools/nccl_options.h"
#include "tools/sweep.h"
#include "tools/sweep_mpi.h"
#include "tools/workers.h"
#include "traces/output.h"

#define COMMAND "sweep"

typedef struct {
  char *plan;
  char **vary;
  char *topology;
  char **models;
  char *output;
  guint64 jobs;
  gboolean keep_going;
  guint64 max_memory;
  gboolean max_memory_seen;
  /* Workload options, as text, for cli_sweep_set_run */
  char *collective, *minbytes, *maxbytes, *stepbytes, *stepfactor, *ranks,
      *gpus_per_process, *iters, *graph_launches, *root, *datatype, *op;
  CliNcclOptions nccl; /* --algo ... --fidelity */
} SweepOptions;

static void sweep_options_clear(SweepOptions *o)
{
  char **texts[] = {
      &o->plan,     &o->topology,         &o->output,    &o->collective,
      &o->minbytes, &o->maxbytes,         &o->stepbytes, &o->stepfactor,
      &o->ranks,    &o->gpus_per_process, &o->iters,     &o->graph_launches,
      &o->root,     &o->datatype,         &o->op};

  for (guint i = 0; i < G_N_ELEMENTS(texts); i++)
    g_free(*texts[i]);
  g_strfreev(o->vary);
  g_strfreev(o->models);
  cli_nccl_options_clear(&o->nccl);
}

/* The results of the points, by point; this process's progress. */
typedef struct {
  const CliSweep *sw;
  gboolean keep_going;
  char **rows;     /* NULL where the point did not run or failed */
  char **failures; /* the reason where it failed */
  guint done, share;
  gboolean progress;
  gint64 start_us;
} SweepRun;

static void sweep_record(SweepRun *r, guint32 point, gboolean ok, char *text)
{
  g_assert(point < cli_sweep_points(r->sw));
  g_free(r->rows[point]);
  g_free(r->failures[point]);
  r->rows[point] = ok ? text : NULL;
  r->failures[point] = ok ? NULL : text;
  r->done++;
  if (r->progress) {
    double s = (double)(g_get_monotonic_time() - r->start_us) / 1e6;
    g_autofree char *line = cli_sweep_progress_text(r->done, r->share, s);

    fprintf(stderr, "\r%s", line);
    fflush(stderr);
  }
}

/* Runs point p (cli_workers_run): its rows, or why it failed. */
static char *sweep_work(void *ctx, guint p, gboolean *ok)
{
  SweepRun *r = ctx;
  g_autoptr(GError) error = NULL;
  char *rows = cli_sweep_run_point(r->sw, p, &error);

  *ok = rows != NULL;
  return *ok ? rows : g_strdup(error->message);
}

/* Records point p's result; FALSE when it failed and the sweep should
 * stop. */
static gboolean sweep_record_point(void *ctx, guint p, gboolean ok, char *text)
{
  SweepRun *r = ctx;

  sweep_record(r, p, ok, text);
  return ok || (r->keep_going && !sim_interrupted());
}

/* Runs this process's share of the points, -j at a time. */
static gboolean sweep_local(SweepRun *r, const guint *points, guint n,
                            guint jobs, GError **error)
{
  return cli_workers_run(points, n, jobs, r->keep_going, sweep_work,
                         sweep_record_point, r, error);
}

/* Builds the sweep from the options and the plan file. */
static gboolean sweep_build(SweepOptions *o, CliSweep *sw, GError **error)
{
  g_autofree char *channels =
      o->nccl.channels_seen
          ? g_strdup_printf("%" G_GUINT64_FORMAT, o->nccl.channels)
          : NULL;
  const struct {
    const char *key, *flag;
    char short_name;
    const char *value;
  } run[] = {{"collective", "--collective", 'c', o->collective},
             {"minbytes", "--minbytes", 'b', o->minbytes},
             {"maxbytes", "--maxbytes", 'e', o->maxbytes},
             {"stepbytes", "--stepbytes", 'i', o->stepbytes},
             {"stepfactor", "--stepfactor", 'f', o->stepfactor},
             {"ranks", "--ranks", 'n', o->ranks},
             {"gpus_per_process", "--gpus-per-process", 0, o->gpus_per_process},
             {"iters", "--iters", 0, o->iters},
             {"graph_launches", "--graph-launches", 0, o->graph_launches},
             {"root", "--root", 'r', o->root},
             {"channels", "--channels", 0, channels},
             {"datatype", "--datatype", 'd', o->datatype},
             {"op", "--op", 0, o->op},
             {"algo", "--algo", 0, o->nccl.algo},
             {"proto", "--proto", 0, o->nccl.proto},
             {"nccl_version", "--nccl-version", 0, o->nccl.nccl_version},
             {"fidelity", "--fidelity", 0, o->nccl.fidelity},
             {"collnet", "--collnet", 0, o->nccl.collnet ? "true" : NULL},
             {"no_fold", "--no-fold", 0, o->nccl.no_fold ? "true" : NULL},
             {"no_shortcut", "--no-shortcut", 0, o->nccl.no_shortcut},
             {"tuner_config", "--tuner-config", 0, o->nccl.tuner_config}};

  for (guint i = 0; i < G_N_ELEMENTS(run); i++) {
    if (run[i].value &&
        !cli_sweep_set_run(sw, run[i].key, run[i].value,
                           cli_flag_typed(run[i].flag + 2, run[i].short_name),
                           error))
      return FALSE;
  }
  for (guint i = 0; o->vary && o->vary[i]; i++) {
    if (!cli_sweep_add_vary(sw, o->vary[i], cli_flag_typed("vary", 'V'), error))
      return FALSE;
  }
  if (o->topology)
    cli_sweep_set_topology(sw, o->topology);
  for (guint i = 0; o->models && o->models[i]; i++)
    cli_sweep_add_model(sw, o->models[i]);
  if (o->plan && !cli_sweep_load_plan(sw, o->plan, error))
    return FALSE;
  if (o->jobs < 1 || o->jobs > 4096) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s: %" G_GUINT64_FORMAT " is not from 1 to 4096",
                cli_flag_typed("jobs", 'j'), o->jobs);
    return FALSE;
  }
  return cli_apply_max_memory(o->max_memory, o->max_memory_seen, error) &&
         cli_sweep_prepare(sw, error);
}

/* Rank 0: the outcome of the sweep, written to o->output on success. */
static gboolean sweep_finish(const SweepOptions *o, const CliSweep *sw,
                             SweepRun *r, GError **error)
{
  guint points = cli_sweep_points(sw), failed = 0, first = points;
  g_autoptr(TrcOutputs) outs = trc_outputs_new();

  for (guint p = 0; p < points; p++) {
    if (r->failures[p]) {
      failed++;
      first = MIN(first, p);
    }
  }
  if (failed && !o->keep_going) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE, "%s",
                r->failures[first]);
    return FALSE;
  }
  if (failed == points) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "every point failed; the first: %s", r->failures[first]);
    return FALSE;
  }
  return trc_outputs_add(outs, o->output ? o->output : "-",
                         cli_sweep_csv(sw, r->rows, r->failures), error) &&
         trc_outputs_commit(outs, error);
}

int cli_cmd_sweep(int argc, char **argv)
{
  SweepOptions o = {.jobs = 1};
  CliNumberTarget numbers[] = {
      {"jobs", 'j', CLI_NUMBER_COUNT, &o.jobs, NULL, 0},
      CLI_NCCL_CHANNELS_TARGET(&o.nccl),
      CLI_MAX_MEMORY_TARGET(&o.max_memory, &o.max_memory_seen),
      {NULL, 0, 0, NULL, NULL, 0}};
  GOptionEntry entries[] = {
      {"vary", 'V', 0, G_OPTION_ARG_STRING_ARRAY, &o.vary,
       "Vary KEY over the values (repeatable; the grid crosses them, the "
       "first varying slowest). KEY: GROUP.KEY of the topology file (e.g. "
       "system.servers, scaleout.link, 'link ib-ndr-4x.cable_m', "
       "nccl.latency_us) or run.KEY (collective, minbytes, ranks, algo, ...)",
       "KEY=V1,V2,..."},
      {"topology", 't', 0, G_OPTION_ARG_FILENAME, &o.topology,
       "Base system (default: the embedded 8-GPU H100 server)", "TOPO.ini"},
      {"models", 'm', 0, G_OPTION_ARG_FILENAME_ARRAY, &o.models,
       "Model file applied before the system's own groups (repeatable)",
       "FILE"},
      {"output", 'o', 0, G_OPTION_ARG_FILENAME, &o.output,
       "Write the CSV to FILE (default, or '-': standard output)", "FILE"},
      {"jobs", 'j', 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,
       "Run N points at once, in worker processes (default 1)", "N"},
      {"keep-going", 'k', 0, G_OPTION_ARG_NONE, &o.keep_going,
       "Record a failed point as a '# point N failed' comment and go on "
       "(default: a failed point fails the sweep)",
       NULL},
      {"collective", 'c', 0, G_OPTION_ARG_STRING, &o.collective,
       "Collectives run at every point, comma-separated (default allreduce)",
       "LIST"},
      {"minbytes", 'b', 0, G_OPTION_ARG_STRING, &o.minbytes,
       "Smallest size, K/M/G/T binary (default 8)", "SIZE"},
      {"maxbytes", 'e', 0, G_OPTION_ARG_STRING, &o.maxbytes,
       "Largest size (default 8G)", "SIZE"},
      {"stepfactor", 'f', 0, G_OPTION_ARG_STRING, &o.stepfactor,
       "Multiply the size by N between steps (default 2)", "N"},
      {"stepbytes", 'i', 0, G_OPTION_ARG_STRING, &o.stepbytes,
       "Add SIZE between steps instead", "SIZE"},
      {"ranks", 'n', 0, G_OPTION_ARG_STRING, &o.ranks,
       "Ranks, whole servers in order (default: every GPU)", "N"},
      {"gpus-per-process", 0, 0, G_OPTION_ARG_STRING, &o.gpus_per_process,
       "GPUs one process drives, as nccl-tests -g (default 1)", "G"},
      {"iters", 0, 0, G_OPTION_ARG_STRING, &o.iters,
       "Time N calls as one loop, as nccl-tests -n (default: a long loop)",
       "N"},
      {"graph-launches", 0, 0, G_OPTION_ARG_STRING, &o.graph_launches,
       "Launch the calls as CUDA graphs K times, as nccl-tests -G (default "
       "0: one by one)",
       "K"},
      {"datatype", 'd', 0, G_OPTION_ARG_STRING, &o.datatype,
       "Element type, as ifsim run -d (default float)", "TYPE"},
      {"op", 0, 0, G_OPTION_ARG_STRING, &o.op,
       "Reduction: sum (default), prod, max, min, avg", "OP"},
      {"root", 'r', 0, G_OPTION_ARG_STRING, &o.root,
       "Root rank of Broadcast and Reduce (default 0)", "RANK"},
      G_OPTION_ENTRY_NULL};
  /* after NCCL's options */
  GOptionEntry more[] = {CLI_MAX_MEMORY_ENTRY, G_OPTION_ENTRY_NULL};
  g_autoptr(GOptionContext) ctx = cli_context_new(
      "[PLAN.ini]",
      "Run a what-if grid of collective size sweeps into one CSV.",
      "Every point of the grid crosses the --vary keys (and the plan's "
      "[vary] group) and runs\nthe collectives over the sizes as 'ifsim "
      "run' does; the CSV has one row per point,\ncollective and size, the "
      "varied keys as columns.  Options override the plan's [sweep].\n"
      "Under mpirun, points are dealt to the ranks and rank 0 writes the "
      "CSV.\n" CLI_NCCL_ENV_HELP "\nSee docs/sweep.md.");
  GOptionGroup *group = g_option_group_new(COMMAND, "sweep options",
                                           "sweep options", numbers, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(CliSweep) sw = cli_sweep_new();
  g_autoptr(GArray) mine = g_array_new(FALSE, FALSE, sizeof(guint));
  g_autoptr(GByteArray) frames = NULL;
  SweepRun r = {0};
  int status = CLI_EXIT_USAGE, failed_rank;
  gboolean mpi = FALSE, ok;
  guint rank = 0, size = 1, points;

  cli_add_entries(group, entries);
  cli_nccl_add_entries(group, &o.nccl);
  cli_add_entries(group, more);
  g_option_context_set_main_group(ctx, group);
  if (cli_mpi_launched()) {
    if (!cli_mpi_start(&rank, &size, &error))
      goto fail;
    mpi = TRUE;
  }
  if (!cli_parse(ctx, COMMAND, &argc, &argv, &status)) {
    /* --help prints once; a bad option is reported by every rank */
    goto out;
  }
  if (rank == 0)
    cli_nccl_env_notes(COMMAND);
  ok = TRUE;
  if (argc > 2) {
    g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "unexpected argument '%s' (one plan file at most)", argv[2]);
    ok = FALSE;
  }
  if (ok && argc == 2)
    o.plan = g_strdup(argv[1]);
  ok = ok && sweep_build(&o, sw, &error);
  failed_rank = mpi ? cli_mpi_first_failed(ok) : (ok ? -1 : 0);
  if (failed_rank >= 0) {
    if ((guint)failed_rank != rank)
      goto out;
    if (rank != 0)
      g_prefix_error(&error, "rank %u: ", rank);
    goto fail;
  }
  points = cli_sweep_points(sw);
  r = (SweepRun){.sw = sw,
                 .keep_going = o.keep_going,
                 .rows = g_new0(char *, points),
                 .failures = g_new0(char *, points),
                 .progress = rank == 0 && isatty(2),
                 .start_us = g_get_monotonic_time()};
  for (guint p = rank; p < points; p += size)
    g_array_append_val(mine, p);
  r.share = mine->len;
  ok = sweep_local(&r, (const guint *)(void *)mine->data, mine->len,
                   (guint)o.jobs, &error);
  if (r.progress)
    fputc('\n', stderr);
  r.progress = FALSE;
  if (mpi && rank != 0) {
    /* Rank 0 reports; this rank's own error (an interrupt) travels as a
     * failed point. */
    frames = g_byte_array_new();
    for (guint k = 0; k < mine->len; k++) {
      guint p = g_array_index(mine, guint, k);

      if (r.rows[p] || r.failures[p])
        cli_sweep_frame_append(frames, p, r.rows[p] != NULL,
                               r.rows[p] ? r.rows[p] : r.failures[p]);
    }
    if (!ok && mine->len)
      cli_sweep_frame_append(frames, g_array_index(mine, guint, 0), FALSE,
                             error->message);
    cli_mpi_send_results(frames);
    status = cli_mpi_bcast_status(CLI_EXIT_USAGE);
    goto out;
  }
  if (mpi) {
    for (guint from = 1; from < size; from++) {
      g_autoptr(GByteArray) buf = cli_mpi_recv_results(from);
      gsize at = 0;
      guint32 p;
      gboolean pok;
      char *text;

      while (cli_sweep_frame_next(buf->data, buf->len, &at, &p, &pok, &text))
        sweep_record(&r, p, pok, text);
    }
  }
  ok = ok && sweep_finish(&o, sw, &r, &error);
  status = ok ? CLI_EXIT_OK : cli_report(COMMAND, error);
  if (mpi)
    cli_mpi_bcast_status(status);
  goto out;
fail:
  status = cli_report(COMMAND, error);
out:
  if (r.rows) {
    for (guint p = 0; p < cli_sweep_points(sw); p++) {
      g_free(r.rows[p]);
      g_free(r.failures[p]);
    }
    g_free(r.rows);
    g_free(r.failures);
  }
  sweep_options_clear(&o);
  if (mpi)
    cli_mpi_stop();
  return status;
}
