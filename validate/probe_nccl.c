/* `ifsim-probe nccl`: NCCL collectives over the GPUs of this machine, in one
 * process, as nccl-tests' *_perf binaries measure them with -g N (one
 * thread driving N GPUs).
 *
 * One communicator per GPU from ncclCommInitAll, one stream per GPU; an
 * operation is one ncclGroupStart/End over every rank.  Sizes and counts
 * follow nccl-tests (common.cu and each collective's GetCollByteCount): the
 * sweep's size S gives count = S / sizeof(float); allgather sends count/n
 * per rank, reducescatter receives count/n, alltoall exchanges count/n with
 * every peer, the others move count; the size reported is the larger of
 * the send and receive buffers, so sizes that do not divide by n are
 * rounded down as nccl-tests prints them (and skipped when that is 0).
 * float, sum, root 0.  Out of place ("oop"), then in place ("ip", the
 * buffers placed as nccl-tests places them, for every collective).
 *
 * Timing.  nccl-tests times a batch: -n operations launched back to back,
 * one wall-clock interval around them, divided by -n.  We time the same
 * batch with CUDA events on every rank's stream (start before the first
 * operation, stop after the last), take the slowest rank's interval, and
 * divide by -n; the batch is repeated --batches times and the point gets
 * the min, median and max of those batches.  Timing each operation alone
 * instead would add a synchronisation between operations that nccl-tests
 * does not have, and a single rank's events would miss the skew between
 * ranks; batches keep nccl-tests' number and still show the spread.
 *
 * With --graph, as nccl-tests -G 1: after the warm-up, the -n operations
 * are captured once into a CUDA graph on every rank's stream
 * (cudaStreamBeginCapture in thread-local mode, as common.cu), and each
 * batch times one launch of those graphs between the same events; the
 * header key graph_launches = 1 tells validate that the host launched
 * graphs, not operations.
 *
 * Bandwidth: algbw = S / t, busbw = algbw x nccl-tests' bus factor
 * (PERFORMANCE.md): allreduce 2(n-1)/n; allgather, reducescatter,
 * alltoall (n-1)/n; broadcast, reduce, sendrecv 1.
 *
 * With --mpi the same sweep runs with one rank per MPI process, across
 * hosts (validate/probe_nccl_mpi.c): the setup, the run and the timing below
 * are shared, a process driving ranks first to first+nlocal-1 of n
 * (ProbeNccl in validate/probe_gpu.h; here all n, there one), and the
 * slowest rank of a batch found over every process. */
#include <stdio.h>
#include <string.h>

#include "sim/config.h"
#include "validate/error.h"
#include "validate/probe.h"
#include "validate/probe_gpu.h"

#if IFSIM_HAVE_NCCL
#include <cuda_runtime_api.h>
#include <nccl.h>
#endif

/* In the order `-c all` runs them; nccl-tests' binary names without "_"
 * and "_perf" are accepted too (all_reduce, reduce_scatter, ...). */
static const char *const probe_nccl_colls[] = {
    "allreduce", "allgather", "reducescatter", "broadcast",
    "reduce",    "alltoall",  "sendrecv",      NULL};
enum {
  NC_ALLREDUCE,
  NC_ALLGATHER,
  NC_REDUCESCATTER,
  NC_BROADCAST,
  NC_REDUCE,
  NC_ALLTOALL,
  NC_SENDRECV
};

/* Bit i set for probe_nccl_colls[i]; FALSE with the accepted names. */
static gboolean probe_nccl_parse_coll(const char *text, guint32 *mask,
                                      GError **error)
{
  g_autoptr(GString) norm = g_string_new(NULL);

  for (const char *c = text; *c; c++)
    if (*c != '_')
      g_string_append_c(norm, g_ascii_tolower(*c));
  if (g_str_has_suffix(norm->str, "perf"))
    g_string_truncate(norm, norm->len - 4);
  if (g_str_equal(norm->str, "all")) {
    *mask = 0;
    for (guint i = 0; probe_nccl_colls[i]; i++)
      *mask |= 1u << i;
    return TRUE;
  }
  for (guint i = 0; probe_nccl_colls[i]; i++)
    if (g_str_equal(norm->str, probe_nccl_colls[i])) {
      *mask = 1u << i;
      return TRUE;
    }
  {
    g_autofree char *all = g_strjoinv(", ", (char **)probe_nccl_colls);
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--collective: '%s' is not one of %s, all", text, all);
  }
  return FALSE;
}

