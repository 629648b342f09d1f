/* What the text reports in traces/ (linkstats.c, collresults.c) share: CSV
 * text fields, quoted the same way in every report (numbers are printed
 * with printf, unquoted), and the atomic write of a finished report. */
#ifndef TRACES_CSVTEXT_H
#define TRACES_CSVTEXT_H

#include <glib.h>

/* Appends `text` to s as one CSV field: as it is, or, when it holds a
 * comma, a double quote or a line break, quoted by libcsv (surrounded by
 * double quotes, inner quotes doubled; RFC 4180).  NULL appends an empty
 * field. */
void trc_csv_append_text(GString *s, const char *text);

/* Writes text to path atomically: a temporary file next to it, synced and
 * renamed over it, so a failure leaves no partial file and an earlier file
 * untouched.  Takes text (g_free'd).  The error starts with "PATH: ". */
gboolean trc_write_text(const char *path, char *text, GError **error);

#endif /* TRACES_CSVTEXT_H */
