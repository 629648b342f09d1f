/* The bad-input corpus walk; see tests/bad_corpus.h. */
#include "tests/bad_corpus.h"

#include <check.h>
#include <string.h>

guint bad_corpus_check(const char *sub, BadLoadFn load, BadNaming naming)
{
  g_autofree char *dir =
      g_build_filename(IFSIM_TEST_DATA_DIR, "bad", sub, NULL);
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  const char *name;
  guint n = 0;

  ck_assert_ptr_nonnull(d);
  while ((name = g_dir_read_name(d))) {
    g_autofree char *path = g_build_filename(dir, name, NULL);
    g_autofree char *text = NULL;
    g_autofree char *expect = NULL;
    g_autoptr(GError) error = NULL;
    const char *eol;
    gboolean named;

    if (!g_str_has_suffix(name, ".ini"))
      continue;
    ck_assert(g_file_get_contents(path, &text, NULL, NULL));
    ck_assert_msg(g_str_has_prefix(text, "# expect: "), "%s: no expect line",
                  name);
    eol = strchr(text, '\n');
    expect = g_strndup(text + 10, (gsize)(eol - text - 10));
    ck_assert_msg(!load(path, &error), "%s loaded", name);
    ck_assert_msg(strstr(error->message, expect) != NULL,
                  "%s: message '%s' lacks '%s'", name, error->message, expect);
    named = naming == BAD_NAMES_PATH
                ? strstr(error->message, path) != NULL
                : strstr(error->message, name) != NULL ||
                      strstr(error->message, "built in") != NULL;
    ck_assert_msg(named, "%s: message '%s' does not name the file", name,
                  error->message);
    n++;
  }
  return n;
}

guint bad_corpus_manifest(const char *sub, BadCaseFn fn, gpointer data)
{
  g_autofree char *dir =
      g_build_filename(IFSIM_TEST_DATA_DIR, "bad", sub, NULL);
  g_autofree char *manifest = g_build_filename(dir, "expect.txt", NULL);
  g_autofree char *text = NULL;
  g_autoptr(GHashTable) listed =
      g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  g_auto(GStrv) lines = NULL;
  const char *name;
  guint n = 0;

  ck_assert_msg(g_file_get_contents(manifest, &text, NULL, NULL),
                "%s: no manifest", manifest);
  lines = g_strsplit(text, "\n", -1);
  for (guint i = 0; lines[i]; i++) {
    const char *tab = strchr(lines[i], '\t');
    g_autofree char *file = NULL, *path = NULL;
    if (!*lines[i] || *lines[i] == '#')
      continue;
    ck_assert_msg(tab && tab[1], "%s:%u: expected FILE<TAB>TEXT", manifest,
                  i + 1);
    file = g_strndup(lines[i], (gsize)(tab - lines[i]));
    path = g_build_filename(dir, file, NULL);
    ck_assert_msg(g_file_test(path, G_FILE_TEST_IS_REGULAR),
                  "%s:%u: no file %s", manifest, i + 1, file);
    ck_assert_msg(!g_hash_table_contains(listed, file),
                  "%s:%u: %s is listed twice", manifest, i + 1, file);
    fn(path, file, tab + 1, data);
    g_hash_table_add(listed, g_steal_pointer(&file));
    n++;
  }
  ck_assert_ptr_nonnull(d);
  while ((name = g_dir_read_name(d))) {
    ck_assert_msg(!strcmp(name, "expect.txt") ||
                      g_hash_table_contains(listed, name),
                  "%s: %s is not in the manifest", dir, name);
  }
  return n;
}

typedef struct {
  BadLoadFn load;
} LoadCase;

static void refused(const char *path, const char *name, const char *expect,
                    gpointer data)
{
  const LoadCase *c = data;
  g_autoptr(GError) error = NULL;

  ck_assert_msg(!c->load(path, &error), "%s loaded", name);
  ck_assert_msg(strstr(error->message, expect) != NULL,
                "%s: message '%s' lacks '%s'", name, error->message, expect);
  ck_assert_msg(strstr(error->message, path) != NULL,
                "%s: message '%s' does not name the file", name,
                error->message);
}

guint bad_corpus_manifest_load(const char *sub, BadLoadFn load)
{
  LoadCase c = {load};

  return bad_corpus_manifest(sub, refused, &c);
}
