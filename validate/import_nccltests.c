/* Importer of nccl-tests results: the text output of all_reduce_perf and
 * its siblings, their -J JSON output, and the CSV transcriptions of
 * tests/data/reference (13 columns, or the 4-column
 * size_bytes,time_us,algbw_GBps,busbw_GBps table).
 *
 * The formats, from NVIDIA/nccl-tests src/util.cu (read at commit
 * 0fdb00a3): the device report
 *   "# nThread %d nGpus %d minBytes %ld maxBytes %ld step: ... iters: %d"
 *   "#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] %s"
 * (older versions: "[0x%02x]" and no Group), the table header
 *   "# size count type redop root time algbw busbw #wrong time algbw ..."
 * (older versions: no root column and "error" for "#wrong"; older still:
 * no leading '#'), the rows "%12li  %12li  %8s  %6s  %6s" then twice
 * "  %7s  %6s  %6s  %6g" (out-of-place, then in-place), and the footer
 * "# Collective test concluded: NAME".  The -J JSON (version 2) holds
 * "nccl_version", "args", "config" {"ngpus", "iterations", "devices"
 * [{"rank", "hostname", "device", "device_info"}]} and "results"
 * [{"size", "count", "type", "redop", "root", "out_of_place" {"time",
 * "alg_bw", "bus_bw", "nwrong"}, "in_place" {...}}].  Real outputs of this
 * shape: nebius/soperator#428, NVIDIA/nccl-tests#290, #309, #322.
 *
 * Each table row gives two points, mode "oop" and "ip": size_bytes is
 * nccl-tests' S, time the reported average, bw_GBps algbw, busbw_GBps
 * busbw.  Where the printed algbw is 0.00 (small sizes) both bandwidths are
 * recomputed from size and time: algbw = S / t and busbw = algbw x the
 * collective's factor (doc/PERFORMANCE.md: allreduce 2(n-1)/n; allgather,
 * reducescatter, alltoall (n-1)/n; the others 1).
 *
 * The collective comes from the test name (the footer, the header of newer
 * versions, the command line, JSON "args"), else from a "# collective = X"
 * line, else from the table: busbw/algbw > 1 only for allreduce, < 1 for
 * allgather/alltoall (redop "none") or reducescatter, = 1 for broadcast
 * (root >= 0, redop "none"), reduce (root >= 0) or sendrecv (root -1).
 * The rank count comes from the "Rank" device lines, else "# ranks = N",
 * else from busbw/algbw: every row with algbw >= 1 GB/s gives the range of
 * n its rounded ratio allows and the ranges must meet in one integer (a
 * documented best effort; collectives with factor 1 cannot tell). */
#include "validate/error.h"
#include "validate/import_internal.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/nccl/nccl.h"
#include "sim/error.h"

typedef struct {
  guint64 size;
  gboolean has_count; /* the count column, with its type */
  guint64 count;
  char type[16];
  char redop[16];
  gboolean has_root;
  long root;
  gboolean has[2]; /* out-of-place, in-place */
  double time_us[2], algbw[2], busbw[2];
  guint line;
  guint json_index; /* -J: index in "results" + 1; 0 for text */
} NcclRow;

typedef struct {
  const char *name;
  const char *collective; /* measure.h test name; NULL while unknown */
  guint ranks;            /* 0 while unknown */
  guint iterations;
  GArray *rows; /* NcclRow */
} NcclTable;

static const char *const mode_names[2] = {"oop", "ip"};

/* busbw / algbw for n ranks (doc/PERFORMANCE.md of nccl-tests). */
static double bus_factor(const char *coll, guint n)
{
  if (g_str_equal(coll, "allreduce"))
    return 2.0 * (n - 1) / n;
  if (g_str_equal(coll, "allgather") || g_str_equal(coll, "reducescatter") ||
      g_str_equal(coll, "alltoall"))
    return (double)(n - 1) / n;
  return 1.0;
}

/* Half a unit of the last digit nccl-tests prints for a bandwidth
 * (getFloatStr, width 6: 2 decimals below 1000, 1 below 10^4, then 0). */
static double print_error(double v)
{
  return v < 999.995 ? 0.005 : v < 9999.95 ? 0.05 : 0.5;
}

/* nccl-tests' data types and their sizes (src/common.cu: test_typenames;
 * f8e4m3 and f8e5m2 from 2.24 on) and reductions (test_opnames, and "none"
 * where the collective reduces nothing). */
static const struct {
  const char *name;
  guint bytes;
} nccl_types[] = {{"int8", 1},   {"uint8", 1},    {"int32", 4},  {"uint32", 4},
                  {"int64", 8},  {"uint64", 8},   {"half", 2},   {"float", 4},
                  {"double", 8}, {"bfloat16", 2}, {"f8e4m3", 1}, {"f8e5m2", 1}};
static const char *const nccl_redops[] = {"sum", "prod", "max",    "min",
                                          "avg", "none", "mulsum", NULL};

/* The largest bandwidth a row may claim: above any link or NVSwitch
 * (an NVL72 domain's 130 TB/s bisection is 1.3e5 GB/s), below what a time
 * printed with two decimals of a microsecond can give for 2^64 bytes. */
#define NCCL_MAX_BW_GBPS 1e6

static guint type_bytes(const char *type)
{
  for (guint i = 0; i < G_N_ELEMENTS(nccl_types); i++)
    if (g_str_equal(type, nccl_types[i].name))
      return nccl_types[i].bytes;
  return 0;
}

/* What a row says of itself, once the collective and ranks are known:
 * a known type whose size times the count is the size (per rank for the
 * collectives that split it), a known reduction, a root among the ranks,
 * bandwidths a link can carry and that agree with size / time, and busbw
 * the collective's factor times algbw (doc/PERFORMANCE.md). */
static gboolean check_row(const NcclTable *tb, const NcclRow *r, GError **error)
{
  const char *name = tb->name;
  guint line = r->line;
  /* -J rows have no line: their place in the document */
  g_autofree char *at =
      r->json_index ? g_strdup_printf("JSON results[%u]: ", r->json_index - 1)
                    : g_strdup("");

  if (r->has_count) {
    guint w = type_bytes(r->type);
    gboolean split = g_str_equal(tb->collective, "allgather") ||
                     g_str_equal(tb->collective, "reducescatter") ||
                     g_str_equal(tb->collective, "alltoall");

    if (w == 0) {
      g_autofree char *x = val__excerpt(r->type);
      return val__fail(error, name, line,
                       "%s"
                       "type '%s': expected one of int8, uint8, int32, "
                       "uint32, int64, uint64, half, float, double, "
                       "bfloat16, f8e4m3, f8e5m2",
                       at, x);
    }
    if (r->count == 0 || r->size % ((guint64)w * r->count) != 0 ||
        (r->size / ((guint64)w * r->count) != 1 &&
         !(split && r->size / ((guint64)w * r->count) == tb->ranks)))
      return val__fail(error, name, line,
                       "%scount %" G_GUINT64_FORMAT " of %s (%u bytes) is "
                       "not size %" G_GUINT64_FORMAT " B%s",
                       at, r->count, r->type, w, r->size,
                       split ? " (nor its share of one rank)" : "");
  }
  if (r->redop[0] && !g_strv_contains(nccl_redops, r->redop)) {
    g_autofree char *x = val__excerpt(r->redop);
    return val__fail(error, name, line,
                     "%s"
                     "redop '%s': expected sum, prod, max, min, avg, mulsum "
                     "or none",
                     at, x);
  }
  if (r->has_root && (r->root < -1 || r->root >= (long)tb->ranks))
    return val__fail(error, name, line,
                     "%s"
                     "root %ld: expected -1 or a rank from 0 to %u",
                     at, r->root, tb->ranks - 1);
  for (int k = 0; k < 2; k++) {
    double alg, bus;

    if (!r->has[k] || r->time_us[k] <= 0) /* finish refuses the time */
      continue;
    alg = (double)r->size / (r->time_us[k] * 1e3);
    bus = alg * bus_factor(tb->collective, tb->ranks);
    if (r->algbw[k] > NCCL_MAX_BW_GBPS || r->busbw[k] > NCCL_MAX_BW_GBPS ||
        alg > NCCL_MAX_BW_GBPS)
      return val__fail(error, name, line,
                       "%s"
                       "%s: %.6g GB/s (algbw %.6g, busbw %.6g), more than "
                       "any link or switch carries (%.0e GB/s)",
                       at, k ? "in-place" : "out-of-place", alg, r->algbw[k],
                       r->busbw[k], NCCL_MAX_BW_GBPS);
    /* each printed to its digits (print_error), the time to 2 decimals:
     * 3% and the rounding of each */
    if (r->algbw[k] >= 0.01 &&
        fabs(r->algbw[k] - alg) >
            0.03 * alg + print_error(r->algbw[k]) + alg * 0.005 / r->time_us[k])
      return val__fail(error, name, line,
                       "%s"
                       "%s algbw %.6g GB/s, but size / time is %.6g GB/s: "
                       "expected the same (a column shifted, a row edited?)",
                       at, k ? "in-place" : "out-of-place", r->algbw[k], alg);
    if (r->algbw[k] >= 0.01 && r->busbw[k] > 0 &&
        fabs(r->busbw[k] - bus) > 0.03 * bus + print_error(r->busbw[k]) +
                                      print_error(r->algbw[k]) *
                                          bus_factor(tb->collective, tb->ranks))
      return val__fail(error, name, line,
                       "%s"
                       "%s busbw %.6g GB/s, but %s on %u ranks gives %.6g "
                       "(algbw x %.4g)",
                       at, k ? "in-place" : "out-of-place", r->busbw[k],
                       tb->collective, tb->ranks, bus,
                       bus_factor(tb->collective, tb->ranks));
  }
  return TRUE;
}

