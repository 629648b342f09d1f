/* Fat-trees: 1-, 2- and 3-tier folded Clos networks from a switch radix,
 * with oversubscription at the leaves and spines, rail optimization,
 * several planes and explicit counts for partially populated fabrics; and
 * their routing (D-mod-k, ECMP, adaptive).
 *
 * Shape (per plane), with k ports per switch: a leaf gives d ports to
 * endpoints and u = k - d to spines (d:u is the oversubscription).  Two
 * tiers: S spines (default u), each leaf bundling w = u / S links to each;
 * a spine then uses (leaves x w) ports.  Three tiers: pods of P leaves and S
 * spines, each spine giving P x w ports down and k - P x w up to C cores
 * of its spine index (bundles of w2 = up / C links); a core uses one
 * bundle per pod.  The k-ary fat-tree (k = 4: 16 hosts, 8 leaves, 8 spines,
 * 4 cores) and the 64-port 2-tier non-blocking one (2048 hosts) are the
 * tests' reference shapes.
 *
 * Placement: endpoints fill leaves in server order, so a server's NICs
 * share a leaf; rail-optimized, leaf (su, r) holds NIC r of the d servers of
 * scalable unit su, so each rail has its own leaves and rail traffic stays
 * one hop from the NIC.
 *
 * Routing goes up to the lowest common ancestor and down; the down path is
 * determined by the destination.  Up choices: D-mod-k takes spine
 * dst mod S and core (dst / S) mod C (dst: the destination's position,
 * leaf x d + slot), ECMP a seeded hash of the flow, adaptive the
 * least-loaded bundle (ties broken by the hash). */
#include <math.h>

#include "topologies/error.h"
#include "topologies/system_internal.h"

typedef struct {
  guint32 tiers, k, d, u, S, w1, P, C, w2;
  guint32 n_ep, n_leaves, n_pods;
  SimNodeId *leaf, *spine, *core;
  SimChannelId *leaf_up; /* [leaf * S + j] */
  SimChannelId *agg_up;  /* [(pod * S + j) * C + c] */
} FtPlane;

struct TopoFatTree {
  guint32 planes;
  FtPlane *plane;
};

static void fattree_free(TopoSystem *sys)
{
  TopoFatTree *ft = sys->ft;

  if (!ft)
    return;
  for (guint32 p = 0; p < ft->planes; p++) {
    FtPlane *pl = &ft->plane[p];
    g_free(pl->leaf);
    g_free(pl->spine);
    g_free(pl->core);
    g_free(pl->leaf_up);
    g_free(pl->agg_up);
  }
  g_free(ft->plane);
  g_free(ft);
}

/* Ports of k going down for a down:up ratio; FALSE when not whole. */
static gboolean split_ports(guint32 k, double ratio, guint32 *down)
{
  double d = k * ratio / (ratio + 1.0);

  if (fabs(d - nearbyint(d)) > 1e-9 || d < 1 || d >= k)
    return FALSE;
  *down = (guint32)nearbyint(d);
  return TRUE;
}

/* Places the plane's endpoints on leaves; returns the leaf count. */
static guint32 place(TopoSystem *sys, guint32 plane, guint32 d)
{
  TopoEndpoint *eps = (TopoEndpoint *)sys->endpoints->data;
  const TopoScaleout *c = &sys->scaleout;
  guint32 n_leaves = 0, pos = 0;
  guint32 rails = 0;

  /* rails per plane: (nic, port) slots of one server on this plane */
  for (guint32 i = 0; i < sys->endpoints->len && eps[i].server == 0; i++)
    rails += eps[i].plane == plane;
  for (guint32 i = 0; i < sys->endpoints->len; i++) {
    TopoEndpoint *e = &eps[i];
    if (e->plane != plane)
      continue;
    if (c->rail_optimized) {
      guint32 nic_ports = sys->nic_n_ep[0];
      guint32 rail = (e->nic_index * nic_ports + e->port) / c->planes;
      e->leaf = (e->server / d) * rails + rail;
      e->pos = e->leaf * d + e->server % d;
    } else {
      e->leaf = pos / d;
      e->pos = pos++;
    }
    n_leaves = MAX(n_leaves, e->leaf + 1);
  }
  return n_leaves;
}

