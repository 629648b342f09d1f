/* Executing a plan (plan.h): the DAG of transfers and delays (sim/dag.h)
 * that a transport runs.
 *
 *   - a head: the first slice of every edge, in the order data reaches
 *     it (2(n-1) hops round a ring for AllReduce, up then down a tree), each
 *     hop waiting for its predecessor and NCCL's per-step latency for the
 *     protocol and link class (tuning.cc hwLatencies): for small sizes this
 *     chain is the whole operation;
 *   - a body: the rest of each edge's bytes in a few rounds that start once
 *     the head has crossed the edge; round m of an edge also waits for round
 *     m-1 of the edge feeding it, so a slow edge slows the edges
 *     downstream as a full pipeline does, and a ring edge's share of its
 *     steps' latency before each round queues behind the previous round's
 *     (one connection's steps are served in turn).
 *
 * Each edge's rounds go on a DAG stream of their own (stream_base + edge),
 * so they run in order; heads are ordered by their predecessors alone. */
#include <math.h>

#include "collectives/nccl/exec.h"
#include "sim/transport.h"

/* A transfer the trace hook will see. */
typedef struct {
  guint32 edge;
  guint64 bytes;
  SimTime start;
} Traced;

static void traced_start(void *ctx, guint64 user, SimTime now)
{
  NcclExecution *x = ctx;

  g_array_index(x->traced, Traced, user).start = now;
}

static void traced_done(void *ctx, guint64 user, SimTime now)
{
  NcclExecution *x = ctx;
  const Traced *r = &g_array_index(x->traced, Traced, user);
  const NcclEdge *e = &g_array_index(x->pl->edges, NcclEdge, r->edge);

  x->trace->transfer(x->trace->ctx, e->src, e->channel, e->dst, r->bytes,
                     r->start, now);
}

/* With a transfer hook, has the task report `payload` bytes over e when
 * it ends. */
static void trace_task(NcclExecution *x, const NcclEdge *e, guint64 payload,
                       SimTaskSpec *spec)
{
  Traced r = {.edge =
                  (guint32)(e - (const NcclEdge *)(void *)x->pl->edges->data),
              .bytes = payload};

  if (!x->trace)
    return;
  spec->started = traced_start;
  spec->done = traced_done;
  spec->ctx = x;
  spec->user = x->traced->len;
  g_array_append_val(x->traced, r);
}

static SimTask add_transfer(NcclExecution *x, const NcclEdge *e,
                            guint64 payload, const SimTask *after,
                            guint32 n_after, guint32 stream)
{
  NcclPlan *pl = x->pl;
  SimTaskSpec spec = {
      .bytes = (guint64)ceil((double)payload * pl->inflate *
                             (e->resend > 0 ? e->resend : 1)),
      .paths = &g_array_index(pl->paths, SimPath, e->first_path),
      .weights = e->n_paths > 1
                     ? &g_array_index(pl->weights, double, e->first_path)
                     : NULL,
      .n_paths = e->n_paths,
      .cap_Bps = (e->cap_Bps > 0 ? e->cap_Bps : pl->cap_Bps) * pl->inflate *
                 (e->resend > 0 ? e->resend : 1) * MAX(e->lanes, 1),
      .copies = e->copies,
      .stream = stream};

  x->transfers++;
  trace_task(x, e, payload, &spec);
  return sim_dag_add(x->dag, &spec, after, n_after);
}

static SimTask add_delay(NcclExecution *x, SimTime d, const SimTask *after,
                         guint32 n_after)
{
  SimTaskSpec spec = {.delay_ps = d, .stream = SIM_NONE};

  return sim_dag_add(x->dag, &spec, after, n_after);
}

/* An edge's last body round, or SIM_TASK_NONE when it has none. */
static SimTask last_round(const NcclEdge *e, guint32 rounds)
{
  for (guint32 m = rounds; m-- > 0;)
    if (e->rounds[m] != SIM_TASK_NONE)
      return e->rounds[m];
  return SIM_TASK_NONE;
}

/* A join after everything of a built plan that nothing else of it waits
 * for: each edge's last round (its stream orders the earlier ones) and the
 * head hops no later hop waits for. */
static SimTask add_join(NcclExecution *x, SimTask launch, guint32 rounds)
{
  NcclPlan *pl = x->pl;
  NcclEdge *edges = (NcclEdge *)(void *)pl->edges->data;
  NcclHop *hops = (NcclHop *)(void *)pl->hops->data;
  g_autofree guint8 *waited = g_new0(guint8, pl->hops->len + 1);
  g_autoptr(GArray) last = g_array_new(FALSE, FALSE, sizeof(SimTask));

  g_array_append_val(last, launch);
  for (guint32 i = 0; i < pl->preds->len; i++)
    waited[g_array_index(pl->preds, guint32, i)] = 1;
  for (guint32 i = 0; i < pl->hops->len; i++)
    if (!waited[i])
      g_array_append_val(last, hops[i].task);
  for (guint32 i = 0; i < pl->edges->len; i++) {
    SimTask t = last_round(&edges[i], rounds);

    if (t != SIM_TASK_NONE)
      g_array_append_val(last, t);
  }
  SimTaskSpec spec = {
      .stream = SIM_NONE, .done = x->done_fn, .ctx = x->done_ctx};

  return sim_dag_add(x->dag, &spec, (const SimTask *)(const void *)last->data,
                     last->len);
}

