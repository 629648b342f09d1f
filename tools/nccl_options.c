/* NCCL's knobs on the command line; see tools/nccl_options.h. */
#include "tools/nccl_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const nccl_fidelities[] = {"analytical", "flow", "packet",
                                              NULL};

void cli_nccl_add_entries(GOptionGroup *group, CliNcclOptions *o)
{
  const GOptionEntry entries[] = {
      {"algo", 0, 0, G_OPTION_ARG_STRING, &o->algo,
       "NCCL algorithms allowed, as NCCL_ALGO: ring, tree, nvls, nvlstree, "
       "collnetdirect, collnetchain, pat; a list, or ^list to exclude",
       "LIST"},
      {"proto", 0, 0, G_OPTION_ARG_STRING, &o->proto,
       "NCCL protocols allowed, as NCCL_PROTO: ll, ll128, simple", "LIST"},
      {"nccl-version", 0, 0, G_OPTION_ARG_STRING, &o->nccl_version,
       "Choose as this NCCL release's cost model does, e.g. 2.26.2 "
       "(default 2.28.9; docs/nccl.md lists what differs)",
       "VERSION"},
      {"channels", 0, 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,
       "Force the channel count (as NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS)",
       "N"},
      {"collnet", 0, 0, G_OPTION_ARG_NONE, &o->collnet,
       "Let NCCL use the network's SHARP reductions (CollNet, multi-node "
       "NVLS), as NCCL_COLLNET_ENABLE=1 with the SHARP plugin",
       NULL},
      {"fidelity", 0, 0, G_OPTION_ARG_STRING, &o->fidelity,
       "Transport: flow (default), analytical or packet", "LEVEL"},
      {"no-fold", 0, 0, G_OPTION_ARG_NONE, &o->no_fold,
       "Run every channel of a collective, and every round of each of its "
       "connections, as transfers of their own, and with --fidelity packet "
       "every packet as events; by default channels that move the same "
       "bytes over the same paths run as one, a connection nothing waits "
       "on moves its bytes in one transfer, a packet flow alone on its "
       "path runs in closed form, and an AllToAll of 128 ranks or more is "
       "computed in closed form (docs/transports.md)",
       NULL},
      {"no-shortcut", 0, 0, G_OPTION_ARG_STRING, &o->no_shortcut,
       "Turn these of --no-fold's shortcuts off, the others kept: fold "
       "(alike channels as one transfer; exact), whole (a connection "
       "nothing waits on in one transfer; within 1.5%), closed-form (a "
       "packet flow alone on its path; exact but for the order of "
       "simultaneous events), alltoall (an AllToAll of 128 ranks or more "
       "in closed form; within 1%); a comma-separated list",
       "LIST"},
      G_OPTION_ENTRY_NULL};

  cli_add_entries(group, entries);
}

void cli_nccl_options_clear(CliNcclOptions *o)
{
  g_free(o->algo);
  g_free(o->proto);
  g_free(o->nccl_version);
  g_free(o->fidelity);
  g_free(o->no_shortcut);
}

/* The shortcuts --no-shortcut names (docs/transports.md), in the order
 * its help and messages give them. */
static const char *const nccl_shortcuts[] = {"fold", "whole", "closed-form",
                                             "alltoall", NULL};

/* --no-fold and --no-shortcut's list into n's no_fold, all_rounds,
 * packetwise and no_alltoall_closed; flag names the list in messages. */
static gboolean shortcuts_check(const CliNcclOptions *o, const char *flag,
                                NcclOptions *n, GError **error)
{
  gboolean off[G_N_ELEMENTS(nccl_shortcuts) - 1] = {0};

  if (o->no_shortcut) {
    g_auto(GStrv) names = g_strsplit(o->no_shortcut, ",", -1);

    for (guint i = 0; names[i]; i++) {
      g_autofree char *name = g_strdup(g_strstrip(names[i]));

      if (!cli_check_name(&name, flag, nccl_shortcuts, error))
        return FALSE;
      for (guint k = 0; nccl_shortcuts[k]; k++)
        off[k] |= strcmp(name, nccl_shortcuts[k]) == 0;
    }
  }
  n->no_fold = o->no_fold || off[0];
  n->all_rounds = o->no_fold || off[1];
  n->packetwise = o->no_fold || off[2];
  n->no_alltoall_closed = o->no_fold || off[3];
  return TRUE;
}

