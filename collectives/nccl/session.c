/* Sessions: one engine, transport and DAG over a system into which calls
 * are planned (plan.c) and executed (exec.c), and nccl_run, a session of
 * one call; the transport a run uses, and the memory a run may take
 * (checked before anything is built, sim/memory.h). */
#include <string.h>

#include "collectives/error.h"
#include "collectives/nccl/exec.h"
#include "sim/engine.h"
#include "sim/interrupt.h"
#include "sim/memory.h"
#include "sim/packet.h"
#include "sim/transport.h"

/* The packet transport adds, per fabric channel, its port record with up
 * to SIM_PACKET_MAX_VL VL records, and the packets alive: a packet lives
 * only while queued at a port or on a wire, sources cut packets only as
 * their first port can send them, and the buffer each hop leads into
 * (credits, PFC xoff + headroom, the lossy limit) bounds what is queued
 * for or travelling on it.  Collectives run on one VL, so a channel holds
 * at most (that buffer / MTU) + 2 packets (one on its wire, one at the
 * head of its queue).  Upper bounds of the records in sim/packet.c, with
 * pool slack: on the DGX H100 SuperPOD, AllReduce 64 MiB, the estimate is
 * 83 MiB and the measured peak 37 MB. */
#define RUN_PACKET_BYTES_PER_PORT 512u
#define RUN_PACKET_BYTES_PER_PACKET 64u

/* Most packets the fabric's buffers let be alive at once. */
static guint64 packet_bound(const TopoSystem *sys)
{
  const SimFabric *f = topo_system_fabric(sys);
  guint64 n = 0;

  for (SimChannelId c = 0; c < sim_fabric_n_channels(f); c++) {
    const SimPacketLink *l = topo_packet_link((void *)sys, c);
    guint64 buf = l->flow_control == SIM_FC_PFC
                      ? l->pfc_xoff_bytes + l->pfc_headroom_bytes
                      : l->buffer_bytes;

    n += buf / l->mtu + 2;
  }
  return n;
}

/* The fewest edges a call's plan can have: an AllToAll's pair of ranks
 * each and a Send/Recv's rank each (plan_p2p: a pair's channels are one
 * edge), else an edge per rank on each channel, or on one when alike
 * channels fold.  The plan checks its real count as it grows
 * (NCCL_RUN_BYTES_PER_EDGE, plan.c); this refuses up front what cannot
 * fit whatever it folds. */
static guint64 plan_floor(const NcclComm *comm, NcclColl coll, guint32 channels,
                          gboolean fold)
{
  guint64 ranks = nccl_comm_ranks(comm);

  if (coll == NCCL_COLL_ALLTOALL)
    return ranks * (ranks - 1);
  if (coll == NCCL_COLL_SENDRECV)
    return ranks;
  return ranks * (fold ? 1 : channels);
}

/* Memory of a built plan's run, bytes. */
static guint64 plan_need(const NcclPlan *pl)
{
  return (guint64)pl->edges->len * NCCL_RUN_BYTES_PER_EDGE;
}

/* The packet transport's records, bytes (0 on the others); *packets (may
 * be NULL) gets packet_bound. */
static guint64 packet_need(const TopoSystem *sys, NcclExec exec,
                           guint64 *packets)
{
  guint64 n;

  if (exec != NCCL_EXEC_PACKET)
    return 0;
  n = packet_bound(sys);
  if (packets)
    *packets = n;
  return (guint64)sim_fabric_n_channels(topo_system_fabric(sys)) *
             RUN_PACKET_BYTES_PER_PORT +
         n * RUN_PACKET_BYTES_PER_PACKET;
}

/* Checks need (+ the packet transport's records) against the limit. */
static gboolean check_need(const TopoSystem *sys, guint64 need, NcclExec exec,
                           const char *what, const char *how, GError **error)
{
  g_autofree char *more = NULL;

  if (exec == NCCL_EXEC_PACKET) {
    guint64 packets = 0;

    need += packet_need(sys, exec, &packets);
    more = g_strdup_printf(
        "%s; packets: %u ports x %u bytes, up to %" G_GUINT64_FORMAT
        " packets x %u bytes",
        how, sim_fabric_n_channels(topo_system_fabric(sys)),
        RUN_PACKET_BYTES_PER_PORT, packets, RUN_PACKET_BYTES_PER_PACKET);
    how = more;
  }
  return sim_memory_check(need, what, how, error);
}

