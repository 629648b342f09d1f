/* Result CSVs into gnuplot scripts; see tools/plot.h.
 *
 * Reading: validate/measure.c splits the text into rows (libcsv; comment
 * and blank lines skipped, each row's line kept); the header row tells
 * the kind; every data row must have the header's number of fields, and
 * the cells a kind plots are checked here (a size, a finite number, a
 * utilization), so the script gnuplot reads holds nothing but numbers in
 * its datablocks.  Texts go into double-quoted gnuplot strings (a quote
 * or backslash escaped, control characters as spaces) and the terminal is
 * noenhanced,
 * so a node called "a_b^c" is drawn as it is.
 *
 * Writing: one generated part (terminal, output, TITLE, NOTE, the data
 * and the labels, as the kind's .gp expects them) and then the kind's .gp
 * from the resource bundle.  Everything is in the files' row order or
 * sorted with a tie-break on it, so the script is deterministic. */
#include "tools/plot.h"

#include <gio/gio.h>
#include <glib-unix.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <sys/wait.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/interrupt.h"
#include "tools/resources.h"
#include "tools/cli.h"
#include "validate/measure.h"

/* --- kinds ---------------------------------------------------------------
 */

static const char *const run_columns[] = {
    "size_bytes", "count_elements", "type",       "redop", "root",
    "time_us",    "algbw_GBps",     "busbw_GBps", "algo",  "proto",
    "channels",   "nccl_model_us",  NULL};
#define RUN_SIZE 0
#define RUN_TIME 5
#define RUN_ALGBW 6
#define RUN_BUSBW 7
#define RUN_MODEL 11
#define RUN_N_COLUMNS 12

static const char *const replay_columns[] = {"job",
                                             "step_us",
                                             "compute_us",
                                             "exposed_us",
                                             "exposed_tp_us",
                                             "exposed_dp_us",
                                             "exposed_pp_us",
                                             "exposed_ep_us",
                                             "exposed_edp_us",
                                             "exposed_world_us",
                                             "slowdown",
                                             NULL};
#define REPLAY_STEP 1
#define REPLAY_COMPUTE 2
#define REPLAY_TP 4 /* exposed_tp_us .. exposed_world_us: 4..9 */
#define REPLAY_SLOWDOWN 10

static const char *const links_columns[] = {
    "channel",       "src",           "dst",        "link",
    "rate_GBps",     "payload_bytes", "wire_bytes", "busy_us",
    "busy_fraction", "utilization",   "peak_flows", NULL};
#define LINKS_CHANNEL 0
#define LINKS_SRC 1
#define LINKS_DST 2
#define LINKS_UTIL 9

static const char *const samples_columns[] = {
    "time_us", "channel", "src", "dst", "link", "utilization", NULL};
#define SAMPLES_TIME 0
#define SAMPLES_CHANNEL 1
#define SAMPLES_SRC 2
#define SAMPLES_DST 3
#define SAMPLES_UTIL 5

/* ifsim faults --csv (tools/cmd_faults.c): an element's or a draw's
 * columns, then the result's; slowdown and times are empty when cut. */
static const char *const crit_columns[] = {
    "element", "size_bytes", "time_us",  "busbw_GBps", "slowdown",
    "algo",    "proto",      "channels", "outcome",    NULL};
static const char *const draws_columns[] = {
    "kind",     "down", "seed",  "size_bytes", "time_us", "busbw_GBps",
    "slowdown", "algo", "proto", "channels",   "outcome", NULL};
#define CRIT_SIZE 1
#define CRIT_SLOWDOWN 4
#define DRAWS_KIND 0
#define DRAWS_DOWN 1
#define DRAWS_SIZE 3
#define DRAWS_SLOWDOWN 6
/* Bars a criticality plot draws: the worst elements. */
#define CRIT_MAX_BARS 30
#define crit_n (G_N_ELEMENTS(crit_columns) - 1)
#define draws_n (G_N_ELEMENTS(draws_columns) - 1)

static const char *const kind_names[CLI_PLOT_N_KINDS] = {
    "run",         "sweep",        "replay-summary",
    "links",       "link-samples", "faults-criticality",
    "faults-draws"};

const char *cli_plot_kind_name(CliPlotKind kind)
{
  g_assert((guint)kind < CLI_PLOT_N_KINDS);
  return kind_names[kind];
}

/* Whether fields [from, from + n) of header are names[0..n). */
static gboolean columns_are(const char *const *header, guint from,
                            const char *const *names)
{
  for (guint i = 0; names[i]; i++)
    if (!header[from + i] || !g_str_equal(header[from + i], names[i]))
      return FALSE;
  return TRUE;
}

gboolean cli_plot_kind_detect(const char *const *header, CliPlotKind *kind)
{
  static const char *const *const fixed[] = {
      [CLI_PLOT_RUN] = run_columns,
      [CLI_PLOT_REPLAY] = replay_columns,
      [CLI_PLOT_LINKS] = links_columns,
      [CLI_PLOT_SAMPLES] = samples_columns,
      [CLI_PLOT_CRITICALITY] = crit_columns,
      [CLI_PLOT_DRAWS] = draws_columns};
  guint n = g_strv_length((char **)header);

  for (guint k = 0; k < G_N_ELEMENTS(fixed); k++)
    if (fixed[k] && n == g_strv_length((char **)fixed[k]) &&
        columns_are(header, 0, fixed[k])) {
      *kind = (CliPlotKind)k;
      return TRUE;
    }
  /* point, one column per varied key (at least one), collective, then the
   * run columns. */
  if (n >= RUN_N_COLUMNS + 3 && g_str_equal(header[0], "point") &&
      g_str_equal(header[n - RUN_N_COLUMNS - 1], "collective") &&
      columns_are(header, n - RUN_N_COLUMNS, run_columns)) {
    for (guint i = 1; i < n - RUN_N_COLUMNS - 1; i++)
      if (header[i][0] == '\0')
        return FALSE;
    *kind = CLI_PLOT_SWEEP;
    return TRUE;
  }
  return FALSE;
}

char *cli_plot_kinds_text(void)
{
  g_autofree char *run = g_strjoinv(",", (char **)run_columns);
  g_autofree char *replay = g_strjoinv(",", (char **)replay_columns);
  g_autofree char *links = g_strjoinv(",", (char **)links_columns);
  g_autofree char *samples = g_strjoinv(",", (char **)samples_columns);
  g_autofree char *crit = g_strjoinv(",", (char **)crit_columns);
  g_autofree char *draws = g_strjoinv(",", (char **)draws_columns);

  return g_strdup_printf("run (%s), sweep (point,KEY...,collective,%s), "
                         "replay-summary (%s), links (%s), link-samples (%s), "
                         "faults-criticality (%s), faults-draws (%s)",
                         run, run, replay, links, samples, crit, draws);
}

char *cli_plot_size_label(guint64 bytes)
{
  static const char units[] = "KMGTPE";
  guint u = 0;

  if (bytes < 1024 || bytes % 1024 != 0)
    return g_strdup_printf("%" G_GUINT64_FORMAT "B", bytes);
  while (bytes >= 1024 && bytes % 1024 == 0 && u < sizeof units - 1) {
    bytes /= 1024;
    u++;
  }
  return g_strdup_printf("%" G_GUINT64_FORMAT "%c", bytes, units[u - 1]);
}

