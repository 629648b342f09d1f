/* Turning a plan into DAG tasks (exec.c); internal to collectives/nccl. */
#ifndef COLLECTIVES_NCCL_EXEC_H
#define COLLECTIVES_NCCL_EXEC_H

#include "collectives/nccl/plan.h"

typedef struct {
  NcclPlan *pl;
  SimDag *dag;
  guint64 transfers;
  const SimTask *after; /* what the launch waits for */
  guint32 n_after;
  SimTask done; /* a join after the call's last tasks (want_done) */
  gboolean want_done;
  SimTaskFn done_fn; /* the join's completion function, context */
  void *done_ctx;
  const NcclTrace *trace; /* with a transfer hook, else NULL */
  GArray *traced;         /* Traced, by the tasks' user value */
  gboolean want_pace;     /* record what nccl_execution_pace needs */
  SimTime launched;       /* when the launch ended (want_pace) */
  SimTime *arrive;        /* a chain's edges: when the first slice landed */
  SimTime *finish;        /* and when the last byte did (want_pace) */
} NcclExecution;

/* Adds x->pl's launch, head hops and body rounds to x->dag after x->after;
 * with want_done, x->done gets a join after the call's last tasks.  The
 * plan's paths must outlive the transfers (they are read as each starts);
 * with a trace, x->traced is kept until nccl_execution_clear. */
void nccl_execution_build(NcclExecution *x);
void nccl_execution_clear(NcclExecution *x);

/* After the run of a plan built with want_pace that took call_ps: the
 * period of the same call run back to back on every rank (NcclRunStats
 * pace_ps).  A chain (Broadcast, Reduce: NCCL's ring cut open at the
 * root) has no cycle, so a rank's next call needs only its own kernel
 * done and its upstream rank ahead: the pace is the launch latency plus
 * the longest span a rank is busy, from its first data (the chain's head:
 * the launch) to its last byte.  Any other plan: call_ps. */
SimTime nccl_execution_pace(const NcclExecution *x, SimTime call_ps);

#endif /* COLLECTIVES_NCCL_EXEC_H */
