/* Link technologies: common parameters and the derivations shared by every
 * family; see models/link.h.  Family files: link_nvlink.c, link_pcie.c,
 * link_ib.c, link_roce.c, link_socket.c. */
#include "models/link.h"

#include <math.h>

#include "models/link_family.h"

#define OFF(f) MDL_LINK_OFF(f)

static const char *const family_names[] = {"nvlink", "pcie",   "ib",
                                           "roce",   "socket", NULL};
static const char *const modulation_names[] = {"nrz", "pam4", NULL};
static const char *const line_code_names[] = {"none", "8b10b", "64b66b",
                                              "128b130b", NULL};
static const char *const fec_names[] = {"none", "rs528", "rs544", NULL};
static const char *const flow_control_names[] = {"credit", "pfc", "lossy",
                                                 NULL};

const MdlParamSpec mdl_link_common_params[] = {
    {"family", MDL_PARAM_ENUM, OFF(family), 0, 0, family_names, NULL,
     "link family: nvlink, pcie, ib, roce or socket"},
    {"description", MDL_PARAM_STRING, OFF(description), 0, 0, NULL, "",
     "one line for listings"},
    {"lanes", MDL_PARAM_UINT, OFF(lanes), 1, 32, NULL, NULL,
     "serial lanes per direction"},
    {"signal_GBd", MDL_PARAM_DOUBLE, OFF(signal_GBd), 0.1, 1000, NULL, NULL,
     "symbol rate per lane, 10^9 symbols/s"},
    {"modulation", MDL_PARAM_ENUM, OFF(modulation), 0, 0, modulation_names,
     "nrz", "nrz (1 bit/symbol) or pam4 (2)"},
    {"line_code", MDL_PARAM_ENUM, OFF(line_code), 0, 0, line_code_names, NULL,
     "none, 8b10b, 64b66b or 128b130b"},
    {"fec", MDL_PARAM_ENUM, OFF(fec), 0, 0, fec_names, "none",
     "none, rs528 = RS(528,514) or rs544 = RS(544,514), with 256b/257b"},
    {"latency_ns", MDL_PARAM_DOUBLE, OFF(latency_ns), 0, 1e6, NULL, NULL,
     "per hop: PHY, FEC and link layer of both ends, ns"},
    {"cable_m", MDL_PARAM_DOUBLE, OFF(cable_m), 0, 1e5, NULL, "0",
     "cable or trace length, m"},
    {"propagation_ns_per_m", MDL_PARAM_DOUBLE, OFF(propagation_ns_per_m), 3.3,
     10, NULL, "5", "signal propagation delay, ns/m"},
    {"efficiency", MDL_PARAM_DOUBLE, OFF(efficiency), 0.01, 2, NULL, "1",
     "fraction of the modelled rate achieved end to end (set by ifsim "
     "calibrate)"},
    {"max_payload_bytes", MDL_PARAM_UINT, OFF(max_payload_bytes), 1, 65536,
     NULL, NULL, "largest payload per packet (MTU, MPS), bytes"},
    {"flow_control", MDL_PARAM_ENUM, OFF(flow_control), 0, 0,
     flow_control_names, NULL, "credit, pfc or lossy"},
    {"credit_unit_bytes", MDL_PARAM_UINT, OFF(credit_unit_bytes), 1, 65536,
     NULL, "64", "bytes per flow-control credit"},
    {"credit_buffer_bytes", MDL_PARAM_UINT, OFF(credit_buffer_bytes), 1,
     1u << 30, NULL, "0", "receive buffer per virtual lane, bytes"},
    {"virtual_lanes", MDL_PARAM_UINT, OFF(virtual_lanes), 1, 16, NULL, "1",
     "data virtual lanes or priorities"},
    MDL_PARAM_END,
};

static const MdlLinkFamily *const families[MDL_N_FAMILIES] = {
    [MDL_FAMILY_NVLINK] = &mdl_family_nvlink,
    [MDL_FAMILY_PCIE] = &mdl_family_pcie,
    [MDL_FAMILY_IB] = &mdl_family_ib,
    [MDL_FAMILY_ROCE] = &mdl_family_roce,
    [MDL_FAMILY_SOCKET] = &mdl_family_socket,
};

const MdlLinkFamily *mdl_link_family(const MdlLink *l)
{
  g_assert(l->family < MDL_N_FAMILIES);
  return families[l->family];
}

void mdl_link_param_tables(const MdlLink *l, const MdlParamSpec *out[3])
{
  out[0] = mdl_link_common_params;
  out[1] = mdl_link_family(l)->params;
  out[2] = NULL;
}

guint mdl_link_bits_per_symbol(const MdlLink *l)
{
  return l->modulation == MDL_MOD_PAM4 ? 2 : 1;
}

double mdl_link_coding_efficiency(const MdlLink *l)
{
  double code = 1.0;

  switch ((MdlLineCode)l->line_code) {
  case MDL_CODE_NONE: code = 1.0; break;
  case MDL_CODE_8B10B: code = 8.0 / 10.0; break;
  case MDL_CODE_64B66B: code = 64.0 / 66.0; break;
  case MDL_CODE_128B130B: code = 128.0 / 130.0; break;
  }
  /* RS-FEC lanes (IEEE 802.3 clauses 91, 134; IBTA HDR/NDR) carry 64b/66b
   * blocks transcoded 256b/257b, then RS(n, 514) adds n - 514 parity
   * symbols: data fraction 256/257 * 514/n instead of 64/66. */
  switch ((MdlFec)l->fec) {
  case MDL_FEC_NONE: return code;
  case MDL_FEC_RS528: return 256.0 / 257.0 * 514.0 / 528.0;
  case MDL_FEC_RS544: return 256.0 / 257.0 * 514.0 / 544.0;
  }
  g_assert_not_reached();
  return 0.0;
}

