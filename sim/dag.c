/* SimDag: dependency counting over pooled task records; see sim/dag.h.
 *
 * A task id is (generation << 32 | slot).  A slot's generation is bumped
 * when its task is forgotten, so an old id no longer matches and reads as
 * done.  Each task counts what it waits for (`waiting`, plus one while it
 * is being added) and lists the tasks waiting for it: two inline, more in
 * pooled overflow blocks appended at a remembered tail (a plan's launch
 * task has every first body transfer waiting on it: walking the blocks on
 * each append made adding them quadratic).  When a task ends its
 * dependents' counts fall, and those reaching zero start, in the order
 * they were added. */
#include "sim/dag.h"

#include "sim/error.h"
#include "sim/pool.h"

#define INLINE_DEPS 2
#define BLOCK_DEPS 6

enum { TASK_WAITING = 1, TASK_RUNNING, TASK_DONE };

typedef struct {
  guint32 waiting; /* first: SimPool's free link while the slot is free */
  guint32 gen;     /* survives free; bumped then */
  guint16 state;
  guint16 copies; /* a transfer's SimTransfer.copies */
  guint32 n_paths;
  guint64 bytes;
  const SimPath *paths;
  const double *weights;
  double cap_Bps;
  SimTime delay_ps;
  SimTaskFn done;
  SimTaskFn started;
  void *ctx;
  guint64 user;
  SimTask dep[INLINE_DEPS]; /* tasks waiting for this one */
  guint32 n_dep;
  guint32 more; /* first overflow block, SIM_POOL_NIL if none */
  guint32 tail; /* last overflow block, when `more` is one */
} Task;

G_STATIC_ASSERT(sizeof(Task) <= 128); /* two cache lines */

typedef struct {
  guint32 next; /* first: free link; next block or SIM_POOL_NIL */
  guint32 n;
  SimTask dep[BLOCK_DEPS];
} DepBlock;

struct SimDag {
  SimEngine *engine;
  SimTransport *transport;
  SimKind delay_kind;
  SimPool tasks, blocks;
  GArray *stream_last; /* SimTask per stream */
  SimDagStats stats;
  guint64 alive;
};

/* The task pool's items: a Task in whole cache lines (two), 2^12 a
 * chunk. */
#define TASK_ITEM_SIZE ((sizeof(Task) + 63) & ~(gsize)63)
#define TASK_CHUNK_SHIFT 12

static inline Task *task_at(const SimDag *dag, guint32 slot)
{
  return sim_pool_at_fixed(&dag->tasks, slot, TASK_ITEM_SIZE, TASK_CHUNK_SHIFT);
}

/* The live task behind an id, or NULL when it is done or forgotten. */
static Task *task_live(const SimDag *dag, SimTask id)
{
  guint32 slot = (guint32)(id & G_MAXUINT32);
  Task *t;

  if (id == SIM_TASK_NONE || slot >= dag->tasks.created)
    return NULL;
  t = task_at(dag, slot);
  if (t->gen != (guint32)(id >> 32) || t->state == TASK_DONE)
    return NULL;
  return t;
}

static void add_dependent(SimDag *dag, Task *t, SimTask waiter)
{
  DepBlock *tail = NULL, *b;
  guint32 blk;

  if (t->n_dep < INLINE_DEPS) {
    t->dep[t->n_dep++] = waiter;
    return;
  }
  if (t->more != SIM_POOL_NIL) {
    tail = sim_pool_at(&dag->blocks, t->tail);
    if (tail->n < BLOCK_DEPS) {
      tail->dep[tail->n++] = waiter;
      return;
    }
  }
  /* Pool items never move, so `tail` stays valid across the alloc. */
  blk = sim_pool_alloc(&dag->blocks);
  if (tail)
    tail->next = blk;
  else
    t->more = blk;
  t->tail = blk;
  b = sim_pool_at(&dag->blocks, blk);
  b->next = SIM_POOL_NIL;
  b->n = 1;
  b->dep[0] = waiter;
}

/* Out of line, so that task_start keeps no state across a call when no
 * task has a start function. */
