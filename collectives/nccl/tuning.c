/* NCCL's cost model and choice of algorithm, protocol and channels.
 *
 * The constants and refinements are those of NVIDIA/nccl
 * src/graph/tuning.cc (ncclTopoTuneModel, ncclTopoGetAlgoTime, tuner
 * constants of the 2.2x releases) and src/graph/topo.h (per-link
 * bandwidths); each is cited where used.  NCCL uses this model to choose;
 * ifsim uses it the same way and then executes the choice on the fabric
 * (plan.c), so the predicted time is the fabric's, not this formula's. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "collectives/error.h"
#include "collectives/nccl/nccl_internal.h"
#include "models/params.h"
#include "models/registry.h"

static const char *const coll_names[NCCL_N_COLLS] = {
    "Broadcast", "Reduce",   "AllGather", "ReduceScatter",
    "AllReduce", "AllToAll", "SendRecv"};
static const char *const coll_tests[NCCL_N_COLLS] = {
    "broadcast_perf",      "reduce_perf",     "all_gather_perf",
    "reduce_scatter_perf", "all_reduce_perf", "alltoall_perf",
    "sendrecv_perf"};
/* NCCL_ALGO / NCCL_PROTO spellings (ncclAlgoStr, ncclProtoStr). */
static const char *const algo_names[NCCL_N_ALGOS] = {
    "Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT"};
static const char *const proto_names[NCCL_N_PROTOS] = {"LL", "LL128", "Simple"};

const char *nccl_coll_name(NcclColl c)
{
  return coll_names[c];
}

const char *nccl_coll_test_name(NcclColl c)
{
  return coll_tests[c];
}

gboolean nccl_coll_is_reduction(NcclColl c)
{
  return c == NCCL_COLL_REDUCE || c == NCCL_COLL_REDUCESCATTER ||
         c == NCCL_COLL_ALLREDUCE;
}

gboolean nccl_coll_is_rooted(NcclColl c)
{
  return c == NCCL_COLL_BROADCAST || c == NCCL_COLL_REDUCE;
}

const char *const nccl_algo_keys[NCCL_N_ALGOS] = {
    [NCCL_ALGO_TREE] = "tree",
    [NCCL_ALGO_RING] = "ring",
    [NCCL_ALGO_COLLNET_DIRECT] = "collnet_direct",
    [NCCL_ALGO_COLLNET_CHAIN] = "collnet_chain",
    [NCCL_ALGO_NVLS] = "nvls",
    [NCCL_ALGO_NVLS_TREE] = "nvls_tree",
    [NCCL_ALGO_PAT] = "pat"};

const char *nccl_algo_name(NcclAlgo a)
{
  return algo_names[a];
}

const char *nccl_proto_name(NcclProto p)
{
  return proto_names[p];
}

/* Lower case without '_' or '-': "all_reduce" -> "allreduce". */
static char *fold_name(const char *name)
{
  char *s = g_ascii_strdown(name, -1);
  char *w = s;

  for (const char *r = s; *r; r++) {
    if (*r != '_' && *r != '-')
      *w++ = *r;
  }
  *w = '\0';
  return s;
}

gboolean nccl_coll_parse(const char *name, NcclColl *out)
{
  g_autofree char *f = fold_name(name);

  if (g_str_has_suffix(f, "perf"))
    f[strlen(f) - 4] = '\0';
  for (int c = 0; c < NCCL_N_COLLS; c++) {
    g_autofree char *n = fold_name(coll_names[c]);

    if (strcmp(f, n) == 0) {
      *out = (NcclColl)c;
      return TRUE;
    }
  }
  return FALSE;
}

/* names[0 .. n - 1], ", "-separated, into s. */
static void append_names(GString *s, const char *const *names, int n)
{
  for (int j = 0; j < n; j++)
    g_string_append_printf(s, "%s%s", j ? ", " : "", names[j]);
}

static gboolean parse_list(const char *list, const char *what,
                           const char *const *names, int n, guint32 *mask,
                           GError **error)
{
  gboolean negate = list[0] == '^';
  g_auto(GStrv) parts = g_strsplit(list + negate, ",", -1);
  guint32 m = 0;

  for (char **p = parts; *p; p++) {
    g_autofree char *tok = g_strstrip(g_strdup(*p));
    int i;

    for (i = 0; i < n; i++) {
      if (g_ascii_strcasecmp(tok, names[i]) == 0)
        break;
    }
    if (i == n) {
      g_autoptr(GString) accepted = g_string_new(NULL);

      append_names(accepted, names, n);
      g_set_error(error, COLL_ERROR, COLL_ERROR_VALUE,
                  "%s: '%s' is not one of %s (a comma-separated list, or "
                  "^list for all but those)",
                  what, tok, accepted->str);
      return FALSE;
    }
    m |= 1u << i;
  }
  if (negate)
    m = ~m & ((1u << n) - 1);
  if (m == 0) {
    g_set_error(error, COLL_ERROR, COLL_ERROR_VALUE,
                "%s: '%s' leaves nothing enabled", what, list);
    return FALSE;
  }
  *mask = m;
  return TRUE;
}

/* parse_list over NCCL's map of functions to lists (nccl_parse_algos). */
static gboolean parse_map(const char *str, const char *what,
                          const char *const *names, int n, guint32 *mask,
                          guint32 *per_coll, GError **error)
{
  g_auto(GStrv) entries = g_strsplit(str, ";", -1);
  gboolean first = TRUE;

  *mask = 0;
  if (per_coll)
    memset(per_coll, 0, NCCL_N_TUNED_COLLS * sizeof *per_coll);
  for (char **e = entries; *e; e++) {
    g_autofree char *entry = g_strstrip(g_strdup(*e));
    char *colon = strchr(entry, ':');
    int c;

    if (!*entry)
      continue; /* strtok skips empty entries */
    if (!colon) {
      if (!first) {
        g_set_error(error, COLL_ERROR, COLL_ERROR_VALUE,
                    "%s: '%s': every entry but the first needs a function "
                    "prefix (LIST;FUNCTION:LIST;...)",
                    what, str);
        return FALSE;
      }
      first = FALSE;
      if (!parse_list(entry, what, names, n, mask, error))
        return FALSE;
      continue;
    }
    first = FALSE;
    *colon = '\0';
    g_strstrip(entry);
    for (c = 0; c < NCCL_N_TUNED_COLLS; c++) {
      if (g_ascii_strcasecmp(entry, coll_names[c]) == 0)
        break;
    }
    if (c == NCCL_N_TUNED_COLLS || !per_coll) {
      g_autoptr(GString) accepted = g_string_new(NULL);

      append_names(accepted, coll_names, NCCL_N_TUNED_COLLS);
      if (per_coll)
        g_set_error(error, COLL_ERROR, COLL_ERROR_VALUE,
                    "%s: '%s' is not one of %s (FUNCTION:LIST)", what, entry,
                    accepted->str);
      else
        g_set_error(error, COLL_ERROR, COLL_ERROR_VALUE,
                    "%s: '%s' is not taken here (one list for every "
                    "collective)",
                    what, entry);
      return FALSE;
    }
    if (!parse_list(g_strstrip(colon + 1), what, names, n, &per_coll[c], error))
      return FALSE;
  }
  return TRUE;
}

gboolean nccl_parse_algos(const char *list, const char *what, guint32 *mask,
                          guint32 *per_coll, GError **error)
{
  return parse_map(list, what, algo_names, NCCL_N_ALGOS, mask, per_coll, error);
}

gboolean nccl_parse_protos(const char *list, const char *what, guint32 *mask,
                           guint32 *per_coll, GError **error)
{
  return parse_map(list, what, proto_names, NCCL_N_PROTOS, mask, per_coll,
                   error);
}

guint32 nccl_allowed_algos(const NcclOptions *opt, NcclColl coll)
{
  return coll < NCCL_N_TUNED_COLLS && opt->coll_algos[coll]
             ? opt->coll_algos[coll]
             : opt->algos;
}

gboolean nccl_nvls_reduces(const char *dtype, const char *redop)
{
  static const char *const minmax[] = {"int32",  "uint32", "int64",
                                       "uint64", "half",   "bfloat16"};
  const char *t = dtype ? dtype : "float";
  const char *op = redop ? redop : "sum";
  gboolean sum = g_ascii_strcasecmp(op, "sum") == 0;

  if (g_ascii_strcasecmp(t, "float") == 0 ||
      g_ascii_strcasecmp(t, "double") == 0)
    return sum;
  for (guint i = 0; i < G_N_ELEMENTS(minmax); i++)
    if (g_ascii_strcasecmp(t, minmax[i]) == 0)
      return sum || g_ascii_strcasecmp(op, "min") == 0 ||
             g_ascii_strcasecmp(op, "max") == 0;
  return FALSE;
}

guint32 nccl_allowed_protos(const NcclOptions *opt, NcclColl coll)
{
  return coll < NCCL_N_TUNED_COLLS && opt->coll_protos[coll]
             ? opt->coll_protos[coll]
             : opt->protos;
}

double nccl_bus_factor(NcclColl c, guint32 n)
{
  switch (c) {
  case NCCL_COLL_ALLREDUCE: return 2.0 * (n - 1) / n;
  case NCCL_COLL_ALLGATHER:
  case NCCL_COLL_REDUCESCATTER:
  case NCCL_COLL_ALLTOALL: return (double)(n - 1) / n;
  default: return 1.0;
  }
}

/* A network step's latency to NCCL's tuner with the latency the net
 * plugin reports (ncclNetProperties_t.latency, the graph's latencyInter:
 * search.cc): from 2.18.1 added to the step's figure, twice for Simple
 * ("the flush extra latency"); before, in its place where not 0
 * (tuning.cc).  NCCL's IB and socket transports report 0; the NIC model's
 * reported_latency_us is its plugin's (aws-ofi-nccl: by platform). */
#define V_NET_LATENCY_ADDED_FROM 21801u

static double with_net_latency(const NcclComm *c, guint32 v, NcclProto p,
                               double lat)
{
  double rep = c->nnodes > 1 && !c->socket && c->gpu.nic
                   ? c->gpu.nic->reported_latency_us
                   : 0;

  if (rep <= 0)
    return lat;
  if (v < V_NET_LATENCY_ADDED_FROM)
    return rep;
  return lat + rep * (p == NCCL_PROTO_SIMPLE ? 2 : 1);
}

/* --- tuner constants (tuning.cc, ncclTunerConstantsDefaults) ------------ */

/* baseLatencies, us: Tree, Ring, CollNetDirect, CollNetChain, NVLS,
 * NVLSTree, PAT x LL, LL128, Simple. */
