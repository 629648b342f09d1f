/* TopoSystem: loading system files and building the fabric; see
 * topologies/system.h.  The builders live in server.c, fattree.c and
 * dragonfly.c; the measures of `ifsim topo` in analysis.c. */
#include <string.h>

#include "sim/input.h"
#include "sim/interrupt.h"
#include "sim/memory.h"
#include "topologies/error.h"
#include "topologies/resources.h"
#include "topologies/system_internal.h"

/* --- parameter tables ------------------------------------------------ */

typedef struct {
  char *name; /* params convention; unused */
  char *description;
  char *server;
  guint32 servers;
} SystemGroup;

#define YOFF(f) offsetof(SystemGroup, f)
static const MdlParamSpec system_params[] = {
    {"description", MDL_PARAM_STRING, YOFF(description), 0, 0, NULL, "",
     "one line for listings"},
    {"server", MDL_PARAM_STRING, YOFF(server), 0, 0, NULL, NULL,
     "server template: a [server NAME] of this file or built in"},
    {"servers", MDL_PARAM_UINT, YOFF(servers), 1, 1u << 20, NULL, "1",
     "servers (NVLink domains) in the system"},
    MDL_PARAM_END,
};
static const MdlParamSpec *const system_tables[] = {system_params, NULL};

static const char *const net_names[] = {"none", "fat-tree", "dragonfly",
                                        "explicit", NULL};
static const char *const routing_names[] = {"dmodk",   "ecmp",    "adaptive",
                                            "minimal", "valiant", "ugal-l",
                                            "ugal-g",  NULL};
static const char *const arrangement_names[] = {"absolute", "relative",
                                                "circulant", NULL};

#define COFF(f) offsetof(TopoScaleout, f)
const MdlParamSpec topo_scaleout_params[] = {
    {"topology", MDL_PARAM_ENUM, COFF(topology), 0, 0, net_names, "none",
     "none, fat-tree, dragonfly or explicit ([network] lists the fabric)"},
    {"link", MDL_PARAM_STRING, COFF(link), 0, 0, NULL, "",
     "switch-to-switch link model (default: the NIC's port link)"},
    {"switch", MDL_PARAM_STRING, COFF(sw), 0, 0, NULL, "",
     "switch (router) model"},
    {"routing", MDL_PARAM_ENUM, COFF(routing), 0, 0, routing_names, "ecmp",
     "fat-tree: dmodk, ecmp, adaptive; dragonfly: minimal, valiant, ugal-l, "
     "ugal-g (its default: minimal)"},
    {"seed", MDL_PARAM_UINT, COFF(seed), 0, G_MAXUINT32, NULL, "1",
     "seed of ECMP hashing and Valiant's random groups"},
    {"tiers", MDL_PARAM_UINT, COFF(tiers), 1, 3, NULL, "2",
     "fat-tree: switch tiers"},
    {"radix", MDL_PARAM_UINT, COFF(radix), 0, 4096, NULL, "0",
     "fat-tree: switch ports used (0: the switch model's)"},
    {"oversubscription", MDL_PARAM_DOUBLE, COFF(oversubscription), 1, 64, NULL,
     "1", "fat-tree: leaf down:up port ratio, e.g. 2 for 2:1"},
    {"spine_oversubscription", MDL_PARAM_DOUBLE, COFF(spine_oversubscription),
     1, 64, NULL, "1", "fat-tree, 3 tiers: spine down:up port ratio"},
    {"rail_optimized", MDL_PARAM_BOOL, COFF(rail_optimized), 0, 0, NULL,
     "false", "fat-tree: NIC i of every server to rail i's leaves"},
    {"planes", MDL_PARAM_UINT, COFF(planes), 1, 16, NULL, "1",
     "fat-tree: independent network planes"},
    {"leaves", MDL_PARAM_UINT, COFF(leaves), 0, 1u << 20, NULL, "0",
     "fat-tree: leaves per plane (0: as many as needed)"},
    {"spines", MDL_PARAM_UINT, COFF(spines), 0, 1u << 20, NULL, "0",
     "fat-tree: spines (2 tiers) or spines per pod (3 tiers); 0: one per "
     "leaf uplink"},
    {"cores", MDL_PARAM_UINT, COFF(cores), 0, 1u << 20, NULL, "0",
     "fat-tree, 3 tiers: cores per spine index (0: one per spine uplink)"},
    {"routers_per_group", MDL_PARAM_UINT, COFF(df_a), 0, 4096, NULL, "0",
     "dragonfly: a"},
    {"terminals_per_router", MDL_PARAM_UINT, COFF(df_p), 0, 4096, NULL, "0",
     "dragonfly: p"},
    {"global_links_per_router", MDL_PARAM_UINT, COFF(df_h), 0, 4096, NULL, "0",
     "dragonfly: h"},
    {"groups", MDL_PARAM_UINT, COFF(df_g), 0, 1u << 16, NULL, "0",
     "dragonfly: g"},
    {"arrangement", MDL_PARAM_ENUM, COFF(arrangement), 0, 0, arrangement_names,
     "absolute", "dragonfly global links: absolute, relative or circulant"},
    {"global_link", MDL_PARAM_STRING, COFF(global_link), 0, 0, NULL, "",
     "dragonfly: global link model (default: link)"},
    MDL_PARAM_END,
};
static const MdlParamSpec *const scaleout_tables[] = {topo_scaleout_params,
                                                      NULL};

/* The operations of each kind of network, by TopoNetKind (as net_names;
 * none has none). */
static const TopoNetOps *const net_ops[] = {
    NULL, &topo_fattree_ops, &topo_dragonfly_ops, &topo_explicit_ops};
G_STATIC_ASSERT(G_N_ELEMENTS(net_ops) + 1 == G_N_ELEMENTS(net_names));

const TopoNetOps *topo_net_ops(const TopoSystem *sys)
{
  return net_ops[sys->scaleout.topology];
}

