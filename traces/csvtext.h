/* What the text reports in traces/ (linkstats.c, collresults.c) share: CSV
 * text fields, quoted the same way in every report (numbers are printed
 * with printf, unquoted).  Reports are written through traces/output.h. */
#ifndef TRACES_CSVTEXT_H
#define TRACES_CSVTEXT_H

#include <glib.h>

/* Appends `text` to s as one CSV field: as it is, or, when it holds a
 * comma, a double quote or a line break, quoted by libcsv (surrounded by
 * double quotes, inner quotes doubled; RFC 4180).  NULL appends an empty
 * field. */
void trc_csv_append_text(GString *s, const char *text);

#endif /* TRACES_CSVTEXT_H */
