/* Replay of training steps on a fabric; see traces/replay.h.
 *
 * Every op instance is set up before the run: a compute op as one delay
 * task per rank, a collective as a gate (a zero delay after its ranks'
 * dependencies) and an end (an external task, sim/dag.h).  When the gate
 * ends, the collective is chosen and planned into the session at that
 * moment, so only the calls in flight hold their plans; its completion
 * ends the end task, which the next ops wait for. */
#include "traces/error.h"
#include "traces/replay.h"

#include <math.h>
#include <string.h>

#include "models/params.h"
#include "sim/memory.h"
#include "sim/rng.h"

/* What each op instance holds: its end task and its times. */
typedef struct {
  guint32 n;    /* instances */
  SimTask *end; /* [n]; SIM_TASK_NONE where it does not run */
  SimTime *t0, *t1;
  NcclComm **comm; /* [n] collectives: the instance's communicator, NULL
                      for a group of one rank */
} OpState;

typedef struct {
  TrcReplayJob job;
  const TrcWorkload *w;
  guint32 g;      /* GPUs per server */
  guint32 ranks;  /* tp x pp x dp */
  guint32 per_st; /* ranks per stage: tp x dp */
  OpState *ops;   /* [w->n_ops] */
  /* A workload with communicators: each rank's (op, instance) pairs in op
   * order, rank r's at [start[r], start[r + 1]) of op[] and inst[] */
  guint32 *start, *rop, *rinst;
} JobState;

struct TrcReplay {
  const TopoSystem *sys;
  TrcReplayOptions opt;
  NcclSession *session;
  JobState *jobs;
  guint32 n_jobs;
  GError *error; /* the first error of a completion function */
};

#define USER(job, op, inst)                                                    \
  (((guint64)(job) << 56) | ((guint64)(op) << 28) | (guint64)(inst))
#define USER_JOB(u) ((guint32)((u) >> 56))
#define USER_OP(u) ((guint32)(((u) >> 28) & 0xfffffff))
#define USER_INST(u) ((guint32)((u)&0xfffffff))
#define MAX_FIELD 0xfffffffu

/* --- placement ----------------------------------------------------------- */

guint32 trc_ranks_per_server(const TrcWorkload *w, guint32 g)
{
  if (w->per_server == 0)
    return g;
  return w->per_server <= g ? w->per_server : 0;
}

guint32 trc_servers_needed(guint32 ranks, guint32 g)
{
  if (ranks <= g)
    return 1;
  return ranks % g == 0 ? ranks / g : 0;
}

gboolean trc_placement_parse(const char *s, TrcPlacement *out)
{
  static const char *const names[] = {"packed", "spread", "random"};

  for (guint32 i = 0; i < G_N_ELEMENTS(names); i++) {
    if (g_ascii_strcasecmp(s, names[i]) == 0) {
      *out = (TrcPlacement)i;
      return TRUE;
    }
  }
  return FALSE;
}

gboolean trc_place(guint32 total, guint8 *used, guint32 n, TrcPlacement p,
                   guint64 seed, const guint32 *list, guint32 *out,
                   GError **error)
{
  g_autofree guint32 *free_list = g_new(guint32, total + 1);
  guint32 nfree = 0;

  if (p == TRC_PLACE_EXPLICIT) {
    for (guint32 i = 0; i < n; i++) {
      if (list[i] >= total || used[list[i]]) {
        g_set_error(error, TRC_ERROR, TRC_ERROR_VALUE,
                    "server %u is %s (expected a free server below %u)",
                    list[i], list[i] >= total ? "not in the system" : "taken",
                    total);
        return FALSE;
      }
      used[list[i]] = 1;
      out[i] = list[i];
    }
    return TRUE;
  }
  for (guint32 s = 0; s < total; s++)
    if (!used[s])
      free_list[nfree++] = s;
  if (nfree < n) {
    g_set_error(error, TRC_ERROR, TRC_ERROR_VALUE,
                "needs %u servers, %u of the system's %u are free", n, nfree,
                total);
    return FALSE;
  }
  if (p == TRC_PLACE_RANDOM) {
    SimRng rng;

    /* n drawn, then in order */
    sim_rng_init(&rng, seed, 0);
    sim_rng_draw(&rng, free_list, nfree, n);
    memcpy(out, free_list, n * sizeof(guint32));
    for (guint32 i = 1; i < n; i++) /* insertion sort: rank order */
      for (guint32 j = i; j > 0 && out[j - 1] > out[j]; j--) {
        guint32 t = out[j];

        out[j] = out[j - 1];
        out[j - 1] = t;
      }
  } else {
    for (guint32 i = 0; i < n; i++)
      out[i] =
          free_list[p == TRC_PLACE_SPREAD ? (guint32)((guint64)i * nfree / n)
                                          : i];
  }
  for (guint32 i = 0; i < n; i++)
    used[out[i]] = 1;
  return TRUE;
}

