/* Tests of validate/import*.c: tool outputs in tests/data/measure (built
 * from the numbers of tests/data/reference in each tool's real layout) and
 * the reference CSV transcriptions import into the expected points and
 * header keys; the imports survive the measurement CSV round trip; bad
 * input (tests/data/bad/measure and inline strings) fails with a message
 * that names the file and says what was expected. */
#include <math.h>
#include <string.h>

#include "tests/suites.h"
#include "validate/import.h"

static ValMeasurements *import_path(const char *sub, const char *name,
                                    GError **error)
{
  g_autofree char *path = g_build_filename(IFSIM_TEST_DATA_DIR, sub, name,
                                           NULL);
  g_autofree char *text = NULL;
  gsize len;

  ck_assert_msg(g_file_get_contents(path, &text, &len, NULL), "%s", path);
  return val_import(name, text, len, error);
}

static ValMeasurements *import_ok(const char *sub, const char *name)
{
  g_autoptr(GError) error = NULL;
  ValMeasurements *m = import_path(sub, name, &error);

  ck_assert_msg(m != NULL, "%s: %s", name, error ? error->message : "");
  return m;
}

/* Imports text that must import. */
static ValMeasurements *import_text_ok(const char *name, const char *text)
{
  g_autoptr(GError) error = NULL;
  ValMeasurements *m = val_import(name, text, strlen(text), &error);

  ck_assert_msg(m != NULL, "%s: %s", name, error ? error->message : "");
  return m;
}

/* text with its first `from` replaced by `to` (which must be there) */
static char *replace_once(const char *text, const char *from, const char *to)
{
  const char *at = strstr(text, from);

  ck_assert_msg(at != NULL, "'%s' not in the fixture", from);
  return g_strdup_printf("%.*s%s%s", (int)(at - text), text, to,
                         at + strlen(from));
}

static const ValPoint *find(const ValMeasurements *m, ValProbe probe,
                            const char *test, const char *mode,
                            const char *src, const char *dst, guint64 size)
{
  for (guint i = 0; i < m->points->len; i++) {
    const ValPoint *p = &g_array_index(m->points, ValPoint, i);
    if (p->probe == probe && g_str_equal(p->test, test) &&
        g_str_equal(p->mode, mode) && g_str_equal(p->src, src) &&
        g_str_equal(p->dst, dst) && p->size_bytes == size)
      return p;
  }
  ck_abort_msg("no point %s/%s/%s %s->%s %" G_GUINT64_FORMAT, val_probe_name(probe), test,
               mode, src, dst, size);
  return NULL;
}

static void check_key(const ValMeasurements *m, const char *key,
                      const char *want)
{
  const char *v = val_meas_get(m, key);

  ck_assert_msg(v != NULL, "header key %s missing", key);
  ck_assert_str_eq(v, want);
}

