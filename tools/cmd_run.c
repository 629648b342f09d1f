/* `ifsim run`: predict one collective over a size sweep, printed as
 * nccl-tests prints it.
 *
 * The options follow nccl-tests (-b/-e/-f/-i with K/M/G suffixes, binary
 * multiples; -d, -o, -r) and NCCL (--algo/--proto and the NCCL_ALGO,
 * NCCL_PROTO, NCCL_MIN_NCHANNELS, NCCL_MAX_NCHANNELS environment
 * variables, the flags taking precedence).  Each size is chosen and
 * planned as NCCL would (collectives/nccl) and executed on the system's fabric
 * by the chosen transport.  Reports of the largest size: per-link
 * utilization (any transport), per-port packet counters and queue-depth
 * samples (the packet transport). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/nccl/nccl.h"
#include "sim/error.h"
#include "sim/interrupt.h"
#include "sim/memory.h"
#include "sim/units.h"
#include "tools/fail_at.h"
#include "tools/cli.h"
#include "tools/run.h"
#include "traces/collresults.h"
#include "traces/linksamples.h"
#include "traces/linkstats.h"
#include "traces/output.h"
#include "traces/portstats.h"
#include "traces/timeline.h"

#define COMMAND "run"

/* nccl-tests' type names (-d) and their sizes. */
static const struct {
  const char *name;
  guint32 size;
} run_types[] = {{"int8", 1},   {"uint8", 1},    {"int32", 4},  {"uint32", 4},
                 {"int64", 8},  {"uint64", 8},   {"half", 2},   {"float", 4},
                 {"double", 8}, {"bfloat16", 2}, {"f8e4m3", 1}, {"f8e5m2", 1}};
static const char *const run_redops[] = {"sum", "prod", "max",
                                         "min", "avg",  NULL};

void cli_run_options_init(CliRunOptions *o)
{
  *o = (CliRunOptions){.min_bytes = 8,
                       .max_bytes = UINT64_C(8) << 30,
                       .step_factor = 2,
                       .gpus_per_process = 1};
}

void cli_run_options_clear(CliRunOptions *o)
{
  g_free(o->topology);
  g_strfreev(o->models);
  g_free(o->collective);
  g_free(o->dtype);
  g_free(o->redop);
  cli_nccl_options_clear(&o->nccl);
  cli_fault_options_clear(&o->faults);
  g_free(o->fail_at);
  g_free(o->reroute_time);
  g_free(o->csv);
  g_free(o->json);
  g_free(o->links_csv);
  g_free(o->ports_csv);
  g_free(o->queue_samples);
  g_free(o->sample_interval);
  g_free(o->timeline);
  g_free(o->link_samples);
  g_free(o->hot_links);
}

/* Sets a bad-value error; returns FALSE. */
/* How the user gave workload key `key` (CliRunOptions.name). */
static const char *run_name(const CliRunOptions *o, const char *key)
{
  static const struct {
    const char *key, *flag;
    char short_name;
  } flags[] = {{"minbytes", "--minbytes", 'b'},
               {"maxbytes", "--maxbytes", 'e'},
               {"stepbytes", "--stepbytes", 'i'},
               {"stepfactor", "--stepfactor", 'f'},
               {"ranks", "--ngpus", 'g'},
               {"gpus_per_process", "--gpus-per-process", 0},
               {"iters", "--iters", 0},
               {"graph_launches", "--graph-launches", 0},
               {"root", "--root", 'r'},
               {"collective", "--collective", 'c'},
               {"datatype", "--datatype", 'd'},
               {"op", "--op", 'o'}};

  if (o->name)
    return o->name(o->name_ctx, key);
  /* -n / --nranks sets the count -g / --ngpus does */
  if (strcmp(key, "ranks") == 0 && cli_typed("nranks", 'n'))
    return cli_typed("nranks", 'n');
  for (guint i = 0; i < G_N_ELEMENTS(flags); i++) {
    if (strcmp(flags[i].key, key) == 0)
      return cli_flag_typed(flags[i].flag + 2, flags[i].short_name);
  }
  g_assert_not_reached();
  return key;
}

