/* Link technologies: what one direction of one link can carry.
 *
 * A link is `lanes` serial lanes at `signal_GBd` symbols per second with a
 * modulation (NRZ: 1 bit/symbol, PAM4: 2), a line code and a forward error
 * correction code; their product is the data rate.  Data then travels in
 * packets (flits, TLPs, IB or Ethernet frames) whose headers, CRCs,
 * framing, padding and gaps are counted per family, byte by byte from the
 * specifications (see docs/models.md for each figure's source).  So the
 * effective bandwidth of a transfer is derived, never fitted:
 *
 *   wire_bytes(S) = S + per-packet overhead of every packet carrying S
 *   wire_time(S)  = wire_bytes(S) / (data_rate * (1 - control_overhead))
 *   effective(S)  = S / wire_time(S)          <= data_rate, always
 *
 * control_overhead is link time spent on ordered sets (PCIe SKP), not on
 * packets.  Latency per hop is latency_ns (both ends' PHY, FEC and link
 * layer) plus cable_m * propagation_ns_per_m.
 *
 * Families plug in as MdlLinkFamily tables (STYLE.md): a parameter table,
 * a consistency check and the closed-form wire_bytes.  Closed forms, not
 * per-packet loops, so the transports can call them on 8 GiB messages. */
#ifndef MODELS_LINK_H
#define MODELS_LINK_H

#include <glib.h>

#include "models/params.h"
#include "sim/time.h"

typedef enum {
  MDL_FAMILY_NVLINK,
  MDL_FAMILY_PCIE,
  MDL_FAMILY_IB,
  MDL_FAMILY_ROCE,
  MDL_FAMILY_SOCKET, /* CPU socket interconnect: UPI, xGMI */
  MDL_N_FAMILIES
} MdlFamily;

typedef enum { MDL_MOD_NRZ, MDL_MOD_PAM4 } MdlModulation;

typedef enum {
  MDL_CODE_NONE,
  MDL_CODE_8B10B,
  MDL_CODE_64B66B,
  MDL_CODE_128B130B,
} MdlLineCode;

/* RS-FEC on 64b/66b lanes also transcodes 256b/257b (IEEE 802.3 cl. 91). */
typedef enum { MDL_FEC_NONE, MDL_FEC_RS528, MDL_FEC_RS544 } MdlFec;

typedef enum {
  MDL_FC_CREDIT, /* sender never sends without receiver credit: no loss */
  MDL_FC_PFC,    /* Ethernet priority flow control (802.1Qbb): lossless */
  MDL_FC_LOSSY,  /* drops at full buffers, end-to-end retransmission */
} MdlFlowControl;

/* What the data travels in: it changes headers (RDMA WRITE's RETH) and, on
 * PCIe, the packets themselves (reads return data in completions). */
typedef enum {
  MDL_OP_WRITE, /* posted write, RDMA WRITE, NVLink write */
  MDL_OP_READ,  /* data returned by read completions / READ responses */
  MDL_OP_SEND,  /* RDMA SEND (IB, RoCE); a write elsewhere */
} MdlOp;

typedef enum { MDL_ROCE_V1, MDL_ROCE_V2 } MdlRoceVersion;

typedef struct {
  char *name; /* as in configs: "nvlink4", "pcie5-x16" */
  char *description;
  guint32 family; /* MdlFamily */

  /* physical layer */
  guint32 lanes;
  double signal_GBd;  /* per lane, 10^9 symbols/s */
  guint32 modulation; /* MdlModulation */
  guint32 line_code;  /* MdlLineCode */
  guint32 fec;        /* MdlFec */
  double latency_ns;  /* per hop: PHY, FEC, link layer of both ends */
  double cable_m;
  double propagation_ns_per_m;
  double efficiency; /* fraction of the modelled rate achieved (calibrated) */

  /* packets */
  guint32 max_payload_bytes; /* MTU, MPS, NVLink max data per packet */

  /* link-level flow control */
  guint32 flow_control;        /* MdlFlowControl */
  guint32 credit_unit_bytes;   /* CREDIT */
  guint32 credit_buffer_bytes; /* CREDIT: receive buffer per virtual lane */
  guint32 virtual_lanes;       /* data VLs / priorities */

  struct {
    guint32 extension_flits; /* address-extension flits per packet */
  } nvlink;
  struct {
    guint32 generation;            /* 3..6; 6 runs in FLIT mode */
    guint32 read_completion_bytes; /* payload per read completion */
    guint32 max_read_request_bytes;
    gboolean ecrc;   /* end-to-end CRC digest on every TLP */
    gboolean addr64; /* 4DW request headers (64-bit addresses) */
  } pcie;
  struct {
    gboolean grh; /* global route header (routing between subnets) */
    /* congestion control (IBTA vol. 1 annex A10), packet transport */
    gboolean cc;
    guint32 cc_threshold_bytes; /* switch queue that makes packets FECN
                                   eligible */
    guint32 cc_marking_rate;    /* eligible packets skipped between marks */
    guint32 cc_ccti_increase;   /* CCTI steps per BECN */
    guint32 cc_ccti_limit;
    double cc_ccti_timer_us;    /* one CCTI step back per period */
    double cc_ipd_step_ns;      /* inter-packet delay per CCTI step */
  } ib;
  struct {
    guint32 version; /* MdlRoceVersion */
    gboolean vlan;   /* 802.1Q tag (PFC by PCP needs it) */
    guint32 eth_mtu_bytes;
    guint32 pfc_xoff_bytes;     /* PFC: pause when the queue reaches it */
    guint32 pfc_xon_bytes;      /* PFC: resume below it */
    guint32 pfc_headroom_bytes; /* PFC: buffer kept for in-flight data */
    gboolean ecn;
    guint32 ecn_kmin_bytes;
    guint32 ecn_kmax_bytes;
    double ecn_pmax;
    double dcqcn_g;
    double dcqcn_rate_increase_us;
    guint32 dcqcn_byte_counter_bytes;
    double dcqcn_rai_Mbps;
    double dcqcn_rhai_Mbps;
    double dcqcn_min_rate_Mbps;
    double dcqcn_cnp_interval_us;
    double retransmit_timeout_us; /* LOSSY: go-back-N timer */
  } roce;
  struct {
    guint32 flit_bits;      /* bits per link flit */
    guint32 flit_data_bits; /* of which data */
  } socket;

  /* derived by mdl_link_finish */
  double data_rate_Gbps;   /* per direction, after line code and FEC */
  double control_overhead; /* fraction of link time outside packets */
} MdlLink;