guint32 topo_one_plane(const TopoSystem *sys)
{
  (void)sys;
  return 1;
}

/* Whether a kind of network reads [scaleout] key. */
static gboolean net_reads(const TopoNetOps *ops, const char *key)
{
  for (const char *const *k = ops->keys; *k; k++) {
    if (strcmp(*k, key) == 0)
      return TRUE;
  }
  return FALSE;
}

gboolean topo_error(GError **error, TopoErrorCode code, const char *where,
                    const char *key, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;

  va_start(ap, fmt);
  msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_set_error(error, TOPO_ERROR, code, "%s %s: %s", where, key, msg);
  return FALSE;
}

/* --- model ids -------------------------------------------------------- */

static guint32 ptr_id(GPtrArray *a, gconstpointer p)
{
  guint idx;

  if (g_ptr_array_find(a, p, &idx))
    return idx;
  g_ptr_array_add(a, (gpointer)p);
  return a->len - 1;
}

guint32 topo_tech_id(TopoSystem *sys, const MdlLink *l)
{
  return ptr_id(sys->techs, l);
}

guint32 topo_switch_id(TopoSystem *sys, const MdlSwitch *s)
{
  return s ? ptr_id(sys->switches, s) : SIM_NONE;
}

guint32 topo_nic_id(TopoSystem *sys, const MdlNic *n)
{
  return n ? ptr_id(sys->nics, n) : SIM_NONE;
}

SimChannelId topo_add_link(TopoSystem *sys, SimNodeId a, SimNodeId b,
                           const MdlLink *l, guint32 width)
{
  return sim_fabric_add_link(sys->fabric, a, b, topo_tech_id(sys, l), width,
                             width * mdl_link_rate_Bps(l),
                             mdl_link_latency_ps(l));
}

/* --- built-in files ----------------------------------------------------- */

static GResource *resources(void)
{
  static gsize registered = 0;

  if (g_once_init_enter(&registered)) {
    topo_resources_register_resource();
    g_once_init_leave(&registered, 1);
  }
  return topo_resources_get_resource();
}

static GBytes *builtin_file(const char *dir, const char *name)
{
  g_autofree char *path =
      g_strdup_printf("/ifsim/topologies/%s/%s.ini", dir, name);
  return g_resource_lookup_data(resources(), path, G_RESOURCE_LOOKUP_FLAGS_NONE,
                                NULL);
}

GBytes *topo_builtin_example_data(const char *name)
{
  return builtin_file("examples", name);
}

static GStrv builtin_names(const char *dir)
{
  g_autofree char *path = g_strdup_printf("/ifsim/topologies/%s/", dir);
  GStrv files = g_resource_enumerate_children(
      resources(), path, G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  guint n = files ? g_strv_length(files) : 0;

  if (!files)
    return g_new0(char *, 1);
  for (guint i = 0; i < n; i++) {
    char *dot = strrchr(files[i], '.');
    if (dot)
      *dot = '\0';
  }
  return files;
}

/* qsort over char * with strcmp needs pointers to pointers. */
static int cmp_strp(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

GStrv topo_builtin_examples(void)
{
  GStrv v = builtin_names("examples");
  qsort(v, g_strv_length(v), sizeof *v, cmp_strp);
  return v;
}

GStrv topo_builtin_servers(void)
{
  GStrv v = builtin_names("servers");
  qsort(v, g_strv_length(v), sizeof *v, cmp_strp);
  return v;
}

/* --- loading ------------------------------------------------------------- */

void topo_system_free(TopoSystem *sys)
{
  if (!sys)
    return;
  g_free(sys->name);
  mdl_registry_free(sys->models);
  topo_server_spec_free(sys->server);
  sim_fabric_free(sys->fabric);
  if (sys->techs)
    g_ptr_array_free(sys->techs, TRUE);
  if (sys->switches)
    g_ptr_array_free(sys->switches, TRUE);
  if (sys->nics)
    g_ptr_array_free(sys->nics, TRUE);
  topo_intra_routes_free(sys);
  if (sys->endpoints)
    g_array_free(sys->endpoints, TRUE);
  g_free(sys->nic_first_ep);
  g_free(sys->nic_n_ep);
  if (topo_net_ops(sys))
    topo_net_ops(sys)->free(sys);
  if (sys->packet_links)
    g_ptr_array_free(sys->packet_links, TRUE);
  topo_faults_free(sys->faults);
  g_free(sys->scaleout.link);
  g_free(sys->scaleout.sw);
  g_free(sys->scaleout.global_link);
  g_free(sys);
}

static gboolean check_groups(GKeyFile *kf, const char *source, GError **error)
{
  g_auto(GStrv) groups = g_key_file_get_groups(kf, NULL);

  for (guint i = 0; groups[i]; i++) {
    if (strcmp(groups[i], "system") == 0 ||
        strcmp(groups[i], "scaleout") == 0 ||
        strcmp(groups[i], "network") == 0 || strcmp(groups[i], "faults") == 0 ||
        g_str_has_prefix(groups[i], "server ") ||
        mdl_registry_is_model_group(groups[i]))
      continue;
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_UNKNOWN,
                "%s: [%s]: unknown group (expected [system], [scaleout], "
                "[network], [faults], [server NAME], [link NAME], "
                "[switch NAME], [nic NAME] or [nccl])",
                source, groups[i]);
    return FALSE;
  }
  if (!g_key_file_has_group(kf, "system")) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_MISSING,
                "%s: [system]: missing (it names the server template and "
                "the server count)",
                source);
    return FALSE;
  }
  return TRUE;
}

/* The [faults] group (faults.c, docs/faults.md). */
typedef struct {
  char *name; /* unused: params convention */
  char *fail, *degrade, *slow_gpus, *lossy;
  guint32 random_links, seed;
  guint32 access_link_mode, nvswitch_mode;
} FaultGroup;

