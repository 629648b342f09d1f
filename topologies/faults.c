/* Faults of a built system's network (docs/faults.md): links, NIC ports
 * and switches that are down, links that trained at a lower width or
 * speed, and k random links drawn with a seed.
 *
 *   [faults]
 *   fail = p0.spine3; s2.nic1; p0.leaf0 p0.spine*; p0.leaf1 p0.spine0 x1
 *   degrade = s0.nic0 p0.leaf0 ib-ndr-1x; p0.leaf2 p0.spine4 x1 0.5
 *   random_links = 2
 *   seed = 7
 *
 * An element is a node ("p0.spine3": a network switch or a NIC, and every
 * network link it has) or a link ("A B": every physical link bundled
 * between A and B; "A B xN": N of them), named as `ifsim topo --links`
 * lists them; * and ? match any characters, and a pattern picks among the
 * network's elements only.  A degraded link runs at a fraction of its data
 * rate (0.25: a 4x port that trained at 1x) or at another link model of
 * its family (ib-hdr-4x: an NDR port that trained at HDR).
 *
 * What is down, no route takes: fat-tree routing (fattree.c) chooses among
 * the up ports that still reach the destination, as the subnet manager's
 * routing run again on the surviving graph does, and ECMP hashes over the
 * next hops left; an explicit network's distances are searched again
 * (explicit.c); a dragonfly takes the global and local links left, or a
 * detour (dragonfly.c).  A NIC whose ports are all down is not one NCCL sees
 * (ibv port state), so its GPUs leave by the nearest NIC that is up
 * (system.c).
 *
 * Inside a server, NVLinks fail and slow alike: a GPU's ("s0.gpu3": every
 * NVLink it has), an NVSwitch's ("s0.nvsw1") or a bundle ("s0.gpu3
 * s0.nvsw1 x2").  That server's routes are computed again (server.c
 * topo_rebuild_intra_routes): NVLink spread over the links left, and a GPU
 * with none left reaches the others over PCIe; NCCL, which counts the
 * NVLinks NVML reports active, reads the fewest a GPU has
 * (topo_gpu_nvlinks_down), after Fabric Manager's policies decide what is
 * left (fabric_manager).  PCIe and socket links are not covered. */
#include <stdlib.h>
#include <string.h>

#include "sim/interrupt.h"
#include "sim/rng.h"
#include "topologies/error.h"
#include "topologies/system_internal.h"

/* A link bundle that has a fault: what it was built as and what is left. */
typedef struct {
  guint32 width;   /* physical links as built */
  double link_Bps; /* each one's data rate as built */
  guint32 down;    /* of them, down */
  guint32 slow;    /* of them, up at a lower rate */
  double slow_Bps; /* the slow ones' rate together */
  double ber;      /* bit error rate after FEC; 0: clean */
} FaultLink;

struct TopoFaults {
  GHashTable *links;  /* link index (channel / 2) -> FaultLink */
  guint8 *nic_down;   /* [servers * nics]: every port down */
  guint8 *nvl_fault;  /* [servers]: a fault touched one of its NVLinks */
  GArray *nvsw_failed; /* SimNodeId: NVSwitches named down (fail) */
  double *gpu_slow;    /* [servers * gpus]: stragglers' factor; NULL: none */
  gboolean lossy;      /* a link has a bit error rate */
  GPtrArray *lines;   /* char *: what was applied, one line each */
  GString *from; /* where they were given: "f.ini: [faults] fail, --fail" */
  guint32 down, slow; /* physical links */
};

/* The stream of the random draws, apart from any other use of a seed. */
#define FAULT_RNG_STREAM 0x6661756c74ull /* "fault" */

void topo_faults_free(TopoFaults *fl)
{
  if (!fl)
    return;
  g_hash_table_destroy(fl->links);
  g_free(fl->nic_down);
  g_free(fl->nvl_fault);
  g_array_free(fl->nvsw_failed, TRUE);
  g_free(fl->gpu_slow);
  g_ptr_array_free(fl->lines, TRUE);
  g_string_free(fl->from, TRUE);
  g_free(fl);
}

gboolean topo_channel_up(const TopoSystem *sys, SimChannelId c)
{
  return sim_fabric_channel(sys->fabric, c)->width > 0;
}

gboolean topo_nic_up(const TopoSystem *sys, guint32 server, guint32 nic)
{
  return !sys->faults ||
         !sys->faults->nic_down[server * sys->server->nics + nic];
}

GStrv topo_system_fault_lines(const TopoSystem *sys)
{
  GStrvBuilder *b;

  if (!sys->faults || sys->faults->lines->len == 0)
    return NULL;
  b = g_strv_builder_new();
  for (guint i = 0; i < sys->faults->lines->len; i++)
    g_strv_builder_add(b, g_ptr_array_index(sys->faults->lines, i));
  {
    GStrv out = g_strv_builder_end(b);
    g_strv_builder_unref(b);
    return out;
  }
}

void topo_system_fault_counts(const TopoSystem *sys, guint32 *down,
                              guint32 *slow)
{
  *down = sys->faults ? sys->faults->down : 0;
  *slow = sys->faults ? sys->faults->slow : 0;
}

static guint32 node_kind(const TopoSystem *sys, SimNodeId n)
{
  return sim_fabric_node(sys->fabric, n)->kind;
}

/* A link of the network: one of its ends is a network switch. */
static gboolean network_channel(const TopoSystem *sys, SimChannelId c)
{
  const SimChannel *ch = sim_fabric_channel(sys->fabric, c);

  return node_kind(sys, ch->src) == TOPO_NODE_NET_SWITCH ||
         node_kind(sys, ch->dst) == TOPO_NODE_NET_SWITCH;
}

/* An NVLink inside a server: GPU to NVSwitch, or GPU to GPU. */
static gboolean nvlink_channel(const TopoSystem *sys, SimChannelId c)
{
  const SimChannel *ch = sim_fabric_channel(sys->fabric, c);
  guint32 a = node_kind(sys, ch->src), b = node_kind(sys, ch->dst);

  return topo_channel_link(sys, c)->family == MDL_FAMILY_NVLINK &&
         (a == TOPO_NODE_GPU || b == TOPO_NODE_GPU) &&
         (a == TOPO_NODE_GPU || a == TOPO_NODE_NVSWITCH) &&
         (b == TOPO_NODE_GPU || b == TOPO_NODE_NVSWITCH);
}

