/* Workloads read from what real jobs leave behind (traces/workload.h):
 * NCCL logs (traces/workload_nccllog.c) and the workload CSV's form with
 * communicators that carries them.  A log's communicators, ranks, sizes
 * and order; the same job from one log and from one file per process;
 * gaps given and from timestamps; the log's variants (NCCL 2.4 and 2.28
 * lines, launcher prefixes); the bad-input corpus; and a workload with
 * communicators replayed exactly as the same workload in tp/dp groups. */
#include <string.h>

#include "tests/bad_corpus.h"
#include "tests/suites.h"
#include "traces/replay.h"
#include "traces/workload.h"

#define LOGDIR IFSIM_TEST_DATA_DIR "/nccllog/"
#define SYSDIR IFSIM_TEST_DATA_DIR "/systems/"

static TrcWorkload *load_logs(const char *const *paths, guint n,
                              const TrcNcclLogOptions *o, GString *notes)
{
  g_autoptr(GError) error = NULL;
  TrcWorkload *w = trc_workload_load_nccl_log(paths, n, o, notes, &error);

  ck_assert_msg(w != NULL, "%s", error ? error->message : "");
  ck_assert(trc_workload_validate(w, NULL));
  return w;
}

static const TrcComm *comm_of(const TrcWorkload *w, const TrcOp *op)
{
  ck_assert_int_eq(op->group, TRC_GROUP_COMM);
  ck_assert_uint_lt(op->comm, w->n_comms);
  return &w->comms[op->comm];
}

static gboolean comm_is(const TrcComm *c, guint32 n, const guint32 *ranks)
{
  return c->n == n && memcmp(c->ranks, ranks, n * sizeof(guint32)) == 0;
}

/* The step of w alone on the system's first servers. */
static SimTime step_of(const char *system, const TrcWorkload *w)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TopoSystem) sys = topo_system_load(system, NULL, &error);
  guint32 per, n;
  g_autofree guint32 *servers = NULL;
  TrcReplayResult r;
  SimTime step;

  ck_assert_msg(sys != NULL, "%s", error ? error->message : "");
  per = trc_ranks_per_server(w, topo_system_gpus_per_server(sys));
  n = trc_servers_needed(w->tp * w->pp * w->dp, per);
  servers = g_new(guint32, n);
  for (guint32 i = 0; i < n; i++)
    servers[i] = i;
  {
    TrcReplayJob job = {
        .name = "j", .w = w, .servers = servers, .n_servers = n};
    TrcReplayOptions o = {.exec = NCCL_EXEC_FLOW};
    g_autoptr(TrcReplay) run = trc_replay_run(sys, &job, 1, &o, &r, &error);

    ck_assert_msg(run != NULL, "%s", error ? error->message : "");
    step = r.step_ps;
    trc_replay_result_clear(&r);
  }
  return step;
}

/* Two hosts of two GPUs, NCCL 2.28's lines: a world communicator by
 * commId, TP and DP split from it, two steps of TP AllReduce and
 * AllGather, a grouped exchange with the other host, DP ReduceScatter and
 * AllReduce, an AllToAll of grouped Send/Recv, a Broadcast. */
