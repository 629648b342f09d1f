/* The LLM layout generator: one training step of a decoder-only
 * transformer under tensor (TP, optionally sequence-parallel), pipeline
 * (PP: 1F1B or GPipe), data (DP, ZeRO, bucketed gradients) and expert (EP)
 * parallelism, as Megatron-LM runs it.
 *
 * Accounting (docs/workload.md has every formula and its source):
 * - forward FLOPs per layer and micro-batch (Narayanan et al., "Efficient
 *   Large-Scale Language Model Training on GPU Clusters Using
 *   Megatron-LM", SC'21, sec. 5.1): 24 b s h^2 + 4 b s^2 h, of which the
 *   attention block is 8 b s h^2 + 4 b s^2 h and the MLP 2 m b s h ffn
 *   (m weight matrices: 2 for GELU, 3 for SwiGLU; 16 b s h^2 when ffn = 4h,
 *   m = 2); an MoE layer runs its MLP top_k times per token; the logit
 *   layer 2 b s h V.  Backward = 2 x forward.  Each rank does 1/tp of it.
 * - compute time = FLOPs / (tflops x 10^12 x mfu).
 * - TP (Shoeybi et al., Megatron-LM, 2019, fig. 4; Korthikanti et al.,
 *   "Reducing Activation Recomputation", 2022, for SP): per layer 2
 *   AllReduces of b s h x dtype bytes forward and 2 backward, or with SP an
 *   AllGather before and a ReduceScatter after each block (reversed in
 *   backward), each of the same whole-array size.
 * - PP: b s h x dtype bytes (/ tp with SP) to the next stage per
 *   micro-batch forward, the same back per backward; layers split evenly.
 * - DP: each rank's gradients are params x dtype / (tp x pp), bucketed in
 *   backward order during the last micro-batch's backward; expert weights
 *   reduce over the expert-data-parallel group (dp / ep ranks).
 *
 * Ops of one stage form a chain (a rank runs its compute and blocking
 * collectives in order); pipeline sends, EP-free gradient buckets and the
 * parameter AllGathers of ZeRO hang off that chain, so they overlap it. */
#include "traces/error.h"
#include "traces/workload.h"

#include <math.h>
#include <string.h>

#include "sim/error.h"
#include "sim/units.h"
#include "sim/interrupt.h"
#include "sim/memory.h"
#include "sim/units.h"

/* --- parsing ------------------------------------------------------------ */

typedef enum {
  K_PARAMS,
  K_LAYERS,
  K_HIDDEN,
  K_FFN,
  K_HEADS,
  K_MLP,
  K_VOCAB,
  K_SEQ,
  K_MBS,
  K_MICROBATCHES,
  K_GBS,
  K_TP,
  K_PP,
  K_DP,
  K_EP,
  K_EXPERTS,
  K_TOP_K,
  K_DTYPE,
  K_TFLOPS,
  K_MFU,
  K_OPTIMIZER_US,
  K_SCHEDULE,
  K_SP,
  K_ZERO,
  K_BUCKET,
  N_KEYS
} Key;

static const char *const key_names[N_KEYS] = {
    "params",       "layers",   "hidden", "ffn",    "heads",
    "mlp",          "vocab",    "seq",    "mbs",    "microbatches",
    "gbs",          "tp",       "pp",     "dp",     "ep",
    "experts",      "top_k",    "dtype",  "tflops", "mfu",
    "optimizer_us", "schedule", "sp",     "zero",   "bucket"};

static const Key required[] = {K_LAYERS, K_HIDDEN, K_FFN, K_VOCAB,
                               K_SEQ,    K_MBS,    K_TP,  K_PP,
                               K_DP,     K_TFLOPS, K_MFU, K_OPTIMIZER_US};

static gboolean bad_value(GError **error, Key k, const char *v,
                          const char *expected)
{
  g_set_error(error, TRC_ERROR, TRC_ERROR_RANGE, "%s=%s: expected %s",
              key_names[k], v, expected);
  return FALSE;
}

static gboolean parse_u32(const char *v, guint32 min, guint32 max, guint32 *out)
{
  guint64 n = 0;

  if (!*v)
    return FALSE;
  for (const char *c = v; *c; c++) {
    if (!g_ascii_isdigit(*c) || n > 1000000000000ull)
      return FALSE;
    n = n * 10 + (guint64)(*c - '0');
  }
  if (n < min || n > max)
    return FALSE;
  *out = (guint32)n;
  return TRUE;
}