/* The points read back unchanged from the measurement CSV. */
static void check_round_trip(const ValMeasurements *m)
{
  g_autofree char *csv = val_meas_csv(m);
  g_autoptr(GError) error = NULL;
  g_autoptr(ValMeasurements) back =
      val_meas_parse("roundtrip", csv, strlen(csv), &error);

  ck_assert_msg(back != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq(back->points->len, m->points->len);
}

START_TEST(test_nccltests_text)
{
  g_autoptr(ValMeasurements) m =
      import_ok("measure", "nccltests_allreduce_8xH100.txt");
  const ValPoint *p;

  ck_assert_uint_eq(m->points->len, 12);
  check_key(m, "gpu", "NVIDIA H100 80GB HBM3");
  check_key(m, "gpu.count", "8");
  check_key(m, "ranks", "8");
  check_key(m, "nccl.version", "2.18.3+cuda12.2");
  check_key(m, "nccltests.ngpus", "8");
  check_key(m, "gpus_per_process", "8"); /* -g 8: the nGpus line */
  check_key(m, "iters", "2");            /* calls per timing */
  ck_assert_ptr_null(val_meas_get(m, "ranks.inferred"));
  p = find(m, VAL_PROBE_NCCL, "allreduce", "ip", "0-7", "all", 1073741824);
  ck_assert_double_eq_tol(p->busbw_GBps, 464.70, 1e-9);
  ck_assert_double_eq_tol(p->bw_GBps, 265.54, 1e-9);
  ck_assert_double_eq_tol(p->time_us_median, 4043.6, 1e-9);
  ck_assert_uint_eq(p->ranks, 8);
  ck_assert_uint_eq(p->iterations, 2);
  p = find(m, VAL_PROBE_NCCL, "allreduce", "oop", "0-7", "all", 4294967296);
  ck_assert_double_eq_tol(p->busbw_GBps, 473.60, 1e-9);
  check_round_trip(m);
}
END_TEST

/* The same run from one process, its nGpus lost: the Rank lines of one
 * Pid give the GPUs it launched. */
START_TEST(test_nccltests_one_process)
{
  g_autoptr(ValMeasurements) m =
      import_ok("measure", "nccltests_allreduce_8xH100_g8.txt");

  check_key(m, "ranks", "8");
  check_key(m, "gpus_per_process", "8");
}
END_TEST

/* The same run with agg iters 4: each timed iteration is a group of four
 * calls, so the loop of single calls validate models is not known. */
START_TEST(test_nccltests_agg_iters)
{
  g_autoptr(ValMeasurements) m =
      import_ok("measure", "nccltests_allreduce_8xH100_agg4.txt");

  check_key(m, "nccltests.agg_iters", "4");
  ck_assert_ptr_null(val_meas_get(m, "iters"));
  check_key(m, "gpus_per_process", "8");
}
END_TEST

/* The same run under -G 3 (nccl-tests' header "graph: 3"): the calls were
 * launched as CUDA graphs, which the prediction must know (no launch
 * floor per call); "graph: 0" says they were not.  A count nccl-tests
 * cannot print is refused with its line. */
START_TEST(test_nccltests_graph)
{
  g_autofree char *path =
      g_build_filename(IFSIM_TEST_DATA_DIR, "measure",
                       "nccltests_allreduce_8xH100_g8.txt", NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  gsize len;

  ck_assert(g_file_get_contents(path, &text, &len, NULL));
  {
    g_autoptr(ValMeasurements) m = import_text_ok("g0.txt", text);

    check_key(m, "graph_launches", "0");
  }
  {
    g_autofree char *g3 = replace_once(text, "graph: 0", "graph: 3");
    g_autoptr(ValMeasurements) m = import_text_ok("g3.txt", g3);

    check_key(m, "graph_launches", "3");
    check_key(m, "nccltests.graph", "3");
    check_key(m, "iters", "2");
    check_key(m, "gpus_per_process", "8");
    check_round_trip(m);
  }
  {
    g_autofree char *bad = replace_once(text, "graph: 0", "graph: -1");

    ck_assert_ptr_null(val_import("bad.txt", bad, strlen(bad), &error));
    ck_assert_msg(strstr(error->message, "bad.txt:3:") &&
                      strstr(error->message, "graph: -1"),
                  "%s", error->message);
  }
}
END_TEST

/* The JSON's config.graph the same; config.aggregated_iterations above 1
 * leaves the loop of single calls unknown, as the text's agg iters. */
START_TEST(test_nccltests_json_graph_agg)
{
  g_autofree char *path = g_build_filename(
      IFSIM_TEST_DATA_DIR, "measure", "nccltests_allreduce_8xH100.json", NULL);
  g_autofree char *text = NULL;
  g_autofree char *g2 = NULL, *agg = NULL;
  gsize len;

  ck_assert(g_file_get_contents(path, &text, &len, NULL));
  g2 = replace_once(text, "\"graph\":0", "\"graph\":2");
  agg = replace_once(text, "\"aggregated_iterations\":1",
                     "\"aggregated_iterations\":4");
  {
    g_autoptr(ValMeasurements) m = import_text_ok("g2.json", g2);

    check_key(m, "graph_launches", "2");
    check_key(m, "nccltests.graph", "2");
    check_key(m, "iters", "2");
  }
  {
    g_autoptr(ValMeasurements) m = import_text_ok("agg.json", agg);

    ck_assert_ptr_null(val_meas_get(m, "iters"));
    check_key(m, "nccltests.agg_iters", "4");
    check_key(m, "graph_launches", "0");
  }
}
END_TEST

/* Two runs pasted one after the other (each with its own nThread line):
 * one measurement set per run, each with its own iters; the single-set
 * import refuses the paste, naming where the second run begins; an error
 * in the second run names the file's line. */
START_TEST(test_nccltests_two_runs)
{
  g_autofree char *path = g_build_filename(
      IFSIM_TEST_DATA_DIR, "measure", "nccltests_two_runs_8xH100.txt", NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) sets =
      g_ptr_array_new_with_free_func((GDestroyNotify)val_meas_free);
  gsize len;
  char *bad;

  ck_assert(g_file_get_contents(path, &text, &len, NULL));
  ck_assert_msg(val_import_sets("two.txt", text, len, NULL, sets, &error), "%s",
                error ? error->message : "");
  ck_assert_uint_eq(sets->len, 2);
  check_key(sets->pdata[0], "nccltests.run", "1 of 2, from line 1");
  check_key(sets->pdata[1], "nccltests.run", "2 of 2, from line 29");
  check_key(sets->pdata[0], "iters", "2");
  ck_assert_ptr_null(val_meas_get(sets->pdata[1], "iters")); /* agg 4 */
  check_key(sets->pdata[1], "nccltests.agg_iters", "4");
  ck_assert_uint_eq(((ValMeasurements *)sets->pdata[0])->points->len, 12);
  ck_assert_uint_eq(((ValMeasurements *)sets->pdata[1])->points->len, 12);
  ck_assert_ptr_null(val_import("two.txt", text, len, &error));
  ck_assert_msg(
      strstr(error->message, "two.txt:29: a second nccl-tests run in one file"),
      "%s", error->message);
  g_clear_error(&error);
  /* a bad row in run 2 (line 48): named by the file's line */
  bad = strstr(strstr(text, "agg iters: 4"), "2147483648");
  ck_assert_ptr_nonnull(bad);
  bad[0] = '-';
  ck_assert(!val_import_sets("two.txt", text, len, NULL, sets, &error));
  ck_assert_uint_eq(sets->len, 2); /* as it was */
  ck_assert_msg(strstr(error->message, "two.txt:") &&
                    !strstr(error->message, "two.txt:2:"),
                "%s", error->message);
  g_clear_error(&error);
  /* each run may hold its own hint (a paste of two files that each say
   * their collective); twice in one run is still an error */
  {
    g_autofree char *fresh = NULL, *hinted = NULL;
    const char *second;
    ck_assert(g_file_get_contents(path, &fresh, NULL, NULL));
    second = strstr(strstr(fresh, "$ ./build") + 1, "$ ./build");
    ck_assert_ptr_nonnull(second);
    hinted = g_strdup_printf("# collective = allreduce\n%.*s"
                             "# collective = allreduce\n%s",
                             (int)(second - fresh), fresh, second);
    g_ptr_array_set_size(sets, 0);
    ck_assert_msg(val_import_sets("hinted.txt", hinted, strlen(hinted), NULL,
                                  sets, &error),
                  "%s", error ? error->message : "");
    ck_assert_uint_eq(sets->len, 2);
  }
  /* a run with no rows: the message of the whole run names it */
  {
    static const char bare[] =
        "# nThread 1 nGpus 8 minBytes 8 maxBytes 8 step: 2(factor)\n"
        "# nThread 1 nGpus 8 minBytes 8 maxBytes 8 step: 2(factor)\n";
    ck_assert(
        !val_import_sets("bare.txt", bare, strlen(bare), NULL, sets, &error));
    ck_assert_msg(g_str_has_prefix(error->message,
                                   "bare.txt (nccl-tests run 1 of 2, lines "
                                   "1-1): no result rows"),
                  "%s", error->message);
  }
}
END_TEST

/* NCCL's log in the output: its network devices (NET/IB) are counted and
 * their kind kept, for the check against the system. */
START_TEST(test_nccltests_net_devices)
{
  g_autofree char *path = g_build_filename(
      IFSIM_TEST_DATA_DIR, "measure", "nccltests_allreduce_8xH100.txt", NULL);
  g_autofree char *text = NULL, *with = NULL;
  g_autoptr(ValMeasurements) m = NULL;
  const char *cut;

  ck_assert(g_file_get_contents(path, &text, NULL, NULL));
  cut = strstr(text, "# nThread");
  with = g_strdup_printf(
      "%.*sdgx-h100:41920:41990 [0] NCCL INFO NET/IB : Using "
      "[0]mlx5_0:1/RoCE [1]mlx5_3:1/RoCE [2]mlx5_4:1/RoCE ; OOB "
      "eth0:10.0.0.1<0>\n%s",
      (int)(cut - text), text, cut);
  m = import_text_ok("roce.txt", with);
  check_key(m, "nccl.net_devices", "3");
  check_key(m, "nccl.net_link", "RoCE");
  ck_assert_uint_eq(m->points->len, 12);
}
END_TEST

START_TEST(test_nccltests_old_layout)
{
  /* no root column, "error" columns, old Rank lines, no test name: the
   * collective comes from busbw/algbw > 1 */
  g_autoptr(ValMeasurements) m =
      import_ok("measure", "nccltests_old_layout_8xRTX4090.txt");
  const ValPoint *p;

  ck_assert_uint_eq(m->points->len, 50);
  check_key(m, "gpu", "NVIDIA GeForce RTX 4090");
  check_key(m, "ranks", "8");
  check_key(m, "nccl.collective", "allreduce");
  p = find(m, VAL_PROBE_NCCL, "allreduce", "oop", "0-7", "all", 134217728);
  ck_assert_double_eq_tol(p->busbw_GBps, 20.64, 1e-9);
  /* algbw printed as 0.00: recomputed from size and time */
  p = find(m, VAL_PROBE_NCCL, "allreduce", "oop", "0-7", "all", 8);
  ck_assert_double_eq_tol(p->bw_GBps, 8 / 38.82e3, 1e-12);
  ck_assert_double_eq_tol(p->busbw_GBps, 1.75 * 8 / 38.82e3, 1e-12);
  ck_assert_uint_eq(p->iterations, 20);
  check_key(m, "iters", "20");
}
END_TEST

START_TEST(test_nccltests_json)
{
  g_autoptr(ValMeasurements) m =
      import_ok("measure", "nccltests_allreduce_8xH100.json");
  const ValPoint *p;

  ck_assert_uint_eq(m->points->len, 12);
  check_key(m, "nccl.version", "2.18.3");
  check_key(m, "gpu.count", "8");
  check_key(m, "ranks", "8");
  check_key(m, "gpus_per_process", "8"); /* config.ngpus */
  check_key(m, "iters", "2");            /* config.iterations */
  p = find(m, VAL_PROBE_NCCL, "allreduce", "ip", "0-7", "all", 1073741824);
  ck_assert_double_eq_tol(p->busbw_GBps, 464.70, 1e-9);
  ck_assert_uint_eq(p->iterations, 2);
  check_round_trip(m);
}
END_TEST

/* Reference transcriptions: ranks inferred from busbw/algbw. */
START_TEST(test_nccl_reference_csvs)
{
  static const struct {
    const char *file;
    guint points, ranks;
    guint64 size;
    double ip_busbw;
  } cases[] = {
      {"nccl_allreduce_8xH100_sxm_nccltests290.csv", 12, 8, 1073741824,
       464.70},
      {"nccl_allreduce_16xH100_2node_ndr8x400_nccltests309.csv", 64, 16,
       17179869184ull, 469.10},
      {"nccl_allreduce_32xH100_4node_ndr8x400_vm_nccltests309.csv", 64, 32,
       17179869184ull, 365.46},
      {"nccl_allreduce_16xH100_2node_ndr_ANOMALOUS_nccltests290.csv", 22, 16,
       8589934592ull, 155.56},
      {"nccl_allreduce_8xRTX4090_pcie_P2Punlocked_chlc.csv", 50, 8,
       134217728, 20.64},
  };

  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autoptr(ValMeasurements) m = import_ok("reference", cases[i].file);
    g_autofree char *src = g_strdup_printf("0-%u", cases[i].ranks - 1);
    const ValPoint *p;

    ck_assert_uint_eq(m->points->len, cases[i].points);
    check_key(m, "ranks.inferred", "from busbw/algbw");
    p = find(m, VAL_PROBE_NCCL, "allreduce", "ip", src, "all", cases[i].size);
    ck_assert_uint_eq(p->ranks, cases[i].ranks);
    ck_assert_double_eq_tol(p->busbw_GBps, cases[i].ip_busbw, 1e-9);
  }
}
END_TEST

START_TEST(test_nccl_4column_csv)
{
  g_autoptr(ValMeasurements) m =
      import_ok("reference", "nccl_allreduce_8xA100_nvlink3_stas00mlengineering.csv");
  const ValPoint *p;

  ck_assert_uint_eq(m->points->len, 20);
  check_key(m, "nccl.collective", "allreduce");
  p = find(m, VAL_PROBE_NCCL, "allreduce", "oop", "0-7", "all",
           17179869184ull);
  ck_assert_double_eq_tol(p->busbw_GBps, 234.89, 1e-9);
  ck_assert_uint_eq(p->ranks, 8);
}
END_TEST

START_TEST(test_nccl_sendrecv_needs_ranks)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(ValMeasurements) bad =
      import_path("reference", "nccl_sendrecv_8xA100_nvlink_liplus.csv",
                  &error);
  g_autofree char *path = g_build_filename(
      IFSIM_TEST_DATA_DIR, "reference",
      "nccl_sendrecv_8xA100_nvlink_liplus.csv", NULL);
  g_autofree char *text = NULL, *hinted = NULL;
  g_autoptr(ValMeasurements) m = NULL;
  const ValPoint *p;

  ck_assert_ptr_null(bad);
  /* busbw = algbw and no root: SendRecv, or AllReduce on 2 ranks (older
   * nccl-tests print no test name); the ranks tell them apart */
  ck_assert_msg(
      strstr(error->message, "cannot tell which collective") &&
          strstr(error->message, "fit sendrecv, or allreduce if on 2 ranks") &&
          strstr(error->message, "# collective = NAME"),
      "%s", error->message);
  g_clear_error(&error);
  ck_assert(g_file_get_contents(path, &text, NULL, NULL));
  hinted = g_strconcat("# ranks = 8\n# gpu = NVIDIA A100\n", text, NULL);
  m = val_import("sendrecv.csv", hinted, strlen(hinted), &error);
  ck_assert_msg(m != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq(m->points->len, 8);
  check_key(m, "gpu", "NVIDIA A100");
  p = find(m, VAL_PROBE_NCCL, "sendrecv", "oop", "0-7", "all", 1073741824);
  ck_assert_double_eq_tol(p->busbw_GBps, 195.10, 1e-9);
  ck_assert_double_eq_tol(p->bw_GBps, 195.10, 1e-9);
}
END_TEST

START_TEST(test_perftest_write_bw)
{
  g_autoptr(ValMeasurements) m =
      import_ok("measure", "perftest_ib_write_bw_gbits.txt");
  const ValPoint *p;

  ck_assert_uint_eq(m->points->len, 23);
  check_key(m, "verbs.device", "mlx5_0");
  check_key(m, "verbs.link_type", "Ethernet");
  check_key(m, "verbs.mtu", "1024[B]");
  check_key(m, "verbs.gid_index", "3");
  p = find(m, VAL_PROBE_VERBS, "write_bw", "gpu", "mlx5_0", "remote", 8388608);
  /* 92.39 Gb/s = 92.39 x 1.25e8 B/s (perftest: format_factor 125000000) */
  ck_assert_double_eq_tol(p->bw_GBps, 92.39 * 0.125, 1e-12);
  ck_assert_double_eq_tol(p->time_us_median, 8388608 / (92.39 * 125e6) * 1e6,
                          1e-9);
  ck_assert_uint_eq(p->iterations, 5000);
  check_round_trip(m);
}
END_TEST

START_TEST(test_perftest_mb_unit)
{
  /* default unit: "MB/sec" is 2^20 bytes/s */
  static const char text[] =
      "                    Send BW Test\n"
      " Dual-port       : OFF\t\tDevice         : mlx5_1\n"
      " Link type       : IB\n"
      " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   "
      "MsgRate[Mpps]\n"
      " 65536      1000             11780.27            11779.12\t\t   "
      "0.188466\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(ValMeasurements) m =
      val_import("send_bw.txt", text, strlen(text), &error);
  const ValPoint *p;

  ck_assert_msg(m != NULL, "%s", error ? error->message : "");
  p = find(m, VAL_PROBE_VERBS, "send_bw", "host", "mlx5_1", "remote", 65536);
  ck_assert_double_eq_tol(p->bw_GBps, 11779.12 * 1048576 / 1e9, 1e-9);
}
END_TEST

START_TEST(test_perftest_send_lat)
{
  g_autoptr(ValMeasurements) m =
      import_ok("measure", "perftest_ib_send_lat.txt");
  const ValPoint *p;

  ck_assert_uint_eq(m->points->len, 12);
  check_key(m, "verbs.link_type", "IB");
  p = find(m, VAL_PROBE_VERBS, "send_lat", "host", "mlx5_0", "remote", 2);
  ck_assert_double_eq_tol(p->time_us_min, 2.35, 1e-12);
  ck_assert_double_eq_tol(p->time_us_median, 2.38, 1e-12);
  ck_assert_double_eq_tol(p->time_us_max, 12.63, 1e-12);
}
END_TEST

START_TEST(test_perftest_csvs)
{
  g_autoptr(ValMeasurements) bw = import_ok(
      "reference", "ibwritebw_roce_gpudirect_cuda_nvidia_gpuoperator_doc.csv");
  g_autoptr(ValMeasurements) lat =
      import_ok("reference", "ibsendlat_ib_azureHB_hostmem_msdocs.csv");
  const ValPoint *p;

  ck_assert_uint_eq(bw->points->len, 23);
  ck_assert_ptr_nonnull(val_meas_get(bw, "import.assumed"));
  p = find(bw, VAL_PROBE_VERBS, "write_bw", "", "local", "remote", 4096);
  ck_assert_double_eq_tol(p->bw_GBps, 92.06 / 8, 1e-12);
  ck_assert_uint_eq(lat->points->len, 12);
  p = find(lat, VAL_PROBE_VERBS, "send_lat", "", "local", "remote", 4096);
  ck_assert_double_eq_tol(p->time_us_median, 3.96, 1e-12);
}
END_TEST

/* The text and the CSV of the same p2pBandwidthLatencyTest run agree. */
static void check_p2p_a100(const ValMeasurements *m)
{
  const ValPoint *p;

  ck_assert_uint_eq(m->points->len, 6 * 64);
  p = find(m, VAL_PROBE_P2P, "ce_uni", "peer", "gpu0", "gpu1", 160000000);
  ck_assert_double_eq_tol(p->bw_GBps, 268.94, 1e-9);
  ck_assert_double_eq_tol(p->time_us_median, 160e6 / 268.94e3, 1e-9);
  ck_assert_uint_eq(p->iterations, 5);
  /* diagonal: a local copy, the tool counts read and write */
  p = find(m, VAL_PROBE_P2P, "ce_uni", "peer", "gpu0", "gpu0", 160000000);
  ck_assert_double_eq_tol(p->time_us_median, 2 * 160e6 / 1528.86e3, 1e-9);
  p = find(m, VAL_PROBE_P2P, "ce_bidir", "peer", "gpu4", "gpu5", 160000000);
  ck_assert_double_eq_tol(p->bw_GBps, 517.80, 1e-9);
  ck_assert_double_eq_tol(p->time_us_median, 2 * 160e6 / 517.80e3, 1e-9);
  p = find(m, VAL_PROBE_P2P, "ce_uni", "nopeer", "gpu4", "gpu5", 160000000);
  ck_assert_double_eq_tol(p->bw_GBps, 10.65, 1e-9);
  p = find(m, VAL_PROBE_P2P, "ce_latency", "peer", "gpu0", "gpu1", 16);
  ck_assert_double_eq_tol(p->time_us_median, 3.38, 1e-12);
  p = find(m, VAL_PROBE_P2P, "ce_latency", "nopeer", "gpu7", "gpu0", 16);
  ck_assert_double_eq_tol(p->time_us_median, 24.34, 1e-12);
  check_key(m, "p2p.copy_size_bytes", "160000000");
}

START_TEST(test_p2p_text)
{
  g_autoptr(ValMeasurements) m = import_ok("measure", "p2p_8xA100_sxm4.txt");

  check_p2p_a100(m);
  check_key(m, "gpu", "NVIDIA A100-SXM4-80GB");
  check_key(m, "gpu.count", "8");
  check_round_trip(m);
}
END_TEST

START_TEST(test_p2p_csv)
{
  g_autoptr(ValMeasurements) m =
      import_ok("reference", "p2p_8xA100_sxm4_80gb_distserve3.csv");
  g_autoptr(ValMeasurements) r =
      import_ok("reference", "p2p_8xRTX4090_pcie_P2Punlocked_chlc.csv");

  check_p2p_a100(m);
  ck_assert_uint_eq(r->points->len, 6 * 64);
}
END_TEST

static void check_nvbw_h100(const ValMeasurements *m)
{
  const guint64 s = 512ull << 20;
  const ValPoint *p;

  ck_assert_uint_eq(m->points->len, 3 * 56 + 2 * 8);
  /* read_ce: value(row 0, col 1) is a copy gpu1 -> gpu0 */
  p = find(m, VAL_PROBE_P2P, "ce_uni", "peer_read", "gpu1", "gpu0", s);
  ck_assert_double_eq_tol(p->bw_GBps, 395.08, 1e-9);
  ck_assert_double_eq_tol(p->time_us_median, s / 395.08e3, 1e-9);
  /* write_ce: row -> column */
  p = find(m, VAL_PROBE_P2P, "ce_uni", "peer", "gpu0", "gpu6", s);
  ck_assert_double_eq_tol(p->bw_GBps, 397.50, 1e-9);
  p = find(m, VAL_PROBE_HOSTDEV, "h2d", "pinned", "host", "gpu7", s);
  ck_assert_double_eq_tol(p->bw_GBps, 55.33, 1e-9);
  p = find(m, VAL_PROBE_HOSTDEV, "d2h", "pinned", "gpu4", "host", s);
  ck_assert_double_eq_tol(p->bw_GBps, 55.25, 1e-9);
  p = find(m, VAL_PROBE_P2P, "sm_latency", "peer", "gpu0", "gpu1", 8);
  ck_assert_double_eq_tol(p->time_us_median, 0.82642, 1e-12);
  check_key(m, "nvbandwidth.buffer_size_bytes", "536870912");
}

START_TEST(test_nvbandwidth_text)
{
  g_autoptr(ValMeasurements) m = import_ok("measure", "nvbandwidth_8xH100.txt");

  check_nvbw_h100(m);
  check_key(m, "nvbandwidth.version", "v0.10.0");
  check_key(m, "driver", "595.71.05");
  check_key(m, "gpu", "NVIDIA H100 80GB HBM3");
  check_key(m, "gpu.count", "8");
  check_key(m, "nvbandwidth.not_imported", "all_to_host_memcpy_ce");
  check_round_trip(m);
}
END_TEST

START_TEST(test_nvbandwidth_csv)
{
  g_autoptr(ValMeasurements) m =
      import_ok("reference", "nvbandwidth_8xH100_sxm_pcie5_acceptance_kr.csv");

  check_nvbw_h100(m);
}
END_TEST

START_TEST(test_nvbandwidth_old_buffer)
{
  /* releases before v0.4 copied 64 MiB by default */
  static const char text[] =
      "nvbandwidth Version: v0.3\n"
      "Running host_to_device_memcpy_ce.\n"
      "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)\n"
      "          0         1\n"
      "0      6.20     12.36\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(ValMeasurements) m =
      val_import("old.txt", text, strlen(text), &error);

  ck_assert_msg(m != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq(m->points->len, 2);
  find(m, VAL_PROBE_HOSTDEV, "h2d", "pinned", "host", "gpu1", 64ull << 20);
}
END_TEST

START_TEST(test_nvbandwidth_one_row)
{
  /* a CPU row and device_local_copy: one row, whatever the GPU count */
  static const char text[] =
      "nvbandwidth Version: v0.10.0\n"
      "Running host_device_latency_sm.\n"
      "memory latency SM CPU(row) <-> GPU(column) (ns)\n"
      "           0         1\n"
      " 0    613.22    614.10\n"
      "\n"
      "SUM host_device_latency_sm 1227.32\n"
      "\n"
      "Waived: \n"
      "Running device_local_copy.\n"
      "memcpy local GPU(column) bandwidth (GB/s)\n"
      "           0         1\n"
      " 0   1519.07   1518.93\n"
      "\n"
      "SUM device_local_copy 3038.00\n";
  g_autoptr(ValMeasurements) m = import_text_ok("one.txt", text);

  ck_assert_uint_eq(m->points->len, 4);
  find(m, VAL_PROBE_HOSTDEV, "latency_h2d", "pinned", "host", "gpu1", 8);
  find(m, VAL_PROBE_P2P, "ce_uni", "local", "gpu1", "gpu1", 512ull << 20);
}
END_TEST

/* tests/data/bad/measure: for each format (the file name's prefix) a
 * good file with one thing broken, and the part of the message that must
 * name the place (":LINE:", or the JSON path) and what was expected. */
static const struct {
  const char *file, *expect;
} bad_files[] = {
    /* any format */
    {"empty.txt", "empty file"},
    {"binary.bin", "binary data"},
    {"unknown.txt", "not a measurement format ifsim knows (expected: "
                    "ifsim measurement CSV, nccl-tests output"},
    /* ifsim's own measurement CSV (validate/measure.c) */
    {"csv_bad_header_line.csv", ":5: expected a header line '# key = value'"},
    {"csv_binary_garbage.csv",
     ":16: binary data (byte 0x8b at byte 782 is not UTF-8 text)"},
    {"csv_duplicate_key.csv",
     ":6: header key 'gpu' given twice (expected each key once)"},
    {"csv_gpus_per_process_zero.csv",
     ":3: gpus_per_process '0': expected a count from 1 to 1024"},
    {"csv_nccl_version_bad.csv",
     ":3: nccl.version: '2.26.x' is not an NCCL version (expected 2.MINOR "
     "or 2.MINOR.PATCH, e.g. 2.26.2)"},
    {"csv_iters_zero.csv",
     ":3: iters '0': expected a count from 1 to 4294967295 (calls timed "
     "back to back, nccl-tests -n)"},
    {"csv_graph_launches_negative.csv",
     ":3: graph_launches '-1': expected a count from 0 to 2147483647 (CUDA "
     "graph launches of the timed calls, nccl-tests -G; 0: none)"},
    {"csv_duplicate_row.csv",
     ":16: hostdev h2d pinned host -> gpu0, ranks 1, 2097152 bytes again "
     "(line 11 has it)"},
    {"csv_header_only.csv", ": no measured points after the header row"},
    {"csv_inf_time.csv",
     ":14: times: expected a number of microseconds >= 0, found 'inf'"},
    {"csv_long_line.csv",
     ":12: src/dst: expected at most 47 characters, found 'hosthost"},
    {"csv_missing_column.csv",
     ":9: column 9 is 'time_us_median', expected 'time_us_min'"},
    {"csv_nan_bw.csv",
     ":13: bandwidths: expected a number of GB/s >= 0, found 'nan'"},
    {"csv_negative_time.csv",
     ":11: times: expected a number of microseconds >= 0, found '-40.9'"},
    {"csv_probe_unknown.csv",
     ":14: probe: expected p2p, hostdev, nccl or verbs, found 'hostdevice'"},
    {"csv_ranks_fraction.csv",
     ":11: ranks: expected a count from 1, found '1.5'"},
    {"csv_size_huge.csv",
     ":12: size_bytes: expected a size in bytes from 1, found "
     "'18446744073709551616'"},
    {"csv_empty_value.csv",
     ":2: '# gpu =' has no value (expected '# gpu = VALUE', or no line for "
     "what is not known)"},
    {"csv_size_zero.csv",
     ":13: size_bytes: expected a size in bytes from 1, found '0'"},
    {"csv_test_too_long.csv",
     ":15: test: expected h2d, d2h, bidir, latency_h2d or latency_d2h (probe "
     "hostdev), found 'bidirectional_pinned_memcpy'"},
    {"csv_time_order.csv",
     ":12: times: expected 0 < time_us_min <= time_us_median <= "
     "time_us_max, found 81.4, 81, 83.1"},
    {"csv_truncated_row.csv",
     ":15: 10 fields, expected 13 (probe,...,busbw_GBps)"},
    {"csv_unit_column.csv", ":9: column 12 is 'bw_MBps', expected 'bw_GBps'"},
    {"csv_unknown_column.csv",
     ":9: unexpected column 14 'gpu_clock_MHz' (the format has 13)"},
    {"csv_unterminated_quote.csv", ":12: not a CSV row"},
    {"csv_version_2.csv",
     ":1: '# ifsim measurements 2': expected '# ifsim measurements 1'"},
    /* nccl-tests text, new and old (no root column) layouts */
    {"nccl_count_garbage.txt",
     ":19: count: expected a whole number of elements, found '67108x64'"},
    {"nccl_duplicate_row.txt",
     ":20: nccl allreduce oop 0-7 -> all, ranks 8, 268435456 bytes again "
     "(line 19 has it)"},
    {"nccl_extra_column.txt",
     "found 17: columns the table header does not name"},
    {"nccl_timestamp_mid_header.txt",
     ":18: expected 14 columns (size count type timestamp redop root time "
     "algbw busbw #wrong time algbw busbw #wrong), found 13: a truncated row?"},
    {"nccl_garbage_number.txt",
     ":18: out-of-place time: expected a number, found '1x39.2'"},
    {"nccl_inf_algbw.txt",
     ":19: in-place algbw: expected a number, found 'inf'"},
    {"nccl_long_line.txt", ":19: size: expected a whole number >= 1, found"},
    {"nccl_nan_busbw.txt",
     ":19: out-of-place busbw: expected a number, found 'nan'"},
    {"nccl_negative_size.txt",
     ":19: size: expected a whole number >= 1, found '-268435456'"},
    {"nccl_no_rows.txt", ": no result rows (expected a nccl-tests table"},
    {"nccl_old_extra_column.txt",
     "error), found 13: columns the table header does not name"},
    {"nccl_old_garbage.txt",
     ":35: out-of-place busbw: expected a number, found '15,33'"},
    {"nccl_old_negative_time.txt",
     ":35: out-of-place time: expected a number >= 0, found '-478.7'"},
    {"nccl_old_truncated.txt",
     ":35: expected 12 columns (size count type redop time algbw"},
    {"nccl_rank_gap.txt",
     ":13: Rank 17, but 8 device lines: expected ranks 0 to 7"},
    {"nccl_ranks_hint.txt",
     ":1: '# ranks = eight': expected a count from 1 to 1048576"},
    {"nccl_size_huge.txt", ":19: size: expected a whole number >= 1, found"},
    {"nccl_terminal_colours.txt", ":24: binary data (control character 0x1b"},
    {"nccl_truncated_row.txt",
     ":18: expected 13 columns (size count type redop root time algbw"},
    {"nccl_wrong_results.txt",
     ":19: out-of-place #wrong: expected 0 (or N/A), found '1024'"},
    {"nccl_zero_time.txt",
     ":19: in-place time: expected a time in microseconds > 0"},
    {"nccl_ngpus_zero.txt", ":3: nGpus 0: expected a count from 1 to 1024"},
    {"nccl_device_huge.txt", ":13: a device line whose Rank or Group (below "
                             "2^20), device (below 1024) or Pid"},
    {"nccl_type_unknown.txt", ":18: type 'quad4': expected one of int8"},
    {"nccl_count_mismatch.txt",
     ":18: count 33554433 of float (4 bytes) is not size 134217728 B"},
    {"nccl_version_garbage.txt",
     ":2: 'NCCL version two-eighteen': expected 2.MINOR.PATCH"},
    {"nccl_info_version_garbage.txt",
     ":2: 'NCCL version 2.x.3+cuda12.2': expected 2.MINOR.PATCH"},
    {"nccl_library_code_garbage.txt",
     ":2: 'nccl-library=2200x': expected NCCL's version code (22005 for "
     "2.20.5; 2708 for 2.7.8)"},
    {"nccl_busbw_wrong.txt", ":18: out-of-place busbw 3829.9 GB/s, but "
                             "allreduce on 8 ranks gives 382.979"},
    {"nccl_time_tiny.txt", ":18: out-of-place: 1.34218e+07 GB/s"},
    {"nccl_collective_unknown.txt",
     ":28: 'Collective test concluded: all_frobnicate_perf': expected a "
     "test of nccl-tests"},
    /* nccl-tests -J JSON (places are paths in the document) */
    {"json_version_99.json", "JSON version 99: expected 2 (or 1)"},
    {"json_two_documents.json",
     ":19: JSON: more after the document ends (a second document?)"},
    {"json_duplicate_key.json",
     ":2: JSON: key \"nthreads\" twice in one object"},
    {"json_args_not_list.json",
     ": JSON \"args\": expected the command line, a list of strings"},
    {"json_config_null.json", "JSON config: expected an object"},
    {"json_device_rank_twice.json",
     "JSON devices[3].rank: expected a rank from 0 to 7, each once"},
    {"json_deep_nesting.json",
     ":13: JSON nested deeper than 64 lists and objects"},
    {"json_duplicate_size.json",
     ": JSON results[2].size: 268435456 again (results[1] has it)"},
    {"json_empty_results.json",
     ": JSON \"results\": expected one result per size, found an empty list"},
    {"json_iterations_huge.json",
     ": JSON config.iterations: expected a whole number from 0 to 4294967295"},
    {"json_long_line.json",
     ": JSON results[1].in_place.time: expected a finite number >= 0, found "
     "inf"},
    {"json_misspelled_key.json",
     ": JSON results[1].out_of_place: expected a number under \"bus_bw\""},
    {"json_nan_time.json",
     ": JSON results[0].out_of_place.time: expected a number, found \"nan\""},
    {"json_negative_busbw.json",
     ": JSON results[1].out_of_place.bus_bw: expected a finite number >= 0, "
     "found -412.35"},
    {"json_no_place.json",
     ": JSON results[1]: expected \"out_of_place\" or \"in_place\" results, "
     "found neither"},
    {"json_no_results.json",
     ": JSON: expected an object with a \"results\" list"},
    {"json_nul_padding.json", ":14: binary data (a NUL byte"},
    {"json_nwrong.json",
     ": JSON results[1].in_place.nwrong: expected 0 (or null), found 1024"},
    {"json_results_object.json",
     ": JSON: expected an object with a \"results\" list"},
    {"json_root_garbage.json", ": JSON results[1].root: expected a rank or -1"},
    {"json_size_fraction.json",
     ": JSON results[1].size: expected a whole number of bytes from 1 to "
     "2^64 - 1, found 268435456.5"},
    {"json_size_huge.json",
     ": JSON results[1].size: expected a whole number of bytes from 1 to "
     "2^64 - 1, found 1e+30"},
    {"json_size_string.json",
     ": JSON results[1].size: expected a number, found \"268435456\""},
    {"json_syntax.json", ":3:11: not valid JSON: unexpected number"},
    {"json_truncated.json", ":14:0: not valid JSON: unexpected end of file"},
    {"json_zero_time.json",
     ": JSON results[1].in_place.time: expected a time in microseconds > 0"},
    /* perftest text */
    {"perftest_bytes_huge.txt",
     ":24: #bytes: expected a whole number >= 1, found "
     "'99999999999999999999999'"},
    {"perftest_duplicate_size.txt",
     ":52: verbs write_bw gpu mlx5_0 -> remote, ranks 1, 65536 bytes again "
     "(line 51 has it)"},
    {"nccltests_two_tests.txt",
     ":28: 'all_reduce_perf' is another test than line 1's allgather: "
     "expected the output of one nccl-tests run"},
    {"nccltests_old_error_nan.txt",
     ":16: out-of-place error: expected the result's largest error, a number "
     ">= 0 (or N/A), found 'nan'"},
    {"perftest_inf_latency.txt", ":24: t_max: expected a number, found 'inf'"},
    {"perftest_lat_avg_nan.txt", ":18: t_avg: expected a number, found 'nan'"},
    {"perftest_bw_extra_column.txt",
     ":37: '6.995646' after the 5 columns of the header"},
    {"perftest_bw_peak_below_average.txt",
     ":37: BW peak 0.10 is below BW average 0.22: expected peak >= average"},
    {"perftest_lat_order.txt",
     ":18: expected 0 < t_min <= t_typical <= t_max, found 2.35, 1.38, 12.63"},
    {"perftest_latency_fraction.txt",
     ":24: #bytes: expected a whole number >= 1, found '128.5'"},
    {"perftest_latin1.txt", ":10: binary data (byte 0xb5"},
    {"perftest_long_line.txt",
     ":24: t_typical: expected a number, found '7777"},
    {"perftest_nan_bw.txt", ":51: BW average: expected a number, found 'nan'"},
    {"perftest_negative_bytes.txt",
     ":51: #bytes: expected a whole number >= 1, found '-65536'"},
    {"perftest_no_rows.txt", ":17: no result rows after the table header"},
    {"perftest_test_hint.txt",
     ":1: '# test = write_bandwidth': expected write_bw, send_bw, read_bw"},
    {"perftest_truncated_row.txt", ":37: expected 5 columns"},
    {"perftest_two_tables.txt",
     ":94: a second result table (line 35 has the first)"},
    {"perftest_unit_gbytes.txt",
     ":35: expected the bandwidth unit [MB/sec], [MiB/sec] or [Gb/sec]"},
    {"perftest_zero_bw.txt",
     ":51: BW average: expected a bandwidth > 0, found '0.00'"},
    {"perftest_zero_iterations.txt",
     ":51: #iterations: expected a whole number >= 1, found '0'"},
    {"perftest_tx_depth_garbage.txt",
     ":21: 'TX depth : 12x': expected a count from 1 to 2^20"},
    /* p2pBandwidthLatencyTest text */
    {"p2p_duplicate_matrix.txt",
     ":102: p2p ce_uni peer gpu0 -> gpu0, ranks 1, 160000000 bytes again "
     "(line 92 has it)"},
    {"p2p_extra_row.txt",
     ":100: row 8 after the matrix's last row, 7: expected 8 rows"},
    {"p2p_gpu_block_truncated.txt",
     ":130: expected row 7 of the matrix above (8 rows), found the next "
     "matrix"},
    {"p2p_header_columns.txt",
     ":91: expected the column indices 'D\\D 0 1 ...' of a matrix"},
    {"p2p_long_line.txt",
     ":85: expected a row index and 8 values, found 2866 fields"},
    {"p2p_missing_header.txt", ":91: a matrix row before the matrix's header"},
    {"p2p_nan_latency.txt", ":146: column 0: expected a number, found 'nan'"},
    {"p2p_negative.txt",
     ":85: column 2: expected a number >= 0, found '-17.17'"},
    {"p2p_no_matrix.txt", ": no bandwidth or latency matrix"},
    {"p2p_nul_padding.txt", ":120: binary data (a NUL byte"},
    {"p2p_row_order.txt", ":85: expected row 3, found row 4"},
    {"p2p_row_fraction.txt",
     ":85: row index '3.5': expected a GPU index (0, 1, 2, ...)"},
    {"p2p_truncated_file.txt",
     ": expected row 4 of the last matrix (8 rows), found the end of the file"},
    {"p2p_truncated_row.txt", ":84: expected a row index and 8 values"},
    {"p2p_unit_mbs.txt",
     ":90: a matrix in (MB/s): expected (GB/s) for a bandwidth"},
    {"p2p_unknown_title.txt",
     ":90: 'Undirectional P2P=Enabled Bandwidth (P2P...': not a matrix "
     "title ifsim knows"},
    {"p2p_zero_bw.txt", ":85: column 4: expected a bandwidth > 0, found 0"},
    /* nvbandwidth text */
    {"nvbw_buffer_hint.txt",
     ":7: '# nvbandwidth.buffer_size_bytes = 512MiB': expected a whole "
     "number of bytes >= 1"},
    {"nvbw_columns.txt", ":33: expected the column indices '0 1 ...' of "
                         "device_to_device_memcpy_read_ce's matrix"},
    {"nvbw_duplicate_testcase.txt",
     ":83: hostdev h2d pinned host -> gpu0, ranks 1, 536870912 bytes again "
     "(line 69 has it)"},
    {"nvbw_extra_row.txt",
     ":56: row 8 of device_to_device_memcpy_write_ce's matrix: expected 8 "
     "rows (0 to 7), no more"},
    {"nvbw_garbage.txt",
     ":34: device_to_device_memcpy_read_ce column 4: expected a number, "
     "found '39x.14'"},
    {"nvbw_latency_unit.txt",
     ":18: device_to_device_latency_sm: the title gives the unit (us), "
     "expected (ns)"},
    {"nvbw_long_line.txt",
     ":37: expected a row index and 8 values, found 2009 fields"},
    {"nvbw_nan.txt",
     ":37: device_to_device_memcpy_read_ce column 5: expected a number, "
     "found 'nan'"},
    {"nvbw_negative.txt",
     ":37: device_to_device_memcpy_read_ce column 2: expected a number >= "
     "0, found '-395.23'"},
    {"nvbw_no_testcase.txt", ": no nvbandwidth matrix ifsim imports"},
    {"nvbw_row_negative.txt",
     ":37: row index '-1': expected a GPU index (0, 1, 2, ...)"},
    {"nvbw_row_index.txt",
     ":37: row 9 of device_to_device_memcpy_read_ce's matrix: expected row 3"},
    {"nvbw_terminal_colours.txt", ":66: binary data (control character 0x1b"},
    {"nvbw_huge.txt", ":34: device_to_device_memcpy_read_ce column 1: 1e+308 "
                      "is not a bandwidth nvbandwidth measures"},
    {"nvbw_hexfloat.txt", ":34: device_to_device_memcpy_read_ce column 1: "
                          "expected a number, found '0x1p9'"},
    {"nvbw_device_order.txt",
     ":15: 'Device 99999999999999999999:': expected device 7 next"},
    {"nvbw_truncated_file.txt",
     ": expected row 7 of device_to_device_memcpy_write_ce's matrix (8 "
     "rows), found the end of the file"},
    {"nvbw_truncated_matrix.txt",
     ":56: expected row 7 of device_to_device_memcpy_write_ce's matrix (8 "
     "rows), found the next matrix"},
    {"nvbw_zero.txt",
     ":37: device_to_device_memcpy_read_ce column 5: expected a value > 0, "
     "found 0"},
    /* the CSV transcriptions of tests/data/reference */
    {"ref_long_line.csv", ":3: oop_algbw_GBps: expected a number, found '2222"},
    {"ref_nccl_4col_nan.csv", ":7: algbw_GBps: expected a number, found 'nan'"},
    {"ref_nccl_collective_unknown.csv",
     ":2: cannot tell which collective was measured"},
    {"ref_nccl_duplicate_size.csv",
     ":4: nccl allreduce oop 0-7 -> all, ranks 8, 268435456 bytes again "
     "(line 3 has it)"},
    {"ref_nccl_extra_column.csv",
     ":1: unexpected column 14 'notes' (the table has 13: "
     "size_bytes,...,ip_wrong)"},
    {"ref_nccl_header_only.csv",
     ":1: no rows after the header row (expected one row per size)"},
    {"ref_nccl_negative.csv",
     ":2: oop_busbw_GBps: expected a number >= 0, found '-382.99'"},
    {"ref_nccl_ranks_disagree.csv",
     ":2: the number of ranks is not in the file and the busbw/algbw ratios "
     "disagree"},
    {"ref_nccl_ranks_hint.csv",
     ":1: '# ranks = eight': expected a count from 1 to 1048576"},
    {"ref_nccl_time_ms.csv",
     ":1: column 6 is 'oop_time_ms', expected 'oop_time_us'"},
    {"ref_nccl_truncated.csv",
     ":7: 9 fields, expected 13 (size_bytes,...,ip_wrong)"},
    {"ref_nccl_wrong.csv", ":3: oop_wrong: expected 0 (or N/A), found '7'"},
    {"ref_nvbw_row_range.csv",
     ":9: row 'gpu9' for device_to_device_latency_sm, expected gpu0 to gpu7"},
    {"ref_nvbw_unit.csv",
     ":2: unit 'us' for device_to_device_latency_sm, expected 'ns'"},
    {"ref_nvbw_zero.csv",
     ":2: device_to_device_latency_sm column 1: expected a value > 0, found 0"},
    {"ref_p2p_bad_unit.csv",
     ":2: unit 'MB/s' for uni_p2p_enabled_bw, expected 'GB/s'"},
    {"ref_p2p_connectivity_only.csv", ": no bandwidth or latency rows"},
    {"ref_p2p_duplicate_row.csv",
     ":13: p2p ce_uni nopeer gpu2 -> gpu0, ranks 1, 160000000 bytes again "
     "(line 12 has it)"},
    {"ref_p2p_matrix_name.csv",
     ":18: matrix 'tri_p2p_enabled_bw': expected connectivity, "
     "uni_p2p_{disabled,enabled}_bw"},
    {"ref_p2p_row_range.csv",
     ":17: row_gpu: expected a GPU index from 0 to 7, found '8'"},
    {"ref_perftest_iterations_zero.csv",
     ":13: iterations: expected a whole number >= 1, found '0'"},
    {"ref_perftest_lat_nan.csv",
     ":8: t_typical_us: expected a number, found 'NaN'"},
    {"ref_perftest_mode_hint.csv", ":2: '# mode = cuda': expected host or gpu"},
    {"ref_perftest_mode_twice.csv",
     ":3: '# mode' is given twice (first at line 1): expected each hint "
     "once"},
    {"ref_perftest_negative.csv",
     ":2: bw_average_Gbps: expected a number >= 0, found '-0.11'"},
    {"ref_perftest_test_hint.csv",
     ":1: '# test = write_bandwith': expected write_bw, send_bw, read_bw"},
    {"ref_utf16.csv", ":1: UTF-16 text (its byte order mark), expected UTF-8"},
};

START_TEST(test_bad_files)
{
  for (guint i = 0; i < G_N_ELEMENTS(bad_files); i++) {
    g_autoptr(GError) error = NULL;
    g_autoptr(ValMeasurements) m =
        import_path("bad/measure", bad_files[i].file, &error);

    ck_assert_msg(m == NULL, "%s imported", bad_files[i].file);
    ck_assert_msg(strstr(error->message, bad_files[i].expect) != NULL,
                  "%s: message '%s' lacks '%s'", bad_files[i].file,
                  error->message, bad_files[i].expect);
    ck_assert_msg(g_str_has_prefix(error->message, bad_files[i].file),
                  "%s: message '%s' does not name the file",
                  bad_files[i].file, error->message);
  }
}
END_TEST

/* Every file of tests/data/bad/measure is in the table above, and every
 * format has at least 10 cases. */
START_TEST(test_bad_corpus_complete)
{
  static const char *const prefixes[] = {"csv_", "nccl_", "json_",
                                         "perftest_", "p2p_", "nvbw_",
                                         "ref_"};
  g_autofree char *dir =
      g_build_filename(IFSIM_TEST_DATA_DIR, "bad", "measure", NULL);
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  const char *name;
  guint n = 0, per[G_N_ELEMENTS(prefixes)] = {0};

  ck_assert_ptr_nonnull(d);
  while ((name = g_dir_read_name(d))) {
    gboolean listed = FALSE;
    for (guint i = 0; i < G_N_ELEMENTS(bad_files) && !listed; i++)
      listed = g_str_equal(bad_files[i].file, name);
    ck_assert_msg(listed, "%s is not in the bad_files table", name);
    for (guint k = 0; k < G_N_ELEMENTS(prefixes); k++)
      per[k] += g_str_has_prefix(name, prefixes[k]);
    n++;
  }
  ck_assert_uint_eq(n, G_N_ELEMENTS(bad_files));
  for (guint k = 0; k < G_N_ELEMENTS(prefixes); k++)
    ck_assert_msg(per[k] >= 10, "%u bad %s* files, expected at least 10",
                  per[k], prefixes[k]);
}
END_TEST

START_TEST(test_bad_inline)
{
  static const struct {
    const char *text, *expect;
  } cases[] = {
      {"   \n\n", "x.txt: empty file"},
      {"size_bytes,time_us,algbw_GBps,busbw_GBps\n1024,10.0,0.10\n",
       "x.txt:2: 3 fields, expected 4"},
      {"# collective = gather\nsize_bytes,time_us,algbw_GBps,busbw_GBps\n"
       "1024,10.0,0.10,0.18\n",
       "'# collective = gather': expected allreduce"},
      {"size_bytes,time_us,algbw_GBps,busbw_GBps\n1024,10.0,1.0,1.0\n",
       "cannot tell which collective"},
      {"                    Send Latency Test\n #bytes #iterations "
       "t_min[usec] t_max[usec] t_typical[usec]\n",
       "no result rows"},
      {"Running device_to_device_memcpy_write_ce.\nmemcpy CE GPU(row) <- "
       "GPU(column) bandwidth (GB/s)\n 0 1\n 0 N/A -3.0\n 1 3.0 N/A\n",
       "expected a number >= 0, found '-3.0'"},
      {"{\"results\": [1, 2,]}",
       "x.txt:1:18: not valid JSON: unexpected character"},
      {"{\"results\": []} x",
       "x.txt:1: JSON: more after the document ends (a second document?)"},
      {"{\"results\": []}\n{\"results\": []}",
       "x.txt:2: JSON: more after the document ends"},
      {"{\"results\": [], \"config\": {\"ngpus\": 1, \"ngpus\": 2}}",
       "x.txt:1: JSON: key \"ngpus\" twice in one object"},
      {"# nThread 1 nGpus 8\n 1024 256 float sum -1 1.0 1.0 1.75 0 1.0 1.0 "
       "1.75 0\n",
       "x.txt:2: a result row before the table header"},
      /* nvbandwidth -j */
      {"{\"nvbandwidth\": {\"error\": \"cuInit failed\"}}",
       "x.txt: JSON nvbandwidth.error: the run failed ('cuInit failed')"},
      {"{\"nvbandwidth\": {\"testcases\": {}}}",
       "x.txt: JSON nvbandwidth.\"testcases\": expected a list"},
      {"{\"nvbandwidth\": {\"testcases\": [{\"name\": "
       "\"host_to_device_memcpy_ce\", \"status\": \"Passed\", "
       "\"bandwidth_matrix\": [[\"55.1\", \"x\"]]}]}}",
       "x.txt: JSON testcases[0].bandwidth_matrix[0]: host_to_device_memcpy_ce "
       "column 1: expected a number, found 'x'"},
      {"{\"nvbandwidth\": {\"testcases\": [{\"name\": "
       "\"host_to_device_memcpy_ce\", \"status\": \"Passed\", "
       "\"bandwidth_matrix\": [[\"55.1\"], [\"55.2\"]]}]}}",
       "testcases[0].bandwidth_matrix: 2 rows of 1 values: expected 1 (one)"},
      {"{\"nvbandwidth\": {\"testcases\": [{\"name\": "
       "\"device_to_device_memcpy_write_ce\", \"status\": \"Passed\", "
       "\"bandwidth_matrix\": [[\"N/A\", \"1\"], [\"1\"]]}]}}",
       "testcases[0].bandwidth_matrix[1]: expected a list of 2 values"},
      {"{\"nvbandwidth\": {\"testcases\": [{\"name\": "
       "\"host_to_device_memcpy_ce\", \"status\": \"Passed\", "
       "\"bandwidth_description\": \"memcpy (MB/s)\", "
       "\"bandwidth_matrix\": [[\"55.1\"]]}]}}",
       "bandwidth_description 'memcpy (MB/s)': expected the unit (GB/s)"},
      {"{\"nvbandwidth\": {\"testcases\": [{\"name\": \"x\", "
       "\"status\": \"Waived\"}]}}",
       "JSON: no passed testcase ifsim imports"},
      {"{\"nvbandwidth\": {\"version\": \"v0.8\", \"version\": "
       "\"v0.7\"}}",
       "JSON: key \"version\" twice in one object"},
  };

  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autoptr(GError) error = NULL;
    g_autoptr(ValMeasurements) m = val_import(
        "x.txt", cases[i].text, strlen(cases[i].text), &error);

    ck_assert_msg(m == NULL, "case %u imported", i);
    ck_assert_msg(strstr(error->message, cases[i].expect) != NULL,
                  "case %u: message '%s' lacks '%s'", i, error->message,
                  cases[i].expect);
  }
}
END_TEST

/* Where the NCCL release comes from: NCCL's version line (bare, as
 * showVersion prints it on stdout, or as an INFO line), else nccl-tests'
 * nccl-library code; NCCL's WARN lines that name other versions are not
 * it. */
START_TEST(test_nccltests_versions)
{
  g_autofree char *path = g_build_filename(
      IFSIM_TEST_DATA_DIR, "measure", "nccltests_allreduce_8xH100.txt", NULL);
  g_autofree char *text = NULL;
  static const struct {
    const char *lines, *version;
  } cases[] = {
      {"NCCL version 2.4.2+cuda9.0\n", "2.4.2+cuda9.0"},
      {"dgx01:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n",
       "2.21.5+cuda12.4"},
      {"dgx01:1:1 [0] NCCL WARN NCCL library is too old. This application "
       "was compiled with NCCL version 2.29.2, but is running with NCCL "
       "version 2.28.9\n# nccl-tests version 2.13.9 nccl-headers=22005 "
       "nccl-library=22005\n",
       "2.20.5"},
      {"# nccl-tests version 2.10.0 nccl-headers=2708 nccl-library=2708\n",
       "2.7.8"},
  };

  ck_assert(g_file_get_contents(path, &text, NULL, NULL));
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    /* the file without its own '# NCCL version' line */
    g_autoptr(GString) s = g_string_new(cases[i].lines);
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    g_autoptr(ValMeasurements) m = NULL;

    for (guint j = 0; lines[j]; j++)
      if (!strstr(lines[j], "NCCL version"))
        g_string_append_printf(s, "%s\n", lines[j]);
    m = import_text_ok("versions.txt", s->str);
    check_key(m, "nccl.version", cases[i].version);
  }
}
END_TEST

