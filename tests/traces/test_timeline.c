/* Tests of traces/timeline: the exact text of a tiny trace, JSON that
 * json-glib reads back, escaping of odd names, overflow tracks that keep
 * random overlapping slices well nested (checked by trc_timeline_check,
 * which is itself tested on a trace that is not), and determinism. */
#include <json-glib/json-glib.h>
#include <string.h>

#include "sim/rng.h"
#include "traces/timeline.h"
#include "tests/suites.h"

START_TEST(test_exact_tiny)
{
  g_autoptr(TrcTimeline) tl = trc_timeline_new();
  g_autofree char *json = NULL;
  guint pids = 0;
  g_autoptr(GError) error = NULL;

  trc_timeline_process(tl, 1, "rank 1", 1);
  trc_timeline_thread(tl, 1, 3, "channel 3");
  trc_timeline_slice(tl, 1, 3, "send", "xfer", SIM_US(1), SIM_US(2) + 5,
                     "{\"bytes\":8}");
  trc_timeline_counter(tl, 9, "link", 1500000, 0.25);
  trc_timeline_other(tl, "command", "ifsim run");
  ck_assert_uint_eq(trc_timeline_n_events(tl), 5);
  json = trc_timeline_json(tl);
  ck_assert_str_eq(
      json,
      "{\"traceEvents\":[\n"
      "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,"
      "\"args\":{\"name\":\"rank 1\"}},\n"
      "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":1,\"tid\":0,"
      "\"args\":{\"sort_index\":1}},\n"
      "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":3,"
      "\"args\":{\"name\":\"channel 3\"}},\n"
      "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":1,\"tid\":3,"
      "\"args\":{\"sort_index\":0}},\n"
      "{\"ph\":\"X\",\"name\":\"send\",\"cat\":\"xfer\",\"pid\":1,"
      "\"tid\":3,\"ts\":1.000000,\"dur\":1.000005,\"args\":{\"bytes\":8}},\n"
      "{\"ph\":\"C\",\"name\":\"link\",\"pid\":9,\"ts\":1.500000,"
      "\"args\":{\"value\":0.25}}\n"
      "],\"displayTimeUnit\":\"ns\",\"otherData\":{\"command\":\"ifsim "
      "run\"}}\n");
  ck_assert(trc_timeline_check(json, &pids, &error));
  ck_assert_uint_eq(pids, 1);
}
END_TEST

START_TEST(test_empty)
{
  g_autoptr(TrcTimeline) tl = trc_timeline_new();
  g_autofree char *json = trc_timeline_json(tl);
  guint pids = 7;

  ck_assert_str_eq(json, "{\"traceEvents\":[\n],\"displayTimeUnit\":"
                         "\"ns\",\"otherData\":{}}\n");
  ck_assert(trc_timeline_check(json, &pids, NULL));
  ck_assert_uint_eq(pids, 0);
}
END_TEST

/* Quotes, backslashes, control characters and bad UTF-8 read back as the
 * (valid) names they were. */
START_TEST(test_escaping)
{
  static const char *const odd[] = {
      "a \"quoted\" name", "back\\slash",           "tab\there\nnewline",
      "bell\x07 del\x7f",  "bad utf8 \xff\xfe end", "\xe2\x86\x92 arrow"};
  g_autoptr(TrcTimeline) tl = trc_timeline_new();
  g_autofree char *json = NULL;
  g_autoptr(JsonParser) p = json_parser_new();
  g_autoptr(GError) error = NULL;
  JsonArray *ev;

  for (guint i = 0; i < G_N_ELEMENTS(odd); i++)
    trc_timeline_slice(tl, 0, i, odd[i], odd[i], i, i + 1, NULL);
  trc_timeline_other(tl, odd[0], odd[2]);
  json = trc_timeline_json(tl);
  ck_assert_msg(json_parser_load_from_data(p, json, -1, &error), "%s",
                error ? error->message : "");
  ev = json_object_get_array_member(
      json_node_get_object(json_parser_get_root(p)), "traceEvents");
  ck_assert_uint_eq(json_array_get_length(ev), G_N_ELEMENTS(odd));
  for (guint i = 0; i < G_N_ELEMENTS(odd); i++) {
    JsonObject *o = json_array_get_object_element(ev, i);
    g_autofree char *want = g_utf8_make_valid(odd[i], -1);

    ck_assert_str_eq(json_object_get_string_member(o, "name"), want);
    ck_assert_str_eq(json_object_get_string_member(o, "cat"), want);
  }
  ck_assert(strstr(json, "\\u0007") != NULL);
  ck_assert(strstr(json, "\xef\xbf\xbd") != NULL); /* U+FFFD */
}
END_TEST

