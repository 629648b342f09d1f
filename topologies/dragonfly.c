/* Dragonflies (Kim, Dally, Scott & Abts, ISCA 2008): g groups of a routers,
 * each with p terminals and h global links; routers of a group are linked
 * all to all.  The canonical balanced shape is a = 2p = 2h with
 * g = a h + 1 groups (one global link between every pair of groups); any
 * a, p, h, g with a h >= g - 1 is accepted.
 *
 * Global links: each group numbers its a h global ports (router r holds
 * r h .. r h + h - 1) and an arrangement names the group each port leads
 * to (Camarero, Vallejo & Beivide, "Topological Characterization of
 * Hamming and Dragonfly Networks", ACM TACO 2014):
 *   absolute:  port i -> the (i mod (g-1))-th other group in order;
 *   relative:  port i -> group + 1 + (i mod (g-1));
 *   circulant: port i -> group +/- (i/2 + 1), alternating signs.
 * Ports are then paired: the j-th port of group x toward y takes the j-th
 * port of group y toward x.
 *
 * Routing: minimal (local hop to the router holding a global link to the
 * destination group, the global link, local hop to the destination
 * router); Valiant (minimal to a random intermediate group, then minimal);
 * UGAL-L picks between the two by the load of each one's first hop times
 * its hops, UGAL-G by the load along the whole paths.  With faults
 * (faults.c), each takes only what is up: a global link toward the group
 * while it is up (else another, by the hash), a local hop or a detour
 * through a router of the group, and where no minimal path is left, one
 * through an intermediate group. */
#include <stdlib.h>
#include <string.h>

#include "topologies/error.h"
#include "topologies/system_internal.h"

struct TopoDragonfly {
  guint32 a, p, h, g;
  SimNodeId *router;   /* [group * a + r] */
  SimChannelId *local; /* [(group * a + r) * a + r2]: r -> r2 */
  guint32 *glob_first; /* [x * g + y]: first of x's links toward y */
  guint32 *glob_n;
  SimChannelId *glob_ch; /* channels from group x's router toward y */
};

static void dragonfly_free(TopoSystem *sys)
{
  TopoDragonfly *df = sys->df;

  if (!df)
    return;
  g_free(df->router);
  g_free(df->local);
  g_free(df->glob_first);
  g_free(df->glob_n);
  g_free(df->glob_ch);
  g_free(df);
}

static guint32 port_target(const TopoDragonfly *df, guint32 arrangement,
                           guint32 group, guint32 port)
{
  guint32 g = df->g, slot = port % (g - 1);

  switch (arrangement) {
  case 0: return slot < group ? slot : slot + 1;
  case 1: return (group + 1 + slot) % g;
  default: {
    guint32 m = slot / 2 + 1;
    return slot % 2 == 0 ? (group + m) % g : (group + g - m % g) % g;
  }
  }
}

typedef struct {
  guint32 target, port;
} PortTarget;

static int cmp_port_target(const void *pa, const void *pb)
{
  const PortTarget *a = pa, *b = pb;
  if (a->target != b->target)
    return a->target < b->target ? -1 : 1;
  return (a->port > b->port) - (a->port < b->port);
}