/* A link faults may take: the network's, or an NVLink. */
static gboolean faultable(const TopoSystem *sys, SimChannelId c)
{
  return network_channel(sys, c) || nvlink_channel(sys, c);
}

double topo_channel_ber(const TopoSystem *sys, SimChannelId c)
{
  const FaultLink *fl =
      sys->faults
          ? g_hash_table_lookup(sys->faults->links, GUINT_TO_POINTER(c >> 1))
          : NULL;

  return fl ? fl->ber : 0;
}

gboolean topo_system_lossy(const TopoSystem *sys)
{
  return sys->faults && sys->faults->lossy;
}

double topo_gpu_slowdown(const TopoSystem *sys, guint32 server, guint32 gpu)
{
  if (!sys->faults || !sys->faults->gpu_slow)
    return 1.0;
  return sys->faults->gpu_slow[server * sys->server->gpus + gpu];
}

gboolean topo_server_nvlink_faulted(const TopoSystem *sys, guint32 server)
{
  return sys->faults && sys->faults->nvl_fault[server];
}

guint32 topo_gpu_nvlinks_down(const TopoSystem *sys, guint32 server,
                              guint32 gpu)
{
  SimNodeId g = topo_gpu(sys, server, gpu);
  const SimChannelId *out;
  guint32 n, down = 0;

  if (!topo_server_nvlink_faulted(sys, server))
    return 0;
  out = sim_fabric_out(sys->fabric, g, &n);
  for (guint32 i = 0; i < n; i++) {
    const FaultLink *fl =
        g_hash_table_lookup(sys->faults->links, GUINT_TO_POINTER(out[i] >> 1));
    if (fl && nvlink_channel(sys, out[i]))
      down += fl->down;
  }
  return down;
}

/* Whether node n has a link (an NVLink where nvlink), up where up. */
static gboolean has_link(const TopoSystem *sys, SimNodeId n, gboolean nvlink,
                         gboolean up)
{
  guint32 deg;
  const SimChannelId *out = sim_fabric_out(sys->fabric, n, &deg);

  for (guint32 i = 0; i < deg; i++) {
    if ((!nvlink || nvlink_channel(sys, out[i])) &&
        (!up || topo_channel_up(sys, out[i])))
      return TRUE;
  }
  return FALSE;
}

/* Whether node n has an NVLink (as built: faults leave the channel). */
static gboolean has_nvlink(const TopoSystem *sys, SimNodeId n)
{
  return has_link(sys, n, TRUE, FALSE);
}

static const char *kind_text(guint32 kind)
{
  static const char *const text[] = {"a GPU",         "a CPU socket",
                                     "a NIC",         "an NVSwitch",
                                     "a PCIe switch", "a network switch"};
  return kind < G_N_ELEMENTS(text) ? text[kind] : "a device";
}

typedef struct {
  TopoSystem *sys;
  GHashTable *by_name; /* name -> node id + 1 */
  const char *where;   /* "FILE: [faults] fail", "--fail" */
  gboolean failing;    /* taking down, not slowing */
} FaultCtx;

static gboolean has_glob(const char *s)
{
  return strpbrk(s, "*?") != NULL;
}

#define FAULT_NAMES_HINT                                                       \
  "names as `ifsim topo --links` lists them: a network switch (p0.spine0), "   \
  "a NIC (s0.nic0), a GPU's NVLinks (s0.gpu0), an NVSwitch (s0.nvsw0) or a "   \
  "link 'A B' (s0.nic0 p0.leaf0, s0.gpu0 s0.nvsw0)"

/* What faults take inside a server, for the messages of what they do not. */
#define FAULT_INSIDE_HINT                                                      \
  "ifsim models faults of the network (network switches, NICs and the "        \
  "links between them) and of NVLinks (a GPU's, an NVSwitch's), not yet of "   \
  "PCIe or socket links"

/* The nodes a word names: one, or those a pattern matches. */
static GArray *match_nodes(FaultCtx *fc, const char *word, GError **error)
{
  const SimFabric *f = fc->sys->fabric;
  GArray *out = g_array_new(FALSE, FALSE, sizeof(SimNodeId));

  if (!has_glob(word)) {
    gpointer hit = g_hash_table_lookup(fc->by_name, word);
    if (hit) {
      SimNodeId n = GPOINTER_TO_UINT(hit) - 1;
      g_array_append_val(out, n);
    }
  } else {
    g_autoptr(GPatternSpec) ps = g_pattern_spec_new(word);

    for (SimNodeId n = 0; n < sim_fabric_n_nodes(f); n++) {
      if (g_pattern_spec_match_string(ps, sim_fabric_node_name(f, n)))
        g_array_append_val(out, n);
    }
  }
  if (out->len == 0) {
    g_array_free(out, TRUE);
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_UNKNOWN,
                "%s: '%s' names no element of this system (" FAULT_NAMES_HINT
                ")",
                fc->where, word);
    return NULL;
  }
  return out;
}

/* Adds a link (by one of its channels) once. */
static void add_link(GArray *links, GHashTable *seen, SimChannelId c)
{
  guint32 l = c >> 1;

  if (g_hash_table_add(seen, GUINT_TO_POINTER(l + 1)))
    g_array_append_val(links, l);
}

/* The links a node element names: a network switch's, a NIC's ports, a
 * GPU's or an NVSwitch's NVLinks. */