/* --- ranks and instances ------------------------------------------------- */

static guint32 stage_of(const JobState *j, guint32 r)
{
  return r / j->per_st;
}

/* The op runs on ranks of stage st. */
static gboolean runs_on_stage(const TrcOp *op, guint32 st)
{
  return op->stage < 0 || (guint32)op->stage == st;
}

/* How many instances an op has (one per rank for compute and PP sends). */
static guint32 instances_of(const JobState *j, const TrcOp *op)
{
  const TrcWorkload *w = j->w;

  if (op->group == TRC_GROUP_COMM) /* compute: one per rank; else one */
    return op->compute ? w->comms[op->comm].n : 1;
  if (op->compute)
    return j->ranks;
  switch (op->group) {
  case TRC_GROUP_TP: return j->ranks / w->tp;
  case TRC_GROUP_DP: return w->tp * w->pp;
  case TRC_GROUP_EP: return w->tp * w->pp * (w->dp / w->ep);
  case TRC_GROUP_EDP: return w->tp * w->pp * w->ep;
  case TRC_GROUP_PP: return j->ranks;
  default: return 1;
  }
}

/* The instance of a non-PP op that rank r belongs to. */
static guint32 instance_of(const JobState *j, const TrcOp *op, guint32 r)
{
  const TrcWorkload *w = j->w;
  guint32 tpi = r % w->tp, dpi = (r / w->tp) % w->dp, st = stage_of(j, r);
  guint32 base = tpi + w->tp * st;

  if (op->compute)
    return r;
  switch (op->group) {
  case TRC_GROUP_TP: return r / w->tp;
  case TRC_GROUP_DP: return base;
  case TRC_GROUP_EP: return base * (w->dp / w->ep) + dpi / w->ep;
  case TRC_GROUP_EDP: return base * w->ep + dpi % w->ep;
  default: return 0;
  }
}

/* The PP receiver of sender rank s, or FALSE when the send leaves the
 * pipeline or the op does not run on s's stage. */
static gboolean pp_receiver(const JobState *j, const TrcOp *op, guint32 s,
                            guint32 *to)
{
  gint64 st = stage_of(j, s) + (gint64)op->peer;

  if (!runs_on_stage(op, stage_of(j, s)) || st < 0 || st >= j->w->pp)
    return FALSE;
  *to = (guint32)((gint64)s + (gint64)op->peer * j->per_st);
  return TRUE;
}

/* The member ranks of an instance, in communicator order; returns how
 * many (0 when the instance does not run). */
static guint32 members(const JobState *j, const TrcOp *op, guint32 inst,
                       guint32 *m)
{
  const TrcWorkload *w = j->w;
  guint32 n = 0, base, st, tpi;

  if (op->group == TRC_GROUP_COMM) {
    const TrcComm *c = &w->comms[op->comm];

    if (op->compute) {
      m[0] = c->ranks[inst];
      return 1;
    }
    memcpy(m, c->ranks, c->n * sizeof(guint32));
    return c->n;
  }
  if (op->compute) {
    if (!runs_on_stage(op, stage_of(j, inst)))
      return 0;
    m[0] = inst;
    return 1;
  }
  switch (op->group) {
  case TRC_GROUP_TP:
    if (!runs_on_stage(op, inst * w->tp / j->per_st))
      return 0;
    for (guint32 i = 0; i < w->tp; i++)
      m[n++] = inst * w->tp + i;
    return n;
  case TRC_GROUP_PP:
    if (!pp_receiver(j, op, inst, &m[1]))
      return 0;
    m[0] = inst;
    return 2;
  case TRC_GROUP_WORLD:
    for (guint32 r = 0; r < j->ranks; r++)
      if (runs_on_stage(op, stage_of(j, r)))
        m[n++] = r;
    return n;
  default: break;
  }
  /* DP, EP, EDP: instance = (tp_idx + tp x stage) x k + i */
  {
    guint32 k = op->group == TRC_GROUP_DP   ? 1
                : op->group == TRC_GROUP_EP ? w->dp / w->ep
                                            : w->ep;
    guint32 i = inst % k;

    base = inst / k;
    tpi = base % w->tp;
    st = base / w->tp;
    if (!runs_on_stage(op, st))
      return 0;
    for (guint32 d = 0; d < w->dp; d++) {
      gboolean in = op->group == TRC_GROUP_DP   ? TRUE
                    : op->group == TRC_GROUP_EP ? d / w->ep == i
                                                : d % w->ep == i;
      if (in)
        m[n++] = tpi + w->tp * (d + w->dp * st);
    }
    return n;
  }
}

