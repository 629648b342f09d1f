/* Tests of `ifsim sweep`'s grid (tools/sweep.c): varied keys and their
 * errors, the crossing order, the point's topology text, plan files, the
 * frames between processes and the progress line.  Whole sweeps (rows,
 * -j, MPI) are checked end to end by tests/cli/cli_test.sh. */
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "tests/suites.h"
#include "tools/cli.h"
#include "tools/sweep.h"

#define SWEEP_DIR IFSIM_TEST_DATA_DIR "/sweep"

/* Adds spec; returns the error message (NULL: accepted). */
static char *vary_error(CliSweep *sw, const char *spec)
{
  g_autoptr(GError) error = NULL;

  if (cli_sweep_add_vary(sw, spec, "--vary", &error))
    return NULL;
  ck_assert(error->domain == CLI_ERROR);
  return g_strdup(error->message);
}

START_TEST(test_vary_keys)
{
  g_autoptr(CliSweep) sw = cli_sweep_new();
  const CliSweepVary *v;
  const char *const bad[][2] = {
      {"system.servers", "'system.servers' is not KEY=V1,V2,..."},
      {"servers=1", "'servers' is not GROUP.KEY"},
      {".servers=1", "'.servers' is not GROUP.KEY"},
      {"system.=1", "'system.' is not GROUP.KEY"},
      {"sytem.servers=1", "unknown group 'sytem'"},
      {"link.cable_m=1", "unknown group 'link'"},
      {"run.nodes=1", "unknown workload key 'nodes' (run.KEY: collective,"},
      {"system.servers=1,,2", "empty value in '1,,2'"},
      {"system.servers=", "empty value in ''"},
      {"run.minbytes=8,1Q", "run.minbytes: '1Q' is not a size"},
      {"run.ranks=-1", "run.ranks: '-1' is not a count"},
      {"run.collective=allreduce,bcast", "'bcast' is not one of allreduce"},
      {"run.collnet=yes", "'yes' is not true or false"},
  };

  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_autofree char *msg = vary_error(sw, bad[i][0]);

    ck_assert_msg(msg && strstr(msg, bad[i][1]), "%s: got '%s'", bad[i][0],
                  msg ? msg : "(accepted)");
  }
  ck_assert_uint_eq(cli_sweep_n_vary(sw), 0);
  ck_assert_ptr_null(vary_error(sw, "system.servers = 2, 4 ,8"));
  ck_assert_ptr_null(vary_error(sw, "link ib-ndr-4x.cable_m=1,100"));
  ck_assert_ptr_null(vary_error(sw, "run.minbytes=1K,1M"));
  {
    g_autofree char *msg = vary_error(sw, "system.servers=1");
    ck_assert_str_eq(msg, "--vary: system.servers is varied twice (give its "
                          "values in one list)");
  }
  ck_assert_uint_eq(cli_sweep_n_vary(sw), 3);
  v = cli_sweep_vary(sw, 0);
  ck_assert_str_eq(v->group, "system");
  ck_assert_str_eq(v->key, "servers");
  ck_assert_uint_eq(g_strv_length(v->values), 3);
  ck_assert_str_eq(v->values[2], "8");
  /* a group with a space and dots split at the last dot */
  v = cli_sweep_vary(sw, 1);
  ck_assert_str_eq(v->name, "link ib-ndr-4x.cable_m");
  ck_assert_str_eq(v->group, "link ib-ndr-4x");
  ck_assert_str_eq(v->key, "cable_m");
}
END_TEST

START_TEST(test_grid_order)
{
  g_autoptr(CliSweep) sw = cli_sweep_new();
  g_autoptr(GError) error = NULL;
  static const char *const labels[] = {
      "system.servers=2, scaleout.oversubscription=1, run.algo=ring",
      "system.servers=2, scaleout.oversubscription=1, run.algo=tree",
      "system.servers=2, scaleout.oversubscription=2, run.algo=ring",
      "system.servers=2, scaleout.oversubscription=2, run.algo=tree",
      "system.servers=2, scaleout.oversubscription=3, run.algo=ring",
      "system.servers=2, scaleout.oversubscription=3, run.algo=tree",
      "system.servers=4, scaleout.oversubscription=1, run.algo=ring",
  };

  ck_assert(cli_sweep_add_vary(sw, "system.servers=2,4", "v", &error));
  ck_assert(
      cli_sweep_add_vary(sw, "scaleout.oversubscription=1,2,3", "v", &error));
  ck_assert(cli_sweep_add_vary(sw, "run.algo=ring,tree", "v", &error));
  cli_sweep_set_topology(sw, SWEEP_DIR "/tiny.ini");
  ck_assert_msg(cli_sweep_prepare(sw, &error), "%s", error->message);
  ck_assert_uint_eq(cli_sweep_points(sw), 12);
  for (guint p = 0; p < G_N_ELEMENTS(labels); p++) {
    g_autofree char *label = cli_sweep_point_label(sw, p);
    ck_assert_str_eq(label, labels[p]);
  }
  ck_assert_uint_eq(cli_sweep_value_index(sw, 11, 0), 1);
  ck_assert_uint_eq(cli_sweep_value_index(sw, 11, 1), 2);
  ck_assert_uint_eq(cli_sweep_value_index(sw, 11, 2), 1);
}
END_TEST

