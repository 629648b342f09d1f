/* Switch and NIC parameters; see models/device.h. */
#include "models/device.h"

#define SOFF(f) offsetof(MdlSwitch, f)
#define NOFF(f) offsetof(MdlNic, f)

static const char *const switch_kinds[] = {
    "nvswitch", "ib", "ethernet", "pcie", "root-complex", NULL};
static const char *const reductions[] = {"none", "nvls", "sharp", NULL};

const MdlParamSpec mdl_switch_params[] = {
    {"description", MDL_PARAM_STRING, SOFF(description), 0, 0, NULL, "",
     "one line for listings"},
    {"kind", MDL_PARAM_ENUM, SOFF(kind), 0, 0, switch_kinds, NULL,
     "nvswitch, ib, ethernet, pcie or root-complex"},
    {"ports", MDL_PARAM_UINT, SOFF(ports), 2, 4096, NULL, NULL,
     "ports of the switch chip"},
    {"port_link", MDL_PARAM_STRING, SOFF(port_link), 0, 0, NULL, NULL,
     "link technology of the ports (a [link] name)"},
    {"latency_ns", MDL_PARAM_DOUBLE, SOFF(latency_ns), 0, 1e6, NULL, NULL,
     "port to port, ns"},
    {"cut_through", MDL_PARAM_BOOL, SOFF(cut_through), 0, 0, NULL, "true",
     "forwards after the header (else after the whole packet)"},
    {"buffer_bytes", MDL_PARAM_UINT, SOFF(buffer_bytes), 0, G_MAXUINT32, NULL,
     "0", "shared packet buffer, bytes; 0: not modelled"},
    {"reduction", MDL_PARAM_ENUM, SOFF(reduction), 0, 0, reductions, "none",
     "in-network reduction: none, nvls or sharp"},
    {"reduction_GBps_per_port", MDL_PARAM_DOUBLE, SOFF(reduction_GBps_per_port),
     0, 1e5, NULL, "0", "reduced data one port can take in, GB/s"},
    {"multicast", MDL_PARAM_BOOL, SOFF(multicast), 0, 0, NULL, "false",
     "replicates packets to several ports in the switch"},
    MDL_PARAM_END,
};

static const char *const nic_vendors[] = {"other", "amazon", "google", NULL};

const char *mdl_nic_vendor_name(guint32 vendor)
{
  return vendor < G_N_ELEMENTS(nic_vendors) - 1 ? nic_vendors[vendor] : "?";
}

const MdlParamSpec mdl_nic_params[] = {
    {"description", MDL_PARAM_STRING, NOFF(description), 0, 0, NULL, "",
     "one line for listings"},
    {"port_link", MDL_PARAM_STRING, NOFF(port_link), 0, 0, NULL, NULL,
     "network port technology (a [link] name)"},
    {"ports", MDL_PARAM_UINT, NOFF(ports), 1, 16, NULL, "1", "network ports"},
    {"host_link", MDL_PARAM_STRING, NOFF(host_link), 0, 0, NULL, NULL,
     "PCIe attachment (a [link] name of family pcie)"},
    {"latency_ns", MDL_PARAM_DOUBLE, NOFF(latency_ns), 0, 1e6, NULL, NULL,
     "send plus receive processing, ns"},
    {"message_rate_Mpps", MDL_PARAM_DOUBLE, NOFF(message_rate_Mpps), 0, 1e5,
     NULL, "0", "messages per second, millions; 0: not modelled"},
    {"gpudirect", MDL_PARAM_BOOL, NOFF(gpudirect), 0, 0, NULL, "true",
     "GPUDirect RDMA (else staging in host memory)"},
    {"data_direct", MDL_PARAM_BOOL, NOFF(data_direct), 0, 0, NULL, "false",
     "Data Direct: a DMA function of its own beside the GPU, which NCCL uses "
     "for a GPU on NVLink-C2C (from 2.27.3; its receives are flushed)"},
    {"reported_latency_us", MDL_PARAM_DOUBLE, NOFF(reported_latency_us), 0,
     1000, NULL, "0",
     "the latency its net plugin reports to NCCL, us, which NCCL's tuner "
     "adds to a network step (NCCL's IB and socket transports report 0)"},
    {"vendor", MDL_PARAM_ENUM, NOFF(vendor), 0, 0, nic_vendors, "other",
     "maker, as NCCL's socket transport reads the PCI vendor ID: amazon "
     "(AWS ENA, EFA), google (gVNIC) or other"},
    MDL_PARAM_END,
};

static const MdlParamSpec *const switch_tables[] = {mdl_switch_params, NULL};
static const MdlParamSpec *const nic_tables[] = {mdl_nic_params, NULL};

G_STATIC_ASSERT(offsetof(MdlSwitch, name) == 0);
G_STATIC_ASSERT(offsetof(MdlNic, name) == 0);

void mdl_switch_free(MdlSwitch *s)
{
  mdl_model_free(s, switch_tables);
}

MdlSwitch *mdl_switch_copy(const MdlSwitch *s)
{
  return mdl_model_dup(s, sizeof *s, switch_tables);
}

void mdl_nic_free(MdlNic *n)
{
  mdl_model_free(n, nic_tables);
}

MdlNic *mdl_nic_copy(const MdlNic *n)
{
  return mdl_model_dup(n, sizeof *n, nic_tables);
}

gboolean mdl_switch_check(const MdlSwitch *s, const char *where, GError **error)
{
  if ((s->reduction != MDL_REDUCE_NONE) != (s->reduction_GBps_per_port > 0)) {
    g_set_error(error, MDL_ERROR, MDL_ERROR_CONFLICT,
                "%s reduction_GBps_per_port: must be above 0 exactly when "
                "reduction is not none (%g)",
                where, s->reduction_GBps_per_port);
    return FALSE;
  }
  if (s->reduction == MDL_REDUCE_NVLS && s->kind != MDL_SWITCH_NVSWITCH) {
    g_set_error(error, MDL_ERROR, MDL_ERROR_CONFLICT,
                "%s reduction: nvls needs kind = nvswitch", where);
    return FALSE;
  }
  if (s->reduction == MDL_REDUCE_SHARP && s->kind != MDL_SWITCH_IB) {
    g_set_error(error, MDL_ERROR, MDL_ERROR_CONFLICT,
                "%s reduction: sharp needs kind = ib", where);
    return FALSE;
  }
  return TRUE;
}
