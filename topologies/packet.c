/* The packet transport's view of a system's links (sim/packet.h): what
 * each channel's link model (models/link.h) and the switch models at its
 * ends (models/device.h) say about packets and flow control.
 *
 * For channel c, `width` bundled links of model l from node s to node d:
 *
 *   mtu                l.max_payload_bytes;
 *   flow_control       l.flow_control: credit -> SIM_FC_CREDIT (InfiniBand,
 *                      NVLink, PCIe and socket links all are), pfc ->
 *                      SIM_FC_PFC, lossy -> SIM_FC_LOSSY (RoCE);
 *   n_vl               l.virtual_lanes, at most SIM_PACKET_MAX_VL;
 *   cut_through        d is a switch whose model forwards on the header
 *                      (NVSwitch, InfiniBand, Ethernet and PCIe switches;
 *                      not a root complex, a NIC or a GPU);
 *   cut_through_bytes  the link's per-packet overhead: the wire bytes of
 *                      one full packet (a posted write, an RDMA WRITE)
 *                      less its payload, e.g. 44 B on InfiniBand
 *                      (delimiters, LRH, BTH, RETH, ICRC, VCRC): the
 *                      headers a switch reads before it forwards (trailing
 *                      CRCs and delimiters are counted too, an upper bound
 *                      by a few bytes);
 *   buffer_bytes       CREDIT: l.credit_buffer_bytes per VL, or, where the
 *                      model leaves it unset (0: UPI, xGMI), twice the
 *                      credit loop at line rate, the rule the set figures
 *                      follow (docs/models.md): two hop latencies, two
 *                      full packets and TOPO_FORWARD_ALLOWANCE_NS for the
 *                      receiving node; never less than one full packet.  LOSSY: the queue limit of the
 *                      port, which sits at s: s's shared buffer split
 *                      evenly over its ports (buffer_bytes / ports, the
 *                      static share; dynamic-threshold switches may give
 *                      one congested port more) when s is a switch with a
 *                      buffer figure, else what the same port holds
 *                      before dropping under PFC (pfc_xoff_bytes +
 *                      pfc_headroom_bytes), else the credit rule above;
 *   credit_unit        l.credit_unit_bytes;
 *   pfc_*_bytes        PFC: l.roce.pfc_xoff/xon/headroom_bytes;
 *   ecn, ecn_*         l.roce.ecn and its RED thresholds, on ports of
 *                      switches only ("ECN marking at switch queues": a
 *                      NIC does not mark its own packets);
 *   dcqcn, dcqcn_*     on every RoCE channel with ECN (the transport runs
 *                      DCQCN for a flow from its first such hop, the NIC's
 *                      port); rates from Mb/s to bytes/s (x 10^6 / 8),
 *                      timers from us to ps; dcqcn_alpha_period = 55 us,
 *                      the DCQCN paper's alpha update period (Zhu et al.,
 *                      SIGCOMM 2015, section 5), which the link models do
 *                      not carry;
 *   rto                l.roce.retransmit_timeout_us (0 on the families
 *                      that cannot lose packets);
 *   ibcc, ibcc_*       InfiniBand links with cc = true: the CC figures,
 *                      us and ns to ps; FECN marking (ibcc_mark) on ports
 *                      of switches only, the threshold scaled by width.
 *
 * Bundles: the transport serves a channel as one port at width times one
 * link's rate, while every physical link has its own buffers, so every
 * per-port byte figure (credit buffer, lossy limit, PFC and ECN
 * thresholds) is width times the link's.  DCQCN's per-flow figures are
 * not scaled.
 *
 * Invariant: the SimPacketLinks are cached in the system, one per
 * distinct (link model, width, source switch model, cut-through) in a
 * pointer array, built on first use and never changed or moved, so a
 * returned pointer lives as long as the system.  Systems have a handful
 * of such combinations, so a lookup is a short linear scan (done once per
 * channel, when a transport is created; never on the hot path). */
#include <math.h>
#include <string.h>

#include "models/device.h"
#include "sim/packet.h"
#include "sim/units.h"
#include "topologies/system_internal.h"

/* What a receiving node's forwarding adds to a credit loop where the
 * link's buffer is not set: the models' switch and root-complex
 * latencies are 100-150 ns. */
#define TOPO_FORWARD_ALLOWANCE_NS 150.0

/* The DCQCN paper's alpha update period (Zhu et al., SIGCOMM 2015). */
#define TOPO_DCQCN_ALPHA_PERIOD_US 55.0

typedef struct {
  const MdlLink *l;
  guint32 width;
  const MdlSwitch *src_sw; /* the source node's switch model, or NULL */
  gboolean cut_through;
  SimPacketLink link;
} TopoPacketLink;

static SimTime us_ps(double us)
{
  SimTime t = 0;
  gboolean ok = sim_time_from_us(us, &t);

  g_assert(ok); /* model parameters are bounded far below SIM_TIME_MAX */
  return t;
}

static double Mbps_Bps(double Mbps)
{
  return Mbps * 1e6 / 8.0;
}

/* Wire bytes of one full packet (a posted write, an RDMA WRITE). */
static guint64 full_packet_wire_bytes(const MdlLink *l)
{
  return mdl_link_wire_bytes(l, l->max_payload_bytes, 0, MDL_OP_WRITE);
}

/* A buffer for one link where the models give none: twice the credit
 * loop (a packet in, the receiving node's forwarding, a packet out, the
 * credit back) at line rate, in whole credits, at least one full
 * packet. */
