/* Importers: recognising the format of a measurement file from its content
 * and the helpers every importer shares; see validate/import.h.
 *
 * Text that is not UTF-8 is refused first (a UTF-8 byte order mark is
 * skipped).  Recognition goes from the most to the least specific mark, so
 * that a file never matches two formats:
 *   1. "# ifsim measurements N" first: our own format (measure.c, which
 *      reads version 1 only);
 *   2. '{' first: nccl-tests -J JSON;
 *   3. nccl-tests text: a "# nThread" line, "Rank N ... device" lines, or a
 *      table header with size/count/type columns;
 *   4. p2pBandwidthLatencyTest: its banner or a "... Matrix (GB/s)" title;
 *   5. nvbandwidth: "nvbandwidth Version" or "Running TESTCASE." lines;
 *   6. perftest: a "#bytes" table header or a "... BW Test" / "... Latency
 *      Test" banner;
 *   7. CSV transcriptions (tests/data/reference): told by the header row.
 * Anything else is refused with the list of formats accepted.
 * Invariant: every error names the file, and the line when there is one. */
#include "validate/error.h"
#include "validate/import_internal.h"

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include "sim/error.h"
#include "sim/input.h"

#define FORMATS_ACCEPTED                                                       \
  "expected: ifsim measurement CSV, nccl-tests output or -J JSON, perftest "   \
  "output, p2pBandwidthLatencyTest output, nvbandwidth output or -j JSON, "    \
  "or a CSV "                                                                  \
  "transcription as in tests/data/reference"

/* --- shared helpers ----------------------------------------------------- */

gboolean val__text_init(ValText *t, const char *name, const char *text,
                        gsize len, GError **error)
{
  t->name = name;
  t->n = 0;
  t->line0 = 0;
  t->given = NULL;
  /* as the C string: a NUL ends the text (val_import refuses binary data
   * before this) */
  t->lines = sim_input_lines(text, strnlen(text, len), name, &t->n, error);
  if (!t->lines)
    return FALSE;
  sim_input_strip_cr(t->lines);
  return TRUE;
}

void val__text_clear(ValText *t)
{
  g_clear_pointer(&t->lines, g_free);
  t->n = 0;
}

GStrv val__tokens(const char *line)
{
  GPtrArray *a = g_ptr_array_new();
  const char *p = line;

  while (*p) {
    const char *s;
    while (*p == ' ' || *p == '\t')
      p++;
    if (!*p)
      break;
    s = p;
    while (*p && *p != ' ' && *p != '\t')
      p++;
    g_ptr_array_add(a, g_strndup(s, (gsize)(p - s)));
  }
  g_ptr_array_add(a, NULL);
  return (GStrv)g_ptr_array_free(a, FALSE);
}

gboolean val__all_digits(const char *s)
{
  if (!*s)
    return FALSE;
  for (; *s; s++)
    if (!g_ascii_isdigit(*s))
      return FALSE;
  return TRUE;
}

gboolean val__fail(GError **error, const char *name, guint line,
                   const char *fmt, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;

  va_start(ap, fmt);
  msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  if (line)
    g_set_error(error, VAL_ERROR, VAL_ERROR_PARSE, "%s:%u: %s", name, line,
                msg);
  else
    g_set_error(error, VAL_ERROR, VAL_ERROR_PARSE, "%s: %s", name, msg);
  return FALSE;
}

char *val__excerpt(const char *s)
{
  const glong keep = 40;

  if (g_utf8_strlen(s, keep + 1) <= keep)
    return g_strdup(s);
  return g_strdup_printf("%.*s...",
                         (int)(g_utf8_offset_to_pointer(s, keep) - s), s);
}

gboolean val__num(const char *name, guint line, const char *what,
                  const char *tok, double *out, GError **error)
{
  g_autofree char *x = NULL;

  if (val_cell_double(tok, out) && *out >= 0)
    return TRUE;
  x = val__excerpt(tok);
  return val__fail(error, name, line, "%s: expected a number%s, found '%s'",
                   what, val_cell_double(tok, out) ? " >= 0" : "", x);
}