/* The best row to read a ratio from: largest algbw. */
static const NcclRow *best_row(const NcclTable *tb, int *mode)
{
  const NcclRow *best = NULL;
  double top = 0;

  for (guint i = 0; i < tb->rows->len; i++) {
    const NcclRow *r = &g_array_index(tb->rows, NcclRow, i);
    for (int k = 0; k < 2; k++)
      if (r->has[k] && r->algbw[k] > top && r->busbw[k] > 0) {
        top = r->algbw[k];
        best = r;
        *mode = k;
      }
  }
  return best;
}

static gboolean infer_collective(NcclTable *tb, GError **error)
{
  int k = 0;
  const NcclRow *r = best_row(tb, &k);
  double f, tol;
  const char *why = NULL;

  if (!r)
    return val__fail(error, tb->name, 0,
                     "cannot tell which collective was measured (no row "
                     "with algbw and busbw above 0): name it with a line "
                     "'# collective = allreduce' (or allgather, "
                     "reducescatter, broadcast, reduce, alltoall, "
                     "sendrecv), or validate or calibrate it with "
                     "--collective NAME");
  f = r->busbw[k] / r->algbw[k];
  tol = f * (print_error(r->algbw[k]) / r->algbw[k] +
             print_error(r->busbw[k]) / r->busbw[k]) * 1.05;
  if (f > 1 + tol)
    tb->collective = "allreduce";
  else if (f < 1 - tol) {
    if (g_str_equal(r->redop, "none") || r->redop[0] == '\0')
      why = "allgather or alltoall";
    else
      tb->collective = "reducescatter";
  } else if (r->has_root && r->root >= 0)
    tb->collective = g_str_equal(r->redop, "none") ? "broadcast" : "reduce";
  else if (r->has_root && tb->ranks > 2)
    tb->collective = "sendrecv";
  else if (r->has_root)
    /* on 2 ranks AllReduce's busbw is algbw too (2(n-1)/n): older
     * nccl-tests print no test name to tell them apart */
    why = tb->ranks == 2 ? "sendrecv, or allreduce on 2 ranks"
                         : "sendrecv, or allreduce if on 2 ranks";
  else
    why = "broadcast, reduce or sendrecv";
  if (why)
    return val__fail(error, tb->name, r->line,
                     "cannot tell which collective was measured "
                     "(busbw/algbw = %.4f, redop '%s' fit %s): name it with "
                     "a line '# collective = NAME', or validate or "
                     "calibrate it with --collective NAME",
                     f, r->redop, why);
  return TRUE;
}

/* Intersects, over the rows, the rank counts each rounded ratio allows. */
static gboolean infer_ranks(NcclTable *tb, GError **error)
{
  gboolean allreduce = g_str_equal(tb->collective, "allreduce");
  double lo = 2, hi = 1e6, threshold = 1.0;
  guint lo_line = 0, hi_line = 0, used = 0;

  if (!allreduce && bus_factor(tb->collective, 4) == 1.0)
    return val__fail(error, tb->name, 0,
                     "the number of ranks is not in the file and cannot be "
                     "inferred for %s (busbw = algbw): give it with a line "
                     "'# ranks = N' (validate, calibrate: --ranks N)",
                     tb->collective);
  for (int pass = 0; pass < 2 && used == 0; pass++, threshold = 1e-9)
    for (guint i = 0; i < tb->rows->len; i++) {
      const NcclRow *r = &g_array_index(tb->rows, NcclRow, i);
      for (int k = 0; k < 2; k++) {
        double a, b, f, tol, flo, fhi, nlo, nhi;
        if (!r->has[k] || r->algbw[k] < threshold || r->busbw[k] <= 0)
          continue;
        a = r->algbw[k];
        b = r->busbw[k];
        f = b / a;
        tol = f * (print_error(a) / a + print_error(b) / b) * 1.05;
        flo = f - tol;
        fhi = f + tol;
        /* n = 2/(2-f) (allreduce) or 1/(1-f): increasing in f */
        nlo = allreduce ? 2 / (2 - flo) : 1 / (1 - flo);
        nhi = (allreduce ? fhi >= 2 : fhi >= 1)
                  ? 1e6
                  : (allreduce ? 2 / (2 - fhi) : 1 / (1 - fhi));
        if (nlo > lo) {
          lo = nlo;
          lo_line = r->line;
        }
        if (nhi < hi) {
          hi = nhi;
          hi_line = r->line;
        }
        used++;
      }
    }
  {
    double nl = ceil(lo - 1e-9), nh = floor(hi + 1e-9);
    if (used == 0)
      return val__fail(
          error, tb->name, 0,
          "the number of ranks is not in the file and no row "
          "has algbw and busbw above 0 to infer it from: give "
          "it with a line '# ranks = N' (validate, calibrate: --ranks N)");
    if (nl > nh)
      return val__fail(error, tb->name, hi_line,
                       "the number of ranks is not in the file and the "
                       "busbw/algbw ratios disagree (this row allows at most "
                       "%.1f ranks, line %u at least %.1f): give it with a "
                       "line '# ranks = N' (validate, calibrate: --ranks N)",
                       hi, lo_line, lo);
    if (nl != nh)
      return val__fail(error, tb->name, 0,
                       "the number of ranks is not in the file and "
                       "busbw/algbw allows %.0f to %.0f ranks: give it with "
                       "a line '# ranks = N' (validate, calibrate: --ranks N)",
                       nl, nh);
    tb->ranks = (guint)nl;
  }
  return TRUE;
}

