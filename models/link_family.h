/* Helpers for the link family files (link_*.c); not for other users. */
#ifndef MODELS_LINK_FAMILY_H
#define MODELS_LINK_FAMILY_H

#include <stddef.h>

#include "models/link.h"
#include "sim/units.h"

#define MDL_LINK_OFF(f) offsetof(MdlLink, f)

/* A message of `bytes` in packets of at most `payload` bytes: returns the
 * packet count (at least 1: an empty message still sends one packet) and
 * sets *last to the last packet's payload. */
static inline guint64 mdl_packets(guint64 bytes, guint32 payload, guint32 *last)
{
  guint64 n;

  if (bytes == 0) {
    *last = 0;
    return 1;
  }
  n = (bytes + payload - 1) / payload;
  *last = (guint32)(bytes - (n - 1) * payload);
  return n;
}

static inline gboolean mdl_is_power_of_two(guint64 v)
{
  return v != 0 && (v & (v - 1)) == 0;
}

/* InfiniBand transport headers, shared by IB and RoCE (IBTA vol. 1 ch. 9,
 * RoCE annexes A16/A17): Base Transport Header, RDMA Extended Transport
 * Header (first or only packet of an RDMA WRITE), ACK Extended Transport
 * Header (first, last or only packet of an RDMA READ response), Invariant
 * CRC. */
#define MDL_IBA_BTH_BYTES 12
#define MDL_IBA_RETH_BYTES 16
#define MDL_IBA_AETH_BYTES 4
#define MDL_IBA_ICRC_BYTES 4

/* Extended transport header bytes of a whole message of n packets. */
static inline guint64 mdl_rdma_extension_bytes(MdlOp op, guint64 n)
{
  switch (op) {
  case MDL_OP_WRITE: return MDL_IBA_RETH_BYTES;
  case MDL_OP_READ: return MDL_IBA_AETH_BYTES * (n == 1 ? 1 : 2);
  case MDL_OP_SEND: return 0;
  }
  return 0;
}

/* Transport bytes (BTH, extended headers, ICRC; no payload) of the packets
 * a responder or requester sends back for one message of n packets: an RC
 * ACK (BTH + AETH) for WRITE and SEND, the READ request (BTH + RETH). */
static inline guint64 mdl_rdma_reverse_transport_bytes(MdlOp op)
{
  return MDL_IBA_BTH_BYTES + MDL_IBA_ICRC_BYTES +
         (op == MDL_OP_READ ? MDL_IBA_RETH_BYTES : MDL_IBA_AETH_BYTES);
}

/* Refuses a value that is not a power of two in [lo, hi]. */
gboolean mdl_check_power_of_two(guint32 v, guint32 lo, guint32 hi,
                                const char *where, const char *key,
                                GError **error);

#endif /* MODELS_LINK_FAMILY_H */
