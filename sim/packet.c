/* The packet transport; what it models is in sim/packet.h.
 *
 * Records:
 *   Port     one per channel: the output port at the channel's source, its
 *            busy time, counters, and n_vl VL records;
 *   Vl       per (channel, VL): the FIFO of packets queued for the
 *            channel, the ring of local flows that start on it, credits
 *            (CREDIT), the pause state set by the receiver (PFC) and the
 *            bytes that came in on the channel and are still in its
 *            destination node (PFC ingress accounting);
 *   Flow     one path of a transfer: its path, packet sizes and wire bytes
 *            per hop, send and receive sequence numbers (go-back-N), DCQCN
 *            state; alive until done and no packet of it is left;
 *   Packet   one packet, queued at a port or travelling to the next node;
 *   Lone     a flow alone on its path, in closed form: its first and last
 *            packets' times on each hop, and the period between packets.
 *
 * Events: ARRIVE (a packet reaches the node at the end of its hop: all of
 * it, or its head on a cut-through hop), WAKE (a port may send: its
 * packet on the wire ended, a paced flow may go), CREDIT (credit back at
 * a sender), PFC (XOFF/XON takes effect), NAK, CNP, RTO and the DCQCN
 * timers (per flow, ignored when stale), SAMPLE, ZERO (a transfer of 0
 * bytes ends) and LONE_END (a flow in closed form ends).
 *
 * Per packet and hop: one ARRIVE; the source port adds one WAKE per
 * packet while it has more to send; CREDIT adds one per packet and
 * credit-controlled hop.  A flow alone on its path (below) takes those of
 * its first packet and one LONE_END. */
#include "sim/packet.h"

#include <math.h>
#include <string.h>

#include "sim/pool.h"
#include "sim/rng.h"
#include "sim/units.h"

#define NIL SIM_POOL_NIL
#define DCQCN_F 5 /* fast recovery events before additive increase */

typedef struct {
  guint32 head, tail; /* FIFO of packets queued for the channel */
  guint32 local;      /* ring of local flows (the last one), or NIL */
  guint32 n_local;
  guint64 queue_bytes;   /* wire bytes queued */
  gint64 credits;        /* CREDIT: bytes the sender may still send */
  guint64 ingress_bytes; /* PFC: came in on this channel, still in dst */
  gboolean paused;       /* PFC: the receiver sent XOFF (in effect) */
  gboolean xoff_sent;    /* PFC: the receiver's side */
  gboolean turn_local;   /* alternates transit and local packets */
} Vl;

typedef struct {
  const SimPacketLink *link;
  double rate;
  SimTime lat;
  SimTime next_lat; /* the forwarding latency of the node it leads to */
  SimTime busy_until;
  SimTime tx_start;            /* the packet leaving: since, */
  guint32 tx_wire, tx_payload; /* its bytes (counted in st already) */
  guint32 vl0, n_vl, rr;
  guint32 n_paused;
  gboolean stalled;
  gboolean wake_pending, touched;
  guint32 fecn_skip; /* eligible packets since the last FECN mark */
  SimTime wake_t;    /* when the pending wake runs */
  guint64 queue_bytes;
  guint32 active_flows;
  SimTime paused_since, stall_since;
  SimPortStats st;
  guint32 peak_flows;
  guint32 lone; /* the flow alone on it in closed form, or NIL */
} Port;

typedef struct {
  guint32 next_local; /* ring link at the source port's VL */
  guint32 xfer;
  guint32 gen;
  guint32 vl;
  SimPath path;
  guint32 n_pkts, mtu, last_payload;
  guint32 next_seq; /* sender: next packet to send */
  guint32 high_seq; /* sender: packets ever sent once */
  guint32 expected; /* receiver: next packet in order */
  guint32 nak_seq;
  guint32 alive; /* packets of this flow queued or travelling */
  gboolean done, in_ring, nak_sent;
  SimTime path_lat;
  SimTime next_allowed;  /* pacing: the transfer's cap, DCQCN */
  double cap;            /* payload bytes/s this path may not exceed; 0:
                           none */
  SimTime rto;           /* go-back-N timeout (0: no hop can lose packets) */
  SimTime rto_due;       /* the timer's next run; 0: not running */
  guint32 rto_expected;  /* the receiver's progress when it was armed */
  SimTime last_progress; /* when the receiver last took a packet */
  SimEventId rto_ev;     /* cancelled when the flow is done */
  /* DCQCN (dc != NULL) */
  const SimPacketLink *dc;
  guint32 dc_hop;
  /* InfiniBand congestion control (ib != NULL) */
  const SimPacketLink *ib;
  guint32 ccti;
  SimTime ccti_due; /* the CCTI timer's next run; 0: not running */
  double line, rc, rt, alpha;
  guint32 t_stage, bc_stage;
  guint64 bc_bytes;
  gboolean cnp_since_alpha;
  SimTime rate_due, alpha_due;
  SimTime last_cnp; /* receiver */
  gboolean cnp_ever;
  guint32 wire_full[SIM_PATH_MAX_HOPS];
  guint32 wire_last[SIM_PATH_MAX_HOPS];
  guint32 lone;      /* its closed form (Lone), or NIL: packet by packet */
  gboolean lone_end; /* its end event (k_lone) will end it */
} Flow;

typedef struct {
  guint32 next;
  guint32 flow;
  guint32 seq;
  guint32 payload;
  guint8 hop;
  guint8 vl;
  guint8 ecn;
  SimTime tail; /* when all of it has reached the node it is headed to */
} Packet;

typedef struct {
  guint64 tag;
  guint32 left; /* flows not done */
} Xfer;

typedef struct {
  SimTransport base;
  Port *port; /* [n_channels] */
  Vl *vl;     /* [sum of n_vl] */
  SimPool flows, packets, xfers, lones;
  gboolean lone_on; /* flows alone on their path in closed form */
  SimRng rng;
  SimPacketStats st;
  SimPacketLink fallback;
  SimKind k_arrive, k_wake, k_credit, k_pfc, k_nak, k_cnp, k_rto, k_rate,
      k_alpha, k_sample, k_zero, k_ccti, k_lone;
  SimTime sample_interval;
  gboolean sample_pending;
  GArray *samples; /* SimQueueSample */
  GArray *touched; /* SimChannelId: channels to sample */
} Packets;

static const SimTransportOps packet_ops;

static inline Flow *flow_at(Packets *p, guint32 i)
{
  return sim_pool_at(&p->flows, i);
}

static inline Packet *pkt_at(Packets *p, guint32 i)
{
  return sim_pool_at(&p->packets, i);
}

static inline guint64 flow_ev(guint32 idx, guint32 gen)
{
  return (guint64)gen << 32 | idx;
}

/* The flow an event names, or NULL when it has gone since. */
static Flow *flow_of_event(Packets *p, guint64 data)
{
  guint32 idx = (guint32)data, gen = (guint32)(data >> 32);
  Flow *f;

  if (idx >= p->flows.created)
    return NULL;
  f = flow_at(p, idx);
  return f->gen == gen && !f->done ? f : NULL;
}

/* Wire bytes of f's packet `seq` on hop h (the last packet may be short). */
static guint32 flow_wire(const Flow *f, guint32 seq, guint32 hop)
{
  return seq + 1 == f->n_pkts ? f->wire_last[hop] : f->wire_full[hop];
}

static guint32 pkt_wire(const Flow *f, const Packet *k)
{
  return flow_wire(f, k->seq, k->hop);
}

static guint64 credit_need(const SimPacketLink *l, guint32 wire)
{
  return sim_round_up(wire, MAX(l->credit_unit, 1u));
}

static void port_kick(Packets *p, SimChannelId c);

static void wake_at(Packets *p, SimChannelId c, SimTime when)
{
  Port *o = &p->port[c];

  when = MAX(when, sim_engine_now(p->base.engine));
  if (o->wake_pending && o->wake_t <= when)
    return;
  o->wake_pending = TRUE;
  o->wake_t = when;
  sim_engine_schedule(p->base.engine, when, p->k_wake, c);
}

static void touch(Packets *p, SimChannelId c)
{
  Port *o = &p->port[c];

  if (p->sample_interval && !o->touched) {
    o->touched = TRUE;
    g_array_append_val(p->touched, c);
  }
}

/* ---- flows ------------------------------------------------------------ */

static void flow_release(Packets *p, guint32 fi)
{
  Flow *f = flow_at(p, fi);

  if (f->done && f->alive == 0 && !f->in_ring) {
    f->gen++;
    sim_pool_free(&p->flows, fi);
  }
}

