/* Planning a collective as NCCL's kernels run it, and executing the plan
 * over a transport.
 *
 * Every algorithm is a set of channels; each channel is a graph of edges
 * (one rank's connection to another: a ring link, a tree edge, a GPU's
 * NVLink to the NVSwitches) that each carry a known number of bytes, as a
 * pipeline: NCCL cuts the data into slices that follow one another through
 * the graph.  ifsim executes that pipeline as
 *
 *   - a head: the first slice of every edge, in the order data reaches
 *     it (2(n-1) hops round a ring for AllReduce, up then down a tree), each
 *     hop waiting for its predecessor and NCCL's per-step latency for the
 *     protocol and link class (tuning.cc hwLatencies): for small sizes this
 *     chain is the whole operation;
 *   - a body: the rest of each edge's bytes in a few rounds that start once
 *     the head has crossed the edge; round m of an edge also waits for round
 *     m-1 of the edge feeding it, so a slow edge slows the edges
 *     downstream as a full pipeline does.
 *
 * Transfers carry the protocol's wire format (LL: 8-byte lines with 4 bytes
 * of data; LL128: 120 of 128 bytes) and each channel's transfers are
 * capped at the bandwidth NCCL's model gives one channel of the algorithm
 * and protocol (what its SMs and protocol achieve on an idle link); the
 * fabric decides the rest (NVLink, PCIe, NIC, network sharing, routing). */
#include <math.h>
#include <string.h>

#include "collectives/nccl/nccl_internal.h"
#include "models/params.h"
#include "models/registry.h"
#include "sim/dag.h"
#include "sim/engine.h"
#include "sim/interrupt.h"
#include "sim/memory.h"
#include "sim/packet.h"
#include "sim/transport.h"

#define MAX_ROUNDS 8

static SimTime us_ps(double us)
{
  return (SimTime)llround(us * (double)SIM_PS_PER_US);
}

/* --- communicator -------------------------------------------------------- */

static double link_GBps(const MdlLink *l)
{
  return l ? mdl_link_rate_Bps(l) / 1e9 : 0;
}

/* Checks a list of distinct indices below `limit`; `what` names it. */
static gboolean check_indices(const guint32 *v, guint32 n, guint32 limit,
                              const char *what, GError **error)
{
  g_autofree guint8 *seen = g_new0(guint8, limit);

  for (guint32 i = 0; i < n; i++) {
    if (v[i] >= limit) {
      g_set_error(error, MDL_ERROR, MDL_ERROR_VALUE,
                  "%s: %u is not below the system's %u", what, v[i], limit);
      return FALSE;
    }
    if (seen[v[i]]++) {
      g_set_error(error, MDL_ERROR, MDL_ERROR_VALUE,
                  "%s: %u appears twice (each once)", what, v[i]);
      return FALSE;
    }
  }
  return TRUE;
}

/* The servers and GPUs of the communicator: opt's lists, or the first
 * `ranks` GPUs, servers in order. */
static gboolean comm_place(NcclComm *c, guint32 g, guint32 servers,
                           GError **error)
{
  guint32 total = g * servers;

  if (c->opt.servers || c->opt.local_gpus) {
    if (!c->opt.servers || !c->opt.local_gpus || c->opt.n_servers == 0 ||
        c->opt.n_local == 0) {
      g_set_error(error, MDL_ERROR, MDL_ERROR_VALUE,
                  "a communicator's GPUs need both its servers and their "
                  "GPUs");
      return FALSE;
    }
    if (!check_indices(c->opt.servers, c->opt.n_servers, servers, "servers",
                       error) ||
        !check_indices(c->opt.local_gpus, c->opt.n_local, g, "GPUs of a server",
                       error))
      return FALSE;
    c->nnodes = c->opt.n_servers;
    c->ppn = c->opt.n_local;
    c->nranks = c->nnodes * c->ppn;
    if (c->nranks < 2 || (c->opt.ranks && c->opt.ranks != c->nranks)) {
      g_set_error(error, MDL_ERROR, MDL_ERROR_VALUE,
                  "ranks: %u servers of %u GPUs make %u ranks (expected at "
                  "least 2%s)",
                  c->nnodes, c->ppn, c->nranks,
                  c->opt.ranks ? ", and as many as asked" : "");
      return FALSE;
    }
    c->server_of = g_memdup2(c->opt.servers, c->nnodes * sizeof(guint32));
    c->local_of = g_memdup2(c->opt.local_gpus, c->ppn * sizeof(guint32));
  } else {
    c->nranks = c->opt.ranks ? c->opt.ranks : total;
    if (c->nranks < 2 || c->nranks > total) {
      g_set_error(error, MDL_ERROR, MDL_ERROR_VALUE,
                  "ranks: %u is not between 2 and the system's %u GPUs (%u "
                  "servers of %u)",
                  c->nranks, total, servers, g);
      return FALSE;
    }
    if (c->nranks > g && c->nranks % g != 0) {
      g_set_error(error, MDL_ERROR, MDL_ERROR_VALUE,
                  "ranks: %u does not fill whole servers of %u GPUs (one rank "
                  "per GPU, servers in order)",
                  c->nranks, g);
      return FALSE;
    }
    c->ppn = MIN(c->nranks, g);
    c->nnodes = c->nranks / c->ppn;
    c->server_of = g_new(guint32, c->nnodes);
    c->local_of = g_new(guint32, c->ppn);
    for (guint32 k = 0; k < c->nnodes; k++)
      c->server_of[k] = k;
    for (guint32 i = 0; i < c->ppn; i++)
      c->local_of[i] = i;
  }
  /* the lists are the communicator's own now */
  c->opt.servers = c->server_of;
  c->opt.local_gpus = c->local_of;
  c->opt.n_servers = c->nnodes;
  c->opt.n_local = c->ppn;
  return TRUE;
}

/* The NICs a node's ranks reach the network by: all of the server's when
 * it has all of its GPUs (NCCL's search may route rings through any), else
 * each GPU's nearest. */
static guint32 comm_nics(const NcclComm *c)
{
  g_autofree guint8 *used = g_new0(guint8, c->gpu.nics);
  guint32 n = 0;

  if (c->ppn == topo_system_gpus_per_server(c->sys))
    return c->gpu.nics;

  for (guint32 i = 0; i < c->ppn; i++) {
    guint32 nic = topo_gpu_nic(c->sys, c->local_of[i]);

    if (nic < c->gpu.nics && !used[nic]++)
      n++;
  }
  return n;
}

/* The speed NCCL's ring search gives a channel through one NIC port: the
 * port's, or the PCIe links' between the GPU and the NIC if slower. */
static double search_GBps(const NcclComm *c, const MdlLink *port)
{
  const MdlRegistry *models = topo_system_models(c->sys);
  double s = link_GBps(port);

  if (c->gpu.nic->host_link) {
    const MdlLink *h = mdl_registry_link(models, c->gpu.nic->host_link);

    if (h)
      s = MIN(s, link_GBps(h));
  }
  if (c->gpu.gpu_pcie)
    s = MIN(s, link_GBps(c->gpu.gpu_pcie));
  return s;
}

/* NCCL's ring search inside an NVLink node (search.cc ncclTopoCompute):
 * from the fastest speed of the architecture's list that a GPU's NVLinks
 * carry, as many channels as fit at that speed, keeping a slower speed
 * only if it moves more in all (at most 16 channels); channels of 25 GB/s
 * and more are then doubled at half the speed.  A DGX A100 (240 GB/s): 6
 * at 40, 12 at 20; a DGX H100 (370.8): 6 at 60, 12 at 30; a B200 (721.8):
 * 8 at 90, 16 at 45.  Returns the channels, *speed their GB/s each. */
static guint32 nvlink_search(const NcclComm *c, double *speed)
{
  static const double ampere[] = {40, 30, 20, 18, 15, 12, 10,
                                  9,  7,  6,  5,  4,  3,  0};
  static const double hopper[] = {60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3, 0};
  static const double blackwell[] = {90, 80, 70, 60, 50, 45, 40,
                                     30, 24, 20, 19, 18, 0};
  const double *s = c->gpu.sm >= 100  ? blackwell
                    : c->gpu.sm >= 90 ? hopper
                                      : ampere;
  guint32 best = 0;
  double best_speed = 0;

  for (; *s > 0; s++) {
    guint32 n = MIN((guint32)(c->gpu_GBps / *s), NCCL_MAX_CHANNELS / 2);

    if (*s <= c->gpu_GBps && n * *s > best * best_speed) {
      best = n;
      best_speed = *s;
    }
  }
  if (best == 0) {
    best = 1;
    best_speed = c->gpu_GBps;
  }
  if (best_speed >= 25 && best < NCCL_MAX_CHANNELS / 2) {
    guint32 dup = MIN(2 * best, NCCL_MAX_CHANNELS / 2);

    best_speed /= (dup + best - 1) / best;
    best = dup;
  }
  *speed = best_speed;
  return best;
}