static void rank_place(const JobState *j, guint32 r, guint32 *server,
                       guint32 *gpu)
{
  *server = j->job.servers[r / j->g];
  *gpu = r % j->g;
}

void trc_replay_rank_gpu(const TrcReplay *run, guint32 job, guint32 rank,
                         guint32 *server, guint32 *gpu)
{
  rank_place(&run->jobs[job], rank, server, gpu);
}

/* A communicator over member ranks: the same GPUs of each of its servers,
 * server-major, as ifsim's communicators are. */
static NcclComm *comm_for(TrcReplay *x, const JobState *j, const TrcOp *op,
                          const guint32 *m, guint32 n, GError **error)
{
  g_autofree guint32 *servers = g_new(guint32, n);
  g_autofree guint32 *locals = g_new(guint32, n);
  guint32 ns = 0, nl = 0, s, gpu;
  NcclOptions o = x->opt.nccl;

  for (guint32 i = 0; i < n; i++) {
    rank_place(j, m[i], &s, &gpu);
    if (ns == 0 || servers[ns - 1] != s)
      servers[ns++] = s;
    if (ns == 1)
      locals[nl++] = gpu;
  }
  for (guint32 i = 0; i < n; i++) {
    rank_place(j, m[i], &s, &gpu);
    if (n % ns == 0 && s == servers[i / nl] && gpu == locals[i % nl])
      continue;
    if (op->group == TRC_GROUP_COMM) {
      g_set_error(error, TRC_ERROR, TRC_ERROR_VALUE,
                  "job %s, op %u (%s): its communicator %s (ranks %u, %u, "
                  "...) does not take the same GPUs of each of its servers "
                  "(rank r on GPU r %% %u of server r / %u); ifsim's "
                  "communicators do",
                  j->job.name, op->id, op->name, j->w->comms[op->comm].name,
                  m[0], m[1], j->g, j->g);
    } else {
      g_set_error(error, TRC_ERROR, TRC_ERROR_VALUE,
                  "job %s, op %u (%s): its %s group of ranks %u, %u, ... "
                  "does not take the same GPUs of each of its servers "
                  "(tp=%u pp=%u dp=%u on servers of %u GPUs); ifsim's "
                  "communicators do",
                  j->job.name, op->id, op->name, trc_group_name(op->group),
                  m[0], m[1], j->w->tp, j->w->pp, j->w->dp, j->g);
    }
    return NULL;
  }
  o.ranks = 0;
  o.servers = servers;
  o.n_servers = ns;
  o.local_gpus = locals;
  o.n_local = nl;
  o.gpus_per_process = 0;
  {
    NcclComm *c = nccl_comm_new(x->sys, &o, error);

    if (!c)
      g_prefix_error(error, "job %s, op %u (%s): ", j->job.name, op->id,
                     op->name);
    return c;
  }
}

/* --- running ------------------------------------------------------------- */

static void fail(TrcReplay *x, GError *e)
{
  if (!x->error)
    x->error = e;
  else
    g_error_free(e);
  sim_engine_stop(nccl_session_engine(x->session));
}

static void compute_done(void *ctx, guint64 user, SimTime now)
{
  TrcReplay *x = ctx;
  JobState *j = &x->jobs[USER_JOB(user)];
  guint32 op = USER_OP(user), inst = USER_INST(user);

  j->ops[op].t0[inst] = now - j->ops[op].t0[inst]; /* its duration, so far */
  j->ops[op].t1[inst] = now;
}

static void measured_done(void *ctx, guint64 user, SimTime now)
{
  TrcReplay *x = ctx;
  JobState *j = &x->jobs[USER_JOB(user)];
  guint32 op = USER_OP(user), inst = USER_INST(user);

  j->ops[op].t0[inst] = now - j->w->ops[op].measured_ps;
  j->ops[op].t1[inst] = now;
}

static void coll_done(void *ctx, guint64 user, SimTime now)
{
  TrcReplay *x = ctx;
  OpState *s = &x->jobs[USER_JOB(user)].ops[USER_OP(user)];
  guint32 inst = USER_INST(user);

  s->t1[inst] = now;
  sim_dag_complete(nccl_session_dag(x->session), s->end[inst]);
}