static gboolean parse_real(const char *v, double *out)
{
  if (!*v || !(g_ascii_isdigit(*v) || *v == '.'))
    return FALSE;
  return sim_decimal_parse(v, out);
}

/* "70B", "1.5T", "125M", "7000000000": decimal multiples (10^3 ...). */
static gboolean parse_count_si(const char *v, guint64 *out)
{
  double x, mult = 1;
  g_autofree char *num = g_strdup(v);
  gsize n = strlen(num);

  if (n > 0) {
    switch (g_ascii_toupper(num[n - 1])) {
    case 'K': mult = 1e3; break;
    case 'M': mult = 1e6; break;
    case 'B':
    case 'G': mult = 1e9; break;
    case 'T': mult = 1e12; break;
    default: break;
    }
    if (mult > 1)
      num[n - 1] = '\0';
  }
  if (!parse_real(num, &x))
    return FALSE;
  x = round(x * mult);
  if (x < 1 || x > 1e15)
    return FALSE;
  *out = (guint64)x;
  return TRUE;
}

static gboolean parse_value(Key k, const char *v, TrcLlmParams *p, guint32 *gbs,
                            GError **error)
{
  guint32 *u32 = NULL;
  guint32 max = TRC_MAX_DIM;
  g_autoptr(GError) e = NULL;

  switch (k) {
  case K_PARAMS:
    if (!parse_count_si(v, &p->params))
      return bad_value(error, k, v,
                       "a parameter count in [1, 10^15], e.g. 70B, 1.5T, "
                       "125M");
    return TRUE;
  case K_MLP:
    if (g_ascii_strcasecmp(v, "gelu") == 0)
      p->mlp = TRC_MLP_GELU;
    else if (g_ascii_strcasecmp(v, "swiglu") == 0)
      p->mlp = TRC_MLP_SWIGLU;
    else
      return bad_value(error, k, v, "gelu (2 matrices) or swiglu (3)");
    return TRUE;
  case K_DTYPE:
    if (g_ascii_strcasecmp(v, "bf16") == 0 ||
        g_ascii_strcasecmp(v, "fp16") == 0)
      p->dtype_bytes = 2;
    else if (g_ascii_strcasecmp(v, "fp32") == 0)
      p->dtype_bytes = 4;
    else if (g_ascii_strcasecmp(v, "fp8") == 0)
      p->dtype_bytes = 1;
    else
      return bad_value(error, k, v, "bf16, fp16, fp32 or fp8");
    return TRUE;
  case K_TFLOPS:
    if (!parse_real(v, &p->tflops) || p->tflops <= 0 || p->tflops > 1e6)
      return bad_value(error, k, v, "peak TFLOP/s per GPU in (0, 10^6]");
    return TRUE;
  case K_MFU:
    if (!parse_real(v, &p->mfu) || p->mfu <= 0 || p->mfu > 1)
      return bad_value(error, k, v, "a fraction of peak in (0, 1]");
    return TRUE;
  case K_OPTIMIZER_US:
    if (!parse_real(v, &p->optimizer_us) || p->optimizer_us <= 0 ||
        p->optimizer_us > 1e12)
      return bad_value(error, k, v, "microseconds in (0, 10^12]");
    return TRUE;
  case K_SCHEDULE:
    if (g_ascii_strcasecmp(v, "1f1b") == 0)
      p->schedule = TRC_SCHED_1F1B;
    else if (g_ascii_strcasecmp(v, "gpipe") == 0)
      p->schedule = TRC_SCHED_GPIPE;
    else
      return bad_value(error, k, v, "1f1b or gpipe");
    return TRUE;
  case K_SP:
    if (g_str_equal(v, "0") || g_str_equal(v, "1")) {
      p->sp = v[0] == '1';
      return TRUE;
    }
    return bad_value(error, k, v, "0 or 1");
  case K_BUCKET:
    if (!sim_size_parse(v, &p->bucket_bytes, &e) || p->bucket_bytes == 0)
      return bad_value(error, k, v, "bytes above 0, e.g. 25M (MiB)");
    return TRUE;
  case K_ZERO:
    if (!parse_u32(v, 0, 3, &p->zero))
      return bad_value(error, k, v, "a ZeRO stage 0, 1, 2 or 3");
    return TRUE;
  case K_LAYERS: u32 = &p->layers; break;
  case K_HIDDEN: u32 = &p->hidden; break;
  case K_FFN: u32 = &p->ffn; break;
  case K_HEADS: u32 = &p->heads; break;
  case K_VOCAB:
    u32 = &p->vocab;
    max = 1u << 24;
    break;
  case K_SEQ: u32 = &p->seq; break;
  case K_MBS: u32 = &p->mbs; break;
  case K_MICROBATCHES:
    u32 = &p->microbatches;
    max = 1u << 16;
    break;
  case K_GBS:
    u32 = gbs;
    max = 1u << 30;
    break;
  case K_TP: u32 = &p->tp; break;
  case K_PP: u32 = &p->pp; break;
  case K_DP: u32 = &p->dp; break;
  case K_EP: u32 = &p->ep; break;
  case K_EXPERTS:
    u32 = &p->experts;
    max = 1u << 16;
    break;
  case K_TOP_K:
    u32 = &p->top_k;
    max = 1u << 16;
    break;
  case N_KEYS: g_assert_not_reached();
  }
  if (!parse_u32(v, k == K_EXPERTS ? 0 : 1, max, u32)) {
    g_autofree char *what = g_strdup_printf("a whole number in [%u, %u]",
                                            k == K_EXPERTS ? 0 : 1, max);
    return bad_value(error, k, v, what);
  }
  return TRUE;
}

