/* `ifsim-probe verbs`: RDMA WRITE and SEND bandwidth and latency between
 * two hosts over one RC queue pair, as perftest's ib_write_bw, ib_send_bw,
 * ib_write_lat and ib_send_lat measure them (linux-rdma/perftest).
 *
 * One side runs with --server and waits for one client; the other with
 * --client HOST.  They meet over TCP (validate/probe_verbs_net.c, protocol
 * in validate/probe_verbs.h): the client's test plan is sent to the server
 * and both follow it; each side sends its queue-pair number, PSN, LID,
 * GID, buffer address and rkey; the QP goes INIT -> RTR -> RTS; then, per
 * test and size, the server says READY, the traffic runs, the client
 * reports RESULT, and both record that point.
 *
 * What is timed (CLOCK_MONOTONIC on the client):
 *  - write_bw / send_bw: -w messages untimed, then -n messages from the
 *    first post to the last completion, --tx-depth kept in flight, every
 *    `sig`-th message signalled (perftest's cq_mod).  The server pre-posts
 *    receives for send_bw and re-posts as they complete.  Time per message
 *    = elapsed / n; bw = size x n / elapsed.
 *  - write_lat / send_lat: ping-pong, one message in flight.  write_lat
 *    polls the last byte of the receive half of the buffer, which the
 *    peer's RDMA WRITE sets to the iteration's tag (perftest's method);
 *    send_lat waits for the receive completion.  Each iteration's round
 *    trip / 2 is one sample (perftest's t_typical is that one-way time);
 *    min, median and max of the -n samples are reported.  With GPU memory
 *    on either side the CPU cannot poll it, so write_lat uses RDMA WRITE
 *    with immediate and waits for the receive completion instead.
 *
 * Buffers: 2 x max size bytes, host (page-aligned) or GPU memory (--gpu:
 * cudaMalloc, registered by dma-buf when the driver offers it, else by
 * ibv_reg_mr on the device pointer as nv_peermem allows).  The first half
 * is sent from, the second half receives.
 *
 * Invariants: every verbs, CUDA and socket call is checked and its failure
 * named; every wait (accept, connect, a message, a completion, a byte in
 * memory) is bounded by --timeout since the last progress, and loops also
 * notice at once a peer that closed its connection or reported an error;
 * after the connection is up, a failure is sent to the peer (ABORT) before
 * this side closes; ProbeVbRun owns every resource and probe_vb_run_clear
 * releases them on every path, in reverse order of creation. */
#define _GNU_SOURCE /* posix_memalign's neighbours, inet_ntop */

#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim/config.h"
#include "validate/error.h"
#include "validate/probe.h"
#include "validate/probe_verbs.h"

#if IFSIM_HAVE_VERBS
#include <infiniband/verbs.h>
#endif
#if IFSIM_HAVE_VERBS && IFSIM_HAVE_CUDA
#include <cuda.h>
#include <cuda_runtime_api.h>
#endif

#define PROBE_VB_NAME "verbs"
#define PROBE_VB_LAT_MAX_BYTES 65536 /* latency sizes stop here */

/* The command line, raw (GOption fills the strings) and checked. */
typedef struct {
  ProbeSweep sweep;
  gboolean server;
  char *client, *port_arg, *dev, *ib_port_arg, *gid_arg, *mtu_arg;
  char *depth_arg, *test_arg, *gpu_arg, *timeout_arg;
  char port[8];
  guint32 ib_port, mtu_bytes, tx_depth, tests, timeout_s;
  gint gid_index; /* -1: chosen as the link layer wants */
  gint gpu;       /* -1: host memory */
} ProbeVbOptions;

static void probe_vb_options_clear(ProbeVbOptions *o)
{
  probe_sweep_clear(&o->sweep);
  g_free(o->client);
  g_free(o->port_arg);
  g_free(o->dev);
  g_free(o->ib_port_arg);
  g_free(o->gid_arg);
  g_free(o->mtu_arg);
  g_free(o->depth_arg);
  g_free(o->test_arg);
  g_free(o->gpu_arg);
  g_free(o->timeout_arg);
}

/* A decimal option value in [lo, hi]; the error names the option. */
static gboolean probe_vb_uint(const char *opt, const char *arg, guint64 lo,
                              guint64 hi, const char *what, guint64 *out,
                              GError **error)
{
  if (!g_ascii_string_to_unsigned(arg, 10, lo, hi, out, NULL)) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "%s: '%s' is not %s (%" G_GUINT64_FORMAT
                " to %" G_GUINT64_FORMAT ")",
                opt, arg, what, lo, hi);
    return FALSE;
  }
  return TRUE;
}

/* --test: a comma-separated list of test names, or "all". */
static gboolean probe_vb_parse_tests(const char *arg, guint32 *tests,
                                     GError **error)
{
  g_auto(GStrv) names = g_strsplit(arg, ",", -1);

  *tests = 0;
  for (int i = 0; names[i]; i++) {
    gboolean known = FALSE;
    if (g_str_equal(names[i], "all")) {
      *tests |= (1u << PROBE_VB_N_TESTS) - 1;
      continue;
    }
    for (guint32 t = 0; t < PROBE_VB_N_TESTS; t++)
      if (g_str_equal(names[i], probe_vb_test_name(t))) {
        *tests |= 1u << t;
        known = TRUE;
      }
    if (!known) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--test: '%s' is not one of write_bw, send_bw, write_lat, "
                  "send_lat, all",
                  names[i]);
      return FALSE;
    }
  }
  if (*tests == 0) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--test: give at least one of write_bw, send_bw, write_lat, "
                "send_lat, all");
    return FALSE;
  }
  return TRUE;
}

/* Checks what the options say without touching a device.  FALSE with the
 * error for the user. */
static gboolean probe_vb_check_options(ProbeVbOptions *o, GError **error)
{
  guint64 v;

  if (o->server && o->client) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "give --server or --client HOST, not both");
    return FALSE;
  }
  if (!o->server && !o->client) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "give --server (wait for a client) or --client HOST "
                "(connect to a server)");
    return FALSE;
  }
  if (o->client && !*o->client) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--client: the host name is empty");
    return FALSE;
  }
  if (!probe_vb_uint("--port",
                     o->port_arg ? o->port_arg : PROBE_VB_DEFAULT_PORT, 1,
                     65535, "a TCP port", &v, error))
    return FALSE;
  g_snprintf(o->port, sizeof(o->port), "%u", (guint)v);
  o->ib_port = 1;
  if (o->ib_port_arg) {
    if (!probe_vb_uint("--ib-port", o->ib_port_arg, 1, 255, "a port number", &v,
                       error))
      return FALSE;
    o->ib_port = (guint32)v;
  }
  o->gid_index = -1;
  if (o->gid_arg) {
    if (!probe_vb_uint("--gid-index", o->gid_arg, 0, 65535, "a GID index", &v,
                       error))
      return FALSE;
    o->gid_index = (gint)v;
  }
  o->mtu_bytes = 0;
  if (o->mtu_arg) {
    if (!g_ascii_string_to_unsigned(o->mtu_arg, 10, 0, G_MAXUINT32, &v, NULL) ||
        (v != 256 && v != 512 && v != 1024 && v != 2048 && v != 4096)) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--mtu: '%s' is not one of 256, 512, 1024, 2048, 4096",
                  o->mtu_arg);
      return FALSE;
    }
    o->mtu_bytes = (guint32)v;
  }
  o->tx_depth = 128;
  if (o->depth_arg) {
    if (!probe_vb_uint("--tx-depth", o->depth_arg, 1, 65536, "a queue depth",
                       &v, error))
      return FALSE;
    o->tx_depth = (guint32)v;
  }
  o->timeout_s = 10;
  if (o->timeout_arg) {
    if (!probe_vb_uint("--timeout", o->timeout_arg, 1, 86400,
                       "a number of seconds", &v, error))
      return FALSE;
    o->timeout_s = (guint32)v;
  }
  o->gpu = -1;
  if (o->gpu_arg) {
    if (!probe_vb_uint("--gpu", o->gpu_arg, 0, 1023, "a GPU index", &v, error))
      return FALSE;
#if !IFSIM_HAVE_CUDA
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--gpu: this ifsim-probe was built without CUDA, so it "
                "cannot register GPU memory (rebuild with the CUDA "
                "toolkit)");
    return FALSE;