static void ring_add(Packets *p, guint32 fi)
{
  Flow *f = flow_at(p, fi);
  SimChannelId c = f->path.hop[0];
  Vl *v = &p->vl[p->port[c].vl0 + f->vl];

  if (f->in_ring)
    return;
  f->in_ring = TRUE;
  if (v->local == NIL) {
    f->next_local = fi;
  } else {
    Flow *last = flow_at(p, v->local);
    f->next_local = last->next_local;
    last->next_local = fi;
  }
  v->local = fi;
  v->n_local++;
}

/* Unlinks flow fi, whose predecessor in the ring is prev. */
static void ring_remove(Packets *p, Vl *v, guint32 prev, guint32 fi)
{
  Flow *f = flow_at(p, fi);

  if (prev == fi) {
    v->local = NIL;
  } else {
    flow_at(p, prev)->next_local = f->next_local;
    if (v->local == fi)
      v->local = prev;
  }
  f->in_ring = FALSE;
  v->n_local--;
}

static void flow_done(Packets *p, guint32 fi)
{
  Flow *f = flow_at(p, fi);
  Xfer *x = sim_pool_at(&p->xfers, f->xfer);

  f->done = TRUE;
  if (f->rto_due) {
    sim_engine_cancel(p->base.engine, f->rto_ev);
    f->rto_due = 0;
  }
  for (guint32 h = 0; h < f->path.n; h++)
    if (!sim_path_repeats(&f->path, h))
      p->port[f->path.hop[h]].active_flows--;
  if (--x->left == 0) {
    guint64 tag = x->tag;
    sim_pool_free(&p->xfers, f->xfer);
    sim_transport_finish(&p->base, tag);
  }
  flow_release(p, fi);
}

/* ---- DCQCN (sender side) ---------------------------------------------- */

static void dcqcn_arm_rate(Packets *p, guint32 fi, Flow *f)
{
  f->rate_due = sim_engine_now(p->base.engine) + f->dc->dcqcn_rate_increase;
  sim_engine_schedule(p->base.engine, f->rate_due, p->k_rate,
                      flow_ev(fi, f->gen));
}

static void dcqcn_arm_alpha(Packets *p, guint32 fi, Flow *f)
{
  f->alpha_due = sim_engine_now(p->base.engine) + f->dc->dcqcn_alpha_period;
  sim_engine_schedule(p->base.engine, f->alpha_due, p->k_alpha,
                      flow_ev(fi, f->gen));
}

static void dcqcn_increase(Flow *f)
{
  const SimPacketLink *l = f->dc;

  if (f->t_stage < DCQCN_F && f->bc_stage < DCQCN_F) {
    /* fast recovery: towards the target only */
  } else if (f->t_stage > DCQCN_F && f->bc_stage > DCQCN_F) {
    f->rt +=
        (double)(MIN(f->t_stage, f->bc_stage) - DCQCN_F) * l->dcqcn_rhai_Bps;
  } else {
    f->rt += l->dcqcn_rai_Bps;
  }
  f->rt = MIN(f->rt, f->line);
  f->rc = (f->rt + f->rc) / 2;
  if (f->line - f->rc < f->line * 1e-6)
    f->rc = f->rt = f->line;
}

/* ---- InfiniBand congestion control (sender side) --------------------- */

static void ccti_arm(Packets *p, guint32 fi, Flow *f)
{
  f->ccti_due = sim_engine_now(p->base.engine) + f->ib->ibcc_ccti_timer;
  sim_engine_schedule(p->base.engine, f->ccti_due, p->k_ccti,
                      flow_ev(fi, f->gen));
}

static void on_becn(Packets *p, guint32 fi, Flow *f)
{
  p->st.becns++;
  f->ccti = MIN(f->ccti + f->ib->ibcc_ccti_increase, f->ib->ibcc_ccti_limit);
  if (!f->ccti_due)
    ccti_arm(p, fi, f);
}

static void on_ccti_timer(SimEngine *e, void *ctx, guint64 data)
{
  Packets *p = ctx;
  Flow *f = flow_of_event(p, data);

  if (!f || f->ccti_due != sim_engine_now(e))
    return;
  f->ccti_due = 0;
  if (f->ccti > 0 && --f->ccti > 0)
    ccti_arm(p, (guint32)data, f);
}

/* A CNP (RoCE, for DCQCN) or a BECN (InfiniBand) reached the sender. */
static void on_cnp(SimEngine *e, void *ctx, guint64 data)
{
  Packets *p = ctx;
  Flow *f = flow_of_event(p, data);
  guint32 fi = (guint32)data;
  gboolean was_full;

  (void)e;
  if (f && !f->dc && f->ib)
    on_becn(p, fi, f);
  if (!f || !f->dc)
    return;
  was_full = f->rc >= f->line;
  f->rt = f->rc;
  f->rc = MAX(f->rc * (1 - f->alpha / 2), f->dc->dcqcn_min_rate_Bps);
  f->alpha = (1 - f->dc->dcqcn_g) * f->alpha + f->dc->dcqcn_g;
  f->t_stage = f->bc_stage = 0;
  f->bc_bytes = 0;
  f->cnp_since_alpha = TRUE;
  dcqcn_arm_rate(p, fi, f);
  if (was_full)
    dcqcn_arm_alpha(p, fi, f);
}

static void on_rate_timer(SimEngine *e, void *ctx, guint64 data)
{
  Packets *p = ctx;
  Flow *f = flow_of_event(p, data);

  if (!f || f->rate_due != sim_engine_now(e) || f->rc >= f->line)
    return;
  dcqcn_increase(f);
  f->t_stage++;
  if (f->rc < f->line)
    dcqcn_arm_rate(p, (guint32)data, f);
}

static void on_alpha_timer(SimEngine *e, void *ctx, guint64 data)
{
  Packets *p = ctx;
  Flow *f = flow_of_event(p, data);

  if (!f || f->alpha_due != sim_engine_now(e))
    return;
  if (!f->cnp_since_alpha)
    f->alpha *= 1 - f->dc->dcqcn_g;
  f->cnp_since_alpha = FALSE;
  if (f->rc < f->line || f->alpha > 1e-6)
    dcqcn_arm_alpha(p, (guint32)data, f);
}

/* A packet of f left the source: pacing (the transfer's cap, the DCQCN
 * rate) and DCQCN's byte counter. */
static void paced_sent(Packets *p, Flow *f, const Packet *k, SimTime now)
{
  if (f->cap > 0)
    f->next_allowed = now + sim_serialize_ps(k->payload, f->cap);
  if (f->ib && f->ccti > 0)
    f->next_allowed = MAX(
        f->next_allowed,
        now + sim_serialize_ps(pkt_wire(f, k), p->port[f->path.hop[0]].rate) +
            f->ccti * f->ib->ibcc_ipd_step);
  if (!f->dc || f->rc >= f->line)
    return;
  f->next_allowed = MAX(f->next_allowed,
                        now + sim_serialize_ps(f->wire_full[f->dc_hop] *
                                                   (double)k->payload / f->mtu,
                                               f->rc));
  f->bc_bytes += k->payload;
  if (f->bc_bytes >= f->dc->dcqcn_byte_counter) {
    f->bc_bytes = 0;
    dcqcn_increase(f);
    f->bc_stage++;
  }
}

/* ---- sending ------------------------------------------------------------ */

/* Gives back `win` wire bytes of credit on channel `in`, VL vl, freed at
 * `freed` (the credit arrives one channel latency later). */
static void return_credit(Packets *p, SimChannelId in, guint32 vl, guint32 win,
                          SimTime freed)
{
  const Port *oi = &p->port[in];

  sim_engine_schedule(p->base.engine, freed + oi->lat, p->k_credit,
                      (guint64)in << 32 | (guint64)vl << 29 |
                          credit_need(oi->link, win));
}

/* A packet that came in on `in` left its node, freed at `freed` (sent on,
 * or dropped): the credit it held comes back, or, under PFC, its bytes
 * leave the ingress count and XON goes out at or below pfc_xon_bytes. */
static void release_in(Packets *p, SimChannelId in, guint32 vl, guint32 win,
                       SimTime freed)
{
  const Port *oi = &p->port[in];
  SimTime now = sim_engine_now(p->base.engine);

  if (oi->link->flow_control == SIM_FC_CREDIT) {
    return_credit(p, in, vl, win, freed);
  } else if (oi->link->flow_control == SIM_FC_PFC) {
    Vl *vi = &p->vl[oi->vl0 + vl];
    vi->ingress_bytes -= win;
    if (vi->xoff_sent && vi->ingress_bytes <= oi->link->pfc_xon_bytes) {
      vi->xoff_sent = FALSE;
      sim_engine_schedule(p->base.engine, now + oi->lat, p->k_pfc,
                          (guint64)in << 32 | (guint64)vl << 1);
    }
  }
}

