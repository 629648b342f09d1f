/* Tests of sim/packet: the closed form of an idle path (headers, store and
 * forward, cut-through, node latency), 2:1 incast under credits (nothing
 * lost, half each), PFC incast (nothing lost, pauses propagate upstream),
 * lossy incast (drops, go-back-N, every byte delivered), DCQCN (CNPs, fair
 * shares), virtual lanes, determinism, and the packet and flow transports
 * on an uncontended ring (the gap is the store-and-forward fill, stated
 * and checked). */
#include <math.h>
#include <string.h>

#include "sim/dag.h"
#include "sim/engine.h"
#include "sim/error.h"
#include "sim/packet.h"
#include "sim/rng.h"
#include "tests/suites.h"

#define GBps 1e9
#define HDR 30 /* wire bytes per packet in these tests (as ns-3's UDP) */

typedef struct {
  SimEngine *engine;
  SimFabric *fabric;
  SimTransport *t;
  SimPacketLink link[4]; /* by channel tech */
  SimTime done_at[64];
  guint32 n_done;
  guint64 seed;      /* ECN marking seed, if set, before rig_go */
  SimTime sample_ps; /* queue sampling interval, if set, before rig_go */
  gboolean packetwise; /* every flow packet by packet (no closed form) */
} Rig;

static void on_done(void *ctx, guint64 tag, SimTime now)
{
  Rig *r = ctx;

  ck_assert_uint_lt(tag, 64);
  ck_assert_uint_eq(r->done_at[tag], SIM_TIME_MAX);
  r->done_at[tag] = now;
  r->n_done++;
}

static const SimPacketLink *link_of(void *ctx, SimChannelId c)
{
  Rig *r = ctx;

  return &r->link[sim_fabric_channel(r->fabric, c)->tech];
}

/* HDR wire bytes per packet of at most mtu (every link's mtu is the same
 * in these tests). */
static double wire_hdr(void *ctx, SimChannelId c, guint64 bytes)
{
  Rig *r = ctx;
  guint32 mtu = link_of(r, c)->mtu;
  guint64 pkts = (bytes + mtu - 1) / mtu;

  return (double)(bytes + pkts * HDR) / (double)bytes;
}

static void rig_init(Rig *r)
{
  memset(r, 0, sizeof *r);
  r->engine = sim_engine_new();
  r->fabric = sim_fabric_new();
  for (guint i = 0; i < G_N_ELEMENTS(r->done_at); i++)
    r->done_at[i] = SIM_TIME_MAX;
  for (guint i = 0; i < G_N_ELEMENTS(r->link); i++)
    r->link[i] = (SimPacketLink){.mtu = 1000, .n_vl = 1, .credit_unit = 1};
}

static void rig_go(Rig *r)
{
  sim_fabric_finalize(r->fabric);
  r->t = sim_packet_new(r->engine, r->fabric, link_of, r);
  sim_transport_set_done(r->t, on_done, r);
  sim_transport_set_wire(r->t, wire_hdr, r);
  if (r->seed)
    sim_packet_set_seed(r->t, r->seed);
  sim_packet_set_sampling(r->t, r->sample_ps);
  sim_packet_set_closed_form(r->t, !r->packetwise);
}

static void rig_clear(Rig *r)
{
  sim_transport_free(r->t);
  sim_fabric_free(r->fabric);
  sim_engine_free(r->engine);
}

static SimNodeId host(Rig *r, const char *name)
{
  return sim_fabric_add_node(r->fabric, 0, SIM_NODE_ENDPOINT, 0, 0, 0, name);
}

static SimNodeId sw(Rig *r, const char *name, SimTime lat)
{
  SimNodeId n =
      sim_fabric_add_node(r->fabric, 1, SIM_NODE_FORWARDS, 0, 0, 0, name);
  sim_fabric_set_node_latency(r->fabric, n, lat);
  return n;
}

static void send(Rig *r, const SimChannelId *hops, guint32 n, guint64 bytes,
                 guint64 tag, guint32 vl)
{
  SimPath p = {0};
  SimTransfer x = {
      .bytes = bytes, .paths = &p, .n_paths = 1, .tag = tag, .vl = vl};

  for (guint32 i = 0; i < n; i++)
    sim_path_push(&p, hops[i]);
  sim_transport_start(r->t, &x);
}

/* Two senders a0, a1 into switch s, on to b: ch[0] a0->s, ch[1] a1->s,
 * ch[2] s->b; links at `rate` (the last at down_rate), latency lat.  Starts
 * a0 -> b of bytes0 (tag 0) and a1 -> b of bytes1 (tag 1). */
static void incast(Rig *r, double rate, double down_rate, SimTime lat,
                   guint64 bytes0, guint64 bytes1, SimChannelId ch[3])
{
  SimNodeId a0 = host(r, "a0"), a1 = host(r, "a1"), s = sw(r, "s", 0);
  SimNodeId b = host(r, "b");

  ch[0] = sim_fabric_add_link(r->fabric, a0, s, 0, 1, rate, lat);
  ch[1] = sim_fabric_add_link(r->fabric, a1, s, 0, 1, rate, lat);
  ch[2] = sim_fabric_add_link(r->fabric, s, b, 0, 1, down_rate, lat);
  rig_go(r);
  send(r, (SimChannelId[]){ch[0], ch[2]}, 2, bytes0, 0, 0);
  send(r, (SimChannelId[]){ch[1], ch[2]}, 2, bytes1, 1, 0);
}

/* An idle path: host -> sw -> sw -> host, 25 GB/s, 1 us links, 50 ns
 * switches: the first hop serializes every packet, each later hop adds one
 * full packet's serialization (the short last packet waits behind the full
 * one before it); plus latencies.  As ns-3's analytic_pkt. */
START_TEST(test_closed_form_store_and_forward)
{
  Rig r;
  SimNodeId a, s1, s2, b;
  SimChannelId h[3];
  guint64 bytes = 10 * 1000 + 123;
  SimTime ser_full, ser_last, expect;

  rig_init(&r);
  a = host(&r, "a");
  s1 = sw(&r, "s1", 50000);
  s2 = sw(&r, "s2", 50000);
  b = host(&r, "b");
  h[0] = sim_fabric_add_link(r.fabric, a, s1, 0, 1, 25 * GBps, 1000000);
  h[1] = sim_fabric_add_link(r.fabric, s1, s2, 0, 1, 25 * GBps, 1000000);
  h[2] = sim_fabric_add_link(r.fabric, s2, b, 0, 1, 25 * GBps, 1000000);
  rig_go(&r);
  send(&r, h, 3, bytes, 0, 0);
  sim_engine_run(r.engine);
  ser_full = sim_serialize_ps(1000 + HDR, 25 * GBps);
  ser_last = sim_serialize_ps(123 + HDR, 25 * GBps);
  expect = 10 * ser_full + ser_last + 2 * ser_full + 3 * 1000000 + 2 * 50000;
  ck_assert_uint_eq(r.done_at[0], expect);
  {
    SimPacketStats st;
    SimPortStats ps;
    sim_packet_stats(r.t, &st);
    ck_assert_uint_eq(st.packets_injected, 11);
    ck_assert_uint_eq(st.packet_hops, 33);
    ck_assert_uint_eq(st.drops, 0);
    sim_packet_port_stats(r.t, h[1], &ps);
    ck_assert_uint_eq(ps.payload_bytes, bytes);
    ck_assert_uint_eq(ps.wire_bytes, bytes + 11 * HDR);
  }
  rig_clear(&r);
}
END_TEST

