/* Tests of sim/engine: dispatch order, cancellation, run limits, stop,
 * determinism, bounded memory. */
#include <signal.h>
#include <string.h>

#include "sim/engine.h"
#include "sim/rng.h"
#include "tests/suites.h"

/* Records (time, data) of every event it runs. */
typedef struct {
  GArray *times;
  GArray *data;
} Log;

static void log_init(Log *log)
{
  log->times = g_array_new(FALSE, FALSE, sizeof(SimTime));
  log->data = g_array_new(FALSE, FALSE, sizeof(guint64));
}

static void log_clear(Log *log)
{
  g_array_free(log->times, TRUE);
  g_array_free(log->data, TRUE);
}

static void on_log(SimEngine *eng, void *ctx, guint64 data)
{
  Log *log = ctx;
  SimTime now = sim_engine_now(eng);
  g_array_append_val(log->times, now);
  g_array_append_val(log->data, data);
}

#define LOG_T(log, i) g_array_index((log)->times, SimTime, (i))
#define LOG_D(log, i) g_array_index((log)->data, guint64, (i))

START_TEST(test_order_and_fifo_ties)
{
  g_autoptr(SimEngine) eng = sim_engine_new();
  Log log;
  SimKind k;

  log_init(&log);
  k = sim_engine_register(eng, "log", on_log, &log);
  ck_assert_str_eq(sim_engine_kind_name(eng, k), "log");
  sim_engine_schedule(eng, SIM_NS(5), k, 1);
  sim_engine_schedule(eng, SIM_NS(1), k, 2);
  sim_engine_schedule(eng, SIM_NS(5), k, 3);
  sim_engine_schedule(eng, 0, k, 4);
  sim_engine_schedule_in(eng, SIM_NS(5), k, 5);
  ck_assert_uint_eq(sim_engine_pending(eng), 5);
  ck_assert_int_eq(sim_engine_run(eng), SIM_RUN_EMPTY);
  ck_assert_uint_eq(log.times->len, 5);
  ck_assert_uint_eq(LOG_D(&log, 0), 4);
  ck_assert_uint_eq(LOG_D(&log, 1), 2);
  ck_assert_uint_eq(LOG_D(&log, 2), 1);
  ck_assert_uint_eq(LOG_D(&log, 3), 3);
  ck_assert_uint_eq(LOG_D(&log, 4), 5);
  ck_assert_uint_eq(sim_engine_now(eng), SIM_NS(5));
  ck_assert_uint_eq(sim_engine_events_executed(eng), 5);
  ck_assert_uint_eq(sim_engine_pending(eng), 0);
  log_clear(&log);
}
END_TEST

/* A handler that schedules its successor: a chain of N hops, d ps apart,
 * plus a same-time event that must run after the one scheduling it. */
typedef struct {
  SimKind chain, tie;
  Log log;
} Chain;

static void on_chain(SimEngine *eng, void *ctx, guint64 data)
{
  Chain *c = ctx;
  on_log(eng, &c->log, data);
  if (data > 0) {
    sim_engine_schedule_in(eng, 0, c->tie, data + 1000);
    sim_engine_schedule_in(eng, 250, c->chain, data - 1);
  }
}

static void on_tie(SimEngine *eng, void *ctx, guint64 data)
{
  on_log(eng, &((Chain *)ctx)->log, data);
}

START_TEST(test_handlers_schedule)
{
  g_autoptr(SimEngine) eng = sim_engine_new();
  Chain c;

  log_init(&c.log);
  c.chain = sim_engine_register(eng, "chain", on_chain, &c);
  c.tie = sim_engine_register(eng, "tie", on_tie, &c);
  sim_engine_schedule(eng, 100, c.chain, 10);
  sim_engine_run(eng);
  ck_assert_uint_eq(c.log.times->len, 21);
  for (guint i = 0; i < 20; i += 2) {
    ck_assert_uint_eq(LOG_T(&c.log, i), 100 + 250 * (i / 2));
    ck_assert_uint_eq(LOG_T(&c.log, i + 1), LOG_T(&c.log, i));
    ck_assert_uint_eq(LOG_D(&c.log, i + 1), LOG_D(&c.log, i) + 1000);
  }
  ck_assert_uint_eq(sim_engine_now(eng), 100 + 250 * 10);
  log_clear(&c.log);
}
END_TEST