#endif
    o->gpu = (gint)v;
  }
  if (!probe_vb_parse_tests(o->test_arg ? o->test_arg : "all", &o->tests,
                            error))
    return FALSE;
  if (o->sweep.max_bytes > (G_GUINT64_CONSTANT(1) << 30)) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--maxbytes %" G_GUINT64_FORMAT " is above 1 GiB, the "
                "largest message this probe sends",
                o->sweep.max_bytes);
    return FALSE;
  }
  if (o->sweep.iters > G_MAXUINT32 / 2) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--iters must be below %u", G_MAXUINT32 / 2);
    return FALSE;
  }
  /* Latency tests named on their own need a size they can run. */
  if (o->sweep.min_bytes > PROBE_VB_LAT_MAX_BYTES) {
    guint32 lat = 1u << PROBE_VB_WRITE_LAT | 1u << PROBE_VB_SEND_LAT;
    if (o->test_arg && !strstr(o->test_arg, "all") && (o->tests & lat)) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--minbytes %" G_GUINT64_FORMAT " leaves the latency "
                  "tests no size: they stop at 64 KiB",
                  o->sweep.min_bytes);
      return FALSE;
    }
    o->tests &= ~lat;
  }
  return TRUE;
}

/* Parses and checks argv.  FALSE with *status when the probe ends now. */
static gboolean probe_vb_parse(int *argc, char ***argv, ProbeVbOptions *o,
                               int *status)
{
  const GOptionEntry entries[] = {
      {"server", 0, 0, G_OPTION_ARG_NONE, &o->server,
       "Wait for one client, then run the client's plan", NULL},
      {"client", 0, 0, G_OPTION_ARG_STRING, &o->client,
       "Connect to the server on HOST (name, IPv4 or IPv6 address)", "HOST"},
      {"port", 'p', 0, G_OPTION_ARG_STRING, &o->port_arg,
       "TCP port of the rendezvous (default 18515)", "P"},
      {"ib-dev", 'd', 0, G_OPTION_ARG_STRING, &o->dev,
       "RDMA device (default: the first one)", "NAME"},
      {"ib-port", 'i', 0, G_OPTION_ARG_STRING, &o->ib_port_arg,
       "Port of the device (default 1)", "N"},
      {"gid-index", 'x', 0, G_OPTION_ARG_STRING, &o->gid_arg,
       "GID index (default: RoCE v2 IPv4 GID on Ethernet, LID routing on "
       "InfiniBand)",
       "N"},
      {"mtu", 'm', 0, G_OPTION_ARG_STRING, &o->mtu_arg,
       "Path MTU 256..4096 (default: the ports' active MTU)", "BYTES"},
      {"tx-depth", 'q', 0, G_OPTION_ARG_STRING, &o->depth_arg,
       "Messages in flight (default 128)", "N"},
      {"test", 0, 0, G_OPTION_ARG_STRING, &o->test_arg,
       "write_bw, send_bw, write_lat, send_lat or all, comma-separated "
       "(default all)",
       "LIST"},
      {"gpu", 0, 0, G_OPTION_ARG_STRING, &o->gpu_arg,
       "Use memory of CUDA GPU N (GPUDirect RDMA)", "N"},
      {"timeout", 0, 0, G_OPTION_ARG_STRING, &o->timeout_arg,
       "Longest wait for the peer, in seconds (default 10)", "SECONDS"},
      G_OPTION_ENTRY_NULL};
  g_autoptr(GOptionContext) ctx = NULL;
  g_autoptr(GError) error = NULL;

  probe_sweep_init(&o->sweep, 2, 8 << 20);
  o->sweep.iters = 1000;
  o->sweep.warmup = 100;
  ctx = probe_context_new(PROBE_VB_NAME,
                          "RDMA WRITE/SEND bandwidth and latency between "
                          "two hosts",
                          &o->sweep, entries);
  g_option_context_set_summary(
      ctx, "Start 'ifsim-probe verbs --server' on one host, then\n"
           "'ifsim-probe verbs --client HOST' on the other; the client's "
           "options\ndecide the tests and sizes.  Here the defaults are "
           "-b 2 -e 8M (latency\ntests up to 64K), -n 1000 messages or "
           "round trips, -w 100.");
  g_option_context_set_description(
      ctx, "Writes the ifsim measurement CSV (docs/probe-verbs.md) on both "
           "sides;\nthe client's is the reference.\nExit status: 0 "
           "measured, 2 bad input or a failed call, 77 no RDMA\ndevice or "
           "no libibverbs.");
  if (!probe_parse(ctx, PROBE_VB_NAME, &o->sweep, argc, argv, status))
    return FALSE;
  if (!probe_vb_check_options(o, &error)) {
    *status = probe_fail(PROBE_VB_NAME, error);
    return FALSE;
  }
  return TRUE;
}

#if IFSIM_HAVE_VERBS

/* --- the run --------------------------------------------------------- */

/* The sizes of test t under the sweep: latency tests stop at 64 KiB. */
static GArray *probe_vb_test_sizes(const ProbeSweep *s, guint32 t)
{
  GArray *sizes = probe_sweep_sizes(s);

  if (t == PROBE_VB_WRITE_LAT || t == PROBE_VB_SEND_LAT) {
    guint keep = 0;
    while (keep < sizes->len &&
           g_array_index(sizes, guint64, keep) <= PROBE_VB_LAT_MAX_BYTES)
      keep++;
    g_array_set_size(sizes, keep);
  }
  return sizes;
}

typedef struct {
  ProbeVbOptions *o;
  ProbeVbPlan plan;
  ProbeVbConn conn;
  gboolean connected; /* ABORT goes to the peer on failure */
  /* device */
  struct ibv_device **list;
  struct ibv_context *ctx;
  struct ibv_device_attr dev_attr;
  struct ibv_port_attr port_attr;
  char dev_name[64];
  guint32 gid_index;
  gboolean want_grh; /* Ethernet, or -x given */
  union ibv_gid gid;
  /* resources */
  struct ibv_pd *pd;
  struct ibv_cq *scq, *rcq;
  struct ibv_qp *qp;
  struct ibv_mr *mr;
  guint8 *buf; /* host pointer, or a device pointer with gpu */
  gsize buf_bytes, half;
  guint32 max_inline, rx_depth, sig;
  gboolean gpu;
  const char *gpu_mr; /* how GPU memory was registered */
  char gpu_name[256];
  int dmabuf_fd;
  ProbeVbQp local, remote;
  guint32 path_mtu_bytes;
  /* liveness checks of the waits (probe_vb_spin) */
  guint spins;
  gint64 last_check_ns, last_beat_ns;
  /* output */
  ValMeasurements *m;
  char src[48], dst[48];
} ProbeVbRun;