/* The gate of a collective instance: its ranks are ready; plan it now. */
static void coll_gate(void *ctx, guint64 user, SimTime now)
{
  TrcReplay *x = ctx;
  JobState *j = &x->jobs[USER_JOB(user)];
  guint32 op = USER_OP(user), inst = USER_INST(user);
  const TrcOp *w = &j->w->ops[op];
  OpState *s = &j->ops[op];
  NcclChoice ch;
  GError *e = NULL;
  NcclCallSpec spec = {
      .one_way = w->group == TRC_GROUP_PP ||
                 (w->group == TRC_GROUP_COMM && w->coll == NCCL_COLL_SENDRECV),
      .done = coll_done,
      .ctx = x,
      .user = user};

  s->t0[inst] = now;
  if (!s->comm[inst]) { /* a group of one rank: nothing to move */
    coll_done(x, user, now);
    return;
  }
  if (!nccl_select(s->comm[inst], w->coll, w->bytes, &ch, NULL, &e) ||
      !nccl_session_add(x->session, s->comm[inst], w->coll, w->bytes, &ch,
                        &spec, NULL, &e)) {
    g_prefix_error(&e, "job %s, op %u (%s): ", j->job.name, w->id, w->name);
    fail(x, e);
  }
}

/* The tasks rank r's op `d` ends with: its instance(s) holding r, or those
 * of r's counterpart in d's stage. */
static guint32 dep_tasks(const JobState *j, guint32 d, guint32 r, SimTask *out)
{
  const TrcOp *op = &j->w->ops[d];
  const OpState *s = &j->ops[d];
  guint32 n = 0, to;

  if (!op->compute && op->group == TRC_GROUP_PP) {
    gint64 from = (gint64)r - (gint64)op->peer * j->per_st;

    if (pp_receiver(j, op, r, &to))
      out[n++] = s->end[r];
    if (from >= 0 && from < j->ranks && pp_receiver(j, op, (guint32)from, &to))
      out[n++] = s->end[from];
    if (n > 0 || op->stage < 0)
      return n;
    /* r is in neither end: wait as the counterpart sender of its stage */
    r = r % j->per_st + (guint32)op->stage * j->per_st;
    if (pp_receiver(j, op, r, &to))
      out[n++] = s->end[r];
    return n;
  }
  if (!runs_on_stage(op, stage_of(j, r)))
    r = r % j->per_st + (guint32)op->stage * j->per_st;
  out[n++] = s->end[instance_of(j, op, r)];
  return n;
}

/* The tasks an instance of an op over a communicator waits for, appended
 * to `after`: per dependency, its instances on the instance's ranks
 * (marked[r] == stamp), or all of them where it shares no rank with it (a
 * collective has one). */
static void comm_dep_tasks(const JobState *j, const TrcOp *op,
                           const guint32 *marked, guint32 stamp, GArray *after)
{
  for (guint32 d = 0; d < op->n_deps; d++) {
    const TrcOp *dop = &j->w->ops[op->deps[d]];
    const OpState *s = &j->ops[op->deps[d]];
    guint32 before = after->len;

    if (dop->compute) {
      const TrcComm *c = &j->w->comms[dop->comm];

      for (guint32 k = 0; k < c->n; k++)
        if (marked[c->ranks[k]] == stamp)
          g_array_append_val(after, s->end[k]);
    }
    if (after->len == before)
      g_array_append_vals(after, s->end, s->n);
  }
}

static int cmp_task(gconstpointer a, gconstpointer b)
{
  SimTask x = *(const SimTask *)a, y = *(const SimTask *)b;

  return x < y ? -1 : x > y;
}

