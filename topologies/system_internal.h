/* TopoSystem internals shared by the topologies/ files; not for users. */
#ifndef TOPOLOGIES_SYSTEM_INTERNAL_H
#define TOPOLOGIES_SYSTEM_INTERNAL_H

#include "models/params.h"
#include "topologies/error.h"
#include "topologies/system.h"

typedef enum { TOPO_ATTACH_PCIE, TOPO_ATTACH_C2C } TopoGpuAttach;

/* A [server NAME] template, as read (strings) and parsed (lists). */
typedef struct {
  char *name;
  char *description;
  guint32 gpus;
  guint32 sockets;
  guint32 sockets_per_host; /* sockets linked all-to-all in one host */
  char *socket_link;
  guint32 socket_links;
  char *root_complex;
  char *nvlink; /* "none": no NVLink */
  guint32 nvlinks_per_gpu;
  char *nvswitch; /* "none": direct links only */
  guint32 nvswitches;
  char *nvlink_split;
  char *nvlink_pairs;
  guint32 gpu_arch;   /* index into the server file's architecture names */
  guint32 gpu_attach; /* TopoGpuAttach */
  guint32 cpu;        /* index into the server file's CPU names */
  char *gpu_pcie;
  gboolean gpu_p2p; /* PCIe peer-to-peer between its GPUs is allowed */
  char *c2c_link;
  guint32 c2c_links;
  char *pcie_switch; /* "none": devices on root ports */
  guint32 pcie_switches;
  guint32 pcie_levels;
  char *nic; /* "none": no NIC */
  guint32 nics;
  char *nic_affinity;
  guint32 pcie_top_switches;
  char *gpu_pcie_switch, *gpu_socket, *nic_pcie_switch, *nic_socket;
  char *pcie_switch_top, *pcie_switch_socket, *pcie_top_socket;
  /* parsed */
  guint32 *split;    /* [nvswitches]: links from each GPU to each */
  GArray *pairs;     /* of guint32 triples: gpu a, gpu b, links */
  guint32 *affinity; /* [gpus]: the NIC of each GPU */
  gint32 *nic_owner; /* [nics]: the GPU that also sends through a NIC no
                        GPU has as its affinity NIC, or -1 */
  /* placement: -1 where a device sits on its socket's root port */
  gint32 *gpu_sw;    /* [gpus] leaf PCIe switch */
  guint32 *gpu_sock; /* [gpus] */
  gint32 *nic_sw;    /* [nics] */
  guint32 *nic_sock; /* [nics] */
  gint32 *sw_top;    /* [pcie_switches] top switch above a leaf switch */
  guint32 *sw_sock;  /* [pcie_switches] */
  guint32 *top_sock; /* [pcie_top_switches] */
} TopoServerSpec;

extern const MdlParamSpec topo_server_params[];
/* Compute capability x 10 of a server's GPUs (gpu_arch, or derived). */
guint32 topo_server_sm(const TopoServerSpec *s, const MdlRegistry *models);
TopoCpu topo_server_cpu(const TopoServerSpec *s);
void topo_server_spec_free(TopoServerSpec *s);

/* Reads a [server NAME] group: keys, lists, shape checks against models. */
TopoServerSpec *topo_server_spec_read(GKeyFile *kf, const char *group,
                                      const char *name,
                                      const MdlRegistry *models,
                                      const char *where, GError **error);

/* The [scaleout] group. */
typedef struct {
  char *name;       /* unused: params convention */
  guint32 topology; /* TopoNetKind */
  char *link;       /* switch-to-switch links; default: NIC port link */
  char *sw;         /* switch model */
  guint32 routing;  /* TopoRouting */
  guint32 seed;
  /* fat-tree */
  guint32 tiers;
  guint32 radix; /* 0: the switch model's ports */
  double oversubscription;
  double spine_oversubscription;
  gboolean rail_optimized;
  guint32 planes;
  guint32 leaves, spines, cores; /* 0: derived */
  /* dragonfly */
  guint32 df_a, df_p, df_h, df_g;
  guint32 arrangement; /* 0 absolute, 1 relative, 2 circulant */
  char *global_link;   /* default: link */
} TopoScaleout;

