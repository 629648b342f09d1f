/* Importers of nvidia-smi topo -m, NCCL topology XML and ibnetdiscover
 * dumps into system files; see topologies/import.h. */
#include "topologies/error.h"
#include "topologies/import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/params.h"
#include "sim/input.h"
#include "topologies/import_internal.h"

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
  gboolean no_p2p; /* the driver refuses P2P over PCIe (gpu_p2p = false) */
  /* the NICs as s->nic but with these ports, or without GPUDirect RDMA:
   * written as [nic imported-nic] */
  const char *nic_port_link;
  gboolean nic_no_gdr;
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

/* The GPUs' PCIe link of generation gen and its width, and the PCIe
 * switches and root complex of that generation (models/switches/pcie.ini;
 * Gen6 servers take Gen5 switches, the newest modelled). */
static void set_pcie(ImportServer *s, guint32 gen, guint32 width)
{
  g_snprintf(s->gpu_pcie_buf, sizeof s->gpu_pcie_buf, "pcie%u-x%u", gen, width);
  s->gpu_pcie = s->gpu_pcie_buf;
  s->pcie_switch = gen >= 5 ? "pex89000" : gen == 4 ? "pex88000" : "pex8796";
  s->root_complex = gen >= 5   ? "root-complex-gen5"
                    : gen == 4 ? "root-complex-gen4"
                               : "root-complex-gen3";
}

