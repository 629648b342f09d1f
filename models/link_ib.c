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
    MDL_PARAM_END,
};

static gboolean ib_check(const MdlLink *l, const char *where, GError **error)
{
  return mdl_check_power_of_two(l->max_payload_bytes, 256, 4096, where,
                                "max_payload_bytes", error);
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

  return n * ib_packet_overhead(l) + (n - 1) * mdl_round_up(payload, IB_PAD) +
         mdl_round_up(last, IB_PAD) + mdl_rdma_extension_bytes(op, n);
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