static gboolean spec_error(GError **error, const char *fmt, ...)
    G_GNUC_PRINTF(2, 3);
static gboolean spec_error(GError **error, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;

  va_start(ap, fmt);
  msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_set_error(error, TRC_ERROR, TRC_ERROR_RANGE, "%s", msg);
  return FALSE;
}

gboolean trc_llm_parse(const char *spec, TrcLlmParams *out, GError **error)
{
  g_auto(GStrv) items = g_strsplit(spec, ",", -1);
  gboolean seen[N_KEYS] = {FALSE};
  TrcLlmParams p = {0};
  guint32 gbs = 0;

  p.ep = 1;
  p.dtype_bytes = 2;
  p.mlp = TRC_MLP_GELU;
  p.schedule = TRC_SCHED_1F1B;
  for (char **it = items; *it; it++) {
    char *eq = strchr(*it, '=');
    g_autofree char *key = NULL;
    char *v;
    int k;

    if (**it == '\0')
      continue;
    if (eq == NULL)
      return spec_error(error, "'%s': expected key=value", *it);
    key = g_strstrip(g_strndup(*it, (gsize)(eq - *it)));
    v = g_strstrip(eq + 1);
    for (k = 0; k < N_KEYS; k++)
      if (g_str_equal(key, key_names[k]))
        break;
    if (k == N_KEYS) {
      GString *list = g_string_new(NULL);
      for (int j = 0; j < N_KEYS; j++)
        g_string_append_printf(list, "%s%s", j ? ", " : "", key_names[j]);
      spec_error(error, "unknown key '%s' (valid keys: %s)", key, list->str);
      g_string_free(list, TRUE);
      return FALSE;
    }
    if (seen[k])
      return spec_error(error, "key '%s' given twice", key);
    seen[k] = TRUE;
    if (!parse_value((Key)k, v, &p, &gbs, error))
      return FALSE;
  }
  for (guint i = 0; i < G_N_ELEMENTS(required); i++)
    if (!seen[required[i]])
      return spec_error(error, "required key '%s' missing",
                        key_names[required[i]]);
  if (seen[K_MICROBATCHES] == seen[K_GBS])
    return spec_error(error, "give exactly one of microbatches (per step, "
                             "per DP rank) and gbs (global batch, "
                             "sequences)");
  if (seen[K_GBS]) {
    guint64 per = (guint64)p.mbs * p.dp;

    if (gbs % per != 0 || gbs / per > (1u << 16))
      return spec_error(
          error,
          "gbs=%u is not a multiple of mbs x dp = %" G_GUINT64_FORMAT
          " (microbatches = gbs / (mbs x dp), at most 65536)",
          gbs, per);
    p.microbatches = (guint32)(gbs / per);
  }
  if (p.layers % p.pp != 0)
    return spec_error(error,
                      "layers=%u is not divisible by pp=%u (layers are "
                      "split evenly over the stages)",
                      p.layers, p.pp);
  if (p.dp % p.ep != 0)
    return spec_error(error, "ep=%u does not divide dp=%u", p.ep, p.dp);
  if ((guint64)p.tp * p.pp * p.dp > TRC_MAX_RANKS)
    return spec_error(
        error, "tp x pp x dp = %" G_GUINT64_FORMAT " ranks, more than %u",
        (guint64)p.tp * p.pp * p.dp, TRC_MAX_RANKS);
  if (p.experts == 0 && (seen[K_TOP_K] || p.ep > 1))
    return spec_error(error, "top_k and ep > 1 need experts (an MoE model)");
  if (p.experts > 0) {
    if (!seen[K_TOP_K])
      return spec_error(error, "required key 'top_k' missing (experts=%u)",
                        p.experts);
    if (p.top_k > p.experts)
      return spec_error(error, "top_k=%u exceeds experts=%u", p.top_k,
                        p.experts);
    if (p.experts % p.ep != 0)
      return spec_error(error,
                        "experts=%u is not divisible by ep=%u (each "
                        "expert-parallel rank holds experts / ep)",
                        p.experts, p.ep);
  }
  if (p.heads > 0 && (p.hidden % p.heads != 0 || p.heads % p.tp != 0))
    return spec_error(error,
                      "heads=%u must divide hidden=%u and be divisible by "
                      "tp=%u",
                      p.heads, p.hidden, p.tp);
  if (p.ffn % p.tp != 0)
    return spec_error(error, "ffn=%u is not divisible by tp=%u", p.ffn, p.tp);
  if (p.sp && p.seq % p.tp != 0)
    return spec_error(error,
                      "sp=1 splits the sequence over TP: seq=%u is not "
                      "divisible by tp=%u",
                      p.seq, p.tp);
  if (p.zero > 0 && p.dp == 1)
    return spec_error(error, "zero=%u shards over DP, but dp=1", p.zero);
  *out = p;
  return TRUE;
}

