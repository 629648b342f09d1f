/* Workloads (traces/workload.h): the CSV reader and writer, the bad-input
 * corpus, the LLM generator against hand-computed figures, and the
 * ASTRA-sim / SimAI importer op by op. */
#include <check.h>
#include <glib/gstdio.h>
#include <string.h>

#include "tests/bad_corpus.h"
#include "tests/suites.h"
#include "traces/workload.h"

static char *data_path(const char *name)
{
  return g_build_filename(IFSIM_TEST_DATA_DIR, "workload", name, NULL);
}

static void assert_same(const TrcWorkload *a, const TrcWorkload *b)
{
  ck_assert_uint_eq(a->tp, b->tp);
  ck_assert_uint_eq(a->pp, b->pp);
  ck_assert_uint_eq(a->dp, b->dp);
  ck_assert_uint_eq(a->ep, b->ep);
  ck_assert_uint_eq(a->n_ops, b->n_ops);
  for (guint32 i = 0; i < a->n_ops; i++) {
    const TrcOp *x = &a->ops[i], *y = &b->ops[i];

    ck_assert_uint_eq(x->id, y->id);
    ck_assert_str_eq(x->name, y->name);
    ck_assert_int_eq(x->compute, y->compute);
    if (!x->compute)
      ck_assert_int_eq(x->coll, y->coll);
    ck_assert_int_eq(x->group, y->group);
    ck_assert_uint_eq(x->bytes, y->bytes);
    ck_assert_uint_eq(x->compute_ps, y->compute_ps);
    ck_assert_int_eq(x->stage, y->stage);
    ck_assert_int_eq(x->peer, y->peer);
    ck_assert_uint_eq(x->n_deps, y->n_deps);
    for (guint32 k = 0; k < x->n_deps; k++)
      ck_assert_uint_eq(x->deps[k], y->deps[k]);
  }
}

/* to_csv -> load -> same workload, and the text is a fixed point. */
static void assert_round_trip(const TrcWorkload *w)
{
  g_autofree char *text = trc_workload_to_csv(w);
  g_autoptr(GError) error = NULL;
  g_autoptr(TrcWorkload) back =
      trc_workload_load_csv_data(text, strlen(text), "round-trip", &error);
  g_autofree char *again = NULL;

  ck_assert_msg(back != NULL, "%s", error ? error->message : "");
  assert_same(w, back);
  again = trc_workload_to_csv(back);
  ck_assert_str_eq(text, again);
}

static guint32 find(const TrcWorkload *w, const char *name)
{
  for (guint32 i = 0; i < w->n_ops; i++)
    if (g_str_equal(w->ops[i].name, name))
      return i;
  ck_abort_msg("no op %s", name);
  return 0;
}

static gboolean has_dep(const TrcWorkload *w, guint32 op, guint32 dep)
{
  for (guint32 k = 0; k < w->ops[op].n_deps; k++)
    if (w->ops[op].deps[k] == dep)
      return TRUE;
  return FALSE;
}

START_TEST(test_validate_ids)
{
  /* ids in any order are accepted once each: rising ones are checked
   * without a set, the others with one */
  static const guint32 orders[][4] = {
      {1, 2, 3, 9}, {9, 3, 2, 1}, {2, 1, 4, 3}, {1, 2, 3, 2}, {4, 3, 4, 1}};
  static const gboolean unique[] = {TRUE, TRUE, TRUE, FALSE, FALSE};

  for (guint c = 0; c < G_N_ELEMENTS(orders); c++) {
    TrcOp ops[4];
    TrcWorkload w = {.source = (char *)"ids",
                     .tp = 1,
                     .pp = 1,
                     .dp = 1,
                     .ep = 1,
                     .ops = ops,
                     .n_ops = 4};
    g_autoptr(GError) error = NULL;

    for (guint i = 0; i < 4; i++)
      ops[i] = (TrcOp){.id = orders[c][i],
                       .name = (char *)"op",
                       .compute = TRUE,
                       .compute_ps = 1000,
                       .stage = -1};
    ck_assert_msg(trc_workload_validate(&w, &error) == unique[c],
                  "order %u: %s", c, error ? error->message : "accepted");
    if (!unique[c])
      ck_assert_msg(strstr(error->message, "not unique"), "%s", error->message);
  }
}
END_TEST