gboolean val__count(const char *name, guint line, const char *what,
                    const char *tok, guint64 *out, GError **error)
{
  g_autofree char *t = g_strstrip(g_strdup(tok));
  g_autofree char *x = NULL;

  if (g_ascii_string_to_unsigned(t, 10, 1, G_MAXUINT64, out, NULL))
    return TRUE;
  x = val__excerpt(tok);
  return val__fail(error, name, line,
                   "%s: expected a whole number >= 1, found '%s'", what, x);
}

gboolean val__numeric_start(const char *tok)
{
  if (*tok == '-' || *tok == '+')
    tok++;
  return g_ascii_isdigit(*tok);
}

/* The set of points seen: a point is its names (probe, test, mode, src,
 * dst: one of a few tuples in any file, interned) and its numbers (ranks,
 * size).  An open-addressed table of 24-byte slots: a million-row file's
 * two million points take 96 MB of slots, not a 160-byte allocation each
 * and a GHashTable's node (which took a third of that file's parse). */
typedef struct {
  guint64 size_bytes;
  guint32 names; /* index + 1 into ValSeen.names; 0: an empty slot */
  guint32 ranks; /* 0 is 1, as val_meas_add has it */
  guint32 line;  /* the first line with it: not part of the key */
  guint32 pad;
} SeenSlot;

/* A point's names, compared as bytes: the strings are copied into zeroed
 * arrays (a point's arrays may hold bytes after the NUL). */
typedef struct {
  guint32 probe;
  char test[24], mode[16], src[48], dst[48];
} SeenNames;

static guint seen_names_hash(gconstpointer k)
{
  const guchar *b = k;
  guint32 h = 2166136261u; /* FNV-1a */

  for (gsize i = 0; i < sizeof(SeenNames); i++)
    h = (h ^ b[i]) * 16777619u;
  return h;
}

static gboolean seen_names_equal(gconstpointer a, gconstpointer b)
{
  return memcmp(a, b, sizeof(SeenNames)) == 0;
}

struct ValSeen {
  GHashTable *names; /* SeenNames -> index + 1 */
  GPtrArray *name_list;
  SeenNames last; /* the names of the previous point (most often the next
                     one's), and their index + 1 */
  guint32 last_names;
  SeenSlot *slots;
  gsize cap, used; /* cap a power of two; used <= cap / 2 */
};

ValSeen *val__seen_new(void)
{
  ValSeen *s = g_new0(ValSeen, 1);

  s->name_list = g_ptr_array_new_with_free_func(g_free);
  s->names = g_hash_table_new(seen_names_hash, seen_names_equal);
  s->cap = 64;
  s->slots = g_new0(SeenSlot, s->cap);
  return s;
}

void val__seen_free(ValSeen *s)
{
  if (!s)
    return;
  g_hash_table_destroy(s->names);
  g_ptr_array_unref(s->name_list);
  g_free(s->slots);
  g_free(s);
}

static gsize seen_hash(guint32 names, guint32 ranks, guint64 size)
{
  guint64 h = (size ^ ((guint64)names << 32 | ranks)) * 0xbf58476d1ce4e5b9u;

  h ^= h >> 31;
  h *= 0x94d049bb133111ebu;
  return (gsize)(h ^ (h >> 29));
}

/* The slot holding the key, else the empty slot where it goes. */
static SeenSlot *seen_find(ValSeen *s, guint32 names, guint32 ranks,
                           guint64 size)
{
  gsize i = seen_hash(names, ranks, size) & (s->cap - 1);

  for (;; i = (i + 1) & (s->cap - 1)) {
    SeenSlot *e = &s->slots[i];
    if (e->names == 0 ||
        (e->names == names && e->ranks == ranks && e->size_bytes == size))
      return e;
  }
}

static void seen_grow(ValSeen *s)
{
  SeenSlot *old = s->slots;
  gsize old_cap = s->cap;

  s->cap *= 2;
  s->slots = g_new0(SeenSlot, s->cap);
  for (gsize i = 0; i < old_cap; i++)
    if (old[i].names)
      *seen_find(s, old[i].names, old[i].ranks, old[i].size_bytes) = old[i];
  g_free(old);
}