/* --- reading ------------------------------------------------------------ */

typedef struct {
  char *name;       /* as given */
  char *system;     /* "# system: ..." or NULL */
  char *collective; /* "# collective: ..." or NULL */
  ValCsv csv;       /* rows[0] is the header */
  guint n_columns;
} PlotFile;

struct CliPlot {
  GPtrArray *files; /* PlotFile */
  CliPlotKind kind;
};

static void plot_file_free(gpointer data)
{
  PlotFile *f = data;

  g_free(f->name);
  g_free(f->system);
  g_free(f->collective);
  val_csv_clear(&f->csv);
  g_free(f);
}

CliPlot *cli_plot_new(void)
{
  CliPlot *p = g_new0(CliPlot, 1);

  p->files = g_ptr_array_new_with_free_func(plot_file_free);
  return p;
}

void cli_plot_free(CliPlot *p)
{
  if (!p)
    return;
  g_ptr_array_unref(p->files);
  g_free(p);
}

CliPlotKind cli_plot_kind(const CliPlot *p)
{
  g_assert(p->files->len > 0);
  return p->kind;
}

/* "# key: value" lines before the first row: keeps system and
 * collective. */
static void read_comments(PlotFile *f, const char *text, gsize len)
{
  const char *p = text, *end = text + strnlen(text, len);

  /* line by line up to the first row: the rows may be millions */
  while (p < end) {
    const char *nl = memchr(p, '\n', (gsize)(end - p));
    g_autofree char *line = g_strndup(p, (gsize)((nl ? nl : end) - p));
    char *l = g_strstrip(line);
    char *colon;

    p = nl ? nl + 1 : end;
    if (l[0] == '\0')
      continue;
    if (l[0] != '#')
      break;
    colon = strchr(l, ':');
    if (!colon)
      continue;
    *colon = '\0';
    g_strstrip(l + 1);
    if (g_str_equal(l + 1, "system") && !f->system)
      f->system = g_strdup(g_strstrip(colon + 1));
    else if (g_str_equal(l + 1, "collective") && !f->collective)
      f->collective = g_strdup(g_strstrip(colon + 1));
  }
}

typedef enum {
  CELL_TEXT,         /* anything, not empty */
  CELL_SIZE,         /* an integer of at least 1 (bytes) */
  CELL_SIZE_OR_STEP, /* ifsim faults': a size, or 0 for a training step */
  CELL_INDEX,        /* an integer of at least 0 (a sweep's point) */
  CELL_NUMBER,       /* a finite number of at least 0 */
  CELL_TIME,         /* a finite number above 0 (a time) */
  CELL_NUMBER_OR_EMPTY,
  CELL_UTIL, /* a number in [0, 1] */
} CellKind;

typedef struct {
  guint column;
  CellKind kind;
} CellCheck;

static gboolean check_cell(const PlotFile *f, char **row, guint line,
                           guint column, CellKind kind, GError **error)
{
  const char *name = ((char **)g_ptr_array_index(f->csv.rows, 0))[column];
  const char *cell = row[column];
  double v = 0;
  const char *want = NULL;

  switch (kind) {
  case CELL_TEXT:
    if (cell[0] == '\0')
      want = "a name, not empty";
    break;
  case CELL_SIZE:
    if (!g_ascii_string_to_unsigned(cell, 10, 1, G_MAXUINT64, NULL, NULL))
      want = "a size of at least 1 byte";
    break;
  case CELL_SIZE_OR_STEP:
    if (!g_ascii_string_to_unsigned(cell, 10, 0, G_MAXUINT64, NULL, NULL))
      want = "a size in bytes (0: a training step)";
    break;
  case CELL_INDEX:
    if (!g_ascii_string_to_unsigned(cell, 10, 0, G_MAXUINT32, NULL, NULL))
      want = "a point number from 0";
    break;
  case CELL_NUMBER_OR_EMPTY:
    if (cell[0] == '\0')
      break;
    /* fall through */
  case CELL_NUMBER:
    if (!val_cell_double(cell, &v) || v < 0)
      want = "a finite number of at least 0";
    break;
  case CELL_TIME:
    if (!val_cell_double(cell, &v) || !(v > 0))
      want = "a time above 0";
    break;
  case CELL_UTIL:
    if (!val_cell_double(cell, &v) || v < 0 || v > 1)
      want = "a utilization from 0 to 1";
    break;
  }
  if (want)
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s:%u: %s '%s': expected %s", f->name, line, name, cell, want);
  return want == NULL;
}

/* The cells each kind plots; sweep columns count from the end. */
static guint kind_checks(CliPlotKind kind, guint n_columns, CellCheck *c)
{
  guint n = 0, off;

  switch (kind) {
  case CLI_PLOT_RUN:
    c[n++] = (CellCheck){RUN_SIZE, CELL_SIZE};
    c[n++] = (CellCheck){RUN_TIME, CELL_TIME};
    c[n++] = (CellCheck){RUN_ALGBW, CELL_NUMBER};
    c[n++] = (CellCheck){RUN_BUSBW, CELL_NUMBER};
    c[n++] = (CellCheck){RUN_MODEL, CELL_NUMBER_OR_EMPTY};
    break;
  case CLI_PLOT_SWEEP:
    off = n_columns - RUN_N_COLUMNS;
    c[n++] = (CellCheck){0, CELL_INDEX};
    c[n++] = (CellCheck){off - 1, CELL_TEXT};
    c[n++] = (CellCheck){off + RUN_SIZE, CELL_SIZE};
    c[n++] = (CellCheck){off + RUN_TIME, CELL_TIME};
    c[n++] = (CellCheck){off + RUN_ALGBW, CELL_NUMBER};
    c[n++] = (CellCheck){off + RUN_BUSBW, CELL_NUMBER};
    c[n++] = (CellCheck){off + RUN_MODEL, CELL_NUMBER_OR_EMPTY};
    break;
  case CLI_PLOT_REPLAY:
    c[n++] = (CellCheck){0, CELL_TEXT};
    c[n++] = (CellCheck){REPLAY_STEP, CELL_TIME};
    for (guint k = REPLAY_STEP + 1; k < REPLAY_SLOWDOWN; k++)
      c[n++] = (CellCheck){k, CELL_NUMBER};
    c[n++] = (CellCheck){REPLAY_SLOWDOWN, CELL_NUMBER_OR_EMPTY};
    break;
  case CLI_PLOT_LINKS:
    c[n++] = (CellCheck){LINKS_CHANNEL, CELL_TEXT};
    c[n++] = (CellCheck){LINKS_SRC, CELL_TEXT};
    c[n++] = (CellCheck){LINKS_DST, CELL_TEXT};
    c[n++] = (CellCheck){LINKS_UTIL, CELL_UTIL};
    break;
  case CLI_PLOT_CRITICALITY:
    c[n++] = (CellCheck){0, CELL_TEXT};
    c[n++] = (CellCheck){CRIT_SIZE, CELL_SIZE_OR_STEP};
    c[n++] = (CellCheck){CRIT_SLOWDOWN, CELL_NUMBER_OR_EMPTY};
    c[n++] = (CellCheck){crit_n - 1, CELL_TEXT};
    break;
  case CLI_PLOT_DRAWS:
    c[n++] = (CellCheck){DRAWS_KIND, CELL_TEXT};
    c[n++] = (CellCheck){DRAWS_DOWN, CELL_INDEX};
    c[n++] = (CellCheck){DRAWS_SIZE, CELL_SIZE_OR_STEP};
    c[n++] = (CellCheck){DRAWS_SLOWDOWN, CELL_NUMBER_OR_EMPTY};
    c[n++] = (CellCheck){draws_n - 1, CELL_TEXT};
    break;
  case CLI_PLOT_SAMPLES:
    c[n++] = (CellCheck){SAMPLES_TIME, CELL_NUMBER};
    c[n++] = (CellCheck){SAMPLES_CHANNEL, CELL_TEXT};
    c[n++] = (CellCheck){SAMPLES_SRC, CELL_TEXT};
    c[n++] = (CellCheck){SAMPLES_DST, CELL_TEXT};
    c[n++] = (CellCheck){SAMPLES_UTIL, CELL_UTIL};
    break;
  }
  return n;
}

