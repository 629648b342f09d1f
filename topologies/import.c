/* Importers of nvidia-smi topo -m, NCCL topology XML and ibnetdiscover
 * dumps into system files; see topologies/import.h. */
#include "topologies/import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/params.h"

#define IMPORT_ERROR MDL_ERROR

/* --- what a server import produces ----------------------------------------- */

typedef struct {
  guint32 gpus, nics, sockets;
  const char *nvlink, *nvswitch;
  guint32 nvlinks_per_gpu, nvswitches;
  GString *split, *pairs;
  const char *gpu_pcie, *pcie_switch, *root_complex, *nic;
  guint32 nsw, ntop;
  gint32 *gpu_sw, *nic_sw, *sw_top;
  guint32 *gpu_sock, *nic_sock, *sw_sock, *top_sock, *affinity;
  /* closeness of GPU g to NIC n, smaller is closer (for affinity) */
  guint32 *gpu_nic_class;
  GString *notes;
  GString *names; /* description of the NICs, if the dump names them */
  char gpu_pcie_buf[32];
} ImportServer;

static ImportServer *import_server_new(guint32 gpus, guint32 nics)
{
  ImportServer *s = g_new0(ImportServer, 1);

  s->gpus = gpus;
  s->nics = nics;
  s->split = g_string_new(NULL);
  s->pairs = g_string_new(NULL);
  s->notes = g_string_new(NULL);
  s->names = g_string_new(NULL);
  s->gpu_sw = g_new(gint32, MAX(gpus, 1));
  s->nic_sw = g_new(gint32, MAX(nics, 1));
  s->gpu_sock = g_new0(guint32, MAX(gpus, 1));
  s->nic_sock = g_new0(guint32, MAX(nics, 1));
  s->affinity = g_new0(guint32, MAX(gpus, 1));
  s->gpu_nic_class = g_new0(guint32, MAX(gpus * nics, 1));
  for (guint32 i = 0; i < gpus; i++)
    s->gpu_sw[i] = -1;
  for (guint32 i = 0; i < nics; i++)
    s->nic_sw[i] = -1;
  s->nvlink = "none";
  s->nvswitch = "none";
  s->gpu_pcie = "pcie5-x16";
  s->pcie_switch = "pex89000";
  s->root_complex = "root-complex-gen5";
  return s;
}

static void import_server_free(ImportServer *s)
{
  g_string_free(s->split, TRUE);
  g_string_free(s->pairs, TRUE);
  g_string_free(s->notes, TRUE);
  g_string_free(s->names, TRUE);
  g_free(s->gpu_sw);
  g_free(s->nic_sw);
  g_free(s->sw_top);
  g_free(s->gpu_sock);
  g_free(s->nic_sock);
  g_free(s->sw_sock);
  g_free(s->top_sock);
  g_free(s->affinity);
  g_free(s->gpu_nic_class);
  g_free(s);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ImportServer, import_server_free)