gboolean val__point_once(ValSeen *seen, const ValPoint *p, const char *name,
                         guint line, GError **error)
{
  SeenNames key = {.probe = (guint32)p->probe};
  guint32 names, ranks = MAX(p->ranks, 1);
  SeenSlot *e;

  g_strlcpy(key.test, p->test, sizeof key.test);
  g_strlcpy(key.mode, p->mode, sizeof key.mode);
  g_strlcpy(key.src, p->src, sizeof key.src);
  g_strlcpy(key.dst, p->dst, sizeof key.dst);
  names = seen->last_names && seen_names_equal(&key, &seen->last)
              ? seen->last_names
              : GPOINTER_TO_UINT(g_hash_table_lookup(seen->names, &key));
  if (names == 0) {
    SeenNames *copy = g_memdup2(&key, sizeof key);

    g_ptr_array_add(seen->name_list, copy);
    names = seen->name_list->len;
    g_hash_table_insert(seen->names, copy, GUINT_TO_POINTER(names));
  }
  seen->last = key;
  seen->last_names = names;
  e = seen_find(seen, names, ranks, p->size_bytes);
  if (e->names) {
    return val__fail(error, name, line,
                     "%s %s%s%s %s -> %s, ranks %u, %" G_GUINT64_FORMAT
                     " bytes again (line %u has it): expected each point once "
                     "(a table, matrix or row given twice?)",
                     val_probe_name(p->probe), p->test, p->mode[0] ? " " : "",
                     p->mode, p->src, p->dst, ranks, p->size_bytes, e->line);
  }
  *e = (SeenSlot){.size_bytes = p->size_bytes,
                  .names = names,
                  .ranks = ranks,
                  .line = line};
  if (++seen->used > seen->cap / 2)
    seen_grow(seen);
  return TRUE;
}

gboolean val__csv_columns(const ValText *t, const ValCsv *csv,
                          const char *const *cols, guint ncols,
                          GError **error)
{
  GStrv head = csv->rows->pdata[0];
  guint line = g_array_index(csv->lines, guint, 0);
  g_autofree char *x = NULL;

  for (guint c = 0; c < ncols; c++)
    if (!head[c] || !g_str_equal(head[c], cols[c])) {
      x = head[c] ? val__excerpt(head[c]) : g_strdup("(missing)");
      return val__fail(error, t->name, line,
                       "column %u is '%s', expected '%s'", c + 1, x, cols[c]);
    }
  if (head[ncols]) {
    x = val__excerpt(head[ncols]);
    return val__fail(error, t->name, line,
                     "unexpected column %u '%s' (the table has %u: %s,...,%s)",
                     ncols + 1, x, ncols, cols[0], cols[ncols - 1]);
  }
  return TRUE;
}

void val__set_gpus(ValMeasurements *m, GPtrArray *names)
{
  g_autoptr(GPtrArray) distinct = g_ptr_array_new();
  g_autofree char *joined = NULL;
  char count[16];

  if (names->len == 0)
    return;
  for (guint i = 0; i < names->len; i++) {
    gboolean seen = FALSE;
    for (guint j = 0; j < distinct->len && !seen; j++)
      seen = g_str_equal(distinct->pdata[j], names->pdata[i]);
    if (!seen)
      g_ptr_array_add(distinct, names->pdata[i]);
  }
  g_ptr_array_add(distinct, NULL);
  joined = g_strjoinv(" + ", (char **)distinct->pdata);
  val_meas_set(m, "gpu", joined);
  g_snprintf(count, sizeof(count), "%u", names->len);
  val_meas_set(m, "gpu.count", count);
}

/* "# key = value" with key in [a-z0-9_.]+; key and value out. */
static gboolean hint_line(const char *line, char **key, char **value)
{
  const char *p = line, *eq;
  g_autofree char *k = NULL;

  while (*p == ' ' || *p == '\t')
    p++;
  if (*p != '#' || !(eq = strchr(p, '=')))
    return FALSE;
  k = g_strstrip(g_strndup(p + 1, (gsize)(eq - p - 1)));
  if (k[0] == '\0')
    return FALSE;
  for (const char *c = k; *c; c++)
    if (!g_ascii_islower(*c) && !g_ascii_isdigit(*c) && *c != '_' &&
        *c != '.')
      return FALSE;
  *key = g_steal_pointer(&k);
  *value = g_strstrip(g_strdup(eq + 1));
  return TRUE;
}