static char *excerpt_header(char **head)
{
  g_autofree char *joined = g_strjoinv(",", head);

  if (strlen(joined) > 200)
    return g_strdup_printf("%.200s...", joined);
  return g_steal_pointer(&joined);
}

gboolean cli_plot_add(CliPlot *p, const char *name, const char *text, gsize len,
                      GError **error)
{
  PlotFile *f = g_new0(PlotFile, 1);
  g_autoptr(GPtrArray) hold = g_ptr_array_new_with_free_func(plot_file_free);
  CliPlotKind kind;
  char **head;
  CellCheck checks[16];
  guint n_checks;

  g_ptr_array_add(hold, f);
  f->name = g_strdup(name);
  read_comments(f, text, len);
  if (!val_csv_split(name, text, len, &f->csv, error))
    return FALSE;
  if (f->csv.rows->len == 0) {
    g_autofree char *kinds = cli_plot_kinds_text();
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s: no header row (expected the header of one of: %s)", name,
                kinds);
    return FALSE;
  }
  head = g_ptr_array_index(f->csv.rows, 0);
  for (guint i = 0; head[i]; i++)
    g_strstrip(head[i]);
  f->n_columns = g_strv_length(head);
  if (!cli_plot_kind_detect((const char *const *)head, &kind)) {
    g_autofree char *kinds = cli_plot_kinds_text();
    g_autofree char *seen = excerpt_header(head);
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s:%u: header '%s' is of no CSV ifsim plots (expected the "
                "header of one of: %s)",
                name, g_array_index(f->csv.lines, guint, 0), seen, kinds);
    return FALSE;
  }
  if (p->files->len > 0 && kind != p->kind) {
    const PlotFile *first = g_ptr_array_index(p->files, 0);
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s: a %s CSV, but %s is a %s CSV (expected files of one "
                "kind)",
                name, kind_names[kind], first->name, kind_names[p->kind]);
    return FALSE;
  }
  if (p->files->len > 0 && kind != CLI_PLOT_RUN) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s: a second %s CSV (several files compare run CSVs only; "
                "expected one file of this kind)",
                name, kind_names[kind]);
    return FALSE;
  }
  if (f->csv.rows->len < 2) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s:%u: no data rows after the header (expected at least "
                "one)",
                name, g_array_index(f->csv.lines, guint, 0));
    return FALSE;
  }
  n_checks = kind_checks(kind, f->n_columns, checks);
  for (guint r = 1; r < f->csv.rows->len; r++) {
    char **row = g_ptr_array_index(f->csv.rows, r);
    guint line = g_array_index(f->csv.lines, guint, r);
    guint n = g_strv_length(row);

    if (n != f->n_columns) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "%s:%u: %u fields, expected %u as in the header (a "
                  "truncated row?)",
                  name, line, n, f->n_columns);
      return FALSE;
    }
    for (guint i = 0; row[i]; i++)
      g_strstrip(row[i]);
    for (guint k = 0; k < n_checks; k++)
      if (!check_cell(f, row, line, checks[k].column, checks[k].kind, error))
        return FALSE;
  }
  p->kind = kind;
  g_ptr_array_add(p->files, g_ptr_array_steal_index(hold, 0));
  return TRUE;
}

/* --- writing ------------------------------------------------------------ */

/* A gnuplot string: double-quoted, with its two escapes (\\ and \"),
 * control characters as spaces.  (Single quotes, with a quote doubled,
 * cannot hold a text that starts with a quote: gnuplot reads the three
 * quotes as an empty string and a stray one.) */
static void gp_string(GString *s, const char *text)
{
  g_string_append_c(s, '"');
  for (const char *c = text; *c; c++) {
    if (*c == '"' || *c == '\\')
      g_string_append_c(s, '\\');
    g_string_append_c(s, (guchar)*c < 0x20 || *c == 0x7f ? ' ' : *c);
  }
  g_string_append_c(s, '"');
}

static void gp_number(GString *s, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append(s, g_ascii_formatd(buf, sizeof buf, "%.9g", v));
}

static double cell_number(const char *cell)
{
  double v = 0;

  if (!val_cell_double(cell, &v))
    g_assert(cell[0] == '\0'); /* checked in cli_plot_add */
  return v;
}

/* A size cell, checked already (CELL_SIZE, or CELL_SIZE_OR_STEP's 0). */
static guint64 cell_size(const char *cell)
{
  guint64 v = 0;
  gboolean ok = g_ascii_string_to_unsigned(cell, 10, 0, G_MAXUINT64, &v, NULL);

  g_assert(ok);
  return v;
}

/* `array NAME[n]` with its texts. */
static void gp_array(GString *s, const char *name, GPtrArray *texts)
{
  g_string_append_printf(s, "array %s[%u]\n", name, MAX(texts->len, 1));
  for (guint i = 0; i < texts->len; i++) {
    g_string_append_printf(s, "%s[%u] = ", name, i + 1);
    gp_string(s, g_ptr_array_index(texts, i));
    g_string_append_c(s, '\n');
  }
}

/* `set AXIStics (label pos, ...)`, positions 0, 1, ... */
static void gp_tics(GString *s, const char *axis, GPtrArray *labels)
{
  g_string_append_printf(s, "set %stics (", axis);
  for (guint i = 0; i < labels->len; i++) {
    if (i)
      g_string_append(s, ", ");
    gp_string(s, g_ptr_array_index(labels, i));
    g_string_append_printf(s, " %u", i);
  }
  g_string_append(s, ")\n");
}

/* The log2 size axis: the range from the power of two at or below the
 * smallest size to the one at or above the largest, tick labels at every
 * step-th power of two, the step the smallest of 1, 2, 3, 4, 5, 10 that
 * keeps them at max_labels or fewer (so that they do not run together). */
