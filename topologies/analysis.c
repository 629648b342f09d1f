/* What `ifsim topo` reports: counts, per-GPU bandwidths, bisection
 * bandwidth (computed as a maximum flow, not assumed from the shape),
 * diameters and per-tier oversubscription.
 *
 * Bisection: the minimum cut between the first and the second half of the
 * servers' NICs (scale-out) or of server 0's GPUs (scale-up), found as the
 * maximum flow (Dinic's algorithm) over the channels' data rates.  For the
 * regular shapes built here this split is the worst balanced one; for an
 * arbitrary graph it is an upper bound of the true (NP-hard) bisection. */
#include <string.h>

#include "sim/interrupt.h"
#include "topologies/system_internal.h"

/* --- maximum flow (Dinic), capacities in kbit/s --------------------------- */

typedef struct {
  guint32 to, next;
  guint64 cap;
} FlowEdge;

typedef struct {
  guint32 n;
  guint32 *head;
  GArray *edges; /* FlowEdge; edge i and i ^ 1 are residual partners */
  guint32 *level, *iter, *queue, *stack;
} FlowNet;

static void flow_add(FlowNet *f, guint32 u, guint32 v, guint64 cap)
{
  FlowEdge e = {v, f->head[u], cap}, r = {u, f->head[v], 0};

  f->head[u] = f->edges->len;
  g_array_append_val(f->edges, e);
  f->head[v] = f->edges->len;
  g_array_append_val(f->edges, r);
}

static gboolean flow_bfs(FlowNet *f, guint32 s, guint32 t)
{
  FlowEdge *E = (FlowEdge *)f->edges->data;
  guint32 qh = 0, qt = 0;

  for (guint32 i = 0; i < f->n; i++)
    f->level[i] = G_MAXUINT32;
  f->level[s] = 0;
  f->queue[qt++] = s;
  while (qh < qt) {
    guint32 u = f->queue[qh++];
    for (guint32 e = f->head[u]; e != G_MAXUINT32; e = E[e].next) {
      if (E[e].cap > 0 && f->level[E[e].to] == G_MAXUINT32) {
        f->level[E[e].to] = f->level[u] + 1;
        f->queue[qt++] = E[e].to;
      }
    }
  }
  return f->level[t] != G_MAXUINT32;
}

/* Iterative DFS pushing one augmenting path along the level graph. */
static guint64 flow_dfs(FlowNet *f, guint32 s, guint32 t)
{
  FlowEdge *E = (FlowEdge *)f->edges->data;
  guint32 *stack_e = f->stack;
  guint32 depth = 0, u = s;
  guint64 pushed;

  for (;;) {
    if (u == t) {
      pushed = G_MAXUINT64;
      for (guint32 i = 0; i < depth; i++)
        pushed = MIN(pushed, E[stack_e[i]].cap);
      for (guint32 i = 0; i < depth; i++) {
        E[stack_e[i]].cap -= pushed;
        E[stack_e[i] ^ 1].cap += pushed;
      }
      return pushed;
    }
    for (; f->iter[u] != G_MAXUINT32; f->iter[u] = E[f->iter[u]].next) {
      guint32 e = f->iter[u];
      if (E[e].cap > 0 && f->level[E[e].to] == f->level[u] + 1)
        break;
    }
    if (f->iter[u] == G_MAXUINT32) {
      if (depth == 0)
        return 0;
      f->level[u] = G_MAXUINT32; /* dead end */
      depth--;
      u = depth ? E[stack_e[depth - 1]].to : s;
      f->iter[u] = E[f->iter[u]].next;
      continue;
    }
    stack_e[depth++] = f->iter[u];
    u = E[f->iter[u]].to;
  }
}

/* Whether a channel belongs to the network (switch to switch, NIC to
 * switch) rather than inside a server. */