/* Adds job j's tasks to the session. */
static gboolean setup_job(TrcReplay *x, guint32 jx, GError **error)
{
  JobState *j = &x->jobs[jx];
  const TrcWorkload *w = j->w;
  SimDag *dag = nccl_session_dag(x->session);
  g_autofree guint32 *m = g_new(guint32, j->ranks);
  g_autoptr(GArray) after = g_array_new(FALSE, FALSE, sizeof(SimTask));
  g_autoptr(GHashTable) comms =
      g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  /* NcclComm -> the end of its latest call: NCCL runs the calls of one
   * communicator in the order they were issued, on its stream */
  g_autoptr(GHashTable) last = g_hash_table_new(NULL, NULL);
  /* a workload with communicators: the ranks of the instance at hand */
  g_autofree guint32 *marked = w->n_comms ? g_new0(guint32, j->ranks) : NULL;
  guint32 stamp = 0;

  j->ops = g_new0(OpState, w->n_ops);
  for (guint32 o = 0; o < w->n_ops; o++) {
    const TrcOp *op = &w->ops[o];
    OpState *s = &j->ops[o];

    s->n = instances_of(j, op);
    s->end = g_new0(SimTask, s->n);
    s->t0 = g_new0(SimTime, s->n);
    s->t1 = g_new0(SimTime, s->n);
    if (!op->compute)
      s->comm = g_new0(NcclComm *, s->n);
    for (guint32 i = 0; i < s->n; i++) {
      guint32 n = members(j, op, i, m);
      SimTask buf[2];

      if (n == 0)
        continue;
      g_array_set_size(after, 0);
      if (marked) {
        stamp++;
        for (guint32 k = 0; k < n; k++)
          marked[m[k]] = stamp;
        comm_dep_tasks(j, op, marked, stamp, after);
      } else {
        for (guint32 k = 0; k < n; k++) {
          for (guint32 d = 0; d < op->n_deps; d++) {
            guint32 nt = dep_tasks(j, op->deps[d], m[k], buf);

            g_array_append_vals(after, buf, nt);
          }
        }
      }
      /* many ranks share their dependencies' instances: each once */
      g_array_sort(after, cmp_task);
      {
        SimTask *a = (SimTask *)(void *)after->data;
        guint32 u = 0;

        for (guint32 k = 0; k < after->len; k++)
          if (a[k] != SIM_TASK_NONE && (u == 0 || a[u - 1] != a[k]))
            a[u++] = a[k];
        g_array_set_size(after, u);
      }
      if (op->compute) {
        /* a straggler's work takes its factor times as long (an
         * instance of several ranks waits for the slowest) */
        double f = 1;
        SimTaskSpec t = {.stream = SIM_NONE,
                         .done = compute_done,
                         .ctx = x,
                         .user = USER(jx, o, i)};

        for (guint32 k = 0; k < n; k++) {
          guint32 server, gpu;

          rank_place(j, m[k], &server, &gpu);
          f = MAX(f, topo_gpu_slowdown(x->sys, server, gpu));
        }
        t.delay_ps = f > 1 ? (SimTime)llround((double)op->compute_ps * f)
                           : op->compute_ps;
        /* t0 holds the duration until compute_done sets the start */
        s->t0[i] = t.delay_ps;

        s->end[i] = sim_dag_add(dag, &t, (const SimTask *)(void *)after->data,
                                after->len);
        continue;
      }
      if (n > 1) {
        /* one communicator per group instance, shared by its ops; a PP
         * pair's per direction; the world's per stage it runs on (the
         * other groups' instances already tell their stage) */
        guint64 slot = op->group == TRC_GROUP_WORLD
                           ? (guint64)(op->stage + 1) /* i is 0 */
                       : op->group == TRC_GROUP_COMM ? op->comm
                                                     : i;
        guint64 key =
            ((guint64)op->group << 48) | (slot << 1) | (op->peer > 0 ? 1u : 0u);
        NcclComm *c = g_hash_table_lookup(comms, &key);

        if (!c) {
          gint64 *k;

          c = comm_for(x, j, op, m, n, error);
          if (!c)
            return FALSE;
          k = g_new(gint64, 1);
          *k = (gint64)key;
          g_hash_table_insert(comms, k, c);
          /* the run owns it (freed with the run's ops) */
        }
        s->comm[i] = c;
      }
      if (s->comm[i]) {
        SimTask *prev = g_hash_table_lookup(last, s->comm[i]);

        if (prev)
          g_array_append_val(after, *prev);
      }
      if (x->opt.as_measured && op->measured_ps > 0) {
        /* the collective as long as the trace measured it */
        SimTaskSpec t = {.delay_ps = op->measured_ps,
                         .stream = SIM_NONE,
                         .done = measured_done,
                         .ctx = x,
                         .user = USER(jx, o, i)};

        s->end[i] = sim_dag_add(dag, &t, (const SimTask *)(void *)after->data,
                                after->len);
        if (s->comm[i])
          g_hash_table_insert(last, s->comm[i], &s->end[i]);
      } else {
        SimTaskSpec end = {.delay_ps = SIM_DELAY_EXTERNAL, .stream = SIM_NONE};
        SimTaskSpec gate = {.stream = SIM_NONE,
                            .done = coll_gate,
                            .ctx = x,
                            .user = USER(jx, o, i)};

        s->end[i] = sim_dag_add(dag, &end, NULL, 0);
        sim_dag_add(dag, &gate, (const SimTask *)(void *)after->data,
                    after->len);
        if (s->comm[i])
          g_hash_table_insert(last, s->comm[i], &s->end[i]);
      }
    }
    /* NCCL's choice for the first instance, reported (and an early error
     * when nothing can run it) */
    if (!op->compute) {
      for (guint32 i = 0; i < s->n; i++) {
        if (s->comm[i]) {
          if (!nccl_select(s->comm[i], op->coll, op->bytes, &(NcclChoice){0},
                           NULL, error)) {
            g_prefix_error(error, "job %s, op %u (%s): ", j->job.name, op->id,
                           op->name);
            return FALSE;
          }
          break;
        }
      }
    }
  }
  return TRUE;
}

