/* `ifsim-probe devices`: what this machine offers the probes.
 *
 * GPUs through the CUDA runtime (and NCCL's version), RDMA devices through
 * libibverbs, each compiled in only where CMake found it.  Port speeds
 * follow the IBTA encodings of ibv_port_attr (active_width, active_speed),
 * as ibv_devinfo prints them. */
#include <stdio.h>

#include "collectives/nccl/nccl.h"
#include "sim/config.h"
#include "validate/probe.h"
#include "validate/probe_verbs.h"
#include "validate/probe_gpu.h"

#if IFSIM_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif
#if IFSIM_HAVE_NCCL
#include <nccl.h>
#endif
#if IFSIM_HAVE_VERBS
#include <infiniband/verbs.h>
#endif

/* See validate/probe_gpu.h; `devices`, p2p, hostdev and nccl all decide
 * "no GPU" here, so they say it in the same words. */
int probe_gpu_count(GString *why)
{
#if IFSIM_HAVE_CUDA
  int count = 0, driver = 0;
  cudaError_t rc;

  /* Without a driver, cudaGetDeviceCount says the driver is "insufficient";
   * say plainly that there is none. */
  if (cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0) {
    g_string_append(why, "no CUDA GPU (no NVIDIA driver is installed)");
    return 0;
  }
  rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess || count == 0) {
    g_string_append_printf(why, "no CUDA GPU (cudaGetDeviceCount: %s)",
                           rc != cudaSuccess ? cudaGetErrorString(rc)
                                             : "0 devices");
    cudaGetLastError();
    return 0;
  }
  return count;
#else
  g_string_append(why, "no CUDA GPU support (built without the CUDA "
                       "toolkit)");
  return 0;
#endif
}

/* Returns the number of GPUs listed; explains on *why when none. */
static int probe_list_gpus(GString *why)
{
  int count = probe_gpu_count(why);
#if IFSIM_HAVE_CUDA
  int driver = 0, runtime = 0;

  if (count == 0)
    return 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  printf("# CUDA driver %d.%d, runtime %d.%d\n", driver / 1000,
         driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
#if IFSIM_HAVE_NCCL
  {
    int v = 0;
    if (ncclGetVersion(&v) == ncclSuccess) {
      g_autofree char *text = nccl_version_text(nccl_version_from_code(v));

      printf("# NCCL %s\n", text);
    }
  }
#endif
  for (int d = 0; d < count; d++) {
    struct cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, d) != cudaSuccess)
      continue;
    printf("gpu %d: %s, sm_%d%d, %d SMs, %.1f GiB, PCI %04x:%02x:%02x.0\n", d,
           p.name, p.major, p.minor, p.multiProcessorCount,
           (double)p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0), p.pciDomainID,
           p.pciBusID, p.pciDeviceID);
  }
#endif
  return count;
}

/* Per-lane data rate in Gb/s for ibv_port_attr.active_speed (XDR, 256,
 * arrives in active_speed_ex of newer rdma-core). */
static double probe_lane_gbps(guint32 speed, const char **name)
{
  switch (speed) {
  case 1: *name = "SDR"; return 2.5;
  case 2: *name = "DDR"; return 5.0;
  case 4: *name = "QDR"; return 10.0;
  case 8: *name = "FDR10"; return 10.0;
  case 16: *name = "FDR"; return 14.0625;
  case 32: *name = "EDR"; return 25.0;
  case 64: *name = "HDR"; return 50.0;
  case 128: *name = "NDR"; return 100.0;
  case 256: *name = "XDR"; return 200.0;
  default: *name = "?"; return 0.0;
  }
}

/* Lanes for ibv_port_attr.active_width. */
static int probe_lanes(guint8 width)
{
  switch (width) {
  case 1: return 1;
  case 2: return 4;
  case 4: return 8;
  case 8: return 12;
  case 16: return 2;
  default: return 0;
  }
}

char *probe_ibv_link_str(guint8 active_width, guint32 active_speed)
{
  const char *name;
  double lane = probe_lane_gbps(active_speed, &name);
  int lanes = probe_lanes(active_width);

  if (lanes == 0)
    return g_strdup_printf("?x %s ? Gb/s", name);
  if (lane == 0.0)
    return g_strdup_printf("%dx %s ? Gb/s", lanes, name);
  return g_strdup_printf("%dx %s %.0f Gb/s", lanes, name, lane * lanes);
}

static int probe_list_rdma(GString *why)
{
#if IFSIM_HAVE_VERBS
  int n = 0;
  struct ibv_device **list = ibv_get_device_list(&n);

  if (!list || n == 0) {
    g_string_append(why, "no RDMA device (ibv_get_device_list: 0 devices)");
    if (list)
      ibv_free_device_list(list);
    return 0;
  }
  for (int i = 0; i < n; i++) {
    struct ibv_context *ctx = ibv_open_device(list[i]);
    struct ibv_device_attr attr;
    if (!ctx || ibv_query_device(ctx, &attr) != 0) {
      printf("rdma %s: cannot be opened\n", ibv_get_device_name(list[i]));
      if (ctx)
        ibv_close_device(ctx);
      continue;
    }
    printf("rdma %s: firmware %s, %u port(s)\n", ibv_get_device_name(list[i]),
           attr.fw_ver, attr.phys_port_cnt);
    for (guint8 port = 1; port <= attr.phys_port_cnt; port++) {
      struct ibv_port_attr pa;
      g_autofree char *link = NULL;
      if (ibv_query_port(ctx, port, &pa) != 0)
        continue;
      link = probe_ibv_link_str(pa.active_width, pa.active_speed);
      printf("  port %u: %s, %s, %s, MTU %d\n", port,
             ibv_port_state_str(pa.state),
             pa.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet (RoCE)"
                                                      : "InfiniBand",
             link, 128 << pa.active_mtu);
    }
    ibv_close_device(ctx);
  }
  ibv_free_device_list(list);
  return n;
#else
  g_string_append(why, "no RDMA support (built without libibverbs)");
  return 0;
#endif
}

int val_probe_devices(int argc, char **argv)
{
  g_autoptr(GString) why = g_string_new(NULL);
  int gpus, nics;

  if (argc > 1 &&
      (g_str_equal(argv[1], "--help") || g_str_equal(argv[1], "-h"))) {
    printf("Usage: ifsim-probe devices\n\nLists CUDA GPUs and RDMA devices; "
           "exits 77 when there are none.\n");
    return PROBE_EXIT_OK;
  }
  if (argc > 1) {
    fprintf(stderr, "ifsim-probe: devices: unexpected argument '%s'\n",
            argv[1]);
    return PROBE_EXIT_USAGE;
  }
  gpus = probe_list_gpus(why);
  if (gpus == 0)
    g_string_append(why, "; ");
  nics = probe_list_rdma(why);
  if (gpus + nics == 0) {
    fprintf(stderr, "ifsim-probe: devices: %s\n", why->str);
    return PROBE_EXIT_NO_DEVICE;
  }
  return PROBE_EXIT_OK;
}
