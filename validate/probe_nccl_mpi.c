/* `ifsim-probe nccl --mpi`: the NCCL collectives of validate/probe_nccl.c
 * with one rank per MPI process, across hosts, as nccl-tests' *_perf
 * binaries built with MPI=1 run under mpirun (-g 1).
 *
 * Setup.  MPI_COMM_TYPE_SHARED splits the job into hosts; a process drives
 * GPU (local rank mod the GPUs it sees) -- with CUDA_VISIBLE_DEVICES set per
 * rank by the launcher, its one GPU.  Rank 0 makes the ncclUniqueId and
 * MPI_Bcast sends it; ncclCommInitRank.  The sweep, collectives, buffers and
 * timing are probe_nccl_run's, the same calls in every process; a batch's
 * time is the slowest rank's (MPI_Allreduce MAX of each process's event
 * interval), which also keeps the processes in step between batches, and an
 * MPI_Barrier precedes each point's first batch.  Only rank 0 writes the
 * measurements (its GPUs in the header, plus ranks, nodes, hosts).
 *
 * Failures.  No rank may wait for one that has given up.  Before NCCL is
 * initialised the ranks agree by MPI_Allreduce: no GPU on some rank, every
 * rank exits 77; a failed CUDA call in the setup, every rank exits 2; the
 * ranks that saw it say why.  From ncclCommInitRank on, the other ranks may
 * already wait inside NCCL for the one that failed, so that one says which
 * rank and call failed and MPI_Abort ends the whole job (status 2).  MPI's
 * own errors are fatal (MPI_ERRORS_ARE_FATAL, the default on
 * MPI_COMM_WORLD). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config.h"
#include "validate/probe.h"
#include "validate/probe_gpu.h"

#if IFSIM_HAVE_MPI && IFSIM_HAVE_NCCL
#include <mpi.h>

/* This process in the job; `host` is g_get_host_name(), cut to fit. */
typedef struct {
  int rank, size;
  int local_rank, local_size;
  char host[256];
} ProbeMpi;

/* What rank 0 gathers from every rank for the header. */
typedef struct {
  int local_rank;
  char host[256];
} ProbeMpiHost;

static void probe_mpi_barrier(void)
{
  MPI_Barrier(MPI_COMM_WORLD);
}

static double probe_mpi_slowest(double ms)
{
  double all = ms;

  MPI_Allreduce(&ms, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return all;
}

/* A failure the other ranks cannot see (they may be waiting inside NCCL):
 * says which rank and call failed and ends every process of the job. */
static void probe_mpi_abort(const ProbeMpi *pm, const GError *error)
{
  fprintf(stderr,
          "ifsim-probe: nccl: rank %d of %d (%s): %s; aborting every rank\n",
          pm->rank, pm->size, pm->host, error->message);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, PROBE_EXIT_USAGE);
  exit(PROBE_EXIT_USAGE); /* MPI_Abort does not return */
}