static gint64 probe_vb_now_ns(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (gint64)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* "CALL: strerror(err)" into error. */
static gboolean probe_vb_fail(GError **error, int err, const char *fmt, ...)
    G_GNUC_PRINTF(3, 4);

static gboolean probe_vb_fail(GError **error, int err, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *what = NULL;

  va_start(ap, fmt);
  what = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_set_error(error, VAL_ERROR, VAL_ERROR_NET_FAILED, "%s: %s", what,
              g_strerror(err ? err : EIO));
  return FALSE;
}

static enum ibv_mtu probe_vb_mtu_enum(guint32 bytes)
{
  switch (bytes) {
  case 256: return IBV_MTU_256;
  case 512: return IBV_MTU_512;
  case 1024: return IBV_MTU_1024;
  case 2048: return IBV_MTU_2048;
  default: return IBV_MTU_4096;
  }
}

static guint32 probe_vb_mtu_bytes(enum ibv_mtu mtu)
{
  return 128u << mtu;
}

static void probe_vb_gid_str(const guint8 *raw, char *out, size_t size)
{
  if (!inet_ntop(AF_INET6, raw, out, (socklen_t)size))
    g_strlcpy(out, "?", size);
}

/* RoCE: the first RoCE v2 GID holding an IPv4 address (::ffff:a.b.c.d),
 * what perftest and NCCL's default pick as routable; else index 0. */
static guint32 probe_vb_pick_roce_gid(ProbeVbRun *r)
{
  static const guint8 v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

  for (int i = 0; i < r->port_attr.gid_tbl_len; i++) {
    struct ibv_gid_entry e;
    if (ibv_query_gid_ex(r->ctx, r->o->ib_port, (guint32)i, &e, 0) != 0)
      continue; /* an empty slot */
    if (e.gid_type == IBV_GID_TYPE_ROCE_V2 &&
        memcmp(e.gid.raw, v4mapped, sizeof(v4mapped)) == 0)
      return (guint32)i;
  }
  return 0;
}

/* Finds and opens the device, checks the port, picks the GID.  Sets
 * *status to PROBE_EXIT_NO_DEVICE (with the message printed) when there is
 * no RDMA device at all. */
static gboolean probe_vb_open_device(ProbeVbRun *r, int *status, GError **error)
{
  ProbeVbOptions *o = r->o;
  struct ibv_device *dev = NULL;
  int n = 0, rc;

  errno = 0;
  r->list = ibv_get_device_list(&n);
  if (!r->list || n == 0) {
    /* ENOSYS: no RDMA subsystem in the kernel, which is no device too. */
    g_autofree char *why = g_strdup_printf(
        "no RDMA device (ibv_get_device_list: %s)",
        r->list || errno == ENOSYS || errno == 0 ? "0 devices"
                                                 : g_strerror(errno));
    *status = probe_no_device(PROBE_VB_NAME, why);
    return FALSE;
  }
  if (!o->dev)
    dev = r->list[0];
  for (int i = 0; o->dev && i < n; i++)
    if (g_str_equal(ibv_get_device_name(r->list[i]), o->dev))
      dev = r->list[i];
  if (!dev) {
    g_autoptr(GString) have = g_string_new(NULL);
    for (int i = 0; i < n; i++)
      g_string_append_printf(have, "%s%s", i ? ", " : "",
                             ibv_get_device_name(r->list[i]));
    g_set_error(error, VAL_ERROR, VAL_ERROR_NET_FAILED,
                "--ib-dev: no RDMA device '%s' here (there are: %s)", o->dev,
                have->str);
    return FALSE;
  }
  g_strlcpy(r->dev_name, ibv_get_device_name(dev), sizeof(r->dev_name));
  r->ctx = ibv_open_device(dev);
  if (!r->ctx)
    return probe_vb_fail(error, errno, "ibv_open_device(%s)", r->dev_name);
  rc = ibv_query_device(r->ctx, &r->dev_attr);
  if (rc != 0)
    return probe_vb_fail(error, rc, "ibv_query_device(%s)", r->dev_name);
  if (o->ib_port > r->dev_attr.phys_port_cnt) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_NET_FAILED,
                "--ib-port: %s has %u port(s), there is no port %u",
                r->dev_name, r->dev_attr.phys_port_cnt, o->ib_port);
    return FALSE;
  }
  rc = ibv_query_port(r->ctx, (guint8)o->ib_port, &r->port_attr);
  if (rc != 0)
    return probe_vb_fail(error, rc, "ibv_query_port(%s, %u)", r->dev_name,
                         o->ib_port);
  if (r->port_attr.state != IBV_PORT_ACTIVE) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_NET_FAILED,
                "%s port %u is %s, not active (ibv_devinfo shows why)",
                r->dev_name, o->ib_port,
                ibv_port_state_str(r->port_attr.state));
    return FALSE;
  }
  if (o->mtu_bytes &&
      o->mtu_bytes > probe_vb_mtu_bytes(r->port_attr.active_mtu)) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_NET_FAILED,
                "--mtu: %u is above the active MTU %u of %s port %u",
                o->mtu_bytes, probe_vb_mtu_bytes(r->port_attr.active_mtu),
                r->dev_name, o->ib_port);
    return FALSE;
  }
  r->want_grh =
      r->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET || o->gid_index >= 0;
  if (o->gid_index >= r->port_attr.gid_tbl_len) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_NET_FAILED,
                "--gid-index: %d is beyond the %d GIDs of %s port %u",
                o->gid_index, r->port_attr.gid_tbl_len, r->dev_name,
                o->ib_port);
    return FALSE;
  }
  if (o->gid_index >= 0)
    r->gid_index = (guint32)o->gid_index;
  else if (r->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET)
    r->gid_index = probe_vb_pick_roce_gid(r);
  else
    r->gid_index = 0;
  if (ibv_query_gid(r->ctx, (guint8)o->ib_port, (int)r->gid_index, &r->gid) !=
      0)
    return probe_vb_fail(error, errno, "ibv_query_gid(%s, %u, %u)", r->dev_name,
                         o->ib_port, r->gid_index);
  if (r->want_grh && r->gid.global.subnet_prefix == 0 &&
      r->gid.global.interface_id == 0) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_NET_FAILED,
                "GID %u of %s port %u is empty (pick another with "
                "--gid-index; 'show_gids' lists them)",
                r->gid_index, r->dev_name, o->ib_port);
    return FALSE;
  }
  return TRUE;
}

#if IFSIM_HAVE_CUDA
/* Checks --gpu names a GPU; *status 77 when there is none at all. */
static gboolean probe_vb_gpu_check(ProbeVbRun *r, int *status, GError **error)
{
  int count = 0, driver = 0;
  cudaError_t rc;
  struct cudaDeviceProp p;

  if (cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0) {
    *status = probe_no_device(PROBE_VB_NAME,
                              "--gpu: no CUDA GPU (no NVIDIA driver is "
                              "installed)");
    return FALSE;
  }
  rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess || count == 0) {
    g_autofree char *why = g_strdup_printf(
        "--gpu: no CUDA GPU (cudaGetDeviceCount: %s)",
        rc != cudaSuccess ? cudaGetErrorString(rc) : "0 devices");
    *status = probe_no_device(PROBE_VB_NAME, why);
    return FALSE;
  }
  if (r->o->gpu >= count) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_NET_FAILED,
                "--gpu: there is no GPU %d here (0 to %d)", r->o->gpu,
                count - 1);
    return FALSE;
  }
  rc = cudaGetDeviceProperties(&p, r->o->gpu);
  if (rc != cudaSuccess) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_NET_FAILED,
                "cudaGetDeviceProperties(%d): %s", r->o->gpu,
                cudaGetErrorString(rc));
    return FALSE;
  }
  g_strlcpy(r->gpu_name, p.name, sizeof(r->gpu_name));
  return TRUE;
}

typedef CUresult (*ProbeVbGetHandleFn)(void *handle, CUdeviceptr dptr,
                                       size_t size, CUmemRangeHandleType type,
                                       unsigned long long flags);

/* cuMemGetHandleForAddressRange through the runtime's driver entry point,
 * so the probe needs no link to libcuda; NULL when the driver lacks it. */
static ProbeVbGetHandleFn probe_vb_get_handle_fn(void)
{
  void *fn = NULL;
#if CUDART_VERSION >= 12050
  enum cudaDriverEntryPointQueryResult q;
  if (cudaGetDriverEntryPointByVersion("cuMemGetHandleForAddressRange", &fn,
                                       11070, cudaEnableDefault,
                                       &q) != cudaSuccess ||
      q != cudaDriverEntryPointSuccess)
    return NULL;
#elif CUDART_VERSION >= 12000
  enum cudaDriverEntryPointQueryResult q;
  if (cudaGetDriverEntryPoint("cuMemGetHandleForAddressRange", &fn,
                              cudaEnableDefault, &q) != cudaSuccess ||
      q != cudaDriverEntryPointSuccess)
    return NULL;
#elif CUDART_VERSION >= 11070
  if (cudaGetDriverEntryPoint("cuMemGetHandleForAddressRange", &fn,
                              cudaEnableDefault) != cudaSuccess)
    return NULL;
#else
  return NULL;
#endif
  return (ProbeVbGetHandleFn)fn;
}

