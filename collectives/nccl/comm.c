/* NcclComm: a communicator over a built system, as NCCL's init finds it.
 *
 * The ranks (one per GPU, server-major: rank r is GPU local_of[r % ppn] of
 * server server_of[r / ppn]), and what NCCL's topology search
 * (src/graph/search.cc ncclTopoCompute, then ncclTopoPostset) gives them:
 * the ring and tree channels and their bandwidth inside a node and across
 * nodes, the NVLS channels, whether CollNet and PAT are available.  The
 * cost-model tables that choose among algorithms are filled from these by
 * nccl_tune (tuning.c); plans (plan.c) read the rank placement.
 *
 * Invariants: nranks = nnodes x ppn >= 2; server_of and local_of are the
 * communicator's own, distinct and within the system. */
#include "collectives/error.h"
#include "collectives/nccl/nccl_internal.h"

#include <math.h>
#include "models/registry.h"

/* How messages name the rank count (NcclOptions.ranks_name). */
#define RANKS_NAME(c) ((c)->opt.ranks_name ? (c)->opt.ranks_name : "ranks")

static double link_GBps(const MdlLink *l)
{
  return l ? mdl_link_rate_Bps(l) / 1e9 : 0;
}

/* NCCL's bandwidth of a PCIe link (topo.h PCI_BW 12 GB/s for Gen3 x16,
 * 15.75 GB/s of data; topo.cc: width x rate / 80, so later generations and
 * widths scale with the link's data rate): 48 GB/s for Gen5 x16. */
static double nccl_pci_GBps(const MdlLink *l)
{
  return link_GBps(l) * 12.0 / 15.75;
}

/* Checks a list of distinct indices below `limit`; `what` names it. */
static gboolean check_indices(const guint32 *v, guint32 n, guint32 limit,
                              const char *what, GError **error)
{
  g_autofree guint8 *seen = g_new0(guint8, limit);

  for (guint32 i = 0; i < n; i++) {
    if (v[i] >= limit) {
      g_set_error(error, COLL_ERROR, COLL_ERROR_VALUE,
                  "%s: %u is not below the system's %u", what, v[i], limit);
      return FALSE;
    }
    if (seen[v[i]]++) {
      g_set_error(error, COLL_ERROR, COLL_ERROR_VALUE,
                  "%s: %u appears twice (each once)", what, v[i]);
      return FALSE;
    }
  }
  return TRUE;
}

/* The servers and GPUs of the communicator: opt's lists, or the first
 * `ranks` GPUs, servers in order. */
static gboolean comm_place(NcclComm *c, guint32 g, guint32 servers,
                           GError **error)
{
  guint32 total = g * servers;

  if (c->opt.servers || c->opt.local_gpus) {
    if (!c->opt.servers || !c->opt.local_gpus || c->opt.n_servers == 0 ||
        c->opt.n_local == 0) {
      g_set_error(error, COLL_ERROR, COLL_ERROR_VALUE,
                  "a communicator's GPUs need both its servers and their "
                  "GPUs");
      return FALSE;
    }
    if (!check_indices(c->opt.servers, c->opt.n_servers, servers, "servers",
                       error) ||
        !check_indices(c->opt.local_gpus, c->opt.n_local, g, "GPUs of a server",
                       error))
      return FALSE;
    c->nnodes = c->opt.n_servers;
    c->ppn = c->opt.n_local;
    c->nranks = c->nnodes * c->ppn;
    if (c->nranks < 2 || (c->opt.ranks && c->opt.ranks != c->nranks)) {
      g_set_error(error, COLL_ERROR, COLL_ERROR_VALUE,
                  "%s: %u servers of %u GPUs make %u ranks (expected at "
                  "least 2%s)",
                  RANKS_NAME(c), c->nnodes, c->ppn, c->nranks,
                  c->opt.ranks ? ", and as many as asked" : "");
      return FALSE;
    }
    c->server_of = g_memdup2(c->opt.servers, c->nnodes * sizeof(guint32));
    c->local_of = g_memdup2(c->opt.local_gpus, c->ppn * sizeof(guint32));
  } else {
    c->nranks = c->opt.ranks ? c->opt.ranks : total;
    if (c->nranks < 2 || c->nranks > total) {
      g_set_error(error, COLL_ERROR, COLL_ERROR_VALUE,
                  "%s: %u is not between 2 and the system's %u GPUs (%u "
                  "servers of %u)",
                  RANKS_NAME(c), c->nranks, total, servers, g);
      return FALSE;
    }
    if (c->nranks > g && c->nranks % g != 0) {
      g_set_error(error, COLL_ERROR, COLL_ERROR_VALUE,
                  "%s: %u does not fill whole servers of %u GPUs (one rank "
                  "per GPU, servers in order)",
                  RANKS_NAME(c), c->nranks, g);
      return FALSE;
    }
    c->ppn = MIN(c->nranks, g);
    c->nnodes = c->nranks / c->ppn;
    c->server_of = g_new(guint32, c->nnodes);
    c->local_of = g_new(guint32, c->ppn);
    for (guint32 k = 0; k < c->nnodes; k++)
      c->server_of[k] = k;
    for (guint32 i = 0; i < c->ppn; i++)
      c->local_of[i] = i;
  }
  /* the lists are the communicator's own now */
  c->opt.servers = c->server_of;
  c->opt.local_gpus = c->local_of;
  c->opt.n_servers = c->nnodes;
  c->opt.n_local = c->ppn;
  return TRUE;
}

/* The NICs a node's ranks reach the network by: all of the server's when
 * it has all of its GPUs (NCCL's search may route rings through any), else
 * each GPU's nearest; only those up where faults took some down (NCCL
 * sees the ports up, and the communicator keeps the fewest channels any
 * node's search found: the node with the fewest NICs up sets them). */
static guint32 comm_nics(const NcclComm *c)
{
  g_autofree guint8 *used = g_new0(guint8, c->gpu.nics);
  guint32 fewest = G_MAXUINT32;
  gboolean all = c->ppn == topo_system_gpus_per_server(c->sys);

  for (guint32 i = 0; !all && i < c->ppn; i++) {
    guint32 nic = topo_gpu_nic(c->sys, c->local_of[i]);

    if (nic < c->gpu.nics)
      used[nic] = 1;
  }
  for (guint32 k = 0; k < c->nnodes; k++) {
    guint32 n = 0;

    for (guint32 nic = 0; nic < c->gpu.nics; nic++)
      n += (all || used[nic]) && topo_nic_up(c->sys, c->server_of[k], nic);
    fewest = MIN(fewest, n);
  }
  /* a node with none up fails when its routes are planned, naming it */
  return MAX(fewest, 1u);
}

