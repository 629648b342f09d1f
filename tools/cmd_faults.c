/* ifsim faults: what failures cost a collective (docs/faults.md).
 *
 *   ifsim faults -t pod.ini -b 1G -e 1G --criticality switches
 *   ifsim faults -t pod.ini -b 1G -e 1G --random 1,2,3,4 --draws 100
 *   ifsim faults -t pod.ini -b 1G -e 1G --random 1,2 --random-kind nics
 *
 * The baseline is the system as loaded, with its [faults] and the --fail,
 * --degrade and --fail-random flags; every scenario adds its own faults to
 * it (one element down, or k random elements drawn with a seed: physical
 * links by default) and runs the
 * collective over the sizes as `ifsim run` does, NCCL's choice, channels
 * and routes made again on what is left.  A scenario's slowdown at a size
 * is its time over the baseline's.  A scenario whose faults leave a pair
 * of ranks no path (or a server no NIC) is reported as cut, with the
 * message naming them: the job would not run.  With a workload (--llm,
 * --workload) each scenario replays its training step instead, on the
 * lowest servers, and the slowdown is the step's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/error.h"
#include "sim/interrupt.h"
#include "sim/rng.h"
#include "tools/cli.h"
#include "tools/fault_options.h"
#include "tools/jobs.h"
#include "tools/run.h"
#include "tools/workers.h"
#include "topologies/error.h"
#include "topologies/system.h"
#include "traces/csvtext.h"
#include "traces/output.h"

#define COMMAND "faults"

/* Rows the criticality table prints unless --top says otherwise. */
#define FAULTS_DEFAULT_TOP 20
/* Draws per count of random elements unless --draws says otherwise. */
#define FAULTS_DEFAULT_DRAWS 100

typedef struct {
  char *criticality;  /* KIND */
  char *random;       /* "1,2,3,4" */
  char *random_kind;  /* links (physical cables) or a topo_fault_elements
                         kind */
  guint64 draws, seed, top, jobs;
  gboolean draws_seen, seed_seen, top_seen;
  char *csv;
  char *llm, *workload; /* a training step instead of the collective */
} FaultsOptions;

/* The training step every scenario replays (NULL: the collective). */
typedef struct {
  TrcWorkload *w;
  const char *name;  /* the job's: "llm" or "workload" */
  const char *where; /* the flag that gave it, for messages */
} FaultsStep;

/* One scenario: its faults and what the run gave, or why it could not. */
typedef struct {
  char *element; /* the element down; draws of elements: those drawn */
  const char **drawn; /* draws of elements: the names drawn (NULL-
                         terminated, pointing into the elements' names);
                         NULL otherwise */
  guint32 down;  /* draws: elements down */
  guint32 seed;  /* draws: the draw's seed */
  GArray *rows;  /* TrcCollRow per size; NULL when cut */
  char *failure; /* the message when cut */
  double key;    /* slowdown of the largest size; INFINITY when cut */
  guint order;   /* the scenario's index, for ties when ranked */
} Scenario;

static void scenario_clear(Scenario *s)
{
  g_free(s->element);
  g_free(s->drawn);
  if (s->rows)
    g_array_unref(s->rows);
  g_free(s->failure);
}

/* The step replayed on sys's lowest servers, as one row of size 0 (its
 * time); info (may be NULL) gets its description. */
static gboolean step_on(const TopoSystem *sys, const CliRunOptions *o,
                        const CliRunPlan *plan, const FaultsStep *step,
                        GArray *rows, TrcCollInfo *info, GError **error)
{
  g_autoptr(GArray) jobs = g_array_new(FALSE, TRUE, sizeof(CliJob));
  CliJob j = {.name = g_strdup(step->name),
              .w = step->w,
              .placement = TRC_PLACE_PACKED,
              .where = g_strdup(step->where)};
  TrcReplayOptions ro = {.nccl = plan->nopt, .exec = cli_nccl_exec(&o->nccl)};
  TrcReplayResult res = {0};
  TrcReplay *run;
  gboolean ok;

  g_array_append_val(jobs, j);
  ok = cli_jobs_place(sys, jobs, error);
  {
    CliJob *placed = &g_array_index(jobs, CliJob, 0);
    TrcReplayJob rj = {placed->name, step->w, placed->servers,
                       placed->n_servers};

    run = ok ? trc_replay_run(sys, &rj, 1, &ro, &res, error) : NULL;
    ok = run != NULL;
    if (ok) {
      TrcCollRow r = {
          .time_us = sim_time_to_us(res.step_ps), .algo = "step", .proto = "-"};

      g_array_append_val(rows, r);
    }
    if (ok && info) {
      *info = (TrcCollInfo){.collective = g_intern_string(step->name),
                            .system = g_intern_string(topo_system_name(sys)),
                            .fidelity = cli_nccl_fidelity(&o->nccl),
                            .ranks = res.ranks,
                            .nodes = placed->n_servers};
    }
    placed->w = NULL; /* the step's, kept for the next scenario */
    cli_job_clear(placed);
  }
  trc_replay_result_clear(&res);
  trc_replay_free(run);
  return ok;
}