START_TEST(test_nccllog_two_hosts)
{
  const char *path[] = {LOGDIR "tp2dp2_2node_nccl2.28.log"};
  TrcNcclLogOptions o = {0};
  g_autoptr(GString) notes = g_string_new(NULL);
  g_autoptr(TrcWorkload) w = load_logs(path, 1, &o, notes);
  static const guint32 tp0[] = {0, 1}, dp1[] = {1, 3}, world[] = {0, 1, 2, 3};
  static const guint32 p02[] = {0, 2};
  guint n_tp_ar = 0, n_dp_ar = 0, n_a2a = 0, n_send = 0, n_bcast = 0;

  ck_assert_uint_eq(w->dp, 4);
  ck_assert_uint_eq(w->tp * w->pp * w->ep, 1);
  ck_assert_uint_eq(w->per_server, 2);
  /* 2 steps x (2 TP AllReduce + 2 TP AllGather + 4 sends + 2 DP
   * ReduceScatter + 2 DP AllReduce + AllToAll + Broadcast) */
  ck_assert_uint_eq(w->n_ops, 2 * 14);
  for (guint32 i = 0; i < w->n_ops; i++) {
    const TrcOp *op = &w->ops[i];
    const TrcComm *c = comm_of(w, op);

    ck_assert(!op->compute);
    if (op->coll == NCCL_COLL_ALLREDUCE && c->n == 2 && c->ranks[1] == 1) {
      ck_assert(comm_is(c, 2, tp0));
      ck_assert_uint_eq(op->bytes, 4194304 * 2); /* bf16 */
      n_tp_ar++;
    }
    if (op->coll == NCCL_COLL_ALLREDUCE && comm_is(c, 2, dp1)) {
      ck_assert_uint_eq(op->bytes, 16777216 * 4); /* fp32 */
      n_dp_ar++;
    }
    if (op->coll == NCCL_COLL_ALLGATHER) /* sendcount x 2 ranks, bf16 */
      ck_assert_uint_eq(op->bytes, 1048576 * 2 * 2);
    if (op->coll == NCCL_COLL_REDUCESCATTER) /* recvcount x 2, fp32 */
      ck_assert_uint_eq(op->bytes, 8388608 * 2 * 4);
    if (op->coll == NCCL_COLL_ALLTOALL) {
      /* 4 ranks each sent 256 Ki bf16 to each rank (itself too) */
      ck_assert(comm_is(c, 4, world));
      ck_assert_uint_eq(op->bytes, 262144 * 2 * 4);
      ck_assert_uint_eq(op->n_deps, 2); /* both DP AllReduces */
      n_a2a++;
    }
    if (op->coll == NCCL_COLL_SENDRECV) {
      ck_assert_uint_eq(c->n, 2);
      ck_assert_uint_eq(c->ranks[1], c->ranks[0] ^ 2);
      ck_assert_uint_eq(op->bytes, 1048576 * 2);
      if (comm_is(c, 2, p02))
        n_send++;
    }
    if (op->coll == NCCL_COLL_BROADCAST) {
      ck_assert(comm_is(c, 4, world));
      n_bcast++;
    }
    for (guint32 d = 0; d < op->n_deps; d++)
      ck_assert_uint_lt(op->deps[d], i);
  }
  ck_assert_uint_eq(n_tp_ar, 2);
  ck_assert_uint_eq(n_dp_ar, 2);
  ck_assert_uint_eq(n_a2a, 2);
  ck_assert_uint_eq(n_send, 2);
  ck_assert_uint_eq(n_bcast, 2);
  ck_assert_ptr_nonnull(strstr(notes->str, "8 calls of count 0 left out"));
  ck_assert_ptr_nonnull(strstr(notes->str, "16 Send/Recv to the rank itself"));
  ck_assert_ptr_nonnull(strstr(notes->str, "back to back"));
  /* the first op of every rank waits for nothing; each later one for its
   * ranks' earlier ops: a rank's calls run in the log's order */
  ck_assert_uint_eq(w->ops[0].n_deps, 0);
  {
    /* the CSV form round-trips */
    g_autofree char *csv = trc_workload_to_csv(w);
    g_autoptr(GError) error = NULL;
    g_autoptr(TrcWorkload) back =
        trc_workload_load_csv_data(csv, strlen(csv), "back.csv", &error);
    g_autofree char *again = NULL;

    ck_assert_msg(back != NULL, "%s", error ? error->message : "");
    again = trc_workload_to_csv(back);
    ck_assert_str_eq(csv, again);
    ck_assert_uint_eq(back->per_server, 2);
  }
}
END_TEST

/* The same job's log written one file per process (NCCL_DEBUG_FILE),
 * without the launcher's prefix or timestamps: the same step. */
START_TEST(test_nccllog_per_process)
{
  const char *one[] = {LOGDIR "tp2dp2_2node_nccl2.28.log"};
  const char *four[] = {LOGDIR "perproc_nccl.node-b.4103.log",
                        LOGDIR "perproc_nccl.node-a.4100.log",
                        LOGDIR "perproc_nccl.node-b.4102.log",
                        LOGDIR "perproc_nccl.node-a.4101.log"};
  TrcNcclLogOptions o = {0};
  g_autoptr(TrcWorkload) a = load_logs(one, 1, &o, NULL);
  g_autoptr(TrcWorkload) b = load_logs(four, 4, &o, NULL);
  SimTime sa = step_of(SYSDIR "dgx-h100-ndr-2.ini", a);
  SimTime sb = step_of(SYSDIR "dgx-h100-ndr-2.ini", b);

  ck_assert_uint_eq(a->n_ops, b->n_ops);
  ck_assert_uint_eq(a->n_comms, b->n_comms);
  ck_assert_uint_gt(sa, 0);
  ck_assert_uint_eq(sa, sb);
}
END_TEST

/* Gaps: a given one adds that compute between every two consecutive calls
 * of a rank; timestamps give the time between the two lines (here 800 us
 * between a rank's first AllReduce and its AllGather). */