static GArray *node_links(FaultCtx *fc, const char *word, GError **error)
{
  const SimFabric *f = fc->sys->fabric;
  g_autoptr(GArray) nodes = match_nodes(fc, word, error);
  g_autoptr(GHashTable) seen = g_hash_table_new(NULL, NULL);
  GArray *links = g_array_new(FALSE, FALSE, sizeof(guint32));

  if (!nodes) {
    g_array_free(links, TRUE);
    return NULL;
  }
  for (guint i = 0; i < nodes->len; i++) {
    SimNodeId n = g_array_index(nodes, SimNodeId, i);
    guint32 kind = node_kind(fc->sys, n), n_out;
    const SimChannelId *out = sim_fabric_out(f, n, &n_out);
    gboolean net = kind == TOPO_NODE_NET_SWITCH || kind == TOPO_NODE_NIC;

    if (!net && kind != TOPO_NODE_GPU && kind != TOPO_NODE_NVSWITCH) {
      if (has_glob(word))
        continue; /* a pattern picks among what faults take */
      g_array_free(links, TRUE);
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                  "%s: %s is %s: " FAULT_INSIDE_HINT, fc->where, word,
                  kind_text(kind));
      return NULL;
    }
    if (!has_glob(word) && kind == TOPO_NODE_NIC && !topo_net_ops(fc->sys)) {
      g_array_free(links, TRUE);
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                  "%s: %s is a NIC, and faults of NICs need a network "
                  "between servers: this system has none (topology = none)",
                  fc->where, word);
      return NULL;
    }
    if (!has_glob(word) && !net && !has_nvlink(fc->sys, n)) {
      g_array_free(links, TRUE);
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                  "%s: %s is %s without NVLink: faults take a GPU's or an "
                  "NVSwitch's NVLinks, and " FAULT_INSIDE_HINT,
                  fc->where, word, kind_text(kind));
      return NULL;
    }
    for (guint32 k = 0; k < n_out; k++) {
      if (net ? network_channel(fc->sys, out[k])
              : nvlink_channel(fc->sys, out[k]))
        add_link(links, seen, out[k]);
    }
    if (fc->failing && kind == TOPO_NODE_NVSWITCH)
      g_array_append_val(fc->sys->faults->nvsw_failed, n);
  }
  if (links->len == 0) {
    g_array_free(links, TRUE);
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_UNKNOWN,
                "%s: '%s' matches no network switch or NIC with a network "
                "link, nor a GPU or NVSwitch with an NVLink (" FAULT_NAMES_HINT
                ")",
                fc->where, word);
    return NULL;
  }
  return links;
}

/* The links between the nodes two words name. */
static GArray *pair_links(FaultCtx *fc, const char *a, const char *b,
                          GError **error)
{
  const SimFabric *f = fc->sys->fabric;
  g_autoptr(GArray) from = match_nodes(fc, a, error);
  g_autoptr(GArray) to = from ? match_nodes(fc, b, error) : NULL;
  g_autoptr(GHashTable) seen = g_hash_table_new(NULL, NULL);
  g_autoptr(GHashTable) ends = g_hash_table_new(NULL, NULL);
  GArray *links;
  gboolean inside = FALSE;

  if (!to)
    return NULL;
  for (guint i = 0; i < to->len; i++)
    g_hash_table_add(ends,
                     GUINT_TO_POINTER(g_array_index(to, SimNodeId, i) + 1));
  links = g_array_new(FALSE, FALSE, sizeof(guint32));
  for (guint i = 0; i < from->len; i++) {
    guint32 n_out;
    const SimChannelId *out =
        sim_fabric_out(f, g_array_index(from, SimNodeId, i), &n_out);

    for (guint32 k = 0; k < n_out; k++) {
      SimNodeId d = sim_fabric_channel(f, out[k])->dst;
      if (!g_hash_table_contains(ends, GUINT_TO_POINTER(d + 1)))
        continue;
      if (faultable(fc->sys, out[k]))
        add_link(links, seen, out[k]);
      else
        inside = TRUE;
    }
  }
  if (links->len == 0) {
    g_array_free(links, TRUE);
    if (inside)
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                  "%s: '%s %s' is a PCIe or socket link: " FAULT_INSIDE_HINT,
                  fc->where, a, b);
    else
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_UNKNOWN,
                  "%s: no link joins '%s' and '%s' (" FAULT_NAMES_HINT ")",
                  fc->where, a, b);
    return NULL;
  }
  return links;
}

/* "xN": N physical links of a bundle (as [network] links write widths). */
static gboolean parse_count(const char *w, guint32 *n)
{
  guint64 v;

  if (w[0] != 'x' ||
      !g_ascii_string_to_unsigned(w + 1, 10, 1, G_MAXUINT32, &v, NULL))
    return FALSE;
  *n = (guint32)v;
  return TRUE;
}

static FaultLink *fault_link(TopoSystem *sys, guint32 l)
{
  FaultLink *fl = g_hash_table_lookup(sys->faults->links, GUINT_TO_POINTER(l));

  if (!fl) {
    const SimChannel *ch = sim_fabric_channel(sys->fabric, 2 * l);
    fl = g_new0(FaultLink, 1);
    fl->width = ch->width;
    fl->link_Bps = ch->width ? ch->rate_Bps / ch->width : 0;
    g_hash_table_insert(sys->faults->links, GUINT_TO_POINTER(l), fl);
  }
  return fl;
}

static void link_update(TopoSystem *sys, guint32 l, const FaultLink *fl)
{
  guint32 w = fl->width - fl->down;
  double rate = (w - fl->slow) * fl->link_Bps + fl->slow_Bps;

  sim_fabric_set_link_rate(sys->fabric, 2 * l, w, w ? rate : 0);
  if (nvlink_channel(sys, 2 * l))
    sys->faults->nvl_fault[topo_node_server(
        sys, sim_fabric_channel(sys->fabric, 2 * l)->src)] = 1;
}

static char *link_name(const TopoSystem *sys, guint32 l)
{
  const SimChannel *ch = sim_fabric_channel(sys->fabric, 2 * l);

  return g_strdup_printf("%s %s", sim_fabric_node_name(sys->fabric, ch->src),
                         sim_fabric_node_name(sys->fabric, ch->dst));
}

/* Takes n (0: all) physical links of link l down. */
static gboolean link_fail(FaultCtx *fc, guint32 l, guint32 n, GError **error)
{
  FaultLink *fl = fault_link(fc->sys, l);
  guint32 up = fl->width - fl->down, healthy = up - fl->slow, from_slow;

  if (n == 0)
    n = up;
  if (n > up) {
    g_autofree char *name = link_name(fc->sys, l);
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_VALUE,
                "%s: x%u: the link '%s' has %u of its %u physical links up",
                fc->where, n, name, up, fl->width);
    return FALSE;
  }
  /* the healthy ones first, then the slow */
  from_slow = n > healthy ? n - healthy : 0;
  if (from_slow) {
    fl->slow_Bps -= from_slow * (fl->slow_Bps / fl->slow);
    fl->slow -= from_slow;
    fc->sys->faults->slow -= from_slow;
  }
  fl->down += n;
  fc->sys->faults->down += n;
  link_update(fc->sys, l, fl);
  return TRUE;
}