/* The collective over the sizes on sys (or the step), into rows; info
 * (may be NULL) gets its description, the system's name interned (sys
 * goes first). */
static gboolean run_on(const TopoSystem *sys, const CliRunOptions *o,
                       const CliRunPlan *plan, const FaultsStep *step,
                       GArray *rows, TrcCollInfo *info, GError **error)
{
  g_autoptr(NcclComm) comm = NULL;

  if (step)
    return step_on(sys, o, plan, step, rows, info, error);
  comm = cli_run_comm_new(sys, o, plan, error);

  if (!comm || !cli_run_collective(comm, o, plan, NULL, NULL, NULL, NULL, NULL,
                                   rows, error))
    return FALSE;
  if (info) {
    cli_run_info(o, plan, sys, comm, info);
    info->system = g_intern_string(info->system);
  }
  return TRUE;
}

/* Runs one scenario; FALSE only for an interrupt, a run refused for its
 * memory or a state ifsim does not model (the scenario's own failure,
 * its faults cutting the job, is its result). */
static gboolean run_scenario(const CliRunOptions *o, const CliRunPlan *plan,
                             const FaultsStep *step, const TopoFaultSpec *spec,
                             const GArray *base, Scenario *s, GError **error)
{
  g_autoptr(GError) local = NULL;
  g_autoptr(TopoSystem) sys = cli_run_load_system(o, &local);
  GArray *rows = g_array_new(FALSE, TRUE, sizeof(TrcCollRow));

  if (!sys || !topo_system_add_faults(sys, spec, &local) ||
      !run_on(sys, o, plan, step, rows, NULL, &local)) {
    g_array_unref(rows);
    /* an interrupt, a run refused for its memory, a state ifsim does
     * not model: the command's failure, not a scenario whose faults cut
     * the job */
    if (sim_interrupted() ||
        g_error_matches(local, SIM_ERROR, SIM_ERROR_MEMORY) ||
        g_error_matches(local, TOPO_ERROR, TOPO_ERROR_UNMODELLED)) {
      g_propagate_error(error, g_steal_pointer(&local));
      return FALSE;
    }
    s->failure = g_strdup(local->message);
    s->key = INFINITY;
    return TRUE;
  }
  s->rows = rows;
  s->key = g_array_index(rows, TrcCollRow, rows->len - 1).time_us /
           g_array_index(base, TrcCollRow, base->len - 1).time_us;
  return sim_interrupt_check(error);
}

/* The stream of the element draws, apart from any other use of a seed. */
#define FAULTS_DRAW_STREAM 0x64726177ull /* "draw" */

/* k distinct names of elements, each equally likely, from a seed
 * (NULL-terminated; the names stay elements'). */
static const char **draw_elements(const GPtrArray *elements, guint32 k,
                                  guint32 seed)
{
  g_autofree guint32 *idx = g_new(guint32, elements->len);
  const char **out = g_new0(const char *, k + 1);
  SimRng rng;

  sim_rng_init(&rng, seed, FAULTS_DRAW_STREAM);
  for (guint32 i = 0; i < elements->len; i++)
    idx[i] = i;
  sim_rng_draw(&rng, idx, elements->len, k);
  for (guint32 i = 0; i < k; i++)
    out[i] = g_ptr_array_index(elements, idx[i]);
  return out;
}

/* The scenarios of one call, run by cli_workers_run (here, or in worker
 * processes with -j): each sends back its rows, or why its faults cut the
 * job, as text; a scenario that fails the command (an interrupt, its
 * memory, a state not modelled) stops the others. */
