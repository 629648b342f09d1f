/* PCI Express, generations 3 to 6 (PCI-SIG Base Specification 6.0).
 *
 * Gen3-5 (128b/130b): every TLP is framed by a 4-byte STP token (carrying
 * the sequence number) and ends with a 4-byte LCRC; its header is 3 DW
 * (12 B: completions, 32-bit requests) or 4 DW (16 B: 64-bit memory
 * requests); an optional ECRC adds 4 B; payload is whole DWs up to the Max
 * Payload Size.  Reads move data the other way, in completions (12-byte
 * header) of read_completion_bytes each, as the completer splits them at
 * its Read Completion Boundary.  Each lane sends a SKP ordered set every
 * 370-375 blocks (one block each): 1/371 of link time.
 *
 * Gen6 runs in FLIT mode: 256-byte flits of 236 TLP bytes, 6 DLLP bytes,
 * 8 CRC bytes and 6 FEC bytes; TLPs lose their STP and LCRC and are packed
 * back to back across flits, so TLP bytes take 256/236 of their size on
 * the wire (the DLLP share included; that is the "242/256").
 *
 * The other direction carries a read's request TLPs (one 4 DW read request
 * per max_read_request_bytes) and, for data TLPs, the receiver's Ack
 * DLLPs: 8 bytes (2-byte SDP token, 4 bytes, 2-byte CRC) in Gen3-5, counted
 * one per TLP as devices may coalesce them (an upper bound); in FLIT mode
 * they ride in every flit's DLLP bytes, counted in the 256/236. */
#include "models/link_family.h"

#define PCIE_STP_BYTES 4
#define PCIE_LCRC_BYTES 4
#define PCIE_ECRC_BYTES 4
#define PCIE_HEADER_3DW 12
#define PCIE_HEADER_4DW 16
#define PCIE_DW 4
#define PCIE_SKP_INTERVAL_BLOCKS 370
#define PCIE_FLIT_BYTES 256
#define PCIE_FLIT_TLP_BYTES 236
#define PCIE_DLLP_BYTES 8

static const MdlParamSpec pcie_params[] = {
    {"generation", MDL_PARAM_UINT, MDL_LINK_OFF(pcie.generation), 3, 6, NULL,
     NULL, "PCIe generation; 6 uses FLIT mode"},
    {"read_completion_bytes", MDL_PARAM_UINT,
     MDL_LINK_OFF(pcie.read_completion_bytes), 64, 4096, NULL, "128",
     "payload per read completion (completer's RCB), bytes"},
    {"max_read_request_bytes", MDL_PARAM_UINT,
     MDL_LINK_OFF(pcie.max_read_request_bytes), 128, 4096, NULL, "512",
     "Max Read Request Size, bytes"},
    {"ecrc", MDL_PARAM_BOOL, MDL_LINK_OFF(pcie.ecrc), 0, 0, NULL, "false",
     "end-to-end CRC on every TLP"},
    {"addr64", MDL_PARAM_BOOL, MDL_LINK_OFF(pcie.addr64), 0, 0, NULL, "true",
     "64-bit addresses: 4 DW request headers"},
    MDL_PARAM_END,
};

static gboolean pcie_check(const MdlLink *l, const char *where, GError **error)
{
  if (!mdl_check_power_of_two(l->max_payload_bytes, 128, 4096, where,
                              "max_payload_bytes", error) ||
      !mdl_check_power_of_two(l->pcie.read_completion_bytes, 64, 4096, where,
                              "read_completion_bytes", error) ||
      !mdl_check_power_of_two(l->pcie.max_read_request_bytes, 128, 4096, where,
                              "max_read_request_bytes", error))
    return FALSE;
  if (l->pcie.read_completion_bytes > l->max_payload_bytes) {
    g_set_error(error, MDL_ERROR, MDL_ERROR_CONFLICT,
                "%s read_completion_bytes: %u exceeds max_payload_bytes "
                "(%u): completions carry at most the Max Payload Size",
                where, l->pcie.read_completion_bytes, l->max_payload_bytes);
    return FALSE;
  }
  if ((l->pcie.generation == 6) != (l->modulation == MDL_MOD_PAM4)) {
    g_set_error(error, MDL_ERROR, MDL_ERROR_CONFLICT,
                "%s modulation: generation %u signals %s (PAM4 is Gen6's)",
                where, l->pcie.generation,
                l->pcie.generation == 6 ? "pam4" : "nrz");
    return FALSE;
  }
  return TRUE;
}