NcclComm *nccl_comm_new(const TopoSystem *sys, const NcclOptions *opt,
                        GError **error)
{
  NcclComm *c = g_new0(NcclComm, 1);
  guint32 g = topo_system_gpus_per_server(sys);
  const MdlRegistry *models = topo_system_models(sys);
  guint32 nics = 0;
  double net_GBps = 0; /* a node's NICs together, across nodes */

  c->sys = sys;
  if (opt)
    c->opt = *opt;
  topo_system_gpu_info(sys, &c->gpu);
  if (!comm_place(c, g, topo_system_servers(sys), error))
    goto fail;
  c->arch = c->gpu.sm >= 100  ? NCCL_ARCH_BLACKWELL
            : c->gpu.sm >= 90 ? NCCL_ARCH_HOPPER
            : c->gpu.sm >= 80 ? NCCL_ARCH_AMPERE
                              : NCCL_ARCH_VOLTA;
  c->nvl_intra = c->gpu.nvlink != NULL && c->gpu.nvlinks > 0;
  if (c->nvl_intra) {
    double speed;

    c->gpu_GBps = c->gpu.nvlinks * nccl_nvlink_GBps(c->gpu.sm);
    c->channels = nvlink_search(c, &speed);
    c->bw_intra = speed;
    c->kernel_channels = MIN(2 * c->channels, NCCL_MAX_CHANNELS);
  } else {
    /* topo.h: PCI_BW 12 GB/s for Gen3 x16 (15.75 GB/s of data); later
     * generations and widths scale with the link's data rate. */
    c->gpu_GBps = link_GBps(c->gpu.gpu_pcie) * 12.0 / 15.75;
    c->channels = c->kernel_channels = 2;
    c->bw_intra = c->gpu_GBps / c->channels;
  }
  c->bw_inter = c->bw_intra;
  if (c->nnodes > 1) {
    const MdlLink *port = NULL;

    if (!c->gpu.nic || c->gpu.nics == 0 ||
        topo_system_net(sys) == TOPO_NET_NONE) {
      g_set_error(error, MDL_ERROR, MDL_ERROR_CONFLICT,
                  "ranks: %u ranks span %u servers, but the system has no "
                  "NICs or no scale-out network",
                  c->nranks, c->nnodes);
      goto fail;
    }
    port = mdl_registry_link(models, c->gpu.nic->port_link);
    c->nic_GBps = link_GBps(port) * MAX(c->gpu.nic->ports, 1);
    /* Across nodes NCCL's ring search (ncclTopoCompute) gives each NIC one
     * channel at its bandwidth (the NIC's or its PCIe link's, 24 GB/s for
     * HDR, 48 for NDR) and ncclTopoPostset doubles the channels: two per
     * NIC, 16 on a DGX with 8 NICs, whatever its NVLinks.  Every NIC then
     * carries as many (a DGX A100's 12 NVLink channels left 4 of its 8
     * NICs with one: 149 GB/s of busbw for 2 nodes, where NCCL's 16 reach
     * 192).  On Hopper and later, with channels above 45 GB/s (NDR and
     * faster) and fewer than 16, ncclTopoPostset doubles them again ("4
     * compute channels per search channel to reach peak BW on <8 PPN"):
     * a group of one H100 per node runs 4. */
    nics = comm_nics(c);
    net_GBps = nics * c->nic_GBps;
    c->channels = CLAMP(2 * nics * MAX(c->gpu.nic->ports, 1), 2, 32);
    if (c->gpu.sm >= 90 && search_GBps(c, port) > 45.0 && c->channels < 16)
      c->channels *= 2;
    c->kernel_channels = c->channels;
    c->bw_intra = c->gpu_GBps / c->channels;
    c->bw_inter = MIN(c->bw_intra, net_GBps / c->channels);
  }
  /* NCCL_NVLS_NCHANNELS: 16 by default; the NVLS graph's bandwidths per
   * channel, whatever the rings' channels */
  c->nvls_channels = c->gpu.nvls && c->nvl_intra && c->ppn > 1 ? 16 : 0;
  if (c->nvls_channels) {
    c->nvls_bw_intra = c->gpu_GBps / c->nvls_channels;
    c->nvls_bw_inter = c->nnodes > 1
                           ? MIN(c->nvls_bw_intra, net_GBps / c->nvls_channels)
                           : c->nvls_bw_intra;
  }
  c->collnet = c->opt.collnet && c->gpu.sharp && c->nnodes > 1;
  c->pat = c->ppn == 1 && c->nnodes > 1;
  nccl_tune(c);
  return c;
fail:
  nccl_comm_free(c);
  return NULL;
}

void nccl_comm_free(NcclComm *comm)
{
  if (!comm)
    return;
  g_free(comm->server_of);
  g_free(comm->local_of);
  g_free(comm);
}

guint32 nccl_comm_ranks(const NcclComm *comm)
{
  return comm->nranks;
}

guint32 nccl_comm_nodes(const NcclComm *comm)
{
  return comm->nnodes;
}

guint32 nccl_comm_rank_server(const NcclComm *comm, guint32 r)
{
  return comm->server_of[r / comm->ppn];
}

guint32 nccl_comm_rank_local(const NcclComm *comm, guint32 r)
{
  return comm->local_of[r % comm->ppn];
}

SimNodeId nccl_comm_rank_gpu(const NcclComm *comm, guint32 r)
{
  return topo_gpu(comm->sys, nccl_comm_rank_server(comm, r),
                  nccl_comm_rank_local(comm, r));
}

/* --- plans --------------------------------------------------------------- */

typedef struct {
  guint32 first_path, n_paths; /* into Plan.paths / Plan.weights */
  guint64 bytes;               /* payload the edge carries in all */
  guint64 head_bytes;          /* of which the head hops carry */
  guint64 visit_bytes;         /* what one step moves over it */
  gboolean eager;              /* its body has data from the start (every
                                  ring rank sends its own chunk first) */
  guint32 body_steps;          /* protocol steps its body pays latency for */
  SimTime step_ps;             /* protocol latency per step on it */
  guint32 upstream;            /* the edge feeding it, or SIM_NONE */
  guint32 channel;
  guint32 src, dst;   /* ranks, SIM_NONE for a switch (trace hooks) */
  guint32 lanes;      /* channels it stands for, each at the channel
                         cap: a p2p pair's channels share its route (0:
                         one) */
  guint64 slice;      /* its pipeline slice (0: the plan's) */
  SimTask first_head; /* the first head hop over it */
  SimTask *rounds;    /* [MAX_ROUNDS] */
} Edge;

typedef struct {
  guint32 edge;       /* SIM_NONE: a join, no transfer */
  guint32 first_pred; /* into Plan.preds: earlier hops it waits for */
  guint32 n_pred;
  SimTask task;
} Hop;

/* A path set of the plan: paths first .. first + n - 1. */
typedef struct {
  guint32 first, n;
} Route;

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
  GArray *edges;        /* Edge */
  GArray *hops;         /* Hop */
  GArray *preds;        /* guint32 hop indices */
  GHashTable *route_of; /* (src, dst, rail) -> index in routes + 1 */
  GArray *routes;       /* Route: the path sets computed so far */
  gboolean one_way;     /* Send/Recv: rank 0 to rank 1 only */
  guint32 stream_base;  /* its edges' DAG streams start here */
} Plan;

static SimNodeId rank_gpu(const Plan *pl, guint32 r)
{
  return nccl_comm_rank_gpu(pl->comm, r);
}

/* The ECMP hash seed of a rank's connections: its GPU's index in the
 * system, so that two jobs' rank 0s do not hash alike. */
static guint32 rank_seed(const Plan *pl, guint32 r)
{
  return nccl_comm_rank_server(pl->comm, r) *
             topo_system_gpus_per_server(pl->sys) +
         nccl_comm_rank_local(pl->comm, r);
}

static guint32 rank_node(const Plan *pl, guint32 r)
{
  return r / pl->comm->ppn;
}

