/* Tests of sim/analytical and sim/flow: closed forms (an idle path, equal
 * shares, the classic max-min example, rate changes mid-flight, an incast
 * whose flows end in batches), latency semantics incl. a flow that meets
 * another before its bytes begin, a path that crosses a channel twice,
 * wire weights, caps, path sets,
 * statistics, and random workloads checked for conservation and max-min
 * optimality, determinism and agreement of the two transports when
 * nothing is shared. */
#include <math.h>
#include <string.h>

#include "sim/engine.h"
#include "sim/rng.h"
#include "sim/transport.h"
#include "tests/suites.h"

#define GBps 1e9 /* bytes/s */

/* Completion times by tag. */
typedef struct {
  GArray *at;    /* SimTime, indexed by tag; SIM_TIME_MAX until done */
  GArray *order; /* tags in completion order */
} Done;

static void on_done(void *ctx, guint64 tag, SimTime now)
{
  Done *d = ctx;

  if (tag >= d->at->len) {
    guint old = d->at->len;
    g_array_set_size(d->at, (guint)tag + 1);
    for (guint i = old; i < d->at->len; i++)
      g_array_index(d->at, SimTime, i) = SIM_TIME_MAX;
  }
  ck_assert_uint_eq(g_array_index(d->at, SimTime, tag), SIM_TIME_MAX);
  g_array_index(d->at, SimTime, tag) = now;
  g_array_append_val(d->order, tag);
}

typedef struct {
  SimEngine *engine;
  SimFabric *fabric;
  SimTransport *t;
  Done done;
} Rig;

static void rig_init(Rig *r)
{
  r->engine = sim_engine_new();
  r->fabric = sim_fabric_new();
  r->t = NULL;
  r->done.at = g_array_new(FALSE, FALSE, sizeof(SimTime));
  r->done.order = g_array_new(FALSE, FALSE, sizeof(guint64));
}

/* Finalizes the fabric and makes the transport ("flow" or "analytical"). */
static void rig_go(Rig *r, const char *kind)
{
  sim_fabric_finalize(r->fabric);
  r->t = g_str_equal(kind, "flow") ? sim_flow_new(r->engine, r->fabric)
                                   : sim_analytical_new(r->engine, r->fabric);
  if (g_str_equal(kind, "flow"))
    sim_flow_set_checking(r->t, TRUE);
  sim_transport_set_done(r->t, on_done, &r->done);
}

static void rig_clear(Rig *r)
{
  sim_transport_free(r->t);
  sim_fabric_free(r->fabric);
  sim_engine_free(r->engine);
  g_array_free(r->done.at, TRUE);
  g_array_free(r->done.order, TRUE);
}

static SimNodeId node(Rig *r, const char *name)
{
  return sim_fabric_add_node(
      r->fabric, 0, SIM_NODE_ENDPOINT | SIM_NODE_FORWARDS, 0, 0, 0, name);
}

/* Nodes n0 .. n{count-1}. */
static void nodes(Rig *r, guint count, SimNodeId *out)
{
  for (guint i = 0; i < count; i++) {
    char name[16];
    g_snprintf(name, sizeof name, "n%u", i);
    out[i] = node(r, name);
  }
}

static SimChannelId link(Rig *r, SimNodeId a, SimNodeId b, double rate,
                         SimTime lat)
{
  return sim_fabric_add_link(r->fabric, a, b, 0, 1, rate, lat);
}

static SimPath path_of(guint32 n, const SimChannelId *hops)
{
  SimPath p = {0};

  for (guint32 i = 0; i < n; i++)
    ck_assert(sim_path_push(&p, hops[i]));
  return p;
}

/* A flow rig of two nodes and one link of `rate`, no latency: the link's
 * channel and its one-hop path. */
static void one_link_rig(Rig *r, double rate, SimChannelId *c, SimPath *p)
{
  SimNodeId n[2];

  rig_init(r);
  nodes(r, 2, n);
  *c = link(r, n[0], n[1], rate, 0);
  rig_go(r, "flow");
  *p = path_of(1, c);
}

static void start(Rig *r, const SimPath *p, guint64 bytes, guint64 tag)
{
  SimTransfer x = {.bytes = bytes, .paths = p, .n_paths = 1, .tag = tag};
  sim_transport_start(r->t, &x);
}

static SimTime done_at(const Rig *r, guint64 tag)
{
  ck_assert_uint_lt(tag, r->done.at->len);
  return g_array_index(r->done.at, SimTime, tag);
}

/* |a - b| <= 1 ps: rates are exact doubles, times round up per event. */
#define ck_assert_time_near(a, b)                                              \
  do {                                                                         \
    SimTime a_ = (a), b_ = (b);                                                \
    ck_assert_msg((a_ > b_ ? a_ - b_ : b_ - a_) <= 1,                          \
                  "%" G_GUINT64_FORMAT " ps, expected %" G_GUINT64_FORMAT      \
                  " ps",                                                       \
                  a_, b_);                                                     \
  } while (0)

static const char *const kinds[] = {"flow", "analytical"};

/* S bytes on an idle path arrive at exactly latency + S / bottleneck, with
 * the forwarding latency of the node crossed, in both transports. */
START_TEST(test_idle_path)
{
  Rig r;
  SimNodeId n[3];
  SimChannelId h[2];
  SimPath p;

  rig_init(&r);
  nodes(&r, 3, n);
  sim_fabric_set_node_latency(r.fabric, n[1], SIM_NS(100));
  h[0] = link(&r, n[0], n[1], 4 * GBps, SIM_US(1));
  h[1] = link(&r, n[1], n[2], 2 * GBps, SIM_US(1));
  rig_go(&r, kinds[_i]);
  p = path_of(2, h);
  ck_assert_uint_eq(sim_path_latency_ps(r.fabric, &p), SIM_NS(2100));
  {
    /* split over this path and its first hop, the bytes are all in once
     * the longer has delivered */
    SimPath both[2] = {path_of(1, h), p};

    ck_assert_uint_eq(sim_paths_latency_ps(r.fabric, both, 2), SIM_NS(2100));
    ck_assert_uint_eq(sim_paths_latency_ps(r.fabric, both, 1), SIM_US(1));
  }
  start(&r, &p, 1000000, 0);
  sim_engine_run(r.engine);
  /* 2.1 us + 1e6 B / 2e9 B/s = 2.1 us + 500 us */
  ck_assert_uint_eq(done_at(&r, 0), SIM_NS(2100) + SIM_US(500));
  rig_clear(&r);
}
END_TEST