/* Slows n (0: all healthy) physical links of link l to rate each. */
static gboolean link_slow(FaultCtx *fc, guint32 l, guint32 n, double rate,
                          GError **error)
{
  FaultLink *fl = fault_link(fc->sys, l);
  guint32 healthy = fl->width - fl->down - fl->slow;

  if (n == 0)
    n = healthy;
  if (n == 0 || n > healthy) {
    g_autofree char *name = link_name(fc->sys, l);
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_VALUE,
                "%s: the link '%s' has %u of its %u physical links up at "
                "their full rate, not %u",
                fc->where, name, healthy, fl->width, MAX(n, 1u));
    return FALSE;
  }
  fl->slow += n;
  fl->slow_Bps += n * rate;
  fc->sys->faults->slow += n;
  link_update(fc->sys, l, fl);
  return TRUE;
}

/* One entry's target: the links and how many of each bundle (0: all). */
static GArray *entry_links(FaultCtx *fc, char **w, guint n, guint32 *count,
                           const char *entry, GError **error)
{
  *count = 0;
  if (n == 1)
    return node_links(fc, w[0], error);
  if (n == 2)
    return pair_links(fc, w[0], w[1], error);
  if (n == 3 && parse_count(w[2], count))
    return pair_links(fc, w[0], w[1], error);
  g_set_error(error, TOPO_ERROR, TOPO_ERROR_VALUE,
              "%s: '%s' is not an element (expected NODE, 'A B' or 'A B "
              "xN': " FAULT_NAMES_HINT ")",
              fc->where, entry);
  return NULL;
}

static gboolean apply_fail(FaultCtx *fc, const char *entry, GError **error)
{
  g_auto(GStrv) w = mdl_split_words(entry);
  guint n = g_strv_length(w);
  guint32 count;
  g_autoptr(GArray) links = entry_links(fc, w, n, &count, entry, error);

  if (!links)
    return FALSE;
  for (guint i = 0; i < links->len; i++) {
    if (!link_fail(fc, g_array_index(links, guint32, i), count, error))
      return FALSE;
  }
  g_ptr_array_add(fc->sys->faults->lines,
                  g_strdup_printf("down: %s (%u link%s)", entry, links->len,
                                  links->len == 1 ? "" : "s"));
  return TRUE;
}

/* A degraded rate: a fraction of l's, or a link model's of its family. */
static gboolean slow_rate(FaultCtx *fc, guint32 l, const char *value,
                          double *rate, GError **error)
{
  const FaultLink *fl = fault_link(fc->sys, l);
  const MdlLink *now = topo_channel_link(fc->sys, 2 * l);
  char *end;
  double f = g_ascii_strtod(value, &end);

  if (end != value && *end == '\0') {
    if (!(f > 0 && f <= 1)) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_VALUE,
                  "%s: %s is outside (0, 1] (a fraction of the link's data "
                  "rate, or a link model)",
                  fc->where, value);
      return FALSE;
    }
    *rate = f * fl->link_Bps;
    return TRUE;
  }
  {
    const MdlLink *m = mdl_registry_link(topo_system_models(fc->sys), value);
    g_autofree char *name = link_name(fc->sys, l);

    if (!m) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_UNKNOWN,
                  "%s: '%s' is neither a fraction in (0, 1] nor a link model "
                  "(`ifsim models` lists them)",
                  fc->where, value);
      return FALSE;
    }
    if (m->family != now->family) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                  "%s: %s is not of the family of %s, the model of '%s'",
                  fc->where, value, now->name, name);
      return FALSE;
    }
    *rate = mdl_link_rate_Bps(m);
    if (*rate > fl->link_Bps * (1 + 1e-12)) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                  "%s: %s (%.3f GB/s) is faster than %s (%.3f GB/s), the "
                  "model of '%s': a link trains at its own rate or lower",
                  fc->where, value, *rate / 1e9, now->name, fl->link_Bps / 1e9,
                  name);
      return FALSE;
    }
  }
  return TRUE;
}

/* An "ELEMENT VALUE" entry: its links (and how many of each bundle, 0:
 * all) and its last word; *element gets the element's words.  `wants`
 * says what the value is, for the message of an entry without one. */
static GArray *valued_links(FaultCtx *fc, const char *entry, const char *wants,
                            char **element, char **value, guint32 *count,
                            GError **error)
{
  g_auto(GStrv) w = mdl_split_words(entry);
  guint n = g_strv_length(w);
  GArray *links;

  if (n < 2) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_VALUE, "%s: '%s' has no %s",
                fc->where, entry, wants);
    return NULL;
  }
  links = entry_links(fc, w, n - 1, count, entry, error);
  if (!links)
    return NULL;
  *value = w[n - 1];
  w[n - 1] = NULL;
  *element = g_strjoinv(" ", w);
  return links;
}

static gboolean apply_degrade(FaultCtx *fc, const char *entry, GError **error)
{
  g_autofree char *element = NULL, *value = NULL;
  guint32 count;
  g_autoptr(GArray) links = valued_links(
      fc, entry,
      "rate (expected ELEMENT FRACTION or ELEMENT LINK-MODEL, e.g. 's0.nic0 "
      "p0.leaf0 0.25')",
      &element, &value, &count, error);

  if (!links)
    return FALSE;
  for (guint i = 0; i < links->len; i++) {
    guint32 l = g_array_index(links, guint32, i);
    double rate;

    if (!slow_rate(fc, l, value, &rate, error) ||
        !link_slow(fc, l, count, rate, error))
      return FALSE;
  }
  g_ptr_array_add(fc->sys->faults->lines,
                  g_strdup_printf("slow: %s (%u link%s)", entry, links->len,
                                  links->len == 1 ? "" : "s"));
  return TRUE;
}

/* "ELEMENT BER": the element's network links corrupt bits at BER after
 * their FEC (a later entry for a link replaces an earlier one).  NVLinks
 * are refused: their link layer replays what it finds corrupt. */
