/* The bad-input corpus of tests/data/bad: every INI file holds, on its first
 * line, "# expect: TEXT", a part of the error message its loader must give;
 * other corpora list FILE and TEXT in a manifest, expect.txt. */
#ifndef TESTS_BAD_CORPUS_H
#define TESTS_BAD_CORPUS_H

#include <glib.h>

/* Loads path; returns FALSE with an error when it cannot. */
typedef gboolean (*BadLoadFn)(const char *path, GError **error);

typedef enum {
  BAD_NAMES_PATH,            /* the message holds the file's path */
  BAD_NAMES_FILE_OR_BUILTIN, /* its name, or says "built in" */
} BadNaming;

/* Runs load on every *.ini of tests/data/bad/SUB and asserts that each
 * fails with its expected text and names its file.  Returns how many. */
guint bad_corpus_check(const char *sub, BadLoadFn load, BadNaming naming);

/* One case of a manifest: the file's path, its name and the expected text. */
typedef void (*BadCaseFn)(const char *path, const char *name,
                          const char *expect, gpointer data);

/* For corpora of any file type: tests/data/bad/SUB/expect.txt lists one case
 * a line, "FILE<TAB>TEXT" (blank lines and "#" comments aside).  Asserts
 * that the manifest and the directory name the same files, each once, and
 * runs fn on every case.  Returns how many. */
guint bad_corpus_manifest(const char *sub, BadCaseFn fn, gpointer data);

/* bad_corpus_manifest where every case is a file load must refuse with its
 * text, in a message that holds the file's path. */
guint bad_corpus_manifest_load(const char *sub, BadLoadFn load);

#endif /* TESTS_BAD_CORPUS_H */
