/* Results of a collective size sweep as the nccl-tests table, CSV and JSON;
 * see traces/collresults.h.
 *
 * The table follows NVIDIA/nccl-tests src/util.cu (writeResultHeader,
 * writeBenchmarkLinePreamble, writeBenchmarkLineBody, getFloatStr,
 * writeResultFooter, finalizeFooter; checked against commits cfa8a96 and
 * 0fdb00a) byte for byte, trailing blanks included, so that `diff` against
 * a real run lines up row by row.  Data is not checked, which nccl-tests
 * prints as its -c 0 layout: "    N/A" in place of #wrong (one column
 * narrower than the "#wrong" header: nccl-tests does the same).  The
 * comment lines before the column headers and the per-size choices after
 * "# Collective test concluded" are ifsim's own.
 *
 * The JSON has the shape of nccl-tests' -J output (util.cu: "results"
 * entries with size, count, type, redop, root as nccl-tests' "%6i" string,
 * out_of_place and in_place {time, alg_bw, bus_bw, nwrong: null}), plus
 * ifsim's algo, proto, channels and nccl_model_us per size; the top
 * level's version 2, args (the nccl-tests command the run stands for),
 * env, nccl_version, out_of_bounds and errors; "config" holds nccl-tests'
 * nthreads, ngpus, byte range, iterations and devices, and every
 * TrcCollInfo field.  No start or end time: reruns are byte-identical.
 * Written by hand, not with json-glib's generator, whose doubles print
 * with 17 digits (0.1 as 0.10000000000000001).
 *
 * CSV and JSON numbers go through g_ascii_formatd: a decimal point
 * whatever the locale.  NULL text fields print as empty (table, CSV), "-"
 * (the per-size comment block) or null (JSON). */
#include "traces/collresults.h"

#include <math.h>
#include <string.h>

#include "sim/config.h"
#include "traces/csvtext.h"
#include "traces/output.h"

static const char *text_or(const char *text, const char *none)
{
  return text != NULL ? text : none;
}

/* nccl-tests' getFloatStr: two decimals while the integer part has fewer
 * than width - 2 digits, then one, then none, then an exponent ("%7.1e"
 * for the 7-wide time, "%6.0e" for the 6-wide bandwidths).  A value that
 * rounds up past the width widens the column, as in nccl-tests. */
static void float_str(char *buf, size_t len, double value, int width)
{
  int power = 0;

  /* Digits of the integer part; stops once the branch is decided (and on
   * infinity). */
  for (double v = 1; value >= v && power <= width + 1; v *= 10)
    power++;
  if (power < width - 2)
    snprintf(buf, len, "%*.2f", width, value);
  else if (power < width - 1)
    snprintf(buf, len, "%*.1f", width, value);
  else if (power < width + 1)
    snprintf(buf, len, "%*.0f", width, value);
  else if (width >= 7)
    snprintf(buf, len, "%*.1e", width, value);
  else
    snprintf(buf, len, "%*.0e", width, value);
}

/* nccl-tests' "Avg bus bandwidth": the mean busbw over every timed run
 * (out-of-place and in-place, the same here).  0 for an empty sweep. */
static double mean_busbw(const TrcCollRow *rows, guint n)
{
  double sum = 0;

  for (guint i = 0; i < n; i++)
    sum += rows[i].busbw_GBps;
  return n > 0 ? sum / n : 0.0;
}

/* One number for CSV or JSON, locale-independent; fmt is one conversion of
 * g_ascii_formatd ("%.6f"). */
static void append_double(GString *s, const char *fmt, double value)
{
  char buf[400]; /* "%.6f" of DBL_MAX: 309 digits and 7 more */

  g_string_append(s, g_ascii_formatd(buf, sizeof buf, fmt, value));
}

static void append_table_body(GString *s, const TrcCollRow *r)
{
  char time[32], algbw[32], busbw[32];

  float_str(time, sizeof time, r->time_us, 7);
  float_str(algbw, sizeof algbw, r->algbw_GBps, 6);
  float_str(busbw, sizeof busbw, r->busbw_GBps, 6);
  g_string_append_printf(s, "  %7s  %6s  %6s    N/A", time, algbw, busbw);
}