static gboolean bad(GError **error, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

static gboolean bad(GError **error, const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  g_propagate_error(
      error, g_error_new_valist(CLI_ERROR, CLI_ERROR_BAD_VALUE, fmt, ap));
  va_end(ap);
  return FALSE;
}

/* Queue samples without --sample-interval: every microsecond. */
#define RUN_DEFAULT_SAMPLE_PS SIM_US(1)

static NcclExec run_exec(const CliRunOptions *o)
{
  return cli_nccl_exec(&o->nccl);
}

gboolean cli_parse_hot_links(const char *text, guint32 *out, GError **error)
{
  guint64 k;

  if (g_ascii_strcasecmp(text, "all") == 0) {
    *out = 0;
    return TRUE;
  }
  if (!g_ascii_string_to_unsigned(text, 10, 1, G_MAXUINT32, &k, NULL))
    return bad(error,
               "--hot-links: '%s' is not a count of links (1 or more) or "
               "'all'",
               text);
  *out = (guint32)k;
  return TRUE;
}

gboolean cli_parse_sample_interval(const char *text, SimTime *out,
                                   GError **error)
{
  if (!sim_time_parse(text, out, error)) {
    g_prefix_error(error, "--sample-interval: ");
    return FALSE;
  }
  if (*out == 0)
    return bad(error, "--sample-interval: must be above 0 ps");
  return TRUE;
}

/* Hot links sampled without --hot-links. */
#define RUN_DEFAULT_HOT_LINKS 32

/* --link-samples, --hot-links and the link sampling interval (0: 1/200 of
 * NCCL's estimate of the largest size, chosen when it is known). */
static gboolean run_check_links(const CliRunOptions *o, guint32 *hot,
                                SimTime *link_ps, GError **error)
{
  *hot = RUN_DEFAULT_HOT_LINKS;
  *link_ps = 0;
  if (o->link_samples && run_exec(o) == NCCL_EXEC_ANALYTICAL)
    return bad(error, "--link-samples: the analytical transport ignores "
                      "contention, so its links have no utilization over "
                      "time; use --fidelity flow or packet");
  if (o->hot_links && !o->link_samples && !o->timeline)
    return bad(error, "--hot-links: goes with --link-samples or --timeline");
  if (o->hot_links && !cli_parse_hot_links(o->hot_links, hot, error))
    return FALSE;
  if (o->sample_interval && (o->link_samples || o->timeline))
    return cli_parse_sample_interval(o->sample_interval, link_ps, error);
  return TRUE;
}

/* The packet transport's reports and their sampling interval. */
static gboolean run_check_packet(const CliRunOptions *o, SimTime *sample_ps,
                                 GError **error)
{
  gboolean packet = run_exec(o) == NCCL_EXEC_PACKET;

  *sample_ps = 0;
  if (o->ports_csv && !packet)
    return bad(error, "--ports-csv: per-port counters come from the packet "
                      "transport; add --fidelity packet");
  if (o->queue_samples && !packet)
    return bad(error, "--queue-samples: queue samples come from the packet "
                      "transport; add --fidelity packet");
  if (o->sample_interval && !o->queue_samples && !o->link_samples &&
      !o->timeline)
    return bad(error, "--sample-interval: goes with --queue-samples, "
                      "--link-samples or --timeline");
  if (!o->queue_samples)
    return TRUE;
  *sample_ps = RUN_DEFAULT_SAMPLE_PS;
  return !o->sample_interval ||
         cli_parse_sample_interval(o->sample_interval, sample_ps, error);
}

gboolean cli_run_check(CliRunOptions *o, CliRunPlan *plan, GError **error)
{
  NcclColl *coll = &plan->coll;
  guint32 *type_size = &plan->type_size;
  NcclOptions *nopt = &plan->nopt;
  int t;

  memset(nopt, 0, sizeof(*nopt));
  if (!o->collective)
    o->collective = g_strdup("allreduce");
  if (!nccl_coll_parse(o->collective, coll))
    return bad(error,
               "%s: '%s' is not one of allreduce, allgather, "
               "reducescatter, broadcast, reduce, alltoall, sendrecv",
               run_name(o, "collective"), o->collective);
  if (!cli_nccl_check(&o->nccl, nopt, o->name, o->name_ctx, error))
    return FALSE;
  if (!o->dtype)
    o->dtype = g_strdup("float");
  for (t = 0; t < (int)G_N_ELEMENTS(run_types); t++) {
    if (g_ascii_strcasecmp(o->dtype, run_types[t].name) == 0)
      break;
  }
  if (t == (int)G_N_ELEMENTS(run_types))
    return bad(error,
               "%s: '%s' is not one of int8, uint8, int32, uint32, "
               "int64, uint64, half, float, double, bfloat16, f8e4m3, "
               "f8e5m2",
               run_name(o, "datatype"), o->dtype);
  *type_size = run_types[t].size;
  if (!o->redop)
    o->redop = g_strdup("sum");
  if (!cli_check_name(&o->redop, run_name(o, "op"), run_redops, error))
    return FALSE;
  if (!run_check_packet(o, &nopt->packet_sample_ps, error))
    return FALSE;
  if (o->ranks_seen && (o->ranks < 2 || o->ranks > G_MAXUINT32)) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s: %" G_GUINT64_FORMAT " ranks; at least 2",
                run_name(o, "ranks"), o->ranks);
    return FALSE;
  }
  nopt->dtype = o->dtype;
  nopt->redop = o->redop;
  nopt->ranks = o->ranks_seen ? (guint32)o->ranks : 0;
  if (o->gpus_per_process < 1 || o->gpus_per_process > G_MAXUINT32)
    return bad(error, "%s: %" G_GUINT64_FORMAT "; at least 1",
               run_name(o, "gpus_per_process"), o->gpus_per_process);
  nopt->gpus_per_process = (guint32)o->gpus_per_process;
  if (o->iters_seen && (o->iters < 1 || o->iters > G_MAXUINT32))
    return bad(error, "%s: %" G_GUINT64_FORMAT "; expected 1 to %u",
               run_name(o, "iters"), o->iters, G_MAXUINT32);
  nopt->iterations = o->iters_seen ? (guint32)o->iters : 0;
  /* nccl-tests reads -G as an int */
  if (o->graph_launches > G_MAXINT32)
    return bad(error, "%s: %" G_GUINT64_FORMAT "; expected 0 to %d",
               run_name(o, "graph_launches"), o->graph_launches, G_MAXINT32);
  nopt->graph_launches = (guint32)o->graph_launches;
  if (o->min_bytes == 0) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s: must be at least 1 byte", run_name(o, "minbytes"));
    return FALSE;
  }
  if (o->min_bytes > o->max_bytes) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s (%" G_GUINT64_FORMAT
                ") is larger than %s (%" G_GUINT64_FORMAT ")",
                run_name(o, "minbytes"), o->min_bytes, run_name(o, "maxbytes"),
                o->max_bytes);
    return FALSE;
  }
  if (o->step_bytes_seen && o->step_factor_seen) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s and %s exclude each other", run_name(o, "stepbytes"),
                run_name(o, "stepfactor"));
    return FALSE;
  }
  if (o->step_bytes_seen && o->step_bytes == 0) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s: must be at least 1 byte", run_name(o, "stepbytes"));
    return FALSE;
  }
  if (!o->step_bytes_seen && o->step_factor < 2) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s: %" G_GUINT64_FORMAT " is below 2 (use "
                "a step in bytes for linear steps)",
                run_name(o, "stepfactor"), o->step_factor);
    return FALSE;
  }
  return TRUE;
}

/* The reports of the largest size, taken from its transport. */
typedef struct {
  TrcOutputs *outs;
  const CliRunOptions *o;
  const TopoSystem *sys;
  GError **error;
  gboolean ok;
  char *hottest; /* the "# hottest links" line of --links-csv */
} RunReports;

