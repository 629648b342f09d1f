/* Results of a collective size sweep (`ifsim run`), in the layouts users
 * already read: the nccl-tests table, a CSV with units in its header, and
 * JSON shaped like nccl-tests' -J output.
 *
 * A prediction has no separate out-of-place and in-place runs: both column
 * groups of the table carry the same predicted time; #wrong is "N/A" (no
 * data is checked).  GB = 10^9 bytes, as nccl-tests. */
#ifndef TRACES_COLLRESULTS_H
#define TRACES_COLLRESULTS_H

#include <glib.h>
#include <stdio.h>

/* One size of the sweep.  ifsim faults -j sends rows between processes
 * as text (tools/cmd_faults.c row_text): a field added here goes there
 * too. */
typedef struct {
  guint64 size_bytes; /* nccl-tests S: the whole array */
  guint64 count;      /* elements, as nccl-tests prints it */
  double time_us;
  double algbw_GBps; /* size / time */
  double busbw_GBps; /* algbw x the collective's bus factor */
  const char *algo;  /* NCCL algorithm name: "Ring", "NVLS", ... */
  const char *proto; /* "LL", "LL128", "Simple" */
  guint32 channels;
  double nccl_model_us; /* NCCL's own cost-model estimate of the choice */
  double stall_prob;    /* lossy links: the chance of a retransmission
                           timeout, which time_us leaves out */
  gboolean closed_form; /* an AllToAll computed in closed form, not run */
} TrcCollRow;

/* The sweep's description, printed in the table's header lines and stored
 * in the CSV comments and the JSON "config". */
typedef struct {
  const char *test;       /* nccl-tests binary name: "all_reduce_perf" */
  const char *collective; /* "AllReduce" */
  const char *system;     /* system name */
  const char *fidelity;   /* "flow", "analytical" */
  const char *type;       /* "float" */
  const char *redop;      /* "sum"; "none" for data movement */
  gint32 root;            /* -1: not rooted */
  guint32 ranks, nodes;
  guint64 min_bytes, max_bytes, step_bytes, step_factor;
  /* for the JSON's nccl-tests keys (0 / NULL: not known, left out) */
  guint32 nccl_version;     /* the NCCL release modelled, as NCCL's
                               version code: 22809 for 2.28.9 */
  guint32 gpus_per_process; /* -g; 0: one */
  guint32 iters;            /* calls a timing spans (--iters); 0: not set */
  guint32 graph_launches;   /* nccl-tests -G (--graph-launches); 0: off */
  const guint32 *rank_server, *rank_local; /* [ranks]: each rank's server
                                              and GPU on it */
  const char *device_info; /* the GPUs, as nccl-tests names a device */
  /* the system's faults, one line each ("down: p0.spine3 (64 links)");
   * NULL: none (header lines "# fault: ...", the JSON config's "faults") */
  const char *const *faults;
  /* how the times were made where it is not plain (an AllToAll in closed
   * form), one line each; NULL: none ("# note: ..." header lines, the
   * JSON config's "notes") */
  const char *const *notes;
} TrcCollInfo;

/* The nccl-tests table: header block ("# nccl-tests layout, predicted by
 * ifsim ..."), the two column-header lines, one row per size with the
 * exact field widths of nccl-tests' util.cu, then "# Out of bounds values
 * : 0 OK", "# Avg bus bandwidth    : X" (mean busbw over the rows),
 * "#" and "# Collective test concluded: TEST". */
void trc_coll_print_table(FILE *out, const TrcCollInfo *info,
                          const TrcCollRow *rows, guint n);

/* CSV text: comment lines "# key: value" for the info, then a header
 * size_bytes,count_elements,type,redop,root,time_us,algbw_GBps,busbw_GBps,
 * algo,proto,channels,nccl_model_us and one row per size. */
char *trc_coll_csv(const TrcCollInfo *info, const TrcCollRow *rows, guint n);

/* The CSV's header, and one row's fields for it (no line end): ifsim
 * sweep writes them after its own leading columns. */
#define TRC_COLL_CSV_COLUMNS                                                   \
  "size_bytes,count_elements,type,redop,root,time_us,algbw_GBps,"              \
  "busbw_GBps,algo,proto,channels,nccl_model_us"
void trc_coll_csv_append_row(GString *s, const TrcCollInfo *info,
                             const TrcCollRow *r);

/* JSON text as nccl-tests -J: {"config": {...}, "results": [{"size",
 * "count", "type", "redop", "root", "out_of_place": {"time", "alg_bw",
 * "bus_bw", "nwrong"}, "in_place": {...}, "algo", "proto", "channels"}],
 * "average_bus_bandwidth": {"bandwidth", "okay"}}. */
char *trc_coll_json(const TrcCollInfo *info, const TrcCollRow *rows, guint n);

/* Write those texts to `path` atomically (a temporary file renamed, so a
 * failure leaves no partial file and an earlier file untouched); errors
 * name the file. */
gboolean trc_coll_csv_write(const char *path, const TrcCollInfo *info,
                            const TrcCollRow *rows, guint n, GError **error);
gboolean trc_coll_json_write(const char *path, const TrcCollInfo *info,
                             const TrcCollRow *rows, guint n, GError **error);

#endif /* TRACES_COLLRESULTS_H */
