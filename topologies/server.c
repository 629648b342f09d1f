/* Server templates: reading [server NAME] groups and building servers into
 * the fabric, plus the routes inside a server.
 *
 * A server is described by structure, not by an explicit graph: GPUs,
 * sockets, NVLink (through NVSwitches with a per-switch split of each GPU's
 * links, or direct GPU pairs), how GPUs attach to the host (PCIe or
 * NVLink-C2C), PCIe switches in one or two levels, NICs.  Devices spread
 * evenly: GPUs and NICs over the PCIe switches (or root ports), switches
 * over the sockets.  That covers DGX/HGX A100, H100, H200, B200, GB200 NVL72
 * and PCIe servers with and without switches, whose GPU pairs then show
 * nvidia-smi's PIX (same switch), PXB (two switches under a top one), NODE
 * (same socket) and SYS (across sockets).
 *
 * Inside a server, traffic between two GPUs with NVLink spreads over every
 * NVSwitch (and direct link) in proportion to the links, as the hardware
 * sprays it; other routes are the fastest single path for bulk data. */
#include <stdio.h>
#include <string.h>

#include "sim/interrupt.h"
#include "topologies/error.h"
#include "topologies/system_internal.h"

#define SOFF(f) offsetof(TopoServerSpec, f)

static const char *const attach_names[] = {"pcie", "c2c", NULL};
/* GPU architectures by compute capability; "auto" follows the NVLink
 * generation (nvlink2 sm70, nvlink3 sm80, nvlink4 sm90, nvlink5 sm100) and
 * is sm80 without NVLink.  The NCCL model's constants depend on it. */
static const char *const arch_names[] = {"auto",  "sm70",  "sm75",  "sm80",
                                         "sm86",  "sm89",  "sm90",  "sm100",
                                         "sm103", "sm120", "sm121", NULL};
static const guint32 arch_sm[] = {0,  70,  75,  80,  86, 89,
                                  90, 100, 103, 120, 121};
/* Host CPUs; "auto" is arm for GPUs on NVLink-C2C (Grace), amd where the
 * sockets are joined by xGMI, else intel. */
static const char *const cpu_names[] = {"auto", "intel", "amd", "arm", NULL};

TopoCpu topo_server_cpu(const TopoServerSpec *s)
{
  switch (s->cpu) {
  case 1: return TOPO_CPU_INTEL;
  case 2: return TOPO_CPU_AMD;
  case 3: return TOPO_CPU_ARM;
  default: break;
  }
  if (s->gpu_attach == TOPO_ATTACH_C2C)
    return TOPO_CPU_ARM;
  if (s->sockets_per_host > 1 && s->socket_link &&
      g_str_has_prefix(s->socket_link, "xgmi"))
    return TOPO_CPU_AMD;
  return TOPO_CPU_INTEL;
}

guint32 topo_server_sm(const TopoServerSpec *s, const MdlRegistry *models)
{
  (void)models;
  if (s->gpu_arch != 0)
    return arch_sm[s->gpu_arch];
  if (s->nvlink && g_str_has_prefix(s->nvlink, "nvlink") &&
      g_ascii_isdigit(s->nvlink[6])) {
    switch (s->nvlink[6]) {
    case '2':
      return 70;
    case '3':
      return 80;
    case '4':
      return 90;
    default:
      return 100;
    }
  }
  return 80;
}