/* TRUE on every rank when `ok` is TRUE on every rank. */
static gboolean probe_mpi_all(gboolean ok)
{
  int mine = ok ? 1 : 0, all = 0;

  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

/* Rank 0's header keys of the job: ranks, nodes (the hosts MPI found:
 * groups of ranks that share memory) and hosts (their names, in the order
 * of their lowest rank, comma-separated).  Collective: every rank calls it;
 * m is written on rank 0 only. */
static void probe_mpi_describe(const ProbeMpi *pm, ValMeasurements *m)
{
  ProbeMpiHost me;
  g_autofree ProbeMpiHost *all = NULL;
  g_autoptr(GString) hosts = g_string_new(NULL);
  char buf[32];
  int nodes = 0;

  memset(&me, 0, sizeof(me));
  me.local_rank = pm->local_rank;
  g_strlcpy(me.host, pm->host, sizeof(me.host));
  if (pm->rank == 0)
    all = g_new0(ProbeMpiHost, pm->size);
  MPI_Gather(&me, (int)sizeof(me), MPI_BYTE, all, (int)sizeof(me), MPI_BYTE, 0,
             MPI_COMM_WORLD);
  if (pm->rank != 0)
    return;
  for (int r = 0; r < pm->size; r++) {
    if (all[r].local_rank != 0)
      continue;
    all[r].host[sizeof(all[r].host) - 1] = '\0';
    g_string_append_printf(hosts, "%s%s", nodes ? "," : "", all[r].host);
    nodes++;
  }
  g_snprintf(buf, sizeof(buf), "%d", pm->size);
  val_meas_set(m, "ranks", buf);
  g_snprintf(buf, sizeof(buf), "%d", nodes);
  val_meas_set(m, "nodes", buf);
  val_meas_set(m, "hosts", hosts->str);
}

/* From the GPU count to the measurements, once MPI is up; see the top of
 * the file. */
static int probe_mpi_measure(const ProbeMpi *pm, const ProbeNcclPlan *plan)
{
  ProbeNccl pn = {0};
  g_autoptr(ValMeasurements) m = val_meas_new();
  g_autoptr(GString) why = g_string_new(NULL);
  g_autoptr(GError) error = NULL;
  ncclUniqueId id;
  int count, dev, missing = 0, mine, status = PROBE_EXIT_OK;
  gboolean ok;

  /* Every rank needs a GPU before any of them enters NCCL. */
  count = probe_gpu_count(why);
  mine = count == 0;
  MPI_Allreduce(&mine, &missing, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (missing) {
    if (count == 0) {
      g_autofree char *msg = g_strdup_printf("rank %d of %d (%s): %s", pm->rank,
                                             pm->size, pm->host, why->str);
      probe_no_device("nccl", msg);
    } else if (pm->rank == 0)
      fprintf(stderr,
              "ifsim-probe: nccl: %d of %d rank(s) have no CUDA GPU; "
              "no rank measures (skipped)\n",
              missing, pm->size);
    return PROBE_EXIT_NO_DEVICE;
  }
  dev = pm->local_rank % count;
  if (pm->local_rank == 0 && pm->local_size > count)
    fprintf(stderr,
            "ifsim-probe: nccl: warning: %d ranks on %s share its %d GPU(s) "
            "(local rank mod %d); NCCL may refuse two ranks on one GPU\n",
            pm->local_size, pm->host, count, count);

  /* Streams and buffers, and rank 0's id: failures here are agreed on. */
  ok = probe_nccl_setup(&pn, pm->size, 1, pm->rank, &dev, plan, &error);
  memset(&id, 0, sizeof(id));
  if (ok && pm->rank == 0)
    ok = probe_nccl_ok(ncclGetUniqueId(&id), "ncclGetUniqueId", &error);
  if (!probe_mpi_all(ok)) {
    if (!ok)
      fprintf(stderr, "ifsim-probe: nccl: rank %d of %d (%s): %s\n", pm->rank,
              pm->size, pm->host, error->message);
    else if (pm->rank == 0)
      fprintf(stderr, "ifsim-probe: nccl: another rank failed to set up; "
                      "no rank measures\n");
    probe_nccl_clear(&pn);
    return PROBE_EXIT_USAGE;
  }
  MPI_Bcast(&id, (int)sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);

  /* From here a failing rank leaves the others waiting in NCCL. */
  if (!probe_cuda_ok(cudaSetDevice(dev), "cudaSetDevice", &error) ||
      !probe_nccl_ok(ncclCommInitRank(&pn.comms[0], pm->size, id, pm->rank),
                     "ncclCommInitRank", &error))
    probe_mpi_abort(pm, error);
  if (pm->rank == 0) {
    probe_nccl_describe(m, count);
    val_meas_set(m, "gpus_per_process", "1");
  }
  probe_mpi_describe(pm, m);
  pn.barrier = probe_mpi_barrier;
  pn.slowest = probe_mpi_slowest;
  if (!probe_nccl_run(&pn, plan, m, &error))
    probe_mpi_abort(pm, error);

  /* Rank 0 writes; every rank exits with its status. */
  if (pm->rank == 0)
    status = probe_finish("nccl", m, plan->sweep);
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  probe_nccl_clear(&pn);
  return status;
}

int probe_nccl_mpi(const ProbeNcclPlan *plan)
{
  ProbeMpi pm;
  MPI_Comm local;
  int status;

  memset(&pm, 0, sizeof(pm));
  MPI_Init(NULL, NULL);
  MPI_Comm_rank(MPI_COMM_WORLD, &pm.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &pm.size);
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, pm.rank,
                      MPI_INFO_NULL, &local);
  MPI_Comm_rank(local, &pm.local_rank);
  MPI_Comm_size(local, &pm.local_size);
  g_strlcpy(pm.host, g_get_host_name(), sizeof(pm.host));

  status = probe_mpi_measure(&pm, plan);

  MPI_Comm_free(&local);
  MPI_Finalize();
  return status;
}

#endif /* IFSIM_HAVE_MPI && IFSIM_HAVE_NCCL */
