/* PyTorch profiler (Kineto) traces, one Chrome-trace JSON file per rank
 * (gzip or not), read as a workload: one profiler step of every rank, its
 * GPU work as it ran, its NCCL kernels as collectives to replay on another
 * fabric (docs/workload.md, "Replaying PyTorch profiler traces").
 *
 * What is read, per file:
 * - `distributedInfo`: `rank`, `world_size` (torch.profiler writes them in
 *   a distributed job);
 * - the step: the `ProfilerStep#N` annotation (record_function of
 *   torch.profiler.profile.step()), the one asked for or the last that
 *   every file holds;
 * - the GPU work of the step: `kernel`, `gpu_memcpy` and `gpu_memset`
 *   events whose `correlation` is that of a CUDA launch (a `cuda_runtime`
 *   or `cuda_driver` event) inside the step's window, per stream
 *   (`args.stream`, else `tid`);
 * - NCCL kernels (`ncclKernel_*`, `ncclDevKernel_*`): their collective,
 *   size and process group from the arguments PyTorch copies onto them
 *   from record_param_comms (`Collective name`, `In msg nelems`, `Out msg
 *   nelems`, `dtype`, `Group size`, `Process Group Ranks`).
 *
 * How the step becomes ops:
 * - A process group's k-th collective on each of its ranks is one
 *   collective (they must agree); ranks are global ranks.
 * - Each stream runs its work in order.  Between streams, the trace does
 *   not say which event a stream waited on (cudaStreamWaitEvent carries no
 *   handle in these traces), so a wait is inferred from the timing: work
 *   that starts within KINETO_WAIT_NS of the end of another stream's work,
 *   on a stream idle since before that end, waited for it.
 * - Compute between two such points of a stream is one op of the measured
 *   span, idle time included (the host's launch gaps stay as measured);
 *   an NCCL kernel's own idle lead (a launch gap) is a compute op before
 *   it.  So, when ifsim's collectives take what the trace measured, the
 *   replayed step is the measured one.
 * - An NCCL kernel without sizes (older PyTorch), a Send/Recv (the trace
 *   does not name the peer), or a collective ifsim does not replay
 *   (gather, scatter) keeps its measured time as compute on its rank: not
 *   replayed on the target fabric, and counted in the notes. */
#include "traces/error.h"
#include "traces/workload.h"

#include <gio/gio.h>
#include <math.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "sim/input.h"
#include "sim/memory.h"
#include "traces/tracegraph.h"

/* A stream that starts work this soon after another stream's work ends,
 * idle since before that end, waited for it: a launch after a
 * cudaStreamWaitEvent is seen on the GPU within a few microseconds. */
#define KINETO_WAIT_NS 10000.0

/* The step's GPU work lies within this of its start: 10^15 ns (11.6 days),
 * so that every span of it fits a compute op (TRC_MAX_COMPUTE_PS, 13 days). */
#define KINETO_MAX_NS 1e15

typedef enum { G_COMPUTE, G_COLL, G_MEASURED } GKind;

typedef struct {
  GKind kind;
  gint64 stream;
  double t0, t1; /* ns from the step's start */
  NcclColl coll;
  guint64 bytes;
  gint64 pg; /* process group index, G_COLL */
  /* filled while building */
  gint64 wait; /* the item of another stream it waited for, -1 none */
  gboolean waited_on;
  guint32 inst; /* G_COLL: its collective */
  gint64 node;  /* its op (the last of a segment's items), -1 none yet */
} GItem;

typedef struct {
  char *name;
  gint64 rank, world;
  double step_ns, cpu_step_ns;
  GArray *items; /* GItem, by stream then start */
} KRank;

typedef struct {
  guint32 *ranks;
  guint32 n;
  GArray **calls; /* per member: (rank, item) of each collective */
} PGroup;

typedef struct {
  const char *const *names;
  GPtrArray *pgroups; /* PGroup* */
  GHashTable *pg_of;  /* "r,r,r" -> index + 1 */
  guint64 measured_p2p, measured_nosize, measured_other;
  GString *notes;
} Kin;

/* PyTorch's dtype names (c10 ScalarType, as record_param_comms writes
 * them) to bytes; 0 unknown. */
static guint dtype_size(const char *t)
{
  static const struct {
    const char *name;
    guint bytes;
  } d[] = {{"Float", 4},
           {"Double", 8},
           {"Half", 2},
           {"BFloat16", 2},
           {"Int", 4},
           {"Long", 8},
           {"Short", 2},
           {"Char", 1},
           {"Byte", 1},
           {"Bool", 1},
           {"Float8_e4m3fn", 1},
           {"Float8_e5m2", 1},
           {"Float8_e4m3fnuz", 1},
           {"Float8_e5m2fnuz", 1},
           {"ComplexFloat", 8},
           {"ComplexDouble", 16},
           {"UInt16", 2},
           {"UInt32", 4},
           {"UInt64", 8}};

  for (gsize k = 0; t && k < G_N_ELEMENTS(d); k++)
    if (g_str_equal(t, d[k].name))
      return d[k].bytes;
  return 0;
}

/* record_param_comms' collective names (torch/csrc/distributed/c10d),
 * folded: lower case, '_' dropped.  FALSE: not one ifsim replays; *p2p:
 * a send or receive. */
static gboolean coll_of(const char *name, NcclColl *out, gboolean *p2p)
{
  g_autoptr(GString) f = g_string_new(NULL);

  *p2p = FALSE;
  for (const char *c = name; *c; c++)
    if (*c != '_')
      g_string_append_c(f, g_ascii_tolower(*c));
  if (g_str_has_suffix(f->str, "coalesced"))
    g_string_truncate(f, f->len - strlen("coalesced"));
  if (g_str_equal(f->str, "allreduce") || g_str_equal(f->str, "barrier"))
    *out = NCCL_COLL_ALLREDUCE;
  else if (g_str_has_prefix(f->str, "allgather"))
    *out = NCCL_COLL_ALLGATHER;
  else if (g_str_has_prefix(f->str, "reducescatter"))
    *out = NCCL_COLL_REDUCESCATTER;
  else if (g_str_equal(f->str, "broadcast"))
    *out = NCCL_COLL_BROADCAST;
  else if (g_str_equal(f->str, "reduce"))
    *out = NCCL_COLL_REDUCE;
  else if (g_str_has_prefix(f->str, "alltoall"))
    *out = NCCL_COLL_ALLTOALL;
  else if (g_str_equal(f->str, "send") || g_str_equal(f->str, "recv") ||
           g_str_equal(f->str, "sendrecv")) {
    *out = NCCL_COLL_SENDRECV;
    *p2p = TRUE;
  } else
    return FALSE;
  return TRUE;
}

