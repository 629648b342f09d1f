/* bench_flows: the flow transport with 10^4 - 10^6 concurrent flows.
 *
 *   bench_flows [--example NAME] [--flows F] [--mode sync|poisson]
 *               [--min SIZE] [--max SIZE] [--seed S] [--analytical]
 *
 * F transfers between random GPU pairs of an embedded example system
 * (default dgx-h100-32k: 32,768 GPUs, rail-optimized 3-tier NDR fat-tree,
 * ECMP), sizes uniform in [min, max].  sync: all start at t = 0 (as a
 * collective step does; then they end at staggered times); poisson:
 * arrivals spaced so that about F would be in flight at once.  Each is
 * routed when it starts (nothing stored per transfer but the flow).
 * Prints wall time, events, recomputations and the flows they visited,
 * the peak of flows in flight, and the peak RSS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "sim/engine.h"
#include "sim/rng.h"
#include "sim/transport.h"
#include "sim/units.h"
#include "topologies/system.h"

typedef struct {
  TopoSystem *sys;
  SimTransport *t;
  SimRng rng;
  guint32 gpus, gpn;
  guint64 min, max;
  guint64 done;
  SimTime last;
  SimPathSet ps;
} Bench;

static void on_done(void *ctx, guint64 tag, SimTime now)
{
  Bench *b = ctx;

  (void)tag;
  b->done++;
  b->last = now;
}

static void launch(Bench *b, guint64 i)
{
  guint32 src = (guint32)sim_rng_below(&b->rng, b->gpus);
  guint32 dst = (guint32)sim_rng_below(&b->rng, b->gpus - 1);
  g_autoptr(GError) error = NULL;
  SimTransfer x;

  dst += dst >= src;
  if (!topo_route(b->sys, topo_gpu(b->sys, src / b->gpn, src % b->gpn),
                  topo_gpu(b->sys, dst / b->gpn, dst % b->gpn), i, NULL, &b->ps,
                  &error))
    g_error("bench_flows: %s", error->message);
  x = (SimTransfer){.bytes =
                        b->min + sim_rng_below(&b->rng, b->max - b->min + 1),
                    .paths = b->ps.path,
                    .weights = b->ps.weight,
                    .n_paths = b->ps.n,
                    .tag = i};
  sim_transport_start(b->t, &x);
}

static void on_launch(SimEngine *e, void *ctx, guint64 data)
{
  (void)e;
  launch(ctx, data);
}

int main(int argc, char **argv)
{
  g_autofree char *example = NULL, *mode = NULL, *min_s = NULL, *max_s = NULL;
  gint64 flows = 100000, seed = 1;
  gboolean analytical = FALSE;
  GOptionEntry entries[] = {
      {"example", 0, 0, G_OPTION_ARG_STRING, &example,
       "embedded example (default dgx-h100-32k)", "NAME"},
      {"flows", 0, 0, G_OPTION_ARG_INT64, &flows, "transfers (100000)", "F"},
      {"mode", 0, 0, G_OPTION_ARG_STRING, &mode, "sync (default) or poisson",
       "M"},
      {"min", 0, 0, G_OPTION_ARG_STRING, &min_s, "smallest size (1M)", "SIZE"},
      {"max", 0, 0, G_OPTION_ARG_STRING, &max_s, "largest size (16M)", "SIZE"},
      {"seed", 0, 0, G_OPTION_ARG_INT64, &seed, "random seed (1)", "S"},
      {"analytical", 0, 0, G_OPTION_ARG_NONE, &analytical,
       "the analytical transport instead", NULL},
      {NULL, 0, 0, 0, NULL, NULL, NULL}};
  g_autoptr(GOptionContext) oc = g_option_context_new(NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(SimEngine) engine = NULL;
  g_autoptr(SimTransport) t = NULL;
  Bench b = {0};
  SimTransportStats st;
  struct rusage ru;
  gint64 t0, t1, t2;
  gboolean poisson;

  g_option_context_add_main_entries(oc, entries, NULL);
  if (!g_option_context_parse(oc, &argc, &argv, &error)) {
    fprintf(stderr, "bench_flows: %s\n", error->message);
    return 2;
  }
  poisson = mode && strcmp(mode, "poisson") == 0;
  if ((mode && !poisson && strcmp(mode, "sync")) || flows < 1 ||
      !sim_size_parse(min_s ? min_s : "1M", &b.min, &error) ||
      !sim_size_parse(max_s ? max_s : "16M", &b.max, &error) || b.max < b.min) {
    fprintf(stderr,
            "bench_flows: --mode sync|poisson, --flows >= 1, "
            "--min <= --max sizes%s%s\n",
            error ? ": " : "", error ? error->message : "");
    return 2;
  }
  t0 = g_get_monotonic_time();
  b.sys = topo_system_load_builtin(example ? example : "dgx-h100-32k", &error);
  if (!b.sys) {
    fprintf(stderr, "bench_flows: %s\n", error->message);
    return 2;
  }
  b.gpn = topo_system_gpus_per_server(b.sys);
  b.gpus = topo_system_servers(b.sys) * b.gpn;
  sim_rng_init(&b.rng, (guint64)seed, 0);
  engine = sim_engine_new();
  t = analytical ? sim_analytical_new(engine, topo_system_fabric(b.sys))
                 : sim_flow_new(engine, topo_system_fabric(b.sys));
  sim_transport_set_wire(t, topo_wire_ratio, b.sys);
  sim_transport_set_done(t, on_done, &b);
  b.t = t;

  t1 = g_get_monotonic_time();
  if (poisson) {
    /* Mean transfer time alone at a NIC's rate, spread so that about
     * `flows` overlap: arrivals every mean_time / flows. */
    SimKind k = sim_engine_register(engine, "launch", on_launch, &b);
    double mean_s = (double)(b.min + b.max) / 2 / 50e9;
    double gap_ps = mean_s * 1e12 / (double)flows;
    double at = 0;
    for (gint64 i = 0; i < 4 * flows; i++) {
      at += sim_rng_exponential(&b.rng, gap_ps);
      sim_engine_schedule(engine, (SimTime)at, k, (guint64)i);
    }
    flows *= 4;
  } else {
    for (gint64 i = 0; i < flows; i++)
      launch(&b, (guint64)i);
  }
  sim_engine_run(engine);
  t2 = g_get_monotonic_time();

  sim_transport_stats(t, &st);
  getrusage(RUSAGE_SELF, &ru);
  printf("system=%s gpus=%u transport=%s mode=%s transfers=%" G_GINT64_FORMAT
         " done=%" G_GUINT64_FORMAT "\n",
         topo_system_name(b.sys), b.gpus, sim_transport_name(t),
         poisson ? "poisson" : "sync", flows, b.done);
  printf("setup_s=%.3f run_s=%.3f sim_time_s=%.9g events=%" G_GUINT64_FORMAT
         " peak_flows=%u recomputes=%" G_GUINT64_FORMAT
         " rounds=%" G_GUINT64_FORMAT
         " flows_per_recompute=%.1f rate_updates=%" G_GUINT64_FORMAT
         " peak_rss_MiB=%.1f\n",
         (double)(t1 - t0) / 1e6, (double)(t2 - t1) / 1e6,
         sim_time_to_s(b.last), sim_engine_events_executed(engine),
         st.peak_active, st.recomputes, st.recompute_rounds,
         st.recomputes ? (double)st.recompute_flows / (double)st.recomputes
                       : 0.0,
         st.rate_updates, (double)ru.ru_maxrss / 1024);
  g_clear_pointer(&t, sim_transport_free); /* before the fabric it uses */
  topo_system_free(b.sys);
  return b.done == (guint64)flows ? 0 : 1;
}
