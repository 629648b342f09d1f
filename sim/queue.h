/* SimQueue: the pending-event set, a radix bucket queue over 64-bit
 * picosecond keys with entries stored inline in pooled blocks.
 *
 * Why this structure: bench/engine measures the hold model against d-ary
 * implicit heaps and GLib's GSequence.  At 10^6 pending events a 4-ary heap
 * sifts through ~10 levels of a 24 MB array per pop (cache misses); this
 * queue moves each entry only a few times, sequentially, and its buckets'
 * tails stay in L1.  See bench/engine.c for the figures.
 *
 * Algorithm (a radix heap with 8-bit digits, Ahuja et al. 1990, monotone
 * keys): `last` is a lower bound of every pending time.  An entry with time t
 * lives at level d = index of the highest 8-bit digit in which t differs from
 * last (0 when t == last), bucket = digit d of t.  Buckets are FIFO: one inline
 * entry, then a chain of fixed-size blocks.  To pop, take the lowest non-empty level and its lowest
 * bucket: at level 0 every entry in the bucket has the same time, pop the
 * front; at a higher level, raise `last` to the bucket's lower bound and
 * redistribute its entries into lower levels (each entry descends at most 7
 * times in its life), unless they all have one time t (a lone entry, or
 * the events of one instant): then `last` rises to t and the bucket,
 * unchanged, becomes level 0's for t.  Keys must be monotone: a pushed time must be >= the
 * time of the last popped entry (the engine asserts this; simulation never
 * schedules into the past).
 *
 * Invariants:
 *  - every pending time is >= last, and an entry's (level, bucket) is the
 *    function of (time, last) above, so equal times share a bucket;
 *  - within a bucket, entries with equal times are in insertion order, hence
 *    pops are ordered by (time, insertion sequence): a bucket only receives
 *    redistributed entries while it is empty, and those arrive in their old
 *    bucket's order;
 *  - no allocation per entry: a bucket keeps its first entry inline, the
 *    rest in blocks from a SimPool that are recycled.
 *
 * The queue does not interpret kind, data or tag. */
#ifndef SIM_QUEUE_H
#define SIM_QUEUE_H

#include <glib.h>

#include "sim/pool.h"
#include "sim/time.h"

#define SIM_QUEUE_DIGIT_BITS 8
#define SIM_QUEUE_LEVELS (64 / SIM_QUEUE_DIGIT_BITS)
#define SIM_QUEUE_BUCKETS (1u << SIM_QUEUE_DIGIT_BITS)
#define SIM_QUEUE_BLOCK_BYTES 1024 /* blocks are aligned to their size */
#define SIM_QUEUE_BLOCK_ENTRIES 42 /* 16 + 42 * 24 = 1024 bytes */

typedef struct {
  SimTime time;
  guint64 data;
  guint32 kind;
  guint32 tag;
} SimQueueEntry;

/* Blocks are SIM_QUEUE_BLOCK_BYTES-aligned, so a pointer one past an entry
 * is block-aligned exactly when it reaches the end of its block. */
typedef struct {
  guint32 next; /* pool index of the next block of the bucket */
  guint32 self; /* this block's pool index */
  guint64 reserved;
  SimQueueEntry entry[SIM_QUEUE_BLOCK_ENTRIES];
} SimQueueBlock;

/* A bucket's entries, in order: `first` (while has_first), then the block
 * chain from `read` to `write`.  Most buckets hold one entry at a time, so
 * keeping the first inline spares a block per entry. */
typedef struct {
  SimQueueEntry first;
  guint32 has_first;
  guint32 count;        /* entries, first included */
  SimQueueEntry *read;  /* next chain entry to pop; NULL: no chain */
  SimQueueEntry *write; /* next free slot in the tail block */
  guint64 reserved[2];  /* pads the bucket to one cache line */
} SimQueueBucket;

typedef struct {
  SimTime last;       /* lower bound of every pending time */
  guint64 count;      /* pending entries */
  guint32 level_mask; /* bit d set: level d has a non-empty bucket */
  guint64 occupied[SIM_QUEUE_LEVELS][SIM_QUEUE_BUCKETS / 64];
  SimQueueBucket bucket[SIM_QUEUE_LEVELS][SIM_QUEUE_BUCKETS];
  SimPool blocks; /* of SimQueueBlock */
} SimQueue;

/* Decides whether compaction keeps an entry. */
typedef gboolean (*SimQueueKeepFn)(const SimQueueEntry *entry, void *ctx);

void sim_queue_init(SimQueue *q);
void sim_queue_clear(SimQueue *q);

/* Adds an entry; entry->time must be >= sim_queue_floor(q) (asserted). */
void sim_queue_push(SimQueue *q, const SimQueueEntry *entry);

/* Removes the entry with the smallest (time, insertion sequence) into *out
 * and returns TRUE, if there is one with time <= limit; else returns FALSE
 * and the queue holds the same entries.  Either way the floor may rise, to
 * the popped time or to at most limit. */
gboolean sim_queue_pop_until(SimQueue *q, SimTime limit, SimQueueEntry *out);

/* The smallest pending time, without removing anything.  Returns FALSE when
 * the queue is empty.  O(size of the first bucket). */
gboolean sim_queue_peek_time(const SimQueue *q, SimTime *out);

/* Removes every entry for which keep returns FALSE, preserving the order of
 * the rest; returns how many were removed.  O(pending). */
guint64 sim_queue_compact(SimQueue *q, SimQueueKeepFn keep, void *ctx);

/* No pushed time may be below this: the time of the last popped entry, or
 * up to the limit of a pop_until that found nothing. */
static inline SimTime sim_queue_floor(const SimQueue *q)
{
  return q->last;
}

static inline guint64 sim_queue_size(const SimQueue *q)
{
  return q->count;
}

#endif /* SIM_QUEUE_H */