static const char *const access_link_names[] = {
    "remove-gpu", "disable-nvswitch", "keep-links", NULL};
static const char *const nvswitch_mode_names[] = {"abort", "disable", NULL};

#define FOFF(f) offsetof(FaultGroup, f)
static const MdlParamSpec fault_params[] = {
    {"fail", MDL_PARAM_STRING, FOFF(fail), 0, 0, NULL, "",
     "elements down, ';' between: NODE, 'A B' (a link), 'A B xN'"},
    {"degrade", MDL_PARAM_STRING, FOFF(degrade), 0, 0, NULL, "",
     "links slower, ';' between: 'ELEMENT FRACTION' or 'ELEMENT LINK-MODEL'"},
    {"lossy", MDL_PARAM_STRING, FOFF(lossy), 0, 0, NULL, "",
     "network links with bit errors, ';' between: 'ELEMENT BER' (after FEC)"},
    {"slow_gpus", MDL_PARAM_STRING, FOFF(slow_gpus), 0, 0, NULL, "",
     "stragglers, ';' between: 'GPU FACTOR', their work FACTOR times as long"},
    {"random_links", MDL_PARAM_UINT, FOFF(random_links), 0, 1u << 24, NULL, "0",
     "physical network links down, drawn at random"},
    {"seed", MDL_PARAM_UINT, FOFF(seed), 0, G_MAXUINT32, NULL, "1",
     "seed of random_links' draw"},
    {"access_link_failure_mode", MDL_PARAM_ENUM, FOFF(access_link_mode), 0, 0,
     access_link_names, "remove-gpu",
     "a GPU's NVLink to an NVSwitch down: remove-gpu (Fabric Manager's "
     "default: the GPU leaves NVLink), disable-nvswitch (A100 systems) or "
     "keep-links"},
    {"nvswitch_failure_mode", MDL_PARAM_ENUM, FOFF(nvswitch_mode), 0, 0,
     nvswitch_mode_names, "abort",
     "an NVSwitch down: abort (Fabric Manager's default: no CUDA job runs on "
     "the server) or disable (A100 systems: the rest carry on)"},
    MDL_PARAM_END,
};
static const MdlParamSpec *const fault_tables[] = {fault_params, NULL};

/* A ';' list of the group's, trimmed, without empty items. */
static GStrv fault_list(const char *text)
{
  g_auto(GStrv) parts = g_strsplit(text ? text : "", ";", -1);
  GStrvBuilder *b = g_strv_builder_new();
  GStrv out;

  for (guint i = 0; parts[i]; i++) {
    g_strstrip(parts[i]);
    /* "none": no fault, for a sweep's baseline point */
    if (*parts[i] && !(strcmp(parts[i], "none") == 0 && !parts[1] && i == 0))
      g_strv_builder_add(b, parts[i]);
  }
  out = g_strv_builder_end(b);
  g_strv_builder_unref(b);
  return out;
}

static gboolean read_faults(TopoSystem *sys, GKeyFile *kf, const char *source,
                            GError **error)
{
  g_autofree char *where = g_strdup_printf("%s: [faults]", source);
  g_autofree char *wf = g_strdup_printf("%s fail", where);
  g_autofree char *wd = g_strdup_printf("%s degrade", where);
  g_autofree char *wr = g_strdup_printf("%s random_links", where);
  g_autofree char *ws = g_strdup_printf("%s slow_gpus", where);
  g_autofree char *wl = g_strdup_printf("%s lossy", where);
  FaultGroup fg = {0};
  g_auto(GStrv) fail = NULL, degrade = NULL, slow = NULL, lossy = NULL;
  TopoFaultSpec spec;
  gboolean ok;

  if (!g_key_file_has_group(kf, "faults"))
    return TRUE;
  mdl_params_apply_defaults(fault_tables, &fg);
  ok = mdl_params_apply_group(kf, "faults", fault_tables, NULL, &fg, where,
                              error);
  fail = fault_list(fg.fail);
  degrade = fault_list(fg.degrade);
  slow = fault_list(fg.slow_gpus);
  lossy = fault_list(fg.lossy);
  g_free(fg.fail);
  g_free(fg.degrade);
  g_free(fg.slow_gpus);
  g_free(fg.lossy);
  if (!ok)
    return FALSE;
  sys->access_link_mode = (TopoAccessLinkMode)fg.access_link_mode;
  sys->nvswitch_mode = (TopoNvswitchMode)fg.nvswitch_mode;
  spec = (TopoFaultSpec){.fail = (const char *const *)fail,
                         .degrade = (const char *const *)degrade,
                         .random_links = fg.random_links,
                         .seed = fg.seed,
                         .slow_gpus = (const char *const *)slow,
                         .lossy = (const char *const *)lossy,
                         .where_fail = wf,
                         .where_degrade = wd,
                         .where_random = wr,
                         .where_slow = ws,
                         .where_lossy = wl};
  return topo_system_add_faults(sys, &spec, error);
}

/* The [server NAME] template: from this file, else built in. */
static TopoServerSpec *load_server(TopoSystem *sys, GKeyFile *kf,
                                   const char *source, const char *name,
                                   GError **error)
{
  g_autofree char *group = g_strdup_printf("server %s", name);
  g_autofree char *where = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GKeyFile) builtin = NULL;
  g_autofree char *bsource = NULL;
  gsize len;
  const char *data;

  if (g_key_file_has_group(kf, group)) {
    where = g_strdup_printf("%s: [%s]", source, group);
    return topo_server_spec_read(kf, group, name, sys->models, where, error);
  }
  bytes = builtin_file("servers", name);
  if (!bytes) {
    g_auto(GStrv) known = topo_builtin_servers();
    g_autofree char *list = g_strjoinv(", ", known);
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_UNKNOWN,
                "%s: [system] server: '%s' is neither a [server %s] of this "
                "file nor built in (%s)",
                source, name, name, list);
    return NULL;
  }
  bsource = g_strdup_printf("topologies/servers/%s.ini (built in)", name);
  data = g_bytes_get_data(bytes, &len);
  builtin = mdl_ini_load(data, len, bsource, error);
  if (!builtin)
    return NULL;
  where = g_strdup_printf("%s: [%s]", bsource, group);
  return topo_server_spec_read(builtin, group, name, sys->models, where, error);
}

