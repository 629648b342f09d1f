/* ASTRA-sim 1.0 / SimAI text workloads (docs/workload.md, "Importing").
 *
 * Line 1: `<PARALLELISM> [key: value ...]`; line 2: the layer count; then
 * 12 whitespace-separated fields per layer: name, dep, fwd_compute,
 * fwd_comm_type, fwd_comm_bytes, ig_compute, ig_comm_type, ig_comm_bytes,
 * wg_compute, wg_comm_type, wg_comm_bytes, wg_update_time.  Compute times
 * are ticks (1 ns in ASTRA-sim and SimAI: CLOCK_PERIOD 1, FREQ = 1000 / it
 * ticks per microsecond, astra-sim/system/Common.hh), sizes bytes.
 *
 * What a step runs follows SimAI's astra-sim/workload/Workload.cc
 * (aliyun/SimAI, the text-workload reader ASTRA-sim 1.0 also had):
 * - decode_involved_dimensions: DATA runs only weight-gradient comms (over
 *   all dimensions: DP); MODEL only forward and input-gradient comms (TP
 *   = every rank); HYBRID_DATA_MODEL model parallelism on the first
 *   dimension (TP) for fwd/ig, data on the rest (DP) for wg;
 *   HYBRID_TRANSFORMER[_FWD_IN_BCKWD] fwd/ig over the
 *   model_parallel_NPU_group dimensions (TP), wg over the rest (DP).
 * - initialize_workload: a type's `_EP` suffix runs it over the expert-
 *   parallel group, `_DP_EP` over the expert-data-parallel one; without a
 *   suffix fwd/ig comms are TP, wg comms DP.
 * - iterate_*: forward layer by layer, compute then a blocking comm;
 *   backward from the last layer: HYBRID_TRANSFORMER* input-gradient
 *   compute and a blocking comm, then weight-gradient compute and a
 *   non-blocking comm; MODEL / HYBRID_DATA_MODEL the input-gradient comm
 *   non-blocking (waited for before the next layer, not issued for layer
 *   0), then the weight-gradient compute (and, HYBRID_DATA_MODEL, its
 *   comm); DATA weight-gradient compute and comm first, then the input
 *   gradient, none for layer 0.
 * - Layer::call: every comm is followed by wg_update_time ticks before it
 *   counts as finished (fwd_update_time = input_grad_update_time =
 *   weight_grad_update_time).
 * The step ends when every op, the non-blocking comms included, is done. */
#include "traces/error.h"
#include "traces/workload.h"

#include <math.h>
#include <string.h>

#include "sim/error.h"
#include "sim/input.h"
#include "sim/memory.h"

typedef enum {
  POL_DATA,
  POL_MODEL,
  POL_DATA_MODEL,
  POL_TRANSFORMER,
  POL_TRANSFORMER_FWD_IN_BCKWD,
} Policy;

static const struct {
  const char *name;
  Policy pol;
} policies[] = {
    {"DATA", POL_DATA},
    {"MODEL", POL_MODEL},
    {"HYBRID_DATA_MODEL", POL_DATA_MODEL},
    {"HYBRID_TRANSFORMER", POL_TRANSFORMER},
    {"HYBRID_TRANSFORMER_FWD_IN_BCKWD", POL_TRANSFORMER_FWD_IN_BCKWD},
};

typedef struct {
  char *text; /* in the lines' block: not owned */
  guint line;
} Tok;

/* The most ops a layer makes: forward compute, comm and its update;
 * input-gradient compute, comm and update; weight-gradient compute, comm
 * and update. */
#define ASTRA_OPS_PER_LAYER 9

/* What a layer holds while it is read: its 12 tokens, its fields (4 times,
 * 3 comms, a name), and up to 9 ops, each with its name ("l12.layer3.
 * wg_ALLREDUCE" and malloc's overhead) and dependencies. */
#define ASTRA_LAYER_BYTES                                                      \
  (12 * sizeof(Tok) + 4 * sizeof(SimTime) + 3 * sizeof(Comm) + 48 +            \
   ASTRA_OPS_PER_LAYER * (sizeof(TrcOp) + 48 + 32))