/* NCCL reads each NIC's speed from its port (net_ib.cc: active speed x
 * width), and the communicator keeps the lowest bandwidth any node's
 * search found: where faults slowed a NIC's port, the slowest NIC up that
 * the ranks use sets nic_GBps for the tuning (the transports run every
 * link at its own rate regardless). */
static void slowest_nic(NcclComm *c)
{
  guint32 down, slow;
  gboolean all = c->ppn == topo_system_gpus_per_server(c->sys);

  topo_system_fault_counts(c->sys, &down, &slow);
  if (slow == 0)
    return;
  for (guint32 k = 0; k < c->nnodes; k++) {
    for (guint32 i = 0; i < (all ? c->gpu.nics : c->ppn); i++) {
      guint32 nic = all ? i : topo_gpu_nic(c->sys, c->local_of[i]);

      if (topo_nic_up(c->sys, c->server_of[k], nic))
        c->nic_GBps = MIN(
            c->nic_GBps, topo_nic_rate_Bps(c->sys, c->server_of[k], nic) / 1e9);
    }
  }
}

/* The speed NCCL's ring search gives a channel through one NIC port: the
 * port's, or the PCIe links' between the GPU and the NIC if slower. */
static double search_GBps(const NcclComm *c, const MdlLink *port)
{
  const MdlRegistry *models = topo_system_models(c->sys);
  double s = link_GBps(port);

  if (c->gpu.nic->host_link) {
    const MdlLink *h = mdl_registry_link(models, c->gpu.nic->host_link);

    if (h)
      s = MIN(s, link_GBps(h));
  }
  if (c->gpu.gpu_pcie)
    s = MIN(s, link_GBps(c->gpu.gpu_pcie));
  return s;
}

/* ncclTopoDupChannels: a graph of 25 GB/s or more a channel is duplicated
 * at half the speed, except from 2.19.3 on Hopper and later below 50 GB/s
 * with more than 4 channels (before 2.19.3 after pass 2, from 2.19.3
 * before it).  Returns what the speeds were divided by (1: not
 * duplicated), for a graph's other speed. */
static guint32 dup_channels(guint32 v, guint32 sm, guint32 most, guint32 *n,
                            double *s)
{
  guint32 dup, k;

  if (*s < 25 || (v >= 21903 && sm > 80 && *s < 50 && *n > 4))
    return 1;
  dup = MIN(2 * *n, most);
  k = (dup + *n - 1) / *n;
  *s /= k;
  *n = dup;
  return k;
}

/* The speeds NCCL's search tries for a graph across nodes, GB/s, fastest
 * first (search.cc speedArrayInter, sm90SpeedArrayInter and
 * sm100SpeedArrayInter of each release): Hopper had the generic list up
 * to 2.16.2, Blackwell Hopper's up to 2.24. */
static const double *inter_speeds(guint32 v, guint32 sm)
{
  static const double gen_216[] = {48, 30, 28, 24, 22, 18,  15,  12,   10,   9,
                                   7,  6,  5,  4,  3,  2.4, 1.2, 0.24, 0.12, 0};
  static const double gen[] = {48, 30, 28, 24, 20, 18,  15,  12,   10,   9,
                               7,  6,  5,  4,  3,  2.4, 1.2, 0.24, 0.12, 0};
  static const double h_2165[] = {48, 45,  30,  24,   15,   12, 6,
                                  3,  2.4, 1.2, 0.24, 0.12, 0};
  static const double h_2181[] = {48, 45, 42,  40,  30,   24,   15, 12,
                                  6,  3,  2.4, 1.2, 0.24, 0.12, 0};
  static const double h_2183[] = {48, 45, 42, 40,  30,  24,   20,   17.5, 15,
                                  12, 6,  3,  2.4, 1.2, 0.24, 0.12, 0};
  static const double h[] = {48, 45, 42, 40, 30,  24,  22,   20,   17.5,
                             15, 12, 6,  3,  2.4, 1.2, 0.24, 0.12, 0};
  static const double b_2273[] = {47.9, 45, 42, 40, 30,  24,  22,   20,   17.5,
                                  15,   12, 6,  3,  2.4, 1.2, 0.24, 0.12, 0};
  static const double b_2275[] = {48, 45.1, 42, 40, 30,  24,  22,   20,   17.5,
                                  15, 12,   6,  3,  2.4, 1.2, 0.24, 0.12, 0};
  static const double b_2276[] = {96,  48,  45.1, 42,   40, 30, 24,
                                  22,  20,  17.5, 15,   12, 6,  3,
                                  2.4, 1.2, 0.24, 0.12, 0};
  static const double b_2297[] = {96, 80,  48,  45.1, 42,   40, 30,
                                  24, 22,  20,  17.5, 15,   12, 6,
                                  3,  2.4, 1.2, 0.24, 0.12, 0};
  static const double b_2303[] = {96, 86, 80,  48,  45.1, 42,   40,
                                  30, 24, 22,  20,  17.5, 15,   12,
                                  6,  3,  2.4, 1.2, 0.24, 0.12, 0};

  if (sm >= 100 && v >= 22501) {
    return v >= 23003   ? b_2303
           : v >= 22907 ? b_2297
           : v >= 22706 ? b_2276
           : v >= 22705 ? b_2275
           : v >= 22703 ? b_2273
                        : h;
  }
  if (sm >= 90 && v >= 21605)
    return v >= 21903 ? h : v >= 21803 ? h_2183 : v >= 21801 ? h_2181 : h_2165;
  return v >= 21801 ? gen : gen_216;
}

/* Channels of `s` GB/s that `bw` carries. */
static guint32 carries(double bw, double s)
{
  return (guint32)floor(bw / s + 1e-9);
}

/* Channels NCCL's search builds across nodes at `s` GB/s a channel: each
 * enters the node through a NIC port and leaves through one, so a port
 * carries floor(port / s) of them and a NIC's host link floor(host / s);
 * every channel crosses every GPU of the node, so a GPU's NVLinks (or
 * PCIe link) carry floor(gpu / s); at most `most`. */
static guint32 net_channels_at(const NcclComm *c, guint32 nics, double port,
                               double host, double s, guint32 most)
{
  guint32 per_nic = MAX(c->gpu.nic->ports, 1) * carries(port, s);
  guint32 n;

  if (host > 0)
    per_nic = MIN(per_nic, carries(host, s));
  n = MIN(nics * per_nic, carries(c->gpu_GBps, s));
  return MIN(n, most);
}

