/* `ifsim replay`: one training step of one or more jobs on a system
 * (traces/replay.h): the step time, the compute, the exposed
 * communication per process group, a per-op breakdown; with several jobs
 * (--jobs), each one's slowdown against running alone and the links
 * where they collide. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/nccl/nccl.h"
#include "models/params.h"
#include "sim/interrupt.h"
#include "sim/units.h"
#include "tools/cli.h"
#include "tools/fault_options.h"
#include "tools/jobs.h"
#include "tools/nccl_options.h"
#include "tools/run.h"
#include "traces/csvtext.h"
#include "traces/linksamples.h"
#include "traces/linkstats.h"
#include "traces/output.h"
#include "traces/replay.h"
#include "traces/timeline.h"
#include "traces/workload.h"

#define COMMAND "replay"

typedef struct {
  char *topology;
  char **models;
  char *llm;
  char *astra;
  guint64 astra_tp, astra_gpus;
  gboolean astra_tp_seen, astra_gpus_seen;
  char *ns_per_tick;
  char **nccl_logs;
  char *gap;
  char **kineto;
  char **chakra;
  guint64 step;
  gboolean step_seen;
  gboolean as_measured;
  char *jobs;
  char *placement;
  guint64 seed;
  char *servers;
  CliNcclOptions nccl; /* --algo ... --fidelity */
  CliFaultOptions faults; /* --fail ... */
  char *csv;
  char *summary_csv;
  char *links_csv;
  char *write_workload;
  char *timeline;
  char *link_samples;
  char *sample_interval;
  char *hot_links;
  gboolean seed_seen;
  guint64 max_memory;
  gboolean max_memory_seen;
  char **rest;
} ReplayOptions;

static void options_clear(ReplayOptions *o)
{
  g_free(o->topology);
  g_strfreev(o->models);
  g_free(o->llm);
  g_free(o->astra);
  g_free(o->ns_per_tick);
  g_strfreev(o->nccl_logs);
  g_strfreev(o->kineto);
  g_strfreev(o->chakra);
  g_free(o->gap);
  g_free(o->jobs);
  g_free(o->placement);
  g_free(o->servers);
  cli_nccl_options_clear(&o->nccl);
  g_free(o->csv);
  g_free(o->summary_csv);
  cli_fault_options_clear(&o->faults);
  g_free(o->links_csv);
  g_free(o->write_workload);
  g_free(o->timeline);
  g_free(o->link_samples);
  g_free(o->sample_interval);
  g_free(o->hot_links);
  g_strfreev(o->rest);
}

/* "0-7, 9" for a sorted or unsorted list: runs of consecutive servers. */
static char *servers_text(const guint32 *s, guint32 n)
{
  GString *t = g_string_new(NULL);

  for (guint32 i = 0; i < n;) {
    guint32 k = i;

    while (k + 1 < n && s[k + 1] == s[k] + 1)
      k++;
    g_string_append_printf(t, "%s%u", t->len ? "," : "", s[i]);
    if (k > i)
      g_string_append_printf(t, "-%u", s[k]);
    i = k + 1;
  }
  return g_string_free(t, FALSE);
}

/* Per-channel figures of a run, from its transport at the end. */
typedef struct {
  const TopoSystem *sys;
  guint8 *used; /* [channels]: carried bytes (alone runs) */
  double *busy; /* [channels]: busy fraction (the run of all jobs) */
  double *util; /* [channels]: utilization */
  TrcOutputs *outs;
  const char *links_csv;
  GError **error;
  gboolean ok;
} LinkCtx;

static void inspect_links(void *ctx, const SimTransport *t, SimTime end)
{
  LinkCtx *l = ctx;
  const SimFabric *f = topo_system_fabric(l->sys);

  l->ok = TRUE;
  for (SimChannelId c = 0; c < sim_fabric_n_channels(f); c++) {
    SimChannelStats st;

    sim_transport_channel_stats(t, c, &st);
    if (l->used)
      l->used[c] = st.payload_bytes > 0;
    if (l->busy && end > 0) {
      l->busy[c] = sim_time_to_s(st.busy_ps) / sim_time_to_s(end);
      l->util[c] = st.wire_bytes / sim_fabric_channel(f, c)->rate_Bps /
                   sim_time_to_s(end);
    }
  }
  if (l->links_csv && end > 0)
    l->ok = trc_outputs_add(l->outs, l->links_csv,
                            trc_links_csv(l->sys, t, end, FALSE), l->error);
}

static const TrcGroup report_groups[] = {TRC_GROUP_TP,  TRC_GROUP_DP,
                                         TRC_GROUP_PP,  TRC_GROUP_EP,
                                         TRC_GROUP_EDP, TRC_GROUP_WORLD};

