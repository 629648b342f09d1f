/* Predicted against measured busbw for the published nccl-tests runs; see
 * validate/accuracy.h. */
#include "validate/accuracy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/nccl/nccl.h"
#include "models/params.h"
#include "sim/units.h"
#include "topologies/system.h"
#include "validate/error.h"
#include "validate/measure.h"

/* Two and four DGX H100 (8 GPUs, 8 ConnectX-7 NDR each, one per GPU) on a
 * rail-optimized NDR fat-tree, as the nccl-tests#309 systems. */
#define H100_NDR(n)                                                            \
  "[system]\nserver = dgx-h100\nservers = " n "\n"                             \
  "[scaleout]\ntopology = fat-tree\nswitch = quantum2-ndr\ntiers = 2\n"        \
  "rail_optimized = true\nrouting = dmodk\n"

/* NCCL's version where the source states it (the nccl-tests#309 runs:
 * 2.26.2; the 4-node comment is taken to be the same).
 * The process layout is the source's command line where it gives one
 * (`-g 8`: one process for the server's 8 GPUs; `all_reduce_perf_mpi
 * -g 1`: one per GPU).  The RTX 4090 run is taken to be `-g 8`, a
 * one-machine run; the 4-node and ANOMALOUS runs one rank per process
 * (the 4-node floor, 35 us, is below eight launches; the ANOMALOUS sizes
 * start at 8 MiB, where the layout does not matter).
 * The RTX 4090 host is two AMD EPYC 7542 (Rome).  ifsim has no model of
 * peer traffic between Rome's sockets, whose rate no published figure
 * gives (the machine's own copies: 21-22 GB/s), so its sockets are joined
 * by UPI 2.0, which does not limit the ring; nor would xGMI. */
static const ValDataset datasets[] = {
    {"nccl_allreduce_8xA100_nvlink3_stas00mlengineering.csv",
     "8x A100 NVLink3/NVSwitch AllReduce, -g 8",
     "[system]\nserver = dgx-a100\n", "allreduce", 8, 8, 0, 50, 1, FALSE},
    {"nccl_allreduce_8xH100_sxm_nccltests290.csv",
     "8x H100 SXM AllReduce (NVLS), -g 8", "[system]\nserver = dgx-h100\n",
     "allreduce", 8, 8, 0, 2, 5, FALSE},
    {"nccl_allreduce_16xH100_2node_ndr8x400_nccltests309.csv",
     "2x 8 H100, 8x NDR 400G per node, AllReduce, MPI -g 1", H100_NDR("2"),
     "allreduce", 16, 1, 22602, 20, 5, FALSE},
    {"nccl_allreduce_32xH100_4node_ndr8x400_vm_nccltests309.csv",
     "4x 8 H100, 8x NDR 400G per node (VMs), AllReduce", H100_NDR("4"),
     "allreduce", 32, 1, 22602, 20, 5, FALSE},
    {"nccl_allreduce_8xRTX4090_pcie_P2Punlocked_chlc.csv",
     "8x RTX 4090 PCIe Gen4, P2P unlocked, AllReduce, -g 8 (assumed)",
     "[system]\nserver = rtx4090-8\n"
     "[server rtx4090-8]\ngpus = 8\nsockets = 2\nsocket_link = upi2\n"
     "root_complex = root-complex-gen4\ngpu_pcie = pcie4-x16\n"
     "gpu_arch = sm89\n",
     "allreduce", 8, 8, 0, 20, 5, FALSE},
    {"nccl_sendrecv_8xA100_nvlink_liplus.csv", "8x A100 NVLink SendRecv, -g 8",
     "[system]\nserver = dgx-a100\n", "sendrecv", 8, 8, 0, 20, 5, FALSE},
    {"nccl_allreduce_16xH100_2node_ndr_ANOMALOUS_nccltests290.csv",
     "2x 8 H100 NDR, misconfigured (ANOMALOUS)", H100_NDR("2"), "allreduce", 16,
     1, 0, 200, 5, TRUE},
};

const ValDataset *val_datasets(guint *n)
{
  *n = G_N_ELEMENTS(datasets);
  return datasets;
}