const MdlParamSpec topo_server_params[] = {
    {"description", MDL_PARAM_STRING, SOFF(description), 0, 0, NULL, "",
     "one line for listings"},
    {"gpus", MDL_PARAM_UINT, SOFF(gpus), 1, 1024, NULL, NULL,
     "GPUs in the server (one NVLink domain)"},
    {"sockets", MDL_PARAM_UINT, SOFF(sockets), 1, 64, NULL, "2", "CPU sockets"},
    {"sockets_per_host", MDL_PARAM_UINT, SOFF(sockets_per_host), 0, 64, NULL,
     "0", "sockets joined by socket links in one host (0: all)"},
    {"socket_link", MDL_PARAM_STRING, SOFF(socket_link), 0, 0, NULL, "upi2",
     "link between sockets (family socket)"},
    {"socket_links", MDL_PARAM_UINT, SOFF(socket_links), 1, 16, NULL, "1",
     "socket links between each pair of sockets"},
    {"root_complex", MDL_PARAM_STRING, SOFF(root_complex), 0, 0, NULL,
     "root-complex-gen5", "switch model of a socket's root complex"},
    {"nvlink", MDL_PARAM_STRING, SOFF(nvlink), 0, 0, NULL, "none",
     "NVLink link model, or none"},
    {"nvlinks_per_gpu", MDL_PARAM_UINT, SOFF(nvlinks_per_gpu), 0, 64, NULL, "0",
     "NVLinks of each GPU"},
    {"nvswitch", MDL_PARAM_STRING, SOFF(nvswitch), 0, 0, NULL, "none",
     "NVSwitch model, or none (direct links, see nvlink_pairs)"},
    {"nvswitches", MDL_PARAM_UINT, SOFF(nvswitches), 0, 64, NULL, "0",
     "NVSwitch chips"},
    {"nvlink_split", MDL_PARAM_STRING, SOFF(nvlink_split), 0, 0, NULL, "",
     "links from each GPU to each NVSwitch, e.g. 5,5,4,4 (default: even)"},
    {"nvlink_pairs", MDL_PARAM_STRING, SOFF(nvlink_pairs), 0, 0, NULL, "",
     "direct GPU links without NVSwitch, e.g. 0-1:2,0-2:1"},
    {"gpu_arch", MDL_PARAM_ENUM, SOFF(gpu_arch), 0, 0, arch_names, "auto",
     "GPU architecture: auto, sm70, sm75, sm80, sm86, sm89, sm90, sm100, "
     "sm103 (B300), sm120 (RTX 50, RTX PRO Blackwell), sm121 (GB10)"},
    {"cpu", MDL_PARAM_ENUM, SOFF(cpu), 0, 0, cpu_names, "auto",
     "host CPU, which runs NCCL's proxy threads: intel, amd or arm (auto: "
     "arm with gpu_attach = c2c, amd with an xGMI socket_link, else intel)"},
    {"gpu_attach", MDL_PARAM_ENUM, SOFF(gpu_attach), 0, 0, attach_names, "pcie",
     "how GPUs reach their socket: pcie or c2c (NVLink-C2C)"},
    {"gpu_pcie", MDL_PARAM_STRING, SOFF(gpu_pcie), 0, 0, NULL, "pcie5-x16",
     "GPU PCIe link (also PCIe switch uplinks)"},
    {"gpu_p2p", MDL_PARAM_BOOL, SOFF(gpu_p2p), 0, 0, NULL, "true",
     "GPUs reach each other's memory over PCIe (nvidia-smi topo -p2p r: OK); "
     "false where the driver refuses it (GeForce cards, many VMs: NS), so "
     "NCCL stages through host memory"},
    {"c2c_link", MDL_PARAM_STRING, SOFF(c2c_link), 0, 0, NULL, "nvlink-c2c",
     "GPU-CPU link with gpu_attach = c2c"},
    {"c2c_links", MDL_PARAM_UINT, SOFF(c2c_links), 1, 64, NULL, "10",
     "C2C links per GPU"},
    {"pcie_switch", MDL_PARAM_STRING, SOFF(pcie_switch), 0, 0, NULL, "none",
     "PCIe switch model, or none (devices on root ports)"},
    {"pcie_switches", MDL_PARAM_UINT, SOFF(pcie_switches), 0, 256, NULL, "0",
     "PCIe switches holding GPUs and NICs"},
    {"pcie_levels", MDL_PARAM_UINT, SOFF(pcie_levels), 1, 2, NULL, "1",
     "1: switches on root ports; 2: under one top switch per socket"},
    {"nic", MDL_PARAM_STRING, SOFF(nic), 0, 0, NULL, "none",
     "NIC model, or none"},
    {"nics", MDL_PARAM_UINT, SOFF(nics), 0, 1024, NULL, "0",
     "scale-out NICs; NIC i is rail i"},
    {"nic_affinity", MDL_PARAM_STRING, SOFF(nic_affinity), 0, 0, NULL, "",
     "NIC of each GPU, e.g. 0,1,2,3 (default: closest)"},
    {"pcie_top_switches", MDL_PARAM_UINT, SOFF(pcie_top_switches), 0, 256, NULL,
     "0", "explicit layout: top PCIe switches above the others"},
    {"gpu_pcie_switch", MDL_PARAM_STRING, SOFF(gpu_pcie_switch), 0, 0, NULL, "",
     "explicit layout: each GPU's PCIe switch, -1 for a root port"},
    {"gpu_socket", MDL_PARAM_STRING, SOFF(gpu_socket), 0, 0, NULL, "",
     "explicit layout: each root-port (or C2C) GPU's socket"},
    {"nic_pcie_switch", MDL_PARAM_STRING, SOFF(nic_pcie_switch), 0, 0, NULL, "",
     "explicit layout: each NIC's PCIe switch, -1 for a root port"},
    {"nic_socket", MDL_PARAM_STRING, SOFF(nic_socket), 0, 0, NULL, "",
     "explicit layout: each root-port NIC's socket"},
    {"pcie_switch_top", MDL_PARAM_STRING, SOFF(pcie_switch_top), 0, 0, NULL, "",
     "explicit layout: each switch's top switch, -1 for a root port"},
    {"pcie_switch_socket", MDL_PARAM_STRING, SOFF(pcie_switch_socket), 0, 0,
     NULL, "", "explicit layout: each root-port switch's socket"},
    {"pcie_top_socket", MDL_PARAM_STRING, SOFF(pcie_top_socket), 0, 0, NULL, "",
     "explicit layout: each top switch's socket"},
    MDL_PARAM_END,
};

static const MdlParamSpec *const server_tables[] = {topo_server_params, NULL};

void topo_server_spec_free(TopoServerSpec *s)
{
  if (!s)
    return;
  g_free(s->split);
  g_free(s->affinity);
  g_free(s->nic_owner);
  g_free(s->gpu_sw);
  g_free(s->gpu_sock);
  g_free(s->nic_sw);
  g_free(s->nic_sock);
  g_free(s->sw_top);
  g_free(s->sw_sock);
  g_free(s->top_sock);
  if (s->pairs)
    g_array_free(s->pairs, TRUE);
  mdl_model_free(s, server_tables);
}

static gboolean is_none(const char *v)
{
  return !v || strcmp(v, "none") == 0;
}

/* Parses "a,b,c" of n integers in [-1, limit) (-1 only when allow_root). */
static gboolean parse_int_list(const char *text, guint32 n, guint32 limit,
                               gboolean allow_root, gint32 *out,
                               const char *where, const char *key,
                               GError **error)
{
  g_auto(GStrv) parts = g_strsplit(text, ",", -1);
  guint32 count = g_strv_length(parts);

  if (count != n) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_VALUE,
                "%s %s: '%s' has %u entries (expected %u)", where, key, text,
                count, n);
    return FALSE;
  }
  for (guint32 i = 0; i < n; i++) {
    gint64 v;
    g_strstrip(parts[i]);
    if (!g_ascii_string_to_signed(parts[i], 10, allow_root ? -1 : 0,
                                  (gint64)limit - 1, &v, NULL)) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_VALUE,
                  "%s %s: '%s' is not %s below %u", where, key, parts[i],
                  allow_root ? "-1 or a whole number" : "a whole number",
                  limit);
      return FALSE;
    }
    out[i] = (gint32)v;
  }
  return TRUE;
}

/* Parses "a-b:n, ..." direct NVLink pairs. */
static gboolean parse_pairs(TopoServerSpec *s, const char *where,
                            GError **error)
{
  g_auto(GStrv) parts = g_strsplit(s->nvlink_pairs, ",", -1);

  s->pairs = g_array_new(FALSE, FALSE, sizeof(guint32) * 3);
  for (guint i = 0; parts[i]; i++) {
    guint32 t[3];
    char *p = g_strstrip(parts[i]);
    const char *dash = strchr(p, '-'), *colon = strchr(p, ':');
    g_autofree char *sa = dash ? g_strndup(p, (gsize)(dash - p)) : NULL;
    g_autofree char *sb = dash && colon && colon > dash
                              ? g_strndup(dash + 1, (gsize)(colon - dash - 1))
                              : NULL;
    guint64 a = 0, b = 0, n = 0;

    /* digits only (sscanf's %u took "-2" as 4294967294) */
    if (!sa || !sb ||
        !g_ascii_string_to_unsigned(sa, 10, 0, G_MAXUINT32, &a, NULL) ||
        !g_ascii_string_to_unsigned(sb, 10, 0, G_MAXUINT32, &b, NULL) ||
        !g_ascii_string_to_unsigned(colon + 1, 10, 1, 64, &n, NULL) ||
        a >= s->gpus || b >= s->gpus || a == b) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_VALUE,
                  "%s nvlink_pairs: '%s' is not GPU-GPU:LINKS with two "
                  "different GPUs below %u and LINKS from 1 to 64, e.g. 0-1:2",
                  where, p, s->gpus);
      return FALSE;
    }
    t[0] = (guint32)a;
    t[1] = (guint32)b;
    t[2] = (guint32)n;
    g_array_append_vals(s->pairs, t, 1);
  }
  return TRUE;
}

