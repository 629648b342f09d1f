/* Training-step workloads: the operations one step of a job runs on every
 * rank (compute, collectives over its process groups, pipeline send/recv)
 * and the dependencies between them.  Read from the workload CSV format
 * (docs/workload.md), generated for the common LLM layouts (Megatron-LM's
 * accounting, traces/workload_llm.c) or imported from ASTRA-sim 1.0 /
 * SimAI text workloads (traces/workload_astra.c); `ifsim replay` executes
 * them on a fabric.
 *
 * Layout: ranks = tp x pp x dp, rank r = tp_idx + tp x (dp_idx + dp x
 * stage).  TP group: same (dp_idx, stage); DP group: same (tp_idx, stage);
 * EP group: blocks of ep consecutive dp indices with the same (tp_idx,
 * stage); EDP group (the data-parallel group of expert weights): same
 * (tp_idx, stage, dp_idx mod ep), dp / ep ranks; PP send/recv: from
 * (tp_idx, dp_idx, stage) to (tp_idx, dp_idx, stage + peer); WORLD: all.
 *
 * Invariants of every TrcWorkload these functions return: ops[i].deps are
 * indices below i (no cycles), ids are unique and positive, a compute op
 * has group NONE (COMM with communicators), bytes 0 and compute_ps > 0; a
 * collective has a group, bytes > 0 and compute_ps 0; stage < pp; peer is
 * +1 or -1 exactly on SendRecv over PP (and then stage + peer is a stage),
 * 0 elsewhere; ep divides dp.
 *
 * A workload read from a trace names its communicators instead
 * (TrcWorkload.comms, group COMM): a collective runs once over its
 * communicator's ranks; a compute op runs on each of its communicator's
 * ranks (a communicator of one rank: that rank only); a SendRecv runs over
 * a communicator of two ranks, from the first to the second.  Stage is -1
 * and peer 0 on every op of such a workload. */
#ifndef TRACES_WORKLOAD_H
#define TRACES_WORKLOAD_H

#include <glib.h>

#include "collectives/nccl/nccl.h"
#include "sim/time.h"

typedef enum {
  TRC_GROUP_NONE,
  TRC_GROUP_TP,
  TRC_GROUP_DP,
  TRC_GROUP_PP,
  TRC_GROUP_EP,
  TRC_GROUP_WORLD,
  TRC_GROUP_EDP,  /* expert data parallel: dp / ep ranks (SimAI's DP_EP) */
  TRC_GROUP_COMM, /* an explicit communicator (TrcWorkload.comms[op.comm]) */
  TRC_N_GROUPS
} TrcGroup;

/* "tp", "dp", "pp", "ep", "world", "edp", "comm"; "" for NONE. */
const char *trc_group_name(TrcGroup g);

/* The collective's name in the CSV: "allreduce", "sendrecv", ... */
const char *trc_coll_name(NcclColl c);

typedef struct {
  guint32 id;       /* as in the file (unique, positive) */
  char *name;       /* "mb0.l3.fwd.attn_allreduce" */
  gboolean compute; /* TRUE: compute_ps of work on each rank that runs it */
  NcclColl coll;    /* a collective (NCCL_COLL_SENDRECV for PP send/recv) */
  TrcGroup group;   /* the process group it runs over (NONE for compute) */
  guint64 bytes;    /* nccl-tests convention (collectives/nccl/nccl.h) */
  SimTime compute_ps;
  gint32 stage;  /* -1: every pipeline stage runs it; else the stage */
  gint32 peer;   /* SendRecv on PP: +1 next stage, -1 previous; else 0 */
  guint32 comm;  /* group COMM: the index of its communicator in w->comms */
  SimTime measured_ps; /* a collective read from a trace: how long it took
                          there (from its last rank's start); 0: unknown.
                          Not in the workload CSV. */
  guint32 *deps; /* indices into TrcWorkload.ops, all below this op's */
  guint32 n_deps;
  guint32 line; /* source line (0 when generated) */
} TrcOp;

/* An explicit communicator: job ranks in the communicator's rank order. */
typedef struct {
  char *name; /* letters, digits, '_', '-', '.'; unique in the workload */
  guint32 *ranks;
  guint32 n;
} TrcComm;

