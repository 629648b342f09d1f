/* The bad-input corpus of tests/data/bad: every file holds, on its first
 * line, "# expect: TEXT", a part of the error message its loader must give. */
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

#endif /* TESTS_BAD_CORPUS_H */
