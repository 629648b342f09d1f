/* Reference-measurement CSV reader for tests; see tests/ref_data.h.  Uses
 * libcsv, as the importers will. */
#include "tests/ref_data.h"

#include <check.h>
#include <csv.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  GPtrArray *row; /* fields of the row being read */
  GPtrArray *rows;
} Reader;

static void on_field(void *data, size_t len, void *ctx)
{
  Reader *r = ctx;
  g_ptr_array_add(r->row, g_strndup(data ? data : "", len));
}

static void on_row(int term, void *ctx)
{
  Reader *r = ctx;
  (void)term;
  g_ptr_array_add(r->row, NULL);
  g_ptr_array_add(r->rows, g_ptr_array_free(r->row, FALSE));
  r->row = g_ptr_array_new();
}

RefTable *ref_table_load(const char *name)
{
  g_autofree char *path =
      g_build_filename(IFSIM_TEST_DATA_DIR, "reference", name, NULL);
  g_autofree char *text = NULL;
  gsize len = 0;
  struct csv_parser p;
  Reader r = {g_ptr_array_new(), g_ptr_array_new()};
  RefTable *t;

  ck_assert_msg(g_file_get_contents(path, &text, &len, NULL), "cannot read %s",
                path);
  ck_assert_int_eq(csv_init(&p, CSV_APPEND_NULL), 0);
  ck_assert_uint_eq(csv_parse(&p, text, len, on_field, on_row, &r), len);
  csv_fini(&p, on_field, on_row, &r);
  csv_free(&p);
  g_ptr_array_free(r.row, TRUE);
  ck_assert_uint_ge(r.rows->len, 2);
  t = g_new0(RefTable, 1);
  t->header = g_ptr_array_steal_index(r.rows, 0);
  g_ptr_array_set_free_func(r.rows, (GDestroyNotify)g_strfreev);
  t->rows = r.rows;
  return t;
}

void ref_table_free(RefTable *t)
{
  if (!t)
    return;
  g_ptr_array_free(t->rows, TRUE);
  g_strfreev(t->header);
  g_free(t);
}

static gboolean parse_number(const char *s, double *out)
{
  char *end = NULL;
  *out = g_ascii_strtod(s, &end);
  return *s && end && *end == '\0';
}

GArray *ref_numbers(const RefTable *t, const char *first, guint from)
{
  GArray *out = g_array_new(FALSE, FALSE, sizeof(double));

  for (guint i = 0; i < t->rows->len; i++) {
    GStrv row = t->rows->pdata[i];
    if (strcmp(row[0], first) != 0)
      continue;
    for (guint c = from; row[c]; c++) {
      double v;
      if (parse_number(row[c], &v))
        g_array_append_val(out, v);
    }
  }
  return out;
}

GArray *ref_p2p_offdiag(const RefTable *t, const char *matrix)
{
  GArray *out = g_array_new(FALSE, FALSE, sizeof(double));

  for (guint i = 0; i < t->rows->len; i++) {
    GStrv row = t->rows->pdata[i];
    guint gpu = (guint)atoi(row[2]);
    if (strcmp(row[0], matrix) != 0)
      continue;
    for (guint c = 3; row[c]; c++) {
      double v;
      if (c - 3 != gpu && parse_number(row[c], &v))
        g_array_append_val(out, v);
    }
  }
  return out;
}

double ref_lookup(const RefTable *t, guint key_col, const char *key, guint col)
{
  for (guint i = 0; i < t->rows->len; i++) {
    GStrv row = t->rows->pdata[i];
    double v;
    if (strcmp(row[key_col], key) == 0 && parse_number(row[col], &v))
      return v;
  }
  ck_abort_msg("no row with %s in column %u", key, key_col);
  return 0;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double ref_median(GArray *values)
{
  ck_assert_uint_gt(values->len, 0);
  qsort(values->data, values->len, sizeof(double), cmp_double);
  return g_array_index(values, double, values->len / 2);
}

double ref_min(GArray *values)
{
  double m = G_MAXDOUBLE;
  for (guint i = 0; i < values->len; i++)
    m = MIN(m, g_array_index(values, double, i));
  return m;
}

double ref_max(GArray *values)
{
  double m = -G_MAXDOUBLE;
  for (guint i = 0; i < values->len; i++)
    m = MAX(m, g_array_index(values, double, i));
  return m;
}