/* Appends a route's path set to the plan; returns its first path. */
static guint32 add_paths(Plan *pl, const SimPathSet *ps)
{
  guint32 first = pl->paths->len;

  for (guint32 i = 0; i < ps->n; i++) {
    g_array_append_val(pl->paths, ps->path[i]);
    g_array_append_val(pl->weights, ps->weight[i]);
  }
  return first;
}

/* a ++ b: every path of a followed by every path of b. */
static gboolean concat_sets(const SimPathSet *a, const SimPathSet *b,
                            SimPathSet *out, GError **error)
{
  out->n = 0;
  for (guint32 i = 0; i < a->n; i++) {
    for (guint32 j = 0; j < b->n; j++) {
      SimPath p = a->path[i];

      if (out->n == SIM_PATHSET_MAX || !sim_path_append(&p, &b->path[j])) {
        g_set_error(error, MDL_ERROR, MDL_ERROR_CONFLICT,
                    "a PXN route is longer than %u hops or %u paths",
                    SIM_PATH_MAX_HOPS, SIM_PATHSET_MAX);
        return FALSE;
      }
      out->weight[out->n] = a->weight[i] * b->weight[j];
      out->path[out->n++] = p;
    }
  }
  return TRUE;
}

/* The route from rank a to rank b as NCCL's connection takes it.  Inside a
 * node: NVLink (sprayed over the NVSwitches) or PCIe.  Across nodes the
 * channel's rail decides: the data goes over NVLink to the rank of the
 * destination node's rail GPU on this side (PXN) when the sender is not
 * it, and out through that GPU's NIC. */
static gboolean route_ranks(Plan *pl, guint32 a, guint32 b, guint32 rail,
                            guint32 *first, guint32 *n, GError **error)
{
  const NcclComm *c = pl->comm;
  guint64 key = ((guint64)a << 40) ^ ((guint64)b << 16) ^ rail;
  gpointer hit = g_hash_table_lookup(pl->route_of, &key);
  SimPathSet ps, tail, both;
  Route r;
  gint64 *k;

  if (hit) {
    r = g_array_index(pl->routes, Route, GPOINTER_TO_UINT(hit) - 1);
    *first = r.first;
    *n = r.n;
    return TRUE;
  }
  if (rank_node(pl, a) == rank_node(pl, b)) {
    if (!topo_route(pl->sys, rank_gpu(pl, a), rank_gpu(pl, b), rank_seed(pl, a),
                    NULL, &ps, error))
      return FALSE;
  } else {
    guint32 via = rank_node(pl, a) * c->ppn + rail % c->ppn;
    guint32 to = rank_node(pl, b) * c->ppn + rail % c->ppn;

    if (!topo_route(pl->sys, rank_gpu(pl, via), rank_gpu(pl, to), rail, NULL,
                    &tail, error))
      return FALSE;
    if (via == a) {
      ps = tail;
    } else {
      SimPathSet head;

      if (!topo_route(pl->sys, rank_gpu(pl, a), rank_gpu(pl, via),
                      rank_seed(pl, a), NULL, &head, error) ||
          !concat_sets(&head, &tail, &both, error))
        return FALSE;
      ps = both;
    }
    if (to != b) {
      SimPathSet last;

      if (!topo_route(pl->sys, rank_gpu(pl, to), rank_gpu(pl, b),
                      rank_seed(pl, b), NULL, &last, error) ||
          !concat_sets(&ps, &last, &both, error))
        return FALSE;
      ps = both;
    }
  }
  r.first = *first = add_paths(pl, &ps);
  r.n = *n = ps.n;
  g_array_append_val(pl->routes, r);
  k = g_new(gint64, 1);
  *k = (gint64)key;
  g_hash_table_insert(pl->route_of, k, GUINT_TO_POINTER(pl->routes->len));
  return TRUE;
}

/* NCCL's hardware latency of one step over an edge, less what the fabric
 * already charges (the path's own latency), never negative. */
static SimTime step_latency(const Plan *pl, gboolean inter, guint32 first)
{
  const NcclComm *c = pl->comm;
  guint32 hw =
      inter ? NCCL_HW_NET : (c->nvl_intra ? NCCL_HW_NVLINK : NCCL_HW_PCI);
  NcclAlgo a = pl->algo;
  double us;
  SimTime lat, fabric;

  if (inter && c->ppn == 1)
    a = NCCL_ALGO_TREE; /* tuning.cc: Tree's network latency at ppn 1 */
  us = nccl_hw_latency_us(hw, a, pl->proto);
  /* Inter-node rings pay the network post overhead at every step, three
   * times for Simple (tuning.cc: intraLat = max(intraLat, netOverhead)). */
  if (!inter && c->nnodes > 1 && pl->algo == NCCL_ALGO_RING)
    us = MAX(us,
             NCCL_NET_OVERHEAD_US * (pl->proto == NCCL_PROTO_SIMPLE ? 3 : 1));
  lat = us_ps(us);
  fabric = sim_path_latency_ps(pl->fabric,
                               &g_array_index(pl->paths, SimPath, first));
  return lat > fabric ? lat - fabric : 0;
}

/* Adds an edge from rank a to rank b on a channel carrying `bytes`. */
static gboolean add_edge(Plan *pl, guint32 a, guint32 b, guint32 channel,
                         guint32 rail, guint64 bytes, guint32 upstream,
                         guint32 *out, GError **error)
{
  Edge e = {.bytes = bytes,
            .visit_bytes = bytes,
            .upstream = upstream,
            .channel = channel,
            .src = a,
            .dst = b};

  if (!route_ranks(pl, a, b, rail, &e.first_path, &e.n_paths, error))
    return FALSE;
  e.step_ps =
      step_latency(pl, rank_node(pl, a) != rank_node(pl, b), e.first_path);
  *out = pl->edges->len;
  g_array_append_val(pl->edges, e);
  return TRUE;
}

/* Adds an edge over explicit paths (a GPU's links to its NVSwitches). */
static guint32 add_edge_paths(Plan *pl, const SimPathSet *ps, guint32 src,
                              guint32 dst, guint32 channel, guint64 bytes,
                              SimTime step_ps)
{
  Edge e = {.bytes = bytes,
            .visit_bytes = bytes,
            .upstream = SIM_NONE,
            .channel = channel,
            .src = src,
            .dst = dst,
            .step_ps = step_ps};

  e.first_path = add_paths(pl, ps);
  e.n_paths = ps->n;
  g_array_append_val(pl->edges, e);
  return pl->edges->len - 1;
}

/* Adds a head hop over `edge` after the hops in preds (SIM_NONE entries
 * are skipped). */
static guint32 add_hop_n(Plan *pl, guint32 edge, const guint32 *preds,
                         guint32 n)
{
  Hop h = {.edge = edge, .first_pred = pl->preds->len};

  for (guint32 i = 0; i < n; i++) {
    if (preds[i] != SIM_NONE) {
      g_array_append_val(pl->preds, preds[i]);
      h.n_pred++;
    }
  }
  g_array_append_val(pl->hops, h);
  return pl->hops->len - 1;
}

static guint32 add_hop(Plan *pl, guint32 edge, guint32 p0, guint32 p1)
{
  guint32 p[2] = {p0, p1};

  return add_hop_n(pl, edge, p, 2);
}

/* The channel's share of n bytes: whole bytes, the first channels taking
 * the remainder. */
static guint64 share(guint64 n, guint32 parts, guint32 i)
{
  return n / parts + (i < n % parts ? 1 : 0);
}

/* Ring order of channel c: every node's ranks in a rotation that starts at
 * the channel's rail GPU, nodes in order. */
static guint32 ring_rank(const Plan *pl, guint32 c, guint32 pos)
{
  guint32 ppn = pl->comm->ppn;
  guint32 node = pos / ppn, k = pos % ppn;

  return node * ppn + (c + k) % ppn;
}

/* Ring: AllReduce (2(n-1) steps of S/(n C) per channel), AllGather and
 * ReduceScatter (n-1 steps), Broadcast and Reduce (a chain from the root
 * carrying the whole channel share on n-1 links). */