typedef struct {
  const CliRunOptions *o;
  const CliRunPlan *plan;
  const FaultsStep *step;
  const GArray *base;
  gboolean criticality;
  Scenario *sc;
  char *failed; /* the message of the scenario that failed the command */
} FaultsRun;

/* A row as text and back, every field as it was (%.17g; a name that is
 * not there as an empty field): the report is the same whatever -j. */
static void row_text(GString *t, const TrcCollRow *r)
{
  g_string_append_printf(t,
                         "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
                         " %.17g %.17g %.17g %s %s %u %.17g %.17g %d\n",
                         r->size_bytes, r->count, r->time_us, r->algbw_GBps,
                         r->busbw_GBps, r->algo ? r->algo : "",
                         r->proto ? r->proto : "", r->channels,
                         r->nccl_model_us, r->stall_prob, r->closed_form);
}

/* A name of a row as row_text wrote it: "" for none. */
static const char *name_of(const char *text)
{
  return text[0] ? g_intern_string(text) : NULL;
}

static void row_parse(const char *line, TrcCollRow *r)
{
  g_auto(GStrv) f = g_strsplit(line, " ", -1);

  g_assert(g_strv_length(f) == 11);
  r->size_bytes = g_ascii_strtoull(f[0], NULL, 10);
  r->count = g_ascii_strtoull(f[1], NULL, 10);
  r->time_us = g_ascii_strtod(f[2], NULL);
  r->algbw_GBps = g_ascii_strtod(f[3], NULL);
  r->busbw_GBps = g_ascii_strtod(f[4], NULL);
  r->algo = name_of(f[5]);
  r->proto = name_of(f[6]);
  r->channels = (guint32)g_ascii_strtoull(f[7], NULL, 10);
  r->nccl_model_us = g_ascii_strtod(f[8], NULL);
  r->stall_prob = g_ascii_strtod(f[9], NULL);
  r->closed_form = f[10][0] == '1';
}

/* Runs scenario i: "rows" and a line per size, or "cut" and why. */
static char *scenario_work(void *ctx, guint i, gboolean *ok)
{
  FaultsRun *fr = ctx;
  const Scenario *s = &fr->sc[i];
  const char *where = fr->criticality ? "--criticality" : "--random";
  const char *one[] = {s->element, NULL};
  TopoFaultSpec spec = {
      .where_fail = where, .where_degrade = where, .where_random = where};
  g_autoptr(GError) error = NULL;
  Scenario r = {0};
  GString *t;

  if (fr->criticality) {
    spec.fail = one;
  } else {
    spec.seed = s->seed;
    if (s->drawn)
      spec.fail = s->drawn;
    else
      spec.random_links = s->down;
  }
  *ok = run_scenario(fr->o, fr->plan, fr->step, &spec, fr->base, &r, &error);
  if (!*ok)
    return g_strdup(error->message);
  t = g_string_new(r.rows ? "rows\n" : "cut\n");
  for (guint k = 0; r.rows && k < r.rows->len; k++)
    row_text(t, &g_array_index(r.rows, TrcCollRow, k));
  if (!r.rows)
    g_string_append(t, r.failure);
  scenario_clear(&r);
  return g_string_free(t, FALSE);
}

/* Takes scenario i's result back; FALSE where it failed the command. */
static gboolean scenario_record(void *ctx, guint i, gboolean ok, char *text)
{
  FaultsRun *fr = ctx;
  Scenario *s = &fr->sc[i];

  if (!ok) {
    if (!fr->failed)
      fr->failed = text;
    else
      g_free(text);
    return FALSE;
  }
  if (g_str_has_prefix(text, "cut\n")) {
    s->failure = g_strdup(text + 4);
    s->key = INFINITY;
  } else {
    g_auto(GStrv) lines = g_strsplit(text + 5, "\n", -1);

    s->rows = g_array_new(FALSE, TRUE, sizeof(TrcCollRow));
    for (guint k = 0; lines[k] && lines[k][0]; k++) {
      TrcCollRow r = {0};

      row_parse(lines[k], &r);
      g_array_append_val(s->rows, r);
    }
    s->key = g_array_index(s->rows, TrcCollRow, s->rows->len - 1).time_us /
             g_array_index(fr->base, TrcCollRow, fr->base->len - 1).time_us;
  }
  g_free(text);
  return TRUE;
}

/* --- output --------------------------------------------------------------- */