/* A path that crosses a channel twice (a Valiant route can leave its
 * group by the link it comes back over) carries each packet over it
 * twice: a -> s1 -> s2 -> s1 -> s2 -> b, 1 MB, every link 25 GB/s and 1 us;
 * s1 -> s2 serializes 2000 packets without a pause, so the transfer ends
 * after them and three links' latencies (up, its last crossing, down),
 * within two packets: half the rate, and the port counts the payload
 * twice. */
START_TEST(test_repeated_channel)
{
  Rig r;
  SimNodeId a, s1, s2, b;
  SimChannelId up, fwd, back, down;
  SimTime half;
  SimPacketStats st;
  SimPortStats ps;
  SimChannelStats cs;

  rig_init(&r);
  a = host(&r, "a");
  s1 = sw(&r, "s1", 0);
  s2 = sw(&r, "s2", 0);
  b = host(&r, "b");
  up = sim_fabric_add_link(r.fabric, a, s1, 0, 1, 25 * GBps, 1000000);
  fwd = sim_fabric_add_link(r.fabric, s1, s2, 0, 1, 25 * GBps, 1000000);
  back = sim_fabric_add_link(r.fabric, s2, s1, 0, 1, 25 * GBps, 1000000);
  down = sim_fabric_add_link(r.fabric, s2, b, 0, 1, 25 * GBps, 1000000);
  rig_go(&r);
  send(&r, (SimChannelId[]){up, fwd, back, fwd, down}, 5, 1000000, 0, 0);
  sim_engine_run(r.engine);
  half = 2000 * sim_serialize_ps(1000 + HDR, 25 * GBps) + 3 * 1000000;
  ck_assert_msg(r.done_at[0] >= half &&
                    r.done_at[0] <=
                        half + 2 * sim_serialize_ps(1000 + HDR, 25 * GBps),
                "%" G_GUINT64_FORMAT " ps against %" G_GUINT64_FORMAT,
                r.done_at[0], half);
  sim_packet_stats(r.t, &st);
  ck_assert_uint_eq(st.packet_hops, 5000);
  sim_packet_port_stats(r.t, fwd, &ps);
  ck_assert_uint_eq(ps.payload_bytes, 2000000);
  /* one flow, however often it crosses the port; and not in closed form */
  sim_transport_channel_stats(r.t, fwd, &cs);
  ck_assert_uint_eq(cs.peak_flows, 1);
  ck_assert_uint_eq(st.lone_flows, 0);
  rig_clear(&r);
}
END_TEST

/* Cut-through switches forward once cut_through_bytes have arrived: each
 * later hop adds that much serialization, not a whole packet's. */
START_TEST(test_closed_form_cut_through)
{
  Rig r;
  SimNodeId a, s1, s2, b;
  SimChannelId h[3];
  SimTime ser_full, ser_last, ser_ct, expect;

  rig_init(&r);
  for (guint i = 0; i < 4; i++) {
    r.link[i].cut_through = TRUE;
    r.link[i].cut_through_bytes = 64;
  }
  a = host(&r, "a");
  s1 = sw(&r, "s1", 100000);
  s2 = sw(&r, "s2", 100000);
  b = host(&r, "b");
  h[0] = sim_fabric_add_link(r.fabric, a, s1, 0, 1, 50 * GBps, 500000);
  h[1] = sim_fabric_add_link(r.fabric, s1, s2, 0, 1, 50 * GBps, 500000);
  h[2] = sim_fabric_add_link(r.fabric, s2, b, 0, 1, 50 * GBps, 500000);
  rig_go(&r);
  send(&r, h, 3, 4000, 0, 0);
  sim_engine_run(r.engine);
  ser_full = sim_serialize_ps(1000 + HDR, 50 * GBps);
  ser_last = ser_full;
  ser_ct = sim_serialize_ps(64, 50 * GBps);
  expect = 3 * ser_full + ser_last + 2 * ser_ct + 3 * 500000 + 2 * 100000;
  ck_assert_uint_eq(r.done_at[0], expect);
  rig_clear(&r);
}
END_TEST

/* A transfer's rate cap paces its packets at the source: one payload per
 * payload / cap, then the last packet crosses the idle path. */
START_TEST(test_cap_paces)
{
  Rig r;
  SimNodeId a, s, b;
  SimChannelId h[2];
  SimPath p = {0};
  SimTransfer x = {
      .bytes = 10000, .paths = &p, .n_paths = 1, .cap_Bps = 5 * GBps};

  rig_init(&r);
  a = host(&r, "a");
  s = sw(&r, "s", 0);
  b = host(&r, "b");
  h[0] = sim_fabric_add_link(r.fabric, a, s, 0, 1, 25 * GBps, 1000000);
  h[1] = sim_fabric_add_link(r.fabric, s, b, 0, 1, 25 * GBps, 1000000);
  rig_go(&r);
  sim_path_push(&p, h[0]);
  sim_path_push(&p, h[1]);
  sim_transport_start(r.t, &x);
  sim_engine_run(r.engine);
  ck_assert_uint_eq(r.done_at[0],
                    9 * sim_serialize_ps(1000, 5 * GBps) +
                        2 * sim_serialize_ps(1000 + HDR, 25 * GBps) +
                        2 * 1000000);
  rig_clear(&r);
}
END_TEST

/* Two senders into one port under credits: nothing is lost, the
 * switch's queue stays within the credits given, and each gets half. */
