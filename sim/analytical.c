/* The analytical transport: every transfer runs as if alone on the fabric.
 *
 * A transfer of b bytes takes latency(path) + ceil(b / r * 10^12) ps,
 * r = min over its channels of rate_Bps / w (and the transfer's cap; a
 * channel the path crosses twice, w of both crossings).  Over a path set
 * its shares are fixed and move at one rate (sim_transfer_union): the
 * latest path's latency, then r over the channels its paths cross, each
 * at its paths' weight (sim/transport.h).  One event per
 * transfer, nothing stored in between: the fastest way to sweep sizes, and
 * the cross-check of the flow transport, which must agree exactly when no
 * two flows meet.
 *
 * Channel statistics count bytes and the time each channel spends
 * serializing them (every copy of a transfer of several); since contention is ignored, busy time may exceed the
 * run's length, which says the pattern would have congested that channel. */
#include "sim/transport.h"

typedef struct {
  SimTransport base;
  SimKind done_kind;
  SimChannelStats *chan; /* [n_channels] */
  SimUnion u;            /* a path set's channels (sim_transfer_union) */
} Analytical;

static void analytical_done(SimEngine *engine, void *ctx, guint64 tag)
{
  (void)engine;
  sim_transport_finish(ctx, tag);
}

static void analytical_start(SimTransport *t, const SimTransfer *x)
{
  Analytical *a = (Analytical *)t;
  double copies = MAX(x->copies, 1);
  gboolean set = x->n_paths > 1; /* timed as one below */
  SimTime end = 0;
  guint64 given = 0;

  for (guint32 i = 0; i < x->n_paths; i++) {
    const SimPath *p = &x->paths[i];
    guint64 bytes = sim_transfer_share_next(x, i, &given);
    double rate = sim_transfer_path_cap(x, i);
    SimTime t_i = sim_path_latency_ps(t->fabric, p);

    for (guint32 h = 0; h < p->n; h++) {
      const SimChannel *c = sim_fabric_channel(t->fabric, p->hop[h]);
      double w = sim_transport_wire_ratio(t, p->hop[h], bytes);
      SimChannelStats *s = &a->chan[p->hop[h]];

      /* a channel the path crosses again carries its bytes each time */
      if (!set && !sim_path_repeats(p, h)) {
        double wt = w;

        for (guint32 k = h + 1; k < p->n; k++)
          if (p->hop[k] == p->hop[h])
            wt += sim_transport_wire_ratio(t, p->hop[k], bytes);
        rate = MIN(rate, c->rate_Bps / wt);
      }
      s->payload_bytes += (double)bytes * copies;
      s->wire_bytes += (double)bytes * w * copies;
      s->busy_ps += sim_serialize_ps((double)bytes * w * copies, c->rate_Bps);
    }
    if (!set)
      end = bytes > 0 ? t_i + sim_serialize_ps((double)bytes, rate) : t_i;
  }
  if (set) {
    guint32 n = sim_transfer_union(t, x, &a->u, &end);
    double rate = x->cap_Bps > 0 ? x->cap_Bps : G_MAXDOUBLE;

    for (guint32 k = 0; k < n; k++)
      rate = MIN(rate, sim_fabric_channel(t->fabric, a->u.ch[k])->rate_Bps /
                           a->u.w[k]);
    if (x->bytes > 0)
      end += sim_serialize_ps((double)x->bytes, rate);
  }
  sim_engine_schedule_in(t->engine, end, a->done_kind, x->tag);
}

static void analytical_channel_stats(const SimTransport *t, SimChannelId c,
                                     SimChannelStats *out)
{
  *out = ((const Analytical *)t)->chan[c];
}

static void analytical_free(SimTransport *t)
{
  Analytical *a = (Analytical *)t;

  g_free(a->chan);
  sim_union_clear(&a->u);
  g_free(a);
}

static const SimTransportOps analytical_ops = {
    .name = "analytical",
    .start = analytical_start,
    .channel_stats = analytical_channel_stats,
    .free = analytical_free,
    .copies = TRUE,
};

SimTransport *sim_analytical_new(SimEngine *engine, const SimFabric *fabric)
{
  Analytical *a = g_new0(Analytical, 1);

  sim_transport_init(&a->base, &analytical_ops, engine, fabric);
  a->chan = g_new0(SimChannelStats, MAX(sim_fabric_n_channels(fabric), 1));
  sim_union_init(&a->u, fabric);
  a->done_kind =
      sim_engine_register(engine, "analytical.done", analytical_done, a);
  return &a->base;
}