static gboolean dragonfly_build(TopoSystem *sys, GKeyFile *kf,
                                const char *source, const char *where,
                                GError **error)
{
  const TopoScaleout *c = &sys->scaleout;
  const MdlSwitch *sw = mdl_registry_switch(sys->models, c->sw);
  const MdlLink *local = mdl_registry_link(sys->models, c->link);
  const MdlLink *global = mdl_registry_link(sys->models, c->global_link);
  TopoEndpoint *eps = (TopoEndpoint *)sys->endpoints->data;
  TopoDragonfly *df;
  guint32 a = c->df_a, p = c->df_p, h = c->df_h, g = c->df_g, R;
  PortTarget *pt;
  guint32 *cursor;

  (void)source;
  if (!a || !p || !h || !g) {
    const char *key = !a   ? "routers_per_group"
                      : !p ? "terminals_per_router"
                      : !h ? "global_links_per_router"
                           : "groups";

    /* its keys are [scaleout]'s, read before: 0 given, or none */
    return topo_error(error, TOPO_ERROR_CONFLICT, where, key,
                      g_key_file_has_key(kf, "scaleout", key, NULL)
                          ? "0: expected at least 1 (a dragonfly needs a, p, "
                            "h and g)"
                          : "missing: a dragonfly needs a, p, h and g");
  }
  if (g < 2)
    return topo_error(error, TOPO_ERROR_CONFLICT, where, "groups",
                      "a dragonfly needs 2 groups");
  if ((guint64)a * h < g - 1)
    return topo_error(error, TOPO_ERROR_CONFLICT, where, "groups",
                      "%u groups need %u global ports per group, a x h = %u "
                      "gives %u",
                      g, g - 1, a * h, a * h);
  if (a - 1 + p + h > sw->ports)
    return topo_error(error, TOPO_ERROR_CONFLICT, where, "switch",
                      "a router needs a - 1 + p + h = %u ports; %s has %u",
                      a - 1 + p + h, c->sw, sw->ports);
  if (sys->endpoints->len > (guint64)a * g * p)
    return topo_error(error, TOPO_ERROR_CONFLICT, where, "groups",
                      "%u NIC ports exceed the a g p = %u terminals",
                      sys->endpoints->len, a * g * p);
  df = sys->df = g_new0(TopoDragonfly, 1);
  df->a = a;
  df->p = p;
  df->h = h;
  df->g = g;
  R = a * g;
  df->router = g_new(SimNodeId, R);
  for (guint32 r = 0; r < R; r++) {
    char name[64];
    g_snprintf(name, sizeof name, "g%u.router%u", r / a, r % a);
    df->router[r] = sim_fabric_add_node(sys->fabric, TOPO_NODE_NET_SWITCH,
                                        SIM_NODE_FORWARDS, 1, r,
                                        topo_switch_id(sys, sw), name);
  }
  sys->net_switch_count[1] = R;
  for (guint32 i = 0; i < sys->endpoints->len; i++) {
    eps[i].pos = i;
    eps[i].leaf = i / p;
    eps[i].up = topo_add_link(
        sys, eps[i].nic, df->router[eps[i].leaf],
        mdl_registry_link(sys->models,
                          topo_node_nic(sys, eps[i].nic)->port_link),
        1);
  }
  df->local = g_new(SimChannelId, (gsize)R * a);
  for (guint32 grp = 0; grp < g; grp++) {
    for (guint32 x = 0; x < a; x++) {
      df->local[(grp * a + x) * a + x] = SIM_NONE;
      for (guint32 y = x + 1; y < a; y++) {
        SimChannelId ch = topo_add_link(sys, df->router[grp * a + x],
                                        df->router[grp * a + y], local, 1);
        df->local[(grp * a + x) * a + y] = ch;
        df->local[(grp * a + y) * a + x] = sim_channel_reverse(ch);
      }
    }
  }
  /* Pair global ports: per group, its ports sorted by target group; the
   * j-th toward y pairs with y's j-th toward x. */
  pt = g_new(PortTarget, (gsize)g * a * h);
  for (guint32 grp = 0; grp < g; grp++) {
    for (guint32 q = 0; q < a * h; q++)
      pt[grp * a * h + q] =
          (PortTarget){port_target(df, c->arrangement, grp, q), q};
    qsort(pt + grp * a * h, a * h, sizeof *pt, cmp_port_target);
  }
  cursor = g_new0(guint32, (gsize)g * g);
  df->glob_first = g_new0(guint32, (gsize)g * g);
  df->glob_n = g_new0(guint32, (gsize)g * g);
  /* first position of each (group, target) run in pt */
  for (guint32 grp = 0; grp < g; grp++) {
    for (guint32 q = a * h; q-- > 0;)
      cursor[grp * g + pt[grp * a * h + q].target] = q;
  }
  /* Links between x < y: walk x's ports toward y and y's toward x
   * together; stop at the shorter run. */
  for (guint32 x = 0; x < g; x++) {
    for (guint32 y = x + 1; y < g; y++) {
      guint32 qx = cursor[x * g + y], qy = cursor[y * g + x];
      const PortTarget *px = pt + x * a * h, *py = pt + y * a * h;
      while (qx < a * h && qy < a * h && px[qx].target == y &&
             py[qy].target == x) {
        topo_add_link(sys, df->router[x * a + px[qx].port / h],
                      df->router[y * a + py[qy].port / h], global, 1);
        qx++;
        qy++;
      }
    }
  }
  /* Index the global channels by (from group, to group). */
  {
    guint32 n_ch = sim_fabric_n_channels(sys->fabric);
    GArray *by_pair = g_array_new(FALSE, FALSE, sizeof(guint32) * 3);
    for (SimChannelId ch = 0; ch < n_ch; ch++) {
      const SimChannel *cc = sim_fabric_channel(sys->fabric, ch);
      const SimNode *s = sim_fabric_node(sys->fabric, cc->src);
      const SimNode *d = sim_fabric_node(sys->fabric, cc->dst);
      guint32 t[3];
      if (s->kind != TOPO_NODE_NET_SWITCH || d->kind != TOPO_NODE_NET_SWITCH ||
          s->index / a == d->index / a)
        continue;
      t[0] = s->index / a;
      t[1] = d->index / a;
      t[2] = ch;
      g_array_append_vals(by_pair, t, 1);
    }
    for (guint i = 0; i < by_pair->len; i++) {
      const guint32 *t = (const guint32 *)by_pair->data + 3 * i;
      df->glob_n[t[0] * g + t[1]]++;
    }
    for (guint32 i = 0, acc = 0; i < g * g; i++) {
      df->glob_first[i] = acc;
      acc += df->glob_n[i];
    }
    df->glob_ch = g_new(SimChannelId, MAX(by_pair->len, 1));
    memset(cursor, 0, sizeof(guint32) * g * g);
    for (guint i = 0; i < by_pair->len; i++) {
      const guint32 *t = (const guint32 *)by_pair->data + 3 * i;
      guint32 k = t[0] * g + t[1];
      df->glob_ch[df->glob_first[k] + cursor[k]++] = t[2];
    }
    g_array_free(by_pair, TRUE);
  }
  g_free(cursor);
  g_free(pt);
  for (guint32 x = 0; x < g; x++) {
    for (guint32 y = 0; y < g; y++) {
      if (x != y && df->glob_n[x * g + y] == 0)
        return topo_error(error, TOPO_ERROR_CONFLICT, where, "arrangement",
                          "groups %u and %u get no global link with this "
                          "arrangement and a h = %u ports per group",
                          x, y, a * h);
    }
  }
  return TRUE;
}

