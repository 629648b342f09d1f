/* SimEngine: the discrete-event loop.
 *
 * A model plugs in as a table of event kinds (as ROSS's tw_lptype): it
 * registers a handler and its context once, then schedules events as
 * (time, kind, 64-bit payload), stored inline in the queue.  Dispatch is an
 * array index and an indirect call: no allocation, no hashing, no I/O.
 *
 * Order: events run by time, ties by scheduling order (FIFO), so runs are
 * deterministic.  Scheduling before now() is a bug (asserted).
 *
 * Cancellation: events scheduled with sim_engine_schedule_cancellable get a
 * SimEventId backed by a pooled handle; cancelling marks it and the queue
 * entry is dropped when reached, or earlier by compaction once cancelled
 * entries outnumber live ones (so memory stays within twice the live set).
 * Plain events carry no handle and cost nothing extra at dispatch. */
#ifndef SIM_ENGINE_H
#define SIM_ENGINE_H

#include <glib.h>
#include <stdint.h>

#include "sim/time.h"

typedef struct SimEngine SimEngine;

/* An event kind: index into the engine's handler table. */
typedef guint32 SimKind;

/* Identifies one cancellable event; 0 is never a valid id. */
typedef guint64 SimEventId;

#define SIM_EVENT_ID_NONE ((SimEventId)0)

/* Runs an event.  ctx is the pointer given at registration, data the
 * event's payload.  The handler may schedule, cancel and stop. */
typedef void (*SimHandlerFn)(SimEngine *engine, void *ctx, guint64 data);

typedef enum {
  SIM_RUN_EMPTY,       /* no pending event is left */
  SIM_RUN_LIMIT,       /* run_until reached its time limit */
  SIM_RUN_STOPPED,     /* a handler called sim_engine_stop */
  SIM_RUN_INTERRUPTED, /* SIGINT/SIGTERM (sim/interrupt.h); resumable */
  SIM_RUN_OVERFLOW,    /* an event was scheduled past SIM_TIME_HORIZON (or its
                       time wrapped): the run cannot go on */
} SimRunStatus;

SimEngine *sim_engine_new(void);
void sim_engine_free(SimEngine *engine);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SimEngine, sim_engine_free)

/* Adds an event kind.  name (copied) appears in diagnostics; fn must not be
 * NULL.  Kinds are numbered 0, 1, 2, ... in registration order. */
SimKind sim_engine_register(SimEngine *engine, const char *name,
                            SimHandlerFn fn, void *ctx);

const char *sim_engine_kind_name(const SimEngine *engine, SimKind kind);

/* Schedules an event at absolute time `when` >= now. */
void sim_engine_schedule(SimEngine *engine, SimTime when, SimKind kind,
                         guint64 data);

/* Schedules an event `delay` after now (asserts no overflow). */
void sim_engine_schedule_in(SimEngine *engine, SimTime delay, SimKind kind,
                            guint64 data);

/* As sim_engine_schedule, returning an id for sim_engine_cancel. */
SimEventId sim_engine_schedule_cancellable(SimEngine *engine, SimTime when,
                                           SimKind kind, guint64 data);

/* Cancels a pending event.  Returns FALSE, changing nothing, if id has
 * already run, was already cancelled or is SIM_EVENT_ID_NONE. */
gboolean sim_engine_cancel(SimEngine *engine, SimEventId id);

/* Runs events until none is pending or a handler stops the engine.  now()
 * is then the time of the last event taken from the queue (run, or dropped
 * because cancelled). */
SimRunStatus sim_engine_run(SimEngine *engine);

/* Runs every event with time <= limit (limit >= now), unless stopped.  When
 * not stopped, now() is limit afterwards, so events may then be scheduled
 * from limit on.  Returns SIM_RUN_EMPTY if nothing is pending afterwards. */
SimRunStatus sim_engine_run_until(SimEngine *engine, SimTime limit);

/* Makes the running sim_engine_run[_until] return after the current
 * handler.  Outside a run, makes the next run return at once. */
void sim_engine_stop(SimEngine *engine);

SimTime sim_engine_now(const SimEngine *engine);

/* Handlers run since creation (cancelled events do not count). */
guint64 sim_engine_events_executed(const SimEngine *engine);

/* Events scheduled and neither run nor cancelled. */
guint64 sim_engine_pending(const SimEngine *engine);

/* Time of the earliest pending event, live or cancelled-not-yet-dropped.
 * Returns FALSE when nothing is queued. */
gboolean sim_engine_next_time(const SimEngine *engine, SimTime *out);

/* Memory statistics, for tests of pool reuse and for reports. */
typedef struct {
  guint64 queued_entries;   /* live + cancelled entries in the queue */
  guint64 cancelled_queued; /* cancelled entries not yet dropped */
  guint32 blocks_in_use;    /* queue blocks holding entries */
  guint32 blocks_created;   /* queue blocks ever allocated */
  guint32 handles_in_use;
  guint32 handles_created;
  guint64 compactions;
} SimEngineStats;

void sim_engine_stats(const SimEngine *engine, SimEngineStats *out);

#endif /* SIM_ENGINE_H */
