/* Tests of the CLI's option parsing (tools/cli.c, tools/cmd_run.c): size
 * and count options, and exit statuses of cli_main.  Messages are checked
 * end to end by tests/cli/cli_test.sh. */
#include <fcntl.h>
#include <math.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/error.h"
#include "sim/memory.h"
#include "sim/units.h"
#include "tests/suites.h"
#include "tools/cli.h"
#include "tools/nccl_options.h"
#include "traces/timeline.h"

/* Parses args with one option of each number kind. */
static gboolean parse_numbers(const char *args, guint64 *size, guint64 *count,
                              gboolean *seen, GError **error)
{
  CliNumberTarget targets[] = {{"size", 's', CLI_NUMBER_SIZE, size, seen, 0},
                               {"count", 'n', CLI_NUMBER_COUNT, count, NULL, 0},
                               {NULL, 0, 0, NULL, NULL, 0}};
  GOptionEntry entries[] = {
      {"size", 's', 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option, "", ""},
      {"count", 'n', 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option, "", ""},
      G_OPTION_ENTRY_NULL};
  g_autoptr(GOptionContext) ctx = g_option_context_new(NULL);
  GOptionGroup *group = g_option_group_new("t", "t", "t", targets, NULL);
  g_auto(GStrv) argv = NULL;
  g_autofree char *line = g_strdup_printf("test %s", args);

  g_option_group_add_entries(group, entries);
  g_option_context_set_main_group(ctx, group);
  g_option_context_set_help_enabled(ctx, FALSE);
  argv = g_strsplit(line, " ", -1);
  return g_option_context_parse_strv(ctx, &argv, error);
}

START_TEST(test_number_options)
{
  guint64 size = 0, count = 0;
  gboolean seen = FALSE;
  g_autoptr(GError) error = NULL;

  ck_assert(parse_numbers("-s 128M -n 010", &size, &count, &seen, &error));
  ck_assert_uint_eq(size, UINT64_C(128) << 20);
  ck_assert_uint_eq(count, 10); /* decimal, where GOption's INT gives 8 */
  ck_assert(seen);
  ck_assert(parse_numbers("--size=8G --count 3", &size, &count, &seen, &error));
  ck_assert_uint_eq(size, UINT64_C(8) << 30);
  ck_assert_uint_eq(count, 3);
  ck_assert(!parse_numbers("-s 12X", &size, &count, &seen, &error));
  ck_assert(strstr(error->message, "-s: '12X' is not a size") != NULL);
  g_clear_error(&error);
  ck_assert(!parse_numbers("--count 0x10", &size, &count, &seen, &error));
  ck_assert(strstr(error->message, "--count: '0x10' is not a count") != NULL);
  g_clear_error(&error);
  ck_assert(!parse_numbers("-n -3", &size, &count, &seen, &error));
  g_clear_error(&error);
  ck_assert(
      !parse_numbers("-s 99999999999999999999", &size, &count, &seen, &error));
  ck_assert(strstr(error->message, "too large") != NULL);
}
END_TEST

static int run_cli(const char *args)
{
  g_auto(GStrv) argv = g_strsplit(args, " ", -1);
  int status, saved, null_fd;

  /* Keep the expected error messages out of the test log. */
  fflush(stderr);
  saved = dup(STDERR_FILENO);
  null_fd = open("/dev/null", O_WRONLY);
  ck_assert(saved >= 0 && null_fd >= 0);
  dup2(null_fd, STDERR_FILENO);
  close(null_fd);
  status = cli_main((int)g_strv_length(argv), argv);
  fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  return status;
}

/* The engine's memory refusal in the CLI's words: the flag that sets the
 * limit, and the value that would run the refused scenario. */
START_TEST(test_memory_wording)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) plain = NULL;
  guint64 have = sim_memory_limit(NULL);
  g_autofree char *advice =
      g_strdup_printf("available; --max-memory %.0fG runs it anyway",
                      ceil((double)(have + 1) / (1024.0 * 1024.0 * 1024.0)));

  cli_memory_wording_install();
  ck_assert(!sim_memory_check(have + 1, "the run", "3 ranks", &error));
  ck_assert(g_error_matches(error, SIM_ERROR, SIM_ERROR_MEMORY));
  ck_assert(g_str_has_suffix(error->message, advice));
  g_clear_error(&error);
  ck_assert(cli_apply_max_memory(64u << 20, TRUE, &error));
  ck_assert(!sim_memory_check((64u << 20) + 1, "the run", "3 ranks", &error));
  ck_assert_str_eq(error->message,
                   "the run needs about 64.0 MiB of memory (3 ranks), more "
                   "than the 64.0 MiB allowed by --max-memory; --max-memory "
                   "1G runs it anyway");
  /* without the CLI's words the engine names no flag */
  sim_memory_set_wording(NULL);
  ck_assert(!sim_memory_check((64u << 20) + 1, "the run", "3 ranks", &plain));
  ck_assert(strstr(plain->message, "--max-memory") == NULL);
  sim_memory_set_limit(0);
}
END_TEST

