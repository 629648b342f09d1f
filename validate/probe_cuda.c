/* `ifsim-probe p2p` and `ifsim-probe hostdev`: copy bandwidth and latency
 * between GPUs, and between the host and a GPU, with the CUDA runtime.
 *
 * What is timed follows the two reference tools, so that their published
 * numbers and ours compare:
 *  - p2pBandwidthLatencyTest (CUDA samples): cudaMemcpyPeerAsync on the
 *    source GPU's stream, peer access enabled ("peer") and not ("nopeer",
 *    where the driver stages the copy through host memory); the
 *    bidirectional test copies both ways at once on two streams; a delay
 *    kernel holds the stream while the host enqueues the batch.
 *  - nvbandwidth: SM copies by a kernel of the source GPU that writes into
 *    the peer's memory ("write" tests), 16-byte accesses; the SM latency is
 *    a one-thread pointer chase through the peer's memory
 *    (device_to_device_latency_sm), time / accesses.
 *
 * One timed repetition (ProbeLane, probe_time): the gate kernel holds the
 * first lane's stream; a start event; `batch` operations on each lane (the
 * second lane's stream waits for the start event, the first waits for the
 * second's end); a stop event; the host opens the gate.  The time per
 * operation is (stop - start) / batch: batches amortise the event
 * resolution (~0.5 us) and the per-operation gap on small sizes, as
 * nvbandwidth's loop count and p2pBandwidthLatencyTest's repeat count do.
 * -w repetitions untimed, then -n timed ones: min, median, max.
 *
 * Pageable host memory is not gated: cudaMemcpyAsync from pageable memory
 * may wait for the stream on the host, which would wait for the gate.
 *
 * Invariants: every CUDA call is checked (probe_cuda_ok); a failure ends
 * the probe with "ifsim-probe: PROBE: CALL: message", exit 2, after every
 * allocation is released (probe_gpu_clear, the ProbeCuda teardown); the
 * gate is open whenever the host waits on the GPU, so an error never
 * leaves a kernel spinning. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/nccl/nccl.h"
#include "sim/config.h"
#include "sim/units.h"
#include "validate/error.h"
#include "validate/probe.h"
#include "validate/probe_gpu.h"

#if IFSIM_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "validate/probe_kernels.h"
#endif
#if IFSIM_HAVE_NCCL
#include <nccl.h>
#endif

gboolean probe_gpu_parse_int(const char *option, const char *text, int min,
                             int *out, GError **error)
{
  guint64 v;

  if (!g_ascii_string_to_unsigned(text, 10, (guint64)MAX(min, 0), G_MAXINT,
                                  &v, NULL)) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "%s: '%s' is not a decimal number from %d to %d", option,
                text, min, G_MAXINT);
    return FALSE;
  }
  *out = (int)v;
  return TRUE;
}

gboolean probe_gpu_parse_tests(const char *text, const char *const *names,
                               guint32 *mask, GError **error)
{
  g_auto(GStrv) words = NULL;

  *mask = 0;
  if (!text) {
    for (guint i = 0; names[i]; i++)
      *mask |= 1u << i;
    return TRUE;
  }
  words = g_strsplit(text, ",", -1);
  for (guint w = 0; words[w]; w++) {
    const char *word = g_strstrip(words[w]);
    guint i;

    for (i = 0; names[i]; i++)
      if (g_ascii_strcasecmp(word, names[i]) == 0)
        break;
    if (!names[i]) {
      g_autofree char *all = g_strjoinv(", ", (char **)names);
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--test: '%s' is not one of %s", word, all);
      return FALSE;
    }
    *mask |= 1u << i;
  }
  return TRUE;
}

/* Tests, in the order they run and as measure.h names them. */
static const char *const probe_p2p_tests[] = {
    "ce_uni", "ce_bidir", "sm_uni", "sm_bidir", "ce_latency", "sm_latency",
    NULL};
enum {
  P2P_CE_UNI,
  P2P_CE_BIDIR,
  P2P_SM_UNI,
  P2P_SM_BIDIR,
  P2P_CE_LATENCY,
  P2P_SM_LATENCY
};
static const char *const probe_hostdev_tests[] = {
    "h2d", "d2h", "bidir", "latency_h2d", "latency_d2h", NULL};
enum { HD_H2D, HD_D2H, HD_BIDIR, HD_LATENCY_H2D, HD_LATENCY_D2H };

#define PROBE_MIB ((guint64)1 << 20)
/* Default --latency-max: the latency tests run at the sweep's sizes up to
 * this. */
#define PROBE_LATENCY_MAX_DEFAULT (64 * 1024)

#if IFSIM_HAVE_CUDA

/* A bandwidth repetition repeats the operation until it has moved this much
 * (at most PROBE_BATCH_MAX times); a latency repetition is always
 * PROBE_LATENCY_BATCH operations (p2pBandwidthLatencyTest's repeat). */
#define PROBE_BATCH_BYTES (32 * PROBE_MIB)
#define PROBE_BATCH_MAX 100
#define PROBE_LATENCY_BATCH 100
/* The gate opens by itself after this long (then the times include the
 * host's enqueueing, and the probe says so): far more than enqueueing a
 * batch takes (~0.5 ms), short enough that a call which waits for the
 * stream on the host (a staged copy) costs little each time. */