static gboolean plan_ring(Plan *pl, GError **error)
{
  guint32 n = pl->comm->nranks;
  gboolean chain =
      pl->coll == NCCL_COLL_BROADCAST || pl->coll == NCCL_COLL_REDUCE;
  guint32 steps = pl->coll == NCCL_COLL_ALLREDUCE ? 2 * (n - 1) : n - 1;

  for (guint32 c = 0; c < pl->channels; c++) {
    guint64 sc = share(pl->bytes, pl->channels, c);
    guint64 per_link = chain ? sc : (guint64)((double)sc * steps / n);
    guint32 links = chain ? n - 1 : n;
    guint32 first = pl->edges->len;
    guint32 prev = SIM_NONE;

    for (guint32 i = 0; i < links; i++) {
      guint32 e;
      /* Reduce runs the chain towards the root: reversed positions. */
      guint32 a = chain && pl->coll == NCCL_COLL_REDUCE ? links - i : i;
      guint32 b =
          chain && pl->coll == NCCL_COLL_REDUCE ? links - i - 1 : (i + 1) % n;

      if (!add_edge(pl, ring_rank(pl, c, a), ring_rank(pl, c, b), c, c,
                    per_link, i ? first + i - 1 : (chain ? SIM_NONE : SIM_NONE),
                    &e, error))
        return FALSE;
    }
    if (!chain)
      g_array_index(pl->edges, Edge, first).upstream = first + links - 1;
    /* one step moves a chunk of S/(n C); Simple pipelines it in two
     * slices (chunkSteps / sliceSteps), LL and LL128 step by step */
    for (guint32 i = 0; i < links; i++) {
      Edge *e = &g_array_index(pl->edges, Edge, first + i);

      e->visit_bytes = chain ? sc : MAX(sc / n, 1);
      e->eager = !chain;
      /* each of the link's steps waits for the previous one's data and
       * pays NCCL's step latency (tuning.cc: nsteps x hwLat) */
      e->body_steps = chain ? 0 : steps;
    }
    /* The head: one slice crossing every step in order. */
    for (guint32 j = 0; j < (chain ? links : steps); j++)
      prev = add_hop(pl, first + j % links, prev, SIM_NONE);
  }
  return TRUE;
}

/* NCCL's binary tree over m nodes (trees.cc ncclGetBtree): the parent of
 * node r, or SIM_NONE for the root. */
static guint32 btree_parent(guint32 r, guint32 m)
{
  guint32 bit, up;

  if (r == 0)
    return SIM_NONE;
  for (bit = 1; bit < m; bit <<= 1) {
    if (bit & r)
      break;
  }
  up = (r ^ bit) | (bit << 1);
  if (up >= m)
    up = r ^ bit;
  return up;
}

/* The double binary tree (ncclGetDtree): the second tree is the first
 * shifted by one node (m even) or mirrored (m odd). */
static guint32 dtree_parent(guint32 r, guint32 m, guint32 which)
{
  guint32 x, p;

  if (which == 0)
    return btree_parent(r, m);
  x = m % 2 ? m - 1 - r : (r + m - 1) % m;
  p = btree_parent(x, m);
  if (p == SIM_NONE)
    return SIM_NONE;
  return m % 2 ? m - 1 - p : (p + 1) % m;
}

/* Depth of node r in tree `which` of m nodes (the root is 0). */
static guint32 dtree_depth(guint32 r, guint32 m, guint32 which)
{
  guint32 d = 0;

  for (guint32 x = r; dtree_parent(x, m, which) != SIM_NONE;
       x = dtree_parent(x, m, which))
    d++;
  return d;
}

/* One of NCCL's two binary trees of nodes (`which`) between the ranks
 * k * ppn + rail % ppn, every edge carrying `bytes` up (children before
 * parents) and then down (parents before children).  hop[k] comes in as
 * the hop after which node k's data is ready and goes out as the hop after
 * which its result has arrived.  in_edge (NULL: no body coupling) holds the
 * edge feeding each node and is updated as the up edges are added. */
static gboolean plan_node_tree(Plan *pl, guint32 c, guint32 which, guint32 rail,
                               guint64 bytes, guint32 *hop, guint32 *in_edge,
                               GError **error)
{
  guint32 m = pl->comm->nnodes, ppn = pl->comm->ppn, local = rail % ppn;
  g_autofree guint32 *order = g_new(guint32, m);
  guint32 n_order = 0;

  for (guint32 depth = 32; depth-- > 0;) {
    for (guint32 k = 0; k < m; k++) {
      if (dtree_depth(k, m, which) == depth)
        order[n_order++] = k;
    }
  }
  for (guint32 i = 0; i < n_order; i++) {
    guint32 k = order[i], p = dtree_parent(k, m, which), e;

    if (p == SIM_NONE)
      continue;
    if (!add_edge(pl, k * ppn + local, p * ppn + local, c, rail, bytes,
                  in_edge ? in_edge[k] : SIM_NONE, &e, error))
      return FALSE;
    hop[p] = add_hop(pl, e, hop[k], hop[p]);
    if (in_edge)
      in_edge[p] = e;
  }
  for (guint32 i = n_order; i-- > 0;) {
    guint32 k = order[i], p = dtree_parent(k, m, which), e;

    if (p == SIM_NONE)
      continue;
    if (!add_edge(pl, p * ppn + local, k * ppn + local, c, rail, bytes,
                  in_edge ? in_edge[p] : SIM_NONE, &e, error))
      return FALSE;
    hop[k] = add_hop(pl, e, hop[p], SIM_NONE);
  }
  return TRUE;
}

/* Tree AllReduce: per channel, a chain through each node's ranks (from
 * the rail GPU) and one of the two binary trees across nodes between the
 * chains' heads.  Every edge carries the channel's whole share up
 * (reduce) and down (broadcast). */
static gboolean plan_tree(Plan *pl, GError **error)
{
  guint32 m = pl->comm->nnodes, ppn = pl->comm->ppn;

  for (guint32 c = 0; c < pl->channels; c++) {
    guint64 sc = share(pl->bytes, pl->channels, c);
    guint32 which = c % 2;
    /* [node]: the hop that brings the node's data to its head (then its
     * result), and the edge feeding the head */
    g_autofree guint32 *hop = g_new(guint32, m);
    g_autofree guint32 *up_in = g_new(guint32, m);

    /* Chains inside nodes, leaf to head: rank ppn-1 ... 0 of the rotation */
    for (guint32 k = 0; k < m; k++) {
      guint32 prev = SIM_NONE, prev_edge = SIM_NONE;

      for (guint32 i = ppn - 1; i > 0; i--) {
        guint32 e;

        if (!add_edge(pl, ring_rank(pl, c, k * ppn + i),
                      ring_rank(pl, c, k * ppn + i - 1), c, c, sc, prev_edge,
                      &e, error))
          return FALSE;
        prev = add_hop(pl, e, prev, SIM_NONE);
        prev_edge = e;
      }
      hop[k] = prev;
      up_in[k] = prev_edge;
    }
    if (!plan_node_tree(pl, c, which, c, sc, hop, up_in, error))
      return FALSE;
    for (guint32 k = 0; k < m; k++) {
      guint32 prev = hop[k], prev_edge = SIM_NONE;

      for (guint32 i = 0; i + 1 < ppn; i++) {
        guint32 e;

        if (!add_edge(pl, ring_rank(pl, c, k * ppn + i),
                      ring_rank(pl, c, k * ppn + i + 1), c, c, sc, prev_edge,
                      &e, error))
          return FALSE;
        prev = add_hop(pl, e, prev, SIM_NONE);
        prev_edge = e;
      }
    }
  }
  return TRUE;
}

/* A GPU's NVLinks to its NVSwitches, weighted by width (or the reverse). */
static gboolean switch_paths(const Plan *pl, SimNodeId gpu, gboolean down,
                             SimPathSet *out, GError **error)
{
  guint32 n;
  const SimChannelId *outc = sim_fabric_out(pl->fabric, gpu, &n);
  double total = 0;

  out->n = 0;
  for (guint32 i = 0; i < n; i++) {
    const SimChannel *ch = sim_fabric_channel(pl->fabric, outc[i]);
    const SimNode *dst = sim_fabric_node(pl->fabric, ch->dst);

    if (dst->kind != TOPO_NODE_NVSWITCH || out->n == SIM_PATHSET_MAX)
      continue;
    out->path[out->n].n = 1;
    out->path[out->n].hop[0] = down ? sim_channel_reverse(outc[i]) : outc[i];
    out->weight[out->n++] = ch->rate_Bps;
    total += ch->rate_Bps;
  }
  if (out->n == 0) {
    g_set_error(error, MDL_ERROR, MDL_ERROR_CONFLICT,
                "NVLS: GPU %s has no NVLink to an NVSwitch",
                sim_fabric_node_name(pl->fabric, gpu));
    return FALSE;
  }
  for (guint32 i = 0; i < out->n; i++)
    out->weight[i] /= total;
  return TRUE;
}