static gboolean apply_lossy(FaultCtx *fc, const char *entry, GError **error)
{
  g_autofree char *element = NULL, *value = NULL;
  guint32 count;
  g_autoptr(GArray) links = valued_links(
      fc, entry,
      "bit error rate (expected ELEMENT BER, e.g. 'p0.leaf0 p0.spine1 1e-8')",
      &element, &value, &count, error);
  double ber;
  char *end;

  if (!links)
    return FALSE;
  ber = g_ascii_strtod(value, &end);
  if (end == value || *end != '\0' || !(ber > 0 && ber <= 1e-3)) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_VALUE,
                "%s: %s is not a bit error rate in (0, 1e-3] (the rate after "
                "FEC, e.g. 1e-8)",
                fc->where, value);
    return FALSE;
  }
  if (count) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_VALUE,
                "%s: '%s': a bit error rate is a whole link's (no xN)",
                fc->where, entry);
    return FALSE;
  }
  for (guint i = 0; i < links->len; i++) {
    guint32 l = g_array_index(links, guint32, i);

    if (nvlink_channel(fc->sys, 2 * l)) {
      g_autofree char *name = link_name(fc->sys, l);

      g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                  "%s: '%s' is an NVLink: its link layer replays what it "
                  "finds corrupt, which is not modelled (a bit error rate is "
                  "a network link's)",
                  fc->where, name);
      return FALSE;
    }
    fault_link(fc->sys, l)->ber = ber;
  }
  fc->sys->faults->lossy = TRUE;
  g_ptr_array_add(fc->sys->faults->lines,
                  g_strdup_printf("lossy: %s, bit error rate %g (%u link%s)",
                                  element, ber, links->len,
                                  links->len == 1 ? "" : "s"));
  return TRUE;
}

/* "GPU FACTOR": the GPUs a name or pattern gives are stragglers, their
 * work taking FACTOR (>= 1) times as long; a later entry for a GPU
 * replaces an earlier one. */
static gboolean apply_slow_gpu(FaultCtx *fc, const char *entry, GError **error)
{
  TopoSystem *sys = fc->sys;
  g_auto(GStrv) w = mdl_split_words(entry);
  g_autoptr(GArray) nodes = NULL;
  guint32 gpus = 0;
  double f;
  char *end;

  if (g_strv_length(w) != 2) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_VALUE,
                "%s: '%s' is not 'GPU FACTOR' (a GPU or pattern and how many "
                "times as long its work takes, e.g. 's3.gpu2 1.25')",
                fc->where, entry);
    return FALSE;
  }
  f = g_ascii_strtod(w[1], &end);
  if (end == w[1] || *end != '\0' || !(f >= 1 && f <= 1000)) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_VALUE,
                "%s: %s is not a slowdown factor in [1, 1000] (how many times "
                "as long the GPU's work takes)",
                fc->where, w[1]);
    return FALSE;
  }
  nodes = match_nodes(fc, w[0], error);
  if (!nodes)
    return FALSE;
  if (!sys->faults->gpu_slow) {
    guint32 n = sys->n_servers * sys->server->gpus;

    sys->faults->gpu_slow = g_new(double, n);
    for (guint32 i = 0; i < n; i++)
      sys->faults->gpu_slow[i] = 1.0;
  }
  for (guint i = 0; i < nodes->len; i++) {
    SimNodeId n = g_array_index(nodes, SimNodeId, i);
    guint32 s = topo_node_server(sys, n);

    if (node_kind(sys, n) != TOPO_NODE_GPU) {
      if (has_glob(w[0]))
        continue;
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                  "%s: %s is %s: a straggler is a GPU (a NIC or link runs "
                  "slower through --degrade, [faults] degrade)",
                  fc->where, w[0], kind_text(node_kind(sys, n)));
      return FALSE;
    }
    sys->faults->gpu_slow[s * sys->server->gpus +
                          (n - s * sys->local_nodes - sys->off_gpu)] = f;
    gpus++;
  }
  if (gpus == 0) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_UNKNOWN,
                "%s: '%s' matches no GPU", fc->where, w[0]);
    return FALSE;
  }
  g_ptr_array_add(sys->faults->lines,
                  g_strdup_printf("straggler: %s, its work %gx as long (%u "
                                  "GPU%s)",
                                  w[0], f, gpus, gpus == 1 ? "" : "s"));
  return TRUE;
}

/* k of the network's physical links that are up, drawn without
 * replacement, each equally likely, then taken down. */
static gboolean apply_random(FaultCtx *fc, guint32 k, guint32 seed,
                             GError **error)
{
  const SimFabric *f = fc->sys->fabric;
  g_autoptr(GArray) pool = g_array_new(FALSE, FALSE, sizeof(guint32));
  SimRng rng;

  for (SimChannelId c = 0; c < sim_fabric_n_channels(f); c += 2) {
    const SimChannel *ch = sim_fabric_channel(f, c);
    if (!network_channel(fc->sys, c))
      continue;
    for (guint32 i = 0; i < ch->width; i++) {
      guint32 l = c >> 1;
      g_array_append_val(pool, l);
    }
  }
  if (!topo_net_ops(fc->sys)) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                "%s: random network links need a network between servers: "
                "this system has none (topology = none)",
                fc->where);
    return FALSE;
  }
  if (k > pool->len) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_VALUE,
                "%s: %u is more than the %u network links up", fc->where, k,
                pool->len);
    return FALSE;
  }
  sim_rng_init(&rng, seed, FAULT_RNG_STREAM);
  sim_rng_draw(&rng, (guint32 *)(void *)pool->data, pool->len, k);
  for (guint32 i = 0; i < k; i++) {
    guint32 *p = (guint32 *)(void *)pool->data;
    g_autofree char *name = NULL;

    if (!link_fail(fc, p[i], 1, error))
      return FALSE;
    name = link_name(fc->sys, p[i]);
    g_ptr_array_add(
        fc->sys->faults->lines,
        g_strdup_printf("down: %s x1 (random, seed %u)", name, seed));
  }
  return TRUE;
}

/* A NIC is down when every port's link is. */
static void mark_nics(TopoSystem *sys)
{
  guint32 total = sys->n_servers * sys->server->nics;
  const TopoEndpoint *eps = (const TopoEndpoint *)(void *)sys->endpoints->data;

  for (guint32 k = 0; k < total; k++) {
    gboolean up = FALSE;
    for (guint32 i = 0; i < sys->nic_n_ep[k]; i++)
      up |= topo_channel_up(sys, eps[sys->nic_first_ep[k] + i].up);
    sys->faults->nic_down[k] = !up;
  }
}

/* Adds `where` to the places the faults were given, once, without the
 * file's folders ("pod.ini: [faults] fail"): what the faults cut reaches
 * reports (ifsim faults' cut scenarios), and outputs carry no paths. */