typedef struct {
  const char *path;
  GArray *ops;    /* TrcOp */
  gint64 last;    /* the chain's last op */
  gint64 wait;    /* an off-chain op the next chain op waits for */
  SimTime upd_ps; /* this layer's update delay */
  double ps_per_tick;
} Imp;

static guint32 emit(Imp *m, char *name, gboolean compute, NcclColl c,
                    TrcGroup g, guint64 bytes, SimTime ps, const gint64 *deps,
                    guint n)
{
  TrcOp o = {0};

  o.id = m->ops->len + 1;
  o.name = name;
  o.compute = compute;
  o.coll = c;
  o.group = g;
  o.bytes = bytes;
  o.compute_ps = ps;
  o.stage = -1;
  o.deps = g_new(guint32, n ? n : 1);
  for (guint k = 0; k < n; k++)
    if (deps[k] >= 0)
      o.deps[o.n_deps++] = (guint32)deps[k];
  g_array_append_val(m->ops, o);
  return o.id - 1;
}

/* A compute op on the chain (none for 0 ticks). */
static void compute(Imp *m, const char *layer, const char *what, SimTime ps)
{
  gint64 deps[2] = {m->last, m->wait};

  if (ps == 0)
    return;
  m->last = emit(m, g_strconcat(layer, ".", what, NULL), TRUE, 0,
                 TRC_GROUP_NONE, 0, ps, deps, m->wait >= 0 ? 2 : 1);
  m->wait = -1;
}

typedef struct {
  gboolean none;
  NcclColl coll;
  TrcGroup group; /* NONE: the phase's default */
  guint64 bytes;
} Comm;

/* A comm after the chain's last op, then its update delay.  blocking: the
 * chain continues after it; else it hangs off the chain (`wait` says
 * whether the chain's next op waits for it). */
static void comm(Imp *m, const char *layer, const char *what, const Comm *c,
                 TrcGroup dflt, gboolean blocking, gboolean wait)
{
  gint64 deps[2] = {m->last, m->wait};
  gint64 done;

  if (c->none)
    return;
  done =
      emit(m, g_strconcat(layer, ".", what, "_", trc_coll_name(c->coll), NULL),
           FALSE, c->coll, c->group ? c->group : dflt, c->bytes, 0, deps,
           blocking && m->wait >= 0 ? 2 : 1);
  if (blocking)
    m->wait = -1;
  if (m->upd_ps > 0)
    done = emit(m, g_strconcat(layer, ".", what, "_update", NULL), TRUE, 0,
                TRC_GROUP_NONE, 0, m->upd_ps, &done, 1);
  if (blocking)
    m->last = done;
  else if (wait)
    m->wait = done;
}

static gboolean tok_error(GError **error, const char *path, const Tok *t,
                          const char *fmt, ...) G_GNUC_PRINTF(4, 5);
static gboolean tok_error(GError **error, const char *path, const Tok *t,
                          const char *fmt, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;

  va_start(ap, fmt);
  msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_set_error(error, TRC_ERROR, TRC_ERROR_PARSE, "%s:%u: '%s': %s", path,
              t->line, t->text, msg);
  return FALSE;
}

static gboolean parse_u64(const char *t, guint64 *out)
{
  guint64 v = 0;

  if (!*t)
    return FALSE;
  for (const char *c = t; *c; c++) {
    if (!g_ascii_isdigit(*c) || v > (G_MAXUINT64 - (guint64)(*c - '0')) / 10)
      return FALSE;
    v = v * 10 + (guint64)(*c - '0');
  }
  *out = v;
  return TRUE;
}