/* The plan's shortcuts (plan.h, exec.c): alike channels folded unless
 * told not to, or the transport moves each channel's packets (the packet
 * transport takes no SimTransfer.copies), or a transfer trace names each
 * channel's transfers (`traced`); whole bodies unless told not to. */
static void plan_shortcuts(NcclPlan *pl, const NcclComm *comm, NcclExec exec,
                           gboolean traced)
{
  pl->fold = !comm->opt.no_fold && exec != NCCL_EXEC_PACKET && !traced;
  pl->whole = !comm->opt.all_rounds;
}

/* Refuses up front a call that cannot fit whatever its plan folds
 * (plan_floor). */
static gboolean check_memory(const NcclComm *comm, NcclColl coll,
                             guint32 channels, gboolean fold, NcclExec exec,
                             GError **error)
{
  guint64 ranks = nccl_comm_ranks(comm);
  guint64 edges = plan_floor(comm, coll, channels, fold);
  g_autofree char *what = g_strdup_printf("%s on %" G_GUINT64_FORMAT " ranks",
                                          nccl_coll_name(coll), ranks);
  g_autofree char *how = g_strdup_printf("at least %" G_GUINT64_FORMAT
                                         " edges of its plan, %u KiB per edge",
                                         edges, NCCL_RUN_BYTES_PER_EDGE >> 10);

  return check_need(comm->sys, edges * NCCL_RUN_BYTES_PER_EDGE, exec, what, how,
                    error);
}

static gboolean session_check_memory(NcclSession *s, GError **error);

/* The transport a run executes on, with the link models' wire overheads. */
static SimTransport *run_transport(const TopoSystem *sys, SimEngine *engine,
                                   NcclExec exec, SimTime packet_sample_ps)
{
  const SimFabric *fabric = topo_system_fabric(sys);
  SimTransport *tr;

  switch (exec) {
  case NCCL_EXEC_ANALYTICAL: tr = sim_analytical_new(engine, fabric); break;
  case NCCL_EXEC_PACKET:
    tr = sim_packet_new(engine, fabric, topo_packet_link, (void *)sys);
    sim_packet_set_sampling(tr, packet_sample_ps);
    break;
  case NCCL_EXEC_FLOW:
  default: tr = sim_flow_new(engine, fabric); break;
  }
  sim_transport_set_wire(tr, topo_wire_ratio, (void *)sys);
  return tr;
}
/* --- sessions ------------------------------------------------------------ */

/* The paths a built plan's transfers read when they start. */
typedef struct {
  GArray *paths;
  GArray *weights;
} KeptPaths;

struct NcclSession {
  const TopoSystem *sys;
  NcclExec exec;
  SimEngine *engine;
  SimTransport *tr;
  SimDag *dag;
  guint32 streams; /* DAG streams used */
  guint64 need;    /* memory estimate of the calls, bytes */
  guint64 calls, transfers;
  gint64 t0;
};

/* The packet transport's shortcut: a flow alone on its path in closed
 * form (sim/packet.h), unless told not to (--no-shortcut=closed-form,
 * --no-fold). */
static void transport_shortcuts(NcclSession *s, const NcclComm *comm)
{
  if (s->exec == NCCL_EXEC_PACKET)
    sim_packet_set_closed_form(s->tr, !comm->opt.packetwise);
}

static void kept_free(gpointer p)
{
  KeptPaths *k = p;

  g_array_free(k->paths, TRUE);
  g_array_free(k->weights, TRUE);
  g_free(k);
}

NcclSession *nccl_session_new(const TopoSystem *sys, NcclExec exec,
                              SimTime packet_sample_ps)
{
  NcclSession *s = g_new0(NcclSession, 1);

  s->sys = sys;
  s->exec = exec;
  s->engine = sim_engine_new();
  s->tr = run_transport(sys, s->engine, exec, packet_sample_ps);
  s->dag = sim_dag_new(s->engine, s->tr);
  s->t0 = g_get_monotonic_time();
  return s;
}

void nccl_session_free(NcclSession *s)
{
  if (!s)
    return;
  /* the DAG first: it took the transport's completion function */
  sim_dag_free(s->dag);
  sim_transport_free(s->tr);
  sim_engine_free(s->engine);
  g_free(s);
}