/* NVLS inside each node: every GPU pushes its data into the NVSwitches
 * (multimem reductions pull each GPU's whole buffer, the owner stores its
 * reduced 1/ppn back) and takes the result back (multicast stores reach
 * every GPU): S (1 + 1/ppn) up and down for AllReduce, S (ppn-1)/ppn for
 * ReduceScatter (up) and AllGather (down).  With nodes > 1 (NVLSTree) each
 * channel's node heads also exchange their 1/ppn share over a tree of
 * NICs, as Tree does, between the two NVLS halves. */
static gboolean plan_nvls(Plan *pl, GError **error)
{
  const NcclComm *cm = pl->comm;
  guint32 ppn = cm->ppn, m = cm->nnodes;
  SimTime step =
      us_ps(nccl_hw_latency_us(NCCL_HW_NVLINK, pl->algo, NCCL_PROTO_SIMPLE));
  gboolean up = pl->coll != NCCL_COLL_ALLGATHER;
  gboolean down = pl->coll != NCCL_COLL_REDUCESCATTER;

  for (guint32 c = 0; c < pl->channels; c++) {
    guint64 sc = share(pl->bytes, pl->channels, c);
    guint64 vol = pl->coll == NCCL_COLL_ALLREDUCE
                      ? sc + sc / ppn
                      : (guint64)((double)sc * (ppn - 1) / ppn);
    /* NCCL's loop: a channel scatters one chunk to each of the node's
     * heads (a head per GPU) and each head reduces and multicasts its
     * own, so a switch edge moves a loop's worth of its volume at a time,
     * what the network moves as one chunk */
    guint64 loop =
        (guint64)MAX((double)vol * ppn * pl->slice / (double)MAX(sc, 1), 1.0);
    g_autofree guint32 *node_up = g_new(guint32, m);
    g_autofree guint32 *node_down = g_new(guint32, m);

    for (guint32 k = 0; k < m; k++) {
      g_autofree guint32 *ups = g_new(guint32, ppn);
      guint32 n_up = 0;

      for (guint32 i = 0; i < ppn && up; i++) {
        SimPathSet ps;
        guint32 e;

        if (!switch_paths(pl, rank_gpu(pl, k * ppn + i), FALSE, &ps, error))
          return FALSE;
        e = add_edge_paths(pl, &ps, k * ppn + i, SIM_NONE, c, vol, step);
        g_array_index(pl->edges, Edge, e).slice = loop;
        ups[n_up++] = add_hop(pl, e, SIM_NONE, SIM_NONE);
      }
      /* the switch has every GPU's slice: a join */
      node_up[k] = n_up ? add_hop_n(pl, SIM_NONE, ups, n_up) : SIM_NONE;
      node_down[k] = node_up[k];
    }
    if (m > 1) {
      /* NVLSTree: after the NVLS reduction each GPU holds 1/ppn of the
       * node's channel data and sends it through its own NIC up one of
       * the two binary trees of nodes (rail i to rail i), and takes the
       * result back down before the NVLS multicast */
      guint64 inter = MAX(sc / ppn, 1);
      guint32 which = c % 2;
      g_autofree guint32 *td = g_new(guint32, (gsize)m * ppn);

      for (guint32 i = 0; i < ppn; i++) {
        memcpy(&td[i * m], node_up, m * sizeof(guint32));
        if (!plan_node_tree(pl, c, which, i, inter, &td[i * m], NULL, error))
          return FALSE;
      }
      for (guint32 k = 0; k < m; k++) {
        g_autofree guint32 *all = g_new(guint32, ppn);

        for (guint32 i = 0; i < ppn; i++)
          all[i] = td[i * m + k];
        node_down[k] = add_hop_n(pl, SIM_NONE, all, ppn);
      }
    }
    for (guint32 k = 0; k < m; k++) {
      guint32 prev = node_down[k];

      for (guint32 i = 0; i < ppn && down; i++) {
        SimPathSet ps;
        guint32 e;

        if (!switch_paths(pl, rank_gpu(pl, k * ppn + i), TRUE, &ps, error))
          return FALSE;
        e = add_edge_paths(pl, &ps, SIM_NONE, k * ppn + i, c, vol,
                           up ? 0 : step);
        g_array_index(pl->edges, Edge, e).slice = loop;
        add_hop(pl, e, prev, SIM_NONE);
      }
    }
  }
  return TRUE;
}

/* CollNet (SHARP): inside each node the channel's data gathers at the
 * channel's NIC GPU (Direct: every GPU sends its 1/ppn share straight to
 * it; Chain: a chain as Tree's), goes up to the switches, which reduce it
 * and send the result back down, and spreads out again.  The network's
 * reduction is modelled as one round trip NIC -> first switch -> NIC. */
static gboolean plan_collnet(Plan *pl, GError **error)
{
  const NcclComm *cm = pl->comm;
  guint32 ppn = cm->ppn, m = cm->nnodes;
  gboolean direct = pl->algo == NCCL_ALGO_COLLNET_DIRECT;

  for (guint32 c = 0; c < pl->channels; c++) {
    guint64 sc = share(pl->bytes, pl->channels, c);

    for (guint32 k = 0; k < m; k++) {
      guint32 head = ring_rank(pl, c, k * ppn);
      guint32 gathered = SIM_NONE, e, up, back;
      guint32 rail_nic = topo_gpu_nic(pl->sys, cm->local_of[head % ppn]);
      SimNodeId nic = topo_nic(pl->sys, cm->server_of[k], rail_nic);
      SimPath net;
      SimPathSet ps = {.n = 1, .weight = {1.0}};
      guint32 peer = (k + 1) % m;

      for (guint32 i = 1; i < ppn; i++) {
        guint32 from = ring_rank(pl, c, k * ppn + i);
        guint32 to = direct ? head : ring_rank(pl, c, k * ppn + i - 1);

        if (!add_edge(pl, from, to, c, c, direct ? sc / ppn : sc, SIM_NONE, &e,
                      error))
          return FALSE;
        gathered = add_hop(pl, e, direct ? SIM_NONE : gathered, gathered);
      }
      /* up to the first network switch and back, as SHARP aggregates */
      if (!topo_route_network(pl->sys, nic,
                              topo_nic(pl->sys, cm->server_of[peer], rail_nic),
                              c, NULL, &net, error))
        return FALSE;
      ps.path[0].n = 1;
      ps.path[0].hop[0] = net.hop[0];
      up = add_edge_paths(
          pl, &ps, head, SIM_NONE, c, sc,
          us_ps(nccl_hw_latency_us(NCCL_HW_NET, pl->algo, NCCL_PROTO_SIMPLE)));
      up = add_hop(pl, up, gathered, SIM_NONE);
      ps.path[0].hop[0] = sim_channel_reverse(net.hop[0]);
      back = add_edge_paths(pl, &ps, SIM_NONE, head, c, sc, 0);
      back = add_hop(pl, back, up, SIM_NONE);
      for (guint32 i = 1; i < ppn; i++) {
        guint32 to = ring_rank(pl, c, k * ppn + i);
        guint32 from = direct ? head : ring_rank(pl, c, k * ppn + i - 1);

        if (!add_edge(pl, from, to, c, c, direct ? sc / ppn : sc, SIM_NONE, &e,
                      error))
          return FALSE;
        back = add_hop(pl, e, back, SIM_NONE);
      }
    }
  }
  return TRUE;
}

/* PAT (one GPU per node): AllGather / ReduceScatter in log2(n) rounds of
 * doubling distance, as Bruck's algorithm, each rank exchanging with the
 * rank 2^k away the data gathered so far. */
static gboolean plan_pat(Plan *pl, GError **error)
{
  guint32 n = pl->comm->nranks;

  for (guint32 c = 0; c < pl->channels; c++) {
    guint64 sc = share(pl->bytes, pl->channels, c);
    g_autofree guint32 *last = g_new(guint32, n);

    for (guint32 r = 0; r < n; r++)
      last[r] = SIM_NONE;
    for (guint32 dist = 1; dist < n; dist <<= 1) {
      guint32 blocks = MIN(dist, n - dist);
      g_autofree guint32 *now = g_new(guint32, n);

      for (guint32 r = 0; r < n; r++) {
        guint32 to = (r + n - dist) % n, e;

        if (!add_edge(pl, r, to, c, c, sc / n * blocks, SIM_NONE, &e, error))
          return FALSE;
        now[to] = add_hop(pl, e, last[r], last[to]);
      }
      memcpy(last, now, n * sizeof(guint32));
    }
  }
  return TRUE;
}