static SimNodeId add_switch(TopoSystem *sys, const MdlSwitch *sw, guint32 tier,
                            guint32 index, guint32 plane, const char *what)
{
  char name[64];

  g_snprintf(name, sizeof name, "p%u.%s%u", plane, what, index);
  sys->net_switch_count[tier]++;
  return sim_fabric_add_node(sys->fabric, TOPO_NODE_NET_SWITCH,
                             SIM_NODE_FORWARDS, tier, index,
                             topo_switch_id(sys, sw), name);
}

static gboolean build_plane(TopoSystem *sys, guint32 plane, FtPlane *pl,
                            const char *where, GError **error)
{
  const TopoScaleout *c = &sys->scaleout;
  const MdlSwitch *sw = mdl_registry_switch(sys->models, c->sw);
  const MdlLink *link = mdl_registry_link(sys->models, c->link);
  TopoEndpoint *eps = (TopoEndpoint *)sys->endpoints->data;
  guint32 k = c->radix ? c->radix : sw->ports;

  pl->tiers = c->tiers;
  pl->k = k;
  if (c->radix > sw->ports)
    return topo_error(error, TOPO_ERROR_CONFLICT, where, "radix",
                      "%u exceeds the %u ports of %s", c->radix, sw->ports,
                      c->sw);
  for (guint32 i = 0; i < sys->endpoints->len; i++)
    pl->n_ep += eps[i].plane == plane;
  if (c->tiers == 1) {
    pl->d = k;
    if (pl->n_ep > k)
      return topo_error(error, TOPO_ERROR_CONFLICT, where, "tiers",
                        "%u endpoints per plane exceed one %u-port switch: use "
                        "2 tiers",
                        pl->n_ep, k);
  } else if (!split_ports(k, c->oversubscription, &pl->d)) {
    return topo_error(error, TOPO_ERROR_CONFLICT, where, "oversubscription",
                      "%g:1 does not split %u ports into whole down and up "
                      "counts",
                      c->oversubscription, k);
  }
  pl->u = k - pl->d;
  pl->n_leaves = c->tiers == 1 ? 1 : place(sys, plane, pl->d);
  if (c->tiers == 1) {
    guint32 pos = 0;
    for (guint32 i = 0; i < sys->endpoints->len; i++) {
      if (eps[i].plane == plane) {
        eps[i].leaf = 0;
        eps[i].pos = pos++;
      }
    }
  }
  if (c->leaves) {
    if (c->leaves < pl->n_leaves)
      return topo_error(error, TOPO_ERROR_CONFLICT, where, "leaves",
                        "%u is fewer than the %u leaves the endpoints need",
                        c->leaves, pl->n_leaves);
    pl->n_leaves = c->leaves;
  }
  if (c->tiers >= 2) {
    pl->S = c->spines ? c->spines : pl->u;
    if (pl->u % pl->S != 0)
      return topo_error(error, TOPO_ERROR_CONFLICT, where, "spines",
                        "%u leaf uplinks do not bundle evenly over %u spines",
                        pl->u, pl->S);
    pl->w1 = pl->u / pl->S;
  }
  if (c->tiers == 2 && pl->n_leaves * pl->w1 > k)
    return topo_error(error, TOPO_ERROR_CONFLICT, where, "tiers",
                      "%u leaves need %u ports on each spine, which has %u: "
                      "use 3 tiers or more oversubscription",
                      pl->n_leaves, pl->n_leaves * pl->w1, k);
  if (c->tiers == 3) {
    guint32 down;
    if (!split_ports(k, c->spine_oversubscription, &down))
      return topo_error(error, TOPO_ERROR_CONFLICT, where,
                        "spine_oversubscription",
                        "%g:1 does not split %u ports into whole down and up "
                        "counts",
                        c->spine_oversubscription, k);
    if (down % pl->w1 != 0)
      return topo_error(error, TOPO_ERROR_CONFLICT, where, "spines",
                        "bundles of %u links do not divide %u spine down ports",
                        pl->w1, down);
    pl->P = down / pl->w1;
    pl->C = c->cores ? c->cores : k - down;
    if ((k - down) % pl->C != 0)
      return topo_error(error, TOPO_ERROR_CONFLICT, where, "cores",
                        "%u spine uplinks do not bundle evenly over %u cores",
                        k - down, pl->C);
    pl->w2 = (k - down) / pl->C;
    pl->n_pods = (pl->n_leaves + pl->P - 1) / pl->P;
    if (pl->n_pods * pl->w2 > k)
      return topo_error(error, TOPO_ERROR_CONFLICT, where, "tiers",
                        "%u pods need %u ports on each core, which has %u: the "
                        "fabric is too large for 3 tiers of %u-port switches",
                        pl->n_pods, pl->n_pods * pl->w2, k, k);
  }

  /* nodes */
  pl->leaf = g_new(SimNodeId, pl->n_leaves);
  for (guint32 l = 0; l < pl->n_leaves; l++)
    pl->leaf[l] = add_switch(sys, sw, 1, l, plane, "leaf");
  if (c->tiers == 2) {
    pl->spine = g_new(SimNodeId, pl->S);
    for (guint32 j = 0; j < pl->S; j++)
      pl->spine[j] = add_switch(sys, sw, 2, j, plane, "spine");
  } else if (c->tiers == 3) {
    pl->spine = g_new(SimNodeId, pl->n_pods * pl->S);
    pl->core = g_new(SimNodeId, pl->S * pl->C);
    for (guint32 j = 0; j < pl->n_pods * pl->S; j++)
      pl->spine[j] = add_switch(sys, sw, 2, j, plane, "spine");
    for (guint32 j = 0; j < pl->S * pl->C; j++)
      pl->core[j] = add_switch(sys, sw, 3, j, plane, "core");
  }

  /* endpoint links, then leaf-spine, then spine-core bundles */
  for (guint32 i = 0; i < sys->endpoints->len; i++) {
    TopoEndpoint *e = &eps[i];
    const MdlNic *nic = topo_node_nic(sys, e->nic);
    if (e->plane != plane)
      continue;
    e->up = topo_add_link(sys, e->nic, pl->leaf[e->leaf],
                          mdl_registry_link(sys->models, nic->port_link), 1);
  }
  if (c->tiers >= 2) {
    pl->leaf_up = g_new(SimChannelId, pl->n_leaves * pl->S);
    for (guint32 l = 0; l < pl->n_leaves; l++) {
      for (guint32 j = 0; j < pl->S; j++) {
        SimNodeId sp =
            c->tiers == 2 ? pl->spine[j] : pl->spine[(l / pl->P) * pl->S + j];
        pl->leaf_up[l * pl->S + j] =
            topo_add_link(sys, pl->leaf[l], sp, link, pl->w1);
      }
    }
  }
  if (c->tiers == 3) {
    pl->agg_up = g_new(SimChannelId, pl->n_pods * pl->S * pl->C);
    for (guint32 pod = 0; pod < pl->n_pods; pod++) {
      for (guint32 j = 0; j < pl->S; j++) {
        for (guint32 cc = 0; cc < pl->C; cc++)
          pl->agg_up[(pod * pl->S + j) * pl->C + cc] =
              topo_add_link(sys, pl->spine[pod * pl->S + j],
                            pl->core[j * pl->C + cc], link, pl->w2);
      }
    }
  }
  return TRUE;
}