/* An integer from lo to hi in environment variable name, as NCCL reads
 * one (nccl_param_parse), into *out (kept when the variable is unset or
 * empty). */
static gboolean env_uint(const char *name, guint32 lo, guint32 hi,
                         const char *what, guint32 *out, GError **error)
{
  const char *v = g_getenv(name);
  g_autofree char *label = g_strconcat("environment ", name, NULL);
  g_autofree char *expected = g_strdup_printf("%s from %u to %u", what, lo, hi);
  guint64 n;

  if (!v || !*v)
    return TRUE;
  if (!nccl_param_parse(label, v, lo, hi, expected, &n, error))
    return FALSE;
  *out = (guint32)n;
  return TRUE;
}

/* A channel count from the environment (NCCL_MIN_NCHANNELS, ...). */
static gboolean env_channels(const char *name, guint32 *out, GError **error)
{
  return env_uint(name, 1, NCCL_MAX_CHANNELS, "a channel count", out, error);
}

/* NCCL_SOCKET_NTHREADS and NCCL_NSOCKS_PERTHREAD (transport/net_socket.cc
 * ncclNetSocketGetNsockNthread): helper threads per connection, at most
 * MAX_THREADS 16, and sockets per thread, at most MAX_SOCKETS 64; NCCL
 * lowers the second so that a connection has at most 64 sockets
 * (nccl_comm_new does).  Each is kept as its value + 1, 0 when unset:
 * NCCL then chooses by the NIC's vendor. */
static gboolean socket_threads(NcclOptions *n, GError **error)
{
  guint32 threads = G_MAXUINT32, per = G_MAXUINT32;

  if (!env_uint("NCCL_SOCKET_NTHREADS", 0, 16,
                "a thread count (NCCL's MAX_THREADS)", &threads, error) ||
      !env_uint("NCCL_NSOCKS_PERTHREAD", 0, 64,
                "a socket count (NCCL's MAX_SOCKETS)", &per, error))
    return FALSE;
  n->socket_nthreads = threads == G_MAXUINT32 ? 0 : threads + 1;
  n->socket_nsocks_per_thread = per == G_MAXUINT32 ? 0 : per + 1;
  return TRUE;
}

/* NCCL_IB_DISABLE and NCCL_NET: which network transport NCCL takes
 * between servers (transport/net_ib/init.cc IB_DISABLE, an integer, any
 * non-zero value disabling; init.cc NCCL_NET, a transport's name).  IB
 * (RDMA over InfiniBand or RoCE, also through Google's gIB plugin and
 * AWS's aws-ofi-nccl over EFA, whose NICs the system describes) is what
 * ifsim models, and the socket transport (NcclOptions.net_socket); other
 * plugins are refused here. */
static gboolean net_transport(NcclOptions *n, GError **error)
{
  const char *off = g_getenv("NCCL_IB_DISABLE");
  const char *net = g_getenv("NCCL_NET");
  gint64 v;

  if (off && *off) {
    if (!g_ascii_string_to_signed(off, 10, G_MININT32, G_MAXINT32, &v, NULL)) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "environment NCCL_IB_DISABLE='%s': expected an integer (0: "
                  "RDMA, else NCCL's socket transport)",
                  off);
      return FALSE;
    }
    if (v != 0)
      n->net_socket = "NCCL_IB_DISABLE";
  }
  if (net && *net) {
    if (g_ascii_strcasecmp(net, "Socket") == 0) {
      n->net_socket = "NCCL_NET=Socket";
    } else if (g_ascii_strcasecmp(net, "IB") != 0 &&
               g_ascii_strcasecmp(net, "gIB") != 0 &&
               g_ascii_strcasecmp(net, "AWS Libfabric") != 0 &&
               g_ascii_strcasecmp(net, "Libfabric") != 0) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "environment NCCL_NET='%s': ifsim models NCCL's IB "
                  "transport and the RDMA plugins (IB; gIB, Google's; AWS "
                  "Libfabric, aws-ofi-nccl over EFA: RDMA writes over the "
                  "system's NICs) and its socket transport (Socket, TCP); "
                  "other plugins are not modelled",
                  net);
      return FALSE;
    } else if (n->net_socket) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "environment NCCL_NET='%s' asks for RDMA, but "
                  "NCCL_IB_DISABLE='%s' turns it off",
                  net, off);
      return FALSE;
    }
  }
  return socket_threads(n, error);
}

