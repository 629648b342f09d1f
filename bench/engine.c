/* bench/engine: the classic hold model (Vaucher & Duval 1975; Jones 1986):
 * N events pending; each step pops the earliest and pushes one at
 * now + exponential increment.  Prints events/s at N = 1e3, 1e5, 1e6 for
 *   - SimEngine (radix queue + dispatch through the kind table),
 *   - SimQueue alone, the structure the engine uses,
 *   - d-ary implicit heaps (d = 2, 4, 8) with the same inline 24-byte
 *     entries, the structures it was chosen against,
 *   - GLib's GSequence (balanced tree), the baseline,
 * and the ratio engine / GSequence.  Each structure sees the same random
 * increments.  Wall-clock times on a shared machine are noisy: the engine and
 * queue figures are the median of REPEATS timed phases of the same run (the
 * slower baselines are timed once); compare the ratios in one run, or use
 * valgrind --tool=callgrind for instruction counts.
 *
 * Usage: bench_engine [--quick] [--mean-ps PS] [--pending N]
 *   --pending N runs only that size (for profiling and callgrind). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/engine.h"
#include "sim/queue.h"
#include "sim/rng.h"

/* Pre-drawn increments: every structure sees the same sequence and the RNG
 * and logarithm stay out of the timed loop's comparison. */
#define INCREMENTS (1u << 20)
static SimTime increments[INCREMENTS];

#define REPEATS 5

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void draw_increments(double mean_ps)
{
  SimRng rng;
  sim_rng_init(&rng, 2026, 0);
  for (guint i = 0; i < INCREMENTS; i++)
    increments[i] = (SimTime)sim_rng_exponential(&rng, mean_ps);
}

static inline SimTime next_increment(guint64 *k)
{
  return increments[(*k)++ & (INCREMENTS - 1)];
}

static int cmp_double(const void *pa, const void *pb)
{
  double a = *(const double *)pa, b = *(const double *)pb;
  return (a > b) - (a < b);
}

static double median(double *v, int n)
{
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return v[n / 2];
}

/* --- SimEngine ----------------------------------------------------------- */

typedef struct {
  SimKind kind;
  guint64 k;      /* increments consumed */
  guint64 budget; /* events left before stopping */
} EngineHold;

static void engine_hold_event(SimEngine *eng, void *ctx, guint64 data)
{
  EngineHold *h = ctx;
  sim_engine_schedule_in(eng, next_increment(&h->k), h->kind, data);
  if (--h->budget == 0)
    sim_engine_stop(eng);
}

static double bench_engine(guint64 pending, guint64 events, int repeats)
{
  g_autoptr(SimEngine) eng = sim_engine_new();
  EngineHold h = {0};
  double rates[REPEATS];

  h.kind = sim_engine_register(eng, "hold", engine_hold_event, &h);
  for (guint64 i = 0; i < pending; i++)
    sim_engine_schedule(eng, next_increment(&h.k), h.kind, i);
  h.budget = pending; /* warm up to the steady-state distribution */
  sim_engine_run(eng);
  for (int r = 0; r < repeats; r++) {
    double t0 = now_s();
    h.budget = events;
    sim_engine_run(eng);
    rates[r] = (double)events / (now_s() - t0);
  }
  return median(rates, repeats);
}

/* --- SimQueue alone ------------------------------------------------------ */

static void queue_hold(SimQueue *q, guint64 steps, guint64 *k)
{
  SimQueueEntry e;

  for (guint64 i = 0; i < steps; i++) {
    sim_queue_pop_until(q, SIM_TIME_MAX, &e);
    e.time += next_increment(k);
    sim_queue_push(q, &e);
  }
}