static gboolean fattree_build(TopoSystem *sys, GKeyFile *kf, const char *source,
                              const char *where, GError **error)
{
  const TopoScaleout *c = &sys->scaleout;
  const MdlSwitch *sw = mdl_registry_switch(sys->models, c->sw);
  guint32 ports = sys->nic_n_ep[0];

  (void)kf; /* its keys are [scaleout]'s, read before */
  (void)source;
  if (sw->kind != MDL_SWITCH_IB && sw->kind != MDL_SWITCH_ETHERNET)
    return topo_error(error, TOPO_ERROR_CONFLICT, where, "switch",
                      "%s is not an InfiniBand or Ethernet switch", c->sw);
  if (c->rail_optimized && c->tiers == 1)
    return topo_error(error, TOPO_ERROR_CONFLICT, where, "rail_optimized",
                      "needs at least 2 tiers (one switch has no rails)");
  if ((sys->server->nics * ports) % c->planes != 0)
    return topo_error(error, TOPO_ERROR_CONFLICT, where, "planes",
                      "%u NIC ports per server do not spread evenly over %u "
                      "planes",
                      sys->server->nics * ports, c->planes);
  sys->ft = g_new0(TopoFatTree, 1);
  sys->ft->planes = c->planes;
  sys->ft->plane = g_new0(FtPlane, c->planes);
  for (guint32 p = 0; p < c->planes; p++) {
    if (!build_plane(sys, p, &sys->ft->plane[p], where, error))
      return FALSE;
  }
  return TRUE;
}