static void note(ImportServer *s, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

static void note(ImportServer *s, const char *fmt, ...)
{
  va_list ap;

  g_string_append(s->notes, "# ");
  va_start(ap, fmt);
  g_string_append_vprintf(s->notes, fmt, ap);
  va_end(ap);
  g_string_append_c(s->notes, '\n');
}

/* Each GPU takes the closest NIC serving the fewest GPUs so far. */
static void pick_affinity(ImportServer *s)
{
  g_autofree guint32 *load = g_new0(guint32, MAX(s->nics, 1));

  for (guint32 g = 0; g < s->gpus && s->nics; g++) {
    guint32 best = 0;
    for (guint32 n = 1; n < s->nics; n++) {
      guint32 cn = s->gpu_nic_class[g * s->nics + n];
      guint32 cb = s->gpu_nic_class[g * s->nics + best];
      if (cn < cb || (cn == cb && load[n] < load[best]))
        best = n;
    }
    s->affinity[g] = best;
    load[best]++;
  }
}

static void append_list(GString *out, const char *key, const void *v, guint32 n,
                        gboolean is_signed)
{
  g_string_append_printf(out, "%s = ", key);
  for (guint32 i = 0; i < n; i++)
    g_string_append_printf(out, "%s%d", i ? "," : "",
                           is_signed ? ((const gint32 *)v)[i]
                                     : (gint)((const guint32 *)v)[i]);
  g_string_append_c(out, '\n');
}

static char *emit_server(const ImportServer *s, const char *source,
                         const char *what)
{
  GString *o = g_string_new(NULL);

  g_string_append_printf(o,
                         "# Imported from %s (%s) by ifsim topo --import.\n"
                         "# What the dump does not say is assumed:\n%s",
                         source, what, s->notes->str);
  g_string_append_printf(o,
                         "\n[system]\ndescription = Imported from %s\n"
                         "server = imported\nservers = 1\n\n"
                         "[server imported]\n"
                         "description = Imported from %s%s\n",
                         source, source, s->names->str);
  g_string_append_printf(o, "gpus = %u\nsockets = %u\n", s->gpus, s->sockets);
  g_string_append_printf(o, "root_complex = %s\n", s->root_complex);
  if (strcmp(s->nvlink, "none") != 0) {
    g_string_append_printf(o, "nvlink = %s\nnvlinks_per_gpu = %u\n", s->nvlink,
                           s->nvlinks_per_gpu);
    if (s->nvswitches)
      g_string_append_printf(o,
                             "nvswitch = %s\nnvswitches = %u\n"
                             "nvlink_split = %s\n",
                             s->nvswitch, s->nvswitches, s->split->str);
    else
      g_string_append_printf(o, "nvlink_pairs = %s\n", s->pairs->str);
  }
  g_string_append_printf(o, "gpu_pcie = %s\n", s->gpu_pcie);
  if (s->nsw) {
    g_string_append_printf(o, "pcie_switch = %s\npcie_switches = %u\n",
                           s->pcie_switch, s->nsw);
    if (s->ntop) {
      g_string_append_printf(o, "pcie_top_switches = %u\n", s->ntop);
      append_list(o, "pcie_top_socket", s->top_sock, s->ntop, FALSE);
    }
    append_list(o, "pcie_switch_top", s->sw_top, s->nsw, TRUE);
    append_list(o, "pcie_switch_socket", s->sw_sock, s->nsw, FALSE);
    append_list(o, "gpu_pcie_switch", s->gpu_sw, s->gpus, TRUE);
    if (s->nics)
      append_list(o, "nic_pcie_switch", s->nic_sw, s->nics, TRUE);
  }
  append_list(o, "gpu_socket", s->gpu_sock, s->gpus, FALSE);
  if (s->nics) {
    g_string_append_printf(o, "nic = %s\nnics = %u\n", s->nic, s->nics);
    append_list(o, "nic_socket", s->nic_sock, s->nics, FALSE);
    append_list(o, "nic_affinity", s->affinity, s->gpus, FALSE);
  }
  return g_string_free(o, FALSE);
}

/* --- union-find -------------------------------------------------------------- */

static guint32 uf_find(guint32 *p, guint32 x)
{
  while (p[x] != x) {
    p[x] = p[p[x]];
    x = p[x];
  }
  return x;
}

static void uf_union(guint32 *p, guint32 a, guint32 b)
{
  a = uf_find(p, a);
  b = uf_find(p, b);
  if (a != b)
    p[MAX(a, b)] = MIN(a, b);
}

/* Numbers the classes of p in order of their first member: out[i] is
 * device i's class number; returns the number of classes. */
static guint32 uf_number(guint32 *p, guint32 n, const gboolean *keep,
                         gint32 *out)
{
  g_autofree gint32 *num = g_new(gint32, MAX(n, 1));
  guint32 k = 0;

  for (guint32 i = 0; i < n; i++)
    num[i] = -1;
  for (guint32 i = 0; i < n; i++) {
    guint32 r = uf_find(p, i);
    if (keep && !keep[r]) {
      out[i] = -1;
      continue;
    }
    if (num[r] < 0)
      num[r] = (gint32)k++;
    out[i] = num[r];
  }
  return k;
}

/* --- nvidia-smi topo -m ---------------------------------------------------------- */

enum { REL_X, REL_NV, REL_PIX, REL_PXB, REL_PHB, REL_NODE, REL_SYS };

static gboolean parse_rel(const char *cell, guint32 *rel, guint32 *nv)
{
  static const char *const names[] = {"X",   "",     "PIX", "PXB",
                                      "PHB", "NODE", "SYS"};

  *nv = 0;
  if (g_str_has_prefix(cell, "NV") && cell[2]) {
    guint64 v;
    if (!g_ascii_string_to_unsigned(cell + 2, 10, 1, 64, &v, NULL))
      return FALSE;
    *rel = REL_NV;
    *nv = (guint32)v;
    return TRUE;
  }
  for (guint32 i = 0; i < G_N_ELEMENTS(names); i++) {
    if (i != REL_NV && strcmp(cell, names[i]) == 0) {
      *rel = i;
      return TRUE;
    }
  }
  return FALSE;
}

/* NVLink generation from the uniform per-pair link count NV#. */
static void nvlink_from_count(ImportServer *s, guint32 nv,
                              const TopoImportOptions *opt)
{
  s->nvlinks_per_gpu = nv;
  g_string_truncate(s->split, 0);
  if (nv == 12 && !opt->nvlink) {
    s->nvlink = "nvlink3";
    s->nvswitch = "nvswitch2";
    s->nvswitches = 6;
    g_string_append(s->split, "2,2,2,2,2,2");
    note(s, "NV12 read as A100: NVLink3 over 6 NVSwitch gen2");
  } else if (nv == 18 && (!opt->nvlink || !strcmp(opt->nvlink, "nvlink4"))) {
    s->nvlink = "nvlink4";
    s->nvswitch = "nvswitch3";
    s->nvswitches = 4;
    g_string_append(s->split, "5,5,4,4");
    note(s, "NV18 read as H100/H200: NVLink4 over 4 NVSwitch gen3 (5,5,4,4); "
            "for B200 import with NVLink model nvlink5");
  } else if (nv == 18 && !strcmp(opt->nvlink, "nvlink5")) {
    s->nvlink = "nvlink5";
    s->nvswitch = "nvswitch4";
    s->nvswitches = 2;
    g_string_append(s->split, "9,9");
    note(s, "NV18 with nvlink5: B200 over 2 NVLink Switch chips");
  } else {
    s->nvlink = opt->nvlink ? opt->nvlink : "nvlink4";
    s->nvswitch = "nvswitch3";
    s->nvswitches = 1;
    g_string_append_printf(s->split, "%u", nv);
    note(s, "NV%u on every GPU pair read as %s through one NVSwitch", nv,
         s->nvlink);
  }
}

static char *import_smi(const char *text, gsize len, const char *source,
                        const TopoImportOptions *opt, GError **error)
{
  g_autoptr(GRegex) ansi = g_regex_new("\x1b\\[[0-9;]*m", 0, 0, NULL);
  g_autofree char *clean =
      g_regex_replace_literal(ansi, text, (gssize)len, 0, "", 0, NULL);
  g_auto(GStrv) lines = g_strsplit(clean, "\n", -1);
  g_auto(GStrv) header = NULL;
  g_autoptr(ImportServer) s = NULL;
  g_autofree guint32 *rel = NULL, *nvc = NULL, *parent = NULL;
  g_autofree gint32 *numa = NULL, *cls = NULL;
  g_autofree gint32 *dev_index = NULL;
  g_autofree gboolean *seen = NULL, *is_gpu = NULL, *keep = NULL;
  guint32 n = 0, gpus = 0, nics = 0, hline = 0;
  GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GPtrArray) names_owner = names;

  for (guint i = 0; lines[i]; i++) {
    g_auto(GStrv) t = mdl_split_words(lines[i]);
    if (t[0] && strcmp(t[0], "GPU0") == 0 && !header) {
      header = g_steal_pointer(&t);
      hline = i;
      break;
    }
  }
  if (!header) {
    g_set_error(error, IMPORT_ERROR, MDL_ERROR_SYNTAX,
                "%s: no header line starting with GPU0 (is this nvidia-smi "
                "topo -m output?)",
                source);
    return NULL;
  }
  while (header[n] && strcmp(header[n], "CPU") != 0 &&
         strcmp(header[n], "NUMA") != 0)
    n++;
  rel = g_new0(guint32, n * n);
  nvc = g_new0(guint32, n * n);
  numa = g_new(gint32, n);
  seen = g_new0(gboolean, n);
  is_gpu = g_new0(gboolean, n);
  dev_index = g_new(gint32, n);
  for (guint32 i = 0; i < n; i++) {
    is_gpu[i] = g_str_has_prefix(header[i], "GPU");
    dev_index[i] = (gint32)(is_gpu[i] ? gpus++ : nics++);
    numa[i] = -1;
  }
  for (guint li = hline + 1; lines[li]; li++) {
    g_auto(GStrv) t = mdl_split_words(lines[li]);
    guint32 row = n, count = t ? g_strv_length(t) : 0;
    if (count == 0)
      continue;
    if (g_str_has_prefix(t[0], "Legend"))
      break;
    for (guint32 i = 0; i < n; i++) {
      if (strcmp(t[0], header[i]) == 0)
        row = i;
    }
    if (row == n)
      continue; /* not a device row */
    if (count < n + 1) {
      g_set_error(error, IMPORT_ERROR, MDL_ERROR_SYNTAX,
                  "%s:%u: row %s has %u cells (expected %u)", source, li + 1,
                  t[0], count - 1, n);
      return NULL;
    }
    for (guint32 c = 0; c < n; c++) {
      guint32 r, v;
      if (!parse_rel(t[c + 1], &r, &v) || (r == REL_X) != (c == row)) {
        g_set_error(error, IMPORT_ERROR, MDL_ERROR_VALUE,
                    "%s:%u: %s/%s: '%s' is not X (diagonal), NV#, PIX, PXB, "
                    "PHB, NODE or SYS",
                    source, li + 1, t[0], header[c], t[c + 1]);
        return NULL;
      }
      rel[row * n + c] = r;
      nvc[row * n + c] = v;
    }
    /* CPU Affinity, then NUMA Affinity (a number or N/A) */
    if (count >= n + 3) {
      gint64 v;
      if (g_ascii_string_to_signed(t[n + 2], 10, 0, 1024, &v, NULL))
        numa[row] = (gint32)v;
    }
    seen[row] = TRUE;
  }
  for (guint32 i = 0; i < n; i++) {
    if (!seen[i]) {
      g_set_error(error, IMPORT_ERROR, MDL_ERROR_SYNTAX,
                  "%s: no row for %s (truncated dump?)", source, header[i]);
      return NULL;
    }
  }
  if (gpus == 0) {
    g_set_error(error, IMPORT_ERROR, MDL_ERROR_SYNTAX, "%s: no GPU", source);
    return NULL;
  }
  /* NIC legend: "NIC0: mlx5_0" */
  for (guint li = hline + 1; lines[li]; li++) {
    char *l = g_strchug(lines[li]);
    char *p = strstr(l, ": ");
    g_autofree char *key = NULL;
    if (!p || !g_str_has_prefix(l, "NIC"))
      continue;
    key = g_strndup(l, (gsize)(p - l));
    for (guint32 i = 0; i < n; i++) {
      if (!is_gpu[i] && strcmp(header[i], key) == 0)
        g_ptr_array_add(names, g_strdup(g_strstrip(p + 2)));
    }
  }
  s = import_server_new(gpus, nics);
  s->nic = opt->nic ? opt->nic : "cx7-ndr";
  if (nics)
    note(s, "NIC model %s (the dump does not give NIC speeds)", s->nic);
  note(s, "GPUs on PCIe Gen5 x16, PCIe switches %s, root complex %s",
       s->pcie_switch, s->root_complex);
  for (guint i = 0; i < names->len; i++)
    g_string_append_printf(s->names, "%s%s", i ? " " : "; NICs ",
                           (char *)names->pdata[i]);

  /* NVLink: one count on every GPU pair -> NVSwitch; else direct pairs. */
  {
    guint32 common = 0;
    gboolean uniform = gpus > 1;
    g_autofree guint32 *sum = g_new0(guint32, n);
    for (guint32 a = 0; a < n; a++) {
      for (guint32 b = 0; b < n; b++) {
        if (a == b || !is_gpu[a] || !is_gpu[b])
          continue;
        if (rel[a * n + b] != REL_NV || (common && nvc[a * n + b] != common))
          uniform = FALSE;
        if (rel[a * n + b] == REL_NV) {
          common = common ? common : nvc[a * n + b];
          sum[a] += nvc[a * n + b];
          if (a < b)
            g_string_append_printf(s->pairs, "%s%d-%d:%u",
                                   s->pairs->len ? "," : "", dev_index[a],
                                   dev_index[b], nvc[a * n + b]);
        }
      }
    }
    if (uniform) {
      nvlink_from_count(s, common, opt);
    } else if (s->pairs->len) {
      s->nvlink = opt->nvlink ? opt->nvlink : "nvlink3";
      for (guint32 a = 0; a < n; a++)
        s->nvlinks_per_gpu = MAX(s->nvlinks_per_gpu, sum[a]);
      note(s, "direct NVLink pairs read as %s", s->nvlink);
    }
  }

  /* Sockets: devices joined by anything but SYS (NV# hides the PCIe
   * relation; GPUs fall back on their NUMA affinity). */
  parent = g_new(guint32, n);
  cls = g_new(gint32, n);
  keep = g_new0(gboolean, n);
  for (guint32 i = 0; i < n; i++)
    parent[i] = i;
  for (guint32 a = 0; a < n; a++) {
    for (guint32 b = 0; b < n; b++) {
      guint32 r = rel[a * n + b];
      if (r >= REL_PIX && r <= REL_NODE)
        uf_union(parent, a, b);
      if (a != b && numa[a] >= 0 && numa[a] == numa[b])
        uf_union(parent, a, b);
    }
  }
  s->sockets = uf_number(parent, n, NULL, cls);
  for (guint32 i = 0; i < n; i++) {
    if (is_gpu[i])
      s->gpu_sock[dev_index[i]] = (guint32)cls[i];
    else
      s->nic_sock[dev_index[i]] = (guint32)cls[i];
  }
  /* PCIe switches: PIX classes; top switches: PXB between switches. */
  for (guint32 i = 0; i < n; i++)
    parent[i] = i;
  for (guint32 a = 0; a < n; a++) {
    for (guint32 b = 0; b < n; b++) {
      if (a != b && rel[a * n + b] == REL_PIX)
        uf_union(parent, a, b);
    }
  }
  for (guint32 a = 0; a < n; a++) {
    gboolean on_switch = FALSE;
    for (guint32 b = 0; b < n; b++)
      on_switch |=
          a != b && (rel[a * n + b] == REL_PIX || rel[a * n + b] == REL_PXB);
    if (on_switch)
      keep[uf_find(parent, a)] = TRUE;
  }
  s->nsw = uf_number(parent, n, keep, cls);
  if (s->nsw) {
    g_autofree guint32 *sp = g_new(guint32, s->nsw);
    g_autofree gboolean *has_pxb = g_new0(gboolean, s->nsw);
    g_autofree gint32 *top = g_new(gint32, s->nsw);
    s->sw_top = g_new(gint32, s->nsw);
    s->sw_sock = g_new0(guint32, s->nsw);
    for (guint32 j = 0; j < s->nsw; j++)
      sp[j] = j;
    for (guint32 a = 0; a < n; a++) {
      if (cls[a] < 0)
        continue;
      if (is_gpu[a])
        s->gpu_sw[dev_index[a]] = cls[a];
      else
        s->nic_sw[dev_index[a]] = cls[a];
      s->sw_sock[cls[a]] =
          is_gpu[a] ? s->gpu_sock[dev_index[a]] : s->nic_sock[dev_index[a]];
      for (guint32 b = 0; b < n; b++) {
        if (rel[a * n + b] == REL_PXB && cls[b] >= 0 && cls[b] != cls[a]) {
          uf_union(sp, (guint32)cls[a], (guint32)cls[b]);
          has_pxb[cls[a]] = TRUE;
        }
      }
    }
    s->ntop = uf_number(sp, s->nsw, has_pxb, top);
    s->top_sock = g_new0(guint32, MAX(s->ntop, 1));
    for (guint32 j = 0; j < s->nsw; j++) {
      s->sw_top[j] = has_pxb[uf_find(sp, j)] ? top[j] : -1;
      if (s->sw_top[j] >= 0)
        s->top_sock[s->sw_top[j]] = s->sw_sock[j];
    }
  }
  /* Affinity: the closest NIC by relation class. */
  for (guint32 a = 0; a < n; a++) {
    for (guint32 b = 0; b < n; b++) {
      if (is_gpu[a] && !is_gpu[b])
        s->gpu_nic_class[dev_index[a] * nics + dev_index[b]] = rel[a * n + b];
    }
  }
  pick_affinity(s);
  return emit_server(s, source, "nvidia-smi topo -m");
}