START_TEST(test_nccltests_timestamps)
{
  /* nccl-tests -T prints a timestamp, two words, after the in-place
   * columns; the header names it with one */
  static const char text[] =
      "# ranks = 8\n"
      "# nThread 1 nGpus 8 minBytes 1024 maxBytes 2048 step: 2(factor) "
      "warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
      "#  size  count  type  redop  root  time  algbw  busbw  #wrong  time  "
      "algbw  busbw  #wrong  timestamp\n"
      "    1024   256  float  sum  -1  20.10  0.05  0.09  0  19.90  0.05  "
      "0.09  0  2025-03-02 10:11:12\n"
      "    2048   512  float  sum  -1  20.30  0.10  0.18  0  20.20  0.10  "
      "0.18  0  2025-03-02 10:11:12\n"
      "# Collective test concluded: all_reduce_perf\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(ValMeasurements) m = import_text_ok("ts.txt", text);
  g_autofree char *more = NULL;

  ck_assert_uint_eq(m->points->len, 4);
  /* a third word is a column the header does not name */
  more = g_strdup(text);
  memcpy(strstr(more, "10:11:12\n"), "10:11 12", 8);
  g_clear_pointer(&m, val_meas_free);
  m = val_import("ts.txt", more, strlen(more), &error);
  ck_assert_ptr_null(m);
  ck_assert_msg(strstr(error->message, "ts.txt:4: expected 13 columns") &&
                    strstr(error->message, "and a timestamp, found 16"),
                "%s", error->message);
}
END_TEST