static gboolean parse_comm(const char *path, const Tok *type, const Tok *size,
                           Comm *c, GError **error)
{
  static const struct {
    const char *name;
    NcclColl coll;
  } types[] = {{"ALLREDUCE", NCCL_COLL_ALLREDUCE},
               {"ALLGATHER", NCCL_COLL_ALLGATHER},
               {"REDUCESCATTER", NCCL_COLL_REDUCESCATTER},
               {"ALLTOALL", NCCL_COLL_ALLTOALL},
               /* AICB writes BROADCAST for Megatron's broadcasts of the
                * batch and parameters over a group; SimAI's Workload.cc
                * has no branch for it and drops it, ifsim runs it as
                * NCCL's Broadcast from the group's first rank */
               {"BROADCAST", NCCL_COLL_BROADCAST}};
  const char *t = type->text;

  memset(c, 0, sizeof *c);
  if (!parse_u64(size->text, &c->bytes))
    return tok_error(error, path, size, "expected a size in bytes");
  if (g_str_equal(t, "NONE")) {
    /* no collective moves those bytes: a size there would be dropped */
    if (c->bytes != 0)
      return tok_error(error, path, size,
                       "comm type NONE moves nothing: expected 0 (or name "
                       "the collective that moves these bytes)");
    c->none = TRUE;
    return TRUE;
  }
  if (g_str_has_prefix(t, "ALLREDUCEALLTOALL"))
    return tok_error(error, path, type,
                     "SimAI's ALLREDUCEALLTOALL is no single collective (its "
                     "Workload.cc reads it as ALLREDUCE without a group): "
                     "write ALLREDUCE or ALLTOALL");
  for (guint i = 0; i < G_N_ELEMENTS(types); i++) {
    gsize n = strlen(types[i].name);

    if (strncmp(t, types[i].name, n) != 0)
      continue;
    c->coll = types[i].coll;
    if (t[n] == '\0')
      c->group = TRC_GROUP_NONE;
    else if (g_str_equal(t + n, "_EP"))
      c->group = TRC_GROUP_EP;
    else if (g_str_equal(t + n, "_DP_EP"))
      c->group = TRC_GROUP_EDP;
    else
      break;
    /* 0 bytes: nothing to move, no collective runs (SimAI's own
     * example has 216: AICB writes a column-parallel layer's
     * input-gradient ReduceScatter so) */
    c->none = c->bytes == 0;
    return TRUE;
  }
  return tok_error(error, path, type,
                   "unknown comm type: expected NONE, ALLREDUCE, ALLGATHER, "
                   "REDUCESCATTER, ALLTOALL or BROADCAST, optionally with "
                   "_EP or _DP_EP");
}

static gboolean ticks_ps(const Imp *m, const Tok *t, SimTime *out,
                         GError **error)
{
  guint64 ticks;
  double ps;

  if (!parse_u64(t->text, &ticks))
    return tok_error(error, m->path, t, "expected a whole number of ticks");
  ps = round((double)ticks * m->ps_per_tick);
  if (ps >= 1.8e19)
    return tok_error(error, m->path, t, "ticks beyond 2^64 ps");
  *out = (SimTime)ps;
  return TRUE;
}

/* Line 1's `key: value` pairs, as Workload.cc reads them. */
typedef struct {
  guint64 mp, ep, pp, all_gpus;
  guint64 vpp, ga, pp_comm; /* SimAI's pipeline: virtual stages, micro-
                               batches (gradient accumulation), the bytes
                               one micro-batch sends between stages */
  gboolean has_mp, has_ep, has_all_gpus, has_vpp, has_ga;
} Header;