static void csv_rows(GString *s, const char *lead, const GArray *rows,
                     const GArray *base, const char *failure)
{
  for (guint i = 0; i < base->len; i++) {
    const TrcCollRow *b = &g_array_index(base, TrcCollRow, i);

    g_string_append(s, lead);
    if (!rows) {
      g_string_append_printf(s, "%" G_GUINT64_FORMAT ",,,,,,,", b->size_bytes);
      trc_csv_append_text(s, failure);
    } else {
      const TrcCollRow *r = &g_array_index(rows, TrcCollRow, i);
      g_string_append_printf(
          s, "%" G_GUINT64_FORMAT ",%.6f,%.6f,%.6f,%s,%s,%u,ok", r->size_bytes,
          r->time_us, r->busbw_GBps, r->time_us / b->time_us, r->algo, r->proto,
          r->channels);
    }
    g_string_append_c(s, '\n');
  }
}

#define FAULTS_CSV_RESULT                                                      \
  "size_bytes,time_us,busbw_GBps,slowdown,algo,proto,channels,outcome"

/* What the slowdowns are of: the largest size, or the step (a row of
 * size 0). */
static char *measured_at(const GArray *base)
{
  guint64 size = g_array_index(base, TrcCollRow, base->len - 1).size_bytes;

  return size ? g_strdup_printf("%" G_GUINT64_FORMAT " B", size)
              : g_strdup("the step");
}

static void print_header(const TrcCollInfo *info, const GArray *base,
                         const char *const *lines)
{
  printf("# ifsim faults: %s on %s, %u ranks on %u nodes, fidelity %s\n",
         info->collective, info->system, info->ranks, info->nodes,
         info->fidelity);
  for (guint i = 0; lines && lines[i]; i++)
    printf("# baseline fault: %s\n", lines[i]);
  for (guint i = 0; i < base->len; i++) {
    const TrcCollRow *r = &g_array_index(base, TrcCollRow, i);

    if (r->size_bytes == 0) {
      printf("# baseline step: %.2f us\n", r->time_us);
      continue;
    }
    printf("# baseline %" G_GUINT64_FORMAT " B: %.2f us, busbw %.2f GB/s "
           "(%s %s, %u channels)\n",
           r->size_bytes, r->time_us, r->busbw_GBps, r->algo, r->proto,
           r->channels);
  }
}