/* Each hint once: a second "# key = value" of a key would win over the
 * first without a word.  FALSE, with the two lines, when one repeats. */
static gboolean hints_once(const ValText *t, GError **error)
{
  g_autoptr(GHashTable) seen =
      g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < t->n; i++) {
    char *k = NULL, *v = NULL;

    if (!hint_line(t->lines[i], &k, &v))
      continue;
    g_free(v);
    if (g_hash_table_contains(seen, k)) {
      guint first = GPOINTER_TO_UINT(g_hash_table_lookup(seen, k));

      val__fail(error, t->name, t->line0 + i + 1,
                "'# %s' is given twice (first at line %u): expected each "
                "hint once",
                k, first);
      g_free(k);
      return FALSE;
    }
    g_hash_table_insert(seen, k, GUINT_TO_POINTER(t->line0 + i + 1));
  }
  return TRUE;
}

guint val__hint_line(const ValText *t, const char *key)
{
  guint line = 0;

  for (guint i = 0; i < t->n; i++) {
    g_autofree char *k = NULL, *v = NULL;
    if (hint_line(t->lines[i], &k, &v) && g_str_equal(k, key))
      line = t->line0 + i + 1;
  }
  return line;
}

GHashTable *val__hints(const ValText *t)
{
  GHashTable *h = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                        g_free);

  if (t->given) {
    GHashTableIter it;
    gpointer k, v;

    g_hash_table_iter_init(&it, t->given);
    while (g_hash_table_iter_next(&it, &k, &v))
      g_hash_table_replace(h, g_strdup(k), g_strdup(v));
  }

  for (guint i = 0; i < t->n; i++) {
    char *k, *v;
    if (hint_line(t->lines[i], &k, &v))
      g_hash_table_replace(h, k, v);
  }
  return h;
}

void val__copy_hints(ValMeasurements *m, const ValText *t)
{
  static const char *const own[] = {"collective", "ranks", "test", "mode"};

  for (guint i = 0; i < t->n; i++) {
    g_autofree char *k = NULL, *v = NULL;
    gboolean skip = FALSE;

    if (!hint_line(t->lines[i], &k, &v))
      continue;
    for (guint j = 0; j < G_N_ELEMENTS(own); j++)
      skip |= g_str_equal(k, own[j]);
    if (!skip)
      val_meas_set(m, k, v);
  }
}

const char *val__nccl_collective(const char *text)
{
  static const struct {
    const char *tool, *test;
  } names[] = {
      {"all_reduce", "allreduce"},         {"allreduce", "allreduce"},
      {"all_gather", "allgather"},         {"allgather", "allgather"},
      {"reduce_scatter", "reducescatter"}, {"reducescatter", "reducescatter"},
      {"broadcast", "broadcast"},          {"alltoall", "alltoall"},
      {"sendrecv", "sendrecv"},            {"reduce", "reduce"},
  };
  g_autofree char *low = g_ascii_strdown(text, -1);
  const char *base = strrchr(low, '/');

  base = base ? base + 1 : low;
  for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
    gsize l = strlen(names[i].tool);
    if (strncmp(base, names[i].tool, l) == 0 &&
        (base[l] == '\0' || g_str_has_prefix(base + l, "_perf")))
      return names[i].test;
  }
  return NULL;
}

/* --- recognising the format ------------------------------------------- */

static gboolean any_line_has(const ValText *t, const char *needle)
{
  for (guint i = 0; i < t->n; i++)
    if (strstr(t->lines[i], needle))
      return TRUE;
  return FALSE;
}

/* "Running NAME." with NAME of [a-z0-9_] (nvbandwidth; older versions
 * print "Running benchmark NAME."). */