/* Send/Recv (rank r to r+1, as sendrecv_perf) and AllToAll (every rank to
 * every other, S/n each): NCCL's p2p transfers, Simple, spread over the
 * channels; all at once, so the fabric shares them. */
static gboolean plan_p2p(Plan *pl, GError **error)
{
  guint32 n = pl->comm->nranks;
  guint64 bytes = 0;

  /* What one pair carries: its part of every channel's share. */
  for (guint32 c = 0; c < pl->channels; c++) {
    guint64 sc = share(pl->bytes, pl->channels, c);

    bytes += pl->coll == NCCL_COLL_SENDRECV ? sc : sc / n;
  }
  /* A pair's channels all take the sender's route (across nodes through
   * its own NIC) with the same bytes and cap, and every pair has as many:
   * one transfer of all of them at `channels` caps gets what they would
   * together under max-min sharing, with 1/channels of the transfers (an
   * AllToAll has n^2 pairs). */
  for (guint32 r = 0; r < n; r++) {
    for (guint32 d = 1; d < n; d++) {
      guint32 e;

      if (pl->coll == NCCL_COLL_SENDRECV && (d > 1 || (pl->one_way && r > 0)))
        break;
      if (!add_edge(pl, r, (r + d) % n, 0, r % pl->comm->ppn, bytes, SIM_NONE,
                    &e, error))
        return FALSE;
      g_array_index(pl->edges, Edge, e).lanes = pl->channels;
      add_hop(pl, e, SIM_NONE, SIM_NONE);
    }
  }
  return TRUE;
}

/* --- execution ----------------------------------------------------------- */

typedef struct {
  Plan *pl;
  SimDag *dag;
  guint64 transfers;
  const SimTask *after; /* what the launch waits for */
  guint32 n_after;
  SimTask done; /* a join after the call's last tasks (want_done) */
  gboolean want_done;
  SimTaskFn done_fn; /* the join's completion function, context */
  void *done_ctx;
  const NcclTrace *trace; /* with a transfer hook, else NULL */
  GArray *traced;         /* Traced, by the tasks' user value */
} Exec;

/* A transfer the trace hook will see. */
typedef struct {
  guint32 edge;
  guint64 bytes;
  SimTime start;
} Traced;

static void traced_start(void *ctx, guint64 user, SimTime now)
{
  Exec *x = ctx;

  g_array_index(x->traced, Traced, user).start = now;
}

static void traced_done(void *ctx, guint64 user, SimTime now)
{
  Exec *x = ctx;
  const Traced *r = &g_array_index(x->traced, Traced, user);
  const Edge *e = &g_array_index(x->pl->edges, Edge, r->edge);

  x->trace->transfer(x->trace->ctx, e->src, e->channel, e->dst, r->bytes,
                     r->start, now);
}

/* With a transfer hook, has the task report `payload` bytes over e when
 * it ends. */
static void trace_task(Exec *x, const Edge *e, guint64 payload,
                       SimTaskSpec *spec)
{
  Traced r = {.edge = (guint32)(e - (const Edge *)(void *)x->pl->edges->data),
              .bytes = payload};

  if (!x->trace)
    return;
  spec->started = traced_start;
  spec->done = traced_done;
  spec->ctx = x;
  spec->user = x->traced->len;
  g_array_append_val(x->traced, r);
}

static SimTask add_transfer(Exec *x, const Edge *e, guint64 payload,
                            const SimTask *after, guint32 n_after,
                            guint32 stream)
{
  Plan *pl = x->pl;
  SimTaskSpec spec = {
      .bytes = (guint64)ceil((double)payload * pl->inflate),
      .paths = &g_array_index(pl->paths, SimPath, e->first_path),
      .weights = e->n_paths > 1
                     ? &g_array_index(pl->weights, double, e->first_path)
                     : NULL,
      .n_paths = e->n_paths,
      .cap_Bps = pl->cap_Bps * pl->inflate * MAX(e->lanes, 1),
      .stream = stream};

  x->transfers++;
  trace_task(x, e, payload, &spec);
  return sim_dag_add(x->dag, &spec, after, n_after);
}

static SimTask add_delay(Exec *x, SimTime d, const SimTask *after,
                         guint32 n_after)
{
  SimTaskSpec spec = {.delay_ps = d, .stream = SIM_NONE};

  return sim_dag_add(x->dag, &spec, after, n_after);
}

/* A join after everything of a built plan that nothing else of it waits
 * for: each edge's last round (its stream orders the earlier ones) and the
 * head hops no later hop waits for. */
static SimTask add_join(Exec *x, SimTask launch, guint32 rounds)
{
  Plan *pl = x->pl;
  Edge *edges = (Edge *)(void *)pl->edges->data;
  Hop *hops = (Hop *)(void *)pl->hops->data;
  g_autofree guint8 *waited = g_new0(guint8, pl->hops->len + 1);
  g_autoptr(GArray) last = g_array_new(FALSE, FALSE, sizeof(SimTask));

  g_array_append_val(last, launch);
  for (guint32 i = 0; i < pl->preds->len; i++)
    waited[g_array_index(pl->preds, guint32, i)] = 1;
  for (guint32 i = 0; i < pl->hops->len; i++)
    if (!waited[i])
      g_array_append_val(last, hops[i].task);
  for (guint32 i = 0; i < pl->edges->len; i++) {
    for (guint32 m = rounds; m-- > 0;) {
      if (edges[i].rounds[m] != SIM_TASK_NONE) {
        g_array_append_val(last, edges[i].rounds[m]);
        break;
      }
    }
  }
  SimTaskSpec spec = {
      .stream = SIM_NONE, .done = x->done_fn, .ctx = x->done_ctx};

  return sim_dag_add(x->dag, &spec, (const SimTask *)(const void *)last->data,
                     last->len);
}