typedef struct {
  char *source;           /* the file name, or "generated" */
  guint32 tp, pp, dp, ep; /* ranks = tp * pp * dp; ep divides dp */
  TrcOp *ops;
  guint32 n_ops;
  /* Explicit ranks and communicators (a workload read from a trace): when
   * n_comms > 0, tp = pp = ep = 1, dp is the job's ranks and every op runs
   * over one of these (group COMM), none over tp/dp/pp/ep/edp/world. */
  TrcComm *comms;
  guint32 n_comms;
  /* Ranks per server: 0, each server's GPUs in turn; else rank r on GPU
   * r % per_server of the job's server r / per_server (a trace of jobs
   * that use some of each server's GPUs).  Divides the ranks. */
  guint32 per_server;
  /* A step read from a trace: how long it took there; 0: unknown.  Not in
   * the workload CSV. */
  SimTime measured_step_ps;
} TrcWorkload;

/* The longest compute op and the largest collective a workload holds: a
 * quarter of the run's horizon (sim/time.h), so that ops in a chain reach
 * the horizon as a clean error, not a wrapped time; and a size whose
 * collective at 1 GB/s still ends inside it. */
#define TRC_MAX_COMPUTE_PS (G_GUINT64_CONSTANT(1) << 60)
#define TRC_MAX_BYTES (G_GUINT64_CONSTANT(1) << 50)

/* Largest tp, pp, dp or ep, and largest tp x pp x dp, accepted. */
#define TRC_MAX_DIM (1u << 20)
#define TRC_MAX_RANKS (1u << 24)

/* Reads a workload CSV (docs/workload.md).  Every error names the file,
 * the line, the column and what was expected there. */
TrcWorkload *trc_workload_load_csv(const char *path, GError **error);
TrcWorkload *trc_workload_load_csv_data(const char *data, gsize len,
                                        const char *name, GError **error);

/* The workload CSV text of w: trc_workload_load_csv_data() of it gives w back
 * exactly, every field but `source` and `line`. */
char *trc_workload_to_csv(const TrcWorkload *w);

void trc_workload_free(TrcWorkload *w);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TrcWorkload, trc_workload_free)

/* The group an op runs over as a user reads it: its communicator's name
 * for group COMM, else trc_group_name(op->group). */
const char *trc_op_group_label(const TrcWorkload *w, const TrcOp *op);

/* Longest communicator name accepted (a trace's are short: "c12"). */
#define TRC_MAX_COMM_NAME 64

/* Checks the invariants above (for workloads built in code); the error
 * names w->source and the op. */
gboolean trc_workload_validate(const TrcWorkload *w, GError **error);

/* --- ASTRA-sim 1.0 / SimAI text workloads (traces/workload_astra.c) --- */

typedef struct {
  guint32 tp;         /* model-parallel ranks; 0: from the file's
                         model_parallel_NPU_group (HYBRID_TRANSFORMER*), 1
                         for DATA, all ranks for MODEL */
  const char *tp_given_as; /* how the user gave tp, for messages
                              ("--astra-tp"); may be NULL */
  guint32 gpus;       /* ranks of the job; 0: from the file's all_gpus */
  const char *gpus_given_as; /* how the user gave gpus ("--astra-gpus");
                                may be NULL */
  double ns_per_tick; /* length of one tick of the compute columns (> 0);
                         ASTRA-sim and SimAI run 1 ns ticks (CLOCK_PERIOD
                         1, system/Common.hh) */
} TrcAstraOptions;

TrcWorkload *trc_workload_load_astra_opts(const char *path,
                                          const TrcAstraOptions *opt,
                                          GError **error);
/* The same of the file's text (len bytes, path names it in messages). */
TrcWorkload *trc_workload_load_astra_data(const char *text, gsize len,
                                          const char *path,
                                          const TrcAstraOptions *opt,
                                          GError **error);
/* The same with gpus from the file and ASTRA-sim's 1 ns tick. */
TrcWorkload *trc_workload_load_astra(const char *path, guint32 tp_override_or_0,
                                     GError **error);

/* Reads n files whole (sim_input_read: bounded, interruptible) into
 * texts[] and lens[] (arrays of n); on failure, what was read is freed
 * and texts[] holds NULLs.  trc_texts_free() frees the texts. */
gboolean trc_texts_read(const char *const *paths, guint n, char **texts,
                        gsize *lens, GError **error);
void trc_texts_free(char **texts, guint n);

/* Sets a TRC_ERROR_PARSE "NAME: message" and returns FALSE: the trace
 * readers' errors about a whole file. */
gboolean trc_file_error(GError **error, const char *name, const char *fmt, ...)
    G_GNUC_PRINTF(3, 4);

/* A min-heap of ids by key (then by id) in a GArray of TrcHeapItem, for
 * the trace readers' ops in their measured order. */
typedef struct {
  double key;
  guint32 id;
} TrcHeapItem;

