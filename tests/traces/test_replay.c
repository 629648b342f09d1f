/* Replay of training steps (traces/replay.c): step times that add up
 * exactly from the parts the NCCL model times alone (compute, a TP
 * AllReduce, a pipeline send), overlap and exposure, a communicator's calls
 * in issue order, jobs side by side, placement policies and the errors. */
#include <string.h>

#include "tests/suites.h"
#include "traces/replay.h"

#define MIB (G_GUINT64_CONSTANT(1) << 20)

static TopoSystem *load(const char *name)
{
  g_autoptr(GError) error = NULL;
  TopoSystem *sys = topo_system_load_builtin(name, &error);

  ck_assert_msg(sys != NULL, "%s", error ? error->message : "");
  return sys;
}

static TrcWorkload *workload(const char *text)
{
  g_autoptr(GError) error = NULL;
  TrcWorkload *w =
      trc_workload_load_csv_data(text, strlen(text), "test.csv", &error);

  ck_assert_msg(w != NULL, "%s", error ? error->message : "");
  return w;
}

/* The time NCCL's choice of a call takes alone on the given GPUs. */
static SimTime alone_ps(const TopoSystem *sys, const guint32 *servers,
                        guint32 ns, const guint32 *gpus, guint32 ng,
                        NcclColl coll, guint64 bytes)
{
  NcclOptions o = {
      .servers = servers, .n_servers = ns, .local_gpus = gpus, .n_local = ng};
  g_autoptr(GError) error = NULL;
  g_autoptr(NcclComm) c = nccl_comm_new(sys, &o, &error);
  NcclChoice ch;
  NcclRunStats st;

  ck_assert_msg(c != NULL, "%s", error ? error->message : "");
  ck_assert(nccl_select(c, coll, bytes, &ch, NULL, NULL));
  ck_assert(
      nccl_run(c, coll, bytes, &ch, NCCL_EXEC_FLOW, NULL, NULL, &st, &error));
  return st.time_ps;
}

static TrcReplay *run1(const TopoSystem *sys, const TrcWorkload *w,
                       const guint32 *servers, guint32 n, TrcReplayResult *out)
{
  TrcReplayJob job = {.name = "j", .w = w, .servers = servers, .n_servers = n};
  TrcReplayOptions o = {.exec = NCCL_EXEC_FLOW};
  g_autoptr(GError) error = NULL;
  TrcReplay *run = trc_replay_run(sys, &job, 1, &o, out, &error);

  ck_assert_msg(run != NULL, "%s", error ? error->message : "");
  return run;
}

#define HEAD(tp, pp, dp)                                                       \
  "# tp: " #tp "\n# pp: " #pp "\n# dp: " #dp "\n# ep: 1\n"                     \
  "id,name,op,group,size_bytes,compute_us,stage,peer,deps\n"

static const guint32 server0[1] = {0};
static const guint32 all8[8] = {0, 1, 2, 3, 4, 5, 6, 7};

/* compute 100 us, a TP AllReduce of 64 MiB, compute 50 us: in sequence the
 * step is their sum, the AllReduce all exposed; beside a 100 us compute it
 * starts with, only what outlasts the compute is exposed. */
START_TEST(test_sequence_and_overlap)
{
  g_autoptr(TopoSystem) sys = load("dgx-h100");
  g_autoptr(TrcWorkload) seq =
      workload(HEAD(8, 1, 1) "1,a,compute,,,100,,,\n"
                             "2,ar,allreduce,tp,67108864,,,,\n"
                             "3,b,compute,,,50,,,\n");
  g_autoptr(TrcWorkload) par =
      workload(HEAD(8, 1, 1) "1,a,compute,,,100,,,none\n"
                             "2,ar,allreduce,tp,67108864,,,,none\n"
                             "3,b,compute,,,50,,,1;2\n");
  SimTime ar =
      alone_ps(sys, server0, 1, all8, 8, NCCL_COLL_ALLREDUCE, 64 * MIB);
  TrcReplayResult r;

  {
    g_autoptr(TrcReplay) run = run1(sys, seq, server0, 1, &r);

    ck_assert_uint_eq(r.step_ps, SIM_US(150) + ar);
    ck_assert_uint_eq(r.ops[1].start_ps, SIM_US(100));
    ck_assert_uint_eq(r.ops[1].end_ps, SIM_US(100) + ar);
    ck_assert_uint_eq(r.ops[1].instances, 1);
    ck_assert(r.ops[1].chosen);
    ck_assert_uint_eq(r.ops[0].instances, 8);
    ck_assert_double_eq_tol(r.compute_us, 150, 1e-9);
    ck_assert_double_eq_tol(r.exposed_us, sim_time_to_us(ar), 1e-6);
    ck_assert_double_eq_tol(r.exposed_group_us[TRC_GROUP_TP],
                            sim_time_to_us(ar), 1e-6);
    ck_assert_uint_eq(trc_replay_slices(run, NULL, NULL), 8 * 3);
    trc_replay_result_clear(&r);
  }
  {
    g_autoptr(TrcReplay) run = run1(sys, par, server0, 1, &r);
    (void)run; /* freed at the end of the block; only r is read */
    SimTime both = MAX(SIM_US(100), ar);

    ck_assert_uint_eq(r.step_ps, both + SIM_US(50));
    ck_assert_double_eq_tol(
        r.exposed_us, ar > SIM_US(100) ? sim_time_to_us(ar) - 100 : 0, 1e-6);
    trc_replay_result_clear(&r);
  }
}
END_TEST

