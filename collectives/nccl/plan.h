/* A collective call planned as NCCL's kernels run it: internal to
 * collectives/nccl (plan.c builds it, exec.c turns it into a DAG,
 * session.c owns both).
 *
 * Every algorithm is a set of channels; each channel is a graph of edges
 * (one rank's connection to another: a ring link, a tree edge, a GPU's
 * NVLink to the NVSwitches) that each carry a known number of bytes, as a
 * pipeline: NCCL cuts the data into slices that follow one another through
 * the graph.  The plan records the edges with their routes over the fabric
 * and bytes, and the head hops (the first slice of every edge, in the order
 * data reaches it) with the hops each waits for; exec.c gives them time. */
#ifndef COLLECTIVES_NCCL_PLAN_H
#define COLLECTIVES_NCCL_PLAN_H

#include <math.h>

#include "collectives/nccl/nccl_internal.h"
#include "sim/dag.h"
#include "sim/fabric.h"

typedef struct {
  guint32 first_path, n_paths; /* into NcclPlan.paths / NcclPlan.weights */
  guint64 bytes;               /* payload the edge carries in all */
  guint64 head_bytes;          /* of which the head hops carry (exec.c) */
  guint64 visit_bytes;         /* what one step moves over it */
  gboolean eager;              /* its body has data from the start (every
                                  ring rank sends its own chunk first) */
  guint32 body_steps;          /* protocol steps its body pays latency for */
  SimTime step_ps;             /* protocol latency per step on it */
  guint32 upstream;            /* the edge feeding it, or SIM_NONE */
  guint32 channel;
  guint32 src, dst; /* ranks, SIM_NONE for a switch (trace hooks) */
  guint32 lanes;    /* channels it stands for, each at the channel
                       cap: a p2p pair's channels share its route (0:
                       one) */
  guint32 copies;   /* alike channels folded into it (0: one): each
                       moves the edge's bytes over its paths at its cap,
                       a transfer of that many copies (SimTransfer) */
  guint64 slice;    /* its pipeline slice (0: the plan's) */
  gboolean shm;     /* through host memory (NCCL's SHM transport) */
  gboolean proxied; /* a net connection the ranks' proxy threads progress */
  guint8 down;      /* a tree edge of the broadcast down (1), not the
                       reduction up (0) */
  double cap_Bps;   /* payload per channel where below the plan's (0: the
                       plan's cap_Bps) */
  double resend;    /* wire bytes sent per byte delivered over lossy links
                       (go-back-N; plan.c lossy_caps); 0: none */
  /* exec.c's, as it builds the DAG (the plan leaves them empty) */
  SimTask first_head; /* the first head hop over it */
  SimTask *rounds;    /* [rounds] body transfers (up to NCCL_EXEC_MAX_ROUNDS) */
} NcclEdge;

typedef struct {
  guint32 edge;       /* SIM_NONE: a join, no transfer */
  guint32 first_pred; /* into NcclPlan.preds: earlier hops it waits for */
  guint32 n_pred;
  SimTask task; /* exec.c's: the hop's DAG task */
} NcclHop;

/* A path set of the plan: paths first .. first + n - 1, computed for
 * `key` (route_ranks). */
typedef struct {
  guint32 first, n;
  gint64 key;
} NcclRoute;

/* Where a channel's edges, hops and preds lie in the plan's arrays. */
typedef struct {
  guint32 edges, n_edges, hops, n_hops, preds, n_preds, paths, routes;
} NcclChannelSpan;

typedef struct {
  const NcclComm *comm;
  const TopoSystem *sys;
  const SimFabric *fabric;
  NcclColl coll;
  NcclAlgo algo;
  NcclProto proto;
  guint32 channels;
  guint64 bytes;
  double inflate;       /* wire bytes per payload byte of the protocol */
  double cap_Bps;       /* payload per channel, per edge */
  guint64 slice;        /* payload of a pipeline slice */
  SimTime base_ps;      /* launch latency */
  GArray *paths;        /* SimPath */
  GArray *weights;      /* double */
  GArray *edges;        /* NcclEdge */
  GArray *hops;         /* NcclHop */
  GArray *preds;        /* guint32 hop indices */
  GHashTable *route_of; /* (src, dst, rail) -> index in routes + 1 */
  GArray *routes;       /* NcclRoute: the path sets computed so far */
  gboolean one_way;     /* Send/Recv: rank 0 to rank 1 only */
  gboolean fold;        /* fold alike channels (set before building) */
  gboolean whole;       /* exec.c: an uncoupled edge's body in one transfer
                           (set before executing) */
  guint64 mem_base;     /* memory in use beside the plan's run, bytes (set
                           before building; plan_memory_check) */
  GArray *classes;      /* NcclChannelSpan: the channels kept, folded */
  double stall_prob;    /* lossy links: the chance that a lost packet no
                           other follows stalls the call for a
                           retransmission timeout (plan.c lossy_caps) */
  guint32 stream_base;  /* exec.c: its edges' DAG streams start here */
  /* The network connections each rank's proxy thread and socket thread
   * serve, counted over the whole call where the plan holds only part of
   * it (nccl_plan_alltoall_closed); NULL: counted over the plan's edges.
   * [rank]: sends, receives; [2 rank + down] for the proxy's. */
  const guint32 *given_conns, *given_sends, *given_recvs;
} NcclPlan;

