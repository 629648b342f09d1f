/* The collective sweep outputs of traces/collresults.c: the nccl-tests
 * table byte for byte (expected lines written out by hand from the printf
 * formats of nccl-tests src/util.cu), getFloatStr's switches between
 * decimals and exponents, the CSV read back with libcsv, the JSON checked
 * by a small validator (RFC 8259 grammar, no external library), and the
 * atomic writes: a failed write names the file and leaves nothing. */
#include <csv.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "tests/suites.h"
#include "traces/collresults.h"

#define GIB (G_GUINT64_CONSTANT(1) << 30)

/* A 4-byte float AllReduce on 8 ranks: busbw = algbw x 2 (8 - 1) / 8. */
static const TrcCollInfo info_allreduce = {
    .test = "all_reduce_perf",
    .collective = "AllReduce",
    .system = "dgx-h100",
    .fidelity = "flow",
    .type = "float",
    .redop = "sum",
    .root = -1,
    .ranks = 8,
    .nodes = 1,
    .min_bytes = 8,
    .max_bytes = 8 * GIB,
    .step_bytes = 0,
    .step_factor = 2,
};

static TrcCollRow make_row(guint64 size_bytes, double time_us)
{
  double algbw = (double)size_bytes / time_us / 1e3;
  TrcCollRow r = {.size_bytes = size_bytes,
                  .count = size_bytes / 4,
                  .time_us = time_us,
                  .algbw_GBps = algbw,
                  .busbw_GBps = algbw * 1.75,
                  .algo = "Ring",
                  .proto = "LL",
                  .channels = 2,
                  .nccl_model_us = time_us * 0.9};
  return r;
}

/* The table as text. */
static char *table_text(const TrcCollInfo *info, const TrcCollRow *rows,
                        guint n)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);

  ck_assert(f != NULL);
  trc_coll_print_table(f, info, rows, n);
  ck_assert_int_eq(fclose(f), 0);
  return buf; /* malloc'd by open_memstream: free() */
}

/* Line `index` (from 0) of text that does (comment) or does not start
 * with '#'; NULL past the end. */
static char *nth_line(const char *text, gboolean comment, guint index)
{
  gchar **lines = g_strsplit(text, "\n", -1);
  char *found = NULL;

  for (guint i = 0; lines[i] != NULL && found == NULL; i++) {
    if (*lines[i] == '\0' || (lines[i][0] == '#') != comment)
      continue;
    if (index-- == 0)
      found = g_strdup(lines[i]);
  }
  g_strfreev(lines);
  return found;
}

/* End columns of the blank-separated words of line; returns their count. */
static guint word_ends(const char *line, guint *ends, guint max)
{
  guint n = 0;

  for (guint i = 0; line[i] != '\0'; i++) {
    if (line[i] != ' ' && (line[i + 1] == ' ' || line[i + 1] == '\0')) {
      ck_assert_uint_lt(n, max);
      ends[n++] = i + 1;
    }
  }
  return n;
}

/* The header lines and rows for 8 B and 8 GiB, character for character:
 * nccl-tests' "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s ..." headers
 * and "%12li  %12li  %8s  %6s  %6s" + 2 x "  %7s  %6s  %6s    N/A" rows. */
START_TEST(test_table_exact)
{
  TrcCollRow rows[2] = {make_row(8, 5.12), make_row(8 * GIB, 36000.0)};
  char *text = table_text(&info_allreduce, rows, 2);
  const char *expect =
      "# ifsim prediction: AllReduce on dgx-h100, 8 ranks on 1 nodes, "
      "fidelity flow\n"
      "# (out-of-place and in-place both show the predicted time; nothing "
      "is checked: #wrong is N/A)\n"
      "#\n"
      "#                                                              "
      "out-of-place                       in-place          \n"
      "#       size         count      type   redop    root     time   algbw"
      "   busbw  #wrong     time   algbw   busbw  #wrong \n"
      "#        (B)    (elements)                               (us)  (GB/s)"
      "  (GB/s)             (us)  (GB/s)  (GB/s)         \n"
      "           8             2     float     sum      -1     5.12    0.00"
      "    0.00    N/A     5.12    0.00    0.00    N/A\n"
      "  8589934592    2147483648     float     sum      -1  36000.0  238.61"
      "  417.57    N/A  36000.0  238.61  417.57    N/A\n"
      "# Out of bounds values : 0 OK\n"
      "# Avg bus bandwidth    : 208.784 \n"
      "#\n"
      "# Collective test concluded: all_reduce_perf\n"
      "#\n"
      "# size_bytes algo proto channels nccl_model_us\n"
      "# 8 Ring LL 2 4.608\n"
      "# 8589934592 Ring LL 2 32400.000\n";

  ck_assert_str_eq(text, expect);
  free(text);
}
END_TEST

