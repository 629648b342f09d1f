/* Planning a collective as NCCL's kernels run it (plan.h): the edges of
 * each algorithm's channels, their routes over the fabric as NCCL's
 * connections take them (NVLink, PCIe, PXN to the rail's NIC), and the
 * head hops' order.
 *
 * Transfers carry the protocol's wire format (LL: 8-byte lines with 4 bytes
 * of data; LL128: 120 of 128 bytes) and each channel's transfers are
 * capped at the bandwidth NCCL's model gives one channel of the algorithm
 * and protocol (what its SMs and protocol achieve on an idle link); the
 * fabric decides the rest (NVLink, PCIe, NIC, network sharing, routing). */
#include <math.h>
#include <string.h>

#include "collectives/error.h"
#include "collectives/nccl/plan.h"
#include "models/params.h"
#include "models/registry.h"
#include "sim/interrupt.h"
#include "sim/memory.h"

static SimTime us_ps(double us)
{
  double ps = us * (double)SIM_PS_PER_US;

  /* past the horizon: a time the engine refuses, not a wrapped one */
  return ps < (double)SIM_TIME_HORIZON ? (SimTime)llround(ps)
                                       : SIM_TIME_HORIZON + 1;
}

static SimNodeId rank_gpu(const NcclPlan *pl, guint32 r)
{
  return nccl_comm_rank_gpu(pl->comm, r);
}

/* The ECMP hash seed of a rank's connections: its GPU's index in the
 * system, so that two jobs' rank 0s do not hash alike. */
static guint32 rank_seed(const NcclPlan *pl, guint32 r)
{
  return nccl_comm_rank_server(pl->comm, r) *
             topo_system_gpus_per_server(pl->sys) +
         nccl_comm_rank_local(pl->comm, r);
}

static guint32 rank_node(const NcclPlan *pl, guint32 r)
{
  return r / pl->comm->ppn;
}

/* Whether ranks a and b of one node use P2P (else SHM). */
static gboolean rank_pair_p2p(const NcclPlan *pl, guint32 a, guint32 b)
{
  return nccl_comm_pair_p2p(pl->comm, nccl_comm_rank_server(pl->comm, a),
                            nccl_comm_rank_local(pl->comm, a),
                            nccl_comm_rank_local(pl->comm, b));
}

/* Appends a route's path set to the plan; returns its first path. */
static guint32 add_paths(NcclPlan *pl, const SimPathSet *ps)
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
  if (sim_pathset_concat(a, b, out))
    return TRUE;
  g_set_error(error, COLL_ERROR, COLL_ERROR_CONFLICT,
              "a route of two legs (PXN, SHM) is longer than %u hops or %u "
              "paths",
              SIM_PATH_MAX_HOPS, SIM_PATHSET_MAX);
  return FALSE;
}

/* The flow of queue pair q of a connection to the fabric's routing (ECMP
 * hashes it): `conn` names the connection (conn_flow), q = 0 is its own
 * pair. */
static guint64 qp_flow(guint64 conn, guint32 q)
{
  return conn | (guint64)q << 32;
}

/* A network connection's name to the fabric's routing: a collective's is
 * its channel (`rail`: channels c and c + 8 between the same NICs are
 * connections of their own); a point-to-point pair's is its channel and
 * its receiver, since every pair has a connection of its own, with its
 * own queue pairs (RoCE derives a queue pair's UDP source port, which
 * ECMP hashes, from it): an AllToAll rank's connections to the GPUs of
 * one node share a NIC pair (PXN) and are spread by ECMP like any
 * others. */
static guint64 conn_flow(const NcclPlan *pl, guint32 rail, guint32 b)
{
  return pl->coll < NCCL_N_TUNED_COLLS ? rail : rail | ((guint64)b + 1) << 40;
}

/* A network connection's leg from src to dst (GPUs or NICs: topo_route,
 * or topo_route_network where `nics`), its data split evenly over the
 * communicator's queue pairs (NcclComm.qps), each routed as a flow of its
 * own; the paths they share are one path of their summed weight. */
static gboolean route_qps(NcclPlan *pl, SimNodeId src, SimNodeId dst,
                          guint64 conn, gboolean nics, SimPathSet *out,
                          GError **error)
{
  guint32 qps = MAX(pl->comm->qps, 1);

  out->n = 0;
  for (guint32 q = 0; q < qps; q++) {
    SimPathSet one = {.n = 1, .weight = {1.0}};

    if (nics ? !topo_route_network(pl->sys, src, dst, qp_flow(conn, q), NULL,
                                   &one.path[0], error)
             : !topo_route(pl->sys, src, dst, qp_flow(conn, q), NULL, &one,
                           error))
      return FALSE;
    for (guint32 i = 0; i < one.n; i++) {
      if (!sim_pathset_add(out, &one.path[i], one.weight[i] / qps)) {
        g_set_error(error, COLL_ERROR, COLL_ERROR_CONFLICT,
                    "a connection's %u queue pairs "
                    "(NCCL_IB_QPS_PER_CONNECTION) take more than %u paths",
                    qps, SIM_PATHSET_MAX);
        return FALSE;
      }
    }
  }
  return TRUE;
}

/* Whether local rank `local`'s NIC on a server is up. */
static gboolean rail_up(const NcclPlan *pl, guint32 server, guint32 local)
{
  return topo_nic_up(pl->sys, server,
                     topo_gpu_nic(pl->sys, pl->comm->local_of[local]));
}

/* The local rank whose NIC carries channel `rail` on node `node`: rail
 * mod ppn; where faults took NICs down, the rail-th (mod their count) of
 * the ranks whose NIC is up, as NCCL's search, which sees only the NICs up
 * (ibv port state), spreads its channels over them (comm.c gives 2 per
 * NIC up). */
static guint32 rail_local(const NcclPlan *pl, guint32 node, guint32 rail)
{
  const NcclComm *c = pl->comm;
  guint32 server = c->server_of[node], n = 0, k;

  for (guint32 i = 0; i < c->ppn; i++)
    n += rail_up(pl, server, i);
  if (n == 0 || n == c->ppn)
    return rail % c->ppn;
  k = rail % n;
  for (guint32 i = 0; i < c->ppn; i++) {
    if (rail_up(pl, server, i) && k-- == 0)
      return i;
  }
  g_assert_not_reached();
}

/* NVLSTree's heads per node.  NCCL's search takes a head per NIC, the
 * NICs in order, each with its GPU ("NVLS search only tries to find
 * NIC:GPU combinations to compute the heads", search.cc
 * ncclTopoSearchRecNet), so a node has as many heads as its ranks have
 * NICs, at most one a GPU, and at most 32 from 2.25.1
 * (nccl_nvls_max_heads); where faults took NICs down, as many as the node
 * with the fewest ranks whose NIC is up has.  nvls_head_rails gives each
 * head's local rank: the first of the node's ranks on its h-th NIC. */
static guint32 nvls_heads(const NcclPlan *pl)
{
  const NcclComm *c = pl->comm;
  guint32 fewest = c->ppn;

  for (guint32 k = 0; k < c->nnodes; k++) {
    guint32 n = 0;

    for (guint32 i = 0; i < c->ppn; i++)
      n += rail_up(pl, c->server_of[k], i);
    if (n > 0)
      fewest = MIN(fewest, n);
  }
  return MIN(fewest, c->nvls_heads);
}

static guint32 *nvls_head_rails(const NcclPlan *pl, guint32 heads)
{
  const NcclComm *c = pl->comm;
  guint32 *rail = g_new(guint32, heads), n = 0;

  for (guint32 i = 0; i < c->ppn && n < heads; i++) {
    guint32 nic = topo_gpu_nic(pl->sys, c->local_of[i]), j = 0;

    while (j < i && topo_gpu_nic(pl->sys, c->local_of[j]) != nic)
      j++;
    if (j == i)
      rail[n++] = i;
  }
  for (; n < heads; n++)
    rail[n] = n % c->ppn;
  return rail;
}

/* The NIC of GPU `gpu` of a server that its traffic leaves by: its own,
 * or the nearest that is up where faults took it down (topo_live_nic). */
static gboolean server_nic(const NcclPlan *pl, guint32 server, guint32 gpu,
                           SimNodeId *nic, GError **error)
{
  *nic = topo_live_nic(pl->sys, server, topo_gpu_nic(pl->sys, gpu), gpu);
  if (*nic != SIM_NONE)
    return TRUE;
  g_set_error(error, COLL_ERROR, COLL_ERROR_CONFLICT,
              "every NIC of server %u is down (faults from %s): its GPUs "
              "cannot reach the network",
              server, topo_system_fault_origin(pl->sys));
  return FALSE;
}

/* The route of a network connection that stages in host memory: the
 * socket transport's (transport/net_socket.cc, whose buffers are host
 * memory, NCCL_PTR_HOST), or an RDMA one without GPUDirect RDMA on a side
 * (transport/net.cc: that side's buffer in host memory).  Rank a's GPU
 * writes the step into a host buffer on its socket, or the NIC reads it
 * from the GPU (gdr_send); it leaves by the NIC of rail rail_a (the
 * channel's) and lands through rail rail_b's (the channel's, or b's own
 * without PXN) in a host buffer on rank b's socket that b's GPU reads, or
 * in b's GPU (gdr_recv); `rail` is the connection's flow to the fabric.
 * No PXN: the rank's own GPU stages the data. */