static void note_origin(TopoFaults *fl, gboolean given, const char *where)
{
  g_autofree char *place = NULL;

  if (!given || !where)
    return;
  place = g_path_get_basename(where);
  if (strstr(fl->from->str, place))
    return;
  if (fl->from->len)
    g_string_append(fl->from, ", ");
  g_string_append(fl->from, place);
}

const char *topo_system_fault_origin(const TopoSystem *sys)
{
  return sys->faults ? sys->faults->from->str : "";
}

/* GPU g of server s's NVLinks down to NVSwitch k, and up. */
static void gpu_switch_links(const TopoSystem *sys, guint32 s, guint32 g,
                             guint32 k, guint32 *down, guint32 *up)
{
  SimChannelId c =
      sim_fabric_find_channel(sys->fabric, topo_gpu(sys, s, g),
                              s * sys->local_nodes + sys->off_nvsw + k);
  const FaultLink *fl =
      c == SIM_NONE
          ? NULL
          : g_hash_table_lookup(sys->faults->links, GUINT_TO_POINTER(c >> 1));

  *up = c == SIM_NONE ? 0 : sim_fabric_channel(sys->fabric, c)->width;
  *down = fl ? fl->down : 0;
}

/* Whether GPU g of server s has an NVLink to an NVSwitch up. */
static gboolean gpu_on_nvlink(const TopoSystem *sys, guint32 s, guint32 g)
{
  for (guint32 k = 0; k < sys->server->nvswitches; k++) {
    guint32 down, up;

    gpu_switch_links(sys, s, g, k, &down, &up);
    if (up > 0)
      return TRUE;
  }
  return FALSE;
}

/* Takes every NVLink of a node (a GPU, an NVSwitch) down, with a line
 * saying why; nothing when none is up. */
static gboolean take_all(FaultCtx *fc, SimNodeId n, const char *why,
                         GError **error)
{
  guint32 deg, taken = 0;
  const SimChannelId *out = sim_fabric_out(fc->sys->fabric, n, &deg);

  for (guint32 i = 0; i < deg; i++) {
    if (!nvlink_channel(fc->sys, out[i]) || !topo_channel_up(fc->sys, out[i]))
      continue;
    if (!link_fail(fc, out[i] >> 1, 0, error))
      return FALSE;
    taken++;
  }
  if (taken)
    g_ptr_array_add(fc->sys->faults->lines,
                    g_strdup_printf("down: %s (%s)",
                                    sim_fabric_node_name(fc->sys->fabric, n),
                                    why));
  return TRUE;
}

/* What Fabric Manager makes of server s's NVLink failures when it brings
 * the fabric up with them (its user guide, High Availability Modes; a
 * failure under a running job does not trigger these, the job fails):
 * - an NVSwitch down: by default (NVSWITCH_FAILURE_MODE=0) it leaves the
 *   fabric uninitialized and no CUDA job starts; `disable` (A100
 *   systems) runs on without it;
 * - a GPU's links to an NVSwitch down (an access link): by default
 *   (ACCESS_LINK_FAILURE_MODE=0) it removes the GPU from NVSwitch
 *   routing, and the GPU loses NVLink P2P to every other; with
 *   disable-nvswitch (=1, A100 systems) it disables the switch, every
 *   GPU keeping the others' links, unless the GPU's failed links reach
 *   more than one switch, when it removes the GPU; keep-links, a what-if
 *   no Fabric Manager mode runs, leaves the links that are up.
 * GPUs joined by direct NVLinks (bridges) have no Fabric Manager. */
static gboolean fabric_manager(FaultCtx *fc, guint32 s, GError **error)
{
  TopoSystem *sys = fc->sys;
  const TopoServerSpec *sp = sys->server;
  SimNodeId sw0 = s * sys->local_nodes + sys->off_nvsw;
  g_autofree guint32 *failed_to = NULL; /* per GPU: switches, or their count */

  if (sp->nvswitches == 0)
    return TRUE;
  for (guint i = 0; i < sys->faults->nvsw_failed->len; i++) {
    SimNodeId n = g_array_index(sys->faults->nvsw_failed, SimNodeId, i);

    if (topo_node_server(sys, n) != s ||
        sys->nvswitch_mode != TOPO_NVSWITCH_ABORT)
      continue;
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                "%s down (faults from %s): Fabric Manager leaves server %u's "
                "NVLink fabric uninitialized and no CUDA job starts there "
                "([faults] nvswitch_failure_mode = abort, its default "
                "NVSWITCH_FAILURE_MODE=0; `disable` runs on without the "
                "switch, as A100 systems can)",
                sim_fabric_node_name(sys->fabric, n), sys->faults->from->str,
                s);
    return FALSE;
  }
  if (sys->access_link_mode == TOPO_ACCESS_KEEP_LINKS)
    return TRUE;
  /* each GPU's switches with a failed link, before acting on any: the
   * switches a policy disables take other GPUs' links, not failures */
  failed_to = g_new0(guint32, sp->gpus);
  for (guint32 g = 0; g < sp->gpus; g++) {
    for (guint32 k = 0; k < sp->nvswitches; k++) {
      guint32 down, up;

      gpu_switch_links(sys, s, g, k, &down, &up);
      if (down && has_link(sys, sw0 + k, TRUE, TRUE))
        failed_to[g] = failed_to[g] ? G_MAXUINT32 : k + 1;
    }
    if (!gpu_on_nvlink(sys, s, g))
      failed_to[g] = 0; /* off NVLink already */
  }
  for (guint32 g = 0; g < sp->gpus; g++) {
    if (failed_to[g] == 0)
      continue;
    if (sys->access_link_mode == TOPO_ACCESS_DISABLE_NVSWITCH &&
        failed_to[g] != G_MAXUINT32) {
      if (!take_all(fc, sw0 + failed_to[g] - 1,
                    "Fabric Manager disables the switch of a failed access "
                    "link: access_link_failure_mode = disable-nvswitch",
                    error))
        return FALSE;
      continue;
    }
    if (!take_all(fc, topo_gpu(sys, s, g),
                  "Fabric Manager removes the GPU of a failed access link "
                  "from NVLink: access_link_failure_mode = remove-gpu",
                  error))
      return FALSE;
  }
  return TRUE;
}