/* A scale-out link is a network's: InfiniBand or Ethernet (RoCE), the
 * family of the NICs' ports, not NVLink, PCIe or a socket link. */
static gboolean network_link(const TopoSystem *sys, const char *name,
                             const char *where, const char *key, GError **error)
{
  const MdlLink *l = mdl_registry_link(sys->models, name);

  if (l->family == MDL_FAMILY_IB || l->family == MDL_FAMILY_ROCE)
    return TRUE;
  g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
              "%s %s: '%s' is a %s link; a scale-out network's links are "
              "InfiniBand or Ethernet (family ib or roce)",
              where, key, name, mdl_link_family(l)->name);
  return FALSE;
}

static gboolean read_scaleout(TopoSystem *sys, GKeyFile *kf, const char *source,
                              GError **error)
{
  TopoScaleout *c = &sys->scaleout;
  g_autofree char *where = g_strdup_printf("%s: [scaleout]", source);
  const TopoNetOps *ops;
  const char *topo;

  mdl_params_apply_defaults(scaleout_tables, c);
  if (g_key_file_has_group(kf, "scaleout") &&
      !mdl_params_apply_group(kf, "scaleout", scaleout_tables, NULL, c, where,
                              error))
    return FALSE;
  ops = net_ops[c->topology];
  topo = net_names[c->topology];
  if (ops && !g_key_file_has_key(kf, "scaleout", "routing", NULL))
    c->routing = ops->default_routing;
  if ((!ops || !ops->network_group) && g_key_file_has_group(kf, "network")) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                "%s: [network]: only topology = explicit reads it", source);
    return FALSE;
  }
  if (!ops) {
    g_auto(GStrv) keys = g_key_file_has_group(kf, "scaleout")
                             ? g_key_file_get_keys(kf, "scaleout", NULL, NULL)
                             : NULL;
    for (guint i = 0; keys && keys[i]; i++) {
      if (strcmp(keys[i], "topology") != 0) {
        g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                    "%s %s: does not apply to topology = none", where, keys[i]);
        return FALSE;
      }
    }
    if (sys->n_servers > 1) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_MISSING,
                  "%s topology: %u servers need a scale-out network "
                  "(fat-tree or dragonfly)",
                  where, sys->n_servers);
      return FALSE;
    }
    return TRUE;
  }
  /* the keys of the other kinds, the last kind's first */
  for (guint k = G_N_ELEMENTS(net_ops); k-- > 1;) {
    for (const char *const *key = net_ops[k]->keys; k != c->topology && *key;
         key++) {
      if (!net_reads(ops, *key) &&
          g_key_file_has_key(kf, "scaleout", *key, NULL)) {
        g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                    "%s %s: does not apply to topology = %s", where, *key,
                    topo);
        return FALSE;
      }
    }
  }
  /* a fat-tree's keys for tiers it does not have: not built, so not
   * dropped unseen */
  if (strcmp(topo, "fat-tree") == 0) {
    static const struct {
      const char *key;
      guint32 tiers; /* the fewest that read it */
    } tiered[] = {{"spines", 2}, {"spine_oversubscription", 3}, {"cores", 3}};

    for (guint i = 0; i < G_N_ELEMENTS(tiered); i++) {
      if (c->tiers < tiered[i].tiers &&
          g_key_file_has_key(kf, "scaleout", tiered[i].key, NULL)) {
        g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                    "%s %s: does not apply to tiers = %u (it needs %u)", where,
                    tiered[i].key, c->tiers, tiered[i].tiers);
        return FALSE;
      }
    }
  }
  if (c->routing < ops->routing_first || c->routing > ops->routing_last) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                "%s routing: %s does not apply to topology = %s (%s)", where,
                routing_names[c->routing], topo, ops->routings);
    return FALSE;
  }
  if (sys->server->nics == 0) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                "%s topology: server '%s' has no NIC to connect", where,
                sys->server->name);
    return FALSE;
  }
  if (!c->sw || !mdl_registry_switch(sys->models, c->sw)) {
    g_set_error(error, TOPO_ERROR,
                c->sw ? TOPO_ERROR_UNKNOWN : TOPO_ERROR_MISSING,
                "%s switch: %s (a switch model, see 'ifsim models')", where,
                c->sw ? "unknown" : "missing");
    return FALSE;
  }
  if (!c->link)
    c->link =
        g_strdup(mdl_registry_nic(sys->models, sys->server->nic)->port_link);
  if (!mdl_registry_link(sys->models, c->link)) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_UNKNOWN,
                "%s link: '%s' is not a known link (see 'ifsim models')", where,
                c->link);
    return FALSE;
  }
  if (!network_link(sys, c->link, where, "link", error))
    return FALSE;
  if (!c->global_link)
    c->global_link = g_strdup(c->link);
  if (!mdl_registry_link(sys->models, c->global_link)) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_UNKNOWN,
                "%s global_link: '%s' is not a known link", where,
                c->global_link);
    return FALSE;
  }
  if (!network_link(sys, c->global_link, where, "global_link", error))
    return FALSE;
  return TRUE;
}

/* Every NIC port is an endpoint of the network, on plane
 * (nic * ports + port) mod planes. */