static gboolean route_host(NcclPlan *pl, guint32 a, guint32 b, guint32 rail,
                           guint32 rail_a, guint32 rail_b, SimPathSet *out,
                           GError **error)
{
  const NcclComm *c = pl->comm;
  guint32 sa = nccl_comm_rank_server(c, a), sb = nccl_comm_rank_server(c, b);
  guint32 ga = c->local_of[rail_local(pl, rank_node(pl, a), rail_a)];
  guint32 gb = c->local_of[rail_local(pl, rank_node(pl, b), rail_b)];
  SimNodeId gpu_a = rank_gpu(pl, a), gpu_b = rank_gpu(pl, b);
  SimNodeId cpu_a = topo_gpu_cpu(pl->sys, sa, nccl_comm_rank_local(c, a));
  SimNodeId cpu_b = topo_gpu_cpu(pl->sys, sb, nccl_comm_rank_local(c, b));
  SimNodeId nic_a, nic_b;
  SimPathSet head, tail, wire, leg, acc;

  if (!server_nic(pl, sa, ga, &nic_a, error) ||
      !server_nic(pl, sb, gb, &nic_b, error) ||
      !route_qps(pl, nic_a, nic_b, conn_flow(pl, rail, b), TRUE, &wire, error))
    return FALSE;
  if (c->gdr_send) {
    if (!topo_route(pl->sys, gpu_a, nic_a, rank_seed(pl, a), NULL, &head,
                    error))
      return FALSE;
  } else if (!topo_route(pl->sys, gpu_a, cpu_a, rank_seed(pl, a), NULL, &leg,
                         error) ||
             !topo_route(pl->sys, cpu_a, nic_a, rail, NULL, &acc, error) ||
             !concat_sets(&leg, &acc, &head, error)) {
    return FALSE;
  }
  if (c->gdr_recv) {
    if (!topo_route(pl->sys, nic_b, gpu_b, rank_seed(pl, b), NULL, &tail,
                    error))
      return FALSE;
  } else if (!topo_route(pl->sys, nic_b, cpu_b, rail, NULL, &leg, error) ||
             !topo_route(pl->sys, cpu_b, gpu_b, rank_seed(pl, b), NULL, &acc,
                         error) ||
             !concat_sets(&leg, &acc, &tail, error)) {
    return FALSE;
  }
  return concat_sets(&head, &wire, &acc, error) &&
         concat_sets(&acc, &tail, out, error);
}

/* The route from rank a to rank b as NCCL's connection takes it.  Inside a
 * node: NVLink (sprayed over the NVSwitches) or PCIe.  Across nodes the
 * channel's rail decides: the data goes over NVLink to the rank of the
 * destination node's rail GPU on this side (PXN) when the sender is not
 * it, and out through that GPU's NIC. */
