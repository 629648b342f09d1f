/* SimDag: transfers and delays with dependencies, run over any transport.
 *
 * The collective planner (collectives/nccl) turns one collective call into such
 * a graph: per rank, an ordered stream of sends, receives and reductions;
 * across ranks, "this send starts when that one has arrived".  The DAG
 * starts each task the moment everything it waits for is done and calls
 * the task's optional start function then and its completion function
 * when it ends; the transport behind it
 * (analytical or flow) decides how long transfers take.
 *
 * Tasks may be added at any time, also from completion functions, so a
 * long schedule can be generated as it runs and memory stays proportional
 * to the tasks alive: a task is forgotten once done, and waiting on a task
 * that is already done (or forgotten) waits for nothing.
 *
 * Streams give per-rank ordering: a task on stream s also waits for the
 * task added to s before it, as work on one CUDA stream or one NCCL
 * channel runs in order. */
#ifndef SIM_DAG_H
#define SIM_DAG_H

#include <glib.h>

#include "sim/transport.h"

/* Identifies a task; 0 is never one. */
typedef guint64 SimTask;

#define SIM_TASK_NONE ((SimTask)0)

typedef void (*SimTaskFn)(void *ctx, guint64 user, SimTime now);

typedef struct {
  /* A transfer when n_paths > 0 (see SimTransfer; paths and weights must
   * stay valid until the task starts, when the transport copies them),
   * else a delay of delay_ps (compute, a kernel launch; 0: a join). */
  guint64 bytes;
  const SimPath *paths;
  const double *weights;
  guint32 n_paths;
  double cap_Bps;
  guint32 copies; /* a transfer's (SimTransfer.copies; 0: one) */
  SimTime delay_ps;
  guint32 stream; /* SIM_NONE: no stream */
  SimTaskFn done;    /* may be NULL */
  SimTaskFn started; /* called when the task starts (its transfer enters
                        the transport, its delay begins), with the same ctx
                        and user; may be NULL */
  void *ctx;
  guint64 user;
} SimTaskSpec;

typedef struct {
  guint64 added, done;
  guint32 peak_alive; /* most tasks added and not yet done */
  SimTime last_done;  /* when the latest task ended */
} SimDagStats;

typedef struct SimDag SimDag;

/* A DAG running its transfers on t (it takes t's completion function). */
SimDag *sim_dag_new(SimEngine *engine, SimTransport *t);
void sim_dag_free(SimDag *dag);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SimDag, sim_dag_free)

/* Adds a task that starts once every task in after[0..n_after) and its
 * stream's previous task are done (now, if they all are). */
SimTask sim_dag_add(SimDag *dag, const SimTaskSpec *spec, const SimTask *after,
                    guint32 n_after);

/* A delay_ps that never elapses: the task, once started, ends when
 * sim_dag_complete() says so (work planned only when it can start, such as
 * a collective whose inputs are ready, stands behind such a task). */
#define SIM_DELAY_EXTERNAL G_MAXUINT64

/* Ends a started task of delay SIM_DELAY_EXTERNAL now; its dependents
 * start.  Any other task, or one not started yet, is a programming error. */
void sim_dag_complete(SimDag *dag, SimTask t);

/* TRUE once t is done (and for SIM_TASK_NONE). */
gboolean sim_dag_is_done(const SimDag *dag, SimTask t);

/* Tasks added and not yet done. */
guint64 sim_dag_alive(const SimDag *dag);

void sim_dag_stats(const SimDag *dag, SimDagStats *out);

/* After the engine ran out of events: TRUE when every task is done; else
 * a SIM_ERROR_STALLED error saying what is stuck at `now` (the transfers
 * and delays started that never ended, and how many tasks wait).  A task
 * can only wait for tasks added before it, so tasks never wait in a cycle:
 * a stall is a started task whose end never came (a transport that gives
 * a flow no rate), which this reports instead of a wrong time. */
gboolean sim_dag_check_finished(const SimDag *dag, SimTime now,
                                GError **error);

#endif /* SIM_DAG_H */
