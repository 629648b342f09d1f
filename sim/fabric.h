/* SimFabric: the graph transports move bytes over.
 *
 * Nodes are devices (GPUs, CPUs, NICs, switches); channels are the
 * unidirectional halves of links, each with its data rate, latency and the
 * number of physical links it bundles.  The engine layer knows nothing of
 * what a node or a link is: `kind`, `tech` and `model` are numbers the
 * builder (topologies/) gives meaning to.
 *
 * Build, then finalize: add nodes and links in any order, then
 * sim_fabric_finalize sorts each node's outgoing channels into one array
 * (CSR), after which the fabric is read-only but for links' rates
 * (sim_fabric_set_link_rate).  Links always add two
 * channels, ids 2i and 2i + 1, each the other's reverse. */
#ifndef SIM_FABRIC_H
#define SIM_FABRIC_H

#include <glib.h>
#include <stdint.h>

#include "sim/time.h"

typedef guint32 SimNodeId;
typedef guint32 SimChannelId;

#define SIM_NONE UINT32_MAX

enum {
  SIM_NODE_ENDPOINT = 1u << 0, /* sources and sinks traffic */
  SIM_NODE_FORWARDS = 1u << 1, /* passes traffic between its channels */
};

typedef struct {
  guint32 kind;      /* builder-defined */
  guint32 flags;     /* SIM_NODE_* */
  guint32 group;     /* builder-defined: server index, switch tier, ... */
  guint32 index;     /* builder-defined: index within the group */
  guint32 model;     /* builder-defined: device model id */
  guint32 name;      /* offset of the name in the fabric's string store */
  guint32 first_out; /* CSR: first outgoing channel (after finalize) */
  guint32 n_out;
  SimTime latency_ps; /* forwarding: from entering to leaving the node */
} SimNode;

typedef struct {
  SimNodeId src, dst;
  guint32 tech;    /* builder-defined: link model id */
  guint32 width;   /* physical links bundled in this channel */
  double rate_Bps; /* data rate of the whole bundle, bytes/s */
  SimTime latency_ps;
} SimChannel;

typedef struct SimFabric SimFabric;

SimFabric *sim_fabric_new(void);
void sim_fabric_free(SimFabric *f);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SimFabric, sim_fabric_free)

SimNodeId sim_fabric_add_node(SimFabric *f, guint32 kind, guint32 flags,
                              guint32 group, guint32 index, guint32 model,
                              const char *name);

/* Adds a link of `width` bundled physical links between a and b; returns
 * the channel a -> b (b -> a is its reverse). */
SimChannelId sim_fabric_add_link(SimFabric *f, SimNodeId a, SimNodeId b,
                                 guint32 tech, guint32 width, double rate_Bps,
                                 SimTime latency_ps);

/* Changes a node's group (before finalize): builders that learn a
 * switch's tier only after adding it. */
void sim_fabric_set_node_group(SimFabric *f, SimNodeId id, guint32 group);

/* Sets the time a node takes to pass traffic from one channel to another
 * (a switch's port-to-port latency); 0 by default.  Paths count it at
 * every node they cross, not at their ends. */
void sim_fabric_set_node_latency(SimFabric *f, SimNodeId id,
                                 SimTime latency_ps);

/* Changes a link's bundle (both its channels): `width` physical links
 * left carrying `rate_Bps` together; 0 and 0 for a link that is down,
 * which routes must not take.  For faults (topologies/faults.c), before
 * any transport runs over the fabric; allowed after finalize, since the
 * channel lists do not depend on it. */
void sim_fabric_set_link_rate(SimFabric *f, SimChannelId c, guint32 width,
                              double rate_Bps);

/* Builds the per-node outgoing channel lists; the fabric is read-only
 * afterwards. */
void sim_fabric_finalize(SimFabric *f);

guint32 sim_fabric_n_nodes(const SimFabric *f);
guint32 sim_fabric_n_channels(const SimFabric *f);
const SimNode *sim_fabric_node(const SimFabric *f, SimNodeId id);
const SimChannel *sim_fabric_channel(const SimFabric *f, SimChannelId id);
const char *sim_fabric_node_name(const SimFabric *f, SimNodeId id);

static inline SimChannelId sim_channel_reverse(SimChannelId c)
{
  return c ^ 1u;
}

/* Outgoing channels of a node (after finalize); sets *n. */
const SimChannelId *sim_fabric_out(const SimFabric *f, SimNodeId node,
                                   guint32 *n);

/* The channel from a to b with the largest rate, or SIM_NONE. */
SimChannelId sim_fabric_find_channel(const SimFabric *f, SimNodeId a,
                                     SimNodeId b);

/* Bytes of memory the fabric holds, for reports and scale checks. */
gsize sim_fabric_memory_bytes(const SimFabric *f);

#endif /* SIM_FABRIC_H */