static gboolean parse_header(const char *path, char **tok, Policy *pol,
                             Header *h, GError **error)
{
  Tok t = {.line = 1};
  guint i;

  memset(h, 0, sizeof *h);
  t.text = tok[0] ? tok[0] : "";
  for (i = 0; i < G_N_ELEMENTS(policies); i++)
    if (g_str_equal(t.text, policies[i].name))
      break;
  if (i == G_N_ELEMENTS(policies))
    return tok_error(error, path, &t,
                     "parallelism not imported: expected DATA, MODEL, "
                     "HYBRID_DATA_MODEL, HYBRID_TRANSFORMER or "
                     "HYBRID_TRANSFORMER_FWD_IN_BCKWD (HYBRID_MODEL_DATA "
                     "puts DP innermost, which ifsim's rank layout does not; "
                     "HYBRID_DLRM*, HYBRID_CUSTOMIZED, MICRO and "
                     "DISTRIBUTED_INFERENCE are not training steps of this "
                     "form)");
  *pol = policies[i].pol;
  h->pp = 1;
  for (i = 1; tok[i]; i += 2) {
    guint64 v;

    t.text = tok[i];
    /* a key twice: Workload.cc keeps the last, which hides the first */
    for (guint j = 1; j < i; j += 2)
      if (g_str_equal(tok[j], tok[i]))
        return tok_error(error, path, &t, "given twice on line 1");
    if (tok[i + 1] == NULL || !parse_u64(tok[i + 1], &v))
      return tok_error(error, path, &t, "expected a whole number after it");
    if (g_str_equal(tok[i], "model_parallel_NPU_group:")) {
      h->mp = v;
      h->has_mp = TRUE;
    } else if (g_str_equal(tok[i], "ep:")) {
      h->ep = v;
      h->has_ep = TRUE;
    } else if (g_str_equal(tok[i], "pp:")) {
      h->pp = v;
    } else if (g_str_equal(tok[i], "all_gpus:")) {
      h->all_gpus = v;
      h->has_all_gpus = TRUE;
    } else if (g_str_equal(tok[i], "checkpoints:") ||
               g_str_equal(tok[i], "checkpoint_initiates:")) {
      if (v != 0)
        return tok_error(error, path, &t,
                         "activation recomputation (forward in backward) is "
                         "not imported: expected 0");
    } else if (g_str_equal(tok[i], "vpp:")) {
      h->vpp = v;
      h->has_vpp = TRUE;
    } else if (g_str_equal(tok[i], "ga:")) {
      h->ga = v;
      h->has_ga = TRUE;
    } else if (g_str_equal(tok[i], "pp_comm") ||
               g_str_equal(tok[i], "pp_comm:")) {
      h->pp_comm = v;
    } else {
      return tok_error(error, path, &t,
                       "unknown key: expected model_parallel_NPU_group:, "
                       "ep:, pp:, vpp:, ga:, all_gpus:, checkpoints:, "
                       "checkpoint_initiates: or pp_comm");
    }
  }
  t.text = "pp:";
  if (h->pp == 0 || h->pp > TRC_MAX_DIM)
    return tok_error(error, path, &t, "expected pipeline stages from 1 to %u",
                     TRC_MAX_DIM);
  if (h->pp != 1 && *pol != POL_TRANSFORMER &&
      *pol != POL_TRANSFORMER_FWD_IN_BCKWD)
    return tok_error(error, path, &t,
                     "pipeline parallelism (pp %" G_GUINT64_FORMAT
                     ") is SimAI's, for HYBRID_TRANSFORMER*: expected pp: 1",
                     h->pp);
  /* SimAI's pipeline (Layer::report): the bubble is (pp - 1) / (ga x
   * vpp) of a stage's work, so both must be counts */
  if (h->pp != 1 && (!h->has_ga || !h->has_vpp || h->ga == 0 || h->vpp == 0 ||
                     h->ga > TRC_MAX_DIM || h->vpp > TRC_MAX_DIM))
    return tok_error(error, path, &t,
                     "pp %" G_GUINT64_FORMAT " needs ga: (micro-batches) and "
                     "vpp: (virtual stages), each from 1 to %u, for the "
                     "pipeline's bubble",
                     h->pp, TRC_MAX_DIM);
  return TRUE;
}

/* SimAI's pipeline (pp > 1; Layer::report, "pp bubble time" and
 * Expose_PP_time).  Every stage runs the layer rows, one stage's layers
 * for all its ga micro-batches (the AICB file repeats them), and SimAI
 * adds two things the rows do not hold:
 * - the bubble: (pp - 1) / (ga x vpp) of the rows' time, the embedding
 *   layer's rows left out.  SimAI counts the rows' compute and their
 *   exposed forward and input-gradient comm; an op's length is fixed
 *   before the run, so here it is the compute alone (fwd + ig + wg), a
 *   blocking op at the end of every stage's chain;
 * - the activations and gradients between stages: 2 x vpp x ga sends of
 *   pp_comm bytes over each stage boundary, which SimAI hides entirely by
 *   default (pp_overlap_ratio 1).  Here they are real traffic off the
 *   chain: each stage sends vpp x ga x pp_comm bytes to the next from the
 *   step's start (the forward) and as many to the previous after its
 *   forward rows (the backward); the step waits for them at its end. */