/* cudaMalloc + registration: dma-buf first (upstream kernels, the open
 * GPU driver), then ibv_reg_mr on the device pointer (nv_peermem). */
static gboolean probe_vb_gpu_alloc(ProbeVbRun *r, int access, GError **error)
{
  const gsize align = 2 << 20;
  gsize bytes = (r->buf_bytes + align - 1) / align * align;
  void *ptr = NULL;
  cudaError_t rc;
  ProbeVbGetHandleFn get_handle;
  g_autofree char *dmabuf_why = NULL;

  rc = cudaSetDevice(r->o->gpu);
  if (rc == cudaSuccess)
    rc = cudaMalloc(&ptr, bytes);
  if (rc != cudaSuccess) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_NET_FAILED,
                "cudaMalloc(%zu B on GPU %d): %s", bytes, r->o->gpu,
                cudaGetErrorString(rc));
    return FALSE;
  }
  r->buf = ptr;
  rc = cudaMemset(ptr, 0, bytes);
  if (rc == cudaSuccess)
    rc = cudaDeviceSynchronize();
  if (rc != cudaSuccess) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_NET_FAILED, "cudaMemset: %s",
                cudaGetErrorString(rc));
    return FALSE;
  }
  get_handle = probe_vb_get_handle_fn();
  if (!get_handle) {
    dmabuf_why = g_strdup("the driver has no cuMemGetHandleForAddressRange");
  } else {
    /* The range handed out must be page aligned: from the page holding
     * the buffer, with the buffer's offset in it (as perftest does). */
    const guintptr page = (guintptr)sysconf(_SC_PAGESIZE);
    guintptr base = (guintptr)ptr / page * page;
    gsize offset = (gsize)((guintptr)ptr - base);
    gsize span = (offset + bytes + page - 1) / page * page;
    int fd = -1;
    CUresult cr = get_handle(&fd, (CUdeviceptr)base, span,
                             CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
    if (cr != CUDA_SUCCESS) {
      dmabuf_why =
          g_strdup_printf("cuMemGetHandleForAddressRange: CUresult %d", cr);
    } else {
      r->dmabuf_fd = fd;
      r->mr = ibv_reg_dmabuf_mr(r->pd, offset, bytes, (guint64)(guintptr)ptr,
                                fd, access);
      if (r->mr)
        r->gpu_mr = "dma-buf (ibv_reg_dmabuf_mr)";
      else
        dmabuf_why =
            g_strdup_printf("ibv_reg_dmabuf_mr: %s", g_strerror(errno));
    }
  }
  if (!r->mr) {
    r->mr = ibv_reg_mr(r->pd, ptr, bytes, access);
    if (!r->mr)
      return probe_vb_fail(error, errno,
                           "cannot register GPU %d memory for RDMA (%s; "
                           "ibv_reg_mr on the device pointer, which needs "
                           "nv_peermem)",
                           r->o->gpu, dmabuf_why);
    r->gpu_mr = "nv_peermem (ibv_reg_mr)";
  }
  return TRUE;
}
#endif /* IFSIM_HAVE_CUDA */

/* Clears `bytes` of the receive half (a fresh poll target per step). */
static gboolean probe_vb_clear_rx(ProbeVbRun *r, guint64 bytes, GError **error)
{
#if IFSIM_HAVE_CUDA
  if (r->gpu) {
    cudaError_t rc = cudaMemset(r->buf + r->half, 0, bytes);
    if (rc == cudaSuccess)
      rc = cudaDeviceSynchronize();
    if (rc != cudaSuccess) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_NET_FAILED, "cudaMemset: %s",
                  cudaGetErrorString(rc));
      return FALSE;
    }
    return TRUE;
  }
#endif
  (void)error;
  memset(r->buf + r->half, 0, bytes);
  return TRUE;
}

/* PD, CQs, the RC QP (INIT), the buffer and its MR, sized by the plan. */
static gboolean probe_vb_setup(ProbeVbRun *r, GError **error)
{
  const int access =
      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
  const ProbeVbPlan *p = &r->plan;
  struct ibv_qp_init_attr qa;
  struct ibv_qp_attr a;
  guint32 max_wr = (guint32)r->dev_attr.max_qp_wr;
  guint32 max_cqe = (guint32)r->dev_attr.max_cqe;
  int rc;

  if (p->tx_depth > max_wr || p->tx_depth > max_cqe) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_NET_FAILED,
                "--tx-depth %u is above what %s allows (max_qp_wr %u, "
                "max_cqe %u)",
                p->tx_depth, r->dev_name, max_wr, max_cqe);
    return FALSE;
  }
  if (p->max_bytes > r->port_attr.max_msg_sz) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_NET_FAILED,
                "--maxbytes %" G_GUINT64_FORMAT " is above the largest "
                "message of %s port %u (%u B)",
                p->max_bytes, r->dev_name, r->o->ib_port,
                r->port_attr.max_msg_sz);
    return FALSE;
  }
  if (p->mtu_bytes &&
      p->mtu_bytes > probe_vb_mtu_bytes(r->port_attr.active_mtu)) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_NET_FAILED,
                "the client's --mtu %u is above the active MTU %u of %s "
                "port %u",
                p->mtu_bytes, probe_vb_mtu_bytes(r->port_attr.active_mtu),
                r->dev_name, r->o->ib_port);
    return FALSE;
  }
  /* Receives for every send the client may have in flight (and some
   * slack), or the receiver answers RNR NAKs and, with rnr_retry 7
   * (retry forever), each stalls the sender by min_rnr_timer. */
  r->rx_depth = MIN(MAX(512u, p->tx_depth + 16), MIN(max_wr, max_cqe));
  if (r->rx_depth < p->tx_depth) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_NET_FAILED,
                "--tx-depth %u is above what %s can post as receives (%u): "
                "sends would wait for receivers (RNR)",
                p->tx_depth, r->dev_name, r->rx_depth);
    return FALSE;
  }
  /* Every sig-th message signalled; at least two signalled WRs within
   * any tx_depth consecutive ones, so a full queue always has one to
   * wait for. */
  r->sig = MAX(1u, MIN(64u, p->tx_depth / 2));
  r->half = (gsize)p->max_bytes;
  r->buf_bytes = 2 * r->half;

  r->pd = ibv_alloc_pd(r->ctx);
  if (!r->pd)
    return probe_vb_fail(error, errno, "ibv_alloc_pd(%s)", r->dev_name);
  r->scq = ibv_create_cq(r->ctx, (int)p->tx_depth, NULL, NULL, 0);
  if (!r->scq)
    return probe_vb_fail(error, errno, "ibv_create_cq(%u entries)",
                         p->tx_depth);
  r->rcq = ibv_create_cq(r->ctx, (int)r->rx_depth, NULL, NULL, 0);
  if (!r->rcq)
    return probe_vb_fail(error, errno, "ibv_create_cq(%u entries)",
                         r->rx_depth);
  if (r->gpu) {
#if IFSIM_HAVE_CUDA
    if (!probe_vb_gpu_alloc(r, access, error))
      return FALSE;
#endif
  } else {
    void *ptr = NULL;
    rc = posix_memalign(&ptr, 4096, r->buf_bytes);
    if (rc != 0)
      return probe_vb_fail(error, rc, "posix_memalign(%zu B)", r->buf_bytes);
    r->buf = ptr;
    memset(r->buf, 0, r->buf_bytes);
    r->mr = ibv_reg_mr(r->pd, r->buf, r->buf_bytes, access);
    if (!r->mr)
      return probe_vb_fail(error, errno, "ibv_reg_mr(%zu B of host memory)",
                           r->buf_bytes);
  }

  /* Room for inline sends of up to 220 B (perftest's default for its
   * latency tests); a device that refuses it gets a QP without. */
  for (int attempt = 0; attempt < 2 && !r->qp; attempt++) {
    memset(&qa, 0, sizeof(qa));
    qa.send_cq = r->scq;
    qa.recv_cq = r->rcq;
    qa.qp_type = IBV_QPT_RC;
    qa.cap.max_send_wr = p->tx_depth;
    qa.cap.max_recv_wr = r->rx_depth;
    qa.cap.max_send_sge = 1;
    qa.cap.max_recv_sge = 1;
    qa.cap.max_inline_data = attempt == 0 && !r->gpu ? 220 : 0;
    r->qp = ibv_create_qp(r->pd, &qa);
    if (!r->qp && attempt == 1)
      return probe_vb_fail(error, errno,
                           "ibv_create_qp(RC, %u send, %u receive WRs)",
                           p->tx_depth, r->rx_depth);
  }
  /* The device may grant more than asked (mlx5 rounds up); inline only
   * what perftest would, 220 B. */
  r->max_inline = r->gpu ? 0 : MIN(qa.cap.max_inline_data, 220u);

  memset(&a, 0, sizeof(a));
  a.qp_state = IBV_QPS_INIT;
  a.pkey_index = 0;
  a.port_num = (guint8)r->o->ib_port;
  a.qp_access_flags = access;
  rc = ibv_modify_qp(r->qp, &a,
                     IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                         IBV_QP_ACCESS_FLAGS);
  if (rc != 0)
    return probe_vb_fail(error, rc, "ibv_modify_qp(INIT)");

  memset(&r->local, 0, sizeof(r->local));
  r->local.lid = r->port_attr.lid;
  r->local.link_layer = r->port_attr.link_layer;
  r->local.flags =
      (r->want_grh ? PROBE_VB_QP_GRH : 0) | (r->gpu ? PROBE_VB_QP_GPU : 0);
  r->local.qpn = r->qp->qp_num;
  r->local.psn = g_random_int() & 0xffffff;
  r->local.rkey = r->mr->rkey;
  memcpy(r->local.gid, r->gid.raw, 16);
  r->local.gid_index = r->gid_index;
  r->local.addr = (guint64)(guintptr)r->buf;
  r->local.buf_bytes = r->buf_bytes;
  r->local.mtu_bytes = probe_vb_mtu_bytes(r->port_attr.active_mtu);
  return TRUE;
}

