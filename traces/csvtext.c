/* CSV text fields and rows; see traces/csvtext.h.  libcsv's csv_write()
 * always quotes, so plain text is copied as it is and only text that needs
 * it goes through libcsv: a reader sees `NVLink4`, not `"NVLink4"`.
 * Reading splits the text into lines first (a field cannot span lines) and
 * gives each to libcsv, so every row keeps its line number. */
#include "traces/csvtext.h"

#include <csv.h>
#include <string.h>

#include "sim/error.h"
#include "traces/error.h"

void trc_csv_append_text(GString *s, const char *text)
{
  size_t len;

  if (text == NULL)
    return;
  len = strlen(text);
  if (strpbrk(text, ",\"\r\n") == NULL) {
    g_string_append_len(s, text, (gssize)len);
  } else {
    /* Worst case: every byte a quote (doubled) plus the two outer ones. */
    char *buf = g_malloc(2 * len + 3);
    size_t n = csv_write(buf, 2 * len + 2, text, len);

    g_assert(n <= 2 * len + 2);
    g_string_append_len(s, buf, (gssize)n);
    g_free(buf);
  }
}

void trc_csv_append_channel(GString *s, const SimFabric *f, SimChannelId c)
{
  const SimChannel *ch = sim_fabric_channel(f, c);

  g_string_append_printf(s, "%u,", c);
  trc_csv_append_text(s, sim_fabric_node_name(f, ch->src));
  g_string_append_c(s, ',');
  trc_csv_append_text(s, sim_fabric_node_name(f, ch->dst));
}

/* --- reading ------------------------------------------------------------ */

/* No table ifsim reads has this many columns; a row with more (a huge
 * line of commas) is refused without holding its fields. */
#define MAX_FIELDS 4096

typedef struct {
  GPtrArray *fields;
  guint dropped; /* fields past MAX_FIELDS */
} RowBuild;

static void on_field(void *data, size_t len, void *user)
{
  RowBuild *b = user;

  if (b->fields->len >= MAX_FIELDS)
    b->dropped++;
  else
    g_ptr_array_add(b->fields, g_strndup(data ? data : "", len));
}

gboolean trc_csv_split(const char *name, const char *text, gsize len,
                       TrcCsv *out, GError **error)
{
  struct csv_parser p;
  const char *at = text, *end = text + len;
  guint line = 0;

  out->rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
  out->lines = g_array_new(FALSE, FALSE, sizeof(guint));
  if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0)
    g_error("csv_init: out of memory");
  /* libcsv grows a field's buffer by blk_size bytes at a time (128 by
   * default): a 10 MB field meant 80,000 reallocs, quadratic where realloc
   * copies (ASan: 17 minutes).  64 KiB steps: 160 of them. */
  csv_set_blk_size(&p, 64 * 1024);
  while (at < end) {
    const char *nl = memchr(at, '\n', (size_t)(end - at));
    const char *stop = nl ? nl : end;
    gsize n = (gsize)(stop - at);
    RowBuild b;
    gboolean parsed;

    line++;
    if (n > 0 && at[n - 1] == '\r')
      n--;
    {
      gsize lead = 0;
      while (lead < n && (at[lead] == ' ' || at[lead] == '\t'))
        lead++;
      if (lead == n || at[lead] == '#') {
        at = stop + (nl != NULL);
        continue;
      }
    }
    b.fields = g_ptr_array_new_with_free_func(g_free);
    b.dropped = 0;
    parsed = csv_parse(&p, at, n, on_field, NULL, &b) == n &&
             csv_fini(&p, on_field, NULL, &b) == 0;
    if (!parsed || b.dropped > 0) {
      if (!parsed)
        g_set_error(error, TRC_ERROR, TRC_ERROR_PARSE,
                    "%s:%u: not a CSV row (%s): expected fields separated "
                    "by commas, a quote closed on its line",
                    name, line, csv_strerror(csv_error(&p)));
      else
        g_set_error(error, TRC_ERROR, TRC_ERROR_PARSE,
                    "%s:%u: %u fields, more than any table ifsim reads (%u "
                    "at most)",
                    name, line, b.fields->len + b.dropped, MAX_FIELDS);
      g_ptr_array_free(b.fields, TRUE);
      csv_free(&p);
      trc_csv_clear(out);
      return FALSE;
    }
    g_ptr_array_add(b.fields, NULL);
    g_ptr_array_add(out->rows, g_ptr_array_free(b.fields, FALSE));
    g_array_append_val(out->lines, line);
    at = stop + (nl != NULL);
  }
  csv_free(&p);
  return TRUE;
}

void trc_csv_clear(TrcCsv *c)
{
  g_clear_pointer(&c->rows, g_ptr_array_unref);
  g_clear_pointer(&c->lines, g_array_unref);
}
