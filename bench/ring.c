/* bench_ring: the peers' ring AllReduce scenario on ifsim, for the
 * side-by-side comparisons with SimGrid (bench/vs-simgrid.sh) and ns-3
 * (bench/vs-ns3.sh, --fidelity packet --ns3).
 *
 *   bench_ring N SIZE TOPO [--fidelity flow|analytical|packet] [--ns3]
 *              [--packetwise] [--wire] [--links-csv FILE] [--print-routes]
 *
 * Scenario (../shared/peers/README.md, section 3): hosts h0..h{N-1}; in
 * each of 2(N-1) steps host i sends SIZE/N bytes to host i+1 (mod N).  The
 * sends are rendezvous, as SimGrid's put_async/get: the transfer of step k
 * from i to i+1 starts once both i and i+1 have begun step k, and a host
 * begins step k+1 once its step-k send and receive are both complete.  So
 * transfer (i, k+1) waits for (i, k), (i-1, k) and (i+1, k) -- a DAG
 * (sim/dag.h) generated as it runs, two steps alive at a time.
 *
 * The fabric is an ifsim system file built here, the same graph as
 * peers/simgrid/gen_platform.py: every link 200 Gb/s (an IB HDR 4x data
 * rate: exactly 25 GB/s) with 1 us latency, switches and NICs with no
 * latency of their own, one host (a 1-GPU server with one NIC) per leaf or
 * router port; the ring runs NIC to NIC over the network.
 *   fattree   2 tiers, m1 = 2^ceil(log2(N)/2) hosts per leaf, N/m1 leaves,
 *             m1 spines, D-mod-k routing (full bisection);
 *   dragonfly SimGrid's default shapes (g groups of c chassis of r
 *             routers, p hosts each) as ifsim's dragonfly: a = c r routers
 *             per group all to all, h = 1 global link per router, minimal
 *             routing;
 *   star      one switch of N ports.
 * Without --wire, transfers carry no packet overheads (w = 1), as
 * SimGrid's fluid model; with it, IB HDR headers count.
 *
 * --fidelity packet runs the packet transport (sim/packet.h): without
 * --ns3 on the system's own link models (topo_packet_link for MTU, flow
 * control and cut-through, topo_wire_ratio for the headers).  A flow
 * alone on its path moves its packets in closed form (sim/packet.h);
 * --packetwise moves every packet as an event, the baseline for that.
 *
 * --ns3 reproduces the ns-3 baseline (peers/ns3/ns3_ring.cc, UDP paced at
 * line rate, MTU 1500; bench/vs-ns3.sh) exactly, for any fidelity: every
 * link 100 Gb/s (an IB EDR 4x data rate: exactly 12.5 GB/s) with 1 us
 * latency, switches and NICs with none; packets of 1472 payload bytes
 * (1500 - IPv4 20 - UDP 8) plus 30 wire bytes each (IPv4, UDP and PPP's 2
 * on the wire: ns-3's framing), store and forward at every node, queues
 * without flow control (ns-3's 10000-packet DropTail queues, which this
 * ring never fills).  Only fattree and star (ns-3 has no dragonfly).
 *
 * Prints one RESULT line (sim time, wall time, events, packet hops, the
 * analytic references of the peers' harnesses) and a PEAK line with the
 * peak RSS. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "sim/dag.h"
#include "sim/engine.h"
#include "sim/packet.h"
#include "sim/transport.h"
#include "sim/units.h"
#include "topologies/system.h"
#include "traces/linkstats.h"

typedef struct {
  SimDag *dag;
  guint32 n, steps;
  guint64 chunk;
  SimPath *path;  /* [n]: h_i -> h_{i+1} */
  SimTask *id[2]; /* [parity][rank]: the task of each rank's step */
  guint32 *step;  /* [rank]: the step of its newest task */
} Ring;

static void ring_add(Ring *r, guint32 rank, guint32 k);

static void ring_done(void *ctx, guint64 user, SimTime now)
{
  Ring *r = ctx;
  guint32 rank = (guint32)user;
  guint32 k = r->step[rank];

  (void)now;
  if (k + 1 < r->steps)
    ring_add(r, rank, k + 1);
}