/* Points from the table; fills in what the table did not say first. */
static ValMeasurements *finish(NcclTable *tb, ValMeasurements *m_in,
                               GError **error)
{
  g_autoptr(ValMeasurements) m = m_in;
  g_autoptr(ValSeen) seen = val__seen_new();
  char src[48], num[32];

  if (tb->rows->len == 0) {
    val__fail(error, tb->name, 0,
              "no result rows (expected a nccl-tests table: '# size count "
              "type redop root time algbw busbw #wrong time algbw busbw "
              "#wrong' and one row per size)");
    return NULL;
  }
  if (!tb->collective && !infer_collective(tb, error))
    return NULL;
  if (tb->ranks == 0) {
    if (!infer_ranks(tb, error))
      return NULL;
    val_meas_set(m, "ranks.inferred", "from busbw/algbw");
  }
  g_snprintf(num, sizeof(num), "%u", tb->ranks);
  val_meas_set(m, "ranks", num);
  val_meas_set(m, "nccl.collective", tb->collective);
  g_snprintf(src, sizeof(src), "0-%u", tb->ranks - 1);
  /* two points a row, in one allocation (not doubled and copied on the
   * way to millions) */
  if (m->points->len == 0) {
    g_array_unref(m->points);
    m->points =
        g_array_sized_new(FALSE, TRUE, sizeof(ValPoint), 2 * tb->rows->len);
  }
  for (guint i = 0; i < tb->rows->len; i++) {
    const NcclRow *r = &g_array_index(tb->rows, NcclRow, i);
    for (int k = 0; k < 2; k++) {
      ValPoint p;
      if (!r->has[k])
        continue;
      if (r->time_us[k] <= 0) {
        val__fail(error, tb->name, r->line,
                  "%s time: expected a time in microseconds > 0",
                  k ? "in-place" : "out-of-place");
        return NULL;
      }
      if (k == 0 || !r->has[0]) {
        if (!check_row(tb, r, error))
          return NULL;
      }
      val_point_init(&p, VAL_PROBE_NCCL, tb->collective, mode_names[k], src,
                 "all");
      p.ranks = tb->ranks;
      p.size_bytes = r->size;
      p.iterations = tb->iterations;
      p.time_us_min = p.time_us_median = p.time_us_max = r->time_us[k];
      if (r->algbw[k] < 0.01) { /* printed as 0.00: recompute */
        p.bw_GBps = (double)r->size / (r->time_us[k] * 1e3);
        p.busbw_GBps = p.bw_GBps * bus_factor(tb->collective, tb->ranks);
      } else {
        p.bw_GBps = r->algbw[k];
        p.busbw_GBps = r->busbw[k] > 0 ? r->busbw[k]
                                       : p.bw_GBps * bus_factor(
                                             tb->collective, tb->ranks);
      }
      if (!val__point_once(seen, &p, tb->name, r->line, error))
        return NULL;
      val_meas_add(m, &p);
    }
  }
  /* rows, but none with a group of values under the header's time,
   * algbw and busbw: nothing was measured */
  if (m->points->len == 0) {
    val__fail(error, tb->name, 0,
              "no row has a time under the table header's groups (expected "
              "'size count type redop root time algbw busbw #wrong ...' "
              "rows)");
    return NULL;
  }
  return g_steal_pointer(&m);
}

/* Applies "# collective = X" and "# ranks = N" hints. */
static gboolean apply_hints(NcclTable *tb, const ValText *t, GError **error)
{
  g_autoptr(GHashTable) h = val__hints(t);
  const char *c = g_hash_table_lookup(h, "collective");
  const char *n = g_hash_table_lookup(h, "ranks");
  guint64 u;

  if (c) {
    tb->collective = val__nccl_collective(c);
    if (!tb->collective)
      return val__fail(error, t->name, val__hint_line(t, "collective"),
                       "'# collective = %s': expected allreduce, allgather, "
                       "reducescatter, broadcast, reduce, alltoall or "
                       "sendrecv",
                       c);
  }
  if (n) {
    if (!g_ascii_string_to_unsigned(n, 10, 1, 1 << 20, &u, NULL))
      return val__fail(error, t->name, val__hint_line(t, "ranks"),
                       "'# ranks = %s': expected a count from 1 to %u", n,
                       1u << 20);
    tb->ranks = (guint)u;
  }
  return TRUE;
}

/* nccl-tests' #wrong: the elements that failed its check of the result
 * ("N/A" when -c 0 turned the check off).  Other than 0, the run measured
 * a broken collective, not the machine. */
static gboolean check_wrong(const char *name, guint line, const char *what,
                            const char *tok, GError **error)
{
  g_autofree char *x = NULL;
  double v;

  if (g_str_equal(tok, "N/A") || (val_cell_double(tok, &v) && v == 0))
    return TRUE;
  x = val__excerpt(tok);
  return val__fail(error, name, line,
                   "%s: expected 0 (or N/A), found '%s': nccl-tests found "
                   "wrong results, the run measured a failing collective",
                   what, x);
}

/* --- text output ------------------------------------------------------ */

typedef struct {
  guint ncols;      /* the columns of a row, without the timestamp */
  guint need;       /* the fewest a row may have: ncols, or more where a
                       "timestamp" among the names moved a named column
                       past ncols (header_need) */
  gboolean ts;      /* a timestamp ("2025-03-02 10:11:12") ends each row */
  int size, type, redop, root;
  int group[2]; /* index of the time column of each group, -1 if absent */
  int wrong[2]; /* index of each group's #wrong column, -1 if absent */
  int maxerr[2]; /* index of each group's "error" column (older nccl-tests:
                    the largest error of the result), -1 if absent */
  char layout[160];
} NcclHeader;

/* The tokens a row needs for every column the header placed: its count
 * of names, unless a "timestamp" among them (nccl-tests prints it last)
 * moved a named column past the row's end. */
static guint header_need(const NcclHeader *h)
{
  int last = MAX(MAX(h->size, h->type), MAX(h->redop, h->root));

  for (int k = 0; k < 2; k++)
    last = MAX(last, MAX(MAX(h->group[k] + 2, h->wrong[k]), h->maxerr[k]));
  return (guint)(last + 1);
}

/* A table header: tokens (after '#') "size count ... time algbw busbw". */
static gboolean parse_header(GStrv tok, NcclHeader *h)
{
  guint n = g_strv_length(tok);
  int g = 0;
  g_autofree char *joined = NULL;

  if (n < 5 || !g_str_equal(tok[0], "size") || !g_str_equal(tok[1], "count"))
    return FALSE;
  h->ncols = n;
  h->ts = FALSE;
  h->size = 0;
  h->type = h->redop = h->root = -1;
  h->group[0] = h->group[1] = -1;
  h->wrong[0] = h->wrong[1] = -1;
  h->maxerr[0] = h->maxerr[1] = -1;
  for (guint i = 0; i < n; i++) {
    if (g_str_equal(tok[i], "timestamp")) {
      h->ncols--;
      h->ts = TRUE;
      continue;
    }
    if (g_str_equal(tok[i], "type"))
      h->type = (int)i;
    else if (g_str_equal(tok[i], "redop"))
      h->redop = (int)i;
    else if (g_str_equal(tok[i], "root"))
      h->root = (int)i;
    else if ((g_str_equal(tok[i], "time") || g_str_equal(tok[i], "cputime")) &&
             g < 2 && i + 2 < n && g_str_equal(tok[i + 1], "algbw") &&
             g_str_equal(tok[i + 2], "busbw")) {
      if (i + 3 < n && g_str_equal(tok[i + 3], "#wrong"))
        h->wrong[g] = (int)i + 3;
      else if (i + 3 < n && g_str_equal(tok[i + 3], "error"))
        h->maxerr[g] = (int)i + 3;
      h->group[g++] = (int)i;
    }
  }
  joined = g_strjoinv(" ", tok);
  g_strlcpy(h->layout, joined, sizeof(h->layout));
  h->need = MAX(h->ncols, header_need(h));
  return h->group[0] >= 0;
}