static gboolean live_minimal(const TopoSystem *sys, guint32 r1, guint32 r2,
                             guint64 h, SimPath *out, gboolean detour);
static gboolean live_via_group(const TopoSystem *sys, guint32 r1, guint32 r2,
                               guint64 h, SimPath *out);

/* Minimal route from router r1 to router r2 (global router indices),
 * appending channels; the global link is picked by the hash. */
static gboolean df_minimal(const TopoSystem *sys, guint32 r1, guint32 r2,
                           guint64 h, SimPath *out)
{
  const TopoDragonfly *df = sys->df;
  guint32 a = df->a, g1 = r1 / a, g2 = r2 / a;
  const SimChannel *gc;
  SimChannelId ch;
  guint32 x, y;

  if (r1 == r2)
    return TRUE;
  if (sys->faults)
    return live_minimal(sys, r1, r2, h, out, TRUE);
  if (g1 == g2)
    return sim_path_push(out, df->local[r1 * a + r2 % a]);
  ch = df->glob_ch[df->glob_first[g1 * df->g + g2] +
                   h % df->glob_n[g1 * df->g + g2]];
  gc = sim_fabric_channel(sys->fabric, ch);
  x = sim_fabric_node(sys->fabric, gc->src)->index;
  y = sim_fabric_node(sys->fabric, gc->dst)->index;
  if (x != r1 && !sim_path_push(out, df->local[r1 * a + x % a]))
    return FALSE;
  if (!sim_path_push(out, ch))
    return FALSE;
  return y == r2 || sim_path_push(out, df->local[y * a + r2 % a]);
}

/* --- routing around faults ------------------------------------------------ */

static gboolean up(const TopoSystem *sys, SimChannelId c)
{
  return topo_channel_up(sys, c);
}

/* Inside a group, r1 to r2 over what is up: the local link, else through
 * a router of the group both reach (the hash picks among them). */
static gboolean live_local(const TopoSystem *sys, guint32 r1, guint32 r2,
                           guint64 h, SimPath *out)
{
  const TopoDragonfly *df = sys->df;
  guint32 a = df->a, base = r1 / a * a, n = 0, k;

  if (r1 == r2)
    return TRUE;
  if (up(sys, df->local[r1 * a + r2 % a]))
    return sim_path_push(out, df->local[r1 * a + r2 % a]);
  for (guint32 z = base; z < base + a; z++)
    n += z != r1 && z != r2 && up(sys, df->local[r1 * a + z % a]) &&
         up(sys, df->local[z * a + r2 % a]);
  if (n == 0)
    return FALSE;
  k = (guint32)(h % n);
  for (guint32 z = base; z < base + a; z++) {
    if (z != r1 && z != r2 && up(sys, df->local[r1 * a + z % a]) &&
        up(sys, df->local[z * a + r2 % a]) && k-- == 0)
      return sim_path_push(out, df->local[r1 * a + z % a]) &&
             sim_path_push(out, df->local[z * a + r2 % a]);
  }
  g_assert_not_reached();
}

