/* The CUDA kernels of the GPU probes (validate/probe_kernels.cu), behind a
 * C launcher API so that the probes stay C11.
 *
 * Every launcher enqueues on `stream`, which must belong to the current
 * device, and returns the launch's status (cudaGetLastError after the
 * launch); a failure inside the kernel shows at the next synchronisation.
 * None of them allocates or synchronises. */
#ifndef VALIDATE_PROBE_KERNELS_H
#define VALIDATE_PROBE_KERNELS_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Loads the kernels on the current device now.  With lazy loading (the
 * default since CUDA 12.2) a kernel's first launch loads its module, which
 * may wait for the device while the gate kernel holds it. */
cudaError_t probe_kernels_load(void);

/* Copies `bytes` from src to dst with the SMs of the current device: 16-byte
 * loads and stores, a grid-stride loop over at most 4 blocks of 512 threads
 * per SM (`sm_count`), the tail below 16 bytes byte by byte.  src and dst
 * may be on another GPU (peer access enabled) or in mapped host memory;
 * both must be 16-byte aligned (cudaMalloc gives 256). */
cudaError_t probe_kernel_copy(void *dst, const void *src, size_t bytes,
                              int sm_count, cudaStream_t stream);

/* One thread that spins until gate[0] (mapped host memory, written by the
 * host) is non-zero, or until timeout_ns of the GPU's global timer have
 * passed, in which case it sets gate[1] to 1.  Enqueued ahead of the timed
 * work, it holds the stream while the host enqueues the whole batch, so
 * that the timing excludes the host's launch rate (what
 * p2pBandwidthLatencyTest's delay kernel and nvbandwidth's spin kernel do). */
cudaError_t probe_kernel_gate(volatile int *gate,
                              unsigned long long timeout_ns,
                              cudaStream_t stream);

/* Pointer chase: one thread follows `accesses` dependent 8-byte volatile
 * loads (each element holds the address of the next; a cycle), so each
 * load waits for the previous one's full round trip.  It starts at *sink
 * (device memory) when that is not NULL, else at ring, and stores its last
 * address to *sink: successive launches continue one walk. */
cudaError_t probe_kernel_chase(void *const *ring, unsigned int accesses,
                               void **sink, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* VALIDATE_PROBE_KERNELS_H */