START_TEST(test_nccllog_gaps)
{
  const char *path[] = {LOGDIR "tp2dp2_2node_nccl2.28.log"};
  TrcNcclLogOptions none = {0}, given = {.gap_ps = SIM_US(100)},
                    stamps = {.timestamps = TRUE};
  g_autoptr(TrcWorkload) w0 = load_logs(path, 1, &none, NULL);
  g_autoptr(TrcWorkload) w1 = load_logs(path, 1, &given, NULL);
  g_autoptr(TrcWorkload) w2 = load_logs(path, 1, &stamps, NULL);
  guint gaps = 0;
  SimTime s0 = step_of(SYSDIR "dgx-h100-ndr-2.ini", w0);
  SimTime s1 = step_of(SYSDIR "dgx-h100-ndr-2.ini", w1);

  for (guint32 i = 0; i < w1->n_ops; i++) {
    if (!w1->ops[i].compute)
      continue;
    ck_assert_uint_eq(w1->ops[i].compute_ps, SIM_US(100));
    ck_assert_uint_eq(comm_of(w1, &w1->ops[i])->n, 1);
    gaps++;
  }
  /* each rank's 2 x 7 events (two steps of 7 calls or groups), 13 gaps */
  ck_assert_uint_eq(gaps, 4 * 13);
  ck_assert_uint_eq(w1->n_ops, w0->n_ops + gaps);
  /* every rank's chain of calls is 13 gaps longer, and no call of a rank
   * overlaps another of its own */
  ck_assert_uint_ge(s1, s0 + 13 * SIM_US(100));
  {
    gboolean found = FALSE;

    for (guint32 i = 0; i < w2->n_ops && !found; i++) {
      if (w2->ops[i].compute && g_str_equal(w2->ops[i].name, "gap.r0.0")) {
        ck_assert_uint_eq(w2->ops[i].compute_ps, SIM_US(800));
        found = TRUE;
      }
    }
    ck_assert(found);
  }
  {
    /* the per-process files have no timestamps */
    const char *bare[] = {LOGDIR "perproc_nccl.node-a.4100.log"};
    g_autoptr(GError) error = NULL;
    g_autoptr(TrcWorkload) w =
        trc_workload_load_nccl_log(bare, 1, &stamps, NULL, &error);

    ck_assert_ptr_null(w);
    ck_assert_ptr_nonnull(strstr(error->message, "no timestamp"));
    ck_assert_ptr_nonnull(strstr(error->message, "perproc_nccl.node-a.4100"));
  }
}
END_TEST

/* NCCL 2.4's lines (TensorFlow, one process driving two GPUs), from
 * NVIDIA/nccl#203: ranks from "comm P rank R nranks N cudaDev D", sizes
 * from fp32 counts. */
START_TEST(test_nccllog_nccl24)
{
  const char *path[] = {LOGDIR "tensorflow_2gpu_nccl2.4.log"};
  TrcNcclLogOptions o = {0};
  g_autoptr(TrcWorkload) w = load_logs(path, 1, &o, NULL);
  static const guint64 bytes[] = {64 * 4, 237184 * 4, 386560 * 4, 8192 * 4};

  ck_assert_uint_eq(w->dp, 2);
  ck_assert_uint_eq(w->n_comms, 1);
  ck_assert_uint_eq(w->n_ops, 4);
  for (guint32 i = 0; i < 4; i++) {
    ck_assert_int_eq(w->ops[i].coll, NCCL_COLL_ALLREDUCE);
    ck_assert_uint_eq(w->ops[i].bytes, bytes[i]);
  }
  ck_assert_uint_gt(step_of(SYSDIR "dgx-a100.ini", w), 0);
}
END_TEST

/* The excerpts in shared/real-traces are parts of logs: each is refused
 * with what is missing, not read as a smaller job. */
START_TEST(test_nccllog_excerpts)
{
  static const struct {
    const char *line, *expect;
  } cases[] = {
      {"hostname:4173:4655 [3] NCCL INFO AllReduce: opCount 706 sendbuff "
       "0x7fbe13a00000 recvbuff 0x7fbe13a00000 count 1 datatype 1 op 0 root "
       "0 comm 0xe574d50 [nranks=8] stream 0xe578da0\n",
       "has 8 ranks; the log holds 1 of them"},
      {"[rank0]:costa-671b-5-worker-1:382:675 [0] NCCL INFO comm 0x43be0680 "
       "rank 0 nRanks 4 nNodes 1 localRanks 4 localRank 0 MNNVL 0\n",
       "no NCCL call lines"},
  };

  for (gsize k = 0; k < G_N_ELEMENTS(cases); k++) {
    const char *texts[] = {cases[k].line};
    gsize lens[] = {strlen(cases[k].line)};
    const char *names[] = {"excerpt.log"};
    TrcNcclLogOptions o = {0};
    g_autoptr(GError) error = NULL;
    g_autoptr(TrcWorkload) w = trc_workload_load_nccl_log_data(
        texts, lens, names, 1, &o, NULL, &error);

    ck_assert_ptr_null(w);
    ck_assert_msg(strstr(error->message, cases[k].expect) != NULL, "%s",
                  error->message);
  }
}
END_TEST

/* Three ranks exchanging unequal sizes with each other in one group each
 * (an uneven all_to_all): one AllToAll of the same total, said in a
 * note; a pair's exchange alone: a one-way SendRecv each way. */