static const double base_lat[NCCL_N_ALGOS][NCCL_N_PROTOS] = {
    {6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0, 0, 0},      {0, 0, 0},
    {0, 0, 0},        {0, 0, 0},        {8.0, 8.0, 8.0}};

/* hwLatencies, us per step: NVLINK, PCI, NET. */
static const double hw_lat[NCCL_N_HW][NCCL_N_ALGOS][NCCL_N_PROTOS] = {
    {{0.6, 1.25, 4.0},
     {0.6, 1.9, 3.4},
     {0, 0, 3.7},
     {0, 0, 2.8},
     {0, 0, 25},
     {0, 0, 25},
     {0, 0, 4.0}},
    {{1.0, 1.9, 4.0},
     {1.0, 2.5, 5.7},
     {0, 0, 3.7},
     {0, 0, 2.8},
     {0, 0, 0},
     {0, 0, 0},
     {0, 0, 4.0}},
    {{5.0, 8.5, 14},
     {2.7, 4.0, 14.0},
     {0, 0, 31},
     {0, 0, 30},
     {0, 0, 18},
     {0, 0, 20.9},
     {0, 0, 14}}};

/* [arch][nodes: 1, 2, more]; llMaxBws' first index for multi-node runs is
 * the CPU vendor: row 0 on Intel (and other) hosts, row 1 on AMD
 * (tuning.cc: index1 = cpuVendor == AMD ? 1 : 0 across nodes). */
static const double ll_max_bw[NCCL_N_ARCHS][3] = {{39.0, 39.0, 20.4},
                                                  {87.7, 22.5, 19.0},
                                                  {141.0, 45.0, 35.0},
                                                  {282.0, 90.0, 70.0}};
static const double ring_ll128_bw[NCCL_N_ARCHS][3] = {{20.0, 20.0, 20.0},
                                                      {20.0, 20.0, 20.0},
                                                      {36.7, 36.7, 36.7},
                                                      {40.0, 40.0, 40.0}};
static const double tree_ll128_bw[NCCL_N_ARCHS][3] = {{20.0, 20.0, 20.0},
                                                      {20.0, 20.0, 20.0},
                                                      {36.7, 36.7, 29.0},
                                                      {55.6, 31.67, 20.0}};
static const double tree_bw[NCCL_N_ARCHS][3] = {{26.5, 18.5, 10.0},
                                                {24.0, 23.6, 17.8},
                                                {38.7, 41.4, 36.0},
                                                {70.0, 42.8, 24.0}};
static const double nvls_tree_bw[NCCL_N_ARCHS][3] = {{26.5, 18.5, 10.0},
                                                     {24.0, 23.6, 17.8},
                                                     {0.0, 57.7, 45.5},
                                                     {0.0, 96.0, 80.0}};
static const double nvls_efficiency[NCCL_N_ARCHS] = {0.0, 0.0, 0.85, 0.74};

/* Trees stray from the model at medium sizes: a correction per power of
 * two of size / 64 (ncclTopoGetAlgoTime, treeCorrectionFactor). */
static const double tree_correction[NCCL_N_PROTOS][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7,  .7,  .7,  .6, .5,
     .4,  .4,  .5,  .6,  .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7,  .6, .6,
     .6,  .6,  .6,  .6,  .8,  .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5,
     .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};

/* Where NCCL's cost model differs by release, as read in its tuning.cc
 * (2.20.3, a 2.25-2.27 copy, 2.28.3) and in 2.28.9's library:
 * - NVLSTree's network latency per tree step: 14 us up to 2.28.3, 20.9 in
 *   2.28.9 (taken from 2.28.4 on: where it changed between is not known);
 * - NVLSTree's bandwidth: before 2.28 min(intra, inter, halved above 2
 *   nodes) per channel, algorithm bandwidth 5/6 of the bus's; from 2.28
 *   the NVLS efficiency formula below;
 * - NVLS AllReduce's bandwidth: before 2.28 the same min and 5/6;
 * - 2.20.3 (taken for every release before 2.21): Tree/Simple without a
 *   base latency and 28 us per step (NVLink, PCIe, network); NVLS and
 *   NVLSTree 23 us per NVLink step; Hopper's single-node LL ceiling
 *   Ampere's (87.7 GB/s); Ring LL at 1/4 of the bus (1/3 for a single-node
 *   AllGather, ReduceScatter or Broadcast), not 1/2; Ring LL128 at 0.7
 *   with one GPU per node; an AllReduce ring's 2 n network steps, not
 *   2 (n - 1); and one GPU per node keeping its algorithm's network
 *   latency. */
#define V_NVLSTREE_NET_14_UNTIL 22803u
#define V_NVLS_EFFICIENCY_FROM 22800u
#define V_2_20_UNTIL 22100u
/* Tree/Simple's chunk shrinks with the tree's depth up to 2.19 */
#define V_TREE_DEPTH_CHUNK_UNTIL 22000u
/* NVLS's and NVLSTree's chunks (enqueue.cc calcCollChunking): from 2.19.3
 * (the first tag here that has it; 2.19.1 has not) NVLS across nodes at
 * under 150 GB/s takes 32 KiB chunks, and NVLSTree on 4 nodes or more
 * 64 KiB; from 2.20.3 NVLSTree takes the smaller of its chunk and that;
 * from 2.21.5 NVLSTree starts from the NVLS chunk (nvlsChunkSize, 128
 * KiB), not from a Simple step */
#define V_NVLS_NET_CHUNK_FROM 21903u
#define V_NVLSTREE_MAX_CHUNK_FROM 22003u
#define V_NVLSTREE_NVLS_CHUNK_FROM 22105u
/* An AllGather's type no longer checked for NVLS (enqueue.cc 2.22.3) */
#define V_NVLS_AG_ANY_TYPE_FROM 22200u
/* NVLS AllGather and ReduceScatter: not in 2.18 */
#define V_NVLS_AGRS_GAP_FROM 21800u
#define V_NVLS_AGRS_BACK_FROM 21900u
/* a tree graph of pattern TREE costs 15% from 2.26 */
#define V_TREE_PATTERN_FROM 22600u

/* hwLatencies of the communicator's NCCL. */
static double tuned_hw_lat(guint32 v, int hw, int a, int p)
{
  if (p == NCCL_PROTO_SIMPLE && a == NCCL_ALGO_NVLS_TREE && hw == NCCL_HW_NET &&
      v <= V_NVLSTREE_NET_14_UNTIL)
    return 14.0;
  if (v < V_2_20_UNTIL && p == NCCL_PROTO_SIMPLE) {
    if (a == NCCL_ALGO_TREE)
      return 28.0;
    if ((a == NCCL_ALGO_NVLS || a == NCCL_ALGO_NVLS_TREE) &&
        hw == NCCL_HW_NVLINK)
      return 23.0;
  }
  return hw_lat[hw][a][p];
}

/* NCCL's example tuner plugin lowers three constants at its init
 * (plugin.c pluginInit, 2.28 to 2.30: "for reference only"): Blackwell's
 * per-channel Tree and Ring/LL128 bandwidths beyond 2 nodes to 15 and 20
 * GB/s, and NVLS's network latency to 24 us. */
#define TUNER_TREE_BW 15.0
#define TUNER_RING_LL128_BW 20.0
#define TUNER_NVLS_NET_LAT 24.0

/* hwLatencies of the communicator: its release's, and its tuner's. */
static double comm_hw_lat(const NcclComm *c, guint32 v, int hw, int a, int p)
{
  if (c->opt.tuner && hw == NCCL_HW_NET && a == NCCL_ALGO_NVLS &&
      p == NCCL_PROTO_SIMPLE)
    return TUNER_NVLS_NET_LAT;
  return tuned_hw_lat(v, hw, a, p);
}

/* perChMaxTreeBws and perChMaxRingLL128Bws of the communicator. */
static double comm_tree_bw(const NcclComm *c, int idx2)
{
  if (c->opt.tuner && c->arch == NCCL_ARCH_BLACKWELL && idx2 == 2)
    return TUNER_TREE_BW;
  return tree_bw[c->arch][idx2];
}

static double comm_ring_ll128_bw(const NcclComm *c, int idx2)
{
  if (c->opt.tuner && c->arch == NCCL_ARCH_BLACKWELL && idx2 == 2)
    return TUNER_RING_LL128_BW;
  return ring_ll128_bw[c->arch][idx2];
}

/* Whether the release's NVLS or NVLSTree AllReduce bandwidth is the one
 * before 2.28's NVLS efficiency: min(intra, inter) per channel, at 5/6. */
static gboolean old_nvls(guint32 v, int coll, int a)
{
  return v < V_NVLS_EFFICIENCY_FROM && coll == NCCL_COLL_ALLREDUCE &&
         (a == NCCL_ALGO_NVLS || a == NCCL_ALGO_NVLS_TREE);
}

/* baseLatencies of the communicator's NCCL. */
static double tuned_base_lat(guint32 v, int a, int p)
{
  if (v < V_2_20_UNTIL && a == NCCL_ALGO_TREE && p == NCCL_PROTO_SIMPLE)
    return 0;
  return base_lat[a][p];
}

gboolean nccl_version_parse(const char *text, const char *what, guint32 *out,
                            GError **error)
{
  g_autoptr(GRegex) re = g_regex_new(
      "^2\\.([0-9]{1,2})(?:\\.([0-9]{1,2}))?(?:[+-][A-Za-z0-9._+-]+)?$", 0, 0,
      NULL);
  g_autoptr(GMatchInfo) m = NULL;

  if (!g_regex_match(re, text, 0, &m)) {
    g_set_error(error, COLL_ERROR, COLL_ERROR_VALUE,
                "%s: '%s' is not an NCCL version (expected 2.MINOR or "
                "2.MINOR.PATCH, e.g. 2.26.2)",
                what, text);
    return FALSE;
  }
  {
    g_autofree char *minor = g_match_info_fetch(m, 1);
    g_autofree char *patch = g_match_info_fetch(m, 2);

    *out = 20000 + (guint32)atoi(minor) * 100 +
           (patch && *patch ? (guint32)atoi(patch) : 0);
  }
  return TRUE;
}

static const char *const path_names[NCCL_N_PATHS] = {
    "LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS"};

const char *nccl_path_name(NcclPath p)
{
  return p < NCCL_N_PATHS ? path_names[p] : "?";
}

gboolean nccl_p2p_level_parse(const char *disable, const char *level,
                              guint32 *out, GError **error)
{
  *out = 0;
  if (disable && *disable) {
    if (strcmp(disable, "1") == 0) {
      *out = NCCL_PATH_LOC + 1;
      return TRUE;
    }
    if (strcmp(disable, "0") != 0) {
      g_set_error(error, COLL_ERROR, COLL_ERROR_VALUE,
                  "NCCL_P2P_DISABLE='%s': expected 0 or 1", disable);
      return FALSE;
    }
  }
  return nccl_path_level_parse("NCCL_P2P_LEVEL", level, out, error);
}