static void ring_add(Ring *r, guint32 rank, guint32 k)
{
  guint32 left = rank == 0 ? r->n - 1 : rank - 1;
  guint32 right = rank + 1 == r->n ? 0 : rank + 1;
  SimTask after[2] = {SIM_TASK_NONE, SIM_TASK_NONE};
  SimTaskSpec spec = {.bytes = r->chunk,
                      .paths = &r->path[rank],
                      .n_paths = 1,
                      .stream = SIM_NONE,
                      .done = ring_done,
                      .ctx = r,
                      .user = rank};

  if (k > 0) {
    /* Step k-1 of both neighbours; each was created before this one's
     * predecessor could finish, and cannot have been replaced since (see
     * the file comment). */
    after[0] = r->id[(k - 1) & 1][left];
    after[1] = r->id[(k - 1) & 1][right];
  }
  r->step[rank] = k;
  r->id[k & 1][rank] = sim_dag_add(r->dag, &spec, after, 2);
}

static gboolean is_pow2(guint32 n)
{
  return n > 0 && (n & (n - 1)) == 0;
}

/* SimGrid's default dragonfly shapes (gen_platform.py). */
static gboolean df_shape(guint32 n, guint32 s[4])
{
  static const guint32 table[][5] = {
      {16, 2, 2, 2, 2},     {32, 2, 2, 4, 2},     {64, 4, 2, 4, 2},
      {128, 4, 2, 4, 4},    {256, 4, 4, 4, 4},    {512, 8, 2, 8, 4},
      {1024, 8, 4, 8, 4},   {2048, 8, 4, 8, 8},   {4096, 8, 8, 8, 8},
      {8192, 16, 4, 16, 8}, {16384, 16, 8, 16, 8}};
  for (guint i = 0; i < G_N_ELEMENTS(table); i++)
    if (table[i][0] == n) {
      memcpy(s, &table[i][1], 4 * sizeof s[0]);
      return TRUE;
    }
  return FALSE;
}

/* The system file: ns3 picks ns-3's 100 Gb/s links (IB EDR 4x data rate)
 * instead of SimGrid's 200 Gb/s (IB HDR 4x); both 1 us. */
static char *system_ini(guint32 n, const char *topo, guint32 ports,
                        gboolean ns3, GError **error)
{
  GString *s = g_string_new(NULL);

  g_string_append_printf(
      s,
      "[link sg-link]\nbased_on = %s\n"
      "description = %s Gb/s, 1 us (the peers' scenario)\n"
      "latency_ns = 1000\ncable_m = 0\n\n"
      "[switch sg-switch]\nbased_on = quantum-hdr\nports = %u\n"
      "port_link = sg-link\nlatency_ns = 0\nreduction = "
      "none\nreduction_GBps_per_port = 0\n\n"
      "[nic sg-nic]\nbased_on = cx6-hdr\nport_link = sg-link\n"
      "latency_ns = 0\n\n"
      "[server host]\ndescription = one host\ngpus = 1\nsockets = 1\n"
      "root_complex = root-complex-gen4\ngpu_pcie = pcie4-x16\n"
      "nic = sg-nic\nnics = 1\n\n"
      "[system]\ndescription = ring AllReduce peers scenario\n"
      "server = host\nservers = %u\n\n[scaleout]\nswitch = sg-switch\n",
      ns3 ? "ib-edr-4x" : "ib-hdr-4x", ns3 ? "100" : "200", ports, n);
  if (strcmp(topo, "fattree") == 0) {
    guint32 k = 0, m1;
    while ((1u << k) < n)
      k++;
    m1 = 1u << ((k + 1) / 2);
    g_string_append_printf(s,
                           "topology = fat-tree\ntiers = 2\nradix = %u\n"
                           "leaves = %u\nspines = %u\nrouting = dmodk\n",
                           2 * m1, n / m1, m1);
  } else if (strcmp(topo, "dragonfly") == 0) {
    guint32 sh[4];
    if (!df_shape(n, sh)) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "dragonfly: no default shape for N=%u", n);
      g_string_free(s, TRUE);
      return NULL;
    }
    g_string_append_printf(s,
                           "topology = dragonfly\nrouters_per_group = %u\n"
                           "terminals_per_router = %u\n"
                           "global_links_per_router = 1\ngroups = %u\n"
                           "arrangement = relative\nrouting = minimal\n",
                           sh[1] * sh[2], sh[3], sh[0]);
  } else {
    g_string_append(s, "topology = fat-tree\ntiers = 1\n");
  }
  return g_string_free(s, FALSE);
}