START_TEST(test_nccllog_uneven_alltoall)
{
  GString *t = g_string_new(NULL);
  /* rank r sends (1 + r + q) Ki floats to q */
  for (guint32 r = 0; r < 3; r++)
    g_string_append_printf(t,
                           "h:%u:%u [%u] NCCL INFO ncclCommInitRank comm "
                           "0x%x0 rank %u nranks 3 cudaDev %u nvmlDev %u "
                           "busId 1000 commId 0xabc - Init COMPLETE\n",
                           r + 1, r + 1, r, r + 1, r, r, r);
  for (guint32 r = 0; r < 3; r++)
    for (guint32 q = 0; q < 3; q++) {
      if (q == r)
        continue;
      g_string_append_printf(
          t,
          "h:%u:%u [%u] NCCL INFO Send: opCount 1 sendbuff 0x1 recvbuff "
          "(nil) count %u datatype 7 op 0 root %u comm 0x%x0 [nranks=3] "
          "stream 0x9\n"
          "h:%u:%u [%u] NCCL INFO Recv: opCount 1 sendbuff (nil) recvbuff "
          "0x2 count %u datatype 7 op 0 root %u comm 0x%x0 [nranks=3] "
          "stream 0x9\n",
          r + 1, r + 1, r, 1024 * (1 + r + q), q, r + 1, r + 1, r + 1, r,
          1024 * (1 + q + r), q, r + 1);
    }
  /* then ranks 0 and 1 alone: 0 sends to 1, 1 sends to 0 */
  g_string_append(t, "h:1:1 [0] NCCL INFO Send: opCount 2 sendbuff 0x1 "
                     "recvbuff (nil) count 4096 datatype 7 op 0 root 1 comm "
                     "0x10 [nranks=3] stream 0x9\n"
                     "h:2:2 [1] NCCL INFO Recv: opCount 2 sendbuff (nil) "
                     "recvbuff 0x2 count 4096 datatype 7 op 0 root 0 comm "
                     "0x20 [nranks=3] stream 0x9\n");
  {
    const char *texts[] = {t->str};
    gsize lens[] = {t->len};
    const char *names[] = {"uneven.log"};
    TrcNcclLogOptions o = {0};
    g_autoptr(GError) error = NULL;
    g_autoptr(GString) notes = g_string_new(NULL);
    g_autoptr(TrcWorkload) w = trc_workload_load_nccl_log_data(
        texts, lens, names, 1, &o, notes, &error);
    guint64 total = 0;

    ck_assert_msg(w != NULL, "%s", error ? error->message : "");
    for (guint32 r = 0; r < 3; r++)
      for (guint32 q = 0; q < 3; q++)
        if (q != r)
          total += 4096 * (1 + r + q);
    ck_assert_uint_eq(w->n_ops, 2);
    ck_assert_int_eq(w->ops[0].coll, NCCL_COLL_ALLTOALL);
    ck_assert_uint_eq(comm_of(w, &w->ops[0])->n, 3);
    ck_assert_uint_eq(w->ops[0].bytes, total / 2); /* per rank: total/(n-1) */
    ck_assert_int_eq(w->ops[1].coll, NCCL_COLL_SENDRECV);
    ck_assert_uint_eq(w->ops[1].bytes, 4096 * 4);
    ck_assert_uint_eq(w->ops[1].n_deps, 1);
    ck_assert_uint_eq(w->ops[1].deps[0], 0);
    ck_assert_ptr_nonnull(strstr(notes->str, "1 all-to-all groups of unequal"));
  }
  g_string_free(t, TRUE);
}
END_TEST

#define KINDIR IFSIM_TEST_DATA_DIR "/kineto/"

static TrcWorkload *load_kineto(const char *const *paths, guint n, gint64 step,
                                GString *notes)
{
  g_autoptr(GError) error = NULL;
  TrcWorkload *w = trc_workload_load_kineto(paths, n, step, notes, &error);

  ck_assert_msg(w != NULL, "%s", error ? error->message : "");
  ck_assert(trc_workload_validate(w, NULL));
  return w;
}

/* The step of w on a system's first server(s), its collectives on the
 * fabric or at their measured times. */
static SimTime kineto_step(const char *system, const TrcWorkload *w,
                           gboolean as_measured, TrcReplayResult *out)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TopoSystem) sys = topo_system_load(system, NULL, &error);
  guint32 servers[1] = {0};
  TrcReplayJob job = {.name = "k", .w = w, .servers = servers, .n_servers = 1};
  TrcReplayOptions o = {.exec = NCCL_EXEC_FLOW, .as_measured = as_measured};
  g_autoptr(TrcReplay) run = NULL;

  ck_assert_msg(sys != NULL, "%s", error ? error->message : "");
  run = trc_replay_run(sys, &job, 1, &o, out, &error);
  ck_assert_msg(run != NULL, "%s", error ? error->message : "");
  return out->step_ps;
}

/* A real PyTorch DDP trace (HTA's test data: rank 0 of 2 on A100, NCCL
 * 2.17), given as both ranks: its collectives at their measured times
 * give back the measured step exactly; on a DGX A100 they are faster. */