gboolean nccl_path_level_parse(const char *name, const char *level,
                               guint32 *out, GError **error)
{
  /* paths.cc levelsOldToNew: the numbers before PATH_NVL existed */
  static const NcclPath old[] = {NCCL_PATH_LOC, NCCL_PATH_PIX, NCCL_PATH_PXB,
                                 NCCL_PATH_PHB, NCCL_PATH_SYS, NCCL_PATH_SYS};
  guint64 n;

  *out = 0;
  if (!level || !*level)
    return TRUE;
  for (guint i = 0; i < NCCL_N_PATHS; i++) {
    if (strcmp(level, path_names[i]) == 0) {
      *out = i + 1;
      return TRUE;
    }
  }
  /* NCCL reads a number with strtol and clamps it to the table's end */
  if (g_ascii_string_to_unsigned(level, 10, 0, G_MAXUINT32, &n, NULL)) {
    *out = old[MIN(n, G_N_ELEMENTS(old) - 1)] + 1;
    return TRUE;
  }
  g_set_error(error, COLL_ERROR, COLL_ERROR_VALUE,
              "%s='%s': expected LOC, NVL, NVB, C2C, PIX, PXB, "
              "P2C, PXN, PHB, SYS or a number (0-5; NCCL reads a larger "
              "one as 5, SYS)",
              name, level);
  return FALSE;
}

static const char *const buffsize_vars[NCCL_N_PROTOS] = {
    [NCCL_PROTO_LL] = "NCCL_LL_BUFFSIZE",
    [NCCL_PROTO_LL128] = "NCCL_LL128_BUFFSIZE",
    [NCCL_PROTO_SIMPLE] = "NCCL_BUFFSIZE"};

const char *nccl_buffsize_var(NcclProto p)
{
  return p < NCCL_N_PROTOS ? buffsize_vars[p] : "?";
}

gboolean nccl_param_parse(const char *name, const char *value, guint64 lo,
                          guint64 hi, const char *expected, guint64 *out,
                          GError **error)
{
  char *end = NULL;
  gint64 v;

  *out = 0;
  if (!value || !*value)
    return TRUE;
  errno = 0;
  v = g_ascii_strtoll(value, &end, 0);
  if (errno || end == value || *end || v < 0 || (guint64)v < lo ||
      (guint64)v > hi) {
    g_set_error(error, COLL_ERROR, COLL_ERROR_VALUE,
                "%s='%s': expected %s, written as NCCL reads an integer "
                "(decimal, 0x hex or 0 octal)",
                name, value, expected);
    return FALSE;
  }
  *out = (guint64)v;
  return TRUE;
}

/* A size in bytes that NCCL keeps in an int, from lo (why: lo_why). */
static gboolean int_bytes_parse(const char *name, const char *value,
                                const char *noun, guint64 lo,
                                const char *lo_why, guint64 *out,
                                GError **error)
{
  g_autofree char *expected = g_strdup_printf(
      "a %s in bytes from %" G_GUINT64_FORMAT " (%s) to %d (NCCL keeps it in "
      "an int)",
      noun, lo, lo_why, G_MAXINT32);

  return nccl_param_parse(name, value, lo, G_MAXINT32, expected, out, error);
}

gboolean nccl_buffsize_parse(const char *name, const char *value, guint64 *out,
                             GError **error)
{
  return int_bytes_parse(name, value, "buffer size", NCCL_BUFFSIZE_MIN,
                         "8 steps of 4 KiB", out, error);
}

gboolean nccl_ib_qps_parse(const char *name, const char *value, guint32 *out,
                           GError **error)
{
  g_autofree char *expected = g_strdup_printf(
      "a queue pair count from 1 to %u (the paths ifsim keeps for a "
      "connection)",
      NCCL_IB_QPS_MAX);
  guint64 n;
  gboolean ok =
      nccl_param_parse(name, value, 1, NCCL_IB_QPS_MAX, expected, &n, error);

  *out = (guint32)n;
  return ok;
}

guint64 nccl_step_data_bytes(const NcclComm *c, NcclProto p)
{
  guint64 step = c->buff_bytes[p] / NCCL_STEPS;

  switch (p) {
  case NCCL_PROTO_LL: return step / 2;
  case NCCL_PROTO_LL128: return step / 16 * 15;
  default: return step;
  }
}

guint32 nccl_version_from_code(long code)
{
  if (code >= 10000)
    return (guint32)code;
  return (guint32)(code / 1000 * 10000 + code / 100 % 10 * 100 + code % 100);
}

char *nccl_version_text(guint32 v)
{
  return g_strdup_printf("%u.%u.%u", v / 10000, v / 100 % 100, v % 100);
}

double nccl_hw_latency_us(guint32 hw, NcclAlgo a, NcclProto p)
{
  return hw_lat[hw][a][p];
}

double nccl_base_latency_us(NcclAlgo a, NcclProto p)
{
  return base_lat[a][p];
}

double nccl_nvls_efficiency(guint32 arch)
{
  return nvls_efficiency[arch];
}

/* Where a release runs NVLS at all, read in nvls.cc of each tag from
 * 2.17.1 to 2.30.7: ncclNvlsSetup of 2.17.1 on one node only; from 2.18.1
 * ncclNvlsInit returns before NVLS where the topology's GPUs, those of the
 * communicator's ranks on the node (on an NVLink domain spanning hosts,
 * of its clique: 2.21.5-2.24.3 count clique.size, later releases the
 * fused topology), are 2 or fewer ("gpuCount <= 2"); from 2.28.7 where
 * fewer than 2.  2.28.4 to 2.28.6 are taken as 2.28.7. */
#define V_NVLS_FROM 21701u
#define V_NVLS_MULTINODE_FROM 21801u
#define V_NVLS_TWO_GPUS_FROM 22804u

const char *nccl_nvls_release_off(guint32 v, guint32 ppn, guint32 nnodes)
{
  if (v < V_NVLS_FROM)
    return "NVLS came with NCCL 2.17.1";
  if (v < V_NVLS_MULTINODE_FROM && nnodes > 1)
    return "NCCL 2.17 runs NVLS on one node only (nvls.cc ncclNvlsSetup)";
  if (v < V_NVLS_TWO_GPUS_FROM && ppn <= 2)
    return "before NCCL 2.28.7 NVLS needs more than 2 of the "
           "communicator's GPUs on a node (nvls.cc ncclNvlsInit: "
           "gpuCount <= 2)";
  return NULL;
}

#define V_NVLS_SM100_FROM 22600u    /* nvls.cc: SM100 channels of their own */
#define V_NVLS_SM100_24_FROM 22800u /* ncclNvlsTuning: 24 within a node */

guint32 nccl_nvls_channels(guint32 v, guint32 sm, guint32 nnodes)
{
  if (sm < 100 || v < V_NVLS_SM100_FROM)
    return 16;
  return v >= V_NVLS_SM100_24_FROM && nnodes == 1 ? 24 : 32;
}

/* From 2.25.1 NCCL's search takes at most NCCL_MAX_NVLS_ARITY (32) heads
 * a node (search.cc ncclTopoCompute: the NVLS graph's maxChannels, its
 * channels being its heads, min(NCCL_MAX_NVLS_ARITY, GPUs); GPUs before). */
#define V_NVLS_MAX_HEADS_FROM 22501u

guint32 nccl_nvls_max_heads(guint32 v)
{
  return v >= V_NVLS_MAX_HEADS_FROM ? 32 : G_MAXUINT32;
}

double nccl_nvlink_GBps(guint32 sm)
{
  /* topo.h: SM60_NVLINK_BW 18, SM70 20, SM80 20, SM86 12, SM90 20.6,
   * SM100 40.1 GB/s per link. */
  if (sm >= 100)
    return 40.1;
  if (sm >= 90)
    return 20.6;
  if (sm == 86 || sm == 89)
    return 12.0;
  return 20.0;
}

static int log2i(guint64 v)
{
  int l = -1;

  while (v) {
    v >>= 1;
    l++;
  }
  return l;
}

static void set_off(NcclComm *c, int coll, int a, const char *why)
{
  for (int p = 0; p < NCCL_N_PROTOS; p++) {
    c->bw[coll][a][p] = 0;
    if (!c->off[coll][a][p])
      c->off[coll][a][p] = why;
  }
}

/* Whether algorithm `a` is one of CollNet's (SHARP). */
static gboolean algo_collnet(int a)
{
  return a == NCCL_ALGO_COLLNET_DIRECT || a == NCCL_ALGO_COLLNET_CHAIN;
}

/* The per-channel bandwidth NCCL's model gives algorithm `a`'s graph
 * (tuning.cc: bwIntra on up to 2 nodes and for CollNet, bwInter beyond).
 * Across nodes the search (net_search in comm.c; search.cc
 * ncclTopoCompute) first finds each graph at one speed of the release's
 * list for both, bwIntra = bwInter.  Its second pass then raises a ring's
 * two together while its channels fit, and any other graph's bwIntra
 * alone (the tree's, which PAT shares, and CollNet's) from a speed of the
 * list, while below twice its bwInter ("increase bwIntra for trees (2
 * nodes or collnet)", the same from 2.16 to 2.30) and while NVLink
 * carries it; with one GPU a node no GPU link carries it, so it reaches
 * twice.  So on 2 nodes a ring is modelled at its network speed and a
 * tree at up to twice that. */
static double graph_bw(const NcclComm *c, int a)
{
  if (c->nnodes == 1)
    return c->bw_intra;
  if (a == NCCL_ALGO_RING)
    return c->bw_inter;
  if (c->nnodes <= 2 || algo_collnet(a))
    return c->tree_bw_intra;
  return c->tree_bw_inter;
}

/* LL128 at its default by compute capability (tuning.cc): up to 2.24 on
 * 7.0, 8.0 and 9.0 alone (the switch's default: off); 2.26 adds 10.0 and
 * 12.0; from 2.27.3 any from 7.0.  So an A40 or RTX 3090 on an NVLink
 * bridge (8.6), an L40S or RTX 4090 (8.9) and a B300 or GB300 (10.3)
 * before 2.27 run no LL128 unless NCCL_PROTO names it. */
#define V_LL128_SM100_FROM 22600u
#define V_LL128_ANY_SM_FROM 22700u

static gboolean ll128_arch(guint32 v, guint32 sm)
{
  if (v >= V_LL128_ANY_SM_FROM)
    return sm >= 70;
  return sm == 70 || sm == 80 || sm == 90 ||
         (v >= V_LL128_SM100_FROM && (sm == 100 || sm == 120));
}

