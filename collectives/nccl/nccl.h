/* NcclComm: collectives as NCCL runs them, on a described system.
 *
 * A communicator is a set of ranks (one per GPU, server-major: rank r is
 * GPU r % ppn of server r / ppn) on a TopoSystem.  For one collective call
 * it does what NCCL does:
 *
 *   1. chooses an algorithm (Ring, Tree, NVLS, NVLSTree, CollNet Direct and
 *      Chain, PAT), a protocol (LL, LL128, Simple) and a channel count with
 *      NCCL's own cost model (src/graph/tuning.cc: base latency + per-step
 *      hardware latency + size / bandwidth, the same refinements and the
 *      same NCCL_ALGO / NCCL_PROTO / channel overrides), tuning.c, over the
 *      channels and bandwidths NCCL's topology search finds, comm.c;
 *   2. plans the call as NCCL's kernels move data: per channel, the ring or
 *      trees NCCL builds over this fabric (rings entering and leaving a
 *      server through the NIC of one rail, PXN), every edge a stream of
 *      protocol-framed chunks behind a pipeline head; plan.c;
 *   3. executes that plan as a DAG of transfers (sim/dag.h, exec.c) over
 *      the chosen transport (session.c), so contention on NVLink, PCIe,
 *      NICs and the network is the fabric's, not a formula's.
 *
 * Sizes follow nccl-tests: `bytes` is the whole array S (recvcount x n for
 * ReduceScatter, sendcount x n for AllGather, each rank's send buffer for
 * AllToAll, the message for Send/Recv). */
#ifndef COLLECTIVES_NCCL_NCCL_H
#define COLLECTIVES_NCCL_NCCL_H

#include <glib.h>

#include "sim/dag.h"
#include "sim/time.h"
#include "sim/transport.h"
#include "topologies/system.h"

/* In NCCL's order (ncclFunc_t), then the p2p operations. */
typedef enum {
  NCCL_COLL_BROADCAST,
  NCCL_COLL_REDUCE,
  NCCL_COLL_ALLGATHER,
  NCCL_COLL_REDUCESCATTER,
  NCCL_COLL_ALLREDUCE,
  NCCL_COLL_ALLTOALL,
  NCCL_COLL_SENDRECV,
  NCCL_N_COLLS
} NcclColl;

#define NCCL_N_TUNED_COLLS 5 /* the ones NCCL's cost model covers */

/* In NCCL's order (NCCL_ALGO_*). */
typedef enum {
  NCCL_ALGO_TREE,
  NCCL_ALGO_RING,
  NCCL_ALGO_COLLNET_DIRECT,
  NCCL_ALGO_COLLNET_CHAIN,
  NCCL_ALGO_NVLS,
  NCCL_ALGO_NVLS_TREE,
  NCCL_ALGO_PAT,
  NCCL_N_ALGOS
} NcclAlgo;

typedef enum {
  NCCL_PROTO_LL,
  NCCL_PROTO_LL128,
  NCCL_PROTO_SIMPLE,
  NCCL_N_PROTOS
} NcclProto;

#define NCCL_MAX_CHANNELS 32

/* The fewest ranks an AllToAll runs in closed form from (NcclOptions.
 * no_alltoall_closed): where running every pair at once takes seconds
 * to minutes a size and gigabytes.  A 16 MiB AllToAll on 1024 DGX H100
 * GPUs takes 10 s of CPU and 1.7 GiB (32 s and 2.8 GiB at 1 MiB before a
 * path set ran as one flow), on 128 (16 DGX H100 on a 2-tier ECMP
 * fat-tree, docs/cookbook/pod.ini) 8.3 s, every departure refilling the
 * flows that share the spines; the closed form takes 0.01-0.6 s, within
 * 1% of them (docs/transports.md).  64 ranks of the pod run in 0.3 s.
 * 1024 until 2026-12-07, when the closed form missed by 12% on two GB300
 * racks over RoCE (the flow transport's path sets, since fixed). */
#define NCCL_ALLTOALL_CLOSED_RANKS 128

/* The transport a plan runs on (sim/transport.h, sim/packet.h). */
typedef enum {
  NCCL_EXEC_ANALYTICAL,
  NCCL_EXEC_FLOW,
  NCCL_EXEC_PACKET, /* over topo_packet_link's view of the links */
} NcclExec;