#define PROBE_GATE_TIMEOUT_NS 50000000ull
/* The pointer chase: a random cycle through a buffer larger than any GPU's
 * L2 (H100/H200: 50 MB), one node per 256-byte sector group, and this many
 * dependent loads per kernel; successive kernels continue the walk, so the
 * default 5 + 20 repetitions visit 250,000 of the 262,144 nodes once. */
#define PROBE_CHASE_BYTES (64 * PROBE_MIB)
#define PROBE_CHASE_STRIDE 256
#define PROBE_CHASE_ACCESSES 10000
#define PROBE_CHASE_SEED 20240901

gboolean probe_cuda_ok(cudaError_t rc, const char *expr, GError **error)
{
  if (rc == cudaSuccess)
    return TRUE;
  g_set_error(error, VAL_ERROR, VAL_ERROR_DEVICE, "%.*s: %s",
              (int)strcspn(expr, "("), expr, cudaGetErrorString(rc));
  cudaGetLastError();
  return FALSE;
}

/* Checks a CUDA call in a function with a GError **error parameter. */
#define PROBE_CUDA(call) probe_cuda_ok((call), #call, error)

/* The kernel module's version from /proc/driver/nvidia/version ("NVRM
 * version: NVIDIA UNIX x86_64 Kernel Module  570.86.15  ..."): the first
 * dotted number after "Module"; NULL when unreadable. */
static char *probe_nvidia_driver(void)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) words = NULL;
  const char *module;

  if (!g_file_get_contents("/proc/driver/nvidia/version", &text, NULL, NULL))
    return NULL;
  module = strstr(text, "Module");
  if (!module)
    return NULL;
  words = g_strsplit_set(module, " \t\n", -1);
  for (guint i = 0; words[i]; i++)
    if (g_ascii_isdigit(words[i][0]) && strchr(words[i], '.'))
      return g_strdup(words[i]);
  return NULL;
}

void probe_gpu_describe(ValMeasurements *m, int count)
{
  g_autofree char *nvidia = probe_nvidia_driver();
  char key[32], value[64];
  gboolean same = TRUE;
  char first[256] = "";
  int driver = 0, runtime = 0;

  for (int d = 0; d < count; d++) {
    struct cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, d) != cudaSuccess) {
      cudaGetLastError();
      same = FALSE;
      continue;
    }
    if (d == 0)
      g_strlcpy(first, p.name, sizeof(first));
    else if (strcmp(first, p.name) != 0)
      same = FALSE;
  }
  if (same && first[0])
    val_meas_set(m, "gpu", first);
  g_snprintf(value, sizeof(value), "%d", count);
  val_meas_set(m, "gpu.count", value);
  for (int d = 0; d < count; d++) {
    struct cudaDeviceProp p;
    if (!same && cudaGetDeviceProperties(&p, d) == cudaSuccess) {
      g_snprintf(key, sizeof(key), "gpu%d.name", d);
      val_meas_set(m, key, p.name);
    }
    if (cudaDeviceGetPCIBusId(value, sizeof(value), d) == cudaSuccess) {
      g_snprintf(key, sizeof(key), "gpu%d.pci", d);
      val_meas_set(m, key, value);
    }
    cudaGetLastError();
  }
  if (cudaDriverGetVersion(&driver) == cudaSuccess) {
    g_snprintf(value, sizeof(value), "%d.%d", driver / 1000,
               driver % 1000 / 10);
    val_meas_set(m, "driver", value);
  }
  if (nvidia)
    val_meas_set(m, "nvidia_driver", nvidia);
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) {
    g_snprintf(value, sizeof(value), "%d.%d", runtime / 1000,
               runtime % 1000 / 10);
    val_meas_set(m, "cuda_runtime", value);
  }
#if IFSIM_HAVE_NCCL
  {
    int v = 0;
    if (ncclGetVersion(&v) == ncclSuccess) {
      g_autofree char *text = nccl_version_text(nccl_version_from_code(v));

      val_meas_set(m, "nccl", text);
    }
  }
#endif
}

/* One GPU's resources.  Handles are NULL until created; probe_gpu_clear
 * releases what exists. */
typedef struct {
  int dev;
  int sm_count;
  cudaStream_t stream[2];
  cudaEvent_t start, stop; /* timing, on this device */
  cudaEvent_t join;        /* ordering only */
  void *buf[4];            /* max_bytes each: [0] source, [1] destination,
                              [2], [3] a second pair (one-GPU bidir) */
  void *ring;       /* PROBE_CHASE_BYTES: the chase cycle, or NULL */
  void *ring_start; /* the cycle's first node */
  void **sink;      /* where the chase stores its last address */
} ProbeGpu;

/* A probe's state: options, output, the gate, the GPUs. */
typedef struct {
  const char *probe; /* "p2p", "hostdev" */
  ValProbe kind;
  ProbeSweep *sweep;
  GArray *sizes; /* guint64 */
  guint64 latency_max;
  ValMeasurements *m;
  int *gate;              /* pinned host: [0] open, [1] timed out */
  volatile int *gate_dev; /* the same, as the device sees it */
  guint gate_opened; /* timed repetitions of the current point whose gate
                        opened by itself */
  double *us; /* sweep->iters samples */
  ProbeGpu *gpus;
  int ngpus;
} ProbeCuda;