/* --- NCCL topology XML ------------------------------------------------------------ */

typedef struct {
  gint32 parent; /* pci index, -1 under a cpu */
  guint32 cpu;
  gboolean bridge;
  char *busid;
  double gts;
  guint32 width;
} XPci;

typedef struct {
  gint32 pci;
  guint32 sm, dev;
  GArray *targets; /* XLink */
} XGpu;

typedef struct {
  char *target;
  guint32 count;
  gboolean nvswitch;
} XLink;

typedef struct {
  gint32 pci;
  guint64 speed_mbps;
} XNic;

typedef struct {
  GArray *pci, *gpu, *nic;
  GArray *stack; /* gint32: pci index at each open element, -1 if not */
  guint32 cpus;
  gint32 cur_gpu, cur_nic;
  const char *source;
} XmlState;

static const char *attr(const char **names, const char **values,
                        const char *key)
{
  for (guint i = 0; names[i]; i++) {
    if (strcmp(names[i], key) == 0)
      return values[i];
  }
  return NULL;
}

static gint32 enclosing_pci(const XmlState *st)
{
  for (guint i = st->stack->len; i-- > 0;) {
    gint32 p = g_array_index(st->stack, gint32, i);
    if (p >= 0)
      return p;
  }
  return -1;
}

static void xml_start(GMarkupParseContext *ctx, const char *name,
                      const char **an, const char **av, gpointer data,
                      GError **error)
{
  XmlState *st = data;
  gint32 mine = -1;
  int line, col;

  g_markup_parse_context_get_position(ctx, &line, &col);
  if (strcmp(name, "system") == 0) {
    const char *v = attr(an, av, "version");
    if (!v || strcmp(v, "1") != 0) {
      g_set_error(error, IMPORT_ERROR, MDL_ERROR_VALUE,
                  "%s:%d: <system version=\"%s\">: XML Topology has wrong "
                  "version (expected 1)",
                  st->source, line, v ? v : "");
      return;
    }
  } else if (strcmp(name, "cpu") == 0) {
    st->cpus++;
  } else if (strcmp(name, "pci") == 0) {
    XPci p = {.parent = enclosing_pci(st), .cpu = st->cpus ? st->cpus - 1 : 0};
    const char *cls = attr(an, av, "class");
    const char *speed = attr(an, av, "link_speed");
    const char *width = attr(an, av, "link_width");
    p.bridge = cls && g_ascii_strcasecmp(cls, "0x060400") == 0;
    p.busid = g_strdup(attr(an, av, "busid"));
    p.gts = speed ? g_ascii_strtod(speed, NULL) : 0;
    p.width = width ? (guint32)g_ascii_strtoull(width, NULL, 10) : 0;
    if (p.parent >= 0)
      g_array_index(st->pci, XPci, p.parent).bridge = TRUE;
    g_array_append_val(st->pci, p);
    mine = (gint32)st->pci->len - 1;
  } else if (strcmp(name, "gpu") == 0) {
    XGpu g = {.pci = enclosing_pci(st),
              .targets = g_array_new(FALSE, FALSE, sizeof(XLink))};
    const char *sm = attr(an, av, "sm"), *dev = attr(an, av, "dev");
    g.sm = sm ? (guint32)g_ascii_strtoull(sm, NULL, 10) : 0;
    g.dev = dev ? (guint32)g_ascii_strtoull(dev, NULL, 10) : st->gpu->len;
    if (g.pci < 0) {
      g_set_error(error, IMPORT_ERROR, MDL_ERROR_SYNTAX,
                  "%s:%d: <gpu> outside a <pci> element", st->source, line);
      g_array_free(g.targets, TRUE);
      return;
    }
    g_array_append_val(st->gpu, g);
    st->cur_gpu = (gint32)st->gpu->len - 1;
  } else if (strcmp(name, "nvlink") == 0 && st->cur_gpu >= 0) {
    const char *cnt = attr(an, av, "count"), *tc = attr(an, av, "tclass");
    XLink l = {.target = g_strdup(attr(an, av, "target")),
               .count = cnt ? (guint32)g_ascii_strtoull(cnt, NULL, 10) : 1,
               .nvswitch = tc && g_ascii_strcasecmp(tc, "0x068000") == 0};
    g_array_append_val(g_array_index(st->gpu, XGpu, st->cur_gpu).targets, l);
  } else if (strcmp(name, "nic") == 0) {
    XNic nic = {.pci = enclosing_pci(st)};
    g_array_append_val(st->nic, nic);
    st->cur_nic = (gint32)st->nic->len - 1;
  } else if (strcmp(name, "net") == 0 && st->cur_nic >= 0) {
    const char *sp = attr(an, av, "speed");
    guint64 v = sp ? g_ascii_strtoull(sp, NULL, 10) : 0;
    XNic *nic = &g_array_index(st->nic, XNic, st->cur_nic);
    nic->speed_mbps = MAX(nic->speed_mbps, v);
  }
  g_array_append_val(st->stack, mine);
}