/* Puts packet ki on channel c now; c is idle. */
static void transmit(Packets *p, SimChannelId c, guint32 ki)
{
  SimEngine *e = p->base.engine;
  SimTime now = sim_engine_now(e);
  Port *o = &p->port[c];
  Packet *k = pkt_at(p, ki);
  Flow *f = flow_at(p, k->flow);
  guint32 wire = pkt_wire(f, k);
  SimTime ser = sim_serialize_ps(wire, o->rate);
  SimTime end = MAX(now + ser, k->hop > 0 ? k->tail : 0);
  gboolean last_hop = k->hop + 1u == f->path.n;
  SimTime arrive;

  if (k->hop > 0) {
    /* the packet leaves this node: its buffer on the way in is free */
    SimChannelId in = f->path.hop[k->hop - 1];
    Port *oi = &p->port[in];
    guint32 win = flow_wire(f, k->seq, k->hop - 1u);
    /* Freed as it is read out: when the packet is the link's own packet,
     * once its tail has left; when it stands for several of the link's
     * packets (4 KiB of RDMA data as 16 PCIe TLPs), once the first of
     * them has: the receiver frees and returns credit per link packet,
     * and a loop per 4 KiB would hold the link below its rate. */
    SimTime freed = end;
    if (oi->link->mtu < k->payload)
      freed = now + sim_serialize_ps((double)wire * oi->link->mtu / k->payload,
                                     o->rate);
    release_in(p, in, k->vl, win, freed);
  }
  if (o->link->flow_control == SIM_FC_CREDIT)
    p->vl[o->vl0 + k->vl].credits -= (gint64)credit_need(o->link, wire);

  o->busy_until = end;
  o->tx_start = now;
  o->tx_wire = wire;
  o->tx_payload = k->payload;
  o->st.packets++;
  o->st.payload_bytes += k->payload;
  o->st.wire_bytes += wire;
  o->st.busy_ps += ser;
  p->st.packet_hops++;

  if (o->link->cut_through && !last_hop) {
    arrive = now +
             sim_serialize_ps(MIN(o->link->cut_through_bytes, wire), o->rate) +
             o->lat;
    k->tail = end + o->lat;
  } else {
    arrive = end + o->lat;
    k->tail = arrive;
  }
  if (!last_hop) {
    arrive += o->next_lat;
    k->tail += o->next_lat;
  }
  sim_engine_schedule(e, arrive, p->k_arrive, ki);
}

/* Can channel c send a packet of `wire` bytes on v now as far as credit
 * goes?  A packet larger than the whole buffer goes when it is empty.
 * Records stalls. */
static gboolean has_credit(Packets *p, SimChannelId c, Vl *v, guint32 wire)
{
  Port *o = &p->port[c];
  guint64 need;

  if (o->link->flow_control != SIM_FC_CREDIT)
    return TRUE;
  need = MIN(credit_need(o->link, wire), o->link->buffer_bytes);
  if (v->credits >= (gint64)need)
    return TRUE;
  if (!o->stalled) {
    o->st.credit_stalls++;
    p->st.credit_stalls++;
    o->stalled = TRUE;
    o->stall_since = sim_engine_now(p->base.engine);
  }
  return FALSE;
}

static gboolean port_has_work(const Packets *p, const Port *o)
{
  for (guint32 i = 0; i < o->n_vl; i++) {
    const Vl *v = &p->vl[o->vl0 + i];
    if (v->head != NIL || v->local != NIL)
      return TRUE;
  }
  return FALSE;
}

/* The next eligible local flow of v, unlinking finished ones; NIL if none
 * may send now (*wake: the earliest paced time, if any). */
static guint32 pick_local(Packets *p, Vl *v, SimTime now, SimTime *wake)
{
  guint32 n = v->n_local;

  while (n-- > 0 && v->local != NIL) {
    guint32 prev = v->local;
    guint32 fi = flow_at(p, prev)->next_local;
    Flow *f = flow_at(p, fi);

    if (f->done || f->next_seq >= f->n_pkts) {
      ring_remove(p, v, prev, fi);
      flow_release(p, fi);
      continue;
    }
    v->local = fi; /* round robin: fi goes last */
    if (f->next_allowed <= now)
      return fi;
    *wake = MIN(*wake, f->next_allowed);
  }
  return NIL;
}

static void rto_arm_at(Packets *p, guint32 fi, Flow *f, SimTime when)
{
  f->rto_due = when;
  f->rto_expected = f->expected;
  f->rto_ev = sim_engine_schedule_cancellable(p->base.engine, f->rto_due,
                                              p->k_rto, flow_ev(fi, f->gen));
}

static void rto_arm(Packets *p, guint32 fi, Flow *f)
{
  rto_arm_at(p, fi, f, sim_engine_now(p->base.engine) + f->rto);
}

static guint32 new_packet(Packets *p, guint32 fi)
{
  Flow *f = flow_at(p, fi);
  guint32 ki = sim_pool_alloc(&p->packets);
  Packet *k = pkt_at(p, ki);
  guint32 seq = f->next_seq++;

  k->next = NIL;
  k->flow = fi;
  k->seq = seq;
  k->payload = seq + 1 == f->n_pkts ? f->last_payload : f->mtu;
  k->hop = 0;
  k->vl = (guint8)f->vl;
  k->ecn = 0;
  k->tail = 0;
  f->alive++;
  p->st.packets_injected++;
  if (seq < f->high_seq)
    p->st.packets_resent++;
  else
    f->high_seq = seq + 1;
  p->st.peak_packets = MAX(p->st.peak_packets, p->packets.in_use);
  if (f->rto && !f->rto_due)
    rto_arm(p, fi, f);
  return ki;
}

static void port_kick(Packets *p, SimChannelId c)
{
  SimEngine *e = p->base.engine;
  SimTime now = sim_engine_now(e);
  Port *o = &p->port[c];
  SimTime wake = G_MAXUINT64;

  if (o->busy_until > now) {
    wake_at(p, c, o->busy_until);
    return;
  }
  for (guint32 i = 0; i < o->n_vl; i++) {
    guint32 vi = (o->rr + i) % o->n_vl;
    Vl *v = &p->vl[o->vl0 + vi];
    guint32 ki = NIL, fi = NIL;
    gboolean transit = v->head != NIL;

    if (v->paused || (!transit && v->local == NIL))
      continue;
    if (v->local != NIL && (!transit || v->turn_local)) {
      fi = pick_local(p, v, now, &wake);
      if (fi == NIL && !transit)
        continue;
    }
    if (fi != NIL) {
      Flow *f = flow_at(p, fi);
      guint32 seq = f->next_seq;
      guint32 wire = flow_wire(f, seq, 0);
      if (!has_credit(p, c, v, wire))
        continue;
      ki = new_packet(p, fi);
      paced_sent(p, f, pkt_at(p, ki), now);
      v->turn_local = FALSE;
    } else {
      Packet *k = pkt_at(p, v->head);
      guint32 wire = pkt_wire(flow_at(p, k->flow), k);
      if (!has_credit(p, c, v, wire))
        continue;
      ki = v->head;
      v->head = k->next;
      if (v->head == NIL)
        v->tail = NIL;
      v->queue_bytes -= wire;
      o->queue_bytes -= wire;
      v->turn_local = TRUE;
    }
    o->rr = (vi + 1) % o->n_vl;
    transmit(p, c, ki);
    if (port_has_work(p, o))
      wake_at(p, c, o->busy_until);
    return;
  }
  if (wake != G_MAXUINT64)
    wake_at(p, c, wake);
}

static void on_wake(SimEngine *e, void *ctx, guint64 data)
{
  Packets *p = ctx;
  SimChannelId c = (SimChannelId)data;

  if (p->port[c].wake_t == sim_engine_now(e))
    p->port[c].wake_pending = FALSE;
  port_kick(p, c);
}

/* ---- arrivals ------------------------------------------------------------- */

static void drop(Packets *p, Port *o, guint32 ki)
{
  Packet *k = pkt_at(p, ki);
  guint32 fi = k->flow;

  o->st.drops++;
  p->st.drops++;
  flow_at(p, fi)->alive--;
  sim_pool_free(&p->packets, ki);
  flow_release(p, fi);
}

