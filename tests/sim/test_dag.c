/* Tests of sim/dag: chains, fan-in and fan-out (past the inline dependent
 * slots, and thousands wide), streams, delays, joins, waiting on finished
 * tasks, tasks added by completion functions, and the same DAG over both
 * transports. */
#include <string.h>

#include "sim/dag.h"
#include "sim/error.h"
#include "tests/suites.h"

#define GBps 1e9

typedef struct {
  SimEngine *engine;
  SimFabric *fabric;
  SimTransport *t;
  SimDag *dag;
  SimPath ab, ba;
  SimTime at[64];    /* completion time by user value */
  SimTime begun[64]; /* start time by user value, +1 (0: never started) */
  guint order[64];
  guint n_done;
} Rig;

static void on_task(void *ctx, guint64 user, SimTime now)
{
  Rig *r = ctx;

  ck_assert_uint_lt(user, G_N_ELEMENTS(r->at));
  r->at[user] = now;
  r->order[r->n_done++] = (guint)user;
}

static void on_start(void *ctx, guint64 user, SimTime now)
{
  Rig *r = ctx;

  ck_assert_uint_lt(user, G_N_ELEMENTS(r->begun));
  ck_assert_uint_eq(r->begun[user], 0); /* once */
  r->begun[user] = now + 1;
}

/* Two nodes, one 1 GB/s link with 1 us latency: 1 MB takes 1001 us. */
static void rig_init(Rig *r, gboolean flow)
{
  SimNodeId a, b;
  SimChannelId c;

  memset(r, 0, sizeof *r);
  r->engine = sim_engine_new();
  r->fabric = sim_fabric_new();
  a = sim_fabric_add_node(r->fabric, 0, SIM_NODE_ENDPOINT, 0, 0, 0, "a");
  b = sim_fabric_add_node(r->fabric, 0, SIM_NODE_ENDPOINT, 0, 1, 0, "b");
  c = sim_fabric_add_link(r->fabric, a, b, 0, 1, 1 * GBps, SIM_US(1));
  sim_fabric_finalize(r->fabric);
  r->t = flow ? sim_flow_new(r->engine, r->fabric)
              : sim_analytical_new(r->engine, r->fabric);
  r->dag = sim_dag_new(r->engine, r->t);
  sim_path_push(&r->ab, c);
  sim_path_push(&r->ba, sim_channel_reverse(c));
}

static void rig_clear(Rig *r)
{
  sim_dag_free(r->dag);
  sim_transport_free(r->t);
  sim_fabric_free(r->fabric);
  sim_engine_free(r->engine);
}

static SimTask xfer(Rig *r, const SimPath *p, guint64 bytes, guint32 stream,
                    guint64 user, const SimTask *after, guint32 n_after)
{
  SimTaskSpec s = {.bytes = bytes,
                   .paths = p,
                   .n_paths = 1,
                   .stream = stream,
                   .done = on_task,
                   .ctx = r,
                   .user = user};
  return sim_dag_add(r->dag, &s, after, n_after);
}

static SimTask delay(Rig *r, SimTime d, guint32 stream, guint64 user,
                     const SimTask *after, guint32 n_after)
{
  SimTaskSpec s = {
      .delay_ps = d, .stream = stream, .done = on_task, .ctx = r, .user = user};
  return sim_dag_add(r->dag, &s, after, n_after);
}

#define ONE_MB_PS (SIM_US(1) + SIM_US(1000))

/* A chain a -> b -> delay: times add; opposite directions in parallel. */
START_TEST(test_chain_and_parallel)
{
  Rig r;
  SimTask t0, t1, t2, t3;
  SimDagStats st;

  rig_init(&r, _i);
  t0 = xfer(&r, &r.ab, 1000000, SIM_NONE, 0, NULL, 0);
  t1 = xfer(&r, &r.ab, 1000000, SIM_NONE, 1, &t0, 1);
  t2 = delay(&r, SIM_US(5), SIM_NONE, 2, &t1, 1);
  t3 = xfer(&r, &r.ba, 1000000, SIM_NONE, 3, NULL, 0);
  ck_assert(!sim_dag_is_done(r.dag, t0));
  ck_assert_uint_eq(sim_dag_alive(r.dag), 4);
  sim_engine_run(r.engine);
  ck_assert_uint_eq(r.at[0], ONE_MB_PS);
  ck_assert_uint_eq(r.at[1], 2 * ONE_MB_PS);
  ck_assert_uint_eq(r.at[2], 2 * ONE_MB_PS + SIM_US(5));
  ck_assert_uint_eq(r.at[3], ONE_MB_PS);
  ck_assert(sim_dag_is_done(r.dag, t2) && sim_dag_is_done(r.dag, t3));
  ck_assert(sim_dag_is_done(r.dag, SIM_TASK_NONE));
  ck_assert_uint_eq(sim_dag_alive(r.dag), 0);
  sim_dag_stats(r.dag, &st);
  ck_assert_uint_eq(st.added, 4);
  ck_assert_uint_eq(st.done, 4);
  ck_assert_uint_eq(st.last_done, 2 * ONE_MB_PS + SIM_US(5));
  rig_clear(&r);
}
END_TEST