static void make_endpoints(TopoSystem *sys)
{
  const TopoServerSpec *sp = sys->server;
  const MdlNic *nic = mdl_registry_nic(sys->models, sp->nic);
  guint32 planes = topo_net_ops(sys)->planes(sys);
  guint32 total = sys->n_servers * sp->nics;

  sys->endpoints = g_array_new(FALSE, FALSE, sizeof(TopoEndpoint));
  sys->nic_first_ep = g_new(guint32, total);
  sys->nic_n_ep = g_new(guint32, total);
  for (guint32 s = 0; s < sys->n_servers; s++) {
    for (guint32 n = 0; n < sp->nics; n++) {
      guint32 k = s * sp->nics + n;
      sys->nic_first_ep[k] = sys->endpoints->len;
      sys->nic_n_ep[k] = nic->ports;
      for (guint32 p = 0; p < nic->ports; p++) {
        TopoEndpoint e = {.nic = topo_nic(sys, s, n),
                          .server = s,
                          .nic_index = n,
                          .port = p,
                          .plane = (n * nic->ports + p) % planes,
                          .up = SIM_NONE};
        g_array_append_val(sys->endpoints, e);
      }
    }
  }
}

/* Nodes that forward take their model's port-to-port latency (switches,
 * root complexes); a NIC half its send-plus-receive processing, since a
 * path between GPUs of two servers crosses two NICs. */
static void set_forwarding_latencies(TopoSystem *sys)
{
  for (SimNodeId n = 0; n < sim_fabric_n_nodes(sys->fabric); n++) {
    const MdlSwitch *sw = topo_node_switch(sys, n);
    const MdlNic *nic = topo_node_nic(sys, n);
    double ns = sw ? sw->latency_ns : nic ? nic->latency_ns / 2 : 0;
    SimTime ps = 0;

    if (ns > 0 && sim_time_from_ns(ns, &ps))
      sim_fabric_set_node_latency(sys->fabric, n, ps);
  }
}

/* The fabric's peak memory per GPU, with room: `ifsim topo` (Release)
 * peaks at 1.2 KB per GPU on DGX H100 fat-trees of 64 to 4096 servers
 * and 2.3 KB on 4 to 128 GB200 NVL72 racks (nodes, channels, routes). */
#define TOPO_BYTES_PER_GPU 4096u

/* Refuses, before building, a system the memory cannot hold. */
static gboolean check_memory(const TopoSystem *sys, const char *where,
                             GError **error)
{
  guint64 gpus = (guint64)sys->n_servers * sys->server->gpus;
  g_autofree char *what = g_strdup_printf("%s servers: the system", where);
  g_autofree char *how = g_strdup_printf(
      "%u servers x %u GPUs, %u bytes per GPU", sys->n_servers,
      sys->server->gpus, TOPO_BYTES_PER_GPU);

  return sim_memory_check(gpus * TOPO_BYTES_PER_GPU + (16u << 20), what, how,
                          error);
}

static TopoSystem *system_build(GKeyFile *kf, const char *source,
                                const char *const *models, GError **error)
{
  g_autoptr(TopoSystem) sys = g_new0(TopoSystem, 1);
  g_autofree char *where = g_strdup_printf("%s: [system]", source);
  SystemGroup sg = {0};
  const TopoNetOps *net;
  gboolean ok;

  if (!check_groups(kf, source, error))
    return NULL;
  sys->models = mdl_registry_new_builtin(error);
  if (!sys->models)
    return NULL;
  for (guint i = 0; models && models[i]; i++) {
    if (!mdl_registry_load_file(sys->models, models[i], error))
      return NULL;
  }
  if (!mdl_registry_apply_keyfile(sys->models, kf, source, error))
    return NULL;
  mdl_params_apply_defaults(system_tables, &sg);
  ok = mdl_params_check_required(kf, "system", system_tables, NULL, where,
                                 error) &&
       mdl_params_apply_group(kf, "system", system_tables, NULL, &sg, where,
                              error);
  if (ok) {
    /* its description, else the file's name (not where it is: outputs
     * carry no paths) */
    sys->name = sg.description ? g_strdup(sg.description)
                               : g_path_get_basename(source);
    sys->n_servers = sg.servers;
    sys->server = load_server(sys, kf, source, sg.server, error);
    ok = sys->server != NULL;
  }
  if (ok) {
    /* the file's other server groups are read too: a value in one the
     * system does not use is still the user's mistake to see */
    g_auto(GStrv) groups = g_key_file_get_groups(kf, NULL);

    for (guint i = 0; ok && groups[i]; i++) {
      g_autofree char *gwhere = NULL;
      TopoServerSpec *other;

      if (!g_str_has_prefix(groups[i], "server ") ||
          g_str_equal(groups[i] + 7, sg.server))
        continue;
      gwhere = g_strdup_printf("%s: [%s] (not the system's server)", source,
                               groups[i]);
      other = topo_server_spec_read(kf, groups[i], groups[i] + 7, sys->models,
                                    gwhere, error);
      ok = other != NULL;
      if (other)
        topo_server_spec_free(other);
    }
  }
  g_free(sg.description);
  g_free(sg.server);
  if (!ok || !read_scaleout(sys, kf, source, error))
    return NULL;
  if (!check_memory(sys, where, error))
    return NULL;

  sys->fabric = sim_fabric_new();
  sys->techs = g_ptr_array_new();
  sys->switches = g_ptr_array_new();
  sys->nics = g_ptr_array_new();
  /* a signal between the phases of a large build (seconds each at 32k
   * GPUs) ends it there */
  if (!topo_build_servers(sys, error) || !sim_interrupt_check(error))
    return NULL;
  net = topo_net_ops(sys);
  if (net) {
    g_autofree char *swhere = g_strdup_printf("%s: [scaleout]", source);

    make_endpoints(sys);
    if (!net->build(sys, kf, source, swhere, error) ||
        !sim_interrupt_check(error))
      return NULL;
  }
  set_forwarding_latencies(sys);
  sim_fabric_finalize(sys->fabric);
  if (!sim_interrupt_check(error))
    return NULL;
  /* stops early on a signal, which the check then reports */
  topo_build_intra_routes(sys);
  if (!sim_interrupt_check(error) || !read_faults(sys, kf, source, error))
    return NULL;
  return g_steal_pointer(&sys);
}