/* The bundles of a route that faults may have taken down. */
typedef struct {
  const FtPlane *pl;
  guint32 ls, ld, ps, pd; /* leaves and pods of the ends */
  guint32 j;              /* the spine index chosen, for the cores */
} FtPair;

/* Whether bundle i of a tier is a candidate; NULL: every one is (no
 * faults). */
typedef gboolean (*FtOk)(const TopoSystem *sys, const FtPair *p, guint32 i);

/* A spine index still linked to both leaves (and, across pods, to a core
 * linked to both pods). */
static gboolean spine_ok(const TopoSystem *sys, const FtPair *p, guint32 j)
{
  const FtPlane *pl = p->pl;

  if (!topo_channel_up(sys, pl->leaf_up[p->ls * pl->S + j]) ||
      !topo_channel_up(sys, pl->leaf_up[p->ld * pl->S + j]))
    return FALSE;
  if (pl->tiers < 3 || p->ps == p->pd)
    return TRUE;
  for (guint32 cc = 0; cc < pl->C; cc++) {
    if (topo_channel_up(sys, pl->agg_up[(p->ps * pl->S + j) * pl->C + cc]) &&
        topo_channel_up(sys, pl->agg_up[(p->pd * pl->S + j) * pl->C + cc]))
      return TRUE;
  }
  return FALSE;
}

/* A core of spine index p->j linked to both pods. */
static gboolean core_ok(const TopoSystem *sys, const FtPair *p, guint32 cc)
{
  const FtPlane *pl = p->pl;

  return topo_channel_up(sys,
                         pl->agg_up[(p->ps * pl->S + p->j) * pl->C + cc]) &&
         topo_channel_up(sys, pl->agg_up[(p->pd * pl->S + p->j) * pl->C + cc]);
}

static gboolean is_ok(const TopoSystem *sys, const FtPair *p, FtOk ok,
                      guint32 i)
{
  return !ok || ok(sys, p, i);
}

/* The k-th of the n bundles that are candidates. */
static guint32 nth_up(const TopoSystem *sys, const FtPair *p, FtOk ok,
                      guint32 n, guint32 k)
{
  if (!ok)
    return k;
  for (guint32 i = 0; i < n; i++) {
    if (ok(sys, p, i) && k-- == 0)
      return i;
  }
  g_assert_not_reached();
}

/* Picks one of n bundles at a tier among the candidates: D-mod-k (after
 * faults, the subnet manager's routing run again on the surviving graph:
 * D-mod-k over the up ports that still reach the destination, so every
 * route may move), ECMP (with resilient hashing: a flow whose next hop is
 * up keeps it; the others hash again over the hops left) or the least
 * loaded; SIM_NONE when none is left. */