static gboolean is_nccl_kernel(const char *name)
{
  return g_str_has_prefix(name, "ncclKernel_") ||
         g_str_has_prefix(name, "ncclDevKernel_");
}

/* "[0, 1, 2]" -> ranks; FALSE for another form. */
static gboolean parse_ranks(const char *t, GArray *out)
{
  const char *c = t;

  g_array_set_size(out, 0);
  if (*c++ != '[')
    return FALSE;
  for (;;) {
    guint64 v = 0;
    gboolean digits = FALSE;

    while (*c == ' ')
      c++;
    if (*c == ']' && out->len == 0)
      break;
    for (; g_ascii_isdigit(*c); c++, digits = TRUE) {
      v = v * 10 + (guint64)(*c - '0');
      if (v >= TRC_MAX_RANKS)
        return FALSE;
    }
    if (!digits)
      return FALSE;
    {
      guint32 r = (guint32)v;

      g_array_append_val(out, r);
    }
    while (*c == ' ')
      c++;
    if (*c == ']')
      break;
    if (*c++ != ',')
      return FALSE;
  }
  return c[1] == '\0';
}

static int cmp_item(gconstpointer a, gconstpointer b)
{
  const GItem *x = a, *y = b;

  if (x->stream != y->stream)
    return x->stream < y->stream ? -1 : 1;
  if (x->t0 != y->t0)
    return x->t0 < y->t0 ? -1 : 1;
  return x->t1 < y->t1 ? -1 : x->t1 > y->t1;
}

/* The process group over ranks, made when new. */
static gint64 pgroup(Kin *k, const GArray *ranks)
{
  g_autoptr(GString) key = g_string_new(NULL);
  gpointer v;
  PGroup *p;

  for (guint i = 0; i < ranks->len; i++)
    g_string_append_printf(key, "%s%u", i ? "," : "",
                           g_array_index(ranks, guint32, i));
  v = g_hash_table_lookup(k->pg_of, key->str);
  if (v)
    return GPOINTER_TO_UINT(v) - 1;
  p = g_new0(PGroup, 1);
  p->n = ranks->len;
  p->ranks = g_memdup2(ranks->data, ranks->len * sizeof(guint32));
  p->calls = g_new0(GArray *, p->n);
  for (guint i = 0; i < p->n; i++)
    p->calls[i] = g_array_new(FALSE, FALSE, sizeof(guint32));
  g_ptr_array_add(k->pgroups, p);
  g_hash_table_insert(k->pg_of, g_string_free(g_steal_pointer(&key), FALSE),
                      GUINT_TO_POINTER(k->pgroups->len));
  return k->pgroups->len - 1;
}

/* --- the file ------------------------------------------------------------ */

/* One event of traceEvents as the reader keeps it: the fields it reads,
 * the others skipped as they stream by. */
typedef struct {
  char name[512], cat[32], cname[64], dtype[32], pgr[4096];
  gboolean has_name, has_cat, has_cname, has_dtype, has_pgr;
  double ts, dur, tid, corr, stream, in_n, out_n, gsize;
  gboolean has_ts, has_dur, has_tid, has_corr, has_stream, has_in, has_out,
      has_gsize;
} Event;

/* A GPU event read before the step's launches are known. */
typedef struct {
  double corr;
  GItem it;
} Pending;

typedef struct {
  double corr, ts;
} Launch;

typedef struct {
  Kin *k;
  const char *name;
  KRank *kr;
  gint64 want_step; /* -1: only the steps */
  GArray *steps;    /* gint64 */
  double s0, s1;
  GArray *launches; /* Launch */
  GArray *pending;  /* Pending */
  GArray *ranks;    /* guint32 scratch */
  /* where the stream is */
  guint depth;       /* maps and arrays open */
  int key;           /* the key just read, K_* */
  int in;            /* IN_* */
  guint event_depth; /* depth of the event's map */
  guint n_events;
  Event e;
  gboolean have_rank, have_world, root_map, saw_events;
  double rank, world;
  GError *error;
} Stream;

enum { IN_NONE, IN_DIST, IN_EVENTS, IN_EVENT, IN_ARGS };
enum {
  K_OTHER,
  K_DIST,
  K_EVENTS,
  K_RANK,
  K_WORLD,
  K_NAME,
  K_CAT,
  K_TS,
  K_DUR,
  K_TID,
  K_ARGS,
  K_CORR,
  K_STREAM,
  K_CNAME,
  K_IN,
  K_OUT,
  K_GSIZE,
  K_DTYPE,
  K_PGR
};