/* "pcie4-x16" -> 4 and 16; FALSE for other names. */
static gboolean pcie_gen_width(const char *link, guint32 *gen, guint32 *width)
{
  guint64 g, w;
  g_auto(GStrv) part = NULL;

  if (!link || !g_str_has_prefix(link, "pcie"))
    return FALSE;
  part = g_strsplit(link + 4, "-x", 2);
  if (!part[0] || !part[1] ||
      !g_ascii_string_to_unsigned(part[0], 10, 3, 6, &g, NULL) ||
      !g_ascii_string_to_unsigned(part[1], 10, 1, 32, &w, NULL))
    return FALSE;
  *gen = (guint32)g;
  *width = (guint32)w;
  return TRUE;
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

static char *emit_server(const ImportServer *s, const char *path,
                         const char *what)
{
  GString *o = g_string_new(NULL);
  /* the file's name, not where it was: outputs carry no paths */
  g_autofree char *source = g_path_get_basename(path);

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
  if (s->no_p2p)
    g_string_append(o, "gpu_p2p = false\n");
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
    gboolean own = s->nic_port_link || s->nic_no_gdr;
    g_string_append_printf(o, "nic = %s\nnics = %u\n",
                           own ? "imported-nic" : s->nic, s->nics);
    append_list(o, "nic_socket", s->nic_sock, s->nics, FALSE);
    append_list(o, "nic_affinity", s->affinity, s->gpus, FALSE);
    if (own) {
      g_string_append_printf(o, "\n[nic imported-nic]\nbased_on = %s\n",
                             s->nic);
      if (s->nic_port_link)
        g_string_append_printf(o, "port_link = %s\n", s->nic_port_link);
      if (s->nic_no_gdr)
        g_string_append(o, "gpudirect = false\n");
    }
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

/* The header's columns after the devices, in nvidia-smi's order. */
static const char *const smi_columns[] = {"CPU Affinity", "NUMA Affinity",
                                          "GPU NUMA ID"};

#define SMI_MAX_DEVICES 256 /* GPUs and NICs in one dump */

/* The smi_columns index of the header's words from w on (*words: how many
 * it takes), or G_N_ELEMENTS(smi_columns) when none matches. */
static guint smi_column(char **header, guint w, guint *words)
{
  for (guint k = 0; k < G_N_ELEMENTS(smi_columns); k++) {
    g_auto(GStrv) cw = g_strsplit(smi_columns[k], " ", -1);
    guint m = 0;
    while (cw[m] && header[w + m] && strcmp(cw[m], header[w + m]) == 0)
      m++;
    if (!cw[m]) {
      *words = m;
      return k;
    }
  }
  *words = 1;
  return G_N_ELEMENTS(smi_columns);
}

/* "0-23,96-119", "5" or "N/A" */
/* A CPU list as the kernel writes one ("0-23,96-119"): CPU numbers below
 * 2^20 (Linux's NR_CPUS tops out at 8192), each range ascending. */
#define SMI_MAX_CPU (1u << 20)

static gboolean cpu_number(const char **s, guint64 *out)
{
  const char *p = *s;
  char *end;

  if (!g_ascii_isdigit(*p))
    return FALSE;
  *out = g_ascii_strtoull(p, &end, 10);
  *s = end;
  return end - p <= 7 && *out < SMI_MAX_CPU;
}

static gboolean is_cpu_list(const char *s)
{
  if (strcmp(s, "N/A") == 0)
    return TRUE;
  for (;;) {
    guint64 lo, hi;

    if (!cpu_number(&s, &lo))
      return FALSE;
    if (*s == '-') {
      s++;
      if (!cpu_number(&s, &hi) || hi < lo)
        return FALSE;
    }
    if (!*s)
      return TRUE;
    if (*s++ != ',')
      return FALSE;
  }
}

/* A relation as nvidia-smi prints it. */
static void rel_text(guint32 rel, guint32 nv, char out[16])
{
  static const char *const names[] = {"X",   "NV",   "PIX", "PXB",
                                      "PHB", "NODE", "SYS"};

  if (rel == REL_NV)
    g_snprintf(out, 16, "NV%u", nv);
  else
    g_strlcpy(out, names[rel], 16);
}

static char *import_smi(const char *text, gsize len, const char *source,
                        const TopoImportOptions *opt, GError **error)
{
  g_autoptr(GRegex) ansi = g_regex_new("\x1b\\[[0-9;]*m", 0, 0, NULL);
  g_autofree char *clean =
      g_regex_replace_literal(ansi, text, (gssize)len, 0, "", 0, NULL);
  g_autofree char **lines =
      clean ? sim_input_lines(clean, strlen(clean), source, NULL, error) : NULL;
  g_auto(GStrv) header = NULL;
  g_autoptr(ImportServer) s = NULL;
  g_autofree guint32 *rel = NULL, *nvc = NULL, *parent = NULL;
  g_autofree gint32 *numa = NULL, *cls = NULL;
  g_autofree gint32 *dev_index = NULL;
  g_autofree gboolean *is_gpu = NULL, *keep = NULL;
  g_autofree guint *row_line = NULL, *legend_line = NULL;
  guint32 n = 0, gpus = 0, nics = 0, hline = 0, ncolumns = 0;
  guint columns[G_N_ELEMENTS(smi_columns)];
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);

  if (!clean)
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                "%s: not UTF-8 text: expected nvidia-smi topo -m output",
                source);
  if (!lines)
    return NULL;
  for (guint i = 0; lines[i]; i++) {
    g_auto(GStrv) t = mdl_split_words(lines[i]);
    if (t[0] && strcmp(t[0], "GPU0") == 0 && !header) {
      header = g_steal_pointer(&t);
      hline = i;
      break;
    }
  }
  if (!header) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                "%s: no header line starting with GPU0 (is this nvidia-smi "
                "topo -m output?)",
                source);
    return NULL;
  }
  while (header[n] && strcmp(header[n], "CPU") != 0 &&
         strcmp(header[n], "NUMA") != 0)
    n++;
  if (n > SMI_MAX_DEVICES) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_VALUE,
                "%s:%u: %u devices in the header (expected at most %u)", source,
                hline + 1, n, SMI_MAX_DEVICES);
    return NULL;
  }
  for (guint w = n, words = 0; header[w]; w += words) {
    guint k = smi_column(header, w, &words);
    g_autofree char *x = topo_import_excerpt(header[w]);
    for (guint j = 0; j < ncolumns; j++)
      k = columns[j] == k ? G_N_ELEMENTS(smi_columns) : k;
    if (k == G_N_ELEMENTS(smi_columns)) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                  "%s:%u: unknown or repeated column '%s' in the header "
                  "(expected the devices, then CPU Affinity, NUMA Affinity, "
                  "GPU NUMA ID)",
                  source, hline + 1, x);
      return NULL;
    }
    columns[ncolumns++] = k;
  }
  rel = g_new0(guint32, n * n);
  nvc = g_new0(guint32, n * n);
  numa = g_new(gint32, n);
  row_line = g_new0(guint, n);
  is_gpu = g_new0(gboolean, n);
  dev_index = g_new(gint32, n);
  for (guint32 i = 0; i < n; i++) {
    g_autofree char *x = topo_import_excerpt(header[i]);
    g_autofree char *want = NULL;

    is_gpu[i] = g_str_has_prefix(header[i], "GPU");
    want = g_strdup_printf("%s%u", is_gpu[i] ? "GPU" : "NIC",
                           is_gpu[i] ? gpus : nics);
    for (guint32 j = 0; j < i; j++) {
      if (strcmp(header[i], header[j]) == 0) {
        g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                    "%s:%u: '%s' is twice in the header (columns %u and %u)",
                    source, hline + 1, x, j + 1, i + 1);
        return NULL;
      }
    }
    /* NICs too: a NIC's number names its legend line, "NIC0: mlx5_0" */
    if ((is_gpu[i] || g_str_has_prefix(header[i], "NIC")) &&
        strcmp(header[i], want) != 0) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                  "%s:%u: header column '%s' (expected %s: %ss are "
                  "numbered in order)",
                  source, hline + 1, x, want, is_gpu[i] ? "GPU" : "NIC");
      return NULL;
    }
    dev_index[i] = (gint32)(is_gpu[i] ? gpus++ : nics++);
    numa[i] = -1;
  }
  for (guint li = hline + 1; lines[li]; li++) {
    g_auto(GStrv) t = mdl_split_words(lines[li]);
    guint32 row = n, count = t ? g_strv_length(t) : 0;
    g_autofree char *x = NULL;
    if (count == 0)
      continue;
    if (g_str_has_prefix(t[0], "Legend"))
      break;
    for (guint32 i = 0; i < n; i++) {
      if (strcmp(t[0], header[i]) == 0)
        row = i;
    }
    x = topo_import_excerpt(t[0]);
    if (row == n) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                  "%s:%u: '%s' is not a device of the header on line %u "
                  "(expected a row of the matrix, or Legend:)",
                  source, li + 1, x, hline + 1);
      return NULL;
    }
    if (row_line[row]) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                  "%s:%u: a second row for %s (the first is on line %u)",
                  source, li + 1, x, row_line[row]);
      return NULL;
    }
    if (count < n + 1 || count > n + 1 + ncolumns) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                  count < n + 1 ? "%s:%u: row %s has %u cells (expected %u)"
                                : "%s:%u: row %s has %u cells (expected %u "
                                  "and at most %u affinity columns)",
                  source, li + 1, x, count - 1, n, ncolumns);
      return NULL;
    }
    for (guint32 c = 0; c < n; c++) {
      guint32 r, v;
      g_autofree char *cell = topo_import_excerpt(t[c + 1]);
      const char *what = NULL;
      if (!parse_rel(t[c + 1], &r, &v))
        what = g_str_has_prefix(cell, "NV")
                   ? "is not NV# with # from 1 to 64"
                   : "is not X (diagonal), NV#, PIX, PXB, PHB, NODE or SYS";
      else if (r == REL_X && c != row)
        what = "(self) is off the diagonal";
      else if (r != REL_X && c == row)
        what = "is on the diagonal (expected X)";
      else if (r == REL_NV && (!is_gpu[row] || !is_gpu[c]))
        what = "(NVLink) joins a NIC (expected PIX, PXB, PHB, NODE or SYS)";
      if (what) {
        g_set_error(error, TOPO_ERROR, TOPO_ERROR_VALUE,
                    "%s:%u: %s/%s: '%s' %s", source, li + 1, x, header[c], cell,
                    what);
        return NULL;
      }
      rel[row * n + c] = r;
      nvc[row * n + c] = v;
    }
    /* CPU Affinity (a CPU list), NUMA Affinity and GPU NUMA ID (a node) */
    for (guint32 j = 0; j + n + 1 < count; j++) {
      const char *v = t[n + 1 + j];
      gint64 node = -1;
      gboolean ok =
          columns[j] == 0
              ? is_cpu_list(v)
              : strcmp(v, "N/A") == 0 ||
                    g_ascii_string_to_signed(v, 10, 0, 1023, &node, NULL);
      if (!ok) {
        g_autofree char *cell = topo_import_excerpt(v);
        g_set_error(error, TOPO_ERROR, TOPO_ERROR_VALUE,
                    "%s:%u: %s %s '%s' is not %s or N/A", source, li + 1, x,
                    smi_columns[columns[j]], cell,
                    columns[j] == 0 ? "a CPU list such as 0-23,96-119"
                                    : "a NUMA node from 0 to 1023");
        return NULL;
      }
      if (columns[j] == 1)
        numa[row] = (gint32)node;
    }
    row_line[row] = li + 1;
  }
  for (guint32 i = 0; i < n; i++) {
    if (!row_line[i]) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                  "%s:%u: no row for %s, which this header names (truncated "
                  "dump?)",
                  source, hline + 1, header[i]);
      return NULL;
    }
  }
  for (guint32 a = 0; a < n; a++) {
    for (guint32 b = a + 1; b < n; b++) {
      char ab[16], ba[16];
      if (rel[a * n + b] == rel[b * n + a] && nvc[a * n + b] == nvc[b * n + a])
        continue;
      rel_text(rel[a * n + b], nvc[a * n + b], ab);
      rel_text(rel[b * n + a], nvc[b * n + a], ba);
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                  "%s:%u: %s/%s is '%s' but %s/%s on line %u is '%s' "
                  "(expected a symmetric matrix)",
                  source, row_line[b], header[b], header[a], ba, header[a],
                  header[b], row_line[a], ab);
      return NULL;
    }
  }
  if (gpus == 0) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX, "%s: no GPU", source);
    return NULL;
  }
  /* NIC legend: "NIC0: mlx5_0" */
  legend_line = g_new0(guint, n);
  for (guint li = hline + 1; lines[li]; li++) {
    char *l = g_strchug(lines[li]);
    char *p = strstr(l, ": ");
    g_autofree char *key = NULL, *x = NULL;
    guint32 i;
    if (!p || !g_str_has_prefix(l, "NIC") || memchr(l, ' ', (gsize)(p - l)))
      continue;
    key = g_strndup(l, (gsize)(p - l));
    x = topo_import_excerpt(key);
    for (i = 0; i < n && (is_gpu[i] || strcmp(header[i], key) != 0); i++)
      ;
    if (i == n || legend_line[i]) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                  i == n ? "%s:%u: the NIC legend names %s, which the header "
                           "on line %u does not"
                         : "%s:%u: a second legend entry for %s (the first "
                           "is on line %u)",
                  source, li + 1, x, i == n ? hline + 1 : legend_line[i]);
      return NULL;
    }
    if (!*g_strstrip(p + 2)) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                  "%s:%u: no device name after %s: (expected NIC#: NAME, "
                  "such as NIC0: mlx5_0)",
                  source, li + 1, x);
      return NULL;
    }
    /* two NICs of one name are one device listed twice: a dump edited by
     * hand, or two machines' legends pasted together */
    for (guint k = 0; k < names->len; k++) {
      if (strcmp(names->pdata[k], p + 2) == 0) {
        g_autofree char *d = topo_import_excerpt(p + 2);

        g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                    "%s:%u: %s is named %s, as an earlier NIC of the legend "
                    "is: expected a device name once",
                    source, li + 1, x, d);
        return NULL;
      }
    }
    legend_line[i] = li + 1;
    g_ptr_array_add(names, g_strdup(p + 2));
  }
  s = import_server_new(gpus, nics);
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

  /* What topo -m does not say: the PCIe generation and the NICs' speed.
   * Given, else from the GPU its NVLink count names (NV12: A100, PCIe Gen4
   * and HDR as in the DGX A100; NV18: H100/H200, Gen5 and NDR as in the
   * DGX H100), else assumed and said so: never the newest silently. */
  {
    gboolean a100 = strcmp(s->nvlink, "nvlink3") == 0 && s->nvswitches == 6;
    gboolean h100 = strcmp(s->nvswitch, "nvswitch3") == 0 &&
                    strcmp(s->nvlink, "nvlink4") == 0 && s->nvswitches == 4;
    gboolean b200 = strcmp(s->nvlink, "nvlink5") == 0;
    guint32 gen, width;

    if (opt->pcie && pcie_gen_width(opt->pcie, &gen, &width)) {
      set_pcie(s, gen, width);
      note(s, "GPUs on %s (given), PCIe switches %s, root complex %s",
           s->gpu_pcie, s->pcie_switch, s->root_complex);
    } else if (a100 || h100 || b200) {
      set_pcie(s, a100 ? 4 : 5, 16); /* B200's host link is Gen5 too */
      note(s, "GPUs on %s as the %s's, PCIe switches %s, root complex %s",
           s->gpu_pcie,
           a100   ? "A100"
           : b200 ? "B200"
                  : "H100",
           s->pcie_switch, s->root_complex);
    } else {
      set_pcie(s, 5, 16);
      note(s,
           "ASSUMED: GPUs on %s (the dump does not say the PCIe "
           "generation, nor NVLink the GPU): give --import-pcie "
           "(pcie3-x16 for Volta and Turing, pcie4-x16 for Ampere and "
           "Ada, pcie5-x16 for Hopper)",
           s->gpu_pcie);
    }
    if (nics && opt->nic) {
      s->nic = opt->nic;
      note(s, "NIC model %s (given)", s->nic);
    } else if (nics && (a100 || h100 || b200)) {
      s->nic = a100 ? "cx6-hdr" : "cx7-ndr";
      note(s,
           "NIC model %s as the DGX %s's (the dump does not give NIC "
           "speeds; --import-nic sets another)",
           s->nic,
           a100   ? "A100"
           : b200 ? "B200"
                  : "H100");
    } else if (nics) {
      s->nic = "cx7-ndr";
      note(s,
           "ASSUMED: NIC model %s (the dump does not give NIC speeds, "
           "nor NVLink the GPU): give --import-nic",
           s->nic);
    }
  }

  /* Whether the driver lets GPUs reach each other over PCIe, which topo
   * -m does not say (topo -p2p r does: NS on GeForce cards and many VMs;
   * NCCL then stages through host memory).  It matters where GPUs are not
   * all joined by NVSwitches. */
  if (gpus > 1 && s->nvswitches == 0) {
    if (opt->p2p && strcmp(opt->p2p, "no") == 0) {
      s->no_p2p = TRUE;
      note(s, "no P2P between GPUs over PCIe (given): NCCL stages their "
              "traffic through host memory");
    } else if (opt->p2p) {
      note(s, "P2P between GPUs over PCIe (given)");
    } else {
      note(s, "ASSUMED: the driver allows P2P between GPUs over PCIe (the "
              "dump does not say; nvidia-smi topo -p2p r does): give "
              "--import-p2p no where it shows NS (GeForce cards, many VMs)");
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
  /* What topo -m separates by SYS is a NUMA domain: a socket, or a part
   * of one (AMD NPS2/NPS4, Intel SNC: nvidia-smi prints SYS between them
   * too).  Domains group into sockets, in the order of their NUMA ids
   * (Linux numbers a socket's domains together), as given; else, for an
   * NVSwitch board (every HGX design has two CPU sockets), into two,
   * said. */
  if (s->sockets > 1 && (opt->sockets || (s->sockets > 2 && s->nvswitches &&
                                          !(s->sockets % 2)))) {
    guint32 want = opt->sockets ? opt->sockets : 2, d = s->sockets;
    g_autofree gint32 *first_numa = g_new(gint32, d);
    g_autofree guint32 *order = g_new(guint32, d);
    g_autofree guint32 *to = g_new(guint32, d);

    if (d % want) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_VALUE,
                  "%s: --import-sockets %u: the dump's %u NUMA domains "
                  "(devices apart by SYS) do not split evenly into %u "
                  "sockets",
                  source, want, d, want);
      return NULL;
    }
    for (guint32 k = 0; k < d; k++)
      first_numa[k] = G_MAXINT32;
    for (guint32 i = 0; i < n; i++) {
      gint32 v = numa[i] >= 0 ? numa[i] : G_MAXINT32 - 1;
      first_numa[cls[i]] = MIN(first_numa[cls[i]], v);
    }
    /* domains by their lowest NUMA id (stable: the first seen first) */
    for (guint32 k = 0; k < d; k++) {
      guint32 j = k;
      while (j > 0 && first_numa[order[j - 1]] > first_numa[k]) {
        order[j] = order[j - 1];
        j--;
      }
      order[j] = k;
    }
    for (guint32 j = 0; j < d; j++)
      to[order[j]] = j / (d / want);
    for (guint32 i = 0; i < n; i++)
      cls[i] = (gint32)to[cls[i]];
    if (opt->sockets)
      note(s, "%u NUMA domains (devices apart by SYS) on %u sockets (given)", d,
           want);
    else
      note(s,
           "ASSUMED: the %u NUMA domains (devices apart by SYS; AMD NPS4 "
           "or Intel SNC splits a socket so) are on 2 CPU sockets, as on "
           "every HGX board: give --import-sockets N",
           d);
    s->sockets = want;
  }
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
  guint32 cpu, line;
  gboolean bridge;
  gboolean display; /* class 0x0300 (VGA) or 0x0302 (3D): a GPU's */
  gboolean network; /* class 0x02: a NIC's (0x0207 InfiniBand) */
  gboolean infiniband;
  char *busid;
  double gts;
  guint32 width;
} XPci;