static void pipeline(Imp *m, const TrcWorkload *w, const Header *h,
                     const SimTime *fwd, const SimTime *ig, const SimTime *wg,
                     GPtrArray *names, gint64 forward_end)
{
  double work = 0;
  SimTime bubble;
  guint64 bytes = h->pp_comm * h->vpp * h->ga;

  for (guint i = 0; i < names->len; i++) {
    const char *nm = g_ptr_array_index(names, i);
    /* "l12.embedding_layer" */
    if (!g_str_equal(strchr(nm, '.') + 1, "embedding_layer"))
      work += (double)fwd[i] + (double)ig[i] + (double)wg[i];
  }
  bubble = (SimTime)llround(work * (double)(w->pp - 1) /
                            ((double)h->ga * (double)h->vpp));
  compute(m, "pipeline", "bubble", bubble);
  for (guint32 st = 0; st < w->pp && bytes > 0; st++) {
    for (int dir = 0; dir < 2; dir++) {
      gint64 dep = forward_end;
      guint32 op;
      if ((dir == 0 && st + 1 == w->pp) || (dir == 1 && st == 0))
        continue;
      op = emit(m,
                g_strdup_printf("pipeline.s%u.%s_sendrecv", st,
                                dir == 0 ? "fwd" : "bwd"),
                FALSE, NCCL_COLL_SENDRECV, TRC_GROUP_PP, bytes, 0, &dep,
                dir == 1 && dep >= 0 ? 1 : 0);
      g_array_index(m->ops, TrcOp, op).stage = (gint32)st;
      g_array_index(m->ops, TrcOp, op).peer = dir == 0 ? 1 : -1;
    }
  }
}

TrcWorkload *trc_workload_load_astra_opts(const char *path,
                                          const TrcAstraOptions *opt,
                                          GError **error)
{
  g_autofree char *text = NULL;
  gsize len;

  if (!sim_input_read(path, &text, &len, error))
    return NULL;
  return trc_workload_load_astra_data(text, len, path, opt, error);
}