typedef enum {
  PROBE_OP_PEER,   /* cudaMemcpyPeerAsync */
  PROBE_OP_MEMCPY, /* cudaMemcpyAsync of `kind` */
  PROBE_OP_KERNEL, /* probe_kernel_copy on the lane's GPU */
  PROBE_OP_CHASE   /* probe_kernel_chase over src (a ring) */
} ProbeOp;

/* One stream's share of a timed repetition. */
typedef struct {
  ProbeGpu *gpu; /* whose stream runs it */
  int stream;    /* 0 or 1 */
  ProbeOp op;
  void *dst;
  const void *src;
  size_t bytes;
  int dst_dev, src_dev;
  enum cudaMemcpyKind kind;
} ProbeLane;

static void probe_gpu_clear(ProbeGpu *g)
{
  if (cudaSetDevice(g->dev) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  for (guint i = 0; i < G_N_ELEMENTS(g->stream); i++)
    if (g->stream[i])
      cudaStreamDestroy(g->stream[i]);
  if (g->start)
    cudaEventDestroy(g->start);
  if (g->stop)
    cudaEventDestroy(g->stop);
  if (g->join)
    cudaEventDestroy(g->join);
  for (guint i = 0; i < G_N_ELEMENTS(g->buf); i++)
    if (g->buf[i])
      cudaFree(g->buf[i]);
  if (g->ring)
    cudaFree(g->ring);
  if (g->sink)
    cudaFree(g->sink);
  cudaGetLastError();
  memset(g, 0, sizeof(*g));
}

/* Allocates a buffer of `bytes` on the current device, saying how much
 * when that fails. */
static gboolean probe_gpu_malloc(void **ptr, guint64 bytes, int dev,
                                 GError **error)
{
  cudaError_t rc = cudaMalloc(ptr, bytes);

  if (rc == cudaSuccess)
    return TRUE;
  g_set_error(error, VAL_ERROR, VAL_ERROR_DEVICE,
              "cudaMalloc: %s (%" G_GUINT64_FORMAT " bytes on gpu%d)",
              cudaGetErrorString(rc), bytes, dev);
  *ptr = NULL;
  cudaGetLastError();
  return FALSE;
}

/* Fills the ring: a single cycle through all nodes in a random order
 * (Sattolo's algorithm, fixed seed), so that no prefetcher follows it. */
static gboolean probe_gpu_make_ring(ProbeGpu *g, GError **error)
{
  const guint n = PROBE_CHASE_BYTES / PROBE_CHASE_STRIDE;
  const guint words = PROBE_CHASE_STRIDE / sizeof(void *);
  g_autofree guint *order = g_new(guint, n);
  g_autofree char **host = g_try_new0(char *, PROBE_CHASE_BYTES /
                                                   sizeof(char *));
  g_autoptr(GRand) rng = g_rand_new_with_seed(PROBE_CHASE_SEED);
  char *base;

  if (!host) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_DEVICE,
                "malloc: out of memory (the pointer-chase ring)");
    return FALSE;
  }
  if (!probe_gpu_malloc(&g->ring, PROBE_CHASE_BYTES, g->dev, error))
    return FALSE;
  base = g->ring;
  for (guint i = 0; i < n; i++)
    order[i] = i;
  for (guint i = n - 1; i > 0; i--) {
    guint j = (guint)g_rand_int_range(rng, 0, (gint32)i);
    guint t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  for (guint i = 0; i < n; i++)
    host[(gsize)order[i] * words] =
        base + (gsize)order[(i + 1) % n] * PROBE_CHASE_STRIDE;
  g->ring_start = base + (gsize)order[0] * PROBE_CHASE_STRIDE;
  return PROBE_CUDA(cudaMemcpy(g->ring, host, PROBE_CHASE_BYTES,
                               cudaMemcpyHostToDevice)) &&
         probe_gpu_malloc((void **)&g->sink, sizeof(void *), g->dev, error);
}

/* Streams, events and `nbuf` buffers of `bytes` on device `dev`; the chase
 * ring too when `ring`. */
static gboolean probe_gpu_setup(ProbeGpu *g, int dev, guint nbuf,
                                guint64 bytes, gboolean ring, GError **error)
{
  g->dev = dev;
  if (!PROBE_CUDA(cudaSetDevice(dev)) || !PROBE_CUDA(probe_kernels_load()) ||
      !PROBE_CUDA(cudaDeviceGetAttribute(&g->sm_count,
                                         cudaDevAttrMultiProcessorCount, dev)))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS(g->stream); i++)
    if (!PROBE_CUDA(
            cudaStreamCreateWithFlags(&g->stream[i], cudaStreamNonBlocking)))
      return FALSE;
  if (!PROBE_CUDA(cudaEventCreate(&g->start)) ||
      !PROBE_CUDA(cudaEventCreate(&g->stop)) ||
      !PROBE_CUDA(
          cudaEventCreateWithFlags(&g->join, cudaEventDisableTiming)))
    return FALSE;
  for (guint i = 0; i < nbuf; i++) {
    if (!probe_gpu_malloc(&g->buf[i], bytes, dev, error) ||
        !PROBE_CUDA(cudaMemset(g->buf[i], i + 1, bytes)))
      return FALSE;
  }
  /* The memset and a pageable cudaMemcpy may still be in flight when they
   * return, and the probe's streams do not wait for the null stream. */
  return (!ring || probe_gpu_make_ring(g, error)) &&
         PROBE_CUDA(cudaDeviceSynchronize());
}