/* Two flows on one channel each get half; a third path's channel is its
 * own. */
START_TEST(test_equal_shares)
{
  Rig r;
  SimNodeId n[3];
  SimChannelId ab, bc;
  SimPath p1, p2;

  rig_init(&r);
  nodes(&r, 3, n);
  ab = link(&r, n[0], n[1], 1 * GBps, 0);
  bc = link(&r, n[1], n[2], 1 * GBps, 0);
  rig_go(&r, "flow");
  p1 = path_of(1, &ab);
  p2 = path_of(2, (SimChannelId[]){ab, bc});
  start(&r, &p1, 1000000, 0);
  start(&r, &p2, 1000000, 1);
  sim_engine_run(r.engine);
  ck_assert_time_near(done_at(&r, 0), SIM_MS(2));
  ck_assert_time_near(done_at(&r, 1), SIM_MS(2));
  rig_clear(&r);
}
END_TEST

/* Bertsekas & Gallager's example: a long flow over links A (1 GB/s) and
 * B (2 GB/s), f1 on A, f2 on B.  Max-min: long = f1 = 0.5, f2 = 1.5 GB/s.
 * f1 (0.5 MB) ends at 1 ms; then long gets 1 GB/s (A alone, B split
 * 1 + 1) and ends at 1.5 ms; f2 (3 MB) moved 1.5 + 0.5 MB by then and
 * ends alone at 2 GB/s at 2.0 ms. */
START_TEST(test_classic_max_min)
{
  Rig r;
  SimNodeId n[5];
  SimChannelId A, B, in, out;
  SimPath lp, p1, p2;
  SimTransportStats st;

  rig_init(&r);
  nodes(&r, 5, n);
  A = link(&r, n[0], n[1], 1 * GBps, 0);
  B = link(&r, n[1], n[2], 2 * GBps, 0);
  in = link(&r, n[3], n[1], 100 * GBps, 0);
  out = link(&r, n[1], n[4], 100 * GBps, 0);
  rig_go(&r, "flow");
  lp = path_of(2, (SimChannelId[]){A, B});
  p1 = path_of(2, (SimChannelId[]){A, out});
  p2 = path_of(2, (SimChannelId[]){in, B});
  start(&r, &lp, 1000000, 0);
  start(&r, &p1, 500000, 1);
  start(&r, &p2, 3000000, 2);
  sim_engine_run(r.engine);
  ck_assert_time_near(done_at(&r, 1), SIM_US(1000));
  ck_assert_time_near(done_at(&r, 0), SIM_US(1500));
  ck_assert_time_near(done_at(&r, 2), SIM_US(2000));
  sim_transport_stats(r.t, &st);
  ck_assert_uint_eq(st.transfers_done, 3);
  ck_assert_uint_ge(st.recomputes, 3);
  rig_clear(&r);
}
END_TEST

/* Removing a flow can slow another (max-min is not monotone): Z (1 GB/s)
 * carries R and A, Y (1.2 GB/s) carries A and C.  R = A = 0.5, C = 0.7
 * GB/s; R (0.5 MB) ends at 1 ms; then A = C = 0.6: C (3 MB, 2.3 MB left)
 * ends at 1 + 2.3/0.6 ms; A (2.5 MB left) has 0.2 MB left then and ends
 * alone at 1 GB/s 0.2 ms later. */
START_TEST(test_removal_slows_another)
{
  Rig r;
  SimNodeId n[4];
  SimChannelId Z, Y, out;
  SimPath pr, pa, pc;

  rig_init(&r);
  nodes(&r, 4, n);
  Z = link(&r, n[0], n[1], 1 * GBps, 0);
  Y = link(&r, n[1], n[2], 1.2 * GBps, 0);
  out = link(&r, n[1], n[3], 100 * GBps, 0);
  rig_go(&r, "flow");
  pr = path_of(2, (SimChannelId[]){Z, out});
  pa = path_of(2, (SimChannelId[]){Z, Y});
  pc = path_of(1, &Y);
  start(&r, &pr, 500000, 0);
  start(&r, &pa, 3000000, 1);
  start(&r, &pc, 3000000, 2);
  sim_engine_run(r.engine);
  ck_assert_time_near(done_at(&r, 0), SIM_MS(1));
  ck_assert_time_near(done_at(&r, 2), 4833333334);
  ck_assert_time_near(done_at(&r, 1), 5033333334);
  rig_clear(&r);
}
END_TEST

/* An incast fabric: senders n0 .. n{n-1}, each on its own link of
 * `access` B/s into a hub, and one link of `shared` B/s from the hub to a
 * sink; finalized, with the flow transport. */
static void incast_rig(Rig *r, guint n, double shared, double access,
                       SimChannelId *out_shared, SimChannelId *out_access)
{
  SimNodeId hub, sink, *src = g_new(SimNodeId, n);

  rig_init(r);
  nodes(r, n, src);
  hub = node(r, "hub");
  sink = node(r, "sink");
  *out_shared = link(r, hub, sink, shared, 0);
  for (guint i = 0; i < n; i++)
    out_access[i] = link(r, src[i], hub, access, 0);
  rig_go(r, "flow");
  g_free(src);
}

/* An incast as an AllToAll makes one: 2 x 300 flows from 300 senders
 * over fast access links into one 1 GB/s link, half of 100 kB and half of
 * 300 kB.  All share it at 1/600 GB/s; the small ones end together at
 * 60 ms (one recomputation, its seed channels each read once however many
 * flows left them), then the large ones' 200 kB left at 1/300 GB/s take
 * 60 ms more.  Checked for max-min after every recomputation. */