static double pcie_control_overhead(const MdlLink *l)
{
  (void)l;
  return 1.0 / (PCIE_SKP_INTERVAL_BLOCKS + 1);
}

/* Bytes of one TLP carrying payload: header, DW-padded data, ECRC, and in
 * non-FLIT mode the STP token and LCRC. */
static guint64 pcie_tlp_bytes(const MdlLink *l, guint32 header, guint32 payload)
{
  guint64 b = header + sim_round_up(payload, PCIE_DW);

  if (l->pcie.ecrc)
    b += PCIE_ECRC_BYTES;
  if (l->pcie.generation < 6)
    b += PCIE_STP_BYTES + PCIE_LCRC_BYTES;
  return b;
}

/* TLP bytes in FLIT mode take 256/236 of their size on the wire. */
static guint64 pcie_on_wire(const MdlLink *l, guint64 tlp_bytes)
{
  if (l->pcie.generation < 6)
    return tlp_bytes;
  return sim_round_up(tlp_bytes * PCIE_FLIT_BYTES, PCIE_FLIT_TLP_BYTES) /
         PCIE_FLIT_TLP_BYTES;
}

static guint32 pcie_request_header(const MdlLink *l)
{
  return l->pcie.addr64 ? PCIE_HEADER_4DW : PCIE_HEADER_3DW;
}

/* Data TLPs of a transfer: completions for reads, requests otherwise. */
static guint64 pcie_data_tlps(const MdlLink *l, guint64 bytes, guint32 *payload,
                              MdlOp op, guint32 *header, guint32 *last)
{
  if (op == MDL_OP_READ) {
    *header = PCIE_HEADER_3DW; /* completion with data */
    *payload = MIN(*payload, l->pcie.read_completion_bytes);
  } else {
    *header = pcie_request_header(l);
  }
  return mdl_packets(bytes, *payload, last);
}

static guint64 pcie_wire_bytes(const MdlLink *l, guint64 bytes, guint32 payload,
                               MdlOp op)
{
  guint32 header, last;
  guint64 n = pcie_data_tlps(l, bytes, &payload, op, &header, &last);

  return pcie_on_wire(l, (n - 1) * pcie_tlp_bytes(l, header, payload) +
                             pcie_tlp_bytes(l, header, last));
}

static guint64 pcie_reverse_bytes(const MdlLink *l, guint64 bytes,
                                  guint32 payload, MdlOp op)
{
  guint32 header, last;
  guint64 n = pcie_data_tlps(l, bytes, &payload, op, &header, &last);
  guint64 rev = 0;

  if (op == MDL_OP_READ) {
    guint64 requests = bytes == 0
                           ? 1
                           : (bytes + l->pcie.max_read_request_bytes - 1) /
                                 l->pcie.max_read_request_bytes;
    rev += pcie_on_wire(l, requests *
                               pcie_tlp_bytes(l, pcie_request_header(l), 0));
  }
  if (l->pcie.generation < 6)
    rev += n * PCIE_DLLP_BYTES;
  return rev;
}

const MdlLinkFamily mdl_family_pcie = {
    .name = "pcie",
    .params = pcie_params,
    .check = pcie_check,
    .control_overhead = pcie_control_overhead,
    .wire_bytes = pcie_wire_bytes,
    .reverse_bytes = pcie_reverse_bytes,
};