/* Hooks that see a run from inside (a timeline, link samples); all
 * optional.  transfer: each transfer of the plan once it ended, moving
 * `bytes` (payload, before the protocol's LL/LL128 inflation) from rank
 * `rank` to rank `peer` on `channel` over [start, end]; rank or peer is
 * SIM_NONE for a switch or the network (NVLS, CollNet).  attach: the
 * run's engine and transport, before the first task (to schedule
 * samplers).  Read by every nccl_run of a communicator whose options point
 * here: a caller may set and clear the functions between runs. */
typedef struct {
  void (*transfer)(void *ctx, guint32 rank, guint32 channel, guint32 peer,
                   guint64 bytes, SimTime start, SimTime end);
  void (*attach)(void *ctx, SimEngine *e, SimTransport *t);
  void *ctx;
} NcclTrace;

/* NCCL's example tuner plugin with its rules (nccl_tuner_load). */
typedef struct NcclTuner NcclTuner;

/* NcclOptions.nvls_enable's settings that change the model */
#define NCCL_NVLS_ENABLE_OFF 1    /* NCCL_NVLS_ENABLE=0 */
#define NCCL_NVLS_ENABLE_FORCED 2 /* NCCL_NVLS_ENABLE=1 */
/* NcclOptions.pat_enable's */
#define NCCL_PAT_ENABLE_OFF 1    /* NCCL_PAT_ENABLE=0 */
#define NCCL_PAT_ENABLE_FORCED 2 /* NCCL_PAT_ENABLE=1 */

/* Which point-to-point chunk a communicator takes (init.cc
 * computeBuffSizes): across nodes, one node all on NVLink, else. */
typedef enum {
  NCCL_P2P_CHUNK_NET,
  NCCL_P2P_CHUNK_NVL,
  NCCL_P2P_CHUNK_PCI,
  NCCL_N_P2P_CHUNKS
} NcclP2pChunk;