START_TEST(test_kineto_ddp)
{
  const char *paths[] = {KINDIR "ddp2_rank1_step6.json.gz",
                         KINDIR "ddp2_rank0_step6.json.gz"};
  g_autoptr(GString) notes = g_string_new(NULL);
  g_autoptr(TrcWorkload) w = load_kineto(paths, 2, -1, notes);
  TrcReplayResult r;
  guint n_coll = 0;

  ck_assert_uint_eq(w->dp, 2);
  ck_assert_ptr_nonnull(strstr(notes->str, "ProfilerStep#6 of 2 ranks"));
  for (guint32 i = 0; i < w->n_ops; i++) {
    if (w->ops[i].compute)
      continue;
    ck_assert_uint_eq(comm_of(w, &w->ops[i])->n, 2);
    ck_assert_uint_gt(w->ops[i].measured_ps, 0);
    n_coll += w->ops[i].coll == NCCL_COLL_ALLREDUCE;
  }
  /* the step's DDP buckets: the AllReduce kernels launched in step 6 */
  ck_assert_uint_ge(n_coll, 5);
  ck_assert_uint_eq(kineto_step(SYSDIR "dgx-a100.ini", w, TRUE, &r),
                    w->measured_step_ps);
  trc_replay_result_clear(&r);
  ck_assert_uint_lt(kineto_step(SYSDIR "dgx-a100.ini", w, FALSE, &r),
                    w->measured_step_ps);
  trc_replay_result_clear(&r);
  {
    /* the step asked for; one that is not there */
    g_autoptr(TrcWorkload) w6 = load_kineto(paths, 2, 6, NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(TrcWorkload) none =
        trc_workload_load_kineto(paths, 2, 9, NULL, &error);

    ck_assert_uint_eq(w6->n_ops, w->n_ops);
    ck_assert_ptr_null(none);
    ck_assert_ptr_nonnull(strstr(error->message, "no ProfilerStep#9 event"));
  }
}
END_TEST

/* Two ranks, two streams: compute, an AllReduce the compute stream waits
 * for, compute again.  The wait is read from the timing: the replayed step
 * is the compute, the launch gaps as measured, and ifsim's AllReduce. */
static char *tiny_trace(guint32 rank, double k2_start)
{
  return g_strdup_printf(
      "{\"distributedInfo\": {\"rank\": %u, \"world_size\": 2},"
      " \"traceEvents\": ["
      "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": "
      "\"ProfilerStep#1\", \"pid\": 1, \"tid\": 1, \"ts\": 1000, \"dur\": 400},"
      "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
      "\"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 1001, \"dur\": 2,"
      " \"args\": {\"correlation\": 11}},"
      "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
      "\"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 1004, \"dur\": 2,"
      " \"args\": {\"correlation\": 12}},"
      "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
      "\"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 1007, \"dur\": 2,"
      " \"args\": {\"correlation\": 13}},"
      "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"sm80_gemm\", \"pid\": "
      "0, \"tid\": 7, \"ts\": 1000, \"dur\": 100, \"args\": {\"stream\": 7, "
      "\"correlation\": 11}},"
      "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": "
      "\"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage)\","
      " \"pid\": 0, \"tid\": 20, \"ts\": 1102, \"dur\": 48, \"args\": "
      "{\"stream\": 20, \"correlation\": 12, \"Collective name\": "
      "\"allreduce\", \"In msg nelems\": 8388608, \"Out msg nelems\": "
      "8388608, \"Group size\": 2, \"dtype\": \"BFloat16\", \"Process Group "
      "Ranks\": \"[0, 1]\"}},"
      "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"sm80_gemm\", \"pid\": "
      "0, \"tid\": 7, \"ts\": %.3f, \"dur\": 100, \"args\": {\"stream\": 7, "
      "\"correlation\": 13}},"
      "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"late\", \"pid\": 0, "
      "\"tid\": 7, \"ts\": 1390, \"dur\": 5, \"args\": {\"stream\": 7, "
      "\"correlation\": 99}}]}",
      rank, k2_start);
}

/* The two ranks' tiny traces, read. */
static TrcWorkload *tiny_pair(double k2_start)
{
  g_autofree char *t0 = tiny_trace(0, k2_start);
  g_autofree char *t1 = tiny_trace(1, k2_start);
  const char *texts[] = {t0, t1};
  gsize lens[] = {strlen(t0), strlen(t1)};
  const char *names[] = {"r0.json", "r1.json"};
  g_autoptr(GError) error = NULL;
  TrcWorkload *w =
      trc_workload_load_kineto_data(texts, lens, names, 2, -1, NULL, &error);

  ck_assert_msg(w != NULL, "%s", error ? error->message : "");
  return w;
}

START_TEST(test_kineto_waits)
{
  g_autoptr(TrcWorkload) w = tiny_pair(1153);
  TrcReplayResult r;
  SimTime step, ar;
  guint32 coll = 0;

  /* per rank: compute, the AllReduce's 2 us launch gap; the AllReduce;
   * per rank: compute after it (the kernel launched outside the step,
   * correlation 99, is not read) */
  ck_assert_uint_eq(w->n_ops, 2 + 2 + 1 + 2);
  for (guint32 i = 0; i < w->n_ops; i++)
    if (!w->ops[i].compute)
      coll = i;
  ck_assert_uint_eq(w->ops[coll].bytes, 8388608 * 2);
  ck_assert_uint_eq(w->ops[coll].measured_ps, SIM_US(48));
  ck_assert_uint_eq(w->measured_step_ps, SIM_US(253));
  ck_assert_uint_eq(kineto_step(SYSDIR "dgx-h100.ini", w, TRUE, &r),
                    SIM_US(253));
  trc_replay_result_clear(&r);
  step = kineto_step(SYSDIR "dgx-h100.ini", w, FALSE, &r);
  ar = r.ops[coll].end_ps - r.ops[coll].start_ps;
  trc_replay_result_clear(&r);
  /* 100 us, a 2 us launch gap, the AllReduce, then the second kernel's 3
   * us after the AllReduce ended and its 100 us */
  ck_assert_uint_eq(step, SIM_US(205) + ar);
  ck_assert_uint_ne(ar, SIM_US(48)); /* ifsim's, not the trace's */
}
END_TEST

/* A second kernel that starts long after the AllReduce ended did not wait
 * for it (idle beyond 10 us): the compute stream's time stays as measured
 * whatever the AllReduce takes. */
START_TEST(test_kineto_no_wait)
{
  g_autoptr(TrcWorkload) w = tiny_pair(1200);
  TrcReplayResult r;

  /* the AllReduce still waits for the first kernel (so the second one
   * starts a new compute op), but the second kernel waits for nothing
   * on the other stream */
  ck_assert_uint_eq(w->n_ops, 2 + 2 + 1 + 2);
  ck_assert_uint_eq(kineto_step(SYSDIR "dgx-h100.ini", w, FALSE, &r),
                    SIM_US(300));
  trc_replay_result_clear(&r);
}
END_TEST

/* Traces that disagree: a rank missing, a rank twice, two world sizes,
 * unequal collectives. */
START_TEST(test_kineto_ranks)
{
  g_autofree char *t0 = tiny_trace(0, 1153);
  g_autofree char *t1 = tiny_trace(1, 1153);
  g_autofree char *big = NULL;
  g_autofree char *w3 = NULL;
  static const struct {
    guint which;
    const char *expect;
  } cases[] = {
      {0, "world_size 2, and no trace of rank 1"},
      {1, "rank 0 again (also a.json)"},
      {2, "b.json: world_size 3, a.json's is 2"},
      {3, "the ranks disagree"},
  };

  big = g_strdup(t1);
  memcpy(strstr(big, "8388608, \"Out"), "8388609", 7);
  w3 = g_strdup(t1);
  memcpy(strstr(w3, "\"world_size\": 2"), "\"world_size\": 3", 15);
  for (gsize k = 0; k < G_N_ELEMENTS(cases); k++) {
    const char *texts[2] = {t0, cases[k].which == 1   ? t0
                                : cases[k].which == 2 ? w3
                                                      : big};
    gsize lens[2] = {strlen(texts[0]), strlen(texts[1])};
    const char *names[] = {"a.json", "b.json"};
    g_autoptr(GError) error = NULL;
    g_autoptr(TrcWorkload) w = trc_workload_load_kineto_data(
        texts, lens, names, cases[k].which == 0 ? 1 : 2, -1, NULL, &error);

    ck_assert_ptr_null(w);
    ck_assert_msg(strstr(error->message, cases[k].expect) != NULL, "%s",
                  error->message);
  }
}
END_TEST

static gboolean load_kineto_one(const char *path, GError **error)
{
  const char *paths[] = {path};
  g_autoptr(TrcWorkload) w =
      trc_workload_load_kineto(paths, 1, -1, NULL, error);

  return w != NULL;
}

START_TEST(test_kineto_bad_corpus)
{
  ck_assert_uint_ge(bad_corpus_manifest_load("kineto", load_kineto_one), 10);
}
END_TEST

#define CHAKRADIR IFSIM_TEST_DATA_DIR "/chakra/"

/* ASTRA-sim's microbenchmarks (8 ranks, one 1 MiB collective each): one
 * collective over every rank, as NCCL runs it alone. */
START_TEST(test_chakra_microbenchmarks)
{
  static const char *const kinds[] = {"all_reduce", "all_to_all"};
  static const NcclColl colls[] = {NCCL_COLL_ALLREDUCE, NCCL_COLL_ALLTOALL};

  for (gsize k = 0; k < G_N_ELEMENTS(kinds); k++) {
    char *paths[8];
    g_autoptr(GError) error = NULL;
    g_autoptr(TrcWorkload) w = NULL;

    /* in reverse: the ranks come from the names */
    for (guint r = 0; r < 8; r++)
      paths[7 - r] = g_strdup_printf(CHAKRADIR "%s.%u.et", kinds[k], r);
    w = trc_workload_load_chakra((const char *const *)paths, 8, NULL, &error);
    for (guint r = 0; r < 8; r++)
      g_free(paths[r]);
    ck_assert_msg(w != NULL, "%s", error ? error->message : "");
    ck_assert_uint_eq(w->dp, 8);
    ck_assert_uint_eq(w->n_ops, 1);
    ck_assert_int_eq(w->ops[0].coll, colls[k]);
    ck_assert_uint_eq(w->ops[0].bytes, 1048576);
    ck_assert_uint_eq(comm_of(w, &w->ops[0])->n, 8);
  }
}
END_TEST

/* Two ranks (tests/data/chakra/make_mixed.py): compute 100 us, an
 * AllReduce over pg "dp", a metadata node, compute 50 us (a control
 * dependency), a send from rank 0 to rank 1: their sum. */
START_TEST(test_chakra_mixed)
{
  const char *paths[] = {CHAKRADIR "mixed.1.et", CHAKRADIR "mixed.0.et"};
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) notes = g_string_new(NULL);
  g_autoptr(TrcWorkload) w = trc_workload_load_chakra(paths, 2, notes, &error);
  TrcReplayResult r;
  SimTime step, ar = 0, send = 0;

  ck_assert_msg(w != NULL, "%s", error ? error->message : "");
  /* 2 x 2 compute, the AllReduce, the send */
  ck_assert_uint_eq(w->n_ops, 6);
  ck_assert_ptr_nonnull(
      strstr(notes->str, "converted by Chakra schema '1.0.2-chakra.0.0.4'"));
  ck_assert_ptr_nonnull(strstr(notes->str, "2 metadata and memory nodes"));
  step = kineto_step(SYSDIR "dgx-h100.ini", w, FALSE, &r);
  for (guint32 i = 0; i < w->n_ops; i++) {
    SimTime d = r.ops[i].end_ps - r.ops[i].start_ps;

    if (w->ops[i].coll == NCCL_COLL_ALLREDUCE && !w->ops[i].compute) {
      ck_assert_uint_eq(w->ops[i].bytes, 16 << 20);
      ar = d;
    } else if (!w->ops[i].compute) {
      ck_assert_int_eq(w->ops[i].coll, NCCL_COLL_SENDRECV);
      ck_assert_uint_eq(comm_of(w, &w->ops[i])->ranks[0], 0);
      ck_assert_uint_eq(comm_of(w, &w->ops[i])->ranks[1], 1);
      send = d;
    }
  }
  trc_replay_result_clear(&r);
  ck_assert_uint_gt(ar, 0);
  ck_assert_uint_gt(send, 0);
  ck_assert_uint_eq(step, SIM_US(150) + ar + send);
}
END_TEST