static char *summary_csv(const CliJob *jobs, const TrcReplayResult *res,
                         guint n, const double *slowdown)
{
  GString *s = g_string_new("job,step_us,compute_us,exposed_us");

  for (guint g = 0; g < G_N_ELEMENTS(report_groups); g++)
    g_string_append_printf(s, ",exposed_%s_us",
                           trc_group_name(report_groups[g]));
  g_string_append(s, ",slowdown\n");
  for (guint i = 0; i < n; i++) {
    trc_csv_append_text(s, jobs[i].name);
    g_string_append_printf(s, ",%.3f,%.3f,%.3f", sim_time_to_us(res[i].step_ps),
                           res[i].compute_us, res[i].exposed_us);
    for (guint g = 0; g < G_N_ELEMENTS(report_groups); g++)
      g_string_append_printf(s, ",%.3f",
                             res[i].exposed_group_us[report_groups[g]]);
    if (slowdown)
      g_string_append_printf(s, ",%.4f\n", slowdown[i]);
    else
      g_string_append(s, ",\n");
  }
  return g_string_free(s, FALSE);
}

static char *ops_csv(const CliJob *jobs, const TrcReplayResult *res, guint n)
{
  GString *s = g_string_new(
      "job,id,name,op,group,stage,size_bytes,compute_us,instances,algo,proto,"
      "channels,start_us,end_us,duration_us,measured_us\n");

  for (guint i = 0; i < n; i++) {
    const TrcWorkload *w = jobs[i].w;

    for (guint32 o = 0; o < w->n_ops; o++) {
      const TrcOp *op = &w->ops[o];
      const TrcOpResult *r = &res[i].ops[o];

      trc_csv_append_text(s, jobs[i].name);
      g_string_append_printf(s, ",%u,", op->id);
      trc_csv_append_text(s, op->name);
      g_string_append_printf(s, ",%s,%s,",
                             op->compute ? "compute" : trc_coll_name(op->coll),
                             trc_op_group_label(w, op));
      if (op->stage >= 0)
        g_string_append_printf(s, "%d", op->stage);
      g_string_append_printf(s, ",%" G_GUINT64_FORMAT ",%.3f,%u,", op->bytes,
                             sim_time_to_us(op->compute_ps), r->instances);
      if (r->chosen)
        g_string_append_printf(
            s, "%s,%s,%u",
            op->coll >= NCCL_N_TUNED_COLLS ? "P2P"
                                           : nccl_algo_name(r->choice.algo),
            nccl_proto_name(r->choice.proto), r->choice.channels);
      else
        g_string_append(s, ",,");
      g_string_append_printf(s, ",%.3f,%.3f,%.3f,", sim_time_to_us(r->start_ps),
                             sim_time_to_us(r->end_ps),
                             sim_time_to_us(r->end_ps - r->start_ps));
      if (op->measured_ps > 0)
        g_string_append_printf(s, "%.3f", sim_time_to_us(op->measured_ps));
      g_string_append_c(s, '\n');
    }
  }
  return g_string_free(s, FALSE);
}

static int cmp_busy(gconstpointer a, gconstpointer b, gpointer busy)
{
  double x = ((const double *)busy)[*(const guint32 *)a];
  double y = ((const double *)busy)[*(const guint32 *)b];

  if (x != y)
    return x > y ? -1 : 1;
  return *(const guint32 *)a < *(const guint32 *)b ? -1 : 1;
}