/* A model name a key refers to must exist and be of the right kind. */
static gboolean check_link(const MdlRegistry *m, const char *name,
                           const char *key, int family, const char *where,
                           GError **error)
{
  const MdlLink *l = mdl_registry_link(m, name);

  if (!l || (family >= 0 && l->family != (guint32)family)) {
    g_set_error(error, TOPO_ERROR, l ? TOPO_ERROR_CONFLICT : TOPO_ERROR_UNKNOWN,
                "%s %s: '%s' is %s (see 'ifsim models')", where, key, name,
                l ? "a link of another family" : "not a known link");
    return FALSE;
  }
  return TRUE;
}

static gboolean check_switch(const MdlRegistry *m, const char *name,
                             const char *key, MdlSwitchKind kind,
                             const char *where, GError **error)
{
  const MdlSwitch *sw = mdl_registry_switch(m, name);

  if (!sw || sw->kind != kind) {
    g_set_error(error, TOPO_ERROR,
                sw ? TOPO_ERROR_CONFLICT : TOPO_ERROR_UNKNOWN,
                "%s %s: '%s' is %s (see 'ifsim models')", where, key, name,
                sw ? "a switch of another kind" : "not a known switch");
    return FALSE;
  }
  return TRUE;
}

static gboolean check_nvlink(TopoServerSpec *s, const MdlRegistry *m,
                             const char *where, GError **error)
{
  if (is_none(s->nvlink)) {
    if (!is_none(s->nvswitch) || s->nvlinks_per_gpu || s->nvlink_pairs)
      return topo_error(error, TOPO_ERROR_CONFLICT, where, "nvlink",
                        "is none, so nvswitch, nvlinks_per_gpu and "
                        "nvlink_pairs must not be set");
    return TRUE;
  }
  if (!check_link(m, s->nvlink, "nvlink", MDL_FAMILY_NVLINK, where, error))
    return FALSE;
  if (s->nvlinks_per_gpu == 0)
    return topo_error(error, TOPO_ERROR_CONFLICT, where, "nvlinks_per_gpu",
                      "must be at least 1 with nvlink = %s", s->nvlink);
  if (is_none(s->nvswitch)) {
    guint32 *used = NULL;
    gboolean ok = TRUE;
    if (!s->nvlink_pairs || s->nvswitches)
      return topo_error(error, TOPO_ERROR_CONFLICT, where, "nvlink_pairs",
                        "without an NVSwitch, give the direct links (and "
                        "nvswitches = 0)");
    if (!parse_pairs(s, where, error))
      return FALSE;
    used = g_new0(guint32, s->gpus);
    for (guint i = 0; i < s->pairs->len; i++) {
      const guint32 *t = (const guint32 *)s->pairs->data + 3 * i;
      used[t[0]] += t[2];
      used[t[1]] += t[2];
    }
    for (guint32 g = 0; ok && g < s->gpus; g++) {
      if (used[g] > s->nvlinks_per_gpu)
        ok = topo_error(error, TOPO_ERROR_CONFLICT, where, "nvlink_pairs",
                        "GPU %u has %u links, more than nvlinks_per_gpu = %u",
                        g, used[g], s->nvlinks_per_gpu);
    }
    g_free(used);
    return ok;
  }
  if (!check_switch(m, s->nvswitch, "nvswitch", MDL_SWITCH_NVSWITCH, where,
                    error))
    return FALSE;
  if (s->nvswitches == 0)
    return topo_error(error, TOPO_ERROR_CONFLICT, where, "nvswitches",
                      "must be at least 1 with nvswitch = %s", s->nvswitch);
  if (s->nvlink_pairs)
    return topo_error(error, TOPO_ERROR_CONFLICT, where, "nvlink_pairs",
                      "direct links and NVSwitches do not mix: give one");
  s->split = g_new0(guint32, s->nvswitches);
  if (s->nvlink_split) {
    guint32 sum = 0;
    if (!parse_int_list(s->nvlink_split, s->nvswitches, 65, FALSE,
                        (gint32 *)s->split, where, "nvlink_split", error))
      return FALSE;
    for (guint32 k = 0; k < s->nvswitches; k++)
      sum += s->split[k];
    if (sum != s->nvlinks_per_gpu)
      return topo_error(error, TOPO_ERROR_CONFLICT, where, "nvlink_split",
                        "'%s' adds up to %u links, not nvlinks_per_gpu = %u",
                        s->nvlink_split, sum, s->nvlinks_per_gpu);
  } else {
    if (s->nvlinks_per_gpu % s->nvswitches != 0)
      return topo_error(error, TOPO_ERROR_CONFLICT, where, "nvlink_split",
                        "%u links do not split evenly over %u NVSwitches: "
                        "give the split, e.g. nvlink_split = 5,5,4,4",
                        s->nvlinks_per_gpu, s->nvswitches);
    for (guint32 k = 0; k < s->nvswitches; k++)
      s->split[k] = s->nvlinks_per_gpu / s->nvswitches;
  }
  for (guint32 k = 0; k < s->nvswitches; k++) {
    guint32 ports = mdl_registry_switch(m, s->nvswitch)->ports;
    if (s->split[k] * s->gpus > ports)
      return topo_error(error, TOPO_ERROR_CONFLICT, where, "nvlink_split",
                        "NVSwitch %u would need %u ports (%u GPUs x %u "
                        "links); %s has %u",
                        k, s->split[k] * s->gpus, s->gpus, s->split[k],
                        s->nvswitch, ports);
  }
  return TRUE;
}

/* Reads an explicit placement list into out (n entries), if given. */
static gboolean placement_list(const char *text, guint32 n, guint32 limit,
                               gboolean allow_root, gint32 *out,
                               const char *where, const char *key,
                               GError **error)
{
  return !text ||
         parse_int_list(text, n, limit, allow_root, out, where, key, error);
}

