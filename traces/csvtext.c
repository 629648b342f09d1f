/* CSV text fields; see traces/csvtext.h.  libcsv's csv_write() always
 * quotes, so plain text is copied as it is and only text that needs it
 * goes through libcsv: a reader sees `NVLink4`, not `"NVLink4"`. */
#include "traces/csvtext.h"

#include <csv.h>
#include <string.h>

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
