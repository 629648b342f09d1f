/* Predicted against measured busbw for the published nccl-tests runs; see
 * validate/accuracy.h. */
#include "validate/accuracy.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/nccl/nccl.h"
#include "models/params.h"
#include "models/registry.h"
#include "sim/input.h"
#include "sim/units.h"
#include "topologies/system.h"
#include "validate/error.h"
#include "validate/measure.h"

/* Each dataset's system is described in its file under
 * tests/data/systems as its source's README states it, with what was
 * assumed where the README is silent.  NCCL's release where the source
 * states it (the nccl-tests#309 runs: 2.26.2; the 4-node comment is taken
 * to be the same).  The process layout is the source's command line where
 * it gives one (`-g 8`: one process for the server's 8 GPUs;
 * `all_reduce_perf_mpi -g 1`: one per GPU), and the NCCL_* variables it
 * set that the model reads (the 2-node #309 run's NCCL_NET_GDR_LEVEL=1: its
 * NICs share the GPUs' PCIe switches, PIX, so GPUDirect RDMA stays on).
 * The RTX 4090 run is taken to
 * be `-g 8`, a one-machine run, and NCCL 2.21.5 (not stated; the P2P
 * module for driver 550.90.07 dates it to mid-2024, before 2.23 stopped
 * P2P at PCIe switches by default, which would put an AMD host's 8 GPUs
 * on SHM); the 4-node and ANOMALOUS runs one rank per
 * process (the 4-node floor, 35 us, is below eight launches; the
 * ANOMALOUS sizes start at 8 MiB, where the layout does not matter); the
 * GCP A4X and A4 runs (run_nccl_tests.sh, one pod per node) one rank per
 * GPU, as their rank lists print.
 *
 * The runs without P2P name the GPUs they used (CUDA_VISIBLE_DEVICES) and
 * NCCL_P2P_DISABLE where they set it; the RTX 2080 Ti pair's driver
 * refuses P2P (its system's gpu_p2p = false).
 *
 * The L40S pair over TCP sets NCCL_IB_DISABLE=1 and NCCL_ALGO=ring, and
 * runs under mpirun, one rank a node; so do the DGX Spark pair (-n 50).
 *
 * Not here, as ifsim cannot describe their systems yet: the 2-node H200
 * run with NCCL_IB_DISABLE (its 92 GB/s of busbw is more than sockets
 * over its one shared NIC carry; the README leaves its transport
 * unclear), the 1024-rank run and the runs whose NICs the source does
 * not state (k8s H100, the 4 L40S over RoCE), and the GCP A4X test plan's
 * runs across NVLink domains over RDMA on 4 and 16 hosts (how they split
 * into domains it does not say).  The GCP A4X Max (GB300) pair's NICs
 * are not stated either: they are taken from NVIDIA's GB300 NVL72 design
 * (tests/data/systems/gcp-a4x-max-2.ini says what was assumed). */
#define REF "reference"
#define REF2 "reference2"
#define REF3 "reference3"
#define OCI_GB300                                                              \
  "nccl_allreduce_alltoall_GB300_oci_1to32node_NVL72_PARTIAL_"                 \
  "ocigb300quickstart.csv"
#define OCI_GB300_ENV                                                          \
  "NCCL_BUFFSIZE=16777216 NCCL_IB_QPS_PER_CONNECTION=4 NCCL_NET_GDR_C2C=1"
#define A4X_PLAN                                                               \
  "summary_busbw_16G_GB200_gcpA4X_MNNVL_vs_RDMA_1to36node_cnA4Xdoc.csv"
/* What aws-ofi-nccl (1.21.1, the report's) sets on a p6-b300 where the
 * user has not (platform-aws.cpp's platform table; docs/nccl.md) */
#define EFA_B300_ENV                                                           \
  "NCCL_BUFFSIZE=8388608 NCCL_P2P_NET_CHUNKSIZE=524288 "                       \
  "NCCL_NVLS_CHUNKSIZE=524288 NCCL_NVLSTREE_MAX_CHUNKSIZE=524288"
#define EFA_B300                                                               \
  "summary_busbw_vs_size_16xB300_2node_awsP6B300_efa16x400_terrificdm.csv"