static int stop(Stream *st, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

static int stop(Stream *st, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;

  if (st->error)
    return 0;
  va_start(ap, fmt);
  msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_set_error(&st->error, TRC_ERROR, TRC_ERROR_PARSE, "%s: %s", st->name, msg);
  return 0;
}

static gboolean key_is(const unsigned char *k, size_t n, const char *lit)
{
  return strlen(lit) == n && memcmp(k, lit, n) == 0;
}

static int on_key(void *ctx, const unsigned char *k, size_t n)
{
  Stream *st = ctx;

  st->key = K_OTHER;
  switch (st->in) {
  case IN_NONE:
    if (st->depth == 1)
      st->key = key_is(k, n, "distributedInfo") ? K_DIST
                : key_is(k, n, "traceEvents")   ? K_EVENTS
                                                : K_OTHER;
    break;
  case IN_DIST:
    if (st->depth == 2)
      st->key = key_is(k, n, "rank")         ? K_RANK
                : key_is(k, n, "world_size") ? K_WORLD
                                             : K_OTHER;
    break;
  case IN_EVENT:
    if (st->depth == st->event_depth)
      st->key = key_is(k, n, "name")   ? K_NAME
                : key_is(k, n, "cat")  ? K_CAT
                : key_is(k, n, "ts")   ? K_TS
                : key_is(k, n, "dur")  ? K_DUR
                : key_is(k, n, "tid")  ? K_TID
                : key_is(k, n, "args") ? K_ARGS
                                       : K_OTHER;
    break;
  case IN_ARGS:
    if (st->depth == st->event_depth + 1)
      st->key = key_is(k, n, "correlation")           ? K_CORR
                : key_is(k, n, "stream")              ? K_STREAM
                : key_is(k, n, "Collective name")     ? K_CNAME
                : key_is(k, n, "In msg nelems")       ? K_IN
                : key_is(k, n, "Out msg nelems")      ? K_OUT
                : key_is(k, n, "Group size")          ? K_GSIZE
                : key_is(k, n, "dtype")               ? K_DTYPE
                : key_is(k, n, "Process Group Ranks") ? K_PGR
                                                      : K_OTHER;
    break;
  default: break;
  }
  return 1;
}

/* A number (any JSON number: yajl's text of it). */
static int on_number(void *ctx, const char *t, size_t n)
{
  Stream *st = ctx;
  char buf[64];
  double v;
  char *end;

  if (st->key == K_OTHER)
    return 1;
  if (n >= sizeof buf)
    return stop(st, "event %u: a number of %zu digits", st->n_events, n);
  memcpy(buf, t, n);
  buf[n] = '\0';
  v = g_ascii_strtod(buf, &end);
  if (*end != '\0' || !isfinite(v))
    return stop(st, "event %u: number '%s' out of range", st->n_events, buf);
  switch (st->key) {
  case K_RANK:
    st->rank = v;
    st->have_rank = TRUE;
    break;
  case K_WORLD:
    st->world = v;
    st->have_world = TRUE;
    break;
  case K_TS:
    st->e.ts = v;
    st->e.has_ts = TRUE;
    break;
  case K_DUR:
    st->e.dur = v;
    st->e.has_dur = TRUE;
    break;
  case K_TID:
    st->e.tid = v;
    st->e.has_tid = TRUE;
    break;
  case K_CORR:
    st->e.corr = v;
    st->e.has_corr = TRUE;
    break;
  case K_STREAM:
    st->e.stream = v;
    st->e.has_stream = TRUE;
    break;
  case K_IN:
    st->e.in_n = v;
    st->e.has_in = TRUE;
    break;
  case K_OUT:
    st->e.out_n = v;
    st->e.has_out = TRUE;
    break;
  case K_GSIZE:
    st->e.gsize = v;
    st->e.has_gsize = TRUE;
    break;
  default: break;
  }
  st->key = K_OTHER;
  return 1;
}

static void copy_text(char *dst, gsize cap, gboolean *has,
                      const unsigned char *t, size_t n)
{
  n = MIN(n, cap - 1);
  memcpy(dst, t, n);
  dst[n] = '\0';
  *has = TRUE;
}

static int on_string(void *ctx, const unsigned char *t, size_t n)
{
  Stream *st = ctx;
  Event *e = &st->e;

  switch (st->key) {
  case K_NAME: copy_text(e->name, sizeof e->name, &e->has_name, t, n); break;
  case K_CAT: copy_text(e->cat, sizeof e->cat, &e->has_cat, t, n); break;
  case K_CNAME:
    copy_text(e->cname, sizeof e->cname, &e->has_cname, t, n);
    break;
  case K_DTYPE:
    copy_text(e->dtype, sizeof e->dtype, &e->has_dtype, t, n);
    break;
  case K_PGR: copy_text(e->pgr, sizeof e->pgr, &e->has_pgr, t, n); break;
  default: break;
  }
  st->key = K_OTHER;
  return 1;
}

static int on_scalar(void *ctx)
{
  ((Stream *)ctx)->key = K_OTHER;
  return 1;
}

static int on_bool(void *ctx, int b)
{
  (void)b;
  return on_scalar(ctx);
}

static int on_start_map(void *ctx)
{
  Stream *st = ctx;

  st->depth++;
  if (st->depth == 1)
    st->root_map = TRUE;
  if (st->in == IN_NONE && st->depth == 2 && st->key == K_DIST)
    st->in = IN_DIST;
  else if (st->in == IN_EVENTS && st->depth == st->event_depth) {
    st->in = IN_EVENT;
    memset(&st->e, 0, sizeof st->e);
  } else if (st->in == IN_EVENT && st->depth == st->event_depth + 1 &&
             st->key == K_ARGS)
    st->in = IN_ARGS;
  st->key = K_OTHER;
  return 1;
}

static int on_start_array(void *ctx)
{
  Stream *st = ctx;

  st->depth++;
  if (st->in == IN_NONE && st->depth == 2 && st->key == K_EVENTS) {
    st->in = IN_EVENTS;
    st->event_depth = 3;
    st->saw_events = TRUE;
  }
  st->key = K_OTHER;
  return 1;
}

static int on_end_array(void *ctx)
{
  Stream *st = ctx;

  if (st->in == IN_EVENTS && st->depth == 2)
    st->in = IN_NONE;
  st->depth--;
  st->key = K_OTHER;
  return 1;
}

static gboolean event_done(Stream *st);

static int on_end_map(void *ctx)
{
  Stream *st = ctx;

  if (st->in == IN_DIST && st->depth == 2)
    st->in = IN_NONE;
  else if (st->in == IN_ARGS && st->depth == st->event_depth + 1)
    st->in = IN_EVENT;
  else if (st->in == IN_EVENT && st->depth == st->event_depth) {
    st->in = IN_EVENTS;
    if (!event_done(st))
      return 0;
    st->n_events++;
  }
  st->depth--;
  st->key = K_OTHER;
  return 1;
}

/* An event whole: a step, a launch, a GPU event kept for later. */
static gboolean event_done(Stream *st)
{
  const Event *e = &st->e;
  guint i = st->n_events;

  if (e->has_name && g_str_has_prefix(e->name, "ProfilerStep#")) {
    gint64 step = g_ascii_strtoll(e->name + strlen("ProfilerStep#"), NULL, 10);

    if (!e->has_ts || !e->has_dur || e->dur <= 0)
      return stop(st,
                  "event %u (%s): expected a \"ts\" and a \"dur\" above 0 "
                  "in microseconds",
                  i, e->name);
    g_array_append_val(st->steps, step);
    if (step == st->want_step) {
      st->s0 = e->ts;
      st->s1 = e->ts + e->dur;
      st->kr->cpu_step_ns = e->dur * 1e3;
    }
    return TRUE;
  }
  if (st->want_step < 0 || !e->has_cat || !e->has_corr)
    return TRUE;
  if (g_str_equal(e->cat, "cuda_runtime") ||
      g_str_equal(e->cat, "cuda_driver")) {
    Launch l = {e->corr, e->ts};

    if (e->has_ts)
      g_array_append_val(st->launches, l);
    return TRUE;
  }
  if (!g_str_equal(e->cat, "kernel") && !g_str_equal(e->cat, "gpu_memcpy") &&
      !g_str_equal(e->cat, "gpu_memset"))
    return TRUE;
  {
    Pending p = {.corr = e->corr};
    GItem *it = &p.it;
    Kin *k = st->k;

    it->wait = -1;
    it->node = -1;
    it->pg = -1;
    if (!e->has_name || !e->has_ts || !e->has_dur || e->dur < 0)
      return stop(st,
                  "event %u (a %s): expected a \"name\", a \"ts\" and a "
                  "\"dur\" of 0 or more microseconds",
                  i, e->cat);
    if (!e->has_stream && !e->has_tid)
      return stop(st, "event %u (%s): no stream (args.stream, tid)", i,
                  e->name);
    if (fabs(e->has_stream ? e->stream : e->tid) > 9007199254740992.0)
      return stop(st,
                  "event %u (%s): stream %.0f: expected a whole number "
                  "below 2^53",
                  i, e->name, e->has_stream ? e->stream : e->tid);
    it->stream = (gint64)(e->has_stream ? e->stream : e->tid);
    it->t0 = e->ts; /* made relative to the step once it is known */
    it->t1 = e->dur;
    it->kind = G_COMPUTE;
    if (g_str_equal(e->cat, "kernel") && is_nccl_kernel(e->name)) {
      gboolean p2p;

      it->kind = G_MEASURED;
      if (!e->has_cname || !e->has_in || !e->has_out) {
        k->measured_nosize++;
      } else if (!coll_of(e->cname, &it->coll, &p2p)) {
        k->measured_other++;
      } else if (p2p) {
        k->measured_p2p++;
      } else {
        guint ds = dtype_size(e->has_dtype ? e->dtype : NULL);
        double elems = it->coll == NCCL_COLL_ALLGATHER ? e->out_n : e->in_n;
        GArray *ranks = st->ranks;
        gboolean mine = FALSE;

        if (ds == 0)
          return stop(st,
                      "event %u (%s): dtype '%s': not a PyTorch dtype "
                      "(expected Float, BFloat16, Half, Long, ...)",
                      i, e->name, e->has_dtype ? e->dtype : "");
        if (!e->has_pgr || !parse_ranks(e->pgr, ranks) || ranks->len == 0 ||
            !e->has_gsize || e->gsize != ranks->len)
          return stop(st,
                      "event %u (%s): \"Process Group Ranks\" '%s' and "
                      "\"Group size\": expected a list of the group's "
                      "global ranks, as many as its size",
                      i, e->name, e->has_pgr ? e->pgr : "");
        if (elems < 1 || elems * ds > (double)TRC_MAX_BYTES ||
            elems != (double)(guint64)elems)
          return stop(st,
                      "event %u (%s): %.0f elements: expected a whole "
                      "number from 1, at most 2^50 bytes",
                      i, e->name, elems);
        for (guint q = 0; q < ranks->len; q++)
          mine = mine || g_array_index(ranks, guint32, q) == st->rank;
        for (guint q = 0; q < ranks->len; q++)
          if (g_array_index(ranks, guint32, q) >= st->world)
            mine = FALSE;
        if (!st->have_rank || !st->have_world)
          return stop(st,
                      "event %u (%s): a collective before "
                      "distributedInfo: expected the file's rank and "
                      "world_size first (torch.profiler writes them "
                      "before the events)",
                      i, e->name);
        if (!mine)
          return stop(st,
                      "event %u (%s): process group %s does not hold the "
                      "file's rank %.0f, or names a rank beyond world_size "
                      "%.0f",
                      i, e->name, e->pgr, st->rank, st->world);
        it->kind = G_COLL;
        it->bytes = (guint64)elems * ds;
        it->pg = pgroup(k, ranks);
      }
    }
    g_array_append_val(st->pending, p);
  }
  return TRUE;
}

static const yajl_callbacks callbacks = {
    .yajl_null = on_scalar,
    .yajl_boolean = on_bool,
    .yajl_number = on_number,
    .yajl_string = on_string,
    .yajl_start_map = on_start_map,
    .yajl_map_key = on_key,
    .yajl_end_map = on_end_map,
    .yajl_start_array = on_start_array,
    .yajl_end_array = on_end_array,
};

/* Feeds yajl; FALSE with st->error (or yajl's) set. */
static gboolean feed(Stream *st, yajl_handle h, const guchar *buf, gsize n)
{
  if (yajl_parse(h, buf, n) == yajl_status_ok)
    return TRUE;
  if (!st->error) {
    unsigned char *m = yajl_get_error(h, 0, buf, n);

    stop(st, "not valid JSON: %s", (const char *)m);
    yajl_free_error(h, m);
  }
  return FALSE;
}

/* Streams the file (gunzipped when it starts with gzip's magic bytes)
 * through yajl, no tree built. */
static gboolean stream_file(Stream *st, const char *data, gsize len)
{
  yajl_handle h = yajl_alloc(&callbacks, NULL, st);
  gboolean ok = TRUE;

  if (len >= 2 && (guchar)data[0] == 0x1f && (guchar)data[1] == 0x8b) {
    g_autoptr(GZlibDecompressor) z =
        g_zlib_decompressor_new(G_ZLIB_COMPRESSOR_FORMAT_GZIP);
    gsize in = 0;

    while (ok) {
      guint8 buf[65536];
      gsize read = 0, written = 0;
      g_autoptr(GError) e = NULL;
      GConverterResult r = g_converter_convert(
          G_CONVERTER(z), data + in, len - in, buf, sizeof buf,
          G_CONVERTER_INPUT_AT_END, &read, &written, &e);

      if (r == G_CONVERTER_ERROR) {
        ok = stop(st, "not a whole gzip stream (%s): a truncated file?",
                  e->message);
        break;
      }
      in += read;
      ok = feed(st, h, buf, written);
      if (r == G_CONVERTER_FINISHED)
        break;
    }
  } else {
    ok = feed(st, h, (const guchar *)data, len);
  }
  if (ok && yajl_complete_parse(h) != yajl_status_ok) {
    unsigned char *m = yajl_get_error(h, 0, NULL, 0);

    ok = stop(st, "not valid JSON: %s", (const char *)m);
    yajl_free_error(h, m);
  }
  yajl_free(h);
  return ok && !st->error;
}

static int cmp_launch(gconstpointer a, gconstpointer b)
{
  double x = ((const Launch *)a)->corr, y = ((const Launch *)b)->corr;

  return x < y ? -1 : x > y;
}

/* Reads one rank's file: its rank, the steps it holds, and for want_step
 * (not -1) the step's window and GPU work. */
static gboolean read_rank(Kin *k, const char *name, const char *data, gsize len,
                          gint64 want_step, KRank *kr, GArray *steps,
                          GError **error)
{
  Stream st = {.k = k,
               .name = name,
               .kr = kr,
               .want_step = want_step,
               .steps = steps,
               .s0 = -1,
               .launches = g_array_new(FALSE, FALSE, sizeof(Launch)),
               .pending = g_array_new(FALSE, FALSE, sizeof(Pending)),
               .ranks = g_array_new(FALSE, FALSE, sizeof(guint32))};
  gboolean ok;

  kr->name = g_strdup(name);
  kr->items = g_array_new(FALSE, TRUE, sizeof(GItem));
  ok = stream_file(&st, data, len);
  if (ok && !st.root_map)
    ok = stop(&st, "not a Kineto trace: expected a JSON object with "
                   "\"traceEvents\" (torch.profiler's export_chrome_trace)");
  if (ok && !st.saw_events)
    ok = stop(&st, "not a Kineto trace: no \"traceEvents\" list (expected "
                   "torch.profiler's export_chrome_trace output)");
  if (ok && (!st.have_rank || st.rank < 0 || st.rank >= TRC_MAX_RANKS ||
             st.rank != (gint64)st.rank))
    ok = stop(&st, "no distributedInfo.rank: expected a trace of one rank "
                   "of a distributed job (torch.profiler writes "
                   "distributedInfo when torch.distributed is initialized)");
  if (ok && (!st.have_world || st.world < 1 || st.world > TRC_MAX_RANKS ||
             st.world != (gint64)st.world || st.rank >= st.world))
    ok = stop(&st,
              "distributedInfo.world_size: expected a whole number of "
              "ranks above the file's rank %.0f",
              st.rank);
  if (ok) {
    kr->rank = (gint64)st.rank;
    kr->world = (gint64)st.world;
  }
  if (ok && want_step >= 0 && st.s0 < 0)
    ok = stop(&st, "no ProfilerStep#%" G_GINT64_FORMAT " event", want_step);
  if (ok && want_step >= 0) {
    /* the GPU work whose launch is in the step's window */
    g_array_sort(st.launches, cmp_launch);
    for (guint i = 0; i < st.pending->len && ok; i++) {
      Pending *p = &g_array_index(st.pending, Pending, i);
      guint lo = 0, hi = st.launches->len;

      while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;

        if (g_array_index(st.launches, Launch, mid).corr < p->corr)
          lo = mid + 1;
        else
          hi = mid;
      }
      for (; lo < st.launches->len &&
             g_array_index(st.launches, Launch, lo).corr == p->corr;
           lo++) {
        double ts = g_array_index(st.launches, Launch, lo).ts;

        if (ts >= st.s0 && ts <= st.s1) {
          GItem it = p->it;

          it.t0 = (it.t0 - st.s0) * 1e3; /* ns; t1 held the duration */
          it.t1 = it.t0 + it.t1 * 1e3;
          /* every time of the step inside 2^60 ps of its start */
          if (it.t0 < -KINETO_MAX_NS || it.t1 > KINETO_MAX_NS) {
            ok = stop(&st,
                      "GPU work %.0f us from ProfilerStep#%" G_GINT64_FORMAT
                      "'s start: expected the step's work within %.0f s "
                      "of it",
                      (it.t0 < 0 ? it.t0 : it.t1) / 1e3, want_step,
                      KINETO_MAX_NS / 1e9);
            break;
          }
          g_array_append_val(kr->items, it);
          break;
        }
      }
    }
    g_array_sort(kr->items, cmp_item);
    kr->step_ns = 0;
    for (guint i = 0; i < kr->items->len; i++)
      kr->step_ns = MAX(kr->step_ns, g_array_index(kr->items, GItem, i).t1);
  }
  g_array_free(st.launches, TRUE);
  g_array_free(st.pending, TRUE);
  g_array_free(st.ranks, TRUE);
  if (!ok)
    g_propagate_error(error, st.error);
  return ok;
}

