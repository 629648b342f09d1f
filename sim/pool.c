/* SimPool: chunked, index-addressed object pool; see sim/pool.h. */
#include "sim/pool.h"

#include <string.h>

void sim_pool_init_aligned(SimPool *pool, size_t item_size, guint chunk_shift,
                           size_t align)
{
  g_assert(item_size >= 4 && item_size <= G_MAXUINT32 / 2);
  g_assert(chunk_shift >= 1 && chunk_shift <= 24);
  g_assert(align >= 8 && align <= 65536 && (align & (align - 1)) == 0);
  memset(pool, 0, sizeof *pool);
  pool->item_size = (guint32)((item_size + 7) & ~(size_t)7);
  g_assert(pool->item_size % align == 0);
  pool->align = (guint32)align;
  pool->chunk_shift = chunk_shift;
  pool->chunk_mask = (UINT32_C(1) << chunk_shift) - 1;
  pool->free_head = SIM_POOL_NIL;
}

void sim_pool_init(SimPool *pool, size_t item_size, guint chunk_shift)
{
  sim_pool_init_aligned(pool, (item_size + 7) & ~(size_t)7, chunk_shift, 8);
}

void sim_pool_clear(SimPool *pool)
{
  for (guint32 i = 0; i < pool->n_chunks; i++)
    g_aligned_free(pool->chunks[i]);
  g_free(pool->chunks);
  sim_pool_init_aligned(pool, pool->item_size, pool->chunk_shift, pool->align);
}

static void pool_grow(SimPool *pool)
{
  size_t per_chunk = (size_t)1 << pool->chunk_shift;

  if ((guint64)(pool->n_chunks + 1) * per_chunk > SIM_POOL_NIL)
    g_error("sim_pool: more than %u objects of %u bytes", SIM_POOL_NIL - 1,
            pool->item_size);
  if (pool->n_chunks == pool->chunks_cap) {
    pool->chunks_cap = pool->chunks_cap ? pool->chunks_cap * 2 : 8;
    pool->chunks = g_renew(char *, pool->chunks, pool->chunks_cap);
  }
  /* not zeroed here: sim_pool_alloc_fresh zeroes each item as it hands
   * it out, so a run touches only the items it uses (the flow transport's
   * chunks hold 4,096 flows; a small run uses a few dozen) */
  pool->chunks[pool->n_chunks++] =
      g_aligned_alloc(per_chunk, pool->item_size, pool->align);
}

guint32 sim_pool_alloc_fresh(SimPool *pool)
{
  if (pool->created == (guint32)pool->n_chunks << pool->chunk_shift)
    pool_grow(pool);
  memset(sim_pool_at(pool, pool->created), 0, pool->item_size);
  pool->in_use++;
  return pool->created++;
}

size_t sim_pool_reserved_bytes(const SimPool *pool)
{
  return ((size_t)pool->n_chunks << pool->chunk_shift) * pool->item_size;
}