/* NCCL's graph search across nodes (search.cc ncclTopoCompute, pass 1 and
 * 2, and ncclTopoDupChannels; connect.cc ncclTopoPostset for the kernel's
 * channels).  Pass 1 starts at the fastest speed of the release's list
 * that the GPU-to-NIC path carries and keeps the graph that moves most
 * (channels x speed), trying slower speeds while they are above 0.49 of
 * the best; from 2.19.3 the graph is then duplicated (dup_channels).
 * Pass 2 raises, on 2 nodes, a tree's speed inside the node (bwIntra)
 * step by step from a speed of the list while below twice its bwInter
 * and the GPUs' links carry it, and from 2.19.3 a ring's speed while its
 * channels still fit; before 2.19.3 each graph is duplicated after it.
 * The kernel runs twice the graph's channels, twice again where a ring
 * channel is above 45 GB/s and few run.  A DGX H100 over 8 NDR NICs: 8
 * channels at 45 GB/s (not 16 at 23.2, its NVLinks' share), 16 in the
 * kernel; 2 OCI A100 nodes over 16 100GbE ports: 16 at 12, the tree 15
 * inside the node. */
static void net_search(NcclComm *c, const MdlLink *port, guint32 nics)
{
  guint32 v = nccl_comm_version(c);
  const double *sp = inter_speeds(v, c->gpu.sm);
  const MdlRegistry *models = topo_system_models(c->sys);
  const MdlLink *h = c->gpu.nic->host_link
                         ? mdl_registry_link(models, c->gpu.nic->host_link)
                         : NULL;
  /* a port's, as NCCL reads it (slowest_nic: never above the link's) */
  double port_GBps = c->nic_GBps / MAX(c->gpu.nic->ports, 1);
  double host = h ? link_GBps(h) : 0;
  double max_bw = MIN(search_GBps(c, port), port_GBps);
  guint32 most = v >= 22500 ? 32 : 16; /* MAXCHANNELS / 2 */
  guint32 best_n = 0, i = 0, n;
  double best_s = 0, s;

  while (sp[i + 1] > 0 && (sp[i] > max_bw || sp[i] > c->gpu_GBps))
    i++;
  for (; sp[i] > 0; i++) {
    if (best_n > 0 && sp[i] / best_s <= 0.49)
      break;
    n = net_channels_at(c, nics, port_GBps, host, sp[i], most);
    if (n > 0 && n * sp[i] > best_n * best_s) {
      best_n = n;
      best_s = sp[i];
    }
  }
  if (best_n == 0) { /* "falling back to simple order" */
    best_n = 1;
    best_s = 0.1;
  }
  if (v >= 21903)
    dup_channels(v, c->gpu.sm, most, &best_n, &best_s);
  /* pass 2, a tree (searched apart, at the same speed): bwIntra raised
   * from the graph's speed only where that is on the list, while below
   * twice its bwInter and the GPUs' links carry it */
  c->tree_bw_inter = c->tree_bw_intra = best_s;
  for (i = 0; sp[i] > 0 && sp[i] != best_s; i++)
    ;
  while (sp[i] > 0 && i > 0 && c->tree_bw_intra < 2 * best_s &&
         (c->ppn == 1 || carries(c->gpu_GBps, sp[i - 1]) >= best_n))
    c->tree_bw_intra = sp[--i];
  s = best_s;
  if (v >= 21903) {
    /* pass 2, a ring: its speed raised from the first of the list at or
     * below the graph's while its channels still fit */
    for (i = 0; sp[i + 1] > 0 && sp[i] > best_s; i++)
      ;
    while (i > 0 &&
           net_channels_at(c, nics, port_GBps, host, sp[i - 1], most) >= best_n)
      s = sp[--i];
  } else {
    /* before 2.19.3 each graph is duplicated after pass 2, by its own
     * bwIntra, and the communicator keeps the fewer channels of the two
     * (init.cc) at each graph's speeds */
    guint32 ring_n = best_n, tree_n = best_n;

    dup_channels(v, c->gpu.sm, most, &ring_n, &s);
    c->tree_bw_inter /=
        dup_channels(v, c->gpu.sm, most, &tree_n, &c->tree_bw_intra);
    best_n = MIN(ring_n, tree_n);
  }
  c->channels = best_n;
  c->bw_inter = c->bw_intra = s;
  /* ncclTopoPostset: twice the graph's channels, and "4 compute channels
   * per search channel to reach peak BW on <8 PPN" where a ring channel is
   * above 45 GB/s: from 2.18 on Hopper while twice fit in MAXCHANNELS,
   * from 2.20.3 below 16 channels, from 2.25 on Blackwell too */
  c->kernel_channels = MIN(2 * best_n, NCCL_MAX_CHANNELS);
  if (s > 45.0 && v >= 21801 &&
      (c->gpu.sm == 90 || (c->gpu.sm > 90 && v >= 22501)) &&
      (v >= 22003 ? c->kernel_channels < 16
                  : 2 * c->kernel_channels <= NCCL_MAX_CHANNELS))
    c->kernel_channels = MIN(2 * c->kernel_channels, NCCL_MAX_CHANNELS);
}

/* NCCL's ring search inside an NVLink node (search.cc ncclTopoCompute):
 * from the fastest speed of the architecture's list that a GPU's NVLinks
 * carry, as many channels as fit at that speed, keeping a slower speed
 * only if it moves more in all (at most 16 channels); channels of 25 GB/s
 * and more are then doubled at half the speed.  A DGX A100 (240 GB/s): 6
 * at 40, 12 at 20; a DGX H100 (370.8): 6 at 60, 12 at 30; a B200 (721.8):
 * 8 at 90, 16 at 45.  Returns the channels, *speed their GB/s each. */
static guint32 nvlink_search(const NcclComm *c, double *speed)
{
  static const double ampere[] = {40, 30, 20, 18, 15, 12, 10,
                                  9,  7,  6,  5,  4,  3,  0};
  static const double hopper[] = {60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3, 0};
  static const double blackwell[] = {90, 80, 70, 60, 50, 45, 40,
                                     30, 24, 20, 19, 18, 0};
  const double *s = c->gpu.sm >= 100  ? blackwell
                    : c->gpu.sm >= 90 ? hopper
                                      : ampere;
  guint32 best = 0;
  double best_speed = 0;

  for (; *s > 0; s++) {
    guint32 n = MIN((guint32)(c->gpu_GBps / *s), NCCL_MAX_CHANNELS / 2);

    if (*s <= c->gpu_GBps && n * *s > best * best_speed) {
      best = n;
      best_speed = *s;
    }
  }
  if (best == 0) {
    best = 1;
    best_speed = c->gpu_GBps;
  }
  if (best_speed >= 25 && best < NCCL_MAX_CHANNELS / 2) {
    guint32 dup = MIN(2 * best, NCCL_MAX_CHANNELS / 2);

    best_speed /= (dup + best - 1) / best;
    best = dup;
  }
  *speed = best_speed;
  return best;
}

