/* The MPI side of `ifsim sweep` (mpirun -np K ifsim sweep ...): points
 * dealt round-robin to the ranks, each rank's results sent to rank 0 as
 * one buffer of frames (tools/sweep.h), rank 0 writing the CSV and every
 * rank ending with the status rank 0 decides.
 *
 * MPI is touched only when the process was started by mpirun
 * (cli_mpi_launched), so a plain `ifsim` never initializes it.  Without
 * MPI in the build (IFSIM_HAVE_MPI 0) cli_mpi_start fails and the rest is
 * never called. */
#ifndef TOOLS_SWEEP_MPI_H
#define TOOLS_SWEEP_MPI_H

#include <glib.h>

/* TRUE when a launcher started this process as one of several ranks:
 * OMPI_COMM_WORLD_SIZE, PMIX_RANK or PMI_RANK is set. */
gboolean cli_mpi_launched(void);

/* MPI_Init; this process's rank and the number of ranks.  Fails when the
 * build has no MPI. */
gboolean cli_mpi_start(guint *rank, guint *size, GError **error);

/* Collective: the lowest rank whose ok is FALSE, or -1 when all are. */
int cli_mpi_first_failed(gboolean ok);

/* A rank other than 0 sends its results to rank 0, which receives the
 * results of rank `from`. */
void cli_mpi_send_results(const GByteArray *buf);
GByteArray *cli_mpi_recv_results(guint from);

/* Collective: rank 0's status, on every rank. */
int cli_mpi_bcast_status(int status);

/* MPI_Finalize. */
void cli_mpi_stop(void);

#endif /* TOOLS_SWEEP_MPI_H */