/* Item i of n spread over `groups` equal groups: its group (i * groups /
 * n), which is i / (n / groups) when that divides evenly and never divides
 * by zero. */
static guint32 spread(guint32 i, guint32 n, guint32 groups)
{
  return (guint32)((guint64)i * groups / n);
}

/* Socket of a leaf switch: its top switch's, or its own. */
static guint32 switch_socket(const TopoServerSpec *s, guint32 sw)
{
  return s->sw_top[sw] >= 0 ? s->top_sock[s->sw_top[sw]] : s->sw_sock[sw];
}

/* Computes where every GPU, NIC and PCIe switch sits: spread evenly unless
 * explicit lists say otherwise (importers write those). */
static gboolean place_devices(TopoServerSpec *s, const MdlRegistry *m,
                              const char *where, GError **error)
{
  guint32 nsw = s->pcie_switches, ntop = s->pcie_top_switches;
  gboolean explicit_sw = s->gpu_pcie_switch || s->nic_pcie_switch ||
                         s->pcie_switch_top || s->pcie_switch_socket;
  gboolean c2c = s->gpu_attach == TOPO_ATTACH_C2C;
  g_autofree gint32 *tmp =
      g_new(gint32, MAX(MAX(s->gpus, s->nics), MAX(nsw, ntop)) + 1);

  if (!check_link(m, s->gpu_pcie, "gpu_pcie", MDL_FAMILY_PCIE, where, error))
    return FALSE;
  if (c2c && !check_link(m, s->c2c_link, "c2c_link", -1, where, error))
    return FALSE;
  if (is_none(s->pcie_switch) != (nsw == 0))
    return topo_error(error, TOPO_ERROR_CONFLICT, where, "pcie_switches",
                      "give both pcie_switch (a model) and pcie_switches "
                      "(>= 1), or neither");
  if (nsw && !check_switch(m, s->pcie_switch, "pcie_switch", MDL_SWITCH_PCIE,
                           where, error))
    return FALSE;
  if (s->pcie_levels == 2 && !ntop && nsw)
    ntop = s->pcie_top_switches = s->sockets;
  if (ntop && !nsw)
    return topo_error(error, TOPO_ERROR_CONFLICT, where, "pcie_top_switches",
                      "top switches need pcie_switches below them");
  s->gpu_sw = g_new(gint32, s->gpus);
  s->gpu_sock = g_new0(guint32, s->gpus);
  s->nic_sw = g_new(gint32, MAX(s->nics, 1));
  s->nic_sock = g_new0(guint32, MAX(s->nics, 1));
  s->sw_top = g_new(gint32, MAX(nsw, 1));
  s->sw_sock = g_new0(guint32, MAX(nsw, 1));
  s->top_sock = g_new0(guint32, MAX(ntop, 1));

  /* Defaults: even spreading; the checks apply only to what is spread. */
  if (ntop) {
    if (!s->pcie_top_socket && ntop % s->sockets != 0)
      return topo_error(error, TOPO_ERROR_CONFLICT, where, "pcie_top_switches",
                        "%u top switches do not spread evenly over %u "
                        "sockets",
                        ntop, s->sockets);
    for (guint32 t = 0; t < ntop; t++)
      s->top_sock[t] = spread(t, ntop, s->sockets);
  }
  if (nsw) {
    guint32 over = ntop ? ntop : s->sockets;
    if (!explicit_sw && nsw % over != 0)
      return topo_error(error, TOPO_ERROR_CONFLICT, where, "pcie_switches",
                        "%u switches do not spread evenly over %u %s", nsw,
                        over, ntop ? "top switches" : "sockets");
    for (guint32 j = 0; j < nsw; j++) {
      guint32 slot = spread(j, nsw, over);
      s->sw_top[j] = ntop ? (gint32)MIN(slot, ntop - 1) : -1;
      s->sw_sock[j] = ntop ? 0 : MIN(slot, s->sockets - 1);
    }
  }
  if (!c2c && nsw && !s->gpu_pcie_switch && s->gpus % nsw != 0)
    return topo_error(error, TOPO_ERROR_CONFLICT, where, "pcie_switches",
                      "%u GPUs do not spread evenly over %u switches", s->gpus,
                      nsw);
  if ((c2c || !nsw) && !s->gpu_socket && s->gpus % s->sockets != 0)
    return topo_error(error, TOPO_ERROR_CONFLICT, where, "gpus",
                      "%u GPUs do not spread evenly over %u sockets", s->gpus,
                      s->sockets);
  for (guint32 g = 0; g < s->gpus; g++) {
    s->gpu_sw[g] = !c2c && nsw ? (gint32)spread(g, s->gpus, nsw) : -1;
    s->gpu_sock[g] = spread(g, s->gpus, s->sockets);
  }
  if (s->nics && nsw && !s->nic_pcie_switch && s->nics % nsw != 0)
    return topo_error(error, TOPO_ERROR_CONFLICT, where, "pcie_switches",
                      "%u NICs do not spread evenly over %u switches", s->nics,
                      nsw);
  if (s->nics && !nsw && !s->nic_socket && s->nics % s->sockets != 0)
    return topo_error(error, TOPO_ERROR_CONFLICT, where, "nics",
                      "%u NICs do not spread evenly over %u sockets", s->nics,
                      s->sockets);
  for (guint32 n = 0; n < s->nics; n++) {
    s->nic_sw[n] = nsw ? (gint32)spread(n, s->nics, nsw) : -1;
    s->nic_sock[n] = spread(n, s->nics, s->sockets);
  }

  /* Explicit lists override. */
  if (!placement_list(s->pcie_top_socket, ntop, s->sockets, FALSE,
                      (gint32 *)s->top_sock, where, "pcie_top_socket", error) ||
      !placement_list(s->pcie_switch_top, nsw, ntop, TRUE, s->sw_top, where,
                      "pcie_switch_top", error) ||
      !placement_list(s->pcie_switch_socket, nsw, s->sockets, FALSE,
                      (gint32 *)s->sw_sock, where, "pcie_switch_socket",
                      error) ||
      !placement_list(s->gpu_pcie_switch, s->gpus, nsw, TRUE, s->gpu_sw, where,
                      "gpu_pcie_switch", error) ||
      !placement_list(s->gpu_socket, s->gpus, s->sockets, FALSE,
                      (gint32 *)s->gpu_sock, where, "gpu_socket", error) ||
      !placement_list(s->nic_pcie_switch, s->nics, nsw, TRUE, s->nic_sw, where,
                      "nic_pcie_switch", error) ||
      !placement_list(s->nic_socket, s->nics, s->sockets, FALSE,
                      (gint32 *)s->nic_sock, where, "nic_socket", error))
    return FALSE;
  if (c2c && s->gpu_pcie_switch)
    return topo_error(error, TOPO_ERROR_CONFLICT, where, "gpu_pcie_switch",
                      "NVLink-C2C GPUs sit on no PCIe switch");
  /* What sits on a switch takes its socket. */
  for (guint32 g = 0; g < s->gpus; g++) {
    if (s->gpu_sw[g] >= 0)
      s->gpu_sock[g] = switch_socket(s, (guint32)s->gpu_sw[g]);
  }
  for (guint32 n = 0; n < s->nics; n++) {
    if (s->nic_sw[n] >= 0)
      s->nic_sock[n] = switch_socket(s, (guint32)s->nic_sw[n]);
  }
  /* Ports: devices plus the uplink must fit each switch. */
  memset(tmp, 0,
         sizeof(gint32) * (MAX(MAX(s->gpus, s->nics), MAX(nsw, ntop)) + 1));
  for (guint32 g = 0; nsw && g < s->gpus; g++) {
    if (s->gpu_sw[g] >= 0)
      tmp[s->gpu_sw[g]]++;
  }
  for (guint32 n = 0; nsw && n < s->nics; n++) {
    if (s->nic_sw[n] >= 0)
      tmp[s->nic_sw[n]]++;
  }
  for (guint32 j = 0; j < nsw; j++) {
    if ((guint32)tmp[j] + 1 > mdl_registry_switch(m, s->pcie_switch)->ports)
      return topo_error(error, TOPO_ERROR_CONFLICT, where, "pcie_switches",
                        "switch %u holds %d devices and an uplink, more "
                        "than the %u ports of %s",
                        j, tmp[j],
                        mdl_registry_switch(m, s->pcie_switch)->ports,
                        s->pcie_switch);
  }
  return TRUE;
}