static void xml_end(GMarkupParseContext *ctx, const char *name, gpointer data,
                    GError **error)
{
  XmlState *st = data;

  (void)ctx;
  (void)error;
  if (strcmp(name, "gpu") == 0)
    st->cur_gpu = -1;
  if (strcmp(name, "nic") == 0)
    st->cur_nic = -1;
  g_array_set_size(st->stack, st->stack->len - 1);
}

/* The leaf switch (nearest bridge above) and top switch (outermost bridge
 * under the cpu) of a device's PCI element. */
static void pci_switches(const XmlState *st, gint32 dev, gint32 *leaf,
                         gint32 *top)
{
  gint32 p = g_array_index(st->pci, XPci, dev).parent;

  *leaf = *top = -1;
  if (p < 0)
    return;
  *leaf = p;
  while (p >= 0) {
    *top = p;
    p = g_array_index(st->pci, XPci, p).parent;
  }
  if (*top == *leaf)
    *top = -1;
}

static gint32 index_of(GArray *ids, gint32 v)
{
  for (guint i = 0; i < ids->len; i++) {
    if (g_array_index(ids, gint32, i) == v)
      return (gint32)i;
  }
  g_array_append_val(ids, v);
  return (gint32)ids->len - 1;
}

static void free_xml_state(XmlState *st)
{
  for (guint i = 0; i < st->pci->len; i++)
    g_free(g_array_index(st->pci, XPci, i).busid);
  for (guint i = 0; i < st->gpu->len; i++) {
    GArray *t = g_array_index(st->gpu, XGpu, i).targets;
    for (guint j = 0; j < t->len; j++)
      g_free(g_array_index(t, XLink, j).target);
    g_array_free(t, TRUE);
  }
  g_array_free(st->pci, TRUE);
  g_array_free(st->gpu, TRUE);
  g_array_free(st->nic, TRUE);
  g_array_free(st->stack, TRUE);
}

