/* SimTransport: how bytes cross the fabric.
 *
 * A transfer moves `bytes` of payload from one endpoint to another over a
 * path, or over several paths with weights (a path set: each path carries
 * its weight's share of the bytes, rounded to whole bytes, and the transfer
 * ends when the last share arrives; the analytical and flow transports
 * keep the shares fixed, moving at one rate: sim_transfer_union).
 * Transports differ in fidelity:
 *
 *   analytical  latency + bytes / bottleneck rate, no contention
 *               (sim/analytical.c);
 *   flow        fluid flows sharing channels max-min fairly, rates
 *               recomputed when a flow starts or ends (sim/flow.c).
 *
 * Both follow the same time rule, so an uncontended transfer takes exactly
 * the same picoseconds in each:
 *
 *   t = latency(path) + ceil(bytes / rate * 10^12)
 *
 * latency(path) is every channel's latency plus the forwarding latency of
 * every node crossed (sim_path_latency_ps), charged before the bytes move,
 * as SimGrid does; rate is the path's bottleneck in payload bytes/s: the
 * smallest rate_Bps / w over its channels, where w >= 1 is the channel's
 * wire bytes per payload byte for a message of that size (headers, CRCs,
 * framing: the optional SimWireHook, from the link models; 1 without one).
 * A flow may also carry its own rate cap (an endpoint's injection limit).
 *
 * The transport calls its one completion function with the transfer's tag
 * when the last byte has arrived: clients (the DAG executor, sim/dag.h) map
 * tags to their own records.  Transports are a table of functions behind a
 * base struct, as libuv's handles. */
#ifndef SIM_TRANSPORT_H
#define SIM_TRANSPORT_H

#include <glib.h>

#include "sim/engine.h"
#include "sim/fabric.h"
#include "sim/route.h"

/* Wire bytes per payload byte (>= 1) on channel c for a message of `bytes`
 * (> 0).  Hot: called for every hop of every transfer started. */
typedef double (*SimWireFn)(void *ctx, SimChannelId c, guint64 bytes);

typedef struct {
  SimWireFn fn;
  void *ctx;
} SimWireHook;

/* A transfer's last byte arrived at `now`. */
typedef void (*SimDoneFn)(void *ctx, guint64 tag, SimTime now);

typedef struct {
  guint64 bytes;
  const SimPath *paths;  /* n_paths paths from source to destination */
  const double *weights; /* n_paths shares summing to 1; NULL: one path */
  guint32 n_paths;       /* 1 .. SIM_PATHSET_MAX */
  double cap_Bps;        /* a cap on the transfer's payload rate, shared by
                            its paths by weight; 0: none */
  guint64 tag;           /* given back to the completion function */
  guint32 vl;            /* packet transport: virtual lane / priority (0 by
                            default; others ignore it) */
  guint32 copies;        /* identical transfers it stands for (0: one): the
                            same paths, bytes and cap, starting together.
                            Each channel carries every copy's bytes and
                            max-min fairness counts each copy as a flow of
                            its own, so the copies end together, when one
                            transfer of them would have (a fold of a
                            collective's alike channels).  Only transports
                            whose ops say `copies` take more than one. */
} SimTransfer;

/* Per-channel counters, for link utilization reports (a transfer of
 * several copies counts as that many transfers). */
typedef struct {
  double payload_bytes; /* payload carried so far: at the engine's now,
                           including the part of transfers in flight that
                           has crossed (flow, packet transports; the
                           analytical one counts a transfer whole when it
                           starts) */
  double wire_bytes;    /* the same with per-packet overheads (w x payload) */
  SimTime busy_ps;      /* time with at least one flow on the channel */
  guint32 peak_flows;   /* most flows on it at once */
} SimChannelStats;

/* Totals over the run, for reports and benchmarks (of what the transport
 * ran: a transfer of several copies counts once). */
typedef struct {
  guint64 transfers_started;
  guint64 transfers_done;
  guint64 flows_started;    /* paths of transfers */
  guint64 rate_updates;     /* flows whose rate a recomputation changed */
  guint64 recomputes;       /* max-min recomputations over a component */
  guint64 recompute_rounds; /* fillings: a recomputation grows its set of
                              flows until max-min holds around it */
  guint64 recompute_flows;  /* flows in the final sets */
  guint64 demoted;          /* flows started alone that met another before
                            their bytes began (flow transport) */
  guint64 recomputes_saved; /* flows that started or ended on shared
                               channels with room to spare, so that no
                               rate changed (flow transport) */
  guint32 peak_active;      /* most flows on channels at once */
} SimTransportStats;

typedef struct SimTransport SimTransport;

typedef struct {
  const char *name;
  void (*start)(SimTransport *t, const SimTransfer *x);
  void (*channel_stats)(const SimTransport *t, SimChannelId c,
                        SimChannelStats *out);
  void (*free)(SimTransport *t);
  /* Optional: appends why transfers in flight cannot move (a deadlock of
   * full buffers), when the transport knows; nothing otherwise. */
  void (*explain_stall)(const SimTransport *t, GString *out);
  gboolean copies; /* takes SimTransfer.copies above one */
} SimTransportOps;

/* The base every transport starts with. */
struct SimTransport {
  const SimTransportOps *ops;
  SimEngine *engine;
  const SimFabric *fabric; /* finalized */
  SimWireHook wire;
  SimDoneFn done;
  void *done_ctx;
  SimTransportStats stats;
  guint64 in_flight; /* transfers started and not done */
};

/* An analytical (contention-free) transport over a finalized fabric, which
 * must outlive it. */