START_TEST(test_cancel)
{
  g_autoptr(SimEngine) eng = sim_engine_new();
  Log log;
  SimKind k;
  SimEventId a, b, c;

  log_init(&log);
  k = sim_engine_register(eng, "log", on_log, &log);
  a = sim_engine_schedule_cancellable(eng, 10, k, 1);
  b = sim_engine_schedule_cancellable(eng, 20, k, 2);
  c = sim_engine_schedule_cancellable(eng, 30, k, 3);
  ck_assert(a != SIM_EVENT_ID_NONE && a != b && b != c);
  ck_assert(!sim_engine_cancel(eng, SIM_EVENT_ID_NONE));
  ck_assert(!sim_engine_cancel(eng, (SimEventId)1 << 40)); /* no such slot */
  ck_assert(sim_engine_cancel(eng, b));
  ck_assert(!sim_engine_cancel(eng, b)); /* twice */
  ck_assert_uint_eq(sim_engine_pending(eng), 2);
  ck_assert_int_eq(sim_engine_run_until(eng, 15), SIM_RUN_LIMIT);
  ck_assert(!sim_engine_cancel(eng, a)); /* already ran */
  ck_assert_int_eq(sim_engine_run(eng), SIM_RUN_EMPTY);
  ck_assert_uint_eq(log.times->len, 2);
  ck_assert_uint_eq(LOG_D(&log, 0), 1);
  ck_assert_uint_eq(LOG_D(&log, 1), 3);
  ck_assert_uint_eq(sim_engine_events_executed(eng), 2);
  /* Handles are reused with a new generation: old ids stay dead. */
  {
    SimEventId d = sim_engine_schedule_cancellable(eng, 40, k, 4);
    ck_assert(d != a && d != b && d != c);
    ck_assert(!sim_engine_cancel(eng, a));
    ck_assert(!sim_engine_cancel(eng, b));
    ck_assert(!sim_engine_cancel(eng, c));
    ck_assert(sim_engine_cancel(eng, d));
  }
  ck_assert_int_eq(sim_engine_run(eng), SIM_RUN_EMPTY);
  ck_assert_uint_eq(log.times->len, 2);
  log_clear(&log);
}
END_TEST

/* Flow-style rescheduling: every event is cancelled and rescheduled many
 * times.  Compaction must keep memory near the live set, and the survivors
 * must run in order. */
START_TEST(test_cancel_compaction_bounds_memory)
{
  enum { FLOWS = 5000, ROUNDS = 40 };
  g_autoptr(SimEngine) eng = sim_engine_new();
  SimEventId *ids = g_new(SimEventId, FLOWS);
  Log log;
  SimKind k;
  SimRng rng;
  SimEngineStats st;

  log_init(&log);
  sim_rng_init(&rng, 99, 0);
  k = sim_engine_register(eng, "flow-done", on_log, &log);
  for (guint64 f = 0; f < FLOWS; f++)
    ids[f] = sim_engine_schedule_cancellable(
        eng, SIM_US(1) + sim_rng_below(&rng, SIM_US(1000)), k, f);
  for (int r = 0; r < ROUNDS; r++) {
    for (guint64 f = 0; f < FLOWS; f++) {
      ck_assert(sim_engine_cancel(eng, ids[f]));
      ids[f] = sim_engine_schedule_cancellable(
          eng, SIM_US(1) + sim_rng_below(&rng, SIM_US(1000)), k, f);
    }
  }
  sim_engine_stats(eng, &st);
  ck_assert_uint_eq(sim_engine_pending(eng), FLOWS);
  ck_assert_uint_gt(st.compactions, 0);
  ck_assert_uint_le(st.queued_entries, 2 * FLOWS + 4096);
  ck_assert_uint_le(st.handles_created, 2 * FLOWS + 4096 + 1);
  sim_engine_run(eng);
  ck_assert_uint_eq(log.times->len, FLOWS);
  for (guint i = 1; i < log.times->len; i++)
    ck_assert_uint_le(LOG_T(&log, i - 1), LOG_T(&log, i));
  sim_engine_stats(eng, &st);
  ck_assert_uint_eq(st.queued_entries, 0);
  ck_assert_uint_eq(st.cancelled_queued, 0);
  ck_assert_uint_eq(st.handles_in_use, 0);
  ck_assert_uint_eq(st.blocks_in_use, 0);
  log_clear(&log);
  g_free(ids);
}
END_TEST