static char *import_nccl_xml(const char *text, gsize len, const char *source,
                             const TopoImportOptions *opt, GError **error)
{
  GMarkupParser parser = {xml_start, xml_end, NULL, NULL, NULL};
  XmlState st = {.pci = g_array_new(FALSE, FALSE, sizeof(XPci)),
                 .gpu = g_array_new(FALSE, FALSE, sizeof(XGpu)),
                 .nic = g_array_new(FALSE, FALSE, sizeof(XNic)),
                 .stack = g_array_new(FALSE, FALSE, sizeof(gint32)),
                 .cur_gpu = -1,
                 .cur_nic = -1,
                 .source = source};
  GMarkupParseContext *ctx = g_markup_parse_context_new(
      &parser, G_MARKUP_TREAT_CDATA_AS_TEXT, &st, NULL);
  g_autoptr(GError) local = NULL;
  g_autoptr(ImportServer) s = NULL;
  g_autoptr(GArray) leaves = g_array_new(FALSE, FALSE, sizeof(gint32));
  g_autoptr(GArray) tops = g_array_new(FALSE, FALSE, sizeof(gint32));
  g_autoptr(GPtrArray) switch_ids = g_ptr_array_new();
  char *out = NULL;

  if (!g_markup_parse_context_parse(ctx, text, (gssize)len, &local) ||
      !g_markup_parse_context_end_parse(ctx, &local)) {
    if (local->domain == IMPORT_ERROR)
      g_propagate_error(error, g_steal_pointer(&local));
    else
      g_set_error(error, IMPORT_ERROR, MDL_ERROR_SYNTAX, "%s: %s", source,
                  local->message);
    goto done;
  }
  if (st.gpu->len == 0) {
    g_set_error(error, IMPORT_ERROR, MDL_ERROR_SYNTAX,
                "%s: no <gpu> element (minimal NCCL files without GPUs "
                "describe no server)",
                source);
    goto done;
  }
  s = import_server_new(st.gpu->len, st.nic->len);
  s->sockets = MAX(st.cpus, 1);
  {
    /* GPU model and PCIe generation from GPU 0 */
    const XGpu *g0 = &g_array_index(st.gpu, XGpu, 0);
    const XPci *p0 = &g_array_index(st.pci, XPci, g0->pci);
    guint32 gen = p0->gts >= 60 ? 6 : p0->gts >= 30 ? 5 : p0->gts >= 15 ? 4 : 3;
    guint32 width = p0->width ? p0->width : 16;
    g_snprintf(s->gpu_pcie_buf, sizeof s->gpu_pcie_buf, "pcie%u-x%u", gen,
               width);
    s->gpu_pcie = s->gpu_pcie_buf;
    s->pcie_switch = gen >= 5 ? "pex89000" : "pex88000";
    s->root_complex = gen >= 5 ? "root-complex-gen5" : "root-complex-gen4";
    note(s, "GPU PCIe link %s from link_speed %.1f GT/s, width %u", s->gpu_pcie,
         p0->gts, width);
    /* NVLink: targets of class NVSwitch, or GPU bus ids */
    if (g0->targets->len) {
      gboolean sw = g_array_index(g0->targets, XLink, 0).nvswitch;
      guint32 total = 0;
      s->nvlink = opt->nvlink     ? opt->nvlink
                  : g0->sm >= 100 ? "nvlink5"
                  : g0->sm >= 90  ? "nvlink4"
                                  : "nvlink3";
      note(s, "sm %u: %s", g0->sm, s->nvlink);
      for (guint i = 0; i < g0->targets->len; i++) {
        const XLink *l = &g_array_index(g0->targets, XLink, i);
        total += l->count;
        if (sw)
          g_string_append_printf(s->split, "%s%u", i ? "," : "", l->count);
      }
      s->nvlinks_per_gpu = total;
      if (sw) {
        s->nvswitches = g0->targets->len;
        s->nvswitch = !strcmp(s->nvlink, "nvlink5")   ? "nvswitch4"
                      : !strcmp(s->nvlink, "nvlink4") ? "nvswitch3"
                                                      : "nvswitch2";
      } else {
        for (guint a = 0; a < st.gpu->len; a++) {
          const XGpu *ga = &g_array_index(st.gpu, XGpu, a);
          for (guint i = 0; i < ga->targets->len; i++) {
            const XLink *l = &g_array_index(ga->targets, XLink, i);
            for (guint b = a + 1; b < st.gpu->len; b++) {
              const XPci *pb = &g_array_index(
                  st.pci, XPci, g_array_index(st.gpu, XGpu, b).pci);
              if (pb->busid && l->target &&
                  g_ascii_strcasecmp(pb->busid, l->target) == 0)
                g_string_append_printf(s->pairs, "%s%u-%u:%u",
                                       s->pairs->len ? "," : "", a, b,
                                       l->count);
            }
          }
        }
      }
    }
  }
  /* PCIe: leaf and top switches, sockets */
  for (guint i = 0; i < st.gpu->len + st.nic->len; i++) {
    gboolean gpu = i < st.gpu->len;
    gint32 dev = gpu ? g_array_index(st.gpu, XGpu, i).pci
                     : g_array_index(st.nic, XNic, i - st.gpu->len).pci;
    gint32 leaf, top, sw;
    guint32 sock;
    if (dev < 0) {
      g_set_error(error, IMPORT_ERROR, MDL_ERROR_SYNTAX,
                  "%s: a <nic> outside a <pci> element", source);
      goto done;
    }
    sock = g_array_index(st.pci, XPci, dev).cpu;
    pci_switches(&st, dev, &leaf, &top);
    sw = leaf >= 0 ? index_of(leaves, leaf) : -1;
    if (sw >= 0 && (guint)sw == leaves->len - 1)
      g_ptr_array_add(switch_ids, GINT_TO_POINTER(top));
    if (gpu) {
      s->gpu_sw[i] = sw;
      s->gpu_sock[i] = sock;
    } else {
      s->nic_sw[i - st.gpu->len] = sw;
      s->nic_sock[i - st.gpu->len] = sock;
    }
  }
  s->nsw = leaves->len;
  s->sw_top = g_new(gint32, MAX(s->nsw, 1));
  s->sw_sock = g_new0(guint32, MAX(s->nsw, 1));
  for (guint32 j = 0; j < s->nsw; j++) {
    gint32 top = GPOINTER_TO_INT(switch_ids->pdata[j]);
    s->sw_top[j] = top >= 0 ? index_of(tops, top) : -1;
    s->sw_sock[j] =
        g_array_index(st.pci, XPci, g_array_index(leaves, gint32, j)).cpu;
  }
  s->ntop = tops->len;
  s->top_sock = g_new0(guint32, MAX(s->ntop, 1));
  for (guint32 t = 0; t < s->ntop; t++)
    s->top_sock[t] =
        g_array_index(st.pci, XPci, g_array_index(tops, gint32, t)).cpu;
  /* NICs: model from the port speed (Mb/s) */
  if (st.nic->len) {
    guint64 speed = g_array_index(st.nic, XNic, 0).speed_mbps;
    s->nic = opt->nic ? opt->nic : speed >= 400000 ? "cx7-ndr" : "cx6-hdr";
    note(s, "NIC model %s from net speed %" G_GUINT64_FORMAT " Mb/s", s->nic,
         speed);
  }
  for (guint32 g = 0; g < s->gpus; g++) {
    for (guint32 n = 0; n < s->nics; n++) {
      guint32 c = 3;
      if (s->gpu_sw[g] >= 0 && s->gpu_sw[g] == s->nic_sw[n])
        c = 0;
      else if (s->gpu_sw[g] >= 0 && s->nic_sw[n] >= 0 &&
               s->sw_top[s->gpu_sw[g]] >= 0 &&
               s->sw_top[s->gpu_sw[g]] == s->sw_top[s->nic_sw[n]])
        c = 1;
      else if (s->gpu_sock[g] == s->nic_sock[n])
        c = 2;
      s->gpu_nic_class[g * s->nics + n] = c;
    }
  }
  pick_affinity(s);
  out = emit_server(s, source, "NCCL topology XML");
done:
  g_markup_parse_context_free(ctx);
  free_xml_state(&st);
  return out;
}