typedef struct {
  gint32 pci;
  guint32 sm, line;
  guint32 self_line; /* an <nvlink> to the GPU's own bus id, ignored */
  GArray *targets;   /* XLink */
} XGpu;

typedef struct {
  char *target;
  guint32 count, line;
  gboolean nvswitch;
} XLink;

typedef struct {
  gint32 pci;  /* -1: directly in a <cpu> */
  guint32 cpu; /* the <cpu> of one directly in it */
  guint64 speed_mbps;
  guint32 line, nets;
  gboolean no_gdr;    /* a <net gdr="0">: no GPUDirect RDMA */
  gboolean interface; /* a <net> named as an IP interface (eth0, ens1):
                         NCCL's socket transport, Ethernet */
} XNic;

/* The elements of NCCL's topology XML (src/graph/xml.cc, topo.cc @5067397c
 * and later): where each may sit, and every attribute NCCL writes on it. */
enum {
  X_SYSTEM,
  X_CPU,
  X_PCI,
  X_GPU,
  X_NVLINK,
  X_C2C,
  X_NIC,
  X_NET,
  X_GIN,
  X_RMA,
  X_PCILINK,
  X_KINDS
};
#define XNET_ATTRS                                                             \
  "name dev speed port latency guid maxconn gdr coll rail plane net gin rma "  \
  "keep"