typedef struct {
  guint32 algos;                      /* bit per NcclAlgo allowed; 0: all */
  guint32 protos;                     /* bit per NcclProto allowed; 0: all */
  /* a collective's own, from NCCL_ALGO's and NCCL_PROTO's FUNCTION:LIST
   * entries (nccl_parse_algos); 0: algos' and protos' */
  guint32 coll_algos[NCCL_N_TUNED_COLLS], coll_protos[NCCL_N_TUNED_COLLS];
  guint32 min_channels, max_channels; /* 0: NCCL's choice */
  guint32 ranks;                      /* 0: every GPU of the system */
  const char *ranks_name;             /* how nccl_comm_new's errors name `ranks`
                             ("-n", "run.ranks"); NULL: "ranks"; not kept */
  gboolean collnet; /* NCCL_COLLNET_ENABLE: use SHARP where the network
                       has it (CollNet, multi-node NVLS); off by default,
                       as in NCCL, which needs the SHARP plugin */
  guint32 gpus_per_process; /* ranks one host thread launches in turn, as
                               nccl-tests -g G does; 0 or 1: one rank per
                               process (mpirun -np N ... -g 1) */
  guint32 nccl_version; /* the NCCL whose cost model chooses, major x 10000
                           + minor x 100 + patch (2.26.2: 22602); 0: 2.28.9
                           (nccl_version_parse, docs/nccl.md) */
  guint32 iterations; /* nccl-tests -n: calls timed as one loop, its timer
                         started before the first is launched; 0: the
                         steady pace of a long loop */
  guint32 graph_launches;   /* nccl-tests -G K: the loop's calls captured in
                             a CUDA graph (one a GPU), the graphs launched K
                             times in turn and timed; 0: each call launched
                             by the host (nccl_tests_time) */
  SimTime packet_sample_ps; /* NCCL_EXEC_PACKET: sample queue depths this
                               often (sim_packet_set_sampling); 0: off */
  /* Run every channel, not one of each alike set (the fold is exact on
   * the flow and analytical transports; the packet transport and transfer
   * traces never fold: plan.h; docs/transports.md) */
  gboolean no_fold;
  /* Run every round of an edge's body as a transfer, also where no other
   * edge waits on them (exec.c; docs/transports.md) */
  gboolean all_rounds;
  /* On the packet transport, every packet of a flow alone on its path as
   * events, not in closed form (sim_packet_set_closed_form;
   * docs/transports.md) */
  gboolean packetwise;
  /* An AllToAll of NCCL_ALLTOALL_CLOSED_RANKS ranks or more runs in closed
   * form on the flow transport (nccl_plan_alltoall_closed; docs/
   * transports.md) unless this is set; alltoall_closed_ranks, when not 0,
   * moves that threshold (tests compare both ways on small systems) */
  gboolean no_alltoall_closed;
  guint32 alltoall_closed_ranks;
  gboolean set_net_proxy; /* net_proxy_us in place of the system's [nccl]
                             net_proxy_us (a calibration's search) */
  double net_proxy_us;
  /* The GPUs of a communicator that is not the first `ranks` GPUs: rank r
   * is GPU local_gpus[r % n_local] of server servers[r / n_local] (a
   * process group of a job: a TP group inside a server, a DP group of one
   * GPU per server, a job placed on some servers).  NULL: servers in order
   * from 0, GPUs from 0.  Copied by nccl_comm_new. */
  const guint32 *servers;
  guint32 n_servers;
  const guint32 *local_gpus;
  guint32 n_local;
  const NcclTrace *trace;   /* may be NULL; must outlive the runs */
  /* NCCL's example tuner plugin (NCCL_TUNER_PLUGIN) with these rules
   * (its NCCL_TUNER_CONFIG_FILE), choosing in NCCL's place, from NCCL
   * 2.28; NULL: none, NCCL's own choice.  Must outlive the runs. */
  const NcclTuner *tuner;
  /* NCCL_P2P_LEVEL / NCCL_P2P_DISABLE as NCCL reads them
   * (nccl_p2p_level_parse): NcclPath + 1; 0: the release's default */
  guint32 p2p_level;
  /* the setting that puts NCCL's traffic between servers on its socket
   * transport ("NCCL_IB_DISABLE", "NCCL_NET=Socket"): TCP through host
   * memory (docs/nccl.md); NULL: RDMA */
  const char *net_socket;
  /* NCCL_SOCKET_NTHREADS and NCCL_NSOCKS_PERTHREAD, each its value + 1
   * (0: unset, NCCL's choice by the NIC's vendor; nccl_comm_new applies
   * net_socket.cc ncclNetSocketGetNsockNthread) */
  guint32 socket_nthreads, socket_nsocks_per_thread;
  /* NCCL_NET_GDR_LEVEL (nccl_path_level_parse: NcclPath + 1; 0: PXB, NCCL's
   * default), NCCL_NET_GDR_READ and NCCL_NET_GDR_C2C (each 0: unset,
   * NCCL's default; 1: off; 2: on): where GPUDirect RDMA is used
   * (paths.cc ncclTopoCheckGdr) */
  guint32 gdr_level, gdr_read, gdr_c2c;
  /* NCCL_NET_FORCE_FLUSH, its value + 1 (0: unset, the release's default:
   * 1 before 2.19.1, 0 from it): whether a Simple receive by GPUDirect
   * RDMA is flushed on Hopper and later too (ncclTopoNeedFlush) */
  guint32 net_force_flush;
  /* NCCL_IB_DATA_DIRECT, its value + 1 (0: unset, NCCL's 1): whether a
   * GPU on NVLink-C2C uses its NIC's Data Direct function, from 2.27.3
   * (net_ib ncclIbInitDevices; nccl_comm_net_flush) */
  guint32 ib_data_direct;
  /* NCCL_IB_TIMEOUT and NCCL_IB_RETRY_CNT, each its value + 1 (0: the
   * release's default): an RDMA connection's retransmission timer and
   * retries (net_ib.cc; nccl_comm_ib_retry) */
  guint32 ib_timeout, ib_retry_cnt;
  /* NCCL_PXN_DISABLE and NCCL_P2P_PXN_LEVEL, each its value + 1 (0: unset,
   * NCCL's 0 and 2): whether a point-to-point send crosses NVLink to the
   * GPU on the receiver's rail (nccl_comm_new) */
  guint32 pxn_disable, p2p_pxn_level;
  /* NCCL_IB_QPS_PER_CONNECTION (1 to NCCL_IB_QPS_MAX; 0: unset, NCCL's 1):
   * the queue pairs a connection's data rides over the IB transport, each
   * its own flow to the fabric's routing on RoCE (nccl_comm_new) */
  guint32 ib_qps;
  /* NCCL_NVLS_ENABLE, its value + 1 (0: unset, NCCL's 2):
   * NCCL_NVLS_ENABLE_OFF (0) no NVLS algorithm; NCCL_NVLS_ENABLE_FORCED
   * (1) NVLS forced, which fails the job where the GPUs have none; 3 (2)
   * NVLS where the GPUs have it (nvls.cc ncclNvlsInit) */
  guint32 nvls_enable;
  /* NCCL_PAT_ENABLE, its value + 1 (0: unset, NCCL's 2): 1 (0) no PAT,
   * 3 (2) PAT with one GPU a node (tuning.cc ncclPatEnable); 2 (1) forces
   * it whatever the GPUs a node, which ifsim does not model (refused) */
  guint32 pat_enable;
  /* The calls' element type and reduction as nccl-tests names them (-d,
   * -o: "bfloat16", "avg"); NULL: float and sum.  NVLS reduces only the
   * types and operations its kernels have (nccl_nvls_reduces). */
  const char *dtype;
  const char *redop;
  /* NCCL_LL_BUFFSIZE, NCCL_LL128_BUFFSIZE and NCCL_BUFFSIZE: a connection's
   * buffer per protocol (NcclProto), bytes, its NCCL_STEPS (8) slots the
   * pipeline's steps (nccl_buffsize_parse); 0: the release's default
   * (init.cc computeBuffSizes) */
  guint64 buff_bytes[NCCL_N_PROTOS];
  /* NCCL_P2P_NET_CHUNKSIZE, NCCL_P2P_NVL_CHUNKSIZE, NCCL_P2P_PCI_CHUNKSIZE
   * (NcclP2pChunk): the point-to-point chunk of a communicator across
   * nodes, of one node whose GPUs are all on NVLink, and of one whose are
   * not, bytes (nccl_chunk_parse); 0: NCCL's 128 KiB, 512 KiB,
   * 128 KiB (init.cc computeBuffSizes) */
  guint64 p2p_chunk_bytes[NCCL_N_P2P_CHUNKS];
  /* NCCL_NVLS_CHUNKSIZE (from 2.21.5) and NCCL_NVLSTREE_MAX_CHUNKSIZE
   * (from 2.20.3), bytes (nccl_chunk_parse); 0: unset */
  guint64 nvls_chunk_bytes, nvlstree_max_chunk_bytes;
} NcclOptions;

