/* Tests of sim/pool: reuse, pointer stability, zero-filled fresh items. */
#include <string.h>

#include "sim/pool.h"
#include "tests/suites.h"

typedef struct {
  guint32 link; /* overwritten while free */
  guint32 tag;
  guint64 payload;
} Item;

START_TEST(test_lifo_reuse)
{
  SimPool pool;
  guint32 a, b, c;

  sim_pool_init(&pool, sizeof(Item), 2);
  a = sim_pool_alloc(&pool);
  b = sim_pool_alloc(&pool);
  ck_assert_uint_eq(a, 0);
  ck_assert_uint_eq(b, 1);
  sim_pool_free(&pool, a);
  sim_pool_free(&pool, b);
  c = sim_pool_alloc(&pool);
  ck_assert_uint_eq(c, b); /* last freed, first reused */
  ck_assert_uint_eq(sim_pool_alloc(&pool), a);
  ck_assert_uint_eq(sim_pool_alloc(&pool), 2);
  ck_assert_uint_eq(pool.in_use, 3);
  ck_assert_uint_eq(pool.created, 3);
  /* The same through sim_pool_free_item, given the item. */
  sim_pool_free_item(&pool, a, sim_pool_at(&pool, a));
  sim_pool_free_item(&pool, 2, sim_pool_at(&pool, 2));
  ck_assert_uint_eq(pool.in_use, 1);
  ck_assert_uint_eq(sim_pool_alloc(&pool), 2);
  ck_assert_uint_eq(sim_pool_alloc(&pool), a);
  ck_assert_uint_eq(pool.created, 3);
  sim_pool_clear(&pool);
  ck_assert_uint_eq(pool.created, 0);
}
END_TEST

START_TEST(test_growth_keeps_pointers_and_zero_fills)
{
  SimPool pool;
  Item *first;
  guint32 idx[1000];

  sim_pool_init(&pool, sizeof(Item), 3); /* chunks of 8 */
  idx[0] = sim_pool_alloc(&pool);
  first = sim_pool_at(&pool, idx[0]);
  ck_assert_uint_eq(first->tag, 0);
  ck_assert_uint_eq(first->payload, 0);
  first->payload = 0xfeedULL;
  for (int i = 1; i < 1000; i++) {
    Item *it;
    idx[i] = sim_pool_alloc(&pool);
    it = sim_pool_at(&pool, idx[i]);
    ck_assert_uint_eq(it->payload, 0); /* never used: zero */
    it->payload = (guint64)i;
  }
  ck_assert_ptr_eq(sim_pool_at(&pool, idx[0]), first);
  ck_assert_uint_eq(first->payload, 0xfeedULL);
  for (int i = 1; i < 1000; i++)
    ck_assert_uint_eq(((Item *)sim_pool_at(&pool, idx[i]))->payload,
                      (guint64)i);
  ck_assert_uint_eq(sim_pool_reserved_bytes(&pool), 1000 * sizeof(Item));
  /* A reused item keeps its bytes beyond the free-list link. */
  sim_pool_free(&pool, idx[5]);
  ck_assert_uint_eq(sim_pool_alloc(&pool), idx[5]);
  ck_assert_uint_eq(((Item *)sim_pool_at(&pool, idx[5]))->payload, 5);
  sim_pool_clear(&pool);
}
END_TEST

/* The fixed-size lookups agree with the pool's own, across chunks, and
 * the fixed-size alloc takes the free list as sim_pool_alloc does. */
START_TEST(test_fixed_lookup)
{
  SimPool pool;
  guint32 idx[40];

  sim_pool_init_aligned(&pool, 64, 3, 64); /* chunks of 8 */
  for (int i = 0; i < 40; i++) {
    idx[i] = sim_pool_alloc_fixed(&pool, 64, 3);
    ck_assert_uint_eq(idx[i], (guint32)i);
    ck_assert_ptr_eq(sim_pool_at_fixed(&pool, idx[i], 64, 3),
                     sim_pool_at(&pool, idx[i]));
    ((Item *)sim_pool_at_fixed(&pool, idx[i], 64, 3))->payload = (guint64)i;
  }
  for (int i = 0; i < 40; i++)
    ck_assert_uint_eq(((Item *)sim_pool_at(&pool, idx[i]))->payload,
                      (guint64)i);
  sim_pool_free(&pool, idx[17]);
  sim_pool_free(&pool, idx[9]);
  ck_assert_uint_eq(sim_pool_alloc_fixed(&pool, 64, 3), idx[9]);
  ck_assert_uint_eq(sim_pool_alloc_fixed(&pool, 64, 3), idx[17]);
  ck_assert_uint_eq(sim_pool_alloc_fixed(&pool, 64, 3), 40);
  ck_assert_uint_eq(pool.in_use, 41);
  sim_pool_clear(&pool);
}
END_TEST

START_TEST(test_steady_state_is_bounded)
{
  SimPool pool;
  guint32 live[64];

  sim_pool_init(&pool, 12, 4); /* item size rounds up to 16 */
  ck_assert_uint_eq(pool.item_size, 16);
  for (int i = 0; i < 64; i++)
    live[i] = sim_pool_alloc(&pool);
  for (int round = 0; round < 100000; round++) {
    int k = (round * 7919) % 64;
    sim_pool_free(&pool, live[k]);
    live[k] = sim_pool_alloc(&pool);
  }
  ck_assert_uint_eq(pool.in_use, 64);
  ck_assert_uint_eq(pool.created, 64);
  sim_pool_clear(&pool);
}
END_TEST

Suite *suite_pool(void)
{
  Suite *s = suite_create("pool");
  TCase *tc = tcase_create("core");

  tcase_add_test(tc, test_lifo_reuse);
  tcase_add_test(tc, test_growth_keeps_pointers_and_zero_fills);
  tcase_add_test(tc, test_steady_state_is_bounded);
  tcase_add_test(tc, test_fixed_lookup);
  suite_add_tcase(s, tc);
  return s;
}