static const struct {
  const char *name;
  guint parents; /* mask of kinds; 0: the root */
  const char *attrs;
} xml_kinds[X_KINDS] = {
    [X_SYSTEM] = {"system", 0, "version name"},
    [X_CPU] = {"cpu", 1u << X_SYSTEM,
               "numaid affinity arch vendor familyid modelid host_hash"},
    [X_PCI] = {"pci", 1u << X_CPU | 1u << X_PCI,
               "busid class vendor device subsystem_vendor subsystem_device "
               "link_speed link_width"},
    [X_GPU] = {"gpu", 1u << X_PCI, "dev sm rank gdr mlopart keep"},
    [X_NVLINK] = {"nvlink", 1u << X_GPU, "target count tclass"},
    [X_C2C] = {"c2c", 1u << X_GPU, "bw count"},
    [X_NIC] = {"nic", 1u << X_CPU | 1u << X_PCI, ""},
    [X_NET] = {"net", 1u << X_NIC, XNET_ATTRS},
    [X_GIN] = {"gin", 1u << X_NIC, XNET_ATTRS},
    [X_RMA] = {"rma", 1u << X_NIC, XNET_ATTRS},
    [X_PCILINK] = {"pcilink", 1u << X_PCI, "target"},
};

typedef struct {
  GArray *pci, *gpu, *nic;
  GArray *stack;    /* gint32: pci index at each open element, -1 if not */
  GArray *kinds;    /* guint: X_* of each open element */
  GHashTable *seen; /* "<gpu dev=\"0\">" and such -> line (duplicates) */
  gboolean root;    /* <system> was opened */
  char *host;       /* host_hash of the first <cpu> that has one */
  int host_line;
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

/* The names of the kinds in mask, for "expected inside ..." */
static char *kind_names(guint mask)
{
  GString *s = g_string_new(NULL);

  for (guint k = 0; k < X_KINDS; k++) {
    if (mask & (1u << k))
      g_string_append_printf(s, "%s<%s>", s->len ? " or " : "",
                             xml_kinds[k].name);
  }
  return g_string_free(s, FALSE);
}

/* FALSE with an error when <elem key="v"> was seen before; else notes it. */
static gboolean xml_once(XmlState *st, int line, const char *elem,
                         const char *key, const char *v, GError **error)
{
  g_autofree char *x = topo_import_excerpt(v);
  char *what = g_strdup_printf("<%s %s=\"%s\">", elem, key, x);
  gpointer first = g_hash_table_lookup(st->seen, what);

  if (first) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                "%s:%d: a second %s (the first is on line %d)", st->source,
                line, what, GPOINTER_TO_INT(first));
    g_free(what);
    return FALSE;
  }
  g_hash_table_insert(st->seen, what, GINT_TO_POINTER(line));
  return TRUE;
}

/* The error for <elem key="v">: expected `want`. */
static void xml_bad_value(const XmlState *st, int line, const char *elem,
                          const char *key, const char *v, const char *want,
                          GError **error)
{
  g_autofree char *x = topo_import_excerpt(v);

  g_set_error(error, TOPO_ERROR, TOPO_ERROR_VALUE,
              "%s:%d: <%s %s=\"%s\">: expected %s", st->source, line, elem, key,
              x, want);
}

/* A whole number in [min, max] from attribute key of elem. */
static gboolean xml_number(const XmlState *st, int line, const char *elem,
                           const char *key, const char *v, gint64 min,
                           gint64 max, const char *unit, gint64 *out,
                           GError **error)
{
  g_autofree char *want = NULL;

  if (g_ascii_string_to_signed(v, 10, min, max, out, NULL))
    return TRUE;
  want = g_strdup_printf("a whole number%s from %" G_GINT64_FORMAT
                         " to %" G_GINT64_FORMAT,
                         unit, min, max);
  xml_bad_value(st, line, elem, key, v, want, error);
  return FALSE;
}

/* link_speed as NCCL writes it (kvDictPciGen): "32.0 GT/s PCIe",
 * "16 GT/s", or "" and "Unknown" when sysfs did not say (*gts = 0). */
static gboolean pci_gts(const char *v, double *gts)
{
  static const double rates[] = {2.5, 5, 8, 16, 32, 64};
  char *end;

  *gts = 0;
  if (!*v || g_str_has_prefix(v, "Unknown"))
    return TRUE;
  *gts = g_ascii_strtod(v, &end);
  if (end == v || (strcmp(end, " GT/s") && strcmp(end, " GT/s PCIe")))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS(rates); i++) {
    if (*gts == rates[i])
      return TRUE;
  }
  return FALSE;
}

/* "0x068000": a PCI class code, 2 to 6 hex digits after 0x */
static gboolean is_pci_class(const char *v)
{
  gsize n = strlen(v);

  if (n < 4 || n > 8 || v[0] != '0' || (v[1] != 'x' && v[1] != 'X'))
    return FALSE;
  for (const char *p = v + 2; *p; p++) {
    if (!g_ascii_isxdigit(*p))
      return FALSE;
  }
  return TRUE;
}

/* "0000:13:00.0": domain, bus, device, function in hex */
static gboolean is_busid(const char *v)
{
  const char *p = v;
  guint d = 0;

  while (g_ascii_isxdigit(*p))
    p++, d++;
  if (d < 4 || d > 8 || *p != ':')
    return FALSE;
  return g_ascii_isxdigit(p[1]) && g_ascii_isxdigit(p[2]) && p[3] == ':' &&
         g_ascii_isxdigit(p[4]) && g_ascii_isxdigit(p[5]) && p[6] == '.' &&
         g_ascii_isxdigit(p[7]) && !p[8];
}

/* The element and its attributes: known, each once, where NCCL puts them. */
static gboolean xml_check(XmlState *st, int line, guint kind, const char **an,
                          GError **error)
{
  guint parent = st->kinds->len
                     ? g_array_index(st->kinds, guint, st->kinds->len - 1)
                     : X_KINDS;
  g_auto(GStrv) known = g_strsplit(xml_kinds[kind].attrs, " ", -1);
  const char *name = xml_kinds[kind].name;

  if (parent == X_KINDS && (kind != X_SYSTEM || st->root)) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                "%s:%d: <%s> at the top (expected one <system version=\"1\"> "
                "holding everything)",
                st->source, line, name);
    return FALSE;
  }
  if (parent != X_KINDS && !(xml_kinds[kind].parents & (1u << parent))) {
    g_autofree char *where = kind_names(xml_kinds[kind].parents);
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                "%s:%d: <%s> inside <%s> (expected inside %s)", st->source,
                line, name, xml_kinds[parent].name, where);
    return FALSE;
  }
  for (guint i = 0; an[i]; i++) {
    g_autofree char *x = topo_import_excerpt(an[i]);
    if (!g_strv_contains((const char *const *)known, an[i])) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                  "%s:%d: <%s>: unknown attribute '%s' (expected %s%s)",
                  st->source, line, name, x, known[0] ? "one of: " : "none",
                  xml_kinds[kind].attrs);
      return FALSE;
    }
    for (guint j = 0; j < i; j++) {
      if (strcmp(an[i], an[j]) == 0) {
        g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                    "%s:%d: <%s>: attribute '%s' given twice", st->source, line,
                    name, x);
        return FALSE;
      }
    }
  }
  return TRUE;
}

