/* What the importers (validate/import*.c) share: the text as numbered
 * lines, errors that name file and line, number cells, and the hints a
 * CSV transcription or a tool output may carry in "# key = value" lines.
 * `val__` marks names used across the importer files and nowhere else. */
#ifndef VALIDATE_IMPORT_INTERNAL_H
#define VALIDATE_IMPORT_INTERNAL_H

#include <json-glib/json-glib.h>

#include "validate/error.h"
#include "validate/import.h"

/* The start of VAL_MEAS_MAGIC, the same for every version of the
 * format. */
#define VAL__MEAS_STEM "# ifsim measurements "

/* The text split into lines ('\r' before '\n' dropped); line i (0-based)
 * is line i + 1 in messages. */
typedef struct {
  const char *name;
  char **lines; /* one block (sim_input_lines): g_free */
  guint n;
  guint line0; /* lines of the file before lines[0] (a run of a paste of
                  several: messages name the file's lines) */
  /* hints the user gave for files that do not say them (validate and
   * calibrate --collective, --ranks): key -> value, the file's own
   * "# key = value" lines win; may be NULL */
  GHashTable *given;
} ValText;

/* Splits text into t's lines (sim_input_lines: refused, with error set, when
 * they would not fit in memory). */
gboolean val__text_init(ValText *t, const char *name, const char *text,
                        gsize len, GError **error);
void val__text_clear(ValText *t);

/* Whitespace-separated tokens of a line (no empty tokens). */
GStrv val__tokens(const char *line);

/* Sets "NAME:LINE: message" (or "NAME: message" when line is 0) as a
 * VAL_ERROR_PARSE error; returns FALSE so callers can `return val__fail`. */
gboolean val__fail(GError **error, const char *name, guint line,
                   const char *fmt, ...) G_GNUC_PRINTF(4, 5);

/* A finite number >= 0 in `tok`; otherwise an error naming the column
 * `what` and the text found. */
gboolean val__num(const char *name, guint line, const char *what,
                  const char *tok, double *out, GError **error);
/* TRUE when s is one or more ASCII digits and nothing else. */
gboolean val__all_digits(const char *s);

/* A whole number >= 1 (sizes, counts). */
gboolean val__count(const char *name, guint line, const char *what,
                    const char *tok, guint64 *out, GError **error);

/* TRUE when a table row starts with tok: a digit, or a sign and a digit
 * (a negative size is a bad row, not a line to skip). */
gboolean val__numeric_start(const char *tok);

/* Text from the file for a message: at most 40 characters, longer text
 * cut and marked "...", so that a huge line gives a readable error.  The
 * caller frees it. */
char *val__excerpt(const char *s);

/* The gate before any parser: no NUL, valid UTF-8, no control characters
 * other than tab, line breaks and form feed; else an error naming the
 * file. */
gboolean val__check_text(const char *name, const char *text, gsize len,
                         GError **error);

/* Each point once: `seen` (from val__seen_new) maps the names of the
 * points added so far (probe, test, mode, src, dst, ranks, size) to the
 * line that gave them.  Records p and returns TRUE when it is new, else
 * fails naming both lines (a table, matrix or row given twice). */
typedef struct ValSeen ValSeen;
ValSeen *val__seen_new(void);
void val__seen_free(ValSeen *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ValSeen, val__seen_free)
gboolean val__point_once(ValSeen *seen, const ValPoint *p, const char *name,
                         guint line, GError **error);

/* Records the GPU names seen (in order, duplicates allowed) as the header
 * keys "gpu" (distinct names joined with " + ") and "gpu.count". */
void val__set_gpus(ValMeasurements *m, GPtrArray *names);

/* "# key = value" comment lines anywhere in the text: every key of lower
 * case letters, digits, '_' and '.' is returned in a table (key -> value,
 * stripped).  Importers take "collective", "ranks", "test" and "mode" as
 * hints for what the file does not say and copy the rest into the header
 * block.  The caller owns the table. */
GHashTable *val__hints(const ValText *t);
/* Copies the hints other than collective/ranks/test/mode into m, in the
 * order of the file. */
void val__copy_hints(ValMeasurements *m, const ValText *t);
/* The line (1-based) of the last "# key = ..." hint, for messages; 0 when
 * there is none. */
guint val__hint_line(const ValText *t, const char *key);

/* The header row of a CSV transcription: exactly the ncols names of
 * cols, in order; else an error naming the line and the first column
 * that differs (or the first one too many). */
gboolean val__csv_columns(const ValText *t, const ValCsv *csv,
                          const char *const *cols, guint ncols,
                          GError **error);

/* nccl-tests collective names ("all_reduce", "all_reduce_perf",
 * "allreduce", "AllReduce") -> the test name of measure.h ("allreduce"),
 * or NULL when none of the seven. */
const char *val__nccl_collective(const char *text);

/* --- the importers; each assumes its format was recognised ----------- */

/* One JSON document, refused with the place when it is not valid, holds a
 * key twice in an object, nests too deep or is followed by another. */
JsonParser *val__json_parse(const char *name, const char *text, gsize len,
                            GError **error);

ValMeasurements *val__import_nccltests_text(const ValText *t, GError **error);
ValMeasurements *val__import_nccltests_json(const char *name, const char *text,
                                            gsize len, GError **error);
/* CSV transcriptions: rows after the header row of ValCsv `csv`. */
ValMeasurements *val__import_nccl_csv(const ValText *t, const ValCsv *csv,
                                      GError **error);
ValMeasurements *val__import_perftest_text(const ValText *t, GError **error);
ValMeasurements *val__import_perftest_csv(const ValText *t, const ValCsv *csv,
                                          GError **error);
ValMeasurements *val__import_p2p_text(const ValText *t, GError **error);
ValMeasurements *val__import_p2p_csv(const ValText *t, const ValCsv *csv,
                                     GError **error);
ValMeasurements *val__import_nvbw_text(const ValText *t, GError **error);
/* nvbandwidth -j: {"nvbandwidth": {...}} */
ValMeasurements *val__import_nvbw_json(const char *name, const char *text,
                                       gsize len, GError **error);
ValMeasurements *val__import_nvbw_csv(const ValText *t, const ValCsv *csv,
                                      GError **error);

#endif /* VALIDATE_IMPORT_INTERNAL_H */