static void mark_launched(void *ctx, guint64 user, SimTime now)
{
  (void)user;
  ((NcclExecution *)ctx)->launched = now;
}

static void mark_arrive(void *ctx, guint64 user, SimTime now)
{
  ((NcclExecution *)ctx)->arrive[user] = now;
}

static void mark_finish(void *ctx, guint64 user, SimTime now)
{
  ((NcclExecution *)ctx)->finish[user] = now;
}

/* A join after `t` that calls fn(x, user) when it ends. */
static void add_mark(NcclExecution *x, SimTask t, SimTaskFn fn, guint64 user)
{
  SimTaskSpec spec = {.stream = SIM_NONE, .done = fn, .ctx = x, .user = user};

  sim_dag_add(x->dag, &spec, &t, 1);
}

SimTime nccl_execution_pace(const NcclExecution *x, SimTime call_ps)
{
  const NcclPlan *pl = x->pl;
  guint32 n = pl->comm->nranks;
  g_autofree SimTime *begin = NULL, *end = NULL;
  SimTime span = 0;

  if (!x->arrive)
    return call_ps;
  begin = g_new(SimTime, n);
  end = g_new0(SimTime, n);
  for (guint32 r = 0; r < n; r++)
    begin[r] = G_MAXUINT64;
  for (guint32 i = 0; i < pl->edges->len; i++) {
    const NcclEdge *e = &g_array_index(pl->edges, NcclEdge, i);

    /* the chain's head sends from its launch; every other rank once its
     * first slice is in */
    if (e->upstream == SIM_NONE)
      begin[e->src] = MIN(begin[e->src], x->launched);
    begin[e->dst] = MIN(begin[e->dst], x->arrive[i]);
    end[e->src] = MAX(end[e->src], x->finish[i]);
    end[e->dst] = MAX(end[e->dst], x->finish[i]);
  }
  for (guint32 r = 0; r < n; r++)
    if (end[r] > 0 && begin[r] <= end[r])
      span = MAX(span, end[r] - begin[r]);
  return MIN(call_ps, pl->base_ps + span);
}