START_TEST(test_utf8_bom)
{
  /* spreadsheets start a UTF-8 CSV with a byte order mark */
  static const char text[] = "\xef\xbb\xbf# collective = allreduce\n"
                             "# ranks = 8\n"
                             "size_bytes,time_us,algbw_GBps,busbw_GBps\n"
                             "1048576,101.9,10.29,18.00\n";
  g_autoptr(ValMeasurements) m = import_text_ok("bom.csv", text);

  ck_assert_uint_eq(m->points->len, 1);
}
END_TEST

START_TEST(test_duplicates_among_many)
{
  /* the set of points seen grows from 64 slots: a thousand sizes twice
   * each (out-of-place and in-place), the duplicate at the end found
   * against its first line after the growths */
  g_autoptr(GString) s = g_string_new(
      "# ranks = 8\n# nThread 1 nGpus 8 minBytes 8 maxBytes 8 step: 2(factor) "
      "warmup "
      "iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
      "#  size  count  type  redop  root  time  algbw  busbw  #wrong  time  "
      "algbw  busbw  #wrong\n");
  g_autoptr(GError) error = NULL;
  g_autoptr(ValMeasurements) m = NULL;

  for (guint i = 1; i <= 1000; i++)
    g_string_append_printf(s,
                           "%u %u float sum -1 20.00 %.2f %.2f 0 20.00 %.2f "
                           "%.2f 0\n",
                           8 * i, 2 * i, 8.0 * i / 20e3, 8.0 * i / 20e3 * 1.75,
                           8.0 * i / 20e3, 8.0 * i / 20e3 * 1.75);
  g_string_append(s, "# Collective test concluded: all_reduce_perf\n");
  m = import_text_ok("many.txt", s->str);
  ck_assert_uint_eq(m->points->len, 2000);
  ck_assert_double_eq_tol(
      find(m, VAL_PROBE_NCCL, "allreduce", "ip", "0-7", "all", 8 * 777)
          ->time_us_median,
      20.0, 1e-9);
  g_clear_pointer(&m, val_meas_free);
  g_string_append(s, "5000 1250 float sum -1 20.00 0.25 0.44 0 20.00 0.25 "
                     "0.44 0\n");
  m = val_import("many.txt", s->str, s->len, &error);
  ck_assert_ptr_null(m);
  ck_assert_msg(strstr(error->message,
                       "many.txt:1005: nccl allreduce oop 0-7 -> all, ranks "
                       "8, 5000 bytes again (line 628 has it)"),
                "%s", error->message);
}
END_TEST