START_TEST(test_csv_example)
{
  g_autofree char *path = data_path("example.csv");
  g_autoptr(GError) error = NULL;
  g_autoptr(TrcWorkload) w = trc_workload_load_csv(path, &error);
  const TrcOp *o;

  ck_assert_msg(w != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq(w->tp, 2);
  ck_assert_uint_eq(w->pp, 2);
  ck_assert_uint_eq(w->dp, 2);
  ck_assert_uint_eq(w->ep, 1);
  ck_assert_uint_eq(w->n_ops, 11);
  o = &w->ops[0];
  ck_assert(o->compute);
  ck_assert_uint_eq(o->compute_ps, 250500000); /* 250.5 us */
  ck_assert_uint_eq(o->n_deps, 0);             /* none */
  ck_assert_uint_eq(o->line, 7);
  o = &w->ops[1]; /* 16M is 16 MiB; empty deps: the previous row */
  ck_assert_int_eq(o->coll, NCCL_COLL_ALLREDUCE);
  ck_assert_int_eq(o->group, TRC_GROUP_TP);
  ck_assert_uint_eq(o->bytes, 16777216);
  ck_assert_uint_eq(o->n_deps, 1);
  ck_assert_uint_eq(o->deps[0], 0);
  o = &w->ops[2];
  ck_assert_int_eq(o->coll, NCCL_COLL_SENDRECV);
  ck_assert_int_eq(o->group, TRC_GROUP_PP);
  ck_assert_int_eq(o->stage, 0);
  ck_assert_int_eq(o->peer, 1);
  ck_assert_int_eq(w->ops[6].peer, -1);
  ck_assert_uint_eq(w->ops[7].bytes, 134217728); /* a quoted field */
  ck_assert_uint_eq(w->ops[7].deps[0], 5);       /* id 6 */
  /* 501.000001 us: the sixth fraction digit is one picosecond... */
  ck_assert_uint_eq(w->ops[8].compute_ps, 501000001);
  o = &w->ops[10];
  ck_assert_str_eq(o->name, "opt, all stages");
  ck_assert_int_eq(o->stage, -1);
  ck_assert_uint_eq(o->compute_ps, 12250000);
  ck_assert_uint_eq(o->n_deps, 2);
  ck_assert_uint_eq(o->deps[0], 7);
  ck_assert_uint_eq(o->deps[1], 9);
  assert_round_trip(w);
}
END_TEST

START_TEST(test_csv_rounding)
{
  /* ... and digits past it round once, half up: 1.0000005 us = 1000000.5
   * ps -> 1000001; 1.00000049 -> 1000000. */
  const char *text = "# tp: 1\n# pp: 1\n# dp: 1\n# ep: 1\n"
                     "id,name,op,group,size_bytes,compute_us,stage,peer,"
                     "deps\n"
                     "1,a,compute,,,1.0000005,,,\n"
                     "2,b,compute,,,1.00000049,,,\n"
                     "3,c,compute,,,0.0000005,,,\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(TrcWorkload) w =
      trc_workload_load_csv_data(text, strlen(text), "rounding", &error);

  ck_assert_msg(w != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq(w->ops[0].compute_ps, 1000001);
  ck_assert_uint_eq(w->ops[1].compute_ps, 1000000);
  ck_assert_uint_eq(w->ops[2].compute_ps, 1);
  assert_round_trip(w);
}
END_TEST

static gboolean load_csv(const char *path, GError **error)
{
  g_autoptr(TrcWorkload) w = trc_workload_load_csv(path, error);

  return w != NULL;
}

START_TEST(test_csv_bad_corpus)
{
  ck_assert_uint_ge(bad_corpus_manifest_load("workload", load_csv), 40);
}
END_TEST

/* --- generator ---------------------------------------------------------- */

static TrcWorkload *generate(const char *spec)
{
  TrcLlmParams p;
  g_autoptr(GError) error = NULL;
  TrcWorkload *w;

  ck_assert_msg(trc_llm_parse(spec, &p, &error), "%s: %s", spec,
                error->message);
  w = trc_llm_generate(&p, &error);
  ck_assert_msg(w != NULL, "%s: %s", spec, error ? error->message : "");
  return w;
}

START_TEST(test_llm_small)
{
  /* b = 1, s = h = 1024, ffn = 4096 (GELU: 2 matrices), V = 32000, tp 2,
   * tflops x mfu = 50, so ps = FLOPs / 50:
   *   attention fwd (8 b s h^2 + 4 b s^2 h) / tp = 12 x 2^30 / 2
   *     = 6442450944 FLOPs -> 128849018.88 -> 128849019 ps
   *   MLP fwd 2 x 2 x b s h ffn / tp = 2^33 = 8589934592 -> 171798692 ps
   *   head fwd 2 b s h V / tp = 33554432000 -> 671088640 ps
   *   backward: twice each (257698038 (of 12884901888 / 50 = 257698037.76),
   *   343597384, 1342177280)
   *   TP AllReduce: b s h x 2 bytes = 2097152
   *   params: per layer 4 h^2 + 2 h + 2 h ffn = 12584960, x 2 layers
   *     + V h = 32768000 -> 57937920; gradients per rank x 2 bytes / tp
   *     = 57937920 bytes, one bucket.
   * Ops: 2 layers x (attn, AR, mlp, AR) forward and backward = 16, head
   * fwd + bwd = 2, one gradient AllReduce, the optimizer: 20. */
  g_autoptr(TrcWorkload) w =
      generate("layers=2,hidden=1024,ffn=4096,vocab=32000,seq=1024,mbs=1,"
               "microbatches=1,tp=2,pp=1,dp=2,tflops=100,mfu=0.5,"
               "optimizer_us=10");
  guint32 g;

  ck_assert_uint_eq(w->n_ops, 20);
  ck_assert_uint_eq(w->ops[find(w, "mb0.l0.fwd.attn")].compute_ps, 128849019);
  ck_assert_uint_eq(w->ops[find(w, "mb0.l1.fwd.mlp")].compute_ps, 171798692);
  ck_assert_uint_eq(w->ops[find(w, "mb0.head.fwd")].compute_ps, 671088640);
  ck_assert_uint_eq(w->ops[find(w, "mb0.head.bwd")].compute_ps, 1342177280);
  ck_assert_uint_eq(w->ops[find(w, "mb0.l1.bwd.attn")].compute_ps, 257698038);
  ck_assert_uint_eq(w->ops[find(w, "mb0.l0.bwd.mlp")].compute_ps, 343597384);
  ck_assert_uint_eq(w->ops[find(w, "mb0.l0.fwd.attn_allreduce")].bytes,
                    2097152);
  ck_assert_int_eq(w->ops[find(w, "mb0.l0.bwd.mlp_allreduce")].group,
                   TRC_GROUP_TP);
  g = find(w, "s0.grad_bucket0.allreduce");
  ck_assert_uint_eq(w->ops[g].bytes, 57937920);
  ck_assert_int_eq(w->ops[g].group, TRC_GROUP_DP);
  ck_assert_uint_eq(w->ops[find(w, "s0.optimizer")].compute_ps, 10000000);
  ck_assert(has_dep(w, find(w, "s0.optimizer"), g));
  assert_round_trip(w);
}
END_TEST

START_TEST(test_llm_1f1b)
{
  /* pp 2, 2 micro-batches, one layer a stage, tp = dp = 1: stage 0 warms
   * up with pp - 0 - 1 = 1 forward, then F1 B0, then B1; stage 1 has no
   * warm-up: F0 B0 F1 B1 (Narayanan et al. 2021, fig. 4). */
  static const char *const s0[] = {
      "mb0.l0.fwd.attn", "mb0.l0.fwd.mlp",  "mb0.s0.fwd_send",
      "mb1.l0.fwd.attn", "mb1.l0.fwd.mlp",  "mb1.s0.fwd_send",
      "mb0.l0.bwd.mlp",  "mb0.l0.bwd.attn", "mb1.l0.bwd.mlp",
      "mb1.l0.bwd.attn", "s0.optimizer"};
  static const char *const s1[] = {
      "mb0.l1.fwd.attn", "mb0.l1.fwd.mlp",  "mb0.head.fwd",
      "mb0.head.bwd",    "mb0.l1.bwd.mlp",  "mb0.l1.bwd.attn",
      "mb0.s1.bwd_send", "mb1.l1.fwd.attn", "mb1.l1.fwd.mlp",
      "mb1.head.fwd",    "mb1.head.bwd",    "mb1.l1.bwd.mlp",
      "mb1.l1.bwd.attn", "mb1.s1.bwd_send", "s1.optimizer"};
  g_autoptr(TrcWorkload) w =
      generate("layers=2,hidden=256,ffn=1024,vocab=1000,seq=128,mbs=1,"
               "microbatches=2,tp=1,pp=2,dp=1,tflops=100,mfu=0.5,"
               "optimizer_us=1");
  guint32 n0 = 0, n1 = 0, send;

  for (guint32 i = 0; i < w->n_ops; i++) {
    const TrcOp *o = &w->ops[i];
    if (o->stage == 0) {
      ck_assert_uint_lt(n0, G_N_ELEMENTS(s0));
      ck_assert_str_eq(o->name, s0[n0++]);
    } else {
      ck_assert_int_eq(o->stage, 1);
      ck_assert_uint_lt(n1, G_N_ELEMENTS(s1));
      ck_assert_str_eq(o->name, s1[n1++]);
    }
  }
  ck_assert_uint_eq(n0, G_N_ELEMENTS(s0));
  ck_assert_uint_eq(n1, G_N_ELEMENTS(s1));
  /* b s h x 2 bytes = 65536 each way; the receiver waits for the send. */
  send = find(w, "mb1.s0.fwd_send");
  ck_assert_uint_eq(w->ops[send].bytes, 65536);
  ck_assert_int_eq(w->ops[send].peer, 1);
  ck_assert(has_dep(w, find(w, "mb1.l1.fwd.attn"), send));
  send = find(w, "mb0.s1.bwd_send");
  ck_assert_int_eq(w->ops[send].peer, -1);
  ck_assert(has_dep(w, find(w, "mb0.l0.bwd.mlp"), send));
  /* sends hang off the sender's chain: its next op waits for its own
   * previous one only */
  ck_assert(has_dep(w, find(w, "mb0.l0.bwd.mlp"), find(w, "mb1.l0.fwd.mlp")));
  ck_assert(!has_dep(w, find(w, "mb0.l0.bwd.mlp"), find(w, "mb1.s0.fwd_send")));
  assert_round_trip(w);
}
END_TEST

START_TEST(test_llm_buckets)
{
  /* params 4000000 x 2 bytes over 4 layers, tp 1: 2000000 bytes a layer;
   * bucket 4000000 closes after two layers: bucket 0 = l3 + l2, bucket 1 =
   * l1 + l0, each after the last micro-batch's backward of its layers.
   * zero=1: ReduceScatter, then the optimizer, then AllGathers. */
  g_autoptr(TrcWorkload) w =
      generate("params=4M,layers=4,hidden=256,ffn=1024,vocab=1000,seq=128,"
               "mbs=1,microbatches=2,tp=1,pp=1,dp=4,tflops=100,mfu=0.5,"
               "optimizer_us=5,bucket=4000000,zero=1");
  guint32 b0 = find(w, "s0.grad_bucket0.reducescatter");
  guint32 b1 = find(w, "s0.grad_bucket1.reducescatter");
  guint32 opt = find(w, "s0.optimizer");
  guint32 ag = find(w, "s0.grad_bucket1.param_allgather");

  ck_assert_uint_eq(w->ops[b0].bytes, 4000000);
  ck_assert_uint_eq(w->ops[b1].bytes, 4000000);
  ck_assert_uint_eq(w->ops[b0].n_deps, 2);
  ck_assert(has_dep(w, b0, find(w, "mb1.l3.bwd.attn")));
  ck_assert(has_dep(w, b0, find(w, "mb1.l2.bwd.attn")));
  ck_assert_uint_eq(w->ops[b1].n_deps, 2);
  ck_assert(has_dep(w, b1, find(w, "mb1.l1.bwd.attn")));
  ck_assert(has_dep(w, b1, find(w, "mb1.l0.bwd.attn")));
  /* bucket 0 goes out while l1 and l0 are still in backward */
  ck_assert_uint_lt(b0, find(w, "mb1.l1.bwd.mlp"));
  ck_assert(has_dep(w, opt, b0));
  ck_assert(has_dep(w, opt, b1));
  ck_assert_int_eq(w->ops[ag].coll, NCCL_COLL_ALLGATHER);
  ck_assert_uint_eq(w->ops[ag].bytes, 4000000);
  ck_assert_uint_eq(w->ops[ag].n_deps, 1);
  ck_assert_uint_eq(w->ops[ag].deps[0], opt);
  assert_round_trip(w);
}
END_TEST

START_TEST(test_llm_sp_moe)
{
  /* sp: AG / RS instead of AR; MoE with ep 2: dispatch and combine
   * all-to-alls of b s h top_k x 2 / tp = 128 x 256 x 2 x 2 / 2 = 65536
   * bytes; expert gradients over EDP (dp / ep = 2 ranks). */
  g_autoptr(TrcWorkload) w =
      generate("layers=2,hidden=256,ffn=1024,vocab=1000,seq=128,mbs=1,"
               "microbatches=1,tp=2,pp=1,dp=4,ep=2,experts=4,top_k=2,sp=1,"
               "tflops=100,mfu=0.5,optimizer_us=1");
  guint32 a = find(w, "mb0.l0.fwd.dispatch_alltoall");

  ck_assert_int_eq(w->ops[a].group, TRC_GROUP_EP);
  ck_assert_uint_eq(w->ops[a].bytes, 65536);
  ck_assert_int_eq(w->ops[find(w, "mb0.l0.fwd.attn_allgather")].coll,
                   NCCL_COLL_ALLGATHER);
  ck_assert_int_eq(w->ops[find(w, "mb0.l0.bwd.attn_reducescatter")].coll,
                   NCCL_COLL_REDUCESCATTER);
  ck_assert_int_eq(w->ops[find(w, "s0.expert_grad_bucket0.allreduce")].group,
                   TRC_GROUP_EDP);
  assert_round_trip(w);
}
END_TEST

START_TEST(test_llm_docs_example)
{
  /* docs/workload-example.csv is this spec's output, byte for byte. */
  g_autoptr(TrcWorkload) w =
      generate("layers=2,hidden=1024,ffn=4096,vocab=32000,seq=1024,mbs=1,"
               "microbatches=2,tp=2,pp=2,dp=2,tflops=100,mfu=0.5,"
               "optimizer_us=10");
  g_autofree char *path =
      g_build_filename(IFSIM_SOURCE_DIR, "docs", "workload-example.csv", NULL);
  g_autofree char *text = NULL, *want = NULL;

  ck_assert(g_file_get_contents(path, &want, NULL, NULL));
  text = trc_workload_to_csv(w);
  ck_assert_str_eq(text, want);
}
END_TEST

START_TEST(test_llm_ops_bound)
{
  /* trc_llm_ops_bound, checked against the memory allowed before any op is
   * made, holds every op and is not far above them */
  static const char *const specs[] = {
      "layers=2,hidden=1024,ffn=4096,vocab=32000,seq=1024,mbs=1,"
      "microbatches=2,tp=2,pp=2,dp=2,tflops=100,mfu=0.5,optimizer_us=10",
      "layers=8,hidden=256,ffn=1024,vocab=1000,seq=128,mbs=1,"
      "microbatches=1,tp=2,pp=1,dp=4,ep=2,experts=4,top_k=2,sp=1,"
      "tflops=100,mfu=0.5,optimizer_us=1,bucket=1,zero=3",
      "layers=16,hidden=256,ffn=1024,vocab=1000,seq=128,mbs=1,"
      "microbatches=8,tp=2,pp=4,dp=4,ep=4,experts=8,top_k=2,zero=1,"
      "tflops=100,mfu=0.5,optimizer_us=1,bucket=1,schedule=gpipe",
      "layers=80,hidden=8192,ffn=28672,vocab=128256,seq=4096,mbs=1,"
      "microbatches=16,tp=8,pp=8,dp=16,mlp=swiglu,tflops=989,mfu=0.4,"
      "optimizer_us=100"};

  for (guint i = 0; i < G_N_ELEMENTS(specs); i++) {
    TrcLlmParams p;
    g_autoptr(TrcWorkload) w = generate(specs[i]);
    guint64 bound;

    ck_assert(trc_llm_parse(specs[i], &p, NULL));
    bound = trc_llm_ops_bound(&p);
    ck_assert_msg(w->n_ops <= bound && bound <= 4 * (guint64)w->n_ops,
                  "%s: %u ops, bound %" G_GUINT64_FORMAT, specs[i], w->n_ops,
                  bound);
  }
}
END_TEST

START_TEST(test_llm_spec_errors)
{
  static const struct {
    const char *spec, *expect;
  } cases[] = {
      {"layers=2", "required key 'hidden' missing"},
      {"layers=2,hiden=4", "unknown key 'hiden' (valid keys: params, layers"},
      {"layers=3,hidden=8,ffn=32,vocab=10,seq=8,mbs=1,microbatches=1,tp=1,"
       "pp=2,dp=1,tflops=1,mfu=0.5,optimizer_us=1",
       "layers=3 is not divisible by pp=2"},
      {"layers=2,hidden=8,ffn=32,vocab=10,seq=8,mbs=1,microbatches=1,tp=0,"
       "pp=1,dp=1,tflops=1,mfu=0.5,optimizer_us=1",
       "tp=0: expected a whole number in [1, 1048576]"},
      {"layers=2,hidden=8,ffn=32,vocab=10,seq=8,mbs=1,microbatches=1,tp=1,"
       "pp=1,dp=1,tflops=1,mfu=1.5,optimizer_us=1",
       "mfu=1.5: expected a fraction of peak in (0, 1]"},
      {"layers=2,hidden=8,ffn=32,vocab=10,seq=8,mbs=1,microbatches=1,tp=1,"
       "pp=1,dp=4,ep=3,experts=6,top_k=1,tflops=1,mfu=0.5,optimizer_us=1",
       "ep=3 does not divide dp=4"},
      {"layers=2,hidden=8,ffn=32,vocab=10,seq=8,mbs=1,microbatches=1,tp=1,"
       "pp=1,dp=4,ep=4,experts=6,top_k=1,tflops=1,mfu=0.5,optimizer_us=1",
       "experts=6 is not divisible by ep=4"},
      {"layers=2,hidden=8,ffn=32,vocab=10,seq=8,mbs=1,tp=1,pp=1,dp=1,"
       "tflops=1,mfu=0.5,optimizer_us=1",
       "exactly one of microbatches"},
      {"layers=2,hidden=8,ffn=32,vocab=10,seq=8,mbs=2,gbs=7,tp=1,pp=1,dp=2,"
       "tflops=1,mfu=0.5,optimizer_us=1",
       "gbs=7 is not a multiple of mbs x dp = 4"},
      {"layers=2,hidden=8,ffn=32,vocab=10,seq=8,mbs=1,microbatches=1,tp=1,"
       "pp=1,dp=1,tflops=1,mfu=0.5,optimizer_us=1,schedule=zb",
       "schedule=zb: expected 1f1b or gpipe"},
  };

  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    TrcLlmParams p;
    g_autoptr(GError) error = NULL;

    ck_assert_msg(!trc_llm_parse(cases[i].spec, &p, &error), "%s parsed",
                  cases[i].spec);
    ck_assert_msg(strstr(error->message, cases[i].expect) != NULL,
                  "'%s' lacks '%s'", error->message, cases[i].expect);
  }
}
END_TEST

START_TEST(test_llm_gbs)
{
  TrcLlmParams p;
  g_autoptr(GError) error = NULL;

  ck_assert(trc_llm_parse("layers=2,hidden=8,ffn=32,vocab=10,seq=8,mbs=2,"
                          "gbs=16,tp=1,pp=1,dp=2,tflops=1,mfu=0.5,"
                          "optimizer_us=1,params=70B",
                          &p, &error));
  ck_assert_uint_eq(p.microbatches, 4); /* 16 / (2 x 2) */
  ck_assert_uint_eq(p.params, 70000000000ull);
}
END_TEST

/* --- ASTRA-sim / SimAI -------------------------------------------------- */

START_TEST(test_astra_2layer)
{
  /* HYBRID_TRANSFORMER_FWD_IN_BCKWD, model_parallel_NPU_group 8 of 8 GPUs:
   * tp 8, dp 1.  Forward: compute 556000 ticks (1 ns), a blocking TP
   * AllReduce, its 1-tick update; backward from layer 1: ig compute
   * (1 tick; comm NONE), wg compute (1 tick; NONE). */
  static const struct {
    const char *name;
    gboolean compute;
    guint64 bytes;
    SimTime ps;
  } ops[] = {
      {"l0.embedding_layer.fwd_compute", TRUE, 0, 556000000},
      {"l0.embedding_layer.fwd_allreduce", FALSE, 16777216, 0},
      {"l0.embedding_layer.fwd_update", TRUE, 0, 1000},
      {"l1.embedding_layer.fwd_compute", TRUE, 0, 556000000},
      {"l1.embedding_layer.fwd_allreduce", FALSE, 67108864, 0},
      {"l1.embedding_layer.fwd_update", TRUE, 0, 1000},
      {"l1.embedding_layer.ig_compute", TRUE, 0, 1000},
      {"l1.embedding_layer.wg_compute", TRUE, 0, 1000},
      {"l0.embedding_layer.ig_compute", TRUE, 0, 1000},
      {"l0.embedding_layer.wg_compute", TRUE, 0, 1000},
  };
  g_autofree char *path = data_path("astra_2layer.txt");
  g_autoptr(GError) error = NULL;
  g_autoptr(TrcWorkload) w = trc_workload_load_astra(path, 0, &error);

  ck_assert_msg(w != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq(w->tp, 8);
  ck_assert_uint_eq(w->dp, 1);
  ck_assert_uint_eq(w->pp, 1);
  ck_assert_uint_eq(w->n_ops, G_N_ELEMENTS(ops));
  for (guint32 i = 0; i < w->n_ops; i++) {
    const TrcOp *o = &w->ops[i];

    ck_assert_str_eq(o->name, ops[i].name);
    ck_assert_int_eq(o->compute, ops[i].compute);
    ck_assert_uint_eq(o->bytes, ops[i].bytes);
    ck_assert_uint_eq(o->compute_ps, ops[i].ps);
    if (!o->compute) {
      ck_assert_int_eq(o->coll, NCCL_COLL_ALLREDUCE);
      ck_assert_int_eq(o->group, TRC_GROUP_TP);
    }
    /* one chain */
    ck_assert_uint_eq(o->n_deps, i > 0);
    if (i > 0)
      ck_assert_uint_eq(o->deps[0], i - 1);
  }
  assert_round_trip(w);
}
END_TEST

START_TEST(test_astra_transformer)
{
  /* HYBRID_TRANSFORMER, tp 2 of 8 GPUs (dp 4), ep 2.  Layer 1's MoE
   * all-to-alls run over EP, its wg AllReduce_DP_EP over EDP; wg comms hang
   * off the chain (non-blocking): the next ig compute does not wait. */
  g_autofree char *path = data_path("astra_transformer.txt");
  g_autoptr(GError) error = NULL;
  TrcAstraOptions opt = {.ns_per_tick = 0.5};
  g_autoptr(TrcWorkload) w = trc_workload_load_astra_opts(path, &opt, &error);
  guint32 wg2, ig1;

  ck_assert_msg(w != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq(w->tp, 2);
  ck_assert_uint_eq(w->dp, 4);
  ck_assert_uint_eq(w->ep, 2);
  /* fwd: 3 computes + 2 comms; bwd: 3 x (ig, wg) computes + 2 ig comms +
   * 3 wg comms (update time 0: no update ops) = 16 */
  ck_assert_uint_eq(w->n_ops, 16);
  ck_assert_uint_eq(w->ops[find(w, "l0.attention.fwd_compute")].compute_ps,
                    60000000); /* 120000 ticks x 0.5 ns */
  ck_assert_int_eq(w->ops[find(w, "l1.moe_mlp.fwd_alltoall")].group,
                   TRC_GROUP_EP);
  ck_assert_int_eq(w->ops[find(w, "l1.moe_mlp.wg_allreduce")].group,
                   TRC_GROUP_EDP);
  ck_assert_int_eq(w->ops[find(w, "l0.attention.ig_allreduce")].group,
                   TRC_GROUP_TP);
  wg2 = find(w, "l2.output.wg_reducescatter");
  ck_assert_int_eq(w->ops[wg2].group, TRC_GROUP_DP);
  ck_assert_uint_eq(w->ops[wg2].bytes, 65536000);
  ig1 = find(w, "l1.moe_mlp.ig_compute");
  ck_assert_uint_eq(w->ops[ig1].n_deps, 1);
  ck_assert_uint_eq(w->ops[ig1].deps[0], find(w, "l2.output.wg_compute"));
  ck_assert_uint_eq(w->ops[wg2].deps[0], find(w, "l2.output.wg_compute"));
  assert_round_trip(w);
}
END_TEST

START_TEST(test_astra_errors)
{
  static const struct {
    const char *text, *expect;
  } cases[] = {
      {"HYBRID_DLRM\n1\nx -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n",
       ":1: 'HYBRID_DLRM': parallelism not imported"},
      {"DATA all_gpus: 4\n1\nx -1 1 ALLREDUCE 8 1 NONE 0 1 NONE 0 1\n",
       ":3: 'ALLREDUCE': DATA parallelism runs no forward"},
      {"DATA all_gpus: 4\n1\nx -1 1 NONE 0 1 NONE 0 1 ALLREDUCEALLTOALL 8 1\n",
       "ALLREDUCEALLTOALL is no single collective"},
      {"DATA all_gpus: 4\n2\nx -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 1\n",
       "12 fields after line 2: expected 2 layers of 12"},
      {"DATA\n1\nx -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 1\n",
       "the job's ranks: the file does not say them (ASTRA-sim 1.0 takes "
       "them from its network configuration, SimAI from all_gpus: on line "
       "1): give the job's GPU count, from 1 to 16777216"},
      {"HYBRID_TRANSFORMER model_parallel_NPU_group: 8 all_gpus: 16 pp: 2\n1\n"
       "x -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n",
       "pp 2 needs ga: (micro-batches) and vpp: (virtual stages)"},
      {"DATA all_gpus: 8 pp: 2 ga: 1 vpp: 1\n1\n"
       "x -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n",
       "pipeline parallelism (pp 2) is SimAI's, for HYBRID_TRANSFORMER*"},
      {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 all_gpus: 8 pp: 3 ga: "
       "1 vpp: 1\n1\nx -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n",
       "pp: 3 stages of 2 model-parallel ranks do not divide the job's 8"},
      {"HYBRID_TRANSFORMER model_parallel_NPU_group: 3 all_gpus: 8\n1\n"
       "x -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n",
       "model-parallel size 3"},
      {"DATA all_gpus: 4 foo: 1\n1\nx -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n",
       "'foo:': unknown key"},
      {"DATA all_gpus: 4\n1\nx -1 1 NONE 0 1 NONE 0 1 ALLGATHER_XY 8 1\n",
       "'ALLGATHER_XY': unknown comm type"},
      {"DATA all_gpus: 4\n1\nx -1 -5 NONE 0 1 NONE 0 1 NONE 0 1\n",
       "'-5': expected a whole number of ticks"},
      /* bytes with no collective to move them would be dropped */
      {"DATA all_gpus: 4\n1\nx -1 1 NONE 0 1 NONE 5 1 ALLREDUCE 8 1\n",
       "'5': comm type NONE moves nothing: expected 0"},
  };
  g_autofree char *dir = g_dir_make_tmp("ifsim-astra-XXXXXX", NULL);

  ck_assert_ptr_nonnull(dir);
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *path = g_build_filename(dir, "w.txt", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(TrcWorkload) w = NULL;

    ck_assert(g_file_set_contents(path, cases[i].text, -1, NULL));
    w = trc_workload_load_astra(path, 0, &error);
    ck_assert_msg(w == NULL, "case %u loaded", i);
    ck_assert_msg(strstr(error->message, cases[i].expect) != NULL,
                  "'%s' lacks '%s'", error->message, cases[i].expect);
    ck_assert_msg(strstr(error->message, path) != NULL, "'%s' lacks the path",
                  error->message);
    g_unlink(path);
  }
  g_rmdir(dir);
}
END_TEST

START_TEST(test_astra_real_files)
{
  /* tests/data/workload/real (PROVENANCE.md): ASTRA-sim 1.0's own files
   * have no all_gpus: (CRLF line endings), AICB's SimAI file a
   * BROADCAST */
  static const struct {
    const char *file;
    guint32 gpus, tp, dp;
  } cases[] = {
      {"Resnet50_DataParallel.txt", 16, 1, 16},
      {"Transformer_HybridParallel.txt", 16, 4, 4},
      {"aicb_G13B-M1-C01_GPT13B_megatron_tp8_pp1_mbs1_A100.txt", 16, 8, 2}};

  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *path = g_build_filename(IFSIM_TEST_DATA_DIR, "workload",
                                             "real", cases[i].file, NULL);
    TrcAstraOptions opt = {.gpus_given_as = "--astra-gpus", .ns_per_tick = 1};
    g_autoptr(GError) error = NULL;
    g_autoptr(TrcWorkload) none =
        trc_workload_load_astra_opts(path, &opt, &error);
    g_autoptr(TrcWorkload) w = NULL;

    ck_assert_ptr_null(none);
    ck_assert_msg(strstr(error->message,
                         "the job's ranks: the file does not say them "
                         "(ASTRA-sim 1.0 takes them from its network "
                         "configuration, SimAI from all_gpus: on line 1): "
                         "give them with --astra-gpus N"),
                  "%s", error->message);
    g_clear_error(&error);
    opt.gpus = cases[i].gpus;
    w = trc_workload_load_astra_opts(path, &opt, &error);
    ck_assert_msg(w != NULL, "%s: %s", cases[i].file,
                  error ? error->message : "");
    ck_assert_uint_eq(w->tp, cases[i].tp);
    ck_assert_uint_eq(w->dp, cases[i].dp);
    ck_assert(trc_workload_validate(w, NULL));
  }
  {
    /* the BROADCAST of AICB's file: NCCL's Broadcast over the TP group, as
     * a forward comm of its layer, 16,384 bytes */
    g_autofree char *path = g_build_filename(IFSIM_TEST_DATA_DIR, "workload",
                                             "real", cases[2].file, NULL);
    TrcAstraOptions opt = {.gpus = 8, .ns_per_tick = 1};
    g_autoptr(TrcWorkload) w = trc_workload_load_astra_opts(path, &opt, NULL);
    const TrcOp *o = &w->ops[find(w, "l0.norm.fwd_broadcast")];

    ck_assert(!o->compute);
    ck_assert_int_eq(o->coll, NCCL_COLL_BROADCAST);
    ck_assert_int_eq(o->group, TRC_GROUP_TP);
    ck_assert_uint_eq(o->bytes, 16384);
  }
}
END_TEST

/* SimAI's own example with pipeline parallelism 12 (aliyun/SimAI
 * example/workload_analytical.txt): every stage runs the rows (ranks =
 * tp x pp x dp: 2 x 12 x 384), then the bubble, (pp - 1) / (ga x vpp) =
 * 11 / 192 of the rows' compute without the embedding layer's (4.4926 s:
 * 257.39 ms), and each stage boundary carries vpp x ga x pp_comm bytes
 * each way off the chain; its 0-byte ReduceScatters run as none. */
START_TEST(test_astra_simai_pipeline)
{
  g_autofree char *path =
      g_build_filename(IFSIM_TEST_DATA_DIR, "workload", "real",
                       "simai_workload_analytical_pp12.txt", NULL);
  TrcAstraOptions opt = {.ns_per_tick = 1};
  g_autoptr(GError) error = NULL;
  g_autoptr(TrcWorkload) w = trc_workload_load_astra_opts(path, &opt, &error);
  guint32 sends[2] = {0, 0};

  ck_assert_msg(w != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq(w->tp, 2);
  ck_assert_uint_eq(w->pp, 12);
  ck_assert_uint_eq(w->dp, 384);
  ck_assert_uint_eq(w->ep, 16);
  {
    const TrcOp *b = &w->ops[find(w, "pipeline.bubble")];
    ck_assert(b->compute);
    ck_assert_int_eq(b->stage, -1);
    ck_assert_uint_eq(b->compute_ps, G_GUINT64_CONSTANT(257389926807));
  }
  for (guint32 i = 0; i < w->n_ops; i++) {
    const TrcOp *o = &w->ops[i];
    if (o->group != TRC_GROUP_PP)
      continue;
    ck_assert_int_eq(o->coll, NCCL_COLL_SENDRECV);
    ck_assert_uint_eq(o->bytes, G_GUINT64_CONSTANT(50331648) * 8 * 24);
    ck_assert(o->peer == 1 ? o->stage < 11 : o->stage > 0);
    sends[o->peer > 0]++;
  }
  ck_assert_uint_eq(sends[0], 11);
  ck_assert_uint_eq(sends[1], 11);
  /* no collective of 0 bytes */
  for (guint32 i = 0; i < w->n_ops; i++)
    ck_assert(w->ops[i].compute || w->ops[i].bytes > 0);
  ck_assert(trc_workload_validate(w, NULL));
}
END_TEST

START_TEST(test_astra_gpus_conflict)
{
  /* a job size given beside the file's all_gpus: must agree with it */
  g_autofree char *path = data_path("astra_transformer.txt");
  TrcAstraOptions opt = {
      .gpus = 4, .gpus_given_as = "--astra-gpus", .ns_per_tick = 1};
  g_autoptr(GError) error = NULL;
  g_autoptr(TrcWorkload) w = trc_workload_load_astra_opts(path, &opt, &error);

  ck_assert(w == NULL);
  ck_assert_msg(strstr(error->message, ":1: all_gpus: 8, but --astra-gpus "
                                       "gives 4: expected one job size (leave "
                                       "--astra-gpus out to use the file's)"),
                "%s", error->message);
}
END_TEST

START_TEST(test_astra_tp_conflict)
{
  /* a model-parallel size given beside the file's is the user's mistake to
   * see, not a silent override; the same size is fine */
  g_autofree char *path = data_path("astra_transformer.txt");
  TrcAstraOptions opt = {
      .tp = 4, .tp_given_as = "--astra-tp", .ns_per_tick = 1};
  g_autoptr(GError) error = NULL;
  g_autoptr(TrcWorkload) w = trc_workload_load_astra_opts(path, &opt, &error);
  g_autoptr(TrcWorkload) same = NULL;

  ck_assert(w == NULL);
  ck_assert_msg(strstr(error->message,
                       ":1: model_parallel_NPU_group: 2, but --astra-tp gives "
                       "4: expected one model-parallel size (leave --astra-tp "
                       "out to use the file's)") != NULL,
                "%s", error->message);
  opt.tp = 2;
  same = trc_workload_load_astra_opts(path, &opt, NULL);
  ck_assert(same != NULL);
  ck_assert_uint_eq(same->tp, 2);
}
END_TEST

Suite *suite_workload(void)
{
  Suite *s = suite_create("workload");
  TCase *tc = tcase_create("workload");

  tcase_add_test(tc, test_csv_example);
  tcase_add_test(tc, test_csv_rounding);
  tcase_add_test(tc, test_csv_bad_corpus);
  tcase_add_test(tc, test_llm_small);
  tcase_add_test(tc, test_llm_1f1b);
  tcase_add_test(tc, test_llm_buckets);
  tcase_add_test(tc, test_llm_sp_moe);
  tcase_add_test(tc, test_llm_docs_example);
  tcase_add_test(tc, test_llm_ops_bound);
  tcase_add_test(tc, test_llm_spec_errors);
  tcase_add_test(tc, test_llm_gbs);
  tcase_add_test(tc, test_astra_2layer);
  tcase_add_test(tc, test_astra_transformer);
  tcase_add_test(tc, test_astra_errors);
  tcase_add_test(tc, test_astra_tp_conflict);
  tcase_add_test(tc, test_astra_real_files);
  tcase_add_test(tc, test_astra_simai_pipeline);
  tcase_add_test(tc, test_astra_gpus_conflict);
  tcase_add_test(tc, test_validate_ids);
  suite_add_tcase(s, tc);
  return s;
}
