/* Explicit networks: switches and links listed one by one, as an importer
 * of ibnetdiscover writes them or a user describes an irregular fabric.
 *
 *   [scaleout]
 *   topology = explicit
 *   switch = quantum-hdr          # default switch model
 *   link = ib-hdr-4x              # default switch-to-switch link model
 *   [network]
 *   switches = leaf0; leaf1; spine0 quantum2-ndr
 *   links = leaf0 spine0 x2; leaf1 spine0 x2 ib-hdr-2x
 *   attach = 0.0 leaf0; 0.1 leaf1; 1.0 leaf0; 1.1 leaf1
 *
 * Elements are separated by ';', fields by spaces: "NAME [MODEL]",
 * "A B [xWIDTH] [MODEL]", "SERVER.NIC[.PORT] SWITCH [MODEL]".  Every NIC
 * port must be attached once.
 *
 * Routing takes shortest paths in switch hops: breadth-first distances from
 * every switch holding NICs; at each hop the candidates are the neighbours
 * one hop closer, chosen by D-mod-k (destination mod candidates), ECMP
 * (seeded hash) or adaptively (least loaded).  Switch tiers for reports
 * are the distance from the nearest NIC-holding switch, plus one. */
#include <stdio.h>
#include <string.h>

#include "sim/interrupt.h"
#include "sim/memory.h"
#include "topologies/error.h"
#include "topologies/system_internal.h"

struct TopoExplicit {
  guint32 n_sw;
  SimNodeId *node;      /* [n_sw] */
  char **names;         /* [n_sw + 1], NULL-terminated */
  guint32 *adj_first;   /* [n_sw + 1] CSR of switch-to-switch channels */
  guint32 *adj_to;      /* neighbour switch */
  SimChannelId *adj_ch; /* the channel to it */
  guint32 n_leaf;
  gint32 *leaf_index; /* [n_sw]: index among NIC-holding switches */
  guint8 *dist;       /* [n_leaf * n_sw]: hops, at most SIM_PATH_MAX_HOPS */
  guint32 diameter;   /* most hops between NIC-holding switches */
  GHashTable *index;  /* name -> switch index + 1 */
};

/* dist[] holds hops below DIST_NONE, which marks "not reached" */
#define DIST_NONE G_MAXUINT8
G_STATIC_ASSERT(SIM_PATH_MAX_HOPS < DIST_NONE);

static void explicit_free(TopoSystem *sys)
{
  TopoExplicit *ex = sys->ex;

  if (!ex)
    return;
  g_free(ex->node);
  g_strfreev(ex->names);
  g_free(ex->adj_first);
  g_free(ex->adj_to);
  g_free(ex->adj_ch);
  g_free(ex->leaf_index);
  g_free(ex->dist);
  if (ex->index)
    g_hash_table_destroy(ex->index);
  g_free(ex);
}

static gint32 switch_index(const TopoExplicit *ex, const char *name)
{
  return (gint32)GPOINTER_TO_UINT(g_hash_table_lookup(ex->index, name)) - 1;
}

static gboolean name_ok(const char *n)
{
  if (!*n)
    return FALSE;
  for (const char *p = n; *p; p++) {
    if (!g_ascii_isalnum(*p) && *p != '_' && *p != '.' && *p != '-')
      return FALSE;
  }
  return TRUE;
}

/* Hops from switch s to every switch (DIST_NONE: not reached), over the
 * links that are up; *qh < *qt after it when it stopped at the most hops
 * a distance holds. */
static void bfs(const TopoSystem *sys, guint32 s, guint8 *d, guint32 *queue,
                guint32 *qh, guint32 *qt)
{
  const TopoExplicit *ex = sys->ex;

  *qh = *qt = 0;
  memset(d, DIST_NONE, ex->n_sw);
  d[s] = 0;
  queue[(*qt)++] = s;
  while (*qh < *qt) {
    guint32 u = queue[(*qh)++];
    if (d[u] + 1 >= DIST_NONE)
      break; /* farther than any path ifsim holds: refused by the caller */
    for (guint32 k = ex->adj_first[u]; k < ex->adj_first[u + 1]; k++) {
      if (d[ex->adj_to[k]] == DIST_NONE &&
          (!sys->faults || topo_channel_up(sys, ex->adj_ch[k]))) {
        d[ex->adj_to[k]] = d[u] + 1;
        queue[(*qt)++] = ex->adj_to[k];
      }
    }
  }
}

