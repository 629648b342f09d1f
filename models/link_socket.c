/* CPU socket interconnects (Intel UPI, AMD xGMI), crossed by `SYS` paths.
 *
 * Modelled as a stream of fixed-size link flits of which flit_data_bits
 * carry data; the rest is header and CRC.  Coherence traffic is not
 * modelled: GPU peer traffic through the sockets is bulk data. */
#include "models/link_family.h"

static const MdlParamSpec socket_params[] = {
    {"flit_bits", MDL_PARAM_UINT, MDL_LINK_OFF(socket.flit_bits), 8, 4096, NULL,
     NULL, "bits per link-layer flit"},
    {"flit_data_bits", MDL_PARAM_UINT, MDL_LINK_OFF(socket.flit_data_bits), 8,
     4096, NULL, NULL, "data bits per flit"},
    MDL_PARAM_END,
};

static gboolean socket_check(const MdlLink *l, const char *where,
                             GError **error)
{
  if (l->socket.flit_data_bits > l->socket.flit_bits) {
    g_set_error(error, MDL_ERROR, MDL_ERROR_CONFLICT,
                "%s flit_data_bits: %u exceeds flit_bits (%u)", where,
                l->socket.flit_data_bits, l->socket.flit_bits);
    return FALSE;
  }
  return TRUE;
}

static guint64 socket_wire_bytes(const MdlLink *l, guint64 bytes,
                                 guint32 payload, MdlOp op)
{
  guint64 flits = sim_round_up(bytes * 8, l->socket.flit_data_bits) /
                  l->socket.flit_data_bits;

  (void)payload;
  (void)op;
  return sim_round_up(flits * l->socket.flit_bits, 8) / 8;
}

/* Coherence and request traffic of socket links is not modelled. */
static guint64 socket_reverse_bytes(const MdlLink *l, guint64 bytes,
                                    guint32 payload, MdlOp op)
{
  (void)l;
  (void)bytes;
  (void)payload;
  (void)op;
  return 0;
}

const MdlLinkFamily mdl_family_socket = {
    .name = "socket",
    .params = socket_params,
    .check = socket_check,
    .control_overhead = NULL,
    .wire_bytes = socket_wire_bytes,
    .reverse_bytes = socket_reverse_bytes,
};