/* "# fault: LINE" for each of the system's faults, then "# note: LINE"
 * for each note. */
static void append_fault_comments(GString *s, const TrcCollInfo *info)
{
  for (guint i = 0; info->faults && info->faults[i]; i++) {
    g_string_append(s, "# fault: ");
    trc_csv_append_comment(s, info->faults[i]);
    g_string_append_c(s, '\n');
  }
  for (guint i = 0; info->notes && info->notes[i]; i++) {
    g_string_append(s, "# note: ");
    trc_csv_append_comment(s, info->notes[i]);
    g_string_append_c(s, '\n');
  }
}

void trc_coll_print_table(FILE *out, const TrcCollInfo *info,
                          const TrcCollRow *rows, guint n)
{
  g_autoptr(GString) s = g_string_new("# ifsim prediction: ");

  trc_csv_append_comment(s, info->collective);
  g_string_append(s, " on ");
  trc_csv_append_comment(s, info->system);
  g_string_append_printf(s, ", %u ranks on %u nodes, fidelity ", info->ranks,
                         info->nodes);
  trc_csv_append_comment(s, info->fidelity);
  g_string_append(s, "\n# (out-of-place and in-place both show the "
                     "predicted time; nothing is checked: #wrong is N/A)\n");
  append_fault_comments(s, info);

  /* writeResultHeader, without timestamps: "%*s" of "" at width 0 leaves
   * the blank before the newline. */
  g_string_append(s, "#\n");
  g_string_append_printf(s,
                         "# %10s  %12s  %8s  %6s  %6s           out-of-place"
                         "                       in-place          \n",
                         "", "", "", "", "");
  g_string_append_printf(s,
                         "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s"
                         "  %7s  %6s  %6s  %6s %*s\n",
                         "size", "count", "type", "redop", "root", "time",
                         "algbw", "busbw", "#wrong", "time", "algbw", "busbw",
                         "#wrong", 0, "");
  g_string_append_printf(s,
                         "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s"
                         "  %7s  %6s  %6s  %6s %*s\n",
                         "(B)", "(elements)", "", "", "", "(us)", "(GB/s)",
                         "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "", 0, "");

  for (guint i = 0; i < n; i++) {
    const TrcCollRow *r = &rows[i];
    char root[32];

    /* writeBenchmarkLinePreamble prints the root through "%6i" first. */
    snprintf(root, sizeof root, "%6i", (int)info->root);
    g_string_append_printf(
        s, "%12" G_GUINT64_FORMAT "  %12" G_GUINT64_FORMAT "  %8s  %6s  %6s",
        r->size_bytes, r->count, text_or(info->type, ""),
        text_or(info->redop, ""), root);
    append_table_body(s, r); /* out-of-place */
    append_table_body(s, r); /* in-place */
    g_string_append_c(s, '\n');
  }

  /* writeResultFooter with no NCCL_TESTS_MIN_BW check ("%g %s" of ""
   * leaves a blank), then finalizeFooter's "#". */
  g_string_append_printf(s, "# %-20s : %d %s\n", "Out of bounds values", 0,
                         "OK");
  g_string_append_printf(s, "# %-20s : %g %s\n", "Avg bus bandwidth",
                         mean_busbw(rows, n), "");
  g_string_append(s, "#\n# Collective test concluded: ");
  trc_csv_append_comment(s, info->test);
  g_string_append(s, "\n#\n");

  /* ifsim's own: what NCCL would pick per size, space-separated. */
  g_string_append(s, "# size_bytes algo proto channels nccl_model_us\n");
  for (guint i = 0; i < n; i++) {
    const TrcCollRow *r = &rows[i];
    const char *algo = r->algo != NULL && *r->algo ? r->algo : "-";
    const char *proto = r->proto != NULL && *r->proto ? r->proto : "-";

    g_string_append_printf(s, "# %" G_GUINT64_FORMAT " ", r->size_bytes);
    trc_csv_append_comment(s, algo);
    g_string_append_c(s, ' ');
    trc_csv_append_comment(s, proto);
    g_string_append_printf(s, " %u %.3f\n", r->channels, r->nccl_model_us);
  }
  fwrite(s->str, 1, s->len, out);
}

/* The sweep's text fields, in the order of the JSON "config" (where the
 * numbers follow them) and of the CSV comments (ranks and nodes after
 * fidelity, root last). */
typedef struct {
  const char *key, *value;
} TextField;

#define N_INFO_TEXT 6

static void info_text_fields(const TrcCollInfo *info,
                             TextField out[N_INFO_TEXT])
{
  const TextField f[N_INFO_TEXT] = {
      {"test", info->test},     {"collective", info->collective},
      {"system", info->system}, {"fidelity", info->fidelity},
      {"type", info->type},     {"redop", info->redop},
  };

  memcpy(out, f, sizeof f);
}

static void append_csv_comments(GString *s, const TextField *f, guint n)
{
  for (guint k = 0; k < n; k++) {
    g_string_append_printf(s, "# %s: ", f[k].key);
    trc_csv_append_comment(s, f[k].value);
    g_string_append_c(s, '\n');
  }
}

void trc_coll_csv_append_row(GString *s, const TrcCollInfo *info,
                             const TrcCollRow *r)
{
  const double nums[] = {r->time_us, r->algbw_GBps, r->busbw_GBps};

  g_string_append_printf(s, "%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",",
                         r->size_bytes, r->count);
  trc_csv_append_text(s, info->type);
  g_string_append_c(s, ',');
  trc_csv_append_text(s, info->redop);
  g_string_append_printf(s, ",%d", (int)info->root);
  for (guint k = 0; k < G_N_ELEMENTS(nums); k++) {
    g_string_append_c(s, ',');
    append_double(s, "%.6f", nums[k]);
  }
  g_string_append_c(s, ',');
  trc_csv_append_text(s, r->algo);
  g_string_append_c(s, ',');
  trc_csv_append_text(s, r->proto);
  g_string_append_printf(s, ",%u,", r->channels);
  /* empty where NCCL's model has no estimate (point-to-point: -1) */
  if (r->nccl_model_us >= 0)
    append_double(s, "%.3f", r->nccl_model_us);
}

char *trc_coll_csv(const TrcCollInfo *info, const TrcCollRow *rows, guint n)
{
  GString *s = g_string_new(NULL);
  TextField text[N_INFO_TEXT];

  info_text_fields(info, text);
  append_csv_comments(s, text, 4); /* test, collective, system, fidelity */
  g_string_append_printf(s, "# ranks: %u\n# nodes: %u\n", info->ranks,
                         info->nodes);
  append_csv_comments(s, text + 4, 2); /* type, redop */
  g_string_append_printf(s, "# root: %d\n", (int)info->root);
  append_fault_comments(s, info);
  g_string_append(s, TRC_COLL_CSV_COLUMNS "\n");
  for (guint i = 0; i < n; i++) {
    trc_coll_csv_append_row(s, info, &rows[i]);
    g_string_append_c(s, '\n');
  }
  return g_string_free(s, FALSE);
}

/* A JSON string (RFC 8259 section 7): quote, backslash and every control
 * character escaped; text that is not UTF-8 is repaired first (invalid
 * bytes become U+FFFD) so the document stays valid.  NULL is null.
 * g_strescape will not do: it writes octal escapes (\001) JSON lacks. */
static void append_json_string(GString *s, const char *text)
{
  g_autofree char *fixed = NULL;

  if (text == NULL) {
    g_string_append(s, "null");
    return;
  }
  if (!g_utf8_validate(text, -1, NULL))
    text = fixed = g_utf8_make_valid(text, -1);
  g_string_append_c(s, '"');
  for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
    switch (*c) {
    case '"': g_string_append(s, "\\\""); break;
    case '\\': g_string_append(s, "\\\\"); break;
    case '\b': g_string_append(s, "\\b"); break;
    case '\f': g_string_append(s, "\\f"); break;
    case '\n': g_string_append(s, "\\n"); break;
    case '\r': g_string_append(s, "\\r"); break;
    case '\t': g_string_append(s, "\\t"); break;
    default:
      if (*c < 0x20)
        g_string_append_printf(s, "\\u%04x", *c);
      else
        g_string_append_c(s, (char)*c);
    }
  }
  g_string_append_c(s, '"');
}