/* How close a NIC is to a GPU: 0 same switch, 1 same top switch, 2 same
 * socket, 3 elsewhere. */
static guint32 nic_distance(const TopoServerSpec *s, guint32 g, guint32 n)
{
  if (s->gpu_sw[g] >= 0 && s->gpu_sw[g] == s->nic_sw[n])
    return 0;
  if (s->gpu_sw[g] >= 0 && s->nic_sw[n] >= 0 && s->sw_top[s->gpu_sw[g]] >= 0 &&
      s->sw_top[s->gpu_sw[g]] == s->sw_top[s->nic_sw[n]])
    return 1;
  return s->gpu_sock[g] == s->nic_sock[n] ? 2 : 3;
}

/* Default affinity: each GPU takes the closest NIC serving the fewest GPUs
 * so far (lowest index on ties), so one NIC per GPU where counts match. */
static void default_affinity(TopoServerSpec *s)
{
  g_autofree guint32 *load = g_new0(guint32, s->nics);

  for (guint32 g = 0; g < s->gpus; g++) {
    guint32 best = 0;
    for (guint32 n = 1; n < s->nics; n++) {
      guint32 dn = nic_distance(s, g, n), db = nic_distance(s, g, best);
      if (dn < db || (dn == db && load[n] < load[best]))
        best = n;
    }
    s->affinity[g] = best;
    load[best]++;
  }
}

/* The NICs no GPU has as its affinity NIC: NCCL's search puts a channel
 * on every NIC a GPU reaches as closely as its own (ncclTopoCompute in
 * graph/search.cc tries each NIC of the node; a GPU with two NICs on its
 * PCIe switch, as OCI's BM.GPU4.8, sends over both).  Each such NIC goes
 * to the GPU closest to it with the fewest NICs so far, when that GPU's
 * affinity NIC is no closer; otherwise no GPU sends through it. */
static void spare_nics(TopoServerSpec *s)
{
  g_autofree guint32 *count = g_new0(guint32, s->gpus);
  g_autofree guint8 *taken = g_new0(guint8, s->nics);

  s->nic_owner = g_new(gint32, s->nics);
  for (guint32 g = 0; g < s->gpus; g++) {
    taken[s->affinity[g]] = 1;
    count[g] = 1;
  }
  for (guint32 n = 0; n < s->nics; n++) {
    guint32 best = 0;

    s->nic_owner[n] = -1;
    if (taken[n])
      continue;
    for (guint32 g = 1; g < s->gpus; g++) {
      guint32 dg = nic_distance(s, g, n), db = nic_distance(s, best, n);
      if (dg < db || (dg == db && count[g] < count[best]))
        best = g;
    }
    if (nic_distance(s, best, n) <= nic_distance(s, best, s->affinity[best])) {
      s->nic_owner[n] = (gint32)best;
      count[best]++;
    }
  }
}