static guint32 switch_ports(guint32 n, const char *topo)
{
  guint32 sh[4];

  if (strcmp(topo, "star") == 0)
    return n;
  if (strcmp(topo, "dragonfly") == 0 && df_shape(n, sh))
    return sh[3] + sh[1] * sh[2] - 1 + 1;
  return 256;
}

/* ns-3's scenario (peers/ns3/ns3_ring.cc, --transport=udp --mtu=1500):
 * IP MTU 1500, so 1472 bytes of UDP payload per packet, and 30 bytes of
 * IPv4 (20), UDP (8) and PPP (2) headers on the wire per packet. */
#define NS3_PAYLOAD 1472u
#define NS3_OVERHEAD 30u
#define NS3_RATE_BPS 12.5e9 /* 100 Gb/s */
#define NS3_LATENCY_PS 1000000u

/* Wire bytes per payload byte of a p-byte message in ns-3's framing: the
 * packet transport asks for one packet (p <= 1472) and must get exactly
 * round(p * w) = p + 30 (checked in main); the other transports ask for a
 * whole message and get its share of headers. */
static double ns3_wire(void *ctx, SimChannelId c, guint64 p)
{
  (void)ctx;
  (void)c;
  return (double)(p + NS3_OVERHEAD * ((p + NS3_PAYLOAD - 1) / NS3_PAYLOAD)) /
         (double)p;
}

static const SimPacketLink ns3_link = {
    .mtu = NS3_PAYLOAD,
    .flow_control = SIM_FC_NONE,
    .n_vl = 1,
    .cut_through = FALSE,
};

static const SimPacketLink *ns3_packet_link(void *ctx, SimChannelId c)
{
  (void)ctx;
  (void)c;
  return &ns3_link;
}

/* The wire bytes a p-byte packet gets from the transport's rounding. */
static guint64 wire_bytes(SimWireFn fn, void *ctx, SimChannelId c, guint64 p)
{
  return fn ? (guint64)llround((double)p * fn(ctx, c, p)) : p;
}

/* The ring's paths must be ns-3's: every channel on them 100 Gb/s exactly
 * (so that a 1502-byte packet serializes in 120160 ps) and 1 us, no node
 * latency; and the framing must round to 30 bytes more per packet. */
static gboolean ns3_check(const SimFabric *f, const SimPath *paths,
                          guint32 n_paths, GError **error)
{
  for (guint32 i = 0; i < n_paths; i++)
    for (guint32 h = 0; h < paths[i].n; h++) {
      const SimChannel *ch = sim_fabric_channel(f, paths[i].hop[h]);
      SimTime nl = sim_fabric_node(f, ch->src)->latency_ps +
                   sim_fabric_node(f, ch->dst)->latency_ps;
      if (ch->rate_Bps != NS3_RATE_BPS || ch->latency_ps != NS3_LATENCY_PS ||
          nl != 0) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                    "--ns3: channel %s>%s is %.17g B/s, %" G_GUINT64_FORMAT
                    " ps, its nodes %" G_GUINT64_FORMAT
                    " ps (want 12.5e9 B/s, 1 us, 0)",
                    sim_fabric_node_name(f, ch->src),
                    sim_fabric_node_name(f, ch->dst), ch->rate_Bps,
                    (guint64)ch->latency_ps, (guint64)nl);
        return FALSE;
      }
    }
  for (guint64 p = 1; p <= NS3_PAYLOAD; p++)
    if (wire_bytes(ns3_wire, NULL, 0, p) != p + NS3_OVERHEAD) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                  "--ns3: a %" G_GUINT64_FORMAT
                  "-byte packet rounds to %" G_GUINT64_FORMAT " wire bytes",
                  p, wire_bytes(ns3_wire, NULL, 0, p));
      return FALSE;
    }
  return TRUE;
}

