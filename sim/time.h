/* Simulated time: unsigned 64-bit picoseconds.
 *
 * Every timestamp and duration in ifsim is a SimTime.  2^64 ps is about
 * 213 days, far beyond any collective or training step, and integer
 * picoseconds keep runs exact and deterministic (no floating-point drift in
 * the event order).  Conversions to floating point are for reports only;
 * conversions from user text are exact decimal (sim_time_parse) and refuse
 * values that are not whole picoseconds or do not fit. */
#ifndef SIM_TIME_H
#define SIM_TIME_H

#include <glib.h>
#include <stdint.h>

typedef uint64_t SimTime;

#define SIM_TIME_MAX UINT64_MAX
/* The latest time a run may reach: 2^62 ps, about 53 days.  Times computed
 * past it (a size or compute time no collective or step has) end the run
 * with SIM_RUN_OVERFLOW instead of wrapping; sums of two times below it
 * cannot wrap. */
#define SIM_TIME_HORIZON (UINT64_C(1) << 62)
#define SIM_PS_PER_NS UINT64_C(1000)
#define SIM_PS_PER_US UINT64_C(1000000)
#define SIM_PS_PER_MS UINT64_C(1000000000)
#define SIM_PS_PER_S UINT64_C(1000000000000)

/* Exact constructors from integer counts; the caller guarantees no
 * overflow (use sim_time_from_* for untrusted values). */
#define SIM_NS(n) ((SimTime)(n)*SIM_PS_PER_NS)
#define SIM_US(n) ((SimTime)(n)*SIM_PS_PER_US)
#define SIM_MS(n) ((SimTime)(n)*SIM_PS_PER_MS)
#define SIM_S(n) ((SimTime)(n)*SIM_PS_PER_S)

/* Longest text sim_time_format writes, with its NUL. */
#define SIM_TIME_FORMAT_LEN 48

static inline double sim_time_to_ns(SimTime t)
{
  return (double)t / (double)SIM_PS_PER_NS;
}

static inline double sim_time_to_us(SimTime t)
{
  return (double)t / (double)SIM_PS_PER_US;
}

static inline double sim_time_to_s(SimTime t)
{
  return (double)t / (double)SIM_PS_PER_S;
}

/* Converts a floating-point amount of nanoseconds, microseconds or seconds
 * to picoseconds, rounded to nearest.  Returns FALSE, leaving *out alone,
 * for NaN, negative values and values beyond SIM_TIME_MAX. */
gboolean sim_time_from_ns(double ns, SimTime *out);
gboolean sim_time_from_us(double us, SimTime *out);
gboolean sim_time_from_s(double s, SimTime *out);

/* Writes t exactly, in the largest unit not above it (ps, ns, us, ms, s),
 * with trailing fractional zeros removed: 1234567 ps -> "1.234567 us",
 * 0 -> "0 ps".  buf must hold SIM_TIME_FORMAT_LEN bytes.  Returns buf.
 * sim_time_parse reads every such text back to the same value. */
char *sim_time_format(SimTime t, char *buf);

/* Parses "<decimal><unit>" with unit ps, ns, us, ms or s (optional spaces
 * between), e.g. "1.5us", "200 ns", "3s".  Exact: no binary floating point
 * is involved.  Fails with SIM_ERROR_PARSE for another form or a fraction
 * of a picosecond, SIM_ERROR_RANGE beyond SIM_TIME_MAX. */
gboolean sim_time_parse(const char *text, SimTime *out, GError **error);

#endif /* SIM_TIME_H */