static gboolean is_nvbw_running(const char *line)
{
  const char *p = line;

  if (!g_str_has_prefix(p, "Running "))
    return FALSE;
  p += 8;
  if (g_str_has_prefix(p, "benchmark "))
    p += 10;
  if (!g_ascii_islower(*p))
    return FALSE;
  while (g_ascii_islower(*p) || g_ascii_isdigit(*p) || *p == '_')
    p++;
  return p[0] == '.' && p[1] == '\0';
}

static gboolean looks_nccltests(const ValText *t)
{
  for (guint i = 0; i < t->n; i++) {
    const char *l = t->lines[i];
    if (strstr(l, "# nThread ") || strstr(l, "nThread 1 nGpus") ||
        strstr(l, "# Collective test") || strstr(l, "# nccl-tests version"))
      return TRUE;
    if (strstr(l, "Rank ") && strstr(l, " Pid ") && strstr(l, " device "))
      return TRUE;
    if (strstr(l, " size ") && strstr(l, " count ") && strstr(l, " type ") &&
        strstr(l, "algbw"))
      return TRUE;
  }
  return FALSE;
}

static gboolean looks_p2p(const ValText *t)
{
  return any_line_has(t, "P2P (Peer-to-Peer) GPU Bandwidth Latency Test") ||
         any_line_has(t, "P2P=Disabled Bandwidth Matrix") ||
         any_line_has(t, "P2P=Enabled Bandwidth") ||
         any_line_has(t, "P2P Connectivity Matrix");
}

static gboolean looks_nvbw(const ValText *t)
{
  for (guint i = 0; i < t->n; i++)
    if (g_str_has_prefix(t->lines[i], "nvbandwidth Version") ||
        is_nvbw_running(t->lines[i]))
      return TRUE;
  return FALSE;
}

static gboolean looks_perftest(const ValText *t)
{
  for (guint i = 0; i < t->n; i++) {
    const char *l = t->lines[i];
    if (strstr(l, "#bytes") &&
        (strstr(l, "BW peak") || strstr(l, "t_min") || strstr(l, "t_avg")))
      return TRUE;
    if (g_str_has_suffix(l, " BW Test") || g_str_has_suffix(l, "Latency Test"))
      return TRUE;
  }
  return FALSE;
}

typedef ValMeasurements *(*CsvImporter)(const ValText *t, const ValCsv *csv,
                                        GError **error);

/* The importer of the CSV transcription with this header row; NULL for
 * none. */
static CsvImporter csv_importer(GStrv head)
{
  guint n = g_strv_length(head);

  if (n >= 4 && g_str_equal(head[0], "size_bytes") &&
      (g_str_equal(head[1], "count_elements") ||
       g_str_equal(head[1], "time_us")))
    return val__import_nccl_csv;
  if (n >= 3 && g_str_equal(head[0], "size_bytes") &&
      g_str_equal(head[1], "iterations"))
    return val__import_perftest_csv;
  if (n >= 4 && g_str_equal(head[0], "matrix") && g_str_equal(head[1], "unit") &&
      g_str_equal(head[2], "row_gpu"))
    return val__import_p2p_csv;
  if (n >= 4 && g_str_equal(head[0], "testcase") &&
      g_str_equal(head[1], "unit") && g_str_equal(head[2], "row"))
    return val__import_nvbw_csv;
  return NULL;
}

/* CSV transcriptions: the header row decides. */
static ValMeasurements *import_csv(const ValText *t, const char *text,
                                   gsize len, gboolean *recognised,
                                   GError **error)
{
  g_autoptr(GError) inner = NULL;
  ValCsv csv;
  ValMeasurements *m = NULL;
  CsvImporter import = NULL;

  *recognised = FALSE;
  if (!val_csv_split(t->name, text, len, &csv, &inner)) {
    /* a row libcsv refuses: still a transcription if its header row (the
     * first line that is not blank or a comment) is one */
    for (guint i = 0; i < t->n; i++) {
      const char *l = t->lines[i] + strspn(t->lines[i], " \t");
      if (*l == '\0' || *l == '#')
        continue;
      if (val_csv_split(t->name, l, strlen(l), &csv, NULL)) {
        import = csv.rows->len > 0 ? csv_importer(csv.rows->pdata[0]) : NULL;
        val_csv_clear(&csv);
      }
      break;
    }
    if (import) {
      *recognised = TRUE;
      g_propagate_error(error, g_steal_pointer(&inner));
    }
    return NULL;
  }
  if (csv.rows->len > 0 && (import = csv_importer(csv.rows->pdata[0]))) {
    *recognised = TRUE;
    m = import(t, &csv, error);
  }
  val_csv_clear(&csv);
  return m;
}