START_TEST(test_incast_batches)
{
  enum { SENDERS = 300 };
  Rig r;
  SimChannelId shared, access[SENDERS];
  SimTransportStats st;

  incast_rig(&r, SENDERS, 1 * GBps, 100 * GBps, &shared, access);
  for (guint i = 0; i < SENDERS; i++) {
    SimPath p = path_of(2, (SimChannelId[]){access[i], shared});
    start(&r, &p, 100000, 2 * i);
    start(&r, &p, 300000, 2 * i + 1);
  }
  sim_engine_run(r.engine);
  for (guint i = 0; i < SENDERS; i++) {
    ck_assert_time_near(done_at(&r, 2 * i), SIM_MS(60));
    ck_assert_time_near(done_at(&r, 2 * i + 1), SIM_MS(120));
  }
  sim_transport_stats(r.t, &st);
  ck_assert_uint_eq(st.transfers_done, 2 * SENDERS);
  ck_assert_uint_le(st.recomputes, 2);
  rig_clear(&r);
}
END_TEST

/* Flows slower than a departed one keep their rates and are passed over
 * unread (their entries' rate keys, sim/flow.c); one as fast as it moves.
 * A 10 GB/s channel S carries 8 slow flows, each held to 0.5 GB/s by its
 * own link before S, and two fast ones on S alone that share the 6 GB/s
 * left: 3 GB/s each.  The fast 3 MB one ends at 1 ms; the other (6 MB)
 * then takes 6 GB/s and ends at 1 + 3/6 = 1.5 ms, and the slow ones (1 MB)
 * at 2 ms, as before.  Were the 3 GB/s flow taken for a slower one (its
 * key is the departed flow's), it would keep 3 GB/s and end at 2 ms. */
START_TEST(test_slower_flows_stay)
{
  enum { SLOW = 8 };
  Rig r;
  SimChannelId S, own[SLOW];
  SimPath fast;

  incast_rig(&r, SLOW, 10 * GBps, 0.5 * GBps, &S, own);
  fast = path_of(1, &S);
  start(&r, &fast, 3000000, 0);
  start(&r, &fast, 6000000, 1);
  for (guint i = 0; i < SLOW; i++) {
    SimPath slow = path_of(2, (SimChannelId[]){own[i], S});
    start(&r, &slow, 1000000, 2 + i);
  }
  sim_engine_run(r.engine);
  ck_assert_time_near(done_at(&r, 0), SIM_MS(1));
  ck_assert_time_near(done_at(&r, 1), SIM_US(1500));
  for (guint i = 0; i < SLOW; i++)
    ck_assert_time_near(done_at(&r, 2 + i), SIM_MS(2));
  rig_clear(&r);
}
END_TEST

static void start_later(SimEngine *e, void *ctx, guint64 data)
{
  Rig *r = ctx;
  static SimPath p;
  SimChannelId c = (SimChannelId)data;

  (void)e;
  p = path_of(1, &c);
  start(r, &p, 1000, 1);
}

/* A flow's rate changes mid-flight: 1000 B at 1000 B/s from t = 0; a
 * second 1000 B flow arrives at 0.5 s; both run at 500 B/s; the first
 * ends at 1.5 s, the second alone from there, at 2.0 s. */
START_TEST(test_rate_change)
{
  Rig r;
  SimNodeId n[2];
  SimChannelId c;
  SimPath p;
  SimKind k;

  rig_init(&r);
  nodes(&r, 2, n);
  c = link(&r, n[0], n[1], 1000, 0);
  rig_go(&r, "flow");
  p = path_of(1, &c);
  start(&r, &p, 1000, 0);
  k = sim_engine_register(r.engine, "later", start_later, &r);
  sim_engine_schedule(r.engine, SIM_MS(500), k, c);
  sim_engine_run(r.engine);
  ck_assert_uint_eq(done_at(&r, 0), SIM_MS(1500));
  ck_assert_uint_eq(done_at(&r, 1), SIM_MS(2000));
  rig_clear(&r);
}
END_TEST

/* Latency first, then bytes: a flow started alone whose bytes have not
 * begun when another arrives on its channel is demoted and enters only at
 * its own start.  A: 10 us of latency to X, B: 1 us; both start at 0 with
 * 1 MB over X (1 GB/s).  B runs alone from 1 us to 10 us (9000 B), then
 * both at 0.5 GB/s: B ends at 10 us + 991000 / 0.5e9 = 1992 us, A then has
 * 9000 B left at 1 GB/s: 2001 us. */
START_TEST(test_latency_then_bytes)
{
  Rig r;
  SimNodeId n[4];
  SimChannelId c01, c31, X;
  SimPath pa, pb;
  SimTransportStats st;

  rig_init(&r);
  nodes(&r, 4, n);
  c01 = link(&r, n[0], n[1], 100 * GBps, SIM_US(10));
  c31 = link(&r, n[3], n[1], 100 * GBps, SIM_US(1));
  X = link(&r, n[1], n[2], 1 * GBps, 0);
  rig_go(&r, "flow");
  pa = path_of(2, (SimChannelId[]){c01, X});
  pb = path_of(2, (SimChannelId[]){c31, X});
  start(&r, &pa, 1000000, 0);
  start(&r, &pb, 1000000, 1);
  sim_engine_run(r.engine);
  ck_assert_time_near(done_at(&r, 1), SIM_US(1992));
  ck_assert_time_near(done_at(&r, 0), SIM_US(2001));
  sim_transport_stats(r.t, &st);
  ck_assert_uint_eq(st.demoted, 1);
  rig_clear(&r);
}
END_TEST