TopoSystem *topo_system_load_data(const char *data, gsize len,
                                  const char *source, const char *const *models,
                                  GError **error)
{
  g_autoptr(GKeyFile) kf = mdl_ini_load(data, len, source, error);

  return kf ? system_build(kf, source, models, error) : NULL;
}

TopoSystem *topo_system_load_builtin(const char *name, GError **error)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *source = NULL;
  gsize len;
  const char *data;

  if (g_str_has_prefix(name, "server:")) {
    g_autofree char *text =
        g_strdup_printf("[system]\nserver = %s\n", name + strlen("server:"));
    return topo_system_load_data(text, strlen(text), name, NULL, error);
  }
  bytes = builtin_file("examples", name);
  if (!bytes) {
    g_auto(GStrv) known = topo_builtin_examples();
    g_autofree char *list = g_strjoinv(", ", known);
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_UNKNOWN,
                "no built-in example '%s' (known: %s)", name, list);
    return NULL;
  }
  source = g_strdup_printf("topologies/examples/%s.ini (built in)", name);
  data = g_bytes_get_data(bytes, &len);
  return topo_system_load_data(data, len, source, NULL, error);
}

TopoSystem *topo_system_load(const char *path, const char *const *models,
                             GError **error)
{
  g_autofree char *data = NULL;
  gsize len = 0;

  if (!path) {
    if (!models || !models[0])
      return topo_system_load_builtin("dgx-h100", error);
    {
      g_autoptr(GBytes) bytes = builtin_file("examples", "dgx-h100");
      const char *d = g_bytes_get_data(bytes, &len);
      return topo_system_load_data(d, len, "dgx-h100 (built in)", models,
                                   error);
    }
  }
  if (!sim_input_read(path, &data, &len, error))
    return NULL;
  return topo_system_load_data(data, len, path, models, error);
}

/* --- accessors ----------------------------------------------------------- */

const SimFabric *topo_system_fabric(const TopoSystem *sys)
{
  return sys->fabric;
}

const MdlRegistry *topo_system_models(const TopoSystem *sys)
{
  return sys->models;
}

MdlRegistry *topo_system_models_mutable(TopoSystem *sys)
{
  return sys->models;
}

const char *topo_system_name(const TopoSystem *sys)
{
  return sys->name;
}

guint32 topo_system_servers(const TopoSystem *sys)
{
  return sys->n_servers;
}

guint32 topo_system_gpus_per_server(const TopoSystem *sys)
{
  return sys->server->gpus;
}

guint32 topo_nics_per_server(const TopoSystem *sys)
{
  return sys->server->nics;
}

static gboolean is_none_name(const char *name)
{
  return name == NULL || *name == '\0' || strcmp(name, "none") == 0;
}

void topo_system_gpu_info(const TopoSystem *sys, TopoGpuInfo *out)
{
  const TopoServerSpec *s = sys->server;
  const MdlSwitch *nvsw = NULL;
  const MdlSwitch *netsw = NULL;

  memset(out, 0, sizeof(*out));
  out->gpus = s->gpus;
  out->sm = topo_server_sm(s, sys->models);
  if (!is_none_name(s->nvlink)) {
    out->nvlink = mdl_registry_link(sys->models, s->nvlink);
    out->nvlinks = s->nvlinks_per_gpu;
  }
  if (!is_none_name(s->nvswitch)) {
    nvsw = mdl_registry_switch(sys->models, s->nvswitch);
    out->nvswitch = nvsw != NULL;
    out->nvls = nvsw && nvsw->reduction == MDL_REDUCE_NVLS;
  }
  out->gpu_pcie = mdl_registry_link(sys->models, s->gpu_pcie);
  out->pcie_p2p = s->gpu_p2p;
  if (!is_none_name(s->nic)) {
    out->nic = mdl_registry_nic(sys->models, s->nic);
    out->nics = s->nics;
  }
  if (topo_net_ops(sys) && sys->scaleout.sw)
    netsw = mdl_registry_switch(sys->models, sys->scaleout.sw);
  out->sharp = netsw && netsw->reduction == MDL_REDUCE_SHARP;
  out->cpu = topo_server_cpu(s);
  out->c2c = s->gpu_attach == TOPO_ATTACH_C2C;
}

TopoNetKind topo_system_net(const TopoSystem *sys)
{
  return sys->scaleout.topology;
}

const MdlLink *topo_channel_link(const TopoSystem *sys, SimChannelId c)
{
  return sys->techs->pdata[sim_fabric_channel(sys->fabric, c)->tech];
}

double topo_wire_ratio(void *sys, SimChannelId c, guint64 bytes)
{
  const MdlLink *l = topo_channel_link(sys, c);

  return (double)mdl_link_wire_bytes(l, bytes, 0, MDL_OP_WRITE) / (double)bytes;
}

const MdlSwitch *topo_node_switch(const TopoSystem *sys, SimNodeId n)
{
  const SimNode *node = sim_fabric_node(sys->fabric, n);

  if (node->kind == TOPO_NODE_GPU || node->kind == TOPO_NODE_NIC ||
      node->model == SIM_NONE)
    return NULL;
  return sys->switches->pdata[node->model];
}

const MdlNic *topo_node_nic(const TopoSystem *sys, SimNodeId n)
{
  const SimNode *node = sim_fabric_node(sys->fabric, n);

  return node->kind == TOPO_NODE_NIC ? sys->nics->pdata[node->model] : NULL;
}

SimNodeId topo_gpu(const TopoSystem *sys, guint32 server, guint32 gpu)
{
  g_assert(server < sys->n_servers && gpu < sys->server->gpus);
  return server * sys->local_nodes + sys->off_gpu + gpu;
}