extern const MdlParamSpec topo_scaleout_params[];

/* A network attachment point: one port of one NIC. */
typedef struct {
  SimNodeId nic;
  guint32 server, nic_index, port, plane;
  SimChannelId up; /* NIC -> first network switch */
  guint32 leaf;    /* fat-tree: plane-local leaf; dragonfly: router */
  guint32 pos;     /* fat-tree: D-mod-k position; dragonfly: terminal */
} TopoEndpoint;

typedef struct TopoFatTree TopoFatTree;
typedef struct TopoDragonfly TopoDragonfly;
typedef struct TopoExplicit TopoExplicit;
typedef struct TopoFaults TopoFaults;

/* Fabric Manager's "GPU Access NVLink Failure" and "NVSwitch Failure"
 * policies (its user guide, High Availability Modes), as it applies them
 * when it brings the NVLink fabric up with failures present: the first
 * values are its defaults. */
typedef enum {
  TOPO_ACCESS_REMOVE_GPU,       /* ACCESS_LINK_FAILURE_MODE=0 */
  TOPO_ACCESS_DISABLE_NVSWITCH, /* =1 (DGX/HGX A100) */
  TOPO_ACCESS_KEEP_LINKS,       /* a what-if: the links left carry on */
} TopoAccessLinkMode;
typedef enum {
  TOPO_NVSWITCH_ABORT,   /* NVSWITCH_FAILURE_MODE=0 */
  TOPO_NVSWITCH_DISABLE, /* =1 (DGX/HGX A100) */
} TopoNvswitchMode;

/* Routes inside one server, by local ids: [src * local_nodes + dst]. */
typedef struct {
  guint32 *first; /* into sets; SIM_NONE: not routable */
  GArray *sets;   /* SimPathSets, packed (server.c intra_store) */
} TopoIntraRoutes;

struct TopoSystem {
  char *name;
  MdlRegistry *models;
  TopoServerSpec *server;
  guint32 n_servers;
  SimFabric *fabric;
  /* model tables: channel tech / node model ids index these */
  GPtrArray *techs;    /* const MdlLink * */
  GPtrArray *switches; /* const MdlSwitch * */
  GPtrArray *nics;     /* const MdlNic * */
  /* per-server layout: every server is built alike, nodes and channels
   * contiguous, so local ids plus a base give any server's */
  guint32 local_nodes, local_channels;
  guint32 off_gpu, off_cpu, off_nic, off_nvsw, off_pcisw, n_pcisw;
  /* routes inside a server: server 0's as built, every server's while
   * no fault touches it; intra_faulted[s] (NULL: none) server s's own
   * once faults took some of its NVLinks (faults.c) */
  TopoIntraRoutes intra;
  TopoIntraRoutes **intra_faulted; /* [n_servers] */
  /* scale-out */
  TopoScaleout scaleout;
  GArray *endpoints;     /* TopoEndpoint */
  guint32 *nic_first_ep; /* [servers * nics]: first endpoint of a NIC */
  guint32 *nic_n_ep;
  TopoFatTree *ft;
  TopoDragonfly *df;
  TopoExplicit *ex;
  guint32 net_switch_count[4];
  /* topo_packet_link's cache (packet.c): built on first use */
  GPtrArray *packet_links;
  /* faults.c: NULL while none is applied */
  TopoFaults *faults;
  /* what Fabric Manager does with NVLink failures ([faults]
   * access_link_failure_mode, nvswitch_failure_mode; faults.c) */
  TopoAccessLinkMode access_link_mode;
  TopoNvswitchMode nvswitch_mode;
};

void topo_faults_free(TopoFaults *fl);
/* topo_gpus_nvlinked on a server whose NVLinks faults touched: a path of
 * the pair's NVLink routes is left (server.c intra_nvlink). */
gboolean topo_faulted_gpus_nvlinked(const TopoSystem *sys, guint32 server,
                                    guint32 ga, guint32 gb);