/* A path that crosses a channel twice (a Valiant route can leave its
 * group by the link it comes back over) loads it twice.  A: L (10 us) then
 * X, Y, X back and forth, 1 MB; B: X alone, 1 MB, both from 0.  B runs
 * alone from 0 to 10 us (10000 B), A's bytes then begin: X carries A
 * twice, so max-min gives both a third of 1 GB/s; B ends at 10 us +
 * 990000 / (1/3 GB/s) = 2980 us, A then has 10000 B left at half of
 * X: 3000 us.  Alone, A takes 10 us + 2000 us in both transports, and X
 * counts its payload at both crossings, 2 MB (3 MB with B).  (The
 * flow transport took A, started alone, off X once per crossing when B
 * demoted it, and crashed.) */
START_TEST(test_repeated_channel)
{
  for (guint k = 0; k < G_N_ELEMENTS(kinds); k++) {
    for (guint with_b = 0; with_b < 2; with_b++) {
      Rig r;
      SimNodeId n[3];
      SimChannelId L, X, Y;
      SimPath pa, pb;
      SimChannelStats cs;

      if (with_b && k > 0)
        continue; /* the analytical transport ignores contention */
      rig_init(&r);
      nodes(&r, 3, n);
      L = link(&r, n[2], n[0], 100 * GBps, SIM_US(10));
      X = link(&r, n[0], n[1], 1 * GBps, 0);
      Y = link(&r, n[1], n[0], 100 * GBps, 0);
      rig_go(&r, kinds[k]);
      pa = path_of(4, (SimChannelId[]){L, X, Y, X});
      pb = path_of(1, &X);
      ck_assert(sim_path_valid(r.fabric, &pa, n[2], n[1]));
      ck_assert(!sim_path_repeats(&pa, 2) && sim_path_repeats(&pa, 3));
      start(&r, &pa, 1000000, 0);
      if (with_b)
        start(&r, &pb, 1000000, 1);
      sim_engine_run(r.engine);
      if (with_b) {
        ck_assert_time_near(done_at(&r, 1), SIM_US(2980));
        ck_assert_time_near(done_at(&r, 0), SIM_US(3000));
      } else {
        ck_assert_time_near(done_at(&r, 0), SIM_US(2010));
      }
      sim_transport_channel_stats(r.t, X, &cs);
      ck_assert_double_eq_tol(cs.payload_bytes, with_b ? 3e6 : 2e6, 1e-3);
      ck_assert_double_eq_tol(cs.wire_bytes, with_b ? 3e6 : 2e6, 1e-3);
      rig_clear(&r);
    }
  }
}
END_TEST

/* Paths longer than a flow's inline hops (8): a 20-hop flow shares three
 * middle links with a 3-hop one, 5 GB/s each on 10 GB/s links, both 2 ms
 * for 10 MB; then a 22-hop path that crosses one link there, back and
 * there again, loading that channel twice (5 GB/s: 2 ms more).  Under the
 * flow transport's checking (rig_go). */
START_TEST(test_long_paths)
{
  Rig r;
  SimNodeId n[21];
  SimChannelId c[20];
  SimChannelId hops[22];
  SimPath pa, pb, pc;
  SimChannelStats cs;

  rig_init(&r);
  nodes(&r, 21, n);
  for (guint i = 0; i < 20; i++)
    c[i] = link(&r, n[i], n[i + 1], 10 * GBps, 0);
  rig_go(&r, "flow");
  pa = path_of(20, c);
  pb = path_of(3, &c[9]);
  start(&r, &pa, 10000000, 0);
  start(&r, &pb, 10000000, 1);
  sim_engine_run(r.engine);
  ck_assert_time_near(done_at(&r, 0), SIM_US(2000));
  ck_assert_time_near(done_at(&r, 1), SIM_US(2000));
  /* c[12] twice: 10 MB at 5 GB/s */
  for (guint i = 0; i < 13; i++)
    hops[i] = c[i];
  hops[13] = sim_channel_reverse(c[12]);
  hops[14] = c[12];
  for (guint i = 13; i < 20; i++)
    hops[i + 2] = c[i];
  pc = path_of(22, hops);
  ck_assert(sim_path_valid(r.fabric, &pc, n[0], n[20]));
  start(&r, &pc, 10000000, 2);
  sim_engine_run(r.engine);
  ck_assert_time_near(done_at(&r, 2), SIM_US(4000));
  sim_transport_channel_stats(r.t, c[12], &cs);
  ck_assert_double_eq_tol(cs.payload_bytes, 1e7 + 2e7, 1e-3);
  ck_assert_uint_eq(cs.peak_flows, 1);
  rig_clear(&r);
}
END_TEST

static double wire_double_on_first(void *ctx, SimChannelId c, guint64 bytes)
{
  (void)bytes;
  return c == *(SimChannelId *)ctx ? 2.0 : 1.0;
}

/* Wire overheads: w = 2 on a channel halves its payload rate; caps bound a
 * flow below its path. */
START_TEST(test_wire_and_cap)
{
  for (guint k = 0; k < G_N_ELEMENTS(kinds); k++) {
    Rig r;
    SimNodeId n[2];
    SimChannelId c;
    SimPath p;
    SimChannelStats cs;

    rig_init(&r);
    nodes(&r, 2, n);
    c = link(&r, n[0], n[1], 1 * GBps, 0);
    rig_go(&r, kinds[k]);
    sim_transport_set_wire(r.t, wire_double_on_first, &c);
    p = path_of(1, &c);
    start(&r, &p, 1000000, 0);
    sim_engine_run(r.engine);
    ck_assert_uint_eq(done_at(&r, 0), SIM_MS(2));
    sim_transport_channel_stats(r.t, c, &cs);
    ck_assert(cs.payload_bytes == 1e6 && cs.wire_bytes == 2e6);
    {
      SimTransfer x = {.bytes = 1000000,
                       .paths = &p,
                       .n_paths = 1,
                       .cap_Bps = 0.25 * GBps,
                       .tag = 1};
      sim_transport_start(r.t, &x);
    }
    sim_engine_run(r.engine);
    ck_assert_uint_eq(done_at(&r, 1) - SIM_MS(2), SIM_MS(4));
    rig_clear(&r);
  }
}
END_TEST