/* Whether global link ch (group of r1 to group of r2) is up and its ends
 * reach r1 and r2 inside their groups. */
static gboolean global_ok(const TopoSystem *sys, SimChannelId ch, guint32 r1,
                          guint32 r2, guint64 h)
{
  const SimChannel *gc = sim_fabric_channel(sys->fabric, ch);
  guint32 x = sim_fabric_node(sys->fabric, gc->src)->index;
  guint32 y = sim_fabric_node(sys->fabric, gc->dst)->index;
  SimPath scratch;

  sim_path_clear(&scratch);
  return up(sys, ch) && live_local(sys, r1, x, h, &scratch) &&
         (sim_path_clear(&scratch), live_local(sys, y, r2, h, &scratch));
}

/* Group of r1 to group of r2 by one global link that is up, with its
 * local legs: the hash's link while it is up (resilient, as ECMP), else
 * the hash's among the others that are. */
static gboolean live_global(const TopoSystem *sys, guint32 r1, guint32 r2,
                            guint64 h, SimPath *out)
{
  const TopoDragonfly *df = sys->df;
  guint32 g1 = r1 / df->a, g2 = r2 / df->a;
  const SimChannelId *links = &df->glob_ch[df->glob_first[g1 * df->g + g2]];
  guint32 n = df->glob_n[g1 * df->g + g2], live = 0, pick = SIM_NONE;

  if (n && global_ok(sys, links[h % n], r1, r2, h)) {
    pick = (guint32)(h % n);
  } else {
    for (guint32 i = 0; i < n; i++)
      live += global_ok(sys, links[i], r1, r2, h);
    if (live == 0)
      return FALSE;
    for (guint32 i = 0, k = (guint32)((h >> 32) % live); i < n; i++) {
      if (global_ok(sys, links[i], r1, r2, h) && k-- == 0) {
        pick = i;
        break;
      }
    }
  }
  {
    const SimChannel *gc = sim_fabric_channel(sys->fabric, links[pick]);
    guint32 x = sim_fabric_node(sys->fabric, gc->src)->index;
    guint32 y = sim_fabric_node(sys->fabric, gc->dst)->index;

    return live_local(sys, r1, x, h, out) && sim_path_push(out, links[pick]) &&
           live_local(sys, y, r2, h, out);
  }
}

/* Minimal over what is up: inside the group, or by one global link; where
 * faults leave none, through an intermediate group (the first from the
 * hash with a path both ways), as the network routes non-minimally around
 * a failure. */
static gboolean live_minimal(const TopoSystem *sys, guint32 r1, guint32 r2,
                             guint64 h, SimPath *out, gboolean detour)
{
  const TopoDragonfly *df = sys->df;
  guint32 g1 = r1 / df->a, g2 = r2 / df->a;
  guint32 n0 = out->n;

  if (g1 == g2 ? live_local(sys, r1, r2, h, out)
               : live_global(sys, r1, r2, h, out))
    return TRUE;
  out->n = n0;
  return detour && live_via_group(sys, r1, r2, h, out);
}

/* r1 to r2 through a router of an intermediate group: the hash's group
 * first, then the next, the first router with a minimal path both ways
 * over what is up. */
static gboolean live_via_group(const TopoSystem *sys, guint32 r1, guint32 r2,
                               guint64 h, SimPath *out)
{
  const TopoDragonfly *df = sys->df;
  guint32 g1 = r1 / df->a, g2 = r2 / df->a, n0 = out->n;

  for (guint32 i = 0; i < df->g; i++) {
    guint32 mid = (guint32)((h + i) % df->g);

    if (mid == g1 || mid == g2)
      continue;
    for (guint32 r = mid * df->a; r < (mid + 1) * df->a; r++) {
      if (live_minimal(sys, r1, r, h, out, FALSE) &&
          live_minimal(sys, r, r2, h >> 7, out, FALSE))
        return TRUE;
      out->n = n0;
    }
  }
  return FALSE;
}

