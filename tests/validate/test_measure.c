/* The measurement format (validate/measure.h): what a probe writes reads
 * back the same, derived columns are filled, and a malformed file fails
 * with the file, the line and what was expected there. */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "tests/suites.h"
#include "validate/measure.h"

#define HEADER                                                                 \
  "probe,test,mode,src,dst,ranks,size_bytes,iterations,time_us_min,"           \
  "time_us_median,time_us_max,bw_GBps,busbw_GBps\n"

START_TEST(test_roundtrip)
{
  g_autoptr(ValMeasurements) m = val_meas_new();
  g_autoptr(ValMeasurements) back = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  double us[] = {21.5, 20.0, 20.5, 30.0, 20.25};
  ValPoint p = {.probe = VAL_PROBE_HOSTDEV,
                .size_bytes = 1048576,
                .iterations = 5};
  ValPoint q = {.probe = VAL_PROBE_P2P,
                .size_bytes = 4096,
                .time_us_median = 2.0};

  val_meas_set(m, "gpu", "NVIDIA H200");
  val_meas_set(m, "driver", "570.86\n.15"); /* a line break is flattened */
  val_meas_set(m, "gpu", "NVIDIA H200 141GB HBM3e");
  g_strlcpy(p.test, "h2d", sizeof(p.test));
  g_strlcpy(p.mode, "pinned", sizeof(p.mode));
  g_strlcpy(p.src, "host", sizeof(p.src));
  g_strlcpy(p.dst, "gpu0", sizeof(p.dst));
  val_point_set_times(&p, us, G_N_ELEMENTS(us));
  ck_assert_double_eq(p.time_us_min, 20.0);
  ck_assert_double_eq(p.time_us_median, 20.5);
  ck_assert_double_eq(p.time_us_max, 30.0);
  val_meas_add(m, &p);
  /* A bidirectional test moves its size both ways. */
  g_strlcpy(q.test, "ce_bidir", sizeof(q.test));
  g_strlcpy(q.mode, "peer", sizeof(q.mode));
  g_strlcpy(q.src, "gpu0", sizeof(q.src));
  g_strlcpy(q.dst, "gpu1, quoted", sizeof(q.dst));
  val_meas_add(m, &q);

  text = val_meas_csv(m);
  ck_assert(g_str_has_prefix(text, VAL_MEAS_MAGIC "\n# gpu = NVIDIA H200 "
                                                  "141GB HBM3e\n# driver = "
                                                  "570.86 .15\n" HEADER));
  ck_assert_ptr_nonnull(strstr(text, "\"gpu1, quoted\""));
  back = val_meas_parse("t.csv", text, strlen(text), &error);
  ck_assert_msg(back != NULL, "%s", error ? error->message : "");
  ck_assert_str_eq(val_meas_get(back, "gpu"), "NVIDIA H200 141GB HBM3e");
  ck_assert_ptr_null(val_meas_get(back, "nccl"));
  ck_assert_uint_eq(back->points->len, 2);
  {
    const ValPoint *a = &g_array_index(back->points, ValPoint, 0);
    const ValPoint *b = &g_array_index(back->points, ValPoint, 1);

    ck_assert_str_eq(a->test, "h2d");
    ck_assert_uint_eq(a->ranks, 1);
    ck_assert_double_eq_tol(a->bw_GBps, 1048576 / 20.5e3, 1e-4);
    ck_assert_double_eq(a->busbw_GBps, a->bw_GBps);
    ck_assert_str_eq(b->dst, "gpu1, quoted");
    ck_assert_double_eq(b->time_us_min, 2.0);
    ck_assert_double_eq_tol(b->bw_GBps, 2 * 4096 / 2e3, 1e-6);
  }
}
END_TEST