static guint32 choose(const TopoSystem *sys, const FtPair *p, FtOk ok,
                      const SimChannelId *options, guint32 n, guint32 dmodk,
                      const TopoEndpoint *src, const TopoEndpoint *dst,
                      guint64 flow, guint32 tier, const SimLoadHook *load)
{
  guint64 h = sim_flow_hash(sys->scaleout.seed, src->pos, dst->pos, flow, tier);
  guint32 live = ok ? 0 : n, best;
  double best_load;

  for (guint32 i = 0; ok && i < n; i++)
    live += ok(sys, p, i);
  if (live == 0)
    return SIM_NONE;
  switch ((TopoRouting)sys->scaleout.routing) {
  case TOPO_ROUTE_DMODK: return nth_up(sys, p, ok, n, dmodk % live);
  case TOPO_ROUTE_ADAPTIVE:
    best = nth_up(sys, p, ok, n, (guint32)(h % live));
    if (!load || !load->fn)
      return best;
    best_load = load->fn(options[best], load->ctx);
    for (guint32 i = 0; i < n; i++) {
      double l;
      if (!is_ok(sys, p, ok, i))
        continue;
      l = load->fn(options[i], load->ctx);
      if (l < best_load) {
        best = i;
        best_load = l;
      }
    }
    return best;
  default:
    if (is_ok(sys, p, ok, (guint32)(h % n)))
      return (guint32)(h % n);
    return nth_up(sys, p, ok, n, (guint32)((h >> 32) % live));
  }
}

/* Routes read topo_channel_up as they go: nothing to recompute. */
static gboolean fattree_refault(TopoSystem *sys, GError **error)
{
  (void)sys;
  (void)error;
  return TRUE;
}

static gboolean fattree_route(const TopoSystem *sys, const TopoEndpoint *src,
                              const TopoEndpoint *dst, guint64 flow,
                              const SimLoadHook *load, SimPath *out)
{
  const FtPlane *pl = &sys->ft->plane[src->plane];
  FtPair p = {.pl = pl, .ls = src->leaf, .ld = dst->leaf};
  /* with faults only the bundles still up are candidates */
  FtOk spines = sys->faults ? spine_ok : NULL;
  FtOk cores = sys->faults ? core_ok : NULL;

  if (sys->faults &&
      (!topo_channel_up(sys, src->up) || !topo_channel_up(sys, dst->up)))
    return FALSE;
  sim_path_push(out, src->up);
  if (p.ls != p.ld) {
    p.ps = pl->P ? p.ls / pl->P : 0;
    p.pd = pl->P ? p.ld / pl->P : 0;
    /* a leaf's up bundles, and a spine's, are contiguous */
    p.j = choose(sys, &p, spines, &pl->leaf_up[p.ls * pl->S], pl->S, dst->pos,
                 src, dst, flow, 1, load);
    if (p.j == SIM_NONE)
      return FALSE;
    sim_path_push(out, pl->leaf_up[p.ls * pl->S + p.j]);
    if (pl->tiers == 3 && p.ps != p.pd) {
      const SimChannelId *up = &pl->agg_up[(p.ps * pl->S + p.j) * pl->C];
      guint32 cc = choose(sys, &p, cores, up, pl->C, dst->pos / pl->S, src, dst,
                          flow, 2, load);
      sim_path_push(out, up[cc]);
      sim_path_push(out, sim_channel_reverse(
                             pl->agg_up[(p.pd * pl->S + p.j) * pl->C + cc]));
    }
    sim_path_push(out, sim_channel_reverse(pl->leaf_up[p.ld * pl->S + p.j]));
  }
  return sim_path_push(out, sim_channel_reverse(dst->up));
}

static guint32 fattree_planes(const TopoSystem *sys)
{
  return sys->scaleout.planes;
}

static const char *const fattree_keys[] = {
    "tiers",          "radix",  "oversubscription", "spine_oversubscription",
    "rail_optimized", "planes", "leaves",           "spines",
    "cores",          NULL};

const TopoNetOps topo_fattree_ops = {
    .keys = fattree_keys,
    .routing_first = TOPO_ROUTE_DMODK,
    .routing_last = TOPO_ROUTE_ADAPTIVE,
    .default_routing = TOPO_ROUTE_ECMP,
    .routings = "dmodk, ecmp or adaptive",
    .tiered = TRUE,
    .planes = fattree_planes,
    .build = fattree_build,
    .route = fattree_route,
    .free = fattree_free,
    .refault = fattree_refault,
};