/* NCCL's path types, nearest first (graph/topo.h PATH_*): two GPUs use P2P
 * when their path is no farther than the P2P level (graph/paths.cc
 * ncclTopoCheckP2p), else they stage through host memory (SHM). */
typedef enum {
  NCCL_PATH_LOC,
  NCCL_PATH_NVL,
  NCCL_PATH_NVB,
  NCCL_PATH_C2C,
  NCCL_PATH_PIX,
  NCCL_PATH_PXB,
  NCCL_PATH_P2C,
  NCCL_PATH_PXN,
  NCCL_PATH_PHB,
  NCCL_PATH_SYS,
  NCCL_N_PATHS
} NcclPath;

/* NCCL_P2P_DISABLE and NCCL_P2P_LEVEL as NCCL's ncclGetLevel reads them:
 * DISABLE=1 is level LOC (no P2P, NVLink included) and wins; DISABLE=0 or
 * unset leaves LEVEL, a path name (LOC, NVL, NVB, C2C, PIX, PXB, P2C, PXN,
 * PHB, SYS) or the old numbers 0-5 (LOC, PIX, PXB, PHB, SYS, SYS).  Either
 * may be NULL (unset).  *out: NcclPath + 1, 0 when neither is set.  Where
 * NCCL ignores a value it does not know, this fails naming the variable. */
gboolean nccl_p2p_level_parse(const char *disable, const char *level,
                              guint32 *out, GError **error);
/* A path level as ncclGetLevel reads one (NCCL_NET_GDR_LEVEL, ...): a path
 * name or an old number, into *out as NcclPath + 1 (0: unset); name names
 * the variable in the error. */
gboolean nccl_path_level_parse(const char *name, const char *level,
                               guint32 *out, GError **error);
const char *nccl_path_name(NcclPath p); /* "PHB" */

/* An NCCL_PARAM integer variable's value from lo to hi into *out (0 when
 * value is NULL or empty: unset), read as NCCL's ncclLoadParam reads it
 * (misc/param.cc: strtoll base 0, so 0x hex and 0 octal too).  Where
 * strtoll would stop early ("4M": NCCL takes 4) this refuses the value;
 * the error names the variable and says `expected`. */
gboolean nccl_param_parse(const char *name, const char *value, guint64 lo,
                          guint64 hi, const char *expected, guint64 *out,
                          GError **error);
/* The variable that sizes protocol p's buffers: "NCCL_BUFFSIZE" (Simple),
 * "NCCL_LL_BUFFSIZE", "NCCL_LL128_BUFFSIZE". */
