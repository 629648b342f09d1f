/* The measurement format; see validate/measure.h. */
#include "validate/error.h"
#include "validate/measure.h"

#include <csv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/nccl/nccl.h"
#include "sim/error.h"
#include "sim/input.h"
#include "sim/units.h"
#include "traces/csvtext.h"
#include "traces/output.h"
#include "validate/import_internal.h"

static const char *const probe_names[VAL_N_PROBES] = {"p2p", "hostdev",
                                                      "nccl", "verbs"};

static const char *const columns[] = {
    "probe",       "test",           "mode",        "src",
    "dst",         "ranks",          "size_bytes",  "iterations",
    "time_us_min", "time_us_median", "time_us_max", "bw_GBps",
    "busbw_GBps"};
enum { N_COLUMNS = G_N_ELEMENTS(columns) };

const char *val_probe_name(ValProbe p)
{
  return p < VAL_N_PROBES ? probe_names[p] : "?";
}

gboolean val_probe_parse(const char *name, ValProbe *out)
{
  for (int i = 0; i < VAL_N_PROBES; i++)
    if (g_str_equal(name, probe_names[i])) {
      *out = (ValProbe)i;
      return TRUE;
    }
  return FALSE;
}

ValMeasurements *val_meas_new(void)
{
  ValMeasurements *m = g_new0(ValMeasurements, 1);

  m->keys = g_ptr_array_new_with_free_func(g_free);
  m->values = g_ptr_array_new_with_free_func(g_free);
  m->points = g_array_new(FALSE, TRUE, sizeof(ValPoint));
  return m;
}

void val_meas_free(ValMeasurements *m)
{
  if (!m)
    return;
  g_ptr_array_unref(m->keys);
  g_ptr_array_unref(m->values);
  g_array_unref(m->points);
  g_free(m);
}

void val_meas_set(ValMeasurements *m, const char *key, const char *value)
{
  char *v = g_strdup(value ? value : "");

  g_strdelimit(v, "\r\n", ' ');
  g_strstrip(v);
  for (guint i = 0; i < m->keys->len; i++)
    if (g_str_equal(m->keys->pdata[i], key)) {
      g_free(m->values->pdata[i]);
      m->values->pdata[i] = v;
      return;
    }
  g_ptr_array_add(m->keys, g_strdup(key));
  g_ptr_array_add(m->values, v);
}

const char *val_meas_get(const ValMeasurements *m, const char *key)
{
  for (guint i = 0; i < m->keys->len; i++)
    if (g_str_equal(m->keys->pdata[i], key))
      return m->values->pdata[i];
  return NULL;
}

/* g_strlcpy that does not cut a UTF-8 character in two: the file read
 * back must be text. */
static void copy_name(char *dst, const char *src, gsize size)
{
  const char *end;

  g_strlcpy(dst, src, size);
  if (!g_utf8_validate(dst, -1, &end))
    dst[end - dst] = '\0';
}

/* The tests and modes of each probe (docs/validate.md): what the probes
 * and importers write, and what a prediction knows how to run; another
 * name would be predicted as some other experiment. */
static const char *const probe_tests[VAL_N_PROBES][8] = {
    [VAL_PROBE_P2P] = {"ce_uni", "ce_bidir", "sm_uni", "sm_bidir", "ce_latency",
                       "sm_latency"},
    [VAL_PROBE_HOSTDEV] = {"h2d", "d2h", "bidir", "latency_h2d", "latency_d2h"},
    [VAL_PROBE_NCCL] = {"allreduce", "allgather", "reducescatter", "broadcast",
                        "reduce", "alltoall", "sendrecv"},
    [VAL_PROBE_VERBS] = {"write_bw", "send_bw", "read_bw", "write_lat",
                         "send_lat", "read_lat"},
};
static const char *const probe_tests_what[VAL_N_PROBES] = {
    [VAL_PROBE_P2P] = "test: expected ce_uni, ce_bidir, sm_uni, sm_bidir, "
                      "ce_latency or sm_latency (probe p2p)",
    [VAL_PROBE_HOSTDEV] = "test: expected h2d, d2h, bidir, latency_h2d or "
                          "latency_d2h (probe hostdev)",
    [VAL_PROBE_NCCL] = "test: expected allreduce, allgather, reducescatter, "
                       "broadcast, reduce, alltoall or sendrecv (probe nccl)",
    [VAL_PROBE_VERBS] = "test: expected write_bw, send_bw, read_bw, "
                        "write_lat, send_lat or read_lat (probe verbs)",
};
static const char *const probe_modes[VAL_N_PROBES][8] = {
    [VAL_PROBE_P2P] = {"peer", "nopeer", "local", "peer_read"},
    [VAL_PROBE_HOSTDEV] = {"pinned", "pageable", "pinned_sm"},
    [VAL_PROBE_NCCL] = {"oop", "ip"},
    [VAL_PROBE_VERBS] = {"host", "gpu", ""},
};
static const char *const probe_modes_what[VAL_N_PROBES] = {
    [VAL_PROBE_P2P] = "mode: expected peer, nopeer, local or peer_read "
                      "(probe p2p)",
    [VAL_PROBE_HOSTDEV] = "mode: expected pinned, pageable or pinned_sm "
                          "(probe hostdev)",
    [VAL_PROBE_NCCL] = "mode: expected oop or ip (probe nccl)",
    [VAL_PROBE_VERBS] = "mode: expected host, gpu or nothing (probe verbs)",
};