/* A path set: shares by weight, whole bytes summing to the total, the
 * transfer ending with its slowest share; zero bytes take the latency. */
START_TEST(test_path_set)
{
  for (guint k = 0; k < G_N_ELEMENTS(kinds); k++) {
    Rig r;
    SimNodeId n[2];
    SimChannelId c1, c2;
    SimPath ps[2];
    double w[2] = {0.25, 0.75};
    SimTransfer x = {
        .bytes = 1000001, .paths = ps, .weights = w, .n_paths = 2, .tag = 0};

    rig_init(&r);
    nodes(&r, 2, n);
    c1 = link(&r, n[0], n[1], 1 * GBps, SIM_US(1));
    c2 = link(&r, n[0], n[1], 1 * GBps, SIM_US(2));
    rig_go(&r, kinds[k]);
    ps[0] = path_of(1, &c1);
    ps[1] = path_of(1, &c2);
    ck_assert_uint_eq(sim_transfer_share(&x, 0) + sim_transfer_share(&x, 1),
                      1000001);
    {
      /* 16 bytes over 32 equal paths: each share rounds to 1 on its own
       * (an abort on GB200 NVL72's 1 KiB AllReduce); the first 16 get a
       * byte, the others none */
      double w32[32];
      SimTransfer few = {.bytes = 16, .weights = w32, .n_paths = 32};
      guint64 sum = 0;

      for (guint i = 0; i < 32; i++)
        w32[i] = 1.0 / 32;
      for (guint i = 0; i < 32; i++) {
        ck_assert_uint_eq(sim_transfer_share(&few, i), i < 16 ? 1 : 0);
        sum += sim_transfer_share(&few, i);
      }
      ck_assert_uint_eq(sum, 16);
    }
    sim_transport_start(r.t, &x);
    x.bytes = 0;
    x.tag = 1;
    sim_transport_start(r.t, &x);
    sim_engine_run(r.engine);
    /* 750001 B at 1 GB/s after 2 us (the 250000 B share ends earlier) */
    ck_assert_uint_eq(done_at(&r, 0), SIM_US(2) + 750001000);
    ck_assert_uint_eq(done_at(&r, 1), SIM_US(2));
    rig_clear(&r);
  }
}
END_TEST

/* A path set moves in fixed shares at one rate, as one flow: on a channel
 * its paths share it counts once in max-min fairness, not once a path.
 * n0 -> n1 at 1 GB/s, then P parallel planes to n2 (10 GB/s each) and on
 * to n3: P = 18, a GPU's NVLink spray and back (37 channels, more than a
 * path holds), and P = 32 (65 channels, more than 64).  X, 1 MB over the
 * P planes, and Y, 1 MB over plane 0, share n0 -> n1 half and half and
 * end together at 2 ms (with a flow a path, X's P would take P/(P + 1)
 * of it and end at 1.056 ms, Y at 2 ms); the planes carry X's bytes by
 * its weights.  Both transports, the same times when X runs alone (1
 * ms). */
START_TEST(test_path_set_shares)
{
  static const guint planes[] = {18, 32};

  for (guint k = 0; k < 2 * G_N_ELEMENTS(planes); k++) {
    const char *kind = kinds[k % 2];
    guint np = planes[k / 2];
    Rig r;
    SimNodeId n[4];
    SimChannelId up, out[32], back[32];
    SimPath ps[32], y;
    double w[32];
    SimTransfer x = {
        .bytes = 1000000, .paths = ps, .weights = w, .n_paths = np, .tag = 0};
    SimChannelStats st;

    rig_init(&r);
    nodes(&r, 4, n);
    up = link(&r, n[0], n[1], 1 * GBps, 0);
    for (guint i = 0; i < np; i++) {
      out[i] = link(&r, n[1], n[2], 10 * GBps, 0);
      back[i] = link(&r, n[2], n[3], 10 * GBps, 0);
    }
    rig_go(&r, kind);
    for (guint i = 0; i < np; i++) {
      SimChannelId hops[3] = {up, out[i], back[i]};

      ps[i] = path_of(3, hops);
      w[i] = 1.0 / np;
    }
    y = path_of(3, (SimChannelId[]){up, out[0], back[0]});
    sim_transport_start(r.t, &x);
    if (g_str_equal(kind, "flow")) {
      start(&r, &y, 1000000, 1);
      sim_engine_run(r.engine);
      ck_assert_time_near(done_at(&r, 0), SIM_MS(2));
      ck_assert_time_near(done_at(&r, 1), SIM_MS(2));
      sim_transport_channel_stats(r.t, out[0], &st);
      ck_assert_double_eq_tol(
          st.payload_bytes, 1000000 + (double)sim_transfer_share(&x, 0), 1e-3);
      sim_transport_channel_stats(r.t, out[np - 1], &st);
      ck_assert_double_eq_tol(st.payload_bytes,
                              (double)sim_transfer_share(&x, np - 1), 1e-3);
    } else {
      sim_engine_run(r.engine);
      ck_assert_time_near(done_at(&r, 0), SIM_MS(1));
    }
    rig_clear(&r);
  }
}
END_TEST

/* Channel statistics: bytes, busy time (not counting idle gaps), peak
 * flows; many flows on one channel (entry arrays grow). */
START_TEST(test_channel_stats)
{
  Rig r;
  SimChannelId c;
  SimPath p;
  SimChannelStats cs;
  SimTransportStats st;

  one_link_rig(&r, 1 * GBps, &c, &p);
  for (guint i = 0; i < 100; i++)
    start(&r, &p, 10000, i);
  sim_engine_run(r.engine);
  /* 100 x 10 kB at 1 GB/s: all end together at 1 ms */
  for (guint i = 0; i < 100; i++)
    ck_assert_time_near(done_at(&r, i), SIM_MS(1));
  sim_transport_channel_stats(r.t, c, &cs);
  ck_assert(cs.payload_bytes == 1e6);
  ck_assert_uint_eq(cs.peak_flows, 100);
  ck_assert_time_near(cs.busy_ps, SIM_MS(1));
  sim_transport_channel_stats(r.t, sim_channel_reverse(c), &cs);
  ck_assert(cs.payload_bytes == 0 && cs.busy_ps == 0 && cs.peak_flows == 0);
  sim_transport_stats(r.t, &st);
  ck_assert_uint_eq(st.peak_active, 100);
  /* They all start, and end, at one instant: one recomputation. */
  ck_assert_uint_eq(st.recomputes, 1);
  rig_clear(&r);
}
END_TEST