#if IFSIM_HAVE_NCCL

gboolean probe_nccl_ok(ncclResult_t rc, const char *expr, GError **error)
{
  if (rc == ncclSuccess)
    return TRUE;
  g_set_error(error, VAL_ERROR, VAL_ERROR_DEVICE, "%.*s: %s",
              (int)strcspn(expr, "("), expr, ncclGetErrorString(rc));
  return FALSE;
}

#define PROBE_CUDA(call) probe_cuda_ok((call), #call, error)
#define PROBE_NCCL(call) probe_nccl_ok((call), #call, error)

void probe_nccl_clear(ProbeNccl *pn)
{
  for (int l = 0; l < pn->nlocal; l++) {
    if (pn->comms && pn->comms[l]) {
      if (pn->failed)
        ncclCommAbort(pn->comms[l]);
      else
        ncclCommDestroy(pn->comms[l]);
    }
    if (!pn->devs || cudaSetDevice(pn->devs[l]) != cudaSuccess)
      continue;
    if (pn->streams && pn->streams[l])
      cudaStreamDestroy(pn->streams[l]);
    if (pn->start && pn->start[l])
      cudaEventDestroy(pn->start[l]);
    if (pn->stop && pn->stop[l])
      cudaEventDestroy(pn->stop[l]);
    if (pn->send && pn->send[l])
      cudaFree(pn->send[l]);
    if (pn->recv && pn->recv[l])
      cudaFree(pn->recv[l]);
  }
  cudaGetLastError();
  g_clear_pointer(&pn->devs, g_free);
  g_clear_pointer(&pn->comms, g_free);
  g_clear_pointer(&pn->streams, g_free);
  g_clear_pointer(&pn->start, g_free);
  g_clear_pointer(&pn->stop, g_free);
  g_clear_pointer(&pn->send, g_free);
  g_clear_pointer(&pn->recv, g_free);
  g_clear_pointer(&pn->us, g_free);
  pn->n = pn->nlocal = pn->first = 0;
  pn->failed = FALSE;
}

static gboolean probe_nccl_alloc(char **ptr, guint64 bytes, int dev,
                                 GError **error)
{
  cudaError_t rc = cudaMalloc((void **)ptr, bytes);

  if (rc == cudaSuccess)
    return PROBE_CUDA(cudaMemset(*ptr, 0, bytes));
  *ptr = NULL;
  g_set_error(error, VAL_ERROR, VAL_ERROR_DEVICE,
              "cudaMalloc: %s (%" G_GUINT64_FORMAT " bytes on gpu%d)",
              cudaGetErrorString(rc), bytes, dev);
  cudaGetLastError();
  return FALSE;
}

gboolean probe_nccl_setup(ProbeNccl *pn, int n, int nlocal, int first,
                          const int *devs, const ProbeNcclPlan *plan,
                          GError **error)
{
  guint64 bytes = plan->sweep->max_bytes;

  g_assert(nlocal >= 1 && first >= 0 && first + nlocal <= n);
  pn->n = n;
  pn->nlocal = nlocal;
  pn->first = first;
  pn->devs = g_memdup2(devs, sizeof(int) * (gsize)nlocal);
  pn->comms = g_new0(ncclComm_t, nlocal);
  pn->streams = g_new0(cudaStream_t, nlocal);
  pn->start = g_new0(cudaEvent_t, nlocal);
  pn->stop = g_new0(cudaEvent_t, nlocal);
  pn->send = g_new0(char *, nlocal);
  pn->recv = g_new0(char *, nlocal);
  pn->us = g_new(double, plan->batches);
  for (int l = 0; l < nlocal; l++) {
    int d = devs[l];

    if (!PROBE_CUDA(cudaSetDevice(d)) ||
        !PROBE_CUDA(cudaStreamCreateWithFlags(&pn->streams[l],
                                              cudaStreamNonBlocking)) ||
        !PROBE_CUDA(cudaEventCreate(&pn->start[l])) ||
        !PROBE_CUDA(cudaEventCreate(&pn->stop[l])) ||
        !probe_nccl_alloc(&pn->send[l], bytes, d, error) ||
        !probe_nccl_alloc(&pn->recv[l], bytes, d, error))
      return FALSE;
  }
  return TRUE;
}

