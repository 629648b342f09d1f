/* SimRng: seeded pseudo-random numbers, xoshiro256** (Blackman & Vigna,
 * "Scrambled linear pseudorandom number generators", 2021; reference code
 * at prng.di.unimi.it).
 *
 * Reproducibility: a generator is fully determined by (seed, stream).  Each
 * user of randomness (ECMP hashing, placement, workload jitter) takes its own
 * stream number, so adding a consumer never shifts the numbers another one
 * sees.  The 256-bit state is filled by SplitMix64 from a mix of seed and
 * stream; streams are statistically independent (overlap within 2^64 draws
 * has probability ~2^-128), and sim_rng_jump gives provably disjoint
 * subsequences when that is wanted. */
#ifndef SIM_RNG_H
#define SIM_RNG_H

#include <glib.h>
#include <stdint.h>

typedef struct {
  guint64 s[4];
} SimRng;

/* Seeds r for (seed, stream).  Any values, including 0, are valid. */
void sim_rng_init(SimRng *r, guint64 seed, guint64 stream);

/* Sets the raw state, for known-answer tests.  Not all zero. */
void sim_rng_set_state(SimRng *r, const guint64 state[4]);

static inline guint64 sim_rng_rotl(guint64 x, int k)
{
  return (x << k) | (x >> (64 - k));
}

/* The next 64 random bits. */
static inline guint64 sim_rng_next(SimRng *r)
{
  guint64 *s = r->s;
  guint64 result = sim_rng_rotl(s[1] * 5, 7) * 9;
  guint64 t = s[1] << 17;

  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = sim_rng_rotl(s[3], 45);
  return result;
}

/* Uniform double in [0, 1) with 53 random bits. */
static inline double sim_rng_uniform(SimRng *r)
{
  return (double)(sim_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform integer in [0, n), n > 0, without modulo bias (Lemire 2019). */
guint64 sim_rng_below(SimRng *r, guint64 n);

/* Draws k of the n values of a (k <= n) without replacement, each
 * equally likely, into a[0..k) in the order drawn: a partial
 * Fisher-Yates shuffle (a[k..n) keeps the rest). */
void sim_rng_draw(SimRng *r, guint32 *a, guint32 n, guint32 k);

/* Exponential variate with the given mean (> 0). */
double sim_rng_exponential(SimRng *r, double mean);

/* Advances r by 2^128 draws. */
void sim_rng_jump(SimRng *r);

#endif /* SIM_RNG_H */