/* ---- random workloads ---- */

typedef struct {
  guint32 n;
  SimPath *path;
  guint64 *bytes;
  SimTime *at;
  double *cap; /* B/s, 0: none */
} Workload;

/* A random connected fabric of 12 nodes (a ring plus chords, rates 1-8
 * GB/s, latencies 0-2 us) and `n` transfers between random pairs along
 * BFS shortest paths, starting at random times within 2 ms. */
static void random_rig(Rig *r, SimRng *rng, Workload *w, guint32 n)
{
  enum { N = 12 };
  SimNodeId id[N];
  SimChannelId next[N][N];

  nodes(r, N, id);
  for (guint i = 0; i < N; i++)
    for (guint j = 0; j < N; j++)
      next[i][j] = SIM_NONE;
  for (guint i = 0; i < N; i++) {
    guint j = (i + 1) % N, k = (i + 5) % N;
    SimChannelId c = link(r, id[i], id[j], (1 + sim_rng_below(rng, 8)) * GBps,
                          SIM_NS(sim_rng_below(rng, 2000)));
    next[i][j] = c;
    next[j][i] = sim_channel_reverse(c);
    if (next[i][k] == SIM_NONE) {
      c = link(r, id[i], id[k], (1 + sim_rng_below(rng, 8)) * GBps,
               SIM_NS(sim_rng_below(rng, 2000)));
      next[i][k] = c;
      next[k][i] = sim_channel_reverse(c);
    }
  }
  w->n = n;
  w->path = g_new0(SimPath, n);
  w->bytes = g_new(guint64, n);
  w->at = g_new(SimTime, n);
  w->cap = g_new0(double, n);
  for (guint32 t = 0; t < n; t++) {
    guint src = sim_rng_below(rng, N), dst = sim_rng_below(rng, N - 1);
    guint prev[N], queue[N], head = 0, tail = 0;
    gboolean seen[N] = {FALSE};

    dst = dst >= src ? dst + 1 : dst;
    queue[tail++] = src;
    seen[src] = TRUE;
    while (head < tail) {
      guint u = queue[head++];
      for (guint v = 0; v < N; v++)
        if (next[u][v] != SIM_NONE && !seen[v]) {
          seen[v] = TRUE;
          prev[v] = u;
          queue[tail++] = v;
        }
    }
    {
      guint hops[N], nh = 0;
      for (guint v = dst; v != src; v = prev[v])
        hops[nh++] = v;
      for (guint u = src, i = nh; i-- > 0; u = hops[i])
        ck_assert(sim_path_push(&w->path[t], next[u][hops[i]]));
    }
    w->bytes[t] = 1 + sim_rng_below(rng, 4000000);
    w->at[t] = sim_rng_below(rng, 2000000) * SIM_PS_PER_NS;
  }
}

/* Caps for half the transfers of a workload, 0.1 to 2 GB/s. */
static void random_caps(SimRng *rng, Workload *w)
{
  for (guint32 t = 0; t < w->n; t++)
    w->cap[t] =
        sim_rng_below(rng, 2) ? (0.1 + sim_rng_below(rng, 20) * 0.1) * GBps : 0;
}

static void workload_clear(Workload *w)
{
  g_free(w->path);
  g_free(w->bytes);
  g_free(w->at);
  g_free(w->cap);
}

typedef struct {
  Rig *r;
  Workload *w;
} Launch;

static void on_launch(SimEngine *e, void *ctx, guint64 data)
{
  Launch *l = ctx;

  (void)e;
  {
    SimTransfer x = {.bytes = l->w->bytes[data],
                     .paths = &l->w->path[data],
                     .n_paths = 1,
                     .cap_Bps = l->w->cap[data],
                     .tag = data};
    sim_transport_start(l->r->t, &x);
  }
}

static void run_workload(Rig *r, Workload *w)
{
  Launch l = {r, w};
  SimKind k = sim_engine_register(r->engine, "launch", on_launch, &l);

  for (guint32 t = 0; t < w->n; t++)
    sim_engine_schedule(r->engine, w->at[t], k, t);
  sim_engine_run(r->engine);
}

/* Runs a random workload of 800 transfers (caps on half of them with
 * `caps`) on the flow transport under checking mode, checks that no
 * transfer beats its contention-free time (at its cap) and that every
 * channel carried exactly the bytes of the transfers crossing it, in no
 * less time than its rate allows; returns the transport's statistics. */
static SimTransportStats random_run(guint64 seed, gboolean caps)
{
  Rig r;
  SimRng rng;
  Workload w;
  SimTransportStats st;
  double *expect;

  rig_init(&r);
  sim_rng_init(&rng, seed, caps ? 7 : 0);
  random_rig(&r, &rng, &w, 800);
  if (caps)
    random_caps(&rng, &w);
  rig_go(&r, "flow");
  run_workload(&r, &w);
  sim_transport_stats(r.t, &st);
  ck_assert_uint_eq(st.transfers_done, w.n);
  expect = g_new0(double, sim_fabric_n_channels(r.fabric));
  for (guint32 t = 0; t < w.n; t++) {
    double rate = sim_path_bottleneck_Bps(r.fabric, &w.path[t]);
    SimTime alone;

    if (w.cap[t] > 0)
      rate = MIN(rate, w.cap[t]);
    alone = sim_path_latency_ps(r.fabric, &w.path[t]) +
            sim_serialize_ps((double)w.bytes[t], rate);
    ck_assert_uint_ge(done_at(&r, t) - w.at[t] + 1, alone);
    for (guint32 h = 0; h < w.path[t].n; h++)
      expect[w.path[t].hop[h]] += (double)w.bytes[t];
  }
  for (SimChannelId c = 0; c < sim_fabric_n_channels(r.fabric); c++) {
    SimChannelStats cs;
    sim_transport_channel_stats(r.t, c, &cs);
    ck_assert(cs.payload_bytes == expect[c]);
    /* busy time can carry at most rate x busy bytes */
    ck_assert(cs.payload_bytes <= sim_fabric_channel(r.fabric, c)->rate_Bps *
                                          sim_time_to_s(cs.busy_ps) *
                                          (1 + 1e-9) +
                                      1);
  }
  g_free(expect);
  workload_clear(&w);
  rig_clear(&r);
  return st;
}

