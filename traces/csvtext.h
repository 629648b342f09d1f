/* Text fields of the CSV reports in traces/ (linkstats.c, collresults.c):
 * one helper so that every report quotes the same way.  Numbers are not
 * passed through it: the reports print them with printf, unquoted. */
#ifndef TRACES_CSVTEXT_H
#define TRACES_CSVTEXT_H

#include <glib.h>

/* Appends `text` to s as one CSV field: as it is, or, when it holds a
 * comma, a double quote or a line break, quoted by libcsv (surrounded by
 * double quotes, inner quotes doubled; RFC 4180).  NULL appends an empty
 * field. */
void trc_csv_append_text(GString *s, const char *text);

#endif /* TRACES_CSVTEXT_H */