/* A GPU left without NVLink on a server of several hosts (GB200 and GB300
 * NVL72: sockets_per_host) reaches the GPUs of other hosts only over the
 * network, where NCCL would leave multi-node NVLink for its net transport;
 * ifsim routes a server's GPUs to each other inside it, so it says so
 * rather than fail later on a missing route between sockets of different
 * hosts. */
static gboolean off_nvlink_across_hosts(FaultCtx *fc, guint32 s, GError **error)
{
  const TopoSystem *sys = fc->sys;
  const TopoServerSpec *sp = sys->server;

  if (sp->nvswitches == 0 || sp->sockets_per_host >= sp->sockets)
    return TRUE;
  for (guint32 g = 0; g < sp->gpus; g++) {
    if (gpu_on_nvlink(sys, s, g))
      continue;
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_UNMODELLED,
                "%s is off NVLink (faults from %s, and Fabric Manager's "
                "policies) and server %u's NVLink domain spans %u hosts: "
                "the GPUs of the other hosts reach it only over the network "
                "(NCCL's net transport in place of multi-node NVLink), which "
                "ifsim does not model inside one NVLink domain%s",
                sim_fabric_node_name(sys->fabric, topo_gpu(sys, s, g)),
                sys->faults->from->str, s, sp->sockets / sp->sockets_per_host,
                sys->access_link_mode == TOPO_ACCESS_KEEP_LINKS
                    ? ""
                    : "; [faults] access_link_failure_mode = keep-links "
                      "keeps a GPU's links that are up");
    return FALSE;
  }
  return TRUE;
}

gboolean topo_system_add_faults(TopoSystem *sys, const TopoFaultSpec *spec,
                                GError **error)
{
  const TopoNetOps *net = topo_net_ops(sys);
  g_autoptr(GHashTable) by_name = NULL;
  FaultCtx fc = {.sys = sys};
  gboolean any = spec->random_links > 0;

  for (guint i = 0; spec->fail && spec->fail[i]; i++)
    any = TRUE;
  for (guint i = 0; spec->degrade && spec->degrade[i]; i++)
    any = TRUE;
  for (guint i = 0; spec->slow_gpus && spec->slow_gpus[i]; i++)
    any = TRUE;
  for (guint i = 0; spec->lossy && spec->lossy[i]; i++)
    any = TRUE;
  if (!any)
    return TRUE;
  if (!sys->faults) {
    sys->faults = g_new0(TopoFaults, 1);
    sys->faults->links = g_hash_table_new_full(NULL, NULL, NULL, g_free);
    sys->faults->nic_down = g_new0(guint8, sys->n_servers * sys->server->nics);
    sys->faults->nvl_fault = g_new0(guint8, sys->n_servers);
    sys->faults->nvsw_failed = g_array_new(FALSE, FALSE, sizeof(SimNodeId));
    sys->faults->lines = g_ptr_array_new_with_free_func(g_free);
    sys->faults->from = g_string_new(NULL);
  }
  by_name = g_hash_table_new(g_str_hash, g_str_equal);
  for (SimNodeId n = 0; n < sim_fabric_n_nodes(sys->fabric); n++)
    g_hash_table_insert(by_name, (gpointer)sim_fabric_node_name(sys->fabric, n),
                        GUINT_TO_POINTER(n + 1));
  fc.by_name = by_name;
  note_origin(sys->faults, spec->fail && spec->fail[0], spec->where_fail);
  note_origin(sys->faults, spec->degrade && spec->degrade[0],
              spec->where_degrade);
  note_origin(sys->faults, spec->random_links > 0, spec->where_random);
  note_origin(sys->faults, spec->slow_gpus && spec->slow_gpus[0],
              spec->where_slow);
  note_origin(sys->faults, spec->lossy && spec->lossy[0], spec->where_lossy);
  fc.where = spec->where_fail;
  fc.failing = TRUE;
  for (guint i = 0; spec->fail && spec->fail[i]; i++) {
    if (!apply_fail(&fc, spec->fail[i], error))
      return FALSE;
  }
  fc.failing = FALSE;
  fc.where = spec->where_degrade;
  for (guint i = 0; spec->degrade && spec->degrade[i]; i++) {
    if (!apply_degrade(&fc, spec->degrade[i], error))
      return FALSE;
  }
  fc.where = spec->where_lossy;
  for (guint i = 0; spec->lossy && spec->lossy[i]; i++) {
    if (!apply_lossy(&fc, spec->lossy[i], error))
      return FALSE;
  }
  fc.where = spec->where_slow;
  for (guint i = 0; spec->slow_gpus && spec->slow_gpus[i]; i++) {
    if (!apply_slow_gpu(&fc, spec->slow_gpus[i], error))
      return FALSE;
  }
  fc.where = spec->where_random;
  if (spec->random_links &&
      !apply_random(&fc, spec->random_links, spec->seed, error))
    return FALSE;
  for (guint32 s = 0; s < sys->n_servers; s++) {
    if (!sys->faults->nvl_fault[s])
      continue;
    if (!spec->running && (!fabric_manager(&fc, s, error) ||
                           !off_nvlink_across_hosts(&fc, s, error)))
      return FALSE;
    if (!topo_rebuild_intra_routes(sys, s))
      return sim_interrupt_check(error);
  }
  if (!net)
    return TRUE; /* no network to route again */
  mark_nics(sys);
  return net->refault(sys, error);
}

SimNodeId topo_live_nic(const TopoSystem *sys, guint32 server, guint32 nic,
                        guint32 gpu)
{
  const TopoServerSpec *sp = sys->server;
  guint32 best = SIM_NONE, best_path = G_MAXUINT32;

  if (topo_nic_up(sys, server, nic))
    return topo_nic(sys, server, nic);
  /* nearest over PCIe to the GPU (or next in order), first after nic */
  for (guint32 i = 1; i < sp->nics; i++) {
    guint32 n = (nic + i) % sp->nics;
    guint32 path =
        gpu < sp->gpus ? (guint32)topo_gpu_nic_pci_path(sys, gpu, n) : 0;
    if (topo_nic_up(sys, server, n) && path < best_path) {
      best = n;
      best_path = path;
    }
  }
  return best == SIM_NONE ? SIM_NONE : topo_nic(sys, server, best);
}

static const char *const element_kinds[] = {
    "switches", "leaves",  "spines", "cores",      "nics",
    "links",    "nvlinks", "gpus",   "nvswitches", NULL};