static gboolean explicit_build(TopoSystem *sys, GKeyFile *kf,
                               const char *source, const char *scaleout_where,
                               GError **error)
{
  const TopoScaleout *c = &sys->scaleout;
  g_autofree char *where = g_strdup_printf("%s: [network]", source);
  g_auto(GStrv) sw = NULL, links = NULL, attach = NULL;
  TopoExplicit *ex;
  TopoEndpoint *eps = (TopoEndpoint *)sys->endpoints->data;
  GArray *edges; /* guint32 triples: a, b, channel */
  g_autofree guint32 *queue = NULL;
  gsize n_sw = 0, n_links = 0, n_attach = 0;

  (void)scaleout_where; /* its keys are [network]'s */
  if (!g_key_file_has_group(kf, "network"))
    return topo_error(error, TOPO_ERROR_VALUE, source, "[network]",
                      "missing (topology = explicit lists its switches, "
                      "links and attachments there)");
  {
    g_auto(GStrv) keys = g_key_file_get_keys(kf, "network", NULL, NULL);
    for (guint i = 0; keys[i]; i++) {
      if (strcmp(keys[i], "switches") && strcmp(keys[i], "links") &&
          strcmp(keys[i], "attach"))
        return topo_error(error, TOPO_ERROR_VALUE, where, keys[i],
                          "unknown key (expected switches, links, attach)");
    }
  }
  sw = g_key_file_get_string_list(kf, "network", "switches", &n_sw, NULL);
  links = g_key_file_get_string_list(kf, "network", "links", &n_links, NULL);
  attach = g_key_file_get_string_list(kf, "network", "attach", &n_attach, NULL);
  if (!sw || !n_sw)
    return topo_error(error, TOPO_ERROR_VALUE, where, "switches",
                      "missing: name the switches");
  if (!attach)
    return topo_error(error, TOPO_ERROR_VALUE, where, "attach",
                      "missing: attach every NIC port to a switch");
  ex = sys->ex = g_new0(TopoExplicit, 1);
  ex->names = g_new0(char *, n_sw + 1);
  ex->index = g_hash_table_new(g_str_hash, g_str_equal);
  ex->node = g_new(SimNodeId, n_sw);
  for (gsize i = 0; i < n_sw; i++) {
    g_auto(GStrv) f = mdl_split_words(sw[i]);
    const MdlSwitch *model;
    if (!f[0] || !name_ok(f[0]) || (f[1] && f[2]))
      return topo_error(error, TOPO_ERROR_VALUE, where, "switches",
                        "'%s' is not NAME [MODEL] (letters, digits, '_', '.', "
                        "'-')",
                        sw[i]);
    if (switch_index(ex, f[0]) >= 0)
      return topo_error(error, TOPO_ERROR_VALUE, where, "switches",
                        "'%s' is listed twice", f[0]);
    model = mdl_registry_switch(sys->models, f[1] ? f[1] : c->sw);
    if (!model)
      return topo_error(error, TOPO_ERROR_VALUE, where, "switches",
                        "'%s': unknown switch model '%s'", f[0],
                        f[1] ? f[1] : c->sw);
    ex->names[ex->n_sw] = g_strdup(f[0]);
    g_hash_table_insert(ex->index, ex->names[ex->n_sw],
                        GUINT_TO_POINTER(ex->n_sw + 1));
    ex->node[ex->n_sw] = sim_fabric_add_node(sys->fabric, TOPO_NODE_NET_SWITCH,
                                             SIM_NODE_FORWARDS, 1, ex->n_sw,
                                             topo_switch_id(sys, model), f[0]);
    ex->n_sw++;
  }
  edges = g_array_new(FALSE, FALSE, sizeof(guint32) * 3);
  for (gsize i = 0; links && i < n_links; i++) {
    g_auto(GStrv) f = mdl_split_words(links[i]);
    guint32 nf = g_strv_length(f), width = 1, t[3];
    const char *model = c->link;
    gint32 a, b;
    const MdlLink *l;
    for (guint32 k = 2; k < nf; k++) {
      guint64 w;
      if (f[k][0] == 'x' &&
          g_ascii_string_to_unsigned(f[k] + 1, 10, 1, 1024, &w, NULL))
        width = (guint32)w;
      else if (k == nf - 1)
        model = f[k];
      else
        nf = 0;
    }
    a = nf >= 2 ? switch_index(ex, f[0]) : -1;
    b = nf >= 2 ? switch_index(ex, f[1]) : -1;
    if (a < 0 || b < 0 || a == b) {
      g_array_free(edges, TRUE);
      return topo_error(error, TOPO_ERROR_VALUE, where, "links",
                        "'%s' is not A B [xWIDTH] [MODEL] with two different "
                        "listed switches",
                        links[i]);
    }
    l = mdl_registry_link(sys->models, model);
    if (!l) {
      g_array_free(edges, TRUE);
      return topo_error(error, TOPO_ERROR_VALUE, where, "links",
                        "'%s': unknown link model '%s'", links[i], model);
    }
    t[0] = (guint32)a;
    t[1] = (guint32)b;
    t[2] = topo_add_link(sys, ex->node[a], ex->node[b], l, width);
    g_array_append_vals(edges, t, 1);
  }
  /* attachments */
  {
    guint32 nics = sys->server->nics;
    g_autofree gboolean *done = g_new0(gboolean, sys->endpoints->len);
    for (gsize i = 0; i < n_attach; i++) {
      g_auto(GStrv) f = mdl_split_words(attach[i]);
      guint32 server = 0, nic = 0, port = 0, ep;
      int used = 0;
      gint32 swi = f[0] && f[1] ? switch_index(ex, f[1]) : -1;
      const MdlLink *l;
      if (!f[0] || (sscanf(f[0], "%u.%u%n", &server, &nic, &used) != 2) ||
          (f[0][used] == '.' && sscanf(f[0] + used, ".%u", &port) != 1) ||
          swi < 0 || (f[2] && f[3])) {
        g_array_free(edges, TRUE);
        return topo_error(error, TOPO_ERROR_VALUE, where, "attach",
                          "'%s' is not SERVER.NIC[.PORT] SWITCH [MODEL] with "
                          "a listed switch",
                          attach[i]);
      }
      if (server >= sys->n_servers || nic >= nics ||
          port >= sys->nic_n_ep[server * nics + nic]) {
        g_array_free(edges, TRUE);
        return topo_error(error, TOPO_ERROR_VALUE, where, "attach",
                          "'%s': no such NIC port (%u servers, %u NICs each)",
                          attach[i], sys->n_servers, nics);
      }
      ep = sys->nic_first_ep[server * nics + nic] + port;
      if (done[ep]) {
        g_array_free(edges, TRUE);
        return topo_error(error, TOPO_ERROR_VALUE, where, "attach",
                          "'%s': attached twice", attach[i]);
      }
      l = mdl_registry_link(sys->models,
                            f[2] ? f[2]
                                 : topo_node_nic(sys, eps[ep].nic)->port_link);
      if (!l) {
        g_array_free(edges, TRUE);
        return topo_error(error, TOPO_ERROR_VALUE, where, "attach",
                          "'%s': unknown link model '%s'", attach[i], f[2]);
      }
      done[ep] = TRUE;
      eps[ep].leaf = (guint32)swi;
      eps[ep].pos = ep;
      eps[ep].up = topo_add_link(sys, eps[ep].nic, ex->node[swi], l, 1);
    }
    for (guint32 e = 0; e < sys->endpoints->len; e++) {
      if (!done[e]) {
        g_array_free(edges, TRUE);
        return topo_error(error, TOPO_ERROR_VALUE, where, "attach",
                          "NIC port %u.%u.%u is not attached (each of the "
                          "%u NICs of a server, every port: a server with "
                          "more NIC ports than the network reaches?)",
                          eps[e].server, eps[e].nic_index, eps[e].port, nics);
      }
    }
  }
  /* adjacency (CSR) */
  ex->adj_first = g_new0(guint32, ex->n_sw + 1);
  ex->adj_to = g_new(guint32, MAX(2 * edges->len, 1));
  ex->adj_ch = g_new(SimChannelId, MAX(2 * edges->len, 1));
  for (guint i = 0; i < edges->len; i++) {
    const guint32 *t = (const guint32 *)edges->data + 3 * i;
    ex->adj_first[t[0] + 1]++;
    ex->adj_first[t[1] + 1]++;
  }
  for (guint32 i = 0; i < ex->n_sw; i++)
    ex->adj_first[i + 1] += ex->adj_first[i];
  {
    g_autofree guint32 *fill = g_new0(guint32, ex->n_sw);
    for (guint i = 0; i < edges->len; i++) {
      const guint32 *t = (const guint32 *)edges->data + 3 * i;
      guint32 ka = ex->adj_first[t[0]] + fill[t[0]]++;
      guint32 kb = ex->adj_first[t[1]] + fill[t[1]]++;
      ex->adj_to[ka] = t[1];
      ex->adj_ch[ka] = t[2];
      ex->adj_to[kb] = t[0];
      ex->adj_ch[kb] = sim_channel_reverse(t[2]);
    }
  }
  g_array_free(edges, TRUE);
  /* distances from every NIC-holding switch */
  ex->leaf_index = g_new(gint32, ex->n_sw);
  for (guint32 i = 0; i < ex->n_sw; i++)
    ex->leaf_index[i] = -1;
  for (guint32 e = 0; e < sys->endpoints->len; e++) {
    if (ex->leaf_index[eps[e].leaf] < 0)
      ex->leaf_index[eps[e].leaf] = (gint32)ex->n_leaf++;
  }
  {
    /* the table routing reads: a byte per NIC-holding switch and switch
     * (quadratic in a network whose every switch holds NICs) */
    g_autofree char *how = g_strdup_printf(
        "hops from each of %u switches holding NICs to each of %u switches",
        ex->n_leaf, ex->n_sw);
    if (!sim_memory_check((guint64)ex->n_leaf * ex->n_sw, where, how, error))
      return FALSE;
  }
  ex->dist = g_new(guint8, (gsize)ex->n_leaf * ex->n_sw);
  queue = g_new(guint32, ex->n_sw);
  for (guint32 s = 0; s < ex->n_sw; s++) {
    guint8 *d;
    guint32 qh, qt;
    if (ex->leaf_index[s] < 0)
      continue;
    if (!sim_interrupt_check(error))
      return FALSE;
    d = ex->dist + (gsize)ex->leaf_index[s] * ex->n_sw;
    bfs(sys, s, d, queue, &qh, &qt);
    for (guint32 t = 0; t < ex->n_sw; t++) {
      if (ex->leaf_index[t] < 0)
        continue;
      if (d[t] == DIST_NONE)
        return topo_error(error, TOPO_ERROR_VALUE, where, "links",
                          "switches %s and %s are not connected%s",
                          ex->names[s], ex->names[t],
                          qh < qt ? " within 254 hops" : "");
      if (d[t] > SIM_PATH_MAX_HOPS - 2)
        return topo_error(error, TOPO_ERROR_VALUE, where, "links",
                          "%s and %s are %u hops apart; at most %d are "
                          "supported",
                          ex->names[s], ex->names[t], d[t],
                          SIM_PATH_MAX_HOPS - 2);
      ex->diameter = MAX(ex->diameter, d[t]);
    }
  }
  /* tiers for reports: distance from the nearest NIC-holding switch + 1 */
  for (guint32 s = 0; s < ex->n_sw; s++) {
    guint32 best = DIST_NONE;
    for (guint32 l = 0; l < ex->n_leaf; l++)
      best = MIN(best, ex->dist[(gsize)l * ex->n_sw + s]);
    sys->net_switch_count[MIN(best + 1, 3)]++;
    sim_fabric_set_node_group(sys->fabric, ex->node[s], MIN(best + 1, 3));
  }
  return TRUE;
}