static const ValDataset datasets[] = {
    /* NCCL not stated; the table was published on 2023-12-15 (the
     * source's commit 48b75dd), so a release before 2.22 (2024-06-11) ran
     * it: assumed the newest then, 2.19.4 (2023-11-13) */
    {REF, "nccl_allreduce_8xA100_nvlink3_stas00mlengineering.csv",
     "8x A100 NVLink3/NVSwitch AllReduce, -g 8, NCCL 2.19.4 (assumed)",
     "dgx-a100.ini", "allreduce", 8, 8, 21904, 50, 1, FALSE, NULL, NULL, NULL},
    {REF, "nccl_allreduce_8xH100_sxm_nccltests290.csv",
     "8x H100 SXM AllReduce (NVLS), -g 8", "dgx-h100.ini", "allreduce", 8, 8, 0,
     2, 5, FALSE, NULL, NULL, NULL},
    {REF, "nccl_allreduce_16xH100_2node_ndr8x400_nccltests309.csv",
     "2x 8 H100, 8x NDR 400G per node, AllReduce, MPI -g 1",
     "dgx-h100-ndr-2.ini", "allreduce", 16, 1, 22602, 20, 5, FALSE, NULL,
     "NCCL_NET_GDR_LEVEL=1", NULL},
    {REF, "nccl_allreduce_32xH100_4node_ndr8x400_vm_nccltests309.csv",
     "4x 8 H100, 8x NDR 400G per node (VMs), AllReduce", "dgx-h100-ndr-4.ini",
     "allreduce", 32, 1, 22602, 20, 5, FALSE, NULL, NULL, NULL},
    {REF, "nccl_allreduce_8xRTX4090_pcie_P2Punlocked_chlc.csv",
     "8x RTX 4090 PCIe Gen4, P2P unlocked, AllReduce, -g 8 (assumed)",
     "rtx4090-8.ini", "allreduce", 8, 8, 22105, 20, 5, FALSE, NULL, NULL, NULL},
    {REF, "nccl_sendrecv_8xA100_nvlink_liplus.csv",
     "8x A100 NVLink SendRecv, -g 8", "dgx-a100.ini", "sendrecv", 8, 8, 0, 20,
     5, FALSE, NULL, NULL, NULL},
    {REF, "nccl_allreduce_16xH100_2node_ndr_ANOMALOUS_nccltests290.csv",
     "2x 8 H100 NDR, misconfigured (ANOMALOUS)", "dgx-h100-ndr-2.ini",
     "allreduce", 16, 1, 0, 200, 5, TRUE, NULL, NULL, NULL},
    {REF2, "nccl_allreduce_8xH100_sxm_1node_g8_256M_2G_singlenodeNCCLtest.csv",
     "8x H100 SXM AllReduce, -g 8, 256 MiB-2 GiB", "dgx-h100.ini", "allreduce",
     8, 8, 0, 20, 5, FALSE, NULL, NULL, NULL},
    {REF2, "nccl_allreduce_4xA100_dgxA100_nvswitch_1node_g4_eugenesiow.csv",
     "4 of a DGX A100's GPUs, AllReduce, -g 4, NCCL 2.16.2, 1-8 GiB",
     "dgx-a100.ini", "allreduce", 4, 4, 21602, 20, 5, FALSE, NULL, NULL, NULL},
    {REF2,
     "nccl_broadcast_8xH800_nvlink_inspurNF5688M7_1node_g8_nccl2.18.3.csv",
     "8x H800 NVLink Broadcast, -g 8 -n 100, NCCL 2.18.3", "h800-8.ini",
     "broadcast", 8, 8, 21803, 100, 5, FALSE, NULL, NULL, NULL},
    {REF2, "nccl_allreduce_2xA40_nvlinkbridge_NV4_1node_g2_eugenesiow.csv",
     "2x A40 on an NVLink bridge (NV4), AllReduce, -g 2, NCCL 2.16.2",
     "a40-nvbridge-8.ini", "allreduce", 2, 2, 21602, 20, 5, FALSE, NULL, NULL,
     NULL},
    {REF2,
     "nccl_allreduce_16xA100_sxm4_40gb_2node_roce16x100G_ociBMGPU4.8_"
     "ocihpcoke.csv",
     "2x 8 A100-40GB, 16x 100GbE RoCE per node, AllReduce, MPI -g 1, "
     "NCCL 2.19.3",
     "oci-bm-gpu4.8-roce-2.ini", "allreduce", 16, 1, 21903, 20, 5, FALSE, NULL,
     "NCCL_IB_QPS_PER_CONNECTION=4", NULL},
    {REF2,
     "nccl_allgather_8xGB200_2node_4perNode_gcpA4X_MNNVL_imex_gcpdocs.csv",
     "2x 4 GB200 in one NVL72 domain (MNNVL), AllGather", "gb200-nvl72.ini",
     "allgather", 8, 1, 0, 20, 5, FALSE, NULL, NULL, NULL},
    {REF2,
     "nccl_allgather_32xGB200_8node_4perNode_gcpA4X_MNNVL_TAS_gcpdocs.csv",
     "8x 4 GB200 in one NVL72 domain (MNNVL), AllGather, --iters 100",
     "gb200-nvl72.ini", "allgather", 32, 1, 0, 100, 5, FALSE, NULL, NULL, NULL},
    {REF2,
     "nccl_allgather_16xB200_2node_gcpA4_roce8x400_gIB_AMBIGUOUS_esaaren.csv",
     "2x 8 B200 (assumed), 8x 400GbE RoCE per node (assumed), AllGather, "
     "NCCL 2.26.6",
     "hgx-b200-roce-2.ini", "allgather", 16, 1, 22606, 20, 5, FALSE, NULL, NULL,
     NULL},
    /* GB300 across NVLink domains, over RoCE (Google's gIB plugin) */
    {REF2,
     "nccl_allgather_8xGB300_2node_4perNode_gcpA4XMax_gIB_jobset_gcpdocs.csv",
     "2x 4 GB300 in two NVLink domains, 4x 800GbE RoCE a node (assumed), "
     "AllGather, -n 100, NCCL 2.28.9",
     "gcp-a4x-max-2.ini", "allgather", 8, 1, 22809, 100, 5, FALSE, NULL, NULL,
     NULL},
    {REF2,
     "nccl_allgather_8xGB300_2node_4perNode_gcpA4XMax_gIB_twonode_gcpdocs.csv",
     "the same, another run, -n 20", "gcp-a4x-max-2.ini", "allgather", 8, 1,
     22809, 20, 5, FALSE, NULL, NULL, NULL},
    /* GB300 NVL72 racks (OCI), one size a run at 8 and 16 GiB (PARTIAL):
     * 1, 2 and 16 hosts of 4 inside one rack (MNNVL), 32 across two over
     * RoCE; -n 50, NCCL 2.28.7 with NCCL_BUFFSIZE=16777216,
     * NCCL_IB_QPS_PER_CONNECTION=4 and NCCL_NET_GDR_C2C=1 (the release's
     * default, as NCCL_MNNVL_ENABLE=1 and NCCL_NVLS_ENABLE=1 are).  The
     * AllToAll on 32 hosts (128 ranks) runs in closed form
     * (docs/transports.md) */
    {REF2, OCI_GB300,
     "GB300 NVL72 (OCI), 1 host of 4, AllReduce, -n 50, NCCL 2.28.7",
     "gb300-nvl72-oci-2.ini", "allreduce", 4, 1, 22807, 50, 0, FALSE, "0-3",
     OCI_GB300_ENV,
     "collective=all_reduce,nodes=1;size=size_bytes;time=oop_time_us"},
    {REF2, OCI_GB300,
     "GB300 NVL72 (OCI), 2 hosts of 4 in one rack (MNNVL), AllReduce, -n 50, "
     "NCCL 2.28.7",
     "gb300-nvl72-oci-2.ini", "allreduce", 8, 1, 22807, 50, 0, FALSE, "0-7",
     OCI_GB300_ENV,
     "collective=all_reduce,nodes=2;size=size_bytes;time=oop_time_us"},
    {REF2, OCI_GB300,
     "GB300 NVL72 (OCI), 16 hosts of 4 in one rack (MNNVL), AllReduce, -n 50, "
     "NCCL 2.28.7",
     "gb300-nvl72-oci-2.ini", "allreduce", 64, 1, 22807, 50, 0, FALSE, "0-63",
     OCI_GB300_ENV,
     "collective=all_reduce,nodes=16;size=size_bytes;time=oop_time_us"},
    {REF2, OCI_GB300,
     "GB300 NVL72 (OCI), 32 hosts of 4, two racks over 400GbE RoCE (assumed), "
     "AllReduce, -n 50, NCCL 2.28.7",
     "gb300-nvl72-oci-2.ini", "allreduce", 128, 1, 22807, 50, 0, FALSE, "0-63",
     OCI_GB300_ENV,
     "collective=all_reduce,nodes=32;size=size_bytes;time=oop_time_us"},
    {REF2, OCI_GB300,
     "GB300 NVL72 (OCI), 1 host of 4, AllToAll, -n 50, NCCL 2.28.7",
     "gb300-nvl72-oci-2.ini", "alltoall", 4, 1, 22807, 50, 0, FALSE, "0-3",
     OCI_GB300_ENV,
     "collective=alltoall,nodes=1;size=size_bytes;time=oop_time_us"},
    {REF2, OCI_GB300,
     "GB300 NVL72 (OCI), 2 hosts of 4 in one rack (MNNVL), AllToAll, -n 50, "
     "NCCL 2.28.7",
     "gb300-nvl72-oci-2.ini", "alltoall", 8, 1, 22807, 50, 0, FALSE, "0-7",
     OCI_GB300_ENV,
     "collective=alltoall,nodes=2;size=size_bytes;time=oop_time_us"},
    {REF2, OCI_GB300,
     "GB300 NVL72 (OCI), 16 hosts of 4 in one rack (MNNVL), AllToAll, -n 50, "
     "NCCL 2.28.7",
     "gb300-nvl72-oci-2.ini", "alltoall", 64, 1, 22807, 50, 0, FALSE, "0-63",
     OCI_GB300_ENV,
     "collective=alltoall,nodes=16;size=size_bytes;time=oop_time_us"},
    {REF2, OCI_GB300,
     "GB300 NVL72 (OCI), 32 hosts of 4, two racks over 400GbE RoCE (assumed), "
     "AllToAll, -n 50, NCCL 2.28.7",
     "gb300-nvl72-oci-2.ini", "alltoall", 128, 1, 22807, 50, 0, FALSE, "0-63",
     OCI_GB300_ENV,
     "collective=alltoall,nodes=32;size=size_bytes;time=oop_time_us"},
    {REF2, A4X_PLAN, "GB200 (GCP A4X), one host of 4, AllReduce, NCCL 2.30.4",
     "gb200-nvl72.ini", "allreduce", 4, 1, 23004, 20, 0, FALSE, NULL, NULL,
     "domain_mode=single_node_NVLink,nodes=1;size=size_label;"
     "busbw=all_reduce_busbw_GBps"},
    {REF2, A4X_PLAN,
     "GB200 (GCP A4X), 2 hosts of 4 in one NVL72 domain (MNNVL), AllReduce, "
     "NCCL 2.30.4",
     "gb200-nvl72.ini", "allreduce", 8, 1, 23004, 20, 0, FALSE, NULL, NULL,
     "domain_mode=same_domain_MNNVL,nodes=2;size=size_label;"
     "busbw=all_reduce_busbw_GBps"},
    {REF2, A4X_PLAN,
     "GB200 (GCP A4X), 2 hosts of 4 in one NVL72 domain (MNNVL), AllGather, "
     "NCCL 2.30.4",
     "gb200-nvl72.ini", "allgather", 8, 1, 23004, 20, 0, FALSE, NULL, NULL,
     "domain_mode=same_domain_MNNVL,nodes=2;size=size_label;"
     "busbw=all_gather_busbw_GBps"},
    {REF2, A4X_PLAN,
     "GB200 (GCP A4X), 2 hosts of 4 in one NVL72 domain (MNNVL), "
     "ReduceScatter, "
     "NCCL 2.30.4",
     "gb200-nvl72.ini", "reducescatter", 8, 1, 23004, 20, 0, FALSE, NULL, NULL,
     "domain_mode=same_domain_MNNVL,nodes=2;size=size_label;"
     "busbw=reduce_scatter_busbw_GBps"},
    {REF2, A4X_PLAN,
     "GB200 (GCP A4X), 2 hosts of 4 in one NVL72 domain (MNNVL), AllToAll, "
     "NCCL 2.30.4",
     "gb200-nvl72.ini", "alltoall", 8, 1, 23004, 20, 0, FALSE, NULL, NULL,
     "domain_mode=same_domain_MNNVL,nodes=2;size=size_label;"
     "busbw=alltoall_busbw_GBps"},
    {REF2, A4X_PLAN,
     "GB200 (GCP A4X), 8 hosts of 4 in one NVL72 domain (MNNVL), AllReduce, "
     "NCCL 2.30.4",
     "gb200-nvl72.ini", "allreduce", 32, 1, 23004, 20, 0, FALSE, NULL, NULL,
     "domain_mode=same_domain_MNNVL,nodes=8;size=size_label;"
     "busbw=all_reduce_busbw_GBps"},
    {REF2, A4X_PLAN,
     "GB200 (GCP A4X), 8 hosts of 4 in one NVL72 domain (MNNVL), AllGather, "
     "NCCL 2.30.4",
     "gb200-nvl72.ini", "allgather", 32, 1, 23004, 20, 0, FALSE, NULL, NULL,
     "domain_mode=same_domain_MNNVL,nodes=8;size=size_label;"
     "busbw=all_gather_busbw_GBps"},
    {REF2, A4X_PLAN,
     "GB200 (GCP A4X), 8 hosts of 4 in one NVL72 domain (MNNVL), "
     "ReduceScatter, "
     "NCCL 2.30.4",
     "gb200-nvl72.ini", "reducescatter", 32, 1, 23004, 20, 0, FALSE, NULL, NULL,
     "domain_mode=same_domain_MNNVL,nodes=8;size=size_label;"
     "busbw=reduce_scatter_busbw_GBps"},
    {REF2, A4X_PLAN,
     "GB200 (GCP A4X), 8 hosts of 4 in one NVL72 domain (MNNVL), AllToAll, "
     "NCCL 2.30.4",
     "gb200-nvl72.ini", "alltoall", 32, 1, 23004, 20, 0, FALSE, NULL, NULL,
     "domain_mode=same_domain_MNNVL,nodes=8;size=size_label;"
     "busbw=alltoall_busbw_GBps"},
    {REF2, A4X_PLAN,
     "GB200 (GCP A4X), 16 hosts of 4 in one NVL72 domain (MNNVL), AllReduce, "
     "NCCL 2.30.4",
     "gb200-nvl72.ini", "allreduce", 64, 1, 23004, 20, 0, FALSE, NULL, NULL,
     "domain_mode=same_domain_MNNVL,nodes=16;size=size_label;"
     "busbw=all_reduce_busbw_GBps"},
    {REF2, A4X_PLAN,
     "GB200 (GCP A4X), 16 hosts of 4 in one NVL72 domain (MNNVL), AllGather, "
     "NCCL 2.30.4",
     "gb200-nvl72.ini", "allgather", 64, 1, 23004, 20, 0, FALSE, NULL, NULL,
     "domain_mode=same_domain_MNNVL,nodes=16;size=size_label;"
     "busbw=all_gather_busbw_GBps"},
    {REF2, A4X_PLAN,
     "GB200 (GCP A4X), 16 hosts of 4 in one NVL72 domain (MNNVL), "
     "ReduceScatter, "
     "NCCL 2.30.4",
     "gb200-nvl72.ini", "reducescatter", 64, 1, 23004, 20, 0, FALSE, NULL, NULL,
     "domain_mode=same_domain_MNNVL,nodes=16;size=size_label;"
     "busbw=reduce_scatter_busbw_GBps"},
    {REF2, A4X_PLAN,
     "GB200 (GCP A4X), 16 hosts of 4 in one NVL72 domain (MNNVL), AllToAll, "
     "NCCL 2.30.4",
     "gb200-nvl72.ini", "alltoall", 64, 1, 23004, 20, 0, FALSE, NULL, NULL,
     "domain_mode=same_domain_MNNVL,nodes=16;size=size_label;"
     "busbw=alltoall_busbw_GBps"},
    {REF2, A4X_PLAN,
     "GB200 (GCP A4X), 18 hosts of 4 in one NVL72 domain (MNNVL), AllReduce, "
     "NCCL 2.30.4",
     "gb200-nvl72.ini", "allreduce", 72, 1, 23004, 20, 0, FALSE, NULL, NULL,
     "domain_mode=same_domain_MNNVL,nodes=18;size=size_label;"
     "busbw=all_reduce_busbw_GBps"},
    {REF2, A4X_PLAN,
     "GB200 (GCP A4X), 18 hosts of 4 in one NVL72 domain (MNNVL), AllGather, "
     "NCCL 2.30.4",
     "gb200-nvl72.ini", "allgather", 72, 1, 23004, 20, 0, FALSE, NULL, NULL,
     "domain_mode=same_domain_MNNVL,nodes=18;size=size_label;"
     "busbw=all_gather_busbw_GBps"},
    {REF2, A4X_PLAN,
     "GB200 (GCP A4X), 18 hosts of 4 in one NVL72 domain (MNNVL), "
     "ReduceScatter, "
     "NCCL 2.30.4",
     "gb200-nvl72.ini", "reducescatter", 72, 1, 23004, 20, 0, FALSE, NULL, NULL,
     "domain_mode=same_domain_MNNVL,nodes=18;size=size_label;"
     "busbw=reduce_scatter_busbw_GBps"},
    {REF2, A4X_PLAN,
     "GB200 (GCP A4X), 18 hosts of 4 in one NVL72 domain (MNNVL), AllToAll, "
     "NCCL 2.30.4",
     "gb200-nvl72.ini", "alltoall", 72, 1, 23004, 20, 0, FALSE, NULL, NULL,
     "domain_mode=same_domain_MNNVL,nodes=18;size=size_label;"
     "busbw=alltoall_busbw_GBps"},
    /* Across NVL72 domains over RoCE (gIB): the layouts the source states,
     * 2 nodes in two domains and 36 in two full domains */
    {REF2, A4X_PLAN,
     "GB200 (GCP A4X), 2 hosts of 4 in two NVL72 domains over RoCE, "
     "AllReduce, NCCL 2.30.4",
     "gcp-a4x-2domain.ini", "allreduce", 8, 1, 23004, 20, 0, FALSE, "0-3", NULL,
     "domain_mode=cross_domain_RDMA,nodes=2;size=size_label;"
     "busbw=all_reduce_busbw_GBps"},
    {REF2, A4X_PLAN,
     "GB200 (GCP A4X), 36 hosts of 4 in two full NVL72 domains over RoCE, "
     "AllReduce, NCCL 2.30.4",
     "gcp-a4x-2domain.ini", "allreduce", 144, 1, 23004, 20, 0, FALSE, NULL,
     NULL,
     "domain_mode=cross_domain_RDMA,nodes=36;size=size_label;"
     "busbw=all_reduce_busbw_GBps"},
    {REF2, A4X_PLAN,
     "GB200 (GCP A4X), 36 hosts of 4 in two full NVL72 domains over RoCE, "
     "AllGather, NCCL 2.30.4",
     "gcp-a4x-2domain.ini", "allgather", 144, 1, 23004, 20, 0, FALSE, NULL,
     NULL,
     "domain_mode=cross_domain_RDMA,nodes=36;size=size_label;"
     "busbw=all_gather_busbw_GBps"},
    {REF2, A4X_PLAN,
     "GB200 (GCP A4X), 36 hosts of 4 in two full NVL72 domains over RoCE, "
     "ReduceScatter, NCCL 2.30.4",
     "gcp-a4x-2domain.ini", "reducescatter", 144, 1, 23004, 20, 0, FALSE, NULL,
     NULL,
     "domain_mode=cross_domain_RDMA,nodes=36;size=size_label;"
     "busbw=reduce_scatter_busbw_GBps"},
    {REF2, A4X_PLAN,
     "GB200 (GCP A4X), 36 hosts of 4 in two full NVL72 domains over RoCE, "
     "AllToAll, NCCL 2.30.4",
     "gcp-a4x-2domain.ini", "alltoall", 144, 1, 23004, 20, 0, FALSE, NULL, NULL,
     "domain_mode=cross_domain_RDMA,nodes=36;size=size_label;"
     "busbw=alltoall_busbw_GBps"},
    /* Without P2P: NCCL's SHM transport, through host memory */
    {REF2,
     "nccl_allreduce_2xRTX2080Ti_pcie3_noP2P_PIX_1node_g2_autodl_anthonyhoo."
     "csv",
     "2x RTX 2080 Ti on one PCIe Gen3 switch, no P2P (NS), AllReduce, -g 2",
     "rtx2080ti-2-nop2p.ini", "allreduce", 2, 2, 0, 20, 5, FALSE, NULL, NULL,
     NULL},
    {REF2,
     "nccl_allgather_2xRTX2080Ti_pcie3_noP2P_PIX_1node_g2_autodl_anthonyhoo."
     "csv",
     "2x RTX 2080 Ti on one PCIe Gen3 switch, no P2P (NS), AllGather, -g 2",
     "rtx2080ti-2-nop2p.ini", "allgather", 2, 2, 0, 20, 5, FALSE, NULL, NULL,
     NULL},
    {REF2,
     "nccl_broadcast_2xRTX2080Ti_pcie3_noP2P_PIX_1node_g2_autodl_anthonyhoo."
     "csv",
     "2x RTX 2080 Ti on one PCIe Gen3 switch, no P2P (NS), Broadcast, -g 2",
     "rtx2080ti-2-nop2p.ini", "broadcast", 2, 2, 0, 20, 5, FALSE, NULL, NULL,
     NULL},
    {REF2,
     "nccl_reduce_2xRTX2080Ti_pcie3_noP2P_PIX_1node_g2_autodl_anthonyhoo.csv",
     "2x RTX 2080 Ti on one PCIe Gen3 switch, no P2P (NS), Reduce, -g 2",
     "rtx2080ti-2-nop2p.ini", "reduce", 2, 2, 0, 20, 5, FALSE, NULL, NULL,
     NULL},
    {REF2,
     "nccl_alltoall_2xRTX2080Ti_pcie3_noP2P_PIX_1node_g2_autodl_anthonyhoo."
     "csv",
     "2x RTX 2080 Ti on one PCIe Gen3 switch, no P2P (NS), AllToAll, -g 2",
     "rtx2080ti-2-nop2p.ini", "alltoall", 2, 2, 0, 20, 5, FALSE, NULL, NULL,
     NULL},
    {REF2, "nccl_allreduce_2xA40_pcie_NODE_P2Pdisabled_1node_g2_eugenesiow.csv",
     "GPUs 1 and 2 of an 8x A40 server (one socket, NODE), "
     "NCCL_P2P_DISABLE=1, AllReduce, -g 2, NCCL 2.16.2",
     "a40-nvbridge-8.ini", "allreduce", 2, 2, 21602, 20, 5, FALSE, "1,2",
     "NCCL_P2P_DISABLE=1", NULL},
    {REF2, "nccl_allreduce_4xA40_pcie_SYS_P2Pdisabled_1node_g4_eugenesiow.csv",
     "GPUs 0, 1, 6 and 7 of an 8x A40 server (two sockets, SYS), "
     "NCCL_P2P_DISABLE=1, AllReduce, -g 4, NCCL 2.16.2",
     "a40-nvbridge-8.ini", "allreduce", 4, 4, 21602, 20, 5, FALSE, "0,1,6,7",
     "NCCL_P2P_DISABLE=1", NULL},
    {REF2, "nccl_allreduce_4xA100_dgxA100_P2Pdisabled_1node_g4_eugenesiow.csv",
     "GPUs 4-7 of a DGX A100, NCCL_P2P_DISABLE=1, AllReduce, -g 4, NCCL "
     "2.16.2",
     "dgx-a100.ini", "allreduce", 4, 4, 21602, 20, 5, FALSE, "4,5,6,7",
     "NCCL_P2P_DISABLE=1", NULL},
    /* Without GPUDirect RDMA: staged in host memory */
    {REF2, "nccl_allgather_2xGB10_dgxspark_2node_roce200G_cx7_jpnotes.csv",
     "2 DGX Spark (GB10), 200GbE RoCE, no GPUDirect RDMA, AllGather, "
     "-n 50, NCCL 2.28.9",
     "dgx-spark-2.ini", "allgather", 2, 1, 22809, 50, 5, FALSE, NULL, NULL,
     NULL},
    {REF2,
     "nccl_allgather_2xGB10_dgxspark_2node_roce200G_ANOMALOUS_jpnotes.csv",
     "2 DGX Spark, re-cabled, degraded (ANOMALOUS)", "dgx-spark-2.ini",
     "allgather", 2, 1, 22809, 50, 5, TRUE, NULL, NULL, NULL},
    /* AWS EFA through aws-ofi-nccl: the report's own summary, busbw of the
     * best round at six sizes (PARTIAL); with what the plugin sets on a
     * p6-b300 where the user has not (EFA_B300_ENV) */
    {REF2, EFA_B300,
     "2x 8 B300, 16x 400G EFA a node (AWS p6-b300), AllReduce, "
     "NCCL 2.31.2",
     "aws-p6-b300-efa-2.ini", "allreduce", 16, 1, 23102, 20, 0, FALSE, NULL,
     EFA_B300_ENV,
     "collective=all_reduce,metric=oop_busbw_best_round;size=size_bytes;busbw="
     "value"},
    {REF2, EFA_B300, "the same, AllGather", "aws-p6-b300-efa-2.ini",
     "allgather", 16, 1, 23102, 20, 0, FALSE, NULL, EFA_B300_ENV,
     "collective=all_gather,metric=oop_busbw_best_round;size=size_bytes;busbw="
     "value"},
    {REF2, EFA_B300, "the same, ReduceScatter", "aws-p6-b300-efa-2.ini",
     "reducescatter", 16, 1, 23102, 20, 0, FALSE, NULL, EFA_B300_ENV,
     "collective=reduce_scatter,metric=oop_busbw_best_round;size=size_bytes;"
     "busbw=value"},
    {REF2, EFA_B300, "the same, AllToAll", "aws-p6-b300-efa-2.ini", "alltoall",
     16, 1, 23102, 20, 0, FALSE, NULL, EFA_B300_ENV,
     "collective=alltoall,metric=oop_busbw_best_round;size=size_bytes;busbw="
     "value"},
    /* Over TCP: NCCL's socket transport */
    {REF2,
     "nccl_allreduce_2xL40S_2node_1perNode_socketTCP_IBdisabled_AMBIGUOUS_"
     "redhatOCP.csv",
     "2x 1 L40S over TCP sockets (NCCL_IB_DISABLE=1, 100GbE assumed), "
     "AllReduce, MPI -g 1, NCCL 2.27.3",
     "l40s-tcp-2.ini", "allreduce", 2, 1, 22703, 20, 5, FALSE, NULL,
     "NCCL_IB_DISABLE=1 NCCL_ALGO=ring", NULL},
    /* Found by this project (tests/data/reference3/README.md).  One GCP A3
     * Mega VM: its 8 H100 on NVSwitches modelled as a DGX H100's board; NCCL
     * 2.28.7, the report's NCCL on the nodes (its table prints none) */
    {REF3, "nccl_allreduce_8xH100_gcpA3Mega_1node_g8_nccl2.28.7_mgcafe.csv",
     "8x H100 (GCP A3 Mega VM), AllReduce, -g 8 -n 20, NCCL 2.28.7",
     "dgx-h100.ini", "allreduce", 8, 8, 22807, 20, 1, FALSE, NULL, NULL, NULL},
};
#undef REF3
#undef REF
#undef REF2
#undef EFA_B300
#undef EFA_B300_ENV
#undef OCI_GB300
#undef OCI_GB300_ENV
#undef A4X_PLAN