static void deliver(Packets *p, guint32 ki)
{
  SimEngine *e = p->base.engine;
  SimTime now = sim_engine_now(e);
  Packet *k = pkt_at(p, ki);
  guint32 fi = k->flow;
  Flow *f = flow_at(p, fi);

  if (!f->done && k->ecn && f->dc &&
      (!f->cnp_ever || now - f->last_cnp >= f->dc->dcqcn_cnp_interval)) {
    f->cnp_ever = TRUE;
    f->last_cnp = now;
    p->st.cnps++;
    sim_engine_schedule(e, now + f->path_lat, p->k_cnp, flow_ev(fi, f->gen));
  } else if (!f->done && k->ecn && !f->dc && f->ib) {
    /* a BECN for every FECN */
    sim_engine_schedule(e, now + f->path_lat, p->k_cnp, flow_ev(fi, f->gen));
  }
  if (!f->done) {
    if (k->seq == f->expected) {
      f->expected++;
      f->last_progress = now;
      f->nak_sent = FALSE;
    } else if (k->seq > f->expected && !f->nak_sent) {
      /* one NAK per gap (IBTA RC: no other until the expected packet
       * comes); a resent packet lost again is the timer's */
      f->nak_sent = TRUE;
      f->nak_seq = f->expected;
      p->st.naks++;
      sim_engine_schedule(e, now + f->path_lat, p->k_nak, flow_ev(fi, f->gen));
    }
  }
  f->alive--;
  sim_pool_free(&p->packets, ki);
  if (!f->done && f->expected == f->n_pkts)
    flow_done(p, fi);
  else
    flow_release(p, fi);
}

/* Puts packet ki, of `wire` bytes on the way out, at the end of v's FIFO
 * at port o. */
static void queue_packet(Packets *p, Port *o, Vl *v, guint32 ki, guint32 wire)
{
  pkt_at(p, ki)->next = NIL;
  if (v->tail == NIL)
    v->head = ki;
  else
    pkt_at(p, v->tail)->next = ki;
  v->tail = ki;
  v->queue_bytes += wire;
  o->queue_bytes += wire;
}

static gboolean ecn_mark(Packets *p, const SimPacketLink *l, guint64 q)
{
  double prob;

  if (q <= l->ecn_kmin_bytes)
    return FALSE;
  if (q > l->ecn_kmax_bytes)
    return TRUE;
  prob = l->ecn_pmax * (double)(q - l->ecn_kmin_bytes) /
         (double)(l->ecn_kmax_bytes - l->ecn_kmin_bytes);
  return sim_rng_uniform(&p->rng) < prob;
}

static void on_arrive(SimEngine *e, void *ctx, guint64 data)
{
  Packets *p = ctx;
  SimTime now = sim_engine_now(e);
  guint32 ki = (guint32)data;
  Packet *k = pkt_at(p, ki);
  Flow *f = flow_at(p, k->flow);
  SimChannelId in = f->path.hop[k->hop], out;
  Port *oi = &p->port[in], *oo;
  guint32 win = pkt_wire(f, k), wout;
  Vl *v;

  if (k->hop + 1u == f->path.n) {
    /* consumed at once: nothing enters a PFC ingress count here */
    if (oi->link->flow_control == SIM_FC_CREDIT)
      return_credit(p, in, k->vl, win, now);
    deliver(p, ki);
    return;
  }
  k->hop++;
  out = f->path.hop[k->hop];
  oo = &p->port[out];
  wout = pkt_wire(f, k);
  v = &p->vl[oo->vl0 + k->vl];
  if (oi->link->flow_control == SIM_FC_PFC) {
    Vl *vi = &p->vl[oi->vl0 + k->vl];
    const SimPacketLink *l = oi->link;
    if (vi->ingress_bytes + win > l->pfc_xoff_bytes + l->pfc_headroom_bytes) {
      drop(p, oo, ki);
      return;
    }
    vi->ingress_bytes += win;
    if (!vi->xoff_sent && vi->ingress_bytes >= l->pfc_xoff_bytes) {
      vi->xoff_sent = TRUE;
      p->st.pauses++;
      sim_engine_schedule(e, now + oi->lat, p->k_pfc,
                          (guint64)in << 32 | (guint64)k->vl << 1 | 1);
    }
  }
  if (oo->link->flow_control == SIM_FC_LOSSY &&
      oo->queue_bytes + wout > oo->link->buffer_bytes) {
    release_in(p, in, k->vl, win, now);
    drop(p, oo, ki);
    return;
  }
  if (oo->link->ecn && ecn_mark(p, oo->link, oo->queue_bytes)) {
    k->ecn = 1;
    oo->st.ecn_marks++;
    p->st.ecn_marks++;
  } else if (oo->link->ibcc_mark &&
             oo->queue_bytes >= oo->link->ibcc_threshold_bytes &&
             oo->fecn_skip++ >= oo->link->ibcc_marking_rate) {
    oo->fecn_skip = 0;
    k->ecn = 1;
    oo->st.ecn_marks++;
    p->st.fecn_marks++;
  }
  queue_packet(p, oo, v, ki, wout);
  oo->st.max_queue_bytes = MAX(oo->st.max_queue_bytes, oo->queue_bytes);
  touch(p, out);
  port_kick(p, out);
}

/* ---- control messages ------------------------------------------------- */

static void on_credit(SimEngine *e, void *ctx, guint64 data)
{
  Packets *p = ctx;
  SimChannelId c = (SimChannelId)(data >> 32);
  guint32 vl = (guint32)(data >> 29) & 7u;
  Port *o = &p->port[c];

  p->vl[o->vl0 + vl].credits += (gint64)(data & ((1u << 29) - 1));
  if (o->stalled) {
    o->stalled = FALSE;
    o->st.credit_stall_ps += sim_engine_now(e) - o->stall_since;
  }
  port_kick(p, c);
}

static void on_pfc(SimEngine *e, void *ctx, guint64 data)
{
  Packets *p = ctx;
  SimChannelId c = (SimChannelId)(data >> 32);
  guint32 vl = (guint32)(data >> 1) & 7u;
  gboolean on = data & 1;
  Port *o = &p->port[c];
  Vl *v = &p->vl[o->vl0 + vl];
  SimTime now = sim_engine_now(e);

  if (v->paused == on)
    return;
  v->paused = on;
  if (on) {
    o->st.pauses++;
    if (o->n_paused++ == 0)
      o->paused_since = now;
  } else {
    if (--o->n_paused == 0)
      o->st.paused_ps += now - o->paused_since;
    port_kick(p, c);
  }
}

static void rewind_to(Packets *p, guint32 fi, guint32 seq)
{
  Flow *f = flow_at(p, fi);

  if (f->next_seq <= seq)
    return;
  f->next_seq = seq;
  ring_add(p, fi);
  port_kick(p, f->path.hop[0]);
}

static void on_nak(SimEngine *e, void *ctx, guint64 data)
{
  Packets *p = ctx;
  Flow *f = flow_of_event(p, data);

  (void)e;
  if (f)
    rewind_to(p, (guint32)data, f->nak_seq);
}

/* The retransmit timer, as an RC requester's ACK timeout: it runs while
 * the flow has packets out, and fires when the receiver made no progress
 * for a whole period; the sender then resends from the first packet not
 * delivered. */
static void on_rto(SimEngine *e, void *ctx, guint64 data)
{
  Packets *p = ctx;
  Flow *f = flow_of_event(p, data);
  guint32 fi = (guint32)data;

  if (!f || f->rto_due != sim_engine_now(e))
    return;
  f->rto_due = 0;
  if (f->expected != f->rto_expected) {
    /* progress since: a period after the last of it, as a requester
     * restarts its timer on every ACK */
    rto_arm_at(p, fi, f, f->last_progress + f->rto);
    return;
  }
  if (f->high_seq > f->expected) {
    p->st.timeouts++;
    rewind_to(p, fi, f->expected);
  }
  rto_arm(p, fi, f);
}

static void on_sample(SimEngine *e, void *ctx, guint64 data)
{
  Packets *p = ctx;
  SimTime now = sim_engine_now(e);
  guint32 keep = 0;

  (void)data;
  p->sample_pending = FALSE;
  for (guint32 i = 0; i < p->touched->len; i++) {
    SimChannelId c = g_array_index(p->touched, SimChannelId, i);
    Port *o = &p->port[c];
    SimQueueSample s = {now, c, o->queue_bytes};
    g_array_append_val(p->samples, s);
    if (o->queue_bytes > 0)
      g_array_index(p->touched, SimChannelId, keep++) = c;
    else
      o->touched = FALSE;
  }
  g_array_set_size(p->touched, keep);
  /* on while transfers move: not when nothing else is left to happen (a
   * stall, which sim_dag_check_finished then reports) */
  if (p->base.in_flight > 0 && sim_engine_pending(e) > 0) {
    p->sample_pending = TRUE;
    sim_engine_schedule(e, now + p->sample_interval, p->k_sample, 0);
  }
}

