/* TrcTimeline: a Chrome / Perfetto trace (JSON "Trace Event Format") built
 * in memory and written at once, for ui.perfetto.dev or chrome://tracing.
 *
 * Events: "M" metadata (process_name, process_sort_index, thread_name,
 * thread_sort_index), "X" complete slices and "C" counters.  Timestamps
 * are microseconds written with 6 decimals from integer picoseconds, so
 * they are exact; the text is the same for the same calls (events sorted:
 * metadata by pid and tid, slices by pid, tid, start, longer first, then
 * the order added; counters by pid, name, time).
 *
 * Well-nesting.  On one (pid, tid) track the viewers need complete slices
 * nested or disjoint.  Slices that overlap partially (pipelined transfers
 * of one channel) are moved to overflow tracks of the thread: slices are
 * taken in the order above and each goes to the first of the thread's
 * tracks (the thread itself, then its overflow tracks in creation order)
 * where it nests in or follows the open slices; a new overflow track is
 * made when none fits.  Overflow track k (k = 2, 3, ...) gets a tid past
 * every tid of its process and the name "NAME #k" ("tid T #k" for a thread
 * without a name), and sorts right after its thread. */
#ifndef TRACES_TIMELINE_H
#define TRACES_TIMELINE_H

#include <glib.h>

#include "sim/time.h"

typedef struct TrcTimeline TrcTimeline;

/* Most events a timeline should hold: about 200 MB of JSON, what
 * ui.perfetto.dev still opens in a browser tab. */
#define TRC_TIMELINE_MAX_EVENTS 2000000

TrcTimeline *trc_timeline_new(void);
void trc_timeline_free(TrcTimeline *tl);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TrcTimeline, trc_timeline_free)

/* Names process pid ("M" process_name) and places it (process_sort_index,
 * lower first).  A second call for the same pid replaces the first. */
void trc_timeline_process(TrcTimeline *tl, guint32 pid, const char *name,
                          gint32 sort_index);

/* Names thread tid of pid ("M" thread_name). */
void trc_timeline_thread(TrcTimeline *tl, guint32 pid, guint32 tid,
                         const char *name);

/* A complete slice [start_ps, end_ps] (end >= start) on thread tid of pid;
 * cat may be NULL; args_json, when not NULL, is a JSON object ("{...}")
 * written verbatim as the slice's args. */
void trc_timeline_slice(TrcTimeline *tl, guint32 pid, guint32 tid,
                        const char *name, const char *cat, SimTime start_ps,
                        SimTime end_ps, const char *args_json);

/* Counter `name` of pid takes `value` (finite) at t_ps ("C" event, args
 * {"value": v}). */
void trc_timeline_counter(TrcTimeline *tl, guint32 pid, const char *name,
                          SimTime t_ps, double value);

/* A string in the trace's "otherData" object (the run's command, ...). */
void trc_timeline_other(TrcTimeline *tl, const char *key, const char *value);

/* Events so far (metadata, slices, counters): what the JSON will hold,
 * but for the overflow tracks' metadata. */
guint64 trc_timeline_n_events(const TrcTimeline *tl);

/* The trace: {"traceEvents":[...],"displayTimeUnit":"ns",
 * "otherData":{...}}, newline-terminated; g_free it. */
char *trc_timeline_json(TrcTimeline *tl);

/* Appends s to out as a JSON string, quotes included: '"', '\\' and
 * control characters escaped, invalid UTF-8 replaced by U+FFFD. */
void trc_json_append_string(GString *out, const char *s);

/* Checks a trace text: JSON holding a "traceEvents" array whose "X" events
 * have numeric ts and dur >= 0, and, on every (pid, tid), slices nested or
 * disjoint.  n_pids (may be NULL) gets the number of distinct pids of "X"
 * events.  Fails with a message naming the first offending event.  For
 * tests and for checking a file a user has. */
gboolean trc_timeline_check(const char *json, guint *n_pids, GError **error);

#endif /* TRACES_TIMELINE_H */
