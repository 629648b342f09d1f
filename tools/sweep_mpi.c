/* MPI for `ifsim sweep`; see tools/sweep_mpi.h.  Built with or without
 * MPI: without it (IFSIM_HAVE_MPI 0), cli_mpi_start refuses and the other
 * functions are never reached. */
#include "tools/sweep_mpi.h"

#include "sim/config.h"
#include "tools/cli.h"

#if IFSIM_HAVE_MPI
#include <mpi.h>
#endif

gboolean cli_mpi_launched(void)
{
  return g_getenv("OMPI_COMM_WORLD_SIZE") || g_getenv("PMIX_RANK") ||
         g_getenv("PMI_RANK");
}

#if IFSIM_HAVE_MPI

gboolean cli_mpi_start(guint *rank, guint *size, GError **error)
{
  int r = 0, n = 1;

  (void)error;
  MPI_Init(NULL, NULL);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  *rank = (guint)r;
  *size = (guint)n;
  return TRUE;
}

int cli_mpi_first_failed(gboolean ok)
{
  int first = 0;

  MPI_Comm_rank(MPI_COMM_WORLD, &first);
  if (ok)
    first = G_MAXINT;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return first == G_MAXINT ? -1 : first;
}

/* Buffers go in pieces of at most 1 GiB (MPI counts are int). */
#define MPI_PIECE (1u << 30)

void cli_mpi_send_results(const GByteArray *buf)
{
  guint64 len = buf->len;

  MPI_Send(&len, 1, MPI_UINT64_T, 0, 0, MPI_COMM_WORLD);
  for (guint64 at = 0; at < len; at += MPI_PIECE) {
    guint64 n = MIN(MPI_PIECE, len - at);
    MPI_Send(buf->data + at, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
  }
}

GByteArray *cli_mpi_recv_results(guint from)
{
  guint64 len = 0;
  GByteArray *buf;

  MPI_Recv(&len, 1, MPI_UINT64_T, (int)from, 0, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
  buf = g_byte_array_sized_new((guint)len);
  g_byte_array_set_size(buf, (guint)len);
  for (guint64 at = 0; at < len; at += MPI_PIECE) {
    guint64 n = MIN(MPI_PIECE, len - at);
    MPI_Recv(buf->data + at, (int)n, MPI_BYTE, (int)from, 1, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
  }
  return buf;
}

int cli_mpi_bcast_status(int status)
{
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return status;
}

void cli_mpi_stop(void)
{
  MPI_Finalize();
}

#else /* !IFSIM_HAVE_MPI */

gboolean cli_mpi_start(guint *rank, guint *size, GError **error)
{
  *rank = 0;
  *size = 1;
  g_set_error(error, CLI_ERROR, CLI_ERROR_NOT_BUILT,
              "started by mpirun, but this ifsim is built without MPI "
              "('ifsim version' lists what is built; Debian: "
              "libopenmpi-dev, then rebuild)");
  return FALSE;
}

int cli_mpi_first_failed(gboolean ok)
{
  return ok ? -1 : 0;
}

void cli_mpi_send_results(const GByteArray *buf)
{
  (void)buf;
  g_assert_not_reached();
}

GByteArray *cli_mpi_recv_results(guint from)
{
  (void)from;
  g_assert_not_reached();
}

int cli_mpi_bcast_status(int status)
{
  return status;
}

void cli_mpi_stop(void)
{
}

#endif