SimDag *nccl_session_dag(NcclSession *s)
{
  return s->dag;
}

SimEngine *nccl_session_engine(NcclSession *s)
{
  return s->engine;
}

const SimTransport *nccl_session_transport(const NcclSession *s)
{
  return s->tr;
}

/* A call of a session until its join ends: what to release then. */
typedef struct {
  NcclSession *s;
  KeptPaths *kept;
  guint64 need;
  SimTaskFn fn;
  void *ctx;
  guint64 user;
} SessionCall;

/* Plans pl's call into the session after `after`, with a join after the
 * call's last tasks (in *done) that releases its paths and calls
 * call->fn. */
static void session_exec(NcclSession *s, NcclPlan *pl, const SimTask *after,
                         guint32 n_after, SessionCall *call, SimTask *done);

static void session_call_done(void *ctx, guint64 user, SimTime now)
{
  SessionCall *c = ctx;

  (void)user;
  kept_free(c->kept);
  c->s->need -= c->need;
  if (c->fn)
    c->fn(c->ctx, c->user, now);
  g_free(c);
}

static void session_exec(NcclSession *s, NcclPlan *pl, const SimTask *after,
                         guint32 n_after, SessionCall *call, SimTask *done)
{
  NcclExecution x = {.pl = pl,
                     .dag = s->dag,
                     .after = after,
                     .n_after = n_after,
                     .want_done = TRUE,
                     .done_fn = session_call_done,
                     .done_ctx = call};
  KeptPaths *k = g_new(KeptPaths, 1);

  /* the transfers not started yet read their paths from these, after the
   * plan is cleared: the call's join frees them */
  k->paths = pl->paths;
  k->weights = pl->weights;
  call->kept = k;
  pl->stream_base = s->streams;
  s->streams += pl->edges->len;
  nccl_execution_build(&x);
  pl->paths = pl->weights = NULL;
  s->transfers += x.transfers;
  s->calls++;
  if (done)
    *done = x.done;
}

gboolean nccl_session_add(NcclSession *s, const NcclComm *comm, NcclColl coll,
                          guint64 bytes, const NcclChoice *choice,
                          const NcclCallSpec *spec, SimTask *done,
                          GError **error)
{
  static const NcclCallSpec none = {0};
  NcclPlan pl = {0};
  guint64 floor;
  SessionCall *call;
  gboolean ok;

  if (!spec)
    spec = &none;
  pl.one_way = spec->one_way;
  plan_shortcuts(&pl, comm, s->exec, FALSE);
  transport_shortcuts(s, comm);
  if (comm->sys != s->sys) {
    g_set_error(error, COLL_ERROR, COLL_ERROR_CONFLICT,
                "a communicator of another system than the session's");
    return FALSE;
  }
  floor = plan_floor(comm, coll, MAX(choice->channels, 1), pl.fold) *
          NCCL_RUN_BYTES_PER_EDGE;
  s->need += floor;
  ok = session_check_memory(s, error);
  s->need -= floor;
  pl.mem_base = s->need + packet_need(s->sys, s->exec, NULL);
  ok = ok && nccl_plan_build(&pl, comm, coll, bytes, choice, error);
  if (ok) {
    guint64 need = plan_need(&pl);

    s->need += need;
    call = g_new0(SessionCall, 1);
    call->s = s;
    call->need = need;
    call->fn = spec->done;
    call->ctx = spec->ctx;
    call->user = spec->user;
    session_exec(s, &pl, spec->after, spec->n_after, call, done);
  }
  nccl_plan_clear(&pl);
  return ok;
}

gboolean nccl_session_run(NcclSession *s, NcclRunStats *out, GError **error)
{
  SimDagStats ds;
  gboolean ok;

  SimRunStatus st = sim_engine_run(s->engine);

  if (st == SIM_RUN_INTERRUPTED)
    ok = sim_interrupt_check(error);
  else if (st == SIM_RUN_OVERFLOW) {
    char at[SIM_TIME_FORMAT_LEN];

    g_set_error(error, COLL_ERROR, COLL_ERROR_VALUE,
                "the simulated time passed 2^62 ps (53 days; at %s when a "
                "step went past it): a size or compute time longer than any "
                "collective or training step, which ifsim does not simulate",
                sim_time_format(sim_engine_now(s->engine), at));
    ok = FALSE;
  } else
    ok = sim_dag_check_finished(s->dag, sim_engine_now(s->engine), error);
  if (!ok)
    return FALSE;
  sim_dag_stats(s->dag, &ds);
  if (out) {
    memset(out, 0, sizeof(*out));
    out->time_ps = ds.last_done;
    out->pace_ps = ds.last_done;
    out->transfers = s->transfers;
    out->tasks = ds.added;
    out->peak_tasks = ds.peak_alive;
    out->wall_s = (double)(g_get_monotonic_time() - s->t0) / 1e6;
  }
  return TRUE;
}