/* A rank's file missing or given twice. */
START_TEST(test_chakra_ranks)
{
  const char *one[] = {CHAKRADIR "mixed.1.et"};
  const char *twice[] = {CHAKRADIR "mixed.0.et", CHAKRADIR "mixed.0.et"};
  g_autoptr(GError) e1 = NULL, e2 = NULL;
  g_autoptr(TrcWorkload) w1 = trc_workload_load_chakra(one, 1, NULL, &e1);
  g_autoptr(TrcWorkload) w2 = trc_workload_load_chakra(twice, 2, NULL, &e2);

  ck_assert_ptr_null(w1);
  ck_assert_ptr_nonnull(
      strstr(e1->message, "mixed.1.et: its name gives rank 1, and 1 files"));
  ck_assert_ptr_null(w2);
  ck_assert_ptr_nonnull(strstr(e2->message, "rank 0 again"));
}
END_TEST

static gboolean load_chakra_one(const char *path, GError **error)
{
  const char *paths[] = {path};
  g_autoptr(TrcWorkload) w = trc_workload_load_chakra(paths, 1, NULL, error);

  return w != NULL;
}

START_TEST(test_chakra_bad_corpus)
{
  ck_assert_uint_ge(bad_corpus_manifest_load("chakra", load_chakra_one), 16);
}
END_TEST

