/* The NCCL_* variables the model follows, read into NcclOptions the way
 * NCCL reads them; see nccl_env_read in collectives/nccl/nccl.h. */
#include "collectives/error.h"
#include "collectives/nccl/nccl.h"

#include <string.h>

const char *const nccl_env_vars[] = {"NCCL_ALGO",
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
                                     "NCCL_PAT_ENABLE",
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
                                     NULL};

gboolean nccl_env_known(const char *name)
{
  return name && g_strv_contains(nccl_env_vars, name);
}

/* What nccl_env_read works with: where the values come from and how its
 * errors name the place. */
typedef struct {
  NcclEnvGet get;
  void *ctx;
  const char *origin; /* "environment", "x.csv: environment" */
} EnvSource;

static const char *env_get(const EnvSource *s, const char *name)
{
  const char *v = s->get(s->ctx, name, NULL);

  return v && *v ? v : NULL;
}

/* Where variable name's value came from, as messages name it: the
 * source's own words for it, else the reader's origin. */
static const char *env_origin(const EnvSource *s, const char *name)
{
  const char *where = NULL;

  s->get(s->ctx, name, &where);
  return where ? where : s->origin;
}

/* "ORIGIN NAME", as the parsers name a variable (free it). */
static char *env_label(const EnvSource *s, const char *name)
{
  return g_strconcat(env_origin(s, name), " ", name, NULL);
}

/* An integer from lo to hi, as NCCL reads one (nccl_param_parse), into
 * *out as its value + 1; *out is left 0 where the variable is unset. */
static gboolean env_setting(const EnvSource *s, const char *name, guint32 lo,
                            guint32 hi, const char *what, guint32 *out,
                            GError **error)
{
  const char *v = env_get(s, name);
  g_autofree char *label = env_label(s, name);
  g_autofree char *expected = g_strdup_printf("%s from %u to %u", what, lo, hi);
  guint64 n;

  *out = 0;
  if (!v)
    return TRUE;
  if (!nccl_param_parse(label, v, lo, hi, expected, &n, error))
    return FALSE;
  *out = (guint32)n + 1;
  return TRUE;
}

/* A variable that is 0 or 1 into *out: 0 unset, 1 off, 2 on. */
static gboolean env_bool(const EnvSource *s, const char *name, guint32 *out,
                         GError **error)
{
  const char *v = env_get(s, name);

  *out = 0;
  if (!v)
    return TRUE;
  if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0) {
    g_set_error(error, COLL_ERROR, COLL_ERROR_VALUE,
                "%s %s='%s': expected 0 or 1", env_origin(s, name), name, v);
    return FALSE;
  }
  *out = v[0] == '1' ? 2 : 1;
  return TRUE;
}

/* NCCL_ALGO and NCCL_PROTO (tuning.cc parseList). */
static gboolean env_choices(const EnvSource *s, NcclOptions *n, GError **error)
{
  const char *algo = env_get(s, "NCCL_ALGO");
  const char *proto = env_get(s, "NCCL_PROTO");
  g_autofree char *algo_label = env_label(s, "NCCL_ALGO");
  g_autofree char *proto_label = env_label(s, "NCCL_PROTO");

  n->algos = n->protos = 0;
  memset(n->coll_algos, 0, sizeof n->coll_algos);
  memset(n->coll_protos, 0, sizeof n->coll_protos);
  return (!algo || nccl_parse_algos(algo, algo_label, &n->algos, n->coll_algos,
                                    error)) &&
         (!proto || nccl_parse_protos(proto, proto_label, &n->protos,
                                      n->coll_protos, error));
}

/* NCCL_MIN_NCHANNELS, NCCL_MAX_NCHANNELS, NCCL_MIN_CTAS and NCCL_MAX_CTAS:
 * NCCL takes the larger of the minima and the smaller of the maxima
 * (graph/connect.cc ncclTopoPostset). */
static gboolean env_channels(const EnvSource *s, NcclOptions *n, GError **error)
{
  static const char *const vars[] = {"NCCL_MIN_NCHANNELS", "NCCL_MIN_CTAS",
                                     "NCCL_MAX_NCHANNELS", "NCCL_MAX_CTAS"};
  guint32 v[G_N_ELEMENTS(vars)];

  for (guint i = 0; i < G_N_ELEMENTS(vars); i++)
    if (!env_setting(s, vars[i], 1, NCCL_MAX_CHANNELS, "a channel count", &v[i],
                     error))
      return FALSE;
  /* each is its value + 1, 0 unset */
  n->min_channels = v[0] || v[1] ? MAX(v[0], v[1]) - 1 : 0;
  if (v[2] && v[3])
    n->max_channels = MIN(v[2], v[3]) - 1;
  else
    n->max_channels = v[2] || v[3] ? MAX(v[2], v[3]) - 1 : 0;
  if (n->min_channels && n->max_channels && n->min_channels > n->max_channels) {
    g_set_error(error, COLL_ERROR, COLL_ERROR_VALUE,
                "%s: the minimum channels (%u: NCCL_MIN_NCHANNELS, "
                "NCCL_MIN_CTAS) are above the maximum (%u: "
                "NCCL_MAX_NCHANNELS, NCCL_MAX_CTAS)",
                s->origin, n->min_channels, n->max_channels);
    return FALSE;
  }
  return TRUE;
}