SimNodeId topo_gpu_cpu(const TopoSystem *sys, guint32 server, guint32 gpu)
{
  g_assert(server < sys->n_servers && gpu < sys->server->gpus);
  return server * sys->local_nodes + sys->off_cpu + sys->server->gpu_sock[gpu];
}

/* NCCL's PCIe distance between two endpoints of a server, by their leaf
 * PCIe switches (-1: a root port) and sockets. */
static TopoPciPath pci_path(const TopoServerSpec *s, gint32 wa, guint32 sa,
                            gint32 wb, guint32 sb)
{
  if (wa >= 0 && wa == wb)
    return TOPO_PCI_PIX;
  if (wa >= 0 && wb >= 0 && s->sw_top[wa] >= 0 &&
      s->sw_top[wa] == s->sw_top[wb])
    return TOPO_PCI_PXB;
  return sa == sb ? TOPO_PCI_PHB : TOPO_PCI_SYS;
}

TopoPciPath topo_gpu_pci_path(const TopoSystem *sys, guint32 ga, guint32 gb)
{
  const TopoServerSpec *s = sys->server;

  g_assert(ga < s->gpus && gb < s->gpus);
  return pci_path(s, s->gpu_sw[ga], s->gpu_sock[ga], s->gpu_sw[gb],
                  s->gpu_sock[gb]);
}

TopoPciPath topo_gpu_nic_pci_path(const TopoSystem *sys, guint32 gpu,
                                  guint32 nic)
{
  const TopoServerSpec *s = sys->server;

  g_assert(gpu < s->gpus && nic < s->nics);
  return pci_path(s, s->gpu_attach == TOPO_ATTACH_C2C ? -1 : s->gpu_sw[gpu],
                  s->gpu_sock[gpu], s->nic_sw[nic], s->nic_sock[nic]);
}

gboolean topo_gpus_nvlinked(const TopoSystem *sys, guint32 server, guint32 ga,
                            guint32 gb)
{
  const TopoServerSpec *s = sys->server;

  g_assert(ga < s->gpus && gb < s->gpus);
  if (is_none_name(s->nvlink) || s->nvlinks_per_gpu == 0)
    return FALSE;
  if (topo_server_nvlink_faulted(sys, server))
    return topo_faulted_gpus_nvlinked(sys, server, ga, gb);
  if (!is_none_name(s->nvswitch))
    return TRUE;
  for (guint i = 0; s->pairs && i < s->pairs->len; i++) {
    const guint32 *t = (const guint32 *)(const void *)s->pairs->data + 3 * i;

    if ((t[0] == ga && t[1] == gb) || (t[0] == gb && t[1] == ga))
      return t[2] > 0;
  }
  return FALSE;
}

SimNodeId topo_nic(const TopoSystem *sys, guint32 server, guint32 nic)
{
  g_assert(server < sys->n_servers && nic < sys->server->nics);
  return server * sys->local_nodes + sys->off_nic + nic;
}

guint32 topo_gpu_nic(const TopoSystem *sys, guint32 gpu)
{
  g_assert(sys->server->affinity && gpu < sys->server->gpus);
  return sys->server->affinity[gpu];
}

/* --- routing --------------------------------------------------------------- */

/* The i-th NIC a GPU sends through: its affinity NIC, then the spare
 * NICs it owns (server.c), in order; i wraps. */
static guint32 gpu_nic_at(const TopoServerSpec *sp, guint32 gpu, guint32 i)
{
  guint32 count = 1;

  for (guint32 n = 0; n < sp->nics; n++)
    count += sp->nic_owner[n] == (gint32)gpu;
  i %= count;
  if (i == 0)
    return sp->affinity[gpu];
  for (guint32 n = 0; n < sp->nics; n++)
    if (sp->nic_owner[n] == (gint32)gpu && --i == 0)
      return n;
  g_assert_not_reached();
}

/* The NIC a node leaves (or enters) its server by; a GPU with several
 * NICs takes the one a flow's rail selects: flow / gpus (NCCL's channel c
 * of a server of G GPUs runs through GPU c mod G, and the next G channels
 * through that GPU's next NIC). */
static gboolean home_nic(const TopoSystem *sys, SimNodeId n, guint32 server,
                         guint64 flow, SimNodeId *nic, GError **error)
{
  const SimNode *node = sim_fabric_node(sys->fabric, n);
  const TopoServerSpec *sp = sys->server;

  if (sp->nics == 0) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                "%s: server '%s' has no NIC to leave by",
                sim_fabric_node_name(sys->fabric, n), sp->name);
    return FALSE;
  }
  switch ((TopoNodeKind)node->kind) {
  case TOPO_NODE_NIC: *nic = n; return TRUE;
  case TOPO_NODE_GPU:
    *nic = topo_live_nic(
        sys, server, gpu_nic_at(sp, node->index, (guint32)(flow / sp->gpus)),
        node->index);
    break;
  case TOPO_NODE_CPU:
    /* the first NIC of the socket's share */
    *nic = topo_live_nic(
        sys, server, MIN(node->index * (sp->nics / sp->sockets), sp->nics - 1),
        G_MAXUINT32);
    break;
  default:
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                "%s: a switch is not a traffic endpoint",
                sim_fabric_node_name(sys->fabric, n));
    return FALSE;
  }
  if (*nic != SIM_NONE)
    return TRUE;
  g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
              "%s: every NIC of server %u is down (faults from %s)",
              sim_fabric_node_name(sys->fabric, n), server,
              topo_system_fault_origin(sys));
  return FALSE;
}