/* Slowdown, highest (cut) first, ties in the scenarios' order. */
static int worst_first(const void *a, const void *b)
{
  const Scenario *x = a, *y = b;

  if (x->key != y->key)
    return x->key > y->key ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

/* The worst slowdown of a scenario over the sizes, and that size. */
static double worst_slowdown(const Scenario *s, const GArray *base,
                             guint64 *size)
{
  double w = 0;

  *size = 0;
  for (guint i = 0; s->rows && i < base->len; i++) {
    double r = g_array_index(s->rows, TrcCollRow, i).time_us /
               g_array_index(base, TrcCollRow, i).time_us;
    if (r > w) {
      w = r;
      *size = g_array_index(base, TrcCollRow, i).size_bytes;
    }
  }
  return w;
}

static void print_criticality(const char *kind, Scenario *s, guint n,
                              const GArray *base, guint64 top)
{
  g_autofree char *at_what = measured_at(base);
  guint hurt = 0, cut = 0;

  for (guint i = 0; i < n; i++) {
    hurt += s[i].rows && s[i].key > 1.01;
    cut += s[i].rows == NULL;
  }
  printf("# criticality: %u %s, each down alone; ranked by the slowdown at "
         "%s\n",
         n, kind, at_what);
  printf("# %u slow it by more than 1%%; %u cut the job (a pair of ranks "
         "without a path)\n",
         hurt, cut);
  printf("%5s  %-32s %9s %12s %11s %15s %14s\n", "rank", "element", "slowdown",
         "time_us", "busbw_GBps", "worst_slowdown", "at_size_bytes");
  for (guint i = 0; i < n && (top == 0 || i < top); i++) {
    guint64 at;
    double w = worst_slowdown(&s[i], base, &at);

    if (!s[i].rows) {
      printf("%5u  %-32s %9s  %s\n", i + 1, s[i].element, "cut", s[i].failure);
      continue;
    }
    if (at == 0) { /* the step: one row, no bus bandwidth */
      printf("%5u  %-32s %9.4f %12.2f %11s %15.4f %14s\n", i + 1, s[i].element,
             s[i].key, g_array_index(s[i].rows, TrcCollRow, 0).time_us, "-", w,
             "step");
      continue;
    }
    printf("%5u  %-32s %9.4f %12.2f %11.2f %15.4f %14" G_GUINT64_FORMAT "\n",
           i + 1, s[i].element, s[i].key,
           g_array_index(s[i].rows, TrcCollRow, base->len - 1).time_us,
           g_array_index(s[i].rows, TrcCollRow, base->len - 1).busbw_GBps, w,
           at);
  }
  if (top && n > top)
    printf("# ... %u more (--top 0 lists all)\n", (guint)(n - top));
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;

  return x < y ? -1 : x > y;
}

/* The nearest-rank percentile p (0..100] of n sorted values. */
static double percentile(const double *v, guint n, double p)
{
  guint k = (guint)ceil(p / 100.0 * n);

  return v[CLAMP(k, 1u, n) - 1];
}

static void print_value(double v)
{
  if (isinf(v))
    printf(" %8s", "cut");
  else
    printf(" %8.4f", v);
}

static void print_draws(const Scenario *s, guint n, const guint32 *counts,
                        guint n_counts, const char *kind, guint32 draws,
                        guint32 seed, const GArray *base)
{
  g_autofree char *at_what = measured_at(base);
  g_autofree const Scenario **worst = g_new0(const Scenario *, n_counts);

  printf("# random %s down: %u draws per count (seeds %u-%u); slowdown "
         "at %s\n",
         kind, draws, seed, seed + draws - 1, at_what);
  printf("%8s %6s %8s %8s %8s %8s %8s %8s %11s %5s\n", kind, "draws", "mean",
         "p50", "p90", "p99", "worst", "best", "worst_seed", "cut");
  for (guint c = 0; c < n_counts; c++) {
    g_autofree double *v = g_new(double, draws);
    const Scenario *w = NULL;
    double sum = 0;
    guint cut = 0, ok = 0;

    for (guint i = 0; i < n; i++) {
      if (s[i].down != counts[c])
        continue;
      v[ok + cut] = s[i].key;
      if (isinf(s[i].key))
        cut++;
      else
        sum += s[i].key;
      ok += !isinf(s[i].key);
      if (!w || s[i].key > w->key)
        w = &s[i];
      worst[c] = w;
    }
    qsort(v, draws, sizeof *v, cmp_double);
    printf("%8u %6u", counts[c], draws);
    if (ok)
      printf(" %8.4f", sum / ok);
    else
      printf(" %8s", "-");
    print_value(percentile(v, draws, 50));
    print_value(percentile(v, draws, 90));
    print_value(percentile(v, draws, 99));
    print_value(v[draws - 1]);
    print_value(v[0]);
    printf(" %11u %5u\n", w->seed, cut);
  }
  /* how to see each count's worst draw again */
  for (guint c = 0; c < n_counts; c++) {
    const Scenario *w = worst[c];

    if (w->element)
      printf("# worst of %u %s (seed %u): --fail each of: %s\n", counts[c],
             kind, w->seed, w->element);
    else
      printf("# worst of %u %s (seed %u): ifsim run --fail-random %u "
             "--fault-seed %u\n",
             counts[c], kind, w->seed, counts[c], w->seed);
  }
}

/* "1,2,3,4": counts of elements, each from 1 up. */
static gboolean parse_counts(const char *text, GArray *out, GError **error)
{
  g_auto(GStrv) parts = g_strsplit(text, ",", -1);

  for (guint i = 0; parts[i]; i++) {
    g_autoptr(GError) local = NULL;
    guint64 v;

    if (!sim_count_parse(g_strstrip(parts[i]), 1u << 24, &v, &local) ||
        v == 0) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "--random: '%s' is not a count of elements from 1 (a "
                  "list: 1,2,3,4)%s%s",
                  parts[i], local ? ": " : "", local ? local->message : "");
      return FALSE;
    }
    {
      guint32 k = (guint32)v;
      g_array_append_val(out, k);
    }
  }
  return TRUE;
}

