/* RDMA over Converged Ethernet: v1 (IBTA annex A16: Ethernet + GRH) and v2
 * (annex A17: Ethernet + IPv4 + UDP port 4791), 100 to 800 GbE.
 *
 * On the wire every packet takes the preamble and start delimiter (8 B),
 * the Ethernet header (14 B, +4 with an 802.1Q tag), the network headers
 * (v1: GRH 40 B; v2: IPv4 20 B + UDP 8 B), the IB transport headers, the
 * payload padded to 4 bytes, the ICRC (4 B), the FCS (4 B) and the
 * inter-frame gap (12 B) (IEEE 802.3 clause 4).  A frame shorter than 64
 * bytes (Ethernet header to FCS) is padded.  The RDMA path MTU (256-4096)
 * must fit in the Ethernet MTU together with the network and transport
 * headers.
 *
 * Flow control: PFC makes a priority lossless (IEEE 802.1Qbb): a receiver
 * sends PAUSE when its queue reaches xoff and must then absorb what is
 * already in flight, the headroom; without PFC the network drops and the
 * RC transport retransmits go-back-N after a timeout.  Congestion control
 * is ECN marking (RED-like: none below kmin, probability rising to pmax at
 * kmax, all above) with DCQCN rate control at the senders [Zhu et al.,
 * "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015]. */
#include "models/link_family.h"

#include <math.h>

#define ETH_PREAMBLE_SFD_BYTES 8
#define ETH_HEADER_BYTES 14
#define ETH_VLAN_BYTES 4
#define ETH_FCS_BYTES 4
#define ETH_IFG_BYTES 12
#define ETH_MIN_FRAME_BYTES 64
#define IPV4_HEADER_BYTES 20
#define UDP_HEADER_BYTES 8
#define ROCE_V1_GRH_BYTES 40
#define ROCE_PAD 4

#define OFF(f) MDL_LINK_OFF(roce.f)

static const char *const roce_versions[] = {"v1", "v2", NULL};

static const MdlParamSpec roce_params[] = {
    {"version", MDL_PARAM_ENUM, OFF(version), 0, 0, roce_versions, NULL,
     "v1 (Ethernet + GRH) or v2 (UDP/IPv4)"},
    {"vlan", MDL_PARAM_BOOL, OFF(vlan), 0, 0, NULL, "false",
     "802.1Q tag on every frame (PFC by priority code point)"},
    {"eth_mtu_bytes", MDL_PARAM_UINT, OFF(eth_mtu_bytes), 576, 9216, NULL, NULL,
     "Ethernet MTU (IP packet size), bytes"},
    {"pfc_xoff_bytes", MDL_PARAM_UINT, OFF(pfc_xoff_bytes), 0, 1u << 30, NULL,
     "0", "PFC: queue depth that sends PAUSE, bytes"},
    {"pfc_xon_bytes", MDL_PARAM_UINT, OFF(pfc_xon_bytes), 0, 1u << 30, NULL,
     "0", "PFC: queue depth that resumes, bytes"},
    {"pfc_headroom_bytes", MDL_PARAM_UINT, OFF(pfc_headroom_bytes), 0, 1u << 30,
     NULL, "0", "PFC: buffer for data in flight after PAUSE, bytes"},
    {"ecn", MDL_PARAM_BOOL, OFF(ecn), 0, 0, NULL, "false",
     "ECN marking at switch queues"},
    {"ecn_kmin_bytes", MDL_PARAM_UINT, OFF(ecn_kmin_bytes), 0, 1u << 30, NULL,
     "0", "ECN: marking starts at this queue depth, bytes"},
    {"ecn_kmax_bytes", MDL_PARAM_UINT, OFF(ecn_kmax_bytes), 0, 1u << 30, NULL,
     "0", "ECN: marking probability reaches pmax here, bytes"},
    {"ecn_pmax", MDL_PARAM_DOUBLE, OFF(ecn_pmax), 0, 1, NULL, "0",
     "ECN: marking probability at kmax"},
    {"dcqcn_g", MDL_PARAM_DOUBLE, OFF(dcqcn_g), 0, 1, NULL, "0",
     "DCQCN: alpha gain g"},
    {"dcqcn_rate_increase_us", MDL_PARAM_DOUBLE, OFF(dcqcn_rate_increase_us), 0,
     1e6, NULL, "0", "DCQCN: rate-increase timer, us"},
    {"dcqcn_byte_counter_bytes", MDL_PARAM_UINT, OFF(dcqcn_byte_counter_bytes),
     0, 1u << 31, NULL, "0", "DCQCN: rate-increase byte counter, bytes"},
    {"dcqcn_rai_Mbps", MDL_PARAM_DOUBLE, OFF(dcqcn_rai_Mbps), 0, 1e6, NULL, "0",
     "DCQCN: additive increase step, Mb/s"},
    {"dcqcn_rhai_Mbps", MDL_PARAM_DOUBLE, OFF(dcqcn_rhai_Mbps), 0, 1e6, NULL,
     "0", "DCQCN: hyper increase step, Mb/s"},
    {"dcqcn_min_rate_Mbps", MDL_PARAM_DOUBLE, OFF(dcqcn_min_rate_Mbps), 0, 1e6,
     NULL, "0", "DCQCN: lowest sending rate, Mb/s"},
    {"dcqcn_cnp_interval_us", MDL_PARAM_DOUBLE, OFF(dcqcn_cnp_interval_us), 0,
     1e6, NULL, "0", "DCQCN: at most one CNP per flow per interval, us"},
    {"retransmit_timeout_us", MDL_PARAM_DOUBLE, OFF(retransmit_timeout_us), 0,
     1e7, NULL, "0", "lossy: go-back-N retransmission timeout, us"},
    MDL_PARAM_END,
};

