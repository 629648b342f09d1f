/* Simulated time helpers: conversion, exact formatting and parsing.
 *
 * Formatting and parsing go through integer arithmetic only, so that
 * sim_time_parse(sim_time_format(t)) == t for every t (tested). */
#include "sim/time.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/error.h"

typedef struct {
  const char *name;
  SimTime ps;
} TimeUnit;

/* Largest first, as sim_time_format picks the largest unit <= t. */
static const TimeUnit time_units[] = {
    {"s", SIM_PS_PER_S},
    {"ms", SIM_PS_PER_MS},
    {"us", SIM_PS_PER_US},
    {"ns", SIM_PS_PER_NS},
    {"ps", 1},
};

static gboolean time_from_scaled(double value, double ps_per_unit, SimTime *out)
{
  double ps;

  if (isnan(value) || value < 0.0)
    return FALSE;
  ps = nearbyint(value * ps_per_unit);
  /* 2^64 is exactly representable; every double below it fits. */
  if (!(ps < 18446744073709551616.0))
    return FALSE;
  *out = (SimTime)ps;
  return TRUE;
}

gboolean sim_time_from_ns(double ns, SimTime *out)
{
  return time_from_scaled(ns, (double)SIM_PS_PER_NS, out);
}

gboolean sim_time_from_us(double us, SimTime *out)
{
  return time_from_scaled(us, (double)SIM_PS_PER_US, out);
}

gboolean sim_time_from_s(double s, SimTime *out)
{
  return time_from_scaled(s, (double)SIM_PS_PER_S, out);
}

char *sim_time_format(SimTime t, char *buf)
{
  const TimeUnit *u = &time_units[G_N_ELEMENTS(time_units) - 1];
  SimTime whole, frac;
  int digits = 0;
  char fbuf[24];

  for (size_t i = 0; i < G_N_ELEMENTS(time_units); i++) {
    if (t >= time_units[i].ps) {
      u = &time_units[i];
      break;
    }
  }
  whole = t / u->ps;
  frac = t % u->ps;
  if (frac == 0) {
    snprintf(buf, SIM_TIME_FORMAT_LEN, "%" G_GUINT64_FORMAT " %s", whole,
             u->name);
    return buf;
  }
  for (SimTime p = u->ps; p > 1; p /= 10)
    digits++;
  /* digits <= 12: the unit is at most 10^12 ps. */
  for (int i = digits - 1; i >= 0; i--, frac /= 10)
    fbuf[i] = (char)('0' + frac % 10);
  fbuf[digits] = '\0';
  for (int i = digits - 1; i > 0 && fbuf[i] == '0'; i--)
    fbuf[i] = '\0';
  snprintf(buf, SIM_TIME_FORMAT_LEN, "%" G_GUINT64_FORMAT ".%s %s", whole, fbuf,
           u->name);
  return buf;
}

gboolean sim_time_parse(const char *text, SimTime *out, GError **error)
{
  const char *p = text;
  guint64 whole = 0, frac = 0, frac_scale = 1;
  gboolean any_digit = FALSE, overflow = FALSE;
  const TimeUnit *unit = NULL;
  SimTime frac_ps, result;

  while (g_ascii_isspace(*p))
    p++;
  for (; g_ascii_isdigit(*p); p++) {
    any_digit = TRUE;
    if (whole > (G_MAXUINT64 - 9) / 10)
      overflow = TRUE;
    else
      whole = whole * 10 + (guint64)(*p - '0');
  }
  if (*p == '.') {
    p++;
    for (; g_ascii_isdigit(*p); p++) {
      any_digit = TRUE;
      if (frac_scale > SIM_PS_PER_S) {
        if (*p != '0')
          goto bad_precision;
        continue;
      }
      frac = frac * 10 + (guint64)(*p - '0');
      frac_scale *= 10;
    }
  }
  while (*p == ' ')
    p++;
  for (size_t i = 0; any_digit && i < G_N_ELEMENTS(time_units); i++) {
    if (strcmp(p, time_units[i].name) == 0) {
      unit = &time_units[i];
      break;
    }
  }
  if (!unit) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                "'%s' is not a time (expected a decimal number and a unit: "
                "ps, ns, us, ms or s, e.g. 1.5us)",
                text);
    return FALSE;
  }
  /* frac / frac_scale units must be a whole number of picoseconds. */
  if (frac_scale > unit->ps) {
    guint64 excess = frac_scale / unit->ps;
    if (frac % excess != 0)
      goto bad_precision;
    frac /= excess;
    frac_scale /= excess;
  }
  frac_ps = frac * (unit->ps / frac_scale);
  if (overflow || whole > (SIM_TIME_MAX - frac_ps) / unit->ps) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_RANGE,
                "'%s' is too long (at most %" G_GUINT64_FORMAT " ps, about "
                "213 days)",
                text, SIM_TIME_MAX);
    return FALSE;
  }
  result = whole * unit->ps + frac_ps;
  *out = result;
  return TRUE;

bad_precision:
  g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
              "'%s' is finer than the 1 ps resolution of simulated time", text);
  return FALSE;
}