START_TEST(test_incast_credits)
{
  Rig r;
  SimChannelId ch[3];
  SimPortStats p0, p1, pd;
  SimPacketStats st;
  guint64 bytes = 2000000;
  double total;

  rig_init(&r);
  r.link[0].flow_control = SIM_FC_CREDIT;
  r.link[0].buffer_bytes = 8192;
  r.link[0].credit_unit = 64;
  incast(&r, 25 * GBps, 25 * GBps, 100000, bytes, bytes, ch);
  sim_engine_run(r.engine);
  ck_assert_uint_eq(r.n_done, 2);
  sim_packet_stats(r.t, &st);
  ck_assert_uint_eq(st.drops, 0);
  ck_assert_uint_eq(st.packets_resent, 0);
  ck_assert_uint_gt(st.credit_stalls, 0);
  sim_packet_port_stats(r.t, ch[0], &p0);
  sim_packet_port_stats(r.t, ch[1], &p1);
  sim_packet_port_stats(r.t, ch[2], &pd);
  ck_assert_uint_gt(p0.credit_stall_ps, 0);
  /* the two senders' queued packets: at most both buffers' worth */
  ck_assert_uint_le(pd.max_queue_bytes, 2 * 8192);
  /* both end together, at twice one transfer's wire time */
  total = (double)sim_serialize_ps(2.0 * 2000 * (1000 + HDR), 25 * GBps);
  ck_assert_double_le(fabs((double)r.done_at[0] - (double)r.done_at[1]),
                      0.01 * total);
  ck_assert_double_ge((double)MAX(r.done_at[0], r.done_at[1]), total);
  ck_assert_double_le((double)MAX(r.done_at[0], r.done_at[1]), 1.01 * total);
  ck_assert_uint_eq(pd.payload_bytes, 2 * bytes);
  rig_clear(&r);
}
END_TEST

/* PFC: three senders into one port, two of them through a second switch:
 * nothing is lost, the bottleneck switch pauses the link from the first
 * switch, and that one in turn pauses its own senders. */
START_TEST(test_incast_pfc_propagates)
{
  Rig r;
  SimNodeId a0, a1, a2, s1, s2, b;
  SimChannelId u0, u1, u2, mid, down;
  SimPortStats pu0, pmid;
  SimPacketStats st;

  rig_init(&r);
  r.link[0].flow_control = SIM_FC_PFC;
  /* XON above the 25 KB that drain while it travels and the data follows
   * (2 x 0.5 us at 25 GB/s), so the bottleneck never runs dry; headroom
   * for the same 25 KB in flight when XOFF lands, plus a packet */
  r.link[0].pfc_xoff_bytes = 60000;
  r.link[0].pfc_xon_bytes = 40000;
  r.link[0].pfc_headroom_bytes = 30000;
  a0 = host(&r, "a0");
  a1 = host(&r, "a1");
  a2 = host(&r, "a2");
  s1 = sw(&r, "s1", 0);
  s2 = sw(&r, "s2", 0);
  b = host(&r, "b");
  u0 = sim_fabric_add_link(r.fabric, a0, s1, 0, 1, 25 * GBps, 500000);
  u1 = sim_fabric_add_link(r.fabric, a1, s1, 0, 1, 25 * GBps, 500000);
  mid = sim_fabric_add_link(r.fabric, s1, s2, 0, 1, 25 * GBps, 500000);
  u2 = sim_fabric_add_link(r.fabric, a2, s2, 0, 1, 25 * GBps, 500000);
  down = sim_fabric_add_link(r.fabric, s2, b, 0, 1, 25 * GBps, 500000);
  rig_go(&r);
  send(&r, (SimChannelId[]){u0, mid, down}, 3, 3000000, 0, 0);
  send(&r, (SimChannelId[]){u1, mid, down}, 3, 3000000, 1, 0);
  send(&r, (SimChannelId[]){u2, down}, 2, 3000000, 2, 0);
  sim_engine_run(r.engine);
  ck_assert_uint_eq(r.n_done, 3);
  sim_packet_stats(r.t, &st);
  ck_assert_uint_eq(st.drops, 0);
  ck_assert_uint_eq(st.packets_resent, 0);
  sim_packet_port_stats(r.t, mid, &pmid);
  sim_packet_port_stats(r.t, u0, &pu0);
  ck_assert_uint_gt(pmid.pauses, 0);
  ck_assert_uint_gt(pmid.paused_ps, 0);
  ck_assert_uint_gt(pu0.pauses, 0); /* two hops upstream */
  /* the bottleneck stays busy: 9 MB through one 25 GB/s port */
  ck_assert_double_le(
      (double)MAX(MAX(r.done_at[0], r.done_at[1]), r.done_at[2]),
      1.02 * (double)sim_serialize_ps(9000.0 * (1000 + HDR), 25 * GBps));
  rig_clear(&r);
}
END_TEST

/* Lossy: a small egress buffer drops packets of a 2:1 incast; go-back-N
 * recovers and every byte arrives. */
START_TEST(test_incast_lossy_go_back_n)
{
  Rig r;
  SimChannelId ch[3];
  SimPortStats pd;
  SimPacketStats st;

  rig_init(&r);
  r.link[0].flow_control = SIM_FC_LOSSY;
  r.link[0].buffer_bytes = 16 * (1000 + HDR);
  r.link[0].rto = 200000000; /* 200 us */
  incast(&r, 25 * GBps, 25 * GBps, 1000000, 1000000, 1000000, ch);
  sim_engine_run(r.engine);
  ck_assert_uint_eq(r.n_done, 2);
  sim_packet_stats(r.t, &st);
  ck_assert_uint_gt(st.drops, 0);
  ck_assert_uint_gt(st.naks, 0);
  ck_assert_uint_gt(st.packets_resent, 0);
  sim_packet_port_stats(r.t, ch[2], &pd);
  ck_assert_uint_eq(pd.drops, st.drops);
  ck_assert_uint_le(pd.max_queue_bytes, 16 * (1000 + HDR));
  /* delivered in order: at least every byte crossed the bottleneck */
  ck_assert_uint_ge(pd.payload_bytes, 2000000);
  ck_assert_uint_eq(sim_engine_pending(r.engine), 0);
  rig_clear(&r);
}
END_TEST

/* Lossy with the last packets lost and nothing after them: only the
 * retransmit timer can recover. */
START_TEST(test_lossy_timeout)
{
  Rig r;
  SimChannelId ch[3];
  SimPacketStats st;

  rig_init(&r);
  r.link[0].flow_control = SIM_FC_LOSSY;
  r.link[0].buffer_bytes = 2 * (1000 + HDR);
  r.link[0].rto = 50000000; /* 50 us */
  incast(&r, 25 * GBps, 12.5 * GBps, 100000, 8000, 8000, ch);
  sim_engine_run(r.engine);
  ck_assert_uint_eq(r.n_done, 2);
  sim_packet_stats(r.t, &st);
  ck_assert_uint_gt(st.drops, 0);
  ck_assert_uint_gt(st.timeouts, 0);
  ck_assert_uint_ge(MAX(r.done_at[0], r.done_at[1]), 50000000);
  rig_clear(&r);
}
END_TEST