/* The checker refuses partial overlap on one track, bad JSON and an
 * event without numbers; accepts nested and disjoint slices. */
START_TEST(test_checker)
{
  g_autoptr(GError) error = NULL;
  const char *nested =
      "{\"traceEvents\":["
      "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10},"
      "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":8},"
      "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":1},"
      "{\"ph\":\"X\",\"pid\":2,\"tid\":1,\"ts\":5,\"dur\":9}]}";
  const char *overlap =
      "{\"traceEvents\":["
      "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10},"
      "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":0.5,\"dur\":20},"
      "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":9.999999,\"dur\":0.000002}]}";
  guint pids = 0;

  ck_assert(trc_timeline_check(nested, &pids, &error));
  ck_assert_uint_eq(pids, 2);
  ck_assert(!trc_timeline_check(overlap, NULL, &error));
  ck_assert_str_eq(error->message, "traceEvents[2] (pid 1, tid 1) overlaps "
                                   "traceEvents[0] without nesting in it");
  g_clear_error(&error);
  ck_assert(!trc_timeline_check("{\"traceEvents\":[", NULL, &error));
  g_clear_error(&error);
  ck_assert(!trc_timeline_check("[]", NULL, &error));
  g_clear_error(&error);
  ck_assert(!trc_timeline_check(
      "{\"traceEvents\":[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":\"0\","
      "\"dur\":1}]}",
      NULL, &error));
  ck_assert(strstr(error->message, "traceEvents[0]") != NULL);
}
END_TEST

/* Thousands of random, partially overlapping slices on a few threads come
 * out well nested, with overflow tracks named after their thread, every
 * slice kept, and the same text for the same slices added in another
 * order. */
START_TEST(test_random_nesting)
{
  g_autoptr(TrcTimeline) a = trc_timeline_new();
  g_autoptr(TrcTimeline) b = trc_timeline_new();
  g_autofree char *ja = NULL, *jb = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) sl = g_array_new(FALSE, FALSE, sizeof(SimTime) * 3);
  SimRng rng;
  guint pids = 0;
  const guint n = 3000;

  sim_rng_init(&rng, 42, 0);
  trc_timeline_thread(a, 0, 0, "ch 0");
  trc_timeline_thread(b, 0, 0, "ch 0");
  for (guint i = 0; i < n; i++) {
    SimTime v[3];
    v[0] = sim_rng_below(&rng, 4);            /* tid */
    v[1] = sim_rng_below(&rng, 1000000);      /* start, ps */
    v[2] = v[1] + sim_rng_below(&rng, 50000); /* end */
    g_array_append_val(sl, v);
  }
  for (guint i = 0; i < n; i++) {
    const SimTime *v = &g_array_index(sl, SimTime, 3 * i);
    const SimTime *w = &g_array_index(sl, SimTime, 3 * (n - 1 - i));
    trc_timeline_slice(a, 7, (guint32)v[0], "x", NULL, v[1], v[2], NULL);
    trc_timeline_slice(b, 7, (guint32)w[0], "x", NULL, w[1], w[2], NULL);
  }
  trc_timeline_thread(a, 7, 0, "ch 0");
  trc_timeline_thread(b, 7, 0, "ch 0");
  ja = trc_timeline_json(a);
  jb = trc_timeline_json(b);
  ck_assert_str_eq(ja, jb);
  ck_assert_msg(trc_timeline_check(ja, &pids, &error), "%s",
                error ? error->message : "");
  ck_assert_uint_eq(pids, 1);
  /* overflow tracks exist, are named, and tids past the threads' */
  ck_assert(strstr(ja, "\"name\":\"ch 0 #2\"") != NULL);
  ck_assert(strstr(ja, "\"name\":\"tid 3 #2\"") != NULL);
  ck_assert(strstr(ja, "\"pid\":7,\"tid\":4,") != NULL);
  /* every slice is there */
  {
    guint x = 0;
    for (const char *p = ja; (p = strstr(p, "\"ph\":\"X\"")); p++)
      x++;
    ck_assert_uint_eq(x, n);
  }
}
END_TEST

Suite *suite_timeline(void)
{
  Suite *s = suite_create("timeline");
  TCase *tc = tcase_create("timeline");

  tcase_add_test(tc, test_exact_tiny);
  tcase_add_test(tc, test_empty);
  tcase_add_test(tc, test_escaping);
  tcase_add_test(tc, test_checker);
  tcase_add_test(tc, test_random_nesting);
  suite_add_tcase(s, tc);
  return s;
}