START_TEST(test_run_until)
{
  g_autoptr(SimEngine) eng = sim_engine_new();
  Log log;
  SimKind k;
  SimTime next;

  log_init(&log);
  k = sim_engine_register(eng, "log", on_log, &log);
  sim_engine_schedule(eng, 100, k, 1);
  sim_engine_schedule(eng, 200, k, 2);
  sim_engine_schedule(eng, 300, k, 3);
  ck_assert_int_eq(sim_engine_run_until(eng, 200), SIM_RUN_LIMIT);
  ck_assert_uint_eq(log.times->len, 2); /* inclusive limit */
  ck_assert_uint_eq(sim_engine_now(eng), 200);
  ck_assert(sim_engine_next_time(eng, &next));
  ck_assert_uint_eq(next, 300);
  ck_assert_int_eq(sim_engine_run_until(eng, 250), SIM_RUN_LIMIT);
  ck_assert_uint_eq(sim_engine_now(eng), 250);
  sim_engine_schedule(eng, 250, k, 4); /* at the new now */
  sim_engine_schedule(eng, 260, k, 5);
  ck_assert_int_eq(sim_engine_run_until(eng, 1000), SIM_RUN_EMPTY);
  ck_assert_uint_eq(sim_engine_now(eng), 1000);
  ck_assert_uint_eq(log.times->len, 5);
  ck_assert_uint_eq(LOG_D(&log, 2), 4);
  ck_assert_uint_eq(LOG_D(&log, 3), 5);
  ck_assert_uint_eq(LOG_D(&log, 4), 3);
  ck_assert(!sim_engine_next_time(eng, &next));
  log_clear(&log);
}
END_TEST

static void on_stop(SimEngine *eng, void *ctx, guint64 data)
{
  on_log(eng, ctx, data);
  if (data == 2)
    sim_engine_stop(eng);
}

START_TEST(test_stop)
{
  g_autoptr(SimEngine) eng = sim_engine_new();
  Log log;
  SimKind k;

  log_init(&log);
  k = sim_engine_register(eng, "stop", on_stop, &log);
  for (guint64 i = 1; i <= 4; i++)
    sim_engine_schedule(eng, i * 10, k, i);
  ck_assert_int_eq(sim_engine_run(eng), SIM_RUN_STOPPED);
  ck_assert_uint_eq(log.times->len, 2);
  ck_assert_uint_eq(sim_engine_now(eng), 20);
  ck_assert_int_eq(sim_engine_run_until(eng, 100), SIM_RUN_EMPTY);
  ck_assert_uint_eq(log.times->len, 4);
  sim_engine_stop(eng); /* outside a run: the next run returns at once */
  sim_engine_schedule(eng, 200, k, 9);
  ck_assert_int_eq(sim_engine_run(eng), SIM_RUN_STOPPED);
  ck_assert_uint_eq(log.times->len, 4);
  ck_assert_int_eq(sim_engine_run(eng), SIM_RUN_EMPTY);
  ck_assert_uint_eq(log.times->len, 5);
  log_clear(&log);
}
END_TEST

/* An event past the horizon ends the run (SIM_RUN_OVERFLOW) instead of
 * wrapping the clock; so does a delay that would reach past it. */