/* Fan-in waits for the latest; fan-out of 20 (inline slots overflow into
 * blocks) starts every dependent, in the order added. */
START_TEST(test_fan_in_out)
{
  Rig r;
  SimTask a, b, join;

  rig_init(&r, FALSE);
  a = delay(&r, SIM_US(3), SIM_NONE, 0, NULL, 0);
  b = delay(&r, SIM_US(7), SIM_NONE, 1, NULL, 0);
  join = delay(&r, 0, SIM_NONE, 2, (SimTask[]){a, b}, 2);
  for (guint i = 0; i < 20; i++)
    delay(&r, SIM_US(1), SIM_NONE, 3 + i, &join, 1);
  sim_engine_run(r.engine);
  ck_assert_uint_eq(r.at[2], SIM_US(7));
  for (guint i = 0; i < 20; i++) {
    ck_assert_uint_eq(r.at[3 + i], SIM_US(8));
    ck_assert_uint_eq(r.order[3 + i], 3 + i);
  }
  rig_clear(&r);
}
END_TEST

/* Streams run in order; different streams overlap. */
START_TEST(test_streams)
{
  Rig r;

  rig_init(&r, TRUE);
  xfer(&r, &r.ab, 1000000, 0, 0, NULL, 0);
  xfer(&r, &r.ba, 1000000, 0, 1, NULL, 0); /* after 0 on stream 0 */
  xfer(&r, &r.ba, 1000000, 1, 2, NULL, 0);
  delay(&r, SIM_US(2), 1, 3, NULL, 0);
  sim_engine_run(r.engine);
  ck_assert_uint_eq(r.at[0], ONE_MB_PS);
  /* 2 ends (b -> a) as 0 does; 1 follows 0 on stream 0, alone */
  ck_assert_uint_eq(r.at[2], ONE_MB_PS);
  ck_assert_uint_eq(r.at[1], 2 * ONE_MB_PS);
  ck_assert_uint_eq(r.at[3], ONE_MB_PS + SIM_US(2));
  rig_clear(&r);
}
END_TEST

/* Completion order by user value, for fan-outs wider than Rig.order. */
typedef struct {
  GArray *order; /* guint64 user values */
} Seen;

static void on_seen(void *ctx, guint64 user, SimTime now)
{
  (void)now;
  g_array_append_val(((Seen *)ctx)->order, user);
}

/* Fan-outs of thousands (a plan's launch task: every first body transfer
 * waits on it) append at the dependents' tail, not by walking them: all
 * start in the order added, also when a second wide fan-out reuses the
 * overflow blocks the first freed, and when two sources interleave. */
START_TEST(test_wide_fan_out)
{
  enum { WIDE = 5000 };
  Rig r;
  Seen seen = {g_array_new(FALSE, FALSE, sizeof(guint64))};
  SimTaskSpec s = {.stream = SIM_NONE, .done = on_seen, .ctx = &seen};

  rig_init(&r, FALSE);
  for (guint round = 0; round < 2; round++) {
    SimTask a, b;

    g_array_set_size(seen.order, 0);
    s.delay_ps = SIM_US(1);
    s.user = G_MAXUINT64;
    a = sim_dag_add(r.dag, &s, NULL, 0);
    s.delay_ps = SIM_US(2);
    b = sim_dag_add(r.dag, &s, NULL, 0);
    s.delay_ps = 0;
    /* even users wait on a, odd ones on a and b */
    for (guint64 i = 0; i < WIDE; i++) {
      s.user = i;
      sim_dag_add(r.dag, &s, (SimTask[]){a, b}, i % 2 ? 2 : 1);
    }
    sim_engine_run(r.engine);
    ck_assert_uint_eq(seen.order->len, WIDE + 2);
    ck_assert_uint_eq(sim_dag_alive(r.dag), 0);
    /* a, then the evens in order; b, then the odds in order */
    for (guint i = 0; i < WIDE / 2; i++) {
      ck_assert_uint_eq(g_array_index(seen.order, guint64, 1 + i), 2 * i);
      ck_assert_uint_eq(g_array_index(seen.order, guint64, WIDE / 2 + 2 + i),
                        2 * i + 1);
    }
  }
  g_array_free(seen.order, TRUE);
  rig_clear(&r);
}
END_TEST

typedef struct {
  Rig *r;
  SimTask first;
  guint added;
} Grow;