static gboolean parse_row(const char *name, guint line, GStrv tok,
                          const NcclHeader *h, NcclRow *r, GError **error)
{
  guint n = g_strv_length(tok);
  /* a column's name for messages, by group: out-of-place, in-place */
  static const char *const wt[2] = {"out-of-place time", "in-place time"};
  static const char *const wa[2] = {"out-of-place algbw", "in-place algbw"};
  static const char *const wb[2] = {"out-of-place busbw", "in-place busbw"};
  static const char *const ww[2] = {"out-of-place #wrong", "in-place #wrong"};

  memset(r, 0, sizeof(*r));
  r->line = line;
  if (n < h->need)
    return val__fail(error, name, line,
                     "expected %u columns (%s), found %u: a truncated row?",
                     h->need, h->layout, n);
  if (n > h->ncols + (h->ts ? 2 : 0))
    return val__fail(error, name, line,
                     "expected %u columns (%s)%s, found %u: columns the table "
                     "header does not name",
                     h->ncols, h->layout, h->ts ? " and a timestamp" : "", n);
  if (!val__count(name, line, "size", tok[h->size], &r->size, error))
    return FALSE;
  if (!g_ascii_string_to_unsigned(tok[1], 10, 0, G_MAXUINT64, &r->count,
                                  NULL)) {
    g_autofree char *x = val__excerpt(tok[1]);
    return val__fail(error, name, line,
                     "count: expected a whole number of elements, found '%s'",
                     x);
  }
  if (h->type >= 0) {
    r->has_count = TRUE;
    g_strlcpy(r->type, tok[h->type], sizeof(r->type));
    if (strlen(tok[h->type]) >= sizeof(r->type))
      r->type[0] = '?'; /* longer than any type: refused as unknown */
  }
  if (h->redop >= 0)
    g_strlcpy(r->redop, tok[h->redop], sizeof(r->redop));
  if (h->root >= 0) {
    char *end;
    r->has_root = TRUE;
    r->root = strtol(tok[h->root], &end, 10);
    if (*end != '\0' || end == tok[h->root])
      return val__fail(error, name, line,
                       "root: expected a rank or -1, found '%s'",
                       tok[h->root]);
  }
  for (int k = 0; k < 2; k++) {
    int c = h->group[k];
    if (c < 0)
      continue;
    if (!val__num(name, line, wt[k], tok[c], &r->time_us[k], error) ||
        !val__num(name, line, wa[k], tok[c + 1], &r->algbw[k], error) ||
        !val__num(name, line, wb[k], tok[c + 2], &r->busbw[k], error))
      return FALSE;
    if (h->wrong[k] >= 0 &&
        !check_wrong(name, line, ww[k], tok[h->wrong[k]], error))
      return FALSE;
    if (h->maxerr[k] >= 0 && !g_str_equal(tok[h->maxerr[k]], "N/A")) {
      double e;
      g_autofree char *x = NULL;

      /* its size depends on the type (a bfloat16 sum's rounding is not a
       * float's): read as a number, not judged */
      if (!val_cell_double(tok[h->maxerr[k]], &e) || e < 0) {
        x = val__excerpt(tok[h->maxerr[k]]);
        return val__fail(error, name, line,
                         "%s error: expected the result's largest error, a "
                         "number >= 0 (or N/A), found '%s'",
                         k ? "in-place" : "out-of-place", x);
      }
    }
    r->has[k] = TRUE;
  }
  return TRUE;
}

/* A second place that names the test (the command line, "Collective
 * test concluded") must name the one the first did: two runs pasted
 * together, or an edited log, are not one measurement. */
static gboolean names_agree(const char *first, guint first_line,
                            const char *tool, const char *name, guint line,
                            GError **error)
{
  const char *coll = val__nccl_collective(tool);
  g_autofree char *x = NULL;

  if (!first || !coll || strcmp(first, coll) == 0)
    return TRUE;
  x = val__excerpt(tool);
  return val__fail(error, name, line,
                   "'%s' is another test than line %u's %s: expected the "
                   "output of one nccl-tests run",
                   x, first_line, first);
}

/* NCCL_VERSION_CODE (2.9 on: major*10000 + minor*100 + patch). */
static char *version_from_code(long code)
{
  return nccl_version_text(nccl_version_from_code(code));
}

/* "... Rank N [Group G] Pid P on HOST device D [BUS] NAME" */
/* The first word at s, in a static buffer (a Group number). */
static const char *group_word(const char *s)
{
  static char word[24];
  gsize n;

  while (*s == ' ')
    s++;
  n = strcspn(s, " \t");
  g_strlcpy(word, s, MIN(n + 1, sizeof word));
  return n < sizeof word ? word : "x";
}

static gboolean parse_rank_line(const char *l, guint *rank, char **host_dev,
                                char **gpu, char **host_pid)
{
  const char *r = strstr(l, "Rank "), *on = strstr(l, " on "),
             *dev = strstr(l, " device "), *pid = strstr(l, " Pid "), *br;
  g_auto(GStrv) ht = NULL;
  char *end;

  if (!r || !on || !dev || !pid)
    return FALSE;
  *rank = (guint)strtoul(r + 5, &end, 10);
  if (end == r + 5)
    return FALSE;
  /* numbers nccl-tests prints with %2d, %6d: a rank below 2^20 (its
   * largest communicator), a device ordinal below 1024, a pid below 2^31;
   * a line that breaks them is not one run's (refused by the caller) */
  {
    guint64 v;
    g_auto(GStrv) rt = val__tokens(r + 5), dt = val__tokens(dev + 8),
                  pt = val__tokens(pid + 5);

    if (!rt[0] ||
        !g_ascii_string_to_unsigned(rt[0], 10, 0, (1u << 20) - 1, &v, NULL) ||
        !dt[0] || !g_ascii_string_to_unsigned(dt[0], 10, 0, 1023, &v, NULL) ||
        !pt[0] ||
        !g_ascii_string_to_unsigned(pt[0], 10, 0, G_MAXINT32, &v, NULL) ||
        (strstr(l, " Group ") &&
         !g_ascii_string_to_unsigned(group_word(strstr(l, " Group ") + 7), 10,
                                     0, (1u << 20) - 1, &v, NULL))) {
      *host_dev = *gpu = *host_pid = NULL;
      *rank = G_MAXUINT;
      return TRUE;
    }
  }
  ht = val__tokens(on + 4);
  br = strchr(dev, ']');
  *host_dev = g_strdup_printf("%s:%ld", ht[0] ? ht[0] : "",
                              strtol(dev + 8, NULL, 10));
  *gpu = g_strstrip(g_strdup(br ? br + 1 : ""));
  *host_pid = g_strdup_printf("%s:%ld", ht[0] ? ht[0] : "",
                              strtol(pid + 5, NULL, 10));
  return TRUE;
}

