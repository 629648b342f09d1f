/* The flow-level transport: fluid flows sharing channels max-min fairly.
 *
 * A transfer is a flow.  It waits its path's latency (SimGrid's
 * convention: latency first, then bandwidth), becomes active on its
 * channels, moves its bytes at the rate max-min fairness gives it, and
 * leaves.  A transfer over a path set is one flow over the channels its
 * paths cross, each carrying its paths' share (sim_transfer_union: the
 * shares are fixed, as NVLink's interleave over a GPU's links and NCCL's
 * split of a chunk over queue pairs are), after the latest path's
 * latency; one over more than FLOW_MAX_HOPS channels runs a flow a path.
 * Max-min fairness on payload rates with wire weights: a flow at
 * payload rate r uses w r of each channel's rate_Bps (w from the wire hook,
 * sim/transport.h), and the allocation is the one where no flow can go
 * faster without slowing one that is no faster (Bertsekas & Gallager, Data
 * Networks, 2nd ed., sec. 6.5.2): equivalently, no channel is over its
 * rate and every flow has a bottleneck, a saturated channel on which no
 * flow is faster (or runs at its cap).
 *
 * Recomputation is local.  When flows start or end (batched per instant),
 * a set of flows is refilled by progressive filling -- all grow at one
 * level; the channel whose remaining capacity over its unfrozen weight is
 * smallest saturates and freezes its flows; and so on -- while every other
 * flow is held at its rate.  The set starts with the flows on the changed
 * channels, except, when flows left, those slower than the slowest that
 * left (they cannot change: progressive filling freezes them before any
 * channel of the departed flow saturates).  Then expand() checks the
 * bottleneck conditions of the held flows the set touches and adds those
 * it broke; filling and checking repeat until none is broken, at which
 * point the whole allocation is max-min by the characterization above.
 * Typically a few dozen flows move, whatever the size of the fabric.
 *
 * Data: per channel an entry array of its flows (O(1) removal: each flow
 * hop knows its slot; each entry also carries a coarse key of its flow's
 * rate and whether the channel is its bottleneck, so that a recomputation
 * passes over the flows that cannot move without reading them) and an
 * exact integer sum of its flows' use, so that
 * a filling learns what the held flows leave from the set's own hops
 * without reading busy channels' entries; a heap of channels keyed by
 * share with lazy keys (shares only rise during a filling).  A flow's end
 * is an event at since + ceil(remaining / rate), moved only when its rate
 * actually changes: no time step, no drift.  A flow starting on idle
 * channels skips its activation event (flow_start).
 *
 * sim_flow_set_checking verifies after every recomputation, over every
 * flow of the fabric, the max-min conditions and the integer sums. */
#include "sim/transport.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "sim/pool.h"

#define INLINE_HOPS 8         /* paths up to this long need no extra block */
#define INLINE_ENTS 1         /* flows a channel holds without an array */
#define FLOW_ITEM 0x80000000u /* heap item is a flow's cap, not a channel */

G_STATIC_ASSERT(SIM_PATH_MAX_HOPS < 256); /* hop index packs in 8 bits */

typedef struct {
  SimChannelId ch;
  guint32 slot; /* position in the channel's entry array */
  double w;     /* wire bytes per payload byte, times the flow's copies:
                   a flow of k copies at payload rate r (each copy's)
                   uses w r of the channel, as k flows of r would */
} FlowHop;

/* Flow.merged: a path that crossed a channel twice, each such channel
 * one hop of both crossings' weights; a transfer's path set as one flow
 * over the channels its paths cross (sim_transfer_union). */
#define FLOW_REPEAT 1
#define FLOW_SET 2

/* Flow.blk's marks of a flow whose hops are a WideBlock (Flow.wide), and
 * of a wide flow whose block is a HugeBlock. */
#define FLOW_BLK_WIDE 0x80000000u
#define FLOW_BLK_HUGE 0x40000000u

/* The hops a WideBlock holds: a GPU's 18 NVLink planes and back, a NIC's
 * path beside them. */
#define FLOW_WIDE_HOPS 64

/* The most hops a flow has: a channel entry keeps its hop's index in 8
 * bits.  A path set over more channels runs a flow a path. */
#define FLOW_MAX_HOPS 256

/* The hops of a path longer than INLINE_HOPS, all of them in one array,
 * so that a flow's hops are always one array (flow_hops). */
typedef struct {
  FlowHop hop[SIM_PATH_MAX_HOPS];
} HopBlock;

/* The hops of a path set's flow over more channels than a HopBlock
 * holds: up to FLOW_WIDE_HOPS, and up to FLOW_MAX_HOPS (1 and 4 KiB). */
typedef struct {
  FlowHop hop[FLOW_WIDE_HOPS];
} WideBlock;

typedef struct {
  FlowHop hop[FLOW_MAX_HOPS];
} HugeBlock;

/* A flow.  What starting, ending and rescheduling it touch comes first,
 * in one cache line, then the hops a short path uses; what only
 * recomputations use comes last. */
typedef struct {
  double remaining; /* payload bytes still to move at `since` */
  double rate;      /* payload bytes/s while active, else 0 */
  SimTime since;
  guint64 bytes;
  guint64 tag;  /* the transfer's, when it has one path */
  guint32 xfer; /* the transfer record of a path set, or SIM_NONE */
  guint32 n_hops;
  guint32 bneck;       /* channel that limits it, SIM_NONE: its cap */
  guint32 ev_gen;      /* end events carry it; kept across reuse of the slot */
  guint16 ended_once;  /* an end event was scheduled before */
  guint16 merged;      /* FLOW_REPEAT or FLOW_SET where its hops are not one
                          path's, each crossed once (flow_start) */
  guint32 copies;      /* identical flows it stands for (SimTransfer) */
  FlowHop hop[INLINE_HOPS];
  double cap;         /* rate cap; G_MAXDOUBLE: none */
  double new_rate;    /* filling scratch */
  SimEventId done_ev; /* the cancellable end event, if that is the one */
  guint32 mark;       /* in the set being recomputed when == stamp */
  guint32 frozen;     /* frozen in the current filling when == fill_stamp */
  guint32 new_bneck;
  guint32 key; /* the rate key its entries carry: rate_key(rate) or above */
  guint32 blk; /* its HopBlock where the path is longer than INLINE_HOPS
                  (hop[] then unused), FLOW_BLK_WIDE | its WideBlock (or
                  FLOW_BLK_HUGE | its HugeBlock) where a path set's
                  channels are more than a HopBlock holds, else
                  SIM_POOL_NIL */
  FlowHop *wide; /* FLOW_BLK_WIDE: its hops */
} Flow;

G_STATIC_ASSERT(G_STRUCT_OFFSET(Flow, hop) == 64);
G_STATIC_ASSERT(sizeof(Flow) <= 256); /* four cache lines in its pool */

typedef struct {
  guint64 tag;
  guint32 open; /* flows not yet done */
} Xfer;

/* A channel, as every flow start and end touches it: one cache line. */
typedef struct {
  guint64 *ent; /* active flows: slot << 8 | hop index; `inl` or heap */
  guint32 n, alloc;
  double cap; /* rate_Bps */
  SimTime busy_since;
  SimTime busy_ps;
  double payload_bytes;
  gint64 used; /* sum of its flows' use_units(w, rate): exact integers */
  guint64 inl[INLINE_ENTS];
} Chan;

G_STATIC_ASSERT(sizeof(Chan) == 64);

/* What only recomputations (and rare statistics) touch. */
typedef struct {
  double rem, wsum;      /* filling: capacity left, unfrozen weight */
  double froze;          /* filling: level its flows froze at, or -1 */
  double overhead_bytes; /* wire bytes beyond the payload */
  gint64 set_used;       /* the set's flows' share of `used` before */
  double set_old_max;    /* the set's fastest flow here, before */
  double set_new_used;   /* after the filling: the set's use, */
  double set_new_max;    /* and its fastest flow */
  guint32 mark;          /* in the set's channels when == stamp */
  guint32 unfrozen;      /* filling: the set's flows not yet frozen */
  guint32 n_set;         /* the set's flows here */
  guint32 first;         /* where they start in set_list */
  guint32 peak;          /* most flows at once, once above one */
  guint32 extra;         /* copies beyond one of the flows on it now */
  gboolean seeded;       /* in ft->seeds already */
} ChanCold;