static void on_zero(SimEngine *e, void *ctx, guint64 data)
{
  Packets *p = ctx;
  Xfer *x = sim_pool_at(&p->xfers, (guint32)data);
  guint64 tag = x->tag;

  (void)e;
  sim_pool_free(&p->xfers, (guint32)data);
  sim_transport_finish(&p->base, tag);
}

/* ---- a flow alone on its path: its closed form ------------------------ */

/* A flow that starts on a path no other flow uses, whose channels are
 * idle, and on which nothing can queue, mark, pause, drop or stall its
 * packets (lone_try lists the conditions) moves every packet as
 * transmit() and on_arrive() would, each one period after the one before:
 * its packets need no events.  Its times on each hop are kept for its
 * first and its last packet (packet k < n - 1 is the first, k periods
 * later); one event at its last delivery ends it, and its channels'
 * counters take its packets then.  A flow that starts on one of its
 * channels first puts its packets where they are at that instant, its
 * counters, credits and the credits on their way back as they are
 * (lone_settle), and both go on packet by packet.  What it schedules then
 * runs after the events of that picosecond that packet by packet it would
 * have preceded: the one way the two can part (docs/transports.md). */

typedef struct {
  SimTime b;    /* the packet starts to leave on the hop */
  SimTime e;    /* the hop's channel is busy until */
  SimTime arr;  /* its ARRIVE at the hop's end; on the last hop, delivery */
  SimTime tail; /* all of it at the hop's end */
  SimTime rel;  /* its buffer at the hop's end given up (sent on, taken) */
  SimTime cred; /* the credit for it back at the hop's sender */
} HopTimes;

typedef struct {
  SimTime period; /* between packets' starts on any hop, but the last's */
  HopTimes first[SIM_PATH_MAX_HOPS], last[SIM_PATH_MAX_HOPS];
} Lone;

/* Packet seq of f starting to leave its source at b0: its times on each
 * hop, as transmit() and on_arrive() give them, where the packet before it
 * (prev, or none) keeps a hop busy until prev[h].e (the short last packet
 * can come in before the full one before it has left: it waits). */
static void lone_packet(Packets *p, const Flow *f, guint32 seq, SimTime b0,
                        const HopTimes *prev, HopTimes *t)
{
  guint32 payload = seq + 1 == f->n_pkts ? f->last_payload : f->mtu;
  guint32 n = f->path.n;

  for (guint32 h = 0; h < n; h++) {
    const Port *o = &p->port[f->path.hop[h]];
    guint32 wire = flow_wire(f, seq, h);
    SimTime ser = sim_serialize_ps(wire, o->rate);
    SimTime b = h == 0 ? b0 : MAX(t[h - 1].arr, prev ? prev[h].e : 0);
    HopTimes *x = &t[h];

    x->b = b;
    x->e = MAX(b + ser, h > 0 ? t[h - 1].tail : 0);
    if (o->link->cut_through && h + 1 < n) {
      x->arr =
          b + sim_serialize_ps(MIN(o->link->cut_through_bytes, wire), o->rate) +
          o->lat;
      x->tail = x->e + o->lat;
    } else {
      x->arr = x->tail = x->e + o->lat;
    }
    if (h + 1 < n) {
      x->arr += o->next_lat;
      x->tail += o->next_lat;
    }
    if (h > 0) {
      /* transmit(): the buffer the packet came in to is free */
      const Port *oi = &p->port[f->path.hop[h - 1]];
      SimTime freed = x->e;
      if (oi->link->mtu < payload)
        freed = b + sim_serialize_ps((double)wire * oi->link->mtu / payload,
                                     o->rate);
      t[h - 1].rel = b;
      t[h - 1].cred = freed + oi->lat;
    }
  }
  /* on_arrive(): taken at once at the path's end, its credit sent back */
  t[n - 1].rel = t[n - 1].arr;
  t[n - 1].cred = t[n - 1].arr + p->port[f->path.hop[n - 1]].lat;
}

/* The times of packet k of f on hop h. */
static HopTimes lone_at(const Flow *f, const Lone *l, guint32 k, guint32 h)
{
  HopTimes x;
  SimTime d;

  if (k + 1 == f->n_pkts)
    return l->last[h];
  x = l->first[h];
  d = (SimTime)k * l->period;
  x.b += d;
  x.e += d;
  x.arr += d;
  x.tail += d;
  x.rel += d;
  x.cred += d;
  return x;
}

/* How many of the n packets have a time before T (at or before, with
 * incl), the time of packet k being first + k x period for k < n - 1 and
 * last for the last (an increasing sequence).  What falls on T itself has
 * not happened yet when another event runs at T: packet by packet it
 * would be an event at T too, which runs after it where it was scheduled
 * after it (docs/transports.md: simultaneous events). */
static guint32 lone_count(guint32 n, SimTime first, SimTime period,
                          SimTime last, SimTime T, gboolean incl)
{
  guint64 c;

  if (!incl) {
    if (T == 0)
      return 0;
    T--;
  }
  if (last <= T)
    return n; /* all: a flow's end */
  if (n == 1)
    return 0;
  c = T < first ? 0 : MIN((guint64)n - 1, (T - first) / period + 1);
  if (c == n - 1 && last <= T)
    c = n;
  return (guint32)c;
}

#define LONE_COUNT(f, l, h, field, T, incl)                                    \
  lone_count((f)->n_pkts, (l)->first[h].field, (l)->period,                    \
             (l)->last[h].field, T, incl)

/* What hop h of lone flow f has carried by T: `sent` packets started on
 * it, the first of them by its own events; the rest (`virt`, `full` of
 * them full-sized) in closed form, with their bytes and busy time, the
 * largest that came to the hop's queue, and the last one started. */
typedef struct {
  guint32 sent, virt, full;
  guint64 payload, wire;
  SimTime busy;
  guint32 max_wire;
  HopTimes tx; /* the last one started (when virt > 0) */
  guint32 tx_wire, tx_payload;
} LoneHop;

/* Of `all` packets 0 .. all - 1, those past the first, which went by its
 * own events. */
static inline guint32 past_first(guint32 all)
{
  return all > 0 ? all - 1 : 0;
}

static void lone_hop(Packets *p, const Flow *f, const Lone *l, guint32 h,
                     SimTime T, gboolean incl, LoneHop *s)
{
  double rate = p->port[f->path.hop[h]].rate;
  guint32 wf = f->wire_full[h], wl = f->wire_last[h];
  gboolean last;

  memset(s, 0, sizeof *s);
  s->sent = LONE_COUNT(f, l, h, b, T, incl);
  if (h == 0) /* the first left as the flow started */
    s->sent = MAX(s->sent, 1);
  last = s->sent == f->n_pkts;
  s->virt = past_first(s->sent);
  s->full = s->virt - (last ? 1 : 0);
  s->payload = (guint64)s->full * f->mtu + (last ? f->last_payload : 0);
  s->wire = (guint64)s->full * wf + (last ? wl : 0);
  s->busy = (SimTime)s->full * sim_serialize_ps(wf, rate) +
            (last ? sim_serialize_ps(wl, rate) : 0);
  if (h > 0) {
    guint32 came = LONE_COUNT(f, l, h - 1, arr, T, incl);
    guint32 full_came = past_first(came) - (came == f->n_pkts);

    s->max_wire = MAX(full_came ? wf : 0, came == f->n_pkts ? wl : 0);
  }
  if (s->virt > 0) {
    s->tx = lone_at(f, l, s->sent - 1, h);
    s->tx_wire = last ? wl : wf;
    s->tx_payload = last ? f->last_payload : f->mtu;
  }
}

/* What channel c has carried so far of the lone flow on it, if any (what
 * falls on this instant not yet): counters asked for mid-run. */
static gboolean lone_so_far(Packets *p, SimChannelId c, LoneHop *s)
{
  const Flow *f;
  guint32 h = 0;

  if (p->port[c].lone == NIL)
    return FALSE;
  f = flow_at(p, p->port[c].lone);
  while (f->path.hop[h] != c)
    h++;
  lone_hop(p, f, sim_pool_at(&p->lones, f->lone), h,
           sim_engine_now(p->base.engine), FALSE, s);
  return TRUE;
}