START_TEST(test_horizon_overflow)
{
  g_autoptr(SimEngine) eng = sim_engine_new();
  Log log;
  SimKind k;

  log_init(&log);
  k = sim_engine_register(eng, "log", on_log, &log);
  sim_engine_schedule(eng, 10, k, 1);
  sim_engine_schedule(eng, SIM_TIME_HORIZON + 1, k, 2);
  ck_assert_int_eq(sim_engine_run(eng), SIM_RUN_OVERFLOW);
  ck_assert_uint_eq(log.times->len, 0);
  log_clear(&log);
  {
    g_autoptr(SimEngine) e2 = sim_engine_new();
    Log l2;
    SimKind k2;

    log_init(&l2);
    k2 = sim_engine_register(e2, "log", on_log, &l2);
    sim_engine_schedule(e2, SIM_TIME_HORIZON - 5, k2, 1);
    ck_assert_int_eq(sim_engine_run(e2), SIM_RUN_EMPTY);
    sim_engine_schedule_in(e2, 6, k2, 2);
    ck_assert_int_eq(sim_engine_run(e2), SIM_RUN_OVERFLOW);
    sim_engine_schedule_in(e2, G_MAXUINT64, k2, 3); /* no wrap either */
    ck_assert_int_eq(sim_engine_run(e2), SIM_RUN_OVERFLOW);
    ck_assert_uint_eq(l2.times->len, 1);
    log_clear(&l2);
  }
}
END_TEST

START_TEST(test_schedule_in_past_aborts)
{
  SimEngine *eng = sim_engine_new();
  Log log;
  SimKind k;

  log_init(&log);
  k = sim_engine_register(eng, "log", on_log, &log);
  sim_engine_schedule(eng, 100, k, 1);
  sim_engine_run(eng);
  sim_engine_schedule(eng, 99, k, 2); /* a bug: must abort */
}
END_TEST

/* Random handlers scheduling random successors; two engines with the same
 * seed must produce the same trace, a different seed a different one. */
typedef struct {
  SimRng rng;
  SimKind kind;
  Log log;
  guint64 budget;
} Random;

static void on_random(SimEngine *eng, void *ctx, guint64 data)
{
  Random *r = ctx;
  on_log(eng, &r->log, data);
  for (guint64 n = sim_rng_below(&r->rng, 3); n > 0 && r->budget > 0; n--) {
    r->budget--;
    sim_engine_schedule_in(eng, sim_rng_below(&r->rng, 4) * 1000, r->kind,
                           sim_rng_next(&r->rng));
  }
}

static void random_run(guint64 seed, Log *out)
{
  g_autoptr(SimEngine) eng = sim_engine_new();
  Random r = {.budget = 50000};

  sim_rng_init(&r.rng, seed, 0);
  log_init(&r.log);
  r.kind = sim_engine_register(eng, "random", on_random, &r);
  for (int i = 0; i < 100; i++)
    sim_engine_schedule(eng, sim_rng_below(&r.rng, 10000), r.kind, (guint64)i);
  sim_engine_run(eng);
  *out = r.log;
}

START_TEST(test_determinism)
{
  Log a, b, c;

  random_run(1, &a);
  random_run(1, &b);
  random_run(2, &c);
  ck_assert_uint_gt(a.times->len, 1000);
  ck_assert_uint_eq(a.times->len, b.times->len);
  ck_assert_mem_eq(a.times->data, b.times->data,
                   a.times->len * sizeof(SimTime));
  ck_assert_mem_eq(a.data->data, b.data->data, a.data->len * sizeof(guint64));
  ck_assert(a.times->len != c.times->len ||
            memcmp(a.data->data, c.data->data, a.data->len * sizeof(guint64)) !=
                0);
  log_clear(&a);
  log_clear(&b);
  log_clear(&c);
}
END_TEST

Suite *suite_engine(void)
{
  Suite *s = suite_create("engine");
  TCase *tc = tcase_create("core");

  tcase_add_test(tc, test_order_and_fifo_ties);
  tcase_add_test(tc, test_handlers_schedule);
  tcase_add_test(tc, test_cancel);
  tcase_add_test(tc, test_cancel_compaction_bounds_memory);
  tcase_add_test(tc, test_run_until);
  tcase_add_test(tc, test_stop);
  tcase_add_test_raise_signal(tc, test_schedule_in_past_aborts, SIGABRT);
  tcase_add_test(tc, test_horizon_overflow);
  tcase_add_test(tc, test_determinism);
  tcase_set_timeout(tc, 120);
  suite_add_tcase(s, tc);
  return s;
}