/* Sets "WHERE KEY: MESSAGE" with the given code; returns FALSE. */
gboolean topo_error(GError **error, TopoErrorCode code, const char *where,
                    const char *key, const char *fmt, ...) G_GNUC_PRINTF(5, 6);

/* Model ids for channel tech and node model fields. */
guint32 topo_tech_id(TopoSystem *sys, const MdlLink *l);
guint32 topo_switch_id(TopoSystem *sys, const MdlSwitch *s);
guint32 topo_nic_id(TopoSystem *sys, const MdlNic *n);

/* Adds a link of `width` physical links of model l between a and b. */
SimChannelId topo_add_link(TopoSystem *sys, SimNodeId a, SimNodeId b,
                           const MdlLink *l, guint32 width);

/* Builds every server (before the network) and computes the intra-server
 * routes once the fabric is finalized. */
gboolean topo_build_servers(TopoSystem *sys, GError **error);
/* FALSE when a signal stopped it (sim/interrupt.h), the table unfinished. */
gboolean topo_build_intra_routes(TopoSystem *sys);
/* Computes server s's own routes from its channels as faults left them
 * (intra_faulted[s]): NVLink spread over the links up, else the fastest
 * path left (PCIe).  FALSE when a signal stopped it. */
gboolean topo_rebuild_intra_routes(TopoSystem *sys, guint32 server);
void topo_intra_routes_free(TopoSystem *sys);
gboolean topo_route_intra(const TopoSystem *sys, SimNodeId src, SimNodeId dst,
                          SimPathSet *out);

/* What one kind of scale-out network does (topology = in [scaleout]): the
 * one table that loading, building, routing and analysis consult, instead
 * of each switching on the kind, as ROSS's LP type tables do.  Each kind
 * defines its own in its file (fattree.c, dragonfly.c, explicit.c);
 * topo_net_ops gives a system's. */
typedef struct {
  /* [scaleout] keys that only this kind reads (the others refuse them) */
  const char *const *keys;
  /* the routings it takes, first..last of TopoRouting, and their names
   * for messages; default_routing when [scaleout] names none */
  TopoRouting routing_first, routing_last, default_routing;
  const char *routings;
  gboolean tiered;        /* switches in tiers, each oversubscribed */
  gboolean network_group; /* it reads the file's [network] group */
  /* its network planes (every endpoint on one) */
  guint32 (*planes)(const TopoSystem *sys);
  /* builds the network on the endpoints; where ("FILE: [scaleout]") and
   * source name the file in messages; kf is the whole file */
  gboolean (*build)(TopoSystem *sys, GKeyFile *kf, const char *source,
                    const char *where, GError **error);
  /* a path between two endpoints of one plane; FALSE where none is */
  gboolean (*route)(const TopoSystem *sys, const TopoEndpoint *src,
                    const TopoEndpoint *dst, guint64 flow,
                    const SimLoadHook *load, SimPath *out);
  void (*free)(TopoSystem *sys); /* what build made, built or not */
  /* after faults changed which channels are up (topo_channel_up): makes
   * route avoid them (or nothing, where route reads them as it goes) */
  gboolean (*refault)(TopoSystem *sys, GError **error);
  /* the most switch hops between switches holding NICs, where build
   * already knows it; NULL: analysis searches the fabric for it */
  guint32 (*diameter)(const TopoSystem *sys);
} TopoNetOps;

extern const TopoNetOps topo_fattree_ops;
extern const TopoNetOps topo_dragonfly_ops;
extern const TopoNetOps topo_explicit_ops;

/* The operations of sys's network; NULL for topology = none. */
const TopoNetOps *topo_net_ops(const TopoSystem *sys);
/* TopoNetOps.planes of a network of one plane. */
guint32 topo_one_plane(const TopoSystem *sys);

/* Global links from group x to group y (for tests and reports). */
guint32 topo_dragonfly_links(const TopoSystem *sys, guint32 x, guint32 y);

/* Server index of a node (G_MAXUINT32 for network switches). */
guint32 topo_node_server(const TopoSystem *sys, SimNodeId n);

#endif /* TOPOLOGIES_SYSTEM_INTERNAL_H */