/* A pipeline of two stages on GPUs 0 and 1: stage 0 computes, sends 32 MiB
 * to stage 1 (one way), which computes after it. */
START_TEST(test_pipeline_send)
{
  g_autoptr(TopoSystem) sys = load("dgx-h100");
  g_autoptr(TrcWorkload) w =
      workload(HEAD(1, 2, 1) "1,f0,compute,,,100,0,,\n"
                             "2,send,sendrecv,pp,33554432,,0,+1,\n"
                             "3,f1,compute,,,100,1,,\n");
  SimTime send =
      alone_ps(sys, server0, 1, all8, 2, NCCL_COLL_SENDRECV, 32 * MIB);
  TrcReplayResult r;
  g_autoptr(TrcReplay) run = run1(sys, w, server0, 1, &r);
  (void)run; /* freed at the end of the block; only r is read */

  /* sendrecv_perf's pair moves both ways at once on full-duplex NVLink:
   * as long as the one-way send */
  ck_assert_uint_eq(r.step_ps, SIM_US(200) + send);
  ck_assert_uint_eq(r.ops[1].instances, 1);
  ck_assert_uint_eq(r.ops[2].start_ps, SIM_US(100) + send);
  /* each rank computes 100 us of the step; the send is exposed on both */
  ck_assert_double_eq_tol(r.compute_us, 100, 1e-9);
  ck_assert_double_eq_tol(r.exposed_group_us[TRC_GROUP_PP],
                          sim_time_to_us(send), 1e-6);
  trc_replay_result_clear(&r);
}
END_TEST

/* Two AllReduces of one communicator, neither waiting for anything: NCCL
 * runs them one after the other on its stream. */
START_TEST(test_comm_order)
{
  g_autoptr(TopoSystem) sys = load("dgx-h100");
  g_autoptr(TrcWorkload) w =
      workload(HEAD(8, 1, 1) "1,a,allreduce,tp,16777216,,,,none\n"
                             "2,b,allreduce,tp,16777216,,,,none\n");
  SimTime ar =
      alone_ps(sys, server0, 1, all8, 8, NCCL_COLL_ALLREDUCE, 16 * MIB);
  TrcReplayResult r;
  g_autoptr(TrcReplay) run = run1(sys, w, server0, 1, &r);
  (void)run; /* freed at the end of the block; only r is read */

  ck_assert_uint_eq(r.ops[0].end_ps, ar);
  ck_assert_uint_eq(r.ops[1].start_ps, ar);
  ck_assert_uint_eq(r.step_ps, 2 * ar);
  trc_replay_result_clear(&r);
}
END_TEST

/* Two jobs of one server each run as if alone (their NVLink domains do not
 * meet); the DP AllReduce of a tp 8 x dp 2 job crosses the network, one GPU
 * per server, and takes as long as that communicator alone. */