/* The report on stdout. */
static void print_report(const TopoSystem *sys, const CliJob *jobs,
                         const TrcReplayResult *res, guint n,
                         const double *slowdown, const char *fidelity,
                         guint8 *const *used, const double *busy,
                         const double *util)
{
  const SimFabric *f = topo_system_fabric(sys);

  printf("# ifsim replay on %s (%s), %u job%s\n", topo_system_name(sys),
         fidelity, n, n == 1 ? "" : "s");
  {
    g_auto(GStrv) lines = topo_system_fault_lines(sys);
    for (guint i = 0; lines && lines[i]; i++)
      printf("# fault: %s\n", lines[i]);
  }
  for (guint i = 0; i < n; i++) {
    const TrcWorkload *w = jobs[i].w;
    g_autofree char *srv = servers_text(jobs[i].servers, jobs[i].n_servers);
    const TrcOp *top[3] = {NULL};
    SimTime top_t[3] = {0};

    if (w->n_comms > 0)
      printf("\njob %s: %u ranks (%u communicator%s, from %s) on server%s "
             "%s\n",
             jobs[i].name, res[i].ranks, w->n_comms, w->n_comms == 1 ? "" : "s",
             w->source, jobs[i].n_servers == 1 ? "" : "s", srv);
    else
      printf("\njob %s: %u ranks (tp %u, pp %u, dp %u, ep %u) on server%s "
             "%s\n",
             jobs[i].name, res[i].ranks, w->tp, w->pp, w->dp, w->ep,
             jobs[i].n_servers == 1 ? "" : "s", srv);
    printf("  step time        %14.3f us\n", sim_time_to_us(res[i].step_ps));
    if (w->measured_step_ps > 0)
      printf("  measured step    %14.3f us (the trace's; the step above is "
             "%+.1f%%)\n",
             sim_time_to_us(w->measured_step_ps),
             100.0 *
                 ((double)res[i].step_ps / (double)w->measured_step_ps - 1));
    printf("  compute          %14.3f us per rank (mean)\n", res[i].compute_us);
    printf("  exposed comm     %14.3f us per rank (mean)\n", res[i].exposed_us);
    for (guint g = 0; g < G_N_ELEMENTS(report_groups); g++) {
      double v = res[i].exposed_group_us[report_groups[g]];

      if (v > 0)
        printf("    %-5s          %14.3f us\n",
               trc_group_name(report_groups[g]), v);
    }
    if (slowdown)
      printf("  slowdown         %14.3fx against running alone\n", slowdown[i]);
    for (guint32 o = 0; o < w->n_ops; o++) {
      SimTime d = res[i].ops[o].end_ps - res[i].ops[o].start_ps;

      if (w->ops[o].compute || res[i].ops[o].instances == 0)
        continue;
      for (guint k = 0; k < 3; k++) {
        if (!top[k] || d > top_t[k]) {
          memmove(&top[k + 1], &top[k], (2 - k) * sizeof(top[0]));
          memmove(&top_t[k + 1], &top_t[k], (2 - k) * sizeof(top_t[0]));
          top[k] = &w->ops[o];
          top_t[k] = d;
          break;
        }
      }
    }
    for (guint k = 0; k < 3 && top[k]; k++) {
      const TrcOpResult *r = &res[i].ops[top[k] - w->ops];

      printf("  %s %-24s %s %s %" G_GUINT64_FORMAT " B: %.3f us%s%s%s\n",
             k == 0 ? "longest:" : "        ", top[k]->name,
             trc_op_group_label(w, top[k]), trc_coll_name(top[k]->coll),
             top[k]->bytes, sim_time_to_us(top_t[k]), r->chosen ? " (" : "",
             r->chosen ? (top[k]->coll >= NCCL_N_TUNED_COLLS
                              ? "P2P"
                              : nccl_algo_name(r->choice.algo))
                       : "",
             r->chosen ? ")" : "");
    }
  }
  if (used && busy) {
    g_autoptr(GArray) shared = g_array_new(FALSE, FALSE, sizeof(guint32));

    for (SimChannelId c = 0; c < sim_fabric_n_channels(f); c++) {
      guint k = 0;

      for (guint i = 0; i < n; i++)
        k += used[i][c];
      if (k >= 2)
        g_array_append_val(shared, c);
    }
    g_array_sort_with_data(shared, cmp_busy, (gpointer)busy);
    printf("\nlinks the jobs share: %u", shared->len);
    printf(shared->len ? " (the busiest first)\n" : "\n");
    for (guint k = 0; k < MIN(shared->len, 10u); k++) {
      guint32 c = g_array_index(shared, guint32, k);
      const SimChannel *ch = sim_fabric_channel(f, c);
      g_autoptr(GString) who = g_string_new(NULL);

      for (guint i = 0; i < n; i++)
        if (used[i][c])
          g_string_append_printf(who, "%s%s", who->len ? "," : "",
                                 jobs[i].name);
      printf("  %s -> %s (%s): %.1f%% busy, %.1f%% utilized, jobs %s\n",
             sim_fabric_node_name(f, ch->src), sim_fabric_node_name(f, ch->dst),
             topo_channel_link(sys, c)->name, 100 * busy[c], 100 * util[c],
             who->str);
    }
  }
}

/* Replay link samples without --sample-interval: every 10 us; hot links
 * without --hot-links: 32. */
#define REPLAY_DEFAULT_SAMPLE_PS SIM_US(10)
#define REPLAY_DEFAULT_HOT_LINKS 32

typedef struct {
  SimTime interval_ps;
  TrcLinkSampler *sampler;
} SampleCtx;

static void attach_sampler(void *ctx, SimEngine *e, const SimTransport *t)
{
  SampleCtx *c = ctx;

  c->sampler = trc_link_sampler_new(e, t, c->interval_ps);
}

/* The timeline's threads: compute, then one per group. */
enum { TL_COMPUTE = 0 };

typedef struct {
  TrcTimeline *tl;
  const CliJob *jobs;
  const guint32 *pid0; /* first pid of each job */
} SliceCtx;