/* --- generation --------------------------------------------------------- */

typedef struct {
  const TrcLlmParams *p;
  GArray *ops;           /* TrcOp */
  gint64 *last;          /* per stage: the chain's last op, -1 none */
  GArray *bucket;        /* guint32: bwd computes the open bucket covers */
  GArray *grads;         /* guint32: this stage's gradient collectives */
  guint32 n_bucket;      /* buckets closed on this stage */
  guint32 covered;       /* layers of this stage whose gradients are bucketed */
  guint64 dense, expert; /* parameters (all ranks, all layers) */
  GError *error;
} Gen;

static guint32 emit(Gen *g, char *name, gboolean compute, NcclColl coll,
                    TrcGroup group, guint64 bytes, SimTime ps, gint32 stage,
                    gint32 peer, const guint32 *deps, guint32 n_deps)
{
  TrcOp o = {0};

  o.id = g->ops->len + 1;
  o.name = name;
  o.compute = compute;
  o.coll = coll;
  o.group = group;
  o.bytes = bytes;
  o.compute_ps = ps;
  o.stage = stage;
  o.peer = peer;
  o.n_deps = n_deps;
  o.deps = n_deps ? g_memdup2(deps, n_deps * sizeof *deps) : NULL;
  g_array_append_val(g->ops, o);
  return o.id - 1;
}

static SimTime flops_ps(Gen *g, double flops, const char *what)
{
  double ps = round(flops / (g->p->tflops * g->p->mfu));

  if (g->error == NULL && (ps < 1 || ps > 1e18))
    g_set_error(&g->error, TRC_ERROR, TRC_ERROR_RANGE,
                "%s: %.6g FLOPs take %.6g ps at tflops=%g, "
                "mfu=%g: expected 1 ps to 10^6 s",
                what, flops, ps, g->p->tflops, g->p->mfu);
  return ps < 1 ? 1 : ps > 1e18 ? SIM_TIME_MAX : (SimTime)ps;
}

/* An op on the chain of stage st: it waits for the chain's last op and
 * `extra` (-1: nothing more). */
static guint32 chain(Gen *g, gint32 st, char *name, gboolean compute,
                     NcclColl coll, TrcGroup group, guint64 bytes, SimTime ps,
                     gint64 extra)
{
  guint32 deps[2];
  guint32 n = 0;

  if (g->last[st] >= 0)
    deps[n++] = (guint32)g->last[st];
  if (extra >= 0 && (n == 0 || deps[0] != (guint32)extra))
    deps[n++] = (guint32)extra;
  g->last[st] = emit(g, name, compute, coll, group, bytes, ps, st, 0, deps, n);
  return (guint32)g->last[st];
}

static void comm(Gen *g, gint32 st, gint64 *extra, const char *pfx,
                 const char *what, NcclColl c, TrcGroup grp, guint64 bytes)
{
  chain(g, st, g_strdup_printf("%s.%s", pfx, what), FALSE, c, grp, bytes, 0,
        *extra);
  *extra = -1;
}

