/* The CUDA kernels of the GPU probes; the API and its contracts are in
 * validate/probe_kernels.h.
 *
 * The copy kernel follows nvbandwidth's copy kernels (copy_kernel.cu): 16-byte
 * (uint4) elements, a grid-stride loop, __ldcg/__stcg so that the data
 * bypasses L1 and the bandwidth measured is the link's, not a cache's.  The
 * chase follows nvbandwidth's ptrChasingKernel (one thread, dependent
 * loads), with volatile loads so that no load is served by the local L1.
 * The gate follows nvbandwidth's spinKernel, timed by %globaltimer (ns)
 * instead of clock64(), whose rate the runtime no longer reports reliably
 * (cudaDeviceProp.clockRate is gone in CUDA 13). */
#include <cuda_runtime.h>

#include "validate/probe_kernels.h"

/* Threads per block, and blocks per SM at most: enough warps in flight to
 * saturate NVLink and HBM with 16-byte accesses (nvbandwidth uses 512). */
#define PROBE_COPY_THREADS 512
#define PROBE_COPY_BLOCKS_PER_SM 4

static __global__ void probe_copy_kernel(uint4 *__restrict__ dst,
                                         const uint4 *__restrict__ src,
                                         size_t n16, unsigned char *dst_tail,
                                         const unsigned char *src_tail,
                                         unsigned int tail)
{
  size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

  for (; i < n16; i += stride)
    __stcg(dst + i, __ldcg(src + i));
  if (blockIdx.x == 0 && threadIdx.x < tail)
    dst_tail[threadIdx.x] = src_tail[threadIdx.x];
}

extern "C" cudaError_t probe_kernel_copy(void *dst, const void *src,
                                         size_t bytes, int sm_count,
                                         cudaStream_t stream)
{
  size_t n16 = bytes / 16;
  unsigned int tail = (unsigned int)(bytes % 16);
  size_t blocks = (n16 + PROBE_COPY_THREADS - 1) / PROBE_COPY_THREADS;
  size_t max_blocks = (size_t)(sm_count > 0 ? sm_count : 1) *
                      PROBE_COPY_BLOCKS_PER_SM;

  if (blocks > max_blocks)
    blocks = max_blocks;
  if (blocks == 0)
    blocks = 1;
  probe_copy_kernel<<<(unsigned int)blocks, PROBE_COPY_THREADS, 0, stream>>>(
      (uint4 *)dst, (const uint4 *)src, n16,
      (unsigned char *)dst + n16 * 16,
      (const unsigned char *)src + n16 * 16, tail);
  return cudaGetLastError();
}

static __device__ unsigned long long probe_globaltimer(void)
{
  unsigned long long t;

  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

static __global__ void probe_gate_kernel(volatile int *gate,
                                         unsigned long long timeout_ns)
{
  unsigned long long end = probe_globaltimer() + timeout_ns;

  while (gate[0] == 0) {
    if (probe_globaltimer() > end) {
      gate[1] = 1;
      break;
    }
  }
}

extern "C" cudaError_t probe_kernel_gate(volatile int *gate,
                                         unsigned long long timeout_ns,
                                         cudaStream_t stream)
{
  probe_gate_kernel<<<1, 1, 0, stream>>>(gate, timeout_ns);
  return cudaGetLastError();
}

static __global__ void probe_chase_kernel(void *const *ring,
                                          unsigned int accesses, void **sink)
{
  /* Go on from the previous walk's last node, if there was one. */
  void *const volatile *p =
      (void *const volatile *)(*sink ? (void *const *)*sink : ring);

  for (unsigned int i = 0; i < accesses; i++)
    p = (void *const volatile *)*p;
  *sink = (void *)p;
}

extern "C" cudaError_t probe_kernel_chase(void *const *ring,
                                          unsigned int accesses, void **sink,
                                          cudaStream_t stream)
{
  probe_chase_kernel<<<1, 1, 0, stream>>>(ring, accesses, sink);
  return cudaGetLastError();
}

extern "C" cudaError_t probe_kernels_load(void)
{
  struct cudaFuncAttributes a;
  cudaError_t rc;

  if ((rc = cudaFuncGetAttributes(&a, probe_copy_kernel)) != cudaSuccess ||
      (rc = cudaFuncGetAttributes(&a, probe_gate_kernel)) != cudaSuccess ||
      (rc = cudaFuncGetAttributes(&a, probe_chase_kernel)) != cudaSuccess)
    return rc;
  return cudaSuccess;
}