void probe_nccl_describe(ValMeasurements *m, int gpus)
{
  probe_gpu_describe(m, gpus);
  probe_describe_run(m, "nccl");
  val_meas_set(m, "nccl.type", "float");
  val_meas_set(m, "nccl.op", "sum");
  val_meas_set(m, "nccl.root", "0");
}

/* nccl-tests' GetCollByteCount: the count passed to NCCL (per peer for
 * alltoall) and the size reported, for `count` floats and n ranks. */
static void probe_nccl_counts(guint coll, size_t count, int n, size_t *param,
                              guint64 *reported)
{
  size_t per = count / (size_t)n;

  switch (coll) {
  case NC_ALLGATHER:
  case NC_REDUCESCATTER:
  case NC_ALLTOALL:
    *param = per;
    *reported = (guint64)per * (guint64)n * sizeof(float);
    break;
  default:
    *param = count;
    *reported = (guint64)count * sizeof(float);
    break;
  }
}

/* nccl-tests' bus bandwidth factor (PERFORMANCE.md). */
static double probe_nccl_busfactor(guint coll, int n)
{
  switch (coll) {
  case NC_ALLREDUCE:
    return 2.0 * (n - 1) / n;
  case NC_ALLGATHER:
  case NC_REDUCESCATTER:
  case NC_ALLTOALL:
    return (double)(n - 1) / n;
  default:
    return 1.0;
  }
}

/* Local rank l's part of one operation (inside the caller's group). */
static gboolean probe_nccl_rank(const ProbeNccl *pn, guint coll,
                                gboolean ip, size_t param, int l,
                                GError **error)
{
  ncclComm_t comm = pn->comms[l];
  cudaStream_t st = pn->streams[l];
  char *send = pn->send[l], *recv = pn->recv[l];
  size_t chunk = param * sizeof(float);
  int n = pn->n, r = pn->first + l;

  if (ip) {
    /* nccl-tests' in-place buffers: the rank's slice of the output for
     * allgather, of the input for reducescatter, the same buffer else. */
    if (coll == NC_ALLGATHER)
      send = recv + (size_t)r * chunk;
    else if (coll == NC_REDUCESCATTER)
      recv = send + (size_t)r * chunk;
    else
      send = recv;
  }
  switch (coll) {
  case NC_ALLREDUCE:
    return PROBE_NCCL(
        ncclAllReduce(send, recv, param, ncclFloat, ncclSum, comm, st));
  case NC_ALLGATHER:
    return PROBE_NCCL(ncclAllGather(send, recv, param, ncclFloat, comm, st));
  case NC_REDUCESCATTER:
    return PROBE_NCCL(
        ncclReduceScatter(send, recv, param, ncclFloat, ncclSum, comm, st));
  case NC_BROADCAST:
    return PROBE_NCCL(
        ncclBroadcast(send, recv, param, ncclFloat, 0, comm, st));
  case NC_REDUCE:
    return PROBE_NCCL(
        ncclReduce(send, recv, param, ncclFloat, ncclSum, 0, comm, st));
  case NC_ALLTOALL:
    for (int p = 0; p < n; p++)
      if (!PROBE_NCCL(ncclSend(send + (size_t)p * chunk, param, ncclFloat,
                               p, comm, st)) ||
          !PROBE_NCCL(ncclRecv(recv + (size_t)p * chunk, param, ncclFloat,
                               p, comm, st)))
        return FALSE;
    return TRUE;
  case NC_SENDRECV:
    /* sendrecv_perf: each rank sends to the next and receives from the
     * previous one (a ring). */
    return PROBE_NCCL(ncclSend(send, param, ncclFloat, (r + 1) % n, comm,
                               st)) &&
           PROBE_NCCL(ncclRecv(recv, param, ncclFloat, (r + n - 1) % n, comm,
                               st));
  default:
    g_assert_not_reached();
    return FALSE;
  }
}