const ValDataset *val_datasets(guint *n)
{
  *n = G_N_ELEMENTS(datasets);
  return datasets;
}

/* A dataset's settings for nccl_env_read: ctx is their table. */
static const char *settings_get(void *ctx, const char *name, const char **where)
{
  (void)where;
  return g_hash_table_lookup(ctx, name);
}

/* The NCCL_* variables a dataset's run set ("NAME=VALUE ..."), into opt,
 * as the commands read the environment (nccl_env_read). */
static gboolean dataset_env(const ValDataset *d, NcclOptions *opt,
                            GError **error)
{
  g_autoptr(GHashTable) set =
      g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  g_auto(GStrv) v = g_strsplit(d->env ? d->env : "", " ", -1);
  g_autofree char *origin = g_strconcat(d->file, ": environment", NULL);

  for (guint i = 0; v[i]; i++) {
    const char *eq = strchr(v[i], '=');
    g_autofree char *name =
        eq ? g_strndup(v[i], (gsize)(eq - v[i])) : g_strdup(v[i]);

    if (!*v[i])
      continue;
    if (!eq || !nccl_env_known(name) || g_hash_table_contains(set, name)) {
      g_autofree char *known = g_strjoinv(", ", (char **)nccl_env_vars);

      g_set_error(error, VAL_ERROR, VAL_ERROR_VALUE,
                  "%s '%s': expected NAME=VALUE, each NAME once and one of "
                  "the variables ifsim reads (%s)",
                  origin, v[i], known);
      return FALSE;
    }
    g_hash_table_insert(set, g_steal_pointer(&name), g_strdup(eq + 1));
  }
  return nccl_env_read(opt, settings_get, set, origin, error);
}

