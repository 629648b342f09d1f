/* ifsim-probe: measurements on real GPUs and RDMA NICs.
 *
 * Every probe writes the measurement format of validate/measure.h (to
 * standard output, or -o FILE written atomically), with the machine in the
 * header block.  Exit status: 0 measured, 2 bad input or a failure during
 * the measurement (the message names the call that failed), 77 the device
 * needed is absent or the probe was built without its library (so ctest
 * counts such a test as skipped, not failed). */
#ifndef VALIDATE_PROBE_H
#define VALIDATE_PROBE_H

#include <glib.h>

#include "validate/measure.h"

#define PROBE_EXIT_OK 0
#define PROBE_EXIT_USAGE 2
#define PROBE_EXIT_NO_DEVICE 77

/* `ifsim-probe devices`: lists CUDA GPUs (with the NCCL version) and RDMA
 * devices with their ports.  Returns PROBE_EXIT_NO_DEVICE, after saying why
 * on stderr, when neither kind is present. */
int val_probe_devices(int argc, char **argv);
/* GPU<->GPU copy bandwidth and latency (validate/probe_cuda.c). */
int val_probe_p2p(int argc, char **argv);
/* Host<->device bandwidth and latency (validate/probe_cuda.c). */
int val_probe_hostdev(int argc, char **argv);
/* NCCL collectives over the local GPUs (validate/probe_nccl.c). */
int val_probe_nccl(int argc, char **argv);
/* RDMA WRITE/SEND between two hosts (validate/probe_verbs.c). */
int val_probe_verbs(int argc, char **argv);

/* --- shared by the probes (validate/probe_common.c) ------------------- */

/* The size sweep and repetitions every probe takes: -b MIN -e MAX -f
 * FACTOR (sizes as nccl-tests: K/M/G binary suffixes), -n ITERS timed
 * repetitions per size, -w WARMUP untimed ones, -o FILE. */
typedef struct {
  guint64 min_bytes, max_bytes, step_factor;
  guint64 iters, warmup;
  char *output; /* NULL: standard output */
} ProbeSweep;

/* Defaults: the given sizes, factor 2, 20 iterations, 5 warm-up. */
void probe_sweep_init(ProbeSweep *s, guint64 min_bytes, guint64 max_bytes);
void probe_sweep_clear(ProbeSweep *s);
/* A GOptionContext for probe `name` with the sweep options in its main
 * group plus `extra` (may be NULL; NULL-terminated). */
GOptionContext *probe_context_new(const char *name, const char *summary,
                                  ProbeSweep *s, const GOptionEntry *extra);
/* Parses argv; checks the sweep (min <= max, factor >= 2, iters >= 1) and
 * that no argument is left.  Returns FALSE with *status set when the probe
 * should end now (0 after --help, 2 after an error it printed). */
gboolean probe_parse(GOptionContext *ctx, const char *name, ProbeSweep *s,
                     int *argc, char ***argv, int *status);
/* The sizes of the sweep (guint64), min to max. */
GArray *probe_sweep_sizes(const ProbeSweep *s);

/* "ifsim-probe: NAME: message" on stderr; returns PROBE_EXIT_USAGE. */
int probe_fail(const char *name, const GError *error);
/* "ifsim-probe: NAME: WHY (skipped)" on stderr; PROBE_EXIT_NO_DEVICE. */
int probe_no_device(const char *name, const char *why);
/* Keeps the command line as typed (main calls it before any parsing). */
void probe_set_command(int argc, char **argv);
/* Header keys every probe sets: source ("ifsim-probe NAME"), command (the
 * whole command line), host, date (UTC, ISO 8601), ifsim version. */
void probe_describe_run(ValMeasurements *m, const char *name);
/* Writes m where the sweep says; returns the exit status. */
int probe_finish(const char *name, const ValMeasurements *m,
                 const ProbeSweep *s);

#endif /* VALIDATE_PROBE_H */