typedef struct {
  double key;
  guint32 item; /* channel, or FLOW_ITEM | flow */
} HeapEnt;

/* A growable array of ids: scratch that keeps its storage. */
typedef struct {
  guint32 *v;
  guint32 n, cap;
} U32Vec;

static G_GNUC_NO_INLINE void vec_grow(U32Vec *a)
{
  a->cap = MAX(64, a->cap * 2);
  a->v = g_renew(guint32, a->v, a->cap);
}

static inline void vec_push(U32Vec *a, guint32 x)
{
  if (G_UNLIKELY(a->n == a->cap))
    vec_grow(a);
  a->v[a->n++] = x;
}

typedef struct {
  SimTransport base;
  SimKind activate_kind, done_kind;
  SimPool flows, blocks, wides, huges, xfers;
  Chan *chan;     /* [n_channels], cache-line aligned */
  ChanCold *cold; /* [n_channels] */
  SimTime *lat;   /* [n_channels]: latency plus the far end's forwarding */
  SimTime *fwd;   /* [n_channels]: the far end's forwarding alone */
  SimUnion u;     /* a path set's channels (sim_transfer_union) */
  guint32 n_channels;
  guint32 stamp, fill_stamp;
  guint32 active;
  gboolean checking;
  SimKind recompute_kind;
  gboolean recompute_pending; /* a recomputation is queued for now */
  double threshold;           /* flows slower than this keep their rates */
  /* scratch, grown as needed and kept */
  U32Vec comp_ch, comp_fl, seeds, grow;
  U32Vec set_list; /* the set's flows grouped by channel (ChanCold.first) */
  HeapEnt *heap;
  guint32 heap_n, heap_cap;
} FlowTransport;

/* The flow pool's items: a Flow in whole cache lines, 2^12 a chunk. */
#define FLOW_ITEM_SIZE ((sizeof(Flow) + 63) & ~(gsize)63)
#define FLOW_CHUNK_SHIFT 12

static inline Flow *flow_at(FlowTransport *ft, guint32 f)
{
  return sim_pool_at_fixed(&ft->flows, f, FLOW_ITEM_SIZE, FLOW_CHUNK_SHIFT);
}

/* A flow's hops, one array: loops over them take it once. */
static inline FlowHop *flow_hops(FlowTransport *ft, const Flow *fl)
{
  if (G_LIKELY(fl->blk == SIM_POOL_NIL))
    return (FlowHop *)fl->hop;
  if (G_UNLIKELY(fl->blk & FLOW_BLK_WIDE))
    return fl->wide;
  return ((HopBlock *)sim_pool_at(&ft->blocks, fl->blk))->hop;
}

static inline FlowHop *flow_hop(FlowTransport *ft, const Flow *fl, guint32 i)
{
  return &flow_hops(ft, fl)[i];
}

/* ---- heap of bottleneck candidates (binary, min by key) ---- */

static void heap_push(FlowTransport *ft, double key, guint32 item)
{
  guint32 i = ft->heap_n++;

  if (ft->heap_n > ft->heap_cap) {
    ft->heap_cap = MAX(64, ft->heap_cap * 2);
    ft->heap = g_renew(HeapEnt, ft->heap, ft->heap_cap);
  }
  while (i > 0) {
    guint32 parent = (i - 1) / 2;
    if (ft->heap[parent].key <= key)
      break;
    ft->heap[i] = ft->heap[parent];
    i = parent;
  }
  ft->heap[i] = (HeapEnt){.key = key, .item = item};
}

/* Puts e at hole i and sifts it down. */
static void heap_sift_down(FlowTransport *ft, guint32 i, HeapEnt e)
{
  guint32 n = ft->heap_n;

  for (;;) {
    guint32 c = 2 * i + 1;
    if (c >= n)
      break;
    if (c + 1 < n && ft->heap[c + 1].key < ft->heap[c].key)
      c++;
    if (e.key <= ft->heap[c].key)
      break;
    ft->heap[i] = ft->heap[c];
    i = c;
  }
  ft->heap[i] = e;
}

static HeapEnt heap_pop(FlowTransport *ft)
{
  HeapEnt top = ft->heap[0], last = ft->heap[--ft->heap_n];

  if (ft->heap_n > 0)
    heap_sift_down(ft, 0, last);
  return top;
}

/* Appends without ordering; heapify() orders them all at once (linear,
 * where pushing one by one is n log n). */
static void heap_append(FlowTransport *ft, double key, guint32 item)
{
  if (ft->heap_n == ft->heap_cap) {
    ft->heap_cap = MAX(64, ft->heap_cap * 2);
    ft->heap = g_renew(HeapEnt, ft->heap, ft->heap_cap);
  }
  ft->heap[ft->heap_n++] = (HeapEnt){.key = key, .item = item};
}

static void heapify(FlowTransport *ft)
{
  for (guint32 i = ft->heap_n / 2; i-- > 0;)
    heap_sift_down(ft, i, ft->heap[i]);
}

/* ---- rates ---- */

/* Forgets a flow's scheduled end: the cancellable event is cancelled; a
 * plain one goes stale (its generation no longer matches). */
static void flow_unschedule(FlowTransport *ft, Flow *fl)
{
  fl->ev_gen++;
  if (fl->done_ev != SIM_EVENT_ID_NONE)
    sim_engine_cancel(ft->base.engine, fl->done_ev);
  fl->done_ev = SIM_EVENT_ID_NONE;
}

/* Schedules the end of a flow moving `remaining` bytes at `rate` from
 * `since` on.  Most flows end at the time first given, so the first end
 * event is a plain one (no cancellation handle); rescheduling makes it
 * stale, dropped when reached by its generation, and later ends are
 * cancellable: at most one stale event per flow stays in the queue.
 * Inline: every flow that starts alone comes through it from flow_start,
 * which then needs no call (nor the engine's push, inlined with it). */
static inline void flow_schedule_done(FlowTransport *ft, guint32 f, Flow *fl)
{
  SimTime when = fl->since + sim_serialize_ps(fl->remaining, fl->rate);
  guint64 data;

  flow_unschedule(ft, fl);
  data = ((guint64)fl->ev_gen << 32) | f;
  if (!fl->ended_once) {
    fl->ended_once = TRUE;
    sim_engine_schedule(ft->base.engine, when, ft->done_kind, data);
  } else {
    fl->done_ev = sim_engine_schedule_cancellable(ft->base.engine, when,
                                                  ft->done_kind, data);
  }
}

/* A flow's use of a channel, w x rate, in integer milli-bytes/s: channel
 * sums (Chan.used) then add and subtract exactly, with no drift however
 * often rates change (a channel's 10^12 B/s is 10^15 units). */
static inline gint64 use_units(double w, double rate)
{
  /* Any fixed rounding keeps the sums exact; truncation is one
   * instruction (llround is a library call). */
  return (gint64)(w * rate * 1000.0);
}

static inline double units_Bps(gint64 u)
{
  return (double)u / 1000.0;
}

/* A channel entry: the flow (bits 8-39), its hop (0-7), ENT_BNECK (bit
 * 40) when the channel is the flow's bottleneck (Flow.bneck; on its first
 * hop there, should a path cross a channel twice), and in bits 41-63 a
 * rate key (Flow.key) no lower than rate_key() of the flow's rate.  The
 * key is the top bits of the rate as a float: rounding to float and
 * truncating both keep order, so an entry keyed below rate_key(x) is a
 * flow slower than x.  set_seed() and expand() pass over the entries
 * that their tests would reject on these alone, without reading the
 * flows.  A flow's key rises with its rate at once, and comes down only
 * when its rate halves (ent_rekey): each store is a cache miss on a busy
 * channel's array, and a key a little high only reads a flow in vain.
 * Readers of the flow and hop cast, dropping the rest. */
