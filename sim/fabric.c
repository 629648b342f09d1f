/* SimFabric: nodes, paired unidirectional channels, CSR adjacency; see
 * sim/fabric.h. */
#include "sim/fabric.h"

#include <string.h>

struct SimFabric {
  GArray *nodes;     /* SimNode */
  GArray *channels;  /* SimChannel; 2i and 2i + 1 are one link */
  GString *names;    /* NUL-separated node names */
  SimChannelId *out; /* CSR after finalize */
  gboolean finalized;
};

SimFabric *sim_fabric_new(void)
{
  SimFabric *f = g_new0(SimFabric, 1);

  f->nodes = g_array_new(FALSE, FALSE, sizeof(SimNode));
  f->channels = g_array_new(FALSE, FALSE, sizeof(SimChannel));
  f->names = g_string_new(NULL);
  return f;
}

void sim_fabric_free(SimFabric *f)
{
  if (!f)
    return;
  g_array_free(f->nodes, TRUE);
  g_array_free(f->channels, TRUE);
  g_string_free(f->names, TRUE);
  g_free(f->out);
  g_free(f);
}

SimNodeId sim_fabric_add_node(SimFabric *f, guint32 kind, guint32 flags,
                              guint32 group, guint32 index, guint32 model,
                              const char *name)
{
  SimNode n = {.kind = kind,
               .flags = flags,
               .group = group,
               .index = index,
               .model = model,
               .name = (guint32)f->names->len};

  g_assert(!f->finalized);
  g_assert(f->nodes->len < SIM_NONE && f->names->len < G_MAXUINT32 / 2);
  g_string_append_len(f->names, name, (gssize)strlen(name) + 1);
  g_array_append_val(f->nodes, n);
  return f->nodes->len - 1;
}

SimChannelId sim_fabric_add_link(SimFabric *f, SimNodeId a, SimNodeId b,
                                 guint32 tech, guint32 width, double rate_Bps,
                                 SimTime latency_ps)
{
  SimChannel ab = {.src = a,
                   .dst = b,
                   .tech = tech,
                   .width = width,
                   .rate_Bps = rate_Bps,
                   .latency_ps = latency_ps};
  SimChannel ba = ab;

  g_assert(!f->finalized);
  g_assert(a < f->nodes->len && b < f->nodes->len && a != b);
  g_assert(width > 0 && rate_Bps > 0);
  g_assert(f->channels->len < SIM_NONE - 2);
  ba.src = b;
  ba.dst = a;
  g_array_append_val(f->channels, ab);
  g_array_append_val(f->channels, ba);
  return f->channels->len - 2;
}

void sim_fabric_set_node_group(SimFabric *f, SimNodeId id, guint32 group)
{
  g_assert(!f->finalized && id < f->nodes->len);
  g_array_index(f->nodes, SimNode, id).group = group;
}

void sim_fabric_set_node_latency(SimFabric *f, SimNodeId id, SimTime latency_ps)
{
  g_assert(!f->finalized && id < f->nodes->len);
  g_array_index(f->nodes, SimNode, id).latency_ps = latency_ps;
}

void sim_fabric_set_link_rate(SimFabric *f, SimChannelId c, guint32 width,
                              double rate_Bps)
{
  g_assert(c < f->channels->len && rate_Bps >= 0);
  g_assert((width == 0) == (rate_Bps == 0));
  for (int i = 0; i < 2; i++) {
    SimChannel *ch = &g_array_index(f->channels, SimChannel, c ^ (guint32)i);
    ch->width = width;
    ch->rate_Bps = rate_Bps;
  }
}

void sim_fabric_finalize(SimFabric *f)
{
  SimNode *nodes = (SimNode *)f->nodes->data;
  const SimChannel *ch = (const SimChannel *)f->channels->data;
  guint32 n_nodes = f->nodes->len, n_ch = f->channels->len;
  guint32 *fill;

  g_assert(!f->finalized);
  for (guint32 i = 0; i < n_nodes; i++)
    nodes[i].n_out = 0;
  for (guint32 c = 0; c < n_ch; c++)
    nodes[ch[c].src].n_out++;
  for (guint32 i = 0, acc = 0; i < n_nodes; i++) {
    nodes[i].first_out = acc;
    acc += nodes[i].n_out;
  }
  f->out = g_new(SimChannelId, MAX(n_ch, 1));
  fill = g_new0(guint32, MAX(n_nodes, 1));
  /* Channels in id order per node: deterministic port numbering. */
  for (guint32 c = 0; c < n_ch; c++) {
    SimNode *n = &nodes[ch[c].src];
    f->out[n->first_out + fill[ch[c].src]++] = c;
  }
  g_free(fill);
  f->finalized = TRUE;
}

guint32 sim_fabric_n_nodes(const SimFabric *f)
{
  return f->nodes->len;
}

guint32 sim_fabric_n_channels(const SimFabric *f)
{
  return f->channels->len;
}

const SimNode *sim_fabric_node(const SimFabric *f, SimNodeId id)
{
  g_assert(id < f->nodes->len);
  return &g_array_index(f->nodes, SimNode, id);
}

const SimChannel *sim_fabric_channel(const SimFabric *f, SimChannelId id)
{
  g_assert(id < f->channels->len);
  return &g_array_index(f->channels, SimChannel, id);
}

const char *sim_fabric_node_name(const SimFabric *f, SimNodeId id)
{
  return f->names->str + sim_fabric_node(f, id)->name;
}

const SimChannelId *sim_fabric_out(const SimFabric *f, SimNodeId node,
                                   guint32 *n)
{
  const SimNode *nd = sim_fabric_node(f, node);

  g_assert(f->finalized);
  *n = nd->n_out;
  return f->out + nd->first_out;
}

SimChannelId sim_fabric_find_channel(const SimFabric *f, SimNodeId a,
                                     SimNodeId b)
{
  guint32 n;
  const SimChannelId *out = sim_fabric_out(f, a, &n);
  SimChannelId best = SIM_NONE;

  for (guint32 i = 0; i < n; i++) {
    const SimChannel *c = sim_fabric_channel(f, out[i]);
    if (c->dst == b && (best == SIM_NONE ||
                        c->rate_Bps > sim_fabric_channel(f, best)->rate_Bps))
      best = out[i];
  }
  return best;
}

gsize sim_fabric_memory_bytes(const SimFabric *f)
{
  return f->nodes->len * sizeof(SimNode) +
         f->channels->len * (sizeof(SimChannel) + sizeof(SimChannelId)) +
         f->names->allocated_len;
}
