/* Importer of perftest results (linux-rdma/perftest: ib_write_bw,
 * ib_send_bw, ib_read_bw, ib_write_lat, ib_send_lat, ib_read_lat) and of
 * the perftest CSV transcriptions of tests/data/reference.
 *
 * The text, from perftest's src/perftest_parameters.{h,c}: a banner
 * ("RDMA_Write BW Test", "Send Latency Test", ...), a block of
 * " Key : Value" lines (two per line, tab separated: "Device", "Link type",
 * "Mtu", "GID index", "Number of qps", ...), then a table:
 *   bandwidth  " #bytes #iterations BW peak[MB/sec] BW average[MB/sec]
 *               MsgRate[Mpps]"  (newer releases print MiB/sec; with
 *               --report_gbits the BW columns are [Gb/sec])
 *   latency    " #bytes #iterations t_min[usec] t_max[usec]
 *               t_typical[usec] t_avg[usec] t_stdev[usec] 99% percentile
 *               [usec] 99.9% percentile[usec]" (older: the first five;
 *               --duration: " #bytes #iterations t_avg[usec]").
 * Units (print_report_bw: format_factor = MBS ? 0x100000 : 125000000):
 * "MB/sec" is 2^20 bytes/s (MiB/s, whatever the label says), "Gb/sec" is
 * 10^9 bits/s = 1.25e8 bytes/s.  t_typical is the median (perftest README:
 * "Latency tests report minimum, median and maximum latency results"),
 * and is one-way: half the measured round trip.
 *
 * Points: probe "verbs", test from the banner (write_bw, send_bw, read_bw,
 * write_lat, send_lat, read_lat), mode "gpu" when the run used CUDA
 * memory (--use_cuda: the text mentions CUDA), else "host"; src the local
 * device, dst "remote".  A bandwidth row gives bw_GBps = BW average and the
 * time of one message at that rate, size / bw (= 1 / MsgRate); a latency
 * row gives min / typical / max. */
#include "validate/import_internal.h"

#include <string.h>

typedef struct {
  const char *banner, *test;
} Banner;

static const Banner banners[] = {
    {"RDMA_Write BW Test", "write_bw"},      {"Send BW Test", "send_bw"},
    {"RDMA_Read BW Test", "read_bw"},        {"RDMA_Write Latency Test", "write_lat"},
    {"Send Latency Test", "send_lat"},       {"RDMA_Read Latency Test", "read_lat"},
};

static const char *test_from_tool(const char *tok)
{
  static const char *const tools[] = {"ib_write_bw",  "ib_send_bw",
                                      "ib_read_bw",   "ib_write_lat",
                                      "ib_send_lat",  "ib_read_lat"};
  const char *base = strrchr(tok, '/');

  base = base ? base + 1 : tok;
  for (guint i = 0; i < G_N_ELEMENTS(tools); i++)
    if (g_str_equal(base, tools[i]))
      return tools[i] + 3;
  return NULL;
}

/* The "# test = " and "# mode = " hints into *test and *mode (left as they
 * are when absent): test one of the tests of banners[] (or the tool's
 * name, "ib_write_bw"), mode host or gpu. */
static gboolean hint_test_mode(const ValText *t, GHashTable *hints,
                               const char **test, const char **mode,
                               GError **error)
{
  const char *v = g_hash_table_lookup(hints, "test");

  if (v) {
    const char *known = test_from_tool(v);
    for (guint b = 0; b < G_N_ELEMENTS(banners) && !known; b++)
      if (g_str_equal(v, banners[b].test))
        known = banners[b].test;
    if (!known)
      return val__fail(error, t->name, val__hint_line(t, "test"),
                       "'# test = %s': expected write_bw, send_bw, read_bw, "
                       "write_lat, send_lat or read_lat",
                       v);
    *test = known;
  }
  v = g_hash_table_lookup(hints, "mode");
  if (v) {
    if (!g_str_equal(v, "host") && !g_str_equal(v, "gpu"))
      return val__fail(error, t->name, val__hint_line(t, "mode"),
                       "'# mode = %s': expected host or gpu (the memory the "
                       "run registered)",
                       v);
    *mode = v;
  }
  return TRUE;
}

/* The header's counts the prediction of a bandwidth row reads
 * (validate/calibrate.c: the messages a run keeps in flight). */