TrcWorkload *trc_workload_load_astra_data(const char *text, gsize len,
                                          const char *path,
                                          const TrcAstraOptions *opt,
                                          GError **error)
{
  g_autofree char **lines = NULL;
  g_auto(GStrv) head = NULL;
  g_autoptr(GArray) toks = NULL;
  g_autoptr(TrcWorkload) w = g_new0(TrcWorkload, 1);
  Imp m = {.path = path, .last = -1, .wait = -1};
  Policy pol = POL_DATA; /* set by the policy parser before use */
  Header h;
  guint64 n_layers, gpus, tp;
  guint nl;
  Tok t;
  gboolean ok = TRUE;

  w->source = g_strdup(path);
  if (!(opt->ns_per_tick > 0) || !isfinite(opt->ns_per_tick) ||
      opt->ns_per_tick > 1e9) {
    g_set_error(error, TRC_ERROR, TRC_ERROR_RANGE,
                "%s: tick length %g ns: expected (0, 10^9] ns (ASTRA-sim "
                "and SimAI run 1 ns ticks)",
                path, opt->ns_per_tick);
    return NULL;
  }
  m.ps_per_tick = opt->ns_per_tick * 1000.0;
  if (!sim_input_check_text(path, text, len, error))
    return NULL;
  lines = sim_input_lines(text, len, path, &nl, error);
  if (!lines)
    return NULL;
  if (nl < 2 || g_strstrip(lines[0])[0] == '\0') {
    g_set_error(error, TRC_ERROR, TRC_ERROR_PARSE,
                "%s: expected the parallelism line and the layer count "
                "(ASTRA-sim text workload)",
                path);
    return NULL;
  }
  head = g_strsplit_set(lines[0], " \t\r", -1);
  {
    /* drop the empty strings of repeated separators */
    guint k = 0;
    for (guint j = 0; head[j]; j++)
      if (*head[j])
        head[k++] = head[j];
      else
        g_free(head[j]);
    head[k] = NULL;
  }
  if (!parse_header(path, head, &pol, &h, error))
    return NULL;
  t.line = 2;
  t.text = g_strstrip(lines[1]);
  if (!parse_u64(t.text, &n_layers) || n_layers == 0 || n_layers > 1000000) {
    tok_error(error, path, &t, "expected the layer count in [1, 10^6]");
    return NULL;
  }
  {
    g_autofree char *how =
        g_strdup_printf("%" G_GUINT64_FORMAT " layers, %u bytes each", n_layers,
                        (guint)ASTRA_LAYER_BYTES);

    if (!sim_memory_check(n_layers * ASTRA_LAYER_BYTES, "the workload", how,
                          error))
      return NULL;
  }
  /* reserved for the layers the file says, not doubled and copied on the
   * way to millions (pages never written are never taken) */
  toks = g_array_sized_new(FALSE, FALSE, sizeof(Tok), (guint)n_layers * 12);
  /* the tokens, cut in place: a million layers are 12 million of them */
  for (guint j = 2; j < nl; j++) {
    char *p = lines[j];

    for (;;) {
      Tok x = {.line = j + 1};

      p += strspn(p, " \t\r");
      if (!*p)
        break;
      x.text = p;
      p += strcspn(p, " \t\r");
      if (*p)
        *p++ = '\0';
      g_array_append_val(toks, x);
    }
  }

  /* The layout. */
  gpus = opt->gpus ? opt->gpus : h.all_gpus;
  if (opt->gpus && h.has_all_gpus && opt->gpus != h.all_gpus) {
    g_set_error(error, TRC_ERROR, TRC_ERROR_RANGE,
                "%s:1: all_gpus: %" G_GUINT64_FORMAT ", but %s gives %u: "
                "expected one job size (leave %s out to use the file's)",
                path, (guint64)h.all_gpus,
                opt->gpus_given_as ? opt->gpus_given_as : "the caller",
                opt->gpus, opt->gpus_given_as ? opt->gpus_given_as : "it");
    ok = FALSE;
  } else if (gpus == 0 || gpus > TRC_MAX_RANKS) {
    /* ASTRA-sim 1.0 takes the NPU count from its network configuration:
     * its own examples have no all_gpus: */
    g_autofree char *how =
        opt->gpus_given_as
            ? g_strdup_printf("give them with %s N", opt->gpus_given_as)
            : g_strdup("give the job's GPU count");

    g_set_error(error, TRC_ERROR, TRC_ERROR_RANGE,
                "%s: the job's ranks: %s (ASTRA-sim 1.0 takes them from its "
                "network configuration, SimAI from all_gpus: on line 1): "
                "%s, from 1 to %u",
                path,
                h.has_all_gpus ? "all_gpus: is out of range"
                               : "the file does not say them",
                how, TRC_MAX_RANKS);
    ok = FALSE;
  }
  tp = opt->tp;
  if (ok && tp != 0 && h.has_mp && tp != h.mp) {
    g_set_error(error, TRC_ERROR, TRC_ERROR_RANGE,
                "%s:1: model_parallel_NPU_group: %" G_GUINT64_FORMAT
                ", but %s gives %" G_GUINT64_FORMAT
                ": expected one model-parallel size (leave %s out to use the "
                "file's)",
                path, (guint64)h.mp,
                opt->tp_given_as ? opt->tp_given_as : "the caller", tp,
                opt->tp_given_as ? opt->tp_given_as : "it");
    ok = FALSE;
  }
  if (ok && tp == 0) {
    if (pol == POL_DATA)
      tp = 1;
    else if (pol == POL_MODEL)
      tp = gpus;
    else if (h.has_mp)
      tp = h.mp;
  }
  if (ok && (tp == 0 || gpus % tp != 0 || (pol == POL_DATA && tp != 1) ||
             (pol == POL_MODEL && tp != gpus))) {
    g_set_error(error, TRC_ERROR, TRC_ERROR_RANGE,
                "%s: model-parallel size %" G_GUINT64_FORMAT "%s%s%s"
                " for %s on %" G_GUINT64_FORMAT
                " ranks: expected a divisor of the ranks "
                "(model_parallel_NPU_group: N, or given; DATA is 1, MODEL "
                "all ranks)",
                path, tp, opt->tp && opt->tp_given_as ? " (" : "",
                opt->tp && opt->tp_given_as ? opt->tp_given_as : "",
                opt->tp && opt->tp_given_as ? ")" : "", head[0], gpus);
    ok = FALSE;
  }
  if (!ok)
    return NULL;
  if (ok && gpus % (tp * h.pp) != 0) {
    g_set_error(
        error, TRC_ERROR, TRC_ERROR_RANGE,
        "%s:1: pp: %" G_GUINT64_FORMAT " stages of %" G_GUINT64_FORMAT
        " model-parallel ranks do not divide the job's %" G_GUINT64_FORMAT
        " ranks: expected data parallelism = ranks / (tp x pp), whole",
        path, (guint64)h.pp, (guint64)tp, (guint64)gpus);
    ok = FALSE;
  }
  if (!ok)
    return NULL;
  w->tp = (guint32)tp;
  w->pp = (guint32)h.pp;
  w->dp = (guint32)(gpus / (tp * h.pp));
  w->ep = h.has_ep ? (guint32)MIN(h.ep, G_MAXUINT32) : 1;
  if (ok && !trc_workload_validate(w, error))
    ok = FALSE;
  if (ok && toks->len != n_layers * 12) {
    Tok *at = toks->len > n_layers * 12
                  ? &g_array_index(toks, Tok, n_layers * 12)
                  : NULL;
    if (at)
      tok_error(error, path, at,
                "more fields than %" G_GUINT64_FORMAT " layers of 12",
                n_layers);
    else
      g_set_error(error, TRC_ERROR, TRC_ERROR_PARSE,
                  "%s: %u fields after line 2: expected %" G_GUINT64_FORMAT
                  " layers of 12 (name dep fwd_compute fwd_comm_type "
                  "fwd_comm_bytes ig_compute ig_comm_type ig_comm_bytes "
                  "wg_compute wg_comm_type wg_comm_bytes wg_update_time)",
                  path, toks->len, n_layers);
    ok = FALSE;
  }

  m.ops = g_array_sized_new(FALSE, TRUE, sizeof(TrcOp),
                            ok ? (guint)n_layers * ASTRA_OPS_PER_LAYER : 0);
  {
    guint32 L = ok ? (guint32)n_layers : 0;
    g_autofree SimTime *fwd = g_new0(SimTime, L + 1);
    g_autofree SimTime *ig = g_new0(SimTime, L + 1);
    g_autofree SimTime *wg = g_new0(SimTime, L + 1);
    g_autofree SimTime *upd = g_new0(SimTime, L + 1);
    g_autofree Comm *cf = g_new0(Comm, L + 1);
    g_autofree Comm *ci = g_new0(Comm, L + 1);
    g_autofree Comm *cw = g_new0(Comm, L + 1);
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    gint64 forward_end = -1;

    for (guint32 i = 0; i < L && ok; i++) {
      Tok *r = &g_array_index(toks, Tok, i * 12);
      gint64 dep;
      char *end;

      {
        char num[16];

        g_snprintf(num, sizeof num, "l%u.", i);
        g_ptr_array_add(names, g_strconcat(num, r[0].text, NULL));
      }
      dep = g_ascii_strtoll(r[1].text, &end, 10);
      (void)dep; /* read and ignored, as Workload.cc does */
      if (*end != '\0' || end == r[1].text) {
        tok_error(error, path, &r[1], "expected the dependency (an integer)");
        ok = FALSE;
        break;
      }
      ok = ticks_ps(&m, &r[2], &fwd[i], error) &&
           parse_comm(path, &r[3], &r[4], &cf[i], error) &&
           ticks_ps(&m, &r[5], &ig[i], error) &&
           parse_comm(path, &r[6], &r[7], &ci[i], error) &&
           ticks_ps(&m, &r[8], &wg[i], error) &&
           parse_comm(path, &r[9], &r[10], &cw[i], error) &&
           ticks_ps(&m, &r[11], &upd[i], error);
      if (ok && pol == POL_DATA && (!cf[i].none || !ci[i].none)) {
        tok_error(error, path, !cf[i].none ? &r[3] : &r[6],
                  "DATA parallelism runs no forward or input-gradient comm "
                  "(Workload.cc: no dimension involved): expected NONE");
        ok = FALSE;
      }
      if (ok && pol == POL_MODEL && !cw[i].none) {
        tok_error(error, path, &r[9],
                  "MODEL parallelism runs no weight-gradient comm "
                  "(Workload.cc: no dimension involved): expected NONE");
        ok = FALSE;
      }
    }

    /* Forward. */
    for (guint32 i = 0; i < L && ok; i++) {
      const char *nm = g_ptr_array_index(names, i);
      m.upd_ps = upd[i];
      compute(&m, nm, "fwd_compute", fwd[i]);
      if (pol != POL_DATA)
        comm(&m, nm, "fwd", &cf[i], TRC_GROUP_TP, TRUE, TRUE);
    }
    forward_end = m.last;
    /* Backward, from the last layer. */
    for (guint32 j = 0; j < L && ok; j++) {
      guint32 i = L - 1 - j;
      const char *nm = g_ptr_array_index(names, i);

      m.upd_ps = upd[i];
      switch (pol) {
      case POL_TRANSFORMER:
      case POL_TRANSFORMER_FWD_IN_BCKWD:
        compute(&m, nm, "ig_compute", ig[i]);
        comm(&m, nm, "ig", &ci[i], TRC_GROUP_TP, TRUE, TRUE);
        compute(&m, nm, "wg_compute", wg[i]);
        comm(&m, nm, "wg", &cw[i], TRC_GROUP_DP, FALSE, FALSE);
        break;
      case POL_MODEL:
      case POL_DATA_MODEL:
        compute(&m, nm, "ig_compute", ig[i]);
        if (i > 0)
          comm(&m, nm, "ig", &ci[i], TRC_GROUP_TP, FALSE, TRUE);
        compute(&m, nm, "wg_compute", wg[i]);
        if (pol == POL_DATA_MODEL)
          comm(&m, nm, "wg", &cw[i], TRC_GROUP_DP, FALSE, FALSE);
        break;
      case POL_DATA:
        compute(&m, nm, "wg_compute", wg[i]);
        comm(&m, nm, "wg", &cw[i], TRC_GROUP_DP, FALSE, FALSE);
        if (i > 0)
          compute(&m, nm, "ig_compute", ig[i]);
        break;
      }
    }
    if (ok && w->pp > 1)
      pipeline(&m, w, &h, fwd, ig, wg, names, forward_end);
  }
  w->n_ops = m.ops->len;
  w->ops = (TrcOp *)(void *)g_array_free(m.ops, FALSE);
  if (!ok)
    return NULL;
  if (w->n_ops == 0) {
    g_set_error(error, TRC_ERROR, TRC_ERROR_PARSE,
                "%s: no compute and no comm in %" G_GUINT64_FORMAT
                " layers: nothing to run",
                path, n_layers);
    return NULL;
  }
  if (!trc_workload_validate(w, error))
    return NULL;
  return g_steal_pointer(&w);
}

TrcWorkload *trc_workload_load_astra(const char *path, guint32 tp_override_or_0,
                                     GError **error)
{
  /* ASTRA-sim's own tick: CLOCK_PERIOD 1 ns (system/Common.hh). */
  TrcAstraOptions opt = {.tp = tp_override_or_0, .ns_per_tick = 1.0};

  return trc_workload_load_astra_opts(path, &opt, error);
}