const char *nccl_buffsize_var(NcclProto p);
/* A buffer size as NCCL reads one (init.cc NCCL_PARAM BuffSize: an
 * integer of bytes, kept in an int): from NCCL_BUFFSIZE_MIN to
 * G_MAXINT32, into *out (0 when value is NULL or empty: the release's
 * default); name names the variable in the error. */
gboolean nccl_buffsize_parse(const char *name, const char *value, guint64 *out,
                             GError **error);
/* NCCL_IB_QPS_PER_CONNECTION's value (net_ib.cc NCCL_PARAM IbQpsPerConn):
 * from 1 to NCCL_IB_QPS_MAX, into *out (0 when value is NULL or empty);
 * name names the variable in the error. */
gboolean nccl_ib_qps_parse(const char *name, const char *value, guint32 *out,
                           GError **error);
/* The variable that sets chunk k: "NCCL_P2P_NET_CHUNKSIZE",
 * "NCCL_P2P_NVL_CHUNKSIZE", "NCCL_P2P_PCI_CHUNKSIZE". */
const char *nccl_p2p_chunk_var(NcclP2pChunk k);
/* A chunk size as NCCL reads one (init.cc NCCL_PARAM P2pNetChunkSize
 * etc., nvls.cc NvlsChunkSize, NvlsTreeMaxChunkSize: an int of bytes):
 * from NCCL_P2P_CHUNK_MIN to G_MAXINT32, into *out (0 when value is NULL
 * or empty: NCCL's default); name names the variable in the error. */
gboolean nccl_chunk_parse(const char *name, const char *value, guint64 *out,
                          GError **error);
/* The smallest chunk ifsim takes (point-to-point, NVLS): a page, 4 KiB,
 * as the smallest step of a buffer (NCCL_BUFFSIZE_MIN); NCCL checks
 * nothing. */
#define NCCL_P2P_CHUNK_MIN 4096u

/* The smallest buffer ifsim takes: 8 steps (NCCL_STEPS) of 4 KiB, so a
 * step holds at least a page of data; NCCL itself checks nothing, and
 * smaller buffers break its kernels' alignment. */
#define NCCL_BUFFSIZE_MIN 32768u

/* The most NCCL_IB_QPS_PER_CONNECTION ifsim takes: as many queue pairs as
 * the paths it keeps for a connection (SIM_PATHSET_MAX); NCCL's own
 * arrays hold 128 (net_ib.cc NCCL_IB_MAX_QPS). */
#define NCCL_IB_QPS_MAX 32u

/* The NCCL release ifsim's cost model follows by default (2.28.9). */
#define NCCL_VERSION_DEFAULT 22809u

/* Reads "2.26.2", "2.26" (patch 0) or NCCL's own "2.26.2+cuda12.8" into
 * major x 10000 + minor x 100 + patch: NCCL 2, minor and patch below 100.
 * Fails with a message naming `what` and the expected form. */
gboolean nccl_version_parse(const char *text, const char *what, guint32 *out,
                            GError **error);
/* NCCL_VERSION_CODE / ncclGetVersion's number (22602; before 2.9, 2708 for
 * 2.7.8) as that form, and that form as "2.26.2" (free it). */
guint32 nccl_version_from_code(long code);
char *nccl_version_text(guint32 v);

const char *nccl_coll_name(NcclColl c);      /* "AllReduce" */
const char *nccl_coll_test_name(NcclColl c); /* "all_reduce_perf" */
gboolean nccl_coll_is_reduction(NcclColl c);
gboolean nccl_coll_is_rooted(NcclColl c);
const char *nccl_algo_name(NcclAlgo a); /* "Ring", "NVLSTree", ... */
/* The algorithms' names in lowercase snake case ("nvls_tree"), NcclAlgo's
 * order: NCCL's example tuner plugin's and the [nccl] keys' */
extern const char *const nccl_algo_keys[];
const char *nccl_proto_name(NcclProto p);

/* Parses a collective name, case-insensitive, '_' ignored, also the
 * nccl-tests binary stems ("all_reduce", "sendrecv", "alltoall"). */
gboolean nccl_coll_parse(const char *name, NcclColl *out);