SimTransport *sim_analytical_new(SimEngine *engine, const SimFabric *fabric);

/* A flow-level (max-min fair) transport over a finalized fabric, which
 * must outlive it. */
SimTransport *sim_flow_new(SimEngine *engine, const SimFabric *fabric);

/* Flow transport only: after every recomputation, asserts that no channel
 * carries more than its rate and that every flow is bottlenecked (max-min
 * optimality).  Slow: for tests and debugging. */
void sim_flow_set_checking(SimTransport *t, gboolean on);

void sim_transport_free(SimTransport *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SimTransport, sim_transport_free)

/* Sets the completion function (before the first transfer). */
void sim_transport_set_done(SimTransport *t, SimDoneFn fn, void *ctx);

/* Sets how payload becomes wire bytes (default: w = 1 everywhere). */
void sim_transport_set_wire(SimTransport *t, SimWireFn fn, void *ctx);

/* Starts a transfer now.  Paths are copied: the caller may reuse them.
 * Every path must chain its channels and cross each at most once
 * (asserted in debug builds); bytes may be 0 (the transfer then takes the
 * longest path's latency). */
void sim_transport_start(SimTransport *t, const SimTransfer *x);

const char *sim_transport_name(const SimTransport *t);
/* Appends the transport's explanation of a stall (see explain_stall). */
void sim_transport_explain_stall(const SimTransport *t, GString *out);
void sim_transport_stats(const SimTransport *t, SimTransportStats *out);
void sim_transport_channel_stats(const SimTransport *t, SimChannelId c,
                                 SimChannelStats *out);

/* The time rule every transport shares: bytes at `rate` (payload bytes/s,
 * > 0) in whole picoseconds, rounded up so that nothing beats the rate.
 * One rounding (bytes x 10^12 is exact below 9007 bytes), so a packet of
 * 1502 bytes at 12.5 GB/s takes exactly 120160 ps. */
static inline SimTime sim_serialize_ps(double bytes, double rate)
{
  double ps = bytes * 1e12 / rate;
  SimTime t;

  /* past the horizon: a time the engine refuses, not a wrapped one */
  if (!(ps < (double)SIM_TIME_HORIZON))
    return SIM_TIME_HORIZON + 1;
  t = (SimTime)ps;
  return (double)t < ps ? t + 1 : t;
}

/* The rate cap of path i of a transfer (its weight's share of the
 * transfer's cap), G_MAXDOUBLE for none. */
static inline double sim_transfer_path_cap(const SimTransfer *x, guint32 i)
{
  if (x->cap_Bps <= 0)
    return G_MAXDOUBLE;
  return x->weights ? x->cap_Bps * x->weights[i] : x->cap_Bps;
}

/* Bytes of share i of a transfer split by weights: rounded shares, each
 * at most what the earlier ones left, the last taking what remains, so
 * that they sum to `bytes` exactly. */
guint64 sim_transfer_share(const SimTransfer *x, guint32 i);

/* The same in a loop over the paths in order: *given holds what the
 * earlier shares took (0 before the first) and gains this one's, so that
 * a transfer's shares cost one pass, not one pass each. */
guint64 sim_transfer_share_next(const SimTransfer *x, guint32 i,
                                guint64 *given);

/* The most channels a path set's union may hold (sim_transfer_union):
 * every path of a set at its longest. */
#define SIM_UNION_MAX_HOPS (SIM_PATHSET_MAX * SIM_PATH_MAX_HOPS)

/* sim_transfer_union's result and scratch, kept by a transport: ch[0..n)
 * and w[0..n) (SIM_UNION_MAX_HOPS each), and slot_of, an entry a channel
 * of the fabric, SIM_NONE between calls. */
typedef struct {
  guint32 *slot_of;
  SimChannelId *ch;
  double *w;
} SimUnion;

void sim_union_init(SimUnion *u, const SimFabric *f);
void sim_union_clear(SimUnion *u);

/* A transfer over several paths as the fabric carries it: its data split
 * in fixed shares (NVLink interleaves a GPU's traffic over its links by
 * address; NCCL cuts each chunk evenly over a connection's queue pairs),
 * so the transfer moves at one rate r, share i at f_i r (f_i its bytes
 * over the transfer's: sim_transfer_share).  Fills u->ch[0..n) with the
 * channels its paths cross, each once, in the order first met, and
 * u->w[k] with the wire bytes ch[k] carries per payload byte of the whole
 * transfer: the sum over the crossings of ch[k] of f_i times the wire
 * ratio of the transfer's size (its copies not counted).  Returns n, and
 * in *lat the latest path's latency (sim_paths_latency_ps). */
guint32 sim_transfer_union(const SimTransport *t, const SimTransfer *x,
                           SimUnion *u, SimTime *lat);

/* Wire bytes per payload byte on c for `bytes` under t's hook. */
static inline double sim_transport_wire_ratio(const SimTransport *t,
                                              SimChannelId c, guint64 bytes)
{
  if (!t->wire.fn || bytes == 0)
    return 1.0;
  return t->wire.fn(t->wire.ctx, c, bytes);
}

/* For transport implementations: sets up the base of a zeroed transport
 * (its ops, engine and finalized fabric). */
void sim_transport_init(SimTransport *t, const SimTransportOps *ops,
                        SimEngine *engine, const SimFabric *fabric);

/* For transport implementations: counts a transfer done and calls the
 * completion function. */
void sim_transport_finish(SimTransport *t, guint64 tag);

#endif /* SIM_TRANSPORT_H */