static void probe_cuda_clear(ProbeCuda *pc)
{
  for (int d = 0; d < pc->ngpus; d++)
    probe_gpu_clear(&pc->gpus[d]);
  g_clear_pointer(&pc->gpus, g_free);
  if (pc->gate) {
    g_atomic_int_set(&pc->gate[0], 1);
    cudaFreeHost(pc->gate);
    cudaGetLastError();
    pc->gate = NULL;
  }
  g_clear_pointer(&pc->sizes, g_array_unref);
  g_clear_pointer(&pc->us, g_free);
  g_clear_pointer(&pc->m, val_meas_free);
}

/* Everything the probes need before measuring: the samples, the header,
 * streams and events on all `ngpus` GPUs, `nbuf` buffers of max_bytes (and
 * the chase ring when `ring`) on GPU `only` or, when it is -1, on all, and
 * the gate. */
static gboolean probe_cuda_setup(ProbeCuda *pc, int ngpus, int only,
                                 guint nbuf, gboolean ring, GError **error)
{
  pc->sizes = probe_sweep_sizes(pc->sweep);
  pc->m = val_meas_new();
  pc->us = g_try_new(double, pc->sweep->iters);
  if (!pc->us) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_DEVICE,
                "--iters %" G_GUINT64_FORMAT ": out of memory for the samples",
                pc->sweep->iters);
    return FALSE;
  }
  probe_gpu_describe(pc->m, ngpus);
  probe_describe_run(pc->m, pc->probe);
  pc->gpus = g_new0(ProbeGpu, ngpus);
  pc->ngpus = ngpus;
  for (int d = 0; d < ngpus; d++)
    pc->gpus[d].dev = d;
  for (int d = 0; d < ngpus; d++)
    if (!probe_gpu_setup(&pc->gpus[d], d, only < 0 || d == only ? nbuf : 0,
                         pc->sweep->max_bytes, ring, error))
      return FALSE;
  if (!PROBE_CUDA(cudaSetDevice(0)) ||
      !PROBE_CUDA(cudaHostAlloc((void **)&pc->gate, 2 * sizeof(int),
                                cudaHostAllocMapped | cudaHostAllocPortable)))
    return FALSE;
  pc->gate[0] = 1;
  pc->gate[1] = 0;
  return PROBE_CUDA(cudaHostGetDevicePointer((void **)&pc->gate_dev,
                                             pc->gate, 0));
}

static gboolean probe_lane_enqueue(const ProbeLane *l, GError **error)
{
  cudaStream_t st = l->gpu->stream[l->stream];

  switch (l->op) {
  case PROBE_OP_PEER:
    return PROBE_CUDA(cudaMemcpyPeerAsync(l->dst, l->dst_dev, l->src,
                                          l->src_dev, l->bytes, st));
  case PROBE_OP_MEMCPY:
    return PROBE_CUDA(cudaMemcpyAsync(l->dst, l->src, l->bytes, l->kind, st));
  case PROBE_OP_KERNEL:
    return PROBE_CUDA(
        probe_kernel_copy(l->dst, l->src, l->bytes, l->gpu->sm_count, st));
  case PROBE_OP_CHASE:
    return PROBE_CUDA(probe_kernel_chase((void *const *)l->src,
                                         PROBE_CHASE_ACCESSES,
                                         (void **)l->dst, st));
  }
  g_assert_not_reached();
  return FALSE;
}

/* One repetition (see the top of the file); *ms is its time.  The gate is
 * left closed on failure: the caller opens it.  A gate that timed out is
 * reported once, for a `timed` repetition (a warm-up may load modules). */
