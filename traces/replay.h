/* Replay of training steps (`ifsim replay`): the operations of one step of
 * one or more jobs (traces/workload.h) executed on a system's fabric, the
 * collectives as NCCL runs them (collectives/nccl sessions), the compute as
 * delays, every rank waiting for its own dependencies.
 *
 * A job's ranks fill its servers in order (rank r on GPU r % g of the
 * job's server r / g, g GPUs per server; a job of fewer than g ranks takes
 * GPUs 0 .. ranks-1 of one server).  Each op runs on every instance of its
 * process group (every TP group, every DP group, ...; the stage's only
 * when the op names a stage) over a communicator of that instance's GPUs;
 * an instance starts once each of its ranks has finished that rank's
 * dependencies, and the next ops of its ranks wait for its end.  Several
 * jobs run at once on one fabric and share its links.
 *
 * What it reports, per job: the step time (the end of its last op), per
 * op its first start, last end and NCCL's choice, and per rank the time
 * spent computing and the exposed communication: the time a collective of
 * the rank's is in flight while the rank computes nothing, in all and per
 * process group (a moment with collectives of two groups in flight counts
 * for both groups, once for the total); means over the ranks. */
#ifndef TRACES_REPLAY_H
#define TRACES_REPLAY_H

#include <glib.h>

#include "collectives/nccl/nccl.h"
#include "topologies/system.h"
#include "traces/workload.h"

typedef struct {
  const char *name;
  const TrcWorkload *w;
  const guint32 *servers; /* the servers its ranks fill, in order */
  guint32 n_servers;
} TrcReplayJob;

/* Most servers a system has (docs/config.md: [system] servers). */
#define TRC_MAX_SERVERS 1048576u

/* Servers a job of `ranks` ranks needs on servers of g GPUs; 0 when the
 * ranks do not fill whole servers (and are more than one server's). */
guint32 trc_servers_needed(guint32 ranks, guint32 g);

/* The ranks a job of w places on each server of g GPUs: w->per_server, or
 * g; 0 when w->per_server is above g. */
guint32 trc_ranks_per_server(const TrcWorkload *w, guint32 g);

typedef enum {
  TRC_PLACE_PACKED,  /* the lowest free servers, in order */
  TRC_PLACE_SPREAD,  /* free servers evenly spaced over the free list */
  TRC_PLACE_RANDOM,  /* free servers drawn with the seed */
  TRC_PLACE_EXPLICIT /* the given list */
} TrcPlacement;

/* Parses "packed", "spread", "random"; FALSE for anything else. */
gboolean trc_placement_parse(const char *s, TrcPlacement *out);

/* Chooses n servers among the `total` not marked in used[] by the policy
 * (seed for RANDOM, list for EXPLICIT), marks them and writes them to out
 * in rank order.  Fails when too few are free or an explicit server is
 * out of range or taken. */
gboolean trc_place(guint32 total, guint8 *used, guint32 n, TrcPlacement p,
                   guint64 seed, const guint32 *list, guint32 *out,
                   GError **error);

typedef struct {
  SimTime start_ps, end_ps; /* first instance's start, last one's end */
  guint32 instances;        /* instances that ran */
  NcclChoice choice;        /* the first instance's (collectives of more
                               than one rank) */
  gboolean chosen;
} TrcOpResult;

typedef struct {
  SimTime step_ps;   /* the end of the job's last op */
  double compute_us; /* per rank, mean */
  double exposed_us; /* per rank, mean */
  double exposed_group_us[TRC_N_GROUPS];
  guint32 ranks;
  TrcOpResult *ops; /* [w->n_ops] */
} TrcReplayResult;

typedef struct {
  NcclOptions nccl; /* algorithm, protocol, channel limits, collnet for
                       every communicator (ranks, servers ignored) */
  NcclExec exec;
  /* Collectives read from a trace take the time it measured (TrcOp
   * measured_ps) instead of running on the fabric: the trace's step as
   * measured, to check the dependencies read from it. */
  gboolean as_measured;
  /* Called with the fabric at the end (link reports); may be NULL. */
  NcclInspectFn inspect;
  void *inspect_ctx;
  /* Called with the engine and transport before the run starts (a link
   * sampler); may be NULL. */
  void (*attach)(void *ctx, SimEngine *e, const SimTransport *t);
  void *attach_ctx;
} TrcReplayOptions;

typedef struct TrcReplay TrcReplay;

/* Runs the jobs at once from time 0; out[j] gets job j's results.  The
 * returned run keeps each op instance's times for trc_replay_slices(). */
TrcReplay *trc_replay_run(const TopoSystem *sys, const TrcReplayJob *jobs,
                          guint32 n_jobs, const TrcReplayOptions *o,
                          TrcReplayResult *out, GError **error);
void trc_replay_free(TrcReplay *run);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TrcReplay, trc_replay_free)

/* Calls fn for every (rank, op) that ran, with its start and end, job by
 * job, rank by rank, op by op; returns how many. */
typedef void (*TrcSliceFn)(void *ctx, guint32 job, guint32 rank, guint32 op,
                           SimTime start, SimTime end);
guint64 trc_replay_slices(const TrcReplay *run, TrcSliceFn fn, void *ctx);

/* The system's server and GPU of a job's rank. */
void trc_replay_rank_gpu(const TrcReplay *run, guint32 job, guint32 rank,
                         guint32 *server, guint32 *gpu);

void trc_replay_result_clear(TrcReplayResult *r);

#endif /* TRACES_REPLAY_H */