/* The P2P level NCCL sets when the user does not (paths.cc
 * ncclTopoCheckP2p): up to 2.22 P2P crosses everything (SYS) but on Intel
 * and ARM hosts, where it stops at PCIe switches (PXB); from 2.23 it stops
 * at PXB everywhere but on an AMD host with at most two GPUs. */
static NcclPath p2p_default_level(const NcclComm *c)
{
  guint32 v = nccl_comm_version(c);

  if (v >= 22300)
    return c->gpu.cpu == TOPO_CPU_AMD && c->ppn <= 2 ? NCCL_PATH_SYS
                                                     : NCCL_PATH_PXB;
  return c->gpu.cpu == TOPO_CPU_AMD ? NCCL_PATH_SYS : NCCL_PATH_PXB;
}

gboolean nccl_comm_pair_p2p(const NcclComm *c, guint32 server, guint32 ga,
                            guint32 gb)
{
  static const NcclPath pci[] = {
      [TOPO_PCI_PIX] = NCCL_PATH_PIX,
      [TOPO_PCI_PXB] = NCCL_PATH_PXB,
      [TOPO_PCI_PHB] = NCCL_PATH_PHB,
      [TOPO_PCI_SYS] = NCCL_PATH_SYS,
  };

  if (topo_gpus_nvlinked(c->sys, server, ga, gb))
    return c->p2p_level >= NCCL_PATH_NVL;
  /* paths.cc: NVML's P2P status, which the driver refuses on GeForce
   * cards and in many VMs */
  return c->gpu.pcie_p2p &&
         pci[topo_gpu_pci_path(c->sys, ga, gb)] <= c->p2p_level;
}

/* Whether fn holds on every node of the communicator, asked of each node
 * whose NVLinks faults touched and of one other: the others are built
 * alike.  (Each node's NCCL searches its own graphs; init.cc then keeps
 * the fewest channels and the lowest bandwidths of any rank's.) */
static gboolean every_node(const NcclComm *c,
                           gboolean (*fn)(const NcclComm *c, guint32 server))
{
  gboolean alike_asked = FALSE;

  for (guint32 n = 0; n < c->nnodes; n++) {
    guint32 s = c->server_of[n];

    if (!topo_server_nvlink_faulted(c->sys, s)) {
      if (alike_asked)
        continue;
      alike_asked = TRUE;
    }
    if (!fn(c, s))
      return FALSE;
  }
  return TRUE;
}

/* Whether NVLink alone can close a ring through a node's GPUs, as
 * NCCL's search needs to give the rings NVLink's speed (search.cc: a ring
 * that takes a PCIe path runs at that path's speed): NVSwitches join
 * every pair; direct links (bridges, hybrid cube-mesh) must give every GPU
 * NVLink to two others of the node, or join the node's only two.  The
 * A40s' bridged pairs give 8 GPUs no NVLink ring, nor does a GPU whose
 * NVLinks faults all took down. */
static gboolean node_nvlink_ring(const NcclComm *c, guint32 server)
{
  if (c->ppn < 2 ||
      (c->gpu.nvswitch && !topo_server_nvlink_faulted(c->sys, server)))
    return TRUE;
  for (guint32 i = 0; i < c->ppn; i++) {
    guint32 peers = 0;

    for (guint32 j = 0; j < c->ppn; j++)
      if (i != j &&
          topo_gpus_nvlinked(c->sys, server, c->local_of[i], c->local_of[j]))
        peers++;
    if (peers < MIN(2, c->ppn - 1))
      return FALSE;
  }
  return TRUE;
}

/* Whether every pair of a node's GPUs is joined by NVLink, through an
 * NVSwitch, directly or by way of a third GPU (NCCL's isAllNvlink,
 * paths.cc ncclTopoPathAllNVLink: no path beyond PATH_NVB), whatever
 * NCCL_P2P_LEVEL says. */
static gboolean node_all_nvlink(const NcclComm *c, guint32 server)
{
  if (c->gpu.nvlink == NULL || c->gpu.nvlinks == 0)
    return c->ppn < 2;
  if (c->gpu.nvswitch && !topo_server_nvlink_faulted(c->sys, server))
    return TRUE;
  for (guint32 i = 0; i < c->ppn; i++)
    for (guint32 j = 0; j < c->ppn; j++) {
      gboolean near =
          i == j ||
          topo_gpus_nvlinked(c->sys, server, c->local_of[i], c->local_of[j]);

      for (guint32 k = 0; !near && k < c->ppn; k++)
        near =
            topo_gpus_nvlinked(c->sys, server, c->local_of[i],
                               c->local_of[k]) &&
            topo_gpus_nvlinked(c->sys, server, c->local_of[k], c->local_of[j]);
      if (!near)
        return FALSE;
    }
  return TRUE;
}

/* The most NVLinks faults took from one of the communicator's GPUs: NCCL
 * counts the links NVML reports active (xml.cc), its GPU-to-NVSwitch
 * bandwidth is their number times a link's (topo.cc), and the slowest
 * GPU sets every channel's speed. */
static guint32 comm_nvlinks_down(const NcclComm *c)
{
  guint32 most = 0;

  for (guint32 n = 0; n < c->nnodes; n++) {
    if (!topo_server_nvlink_faulted(c->sys, c->server_of[n]))
      continue;
    for (guint32 i = 0; i < c->ppn; i++)
      most = MAX(
          most, topo_gpu_nvlinks_down(c->sys, c->server_of[n], c->local_of[i]));
  }
  return most;
}

/* Whether the GPUs reach their NICs by the NICs' Data Direct function
 * (net_ib ncclIbInitDevices, from 2.27.3): where the mlx5 driver reports
 * one (the NIC model's data_direct) and NCCL_IB_DATA_DIRECT is not 0,
 * NCCL's IB transport exposes the NIC as a device whose PCIe path is that
 * function's, within a switch of the GPU beside it (2.27 also as itself,
 * through the CPU, and from 2.28.3 only where the variable is 2: ifsim
 * takes it that a GPU picks the nearer device, as NCCL's search prefers
 * the nearer path, and does not model the second device's share of the
 * port in 2.27's search).  The function is there for a GPU whose
 * memory the NIC would reach through the CPU and NVLink-C2C ("to overcome
 * grace CPU PCIe bandwidth issue", ConnectX-8 firmware release notes), so
 * ifsim takes it on NVLink-C2C GPUs only.  Sockets and aws-ofi-nccl are
 * not NCCL's IB transport; Google's gIB is taken as it. */
#define V_DATA_DIRECT_FROM 22703u

/* Whether the network is NCCL's own IB transport (InfiniBand, RoCE;
 * Google's gIB taken as it): not its socket transport, not aws-ofi-nccl
 * (EFA). */
static gboolean ib_transport(const NcclComm *c)
{
  return !c->socket && c->gpu.nic &&
         c->gpu.nic->vendor != MDL_NIC_VENDOR_AMAZON;
}

