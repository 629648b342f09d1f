/* InfiniBand (IBTA Architecture Specification, vol. 1 rel. 1.4 and vol. 2).
 *
 * Every packet carries a Local Route Header (LRH, 8 B), optionally a Global
 * Route Header (GRH, 40 B), the Base Transport Header (BTH, 12 B),
 * extended transport headers, the payload padded to 4 bytes, the Invariant
 * CRC (ICRC, 4 B) and the Variant CRC (VCRC, 2 B); the physical layer adds
 * a start and an end delimiter.  RDMA WRITE carries the RDMA Extended
 * Transport Header (RETH, 16 B) in its first (or only) packet; RDMA READ
 * responses carry an ACK Extended Transport Header (AETH, 4 B) in their
 * first, last or only packet.  The path MTU is 256 to 4096 bytes.
 * Link-level flow control is credit-based per virtual lane, in 64-byte
 * credits. */
#include "models/link_family.h"

#define IB_LRH_BYTES 8
#define IB_GRH_BYTES 40
#define IB_VCRC_BYTES 2
#define IB_DELIMITER_BYTES 2
#define IB_PAD 4

static const MdlParamSpec ib_params[] = {
    {"grh", MDL_PARAM_BOOL, MDL_LINK_OFF(ib.grh), 0, 0, NULL, "false",
     "global route header in every packet"},
    {"cc", MDL_PARAM_BOOL, MDL_LINK_OFF(ib.cc), 0, 0, NULL, "false",
     "congestion control: FECN at switch ports, BECN, CCT rate limit"},
    {"cc_threshold_bytes", MDL_PARAM_UINT, MDL_LINK_OFF(ib.cc_threshold_bytes),
     0, 1u << 30, NULL, "0", "CC: switch queue depth that marks FECN, bytes"},
    {"cc_marking_rate", MDL_PARAM_UINT, MDL_LINK_OFF(ib.cc_marking_rate), 0,
     65535, NULL, "0", "CC: eligible packets left unmarked between marks"},
    {"cc_ccti_increase", MDL_PARAM_UINT, MDL_LINK_OFF(ib.cc_ccti_increase), 0,
     255, NULL, "1", "CC: CCTI steps per BECN"},
    {"cc_ccti_limit", MDL_PARAM_UINT, MDL_LINK_OFF(ib.cc_ccti_limit), 0, 16383,
     NULL, "127", "CC: highest CCTI"},
    {"cc_ccti_timer_us", MDL_PARAM_DOUBLE, MDL_LINK_OFF(ib.cc_ccti_timer_us), 0,
     1e6, NULL, "0", "CC: period of one CCTI step back, us"},
    {"cc_ipd_step_ns", MDL_PARAM_DOUBLE, MDL_LINK_OFF(ib.cc_ipd_step_ns), 0,
     1e6, NULL, "0", "CC: inter-packet delay per CCTI step, ns"},
    MDL_PARAM_END,
};

static gboolean ib_check(const MdlLink *l, const char *where, GError **error)
{
  if (!mdl_check_power_of_two(l->max_payload_bytes, 256, 4096, where,
                              "max_payload_bytes", error))
    return FALSE;
  if (l->ib.cc && (l->ib.cc_threshold_bytes == 0 ||
                   l->ib.cc_ccti_timer_us <= 0 || l->ib.cc_ipd_step_ns <= 0 ||
                   l->ib.cc_ccti_increase == 0 || l->ib.cc_ccti_limit == 0)) {
    g_set_error(error, MDL_ERROR, MDL_ERROR_CONFLICT,
                "%s cc = true needs cc_threshold_bytes, cc_ccti_timer_us, "
                "cc_ipd_step_ns, cc_ccti_increase and cc_ccti_limit above 0",
                where);
    return FALSE;
  }
  return TRUE;
}

/* Headers, CRCs and delimiters of every packet, without extended headers. */
static guint64 ib_packet_overhead(const MdlLink *l)
{
  return IB_LRH_BYTES + (l->ib.grh ? IB_GRH_BYTES : 0) + MDL_IBA_BTH_BYTES +
         MDL_IBA_ICRC_BYTES + IB_VCRC_BYTES + IB_DELIMITER_BYTES;
}

static guint64 ib_wire_bytes(const MdlLink *l, guint64 bytes, guint32 payload,
                             MdlOp op)
{
  guint32 last;
  guint64 n = mdl_packets(bytes, payload, &last);

  return n * ib_packet_overhead(l) + (n - 1) * sim_round_up(payload, IB_PAD) +
         sim_round_up(last, IB_PAD) + mdl_rdma_extension_bytes(op, n);
}

/* One packet back per message: the RC ACK, or the READ request. */
static guint64 ib_reverse_bytes(const MdlLink *l, guint64 bytes,
                                guint32 payload, MdlOp op)
{
  (void)bytes;
  (void)payload;
  return ib_packet_overhead(l) - MDL_IBA_BTH_BYTES - MDL_IBA_ICRC_BYTES +
         mdl_rdma_reverse_transport_bytes(op);
}

const MdlLinkFamily mdl_family_ib = {
    .name = "ib",
    .params = ib_params,
    .check = ib_check,
    .control_overhead = NULL,
    .wire_bytes = ib_wire_bytes,
    .reverse_bytes = ib_reverse_bytes,
};