static void on_grow(void *ctx, guint64 user, SimTime now)
{
  Grow *g = ctx;

  on_task(g->r, user, now);
  /* Waiting on the task now ending waits for nothing. */
  if (g->added < 5) {
    SimTaskSpec s = {.delay_ps = SIM_US(1),
                     .stream = SIM_NONE,
                     .done = on_grow,
                     .ctx = g,
                     .user = 10 + g->added};
    SimTask after[2] = {g->first, SIM_TASK_NONE};
    g->added++;
    sim_dag_add(g->r->dag, &s, after, 2);
  }
}

/* Completion functions add tasks as the run goes; waiting on finished or
 * forgotten tasks is free. */
START_TEST(test_generated)
{
  Rig r;
  Grow g = {&r, SIM_TASK_NONE, 0};
  SimTaskSpec s = {.delay_ps = SIM_US(1),
                   .stream = SIM_NONE,
                   .done = on_grow,
                   .ctx = &g,
                   .user = 9};

  rig_init(&r, FALSE);
  g.first = sim_dag_add(r.dag, &s, NULL, 0);
  sim_engine_run(r.engine);
  ck_assert_uint_eq(g.added, 5);
  for (guint i = 0; i < 5; i++)
    ck_assert_uint_eq(r.at[10 + i], SIM_US(2 + i));
  /* long done: a task after it starts at once */
  delay(&r, 0, SIM_NONE, 20, &g.first, 1);
  sim_engine_run(r.engine);
  ck_assert_uint_eq(r.at[20], SIM_US(6));
  rig_clear(&r);
}
END_TEST

/* An external task: started, it ends only when completed, here by a
 * delay's completion function 5 us later; its dependents start then, and an
 * external task never completed is a stall. */
typedef struct {
  Rig *r;
  SimTask ext;
} Completer;

static void complete_ext(void *ctx, guint64 user, SimTime now)
{
  Completer *c = ctx;

  on_task(c->r, user, now);
  sim_dag_complete(c->r->dag, c->ext);
}

START_TEST(test_external)
{
  Rig r;
  Completer c = {&r, SIM_TASK_NONE};
  SimTaskSpec ext = {.delay_ps = SIM_DELAY_EXTERNAL,
                     .stream = SIM_NONE,
                     .done = on_task,
                     .ctx = &r,
                     .user = 1};
  SimTaskSpec kick = {.delay_ps = SIM_US(5),
                      .stream = SIM_NONE,
                      .done = complete_ext,
                      .ctx = &c,
                      .user = 2};
  g_autoptr(GError) error = NULL;

  rig_init(&r, TRUE);
  c.ext = sim_dag_add(r.dag, &ext, NULL, 0);
  delay(&r, SIM_US(1), SIM_NONE, 3, &c.ext, 1);
  sim_dag_add(r.dag, &kick, NULL, 0);
  ck_assert_int_eq(sim_engine_run(r.engine), SIM_RUN_EMPTY);
  ck_assert_uint_eq(r.at[2], SIM_US(5));
  ck_assert_uint_eq(r.at[1], SIM_US(5));
  ck_assert_uint_eq(r.at[3], SIM_US(6));
  ck_assert(sim_dag_check_finished(r.dag, sim_engine_now(r.engine), NULL));
  ext.user = 4;
  sim_dag_add(r.dag, &ext, NULL, 0);
  sim_engine_run(r.engine);
  ck_assert(!sim_dag_check_finished(r.dag, sim_engine_now(r.engine), &error));
  ck_assert_ptr_nonnull(strstr(error->message, "1 started and never ended"));
  rig_clear(&r);
}
END_TEST

/* A transport that starts transfers and never ends them: a stand-in for
 * one that gives a flow no rate. */
static void stuck_start(SimTransport *t, const SimTransfer *x)
{
  (void)t;
  (void)x;
}

static void stuck_free(SimTransport *t)
{
  g_free(t);
}

static const SimTransportOps stuck_ops = {
    .name = "stuck", .start = stuck_start, .free = stuck_free};

/* A DAG whose transfer never ends is reported, not taken as finished:
 * what is stuck, when, and how many wait. */