ValMeasurements *val__import_nccltests_text(const ValText *t, GError **error)
{
  g_autoptr(ValMeasurements) m = val_meas_new();
  /* at most a row a line: reserved, not doubled and copied */
  g_autoptr(GArray) rows =
      g_array_sized_new(FALSE, TRUE, sizeof(NcclRow), t->n);
  g_autoptr(GPtrArray) gpus = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GHashTable) devices =
      g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) rank_lines = g_hash_table_new(NULL, NULL);
  g_autoptr(GHashTable) procs =
      g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  guint gpus_per_process = 0;
  g_autofree char *tool = NULL;
  NcclTable tb = {.name = t->name, .rows = rows};
  NcclHeader h;
  gboolean have_header = FALSE;
  guint max_rank = 0, max_rank_line = 0, n_rank_lines = 0;
  const char *from_name = NULL;
  guint from_line = 0; /* where from_name was read */

  for (guint i = 0; i < t->n; i++) {
    const char *l = t->lines[i], *s;
    g_auto(GStrv) tok = NULL;
    guint line = t->line0 + i + 1;

    /* a result row after the header, the bulk of a long file, first (no
     * other line starts with a number): its words cut in a buffer on the
     * stack, not a string each */
    if (have_header && val__numeric_start(l + strspn(l, " \t")) &&
        strlen(l) < 512 && !strstr(l, "NCCL ")) { /* NCCL's log lines of a
                                                     host named 10-0-0-1 */
      char buf[512], *words[64];
      guint nw = 0;
      NcclRow r;

      g_strlcpy(buf, l, sizeof buf);
      for (char *p = buf; *p && nw + 1 < G_N_ELEMENTS(words);) {
        p += strspn(p, " \t");
        if (!*p)
          break;
        words[nw++] = p;
        p += strcspn(p, " \t");
        if (*p)
          *p++ = '\0';
      }
      words[nw] = NULL;
      if (nw + 1 < G_N_ELEMENTS(words)) {
        if (!parse_row(t->name, line, words, &h, &r, error))
          return NULL;
        g_array_append_val(rows, r);
        continue;
      }
    }
    /* the version NCCL prints (init.cc showVersion: "NCCL version
     * 2.18.3+cuda12.2" alone on stdout, and as an INFO line in its log),
     * or a header line saying it; NCCL's WARN lines also name versions
     * ("compiled with NCCL version ...") and are skipped with the other
     * log lines */
    if ((s = strstr(l, "NCCL version ")) &&
        (l[0] == '#' || s == l + strspn(l, " \t") ||
         (s - l >= 10 && strncmp(s - 10, "NCCL INFO ", 10) == 0))) {
      g_auto(GStrv) v = val__tokens(s + 13);
      gboolean known =
          v[0] && nccl_version_parse(v[0], "nccl.version", &(guint32){0}, NULL);

      if (!known) {
        g_autofree char *x = val__excerpt(v[0] ? v[0] : "");
        val__fail(error, t->name, line,
                  "'NCCL version %s': expected 2.MINOR.PATCH (e.g. "
                  "2.18.3+cuda12.2)",
                  x);
        return NULL;
      }
      if (!val_meas_get(m, "nccl.version"))
        val_meas_set(m, "nccl.version", v[0]);
      continue;
    }
    /* NCCL's network devices, where the log is in the output
     * (NCCL_DEBUG=INFO; net_ib.cc: "NET/IB : Using [0]mlx5_0:1/IB
     * [1]mlx5_3:1/RoCE ; OOB ..."): how many and what kind, for the
     * check against the system */
    if ((s = strstr(l, "NET/IB : Using ")) &&
        !val_meas_get(m, "nccl.net_devices")) {
      guint devs = 0, ib = 0, roce = 0;
      for (const char *p = s; (p = strchr(p, '[')) != NULL; p++) {
        const char *slash = strchr(p, '/'), *semi = strchr(s, ';');
        if (semi && p > semi)
          break;
        devs++;
        if (slash && g_str_has_prefix(slash, "/RoCE"))
          roce++;
        else if (slash && g_str_has_prefix(slash, "/IB"))
          ib++;
      }
      if (devs) {
        char num[16];
        g_snprintf(num, sizeof num, "%u", devs);
        val_meas_set(m, "nccl.net_devices", num);
        if (ib != roce)
          val_meas_set(m, "nccl.net_link", ib > roce ? "IB" : "RoCE");
      }
      continue;
    }
    if (strstr(l, "NCCL INFO") || strstr(l, "NCCL WARN"))
      continue;
    if ((s = strstr(l, "nccl-tests version "))) {
      g_auto(GStrv) v = val__tokens(s + 19);
      if (v[0])
        val_meas_set(m, "nccltests.version", v[0]);
      for (guint j = 0; v[0] && v[j]; j++) {
        gboolean lib = g_str_has_prefix(v[j], "nccl-library="),
                 hdr = g_str_has_prefix(v[j], "nccl-headers=");
        const char *num = strchr(v[j], '=');
        guint64 code;

        if (!lib && !hdr)
          continue;
        /* NCCL_VERSION_CODE, ncclGetVersion: 2.9 on major x 10000 +
         * minor x 100 + patch, before it major x 1000 + minor x 100 +
         * patch (nccl.h) */
        if (!g_ascii_string_to_unsigned(num + 1, 10, 2000, 29999, &code,
                                        NULL) ||
            (code >= 2900 && code < 20900)) {
          g_autofree char *x = val__excerpt(v[j]);
          val__fail(error, t->name, line,
                    "'%s': expected NCCL's version code (22005 for "
                    "2.20.5; 2708 for 2.7.8)",
                    x);
          return NULL;
        }
        if (lib && !val_meas_get(m, "nccl.version")) {
          g_autofree char *ver = version_from_code((long)code);
          val_meas_set(m, "nccl.version", ver);
        }
      }
      continue;
    }
    if ((s = strstr(l, "Collective test "))) {
      const char *colon = strchr(s, ':');
      g_auto(GStrv) v = val__tokens(colon ? colon + 1 : "");
      if (v[0] && val__nccl_collective(v[0])) {
        if (!names_agree(from_name, from_line, v[0], t->name, line, error))
          return NULL;
        from_name = val__nccl_collective(v[0]);
        from_line = line;
        g_free(tool);
        tool = g_strdup(v[0]);
      } else if (v[0]) {
        g_autofree char *x = val__excerpt(v[0]);
        val__fail(error, t->name, line,
                  "'Collective test concluded: %s': expected a test of "
                  "nccl-tests (all_reduce_perf, all_gather_perf, "
                  "reduce_scatter_perf, broadcast_perf, reduce_perf, "
                  "alltoall_perf, sendrecv_perf)",
                  x);
        return NULL;
      }
      continue;
    }
    if ((s = strstr(l, "nThread "))) {
      g_auto(GStrv) v = val__tokens(s);
      const char *iters = NULL;
      guint64 agg = 1;

      for (guint j = 0; v[j] && v[j + 1]; j++) {
        /* each a count nccl-tests takes: -t and -g up to 1024 (its
         * MAX_GPUS-sized arrays), -n and -m from 1, -G from 0 */
        const char *what =
            g_str_equal(v[j], "nThread")               ? "nThread"
            : g_str_equal(v[j], "nGpus")               ? "nGpus"
            : g_str_equal(v[j], "graph:")              ? "graph:"
            : !g_str_equal(v[j], "iters:")             ? NULL
            : j > 0 && g_str_equal(v[j - 1], "agg")    ? "agg iters:"
            : j > 0 && g_str_equal(v[j - 1], "warmup") ? "warmup iters:"
                                                       : "iters:";
        guint64 max = what && what[0] == 'n' ? 1024 : G_MAXINT32, min;
        guint64 n;

        if (!what)
          continue;
        /* -G K: K graph launches, 0 without graphs */
        min = g_str_equal(what, "warmup iters:") || g_str_equal(what, "graph:")
                  ? 0
                  : 1;
        if (!g_ascii_string_to_unsigned(v[j + 1], 10, min, max, &n, NULL)) {
          g_autofree char *x = val__excerpt(v[j + 1]);
          val__fail(error, t->name, line,
                    "%s %s: expected a count from %" G_GUINT64_FORMAT
                    " to %" G_GUINT64_FORMAT,
                    what, x, min, max);
          return NULL;
        }
        if (g_str_equal(what, "nThread"))
          val_meas_set(m, "nccltests.nthread", v[j + 1]);
        else if (g_str_equal(what, "nGpus")) {
          val_meas_set(m, "nccltests.ngpus", v[j + 1]);
          val_meas_set(m, "gpus_per_process", v[j + 1]);
        } else if (g_str_equal(what, "iters:")) {
          tb.iterations = (guint)n;
          iters = v[j + 1];
        } else if (g_str_equal(what, "agg iters:")) {
          agg = n;
          val_meas_set(m, "nccltests.agg_iters", v[j + 1]);
        } else if (g_str_equal(what, "graph:")) {
          val_meas_set(m, "nccltests.graph", v[j + 1]);
          val_meas_set(m, "graph_launches", v[j + 1]);
        }
      }
      /* calls launched back to back in one timing (validate/calibrate.c);
       * with agg iters above 1 each timed iteration is a group of calls,
       * not a loop of single ones: left unknown */
      if (iters && agg == 1)
        val_meas_set(m, "iters", iters);
      continue;
    }
    {
      guint rank;
      char *hd = NULL, *gpu = NULL, *hp = NULL;
      if (parse_rank_line(l, &rank, &hd, &gpu, &hp)) {
        guint per;

        if (rank == G_MAXUINT) {
          val__fail(
              error, t->name, line,
              "a device line whose Rank or Group (below 2^20), device (below "
              "1024) or Pid (below 2^31) is not one nccl-tests prints");
          return NULL;
        }
        per = GPOINTER_TO_UINT(g_hash_table_lookup(procs, hp)) + 1;

        /* ranks of one process: their kernels launch in turn */
        g_hash_table_insert(procs, hp, GUINT_TO_POINTER(per));
        gpus_per_process = MAX(gpus_per_process, per);
        gpointer first = g_hash_table_lookup(rank_lines,
                                             GUINT_TO_POINTER(rank));
        if (first) {
          g_free(hd);
          g_free(gpu);
          val__fail(error, t->name, line,
                    "Rank %u again (line %u has it): expected one device "
                    "line per rank, from one run",
                    rank, GPOINTER_TO_UINT(first));
          return NULL;
        }
        g_hash_table_insert(rank_lines, GUINT_TO_POINTER(rank),
                            GUINT_TO_POINTER(line));
        n_rank_lines++;
        if (rank >= max_rank) {
          max_rank = rank;
          max_rank_line = line;
        }
        if (!g_hash_table_contains(devices, hd))
          g_ptr_array_add(gpus, g_strdup(gpu));
        g_hash_table_add(devices, hd);
        g_free(gpu);
        continue;
      }
    }
    tok = val__tokens(l[0] == '#' ? l + 1 : l);
    if (!tok[0])
      continue;
    if (parse_header(tok, &h)) {
      have_header = TRUE;
      continue;
    }
    if (l[0] == '#')
      continue;
    /* a row: after the header, any line that starts with a number (a
     * negative or garbled size is a bad row, not a line to skip) */
    if (have_header ? val__numeric_start(tok[0])
                    : val__all_digits(tok[0]) && tok[1] &&
                          val__all_digits(tok[1])) {
      NcclRow r;
      if (!have_header) {
        val__fail(error, t->name, line,
                  "a result row before the table header (expected '# size "
                  "count type redop root time algbw busbw #wrong ...')");
        return NULL;
      }
      if (!parse_row(t->name, line, tok, &h, &r, error))
        return NULL;
      g_array_append_val(rows, r);
      continue;
    }
    /* the command line, when it was logged: ".../all_reduce_perf -b 8" */
    for (guint j = 0; tok[j]; j++)
      if (strstr(tok[j], "_perf") && val__nccl_collective(tok[j])) {
        if (!names_agree(from_name, from_line, tok[j], t->name, line, error))
          return NULL;
        if (from_name)
          break;
        from_name = val__nccl_collective(tok[j]);
        from_line = line;
        g_free(tool);
        tool = g_strdup(strrchr(tok[j], '/') ? strrchr(tok[j], '/') + 1
                                             : tok[j]);
      }
  }
  if (n_rank_lines > 0 && max_rank + 1 != n_rank_lines) {
    val__fail(error, t->name, max_rank_line,
              "Rank %u, but %u device lines: expected ranks 0 to %u, one "
              "line each (a device line missing or garbled?)",
              max_rank, n_rank_lines, n_rank_lines - 1);
    return NULL;
  }
  if (!apply_hints(&tb, t, error))
    return NULL;
  if (from_name)
    tb.collective = from_name;
  if (n_rank_lines > 0) {
    char num[16];

    if (tb.ranks && tb.ranks != max_rank + 1) {
      val__fail(error, t->name, val__hint_line(t, "ranks"),
                "'# ranks = %u', but the device lines list %u ranks: "
                "expected the same",
                tb.ranks, max_rank + 1);
      return NULL;
    }
    tb.ranks = MAX(max_rank + 1, g_hash_table_size(devices));
    val__set_gpus(m, gpus);
    /* the GPUs one thread launches in turn: -g (the nGpus line), else
     * the most ranks of one process */
    g_snprintf(num, sizeof(num), "%u", gpus_per_process);
    if (!val_meas_get(m, "gpus_per_process"))
      val_meas_set(m, "gpus_per_process", num);
  }
  {
    g_autofree char *src = g_strdup_printf(
        "nccl-tests%s%s (imported)", tool ? " " : "", tool ? tool : "");
    val_meas_set(m, "source", src);
  }
  val__copy_hints(m, t);
  return finish(&tb, g_steal_pointer(&m), error);
}