/* A point's system text has its values set, run keys left out. */
START_TEST(test_point_topology)
{
  g_autoptr(CliSweep) sw = cli_sweep_new();
  g_autoptr(GError) error = NULL;
  g_autoptr(GKeyFile) kf = g_key_file_new();
  g_autofree char *text = NULL;
  g_autofree char *servers = NULL, *cable = NULL, *lat = NULL;
  gsize len = 0;

  ck_assert(cli_sweep_add_vary(sw, "system.servers=2,8", "v", &error));
  ck_assert(cli_sweep_add_vary(sw, "link ib-hdr-4x.cable_m=3,30", "v", &error));
  ck_assert(cli_sweep_add_vary(sw, "nccl.latency_us=1", "v", &error));
  ck_assert(cli_sweep_add_vary(sw, "run.ranks=4", "v", &error));
  cli_sweep_set_topology(sw, SWEEP_DIR "/tiny.ini");
  ck_assert(cli_sweep_prepare(sw, &error));
  text = cli_sweep_point_topology(sw, 2, &len);
  ck_assert(g_key_file_load_from_data(kf, text, len, G_KEY_FILE_NONE, NULL));
  servers = g_key_file_get_value(kf, "system", "servers", NULL);
  cable = g_key_file_get_value(kf, "link ib-hdr-4x", "cable_m", NULL);
  lat = g_key_file_get_value(kf, "nccl", "latency_us", NULL);
  ck_assert_str_eq(servers, "8");
  ck_assert_str_eq(cable, "3");
  ck_assert_str_eq(lat, "1");
  ck_assert(!g_key_file_has_group(kf, "run"));
  ck_assert(g_key_file_has_key(kf, "scaleout", "radix", NULL));
}
END_TEST

static char *plan_error(const char *text)
{
  g_autofree char *path = NULL;
  g_autoptr(CliSweep) sw = cli_sweep_new();
  g_autoptr(GError) error = NULL;
  int fd = g_file_open_tmp("sweep-plan-XXXXXX.ini", &path, NULL);

  ck_assert_int_ge(fd, 0);
  close(fd);
  ck_assert(g_file_set_contents(path, text, -1, NULL));
  if (cli_sweep_load_plan(sw, path, &error)) {
    g_unlink(path);
    return NULL;
  }
  g_unlink(path);
  /* The message names the file first. */
  ck_assert(g_str_has_prefix(error->message, path));
  return g_strdup(error->message + strlen(path));
}

START_TEST(test_plan_errors)
{
  const char *const cases[][2] = {
      {"[sweep]\nminbytes = 1K\n[extra]\n",
       ": [extra]: unknown group (expected [sweep] and [vary])"},
      {"[sweep]\nminbyte = 1K\n", ": [sweep] minbyte: unknown key"},
      {"[sweep]\nminbytes = 1Q\n", ": [sweep] minbytes: '1Q' is not a size"},
      {"[sweep]\ntopology =\n", ": [sweep] topology: empty"},
      {"[vary]\nsystem.servers = 1,,2\n",
       ": [vary]: system.servers: empty value"},
      {"[vary]\nsytem.servers = 1\n", ": [vary]: sytem.servers: unknown group"},
      {"[vary]\na = 1\n[vary]\nb = 2\n", ": [vary]"}, /* repeated group */
      {"[vary\n", ""},                                /* not INI */
  };

  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *msg = plan_error(cases[i][0]);

    ck_assert_msg(msg && strstr(msg, cases[i][1]), "case %u: got '%s'", i,
                  msg ? msg : "(accepted)");
  }
  ck_assert_ptr_null(plan_error("[sweep]\nminbytes = 1K\n"));
}
END_TEST

/* The command line (already set) beats the plan's [sweep]; the plan's
 * [vary] keys come first; a key in both takes the command line's values. */