START_TEST(test_stall_reported)
{
  Rig r;
  SimTransport *stuck = g_new0(SimTransport, 1);
  SimDag *dag;
  g_autoptr(GError) error = NULL;
  SimTask a;

  rig_init(&r, FALSE);
  sim_transport_init(stuck, &stuck_ops, r.engine, r.fabric);
  dag = sim_dag_new(r.engine, stuck);
  {
    SimTaskSpec d = {.delay_ps = SIM_US(3), .stream = SIM_NONE};
    SimTaskSpec x = {
        .bytes = 4096, .paths = &r.ab, .n_paths = 1, .stream = SIM_NONE};
    a = sim_dag_add(dag, &d, NULL, 0);
    a = sim_dag_add(dag, &x, &a, 1);
    sim_dag_add(dag, &d, &a, 1);
    sim_dag_add(dag, &d, &a, 1);
  }
  ck_assert_int_eq(sim_engine_run(r.engine), SIM_RUN_EMPTY);
  ck_assert(!sim_dag_check_finished(dag, sim_engine_now(r.engine), &error));
  ck_assert(g_error_matches(error, SIM_ERROR, SIM_ERROR_STALLED));
  ck_assert_str_eq(error->message,
                   "the simulation cannot progress at 3.000 us: 3 tasks are "
                   "not done: 1 started and never ended (1 transfers; the "
                   "first moves 4096 bytes), 2 wait for them");
  sim_dag_free(dag);
  sim_transport_free(stuck);
  /* a DAG that ran to the end passes */
  g_clear_error(&error);
  delay(&r, SIM_US(1), SIM_NONE, 0, NULL, 0);
  sim_engine_run(r.engine);
  ck_assert(sim_dag_check_finished(r.dag, sim_engine_now(r.engine), &error));
  rig_clear(&r);
}
END_TEST

/* The start function sees each task start exactly when it may: a delay
 * at once, a transfer after the delay it waits for, stream tasks after
 * their predecessor on the stream, a join when its last input ends. */
START_TEST(test_started)
{
  Rig r;
  SimTask d, x1, j;
  SimTaskSpec s = {.delay_ps = SIM_US(2),
                   .stream = SIM_NONE,
                   .done = on_task,
                   .started = on_start,
                   .ctx = &r};

  rig_init(&r, _i);
  s.user = 0; /* 2 us delay, now */
  d = sim_dag_add(r.dag, &s, NULL, 0);
  s = (SimTaskSpec){.bytes = 1000000,
                    .paths = &r.ab,
                    .n_paths = 1,
                    .stream = 7,
                    .done = on_task,
                    .started = on_start,
                    .ctx = &r,
                    .user = 1};
  x1 = sim_dag_add(r.dag, &s, &d, 1); /* at 2 us, on stream 7 */
  s.user = 2;
  sim_dag_add(r.dag, &s, NULL, 0); /* after x1 on the stream */
  s = (SimTaskSpec){.paths = NULL,
                    .delay_ps = SIM_US(3),
                    .stream = SIM_NONE,
                    .started = on_start,
                    .ctx = &r,
                    .user = 3};
  sim_dag_add(r.dag, &s, &x1, 1); /* done NULL: only the start is seen */
  s.delay_ps = 0;
  s.user = 4;
  s.done = on_task;
  j = sim_dag_add(r.dag, &s, (SimTask[]){d, x1}, 2); /* a join */
  s.user = 5;
  s.started = NULL; /* NULL: nothing is called */
  sim_dag_add(r.dag, &s, &j, 1);
  ck_assert_uint_eq(r.begun[0], 0 + 1);
  ck_assert_uint_eq(r.begun[1], 0);
  sim_engine_run(r.engine);
  ck_assert_uint_eq(r.begun[0], 0 + 1);
  ck_assert_uint_eq(r.begun[1], SIM_US(2) + 1);
  ck_assert_uint_eq(r.at[1], SIM_US(2) + ONE_MB_PS);
  ck_assert_uint_eq(r.begun[2], SIM_US(2) + ONE_MB_PS + 1);
  ck_assert_uint_eq(r.at[2], SIM_US(2) + 2 * ONE_MB_PS);
  ck_assert_uint_eq(r.begun[3], SIM_US(2) + ONE_MB_PS + 1);
  ck_assert_uint_eq(r.at[3], 0); /* no done function */
  ck_assert_uint_eq(r.begun[4], SIM_US(2) + ONE_MB_PS + 1);
  ck_assert_uint_eq(r.at[4], SIM_US(2) + ONE_MB_PS);
  ck_assert_uint_eq(r.begun[5], 0);
  ck_assert_uint_eq(r.at[5], SIM_US(2) + ONE_MB_PS);
  rig_clear(&r);
}
END_TEST

Suite *suite_dag(void)
{
  Suite *s = suite_create("dag");
  TCase *tc = tcase_create("dag");

  tcase_add_loop_test(tc, test_chain_and_parallel, 0, 2);
  tcase_add_test(tc, test_fan_in_out);
  tcase_add_test(tc, test_wide_fan_out);
  tcase_add_test(tc, test_streams);
  tcase_add_test(tc, test_generated);
  tcase_add_test(tc, test_stall_reported);
  tcase_add_test(tc, test_external);
  tcase_add_loop_test(tc, test_started, 0, 2);
  suite_add_tcase(s, tc);
  return s;
}
