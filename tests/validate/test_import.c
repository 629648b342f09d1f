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
  ck_assert_msg(strstr(error->message, "cannot be inferred for sendrecv") &&
                    strstr(error->message, "# ranks = N"),
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

static const struct {
  const char *file, *expect;
} bad_files[] = {
    {"empty.txt", "empty file"},
    {"binary.bin", "binary data"},
    {"unknown.txt", "not a measurement format ifsim knows (expected: "
                    "ifsim measurement CSV, nccl-tests output"},
    {"nccl_truncated_row.txt", ":18: expected 13 columns"},
    {"nccl_garbage_number.txt",
     ":18: out-of-place time: expected a number, found '1x39.2'"},
    {"nccl_negative.csv", ":2: oop_busbw_GBps: expected a number >= 0"},
    {"nccl_collective_unknown.csv",
     "cannot tell which collective was measured"},
    {"nccl_ranks_disagree.csv", "busbw/algbw ratios disagree"},
    {"json_syntax.json", ":3:11: not valid JSON: unexpected number"},
    {"json_no_results.json", "\"results\" list"},
    {"json_nan_time.json", "expected a number, found \"nan\""},
    {"perftest_truncated_row.txt", ":37: expected 5 columns"},
    {"perftest_lat_order.txt", ":18: expected 0 < t_min <= t_typical"},
    {"perftest_negative.csv", "bw_average_Gbps: expected a number >= 0"},
    {"p2p_truncated_row.txt", ":84: expected a row index and 8 values"},
    {"p2p_bad_unit.csv", ":2: unit 'MB/s'"},
    {"nvbw_garbage.txt", ":34: device_to_device_memcpy_read_ce column 4: "
                         "expected a number, found '39x.14'"},
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

/* Every file of tests/data/bad/measure is in the table above. */
START_TEST(test_bad_corpus_complete)
{
  g_autofree char *dir =
      g_build_filename(IFSIM_TEST_DATA_DIR, "bad", "measure", NULL);
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  const char *name;
  guint n = 0;

  ck_assert_ptr_nonnull(d);
  while ((name = g_dir_read_name(d))) {
    gboolean listed = FALSE;
    for (guint i = 0; i < G_N_ELEMENTS(bad_files) && !listed; i++)
      listed = g_str_equal(bad_files[i].file, name);
    ck_assert_msg(listed, "%s is not in the bad_files table", name);
    n++;
  }
  ck_assert_uint_eq(n, G_N_ELEMENTS(bad_files));
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
      {"{\"results\": [1, 2,]}", "x.txt:1:18: not valid JSON: unexpected character"},
      {"{\"results\": []} x", "x.txt:1:17: not valid JSON: unexpected identifier"},
      {"# nThread 1 nGpus 8\n 1024 256 float sum -1 1.0 1.0 1.75 0 1.0 1.0 "
       "1.75 0\n",
       "x.txt:2: a result row before the table header"},
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

START_TEST(test_own_format_passthrough)
{
  static const char text[] =
      VAL_MEAS_MAGIC "\n# gpu = X\n"
      "probe,test,mode,src,dst,ranks,size_bytes,iterations,time_us_min,"
      "time_us_median,time_us_max,bw_GBps,busbw_GBps\n"
      "hostdev,h2d,pinned,host,gpu0,1,1048576,20,21.1,21.3,22.0,49.23,"
      "49.23\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(ValMeasurements) m =
      val_import("own.csv", text, strlen(text), &error);

  ck_assert_msg(m != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq(m->points->len, 1);
}
END_TEST

Suite *suite_importmeas(void)
{
  Suite *s = suite_create("importmeas");
  TCase *tc = tcase_create("formats");
  TCase *bad = tcase_create("bad");

  tcase_add_test(tc, test_nccltests_text);
  tcase_add_test(tc, test_nccltests_old_layout);
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
  tcase_add_test(tc, test_own_format_passthrough);
  tcase_add_test(bad, test_bad_files);
  tcase_add_test(bad, test_bad_corpus_complete);
  tcase_add_test(bad, test_bad_inline);
  tcase_set_timeout(tc, 30);
  suite_add_tcase(s, tc);
  suite_add_tcase(s, bad);
  return s;
}