/* NCCL_IB_DISABLE and NCCL_NET: which network transport NCCL takes
 * between servers (transport/net_ib/init.cc IB_DISABLE, an integer, any
 * non-zero value disabling; init.cc NCCL_NET, a transport's name).  IB
 * (RDMA over InfiniBand or RoCE, also through Google's gIB plugin and
 * AWS's aws-ofi-nccl over EFA, whose NICs the system describes) is what
 * ifsim models, and the socket transport (NcclOptions.net_socket); other
 * plugins are refused.  Then NCCL_SOCKET_NTHREADS and
 * NCCL_NSOCKS_PERTHREAD (transport/net_socket.cc
 * ncclNetSocketGetNsockNthread): helper threads per connection, at most
 * MAX_THREADS 16, and sockets per thread, at most MAX_SOCKETS 64. */
static gboolean env_net(const EnvSource *s, NcclOptions *n, GError **error)
{
  const char *off = env_get(s, "NCCL_IB_DISABLE");
  const char *net = env_get(s, "NCCL_NET");
  gint64 v;

  n->net_socket = NULL;
  if (off) {
    if (!g_ascii_string_to_signed(off, 10, G_MININT32, G_MAXINT32, &v, NULL)) {
      g_set_error(error, COLL_ERROR, COLL_ERROR_VALUE,
                  "%s NCCL_IB_DISABLE='%s': expected an integer (0: RDMA, "
                  "else NCCL's socket transport)",
                  env_origin(s, "NCCL_IB_DISABLE"), off);
      return FALSE;
    }
    if (v != 0)
      n->net_socket = "NCCL_IB_DISABLE";
  }
  if (net) {
    if (g_ascii_strcasecmp(net, "Socket") == 0) {
      n->net_socket = "NCCL_NET=Socket";
    } else if (g_ascii_strcasecmp(net, "IB") != 0 &&
               g_ascii_strcasecmp(net, "gIB") != 0 &&
               g_ascii_strcasecmp(net, "AWS Libfabric") != 0 &&
               g_ascii_strcasecmp(net, "Libfabric") != 0) {
      g_set_error(error, COLL_ERROR, COLL_ERROR_VALUE,
                  "%s NCCL_NET='%s': ifsim models NCCL's IB transport and "
                  "the RDMA plugins (IB; gIB, Google's; AWS Libfabric, "
                  "aws-ofi-nccl over EFA: RDMA writes over the system's "
                  "NICs) and its socket transport (Socket, TCP); other "
                  "plugins are not modelled",
                  env_origin(s, "NCCL_NET"), net);
      return FALSE;
    } else if (n->net_socket) {
      g_set_error(error, COLL_ERROR, COLL_ERROR_VALUE,
                  "%s NCCL_NET='%s' asks for RDMA, but NCCL_IB_DISABLE='%s' "
                  "turns it off",
                  env_origin(s, "NCCL_NET"), net, off);
      return FALSE;
    }
  }
  return env_setting(s, "NCCL_SOCKET_NTHREADS", 0, 16,
                     "a thread count (NCCL's MAX_THREADS)", &n->socket_nthreads,
                     error) &&
         env_setting(s, "NCCL_NSOCKS_PERTHREAD", 0, 64,
                     "a socket count (NCCL's MAX_SOCKETS)",
                     &n->socket_nsocks_per_thread, error);
}