TopoServerSpec *topo_server_spec_read(GKeyFile *kf, const char *group,
                                      const char *name,
                                      const MdlRegistry *models,
                                      const char *where, GError **error)
{
  TopoServerSpec *s = g_new0(TopoServerSpec, 1);

  s->name = g_strdup(name);
  mdl_params_apply_defaults(server_tables, s);
  if (!mdl_params_check_required(kf, group, server_tables, NULL, where,
                                 error) ||
      !mdl_params_apply_group(kf, group, server_tables, NULL, s, where, error))
    goto fail;
  {
    /* keys that only one layout reads: given for another, they would be
     * dropped unseen */
    static const struct {
      const char *key, *needs;
    } conditional[] = {{"c2c_link", "gpu_attach = c2c"},
                       {"c2c_links", "gpu_attach = c2c"},
                       {"pcie_levels", "pcie_switches"}};
    gboolean c2c = s->gpu_attach == TOPO_ATTACH_C2C;

    for (guint i = 0; i < G_N_ELEMENTS(conditional); i++) {
      gboolean applies = i < 2 ? c2c : s->pcie_switches > 0;

      if (!applies && g_key_file_has_key(kf, group, conditional[i].key, NULL)) {
        topo_error(error, TOPO_ERROR_CONFLICT, where, conditional[i].key,
                   "applies only with %s", conditional[i].needs);
        goto fail;
      }
    }
  }
  if (s->sockets_per_host == 0)
    s->sockets_per_host = s->sockets;
  if (s->sockets % s->sockets_per_host != 0) {
    topo_error(error, TOPO_ERROR_CONFLICT, where, "sockets_per_host",
               "%u sockets do not form hosts of %u", s->sockets,
               s->sockets_per_host);
    goto fail;
  }
  if ((s->sockets_per_host > 1 &&
       !check_link(models, s->socket_link, "socket_link", MDL_FAMILY_SOCKET,
                   where, error)) ||
      !check_switch(models, s->root_complex, "root_complex",
                    MDL_SWITCH_ROOT_COMPLEX, where, error) ||
      !check_nvlink(s, models, where, error) ||
      !place_devices(s, models, where, error))
    goto fail;
  if (is_none(s->nic) != (s->nics == 0)) {
    topo_error(error, TOPO_ERROR_CONFLICT, where, "nics",
               "give both nic (a model) and nics (>= 1), or neither");
    goto fail;
  }
  if (s->nics && !mdl_registry_nic(models, s->nic)) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_UNKNOWN,
                "%s nic: '%s' is not a known NIC (see 'ifsim models')", where,
                s->nic);
    goto fail;
  }
  if (s->nics) {
    s->affinity = g_new0(guint32, s->gpus);
    if (s->nic_affinity) {
      if (!parse_int_list(s->nic_affinity, s->gpus, s->nics, FALSE,
                          (gint32 *)s->affinity, where, "nic_affinity", error))
        goto fail;
    } else {
      default_affinity(s);
    }
    spare_nics(s);
  } else if (s->nic_affinity) {
    topo_error(error, TOPO_ERROR_CONFLICT, where, "nic_affinity",
               "is set but there is no NIC");
    goto fail;
  }
  return s;

fail:
  topo_server_spec_free(s);
  return NULL;
}

/* --- building -------------------------------------------------------- */

static SimNodeId add_node(TopoSystem *sys, TopoNodeKind kind, guint32 flags,
                          guint32 server, guint32 index, guint32 model,
                          const char *what)
{
  char name[64];

  g_snprintf(name, sizeof name, "s%u.%s%u", server, what, index);
  return sim_fabric_add_node(sys->fabric, kind, flags, server, index, model,
                             name);
}

gboolean topo_build_servers(TopoSystem *sys, GError **error)
{
  const TopoServerSpec *sp = sys->server;
  const MdlRegistry *m = sys->models;
  const MdlSwitch *rc = mdl_registry_switch(m, sp->root_complex);
  const MdlSwitch *nvsw =
      sp->nvswitches ? mdl_registry_switch(m, sp->nvswitch) : NULL;
  const MdlSwitch *pcisw =
      sp->pcie_switches ? mdl_registry_switch(m, sp->pcie_switch) : NULL;
  const MdlNic *nic = sp->nics ? mdl_registry_nic(m, sp->nic) : NULL;
  const MdlLink *nvlink =
      is_none(sp->nvlink) ? NULL : mdl_registry_link(m, sp->nvlink);
  const MdlLink *gpu_pcie = mdl_registry_link(m, sp->gpu_pcie);
  const MdlLink *c2c = sp->gpu_attach == TOPO_ATTACH_C2C
                           ? mdl_registry_link(m, sp->c2c_link)
                           : NULL;
  const MdlLink *sock = mdl_registry_link(m, sp->socket_link);
  const MdlLink *nic_host = nic ? mdl_registry_link(m, nic->host_link) : NULL;
  (void)error;
  sys->off_gpu = 0;
  sys->off_cpu = sp->gpus;
  sys->off_nic = sys->off_cpu + sp->sockets;
  sys->off_nvsw = sys->off_nic + sp->nics;
  sys->off_pcisw = sys->off_nvsw + sp->nvswitches;
  sys->n_pcisw = sp->pcie_switches + sp->pcie_top_switches;
  sys->local_nodes = sys->off_pcisw + sys->n_pcisw;

  for (guint32 s = 0; s < sys->n_servers; s++) {
    SimNodeId base = sim_fabric_n_nodes(sys->fabric);
    guint32 first_ch = sim_fabric_n_channels(sys->fabric);

    if (s % 1024 == 0 && !sim_interrupt_check(error))
      return FALSE;
#define GPU(i) (base + sys->off_gpu + (i))
#define CPU(i) (base + sys->off_cpu + (i))
#define NIC(i) (base + sys->off_nic + (i))
#define NVSW(i) (base + sys->off_nvsw + (i))
#define PCISW(i) (base + sys->off_pcisw + (i))

    for (guint32 g = 0; g < sp->gpus; g++)
      add_node(sys, TOPO_NODE_GPU, SIM_NODE_ENDPOINT, s, g, 0, "gpu");
    for (guint32 c = 0; c < sp->sockets; c++)
      add_node(sys, TOPO_NODE_CPU, SIM_NODE_ENDPOINT | SIM_NODE_FORWARDS, s, c,
               topo_switch_id(sys, rc), "cpu");
    for (guint32 n = 0; n < sp->nics; n++)
      add_node(sys, TOPO_NODE_NIC, SIM_NODE_FORWARDS, s, n,
               topo_nic_id(sys, nic), "nic");
    for (guint32 k = 0; k < sp->nvswitches; k++)
      add_node(sys, TOPO_NODE_NVSWITCH, SIM_NODE_FORWARDS, s, k,
               topo_switch_id(sys, nvsw), "nvsw");
    for (guint32 j = 0; j < sys->n_pcisw; j++)
      add_node(sys, TOPO_NODE_PCIE_SWITCH, SIM_NODE_FORWARDS, s, j,
               topo_switch_id(sys, pcisw), "pcisw");

    /* NVLink: to every NVSwitch per the split, or direct pairs. */
    for (guint32 g = 0; nvlink && g < sp->gpus; g++) {
      for (guint32 k = 0; k < sp->nvswitches; k++) {
        if (sp->split[k])
          topo_add_link(sys, GPU(g), NVSW(k), nvlink, sp->split[k]);
      }
    }
    for (guint i = 0; sp->pairs && i < sp->pairs->len; i++) {
      const guint32 *t = (const guint32 *)sp->pairs->data + 3 * i;
      topo_add_link(sys, GPU(t[0]), GPU(t[1]), nvlink, t[2]);
    }
    /* GPUs to their socket: NVLink-C2C, a PCIe switch or a root port. */
    for (guint32 g = 0; g < sp->gpus; g++) {
      if (c2c)
        topo_add_link(sys, GPU(g), CPU(sp->gpu_sock[g]), c2c, sp->c2c_links);
      else if (sp->gpu_sw[g] >= 0)
        topo_add_link(sys, GPU(g), PCISW(sp->gpu_sw[g]), gpu_pcie, 1);
      else
        topo_add_link(sys, GPU(g), CPU(sp->gpu_sock[g]), gpu_pcie, 1);
    }
    for (guint32 n = 0; n < sp->nics; n++) {
      if (sp->nic_sw[n] >= 0)
        topo_add_link(sys, NIC(n), PCISW(sp->nic_sw[n]), nic_host, 1);
      else
        topo_add_link(sys, NIC(n), CPU(sp->nic_sock[n]), nic_host, 1);
    }
    /* PCIe switch uplinks: to a top switch or the socket. */
    for (guint32 j = 0; j < sp->pcie_switches; j++) {
      if (sp->sw_top[j] >= 0)
        topo_add_link(sys, PCISW(j), PCISW(sp->pcie_switches + sp->sw_top[j]),
                      gpu_pcie, 1);
      else
        topo_add_link(sys, PCISW(j), CPU(sp->sw_sock[j]), gpu_pcie, 1);
    }
    for (guint32 t = 0; t < sp->pcie_top_switches; t++)
      topo_add_link(sys, PCISW(sp->pcie_switches + t), CPU(sp->top_sock[t]),
                    gpu_pcie, 1);
    /* Sockets of one host, all to all. */
    for (guint32 a = 0; a < sp->sockets; a++) {
      for (guint32 b = a + 1; b < sp->sockets; b++) {
        if (a / sp->sockets_per_host == b / sp->sockets_per_host)
          topo_add_link(sys, CPU(a), CPU(b), sock, sp->socket_links);
      }
    }
    if (s == 0)
      sys->local_channels = sim_fabric_n_channels(sys->fabric) - first_ch;
    g_assert(sim_fabric_n_channels(sys->fabric) - first_ch ==
             sys->local_channels);
#undef GPU
#undef CPU
#undef NIC
#undef NVSW
#undef PCISW
  }
  return TRUE;
}