static void compute(Gen *g, gint32 st, gint64 *extra, const char *pfx,
                    const char *what, double flops)
{
  char *name = g_strdup_printf("%s.%s", pfx, what);

  chain(g, st, name, TRUE, 0, TRC_GROUP_NONE, 0, flops_ps(g, flops, name),
        *extra);
  *extra = -1;
}

/* Per-rank gradient bytes of the first k layers of a stage's share, so
 * that buckets add up exactly: floor(total x k / layers_per_stage). */
static guint64 grad_bytes(const Gen *g, guint64 params, guint32 shards,
                          guint32 k)
{
  const TrcLlmParams *p = g->p;
  unsigned __int128 num = (unsigned __int128)params * p->dtype_bytes * k;

  return (guint64)(num / ((unsigned __int128)shards * p->tp * p->layers));
}

/* Closes the open bucket of stage st: its gradient collectives wait for
 * the backward computes of the layers it covers. */
static void close_bucket(Gen *g, gint32 st, guint32 from, guint32 to)
{
  const TrcLlmParams *p = g->p;
  gboolean rs = p->zero > 0;
  NcclColl c = rs ? NCCL_COLL_REDUCESCATTER : NCCL_COLL_ALLREDUCE;
  guint64 d = grad_bytes(g, g->dense, 1, to) - grad_bytes(g, g->dense, 1, from);
  guint64 x = grad_bytes(g, g->expert, p->ep, to) -
              grad_bytes(g, g->expert, p->ep, from);
  const guint32 *deps = (const guint32 *)(void *)g->bucket->data;
  guint32 idx;

  if (g->bucket->len == 0)
    return;
  if (p->dp > 1 && d > 0) {
    idx = emit(g,
               g_strdup_printf("s%d.grad_bucket%u.%s", st, g->n_bucket,
                               trc_coll_name(c)),
               FALSE, c, TRC_GROUP_DP, d, 0, st, 0, deps, g->bucket->len);
    g_array_append_val(g->grads, idx);
  }
  if (p->dp / p->ep > 1 && x > 0) {
    idx = emit(g,
               g_strdup_printf("s%d.expert_grad_bucket%u.%s", st, g->n_bucket,
                               trc_coll_name(c)),
               FALSE, c, TRC_GROUP_EDP, x, 0, st, 0, deps, g->bucket->len);
    g_array_append_val(g->grads, idx);
  }
  g->n_bucket++;
  g_array_set_size(g->bucket, 0);
}

typedef struct {
  guint64 act;            /* b s h x dtype: a TP collective's whole array */
  guint64 p2p;            /* a pipeline message */
  guint64 a2a;            /* an EP all-to-all's send buffer per rank */
  double attn, mlp, head; /* forward FLOPs per rank */
} Sizes;

static void forward(Gen *g, const Sizes *z, gint32 st, guint32 mb, gint64 recv)
{
  const TrcLlmParams *p = g->p;
  guint32 per = p->layers / p->pp;
  gboolean tpc = p->tp > 1, moe = p->experts > 0 && p->ep > 1;

  for (guint32 l = st * per; l < (st + 1) * per; l++) {
    g_autofree char *x = g_strdup_printf("mb%u.l%u.fwd", mb, l);

    if (tpc && p->sp)
      comm(g, st, &recv, x, "attn_allgather", NCCL_COLL_ALLGATHER, TRC_GROUP_TP,
           z->act);
    compute(g, st, &recv, x, "attn", z->attn);
    if (tpc)
      comm(g, st, &recv, x, p->sp ? "attn_reducescatter" : "attn_allreduce",
           p->sp ? NCCL_COLL_REDUCESCATTER : NCCL_COLL_ALLREDUCE, TRC_GROUP_TP,
           z->act);
    if (tpc && p->sp)
      comm(g, st, &recv, x, "mlp_allgather", NCCL_COLL_ALLGATHER, TRC_GROUP_TP,
           z->act);
    if (moe)
      comm(g, st, &recv, x, "dispatch_alltoall", NCCL_COLL_ALLTOALL,
           TRC_GROUP_EP, z->a2a);
    compute(g, st, &recv, x, "mlp", z->mlp);
    if (moe)
      comm(g, st, &recv, x, "combine_alltoall", NCCL_COLL_ALLTOALL,
           TRC_GROUP_EP, z->a2a);
    if (tpc)
      comm(g, st, &recv, x, p->sp ? "mlp_reducescatter" : "mlp_allreduce",
           p->sp ? NCCL_COLL_REDUCESCATTER : NCCL_COLL_ALLREDUCE, TRC_GROUP_TP,
           z->act);
  }
  if (st == (gint32)p->pp - 1) {
    g_autofree char *x = g_strdup_printf("mb%u.head", mb);
    compute(g, st, &recv, x, "fwd", z->head);
  }
}