static gboolean probe_rep(ProbeCuda *pc, const ProbeLane *lanes,
                          guint nlanes, guint batch, gboolean gate,
                          gboolean timed, float *ms, GError **error)
{
  ProbeGpu *g0 = lanes[0].gpu;
  cudaStream_t s0 = g0->stream[lanes[0].stream];

  if (!PROBE_CUDA(cudaSetDevice(g0->dev)))
    return FALSE;
  if (gate) {
    g_atomic_int_set(&pc->gate[0], 0);
    g_atomic_int_set(&pc->gate[1], 0);
    if (!PROBE_CUDA(probe_kernel_gate(pc->gate_dev, PROBE_GATE_TIMEOUT_NS,
                                      s0)))
      return FALSE;
  }
  if (!PROBE_CUDA(cudaEventRecord(g0->start, s0)))
    return FALSE;
  for (guint i = 1; i < nlanes; i++)
    if (!PROBE_CUDA(cudaSetDevice(lanes[i].gpu->dev)) ||
        !PROBE_CUDA(cudaStreamWaitEvent(
            lanes[i].gpu->stream[lanes[i].stream], g0->start, 0)))
      return FALSE;
  for (guint k = 0; k < batch; k++)
    for (guint i = 0; i < nlanes; i++)
      if ((nlanes > 1 && !PROBE_CUDA(cudaSetDevice(lanes[i].gpu->dev))) ||
          !probe_lane_enqueue(&lanes[i], error))
        return FALSE;
  for (guint i = 1; i < nlanes; i++) {
    ProbeGpu *g = lanes[i].gpu;
    if (!PROBE_CUDA(cudaSetDevice(g->dev)) ||
        !PROBE_CUDA(cudaEventRecord(g->join, g->stream[lanes[i].stream])) ||
        !PROBE_CUDA(cudaSetDevice(g0->dev)) ||
        !PROBE_CUDA(cudaStreamWaitEvent(s0, g->join, 0)))
      return FALSE;
  }
  if (!PROBE_CUDA(cudaSetDevice(g0->dev)) ||
      !PROBE_CUDA(cudaEventRecord(g0->stop, s0)))
    return FALSE;
  if (gate)
    g_atomic_int_set(&pc->gate[0], 1);
  if (!PROBE_CUDA(cudaEventSynchronize(g0->stop)) ||
      !PROBE_CUDA(cudaEventElapsedTime(ms, g0->start, g0->stop)))
    return FALSE;
  if (gate && timed && g_atomic_int_get(&pc->gate[1]))
    pc->gate_opened++;
  return TRUE;
}

/* Times the lanes (-w + -n repetitions of `batch` operations each) into
 * p: the time of one operation, an operation being `per_op` units of what
 * was enqueued (the chase's loads; 1 otherwise). */
static gboolean probe_time(ProbeCuda *pc, const ProbeLane *lanes,
                           guint nlanes, guint batch, guint per_op,
                           gboolean gate, ValPoint *p, GError **error)
{
  const ProbeSweep *s = pc->sweep;
  guint64 ops;

  pc->gate_opened = 0;
  for (guint64 r = 0; r < s->warmup + s->iters; r++) {
    float ms = 0;
    gboolean ok = probe_rep(pc, lanes, nlanes, batch, gate,
                            r >= s->warmup, &ms, error);

    g_atomic_int_set(&pc->gate[0], 1);
    if (!ok)
      return FALSE;
    if (r >= s->warmup)
      pc->us[r - s->warmup] = ms * 1e3 / ((double)batch * per_op);
  }
  /* Said for every point it touches: those times include the host's
   * enqueueing (a staged copy waits for the stream on the host). */
  if (pc->gate_opened > 0)
    fprintf(stderr,
            "ifsim-probe: %s: warning: %s %s %s->%s %" G_GUINT64_FORMAT
            " B: in %u of %" G_GUINT64_FORMAT " repetitions the host took "
            "over %.0f ms to enqueue; their times include the enqueueing\n",
            pc->probe, p->test, p->mode, p->src, p->dst, p->size_bytes,
            pc->gate_opened, s->iters, PROBE_GATE_TIMEOUT_NS / 1e6);
  val_point_set_times(p, pc->us, (guint)s->iters);
  ops = s->iters * batch * per_op;
  p->iterations = (guint32)MIN(ops, G_MAXUINT32);
  return TRUE;
}

/* Operations per repetition of a bandwidth test of `bytes`. */
static guint probe_batch(guint64 bytes)
{
  guint64 b = PROBE_BATCH_BYTES / MAX(bytes, 1);

  return (guint)CLAMP(b, 1, PROBE_BATCH_MAX);
}

static void probe_point_init(ValPoint *p, ValProbe probe, const char *test,
                             const char *mode, const char *src,
                             const char *dst, guint64 bytes)
{
  val_point_init(p, probe, test, mode, src, dst);
  p->ranks = 1;
  p->size_bytes = bytes;
}

/* Runs one test over the sweep's sizes (up to --latency-max for a latency
 * test): the lanes' byte counts are set per size. */
static gboolean probe_sweep_test(ProbeCuda *pc, const char *test,
                                 const char *mode, const char *src,
                                 const char *dst, ProbeLane *lanes,
                                 guint nlanes, gboolean latency,
                                 gboolean gate, GError **error)
{
  for (guint i = 0; i < pc->sizes->len; i++) {
    guint64 bytes = g_array_index(pc->sizes, guint64, i);
    ValPoint p;

    if (latency && bytes > pc->latency_max)
      break;
    for (guint l = 0; l < nlanes; l++)
      lanes[l].bytes = bytes;
    probe_point_init(&p, pc->kind, test, mode, src, dst, bytes);
    if (!probe_time(pc, lanes, nlanes,
                    latency ? PROBE_LATENCY_BATCH : probe_batch(bytes), 1,
                    gate, &p, error))
      return FALSE;
    val_meas_add(pc->m, &p);
  }
  return TRUE;
}

/* --- p2p ------------------------------------------------------------- */

/* All tests of `mask` from gs to gd in `mode` ("peer", "nopeer", "local";
 * the SM tests need the GPUs to reach each other's memory: not "nopeer"). */