void nccl_tune(NcclComm *c)
{
  guint32 nnodes = c->nnodes, nranks = c->nranks;
  double ppn = (double)nranks / nnodes;
  int idx2 = nnodes <= 2 ? (int)nnodes - 1 : 2;
  int intra_hw = c->nvl_intra ? NCCL_HW_NVLINK : NCCL_HW_PCI;
  int hw = nnodes == 1 ? intra_hw : NCCL_HW_NET;
  guint32 v = nccl_comm_version(c);
  /* 2.20.3's Hopper row held Ampere's figures */
  guint32 ll_row = nnodes != 1 ? (c->gpu.cpu == TOPO_CPU_AMD ? 1 : 0)
                   : c->arch == NCCL_ARCH_HOPPER && v < V_2_20_UNTIL
                       ? NCCL_ARCH_AMPERE
                       : c->arch;
  double ll_max = ll_max_bw[ll_row][idx2];
  const char *nvls_release;

  memset(c->bw, 0, sizeof(c->bw));
  memset(c->lat, 0, sizeof(c->lat));
  memset(c->off, 0, sizeof(c->off));
  memset(c->bus_ch, 0, sizeof(c->bus_ch));
  memset(c->ring_bdw, 0, sizeof(c->ring_bdw));
  /* why the release runs no NVLS on these GPUs, where they have it */
  nvls_release = c->gpu.nvls ? nccl_nvls_release_off(v, c->ppn, nnodes) : NULL;
  for (int coll = 0; coll < NCCL_N_TUNED_COLLS; coll++) {
    int nsteps =
        coll == NCCL_COLL_ALLREDUCE ? 2 * ((int)nranks - 1)
        : coll == NCCL_COLL_REDUCESCATTER || coll == NCCL_COLL_ALLGATHER
            ? (int)nranks - 1
            : (int)nranks;

    gboolean ll128_named =
        (nccl_allowed_protos(&c->opt, coll) >> NCCL_PROTO_LL128) & 1;

    for (int a = 0; a < NCCL_N_ALGOS; a++) {
      gboolean rs_ag =
          coll == NCCL_COLL_REDUCESCATTER || coll == NCCL_COLL_ALLGATHER;
      guint32 nch = a == NCCL_ALGO_NVLS || a == NCCL_ALGO_NVLS_TREE
                        ? c->nvls_channels
                        : c->channels;

      if ((coll == NCCL_COLL_BROADCAST || coll == NCCL_COLL_REDUCE) &&
          a != NCCL_ALGO_RING) {
        set_off(c, coll, a, "Broadcast and Reduce run Ring only");
        continue;
      }
      if (rs_ag && a != NCCL_ALGO_PAT && a != NCCL_ALGO_RING &&
          a != NCCL_ALGO_NVLS && a != NCCL_ALGO_COLLNET_DIRECT) {
        set_off(c, coll, a, "not an AllGather/ReduceScatter algorithm");
        continue;
      }
      if (coll == NCCL_COLL_ALLREDUCE && a == NCCL_ALGO_PAT) {
        set_off(c, coll, a, "PAT runs AllGather/ReduceScatter only");
        continue;
      }
      if ((a == NCCL_ALGO_NVLS || a == NCCL_ALGO_NVLS_TREE) && c->gpu.nvls &&
          c->ppn > 1 && !c->nvl_intra && c->gpu.nvlinks == 0) {
        /* nvls.cc: the multicast object binds every local GPU's memory */
        set_off(c, coll, a,
                "needs every GPU of a node on the NVSwitches, and faults "
                "took all of a GPU's NVLinks down");
        continue;
      }
      if ((a == NCCL_ALGO_NVLS || a == NCCL_ALGO_NVLS_TREE) &&
          c->opt.nvls_enable == NCCL_NVLS_ENABLE_OFF) {
        set_off(c, coll, a, "NCCL_NVLS_ENABLE=0");
        continue;
      }
      if (a == NCCL_ALGO_NVLS_TREE && nnodes == 1) {
        set_off(c, coll, a, "NVLSTree needs more than one node");
        continue;
      }
      if ((a == NCCL_ALGO_NVLS || a == NCCL_ALGO_NVLS_TREE) && nvls_release) {
        set_off(c, coll, a, nvls_release);
        continue;
      }
      if ((a == NCCL_ALGO_NVLS || a == NCCL_ALGO_NVLS_TREE) &&
          (!c->gpu.nvls || c->nvls_channels < 2)) {
        set_off(c, coll, a, "needs NVSwitches with NVLink SHARP (NVLS)");
        continue;
      }
      if (a == NCCL_ALGO_NVLS && nnodes > 1 && !c->collnet) {
        set_off(c, coll, a, "multi-node NVLS needs CollNet (SHARP)");
        continue;
      }
      if (a == NCCL_ALGO_NVLS && rs_ag && nnodes > 1) {
        set_off(c, coll, a, "NVLS AllGather/ReduceScatter is single-node");
        continue;
      }
      /* enqueue.cc: NVLS and NVLSTree only for the types and operations
       * their kernels reduce (nccl_nvls_reduces); an AllGather reduces
       * nothing, but up to 2.21.5 its type was checked too, with sum */
      if ((a == NCCL_ALGO_NVLS || a == NCCL_ALGO_NVLS_TREE) &&
          (coll == NCCL_COLL_ALLREDUCE || coll == NCCL_COLL_REDUCESCATTER ||
           (coll == NCCL_COLL_ALLGATHER && v < V_NVLS_AG_ANY_TYPE_FROM)) &&
          !nccl_nvls_reduces(c->opt.dtype, coll == NCCL_COLL_ALLGATHER
                                               ? NULL
                                               : c->opt.redop)) {
        set_off(c, coll, a,
                coll == NCCL_COLL_ALLGATHER
                    ? "NVLS's kernels have no sum of this type (device.h "
                      "ncclNvlsSupported, checked for AllGather up to 2.21.5)"
                    : "NVLS's kernels have no such reduction of this type "
                      "(device.h ncclNvlsSupported: sum, min and max of 32- "
                      "and 64-bit integers, half and bfloat16; sum of float "
                      "and double)");
        continue;
      }
      /* enqueue.cc from 2.25.1: NVLS AllGather and ReduceScatter with at
       * most NCCL_MAX_NVLS_ARITY (32) ranks (2.25-2.26 nRanks, from 2.27
       * localRanks: on one node the same) */
      if (a == NCCL_ALGO_NVLS && rs_ag && c->ppn > 32 &&
          v >= V_NVLS_MAX_HEADS_FROM) {
        set_off(c, coll, a,
                "from NCCL 2.25.1 NVLS AllGather/ReduceScatter needs at most "
                "32 GPUs on the node (NCCL_MAX_NVLS_ARITY)");
        continue;
      }
      /* tuning.cc of 2.18.1 to 2.18.6 takes AllGather and ReduceScatter
       * to Ring alone (2.17.1 and 2.19.1 allow NVLS) */
      if (a == NCCL_ALGO_NVLS && rs_ag && v >= V_NVLS_AGRS_GAP_FROM &&
          v < V_NVLS_AGRS_BACK_FROM) {
        set_off(c, coll, a, "NCCL 2.18 runs AllGather/ReduceScatter on Ring");
        continue;
      }
      if (algo_collnet(a) && !c->collnet) {
        set_off(c, coll, a,
                "needs CollNet enabled (--collnet, "
                "NCCL_COLLNET_ENABLE=1), a SHARP network and "
                "more than one node");
        continue;
      }
      if ((a == NCCL_ALGO_COLLNET_DIRECT) && rs_ag) {
        set_off(c, coll, a,
                "CollNet AllGather/ReduceScatter needs 1 GPU per "
                "NIC and a plugin with them: not modelled");
        continue;
      }
      /* enqueue.cc from 2.23.4: "Tree reduceScatter doesn't support
       * scaling yet": no PAT ReduceScatter by avg */
      if (a == NCCL_ALGO_PAT && c->pat && coll == NCCL_COLL_REDUCESCATTER &&
          c->opt.redop && g_ascii_strcasecmp(c->opt.redop, "avg") == 0) {
        set_off(c, coll, a, "PAT's ReduceScatter has no avg");
        continue;
      }
      if (a == NCCL_ALGO_PAT && !c->pat) {
        set_off(c, coll, a,
                v < NCCL_V_PAT_FROM ? "PAT came with NCCL 2.23.4"
                : c->opt.pat_enable == NCCL_PAT_ENABLE_OFF
                    ? "NCCL_PAT_ENABLE=0"
                    : "PAT needs one GPU per node");
        continue;
      }
      if (a == NCCL_ALGO_TREE && coll != NCCL_COLL_ALLREDUCE) {
        set_off(c, coll, a, "Tree runs AllReduce only");
        continue;
      }
      for (int p = 0; p < NCCL_N_PROTOS; p++) {
        double bw = graph_bw(c, a);
        double bus, intra_lat, inter_lat, lat;

        if ((a == NCCL_ALGO_NVLS || a == NCCL_ALGO_NVLS_TREE ||
             a == NCCL_ALGO_PAT || algo_collnet(a)) &&
            p != NCCL_PROTO_SIMPLE) {
          c->off[coll][a][p] = "Simple protocol only";
          continue;
        }
        if (old_nvls(v, coll, a)) {
          bw = MIN(c->nvls_bw_intra, a == NCCL_ALGO_NVLS_TREE && nnodes > 2
                                         ? c->nvls_bw_inter / 2
                                         : c->nvls_bw_inter);
        } else if (a == NCCL_ALGO_NVLS || a == NCCL_ALGO_NVLS_TREE) {
          double intra =
              c->nvls_bw_intra * nvls_efficiency[c->arch] * (nch - 1) / nch;
          double inter = c->nvls_bw_inter *
                         (nnodes <= 2 && a == NCCL_ALGO_NVLS_TREE ? 2 : 1);

          intra *= coll == NCCL_COLL_ALLREDUCE ? 2.0 : (ppn - 1) / ppn;
          bw = intra;
          if (nnodes > 1)
            bw = MIN(bw, inter);
          if (a == NCCL_ALGO_NVLS_TREE)
            bw = MIN(bw, nvls_tree_bw[c->arch][idx2]);
        }
        bus = nch * bw;
        if (a == NCCL_ALGO_RING && p == NCCL_PROTO_LL)
          bus =
              MIN(ll_max, bus * (v >= V_2_20_UNTIL ? .5
                                 : nnodes > 1 || coll == NCCL_COLL_ALLREDUCE ||
                                         coll == NCCL_COLL_REDUCE
                                     ? .25
                                     : 1.0 / 3.0));
        if (a == NCCL_ALGO_RING && p == NCCL_PROTO_LL128)
          bus = MIN(bus * (v < V_2_20_UNTIL && ppn < 2 ? 0.7 : 0.92),
                    nch * comm_ring_ll128_bw(c, idx2));
        if (a == NCCL_ALGO_TREE && coll == NCCL_COLL_ALLREDUCE)
          bus = MIN(bus * .92, nch * comm_tree_bw(c, idx2));
        if (a == NCCL_ALGO_TREE && p == NCCL_PROTO_LL)
          bus = MIN(bus / 3.8, ll_max);
        if (a == NCCL_ALGO_TREE && p == NCCL_PROTO_LL128)
          bus = MIN(bus * (nnodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                    nch * tree_ll128_bw[c->arch][idx2]);
        /* From 2.26 a tree graph of pattern TREE, which the search makes
         * of every non-ring graph with one GPU a node (search.cc "ngpus ==
         * 1"), costs 15% (tuning.cc maxTreePattern) */
        if (a == NCCL_ALGO_TREE && ppn == 1 && v >= V_TREE_PATTERN_FROM)
          bus *= .85;
        if (a == NCCL_ALGO_PAT)
          bus *= .75;
        if (a == NCCL_ALGO_COLLNET_DIRECT) {
          double factor = ppn / nch;

          factor -= (factor - 1) / 2;
          bus /= factor;
          if (c->gpu.sm >= 90)
            bus *= .85;
        }
        /* LL128 is on by default only where NCCL trusts its ordering: NVLink
         * inside the node (typeIntra <= PATH_NVB); nor where the network
         * path goes through the CPU (typeInter beyond PXB; PXN from
         * Hopper): the socket transport's, a NIC no nearer than the CPU,
         * or one without GPUDirect RDMA.  Only at its default: where
         * NCCL_PROTO is set for the collective (--proto) LL128 is 1, not
         * 2 ("default"), if the list allows it ("LL128", "^LL"), and
         * tuning.cc skips the check.  Its bandwidth and latency are
         * still NCCL's figures (tuning.cc zeroes the bandwidth after): a
         * Ring fallback restores them (ring_bdw). */
        if (p != NCCL_PROTO_LL128 || ll128_named)
          ; /* NCCL_PROTO set for the collective enables what it allows */
        else if (!ll128_arch(v, c->gpu.sm))
          c->off[coll][a][p] =
              v < V_LL128_SM100_FROM
                  ? "LL128 is off by default on this GPU (before NCCL 2.26 "
                    "only on compute capability 7.0, 8.0 and 9.0)"
                  : "LL128 is off by default on this GPU (NCCL 2.26 only "
                    "on compute capability 7.0, 8.0, 9.0, 10.0 and 12.0)";
        else if (!c->nvl_intra)
          c->off[coll][a][p] = "LL128 is off by default without NVLink";
        else if (nnodes > 1 && c->net_via_cpu)
          c->off[coll][a][p] =
              c->socket ? "LL128 is off by default over the socket transport "
                          "(the network path goes through the CPU)"
                        : "LL128 is off by default where the network path "
                          "goes through the CPU (no GPUDirect RDMA, or the "
                          "NIC no nearer than the CPU)";
        c->bus_ch[coll][a][p] = bus / nch;
        if (old_nvls(v, coll, a))
          bus *= 5.0 / 6.0;
        else if (!(a != NCCL_ALGO_RING && rs_ag)) {
          if (a == NCCL_ALGO_RING || a == NCCL_ALGO_NVLS ||
              a == NCCL_ALGO_NVLS_TREE)
            bus *= (double)nranks / nsteps;
          else
            bus *= .5;
        }
        c->bw[coll][a][p] = c->off[coll][a][p] ? 0 : bus;
        if (a == NCCL_ALGO_RING)
          c->ring_bdw[coll][p] = bus;

        lat = tuned_base_lat(v, a, p);
        intra_lat = comm_hw_lat(c, v, intra_hw, a, p);
        /* from 2.21, one GPU per node takes Tree's network latency */
        inter_lat = ppn == 1 && v >= V_2_20_UNTIL
                        ? comm_hw_lat(c, v, NCCL_HW_NET, NCCL_ALGO_TREE, p)
                        : comm_hw_lat(c, v, NCCL_HW_NET, a, p);
        inter_lat = with_net_latency(c, v, p, inter_lat);
        if (a == NCCL_ALGO_RING) {
          double l = comm_hw_lat(c, v, hw, a, p);

          if (coll == NCCL_COLL_REDUCE || coll == NCCL_COLL_BROADCAST) {
            /* sameChannels: the rings of all channels are alike */
            lat += l;
          } else {
            double ovh = 0;
            /* 2.20.3 counted 2 n network steps for an AllReduce */
            int inter_steps =
                nnodes == 1 ? 0
                : coll == NCCL_COLL_ALLREDUCE
                    ? 2 * ((int)nnodes - (v < V_2_20_UNTIL ? 0 : 1))
                    : (int)nnodes - 1;

            if (nnodes > 1)
              ovh = NCCL_NET_OVERHEAD_US * nccl_host_net_factor(c) *
                    (p == NCCL_PROTO_SIMPLE ? 3 : 1);
            intra_lat = MAX(intra_lat, ovh);
            lat += (nsteps - inter_steps) * intra_lat + inter_steps * inter_lat;
          }
        } else if (a == NCCL_ALGO_TREE) {
          lat += 2 * ((nranks / nnodes - 1) * intra_lat +
                      log2i(nnodes) * inter_lat);
        } else if (a == NCCL_ALGO_COLLNET_DIRECT) {
          lat += 2 * (MIN(1, nranks / nnodes - 1) * intra_lat +
                      (nranks / nnodes - 1) * 0.4) +
                 inter_lat;
        } else if (a == NCCL_ALGO_COLLNET_CHAIN) {
          lat += 2 * (nranks / nnodes - 1) * intra_lat + inter_lat;
        } else if (a == NCCL_ALGO_NVLS) {
          lat = intra_lat + (nnodes > 1 ? inter_lat : 0);
        } else if (a == NCCL_ALGO_NVLS_TREE) {
          lat += intra_lat + 2 * log2i(nnodes) * inter_lat;
        } else if (a == NCCL_ALGO_PAT) {
          lat += log2i(nnodes) * (inter_lat / 3.5) + nranks * 2.8;
        }
        c->lat[coll][a][p] = lat;
      }
    }
  }
}

/* ncclTopoGetAlgoTime for one pipelined operation at algorithm
 * bandwidth bw, us; < 0: unavailable (bw 0). */
static double algo_time_at(const NcclComm *c, int coll, int a, int p,
                           guint64 bytes, double bw)
{
  double lat = c->lat[coll][a][p];
  int log_size = log2i(bytes >> 6);

  if (bw == 0)
    return -1;
  if (a == NCCL_ALGO_TREE && log_size >= 0 && log_size < 23)
    bw *= tree_correction[p][log_size];
  if (a == NCCL_ALGO_RING && p == NCCL_PROTO_SIMPLE && c->nnodes > 1 &&
      coll == NCCL_COLL_ALLREDUCE &&
      bytes / ((guint64)c->kernel_channels * c->nranks) >= 64)
    lat *= c->gpu.sm < 80 ? 1.9 : 1.4; /* the ring's plateau effect */
  return lat + bytes / (1000.0 * bw);
}

static double algo_time(const NcclComm *c, int coll, int a, int p,
                        guint64 bytes)
{
  return algo_time_at(c, coll, a, p, bytes, c->bw[coll][a][p]);
}

/* From 2.26 NCCL spreads a call over channels by its traffic
 * (enqueue.cc scheduleCollTasksToPlan): bytes x 2 for AllReduce, the
 * whole buffer for AllGather and ReduceScatter, x 4 for LL, in cells of
 * MinTrafficPerChannel (16 KiB; 32 KiB from 2.30), a channel at least a
 * cell: a small call runs on ceil(traffic / cell) channels at most.  NVLS
 * skips the thread-threshold reduction, so this is what shrinks it
 * (2.28: a 64 KiB NVLS AllReduce on 8 channels, not 16).  Before 2.26
 * (2.21's even split, 2.18's per-call channels) a call keeps them. */
#define V_TRAFFIC_CELLS_FROM 22600u
#define V_TRAFFIC_CELL_32K_FROM 23000u
static guint32 traffic_channels(const NcclComm *c, NcclColl coll, NcclProto p,
                                guint32 nc, guint64 bytes)
{
  guint32 v = nccl_comm_version(c);
  guint64 cell = v >= V_TRAFFIC_CELL_32K_FROM ? 32u << 10 : 16u << 10;
  guint64 traffic = bytes * (coll == NCCL_COLL_ALLREDUCE ? 2 : 1) *
                    (p == NCCL_PROTO_LL ? 4 : 1);
  guint64 most = (traffic + cell - 1) / cell;

  if (v < V_TRAFFIC_CELLS_FROM)
    return nc;
  return (guint32)MAX(MIN((guint64)nc, most), 1);
}

/* NCCL's thread thresholds (device.h: NCCL_LL_THREAD_THRESHOLD 8,
 * NCCL_LL128_THREAD_THRESHOLD 8, NCCL_SIMPLE_THREAD_THRESHOLD 64 bytes per
 * thread; Ring LL times the ranks) and thread counts (LL 512, LL128 640,
 * Simple 512): fewer channels for small sizes, as enqueue.cc does;
 * then the traffic's limit. */
static guint32 size_channels(const NcclComm *c, NcclColl coll, NcclAlgo a,
                             NcclProto p, guint32 nc, guint64 bytes)
{
  static const guint64 threshold[NCCL_N_PROTOS] = {8, 8, 64};
  static const guint64 threads[NCCL_N_PROTOS] = {512, 640, 512};
  guint64 th = threshold[p];
  guint64 nt = threads[p];

  if (a == NCCL_ALGO_RING && p == NCCL_PROTO_LL)
    th *= c->nranks;
  if (a == NCCL_ALGO_NVLS || a == NCCL_ALGO_NVLS_TREE)
    return traffic_channels(c, coll, p, nc, bytes);
  if (algo_collnet(a))
    return nc;
  while (bytes < nc * nt * th) {
    if (nc >= 2)
      nc--;
    else if (nt % 128 == 0)
      nt /= 2;
    else
      break;
  }
  return traffic_channels(c, coll, p, nc, bytes);
}

guint32 nccl_clamp_channels(const NcclComm *c, guint32 nc)
{
  if (c->opt.max_channels && nc > c->opt.max_channels)
    nc = c->opt.max_channels;
  if (c->opt.min_channels && nc < c->opt.min_channels)
    nc = c->opt.min_channels;
  return MAX(nc, 1);
}

/* Point-to-point operations are outside the cost model: NCCL runs them as
 * Simple over its p2p channels, an operation on as many as
 * p2p_op_cut gives it, in steps of its p2p chunk (across nodes
 * nccl_p2p_op_chunk_bytes, cut for a small operation).  The operation is
 * a pair's: the call's bytes for Send/Recv, a rank's share for AllToAll. */

const char *nccl_p2p_chunk_var(NcclP2pChunk k)
{
  static const char *const vars[] = {
      [NCCL_P2P_CHUNK_NET] = "NCCL_P2P_NET_CHUNKSIZE",
      [NCCL_P2P_CHUNK_NVL] = "NCCL_P2P_NVL_CHUNKSIZE",
      [NCCL_P2P_CHUNK_PCI] = "NCCL_P2P_PCI_CHUNKSIZE"};

  return vars[k];
}

gboolean nccl_chunk_parse(const char *name, const char *value, guint64 *out,
                          GError **error)
{
  return int_bytes_parse(name, value, "chunk size", NCCL_P2P_CHUNK_MIN,
                         "a page", out, error);
}

/* init.cc computeBuffSizes (2.18 to 2.30 alike): a communicator across
 * nodes takes NCCL_P2P_NET_CHUNKSIZE (128 KiB) for all its point-to-point
 * operations, also those inside a node; one node whose GPUs are all on
 * NVLink NCCL_P2P_NVL_CHUNKSIZE (512 KiB), another NCCL_P2P_PCI_CHUNKSIZE
 * (128 KiB); at most a Simple step. */
static NcclP2pChunk nccl_p2p_chunk_kind(const NcclComm *c)
{
  return c->nnodes > 1   ? NCCL_P2P_CHUNK_NET
         : c->all_nvlink ? NCCL_P2P_CHUNK_NVL
                         : NCCL_P2P_CHUNK_PCI;
}

guint64 nccl_p2p_chunk_bytes(const NcclComm *c)
{
  static const guint64 defaults[] = {[NCCL_P2P_CHUNK_NET] = 128u << 10,
                                     [NCCL_P2P_CHUNK_NVL] = 512u << 10,
                                     [NCCL_P2P_CHUNK_PCI] = 128u << 10};
  NcclP2pChunk k = nccl_p2p_chunk_kind(c);
  guint64 chunk =
      c->opt.p2p_chunk_bytes[k] ? c->opt.p2p_chunk_bytes[k] : defaults[k];

  return MIN(chunk, c->buff_bytes[NCCL_PROTO_SIMPLE] / NCCL_STEPS);
}

/* --explain's line on the network transport between nodes: sockets and
 * who moves their bytes, or RDMA and where GPUDirect RDMA is used. */
static void explain_network(const NcclComm *c, GString *explain)
{
  if (c->nnodes < 2)
    return;
  if (c->socket) {
    if (c->socket_socks > 0)
      g_string_append_printf(
          explain,
          "  network: NCCL's socket transport (%s), TCP through host "
          "memory; each connection has %u helper threads and %u sockets\n",
          c->opt.net_socket, c->socket_threads, c->socket_socks);
    else
      g_string_append_printf(
          explain,
          "  network: NCCL's socket transport (%s), TCP through host "
          "memory; each rank's proxy thread moves its connections' bytes "
          "([nccl] socket_thread_GBps)\n",
          c->opt.net_socket);
    return;
  }
  g_string_append_printf(
      explain, "  network: RDMA; GPUDirect RDMA for sends %s, receives %s%s",
      c->gdr_send ? "on" : "off", c->gdr_recv ? "on" : "off",
      c->gdr_send && c->gdr_recv
          ? ""
          : " (off: staged in host memory; the NIC's gpudirect, its distance "
            "against NCCL_NET_GDR_LEVEL, NCCL_NET_GDR_READ and "
            "NCCL_NET_GDR_C2C decide)");
  if (nccl_comm_data_direct(c) && (c->gdr_send || c->gdr_recv))
    g_string_append(explain, "; the NICs reach GPU memory by Data Direct, "
                             "beside the GPU (NCCL_IB_DATA_DIRECT)");
  if (nccl_comm_net_flush(c))
    g_string_append_printf(
        explain, "; Simple receives flushed by an RDMA read each step (%s)",
        c->gpu.sm < 90 ? "before Hopper"
        : nccl_comm_data_direct(c)
            ? "the Data Direct device asks it"
            : "NCCL_NET_FORCE_FLUSH, 1 by default before 2.19.1");
  if (c->qps > 1)
    g_string_append_printf(explain,
                           "; %u queue pairs a connection, each its own flow "
                           "(NCCL_IB_QPS_PER_CONNECTION)",
                           c->qps);
  if (c->gpu.nic && c->gpu.nic->reported_latency_us > 0)
    g_string_append_printf(
        explain,
        "; the net plugin reports %g us of latency, which NCCL's cost model "
        "%s (the NIC's reported_latency_us)",
        c->gpu.nic->reported_latency_us,
        nccl_comm_version(c) < V_NET_LATENCY_ADDED_FROM
            ? "takes as a network step's"
            : "adds to each network step (twice for Simple)");
  g_string_append_c(explain, '\n');
}

/* How NCCL cuts one point-to-point operation of `bytes` (enqueue.cc of
 * 2.28, addP2pToPlan with scheduleP2pTasksToPlan's bounds): the channels
 * it runs on, and into *part (unless NULL) the bytes of its largest part
 * (a channel's).
 * At most p2pnChannelsPerPeer channels, and at first as few as let every
 * peer have its own (halved while they times nRanks exceed p2pnChannels),
 * doubled while a channel's part is above the largest (a point-to-point
 * chunk across nodes, 32 of them inside one), never a part below the
 * smallest (half a chunk across nodes, an eighth inside one).  Up to 2.21
 * (calcP2pChunkSize) the part, aligned up to the smallest, cut the
 * operation into parts that took a channel each, at most
 * p2pnChannelsPerPeer; up to 2.19 that bound was also halved while it
 * times nRanks exceeded 4 x p2pnChannels. */
#define V_P2P_OP_CHANNELS_FROM 22200u
#define V_P2P_BOUND_HALVED_UNTIL 22000u

static guint32 p2p_op_cut(const NcclComm *c, guint64 bytes, guint64 *part_out)
{
  guint32 v = nccl_comm_version(c);
  guint32 most = c->p2p_peer_channels, least, nc;
  guint64 step = nccl_p2p_chunk_bytes(c);
  guint64 min_part = c->nnodes > 1 ? step / 2 : step / 8;
  guint64 max_part = c->nnodes > 1 ? step : step * 32;
  guint64 part;

  if (part_out)
    *part_out = bytes;
  if (v < V_P2P_BOUND_HALVED_UNTIL)
    while ((guint64)most * c->nranks > (guint64)c->p2p_channels * 4 && most > 1)
      most /= 2;
  least = most;
  while ((guint64)least * c->nranks > c->p2p_channels && least > 1)
    least /= 2;
  if (bytes == 0)
    return 1;
  nc = v >= V_P2P_OP_CHANNELS_FROM
           ? (guint32)MIN(least, (bytes + min_part - 1) / min_part)
           : least;
  part = MAX(min_part, (bytes + nc - 1) / nc);
  while (part > max_part && nc <= most / 2) {
    nc *= 2;
    part = (bytes + nc - 1) / nc;
  }
  if (v >= V_P2P_OP_CHANNELS_FROM) {
    if (part_out)
      *part_out = (bytes + nc - 1) / nc;
    return nc;
  }
  part = (part + min_part - 1) / min_part * min_part;
  if (part_out)
    *part_out = MIN(part, bytes);
  return (guint32)MIN((bytes + part - 1) / part, most);
}

guint64 nccl_p2p_op_chunk_bytes(const NcclComm *c, guint64 bytes)
{
  guint64 chunk = nccl_p2p_chunk_bytes(c), part;

  if (nccl_comm_version(c) < V_P2P_OP_CHANNELS_FROM) {
    p2p_op_cut(c, bytes, &part);
    bytes = part;
  }
  if (bytes < chunk)
    return chunk / 4;
  return bytes < 8 * chunk ? chunk / 2 : chunk;
}

static gboolean select_p2p(const NcclComm *c, NcclColl coll, guint64 bytes,
                           NcclChoice *out, GString *explain, GError **error)
{
  /* the operation: a pair's bytes */
  guint64 op = coll == NCCL_COLL_ALLTOALL ? bytes / c->nranks : bytes;

  if (c->opt.protos && !(c->opt.protos & (1u << NCCL_PROTO_SIMPLE))) {
    g_set_error(error, COLL_ERROR, COLL_ERROR_CONFLICT,
                "%s runs NCCL's p2p Simple protocol; the protocol choice "
                "excludes Simple",
                nccl_coll_name(coll));
    return FALSE;
  }
  out->algo = NCCL_ALGO_RING; /* reported as "P2P" by the CLI */
  out->proto = NCCL_PROTO_SIMPLE;
  out->channels = p2p_op_cut(c, op, NULL);
  out->model_us = -1;
  if (explain) {
    guint64 net_chunk = nccl_p2p_op_chunk_bytes(c, op);

    g_string_append_printf(
        explain,
        "%s %" G_GUINT64_FORMAT " B: point-to-point, not in NCCL's cost "
        "model: Simple, each operation of %" G_GUINT64_FORMAT " B on %u "
        "channels (NCCL's count: %u point-to-point channels, at most %u an "
        "operation), which move [nccl] p2p_copy_ratio %.3f of the GPU's "
        "%.1f GB/s of NCCL bandwidth; chunks of %" G_GUINT64_FORMAT " B "
        "(%s)",
        nccl_coll_name(coll), bytes, op, out->channels, c->p2p_channels,
        c->p2p_peer_channels,
        mdl_registry_nccl(topo_system_models(c->sys))->p2p_copy_ratio,
        c->gpu_GBps, nccl_p2p_chunk_bytes(c),
        nccl_p2p_chunk_var(nccl_p2p_chunk_kind(c)));
    if (c->nnodes > 1 && net_chunk < nccl_p2p_chunk_bytes(c))
      g_string_append_printf(explain,
                             ", across nodes %" G_GUINT64_FORMAT
                             " B for an operation this small (NCCL's tuning "
                             "for the network)",
                             net_chunk);
    g_string_append_c(explain, '\n');
    explain_network(c, explain);
  }
  return TRUE;
}

/* NVLSTree's chunk before a call's halvings, from `chunk` (a Simple step
 * from 2.20.3, NVLS's from 2.21.5): at most NVLSTree's largest
 * (NCCL_NVLSTREE_MAX_CHUNKSIZE or 2.30.3's tuning, else 64 KiB from 4
 * nodes; enqueue.cc calcCollChunking). */
static guint64 nvlstree_chunk(const NcclComm *c, guint64 chunk)
{
  return MIN(chunk, c->nvlstree_max_chunk ? c->nvlstree_max_chunk
                    : c->nnodes >= 4      ? 65536
                                          : chunk);
}

/* --explain's line on the graphs' bandwidths across nodes (graph_bw). */
static void explain_graphs(const NcclComm *c, GString *explain)
{
  if (c->nvls_channels) {
    guint32 v = nccl_comm_version(c);

    g_string_append_printf(
        explain,
        "  NVLS: %u channels, %u heads a node (one a GPU%s%s), chunks of at "
        "most %" G_GUINT64_FORMAT " B",
        c->nvls_channels, c->nvls_heads,
        c->nnodes > 1 ? ", across nodes one a NIC" : "",
        nccl_nvls_max_heads(v) == G_MAXUINT32 ? "" : ", at most 32",
        c->nvls_chunk);
    if (c->nnodes > 1 && v >= V_NVLSTREE_NVLS_CHUNK_FROM)
      g_string_append_printf(explain,
                             ", NVLSTree's of at most %" G_GUINT64_FORMAT " B",
                             nvlstree_chunk(c, c->nvls_chunk));
    g_string_append_c(explain, '\n');
  }
  if (c->nnodes < 2)
    return;
  g_string_append_printf(
      explain,
      "  graphs: %u channels (%u in the kernel); a ring's %.2f GB/s a "
      "channel (bwIntra = bwInter, the speed of the release's list at which "
      "the NICs and GPUs move most), a tree's %.2f (%s)\n",
      c->channels, c->kernel_channels, graph_bw(c, NCCL_ALGO_RING),
      graph_bw(c, NCCL_ALGO_TREE),
      c->nnodes > 2 ? "bwInter beyond 2 nodes"
                    : "bwIntra, raised to at most twice the ring's on 2 nodes");
}

/* NCCL's example tuner plugin over NCCL's choice (*a, *p; times[][] its
 * estimates, -1 where off): the first rule that matches the call and
 * whose algorithm and protocol can run it (pluginGetCollInfo: one a
 * single call, NCCL_ALGO_PROTO_IGNORE skipped; a buffer registered where
 * the calls are captured in a CUDA graph, NCCL_GRAPH_REGISTER being on
 * by default).  Returns the channels the plugin gives (its default 1 with
 * no rule or a rule's -1; 0 for NCCL's count), -1 without a tuner. */
static gint32 tuner_choice(const NcclComm *c, NcclColl coll, guint64 bytes,
                           double times[NCCL_N_ALGOS][NCCL_N_PROTOS], int *a,
                           int *p, GString *explain)
{
  const NcclTuner *t = c->opt.tuner;

  if (!t)
    return -1;
  for (guint i = 0; i < nccl_tuner_n_rules(t); i++) {
    const NcclTunerRule *r = nccl_tuner_rule(t, i);
    gint32 nc = r->channels == -1 ? 1 : r->channels;

    if (!nccl_tuner_rule_matches(r, coll, bytes, c->nnodes, c->nranks, 1,
                                 c->opt.graph_launches ? 1 : 0) ||
        times[r->algo][r->proto] < 0)
      continue;
    *a = (int)r->algo;
    *p = (int)r->proto;
    if (explain)
      g_string_append_printf(
          explain,
          "  tuner: NCCL's example plugin, %s:%u: %s/%s "
          "on %s\n",
          nccl_tuner_path(t), r->line, algo_names[*a], proto_names[*p],
          nc == 0             ? "NCCL's channels"
          : r->channels == -1 ? "1 channel (the plugin's default: its "
                                "-1 does not keep NCCL's count)"
          : nc == 1           ? "1 channel"
                              : "its channels");
    return nc;
  }
  if (explain)
    g_string_append_printf(explain,
                           "  tuner: NCCL's example plugin, %s: no rule "
                           "matches; NCCL's choice on 1 channel (the "
                           "plugin's default)\n",
                           nccl_tuner_path(t));
  return 1;
}

/* Where NCCL_ALGO (or NCCL_PROTO) leaves a collective no algorithm,
 * NCCL 2.19.1 to 2.23.4 run it on Ring (tuning.cc ncclTopoTuneModel: "at
 * least set ring algo available", the bandwidths of ringbdw; the tags
 * before and after fail the call, enqueue.cc "no algorithm/protocol
 * available").  Up to 2.21.5 ringbdw holds every protocol's bandwidth,
 * whatever NCCL_PROTO and LL128's default; from 2.22.3 only the enabled
 * ones'.  Fills times[Ring][] and *p with the fastest; FALSE where the
 * release has no fallback or no protocol is left. */
#define V_RING_FALLBACK_FROM 21901u
#define V_RING_FALLBACK_UNTIL 22400u
#define V_RING_FALLBACK_ENABLED_FROM 22200u

static gboolean ring_fallback(const NcclComm *c, NcclColl coll, guint32 protos,
                              guint64 bytes,
                              double times[NCCL_N_ALGOS][NCCL_N_PROTOS], int *p,
                              GString *explain)
{
  guint32 v = nccl_comm_version(c);
  gboolean all = v < V_RING_FALLBACK_ENABLED_FROM;
  double best = -1;

  if (v < V_RING_FALLBACK_FROM || v >= V_RING_FALLBACK_UNTIL)
    return FALSE;
  for (int q = 0; q < NCCL_N_PROTOS; q++) {
    gboolean on = all || ((!protos || (protos >> q) & 1) &&
                          !c->off[coll][NCCL_ALGO_RING][q]);
    double t = on ? algo_time_at(c, coll, NCCL_ALGO_RING, q, bytes,
                                 c->ring_bdw[coll][q])
                  : -1;

    times[NCCL_ALGO_RING][q] = t;
    if (t >= 0 && (best < 0 || t < best)) {
      best = t;
      *p = q;
    }
  }
  if (best >= 0 && explain)
    g_string_append_printf(
        explain,
        "  fallback: nothing allowed runs %s; NCCL %s runs Ring then "
        "(tuning.cc: \"at least set ring algo available\"), %s: "
        "LL %.2f, LL128 %.2f, Simple %.2f us\n",
        nccl_coll_name(coll), all ? "2.19.1 to 2.21.5" : "2.22.3 to 2.23.4",
        all ? "with every protocol, whatever the protocol choice and "
              "LL128's default"
            : "with the protocols enabled",
        times[NCCL_ALGO_RING][NCCL_PROTO_LL],
        times[NCCL_ALGO_RING][NCCL_PROTO_LL128],
        times[NCCL_ALGO_RING][NCCL_PROTO_SIMPLE]);
  return best >= 0;
}

#define V_FP8_RING_RELEGATED_FROM 22400u

gboolean nccl_select(const NcclComm *c, NcclColl coll, guint64 bytes,
                     NcclChoice *out, GString *explain, GError **error)
{
  double best = -1, times[NCCL_N_ALGOS][NCCL_N_PROTOS], ring_relegate;
  int best_a = -1, best_p = -1;
  guint32 algos, protos;
  gint32 tuner_nc;

  if (coll >= NCCL_N_TUNED_COLLS)
    return select_p2p(c, coll, bytes, out, explain, error);
  /* enqueue.cc from 2.24.3: an fp8 call on more than 8 ranks counts
   * Ring's estimates 1024 times ("relegate fp8 reduction trees of
   * sufficient depth that they incur precision loss"); an AllGather's
   * and a Broadcast's type is int8 by then (taskAppend) */
  ring_relegate = c->nranks > 8 && coll != NCCL_COLL_ALLGATHER &&
                          coll != NCCL_COLL_BROADCAST &&
                          nccl_comm_version(c) >= V_FP8_RING_RELEGATED_FROM &&
                          c->opt.dtype &&
                          g_ascii_strncasecmp(c->opt.dtype, "f8", 2) == 0
                      ? 1024
                      : 1;
  algos = nccl_allowed_algos(&c->opt, coll);
  protos = nccl_allowed_protos(&c->opt, coll);
  if (explain) {
    g_autofree char *v = nccl_version_text(nccl_comm_version(c));

    g_string_append_printf(explain,
                           "%s %" G_GUINT64_FORMAT " B, %u ranks on "
                           "%u nodes, NCCL %s's cost model:\n",
                           nccl_coll_name(coll), bytes, c->nranks, c->nnodes,
                           v);
    explain_network(c, explain);
    explain_graphs(c, explain);
  }
  for (int a = 0; a < NCCL_N_ALGOS; a++) {
    for (int p = 0; p < NCCL_N_PROTOS; p++) {
      double t, rank_t;
      const char *why = c->off[coll][a][p];

      if (!why && algos && !(algos & (1u << a)))
        why = "excluded by the algorithm choice";
      if (!why && protos && !(protos & (1u << p)))
        why = "excluded by the protocol choice";
      t = why ? -1 : algo_time(c, coll, a, p, bytes);
      times[a][p] = t;
      if (explain) {
        if (why)
          g_string_append_printf(explain, "  %-13s %-6s  off: %s\n",
                                 algo_names[a], proto_names[p], why);
        else
          g_string_append_printf(explain,
                                 "  %-13s %-6s  latency %8.2f us  bw %8.2f "
                                 "GB/s  time %10.2f us\n",
                                 algo_names[a], proto_names[p],
                                 c->lat[coll][a][p], c->bw[coll][a][p], t);
      }
      rank_t = a == NCCL_ALGO_RING ? t * ring_relegate : t;
      if (t >= 0 && (best < 0 || rank_t < best)) {
        best = rank_t;
        best_a = a;
        best_p = p;
      }
    }
  }
  if (ring_relegate > 1 && explain)
    g_string_append(explain, "  fp8: Ring's estimates count 1024 times "
                             "(enqueue.cc: fp8 reduced over more than 8 "
                             "ranks in a ring loses precision)\n");
  if (best_a < 0 &&
      ring_fallback(c, coll, protos, bytes, times, &best_p, explain))
    best_a = NCCL_ALGO_RING;
  if (best_a < 0) {
    g_set_error(
        error, COLL_ERROR, COLL_ERROR_CONFLICT,
        "no NCCL algorithm and protocol allowed by the choice can run "
        "%s on this system (%u ranks, %u nodes), and NCCL %s such a call "
        "(only 2.19.1 to 2.23.4 fall back to Ring); ifsim run --explain "
        "lists why each is off",
        nccl_coll_name(coll), c->nranks, c->nnodes,
        nccl_comm_version(c) >= V_RING_FALLBACK_UNTIL ? "2.24 and later fail"
                                                      : "before 2.19.1 fails");
    return FALSE;
  }
  tuner_nc = tuner_choice(c, coll, bytes, times, &best_a, &best_p, explain);
  best = times[best_a][best_p];
  out->algo = (NcclAlgo)best_a;
  out->proto = (NcclProto)best_p;
  out->model_us = best;
  {
    guint32 nc = best_a == NCCL_ALGO_NVLS || best_a == NCCL_ALGO_NVLS_TREE
                     ? c->nvls_channels
                     : c->kernel_channels;

    /* a tuner's count replaces NCCL's (enqueue.cc getAlgoInfo), within
     * the channels of the algorithm's kind; the plan still spreads the
     * traffic over no more than it fills (scheduleCollTasksToPlan) */
    out->channels = nccl_clamp_channels(
        c, tuner_nc > 0
               ? traffic_channels(c, coll, out->proto,
                                  MIN((guint32)tuner_nc, nc), bytes)
               : size_channels(c, coll, out->algo, out->proto, nc, bytes));
  }
  if (explain)
    g_string_append_printf(
        explain,
        "  -> %s/%s on %u channels: %s (%.2f us); "
        "NCCL's pipeline step %" G_GUINT64_FORMAT " B\n",
        algo_names[best_a], proto_names[best_p], out->channels,
        c->opt.tuner ? "the tuner's choice, NCCL's estimate"
                     : "the smallest estimate",
        best,
        nccl_slice_bytes(c, coll, out->algo, out->proto, out->channels, bytes));
  return TRUE;
}

/* NCCL's pipelining unit for a call: calcCollChunking in enqueue.cc
 * (2.2x).  A step is a buffer / NCCL_STEPS (NCCL_BUFFSIZE, 4 MiB for
 * Simple; NCCL_LL_BUFFSIZE, 512 KiB of lines for LL; NCCL_LL128_BUFFSIZE,
 * 4 915 200 B of lines for LL128: nccl_step_data_bytes); Ring Simple
 * AllReduce, AllGather and ReduceScatter move chunks of 4 steps in slices
 * of 2 (collectives.h *_CHUNKSTEPS, *_SLICESTEPS), Broadcast and Reduce
 * and the other algorithms one step at a time.  Small calls shrink the
 * chunk so that the pipeline still fills: Tree LL128 by its depth in
 * nodes and ranks per node, NVLS (at most 128 KiB, 32 KiB across nodes
 * below 150 GB/s) and NVLSTree (128 KiB, 64 KiB at 4 nodes and more;
 * before 2.21 a Simple step) by the operations in flight (channels x
 * heads, a head per GPU of a node), CollNet Chain by its depth, PAT by
 * its channels.  LL128 chunks are then whole grains of 1920 B (a warp's
 * lines).  Returns data bytes. */
/* NCCL's LL128 grain (ncclProtoGrainSize): a warp's 16 lines of 16
 * eight-byte words, 15 of each line data: 32 x 8 x 8 B x 15/16. */
#define NCCL_LL128_GRAIN 1920u

/* enqueue.cc's halvings of a chunk by the depth of a chain or tree
 * (CollNet Chain, and Tree/Simple up to 2.19): while a channel holds
 * fewer than `at128k` chunks, down to 128 KiB; fewer than `at64k`, to 64
 * KiB; fewer than `at32k`, to 32 KiB. */
static guint64 shrink_chunk(guint64 bytes, guint32 nch, guint64 chunk,
                            guint64 at128k, guint64 at64k, guint64 at32k)
{
  while (bytes / (nch * chunk) < at128k && chunk > 131072)
    chunk /= 2;
  while (bytes / (nch * chunk) < at64k && chunk > 65536)
    chunk /= 2;
  while (bytes / (nch * chunk) < at32k && chunk > 32768)
    chunk /= 2;
  return chunk;
}

guint64 nccl_slice_bytes(const NcclComm *c, NcclColl coll, NcclAlgo a,
                         NcclProto p, guint32 nch, guint64 bytes)
{
  const guint64 simple_step = nccl_step_data_bytes(c, NCCL_PROTO_SIMPLE);
  guint32 v = nccl_comm_version(c);
  /* the operations in flight: channels x the NVLS graph's heads */
  guint64 chunk, ops = (guint64)MAX(nch, 1) * MAX(c->nvls_heads, 1);

  switch (p) {
  case NCCL_PROTO_LL: return nccl_step_data_bytes(c, p);
  case NCCL_PROTO_LL128: chunk = nccl_step_data_bytes(c, p); break;
  default:
    chunk = a == NCCL_ALGO_RING && coll != NCCL_COLL_BROADCAST &&
                    coll != NCCL_COLL_REDUCE
                ? 4 * simple_step
                : simple_step;
    break;
  }
  nch = MAX(nch, 1);
  switch (a) {
  case NCCL_ALGO_RING:
    return p == NCCL_PROTO_SIMPLE && chunk > simple_step ? chunk / 2 : chunk;
  case NCCL_ALGO_TREE:
    if (p == NCCL_PROTO_LL128) {
      double ppn = (double)c->nranks / c->nnodes;
      double steps = 1 + log2i(c->nnodes) + 0.1 * ppn;

      while ((double)(bytes / (nch * chunk)) < steps * 64 / ppn &&
             chunk > 131072)
        chunk /= 2;
      while ((double)(bytes / (nch * chunk)) < steps * 16 / ppn &&
             chunk > 32768)
        chunk /= 2;
      chunk = chunk / NCCL_LL128_GRAIN * NCCL_LL128_GRAIN;
    } else if (p == NCCL_PROTO_SIMPLE && coll == NCCL_COLL_ALLREDUCE &&
               nccl_comm_version(c) < V_TREE_DEPTH_CHUNK_UNTIL) {
      /* Up to 2.19 (enqueue.cc computeColl, "Optimize chunkSize /
       * nSteps"; gone from 2.20.3) Tree/Simple's up-and-down pattern
       * shrinks its chunk while each channel has few of them for the
       * tree's depth, connect.cc's ppn - 1 + log2(nodes). */
      guint64 depth = c->ppn - 1 + (guint64)log2i(c->nnodes);

      chunk = shrink_chunk(bytes, nch, chunk, depth * 8, depth * 4, depth);
    }
    return chunk;
  case NCCL_ALGO_NVLS:
    chunk = MIN(
        chunk,
        v >= V_NVLS_NET_CHUNK_FROM && c->nnodes > 1 &&
                c->bw[NCCL_COLL_ALLREDUCE][NCCL_ALGO_NVLS][NCCL_PROTO_SIMPLE] <
                    150
            ? 32768
            : MAX(c->nvls_chunk, 1));
    if (bytes < 64 * ops * chunk && chunk > 65536)
      chunk = 65536;
    if (bytes < 8 * ops * chunk && chunk > 32768)
      chunk = 32768;
    if (bytes < 2 * ops * chunk && chunk > 16384)
      chunk = 16384;
    return chunk;
  case NCCL_ALGO_NVLS_TREE:
    if (v >= V_NVLSTREE_NVLS_CHUNK_FROM)
      chunk = nvlstree_chunk(c, c->nvls_chunk);
    else if (v >= V_NVLSTREE_MAX_CHUNK_FROM)
      chunk = nvlstree_chunk(c, chunk);
    else if (v >= V_NVLS_NET_CHUNK_FROM && c->nnodes >= 4)
      chunk = 65536;
    if (bytes < 32 * ops * chunk && chunk > 262144)
      chunk = 262144;
    if (bytes < 16 * ops * chunk && chunk > 131072)
      chunk = 131072;
    if (bytes < 4 * ops * chunk && chunk > 65536)
      chunk = 65536;
    if (bytes < ops * chunk && chunk > 32768)
      chunk = 32768;
    return chunk;
  case NCCL_ALGO_COLLNET_CHAIN:
    return shrink_chunk(bytes, nch, MIN(256u << 10, simple_step),
                        (guint64)c->ppn * 64, (guint64)c->ppn * 8, c->ppn);
  case NCCL_ALGO_PAT:
    while (chunk * nch * (coll == NCCL_COLL_ALLGATHER ? 32 : 16) > bytes &&
           chunk > 65536)
      chunk /= 2;
    return chunk;
  default:
    /* CollNet Direct shrinks by its heads and depth, which ifsim's
     * CollNet plan does not have: one step */
    return chunk;
  }
}

double nccl_host_net_factor(const NcclComm *c)
{
  return c->gpu.cpu == TOPO_CPU_AMD ? 2.0 : 1.0;
}

gboolean nccl_launch_per_channel(guint32 version)
{
  return (version ? version : NCCL_VERSION_DEFAULT) < 22200;
}

double nccl_launch_cost_us(double launch_us, double per_channel_us,
                           guint32 channels, guint32 version)
{
  if (!nccl_launch_per_channel(version))
    return launch_us;
  return launch_us + (double)(MAX(channels, 1) - 1) * per_channel_us;
}

double nccl_launch_us(const NcclComm *c, guint32 channels)
{
  const MdlNcclTuning *t = mdl_registry_nccl(topo_system_models(c->sys));

  return nccl_launch_cost_us(t->host_launch_us, t->host_launch_per_channel_us,
                             channels, nccl_comm_version(c));
}

/* n calls timed as one loop (nccl_tests_time): the host takes first_ps
 * before the first call can start and host_pace_ps a call after, the GPUs
 * call_ps for one and pace_ps between two; n = 0: the steady pace. */
static SimTime loop_time(SimTime call_ps, SimTime pace_ps, SimTime first_ps,
                         SimTime host_pace_ps, guint64 n)
{
  SimTime pace = MAX(MIN(pace_ps, call_ps), host_pace_ps);

  if (n == 0)
    return pace;
  return (SimTime)llround(
      ((double)first_ps + (double)call_ps + (double)(n - 1) * (double)pace) /
      (double)n);
}

SimTime nccl_tests_loop_time(SimTime call_ps, SimTime pace_ps, SimTime host_ps,
                             guint32 n)
{
  return loop_time(call_ps, pace_ps, host_ps, host_ps, n);
}

SimTime nccl_tests_time(const NcclComm *c, SimTime call_ps, SimTime pace_ps,
                        guint32 channels)
{
  guint32 g = MAX(c->opt.gpus_per_process, 1);
  guint32 n = c->opt.iterations;
  SimTime round;

  if (c->opt.graph_launches == 0)
    return nccl_tests_loop_time(
        call_ps, pace_ps,
        (SimTime)llround(g * nccl_launch_us(c, channels) * SIM_PS_PER_US), n);
  /* a round of G graph launches, each taken as a launch on one channel,
   * runs n calls */
  round = (SimTime)llround(g * nccl_launch_us(c, 1) * SIM_PS_PER_US);
  return loop_time(call_ps, pace_ps, round, n ? round / n : 0,
                   (guint64)n * c->opt.graph_launches);
}