/* Checks the peer's QP info against this side, then RTR and RTS. */
static gboolean probe_vb_connect_qp(ProbeVbRun *r, GError **error)
{
  const ProbeVbQp *q = &r->remote;
  gboolean grh = r->want_grh || (q->flags & PROBE_VB_QP_GRH);
  struct ibv_qp_attr a;
  int rc;

  if (q->link_layer != r->local.link_layer) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_NET_FAILED,
                "the peer's port is %s, this one %s: RC needs the same "
                "link layer on both",
                q->link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet"
                                                         : "InfiniBand",
                r->local.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet"
                                                               : "InfiniBand");
    return FALSE;
  }
  if (q->buf_bytes < r->buf_bytes) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_NET_FAILED,
                "the peer's buffer (%" G_GUINT64_FORMAT " B) is smaller "
                "than the plan needs (%zu B)",
                q->buf_bytes, r->buf_bytes);
    return FALSE;
  }
  if (!grh && q->lid == 0) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_NET_FAILED,
                "the peer's port has no LID (is a subnet manager running?); "
                "use --gid-index to route by GID");
    return FALSE;
  }
  r->path_mtu_bytes = r->plan.mtu_bytes ? r->plan.mtu_bytes
                                        : MIN(r->local.mtu_bytes, q->mtu_bytes);

  memset(&a, 0, sizeof(a));
  a.qp_state = IBV_QPS_RTR;
  a.path_mtu = probe_vb_mtu_enum(r->path_mtu_bytes);
  a.dest_qp_num = q->qpn;
  a.rq_psn = q->psn;
  a.max_dest_rd_atomic = 1;
  a.min_rnr_timer = 12; /* 0.64 ms */
  a.ah_attr.dlid = q->lid;
  a.ah_attr.sl = 0;
  a.ah_attr.src_path_bits = 0;
  a.ah_attr.port_num = (guint8)r->o->ib_port;
  if (grh) {
    a.ah_attr.is_global = 1;
    memcpy(a.ah_attr.grh.dgid.raw, q->gid, 16);
    a.ah_attr.grh.sgid_index = (guint8)r->gid_index;
    a.ah_attr.grh.hop_limit = 0xff;
    a.ah_attr.grh.traffic_class = 0;
  }
  rc = ibv_modify_qp(r->qp, &a,
                     IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
                         IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                         IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
  if (rc != 0)
    return probe_vb_fail(error, rc, "ibv_modify_qp(RTR, peer QPN %u)", q->qpn);

  memset(&a, 0, sizeof(a));
  a.qp_state = IBV_QPS_RTS;
  a.timeout = 14; /* 4.096 us x 2^14 = 67 ms per try */
  a.retry_cnt = 7;
  a.rnr_retry = 7; /* a receiver short of receives: retry forever; the
                       probe's own --timeout bounds the wait */
  a.sq_psn = r->local.psn;
  a.max_rd_atomic = 1;
  rc = ibv_modify_qp(r->qp, &a,
                     IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                         IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                         IBV_QP_MAX_QP_RD_ATOMIC);
  if (rc != 0)
    return probe_vb_fail(error, rc, "ibv_modify_qp(RTS)");
  return TRUE;
}

/* --- waiting ----------------------------------------------------------- */

/* Called from every wait loop, on each turn.  since_ns is the wait's last
 * progress (-1: the turn made progress).  Every 256 turns it reads the
 * clock: fails after --timeout without progress; every 10 ms looks
 * whether the peer closed or failed; on the client, sends a PROGRESS frame
 * every 250 ms so that the server's wait for RESULT during a long step
 * stays bounded by its --timeout. */
static gboolean probe_vb_spin(ProbeVbRun *r, gint64 since_ns, const char *what,
                              const char *during, GError **error)
{
  gint64 now, timeout_ns = (gint64)r->plan.timeout_s * 1000000000;

  if ((++r->spins & 255) != 0)
    return TRUE;
  now = probe_vb_now_ns();
  if (since_ns >= 0 && now - since_ns > timeout_ns) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_NET_TIMEOUT,
                "no %s for %u s during %s (--timeout); has the peer %s "
                "stopped?",
                what, r->plan.timeout_s, during, r->conn.peer);
    return FALSE;
  }
  if (now - r->last_check_ns < 10000000)
    return TRUE;
  r->last_check_ns = now;
  if (r->o->client && now - r->last_beat_ns >= 250000000) {
    ProbeVbMsg beat = {.kind = PROBE_VB_PROGRESS};
    r->last_beat_ns = now;
    if (!probe_vb_send(&r->conn, &beat, during, error))
      return FALSE;
  }
  return probe_vb_check_peer(&r->conn, during, error);
}

static gboolean probe_vb_wc_ok(const struct ibv_wc *wc, const char *during,
                               GError **error)
{
  if (wc->status == IBV_WC_SUCCESS)
    return TRUE;
  g_set_error(
      error, VAL_ERROR, VAL_ERROR_NET_FAILED,
      "work completion failed during %s: %s (status %d, vendor "
      "error 0x%x)%s",
      during, ibv_wc_status_str(wc->status), wc->status, wc->vendor_err,
      wc->status == IBV_WC_RETRY_EXC_ERR ? "; the peer stopped answering" : "");
  return FALSE;
}

/* Polls cq until at least one completion (up to max into wc); *n is how
 * many.  Bounded as probe_vb_spin says. */