/* The instances of op o that rank r is part of (two for a PP send that r
 * both receives and sends); returns how many. */
static guint32 rank_instances(const JobState *j, guint32 o, guint32 r,
                              guint32 *inst)
{
  const TrcOp *op = &j->w->ops[o];
  guint32 n = 0, to;

  if (!op->compute && op->group == TRC_GROUP_PP) {
    gint64 from = (gint64)r - (gint64)op->peer * j->per_st;

    if (pp_receiver(j, op, r, &to))
      inst[n++] = r;
    if (from >= 0 && from < j->ranks && pp_receiver(j, op, (guint32)from, &to))
      inst[n++] = (guint32)from;
    return n;
  }
  if (!runs_on_stage(op, stage_of(j, r)))
    return 0;
  inst[0] = instance_of(j, op, r);
  return 1;
}

typedef struct {
  guint32 op, inst;
} RankOp;

/* A workload with communicators: every rank's (op, instance) pairs in op
 * order, as one array indexed by rank (a rank's ops, not every op per
 * rank, so that reports cost what the trace holds). */
static void index_ranks(JobState *j)
{
  const TrcWorkload *w = j->w;
  g_autofree guint32 *fill = g_new0(guint32, j->ranks + 1);

  j->start = g_new0(guint32, j->ranks + 1);
  for (int pass = 0; pass < 2; pass++) {
    for (guint32 o = 0; o < w->n_ops; o++) {
      const TrcOp *op = &w->ops[o];
      const TrcComm *c = &w->comms[op->comm];

      for (guint32 k = 0; k < c->n; k++) {
        guint32 r = c->ranks[k];

        if (pass == 0) {
          j->start[r + 1]++;
        } else {
          j->rop[j->start[r] + fill[r]] = o;
          j->rinst[j->start[r] + fill[r]] = op->compute ? k : 0;
          fill[r]++;
        }
      }
    }
    if (pass == 0) {
      for (guint32 r = 0; r < j->ranks; r++)
        j->start[r + 1] += j->start[r];
      j->rop = g_new(guint32, j->start[j->ranks]);
      j->rinst = g_new(guint32, j->start[j->ranks]);
    }
  }
}

/* Rank r's (op, instance) pairs in op order, into out. */
static void rank_ops(const JobState *j, guint32 r, GArray *out)
{
  g_array_set_size(out, 0);
  if (j->start) {
    for (guint32 k = j->start[r]; k < j->start[r + 1]; k++) {
      RankOp x = {j->rop[k], j->rinst[k]};

      g_array_append_val(out, x);
    }
    return;
  }
  for (guint32 o = 0; o < j->w->n_ops; o++) {
    guint32 inst[2], n = rank_instances(j, o, r, inst);

    for (guint32 k = 0; k < n; k++) {
      RankOp x = {o, inst[k]};

      g_array_append_val(out, x);
    }
  }
}

/* A start (+1) or end (-1) of an op on a rank; group 0: compute. */
typedef struct {
  SimTime t;
  guint32 group;
  gint32 step;
} Edge;

/* By time, ends before starts at the same instant (nothing is counted at
 * an instant), then by group. */
static int cmp_edge(gconstpointer a, gconstpointer b)
{
  const Edge *x = a, *y = b;

  if (x->t != y->t)
    return x->t < y->t ? -1 : 1;
  if (x->step != y->step)
    return x->step < y->step ? -1 : 1;
  return x->group < y->group ? -1 : x->group > y->group;
}