/* One operation over this process's ranks: one group. */
static gboolean probe_nccl_op(const ProbeNccl *pn, guint coll, gboolean ip,
                              size_t param, GError **error)
{
  gboolean ok;

  if (!PROBE_NCCL(ncclGroupStart()))
    return FALSE;
  ok = TRUE;
  for (int l = 0; ok && l < pn->nlocal; l++)
    ok = probe_nccl_rank(pn, coll, ip, param, l, error);
  /* The group is ended even after a failed call, or NCCL stays in it. */
  if (ok)
    return PROBE_NCCL(ncclGroupEnd());
  ncclGroupEnd();
  return FALSE;
}

static gboolean probe_nccl_sync(const ProbeNccl *pn, GError **error)
{
  for (int l = 0; l < pn->nlocal; l++)
    if (!PROBE_CUDA(cudaSetDevice(pn->devs[l])) ||
        !PROBE_CUDA(cudaStreamSynchronize(pn->streams[l])))
      return FALSE;
  return TRUE;
}

/* Records `ev` (start or stop) on every local rank's stream. */
static gboolean probe_nccl_record(const ProbeNccl *pn, cudaEvent_t *ev,
                                  GError **error)
{
  for (int l = 0; l < pn->nlocal; l++)
    if (!PROBE_CUDA(cudaSetDevice(pn->devs[l])) ||
        !PROBE_CUDA(cudaEventRecord(ev[l], pn->streams[l])))
      return FALSE;
  return TRUE;
}

/* Ends the capture of every local rank's stream that is capturing and
 * destroys the graphs; with `exec`, first instantiates each stream's graph
 * into exec[l].  FALSE (error set) when a step fails: every capture is
 * ended all the same, so that the streams can be used again. */
static gboolean probe_nccl_end_capture(const ProbeNccl *pn,
                                       cudaGraphExec_t *exec, GError **error)
{
  gboolean ok = TRUE;

  for (int l = 0; l < pn->nlocal; l++) {
    cudaGraph_t graph = NULL;
    enum cudaStreamCaptureStatus on = cudaStreamCaptureStatusNone;

    if (cudaSetDevice(pn->devs[l]) != cudaSuccess ||
        cudaStreamIsCapturing(pn->streams[l], &on) != cudaSuccess ||
        on == cudaStreamCaptureStatusNone) {
      cudaGetLastError();
      continue;
    }
    if (ok)
      ok = PROBE_CUDA(cudaStreamEndCapture(pn->streams[l], &graph));
    else if (cudaStreamEndCapture(pn->streams[l], &graph) != cudaSuccess)
      cudaGetLastError();
    if (ok && exec)
      ok = PROBE_CUDA(cudaGraphInstantiateWithFlags(&exec[l], graph, 0));
    if (graph)
      cudaGraphDestroy(graph);
  }
  for (int l = 0; ok && exec && l < pn->nlocal; l++)
    if (!exec[l]) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_DEVICE,
                  "cudaStreamBeginCapture: gpu%d's stream was not capturing "
                  "after NCCL's operations (no CUDA graph to launch)",
                  pn->devs[l]);
      ok = FALSE;
    }
  return ok;
}

/* The graphs of -n operations on every local rank's stream, instantiated
 * into exec[] (nccl-tests -G: common.cu BenchTime). */
