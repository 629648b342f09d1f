/* Reading input files: every file ifsim reads comes from a user and may be
 * anything (/dev/zero, a FIFO nobody writes, a 40 GB log given by mistake),
 * so no reader may exhaust the machine's memory or stop answering Ctrl-C.
 *
 * sim_input_read() reads a whole file up to a size limit, process-wide
 * (SIM_INPUT_LIMIT_DEFAULT, or the one the program sets for its user), and
 * returns to its caller as soon as SIGINT or SIGTERM arrives
 * (sim/interrupt.h), even while blocked opening a FIFO or reading a slow
 * device.  sim_input_lines() splits a text into lines in one block, after
 * asking sim/memory.h whether the lines fit. */
#ifndef SIM_INPUT_H
#define SIM_INPUT_H

#include <glib.h>

/* 256 MiB: above the largest input a user has brought so far (the
 * explicit network of a 100k-GPU fabric, a million-row workload CSV are
 * each under 100 MB), far below the memory of a machine that runs ifsim. */
#define SIM_INPUT_LIMIT_DEFAULT ((guint64)256 << 20)

/* Sets the limit in bytes; 0 restores SIM_INPUT_LIMIT_DEFAULT. */
void sim_input_set_limit(guint64 bytes);
guint64 sim_input_limit(void);

/* How a refusal says to read the file anyway (the program's flag, e.g.
 * "--max-input SIZE reads it anyway"); copied; NULL: nothing said. */
void sim_input_set_advice(const char *advice);

/* Reads the file at path into *data (NUL-terminated after *len bytes, which
 * may contain NULs; g_free it).  Errors name path:
 *   G_FILE_ERROR (code from errno): "PATH: cannot read: REASON",
 *     "PATH: is a directory, not a file";
 *   SIM_ERROR_RANGE: "PATH: larger than the 256 MiB allowed for an input
 *     file; ADVICE", refused from the file's size when it states one, else
 *     after reading one byte past the limit;
 *   SIM_ERROR_INTERRUPTED: "PATH: interrupted (SIGTERM)". */
gboolean sim_input_read(const char *path, char **data, gsize *len,
                        GError **error);

/* Every format ifsim reads is UTF-8 text: FALSE with SIM_ERROR_PARSE
 * "NAME:LINE: binary data (a NUL byte at byte N | byte 0xXX at byte N is
 * not UTF-8 text | control character 0xXX at byte N), expected text" at
 * the first NUL, invalid UTF-8 sequence or control character other than
 * tab, newline, carriage return and form feed. */
gboolean sim_input_check_text(const char *name, const char *text, gsize len,
                              GError **error);

/* The len bytes of text split at '\n' ('\r' before it kept) into a
 * NULL-terminated array of lines, all in one allocation (free it with
 * g_free, never g_strfreev); the lines are writable.  *n_lines (may be NULL)
 * is their number.  Refuses with SIM_ERROR_MEMORY, naming what, when the
 * block would exceed the memory allowed (sim/memory.h). */
char **sim_input_lines(const char *text, gsize len, const char *what,
                       guint *n_lines, GError **error);

/* Ends each of lines (sim_input_lines') before a carriage return that
 * ends it: a file written with CRLF. */
void sim_input_strip_cr(char **lines);

/* sim_input_check_text, then sim_input_lines with each line's final
 * carriage return stripped: a line-based text format, LF or CRLF. */
char **sim_input_text_lines(const char *text, gsize len, const char *name,
                            guint *n_lines, GError **error);

#endif /* SIM_INPUT_H */
