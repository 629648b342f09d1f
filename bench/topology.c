/* bench/topology: building and routing a 32,768-GPU system — 4096 DGX H100
 * on a rail-optimized, 3-tier NDR fat-tree (topologies/examples/
 * dgx-h100-32k.ini) — in wall-clock time and peak memory.
 *
 * Prints: the time to load and build the fabric (servers, network, the
 * intra-server route tables); the time to route three patterns — a ring
 * over all GPUs in rank order, every GPU to its peer on the next server
 * (all through the network), and random GPU pairs — with routes per
 * second; the peak resident memory; and whether the whole stayed under
 * the bounds (10 s, 4 GiB).
 *
 * With several network planes (dgx-h100-128k: 2), each pair is of GPUs
 * whose NICs share a plane.
 *
 * Usage: bench_topology [--example NAME] [--random N] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "sim/rng.h"
#include "topologies/system.h"

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double peak_rss_MiB(void)
{
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_maxrss / 1024.0; /* Linux: KiB */
}

/* Routes src[i] -> dst[i]; returns the hops summed (checks the work). */
static guint64 route_all(const TopoSystem *sys, const SimNodeId *src,
                         const SimNodeId *dst, guint32 n)
{
  guint64 hops = 0;
  SimPathSet ps;

  for (guint32 i = 0; i < n; i++) {
    g_autoptr(GError) error = NULL;
    if (!topo_route(sys, src[i], dst[i], i, NULL, &ps, &error)) {
      fprintf(stderr, "bench_topology: %s\n", error->message);
      exit(1);
    }
    hops += ps.path[0].n;
  }
  return hops;
}

static void report(const char *what, guint32 n, guint64 hops, double s)
{
  printf("%-34s %9u routes %8.3f s %12.0f routes/s  %.2f hops avg\n", what, n,
         s, n / s, (double)hops / n);
}

int main(int argc, char **argv)
{
  const char *example = "dgx-h100-32k";
  guint32 n_random = 1u << 18;
  g_autoptr(GError) error = NULL;
  g_autoptr(TopoSystem) sys = NULL;
  double t0, t_build, t_total = 0;
  guint32 servers, gpus_per, n, planes;
  g_autofree SimNodeId *src = NULL;
  g_autofree SimNodeId *dst = NULL;
  guint64 hops;
  SimRng rng;

  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--example") == 0 && i + 1 < argc)
      example = argv[++i];
    else if (strcmp(argv[i], "--random") == 0 && i + 1 < argc)
      n_random = (guint32)strtoul(argv[++i], NULL, 10);
    else {
      fprintf(stderr, "usage: bench_topology [--example NAME] [--random N]\n");
      return 2;
    }
  }
  t0 = now_s();
  sys = topo_system_load_builtin(example, &error);
  if (!sys) {
    fprintf(stderr, "bench_topology: %s\n", error->message);
    return 2;
  }
  t_build = now_s() - t0;
  t_total += t_build;
  servers = topo_system_servers(sys);
  gpus_per = topo_system_gpus_per_server(sys);
  n = servers * gpus_per;
  printf("# %s: %u servers, %u GPUs, %u nodes, %u channels\n", example,
         servers, n, sim_fabric_n_nodes(topo_system_fabric(sys)),
         sim_fabric_n_channels(topo_system_fabric(sys)));
  printf("%-34s %25.3f s\n", "load and build (servers, network)", t_build);

  src = g_new(SimNodeId, MAX(n, n_random));
  dst = g_new(SimNodeId, MAX(n, n_random));
  {
    TopoSummary sum;
    topo_system_summary(sys, &sum);
    planes = MAX(sum.net_planes, 1);
  }
  /* pairs of GPUs whose NICs share a plane (NIC k of a server is on plane
   * k mod planes, GPU k's NIC is NIC k): with one plane any pair */
  for (guint32 g = 0; g < n; g++) {
    guint32 next = (g + 1) % n;
    if (planes > 1 && next / gpus_per != g / gpus_per)
      next = (next / gpus_per) * gpus_per + g % gpus_per;
    src[g] = topo_gpu(sys, g / gpus_per, g % gpus_per);
    dst[g] = topo_gpu(sys, next / gpus_per, next % gpus_per);
  }
  t0 = now_s();
  hops = route_all(sys, src, dst, n);
  report("ring over all GPUs", n, hops, now_s() - t0);
  t_total += now_s() - t0;

  for (guint32 g = 0; g < n; g++) {
    guint32 s = g / gpus_per;
    dst[g] = topo_gpu(sys, (s + 1) % servers, g % gpus_per);
  }
  t0 = now_s();
  hops = route_all(sys, src, dst, n);
  report("each GPU to the next server's", n, hops, now_s() - t0);
  t_total += now_s() - t0;

  sim_rng_init(&rng, 2026, 1);
  for (guint32 i = 0; i < n_random; i++) {
    guint32 a = (guint32)sim_rng_below(&rng, n), b;
    do
      b = (guint32)sim_rng_below(&rng, n);
    while (b == a || (b % gpus_per) % planes != (a % gpus_per) % planes);
    src[i] = topo_gpu(sys, a / gpus_per, a % gpus_per);
    dst[i] = topo_gpu(sys, b / gpus_per, b % gpus_per);
  }
  t0 = now_s();
  hops = route_all(sys, src, dst, n_random);
  report("random GPU pairs", n_random, hops, now_s() - t0);
  t_total += now_s() - t0;

  printf("%-34s %25.3f s\n", "total", t_total);
  printf("%-34s %23.1f MiB\n", "peak resident memory", peak_rss_MiB());
  if (strcmp(example, "dgx-h100-32k") == 0)
    printf("# bound: build and routing under 10 s and 4 GiB: %.2f s, %.0f "
           "MiB -> %s\n",
           t_total, peak_rss_MiB(),
           t_total < 10 && peak_rss_MiB() < 4096 ? "met" : "NOT met");
  return 0;
}
