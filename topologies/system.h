/* TopoSystem: a described system (servers, their scale-up fabric, the
 * scale-out network) built into a SimFabric with its routing.
 *
 * A system file (GKeyFile INI; every key in docs/config.md) names a server
 * template and a scale-out topology and may change any model:
 *
 *   [system]
 *   server = dgx-h100        # [server NAME] here or built in
 *   servers = 64
 *
 *   [scaleout]
 *   topology = fat-tree      # none, fat-tree or dragonfly
 *   switch = quantum2-ndr
 *   tiers = 2
 *   rail_optimized = true
 *
 *   [link ib-ndr-4x]         # any [link], [switch], [nic] group
 *   cable_m = 20
 *
 * Server templates (topologies/servers/) and examples (topologies/examples/)
 * are compiled into the binary; a file may also define its own [server].
 * Every error names the file, the group, the key and what is accepted. */
#ifndef TOPOLOGIES_SYSTEM_H
#define TOPOLOGIES_SYSTEM_H

#include <glib.h>

#include "models/registry.h"
#include "sim/fabric.h"
#include "sim/packet.h"
#include "sim/route.h"

typedef enum {
  TOPO_NODE_GPU,
  TOPO_NODE_CPU, /* a socket; forwards PCIe as its root complex */
  TOPO_NODE_NIC,
  TOPO_NODE_NVSWITCH,
  TOPO_NODE_PCIE_SWITCH,
  TOPO_NODE_NET_SWITCH, /* fat-tree leaf/spine/core, dragonfly router */
  TOPO_N_NODE_KINDS
} TopoNodeKind;

typedef enum {
  TOPO_NET_NONE,
  TOPO_NET_FATTREE,
  TOPO_NET_DRAGONFLY,
  TOPO_NET_EXPLICIT, /* switches and links listed in [network] */
} TopoNetKind;

typedef enum {
  TOPO_ROUTE_DMODK,    /* fat-tree: up port = destination mod k */
  TOPO_ROUTE_ECMP,     /* fat-tree: hash of the flow, seeded */
  TOPO_ROUTE_ADAPTIVE, /* fat-tree: least-loaded up port */
  TOPO_ROUTE_MINIMAL,  /* dragonfly */
  TOPO_ROUTE_VALIANT,  /* dragonfly: via a random intermediate group */
  TOPO_ROUTE_UGAL_L,   /* dragonfly: minimal or Valiant by local load */
  TOPO_ROUTE_UGAL_G,   /* dragonfly: ... by the load of whole paths */
} TopoRouting;

typedef struct TopoSystem TopoSystem;

/* Loads a system file; `path` NULL loads the embedded default (an 8-GPU
 * DGX H100).  `models` (may be NULL) are model files applied before the
 * system file's own model groups. */
TopoSystem *topo_system_load(const char *path, const char *const *models,
                             GError **error);

/* Loads from text; `source` names it in messages. */
TopoSystem *topo_system_load_data(const char *data, gsize len,
                                  const char *source, const char *const *models,
                                  GError **error);

/* Loads an embedded example ("dgx-h100-superpod") or server template
 * ("server:dgx-h100", one server alone). */
TopoSystem *topo_system_load_builtin(const char *name, GError **error);

/* The text of an embedded example ("dgx-h100"); NULL if there is none.
 * topo_system_load(NULL, ...) loads "dgx-h100". */
GBytes *topo_builtin_example_data(const char *name);

/* Names of the embedded examples and server templates. */
GStrv topo_builtin_examples(void);
GStrv topo_builtin_servers(void);

void topo_system_free(TopoSystem *sys);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TopoSystem, topo_system_free)

const SimFabric *topo_system_fabric(const TopoSystem *sys);
const MdlRegistry *topo_system_models(const TopoSystem *sys);
/* The same registry, to change: for a caller that owns the system and runs
 * it again with another [nccl] constant (validate/accuracy.c's grids).
 * Only the collective layer reads [nccl], when it makes a communicator or
 * a plan, so the change holds from the next of those on; the fabric was
 * built from the link, switch and NIC models, which must not change. */
MdlRegistry *topo_system_models_mutable(TopoSystem *sys);
const char *topo_system_name(const TopoSystem *sys);
guint32 topo_system_servers(const TopoSystem *sys);
guint32 topo_system_gpus_per_server(const TopoSystem *sys);
TopoNetKind topo_system_net(const TopoSystem *sys);