static gboolean probe_vb_poll(ProbeVbRun *r, struct ibv_cq *cq,
                              struct ibv_wc *wc, int max, int *n,
                              const char *during, GError **error)
{
  gint64 since = probe_vb_now_ns();

  for (;;) {
    int got = ibv_poll_cq(cq, max, wc);
    if (got < 0) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_NET_FAILED,
                  "ibv_poll_cq during %s failed (%d)", during, got);
      return FALSE;
    }
    if (got > 0) {
      for (int i = 0; i < got; i++)
        if (!probe_vb_wc_ok(&wc[i], during, error))
          return FALSE;
      *n = got;
      return probe_vb_spin(r, -1, "completion", during, error);
    }
    if (!probe_vb_spin(r, since, "completion", during, error))
      return FALSE;
  }
}

/* --- posting ----------------------------------------------------------- */

/* Sends `size` bytes from the send half: RDMA WRITE (with immediate when
 * imm) into the peer's receive half, or SEND.  wr_id = the number of
 * messages posted so far, which a signalled completion reports back. */
static gboolean probe_vb_post(ProbeVbRun *r, guint32 test, guint64 size,
                              gboolean imm, gboolean signalled, guint64 wr_id,
                              const char *during, GError **error)
{
  struct ibv_sge sge = {.addr = (guint64)(guintptr)r->buf,
                        .length = (guint32)size,
                        .lkey = r->mr->lkey};
  struct ibv_send_wr wr, *bad = NULL;
  gboolean write = test == PROBE_VB_WRITE_BW || test == PROBE_VB_WRITE_LAT;
  int rc;

  memset(&wr, 0, sizeof(wr));
  wr.wr_id = wr_id;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = !write ? IBV_WR_SEND
              : imm  ? IBV_WR_RDMA_WRITE_WITH_IMM
                     : IBV_WR_RDMA_WRITE;
  /* Inline for latency only, as perftest: it saves the NIC's read of a
   * small payload, which matters for one message in flight. */
  wr.send_flags = (signalled ? IBV_SEND_SIGNALED : 0) |
                  (size <= r->max_inline && (test == PROBE_VB_WRITE_LAT ||
                                             test == PROBE_VB_SEND_LAT)
                       ? IBV_SEND_INLINE
                       : 0);
  if (write) {
    wr.wr.rdma.remote_addr = r->remote.addr + r->half;
    wr.wr.rdma.rkey = r->remote.rkey;
  }
  rc = ibv_post_send(r->qp, &wr, &bad);
  if (rc != 0)
    return probe_vb_fail(error, rc, "ibv_post_send during %s", during);
  return TRUE;
}

/* A receive of up to `size` bytes into the receive half (none for a WRITE
 * with immediate, which places its data by itself). */
static gboolean probe_vb_post_recv(ProbeVbRun *r, guint64 size,
                                   const char *during, GError **error)
{
  struct ibv_sge sge = {.addr = (guint64)(guintptr)(r->buf + r->half),
                        .length = (guint32)size,
                        .lkey = r->mr->lkey};
  struct ibv_recv_wr wr, *bad = NULL;
  int rc;

  memset(&wr, 0, sizeof(wr));
  wr.sg_list = &sge;
  wr.num_sge = size ? 1 : 0;
  rc = ibv_post_recv(r->qp, &wr, &bad);
  if (rc != 0)
    return probe_vb_fail(error, rc, "ibv_post_recv during %s", during);
  return TRUE;
}

/* Send-side bookkeeping shared by the loops: posted and completed counts
 * (completed = wr_id of the last signalled completion; RC completes in
 * order). */
typedef struct {
  guint64 posted, done, total;
} ProbeVbSq;

/* Reaps send completions: waits for one when `block`, else takes what is
 * there. */
static gboolean probe_vb_reap(ProbeVbRun *r, ProbeVbSq *sq, gboolean block,
                              const char *during, GError **error)
{
  struct ibv_wc wc[16];
  int n = 0;

  if (block) {
    if (!probe_vb_poll(r, r->scq, wc, 16, &n, during, error))
      return FALSE;
  } else {
    n = ibv_poll_cq(r->scq, 16, wc);
    if (n < 0) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_NET_FAILED,
                  "ibv_poll_cq during %s failed (%d)", during, n);
      return FALSE;
    }
    for (int i = 0; i < n; i++)
      if (!probe_vb_wc_ok(&wc[i], during, error))
        return FALSE;
  }
  for (int i = 0; i < n; i++)
    sq->done = MAX(sq->done, wc[i].wr_id);
  return TRUE;
}

/* Posts one message, waiting first for room in the send queue. */
static gboolean probe_vb_sq_post(ProbeVbRun *r, ProbeVbSq *sq, guint32 test,
                                 guint64 size, gboolean imm, const char *during,
                                 GError **error)
{
  gboolean sig;

  while (sq->posted - sq->done >= r->plan.tx_depth)
    if (!probe_vb_reap(r, sq, TRUE, during, error))
      return FALSE;
  sq->posted++;
  sig = sq->posted % r->sig == 0 || sq->posted == sq->total;
  return probe_vb_post(r, test, size, imm, sig, sq->posted, during, error);
}

/* Waits until every posted message has completed. */
static gboolean probe_vb_sq_drain(ProbeVbRun *r, ProbeVbSq *sq,
                                  const char *during, GError **error)
{
  while (sq->done < sq->posted)
    if (!probe_vb_reap(r, sq, TRUE, during, error))
      return FALSE;
  return TRUE;
}

/* --- the tests ---------------------------------------------------------- */

/* n messages of `size`, tx_depth in flight; *ns the time from the first
 * post to the last completion. */
static gboolean probe_vb_bw_batch(ProbeVbRun *r, guint32 test, guint64 size,
                                  guint64 n, gint64 *ns, const char *during,
                                  GError **error)
{
  ProbeVbSq sq = {.total = n};
  gint64 t0 = probe_vb_now_ns();

  while (sq.posted < n)
    if (!probe_vb_sq_post(r, &sq, test, size, FALSE, during, error))
      return FALSE;
  if (!probe_vb_sq_drain(r, &sq, during, error))
    return FALSE;
  *ns = probe_vb_now_ns() - t0;
  return TRUE;
}

/* Server, send_bw: receives `total` messages, keeping the receive queue
 * full.  The first receives are posted before READY. */
static gboolean probe_vb_bw_receive(ProbeVbRun *r, guint64 size, guint64 total,
                                    const char *during, GError **error)
{
  guint64 posted = 0, got = 0;
  ProbeVbMsg ready = {.kind = PROBE_VB_READY};

  while (posted < MIN(total, r->rx_depth)) {
    if (!probe_vb_post_recv(r, size, during, error))
      return FALSE;
    posted++;
  }
  ready.u.step.test = PROBE_VB_SEND_BW;
  ready.u.step.size_bytes = size;
  if (!probe_vb_send(&r->conn, &ready, during, error))
    return FALSE;
  while (got < total) {
    struct ibv_wc wc[16];
    int n = 0;
    if (!probe_vb_poll(r, r->rcq, wc, 16, &n, during, error))
      return FALSE;
    got += (guint64)n;
    for (int i = 0; i < n && posted < total; i++, posted++)
      if (!probe_vb_post_recv(r, size, during, error))
        return FALSE;
  }
  return TRUE;
}

/* One ping-pong latency step; on the client, us[] gets the -n one-way
 * times (round trip / 2) in microseconds. */