static gboolean name_in(const char *const *names, const char *name)
{
  for (guint i = 0; i < 8 && names[i]; i++)
    if (strcmp(names[i], name) == 0)
      return TRUE;
  return FALSE;
}

void val_point_init(ValPoint *p, ValProbe probe, const char *test,
                    const char *mode, const char *src, const char *dst)
{
  memset(p, 0, sizeof(*p));
  p->probe = probe;
  copy_name(p->test, test, sizeof(p->test));
  copy_name(p->mode, mode, sizeof(p->mode));
  copy_name(p->src, src, sizeof(p->src));
  copy_name(p->dst, dst, sizeof(p->dst));
}

static gboolean test_is_bidir(const char *test)
{
  return g_str_has_suffix(test, "bidir");
}

void val_meas_add(ValMeasurements *m, const ValPoint *p)
{
  ValPoint q = *p;

  if (q.time_us_median == 0 && q.time_us_min > 0 && q.time_us_max > 0)
    q.time_us_median = (q.time_us_min + q.time_us_max) / 2;
  if (q.time_us_min == 0)
    q.time_us_min = q.time_us_median;
  if (q.time_us_max == 0)
    q.time_us_max = q.time_us_median;
  if (q.bw_GBps == 0 && q.time_us_median > 0)
    q.bw_GBps = (double)q.size_bytes * (test_is_bidir(q.test) ? 2 : 1) /
                (q.time_us_median * 1e3);
  /* A collective's busbw is its own (0 for one rank, as nccl-tests). */
  if (q.busbw_GBps == 0 && q.probe != VAL_PROBE_NCCL)
    q.busbw_GBps = q.bw_GBps;
  if (q.ranks == 0)
    q.ranks = 1;
  g_array_append_val(m->points, q);
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;

  return x < y ? -1 : x > y;
}

static double median_sorted(const double *d, guint n)
{
  return n % 2 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2;
}

double val_median(GArray *values)
{
  if (values->len == 0)
    return 0;
  qsort(values->data, values->len, sizeof(double), cmp_double);
  return median_sorted((const double *)(void *)values->data, values->len);
}

void val_point_set_times(ValPoint *p, double *us, guint n)
{
  g_return_if_fail(n >= 1);
  qsort(us, n, sizeof(double), cmp_double);
  p->time_us_min = us[0];
  p->time_us_max = us[n - 1];
  p->time_us_median = median_sorted(us, n);
}

/* Shortest text that reads back as the same double. */
static void append_number(GString *s, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append(s, g_ascii_formatd(buf, sizeof(buf), "%.6g", v));
}

void val_point_csv_names(GString *s, const ValPoint *p)
{
  const char *const names[] = {p->test, p->mode, p->src, p->dst};

  g_string_append(s, val_probe_name(p->probe));
  for (guint k = 0; k < G_N_ELEMENTS(names); k++) {
    g_string_append_c(s, ',');
    trc_csv_append_text(s, names[k]);
  }
}

char *val_meas_csv(const ValMeasurements *m)
{
  GString *s = g_string_new(VAL_MEAS_MAGIC "\n");

  /* a key without a value says nothing, and reads back as an error */
  for (guint i = 0; i < m->keys->len; i++)
    if (((char *)m->values->pdata[i])[0] != '\0')
      g_string_append_printf(s, "# %s = %s\n", (char *)m->keys->pdata[i],
                             (char *)m->values->pdata[i]);
  for (guint c = 0; c < N_COLUMNS; c++)
    g_string_append_printf(s, "%s%s", c ? "," : "", columns[c]);
  g_string_append_c(s, '\n');
  for (guint i = 0; i < m->points->len; i++) {
    const ValPoint *p = &g_array_index(m->points, ValPoint, i);

    const double numbers[] = {p->time_us_min, p->time_us_median,
                              p->time_us_max, p->bw_GBps, p->busbw_GBps};

    val_point_csv_names(s, p);
    g_string_append_printf(s, ",%u,%" G_GUINT64_FORMAT ",%u", p->ranks,
                           p->size_bytes, p->iterations);
    for (guint k = 0; k < G_N_ELEMENTS(numbers); k++) {
      g_string_append_c(s, ',');
      append_number(s, numbers[k]);
    }
    g_string_append_c(s, '\n');
  }
  return g_string_free(s, FALSE);
}