/* The line (1-based) that byte `at` of text is on. */
gboolean val__check_text(const char *name, const char *text, gsize len,
                         GError **error)
{
  if (len >= 2 && ((guchar)text[0] == 0xff || (guchar)text[0] == 0xfe) &&
      (guchar)text[1] == ((guchar)text[0] ^ 0x01))
    return val__fail(error, name, 1,
                     "UTF-16 text (its byte order mark), expected UTF-8: "
                     "save the file as UTF-8");
  if (!sim_input_check_text(name, text, len, error)) {
    (*error)->domain = VAL_ERROR;
    (*error)->code = VAL_ERROR_PARSE;
    return FALSE;
  }
  return TRUE;
}

/* A paste of several nccl-tests runs: where each run's lines begin (the
 * first at 0), one per "# nThread N nGpus N minBytes ..." line (every
 * nccl-tests version prints it first).  A run takes the lines after the one before
 * it ended: its last result row and the summary lines after it ("# Out
 * of bounds values", "# Avg bus bandwidth", "# Collective test
 * concluded"); its command line and NCCL's version line, printed before
 * its nThread line, are its own. */
static GArray *nccltests_runs(const ValText *t)
{
  GArray *starts = g_array_new(FALSE, FALSE, sizeof(guint));
  guint prev = 0;
  gboolean first = TRUE;

  g_array_append_val(starts, prev);
  for (guint i = 0; i < t->n; i++) {
    const char *l = t->lines[i];
    guint b;
    gint row = -1;
    if (!strstr(l, "nThread ") ||
        (!strstr(l, " nGpus ") && !strstr(l, " minBytes ")))
      continue;
    if (first) {
      first = FALSE;
      prev = i;
      continue;
    }
    for (guint j = prev; j < i; j++) {
      const char *w = t->lines[j] + strspn(t->lines[j], " \t");
      if (*w != '#' && val__numeric_start(w))
        row = (gint)j;
    }
    b = row >= 0 ? (guint)row + 1 : prev + 1;
    while (b < i) {
      const char *w = t->lines[b] + strspn(t->lines[b], " \t");
      if (*w && (*w != '#' ||
                 (w[1 + strspn(w + 1, " \t")] && !strstr(w, "Out of bounds") &&
                  !strstr(w, "Avg bus bandwidth") &&
                  !strstr(w, "Collective test concluded"))))
        break;
      b++;
    }
    g_array_append_val(starts, b);
    prev = i;
  }
  return starts;
}

/* Imports t's text into out (one set), or, for a paste of several
 * nccl-tests runs, one set per run when many (else refused). */