static void write_reports(void *ctx, const SimTransport *t, SimTime end)
{
  RunReports *r = ctx;
  const CliRunOptions *o = r->o;

  if (end == 0) {
    g_set_error(r->error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s: the run took no time",
                o->links_csv   ? "--links-csv"
                : o->ports_csv ? "--ports-csv"
                               : "--queue-samples");
    r->ok = FALSE;
    return;
  }
  if (o->links_csv)
    r->hottest = trc_links_hottest(r->sys, t, end, 3);
  r->ok = (!o->links_csv ||
           trc_outputs_add(r->outs, o->links_csv,
                           trc_links_csv(r->sys, t, end, FALSE), r->error)) &&
          (!o->ports_csv ||
           trc_outputs_add(r->outs, o->ports_csv,
                           trc_ports_csv_transport(t, end), r->error)) &&
          (!o->queue_samples ||
           trc_outputs_add(r->outs, o->queue_samples,
                           trc_queue_samples_csv_transport(t), r->error));
}

/* What --timeline and --link-samples gather from inside the largest
 * size's run (NcclTrace hooks). */
typedef struct {
  TrcTimeline *tl;         /* --timeline, else NULL */
  TrcLinkSampler *sampler; /* made by attach when link samples are wanted */
  SimTime sample_ps;
  gboolean sample_links;
  guint64 transfers;  /* seen, also past the limit */
  SimTime *rank_end;  /* [ranks]: each rank's last transfer's end */
  guint64 *chan_used; /* [ranks]: bit per channel the rank's slices use */
  /* for the hooks around the largest size */
  NcclTrace *trace;
  const CliRunOptions *o;
  const TopoSystem *sys;
  const NcclComm *comm;
  NcclColl coll;
  guint32 hot;
  TrcOutputs *outs;
} RunTrace;

static void trace_transfer(void *ctx, guint32 rank, guint32 channel,
                           guint32 peer, guint64 bytes, SimTime start,
                           SimTime end)
{
  RunTrace *rt = ctx;
  guint32 pid = rank != SIM_NONE ? rank : peer;
  g_autofree char *name = NULL;
  g_autofree char *args = NULL;

  rt->transfers++;
  if (!rt->tl || rt->transfers > TRC_TIMELINE_MAX_EVENTS)
    return;
  if (rank != SIM_NONE && peer != SIM_NONE)
    name = g_strdup_printf("send \u2192 rank %u", peer);
  else
    name = g_strdup(rank != SIM_NONE ? "send \u2192 switch"
                                     : "recv \u2190 switch");
  if (peer != SIM_NONE && rank != SIM_NONE)
    args = g_strdup_printf("{\"bytes\":%" G_GUINT64_FORMAT
                           ",\"peer\":%u,\"channel\":%u}",
                           bytes, peer, channel);
  else
    args = g_strdup_printf("{\"bytes\":%" G_GUINT64_FORMAT
                           ",\"peer\":\"switch\",\"channel\":%u}",
                           bytes, channel);
  trc_timeline_slice(rt->tl, pid, channel, name, "transfer", start, end, args);
  rt->chan_used[pid] |= G_GUINT64_CONSTANT(1) << MIN(channel, 63);
  if (rank != SIM_NONE)
    rt->rank_end[rank] = MAX(rt->rank_end[rank], end);
  if (peer != SIM_NONE)
    rt->rank_end[peer] = MAX(rt->rank_end[peer], end);
}

static void trace_attach(void *ctx, SimEngine *e, SimTransport *t)
{
  RunTrace *rt = ctx;

  if (rt->sample_links)
    rt->sampler = trc_link_sampler_new(e, t, rt->sample_ps);
}

/* The timeline of the largest size: a process per rank with a thread per
 * channel, a "collective" thread, and the fabric's hot links. */
static gboolean run_timeline(RunTrace *rt, guint64 size, SimTime end,
                             GError **error)
{
  const CliRunOptions *o = rt->o;
  guint32 n = nccl_comm_ranks(rt->comm);
  guint64 events;

  for (guint32 r = 0; r < n; r++) {
    g_autofree char *name = g_strdup_printf(
        "rank %u (server %u GPU %u)", r, nccl_comm_rank_server(rt->comm, r),
        nccl_comm_rank_local(rt->comm, r));
    g_autofree char *args =
        g_strdup_printf("{\"bytes\":%" G_GUINT64_FORMAT "}", size);

    trc_timeline_process(rt->tl, r, name, (gint32)r);
    for (guint32 c = 0; c < NCCL_MAX_CHANNELS; c++) {
      g_autofree char *cn = g_strdup_printf("channel %u", c);
      if (rt->chan_used[r] & (G_GUINT64_CONSTANT(1) << c))
        trc_timeline_thread(rt->tl, r, c, cn);
    }
    trc_timeline_thread(rt->tl, r, NCCL_MAX_CHANNELS, "collective");
    trc_timeline_slice(rt->tl, r, NCCL_MAX_CHANNELS, nccl_coll_name(rt->coll),
                       "collective", 0, rt->rank_end[r] ? rt->rank_end[r] : end,
                       args);
  }
  if (rt->sampler) {
    trc_timeline_process(rt->tl, n, "fabric", (gint32)MIN(n, G_MAXINT32));
    trc_link_samples_timeline(rt->sampler, rt->sys, end, rt->hot, rt->tl, n);
  }
  trc_timeline_other(rt->tl, "generator", "ifsim run");
  trc_timeline_other(rt->tl, "collective", nccl_coll_name(rt->coll));
  trc_timeline_other(rt->tl, "fidelity", cli_nccl_fidelity(&o->nccl));
  events = trc_timeline_n_events(rt->tl);
  if (rt->transfers > TRC_TIMELINE_MAX_EVENTS ||
      events > TRC_TIMELINE_MAX_EVENTS) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "--timeline: the largest size (%" G_GUINT64_FORMAT
                " bytes) makes %" G_GUINT64_FORMAT
                " events, more than the %d a viewer opens; use a smaller -e "
                "or fewer ranks (-g)",
                size, MAX(events, rt->transfers), TRC_TIMELINE_MAX_EVENTS);
    return FALSE;
  }
  return trc_outputs_add(rt->outs, o->timeline, trc_timeline_json(rt->tl),
                         error);
}