/* XON at pfc_xon_bytes = 0 (the models' default): sent once the ingress
 * count is empty; nothing stays paused. */
START_TEST(test_pfc_xon_zero)
{
  Rig r;
  SimChannelId ch[3];
  SimPacketStats st;

  rig_init(&r);
  r.link[0].flow_control = SIM_FC_PFC;
  r.link[0].pfc_xoff_bytes = 20000;
  r.link[0].pfc_xon_bytes = 0;
  r.link[0].pfc_headroom_bytes = 40000;
  incast(&r, 25 * GBps, 25 * GBps, 100000, 500000, 500000, ch);
  sim_engine_run(r.engine);
  ck_assert_uint_eq(r.n_done, 2);
  sim_packet_stats(r.t, &st);
  ck_assert_uint_gt(st.pauses, 0);
  ck_assert_uint_eq(st.drops, 0);
  rig_clear(&r);
}
END_TEST

/* Drops at a lossy port give back what the packet held on the way in:
 * the credit of a credit link (else the sender starves), the PFC ingress
 * bytes and XON of a PFC link (else it stays paused). */
START_TEST(test_lossy_drop_releases_inbound)
{
  for (int pfc = 0; pfc < 2; pfc++) {
    Rig r;
    SimNodeId a0, a1, s, b;
    SimChannelId c0, c1, d;
    SimPacketStats st;

    rig_init(&r);
    if (pfc) {
      r.link[0].flow_control = SIM_FC_PFC;
      r.link[0].pfc_xoff_bytes = 1000;
      r.link[0].pfc_xon_bytes = 500;
      r.link[0].pfc_headroom_bytes = 100000;
    } else {
      r.link[0].flow_control = SIM_FC_CREDIT;
      r.link[0].buffer_bytes = 8 * (1000 + HDR);
    }
    r.link[1].flow_control = SIM_FC_LOSSY;
    r.link[1].buffer_bytes = (pfc ? 1 : 4) * (1000 + HDR);
    r.link[1].rto = 20000000; /* 20 us */
    a0 = host(&r, "a0");
    a1 = host(&r, "a1");
    s = sw(&r, "s", 0);
    b = host(&r, "b");
    c0 = sim_fabric_add_link(r.fabric, a0, s, 0, 1, 25 * GBps, 100000);
    /* a1's link: flow control of its own (none, or PFC as a0's) */
    c1 =
        sim_fabric_add_link(r.fabric, a1, s, pfc ? 0 : 2, 1, 25 * GBps, 100000);
    d = sim_fabric_add_link(r.fabric, s, b, 1, 1, 25 * GBps, 100000);
    rig_go(&r);
    send(&r, (SimChannelId[]){c0, d}, 2, 1000000, 0, 0);
    send(&r, (SimChannelId[]){c1, d}, 2, 1000000, 1, 0);
    sim_engine_run(r.engine);
    ck_assert_uint_eq(r.n_done, 2);
    sim_packet_stats(r.t, &st);
    ck_assert_uint_gt(st.drops, 100);
    rig_clear(&r);
  }
}
END_TEST

/* DCQCN: two long flows into one port with ECN marking converge to fair
 * shares of it, with CNPs and no loss (PFC under it). */
START_TEST(test_dcqcn_fair)
{
  Rig r;
  SimChannelId ch[3];
  SimPortStats p0[2], p1[2];
  SimPacketStats st;
  double r0, r1, window;

  rig_init(&r);
  r.link[0] = (SimPacketLink){.mtu = 1000,
                              .n_vl = 1,
                              .credit_unit = 1,
                              .flow_control = SIM_FC_PFC,
                              .pfc_xoff_bytes = 400000,
                              .pfc_xon_bytes = 300000,
                              .pfc_headroom_bytes = 200000,
                              .ecn = TRUE,
                              .ecn_kmin_bytes = 10000,
                              .ecn_kmax_bytes = 100000,
                              .ecn_pmax = 0.1,
                              .dcqcn = TRUE,
                              .dcqcn_g = 1.0 / 256,
                              .dcqcn_alpha_period = 55000000,
                              .dcqcn_rate_increase = 55000000,
                              .dcqcn_byte_counter = 10 * 1024 * 1024,
                              .dcqcn_rai_Bps = 5e6 / 8 * 100,
                              .dcqcn_rhai_Bps = 50e6 / 8 * 100,
                              .dcqcn_min_rate_Bps = 1e6,
                              .dcqcn_cnp_interval = 50000000,
                              .rto = 0};
  incast(&r, 12.5 * GBps, 12.5 * GBps, 1000000, 1000000000, 1000000000, ch);
  /* DCQCN rates oscillate around the fair share (+-15% over 2 ms here);
   * measured from 20 ms to 140 ms */
  sim_engine_run_until(r.engine, 20000000000ull);
  sim_packet_port_stats(r.t, ch[0], &p0[0]);
  sim_packet_port_stats(r.t, ch[1], &p1[0]);
  sim_engine_run_until(r.engine, 140000000000ull);
  sim_packet_port_stats(r.t, ch[0], &p0[1]);
  sim_packet_port_stats(r.t, ch[1], &p1[1]);
  sim_engine_run(r.engine);
  ck_assert_uint_eq(r.n_done, 2);
  sim_packet_stats(r.t, &st);
  ck_assert_uint_gt(st.cnps, 10);
  ck_assert_uint_gt(st.ecn_marks, 0);
  ck_assert_uint_eq(st.drops, 0);
  window = 120e-3;
  r0 = (double)(p0[1].payload_bytes - p0[0].payload_bytes) / window;
  r1 = (double)(p1[1].payload_bytes - p1[0].payload_bytes) / window;
  /* fair within 5%, and the port used */
  ck_assert_double_le(fabs(r0 - r1), 0.05 * (r0 + r1) / 2);
  ck_assert_double_ge(r0 + r1, 0.85 * 12.5 * GBps * 1000 / (1000 + HDR));
  rig_clear(&r);
}
END_TEST

/* One sender, two flows through a switch under credits: to a slow host b
 * on VL 0 and a fast host c on VL `vl_c` (links with n_vl VLs); sets when
 * each ended. */