/* Builds the DAG of a plan: the launch, the head hops, the body rounds. */
void nccl_execution_build(NcclExecution *x)
{
  NcclPlan *pl = x->pl;
  NcclEdge *edges = (NcclEdge *)(void *)pl->edges->data;
  NcclHop *hops = (NcclHop *)(void *)pl->hops->data;
  SimTask launch = add_delay(x, pl->base_ps, x->after, x->n_after);
  guint32 rounds = 1;
  double rate = pl->cap_Bps > 0 ? pl->cap_Bps : 1e12;
  g_autofree guint8 *coupled = NULL;
  g_autofree SimTask *steps = NULL;

  g_autoptr(GArray) after_a = g_array_new(FALSE, FALSE, sizeof(SimTask));

  if (x->trace && !x->traced)
    x->traced = g_array_new(FALSE, FALSE, sizeof(Traced));
  if (x->want_pace && nccl_plan_chain(pl) && pl->edges->len > 0) {
    x->arrive = g_new0(SimTime, pl->edges->len);
    x->finish = g_new0(SimTime, pl->edges->len);
    add_mark(x, launch, mark_launched, 0);
  }

  for (guint32 i = 0; i < pl->hops->len; i++) {
    NcclHop *h = &hops[i];
    NcclEdge *e;
    SimTask *after;
    guint32 n = 0;
    guint64 b;
    SimTask wait;

    g_array_set_size(after_a, h->n_pred + 1);
    after = (SimTask *)(void *)after_a->data;
    for (guint32 k = 0; k < h->n_pred; k++)
      after[n++] =
          hops[g_array_index(pl->preds, guint32, h->first_pred + k)].task;
    if (n == 0)
      after[n++] = launch;
    if (h->edge == SIM_NONE) {
      h->task = add_delay(x, 0, after, n);
      continue;
    }
    e = &edges[h->edge];
    /* Simple collectives pipeline a step in two slices; a p2p message
     * of up to a slice goes whole (one step, one flag) */
    b = MIN(MIN(e->slice ? e->slice : pl->slice,
                pl->proto == NCCL_PROTO_SIMPLE && pl->coll < NCCL_N_TUNED_COLLS
                    ? MAX(e->visit_bytes / 2, 1)
                    : e->visit_bytes),
            e->bytes - e->head_bytes);
    if (e->eager) {
      /* An eager edge's body carries all its bytes from the launch (each
       * ring rank sends its own chunk first, and every later step's data
       * follows in the same stream), so its head is only the first
       * slice's latency chain: NCCL's step latency, the path's and the
       * slice at the channel's rate.  A transfer here would move the
       * slice a second time, beside the body and at a cap of its own. */
      SimTaskSpec spec = {
          .delay_ps =
              e->step_ps +
              sim_paths_latency_ps(
                  pl->fabric, &g_array_index(pl->paths, SimPath, e->first_path),
                  e->n_paths) +
              sim_serialize_ps((double)b, e->cap_Bps > 0 ? e->cap_Bps : rate),
          .stream = SIM_NONE};

      /* a timeline shows the slice crossing the link, as a transfer */
      trace_task(x, e, b, &spec);
      h->task = sim_dag_add(x->dag, &spec, after, n);
      continue;
    }
    wait = e->step_ps ? add_delay(x, e->step_ps, after, n) : SIM_TASK_NONE;
    if (wait != SIM_TASK_NONE) {
      after[0] = wait;
      n = 1;
    }
    /* heads are ordered by their predecessors, not by the edge's stream:
     * a later lap's slice does not wait for the body */
    h->task = add_transfer(x, e, b, after, n, SIM_NONE);
    e->head_bytes += b;
    if (e->first_head == SIM_TASK_NONE)
      e->first_head = h->task;
  }
  /* Rounds (nccl_exec_rounds, from the first edge's body at the cap).  They
   * pace an edge by the edge feeding it; an edge that neither waits for
   * an upstream edge's rounds nor feeds another's, and pays no step
   * latencies in its body (NVLS's and NVLSTree's edges, CollNet's, PAT's,
   * point-to-point), runs its body as one transfer, then a delay of the
   * path latencies its other rounds would have paid, one after the other
   * on its stream: the same time where nothing else shares its links, at
   * a fraction of the transfers (tests/collectives bound it where they
   * do). */
  coupled = g_new0(guint8, pl->edges->len);
  for (guint32 i = 0; i < pl->edges->len; i++) {
    if (edges[i].upstream != SIM_NONE) {
      coupled[i] = 1;
      coupled[edges[i].upstream] = 1;
    }
  }
  if (pl->edges->len > 0)
    rounds = nccl_exec_rounds(
        edges[0].bytes - edges[0].head_bytes, rate, edges[0].lanes,
        sim_path_latency_ps(pl->fabric, &g_array_index(pl->paths, SimPath,
                                                       edges[0].first_path)));
  for (guint32 m = 0; m < rounds; m++) {
    for (guint32 i = 0; i < pl->edges->len; i++) {
      NcclEdge *e = &edges[i];
      guint64 body = e->bytes - MIN(e->bytes, e->head_bytes);
      guint32 own = coupled[i] || e->body_steps || !pl->whole ? rounds : 1;
      guint64 b = m < own ? nccl_share(body, own, m) : 0;
      SimTask after[3];
      guint32 n = 0;

      if (m == 0)
        e->rounds = g_new0(SimTask, rounds);
      if (b == 0)
        continue;
      after[n++] =
          e->first_head != SIM_TASK_NONE && !e->eager ? e->first_head : launch;
      if (m > 0 && e->upstream != SIM_NONE &&
          edges[e->upstream].rounds[m - 1] != SIM_TASK_NONE)
        after[n++] = edges[e->upstream].rounds[m - 1];
      if (e->body_steps) {
        SimTime d = e->step_ps * e->body_steps / rounds;

        if (d) {
          /* each edge's last body-step delay: a connection's steps are
           * served one after another (the proxy thread's actions, the
           * kernel's flag waits), so a round's share of them queues behind
           * the previous round's, whatever its data is waiting for; only
           * ring plans have them */
          if (!steps) {
            steps = g_new(SimTask, pl->edges->len);
            for (guint32 j = 0; j < pl->edges->len; j++)
              steps[j] = SIM_TASK_NONE;
          }
          if (steps[i] != SIM_TASK_NONE)
            after[n++] = steps[i];
          after[0] = steps[i] = add_delay(x, d, after, n);
          n = 1;
        }
      }
      e->rounds[m] = add_transfer(x, e, b, after, n, pl->stream_base + i);
      if (own < rounds)
        e->rounds[m] =
            add_delay(x,
                      (rounds - 1) *
                          sim_paths_latency_ps(
                              pl->fabric,
                              &g_array_index(pl->paths, SimPath, e->first_path),
                              e->n_paths),
                      &e->rounds[m], 1);
    }
  }
  if (x->arrive) {
    for (guint32 i = 0; i < pl->edges->len; i++) {
      SimTask last = last_round(&edges[i], rounds);

      add_mark(x, edges[i].first_head, mark_arrive, i);
      add_mark(x, last != SIM_TASK_NONE ? last : edges[i].first_head,
               mark_finish, i);
    }
  }
  if (x->want_done)
    x->done = add_join(x, launch, rounds);
}

void nccl_execution_clear(NcclExecution *x)
{
  if (x->traced)
    g_array_free(x->traced, TRUE);
  x->traced = NULL;
  g_clear_pointer(&x->arrive, g_free);
  g_clear_pointer(&x->finish, g_free);
}