/* A run's peak memory per plan edge, with room: from `ifsim run`
 * (Release, folded) on DGX H100 fat-trees of 4096 GPUs, 1 GiB, less the
 * run's 33 MB without a plan: 2.6 KB per edge for NVLSTree, 3.2 KB for
 * Tree, 4.2 KB for Ring (AllReduce, AllGather); AllToAll (an edge per pair
 * of ranks) 0.8 KB on 128 ranks of the RoCE example.  Checked as the plan
 * grows (plan.c plan_memory_check). */
#define NCCL_RUN_BYTES_PER_EDGE (8u << 10)

/* The most rounds exec.c cuts an edge's body into. */
#define NCCL_EXEC_MAX_ROUNDS 8

/* The rounds exec.c cuts a body of `body` bytes into, moving at `rate_Bps`
 * a lane on `lanes` lanes over a path of latency `lat`: about as many as
 * make their per-transfer latencies 1% of the body's time, rounded up, 1
 * to NCCL_EXEC_MAX_ROUNDS (rounded down, a ring whose count went from 1
 * to 3 as its size grew came out faster at the larger size, its body's
 * last round, which waits for its share of the step latencies, a third as
 * long).  The AllToAll closed form (plan.c) takes the same count. */
static inline guint32 nccl_exec_rounds(guint64 body, double rate_Bps,
                                       guint32 lanes, SimTime lat)
{
  double t_body = (double)body / (rate_Bps * MAX(lanes, 1)) * 1e12;

  if (lat == 0)
    return 1;
  return (guint32)CLAMP(ceil(t_body * 0.01 / (double)lat), 1,
                        NCCL_EXEC_MAX_ROUNDS);
}

/* Whether a plan is a chain: NCCL's ring cut open at the root, which
 * Broadcast and Reduce run (plan.c plan_ring; exec.c times its calls back
 * to back by it). */
static inline gboolean nccl_plan_chain(const NcclPlan *pl)
{
  return pl->algo == NCCL_ALGO_RING &&
         (pl->coll == NCCL_COLL_BROADCAST || pl->coll == NCCL_COLL_REDUCE);
}

/* The channel's share of n bytes: whole bytes, the first channels taking
 * the remainder. */
static inline guint64 nccl_share(guint64 n, guint32 parts, guint32 i)
{
  return n / parts + (i < n % parts ? 1 : 0);
}

/* Plans a call: fills pl (zeroed but for one_way and fold) with its edges
 * and hops, the protocol's inflation, the channel cap, the pipeline slice
 * and the launch latency.  With fold, a channel whose edges and hops are
 * an earlier channel's (the same ranks, paths, bytes, caps and latencies,
 * in the same order) is not kept: the earlier one's edges count it in
 * their copies.  Fails when the choice cannot run here (a route
 * missing, an NVLS GPU without an NVSwitch, ...); nccl_plan_clear frees
 * what was built either way. */
gboolean nccl_plan_build(NcclPlan *pl, const NcclComm *comm, NcclColl coll,
                         guint64 bytes, const NcclChoice *choice,
                         GError **error);
void nccl_plan_clear(NcclPlan *pl);

/* An AllToAll in closed form (docs/transports.md): every pair of ranks
 * planned as nccl_plan_build plans it, a source node's pairs at a time,
 * each pair's edge read and forgotten.  The call takes the launch, then
 * the longest latency chain of an edge (its step latency, its path's
 * latency for the head and for each body round, as exec.c gives them)
 * followed by the busiest channel's bytes (wire bytes over all pairs, at
 * the channel's rate), or the pair that ends last at its own cap after
 * its own latency chain, if that is later: the flow transport's makespan
 * when every pair starts at once and the busiest channel stays busy.  Its
 * memory is a node's pairs and a load a channel.  Fails as
 * nccl_plan_build does. */
gboolean nccl_plan_alltoall_closed(const NcclComm *comm, guint64 bytes,
                                   const NcclChoice *choice, SimTime *time_ps,
                                   GError **error);

#endif /* COLLECTIVES_NCCL_PLAN_H */