/* A NIC's port toward a plane-less choice: the flow's among those up. */
static const TopoEndpoint *live_port(const TopoSystem *sys, guint32 k,
                                     SimNodeId src_nic, SimNodeId dst_nic,
                                     guint64 flow)
{
  const TopoEndpoint *eps = (const TopoEndpoint *)sys->endpoints->data;
  const TopoEndpoint *first = &eps[sys->nic_first_ep[k]];
  guint32 n = sys->nic_n_ep[k], up = 0, pick;
  guint64 h =
      n > 1 ? sim_flow_hash(sys->scaleout.seed, src_nic, dst_nic, flow, 7) : 0;

  if (!sys->faults)
    return &first[h % n];
  for (guint32 i = 0; i < n; i++)
    up += topo_channel_up(sys, first[i].up);
  if (up == 0)
    return NULL;
  pick = (guint32)(h % up);
  for (guint32 i = 0; i < n; i++) {
    if (topo_channel_up(sys, first[i].up) && pick-- == 0)
      return &first[i];
  }
  g_assert_not_reached();
}

gboolean topo_route_network(const TopoSystem *sys, SimNodeId src_nic,
                            SimNodeId dst_nic, guint64 flow,
                            const SimLoadHook *load, SimPath *out,
                            GError **error)
{
  guint32 ks = topo_node_server(sys, src_nic) * sys->server->nics +
               sim_fabric_node(sys->fabric, src_nic)->index;
  guint32 kd = topo_node_server(sys, dst_nic) * sys->server->nics +
               sim_fabric_node(sys->fabric, dst_nic)->index;
  const TopoEndpoint *eps = (const TopoEndpoint *)sys->endpoints->data;
  const TopoEndpoint *src, *dst = NULL;
  gboolean ok;

  src = live_port(sys, ks, src_nic, dst_nic, flow);
  if (!src) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                "%s is down (faults from %s): no network path from it to "
                "%s",
                sim_fabric_node_name(sys->fabric, src_nic),
                topo_system_fault_origin(sys),
                sim_fabric_node_name(sys->fabric, dst_nic));
    return FALSE;
  }
  for (guint32 i = 0; i < sys->nic_n_ep[kd]; i++) {
    const TopoEndpoint *e = &eps[sys->nic_first_ep[kd] + i];
    if (e->plane == src->plane &&
        (!sys->faults || topo_channel_up(sys, e->up))) {
      dst = e;
      break;
    }
  }
  if (!dst && sys->faults) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                "no network path from %s to %s: the faults (from %s) leave "
                "%s no port up on the plane of %s's",
                sim_fabric_node_name(sys->fabric, src_nic),
                sim_fabric_node_name(sys->fabric, dst_nic),
                topo_system_fault_origin(sys),
                sim_fabric_node_name(sys->fabric, dst_nic),
                sim_fabric_node_name(sys->fabric, src_nic));
    return FALSE;
  }
  if (!dst) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                "%s and %s share no network plane",
                sim_fabric_node_name(sys->fabric, src_nic),
                sim_fabric_node_name(sys->fabric, dst_nic));
    return FALSE;
  }
  sim_path_clear(out);
  ok = topo_net_ops(sys)->route(sys, src, dst, flow, load, out);
  if (!ok && sys->faults)
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                "no network path from %s to %s: the faults (from %s) cut "
                "every one",
                sim_fabric_node_name(sys->fabric, src_nic),
                sim_fabric_node_name(sys->fabric, dst_nic),
                topo_system_fault_origin(sys));
  else if (!ok)
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                "no network path from %s to %s",
                sim_fabric_node_name(sys->fabric, src_nic),
                sim_fabric_node_name(sys->fabric, dst_nic));
  return ok;
}

/* The best-weighted path of an intra-server route. */
static gboolean intra_single(const TopoSystem *sys, SimNodeId a, SimNodeId b,
                             SimPath *out)
{
  SimPathSet ps;
  guint32 best = 0;

  if (a == b) {
    sim_path_clear(out);
    return TRUE;
  }
  if (!topo_route_intra(sys, a, b, &ps))
    return FALSE;
  for (guint32 i = 1; i < ps.n; i++) {
    if (ps.weight[i] > ps.weight[best])
      best = i;
  }
  *out = ps.path[best];
  return TRUE;
}

gboolean topo_route(const TopoSystem *sys, SimNodeId src, SimNodeId dst,
                    guint64 flow, const SimLoadHook *load, SimPathSet *out,
                    GError **error)
{
  guint32 ss = topo_node_server(sys, src), sd = topo_node_server(sys, dst);
  SimNodeId nic_s, nic_d;
  SimPath seg;
  SimPath *p = &out->path[0];

  if (src == dst || ss == G_MAXUINT32 || sd == G_MAXUINT32) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                "cannot route from %s to %s: %s",
                sim_fabric_node_name(sys->fabric, src),
                sim_fabric_node_name(sys->fabric, dst),
                src == dst ? "the same node"
                           : "switches are not traffic endpoints");
    return FALSE;
  }
  if (ss == sd) {
    if (topo_route_intra(sys, src, dst, out))
      return TRUE;
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                "no path from %s to %s inside the server",
                sim_fabric_node_name(sys->fabric, src),
                sim_fabric_node_name(sys->fabric, dst));
    return FALSE;
  }
  if (!home_nic(sys, src, ss, flow, &nic_s, error) ||
      !home_nic(sys, dst, sd, flow, &nic_d, error))
    return FALSE;
  out->n = 1;
  out->weight[0] = 1.0;
  if (!intra_single(sys, src, nic_s, p) ||
      !topo_route_network(sys, nic_s, nic_d, flow, load, &seg, error) ||
      !sim_path_append(p, &seg) || !intra_single(sys, nic_d, dst, &seg) ||
      !sim_path_append(p, &seg)) {
    if (error && !*error)
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                  "no path from %s to %s",
                  sim_fabric_node_name(sys->fabric, src),
                  sim_fabric_node_name(sys->fabric, dst));
    return FALSE;
  }
  return TRUE;
}