/* Queues packet ki of f, come in on its hop, at the port of its next hop,
 * as on_arrive() does (the port is busy: it wakes when free). */
static void lone_enqueue(Packets *p, const Flow *f, guint32 ki)
{
  Packet *k = pkt_at(p, ki);
  SimChannelId in = f->path.hop[k->hop], out = f->path.hop[k->hop + 1];
  Port *oi = &p->port[in], *oo = &p->port[out];
  Vl *v = &p->vl[oo->vl0 + k->vl];
  guint32 wout;

  if (oi->link->flow_control == SIM_FC_PFC)
    p->vl[oi->vl0 + k->vl].ingress_bytes += pkt_wire(f, k);
  k->hop++;
  wout = pkt_wire(f, k);
  queue_packet(p, oo, v, ki, wout);
  wake_at(p, out, oo->busy_until);
}

/* Puts lone flow fi's state at T (now; what falls on T counted with incl)
 * into the packet-by-packet records: counters, the channels' last
 * packets, credits and the credit on its way back, its packets still
 * travelling (each with its ARRIVE), and the flow's sequence numbers; its
 * channels are free for other flows. */
static void lone_settle(Packets *p, guint32 fi, SimTime T, gboolean incl)
{
  Flow *f = flow_at(p, fi);
  Lone *l = sim_pool_at(&p->lones, f->lone);
  guint32 n = f->n_pkts, nh = f->path.n, sent0 = 0, got;

  for (guint32 h = 0; h < nh; h++) {
    SimChannelId c = f->path.hop[h];
    Port *o = &p->port[c];
    Vl *v = &p->vl[o->vl0 + f->vl];
    LoneHop s;

    o->lone = NIL;
    lone_hop(p, f, l, h, T, incl, &s);
    if (h == 0)
      sent0 = s.sent;
    if (s.virt == 0)
      continue;
    o->st.packets += s.virt;
    o->st.payload_bytes += s.payload;
    o->st.wire_bytes += s.wire;
    o->st.busy_ps += s.busy;
    p->st.packet_hops += s.virt;
    /* queued as it came in: for an instant, or the last while the one
     * before it leaves */
    o->st.max_queue_bytes = MAX(o->st.max_queue_bytes, s.max_wire);
    o->busy_until = s.tx.e;
    o->tx_start = s.tx.b;
    o->tx_wire = s.tx_wire;
    o->tx_payload = s.tx_payload;
    o->rr = (f->vl + 1) % o->n_vl;
    v->turn_local = h > 0;
    if (o->link->flow_control == SIM_FC_CREDIT) {
      guint64 nf = credit_need(o->link, f->wire_full[h]);
      guint64 nl = credit_need(o->link, f->wire_last[h]);
      guint32 rel = LONE_COUNT(f, l, h, rel, T, incl);
      guint32 back = LONE_COUNT(f, l, h, cred, T, incl);

      /* taken as they left, back for those whose credit has come (the
       * first packet's by its own events) */
      v->credits -= (gint64)(s.full * nf + (s.sent == n ? nl : 0));
      v->credits += (gint64)((past_first(back) - (back == n)) * nf +
                             (back == n ? nl : 0));
      for (guint32 k = MAX(back, 1); k < rel; k++)
        sim_engine_schedule(
            p->base.engine, lone_at(f, l, k, h).cred, p->k_credit,
            (guint64)c << 32 | (guint64)f->vl << 29 | (k + 1 == n ? nl : nf));
    }
  }
  /* delivered past the first (which came before them, by its events) */
  got = past_first(LONE_COUNT(f, l, nh - 1, arr, T, incl));
  for (guint32 k = 1 + got; k < sent0; k++) {
    guint32 h = nh - 1;
    guint32 ki = sim_pool_alloc(&p->packets);
    Packet *pk = pkt_at(p, ki);
    HopTimes x;

    while (h > 0 &&
           (incl ? lone_at(f, l, k, h).b > T : lone_at(f, l, k, h).b >= T))
      h--;
    x = lone_at(f, l, k, h);
    pk->next = NIL;
    pk->flow = fi;
    pk->seq = k;
    pk->payload = k + 1 == n ? f->last_payload : f->mtu;
    pk->hop = (guint8)h;
    pk->vl = (guint8)f->vl;
    pk->ecn = 0;
    pk->tail = x.tail;
    f->alive++;
    if (h + 1 < nh && (incl ? x.arr <= T : x.arr < T)) {
      /* come to hop h + 1, waiting there for the packet before it */
      lone_enqueue(p, f, ki);
      continue;
    }
    sim_engine_schedule(p->base.engine, x.arr, p->k_arrive, ki);
  }
  f->next_seq = f->high_seq = sent0;
  f->expected += got;
  if (got)
    f->last_progress = lone_at(f, l, got, nh - 1).arr;
  if (f->cap > 0 && sent0 > 1)
    f->next_allowed =
        lone_at(f, l, sent0 - 1, 0).b +
        sim_serialize_ps(sent0 == n ? f->last_payload : f->mtu, f->cap);
  p->st.packets_injected += sent0 - 1;
  p->st.peak_packets = MAX(p->st.peak_packets, p->packets.in_use);
  sim_pool_free(&p->lones, f->lone);
  f->lone = NIL;
}

/* A flow starts on a channel of lone flow fi: fi goes on packet by
 * packet from now. */
static void lone_demote(Packets *p, guint32 fi)
{
  Flow *f = flow_at(p, fi);
  SimTime now = sim_engine_now(p->base.engine);
  SimChannelId c0 = f->path.hop[0];

  lone_settle(p, fi, now, FALSE);
  p->st.lone_settled++;
  f->lone_end = FALSE;
  if (f->next_seq < f->n_pkts) {
    ring_add(p, fi);
    /* a packet due now leaves after this event, as its WAKE would */
    if (MAX(p->port[c0].busy_until, f->next_allowed) <= now)
      wake_at(p, c0, now);
    else
      port_kick(p, c0);
  }
}

static void on_lone_end(SimEngine *e, void *ctx, guint64 data)
{
  Packets *p = ctx;
  Flow *f = flow_of_event(p, data);
  guint32 fi = (guint32)data;

  if (!f || !f->lone_end)
    return;
  f->lone_end = FALSE;
  if (f->lone != NIL)
    lone_settle(p, fi, sim_engine_now(e), TRUE);
  flow_done(p, fi);
}

/* Whether hop h's credit can run short for lone flow f: its own packets
 * not yet credited back (a credit due at the instant counted as not back)
 * against the credit the hop has now, which other flows' returns only
 * raise. */
static gboolean lone_credit_short(Packets *p, const Flow *f, const Lone *l,
                                  guint32 h)
{
  const Port *o = &p->port[f->path.hop[h]];
  const SimPacketLink *k = o->link;
  gint64 c0 = p->vl[o->vl0 + f->vl].credits;
  gint64 nf = (gint64)credit_need(k, f->wire_full[h]);
  gint64 nl = (gint64)credit_need(k, f->wire_last[h]);
  gint64 cap = (gint64)k->buffer_bytes;
  guint32 n = f->n_pkts;
  guint64 out, due;

  if (k->flow_control != SIM_FC_CREDIT)
    return FALSE;
  if (n == 1)
    return c0 < MIN(nl, cap);
  /* a full packet k: min(k, D / period) of those before it are out */
  due = l->first[h].cred - l->first[h].b;
  out = MIN((guint64)n - 2, due / l->period);
  if (c0 - (gint64)out * nf < MIN(nf, cap))
    return TRUE;
  /* the last: those before it whose credit is due at or after it starts */
  if (l->last[h].b <= l->first[h].cred)
    out = n - 1;
  else
    out = (guint64)n - 1 -
          MIN((guint64)n - 1,
              (l->last[h].b - l->first[h].cred + l->period - 1) / l->period);
  return c0 - (gint64)out * nf < MIN(nl, cap);
}

/* Whether lone flow f's packets, timed in l, can run in closed form: each
 * hop free when the next full packet comes (a slower hop after the first
 * queues them), no XOFF or drop coming in, none dropped at an empty
 * queue, credit never short. */
