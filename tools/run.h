/* What `ifsim run` and `ifsim sweep` share: the workload options of one
 * collective size sweep, their checks (the messages name run's flags),
 * and the per-size loop that chooses each size as NCCL would
 * (nccl_select), runs it on the system (nccl_run) and turns the result
 * into a TrcCollRow (nccl_tests_time, algbw, busbw).  Implemented in
 * tools/cmd_run.c. */
#ifndef TOOLS_RUN_H
#define TOOLS_RUN_H

#include <glib.h>
#include <stdio.h>

#include "collectives/nccl/nccl.h"
#include "tools/fault_options.h"
#include "tools/nccl_options.h"
#include "traces/collresults.h"

typedef struct {
  char *topology;
  char **models;
  char *collective;
  guint64 min_bytes;
  guint64 max_bytes;
  guint64 step_bytes;
  gboolean step_bytes_seen;
  guint64 step_factor;
  gboolean step_factor_seen;
  guint64 ranks;
  gboolean ranks_seen;
  guint64 gpus_per_process;
  guint64 iters;       /* --iters: calls nccl-tests times as one loop */
  gboolean iters_seen; /* else: the steady pace of a long loop */
  guint64 graph_launches; /* --graph-launches K: nccl-tests -G K (0: off) */
  guint64 root;
  guint64 max_memory;
  gboolean max_memory_seen;
  char *dtype;
  char *redop;
  CliNcclOptions nccl; /* --algo ... --fidelity */
  CliFaultOptions faults; /* --fail ... (run only; sweep varies faults.KEY) */
  char *fail_at;          /* run's --fail-at 'TIME ELEMENT' (fail_at.h) */
  char *reroute_time;     /* run's --reroute-time TIME */
  char *csv;
  char *json;
  char *links_csv;
  char *ports_csv;
  char *queue_samples;
  char *sample_interval;
  char *timeline;
  char *link_samples;
  char *hot_links;
  gboolean explain;
  /* How a workload key (minbytes, maxbytes, stepbytes, stepfactor, ranks,
   * gpus_per_process, iters, graph_launches, root, collective, datatype,
   * op) was given, for messages: NULL names run's flag as the user typed
   * it (-b or --minbytes); sweep names its plan file's key or its point's
   * value. */
  const char *(*name)(void *ctx, const char *key);
  void *name_ctx;
} CliRunOptions;

/* What cli_run_check derives from the options. */
typedef struct {
  NcclColl coll;
  guint32 type_size; /* bytes per element of o->dtype */
  NcclOptions nopt;
} CliRunPlan;

/* What run, sweep and replay read the same way (NCCL's knobs:
 * tools/nccl_options.h): --hot-links K (a count from 1, or "all": 0) and
 * --sample-interval (a time above 0 ps); errors name the flag. */
gboolean cli_parse_hot_links(const char *text, guint32 *out, GError **error);
gboolean cli_parse_sample_interval(const char *text, SimTime *out,
                                   GError **error);

/* Sets run's defaults: AllReduce, 8 B to 8 GiB, factor 2, one GPU per
 * process; the strings NULL. */
void cli_run_options_init(CliRunOptions *o);
/* Frees the strings; o may be reused after cli_run_options_init. */
void cli_run_options_clear(CliRunOptions *o);

/* run's workload options (-t, -m, -c, -b, -e, -f, -i, -g, -n,
 * --gpus-per-process, --iters, --graph-launches, -d, --op, -r), for the
 * commands that run a collective size sweep as run does (run, faults): the
 * entries, and the CliNumberTarget entries of the numbers among them for
 * the group's table. */