static void add_slice(void *ctx, guint32 job, guint32 rank, guint32 op,
                      SimTime start, SimTime end)
{
  SliceCtx *c = ctx;
  const TrcOp *w = &c->jobs[job].w->ops[op];
  g_autoptr(GString) args = g_string_new("{\"id\":");

  g_string_append_printf(args, "%u", w->id);
  if (!w->compute)
    g_string_append_printf(args, ",\"bytes\":%" G_GUINT64_FORMAT, w->bytes);
  g_string_append_c(args, '}');
  trc_timeline_slice(
      c->tl, c->pid0[job] + rank, w->compute ? TL_COMPUTE : w->group, w->name,
      w->compute ? "compute" : trc_coll_name(w->coll), start, end, args->str);
}

/* The replay's timeline: a process per rank of each job, a thread for its
 * compute and one per group, a slice per op; the hottest links' counters
 * under a "fabric" process. */
static gboolean replay_timeline(const TrcReplay *run, const TopoSystem *sys,
                                const CliJob *jobs, guint n,
                                const TrcReplayResult *res, SampleCtx *sc,
                                guint32 hot, TrcOutputs *outs, const char *path,
                                GError **error)
{
  g_autoptr(TrcTimeline) tl = trc_timeline_new();
  g_autofree guint32 *pid0 = g_new(guint32, n + 1);
  SliceCtx c = {.tl = tl, .jobs = jobs, .pid0 = pid0};
  guint64 slices = trc_replay_slices(run, NULL, NULL);
  SimTime end = 0;

  pid0[0] = 0;
  for (guint i = 0; i < n; i++) {
    pid0[i + 1] = pid0[i] + res[i].ranks;
    end = MAX(end, res[i].step_ps);
  }
  if (slices > TRC_TIMELINE_MAX_EVENTS) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "--timeline: the step makes %" G_GUINT64_FORMAT
                " slices, more than the %d a viewer opens; replay fewer "
                "micro-batches, layers or ranks",
                slices, TRC_TIMELINE_MAX_EVENTS);
    return FALSE;
  }
  for (guint i = 0; i < n; i++) {
    for (guint32 r = 0; r < res[i].ranks; r++) {
      guint32 server, gpu, pid = pid0[i] + r;
      g_autofree char *name = NULL;

      trc_replay_rank_gpu(run, i, r, &server, &gpu);
      name = g_strdup_printf("%s rank %u (server %u GPU %u)", jobs[i].name, r,
                             server, gpu);
      trc_timeline_process(tl, pid, name, (gint32)MIN(pid, G_MAXINT32));
      trc_timeline_thread(tl, pid, TL_COMPUTE, "compute");
      for (guint g = TRC_GROUP_TP; g < TRC_N_GROUPS; g++) {
        g_autofree char *tn =
            g == TRC_GROUP_COMM ? g_strdup("communicators")
                                : g_strdup_printf("%s comm", trc_group_name(g));

        trc_timeline_thread(tl, pid, g, tn);
      }
    }
  }
  trc_replay_slices(run, add_slice, &c);
  if (sc->sampler && end > 0) {
    trc_timeline_process(tl, pid0[n], "fabric",
                         (gint32)MIN(pid0[n], G_MAXINT32));
    trc_link_samples_timeline(sc->sampler, sys, end, hot, tl, pid0[n]);
  }
  trc_timeline_other(tl, "generator", "ifsim replay");
  if (trc_timeline_n_events(tl) > TRC_TIMELINE_MAX_EVENTS) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "--timeline: %" G_GUINT64_FORMAT
                " events, more than the %d a viewer opens; use a longer "
                "--sample-interval or fewer --hot-links",
                trc_timeline_n_events(tl), TRC_TIMELINE_MAX_EVENTS);
    return FALSE;
  }
  return trc_outputs_add(outs, path, trc_timeline_json(tl), error);
}

