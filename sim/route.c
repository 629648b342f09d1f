/* Path helpers and flow hashing; see sim/route.h. */
#include "sim/route.h"

#include <string.h>

gboolean sim_path_append(SimPath *a, const SimPath *b)
{
  if (a->n + b->n > SIM_PATH_MAX_HOPS)
    return FALSE;
  memcpy(a->hop + a->n, b->hop, b->n * sizeof b->hop[0]);
  a->n += b->n;
  return TRUE;
}

gboolean sim_pathset_add(SimPathSet *s, const SimPath *p, double w)
{
  for (guint32 i = 0; i < s->n; i++) {
    if (s->path[i].n == p->n &&
        memcmp(s->path[i].hop, p->hop, p->n * sizeof(p->hop[0])) == 0) {
      s->weight[i] += w;
      return TRUE;
    }
  }
  if (s->n == SIM_PATHSET_MAX)
    return FALSE;
  s->path[s->n] = *p;
  s->weight[s->n++] = w;
  return TRUE;
}

/* More pairs than a set holds: the northwest-corner rule of the
 * transportation problem pairs a's paths with b's so that each keeps its
 * own weight, in at most a->n + b->n - 1 paths.  Where the legs share no
 * channel, every channel then carries the weight it carries under the full
 * product; only which parts of a travel on with which parts of b differs. */
static gboolean concat_corner(const SimPathSet *a, const SimPathSet *b,
                              SimPathSet *out)
{
  guint32 i = 0, j = 0;
  double ra = a->weight[0], rb = b->weight[0];

  while (i < a->n && j < b->n) {
    double w = MIN(ra, rb);
    SimPath p = a->path[i];

    if (out->n == SIM_PATHSET_MAX || !sim_path_append(&p, &b->path[j]))
      return FALSE;
    out->weight[out->n] = w;
    out->path[out->n++] = p;
    ra -= w;
    rb -= w;
    if (ra <= 1e-12 * a->weight[i] && ++i < a->n)
      ra = a->weight[i];
    if (rb <= 1e-12 * b->weight[j] && ++j < b->n)
      rb = b->weight[j];
  }
  return TRUE;
}

gboolean sim_pathset_concat(const SimPathSet *a, const SimPathSet *b,
                            SimPathSet *out)
{
  out->n = 0;
  if (a->n * b->n > SIM_PATHSET_MAX)
    return concat_corner(a, b, out);
  for (guint32 i = 0; i < a->n; i++) {
    for (guint32 j = 0; j < b->n; j++) {
      SimPath p = a->path[i];

      if (!sim_path_append(&p, &b->path[j]))
        return FALSE;
      out->weight[out->n] = a->weight[i] * b->weight[j];
      out->path[out->n++] = p;
    }
  }
  return TRUE;
}

gboolean sim_path_valid(const SimFabric *f, const SimPath *p, SimNodeId src,
                        SimNodeId dst)
{
  SimNodeId at = src;

  for (guint32 i = 0; i < p->n; i++) {
    const SimChannel *c = sim_fabric_channel(f, p->hop[i]);
    if (c->src != at)
      return FALSE;
    at = c->dst;
  }
  return at == dst;
}

SimTime sim_path_latency_ps(const SimFabric *f, const SimPath *p)
{
  SimTime t = 0;

  for (guint32 i = 0; i < p->n; i++) {
    const SimChannel *c = sim_fabric_channel(f, p->hop[i]);
    t += c->latency_ps;
    if (i + 1 < p->n)
      t += sim_fabric_node(f, c->dst)->latency_ps;
  }
  return t;
}

SimTime sim_paths_latency_ps(const SimFabric *f, const SimPath *p, guint32 n)
{
  SimTime t = 0;

  for (guint32 i = 0; i < n; i++)
    t = MAX(t, sim_path_latency_ps(f, &p[i]));
  return t;
}

double sim_path_bottleneck_Bps(const SimFabric *f, const SimPath *p)
{
  double bw = G_MAXDOUBLE;

  for (guint32 i = 0; i < p->n; i++)
    bw = MIN(bw, sim_fabric_channel(f, p->hop[i])->rate_Bps);
  return bw;
}

/* SplitMix64's finaliser: every input bit affects every output bit. */
static guint64 mix64(guint64 z)
{
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

guint64 sim_flow_hash(guint64 seed, guint32 src, guint32 dst, guint64 flow,
                      guint32 salt)
{
  guint64 h = mix64(seed + UINT64_C(0x9e3779b97f4a7c15));
  h = mix64(h ^ (((guint64)src << 32) | dst));
  h = mix64(h ^ flow);
  return mix64(h ^ salt);
}