static gboolean is_network(const TopoSystem *sys, const SimChannel *c)
{
  const SimNode *a = sim_fabric_node(sys->fabric, c->src);
  const SimNode *b = sim_fabric_node(sys->fabric, c->dst);
  return (a->kind == TOPO_NODE_NET_SWITCH || b->kind == TOPO_NODE_NET_SWITCH);
}

double topo_max_flow_Bps(const TopoSystem *sys, const SimNodeId *a, guint32 na,
                         const SimNodeId *b, guint32 nb, TopoFlowScope scope)
{
  guint32 nn = sim_fabric_n_nodes(sys->fabric);
  guint32 nc = sim_fabric_n_channels(sys->fabric);
  FlowNet f = {.n = nn + 2};
  guint32 s = nn, t = nn + 1;
  guint64 total = 0, pushed;
  g_autofree guint8 *side = g_new0(guint8, nn);

  for (guint32 i = 0; i < na; i++)
    side[a[i]] |= 1;
  for (guint32 i = 0; i < nb; i++)
    side[b[i]] |= 2;
  f.head = g_new(guint32, f.n);
  for (guint32 i = 0; i < f.n; i++)
    f.head[i] = G_MAXUINT32;
  f.edges = g_array_sized_new(FALSE, FALSE, sizeof(FlowEdge), 2 * nc + 64);
  for (SimChannelId c = 0; c < nc; c++) {
    const SimChannel *ch = sim_fabric_channel(sys->fabric, c);
    if ((scope == TOPO_FLOW_NETWORK && !is_network(sys, ch)) ||
        (scope == TOPO_FLOW_SERVER0 &&
         (ch->src >= sys->local_nodes || ch->dst >= sys->local_nodes)))
      continue;
    flow_add(&f, ch->src, ch->dst, (guint64)(ch->rate_Bps * 8 / 1000));
  }
  for (guint32 i = 0; i < nn; i++) {
    if (side[i] == 1)
      flow_add(&f, s, i, G_MAXUINT64 / 4);
    else if (side[i] == 2)
      flow_add(&f, i, t, G_MAXUINT64 / 4);
  }
  f.level = g_new(guint32, f.n);
  f.iter = g_new(guint32, f.n);
  f.queue = g_new(guint32, f.n);
  f.stack = g_new(guint32, f.n + 1);
  /* a signal ends the search (seconds on a million nodes): the figure is
   * then a lower bound nobody reads, as the caller stops at the signal */
  while (!sim_interrupted() && flow_bfs(&f, s, t)) {
    memcpy(f.iter, f.head, sizeof(guint32) * f.n);
    while ((pushed = flow_dfs(&f, s, t)) > 0)
      total += pushed;
  }
  g_free(f.head);
  g_free(f.level);
  g_free(f.iter);
  g_free(f.queue);
  g_free(f.stack);
  g_array_free(f.edges, TRUE);
  return (double)total * 1000 / 8;
}

/* --- diameters ------------------------------------------------------------- */

/* Longest shortest path, in switch hops, between switches that hold NICs,
 * over network switches only; +2 for the NIC hops.  BFS from each. */
static guint32 network_diameter(const TopoSystem *sys)
{
  const SimFabric *f = sys->fabric;
  guint32 nn = sim_fabric_n_nodes(f), first = sys->n_servers * sys->local_nodes;
  g_autofree guint32 *dist = g_new(guint32, nn);
  g_autofree guint32 *queue = g_new(guint32, nn);
  g_autofree gboolean *edge = g_new0(gboolean, nn);
  guint32 best = 0;

  if (first >= nn)
    return 0;
  if (topo_net_ops(sys) && topo_net_ops(sys)->diameter)
    return topo_net_ops(sys)->diameter(sys) + 2;
  for (guint i = 0; i < sys->endpoints->len; i++) {
    const TopoEndpoint *e = &g_array_index(sys->endpoints, TopoEndpoint, i);
    edge[sim_fabric_channel(f, e->up)->dst] = TRUE;
  }
  for (SimNodeId src = first; src < nn && !sim_interrupted(); src++) {
    guint32 qh = 0, qt = 0;
    if (!edge[src])
      continue;
    for (guint32 i = first; i < nn; i++)
      dist[i] = G_MAXUINT32;
    dist[src] = 0;
    queue[qt++] = src;
    while (qh < qt) {
      guint32 u = queue[qh++], deg;
      const SimChannelId *out = sim_fabric_out(f, u, &deg);
      if (edge[u])
        best = MAX(best, dist[u]);
      for (guint32 i = 0; i < deg; i++) {
        SimNodeId v = sim_fabric_channel(f, out[i])->dst;
        if (v >= first && dist[v] == G_MAXUINT32) {
          dist[v] = dist[u] + 1;
          queue[qt++] = v;
        }
      }
    }
  }
  return best + 2;
}