/* The GPUs of d->gpus ("1,2", "0-63") into *out (free it), their count
 * into *n. */
static gboolean dataset_gpus(const ValDataset *d, guint32 **out, guint32 *n,
                             GError **error)
{
  g_auto(GStrv) v = g_strsplit(d->gpus, ",", -1);
  g_autoptr(GArray) list = g_array_new(FALSE, FALSE, sizeof(guint32));

  for (guint i = 0; v[i]; i++) {
    g_auto(GStrv) range = g_strsplit(v[i], "-", 2);
    guint64 lo, hi;

    if (!g_ascii_string_to_unsigned(range[0], 10, 0, 1023, &lo, NULL) ||
        (range[1] &&
         !g_ascii_string_to_unsigned(range[1], 10, lo, 1023, &hi, NULL))) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_VALUE,
                  "%s: GPU list '%s': expected GPU indices or ranges A-B "
                  "(0 to 1023)",
                  d->file, d->gpus);
      return FALSE;
    }
    for (guint64 g = lo; g <= (range[1] ? hi : lo); g++) {
      guint32 g32 = (guint32)g;

      g_array_append_val(list, g32);
    }
  }
  *n = list->len;
  *out = (guint32 *)(void *)g_array_free(g_steal_pointer(&list), FALSE);
  return TRUE;
}