/* NCCL_NET_GDR_LEVEL, NCCL_NET_GDR_READ and NCCL_NET_GDR_C2C
 * (graph/paths.cc ncclTopoCheckGdr): how far a NIC may be from a GPU for
 * GPUDirect RDMA, whether sends read GPU memory directly, and whether a
 * NIC on the CPU of an NVLink-C2C GPU counts as near. */
static gboolean gdr_options(NcclOptions *n, GError **error)
{
  static const char *const vars[] = {"NCCL_NET_GDR_READ", "NCCL_NET_GDR_C2C"};
  guint32 *const fields[] = {&n->gdr_read, &n->gdr_c2c};

  if (!nccl_path_level_parse("environment NCCL_NET_GDR_LEVEL",
                             g_getenv("NCCL_NET_GDR_LEVEL"), &n->gdr_level,
                             error))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS(vars); i++) {
    const char *v = g_getenv(vars[i]);

    if (!v || !*v)
      continue;
    if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "environment %s='%s': expected 0 or 1", vars[i], v);
      return FALSE;
    }
    *fields[i] = v[0] == '1' ? 2 : 1;
  }
  return TRUE;
}

/* How a knob was given: name's words for it, else its flag. */
#define KNOB(key, flag) (name ? name(name_ctx, key) : flag)