/* Parses an NCCL_ALGO / NCCL_PROTO value as NCCL reads it (tuning.cc
 * parseList, 2.24 and later): a comma-separated list of names,
 * case-insensitive, or "^list" for all but those, for every collective;
 * then entries FUNCTION:LIST, separated by ';', each replacing one
 * collective's list (Broadcast, Reduce, AllGather, ReduceScatter,
 * AllReduce, case-insensitive; only the first entry may lack its
 * prefix): "ring,tree;allreduce:^ring".  Sets *mask (0 where no entry
 * lacks a prefix: all) and per_coll[NCCL_N_TUNED_COLLS] (0: *mask's);
 * per_coll NULL refuses prefixes.  `what` names the source in errors
 * ("NCCL_ALGO", "--algo"). */
gboolean nccl_parse_algos(const char *list, const char *what, guint32 *mask,
                          guint32 *per_coll, GError **error);
gboolean nccl_parse_protos(const char *list, const char *what, guint32 *mask,
                           guint32 *per_coll, GError **error);

/* The rules of NCCL's example tuner plugin (plugins/tuner/example of NCCL
 * 2.28 to 2.30, plugin.c), as it reads NCCL_TUNER_CONFIG_FILE: lines of
 * collective_type,min_bytes,max_bytes,algorithm,protocol,channels,
 * nNodes,nRanks[,numPipeOps[,regBuff]], # comments.  The first rule that
 * matches a call (its collective, its bytes within min_bytes..max_bytes,
 * and nodes, ranks, operations and registration, each -1 for any) and
 * whose algorithm and protocol can run it is chosen, on its channels;
 * channels -1, or no rule matching (NCCL's own choice then), leaves the
 * plugin's default of one channel, and 0 NCCL's count.  The plugin's
 * init also lowers three of NCCL's constants for Blackwell (nccl_tune).
 * A line the plugin would skip or misread is refused, naming its place.
 * Free with nccl_tuner_free. */
NcclTuner *nccl_tuner_load(const char *path, GError **error);
/* The same from the len bytes of text (not NUL-terminated), named path. */
NcclTuner *nccl_tuner_load_data(const char *text, gsize len, const char *path,
                                GError **error);