static const char *const count_keys[] = {
    "verbs.tx_depth", "verbs.outstand_reads", "verbs.number_of_qps"};

/* One " Key  : value" pair -> verbs.key = value. */
static gboolean header_pair(ValMeasurements *m, const char *k_start,
                            gsize k_len, const char *v_start, gsize v_len,
                            char **device, const char *name, guint line,
                            GError **error)
{
  g_autofree char *k = g_strstrip(g_strndup(k_start, k_len));
  g_autofree char *v = g_strstrip(g_strndup(v_start, v_len));
  g_autoptr(GString) key = NULL;

  if (k[0] == '\0' || v[0] == '\0')
    return TRUE;
  key = g_string_new("verbs.");
  for (const char *p = k; *p; p++)
    g_string_append_c(key, g_ascii_isalnum(*p) ? g_ascii_tolower(*p) : '_');
  for (guint i = 0; i < G_N_ELEMENTS(count_keys); i++)
    if (g_str_equal(key->str, count_keys[i]) &&
        !g_ascii_string_to_unsigned(v, 10, 1, 1u << 20, NULL, NULL)) {
      g_autofree char *x = val__excerpt(v);
      return val__fail(error, name, line,
                       "'%s : %s': expected a count from 1 to 2^20", k, x);
    }
  val_meas_set(m, key->str, v);
  if (g_str_equal(key->str, "verbs.device")) {
    g_free(*device);
    *device = g_strdup(v);
  }
  return TRUE;
}

/* The " Key  : value" pairs of a header line, two to a line: perftest
 * separates them with tabs (" Dual-port       : OFF\t\tDevice         :
 * mlx5_0"), a paste often with spaces.  A key is padded to its colon and
 * may hold single spaces ("Number of qps"); a run of two or more blanks
 * before it ends the value in front of it. */
static gboolean header_pairs(ValMeasurements *m, const char *line,
                             char **device, const char *name, guint n_line,
                             GError **error)
{
  g_autofree char *l = g_strdup(line);
  g_autoptr(GArray) colons = g_array_new(FALSE, FALSE, sizeof(gsize));
  gsize n = strlen(l);

  for (char *p = l; *p; p++)
    if (*p == '\t')
      *p = ' ';
  for (gsize i = 1; i + 1 < n; i++)
    if (l[i] == ':' && l[i - 1] == ' ' && l[i + 1] == ' ')
      g_array_append_val(colons, i);
  for (guint c = 0; c < colons->len; c++) {
    gsize at = g_array_index(colons, gsize, c), k_end = at, k_start;
    gsize v_end = c + 1 < colons->len ? g_array_index(colons, gsize, c + 1) : n;

    /* the key: back over its padding, then its words to a double blank */
    while (k_end > 0 && l[k_end - 1] == ' ')
      k_end--;
    k_start = k_end;
    while (k_start > 0 &&
           !(l[k_start - 1] == ' ' && k_start > 1 && l[k_start - 2] == ' '))
      k_start--;
    if (c + 1 < colons->len) {
      /* the value ends where the next key starts */
      gsize next = g_array_index(colons, gsize, c + 1);

      while (next > at && l[next - 1] == ' ')
        next--;
      while (next > at + 1 && !(l[next - 1] == ' ' && l[next - 2] == ' '))
        next--;
      v_end = next;
    }
    if (c > 0 && k_start <= g_array_index(colons, gsize, c - 1))
      continue; /* no double blank before this colon: inside a value */
    if (!header_pair(m, l + k_start, k_end - k_start, l + at + 1,
                     v_end > at + 1 ? v_end - at - 1 : 0, device, name, n_line,
                     error))
      return FALSE;
  }
  return TRUE;
}

typedef enum { T_NONE, T_BW, T_LAT, T_LAT_AVG } TableKind;