static gboolean load_log(const char *path, GError **error)
{
  const char *paths[] = {path};
  TrcNcclLogOptions o = {0};
  g_autoptr(TrcWorkload) w =
      trc_workload_load_nccl_log(paths, 1, &o, NULL, error);

  return w != NULL;
}

START_TEST(test_nccllog_bad_corpus)
{
  ck_assert_uint_ge(bad_corpus_manifest_load("nccllog", load_log), 16);
}
END_TEST

/* A workload with communicators runs exactly as the same ops in tp/dp
 * groups: TP AllReduces on each server, then DP AllReduces across them,
 * with compute on every rank between. */
START_TEST(test_comm_workload_equals_groups)
{
  static const char groups[] =
      "# tp: 8\n# pp: 1\n# dp: 2\n# ep: 1\n"
      "id,name,op,group,size_bytes,compute_us,stage,peer,deps\n"
      "1,f,compute,,,120,,,\n"
      "2,tp_ar,allreduce,tp,33554432,,,,\n"
      "3,g,compute,,,80,,,\n"
      "4,dp_ar,allreduce,dp,67108864,,,,\n"
      "5,tp_ag,allgather,tp,16777216,,,,\n";
  GString *s = g_string_new("# ranks: 16\n# comm: all");

  for (guint32 r = 0; r < 16; r++)
    g_string_append_printf(s, " %u", r);
  g_string_append(s, "\n# comm: tp0 0 1 2 3 4 5 6 7\n"
                     "# comm: tp1 8 9 10 11 12 13 14 15\n");
  for (guint32 t = 0; t < 8; t++)
    g_string_append_printf(s, "# comm: dp%u %u %u\n", t, t, t + 8);
  g_string_append(s, "id,name,op,group,size_bytes,compute_us,stage,peer,"
                     "deps\n"
                     "1,f,compute,all,,120,,,\n"
                     "2,tp_ar0,allreduce,tp0,33554432,,,,1\n"
                     "3,tp_ar1,allreduce,tp1,33554432,,,,1\n"
                     "4,g,compute,all,,80,,,2;3\n");
  for (guint32 t = 0; t < 8; t++)
    g_string_append_printf(s, "%u,dp_ar%u,allreduce,dp%u,67108864,,,,4\n",
                           5 + t, t, t);
  g_string_append(s,
                  "13,tp_ag0,allgather,tp0,16777216,,,,5;6;7;8;9;10;11;12\n"
                  "14,tp_ag1,allgather,tp1,16777216,,,,5;6;7;8;9;10;11;12\n");
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(TrcWorkload) a = trc_workload_load_csv_data(
        groups, strlen(groups), "groups.csv", &error);
    g_autoptr(TrcWorkload) b =
        trc_workload_load_csv_data(s->str, s->len, "comms.csv", &error);
    SimTime sa, sb;

    ck_assert_msg(a && b, "%s", error ? error->message : "");
    sa = step_of(SYSDIR "dgx-h100-ndr-2.ini", a);
    sb = step_of(SYSDIR "dgx-h100-ndr-2.ini", b);
    ck_assert_uint_gt(sa, SIM_US(200));
    ck_assert_uint_eq(sa, sb);
  }
  g_string_free(s, TRUE);
}
END_TEST