static G_GNUC_NO_INLINE void task_notify_start(SimDag *dag, const Task *t)
{
  t->started(t->ctx, t->user, sim_engine_now(dag->engine));
}

static void task_start(SimDag *dag, SimTask id, Task *t)
{
  t->state = TASK_RUNNING;
  if (t->n_paths > 0) {
    SimTransfer x = {.bytes = t->bytes,
                     .paths = t->paths,
                     .weights = t->weights,
                     .n_paths = t->n_paths,
                     .cap_Bps = t->cap_Bps,
                     .copies = t->copies,
                     .tag = id};
    sim_transport_start(dag->transport, &x);
  } else if (t->delay_ps != SIM_DELAY_EXTERNAL) {
    sim_engine_schedule_in(dag->engine, t->delay_ps, dag->delay_kind, id);
  }
  /* After the transport took it: t is still this task, since transfers
   * and delays end by events, never inside the call. */
  if (G_UNLIKELY(t->started != NULL))
    task_notify_start(dag, t);
}

static void release(SimDag *dag, SimTask waiter)
{
  Task *w = task_live(dag, waiter);

  g_assert(w && w->state == TASK_WAITING && w->waiting > 0);
  if (--w->waiting == 0)
    task_start(dag, waiter, w);
}

static void task_finish(SimDag *dag, SimTask id, SimTime now)
{
  guint32 slot = (guint32)(id & G_MAXUINT32);
  Task *t = task_live(dag, id);
  guint32 more;

  g_assert(t && t->state == TASK_RUNNING);
  t->state = TASK_DONE;
  dag->alive--;
  dag->stats.done++;
  dag->stats.last_done = now;
  /* Items never move in their pools: t stays valid while the callback
   * and the released tasks add more. */
  if (t->done)
    t->done(t->ctx, t->user, now);
  for (guint32 i = 0; i < t->n_dep; i++)
    release(dag, t->dep[i]);
  more = t->more;
  while (more != SIM_POOL_NIL) {
    DepBlock *b = sim_pool_at(&dag->blocks, more);
    guint32 next = b->next;
    for (guint32 i = 0; i < b->n; i++)
      release(dag, b->dep[i]);
    sim_pool_free(&dag->blocks, more);
    more = next;
  }
  t->gen = t->gen == G_MAXUINT32 ? 1 : t->gen + 1;
  sim_pool_free_item(&dag->tasks, slot, t);
}

static void dag_transfer_done(void *ctx, guint64 tag, SimTime now)
{
  task_finish(ctx, tag, now);
}

static void dag_delay_done(SimEngine *engine, void *ctx, guint64 data)
{
  task_finish(ctx, data, sim_engine_now(engine));
}

SimDag *sim_dag_new(SimEngine *engine, SimTransport *t)
{
  SimDag *dag = g_new0(SimDag, 1);

  dag->engine = engine;
  dag->transport = t;
  /* Cache-line aligned: a task then spans two lines, not three. */
  sim_pool_init_aligned(&dag->tasks, TASK_ITEM_SIZE, TASK_CHUNK_SHIFT, 64);
  sim_pool_init(&dag->blocks, sizeof(DepBlock), 10);
  dag->stream_last = g_array_new(FALSE, TRUE, sizeof(SimTask));
  dag->delay_kind =
      sim_engine_register(engine, "dag.delay", dag_delay_done, dag);
  sim_transport_set_done(t, dag_transfer_done, dag);
  return dag;
}

void sim_dag_free(SimDag *dag)
{
  if (!dag)
    return;
  sim_pool_clear(&dag->tasks);
  sim_pool_clear(&dag->blocks);
  g_array_free(dag->stream_last, TRUE);
  g_free(dag);
}