/* `, "key": [lines...]` when lines is not NULL. */
static void append_json_lines(GString *s, const char *key,
                              const char *const *lines)
{
  if (!lines)
    return;
  g_string_append_printf(s, ", \"%s\": [", key);
  for (guint i = 0; lines[i]; i++) {
    if (i)
      g_string_append(s, ", ");
    append_json_string(s, lines[i]);
  }
  g_string_append_c(s, ']');
}

/* A JSON number; NaN and infinities (not JSON numbers) are null. */
static void append_json_double(GString *s, double value)
{
  if (isfinite(value))
    append_double(s, "%.6f", value);
  else
    g_string_append(s, "null");
}

/* `sep"key": "value"` for each field. */
static void append_json_strings(GString *s, const char *sep, const TextField *f,
                                guint n)
{
  for (guint k = 0; k < n; k++) {
    g_string_append_printf(s, "%s\"%s\": ", k > 0 ? ", " : sep, f[k].key);
    append_json_string(s, f[k].value);
  }
}

static void append_json_run(GString *s, const char *key, const TrcCollRow *r)
{
  g_string_append_printf(s, ", \"%s\": {\"time\": ", key);
  append_json_double(s, r->time_us);
  g_string_append(s, ", \"alg_bw\": ");
  append_json_double(s, r->algbw_GBps);
  g_string_append(s, ", \"bus_bw\": ");
  append_json_double(s, r->busbw_GBps);
  g_string_append(s, ", \"nwrong\": null}");
}