/* A communicator over unlike GPUs of two servers is refused, named. */
START_TEST(test_comm_unlike_gpus)
{
  static const char text[] =
      "# ranks: 16\n# comm: odd 0 9\n"
      "id,name,op,group,size_bytes,compute_us,stage,peer,deps\n"
      "1,ar,allreduce,odd,1M,,,,\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(TrcWorkload) w =
      trc_workload_load_csv_data(text, strlen(text), "odd.csv", &error);
  g_autoptr(TopoSystem) sys = NULL;
  guint32 servers[2] = {0, 1};
  TrcReplayJob job = {.name = "j", .w = w, .servers = servers, .n_servers = 2};
  TrcReplayOptions o = {.exec = NCCL_EXEC_FLOW};
  TrcReplayResult r;
  g_autoptr(TrcReplay) run = NULL;

  ck_assert_msg(w != NULL, "%s", error ? error->message : "");
  sys = topo_system_load(SYSDIR "dgx-h100-ndr-2.ini", NULL, &error);
  ck_assert_msg(sys != NULL, "%s", error ? error->message : "");
  run = trc_replay_run(sys, &job, 1, &o, &r, &error);
  ck_assert_ptr_null(run);
  ck_assert_msg(strstr(error->message,
                       "its communicator odd (ranks 0, 9, "
                       "...) does not take the same GPUs") != NULL,
                "%s", error->message);
}
END_TEST

Suite *suite_tracelogs(void)
{
  Suite *s = suite_create("tracelogs");
  TCase *tc = tcase_create("tracelogs");

  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_nccllog_two_hosts);
  tcase_add_test(tc, test_nccllog_per_process);
  tcase_add_test(tc, test_nccllog_gaps);
  tcase_add_test(tc, test_nccllog_nccl24);
  tcase_add_test(tc, test_nccllog_excerpts);
  tcase_add_test(tc, test_nccllog_uneven_alltoall);
  tcase_add_test(tc, test_nccllog_bad_corpus);
  tcase_add_test(tc, test_comm_workload_equals_groups);
  tcase_add_test(tc, test_comm_unlike_gpus);
  tcase_add_test(tc, test_kineto_ddp);
  tcase_add_test(tc, test_kineto_waits);
  tcase_add_test(tc, test_kineto_no_wait);
  tcase_add_test(tc, test_kineto_ranks);
  tcase_add_test(tc, test_kineto_bad_corpus);
  tcase_add_test(tc, test_chakra_microbenchmarks);
  tcase_add_test(tc, test_chakra_mixed);
  tcase_add_test(tc, test_chakra_ranks);
  tcase_add_test(tc, test_chakra_bad_corpus);
  suite_add_tcase(s, tc);
  return s;
}