static void vl_run(guint32 n_vl, guint32 vl_c, SimTime done[2])
{
  Rig r;
  SimNodeId a, s, b, c;
  SimChannelId up, d1, d2;

  rig_init(&r);
  r.link[0].flow_control = SIM_FC_CREDIT;
  r.link[0].n_vl = n_vl;
  r.link[0].buffer_bytes = 4096;
  r.link[0].credit_unit = 64;
  a = host(&r, "a");
  s = sw(&r, "s", 0);
  b = host(&r, "b");
  c = host(&r, "c");
  up = sim_fabric_add_link(r.fabric, a, s, 0, 1, 25 * GBps, 100000);
  d1 = sim_fabric_add_link(r.fabric, s, b, 0, 1, 1 * GBps, 100000);
  d2 = sim_fabric_add_link(r.fabric, s, c, 0, 1, 25 * GBps, 100000);
  rig_go(&r);
  send(&r, (SimChannelId[]){up, d1}, 2, 200000, 0, 0);
  send(&r, (SimChannelId[]){up, d2}, 2, 200000, 1, vl_c);
  sim_engine_run(r.engine);
  ck_assert_uint_eq(r.n_done, 2);
  done[0] = r.done_at[0];
  done[1] = r.done_at[1];
  rig_clear(&r);
}

/* Credits per VL: on its own VL, the flow to the fast host is not held up
 * by the slow host's full buffer; on the same VL it is (head-of-line
 * blocking: the switch's buffer for the link in is full of packets for
 * b). */
START_TEST(test_virtual_lanes)
{
  SimTime own[2], shared[2];

  vl_run(2, 1, own);
  vl_run(1, 0, shared);
  ck_assert_uint_lt(own[1] * 5, own[0]);
  ck_assert_uint_gt(shared[1] * 3, shared[0]);
  ck_assert_uint_gt(shared[1], 5 * own[1]);
}
END_TEST

/* A credit deadlock: four switches in a ring, each host sending three
 * switch hops round it, one packet of buffer per link.  Every buffer fills
 * with packets that need the next one: the run stops, and the stall error
 * says why. */
START_TEST(test_credit_deadlock_reported)
{
  Rig r;
  SimNodeId sw_[4], h[4];
  SimChannelId ring[4], up[4];
  SimPath p[4];
  SimDag *dag;
  GError *error = NULL;

  rig_init(&r);
  r.link[0].flow_control = SIM_FC_CREDIT;
  r.link[0].buffer_bytes = 1000 + HDR;
  for (int i = 0; i < 4; i++) {
    sw_[i] = sw(&r, "s", 0);
    h[i] = host(&r, "h");
  }
  for (int i = 0; i < 4; i++) {
    ring[i] = sim_fabric_add_link(r.fabric, sw_[i], sw_[(i + 1) % 4], 0, 1,
                                  25 * GBps, 100000);
    up[i] =
        sim_fabric_add_link(r.fabric, h[i], sw_[i], 0, 1, 25 * GBps, 100000);
  }
  /* queue sampling must not keep a stuck run going */
  r.sample_ps = 1000000;
  rig_go(&r);
  dag = sim_dag_new(r.engine, r.t);
  for (int i = 0; i < 4; i++) {
    SimTaskSpec spec = {
        .bytes = 1000000, .paths = &p[i], .n_paths = 1, .stream = SIM_NONE};
    sim_path_clear(&p[i]);
    sim_path_push(&p[i], up[i]);
    for (int k = 0; k < 3; k++)
      sim_path_push(&p[i], ring[(i + k) % 4]);
    sim_path_push(&p[i], sim_channel_reverse(up[(i + 3) % 4]));
    sim_dag_add(dag, &spec, NULL, 0);
  }
  ck_assert_int_eq(sim_engine_run(r.engine), SIM_RUN_EMPTY);
  ck_assert(!sim_dag_check_finished(dag, sim_engine_now(r.engine), &error));
  ck_assert(g_error_matches(error, SIM_ERROR, SIM_ERROR_STALLED));
  ck_assert_ptr_nonnull(strstr(error->message, "wait for credit"));
  ck_assert_ptr_nonnull(strstr(error->message, "credit deadlock"));
  g_error_free(error);
  sim_dag_free(dag);
  rig_clear(&r);
}
END_TEST

/* Congestion spreading and InfiniBand CC: four senders share host X's
 * port, two of them through the link s1 -> s2 that a victim flow to Y also
 * takes.  Under credits alone, s2's buffer for that link fills with
 * packets for X and the victim gets a third of what is left; with CC, the
 * senders to X slow down on BECNs, the buffer drains and the victim gets
 * at least twice as much, while X's port stays mostly busy. */
static void victim_run(gboolean cc, double *victim, double *hot,
                       SimPacketStats *st)
{
  Rig r;
  SimNodeId s1, s2, a[5], x, y;
  SimChannelId c[5], mid, down_x, down_y;
  SimPortStats px[2], py[2];

  rig_init(&r);
  for (guint i = 0; i < 2; i++)
    r.link[i] = (SimPacketLink){.mtu = 4096,
                                .n_vl = 1,
                                .credit_unit = 64,
                                .flow_control = SIM_FC_CREDIT,
                                .buffer_bytes = 32768,
                                .ibcc = cc,
                                .ibcc_mark = cc && i == 1,
                                .ibcc_threshold_bytes = 8192,
                                .ibcc_ccti_increase = 1,
                                .ibcc_ccti_limit = 127,
                                .ibcc_ccti_timer = 5000000,
                                .ibcc_ipd_step = 10000};
  s1 = sw(&r, "s1", 0);
  s2 = sw(&r, "s2", 0);
  for (guint i = 0; i < 5; i++)
    a[i] = host(&r, "a");
  x = host(&r, "x");
  y = host(&r, "y");
  /* a0, a1 and the victim a4 on s1; a2, a3 on s2 */
  for (guint i = 0; i < 5; i++)
    c[i] = sim_fabric_add_link(r.fabric, a[i], i == 2 || i == 3 ? s2 : s1, 0, 1,
                               25 * GBps, 200000);
  mid = sim_fabric_add_link(r.fabric, s1, s2, 1, 1, 25 * GBps, 200000);
  down_x = sim_fabric_add_link(r.fabric, s2, x, 1, 1, 25 * GBps, 200000);
  down_y = sim_fabric_add_link(r.fabric, s2, y, 1, 1, 25 * GBps, 200000);
  rig_go(&r);
  send(&r, (SimChannelId[]){c[0], mid, down_x}, 3, 400000000, 0, 0);
  send(&r, (SimChannelId[]){c[1], mid, down_x}, 3, 400000000, 1, 0);
  send(&r, (SimChannelId[]){c[2], down_x}, 2, 400000000, 2, 0);
  send(&r, (SimChannelId[]){c[3], down_x}, 2, 400000000, 3, 0);
  send(&r, (SimChannelId[]){c[4], mid, down_y}, 3, 400000000, 4, 0);
  sim_engine_run_until(r.engine, 200000000ull);
  sim_packet_port_stats(r.t, down_x, &px[0]);
  sim_packet_port_stats(r.t, down_y, &py[0]);
  sim_engine_run_until(r.engine, 1200000000ull);
  sim_packet_port_stats(r.t, down_x, &px[1]);
  sim_packet_port_stats(r.t, down_y, &py[1]);
  sim_packet_stats(r.t, st);
  *victim = (double)(py[1].payload_bytes - py[0].payload_bytes) / 1e-3;
  *hot = (double)(px[1].payload_bytes - px[0].payload_bytes) / 1e-3;
  rig_clear(&r);
}

