/* The jobs `ifsim replay` runs: one from the command line, or several
 * from a jobs file ([job NAME] groups, docs/replay.md), each with its
 * workload (a workload CSV, an ASTRA-sim text workload or an LLM layout)
 * and how it is placed.  Every error names the file, group and key, or
 * the flag. */
#ifndef TOOLS_JOBS_H
#define TOOLS_JOBS_H

#include <glib.h>

#include "topologies/system.h"
#include "traces/replay.h"
#include "traces/workload.h"

/* One job as the command line or a jobs file gives it. */
typedef struct {
  char *name;
  TrcWorkload *w;
  TrcPlacement placement;
  guint64 seed;
  GArray *list; /* guint32: explicit servers */
  guint32 *servers;
  guint32 n_servers;
  char *where; /* how its placement was given, for messages: "FILE: [job
                  NAME] servers", "--servers", "job NAME" */
} CliJob;

/* How the user gave the workload's options, for messages: the flags on
 * the command line, "FILE: [job NAME] KEY" in a jobs file. */
typedef struct {
  const char *llm, *astra_tp, *ns_per_tick, *astra, *astra_gpus;
} CliWorkloadNames;

void cli_job_clear(CliJob *j);

/* Places the jobs (CliJob) on sys's servers, each by its placement, in
 * order: sets their servers.  Errors name the job's place: a job whose
 * ranks do not fill whole servers, too few servers free. */
gboolean cli_jobs_place(const TopoSystem *sys, GArray *jobs, GError **error);

/* "0-7,16,20-23": server indices in the order given; errors begin with
 * `what` (the flag or key). */
gboolean cli_parse_servers(const char *text, const char *what, GArray **out,
                           GError **error);

/* Reads a workload: exactly one of a CSV file, an ASTRA-sim text file or
 * an LLM spec; `where` and `names` say how the user gave them. */
TrcWorkload *cli_load_workload(const char *csv, const char *astra,
                               const char *llm, guint32 astra_tp,
                               guint32 astra_gpus, const char *ns_per_tick,
                               const char *where, const CliWorkloadNames *names,
                               GError **error);

/* A workload read from a job's traces: exactly one of the file lists. */
typedef struct {
  char **nccl_logs, **kineto, **chakra;
  const char *gap;      /* nccl_logs: the compute between calls, or NULL */
  const char *gap_name; /* how the user gave it: "--gap", "FILE: [job a] gap" */
  gint64 step;          /* kineto: ProfilerStep#N; -1: the last all hold */
  const char *where;    /* prefixes errors and notes (a jobs file's group);
                           NULL: none */
} CliTraceSource;

/* Reads it (traces/workload.h's readers), printing the reader's notes on
 * standard error as "ifsim: replay: note: [WHERE: ]LINE". */
TrcWorkload *cli_load_trace(const CliTraceSource *t, GError **error);

/* Appends the jobs of a jobs file (its text, for _data) to jobs (CliJob);
 * workload paths are relative to the file. */
gboolean cli_jobs_load(const char *path, GArray *jobs, GError **error);
gboolean cli_jobs_load_data(const char *text, gsize len, const char *path,
                            GArray *jobs, GError **error);

#endif /* TOOLS_JOBS_H */
