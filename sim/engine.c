/* SimEngine: event loop over SimQueue with a kind table and pooled
 * cancellation handles; see sim/engine.h.
 *
 * Invariants: now >= sim_queue_floor(queue), so every event scheduled at or
 * after now can be pushed; live == entries in the queue that are neither run
 * nor cancelled; cancelled_queued == cancelled entries still in the queue,
 * each holding its handle (state CANCELLED) until it is dropped. */
#include "sim/engine.h"

#include <stddef.h>
#include <string.h>

#include "sim/interrupt.h"

#include "sim/pool.h"
#include "sim/queue.h"

/* Compact the queue when this many cancelled entries wait in it and they
 * outnumber the live ones. */
#define COMPACT_MIN_CANCELLED 4096

enum { HANDLE_PENDING = 1, HANDLE_CANCELLED = 2 };

/* A cancellation handle.  While free, SimPool keeps its link in `state`;
 * `gen` survives and is bumped at every release, so stale ids are refused. */
typedef struct {
  guint32 state;
  guint32 gen;
} SimHandle;

typedef struct {
  SimHandlerFn fn;
  void *ctx;
  char *name;
} SimKindEntry;

struct SimEngine {
  SimPool handles; /* of SimHandle */
  SimKindEntry *kinds;
  guint32 n_kinds;
  guint32 kinds_cap;
  SimTime now;
  guint64 executed;
  guint64 live;
  guint64 cancelled_queued;
  guint64 compactions;
  gboolean running;
  gboolean stop_requested;
  gboolean overflow; /* an event past SIM_TIME_HORIZON: the run ends */
  /* last: sim_engine_new zeroes what is before it, sim_queue_init the
   * queue */
  SimQueue queue;
};

G_STATIC_ASSERT(offsetof(SimEngine, queue) + sizeof(SimQueue) ==
                sizeof(SimEngine));

SimEngine *sim_engine_new(void)
{
  /* not g_new0: sim_queue_init zeroes the queue (128 KiB of buckets),
   * which need not be zeroed twice */
  SimEngine *e = g_new(SimEngine, 1);

  memset(e, 0, offsetof(SimEngine, queue));
  sim_queue_init(&e->queue);
  sim_pool_init(&e->handles, sizeof(SimHandle), 10);
  return e;
}

void sim_engine_free(SimEngine *engine)
{
  if (!engine)
    return;
  g_assert(!engine->running);
  sim_queue_clear(&engine->queue);
  sim_pool_clear(&engine->handles);
  for (guint32 i = 0; i < engine->n_kinds; i++)
    g_free(engine->kinds[i].name);
  g_free(engine->kinds);
  g_free(engine);
}

SimKind sim_engine_register(SimEngine *engine, const char *name,
                            SimHandlerFn fn, void *ctx)
{
  g_assert(fn != NULL && name != NULL);
  g_assert(engine->n_kinds < G_MAXUINT32);
  if (engine->n_kinds == engine->kinds_cap) {
    engine->kinds_cap = engine->kinds_cap ? engine->kinds_cap * 2 : 16;
    engine->kinds = g_renew(SimKindEntry, engine->kinds, engine->kinds_cap);
  }
  engine->kinds[engine->n_kinds] =
      (SimKindEntry){.fn = fn, .ctx = ctx, .name = g_strdup(name)};
  return engine->n_kinds++;
}

const char *sim_engine_kind_name(const SimEngine *engine, SimKind kind)
{
  g_assert(kind < engine->n_kinds);
  return engine->kinds[kind].name;
}

static inline SimHandle *engine_handle(const SimEngine *engine, guint32 slot)
{
  return sim_pool_at(&engine->handles, slot);
}

static inline void engine_push(SimEngine *engine, SimTime when, SimKind kind,
                               guint64 data, guint32 tag)
{
  SimQueueEntry entry = {.time = when, .data = data, .kind = kind, .tag = tag};

  g_assert(when >= engine->now); /* scheduling into the past is a bug */
  g_assert(kind < engine->n_kinds);
  /* past the horizon: a run longer than ifsim simulates; it ends
   * (SIM_RUN_OVERFLOW) before any time could wrap */
  if (G_UNLIKELY(when > SIM_TIME_HORIZON)) {
    engine->overflow = TRUE;
    engine->stop_requested = TRUE;
    return;
  }
  sim_queue_push(&engine->queue, &entry);
  engine->live++;
}

void sim_engine_schedule(SimEngine *engine, SimTime when, SimKind kind,
                         guint64 data)
{
  engine_push(engine, when, kind, data, SIM_POOL_NIL);
}

void sim_engine_schedule_in(SimEngine *engine, SimTime delay, SimKind kind,
                            guint64 data)
{
  engine_push(engine,
              delay > SIM_TIME_HORIZON ? SIM_TIME_HORIZON + 1
                                       : engine->now + delay,
              kind, data, SIM_POOL_NIL);
}

