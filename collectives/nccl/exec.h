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
} NcclExecution;

/* Adds x->pl's launch, head hops and body rounds to x->dag after x->after;
 * with want_done, x->done gets a join after the call's last tasks.  The
 * plan's paths must outlive the transfers (they are read as each starts);
 * with a trace, x->traced is kept until nccl_execution_clear. */
void nccl_execution_build(NcclExecution *x);
void nccl_execution_clear(NcclExecution *x);

#endif /* COLLECTIVES_NCCL_EXEC_H */
