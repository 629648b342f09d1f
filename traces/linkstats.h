/* Per-link utilization reports: what each channel of a system carried
 * during a run, as CSV (one row per channel that carried bytes).
 *
 * Columns (docs/output.md): channel, src, dst, link, rate_GBps,
 * payload_bytes, wire_bytes, busy_us, busy_fraction, utilization,
 * peak_flows.  utilization = wire bytes / (rate x run time): the average
 * load over the whole run; busy_fraction = time with a flow on it / run
 * time. */
#ifndef TRACES_LINKSTATS_H
#define TRACES_LINKSTATS_H

#include <glib.h>

#include "sim/transport.h"
#include "topologies/system.h"

/* Writes the report of transport t over sys's fabric for a run that ended
 * at `end` (> 0) to `path`, atomically (a temporary file renamed: a failed
 * write leaves nothing).  all: also rows for channels that carried
 * nothing.  Fails with a GFileError naming the file. */
gboolean trc_links_csv_write(const char *path, const TopoSystem *sys,
                             const SimTransport *t, SimTime end, gboolean all,
                             GError **error);

/* The same text, for callers that print it. */
char *trc_links_csv(const TopoSystem *sys, const SimTransport *t, SimTime end,
                    gboolean all);

/* One comment line naming the n channels of highest utilization (ties:
 * lower channel id), for a table's trailer: "# hottest links: A->B LINK
 * 97.2% utilized, ...\n"; "# hottest links: none carried bytes\n" when
 * no channel carried anything.  g_free it. */
char *trc_links_hottest(const TopoSystem *sys, const SimTransport *t,
                        SimTime end, guint n);

#endif /* TRACES_LINKSTATS_H */