/* Every row word ends in the column of its header word up to the
 * out-of-place busbw.  nccl-tests' "    N/A" is one column narrower than
 * its "  #wrong" header, so the in-place words end one column left of
 * their header words and the last N/A two: the same as nccl-tests -c 0. */
START_TEST(test_table_columns)
{
  TrcCollRow rows[2] = {make_row(8, 5.12), make_row(8 * GIB, 36000.0)};
  char *text = table_text(&info_allreduce, rows, 2);
  g_autofree char *header = nth_line(text, TRUE, 4);
  guint hend[16], rend[16];
  guint nh;

  ck_assert(g_str_has_prefix(header, "#       size"));
  nh = word_ends(header, hend, 16);
  ck_assert_uint_eq(nh, 14); /* "#" and 13 column names */
  for (guint k = 0; k < 2; k++) {
    g_autofree char *row = nth_line(text, FALSE, k);

    ck_assert(row != NULL);
    ck_assert_uint_eq(word_ends(row, rend, 16), 13);
    for (guint c = 0; c < 13; c++)
      ck_assert_uint_eq(rend[c], hend[c + 1] - (c >= 8) - (c >= 12));
    ck_assert_uint_eq(strlen(row), 116);
  }
  ck_assert(nth_line(text, FALSE, 2) == NULL);
  free(text);
}
END_TEST

/* getFloatStr: time (7 wide) "%7.2f" below 10^4 us, "%7.1f" below 10^5,
 * "%7.0f" below 10^7, then "%7.1e"; bandwidths (6 wide) "%6.2f" below
 * 10^3, "%6.1f" below 10^4, "%6.0f" below 10^6, then "%6.0e". */
START_TEST(test_table_number_formats)
{
  static const struct {
    double value;
    const char *time, *bw;
  } cases[] = {
      {0.5, "   0.50", "  0.50"},      {999.994, " 999.99", "999.99"},
      {1000.0, "1000.00", "1000.0"},   {9999.5, "9999.50", "9999.5"},
      {10000.0, "10000.0", " 10000"},  {99999.4, "99999.4", " 99999"},
      {100000.0, " 100000", "100000"}, {999999.0, " 999999", "999999"},
      {1e6, "1000000", " 1e+06"},      {9999999.0, "9999999", " 1e+07"},
      {1.26e7, "1.3e+07", " 1e+07"},   {3.3e9, "3.3e+09", " 3e+09"},
  };

  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    TrcCollRow r = make_row(8, cases[i].value);
    char *text;
    g_autofree char *row = NULL;
    g_autofree char *expect = NULL;

    r.algbw_GBps = r.busbw_GBps = cases[i].value;
    text = table_text(&info_allreduce, &r, 1);
    row = nth_line(text, FALSE, 0);
    expect = g_strdup_printf("  %s  %s  %s    N/A", cases[i].time, cases[i].bw,
                             cases[i].bw);
    /* The row is the 52-character preamble and the two bodies. */
    ck_assert_uint_eq(strlen(row), 52 + 2 * strlen(expect));
    ck_assert_str_eq(row + 52 + strlen(expect), expect);
    row[52 + strlen(expect)] = '\0';
    ck_assert_str_eq(row + 52, expect);
    free(text);
  }
}
END_TEST