static gboolean explicit_route(const TopoSystem *sys, const TopoEndpoint *src,
                               const TopoEndpoint *dst, guint64 flow,
                               const SimLoadHook *load, SimPath *out)
{
  const TopoExplicit *ex = sys->ex;
  const guint8 *d = ex->dist + (gsize)ex->leaf_index[dst->leaf] * ex->n_sw;
  guint32 cur = src->leaf;

  if (sys->faults && (d[cur] == DIST_NONE || !topo_channel_up(sys, src->up) ||
                      !topo_channel_up(sys, dst->up)))
    return FALSE;
  sim_path_push(out, src->up);
  for (guint32 hop = 0; cur != dst->leaf; hop++) {
    guint32 cand[256], n = 0, pick;
    for (guint32 k = ex->adj_first[cur]; k < ex->adj_first[cur + 1]; k++) {
      if (d[ex->adj_to[k]] + 1 == d[cur] && n < G_N_ELEMENTS(cand) &&
          (!sys->faults || topo_channel_up(sys, ex->adj_ch[k])))
        cand[n++] = k;
    }
    if (n == 0)
      return FALSE;
    /* ECMP; also adaptive's choice without load information */
    pick = (guint32)(sim_flow_hash(sys->scaleout.seed, src->pos, dst->pos, flow,
                                   hop + 1) %
                     n);
    if (sys->scaleout.routing == TOPO_ROUTE_DMODK) {
      pick = dst->pos % n;
    } else if (sys->scaleout.routing == TOPO_ROUTE_ADAPTIVE && load &&
               load->fn) {
      double best = load->fn(ex->adj_ch[cand[pick]], load->ctx);
      for (guint32 i = 0; i < n; i++) {
        double l = load->fn(ex->adj_ch[cand[i]], load->ctx);
        if (l < best) {
          best = l;
          pick = i;
        }
      }
    }
    if (!sim_path_push(out, ex->adj_ch[cand[pick]]))
      return FALSE;
    cur = ex->adj_to[cand[pick]];
  }
  return sim_path_push(out, sim_channel_reverse(dst->up));
}