static gboolean probe_vb_lat(ProbeVbRun *r, guint32 test, guint64 size,
                             double *us, const char *during, GError **error)
{
  gboolean client = r->o->client != NULL;
  gboolean imm = test == PROBE_VB_WRITE_LAT &&
                 (r->gpu || (r->remote.flags & PROBE_VB_QP_GPU));
  gboolean by_cq = test == PROBE_VB_SEND_LAT || imm;
  guint64 warmup = r->plan.warmup, total = warmup + r->plan.iters;
  guint64 rposted = 0;
  guint32 rsize = test == PROBE_VB_SEND_LAT ? (guint32)size : 0;
  volatile guint8 *poll_byte = r->buf + r->half + size - 1;
  guint8 *tag_byte = r->buf + size - 1;
  ProbeVbSq sq = {.total = total};
  ProbeVbMsg ready = {.kind = PROBE_VB_READY};

  if (!by_cq && !probe_vb_clear_rx(r, size, error))
    return FALSE;
  if (by_cq)
    while (rposted < MIN(total, r->rx_depth)) {
      if (!probe_vb_post_recv(r, rsize, during, error))
        return FALSE;
      rposted++;
    }
  if (client) {
    if (!probe_vb_recv(&r->conn, PROBE_VB_READY, &ready, during, error))
      return FALSE;
  } else {
    ready.u.step.test = test;
    ready.u.step.size_bytes = size;
    if (!probe_vb_send(&r->conn, &ready, during, error))
      return FALSE;
  }
  for (guint64 i = 0; i < total; i++) {
    guint8 tag = (guint8)(i % 250 + 1);
    gint64 t0 = probe_vb_now_ns();
    /* The client sends first; the server answers what it received. */
    for (int phase = 0; phase < 2; phase++) {
      if ((phase == 0) == client) {
        if (!by_cq)
          *tag_byte = tag;
        if (!probe_vb_reap(r, &sq, FALSE, during, error) ||
            !probe_vb_sq_post(r, &sq, test, size, imm, during, error))
          return FALSE;
      } else if (by_cq) {
        struct ibv_wc wc;
        int n = 0;
        if (!probe_vb_poll(r, r->rcq, &wc, 1, &n, during, error))
          return FALSE;
        if (rposted < total) {
          if (!probe_vb_post_recv(r, rsize, during, error))
            return FALSE;
          rposted++;
        }
      } else {
        gint64 since = probe_vb_now_ns();
        while (*poll_byte != tag)
          if (!probe_vb_spin(r, since, "RDMA WRITE from the peer", during,
                             error))
            return FALSE;
      }
    }
    if (client && i >= warmup)
      us[i - warmup] = (double)(probe_vb_now_ns() - t0) / 2000.0;
  }
  return probe_vb_sq_drain(r, &sq, during, error);
}

/* Records a point measured by the client (locally or from RESULT). */
static void probe_vb_add_point(ProbeVbRun *r, const ProbeVbStep *s)
{
  ValPoint p;

  memset(&p, 0, sizeof(p));
  p.probe = VAL_PROBE_VERBS;
  g_strlcpy(p.test, probe_vb_test_name(s->test), sizeof(p.test));
  g_strlcpy(p.mode, r->gpu ? "gpu" : "host", sizeof(p.mode));
  g_strlcpy(p.src, r->src, sizeof(p.src));
  g_strlcpy(p.dst, r->dst, sizeof(p.dst));
  p.ranks = 1;
  p.size_bytes = s->size_bytes;
  p.iterations = (guint32)s->iterations;
  p.time_us_min = s->us_min;
  p.time_us_median = s->us_median;
  p.time_us_max = s->us_max;
  p.bw_GBps = s->bw_GBps;
  p.busbw_GBps = s->bw_GBps;
  val_meas_add(r->m, &p);
}

/* One test at one size, on either side. */
static gboolean probe_vb_step(ProbeVbRun *r, guint32 test, guint64 size,
                              GError **error)
{
  g_autofree char *during = g_strdup_printf("%s %" G_GUINT64_FORMAT " B",
                                            probe_vb_test_name(test), size);
  gboolean client = r->o->client != NULL;
  ProbeVbMsg msg = {.kind = PROBE_VB_RESULT};
  ProbeVbStep *s = &msg.u.step;
  guint64 n = r->plan.iters;

  r->last_check_ns = r->last_beat_ns = probe_vb_now_ns();
  if (test == PROBE_VB_WRITE_LAT || test == PROBE_VB_SEND_LAT) {
    g_autofree double *us = client ? g_new(double, n) : NULL;
    if (!probe_vb_lat(r, test, size, us, during, error))
      return FALSE;
    if (client) {
      ValPoint p;
      memset(&p, 0, sizeof(p));
      val_point_set_times(&p, us, (guint)n);
      s->us_min = p.time_us_min;
      s->us_median = p.time_us_median;
      s->us_max = p.time_us_max;
      s->bw_GBps = (double)size / (p.time_us_median * 1e3);
    }
  } else if (client) {
    ProbeVbMsg ready;
    gint64 ns = 0;
    if (!probe_vb_recv(&r->conn, PROBE_VB_READY, &ready, during, error))
      return FALSE;
    if (r->plan.warmup &&
        !probe_vb_bw_batch(r, test, size, r->plan.warmup, &ns, during, error))
      return FALSE;
    if (!probe_vb_bw_batch(r, test, size, n, &ns, during, error))
      return FALSE;
    s->us_min = s->us_median = s->us_max = (double)ns / 1e3 / (double)n;
    s->bw_GBps = (double)size * (double)n / (double)MAX(ns, 1);
  } else if (test == PROBE_VB_SEND_BW) {
    if (!probe_vb_bw_receive(r, size, r->plan.warmup + n, during, error))
      return FALSE;
  } else {
    ProbeVbMsg ready = {.kind = PROBE_VB_READY};
    ready.u.step.test = test;
    ready.u.step.size_bytes = size;
    if (!probe_vb_send(&r->conn, &ready, during, error))
      return FALSE;
  }

  if (client) {
    s->test = test;
    s->size_bytes = size;
    s->iterations = n;
    if (!probe_vb_send(&r->conn, &msg, during, error))
      return FALSE;
  } else {
    if (!probe_vb_recv(&r->conn, PROBE_VB_RESULT, &msg, during, error))
      return FALSE;
    if (s->test != test || s->size_bytes != size) {
      g_set_error(
          error, VAL_ERROR, VAL_ERROR_NET_PROTOCOL,
          "peer %s reported %s %" G_GUINT64_FORMAT " B during %s", r->conn.peer,
          probe_vb_test_name(s->test) ? probe_vb_test_name(s->test) : "?",
          s->size_bytes, during);
      return FALSE;
    }
  }
  probe_vb_add_point(r, s);
  return TRUE;
}

/* --- the conversation ---------------------------------------------------- */

/* Server: listen, accept one client, adopt its plan. */
static gboolean probe_vb_meet(ProbeVbRun *r, GError **error)
{
  ProbeVbOptions *o = r->o;
  ProbeVbMsg msg;

  if (o->server) {
    guint16 bound = 0;
    int lfd = probe_vb_listen(o->port, &bound, error);
    gboolean ok;
    if (lfd < 0)
      return FALSE;
    fprintf(stderr,
            "ifsim-probe: verbs: %s port %u waiting for a client on TCP port "
            "%u (for up to %u s)\n",
            r->dev_name, o->ib_port, bound, o->timeout_s);
    ok = probe_vb_accept(lfd, &r->conn, error);
    close(lfd);
    if (!ok)
      return FALSE;
    r->connected = TRUE;
    if (!probe_vb_recv(&r->conn, PROBE_VB_PLAN, &msg, "the test plan", error) ||
        !probe_vb_plan_check(&msg.u.plan, error))
      return FALSE;
    r->plan = msg.u.plan;
    /* The server's own waits follow its --timeout from here on. */
    r->plan.timeout_s = o->timeout_s;
  } else {
    if (!probe_vb_connect(&r->conn, o->client, o->port, error))
      return FALSE;
    r->connected = TRUE;
    memset(&msg, 0, sizeof(msg));
    msg.kind = PROBE_VB_PLAN;
    msg.u.plan.tests = o->tests;
    msg.u.plan.min_bytes = o->sweep.min_bytes;
    msg.u.plan.max_bytes = o->sweep.max_bytes;
    msg.u.plan.step_factor = o->sweep.step_factor;
    msg.u.plan.iters = o->sweep.iters;
    msg.u.plan.warmup = o->sweep.warmup;
    msg.u.plan.tx_depth = o->tx_depth;
    msg.u.plan.mtu_bytes = o->mtu_bytes;
    msg.u.plan.timeout_s = o->timeout_s;
    r->plan = msg.u.plan;
    if (!probe_vb_send(&r->conn, &msg, "the test plan", error))
      return FALSE;
  }
  return TRUE;
}