#define ENT_BNECK (G_GUINT64_CONSTANT(1) << 40)
#define ENT_KEY_SHIFT 41
#define ENT_KEY_MASK (~G_GUINT64_CONSTANT(0) << ENT_KEY_SHIFT)

/* 23 bits: a float >= 0 has its sign bit clear. */
static inline guint32 rate_key(double rate)
{
  /* Rates are >= 0: their bits order as they do.  Flows' rates and the
   * levels of a filling are within a float's range (channel rates); a
   * threshold may not be (G_MAXDOUBLE, unset): set_seed clamps it, as a
   * conversion out of range is undefined in C. */
  float r = (float)rate;
  guint32 bits;

  memcpy(&bits, &r, sizeof bits);
  return bits >> 8;
}

static inline guint32 ent_key(guint64 ent)
{
  return (guint32)(ent >> ENT_KEY_SHIFT);
}

static inline guint64 ent_make(guint32 f, guint32 h, guint32 key)
{
  return ((guint64)key << ENT_KEY_SHIFT) | ((guint64)f << 8) | h;
}

/* Whether a flow's entries must be keyed again for its new rate: when it
 * rises above their key, or falls below half of it (a key's float
 * exponent is its bits 15 and up). */
static inline gboolean ent_rekey(const Flow *fl, guint32 key)
{
  return key > fl->key || key + (1u << 15) <= fl->key;
}

static inline void ent_set_key(Chan *ch, guint32 slot, guint32 key)
{
  ch->ent[slot] =
      (ch->ent[slot] & ~ENT_KEY_MASK) | ((guint64)key << ENT_KEY_SHIFT);
}

/* The entry of a flow's first hop on channel c (which it crosses). */
static guint64 *flow_ent_on(FlowTransport *ft, const Flow *fl, SimChannelId c)
{
  for (guint32 h = 0; h < fl->n_hops; h++) {
    const FlowHop *hp = flow_hop(ft, fl, h);
    if (hp->ch == c)
      return &ft->chan[c].ent[hp->slot];
  }
  g_assert_not_reached();
  return NULL;
}

/* Moves a flow that is on its channels to bottleneck `to` (SIM_NONE: its
 * cap), its entries' ENT_BNECK flags with it. */
static void flow_set_bneck(FlowTransport *ft, Flow *fl, guint32 to)
{
  if (fl->bneck == to)
    return;
  if (fl->bneck != SIM_NONE)
    *flow_ent_on(ft, fl, fl->bneck) &= ~ENT_BNECK;
  if (to != SIM_NONE)
    *flow_ent_on(ft, fl, to) |= ENT_BNECK;
  fl->bneck = to;
}

/* Moves a flow to a new rate from now on. */
static void flow_set_rate(FlowTransport *ft, guint32 f, Flow *fl, double rate)
{
  SimTime now = sim_engine_now(ft->base.engine);
  guint32 key = rate_key(rate);
  gboolean rekey = ent_rekey(fl, key);

  for (guint32 h = 0; h < fl->n_hops; h++) {
    const FlowHop *hp = flow_hop(ft, fl, h);
    Chan *ch = &ft->chan[hp->ch];
    ch->used += use_units(hp->w, rate) - use_units(hp->w, fl->rate);
    if (rekey)
      ent_set_key(ch, hp->slot, key);
  }
  if (rekey)
    fl->key = key;
  fl->remaining -= fl->rate * sim_time_to_s(now - fl->since);
  if (fl->remaining < 0)
    fl->remaining = 0;
  fl->since = now;
  fl->rate = rate;
  ft->base.stats.rate_updates++;
  flow_schedule_done(ft, f, fl);
}

/* Forgets every old mark when a stamp counter wraps (after 2^32 uses). */
static void reset_stamps(FlowTransport *ft)
{
  for (guint32 i = 0; i < ft->flows.created; i++)
    flow_at(ft, i)->mark = flow_at(ft, i)->frozen = 0;
  for (guint32 c = 0; c < sim_fabric_n_channels(ft->base.fabric); c++)
    ft->cold[c].mark = 0;
  ft->stamp = ft->fill_stamp = 1;
}

static void next_stamp(FlowTransport *ft)
{
  if (++ft->stamp == 0)
    reset_stamps(ft);
}

static void next_fill_stamp(FlowTransport *ft)
{
  if (++ft->fill_stamp == 0)
    reset_stamps(ft);
}

/* Makes channel c a seed of the next recomputation, once: when many
 * flows on a busy channel start or end in one instant, set_seed then reads
 * its entries once, not once per flow (quadratic for an AllToAll's
 * thousands of flows per NIC).  Later copies would add no flow anyway:
 * the first read marks every movable one. */
static inline void seed_push(FlowTransport *ft, guint32 c)
{
  if (ft->cold[c].seeded)
    return;
  ft->cold[c].seeded = TRUE;
  vec_push(&ft->seeds, c);
}

/* Flows whose rate a recomputation may change: those at least as fast as
 * the threshold, and those just arrived (rate 0). */
static inline gboolean movable(const FlowTransport *ft, const Flow *fl)
{
  return fl->rate >= ft->threshold || fl->rate == 0;
}

/* Adds a flow to the set being recomputed: marks it and gathers its
 * channels. */
static void set_add(FlowTransport *ft, guint32 f, Flow *fl)
{
  guint32 stamp = ft->stamp;

  fl->mark = stamp;
  vec_push(&ft->comp_fl, f);
  for (guint32 h = 0; h < fl->n_hops; h++) {
    guint32 c = flow_hop(ft, fl, h)->ch;
    if (ft->cold[c].mark != stamp) {
      ft->cold[c].mark = stamp;
      vec_push(&ft->comp_ch, c);
    }
  }
}

/* The first set: the movable flows on the seed channels. */
static void set_seed(FlowTransport *ft)
{
  /* An entry keyed below the threshold's key is a flow slower than it,
   * so not movable unless its rate is 0 (key 0): skipped unread. */
  guint32 below = rate_key(MIN(ft->threshold, (double)FLT_MAX));

  ft->comp_ch.n = ft->comp_fl.n = 0;
  for (guint32 i = 0; i < ft->seeds.n; i++) {
    const Chan *ch = &ft->chan[ft->seeds.v[i]];
    ft->cold[ft->seeds.v[i]].seeded = FALSE;
    for (guint32 e = 0; e < ch->n; e++) {
      guint32 key = ent_key(ch->ent[e]);
      guint32 f = (guint32)(ch->ent[e] >> 8);
      Flow *fl;
      if (key != 0 && key < below)
        continue;
      fl = flow_at(ft, f);
      if (fl->mark != ft->stamp && movable(ft, fl))
        set_add(ft, f, fl);
    }
  }
}

/* Freezes a flow at `rate`, limited by channel `by` (SIM_NONE: its cap).
 * Its channels' shares (rem / wsum) can only rise, as the level never
 * exceeds them: their heap keys are refreshed lazily, when popped. */
static void freeze(FlowTransport *ft, Flow *fl, double rate, guint32 by)
{
  fl->frozen = ft->fill_stamp;
  fl->new_rate = rate;
  fl->new_bneck = by;
  for (guint32 h = 0; h < fl->n_hops; h++) {
    const FlowHop *hp = flow_hop(ft, fl, h);
    ChanCold *cd = &ft->cold[hp->ch];
    cd->rem -= hp->w * rate;
    if (cd->rem < 0)
      cd->rem = 0;
    cd->wsum -= hp->w;
    cd->unfrozen--;
  }
}

/* Prepares the set's channels for a filling from the set's own hops, never
 * from the channels' entry lists (a busy channel may carry thousands of
 * flows): what the set used before, its weight and count per channel, the
 * capacity the others leave (Chan.used minus the set's part), and the set's
 * flows grouped by channel in set_list. */
