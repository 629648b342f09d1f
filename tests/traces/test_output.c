/* Tests of traces/output: a run's files replaced together or not at all,
 * no temporary left behind, a path given twice refused, and the memory
 * limit's refusal (sim/memory). */
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/error.h"
#include "sim/memory.h"
#include "tests/suites.h"
#include "traces/output.h"

static gint cmp_names(gconstpointer a, gconstpointer b)
{
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names in dir, sorted, joined by spaces. */
static char *listing(const char *dir)
{
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
  const char *n;

  while ((n = g_dir_read_name(d)))
    g_ptr_array_add(names, g_strdup(n));
  g_ptr_array_sort(names, cmp_names);
  g_ptr_array_add(names, NULL);
  return g_strjoinv(" ", (char **)names->pdata);
}

static char *slurp(const char *path)
{
  char *text = NULL;

  ck_assert(g_file_get_contents(path, &text, NULL, NULL));
  return text;
}

START_TEST(test_commit_together)
{
  g_autofree char *dir = g_dir_make_tmp("ifsim-out-XXXXXX", NULL);
  g_autofree char *a = g_build_filename(dir, "a.csv", NULL);
  g_autofree char *b = g_build_filename(dir, "b.json", NULL);
  g_autofree char *bad = g_build_filename(dir, "no", "c.csv", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *ls = NULL, *ta = NULL, *tb = NULL;

  {
    g_autoptr(TrcOutputs) o = trc_outputs_new();
    ck_assert(trc_outputs_add(o, a, g_strdup("new a\n"), &error));
    ck_assert(trc_outputs_add(o, b, g_strdup("new b\n"), &error));
    /* before the commit only temporaries exist */
    ls = listing(dir);
    ck_assert_ptr_null(strstr(ls, "a.csv "));
    ck_assert(trc_outputs_commit(o, &error));
  }
  g_free(ls);
  ls = listing(dir);
  ck_assert_str_eq(ls, "a.csv b.json");
  ta = slurp(a);
  ck_assert_str_eq(ta, "new a\n");
  /* a later run that fails on its second file leaves both as they were */
  {
    g_autoptr(TrcOutputs) o = trc_outputs_new();
    ck_assert(trc_outputs_add(o, a, g_strdup("newer a\n"), &error));
    ck_assert(!trc_outputs_add(o, bad, g_strdup("c\n"), &error));
    ck_assert(g_str_has_prefix(error->message, bad));
    ck_assert_ptr_nonnull(strstr(error->message, ": cannot write ("));
  }
  g_free(ls);
  ls = listing(dir);
  ck_assert_str_eq(ls, "a.csv b.json");
  g_free(ta);
  ta = slurp(a);
  ck_assert_str_eq(ta, "new a\n");
  tb = slurp(b);
  ck_assert_str_eq(tb, "new b\n");
  /* one path for two outputs */
  g_clear_error(&error);
  {
    g_autoptr(TrcOutputs) o = trc_outputs_new();
    ck_assert(trc_outputs_add(o, a, g_strdup("x"), &error));
    ck_assert(!trc_outputs_add(o, a, g_strdup("y"), &error));
    ck_assert_ptr_nonnull(strstr(error->message, "given for two outputs"));
  }
  /* a reserved temporary exists until the set is freed */
  {
    g_autoptr(TrcOutputs) o = trc_outputs_new();
    const char *tmp = trc_outputs_reserve(o, b, NULL);
    ck_assert_ptr_nonnull(tmp);
    ck_assert(g_file_test(tmp, G_FILE_TEST_EXISTS));
  }
  g_free(ls);
  ls = listing(dir);
  ck_assert_str_eq(ls, "a.csv b.json");
  g_unlink(a);
  g_unlink(b);
  g_rmdir(dir);
}
END_TEST

START_TEST(test_memory_limit)
{
  g_autoptr(GError) error = NULL;
  gboolean user;

  ck_assert_uint_gt(sim_memory_limit(&user), 0);
  ck_assert(!user);
  sim_memory_set_limit(64u << 20);
  ck_assert_uint_eq(sim_memory_limit(&user), 64u << 20);
  ck_assert(user);
  ck_assert(sim_memory_check(64u << 20, "x", "y", &error));
  ck_assert(!sim_memory_check((64u << 20) + 1, "the run", "3 ranks", &error));
  ck_assert(g_error_matches(error, SIM_ERROR, SIM_ERROR_MEMORY));
  ck_assert_str_eq(error->message,
                   "the run needs about 64.0 MiB of memory (3 ranks), more "
                   "than the 64.0 MiB allowed");
  sim_memory_set_limit(0);
  ck_assert(sim_memory_limit(&user) > 0 && !user);
}
END_TEST

/* Only regular files are replaced: a symbolic link is kept and its target
 * written (with its permission bits), /dev/null stays a device, /dev/full
 * is a write error, a FIFO nobody reads and a directory are refused. */
START_TEST(test_not_regular_files)
{
  g_autofree char *dir = g_dir_make_tmp("ifsim-out-XXXXXX", NULL);
  g_autofree char *target = g_build_filename(dir, "target.csv", NULL);
  g_autofree char *link = g_build_filename(dir, "link.csv", NULL);
  g_autofree char *fifo = g_build_filename(dir, "fifo", NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  GStatBuf st;

  ck_assert_ptr_nonnull(dir);
  ck_assert(g_file_set_contents(target, "old\n", -1, NULL));
  ck_assert_int_eq(g_chmod(target, 0640), 0);
  ck_assert_int_eq(symlink("target.csv", link), 0);
  ck_assert(trc_write_text(link, g_strdup("new\n"), &error));
  ck_assert(g_file_test(link, G_FILE_TEST_IS_SYMLINK));
  ck_assert(g_file_get_contents(target, &text, NULL, NULL));
  ck_assert_str_eq(text, "new\n");
  ck_assert_int_eq(g_stat(target, &st), 0);
  ck_assert_int_eq(st.st_mode & 07777, 0640);

  ck_assert(trc_write_text("/dev/null", g_strdup("x\n"), &error));
  ck_assert_int_eq(g_stat("/dev/null", &st), 0);
  ck_assert(S_ISCHR(st.st_mode));
  if (g_file_test("/dev/full", G_FILE_TEST_EXISTS)) {
    ck_assert(!trc_write_text("/dev/full", g_strdup("x\n"), &error));
    ck_assert_ptr_nonnull(strstr(error->message, "/dev/full: cannot write"));
    g_clear_error(&error);
  }
  ck_assert_int_eq(mkfifo(fifo, 0600), 0);
  ck_assert(!trc_write_text(fifo, g_strdup("x\n"), &error));
  ck_assert(g_error_matches(error, G_FILE_ERROR, G_FILE_ERROR_NXIO));
  g_clear_error(&error);
  ck_assert(!trc_write_text(dir, g_strdup("x\n"), &error));
  ck_assert(g_error_matches(error, G_FILE_ERROR, G_FILE_ERROR_ISDIR));
  g_clear_error(&error);
  /* nothing but the three entries: no temporary left */
  {
    g_autofree char *names = listing(dir);

    ck_assert_str_eq(names, "fifo link.csv target.csv");
  }
  g_unlink(fifo);
  g_unlink(link);
  g_unlink(target);
  g_rmdir(dir);
}
END_TEST

Suite *suite_output(void)
{
  Suite *s = suite_create("output");
  TCase *tc = tcase_create("output");

  tcase_add_test(tc, test_commit_together);
  tcase_add_test(tc, test_memory_limit);
  tcase_add_test(tc, test_not_regular_files);
  suite_add_tcase(s, tc);
  return s;
}
