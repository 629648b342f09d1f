/* What the GPU probes share (internal to validate/): finding the GPUs,
 * describing them in the header block, and turning a failed CUDA call into
 * a GError.  Defined in validate/probe_devices.c (detection) and
 * validate/probe_cuda.c (the rest); the `nccl` part at the end in
 * validate/probe_nccl.c and validate/probe_nccl_mpi.c. */
#ifndef VALIDATE_PROBE_GPU_H
#define VALIDATE_PROBE_GPU_H

#include <glib.h>

#include "sim/config.h"
#include "validate/probe.h"

#if IFSIM_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif
#if IFSIM_HAVE_NCCL
#include <nccl.h>
#endif

/* The number of CUDA GPUs this process can use.  0 when there is none, the
 * reason appended to `why`: no NVIDIA driver, cudaGetDeviceCount's error,
 * or a build without the CUDA toolkit.  Never fails otherwise. */
int probe_gpu_count(GString *why);

/* Error domain of the GPU probes: a CUDA or NCCL call that failed; the
 * message is "CALL: what the library says". */

/* An option value that must be a decimal number from min to G_MAXINT
 * ("010" is ten): FALSE with "OPTION: 'TEXT' is not a number from MIN"
 * otherwise. */
gboolean probe_gpu_parse_int(const char *option, const char *text, int min,
                             int *out, GError **error);

/* A comma-separated list of test names, each one of `names` (NULL-
 * terminated, at most 32): bit i of *mask set for names[i].  NULL text
 * selects all.  FALSE with "--test: 'X' is not one of A, B, ..." on an
 * unknown name. */
gboolean probe_gpu_parse_tests(const char *text, const char *const *names,
                               guint32 *mask, GError **error);

#if IFSIM_HAVE_CUDA
/* TRUE when rc is cudaSuccess; otherwise sets *error to "CALL: message",
 * CALL being `expr` up to its first '(' (so a macro can pass #call), and
 * clears the runtime's last error. */
gboolean probe_cuda_ok(cudaError_t rc, const char *expr, GError **error);

/* Header keys of the machine's GPUs: gpu (the model, when all are the
 * same) or gpuN.name, gpuN.pci (bus id), gpu.count, driver (the CUDA
 * driver API version), nvidia_driver (the kernel module's, when
 * /proc/driver/nvidia/version is readable), cuda_runtime, nccl (when built
 * with NCCL).  `count` GPUs, as probe_gpu_count found them. */
void probe_gpu_describe(ValMeasurements *m, int count);
#endif

#if IFSIM_HAVE_NCCL
/* --- `nccl`: one process (validate/probe_nccl.c) or one rank per MPI
 * process (validate/probe_nccl_mpi.c) share what follows. */

/* The ranks this process drives in one communicator of n ranks: local rank
 * l is communicator rank first + l, on GPU devs[l], with comms[l],
 * streams[l], ...  One process: nlocal = n, first = 0, devs 0 to n-1.  MPI:
 * nlocal = 1.  Handles are NULL until created. */
typedef struct {
  int n, nlocal, first;
  int *devs;
  ncclComm_t *comms;
  cudaStream_t *streams;
  cudaEvent_t *start, *stop;
  char **send, **recv; /* max_bytes each */
  double *us;          /* --batches samples */
  gboolean failed;     /* abort the communicators rather than destroy */
  /* Set by a multi-process run, NULL in one process: barrier() before the
   * first timed batch of a point, so that no rank starts its clock while
   * another is still in the warm-up; slowest(ms) returns the largest of
   * every process's ms (each calls it once per batch).  Neither returns on
   * failure. */
  void (*barrier)(void);
  double (*slowest)(double ms);
} ProbeNccl;

/* What `nccl` measures: from its options, the same in every process. */
typedef struct {
  const ProbeSweep *sweep;
  guint batches; /* --batches, at least 1 */
  guint32 mask;  /* bit i: collective i, in the order of -c all */
  gboolean graph; /* --graph: a batch's operations captured in a CUDA graph
                     a GPU, and the graphs' launch timed (nccl-tests -G 1) */
} ProbeNcclPlan;

/* TRUE when rc is ncclSuccess; otherwise sets *error to "CALL: message",
 * CALL being `expr` up to its first '(' (as probe_cuda_ok). */
gboolean probe_nccl_ok(ncclResult_t rc, const char *expr, GError **error);

/* Streams, events and two zeroed buffers of plan->sweep->max_bytes on each
 * of devs[0 .. nlocal-1] (copied), for ranks first to first+nlocal-1 of n;
 * not the communicators, which the caller creates into pn->comms.  FALSE on
 * a failed CUDA call, pn then half-built: probe_nccl_clear frees it. */
gboolean probe_nccl_setup(ProbeNccl *pn, int n, int nlocal, int first,
                          const int *devs, const ProbeNcclPlan *plan,
                          GError **error);
/* Destroys (or, after pn->failed, aborts) the communicators and frees the
 * rest; pn can be set up again. */
void probe_nccl_clear(ProbeNccl *pn);

/* The header keys of a `nccl` run: probe_gpu_describe(m, gpus), the run
 * (probe_describe_run) and nccl.type, nccl.op, nccl.root. */
void probe_nccl_describe(ValMeasurements *m, int gpus);

/* Every selected collective, size and placement, as points into m; every
 * process of a multi-process run makes the same calls in the same order.
 * FALSE on the first failed CUDA or NCCL call. */
gboolean probe_nccl_run(ProbeNccl *pn, const ProbeNcclPlan *plan,
                        ValMeasurements *m, GError **error);
#endif

#if IFSIM_HAVE_NCCL && IFSIM_HAVE_MPI
/* `ifsim-probe nccl --mpi` once the options are read; see validate/probe_nccl_mpi.c.  Initialises and
 * finalises MPI; returns the exit status, the same on every rank, or does
 * not return (MPI_Abort of every rank) after a failure some ranks cannot
 * see. */
int probe_nccl_mpi(const ProbeNcclPlan *plan);
#endif

#endif /* VALIDATE_PROBE_GPU_H */