static void fill_prepare(FlowTransport *ft)
{
  const U32Vec *cc = &ft->comp_ch, *cf = &ft->comp_fl;
  guint32 at = 0;

  for (guint32 i = 0; i < cc->n; i++) {
    ChanCold *cd = &ft->cold[cc->v[i]];
    cd->set_used = 0;
    cd->set_old_max = 0;
    cd->wsum = 0;
    cd->n_set = 0;
    cd->froze = -1;
  }
  for (guint32 i = 0; i < cf->n; i++) {
    const Flow *fl = flow_at(ft, cf->v[i]);
    for (guint32 h = 0; h < fl->n_hops; h++) {
      const FlowHop *hp = flow_hop(ft, fl, h);
      ChanCold *cd = &ft->cold[hp->ch];
      cd->set_used += use_units(hp->w, fl->rate);
      cd->set_old_max = MAX(cd->set_old_max, fl->rate);
      cd->wsum += hp->w;
      cd->n_set++;
    }
  }
  for (guint32 i = 0; i < cc->n; i++) {
    ChanCold *cd = &ft->cold[cc->v[i]];
    cd->first = at;
    at += cd->n_set;
    cd->unfrozen = 0; /* counts the list as it fills */
  }
  ft->set_list.n = 0;
  while (ft->set_list.cap < at)
    vec_grow(&ft->set_list);
  for (guint32 i = 0; i < cf->n; i++) {
    const Flow *fl = flow_at(ft, cf->v[i]);
    for (guint32 h = 0; h < fl->n_hops; h++) {
      ChanCold *cd = &ft->cold[flow_hop(ft, fl, h)->ch];
      ft->set_list.v[cd->first + cd->unfrozen++] = cf->v[i];
    }
  }
}

/* Progressive filling of the set's flows, the other flows on its channels
 * held at their rates. */
static void fill(FlowTransport *ft)
{
  const U32Vec *cc = &ft->comp_ch, *cf = &ft->comp_fl;
  guint32 left = cf->n, fstamp;
  double level = 0;

  fill_prepare(ft);
  next_fill_stamp(ft);
  fstamp = ft->fill_stamp;
  ft->heap_n = 0;
  for (guint32 i = 0; i < cc->n; i++) {
    guint32 c = cc->v[i];
    ChanCold *cd = &ft->cold[c];
    cd->rem = ft->chan[c].cap - units_Bps(ft->chan[c].used - cd->set_used);
    if (cd->rem < 0)
      cd->rem = 0;
    heap_append(ft, cd->rem / cd->wsum, c);
  }
  for (guint32 i = 0; i < cf->n; i++) {
    guint32 f = cf->v[i];
    if (flow_at(ft, f)->cap < G_MAXDOUBLE)
      heap_append(ft, flow_at(ft, f)->cap, FLOW_ITEM | f);
  }
  heapify(ft);
  while (left > 0) {
    HeapEnt top;
    ChanCold *cd;
    double share;

    g_assert(ft->heap_n > 0);
    top = heap_pop(ft);
    if (top.item & FLOW_ITEM) {
      Flow *fl = flow_at(ft, top.item & ~FLOW_ITEM);
      if (fl->frozen != fstamp) {
        level = MAX(level, fl->cap);
        freeze(ft, fl, fl->cap, SIM_NONE);
        left--;
      }
      continue;
    }
    cd = &ft->cold[top.item];
    if (cd->unfrozen == 0)
      continue;
    share = cd->rem / cd->wsum;
    if (share > top.key) { /* risen since pushed: back, at its share */
      heap_push(ft, share, top.item);
      continue;
    }
    /* Mathematically share >= level here, and >= the threshold (a flow
     * at least as fast as a departed one never falls below it): rounding
     * must not make a flow slower than one frozen before it. */
    level = MAX(level, share);
    if (level <= 0) /* only rounding can leave nothing; never stall */
      level = MAX(ft->threshold, ft->chan[top.item].cap * 1e-12);
    cd->froze = level;
    for (guint32 k = 0; k < cd->n_set && cd->unfrozen > 0; k++) {
      Flow *fl = flow_at(ft, ft->set_list.v[cd->first + k]);
      if (fl->frozen != fstamp) {
        freeze(ft, fl, level, top.item);
        left--;
      }
    }
  }
}

/* A channel's use by its flows (w x rate) and its fastest flow, from its
 * entries: for checks. */
static double channel_use(FlowTransport *ft, SimChannelId c, double *fastest)
{
  const Chan *ch = &ft->chan[c];
  double used = 0;

  *fastest = 0;
  for (guint32 e = 0; e < ch->n; e++) {
    const Flow *o = flow_at(ft, (guint32)(ch->ent[e] >> 8));
    used += flow_hop(ft, o, (guint32)(ch->ent[e] & 0xff))->w * o->rate;
    *fastest = MAX(*fastest, o->rate);
  }
  return used;
}

/* The max-min conditions over every flow on the fabric (not just the set,
 * so that a flow wrongly left out is caught): no channel over its rate;
 * every flow at its cap or with a saturated channel on which no flow is
 * faster; each channel's integer sum equal to its flows' uses; and
 * each entry's rate key and bottleneck flag its flow's (the key at or
 * above its rate's, as ent_rekey keeps it). */
static void check_all(FlowTransport *ft)
{
  const guint32 n_ch = sim_fabric_n_channels(ft->base.fabric);
  double fastest;

  for (SimChannelId c = 0; c < n_ch; c++) {
    const Chan *ch = &ft->chan[c];
    gint64 sum = 0;
    for (guint32 e = 0; e < ch->n; e++) {
      const Flow *o = flow_at(ft, (guint32)(ch->ent[e] >> 8));
      sum +=
          use_units(flow_hop(ft, o, (guint32)(ch->ent[e] & 0xff))->w, o->rate);
      if (ent_key(ch->ent[e]) != o->key || o->key < rate_key(o->rate) ||
          ent_rekey(o, rate_key(o->rate)))
        g_error("flow: channel %u keys a flow at %.17g B/s (key %u) as %u", c,
                o->rate, rate_key(o->rate), ent_key(ch->ent[e]));
      if (!(ch->ent[e] & ENT_BNECK) !=
          !(o->bneck == c && flow_ent_on(ft, o, c) == &ch->ent[e]))
        g_error("flow: channel %u flags a flow's bottleneck wrongly", c);
    }
    if (sum != ch->used)
      g_error("flow: channel %u sums %" G_GINT64_FORMAT
              " units, its flows %" G_GINT64_FORMAT,
              c, ch->used, sum);
    if (channel_use(ft, c, &fastest) > ch->cap * (1 + 1e-9))
      g_error("flow: channel %u carries %.17g B/s over its rate %.17g", c,
              channel_use(ft, c, &fastest), ch->cap);
  }
  for (SimChannelId c = 0; c < n_ch; c++) {
    for (guint32 e = 0; e < ft->chan[c].n; e++) {
      const Flow *fl = flow_at(ft, (guint32)(ft->chan[c].ent[e] >> 8));
      gboolean bottlenecked = fl->rate >= fl->cap * (1 - 1e-9);

      if (fl->rate <= 0)
        g_error("flow: a flow on channel %u has no rate", c);
      for (guint32 h = 0; h < fl->n_hops && !bottlenecked; h++) {
        SimChannelId hc = flow_hop(ft, fl, h)->ch;
        double used = channel_use(ft, hc, &fastest);
        bottlenecked = used >= ft->chan[hc].cap * (1 - 1e-9) &&
                       fl->rate >= fastest * (1 - 1e-9);
      }
      if (!bottlenecked)
        g_error("flow: a flow at %.17g B/s has no bottleneck: not max-min",
                fl->rate);
    }
  }
}

