/* Tests of sim/queue: order by (time, insertion), limits, peek, compaction,
 * block reuse, against a reference that sorts (time, sequence) pairs. */
#include <stdlib.h>

#include "sim/queue.h"
#include "sim/rng.h"
#include "tests/suites.h"

typedef struct {
  SimTime time;
  guint64 seq;
} Ref;

static int ref_cmp(const void *pa, const void *pb)
{
  const Ref *a = pa, *b = pb;
  if (a->time != b->time)
    return a->time < b->time ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static void push(SimQueue *q, SimTime t, guint64 seq)
{
  SimQueueEntry e = {.time = t, .data = seq, .kind = 1, .tag = 2};
  sim_queue_push(q, &e);
}

/* Random times drawn from few distinct values (many ties) or from the
 * whole 64-bit range (every level of the radix queue). */
static SimTime draw_time(SimRng *rng, int mode)
{
  switch (mode) {
  case 0: return sim_rng_below(rng, 16);
  case 1: return sim_rng_below(rng, 100000);
  default: return sim_rng_next(rng) >> sim_rng_below(rng, 64);
  }
}

/* Pushes n entries with times from draw_time(mode), data = insertion
 * number; returns them sorted by (time, insertion), as pops must be. */
static Ref *fill_random(SimQueue *q, guint64 seed, int mode, guint64 n)
{
  Ref *ref = g_new(Ref, n);
  SimRng rng;

  sim_rng_init(&rng, seed, (guint64)mode);
  for (guint64 i = 0; i < n; i++) {
    ref[i] = (Ref){draw_time(&rng, mode), i};
    push(q, ref[i].time, i);
  }
  qsort(ref, n, sizeof *ref, ref_cmp);
  return ref;
}

START_TEST(test_random_inserts_pop_sorted)
{
  enum { N = 20000 };
  SimQueue q;
  SimQueueEntry e;
  Ref *ref;

  sim_queue_init(&q);
  ref = fill_random(&q, 7, _i, N);
  ck_assert_uint_eq(sim_queue_size(&q), N);
  for (guint64 i = 0; i < N; i++) {
    ck_assert(sim_queue_pop_until(&q, SIM_TIME_MAX, &e));
    ck_assert_uint_eq(e.time, ref[i].time);
    ck_assert_uint_eq(e.data, ref[i].seq); /* FIFO among equal times */
    ck_assert_uint_eq(e.kind, 1);
    ck_assert_uint_eq(e.tag, 2);
  }
  ck_assert(!sim_queue_pop_until(&q, SIM_TIME_MAX, &e));
  ck_assert_uint_eq(sim_queue_size(&q), 0);
  ck_assert_uint_eq(q.blocks.in_use, 0);
  sim_queue_clear(&q);
  g_free(ref);
}
END_TEST

/* Hold model with interleaved pushes: each pop pushes 0-2 entries at or
 * after the popped time; checked against a reference queue kept sorted. */
START_TEST(test_interleaved_against_reference)
{
  GArray *ref = g_array_new(FALSE, FALSE, sizeof(Ref));
  SimQueue q;
  SimRng rng;
  guint64 seq = 0;
  SimTime now = 0;

  sim_rng_init(&rng, 11, (guint64)_i);
  sim_queue_init(&q);
  for (int i = 0; i < 500; i++) {
    Ref r = {draw_time(&rng, _i), seq++};
    g_array_append_val(ref, r);
    push(&q, r.time, r.seq);
  }
  for (int step = 0; step < 50000 && ref->len > 0; step++) {
    SimQueueEntry e;
    Ref *min = NULL;
    guint min_at = 0;
    for (guint k = 0; k < ref->len; k++) {
      Ref *r = &g_array_index(ref, Ref, k);
      if (!min || ref_cmp(r, min) < 0) {
        min = r;
        min_at = k;
      }
    }
    ck_assert(sim_queue_pop_until(&q, SIM_TIME_MAX, &e));
    ck_assert_uint_eq(e.time, min->time);
    ck_assert_uint_eq(e.data, min->seq);
    now = e.time;
    g_array_remove_index_fast(ref, min_at);
    for (guint64 n = sim_rng_below(&rng, 3); n > 0; n--) {
      SimTime dt = _i == 0 ? sim_rng_below(&rng, 3)
                           : draw_time(&rng, _i) >> sim_rng_below(&rng, 8);
      Ref r = {dt <= SIM_TIME_MAX - now ? now + dt : SIM_TIME_MAX, seq++};
      g_array_append_val(ref, r);
      push(&q, r.time, r.seq);
    }
  }
  ck_assert_uint_eq(sim_queue_size(&q), ref->len);
  sim_queue_clear(&q);
  g_array_free(ref, TRUE);
}
END_TEST

START_TEST(test_extreme_times)
{
  SimQueue q;
  SimQueueEntry e;
  const SimTime times[] = {
      SIM_TIME_MAX, 0,   UINT64_C(1) << 56, (UINT64_C(1) << 56) - 1,
      255,          256, SIM_TIME_MAX,      0};
  const SimTime sorted[] = {0,
                            0,
                            255,
                            256,
                            (UINT64_C(1) << 56) - 1,
                            UINT64_C(1) << 56,
                            SIM_TIME_MAX,
                            SIM_TIME_MAX};
  const guint64 order[] = {1, 7, 4, 5, 3, 2, 0, 6};

  sim_queue_init(&q);
  for (guint64 i = 0; i < G_N_ELEMENTS(times); i++)
    push(&q, times[i], i);
  for (size_t i = 0; i < G_N_ELEMENTS(sorted); i++) {
    ck_assert(sim_queue_pop_until(&q, SIM_TIME_MAX, &e));
    ck_assert_uint_eq(e.time, sorted[i]);
    ck_assert_uint_eq(e.data, order[i]);
  }
  sim_queue_clear(&q);
}
END_TEST

START_TEST(test_pop_until_limit_and_peek)
{
  SimQueue q;
  SimQueueEntry e;
  SimTime t;

  sim_queue_init(&q);
  ck_assert(!sim_queue_peek_time(&q, &t));
  push(&q, 1000, 0);
  push(&q, 5000, 1);
  push(&q, 5000, 2);
  push(&q, 70000, 3);
  ck_assert(sim_queue_peek_time(&q, &t));
  ck_assert_uint_eq(t, 1000);
  ck_assert(!sim_queue_pop_until(&q, 999, &e));
  ck_assert_uint_eq(sim_queue_size(&q), 4);
  ck_assert(sim_queue_pop_until(&q, 1000, &e));
  ck_assert_uint_eq(e.data, 0);
  ck_assert(!sim_queue_pop_until(&q, 4999, &e));
  ck_assert(sim_queue_floor(&q) <= 4999);
  /* After a fruitless pop_until, pushes from its limit on are valid. */
  push(&q, 4999, 4);
  ck_assert(sim_queue_peek_time(&q, &t));
  ck_assert_uint_eq(t, 4999);
  ck_assert(sim_queue_pop_until(&q, 5000, &e));
  ck_assert_uint_eq(e.data, 4);
  ck_assert(sim_queue_pop_until(&q, 5000, &e));
  ck_assert_uint_eq(e.data, 1);
  ck_assert(sim_queue_pop_until(&q, 5000, &e));
  ck_assert_uint_eq(e.data, 2);
  ck_assert(!sim_queue_pop_until(&q, 69999, &e));
  ck_assert(sim_queue_peek_time(&q, &t));
  ck_assert_uint_eq(t, 70000);
  ck_assert(sim_queue_pop_until(&q, SIM_TIME_MAX, &e));
  ck_assert_uint_eq(e.data, 3);
  ck_assert_uint_eq(sim_queue_size(&q), 0);
  sim_queue_clear(&q);
}
END_TEST

/* Entries of one instant far ahead (a collective step's ends) share a
 * high-level bucket, which moves to level 0 whole: a limit below their
 * time leaves them all; pushes at that instant while they pop queue
 * after them; a later instant in another bucket follows. */
START_TEST(test_one_instant)
{
  enum { N = 100 }; /* more than two blocks of 42 */
  const SimTime t = (UINT64_C(5) << 20) + 1000;
  SimQueue q;
  SimQueueEntry e;
  guint64 seq = 0;

  sim_queue_init(&q);
  for (; seq < N; seq++)
    push(&q, t, seq);
  push(&q, t + (1 << 16), seq++);
  ck_assert(!sim_queue_pop_until(&q, t - 1, &e));
  ck_assert_uint_eq(sim_queue_size(&q), N + 1);
  ck_assert(sim_queue_floor(&q) <= t - 1);
  for (guint64 i = 0; i < N; i++) {
    ck_assert(sim_queue_pop_until(&q, t, &e));
    ck_assert_uint_eq(e.time, t);
    ck_assert_uint_eq(e.data, i);
    if (i == N / 2)
      push(&q, t, seq++);
  }
  ck_assert(sim_queue_pop_until(&q, t, &e));
  ck_assert_uint_eq(e.data, N + 1);
  ck_assert(!sim_queue_pop_until(&q, t + (1 << 16) - 1, &e));
  ck_assert(sim_queue_pop_until(&q, SIM_TIME_MAX, &e));
  ck_assert_uint_eq(e.time, t + (1 << 16));
  ck_assert_uint_eq(e.data, N);
  ck_assert_uint_eq(sim_queue_size(&q), 0);
  ck_assert_uint_eq(q.blocks.in_use, 0);
  sim_queue_clear(&q);
}
END_TEST

static gboolean keep_odd(const SimQueueEntry *e, void *ctx)
{
  guint64 *calls = ctx;
  (*calls)++;
  return (e->data & 1) != 0;
}

START_TEST(test_compact_keeps_order)
{
  enum { N = 30000 };
  SimQueue q;
  SimQueueEntry e;
  guint64 calls = 0, removed, kept = 0;
  guint32 blocks_before;
  Ref *ref;

  sim_queue_init(&q);
  ref = fill_random(&q, 3, _i, N);
  /* Pop a few first so level 0 holds partly consumed blocks. */
  for (int i = 0; i < 100; i++) {
    ck_assert(sim_queue_pop_until(&q, SIM_TIME_MAX, &e));
    ck_assert_uint_eq(e.data, ref[i].seq);
  }
  blocks_before = q.blocks.in_use;
  removed = sim_queue_compact(&q, keep_odd, &calls);
  ck_assert_uint_eq(calls, N - 100);
  ck_assert_uint_eq(removed + sim_queue_size(&q), N - 100);
  ck_assert(q.blocks.in_use < blocks_before);
  for (int i = 100; i < N; i++) {
    if ((ref[i].seq & 1) == 0)
      continue;
    ck_assert(sim_queue_pop_until(&q, SIM_TIME_MAX, &e));
    ck_assert_uint_eq(e.time, ref[i].time);
    ck_assert_uint_eq(e.data, ref[i].seq);
    kept++;
  }
  ck_assert_uint_eq(kept + removed, N - 100);
  ck_assert(!sim_queue_pop_until(&q, SIM_TIME_MAX, &e));
  ck_assert_uint_eq(q.blocks.in_use, 0);
  sim_queue_clear(&q);
  g_free(ref);
}
END_TEST

static gboolean keep_none(const SimQueueEntry *e, void *ctx)
{
  (void)e;
  (void)ctx;
  return FALSE;
}

START_TEST(test_compact_everything)
{
  SimQueue q;
  SimQueueEntry e;
  guint64 removed;

  sim_queue_init(&q);
  for (guint64 i = 0; i < 1000; i++)
    push(&q, i * 977, i);
  removed = sim_queue_compact(&q, keep_none, NULL);
  ck_assert_uint_eq(removed, 1000);
  ck_assert_uint_eq(sim_queue_size(&q), 0);
  ck_assert_uint_eq(q.blocks.in_use, 0);
  ck_assert(!sim_queue_pop_until(&q, SIM_TIME_MAX, &e));
  push(&q, 5, 1);
  ck_assert(sim_queue_pop_until(&q, SIM_TIME_MAX, &e));
  ck_assert_uint_eq(e.time, 5);
  sim_queue_clear(&q);
}
END_TEST

/* The hold model in steady state must recycle blocks, not grow. */
START_TEST(test_blocks_recycled)
{
  SimQueue q;
  SimRng rng;
  SimQueueEntry e;
  guint32 created_after_warmup;

  sim_rng_init(&rng, 5, 0);
  sim_queue_init(&q);
  for (guint64 i = 0; i < 10000; i++)
    push(&q, (SimTime)sim_rng_exponential(&rng, 1e6), i);
  for (int i = 0; i < 200000; i++) {
    ck_assert(sim_queue_pop_until(&q, SIM_TIME_MAX, &e));
    push(&q, e.time + (SimTime)sim_rng_exponential(&rng, 1e6), e.data);
  }
  created_after_warmup = q.blocks.created;
  for (int i = 0; i < 1000000; i++) {
    ck_assert(sim_queue_pop_until(&q, SIM_TIME_MAX, &e));
    push(&q, e.time + (SimTime)sim_rng_exponential(&rng, 1e6), e.data);
  }
  ck_assert_uint_eq(sim_queue_size(&q), 10000);
  /* Full blocks for 10000 entries, at most one partial block per bucket,
   * one block in flight during a redistribution. */
  ck_assert_uint_le(q.blocks.created, created_after_warmup + 64);
  ck_assert_uint_le(q.blocks.created,
                    10000 / 42 + SIM_QUEUE_LEVELS * SIM_QUEUE_BUCKETS + 1);
  sim_queue_clear(&q);
}
END_TEST

Suite *suite_queue(void)
{
  Suite *s = suite_create("queue");
  TCase *tc = tcase_create("order");

  tcase_add_loop_test(tc, test_random_inserts_pop_sorted, 0, 3);
  tcase_add_loop_test(tc, test_interleaved_against_reference, 0, 3);
  tcase_add_test(tc, test_extreme_times);
  tcase_add_test(tc, test_pop_until_limit_and_peek);
  tcase_add_test(tc, test_one_instant);
  tcase_set_timeout(tc, 120);
  suite_add_tcase(s, tc);
  tc = tcase_create("memory");
  tcase_add_loop_test(tc, test_compact_keeps_order, 0, 3);
  tcase_add_test(tc, test_compact_everything);
  tcase_add_test(tc, test_blocks_recycled);
  tcase_set_timeout(tc, 120);
  suite_add_tcase(s, tc);
  return s;
}