/* A time for a call NCCL's model has no estimate of (point-to-point:
 * model_us -1), for the sampling interval only: the largest size at one
 * GPU's share of its server's NIC rate (across servers), else at its
 * NVLink (or PCIe) rate. */
static double p2p_estimate_us(const RunTrace *rt)
{
  const MdlRegistry *models = topo_system_models(rt->sys);
  TopoGpuInfo g;
  double Bps = 0;

  topo_system_gpu_info(rt->sys, &g);
  if (nccl_comm_nodes(rt->comm) > 1 && g.nic && g.nics) {
    const MdlLink *port = mdl_registry_link(models, g.nic->port_link);
    Bps = port ? mdl_link_rate_Bps(port) * MAX(g.nic->ports, 1) * g.nics /
                     MAX(g.gpus, 1)
               : 0;
  } else if (g.nvlink) {
    Bps = mdl_link_rate_Bps(g.nvlink) * g.nvlinks;
  } else if (g.gpu_pcie) {
    Bps = mdl_link_rate_Bps(g.gpu_pcie);
  }
  return Bps > 0 ? (double)rt->o->max_bytes / Bps * 1e6 : 1.0;
}

/* Before the largest size: the trace hooks, the sampling interval. */
static void trace_before(void *ctx, const NcclChoice *ch)
{
  RunTrace *rt = ctx;
  const CliRunOptions *o = rt->o;
  double est_us = ch->model_us >= 0 ? ch->model_us : p2p_estimate_us(rt);

  if (o->timeline)
    rt->tl = trc_timeline_new();
  rt->sample_links =
      o->link_samples || (o->timeline && run_exec(o) != NCCL_EXEC_ANALYTICAL);
  if (rt->sample_ps == 0) /* 1/200 of the call, at least 1 ns */
    rt->sample_ps = MAX(SIM_NS(1), (SimTime)(est_us * 1e6 / 200));
  rt->trace->transfer = o->timeline ? trace_transfer : NULL;
  rt->trace->attach = trace_attach;
}

/* After it: the link samples and the timeline. */
static gboolean trace_after(void *ctx, guint64 size, SimTime time_ps,
                            GError **error)
{
  RunTrace *rt = ctx;
  const CliRunOptions *o = rt->o;

  if (time_ps == 0) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s: the run took no time",
                o->timeline ? "--timeline" : "--link-samples");
    return FALSE;
  }
  if (rt->sampler && trc_link_sampler_truncated(rt->sampler)) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "--sample-interval: the largest size runs %.3f us, more than "
                "%u intervals of %.6g us: expected an interval of at least "
                "%.6g us",
                time_ps / 1e6, TRC_LINK_SAMPLES_MAX_INTERVALS,
                rt->sample_ps / 1e6,
                time_ps / 1e6 / TRC_LINK_SAMPLES_MAX_INTERVALS);
    return FALSE;
  }
  if (o->link_samples &&
      !trc_outputs_add(rt->outs, o->link_samples,
                       trc_link_samples_csv(rt->sampler, rt->sys, time_ps,
                                            rt->hot),
                       error))
    return FALSE;
  return !o->timeline || run_timeline(rt, size, time_ps, error);
}

/* The sizes of the sweep, as nccl-tests steps them, each rounded down to
 * whole elements (and whole elements per rank where the array is split). */
static GArray *run_sizes(const CliRunOptions *o, guint64 align,
                         guint64 *skipped, GError **error)
{
  GArray *sizes;
  guint64 n;

  /* how many sizes the flags ask for, before holding them (a size keeps
   * itself and its result row until the run ends) */
  if (o->step_bytes_seen) {
    n = (o->max_bytes - o->min_bytes) / o->step_bytes + 1;
  } else {
    n = 1;
    for (guint64 s = o->min_bytes; s <= o->max_bytes / o->step_factor;
         s *= o->step_factor)
      n++;
  }
  if (n > G_MAXUINT32) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "-b, -e, -i: %" G_GUINT64_FORMAT " message sizes, more than "
                "the %u a run takes",
                n, G_MAXUINT32);
    return NULL;
  }
  {
    g_autofree char *how = g_strdup_printf("%" G_GUINT64_FORMAT
                                           " message sizes from -b, -e and %s",
                                           n, o->step_bytes_seen ? "-i" : "-f");
    if (!sim_memory_check(n * (sizeof(guint64) + sizeof(TrcCollRow)),
                          "the size sweep", how, error))
      return NULL;
  }
  sizes = g_array_sized_new(FALSE, FALSE, sizeof(guint64), (guint)n);

  *skipped = 0;
  for (guint64 s = o->min_bytes; s <= o->max_bytes;) {
    /* whole elements (per rank where each rank has a part), rounded down
     * as nccl-tests does; a size below one is a call of 0 bytes, which
     * NCCL returns from at once: skipped (and said) */
    guint64 a = s - s % align;

    if (a == 0)
      (*skipped)++;
    else if (sizes->len == 0 ||
             g_array_index(sizes, guint64, sizes->len - 1) != a)
      g_array_append_val(sizes, a);
    if (o->step_bytes_seen) {
      if (s > G_MAXUINT64 - o->step_bytes)
        break;
      s += o->step_bytes;
    } else {
      if (s > G_MAXUINT64 / o->step_factor)
        break;
      s *= o->step_factor;
    }
  }
  return sizes;
}

TopoSystem *cli_run_load_system(const CliRunOptions *o, GError **error)
{
  g_autoptr(TopoSystem) sys =
      topo_system_load(o->topology, (const char *const *)o->models, error);

  if (!sys || !cli_fault_apply(sys, &o->faults, error))
    return NULL;
  return g_steal_pointer(&sys);
}