gboolean cli_nccl_check(CliNcclOptions *o, NcclOptions *n,
                        const char *(*name)(void *ctx, const char *key),
                        void *name_ctx, GError **error)
{
  const char *algo = o->algo ? o->algo : g_getenv("NCCL_ALGO");
  const char *proto = o->proto ? o->proto : g_getenv("NCCL_PROTO");
  const char *cn = g_getenv("NCCL_COLLNET_ENABLE");

  if (!cli_check_name(&o->fidelity, KNOB("fidelity", "--fidelity"),
                      nccl_fidelities, error))
    return FALSE;
  if (algo &&
      !nccl_parse_algos(algo, o->algo ? KNOB("algo", "--algo") : "NCCL_ALGO",
                        &n->algos, n->coll_algos, error))
    return FALSE;
  if (proto && !nccl_parse_protos(
                   proto, o->proto ? KNOB("proto", "--proto") : "NCCL_PROTO",
                   &n->protos, n->coll_protos, error))
    return FALSE;
  {
    /* NCCL takes the larger of NCCL_MIN_NCHANNELS and NCCL_MIN_CTAS, the
     * smaller of the two maxima (graph/connect.cc ncclTopoPostset) */
    guint32 min_ctas = 0, max_ctas = 0;

    if (!env_channels("NCCL_MIN_NCHANNELS", &n->min_channels, error) ||
        !env_channels("NCCL_MAX_NCHANNELS", &n->max_channels, error) ||
        !env_channels("NCCL_MIN_CTAS", &min_ctas, error) ||
        !env_channels("NCCL_MAX_CTAS", &max_ctas, error))
      return FALSE;
    n->min_channels = MAX(n->min_channels, min_ctas);
    if (max_ctas)
      n->max_channels =
          n->max_channels ? MIN(n->max_channels, max_ctas) : max_ctas;
  }
  if (o->channels_seen) {
    if (o->channels == 0 || o->channels > NCCL_MAX_CHANNELS) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "%s: %" G_GUINT64_FORMAT " is not from 1 to %d",
                  KNOB("channels", "--channels"), o->channels,
                  NCCL_MAX_CHANNELS);
      return FALSE;
    }
    n->min_channels = n->max_channels = (guint32)o->channels;
  }
  if (n->min_channels && n->max_channels && n->min_channels > n->max_channels) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "the minimum channels (%u: NCCL_MIN_NCHANNELS, NCCL_MIN_CTAS) "
                "are above the maximum (%u: NCCL_MAX_NCHANNELS, "
                "NCCL_MAX_CTAS)",
                n->min_channels, n->max_channels);
    return FALSE;
  }
  if (o->nccl_version &&
      !nccl_version_parse(o->nccl_version,
                          KNOB("nccl_version", "--nccl-version"),
                          &n->nccl_version, error))
    return FALSE;
  if (cn && strcmp(cn, "0") != 0 && strcmp(cn, "1") != 0) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "environment NCCL_COLLNET_ENABLE='%s': expected 0 or 1", cn);
    return FALSE;
  }
  n->collnet = o->collnet || (cn && strcmp(cn, "1") == 0);
  if (!shortcuts_check(o, KNOB("no_shortcut", "--no-shortcut"), n, error) ||
      !net_transport(n, error) || !gdr_options(n, error))
    return FALSE;
  {
    /* net_ib.cc: 5 bits of timeout (0: wait forever, which NCCL does not
     * set), 3 of retries */
    guint32 t = G_MAXUINT32, r = G_MAXUINT32;

    if (!env_uint("NCCL_IB_TIMEOUT", 1, 31, "an exponent", &t, error) ||
        !env_uint("NCCL_IB_RETRY_CNT", 0, 7, "a retry count", &r, error))
      return FALSE;
    n->ib_timeout = t == G_MAXUINT32 ? 0 : t + 1;
    n->ib_retry_cnt = r == G_MAXUINT32 ? 0 : r + 1;
  }
  {
    /* nvls.cc: 0 off, 2 (the default) where the GPUs have it, any other
     * value forces it; ifsim takes the three NCCL documents */
    guint32 v = G_MAXUINT32;

    if (!env_uint("NCCL_NVLS_ENABLE", 0, 2, "a setting", &v, error))
      return FALSE;
    n->nvls_enable = v == G_MAXUINT32 ? 0 : v + 1;
  }
  {
    /* graph/paths.cc ncclTopoNeedFlush: NCCL reads any integer, nonzero
     * forcing the flush; ifsim takes the two it documents */
    guint32 v = G_MAXUINT32;

    if (!env_uint("NCCL_NET_FORCE_FLUSH", 0, 1, "a setting", &v, error))
      return FALSE;
    n->net_force_flush = v == G_MAXUINT32 ? 0 : v + 1;
  }
  {
    /* net_ib ncclIbInitDevices: 0 leaves Data Direct unused, any other
     * value uses it; 2.30 reads 2 as exposing the device by its C2C path
     * too, which a GPU beside the Data Direct one does not pick */
    guint32 v = G_MAXUINT32;

    if (!env_uint("NCCL_IB_DATA_DIRECT", 0, 2, "a setting", &v, error))
      return FALSE;
    n->ib_data_direct = v == G_MAXUINT32 ? 0 : v + 1;
  }
  {
    /* search.cc: PXN is off where NCCL_PXN_DISABLE is 1 (ncclPxnDisable)
     * or NCCL_P2P_PXN_LEVEL 0; levels 1 and 2 differ where a GPU reaches
     * the receiver's rail NIC other than by NVLink, which ifsim's servers
     * do not */
    guint32 off = G_MAXUINT32, level = G_MAXUINT32;

    if (!env_uint("NCCL_PXN_DISABLE", 0, 1, "a setting", &off, error) ||
        !env_uint("NCCL_P2P_PXN_LEVEL", 0, 2, "a level", &level, error))
      return FALSE;
    n->pxn_disable = off == G_MAXUINT32 ? 0 : off + 1;
    n->p2p_pxn_level = level == G_MAXUINT32 ? 0 : level + 1;
  }
  if (!nccl_ib_qps_parse("environment NCCL_IB_QPS_PER_CONNECTION",
                         g_getenv("NCCL_IB_QPS_PER_CONNECTION"), &n->ib_qps,
                         error))
    return FALSE;
  /* init.cc computeBuffSizes: each protocol's connection buffers */
  for (guint p = 0; p < NCCL_N_PROTOS; p++) {
    const char *var = nccl_buffsize_var((NcclProto)p);
    g_autofree char *what = g_strconcat("environment ", var, NULL);

    if (!nccl_buffsize_parse(what, g_getenv(var), &n->buff_bytes[p], error))
      return FALSE;
  }
  /* nvls.cc: NVLS's chunk and NVLSTree's largest */
  if (!nccl_chunk_parse("environment NCCL_NVLS_CHUNKSIZE",
                        g_getenv("NCCL_NVLS_CHUNKSIZE"), &n->nvls_chunk_bytes,
                        error) ||
      !nccl_chunk_parse("environment NCCL_NVLSTREE_MAX_CHUNKSIZE",
                        g_getenv("NCCL_NVLSTREE_MAX_CHUNKSIZE"),
                        &n->nvlstree_max_chunk_bytes, error))
    return FALSE;
  /* init.cc computeBuffSizes: the point-to-point chunks */
  for (guint k = 0; k < G_N_ELEMENTS(n->p2p_chunk_bytes); k++) {
    const char *var = nccl_p2p_chunk_var((NcclP2pChunk)k);
    g_autofree char *what = g_strconcat("environment ", var, NULL);

    if (!nccl_chunk_parse(what, g_getenv(var), &n->p2p_chunk_bytes[k], error))
      return FALSE;
  }
  return nccl_p2p_level_parse(g_getenv("NCCL_P2P_DISABLE"),
                              g_getenv("NCCL_P2P_LEVEL"), &n->p2p_level, error);
}