/* The host's CPU, where NCCL's proxy threads run (graph/tuning.cc
 * getNetOverhead: 1 us on Intel, 2 on AMD, 1 on others). */
typedef enum { TOPO_CPU_INTEL, TOPO_CPU_AMD, TOPO_CPU_ARM } TopoCpu;

/* What a collective library needs to know of the GPUs and their links:
 * every server is alike. */
typedef struct {
  guint32 gpus;            /* per server */
  guint32 sm; /* compute capability x 10: 70, 80, 86, 89, 90, 100, ... 121 */
  const MdlLink *nvlink;   /* NULL: no NVLink */
  guint32 nvlinks;         /* NVLinks per GPU */
  gboolean nvswitch;       /* NVLink goes through NVSwitches */
  gboolean nvls;           /* the NVSwitches reduce and multicast (NVLS) */
  const MdlLink *gpu_pcie; /* the GPU's PCIe link */
  gboolean pcie_p2p;       /* GPUs may reach each other over PCIe */
  const MdlNic *nic;       /* NULL: no NIC */
  guint32 nics;            /* per server */
  gboolean sharp;          /* network switches aggregate (IB SHARP) */
  TopoCpu cpu;             /* the host's */
  gboolean c2c;            /* GPUs reach their socket over NVLink-C2C */
} TopoGpuInfo;

void topo_system_gpu_info(const TopoSystem *sys, TopoGpuInfo *out);

/* The link model behind a channel, the switch/NIC model behind a node
 * (NULL for other kinds). */
const MdlLink *topo_channel_link(const TopoSystem *sys, SimChannelId c);
const MdlSwitch *topo_node_switch(const TopoSystem *sys, SimNodeId n);
const MdlNic *topo_node_nic(const TopoSystem *sys, SimNodeId n);

/* A SimWireFn (sim/transport.h) for transports over this system's
 * fabric: wire bytes per payload byte of a `bytes` message (posted
 * writes, largest packets) on channel c's link model.  ctx is the
 * TopoSystem. */
double topo_wire_ratio(void *sys, SimChannelId c, guint64 bytes);

/* A SimPacketLinkFn (sim/packet.h) for the packet transport over this
 * system's fabric: channel c's packets, flow control, buffers, ECN and
 * DCQCN, from its link model and the switch models at its ends
 * (topologies/packet.c documents the mapping).  ctx is the TopoSystem;
 * the result is cached in it and lives as long as it. */
const SimPacketLink *topo_packet_link(void *sys, SimChannelId c);

/* Node of GPU g of server s, of NIC i of server s. */
SimNodeId topo_gpu(const TopoSystem *sys, guint32 server, guint32 gpu);
/* The socket a server's GPU hangs from (its root complex). */
SimNodeId topo_gpu_cpu(const TopoSystem *sys, guint32 server, guint32 gpu);

/* How far apart two GPUs of a server are over PCIe, as NCCL's path types
 * name it (graph/topo.h): under one PCIe switch, under switches that share
 * a top switch, on one socket's root complex, across sockets. */
typedef enum {
  TOPO_PCI_PIX = 1,
  TOPO_PCI_PXB,
  TOPO_PCI_PHB,
  TOPO_PCI_SYS
} TopoPciPath;
TopoPciPath topo_gpu_pci_path(const TopoSystem *sys, guint32 ga, guint32 gb);
/* The same between a server's GPU and one of its NICs (over PCIe; a GPU
 * on NVLink-C2C reaches its socket's NICs through its CPU: PHB, or SYS
 * across sockets). */
TopoPciPath topo_gpu_nic_pci_path(const TopoSystem *sys, guint32 gpu,
                                  guint32 nic);
/* Whether NVLink joins two GPUs of a server (through an NVSwitch both
 * reach, a bridge or a direct link), over the links faults left up. */
gboolean topo_gpus_nvlinked(const TopoSystem *sys, guint32 server, guint32 ga,
                            guint32 gb);
SimNodeId topo_nic(const TopoSystem *sys, guint32 server, guint32 nic);
guint32 topo_nics_per_server(const TopoSystem *sys);

/* The NIC a GPU uses by default (explicit nic_affinity, else the closest). */
guint32 topo_gpu_nic(const TopoSystem *sys, guint32 gpu);