/* Most hops of the routes between server 0's GPUs, and from a GPU to its
 * NIC. */
static void intra_hops(const TopoSystem *sys, guint32 *gpu_gpu,
                       guint32 *gpu_nic)
{
  const TopoServerSpec *sp = sys->server;

  *gpu_gpu = *gpu_nic = 0;
  for (guint32 a = 0; a < sp->gpus; a++) {
    SimPathSet ps;
    for (guint32 b = 0; b < sp->gpus; b++) {
      if (a != b && topo_route_intra(sys, topo_gpu(sys, 0, a),
                                     topo_gpu(sys, 0, b), &ps)) {
        for (guint32 i = 0; i < ps.n; i++)
          *gpu_gpu = MAX(*gpu_gpu, ps.path[i].n);
      }
    }
    if (sp->nics && topo_route_intra(sys, topo_gpu(sys, 0, a),
                                     topo_nic(sys, 0, sp->affinity[a]), &ps))
      *gpu_nic = MAX(*gpu_nic, ps.path[0].n);
  }
}

/* --- summary ------------------------------------------------------------------ */

static double node_out_rate(const TopoSystem *sys, SimNodeId n, int family,
                            TopoNodeKind exclude_dst)
{
  guint32 deg;
  const SimChannelId *out = sim_fabric_out(sys->fabric, n, &deg);
  double sum = 0;

  for (guint32 i = 0; i < deg; i++) {
    const SimChannel *c = sim_fabric_channel(sys->fabric, out[i]);
    if (topo_channel_link(sys, out[i])->family == (guint32)family &&
        sim_fabric_node(sys->fabric, c->dst)->kind != exclude_dst)
      sum += c->rate_Bps;
  }
  return sum;
}

/* Down:up data-rate ratio of the most oversubscribed switch of a tier. */
static double tier_oversubscription(const TopoSystem *sys, guint32 tier)
{
  const SimFabric *f = sys->fabric;
  guint32 nn = sim_fabric_n_nodes(f);
  double worst = 0;

  for (SimNodeId n = sys->n_servers * sys->local_nodes; n < nn; n++) {
    const SimNode *node = sim_fabric_node(f, n);
    guint32 deg;
    const SimChannelId *out;
    double up = 0, down = 0;
    if (node->group != tier)
      continue;
    out = sim_fabric_out(f, n, &deg);
    for (guint32 i = 0; i < deg; i++) {
      const SimChannel *c = sim_fabric_channel(f, out[i]);
      const SimNode *d = sim_fabric_node(f, c->dst);
      if (d->kind == TOPO_NODE_NET_SWITCH && d->group > tier)
        up += c->rate_Bps;
      else
        down += c->rate_Bps;
    }
    if (up > 0)
      worst = MAX(worst, down / up);
  }
  return worst;
}

