/* Paths and path sets over a SimFabric, with the hashing and load hooks
 * routing policies use.  The policies themselves (fat-tree D-mod-k, ECMP,
 * adaptive, dragonfly minimal/Valiant/UGAL, intra-server shortest paths)
 * live with the topologies that define them.
 *
 * A path is a list of channel ids from source to destination.  A path set
 * spreads one transfer over several paths with weights (fractions of the
 * bytes, summing to 1): what hardware does when it sprays a GPU's NVLink
 * traffic over every NVSwitch plane.  Sizes are fixed so that routing
 * never allocates. */
#ifndef SIM_ROUTE_H
#define SIM_ROUTE_H

#include <glib.h>

#include "sim/fabric.h"

#define SIM_PATH_MAX_HOPS 24
#define SIM_PATHSET_MAX 32

typedef struct {
  guint32 n;
  SimChannelId hop[SIM_PATH_MAX_HOPS];
} SimPath;

typedef struct {
  guint32 n;
  double weight[SIM_PATHSET_MAX];
  SimPath path[SIM_PATHSET_MAX];
} SimPathSet;

/* Current load of a channel as an adaptive policy sees it (bytes queued,
 * flows, ...); larger is busier.  ctx is the caller's. */
typedef double (*SimLoadFn)(SimChannelId channel, void *ctx);

typedef struct {
  SimLoadFn fn;
  void *ctx;
} SimLoadHook;

static inline void sim_path_clear(SimPath *p)
{
  p->n = 0;
}

/* Appends a channel; FALSE (path unchanged) when full. */
static inline gboolean sim_path_push(SimPath *p, SimChannelId c)
{
  if (p->n == SIM_PATH_MAX_HOPS)
    return FALSE;
  p->hop[p->n++] = c;
  return TRUE;
}

/* Whether hop h of path p is a channel the path crossed before (a
 * Valiant route can leave its group by the link it comes back over): the
 * channel then carries the path's bytes once per crossing. */
static inline gboolean sim_path_repeats(const SimPath *p, guint32 h)
{
  for (guint32 k = 0; k < h; k++)
    if (p->hop[k] == p->hop[h])
      return TRUE;
  return FALSE;
}

/* Appends b to a; FALSE (a unchanged) when it would not fit. */
gboolean sim_path_append(SimPath *a, const SimPath *b);

/* Adds path p at weight w to set s, to the same path where s has it;
 * FALSE (s unchanged) when s is full. */
gboolean sim_pathset_add(SimPathSet *s, const SimPath *p, double w);

/* The routes of two legs one after the other (a's paths, each followed by
 * b's), weights multiplied: every pair where a->n x b->n fit a set; past
 * that, pairs that keep each leg's paths at their own weights, at most
 * a->n + b->n - 1 of them (the northwest-corner rule: each channel of legs
 * that share none carries what the full product gives it).  FALSE when a
 * path would be longer than SIM_PATH_MAX_HOPS or the pairs more than a set
 * holds. */
gboolean sim_pathset_concat(const SimPathSet *a, const SimPathSet *b,
                            SimPathSet *out);

/* TRUE when the path's channels chain from src to dst. */
gboolean sim_path_valid(const SimFabric *f, const SimPath *p, SimNodeId src,
                        SimNodeId dst);

/* Latency of a path: its channels' latencies plus the forwarding latency
 * of every node it crosses (not its ends); and its smallest rate. */
SimTime sim_path_latency_ps(const SimFabric *f, const SimPath *p);
/* The largest latency of paths p[0..n): when bytes split over them have
 * all arrived. */
SimTime sim_paths_latency_ps(const SimFabric *f, const SimPath *p, guint32 n);
double sim_path_bottleneck_Bps(const SimFabric *f, const SimPath *p);

/* A well-mixed 64-bit hash of a flow (source, destination, flow number)
 * under a seed, salted per decision point, for ECMP-like choices: the same
 * inputs always choose the same way, different seeds differently. */
guint64 sim_flow_hash(guint64 seed, guint32 src, guint32 dst, guint64 flow,
                      guint32 salt);

#endif /* SIM_ROUTE_H */
