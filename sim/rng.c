/* SimRng: xoshiro256** with SplitMix64 seeding; see sim/rng.h. */
#include "sim/rng.h"

#include <math.h>

/* SplitMix64 (Steele, Lea & Flood 2014), the seeding generator the
 * xoshiro authors recommend. */
static guint64 splitmix64(guint64 *x)
{
  guint64 z = (*x += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

void sim_rng_init(SimRng *r, guint64 seed, guint64 stream)
{
  guint64 x = seed;
  guint64 y = stream ^ UINT64_C(0x6a09e667f3bcc909); /* sqrt(2) bits */
  /* Hash (seed, stream) into one SplitMix64 start; distinct pairs give
   * distinct starts with overwhelming probability. */
  guint64 start = splitmix64(&x) ^ sim_rng_rotl(splitmix64(&y), 32);

  for (int i = 0; i < 4; i++)
    r->s[i] = splitmix64(&start);
  if ((r->s[0] | r->s[1] | r->s[2] | r->s[3]) == 0)
    r->s[0] = 1; /* the one forbidden state; unreachable in practice */
}

void sim_rng_set_state(SimRng *r, const guint64 state[4])
{
  g_assert((state[0] | state[1] | state[2] | state[3]) != 0);
  for (int i = 0; i < 4; i++)
    r->s[i] = state[i];
}

void sim_rng_draw(SimRng *r, guint32 *a, guint32 n, guint32 k)
{
  g_assert(k <= n);
  for (guint32 i = 0; i < k; i++) {
    guint32 j = i + (guint32)sim_rng_below(r, n - i);
    guint32 t = a[i];

    a[i] = a[j];
    a[j] = t;
  }
}

guint64 sim_rng_below(SimRng *r, guint64 n)
{
  unsigned __int128 m;
  guint64 low;

  g_assert(n > 0);
  m = (unsigned __int128)sim_rng_next(r) * n;
  low = (guint64)m;
  if (low < n) {
    guint64 threshold = -n % n;
    while (low < threshold) {
      m = (unsigned __int128)sim_rng_next(r) * n;
      low = (guint64)m;
    }
  }
  return (guint64)(m >> 64);
}

double sim_rng_exponential(SimRng *r, double mean)
{
  g_assert(mean > 0.0);
  /* u in [0, 1): 1 - u in (0, 1], so the logarithm is finite. */
  return -mean * log1p(-sim_rng_uniform(r));
}

void sim_rng_jump(SimRng *r)
{
  static const guint64 jump[] = {
      UINT64_C(0x180ec6d33cfd0aba), UINT64_C(0xd5a61266f0c9392c),
      UINT64_C(0xa9582618e03fc9aa), UINT64_C(0x39abdc4529b1661c)};
  guint64 s0 = 0, s1 = 0, s2 = 0, s3 = 0;

  for (size_t i = 0; i < G_N_ELEMENTS(jump); i++) {
    for (int b = 0; b < 64; b++) {
      if (jump[i] & (UINT64_C(1) << b)) {
        s0 ^= r->s[0];
        s1 ^= r->s[1];
        s2 ^= r->s[2];
        s3 ^= r->s[3];
      }
      sim_rng_next(r);
    }
  }
  r->s[0] = s0;
  r->s[1] = s1;
  r->s[2] = s2;
  r->s[3] = s3;
}