/* Fills a job's results from its instances' times. */
static void job_results(const JobState *j, TrcReplayResult *out)
{
  const TrcWorkload *w = j->w;
  g_autoptr(GArray) edges = g_array_new(FALSE, FALSE, sizeof(Edge));
  g_autoptr(GArray) mine = g_array_new(FALSE, FALSE, sizeof(RankOp));
  double compute = 0, exposed = 0, group[TRC_N_GROUPS] = {0};

  out->ranks = j->ranks;
  out->ops = g_new0(TrcOpResult, w->n_ops);
  for (guint32 o = 0; o < w->n_ops; o++) {
    const OpState *s = &j->ops[o];
    TrcOpResult *r = &out->ops[o];

    for (guint32 i = 0; i < s->n; i++) {
      if (s->end[i] == SIM_TASK_NONE)
        continue;
      if (r->instances == 0 || s->t0[i] < r->start_ps)
        r->start_ps = s->t0[i];
      r->end_ps = MAX(r->end_ps, s->t1[i]);
      r->instances++;
      if (!r->chosen && s->comm && s->comm[i])
        r->chosen = nccl_select(s->comm[i], w->ops[o].coll, w->ops[o].bytes,
                                &r->choice, NULL, NULL);
    }
    out->step_ps = MAX(out->step_ps, r->end_ps);
  }
  /* per rank, a sweep over the starts and ends of its ops: time with a
   * compute op running counts as compute; time with none but collectives
   * in flight is exposed, split equally among the groups in flight */
  for (guint32 r = 0; r < j->ranks; r++) {
    guint32 cpu_on = 0, on[TRC_N_GROUPS] = {0}, groups_on = 0;
    SimTime prev = 0;

    g_array_set_size(edges, 0);
    rank_ops(j, r, mine);
    for (guint32 k = 0; k < mine->len; k++) {
      const RankOp *x = &g_array_index(mine, RankOp, k);
      guint32 g = w->ops[x->op].compute ? 0 : w->ops[x->op].group;
      Edge e0 = {j->ops[x->op].t0[x->inst], g, +1};
      Edge e1 = {j->ops[x->op].t1[x->inst], g, -1};

      if (e1.t <= e0.t)
        continue;
      g_array_append_val(edges, e0);
      g_array_append_val(edges, e1);
    }
    g_array_sort(edges, cmp_edge);
    for (guint32 k = 0; k < edges->len; k++) {
      const Edge *e = &g_array_index(edges, Edge, k);
      double len = (double)(e->t - prev);

      if (len > 0 && cpu_on > 0) {
        compute += len;
      } else if (len > 0 && groups_on > 0) {
        exposed += len;
        for (guint32 g = 1; g < TRC_N_GROUPS; g++)
          if (on[g])
            group[g] += len / groups_on;
      }
      prev = e->t;
      if (e->group == 0) {
        cpu_on += (guint32)e->step;
      } else {
        if (e->step > 0 && on[e->group]++ == 0)
          groups_on++;
        else if (e->step < 0 && --on[e->group] == 0)
          groups_on--;
      }
    }
  }
  out->compute_us = compute / j->ranks / SIM_PS_PER_US;
  out->exposed_us = exposed / j->ranks / SIM_PS_PER_US;
  for (guint32 g = 0; g < TRC_N_GROUPS; g++)
    out->exposed_group_us[g] = group[g] / j->ranks / SIM_PS_PER_US;
}

/* Checks a job's layout against its servers. */
static gboolean check_job(const TopoSystem *sys, const TrcReplayJob *job,
                          JobState *j, GError **error)
{
  guint32 need;

  j->job = *job;
  j->w = job->w;
  j->g = trc_ranks_per_server(job->w, topo_system_gpus_per_server(sys));
  j->ranks = job->w->tp * job->w->pp * job->w->dp;
  if (j->g == 0) {
    g_set_error(error, TRC_ERROR, TRC_ERROR_VALUE,
                "job %s: %u ranks per server, the system's servers have %u "
                "GPUs",
                job->name, job->w->per_server,
                topo_system_gpus_per_server(sys));
    return FALSE;
  }
  j->per_st = job->w->tp * job->w->dp;
  need = trc_servers_needed(j->ranks, j->g);
  if (need == 0 || need != job->n_servers) {
    g_set_error(error, TRC_ERROR, TRC_ERROR_VALUE,
                "job %s: %u ranks (tp %u x pp %u x dp %u) %s%u servers of %u "
                "GPUs, it has %u",
                job->name, j->ranks, job->w->tp, job->w->pp, job->w->dp,
                need ? "need " : "do not fill whole servers: ",
                need ? need : (j->ranks + j->g - 1) / j->g, j->g,
                job->n_servers);
    return FALSE;
  }
  if (job->w->n_ops > MAX_FIELD || j->ranks > MAX_FIELD) {
    g_set_error(error, TRC_ERROR, TRC_ERROR_VALUE,
                "job %s: more than %u ops or ranks", job->name, MAX_FIELD);
    return FALSE;
  }
  return TRUE;
}

/* Memory the run's tasks take before it starts: a delay per rank and
 * compute op, a gate and an end per collective instance, at most 128
 * bytes each, and the instances' times. */