static gboolean import_text(ValText *t, const char *text, gsize len,
                            gboolean many, GPtrArray *out, GError **error)
{
  gboolean recognised = FALSE;
  ValMeasurements *m = NULL;

  if (looks_nccltests(t)) {
    g_autoptr(GArray) runs = nccltests_runs(t);
    if (runs->len == 1) {
      m = hints_once(t, error) ? val__import_nccltests_text(t, error) : NULL;
    } else if (!many) {
      return val__fail(error, t->name, g_array_index(runs, guint, 1) + 1,
                       "a second nccl-tests run in one file (expected one "
                       "run; ifsim validate and calibrate read each run of "
                       "a paste as its own measurement)");
    } else {
      /* each run alone: its lines, numbered as in the file */
      for (guint r = 0; r < runs->len; r++) {
        guint a = g_array_index(runs, guint, r);
        guint b = r + 1 < runs->len ? g_array_index(runs, guint, r + 1) : t->n;
        ValText run = *t;
        ValMeasurements *one;
        run.lines = t->lines + a;
        run.n = b - a;
        run.line0 = a;
        /* a hint belongs to its run: each run may say its collective */
        if (!hints_once(&run, error))
          return FALSE;
        if (!(one = val__import_nccltests_text(&run, error))) {
          /* a message of the run as a whole ("name: no result rows")
           * says which run */
          g_autofree char *head = g_strconcat(t->name, ": ", NULL);
          if (error && *error && g_str_has_prefix((*error)->message, head)) {
            char *said = g_strdup_printf(
                "%s (nccl-tests run %u of %u, lines %u-%u): %s", t->name, r + 1,
                runs->len, a + 1, b, (*error)->message + strlen(head));
            g_free((*error)->message);
            (*error)->message = said;
          }
          return FALSE;
        }
        {
          char num[48];
          g_snprintf(num, sizeof num, "%u of %u, from line %u", r + 1,
                     runs->len, a + 1);
          val_meas_set(one, "nccltests.run", num);
        }
        g_ptr_array_add(out, one);
      }
      return TRUE;
    }
  } else if (!hints_once(t, error))
    return FALSE;
  else if (looks_p2p(t))
    m = val__import_p2p_text(t, error);
  else if (looks_nvbw(t))
    m = val__import_nvbw_text(t, error);
  else if (looks_perftest(t))
    m = val__import_perftest_text(t, error);
  else {
    m = import_csv(t, text, len, &recognised, error);
    if (!recognised)
      val__fail(error, t->name, 0, "not a measurement format ifsim knows (%s)",
                FORMATS_ACCEPTED);
  }
  if (m)
    g_ptr_array_add(out, m);
  return m != NULL;
}

/* val_import_given into out; see import_text. */
static gboolean import_sets(const char *name, const char *text, gsize len,
                            GHashTable *given, gboolean many, GPtrArray *out,
                            GError **error)
{
  ValText t;
  gsize lead = 0;
  gboolean ok;

  g_return_val_if_fail(name != NULL && (text != NULL || len == 0), FALSE);
  if (!val__check_text(name, text, len, error))
    return FALSE;
  if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
    /* a UTF-8 byte order mark (spreadsheets write one): skipped */
    text += 3;
    len -= 3;
  }
  while (lead < len && g_ascii_isspace(text[lead]))
    lead++;
  if (lead == len) {
    val__fail(error, name, 0, "empty file (%s)", FORMATS_ACCEPTED);
    return FALSE;
  }
  /* our own format, whatever its version: val_meas_parse says which it
   * reads */
  if ((len >= strlen(VAL__MEAS_STEM) &&
       strncmp(text, VAL__MEAS_STEM, strlen(VAL__MEAS_STEM)) == 0) ||
      text[lead] == '{') {
    ValMeasurements *m;
    if (text[lead] != '{')
      m = val_meas_parse(name, text, len, error);
    else {
      /* nvbandwidth -j: its one top-level key first */
      gsize k = lead + 1;
      while (k < len && g_ascii_isspace(text[k]))
        k++;
      m = len - k >= 13 && strncmp(text + k, "\"nvbandwidth\"", 13) == 0
              ? val__import_nvbw_json(name, text, len, error)
              : val__import_nccltests_json(name, text, len, error);
    }
    if (m)
      g_ptr_array_add(out, m);
    return m != NULL;
  }
  if (!val__text_init(&t, name, text, len, error))
    return FALSE;
  t.given = given;
  ok = import_text(&t, text, len, many, out, error);
  val__text_clear(&t);
  return ok;
}

ValMeasurements *val_import(const char *name, const char *text, gsize len,
                            GError **error)
{
  return val_import_given(name, text, len, NULL, error);
}

ValMeasurements *val_import_given(const char *name, const char *text, gsize len,
                                  GHashTable *given, GError **error)
{
  g_autoptr(GPtrArray) one = g_ptr_array_new(); /* no free func: one set */

  if (!import_sets(name, text, len, given, FALSE, one, error))
    return NULL;
  return one->pdata[0];
}

gboolean val_import_sets(const char *name, const char *text, gsize len,
                         GHashTable *given, GPtrArray *out, GError **error)
{
  guint had = out->len;

  if (import_sets(name, text, len, given, TRUE, out, error))
    return TRUE;
  g_ptr_array_set_size(out, had);
  return FALSE;
}