NcclComm *cli_run_comm_new(const TopoSystem *sys, const CliRunOptions *o,
                           const CliRunPlan *plan, GError **error)
{
  NcclOptions nopt = plan->nopt;
  g_autoptr(NcclComm) comm = NULL;
  guint32 ppn, gpp = plan->nopt.gpus_per_process;

  /* the communicator's errors name its count as the user gave it */
  nopt.ranks_name = run_name(o, "ranks");
  comm = nccl_comm_new(sys, &nopt, error);
  if (!comm)
    return NULL;
  ppn = nccl_comm_ranks(comm) / nccl_comm_nodes(comm);
  if (gpp > ppn || ppn % gpp) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s: %u does not divide the %u ranks of "
                "each server (a process drives GPUs of one server)",
                run_name(o, "gpus_per_process"), gpp, ppn);
    return NULL;
  }
  /* a root for a collective without one (nccl-tests' -r): not dropped
   * unseen; sweep's points mix collectives and take it where it counts */
  if (!nccl_coll_is_rooted(plan->coll) && o->root != 0 && !o->name) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s: %s has no root (Broadcast and Reduce have one)",
                run_name(o, "root"), nccl_coll_name(plan->coll));
    return NULL;
  }
  if (nccl_coll_is_rooted(plan->coll) && o->root >= nccl_comm_ranks(comm)) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s: %" G_GUINT64_FORMAT " is not a rank (0 to %u)",
                run_name(o, "root"), o->root, nccl_comm_ranks(comm) - 1);
    return NULL;
  }
  return g_steal_pointer(&comm);
}

/* --explain: where the host's launches, not the GPUs, set a size's
 * printed time (nccl_tests_time), say so and what a launch costs. */
static void explain_launch(FILE *out, const CliRunOptions *o,
                           const CliRunPlan *plan, const NcclComm *comm,
                           const NcclChoice *ch, const NcclRunStats *st)
{
  guint32 g = (guint32)MAX(o->gpus_per_process, 1);
  double launch = nccl_launch_us(comm, ch->channels);
  double first = nccl_launch_us(comm, 1);
  double gpus = sim_time_to_us(MIN(st->pace_ps, st->time_ps));

  if (g * launch < gpus)
    return;
  fprintf(out, "  time: set by the host: %u launch%s of %.3f us a call", g,
          g > 1 ? "es" : "", launch);
  if (ch->channels > 1 && launch > first)
    fprintf(out,
            " (%.3f on one channel, %.3f more for each of %u further: "
            "before NCCL 2.22 the host writes each channel's work)",
            first, (launch - first) / (ch->channels - 1), ch->channels - 1);
  else if (ch->channels > 1 &&
           !nccl_launch_per_channel(plan->nopt.nccl_version))
    fprintf(out,
            " (from NCCL 2.22 its %u channels cost the host no more "
            "than one)",
            ch->channels);
  fprintf(out, ", where the GPUs take %.2f us a call back to back\n", gpus);
}

gboolean cli_run_collective(const NcclComm *comm, const CliRunOptions *o,
                            const CliRunPlan *plan, FILE *explain_out,
                            NcclInspectFn inspect, void *inspect_ctx,
                            const gboolean *inspect_ok,
                            const CliRunLast *last_hooks, GArray *rows,
                            GError **error)
{
  NcclColl coll = plan->coll;
  guint64 align = plan->type_size;
  g_autoptr(GArray) sizes = NULL;
  g_autoptr(GString) explain = explain_out ? g_string_new(NULL) : NULL;
  guint64 skipped = 0;

  if (coll == NCCL_COLL_ALLGATHER || coll == NCCL_COLL_REDUCESCATTER ||
      coll == NCCL_COLL_ALLTOALL)
    align *= nccl_comm_ranks(comm);
  sizes = run_sizes(o, align, &skipped, error);
  if (!sizes)
    return FALSE;
  if (skipped) {
    g_autofree char *why =
        g_strdup_printf("%" G_GUINT64_FORMAT " B (one %s%s%s)", align, o->dtype,
                        align > plan->type_size ? " per rank of an " : "",
                        align > plan->type_size ? nccl_coll_name(coll) : "");

    if (sizes->len == 0) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "%s to %s: no size is a whole element, %s",
                  run_name(o, "minbytes"), run_name(o, "maxbytes"), why);
      return FALSE;
    }
    fprintf(stderr,
            "ifsim: note: %" G_GUINT64_FORMAT " size%s below %s skipped: "
            "a call of 0 bytes\n",
            skipped, skipped > 1 ? "s" : "", why);
  }
  for (guint i = 0; i < sizes->len; i++) {
    guint64 size = g_array_index(sizes, guint64, i);
    NcclChoice ch;
    NcclRunStats st;
    TrcCollRow r = {.size_bytes = size, .count = size / plan->type_size};
    gboolean last = i + 1 == sizes->len;

    if (!sim_interrupt_check(error))
      return FALSE;
    if (!nccl_select(comm, coll, size, &ch, explain, error))
      return FALSE;
    if (explain) {
      fputs(explain->str, explain_out);
      g_string_truncate(explain, 0);
    }
    if (last && last_hooks && last_hooks->before)
      last_hooks->before(last_hooks->ctx, &ch);
    if (!nccl_run(comm, coll, size, &ch, run_exec(o), last ? inspect : NULL,
                  inspect_ctx, &st, error)) {
      /* the size of the sweep that failed, as the user gave the sweep */
      if (error && *error && (*error)->domain != SIM_ERROR)
        g_prefix_error(error, "%s..%s: size %" G_GUINT64_FORMAT " B: ",
                       run_name(o, "minbytes"), run_name(o, "maxbytes"), size);
      return FALSE;
    }
    if (last && inspect && !*inspect_ok)
      return FALSE;
    if (last && last_hooks && last_hooks->after &&
        !last_hooks->after(last_hooks->ctx, size, st.time_ps, error))
      return FALSE;
    r.time_us = sim_time_to_us(
        nccl_tests_time(comm, st.time_ps, st.pace_ps, ch.channels));
    if (explain_out && o->graph_launches == 0)
      explain_launch(explain_out, o, plan, comm, &ch, &st);
    r.algbw_GBps = (double)size / (r.time_us * 1e3);
    r.busbw_GBps = r.algbw_GBps * nccl_bus_factor(coll, nccl_comm_ranks(comm));
    r.algo = coll >= NCCL_N_TUNED_COLLS ? "P2P" : nccl_algo_name(ch.algo);
    r.proto = nccl_proto_name(ch.proto);
    r.channels = ch.channels;
    r.nccl_model_us = ch.model_us;
    r.stall_prob = st.stall_prob;
    r.closed_form = st.closed_form;
    g_array_append_val(rows, r);
  }
  return TRUE;
}