/* Written atomically: a failed write leaves an earlier file untouched. */
START_TEST(test_write_file)
{
  g_autoptr(ValMeasurements) m = val_meas_new();
  g_autoptr(ValMeasurements) back = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp("ifsim-measure-XXXXXX", NULL);
  g_autofree char *path = g_build_filename(dir, "m.csv", NULL);
  g_autofree char *bad = g_build_filename(dir, "no", "such", "m.csv", NULL);
  ValPoint p = {.probe = VAL_PROBE_VERBS,
                .size_bytes = 65536,
                .time_us_median = 6.0};

  g_strlcpy(p.test, "write_bw", sizeof(p.test));
  val_meas_add(m, &p);
  ck_assert(val_meas_write(m, path, &error));
  back = val_meas_load(path, &error);
  ck_assert_msg(back != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq(back->points->len, 1);
  ck_assert(!val_meas_write(m, bad, &error));
  ck_assert_ptr_nonnull(strstr(error->message, bad));
  g_unlink(path);
  g_rmdir(dir);
}
END_TEST

/* Each malformed text and the message fragment it must give. */
static const struct {
  const char *text;
  const char *message;
} bad[] = {
    {VAL_MEAS_MAGIC "\n", "t.csv: no header row"},
    {VAL_MEAS_MAGIC "\n# gpu: H100\n" HEADER, "t.csv:2: expected a header"},
    {VAL_MEAS_MAGIC "\n# GPU = H100\n" HEADER, "t.csv:2: expected a header"},
    {VAL_MEAS_MAGIC "\nprobe,test\n", "t.csv:2: column 3 is '(missing)'"},
    {VAL_MEAS_MAGIC "\nprobe,tset,mode\n",
     "column 2 is 'tset', expected 'test'"},
    {VAL_MEAS_MAGIC "\n" HEADER, "no measured points"},
    {VAL_MEAS_MAGIC "\n" HEADER "p2p,ce_uni,peer,gpu0,gpu1,1,4096,1,1,2\n",
     "t.csv:3: 10 fields, expected 13"},
    {VAL_MEAS_MAGIC "\n" HEADER "p3p,ce_uni,,a,b,1,4096,1,1,1,1,0,0\n",
     "t.csv:3: probe: expected p2p, hostdev, nccl or verbs"},
    {VAL_MEAS_MAGIC "\n" HEADER "p2p,,,a,b,1,4096,1,1,1,1,0,0\n",
     "t.csv:3: test: expected ce_uni, ce_bidir, sm_uni, sm_bidir, ce_latency "
     "or sm_latency (probe p2p), found ''"},
    /* a test or mode the probe does not have: it would be predicted as
     * another experiment */
    {VAL_MEAS_MAGIC "\n" HEADER
                    "hostdev,frob,pinned,host,gpu0,1,4096,1,1,1,1,0,0\n",
     "t.csv:3: test: expected h2d, d2h, bidir, latency_h2d or latency_d2h "
     "(probe hostdev), found 'frob'"},
    {VAL_MEAS_MAGIC "\n" HEADER
                    "hostdev,h2d,weird,host,gpu0,1,4096,1,1,1,1,0,0\n",
     "t.csv:3: mode: expected pinned, pageable or pinned_sm (probe hostdev), "
     "found 'weird'"},
    {VAL_MEAS_MAGIC "\n" HEADER
                    "nccl,allreduce,oop,0-7,all,8,4096,1,1,1,1,0,0\n"
                    "nccl,\"allreduce,x\",oop,0-7,all,8,8192,1,1,1,1,0,0\n",
     "t.csv:4: test: expected allreduce"},
    {VAL_MEAS_MAGIC "\n" HEADER "p2p,ce_uni,peer,a,b,0,4096,1,1,1,1,0,0\n",
     "t.csv:3: ranks: expected a count from 1"},
    {VAL_MEAS_MAGIC "\n" HEADER "p2p,ce_uni,peer,a,b,1,-4096,1,1,1,1,0,0\n",
     "t.csv:3: size_bytes: expected a size"},
    {VAL_MEAS_MAGIC "\n" HEADER "p2p,ce_uni,peer,a,b,1,4K,1,1,1,1,0,0\n",
     "t.csv:3: size_bytes"},
    {VAL_MEAS_MAGIC "\n" HEADER "p2p,ce_uni,peer,a,b,1,4096,1,1,abc,1,0,0\n",
     "t.csv:3: times: expected a number of microseconds"},
    {VAL_MEAS_MAGIC "\n" HEADER "p2p,ce_uni,peer,a,b,1,4096,1,1,nan,1,0,0\n",
     "t.csv:3: times"},
    {VAL_MEAS_MAGIC "\n" HEADER "p2p,ce_uni,peer,a,b,1,4096,1,3,2,4,0,0\n",
     "t.csv:3: times: expected 0 < time_us_min <= time_us_median"},
    {VAL_MEAS_MAGIC "\n" HEADER "p2p,ce_uni,peer,a,b,1,4096,1,0,0,0,0,0\n",
     "t.csv:3: times: expected 0 <"},
    {VAL_MEAS_MAGIC "\n" HEADER "p2p,ce_uni,peer,a,b,1,4096,1,1,1,1,-3,0\n",
     "t.csv:3: bandwidths: expected a number of GB/s >= 0"},
    {VAL_MEAS_MAGIC "\n" HEADER "p2p,\"ce_uni,,a,b,1,4096,1,1,1,1,0,0\n",
     "t.csv:3: not a CSV row"},
    {VAL_MEAS_MAGIC "\n" HEADER
                    "p2p,ce_uni,peer,a,b,1,4096,1,1,1,1,0,0,extra\n",
     "t.csv:3: 14 fields, expected 13"},
};

START_TEST(test_bad)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(ValMeasurements) m =
      val_meas_parse("t.csv", bad[_i].text, strlen(bad[_i].text), &error);

  ck_assert_msg(m == NULL, "case %d parsed", _i);
  ck_assert_msg(strstr(error->message, bad[_i].message) != NULL,
                "case %d: '%s' lacks '%s'", _i, error->message,
                bad[_i].message);
}
END_TEST