START_TEST(test_jobs)
{
  g_autoptr(TopoSystem) sys = load("dgx-h100-superpod");
  g_autoptr(TrcWorkload) tp =
      workload(HEAD(8, 1, 1) "1,a,compute,,,10,,,\n"
                             "2,ar,allreduce,tp,67108864,,,,\n");
  g_autoptr(TrcWorkload) dp =
      workload(HEAD(8, 1, 2) "1,ar,allreduce,dp,67108864,,,,\n");
  static const guint32 s1[1] = {1}, s23[2] = {2, 3}, gpu5[1] = {5};
  TrcReplayJob jobs[2] = {
      {.name = "a", .w = tp, .servers = server0, .n_servers = 1},
      {.name = "b", .w = tp, .servers = s1, .n_servers = 1}};
  TrcReplayOptions o = {.exec = NCCL_EXEC_FLOW};
  TrcReplayResult r[2], a;
  g_autoptr(GError) error = NULL;
  SimTime dp_alone =
      alone_ps(sys, s23, 2, gpu5, 1, NCCL_COLL_ALLREDUCE, 64 * MIB);

  {
    g_autoptr(TrcReplay) both = trc_replay_run(sys, jobs, 2, &o, r, &error);
    g_autoptr(TrcReplay) one = run1(sys, tp, server0, 1, &a);
    (void)one; /* freed at the end of the block; only a is read */

    ck_assert_msg(both != NULL, "%s", error ? error->message : "");
    ck_assert_uint_eq(r[0].step_ps, a.step_ps);
    ck_assert_uint_eq(r[1].step_ps, a.step_ps);
    trc_replay_result_clear(&r[0]);
    trc_replay_result_clear(&r[1]);
    trc_replay_result_clear(&a);
  }
  {
    g_autoptr(TrcReplay) run = run1(sys, dp, s23, 2, &a);
    guint32 server, gpu;

    /* 8 DP groups, one per rail; each as its GPU 5's alone */
    ck_assert_uint_eq(a.ops[0].instances, 8);
    ck_assert_uint_le(a.step_ps, dp_alone + dp_alone / 100);
    ck_assert_uint_ge(a.step_ps, dp_alone);
    trc_replay_rank_gpu(run, 0, 13, &server, &gpu);
    ck_assert_uint_eq(server, 3);
    ck_assert_uint_eq(gpu, 5);
    trc_replay_result_clear(&a);
  }
}
END_TEST

START_TEST(test_placement)
{
  guint8 used[8] = {0};
  guint32 out[4];
  static const guint32 list[2] = {6, 3};
  g_autoptr(GError) error = NULL;
  TrcPlacement p;

  ck_assert(trc_placement_parse("Spread", &p) && p == TRC_PLACE_SPREAD);
  ck_assert(!trc_placement_parse("best", &p));
  ck_assert_uint_eq(trc_servers_needed(4, 8), 1);
  ck_assert_uint_eq(trc_servers_needed(24, 8), 3);
  ck_assert_uint_eq(trc_servers_needed(12, 8), 0);
  ck_assert(trc_place(8, used, 2, TRC_PLACE_PACKED, 0, NULL, out, &error));
  ck_assert(out[0] == 0 && out[1] == 1);
  /* free: 2..7; spread takes every third */
  ck_assert(trc_place(8, used, 2, TRC_PLACE_SPREAD, 0, NULL, out, &error));
  ck_assert(out[0] == 2 && out[1] == 5);
  ck_assert(trc_place(8, used, 2, TRC_PLACE_EXPLICIT, 0, list, out, &error));
  ck_assert(out[0] == 6 && out[1] == 3);
  ck_assert(!trc_place(8, used, 1, TRC_PLACE_EXPLICIT, 0, list, out, &error));
  ck_assert_str_eq(error->message,
                   "server 6 is taken (expected a free server below 8)");
  g_clear_error(&error);
  /* free: 4 and 7 */
  ck_assert(!trc_place(8, used, 3, TRC_PLACE_RANDOM, 1, NULL, out, &error));
  ck_assert_str_eq(error->message,
                   "needs 3 servers, 2 of the system's 8 are free");
  ck_assert(trc_place(8, used, 2, TRC_PLACE_RANDOM, 1, NULL, out, &error));
  ck_assert(out[0] == 4 && out[1] == 7);
  /* random draws depend on the seed only, and come back in order */
  {
    guint8 u1[64] = {0}, u2[64] = {0};
    guint32 a[8], b[8];

    ck_assert(trc_place(64, u1, 8, TRC_PLACE_RANDOM, 7, NULL, a, NULL));
    ck_assert(trc_place(64, u2, 8, TRC_PLACE_RANDOM, 7, NULL, b, NULL));
    ck_assert(memcmp(a, b, sizeof a) == 0);
    for (guint i = 1; i < 8; i++)
      ck_assert_uint_lt(a[i - 1], a[i]);
  }
}
END_TEST