void cli_run_info(const CliRunOptions *o, const CliRunPlan *plan,
                  const TopoSystem *sys, const NcclComm *comm,
                  TrcCollInfo *info)
{
  NcclColl coll = plan->coll;

  *info = (TrcCollInfo){
      .test = nccl_coll_test_name(coll),
      .collective = nccl_coll_name(coll),
      .system = topo_system_name(sys),
      .fidelity = cli_nccl_fidelity(&o->nccl),
      .type = o->dtype,
      .redop = nccl_coll_is_reduction(coll) ? o->redop : "none",
      .root = nccl_coll_is_rooted(coll) ? (gint32)o->root : -1,
      .ranks = nccl_comm_ranks(comm),
      .nodes = nccl_comm_nodes(comm),
      .min_bytes = o->min_bytes,
      .max_bytes = o->max_bytes,
      .step_bytes = o->step_bytes_seen ? o->step_bytes : 0,
      .step_factor = o->step_bytes_seen ? 0 : o->step_factor,
      .nccl_version = plan->nopt.nccl_version ? plan->nopt.nccl_version
                                              : NCCL_VERSION_DEFAULT,
      .gpus_per_process = (guint32)o->gpus_per_process,
      .iters = o->iters_seen ? (guint32)o->iters : 0,
      .graph_launches = (guint32)o->graph_launches};
}

/* A note where an AllToAll was computed in closed form, not run (docs/
 * transports.md): what it is and how to run every pair instead. */
static void closed_form_notes(const NcclComm *comm, const GArray *rows,
                              GPtrArray *notes)
{
  for (guint i = 0; i < rows->len; i++) {
    if (g_array_index(rows, TrcCollRow, i).closed_form) {
      g_ptr_array_add(
          notes,
          g_strdup_printf("AllToAll on %u ranks in closed form: the busiest "
                          "channel and the longest latency chain, within 1%% "
                          "of running every pair on the systems tested "
                          "(docs/transports.md); --no-shortcut=alltoall runs "
                          "them",
                          nccl_comm_ranks(comm)));
      return;
    }
  }
}

/* CUDA graph launches across nodes: a captured call with network
 * operations waits for a host function that hands them to the proxy
 * (enqueue.cc of 2.28: persistent plans launch hostStreamPlanCallback by
 * cudaLaunchHostFunc, and the kernel waits for it), whose latency ifsim
 * does not know. */
static void graph_notes(const NcclComm *comm, guint32 graph_launches,
                        GPtrArray *notes)
{
  if (graph_launches && nccl_comm_nodes(comm) > 1)
    g_ptr_array_add(notes, g_strdup(CLI_GRAPH_NOTE));
}

/* Lossy links: the chance that each size's call stalls for a
 * retransmission timeout, one line for the sizes where it is above 0. */
static void stall_notes(const NcclComm *comm, const GArray *rows,
                        GPtrArray *notes)
{
  g_autoptr(GString) s = g_string_new(NULL);
  SimTime timer;
  guint32 retries;

  for (guint i = 0; i < rows->len; i++) {
    const TrcCollRow *r = &g_array_index(rows, TrcCollRow, i);

    if (r->stall_prob > 0)
      g_string_append_printf(s, "%s%" G_GUINT64_FORMAT " B %.3g%%",
                             s->len ? ", " : "", r->size_bytes,
                             100 * r->stall_prob);
  }
  if (!s->len)
    return;
  nccl_comm_ib_retry(comm, &timer, &retries);
  g_ptr_array_add(notes,
                  g_strdup_printf("lossy links: the chance that a call loses "
                                  "a packet no other follows and stalls "
                                  "%.3f s for its retransmission timer "
                                  "(not in the times): %s",
                                  sim_time_to_s(timer), s->str));
}

/* The JSON's devices: each rank's server and GPU (arrays the caller
 * frees), the GPUs named by their compute capability and the system. */
static char *run_info_devices(const NcclComm *comm, const TopoSystem *sys,
                              TrcCollInfo *info, guint32 **server,
                              guint32 **local)
{
  TopoGpuInfo g;

  *server = g_new(guint32, MAX(info->ranks, 1));
  *local = g_new(guint32, MAX(info->ranks, 1));
  for (guint32 r = 0; r < info->ranks; r++) {
    (*server)[r] = nccl_comm_rank_server(comm, r);
    (*local)[r] = nccl_comm_rank_local(comm, r);
  }
  info->rank_server = *server;
  info->rank_local = *local;
  topo_system_gpu_info(sys, &g);
  return g_strdup_printf("sm%u GPU of %s (ifsim)", g.sm, topo_system_name(sys));
}