void cli_plot_size_axis(GString *s, guint64 lo, guint64 hi, guint max_labels)
{
  static const guint steps[] = {1, 2, 3, 4, 5, 10};
  guint e_lo = 0, e_hi = 0, step = 10;
  gboolean first = TRUE;

  while (e_lo < 63 && (G_GUINT64_CONSTANT(1) << (e_lo + 1)) <= lo)
    e_lo++;
  while (e_hi < 63 && (G_GUINT64_CONSTANT(1) << e_hi) < hi)
    e_hi++;
  if (e_hi == e_lo)
    e_hi = MIN(e_lo + 1, 63);
  for (guint i = 0; i < G_N_ELEMENTS(steps); i++)
    if ((e_hi / steps[i]) - ((e_lo + steps[i] - 1) / steps[i]) + 1 <=
        max_labels) {
      step = steps[i];
      break;
    }
  /* A little wider than the end ticks, which gnuplot would drop to
   * rounding in its log scale. */
  g_string_append(s, "set xrange [");
  gp_number(s, (double)(G_GUINT64_CONSTANT(1) << e_lo) / 1.03);
  g_string_append_c(s, ':');
  gp_number(s, (double)(G_GUINT64_CONSTANT(1) << e_hi) * 1.03);
  g_string_append(s, "]\nset xtics (");
  for (guint e = e_lo; e <= e_hi; e++) {
    g_autofree char *label = NULL;

    if (e % step != 0)
      continue;
    label = cli_plot_size_label(G_GUINT64_CONSTANT(1) << e);
    g_string_append_printf(s, "%s'%s' %" G_GUINT64_FORMAT, first ? "" : ", ",
                           label, G_GUINT64_CONSTANT(1) << e);
    first = FALSE;
  }
  g_string_append(s, ")\n");
}

static const PlotFile *file_at(const CliPlot *p, guint i)
{
  return g_ptr_array_index(p->files, i);
}

static char **row_at(const PlotFile *f, guint r)
{
  return g_ptr_array_index(f->csv.rows, r);
}

/* Run CSVs: one block of "size busbw" per file; the legend "COLLECTIVE on
 * SYSTEM" from the comments, the file names (without their folders, but
 * where two share one) where two would be alike. */
static void write_run(const CliPlot *p, GString *s, char **title)
{
  g_autoptr(GPtrArray) legends = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
  g_autoptr(GString) d = g_string_new("$D << EOD\n");
  gboolean unique = TRUE, one_collective = TRUE;
  guint64 lo = G_MAXUINT64, hi = 0;

  for (guint i = 0; i < p->files->len; i++) {
    const PlotFile *f = file_at(p, i);
    char *legend;

    if (f->collective && f->system)
      legend = g_strdup_printf("%s on %s", f->collective, f->system);
    else
      legend = g_strdup(f->system       ? f->system
                        : f->collective ? f->collective
                                        : f->name);
    unique = unique && g_hash_table_add(seen, legend);
    g_ptr_array_add(legends, legend);
    one_collective =
        one_collective && f->collective &&
        g_str_equal(f->collective,
                    file_at(p, 0)->collective ? file_at(p, 0)->collective : "");
    for (guint r = 1; r < f->csv.rows->len; r++) {
      char **row = row_at(f, r);
      guint64 size = cell_size(row[RUN_SIZE]);

      lo = MIN(lo, size);
      hi = MAX(hi, size);
      g_string_append_printf(d, "%" G_GUINT64_FORMAT " ", size);
      gp_number(d, cell_number(row[RUN_BUSBW]));
      g_string_append_c(d, '\n');
    }
    g_string_append(d, "\n\n");
  }
  if (!unique) {
    /* the files' names without their folders, unless two share one */
    g_autoptr(GHashTable) names =
        g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    gboolean short_ok = TRUE;

    for (guint i = 0; i < p->files->len; i++)
      short_ok &=
          g_hash_table_add(names, g_path_get_basename(file_at(p, i)->name));
    for (guint i = 0; i < p->files->len; i++) {
      g_free(legends->pdata[i]);
      legends->pdata[i] = short_ok ? g_path_get_basename(file_at(p, i)->name)
                                   : g_strdup(file_at(p, i)->name);
    }
  }
  g_string_append(d, "EOD\n");
  g_string_append_printf(s, "N = %u\n", p->files->len);
  gp_array(s, "LEGEND", legends);
  cli_plot_size_axis(s, lo, hi, 12);
  g_string_append(s, d->str);
  *title = one_collective ? g_strdup_printf("ifsim: %s bus bandwidth per size",
                                            file_at(p, 0)->collective)
                          : g_strdup("ifsim: bus bandwidth per size");
}

typedef struct {
  char *legend;
  GString *data;
} SweepLine;

typedef struct {
  char *collective;
  GPtrArray *lines; /* SweepLine, in order of first row */
} SweepPanel;

static void sweep_line_free(gpointer x)
{
  SweepLine *l = x;

  g_free(l->legend);
  g_string_free(l->data, TRUE);
  g_free(l);
}

static void sweep_panel_free(gpointer x)
{
  SweepPanel *p = x;

  g_free(p->collective);
  g_ptr_array_unref(p->lines);
  g_free(p);
}

/* A sweep: a panel per collective, in it a line per point, the legend
 * "KEY=VALUE, ..." from the point's first row. */
/* A varied key's name in a legend: its last part ("oversubscription" of
 * "scaleout.oversubscription") where no other varied key has that last
 * part, else the whole key. */
static const char *sweep_key_label(char **head, guint off, guint c)
{
  const char *dot = strrchr(head[c], '.');
  const char *last = dot ? dot + 1 : head[c];

  for (guint o = 1; o + 1 < off; o++) {
    const char *od = strrchr(head[o], '.');

    if (o != c && g_str_equal(od ? od + 1 : head[o], last))
      return head[c];
  }
  return last;
}