int main(int argc, char **argv)
{
  g_autofree char *fidelity = NULL, *links_csv = NULL;
  gboolean wire = FALSE, print_routes = FALSE, ns3 = FALSE, packet;
  gboolean packetwise = FALSE;
  GOptionEntry entries[] = {
      {"fidelity", 0, 0, G_OPTION_ARG_STRING, &fidelity,
       "flow (default), analytical or packet", "F"},
      {"ns3", 0, 0, G_OPTION_ARG_NONE, &ns3,
       "ns-3's scenario: 100 Gb/s 1 us links, 1472 + 30 byte UDP packets, "
       "store and forward, no flow control (bench/vs-ns3.sh)",
       NULL},
      {"packetwise", 0, 0, G_OPTION_ARG_NONE, &packetwise,
       "packet fidelity: every packet an event, also for a flow alone on "
       "its path (no closed form)",
       NULL},
      {"wire", 0, 0, G_OPTION_ARG_NONE, &wire,
       "count IB packet overheads (SimGrid does not)", NULL},
      {"links-csv", 0, 0, G_OPTION_ARG_FILENAME, &links_csv,
       "write per-channel utilization", "FILE"},
      {"print-routes", 0, 0, G_OPTION_ARG_NONE, &print_routes,
       "list each ring hop's channels", NULL},
      {NULL, 0, 0, 0, NULL, NULL, NULL}};
  g_autoptr(GOptionContext) oc =
      g_option_context_new("N SIZE fattree|dragonfly|star");
  g_autoptr(GError) error = NULL;
  g_autoptr(TopoSystem) sys = NULL;
  g_autoptr(SimEngine) engine = NULL;
  g_autoptr(SimTransport) tr = NULL;
  g_autoptr(SimDag) dag = NULL;
  g_autofree char *ini = NULL;
  Ring r = {0};
  guint64 size;
  guint32 n, hops_max = 0;
  const char *topo;
  const SimFabric *f;
  double lat_max = 0, bw_min = G_MAXDOUBLE, wall;
  SimWireFn wfn = NULL;
  void *wctx = NULL;
  SimPacketLinkFn lfn = NULL;
  void *lctx = NULL;
  SimDagStats ds;
  SimTransportStats ts;
  SimPacketStats ps = {0};
  struct rusage ru;
  gint64 t0, t1;

  g_option_context_add_main_entries(oc, entries, NULL);
  if (!g_option_context_parse(oc, &argc, &argv, &error) || argc != 4) {
    fprintf(stderr, "bench_ring: %s\nusage: bench_ring N SIZE TOPO\n",
            error ? error->message : "expected N SIZE TOPO");
    return 2;
  }
  n = (guint32)strtoul(argv[1], NULL, 10);
  topo = argv[3];
  if (!is_pow2(n) || n < 4 || !sim_size_parse(argv[2], &size, &error) ||
      (strcmp(topo, "fattree") && strcmp(topo, "dragonfly") &&
       strcmp(topo, "star"))) {
    fprintf(stderr,
            "bench_ring: N must be a power of two >= 4, SIZE a "
            "size (1G), TOPO fattree, dragonfly or star%s%s\n",
            error ? ": " : "", error ? error->message : "");
    return 2;
  }
  if (fidelity && strcmp(fidelity, "flow") && strcmp(fidelity, "analytical") &&
      strcmp(fidelity, "packet")) {
    fprintf(stderr, "bench_ring: --fidelity: flow, analytical or packet\n");
    return 2;
  }
  if (ns3 && strcmp(topo, "dragonfly") == 0) {
    fprintf(stderr, "bench_ring: --ns3: fattree or star (the ns-3 "
                    "baseline has no dragonfly)\n");
    return 2;
  }
  if (ns3 && wire) {
    fprintf(stderr, "bench_ring: --ns3 has its own wire overheads "
                    "(UDP/IPv4/PPP); drop --wire\n");
    return 2;
  }
  packet = fidelity && strcmp(fidelity, "packet") == 0;

  t0 = g_get_monotonic_time();
  ini = system_ini(n, topo, switch_ports(n, topo), ns3, &error);
  if (ini)
    sys = topo_system_load_data(ini, strlen(ini), "bench_ring", NULL, &error);
  if (!sys) {
    fprintf(stderr, "bench_ring: %s\n", error->message);
    return 2;
  }
  f = topo_system_fabric(sys);
  r.n = n;
  r.steps = 2 * (n - 1);
  r.chunk = size / n;
  r.path = g_new0(SimPath, n);
  for (guint32 i = 0; i < n; i++) {
    if (!topo_route_network(sys, topo_nic(sys, i, 0),
                            topo_nic(sys, (i + 1) % n, 0), i, NULL, &r.path[i],
                            &error)) {
      fprintf(stderr, "bench_ring: %s\n", error->message);
      return 2;
    }
    lat_max = MAX(lat_max, sim_time_to_s(sim_path_latency_ps(f, &r.path[i])));
    bw_min = MIN(bw_min, sim_path_bottleneck_Bps(f, &r.path[i]));
    hops_max = MAX(hops_max, r.path[i].n);
    if (print_routes) {
      printf("ROUTE h%u -> h%u lat=%g:", i, (i + 1) % n,
             sim_time_to_s(sim_path_latency_ps(f, &r.path[i])));
      for (guint32 h = 0; h < r.path[i].n; h++) {
        const SimChannel *c = sim_fabric_channel(f, r.path[i].hop[h]);
        printf(" %s>%s", sim_fabric_node_name(f, c->src),
               sim_fabric_node_name(f, c->dst));
      }
      printf("\n");
    }
  }
  if (ns3 && !ns3_check(f, r.path, n, &error)) {
    fprintf(stderr, "bench_ring: %s\n", error->message);
    return 2;
  }
  r.id[0] = g_new0(SimTask, n);
  r.id[1] = g_new0(SimTask, n);
  r.step = g_new0(guint32, n);

  if (ns3) {
    wfn = ns3_wire;
    lfn = ns3_packet_link;
  } else {
    if (wire || packet) {
      wfn = topo_wire_ratio;
      wctx = sys;
    }
    /* The system's own packet parameters (topologies/packet.c). */
    lfn = topo_packet_link;
    lctx = sys;
  }
  engine = sim_engine_new();
  if (packet) {
    tr = sim_packet_new(engine, f, lfn, lctx);
    sim_packet_set_closed_form(tr, !packetwise);
  } else if (fidelity && strcmp(fidelity, "analytical") == 0)
    tr = sim_analytical_new(engine, f);
  else
    tr = sim_flow_new(engine, f);
  if (wfn)
    sim_transport_set_wire(tr, wfn, wctx);
  dag = sim_dag_new(engine, tr);
  r.dag = dag;

  t1 = g_get_monotonic_time();
  for (guint32 i = 0; i < n; i++)
    ring_add(&r, i, 0);
  sim_engine_run(engine);
  wall = (double)(g_get_monotonic_time() - t1) / 1e6;

  sim_dag_stats(dag, &ds);
  sim_transport_stats(tr, &ts);
  if (sim_transport_is_packet(tr))
    sim_packet_stats(tr, &ps);
  if (ds.done != (guint64)n * r.steps) {
    fprintf(stderr,
            "bench_ring: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
            " transfers done\n",
            ds.done, (guint64)n * r.steps);
    return 1;
  }
  {
    double steps = r.steps;
    double analytic_route = steps * ((double)r.chunk / bw_min + lat_max);
    double sim = sim_time_to_s(ds.last_done);
    guint64 events = sim_engine_events_executed(engine);
    double wrun = MAX(wall, 1e-9);
    GString *pkt = g_string_new(NULL);

    if (packet || ns3) {
      /* ns3_ring.cc's packet-level ideal: the step's wire bytes at line
       * rate, one more (full) packet of store and forward per extra hop,
       * and the longest ring hop's latency; 2(N-1) steps.  Under --ns3
       * exactly its expression (lat_max = hops x 1 us).  On the system's
       * own links (cut-through switches) it is an upper bound. */
      SimChannelId c0 = r.path[0].hop[0];
      guint64 payload = ns3 ? NS3_PAYLOAD : lfn(lctx, c0)->mtu;
      guint64 pkts = (r.chunk + payload - 1) / payload;
      guint64 full = MIN(payload, r.chunk),
              last = r.chunk - (pkts - 1) * payload;
      double B = bw_min;
      double wire_s, last_pkt, analytic_pkt;

      if (ns3) {
        double lat = NS3_LATENCY_PS * 1e-12;
        wire_s = (double)(r.chunk + pkts * NS3_OVERHEAD) / B;
        last_pkt = (double)(full + NS3_OVERHEAD) / B;
        analytic_pkt =
            steps * (wire_s + (hops_max - 1) * last_pkt + hops_max * lat);
      } else {
        wire_s = (double)((pkts - 1) * wire_bytes(wfn, wctx, c0, full) +
                          wire_bytes(wfn, wctx, c0, last)) /
                 B;
        last_pkt = (double)wire_bytes(wfn, wctx, c0, full) / B;
        analytic_pkt = steps * (wire_s + (hops_max - 1) * last_pkt + lat_max);
      }
      g_string_append_printf(pkt,
                             " mtu_payload=%" G_GUINT64_FORMAT
                             " analytic_pkt_s=%.12g ratio_vs_pkt=%.9f",
                             payload, analytic_pkt, sim / analytic_pkt);
    }
    if (sim_transport_is_packet(tr))
      g_string_append_printf(
          pkt,
          " packets=%" G_GUINT64_FORMAT " packet_hops=%" G_GUINT64_FORMAT
          " packet_hops_per_s=%.4g drops=%" G_GUINT64_FORMAT
          " resent=%" G_GUINT64_FORMAT " peak_packets=%" G_GUINT64_FORMAT
          " lone_flows=%" G_GUINT64_FORMAT " lone_settled=%" G_GUINT64_FORMAT,
          ps.packets_injected, ps.packet_hops, ps.packet_hops / wrun, ps.drops,
          ps.packets_resent, ps.peak_packets, ps.lone_flows, ps.lone_settled);
    printf("RESULT hosts=%u bytes=%" G_GUINT64_FORMAT
           " chunk=%" G_GUINT64_FORMAT
           " steps=%u model=ifsim-%s scenario=%s wire=%d link_rate_Bps=%.12g"
           " sim_time_s=%.12g wall_run_s=%.6f wall_total_s=%.6f"
           " analytic_route_s=%.12g ratio_vs_route=%.9f%s"
           " transfers=%" G_GUINT64_FORMAT " events=%" G_GUINT64_FORMAT
           " events_per_s=%.4g recomputes=%" G_GUINT64_FORMAT
           " route_lat_max_s=%.3g hops_max=%u\n",
           n, size, r.chunk, r.steps, sim_transport_name(tr),
           ns3 ? "ns3" : "simgrid", wfn ? 1 : 0, bw_min, sim, wall,
           (double)(g_get_monotonic_time() - t0) / 1e6, analytic_route,
           sim / analytic_route, pkt->str, ds.done, events, events / wrun,
           ts.recomputes, lat_max, hops_max);
    g_string_free(pkt, TRUE);
  }
  if (links_csv &&
      !trc_links_csv_write(links_csv, sys, tr, ds.last_done, FALSE, &error)) {
    fprintf(stderr, "bench_ring: %s\n", error->message);
    return 2;
  }
  getrusage(RUSAGE_SELF, &ru);
  printf("PEAK topo=%s hosts=%u peak_rss_kb=%ld\n", topo, n, ru.ru_maxrss);
  g_free(r.path);
  g_free(r.id[0]);
  g_free(r.id[1]);
  g_free(r.step);
  return 0;
}