START_TEST(test_ib_congestion_control)
{
  double v0, h0, v1, h1;
  SimPacketStats st0, st1;

  victim_run(FALSE, &v0, &h0, &st0);
  victim_run(TRUE, &v1, &h1, &st1);
  ck_assert_uint_eq(st0.becns, 0);
  ck_assert_uint_gt(st1.fecn_marks, 0);
  /* one BECN per FECN delivered; the last ones are still on their way */
  ck_assert_uint_gt(st1.becns, 0);
  ck_assert_uint_le(st1.becns, st1.fecn_marks);
  ck_assert_uint_eq(st0.drops + st1.drops, 0);
  ck_assert_double_le(v0, 0.2 * 25 * GBps); /* spread: under a fifth */
  ck_assert_double_ge(v1, 2 * v0);          /* CC frees the victim */
  ck_assert_double_ge(h1, 0.9 * 25 * GBps * 4096 / (4096 + HDR));
  ck_assert_double_ge(h0, 0.99 * 25 * GBps * 4096 / (4096 + HDR));
}
END_TEST

/* ---- a ring over a star, on both transports --------------------------- */

typedef struct {
  SimDag *dag;
  guint32 n, steps;
  guint64 chunk;
  SimPath *path;
  SimTask *id[2];
  guint32 *step;
} Ring;

static void ring_add(Ring *g, guint32 rank, guint32 k);

static void ring_done(void *ctx, guint64 user, SimTime now)
{
  Ring *g = ctx;

  (void)now;
  if (g->step[user] + 1 < g->steps)
    ring_add(g, (guint32)user, g->step[user] + 1);
}

static void ring_add(Ring *g, guint32 rank, guint32 k)
{
  guint32 left = (rank + g->n - 1) % g->n, right = (rank + 1) % g->n;
  SimTask after[2] = {SIM_TASK_NONE, SIM_TASK_NONE};
  SimTaskSpec spec = {.bytes = g->chunk,
                      .paths = &g->path[rank],
                      .n_paths = 1,
                      .stream = SIM_NONE,
                      .done = ring_done,
                      .ctx = g,
                      .user = rank};

  if (k > 0) {
    after[0] = g->id[(k - 1) & 1][left];
    after[1] = g->id[(k - 1) & 1][right];
  }
  g->step[rank] = k;
  g->id[k & 1][rank] = sim_dag_add(g->dag, &spec, after, 2);
}

static SimTime run_ring(gboolean packet, gboolean packetwise, guint32 n,
                        guint64 bytes, SimTime *ser_pkt)
{
  Rig r;
  SimNodeId s, *h = g_new(SimNodeId, n);
  SimChannelId *up = g_new(SimChannelId, n);
  Ring g = {0};
  SimDagStats ds;

  rig_init(&r);
  s = sw(&r, "s", 0);
  for (guint32 i = 0; i < n; i++) {
    h[i] = host(&r, "h");
    up[i] = sim_fabric_add_link(r.fabric, h[i], s, 0, 1, 25 * GBps, 1000000);
  }
  sim_fabric_finalize(r.fabric);
  r.t = packet ? sim_packet_new(r.engine, r.fabric, link_of, &r)
               : sim_flow_new(r.engine, r.fabric);
  if (packet)
    sim_packet_set_closed_form(r.t, !packetwise);
  sim_transport_set_wire(r.t, wire_hdr, &r);
  g.dag = sim_dag_new(r.engine, r.t);
  g.n = n;
  g.steps = 2 * (n - 1);
  g.chunk = bytes / n;
  g.path = g_new0(SimPath, n);
  g.id[0] = g_new0(SimTask, n);
  g.id[1] = g_new0(SimTask, n);
  g.step = g_new0(guint32, n);
  for (guint32 i = 0; i < n; i++) {
    sim_path_push(&g.path[i], up[i]);
    sim_path_push(&g.path[i], sim_channel_reverse(up[(i + 1) % n]));
  }
  for (guint32 i = 0; i < n; i++)
    ring_add(&g, i, 0);
  sim_engine_run(r.engine);
  sim_dag_stats(g.dag, &ds);
  ck_assert_uint_eq(ds.done, (guint64)n * g.steps);
  *ser_pkt = sim_serialize_ps(1000 + HDR, 25 * GBps);
  sim_dag_free(g.dag);
  rig_clear(&r);
  g_free(g.path);
  g_free(g.id[0]);
  g_free(g.id[1]);
  g_free(g.step);
  g_free(h);
  g_free(up);
  return ds.last_done;
}

/* Uncontended ring AllReduce: with the same header bytes in both, the
 * packet transport is slower than the flow transport only by store and
 * forward: one packet's serialization at the switch per step, so the gap
 * is 2(n-1) x ser(packet) exactly up to rounding, and under 2%. */
START_TEST(test_ring_packet_vs_flow)
{
  SimTime ser, tf, tp;
  guint32 n = 8;

  tf = run_ring(FALSE, FALSE, n, 8 * 1000 * 1000, &ser);
  tp = run_ring(TRUE, FALSE, n, 8 * 1000 * 1000, &ser);
  ck_assert_uint_gt(tp, tf);
  ck_assert_double_le(fabs((double)(tp - tf) - 2.0 * (n - 1) * (double)ser),
                      2.0 * (n - 1) * 1000); /* 1 ns per step of rounding */
  ck_assert_double_le((double)(tp - tf) / (double)tf, 0.02);
}
END_TEST

/* Same inputs, same seed: the same times and counters. */
START_TEST(test_deterministic)
{
  SimTime at[2][2];
  SimPacketStats st[2];

  for (int k = 0; k < 2; k++) {
    Rig r;
    SimChannelId ch[3];

    rig_init(&r);
    r.link[0].flow_control = SIM_FC_PFC;
    r.link[0].pfc_xoff_bytes = 20000;
    r.link[0].pfc_xon_bytes = 10000;
    r.link[0].pfc_headroom_bytes = 40000;
    r.link[0].ecn = TRUE;
    r.link[0].ecn_kmin_bytes = 2000;
    r.link[0].ecn_kmax_bytes = 20000;
    r.link[0].ecn_pmax = 0.2;
    r.seed = 42;
    incast(&r, 25 * GBps, 25 * GBps, 100000, 500000, 700000, ch);
    sim_engine_run(r.engine);
    at[k][0] = r.done_at[0];
    at[k][1] = r.done_at[1];
    sim_packet_stats(r.t, &st[k]);
    rig_clear(&r);
  }
  ck_assert_uint_eq(at[0][0], at[1][0]);
  ck_assert_uint_eq(at[0][1], at[1][1]);
  ck_assert_int_eq(memcmp(&st[0], &st[1], sizeof st[0]), 0);
  ck_assert_uint_gt(st[0].ecn_marks, 0);
}
END_TEST