/* --- the step as ops ----------------------------------------------------- */

static int cmp_end(gconstpointer a, gconstpointer b, gpointer items)
{
  double x = g_array_index((GArray *)items, GItem, *(const guint32 *)a).t1;
  double y = g_array_index((GArray *)items, GItem, *(const guint32 *)b).t1;

  return x < y ? -1 : x > y;
}

/* Inferred waits between a rank's streams (see the file's comment): for
 * each item, the other stream's work that ended last before it started,
 * within KINETO_WAIT_NS and after its own stream went idle.  The items by
 * end, searched from the item's start back: n log n. */
static void infer_waits(KRank *kr)
{
  GArray *it = kr->items;
  g_autofree guint32 *by_end = g_new(guint32, MAX(it->len, 1));

  for (guint i = 0; i < it->len; i++)
    by_end[i] = i;
  g_qsort_with_data(by_end, (gint)it->len, sizeof(guint32), cmp_end, it);
  for (guint i = 0; i < it->len; i++) {
    GItem *x = &g_array_index(it, GItem, i);
    double idle_from = 0;
    guint lo = 0, hi = it->len;

    x->wait = -1;
    if (i > 0 && g_array_index(it, GItem, i - 1).stream == x->stream)
      idle_from = g_array_index(it, GItem, i - 1).t1;
    while (lo < hi) { /* the first item ending after x starts */
      guint mid = lo + (hi - lo) / 2;

      if (g_array_index(it, GItem, by_end[mid]).t1 <= x->t0)
        lo = mid + 1;
      else
        hi = mid;
    }
    while (lo-- > 0) {
      const GItem *z = &g_array_index(it, GItem, by_end[lo]);

      if (x->t0 - z->t1 > KINETO_WAIT_NS || z->t1 <= idle_from)
        break;
      if (z->stream != x->stream) {
        x->wait = by_end[lo];
        break;
      }
    }
    if (x->wait >= 0)
      g_array_index(it, GItem, x->wait).waited_on = TRUE;
  }
}