static gboolean check_options(ReplayOptions *o, NcclOptions *n, guint32 *hot,
                              GError **error)
{
  memset(n, 0, sizeof(*n));
  *hot = REPLAY_DEFAULT_HOT_LINKS;
  if (!cli_nccl_check(&o->nccl, n, NULL, NULL, error))
    return FALSE;
  if (o->link_samples && cli_nccl_exec(&o->nccl) == NCCL_EXEC_ANALYTICAL) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "--link-samples: the analytical transport counts a transfer "
                "whole when it starts; use --fidelity flow or packet");
    return FALSE;
  }
  if ((o->sample_interval || o->hot_links) && !o->link_samples &&
      !o->timeline) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s: goes with --link-samples or --timeline",
                o->sample_interval ? "--sample-interval" : "--hot-links");
    return FALSE;
  }
  if (o->hot_links && !cli_parse_hot_links(o->hot_links, hot, error))
    return FALSE;
  if (o->jobs && (o->rest || o->llm || o->astra || o->placement || o->servers ||
                  o->seed_seen || o->astra_tp_seen || o->astra_gpus_seen ||
                  o->ns_per_tick || o->write_workload || o->nccl_logs ||
                  o->gap || o->kineto || o->step_seen || o->chakra)) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "--jobs: the jobs file names each job's workload and "
                "placement; give no workload, --llm, --astra, --astra-tp, "
                "--astra-gpus, --ns-per-tick, --nccl-log, --gap, --kineto, "
                "--step, --chakra, --placement, --seed, --servers or "
                "--write-workload with it");
    return FALSE;
  }
  {
    int traces =
        (o->nccl_logs != NULL) + (o->kineto != NULL) + (o->chakra != NULL);

    if (traces == 1 && o->rest) {
      /* the arguments left are more files of the trace given (a shell's
       * glob: --chakra job.*.et) */
      char ***files = o->nccl_logs ? &o->nccl_logs
                      : o->kineto  ? &o->kineto
                                   : &o->chakra;
      GStrvBuilder *b = g_strv_builder_new();

      g_strv_builder_addv(b, (const char **)*files);
      g_strv_builder_addv(b, (const char **)o->rest);
      g_strfreev(*files);
      *files = g_strv_builder_end(b);
      g_strv_builder_unref(b);
      g_clear_pointer(&o->rest, g_strfreev);
    }
    if (traces > 0 && (o->rest || o->llm || o->astra || traces > 1)) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "%s: more than one workload: %s (expected one of a "
                  "workload CSV, an ASTRA-sim text workload, an LLM layout, "
                  "NCCL logs, PyTorch profiler traces or Chakra execution "
                  "traces)",
                  o->nccl_logs ? "--nccl-log"
                  : o->kineto  ? "--kineto"
                               : "--chakra",
                  o->rest                     ? o->rest[0]
                  : o->llm                    ? "--llm"
                  : o->astra                  ? "--astra"
                  : o->nccl_logs && o->kineto ? "--kineto"
                                              : "--chakra");
      return FALSE;
    }
  }
  if (o->as_measured && !o->kineto) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "--as-measured: goes with --kineto (the collectives' measured "
                "times come from a profiler trace)");
    return FALSE;
  }
  if (o->step_seen && !o->kineto) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "--step: goes with --kineto");
    return FALSE;
  }
  if (o->gap && !o->nccl_logs) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "--gap: goes with --nccl-log");
    return FALSE;
  }
  if (o->astra_tp_seen && o->astra_tp == 0) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "--astra-tp: 0 is not a model-parallel size (expected 1 or "
                "more; leave it out to use the file's)");
    return FALSE;
  }
  if (o->astra_gpus_seen &&
      (o->astra_gpus == 0 || o->astra_gpus > TRC_MAX_RANKS)) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "--astra-gpus: %" G_GUINT64_FORMAT " is not a job size "
                "(expected 1 to %u)",
                o->astra_gpus, TRC_MAX_RANKS);
    return FALSE;
  }
  if ((o->astra_tp_seen || o->astra_gpus_seen || o->ns_per_tick) && !o->astra &&
      !o->jobs) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE, "%s: goes with --astra",
                o->astra_tp_seen     ? "--astra-tp"
                : o->astra_gpus_seen ? "--astra-gpus"
                                     : "--ns-per-tick");
    return FALSE;
  }
  if (o->seed_seen && !o->jobs &&
      (!o->placement || g_ascii_strcasecmp(o->placement, "random") != 0)) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "--seed: goes with --placement random");
    return FALSE;
  }
  if (o->rest && o->rest[0] && o->rest[1]) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "unexpected argument '%s' (one workload file)", o->rest[1]);
    return FALSE;
  }
  return TRUE;
}