#undef KNOB

NcclExec cli_nccl_exec(const CliNcclOptions *o)
{
  if (o->fidelity && strcmp(o->fidelity, "analytical") == 0)
    return NCCL_EXEC_ANALYTICAL;
  if (o->fidelity && strcmp(o->fidelity, "packet") == 0)
    return NCCL_EXEC_PACKET;
  return NCCL_EXEC_FLOW;
}

const char *cli_nccl_fidelity(const CliNcclOptions *o)
{
  return o->fidelity ? o->fidelity : "flow";
}

/* The NCCL_* variables the commands read (cli_nccl_check and the
 * functions above), and NCCL's logging ones, which change nothing
 * measured. */
static const char *const env_read[] = {"NCCL_ALGO",
                                       "NCCL_PROTO",
                                       "NCCL_MIN_NCHANNELS",
                                       "NCCL_MAX_NCHANNELS",
                                       "NCCL_MIN_CTAS",
                                       "NCCL_MAX_CTAS",
                                       "NCCL_COLLNET_ENABLE",
                                       "NCCL_IB_DISABLE",
                                       "NCCL_IB_TIMEOUT",
                                       "NCCL_IB_RETRY_CNT",
                                       "NCCL_IB_QPS_PER_CONNECTION",
                                       "NCCL_IB_DATA_DIRECT",
                                       "NCCL_NET",
                                       "NCCL_NET_GDR_LEVEL",
                                       "NCCL_NET_GDR_READ",
                                       "NCCL_NET_GDR_C2C",
                                       "NCCL_NET_FORCE_FLUSH",
                                       "NCCL_SOCKET_NTHREADS",
                                       "NCCL_NSOCKS_PERTHREAD",
                                       "NCCL_P2P_DISABLE",
                                       "NCCL_P2P_LEVEL",
                                       "NCCL_NVLS_ENABLE",
                                       "NCCL_PXN_DISABLE",
                                       "NCCL_P2P_PXN_LEVEL",
                                       "NCCL_BUFFSIZE",
                                       "NCCL_LL_BUFFSIZE",
                                       "NCCL_LL128_BUFFSIZE",
                                       "NCCL_P2P_NET_CHUNKSIZE",
                                       "NCCL_P2P_NVL_CHUNKSIZE",
                                       "NCCL_P2P_PCI_CHUNKSIZE",
                                       "NCCL_NVLS_CHUNKSIZE",
                                       "NCCL_NVLSTREE_MAX_CHUNKSIZE",
                                       "NCCL_DEBUG",
                                       "NCCL_DEBUG_SUBSYS",
                                       "NCCL_DEBUG_FILE",
                                       "NCCL_DEBUG_TIMESTAMP_FORMAT",
                                       "NCCL_DEBUG_TIMESTAMP_LEVELS",
                                       NULL};

static int strcmp_ptr(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

gboolean cli_nccl_env_modelled(const char *name)
{
  return g_strv_contains(env_read, name) &&
         !g_str_has_prefix(name, "NCCL_DEBUG");
}

void cli_nccl_env_notes(const char *command)
{
  g_auto(GStrv) names = g_listenv();
  guint n = g_strv_length(names);

  qsort(names, n, sizeof(char *), strcmp_ptr);
  for (guint i = 0; i < n; i++) {
    if (!g_str_has_prefix(names[i], "NCCL_") ||
        g_strv_contains(env_read, names[i]))
      continue;
    fprintf(stderr,
            "ifsim: %s: note: %s=%s in the environment is not modelled: "
            "predicted with NCCL's default\n",
            command, names[i], g_getenv(names[i]) ? g_getenv(names[i]) : "");
  }
}