/* --- routes inside a server ----------------------------------------- */

/* The fastest paths from a to every node of its server (Dijkstra over
 * the channels up; only forwarding nodes in between); cost of a channel:
 * latency plus 1 MiB at its rate.  By local ids: via[i] is the channel
 * into node i on its path (SIM_NONE where none reaches it, and at a);
 * dist and done are scratch.  One search serves every destination: a
 * node's path is final once it is the nearest left, which is where the
 * search for that one destination would have stopped. */
static void intra_fastest_from(const TopoSystem *sys, SimNodeId a, double *dist,
                               SimChannelId *via, gboolean *done)
{
  guint32 n = sys->local_nodes;
  SimNodeId base = a - a % n;

  for (guint32 i = 0; i < n; i++) {
    dist[i] = G_MAXDOUBLE;
    via[i] = SIM_NONE;
    done[i] = FALSE;
  }
  dist[a - base] = 0;
  for (;;) {
    guint32 u = SIM_NONE, deg;
    const SimChannelId *outs;
    for (guint32 i = 0; i < n; i++) {
      if (!done[i] && dist[i] < G_MAXDOUBLE &&
          (u == SIM_NONE || dist[i] < dist[u]))
        u = i;
    }
    if (u == SIM_NONE)
      break;
    done[u] = TRUE;
    if (u != a - base &&
        !(sim_fabric_node(sys->fabric, base + u)->flags & SIM_NODE_FORWARDS))
      continue;
    outs = sim_fabric_out(sys->fabric, base + u, &deg);
    for (guint32 i = 0; i < deg; i++) {
      const SimChannel *c = sim_fabric_channel(sys->fabric, outs[i]);
      double d;
      if (c->dst < base || c->dst >= base + n || c->width == 0)
        continue; /* leaves the server, or faults took it down */
      d = dist[u] + (double)c->latency_ps * 1e-12 + 1048576.0 / c->rate_Bps;
      if (d < dist[c->dst - base]) {
        dist[c->dst - base] = d;
        via[c->dst - base] = outs[i];
      }
    }
  }
}

/* The fastest path from a to b, read off intra_fastest_from's via.  FALSE
 * when there is none, or it is longer than a path holds. */
static gboolean intra_fastest(const TopoSystem *sys, SimNodeId a, SimNodeId b,
                              const SimChannelId *via, SimPath *out)
{
  SimNodeId base = a - a % sys->local_nodes;
  SimNodeId stack[SIM_PATH_MAX_HOPS];
  guint32 depth = 0;

  if (via[b - base] == SIM_NONE)
    return FALSE;
  for (SimNodeId at = b; at != a;) {
    if (depth == SIM_PATH_MAX_HOPS)
      return FALSE;
    stack[depth++] = via[at - base];
    at = sim_fabric_channel(sys->fabric, via[at - base])->src;
  }
  sim_path_clear(out);
  while (depth > 0)
    sim_path_push(out, stack[--depth]);
  return TRUE;
}

/* Physical links up of a channel; 0 where there is none. */
static guint32 width_of(const TopoSystem *sys, SimChannelId c)
{
  return c == SIM_NONE ? 0 : sim_fabric_channel(sys->fabric, c)->width;
}

/* GPU-to-GPU over NVLink: one path per NVSwitch both reach (and the direct
 * bundle), weighted by the links up that the path can use, min(a's to the
 * switch, the switch's to b): the GPU spreads its traffic over its links
 * up, and through one switch no more than the fewer of the two can carry
 * (as built, every switch's share of a GPU's links).  FALSE when the pair
 * shares no NVLink up. */
