/* NVLink (3.0 A100, 4.0 H100/H200, 5.0 B200).
 *
 * NVLink moves data in 16-byte flits (128 bits).  A packet is one header
 * flit (command, address, CRC), an optional address-extension flit, an
 * optional byte-enable flit, then up to 16 data flits (256 B)
 * [Foley & Danskin, "Ultra-Performance Pascal GPU and NVLink Interconnect",
 * IEEE Micro 37(2), 2017].  Data is padded to whole flits.  Flow control
 * is credit-based at the link layer.
 *
 * With one header and one extension flit, 128-byte writes (NCCL's stores)
 * get 8/10 of the link: 20.0 GB/s of NVLink3's 25, the per-link figure
 * NCCL's topology code uses for SM80; 256-byte copy-engine packets get
 * 16/18: 22.2 GB/s, i.e. 266.7 GB/s over 12 links (A100 p2p measured
 * 265-276, reference/p2p_8xA100_sxm4_80gb_distserve3.csv) and 400 GB/s
 * over 18 NVLink4 links (H100 nvbandwidth 395-397,
 * reference/nvbandwidth_8xH100_sxm_pcie5_acceptance_kr.csv). */
#include "models/link_family.h"

#define NVLINK_FLIT_BYTES 16
#define NVLINK_HEADER_FLITS 1
#define NVLINK_MAX_DATA_BYTES 256

static const MdlParamSpec nvlink_params[] = {
    {"extension_flits", MDL_PARAM_UINT, MDL_LINK_OFF(nvlink.extension_flits), 0,
     2, NULL, "1", "address-extension/byte-enable flits per packet"},
    MDL_PARAM_END,
};

static gboolean nvlink_check(const MdlLink *l, const char *where,
                             GError **error)
{
  if (l->max_payload_bytes > NVLINK_MAX_DATA_BYTES ||
      l->max_payload_bytes % NVLINK_FLIT_BYTES != 0) {
    g_set_error(error, MDL_ERROR, MDL_ERROR_VALUE,
                "%s max_payload_bytes: %u is not a multiple of the %d-byte "
                "flit up to %d",
                where, l->max_payload_bytes, NVLINK_FLIT_BYTES,
                NVLINK_MAX_DATA_BYTES);
    return FALSE;
  }
  return TRUE;
}

static guint64 nvlink_packet_bytes(const MdlLink *l, guint32 payload)
{
  return (guint64)(NVLINK_HEADER_FLITS + l->nvlink.extension_flits) *
             NVLINK_FLIT_BYTES +
         sim_round_up(payload, NVLINK_FLIT_BYTES);
}

static guint64 nvlink_wire_bytes(const MdlLink *l, guint64 bytes,
                                 guint32 payload, MdlOp op)
{
  guint32 last;
  guint64 n = mdl_packets(bytes, payload, &last);

  (void)op; /* reads return data in response packets of the same shape */
  return (n - 1) * nvlink_packet_bytes(l, payload) +
         nvlink_packet_bytes(l, last);
}

/* A read sends one request packet (header and extension flits, no data)
 * per response packet; writes are posted: credits return inside link-layer
 * flits, not counted. */
static guint64 nvlink_reverse_bytes(const MdlLink *l, guint64 bytes,
                                    guint32 payload, MdlOp op)
{
  guint32 last;
  guint64 n = mdl_packets(bytes, payload, &last);

  if (op != MDL_OP_READ)
    return 0;
  return n * nvlink_packet_bytes(l, 0);
}

const MdlLinkFamily mdl_family_nvlink = {
    .name = "nvlink",
    .params = nvlink_params,
    .check = nvlink_check,
    .control_overhead = NULL,
    .wire_bytes = nvlink_wire_bytes,
    .reverse_bytes = nvlink_reverse_bytes,
};