/* Queue samples: taken while queues are non-empty, ending with a zero. */
START_TEST(test_sampling_and_zero_bytes)
{
  Rig r;
  SimChannelId ch[3];
  const SimQueueSample *q;
  gsize n;
  guint64 peak = 0;

  rig_init(&r);
  r.sample_ps = 1000000; /* 1 us */
  incast(&r, 25 * GBps, 25 * GBps, 100000, 200000, 200000, ch);
  send(&r, (SimChannelId[]){ch[1], ch[2]}, 2, 0, 2, 0);
  sim_engine_run(r.engine);
  ck_assert_uint_eq(r.n_done, 3);
  ck_assert_uint_eq(r.done_at[2], 200000); /* the path's latency */
  q = sim_packet_samples(r.t, &n);
  ck_assert_uint_gt(n, 5);
  for (gsize i = 0; i < n; i++) {
    ck_assert_uint_eq(q[i].channel, ch[2]);
    ck_assert_uint_eq(q[i].t % 1000000, 0);
    peak = MAX(peak, q[i].queue_bytes);
  }
  ck_assert_uint_eq(q[n - 1].queue_bytes, 0);
  ck_assert_uint_gt(peak, 50000); /* half the bytes wait at the switch */
  rig_clear(&r);
}
END_TEST

/* ---- a flow alone on its path: closed form against packet by packet ---- */

#define LONE_FLOWS 40
#define LONE_PROBES 8

typedef struct {
  Rig r;
  SimChannelId up[8], cross[2];
  struct {
    guint32 src, dst, vl;
    guint64 bytes;
    double cap;
    SimTime at;
  } fl[LONE_FLOWS];
  SimChannelStats probe[LONE_PROBES][32];
  guint32 n_ch;
} LoneRun;

static void lone_start(SimEngine *e, void *ctx, guint64 i)
{
  LoneRun *m = ctx;
  SimPath p = {0};
  SimTransfer x = {.bytes = m->fl[i].bytes,
                   .paths = &p,
                   .n_paths = 1,
                   .tag = i,
                   .vl = m->fl[i].vl,
                   .cap_Bps = m->fl[i].cap};
  guint32 a = m->fl[i].src, b = m->fl[i].dst;

  (void)e;
  sim_path_push(&p, m->up[a]);
  if (a / 4 != b / 4)
    sim_path_push(&p, m->cross[a / 4]);
  sim_path_push(&p, sim_channel_reverse(m->up[b]));
  sim_transport_start(m->r.t, &x);
}

static void lone_probe(SimEngine *e, void *ctx, guint64 k)
{
  LoneRun *m = ctx;

  (void)e;
  for (guint32 c = 0; c < m->n_ch; c++)
    sim_transport_channel_stats(m->r.t, c, &m->probe[k][c]);
}

/* Two leaves of four hosts each, one link between them (at cross_rate),
 * hosts at 25 GB/s; LONE_FLOWS transfers drawn from seed (sizes, ends,
 * start times within 40 us, some capped, some on VL 1), links as
 * link; run packet by packet or not. */
static void lone_run(LoneRun *m, const SimPacketLink *link, double cross_rate,
                     guint64 seed, gboolean packetwise)
{
  SimRng rng;
  SimNodeId leaf[2];
  SimKind k_start, k_probe;

  memset(m, 0, sizeof *m);
  rig_init(&m->r);
  for (guint i = 0; i < G_N_ELEMENTS(m->r.link); i++)
    m->r.link[i] = *link;
  m->r.packetwise = packetwise;
  leaf[0] = sw(&m->r, "l0", 100000);
  leaf[1] = sw(&m->r, "l1", 100000);
  for (guint32 i = 0; i < 8; i++)
    m->up[i] = sim_fabric_add_link(m->r.fabric, host(&m->r, "h"), leaf[i / 4],
                                   0, 1, 25 * GBps, 200000);
  m->cross[0] = sim_fabric_add_link(m->r.fabric, leaf[0], leaf[1], 0, 1,
                                    cross_rate, 300000);
  m->cross[1] = sim_channel_reverse(m->cross[0]);
  rig_go(&m->r);
  m->n_ch = sim_fabric_n_channels(m->r.fabric);
  g_assert(m->n_ch <= 32);
  k_start = sim_engine_register(m->r.engine, "test.start", lone_start, m);
  k_probe = sim_engine_register(m->r.engine, "test.probe", lone_probe, m);
  sim_rng_init(&rng, seed, 0);
  for (guint32 i = 0; i < LONE_FLOWS; i++) {
    m->fl[i].src = sim_rng_below(&rng, 8);
    m->fl[i].dst = (m->fl[i].src + 1 + sim_rng_below(&rng, 7)) % 8;
    m->fl[i].bytes = 1 + sim_rng_below(&rng, 120000);
    m->fl[i].vl = link->n_vl > 1 ? sim_rng_below(&rng, 2) : 0;
    m->fl[i].cap = sim_rng_below(&rng, 4) == 0 ? 10 * GBps : 0;
    /* whole microseconds: starts that meet other events' instants */
    m->fl[i].at = (SimTime)sim_rng_below(&rng, 40) * 1000000;
    sim_engine_schedule(m->r.engine, m->fl[i].at, k_start, i);
  }
  for (guint32 k = 0; k < LONE_PROBES; k++)
    sim_engine_schedule(m->r.engine, 3000000 + (SimTime)k * 6700000 + 1,
                        k_probe, k);
  sim_engine_run(m->r.engine);
  ck_assert_uint_eq(m->r.n_done, LONE_FLOWS);
}

/* Whether two runs' port counters agree: all of them, or (moved) those
 * that the order of simultaneous events cannot change (packets, bytes,
 * busy time). */
static gboolean lone_ports_equal(LoneRun *const m[2], gboolean moved)
{
  for (guint32 c = 0; c < m[0]->n_ch; c++) {
    SimPortStats a, b;

    sim_packet_port_stats(m[0]->r.t, c, &a);
    sim_packet_port_stats(m[1]->r.t, c, &b);
    if (moved ? a.packets != b.packets || a.payload_bytes != b.payload_bytes ||
                    a.wire_bytes != b.wire_bytes || a.busy_ps != b.busy_ps
              : memcmp(&a, &b, sizeof a) != 0)
      return FALSE;
  }
  return TRUE;
}