static gboolean route_ranks(NcclPlan *pl, guint32 a, guint32 b, guint32 rail,
                            guint32 *first, guint32 *n, GError **error)
{
  const NcclComm *c = pl->comm;
  guint64 key = ((guint64)a << 40) ^ ((guint64)b << 16) ^ rail;
  /* a point-to-point plan routes every pair once: nothing to look up */
  gboolean cached = pl->coll < NCCL_N_TUNED_COLLS;
  /* Without PXN (NCCL_PXN_DISABLE=1, NCCL_P2P_PXN_LEVEL=0) a
   * point-to-point connection leaves by the sender's own NIC and lands by
   * the receiver's (search.cc ncclTopoGetNetDev: each side keeps its local
   * NIC); with it, the pair keeps to one rail (NcclComm.pxn). */
  gboolean own = !cached && !c->pxn;
  gpointer hit = cached ? g_hash_table_lookup(pl->route_of, &key) : NULL;
  SimPathSet ps, tail, both;
  NcclRoute r;
  gint64 *k;

  if (hit) {
    r = g_array_index(pl->routes, NcclRoute, GPOINTER_TO_UINT(hit) - 1);
    *first = r.first;
    *n = r.n;
    return TRUE;
  }
  if (rank_node(pl, a) == rank_node(pl, b) && !rank_pair_p2p(pl, a, b)) {
    /* SHM (transport/shm.cc): the receiver's buffer is in host memory on
     * its own socket (NCCL_SHM_LOCALITY 2, the default); the sender's GPU
     * writes it, the receiver's reads it, each across its PCIe */
    SimNodeId cpu = topo_gpu_cpu(pl->sys, nccl_comm_rank_server(c, b),
                                 nccl_comm_rank_local(c, b));
    SimPathSet up, down;

    if (!topo_route(pl->sys, rank_gpu(pl, a), cpu, rank_seed(pl, a), NULL, &up,
                    error) ||
        !topo_route(pl->sys, cpu, rank_gpu(pl, b), rank_seed(pl, b), NULL,
                    &down, error) ||
        !concat_sets(&up, &down, &ps, error))
      return FALSE;
  } else if (rank_node(pl, a) == rank_node(pl, b)) {
    if (!topo_route(pl->sys, rank_gpu(pl, a), rank_gpu(pl, b), rank_seed(pl, a),
                    NULL, &ps, error))
      return FALSE;
  } else if (c->socket || !c->gdr_send || !c->gdr_recv) {
    if (!route_host(pl, a, b, rail, own ? a % c->ppn : rail,
                    own ? b % c->ppn : rail, &ps, error))
      return FALSE;
  } else {
    guint32 via = rank_node(pl, a) * c->ppn +
                  rail_local(pl, rank_node(pl, a), own ? a % c->ppn : rail);
    guint32 to = rank_node(pl, b) * c->ppn +
                 rail_local(pl, rank_node(pl, b), own ? b % c->ppn : rail);

    if (!route_qps(pl, rank_gpu(pl, via), rank_gpu(pl, to),
                   conn_flow(pl, rail, b), FALSE, &tail, error))
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
  if (!cached)
    return TRUE;
  r.key = (gint64)key;
  g_array_append_val(pl->routes, r);
  k = g_new(gint64, 1);
  *k = (gint64)key;
  g_hash_table_insert(pl->route_of, k, GUINT_TO_POINTER(pl->routes->len));
  return TRUE;
}

/* Proxy actions a step over a network connection waits for (NCCL's
 * transport/net.cc): the sending proxy sees the GPU's step in its FIFO and
 * posts the RDMA write (sendProxyProgress); with Simple the receiving proxy
 * then polls the completion and hands the step to the GPU
 * (recvProxyProgress), having first flushed it with an RDMA read where
 * NCCL asks one (nccl_comm_net_flush).  LL and LL128 lines carry their own
 * flags, which the receiving GPU polls: no receive action.  Over sockets
 * the send action is the send() of the step (its size first, then the
 * bytes), the receive its recv(). */
static guint32 net_proxy_actions(const NcclComm *c, NcclProto p)
{
  if (p != NCCL_PROTO_SIMPLE)
    return 1;
  return nccl_comm_net_flush(c) ? 3 : 2;
}

/* One proxy action: [nccl] net_proxy_us on an Intel host,
 * nccl_host_net_factor elsewhere. */
static double proxy_action_us(const NcclComm *c)
{
  return nccl_host_net_factor(c) *
         (c->opt.set_net_proxy
              ? c->opt.net_proxy_us
              : mdl_registry_nccl(topo_system_models(c->sys))->net_proxy_us);
}

/* Whether an edge is a plain net connection that the ranks' proxy threads
 * progress (a network edge of a Ring, Tree or PAT). */
static gboolean proxied(const NcclPlan *pl, gboolean inter)
{
  return inter && (pl->algo == NCCL_ALGO_RING || pl->algo == NCCL_ALGO_TREE ||
                   pl->algo == NCCL_ALGO_PAT);
}

/* The latency of one step over an edge beyond what the fabric charges (the
 * path's own latency).  A network edge of a Ring, Tree or PAT is a plain
 * net connection: its step costs the proxy's actions (proxy_action_us
 * each; proxy_queues then charges the other connections its proxies serve),
 * on top of the wire.  Elsewhere it is NCCL's hardware
 * latency for the protocol and link class (tuning.cc hwLatencies), less
 * the path's latency, never negative: NVLink and PCIe steps, and the
 * network steps of NVLS, NVLSTree and CollNet, whose proxies NCCL's
 * figures describe. */
static SimTime step_latency(const NcclPlan *pl, gboolean inter, guint32 first)
{
  const NcclComm *c = pl->comm;
  guint32 hw =
      inter ? NCCL_HW_NET : (c->nvl_intra ? NCCL_HW_NVLINK : NCCL_HW_PCI);
  NcclAlgo a = pl->algo;
  double us;
  SimTime lat, fabric;

  if (proxied(pl, inter))
    return us_ps(net_proxy_actions(c, pl->proto) * proxy_action_us(c));
  if (inter && c->ppn == 1)
    a = NCCL_ALGO_TREE; /* tuning.cc: Tree's network latency at ppn 1 */
  us = nccl_hw_latency_us(hw, a, pl->proto);
  /* Inter-node rings pay the network post overhead at every step, three
   * times for Simple (tuning.cc: intraLat = max(intraLat, netOverhead)). */
  if (!inter && c->nnodes > 1 && pl->algo == NCCL_ALGO_RING)
    us = MAX(us, NCCL_NET_OVERHEAD_US * nccl_host_net_factor(c) *
                     (pl->proto == NCCL_PROTO_SIMPLE ? 3 : 1));
  lat = us_ps(us);
  fabric = sim_path_latency_ps(pl->fabric,
                               &g_array_index(pl->paths, SimPath, first));
  return lat > fabric ? lat - fabric : 0;
}

/* Whether the memory a run of the plan so far takes, with what is in use
 * beside it (pl->mem_base), fits (sim/memory.h): NCCL_RUN_BYTES_PER_EDGE
 * per edge kept.  `done`: the plan is whole (else a refusal counts its
 * edges "so far"). */
static gboolean plan_memory_check(const NcclPlan *pl, gboolean done,
                                  GError **error)
{
  guint64 need =
      pl->mem_base + (guint64)pl->edges->len * NCCL_RUN_BYTES_PER_EDGE;
  g_autofree char *what = NULL, *how = NULL;

  if (need <= sim_memory_limit(NULL))
    return TRUE;
  what = g_strdup_printf("%s on %u ranks", nccl_coll_name(pl->coll),
                         pl->comm->nranks);
  how = g_strdup_printf(
      "%u edges of its plan%s, %u KiB per edge%s", pl->edges->len,
      done ? "" : " so far", NCCL_RUN_BYTES_PER_EDGE >> 10,
      pl->mem_base ? ", and the calls and packets beside it" : "");
  return sim_memory_check(need, what, how, error);
}

/* Adds an edge from rank a to rank b on a channel carrying `bytes`. */
static gboolean add_edge(NcclPlan *pl, guint32 a, guint32 b, guint32 channel,
                         guint32 rail, guint64 bytes, guint32 upstream,
                         guint32 *out, GError **error)
{
  NcclEdge e = {.bytes = bytes,
                .visit_bytes = bytes,
                .upstream = upstream,
                .channel = channel,
                .src = a,
                .dst = b};

  /* a plan of a million edges takes seconds: Ctrl-C ends it, and one
   * too large for the memory stops as it grows */
  if (pl->edges->len % 4096 == 0 &&
      (!sim_interrupt_check(error) || !plan_memory_check(pl, FALSE, error)))
    return FALSE;
  if (!route_ranks(pl, a, b, rail, &e.first_path, &e.n_paths, error))
    return FALSE;
  e.step_ps =
      step_latency(pl, rank_node(pl, a) != rank_node(pl, b), e.first_path);
  e.shm = rank_node(pl, a) == rank_node(pl, b) && !rank_pair_p2p(pl, a, b);
  e.proxied = proxied(pl, rank_node(pl, a) != rank_node(pl, b));
  *out = pl->edges->len;
  g_array_append_val(pl->edges, e);
  return TRUE;
}

/* Adds an edge over explicit paths (a GPU's links to its NVSwitches). */
static guint32 add_edge_paths(NcclPlan *pl, const SimPathSet *ps, guint32 src,
                              guint32 dst, guint32 channel, guint64 bytes,
                              SimTime step_ps)
{
  NcclEdge e = {.bytes = bytes,
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
static guint32 add_hop_n(NcclPlan *pl, guint32 edge, const guint32 *preds,
                         guint32 n)
{
  NcclHop h = {.edge = edge, .first_pred = pl->preds->len};

  for (guint32 i = 0; i < n; i++) {
    if (preds[i] != SIM_NONE) {
      g_array_append_val(pl->preds, preds[i]);
      h.n_pred++;
    }
  }
  g_array_append_val(pl->hops, h);
  return pl->hops->len - 1;
}

static guint32 add_hop(NcclPlan *pl, guint32 edge, guint32 p0, guint32 p1)
{
  guint32 p[2] = {p0, p1};

  return add_hop_n(pl, edge, p, 2);
}

/* --- folding alike channels -------------------------------------------- */

/* Where the next channel's records will start. */
static NcclChannelSpan channel_begin(const NcclPlan *pl)
{
  NcclChannelSpan s = {.edges = pl->edges->len,
                       .hops = pl->hops->len,
                       .preds = pl->preds->len,
                       .paths = pl->paths->len,
                       .routes = pl->routes->len};

  return s;
}

/* An index of a channel's records relative to its first (`base`, `n`
 * records), SIM_NONE kept; G_MAXUINT32 - 1 for one outside it. */
static guint32 rel(guint32 i, guint32 base, guint32 n)
{
  if (i == SIM_NONE)
    return SIM_NONE;
  return i >= base && i - base < n ? i - base : SIM_NONE - 1;
}

static gboolean paths_alike(const NcclPlan *pl, guint32 a, guint32 b, guint32 n)
{
  const SimPath *p = (const SimPath *)(const void *)pl->paths->data;
  const double *w = (const double *)(const void *)pl->weights->data;

  for (guint32 i = 0; i < n; i++) {
    if (p[a + i].n != p[b + i].n || w[a + i] != w[b + i] ||
        memcmp(p[a + i].hop, p[b + i].hop,
               p[a + i].n * sizeof(p[a + i].hop[0])) != 0)
      return FALSE;
  }
  return TRUE;
}

/* Whether channel span y does what span x does: edge for edge the same
 * ranks, bytes, slices, latencies, caps and paths, hop for hop the same
 * edges and predecessors (relative to each span), nothing outside it.
 * The channel number and the paths' place in the plan may differ. */
static gboolean channels_alike(const NcclPlan *pl, const NcclChannelSpan *x,
                               const NcclChannelSpan *y)
{
  const NcclEdge *e = (const NcclEdge *)(const void *)pl->edges->data;
  const NcclHop *h = (const NcclHop *)(const void *)pl->hops->data;
  const guint32 *pr = (const guint32 *)(const void *)pl->preds->data;

  if (x->n_edges != y->n_edges || x->n_hops != y->n_hops ||
      x->n_preds != y->n_preds)
    return FALSE;
  for (guint32 i = 0; i < x->n_edges; i++) {
    const NcclEdge *a = &e[x->edges + i], *b = &e[y->edges + i];
    guint32 up = rel(a->upstream, x->edges, x->n_edges);

    if (a->src != b->src || a->dst != b->dst || a->bytes != b->bytes ||
        a->visit_bytes != b->visit_bytes || a->eager != b->eager ||
        a->body_steps != b->body_steps || a->step_ps != b->step_ps ||
        a->lanes != b->lanes || a->slice != b->slice || a->shm != b->shm ||
        a->proxied != b->proxied || a->down != b->down ||
        a->cap_Bps != b->cap_Bps || a->n_paths != b->n_paths ||
        up == SIM_NONE - 1 || up != rel(b->upstream, y->edges, y->n_edges) ||
        !paths_alike(pl, a->first_path, b->first_path, a->n_paths))
      return FALSE;
  }
  for (guint32 i = 0; i < x->n_hops; i++) {
    const NcclHop *a = &h[x->hops + i], *b = &h[y->hops + i];
    guint32 ea = rel(a->edge, x->edges, x->n_edges);

    if (ea == SIM_NONE - 1 || ea != rel(b->edge, y->edges, y->n_edges) ||
        a->n_pred != b->n_pred ||
        a->first_pred - x->preds != b->first_pred - y->preds)
      return FALSE;
  }
  for (guint32 i = 0; i < x->n_preds; i++) {
    guint32 pa = rel(pr[x->preds + i], x->hops, x->n_hops);

    if (pa == SIM_NONE - 1 || pa != rel(pr[y->preds + i], y->hops, y->n_hops))
      return FALSE;
  }
  return TRUE;
}

/* Ends a channel begun at *s: with pl->fold, when it is alike an earlier
 * kept channel (channels_alike), its records go (and the routes first
 * computed for it) and that channel's edges count one copy more; else it
 * is kept, if the memory allows (plan_memory_check).  Exact under max-min
 * sharing: alike channels start together and their flows, on the same
 * channels with the same caps, always get the same rates (a flow of k
 * copies weighs k on each channel), so they end together; only rounding
 * in the last bits of the rates differs (tests/collectives: folded and
 * unfolded runs agree to 1e-8). */
static gboolean channel_end(NcclPlan *pl, NcclChannelSpan *s, GError **error)
{
  s->n_edges = pl->edges->len - s->edges;
  s->n_hops = pl->hops->len - s->hops;
  s->n_preds = pl->preds->len - s->preds;
  if (!pl->classes)
    pl->classes = g_array_new(FALSE, FALSE, sizeof(NcclChannelSpan));
  for (guint32 k = 0; pl->fold && k < pl->classes->len; k++) {
    const NcclChannelSpan *x = &g_array_index(pl->classes, NcclChannelSpan, k);

    if (!channels_alike(pl, x, s))
      continue;
    for (guint32 i = 0; i < x->n_edges; i++) {
      NcclEdge *e = &g_array_index(pl->edges, NcclEdge, x->edges + i);

      e->copies = MAX(e->copies, 1) + 1;
    }
    for (guint32 r = s->routes; r < pl->routes->len; r++)
      g_hash_table_remove(pl->route_of,
                          &g_array_index(pl->routes, NcclRoute, r).key);
    g_array_set_size(pl->routes, s->routes);
    g_array_set_size(pl->paths, s->paths);
    g_array_set_size(pl->weights, s->paths);
    g_array_set_size(pl->edges, s->edges);
    g_array_set_size(pl->hops, s->hops);
    g_array_set_size(pl->preds, s->preds);
    return TRUE;
  }
  g_array_append_val(pl->classes, *s);
  return plan_memory_check(pl, FALSE, error);
}

/* Ring order of channel c: every node's ranks in a rotation that starts at
 * the channel's rail GPU, nodes in order. */
static guint32 ring_rank(const NcclPlan *pl, guint32 c, guint32 pos)
{
  guint32 ppn = pl->comm->ppn;
  guint32 node = pos / ppn, k = pos % ppn;

  return node * ppn + (c + k) % ppn;
}

/* Ring: AllReduce (2(n-1) steps of S/(n C) per channel), AllGather and
 * ReduceScatter (n-1 steps), Broadcast and Reduce (a chain from the root
 * carrying the whole channel share on n-1 links). */
static gboolean plan_ring(NcclPlan *pl, GError **error)
{
  guint32 n = pl->comm->nranks;
  gboolean chain = nccl_plan_chain(pl);
  guint32 steps = pl->coll == NCCL_COLL_ALLREDUCE ? 2 * (n - 1) : n - 1;

  for (guint32 c = 0; c < pl->channels; c++) {
    NcclChannelSpan span = channel_begin(pl);
    guint64 sc = nccl_share(pl->bytes, pl->channels, c);
    guint64 per_link = chain ? sc : (guint64)((double)sc * steps / n);
    guint32 links = chain ? n - 1 : n;
    guint32 first = pl->edges->len;
    guint32 prev = SIM_NONE;
    /* rank 0's position in the channel's ring (ring_rank) */
    guint32 root_pos = (pl->comm->ppn - c % pl->comm->ppn) % pl->comm->ppn;

    for (guint32 i = 0; i < links; i++) {
      guint32 e;
      /* Reduce runs the chain towards the root: reversed positions. */
      guint32 a = chain && pl->coll == NCCL_COLL_REDUCE ? links - i : i;
      guint32 b =
          chain && pl->coll == NCCL_COLL_REDUCE ? links - i - 1 : (i + 1) % n;

      /* every channel's chain starts (Broadcast) or ends (Reduce) at the
       * root, rank 0 as nccl-tests' default, and follows the channel's
       * ring from there (broadcast.h, reduce.h: ring->userRanks) */
      if (chain) {
        a = (a + root_pos) % n;
        b = (b + root_pos) % n;
      }
      if (!add_edge(pl, ring_rank(pl, c, a), ring_rank(pl, c, b), c, c,
                    per_link, i ? first + i - 1 : SIM_NONE, &e, error))
        return FALSE;
    }
    if (!chain)
      g_array_index(pl->edges, NcclEdge, first).upstream = first + links - 1;
    /* one step moves a chunk of S/(n C); Simple pipelines it in two
     * slices (chunkSteps / sliceSteps), LL and LL128 step by step */
    for (guint32 i = 0; i < links; i++) {
      NcclEdge *e = &g_array_index(pl->edges, NcclEdge, first + i);

      e->visit_bytes = chain ? sc : MAX(sc / n, 1);
      e->eager = !chain;
      /* each of the link's steps waits for the previous one's data and
       * pays NCCL's step latency (tuning.cc: nsteps x hwLat) */
      e->body_steps = chain ? 0 : steps;
    }
    /* The head: one slice crossing every step in order. */
    for (guint32 j = 0; j < (chain ? links : steps); j++)
      prev = add_hop(pl, first + j % links, prev, SIM_NONE);
    if (!channel_end(pl, &span, error))
      return FALSE;
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
static gboolean plan_node_tree(NcclPlan *pl, guint32 c, guint32 which,
                               guint32 rail, guint64 bytes, guint32 *hop,
                               guint32 *in_edge, GError **error)
{
  guint32 m = pl->comm->nnodes, ppn = pl->comm->ppn, local = rail % ppn;
  g_autofree guint32 *order = g_new(guint32, m);
  g_autofree guint32 *depth = g_new(guint32, m);
  guint32 at[33] = {0};

  /* deepest nodes first, each depth in node order (a counting sort) */
  for (guint32 k = 0; k < m; k++) {
    depth[k] = MIN(dtree_depth(k, m, which), 32);
    at[32 - depth[k]]++;
  }
  for (guint32 d = 0, sum = 0; d <= 32; d++) {
    guint32 n = at[d];

    at[d] = sum;
    sum += n;
  }
  for (guint32 k = 0; k < m; k++)
    order[at[32 - depth[k]]++] = k;
  for (guint32 i = 0; i < m; i++) {
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
  for (guint32 i = m; i-- > 0;) {
    guint32 k = order[i], p = dtree_parent(k, m, which), e;

    if (p == SIM_NONE)
      continue;
    if (!add_edge(pl, p * ppn + local, k * ppn + local, c, rail, bytes,
                  in_edge ? in_edge[p] : SIM_NONE, &e, error))
      return FALSE;
    g_array_index(pl->edges, NcclEdge, e).down = TRUE;
    hop[k] = add_hop(pl, e, hop[p], SIM_NONE);
  }
  return TRUE;
}

/* Tree AllReduce: per channel, a chain through each node's ranks (from
 * the rail GPU) and one of the two binary trees across nodes between the
 * chains' heads.  Every edge carries the channel's whole share up
 * (reduce) and down (broadcast). */
static gboolean plan_tree(NcclPlan *pl, GError **error)
{
  guint32 m = pl->comm->nnodes, ppn = pl->comm->ppn;

  for (guint32 c = 0; c < pl->channels; c++) {
    NcclChannelSpan span = channel_begin(pl);
    guint64 sc = nccl_share(pl->bytes, pl->channels, c);
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
    if (!channel_end(pl, &span, error))
      return FALSE;
  }
  return TRUE;
}

/* A GPU's NVLinks up to its NVSwitches, weighted by rate (or the reverse). */
static gboolean switch_paths(const NcclPlan *pl, SimNodeId gpu, gboolean down,
                             SimPathSet *out, GError **error)
{
  guint32 n;
  const SimChannelId *outc = sim_fabric_out(pl->fabric, gpu, &n);
  double total = 0;

  out->n = 0;
  for (guint32 i = 0; i < n; i++) {
    const SimChannel *ch = sim_fabric_channel(pl->fabric, outc[i]);
    const SimNode *dst = sim_fabric_node(pl->fabric, ch->dst);

    if (dst->kind != TOPO_NODE_NVSWITCH || ch->width == 0 ||
        out->n == SIM_PATHSET_MAX)
      continue; /* faults may take a GPU's links to a switch down */
    out->path[out->n].n = 1;
    out->path[out->n].hop[0] = down ? sim_channel_reverse(outc[i]) : outc[i];
    out->weight[out->n++] = ch->rate_Bps;
    total += ch->rate_Bps;
  }
  if (out->n == 0) {
    g_set_error(error, COLL_ERROR, COLL_ERROR_CONFLICT,
                "NVLS: GPU %s has no NVLink to an NVSwitch",
                sim_fabric_node_name(pl->fabric, gpu));
    return FALSE;
  }
  for (guint32 i = 0; i < out->n; i++)
    out->weight[i] /= total;
  return TRUE;
}

/* What each switch edge of an NVLS channel moves per byte of the
 * channel's share: S (1 + 1/ppn) up and down for AllReduce, S (ppn-1)/ppn
 * for ReduceScatter (up) and AllGather (down). */
static double nvls_edge_factor(const NcclPlan *pl)
{
  double ppn = pl->comm->ppn;

  return pl->coll == NCCL_COLL_ALLREDUCE ? 1 + 1 / ppn : (ppn - 1) / ppn;
}

/* NVLS inside each node: every GPU pushes its data into the NVSwitches
 * (multimem reductions pull each GPU's whole buffer, the owner stores its
 * reduced 1/ppn back) and takes the result back (multicast stores reach
 * every GPU): S (1 + 1/ppn) up and down for AllReduce, S (ppn-1)/ppn for
 * ReduceScatter (up) and AllGather (down).  With nodes > 1 (NVLSTree) each
 * channel's node heads also exchange their 1/ppn share over a tree of
 * NICs, as Tree does, between the two NVLS halves. */
static gboolean plan_nvls(NcclPlan *pl, GError **error)
{
  const NcclComm *cm = pl->comm;
  guint32 ppn = cm->ppn, m = cm->nnodes;
  SimTime step =
      us_ps(nccl_hw_latency_us(NCCL_HW_NVLINK, pl->algo, NCCL_PROTO_SIMPLE));
  gboolean up = pl->coll != NCCL_COLL_ALLGATHER;
  gboolean down = pl->coll != NCCL_COLL_REDUCESCATTER;
  /* NVLSTree's heads and their ranks, the same on every channel */
  guint32 heads = m > 1 ? nvls_heads(pl) : 0;
  g_autofree guint32 *head_rail = m > 1 ? nvls_head_rails(pl, heads) : NULL;

  for (guint32 c = 0; c < pl->channels; c++) {
    NcclChannelSpan span = channel_begin(pl);
    guint64 sc = nccl_share(pl->bytes, pl->channels, c);
    guint64 vol = (guint64)((double)sc * nvls_edge_factor(pl));
    /* NCCL's loop: a channel scatters one chunk to each of the node's
     * heads (a head per GPU, at most 32 from 2.25.1: all_reduce.h
     * loopCount = nHeads x chunk) and each head reduces and multicasts
     * its own, so a switch edge moves a loop's worth of its volume at a
     * time, what the network moves as one chunk */
    guint64 loop = (guint64)MAX(
        (double)vol * cm->nvls_heads * pl->slice / (double)MAX(sc, 1), 1.0);
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
        g_array_index(pl->edges, NcclEdge, e).slice = loop;
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
       * result back down before the NVLS multicast.  Where faults took
       * NICs down, NCCL's NVLS search finds a head per NIC up: the data
       * splits over those (nvls_heads, rail_local). */
      guint64 inter = MAX(sc / heads, 1);
      guint32 which = c % 2;
      g_autofree guint32 *td = g_new(guint32, (gsize)m * heads);

      for (guint32 i = 0; i < heads; i++) {
        memcpy(&td[i * m], node_up, m * sizeof(guint32));
        if (!plan_node_tree(pl, c, which, head_rail[i], inter, &td[i * m], NULL,
                            error))
          return FALSE;
      }
      for (guint32 k = 0; k < m; k++) {
        g_autofree guint32 *all = g_new(guint32, heads);

        for (guint32 i = 0; i < heads; i++)
          all[i] = td[i * m + k];
        node_down[k] = add_hop_n(pl, SIM_NONE, all, heads);
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
        g_array_index(pl->edges, NcclEdge, e).slice = loop;
        add_hop(pl, e, prev, SIM_NONE);
      }
    }
    if (!channel_end(pl, &span, error))
      return FALSE;
  }
  return TRUE;
}

/* CollNet (SHARP): inside each node the channel's data gathers at the
 * channel's NIC GPU (Direct: every GPU sends its 1/ppn share straight to
 * it; Chain: a chain as Tree's), goes up to the switches, which reduce it
 * and send the result back down, and spreads out again.  The network's
 * reduction is modelled as one round trip NIC -> first switch -> NIC. */
static gboolean plan_collnet(NcclPlan *pl, GError **error)
{
  const NcclComm *cm = pl->comm;
  guint32 ppn = cm->ppn, m = cm->nnodes;
  gboolean direct = pl->algo == NCCL_ALGO_COLLNET_DIRECT;

  for (guint32 c = 0; c < pl->channels; c++) {
    NcclChannelSpan span = channel_begin(pl);
    guint64 sc = nccl_share(pl->bytes, pl->channels, c);

    for (guint32 k = 0; k < m; k++) {
      guint32 head = ring_rank(pl, c, k * ppn);
      guint32 gathered = SIM_NONE, e, up, back;
      guint32 rail_gpu = cm->local_of[head % ppn];
      SimNodeId nic, peer_nic;
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
      if (!server_nic(pl, cm->server_of[k], rail_gpu, &nic, error) ||
          !server_nic(pl, cm->server_of[peer], rail_gpu, &peer_nic, error) ||
          !topo_route_network(pl->sys, nic, peer_nic, c, NULL, &net, error))
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
    if (!channel_end(pl, &span, error))
      return FALSE;
  }
  return TRUE;
}

/* PAT (one GPU per node): AllGather / ReduceScatter in log2(n) rounds of
 * doubling distance, as Bruck's algorithm, each rank exchanging with the
 * rank 2^k away the data gathered so far. */
static gboolean plan_pat(NcclPlan *pl, GError **error)
{
  guint32 n = pl->comm->nranks;

  for (guint32 c = 0; c < pl->channels; c++) {
    NcclChannelSpan span = channel_begin(pl);
    guint64 sc = nccl_share(pl->bytes, pl->channels, c);
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
    if (!channel_end(pl, &span, error))
      return FALSE;
  }
  return TRUE;
}

/* A point-to-point plan's operation: a pair's bytes (select_p2p). */
static guint64 p2p_op(const NcclPlan *pl)
{
  return pl->coll == NCCL_COLL_ALLTOALL ? pl->bytes / pl->comm->nranks
                                        : pl->bytes;
}

/* Send/Recv (rank r to r+1, as sendrecv_perf) and AllToAll (every rank to
 * every other, S/n each): NCCL's p2p transfers, Simple, spread over the
 * channels; all at once, so the fabric shares them.  A rank's channels
 * (its CTAs) carry all its operations at once (enqueue.cc addP2pToPlan
 * puts up to NCCL_MAX_DEV_WORK_P2P_PER_BATCH of them in a channel's batch,
 * its warps split between them): an AllToAll's n - 1 sends share the
 * channels' bandwidth, each pair 1/(n - 1) of it, as they move equal
 * bytes. */
static gboolean plan_p2p_sources(NcclPlan *pl, guint32 r0, guint32 r1,
                                 GError **error)
{
  guint32 n = pl->comm->nranks;
  guint64 bytes = 0;
  /* across nodes a small operation's chunk is cut (the network's tuning,
   * nccl_p2p_op_chunk_bytes) */
  guint64 net_slice = 2 * nccl_p2p_op_chunk_bytes(pl->comm, p2p_op(pl));

  /* What one pair carries: its part of every channel's share. */
  for (guint32 c = 0; c < pl->channels; c++) {
    guint64 sc = nccl_share(pl->bytes, pl->channels, c);

    bytes += pl->coll == NCCL_COLL_SENDRECV ? sc : sc / n;
  }
  /* A pair's channels all take the sender's route (across nodes through
   * its own NIC) with the same bytes and cap, and every pair has as many:
   * one transfer of all of them at `channels` caps gets what they would
   * together under max-min sharing, with 1/channels of the transfers (an
   * AllToAll has n^2 pairs). */
  for (guint32 r = r0; r < r1; r++) {
    for (guint32 d = 1; d < n; d++) {
      guint32 e;

      if (pl->coll == NCCL_COLL_SENDRECV && (d > 1 || (pl->one_way && r > 0)))
        break;
      if (!add_edge(pl, r, (r + d) % n, 0, r % pl->comm->ppn, bytes, SIM_NONE,
                    &e, error))
        return FALSE;
      g_array_index(pl->edges, NcclEdge, e).lanes = pl->channels;
      if (pl->coll == NCCL_COLL_ALLTOALL)
        g_array_index(pl->edges, NcclEdge, e).cap_Bps = pl->cap_Bps / (n - 1);
      if (rank_node(pl, r) != rank_node(pl, (r + d) % n))
        g_array_index(pl->edges, NcclEdge, e).slice = net_slice;
      add_hop(pl, e, SIM_NONE, SIM_NONE);
    }
  }
  return TRUE;
}

static gboolean plan_p2p(NcclPlan *pl, GError **error)
{
  return plan_p2p_sources(pl, 0, pl->comm->nranks, error);
}

void nccl_plan_clear(NcclPlan *pl)
{
  if (pl->edges) {
    for (guint32 i = 0; i < pl->edges->len; i++)
      g_free(g_array_index(pl->edges, NcclEdge, i).rounds);
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
  if (pl->classes)
    g_array_free(pl->classes, TRUE);
}

/* A point-to-point plan's pipeline unit: two of its chunks
 * (nccl_p2p_chunk_bytes; across nodes an edge's own, plan_p2p_sources),
 * as a ring's Simple slice is two steps. */
static guint64 p2p_slice_bytes(const NcclPlan *pl)
{
  return nccl_p2p_chunk_bytes(pl->comm) * 2;
}

G_STATIC_ASSERT(NCCL_N_ALGOS == MDL_NCCL_ALGOS &&
                NCCL_N_PROTOS == MDL_NCCL_PROTOS);

/* A calibration's efficiency of the protocol ([nccl] in a model file): the
 * algorithm's own where one is set, else the protocol's.  Point-to-point
 * runs the Simple primitives a ring runs (prims_simple.h), so it takes
 * Ring/Simple's where that is set. */
static double proto_efficiency(const NcclPlan *pl)
{
  const MdlNcclTuning *t = mdl_registry_nccl(topo_system_models(pl->comm->sys));
  NcclAlgo a = pl->coll < NCCL_N_TUNED_COLLS ? pl->algo : NCCL_ALGO_RING;
  NcclProto p = pl->coll < NCCL_N_TUNED_COLLS ? pl->proto : NCCL_PROTO_SIMPLE;

  return mdl_nccl_efficiency(t, a, p);
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
static double nvls_span_factor(const NcclPlan *pl)
{
  const NcclComm *c = pl->comm;

  if (pl->coll != NCCL_COLL_ALLREDUCE || c->nnodes < 2 || c->ppn < 2)
    return 1.0;
  return ((double)c->nranks / (c->nranks - 1)) /
         ((double)c->ppn / (c->ppn - 1));
}

/* Bandwidth one channel of the algorithm moves per edge, bytes/s. */
static double channel_cap(const NcclPlan *pl)
{
  const NcclComm *c = pl->comm;

  if (pl->coll >= NCCL_N_TUNED_COLLS) {
    /* p2p: Simple over NVLink/PCIe at [nccl] p2p_copy_ratio of the GPU's
     * NCCL bandwidth, shared by the channels; across nodes the NIC limits.
     * NCCL's point-to-point kernel is not a ring's pipeline: a channel's
     * CTA (640 threads) splits its warps between the sends and receives
     * of up to NCCL_MAX_DEV_WORK_P2P_PER_BATCH (8) operations, each with
     * primitives of its own (sendrecv.h RunWorkBatch of 2.28), and NCCL's
     * cost model has no figure for it.  The published runs move less than
     * their rings: the 8x A100 SendRecv 189-195 GB/s where the same GPUs'
     * ring reached 235, the GB200 and GB300 AllToAlls 625-685 GB/s of bus
     * bandwidth where rings' AllGather reached 683-693 (docs/nccl.md). */
    return c->gpu_GBps *
           mdl_registry_nccl(topo_system_models(pl->sys))->p2p_copy_ratio *
           1e9 / pl->channels;
  }
  /* An NVLS channel's CTA copies the GPU's whole share of the buffer:
   * its scatter warps into the NVLS buffer and its gather warps out of it
   * (all_reduce.h of 2.28, RunWorkColl NVLS: 8 and 7 of 20 warps for more
   * than 6 ranks, 7 and 6 up to 6; AllGather's gather warps copy the
   * whole output, ReduceScatter's scatter warps the whole input), local
   * copies whatever the number of GPUs.  Only the multimem reduction and
   * multicast cross the NVLinks, S (1 + 1/ppn) each way.  A channel's
   * copies run at [nccl] nvls_copy_ratio of the bandwidth NCCL's model
   * gives the channel (the GPU's NVLink bandwidth x NVLS efficiency /
   * the NVLS graph's channels), and its switch edges, which move
   * nvls_edge_factor per byte of the share, at as much more.  A call on
   * fewer channels than the graph's (a small call's traffic, a tuner's
   * count, NCCL_MAX_CTAS) moves that much less: one CTA does not move
   * what the GPU's NVLinks carry. */
  if (pl->algo == NCCL_ALGO_NVLS || pl->algo == NCCL_ALGO_NVLS_TREE)
    return c->gpu_GBps * nccl_nvls_efficiency(c->arch) *
           mdl_registry_nccl(topo_system_models(pl->sys))->nvls_copy_ratio *
           nvls_edge_factor(pl) * nvls_span_factor(pl) * 1e9 /
           MAX(c->nvls_channels, pl->channels);
  /* A Tree channel's CTA carries two streams at once, the reduction up
   * and the broadcast down (all_reduce.h runTreeSplit gives each half its
   * warps; runTreeUpDown takes them in turn): each edge moves at half the
   * channel's bandwidth, NCCL's own Tree ratio of .5 (tuning.cc) */
  if (pl->algo == NCCL_ALGO_TREE)
    return c->bus_ch[pl->coll][pl->algo][pl->proto] * 0.5e9 * c->channels /
           c->kernel_channels;
  /* the graph's channel bandwidth, shared by the channels the kernel runs
   * for each of the graph's */
  return c->bus_ch[pl->coll][pl->algo][pl->proto] * 1e9 * c->channels /
         c->kernel_channels;
}

/* SHM connections whose CTA works both sides of host memory.  A channel's
 * CTA that receives over SHM loads from a host buffer, and one that sends
 * stores into the peer's; the stores are posted, the loads wait for their
 * data, and on PCIe a GPU's read requests queue behind its own writes.  A
 * CTA that only sends (a Broadcast root) or only receives (its last rank)
 * runs at the links' rate; one that does both (every middle rank of a
 * ring, both ranks of a 2-rank AllReduce, every rank of an AllToAll) runs
 * its SHM connections at [nccl] shm_duplex_GBps each way for the GPU,
 * shared by all such connections of the GPU (a ring's channels, a
 * point-to-point pair's lanes), whatever the channels: two RTX 2080 Ti
 * without P2P (reference2, autodl) moved 3.95 GB/s each way of AllToAll
 * on one point-to-point channel up to 8 MiB (NCCL's count,
 * p2p_op_cut) and 4.45-4.6 on two from 16 MiB, where their ring
 * AllReduce on two channels moved 4.0.  Whether a GPU whose CTAs only
 * send in one channel and only receive in another (a ring across nodes
 * whose channels turn opposite ways) queues the same, no run here shows:
 * those keep the links' rate.  Marks the edges' cap, never above the one
 * they had (a lane's share of the channel). */
static void shm_caps(NcclPlan *pl)
{
  NcclEdge *edges = (NcclEdge *)(void *)pl->edges->data;
  double duplex =
      mdl_registry_nccl(topo_system_models(pl->sys))->shm_duplex_GBps * 1e9;
  g_autoptr(GHashTable) sends = NULL, recvs = NULL;
  g_autofree guint32 *out = NULL, *in = NULL;
  g_autofree guint8 *both = NULL;

  if (!pl->comm->shm)
    return;
  /* (rank, channel) pairs with an SHM send, and with an SHM receive */
  sends = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  recvs = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  for (guint32 i = 0; i < pl->edges->len; i++) {
    const NcclEdge *e = &edges[i];

    if (!e->shm)
      continue;
    g_hash_table_add(sends,
                     g_memdup2(&(gint64){(gint64)e->src << 32 | e->channel},
                               sizeof(gint64)));
    g_hash_table_add(recvs,
                     g_memdup2(&(gint64){(gint64)e->dst << 32 | e->channel},
                               sizeof(gint64)));
  }
  /* the duplex connections each GPU sends and receives: a pair's lanes,
   * a folded edge's copies */
  out = g_new0(guint32, pl->comm->nranks);
  in = g_new0(guint32, pl->comm->nranks);
  both = g_new0(guint8, pl->edges->len);
  for (guint32 i = 0; i < pl->edges->len; i++) {
    const NcclEdge *e = &edges[i];
    gint64 src = (gint64)e->src << 32 | e->channel;
    gint64 dst = (gint64)e->dst << 32 | e->channel;

    if (!e->shm || !(g_hash_table_contains(recvs, &src) ||
                     g_hash_table_contains(sends, &dst)))
      continue;
    both[i] = 1;
    out[e->src] += MAX(e->lanes, 1) * MAX(e->copies, 1);
    in[e->dst] += MAX(e->lanes, 1) * MAX(e->copies, 1);
  }
  for (guint32 i = 0; i < pl->edges->len; i++) {
    NcclEdge *e = &edges[i];

    if (both[i])
      e->cap_Bps = MIN(e->cap_Bps > 0 ? e->cap_Bps : pl->cap_Bps,
                       duplex / MAX(out[e->src], in[e->dst]));
  }
}

/* Stragglers (topo_gpu_slowdown: a GPU whose work takes f times as long,
 * such as one held at lower clocks): a channel's CTA on that GPU copies
 * and reduces f times slower, so each edge it sends or receives on runs
 * at the channel's rate over f, and the protocol steps it waits on in GPU
 * memory (flags, fences) take f times as long; a network step's proxy
 * time is the host's, and the links are as fast as before.  Marks those
 * edges' cap and step. */
static void straggler_caps(NcclPlan *pl)
{
  const NcclComm *c = pl->comm;
  NcclEdge *edges = (NcclEdge *)(void *)pl->edges->data;
  g_autofree double *slow = NULL;
  gboolean any = FALSE;

  slow = g_new(double, c->nranks);
  for (guint32 r = 0; r < c->nranks; r++) {
    slow[r] = topo_gpu_slowdown(pl->sys, nccl_comm_rank_server(c, r),
                                nccl_comm_rank_local(c, r));
    any |= slow[r] > 1;
  }
  if (!any)
    return;
  for (guint32 i = 0; i < pl->edges->len; i++) {
    NcclEdge *e = &edges[i];
    double f = MAX(e->src < c->nranks ? slow[e->src] : 1,
                   e->dst < c->nranks ? slow[e->dst] : 1);

    if (f <= 1)
      continue;
    e->cap_Bps = (e->cap_Bps > 0 ? e->cap_Bps : pl->cap_Bps) / f;
    if (!e->proxied)
      e->step_ps = (SimTime)llround((double)e->step_ps * f);
  }
}

/* The chance that a packet of `payload` bytes is lost on a path: one of
 * its lossy hops corrupts a bit of it (its wire bytes on that link). */
static double path_loss(const NcclPlan *pl, const SimPath *p, guint32 payload)
{
  double ok = 1;

  for (guint32 h = 0; h < p->n; h++) {
    double ber = topo_channel_ber(pl->sys, p->hop[h]);
    const MdlLink *l;

    if (ber <= 0)
      continue;
    l = topo_channel_link(pl->sys, p->hop[h]);
    ok *= pow(1 - ber, 8.0 * (double)mdl_link_wire_bytes(
                                 l, payload, MIN(payload, l->max_payload_bytes),
                                 MDL_OP_WRITE));
  }
  return 1 - ok;
}

/* Links that corrupt bits (topo_channel_ber; after FEC, a packet with an
 * error is dropped at the next hop, its ICRC failing).  NCCL's network
 * connections are reliable-connected QPs, which recover by go-back-N: the
 * receiver NAKs the first packet after a gap, and the sender resends from
 * the lost one everything it had sent since, a window W of the
 * connection's rate times its round trip.  A connection that loses each
 * packet with chance p then delivers (1 - p) / (1 - p + p W) of what it
 * sends: its edge's transfers put the inverse of that on the wire
 * (e->resend) for every byte delivered, at the same rate of delivered
 * bytes where the channel's CTA binds, and loading every link of their
 * path with the resent bytes where a link binds.  A lost packet that no other
 * follows draws no NAK, and waits for the retransmission timer: the
 * receiver's clear-to-send for every step, a 64-byte RDMA write of its
 * FIFO entry (net_ib.cc ncclIbPostFifo), and the last packet of the
 * connection's last step.  The chance that the call loses one of those
 * is pl->stall_prob.  The window is taken at the channel's cap over twice
 * the path's latency, and the resent bytes load the hops before the loss
 * as much as those after it. */
static void lossy_caps(NcclPlan *pl)
{
  NcclEdge *edges = (NcclEdge *)(void *)pl->edges->data;
  double all_ok = 1;
  guint64 step;

  pl->stall_prob = 0;
  if (!topo_system_lossy(pl->sys))
    return;
  /* the data a step moves: the protocol's, a point-to-point chunk */
  step = pl->coll < NCCL_N_TUNED_COLLS
             ? nccl_step_data_bytes(pl->comm, pl->proto)
             : nccl_p2p_op_chunk_bytes(pl->comm, p2p_op(pl));
  for (guint32 i = 0; i < pl->edges->len; i++) {
    NcclEdge *e = &edges[i];
    const SimPath *paths = &g_array_index(pl->paths, SimPath, e->first_path);
    double cap = e->cap_Bps > 0 ? e->cap_Bps : pl->cap_Bps, p = 0, cts = 0;
    double copies = (double)MAX(e->copies, 1) * MAX(e->lanes, 1);
    double steps, window;
    guint32 mtu = 4096;
    SimTime rtt;

    for (guint32 k = 0; k < e->n_paths; k++) {
      for (guint32 h = 0; h < paths[k].n; h++) {
        if (topo_channel_ber(pl->sys, paths[k].hop[h]) > 0)
          mtu = MIN(
              mtu,
              topo_channel_link(pl->sys, paths[k].hop[h])->max_payload_bytes);
      }
      p = MAX(p, path_loss(pl, &paths[k], mtu));
      cts = MAX(cts, path_loss(pl, &paths[k], 64));
    }
    if (p <= 0)
      continue;
    rtt = 2 * sim_paths_latency_ps(pl->fabric, paths, e->n_paths);
    window = ceil(cap * sim_time_to_s(rtt) / mtu) + 1;
    e->resend = (1 - p + p * window) / (1 - p);
    steps = ceil((double)e->bytes / (double)step);
    all_ok *= pow(1 - cts, steps * copies) * pow(1 - p, copies);
  }
  pl->stall_prob = 1 - all_ok;
}

/* What a socket connection moves (transport/net_socket.cc).  Every byte
 * is copied through the kernel by a send() on the sending side and a
 * recv() on the receiving one, on one thread at [nccl] socket_thread_GBps
 * (bytes sent and received together).  With no helper sockets (the
 * default on a NIC that is not AWS's or Google's virtual one) that thread
 * is the rank's proxy thread, which moves every socket connection of the
 * rank, both ways: a connection gets the thread's rate shared by the
 * connections of its busier end.  With NCCL_SOCKET_NTHREADS and
 * NCCL_NSOCKS_PERTHREAD, each connection has helper threads of its own
 * and a request is cut into tasks of at least NCCL_SOCKET_MIN_TASKSIZE
 * (64 KiB) over its sockets, threads taking them in turn: a step of k
 * tasks runs on min(k, threads) of them.  Marks the socket edges' cap
 * (per channel: a p2p edge's lanes are connections of their own). */
static void socket_caps(NcclPlan *pl)
{
  const NcclComm *c = pl->comm;
  NcclEdge *edges = (NcclEdge *)(void *)pl->edges->data;
  double rate =
      mdl_registry_nccl(topo_system_models(pl->sys))->socket_thread_GBps * 1e9;
  g_autofree guint32 *conns = NULL;

  if (!c->socket)
    return;
  if (c->socket_socks > 0) {
    guint64 tasks = MAX((pl->slice + 65535) / 65536, 1);

    rate *= MIN(tasks, c->socket_threads);
  } else if (!pl->given_conns) {
    conns = g_new0(guint32, c->nranks);
    for (guint32 i = 0; i < pl->edges->len; i++) {
      if (edges[i].src < c->nranks && edges[i].dst < c->nranks &&
          rank_node(pl, edges[i].src) != rank_node(pl, edges[i].dst)) {
        guint32 k = MAX(edges[i].lanes, 1) * MAX(edges[i].copies, 1);

        conns[edges[i].src] += k;
        conns[edges[i].dst] += k;
      }
    }
  }
  for (guint32 i = 0; i < pl->edges->len; i++) {
    NcclEdge *e = &edges[i];
    double cap = rate;

    if (e->src >= c->nranks || e->dst >= c->nranks ||
        rank_node(pl, e->src) == rank_node(pl, e->dst))
      continue;
    if (conns)
      cap /= MAX(conns[e->src], conns[e->dst]);
    else if (c->socket_socks == 0)
      cap /= MAX(pl->given_conns[e->src], pl->given_conns[e->dst]);
    cap /= pl->inflate; /* the thread copies LL's and LL128's flags too */
    e->cap_Bps = MIN(e->cap_Bps > 0 ? e->cap_Bps : pl->cap_Bps, cap);
  }
}

/* The proxy threads' queues.  Each rank has one proxy thread, and it
 * progresses every net connection of the call in turn: NCCL's
 * proxyProgress walks its active operations, and sendProxyProgress and
 * recvProxyProgress walk each operation's per-channel subs, one action
 * (post, test, flush) at a time.  While k sends of a rank are busy, the post of one waits for the
 * posts of the others, so a step costs an edge its send action times the
 * sends its sender's proxy serves, plus its receive actions (Simple's
 * hand-over, and its flush where NCCL asks one) times the receives its
 * receiver's proxy serves.  Receives are posted ahead of the data and
 * polls of an idle sub are cheap, so sends queue behind sends and
 * receives behind receives.  A tree's reduction up and its broadcast down
 * are counted apart: a chunk crosses one, then the other.  A ring on one
 * channel leaves each proxy one send; 16 channels over 8 NICs leave it
 * two; an AllToAll rank posts to each of its peers across nodes (a
 * pair's channels counted as one: the plan spreads every pair over all
 * the channels, where NCCL gives a pair only its p2pnChannelsPerPeer).
 *
 * Fitted (bench_accuracy, net_proxy_us with this count): 2.10 us per
 * action (a flat optimum: the fit gives 2.15 since a ring body's step
 * latencies queue, exec.c, and gives 2.15 again with 2.15 shipped; the
 * pooled error below 1 MiB 12.6% in-sample at 2.10, 12.8% at 2.15, 14.3%
 * left out at either);
 * 2.15 before NCCL's search set the channels across nodes (then 2.10 over
 * the RDMA runs alone, 2.05 with the TCP run, 2.15 with the EFA runs too),
 * and 2.35 us when every connection was counted as alone. */
static void proxy_queues(NcclPlan *pl)
{
  NcclEdge *edges = (NcclEdge *)(void *)pl->edges->data;
  guint32 n = pl->comm->nranks;
  guint32 recv_actions = net_proxy_actions(pl->comm, pl->proto) - 1;
  double action = proxy_action_us(pl->comm);
  g_autofree guint32 *counted_sends = NULL, *counted_recvs = NULL;
  const guint32 *sends = pl->given_sends, *recvs = pl->given_recvs;
  /* a point-to-point pair's chunk across nodes (below) */
  double chunk = pl->coll >= NCCL_N_TUNED_COLLS
                     ? (double)nccl_p2p_op_chunk_bytes(pl->comm, p2p_op(pl))
                     : 0;

  for (guint32 i = 0; !pl->given_sends && i < pl->edges->len; i++) {
    if (!edges[i].proxied)
      continue;
    if (!counted_sends) {
      counted_sends = g_new0(guint32, 2 * n);
      counted_recvs = g_new0(guint32, 2 * n);
    }
    counted_sends[2 * edges[i].src + edges[i].down] += MAX(edges[i].copies, 1);
    counted_recvs[2 * edges[i].dst + edges[i].down] += MAX(edges[i].copies, 1);
  }
  if (!pl->given_sends) {
    sends = counted_sends;
    recvs = counted_recvs;
  }
  if (!sends)
    return;
  for (guint32 i = 0; i < pl->edges->len; i++) {
    NcclEdge *e = &edges[i];

    if (!e->proxied)
      continue;
    e->step_ps =
        us_ps(action * (sends[2 * e->src + e->down] +
                        (double)recv_actions * recvs[2 * e->dst + e->down]));
    /* A step is a pass of the proxies over their connections, each
     * advanced one action, so a connection moves at most a step's data a
     * step_ps.  A ring's steps pay step_ps each in the DAG (body_steps,
     * exec.c).  A point-to-point pair, whose steps nothing else waits on,
     * gets it as a cap: a chunk (nccl_p2p_chunk_bytes, NCCL_P2P_NET_
     * CHUNKSIZE, 128 KiB) a step_ps, over its lanes.  So a rank's traffic
     * across nodes is at most a chunk per (1 + receive actions) actions,
     * whatever its peers: 128 KiB / (3 x 2.1 us), 20.8 GB/s a GPU each
     * way with a flush.  OCI's AllToAll on two GB300 racks measured 23.8
     * GB/s a GPU across them, the A4X test plan's on two GB200 domains
     * 32.7 (ifsim gave 76 and 49 before; reference2, bench_accuracy); a
     * larger NCCL_P2P_NET_CHUNKSIZE raises sendrecv_perf across nodes
     * (NVIDIA/nccl#1496), and aws-ofi-nccl sets 512 KiB on p5 and p6. */
    if (chunk > 0 && e->step_ps > 0) {
      double lane = chunk / ((double)e->step_ps / 1e12) / MAX(e->lanes, 1);

      e->cap_Bps = MIN(e->cap_Bps > 0 ? e->cap_Bps : pl->cap_Bps, lane);
    }
  }
}

/* A plan's parameters before its edges: the protocol's inflation, the
 * pipeline slice, the channel cap and the launch latency. */
static void plan_init(NcclPlan *pl, const NcclComm *comm, NcclColl coll,
                      guint64 bytes, const NcclChoice *choice)
{
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
  pl->edges = g_array_new(FALSE, TRUE, sizeof(NcclEdge));
  pl->hops = g_array_new(FALSE, TRUE, sizeof(NcclHop));
  pl->preds = g_array_new(FALSE, FALSE, sizeof(guint32));
  pl->routes = g_array_new(FALSE, FALSE, sizeof(NcclRoute));
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
                  : p2p_slice_bytes(pl);
  /* LL and LL128 carry a flag in every line, so a receiver forwards each
   * warp's lines as soon as they land, not a whole step: the head crosses
   * a hop after one warp's data, 32 lines of 8 data bytes for LL, NCCL's
   * LL128 grain (32 x 8 x 8 B x 15/16 = 1920 B) for LL128. */
  if (choice->proto == NCCL_PROTO_LL)
    pl->slice = MIN(pl->slice, 32 * 8);
  else if (choice->proto == NCCL_PROTO_LL128)
    pl->slice = MIN(pl->slice, 1920);
  pl->cap_Bps = channel_cap(pl) * proto_efficiency(pl);
  /* NCCL's base latency of the algorithm and protocol (tuning.cc
   * baseLat); point-to-point, which NCCL's model leaves out, pays
   * Ring/Simple's, its kernel running the same Simple primitives: two RTX
   * 2080 Ti's AllToAll through host memory (reference2, autodl) took about
   * 15 us beside its bytes from 32 KiB to 1 MiB, where ifsim gave 5.7
   * without it, and AWS's p6-b300 pair's 64 KiB AllToAll 43.9 us where it
   * gave 36.4 */
  pl->base_ps =
      us_ps(nccl_base_latency_us(choice->algo, choice->proto)) +
      us_ps(mdl_registry_nccl(topo_system_models(comm->sys))->latency_us);
}

/* Plans a call (plan.h). */
gboolean nccl_plan_build(NcclPlan *pl, const NcclComm *comm, NcclColl coll,
                         guint64 bytes, const NcclChoice *choice,
                         GError **error)
{
  gboolean ok = FALSE;

  plan_init(pl, comm, coll, bytes, choice);
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
  if (ok) {
    shm_caps(pl);
    socket_caps(pl);
    straggler_caps(pl);
    lossy_caps(pl);
    proxy_queues(pl);
  }
  return ok && plan_memory_check(pl, TRUE, error);
}

/* The channels' wire bytes so far, and each channel's wire ratio for the
 * last share it was asked for (an AllToAll's pairs put the same shares on
 * a channel again and again). */
typedef struct {
  double *load;
  guint64 *share;
  double *ratio;
} ChannelLoads;

/* One transfer's wire bytes on the channels of its paths, its bytes split
 * by the paths' weights as the transport splits them (sim_transfer_share,
 * in one pass): added to the loads. */
static void load_transfer(const NcclPlan *pl, const NcclEdge *e, guint64 bytes,
                          ChannelLoads *cl)
{
  const SimPath *paths = &g_array_index(pl->paths, SimPath, e->first_path);
  guint64 left = bytes;

  for (guint32 k = 0; k < e->n_paths; k++) {
    guint64 share =
        k + 1 < e->n_paths
            ? MIN((guint64)llround(
                      (double)bytes *
                      g_array_index(pl->weights, double, e->first_path + k)),
                  left)
            : left;

    left -= share;
    for (guint32 h = 0; share > 0 && h < paths[k].n; h++) {
      SimChannelId c = paths[k].hop[h];

      if (cl->share[c] != share) {
        cl->share[c] = share;
        cl->ratio[c] = topo_wire_ratio((void *)pl->sys, c, share);
      }
      cl->load[c] += (double)share * cl->ratio[c] * MAX(e->copies, 1);
    }
  }
}

/* An AllToAll in closed form (plan.h).  Every rank sends to and receives
 * from each rank on another node, so the connections its proxy and
 * socket threads serve are known before any pair is planned (proxy_queues
 * and socket_caps count them so over a whole plan).  The pairs are
 * planned a source node's at a time, so that shm_caps sees every SHM
 * connection of that node's ranks (SHM joins ranks of one node). */
gboolean nccl_plan_alltoall_closed(const NcclComm *comm, guint64 bytes,
                                   const NcclChoice *choice, SimTime *time_ps,
                                   GError **error)
{
  NcclPlan pl = {0};
  guint32 n = comm->nranks;
  guint32 far = n - comm->ppn; /* a rank's peers on other nodes */
  guint32 rounds = 0;          /* exec.c's, from the plan's first edge */
  g_autofree guint32 *conns = g_new(guint32, n);
  g_autofree guint32 *sends = g_new0(guint32, 2 * n);
  g_autofree guint32 *recvs = g_new0(guint32, 2 * n);
  ChannelLoads cl;
  double busiest = 0;
  SimTime chain = 0, alone = 0;
  gboolean ok = TRUE;

  plan_init(&pl, comm, NCCL_COLL_ALLTOALL, bytes, choice);
  cl.load = g_new0(double, sim_fabric_n_channels(pl.fabric));
  cl.share = g_new0(guint64, sim_fabric_n_channels(pl.fabric));
  cl.ratio = g_new0(double, sim_fabric_n_channels(pl.fabric));
  for (guint32 r = 0; r < n; r++) {
    conns[r] = 2 * far * pl.channels; /* each pair's lanes, both ends */
    sends[2 * r] = recvs[2 * r] = proxied(&pl, TRUE) ? far : 0;
  }
  pl.given_conns = conns;
  pl.given_sends = sends;
  pl.given_recvs = recvs;
  for (guint32 r0 = 0; ok && r0 < n; r0 += comm->ppn) {
    g_array_set_size(pl.edges, 0);
    g_array_set_size(pl.hops, 0);
    g_array_set_size(pl.preds, 0);
    g_array_set_size(pl.paths, 0);
    g_array_set_size(pl.weights, 0);
    ok = plan_p2p_sources(&pl, r0, r0 + comm->ppn, error);
    if (!ok)
      break;
    shm_caps(&pl);
    socket_caps(&pl);
    proxy_queues(&pl);
    for (guint32 i = 0; i < pl.edges->len; i++) {
      const NcclEdge *e = &g_array_index(pl.edges, NcclEdge, i);
      const SimPath *paths = &g_array_index(pl.paths, SimPath, e->first_path);
      double f = pl.inflate * (e->resend > 0 ? e->resend : 1);
      double cap =
          (e->cap_Bps > 0 ? e->cap_Bps : pl.cap_Bps) * f * MAX(e->lanes, 1);
      guint64 head =
          MIN(MIN(e->slice ? e->slice : pl.slice, e->visit_bytes), e->bytes);
      guint64 body = e->bytes - head;
      guint64 head_x = (guint64)ceil((double)head * f);
      guint64 body_x = (guint64)ceil((double)body * f);
      SimTime lat = sim_paths_latency_ps(pl.fabric, paths, e->n_paths);

      if (rounds == 0) /* exec.c's, from the first edge at the cap */
        rounds =
            nccl_exec_rounds(body, pl.cap_Bps > 0 ? pl.cap_Bps : 1e12, e->lanes,
                             sim_path_latency_ps(pl.fabric, paths));
      /* the step latency, the head's path latency, and a path latency
       * for each body round (one transfer and a delay for the others, or
       * a transfer each: the same); then its bytes at its own cap */
      SimTime own = e->step_ps + lat * (body > 0 ? 1 + rounds : 1);

      chain = MAX(chain, own);
      alone = MAX(alone,
                  own + (SimTime)ceil((double)(head_x + body_x) / cap * 1e12));
      load_transfer(&pl, e, head_x, &cl);
      load_transfer(&pl, e, body_x, &cl);
    }
  }
  if (ok) {
    for (SimChannelId c = 0; c < sim_fabric_n_channels(pl.fabric); c++)
      if (cl.load[c] > 0)
        busiest = MAX(busiest,
                      cl.load[c] / sim_fabric_channel(pl.fabric, c)->rate_Bps);
    *time_ps = pl.base_ps + MAX(alone, chain + (SimTime)ceil(busiest * 1e12));
  }
  pl.given_conns = pl.given_sends = pl.given_recvs = NULL;
  nccl_plan_clear(&pl);
  g_free(cl.load);
  g_free(cl.share);
  g_free(cl.ratio);
  return ok;
}
