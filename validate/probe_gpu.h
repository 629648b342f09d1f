/* What the GPU probes share (internal to validate/): finding the GPUs,
 * describing them in the header block, and turning a failed CUDA call into
 * a GError.  Defined in validate/probe_devices.c (detection) and
 * validate/probe_cuda.c (the rest). */
#ifndef VALIDATE_PROBE_GPU_H
#define VALIDATE_PROBE_GPU_H

#include <glib.h>

#include "sim/config.h"
#include "validate/probe.h"

#if IFSIM_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

/* The number of CUDA GPUs this process can use.  0 when there is none, the
 * reason appended to `why`: no NVIDIA driver, cudaGetDeviceCount's error,
 * or a build without the CUDA toolkit.  Never fails otherwise. */
int probe_gpu_count(GString *why);

/* Error domain of the GPU probes: a CUDA or NCCL call that failed; the
 * message is "CALL: what the library says". */
#define PROBE_GPU_ERROR (probe_gpu_error_quark())
GQuark probe_gpu_error_quark(void);

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

#endif /* VALIDATE_PROBE_GPU_H */