/* The line of the markup just parsed.  GMarkup's position is one character
 * past it: at column 1 of the next line when that character is a newline. */
static int xml_line(GMarkupParseContext *ctx)
{
  int line, col;

  g_markup_parse_context_get_position(ctx, &line, &col);
  return col == 1 && line > 1 ? line - 1 : line;
}

static void xml_start(GMarkupParseContext *ctx, const char *name,
                      const char **an, const char **av, gpointer data,
                      GError **error)
{
  XmlState *st = data;
  gint32 mine = -1;
  int line = xml_line(ctx);
  guint kind;

  for (kind = 0; kind < X_KINDS && strcmp(name, xml_kinds[kind].name); kind++)
    ;
  if (kind == X_KINDS) {
    g_autofree char *x = topo_import_excerpt(name);
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                "%s:%d: unknown element <%s> (expected system, cpu, pci, gpu, "
                "nvlink, c2c, nic, net, gin, rma or pcilink)",
                st->source, line, x);
    return;
  }
  if (!xml_check(st, line, kind, an, error))
    return;
  if (kind == X_SYSTEM) {
    const char *v = attr(an, av, "version");
    if (!v || strcmp(v, "1") != 0) {
      g_autofree char *x = topo_import_excerpt(v ? v : "");
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_VALUE,
                  "%s:%d: <system version=\"%s\">: XML Topology has wrong "
                  "version (expected 1)",
                  st->source, line, x);
      return;
    }
    st->root = TRUE;
  } else if (kind == X_CPU) {
    const char *numa = attr(an, av, "numaid"),
               *hash = attr(an, av, "host_hash");
    gint64 v;
    if (hash && st->host && strcmp(hash, st->host) != 0) {
      g_autofree char *x = topo_import_excerpt(hash);
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                  "%s:%d: <cpu host_hash=\"%s\"> is another host than the "
                  "<cpu> on line %d (expected the dump of one server)",
                  st->source, line, x, st->host_line);
      return;
    }
    if (hash && !st->host) {
      st->host = g_strdup(hash);
      st->host_line = line;
    }
    if (numa && (!xml_number(st, line, "cpu", "numaid", numa, -1, 1023, "", &v,
                             error) ||
                 !xml_once(st, line, "cpu", "numaid", numa, error)))
      return;
    st->cpus++;
  } else if (kind == X_PCI) {
    XPci p = {.parent = enclosing_pci(st), .cpu = st->cpus ? st->cpus - 1 : 0};
    const char *cls = attr(an, av, "class"), *busid = attr(an, av, "busid");
    const char *speed = attr(an, av, "link_speed");
    const char *width = attr(an, av, "link_width");
    const char *bad = NULL, *v = NULL, *want = NULL;
    gint64 w = 0;
    if (busid && !is_busid(busid))
      bad = "busid", v = busid, want = "a bus id such as 0000:13:00.0";
    else if (cls && !is_pci_class(cls))
      bad = "class", v = cls, want = "a PCI class such as 0x060400";
    else if (speed && !pci_gts(speed, &p.gts))
      bad = "link_speed", v = speed,
      want = "2.5, 5.0, 8.0, 16.0, 32.0 or 64.0 GT/s (PCIe), or empty";
    else if (width && *width &&
             (!g_ascii_string_to_signed(width, 10, 0, 32, &w, NULL) ||
              (w & (w - 1) && w != 12)))
      bad = "link_width", v = width,
      want = "0 (unknown), 1, 2, 4, 8, 12, 16 or 32 lanes, or empty";
    if (bad) {
      xml_bad_value(st, line, "pci", bad, v, want, error);
      return;
    }
    if (busid && !xml_once(st, line, "pci", "busid", busid, error))
      return;
    p.bridge = cls && g_ascii_strcasecmp(cls, "0x060400") == 0;
    /* NCCL's kvDictPciClass (topo.cc): 0x03 a GPU, 0x02 a NIC */
    p.display = cls && (g_ascii_strncasecmp(cls, "0x0300", 6) == 0 ||
                        g_ascii_strncasecmp(cls, "0x0302", 6) == 0);
    p.network = cls && g_ascii_strncasecmp(cls, "0x02", 4) == 0;
    p.infiniband = cls && g_ascii_strncasecmp(cls, "0x0207", 6) == 0;
    p.line = (guint32)line;
    p.busid = g_strdup(busid);
    p.width = (guint32)w;
    if (p.parent >= 0)
      g_array_index(st->pci, XPci, p.parent).bridge = TRUE;
    g_array_append_val(st->pci, p);
    mine = (gint32)st->pci->len - 1;
  } else if (kind == X_GPU) {
    XGpu g = {.pci = enclosing_pci(st), .line = (guint32)line};
    const char *sm = attr(an, av, "sm"), *dev = attr(an, av, "dev"),
               *rank = attr(an, av, "rank");
    gint64 v = 0;
    /* rank: NCCL's rank of the GPU, read only as a check (ranks below
     * 2^24, ifsim's most) */
    if ((sm && !xml_number(st, line, "gpu", "sm", sm, 30, 200,
                           " (compute capability x10)", &v, error)) ||
        (dev &&
         !xml_number(st, line, "gpu", "dev", dev, 0, 1023, "", &v, error)) ||
        (dev && !xml_once(st, line, "gpu", "dev", dev, error)) ||
        (rank && !xml_number(st, line, "gpu", "rank", rank, 0, (1 << 24) - 1,
                             "", &v, error)))
      return;
    g.sm = sm ? (guint32)g_ascii_strtoull(sm, NULL, 10) : 0;
    g.targets = g_array_new(FALSE, FALSE, sizeof(XLink));
    g_array_append_val(st->gpu, g);
    st->cur_gpu = (gint32)st->gpu->len - 1;
  } else if (kind == X_NVLINK) {
    const char *cnt = attr(an, av, "count"), *tc = attr(an, av, "tclass");
    const char *target = attr(an, av, "target");
    GArray *links = g_array_index(st->gpu, XGpu, st->cur_gpu).targets;
    XLink l = {.line = (guint32)line};
    gint64 v;
    if (!target || !*target || !cnt || !tc) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                  "%s:%d: <nvlink> without %s (expected target, count and "
                  "tclass)",
                  st->source, line,
                  !target || !*target ? "a target"
                  : !cnt              ? "count"
                                      : "tclass");
      return;
    }
    if (!xml_number(st, line, "nvlink", "count", cnt, 1, 64, "", &v, error))
      return;
    if (!is_pci_class(tc)) {
      xml_bad_value(st, line, "nvlink", "tclass", tc,
                    "a PCI class such as 0x068000 (NVSwitch)", error);
      return;
    }
    for (guint i = 0; i < links->len; i++) {
      const XLink *o = &g_array_index(links, XLink, i);
      if (g_ascii_strcasecmp(o->target, target) == 0) {
        g_autofree char *x = topo_import_excerpt(target);
        g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                    "%s:%d: a second <nvlink target=\"%s\"> in this <gpu> "
                    "(the first is on line %u)",
                    st->source, line, x, o->line);
        return;
      }
    }
    {
      XGpu *g = &g_array_index(st->gpu, XGpu, st->cur_gpu);
      const char *own =
          g->pci >= 0 ? g_array_index(st->pci, XPci, g->pci).busid : NULL;
      if (own && g_ascii_strcasecmp(own, target) == 0) {
        /* NCCL links the GPU to itself (ncclTopoAddNvLinks): it joins
         * no two GPUs (Azure's NCv4 file lists one) */
        g->self_line = (guint32)line;
        goto opened;
      }
    }
    l.target = g_strdup(target);
    l.count = (guint32)v;
    l.nvswitch = g_ascii_strcasecmp(tc, "0x068000") == 0;
    g_array_append_val(links, l);
  } else if (kind == X_NIC) {
    /* directly in a <cpu>, NCCL joins it to the CPU (ncclTopoAddCpu):
     * here, to the socket's root complex */
    XNic nic = {.pci = enclosing_pci(st),
                .cpu = st->cpus ? st->cpus - 1 : 0,
                .line = (guint32)line};
    g_array_append_val(st->nic, nic);
    st->cur_nic = (gint32)st->nic->len - 1;
  } else if (kind == X_NET) {
    const char *sp = attr(an, av, "speed"), *dev = attr(an, av, "dev");
    const char *nm = attr(an, av, "name");
    XNic *nic = &g_array_index(st->nic, XNic, st->cur_nic);
    gint64 v = 0, d;
    if ((sp && !xml_number(st, line, "net", "speed", sp, 1, 3200000, " of Mb/s",
                           &v, error)) ||
        (dev &&
         !xml_number(st, line, "net", "dev", dev, 0, 1023, "", &d, error)) ||
        (dev && !xml_once(st, line, "net", "dev", dev, error)) ||
        (nm && !xml_once(st, line, "net", "name", nm, error)))
      return;
    nic->speed_mbps = MAX(nic->speed_mbps, (guint64)v);
    nic->nets++;
    {
      const char *gdr = attr(an, av, "gdr");
      if (gdr && !xml_number(st, line, "net", "gdr", gdr, 0, 1, "", &d, error))
        return;
      nic->no_gdr = gdr && d == 0;
      nic->interface =
          nm && (g_str_has_prefix(nm, "eth") || g_str_has_prefix(nm, "en") ||
                 g_str_has_prefix(nm, "bond"));
    }
  }
