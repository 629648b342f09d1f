/* Independent items of work (a sweep's points, the scenarios of ifsim
 * faults) run over worker processes: fork, each worker taking every
 * jobs-th item and sending each result back over a pipe as a frame
 * (cli_sweep_frame_append: the item, whether it ran, a text).  Processes,
 * not threads: the simulator keeps process-wide state (the memory limit,
 * the interrupt flag).  The parent records the results as they arrive;
 * whoever keeps them by item makes the output independent of jobs. */
#ifndef TOOLS_WORKERS_H
#define TOOLS_WORKERS_H

#include <glib.h>

/* Runs item `item` (in a worker, or here with one job): its text (the
 * result, or why it failed), *ok whether it ran. */
typedef char *(*CliWorkFn)(void *ctx, guint item, gboolean *ok);
/* Takes a result (text is the callee's to keep or free) in the parent;
 * FALSE stops the others. */
typedef gboolean (*CliRecordFn)(void *ctx, guint item, gboolean ok, char *text);

/* Runs items[0..n) `jobs` at once (here, one after the other, where jobs
 * is 1), recording each result.  A worker stops after a failed item
 * unless keep_going (and no interrupt came); the parent stops the workers
 * when record says so or an interrupt comes.  FALSE with error set for a
 * worker that could not start or ended abnormally, and for an interrupt. */
gboolean cli_workers_run(const guint *items, guint n, guint jobs,
                         gboolean keep_going, CliWorkFn work,
                         CliRecordFn record, void *ctx, GError **error);

#endif /* TOOLS_WORKERS_H */