gboolean nccl_comm_data_direct(const NcclComm *c)
{
  return nccl_comm_version(c) >= V_DATA_DIRECT_FROM && c->gpu.c2c &&
         ib_transport(c) && c->gpu.nic->data_direct &&
         c->opt.ib_data_direct != 1;
}

/* NCCL's path type from local GPU g to its NIC: a GPU on NVLink-C2C
 * reaches its own socket's NICs by P2C, or by Data Direct within the
 * NIC's PCIe switch (PIX). */
static NcclPath gpu_nic_path(const NcclComm *c, guint32 g)
{
  static const NcclPath of[] = {[TOPO_PCI_PIX] = NCCL_PATH_PIX,
                                [TOPO_PCI_PXB] = NCCL_PATH_PXB,
                                [TOPO_PCI_PHB] = NCCL_PATH_PHB,
                                [TOPO_PCI_SYS] = NCCL_PATH_SYS};
  TopoPciPath p = topo_gpu_nic_pci_path(c->sys, g, topo_gpu_nic(c->sys, g));

  if (nccl_comm_data_direct(c))
    return NCCL_PATH_PIX;
  return c->gpu.c2c && p == TOPO_PCI_PHB ? NCCL_PATH_P2C : of[p];
}

/* Whether local GPU g and its NIC use GPUDirect RDMA, for the NIC's reads
 * of GPU memory (sends) or its writes (receives): graph/paths.cc
 * ncclTopoCheckGdr.  The NIC must support it (its gpudirect); sends only
 * with NCCL_NET_GDR_READ unset or 1, and unset before Ampere only where
 * the GPU has NVLink to another (or is alone); and the NIC no farther than
 * NCCL_NET_GDR_LEVEL (PXB by default), where a NIC on the CPU of an
 * NVLink-C2C GPU counts as near with NCCL_NET_GDR_C2C=1 (from 2.26, whose
 * default is 0; 1 from 2.27; no such variable before 2.26). */
#define V_GDR_C2C_FROM 22600u
#define V_GDR_C2C_ON_FROM 22700u

static gboolean gdr_ok(const NcclComm *c, guint32 g, gboolean read)
{
  NcclPath level =
      c->opt.gdr_level ? (NcclPath)(c->opt.gdr_level - 1) : NCCL_PATH_PXB;
  NcclPath dist = gpu_nic_path(c, g);

  if (!c->gpu.nic->gpudirect || c->socket)
    return FALSE;
  if (read && c->opt.gdr_read == 1)
    return FALSE;
  if (read && c->opt.gdr_read == 0 && c->gpu.sm < 80 && c->gpu.gpus > 1) {
    gboolean nvlink = FALSE;

    for (guint32 i = 0; i < c->gpu.gpus && !nvlink; i++)
      nvlink = i != g && topo_gpus_nvlinked(c->sys, c->server_of[0], g, i);
    if (!nvlink)
      return FALSE;
  }
  if (dist == NCCL_PATH_P2C && nccl_comm_version(c) >= V_GDR_C2C_FROM &&
      (c->opt.gdr_c2c ? c->opt.gdr_c2c == 2
                      : nccl_comm_version(c) >= V_GDR_C2C_ON_FROM))
    dist = NCCL_PATH_C2C;
  return dist <= level;
}

/* The GPUDirect RDMA of a communicator's network connections (every rank's
 * own NIC, as ifsim's routes leave by it; every server is alike), and
 * whether the path to the NICs goes through the CPU: when the NIC is no
 * nearer than the CPU, or when receives have no GPUDirect RDMA, which
 * ncclTopoComputePaths answers by routing GPU to NIC through the CPU. */
static void comm_gdr(NcclComm *c)
{
  c->gdr_send = c->gdr_recv = TRUE;
  c->net_via_cpu = c->socket;
  for (guint32 i = 0; i < c->ppn; i++) {
    guint32 g = c->local_of[i];
    gboolean recv = gdr_ok(c, g, FALSE);

    c->gdr_send &= gdr_ok(c, g, TRUE);
    c->gdr_recv &= recv;
    c->net_via_cpu |= !recv || gpu_nic_path(c, g) >= NCCL_PATH_PHB;
  }
}

/* A socket connection's helper threads and sockets (net_socket.cc
 * ncclNetSocketGetNsockNthread): NCCL_SOCKET_NTHREADS and
 * NCCL_NSOCKS_PERTHREAD where set; unset, by the NIC's PCI vendor: 2
 * threads of 8 sockets on AWS's (ENA), 4 of 1 on Google's (gVNIC), else
 * none, the proxy thread moving the bytes.  At most 64 sockets, NCCL
 * lowering the sockets per thread to fit. */
static void socket_threads(NcclComm *c)
{
  guint32 auto_threads = 0, auto_per = 1, threads, per;

  if (c->gpu.nic->vendor == MDL_NIC_VENDOR_AMAZON) {
    auto_threads = 2;
    auto_per = 8;
  } else if (c->gpu.nic->vendor == MDL_NIC_VENDOR_GOOGLE) {
    auto_threads = 4;
    auto_per = 1;
  }
  threads = c->opt.socket_nthreads ? c->opt.socket_nthreads - 1 : auto_threads;
  per = c->opt.socket_nsocks_per_thread ? c->opt.socket_nsocks_per_thread - 1
                                        : auto_per;
  if (threads > 0 && threads * per > 64)
    per = 64 / threads;
  c->socket_threads = threads;
  c->socket_socks = threads * per;
}

/* Whether every pair of a node's ranks uses P2P. */
static gboolean node_all_p2p(const NcclComm *c, guint32 server)
{
  for (guint32 i = 0; i < c->ppn; i++)
    for (guint32 j = 0; j < c->ppn; j++)
      if (i != j &&
          !nccl_comm_pair_p2p(c, server, c->local_of[i], c->local_of[j]))
        return FALSE;
  return TRUE;
}

/* A connection's buffer per protocol (init.cc computeBuffSizes): the
 * NCCL_*BUFFSIZE variable's value, else NCCL's default: LL 512 KiB
 * (DEFAULT_LL_BUFFSIZE: 8 lines of 16 B for each of 512 threads, 8
 * steps), LL128 4 915 200 B (120 eight-byte words for each of 640
 * threads, 8 steps), Simple 4 MiB, and up to 2.18 1 MiB on an Arm host
 * (DEFAULT_BUFFSIZE_ARM; gone in 2.19.1). */
#define V_ARM_BUFFSIZE_UNTIL 21901u