static gboolean lone_fits(Packets *p, const Flow *f, const Lone *l)
{
  guint32 n = f->n_pkts;

  for (guint32 h = 0; h < f->path.n; h++) {
    const Port *o = &p->port[f->path.hop[h]];
    guint32 w = MAX(f->wire_full[h], f->wire_last[h]);

    if (h > 0) {
      const Port *oi = &p->port[f->path.hop[h - 1]];
      guint32 wi = MAX(f->wire_full[h - 1], f->wire_last[h - 1]);
      /* the hop free when each next full packet comes */
      if (n > 2 && l->first[h].e > l->first[h - 1].arr + l->period)
        return FALSE;
      /* no XOFF, no drop coming in; none dropped at an empty queue */
      if (oi->link->flow_control == SIM_FC_PFC &&
          (p->vl[oi->vl0 + f->vl].xoff_sent ||
           p->vl[oi->vl0 + f->vl].ingress_bytes + wi >=
               oi->link->pfc_xoff_bytes))
        return FALSE;
      if (o->link->flow_control == SIM_FC_LOSSY && w > o->link->buffer_bytes)
        return FALSE;
    }
    if (lone_credit_short(p, f, l, h))
      return FALSE;
  }
  return TRUE;
}

/* Runs flow fi, just set up on its path, in closed form if it can: alone
 * on idle channels, no packet of it queued at a hop (each hop free when
 * the next packet comes), none marked, paused, dropped or short of credit
 * (checked against what the hops hold now), no retransmit timer, no queue
 * sampling, and no resent packet anywhere (a stray copy could still be on
 * its way). */
static gboolean lone_try(Packets *p, guint32 fi)
{
  Flow *f = flow_at(p, fi);
  SimTime now = sim_engine_now(p->base.engine);
  guint32 n = f->n_pkts, nh = f->path.n, li;
  Lone *l;

  if (!p->lone_on || p->sample_interval || p->st.packets_resent || f->rto ||
      n < 2)
    return FALSE;
  for (guint32 h = 0; h < nh; h++) {
    const Port *o = &p->port[f->path.hop[h]];
    /* a path that crosses a port twice meets its own packets there */
    if (sim_path_repeats(&f->path, h) || o->lone != NIL ||
        o->active_flows != 1 || o->busy_until > now || o->queue_bytes ||
        o->stalled || o->n_paused || port_has_work(p, o) ||
        (o->link->ibcc_mark && o->link->ibcc_threshold_bytes == 0))
      return FALSE;
  }
  li = sim_pool_alloc(&p->lones);
  l = sim_pool_at(&p->lones, li);
  lone_packet(p, f, 0, now, NULL, l->first);
  l->period =
      MAX(sim_serialize_ps(f->wire_full[0], p->port[f->path.hop[0]].rate),
          f->cap > 0 ? sim_serialize_ps(f->mtu, f->cap) : 0);
  {
    HopTimes prev[SIM_PATH_MAX_HOPS];
    for (guint32 h = 0; h < nh; h++)
      prev[h] = lone_at(f, l, n - 2, h);
    lone_packet(p, f, n - 1, now + (SimTime)(n - 1) * l->period, prev, l->last);
  }
  if (!lone_fits(p, f, l)) {
    sim_pool_free(&p->lones, li);
    return FALSE;
  }
  /* the first packet goes by events, as packet by packet: its events
   * (its ARRIVE, the source's WAKE) have their place among this instant's
   * others, so a flow that comes on the path at this instant finds what it
   * would; the rest in closed form, off the source's ring */
  ring_add(p, fi);
  port_kick(p, f->path.hop[0]);
  g_assert(f->next_seq == 1);
  ring_remove(p, &p->vl[p->port[f->path.hop[0]].vl0 + f->vl], fi, fi);
  f->lone = li;
  f->lone_end = TRUE;
  p->st.lone_flows++;
  for (guint32 h = 0; h < nh; h++)
    p->port[f->path.hop[h]].lone = fi;
  sim_engine_schedule(p->base.engine, l->last[nh - 1].arr, p->k_lone,
                      flow_ev(fi, f->gen));
  return TRUE;
}

/* ---- transfers -------------------------------------------------------- */

static guint32 wire_of(Packets *p, SimChannelId c, guint32 payload)
{
  double w = sim_transport_wire_ratio(&p->base, c, payload);

  return (guint32)MAX(llround((double)payload * w), (long long)payload);
}

static void start_flow(Packets *p, guint32 xi, const SimTransfer *x, guint32 i,
                       guint64 bytes)
{
  const SimPath *path = &x->paths[i];
  guint32 fi, gen, mtu = 0;
  Flow *f;

  /* a lone flow on the way goes on packet by packet */
  for (guint32 h = 0; h < path->n; h++)
    if (p->port[path->hop[h]].lone != NIL)
      lone_demote(p, p->port[path->hop[h]].lone);
  fi = sim_pool_alloc(&p->flows);
  f = flow_at(p, fi);
  gen = f->gen;
  memset(f, 0, sizeof *f);
  f->gen = gen + 1;
  f->lone = NIL;
  f->xfer = xi;
  f->path = *path;
  f->path_lat = sim_path_latency_ps(p->base.fabric, path);
  {
    double cap = sim_transfer_path_cap(x, i);
    f->cap = cap < G_MAXDOUBLE ? cap : 0;
  }
  for (guint32 h = 0; h < path->n; h++) {
    Port *o = &p->port[path->hop[h]];
    mtu = MAX(mtu, o->link->mtu);
    /* a flow is on a port once, however often its path crosses it (a
     * dragonfly's Valiant route can) */
    if (sim_path_repeats(path, h))
      continue;
    o->active_flows++;
    o->peak_flows = MAX(o->peak_flows, o->active_flows);
  }
  /* one VL on the whole path: the transfer's, if every hop has it */
  f->vl = x->vl;
  for (guint32 h = 0; h < path->n; h++)
    f->vl = MIN(f->vl, p->port[path->hop[h]].n_vl - 1);
  f->mtu = (guint32)MIN((guint64)mtu, bytes);
  f->n_pkts = (guint32)((bytes + f->mtu - 1) / f->mtu);
  f->last_payload = (guint32)(bytes - (guint64)(f->n_pkts - 1) * f->mtu);
  f->nak_seq = 0;
  f->dc_hop = 0;
  for (guint32 h = 0; h < path->n; h++) {
    const SimPacketLink *l = p->port[path->hop[h]].link;
    f->wire_full[h] = wire_of(p, path->hop[h], f->mtu);
    f->wire_last[h] = wire_of(p, path->hop[h], f->last_payload);
    if ((l->flow_control == SIM_FC_LOSSY || l->flow_control == SIM_FC_PFC) &&
        l->rto && (!f->rto || l->rto < f->rto))
      f->rto = l->rto;
    if (!f->ib && l->ibcc)
      f->ib = l;
    if (!f->dc && l->dcqcn) {
      f->dc = l;
      f->dc_hop = h;
      f->line = p->port[path->hop[h]].rate;
      f->rc = f->rt = f->line;
      f->alpha = 1;
    }
  }
  if (lone_try(p, fi))
    return;
  ring_add(p, fi);
  port_kick(p, path->hop[0]);
}

static void packet_start(SimTransport *t, const SimTransfer *x)
{
  Packets *p = (Packets *)t;
  guint32 xi = sim_pool_alloc(&p->xfers);
  Xfer *xr = sim_pool_at(&p->xfers, xi);
  guint32 n = 0;
  guint64 given = 0;

  xr->tag = x->tag;
  for (guint32 i = 0; i < x->n_paths; i++)
    if (sim_transfer_share_next(x, i, &given) > 0)
      n++;
  xr->left = n;
  if (p->sample_interval && !p->sample_pending) {
    SimTime now = sim_engine_now(t->engine);
    p->sample_pending = TRUE;
    sim_engine_schedule(t->engine,
                        (now / p->sample_interval + 1) * p->sample_interval,
                        p->k_sample, 0);
  }
  if (n == 0) {
    sim_engine_schedule_in(
        t->engine, sim_paths_latency_ps(t->fabric, x->paths, x->n_paths),
        p->k_zero, xi);
    return;
  }
  given = 0;
  for (guint32 i = 0; i < x->n_paths; i++) {
    guint64 b = sim_transfer_share_next(x, i, &given);
    if (b > 0)
      start_flow(p, xi, x, i, b);
  }
}

/* ---- the transport ------------------------------------------------------ */