enum { KIND_NICS = 4, KIND_LINKS, KIND_NVLINKS, KIND_GPUS, KIND_NVSWITCHES };

double topo_nic_rate_Bps(const TopoSystem *sys, guint32 server, guint32 nic)
{
  guint32 k = server * sys->server->nics + nic;
  const TopoEndpoint *eps = (const TopoEndpoint *)(void *)sys->endpoints->data;
  double sum = 0;

  for (guint32 i = 0; i < sys->nic_n_ep[k]; i++)
    sum += sim_fabric_channel(sys->fabric, eps[sys->nic_first_ep[k] + i].up)
               ->rate_Bps;
  return sum;
}

const char *const *topo_fault_element_kinds(void)
{
  return element_kinds;
}

GPtrArray *topo_fault_elements(const TopoSystem *sys, const char *kind,
                               GError **error)
{
  const SimFabric *f = sys->fabric;
  GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
  gint k = -1;

  for (gint i = 0; element_kinds[i]; i++) {
    if (strcmp(kind, element_kinds[i]) == 0)
      k = i;
  }
  if (k < 0) {
    g_autofree char *list = g_strjoinv(", ", (char **)element_kinds);
    g_ptr_array_unref(out);
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_UNKNOWN,
                "'%s' is not a kind of element faults take (%s)", kind, list);
    return NULL;
  }
  if (k == KIND_LINKS || k == KIND_NVLINKS) {
    for (SimChannelId c = 0; c < sim_fabric_n_channels(f); c += 2) {
      if (k == KIND_LINKS ? network_channel(sys, c) : nvlink_channel(sys, c))
        g_ptr_array_add(out, link_name(sys, c >> 1));
    }
    return out;
  }
  for (SimNodeId n = 0; n < sim_fabric_n_nodes(f); n++) {
    const SimNode *node = sim_fabric_node(f, n);
    gboolean take = k == KIND_NICS ? node->kind == TOPO_NODE_NIC
                    : k == KIND_GPUS
                        ? node->kind == TOPO_NODE_GPU && has_nvlink(sys, n)
                    : k == KIND_NVSWITCHES
                        ? node->kind == TOPO_NODE_NVSWITCH && has_nvlink(sys, n)
                        : node->kind == TOPO_NODE_NET_SWITCH &&
                              (k == 0 || node->group == (guint32)k);
    if (take)
      g_ptr_array_add(out, g_strdup(sim_fabric_node_name(f, n)));
  }
  return out;
}

GPtrArray *topo_fault_nvlink_cables(const TopoSystem *sys)
{
  const SimFabric *f = sys->fabric;
  GPtrArray *out = g_ptr_array_new_with_free_func(g_free);

  for (SimChannelId c = 0; c < sim_fabric_n_channels(f); c += 2) {
    g_autofree char *name = NULL;

    if (!nvlink_channel(sys, c))
      continue;
    name = link_name(sys, c >> 1);
    for (guint32 i = 0; i < sim_fabric_channel(f, c)->width; i++)
      g_ptr_array_add(out, g_strdup_printf("%s x1", name));
  }
  return out;
}

gboolean topo_fault_recovery(const TopoSystem *before, const TopoSystem *after,
                             TopoRecovery *out, char **why, guint32 *cut_server,
                             GError **error)
{
  const SimFabric *f = after->fabric;
  gboolean ib = FALSE, cut_link = FALSE, any = FALSE;

  g_assert(sim_fabric_n_channels(f) == sim_fabric_n_channels(before->fabric));
  for (SimChannelId c = 0; c < sim_fabric_n_channels(f); c += 2) {
    const SimChannel *now = sim_fabric_channel(f, c);
    const SimChannel *was = sim_fabric_channel(before->fabric, c);
    gboolean a_sw, b_sw;

    if (now->width == was->width)
      continue;
    if (nvlink_channel(after, c)) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                  "'%s %s' is an NVLink: one that fails under a running job "
                  "fails the job (Fabric Manager's policies apply when it "
                  "starts again): --fail gives that state",
                  sim_fabric_node_name(f, now->src),
                  sim_fabric_node_name(f, now->dst));
      return FALSE;
    }
    any = TRUE;
    ib |= topo_channel_link(after, c)->family == MDL_FAMILY_IB;
    a_sw = node_kind(after, now->src) == TOPO_NODE_NET_SWITCH;
    b_sw = node_kind(after, now->dst) == TOPO_NODE_NET_SWITCH;
    if (now->width == 0 && (!a_sw || !b_sw)) {
      SimNodeId nic = a_sw ? now->dst : now->src;

      *out = TOPO_RECOVER_NONE;
      *why = g_strdup_printf("it takes a port of %s, whose connections have "
                             "no other path",
                             sim_fabric_node_name(f, nic));
      *cut_server = topo_node_server(after, nic);
      return TRUE;
    }
    /* a link between switches gone whole, not with a switch at its end */
    if (now->width == 0 && has_link(after, now->src, FALSE, TRUE) &&
        has_link(after, now->dst, FALSE, TRUE))
      cut_link = TRUE;
  }
  if (!any) {
    *out = TOPO_RECOVER_AT_ONCE;
    *why = g_strdup("it takes nothing that carries traffic");
    return TRUE;
  }
  if (ib && topo_system_net(after) == TOPO_NET_FATTREE) {
    *out = TOPO_RECOVER_AT_ONCE;
    *why = g_strdup("InfiniBand fat-tree: with SHIELD (on by default, "
                    "opensm.conf shield_mode) a switch whose output port is "
                    "down takes another at once, and tells its neighbours "
                    "where it has none");
  } else if (ib) {
    *out = TOPO_RECOVER_CONTROL;
    *why = g_strdup("InfiniBand outside a fat-tree: the subnet manager "
                    "routes around it (SHIELD's notices are for fat-trees)");
  } else if (cut_link) {
    *out = TOPO_RECOVER_CONTROL;
    *why = g_strdup("Ethernet: the switch above a link that went down has "
                    "no other way to the switch below, and drops what it "
                    "sends there until the routing converges");
  } else {
    *out = TOPO_RECOVER_AT_ONCE;
    *why = g_strdup("Ethernet: the switches next to it take it out of their "
                    "ECMP groups at once");
  }
  return TRUE;
}
