/* The packet transport: transfers cut into MTU packets that cross the
 * fabric hop by hop, with link-level flow control and congestion control.
 *
 * It implements the SimTransport interface (sim/transport.h), so the DAG
 * executor and the collective planner run on it unchanged
 * (`--fidelity packet`).  What it models, per channel (the output port of
 * its source node):
 *
 *   packets     a transfer's bytes in packets of the largest `mtu` of
 *               its path's channels (a NIC's RDMA packet crosses PCIe as
 *               several TLPs: each hop charges its own framing of the
 *               same bytes); each hop puts wire(p) = round(p * w(c, p))
 *               bytes on its channel (w from the transport's SimWireHook: the link
 *               model's headers, CRCs and framing; w = 1 without one) and
 *               takes ceil(wire / rate) ps to serialize it;
 *   forwarding  output-queued nodes: a packet is queued at the port of its
 *               next hop, per virtual lane (VL, the priority on Ethernet:
 *               SimTransfer.vl, lowered to the fewest VLs of any hop on
 *               the path), VLs served round robin, packets in FIFO order,
 *               a node's own packets taking turns with those it forwards;
 *               a node
 *               forwards a packet once all of it arrived (store and
 *               forward) or, when the channel in is `cut_through`, once
 *               its first `cut_through_bytes` arrived (its tail can never
 *               leave before it arrived); node latency (SimNode.latency_ps)
 *               is added at every node crossed;
 *   credits     SIM_FC_CREDIT (InfiniBand VLs, NVLink, PCIe): the sender
 *               of a channel holds `buffer_bytes` of credit per VL, in
 *               `credit_unit` blocks; a packet starts only with credit for
 *               all its wire bytes; the credit comes back one channel
 *               latency after the packet has left the receiver's buffer
 *               (its tail sent on, or delivered; when it stands for
 *               several of the link's packets, as 4 KiB of RDMA data for
 *               16 PCIe TLPs, once the first of them has left): no packet
 *               is ever lost;
 *   PFC         SIM_FC_PFC (lossless RoCE): the receiver counts the bytes
 *               that came in on a channel per priority and are still in
 *               the node; at `pfc_xoff_bytes` it sends XOFF upstream, at or
 *               below `pfc_xon_bytes` XON, each taking effect one channel latency
 *               later; the sender finishes the packet on the wire and then
 *               sends nothing of that priority while paused.  Beyond
 *               xoff + `pfc_headroom_bytes` a packet is dropped (a
 *               headroom too small for the link's delay);
 *   lossy       SIM_FC_LOSSY: a packet that would take the port's queue
 *               beyond `buffer_bytes` is dropped;
 *   none        SIM_FC_NONE: unbounded queues (ns-3's large DropTail
 *               queues, the analytic cross-checks).
 *
 * Loss recovery is go-back-N, as RoCE NICs do: the receiver accepts only
 * the next packet in order; the first packet past a gap makes it send a
 * NAK (one per gap, as IBTA RC responders do), and the sender, one path
 * latency later, resends from the first missing packet; a retransmit timer
 * (`rto`, the link's; an RC requester's ACK timeout) runs while the flow
 * has packets out and, when the receiver made no progress for a whole
 * period, resends from the first packet not delivered: a resent packet
 * lost again, a lost last packet.
 *
 * Congestion control: a port with `ecn` marks a packet as it is queued,
 * with probability 0 below `ecn_kmin_bytes` of queue, rising linearly to
 * `ecn_pmax` at `ecn_kmax_bytes`, 1 above (RED).  A receiver that gets a
 * marked packet sends a CNP to its sender (at most one per
 * `dcqcn_cnp_interval`), arriving one path latency later.  Flows whose
 * path crosses a channel with `dcqcn` (the NIC's port; the first such one
 * gives the figures and line rate) are paced at their DCQCN rate
 * (Zhu et al., SIGCOMM 2015; the ConnectX rules): a CNP cuts the rate
 * (RT = RC, RC *= 1 - alpha / 2, alpha = (1 - g) alpha + g); without CNP,
 * alpha decays every `dcqcn_alpha_period` (also at line rate, until it is
 * negligible) and the rate recovers each
 * `dcqcn_rate_increase` period and each `dcqcn_byte_counter` bytes sent:
 * fast recovery for 5 events (RC = (RT + RC) / 2), then additive (RT +=
 * rai) and hyper (RT += i * rhai) increase, never above line rate nor
 * below `dcqcn_min_rate`.
 *
 * A transfer's rate cap (SimTransfer.cap_Bps: an endpoint's injection
 * limit) paces its packets at the source: one packet's payload per
 * payload / cap.
 *
 * InfiniBand congestion control (IBTA vol. 1 annex A10), where the links
 * enable it: a switch port with `ibcc_mark` marks FECN on packets queued
 * while its queue holds `ibcc_threshold_bytes` or more (one of every
 * `ibcc_marking_rate` + 1 of them); the receiver returns a BECN for each
 * marked packet, arriving one path latency later; the sender's flow then
 * raises its congestion control table index (CCTI) by
 * `ibcc_ccti_increase`, at most to `ibcc_ccti_limit`, and waits CCTI x
 * `ibcc_ipd_step` between its packets; the index drops by one every
 * `ibcc_ccti_timer`.
 *
 * Control messages (credits, PAUSE, NAK, CNP, BECN) take time but no
 * bandwidth.
 * A transfer is done when its last byte has been delivered in order.  A
 * path set's shares run as separate flows.
 *
 * A flow alone on idle channels, on which nothing can queue, mark, pause,
 * drop or stall its packets, runs in closed form: its first packet by
 * events, the rest one period apart as those events would move them,
 * without an event per packet and hop; a flow that comes on its path puts
 * its packets where they are at that instant and both go on packet by
 * packet (sim/packet.c, "a flow alone on its path"; the same times and
 * counters but for the order of simultaneous events, docs/transports.md;
 * sim_packet_set_closed_form turns it off). */