static gboolean df_valiant(const TopoSystem *sys, guint32 r1, guint32 r2,
                           guint64 h, SimPath *out)
{
  const TopoDragonfly *df = sys->df;
  guint32 g1 = r1 / df->a, g2 = r2 / df->a, mid;

  if (df->g < 3 || (g1 == g2 && df->g < 2))
    return df_minimal(sys, r1, r2, h, out);
  if (sys->faults) /* an intermediate group over what is up, else minimal */
    return live_via_group(sys, r1, r2, h, out) ||
           live_minimal(sys, r1, r2, h, out, TRUE);
  do {
    mid = (guint32)(h % df->g);
    h = sim_flow_hash(h, r1, r2, 0, 99);
  } while (mid == g1 || mid == g2);
  {
    /* Enter the intermediate group wherever its link from g1 lands. */
    SimChannelId ch = df->glob_ch[df->glob_first[g1 * df->g + mid] +
                                  h % df->glob_n[g1 * df->g + mid]];
    guint32 x =
        sim_fabric_node(sys->fabric, sim_fabric_channel(sys->fabric, ch)->src)
            ->index;
    guint32 y =
        sim_fabric_node(sys->fabric, sim_fabric_channel(sys->fabric, ch)->dst)
            ->index;
    if (x != r1 && !sim_path_push(out, df->local[r1 * df->a + x % df->a]))
      return FALSE;
    return sim_path_push(out, ch) && df_minimal(sys, y, r2, h >> 7, out);
  }
}

static double path_load(const SimPath *p, guint32 from, guint32 upto,
                        const SimLoadHook *load)
{
  double sum = 0;

  for (guint32 i = from; i < upto && i < p->n; i++)
    sum += load->fn(p->hop[i], load->ctx);
  return sum;
}

static gboolean dragonfly_route(const TopoSystem *sys, const TopoEndpoint *src,
                                const TopoEndpoint *dst, guint64 flow,
                                const SimLoadHook *load, SimPath *out)
{
  guint64 h = sim_flow_hash(sys->scaleout.seed, src->pos, dst->pos, flow, 11);
  TopoRouting r = sys->scaleout.routing;
  SimPath min, val;

  if (sys->faults &&
      (!topo_channel_up(sys, src->up) || !topo_channel_up(sys, dst->up)))
    return FALSE;
  sim_path_push(out, src->up);
  sim_path_clear(&min);
  if (!df_minimal(sys, src->leaf, dst->leaf, h, &min))
    return FALSE;
  if (r == TOPO_ROUTE_MINIMAL ||
      ((r == TOPO_ROUTE_UGAL_L || r == TOPO_ROUTE_UGAL_G) &&
       !(load && load->fn))) {
    return sim_path_append(out, &min) &&
           sim_path_push(out, sim_channel_reverse(dst->up));
  }
  sim_path_clear(&val);
  if (!df_valiant(sys, src->leaf, dst->leaf, h, &val))
    return FALSE;
  if (r == TOPO_ROUTE_UGAL_L || r == TOPO_ROUTE_UGAL_G) {
    /* UGAL-L: first-hop load times hops; UGAL-G: load along the path. */
    guint32 upto_min = r == TOPO_ROUTE_UGAL_L ? 1 : min.n;
    guint32 upto_val = r == TOPO_ROUTE_UGAL_L ? 1 : val.n;
    double cmin = (path_load(&min, 0, upto_min, load) + 1) * min.n;
    double cval = (path_load(&val, 0, upto_val, load) + 1) * val.n;
    if (cmin <= cval)
      val = min;
  }
  return sim_path_append(out, &val) &&
         sim_path_push(out, sim_channel_reverse(dst->up));
}

/* Routes read topo_channel_up as they go: nothing to recompute. */
static gboolean dragonfly_refault(TopoSystem *sys, GError **error)
{
  (void)sys;
  (void)error;
  return TRUE;
}

guint32 topo_dragonfly_links(const TopoSystem *sys, guint32 x, guint32 y)
{
  return sys->df->glob_n[x * sys->df->g + y];
}

static const char *const dragonfly_keys[] = {"routers_per_group",
                                             "terminals_per_router",
                                             "global_links_per_router",
                                             "groups",
                                             "arrangement",
                                             "global_link",
                                             NULL};

const TopoNetOps topo_dragonfly_ops = {
    .keys = dragonfly_keys,
    .routing_first = TOPO_ROUTE_MINIMAL,
    .routing_last = TOPO_ROUTE_UGAL_G,
    .default_routing = TOPO_ROUTE_MINIMAL,
    .routings = "minimal, valiant, ugal-l or ugal-g",
    .tiered = FALSE,
    .planes = topo_one_plane,
    .build = dragonfly_build,
    .route = dragonfly_route,
    .free = dragonfly_free,
    .refault = dragonfly_refault,
};