/* A rooted collective prints its root through "%6i"; an empty sweep has
 * a mean bus bandwidth of 0 and no rows. */
START_TEST(test_table_root_and_empty)
{
  TrcCollInfo info = info_allreduce;
  TrcCollRow r = make_row(1024, 10.0);
  char *text;
  g_autofree char *row = NULL;

  info.test = "broadcast_perf";
  info.redop = "none";
  info.root = 3;
  text = table_text(&info, &r, 1);
  row = nth_line(text, FALSE, 0);
  ck_assert(g_str_has_prefix(row, "        1024           256     float    "
                                  "none       3    10.00    0.10    0.18"));
  ck_assert(strstr(text, "# Collective test concluded: broadcast_perf\n"));
  free(text);

  text = table_text(&info, NULL, 0);
  ck_assert(nth_line(text, FALSE, 0) == NULL);
  ck_assert(strstr(text, "# Avg bus bandwidth    : 0 \n"));
  free(text);
}
END_TEST

typedef struct {
  GPtrArray *fields; /* of char * */
  guint rows;
} CsvRead;

static void on_field(void *data, size_t len, void *ctx)
{
  g_ptr_array_add(((CsvRead *)ctx)->fields, g_strndup(data, len));
}

static void on_row(int c, void *ctx)
{
  (void)c;
  ((CsvRead *)ctx)->rows++;
}

/* Comment lines, the header, and a row read back with libcsv, a text field
 * with a comma and a quote included. */
START_TEST(test_csv)
{
  TrcCollInfo info = info_allreduce;
  TrcCollRow rows[2] = {make_row(8, 5.12), make_row(8 * GIB, 36000.0)};
  g_autofree char *csv = NULL;
  const char *header;
  CsvRead rd = {g_ptr_array_new_with_free_func(g_free), 0};
  struct csv_parser p;
  size_t len;

  info.system = "lab \"a\"\nrack 2";
  rows[1].algo = "Ring,\"Tree\"";
  csv = trc_coll_csv(&info, rows, 2);
  ck_assert(g_str_has_prefix(csv, "# test: all_reduce_perf\n"
                                  "# collective: AllReduce\n"
                                  "# system: lab \"a\" rack 2\n"
                                  "# fidelity: flow\n"
                                  "# ranks: 8\n"
                                  "# nodes: 1\n"
                                  "# type: float\n"
                                  "# redop: sum\n"
                                  "# root: -1\n"
                                  "size_bytes,count_elements,type,redop,"
                                  "root,time_us,algbw_GBps,busbw_GBps,algo,"
                                  "proto,channels,nccl_model_us\n"));
  ck_assert(strstr(csv, "\n8,2,float,sum,-1,5.120000,0.001563,0.002734,Ring,"
                        "LL,2,4.608\n"));

  header = strstr(csv, "size_bytes,");
  len = strlen(header);
  ck_assert_int_eq(csv_init(&p, CSV_STRICT | CSV_STRICT_FINI), 0);
  ck_assert_uint_eq(csv_parse(&p, header, len, on_field, on_row, &rd), len);
  ck_assert_int_eq(csv_fini(&p, on_field, on_row, &rd), 0);
  csv_free(&p);
  ck_assert_uint_eq(rd.rows, 3);
  ck_assert_uint_eq(rd.fields->len, 3 * 12);
  {
    char **f = (char **)rd.fields->pdata + 2 * 12; /* the 8 GiB row */

    ck_assert_str_eq(f[0], "8589934592");
    ck_assert_str_eq(f[1], "2147483648");
    ck_assert_str_eq(f[2], "float");
    ck_assert_str_eq(f[3], "sum");
    ck_assert_str_eq(f[4], "-1");
    ck_assert_str_eq(f[5], "36000.000000");
    ck_assert_double_eq_tol(g_ascii_strtod(f[6], NULL), 238.609294, 1e-6);
    ck_assert_double_eq_tol(g_ascii_strtod(f[7], NULL), 417.566265, 1e-6);
    ck_assert_str_eq(f[8], "Ring,\"Tree\"");
    ck_assert_str_eq(f[9], "LL");
    ck_assert_str_eq(f[10], "2");
    ck_assert_str_eq(f[11], "32400.000");
  }
  g_ptr_array_unref(rd.fields);
}
END_TEST