/* Network and transport header bytes inside the Ethernet payload, without
 * extended transport headers. */
static guint32 roce_l3_overhead(const MdlLink *l)
{
  guint32 net = l->roce.version == MDL_ROCE_V2
                    ? IPV4_HEADER_BYTES + UDP_HEADER_BYTES
                    : ROCE_V1_GRH_BYTES;
  return net + MDL_IBA_BTH_BYTES + MDL_IBA_ICRC_BYTES;
}

/* The least PFC headroom physics allows: after the receiver decides to
 * pause, a full frame may be leaving each end and the cable holds data
 * both ways (IEEE 802.1Qbb annex N adds interface and response delays of
 * the devices, which the configured value must also cover). */
guint64 mdl_roce_min_headroom_bytes(const MdlLink *l)
{
  guint64 frame = ETH_PREAMBLE_SFD_BYTES + ETH_HEADER_BYTES +
                  (l->roce.vlan ? ETH_VLAN_BYTES : 0) + roce_l3_overhead(l) +
                  MDL_IBA_RETH_BYTES + l->max_payload_bytes + ETH_FCS_BYTES +
                  ETH_IFG_BYTES;
  double cable_s = l->cable_m * l->propagation_ns_per_m * 1e-9;

  return 2 * frame + (guint64)ceil(2 * cable_s * mdl_link_data_rate_Bps(l));
}