int cli_cmd_replay(int argc, char **argv)
{
  ReplayOptions o = {0};
  CliNumberTarget numbers[] = {
      {"astra-tp", 0, CLI_NUMBER_COUNT, &o.astra_tp, &o.astra_tp_seen, 0},
      {"astra-gpus", 0, CLI_NUMBER_COUNT, &o.astra_gpus, &o.astra_gpus_seen, 0},
      {"step", 0, CLI_NUMBER_COUNT, &o.step, &o.step_seen, G_MAXINT64},
      {"seed", 0, CLI_NUMBER_COUNT, &o.seed, &o.seed_seen, 0},
      CLI_NCCL_CHANNELS_TARGET(&o.nccl),
      CLI_MAX_MEMORY_TARGET(&o.max_memory, &o.max_memory_seen),
      CLI_FAULT_TARGETS(&o.faults),
      {NULL, 0, 0, NULL, NULL, 0}};
  GOptionEntry entries[] = {
      {"topology", 't', 0, G_OPTION_ARG_FILENAME, &o.topology,
       "System to run on (default: the embedded 8-GPU H100 server)",
       "TOPO.ini"},
      {"models", 'm', 0, G_OPTION_ARG_FILENAME_ARRAY, &o.models,
       "Model file applied before the system's own groups (repeatable)",
       "FILE"},
      {"llm", 0, 0, G_OPTION_ARG_STRING, &o.llm,
       "Generate the step of an LLM layout instead of reading a workload: "
       "key=value,... (docs/workload.md)",
       "SPEC"},
      {"astra", 0, 0, G_OPTION_ARG_FILENAME, &o.astra,
       "Read an ASTRA-sim 1.0 / SimAI text workload", "FILE"},
      {"astra-tp", 0, 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,
       "Model-parallel ranks of the ASTRA-sim workload (default: its "
       "model_parallel_NPU_group)",
       "N"},
      {"astra-gpus", 0, 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,
       "GPUs of the ASTRA-sim job (default: its all_gpus; ASTRA-sim 1.0's "
       "own files have none)",
       "N"},
      {"ns-per-tick", 0, 0, G_OPTION_ARG_STRING, &o.ns_per_tick,
       "Length of an ASTRA-sim compute tick in ns (default 1, ASTRA-sim's)",
       "NS"},
      {"nccl-log", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o.nccl_logs,
       "Replay the calls of an NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL "
       "log; the arguments after it are more files (one per process)",
       "FILE"},
      {"kineto", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o.kineto,
       "Replay a step of PyTorch profiler (Kineto) traces, gzip or not, one "
       "per rank: this file and the arguments after it",
       "FILE"},
      {"chakra", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o.chakra,
       "Replay Chakra execution traces, one per rank (NAME.RANK.et): this "
       "file and the arguments after it",
       "FILE"},
      {"step", 0, 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,
       "The ProfilerStep#N of --kineto to replay (default: the last every "
       "trace holds)",
       "N"},
      {"as-measured", 0, 0, G_OPTION_ARG_NONE, &o.as_measured,
       "Collectives read from a trace take the time it measured, not the "
       "fabric's: checks what the replay reads from the trace",
       NULL},
      {"gap", 0, 0, G_OPTION_ARG_STRING, &o.gap,
       "Compute between two calls of a rank of --nccl-log: a time with a "
       "unit (e.g. 150us), or 'timestamps' for the time between their lines "
       "(default: none)",
       "TIME"},
      {"jobs", 0, 0, G_OPTION_ARG_FILENAME, &o.jobs,
       "Run several jobs at once: an INI file of [job NAME] groups "
       "(docs/replay.md)",
       "JOBS.ini"},
      {"placement", 0, 0, G_OPTION_ARG_STRING, &o.placement,
       "Servers the job takes: packed (default, the lowest), spread, random",
       "POLICY"},
      {"seed", 0, 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,
       "Seed of --placement random (default 0)", "N"},
      {"servers", 0, 0, G_OPTION_ARG_STRING, &o.servers,
       "The job's servers, in rank order (e.g. 0-3,8-11)", "LIST"},
      G_OPTION_ENTRY_NULL};
  /* after NCCL's options */
  GOptionEntry more[] = {
      {"csv", 0, 0, G_OPTION_ARG_FILENAME, &o.csv,
       "Write one row per op of each job: its instances, NCCL's choice, "
       "first start and last end",
       "FILE"},
      {"summary-csv", 0, 0, G_OPTION_ARG_FILENAME, &o.summary_csv,
       "Write one row per job: step, compute, exposed communication per "
       "group, slowdown (for 'ifsim plot')",
       "FILE"},
      {"links-csv", 0, 0, G_OPTION_ARG_FILENAME, &o.links_csv,
       "Write per-link utilization of the run (all jobs together)", "FILE"},
      {"write-workload", 0, 0, G_OPTION_ARG_FILENAME, &o.write_workload,
       "Write the workload as read or generated, as a workload CSV", "FILE"},
      {"timeline", 0, 0, G_OPTION_ARG_FILENAME, &o.timeline,
       "Write a Perfetto / Chrome trace of the step: a process per rank, a "
       "thread for its compute and one per group, the hottest links' "
       "utilization (docs/timeline.md)",
       "FILE.json"},
      {"link-samples", 0, 0, G_OPTION_ARG_FILENAME, &o.link_samples,
       "Write the hottest links' utilization per --sample-interval as CSV",
       "FILE.csv"},
      {"sample-interval", 0, 0, G_OPTION_ARG_STRING, &o.sample_interval,
       "Link sampling interval, a time with a unit (default 10us)", "TIME"},
      {"hot-links", 0, 0, G_OPTION_ARG_STRING, &o.hot_links,
       "Links in --link-samples and --timeline: the K that carried most "
       "(default 32), or all",
       "K"},
      CLI_MAX_MEMORY_ENTRY,
      {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o.rest, NULL,
       NULL},
      G_OPTION_ENTRY_NULL};
  g_autoptr(GOptionContext) ctx = cli_context_new(
      "[WORKLOAD.csv]",
      "Replay one training step of a job (or several at once) on a system: "
      "step time, compute, exposed communication per process group.",
      "The workload is a workload CSV (docs/workload.md), an ASTRA-sim text "
      "workload (--astra), a generated LLM layout (--llm), the calls of "
      "an NCCL log (--nccl-log), a step of PyTorch profiler traces "
      "(--kineto) or Chakra execution traces (--chakra).  --jobs runs "
      "several jobs at once, each placed on its own servers, and reports "
      "each one's slowdown against running alone and the links they "
      "share.\n" CLI_NCCL_ENV_HELP);
  GOptionGroup *group = g_option_group_new(COMMAND, "", "", numbers, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(TopoSystem) sys = NULL;
  g_autoptr(TrcOutputs) outs = trc_outputs_new();
  g_autoptr(GArray) jobs = g_array_new(FALSE, TRUE, sizeof(CliJob));
  g_autofree TrcReplayJob *rj = NULL;
  g_autofree TrcReplayResult *res = NULL;
  g_autofree double *slowdown = NULL;
  g_autofree guint8 **used = NULL;
  g_autofree double *busy = NULL, *util = NULL;
  guint n = 0;
  int status = CLI_EXIT_USAGE;
  NcclOptions nopt;
  TrcReplayOptions ro;
  SampleCtx sc = {0};
  guint32 hot = REPLAY_DEFAULT_HOT_LINKS;

  cli_add_entries(group, entries);
  cli_nccl_add_entries(group, &o.nccl);
  cli_fault_add_entries(group, &o.faults);
  cli_add_entries(group, more);
  g_option_context_set_main_group(ctx, group);
  if (!cli_parse(ctx, COMMAND, &argc, &argv, &status))
    goto out;
  cli_nccl_env_notes(COMMAND);
  if (!check_options(&o, &nopt, &hot, &error) ||
      !cli_apply_max_memory(o.max_memory, o.max_memory_seen, &error))
    goto fail;
  if (o.jobs) {
    if (!cli_jobs_load(o.jobs, jobs, &error))
      goto fail;
  } else {
    const char *file = o.rest        ? o.rest[0]
                       : o.astra     ? o.astra
                       : o.nccl_logs ? o.nccl_logs[0]
                       : o.kineto    ? o.kineto[0]
                       : o.chakra    ? o.chakra[0]
                                     : NULL;
    CliJob j = {0};

    /* the job is named after its file, "llm" for a generated one */
    if (file) {
      g_autofree char *base = g_path_get_basename(file);
      char *dot = strrchr(base, '.');

      if (dot && dot != base)
        *dot = '\0';
      j.name = g_strdup(base);
    } else {
      j.name = g_strdup("llm");
    }

    if (o.chakra || o.kineto || o.nccl_logs) {
      CliTraceSource t = {.nccl_logs = o.nccl_logs,
                          .kineto = o.kineto,
                          .chakra = o.chakra,
                          .gap = o.gap,
                          .gap_name = "--gap",
                          .step = o.step_seen ? (gint64)o.step : -1};

      j.w = cli_load_trace(&t, &error);
    } else {
      static const CliWorkloadNames names = {
          "--llm", "--astra-tp", "--ns-per-tick", "--astra", "--astra-gpus"};

      j.w = cli_load_workload(o.rest ? o.rest[0] : NULL, o.astra, o.llm,
                              (guint32)o.astra_tp, (guint32)o.astra_gpus,
                              o.ns_per_tick, "workload", &names, &error);
    }
    if (!j.w) {
      cli_job_clear(&j);
      goto fail;
    }
    if (o.placement && !trc_placement_parse(o.placement, &j.placement)) {
      cli_job_clear(&j);
      g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "--placement: '%s' is not one of packed, spread, random",
                  o.placement);
      goto fail;
    }
    if (o.servers) {
      if (o.placement) {
        cli_job_clear(&j);
        g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                    "--servers and --placement exclude each other");
        goto fail;
      }
      j.placement = TRC_PLACE_EXPLICIT;
      j.where = g_strdup("--servers");
      if (!cli_parse_servers(o.servers, "--servers", &j.list, &error)) {
        cli_job_clear(&j);
        goto fail;
      }
    }
    j.seed = o.seed;
    if (!j.where)
      j.where = g_strdup(o.placement ? "--placement"
                         : o.llm     ? "--llm"
                         : file      ? file
                                     : "workload");
    g_array_append_val(jobs, j);
  }
  n = jobs->len;
  if (o.write_workload &&
      !trc_outputs_add(outs, o.write_workload,
                       trc_workload_to_csv(g_array_index(jobs, CliJob, 0).w),
                       &error))
    goto fail;
  sys = topo_system_load(o.topology, (const char *const *)o.models, &error);
  if (!sys || !cli_fault_apply(sys, &o.faults, &error) ||
      !cli_jobs_place(sys, jobs, &error))
    goto fail;
  rj = g_new0(TrcReplayJob, n);
  res = g_new0(TrcReplayResult, n);
  for (guint i = 0; i < n; i++) {
    CliJob *j = &g_array_index(jobs, CliJob, i);

    rj[i] = (TrcReplayJob){.name = j->name,
                           .w = j->w,
                           .servers = j->servers,
                           .n_servers = j->n_servers};
  }
  ro = (TrcReplayOptions){.nccl = nopt,
                          .exec = cli_nccl_exec(&o.nccl),
                          .as_measured = o.as_measured};
  sc.interval_ps = REPLAY_DEFAULT_SAMPLE_PS;
  if (o.sample_interval &&
      !cli_parse_sample_interval(o.sample_interval, &sc.interval_ps, &error))
    goto fail;
  if ((o.timeline || o.link_samples) &&
      cli_nccl_exec(&o.nccl) != NCCL_EXEC_ANALYTICAL) {
    ro.attach = attach_sampler;
    ro.attach_ctx = &sc;
  }
  {
    guint32 nch = sim_fabric_n_channels(topo_system_fabric(sys));
    LinkCtx lc = {
        .sys = sys, .outs = outs, .links_csv = o.links_csv, .error = &error};
    g_autoptr(TrcReplay) run = NULL;

    if (n > 1) {
      busy = g_new0(double, nch);
      util = g_new0(double, nch);
      lc.busy = busy;
      lc.util = util;
    }
    ro.inspect = inspect_links;
    ro.inspect_ctx = &lc;
    run = trc_replay_run(sys, rj, n, &ro, res, &error);
    if (!run || !lc.ok)
      goto fail;
    if (sc.sampler && trc_link_sampler_truncated(sc.sampler)) {
      SimTime end = 0;

      for (guint i = 0; i < n; i++)
        end = MAX(end, res[i].step_ps);
      g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "--sample-interval: the step runs %.3f us, more than %u "
                  "intervals of %.6g us: expected an interval of at least "
                  "%.6g us",
                  end / 1e6, TRC_LINK_SAMPLES_MAX_INTERVALS,
                  sc.interval_ps / 1e6,
                  end / 1e6 / TRC_LINK_SAMPLES_MAX_INTERVALS);
      goto fail;
    }
    if (o.timeline &&
        !replay_timeline(run, sys, (const CliJob *)(void *)jobs->data, n, res,
                         &sc, hot, outs, o.timeline, &error))
      goto fail;
    if (o.link_samples) {
      SimTime end = 0;

      for (guint i = 0; i < n; i++)
        end = MAX(end, res[i].step_ps);
      if (end == 0) {
        g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                    "--link-samples: the step took no time");
        goto fail;
      }
      if (!trc_outputs_add(outs, o.link_samples,
                           trc_link_samples_csv(sc.sampler, sys, end, hot),
                           &error))
        goto fail;
    }
    ro.attach = NULL;
  }
  if (n > 1) {
    /* each job alone on its servers: the slowdown, and the links it uses */
    slowdown = g_new0(double, n);
    used = g_new0(guint8 *, n);
    for (guint i = 0; i < n; i++) {
      guint32 nch = sim_fabric_n_channels(topo_system_fabric(sys));
      LinkCtx lc = {.sys = sys};
      TrcReplayResult alone;
      g_autoptr(TrcReplay) run = NULL;

      used[i] = g_new0(guint8, nch);
      lc.used = used[i];
      ro.inspect = inspect_links;
      ro.inspect_ctx = &lc;
      run = trc_replay_run(sys, &rj[i], 1, &ro, &alone, &error);
      if (!run)
        goto fail;
      slowdown[i] = alone.step_ps ? (double)res[i].step_ps / alone.step_ps : 1;
      trc_replay_result_clear(&alone);
    }
  }
  if (o.csv && !trc_outputs_add(
                   outs, o.csv,
                   ops_csv((const CliJob *)(void *)jobs->data, res, n), &error))
    goto fail;
  if (o.summary_csv &&
      !trc_outputs_add(
          outs, o.summary_csv,
          summary_csv((const CliJob *)(void *)jobs->data, res, n, slowdown),
          &error))
    goto fail;
  /* the report first: when it cannot be written (a full disk), the commit
   * sees it and replaces no file */
  print_report(sys, (const CliJob *)(void *)jobs->data, res, n, slowdown,
               cli_nccl_fidelity(&o.nccl), used, busy, util);
  if (!trc_outputs_commit(outs, &error))
    goto fail;
  status = CLI_EXIT_OK;
  goto out;
fail:
  status = cli_report(COMMAND, error);
out:
  for (guint i = 0; res && i < n; i++)
    trc_replay_result_clear(&res[i]);
  for (guint i = 0; used && i < n; i++)
    g_free(used[i]);
  for (guint i = 0; i < jobs->len; i++)
    cli_job_clear(&g_array_index(jobs, CliJob, i));
  if (sc.sampler)
    trc_link_sampler_free(sc.sampler);
  options_clear(&o);
  return status;
}