static gboolean probe_nccl_capture(const ProbeNccl *pn, guint coll, gboolean ip,
                                   size_t param, guint64 n,
                                   cudaGraphExec_t *exec, GError **error)
{
  gboolean ok = TRUE;

  for (int l = 0; ok && l < pn->nlocal; l++)
    ok = PROBE_CUDA(cudaSetDevice(pn->devs[l])) &&
         PROBE_CUDA(cudaStreamBeginCapture(pn->streams[l],
                                           cudaStreamCaptureModeThreadLocal));
  for (guint64 i = 0; ok && i < n; i++)
    ok = probe_nccl_op(pn, coll, ip, param, error);
  if (!ok) {
    probe_nccl_end_capture(pn, NULL, NULL);
    return FALSE;
  }
  return probe_nccl_end_capture(pn, exec, error);
}

/* One timed batch: -n operations launched, or with exec, the graphs that
 * hold them. */
static gboolean probe_nccl_batch(const ProbeNccl *pn, guint coll, gboolean ip,
                                 size_t param, guint64 n,
                                 const cudaGraphExec_t *exec, GError **error)
{
  for (guint64 i = 0; !exec && i < n; i++)
    if (!probe_nccl_op(pn, coll, ip, param, error))
      return FALSE;
  for (int l = 0; exec && l < pn->nlocal; l++)
    if (!PROBE_CUDA(cudaSetDevice(pn->devs[l])) ||
        !PROBE_CUDA(cudaGraphLaunch(exec[l], pn->streams[l])))
      return FALSE;
  return TRUE;
}

/* -w untimed operations, then --batches batches of -n: the time of one
 * operation into p (see the top of the file). */
static gboolean probe_nccl_time(ProbeNccl *pn, const ProbeNcclPlan *plan,
                                guint coll, gboolean ip, size_t param,
                                ValPoint *p, GError **error)
{
  const ProbeSweep *s = plan->sweep;
  g_autofree cudaGraphExec_t *exec = NULL;
  gboolean ok = TRUE;
  guint64 ops;

  for (guint64 i = 0; i < s->warmup; i++)
    if (!probe_nccl_op(pn, coll, ip, param, error))
      return FALSE;
  if (!probe_nccl_sync(pn, error))
    return FALSE;
  if (plan->graph) {
    exec = g_new0(cudaGraphExec_t, pn->nlocal);
    if (!probe_nccl_capture(pn, coll, ip, param, s->iters, exec, error))
      ok = FALSE;
  }
  if (pn->barrier)
    pn->barrier();
  for (guint b = 0; ok && b < plan->batches; b++) {
    double slowest = 0;

    ok = probe_nccl_record(pn, pn->start, error) &&
         probe_nccl_batch(pn, coll, ip, param, s->iters, exec, error) &&
         probe_nccl_record(pn, pn->stop, error);
    for (int l = 0; ok && l < pn->nlocal; l++) {
      float ms = 0;
      ok = PROBE_CUDA(cudaEventSynchronize(pn->stop[l])) &&
           PROBE_CUDA(cudaEventElapsedTime(&ms, pn->start[l], pn->stop[l]));
      slowest = MAX(slowest, (double)ms);
    }
    if (!ok)
      break;
    /* The other processes' ranks: also what keeps them in step, as the
     * next batch starts only after every process has ended this one. */
    if (pn->slowest)
      slowest = pn->slowest(slowest);
    pn->us[b] = slowest * 1e3 / (double)s->iters;
  }
  for (int l = 0; exec && l < pn->nlocal; l++)
    if (exec[l])
      cudaGraphExecDestroy(exec[l]);
  if (!ok)
    return FALSE;
  val_point_set_times(p, pn->us, plan->batches);
  ops = s->iters * plan->batches;
  p->iterations = (guint32)MIN(ops, G_MAXUINT32);
  return TRUE;
}