/* After a filling: the flows held fixed that must join the set because
 * the filled flows broke their max-min conditions.  A fixed flow joins
 * when a set flow froze on one of its channels below its rate (it must
 * slow down for the set flow to be max-min), or when its bottleneck, now
 * shared with the set, is no longer saturated or has a faster flow.  With
 * none, every flow has a bottleneck and no channel is over its rate: the
 * allocation is max-min (Bertsekas & Gallager's characterization), though
 * only the set was recomputed.
 *
 * Channel entry lists are read only where a fixed flow may break: on the
 * channels the set froze on, when they carry others, and on channels that
 * were saturated and now are not, or now see a set flow faster than any
 * before (a fixed flow bottlenecked there ran at the channel's fastest).
 * Returns how many flows joined. */
static guint32 expand(FlowTransport *ft)
{
  const U32Vec *cc = &ft->comp_ch, *cf = &ft->comp_fl;
  U32Vec *grow = &ft->grow;
  guint32 stamp = ft->stamp;

  for (guint32 i = 0; i < cc->n; i++) {
    ChanCold *cd = &ft->cold[cc->v[i]];
    cd->set_new_used = 0;
    cd->set_new_max = 0;
  }
  for (guint32 i = 0; i < cf->n; i++) {
    const Flow *fl = flow_at(ft, cf->v[i]);
    for (guint32 h = 0; h < fl->n_hops; h++) {
      const FlowHop *hp = flow_hop(ft, fl, h);
      ChanCold *cd = &ft->cold[hp->ch];
      cd->set_new_used += hp->w * fl->new_rate;
      cd->set_new_max = MAX(cd->set_new_max, fl->new_rate);
    }
  }
  grow->n = 0;
  for (guint32 i = 0; i < cc->n; i++) {
    SimChannelId c = cc->v[i];
    const Chan *ch = &ft->chan[c];
    const ChanCold *cd = &ft->cold[c];
    double others = units_Bps(ch->used - cd->set_used);
    double lim = ch->cap * (1 - 1e-9);
    gboolean was_full = units_Bps(ch->used) >= lim;
    gboolean is_full = others + cd->set_new_used >= lim;
    gboolean froze_here = cd->froze >= 0;
    gboolean bneck_risk =
        was_full &&
        (!is_full || cd->set_new_max > cd->set_old_max * (1 + 1e-9));
    guint32 froze_key = froze_here ? rate_key(cd->froze) : 0;

    if (ch->n == cd->n_set || (!froze_here && !bneck_risk))
      continue;
    for (guint32 e = 0; e < ch->n; e++) {
      guint64 en = ch->ent[e];
      guint32 g = (guint32)(en >> 8);
      const Flow *fl;
      /* Neither test below can hold for a flow not bottlenecked here
       * and keyed below the level frozen here: passed over unread. */
      if (!(en & ENT_BNECK) && (!froze_here || ent_key(en) < froze_key))
        continue;
      fl = flow_at(ft, g);
      if (fl->mark == stamp)
        continue;
      if ((froze_here && fl->rate > cd->froze * (1 + 1e-9)) ||
          (fl->bneck == c &&
           !(is_full && fl->rate >= cd->set_new_max * (1 - 1e-9))))
        vec_push(grow, g); /* perhaps twice: set_add takes it once */
    }
  }
  for (guint32 i = 0; i < grow->n; i++)
    if (flow_at(ft, grow->v[i])->mark != stamp)
      set_add(ft, grow->v[i], flow_at(ft, grow->v[i]));
  return grow->n;
}

/* Recomputes rates around ft->seeds, then forgets the seeds: fills the
 * movable flows on the seed channels, and again with the flows that
 * expand() finds must join, until none must. */
static void recompute(FlowTransport *ft)
{
  const U32Vec *cf = &ft->comp_fl;

  next_stamp(ft);
  set_seed(ft);
  ft->seeds.n = 0;
  if (cf->n == 0) {
    if (ft->checking) /* nothing moved: max-min must hold as it is */
      check_all(ft);
    return;
  }
  ft->base.stats.recomputes++;
  do {
    ft->base.stats.recompute_rounds++;
    fill(ft);
  } while (expand(ft) > 0);
  ft->base.stats.recompute_flows += cf->n;
  for (guint32 i = 0; i < cf->n; i++) {
    guint32 f = cf->v[i];
    Flow *fl = flow_at(ft, f);
    flow_set_bneck(ft, fl, fl->new_bneck);
    if (fl->new_rate != fl->rate)
      flow_set_rate(ft, f, fl, fl->new_rate);
  }
  if (ft->checking)
    check_all(ft);
}

static void on_recompute(SimEngine *engine, void *ctx, guint64 data)
{
  FlowTransport *ft = ctx;

  (void)engine;
  (void)data;
  ft->recompute_pending = FALSE;
  recompute(ft);
  ft->threshold = G_MAXDOUBLE;
}

/* Asks for a recomputation around the seeds gathered, once the events
 * already queued for this instant have run: flows starting or ending
 * together (a collective step) share one recomputation.  Meanwhile a new
 * flow moves nothing (rate 0) and others keep their rates, for no time.
 * Flows slower than `threshold` are left alone: when a flow of rate r
 * ends, no flow slower than r changes rate (progressive filling freezes
 * them before any channel of the departed flow saturates), so the
 * threshold is the slowest departed rate, 0 when a flow arrived. */
static void request_recompute(FlowTransport *ft, double threshold)
{
  ft->threshold = MIN(ft->threshold, threshold);
  if (ft->recompute_pending)
    return;
  ft->recompute_pending = TRUE;
  sim_engine_schedule(ft->base.engine, sim_engine_now(ft->base.engine),
                      ft->recompute_kind, 0);
}

/* ---- flow life ---- */

static void flow_release(FlowTransport *ft, guint32 f, Flow *fl)
{
  guint32 xi = fl->xfer;
  guint64 tag = fl->tag;

  if (fl->blk != SIM_POOL_NIL) {
    if (G_UNLIKELY(fl->blk & FLOW_BLK_WIDE))
      sim_pool_free(fl->blk & FLOW_BLK_HUGE ? &ft->huges : &ft->wides,
                    fl->blk & ~(FLOW_BLK_WIDE | FLOW_BLK_HUGE));
    else
      sim_pool_free(&ft->blocks, fl->blk);
  }
  sim_pool_free_item(&ft->flows, f, fl);
  if (xi != SIM_NONE) {
    Xfer *x = sim_pool_at(&ft->xfers, xi);
    if (--x->open > 0)
      return;
    tag = x->tag;
    sim_pool_free(&ft->xfers, xi);
  }
  sim_transport_finish(&ft->base, tag);
}

/* Doubles a channel's entry array (amortized: arrays never shrink, so a
 * steady workload stops allocating). */
static void chan_grow(Chan *ch)
{
  guint64 *ent = g_new(guint64, ch->alloc * 2);

  memcpy(ent, ch->ent, ch->n * sizeof ent[0]);
  if (ch->ent != ch->inl)
    g_free(ch->ent);
  ch->ent = ent;
  ch->alloc *= 2;
}

/* A flow of several copies joins channel c: they count in its peak. */
static void copies_on(FlowTransport *ft, SimChannelId c, guint32 copies)
{
  ChanCold *cd = &ft->cold[c];

  cd->extra += copies - 1;
  cd->peak = MAX(cd->peak, ft->chan[c].n + cd->extra);
}

/* Sets a flow that is on its channels moving at `rate` (limited by channel
 * `bneck`, SIM_NONE: its cap) without a recomputation, and schedules its
 * end. */
static void flow_run_at(FlowTransport *ft, guint32 f, Flow *fl, double rate,
                        guint32 bneck)
{
  guint32 key = rate_key(rate);
  gboolean rekey = ent_rekey(fl, key);

  const FlowHop *hops = flow_hops(ft, fl);
  guint32 n_hops = fl->n_hops;

  fl->rate = rate;
  for (guint32 h = 0; h < n_hops; h++) {
    const FlowHop *hp = &hops[h];
    Chan *ch = &ft->chan[hp->ch];
    ch->used += use_units(hp->w, rate);
    if (rekey)
      ent_set_key(ch, hp->slot, key);
  }
  if (rekey)
    fl->key = key;
  flow_set_bneck(ft, fl, bneck);
  flow_schedule_done(ft, f, fl);
}