void trc_heap_push(GArray *heap, double key, guint32 id);
guint32 trc_heap_pop(GArray *heap); /* heap not empty */

/* --- NCCL logs (traces/workload_nccllog.c) ---------------------------- */

/* What ran between two calls of a rank, which the log does not say. */
typedef struct {
  SimTime gap_ps;      /* this much compute between them; 0: none */
  gboolean timestamps; /* the time between the two lines' timestamps */
} TrcNcclLogOptions;

/* The calls of an NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL log (one file,
 * or one per process) as a workload with communicators; what it inferred
 * or left out is appended to notes (may be NULL), a line each. */
TrcWorkload *trc_workload_load_nccl_log(const char *const *paths, guint n_files,
                                        const TrcNcclLogOptions *o,
                                        GString *notes, GError **error);
TrcWorkload *trc_workload_load_nccl_log_data(
    const char *const *texts, const gsize *lens, const char *const *names,
    guint n_files, const TrcNcclLogOptions *o, GString *notes, GError **error);

/* --- PyTorch profiler traces (traces/workload_kineto.c) --------------- */

/* One profiler step of a job from its Kineto traces (Chrome-trace JSON,
 * gzip or not), one file per rank: step N (ProfilerStep#N), or for step
 * -1 the last every file holds.  Compute as measured, NCCL kernels as
 * collectives over their process groups; what it inferred, kept as
 * measured or measured for the step is appended to notes (may be NULL). */
TrcWorkload *trc_workload_load_kineto(const char *const *paths, guint n_files,
                                      gint64 step, GString *notes,
                                      GError **error);
TrcWorkload *trc_workload_load_kineto_data(const char *const *texts,
                                           const gsize *lens,
                                           const char *const *names,
                                           guint n_files, gint64 step,
                                           GString *notes, GError **error);

/* --- Chakra execution traces (traces/workload_chakra.c) --------------- */

/* A job's Chakra execution traces (.et, et_def.proto 0.0.4), one file per
 * rank (NAME.RANK.et, else in rank order): compute at its duration,
 * collectives over their process groups, sends matched to receives; what
 * it inferred or kept as measured is appended to notes (may be NULL). */
TrcWorkload *trc_workload_load_chakra(const char *const *paths, guint n_files,
                                      GString *notes, GError **error);
TrcWorkload *trc_workload_load_chakra_data(const char *const *texts,
                                           const gsize *lens,
                                           const char *const *names,
                                           guint n_files, GString *notes,
                                           GError **error);

/* --- LLM layouts (traces/workload_llm.c) ------------------------------ */

typedef enum { TRC_SCHED_1F1B, TRC_SCHED_GPIPE } TrcSchedule;
typedef enum { TRC_MLP_GELU, TRC_MLP_SWIGLU } TrcMlp;

/* One training step of a decoder-only transformer (docs/workload.md lists
 * every key, its unit and formula). */
typedef struct {
  guint64 params; /* total parameters; 0: derived from the shapes */
  guint32 layers, hidden, ffn, heads; /* heads 0: not checked */
  TrcMlp mlp; /* 2 (GELU) or 3 (SwiGLU) weight matrices */
  guint32 vocab;
  guint32 seq;          /* tokens per sequence */
  guint32 mbs;          /* micro-batch size, sequences */
  guint32 microbatches; /* per step, per DP rank */
  guint32 tp, pp, dp, ep;
  guint32 experts, top_k; /* experts 0: dense */
  guint32 dtype_bytes;    /* activations, gradients and parameters */
  double tflops;          /* peak dense TFLOP/s per GPU */
  double mfu;             /* achieved fraction of it, (0, 1] */
  double optimizer_us;    /* the optimizer step per rank */
  TrcSchedule schedule;
  gboolean sp;          /* sequence parallelism (AllGather/ReduceScatter) */
  guint32 zero;         /* 0: gradient AllReduce; 1-3: RS + param AG */
  guint64 bucket_bytes; /* DP gradient bucket; 0: one bucket per stage */
} TrcLlmParams;

/* Parses "key=value,key=value,...".  A missing required key, an unknown
 * key (the error lists the valid ones) or a nonsensical value fails. */
gboolean trc_llm_parse(const char *spec, TrcLlmParams *out, GError **error);
TrcWorkload *trc_llm_generate(const TrcLlmParams *p, GError **error);
/* The most ops trc_llm_generate makes of p: what it estimates, before
 * allocating, against the memory allowed (sim/memory.h). */
guint64 trc_llm_ops_bound(const TrcLlmParams *p);

#endif /* TRACES_WORKLOAD_H */