static double bench_queue(guint64 pending, guint64 events, int repeats)
{
  SimQueue q;
  SimQueueEntry e = {0};
  guint64 k = 0;
  double rates[REPEATS];

  sim_queue_init(&q);
  for (guint64 i = 0; i < pending; i++) {
    e.time = next_increment(&k);
    e.data = i;
    sim_queue_push(&q, &e);
  }
  queue_hold(&q, pending, &k);
  for (int r = 0; r < repeats; r++) {
    double t0 = now_s();
    queue_hold(&q, events, &k);
    rates[r] = (double)events / (now_s() - t0);
  }
  sim_queue_clear(&q);
  return median(rates, repeats);
}

/* --- d-ary implicit heaps with inline (time, sequence) keys -------------- */

typedef struct {
  SimTime time;
  guint64 seq;
  guint64 data;
} HeapEntry;

static inline gboolean heap_less(const HeapEntry *a, const HeapEntry *b)
{
  return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

#define DEFINE_HEAP(D)                                                         \
  static void heap##D##_push(HeapEntry *h, guint64 *n, HeapEntry e)            \
  {                                                                            \
    guint64 i = (*n)++;                                                        \
    while (i > 0) {                                                            \
      guint64 parent = (i - 1) / D;                                            \
      if (!heap_less(&e, &h[parent]))                                          \
        break;                                                                 \
      h[i] = h[parent];                                                        \
      i = parent;                                                              \
    }                                                                          \
    h[i] = e;                                                                  \
  }                                                                            \
  static HeapEntry heap##D##_pop(HeapEntry *h, guint64 *n)                     \
  {                                                                            \
    HeapEntry top = h[0], last = h[--(*n)];                                    \
    guint64 i = 0;                                                             \
    for (;;) {                                                                 \
      guint64 c = i * D + 1, best = c, end = c + D < *n ? c + D : *n;          \
      if (c >= *n)                                                             \
        break;                                                                 \
      for (guint64 j = c + 1; j < end; j++)                                    \
        if (heap_less(&h[j], &h[best]))                                        \
          best = j;                                                            \
      if (!heap_less(&h[best], &last))                                         \
        break;                                                                 \
      h[i] = h[best];                                                          \
      i = best;                                                                \
    }                                                                          \
    h[i] = last;                                                               \
    return top;                                                                \
  }                                                                            \
  static double bench_heap##D(guint64 pending, guint64 events)                 \
  {                                                                            \
    HeapEntry *h = g_new(HeapEntry, pending + 1);                              \
    guint64 n = 0, k = 0, seq = 0;                                             \
    double t0 = 0, rate;                                                       \
    for (guint64 i = 0; i < pending; i++)                                      \
      heap##D##_push(h, &n, (HeapEntry){next_increment(&k), seq++, i});        \
    for (guint64 i = 0; i < pending + events; i++) {                           \
      HeapEntry e;                                                             \
      if (i == pending)                                                        \
        t0 = now_s();                                                          \
      e = heap##D##_pop(h, &n);                                                \
      e.time += next_increment(&k);                                            \
      e.seq = seq++;                                                           \
      heap##D##_push(h, &n, e);                                                \
    }                                                                          \
    rate = (double)events / (now_s() - t0);                                    \
    g_free(h);                                                                 \
    return rate;                                                               \
  }

DEFINE_HEAP(2)
DEFINE_HEAP(4)
DEFINE_HEAP(8)

/* --- GSequence baseline -------------------------------------------------- */

typedef struct {
  SimTime time;
  guint64 seq;
  guint64 data;
} SeqEvent;

static gint seq_cmp(gconstpointer pa, gconstpointer pb, gpointer unused)
{
  const SeqEvent *a = pa, *b = pb;
  (void)unused;
  if (a->time != b->time)
    return a->time < b->time ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static double bench_gsequence(guint64 pending, guint64 events)
{
  /* Events live in a preallocated array, as they would in a pool; GSequence
   * allocates its own tree nodes. */
  SeqEvent *pool = g_new(SeqEvent, pending);
  GSequence *seq = g_sequence_new(NULL);
  guint64 k = 0, next_seq = 0;
  double t0 = 0, rate;

  for (guint64 i = 0; i < pending; i++) {
    pool[i] = (SeqEvent){next_increment(&k), next_seq++, i};
    g_sequence_insert_sorted(seq, &pool[i], seq_cmp, NULL);
  }
  for (guint64 i = 0; i < pending + events; i++) {
    GSequenceIter *first;
    SeqEvent *e;
    if (i == pending)
      t0 = now_s();
    first = g_sequence_get_begin_iter(seq);
    e = g_sequence_get(first);
    g_sequence_remove(first);
    e->time += next_increment(&k);
    e->seq = next_seq++;
    g_sequence_insert_sorted(seq, e, seq_cmp, NULL);
  }
  rate = (double)events / (now_s() - t0);
  g_sequence_free(seq);
  g_free(pool);
  return rate;
}

/* ------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
  gboolean quick = FALSE;
  double mean_ps = 1e6;
  const guint64 full_sizes[] = {1000, 100000, 1000000};
  const guint64 quick_sizes[] = {1000, 10000};
  const guint64 *sizes = full_sizes;
  size_t n_sizes = G_N_ELEMENTS(full_sizes);
  guint64 one_size = 0;
  double engine_1e6 = 0, ratio_1e6 = 0;

  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0) {
      quick = TRUE;
      sizes = quick_sizes;
      n_sizes = G_N_ELEMENTS(quick_sizes);
    } else if (strcmp(argv[i], "--mean-ps") == 0 && i + 1 < argc) {
      mean_ps = g_ascii_strtod(argv[++i], NULL);
      if (!(mean_ps >= 1.0)) {
        fprintf(stderr, "bench_engine: --mean-ps: expected a number >= 1\n");
        return 2;
      }
    } else if (strcmp(argv[i], "--pending") == 0 && i + 1 < argc) {
      if (!g_ascii_string_to_unsigned(argv[++i], 10, 1, 100000000, &one_size,
                                      NULL)) {
        fprintf(stderr, "bench_engine: --pending: expected 1..1e8\n");
        return 2;
      }
      sizes = &one_size;
      n_sizes = 1;
    } else {
      fprintf(stderr, "usage: bench_engine [--quick] [--mean-ps PS] "
                      "[--pending N]\n");
      return 2;
    }
  }
  draw_increments(mean_ps);
  printf("# hold model: pop the earliest event, push one at now + "
         "Exp(mean %.0f ps)\n# events per second, millions; higher is "
         "better\n",
         mean_ps);
  printf("%9s %9s %9s %9s %9s %9s %9s %9s\n", "pending", "engine", "queue",
         "heap2", "heap4", "heap8", "gsequence", "engine/gseq");
  for (size_t s = 0; s < n_sizes; s++) {
    guint64 n = sizes[s];
    guint64 fast = quick ? 100000 : 10000000;
    guint64 slow = quick ? 20000 : (n >= 1000000 ? 1000000 : 5000000);
    int repeats = quick ? 1 : REPEATS;
    double engine = bench_engine(n, fast, repeats);
    double queue = bench_queue(n, fast, repeats);
    double h2 = bench_heap2(n, slow);
    double h4 = bench_heap4(n, slow);
    double h8 = bench_heap8(n, slow);
    double gseq = bench_gsequence(n, slow);

    printf("%9" G_GUINT64_FORMAT " %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f "
           "%9.1fx\n",
           n, engine / 1e6, queue / 1e6, h2 / 1e6, h4 / 1e6, h8 / 1e6,
           gseq / 1e6, engine / gseq);
    fflush(stdout);
    if (n == 1000000) {
      engine_1e6 = engine;
      ratio_1e6 = engine / gseq;
    }
  }
  if (!quick)
    printf("# target at 1e6 pending: >= 20 M events/s and >= 5x GSequence: "
           "%.2f M events/s, %.1fx -> %s\n",
           engine_1e6 / 1e6, ratio_1e6,
           engine_1e6 >= 20e6 && ratio_1e6 >= 5.0 ? "met" : "NOT met");
  return 0;
}
