/* CSV text fields and rows; see traces/csvtext.h.  libcsv's csv_write()
 * always quotes, so plain text is copied as it is and only text that needs
 * it goes through libcsv: a reader sees `NVLink4`, not `"NVLink4"`.
 * Reading splits the text into lines first (a field cannot span lines) and
 * gives each to libcsv, so every row keeps its line number. */
#include "traces/csvtext.h"

#include <csv.h>
#include <string.h>

#include "sim/error.h"
#include "sim/input.h"
#include "traces/error.h"

void trc_csv_append_comment(GString *s, const char *text)
{
  for (const char *c = text ? text : ""; *c; c++)
    g_string_append_c(s, *c == '\n' || *c == '\r' ? ' ' : *c);
}

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

/* A row's fields are gathered in one buffer, then the row is made in one
 * allocation (its pointers, then its text), which g_free frees: a
 * million rows of 13 fields are a million allocations, not 14 million. */
typedef struct {
  GString *text;  /* the fields, each ended by its NUL */
  GArray *starts; /* gsize: where each begins in text */
  guint dropped;  /* fields past MAX_FIELDS */
} RowBuild;

static void on_field(void *data, size_t len, void *user)
{
  RowBuild *b = user;
  gsize start = b->text->len;

  if (b->starts->len >= MAX_FIELDS) {
    b->dropped++;
    return;
  }
  /* as g_strndup: the field ends at a NUL inside it */
  if (data)
    g_string_append_len(b->text, data, (gssize)strnlen(data, len));
  g_string_append_c(b->text, '\0');
  g_array_append_val(b->starts, start);
}

static GStrv row_make(const RowBuild *b)
{
  guint n = b->starts->len;
  char **row = g_malloc((n + 1) * sizeof(char *) + b->text->len);
  char *text = (char *)(row + n + 1);

  memcpy(text, b->text->str, b->text->len);
  for (guint i = 0; i < n; i++)
    row[i] = text + g_array_index(b->starts, gsize, i);
  row[n] = NULL;
  return row;
}

/* A line without a quote, split as libcsv splits it (its fields trimmed of
 * spaces and tabs) without its per-byte state machine: most rows of a
 * million-row file. */
static void split_plain(const char *at, gsize n, RowBuild *b)
{
  const char *end = at + n;

  for (;;) {
    const char *comma = memchr(at, ',', (gsize)(end - at));
    const char *stop = comma ? comma : end, *first = at, *last = stop;

    while (first < last && (*first == ' ' || *first == '\t'))
      first++;
    while (last > first && (last[-1] == ' ' || last[-1] == '\t'))
      last--;
    on_field((void *)first, (size_t)(last - first), b);
    if (!comma)
      break;
    at = comma + 1;
  }
}

gboolean trc_csv_split(const char *name, const char *text, gsize len,
                       TrcCsv *out, GError **error)
{
  struct csv_parser p;
  const char *at = text, *end = text + len;
  guint line = 0;
  RowBuild b;

  out->rows = NULL;
  out->lines = NULL;
  if (!sim_input_check_text(name, text, len, error))
    return FALSE;
  /* each row one block (row_make): g_free, never g_strfreev */
  out->rows = g_ptr_array_new_with_free_func(g_free);
  b.text = g_string_sized_new(256);
  b.starts = g_array_new(FALSE, FALSE, sizeof(gsize));
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
    g_string_truncate(b.text, 0);
    g_array_set_size(b.starts, 0);
    b.dropped = 0;
    if (memchr(at, '"', n) == NULL) {
      split_plain(at, n, &b);
      parsed = TRUE;
    } else {
      parsed = csv_parse(&p, at, n, on_field, NULL, &b) == n &&
               csv_fini(&p, on_field, NULL, &b) == 0;
    }
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
                    name, line, b.starts->len + b.dropped, MAX_FIELDS);
      g_string_free(b.text, TRUE);
      g_array_free(b.starts, TRUE);
      csv_free(&p);
      trc_csv_clear(out);
      return FALSE;
    }
    g_ptr_array_add(out->rows, row_make(&b));
    g_array_append_val(out->lines, line);
    at = stop + (nl != NULL);
  }
  csv_free(&p);
  g_string_free(b.text, TRUE);
  g_array_free(b.starts, TRUE);
  return TRUE;
}

void trc_csv_clear(TrcCsv *c)
{
  g_clear_pointer(&c->rows, g_ptr_array_unref);
  g_clear_pointer(&c->lines, g_array_unref);
}