static void backward(Gen *g, const Sizes *z, gint32 st, guint32 mb, gint64 recv,
                     gboolean last)
{
  const TrcLlmParams *p = g->p;
  guint32 per = p->layers / p->pp;
  gboolean tpc = p->tp > 1, moe = p->experts > 0 && p->ep > 1;
  guint32 from = 0;

  if (st == (gint32)p->pp - 1) {
    g_autofree char *x = g_strdup_printf("mb%u.head", mb);
    compute(g, st, &recv, x, "bwd", 2 * z->head);
  }
  for (guint32 i = 0; i < per; i++) {
    guint32 l = (st + 1) * per - 1 - i;
    g_autofree char *x = g_strdup_printf("mb%u.l%u.bwd", mb, l);
    guint32 wgrad;

    if (tpc && p->sp)
      comm(g, st, &recv, x, "mlp_allgather", NCCL_COLL_ALLGATHER, TRC_GROUP_TP,
           z->act);
    if (moe)
      comm(g, st, &recv, x, "combine_alltoall", NCCL_COLL_ALLTOALL,
           TRC_GROUP_EP, z->a2a);
    compute(g, st, &recv, x, "mlp", 2 * z->mlp);
    if (moe)
      comm(g, st, &recv, x, "dispatch_alltoall", NCCL_COLL_ALLTOALL,
           TRC_GROUP_EP, z->a2a);
    if (tpc)
      comm(g, st, &recv, x, p->sp ? "mlp_reducescatter" : "mlp_allreduce",
           p->sp ? NCCL_COLL_REDUCESCATTER : NCCL_COLL_ALLREDUCE, TRC_GROUP_TP,
           z->act);
    if (tpc && p->sp)
      comm(g, st, &recv, x, "attn_allgather", NCCL_COLL_ALLGATHER, TRC_GROUP_TP,
           z->act);
    compute(g, st, &recv, x, "attn", 2 * z->attn);
    wgrad = (guint32)g->last[st];
    if (tpc)
      comm(g, st, &recv, x, p->sp ? "attn_reducescatter" : "attn_allreduce",
           p->sp ? NCCL_COLL_REDUCESCATTER : NCCL_COLL_ALLREDUCE, TRC_GROUP_TP,
           z->act);
    if (!last)
      continue;
    /* The layer's weight gradients are complete after this, its last
     * micro-batch's backward: bucket them (PyTorch DDP / Megatron's
     * overlapped gradient reduction). */
    g_array_append_val(g->bucket, wgrad);
    if (p->bucket_bytes > 0) {
      guint64 b = grad_bytes(g, g->dense, 1, i + 1) -
                  grad_bytes(g, g->dense, 1, from) +
                  grad_bytes(g, g->expert, p->ep, i + 1) -
                  grad_bytes(g, g->expert, p->ep, from);
      if (b >= p->bucket_bytes) {
        close_bucket(g, st, from, i + 1);
        from = i + 1;
      }
    }
  }
  if (last)
    close_bucket(g, st, from, per);
}

/* The optimizer step of stage st, after its gradients; with ZeRO the
 * updated parameter shards are gathered back, bucket by bucket. */
static void finish_stage(Gen *g, gint32 st)
{
  const TrcLlmParams *p = g->p;
  guint32 n = g->grads->len;
  g_autofree guint32 *deps = g_new(guint32, n + 1);
  g_autofree char *name = g_strdup_printf("s%d.optimizer", st);
  SimTime ps;
  guint32 opt;

  if (n > 0) /* a stage without gradients: grads->data may be NULL */
    memcpy(deps, g->grads->data, n * sizeof *deps);
  deps[n++] = (guint32)g->last[st];
  if (!sim_time_from_us(p->optimizer_us, &ps) || ps == 0)
    ps = 1;
  opt = emit(g, g_steal_pointer(&name), TRUE, 0, TRC_GROUP_NONE, 0, ps, st, 0,
             deps, n);
  g->last[st] = opt;
  if (p->zero == 0)
    return;
  for (guint32 k = 0; k < g->grads->len; k++) {
    const TrcOp *rs = &g_array_index(g->ops, TrcOp, deps[k]);
    g_autofree char *base =
        g_strndup(rs->name, (gsize)(strrchr(rs->name, '.') - rs->name));
    char *ag_name = g_strdup_printf("%s.param_allgather", base);

    emit(g, ag_name, FALSE, NCCL_COLL_ALLGATHER, rs->group, rs->bytes, 0, st, 0,
         &opt, 1);
  }
}