static gboolean intra_nvlink(const TopoSystem *sys, SimNodeId a, SimNodeId b,
                             SimPathSet *out)
{
  const TopoServerSpec *sp = sys->server;
  SimNodeId base = a - a % sys->local_nodes;
  double total = 0;

  out->n = 0;
  for (guint32 k = 0; sp->split && k < sp->nvswitches; k++) {
    SimNodeId sw = base + sys->off_nvsw + k;
    SimChannelId up = sim_fabric_find_channel(sys->fabric, a, sw);
    SimChannelId down = sim_fabric_find_channel(sys->fabric, sw, b);
    guint32 w = MIN(width_of(sys, up), width_of(sys, down));
    SimPath *p;

    if (w == 0)
      continue;
    p = &out->path[out->n];
    sim_path_clear(p);
    sim_path_push(p, up);
    sim_path_push(p, down);
    out->weight[out->n++] = w;
    total += w;
  }
  {
    SimChannelId direct = sim_fabric_find_channel(sys->fabric, a, b);
    if (width_of(sys, direct) > 0) {
      SimPath *p = &out->path[out->n];
      sim_path_clear(p);
      sim_path_push(p, direct);
      out->weight[out->n] = width_of(sys, direct);
      total += out->weight[out->n++];
    }
  }
  for (guint32 i = 0; i < out->n; i++)
    out->weight[i] /= total;
  return out->n > 0;
}

gboolean topo_faulted_gpus_nvlinked(const TopoSystem *sys, guint32 server,
                                    guint32 ga, guint32 gb)
{
  SimPathSet ps;

  return intra_nvlink(sys, topo_gpu(sys, server, ga), topo_gpu(sys, server, gb),
                      &ps);
}

/* Arena layout per pair: n_paths, then per path: weight (a double in two
 * words), n_hops, hops less the server's first channel. */
static void intra_store(TopoIntraRoutes *r, guint32 key, const SimPathSet *ps,
                        SimChannelId ch_base)
{
  guint32 n = ps->n;

  r->first[key] = r->sets->len;
  g_array_append_val(r->sets, n);
  for (guint32 i = 0; i < ps->n; i++) {
    guint32 bits[2];
    memcpy(bits, &ps->weight[i], sizeof bits);
    g_array_append_vals(r->sets, bits, 2);
    g_array_append_val(r->sets, ps->path[i].n);
    for (guint32 h = 0; h < ps->path[i].n; h++) {
      guint32 hop = ps->path[i].hop[h] - ch_base;
      g_array_append_val(r->sets, hop);
    }
  }
}

static void intra_clear(TopoIntraRoutes *r)
{
  g_free(r->first);
  if (r->sets)
    g_array_free(r->sets, TRUE);
  r->first = NULL;
  r->sets = NULL;
}

/* Server s's routes between its GPUs, CPUs, NICs and switches. */
static gboolean intra_build(const TopoSystem *sys, guint32 s,
                            TopoIntraRoutes *r)
{
  guint32 n = sys->local_nodes;
  SimNodeId base = s * n;

  g_autofree double *dist = g_new(double, n);
  g_autofree SimChannelId *via = g_new(SimChannelId, n);
  g_autofree gboolean *done = g_new(gboolean, n);

  r->first = g_new(guint32, (gsize)n * n);
  r->sets = g_array_new(FALSE, FALSE, sizeof(guint32));
  for (guint32 i = 0; i < n * n; i++)
    r->first[i] = SIM_NONE;
  for (SimNodeId a = 0; a < sys->off_nvsw; a++) {
    gboolean searched = FALSE; /* via holds a's paths */

    /* seconds for a server of a thousand GPUs, so a signal is heeded
     * between sources */
    if (sim_interrupted())
      return FALSE;
    for (SimNodeId b = 0; b < sys->off_nvsw; b++) {
      SimPathSet ps;
      const SimNode *na = sim_fabric_node(sys->fabric, base + a);
      const SimNode *nb = sim_fabric_node(sys->fabric, base + b);
      if (a == b)
        continue;
      if (!(na->kind == TOPO_NODE_GPU && nb->kind == TOPO_NODE_GPU &&
            intra_nvlink(sys, base + a, base + b, &ps))) {
        ps.n = 1;
        ps.weight[0] = 1.0;
        if (!searched)
          intra_fastest_from(sys, base + a, dist, via, done);
        searched = TRUE;
        if (!intra_fastest(sys, base + a, base + b, via, &ps.path[0]))
          continue;
      }
      intra_store(r, a * n + b, &ps, s * sys->local_channels);
    }
  }
  return TRUE;
}

gboolean topo_build_intra_routes(TopoSystem *sys)
{
  return intra_build(sys, 0, &sys->intra);
}

gboolean topo_rebuild_intra_routes(TopoSystem *sys, guint32 server)
{
  g_assert(server < sys->n_servers);
  if (!sys->intra_faulted)
    sys->intra_faulted = g_new0(TopoIntraRoutes *, sys->n_servers);
  if (!sys->intra_faulted[server])
    sys->intra_faulted[server] = g_new0(TopoIntraRoutes, 1);
  intra_clear(sys->intra_faulted[server]);
  return intra_build(sys, server, sys->intra_faulted[server]);
}

void topo_intra_routes_free(TopoSystem *sys)
{
  intra_clear(&sys->intra);
  for (guint32 s = 0; sys->intra_faulted && s < sys->n_servers; s++) {
    if (sys->intra_faulted[s])
      intra_clear(sys->intra_faulted[s]);
    g_free(sys->intra_faulted[s]);
  }
  g_clear_pointer(&sys->intra_faulted, g_free);
}

guint32 topo_node_server(const TopoSystem *sys, SimNodeId n)
{
  guint32 s = n / sys->local_nodes;
  return s < sys->n_servers ? s : G_MAXUINT32;
}

gboolean topo_route_intra(const TopoSystem *sys, SimNodeId src, SimNodeId dst,
                          SimPathSet *out)
{
  guint32 s = topo_node_server(sys, src);
  guint32 a = src - s * sys->local_nodes, b;
  guint32 at;
  const guint32 *w;
  SimChannelId ch_base = s * sys->local_channels;
  const TopoIntraRoutes *r;

  if (s == G_MAXUINT32 || topo_node_server(sys, dst) != s)
    return FALSE;
  r = sys->intra_faulted && sys->intra_faulted[s] ? sys->intra_faulted[s]
                                                  : &sys->intra;
  b = dst - s * sys->local_nodes;
  at = r->first[a * sys->local_nodes + b];
  if (at == SIM_NONE)
    return FALSE;
  w = (const guint32 *)r->sets->data + at;
  out->n = *w++;
  for (guint32 i = 0; i < out->n; i++) {
    memcpy(&out->weight[i], w, sizeof(double));
    w += 2;
    out->path[i].n = *w++;
    for (guint32 h = 0; h < out->path[i].n; h++)
      out->path[i].hop[h] = *w++ + ch_base;
  }
  return TRUE;
}