static void comm_buffers(NcclComm *c)
{
  const guint64 defaults[NCCL_N_PROTOS] = {
      [NCCL_PROTO_LL] = 8 * 512 * NCCL_STEPS * 16,
      [NCCL_PROTO_LL128] = 120 * 640 * NCCL_STEPS * 8,
      [NCCL_PROTO_SIMPLE] = nccl_comm_version(c) < V_ARM_BUFFSIZE_UNTIL &&
                                    c->gpu.cpu == TOPO_CPU_ARM
                                ? 1u << 20
                                : 4u << 20};

  for (guint p = 0; p < NCCL_N_PROTOS; p++)
    c->buff_bytes[p] =
        c->opt.buff_bytes[p] ? c->opt.buff_bytes[p] : defaults[p];
}

/* NVLS's chunk and NVLSTree's largest (nvls.cc, enqueue.cc
 * calcCollChunking): 128 KiB and, unset, 64 KiB from 4 nodes (else the
 * chunk); NCCL_NVLS_CHUNKSIZE from 2.21.5 and NCCL_NVLSTREE_MAX_CHUNKSIZE
 * from 2.20.3 set them.  From 2.30.3 ncclNvlsTuning first tunes Blackwell
 * across nodes (ncclNvlsTreeSm100Tuning) by the nodes, the ranks a node
 * (ppn), the slowest path from a GPU to its NIC (minNetBw: the NIC's speed
 * or its PCIe link's, nccl_pci_GBps) and
 * whether that path is within a PCIe switch (or NVLink-C2C):
 *   2 nodes, >= 48 GB/s: 32 channels, the largest NVLSTree chunk 128 KiB;
 *     up to 4 a node 256 KiB chunks; from 16 a node, or up to 8 within a
 *     switch under 96 GB/s, 64 KiB;
 *   more nodes, >= 96 GB/s: up to 8 a node 24 channels and 256 KiB, else
 *     32 channels and 128 KiB (64 KiB from 32 a node);
 *   more nodes, >= 48 GB/s: 24 channels, 128 KiB (64 KiB within a switch);
 * the variables, where set, over the tuning. */
#define V_NVLS_CHUNK_VAR_FROM 22105u
#define V_NVLSTREE_MAX_VAR_FROM 22003u
#define V_NVLS_SM100_TUNING_FROM 23003u

static double nic_path_GBps(const NcclComm *c)
{
  const MdlRegistry *models = topo_system_models(c->sys);
  double s = c->nic_GBps;

  if (c->gpu.nic->host_link) {
    const MdlLink *h = mdl_registry_link(models, c->gpu.nic->host_link);

    if (h)
      s = MIN(s, nccl_pci_GBps(h));
  }
  if (c->gpu.gpu_pcie && !c->gpu.c2c)
    s = MIN(s, nccl_pci_GBps(c->gpu.gpu_pcie));
  return s;
}

static void nvls_tuning(NcclComm *c)
{
  guint32 v = nccl_comm_version(c);
  guint64 chunk = 0, tree_max = 0;

  if (v >= V_NVLS_SM100_TUNING_FROM && c->gpu.sm >= 100 && c->nnodes > 1 &&
      c->gpu.nic && !c->socket) {
    double bw = nic_path_GBps(c);
    gboolean near = TRUE;

    for (guint32 i = 0; i < c->ppn; i++) {
      NcclPath d = gpu_nic_path(c, c->local_of[i]);

      near &= d <= NCCL_PATH_PXB ||
              (d == NCCL_PATH_P2C && (c->gdr_send || c->gdr_recv));
    }
    chunk = 128u << 10;
    if (c->nnodes == 2 && bw >= 48) {
      c->nvls_channels = 32;
      tree_max = 128u << 10;
      if (c->ppn <= 4)
        chunk = tree_max = 256u << 10;
      else if (c->ppn >= 16 || (c->ppn <= 8 && near && bw < 96))
        tree_max = 64u << 10;
    } else if (bw >= 96) {
      c->nvls_channels = c->ppn <= 8 ? 24 : 32;
      chunk = c->ppn <= 8 ? 256u << 10 : chunk;
      tree_max = c->ppn <= 8   ? 256u << 10
                 : c->ppn < 32 ? 128u << 10
                               : 64u << 10;
    } else if (bw >= 48) {
      c->nvls_channels = 24;
      tree_max = near ? 64u << 10 : 128u << 10;
    }
  }
  if (c->opt.nvls_chunk_bytes && v >= V_NVLS_CHUNK_VAR_FROM)
    chunk = c->opt.nvls_chunk_bytes;
  if (c->opt.nvlstree_max_chunk_bytes && v >= V_NVLSTREE_MAX_VAR_FROM)
    tree_max = c->opt.nvlstree_max_chunk_bytes;
  c->nvls_chunk = chunk ? chunk : 128u << 10;
  c->nvlstree_max_chunk = tree_max;
}

/* Point-to-point channels (paths.cc ncclTopoComputeP2pChannels and
 * ncclTopoGetNchannels, 2.18 to 2.30): p2pnChannels is the communicator's
 * channels (NCCL_MIN_NCHANNELS and NCCL_MAX_NCHANNELS applied) rounded up
 * to a power of two; p2pnChannelsPerPeer the fewest any peer asks for,
 * rounded up too, at most p2pnChannels.  A peer on NVLink asks 2 a link
 * (the path's bandwidth over NCCL's per-link figure), one over PCIe or
 * through host memory 2, one across nodes NCCL_NCHANNELS_PER_NET_PEER (2)
 * up to 2.19; from 2.20 2, halved while 2 x nRanks > 4 x p2pnChannels,
 * but never fewer than the local NICs whose bandwidth adds up to the
 * GPU's link to its CPU (topo.cc getLocalNetCountByBw). */
#define V_P2P_NET_BY_BW_FROM 22000u

static guint32 pow2_up(guint32 v)
{
  guint32 p = 1;

  while (p < v)
    p <<= 1;
  return p;
}

static void p2p_channels(NcclComm *c)
{
  guint32 fewest;

  c->p2p_channels = MIN(pow2_up(nccl_clamp_channels(c, c->kernel_channels)),
                        NCCL_MAX_CHANNELS);
  fewest = c->p2p_channels;
  if (c->ppn > 1)
    fewest = MIN(fewest, c->nvl_intra ? 2 * MAX(c->gpu.nvlinks, 1) : 2);
  if (c->nnodes > 1) {
    guint32 net = 2;

    if (nccl_comm_version(c) >= V_P2P_NET_BY_BW_FROM) {
      guint32 g = topo_system_gpus_per_server(c->sys);
      guint32 local = MAX(c->gpu.nics / MAX(g, 1), 1);
      guint32 by_bw =
          c->gpu.c2c || c->nic_GBps <= 0
              ? local
              : MIN(local,
                    (guint32)MAX(
                        ceil(nccl_pci_GBps(c->gpu.gpu_pcie) / c->nic_GBps), 1));

      while (net * c->nranks > c->p2p_channels * 4 && net > 1)
        net /= 2;
      net = MAX(by_bw, net);
    }
    fewest = MIN(fewest, net);
  }
  c->p2p_peer_channels = MIN(pow2_up(fewest), c->p2p_channels);
}