/* Puts a flow on its channels, moving bytes from `since` (now, or later
 * for a flow starting alone: flow_start).  Returns TRUE when a channel
 * already held another flow; else the flow runs at its bottleneck rate and
 * its end is scheduled. */
static gboolean flow_insert(FlowTransport *ft, guint32 f, Flow *fl,
                            SimTime since)
{
  gboolean shared = FALSE;
  double rate = fl->cap;
  guint32 bneck = SIM_NONE;

  fl->bneck = SIM_NONE; /* as its new entries say; rate 0 until set */
  fl->key = rate_key(fl->rate);
  for (guint32 h = 0; h < fl->n_hops; h++) {
    FlowHop *hp = flow_hop(ft, fl, h);
    Chan *ch = &ft->chan[hp->ch];
    if (G_UNLIKELY(ch->n == ch->alloc))
      chan_grow(ch);
    hp->slot = ch->n;
    ch->ent[ch->n++] = ent_make(f, h, fl->key);
    if (G_UNLIKELY(fl->copies > 1))
      copies_on(ft, hp->ch, fl->copies);
    if (ch->n == 1) {
      ch->busy_since = since;
    } else {
      shared = TRUE;
      ft->cold[hp->ch].peak =
          MAX(ft->cold[hp->ch].peak, ch->n + ft->cold[hp->ch].extra);
    }
    if (ch->cap / hp->w < rate) {
      rate = ch->cap / hp->w;
      bneck = hp->ch;
    }
  }
  fl->since = since;
  ft->active += fl->copies;
  if (ft->active > ft->base.stats.peak_active)
    ft->base.stats.peak_active = ft->active;
  if (shared)
    return TRUE;
  /* Alone on every channel: the bottleneck rate, nobody else moves. */
  flow_run_at(ft, f, fl, rate, bneck);
  return FALSE;
}

/* flow_insert for a flow whose channels are all idle (flow_start saw
 * them), at the bottleneck rate it found: one pass.  Each channel holds
 * the flow alone, in slot 0. */
static inline void flow_insert_alone(FlowTransport *ft, guint32 f, Flow *fl,
                                     SimTime since, double rate, guint32 bneck)
{
  FlowHop *hops = flow_hops(ft, fl);
  guint32 n_hops = fl->n_hops, copies = fl->copies;
  guint64 ent;

  fl->key = rate_key(rate);
  ent = ent_make(f, 0, fl->key);

  for (guint32 h = 0; h < n_hops; h++) {
    FlowHop *hp = &hops[h];
    Chan *ch = &ft->chan[hp->ch];
    hp->slot = 0;
    ch->ent[0] = ent | h;
    ch->n = 1;
    ch->busy_since = since;
    ch->used += use_units(hp->w, rate);
    if (G_UNLIKELY(copies > 1))
      copies_on(ft, hp->ch, copies);
  }
  if (bneck != SIM_NONE)
    ft->chan[bneck].ent[0] |= ENT_BNECK;
  fl->since = since;
  fl->rate = rate;
  fl->bneck = bneck;
  ft->active += fl->copies;
  if (ft->active > ft->base.stats.peak_active)
    ft->base.stats.peak_active = ft->active;
  flow_schedule_done(ft, f, fl);
}

/* How many times a flow's payload crosses the channel of its hop hp:
 * once; for a hop flow_start merged, its weight over one crossing's: the
 * times a path crossed it (FLOW_REPEAT), the share of a path set's bytes
 * that crosses it (FLOW_SET). */
static double crossings(const FlowTransport *ft, const Flow *fl,
                        const FlowHop *hp)
{
  double k;

  if (!fl->merged)
    return 1;
  k = hp->w /
      (sim_transport_wire_ratio(&ft->base, hp->ch, fl->bytes) * fl->copies);
  return fl->merged == FLOW_REPEAT ? round(k) : k;
}

/* Headroom below a channel's rate under which it counts as unsaturated
 * for the two shortcuts (flow_fits, and flow_done's for a flow that
 * leaves): well above the filling's rounding (its checks allow 1e-9), so
 * a channel the filling saturated is never taken for one with room. */
#define FLOW_SLACK 1e-6

/* Takes a flow off its channels (swap-remove, fixing the moved entry's
 * slot).  Channels left empty end their busy period at `now`.  A flow
 * that is done (`done`) counts its bytes on each channel, and sets *sat
 * when a channel it crossed was saturated before it left (FLOW_SLACK:
 * flow_done's shortcut).  Returns whether a channel still holds flows.
 * Inline: every flow ends through it, and flow_done's call then carries
 * no call overhead and no tests of `done`. */
static inline gboolean flow_remove(FlowTransport *ft, Flow *fl, SimTime now,
                                   gboolean done, gboolean *sat)
{
  gboolean others = FALSE;
  /* Read once: the slot fix-ups below store through other flows' hops,
   * which the compiler cannot tell apart from this flow's fields. */
  guint32 n_hops = fl->n_hops, copies = fl->copies;
  gboolean merged = fl->merged;
  double rate = fl->rate;
  double moved = (double)fl->bytes * copies; /* payload, copies counted */
  const FlowHop *hops = flow_hops(ft, fl);

  for (guint32 h = 0; h < n_hops; h++) {
    const FlowHop *hp = &hops[h];
    Chan *ch = &ft->chan[hp->ch];
    guint64 last = ch->ent[--ch->n];

    if (done && !*sat && units_Bps(ch->used) > ch->cap * (1 - FLOW_SLACK))
      *sat = TRUE;
    ch->used -= use_units(hp->w, rate);
    if (G_UNLIKELY(copies > 1))
      ft->cold[hp->ch].extra -= copies - 1;
    if (done && G_LIKELY(!merged)) {
      ch->payload_bytes += moved;
      if (hp->w != copies)
        ft->cold[hp->ch].overhead_bytes += (double)fl->bytes * (hp->w - copies);
    } else if (done) {
      double k = crossings(ft, fl, hp);

      ch->payload_bytes += moved * k;
      ft->cold[hp->ch].overhead_bytes +=
          (double)fl->bytes * (hp->w - copies * k);
    }
    if (hp->slot != ch->n) {
      ch->ent[hp->slot] = last;
      flow_hop(ft, flow_at(ft, (guint32)(last >> 8)), (guint32)(last & 0xff))
          ->slot = hp->slot;
    }
    if (ch->n == 0) {
      if (now > ch->busy_since)
        ch->busy_ps += now - ch->busy_since;
    } else {
      others = TRUE;
    }
  }
  ft->active -= copies;
  return others;
}

/* A flow that started alone (flow_insert with a future `since`) meets
 * another before its bytes begin: it has moved nothing and takes its
 * activation event after all, so the newcomer's rates see it only from
 * its real start. */
static void flow_demote(FlowTransport *ft, guint32 f, Flow *fl)
{
  flow_remove(ft, fl, fl->since, FALSE, NULL);
  flow_unschedule(ft, fl);
  fl->rate = 0;
  ft->base.stats.demoted++;
  sim_engine_schedule(ft->base.engine, fl->since, ft->activate_kind, f);
}

/* Whether a flow that just joined shared channels (at rate 0) fits at
 * its cap in what each of them has spare, with FLOW_SLACK to spare
 * after.  Then the max-min allocation gives it its cap and changes no
 * other flow: no channel it crosses was saturated, so none was another
 * flow's bottleneck, and none becomes one (the newcomer is at its cap).
 * Only when the allocation is max-min now: no recomputation pending. */