void cli_run_add_entries(GOptionGroup *group, CliRunOptions *o)
{
  const GOptionEntry entries[] = {
      {"topology", 't', 0, G_OPTION_ARG_FILENAME, &o->topology,
       "System to simulate (default: the embedded 8-GPU H100 server)",
       "TOPO.ini"},
      {"models", 'm', 0, G_OPTION_ARG_FILENAME_ARRAY, &o->models,
       "Model file applied before the system's own groups (repeatable; "
       "e.g. a calibration)",
       "FILE"},
      {"collective", 'c', 0, G_OPTION_ARG_STRING, &o->collective,
       "allreduce, allgather, reducescatter, broadcast, reduce, alltoall or "
       "sendrecv (default allreduce)",
       "NAME"},
      {"minbytes", 'b', 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,
       "Smallest size, K/M/G/T suffixes are binary (default 8)", "SIZE"},
      {"maxbytes", 'e', 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,
       "Largest size (default 8G)", "SIZE"},
      {"stepfactor", 'f', 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,
       "Multiply the size by N between steps (default 2)", "N"},
      {"stepbytes", 'i', 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,
       "Add SIZE between steps instead of multiplying", "SIZE"},
      {"ngpus", 'g', 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,
       "Ranks, one per GPU, whole servers in order (default: every GPU)", "N"},
      {"nranks", 'n', 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,
       "The same as --ngpus (nccl-tests' -n counts iterations: a prediction "
       "has none)",
       "N"},
      {"gpus-per-process", 0, 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,
       "GPUs one process drives, launching their kernels in turn, as "
       "nccl-tests -g G (default 1: one rank per process, as under mpirun); "
       "times never go below G launches ([nccl] host_launch_us, plus "
       "host_launch_per_channel_us per further channel before NCCL 2.22)",
       "G"},
      {"iters", 0, 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,
       "Time as nccl-tests -n N does: N calls launched back to back, the "
       "timer started before the first launch, their time over N "
       "(default: the steady pace of a long loop)",
       "N"},
      {"graph-launches", 0, 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,
       "Time as nccl-tests -G K does: the calls captured in a CUDA graph a "
       "GPU, launched K times; the host launches graphs, not kernels, so "
       "no launch floor per call (default 0: calls launched one by one)",
       "K"},
      {"datatype", 'd', 0, G_OPTION_ARG_STRING, &o->dtype,
       "Element type: float (default), half, bfloat16, double, int8, uint8, "
       "int32, uint32, int64, uint64, f8e4m3, f8e5m2",
       "TYPE"},
      {"op", 'o', 0, G_OPTION_ARG_STRING, &o->redop,
       "Reduction: sum (default), prod, max, min, avg", "OP"},
      {"root", 'r', 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,
       "Root rank of Broadcast and Reduce (default 0)", "RANK"},
      G_OPTION_ENTRY_NULL};

  cli_add_entries(group, entries);
}

gboolean cli_run_parse(GOptionContext *ctx, GOptionGroup *group,
                       CliRunOptions *o, const GOptionEntry *more,
                       const char *command, int *argc, char ***argv,
                       int *status, GError **error)
{
  cli_run_options_init(o);
  cli_run_add_entries(group, o);
  cli_nccl_add_entries(group, &o->nccl);
  cli_fault_add_entries(group, &o->faults);
  cli_add_entries(group, more);
  g_option_context_set_main_group(ctx, group);
  if (!cli_parse(ctx, command, argc, argv, status))
    return FALSE;
  cli_nccl_env_notes(command);
  if (*argc > 1) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "unexpected argument '%s'", (*argv)[1]);
    return FALSE;
  }
  return TRUE;
}