static void write_sweep(const CliPlot *p, GString *s, char **title)
{
  const PlotFile *f = file_at(p, 0);
  char **head = row_at(f, 0);
  guint off = f->n_columns - RUN_N_COLUMNS;
  g_autoptr(GPtrArray) panels =
      g_ptr_array_new_with_free_func(sweep_panel_free);
  g_autoptr(GHashTable) panel_of = g_hash_table_new(g_str_hash, g_str_equal);
  g_autoptr(GHashTable) line_of =
      g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) legends = g_ptr_array_new();
  g_autoptr(GPtrArray) panel_titles = g_ptr_array_new();
  g_autoptr(GString) d = g_string_new("$D << EOD\n");
  guint64 lo = G_MAXUINT64, hi = 0;
  guint n = 0, cols;

  for (guint r = 1; r < f->csv.rows->len; r++) {
    char **row = row_at(f, r);
    const char *coll = row[off - 1];
    SweepPanel *panel = g_hash_table_lookup(panel_of, coll);
    g_autofree char *key = g_strdup_printf("%s\n%s", coll, row[0]);
    SweepLine *line;
    guint64 size = cell_size(row[off + RUN_SIZE]);

    if (!panel) {
      panel = g_new0(SweepPanel, 1);
      panel->collective = g_strdup(coll);
      panel->lines = g_ptr_array_new_with_free_func(sweep_line_free);
      g_ptr_array_add(panels, panel);
      g_hash_table_insert(panel_of, panel->collective, panel);
    }
    line = g_hash_table_lookup(line_of, key);
    if (!line) {
      GString *legend = g_string_new(NULL);

      for (guint c = 1; c + 1 < off; c++)
        g_string_append_printf(legend, "%s%s=%s", c > 1 ? ", " : "",
                               sweep_key_label(head, off, c), row[c]);
      line = g_new0(SweepLine, 1);
      line->legend = g_string_free(legend, FALSE);
      line->data = g_string_new(NULL);
      g_ptr_array_add(panel->lines, line);
      g_hash_table_insert(line_of, g_steal_pointer(&key), line);
    }
    lo = MIN(lo, size);
    hi = MAX(hi, size);
    g_string_append_printf(line->data, "%" G_GUINT64_FORMAT " ", size);
    gp_number(line->data, cell_number(row[off + RUN_BUSBW]));
    g_string_append_c(line->data, '\n');
  }
  g_string_append_printf(s, "PANELS = %u\n", panels->len);
  for (cols = 1; cols * cols < panels->len; cols++)
    ;
  g_string_append_printf(s, "COLS = %u\nROWS = %u\n", cols,
                         (panels->len + cols - 1) / cols);
  g_string_append_printf(s, "array FIRST[%u]\narray LAST[%u]\n", panels->len,
                         panels->len);
  for (guint i = 0; i < panels->len; i++) {
    SweepPanel *panel = g_ptr_array_index(panels, i);

    g_ptr_array_add(panel_titles, panel->collective);
    g_string_append_printf(s, "FIRST[%u] = %u\nLAST[%u] = %u\n", i + 1, n,
                           i + 1, n + panel->lines->len - 1);
    for (guint k = 0; k < panel->lines->len; k++) {
      SweepLine *line = g_ptr_array_index(panel->lines, k);

      g_ptr_array_add(legends, line->legend);
      g_string_append(d, line->data->str);
      g_string_append(d, "\n\n");
      n++;
    }
  }
  g_string_append(d, "EOD\n");
  gp_array(s, "PANEL_TITLE", panel_titles);
  gp_array(s, "LEGEND", legends);
  /* a panel of a row of COLS: its share of the labels */
  cli_plot_size_axis(s, lo, hi, MAX(12 / cols, 4));
  g_string_append(s, d->str);
  *title = panels->len == 1
               ? g_strdup_printf("ifsim sweep: %s bus bandwidth per size",
                                 ((SweepPanel *)panels->pdata[0])->collective)
               : g_strdup("ifsim sweep: bus bandwidth per size");
}

/* A replay summary: per job "compute tp dp pp ep edp world step", in ms when
 * the longest step is 1 ms or more, else in us. */
static void write_replay(const CliPlot *p, GString *s, char **title)
{
  const PlotFile *f = file_at(p, 0);
  g_autoptr(GPtrArray) jobs = g_ptr_array_new_with_free_func(g_free);
  double longest = 0, scale;

  for (guint r = 1; r < f->csv.rows->len; r++)
    longest = MAX(longest, cell_number(row_at(f, r)[REPLAY_STEP]));
  scale = longest >= 1000 ? 1e-3 : 1;
  g_string_append_printf(s, "UNIT = '%s'\nN = %u\n",
                         longest >= 1000 ? "ms" : "us", f->csv.rows->len - 1);
  g_string_append(s, "$D << EOD\n");
  for (guint r = 1; r < f->csv.rows->len; r++) {
    char **row = row_at(f, r);

    gp_number(s, cell_number(row[REPLAY_COMPUTE]) * scale);
    for (guint c = REPLAY_TP; c < REPLAY_SLOWDOWN; c++) {
      g_string_append_c(s, ' ');
      gp_number(s, cell_number(row[c]) * scale);
    }
    g_string_append_c(s, ' ');
    gp_number(s, cell_number(row[REPLAY_STEP]) * scale);
    g_string_append_c(s, '\n');
    if (row[REPLAY_SLOWDOWN][0]) {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      g_ptr_array_add(
          jobs,
          g_strdup_printf("%s (x%s)", row[0],
                          g_ascii_formatd(buf, sizeof buf, "%.3g",
                                          cell_number(row[REPLAY_SLOWDOWN]))));
    } else {
      g_ptr_array_add(jobs, g_strdup(row[0]));
    }
  }
  g_string_append(s, "EOD\n");
  /* the parts some job has: the others stay out of the legend */
  g_string_append(s, "array SHOW[7] = [");
  for (guint c = 0; c < 7; c++) {
    gboolean any = FALSE;

    for (guint r = 1; r < f->csv.rows->len && !any; r++)
      any = cell_number(
                row_at(f, r)[c == 0 ? REPLAY_COMPUTE : REPLAY_TP + c - 1]) > 0;
    g_string_append_printf(s, "%s%d", c ? ", " : "", any);
  }
  g_string_append(s, "]\n");
  gp_tics(s, "x", jobs);
  *title = g_strdup("ifsim replay: step time per job");
}

static gint cmp_double_asc(gconstpointer a, gconstpointer b)
{
  double x = *(const double *)a, y = *(const double *)b;

  return x < y ? -1 : x > y;
}

/* The largest size of a faults CSV (the one both plots show). */
static guint64 faults_size(const PlotFile *f, guint column)
{
  guint64 hi = 0;

  for (guint r = 1; r < f->csv.rows->len; r++)
    hi = MAX(hi, cell_size(row_at(f, r)[column]));
  return hi;
}

typedef struct {
  const char *element;
  double slowdown; /* INFINITY: cut */
  guint order;
} CritBar;

