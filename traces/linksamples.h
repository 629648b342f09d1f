/* TrcLinkSampler: each fabric channel's utilization over time, sampled by
 * engine events while a simulation runs, for the links that were hottest.
 *
 * Every `interval` ps the sampler reads each channel's wire bytes
 * (sim_transport_channel_stats, exact at any instant on the flow and
 * packet transports) and keeps what each carried since the last sample.
 * It reschedules itself while the run has anything left (transfers in
 * flight or other events pending), so the engine still runs dry and
 * stops: the last sample is the first tick at or after the run's end.
 * Sampling only reads, so simulated times do not change.
 *
 * Hot links: channels ranked by wire bytes over the whole run (ties: the
 * lower channel id first).  Utilization of interval [t0, t1) = wire bytes
 * in it / (rate_Bps x (t1 - t0)), the last interval cut at the run's end:
 * 0 to 1 on the flow and packet transports.
 *
 * The CSV (docs/timeline.md): time_us,channel,src,dst,link,utilization;
 * time_us is the interval's start; rows by interval, then hottest first. */
#ifndef TRACES_LINKSAMPLES_H
#define TRACES_LINKSAMPLES_H

#include <glib.h>

#include "sim/transport.h"
#include "topologies/system.h"
#include "traces/timeline.h"

typedef struct TrcLinkSampler TrcLinkSampler;

/* Samples t's channels every interval_ps (> 0) from the engine's now on
 * (the transport must outlive the run; the sampler may outlive both). */
TrcLinkSampler *trc_link_sampler_new(SimEngine *e, const SimTransport *t,
                                     SimTime interval_ps);
void trc_link_sampler_free(TrcLinkSampler *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TrcLinkSampler, trc_link_sampler_free)

/* Sampling stops after this many intervals (each reads every channel):
 * a run that lasts longer is truncated, and says so. */
#define TRC_LINK_SAMPLES_MAX_INTERVALS 1000000u
gboolean trc_link_sampler_truncated(const TrcLinkSampler *s);

/* Intervals sampled so far. */
guint trc_link_sampler_n_samples(const TrcLinkSampler *s);

/* The k hottest channels that carried bytes (k = 0: all of them), hottest
 * first; g_free the array, *n gets its length. */
SimChannelId *trc_link_sampler_hottest(const TrcLinkSampler *s, guint32 k,
                                       guint32 *n);

/* The CSV of the k hottest channels (0: all) over sys's fabric for a run
 * that ended at `end` (> 0). */
char *trc_link_samples_csv(const TrcLinkSampler *s, const TopoSystem *sys,
                           SimTime end, guint32 k);

/* The same utilizations as counter tracks of process pid of tl, one
 * counter per channel named "SRC->DST LINK", a value per interval and 0
 * at the run's end. */
void trc_link_samples_timeline(const TrcLinkSampler *s, const TopoSystem *sys,
                               SimTime end, guint32 k, TrcTimeline *tl,
                               guint32 pid);

#endif /* TRACES_LINKSAMPLES_H */