static gboolean check_memory(const TrcReplay *x, GError **error)
{
  guint64 tasks = 0;

  for (guint32 jx = 0; jx < x->n_jobs; jx++) {
    const JobState *j = &x->jobs[jx];

    for (guint32 o = 0; o < j->w->n_ops; o++)
      tasks += (guint64)instances_of(j, &j->w->ops[o]) *
               (j->w->ops[o].compute ? 1 : 2);
  }
  return sim_memory_check(tasks * (128 + 3 * sizeof(SimTime)),
                          "the replay's tasks",
                          "a task and three times per op instance", error);
}

TrcReplay *trc_replay_run(const TopoSystem *sys, const TrcReplayJob *jobs,
                          guint32 n_jobs, const TrcReplayOptions *o,
                          TrcReplayResult *out, GError **error)
{
  g_autoptr(TrcReplay) x = g_new0(TrcReplay, 1);
  NcclRunStats st;

  x->sys = sys;
  x->opt = *o;
  x->n_jobs = n_jobs;
  x->jobs = g_new0(JobState, n_jobs);
  if (n_jobs > 255) {
    g_set_error(error, TRC_ERROR, TRC_ERROR_VALUE,
                "%u jobs: at most 255 run at once", n_jobs);
    return NULL;
  }
  for (guint32 jx = 0; jx < n_jobs; jx++)
    if (!check_job(sys, &jobs[jx], &x->jobs[jx], error))
      return NULL;
  if (!check_memory(x, error))
    return NULL;
  x->session = nccl_session_new(sys, o->exec, o->nccl.packet_sample_ps);
  if (o->attach)
    o->attach(o->attach_ctx, nccl_session_engine(x->session),
              nccl_session_transport(x->session));
  for (guint32 jx = 0; jx < n_jobs; jx++) {
    if (!setup_job(x, jx, error))
      return NULL;
    if (jobs[jx].w->n_comms > 0)
      index_ranks(&x->jobs[jx]);
  }
  if (!nccl_session_run(x->session, &st, error) || x->error) {
    if (x->error) {
      g_clear_error(error);
      g_propagate_error(error, g_steal_pointer(&x->error));
    }
    return NULL;
  }
  if (o->inspect)
    o->inspect(o->inspect_ctx, nccl_session_transport(x->session), st.time_ps);
  for (guint32 jx = 0; jx < n_jobs; jx++) {
    memset(&out[jx], 0, sizeof(out[jx]));
    job_results(&x->jobs[jx], &out[jx]);
  }
  return g_steal_pointer(&x);
}

guint64 trc_replay_slices(const TrcReplay *run, TrcSliceFn fn, void *ctx)
{
  guint64 n = 0;
  g_autoptr(GArray) mine = g_array_new(FALSE, FALSE, sizeof(RankOp));

  for (guint32 jx = 0; jx < run->n_jobs; jx++) {
    const JobState *j = &run->jobs[jx];

    for (guint32 r = 0; r < j->ranks; r++) {
      rank_ops(j, r, mine);
      for (guint32 k = 0; k < mine->len; k++, n++) {
        const RankOp *x = &g_array_index(mine, RankOp, k);

        if (fn)
          fn(ctx, jx, r, x->op, j->ops[x->op].t0[x->inst],
             j->ops[x->op].t1[x->inst]);
      }
    }
  }
  return n;
}

void trc_replay_free(TrcReplay *run)
{
  if (!run)
    return;
  /* the session first: its tasks point at the jobs' states */
  nccl_session_free(run->session);
  for (guint32 jx = 0; jx < run->n_jobs; jx++) {
    JobState *j = &run->jobs[jx];
    g_autoptr(GHashTable) seen = g_hash_table_new(NULL, NULL);

    if (!j->ops)
      continue;
    for (guint32 o = 0; o < j->w->n_ops; o++) {
      OpState *s = &j->ops[o];

      if (s->comm)
        for (guint32 i = 0; i < s->n; i++)
          if (s->comm[i] && g_hash_table_add(seen, s->comm[i]))
            nccl_comm_free(s->comm[i]);
      g_free(s->comm);
      g_free(s->end);
      g_free(s->t0);
      g_free(s->t1);
    }
    g_free(j->ops);
    g_free(j->start);
    g_free(j->rop);
    g_free(j->rinst);
  }
  g_free(run->jobs);
  if (run->error)
    g_error_free(run->error);
  g_free(run);
}

void trc_replay_result_clear(TrcReplayResult *r)
{
  g_free(r->ops);
  memset(r, 0, sizeof(*r));
}
