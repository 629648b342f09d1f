/* sim/input: bounded, interruptible reading of input files, and lines. */
#include <check.h>
#include <errno.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/error.h"
#include "sim/input.h"
#include "sim/interrupt.h"
#include "tests/suites.h"

static char *tmp_file(const char *text, gsize len)
{
  char *path = NULL;
  int fd = g_file_open_tmp("ifsim-input-XXXXXX", &path, NULL);

  ck_assert_int_ge(fd, 0);
  ck_assert(g_file_set_contents(path, text, (gssize)len, NULL));
  close(fd);
  return path;
}

START_TEST(test_read_file)
{
  static const char text[] = "a\0b\nc";
  g_autofree char *path = tmp_file(text, sizeof text - 1);
  g_autofree char *data = NULL;
  g_autoptr(GError) error = NULL;
  gsize len;

  ck_assert(sim_input_read(path, &data, &len, &error));
  ck_assert_uint_eq(len, sizeof text - 1);
  ck_assert(memcmp(data, text, len) == 0);
  ck_assert_int_eq(data[len], '\0');
  g_unlink(path);
}
END_TEST

START_TEST(test_read_errors)
{
  g_autofree char *data = NULL;
  g_autoptr(GError) error = NULL;
  gsize len = 7;

  ck_assert(!sim_input_read("/nonexistent/x.ini", &data, &len, &error));
  ck_assert(g_error_matches(error, G_FILE_ERROR, G_FILE_ERROR_NOENT));
  ck_assert_str_eq(
      error->message,
      "/nonexistent/x.ini: cannot read: No such file or directory");
  ck_assert(data == NULL && len == 0);
  g_clear_error(&error);
  ck_assert(!sim_input_read("/", &data, &len, &error));
  ck_assert(g_error_matches(error, G_FILE_ERROR, G_FILE_ERROR_ISDIR));
  ck_assert_str_eq(error->message, "/: is a directory, not a file");
}
END_TEST

START_TEST(test_read_limit)
{
  g_autofree char *big = g_malloc0(3000);
  g_autofree char *path = tmp_file(big, 3000);
  g_autofree char *data = NULL;
  g_autoptr(GError) error = NULL;
  gsize len;

  sim_input_set_advice("--max-input SIZE reads larger ones");
  sim_input_set_limit(2048);
  /* a regular file: refused from its size */
  ck_assert(!sim_input_read(path, &data, &len, &error));
  ck_assert(g_error_matches(error, SIM_ERROR, SIM_ERROR_RANGE));
  ck_assert(strstr(error->message, path) == error->message);
  ck_assert(strstr(error->message, ": larger than the 2 KiB allowed for an "
                                   "input file; --max-input SIZE reads larger "
                                   "ones") != NULL);
  g_clear_error(&error);
  /* a device without a size: refused one byte past the limit */
  ck_assert(!sim_input_read("/dev/zero", &data, &len, &error));
  ck_assert(g_error_matches(error, SIM_ERROR, SIM_ERROR_RANGE));
  ck_assert(g_str_has_prefix(error->message, "/dev/zero: larger than"));
  g_clear_error(&error);
  /* exactly the limit is read */
  sim_input_set_limit(3000);
  ck_assert(sim_input_read(path, &data, &len, &error));
  ck_assert_uint_eq(len, 3000);
  sim_input_set_limit(0);
  sim_input_set_advice(NULL);
  ck_assert_uint_eq(sim_input_limit(), SIM_INPUT_LIMIT_DEFAULT);
  g_unlink(path);
}
END_TEST

/* A FIFO nobody writes blocks open(); SIGTERM, as sim/interrupt.h catches
 * it, ends the read with "interrupted", not a hang. */
START_TEST(test_read_fifo_interrupted)
{
  g_autofree char *dir = g_dir_make_tmp("ifsim-input-XXXXXX", NULL);
  g_autofree char *fifo = g_build_filename(dir, "fifo", NULL);
  g_autofree char *data = NULL;
  g_autoptr(GError) error = NULL;
  gsize len;
  pid_t parent = getpid(), child;

  ck_assert_int_eq(mkfifo(fifo, 0600), 0);
  sim_interrupt_install();
  child = fork();
  if (child == 0) {
    g_usleep(200000);
    kill(parent, SIGTERM);
    _exit(0);
  }
  ck_assert(!sim_input_read(fifo, &data, &len, &error));
  ck_assert(g_error_matches(error, SIM_ERROR, SIM_ERROR_INTERRUPTED));
  ck_assert(g_str_has_suffix(error->message, "fifo: interrupted (SIGTERM)"));
  g_unlink(fifo);
  g_rmdir(dir);
}
END_TEST

START_TEST(test_lines)
{
  static const char *const texts[] = {"",     "a",    "a\n",
                                      "a\nb", "\n\n", "x\r\ny\n\nz"};
  g_autoptr(GError) error = NULL;

  /* as g_strsplit(text, "\n", -1) */
  for (guint i = 0; i < G_N_ELEMENTS(texts); i++) {
    g_auto(GStrv) want = g_strsplit(texts[i], "\n", -1);
    guint n = 99;
    g_autofree char **got =
        sim_input_lines(texts[i], strlen(texts[i]), "t", &n, &error);

    ck_assert(got != NULL);
    ck_assert_uint_eq(n, g_strv_length(want));
    for (guint k = 0; k <= n; k++) {
      if (!want[k])
        ck_assert(got[k] == NULL);
      else
        ck_assert_str_eq(got[k], want[k]);
    }
  }
}
END_TEST

/* A line-based format read LF or CRLF: each line's final CR goes, a CR
 * inside a line stays; binary data is refused as sim_input_check_text
 * refuses it. */
START_TEST(test_text_lines)
{
  static const char text[] = "a\r\nb\rc\r\n\r\nd";
  static const char *const want[] = {"a", "b\rc", "", "d"};
  g_autoptr(GError) error = NULL;
  guint n = 0;
  g_autofree char **got =
      sim_input_text_lines(text, strlen(text), "t", &n, &error);

  ck_assert(got != NULL);
  ck_assert_uint_eq(n, G_N_ELEMENTS(want));
  for (guint k = 0; k < n; k++)
    ck_assert_str_eq(got[k], want[k]);
  ck_assert(got[n] == NULL);
  ck_assert(sim_input_text_lines("a\0b", 3, "t", NULL, &error) == NULL);
  ck_assert(g_error_matches(error, SIM_ERROR, SIM_ERROR_PARSE));
}
END_TEST

Suite *suite_input(void)
{
  Suite *s = suite_create("input");
  TCase *tc = tcase_create("input");

  tcase_add_test(tc, test_read_file);
  tcase_add_test(tc, test_read_errors);
  tcase_add_test(tc, test_read_limit);
  tcase_add_test(tc, test_read_fifo_interrupted);
  tcase_add_test(tc, test_lines);
  tcase_add_test(tc, test_text_lines);
  suite_add_tcase(s, tc);
  return s;
}