static gboolean flow_fits(const FlowTransport *ft, const Flow *fl)
{
  if (ft->recompute_pending || fl->cap >= G_MAXDOUBLE)
    return FALSE;
  for (guint32 h = 0; h < fl->n_hops; h++) {
    const FlowHop *hp = flow_hop((FlowTransport *)ft, fl, h);
    const Chan *ch = &ft->chan[hp->ch];

    if (units_Bps(ch->used) + hp->w * fl->cap > ch->cap * (1 - FLOW_SLACK))
      return FALSE;
  }
  return TRUE;
}

static void flow_activate(SimEngine *engine, void *ctx, guint64 data)
{
  FlowTransport *ft = ctx;
  guint32 f = (guint32)data;
  Flow *fl = flow_at(ft, f);
  SimTime now = sim_engine_now(engine);

  if (fl->bytes == 0) {
    flow_release(ft, f, fl);
    return;
  }
  /* A flow whose bytes have not begun is alone on its channels (else it
   * would have been demoted already): only a lone entry can be one. */
  for (guint32 h = 0; h < fl->n_hops; h++) {
    const Chan *ch = &ft->chan[flow_hop(ft, fl, h)->ch];
    if (ch->n == 1) {
      guint32 o = (guint32)(ch->ent[0] >> 8);
      if (flow_at(ft, o)->since > now)
        flow_demote(ft, o, flow_at(ft, o));
    }
  }
  if (!flow_insert(ft, f, fl, now))
    return;
  if (flow_fits(ft, fl)) {
    flow_run_at(ft, f, fl, fl->cap, SIM_NONE);
    ft->base.stats.recomputes_saved++;
    if (ft->checking)
      check_all(ft);
    return;
  }
  for (guint32 h = 0; h < fl->n_hops; h++)
    seed_push(ft, flow_hop(ft, fl, h)->ch);
  request_recompute(ft, 0);
}

static void flow_done(SimEngine *engine, void *ctx, guint64 data)
{
  FlowTransport *ft = ctx;
  guint32 f = (guint32)data;
  Flow *fl = flow_at(ft, f);
  gboolean sat = FALSE, others, quiet;

  if ((guint32)(data >> 32) != fl->ev_gen)
    return; /* a stale plain event: the flow was rescheduled */
  fl->done_ev = SIM_EVENT_ID_NONE; /* this one, running */
  fl->ev_gen++;
  others = flow_remove(ft, fl, sim_engine_now(engine), TRUE, &sat);
  /* A flow that crossed no saturated channel (each had FLOW_SLACK to
   * spare with it) was on no flow's bottleneck: its leaving changes no
   * rate, and the allocation stays max-min without a recomputation.
   * Only when it is max-min now. */
  quiet = !ft->recompute_pending && !sat;
  if (others && quiet) {
    ft->base.stats.recomputes_saved++;
  } else if (others) {
    /* the channels still holding flows seed the recomputation */
    const FlowHop *hops = flow_hops(ft, fl);

    for (guint32 h = 0; h < fl->n_hops; h++)
      if (ft->chan[hops[h].ch].n > 0)
        seed_push(ft, hops[h].ch);
    request_recompute(ft, fl->rate * (1 - 1e-9));
  }
  if (quiet && ft->checking)
    check_all(ft);
  flow_release(ft, f, fl);
}

/* The hop of channel c among a flow's first n hops (flow_start merges a
 * repeated channel into it). */
static FlowHop *merged_hop(FlowTransport *ft, Flow *fl, guint32 n,
                           SimChannelId c)
{
  for (guint32 k = 0; k < n; k++)
    if (flow_hop(ft, fl, k)->ch == c)
      return flow_hop(ft, fl, k);
  g_assert_not_reached();
  return NULL;
}

/* A flow whose path repeated a channel keeps its first n hops, their
 * weights merged (a path longer than INLINE_HOPS keeps its block), and
 * returns its bottleneck rate (cap and channels alone) and channel. */
static double merged_rate(FlowTransport *ft, Flow *fl, guint32 n,
                          guint32 *bneck)
{
  double rate = fl->cap;

  fl->n_hops = n;
  fl->merged = FLOW_REPEAT;
  *bneck = SIM_NONE;
  for (guint32 k = 0; k < n; k++) {
    const FlowHop *hp = flow_hop(ft, fl, k);

    if (ft->chan[hp->ch].cap / hp->w < rate) {
      rate = ft->chan[hp->ch].cap / hp->w;
      *bneck = hp->ch;
    }
  }
  return rate;
}

/* A new flow, *f, of `bytes` at most `cap`, over n_hops hops (their
 * storage taken here, their channels and weights the caller's to fill);
 * `set`: a path set's, whose hops may be more than a path's (a constant
 * at each call, so that a path's start tests nothing for it). */
static inline Flow *flow_new(FlowTransport *ft, guint32 *f, guint64 bytes,
                             double cap, guint32 copies, guint64 tag,
                             guint32 xfer, guint32 n_hops, gboolean set)
{
  Flow *fl;

  *f = sim_pool_alloc_fixed(&ft->flows, FLOW_ITEM_SIZE, FLOW_CHUNK_SHIFT);
  fl = flow_at(ft, *f);

  fl->remaining = (double)bytes;
  fl->rate = 0;
  fl->cap = cap;
  fl->done_ev = SIM_EVENT_ID_NONE;
  fl->ended_once = fl->merged = FALSE;
  fl->copies = copies;
  fl->bytes = bytes;
  fl->tag = tag;
  fl->xfer = xfer;
  fl->n_hops = n_hops;
  fl->mark = fl->frozen = 0;
  if (set && n_hops > SIM_PATH_MAX_HOPS) {
    gboolean huge = n_hops > FLOW_WIDE_HOPS;
    SimPool *pool = huge ? &ft->huges : &ft->wides;
    guint32 b = sim_pool_alloc(pool);

    g_assert(n_hops <= FLOW_MAX_HOPS && b < FLOW_BLK_HUGE);
    fl->blk = b | FLOW_BLK_WIDE | (huge ? FLOW_BLK_HUGE : 0);
    fl->wide = sim_pool_at(pool, b);
  } else {
    fl->blk = n_hops > INLINE_HOPS ? sim_pool_alloc(&ft->blocks) : SIM_POOL_NIL;
  }
  return fl;
}

/* Starts a flow set up with its hops, its bottleneck rate and channel
 * (cap and channels alone) and its path's latency; `idle`: none of its
 * channels holds a flow. */
static inline void flow_launch(FlowTransport *ft, guint32 f, Flow *fl,
                               SimTime lat, gboolean idle, double rate,
                               guint32 bneck)
{
  if (fl->bytes > 0 && idle) {
    /* Nobody on the path: start the bytes after the latency without an
     * activation event; a flow arriving meanwhile demotes this one. */
    flow_insert_alone(ft, f, fl, sim_engine_now(ft->base.engine) + lat, rate,
                      bneck);
    return;
  }
  sim_engine_schedule_in(ft->base.engine, lat, ft->activate_kind, f);
}

/* A transfer over several paths as one flow over the channels they cross
 * (sim_transfer_union): its shares are fixed, so it moves at one rate,
 * each channel carrying its paths' part, and max-min fairness counts it
 * once on a channel its paths share (a NIC that a GPU's NVLink traffic
 * reaches over 18 planes is one connection's, not 18).  FALSE, nothing
 * started, where its channels are more than FLOW_MAX_HOPS. */
static G_GNUC_NO_INLINE gboolean flow_start_set(FlowTransport *ft,
                                                const SimTransfer *x)
{
  SimTime lat;
  guint32 n = sim_transfer_union(&ft->base, x, &ft->u, &lat);
  guint32 copies = MAX(x->copies, 1), bneck = SIM_NONE, f;
  double rate = x->cap_Bps > 0 ? x->cap_Bps : G_MAXDOUBLE;
  gboolean idle = TRUE;
  FlowHop *hops;
  Flow *fl;

  if (n > FLOW_MAX_HOPS)
    return FALSE;
  fl = flow_new(ft, &f, x->bytes, rate, copies, x->tag, SIM_NONE, n, TRUE);
  fl->merged = FLOW_SET;
  hops = flow_hops(ft, fl);
  for (guint32 k = 0; k < n; k++) {
    SimChannelId c = ft->u.ch[k];

    hops[k].ch = c;
    hops[k].w = ft->u.w[k] * copies;
    idle &= ft->chan[c].n == 0;
    if (ft->chan[c].cap / hops[k].w < rate) {
      rate = ft->chan[c].cap / hops[k].w;
      bneck = c;
    }
  }
  flow_launch(ft, f, fl, lat, idle, rate, bneck);
  return TRUE;
}

