/* Predicted against measured: the published nccl-tests runs of
 * tests/data/reference (from ../shared/reference) and the systems that
 * match them, for bench/accuracy and the tests that bound the error. */
#ifndef VALIDATE_ACCURACY_H
#define VALIDATE_ACCURACY_H

#include <glib.h>

typedef struct {
  const char *file;       /* in the reference directory */
  const char *what;       /* one line */
  const char *system_ini; /* the matching system, as INI text */
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
} ValDataset;

/* The datasets; n set to their count. */
const ValDataset *val_datasets(guint *n);

typedef struct {
  guint64 size_bytes;
  double measured_GBps, predicted_GBps; /* busbw */
  double error;                         /* (predicted - measured) / measured */
  char algo[16], proto[8];
  guint32 channels;
} ValAccuracyRow;

typedef struct {
  GArray *rows;                     /* ValAccuracyRow */
  double median_large, worst_large; /* |error| for sizes >= 1 MiB */
  double median_small, worst_small; /* below 1 MiB (0 when none) */
  double median_ratio;              /* predicted / measured, all sizes */
} ValAccuracy;

/* Predicts every size of a dataset read from dir/file.  Fails with an
 * error naming the file and line on unreadable data. */
gboolean val_accuracy_run(const ValDataset *d, const char *dir,
                          ValAccuracy *out, GError **error);
void val_accuracy_clear(ValAccuracy *a);

#endif /* VALIDATE_ACCURACY_H */