SimEventId sim_engine_schedule_cancellable(SimEngine *engine, SimTime when,
                                           SimKind kind, guint64 data)
{
  guint32 slot = sim_pool_alloc(&engine->handles);
  SimHandle *h = engine_handle(engine, slot);

  if (h->gen == 0) /* never used: SimPool zero-fills new items */
    h->gen = 1;
  h->state = HANDLE_PENDING;
  engine_push(engine, when, kind, data, slot);
  return ((SimEventId)h->gen << 32) | slot;
}

static inline void engine_release_handle(SimEngine *engine, guint32 slot)
{
  SimHandle *h = engine_handle(engine, slot);

  h->gen = h->gen == G_MAXUINT32 ? 1 : h->gen + 1;
  sim_pool_free_item(&engine->handles, slot, h);
}

/* Compaction filter: drops cancelled entries and releases their handles. */
static gboolean engine_keep_entry(const SimQueueEntry *entry, void *ctx)
{
  SimEngine *engine = ctx;

  if (entry->tag == SIM_POOL_NIL ||
      engine_handle(engine, entry->tag)->state != HANDLE_CANCELLED)
    return TRUE;
  engine_release_handle(engine, entry->tag);
  return FALSE;
}

gboolean sim_engine_cancel(SimEngine *engine, SimEventId id)
{
  guint32 slot = (guint32)(id & G_MAXUINT32);
  guint32 gen = (guint32)(id >> 32);
  SimHandle *h;

  if (gen == 0 || slot >= engine->handles.created)
    return FALSE;
  h = engine_handle(engine, slot);
  if (h->gen != gen || h->state != HANDLE_PENDING)
    return FALSE;
  h->state = HANDLE_CANCELLED;
  engine->live--;
  engine->cancelled_queued++;
  if (engine->cancelled_queued >= COMPACT_MIN_CANCELLED &&
      engine->cancelled_queued > engine->live) {
    engine->cancelled_queued -=
        sim_queue_compact(&engine->queue, engine_keep_entry, engine);
    engine->compactions++;
  }
  return TRUE;
}

/* Events between two looks at the interrupt flag: a load and a branch per
 * 4096 events, and a Ctrl-C answered within a millisecond or so. */
#define INTERRUPT_POLL_MASK 4095u

static SimRunStatus engine_loop(SimEngine *engine, SimTime limit)
{
  SimQueueEntry ev;

  g_assert(!engine->running); /* handlers must not re-enter the loop */
  engine->running = TRUE;
  while (!engine->stop_requested &&
         sim_queue_pop_until(&engine->queue, limit, &ev)) {
    const SimKindEntry *k;

    /* Set even for a dropped entry: the queue's floor is now ev.time. */
    engine->now = ev.time;
    if (ev.tag != SIM_POOL_NIL) {
      gboolean cancelled =
          engine_handle(engine, ev.tag)->state == HANDLE_CANCELLED;
      engine_release_handle(engine, ev.tag);
      if (cancelled) {
        engine->cancelled_queued--;
        continue;
      }
    }
    engine->live--;
    engine->executed++;
    k = &engine->kinds[ev.kind];
    k->fn(engine, k->ctx, ev.data);
    if ((engine->executed & INTERRUPT_POLL_MASK) == 0 && sim_interrupted()) {
      engine->running = FALSE;
      return SIM_RUN_INTERRUPTED;
    }
  }
  engine->running = FALSE;
  if (engine->overflow)
    return SIM_RUN_OVERFLOW; /* stays stopped: the run cannot go on */
  if (engine->stop_requested) {
    engine->stop_requested = FALSE;
    return SIM_RUN_STOPPED;
  }
  return SIM_RUN_EMPTY;
}

SimRunStatus sim_engine_run(SimEngine *engine)
{
  return engine_loop(engine, SIM_TIME_MAX);
}

SimRunStatus sim_engine_run_until(SimEngine *engine, SimTime limit)
{
  SimRunStatus st;

  g_assert(limit >= engine->now);
  st = engine_loop(engine, limit);
  if (st == SIM_RUN_STOPPED || st == SIM_RUN_INTERRUPTED ||
      st == SIM_RUN_OVERFLOW)
    return st;
  engine->now = limit;
  return engine->live == 0 ? SIM_RUN_EMPTY : SIM_RUN_LIMIT;
}

void sim_engine_stop(SimEngine *engine)
{
  engine->stop_requested = TRUE;
}

SimTime sim_engine_now(const SimEngine *engine)
{
  return engine->now;
}

guint64 sim_engine_events_executed(const SimEngine *engine)
{
  return engine->executed;
}

guint64 sim_engine_pending(const SimEngine *engine)
{
  return engine->live;
}

gboolean sim_engine_next_time(const SimEngine *engine, SimTime *out)
{
  return sim_queue_peek_time(&engine->queue, out);
}

void sim_engine_stats(const SimEngine *engine, SimEngineStats *out)
{
  out->queued_entries = sim_queue_size(&engine->queue);
  out->cancelled_queued = engine->cancelled_queued;
  out->blocks_in_use = engine->queue.blocks.in_use;
  out->blocks_created = engine->queue.blocks.created;
  out->handles_in_use = engine->handles.in_use;
  out->handles_created = engine->handles.created;
  out->compactions = engine->compactions;
}