static gboolean probe_p2p_pair(ProbeCuda *pc, ProbeGpu *gs, ProbeGpu *gd,
                               const char *mode, guint32 mask,
                               GError **error)
{
  gboolean local = gs == gd, sm = strcmp(mode, "nopeer") != 0;
  char src[16], dst[16];
  ProbeLane lanes[2] = {
      {.gpu = gs, .stream = 0, .dst = gd->buf[1], .src = gs->buf[0],
       .dst_dev = gd->dev, .src_dev = gs->dev},
      {.gpu = gd, .stream = local ? 1 : 0, .dst = gs->buf[local ? 3 : 1],
       .src = gd->buf[local ? 2 : 0], .dst_dev = gs->dev,
       .src_dev = gd->dev},
  };

  g_snprintf(src, sizeof(src), "gpu%d", gs->dev);
  g_snprintf(dst, sizeof(dst), "gpu%d", gd->dev);
  for (guint t = 0; probe_p2p_tests[t]; t++) {
    const char *test = probe_p2p_tests[t];
    gboolean ok = TRUE;

    if (!(mask & (1u << t)))
      continue;
    switch (t) {
    case P2P_CE_UNI:
    case P2P_CE_BIDIR:
    case P2P_CE_LATENCY:
      lanes[0].op = lanes[1].op = PROBE_OP_PEER;
      ok = probe_sweep_test(pc, test, mode, src, dst, lanes,
                            t == P2P_CE_BIDIR ? 2 : 1, t == P2P_CE_LATENCY,
                            TRUE, error);
      break;
    case P2P_SM_UNI:
    case P2P_SM_BIDIR:
      if (!sm)
        break;
      lanes[0].op = lanes[1].op = PROBE_OP_KERNEL;
      ok = probe_sweep_test(pc, test, mode, src, dst, lanes,
                            t == P2P_SM_BIDIR ? 2 : 1, FALSE, TRUE, error);
      break;
    case P2P_SM_LATENCY: {
      ProbeLane chase = {.gpu = gs, .stream = 0, .op = PROBE_OP_CHASE,
                         .dst = gs->sink, .src = gd->ring_start};
      ValPoint p;
      if (!sm)
        break;
      probe_point_init(&p, pc->kind, test, mode, src, dst, sizeof(void *));
      /* Each launch goes on from where the last one stopped (a NULL sink
       * starts at ring_start), so the repetitions walk new nodes of a
       * ring larger than L2 instead of the same ones from the cache. */
      ok = PROBE_CUDA(cudaSetDevice(gs->dev)) &&
           PROBE_CUDA(cudaMemset(gs->sink, 0, sizeof(void *))) &&
           PROBE_CUDA(cudaDeviceSynchronize()) &&
           probe_time(pc, &chase, 1, 1, PROBE_CHASE_ACCESSES, TRUE, &p,
                      error);
      if (ok)
        val_meas_add(pc->m, &p);
      break;
    }
    default:
      g_assert_not_reached();
    }
    if (!ok)
      return FALSE;
  }
  return TRUE;
}

/* Enables (or disables) access from a to b's memory and back. */
static gboolean probe_peer_access(ProbeGpu *a, ProbeGpu *b, gboolean on,
                                  GError **error)
{
  ProbeGpu *from[2] = {a, b}, *to[2] = {b, a};

  for (guint i = 0; i < 2; i++) {
    cudaError_t rc;
    if (!PROBE_CUDA(cudaSetDevice(from[i]->dev)))
      return FALSE;
    rc = on ? cudaDeviceEnablePeerAccess(to[i]->dev, 0)
            : cudaDeviceDisablePeerAccess(to[i]->dev);
    if (rc == cudaErrorPeerAccessAlreadyEnabled ||
        rc == cudaErrorPeerAccessNotEnabled) {
      cudaGetLastError(); /* or the next launch check would report it */
      rc = cudaSuccess;
    }
    if (!probe_cuda_ok(rc, on ? "cudaDeviceEnablePeerAccess"
                              : "cudaDeviceDisablePeerAccess",
                       error))
      return FALSE;
  }
  return TRUE;
}

static gboolean probe_p2p_all(ProbeCuda *pc, guint32 mask, GError **error)
{
  if (pc->ngpus == 1) {
    fprintf(stderr,
            "ifsim-probe: p2p: one GPU, no peer: measuring gpu0's own "
            "device-to-device copies (mode local)\n");
    return probe_p2p_pair(pc, &pc->gpus[0], &pc->gpus[0], "local", mask,
                          error);
  }
  for (int s = 0; s < pc->ngpus; s++)
    for (int d = 0; d < pc->ngpus; d++) {
      ProbeGpu *gs = &pc->gpus[s], *gd = &pc->gpus[d];
      int sd = 0, ds = 0;

      if (s == d)
        continue;
      if (!PROBE_CUDA(cudaDeviceCanAccessPeer(&sd, s, d)) ||
          !PROBE_CUDA(cudaDeviceCanAccessPeer(&ds, d, s)) ||
          !probe_p2p_pair(pc, gs, gd, "nopeer", mask, error))
        return FALSE;
      if (!sd || !ds) {
        fprintf(stderr,
                "ifsim-probe: p2p: gpu%d and gpu%d cannot access each "
                "other's memory: no peer tests between them\n",
                s, d);
        continue;
      }
      if (!probe_peer_access(gs, gd, TRUE, error))
        return FALSE;
      if (!probe_p2p_pair(pc, gs, gd, "peer", mask, error)) {
        g_autoptr(GError) ignored = NULL;
        probe_peer_access(gs, gd, FALSE, &ignored);
        return FALSE;
      }
      if (!probe_peer_access(gs, gd, FALSE, error))
        return FALSE;
    }
  return TRUE;
}