int cli_cmd_run(int argc, char **argv)
{
  CliRunOptions o;
  CliNumberTarget numbers[] = {
      CLI_RUN_NUMBER_TARGETS(&o),
      CLI_NCCL_CHANNELS_TARGET(&o.nccl),
      CLI_MAX_MEMORY_TARGET(&o.max_memory, &o.max_memory_seen),
      CLI_FAULT_TARGETS(&o.faults),
      {NULL, 0, 0, NULL, NULL, 0}};
  /* after NCCL's options */
  GOptionEntry more[] = {
      {"explain", 0, 0, G_OPTION_ARG_NONE, &o.explain,
       "Print, per size, NCCL's estimate for every algorithm and protocol "
       "and why the choice won",
       NULL},
      {"csv", 0, 0, G_OPTION_ARG_FILENAME, &o.csv,
       "Also write results as CSV (algo, proto, channels per size)", "FILE"},
      {"json", 0, 0, G_OPTION_ARG_FILENAME, &o.json,
       "Also write results as JSON (nccl-tests -J layout)", "FILE"},
      {"links-csv", 0, 0, G_OPTION_ARG_FILENAME, &o.links_csv,
       "Write the per-link utilization of the largest size", "FILE"},
      {"ports-csv", 0, 0, G_OPTION_ARG_FILENAME, &o.ports_csv,
       "Write the per-port packet counters of the largest size (--fidelity "
       "packet)",
       "FILE"},
      {"queue-samples", 0, 0, G_OPTION_ARG_FILENAME, &o.queue_samples,
       "Write the queue depths of the largest size's ports over time "
       "(--fidelity packet)",
       "FILE"},
      {"sample-interval", 0, 0, G_OPTION_ARG_STRING, &o.sample_interval,
       "Time between queue samples (default 1us) and link samples (default "
       "1/200 of NCCL's estimate of the largest size, at least 1ns; for "
       "SendRecv and AllToAll, which NCCL's model does not cover, of the "
       "size at a GPU's share of the NICs or its NVLink rate), e.g. "
       "500ns, 2us",
       "TIME"},
      {"timeline", 0, 0, G_OPTION_ARG_FILENAME, &o.timeline,
       "Write the largest size as a Perfetto/Chrome trace (JSON for "
       "ui.perfetto.dev): a process per rank, a thread per channel, the hot "
       "links' utilization",
       "FILE"},
      {"link-samples", 0, 0, G_OPTION_ARG_FILENAME, &o.link_samples,
       "Write the utilization of the largest size's hottest links over time "
       "(CSV; --fidelity flow or packet)",
       "FILE"},
      {"hot-links", 0, 0, G_OPTION_ARG_STRING, &o.hot_links,
       "Links in --link-samples and --timeline: the K that carried most "
       "(default 32), or all",
       "K"},
      {"fail-at", 0, 0, G_OPTION_ARG_STRING, &o.fail_at,
       "An element that fails under each call, TIME after it starts: "
       "'2ms p0.spine3' (the stall, the reroute, or the connections' "
       "failure; docs/faults.md)",
       "'TIME ELEMENT'"},
      {"reroute-time", 0, 0, G_OPTION_ARG_STRING, &o.reroute_time,
       "How long the fabric's control plane takes to route around "
       "--fail-at's element (needed where the switches do not do it "
       "themselves), e.g. 300ms",
       "TIME"},
      CLI_MAX_MEMORY_ENTRY,
      G_OPTION_ENTRY_NULL};
  g_autoptr(GOptionContext) ctx = cli_context_new(
      NULL, "Predict how long a collective takes over a range of sizes.",
      "With no options, runs AllReduce from 8 B to 8 GiB on the embedded "
      "8-GPU H100 server.\nSizes are decimal with optional K, M, G, T "
      "suffixes (binary multiples), as in nccl-tests.\n" CLI_NCCL_ENV_HELP);
  GOptionGroup *group =
      g_option_group_new(COMMAND, "run options", "run options", numbers, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(TopoSystem) sys = NULL;
  g_autoptr(NcclComm) comm = NULL;
  g_autoptr(GArray) rows = g_array_new(FALSE, TRUE, sizeof(TrcCollRow));
  /* Every file of the run, renamed into place at the end together */
  g_autoptr(TrcOutputs) outs = trc_outputs_new();
  int status = CLI_EXIT_USAGE;
  CliRunPlan plan;
  TrcCollInfo info;
  RunReports rep = {0};
  g_auto(GStrv) fault_lines = NULL;
  /* the faults' lines, and what --fail-at did */
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func(g_free);
  /* how the times were made: an AllToAll in closed form */
  g_autoptr(GPtrArray) run_notes = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(CliFailAt) fail_at = NULL;
  NcclTrace trace = {0};
  RunTrace rt = {.trace = &trace};
  CliRunLast hooks = {trace_before, trace_after, &rt};

  if (!cli_run_parse(ctx, group, &o, more, COMMAND, &argc, &argv, &status,
                     &error))
    goto done;
  if (!cli_run_check(&o, &plan, &error) ||
      !run_check_links(&o, &rt.hot, &rt.sample_ps, &error) ||
      !cli_apply_max_memory(o.max_memory, o.max_memory_seen, &error))
    goto fail;
  /* the hooks are set for the largest size only, read by nccl_run through
   * the communicator's options */
  trace.ctx = &rt;
  plan.nopt.trace = &trace;
  sys = cli_run_load_system(&o, &error);
  if (!sys)
    goto fail;
  fault_lines = topo_system_fault_lines(sys);
  comm = cli_run_comm_new(sys, &o, &plan, &error);
  if (!comm)
    goto fail;
  if (o.reroute_time && !o.fail_at) {
    g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "--reroute-time: goes with --fail-at");
    goto fail;
  }
  if (o.fail_at) {
    fail_at = cli_fail_at_new(&o, &plan, sys, comm, &error);
    if (!fail_at)
      goto fail;
  }
  rt.rank_end = g_new0(SimTime, nccl_comm_ranks(comm));
  rt.chan_used = g_new0(guint64, nccl_comm_ranks(comm));
  rt.o = &o;
  rt.sys = sys;
  rt.comm = comm;
  rt.coll = plan.coll;
  rt.outs = outs;
  rep = (RunReports){.outs = outs, .o = &o, .sys = sys, .error = &error};
  if (!cli_run_collective(
          comm, &o, &plan, o.explain ? stdout : NULL,
          o.links_csv || o.ports_csv || o.queue_samples ? write_reports : NULL,
          &rep, &rep.ok, o.timeline || o.link_samples ? &hooks : NULL, rows,
          &error))
    goto fail;
  for (guint i = 0; fault_lines && fault_lines[i]; i++)
    g_ptr_array_add(notes, g_strdup(fault_lines[i]));
  if (fail_at && !cli_fail_at_rows(fail_at, rows, notes, &error))
    goto fail;
  stall_notes(comm, rows, notes);
  g_ptr_array_add(notes, NULL);
  closed_form_notes(comm, rows, run_notes);
  graph_notes(comm, plan.nopt.graph_launches, run_notes);
  g_ptr_array_add(run_notes, NULL);
  cli_run_info(&o, &plan, sys, comm, &info);
  info.faults = notes->len > 1 ? (const char *const *)notes->pdata : NULL;
  info.notes =
      run_notes->len > 1 ? (const char *const *)run_notes->pdata : NULL;
  if (o.csv && !trc_outputs_add(
                   outs, o.csv,
                   trc_coll_csv(&info, (const TrcCollRow *)(void *)rows->data,
                                rows->len),
                   &error))
    goto fail;
  if (o.json) {
    g_autofree guint32 *rank_server = NULL, *rank_local = NULL;
    g_autofree char *device =
        run_info_devices(comm, sys, &info, &rank_server, &rank_local);
    info.device_info = device;
    if (!trc_outputs_add(outs, o.json,
                         trc_coll_json(&info,
                                       (const TrcCollRow *)(void *)rows->data,
                                       rows->len),
                         &error))
      goto fail;
    info.rank_server = info.rank_local = NULL;
    info.device_info = NULL;
  }
  /* the table first: when it cannot be written (a full disk), the commit
   * sees it and replaces no file */
  trc_coll_print_table(stdout, &info, (const TrcCollRow *)(void *)rows->data,
                       rows->len);
  if (rep.hottest)
    fputs(rep.hottest, stdout);
  if (!trc_outputs_commit(outs, &error))
    goto fail;
  status = CLI_EXIT_OK;
  goto out;
done:
  if (!error)
    goto out;
fail:
  status = cli_report(COMMAND, error);
out:
  g_free(rep.hottest);
  trc_timeline_free(rt.tl);
  trc_link_sampler_free(rt.sampler);
  g_free(rt.rank_end);
  g_free(rt.chan_used);
  cli_run_options_clear(&o);
  return status;
}