/* Closed form against packet by packet on flows that start alone, meet
 * others (and go on packet by packet), or may not start alone (credit too
 * short, a slower hop after the first, a retransmit timer); store and
 * forward and cut through, no flow control, credits, PFC with ECN, lossy,
 * two VLs, rate caps; 7 link setups x 60 draws of 40 transfers, starting
 * on whole microseconds so that instants meet.  Most draws agree in
 * everything: every transfer's end to the picosecond, every port's
 * counters, the run's totals (but the peak of packets alive), and every
 * channel's counters at 8 instants within the run.  The others differ
 * only by the order of simultaneous events (a packet put back at the
 * instant another flow came schedules its next event then, where packet
 * by packet it was scheduled earlier: among events of the same
 * picosecond it runs later, and where two packets meet at a port their
 * order there turns): 5 of 420 when written, where a transfer ended up to
 * 5.1% apart and PFC pauses and queue peaks moved, while the last end and
 * every port's packets, bytes and busy time stayed the same. */
START_TEST(test_lone_matches_packets)
{
  SimPacketLink base = {.mtu = 1000, .n_vl = 1, .credit_unit = 1};
  SimPacketLink links[7];
  double cross[7] = {25 * GBps,   25 * GBps, 25 * GBps, 50 * GBps,
                     12.5 * GBps, 25 * GBps, 25 * GBps};
  guint64 lone = 0, settled = 0;
  guint32 draws = 0, same = 0;

  for (guint i = 0; i < G_N_ELEMENTS(links); i++)
    links[i] = base;
  links[1].flow_control = SIM_FC_CREDIT;
  links[1].buffer_bytes = 1 << 20;
  links[1].credit_unit = 64;
  links[2].flow_control = SIM_FC_CREDIT; /* shorter than a credit loop */
  links[2].buffer_bytes = 6000;
  links[3].flow_control = SIM_FC_PFC;
  links[3].pfc_xoff_bytes = 20000;
  links[3].pfc_xon_bytes = 10000;
  links[3].pfc_headroom_bytes = 40000;
  links[3].ecn = TRUE;
  links[3].ecn_kmin_bytes = 3000;
  links[3].ecn_kmax_bytes = 20000;
  links[3].ecn_pmax = 0.5;
  links[4].flow_control = SIM_FC_CREDIT;
  links[4].buffer_bytes = 65536;
  links[4].cut_through = TRUE;
  links[4].cut_through_bytes = 64;
  links[5].flow_control = SIM_FC_LOSSY;
  links[5].buffer_bytes = 8000;
  links[5].rto = 20000000;
  links[6].flow_control = SIM_FC_CREDIT;
  links[6].buffer_bytes = 1 << 16;
  links[6].n_vl = 2;
  for (guint i = 0; i < G_N_ELEMENTS(links); i++) {
    for (guint64 seed = 1; seed <= 60; seed++) {
      LoneRun *m[2];
      SimPacketStats st[2];
      SimTime last[2] = {0, 0};
      gboolean ends = TRUE;

      for (int k = 0; k < 2; k++) {
        m[k] = g_new(LoneRun, 1);
        lone_run(m[k], &links[i], cross[i], seed, k == 1);
        sim_packet_stats(m[k]->r.t, &st[k]);
        for (guint32 f = 0; f < LONE_FLOWS; f++)
          last[k] = MAX(last[k], m[k]->r.done_at[f]);
      }
      ck_assert_uint_eq(st[1].lone_flows, 0);
      lone += st[0].lone_flows;
      settled += st[0].lone_settled;
      for (guint32 f = 0; f < LONE_FLOWS; f++) {
        double a = (double)m[0]->r.done_at[f], b = (double)m[1]->r.done_at[f];

        ends &= a == b;
        ck_assert_msg(fabs(a - b) <= 0.06 * b,
                      "links %u seed %" G_GUINT64_FORMAT
                      " flow %u: %.0f against %.0f ps",
                      i, seed, f, a, b);
      }
      ck_assert_msg(last[0] == last[1] && lone_ports_equal(m, TRUE),
                    "links %u seed %" G_GUINT64_FORMAT, i, seed);
      for (int k = 0; k < 2; k++)
        st[k].peak_packets = st[k].lone_flows = st[k].lone_settled = 0;
      same += ends && lone_ports_equal(m, FALSE) &&
              memcmp(m[0]->probe, m[1]->probe, sizeof m[0]->probe) == 0 &&
              memcmp(&st[0], &st[1], sizeof st[0]) == 0;
      draws++;
      for (int k = 0; k < 2; k++) {
        rig_clear(&m[k]->r);
        g_free(m[k]);
      }
    }
  }
  ck_assert_msg(same * 100 >= draws * 98, "%u of %u draws the same", same,
                draws);
  /* both ways were taken, many times */
  ck_assert_uint_ge(lone, 2000);
  ck_assert_uint_ge(settled, 1000);
}
END_TEST

/* The uncontended ring: every step in closed form, the same end. */
START_TEST(test_lone_ring)
{
  SimTime ser;

  ck_assert_uint_eq(run_ring(TRUE, FALSE, 8, 8 * 1000 * 1000, &ser),
                    run_ring(TRUE, TRUE, 8, 8 * 1000 * 1000, &ser));
}
END_TEST

Suite *suite_packet(void)
{
  Suite *s = suite_create("packet");
  TCase *tc = tcase_create("core");

  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_closed_form_store_and_forward);
  tcase_add_test(tc, test_closed_form_cut_through);
  tcase_add_test(tc, test_repeated_channel);
  tcase_add_test(tc, test_cap_paces);
  tcase_add_test(tc, test_incast_credits);
  tcase_add_test(tc, test_incast_pfc_propagates);
  tcase_add_test(tc, test_incast_lossy_go_back_n);
  tcase_add_test(tc, test_lossy_timeout);
  tcase_add_test(tc, test_pfc_xon_zero);
  tcase_add_test(tc, test_lossy_drop_releases_inbound);
  tcase_add_test(tc, test_dcqcn_fair);
  tcase_add_test(tc, test_virtual_lanes);
  tcase_add_test(tc, test_credit_deadlock_reported);
  tcase_add_test(tc, test_ib_congestion_control);
  tcase_add_test(tc, test_ring_packet_vs_flow);
  tcase_add_test(tc, test_deterministic);
  tcase_add_test(tc, test_sampling_and_zero_bytes);
  tcase_add_test(tc, test_lone_matches_packets);
  tcase_add_test(tc, test_lone_ring);
  suite_add_tcase(s, tc);
  return s;
}