/* tests/data/measure/real (PROVENANCE.md): files nobody on the project
 * wrote. */
START_TEST(test_real_files)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(ValMeasurements) bad =
      import_path("measure/real", "rtx2080ti_x2_allreduce_autodl.txt", &error);
  g_autofree char *path =
      g_build_filename(IFSIM_TEST_DATA_DIR, "measure", "real",
                       "rtx2080ti_x2_allreduce_autodl.txt", NULL);
  g_autofree char *text = NULL, *named = NULL;
  g_autoptr(ValMeasurements) m = NULL;

  /* 2 ranks, no test name, busbw = algbw: AllReduce or SendRecv */
  ck_assert_ptr_null(bad);
  ck_assert_msg(
      strstr(error->message, "cannot tell which collective") &&
          strstr(error->message, "fit sendrecv, or allreduce on 2 ranks"),
      "%s", error->message);
  ck_assert(g_file_get_contents(path, &text, NULL, NULL));
  named = g_strconcat("# collective = allreduce\n", text, NULL);
  m = import_text_ok("named.txt", named);
  check_key(m, "nccl.collective", "allreduce");
  check_key(m, "ranks", "2");
  check_key(m, "gpu", "NVIDIA GeForce RTX 2080 Ti");
  ck_assert_uint_eq(m->points->len, 56);
  g_clear_pointer(&m, val_meas_free);
  /* nvbandwidth's README sample: 0.00 where a GPU meets itself is not a
   * measurement (N/A in the tool's output today), the 56 pairs are */
  m = import_ok("measure/real", "readme_8gpu_d2d_write_ce_nvidia.txt");
  ck_assert_uint_eq(m->points->len, 56);
  {
    const ValPoint *p = &g_array_index(m->points, ValPoint, 0);

    p = find(m, VAL_PROBE_P2P, "ce_uni", "peer", "gpu6", "gpu0", p->size_bytes);
    ck_assert_double_eq_tol(p->bw_GBps, 274.89, 1e-9); /* row 6, column 0 */
  }
  g_clear_pointer(&m, val_meas_free);
  /* perftest pasted with spaces for its tabs: the header pairs (the
   * device among them) read all the same */
  m = import_ok("measure/real", "ib_write_bw_roce_mlx5_k8s.txt");
  ck_assert_uint_eq(m->points->len, 1);
  check_key(m, "verbs.device", "mlx5_0");
  check_key(m, "verbs.dual_port", "OFF");
  check_key(m, "verbs.number_of_qps", "1");
  check_key(m, "verbs.transport_type", "IB");
  check_key(m, "verbs.tx_depth", "128");
  check_key(m, "verbs.link_type", "Ethernet");
  check_key(m, "verbs.data_ex__method", "rdma_cm");
  ck_assert_str_eq(g_array_index(m->points, ValPoint, 0).src, "mlx5_0");
}
END_TEST

