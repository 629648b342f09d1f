/* Switches and NICs: the devices links connect.
 *
 * A switch forwards between `ports` ports of one link technology after
 * latency_ns (port to port; cut-through switches start forwarding after the
 * header, store-and-forward ones after the whole packet), through a shared
 * packet buffer, and may reduce in the network (NVSwitch NVLS, InfiniBand
 * SHARP).  A NIC joins a host link (PCIe) to network ports, adds its own
 * processing latency and may be limited in messages per second; with
 * GPUDirect RDMA it reads and writes GPU memory directly, without it data
 * is staged in host memory and crosses PCIe twice. */
#ifndef MODELS_DEVICE_H
#define MODELS_DEVICE_H

#include <glib.h>

#include "models/params.h"

typedef enum {
  MDL_SWITCH_NVSWITCH,
  MDL_SWITCH_IB,
  MDL_SWITCH_ETHERNET,
  MDL_SWITCH_PCIE,
  MDL_SWITCH_ROOT_COMPLEX, /* CPU root complex: peer traffic between ports */
} MdlSwitchKind;

typedef enum {
  MDL_REDUCE_NONE,
  MDL_REDUCE_NVLS,  /* NVLink SHARP: in-switch reduction and multicast */
  MDL_REDUCE_SHARP, /* InfiniBand SHARP aggregation trees */
} MdlReduction;

typedef struct {
  char *name;
  char *description;
  guint32 kind; /* MdlSwitchKind */
  guint32 ports;
  char *port_link;   /* link technology of its ports (a registry name) */
  double latency_ns; /* port to port */
  gboolean cut_through;
  guint32 buffer_bytes;           /* shared packet buffer; 0: not modelled */
  guint32 reduction;              /* MdlReduction */
  double reduction_GBps_per_port; /* reduced data one port can take in */
  gboolean multicast;
} MdlSwitch;

typedef struct {
  char *name;
  char *description;
  char *port_link; /* network port technology (a registry name) */
  guint32 ports;
  char *host_link;          /* PCIe attachment (a registry name) */
  double latency_ns;        /* send plus receive processing */
  double message_rate_Mpps; /* 0: no published limit, not modelled */
  gboolean gpudirect;       /* GPUDirect RDMA to and from GPU memory */
  gboolean data_direct;     /* a Data Direct DMA function: a path of its
                               own to the memory of a GPU on NVLink-C2C */
  double reported_latency_us; /* what its net plugin reports to NCCL
                                 (ncclNetProperties_t.latency), us */
  guint32 vendor;           /* MdlNicVendor: who made it, as NCCL reads
                               the PCI vendor ID */
} MdlNic;

/* NIC makers whose PCI vendor ID NCCL's socket transport looks for
 * (net_socket.cc ncclNetSocketGetNsockNthread: Amazon 0x1d0f, Google
 * 0x1ae0); any other is MDL_NIC_VENDOR_OTHER. */
typedef enum {
  MDL_NIC_VENDOR_OTHER,
  MDL_NIC_VENDOR_AMAZON,
  MDL_NIC_VENDOR_GOOGLE
} MdlNicVendor;

/* A vendor's name as NIC models give it ("other", "amazon", "google"). */
const char *mdl_nic_vendor_name(guint32 vendor);

extern const MdlParamSpec mdl_switch_params[];
extern const MdlParamSpec mdl_nic_params[];

void mdl_switch_free(MdlSwitch *s);
MdlSwitch *mdl_switch_copy(const MdlSwitch *s);
void mdl_nic_free(MdlNic *n);
MdlNic *mdl_nic_copy(const MdlNic *n);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(MdlSwitch, mdl_switch_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(MdlNic, mdl_nic_free)

/* Checks rules across parameters (links are resolved by the registry). */
gboolean mdl_switch_check(const MdlSwitch *s, const char *where,
                          GError **error);

/* PCIe crossings per RDMA transfer end: 1 with GPUDirect, 2 without (GPU
 * to host memory, host memory to NIC). */
static inline guint mdl_nic_pcie_crossings(const MdlNic *n)
{
  return n->gpudirect ? 1 : 2;
}

#endif /* MODELS_DEVICE_H */