int cli_cmd_faults(int argc, char **argv)
{
  CliRunOptions o;
  FaultsOptions fo = {.jobs = 1};
  CliNumberTarget numbers[] = {
      CLI_RUN_NUMBER_TARGETS(&o),
      CLI_NCCL_CHANNELS_TARGET(&o.nccl),
      CLI_MAX_MEMORY_TARGET(&o.max_memory, &o.max_memory_seen),
      CLI_FAULT_TARGETS(&o.faults),
      {"draws", 0, CLI_NUMBER_COUNT, &fo.draws, &fo.draws_seen, 1u << 20},
      {"seed", 0, CLI_NUMBER_COUNT, &fo.seed, &fo.seed_seen, G_MAXUINT32},
      {"top", 0, CLI_NUMBER_COUNT, &fo.top, &fo.top_seen, 0},
      {"jobs", 'j', CLI_NUMBER_COUNT, &fo.jobs, NULL, 0},
      {NULL, 0, 0, NULL, NULL, 0}};
  GOptionEntry more[] = {
      {"criticality", 0, 0, G_OPTION_ARG_STRING, &fo.criticality,
       "Take each element of KIND down alone and rank them by the "
       "slowdown: switches, leaves, spines, cores, nics, links (of the "
       "network), nvlinks, gpus or nvswitches (their NVLinks)",
       "KIND"},
      {"random", 0, 0, G_OPTION_ARG_STRING, &fo.random,
       "Draw LIST's counts of random elements down (--draws times "
       "each) and print the slowdown's distribution, e.g. 1,2,3,4",
       "LIST"},
      {"random-kind", 0, 0, G_OPTION_ARG_STRING, &fo.random_kind,
       "What --random draws: links (physical network cables; the "
       "default), or a --criticality KIND",
       "KIND"},
      {"draws", 0, 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,
       "Draws per count of --random (default 100)", "N"},
      {"seed", 0, 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,
       "Seed of the first draw; draw i takes seed + i (default 1)", "S"},
      {"top", 0, 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,
       "Rows of the criticality ranking to print (default 20; 0: all)", "N"},
      {"jobs", 'j', 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,
       "Run N scenarios at once, in worker processes (default 1)", "N"},
      {"csv", 0, 0, G_OPTION_ARG_FILENAME, &fo.csv,
       "Write every scenario's result per size as CSV", "FILE"},
      {"llm", 0, 0, G_OPTION_ARG_STRING, &fo.llm,
       "Replay the training step of an LLM layout in every scenario instead "
       "of the collective: key=value,... (docs/workload.md)",
       "SPEC"},
      {"workload", 0, 0, G_OPTION_ARG_FILENAME, &fo.workload,
       "Replay the training step of a workload CSV in every scenario "
       "instead of the collective",
       "FILE"},
      CLI_MAX_MEMORY_ENTRY,
      G_OPTION_ENTRY_NULL};
  g_autoptr(GOptionContext) ctx = cli_context_new(
      NULL,
      "What failures cost a collective: each element down alone, or "
      "random elements down.",
      "The baseline is the system with its [faults] and --fail, --degrade, "
      "--fail-random; every scenario adds its own faults.\nSlowdown: a "
      "scenario's time over the baseline's, at each size (docs/faults.md).");
  GOptionGroup *group = g_option_group_new(COMMAND, "faults options",
                                           "faults options", numbers, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) base = g_array_new(FALSE, TRUE, sizeof(TrcCollRow));
  g_autoptr(GArray) counts = g_array_new(FALSE, FALSE, sizeof(guint32));
  g_autoptr(GPtrArray) elements = NULL;
  g_autoptr(TrcOutputs) outs = trc_outputs_new();
  g_autoptr(GString) csv = g_string_new(NULL);
  g_auto(GStrv) base_lines = NULL;
  Scenario *sc = NULL;
  const char *kind = NULL;
  guint n = 0;
  int status = CLI_EXIT_USAGE;
  CliRunPlan plan;
  TrcCollInfo info;
  FaultsStep step_w = {0}, *step = NULL;
  gboolean coll_given;

  if (!cli_run_parse(ctx, group, &o, more, COMMAND, &argc, &argv, &status,
                     &error)) {
    if (!error)
      goto out;
    goto fail;
  }
  if (!fo.criticality == !fo.random) {
    g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "give one of --criticality KIND and --random LIST");
    goto fail;
  }
  if (fo.criticality && (fo.draws_seen || fo.seed_seen)) {
    g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s: goes with --random, not --criticality",
                fo.draws_seen ? "--draws" : "--seed");
    goto fail;
  }
  if (fo.random && fo.top_seen) {
    g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "--top: goes with --criticality, not --random");
    goto fail;
  }
  if (fo.draws_seen && fo.draws == 0) {
    g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "--draws: 0: expected a count from 1");
    goto fail;
  }
  if (!fo.draws_seen)
    fo.draws = FAULTS_DEFAULT_DRAWS;
  if (!fo.seed_seen)
    fo.seed = 1;
  if (!fo.top_seen)
    fo.top = FAULTS_DEFAULT_TOP;
  if (fo.jobs < 1 || fo.jobs > 4096) {
    g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s: %" G_GUINT64_FORMAT " is not from 1 to 4096",
                cli_flag_typed("jobs", 'j'), fo.jobs);
    goto fail;
  }
  if (fo.random_kind && !fo.random) {
    g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "--random-kind: goes with --random");
    goto fail;
  }
  if (fo.random && !parse_counts(fo.random, counts, &error))
    goto fail;
  if (fo.random && fo.seed + fo.draws - 1 > G_MAXUINT32) {
    g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "--seed: %" G_GUINT64_FORMAT " + %" G_GUINT64_FORMAT
                " draws passes the largest seed, %u",
                fo.seed, fo.draws, G_MAXUINT32);
    goto fail;
  }
  kind = fo.criticality   ? fo.criticality
         : fo.random_kind ? fo.random_kind
                          : "links";
  coll_given = o.collective != NULL; /* before run's default fills it */
  if (!cli_run_check(&o, &plan, &error) ||
      !cli_apply_max_memory(o.max_memory, o.max_memory_seen, &error))
    goto fail;
  /* One method for the baseline and the scenarios: an AllToAll of 1024
   * ranks or more is computed in closed form only without faults
   * (session.c alltoall_closed), and every scenario has some, so the
   * baseline runs every pair too.  The closed form is within 1% of
   * that run on healthy systems and 9.7% late with a PCIe server's NIC
   * down (measured): a slowdown of a closed-form baseline would carry
   * that error. */
  plan.nopt.no_alltoall_closed = TRUE;
  if (fo.llm || fo.workload) {
    static const CliWorkloadNames names = {
        "--llm", "--astra-tp", "--ns-per-tick", "--astra", "--astra-gpus"};
    CliRunOptions d;

    /* the collective's options have no use with a step: refused, not
     * dropped (only run's defaults pass) */
    cli_run_options_init(&d);
    if (fo.llm && fo.workload) {
      g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "give one of --llm and --workload");
      goto fail;
    }
    if (coll_given || o.min_bytes != d.min_bytes ||
        o.max_bytes != d.max_bytes || o.step_factor_seen || o.step_bytes_seen ||
        o.ranks_seen || o.iters_seen || o.graph_launches) {
      g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "%s: every scenario replays the step: -c, -b, -e, -f, -i, "
                  "-n, --iters and --graph-launches are a collective's",
                  fo.llm ? "--llm" : "--workload");
      goto fail;
    }
    step_w.w = cli_load_workload(fo.workload, NULL, fo.llm, 0, 0, NULL,
                                 "workload", &names, &error);
    if (!step_w.w)
      goto fail;
    step_w.name = fo.llm ? "llm" : "workload";
    step_w.where = fo.llm ? "--llm" : "--workload";
    step = &step_w;
  }
  {
    /* the baseline, freed before the scenarios load their own */
    g_autoptr(TopoSystem) sys = cli_run_load_system(&o, &error);

    if (!sys || !run_on(sys, &o, &plan, step, base, &info, &error))
      goto fail;
    base_lines = topo_system_fault_lines(sys);
    /* the elements taken down one by one, or drawn from (network links
     * are drawn as physical cables instead: topo_system_add_faults'
     * random_links) */
    if (fo.criticality || strcmp(kind, "links") != 0) {
      const char *flag = fo.criticality ? "--criticality" : "--random-kind";

      /* NVLinks are drawn as physical links too, one cable of a bundle
       * at a time */
      elements = fo.random && strcmp(kind, "nvlinks") == 0
                     ? topo_fault_nvlink_cables(sys)
                     : topo_fault_elements(sys, kind, &error);
      if (!elements) {
        g_prefix_error(&error, "%s: ", flag);
        goto fail;
      }
      if (elements->len == 0) {
        g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                    "%s: the system has no %s", flag, kind);
        goto fail;
      }
      for (guint c = 0; fo.random && c < counts->len; c++) {
        if (g_array_index(counts, guint32, c) > elements->len) {
          g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                      "--random: %u is more than the %u %s of the system",
                      g_array_index(counts, guint32, c), elements->len, kind);
          goto fail;
        }
      }
    }
  }
  /* the scenarios, -j at a time */
  if (fo.criticality) {
    n = elements->len;
    sc = g_new0(Scenario, n);
    for (guint i = 0; i < n; i++) {
      sc[i].element = g_strdup(g_ptr_array_index(elements, i));
      sc[i].order = i;
    }
  } else {
    n = counts->len * (guint)fo.draws;
    sc = g_new0(Scenario, n);
    for (guint c = 0, i = 0; c < counts->len; c++) {
      for (guint d = 0; d < fo.draws; d++, i++) {
        sc[i].down = g_array_index(counts, guint32, c);
        sc[i].seed = (guint32)(fo.seed + d);
        if (elements) {
          sc[i].drawn = draw_elements(elements, sc[i].down, sc[i].seed);
          sc[i].element = g_strjoinv("; ", (char **)sc[i].drawn);
        }
      }
    }
  }
  {
    FaultsRun fr = {.o = &o,
                    .plan = &plan,
                    .step = step,
                    .base = base,
                    .criticality = fo.criticality != NULL,
                    .sc = sc};
    g_autofree guint *items = g_new(guint, MAX(n, 1));
    gboolean ran;

    for (guint i = 0; i < n; i++)
      items[i] = i;
    ran = cli_workers_run(items, n, (guint)fo.jobs, FALSE, scenario_work,
                          scenario_record, &fr, &error);
    if (ran && fr.failed)
      g_set_error_literal(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE, fr.failed);
    g_free(fr.failed);
    if (error)
      goto fail;
  }
  /* the CSV in scenario order, then the report */
  if (fo.csv) {
    g_string_append(csv, "# test: ifsim faults\n# collective: ");
    trc_csv_append_comment(csv, info.collective);
    g_string_append(csv, "\n# system: ");
    trc_csv_append_comment(csv, info.system);
    g_string_append_printf(csv, "\n# fidelity: %s\n# ranks: %u\n# nodes: %u\n",
                           info.fidelity, info.ranks, info.nodes);
    for (guint i = 0; base_lines && base_lines[i]; i++) {
      g_string_append(csv, "# baseline fault: ");
      trc_csv_append_comment(csv, base_lines[i]);
      g_string_append_c(csv, '\n');
    }
    if (fo.criticality) {
      g_string_append(csv, "element," FAULTS_CSV_RESULT "\n");
      csv_rows(csv, "none,", base, base, NULL);
    } else {
      g_autofree char *lead = g_strdup_printf("%s,0,0,", kind);

      g_string_append(csv, "kind,down,seed," FAULTS_CSV_RESULT "\n");
      csv_rows(csv, lead, base, base, NULL);
    }
    for (guint i = 0; i < n; i++) {
      g_autoptr(GString) lead = g_string_new(NULL);

      if (fo.criticality) {
        trc_csv_append_text(lead, sc[i].element);
        g_string_append_c(lead, ',');
      } else {
        g_string_append_printf(lead, "%s,%u,%u,", kind, sc[i].down, sc[i].seed);
      }
      csv_rows(csv, lead->str, sc[i].rows, base, sc[i].failure);
    }
    if (!trc_outputs_add(outs, fo.csv,
                         g_string_free(g_steal_pointer(&csv), FALSE), &error))
      goto fail;
  }
  print_header(&info, base, (const char *const *)base_lines);
  if (fo.criticality) {
    qsort(sc, n, sizeof *sc, worst_first);
    print_criticality(fo.criticality, sc, n, base, fo.top);
  } else {
    print_draws(sc, n, (const guint32 *)(void *)counts->data, counts->len, kind,
                (guint32)fo.draws, (guint32)fo.seed, base);
  }
  if (!trc_outputs_commit(outs, &error))
    goto fail;
  status = CLI_EXIT_OK;
  goto out;
fail:
  status = cli_report(COMMAND, error);
out:
  for (guint i = 0; sc && i < n; i++)
    scenario_clear(&sc[i]);
  g_free(sc);
  g_free(fo.criticality);
  g_free(fo.random);
  g_free(fo.random_kind);
  g_free(fo.llm);
  g_free(fo.workload);
  if (step_w.w)
    trc_workload_free(step_w.w);
  g_free(fo.csv);
  cli_run_options_clear(&o);
  return status;
}