NcclComm *nccl_comm_new(const TopoSystem *sys, const NcclOptions *opt,
                        GError **error)
{
  NcclComm *c = g_new0(NcclComm, 1);
  guint32 g = topo_system_gpus_per_server(sys);
  const MdlRegistry *models = topo_system_models(sys);
  guint32 nics = 0;

  c->sys = sys;
  if (opt)
    c->opt = *opt;
  if (c->opt.tuner && nccl_comm_version(c) < NCCL_TUNER_RULES_FROM) {
    g_autofree char *v = nccl_version_text(nccl_comm_version(c));

    g_set_error(error, COLL_ERROR, COLL_ERROR_CONFLICT,
                "NCCL's example tuner plugin reads its rules "
                "(NCCL_TUNER_CONFIG_FILE) from NCCL 2.28; %s's cannot",
                v);
    goto fail;
  }
  topo_system_gpu_info(sys, &c->gpu);
  if (!comm_place(c, g, topo_system_servers(sys), error))
    goto fail;
  c->arch = c->gpu.sm >= 100  ? NCCL_ARCH_BLACKWELL
            : c->gpu.sm >= 90 ? NCCL_ARCH_HOPPER
            : c->gpu.sm >= 80 ? NCCL_ARCH_AMPERE
                              : NCCL_ARCH_VOLTA;
  c->p2p_level = c->opt.p2p_level ? (NcclPath)(c->opt.p2p_level - 1)
                                  : p2p_default_level(c);
  comm_buffers(c);
  c->all_nvlink = every_node(c, node_all_nvlink);
  c->shm = !every_node(c, node_all_p2p);
  c->gpu.nvlinks -= MIN(c->gpu.nvlinks, comm_nvlinks_down(c));
  /* NCCL_P2P_DISABLE: NVLink paths go through the CPU as well */
  c->nvl_intra = c->gpu.nvlink != NULL && c->gpu.nvlinks > 0 &&
                 c->p2p_level >= NCCL_PATH_NVL &&
                 every_node(c, node_nvlink_ring);
  if (c->nvl_intra) {
    double speed;

    c->gpu_GBps = c->gpu.nvlinks * nccl_nvlink_GBps(c->gpu.sm);
    c->channels = nvlink_search(c, &speed);
    c->bw_intra = speed;
    c->kernel_channels = MIN(2 * c->channels, NCCL_MAX_CHANNELS);
  } else {
    c->gpu_GBps = nccl_pci_GBps(c->gpu.gpu_pcie);
    c->channels = c->kernel_channels = 2;
    c->bw_intra = c->gpu_GBps / c->channels;
  }
  c->bw_inter = c->tree_bw_inter = c->tree_bw_intra = c->bw_intra;
  if (c->nnodes > 1) {
    const MdlLink *port = NULL;

    if (!c->gpu.nic || c->gpu.nics == 0 ||
        topo_system_net(sys) == TOPO_NET_NONE) {
      g_set_error(error, COLL_ERROR, COLL_ERROR_CONFLICT,
                  "%s: %u ranks span %u servers, but the system has no "
                  "NICs or no scale-out network",
                  RANKS_NAME(c), c->nranks, c->nnodes);
      goto fail;
    }
    port = mdl_registry_link(models, c->gpu.nic->port_link);
    if (c->opt.net_socket) {
      /* transport/net_socket.cc: TCP over the NIC's Ethernet interface,
       * its speed what the kernel reports (the port's line rate) */
      if (port->family != MDL_FAMILY_ROCE) {
        g_set_error(error, COLL_ERROR, COLL_ERROR_CONFLICT,
                    "%s: %u ranks span %u servers, and %s puts NCCL's "
                    "traffic between them on TCP sockets, but the NICs' port "
                    "link '%s' is not Ethernet (IP over InfiniBand is not "
                    "modelled)",
                    RANKS_NAME(c), c->nranks, c->nnodes, c->opt.net_socket,
                    port->name);
        goto fail;
      }
      c->socket = TRUE;
      socket_threads(c);
    }
    comm_gdr(c);
    /* NCCL_IB_QPS_PER_CONNECTION (net_ib.cc): a connection of the IB
     * transport (InfiniBand, RoCE; Google's gIB plugin, whose source is
     * not public, is taken as it, as elsewhere) opens that many queue
     * pairs on each of its devices, and its requests take them in turn
     * (NCCL_IB_SPLIT_DATA_ON_QPS 0, the default from 2.21) or are striped
     * over them (1): each carries an equal part of the data.  On RoCE a
     * QP's UDP source port comes from its number (NCCL sets no flow label
     * for it), so each QP is a flow of its own to the fabric's routing:
     * ECMP hashes the QPs of one connection apart, which is what NCCL's
     * documentation says they are for ("routing entropy" on multi-level
     * fabrics), and a destination-routed fabric (D-mod-k) sends them one
     * way.  InfiniBand switches route by destination LID, so there the
     * QPs share the connection's path.  Sockets and aws-ofi-nccl (EFA) do
     * not read the variable. */
    c->qps = ib_transport(c) && port->family == MDL_FAMILY_ROCE && c->opt.ib_qps
                 ? c->opt.ib_qps
                 : 1;
    /* PXN (search.cc ncclTopoGetNetDev, paths.cc ncclTopoComputePaths):
     * a point-to-point send goes over NVLink to the local GPU beside the
     * NIC of the receiver's rail, and out by that NIC, where the two GPUs
     * share NVLink; NCCL_P2P_PXN_LEVEL=0 or NCCL_PXN_DISABLE=1 keeps each
     * side on its own NIC, as a server without NVLink does. */
    c->pxn =
        c->nvl_intra && c->opt.pxn_disable != 2 && c->opt.p2p_pxn_level != 1;
    c->nic_GBps = link_GBps(port) * MAX(c->gpu.nic->ports, 1);
    slowest_nic(c);
    /* Across nodes the channels and their speed are NCCL's search's
     * (net_search): a DGX with 8 NICs runs 16 channels whatever its
     * NVLinks (a DGX A100's 12 NVLink channels would leave 4 of its 8
     * NICs with one: 149 GB/s of busbw for 2 nodes, where NCCL's 16 reach
     * 192). */
    nics = comm_nics(c);
    net_search(c, port, nics);
  }
  /* NCCL_NVLS_ENABLE=1 forces NVLS: where the GPUs have no multicast,
   * binding its memory fails and NCCL fails the job (nvls.cc
   * nvlsAllocateMem; ncclNvlsInit does nothing for one GPU) */
  if (c->opt.nvls_enable == NCCL_NVLS_ENABLE_FORCED && !c->gpu.nvls &&
      c->ppn > 1) {
    g_set_error(error, COLL_ERROR, COLL_ERROR_CONFLICT,
                "NCCL_NVLS_ENABLE=1 forces NVLink SHARP (NVLS), which the "
                "system's GPUs do not have (no NVSwitch multicast): NCCL "
                "fails the job there");
    goto fail;
  }
  /* NCCL_ALGO and NCCL_PROTO take FUNCTION:LIST entries from 2.24.3
   * (tuning.cc parseList); before, the whole value was one list whose
   * names match none, which leaves nothing allowed: a value meant for a
   * later release, refused rather than run as NCCL would (every
   * algorithm off) */
  for (guint32 k = 0; k < NCCL_N_TUNED_COLLS; k++) {
    if ((c->opt.coll_algos[k] || c->opt.coll_protos[k]) &&
        nccl_comm_version(c) < NCCL_V_PER_COLL_LISTS_FROM) {
      g_autofree char *v = nccl_version_text(nccl_comm_version(c));

      g_set_error(error, COLL_ERROR, COLL_ERROR_CONFLICT,
                  "the algorithm or protocol list has an entry for %s "
                  "(FUNCTION:LIST), which NCCL reads from 2.24; NCCL %s "
                  "reads the whole value as one list of names, none of "
                  "which match",
                  nccl_coll_name((NcclColl)k), v);
      goto fail;
    }
  }
  /* NCCL_PAT_ENABLE=1 forces PAT whatever the GPUs a node (tuning.cc
   * ncclPatEnable, from 2.23.4, where the default allows one); PAT with
   * several is not modelled */
  if (c->opt.pat_enable == NCCL_PAT_ENABLE_FORCED && c->ppn > 1 &&
      nccl_comm_version(c) >= NCCL_V_PAT_FROM) {
    g_set_error(error, COLL_ERROR, COLL_ERROR_CONFLICT,
                "NCCL_PAT_ENABLE=1 forces PAT with %u GPUs a node; ifsim "
                "models PAT as NCCL's default runs it, with one GPU a node",
                c->ppn);
    goto fail;
  }
  /* NCCL_NVLS_NCHANNELS by release (nvls.cc): 16 up to 2.21 and on
   * Hopper; on Blackwell (SM100) 32 in 2.26, and from 2.28 24 within a
   * node, 32 across nodes (ncclNvlsTuning).  The NVLS graph's bandwidths
   * are per channel, whatever the rings' channels.  NCCL_NVLS_ENABLE=0:
   * none (ncclNvlsInit returns first), and none where the release runs
   * none for the GPUs a node (nccl_nvls_release_off). */
  c->nvls_channels =
      c->gpu.nvls && c->nvl_intra && c->ppn > 1 &&
              c->opt.nvls_enable != NCCL_NVLS_ENABLE_OFF &&
              !nccl_nvls_release_off(nccl_comm_version(c), c->ppn, c->nnodes)
          ? nccl_nvls_channels(nccl_comm_version(c), c->gpu.sm, c->nnodes)
          : 0;
  c->nvls_chunk = 128u << 10;
  /* NVLS's heads (search.cc): a GPU each inside a node ("pull evenly from
   * all GPUs"); across nodes a NIC and its GPU each; at most 32 from
   * 2.25.1 */
  c->nvls_heads = MIN(c->nnodes > 1 ? MIN(c->ppn, MAX(nics, 1)) : c->ppn,
                      nccl_nvls_max_heads(nccl_comm_version(c)));
  if (c->nvls_channels) {
    nvls_tuning(c);
    c->nvls_bw_intra = c->gpu_GBps / c->nvls_channels;
    c->nvls_bw_inter = c->nnodes > 1
                           ? MIN(c->nvls_bw_intra,
                                 c->nvls_heads * c->nic_GBps / c->nvls_channels)
                           : c->nvls_bw_intra;
  }
  p2p_channels(c);
  c->collnet = c->opt.collnet && c->gpu.sharp && c->nnodes > 1;
  c->pat = c->ppn == 1 && c->nnodes > 1 &&
           c->opt.pat_enable != NCCL_PAT_ENABLE_OFF &&
           nccl_comm_version(c) >= NCCL_V_PAT_FROM;
  nccl_tune(c);
  c->opt.ranks_name = NULL; /* the caller's, for the errors above */
  return c;
fail:
  nccl_comm_free(c);
  return NULL;
}