static guint64 default_buffer_bytes(const MdlLink *l)
{
  double rate = mdl_link_rate_Bps(l);
  guint64 full = full_packet_wire_bytes(l);
  double loop = 2 * sim_time_to_s(mdl_link_latency_ps(l)) +
                2 * (double)full / rate + TOPO_FORWARD_ALLOWANCE_NS * 1e-9;
  guint64 unit = MAX(l->credit_unit_bytes, 1u);

  return sim_round_up(MAX((guint64)ceil(2 * loop * rate), full), unit);
}

/* The limit of a lossy port at a node with switch model sw (or none). */
static guint64 lossy_buffer_bytes(const MdlLink *l, const MdlSwitch *sw)
{
  if (sw && sw->buffer_bytes > 0 && sw->ports > 0)
    return MAX(sw->buffer_bytes / sw->ports, full_packet_wire_bytes(l));
  if (l->roce.pfc_xoff_bytes > 0)
    return (guint64)l->roce.pfc_xoff_bytes + l->roce.pfc_headroom_bytes;
  return default_buffer_bytes(l);
}

static void packet_link_init(SimPacketLink *p, const MdlLink *l, guint32 width,
                             const MdlSwitch *src_sw, gboolean cut_through)
{
  guint64 unit = MAX(l->credit_unit_bytes, 1u);
  guint64 full = full_packet_wire_bytes(l);

  memset(p, 0, sizeof *p);
  p->mtu = l->max_payload_bytes;
  p->n_vl = CLAMP(l->virtual_lanes, 1u, SIM_PACKET_MAX_VL);
  p->credit_unit = (guint32)unit;
  p->cut_through = cut_through;
  p->cut_through_bytes = (guint32)MAX(full - l->max_payload_bytes, 1u);
  p->rto = us_ps(l->roce.retransmit_timeout_us);
  switch ((MdlFlowControl)l->flow_control) {
  case MDL_FC_CREDIT:
    p->flow_control = SIM_FC_CREDIT;
    p->buffer_bytes =
        l->credit_buffer_bytes > 0
            ? sim_round_up(MAX((guint64)l->credit_buffer_bytes, full), unit)
            : default_buffer_bytes(l);
    break;
  case MDL_FC_PFC:
    p->flow_control = SIM_FC_PFC;
    p->pfc_xoff_bytes = (guint64)l->roce.pfc_xoff_bytes * width;
    p->pfc_xon_bytes = (guint64)l->roce.pfc_xon_bytes * width;
    p->pfc_headroom_bytes = (guint64)l->roce.pfc_headroom_bytes * width;
    break;
  case MDL_FC_LOSSY:
    p->flow_control = SIM_FC_LOSSY;
    p->buffer_bytes = lossy_buffer_bytes(l, src_sw);
    break;
  }
  p->buffer_bytes *= width;
  if (l->family == MDL_FAMILY_IB && l->ib.cc) {
    p->ibcc = TRUE;
    p->ibcc_mark = src_sw != NULL;
    p->ibcc_threshold_bytes = (guint64)l->ib.cc_threshold_bytes * width;
    p->ibcc_marking_rate = l->ib.cc_marking_rate;
    p->ibcc_ccti_increase = l->ib.cc_ccti_increase;
    p->ibcc_ccti_limit = l->ib.cc_ccti_limit;
    p->ibcc_ccti_timer = us_ps(l->ib.cc_ccti_timer_us);
    p->ibcc_ipd_step = us_ps(l->ib.cc_ipd_step_ns / 1000);
  }
  if (l->family != MDL_FAMILY_ROCE || !l->roce.ecn)
    return;
  p->ecn = src_sw != NULL;
  p->ecn_kmin_bytes = (guint64)l->roce.ecn_kmin_bytes * width;
  p->ecn_kmax_bytes = (guint64)l->roce.ecn_kmax_bytes * width;
  p->ecn_pmax = l->roce.ecn_pmax;
  p->dcqcn = TRUE;
  p->dcqcn_g = l->roce.dcqcn_g;
  p->dcqcn_alpha_period = us_ps(TOPO_DCQCN_ALPHA_PERIOD_US);
  p->dcqcn_rate_increase = us_ps(l->roce.dcqcn_rate_increase_us);
  p->dcqcn_byte_counter = l->roce.dcqcn_byte_counter_bytes;
  p->dcqcn_rai_Bps = Mbps_Bps(l->roce.dcqcn_rai_Mbps);
  p->dcqcn_rhai_Bps = Mbps_Bps(l->roce.dcqcn_rhai_Mbps);
  p->dcqcn_min_rate_Bps = Mbps_Bps(l->roce.dcqcn_min_rate_Mbps);
  p->dcqcn_cnp_interval = us_ps(l->roce.dcqcn_cnp_interval_us);
}

const SimPacketLink *topo_packet_link(void *ctx, SimChannelId c)
{
  TopoSystem *sys = ctx;
  const SimChannel *ch = sim_fabric_channel(sys->fabric, c);
  const MdlLink *l = topo_channel_link(sys, c);
  const MdlSwitch *src_sw = topo_node_switch(sys, ch->src);
  const MdlSwitch *dst_sw = topo_node_switch(sys, ch->dst);
  gboolean ct = dst_sw && dst_sw->cut_through;
  TopoPacketLink *e;

  if (!sys->packet_links)
    sys->packet_links = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; i < sys->packet_links->len; i++) {
    e = sys->packet_links->pdata[i];
    if (e->l == l && e->width == ch->width && e->src_sw == src_sw &&
        e->cut_through == ct)
      return &e->link;
  }
  e = g_new0(TopoPacketLink, 1);
  e->l = l;
  e->width = ch->width;
  e->src_sw = src_sw;
  e->cut_through = ct;
  packet_link_init(&e->link, l, ch->width, src_sw, ct);
  g_ptr_array_add(sys->packet_links, e);
  return &e->link;
}