gboolean val_meas_write(const ValMeasurements *m, const char *path,
                        GError **error)
{
  char *text = val_meas_csv(m);

  if (path == NULL || g_str_equal(path, "-")) {
    gboolean ok = fputs(text, stdout) >= 0 && fflush(stdout) == 0;

    g_free(text);
    if (!ok)
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_IO,
                  "standard output: write failed");
    return ok;
  }
  return trc_write_text(path, text, error);
}

/* --- CSV text ----------------------------------------------------------- */

gboolean val_csv_split(const char *name, const char *text, gsize len,
                       ValCsv *out, GError **error)
{
  return trc_csv_split(name, text, len, out, error);
}

void val_csv_clear(ValCsv *c)
{
  trc_csv_clear(c);
}

gboolean val_cell_double(const char *cell, double *out)
{
  /* spaces around it allowed, read in place (a million rows) */
  return sim_decimal_parse(cell, out);
}

/* --- reading this format ------------------------------------------------ */

static gboolean parse_header_line(ValMeasurements *m, const char *line)
{
  const char *eq = strchr(line, '=');
  g_autofree char *key = NULL;

  if (!g_str_has_prefix(line, "#") || !eq)
    return FALSE;
  key = g_strstrip(g_strndup(line + 1, (gsize)(eq - line - 1)));
  if (key[0] == '\0')
    return FALSE;
  for (const char *c = key; *c; c++)
    if (!g_ascii_islower(*c) && !g_ascii_isdigit(*c) && *c != '_' && *c != '.')
      return FALSE;
  val_meas_set(m, key, eq + 1);
  return TRUE;
}

/* The header keys that are counts, with their range and meaning. */
typedef struct {
  const char *key;
  guint64 min, max;
  const char *max_text, *what;
} CountKey;

static const CountKey count_keys[] = {
    {"gpus_per_process", 1, 1024, "1024", "GPUs one process drove"},
    {"iters", 1, G_MAXUINT32, "4294967295",
     "calls timed back to back, nccl-tests -n"},
    {"graph_launches", 0, G_MAXINT32, "2147483647",
     "CUDA graph launches of the timed calls, nccl-tests -G; 0: none"},
    {"tx_depth", 1, 1u << 20, "2^20", "verbs messages in flight, queue pairs"},
    {"verbs.tx_depth", 1, 1u << 20, "2^20",
     "verbs messages in flight, queue pairs"},
    {"verbs.outstand_reads", 1, 1u << 20, "2^20",
     "verbs messages in flight, queue pairs"},
    {"verbs.number_of_qps", 1, 1u << 20, "2^20",
     "verbs messages in flight, queue pairs"},
};

/* The header keys predictions read (validate/calibrate.c), checked when
 * read: gpus_per_process, iters, graph_launches and the verbs depths are
 * counts, nccl and
 * nccl.version NCCL versions. */
static gboolean check_header_value(const char *key, const char *value,
                                   const char *name, guint line,
                                   GError **error)
{
  g_autoptr(GError) why = NULL;
  guint32 version;

  /* a key is there to say something: an empty value is a line left
   * unfinished, and what it stands for (a GPU model, a count) unknown */
  if (value[0] == '\0') {
    g_set_error(error, VAL_ERROR, VAL_ERROR_PARSE,
                "%s:%u: '# %s =' has no value (expected '# %s = VALUE', or "
                "no line for what is not known)",
                name, line, key, key);
    return FALSE;
  }
  for (guint i = 0; i < G_N_ELEMENTS(count_keys); i++) {
    const CountKey *k = &count_keys[i];

    if (strcmp(key, k->key) == 0 &&
        !g_ascii_string_to_unsigned(value, 10, k->min, k->max, NULL, NULL)) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_PARSE,
                  "%s:%u: %s '%s': expected a count from %" G_GUINT64_FORMAT
                  " to %s (%s)",
                  name, line, key, value, k->min, k->max_text, k->what);
      return FALSE;
    }
  }
  if ((strcmp(key, "nccl") == 0 || strcmp(key, "nccl.version") == 0) &&
      !nccl_version_parse(value, key, &version, &why)) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_PARSE, "%s:%u: %s", name, line,
                why->message);
    return FALSE;
  }
  return TRUE;
}