gboolean probe_nccl_run(ProbeNccl *pn, const ProbeNcclPlan *plan,
                        ValMeasurements *m, GError **error)
{
  static const char *const modes[] = {"oop", "ip"};
  g_autoptr(GArray) sizes = probe_sweep_sizes(plan->sweep);
  char ranks[32], iters[24];

  /* each batch times -n calls launched back to back (validate/calibrate.c
   * predicts the time per call of such a loop) */
  if (plan->sweep->iters >= 1 && plan->sweep->iters <= G_MAXUINT32) {
    g_snprintf(iters, sizeof(iters), "%" G_GUINT64_FORMAT,
               (guint64)plan->sweep->iters);
    val_meas_set(m, "iters", iters);
  }
  /* each timing launched the graphs of those calls once */
  if (plan->graph)
    val_meas_set(m, "graph_launches", "1");

  if (pn->n == 1)
    g_snprintf(ranks, sizeof(ranks), "0");
  else
    g_snprintf(ranks, sizeof(ranks), "0-%d", pn->n - 1);
  for (guint c = 0; probe_nccl_colls[c]; c++) {
    if (!(plan->mask & (1u << c)))
      continue;
    for (guint i = 0; i < sizes->len; i++) {
      size_t count = g_array_index(sizes, guint64, i) / sizeof(float);
      size_t param;
      guint64 reported;

      probe_nccl_counts(c, count, pn->n, &param, &reported);
      if (param == 0)
        continue;
      for (guint md = 0; md < G_N_ELEMENTS(modes); md++) {
        ValPoint p;

        memset(&p, 0, sizeof(p));
        p.probe = VAL_PROBE_NCCL;
        g_strlcpy(p.test, probe_nccl_colls[c], sizeof(p.test));
        g_strlcpy(p.mode, modes[md], sizeof(p.mode));
        g_strlcpy(p.src, ranks, sizeof(p.src));
        g_strlcpy(p.dst, ranks, sizeof(p.dst));
        p.ranks = (guint32)pn->n;
        p.size_bytes = reported;
        if (!probe_nccl_time(pn, plan, c, md == 1, param, &p, error))
          return FALSE;
        p.bw_GBps = (double)reported / (p.time_us_median * 1e3);
        p.busbw_GBps = p.bw_GBps * probe_nccl_busfactor(c, pn->n);
        val_meas_add(m, &p);
        /* A 1-rank collective has no bus traffic (nccl-tests prints 0);
         * val_meas_add reads a 0 busbw as unset and copies algbw. */
        g_array_index(m->points, ValPoint, m->points->len - 1).busbw_GBps =
            p.busbw_GBps;
      }
    }
  }
  return TRUE;
}

/* One process: communicators on GPUs 0 to n-1 from ncclCommInitAll. */
static int probe_nccl_local(const ProbeNcclPlan *plan, int n, int gpus)
{
  ProbeNccl pn = {0};
  g_autoptr(ValMeasurements) m = val_meas_new();
  g_autoptr(GError) error = NULL;
  g_autofree int *devs = g_new(int, n);
  gboolean ok;
  int status;

  for (int r = 0; r < n; r++)
    devs[r] = r;
  probe_nccl_describe(m, gpus);
  {
    char num[16];

    /* one process launches every rank's kernels (validate/calibrate.c
     * predicts the time per call with that) */
    g_snprintf(num, sizeof(num), "%d", n);
    val_meas_set(m, "gpus_per_process", num);
  }
  ok = probe_nccl_setup(&pn, n, n, 0, devs, plan, &error);
  if (ok && !probe_nccl_ok(ncclCommInitAll(pn.comms, n, devs),
                           "ncclCommInitAll", &error)) {
    memset(pn.comms, 0, sizeof(ncclComm_t) * (gsize)n);
    ok = FALSE;
  }
  if (ok && probe_nccl_run(&pn, plan, m, &error)) {
    status = probe_finish("nccl", m, plan->sweep);
  } else {
    pn.failed = TRUE;
    status = probe_fail("nccl", error);
  }
  probe_nccl_clear(&pn);
  return status;
}

#endif /* IFSIM_HAVE_NCCL */

/* What --help adds to --mpi in a build that cannot run it. */
#if !IFSIM_HAVE_MPI
#define PROBE_NCCL_MPI_NOTE "; built without MPI: exits 77"
#elif !IFSIM_HAVE_NCCL
#define PROBE_NCCL_MPI_NOTE "; built without NCCL: exits 77"
#else
#define PROBE_NCCL_MPI_NOTE ""
#endif