void nccl_tuner_free(NcclTuner *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(NcclTuner, nccl_tuner_free)
/* The first NCCL release whose example tuner plugin reads rules. */
#define NCCL_TUNER_RULES_FROM 22800u

/* Where nccl_env_read finds a variable: its value, NULL (or "") where it
 * is unset; where not NULL, *where may be set to how messages name the
 * place it came from ("nccl.conf:3"; left alone: the reader's origin). */
typedef const char *(*NcclEnvGet)(void *ctx, const char *name,
                                  const char **where);

/* The NCCL_* variables the model follows (nccl_env_read), NULL-ended. */
extern const char *const nccl_env_vars[];
/* Whether name is one of them. */
gboolean nccl_env_known(const char *name);

/* Reads the NCCL_* variables of nccl_env_vars through get (the process's
 * environment, a dataset's stated settings) into n, as NCCL reads each:
 * the algorithm and protocol lists, the channel bounds (the larger
 * minimum and the smaller maximum of NCCL_{MIN,MAX}_{NCHANNELS,CTAS}),
 * CollNet, the network transport (NCCL_IB_DISABLE, NCCL_NET, the socket
 * threads), GPUDirect RDMA, the IB connection's settings, NVLS, PXN, the
 * buffers and chunks, and the P2P level.  Each field those variables
 * govern is set, to 0 (NCCL's default) where they are unset; n's other
 * fields are untouched.  Errors name origin and the variable
 * ("environment NCCL_BUFFSIZE='4M': expected ..."; origin NULL:
 * "environment"). */
gboolean nccl_env_read(NcclOptions *n, NcclEnvGet get, void *ctx,
                       const char *origin, GError **error);

/* Whether NVLS's kernels reduce elements of type `dtype` with `redop`
 * (nccl-tests' names; NULL: float, sum): device.h ncclNvlsSupported, the
 * same table from 2.17.1 to 2.30.7 (NCCL_NVLS_SUPPORTS before 2.19):
 * sum, min and max of 32- and 64-bit integers, half and bfloat16; sum
 * alone of float and double; nothing of 8-bit integers or fp8, and no
 * prod or avg (NCCL runs avg as a pre-multiplied sum or a sum then a
 * division, which NVLS has not). */
gboolean nccl_nvls_reduces(const char *dtype, const char *redop);

/* What opt allows collective coll (a tuned one): its own list, else
 * every collective's (bits of NcclAlgo or NcclProto; 0: all). */
guint32 nccl_allowed_algos(const NcclOptions *opt, NcclColl coll);
guint32 nccl_allowed_protos(const NcclOptions *opt, NcclColl coll);

/* nccl-tests' bus bandwidth factor for n ranks. */
double nccl_bus_factor(NcclColl c, guint32 n);

typedef struct NcclComm NcclComm;

/* A communicator over sys (which must outlive it).  Fails when the ranks
 * do not fill whole servers or exceed the system's GPUs. */
NcclComm *nccl_comm_new(const TopoSystem *sys, const NcclOptions *opt,
                        GError **error);
void nccl_comm_free(NcclComm *comm);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(NcclComm, nccl_comm_free)

guint32 nccl_comm_ranks(const NcclComm *comm);
guint32 nccl_comm_nodes(const NcclComm *comm);
/* Whether some ranks of a node stage through host memory (NCCL's SHM
 * transport: no P2P between them). */
gboolean nccl_comm_uses_shm(const NcclComm *comm);
/* Whether its nodes talk over NCCL's socket transport (TCP). */
gboolean nccl_comm_uses_socket(const NcclComm *comm);
/* The system's GPU (fabric node) of rank r, its server and its index in
 * that server. */
SimNodeId nccl_comm_rank_gpu(const NcclComm *comm, guint32 r);
guint32 nccl_comm_rank_server(const NcclComm *comm, guint32 r);
/* An RDMA connection's retransmission timer (the QP's Local ACK Timeout,
 * 4.096 us x 2^NCCL_IB_TIMEOUT: 18 up to 2.22, 20 from 2.23) and how many
 * times it retransmits before the connection fails (NCCL_IB_RETRY_CNT,
 * 7): net_ib.cc sets both on every QP. */
void nccl_comm_ib_retry(const NcclComm *comm, SimTime *timeout_ps,
                        guint32 *retries);
guint32 nccl_comm_rank_local(const NcclComm *comm, guint32 r);

/* What NCCL would run for one call, and its own estimate. */
typedef struct {
  NcclAlgo algo;
  NcclProto proto;
  guint32 channels;
  double model_us; /* NCCL's cost-model time of this choice */
} NcclChoice;

/* Chooses as NCCL does.  explain (may be NULL) gets one line per
 * candidate with its latency, bandwidth and time, and why the winner won
 * or why another was not eligible.  Fails when the options leave nothing
 * that can run this collective here. */
gboolean nccl_select(const NcclComm *comm, NcclColl coll, guint64 bytes,
                     NcclChoice *out, GString *explain, GError **error);

typedef struct {
  SimTime time_ps;    /* from the call to its last byte */
  SimTime pace_ps;    /* its period when run back to back (nccl_run; a
                         session's runs: time_ps): time_ps, less for a
                         chain (nccl_execution_pace, exec.h) */
  guint64 transfers;  /* transfers executed */
  guint64 tasks;      /* DAG tasks (transfers and delays) */
  guint32 peak_tasks; /* most alive at once */
  double wall_s;      /* wall time of the execution */
  /* lossy links (topo_channel_ber): the chance that the call loses a
   * packet no other follows, and stalls for its connection's
   * retransmission timer (nccl_comm_ib_retry); time_ps leaves it out */
  double stall_prob;
  /* an AllToAll run in closed form (NcclOptions.no_alltoall_closed):
   * nothing was executed, transfers and tasks are 0 */
  gboolean closed_form;
} NcclRunStats;

/* Called after a run with its transport and end time, before both go:
 * for per-link reports (traces/linkstats.h) and, on the packet transport,
 * per-port counters and queue samples (traces/portstats.h). */
typedef void (*NcclInspectFn)(void *ctx, const SimTransport *t, SimTime end);

/* The host's time to launch one rank's call on `channels` channels, us:
 * [nccl] host_launch_us for the first channel and, before NCCL 2.22,
 * host_launch_per_channel_us for each further one
 * (nccl_launch_per_channel). */
double nccl_launch_us(const NcclComm *comm, guint32 channels);

/* Whether NCCL `version` (NcclOptions.nccl_version; 0: the default) hands
 * a launch's work over channel by channel: up to 2.21 the host writes a
 * 512-byte ncclWork for every channel into the work FIFO (enqueue.cc
 * uploadWork of 2.21.5), from 2.22 one work struct that names the
 * channels it spans (channelLo..channelHi, uploadWork of 2.22.3). */
gboolean nccl_launch_per_channel(guint32 version);

/* The same from the two constants (a fit of them, validate/accuracy.c);
 * per_channel_us applies where nccl_launch_per_channel holds. */
double nccl_launch_cost_us(double launch_us, double per_channel_us,
                           guint32 channels, guint32 version);

/* The time per call nccl-tests reports for calls that take call_ps on the
 * GPUs on `channels` channels, and follow one another on the GPUs every
 * pace_ps (NcclRunStats), run back to back: a process driving G GPUs
 * (gpus_per_process) launches their kernels one after another, G L per
 * iteration (L = nccl_launch_us), while the GPUs run the previous call;
 * the slower of the two sets the pace P = max(pace_ps, G L).  nccl-tests
 * starts its timer before it launches the first of n calls
 * (options.iterations; BenchTime in common.cu), and that call starts once
 * its last kernel is launched: the n calls take G L + call_ps + (n - 1) P,
 * over n; with n = 0, P.
 *
 * With graph_launches K (nccl-tests -G K), the n calls were captured into
 * one CUDA graph a GPU before the timer starts, and the host launches the
 * G graphs K times in turn (BenchTime: cudaGraphLaunch after
 * cudaStreamEndCapture and cudaGraphInstantiate): NCCL's host work was done
 * at capture, and the host only launches graphs, G L1 a round (L1 = the
 * launch on one channel, taken for a graph launch's cost), while the GPUs
 * run the round's n calls.  The n K calls take G L1 + call_ps + (n K - 1)
 * P, P = max(pace_ps, G L1 / n), over n K; with n = 0 (a long loop), the
 * GPUs' pace alone. */
SimTime nccl_tests_time(const NcclComm *comm, SimTime call_ps, SimTime pace_ps,
                        guint32 channels);

/* The same from its parts: the host's time per iteration host_ps (G L)
 * and nccl-tests' n (0: the steady pace).  Pure: what a fit of the launch
 * constants (validate/accuracy.c) evaluates. */
SimTime nccl_tests_loop_time(SimTime call_ps, SimTime pace_ps, SimTime host_ps,
                             guint32 iterations);

/* Plans the call with `choice` and executes it on a fresh engine over the
 * given transport; inspect (may be NULL) sees the transport at the end.
 * Fails when the choice cannot run here (a route missing, ...). */
gboolean nccl_run(const NcclComm *comm, NcclColl coll, guint64 bytes,
                  const NcclChoice *choice, NcclExec exec,
                  NcclInspectFn inspect, void *inspect_ctx, NcclRunStats *out,
                  GError **error);

/* A session: one engine, transport and DAG over a system, into which
 * several calls are planned, on any communicators of that system, each
 * launching once the tasks it is given are done: the collectives of a
 * training step with their compute (delay tasks of the DAG), or several
 * jobs at once.  They share the fabric as concurrent kernels do. */
typedef struct NcclSession NcclSession;

NcclSession *nccl_session_new(const TopoSystem *sys, NcclExec exec,
                              SimTime packet_sample_ps);
void nccl_session_free(NcclSession *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(NcclSession, nccl_session_free)

/* The DAG, for the caller's own tasks (compute, joins). */
SimDag *nccl_session_dag(NcclSession *s);
SimEngine *nccl_session_engine(NcclSession *s);
const SimTransport *nccl_session_transport(const NcclSession *s);

/* How a call joins a session. */
typedef struct {
  const SimTask *after; /* it launches once these are done (none: now) */
  guint32 n_after;
  gboolean one_way; /* Send/Recv from rank 0 to rank 1 only (a pipeline
                       stage's send), not both ways as sendrecv_perf */
  SimTaskFn done;   /* called (may be NULL) when the call ends */
  void *ctx;
  guint64 user;
} NcclCallSpec;

/* Plans a call with `choice` (spec may be NULL: at once, no callback);
 * *done (may be NULL) gets a task that ends with the call.  Calls may be
 * added before the run or while it runs (from a task's completion
 * function); a call's plan is released when it ends.  Fails when the
 * choice cannot run here or the calls in flight would exceed the memory
 * limit (sim/memory.h). */
gboolean nccl_session_add(NcclSession *s, const NcclComm *comm, NcclColl coll,
                          guint64 bytes, const NcclChoice *choice,
                          const NcclCallSpec *spec, SimTask *done,
                          GError **error);

/* Runs everything planned to its end; out (may be NULL) gets the time of
 * the last task and the counts. */
gboolean nccl_session_run(NcclSession *s, NcclRunStats *out, GError **error);

#endif /* COLLECTIVES_NCCL_NCCL_H */