opened:
  g_array_append_val(st->stack, mine);
  g_array_append_val(st->kinds, kind);
}

static void xml_end(GMarkupParseContext *ctx, const char *name, gpointer data,
                    GError **error)
{
  XmlState *st = data;
  int line = xml_line(ctx);

  if (strcmp(name, "gpu") == 0)
    st->cur_gpu = -1;
  if (strcmp(name, "nic") == 0) {
    if (!g_array_index(st->nic, XNic, st->cur_nic).nets) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                  "%s:%d: <nic> without a <net> (expected <net name dev "
                  "speed>)",
                  st->source, line);
      return;
    }
    st->cur_nic = -1;
  }
  g_array_set_size(st->stack, st->stack->len - 1);
  g_array_set_size(st->kinds, st->kinds->len - 1);
}

/* Text between elements: NCCL's XML has none but blanks. */
static void xml_text(GMarkupParseContext *ctx, const char *text, gsize len,
                     gpointer data, GError **error)
{
  XmlState *st = data;
  int line, col;

  for (gsize i = 0; i < len; i++) {
    if (!g_ascii_isspace(text[i])) {
      g_autofree char *t = g_strndup(text + i, len - i);
      g_autofree char *x = topo_import_excerpt(g_strstrip(t));
      g_markup_parse_context_get_position(ctx, &line, &col);
      for (gsize j = i; j < len; j++)
        line -= text[j] == '\n'; /* back to where the text starts */
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                  "%s:%d: text '%s' inside <%s> (expected only elements)",
                  st->source, line, x,
                  g_markup_parse_context_get_element(ctx)
                      ? g_markup_parse_context_get_element(ctx)
                      : "the document");
      return;
    }
  }
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
  g_array_free(st->kinds, TRUE);
  g_hash_table_destroy(st->seen);
  g_free(st->host);
}

/* The NVLinks every <gpu> lists agree: all to NVSwitches, each GPU with the
 * first GPU's switches and counts (ifsim servers have alike GPUs); or all
 * to other GPUs, each link listed from both ends with one count. */
static gboolean check_nvlinks(const XmlState *st, GError **error)
{
  const XGpu *g0 = &g_array_index(st->gpu, XGpu, 0);
  gboolean sw =
      g0->targets->len && g_array_index(g0->targets, XLink, 0).nvswitch;

  for (guint a = 0; a < st->gpu->len; a++) {
    const XGpu *ga = &g_array_index(st->gpu, XGpu, a);
    if (sw && ga->targets->len != g0->targets->len) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                  "%s:%u: <gpu> has %u <nvlink> elements, the first <gpu> "
                  "(line %u) %u (ifsim servers have alike GPUs)",
                  st->source, ga->line, ga->targets->len, g0->line,
                  g0->targets->len);
      return FALSE;
    }
    for (guint i = 0; i < ga->targets->len; i++) {
      const XLink *l = &g_array_index(ga->targets, XLink, i);
      g_autofree char *x = topo_import_excerpt(l->target);
      const XLink *back = NULL;
      guint b, j;
      if (l->nvswitch != sw && !g0->targets->len) {
        g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                    "%s:%u: <nvlink target=\"%s\"> to an NVSwitch, but the "
                    "first <gpu> (line %u) has no <nvlink> (ifsim servers "
                    "have alike GPUs)",
                    st->source, l->line, x, g0->line);
        return FALSE;
      }
      if (l->nvswitch != sw) {
        g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                    "%s:%u: <nvlink target=\"%s\"> %s, but the first "
                    "<nvlink> (line %u) %s (expected all NVLinks to "
                    "NVSwitches, or all to GPUs)",
                    st->source, l->line, x,
                    l->nvswitch ? "is to an NVSwitch" : "is not to an NVSwitch",
                    g_array_index(g0->targets, XLink, 0).line,
                    sw ? "is" : "is not");
        return FALSE;
      }
      if (sw) {
        for (j = 0; j < g0->targets->len; j++) {
          back = &g_array_index(g0->targets, XLink, j);
          if (g_ascii_strcasecmp(back->target, l->target) == 0)
            break;
        }
        if (j == g0->targets->len || back->count != l->count) {
          g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                      "%s:%u: <nvlink target=\"%s\" count=\"%u\">, but the "
                      "first <gpu> (line %u) has %u links to it (ifsim "
                      "servers have alike GPUs)",
                      st->source, l->line, x, l->count, g0->line,
                      j == g0->targets->len ? 0 : back->count);
          return FALSE;
        }
        continue;
      }
      for (b = 0; b < st->gpu->len; b++) {
        const XPci *pb =
            &g_array_index(st->pci, XPci, g_array_index(st->gpu, XGpu, b).pci);
        if (b != a && pb->busid &&
            g_ascii_strcasecmp(pb->busid, l->target) == 0)
          break;
      }
      if (b == st->gpu->len) {
        g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                    "%s:%u: <nvlink target=\"%s\">: no other <gpu> sits on "
                    "that bus id, and its tclass is not 0x068000 (NVSwitch); "
                    "NVLink to a CPU or bridge is not modelled",
                    st->source, l->line, x);
        return FALSE;
      }
      {
        const XGpu *gb = &g_array_index(st->gpu, XGpu, b);
        const char *mine = g_array_index(st->pci, XPci, ga->pci).busid;
        for (j = 0; j < gb->targets->len && mine; j++) {
          back = &g_array_index(gb->targets, XLink, j);
          if (g_ascii_strcasecmp(back->target, mine) == 0)
            break;
        }
        if (!mine || j == gb->targets->len || back->count != l->count) {
          g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                      "%s:%u: <nvlink target=\"%s\" count=\"%u\">, but "
                      "the <gpu> there (line %u) has %u links back "
                      "(expected the same count from both ends)",
                      st->source, l->line, x, l->count, gb->line,
                      !mine || j == gb->targets->len ? 0 : back->count);
          return FALSE;
        }
      }
    }
  }
  return TRUE;
}