int val_probe_nccl(int argc, char **argv)
{
  ProbeSweep sweep;
  g_autofree char *coll = NULL, *ngpus = NULL, *batches_text = NULL;
  gboolean mpi = FALSE, graph = FALSE;
  const GOptionEntry extra[] = {
      {"collective", 'c', 0, G_OPTION_ARG_STRING, &coll,
       "allreduce (default), allgather, reducescatter, broadcast, reduce, "
       "alltoall, sendrecv, or all",
       "NAME"},
      {"ngpus", 'g', 0, G_OPTION_ARG_STRING, &ngpus,
       "Ranks: GPUs 0 to N-1 (default: every GPU)", "N"},
      {"batches", 'B', 0, G_OPTION_ARG_STRING, &batches_text,
       "Timed batches of -n operations per point (default 5)", "N"},
      {"graph", 'G', 0, G_OPTION_ARG_NONE, &graph,
       "Capture each point's -n operations in a CUDA graph a GPU and time "
       "the graphs' launch, as nccl-tests -G 1",
       NULL},
      {"mpi", 0, 0, G_OPTION_ARG_NONE, &mpi,
       "One rank per MPI process, on one GPU each, across hosts (run it "
       "under mpirun or srun; rank 0 writes)" PROBE_NCCL_MPI_NOTE,
       NULL},
      G_OPTION_ENTRY_NULL};
  GOptionContext *ctx;
  g_autoptr(GString) why = g_string_new(NULL);
  g_autoptr(GError) error = NULL;
  guint32 mask = 0;
  int status = PROBE_EXIT_OK, count, n = 0, batches = 5;

  probe_sweep_init(&sweep, 8, 128 * ((guint64)1 << 20));
  ctx = probe_context_new(
      "nccl",
      "NCCL collective bandwidth over this machine's GPUs in one process, or "
      "over one GPU per MPI process across hosts (--mpi)",
      &sweep, extra);
  if (!probe_parse(ctx, "nccl", &sweep, &argc, &argv, &status))
    goto out;
  if (!probe_nccl_parse_coll(coll ? coll : "allreduce", &mask, &error) ||
      (ngpus && !probe_gpu_parse_int("--ngpus", ngpus, 1, &n, &error)) ||
      (batches_text &&
       !probe_gpu_parse_int("--batches", batches_text, 1, &batches, &error))) {
    status = probe_fail("nccl", error);
    goto out;
  }
  if (mpi && ngpus) {
    g_set_error(&error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--ngpus: not with --mpi (each MPI process drives one GPU; "
                "mpirun -np N sets the ranks)");
    status = probe_fail("nccl", error);
    goto out;
  }
  if (mpi) {
    /* Each process of the job ends here alike, before MPI starts. */
#if !IFSIM_HAVE_MPI
    status = probe_no_device("nccl", "--mpi: built without MPI (Debian: "
                                     "libopenmpi-dev)");
#elif !IFSIM_HAVE_NCCL
    status = probe_no_device("nccl", "no NCCL (built without NCCL)");
#else
    ProbeNcclPlan plan = {&sweep, (guint)batches, mask, graph};

    status = probe_nccl_mpi(&plan);
#endif
    goto out;
  }
  count = probe_gpu_count(why);
  if (count == 0) {
    status = probe_no_device("nccl", why->str);
    goto out;
  }
  if (n > count) {
    g_set_error(&error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--ngpus: %d is more than the %d GPU(s) here", n, count);
    status = probe_fail("nccl", error);
    goto out;
  }
#if IFSIM_HAVE_NCCL
  {
    ProbeNcclPlan plan = {&sweep, (guint)batches, mask, graph};

    status = probe_nccl_local(&plan, n == 0 ? count : n, count);
  }
#else
  (void)mask;
  (void)batches;
  (void)graph;
  status = probe_no_device("nccl", "no NCCL (built without NCCL)");
#endif
out:
  g_option_context_free(ctx);
  probe_sweep_clear(&sweep);
  return status;
}