/* Random contended workloads under checking mode (after every
 * recomputation: no channel over its rate, every flow bottlenecked), with
 * conservation (random_run). */
START_TEST(test_random_conservation)
{
  for (guint64 seed = 1; seed <= 3; seed++) {
    SimTransportStats st = random_run(seed, FALSE);

    ck_assert_uint_gt(st.recomputes, 100);
    /* sets had to grow: the local recomputation was exercised */
    ck_assert_uint_gt(st.recompute_rounds, st.recomputes);
  }
}
END_TEST

/* Capped flows that fit in what their channels have spare start at their
 * cap, and flows leaving channels with room leave the others as they
 * are, without a recomputation (sim/flow.c flow_fits, flow_done): random
 * contended workloads with caps on half the transfers, under checking
 * mode (after every recomputation and every shortcut the whole allocation
 * is max-min), with conservation, and the shortcuts taken. */
START_TEST(test_random_caps)
{
  for (guint64 seed = 1; seed <= 3; seed++) {
    SimTransportStats st = random_run(seed, TRUE);

    ck_assert_uint_gt(st.recomputes, 50);
    ck_assert_uint_gt(st.recomputes_saved, 50);
  }
}
END_TEST

/* Two flows capped below their shared link's rate: the second starts at
 * its cap with no recomputation; a third whose cap does not fit takes
 * what is left, by recomputation, and more as the others end. */
START_TEST(test_room_to_spare)
{
  Rig r;
  SimChannelId c;
  SimPath p;
  SimTransportStats st;

  one_link_rig(&r, 10 * GBps, &c, &p);
  {
    SimTransfer a = {.bytes = 1000000,
                     .paths = &p,
                     .n_paths = 1,
                     .cap_Bps = 2 * GBps,
                     .tag = 0};
    SimTransfer b = {.bytes = 2000000,
                     .paths = &p,
                     .n_paths = 1,
                     .cap_Bps = 4 * GBps,
                     .tag = 1};
    SimTransfer d = {.bytes = 3000000,
                     .paths = &p,
                     .n_paths = 1,
                     .cap_Bps = 8 * GBps,
                     .tag = 2};

    sim_transport_start(r.t, &a);
    sim_engine_run_until(r.engine, SIM_US(100));
    sim_transport_start(r.t, &b);
    sim_engine_run_until(r.engine, SIM_US(300));
    sim_transport_stats(r.t, &st);
    ck_assert_uint_eq(st.recomputes, 0);
    ck_assert_uint_ge(st.recomputes_saved, 1);
    /* a: 1 MB at 2 GB/s = 500 us; b from 100 us: 2 MB at 4 GB/s = 500 us */
    sim_transport_start(r.t, &d);
  }
  sim_engine_run(r.engine);
  sim_transport_stats(r.t, &st);
  ck_assert_uint_eq(done_at(&r, 0), SIM_US(500));
  /* d (from 300 us) gets 10 - 2 - 4 = 4 GB/s until a ends at 500 us, then
   * 6 until b ends at 600 us, then its cap of 8 */
  ck_assert_uint_eq(done_at(&r, 1), SIM_US(600));
  /* 0.8 MB by 500 us, 0.6 MB more by 600 us, 1.6 MB at 8 GB/s: 800 us */
  ck_assert_time_near(done_at(&r, 2), SIM_US(800));
  ck_assert_uint_gt(st.recomputes, 0);
  rig_clear(&r);
}
END_TEST

/* The same inputs give the same completions, in the same order. */
START_TEST(test_determinism)
{
  GArray *first = NULL;

  for (guint run = 0; run < 2; run++) {
    Rig r;
    SimRng rng;
    Workload w;

    rig_init(&r);
    sim_rng_init(&rng, 42, 0);
    random_rig(&r, &rng, &w, 800);
    rig_go(&r, "flow");
    run_workload(&r, &w);
    if (run == 0) {
      first = g_array_copy(r.done.at);
    } else {
      ck_assert_uint_eq(first->len, r.done.at->len);
      ck_assert_int_eq(
          memcmp(first->data, r.done.at->data, first->len * sizeof(SimTime)),
          0);
    }
    workload_clear(&w);
    rig_clear(&r);
  }
  g_array_free(first, TRUE);
}
END_TEST

/* With transfers one at a time (nothing shared), flow equals analytical
 * to the picosecond. */
START_TEST(test_flow_equals_analytical_alone)
{
  SimTime t[2][300];

  for (guint k = 0; k < 2; k++) {
    Rig r;
    SimRng rng;
    Workload w;

    rig_init(&r);
    sim_rng_init(&rng, 7, 0);
    random_rig(&r, &rng, &w, 300);
    /* spaced 10 ms apart: each ends before the next starts */
    for (guint32 i = 0; i < w.n; i++)
      w.at[i] = SIM_MS(10) * i;
    rig_go(&r, kinds[k]);
    run_workload(&r, &w);
    for (guint32 i = 0; i < w.n; i++)
      t[k][i] = done_at(&r, i) - w.at[i];
    workload_clear(&w);
    rig_clear(&r);
  }
  for (guint i = 0; i < 300; i++)
    ck_assert_uint_eq(t[0][i], t[1][i]);
}
END_TEST

/* A set of n one-hop paths (channels first, first + 1, ...) at weights w
 * (NULL: even). */