START_TEST(test_plan_precedence)
{
  g_autoptr(CliSweep) sw = cli_sweep_new();
  g_autoptr(GError) error = NULL;
  g_autofree char *csv = NULL;
  char *rows[4] = {NULL};

  ck_assert(cli_sweep_set_run(sw, "maxbytes", "2K", "--maxbytes", &error));
  ck_assert(cli_sweep_add_vary(sw, "run.algo=ring", "--vary", &error));
  ck_assert(cli_sweep_add_vary(sw, "system.servers=4", "--vary", &error));
  ck_assert_msg(cli_sweep_load_plan(sw, SWEEP_DIR "/plan.ini", &error), "%s",
                error->message);
  ck_assert_msg(cli_sweep_prepare(sw, &error), "%s", error->message);
  ck_assert_uint_eq(cli_sweep_n_vary(sw), 3);
  ck_assert_str_eq(cli_sweep_vary(sw, 0)->name, "system.servers");
  ck_assert_uint_eq(g_strv_length(cli_sweep_vary(sw, 0)->values), 1);
  ck_assert_str_eq(cli_sweep_vary(sw, 1)->name, "scaleout.oversubscription");
  ck_assert_str_eq(cli_sweep_vary(sw, 2)->name, "run.algo");
  ck_assert_uint_eq(cli_sweep_points(sw), 2);
  csv = cli_sweep_csv(sw, rows, NULL);
  ck_assert_ptr_nonnull(strstr(csv, "# run.maxbytes: 2K\n"));
  ck_assert_ptr_nonnull(strstr(csv, "# run.minbytes: 1K\n"));
  ck_assert_ptr_nonnull(strstr(csv, "# topology: tiny.ini\n"));
  ck_assert_ptr_nonnull(
      strstr(csv, "\npoint,system.servers,scaleout.oversubscription,run.algo,"
                  "collective,size_bytes,count_elements,"));
}
END_TEST

START_TEST(test_csv_quoting_and_failures)
{
  g_autoptr(CliSweep) sw = cli_sweep_new();
  g_autoptr(GError) error = NULL;
  g_autofree char *csv = NULL;
  char *rows[2] = {"0,x\n", NULL};
  char *failures[2] = {NULL, "point 1: a\nb"};

  ck_assert(cli_sweep_add_vary(sw, "link a\"b.cable_m=1,2", "v", &error));
  cli_sweep_set_topology(sw, SWEEP_DIR "/tiny.ini");
  ck_assert(cli_sweep_prepare(sw, &error));
  csv = cli_sweep_csv(sw, rows, failures);
  ck_assert_ptr_nonnull(strstr(csv, "# point 1 failed: point 1: a b\n"));
  ck_assert_ptr_nonnull(strstr(csv, "\npoint,\"link a\"\"b.cable_m\","));
  ck_assert(g_str_has_suffix(csv, "nccl_model_us\n0,x\n"));
}
END_TEST

START_TEST(test_frames)
{
  g_autoptr(GByteArray) buf = g_byte_array_new();
  gsize at = 0;
  guint32 p;
  gboolean ok;
  char *text;

  cli_sweep_frame_append(buf, 7, TRUE, "0,1\n");
  cli_sweep_frame_append(buf, 3, FALSE, "");
  /* a partial frame is left for later */
  ck_assert(!cli_sweep_frame_next(buf->data, 10, &at, &p, &ok, &text));
  ck_assert(!cli_sweep_frame_next(buf->data, 16 + 3, &at, &p, &ok, &text));
  ck_assert_uint_eq(at, 0);
  ck_assert(cli_sweep_frame_next(buf->data, buf->len, &at, &p, &ok, &text));
  ck_assert_uint_eq(p, 7);
  ck_assert(ok);
  ck_assert_str_eq(text, "0,1\n");
  g_free(text);
  ck_assert(cli_sweep_frame_next(buf->data, buf->len, &at, &p, &ok, &text));
  ck_assert_uint_eq(p, 3);
  ck_assert(!ok);
  ck_assert_str_eq(text, "");
  g_free(text);
  ck_assert_uint_eq(at, buf->len);
  ck_assert(!cli_sweep_frame_next(buf->data, buf->len, &at, &p, &ok, &text));
}
END_TEST

START_TEST(test_progress_text)
{
  g_autofree char *a = cli_sweep_progress_text(0, 16, 0.2);
  g_autofree char *b = cli_sweep_progress_text(4, 16, 12.0);
  g_autofree char *c = cli_sweep_progress_text(16, 16, 3725.0);
  g_autofree char *d = cli_sweep_progress_text(1, 3, 59.6);

  ck_assert_str_eq(a, "[....................] 0/16 points, 0:00 elapsed, "
                      "ETA --:--");
  ck_assert_str_eq(b, "[#####...............] 4/16 points, 0:12 elapsed, "
                      "ETA 0:36");
  ck_assert_str_eq(c, "[####################] 16/16 points, 1:02:05 "
                      "elapsed, ETA 0:00");
  ck_assert_str_eq(d, "[######..............] 1/3 points, 1:00 elapsed, "
                      "ETA 1:59");
}
END_TEST

Suite *suite_sweep(void)
{
  Suite *s = suite_create("sweep");
  TCase *tc = tcase_create("core");

  tcase_add_test(tc, test_vary_keys);
  tcase_add_test(tc, test_grid_order);
  tcase_add_test(tc, test_point_topology);
  tcase_add_test(tc, test_plan_errors);
  tcase_add_test(tc, test_plan_precedence);
  tcase_add_test(tc, test_csv_quoting_and_failures);
  tcase_add_test(tc, test_frames);
  tcase_add_test(tc, test_progress_text);
  suite_add_tcase(s, tc);
  return s;
}