void nccl_comm_free(NcclComm *comm)
{
  if (!comm)
    return;
  g_free(comm->server_of);
  g_free(comm->local_of);
  g_free(comm);
}

guint32 nccl_comm_ranks(const NcclComm *comm)
{
  return comm->nranks;
}

gboolean nccl_comm_uses_shm(const NcclComm *comm)
{
  return comm->shm;
}

gboolean nccl_comm_uses_socket(const NcclComm *comm)
{
  return comm->socket;
}

guint32 nccl_comm_nodes(const NcclComm *comm)
{
  return comm->nnodes;
}

guint32 nccl_comm_rank_server(const NcclComm *comm, guint32 r)
{
  return comm->server_of[r / comm->ppn];
}

#define V_NO_FORCE_FLUSH_FROM 21901u

gboolean nccl_comm_net_flush(const NcclComm *c)
{
  gboolean force = c->opt.net_force_flush
                       ? c->opt.net_force_flush == 2
                       : nccl_comm_version(c) < V_NO_FORCE_FLUSH_FROM;

  /* no GDR over sockets */
  return c->gdr_recv && (c->gpu.sm < 90 || force || nccl_comm_data_direct(c));
}

void nccl_comm_ib_retry(const NcclComm *comm, SimTime *timeout_ps,
                        guint32 *retries)
{
  guint32 t = comm->opt.ib_timeout               ? comm->opt.ib_timeout - 1
              : nccl_comm_version(comm) >= 22300 ? 20
                                                 : 18;

  /* IBTA vol. 1 9.7.6.1.3: 4.096 us x 2^timeout */
  *timeout_ps = (SimTime)4096000 << t;
  *retries = comm->opt.ib_retry_cnt ? comm->opt.ib_retry_cnt - 1 : 7;
}

guint32 nccl_comm_rank_local(const NcclComm *comm, guint32 r)
{
  return comm->local_of[r % comm->ppn];
}

SimNodeId nccl_comm_rank_gpu(const NcclComm *comm, guint32 r)
{
  return topo_gpu(comm->sys, nccl_comm_rank_server(comm, r),
                  nccl_comm_rank_local(comm, r));
}
