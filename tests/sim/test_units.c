/* Tests of sim/units: nccl-tests style sizes. */
#include <string.h>

#include "sim/error.h"
#include "sim/units.h"
#include "tests/suites.h"

START_TEST(test_size_valid)
{
  static const struct {
    const char *text;
    guint64 bytes;
  } cases[] = {
      {"8", 8},
      {"0", 0},
      {"010", 10}, /* decimal, never octal */
      {"128K", 128 * 1024},
      {"128k", 128 * 1024},
      {"1M", 1 << 20},
      {"8G", UINT64_C(8) << 30},
      {"8GiB", UINT64_C(8) << 30},
      {"512KB", 512 * 1024},
      {"2T", UINT64_C(2) << 40},
      {"100B", 100},
      {" 64M ", UINT64_C(64) << 20},
      {"16777215T", UINT64_C(16777215) << 40},
      {"18446744073709551615", G_MAXUINT64},
  };

  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    guint64 v = 1;
    g_autoptr(GError) error = NULL;
    ck_assert_msg(sim_size_parse(cases[i].text, &v, &error), "%s: %s",
                  cases[i].text, error ? error->message : "");
    ck_assert_uint_eq(v, cases[i].bytes);
  }
}
END_TEST

START_TEST(test_size_invalid)
{
  static const char *const parse[] = {"",     "K",    "12X", "-1",
                                      "1.5G", "0x10", "8 G", "8GG",
                                      "8Gi",  "8iB",  "1e6", "+4"};
  static const char *const range[] = {"18446744073709551616", "16777216T",
                                      "99999999999999999999999"};

  for (size_t i = 0; i < G_N_ELEMENTS(parse); i++) {
    guint64 v = 3;
    g_autoptr(GError) error = NULL;
    ck_assert_msg(!sim_size_parse(parse[i], &v, &error), "accepted '%s'",
                  parse[i]);
    ck_assert_int_eq(error->code, SIM_ERROR_PARSE);
    ck_assert(strstr(error->message, "is not a size") != NULL);
    ck_assert_uint_eq(v, 3);
  }
  for (size_t i = 0; i < G_N_ELEMENTS(range); i++) {
    guint64 v = 3;
    g_autoptr(GError) error = NULL;
    ck_assert_msg(!sim_size_parse(range[i], &v, &error), "accepted '%s'",
                  range[i]);
    ck_assert_int_eq(error->code, SIM_ERROR_RANGE);
    ck_assert_uint_eq(v, 3);
  }
}
END_TEST

START_TEST(test_decimal)
{
  static const struct {
    const char *text;
    gboolean ok;
    double v;
  } cases[] = {
      {"12.5", TRUE, 12.5}, {" -3 ", TRUE, -3},      {"1e-6", TRUE, 1e-6},
      {".5", TRUE, 0.5},    {"0x10", FALSE, 0},      {"0x1p4", FALSE, 0},
      {"inf", FALSE, 0},    {"-Infinity", FALSE, 0}, {"nan", FALSE, 0},
      {"1e400", FALSE, 0},  {"", FALSE, 0},          {"  ", FALSE, 0},
      {"1.5x", FALSE, 0},   {"1 2", FALSE, 0},       {"1,5", FALSE, 0}};

  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    double v = 42;

    ck_assert_msg(sim_decimal_parse(cases[i].text, &v) == cases[i].ok, "'%s'",
                  cases[i].text);
    ck_assert_double_eq(v, cases[i].ok ? cases[i].v : 42);
  }
}
END_TEST

START_TEST(test_size_format)
{
  char buf[SIM_SIZE_FORMAT_LEN];

  ck_assert_str_eq(sim_size_format(0, buf), "0 B");
  ck_assert_str_eq(sim_size_format(1000, buf), "1000 B");
  ck_assert_str_eq(sim_size_format(1536 * 1024, buf), "1536 KiB");
  ck_assert_str_eq(sim_size_format(UINT64_C(8) << 30, buf), "8 GiB");
  ck_assert_str_eq(sim_size_format(UINT64_C(1) << 50, buf), "1024 TiB");
}
END_TEST

Suite *suite_units(void)
{
  Suite *s = suite_create("units");
  TCase *tc = tcase_create("size");

  tcase_add_test(tc, test_size_valid);
  tcase_add_test(tc, test_size_invalid);
  tcase_add_test(tc, test_size_format);
  tcase_add_test(tc, test_decimal);
  suite_add_tcase(s, tc);
  return s;
}