/* Routes a transfer from src to dst (GPUs, CPUs or NICs) into a path set:
 * several weighted paths where the hardware spreads (NVLink over every
 * NVSwitch), one path otherwise.  Across servers it leaves through the
 * source's affinity NIC and enters through the destination's.  `flow`
 * seeds ECMP/Valiant choices; `load` (may be NULL) informs adaptive ones.
 * Returns FALSE with an error when no path exists. */
gboolean topo_route(const TopoSystem *sys, SimNodeId src, SimNodeId dst,
                    guint64 flow, const SimLoadHook *load, SimPathSet *out,
                    GError **error);

/* The scale-out network path between two NICs (port chosen by the flow
 * where a NIC has several). */
gboolean topo_route_network(const TopoSystem *sys, SimNodeId src_nic,
                            SimNodeId dst_nic, guint64 flow,
                            const SimLoadHook *load, SimPath *out,
                            GError **error);

/* --- faults (faults.c; docs/faults.md) ------------------------------------ */

/* Faults of the network to apply to a built system: elements down, links
 * slower, random links down.  An element is a network switch or a NIC by
 * name ("p0.spine3", "s2.nic1"), a link by its two ends ("p0.leaf0
 * p0.spine1"), N of a link's bundled physical links ("p0.leaf0 p0.spine1
 * x1"); * and ? match any characters. */
typedef struct {
  const char *const *fail;    /* NULL-terminated elements; may be NULL */
  const char *const *degrade; /* "ELEMENT FRACTION" or "ELEMENT LINK-MODEL" */
  guint32 random_links;       /* physical network links down, drawn */
  guint32 seed;               /* of the draw */
  /* "GPU FACTOR": a straggler whose work takes FACTOR (>= 1) times as long
   * (a GPU name or pattern: s3.gpu2, s*.gpu0) */
  const char *const *slow_gpus;
  /* "ELEMENT BER": network links that corrupt bits at that rate after FEC
   * (in (0, 1e-3]), each packet hit being dropped */
  const char *const *lossy;
  /* where each comes from, for messages ("f.ini: [faults] fail", "--fail") */
  const char *where_fail, *where_degrade, *where_random, *where_slow,
      *where_lossy;
  /* they arise under a running job: Fabric Manager's policies, which it
   * applies when it brings the NVLink fabric up, do not apply */
  gboolean running;
} TopoFaultSpec;

/* Applies faults (on top of any applied before) and reroutes: routes then
 * avoid what is down.  Errors name the element and where it was given:
 * one that does not exist or is not the network's, a fraction outside
 * (0, 1], a network kind that cannot reroute (dragonfly). */
gboolean topo_system_add_faults(TopoSystem *sys, const TopoFaultSpec *spec,
                                GError **error);
/* What the faults did, one line each ("down: p0.spine3 (64 links)");
 * NULL when none is applied.  Free with g_strfreev. */
GStrv topo_system_fault_lines(const TopoSystem *sys);
/* Where the faults applied were given ("f.ini: [faults] fail, --fail"),
 * for the messages of what they cut; "" when none is. */
const char *topo_system_fault_origin(const TopoSystem *sys);
/* Physical links down and slowed by faults. */
void topo_system_fault_counts(const TopoSystem *sys, guint32 *down,
                              guint32 *slow);
/* Whether a channel carries traffic: FALSE when faults took it down. */
gboolean topo_channel_up(const TopoSystem *sys, SimChannelId c);
/* Whether a NIC has a port up. */
gboolean topo_nic_up(const TopoSystem *sys, guint32 server, guint32 nic);
/* The NIC traffic of a server's NIC `nic` goes by: itself when up, else
 * the nearest that is up over PCIe to `gpu` (G_MAXUINT32: none given),
 * the next in order among equals, as NCCL, which sees only the ports
 * that are up, picks another; SIM_NONE when the server has none up. */
SimNodeId topo_live_nic(const TopoSystem *sys, guint32 server, guint32 nic,
                        guint32 gpu);

/* How a fabric recovers when an element fails under running traffic
 * (docs/faults.md, "Before the job, or in the middle of a collective"). */
typedef enum {
  TOPO_RECOVER_AT_ONCE, /* the switches route around it themselves */
  TOPO_RECOVER_CONTROL, /* traffic through it is lost until the fabric's
                           control plane (subnet manager, routing
                           protocol) routes around it */
  TOPO_RECOVER_NONE,    /* it takes a NIC's port: that NIC's connections
                           have no path left */
} TopoRecovery;