static ValMeasurements *parse_own(const char *name, const char *text,
                                  gsize len, GError **error)
{
  g_autoptr(ValMeasurements) m = val_meas_new();
  g_autoptr(ValSeen) seen = val__seen_new();
  ValCsv csv;
  gboolean ok = TRUE;

  /* The header block: "# key = value" lines after the magic line.  The
   * text is `len` bytes, not NUL-terminated: split a copy. */
  {
    g_autofree char **lines =
        sim_input_lines(text, strnlen(text, len), name, NULL, error);

    if (!lines)
      return NULL;
    for (guint i = 1; lines[i] && lines[i][0] == '#'; i++) {
      guint before = m->keys->len;

      g_strchomp(lines[i]);
      if (!parse_header_line(m, lines[i])) {
        g_set_error(error, VAL_ERROR, VAL_ERROR_PARSE,
                    "%s:%u: expected a header line '# key = value' (key of "
                    "lower-case letters, digits, '_' and '.')",
                    name, i + 1);
        return NULL;
      }
      if (m->keys->len == before) { /* val_meas_set replaced a value */
        g_autofree char *key = g_strstrip(
            g_strndup(lines[i] + 1, strcspn(lines[i] + 1, "=")));
        g_set_error(error, VAL_ERROR, VAL_ERROR_PARSE,
                    "%s:%u: header key '%s' given twice (expected each key "
                    "once)",
                    name, i + 1, key);
        return NULL;
      }
      if (!check_header_value(
              g_ptr_array_index(m->keys, m->keys->len - 1),
              g_ptr_array_index(m->values, m->values->len - 1), name, i + 1,
              error))
        return NULL;
    }
  }
  if (!val_csv_split(name, text, len, &csv, error))
    return NULL;
  if (csv.rows->len == 0) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_PARSE,
                "%s: no header row (expected '%s,%s,...')", name, columns[0],
                columns[1]);
    ok = FALSE;
  } else {
    GStrv head = csv.rows->pdata[0];
    guint line = g_array_index(csv.lines, guint, 0);

    for (guint c = 0; ok && c < N_COLUMNS; c++)
      if (!head[c] || !g_str_equal(g_strstrip(head[c]), columns[c])) {
        g_autofree char *x = head[c] ? val__excerpt(head[c]) : NULL;
        g_set_error(error, VAL_ERROR, VAL_ERROR_PARSE,
                    "%s:%u: column %u is '%s', expected '%s'", name, line,
                    c + 1, x ? x : "(missing)", columns[c]);
        ok = FALSE;
      }
    if (ok && head[N_COLUMNS]) {
      g_autofree char *x = val__excerpt(head[N_COLUMNS]);
      g_set_error(error, VAL_ERROR, VAL_ERROR_PARSE,
                  "%s:%u: unexpected column %u '%s' (the format has %u)", name,
                  line, N_COLUMNS + 1, x, N_COLUMNS);
      ok = FALSE;
    }
  }
  for (guint r = 1; ok && r < csv.rows->len; r++) {
    GStrv f = csv.rows->pdata[r];
    guint line = g_array_index(csv.lines, guint, r);
    ValPoint p = {0};
    guint64 u;
    double d[5];
    const char *what = NULL;
    guint bad = 0; /* the field `what` is about */

    if (g_strv_length(f) != N_COLUMNS) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_PARSE,
                  "%s:%u: %u fields, expected %u (%s,...,%s)", name, line,
                  g_strv_length(f), N_COLUMNS, columns[0],
                  columns[N_COLUMNS - 1]);
      ok = FALSE;
      break;
    }
    for (guint c = 0; c < N_COLUMNS; c++)
      g_strstrip(f[c]);
    if (!val_probe_parse(f[bad = 0], &p.probe))
      what = "probe: expected p2p, hostdev, nccl or verbs";
    else if (!name_in(probe_tests[p.probe], f[bad = 1]))
      what = probe_tests_what[p.probe];
    else if (!name_in(probe_modes[p.probe], f[bad = 2]))
      what = probe_modes_what[p.probe];
    else if (strlen(f[bad = 3]) >= sizeof(p.src) ||
             strlen(f[bad = 4]) >= sizeof(p.dst))
      what = "src/dst: expected at most 47 characters";
    else if (!g_ascii_string_to_unsigned(f[bad = 5], 10, 1, G_MAXUINT32, &u,
                                         NULL))
      what = "ranks: expected a count from 1";
    else if ((p.ranks = (guint32)u,
              !g_ascii_string_to_unsigned(f[bad = 6], 10, 1, G_MAXUINT64,
                                          &p.size_bytes, NULL)))
      what = "size_bytes: expected a size in bytes from 1";
    else if (!g_ascii_string_to_unsigned(f[bad = 7], 10, 0, G_MAXUINT32, &u,
                                         NULL))
      what = "iterations: expected a count";
    else {
      p.iterations = (guint32)u;
      for (guint c = 0; c < 5 && !what; c++)
        if (!val_cell_double(f[bad = 8 + c], &d[c]) || d[c] < 0)
          what = c < 3 ? "times: expected a number of microseconds >= 0"
                       : "bandwidths: expected a number of GB/s >= 0";
      if (!what && (d[1] <= 0 || d[0] > d[1] || d[1] > d[2])) {
        g_autofree char *found =
            g_strdup_printf("%s, %s, %s", f[8], f[9], f[10]);
        g_set_error(error, VAL_ERROR, VAL_ERROR_PARSE,
                    "%s:%u: times: expected 0 < time_us_min <= "
                    "time_us_median <= time_us_max, found %s",
                    name, line, found);
        ok = FALSE;
        break;
      }
    }
    if (what) {
      g_autofree char *x = val__excerpt(f[bad]);
      g_set_error(error, VAL_ERROR, VAL_ERROR_PARSE, "%s:%u: %s, found '%s'",
                  name, line, what, x);
      ok = FALSE;
      break;
    }
    g_strlcpy(p.test, f[1], sizeof(p.test));
    g_strlcpy(p.mode, f[2], sizeof(p.mode));
    g_strlcpy(p.src, f[3], sizeof(p.src));
    g_strlcpy(p.dst, f[4], sizeof(p.dst));
    p.time_us_min = d[0];
    p.time_us_median = d[1];
    p.time_us_max = d[2];
    p.bw_GBps = d[3];
    p.busbw_GBps = d[4];
    if (!val__point_once(seen, &p, name, line, error)) {
      ok = FALSE;
      break;
    }
    g_array_append_val(m->points, p);
  }
  val_csv_clear(&csv);
  if (ok && m->points->len == 0) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_PARSE,
                "%s: no measured points after the header row", name);
    ok = FALSE;
  }
  return ok ? g_steal_pointer(&m) : NULL;
}