static void flow_start(SimTransport *t, const SimTransfer *x)
{
  FlowTransport *ft = (FlowTransport *)t;
  guint32 xi = SIM_NONE;
  guint64 given = 0;

  if (x->n_paths > 1) {
    Xfer *xr;

    if (flow_start_set(ft, x))
      return;
    xi = sim_pool_alloc(&ft->xfers);
    xr = sim_pool_at(&ft->xfers, xi);
    xr->tag = x->tag;
    xr->open = x->n_paths;
  }
  for (guint32 i = 0; i < x->n_paths; i++) {
    const SimPath *p = &x->paths[i];
    guint64 bytes =
        xi == SIM_NONE ? x->bytes : sim_transfer_share_next(x, i, &given);
    SimTime lat = 0;
    gboolean idle = TRUE;
    double rate = sim_transfer_path_cap(x, i);
    guint32 bneck = SIM_NONE, n = 0, copies = MAX(x->copies, 1);
    guint32 f;
    Flow *fl;
    FlowHop *hops;

    g_assert(p->n > 0 && p->n <= SIM_PATH_MAX_HOPS);
    fl = flow_new(ft, &f, bytes, rate, copies, x->tag, xi, p->n, FALSE);
    hops = flow_hops(ft, fl);
    for (guint32 h = 0; h < p->n; h++) {
      SimChannelId c = p->hop[h];
      double w = sim_transport_wire_ratio(t, c, bytes);
      FlowHop *hp;

      g_assert(w >= 1.0);
      w *= copies;
      lat += ft->lat[c];
      if (G_UNLIKELY(sim_path_repeats(p, h))) {
        /* A path that crosses a channel twice loads it twice: one hop
         * of both weights, so that a flow is on each channel once, as
         * the entries, the filling and the shortcuts assume (the
         * channel's statistics count its payload at each crossing). */
        merged_hop(ft, fl, n, c)->w += w;
        continue;
      }
      hp = &hops[n++];
      hp->ch = c;
      hp->w = w;
      idle &= ft->chan[c].n == 0;
      if (ft->chan[c].cap / w < rate) {
        rate = ft->chan[c].cap / w;
        bneck = c;
      }
    }
    if (G_UNLIKELY(n < p->n))
      rate = merged_rate(ft, fl, n, &bneck);
    /* The path's end forwards nothing: take its node latency back out. */
    lat -= ft->fwd[p->hop[p->n - 1]];
    flow_launch(ft, f, fl, lat, idle, rate, bneck);
  }
}

static void flow_channel_stats(const SimTransport *t, SimChannelId c,
                               SimChannelStats *out)
{
  const FlowTransport *ft = (const FlowTransport *)t;
  const Chan *ch = &ft->chan[c];
  const ChanCold *cd = &ft->cold[c];

  SimTime now = sim_engine_now(t->engine);

  out->payload_bytes = ch->payload_bytes;
  out->wire_bytes = ch->payload_bytes + cd->overhead_bytes;
  /* Flows still on the channel have moved part of their bytes: what
   * their rate carried since their last rate change (none before their
   * bytes begin), so the counters are exact at any instant. */
  for (guint32 i = 0; i < ch->n; i++) {
    FlowTransport *fm = (FlowTransport *)ft;
    const Flow *fl = flow_at(fm, (guint32)(ch->ent[i] >> 8));
    const FlowHop *hp = flow_hop(fm, fl, (guint32)(ch->ent[i] & 0xff));
    double left = fl->remaining;
    double moved;

    if (now > fl->since)
      left -= fl->rate * sim_time_to_s(now - fl->since);
    moved = CLAMP((double)fl->bytes - left, 0.0, (double)fl->bytes);
    out->payload_bytes += moved * fl->copies * crossings(ft, fl, hp);
    out->wire_bytes += moved * hp->w;
  }
  out->busy_ps = ch->busy_ps;
  /* A channel busy now counts its time so far. */
  if (ch->n > 0)
    out->busy_ps += sim_engine_now(t->engine) - ch->busy_since;
  out->peak_flows = cd->peak;
  if (out->peak_flows == 0 && (ch->n > 0 || ch->busy_ps > 0))
    out->peak_flows = 1;
}

static void flow_free(SimTransport *t)
{
  FlowTransport *ft = (FlowTransport *)t;

  for (guint32 c = 0; c < ft->n_channels; c++)
    if (ft->chan[c].ent != ft->chan[c].inl)
      g_free(ft->chan[c].ent);
  g_aligned_free(ft->chan);
  g_free(ft->cold);
  g_free(ft->lat);
  g_free(ft->fwd);
  sim_union_clear(&ft->u);
  g_free(ft->heap);
  g_free(ft->comp_ch.v);
  g_free(ft->comp_fl.v);
  g_free(ft->seeds.v);
  g_free(ft->grow.v);
  g_free(ft->set_list.v);
  sim_pool_clear(&ft->flows);
  sim_pool_clear(&ft->blocks);
  sim_pool_clear(&ft->wides);
  sim_pool_clear(&ft->huges);
  sim_pool_clear(&ft->xfers);
  g_free(ft);
}

static const SimTransportOps flow_ops = {
    .name = "flow",
    .start = flow_start,
    .channel_stats = flow_channel_stats,
    .free = flow_free,
    .copies = TRUE,
};

SimTransport *sim_flow_new(SimEngine *engine, const SimFabric *fabric)
{
  FlowTransport *ft = g_new0(FlowTransport, 1);
  guint32 n_ch = sim_fabric_n_channels(fabric);

  sim_transport_init(&ft->base, &flow_ops, engine, fabric);
  sim_pool_init_aligned(&ft->flows, FLOW_ITEM_SIZE, FLOW_CHUNK_SHIFT, 64);
  sim_pool_init(&ft->blocks, sizeof(HopBlock), 12);
  sim_pool_init(&ft->wides, sizeof(WideBlock), 8);
  sim_pool_init(&ft->huges, sizeof(HugeBlock), 6);
  sim_pool_init(&ft->xfers, sizeof(Xfer), 12);
  ft->n_channels = n_ch;
  ft->chan = g_aligned_alloc0(MAX(n_ch, 1), sizeof(Chan), 64);
  ft->cold = g_new0(ChanCold, MAX(n_ch, 1));
  ft->lat = g_new0(SimTime, MAX(n_ch, 1));
  ft->fwd = g_new0(SimTime, MAX(n_ch, 1));
  sim_union_init(&ft->u, fabric);
  for (guint32 c = 0; c < n_ch; c++) {
    const SimChannel *sc = sim_fabric_channel(fabric, c);
    Chan *ch = &ft->chan[c];
    ch->cap = sc->rate_Bps;
    ft->fwd[c] = sim_fabric_node(fabric, sc->dst)->latency_ps;
    ft->lat[c] = sc->latency_ps + ft->fwd[c];
    ch->ent = ch->inl;
    ch->alloc = INLINE_ENTS;
  }
  ft->stamp = 0;
  ft->activate_kind =
      sim_engine_register(engine, "flow.activate", flow_activate, ft);
  ft->done_kind = sim_engine_register(engine, "flow.done", flow_done, ft);
  ft->recompute_kind =
      sim_engine_register(engine, "flow.recompute", on_recompute, ft);
  ft->threshold = G_MAXDOUBLE;
  return &ft->base;
}

void sim_flow_set_checking(SimTransport *t, gboolean on)
{
  g_assert(t->ops == &flow_ops);
  ((FlowTransport *)t)->checking = on;
}