START_TEST(test_exit_statuses)
{
  ck_assert_int_eq(run_cli("ifsim"), CLI_EXIT_USAGE);
  ck_assert_int_eq(run_cli("ifsim bogus"), CLI_EXIT_USAGE);
  ck_assert_int_eq(run_cli("ifsim run -b 12X"), CLI_EXIT_USAGE);
  ck_assert_int_eq(run_cli("ifsim run -b 16 -e 8"), CLI_EXIT_USAGE);
  ck_assert_int_eq(run_cli("ifsim run -f 1"), CLI_EXIT_USAGE);
  ck_assert_int_eq(run_cli("ifsim run -i 8 -f 4"), CLI_EXIT_USAGE);
  ck_assert_int_eq(run_cli("ifsim run -c bcast"), CLI_EXIT_USAGE);
  ck_assert_int_eq(run_cli("ifsim run --fidelity exact"), CLI_EXIT_USAGE);
  ck_assert_int_eq(run_cli("ifsim run extra"), CLI_EXIT_USAGE);
  ck_assert_int_eq(run_cli("ifsim sweep --vary a=1"), CLI_EXIT_USAGE);
}
END_TEST

/* The timeline of a small run is valid JSON, well nested on every track
 * (overflow tracks taking the pipelined slices), one process per rank;
 * for every transport. */
START_TEST(test_run_timeline)
{
  static const char *const fid[] = {"analytical", "flow", "packet"};
  g_autofree char *dir = g_dir_make_tmp("ifsim-tl-XXXXXX", NULL);
  g_autofree char *path = g_build_filename(dir, "t.json", NULL);
  g_autofree char *args = g_strdup_printf(
      "ifsim run -g 4 -b 1M -e 4M --fidelity %s --timeline %s", fid[_i],
      path);
  g_autofree char *json = NULL;
  g_autoptr(GError) error = NULL;
  guint pids = 0;

  ck_assert(dir != NULL);
  ck_assert_int_eq(run_cli(args), CLI_EXIT_OK);
  ck_assert(g_file_get_contents(path, &json, NULL, NULL));
  ck_assert_msg(trc_timeline_check(json, &pids, &error), "%s",
                error ? error->message : "");
  ck_assert_uint_eq(pids, 4);
  ck_assert(strstr(json, "\"name\":\"AllReduce\"") != NULL);
  ck_assert_int_eq(strstr(json, "\"name\":\"fabric\"") != NULL, _i > 0);
  g_remove(path);
  g_rmdir(dir);
}
END_TEST

/* The timeline of a replayed step: well nested on every track (a rank's
 * pipeline sends overlap, moved to overflow tracks), a process per rank,
 * the ops by name, the fabric's counters. */
START_TEST(test_replay_timeline)
{
  g_autofree char *dir = g_dir_make_tmp("ifsim-rt-XXXXXX", NULL);
  g_autofree char *path = g_build_filename(dir, "t.json", NULL);
  g_autofree char *args = g_strdup_printf(
      "ifsim replay %s/docs/workload-example.csv --hot-links 4 --timeline %s",
      IFSIM_SOURCE_DIR, path);
  g_autofree char *json = NULL;
  g_autoptr(GError) error = NULL;
  guint pids = 0;

  ck_assert(dir != NULL);
  ck_assert_int_eq(run_cli(args), CLI_EXIT_OK);
  ck_assert(g_file_get_contents(path, &json, NULL, NULL));
  ck_assert_msg(trc_timeline_check(json, &pids, &error), "%s",
                error ? error->message : "");
  ck_assert_uint_eq(pids, 8);
  ck_assert(strstr(json, "\"name\":\"mb0.l0.fwd.attn_allreduce\"") != NULL);
  ck_assert(strstr(json, "workload-example rank 3 (server 0 GPU 3)") != NULL);
  ck_assert(strstr(json, "\"name\":\"fabric\"") != NULL);
  g_remove(path);
  g_rmdir(dir);
}
END_TEST

/* The commands' --help names every NCCL_* variable they read. */
START_TEST(test_env_help)
{
  for (guint i = 0; nccl_env_vars[i]; i++) {
    g_autofree char *word = g_strconcat(nccl_env_vars[i], ",", NULL);
    g_autofree char *last = g_strconcat(nccl_env_vars[i], " ", NULL);

    ck_assert_msg(strstr(CLI_NCCL_ENV_HELP, word) ||
                      strstr(CLI_NCCL_ENV_HELP, last),
                  "%s", nccl_env_vars[i]);
  }
}
END_TEST

Suite *suite_cli(void)
{
  Suite *s = suite_create("cli");
  TCase *tc = tcase_create("options");

  tcase_add_test(tc, test_number_options);
  tcase_add_test(tc, test_memory_wording);
  tcase_add_test(tc, test_exit_statuses);
  tcase_add_test(tc, test_env_help);
  tcase_add_loop_test(tc, test_run_timeline, 0, 3);
  tcase_add_test(tc, test_replay_timeline);
  suite_add_tcase(s, tc);
  return s;
}