/* Layouts that do not fit are refused with the reason. */
START_TEST(test_errors)
{
  g_autoptr(TopoSystem) sys = load("dgx-h100-superpod");
  g_autoptr(TrcWorkload) odd =
      workload(HEAD(3, 1, 8) "1,ar,allreduce,tp,1048576,,,,\n");
  static const guint32 s3[3] = {0, 1, 2};
  TrcReplayJob job = {.name = "odd", .w = odd, .servers = s3, .n_servers = 2};
  TrcReplayOptions o = {.exec = NCCL_EXEC_FLOW};
  TrcReplayResult r;
  g_autoptr(GError) error = NULL;

  ck_assert(trc_replay_run(sys, &job, 1, &o, &r, &error) == NULL);
  ck_assert_str_eq(error->message, "job odd: 24 ranks (tp 3 x pp 1 x dp 8) "
                                   "need 3 servers of 8 GPUs, it has 2");
  g_clear_error(&error);
  job.n_servers = 3;
  ck_assert(trc_replay_run(sys, &job, 1, &o, &r, &error) == NULL);
  ck_assert_str_eq(error->message,
                   "job odd, op 1 (ar): its tp group of ranks 6, 7, ... does "
                   "not take the same GPUs of each of its servers (tp=3 pp=1 "
                   "dp=8 on servers of 8 GPUs); ifsim's communicators do");
}
END_TEST

/* Two world ops, the first on stage 0 only: the second (every stage) runs
 * on all 8 ranks, as long as that communicator alone. */
START_TEST(test_world_stages)
{
  g_autoptr(TopoSystem) sys = load("dgx-h100");
  g_autoptr(TrcWorkload) w =
      workload(HEAD(1, 2, 4) "1,a,allreduce,world,67108864,,0,,\n"
                             "2,b,allreduce,world,67108864,,,,\n");
  SimTime four =
      alone_ps(sys, server0, 1, all8, 4, NCCL_COLL_ALLREDUCE, 64 * MIB);
  SimTime eight =
      alone_ps(sys, server0, 1, all8, 8, NCCL_COLL_ALLREDUCE, 64 * MIB);
  TrcReplayResult r;
  g_autoptr(TrcReplay) run = run1(sys, w, server0, 1, &r);
  (void)run; /* freed at the end of the block; only r is read */

  ck_assert_uint_eq(r.ops[0].end_ps, four);
  ck_assert_uint_eq(r.ops[1].end_ps - r.ops[1].start_ps, eight);
  ck_assert_uint_eq(r.ops[0].instances, 1);
  ck_assert_uint_eq(r.ops[1].instances, 1);
  trc_replay_result_clear(&r);
}
END_TEST

/* Exposure is split among the groups in flight: they add up to the total.
 * A TP AllReduce and a DP AllReduce at once, nothing computing: each group
 * gets half of their overlap. */
START_TEST(test_exposure_split)
{
  g_autoptr(TopoSystem) sys = load("dgx-h100");
  g_autoptr(TrcWorkload) w =
      workload(HEAD(4, 1, 2) "1,t,allreduce,tp,67108864,,,,none\n"
                             "2,d,allreduce,dp,67108864,,,,none\n");
  TrcReplayResult r;
  g_autoptr(TrcReplay) run = run1(sys, w, server0, 1, &r);
  (void)run; /* freed at the end of the block; only r is read */
  double tp = r.exposed_group_us[TRC_GROUP_TP];
  double dp = r.exposed_group_us[TRC_GROUP_DP];
  double t0 = sim_time_to_us(r.ops[0].end_ps);
  double t1 = sim_time_to_us(r.ops[1].end_ps);

  ck_assert_double_eq_tol(tp + dp, r.exposed_us, 1e-6);
  ck_assert_double_eq_tol(r.exposed_us, MAX(t0, t1), 1e-6);
  ck_assert_double_eq_tol(MIN(tp, dp), MIN(t0, t1) / 2, 1e-6);
  ck_assert_double_eq_tol(r.compute_us, 0, 1e-9);
  trc_replay_result_clear(&r);
}
END_TEST

Suite *suite_replay(void)
{
  Suite *s = suite_create("replay");
  TCase *tc = tcase_create("core");

  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_sequence_and_overlap);
  tcase_add_test(tc, test_pipeline_send);
  tcase_add_test(tc, test_comm_order);
  tcase_add_test(tc, test_jobs);
  tcase_add_test(tc, test_placement);
  tcase_add_test(tc, test_errors);
  tcase_add_test(tc, test_world_stages);
  tcase_add_test(tc, test_exposure_split);
  suite_add_tcase(s, tc);
  return s;
}