/* Parameters from the shapes: per layer 4 h^2 (attention) + 2 h (norms)
 * + m h ffn (MLP; x experts, + h x experts router, for MoE), plus the
 * embedding V h (tied with the output layer); weights only. */
static void count_params(const TrcLlmParams *p, guint64 *dense, guint64 *expert)
{
  guint64 h = p->hidden, m = p->mlp == TRC_MLP_SWIGLU ? 3 : 2;
  guint64 mlp = m * h * p->ffn;
  guint64 per = 4 * h * h + 2 * h + (p->experts ? h * p->experts : mlp);

  *dense = per * p->layers + (guint64)p->vocab * h;
  *expert = p->experts ? mlp * p->experts * p->layers : 0;
}

guint64 trc_llm_ops_bound(const TrcLlmParams *p)
{
  /* per micro-batch and layer at most 8 ops forward (TP or SP collectives
   * around attention and the MLP, the expert AllToAlls, two computes) and
   * 8 backward plus one; per micro-batch and stage the
   * head's compute and the PP send each way; per stage the optimizer and
   * its gradient buckets (dense and expert, reduced and gathered: at
   * most 8 a layer) */
  guint64 m = p->microbatches, per = p->pp ? p->layers / p->pp : p->layers;

  return (guint64)p->pp * (m * (per * 17 + 4) + per * 8 + 8);
}

/* What a generated op holds: itself, its name ("mb12.s3.l40.bwd.attn_
 * allreduce" and malloc's overhead) and its dependencies, with the op
 * array's doubling. */
#define LLM_OP_BYTES (2 * sizeof(TrcOp) + 64 + 32)

