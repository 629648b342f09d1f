/* Byte-size parsing and formatting (nccl-tests conventions); see
 * sim/units.h. */
#include "sim/units.h"

#include <stdio.h>
#include <math.h>
#include <string.h>

#include "sim/error.h"

static const char size_suffixes[] = "KMGT";

gboolean sim_size_parse(const char *text, guint64 *out, GError **error)
{
  const char *p = text;
  guint64 value = 0;
  guint shift = 0;
  gboolean any_digit = FALSE, overflow = FALSE;

  while (*p == ' ' || *p == '\t')
    p++;
  for (; g_ascii_isdigit(*p); p++) {
    guint digit = (guint)(*p - '0');
    any_digit = TRUE;
    if (value > (G_MAXUINT64 - digit) / 10)
      overflow = TRUE;
    else
      value = value * 10 + digit;
  }
  if (any_digit && *p != '\0') {
    const char *s = strchr(size_suffixes, g_ascii_toupper(*p));
    if (s && *s) {
      shift = 10 * (guint)(s - size_suffixes + 1);
      p++;
      if (*p == 'i' && (p[1] == 'B' || p[1] == 'b'))
        p++;
    }
    if (*p == 'B' || *p == 'b')
      p++;
  }
  while (*p == ' ' || *p == '\t')
    p++;
  if (!any_digit || *p != '\0') {
    g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                "'%s' is not a size (expected a decimal number of bytes with "
                "an optional K, M, G or T suffix, binary multiples: 8, 128K, "
                "8G)",
                text);
    return FALSE;
  }
  if (overflow || (shift > 0 && value > (G_MAXUINT64 >> shift))) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_RANGE,
                "'%s' is too large (at most %" G_GUINT64_FORMAT " bytes)", text,
                G_MAXUINT64);
    return FALSE;
  }
  *out = value << shift;
  return TRUE;
}

char *sim_size_format(guint64 bytes, char *buf)
{
  static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  guint i = 0;

  while (i + 1 < G_N_ELEMENTS(names) && bytes != 0 && bytes % 1024 == 0) {
    bytes /= 1024;
    i++;
  }
  snprintf(buf, SIM_SIZE_FORMAT_LEN, "%" G_GUINT64_FORMAT " %s", bytes,
           names[i]);
  return buf;
}

gboolean sim_count_parse(const char *text, guint64 max, guint64 *out,
                         GError **error)
{
  if (g_ascii_string_to_unsigned(text, 10, 0, max ? max : G_MAXUINT64, out,
                                 NULL))
    return TRUE;
  if (max)
    g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                "'%s' is not a count (expected a decimal integer from 0 to "
                "%" G_GUINT64_FORMAT ")",
                text, max);
  else
    g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                "'%s' is not a count (expected a decimal integer >= 0)", text);
  return FALSE;
}

gboolean sim_decimal_parse(const char *text, double *out)
{
  const char *t = text;
  char *end;
  double v;

  while (g_ascii_isspace(*t))
    t++;
  /* decimal only: strtod also reads hexadecimal floats, inf and nan */
  if (*t == '\0' || strpbrk(t, "xXiInN"))
    return FALSE;
  v = g_ascii_strtod(t, &end);
  if (end == t)
    return FALSE;
  while (g_ascii_isspace(*end))
    end++;
  if (*end != '\0' || !isfinite(v))
    return FALSE;
  *out = v;
  return TRUE;
}