static void packet_channel_stats(const SimTransport *t, SimChannelId c,
                                 SimChannelStats *out)
{
  Packets *p = (Packets *)t;
  const Port *o = &p->port[c];
  SimTime now = sim_engine_now(t->engine);
  SimTime tx_start = o->tx_start, busy_until = o->busy_until;
  guint32 tx_payload = o->tx_payload, tx_wire = o->tx_wire;
  LoneHop s;

  out->payload_bytes = (double)o->st.payload_bytes;
  out->wire_bytes = (double)o->st.wire_bytes;
  out->busy_ps = o->st.busy_ps;
  if (lone_so_far(p, c, &s)) {
    /* a lone flow's packets so far, counted as transmit() would have */
    out->payload_bytes += (double)s.payload;
    out->wire_bytes += (double)s.wire;
    out->busy_ps += s.busy;
    if (s.virt) {
      tx_start = s.tx.b;
      busy_until = s.tx.e;
      tx_payload = s.tx_payload;
      tx_wire = s.tx_wire;
    }
  }
  /* A packet is counted when it starts to leave: take back the part of
   * it still to go (it leaves evenly over [tx_start, busy_until]), so the
   * counters are exact at any instant. */
  if (busy_until > now && tx_start <= now) {
    double rest = (double)(busy_until - now) / (double)(busy_until - tx_start);

    out->payload_bytes -= rest * tx_payload;
    out->wire_bytes -= rest * tx_wire;
  }
  out->peak_flows = o->peak_flows;
}

static void packet_free(SimTransport *t)
{
  Packets *p = (Packets *)t;

  sim_pool_clear(&p->flows);
  sim_pool_clear(&p->packets);
  sim_pool_clear(&p->xfers);
  sim_pool_clear(&p->lones);
  g_array_free(p->samples, TRUE);
  g_array_free(p->touched, TRUE);
  g_free(p->port);
  g_free(p->vl);
  g_free(p);
}

/* Ports that hold packets and may not send: paused by PFC or out of
 * credit.  With nothing left to happen, they wait on each other: a cycle
 * of full buffers. */
static void packet_explain_stall(const SimTransport *t, GString *out)
{
  const Packets *p = (const Packets *)t;
  guint32 nc = sim_fabric_n_channels(t->fabric), paused = 0, starved = 0;
  SimChannelId first = SIM_NONE;

  for (SimChannelId c = 0; c < nc; c++) {
    const Port *o = &p->port[c];
    if (!port_has_work(p, o))
      continue;
    if (o->n_paused)
      paused++;
    else if (o->stalled)
      starved++;
    else
      continue;
    if (first == SIM_NONE)
      first = c;
  }
  if (first == SIM_NONE)
    return;
  {
    const SimChannel *ch = sim_fabric_channel(t->fabric, first);
    g_string_append_printf(
        out,
        "; %u ports with packets are paused by PFC and %u wait for credit "
        "(the first: %s -> %s): a cycle of full buffers, a PFC or credit "
        "deadlock (routes whose buffer dependencies form a loop)",
        paused, starved, sim_fabric_node_name(t->fabric, ch->src),
        sim_fabric_node_name(t->fabric, ch->dst));
  }
}

static const SimTransportOps packet_ops = {
    .name = "packet",
    .start = packet_start,
    .channel_stats = packet_channel_stats,
    .free = packet_free,
    .explain_stall = packet_explain_stall,
};

SimTransport *sim_packet_new(SimEngine *engine, const SimFabric *fabric,
                             SimPacketLinkFn link, void *link_ctx)
{
  Packets *p = g_new0(Packets, 1);
  guint32 nc = sim_fabric_n_channels(fabric), n_vl = 0;

  sim_transport_init(&p->base, &packet_ops, engine, fabric);
  p->fallback = (SimPacketLink){.mtu = 4096, .n_vl = 1, .credit_unit = 1};
  p->port = g_new0(Port, MAX(nc, 1));
  for (guint32 c = 0; c < nc; c++) {
    Port *o = &p->port[c];
    const SimChannel *ch = sim_fabric_channel(fabric, c);
    o->link = link ? link(link_ctx, c) : &p->fallback;
    /* credit events carry a packet's bytes in 29 bits */
    g_assert(o->link && o->link->mtu > 0 && o->link->mtu < (1u << 28));
    g_assert(o->link->n_vl >= 1 && o->link->n_vl <= SIM_PACKET_MAX_VL);
    o->rate = ch->rate_Bps;
    o->lat = ch->latency_ps;
    o->next_lat = sim_fabric_node(fabric, ch->dst)->latency_ps;
    o->vl0 = n_vl;
    o->n_vl = o->link->n_vl;
    o->lone = NIL;
    n_vl += o->n_vl;
  }
  p->vl = g_new0(Vl, MAX(n_vl, 1));
  for (guint32 c = 0; c < nc; c++) {
    Port *o = &p->port[c];
    for (guint32 v = 0; v < o->n_vl; v++) {
      Vl *vl = &p->vl[o->vl0 + v];
      vl->head = vl->tail = vl->local = NIL;
      vl->credits = (gint64)o->link->buffer_bytes;
    }
  }
  sim_pool_init(&p->flows, sizeof(Flow), 10);
  sim_pool_init(&p->packets, sizeof(Packet), 14);
  sim_pool_init(&p->xfers, sizeof(Xfer), 10);
  sim_pool_init(&p->lones, sizeof(Lone), 6);
  p->lone_on = TRUE;
  sim_rng_init(&p->rng, 1, 0);
  p->samples = g_array_new(FALSE, FALSE, sizeof(SimQueueSample));
  p->touched = g_array_new(FALSE, FALSE, sizeof(SimChannelId));
  p->k_arrive = sim_engine_register(engine, "packet.arrive", on_arrive, p);
  p->k_wake = sim_engine_register(engine, "packet.wake", on_wake, p);
  p->k_credit = sim_engine_register(engine, "packet.credit", on_credit, p);
  p->k_pfc = sim_engine_register(engine, "packet.pfc", on_pfc, p);
  p->k_nak = sim_engine_register(engine, "packet.nak", on_nak, p);
  p->k_cnp = sim_engine_register(engine, "packet.cnp", on_cnp, p);
  p->k_rto = sim_engine_register(engine, "packet.rto", on_rto, p);
  p->k_rate =
      sim_engine_register(engine, "packet.dcqcn_rate", on_rate_timer, p);
  p->k_alpha =
      sim_engine_register(engine, "packet.dcqcn_alpha", on_alpha_timer, p);
  p->k_sample = sim_engine_register(engine, "packet.sample", on_sample, p);
  p->k_zero = sim_engine_register(engine, "packet.zero", on_zero, p);
  p->k_ccti = sim_engine_register(engine, "packet.ibcc_ccti", on_ccti_timer, p);
  p->k_lone = sim_engine_register(engine, "packet.lone_end", on_lone_end, p);
  return &p->base;
}

gboolean sim_transport_is_packet(const SimTransport *t)
{
  return t->ops == &packet_ops;
}

void sim_packet_set_seed(SimTransport *t, guint64 seed)
{
  g_assert(sim_transport_is_packet(t));
  sim_rng_init(&((Packets *)t)->rng, seed, 0);
}

void sim_packet_set_closed_form(SimTransport *t, gboolean on)
{
  g_assert(sim_transport_is_packet(t));
  ((Packets *)t)->lone_on = on;
}

void sim_packet_set_sampling(SimTransport *t, SimTime interval)
{
  g_assert(sim_transport_is_packet(t));
  ((Packets *)t)->sample_interval = interval;
}

const SimQueueSample *sim_packet_samples(const SimTransport *t, gsize *n)
{
  const Packets *p = (const Packets *)t;

  g_assert(sim_transport_is_packet(t));
  *n = p->samples->len;
  return (const SimQueueSample *)(void *)p->samples->data;
}

void sim_packet_port_stats(const SimTransport *t, SimChannelId c,
                           SimPortStats *out)
{
  const Packets *p = (const Packets *)t;
  const Port *o;
  SimTime now = sim_engine_now(t->engine);
  LoneHop s;

  g_assert(sim_transport_is_packet(t));
  g_assert(c < sim_fabric_n_channels(t->fabric));
  o = &p->port[c];
  *out = o->st;
  if (lone_so_far((Packets *)p, c, &s)) {
    out->packets += s.virt;
    out->payload_bytes += s.payload;
    out->wire_bytes += s.wire;
    out->busy_ps += s.busy;
    out->max_queue_bytes = MAX(out->max_queue_bytes, s.max_wire);
  }
  if (o->n_paused)
    out->paused_ps += now - o->paused_since;
  if (o->stalled)
    out->credit_stall_ps += now - o->stall_since;
}

void sim_packet_stats(const SimTransport *t, SimPacketStats *out)
{
  g_assert(sim_transport_is_packet(t));
  *out = ((const Packets *)t)->st;
}