/* --- dispatch ----------------------------------------------------------------------- */

TopoImportFormat topo_import_detect(const char *text, gsize len)
{
  g_autofree char *head = g_strndup(text, MIN(len, 65536));

  if (strstr(head, "<system") || strstr(head, "<?xml"))
    return TOPO_IMPORT_NCCL_XML;
  if (strstr(head, "switchguid=") || strstr(head, "caguid="))
    return TOPO_IMPORT_IBNET;
  if (strstr(head, "GPU0"))
    return TOPO_IMPORT_SMI;
  return TOPO_IMPORT_AUTO;
}

char *topo_import_ibnet(const char *text, gsize len, const char *source,
                        const TopoImportOptions *opt, GError **error);

char *topo_import(const char *text, gsize len, const char *source,
                  TopoImportFormat format, const TopoImportOptions *opt,
                  GError **error)
{
  TopoImportOptions none = {0};

  if (!opt)
    opt = &none;
  if (!g_utf8_validate(text, (gssize)len, NULL) || memchr(text, 0, len)) {
    g_set_error(error, IMPORT_ERROR, MDL_ERROR_SYNTAX,
                "%s: not a text file (invalid UTF-8 or a NUL byte)", source);
    return NULL;
  }
  if (format == TOPO_IMPORT_AUTO)
    format = topo_import_detect(text, len);
  switch (format) {
  case TOPO_IMPORT_SMI: return import_smi(text, len, source, opt, error);
  case TOPO_IMPORT_NCCL_XML:
    return import_nccl_xml(text, len, source, opt, error);
  case TOPO_IMPORT_IBNET:
    return topo_import_ibnet(text, len, source, opt, error);
  default:
    g_set_error(error, IMPORT_ERROR, MDL_ERROR_SYNTAX,
                "%s: not a recognised dump (expected nvidia-smi topo -m "
                "output, NCCL topology XML or ibnetdiscover output)",
                source);
    return NULL;
  }
}