/* The subnet manager's routing again on the surviving graph: every
 * distance searched again over the links that are up.  Switches the
 * faults cut off are left unreached; a route to them fails, naming the
 * pair (topo_route_network). */
static gboolean explicit_refault(TopoSystem *sys, GError **error)
{
  TopoExplicit *ex = sys->ex;
  g_autofree guint32 *queue = g_new(guint32, ex->n_sw);

  for (guint32 s = 0; s < ex->n_sw; s++) {
    guint32 qh, qt;
    if (ex->leaf_index[s] < 0)
      continue;
    if (!sim_interrupt_check(error))
      return FALSE;
    bfs(sys, s, ex->dist + (gsize)ex->leaf_index[s] * ex->n_sw, queue, &qh,
        &qt);
  }
  return TRUE;
}

static guint32 explicit_diameter(const TopoSystem *sys)
{
  return sys->ex->diameter;
}

static const char *const explicit_keys[] = {NULL};

/* [network] lists the switches and links; tiers are the switches' hops
 * from the NICs, so each has an oversubscription as a fat-tree's does. */
const TopoNetOps topo_explicit_ops = {
    .keys = explicit_keys,
    .routing_first = TOPO_ROUTE_DMODK,
    .routing_last = TOPO_ROUTE_ADAPTIVE,
    .default_routing = TOPO_ROUTE_ECMP,
    .routings = "dmodk, ecmp or adaptive",
    .tiered = TRUE,
    .network_group = TRUE,
    .planes = topo_one_plane,
    .build = explicit_build,
    .route = explicit_route,
    .free = explicit_free,
    .refault = explicit_refault,
    .diameter = explicit_diameter,
};
