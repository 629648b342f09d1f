/* NcclComm internals shared by collectives/nccl/ files; not for users. */
#ifndef COLLECTIVES_NCCL_NCCL_INTERNAL_H
#define COLLECTIVES_NCCL_NCCL_INTERNAL_H

#include "collectives/nccl/nccl.h"

/* NCCL's link classes for hardware latencies (NCCL_HW_*). */
enum { NCCL_HW_NVLINK, NCCL_HW_PCI, NCCL_HW_NET, NCCL_N_HW };

/* NCCL's architecture rows (NCCL_*_COMPCAP_IDX). */
enum {
  NCCL_ARCH_VOLTA,
  NCCL_ARCH_AMPERE,
  NCCL_ARCH_HOPPER,
  NCCL_ARCH_BLACKWELL,
  NCCL_N_ARCHS
};

/* A rule of NCCL's example tuner plugin (NcclTuner, tuner.c). */
typedef struct {
  NcclColl coll;
  guint64 min_bytes, max_bytes; /* both included */
  NcclAlgo algo;
  NcclProto proto;
  gint32 channels;                 /* -1: the plugin's 1; 0: NCCL's */
  gint32 nnodes, nranks, pipe_ops; /* -1: any */
  gint32 reg_buff;                 /* 0, 1; -1: any */
  guint line;                      /* in the file */
} NcclTunerRule;

const char *nccl_tuner_path(const NcclTuner *t);
guint nccl_tuner_n_rules(const NcclTuner *t);
const NcclTunerRule *nccl_tuner_rule(const NcclTuner *t, guint i);
/* Whether rule r matches a call (plugin.c pluginGetCollInfo). */
gboolean nccl_tuner_rule_matches(const NcclTunerRule *r, NcclColl coll,
                                 guint64 bytes, guint32 nnodes, guint32 nranks,
                                 gint32 pipe_ops, gint32 reg_buff);

struct NcclComm {
  const TopoSystem *sys;
  TopoGpuInfo gpu;
  NcclOptions opt;
  guint32 nranks, nnodes, ppn;
  guint32 *server_of; /* [nnodes]: the system's server of each node */
  guint32 *local_of;  /* [ppn]: the server's GPU of each local rank */
  guint32 arch;       /* NCCL_ARCH_* */
  gboolean nvl_intra; /* ranks of a node talk over NVLink (else PCIe) */
  gboolean all_nvlink; /* NCCL's isAllNvlink: every pair of a node's GPUs
                          on NVLink, if only by way of a third */
  NcclPath p2p_level; /* the P2P level in force (NcclOptions.p2p_level, or
                         the release's default for the host) */
  gboolean shm;       /* some ranks of a node stage through host memory */
  gboolean socket;    /* nodes talk over NCCL's socket transport (TCP through
                         host memory), not RDMA */
  guint32 socket_threads, socket_socks; /* a socket connection's helper
                                           threads and sockets (0 sockets:
                                           the proxy thread moves it) */
  gboolean pxn;       /* point-to-point sends cross NVLink to the GPU on the
                         receiver's rail (PXN); else each side's own NIC */
  guint32 qps;        /* queue pairs a network connection's data rides, each
                         its own flow to the fabric's routing (nccl_comm_new:
                         NCCL_IB_QPS_PER_CONNECTION over RoCE, else 1) */
  gboolean gdr_send;  /* the NIC reads the sender's GPU memory (GPUDirect
                         RDMA); else the step is staged in host memory */
  gboolean gdr_recv;  /* the NIC writes the receiver's GPU memory */
  gboolean net_via_cpu; /* the GPUs' path to their NICs goes through the
                           CPU (NCCL's typeInter beyond PXB) */
  /* What NCCL's topology search finds (graphs[a] in tuning.cc), per
   * channel, GB/s. */
  guint32 channels;        /* ring and tree channels of the search's graph */
  guint32 kernel_channels; /* the channels a full-size call launches
                              (comm->nChannels: the graph's, doubled by
                              ncclTopoPostset inside a node) */
  guint32 p2p_channels;    /* point-to-point channels (p2pnChannels) */
  guint32 p2p_peer_channels; /* the most a point-to-point operation takes
                                (p2pnChannelsPerPeer): nccl_comm_new */
  guint32 nvls_channels;   /* NVLS channels; 0: no NVLS */
  guint32 nvls_heads;      /* NVLS heads a node (NCCL's NVLS graph's
                              channels): a GPU each, across nodes at most a
                              NIC each, at most 32 from 2.25.1 */
  guint64 nvls_chunk;      /* NVLS's and (from 2.21.5) NVLSTree's chunk
                              before a call's halvings (nvlsChunkSize) */
  guint64 nvlstree_max_chunk; /* NVLSTree's largest chunk; 0: NCCL's
                                 default (64 KiB from 4 nodes, else the
                                 chunk) */
  double bw_intra;         /* per channel inside a node */
  double bw_inter;         /* per channel across nodes */
  double tree_bw_intra;    /* a tree's graph (search pass 2): bwIntra, */
  double tree_bw_inter;    /* and bwInter */
  double nvls_bw_intra;    /* the same per NVLS channel (NCCL's NVLS graph) */
  double nvls_bw_inter;
  double gpu_GBps;  /* NCCL's bandwidth of one GPU's NVLink / PCIe */
  double nic_GBps;  /* NCCL's bandwidth of one NIC (speed / 8000) */
  /* a connection's buffer per protocol, bytes (NcclOptions.buff_bytes, or
   * the release's default: nccl_comm_new) */
  guint64 buff_bytes[NCCL_N_PROTOS];
  gboolean collnet; /* SHARP switches and more than one node */
  gboolean pat;     /* one GPU per node: PAT enabled */
  /* The cost model (tuning.cc): algorithm bandwidth GB/s (0: not
   * available) and latency us, per collective, algorithm, protocol. */
  double bw[NCCL_N_TUNED_COLLS][NCCL_N_ALGOS][NCCL_N_PROTOS];
  double lat[NCCL_N_TUNED_COLLS][NCCL_N_ALGOS][NCCL_N_PROTOS];
  /* bus bandwidth per channel after the refinements, before the
   * conversion to algorithm bandwidth: what one channel of the algorithm
   * moves per link, GB/s; the planner caps each channel's transfers at it */
  double bus_ch[NCCL_N_TUNED_COLLS][NCCL_N_ALGOS][NCCL_N_PROTOS];
  const char *off[NCCL_N_TUNED_COLLS][NCCL_N_ALGOS][NCCL_N_PROTOS];
  /* Ring's algorithm bandwidth per collective and protocol before the
   * protocols' enabling (tuning.cc ringbdw, 2.19.1 to 2.23.4): what NCCL
   * restores where no algorithm is left to a collective */
  double ring_bdw[NCCL_N_TUNED_COLLS][NCCL_N_PROTOS];
};