TrcWorkload *trc_llm_generate(const TrcLlmParams *p, GError **error)
{
  guint32 pp = p->pp, m = p->microbatches;
  Gen g = {.p = p};
  Sizes z;
  double b = p->mbs, s = p->seq, h = p->hidden;
  double mat = p->mlp == TRC_MLP_SWIGLU ? 3 : 2;
  g_autofree guint32 *nb = g_new0(guint32, pp); /* backwards emitted */
  g_autofree guint32 *pos = g_new0(guint32, pp);
  g_autofree gint64 *send_f = g_new(gint64, (gsize)pp * m);
  g_autofree gint64 *send_b = g_new(gint64, (gsize)pp * m);
  g_autoptr(GPtrArray) order = g_ptr_array_new_with_free_func(g_free);
  TrcWorkload *w;
  guint32 left = 2 * m * pp;

  g_assert(p->layers % pp == 0 && p->dp % p->ep == 0 && m > 0);
  {
    guint64 bound = trc_llm_ops_bound(p);
    g_autofree char *how =
        g_strdup_printf("up to %" G_GUINT64_FORMAT " ops, %u bytes each", bound,
                        (guint)LLM_OP_BYTES);

    if (bound > G_MAXUINT32) {
      g_set_error(error, TRC_ERROR, TRC_ERROR_RANGE,
                  "layers=%u, microbatches=%u: up to %" G_GUINT64_FORMAT
                  " ops, more than the %u a workload holds",
                  p->layers, m, bound, G_MAXUINT32);
      return NULL;
    }
    if (!sim_memory_check(bound * LLM_OP_BYTES, "the generated workload", how,
                          error))
      return NULL;
  }
  count_params(p, &g.dense, &g.expert);
  if (p->params > 0) {
    if (p->params <= g.expert) {
      g_set_error(error, TRC_ERROR, TRC_ERROR_RANGE,
                  "params=%" G_GUINT64_FORMAT
                  " is not above the experts' %" G_GUINT64_FORMAT
                  " (experts x m x hidden x ffn x layers)",
                  p->params, g.expert);
      return NULL;
    }
    g.dense = p->params - g.expert;
  }
  z.act = (guint64)p->mbs * p->seq * p->hidden * p->dtype_bytes;
  z.p2p = p->sp ? z.act / p->tp : z.act;
  z.a2a = (guint64)p->mbs * p->seq * p->hidden * p->dtype_bytes *
          (p->top_k ? p->top_k : 1) / (p->sp ? p->tp : 1);
  z.attn = (8 * b * s * h * h + 4 * b * s * s * h) / p->tp;
  z.mlp = 2 * mat * b * s * h * p->ffn * (p->experts ? p->top_k : 1) / p->tp;
  z.head = 2 * b * s * h * p->vocab / p->tp;

  /* Each stage's order of forwards (+) and backwards (-), micro-batch
   * numbers 1-based: 1F1B (Narayanan et al. 2021, fig. 4: pp - s - 1
   * warm-up forwards, then one forward one backward, then the rest of the
   * backwards) or GPipe (all forwards, then the backwards in reverse). */
  for (guint32 st = 0; st < pp; st++) {
    gint32 *o = g_new(gint32, 2 * m);
    guint32 n = 0;

    if (p->schedule == TRC_SCHED_GPIPE) {
      for (guint32 i = 0; i < m; i++)
        o[n++] = (gint32)i + 1;
      for (guint32 i = m; i > 0; i--)
        o[n++] = -(gint32)i;
    } else {
      guint32 warm = MIN(pp - st - 1, m);
      for (guint32 i = 0; i < warm; i++)
        o[n++] = (gint32)i + 1;
      for (guint32 i = 0; i < m - warm; i++) {
        o[n++] = (gint32)(warm + i) + 1;
        o[n++] = -((gint32)i + 1);
      }
      for (guint32 i = m - warm; i < m; i++)
        o[n++] = -((gint32)i + 1);
    }
    g_ptr_array_add(order, o);
  }

  g.ops = g_array_new(FALSE, TRUE, sizeof(TrcOp));
  g.last = g_new(gint64, pp);
  g.bucket = g_array_new(FALSE, FALSE, sizeof(guint32));
  g.grads = g_array_new(FALSE, FALSE, sizeof(guint32));
  for (guint32 st = 0; st < pp; st++)
    g.last[st] = -1;
  for (gsize i = 0; i < (gsize)pp * m; i++)
    send_f[i] = send_b[i] = -1;

  /* Emit in rounds: a stage's next item goes out once what it receives
   * has been emitted, so every dependency precedes its op. */
  while (left > 0) {
    guint32 before = left;

    if (!g.error && !sim_interrupt_check(&g.error))
      break;
    for (guint32 st = 0; st < pp; st++) {
      const gint32 *o = g_ptr_array_index(order, st);

      while (pos[st] < 2 * m) {
        gint32 it = o[pos[st]];
        guint32 mb = (guint32)ABS(it) - 1;

        if (it > 0) {
          gint64 recv = st > 0 ? send_f[(st - 1) * m + mb] : -1;
          if (st > 0 && recv < 0)
            break;
          forward(&g, &z, (gint32)st, mb, recv);
          if (st + 1 < pp) {
            guint32 d = (guint32)g.last[st];
            send_f[st * m + mb] =
                emit(&g, g_strdup_printf("mb%u.s%u.fwd_send", mb, st), FALSE,
                     NCCL_COLL_SENDRECV, TRC_GROUP_PP, z.p2p, 0, (gint32)st, 1,
                     &d, 1);
          }
        } else {
          gint64 recv = st + 1 < pp ? send_b[(st + 1) * m + mb] : -1;
          gboolean final;
          if (st + 1 < pp && recv < 0)
            break;
          final = ++nb[st] == m;
          if (final) {
            g_array_set_size(g.grads, 0);
            g.n_bucket = 0;
          }
          backward(&g, &z, (gint32)st, mb, recv, final);
          if (st > 0) {
            guint32 d = (guint32)g.last[st];
            send_b[st * m + mb] =
                emit(&g, g_strdup_printf("mb%u.s%u.bwd_send", mb, st), FALSE,
                     NCCL_COLL_SENDRECV, TRC_GROUP_PP, z.p2p, 0, (gint32)st, -1,
                     &d, 1);
          }
          if (final)
            finish_stage(&g, (gint32)st);
        }
        pos[st]++;
        left--;
      }
    }
    g_assert(left < before); /* both schedules are deadlock-free */
  }

  w = g_new0(TrcWorkload, 1);
  w->source = g_strdup("generated");
  w->tp = p->tp;
  w->pp = p->pp;
  w->dp = p->dp;
  w->ep = p->ep;
  w->n_ops = g.ops->len;
  w->ops = (TrcOp *)(void *)g_array_free(g.ops, FALSE);
  g_free(g.last);
  g_array_free(g.bucket, TRUE);
  g_array_free(g.grads, TRUE);
  if (g.error) {
    g_propagate_error(error, g.error);
    trc_workload_free(w);
    return NULL;
  }
  /* each op was checked as made; what is left is the whole step's (a
   * stage's compute sum) */
  if (!trc_workload_validate(w, error)) {
    trc_workload_free(w);
    return NULL;
  }
  return w;
}