/* --- CSV transcriptions ------------------------------------------------ */

ValMeasurements *val__import_nccl_csv(const ValText *t, const ValCsv *csv,
                                      GError **error)
{
  g_autoptr(ValMeasurements) m = val_meas_new();
  g_autoptr(GArray) rows = g_array_new(FALSE, TRUE, sizeof(NcclRow));
  NcclTable tb = {.name = t->name, .rows = rows};
  GStrv head = csv->rows->pdata[0];
  gboolean wide = g_str_equal(head[1], "count_elements");
  static const char *const wide_cols[] = {
      "size_bytes", "count_elements", "type",          "redop",
      "root",       "oop_time_us",    "oop_algbw_GBps", "oop_busbw_GBps",
      "oop_wrong",  "ip_time_us",     "ip_algbw_GBps", "ip_busbw_GBps",
      "ip_wrong"};
  static const char *const narrow_cols[] = {"size_bytes", "time_us",
                                            "algbw_GBps", "busbw_GBps"};
  const char *const *cols = wide ? wide_cols : narrow_cols;
  guint ncols = wide ? G_N_ELEMENTS(wide_cols) : G_N_ELEMENTS(narrow_cols);

  if (!val__csv_columns(t, csv, cols, ncols, error))
    return NULL;
  if (csv->rows->len == 1) {
    val__fail(error, t->name, g_array_index(csv->lines, guint, 0),
              "no rows after the header row (expected one row per size)");
    return NULL;
  }
  for (guint i = 1; i < csv->rows->len; i++) {
    GStrv f = csv->rows->pdata[i];
    guint line = g_array_index(csv->lines, guint, i);
    NcclRow r = {.line = line};

    if (g_strv_length(f) != ncols) {
      val__fail(error, t->name, line,
                "%u fields, expected %u (%s,...,%s): a truncated row?",
                g_strv_length(f), ncols, cols[0], cols[ncols - 1]);
      return NULL;
    }
    if (!val__count(t->name, line, "size_bytes", f[0], &r.size, error))
      return NULL;
    if (wide) {
      g_strlcpy(r.redop, f[3], sizeof(r.redop));
      if (f[4][0]) {
        char *end;
        r.has_root = TRUE;
        r.root = strtol(f[4], &end, 10);
        if (*end) {
          val__fail(error, t->name, line,
                    "root: expected a rank or -1, found '%s'", f[4]);
          return NULL;
        }
      }
      for (int k = 0; k < 2; k++) {
        if (!val__num(t->name, line, cols[5 + 4 * k], f[5 + 4 * k],
                      &r.time_us[k], error) ||
            !val__num(t->name, line, cols[6 + 4 * k], f[6 + 4 * k],
                      &r.algbw[k], error) ||
            !val__num(t->name, line, cols[7 + 4 * k], f[7 + 4 * k],
                      &r.busbw[k], error) ||
            !check_wrong(t->name, line, cols[8 + 4 * k], f[8 + 4 * k], error))
          return NULL;
        r.has[k] = TRUE;
      }
    } else {
      /* one set of columns; the transcriber kept (most likely) the
       * out-of-place ones (tests/data/reference/README.md) */
      if (!val__num(t->name, line, cols[1], f[1], &r.time_us[0], error) ||
          !val__num(t->name, line, cols[2], f[2], &r.algbw[0], error) ||
          !val__num(t->name, line, cols[3], f[3], &r.busbw[0], error))
        return NULL;
      r.has[0] = TRUE;
    }
    g_array_append_val(rows, r);
  }
  if (!apply_hints(&tb, t, error))
    return NULL;
  val_meas_set(m, "source", "nccl-tests (imported from a CSV transcription)");
  val__copy_hints(m, t);
  return finish(&tb, g_steal_pointer(&m), error);
}

/* --- -J JSON ---------------------------------------------------------- */

/* Parsed by json-glib.  Its nodes carry no line numbers, so messages name
 * the place by its path in the document ("results[3].in_place"). */

static JsonNode *jget(JsonNode *o, const char *key)
{
  if (!o || !JSON_NODE_HOLDS_OBJECT(o))
    return NULL;
  return json_object_get_member(json_node_get_object(o), key);
}

static gboolean jnum(JsonNode *v, double *out)
{
  GType t;

  if (!v || !JSON_NODE_HOLDS_VALUE(v))
    return FALSE;
  t = json_node_get_value_type(v);
  if (t != G_TYPE_INT64 && t != G_TYPE_DOUBLE)
    return FALSE;
  *out = json_node_get_double(v);
  return TRUE;
}