static gint worst_first(gconstpointer a, gconstpointer b)
{
  const CritBar *x = a, *y = b;

  if (x->slowdown != y->slowdown)
    return x->slowdown > y->slowdown ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

/* Criticality: the largest size's slowdown per element (not the
 * baseline's "none" row), the worst CRIT_MAX_BARS, worst first; the
 * elements that cut the job are drawn at the axis' end, labelled. */
static void write_criticality(const CliPlot *p, GString *s, char **title,
                              char **note)
{
  const PlotFile *f = file_at(p, 0);
  guint64 size = faults_size(f, CRIT_SIZE);
  g_autoptr(GArray) bars = g_array_new(FALSE, FALSE, sizeof(CritBar));
  g_autoptr(GPtrArray) labels = g_ptr_array_new_with_free_func(g_free);
  /* size 0: a training step's scenarios (ifsim faults --llm) */
  g_autofree char *size_text =
      size ? cli_plot_size_label(size) : g_strdup("the step");
  double top = 1;
  guint cut = 0, shown;

  for (guint r = 1; r < f->csv.rows->len; r++) {
    char **row = row_at(f, r);
    CritBar b = {row[0], INFINITY, r};

    if (cell_size(row[CRIT_SIZE]) != size || g_str_equal(row[0], "none"))
      continue;
    if (row[CRIT_SLOWDOWN][0]) {
      b.slowdown = cell_number(row[CRIT_SLOWDOWN]);
      top = MAX(top, b.slowdown);
    } else {
      cut++;
    }
    g_array_append_val(bars, b);
  }
  g_array_sort(bars, worst_first);
  shown = MIN(bars->len, CRIT_MAX_BARS);
  g_string_append(s, "$D << EOD\n");
  for (guint i = 0; i < shown; i++) {
    const CritBar *b = &g_array_index(bars, CritBar, i);

    gp_number(s, isinf(b->slowdown) ? top * 1.05 : b->slowdown);
    g_string_append_printf(s, " %d\n", isinf(b->slowdown) ? 1 : 0);
    g_ptr_array_add(labels, isinf(b->slowdown)
                                ? g_strdup_printf("%s (cut)", b->element)
                                : g_strdup(b->element));
  }
  g_string_append_printf(s, "EOD\nN = %u\nSIZE = ", shown);
  gp_string(s, size_text);
  g_string_append_c(s, '\n');
  gp_tics(s, "y", labels);
  *title = g_strdup("ifsim faults: slowdown with each element down alone");
  if (bars->len > shown || cut)
    *note = g_strdup_printf("the worst %u of %u%s", shown, bars->len,
                            cut ? "; cut: no path for some pair of ranks" : "");
}

/* Draws: per count of elements down, the largest size's slowdowns sorted
 * (a step CDF over the draws); cut draws count as above every value, so
 * a count's curve ends below 1 by their share. */
static void write_draws(const CliPlot *p, GString *s, char **title, char **note)
{
  const PlotFile *f = file_at(p, 0);
  guint64 size = faults_size(f, DRAWS_SIZE);
  g_autoptr(GArray) counts = g_array_new(FALSE, FALSE, sizeof(guint32));
  g_autoptr(GPtrArray) legends = g_ptr_array_new_with_free_func(g_free);
  /* size 0: a training step's scenarios (ifsim faults --llm) */
  g_autofree char *size_text =
      size ? cli_plot_size_label(size) : g_strdup("the step");
  const char *kind = f->csv.rows->len > 1 ? row_at(f, 1)[DRAWS_KIND] : "";
  guint cut_total = 0;

  for (guint r = 1; r < f->csv.rows->len; r++) {
    guint32 k = (guint32)cell_number(row_at(f, r)[DRAWS_DOWN]);
    gboolean seen = FALSE;

    if (k == 0)
      continue; /* the baseline */
    for (guint i = 0; i < counts->len; i++)
      seen |= g_array_index(counts, guint32, i) == k;
    if (!seen)
      g_array_append_val(counts, k);
  }
  g_string_append(s, "$D << EOD\n");
  for (guint i = 0; i < counts->len; i++) {
    guint32 k = g_array_index(counts, guint32, i);
    g_autoptr(GArray) v = g_array_new(FALSE, FALSE, sizeof(double));
    guint total = 0;

    for (guint r = 1; r < f->csv.rows->len; r++) {
      char **row = row_at(f, r);

      if (cell_size(row[DRAWS_SIZE]) != size ||
          (guint32)cell_number(row[DRAWS_DOWN]) != k)
        continue;
      total++;
      if (row[DRAWS_SLOWDOWN][0]) {
        double x = cell_number(row[DRAWS_SLOWDOWN]);
        g_array_append_val(v, x);
      } else {
        cut_total++;
      }
    }
    g_array_sort(v, cmp_double_asc);
    for (guint j = 0; j < v->len; j++) {
      gp_number(s, g_array_index(v, double, j));
      g_string_append_c(s, ' ');
      gp_number(s, (double)(j + 1) / total);
      g_string_append_c(s, '\n');
    }
    g_string_append(s, "\n\n");
    g_ptr_array_add(legends, g_strdup_printf("%u down (%u draws)", k, total));
  }
  g_string_append_printf(s, "EOD\nN = %u\nSIZE = ", counts->len);
  gp_string(s, size_text);
  g_string_append_c(s, '\n');
  gp_array(s, "LEGEND", legends);
  *title = g_strdup_printf("ifsim faults: slowdown with random %s down", kind);
  if (cut_total)
    *note = g_strdup_printf("%u draws cut the job (no path for some pair of "
                            "ranks): the curves end below 1",
                            cut_total);
}

typedef struct {
  guint src, dst; /* node indices */
  double util;
  guint order; /* row */
} LinkCell;

static gint hottest_first(gconstpointer a, gconstpointer b)
{
  const LinkCell *x = a, *y = b;

  if (x->util != y->util)
    return x->util > y->util ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

/* Names in natural order: runs of digits compared as numbers ("gpu2"
 * before "gpu10"), the rest byte by byte; 0 for "a01" and "a1", which
 * natural_order then tells apart byte by byte. */
static int natural_cmp(const char *a, const char *b)
{
  while (*a && *b) {
    if (g_ascii_isdigit(*a) && g_ascii_isdigit(*b)) {
      const char *ea = a, *eb = b;
      size_t la, lb;
      int c;

      while (*a == '0' && g_ascii_isdigit(a[1]))
        a++;
      while (*b == '0' && g_ascii_isdigit(b[1]))
        b++;
      while (g_ascii_isdigit(*ea))
        ea++;
      while (g_ascii_isdigit(*eb))
        eb++;
      la = (size_t)(ea - a);
      lb = (size_t)(eb - b);
      if (la != lb)
        return la < lb ? -1 : 1;
      c = strncmp(a, b, la);
      if (c)
        return c;
      a = ea;
      b = eb;
      continue;
    }
    if (*a != *b)
      return (guchar)*a < (guchar)*b ? -1 : 1;
    a++;
    b++;
  }
  if (*a || *b)
    return *a ? 1 : -1;
  return 0;
}

static gint natural_order(gconstpointer a, gconstpointer b)
{
  const char *x = *(char *const *)a, *y = *(char *const *)b;
  int c = natural_cmp(x, y);

  return c ? c : strcmp(x, y);
}

/* Index of name in nodes (appended when new). */
static guint node_index(GPtrArray *nodes, GHashTable *index, const char *name)
{
  gpointer v;

  if (g_hash_table_lookup_extended(index, name, NULL, &v))
    return GPOINTER_TO_UINT(v);
  g_ptr_array_add(nodes, (gpointer)name);
  g_hash_table_insert(index, (gpointer)name, GUINT_TO_POINTER(nodes->len - 1));
  return nodes->len - 1;
}

/* A links table: a cell per (src, dst), the highest utilization of the
 * channels between them; at most max_nodes nodes, those the hottest
 * channels touch, in natural order of their names. */
static void write_links(const CliPlot *p, const CliPlotStyle *st, GString *s,
                        char **title, char **note)
{
  const PlotFile *f = file_at(p, 0);
  g_autoptr(GPtrArray) nodes = g_ptr_array_new();
  g_autoptr(GHashTable) index = g_hash_table_new(g_str_hash, g_str_equal);
  g_autoptr(GArray) cells = g_array_new(FALSE, FALSE, sizeof(LinkCell));
  g_autofree guint *keep = NULL; /* node -> kept index + 1, or 0 */
  g_autofree double *grid = NULL;
  g_autoptr(GPtrArray) labels = g_ptr_array_new();
  guint kept = 0;

  for (guint r = 1; r < f->csv.rows->len; r++) {
    char **row = row_at(f, r);
    LinkCell c = {.src = node_index(nodes, index, row[LINKS_SRC]),
                  .dst = node_index(nodes, index, row[LINKS_DST]),
                  .util = cell_number(row[LINKS_UTIL]),
                  .order = r};
    g_array_append_val(cells, c);
  }
  keep = g_new0(guint, nodes->len);
  if (nodes->len <= st->max_nodes) {
    for (guint i = 0; i < nodes->len; i++)
      keep[i] = 1;
  } else {
    g_autoptr(GArray) hot = g_array_copy(cells);

    g_array_sort(hot, hottest_first);
    for (guint i = 0; i < hot->len && kept < st->max_nodes; i++) {
      const LinkCell *c = &g_array_index(hot, LinkCell, i);
      if (!keep[c->src] && kept < st->max_nodes) {
        keep[c->src] = 1;
        kept++;
      }
      if (!keep[c->dst] && kept < st->max_nodes) {
        keep[c->dst] = 1;
        kept++;
      }
    }
    *note = g_strdup_printf(
        "the %u nodes of the hottest channels (of %u nodes)", kept, nodes->len);
  }
  for (guint i = 0; i < nodes->len; i++)
    if (keep[i])
      g_ptr_array_add(labels, nodes->pdata[i]);
  g_ptr_array_sort(labels, natural_order);
  kept = labels->len;
  for (guint i = 0; i < kept; i++)
    keep[GPOINTER_TO_UINT(g_hash_table_lookup(index, labels->pdata[i]))] =
        i + 1;
  grid = g_new(double, (gsize)kept *kept);
  for (gsize i = 0; i < (gsize)kept * kept; i++)
    grid[i] = -1;
  for (guint i = 0; i < cells->len; i++) {
    const LinkCell *c = &g_array_index(cells, LinkCell, i);
    double *g;

    if (!keep[c->src] || !keep[c->dst])
      continue;
    g = &grid[(gsize)(keep[c->src] - 1) * kept + (keep[c->dst] - 1)];
    *g = MAX(*g, c->util);
  }
  g_string_append_printf(s, "NODES = %u\n", kept);
  gp_tics(s, "x", labels);
  gp_tics(s, "y", labels);
  g_string_append(s, "$D << EOD\n");
  for (guint y = 0; y < kept; y++)
    for (guint x = 0; x < kept; x++)
      if (grid[(gsize)y * kept + x] >= 0) {
        g_string_append_printf(s, "%u %u ", x, y);
        gp_number(s, grid[(gsize)y * kept + x]);
        g_string_append_c(s, '\n');
      }
  g_string_append(s, "EOD\n");
  *title = g_strdup("ifsim: link utilization, source x destination");
}

typedef struct {
  const char *channel, *src, *dst;
  double sum; /* of its samples' utilization */
  guint order;
  gint rank; /* position on the y axis (0: hottest), -1: not shown */
} SampleLink;

static gint hotter_link(gconstpointer a, gconstpointer b)
{
  const SampleLink *x = *(SampleLink *const *)a, *y = *(SampleLink *const *)b;

  if (x->sum != y->sum)
    return x->sum > y->sum ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

static gint double_cmp(gconstpointer a, gconstpointer b)
{
  double x = *(const double *)a, y = *(const double *)b;

  return x < y ? -1 : x > y;
}

/* Link samples: a box per sample, from its time to the next sample time
 * of the file (the last as wide as the gap before it), on the row of its
 * link; the max_links links of the highest summed utilization, the
 * hottest on top. */
static void write_samples(const CliPlot *p, const CliPlotStyle *st, GString *s,
                          char **title, char **note)
{
  const PlotFile *f = file_at(p, 0);
  g_autoptr(GArray) links = g_array_new(FALSE, FALSE, sizeof(SampleLink));
  g_autoptr(GHashTable) index = g_hash_table_new(g_str_hash, g_str_equal);
  g_autoptr(GArray) times = g_array_new(FALSE, FALSE, sizeof(double));
  g_autoptr(GPtrArray) order = g_ptr_array_new();
  g_autoptr(GPtrArray) labels = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GHashTable) label_count =
      g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  g_autofree guint *row_link = g_new(guint, f->csv.rows->len);
  guint shown, n_times = 0;
  double last_gap = 1;

  for (guint r = 1; r < f->csv.rows->len; r++) {
    char **row = row_at(f, r);
    gpointer v;
    double t = cell_number(row[SAMPLES_TIME]);

    if (!g_hash_table_lookup_extended(index, row[SAMPLES_CHANNEL], NULL, &v)) {
      SampleLink l = {
          row[SAMPLES_CHANNEL], row[SAMPLES_SRC], row[SAMPLES_DST], 0, r, -1};
      g_array_append_val(links, l);
      v = GUINT_TO_POINTER(links->len - 1);
      g_hash_table_insert(index, row[SAMPLES_CHANNEL], v);
    }
    row_link[r] = GPOINTER_TO_UINT(v);
    g_array_index(links, SampleLink, row_link[r]).sum +=
        cell_number(row[SAMPLES_UTIL]);
    g_array_append_val(times, t);
  }
  /* The distinct sample times, ascending. */
  g_array_sort(times, double_cmp);
  for (guint i = 0; i < times->len; i++)
    if (n_times == 0 || g_array_index(times, double, i) !=
                            g_array_index(times, double, n_times - 1))
      g_array_index(times, double, n_times++) = g_array_index(times, double, i);
  g_array_set_size(times, n_times);
  if (n_times > 1)
    last_gap = g_array_index(times, double, n_times - 1) -
               g_array_index(times, double, n_times - 2);
  for (guint i = 0; i < links->len; i++)
    g_ptr_array_add(order, &g_array_index(links, SampleLink, i));
  g_ptr_array_sort(order, hotter_link);
  shown = MIN(order->len, st->max_links);
  for (guint i = 0; i < shown; i++) {
    SampleLink *l = order->pdata[i];
    char *label = g_strdup_printf("%s->%s", l->src, l->dst);
    guint count = GPOINTER_TO_UINT(g_hash_table_lookup(label_count, label)) + 1;

    l->rank = (gint)i;
    g_hash_table_insert(label_count, g_strdup(label), GUINT_TO_POINTER(count));
    g_ptr_array_add(labels, label);
  }
  /* Parallel links between the same nodes: tell them by channel. */
  for (guint i = 0; i < shown; i++)
    if (GPOINTER_TO_UINT(g_hash_table_lookup(label_count, labels->pdata[i])) >
        1) {
      char *l = g_strdup_printf("%s #%s", (char *)labels->pdata[i],
                                ((SampleLink *)order->pdata[i])->channel);
      g_free(labels->pdata[i]);
      labels->pdata[i] = l;
    }
  if (shown < links->len)
    *note = g_strdup_printf("the %u hottest links (of %u links)", shown,
                            links->len);
  g_string_append_printf(s, "LINKS = %u\n", shown);
  gp_tics(s, "y", labels);
  g_string_append(s, "$D << EOD\n");
  for (guint r = 1; r < f->csv.rows->len; r++) {
    char **row = row_at(f, r);
    const SampleLink *l = &g_array_index(links, SampleLink, row_link[r]);
    double t = cell_number(row[SAMPLES_TIME]), next;
    guint a = 0, b = n_times;

    if (l->rank < 0)
      continue;
    while (a < b) { /* the first time above t */
      guint m = (a + b) / 2;
      if (g_array_index(times, double, m) <= t)
        a = m + 1;
      else
        b = m;
    }
    next = a < n_times ? g_array_index(times, double, a) : t + last_gap;
    gp_number(s, t);
    g_string_append_c(s, ' ');
    gp_number(s, next);
    g_string_append_printf(s, " %d ", l->rank);
    gp_number(s, cell_number(row[SAMPLES_UTIL]));
    g_string_append_c(s, '\n');
  }
  g_string_append(s, "EOD\n");
  *title = g_strdup("ifsim: link utilization over time");
}

static GBytes *shipped_script(CliPlotKind kind, GError **error)
{
  static gsize registered = 0;
  g_autofree char *path =
      g_strdup_printf("/ifsim/tools/plot/%s.gp", kind_names[kind]);

  if (g_once_init_enter(&registered)) {
    cli_resources_register_resource();
    g_once_init_leave(&registered, 1);
  }
  return g_resource_lookup_data(cli_resources_get_resource(), path,
                                G_RESOURCE_LOOKUP_FLAGS_NONE, error);
}

char *cli_plot_script(const CliPlot *p, const CliPlotStyle *style,
                      const char *output_path, GError **error)
{
  g_autoptr(GString) s = g_string_new(NULL);
  g_autoptr(GBytes) gp = shipped_script(p->kind, error);
  g_autofree char *title = NULL, *note = NULL;
  g_autoptr(GString) data = g_string_new(NULL);

  if (!gp)
    return NULL;
  switch (p->kind) {
  case CLI_PLOT_RUN: write_run(p, data, &title); break;
  case CLI_PLOT_SWEEP: write_sweep(p, data, &title); break;
  case CLI_PLOT_REPLAY: write_replay(p, data, &title); break;
  case CLI_PLOT_LINKS: write_links(p, style, data, &title, &note); break;
  case CLI_PLOT_SAMPLES: write_samples(p, style, data, &title, &note); break;
  case CLI_PLOT_CRITICALITY: write_criticality(p, data, &title, &note); break;
  case CLI_PLOT_DRAWS: write_draws(p, data, &title, &note); break;
  }
  g_string_append_printf(s, "# ifsim plot: a %s CSV (tools/plot/%s.gp)\n",
                         kind_names[p->kind], kind_names[p->kind]);
  if (style->svg)
    g_string_append_printf(s,
                           "set terminal svg size %u,%u dynamic noenhanced "
                           "background rgb 'white'\n",
                           style->width_px, style->height_px);
  else
    g_string_append_printf(s, "set terminal pngcairo size %u,%u noenhanced\n",
                           style->width_px, style->height_px);
  g_string_append(s, "set output ");
  gp_string(s, output_path);
  g_string_append(s, "\nTITLE = ");
  gp_string(s, style->title ? style->title : title);
  g_string_append(s, "\nNOTE = ");
  gp_string(s, note ? note : "");
  g_string_append_c(s, '\n');
  g_string_append_len(s, data->str, (gssize)data->len);
  g_string_append_len(s, g_bytes_get_data(gp, NULL),
                      (gssize)g_bytes_get_size(gp));
  return g_string_free(g_steal_pointer(&s), FALSE);
}

/* --- running gnuplot ---------------------------------------------------- */

/* Runs program on the script at path, collecting its standard error,
 * until it ends; Ctrl-C or SIGTERM meanwhile (sim/interrupt.h) ends it
 * (SIGTERM, then SIGKILL after a second) and fails as interrupted, so a
 * gnuplot that never ends cannot hold ifsim. */
static gboolean run_child(const char *program, const char *path,
                          char **err_text, gint *wait, GError **error)
{
  char *argv[] = {(char *)program, (char *)path, NULL};
  GPid pid;
  gint err_fd = -1;
  g_autoptr(GString) text = g_string_new(NULL);
  g_autoptr(GError) local = NULL;
  gboolean done = FALSE;
  guint killed_ticks = 0, ticks = 0;

  if (!g_spawn_async_with_pipes(
          NULL, argv, NULL,
          G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
          &pid, NULL, NULL, &err_fd, &local)) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "gnuplot (%s) could not be run: %s", program, local->message);
    return FALSE;
  }
  g_unix_set_fd_nonblocking(err_fd, TRUE, NULL);
  while (!done) {
    char buf[4096];
    ssize_t got;
    int status;
    pid_t r;

    while ((got = read(err_fd, buf, sizeof buf)) > 0)
      if (text->len < 64 * 1024)
        g_string_append_len(text, buf, got);
    r = waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      *wait = status;
      done = TRUE;
      continue;
    }
    if (sim_interrupted()) {
      /* SIGTERM first; a program that ignores it gets SIGKILL */
      kill(pid, killed_ticks++ < 20 ? SIGTERM : SIGKILL);
    }
    /* a few ms at first (a plot takes a fraction of a second), 50 later */
    g_usleep(MIN(2000u << MIN(ticks, 5u), 50000u));
    ticks++;
  }
  {
    /* what it wrote as it ended */
    char buf[4096];
    ssize_t got;

    while ((got = read(err_fd, buf, sizeof buf)) > 0)
      if (text->len < 64 * 1024)
        g_string_append_len(text, buf, got);
  }
  close(err_fd);
  g_spawn_close_pid(pid);
  if (sim_interrupted())
    return sim_interrupt_check(error);
  *err_text = g_string_free(g_steal_pointer(&text), FALSE);
  return TRUE;
}

