/* What the text reports in traces/ (linkstats.c, portstats.c,
 * collresults.c) share: CSV text fields, quoted the same way in every
 * report (numbers are printed with printf, unquoted), and the columns that
 * name a channel.  Reports are written through traces/output.h. */
#ifndef TRACES_CSVTEXT_H
#define TRACES_CSVTEXT_H

#include <glib.h>

#include "sim/fabric.h"

/* Appends `text` to s as one CSV field: as it is, or, when it holds a
 * comma, a double quote or a line break, quoted by libcsv (surrounded by
 * double quotes, inner quotes doubled; RFC 4180).  NULL appends an empty
 * field. */
void trc_csv_append_text(GString *s, const char *text);

/* Appends `text` (NULL: nothing) inside a "# ..." comment line: a line
 * break would end the comment, so it becomes a space. */
void trc_csv_append_comment(GString *s, const char *text);

/* Appends the fields `channel,src,dst` of channel c of f: its id and the
 * names of the nodes it leads from and to (the first columns of the
 * per-channel reports, so that they join). */
void trc_csv_append_channel(GString *s, const SimFabric *f, SimChannelId c);

/* Rows of CSV text, one per line: blank lines and lines starting with '#'
 * skipped, fields parsed by libcsv (quotes as RFC 4180; a field cannot
 * span lines), each row's 1-based line number kept.  Read by the
 * measurement importers (validate/) and the workload reader
 * (traces/workload.c). */
typedef struct {
  GPtrArray *rows; /* GStrv, each row one block: never g_strfreev it */
  GArray *lines;   /* guint */
} TrcCsv;

/* Splits text into rows.  Fails on text that is not text
 * (sim_input_check_text: a NUL, invalid UTF-8, a control character), a
 * line libcsv rejects (an unterminated quote) or a row of more than 4096
 * fields; the error names the file (`name`) and line.  On failure *out is
 * left cleared. */
gboolean trc_csv_split(const char *name, const char *text, gsize len,
                       TrcCsv *out, GError **error);
void trc_csv_clear(TrcCsv *c);

#endif /* TRACES_CSVTEXT_H */