/* The NCCL release whose choices the communicator makes (NcclOptions
 * nccl_version, or the default). */
static inline guint32 nccl_comm_version(const NcclComm *c)
{
  return c->opt.nccl_version ? c->opt.nccl_version : NCCL_VERSION_DEFAULT;
}

/* NCCL's slots per connection (device.h NCCL_STEPS): a protocol's buffer
 * is 8 steps, each a unit of the pipeline and of the network's sends. */
#define NCCL_STEPS 8u

/* The data bytes of one step of protocol p's buffer: Simple's whole
 * step; LL's half (a flag beside each 8-byte datum: enqueue.cc
 * calcCollChunking's chunkSize /= 2); LL128's 15/16 (a flag word in each
 * 128-byte line: NCCL_LL128_DATAELEMS of NCCL_LL128_LINEELEMS). */
guint64 nccl_step_data_bytes(const NcclComm *c, NcclProto p);

/* The chunk NCCL splits a point-to-point message by (init.cc
 * computeBuffSizes: NCCL_P2P_NET_CHUNKSIZE across nodes, NCCL_P2P_NVL_
 * CHUNKSIZE or NCCL_P2P_PCI_CHUNKSIZE inside one; at most a Simple step). */
guint64 nccl_p2p_chunk_bytes(const NcclComm *c);

/* The chunk of a point-to-point operation of `bytes` over the network
 * ("Tune chunk size for the network": enqueue.cc addP2pToPlan from 2.22,
 * proxy.cc ncclProxyComputeP2p before, where `bytes` was a channel's part):
 * a quarter of nccl_p2p_chunk_bytes for an operation below it, half for
 * one below 8 of it, else the whole. */
guint64 nccl_p2p_op_chunk_bytes(const NcclComm *c, guint64 bytes);
/* nc channels within NCCL_MIN_NCHANNELS and NCCL_MAX_NCHANNELS (the
 * options' min_channels, max_channels), at least 1 */
guint32 nccl_clamp_channels(const NcclComm *c, guint32 nc);

/* Network post overhead of an x86 Intel host (tuning.cc getNetOverhead), us;
 * twice that on AMD (the server's cpu). */