/* The variables that take one value of a parser each. */
static gboolean env_sizes(const EnvSource *s, NcclOptions *n, GError **error)
{
  g_autofree char *gdr = env_label(s, "NCCL_NET_GDR_LEVEL");
  g_autofree char *qps = env_label(s, "NCCL_IB_QPS_PER_CONNECTION");
  g_autofree char *nvls = env_label(s, "NCCL_NVLS_CHUNKSIZE");
  g_autofree char *tree = env_label(s, "NCCL_NVLSTREE_MAX_CHUNKSIZE");

  /* paths.cc ncclTopoCheckGdr; net_ib.cc IbQpsPerConn; nvls.cc NVLS's
   * chunk and NVLSTree's largest */
  if (!nccl_path_level_parse(gdr, env_get(s, "NCCL_NET_GDR_LEVEL"),
                             &n->gdr_level, error) ||
      !nccl_ib_qps_parse(qps, env_get(s, "NCCL_IB_QPS_PER_CONNECTION"),
                         &n->ib_qps, error) ||
      !nccl_chunk_parse(nvls, env_get(s, "NCCL_NVLS_CHUNKSIZE"),
                        &n->nvls_chunk_bytes, error) ||
      !nccl_chunk_parse(tree, env_get(s, "NCCL_NVLSTREE_MAX_CHUNKSIZE"),
                        &n->nvlstree_max_chunk_bytes, error))
    return FALSE;
  /* init.cc computeBuffSizes: each protocol's connection buffers, and
   * the point-to-point chunks */
  for (guint p = 0; p < NCCL_N_PROTOS; p++) {
    const char *var = nccl_buffsize_var((NcclProto)p);
    g_autofree char *label = env_label(s, var);

    if (!nccl_buffsize_parse(label, env_get(s, var), &n->buff_bytes[p], error))
      return FALSE;
  }
  for (guint k = 0; k < NCCL_N_P2P_CHUNKS; k++) {
    const char *var = nccl_p2p_chunk_var((NcclP2pChunk)k);
    g_autofree char *label = env_label(s, var);

    if (!nccl_chunk_parse(label, env_get(s, var), &n->p2p_chunk_bytes[k],
                          error))
      return FALSE;
  }
  return TRUE;
}

gboolean nccl_env_read(NcclOptions *n, NcclEnvGet get, void *ctx,
                       const char *origin, GError **error)
{
  const EnvSource s = {get, ctx, origin ? origin : "environment"};
  guint32 collnet = 0;

  if (!env_choices(&s, n, error) || !env_channels(&s, n, error) ||
      !env_bool(&s, "NCCL_COLLNET_ENABLE", &collnet, error) ||
      !env_net(&s, n, error) ||
      /* paths.cc ncclTopoCheckGdr: whether sends read GPU memory
       * directly, whether a NIC on the CPU of an NVLink-C2C GPU counts
       * as near */
      !env_bool(&s, "NCCL_NET_GDR_READ", &n->gdr_read, error) ||
      !env_bool(&s, "NCCL_NET_GDR_C2C", &n->gdr_c2c, error) ||
      /* net_ib.cc: 5 bits of timeout (0: wait forever, which NCCL does
       * not set), 3 of retries */
      !env_setting(&s, "NCCL_IB_TIMEOUT", 1, 31, "an exponent", &n->ib_timeout,
                   error) ||
      !env_setting(&s, "NCCL_IB_RETRY_CNT", 0, 7, "a retry count",
                   &n->ib_retry_cnt, error) ||
      /* nvls.cc: 0 off, 2 (the default) where the GPUs have it, any
       * other value forces it; ifsim takes the three NCCL documents */
      !env_setting(&s, "NCCL_NVLS_ENABLE", 0, 2, "a setting", &n->nvls_enable,
                   error) ||
      /* tuning.cc ncclPatEnable: 0 off, 2 (the default) with one GPU a
       * node, any other value forces it */
      !env_setting(&s, "NCCL_PAT_ENABLE", 0, 2, "a setting", &n->pat_enable,
                   error) ||
      /* paths.cc ncclTopoNeedFlush: NCCL reads any integer, nonzero
       * forcing the flush; ifsim takes the two it documents */
      !env_setting(&s, "NCCL_NET_FORCE_FLUSH", 0, 1, "a setting",
                   &n->net_force_flush, error) ||
      /* net_ib ncclIbInitDevices: 0 leaves Data Direct unused, any other
       * value uses it; 2.30 reads 2 as exposing the device by its C2C
       * path too, which a GPU beside the Data Direct one does not pick */
      !env_setting(&s, "NCCL_IB_DATA_DIRECT", 0, 2, "a setting",
                   &n->ib_data_direct, error) ||
      /* search.cc: PXN is off where NCCL_PXN_DISABLE is 1 (ncclPxnDisable)
       * or NCCL_P2P_PXN_LEVEL 0; levels 1 and 2 differ where a GPU
       * reaches the receiver's rail NIC other than by NVLink, which
       * ifsim's servers do not */
      !env_setting(&s, "NCCL_PXN_DISABLE", 0, 1, "a setting", &n->pxn_disable,
                   error) ||
      !env_setting(&s, "NCCL_P2P_PXN_LEVEL", 0, 2, "a level", &n->p2p_pxn_level,
                   error) ||
      !env_sizes(&s, n, error))
    return FALSE;
  n->collnet = collnet == 2;
  if (!nccl_p2p_level_parse(env_get(&s, "NCCL_P2P_DISABLE"),
                            env_get(&s, "NCCL_P2P_LEVEL"), &n->p2p_level,
                            error)) {
    g_prefix_error(error, "%s ",
                   env_origin(&s, env_get(&s, "NCCL_P2P_DISABLE")
                                      ? "NCCL_P2P_DISABLE"
                                      : "NCCL_P2P_LEVEL"));
    return FALSE;
  }
  return TRUE;
}
