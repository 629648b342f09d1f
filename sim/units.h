/* Byte sizes as users write them on command lines and in configs.
 *
 * nccl-tests reads "-b 8 -e 8G" with binary multiples (K = 1024); ifsim
 * accepts the same, plus T, and an optional "B"/"iB" after the multiplier
 * ("8GiB", "512KB" are both binary).  The number is always decimal: "010"
 * is ten, never octal (GOptionContext's INT64 would read eight).  The
 * options that read them are the programs' (tools/cli.h); the engine
 * keeps the numbers. */
#ifndef SIM_UNITS_H
#define SIM_UNITS_H

#include <glib.h>
#include <stdint.h>

/* v rounded up to a whole number of `unit`s (unit > 0): packets padded to
 * words, bytes to credits. */
static inline guint64 sim_round_up(guint64 v, guint64 unit)
{
  return (v + unit - 1) / unit * unit;
}

/* Longest text sim_size_format writes, with its NUL. */
#define SIM_SIZE_FORMAT_LEN 32

/* Parses text into *out.  Fails with SIM_ERROR_PARSE when text is not
 * "<digits>[K|M|G|T][B|iB]" (case-insensitive multiplier, optional spaces
 * around), and SIM_ERROR_RANGE when the result exceeds 2^64 - 1.  The message
 * quotes the text and the accepted form; the caller prefixes the place. */
gboolean sim_size_parse(const char *text, guint64 *out, GError **error);

/* Writes bytes as an exact binary-multiple string when it is one ("8 GiB",
 * "1536 KiB"), else as plain bytes ("1000 B").  buf must hold
 * SIM_SIZE_FORMAT_LEN bytes; returns buf. */
char *sim_size_format(guint64 bytes, char *buf);

/* Parses a decimal count ("010" is ten; no sign, no hex) of at most max
 * (0: no bound below 2^64) into *out.  Fails with SIM_ERROR_PARSE: "'x' is
 * not a count (expected a decimal integer from 0 to MAX)" or "(expected a
 * decimal integer >= 0)"; the caller prefixes the place. */
gboolean sim_count_parse(const char *text, guint64 max, guint64 *out,
                         GError **error);

/* Reads a finite decimal number, all of text (spaces around allowed):
 * "12.5", "-3", "1e-6".  Not C's hexadecimal floats (0x1p4, which strtod
 * reads), inf or nan.  FALSE, *out left alone, otherwise. */
gboolean sim_decimal_parse(const char *text, double *out);

#endif /* SIM_UNITS_H */