/* The QP info both ways: the server speaks first. */
static gboolean probe_vb_exchange(ProbeVbRun *r, GError **error)
{
  const char *during = "the queue-pair exchange";
  ProbeVbMsg mine = {.kind = PROBE_VB_QP}, theirs;

  mine.u.qp = r->local;
  if (r->o->server && !probe_vb_send(&r->conn, &mine, during, error))
    return FALSE;
  if (!probe_vb_recv(&r->conn, PROBE_VB_QP, &theirs, during, error))
    return FALSE;
  if (r->o->client && !probe_vb_send(&r->conn, &mine, during, error))
    return FALSE;
  r->remote = theirs.u.qp;
  return TRUE;
}

/* The header block, once the path is known. */
static void probe_vb_describe(ProbeVbRun *r)
{
  ValMeasurements *m = r->m;
  g_autofree char *link =
      probe_ibv_link_str(r->port_attr.active_width, r->port_attr.active_speed);
  char buf[128], gid[INET6_ADDRSTRLEN];

  probe_describe_run(m, PROBE_VB_NAME);
  val_meas_set(m, "role", r->o->server ? "server" : "client");
  val_meas_set(m, "peer", r->conn.peer);
  val_meas_set(m, "nic", r->dev_name);
  val_meas_set(m, "nic.fw", r->dev_attr.fw_ver);
  g_snprintf(buf, sizeof(buf), "%u", r->o->ib_port);
  val_meas_set(m, "port", buf);
  val_meas_set(m, "link_layer",
               r->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET
                   ? "Ethernet"
                   : "InfiniBand");
  val_meas_set(m, "link", link);
  g_snprintf(buf, sizeof(buf), "%u", r->path_mtu_bytes);
  val_meas_set(m, "mtu", buf);
  if (r->want_grh || (r->remote.flags & PROBE_VB_QP_GRH)) {
    probe_vb_gid_str(r->gid.raw, gid, sizeof(gid));
    g_snprintf(buf, sizeof(buf), "%u", r->gid_index);
    val_meas_set(m, "gid_index", buf);
    val_meas_set(m, "gid", gid);
  } else {
    g_snprintf(buf, sizeof(buf), "none (LID %u routing)", r->local.lid);
    val_meas_set(m, "gid_index", buf);
  }
  g_snprintf(buf, sizeof(buf), "%u", r->plan.tx_depth);
  val_meas_set(m, "tx_depth", buf);
  val_meas_set(m, "mode", r->gpu ? "gpu" : "host");
  val_meas_set(m, "peer.mode",
               r->remote.flags & PROBE_VB_QP_GPU ? "gpu" : "host");
  if (r->gpu) {
    g_snprintf(buf, sizeof(buf), "%d: %s", r->o->gpu, r->gpu_name);
    val_meas_set(m, "gpu", buf);
    val_meas_set(m, "gpu.mr", r->gpu_mr);
  }
}

static void probe_vb_run_clear(ProbeVbRun *r)
{
  if (r->qp)
    (void)ibv_destroy_qp(r->qp);
  if (r->mr)
    (void)ibv_dereg_mr(r->mr);
  if (r->dmabuf_fd >= 0)
    close(r->dmabuf_fd);
  if (r->buf) {
#if IFSIM_HAVE_CUDA
    if (r->gpu)
      (void)cudaFree(r->buf);
    else
#endif
      free(r->buf);
  }
  if (r->rcq)
    (void)ibv_destroy_cq(r->rcq);
  if (r->scq)
    (void)ibv_destroy_cq(r->scq);
  if (r->pd)
    (void)ibv_dealloc_pd(r->pd);
  if (r->ctx)
    (void)ibv_close_device(r->ctx);
  if (r->list)
    ibv_free_device_list(r->list);
  probe_vb_conn_clear(&r->conn);
  if (r->m)
    val_meas_free(r->m);
  memset(r, 0, sizeof(*r));
  r->dmabuf_fd = -1;
  r->conn.fd = -1;
}

/* Host part of "HOST:PORT" / "[ADDR]:PORT". */
static void probe_vb_host_of(const char *peer, char *out, size_t size)
{
  const char *colon = strrchr(peer, ':');
  gsize len = colon ? (gsize)(colon - peer) : strlen(peer);

  if (len >= 2 && peer[0] == '[' && peer[len - 1] == ']')
    peer++, len -= 2;
  g_strlcpy(out, peer, MIN(size, len + 1));
}

static int probe_vb_main(ProbeVbOptions *o)
{
  ProbeVbRun r;
  g_autoptr(GError) error = NULL;
  int status = PROBE_EXIT_USAGE;

  memset(&r, 0, sizeof(r));
  r.o = o;
  r.dmabuf_fd = -1;
  r.gpu = o->gpu >= 0;
  probe_vb_conn_init(&r.conn, o->timeout_s * 1000);
  r.plan.timeout_s = o->timeout_s;

  if (!probe_vb_open_device(&r, &status, &error))
    goto out;
#if IFSIM_HAVE_CUDA
  if (r.gpu && !probe_vb_gpu_check(&r, &status, &error))
    goto out;
#endif
  if (!probe_vb_meet(&r, &error) || !probe_vb_setup(&r, &error) ||
      !probe_vb_exchange(&r, &error) || !probe_vb_connect_qp(&r, &error))
    goto out;

  r.m = val_meas_new();
  g_snprintf(r.src, sizeof(r.src), "%s:%u", r.dev_name, o->ib_port);
  if (o->client)
    g_strlcpy(r.dst, o->client, sizeof(r.dst));
  else
    probe_vb_host_of(r.conn.peer, r.dst, sizeof(r.dst));
  probe_vb_describe(&r);
  {
    ProbeSweep plan_sweep = {.min_bytes = r.plan.min_bytes,
                             .max_bytes = r.plan.max_bytes,
                             .step_factor = r.plan.step_factor};
    for (guint32 t = 0; t < PROBE_VB_N_TESTS; t++) {
      g_autoptr(GArray) sizes = NULL;
      if (!(r.plan.tests & (1u << t)))
        continue;
      sizes = probe_vb_test_sizes(&plan_sweep, t);
      for (guint i = 0; i < sizes->len; i++)
        if (!probe_vb_step(&r, t, g_array_index(sizes, guint64, i), &error))
          goto out;
    }
  }
  status = probe_finish(PROBE_VB_NAME, r.m, &o->sweep);

out:
  if (error) {
    if (r.connected)
      probe_vb_send_error(&r.conn, error->message);
    status = probe_fail(PROBE_VB_NAME, error);
  }
  probe_vb_run_clear(&r);
  return status;
}

#endif /* IFSIM_HAVE_VERBS */

int val_probe_verbs(int argc, char **argv)
{
  ProbeVbOptions o;
  int status = PROBE_EXIT_OK;
  int parse_argc = argc;
  g_autofree char **parse_argv = g_memdup2(argv, sizeof(char *) * (argc + 1));

  memset(&o, 0, sizeof(o));
  if (!probe_vb_parse(&parse_argc, &parse_argv, &o, &status)) {
    probe_vb_options_clear(&o);
    return status;
  }
#if IFSIM_HAVE_VERBS
  /* A peer that vanishes mid-write is an EPIPE from send, not a signal. */
  signal(SIGPIPE, SIG_IGN);
  status = probe_vb_main(&o);
#else
  status = probe_no_device(PROBE_VB_NAME,
                           "no RDMA support (built without libibverbs)");
#endif
  probe_vb_options_clear(&o);
  return status;
}