ValMeasurements *val__import_perftest_text(const ValText *t, GError **error)
{
  g_autoptr(ValMeasurements) m = val_meas_new();
  g_autofree char *device = NULL;
  g_autoptr(GHashTable) hints = val__hints(t);
  g_autoptr(ValSeen) seen = val__seen_new();
  const char *test = NULL, *mode = NULL;
  gboolean gpu = FALSE;
  TableKind kind = T_NONE;
  double unit_Bps = 0;
  guint bw_cols = 5;
  guint header_line = 0, n = 0;

  if (!hint_test_mode(t, hints, &test, &mode, error))
    return NULL;

  /* first pass: what was run, on which memory */
  for (guint i = 0; i < t->n; i++) {
    const char *l = t->lines[i];
    g_autofree char *s = g_strstrip(g_strdup(l));
    if (!test)
      for (guint b = 0; b < G_N_ELEMENTS(banners); b++)
        if (g_str_equal(s, banners[b].banner))
          test = banners[b].test;
    if (!test) {
      g_auto(GStrv) tok = val__tokens(l);
      for (guint j = 0; tok[j] && !test; j++)
        test = test_from_tool(tok[j]);
    }
    if (strstr(l, "CUDA") || strstr(l, "use_cuda"))
      gpu = TRUE;
  }
  if (!test) {
    val__fail(error, t->name, 0,
              "cannot tell which perftest tool this is (expected a banner "
              "such as 'RDMA_Write BW Test' or 'Send Latency Test', or a "
              "line '# test = write_bw')");
    return NULL;
  }
  for (guint i = 0; i < t->n; i++) {
    const char *l = t->lines[i];
    guint line = i + 1;
    g_auto(GStrv) tok = NULL;
    guint64 size, iters;
    ValPoint p;

    if (kind == T_NONE && strstr(l, "#bytes")) {
      header_line = line;
      if (strstr(l, "BW average")) {
        kind = T_BW;
        /* newer perftest adds "BW min[...]" */
        bw_cols = strstr(l, "BW min") ? 6 : 5;
        if (strstr(l, "[Gb/sec]"))
          unit_Bps = 125e6;
        else if (strstr(l, "[MB/sec]") || strstr(l, "[MiB/sec]"))
          unit_Bps = 1048576.0;
        else {
          val__fail(error, t->name, line,
                    "expected the bandwidth unit [MB/sec], [MiB/sec] or "
                    "[Gb/sec] in the table header");
          return NULL;
        }
      } else if (strstr(l, "t_typical"))
        kind = T_LAT;
      else if (strstr(l, "t_avg"))
        kind = T_LAT_AVG;
      else {
        val__fail(error, t->name, line,
                  "expected a perftest table header ('#bytes #iterations BW "
                  "peak[...] BW average[...] MsgRate[Mpps]' or '#bytes "
                  "#iterations t_min[usec] t_max[usec] t_typical[usec] ...')");
        return NULL;
      }
      continue;
    }
    if (kind == T_NONE) {
      if (strstr(l, " :") && !header_pairs(m, l, &device, t->name, line, error))
        return NULL;
      continue;
    }
    if (strstr(l, "#bytes")) {
      val__fail(error, t->name, line,
                "a second result table (line %u has the first): expected "
                "the output of one perftest run",
                header_line);
      return NULL;
    }
    tok = val__tokens(l);
    /* separators, warnings and the closing dashes are skipped; a row
     * starts with a number, perhaps a bad one ("-65536") */
    if (!tok[0] || !val__numeric_start(tok[0]))
      continue;
    if (g_strv_length(tok) < (kind == T_BW ? 5u : kind == T_LAT ? 5u : 3u)) {
      val__fail(error, t->name, line,
                "expected %s, found %u columns: a truncated row?",
                kind == T_BW ? "5 columns (#bytes #iterations BW peak BW "
                               "average MsgRate)"
                : kind == T_LAT ? "at least 5 columns (#bytes #iterations "
                                  "t_min t_max t_typical ...)"
                                : "3 columns (#bytes #iterations t_avg)",
                g_strv_length(tok));
      return NULL;
    }
    if (!val__count(t->name, line, "#bytes", tok[0], &size, error) ||
        !val__count(t->name, line, "#iterations", tok[1], &iters, error))
      return NULL;
    val_point_init(&p, VAL_PROBE_VERBS, test, mode ? mode : gpu ? "gpu" : "host",
               device ? device : "local", "remote");
    p.size_bytes = size;
    p.iterations = (guint32)MIN(iters, G_MAXUINT32);
    if (kind == T_BW) {
      double peak, avg, rate;
      if (g_strv_length(tok) > bw_cols) {
        g_autofree char *x = val__excerpt(tok[bw_cols]);

        val__fail(error, t->name, line,
                  "'%s' after the %u columns of the header (#bytes "
                  "#iterations BW peak BW average MsgRate%s)",
                  x, bw_cols, bw_cols == 6 ? " BW min" : "");
        return NULL;
      }
      if (bw_cols == 6 && tok[5] &&
          !val__num(t->name, line, "BW min", tok[5], &rate, error))
        return NULL;
      if (!val__num(t->name, line, "BW peak", tok[2], &peak, error) ||
          !val__num(t->name, line, "BW average", tok[3], &avg, error) ||
          !val__num(t->name, line, "MsgRate", tok[4], &rate, error))
        return NULL;
      /* the peak is the fastest iteration's: never below the average,
       * beyond the printed digits */
      if (peak > 0 && peak + 0.0051 * MAX(1.0, avg) < avg) {
        val__fail(error, t->name, line,
                  "BW peak %s is below BW average %s: expected peak >= "
                  "average (perftest's peak is its fastest iteration)",
                  tok[2], tok[3]);
        return NULL;
      }
      if (avg <= 0 && rate <= 0) {
        val__fail(error, t->name, line,
                  "BW average: expected a bandwidth > 0, found '%s'", tok[3]);
        return NULL;
      }
      p.bw_GBps = avg * unit_Bps / 1e9;
      p.time_us_median = avg > 0 ? (double)size / (avg * unit_Bps) * 1e6
                                 : 1.0 / rate;
      if (p.bw_GBps == 0)
        p.bw_GBps = (double)size / (p.time_us_median * 1e3);
    } else if (kind == T_LAT) {
      static const char *const rest[] = {"t_avg", "t_stdev", "99% percentile",
                                         "99.9% percentile"};
      double tmin, tmax, ttyp, v;
      guint n_tok = g_strv_length(tok);

      if (!val__num(t->name, line, "t_min", tok[2], &tmin, error) ||
          !val__num(t->name, line, "t_max", tok[3], &tmax, error) ||
          !val__num(t->name, line, "t_typical", tok[4], &ttyp, error))
        return NULL;
      /* the columns after t_typical are read too: a value there that is
       * not a time is a damaged row, not one to predict */
      if (n_tok > 5 + G_N_ELEMENTS(rest)) {
        g_autofree char *x = val__excerpt(tok[5 + G_N_ELEMENTS(rest)]);

        val__fail(error, t->name, line,
                  "'%s' after the %u columns (#bytes #iterations t_min t_max "
                  "t_typical t_avg t_stdev 99%% 99.9%%)",
                  x, (guint)(5 + G_N_ELEMENTS(rest)));
        return NULL;
      }
      for (guint c = 5; c < n_tok; c++)
        if (!val__num(t->name, line, rest[c - 5], tok[c], &v, error))
          return NULL;
      if (tmin <= 0 || tmin > ttyp || ttyp > tmax) {
        val__fail(error, t->name, line,
                  "expected 0 < t_min <= t_typical <= t_max, found %s, %s, %s",
                  tok[2], tok[4], tok[3]);
        return NULL;
      }
      p.time_us_min = tmin;
      p.time_us_median = ttyp;
      p.time_us_max = tmax;
    } else {
      double tavg;
      if (!val__num(t->name, line, "t_avg", tok[2], &tavg, error))
        return NULL;
      if (tavg <= 0) {
        val__fail(error, t->name, line, "t_avg: expected a time > 0");
        return NULL;
      }
      p.time_us_median = tavg;
    }
    if (!val__point_once(seen, &p, t->name, line, error))
      return NULL;
    val_meas_add(m, &p);
    n++;
  }
  if (kind == T_NONE || n == 0) {
    val__fail(error, t->name, header_line,
              kind == T_NONE ? "no result table (expected a '#bytes "
                               "#iterations ...' header and rows)"
                             : "no result rows after the table header");
    return NULL;
  }
  {
    g_autofree char *src = g_strdup_printf("perftest ib_%s (imported)", test);
    val_meas_set(m, "source", src);
  }
  if (kind == T_BW)
    val_meas_set(m, "verbs.bw_unit",
                 unit_Bps == 125e6 ? "Gb/sec (10^9 bit/s)"
                                   : "MB/sec (2^20 byte/s)");
  val__copy_hints(m, t);
  return g_steal_pointer(&m);
}