START_TEST(test_binary)
{
  static const char text[] = VAL_MEAS_MAGIC "\n\0\x01garbage";
  g_autoptr(GError) error = NULL;
  g_autoptr(ValMeasurements) m =
      val_meas_parse("t.csv", text, sizeof(text) - 1, &error);

  ck_assert_ptr_null(m);
  ck_assert_str_eq(error->message,
                   "t.csv:2: binary data (a NUL byte at byte 23), expected "
                   "text");
}
END_TEST

START_TEST(test_csv_split)
{
  static const char text[] = "# comment\n\na, \"b,c\" ,d\r\n  # indented\nx\n";
  g_autoptr(GError) error = NULL;
  ValCsv csv;
  double v;

  ck_assert(val_csv_split("t", text, strlen(text), &csv, &error));
  ck_assert_uint_eq(csv.rows->len, 2);
  ck_assert_uint_eq(g_array_index(csv.lines, guint, 0), 3);
  ck_assert_uint_eq(g_array_index(csv.lines, guint, 1), 5);
  ck_assert_str_eq(((GStrv)csv.rows->pdata[0])[1], "b,c");
  ck_assert_str_eq(((GStrv)csv.rows->pdata[1])[0], "x");
  val_csv_clear(&csv);
  ck_assert(val_cell_double(" 1.5e3 ", &v) && v == 1500);
  ck_assert(!val_cell_double("", &v));
  ck_assert(!val_cell_double("1.5x", &v));
  ck_assert(!val_cell_double("inf", &v));
}
END_TEST

Suite *suite_measure(void)
{
  Suite *s = suite_create("measure");
  TCase *tc = tcase_create("core");

  tcase_add_test(tc, test_roundtrip);
  tcase_add_test(tc, test_write_file);
  tcase_add_loop_test(tc, test_bad, 0, G_N_ELEMENTS(bad));
  tcase_add_test(tc, test_binary);
  tcase_add_test(tc, test_csv_split);
  suite_add_tcase(s, tc);
  return s;
}