void cli_run_add_entries(GOptionGroup *group, CliRunOptions *o);
/* clang-format off */
#define CLI_RUN_NUMBER_TARGETS(o)                                              \
  {"minbytes", 'b', CLI_NUMBER_SIZE, &(o)->min_bytes, NULL, 0},                \
  {"maxbytes", 'e', CLI_NUMBER_SIZE, &(o)->max_bytes, NULL, 0},                \
  {"stepbytes", 'i', CLI_NUMBER_SIZE, &(o)->step_bytes,                        \
   &(o)->step_bytes_seen, 0},                                                  \
  {"stepfactor", 'f', CLI_NUMBER_COUNT, &(o)->step_factor,                     \
   &(o)->step_factor_seen, 0},                                                 \
  {"ngpus", 'g', CLI_NUMBER_COUNT, &(o)->ranks, &(o)->ranks_seen, 0},          \
  {"nranks", 'n', CLI_NUMBER_COUNT, &(o)->ranks, &(o)->ranks_seen, 0},         \
  {"root", 'r', CLI_NUMBER_COUNT, &(o)->root, NULL, 0},                        \
  {"gpus-per-process", 0, CLI_NUMBER_COUNT, &(o)->gpus_per_process, NULL, 0}, \
  {"iters", 0, CLI_NUMBER_COUNT, &(o)->iters, &(o)->iters_seen, 0},         \
  {"graph-launches", 0, CLI_NUMBER_COUNT, &(o)->graph_launches, NULL, 0}
/* clang-format on */

/* Sets o to run's defaults, adds run's workload options, NCCL's, the
 * faults' and then `more` to group (the context's main group), parses
 * argv and refuses arguments left over.  FALSE when the command ends
 * here: with *status set (--help, a bad option: already reported) and
 * error unset, or with error set. */
gboolean cli_run_parse(GOptionContext *ctx, GOptionGroup *group,
                       CliRunOptions *o, const GOptionEntry *more,
                       const char *command, int *argc, char ***argv,
                       int *status, GError **error);

/* Checks o (filling in the default collective, type and reduction) and
 * the NCCL_* environment into *plan; errors name each key as o->name
 * says. */
gboolean cli_run_check(CliRunOptions *o, CliRunPlan *plan, GError **error);

/* The system o names (-t, -m) with its faults: the file's [faults] and
 * the fault flags (tools/fault_options.h). */
TopoSystem *cli_run_load_system(const CliRunOptions *o, GError **error);

/* The communicator of plan over sys, refusing a --gpus-per-process that
 * does not divide a server's ranks and a --root that is no rank. */
NcclComm *cli_run_comm_new(const TopoSystem *sys, const CliRunOptions *o,
                           const CliRunPlan *plan, GError **error);

/* Runs the collective over o's sizes on comm, appending one TrcCollRow per
 * size to rows (TrcCollRow).  explain (may be NULL) gets NCCL's choice of
 * every size as it is made.  inspect (may be NULL) sees the transport of
 * the largest size, then *inspect_ok says whether it succeeded (it set
 * error otherwise); last_hooks (may be NULL) run around that size.  Stops
 * at an interrupt (sim/interrupt.h). */
/* Hooks around the largest size's run (run's --timeline, --link-samples):
 * `before` gets NCCL's choice for it, `after` its time; either may be
 * NULL. */
typedef struct {
  void (*before)(void *ctx, const NcclChoice *choice);
  gboolean (*after)(void *ctx, guint64 size, SimTime time_ps, GError **error);
  void *ctx;
} CliRunLast;

gboolean cli_run_collective(const NcclComm *comm, const CliRunOptions *o,
                            const CliRunPlan *plan, FILE *explain,
                            NcclInspectFn inspect, void *inspect_ctx,
                            const gboolean *inspect_ok,
                            const CliRunLast *last_hooks, GArray *rows,
                            GError **error);

/* The description of a sweep run with these options, borrowed from o and
 * sys: the header of its table, CSV and JSON. */
void cli_run_info(const CliRunOptions *o, const CliRunPlan *plan,
                  const TopoSystem *sys, const NcclComm *comm,
                  TrcCollInfo *info);

#endif /* TOOLS_RUN_H */