SimTask sim_dag_add(SimDag *dag, const SimTaskSpec *spec, const SimTask *after,
                    guint32 n_after)
{
  guint32 slot =
      sim_pool_alloc_fixed(&dag->tasks, TASK_ITEM_SIZE, TASK_CHUNK_SHIFT);
  Task *t = task_at(dag, slot);
  SimTask id;

  g_assert(spec->n_paths <= SIM_PATHSET_MAX);
  g_assert(spec->n_paths == 0 || spec->paths != NULL);
  if (t->gen == 0) /* a slot never used: SimPool zero-fills it */
    t->gen = 1;
  id = ((SimTask)t->gen << 32) | slot;
  t->waiting = 1; /* held until every dependency is recorded */
  t->state = TASK_WAITING;
  t->n_paths = spec->n_paths;
  t->bytes = spec->bytes;
  t->paths = spec->paths;
  t->weights = spec->weights;
  t->cap_Bps = spec->cap_Bps;
  g_assert(spec->copies <= G_MAXUINT16);
  t->copies = (guint16)spec->copies;
  t->delay_ps = spec->delay_ps;
  t->done = spec->done;
  t->started = spec->started;
  t->ctx = spec->ctx;
  t->user = spec->user;
  t->n_dep = 0;
  t->more = SIM_POOL_NIL;
  dag->alive++;
  dag->stats.added++;
  dag->stats.peak_alive = MAX(dag->stats.peak_alive,
                              (guint32)MIN(dag->alive, (guint64)G_MAXUINT32));

  for (guint32 i = 0; i < n_after; i++) {
    Task *d = task_live(dag, after[i]);
    if (d && after[i] != id) {
      add_dependent(dag, d, id);
      t->waiting++;
    }
  }
  if (spec->stream != SIM_NONE) {
    SimTask *last;
    Task *d;
    if (spec->stream >= dag->stream_last->len)
      g_array_set_size(dag->stream_last, spec->stream + 1);
    last = &g_array_index(dag->stream_last, SimTask, spec->stream);
    d = task_live(dag, *last);
    if (d) {
      add_dependent(dag, d, id);
      t->waiting++;
    }
    *last = id;
  }
  if (--t->waiting == 0)
    task_start(dag, id, t);
  return id;
}

void sim_dag_complete(SimDag *dag, SimTask t)
{
  Task *x = task_live(dag, t);

  g_assert(x && x->state == TASK_RUNNING && x->n_paths == 0 &&
           x->delay_ps == SIM_DELAY_EXTERNAL);
  task_finish(dag, t, sim_engine_now(dag->engine));
}

gboolean sim_dag_is_done(const SimDag *dag, SimTask t)
{
  return task_live(dag, t) == NULL;
}

guint64 sim_dag_alive(const SimDag *dag)
{
  return dag->alive;
}

void sim_dag_stats(const SimDag *dag, SimDagStats *out)
{
  *out = dag->stats;
}

gboolean sim_dag_check_finished(const SimDag *dag, SimTime now, GError **error)
{
  guint64 running = 0, transfers = 0, waiting = 0;
  const Task *first = NULL;

  if (dag->alive == 0)
    return TRUE;
  for (guint32 slot = 0; slot < dag->tasks.created; slot++) {
    const Task *t = task_at(dag, slot);

    if (t->state == TASK_WAITING) {
      waiting++;
    } else if (t->state == TASK_RUNNING) {
      running++;
      if (t->n_paths > 0) {
        transfers++;
        if (!first)
          first = t;
      }
    }
  }
  g_autoptr(GString) m = g_string_new(NULL);

  g_string_printf(
      m,
      "the simulation cannot progress at %.3f us: %" G_GUINT64_FORMAT
      " tasks are not done: %" G_GUINT64_FORMAT " started and never ended",
      sim_time_to_us(now), dag->alive, running);
  if (first)
    g_string_append_printf(m,
                           " (%" G_GUINT64_FORMAT " transfers; the first "
                           "moves %" G_GUINT64_FORMAT " bytes)",
                           transfers, first->bytes);
  g_string_append_printf(m, ", %" G_GUINT64_FORMAT " wait for them", waiting);
  sim_transport_explain_stall(dag->transport, m);
  g_set_error_literal(error, SIM_ERROR, SIM_ERROR_STALLED, m->str);
  return FALSE;
}