static const char *jstr(JsonNode *v)
{
  return v && JSON_NODE_HOLDS_VALUE(v) &&
                 json_node_get_value_type(v) == G_TYPE_STRING
             ? json_node_get_string(v)
             : NULL;
}

static gboolean jnum_field(const char *name, JsonNode *o, const char *key,
                           const char *where, double *out, GError **error)
{
  JsonNode *v = jget(o, key);
  const char *str = jstr(v);

  if (str) {
    g_autofree char *x = val__excerpt(str);
    return val__fail(error, name, 0,
                     "JSON %s.%s: expected a number, found \"%s\"", where, key,
                     x);
  }
  if (!jnum(v, out))
    return val__fail(error, name, 0, "JSON %s: expected a number under \"%s\"",
                     where, key);
  if (*out < 0 || !isfinite(*out))
    return val__fail(error, name, 0,
                     "JSON %s.%s: expected a finite number >= 0, found %.15g",
                     where, key, *out);
  return TRUE;
}

/* An optional whole number from 0 to max under o.key: FALSE with an error
 * when it is there and is not one. */
static gboolean jwhole_opt(const char *name, JsonNode *o, const char *key,
                           const char *where, double min, double max,
                           double *out, GError **error)
{
  JsonNode *v = jget(o, key);

  if (!v)
    return TRUE;
  if (!jnum(v, out) || *out < min || *out > max || *out != floor(*out))
    return val__fail(error, name, 0,
                     "JSON %s%s: expected a whole number from %.0f to %.0f",
                     where, key, min, max);
  return TRUE;
}

/* Header key `key` of m set to a whole number jwhole_opt read. */
static void set_whole(ValMeasurements *m, const char *key, double num)
{
  char n[24];

  g_snprintf(n, sizeof(n), "%ld", (long)num);
  val_meas_set(m, key, n);
}

/* What json-glib lets pass and a reader of nccl-tests -J must not: it
 * parses recursively, so a document nested deep enough (a line of
 * "[[[[...") overflows the stack; it keeps the last of a key given twice
 * in one object; it reads a second document after the first without a
 * word.  This scan refuses the three first (nccl-tests -J nests 6 levels
 * at most; keys are compared as written). */
#define JSON_MAX_DEPTH 64

static void keys_free(gpointer keys)
{
  if (keys)
    g_hash_table_unref(keys);
}

static gboolean json_shape_ok(const char *name, const char *text, gsize len,
                              GError **error)
{
  /* per open bracket: NULL for a list, an object's keys */
  g_autoptr(GPtrArray) open = g_ptr_array_new_with_free_func(keys_free);
  guint line = 1;
  gboolean done = FALSE; /* the top-level value has ended */

  for (gsize i = 0; i < len; i++) {
    char c = text[i];

    if (c == '\n') {
      line++;
      continue;
    }
    if (g_ascii_isspace(c))
      continue;
    if (done)
      return val__fail(error, name, line,
                       "JSON: more after the document ends (a second "
                       "document?): expected one document");
    if (c == '"') {
      gsize start = ++i;
      GHashTable *keys;

      while (i < len && text[i] != '"')
        i += text[i] == '\\' ? 2 : 1;
      keys = open->len ? g_ptr_array_index(open, open->len - 1) : NULL;
      if (keys && i < len) {
        gsize j = i + 1;

        while (j < len && g_ascii_isspace(text[j]))
          j++;
        if (j < len && text[j] == ':') {
          g_autofree char *key = g_strndup(text + start, i - start);
          if (g_hash_table_contains(keys, key))
            return val__fail(error, name, line,
                             "JSON: key \"%s\" twice in one object: "
                             "expected each once",
                             key);
          g_hash_table_add(keys, g_steal_pointer(&key));
        }
      }
      if (open->len == 0)
        done = TRUE;
      continue;
    }
    if (c == '{' || c == '[') {
      if (open->len >= JSON_MAX_DEPTH)
        return val__fail(error, name, line,
                         "JSON nested deeper than %u lists and objects "
                         "(nccl-tests -J output nests 6, nvbandwidth's 5)",
                         JSON_MAX_DEPTH);
      g_ptr_array_add(open, c == '{'
                                ? g_hash_table_new_full(g_str_hash, g_str_equal,
                                                        g_free, NULL)
                                : NULL); /* a list holds no keys */
      continue;
    }
    if ((c == '}' || c == ']') && open->len > 0) {
      g_ptr_array_set_size(open, open->len - 1);
      done = open->len == 0;
      continue;
    }
    if (open->len == 0 && (c != '}' && c != ']')) {
      /* a bare number, true, false or null: to its end */
      while (i + 1 < len && !g_ascii_isspace(text[i + 1]))
        i++;
      done = TRUE;
    }
  }
  return TRUE;
}

JsonParser *val__json_parse(const char *name, const char *text, gsize len,
                            GError **error)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable();
  g_autoptr(GError) inner = NULL;

  if (!json_shape_ok(name, text, len, error))
    return NULL;
  if (!json_parser_load_from_data(parser, text, (gssize)len, &inner)) {
    /* json-glib says "<data>:LINE:COL: Parse error: WHAT". */
    const char *msg = inner->message, *what;
    g_autofree char *place = NULL;
    if (g_str_has_prefix(msg, "<data>"))
      msg += 6;
    what = strstr(msg, ": Parse error: ");
    place = what ? g_strndup(msg, (gsize)(what - msg)) : g_strdup("");
    g_set_error(error, VAL_ERROR, VAL_ERROR_PARSE, "%s%s: not valid JSON: %s",
                name, place, what ? what + 15 : msg);
    return NULL;
  }
  return g_steal_pointer(&parser);
}