/* How `after` (the system with one element's fault added) recovers from
 * that fault arising under traffic on `before`, with a sentence saying why
 * (free it); for TOPO_RECOVER_NONE, *cut_server gets the server of the
 * NIC cut.  Refuses a fault that takes NVLinks (a running job fails on
 * it: Fabric Manager's policies apply at the next start). */
gboolean topo_fault_recovery(const TopoSystem *before, const TopoSystem *after,
                             TopoRecovery *out, char **why, guint32 *cut_server,
                             GError **error);

/* The bit error rate a fault gave channel c's link (after FEC: a packet
 * with an error is dropped at the next hop); 0 for a clean one. */
double topo_channel_ber(const TopoSystem *sys, SimChannelId c);
/* Whether a fault gave any link a bit error rate. */
gboolean topo_system_lossy(const TopoSystem *sys);

/* How many times as long a GPU's work takes (a straggler: its compute,
 * and its NCCL kernels' per-channel rate); 1 for a healthy one. */
double topo_gpu_slowdown(const TopoSystem *sys, guint32 server, guint32 gpu);

/* Whether faults took or slowed one of server s's NVLinks. */
gboolean topo_server_nvlink_faulted(const TopoSystem *sys, guint32 server);
/* A GPU's physical NVLinks that faults took down (NVML then reports them
 * inactive, and NCCL counts those left); 0 without faults. */
guint32 topo_gpu_nvlinks_down(const TopoSystem *sys, guint32 server,
                              guint32 gpu);

/* A NIC's ports' data rate together as trained (what NCCL reads from
 * ibv_query_port: active speed x width): a slower port counts slower. */
double topo_nic_rate_Bps(const TopoSystem *sys, guint32 server, guint32 nic);

/* The kinds of element topo_fault_elements lists: "switches", "leaves",
 * "spines", "cores" (a fat-tree's or explicit network's tiers), "nics",
 * "links" (every network link bundle, as "A B"), "nvlinks" (every NVLink
 * bundle inside a server), "gpus" and "nvswitches" (those with NVLinks:
 * as an element, every NVLink of it). */
const char *const *topo_fault_element_kinds(void);
/* The names (char *) of the system's elements of a kind, in fabric
 * order, as faults take them; an unknown kind is an error naming the
 * kinds. */
GPtrArray *topo_fault_elements(const TopoSystem *sys, const char *kind,
                               GError **error);
/* Every physical NVLink up, as an element of one cable ("s0.gpu0 s0.nvsw0
 * x1", as many times as the bundle has), for draws of physical links. */
GPtrArray *topo_fault_nvlink_cables(const TopoSystem *sys);

/* What `ifsim topo` prints. */
typedef struct {
  guint32 servers, gpus, nics, cpus;
  guint32 nvswitches, pcie_switches;
  guint32 net_switches[4]; /* by tier (fat-tree 1-3) or [1] = routers */
  guint32 net_planes;
  guint64 links_by_family[8];     /* physical links, by MdlFamily */
  double gpu_scaleup_GBps;        /* one GPU's NVLink (or PCIe) data rate out */
  double gpu_scaleout_GBps;       /* its share of NIC data rate */
  double scaleup_bisection_GBps;  /* server 0, GPUs split in half */
  double scaleout_bisection_GBps; /* servers split in half; 0 if one */
  guint32 diameter_hops;          /* GPU to GPU, shortest, over the fabric */
  guint32 network_diameter_hops;  /* NIC to NIC over the network */
  double oversubscription[4];     /* down:up per network tier (1..3) */
} TopoSummary;

void topo_system_summary(const TopoSystem *sys, TopoSummary *out);

typedef enum {
  TOPO_FLOW_ALL,     /* every channel */
  TOPO_FLOW_NETWORK, /* channels touching a network switch */
  TOPO_FLOW_SERVER0, /* channels inside server 0 */
} TopoFlowScope;

/* Maximum flow in bytes/s between two node sets (their minimum cut), over
 * the channels in scope; nodes in both sets are ignored. */
double topo_max_flow_Bps(const TopoSystem *sys, const SimNodeId *a, guint32 na,
                         const SimNodeId *b, guint32 nb, TopoFlowScope scope);

#endif /* TOPOLOGIES_SYSTEM_H */