/* The nccl-tests command the run stands for: its argv as -J stores it
 * ("args"), with no paths (ifsim's own options are not nccl-tests'). */
static void append_json_args(GString *s, const TrcCollInfo *info)
{
  char num[32];

  g_string_append(s, "\"args\": [");
  append_json_string(s, info->test);
  g_snprintf(num, sizeof num, "%" G_GUINT64_FORMAT, info->min_bytes);
  g_string_append(s, ", \"-b\", ");
  append_json_string(s, num);
  g_snprintf(num, sizeof num, "%" G_GUINT64_FORMAT, info->max_bytes);
  g_string_append(s, ", \"-e\", ");
  append_json_string(s, num);
  g_snprintf(num, sizeof num, "%" G_GUINT64_FORMAT,
             info->step_bytes ? info->step_bytes : info->step_factor);
  g_string_append(s, info->step_bytes ? ", \"-i\", " : ", \"-f\", ");
  append_json_string(s, num);
  g_snprintf(num, sizeof num, "%u", MAX(info->gpus_per_process, 1));
  g_string_append(s, ", \"-g\", ");
  append_json_string(s, num);
  if (info->iters) {
    g_snprintf(num, sizeof num, "%u", info->iters);
    g_string_append(s, ", \"-n\", ");
    append_json_string(s, num);
  }
  if (info->graph_launches) {
    g_snprintf(num, sizeof num, "%u", info->graph_launches);
    g_string_append(s, ", \"-G\", ");
    append_json_string(s, num);
  }
  if (info->root >= 0) {
    g_snprintf(num, sizeof num, "%d", (int)info->root);
    g_string_append(s, ", \"-r\", ");
    append_json_string(s, num);
  }
  g_string_append(s, "]");
}

/* nccl-tests' "devices": a rank per GPU, one process per gpus_per_process
 * ranks, the server as its host name. */
static void append_json_devices(GString *s, const TrcCollInfo *info)
{
  guint32 per = MAX(info->gpus_per_process, 1);

  g_string_append(s, ", \"devices\": [");
  for (guint32 r = 0; r < info->ranks && info->rank_server; r++) {
    char host[32];
    g_snprintf(host, sizeof host, "server%u", info->rank_server[r]);
    g_string_append_printf(s,
                           "%s\n{\"rank\": %u, \"group\": 0, \"pid\": %u, "
                           "\"hostname\": ",
                           r ? "," : "", r, r / per);
    append_json_string(s, host);
    g_string_append_printf(
        s, ", \"device\": %u, \"device_info\": ", info->rank_local[r]);
    append_json_string(s, info->device_info);
    g_string_append_c(s, '}');
  }
  g_string_append(s, "]");
}