/* The communicator options of a dataset's run: its ranks, layout, calls
 * per timing, release, the NCCL_* variables it set and the GPUs it used
 * (into *gpus and *servers, which opt then points to; free them). */
static gboolean dataset_options(const ValDataset *d, NcclOptions *opt,
                                guint32 **gpus, guint32 **servers,
                                GError **error)
{
  *opt = (NcclOptions){.ranks = d->ranks,
                       .gpus_per_process = d->gpus_per_process,
                       .iterations = d->iterations,
                       .nccl_version = d->nccl_version};
  *gpus = *servers = NULL;
  if (!dataset_env(d, opt, error))
    return FALSE;
  if (d->gpus) {
    if (!dataset_gpus(d, gpus, &opt->n_local, error))
      return FALSE;
    opt->local_gpus = *gpus;
    opt->n_servers = MAX(d->ranks / opt->n_local, 1);
    if (opt->n_servers * opt->n_local != MAX(d->ranks, opt->n_local)) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_VALUE,
                  "%s: %u ranks are not whole servers of the %u GPUs '%s'",
                  d->file, d->ranks, opt->n_local, d->gpus);
      return FALSE;
    }
    *servers = g_new(guint32, opt->n_servers);
    for (guint32 i = 0; i < opt->n_servers; i++)
      (*servers)[i] = i;
    opt->servers = *servers;
  }
  return TRUE;
}

/* Whether the model runs a row's size as NVLS or NVLSTree (set by the
 * model's own simulation). */
static gboolean row_runs_nvls(const ValAccuracyRow *r)
{
  return g_str_has_prefix(r->algo, "NVLS");
}

/* The grids (ValGrid): the [nccl] key, its ValFit field, the points
 * simulated (first + k x step for k = 0 .. steps, and with `none` one
 * more, VAL_FIT_SOCKET_NONE: the constant left out), how a fit reads
 * between them, and the fit's own grid. */
typedef struct {
  const char *key;
  gsize field; /* offsetof(ValFit, ...) */
  double first, step;
  guint steps;
  gboolean none;
  gboolean rate;   /* a rate, read between points in 1 / rate (a call's
                      body goes as 1 / rate); else a time, read linearly */
  double fit_step; /* the fit's grid over the same range */
} Grid;

static const Grid grids[VAL_GRIDS] = {
    [VAL_GRID_PROXY] = {"net_proxy_us", offsetof(ValFit, net_proxy_us), 0, 1, 8,
                        FALSE, FALSE, 0.05}, /* 0 .. 8 us */
    [VAL_GRID_SHM] = {"shm_duplex_GBps", offsetof(ValFit, shm_duplex_GBps), 0.5,
                      0.5, 14, FALSE, TRUE, 0.05}, /* 0.5 .. 7.5 GB/s */
    [VAL_GRID_NVLS] = {"nvls_copy_ratio", offsetof(ValFit, nvls_copy_ratio),
                       0.7, 0.05, 7, FALSE, TRUE, 0.005}, /* 0.7 .. 1.05 */
    [VAL_GRID_P2P] = {"p2p_copy_ratio", offsetof(ValFit, p2p_copy_ratio), 0.75,
                      0.05, 5, FALSE, TRUE, 0.005}, /* 0.75 .. 1.0 */
    [VAL_GRID_SOCKET] = {"socket_thread_GBps",
                         offsetof(ValFit, socket_thread_GBps), 2.0, 2.0, 15,
                         TRUE, TRUE, 0.1}, /* 2 .. 32 GB/s, and none */
};

/* Grid g's constant in fit. */
static double *grid_value(ValFit *fit, ValGrid g)
{
  return (double *)((char *)fit + grids[g].field);
}

static double grid_value_of(const ValFit *fit, ValGrid g)
{
  return *(const double *)((const char *)fit + grids[g].field);
}