gboolean mdl_link_finish(MdlLink *l, const char *where, GError **error)
{
  const MdlLinkFamily *fam = mdl_link_family(l);

  /* PFC and drops are Ethernet's (RoCE); InfiniBand, NVLink and PCIe
   * send on link credits and lose nothing: a pfc or lossy there would be
   * kept and shown, and lead the packet transport to wait for a pause
   * that never comes */
  if (l->family != MDL_FAMILY_ROCE && l->flow_control != MDL_FC_CREDIT) {
    g_set_error(error, MDL_ERROR, MDL_ERROR_CONFLICT,
                "%s flow_control: %s is Ethernet's (family = roce); the "
                "%s family sends on link credits (expected credit)",
                where, flow_control_names[l->flow_control], fam->name);
    return FALSE;
  }
  if (l->fec != MDL_FEC_NONE && l->line_code != MDL_CODE_64B66B) {
    g_set_error(error, MDL_ERROR, MDL_ERROR_CONFLICT,
                "%s fec: RS-FEC applies to 64b66b lanes (line_code is %s)",
                where, line_code_names[l->line_code]);
    return FALSE;
  }
  if (l->flow_control == MDL_FC_CREDIT && l->credit_buffer_bytes > 0 &&
      l->credit_buffer_bytes < l->credit_unit_bytes) {
    g_set_error(error, MDL_ERROR, MDL_ERROR_CONFLICT,
                "%s credit_buffer_bytes: %u is below one credit "
                "(credit_unit_bytes = %u)",
                where, l->credit_buffer_bytes, l->credit_unit_bytes);
    return FALSE;
  }
  /* the packet transport raised a smaller buffer to one packet without a
   * word; a buffer that holds no packet is not a link that works */
  if (l->flow_control == MDL_FC_CREDIT && l->credit_buffer_bytes > 0 &&
      l->credit_buffer_bytes < l->max_payload_bytes) {
    g_set_error(error, MDL_ERROR, MDL_ERROR_CONFLICT,
                "%s credit_buffer_bytes: %u holds no full packet "
                "(max_payload_bytes = %u): expected at least %u",
                where, l->credit_buffer_bytes, l->max_payload_bytes,
                l->max_payload_bytes);
    return FALSE;
  }
  /* Derived first: family checks may use them. */
  l->data_rate_Gbps = l->lanes * l->signal_GBd * mdl_link_bits_per_symbol(l) *
                      mdl_link_coding_efficiency(l);
  l->control_overhead = fam->control_overhead ? fam->control_overhead(l) : 0;
  return !fam->check || fam->check(l, where, error);
}

G_STATIC_ASSERT(offsetof(MdlLink, name) == 0);

MdlLink *mdl_link_copy(const MdlLink *l)
{
  const MdlParamSpec *tables[3];

  mdl_link_param_tables(l, tables);
  return mdl_model_dup(l, sizeof *l, tables);
}

void mdl_link_free(MdlLink *l)
{
  const MdlParamSpec *tables[3];

  if (!l)
    return;
  mdl_link_param_tables(l, tables);
  mdl_model_free(l, tables);
}

double mdl_link_data_rate_Bps(const MdlLink *l)
{
  return l->data_rate_Gbps * 1e9 / 8.0;
}

double mdl_link_rate_Bps(const MdlLink *l)
{
  return mdl_link_data_rate_Bps(l) * l->efficiency;
}

guint64 mdl_link_wire_bytes(const MdlLink *l, guint64 bytes, guint32 payload,
                            MdlOp op)
{
  if (payload == 0 || payload > l->max_payload_bytes)
    payload = l->max_payload_bytes;
  return mdl_link_family(l)->wire_bytes(l, bytes, payload, op);
}

guint64 mdl_link_reverse_bytes(const MdlLink *l, guint64 bytes, guint32 payload,
                               MdlOp op)
{
  if (payload == 0 || payload > l->max_payload_bytes)
    payload = l->max_payload_bytes;
  return mdl_link_family(l)->reverse_bytes(l, bytes, payload, op);
}

/* Seconds the wire is busy with wire_bytes. */
static double link_wire_seconds(const MdlLink *l, guint64 wire_bytes)
{
  return (double)wire_bytes /
         (mdl_link_rate_Bps(l) * (1.0 - l->control_overhead));
}

double mdl_link_effective_Bps(const MdlLink *l, guint64 bytes, guint32 payload,
                              MdlOp op)
{
  guint64 wire = mdl_link_wire_bytes(l, bytes, payload, op);

  if (bytes == 0)
    return 0.0; /* nothing delivered, whatever the wire carried */
  return (double)bytes / link_wire_seconds(l, wire);
}

SimTime mdl_link_serialize_ps(const MdlLink *l, guint64 bytes, guint32 payload,
                              MdlOp op)
{
  double ps = ceil(
      link_wire_seconds(l, mdl_link_wire_bytes(l, bytes, payload, op)) * 1e12);
  g_assert(ps < 18446744073709551616.0);
  return (SimTime)ps;
}

SimTime mdl_link_latency_ps(const MdlLink *l)
{
  return (SimTime)llround(
      (l->latency_ns + l->cable_m * l->propagation_ns_per_m) * 1e3);
}

gboolean mdl_check_power_of_two(guint32 v, guint32 lo, guint32 hi,
                                const char *where, const char *key,
                                GError **error)
{
  if (mdl_is_power_of_two(v) && v >= lo && v <= hi)
    return TRUE;
  g_set_error(error, MDL_ERROR, MDL_ERROR_VALUE,
              "%s %s: %u is not a power of two in [%u, %u]", where, key, v, lo,
              hi);
  return FALSE;
}