/* CSV transcriptions (tests/data/reference/README.md):
 *   size_bytes,iterations,bw_peak_Gbps,bw_average_Gbps,msg_rate_Mpps
 *   size_bytes,iterations,t_min_us,t_max_us,t_typical_us,t_avg_us,t_stdev_us
 * The tool is not in the file: a "# test = ..." line names it, else the
 * bandwidth table is taken as write_bw and the latency one as send_lat (the
 * header key import.assumed says so); the memory kind only from
 * "# mode = host|gpu" (else empty: unknown). */
ValMeasurements *val__import_perftest_csv(const ValText *t, const ValCsv *csv,
                                          GError **error)
{
  g_autoptr(ValMeasurements) m = val_meas_new();
  g_autoptr(GHashTable) hints = val__hints(t);
  g_autoptr(ValSeen) seen = val__seen_new();
  GStrv head = csv->rows->pdata[0];
  guint hline = g_array_index(csv->lines, guint, 0);
  static const char *const bw_cols[] = {"size_bytes", "iterations",
                                        "bw_peak_Gbps", "bw_average_Gbps",
                                        "msg_rate_Mpps"};
  static const char *const lat_cols[] = {"size_bytes", "iterations",
                                         "t_min_us",   "t_max_us",
                                         "t_typical_us", "t_avg_us",
                                         "t_stdev_us"};
  gboolean bw = head[2] && g_str_equal(head[2], "bw_peak_Gbps");
  const char *const *cols = bw ? bw_cols : lat_cols;
  guint ncols = bw ? G_N_ELEMENTS(bw_cols) : G_N_ELEMENTS(lat_cols);
  const char *test = NULL, *mode = NULL;

  if (!val__csv_columns(t, csv, cols, ncols, error) ||
      !hint_test_mode(t, hints, &test, &mode, error))
    return NULL;
  if (!test) {
    test = bw ? "write_bw" : "send_lat";
    val_meas_set(m, "import.assumed",
                 bw ? "test write_bw (the CSV does not name the perftest "
                      "tool; say it with '# test = ...')"
                    : "test send_lat (the CSV does not name the perftest "
                      "tool; say it with '# test = ...')");
  }
  for (guint i = 1; i < csv->rows->len; i++) {
    GStrv f = csv->rows->pdata[i];
    guint line = g_array_index(csv->lines, guint, i);
    guint64 size, iters;
    double d[7];
    ValPoint p;

    if (g_strv_length(f) != ncols) {
      val__fail(error, t->name, line,
                "%u fields, expected %u (%s,...,%s): a truncated row?",
                g_strv_length(f), ncols, cols[0], cols[ncols - 1]);
      return NULL;
    }
    if (!val__count(t->name, line, cols[0], f[0], &size, error) ||
        !val__count(t->name, line, cols[1], f[1], &iters, error))
      return NULL;
    for (guint c = 2; c < ncols; c++)
      if (!val__num(t->name, line, cols[c], f[c], &d[c], error))
        return NULL;
    val_point_init(&p, VAL_PROBE_VERBS, test, mode ? mode : "", "local",
               "remote");
    p.size_bytes = size;
    p.iterations = (guint32)MIN(iters, G_MAXUINT32);
    if (bw) {
      if (d[3] <= 0) {
        val__fail(error, t->name, line,
                  "bw_average_Gbps: expected a bandwidth > 0, found '%s'",
                  f[3]);
        return NULL;
      }
      p.bw_GBps = d[3] * 0.125; /* Gb/s -> GB/s */
      p.time_us_median = (double)size / (d[3] * 125e6) * 1e6;
    } else {
      if (d[2] <= 0 || d[2] > d[4] || d[4] > d[3]) {
        val__fail(error, t->name, line,
                  "expected 0 < t_min_us <= t_typical_us <= t_max_us, found "
                  "%s, %s, %s",
                  f[2], f[4], f[3]);
        return NULL;
      }
      p.time_us_min = d[2];
      p.time_us_median = d[4];
      p.time_us_max = d[3];
    }
    if (!val__point_once(seen, &p, t->name, line, error))
      return NULL;
    val_meas_add(m, &p);
  }
  if (m->points->len == 0) {
    val__fail(error, t->name, hline, "no rows after the header row");
    return NULL;
  }
  val_meas_set(m, "source",
               "perftest (imported from a CSV transcription)");
  val__copy_hints(m, t);
  return g_steal_pointer(&m);
}