/* Whether an AllToAll runs in closed form (nccl_plan_alltoall_closed):
 * from NCCL_ALLTOALL_CLOSED_RANKS ranks, on the flow transport, with
 * nothing that needs its transfers (a transfer trace, a transport to
 * inspect) and none of the faults that break the symmetry its bound was
 * tested on (elements down, slow or lossy links, stragglers: any applied,
 * topo_system_fault_origin). */
static gboolean alltoall_closed(const NcclComm *comm, NcclColl coll,
                                NcclExec exec, gboolean inspect)
{
  guint32 from = comm->opt.alltoall_closed_ranks
                     ? comm->opt.alltoall_closed_ranks
                     : NCCL_ALLTOALL_CLOSED_RANKS;

  return coll == NCCL_COLL_ALLTOALL && exec == NCCL_EXEC_FLOW && !inspect &&
         !(comm->opt.trace &&
           (comm->opt.trace->attach || comm->opt.trace->transfer)) &&
         !comm->opt.no_alltoall_closed && comm->nranks >= from &&
         topo_system_fault_origin(comm->sys)[0] == '\0';
}

gboolean nccl_run(const NcclComm *comm, NcclColl coll, guint64 bytes,
                  const NcclChoice *choice, NcclExec exec,
                  NcclInspectFn inspect, void *inspect_ctx, NcclRunStats *out,
                  GError **error)
{
  NcclPlan pl = {0};
  NcclExecution x = {.pl = &pl, .want_pace = TRUE};
  g_autoptr(NcclSession) s = NULL;
  gboolean ok = FALSE;
  gint64 t0 = g_get_monotonic_time();

  if (alltoall_closed(comm, coll, exec, inspect != NULL)) {
    SimTime t;

    if (!nccl_plan_alltoall_closed(comm, bytes, choice, &t, error))
      return FALSE;
    memset(out, 0, sizeof(*out));
    out->time_ps = out->pace_ps = t;
    out->closed_form = TRUE;
    out->wall_s = (double)(g_get_monotonic_time() - t0) / 1e6;
    return TRUE;
  }
  plan_shortcuts(&pl, comm, exec, comm->opt.trace && comm->opt.trace->transfer);
  pl.mem_base = packet_need(comm->sys, exec, NULL);
  if (!check_memory(comm, coll, MAX(choice->channels, 1), pl.fold, exec, error))
    return FALSE;
  if (!nccl_plan_build(&pl, comm, coll, bytes, choice, error))
    goto out;
  s = nccl_session_new(comm->sys, exec, comm->opt.packet_sample_ps);
  s->t0 = t0;
  transport_shortcuts(s, comm);
  x.dag = s->dag;
  if (comm->opt.trace && comm->opt.trace->attach)
    comm->opt.trace->attach(comm->opt.trace->ctx, s->engine, s->tr);
  if (comm->opt.trace && comm->opt.trace->transfer) {
    x.trace = comm->opt.trace;
  }
  /* the plan (its paths, its edges for the trace) lives through the run */
  nccl_execution_build(&x);
  s->transfers += x.transfers;
  ok = nccl_session_run(s, out, error);
  if (ok) {
    out->pace_ps = nccl_execution_pace(&x, out->time_ps);
    out->stall_prob = pl.stall_prob;
  }
  if (ok && inspect)
    inspect(inspect_ctx, s->tr, out->time_ps);
out:
  nccl_execution_clear(&x);
  nccl_plan_clear(&pl);
  return ok;
}

static gboolean session_check_memory(NcclSession *s, GError **error)
{
  g_autofree char *what = g_strdup_printf(
      "the collective calls in flight at once (call %" G_GUINT64_FORMAT ")",
      s->calls + 1);

  return check_need(s->sys, s->need, s->exec, what,
                    "8 KiB per edge of each call's plan", error);
}