static SimPathSet one_hop_set(guint32 n, SimChannelId first, const double *w)
{
  SimPathSet s = {.n = n};

  for (guint32 i = 0; i < n; i++) {
    s.path[i].n = 1;
    s.path[i].hop[0] = first + i;
    s.weight[i] = w ? w[i] : 1.0 / n;
  }
  return s;
}

/* Checks that set s of two-hop paths (a's channel, then b's) keeps each
 * leg's paths at their weights, and its weights sum to 1. */
static void check_marginals(const SimPathSet *s, const SimPathSet *a,
                            const SimPathSet *b)
{
  double sum = 0;

  for (guint32 i = 0; i < a->n; i++) {
    double wa = 0;

    for (guint32 k = 0; k < s->n; k++)
      wa += s->path[k].hop[0] == a->path[i].hop[0] ? s->weight[k] : 0;
    ck_assert_double_eq_tol(wa, a->weight[i], 1e-12);
  }
  for (guint32 j = 0; j < b->n; j++) {
    double wb = 0;

    for (guint32 k = 0; k < s->n; k++)
      wb += s->path[k].hop[1] == b->path[j].hop[0] ? s->weight[k] : 0;
    ck_assert_double_eq_tol(wb, b->weight[j], 1e-12);
  }
  for (guint32 k = 0; k < s->n; k++) {
    ck_assert_uint_eq(s->path[k].n, 2);
    ck_assert_double_gt(s->weight[k], 0);
    sum += s->weight[k];
  }
  ck_assert_double_eq_tol(sum, 1.0, 1e-12);
}

/* Two legs one after the other: every pair where they fit a set (3 x 2,
 * weights multiplied); past SIM_PATHSET_MAX pairs (an NVLink leg sprayed
 * over 18 NVSwitches, then 4 queue pairs' network paths: 72) at most 18 +
 * 4 - 1 paths that keep every path of each leg at its weight, so every
 * channel carries what the full product gives it, uneven weights too;
 * a path longer than SIM_PATH_MAX_HOPS is refused.  A set merges a path it
 * already holds. */
START_TEST(test_pathset_concat)
{
  static const double uneven[13] = {0.3,  0.2,  0.1,  0.05, 0.05, 0.05, 0.05,
                                    0.04, 0.04, 0.04, 0.04, 0.04, 0.0};
  SimPathSet a = one_hop_set(3, 0, NULL), b = one_hop_set(2, 10, NULL), out;
  SimPathSet spray = one_hop_set(18, 100, NULL),
             qps = one_hop_set(4, 200, NULL);
  SimPathSet odd = one_hop_set(3, 300, (const double[]){0.5, 0.3, 0.2});
  SimPathSet many = one_hop_set(12, 400, uneven), longest = {.n = 1};

  ck_assert(sim_pathset_concat(&a, &b, &out));
  ck_assert_uint_eq(out.n, 6);
  for (guint32 k = 0; k < out.n; k++)
    ck_assert_double_eq_tol(out.weight[k], 1.0 / 6, 1e-15);
  check_marginals(&out, &a, &b);
  ck_assert(sim_pathset_concat(&spray, &qps, &out));
  ck_assert_uint_le(out.n, 18 + 4 - 1);
  check_marginals(&out, &spray, &qps);
  ck_assert(sim_pathset_concat(&qps, &spray, &out));
  ck_assert_uint_le(out.n, 18 + 4 - 1);
  check_marginals(&out, &qps, &spray);
  many.weight[11] += uneven[12]; /* 12 paths whose weights sum to 1 */
  ck_assert(sim_pathset_concat(&odd, &many, &out));
  ck_assert_uint_le(out.n, 3 + 12 - 1);
  check_marginals(&out, &odd, &many);
  longest.path[0].n = SIM_PATH_MAX_HOPS;
  ck_assert(!sim_pathset_concat(&longest, &b, &out));
  ck_assert(!sim_pathset_concat(&longest, &spray, &out));

  out = one_hop_set(2, 10, (const double[]){0.25, 0.25});
  ck_assert(sim_pathset_add(&out, &b.path[1], 0.5));
  ck_assert_uint_eq(out.n, 2);
  ck_assert_double_eq_tol(out.weight[1], 0.75, 1e-15);
  ck_assert(sim_pathset_add(&out, &a.path[0], 0.0));
  ck_assert_uint_eq(out.n, 3);
  out = spray;
  out.n = SIM_PATHSET_MAX;
  ck_assert(!sim_pathset_add(&out, &qps.path[0], 0.1));
}
END_TEST

Suite *suite_transport(void)
{
  Suite *s = suite_create("transport");
  TCase *tc = tcase_create("closed_forms");

  tcase_add_loop_test(tc, test_idle_path, 0, G_N_ELEMENTS(kinds));
  tcase_add_test(tc, test_equal_shares);
  tcase_add_test(tc, test_classic_max_min);
  tcase_add_test(tc, test_rate_change);
  tcase_add_test(tc, test_removal_slows_another);
  tcase_add_test(tc, test_incast_batches);
  tcase_add_test(tc, test_slower_flows_stay);
  tcase_add_test(tc, test_latency_then_bytes);
  tcase_add_test(tc, test_repeated_channel);
  tcase_add_test(tc, test_long_paths);
  tcase_add_test(tc, test_wire_and_cap);
  tcase_add_test(tc, test_path_set);
  tcase_add_test(tc, test_path_set_shares);
  tcase_add_test(tc, test_pathset_concat);
  tcase_add_test(tc, test_channel_stats);
  suite_add_tcase(s, tc);
  tc = tcase_create("random");
  tcase_set_timeout(tc, 240);
  tcase_add_test(tc, test_random_conservation);
  tcase_add_test(tc, test_determinism);
  tcase_add_test(tc, test_random_caps);
  tcase_add_test(tc, test_room_to_spare);
  tcase_add_test(tc, test_flow_equals_analytical_alone);
  suite_add_tcase(s, tc);
  return s;
}