/* Builds the DAG of a plan: the launch, the head hops, the body rounds. */
static void build_dag(Exec *x)
{
  Plan *pl = x->pl;
  Edge *edges = (Edge *)(void *)pl->edges->data;
  Hop *hops = (Hop *)(void *)pl->hops->data;
  SimTask launch = add_delay(x, pl->base_ps, x->after, x->n_after);
  guint32 rounds = 1;
  double rate = pl->cap_Bps > 0 ? pl->cap_Bps : 1e12;

  g_autoptr(GArray) after_a = g_array_new(FALSE, FALSE, sizeof(SimTask));

  for (guint32 i = 0; i < pl->hops->len; i++) {
    Hop *h = &hops[i];
    Edge *e;
    SimTask *after;
    guint32 n = 0;
    guint64 b;
    SimTask wait;

    g_array_set_size(after_a, h->n_pred + 1);
    after = (SimTask *)(void *)after_a->data;
    for (guint32 k = 0; k < h->n_pred; k++)
      after[n++] =
          hops[g_array_index(pl->preds, guint32, h->first_pred + k)].task;
    if (n == 0)
      after[n++] = launch;
    if (h->edge == SIM_NONE) {
      h->task = add_delay(x, 0, after, n);
      continue;
    }
    e = &edges[h->edge];
    /* Simple collectives pipeline a step in two slices; a p2p message
     * of up to a slice goes whole (one step, one flag) */
    b = MIN(MIN(e->slice ? e->slice : pl->slice,
                pl->proto == NCCL_PROTO_SIMPLE && pl->coll < NCCL_N_TUNED_COLLS
                    ? MAX(e->visit_bytes / 2, 1)
                    : e->visit_bytes),
            e->bytes - e->head_bytes);
    if (e->eager) {
      /* An eager edge's body carries all its bytes from the launch (each
       * ring rank sends its own chunk first, and every later step's data
       * follows in the same stream), so its head is only the first
       * slice's latency chain: NCCL's step latency, the path's and the
       * slice at the channel's rate.  A transfer here would move the
       * slice a second time, beside the body and at a cap of its own. */
      SimTaskSpec spec = {
          .delay_ps =
              e->step_ps +
              sim_paths_latency_ps(
                  pl->fabric, &g_array_index(pl->paths, SimPath, e->first_path),
                  e->n_paths) +
              (SimTime)ceil((double)b / rate * 1e12),
          .stream = SIM_NONE};

      /* a timeline shows the slice crossing the link, as a transfer */
      trace_task(x, e, b, &spec);
      h->task = sim_dag_add(x->dag, &spec, after, n);
      continue;
    }
    wait = e->step_ps ? add_delay(x, e->step_ps, after, n) : SIM_TASK_NONE;
    if (wait != SIM_TASK_NONE) {
      after[0] = wait;
      n = 1;
    }
    /* heads are ordered by their predecessors, not by the edge's stream:
     * a later lap's slice does not wait for the body */
    h->task = add_transfer(x, e, b, after, n, SIM_NONE);
    e->head_bytes += b;
    if (e->first_head == SIM_TASK_NONE)
      e->first_head = h->task;
  }
  /* Rounds: few enough that their per-transfer latency stays negligible
   * next to their bytes (under 1% of the body's time at the cap). */
  if (pl->edges->len > 0) {
    guint64 body = edges[0].bytes - edges[0].head_bytes;
    SimTime lat = sim_path_latency_ps(
        pl->fabric, &g_array_index(pl->paths, SimPath, edges[0].first_path));
    double t_body = (double)body / (rate * MAX(edges[0].lanes, 1)) * 1e12;

    if (lat > 0)
      rounds = (guint32)CLAMP(t_body * 0.01 / (double)lat, 1, MAX_ROUNDS);
  }
  for (guint32 m = 0; m < rounds; m++) {
    for (guint32 i = 0; i < pl->edges->len; i++) {
      Edge *e = &edges[i];
      guint64 body = e->bytes - MIN(e->bytes, e->head_bytes);
      guint64 b = share(body, rounds, m);
      SimTask after[2];
      guint32 n = 0;

      if (m == 0)
        e->rounds = g_new0(SimTask, rounds);
      if (b == 0)
        continue;
      after[n++] =
          e->first_head != SIM_TASK_NONE && !e->eager ? e->first_head : launch;
      if (m > 0 && e->upstream != SIM_NONE &&
          edges[e->upstream].rounds[m - 1] != SIM_TASK_NONE)
        after[n++] = edges[e->upstream].rounds[m - 1];
      if (e->body_steps) {
        SimTime d = e->step_ps * e->body_steps / rounds;

        if (d) {
          after[0] = add_delay(x, d, after, n);
          n = 1;
        }
      }
      e->rounds[m] = add_transfer(x, e, b, after, n, pl->stream_base + i);
    }
  }
  if (x->want_done)
    x->done = add_join(x, launch, rounds);
}

static void plan_clear(Plan *pl)
{
  if (pl->edges) {
    for (guint32 i = 0; i < pl->edges->len; i++)
      g_free(g_array_index(pl->edges, Edge, i).rounds);
    g_array_free(pl->edges, TRUE);
  }
  if (pl->hops)
    g_array_free(pl->hops, TRUE);
  if (pl->preds)
    g_array_free(pl->preds, TRUE);
  if (pl->paths)
    g_array_free(pl->paths, TRUE);
  if (pl->weights)
    g_array_free(pl->weights, TRUE);
  if (pl->routes)
    g_array_free(pl->routes, TRUE);
  if (pl->route_of)
    g_hash_table_destroy(pl->route_of);
}

/* Pipeline slices: NCCL's buffers (NCCL_BUFFSIZE 4 MiB, NCCL_STEPS 8) give
 * Simple 512 KiB steps, two per ring slice; LL's 256 KiB of data per
 * buffer 32 KiB per step; LL128's ~4.6 MiB of data 576 KiB per step. */
static guint64 slice_bytes(NcclAlgo a, NcclProto p)
{
  switch (p) {
  case NCCL_PROTO_LL: return 32 << 10;
  case NCCL_PROTO_LL128: return 576000;
  default: return a == NCCL_ALGO_RING ? 1 << 20 : 512 << 10;
  }
}

/* A calibration's efficiency of the protocol ([nccl] in a model file). */
static double proto_efficiency(const Plan *pl)
{
  const MdlNcclTuning *t = mdl_registry_nccl(topo_system_models(pl->comm->sys));

  switch (pl->proto) {
  case NCCL_PROTO_LL: return t->ll_efficiency;
  case NCCL_PROTO_LL128: return t->ll128_efficiency;
  default: return t->simple_efficiency;
  }
}

/* What one channel's NVLS stage moves across nodes (NVLSTree, and NVLS
 * with CollNet) next to one node's NVLS, for AllReduce.  NCCL's cost model
 * (2.28, tuning.cc) gives a channel the same bus bandwidth on any number
 * of nodes and turns it into algorithm bandwidth by nRanks / nSteps, that
 * is n / (2 (n - 1)) over every rank: NVLSTree runs at single-node NVLS's
 * bus bandwidth, not its algorithm bandwidth.  The published H100 runs
 * agree: 473.6 GB/s of bus bandwidth for NVLS on one node (nccl-tests#290),
 * 469.2 for NVLSTree on two (nccl-tests#309), where equal algorithm
 * bandwidth would give 507.  Before 2.28 the model kept the algorithm
 * bandwidth instead; 2.28 changed the conversion.  The kernel's warps show
 * where the time goes (a channel whose node has a tree parent gives 4 of
 * its 20 warps to the network's broadcast and has 6 and 5, not 8 and 7,
 * for the copies in and out of the NVLS buffer), but not by how much: the
 * model's figure is used. */
static double nvls_span_factor(const Plan *pl)
{
  const NcclComm *c = pl->comm;

  if (pl->coll != NCCL_COLL_ALLREDUCE || c->nnodes < 2 || c->ppn < 2)
    return 1.0;
  return ((double)c->nranks / (c->nranks - 1)) /
         ((double)c->ppn / (c->ppn - 1));
}

/* Bandwidth one channel of the algorithm moves per edge, bytes/s. */
static double channel_cap(const Plan *pl)
{
  const NcclComm *c = pl->comm;

  if (pl->coll >= NCCL_N_TUNED_COLLS) {
    /* p2p: Simple over NVLink/PCIe at the GPU's NCCL bandwidth shared by
     * the channels; across nodes the NIC limits */
    return c->gpu_GBps * 1e9 / pl->channels;
  }
  if (pl->algo == NCCL_ALGO_NVLS || pl->algo == NCCL_ALGO_NVLS_TREE)
    return c->gpu_GBps * nccl_nvls_efficiency(c->arch) * nvls_span_factor(pl) *
           1e9 / pl->channels;
  /* the graph's channel bandwidth, shared by the channels the kernel runs
   * for each of the graph's */
  return c->bus_ch[pl->coll][pl->algo][pl->proto] * 1e9 * c->channels /
         c->kernel_channels;
}

/* A run's peak memory, with room, from `ifsim run` (Release) on DGX H100
 * fat-trees: AllReduce, AllGather and Broadcast peak at 6 to 11 KB per
 * rank and channel (512 to 16384 ranks, 16 channels); AllToAll, whose
 * every rank sends to every other (one transfer per pair, plan_p2p), at
 * 2.8 to 4.7 KB per pair with the fabric (128 ranks on the RoCE example,
 * 320 on the DGX A100 HDR pod). */
#define RUN_BYTES_PER_RANK_CHANNEL (16u << 10)
#define RUN_BYTES_PER_PAIR (6u << 10)

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

/* Memory a call's plan and run take, bytes (without the packet
 * transport's ports and packets). */
static guint64 plan_need(const NcclComm *comm, NcclColl coll, guint32 channels)
{
  guint64 ranks = nccl_comm_ranks(comm);

  return coll == NCCL_COLL_ALLTOALL
             ? ranks * ranks * RUN_BYTES_PER_PAIR
             : ranks * RUN_BYTES_PER_RANK_CHANNEL * channels;
}

/* Checks need (+ the packet transport's records) against the limit. */
static gboolean check_need(const TopoSystem *sys, guint64 need, NcclExec exec,
                           const char *what, const char *how, GError **error)
{
  g_autofree char *more = NULL;

  if (exec == NCCL_EXEC_PACKET) {
    guint32 ports = sim_fabric_n_channels(topo_system_fabric(sys));
    guint64 packets = packet_bound(sys);

    more = g_strdup_printf(
        "%s; packets: %u ports x %u bytes, up to %" G_GUINT64_FORMAT
        " packets x %u bytes",
        how, ports, RUN_PACKET_BYTES_PER_PORT, packets,
        RUN_PACKET_BYTES_PER_PACKET);
    need += (guint64)ports * RUN_PACKET_BYTES_PER_PORT +
            packets * RUN_PACKET_BYTES_PER_PACKET;
    how = more;
  }
  return sim_memory_check(need, what, how, error);
}