void topo_system_summary(const TopoSystem *sys, TopoSummary *out)
{
  const SimFabric *f = sys->fabric;
  const TopoServerSpec *sp = sys->server;
  guint32 nn = sim_fabric_n_nodes(f), nc = sim_fabric_n_channels(f);
  SimNodeId g0 = topo_gpu(sys, 0, 0);
  const TopoNetOps *net = topo_net_ops(sys);
  guint32 gg, gn;

  memset(out, 0, sizeof *out);
  out->servers = sys->n_servers;
  for (SimNodeId n = 0; n < nn; n++) {
    const SimNode *node = sim_fabric_node(f, n);
    switch ((TopoNodeKind)node->kind) {
    case TOPO_NODE_GPU: out->gpus++; break;
    case TOPO_NODE_CPU: out->cpus++; break;
    case TOPO_NODE_NIC: out->nics++; break;
    case TOPO_NODE_NVSWITCH: out->nvswitches++; break;
    case TOPO_NODE_PCIE_SWITCH: out->pcie_switches++; break;
    case TOPO_NODE_NET_SWITCH: out->net_switches[MIN(node->group, 3)]++; break;
    default: break;
    }
  }
  out->net_planes = net ? net->planes(sys) : 0;
  for (SimChannelId c = 0; c < nc; c += 2) {
    const SimChannel *ch = sim_fabric_channel(f, c);
    out->links_by_family[topo_channel_link(sys, c)->family] += ch->width;
  }
  out->gpu_scaleup_GBps =
      node_out_rate(sys, g0, MDL_FAMILY_NVLINK, TOPO_NODE_CPU) / 1e9;
  if (out->gpu_scaleup_GBps == 0)
    out->gpu_scaleup_GBps =
        node_out_rate(sys, g0, MDL_FAMILY_PCIE, TOPO_N_NODE_KINDS) / 1e9;
  if (sp->nics && sys->endpoints) {
    double nic_rate = 0;
    for (guint32 n = 0; n < sp->nics; n++)
      nic_rate += node_out_rate(sys, topo_nic(sys, 0, n), MDL_FAMILY_IB,
                                TOPO_N_NODE_KINDS) +
                  node_out_rate(sys, topo_nic(sys, 0, n), MDL_FAMILY_ROCE,
                                TOPO_N_NODE_KINDS);
    out->gpu_scaleout_GBps = nic_rate / sp->gpus / 1e9;
  }
  /* scale-up bisection: server 0's GPUs, first half against second */
  if (sp->gpus >= 2) {
    guint32 half = sp->gpus / 2;
    g_autofree SimNodeId *a = g_new(SimNodeId, sp->gpus);
    for (guint32 i = 0; i < sp->gpus; i++)
      a[i] = topo_gpu(sys, 0, i);
    out->scaleup_bisection_GBps =
        topo_max_flow_Bps(sys, a, half, a + half, sp->gpus - half,
                          TOPO_FLOW_SERVER0) /
        1e9;
  }
  if (sys->n_servers >= 2 && sys->endpoints) {
    guint32 half = sys->n_servers / 2, n = sys->n_servers * sp->nics;
    g_autofree SimNodeId *nics = g_new(SimNodeId, n);
    for (guint32 s = 0; s < sys->n_servers; s++) {
      for (guint32 i = 0; i < sp->nics; i++)
        nics[s * sp->nics + i] = topo_nic(sys, s, i);
    }
    out->scaleout_bisection_GBps =
        topo_max_flow_Bps(sys, nics, half * sp->nics, nics + half * sp->nics,
                          n - half * sp->nics, TOPO_FLOW_NETWORK) /
        1e9;
  }
  intra_hops(sys, &gg, &gn);
  out->network_diameter_hops = sys->endpoints ? network_diameter(sys) : 0;
  out->diameter_hops = sys->n_servers > 1 && sys->endpoints
                           ? MAX(gg, 2 * gn + out->network_diameter_hops)
                           : gg;
  for (guint32 t = 1; t <= 3; t++)
    out->oversubscription[t] =
        net && net->tiered ? tier_oversubscription(sys, t) : 0;
}
