/* Per-port reports of a packet-level run (sim/packet.h), as CSV with units
 * in the header (docs/transports.md lists the columns):
 *
 *   ports          one row per channel (the output port at its source)
 *                  that carried packets or whose link saw PFC pauses:
 *                  channel, src, dst, packets, payload_bytes, wire_bytes,
 *                  drops, ecn_marks, pauses_received (XOFFs src got from
 *                  dst on this channel), pauses_sent (XOFFs src sent to
 *                  dst: the reverse channel's pauses_received), paused_us,
 *                  credit_stalls, credit_stall_us, max_queue_bytes,
 *                  busy_us, utilization (wire bytes / (rate x run time),
 *                  as the link report's);
 *   queue samples  one row per sample (sim_packet_set_sampling): time_us,
 *                  channel, src, dst, queue_bytes.
 *
 * The writers take the counters as data, so they are tested without a
 * run; the _transport forms read them from a packet transport.  Texts are
 * returned for traces/output.h (TrcOutputs), which writes them atomically. */
#ifndef TRACES_PORTSTATS_H
#define TRACES_PORTSTATS_H

#include <glib.h>

#include "sim/packet.h"

/* The ports report of a run that ended at `end` (> 0); stats holds one
 * entry per channel of f.  Returns the text (g_free). */
char *trc_ports_csv(const SimFabric *f, const SimPortStats *stats, SimTime end);

/* The same, read from packet transport t (sim_transport_is_packet). */
char *trc_ports_csv_transport(const SimTransport *t, SimTime end);

/* The queue-depth samples, in the order given.  Returns the text. */
char *trc_queue_samples_csv(const SimFabric *f, const SimQueueSample *s,
                            gsize n);

/* The same, those packet transport t collected. */
char *trc_queue_samples_csv_transport(const SimTransport *t);

#endif /* TRACES_PORTSTATS_H */
