/* What every transport shares: the table dispatch, transfer checks, byte
 * shares of path sets and completion counting; see sim/transport.h. */
#include "sim/transport.h"

#include <math.h>

void sim_transport_free(SimTransport *t)
{
  if (t)
    t->ops->free(t);
}

void sim_transport_set_done(SimTransport *t, SimDoneFn fn, void *ctx)
{
  g_assert(t->stats.transfers_started == 0);
  t->done = fn;
  t->done_ctx = ctx;
}

void sim_transport_set_wire(SimTransport *t, SimWireFn fn, void *ctx)
{
  g_assert(t->stats.transfers_started == 0);
  t->wire.fn = fn;
  t->wire.ctx = ctx;
}

const char *sim_transport_name(const SimTransport *t)
{
  return t->ops->name;
}

void sim_transport_explain_stall(const SimTransport *t, GString *out)
{
  if (t->ops->explain_stall)
    t->ops->explain_stall(t, out);
}

void sim_transport_stats(const SimTransport *t, SimTransportStats *out)
{
  *out = t->stats;
}

void sim_transport_channel_stats(const SimTransport *t, SimChannelId c,
                                 SimChannelStats *out)
{
  g_assert(c < sim_fabric_n_channels(t->fabric));
  t->ops->channel_stats(t, c, out);
}

/* Share j of a transfer split by weights, after the earlier shares took
 * `given` bytes.  Rounded shares of a few bytes over many paths can add
 * up to more than the transfer (32 paths of 1/32 of 16 bytes each round
 * to 1): a share never takes more than what the earlier ones left. */
static guint64 share_after(const SimTransfer *x, guint32 j, guint64 given)
{
  guint64 left = x->bytes - given;

  if (!x->weights || x->n_paths == 1)
    return x->bytes;
  return j + 1 < x->n_paths
             ? MIN((guint64)llround((double)x->bytes * x->weights[j]), left)
             : left;
}

guint64 sim_transfer_share_next(const SimTransfer *x, guint32 i, guint64 *given)
{
  guint64 s = share_after(x, i, *given);

  *given += s;
  return s;
}

guint64 sim_transfer_share(const SimTransfer *x, guint32 i)
{
  guint64 given = 0;

  g_assert(i < x->n_paths);
  for (guint32 j = 0;; j++) {
    guint64 s = sim_transfer_share_next(x, j, &given);

    if (j == i)
      return s;
  }
}

void sim_union_init(SimUnion *u, const SimFabric *f)
{
  guint32 n = sim_fabric_n_channels(f);

  u->slot_of = g_new(guint32, MAX(n, 1));
  for (guint32 c = 0; c < n; c++)
    u->slot_of[c] = SIM_NONE;
  u->ch = g_new(SimChannelId, SIM_UNION_MAX_HOPS);
  u->w = g_new(double, SIM_UNION_MAX_HOPS);
}

void sim_union_clear(SimUnion *u)
{
  g_free(u->slot_of);
  g_free(u->ch);
  g_free(u->w);
}

guint32 sim_transfer_union(const SimTransport *t, const SimTransfer *x,
                           SimUnion *u, SimTime *lat)
{
  guint32 n = 0;
  guint64 given = 0;

  for (guint32 i = 0; i < x->n_paths; i++) {
    const SimPath *p = &x->paths[i];
    guint64 share = sim_transfer_share_next(x, i, &given);
    double f = x->bytes > 0 ? (double)share / (double)x->bytes
                            : (x->weights ? x->weights[i] : 1.0);

    for (guint32 h = 0; h < p->n; h++) {
      SimChannelId c = p->hop[h];

      if (u->slot_of[c] == SIM_NONE) {
        u->slot_of[c] = n;
        u->ch[n] = c;
        u->w[n++] = 0;
      }
      u->w[u->slot_of[c]] += f * sim_transport_wire_ratio(t, c, x->bytes);
    }
  }
  for (guint32 k = 0; k < n; k++)
    u->slot_of[u->ch[k]] = SIM_NONE;
  *lat = sim_paths_latency_ps(t->fabric, x->paths, x->n_paths);
  return n;
}

void sim_transport_start(SimTransport *t, const SimTransfer *x)
{
  g_assert(x->n_paths >= 1 && x->n_paths <= SIM_PATHSET_MAX);
  g_assert(x->cap_Bps >= 0);
#ifndef NDEBUG
  for (guint32 i = 0; i < x->n_paths; i++) {
    const SimPath *p = &x->paths[i];
    g_assert(p->n > 0);
    g_assert(sim_path_valid(
        t->fabric, p, sim_fabric_channel(t->fabric, p->hop[0])->src,
        sim_fabric_channel(t->fabric, p->hop[p->n - 1])->dst));
  }
#endif
  g_assert(x->copies <= 1 || t->ops->copies);
  t->stats.transfers_started++;
  t->stats.flows_started += x->n_paths;
  t->in_flight++;
  t->ops->start(t, x);
}

void sim_transport_init(SimTransport *t, const SimTransportOps *ops,
                        SimEngine *engine, const SimFabric *fabric)
{
  t->ops = ops;
  t->engine = engine;
  t->fabric = fabric;
}

void sim_transport_finish(SimTransport *t, guint64 tag)
{
  g_assert(t->in_flight > 0);
  t->in_flight--;
  t->stats.transfers_done++;
  if (t->done)
    t->done(t->done_ctx, tag, sim_engine_now(t->engine));
}