/* Grid g's point k. */
static double grid_point(ValGrid g, guint k)
{
  const Grid *gr = &grids[g];

  return gr->none && k > gr->steps ? VAL_FIT_SOCKET_NONE
                                   : gr->first + gr->step * k;
}

/* Simulates every row of a on sys with opt: with g = VAL_GRIDS the
 * model's own call (call_ps, pace_ps, the choice); else into each row's
 * grid_call_ps[g][k] (for the NVLS grid only the rows the model runs NVLS
 * or NVLSTree, the others keeping call_ps).  Sets which grids touch a. */
static gboolean simulate(const TopoSystem *sys, const NcclOptions *opt,
                         NcclColl coll, ValAccuracy *a, guint g, guint k,
                         GError **error)
{
  g_autoptr(NcclComm) comm = nccl_comm_new(sys, opt, error);

  if (!comm)
    return FALSE;
  a->grid[VAL_GRID_PROXY] = nccl_comm_nodes(comm) > 1;
  a->grid[VAL_GRID_SHM] = nccl_comm_uses_shm(comm);
  a->grid[VAL_GRID_SOCKET] = nccl_comm_uses_socket(comm);
  a->grid[VAL_GRID_P2P] = coll >= NCCL_N_TUNED_COLLS;
  for (guint i = 0; i < a->rows->len; i++) {
    ValAccuracyRow *r = &g_array_index(a->rows, ValAccuracyRow, i);
    NcclChoice ch;
    NcclRunStats st;

    if (g == VAL_GRID_NVLS && !row_runs_nvls(r)) {
      r->grid_call_ps[g][k] = r->call_ps;
      continue;
    }
    if (!nccl_select(comm, coll, r->size_bytes, &ch, NULL, error) ||
        !nccl_run(comm, coll, r->size_bytes, &ch, NCCL_EXEC_FLOW, NULL, NULL,
                  &st, error))
      return FALSE;
    if (g < VAL_GRIDS) {
      r->grid_call_ps[g][k] = st.time_ps;
      continue;
    }
    r->call_ps = st.time_ps;
    r->pace_ps = st.pace_ps;
    g_strlcpy(r->algo,
              coll >= NCCL_N_TUNED_COLLS ? "P2P" : nccl_algo_name(ch.algo),
              sizeof(r->algo));
    g_strlcpy(r->proto, nccl_proto_name(ch.proto), sizeof(r->proto));
    r->channels = ch.channels;
    a->grid[VAL_GRID_NVLS] |= row_runs_nvls(r);
  }
  return TRUE;
}

/* A summary table's selection (ValDataset.select), its columns found in
 * the table's header: the rows whose columns `match` hold `value`, their
 * size in column `size` (bytes, or a size with K/M/G/T), their time (us)
 * or busbw (GB/s) in column `measure`. */
#define SELECT_MAX_MATCH 4
typedef struct {
  guint n_match;
  guint match[SELECT_MAX_MATCH];
  char *value[SELECT_MAX_MATCH];
  guint size, measure;
  gboolean busbw; /* measure is busbw, else a time */
} Select;

static void select_clear(Select *s)
{
  for (guint i = 0; i < s->n_match; i++)
    g_free(s->value[i]);
}

/* The index of header column `name`, or G_MAXUINT. */
static guint header_col(char **header, const char *name)
{
  for (guint i = 0; header[i]; i++)
    if (strcmp(header[i], name) == 0)
      return i;
  return G_MAXUINT;
}

static gboolean select_parse(const ValDataset *d, const char *path,
                             char **header, Select *s, GError **error)
{
  g_auto(GStrv) part = g_strsplit(d->select, ";", -1);
  g_auto(GStrv) match = NULL;
  g_auto(GStrv) size = NULL;
  g_auto(GStrv) measure = NULL;

  memset(s, 0, sizeof(*s));
  if (g_strv_length(part) != 3)
    goto bad;
  match = g_strsplit(part[0], ",", -1);
  size = g_strsplit(part[1], "=", 2);
  measure = g_strsplit(part[2], "=", 2);
  if (g_strv_length(match) > SELECT_MAX_MATCH || g_strv_length(size) != 2 ||
      strcmp(size[0], "size") != 0 || g_strv_length(measure) != 2 ||
      (strcmp(measure[0], "time") != 0 && strcmp(measure[0], "busbw") != 0))
    goto bad;
  for (guint i = 0; match[i]; i++) {
    g_auto(GStrv) kv = g_strsplit(match[i], "=", 2);

    if (g_strv_length(kv) != 2)
      goto bad;
    s->match[s->n_match] = header_col(header, kv[0]);
    if (s->match[s->n_match] == G_MAXUINT)
      goto missing;
    s->value[s->n_match++] = g_strdup(kv[1]);
  }
  s->size = header_col(header, size[1]);
  s->measure = header_col(header, measure[1]);
  s->busbw = strcmp(measure[0], "busbw") == 0;
  if (s->size == G_MAXUINT || s->measure == G_MAXUINT)
    goto missing;
  return TRUE;
bad:
  g_set_error(error, VAL_ERROR, VAL_ERROR_VALUE,
              "%s: selection '%s': expected COLUMN=VALUE,...;size=COLUMN;"
              "time=COLUMN or busbw=COLUMN",
              d->file, d->select);
  select_clear(s);
  return FALSE;
missing:
  g_set_error(error, VAL_ERROR, VAL_ERROR_VALUE,
              "%s:1: selection '%s' names a column the header does not have",
              path, d->select);
  select_clear(s);
  return FALSE;
}

/* A summary table's row: into *r when it is selected (r->size_bytes 0
 * otherwise), its time from the size and busbw where the table gives busbw. */
static gboolean select_row(const Select *s, const char *path, guint line,
                           char **cells, const ValAccuracy *a,
                           ValAccuracyRow *r, GError **error)
{
  guint n = g_strv_length(cells);
  double v;
  char *end;

  for (guint i = 0; i < s->n_match; i++)
    if (s->match[i] >= n || strcmp(cells[s->match[i]], s->value[i]) != 0)
      return TRUE;
  if (s->size >= n || s->measure >= n ||
      !sim_size_parse(cells[s->size], &r->size_bytes, NULL) ||
      r->size_bytes == 0)
    goto bad;
  v = g_ascii_strtod(cells[s->measure], &end);
  if (end == cells[s->measure] || *end || !(v > 0) || !isfinite(v))
    goto bad;
  if (s->busbw) {
    r->measured_GBps = v;
    r->measured_us = (double)r->size_bytes * a->bus_factor / (v * 1e3);
  } else {
    r->measured_us = v;
    r->measured_GBps = (double)r->size_bytes / (v * 1e3) * a->bus_factor;
  }
  return TRUE;
bad:
  r->size_bytes = 0;
  g_set_error(error, VAL_ERROR, VAL_ERROR_VALUE,
              "%s:%u: expected a size in column %u and a %s in column %u", path,
              line, s->size + 1, s->busbw ? "busbw (GB/s)" : "time (us)",
              s->measure + 1);
  return FALSE;
}