/* The NIC model an imported XML's NICs are based on: ConnectX-7 (400G)
 * when fast, else ConnectX-6 (200G); InfiniBand or Ethernet ports. */
static const char *nic_base(gboolean fast, gboolean ether)
{
  return fast ? (ether ? "cx7-400g" : "cx7-ndr")
              : (ether ? "cx6-200g" : "cx6-hdr");
}

static char *import_nccl_xml(const char *text, gsize len, const char *source,
                             const TopoImportOptions *opt, GError **error)
{
  GMarkupParser parser = {xml_start, xml_end, xml_text, NULL, NULL};
  XmlState st = {
      .pci = g_array_new(FALSE, FALSE, sizeof(XPci)),
      .gpu = g_array_new(FALSE, FALSE, sizeof(XGpu)),
      .nic = g_array_new(FALSE, FALSE, sizeof(XNic)),
      .stack = g_array_new(FALSE, FALSE, sizeof(gint32)),
      .kinds = g_array_new(FALSE, FALSE, sizeof(guint)),
      .seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
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
  gboolean gpus_filled, nics_filled;

  if (!g_markup_parse_context_parse(ctx, text, (gssize)len, &local) ||
      !g_markup_parse_context_end_parse(ctx, &local)) {
    const char *m = strstr(local->message, ": ");
    int line = xml_line(ctx);
    if (local->domain == TOPO_ERROR)
      g_propagate_error(error, g_steal_pointer(&local));
    else
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                  "%s:%d: not well-formed XML: %s", source, line,
                  g_str_has_prefix(local->message, "Error on line") && m
                      ? m + 2
                      : local->message);
    goto done;
  }
  /* A file of the PCI tree alone (Azure's NDv4, NDv5): NCCL adds the
   * GPUs and NICs it finds at run time to the PCI devices of their bus
   * ids (ncclTopoFillGpu, ncclTopoFillNet).  Those devices, by class, are
   * the server's GPUs and NICs. */
  gpus_filled = st.gpu->len == 0;
  nics_filled = st.nic->len == 0;
  for (guint i = 0; i < st.pci->len; i++) {
    const XPci *p = &g_array_index(st.pci, XPci, i);
    if (p->bridge)
      continue;
    if (gpus_filled && p->display) {
      XGpu g = {.pci = (gint32)i,
                .line = p->line,
                .targets = g_array_new(FALSE, FALSE, sizeof(XLink))};
      g_array_append_val(st.gpu, g);
    } else if (nics_filled && p->network) {
      XNic n = {.pci = (gint32)i, .cpu = p->cpu, .line = p->line};
      g_array_append_val(st.nic, n);
    }
  }
  if (st.gpu->len == 0) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                "%s: no <gpu> element and no GPU's <pci> (class 0x030200 or "
                "0x030000): the file describes no server",
                source);
    goto done;
  }
  if (!check_nvlinks(&st, error))
    goto done;
  s = import_server_new(st.gpu->len, st.nic->len);
  s->sockets = MAX(st.cpus, 1);
  if (gpus_filled)
    note(s,
         "GPUs: the %u <pci> of class 0x0302/0x0300 (the file has no "
         "<gpu>: NCCL adds them from the driver at run time)",
         st.gpu->len);
  if (nics_filled && st.nic->len)
    note(s,
         "NICs: the %u <pci> of class 0x02 (the file has no <nic>: NCCL "
         "adds them from the network plugin at run time)",
         st.nic->len);
  for (guint a = 0; a < st.gpu->len; a++) {
    const XGpu *g = &g_array_index(st.gpu, XGpu, a);
    if (g->self_line) {
      note(s,
           "line %u: an <nvlink> from a GPU to its own bus id joins no "
           "two GPUs (as in NCCL): ignored",
           g->self_line);
      break;
    }
  }
  if (gpus_filled && opt->nvlink) {
    /* the NVLink generation given: an HGX board, every GPU on its
     * NVSwitches with the generation's links */
    TopoImportOptions board = {.nvlink = opt->nvlink};
    if (!strcmp(opt->nvlink, "nvlink3"))
      board.nvlink = NULL; /* NV12: the A100 board */
    nvlink_from_count(s, !strcmp(opt->nvlink, "nvlink3") ? 12 : 18, &board);
  } else if (gpus_filled) {
    note(s, "ASSUMED: no NVLink between the GPUs (the file does not say: give "
            "--import-nvlink nvlink3, nvlink4 or nvlink5 for an HGX board's "
            "NVSwitches)");
  }
  {
    /* GPU model and PCIe generation from GPU 0 */
    const XGpu *g0 = &g_array_index(st.gpu, XGpu, 0);
    const XPci *p0 = &g_array_index(st.pci, XPci, g0->pci);
    guint32 gen = p0->gts >= 60 ? 6 : p0->gts >= 30 ? 5 : p0->gts >= 15 ? 4 : 3;
    guint32 width = p0->width ? p0->width : 16;
    if (p0->gts > 0) {
      set_pcie(s, gen, width);
      note(s, "GPU PCIe link %s from link_speed %.1f GT/s, width %u",
           s->gpu_pcie, p0->gts, width);
    } else {
      /* a VM hides the link (link_speed=""): the GPU's generation */
      gen = g0->sm >= 90 || !g0->sm ? 5 : g0->sm >= 80 ? 4 : 3;
      set_pcie(s, gen, width);
      note(s, "ASSUMED: GPUs on %s (link_speed is empty; %s)", s->gpu_pcie,
           g0->sm ? "the PCIe generation of the GPU's sm"
                  : "no sm either: the newest modelled host link");
    }
    /* NVLink: targets of class NVSwitch, or GPU bus ids */
    guint32 most = 0; /* NVLinks of the GPU with the most */
    for (guint a = 0; a < st.gpu->len; a++) {
      const GArray *t = g_array_index(st.gpu, XGpu, a).targets;
      guint32 total = 0;
      for (guint i = 0; i < t->len; i++)
        total += g_array_index(t, XLink, i).count;
      most = MAX(most, total);
    }
    if (most && !gpus_filled) {
      gboolean sw =
          g0->targets->len && g_array_index(g0->targets, XLink, 0).nvswitch;
      if (!g0->sm && !opt->nvlink) {
        g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                    "%s:%u: <gpu> with <nvlink> but without sm (expected the "
                    "compute capability x10, such as 90, or the NVLink model "
                    "as an option)",
                    source, g0->line);
        goto done;
      }
      s->nvlink = opt->nvlink     ? opt->nvlink
                  : g0->sm >= 100 ? "nvlink5"
                  : g0->sm >= 90  ? "nvlink4"
                                  : "nvlink3";
      note(s, "sm %u: %s", g0->sm, s->nvlink);
      for (guint i = 0; i < g0->targets->len && sw; i++) {
        const XLink *l = &g_array_index(g0->targets, XLink, i);
        g_string_append_printf(s->split, "%s%u", i ? "," : "", l->count);
      }
      s->nvlinks_per_gpu = most;
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
    if (dev < 0) { /* a NIC directly in a <cpu>: on the root complex */
      sock = g_array_index(st.nic, XNic, i - st.gpu->len).cpu;
      leaf = top = -1;
    } else {
      sock = g_array_index(st.pci, XPci, dev).cpu;
      pci_switches(&st, dev, &leaf, &top);
    }
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
  if (st.nic->len && nics_filled && !opt->nic) {
    /* no speed in the file: the fastest port the NIC's PCIe link feeds
     * (x16 Gen4 carries 252 Gb/s: 200G; Gen5 400G) */
    const XNic *n0 = &g_array_index(st.nic, XNic, 0);
    const XPci *p = &g_array_index(st.pci, XPci, n0->pci);
    gboolean gen5 = p->gts >= 30;
    s->nic = nic_base(gen5, !p->infiniband);
    note(s,
         "ASSUMED: NIC model %s (the file gives no speed; the fastest "
         "%s port a PCIe link of %.1f GT/s feeds; give --import-nic)",
         s->nic, p->infiniband ? "InfiniBand" : "Ethernet", p->gts);
  } else if (st.nic->len) {
    guint64 speed = g_array_index(st.nic, XNic, 0).speed_mbps;
    if (!speed && !opt->nic) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                  "%s:%u: <nic> whose <net> has no speed (expected speed in "
                  "Mb/s, such as 400000, or the NIC model as an option)",
                  source, g_array_index(st.nic, XNic, 0).line);
      goto done;
    }
    const XNic *n0 = &g_array_index(st.nic, XNic, 0);
    /* InfiniBand or Ethernet: the PCI class (0x0207 or 0x0200), else the
     * net's name (an IP interface is NCCL's socket transport) */
    gboolean ether =
        n0->pci >= 0 && g_array_index(st.pci, XPci, n0->pci).network
            ? !g_array_index(st.pci, XPci, n0->pci).infiniband
            : n0->interface;
    static const char *const tiers[][2] = {{"ib-edr-4x", "roce-v2-100g"},
                                           {"ib-hdr-4x", "roce-v2-200g"},
                                           {"ib-ndr-4x", "roce-v2-400g"},
                                           {"ib-xdr-4x", "roce-v2-800g"}};
    guint t = speed <= 100000   ? 0
              : speed <= 200000 ? 1
              : speed <= 400000 ? 2
                                : 3;
    s->nic = opt->nic ? opt->nic : nic_base(speed >= 400000, ether);
    if (!opt->nic && t != 1 && t != 2)
      s->nic_port_link = tiers[t][ether];
    s->nic_no_gdr = n0->no_gdr;
    note(s, "NIC model %s%s%s%s from net speed %" G_GUINT64_FORMAT " Mb/s%s",
         s->nic, s->nic_port_link ? " with " : "",
         s->nic_port_link ? s->nic_port_link : "",
         s->nic_port_link ? " ports" : "", speed,
         s->nic_no_gdr ? ", without GPUDirect RDMA (gdr=\"0\")" : "");
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

