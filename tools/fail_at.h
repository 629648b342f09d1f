/* `ifsim run --fail-at 'TIME ELEMENT'`: an element that fails under the
 * running collective, TIME after it starts (docs/faults.md, "Before the
 * job, or in the middle of a collective").  The fabric recovers at once, after its
 * control plane routes around the element (--reroute-time), or not at all
 * (a NIC's port); NCCL's RDMA connections lose what was in flight and
 * retransmit when their timer fires (nccl_comm_ib_retry), or fail after
 * their retries, when the job starts again on a new communicator. */
#ifndef TOOLS_FAIL_AT_H
#define TOOLS_FAIL_AT_H

#include <glib.h>

#include "collectives/nccl/nccl.h"
#include "tools/run.h"
#include "topologies/system.h"

/* What --fail-at does to a run: prepared before the sizes run, so that a
 * bad --fail-at is refused at once, applied to their rows after. */
typedef struct CliFailAt CliFailAt;

/* Reads o->fail_at and o->reroute_time, builds the system after the fault
 * and tells how it recovers, for the run of comm over sys.  Errors (exit
 * status 2): a malformed --fail-at or --reroute-time, an element faults
 * do not take, an NVLink, a fabric whose recovery needs --reroute-time
 * without it, a communicator on TCP sockets. */
CliFailAt *cli_fail_at_new(const CliRunOptions *o, const CliRunPlan *plan,
                           const TopoSystem *sys, const NcclComm *comm,
                           GError **error);
void cli_fail_at_free(CliFailAt *f);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(CliFailAt, cli_fail_at_free)

/* Rewrites rows (TrcCollRow, one per size, as cli_run_collective made
 * them): a size that ends before TIME is as it was; one that does not
 * takes TIME, the stall, and the rest of its work at the rerouted
 * fabric's pace, or, where its connections fail, leaves the rows.  lines
 * gets what happened (a line for the fault, one per size that fails), for
 * the reports' comments. */
gboolean cli_fail_at_rows(CliFailAt *f, GArray *rows, GPtrArray *lines,
                          GError **error);

#endif /* TOOLS_FAIL_AT_H */