/* nvbandwidth -j (its json_output.cpp, v0.8; the values are
 * tests/data/measure/nvbandwidth_8xH100.txt's first two GPUs): the points
 * of the text; other testcases and those not passed listed. */
START_TEST(test_nvbandwidth_json)
{
  g_autoptr(ValMeasurements) m =
      import_ok("measure", "nvbandwidth_2xH100.json");
  const ValPoint *p;

  ck_assert_uint_eq(m->points->len, 4);
  check_key(m, "source", "nvbandwidth -j (imported)");
  check_key(m, "nvbandwidth.version", "v0.8");
  check_key(m, "driver", "550.54.15");
  check_key(m, "cuda.runtime", "12040");
  check_key(m, "gpu", "NVIDIA H100 80GB HBM3");
  check_key(m, "gpu.count", "2");
  check_key(m, "nvbandwidth.not_imported",
            "all_to_host_memcpy_ce device_to_device_memcpy_read_sm(Waived)");
  p = find(m, VAL_PROBE_HOSTDEV, "h2d", "pinned", "host", "gpu1",
           512 * (1u << 20));
  ck_assert_double_eq_tol(p->bw_GBps, 55.9066, 1e-9);
  p = find(m, VAL_PROBE_P2P, "ce_uni", "peer", "gpu1", "gpu0",
           512 * (1u << 20));
  ck_assert_double_eq_tol(p->bw_GBps, 389.12, 1e-9);
  check_round_trip(m);
}
END_TEST