char *trc_coll_json(const TrcCollInfo *info, const TrcCollRow *rows, guint n)
{
  GString *s = g_string_new("{\"version\": 2, \"generator\": ");
  TextField text[N_INFO_TEXT];
  char root[32];

  /* nccl-tests -J's keys first (util.cu: version 2 of its layout), then
   * ifsim's */
  {
    g_autofree char *gen = g_strdup_printf("ifsim %s", IFSIM_VERSION);
    append_json_string(s, gen);
  }
  g_string_append(s, ", ");
  append_json_args(s, info);
  g_string_append(s, ", \"env\": []");
  if (info->nccl_version)
    g_string_append_printf(s, ", \"nccl_version\": %u", info->nccl_version);
  g_string_append_printf(
      s,
      ",\n\"config\": {\"nthreads\": 1, \"ngpus\": %u, \"minimum_bytes\": "
      "%" G_GUINT64_FORMAT ", \"maximum_bytes\": %" G_GUINT64_FORMAT
      ", \"step_bytes\": %" G_GUINT64_FORMAT
      ", \"step_factor\": %" G_GUINT64_FORMAT,
      MAX(info->gpus_per_process, 1), info->min_bytes, info->max_bytes,
      info->step_bytes, info->step_factor);
  if (info->iters)
    g_string_append_printf(s, ", \"iterations\": %u", info->iters);
  g_string_append_printf(s,
                         ", \"aggregated_iterations\": 1, \"validation\": 0, "
                         "\"graph\": %u",
                         info->graph_launches);
  info_text_fields(info, text);
  append_json_strings(s, ", ", text, N_INFO_TEXT);
  g_string_append_printf(s, ", \"root\": %d, \"ranks\": %u, \"nodes\": %u",
                         (int)info->root, info->ranks, info->nodes);
  append_json_lines(s, "faults", info->faults);
  append_json_lines(s, "notes", info->notes);
  append_json_devices(s, info);
  g_string_append(s, "},\n\"results\": [");

  /* nccl-tests stores the root as the "%6i" text of its table. */
  snprintf(root, sizeof root, "%6i", (int)info->root);
  for (guint i = 0; i < n; i++) {
    const TrcCollRow *r = &rows[i];
    const TextField head[] = {
        {"type", info->type}, {"redop", info->redop}, {"root", root}};
    const TextField choice[] = {{"algo", r->algo}, {"proto", r->proto}};

    g_string_append_printf(s,
                           "%s\n{\"size\": %" G_GUINT64_FORMAT
                           ", \"count\": %" G_GUINT64_FORMAT,
                           i > 0 ? "," : "", r->size_bytes, r->count);
    append_json_strings(s, ", ", head, G_N_ELEMENTS(head));
    append_json_run(s, "out_of_place", r);
    append_json_run(s, "in_place", r);
    append_json_strings(s, ", ", choice, G_N_ELEMENTS(choice));
    g_string_append_printf(
        s, ", \"channels\": %u, \"nccl_model_us\": ", r->channels);
    append_json_double(s, r->nccl_model_us >= 0 ? r->nccl_model_us : NAN);
    g_string_append_c(s, '}');
  }
  /* Nothing is checked: nccl-tests' "okay" without NCCL_TESTS_MIN_BW, and
   * the table's "Out of bounds values : 0 OK" */
  g_string_append(s, "\n],\n\"out_of_bounds\": {\"count\": 0, \"okay\": "
                     "\"true\"}, \"average_bus_bandwidth\": {\"bandwidth\": ");
  append_json_double(s, mean_busbw(rows, n));
  g_string_append(s, ", \"okay\": \"unchecked\"}, \"errors\": []}\n");
  return g_string_free(s, FALSE);
}

gboolean trc_coll_csv_write(const char *path, const TrcCollInfo *info,
                            const TrcCollRow *rows, guint n, GError **error)
{
  return trc_write_text(path, trc_coll_csv(info, rows, n), error);
}

gboolean trc_coll_json_write(const char *path, const TrcCollInfo *info,
                             const TrcCollRow *rows, guint n, GError **error)
{
  return trc_write_text(path, trc_coll_json(info, rows, n), error);
}