/* Reads the measured sizes and times of dataset d's file into a->rows. */
static gboolean read_rows(const ValDataset *d, const char *path, ValAccuracy *a,
                          GError **error)
{
  g_autofree char *text = NULL;
  g_autofree char **lines = NULL;
  gsize len;
  Select sel = {0};

  if (!sim_input_read(path, &text, &len, error))
    return FALSE;
  lines = sim_input_lines(text, len, path, NULL, error);
  if (!lines)
    return FALSE;
  if (d->select) {
    g_auto(GStrv) header = NULL;

    if (!lines[0]) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_VALUE, "%s: empty", path);
      return FALSE;
    }
    header = g_strsplit(g_strstrip(lines[0]), ",", -1);
    if (!select_parse(d, path, header, &sel, error))
      return FALSE;
  }
  for (guint i = 1; lines[i]; i++) {
    g_auto(GStrv) cells = NULL;
    ValAccuracyRow r = {0};
    char *end;

    g_strstrip(lines[i]);
    if (lines[i][0] == '\0')
      continue;
    cells = g_strsplit(lines[i], ",", -1);
    if (d->select) {
      if (!select_row(&sel, path, i + 1, cells, a, &r, error)) {
        select_clear(&sel);
        return FALSE;
      }
      if (r.size_bytes)
        g_array_append_val(a->rows, r);
      continue;
    }
    /* nccl-tests prints a 0-byte call where the count rounds to nothing
     * (AllGather, AllToAll of a few bytes): it has no bandwidth */
    if (strcmp(cells[0], "0") == 0)
      continue;
    if (g_strv_length(cells) <= d->time_col ||
        !g_ascii_string_to_unsigned(cells[0], 10, 1, G_MAXUINT64, &r.size_bytes,
                                    NULL) ||
        (r.measured_us = g_ascii_strtod(cells[d->time_col], &end),
         end == cells[d->time_col] || *end || !(r.measured_us > 0))) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_VALUE,
                  "%s:%u: expected a size and a time (us) in column %u", path,
                  i + 1, d->time_col + 1);
      return FALSE;
    }
    r.measured_GBps =
        (double)r.size_bytes / (r.measured_us * 1e3) * a->bus_factor;
    g_array_append_val(a->rows, r);
  }
  select_clear(&sel);
  return TRUE;
}

/* Sets [nccl] key = value (printed with `format`) in sys's models, as an
 * [nccl] group after the system's own would. */
static gboolean set_nccl(TopoSystem *sys, const char *key, const char *format,
                         double value, GError **error)
{
  g_autofree char *v = g_strdup_printf(format, value);

  return mdl_registry_set_nccl(topo_system_models_mutable(sys), key, v, error);
}

/* Simulates on sys at grid g's point k, then sets its key back to
 * `model`, the value it had.  Only plans read [nccl], so the system built
 * once serves every point of a grid (a reload cost up to half a second a
 * point on a rack-scale system). */
static gboolean simulate_at(TopoSystem *sys, ValGrid g, guint k, double model,
                            const NcclOptions *opt, NcclColl coll,
                            ValAccuracy *a, GError **error)
{
  return set_nccl(sys, grids[g].key, "%.2f", grid_point(g, k), error) &&
         simulate(sys, opt, coll, a, g, k, error) &&
         set_nccl(sys, grids[g].key, "%.17g", model, error);
}

/* The constants of t that come from data. */
static void fit_of_tuning(const MdlNcclTuning *t, ValFit *out)
{
  out->launch_us = t->host_launch_us;
  out->launch_per_channel_us = t->host_launch_per_channel_us;
  out->net_proxy_us = t->net_proxy_us;
  out->shm_duplex_GBps = t->shm_duplex_GBps;
  out->nvls_copy_ratio = t->nvls_copy_ratio;
  out->p2p_copy_ratio = t->p2p_copy_ratio;
  out->socket_thread_GBps = t->socket_thread_GBps;
}

gboolean val_accuracy_run(const ValDataset *d, const char *root,
                          ValAccuracy *out, GError **error)
{
  NcclOptions opt;
  g_autofree guint32 *gpus = NULL;
  g_autofree guint32 *servers = NULL;
  g_autofree char *path = g_build_filename(root, d->dir, d->file, NULL);
  g_autofree char *sys_path =
      g_build_filename(root, "systems", d->system, NULL);
  g_autofree char *sys_text = NULL;
  gsize sys_len;
  g_autoptr(TopoSystem) sys = NULL;
  NcclColl coll;

  memset(out, 0, sizeof(*out));
  out->rows = g_array_new(FALSE, TRUE, sizeof(ValAccuracyRow));
  out->gpus_per_process = MAX(d->gpus_per_process, 1);
  out->iterations = d->iterations;
  out->nccl_version = d->nccl_version;
  if (!nccl_coll_parse(d->collective, &coll)) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_VALUE,
                "%s: unknown collective '%s'", d->file, d->collective);
    return FALSE;
  }
  out->bus_factor = nccl_bus_factor(coll, d->ranks);
  if (!read_rows(d, path, out, error) ||
      !sim_input_read(sys_path, &sys_text, &sys_len, error))
    return FALSE;
  if (!dataset_options(d, &opt, &gpus, &servers, error))
    return FALSE;
  sys = topo_system_load_data(sys_text, sys_len, sys_path, NULL, error);
  if (!sys || !simulate(sys, &opt, coll, out, VAL_GRIDS, 0, error))
    return FALSE;
  fit_of_tuning(mdl_registry_nccl(topo_system_models(sys)), &out->model);
  for (guint g = 0; g < VAL_GRIDS; g++) {
    g_assert(grids[g].steps + 1 + grids[g].none <= VAL_GRID_POINTS);
    for (guint k = 0; out->grid[g] && k <= grids[g].steps + grids[g].none; k++)
      if (!simulate_at(sys, g, k, grid_value_of(&out->model, g), &opt, coll,
                       out, error))
        return FALSE;
  }
  val_accuracy_retime(out, &out->model);
  return TRUE;
}

/* What grid g's constant at value v changes a row's call by, read off
 * the row's calls at the grid's points: linearly between two of them, in
 * 1 / v for a rate; clamped to the grid's range; the none point itself
 * from VAL_FIT_SOCKET_NONE. */
static double grid_delta(const ValAccuracyRow *r, ValGrid g, double v)
{
  const Grid *gr = &grids[g];
  const SimTime *calls = r->grid_call_ps[g];
  double x, lo, hi, f;
  guint k;

  if (gr->none && v >= VAL_FIT_SOCKET_NONE)
    return (double)calls[gr->steps + 1] - (double)r->call_ps;
  x = CLAMP(v, gr->first, gr->first + gr->steps * gr->step);
  k = MIN((guint)((x - gr->first) / gr->step), gr->steps - 1);
  lo = gr->first + k * gr->step;
  hi = gr->first + (k + 1) * gr->step;
  f = gr->rate ? (1 / lo - 1 / x) / (1 / lo - 1 / hi) : (x - lo) / gr->step;
  return (1 - f) * (double)calls[k] + f * (double)calls[k + 1] -
         (double)r->call_ps;
}

/* A row's call under fit: the model's own, changed by what each constant
 * of a grid that touches the dataset changes it, read off that grid; the
 * changes of two constants are taken as adding up. */
static double row_call_ps(const ValAccuracy *a, const ValAccuracyRow *r,
                          const ValFit *fit)
{
  double call = (double)r->call_ps;

  for (guint g = 0; g < VAL_GRIDS; g++) {
    double v = grid_value_of(fit, g);

    if (a->grid[g] && v != grid_value_of(&a->model, g))
      call += grid_delta(r, g, v);
  }
  return call;
}

/* A row's call and its period back to back under fit's constants: all
 * but the launch pair's, which act around the call. */
typedef struct {
  SimTime call_ps, pace_ps;
} CallPace;

static CallPace row_call_pace(const ValAccuracy *a, const ValAccuracyRow *r,
                              const ValFit *fit)
{
  double call = row_call_ps(a, r, fit);
  /* a constant of the fit changes the period back to back by what it
   * changes the call */
  double pace = MAX((double)r->pace_ps + call - (double)r->call_ps, 0);

  return (CallPace){(SimTime)llround(call), (SimTime)llround(pace)};
}

/* The time nccl-tests reports for a row's call cp under fit's launch
 * pair, us. */
static double loop_time_us(const ValAccuracy *a, const ValAccuracyRow *r,
                           CallPace cp, const ValFit *fit)
{
  double host_us =
      a->gpus_per_process * nccl_launch_cost_us(fit->launch_us,
                                                fit->launch_per_channel_us,
                                                r->channels, a->nccl_version);

  return sim_time_to_us(nccl_tests_loop_time(
      cp.call_ps, cp.pace_ps, (SimTime)llround(host_us * SIM_PS_PER_US),
      a->iterations));
}