START_TEST(test_own_format_passthrough)
{
  static const char text[] =
      VAL_MEAS_MAGIC "\n# gpu = X\n"
      "probe,test,mode,src,dst,ranks,size_bytes,iterations,time_us_min,"
      "time_us_median,time_us_max,bw_GBps,busbw_GBps\n"
      "hostdev,h2d,pinned,host,gpu0,1,1048576,20,21.1,21.3,22.0,49.23,"
      "49.23\n";
  g_autoptr(ValMeasurements) m = import_text_ok("own.csv", text);

  ck_assert_uint_eq(m->points->len, 1);
}
END_TEST

Suite *suite_importmeas(void)
{
  Suite *s = suite_create("importmeas");
  TCase *tc = tcase_create("formats");
  TCase *bad = tcase_create("bad");

  tcase_add_test(tc, test_nccltests_text);
  tcase_add_test(tc, test_nccltests_one_process);
  tcase_add_test(tc, test_nccltests_old_layout);
  tcase_add_test(tc, test_nccltests_agg_iters);
  tcase_add_test(tc, test_nccltests_graph);
  tcase_add_test(tc, test_nccltests_json_graph_agg);
  tcase_add_test(tc, test_nccltests_two_runs);
  tcase_add_test(tc, test_nccltests_net_devices);
  tcase_add_test(tc, test_nccltests_json);
  tcase_add_test(tc, test_nccl_reference_csvs);
  tcase_add_test(tc, test_nccl_4column_csv);
  tcase_add_test(tc, test_nccl_sendrecv_needs_ranks);
  tcase_add_test(tc, test_perftest_write_bw);
  tcase_add_test(tc, test_perftest_mb_unit);
  tcase_add_test(tc, test_perftest_send_lat);
  tcase_add_test(tc, test_perftest_csvs);
  tcase_add_test(tc, test_p2p_text);
  tcase_add_test(tc, test_p2p_csv);
  tcase_add_test(tc, test_nvbandwidth_text);
  tcase_add_test(tc, test_nvbandwidth_csv);
  tcase_add_test(tc, test_nvbandwidth_old_buffer);
  tcase_add_test(tc, test_nvbandwidth_one_row);
  tcase_add_test(tc, test_nvbandwidth_json);
  tcase_add_test(tc, test_own_format_passthrough);
  tcase_add_test(tc, test_nccltests_timestamps);
  tcase_add_test(tc, test_nccltests_versions);
  tcase_add_test(tc, test_utf8_bom);
  tcase_add_test(tc, test_duplicates_among_many);
  tcase_add_test(tc, test_real_files);
  tcase_add_test(bad, test_bad_files);
  tcase_add_test(bad, test_bad_corpus_complete);
  tcase_add_test(bad, test_bad_inline);
  tcase_set_timeout(tc, 30);
  suite_add_tcase(s, tc);
  suite_add_tcase(s, bad);
  return s;
}