ValMeasurements *val_meas_parse(const char *name, const char *text, gsize len,
                                GError **error)
{
  return val_meas_parse_given(name, text, len, NULL, error);
}

ValMeasurements *val_meas_parse_given(const char *name, const char *text,
                                      gsize len, GHashTable *given,
                                      GError **error)
{
  if (!val__check_text(name, text, len, error))
    return NULL;
  if (len >= strlen(VAL__MEAS_STEM) &&
      memcmp(text, VAL__MEAS_STEM, strlen(VAL__MEAS_STEM)) == 0) {
    /* the first line, whole: "# ifsim measurements 10" is not version 1 */
    const char *nl = memchr(text, '\n', len);
    g_autofree char *first =
        g_strchomp(g_strndup(text, nl ? (gsize)(nl - text) : len));

    if (!g_str_equal(first, VAL_MEAS_MAGIC)) {
      g_autofree char *x = val__excerpt(first);
      g_set_error(error, VAL_ERROR, VAL_ERROR_PARSE,
                  "%s:1: '%s': expected '%s' (the version of the format "
                  "this ifsim reads)",
                  name, x, VAL_MEAS_MAGIC);
      return NULL;
    }
    return parse_own(name, text, len, error);
  }
  return val_import_given(name, text, len, given, error);
}

ValMeasurements *val_meas_load(const char *path, GError **error)
{
  return val_meas_load_given(path, NULL, error);
}

ValMeasurements *val_meas_load_given(const char *path, GHashTable *given,
                                     GError **error)
{
  g_autofree char *text = NULL;
  gsize len;

  if (!sim_input_read(path, &text, &len, error))
    return NULL;
  return val_meas_parse_given(path, text, len, given, error);
}

gboolean val_meas_load_sets(const char *path, GHashTable *given, GPtrArray *out,
                            GError **error)
{
  g_autofree char *text = NULL;
  gsize len;

  if (!sim_input_read(path, &text, &len, error))
    return FALSE;
  return val_import_sets(path, text, len, given, out, error);
}