#define NCCL_NET_OVERHEAD_US 1.0

/* How long the host's CPU takes over a network post or a proxy action,
 * relative to an Intel host's: NCCL's own ratio (graph/tuning.cc
 * getNetOverhead: 1 us on Intel x86, 2 on AMD x86, 1 elsewhere). */
double nccl_host_net_factor(const NcclComm *c);

/* Whether a Simple receive over the network is flushed with an RDMA read
 * before the GPU takes it (graph/paths.cc ncclTopoNeedFlush): only by
 * GPUDirect RDMA (a receive into host memory needs none), before Hopper
 * (compute capability below 9.0), and on any GPU where
 * NCCL_NET_FORCE_FLUSH is set, as it is by default before 2.19.1
 * (NCCL_PARAM(NetForceFlush, "NET_FORCE_FLUSH", 1) in 2.16-2.18, 0 from
 * 2.19.1); and where the GPUs use their NICs' Data Direct function (from
 * 2.27.3), whose device NCCL's IB transport gives forceFlush (net_ib
 * getProperties), as 2.26's paths.cc would anyway for an NVLink-C2C GPU
 * whose NIC is within PXB ("control path is using C2C and data path is
 * using PCIe", 2.30).  Not modelled: another net plugin's forceFlush
 * (aws-ofi-nccl's is 0), and 2.30's skipping the C2C flush where GDRCopy
 * maps the receive's flags over PCIe (NCCL_GDRCOPY_ENABLE=1, 0 by
 * default: init.cc; net.cc). */
gboolean nccl_comm_net_flush(const NcclComm *c);

/* Whether the GPUs reach their NICs by the NICs' Data Direct DMA function
 * (comm.c says when NCCL does). */
gboolean nccl_comm_data_direct(const NcclComm *c);

/* Whether two GPUs of a server (local indices) use NCCL's P2P transport
 * (paths.cc ncclTopoCheckP2p: their path no farther than the P2P level,
 * and, over PCIe, the driver allowing it); else SHM, through host memory
 * (transport/shm.cc). */
gboolean nccl_comm_pair_p2p(const NcclComm *c, guint32 server, guint32 ga,
                            guint32 gb);

/* Fills the cost-model tables of a communicator whose topology fields are
 * set (tuning.c). */
void nccl_tune(NcclComm *comm);

/* Per-step hardware latency (us) NCCL charges an algorithm and protocol on
 * a link class, and its base latency (tuning.c's tables). */
double nccl_hw_latency_us(guint32 hw, NcclAlgo a, NcclProto p);
double nccl_base_latency_us(NcclAlgo a, NcclProto p);

/* The data bytes NCCL's kernels move per pipeline step for a collective
 * call (enqueue.cc calcCollChunking) on nch channels. */
guint64 nccl_slice_bytes(const NcclComm *c, NcclColl coll, NcclAlgo a,
                         NcclProto p, guint32 nch, guint64 bytes);

/* NCCL's NVLS efficiency of an architecture (NCCL_ARCH_*; 0 without). */
double nccl_nvls_efficiency(guint32 arch);

/* The first release whose NCCL_ALGO and NCCL_PROTO take FUNCTION:LIST
 * entries (tuning.cc parseList of 2.24.3; 2.23.4 has none). */
#define NCCL_V_PER_COLL_LISTS_FROM 22400u

/* The first release with PAT (tuning.cc ncclPatEnable, 2.23.4; no 2.23
 * before it was tagged). */
#define NCCL_V_PAT_FROM 22300u

/* Why release v runs no NVLS on a communicator of ppn GPUs a node over
 * nnodes nodes (nvls.cc), NULL where it may (the GPUs and NVSwitches
 * permitting). */
const char *nccl_nvls_release_off(guint32 v, guint32 ppn, guint32 nnodes);

/* NCCL_NVLS_NCHANNELS of release v (22809 for 2.28.9) on SM sm with
 * nnodes nodes (nvls.cc). */
guint32 nccl_nvls_channels(guint32 v, guint32 sm, guint32 nnodes);

/* The most NVLS heads (the NVLS graph's channels, a NIC and its GPU
 * each) NCCL's search of release v takes on a node; G_MAXUINT32: a GPU
 * each, however many. */
guint32 nccl_nvls_max_heads(guint32 v);

/* NCCL's per-link NVLink bandwidth for an SM (topo.h), GB/s. */
double nccl_nvlink_GBps(guint32 sm);

#endif /* COLLECTIVES_NCCL_NCCL_INTERNAL_H */