#ifndef SIM_PACKET_H
#define SIM_PACKET_H

#include <glib.h>

#include "sim/transport.h"

typedef enum {
  SIM_FC_NONE,
  SIM_FC_CREDIT,
  SIM_FC_PFC,
  SIM_FC_LOSSY,
} SimFlowControl;

/* What the packet transport needs to know of one channel: the link's
 * packets and flow control, and (on Ethernet) ECN and DCQCN.  Builders
 * derive it from the link and switch models (topologies/packet.c). */
typedef struct {
  guint32 mtu;               /* payload bytes per packet, 1 .. 2^28 - 1 */
  guint32 flow_control;      /* SimFlowControl */
  guint32 n_vl;              /* VLs / priorities, 1 .. SIM_PACKET_MAX_VL */
  gboolean cut_through;      /* the receiving node forwards on the header */
  guint32 cut_through_bytes; /* bytes that must arrive before forwarding */
  guint64 buffer_bytes;      /* CREDIT: receive buffer per VL; LOSSY: the
                                port's queue limit */
  guint32 credit_unit;       /* CREDIT: bytes per credit (>= 1) */
  guint64 pfc_xoff_bytes, pfc_xon_bytes, pfc_headroom_bytes; /* PFC */
  gboolean ecn; /* RED marking at this port */
  guint64 ecn_kmin_bytes, ecn_kmax_bytes;
  double ecn_pmax;
  gboolean dcqcn; /* flows starting here run DCQCN */
  double dcqcn_g;
  SimTime dcqcn_alpha_period;  /* alpha decay timer (55 us in DCQCN) */
  SimTime dcqcn_rate_increase; /* rate increase timer */
  guint64 dcqcn_byte_counter;  /* bytes per rate increase event */
  double dcqcn_rai_Bps, dcqcn_rhai_Bps, dcqcn_min_rate_Bps;
  SimTime dcqcn_cnp_interval; /* receiver: least time between CNPs */
  SimTime rto;                /* go-back-N retransmit timeout */
  /* InfiniBand congestion control (IBTA vol. 1 annex A10) */
  gboolean ibcc;                /* flows entering here obey BECNs */
  gboolean ibcc_mark;           /* this (switch) port marks FECN */
  guint64 ibcc_threshold_bytes; /* queue depth that makes packets eligible */
  guint32 ibcc_marking_rate;    /* eligible packets not marked between marks */
  guint32 ibcc_ccti_increase;   /* CCTI steps per BECN */
  guint32 ibcc_ccti_limit;      /* the highest CCTI */
  SimTime ibcc_ccti_timer;      /* one CCTI step back per period */
  SimTime ibcc_ipd_step;        /* inter-packet delay per CCTI step (the
                                 congestion control table, linear) */
} SimPacketLink;