static SimTime ns_to_ps(double ns)
{
  return ns <= 0 ? 0 : (SimTime)(ns * 1e3 + 0.5);
}

/* A node of the step's graph: a compute op on one rank, or a collective. */
typedef struct {
  gboolean coll;
  guint32 rank; /* compute */
  SimTime ps;   /* compute */
  const char *what;
  NcclColl kind; /* collective */
  guint64 bytes;
  gint64 pg;
  double t0, t1; /* measured: first start; the collective's span after its
                    last rank arrived ends at t1 */
  double last_in;
  GArray *deps; /* guint32 node ids */
} Node;

typedef struct {
  GArray *nodes;      /* Node */
  GArray **item_node; /* per rank: node of each item */
  GArray **lead;      /* per rank: lead node of each collective item, or -1 */
} Graph;

static guint32 new_node(Graph *g, gboolean coll, double t0)
{
  Node n = {.coll = coll,
            .t0 = t0,
            .deps = g_array_new(FALSE, FALSE, sizeof(guint32))};

  g_array_append_val(g->nodes, n);
  return g->nodes->len - 1;
}

static void add_dep(Graph *g, guint32 node, guint32 dep)
{
  Node *n = &g_array_index(g->nodes, Node, node);

  if (dep == node)
    return;
  for (guint i = 0; i < n->deps->len; i++)
    if (g_array_index(n->deps, guint32, i) == dep)
      return;
  g_array_append_val(n->deps, dep);
}