/* A JSON validator after RFC 8259's grammar; advances *p past one value. */
static gboolean json_value(const char **p);

static void json_ws(const char **p)
{
  while (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\r')
    (*p)++;
}

static gboolean json_string(const char **p)
{
  if (**p != '"')
    return FALSE;
  for ((*p)++; **p != '"'; (*p)++) {
    if ((unsigned char)**p < 0x20) /* the end, or a raw control char */
      return FALSE;
    if (**p != '\\')
      continue;
    (*p)++;
    if (**p == 'u') {
      for (int i = 0; i < 4; i++)
        if (!g_ascii_isxdigit(*++*p))
          return FALSE;
    } else if (**p == '\0' || strchr("\"\\/bfnrt", **p) == NULL) {
      return FALSE;
    }
  }
  (*p)++;
  return TRUE;
}

static gboolean json_digits(const char **p)
{
  if (!g_ascii_isdigit(**p))
    return FALSE;
  while (g_ascii_isdigit(**p))
    (*p)++;
  return TRUE;
}

static gboolean json_number(const char **p)
{
  if (**p == '-')
    (*p)++;
  if (**p == '0')
    (*p)++;
  else if (!json_digits(p))
    return FALSE;
  if (**p == '.') {
    (*p)++;
    if (!json_digits(p))
      return FALSE;
  }
  if (**p == 'e' || **p == 'E') {
    (*p)++;
    if (**p == '+' || **p == '-')
      (*p)++;
    if (!json_digits(p))
      return FALSE;
  }
  return TRUE;
}

/* Members of an object (close '}') or elements of an array (close ']'). */
static gboolean json_items(const char **p, char close)
{
  (*p)++;
  json_ws(p);
  if (**p == close) {
    (*p)++;
    return TRUE;
  }
  for (;;) {
    if (close == '}') {
      if (!json_string(p))
        return FALSE;
      json_ws(p);
      if (**p != ':')
        return FALSE;
      (*p)++;
    }
    if (!json_value(p))
      return FALSE;
    if (**p == close) {
      (*p)++;
      return TRUE;
    }
    if (**p != ',') /* never step past the end of the text */
      return FALSE;
    (*p)++;
    json_ws(p);
  }
}

static gboolean json_value(const char **p)
{
  gboolean ok;

  json_ws(p);
  switch (**p) {
  case '{': ok = json_items(p, '}'); break;
  case '[': ok = json_items(p, ']'); break;
  case '"': ok = json_string(p); break;
  case 't': ok = g_str_has_prefix(*p, "true") && (*p += 4); break;
  case 'f': ok = g_str_has_prefix(*p, "false") && (*p += 5); break;
  case 'n': ok = g_str_has_prefix(*p, "null") && (*p += 4); break;
  default: ok = json_number(p);
  }
  json_ws(p);
  return ok;
}

static gboolean json_valid(const char *text)
{
  return json_value(&text) && *text == '\0';
}

/* Valid JSON with nccl-tests' -J shape, strings escaped (a quote, a
 * backslash, a tab and a raw control character in the system name). */
START_TEST(test_json)
{
  TrcCollInfo info = info_allreduce;
  TrcCollRow rows[2] = {make_row(8, 5.12), make_row(8 * GIB, 36000.0)};
  g_autofree char *json = NULL;
  guint results = 0;

  ck_assert(json_valid("{\"a\": [1, -2.5e3, \"x\\u00e9\", null, true]}"));
  ck_assert(!json_valid("{\"a\": \"b\"c\"}"));
  ck_assert(!json_valid("{\"a\": \"\\x\"}"));
  ck_assert(!json_valid("[1, 2"));
  ck_assert(!json_valid("{\"a\": inf}"));

  info.system = "lab \"7\" \\ rack\t2\001";
  info.gpus_per_process = 8;
  info.iters = 20;
  info.nccl_version = 22809;
  info.rank_server = (const guint32[]){0, 0, 0, 0, 1, 1, 1, 1};
  info.rank_local = (const guint32[]){0, 1, 2, 3, 0, 1, 2, 3};
  info.device_info = "sm90";
  rows[0].time_us = rows[0].nccl_model_us = NAN;
  rows[1].proto = NULL;
  json = trc_coll_json(&info, rows, 2);
  ck_assert_msg(json_valid(json), "%s", json);
  /* nccl-tests -J's keys: the layout version, the command the run stands
   * for, the release modelled, the config and its devices */
  ck_assert_msg(g_str_has_prefix(json, "{\"version\": 2, \"generator\": "
                                       "\"ifsim "),
                "%s", json);
  ck_assert(strstr(json, "\"args\": [\"all_reduce_perf\", \"-b\", \"8\", "
                         "\"-e\", \"8589934592\", \"-f\", \"2\", \"-g\", "
                         "\"8\", \"-n\", \"20\"], \"env\": [], "
                         "\"nccl_version\": 22809,\n\"config\": "
                         "{\"nthreads\": 1, \"ngpus\": 8, "
                         "\"minimum_bytes\": 8, \"maximum_bytes\": "
                         "8589934592, \"step_bytes\": 0, \"step_factor\": "
                         "2, \"iterations\": 20, "));
  ck_assert(strstr(json, "\"test\": \"all_reduce_perf\", \"collective\": "
                         "\"AllReduce\", \"system\": \"lab "
                         "\\\"7\\\" \\\\ rack\\t2\\u0001\", "));
  ck_assert(strstr(json, "\"root\": -1, \"ranks\": 8, \"nodes\": 1, "
                         "\"devices\": [\n{\"rank\": 0, \"group\": 0, "
                         "\"pid\": 0, \"hostname\": \"server0\", "
                         "\"device\": 0, \"device_info\": \"sm90\"},"));
  ck_assert(strstr(json, "{\"rank\": 7, \"group\": 0, \"pid\": 0, "
                         "\"hostname\": \"server1\", \"device\": 3, "
                         "\"device_info\": \"sm90\"}]},\n"));
  ck_assert(strstr(json, "{\"size\": 8589934592, \"count\": 2147483648, "
                         "\"type\": \"float\", \"redop\": \"sum\", "
                         "\"root\": \"    -1\", \"out_of_place\": "
                         "{\"time\": 36000.000000, \"alg_bw\": 238.609294, "
                         "\"bus_bw\": 417.566265, \"nwrong\": null}, "
                         "\"in_place\": {\"time\": 36000.000000, "));
  ck_assert(strstr(json, "\"algo\": \"Ring\", \"proto\": null, "
                         "\"channels\": 2, \"nccl_model_us\": 32400.000000}"));
  /* Not a number: null, in JSON and in no other way. */
  ck_assert(strstr(json, "\"out_of_place\": {\"time\": null, "));
  ck_assert(strstr(json, "\"out_of_bounds\": {\"count\": 0, \"okay\": "
                         "\"true\"}, \"average_bus_bandwidth\": "
                         "{\"bandwidth\": 208.784500, \"okay\": "
                         "\"unchecked\"}, \"errors\": []}\n"));
  for (const char *c = json; (c = strstr(c, "\"size\": ")) != NULL; c++)
    results++;
  ck_assert_uint_eq(results, 2);

  g_free(json);
  json = trc_coll_json(&info, NULL, 0);
  ck_assert(json_valid(json));
  ck_assert(strstr(json, "\"results\": [\n]"));
}
END_TEST

static gint cmp_names(gconstpointer a, gconstpointer b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names in dir, sorted, as one string "a b". */
static char *dir_names(const char *dir)
{
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
  const char *name;

  ck_assert(d != NULL);
  while ((name = g_dir_read_name(d)) != NULL)
    g_ptr_array_add(names, g_strdup(name));
  g_ptr_array_sort(names, cmp_names);
  g_ptr_array_add(names, NULL);
  return g_strjoinv(" ", (char **)names->pdata);
}

/* Writing `path` (JSON or CSV) fails with a GFileError whose message
 * starts with the path, and dir then holds `names` and nothing else. */
static void assert_write_fails(const char *path, gboolean json, const char *dir,
                               const char *names)
{
  TrcCollRow r = make_row(8, 5.12);
  g_autoptr(GError) error = NULL;
  g_autofree char *left = NULL;
  gboolean ok = json ? trc_coll_json_write(path, &info_allreduce, &r, 1, &error)
                     : trc_coll_csv_write(path, &info_allreduce, &r, 1, &error);

  ck_assert(!ok);
  ck_assert(error != NULL && error->domain == G_FILE_ERROR);
  ck_assert_msg(g_str_has_prefix(error->message, path), "%s", error->message);
  left = dir_names(dir);
  ck_assert_str_eq(left, names);
}

/* A file in a missing folder, or a path that is a folder: the write fails
 * with a GFileError naming the path and leaves no file, temporary or not;
 * a second write replaces the first file whole. */
START_TEST(test_write)
{
  TrcCollRow rows[2] = {make_row(8, 5.12), make_row(8 * GIB, 36000.0)};
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp("ifsim-coll-XXXXXX", &error);
  g_autofree char *missing = NULL;
  g_autofree char *sub = NULL;
  g_autofree char *csv_path = NULL;
  g_autofree char *json_path = NULL;
  g_autofree char *names = NULL;

  ck_assert_msg(dir != NULL, "%s", error ? error->message : "");
  missing = g_build_filename(dir, "missing", "out.csv", NULL);
  assert_write_fails(missing, FALSE, dir, "");
  assert_write_fails(missing, TRUE, dir, "");
  /* rename() onto a folder fails after the temporary file is written. */
  sub = g_build_filename(dir, "sub", NULL);
  ck_assert_int_eq(g_mkdir(sub, 0700), 0);
  assert_write_fails(sub, FALSE, dir, "sub");
  assert_write_fails(sub, TRUE, dir, "sub");
  ck_assert(g_file_test(sub, G_FILE_TEST_IS_DIR));

  csv_path = g_build_filename(dir, "out.csv", NULL);
  json_path = g_build_filename(dir, "out.json", NULL);
  ck_assert(trc_coll_csv_write(csv_path, &info_allreduce, rows, 2, &error));
  ck_assert(trc_coll_json_write(json_path, &info_allreduce, rows, 2, &error));
  ck_assert(trc_coll_csv_write(csv_path, &info_allreduce, rows, 1, &error));
  ck_assert(trc_coll_json_write(json_path, &info_allreduce, rows, 1, &error));
  {
    g_autofree char *got = NULL;
    g_autofree char *want = trc_coll_csv(&info_allreduce, rows, 1);

    ck_assert(g_file_get_contents(csv_path, &got, NULL, NULL));
    ck_assert_str_eq(got, want);
    g_clear_pointer(&got, g_free);
    g_clear_pointer(&want, g_free);
    want = trc_coll_json(&info_allreduce, rows, 1);
    ck_assert(g_file_get_contents(json_path, &got, NULL, NULL));
    ck_assert_str_eq(got, want);
  }
  names = dir_names(dir);
  ck_assert_str_eq(names, "out.csv out.json sub");

  ck_assert_int_eq(g_unlink(csv_path), 0);
  ck_assert_int_eq(g_unlink(json_path), 0);
  ck_assert_int_eq(g_rmdir(sub), 0);
  ck_assert_int_eq(g_rmdir(dir), 0);
}
END_TEST

Suite *suite_collresults(void)
{
  Suite *s = suite_create("collresults");
  TCase *tc = tcase_create("collresults");

  tcase_add_test(tc, test_table_exact);
  tcase_add_test(tc, test_table_columns);
  tcase_add_test(tc, test_table_number_formats);
  tcase_add_test(tc, test_table_root_and_empty);
  tcase_add_test(tc, test_csv);
  tcase_add_test(tc, test_json);
  tcase_add_test(tc, test_write);
  suite_add_tcase(s, tc);
  return s;
}