static gboolean roce_check(const MdlLink *l, const char *where, GError **error)
{
  guint32 ip_packet =
      roce_l3_overhead(l) + MDL_IBA_RETH_BYTES + l->max_payload_bytes;

  if (!mdl_check_power_of_two(l->max_payload_bytes, 256, 4096, where,
                              "max_payload_bytes", error))
    return FALSE;
  if (ip_packet > l->roce.eth_mtu_bytes) {
    g_set_error(error, MDL_ERROR, MDL_ERROR_CONFLICT,
                "%s max_payload_bytes: an RDMA MTU of %u needs an Ethernet "
                "MTU of at least %u with its headers (eth_mtu_bytes is %u)",
                where, l->max_payload_bytes, ip_packet, l->roce.eth_mtu_bytes);
    return FALSE;
  }
  if (l->flow_control == MDL_FC_CREDIT) {
    g_set_error(error, MDL_ERROR, MDL_ERROR_CONFLICT,
                "%s flow_control: Ethernet has no link credits (use pfc or "
                "lossy)",
                where);
    return FALSE;
  }
  if (l->flow_control == MDL_FC_PFC &&
      (l->roce.pfc_xoff_bytes == 0 ||
       l->roce.pfc_xon_bytes >= l->roce.pfc_xoff_bytes)) {
    g_set_error(error, MDL_ERROR, MDL_ERROR_CONFLICT,
                "%s pfc_xon_bytes: PFC needs 0 <= xon (%u) < xoff (%u)", where,
                l->roce.pfc_xon_bytes, l->roce.pfc_xoff_bytes);
    return FALSE;
  }
  if (l->flow_control == MDL_FC_PFC &&
      l->roce.pfc_headroom_bytes < mdl_roce_min_headroom_bytes(l)) {
    g_set_error(error, MDL_ERROR, MDL_ERROR_CONFLICT,
                "%s pfc_headroom_bytes: %u cannot absorb what is in flight "
                "after a PAUSE: at least %" G_GUINT64_FORMAT
                " (two full frames and the cable's round trip)",
                where, l->roce.pfc_headroom_bytes,
                mdl_roce_min_headroom_bytes(l));
    return FALSE;
  }
  if (l->flow_control == MDL_FC_LOSSY && l->roce.retransmit_timeout_us <= 0) {
    g_set_error(error, MDL_ERROR, MDL_ERROR_MISSING,
                "%s retransmit_timeout_us: a lossy link needs a go-back-N "
                "timeout above 0",
                where);
    return FALSE;
  }
  if (l->roce.ecn && (l->roce.ecn_kmin_bytes > l->roce.ecn_kmax_bytes ||
                      l->roce.ecn_pmax <= 0)) {
    g_set_error(error, MDL_ERROR, MDL_ERROR_CONFLICT,
                "%s ecn_kmin_bytes: ECN needs kmin (%u) <= kmax (%u) and "
                "pmax > 0 (%g)",
                where, l->roce.ecn_kmin_bytes, l->roce.ecn_kmax_bytes,
                l->roce.ecn_pmax);
    return FALSE;
  }
  return TRUE;
}

/* Wire bytes of one frame: preamble to gap, padded to the minimum frame. */
static guint64 roce_frame_bytes(const MdlLink *l, guint64 ip_payload)
{
  guint64 frame = ETH_HEADER_BYTES + (l->roce.vlan ? ETH_VLAN_BYTES : 0) +
                  ip_payload + ETH_FCS_BYTES;
  return ETH_PREAMBLE_SFD_BYTES + MAX(frame, ETH_MIN_FRAME_BYTES) +
         ETH_IFG_BYTES;
}

static guint64 roce_wire_bytes(const MdlLink *l, guint64 bytes, guint32 payload,
                               MdlOp op)
{
  guint32 last;
  guint64 n = mdl_packets(bytes, payload, &last);
  guint64 ext = mdl_rdma_extension_bytes(op, n);
  guint32 l3 = roce_l3_overhead(l);

  /* Extended headers ride on the first (and, for READ, last) packet; they
   * are added to the last packet here, which only matters for padding of
   * sub-64-byte frames. */
  return (n - 1) * roce_frame_bytes(l, l3 + sim_round_up(payload, ROCE_PAD)) +
         roce_frame_bytes(l, l3 + sim_round_up(last, ROCE_PAD) + ext);
}

/* One frame back per message: the RC ACK, or the READ request. */
static guint64 roce_reverse_bytes(const MdlLink *l, guint64 bytes,
                                  guint32 payload, MdlOp op)
{
  (void)bytes;
  (void)payload;
  return roce_frame_bytes(l, roce_l3_overhead(l) - MDL_IBA_BTH_BYTES -
                                 MDL_IBA_ICRC_BYTES +
                                 mdl_rdma_reverse_transport_bytes(op));
}

const MdlLinkFamily mdl_family_roce = {
    .name = "roce",
    .params = roce_params,
    .check = roce_check,
    .control_overhead = NULL,
    .wire_bytes = roce_wire_bytes,
    .reverse_bytes = roce_reverse_bytes,
};