char *topo_import_excerpt(const char *text)
{
  const char *p = text;
  GString *s = g_string_new(NULL);

  for (guint i = 0; i < 60 && *p; i++) {
    const char *next = g_utf8_next_char(p);
    if ((guchar)*p < 0x20)
      g_string_append_c(s, ' '); /* a tab or such, printed plainly */
    else
      g_string_append_len(s, p, next - p);
    p = next;
  }
  if (*p)
    g_string_append(s, "...");
  return g_string_free(s, FALSE);
}

/* Lines longer than this are no dump's (an NCCL XML element is < 1 KB). */
#define IMPORT_MAX_LINE 65536

/* The line (from 1) holding text[off]. */
static guint line_of(const char *text, gsize off)
{
  guint line = 1;

  for (const char *p = text; (p = memchr(p, '\n', off - (gsize)(p - text)));
       p++)
    line++;
  return line;
}

/* What the dump of `format` is, for "expected ..." in messages. */
static const char *format_what(TopoImportFormat format)
{
  switch (format) {
  case TOPO_IMPORT_SMI: return "nvidia-smi topo -m output";
  case TOPO_IMPORT_NCCL_XML: return "NCCL topology XML";
  case TOPO_IMPORT_IBNET: return "ibnetdiscover output";
  default:
    return "nvidia-smi topo -m output, NCCL topology XML or ibnetdiscover "
           "output";
  }
}

/* Text checks common to every format: not empty, UTF-8 without NUL bytes,
 * no line longer than IMPORT_MAX_LINE. */
static gboolean check_text(const char *text, gsize len, const char *source,
                           TopoImportFormat format, GError **error)
{
  const char *end = NULL, *nul = memchr(text, 0, len);
  gsize start = 0;

  if (len == 0) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                "%s: the file is empty (expected %s)", source,
                format_what(format));
    return FALSE;
  }
  if (!g_utf8_validate(text, (gssize)len, &end) || nul) {
    gsize off = (gsize)((nul && (!end || nul < end) ? nul : end) - text);
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                "%s:%u: not a text file (invalid UTF-8 or a NUL byte at "
                "byte %" G_GSIZE_FORMAT "; expected %s)",
                source, line_of(text, off), off, format_what(format));
    return FALSE;
  }
  for (gsize i = 0; i <= len; i++) {
    if (i < len && text[i] != '\n')
      continue;
    if (i - start > IMPORT_MAX_LINE) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                  "%s:%u: the line is %" G_GSIZE_FORMAT " bytes long "
                  "(expected at most %u in %s)",
                  source, line_of(text, start), i - start, IMPORT_MAX_LINE,
                  format_what(format));
      return FALSE;
    }
    start = i + 1;
  }
  return TRUE;
}

char *topo_import(const char *text, gsize len, const char *source,
                  TopoImportFormat format, const TopoImportOptions *opt,
                  GError **error)
{
  TopoImportOptions none = {0};
  g_autofree char *plain = NULL;

  if (!opt)
    opt = &none;
  /* a dump saved on Windows: its byte order mark skipped and its CRLF line
   * ends read as LF (the lines stay where they were, for the messages) */
  if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
    text += 3;
    len -= 3;
  }
  if (memchr(text, '\r', len)) {
    gsize n = 0;

    plain = g_malloc(len + 1);
    for (gsize i = 0; i < len; i++)
      if (!(text[i] == '\r' && i + 1 < len && text[i + 1] == '\n'))
        plain[n++] = text[i];
    plain[n] = '\0';
    text = plain;
    len = n;
  }
  if (format == TOPO_IMPORT_AUTO)
    format = topo_import_detect(text, len);
  if (!check_text(text, len, source, format, error))
    return NULL;
  switch (format) {
  case TOPO_IMPORT_SMI: return import_smi(text, len, source, opt, error);
  case TOPO_IMPORT_NCCL_XML:
    return import_nccl_xml(text, len, source, opt, error);
  case TOPO_IMPORT_IBNET:
    return topo_import_ibnet(text, len, source, opt, error);
  default:
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                "%s: not a recognised dump (expected %s)", source,
                format_what(TOPO_IMPORT_AUTO));
    return NULL;
  }
}