static gboolean check_memory(const NcclComm *comm, NcclColl coll,
                             guint32 channels, NcclExec exec, GError **error)
{
  guint64 ranks = nccl_comm_ranks(comm);
  g_autofree char *what = g_strdup_printf("%s on %" G_GUINT64_FORMAT " ranks",
                                          nccl_coll_name(coll), ranks);
  g_autofree char *how =
      coll == NCCL_COLL_ALLTOALL
          ? g_strdup_printf("%u bytes per pair of ranks", RUN_BYTES_PER_PAIR)
          : g_strdup_printf("%u channels, %u bytes per rank and channel",
                            channels, RUN_BYTES_PER_RANK_CHANNEL);

  return check_need(comm->sys, plan_need(comm, coll, channels), exec, what, how,
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

/* Plans a call: fills pl (zeroed but for comm) with its edges and hops. */
static gboolean plan_build(Plan *pl, const NcclComm *comm, NcclColl coll,
                           guint64 bytes, const NcclChoice *choice,
                           GError **error)
{
  gboolean ok = FALSE;

  pl->comm = comm;
  pl->sys = comm->sys;
  pl->fabric = topo_system_fabric(comm->sys);
  pl->coll = coll;
  pl->algo = choice->algo;
  pl->proto = choice->proto;
  pl->channels = MAX(choice->channels, 1);
  pl->bytes = bytes;
  pl->paths = g_array_new(FALSE, FALSE, sizeof(SimPath));
  pl->weights = g_array_new(FALSE, FALSE, sizeof(double));
  pl->edges = g_array_new(FALSE, TRUE, sizeof(Edge));
  pl->hops = g_array_new(FALSE, TRUE, sizeof(Hop));
  pl->preds = g_array_new(FALSE, FALSE, sizeof(guint32));
  pl->routes = g_array_new(FALSE, FALSE, sizeof(Route));
  pl->route_of =
      g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  pl->inflate = choice->proto == NCCL_PROTO_LL      ? 2.0
                : choice->proto == NCCL_PROTO_LL128 ? 128.0 / 120.0
                                                    : 1.0;
  /* NCCL's own pipelining unit (NVLS and NVLSTree: the chunk, which
   * their switch edges take per head of the node, plan_nvls) */
  pl->slice = coll < NCCL_N_TUNED_COLLS
                  ? nccl_slice_bytes(comm, coll, choice->algo, choice->proto,
                                     choice->channels, bytes)
                  : slice_bytes(choice->algo, choice->proto);
  /* LL and LL128 carry a flag in every line, so a receiver forwards each
   * warp's lines as soon as they land, not a whole step: the head crosses
   * a hop after one warp's data, 32 lines of 8 data bytes for LL, NCCL's
   * LL128 grain (32 x 8 x 8 B x 15/16 = 1920 B) for LL128. */
  if (choice->proto == NCCL_PROTO_LL)
    pl->slice = MIN(pl->slice, 32 * 8);
  else if (choice->proto == NCCL_PROTO_LL128)
    pl->slice = MIN(pl->slice, 1920);
  pl->cap_Bps = channel_cap(pl) * proto_efficiency(pl);
  pl->base_ps =
      (coll < NCCL_N_TUNED_COLLS
           ? us_ps(nccl_base_latency_us(choice->algo, choice->proto))
           : 0) +
      us_ps(mdl_registry_nccl(topo_system_models(comm->sys))->latency_us);
  if (coll >= NCCL_N_TUNED_COLLS) {
    ok = plan_p2p(pl, error);
  } else {
    switch (choice->algo) {
    case NCCL_ALGO_RING: ok = plan_ring(pl, error); break;
    case NCCL_ALGO_TREE: ok = plan_tree(pl, error); break;
    case NCCL_ALGO_NVLS:
    case NCCL_ALGO_NVLS_TREE: ok = plan_nvls(pl, error); break;
    case NCCL_ALGO_COLLNET_DIRECT:
    case NCCL_ALGO_COLLNET_CHAIN: ok = plan_collnet(pl, error); break;
    case NCCL_ALGO_PAT: ok = plan_pat(pl, error); break;
    default: break;
    }
  }
  return ok;
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
static void session_exec(NcclSession *s, Plan *pl, const SimTask *after,
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

static void session_exec(NcclSession *s, Plan *pl, const SimTask *after,
                         guint32 n_after, SessionCall *call, SimTask *done)
{
  Exec x = {.pl = pl,
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
  build_dag(&x);
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
  Plan pl = {0};
  guint64 need = plan_need(comm, coll, MAX(choice->channels, 1));
  SessionCall *call;
  gboolean ok;

  if (!spec)
    spec = &none;
  pl.one_way = spec->one_way;
  if (comm->sys != s->sys) {
    g_set_error(error, MDL_ERROR, MDL_ERROR_CONFLICT,
                "a communicator of another system than the session's");
    return FALSE;
  }
  s->need += need;
  ok = session_check_memory(s, error) &&
       plan_build(&pl, comm, coll, bytes, choice, error);
  if (ok) {
    call = g_new0(SessionCall, 1);
    call->s = s;
    call->need = need;
    call->fn = spec->done;
    call->ctx = spec->ctx;
    call->user = spec->user;
    session_exec(s, &pl, spec->after, spec->n_after, call, done);
  } else {
    s->need -= need;
  }
  plan_clear(&pl);
  return ok;
}

gboolean nccl_session_run(NcclSession *s, NcclRunStats *out, GError **error)
{
  SimDagStats ds;
  gboolean ok;

  if (sim_engine_run(s->engine) == SIM_RUN_INTERRUPTED)
    ok = sim_interrupt_check(error);
  else
    ok = sim_dag_check_finished(s->dag, sim_engine_now(s->engine), error);
  if (!ok)
    return FALSE;
  sim_dag_stats(s->dag, &ds);
  if (out) {
    memset(out, 0, sizeof(*out));
    out->time_ps = ds.last_done;
    out->transfers = s->transfers;
    out->tasks = ds.added;
    out->peak_tasks = ds.peak_alive;
    out->wall_s = (double)(g_get_monotonic_time() - s->t0) / 1e6;
  }
  return TRUE;
}

gboolean nccl_run(const NcclComm *comm, NcclColl coll, guint64 bytes,
                  const NcclChoice *choice, NcclExec exec,
                  NcclInspectFn inspect, void *inspect_ctx, NcclRunStats *out,
                  GError **error)
{
  Plan pl = {0};
  Exec x = {.pl = &pl};
  g_autoptr(NcclSession) s = NULL;
  gboolean ok = FALSE;
  gint64 t0 = g_get_monotonic_time();

  if (!check_memory(comm, coll, MAX(choice->channels, 1), exec, error))
    return FALSE;
  if (!plan_build(&pl, comm, coll, bytes, choice, error))
    goto out;
  s = nccl_session_new(comm->sys, exec, comm->opt.packet_sample_ps);
  s->t0 = t0;
  x.dag = s->dag;
  if (comm->opt.trace && comm->opt.trace->attach)
    comm->opt.trace->attach(comm->opt.trace->ctx, s->engine, s->tr);
  if (comm->opt.trace && comm->opt.trace->transfer) {
    x.trace = comm->opt.trace;
    x.traced = g_array_new(FALSE, FALSE, sizeof(Traced));
  }
  /* the plan (its paths, its edges for the trace) lives through the run */
  build_dag(&x);
  s->transfers += x.transfers;
  ok = nccl_session_run(s, out, error);
  if (ok && inspect)
    inspect(inspect_ctx, s->tr, out->time_ps);
out:
  if (x.traced)
    g_array_free(x.traced, TRUE);
  plan_clear(&pl);
  return ok;
}

static gboolean session_check_memory(NcclSession *s, GError **error)
{
  g_autofree char *what = g_strdup_printf(
      "the collective calls in flight at once (call %" G_GUINT64_FORMAT ")",
      s->calls + 1);

  return check_need(s->sys, s->need, s->exec, what,
                    "16 KiB per rank and channel of each call, 6 KiB per "
                    "pair of ranks of an AllToAll",
                    error);
}