/* The node of file f's item. */
static guint32 item_node(const Graph *g, guint32 f, gint64 item)
{
  return g_array_index(g->item_node[f], guint32, item);
}

/* The measured start an item could have had: its stream's previous work
 * and what it waited for done. */
static double anchor(const KRank *kr, guint i)
{
  const GItem *x = &g_array_index(kr->items, GItem, i);
  double a = 0;

  if (i > 0 && g_array_index(kr->items, GItem, i - 1).stream == x->stream)
    a = g_array_index(kr->items, GItem, i - 1).t1;
  if (x->wait >= 0)
    a = MAX(a, g_array_index(kr->items, GItem, x->wait).t1);
  return MIN(a, x->t0);
}

/* Nodes of file f's items (rank r): segments of compute, leads, and its
 * part of each collective (made by match_groups before). */
static void rank_nodes(Graph *g, KRank *kr, guint32 f, guint32 r)
{
  GArray *it = kr->items;
  gint64 seg = -1;

  for (guint i = 0; i < it->len; i++) {
    GItem *x = &g_array_index(it, GItem, i);
    const GItem *p =
        i > 0 && g_array_index(it, GItem, i - 1).stream == x->stream
            ? &g_array_index(it, GItem, i - 1)
            : NULL;
    guint32 node;
    gint64 lead = -1;

    if (x->kind == G_COLL) {
      double a = anchor(kr, i);

      seg = -1;
      if (x->t0 - a >= 1) { /* its launch gap, as measured */
        lead = new_node(g, FALSE, a);
        g_array_index(g->nodes, Node, lead).rank = r;
        g_array_index(g->nodes, Node, lead).ps = ns_to_ps(x->t0 - a);
        g_array_index(g->nodes, Node, lead).what = "lead";
      }
      node = x->inst;
    } else {
      if (seg < 0 || !p || p->kind == G_COLL || x->wait >= 0 || p->waited_on) {
        seg = new_node(g, FALSE, anchor(kr, i));
        g_array_index(g->nodes, Node, seg).rank = r;
        g_array_index(g->nodes, Node, seg).what = "compute";
      }
      {
        Node *s = &g_array_index(g->nodes, Node, seg);

        s->t1 = x->t1;
        s->ps = ns_to_ps(x->t1 - s->t0);
        if (x->kind == G_MEASURED)
          s->what = "measured";
      }
      node = (guint32)seg;
    }
    g_array_append_val(g->item_node[f], node);
    {
      gint32 l = (gint32)lead;

      g_array_append_val(g->lead[f], l);
    }
  }
}

/* The dependencies of file f's nodes (every item's node known). */
static void rank_deps(Graph *g, const KRank *kr, guint32 f)
{
  GArray *it = kr->items;

  for (guint i = 0; i < it->len; i++) {
    const GItem *x = &g_array_index(it, GItem, i);
    guint32 node = item_node(g, f, i);
    gint32 lead = g_array_index(g->lead[f], gint32, i);
    guint32 first = lead >= 0 ? (guint32)lead : node;
    gboolean starts = x->kind == G_COLL || i == 0 ||
                      g_array_index(it, GItem, i - 1).stream != x->stream ||
                      item_node(g, f, i - 1) != node;

    if (!starts)
      continue; /* inside a segment: its first item gave the deps */
    if (i > 0 && g_array_index(it, GItem, i - 1).stream == x->stream)
      add_dep(g, first, item_node(g, f, i - 1));
    if (x->wait >= 0)
      add_dep(g, first, item_node(g, f, x->wait));
    if (lead >= 0)
      add_dep(g, node, (guint32)lead);
  }
}