gboolean val_accuracy_run(const ValDataset *d, const char *dir,
                          ValAccuracy *out, GError **error)
{
  g_autofree char *path = g_build_filename(dir, d->file, NULL);
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(TopoSystem) sys = NULL;
  g_autoptr(NcclComm) comm = NULL;
  g_autoptr(GArray) large = g_array_new(FALSE, FALSE, sizeof(double));
  g_autoptr(GArray) small = g_array_new(FALSE, FALSE, sizeof(double));
  g_autoptr(GArray) ratio = g_array_new(FALSE, FALSE, sizeof(double));
  NcclOptions opt = {.ranks = d->ranks,
                     .gpus_per_process = d->gpus_per_process,
                     .iterations = d->iterations,
                     .nccl_version = d->nccl_version};
  NcclColl coll;

  memset(out, 0, sizeof(*out));
  out->rows = g_array_new(FALSE, TRUE, sizeof(ValAccuracyRow));
  if (!g_file_get_contents(path, &text, NULL, error))
    return FALSE;
  sys = topo_system_load_data(d->system_ini, strlen(d->system_ini), d->file,
                              NULL, error);
  if (!sys || !nccl_coll_parse(d->collective, &coll))
    return FALSE;
  comm = nccl_comm_new(sys, &opt, error);
  if (!comm)
    return FALSE;
  lines = g_strsplit(text, "\n", -1);
  for (guint i = 1; lines[i]; i++) {
    g_auto(GStrv) cells = NULL;
    ValAccuracyRow r = {0};
    NcclChoice ch;
    NcclRunStats st;
    double t_us;
    char *end;

    g_strstrip(lines[i]);
    if (lines[i][0] == '\0')
      continue;
    cells = g_strsplit(lines[i], ",", -1);
    if (g_strv_length(cells) <= d->time_col ||
        !g_ascii_string_to_unsigned(cells[0], 10, 1, G_MAXUINT64, &r.size_bytes,
                                    NULL) ||
        (t_us = g_ascii_strtod(cells[d->time_col], &end),
         end == cells[d->time_col] || *end || !(t_us > 0))) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_VALUE,
                  "%s:%u: expected a size and a time (us) in column %u", path,
                  i + 1, d->time_col + 1);
      return FALSE;
    }
    r.measured_GBps =
        (double)r.size_bytes / (t_us * 1e3) * nccl_bus_factor(coll, d->ranks);
    if (!nccl_select(comm, coll, r.size_bytes, &ch, NULL, error) ||
        !nccl_run(comm, coll, r.size_bytes, &ch, NCCL_EXEC_FLOW, NULL, NULL,
                  &st, error))
      return FALSE;
    r.predicted_GBps =
        (double)r.size_bytes /
        sim_time_to_s(nccl_tests_time(comm, st.time_ps, ch.channels)) / 1e9 *
        nccl_bus_factor(coll, d->ranks);
    r.error = (r.predicted_GBps - r.measured_GBps) / r.measured_GBps;
    g_strlcpy(r.algo,
              coll >= NCCL_N_TUNED_COLLS ? "P2P" : nccl_algo_name(ch.algo),
              sizeof(r.algo));
    g_strlcpy(r.proto, nccl_proto_name(ch.proto), sizeof(r.proto));
    r.channels = ch.channels;
    g_array_append_val(out->rows, r);
    {
      double e = fabs(r.error), q = r.predicted_GBps / r.measured_GBps;

      g_array_append_val(r.size_bytes >= (1u << 20) ? large : small, e);
      g_array_append_val(ratio, q);
    }
  }
  for (guint i = 0; i < large->len; i++)
    out->worst_large = MAX(out->worst_large, g_array_index(large, double, i));
  for (guint i = 0; i < small->len; i++)
    out->worst_small = MAX(out->worst_small, g_array_index(small, double, i));
  out->median_large = val_median(large);
  out->median_small = val_median(small);
  out->median_ratio = val_median(ratio);
  return TRUE;
}

void val_accuracy_clear(ValAccuracy *a)
{
  if (a->rows)
    g_array_free(a->rows, TRUE);
  a->rows = NULL;
}
