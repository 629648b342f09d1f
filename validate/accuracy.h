/* Predicted against measured: the published nccl-tests runs of
 * tests/data/reference and tests/data/reference2 (copies of the project's
 * shared reference sets), the systems that match them
 * (tests/data/systems), and the fit of the model's constants that come
 * from data, with each dataset left out in turn: for bench/accuracy and
 * the tests that bound the error. */
#ifndef VALIDATE_ACCURACY_H
#define VALIDATE_ACCURACY_H

#include <glib.h>

#include "sim/time.h"

typedef struct {
  const char *dir;        /* reference or reference2, under the data root */
  const char *file;       /* in dir */
  const char *what;       /* one line */
  const char *system;     /* in systems/, under the data root */
  const char *collective;
  guint32 ranks;
  guint32 gpus_per_process; /* nccl-tests -g: 8 for one process driving
                               the 8 GPUs of a server, 1 under MPI */
  guint32 nccl_version;     /* as the source gives it (NcclOptions); 0: not
                               given, ifsim's default */
  guint32 iterations; /* nccl-tests -n: calls per timed loop, as the source
                         gives it, else nccl-tests' default, 20 */
  guint32 time_col;   /* column of the measured time, us: the busbw columns
                       are printed to 0.01 GB/s, too coarse for small
                       sizes */
  gboolean anomalous; /* a misconfigured system: must be predicted well
                         above what it measured */
  const char *gpus;   /* the server's GPUs the run used, as its
                         CUDA_VISIBLE_DEVICES lists them ("1,2", ranges
                         "0-63"); with more ranks than GPUs listed, those
                         GPUs of as many servers, in order; NULL: the
                         first `ranks` */
  const char *env;    /* the NCCL_* variables the run set that change the
                         model, "NAME=VALUE ...", any of nccl_env_vars,
                         read as the commands read the environment
                         (nccl_env_read); NULL: none */
  const char *select; /* a summary table's rows (reference2's summary_*.csv
                         and per-node-count tables): "COLUMN=VALUE,...;
                         size=COLUMN;time=COLUMN" or "...;busbw=COLUMN",
                         the columns named as the table's header names
                         them: the rows that hold every VALUE, their size
                         (bytes, or with K/M/G/T) and their time (us) or
                         busbw (GB/s); NULL: an nccl-tests table, time in
                         time_col */
} ValDataset;

/* The datasets; n set to their count. */
const ValDataset *val_datasets(guint *n);

/* The constants of the model that come from data rather than from
 * physics or NCCL's source ([nccl] in models/registry.c).  The host's
 * launch cost (host_launch_us, host_launch_per_channel_us) only changes
 * the nccl-tests loop around a call (nccl_tests_loop_time).  The others
 * change the simulated call: each dataset they touch is simulated on a
 * grid of the constant (ValGrid), and a fit reads its calls between the
 * grid's points. */
typedef struct {
  double launch_us;             /* one rank's call on one channel */
  double launch_per_channel_us; /* each further channel */
  double net_proxy_us;          /* one proxy action of a network step */
  double shm_duplex_GBps;       /* a GPU's SHM connections whose CTAs work both
                              sides of host memory, each way */
  double nvls_copy_ratio;    /* an NVLS channel's copy warps against NCCL's
                              model of the channel */
  double p2p_copy_ratio;     /* NCCL's point-to-point kernel against the GPU's
                              NCCL bandwidth */
  double socket_thread_GBps; /* one thread of NCCL's socket transport,
                                bytes sent and received together;
                                VAL_FIT_SOCKET_NONE where no dataset fitted
                                runs sockets: the thread left out, the
                                NIC's rate alone */
} ValFit;

#define VAL_FIT_SOCKET_NONE 1000.0 /* [nccl] socket_thread_GBps's maximum */

/* The constants a dataset's calls are simulated on a grid of, and the
 * datasets each touches (the grids themselves: accuracy.c's `grids`). */
typedef enum {
  VAL_GRID_PROXY,  /* net_proxy_us: a dataset with a network */
  VAL_GRID_SHM,    /* shm_duplex_GBps: one that runs NCCL's SHM transport */
  VAL_GRID_NVLS,   /* nvls_copy_ratio: the sizes it runs NVLS or NVLSTree */
  VAL_GRID_P2P,    /* p2p_copy_ratio: a Send/Recv or AllToAll */
  VAL_GRID_SOCKET, /* socket_thread_GBps: one over TCP */
  VAL_GRIDS
} ValGrid;

#define VAL_GRID_POINTS 17 /* the most points a grid has */

typedef struct {
  guint64 size_bytes;
  double measured_us;
  double measured_GBps, predicted_GBps; /* busbw */
  double error;                         /* (predicted - measured) / measured */
  char algo[16], proto[8];
  guint32 channels;
  SimTime call_ps; /* the simulated call with the model's own constants */
  SimTime pace_ps; /* its period back to back (NcclRunStats) */
  /* at each point of each grid that touches the dataset (ValGrid) */
  SimTime grid_call_ps[VAL_GRIDS][VAL_GRID_POINTS];
} ValAccuracyRow;

typedef struct {
  GArray *rows;                     /* ValAccuracyRow */
  double median_large, worst_large; /* |error| for sizes >= 1 MiB */
  double median_small, worst_small; /* below 1 MiB (0 when none) */
  double median_ratio, min_ratio;   /* predicted / measured, all sizes */
  guint32 gpus_per_process, iterations;
  guint32 nccl_version; /* d->nccl_version (0: ifsim's default release) */
  double bus_factor;
  gboolean grid[VAL_GRIDS]; /* the grids that touch it: their constants
                               change its calls */
  ValFit model;        /* the model's own constants */
} ValAccuracy;

/* Simulates every size of dataset d, read from root/d->dir/d->file on
 * root/systems/d->system, and times it with the model's own constants.
 * Fails with an error naming the file and line on unreadable data. */
gboolean val_accuracy_run(const ValDataset *d, const char *root,
                          ValAccuracy *out, GError **error);

/* Times a's simulated calls again with the constants of fit, setting
 * every row's prediction and error and a's summaries. */
void val_accuracy_retime(ValAccuracy *a, const ValFit *fit);

/* The constants that fit the datasets best, skipping dataset `skip`
 * (G_MAXUINT: none) and the ANOMALOUS ones: the least mean |log(predicted
 * / measured)| over every size, found by turns: the launch pair on a grid
 * (then finer grids round the best), then each constant of a ValGrid on
 * a grid of its own, finer than its simulations' (socket_thread_GBps is
 * VAL_FIT_SOCKET_NONE when no dataset fitted runs sockets), three
 * times over.  a: the n datasets' runs, in val_datasets' order. */
void val_fit(const ValAccuracy *a, const ValDataset *d, guint n, guint skip,
             ValFit *out);

/* The model's own constants (its [nccl] defaults). */
void val_fit_defaults(ValFit *out);

/* A fit's constants in words: "launch 5.080 us + 0.3230 us/channel, net
 * proxy 2.10 us, SHM duplex 2.00 GB/s, NVLS copies 0.855, p2p copies
 * 0.890, socket thread 16.0 GB/s" (the socket thread "none" where no
 * dataset fitted runs sockets).  Free it. */
char *val_fit_describe(const ValFit *f);

void val_accuracy_clear(ValAccuracy *a);

#endif /* VALIDATE_ACCURACY_H */
