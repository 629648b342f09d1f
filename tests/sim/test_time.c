/* Tests of sim/time: conversions, exact formatting, parsing, round trips. */
#include <math.h>
#include <string.h>

#include "sim/error.h"
#include "sim/rng.h"
#include "sim/time.h"
#include "tests/suites.h"

static void check_format(SimTime t, const char *want)
{
  char buf[SIM_TIME_FORMAT_LEN];
  ck_assert_str_eq(sim_time_format(t, buf), want);
}

START_TEST(test_format_known)
{
  check_format(0, "0 ps");
  check_format(999, "999 ps");
  check_format(1000, "1 ns");
  check_format(1500, "1.5 ns");
  check_format(1234567, "1.234567 us");
  check_format(SIM_MS(3), "3 ms");
  check_format(SIM_S(2) + 1, "2.000000000001 s");
  check_format(SIM_TIME_MAX, "18446744.073709551615 s");
}
END_TEST

START_TEST(test_parse_known)
{
  SimTime t = 0;
  g_autoptr(GError) error = NULL;

  ck_assert(sim_time_parse("1.5us", &t, &error));
  ck_assert_uint_eq(t, 1500000);
  ck_assert(sim_time_parse(" 200 ns", &t, &error));
  ck_assert_uint_eq(t, 200000);
  ck_assert(sim_time_parse("3s", &t, &error));
  ck_assert_uint_eq(t, SIM_S(3));
  ck_assert(sim_time_parse("0.001ps", &t, &error) == FALSE);
  ck_assert_int_eq(error->code, SIM_ERROR_PARSE);
  ck_assert(strstr(error->message, "1 ps resolution") != NULL);
  g_clear_error(&error);
  ck_assert(sim_time_parse("2.500000000000000s", &t, &error));
  ck_assert_uint_eq(t, SIM_MS(2500));
  ck_assert(sim_time_parse("18446744.073709551615 s", &t, &error));
  ck_assert_uint_eq(t, SIM_TIME_MAX);
}
END_TEST

START_TEST(test_parse_errors)
{
  const char *bad[] = {"",      "us",    "1",     "1.5",    "-1us",
                       "1 min", "1e3ns", "1.us2", "0x10ns", "1..2ns"};
  SimTime t = 7;

  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_autoptr(GError) error = NULL;
    ck_assert_msg(!sim_time_parse(bad[i], &t, &error), "accepted '%s'", bad[i]);
    ck_assert_int_eq(error->code, SIM_ERROR_PARSE);
    ck_assert(strstr(error->message, bad[i]) != NULL);
  }
  {
    g_autoptr(GError) error = NULL;
    ck_assert(!sim_time_parse("18446744.073709551616 s", &t, &error));
    ck_assert_int_eq(error->code, SIM_ERROR_RANGE);
  }
  {
    g_autoptr(GError) error = NULL;
    ck_assert(!sim_time_parse("99999999999999999999999 ps", &t, &error));
    ck_assert_int_eq(error->code, SIM_ERROR_RANGE);
  }
  ck_assert_uint_eq(t, 7); /* never written on failure */
}
END_TEST

START_TEST(test_round_trip)
{
  SimRng rng;
  char buf[SIM_TIME_FORMAT_LEN];

  sim_rng_init(&rng, 1, 0);
  for (int i = 0; i < 100000; i++) {
    /* Spread over all magnitudes: random bits shifted by a random amount. */
    SimTime t = sim_rng_next(&rng) >> sim_rng_below(&rng, 64);
    SimTime back = 0;
    g_autoptr(GError) error = NULL;
    ck_assert_msg(sim_time_parse(sim_time_format(t, buf), &back, &error),
                  "%s: %s", buf, error ? error->message : "");
    ck_assert_uint_eq(back, t);
  }
}
END_TEST

START_TEST(test_float_conversions)
{
  SimTime t = 5;

  ck_assert(sim_time_from_ns(1.5, &t));
  ck_assert_uint_eq(t, 1500);
  ck_assert(sim_time_from_us(0.0000016, &t)); /* 1.6 ps rounds to 2 */
  ck_assert_uint_eq(t, 2);
  ck_assert(sim_time_from_s(1e-12, &t));
  ck_assert_uint_eq(t, 1);
  ck_assert(!sim_time_from_ns(-1.0, &t));
  ck_assert(!sim_time_from_ns(NAN, &t));
  ck_assert(!sim_time_from_s(1e8, &t)); /* beyond 213 days */
  ck_assert(!sim_time_from_s(INFINITY, &t));
  ck_assert_uint_eq(t, 1);
  ck_assert_double_eq_tol(sim_time_to_us(SIM_NS(1500)), 1.5, 1e-12);
  ck_assert_double_eq_tol(sim_time_to_ns(SIM_US(2)), 2000.0, 1e-9);
  ck_assert_double_eq_tol(sim_time_to_s(SIM_MS(250)), 0.25, 1e-15);
}
END_TEST

Suite *suite_time(void)
{
  Suite *s = suite_create("time");
  TCase *tc = tcase_create("core");

  tcase_add_test(tc, test_format_known);
  tcase_add_test(tc, test_parse_known);
  tcase_add_test(tc, test_parse_errors);
  tcase_add_test(tc, test_round_trip);
  tcase_add_test(tc, test_float_conversions);
  tcase_set_timeout(tc, 60);
  suite_add_tcase(s, tc);
  return s;
}