ValMeasurements *val__import_nccltests_json(const char *name, const char *text,
                                            gsize len, GError **error)
{
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(ValMeasurements) m = val_meas_new();
  g_autoptr(GArray) rows = g_array_new(FALSE, TRUE, sizeof(NcclRow));
  g_autoptr(GPtrArray) gpus = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GHashTable) sizes = /* size -> index + 1 */
      g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  NcclTable tb = {.name = name, .rows = rows};
  JsonNode *root, *results, *config, *devices, *args, *v;
  JsonArray *list;
  double num, agg;

  if (!(parser = val__json_parse(name, text, len, error)))
    return NULL;
  root = json_parser_get_root(parser);
  results = jget(root, "results");
  if (!results || !JSON_NODE_HOLDS_ARRAY(results)) {
    val__fail(error, name, 0,
              "JSON: expected an object with a \"results\" list (nccl-tests "
              "-J output)");
    return NULL;
  }
  if ((v = jget(root, "version")) &&
      (!jnum(v, &num) || (num != 1 && num != 2))) {
    g_autofree char *x = json_to_string(v, FALSE);
    val__fail(error, name, 0,
              "JSON version %s: expected 2 (or 1), the -J layouts of "
              "nccl-tests this importer reads",
              x);
    return NULL;
  }
  config = jget(root, "config");
  if (config && !JSON_NODE_HOLDS_OBJECT(config)) {
    val__fail(error, name, 0, "JSON config: expected an object");
    return NULL;
  }
  num = -1;
  if (!jwhole_opt(name, root, "nccl_version", "", 0, 9999999, &num, error))
    return NULL;
  if (num >= 0) {
    g_autofree char *ver = version_from_code((long)num);
    val_meas_set(m, "nccl.version", ver);
  }
  if (!jwhole_opt(name, config, "nthreads", "config.", 1, 1024, &num, error))
    return NULL;
  num = 0;
  if (!jwhole_opt(name, config, "iterations", "config.", 0, G_MAXUINT32, &num,
                  error))
    return NULL;
  tb.iterations = (guint)num;
  agg = 1;
  if (!jwhole_opt(name, config, "aggregated_iterations", "config.", 1,
                  G_MAXINT32, &agg, error))
    return NULL;
  /* as the text's header: with agg iters above 1 each timed iteration is
   * a group of calls, not a loop of single ones, and left unknown */
  if (num >= 1 && agg == 1)
    set_whole(m, "iters", num);
  if (agg > 1)
    set_whole(m, "nccltests.agg_iters", agg);
  num = -1;
  if (!jwhole_opt(name, config, "graph", "config.", 0, G_MAXINT32, &num, error))
    return NULL;
  if (num >= 0) {
    set_whole(m, "nccltests.graph", num);
    set_whole(m, "graph_launches", num);
  }
  num = 0;
  if (!jwhole_opt(name, config, "ngpus", "config.", 1, 1024, &num, error))
    return NULL;
  /* -g: the GPUs each thread launches in turn */
  if (num >= 1)
    set_whole(m, "gpus_per_process", num);
  devices = jget(config, "devices");
  if (!devices)
    devices = jget(root, "devices");
  if (devices && !JSON_NODE_HOLDS_ARRAY(devices)) {
    val__fail(error, name, 0,
              "JSON devices: expected a list, one device per rank");
    return NULL;
  }
  if (devices && json_array_get_length(json_node_get_array(devices)) > 0) {
    JsonArray *d = json_node_get_array(devices);
    guint n = json_array_get_length(d);
    g_autofree gboolean *seen_rank = g_new0(gboolean, n);

    for (guint i = 0; i < n; i++) {
      JsonNode *dev = json_array_get_element(d, i);
      const char *info = jstr(jget(dev, "device_info"));

      /* each rank once, 0 to the count less one */
      if (jget(dev, "rank") &&
          (!jnum(jget(dev, "rank"), &num) || num < 0 || num >= n ||
           num != floor(num) || seen_rank[(guint)num])) {
        val__fail(error, name, 0,
                  "JSON devices[%u].rank: expected a rank from 0 to %u, each "
                  "once",
                  i, n - 1);
        return NULL;
      }
      if (jget(dev, "rank"))
        seen_rank[(guint)num] = TRUE;
      g_ptr_array_add(gpus, g_strdup(info ? info : "?"));
    }
    tb.ranks = json_array_get_length(d);
    val__set_gpus(m, gpus);
  }
  args = jget(root, "args");
  /* the command line, as nccl-tests writes it: a list of strings (the
   * program first); another shape is not read past unseen */
  if (args && !JSON_NODE_HOLDS_NULL(args)) {
    gboolean strings = JSON_NODE_HOLDS_ARRAY(args);

    for (guint i = 0;
         strings && i < json_array_get_length(json_node_get_array(args)); i++)
      strings =
          jstr(json_array_get_element(json_node_get_array(args), i)) != NULL;
    if (!strings) {
      val__fail(error, name, 0,
                "JSON \"args\": expected the command line, a list of "
                "strings (the test program first)");
      return NULL;
    }
  }
  if (args && JSON_NODE_HOLDS_ARRAY(args) &&
      json_array_get_length(json_node_get_array(args)) > 0) {
    const char *a0 = jstr(json_array_get_element(json_node_get_array(args), 0));
    if (a0) {
      const char *base = strrchr(a0, '/');
      g_autofree char *src = NULL;
      base = base ? base + 1 : a0;
      tb.collective = val__nccl_collective(base);
      src = g_strdup_printf("nccl-tests %s -J (imported)", base);
      val_meas_set(m, "source", src);
    }
  }
  if (!val_meas_get(m, "source"))
    val_meas_set(m, "source", "nccl-tests -J (imported)");
  list = json_node_get_array(results);
  if (json_array_get_length(list) == 0) {
    val__fail(error, name, 0,
              "JSON \"results\": expected one result per size, found an "
              "empty list (the run failed before its first size?)");
    return NULL;
  }
  for (guint i = 0; i < json_array_get_length(list); i++) {
    JsonNode *res = json_array_get_element(list, i);
    NcclRow r = {.line = 0, .json_index = i + 1};
    double size;
    g_autofree char *where = g_strdup_printf("results[%u]", i);
    static const char *const keys[2] = {"out_of_place", "in_place"};

    if (!JSON_NODE_HOLDS_OBJECT(res)) {
      val__fail(error, name, 0, "JSON %s: expected an object", where);
      return NULL;
    }
    if (!jnum_field(name, res, "size", where, &size, error))
      return NULL;
    if (size < 1 || size != floor(size) || size >= 0x1p64) {
      val__fail(error, name, 0,
                "JSON %s.size: expected a whole number of bytes from 1 to "
                "2^64 - 1, found %.15g",
                where, size);
      return NULL;
    }
    r.size = (guint64)size;
    {
      gpointer first = g_hash_table_lookup(sizes, &r.size);
      if (first) {
        val__fail(error, name, 0,
                  "JSON %s.size: %" G_GUINT64_FORMAT " again (results[%u] "
                  "has it): expected each size once, from one run",
                  where, r.size, GPOINTER_TO_UINT(first) - 1);
        return NULL;
      }
      g_hash_table_insert(sizes, g_memdup2(&r.size, sizeof(r.size)),
                          GUINT_TO_POINTER(i + 1));
    }
    if (jstr(jget(res, "redop")))
      g_strlcpy(r.redop, jstr(jget(res, "redop")), sizeof(r.redop));
    if ((v = jget(res, "count")) && !JSON_NODE_HOLDS_NULL(v)) {
      const char *type = jstr(jget(res, "type"));

      if (!jnum(v, &num) || num < 0 || num != floor(num) || num >= 0x1p64 ||
          !type) {
        val__fail(error, name, 0,
                  "JSON %s.count: expected a whole number of elements, with "
                  "its \"type\"",
                  where);
        return NULL;
      }
      r.has_count = TRUE;
      r.count = (guint64)num;
      g_strlcpy(r.type, type, sizeof(r.type));
      if (strlen(type) >= sizeof(r.type))
        r.type[0] = '?';
    }
    if ((v = jget(res, "root")) && !JSON_NODE_HOLDS_NULL(v)) {
      /* nccl-tests writes the printed "%6i" text: "    -1" */
      const char *rs = jstr(v);
      char *end = NULL;
      r.has_root = TRUE;
      if (jnum(v, &num) && num == floor(num) && num >= -1 && num <= G_MAXINT)
        r.root = (long)num;
      else if (!rs || (r.root = strtol(rs, &end, 10), end == rs) || *end ||
               r.root < -1 || r.root > G_MAXINT) {
        val__fail(error, name, 0, "JSON %s.root: expected a rank or -1",
                  where);
        return NULL;
      }
    }
    for (int k = 0; k < 2; k++) {
      JsonNode *o = jget(res, keys[k]);
      g_autofree char *at = g_strdup_printf("%s.%s", where, keys[k]);
      const char *tkey;
      if (!o || JSON_NODE_HOLDS_NULL(o))
        continue;
      if (!JSON_NODE_HOLDS_OBJECT(o)) {
        val__fail(error, name, 0, "JSON %s: expected an object or null", at);
        return NULL;
      }
      tkey = jget(o, "time") ? "time" : "cpu_time";
      if (!jnum_field(name, o, tkey, at, &r.time_us[k], error) ||
          !jnum_field(name, o, "alg_bw", at, &r.algbw[k], error) ||
          !jnum_field(name, o, "bus_bw", at, &r.busbw[k], error))
        return NULL;
      if (r.time_us[k] <= 0) {
        val__fail(error, name, 0,
                  "JSON %s.%s: expected a time in microseconds > 0, found 0",
                  at, tkey);
        return NULL;
      }
      /* nwrong: as #wrong in the text, null when the check was off */
      if (jnum(jget(o, "nwrong"), &num) && num != 0) {
        val__fail(error, name, 0,
                  "JSON %s.nwrong: expected 0 (or null), found %.15g: "
                  "nccl-tests found wrong results, the run measured a "
                  "failing collective",
                  at, num);
        return NULL;
      }
      r.has[k] = TRUE;
    }
    if (!r.has[0] && !r.has[1]) {
      val__fail(error, name, 0,
                "JSON %s: expected \"out_of_place\" or \"in_place\" "
                "results, found neither",
                where);
      return NULL;
    }
    g_array_append_val(rows, r);
  }
  return finish(&tb, g_steal_pointer(&m), error);
}