static int cmp_start(gconstpointer a, gconstpointer b, gpointer items)
{
  const GItem *x = &g_array_index((GArray *)items, GItem, *(const guint32 *)a);
  const GItem *y = &g_array_index((GArray *)items, GItem, *(const guint32 *)b);

  return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

/* A process group's k-th collective on each of its ranks is one node. */
static gboolean match_groups(Kin *k, Graph *g, KRank *kr, guint32 world,
                             const gint64 *file_of, GError **error)
{
  for (guint32 r = 0; r < world; r++) {
    GArray *it = kr[file_of[r]].items;
    g_autoptr(GArray) order = g_array_new(FALSE, FALSE, sizeof(guint32));

    /* the rank's collectives by start */
    for (guint i = 0; i < it->len; i++)
      if (g_array_index(it, GItem, i).kind == G_COLL)
        g_array_append_val(order, i);
    g_array_sort_with_data(order, cmp_start, it);
    for (guint a = 0; a < order->len; a++) {
      const GItem *x =
          &g_array_index(it, GItem, g_array_index(order, guint32, a));
      PGroup *p = g_ptr_array_index(k->pgroups, x->pg);
      guint32 m;
      guint32 packed[2] = {r, g_array_index(order, guint32, a)};

      for (m = 0; m < p->n && p->ranks[m] != r; m++)
        ;
      g_array_append_vals(p->calls[m], packed, 2);
    }
  }
  for (guint q = 0; q < k->pgroups->len; q++) {
    PGroup *p = g_ptr_array_index(k->pgroups, q);
    guint32 calls = p->calls[0]->len / 2;

    for (guint32 m = 1; m < p->n; m++) {
      if (p->calls[m]->len / 2 != calls) {
        return trc_file_error(
            error, kr[file_of[p->ranks[m]]].name,
            "rank %u made %u collectives over process group [%u, "
            "...] in the step, rank %u made %u: the ranks disagree "
            "(traces of different steps or jobs?)",
            p->ranks[m], p->calls[m]->len / 2, p->ranks[0], p->ranks[0], calls);
      }
    }
    for (guint32 c = 0; c < calls; c++) {
      guint32 node = new_node(g, TRUE, G_MAXDOUBLE);
      Node *nd;
      const GItem *x0 = NULL;

      for (guint32 m = 0; m < p->n; m++) {
        guint32 r = g_array_index(p->calls[m], guint32, 2 * c);
        guint32 i = g_array_index(p->calls[m], guint32, 2 * c + 1);
        GItem *x = &g_array_index(kr[file_of[r]].items, GItem, i);

        nd = &g_array_index(g->nodes, Node, node);
        if (x0 && (x->coll != x0->coll || x->bytes != x0->bytes))
          return trc_file_error(
              error, kr[file_of[r]].name,
              "its %s of %" G_GUINT64_FORMAT " bytes (%.3f us "
              "into the step) is collective %u of process group "
              "[%u, ...]; rank %u's is %s of %" G_GUINT64_FORMAT
              " bytes: the ranks disagree",
              trc_coll_name(x->coll), x->bytes, x->t0 / 1e3, c + 1, p->ranks[0],
              p->ranks[0], trc_coll_name(x0->coll), x0->bytes);
        if (!x0)
          x0 = x;
        x->inst = node;
        nd->kind = x->coll;
        nd->bytes = x->bytes;
        nd->pg = (gint64)q;
        nd->t0 = MIN(nd->t0, x->t0);
        nd->last_in = MAX(nd->last_in, x->t0);
        nd->t1 = MAX(nd->t1, x->t1);
      }
    }
  }
  return TRUE;
}

/* The nodes as the workload's ops (traces/tracegraph.h): each after its
 * dependencies, the earliest measured start first. */
static gboolean emit(Kin *k, Graph *g, TrcWorkload *w, GError **error)
{
  g_autoptr(TrcGraph) tg = trc_graph_new();
  g_autofree guint32 *pg_comm = g_new(guint32, MAX(k->pgroups->len, 1));

  for (guint32 q = 0; q < k->pgroups->len; q++) {
    const PGroup *p = g_ptr_array_index(k->pgroups, q);
    g_autofree char *name = g_strdup_printf("pg%u", q);

    pg_comm[q] = trc_graph_comm(tg, name, p->ranks, p->n);
  }
  /* node v of g is node v of tg */
  for (guint32 v = 0; v < g->nodes->len; v++) {
    const Node *x = &g_array_index(g->nodes, Node, v);

    if (x->coll) {
      trc_graph_coll(tg, x->kind, x->bytes, pg_comm[x->pg], x->t0);
      trc_graph_set_measured(tg, v, ns_to_ps(x->t1 - x->last_in));
    } else {
      trc_graph_compute(tg, x->rank, x->ps, x->what, x->t0);
    }
  }
  for (guint32 v = 0; v < g->nodes->len; v++) {
    const Node *x = &g_array_index(g->nodes, Node, v);

    for (guint i = 0; i < x->deps->len; i++)
      trc_graph_dep(tg, v, g_array_index(x->deps, guint32, i));
  }
  return trc_graph_emit(tg, w, w->source, error);
}

static void krank_clear(KRank *kr)
{
  if (kr->items)
    g_array_free(kr->items, TRUE);
  g_free(kr->name);
}

static void pgroup_free(gpointer x)
{
  PGroup *p = x;

  for (guint32 m = 0; m < p->n; m++)
    g_array_free(p->calls[m], TRUE);
  g_free(p->calls);
  g_free(p->ranks);
  g_free(p);
}

TrcWorkload *trc_workload_load_kineto_data(const char *const *texts,
                                           const gsize *lens,
                                           const char *const *names,
                                           guint n_files, gint64 step,
                                           GString *notes, GError **error)
{
  Kin k = {.names = names,
           .pgroups = g_ptr_array_new_with_free_func(pgroup_free),
           .pg_of =
               g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
           .notes = notes ? notes : g_string_new(NULL)};
  g_autofree KRank *kr = g_new0(KRank, n_files);
  g_autoptr(TrcWorkload) w = g_new0(TrcWorkload, 1);
  g_autofree gint64 *file_of = NULL;
  Graph g = {.nodes = g_array_new(FALSE, TRUE, sizeof(Node))};
  guint32 world = 0;
  gboolean ok = TRUE;

  w->source = g_strdup(n_files == 1 ? names[0] : "Kineto traces");
  if (step < 0) {
    /* the last step every file holds */
    g_autoptr(GHashTable) count =
        g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);

    for (guint f = 0; f < n_files && ok; f++) {
      g_autoptr(GArray) steps = g_array_new(FALSE, FALSE, sizeof(gint64));
      KRank tmp = {0};

      ok = read_rank(&k, names[f], texts[f], lens[f], -1, &tmp, steps, error);
      krank_clear(&tmp);
      for (guint i = 0; ok && i < steps->len; i++) {
        gint64 s = g_array_index(steps, gint64, i);
        gpointer v = g_hash_table_lookup(count, &s);
        gint64 *key = g_new(gint64, 1);

        *key = s;
        g_hash_table_replace(count, key,
                             GUINT_TO_POINTER(GPOINTER_TO_UINT(v) + 1));
      }
    }
    if (ok) {
      GHashTableIter it;
      gpointer key, v;

      g_hash_table_iter_init(&it, count);
      while (g_hash_table_iter_next(&it, &key, &v))
        if (GPOINTER_TO_UINT(v) == n_files && *(gint64 *)key > step)
          step = *(gint64 *)key;
      if (step < 0)
        ok = trc_file_error(
            error, names[0],
            "no ProfilerStep#N that every trace holds: record the "
            "same steps on every rank (torch.profiler.schedule, "
            "prof.step())");
    }
  }
  for (guint f = 0; f < n_files && ok; f++) {
    g_autoptr(GArray) steps = g_array_new(FALSE, FALSE, sizeof(gint64));

    ok = read_rank(&k, names[f], texts[f], lens[f], step, &kr[f], steps, error);
  }
  /* every rank once */
  if (ok) {
    world = (guint32)kr[0].world;
    file_of = g_new(gint64, world);
    for (guint32 r = 0; r < world; r++)
      file_of[r] = -1;
    for (guint f = 0; f < n_files && ok; f++) {
      if (kr[f].world != (gint64)world)
        ok = trc_file_error(error, names[f],
                            "world_size %" G_GINT64_FORMAT
                            ", %s's is %u: traces of "
                            "two jobs",
                            kr[f].world, names[0], world);
      else if (file_of[kr[f].rank] >= 0)
        ok = trc_file_error(error, names[f],
                            "rank %" G_GINT64_FORMAT
                            " again (also %s): one trace per "
                            "rank",
                            kr[f].rank, names[file_of[kr[f].rank]]);
      else
        file_of[kr[f].rank] = f;
    }
    for (guint32 r = 0; r < world && ok; r++)
      if (file_of[r] < 0)
        ok = trc_file_error(
            error, names[0],
            "world_size %u, and no trace of rank %u: give one trace "
            "per rank (torch.profiler writes one per process)",
            world, r);
  }
  if (ok) {
    g.item_node = g_new0(GArray *, n_files);
    g.lead = g_new0(GArray *, n_files);
    for (guint f = 0; f < n_files; f++) {
      infer_waits(&kr[f]);
      g.item_node[f] = g_array_new(FALSE, FALSE, sizeof(guint32));
      g.lead[f] = g_array_new(FALSE, FALSE, sizeof(gint32));
    }
    ok = match_groups(&k, &g, kr, world, file_of, error);
  }
  if (ok) {
    for (guint f = 0; f < n_files; f++)
      rank_nodes(&g, &kr[f], f, (guint32)kr[f].rank);
    for (guint f = 0; f < n_files; f++)
      rank_deps(&g, &kr[f], f);
    ok = emit(&k, &g, w, error);
  }
  if (ok) {
    double gpu = 0, cpu = 0;

    w->tp = w->pp = w->ep = 1;
    w->dp = world;
    for (guint f = 0; f < n_files; f++) {
      gpu = MAX(gpu, kr[f].step_ns);
      cpu = MAX(cpu, kr[f].cpu_step_ns);
    }
    w->measured_step_ps = ns_to_ps(gpu);
    g_string_append_printf(k.notes,
                           "ProfilerStep#%" G_GINT64_FORMAT " of %u ranks: "
                           "its GPU work ends %.3f us after the step starts "
                           "(the slowest rank), its CPU step lasts %.3f us "
                           "(the longest)\n",
                           step, world, gpu / 1e3, cpu / 1e3);
    if (k.measured_nosize + k.measured_p2p + k.measured_other > 0)
      g_string_append_printf(
          k.notes,
          "NCCL kernels kept at their measured time, not replayed on the "
          "fabric: %" G_GUINT64_FORMAT " without sizes (PyTorch before "
          "record_param_comms' kernel arguments), %" G_GUINT64_FORMAT
          " Send/Recv (the trace does not name the peer), %" G_GUINT64_FORMAT
          " of collectives ifsim does not replay\n",
          k.measured_nosize, k.measured_p2p, k.measured_other);
    if (w->n_ops == 0)
      ok = trc_file_error(error, names[0],
                          "ProfilerStep#%" G_GINT64_FORMAT
                          " has no GPU work in any "
                          "trace: nothing to replay",
                          step);
    else
      ok = trc_workload_validate(w, error);
  }
  for (guint v = 0; v < g.nodes->len; v++)
    g_array_free(g_array_index(g.nodes, Node, v).deps, TRUE);
  g_array_free(g.nodes, TRUE);
  for (guint f = 0; g.item_node && f < n_files; f++) {
    g_array_free(g.item_node[f], TRUE);
    g_array_free(g.lead[f], TRUE);
  }
  g_free(g.item_node);
  g_free(g.lead);
  for (guint f = 0; f < n_files; f++)
    krank_clear(&kr[f]);
  g_ptr_array_unref(k.pgroups);
  g_hash_table_destroy(k.pg_of);
  if (!notes)
    g_string_free(k.notes, TRUE);
  return ok ? g_steal_pointer(&w) : NULL;
}

TrcWorkload *trc_workload_load_kineto(const char *const *paths, guint n_files,
                                      gint64 step, GString *notes,
                                      GError **error)
{
  g_autofree char **texts = g_new0(char *, n_files);
  g_autofree gsize *lens = g_new0(gsize, n_files);
  TrcWorkload *w = NULL;

  if (trc_texts_read(paths, n_files, texts, lens, error)) {
    w = trc_workload_load_kineto_data((const char *const *)texts, lens, paths,
                                      n_files, step, notes, error);
    trc_texts_free(texts, n_files);
  }
  return w;
}