gboolean cli_gnuplot_run(const char *script, GError **error)
{
  const char *env = g_getenv("IFSIM_GNUPLOT");
  g_autofree char *program = NULL;
  g_autofree char *path = NULL;
  g_autofree char *err_text = NULL;
  g_autoptr(GError) local = NULL;
  gint wait = 0;
  gboolean ok;
  int fd;

  if (env && env[0])
    program = g_find_program_in_path(env);
  else
    program = g_find_program_in_path("gnuplot");
  if (!program) {
    if (env && env[0])
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "gnuplot not found: IFSIM_GNUPLOT='%s' is not a program "
                  "(expected the path of gnuplot, or IFSIM_GNUPLOT unset to "
                  "use the one on PATH)",
                  env);
    else
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "gnuplot not found on PATH (Debian: apt-get install "
                  "gnuplot-nox)");
    return FALSE;
  }
  /* The script goes in a file, not down a pipe: a program that exits
   * without reading it cannot kill ifsim with SIGPIPE. */
  fd = g_file_open_tmp("ifsim-plot-XXXXXX.gp", &path, &local);
  if (fd < 0) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "cannot write gnuplot's script: %s", local->message);
    return FALSE;
  }
  close(fd);
  ok = g_file_set_contents(path, script, -1, &local) &&
       run_child(program, path, &err_text, &wait, error);
  g_unlink(path);
  if (!ok) {
    if (local)
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "gnuplot (%s) could not be run: %s", program, local->message);
    return FALSE;
  }
  if (!g_spawn_check_wait_status(wait, NULL)) {
    g_autofree char *valid = g_utf8_make_valid(err_text ? err_text : "", -1);

    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "gnuplot (%s) failed: %s", program,
                valid[0] ? g_strchomp(valid)
                         : "(nothing on its standard error)");
    return FALSE;
  }
  return TRUE;
}