/* --- hostdev --------------------------------------------------------- */

/* Host buffers of hostdev: two pinned, two pageable, max_bytes each. */
typedef struct {
  void *pinned[2];
  void *pageable[2];
} ProbeHostBufs;

static void probe_host_bufs_clear(ProbeHostBufs *h)
{
  for (guint i = 0; i < 2; i++) {
    if (h->pinned[i])
      cudaFreeHost(h->pinned[i]);
    g_free(h->pageable[i]);
  }
  cudaGetLastError();
  memset(h, 0, sizeof(*h));
}

static gboolean probe_host_bufs_setup(ProbeHostBufs *h, guint64 bytes,
                                      GError **error)
{
  for (guint i = 0; i < 2; i++) {
    cudaError_t rc = cudaMallocHost(&h->pinned[i], bytes);
    if (rc != cudaSuccess) {
      h->pinned[i] = NULL;
      g_set_error(error, VAL_ERROR, VAL_ERROR_DEVICE,
                  "cudaMallocHost: %s (%" G_GUINT64_FORMAT " bytes)",
                  cudaGetErrorString(rc), bytes);
      cudaGetLastError();
      return FALSE;
    }
    h->pageable[i] = g_try_malloc(bytes);
    if (!h->pageable[i]) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_DEVICE,
                  "malloc: out of memory (%" G_GUINT64_FORMAT " bytes)", bytes);
      return FALSE;
    }
    /* Touch every page now, so that no page fault is timed. */
    memset(h->pinned[i], (int)i + 1, bytes);
    memset(h->pageable[i], (int)i + 1, bytes);
  }
  return TRUE;
}

static gboolean probe_hostdev_gpu(ProbeCuda *pc, ProbeGpu *g,
                                  const ProbeHostBufs *h, guint32 mask,
                                  GError **error)
{
  static const char *const modes[] = {"pinned", "pageable"};
  char gpu[16];

  g_snprintf(gpu, sizeof(gpu), "gpu%d", g->dev);
  for (guint m = 0; m < G_N_ELEMENTS(modes); m++) {
    void *const *host = m == 0 ? h->pinned : h->pageable;
    gboolean gate = m == 0;
    ProbeLane h2d = {.gpu = g, .stream = 0, .op = PROBE_OP_MEMCPY,
                     .dst = g->buf[0], .src = host[0],
                     .kind = cudaMemcpyHostToDevice};
    ProbeLane d2h = {.gpu = g, .stream = 0, .op = PROBE_OP_MEMCPY,
                     .dst = host[1], .src = g->buf[1],
                     .kind = cudaMemcpyDeviceToHost};

    for (guint t = 0; probe_hostdev_tests[t]; t++) {
      const char *test = probe_hostdev_tests[t];
      gboolean to_dev = t == HD_H2D || t == HD_BIDIR || t == HD_LATENCY_H2D;
      gboolean latency = t == HD_LATENCY_H2D || t == HD_LATENCY_D2H;
      ProbeLane lanes[2];
      guint nlanes = 1;

      if (!(mask & (1u << t)))
        continue;
      /* Copies with pageable memory are synchronous with the host (CUDA's
       * "API synchronization behavior"): two directions would run one
       * after the other, not at once. */
      if (t == HD_BIDIR && m == 1)
        continue;
      lanes[0] = to_dev ? h2d : d2h;
      if (t == HD_BIDIR) {
        lanes[1] = d2h;
        lanes[1].stream = 1;
        nlanes = 2;
      }
      if (!probe_sweep_test(pc, test, modes[m], to_dev ? "host" : gpu,
                            to_dev ? gpu : "host", lanes, nlanes, latency,
                            gate, error))
        return FALSE;
    }
  }
  return TRUE;
}

#endif /* IFSIM_HAVE_CUDA */

/* --- the commands ---------------------------------------------------- */

/* Options common to both probes, after probe_parse: the test list and
 * --latency-max.  FALSE with *status set on a bad value. */
static gboolean probe_cuda_options(const char *name, const char *tests,
                                   const char *const *names,
                                   const char *latency_max, guint32 *mask,
                                   guint64 *latency_bytes, int *status)
{
  g_autoptr(GError) error = NULL;

  if (!probe_gpu_parse_tests(tests, names, mask, &error)) {
    *status = probe_fail(name, error);
    return FALSE;
  }
  *latency_bytes = PROBE_LATENCY_MAX_DEFAULT;
  if (latency_max && !sim_size_parse(latency_max, latency_bytes, &error)) {
    g_prefix_error(&error, "--latency-max: ");
    *status = probe_fail(name, error);
    return FALSE;
  }
  return TRUE;
}