typedef struct {
  const char *name;           /* "nvlink", "pcie", "ib", "roce", "socket" */
  const MdlParamSpec *params; /* the family's own keys */
  /* Rules across parameters, after they are all set; `where` prefixes
   * messages.  May be NULL. */
  gboolean (*check)(const MdlLink *l, const char *where, GError **error);
  /* Fraction of link time outside packets (ordered sets). */
  double (*control_overhead)(const MdlLink *l);
  /* Bytes on the wire for a message of `bytes` sent as packets of at most
   * `payload` bytes each (payload <= max_payload_bytes). */
  guint64 (*wire_bytes)(const MdlLink *l, guint64 bytes, guint32 payload,
                        MdlOp op);
  /* Bytes the same transfer puts on the opposite direction: read requests
   * (PCIe requests of max_read_request_bytes each, an RDMA READ request),
   * acknowledgements (PCIe Ack DLLPs, an RC ACK per message). */
  guint64 (*reverse_bytes)(const MdlLink *l, guint64 bytes, guint32 payload,
                           MdlOp op);
} MdlLinkFamily;

extern const MdlParamSpec mdl_link_common_params[];
extern const MdlLinkFamily mdl_family_nvlink;
extern const MdlLinkFamily mdl_family_pcie;
extern const MdlLinkFamily mdl_family_ib;
extern const MdlLinkFamily mdl_family_roce;
extern const MdlLinkFamily mdl_family_socket;

const MdlLinkFamily *mdl_link_family(const MdlLink *l);

/* The parameter tables of l (common, then its family's), NULL-terminated:
 * what a config group for this link may set. */
void mdl_link_param_tables(const MdlLink *l, const MdlParamSpec *out[3]);

/* Computes the derived fields and checks the parameters together.  Must
 * succeed before any of the functions below is used. */
gboolean mdl_link_finish(MdlLink *l, const char *where, GError **error);

MdlLink *mdl_link_copy(const MdlLink *l);
void mdl_link_free(MdlLink *l);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(MdlLink, mdl_link_free)

/* Data rate per direction in bytes/s, after line code and FEC. */
double mdl_link_data_rate_Bps(const MdlLink *l);
/* The rate transfers get: the data rate times `efficiency` (1 unless a
 * calibration measured otherwise).  Fabric channels and serialization use
 * it; data_rate_Gbps stays the physical figure. */
double mdl_link_rate_Bps(const MdlLink *l);

/* Bytes on the wire for a message (see MdlLinkFamily.wire_bytes);
 * payload 0 means max_payload_bytes. */
guint64 mdl_link_wire_bytes(const MdlLink *l, guint64 bytes, guint32 payload,
                            MdlOp op);

/* Bytes on the opposite direction for the same message (see
 * MdlLinkFamily.reverse_bytes); payload 0 means max_payload_bytes. */
guint64 mdl_link_reverse_bytes(const MdlLink *l, guint64 bytes, guint32 payload,
                               MdlOp op);

/* Effective bandwidth in bytes/s of one message: bytes / wire time (0 for
 * an empty message). */
double mdl_link_effective_Bps(const MdlLink *l, guint64 bytes, guint32 payload,
                              MdlOp op);

/* Time to serialize a message, rounded up to whole picoseconds so that no
 * prediction beats the line rate. */
SimTime mdl_link_serialize_ps(const MdlLink *l, guint64 bytes, guint32 payload,
                              MdlOp op);

/* Per-hop latency: PHY/FEC/link layer plus propagation, rounded to ps. */
SimTime mdl_link_latency_ps(const MdlLink *l);

/* RoCE: the least PFC headroom for a link's frames and cable (bytes). */
guint64 mdl_roce_min_headroom_bytes(const MdlLink *l);

/* Bits per symbol of the modulation and data fraction of line code + FEC. */
guint mdl_link_bits_per_symbol(const MdlLink *l);
double mdl_link_coding_efficiency(const MdlLink *l);

#endif /* MODELS_LINK_H */