/* The time nccl-tests reports for a row under fit's constants, us. */
static double row_time_us(const ValAccuracy *a, const ValAccuracyRow *r,
                          const ValFit *fit)
{
  return loop_time_us(a, r, row_call_pace(a, r, fit), fit);
}

void val_accuracy_retime(ValAccuracy *a, const ValFit *fit)
{
  g_autoptr(GArray) large = g_array_new(FALSE, FALSE, sizeof(double));
  g_autoptr(GArray) small = g_array_new(FALSE, FALSE, sizeof(double));
  g_autoptr(GArray) ratio = g_array_new(FALSE, FALSE, sizeof(double));

  a->worst_large = a->worst_small = 0;
  a->min_ratio = G_MAXDOUBLE;
  for (guint i = 0; i < a->rows->len; i++) {
    ValAccuracyRow *r = &g_array_index(a->rows, ValAccuracyRow, i);
    double e, q;

    r->predicted_GBps =
        (double)r->size_bytes / (row_time_us(a, r, fit) * 1e3) * a->bus_factor;
    r->error = (r->predicted_GBps - r->measured_GBps) / r->measured_GBps;
    e = fabs(r->error);
    q = r->predicted_GBps / r->measured_GBps;
    g_array_append_val(r->size_bytes >= (1u << 20) ? large : small, e);
    g_array_append_val(ratio, q);
    a->min_ratio = MIN(a->min_ratio, q);
    if (r->size_bytes >= (1u << 20))
      a->worst_large = MAX(a->worst_large, e);
    else
      a->worst_small = MAX(a->worst_small, e);
  }
  a->median_large = val_median(large);
  a->median_small = val_median(small);
  a->median_ratio = val_median(ratio);
}

/* Whether a fit that leaves out dataset `skip` reads dataset i: every one
 * but it and the ANOMALOUS. */
static gboolean fitted(const ValDataset *d, guint i, guint skip)
{
  return i != skip && !d[i].anomalous;
}

/* Mean |log(predicted / measured)| over the rows of the datasets fitted;
 * with calls (CallPace, one a row in order), those calls under fit's
 * launch pair. */
static double fit_cost(const ValAccuracy *a, const ValDataset *d, guint n,
                       guint skip, const ValFit *fit, const GArray *calls)
{
  double sum = 0;
  guint rows = 0;

  for (guint i = 0; i < n; i++) {
    if (!fitted(d, i, skip))
      continue;
    for (guint k = 0; k < a[i].rows->len; k++) {
      const ValAccuracyRow *r = &g_array_index(a[i].rows, ValAccuracyRow, k);
      double t = calls ? loop_time_us(&a[i], r,
                                      g_array_index(calls, CallPace, rows), fit)
                       : row_time_us(&a[i], r, fit);

      sum += fabs(log(r->measured_us / t));
      rows++;
    }
  }
  return rows ? sum / rows : 0;
}

/* The launch pair's search: a grid over what a host may take (up to 20 us
 * a launch, 2 us a channel; registry.c bounds them far wider), then two
 * finer grids round the best point. */
#define FIT_LAUNCH_MAX_US 20.0
#define FIT_CHANNEL_MAX_US 2.0
#define FIT_STEPS 40

static void fit_launch(const ValAccuracy *a, const ValDataset *d, guint n,
                       guint skip, ValFit *at)
{
  double step0 = FIT_LAUNCH_MAX_US / FIT_STEPS;
  double step1 = FIT_CHANNEL_MAX_US / FIT_STEPS;
  double lo0 = 0, lo1 = 0, best = -1;
  ValFit best_at = *at;
  /* the calls do not change with the launch pair: read off their grids
   * once here, not at each of the search's 5,043 points */
  g_autoptr(GArray) calls = g_array_new(FALSE, FALSE, sizeof(CallPace));

  for (guint i = 0; i < n; i++) {
    if (!fitted(d, i, skip))
      continue;
    for (guint k = 0; k < a[i].rows->len; k++) {
      CallPace cp = row_call_pace(
          &a[i], &g_array_index(a[i].rows, ValAccuracyRow, k), at);
      g_array_append_val(calls, cp);
    }
  }
  for (int pass = 0; pass < 3; pass++) {
    for (int i = 0; i <= FIT_STEPS; i++) {
      for (int j = 0; j <= FIT_STEPS; j++) {
        double cost;

        at->launch_us = MAX(lo0 + i * step0, 0);
        at->launch_per_channel_us = MAX(lo1 + j * step1, 0);
        cost = fit_cost(a, d, n, skip, at, calls);
        if (best < 0 || cost < best - 1e-12) {
          best = cost;
          best_at = *at;
        }
      }
    }
    /* the next pass: two steps either side of the best, 10 times finer */
    lo0 = best_at.launch_us - 2 * step0;
    lo1 = best_at.launch_per_channel_us - 2 * step1;
    step0 /= FIT_STEPS / 4;
    step1 /= FIT_STEPS / 4;
  }
  *at = best_at;
}

/* The value of one constant (*x, a field of at) on a grid lo, lo + step,
 * ..., hi that fits best, the others held. */
static void fit_grid(const ValAccuracy *a, const ValDataset *d, guint n,
                     guint skip, ValFit *at, double *x, double lo, double hi,
                     double step)
{
  double best = -1, best_x = *x;
  guint steps = (guint)lround((hi - lo) / step);

  for (guint i = 0; i <= steps; i++) {
    double cost;

    *x = lo + i * step;
    cost = fit_cost(a, d, n, skip, at, NULL);
    if (best < 0 || cost < best - 1e-12) {
      best = cost;
      best_x = *x;
    }
  }
  *x = best_x;
}

void val_fit(const ValAccuracy *a, const ValDataset *d, guint n, guint skip,
             ValFit *out)
{
  ValFit at = {0};
  gboolean used[VAL_GRIDS] = {FALSE};

  val_fit_defaults(&at);
  for (guint i = 0; i < n; i++)
    for (guint g = 0; g < VAL_GRIDS; g++)
      used[g] |= fitted(d, i, skip) && a[i].grid[g];
  /* a constant that can be left out only from runs it touches: none,
   * none */
  for (guint g = 0; g < VAL_GRIDS; g++)
    if (grids[g].none && !used[g])
      *grid_value(&at, g) = VAL_FIT_SOCKET_NONE;
  for (int turn = 0; turn < 3; turn++) {
    fit_launch(a, d, n, skip, &at);
    for (guint g = 0; g < VAL_GRIDS; g++) {
      const Grid *gr = &grids[g];

      if (!gr->none || used[g])
        fit_grid(a, d, n, skip, &at, grid_value(&at, g), gr->first,
                 gr->first + gr->step * gr->steps, gr->fit_step);
    }
  }
  *out = at;
}

void val_fit_defaults(ValFit *out)
{
  g_autoptr(MdlRegistry) r = mdl_registry_new();

  fit_of_tuning(mdl_registry_nccl(r), out);
}

char *val_fit_describe(const ValFit *f)
{
  g_autofree char *socket =
      f->socket_thread_GBps >= VAL_FIT_SOCKET_NONE
          ? g_strdup("none, no dataset fitted runs sockets")
          : g_strdup_printf("%.1f GB/s", f->socket_thread_GBps);

  return g_strdup_printf("launch %.3f us + %.4f us/channel, net proxy %.2f "
                         "us, SHM duplex %.2f GB/s, NVLS copies %.3f, "
                         "p2p copies %.3f, socket thread %s",
                         f->launch_us, f->launch_per_channel_us,
                         f->net_proxy_us, f->shm_duplex_GBps,
                         f->nvls_copy_ratio, f->p2p_copy_ratio, socket);
}

void val_accuracy_clear(ValAccuracy *a)
{
  if (a->rows)
    g_array_free(a->rows, TRUE);
  a->rows = NULL;
}