int val_probe_p2p(int argc, char **argv)
{
  ProbeSweep sweep;
  g_autofree char *tests = NULL, *latency_max = NULL;
  const GOptionEntry extra[] = {
      {"test", 't', 0, G_OPTION_ARG_STRING, &tests,
       "Comma-separated tests (default all): ce_uni, ce_bidir, sm_uni, "
       "sm_bidir, ce_latency, sm_latency",
       "LIST"},
      {"latency-max", 'l', 0, G_OPTION_ARG_STRING, &latency_max,
       "ce_latency at the sweep's sizes up to SIZE (default 64K); "
       "sm_latency is one 8-byte load",
       "SIZE"},
      G_OPTION_ENTRY_NULL};
  GOptionContext *ctx;
  g_autoptr(GString) why = g_string_new(NULL);
  guint32 mask = 0;
  guint64 latency_bytes = 0;
  int status = PROBE_EXIT_OK, count;

  probe_sweep_init(&sweep, 4, 256 * PROBE_MIB);
  ctx = probe_context_new(
      "p2p",
      "GPU<->GPU copy bandwidth and latency, every ordered pair, peer "
      "access on and off (one GPU: its local copies)",
      &sweep, extra);
  if (!probe_parse(ctx, "p2p", &sweep, &argc, &argv, &status) ||
      !probe_cuda_options("p2p", tests, probe_p2p_tests, latency_max, &mask,
                          &latency_bytes, &status))
    goto out;
  count = probe_gpu_count(why);
  if (count == 0) {
    status = probe_no_device("p2p", why->str);
    goto out;
  }
#if IFSIM_HAVE_CUDA
  {
    g_autoptr(GError) error = NULL;
    ProbeCuda pc = {.probe = "p2p", .kind = VAL_PROBE_P2P, .sweep = &sweep,
                    .latency_max = latency_bytes};
    gboolean ring = (mask & (1u << P2P_SM_LATENCY)) != 0;

    if (probe_cuda_setup(&pc, count, -1, count == 1 ? 4 : 2, ring, &error) &&
        probe_p2p_all(&pc, mask, &error))
      status = probe_finish("p2p", pc.m, &sweep);
    else
      status = probe_fail("p2p", error);
    probe_cuda_clear(&pc);
  }
#else
  (void)mask;
  (void)latency_bytes;
#endif
out:
  g_option_context_free(ctx);
  probe_sweep_clear(&sweep);
  return status;
}

int val_probe_hostdev(int argc, char **argv)
{
  ProbeSweep sweep;
  g_autofree char *tests = NULL, *latency_max = NULL, *device = NULL;
  const GOptionEntry extra[] = {
      {"device", 'd', 0, G_OPTION_ARG_STRING, &device,
       "Measure GPU N only (default: every GPU)", "N"},
      {"test", 't', 0, G_OPTION_ARG_STRING, &tests,
       "Comma-separated tests (default all): h2d, d2h, bidir, latency_h2d, "
       "latency_d2h",
       "LIST"},
      {"latency-max", 'l', 0, G_OPTION_ARG_STRING, &latency_max,
       "Latency tests at the sweep's sizes up to SIZE (default 64K)", "SIZE"},
      G_OPTION_ENTRY_NULL};
  GOptionContext *ctx;
  g_autoptr(GString) why = g_string_new(NULL);
  g_autoptr(GError) error = NULL;
  guint32 mask = 0;
  guint64 latency_bytes = 0;
  int status = PROBE_EXIT_OK, count, only = -1;

  probe_sweep_init(&sweep, 4, 256 * PROBE_MIB);
  ctx = probe_context_new(
      "hostdev",
      "host<->device copy bandwidth and latency, pinned and pageable host "
      "memory, per GPU",
      &sweep, extra);
  if (!probe_parse(ctx, "hostdev", &sweep, &argc, &argv, &status) ||
      !probe_cuda_options("hostdev", tests, probe_hostdev_tests, latency_max,
                          &mask, &latency_bytes, &status))
    goto out;
  if (device && !probe_gpu_parse_int("--device", device, 0, &only, &error)) {
    status = probe_fail("hostdev", error);
    goto out;
  }
  count = probe_gpu_count(why);
  if (count == 0) {
    status = probe_no_device("hostdev", why->str);
    goto out;
  }
  if (only >= count) {
    g_set_error(&error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--device: %d is not a GPU here (0 to %d)", only, count - 1);
    status = probe_fail("hostdev", error);
    goto out;
  }
#if IFSIM_HAVE_CUDA
  {
    ProbeCuda pc = {.probe = "hostdev", .kind = VAL_PROBE_HOSTDEV,
                    .sweep = &sweep, .latency_max = latency_bytes};
    ProbeHostBufs host = {{NULL, NULL}, {NULL, NULL}};
    gboolean ok = probe_cuda_setup(&pc, count, only, 2, FALSE,
                                   &error);

    ok = ok && probe_host_bufs_setup(&host, sweep.max_bytes, &error);
    for (int d = 0; ok && d < count; d++)
      if (only < 0 || d == only)
        ok = probe_hostdev_gpu(&pc, &pc.gpus[d], &host, mask, &error);
    status = ok ? probe_finish("hostdev", pc.m, &sweep)
                : probe_fail("hostdev", error);
    probe_host_bufs_clear(&host);
    probe_cuda_clear(&pc);
  }
#else
  (void)mask;
  (void)latency_bytes;
#endif
out:
  g_option_context_free(ctx);
  probe_sweep_clear(&sweep);
  return status;
}