#define SIM_PACKET_MAX_VL 8

/* The packet parameters of channel c; called once per channel when the
 * transport is created.  The pointer must stay valid as long as the
 * transport. */
typedef const SimPacketLink *(*SimPacketLinkFn)(void *ctx, SimChannelId c);

/* Per-channel counters (the output port at the channel's source). */
typedef struct {
  guint64 packets;       /* packets sent on the channel (incl. resent) */
  guint64 payload_bytes; /* their payload */
  guint64 wire_bytes;    /* their wire bytes */
  guint64 drops;         /* packets dropped entering this port's node
                             queue (LOSSY) or its headroom (PFC) */
  guint64 ecn_marks;     /* packets marked as queued at this port (ECN;
                            FECN on InfiniBand) */
  guint64 pauses;        /* XOFFs this channel's sender received */
  SimTime paused_ps;     /* time with at least one VL paused */
  guint64 credit_stalls; /* times the port ran out of credit with
                            packets to send */
  SimTime credit_stall_ps;
  guint64 max_queue_bytes; /* deepest queue (wire bytes, all VLs) */
  SimTime busy_ps;         /* time serializing */
} SimPortStats;

/* Totals over the run. */
typedef struct {
  guint64 packets_injected; /* first sends and resends at sources */
  guint64 packets_resent;
  guint64 packet_hops; /* packets put on a channel */
  guint64 drops;
  guint64 naks, timeouts, cnps, pauses, credit_stalls, ecn_marks;
  guint64 fecn_marks, becns;
  guint64 peak_packets; /* most packets alive (queued or on a wire; not
                           those of a flow in closed form) */
  guint64 lone_flows;   /* flows started in closed form */
  guint64 lone_settled; /* of them, put back packet by packet as another
                           flow came on their path */
} SimPacketStats;

/* A queue-depth sample: channel c's queue (wire bytes, all VLs) at t. */
typedef struct {
  SimTime t;
  SimChannelId channel;
  guint64 queue_bytes;
} SimQueueSample;

/* A packet transport over a finalized fabric; `link` gives each channel's
 * packet parameters (NULL: every channel SIM_FC_NONE, one VL, MTU 4096,
 * store and forward). */
SimTransport *sim_packet_new(SimEngine *engine, const SimFabric *fabric,
                             SimPacketLinkFn link, void *link_ctx);

/* Whether a flow alone on its path moves its packets in closed form
 * (default on; sim/packet.c, "a flow alone on its path"): the same times
 * and counters as packet by packet but for the order of simultaneous
 * events, without an event per packet and hop.  Off, every packet crosses
 * every hop as an event. */
void sim_packet_set_closed_form(SimTransport *t, gboolean on);

/* Seeds ECN marking (default seed 1). */
void sim_packet_set_seed(SimTransport *t, guint64 seed);

/* Samples every channel whose queue is or was non-empty since the last
 * sample, each `interval` ps while transfers are in flight (0: off, the
 * default).  Samples accumulate in the transport. */
void sim_packet_set_sampling(SimTransport *t, SimTime interval);

const SimQueueSample *sim_packet_samples(const SimTransport *t, gsize *n);

void sim_packet_port_stats(const SimTransport *t, SimChannelId c,
                           SimPortStats *out);
void sim_packet_stats(const SimTransport *t, SimPacketStats *out);

/* TRUE when t is a packet transport. */
gboolean sim_transport_is_packet(const SimTransport *t);

#endif /* SIM_PACKET_H */
