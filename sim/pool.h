/* SimPool: fixed-size objects addressed by 32-bit index, recycled through a
 * free list.
 *
 * The engine's hot path never calls malloc: event blocks, cancellation
 * handles (and later flows and packets) come from pools.  Storage grows in
 * chunks of 2^chunk_shift items that never move, so a pointer returned by
 * sim_pool_at stays valid until the item is freed, even while the pool
 * grows.  Freed items are reused last-in first-out, which keeps the working
 * set hot in cache.
 *
 * Invariants: 0 <= in_use <= created; every index below `created` is either
 * in use or on the free list, exactly once.  A freed item's first 4 bytes
 * hold the free-list link; the rest of its bytes are left as they were. */
#ifndef SIM_POOL_H
#define SIM_POOL_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define SIM_POOL_NIL UINT32_MAX

typedef struct {
  char **chunks; /* chunk table; chunks themselves never move */
  guint32 n_chunks;
  guint32 chunks_cap;
  guint32 item_size;   /* bytes, >= 4, a multiple of the alignment */
  guint32 align;       /* every item starts at a multiple of this */
  guint32 chunk_shift; /* log2(items per chunk) */
  guint32 chunk_mask;  /* items per chunk - 1: sim_pool_at's index mask */
  guint32 created;     /* items ever handed out: indices [0, created) */
  guint32 in_use;
  guint32 free_head; /* SIM_POOL_NIL when the free list is empty */
} SimPool;

/* Prepares an empty pool of items of item_size bytes, allocated 2^chunk_shift
 * at a time (1 <= chunk_shift <= 24), 8-byte aligned.  Allocates nothing
 * yet. */
void sim_pool_init(SimPool *pool, size_t item_size, guint chunk_shift);

/* As sim_pool_init, with every item aligned to `align` bytes (a power of two
 * that divides item_size), so users may find an item's start from a pointer
 * into it. */
void sim_pool_init_aligned(SimPool *pool, size_t item_size, guint chunk_shift,
                           size_t align);

/* Frees all storage; every index becomes invalid.  The pool may be
 * initialised again. */
void sim_pool_clear(SimPool *pool);

static inline void *sim_pool_at(const SimPool *pool, guint32 idx)
{
  return pool->chunks[idx >> pool->chunk_shift] +
         (size_t)(idx & pool->chunk_mask) * pool->item_size;
}

/* sim_pool_at for a pool whose item size and chunk shift the caller
 * knows as constants (what it gave sim_pool_init): the index arithmetic
 * folds into them instead of reading the pool's fields.  The hot paths'
 * own pools (flows, tasks) look their records up this way. */
static inline void *sim_pool_at_fixed(const SimPool *pool, guint32 idx,
                                      size_t item_size, guint chunk_shift)
{
#ifndef NDEBUG
  g_assert(item_size == pool->item_size && chunk_shift == pool->chunk_shift);
#endif
  return pool->chunks[idx >> chunk_shift] +
         (size_t)(idx & ((1u << chunk_shift) - 1)) * item_size;
}

/* The slow half of sim_pool_alloc: an item never used before. */
guint32 sim_pool_alloc_fresh(SimPool *pool);

/* Returns the index of an item.  An item never used before is zero-filled;
 * a reused one holds what its last user left, except its first 4 bytes.
 * Aborts (g_error) past 2^32 - 1 items, as out-of-memory does.  Inline:
 * pools sit on every hot path. */
static inline guint32 sim_pool_alloc(SimPool *pool)
{
  guint32 idx = pool->free_head;

  if (G_UNLIKELY(idx == SIM_POOL_NIL))
    return sim_pool_alloc_fresh(pool);
  memcpy(&pool->free_head, sim_pool_at(pool, idx), sizeof(guint32));
  pool->in_use++;
  return idx;
}

/* sim_pool_alloc with sim_pool_at_fixed's constants. */
static inline guint32 sim_pool_alloc_fixed(SimPool *pool, size_t item_size,
                                           guint chunk_shift)
{
  guint32 idx = pool->free_head;

  if (G_UNLIKELY(idx == SIM_POOL_NIL))
    return sim_pool_alloc_fresh(pool);
  memcpy(&pool->free_head, sim_pool_at_fixed(pool, idx, item_size, chunk_shift),
         sizeof(guint32));
  pool->in_use++;
  return idx;
}

/* sim_pool_free for a caller that holds the item: `item` must be
 * sim_pool_at(pool, idx), which is then not computed again (the hot
 * paths that free a record have just used it). */
static inline void sim_pool_free_item(SimPool *pool, guint32 idx, void *item)
{
  g_assert(idx < pool->created && pool->in_use > 0);
  memcpy(item, &pool->free_head, sizeof(guint32));
  pool->free_head = idx;
  pool->in_use--;
}

/* Returns item idx to the pool; idx must be in use (checked by assertion
 * only as far as the range). */
static inline void sim_pool_free(SimPool *pool, guint32 idx)
{
  sim_pool_free_item(pool, idx, sim_pool_at(pool, idx));
}

/* Bytes of item storage currently reserved (not counting the chunk table). */
size_t sim_pool_reserved_bytes(const SimPool *pool);

#endif /* SIM_POOL_H */
