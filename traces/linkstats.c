/* Per-link utilization CSV; see traces/linkstats.h.  Numbers are written
 * with printf (libcsv would quote them); text fields go through libcsv's
 * quoting when they hold a comma, quote or line break (traces/csvtext.h). */
#include "traces/linkstats.h"

#include "traces/csvtext.h"
#include "traces/output.h"

char *trc_links_csv(const TopoSystem *sys, const SimTransport *t, SimTime end,
                    gboolean all)
{
  const SimFabric *f = topo_system_fabric(sys);
  GString *s = g_string_new("channel,src,dst,link,rate_GBps,payload_bytes,"
                            "wire_bytes,busy_us,busy_fraction,utilization,"
                            "peak_flows\n");
  double run_s = sim_time_to_s(end);

  g_assert(end > 0);
  for (SimChannelId c = 0; c < sim_fabric_n_channels(f); c++) {
    const SimChannel *ch = sim_fabric_channel(f, c);
    SimChannelStats st;

    sim_transport_channel_stats(t, c, &st);
    if (!all && st.payload_bytes == 0 && st.peak_flows == 0)
      continue;
    trc_csv_append_channel(s, f, c);
    g_string_append_c(s, ',');
    trc_csv_append_text(s, topo_channel_link(sys, c)->name);
    g_string_append_printf(s, ",%.6f,%.0f,%.0f,%.6f,%.6f,%.6f,%u\n",
                           ch->rate_Bps / 1e9, st.payload_bytes, st.wire_bytes,
                           sim_time_to_us(st.busy_ps),
                           sim_time_to_s(st.busy_ps) / run_s,
                           st.wire_bytes / ch->rate_Bps / run_s, st.peak_flows);
  }
  return g_string_free(s, FALSE);
}

gboolean trc_links_csv_write(const char *path, const TopoSystem *sys,
                             const SimTransport *t, SimTime end, gboolean all,
                             GError **error)
{
  return trc_write_text(path, trc_links_csv(sys, t, end, all), error);
}

typedef struct {
  SimChannelId c;
  double util;
} Hot;

static int cmp_hot(const void *a, const void *b)
{
  const Hot *x = a, *y = b;

  if (x->util != y->util)
    return x->util > y->util ? -1 : 1;
  return x->c < y->c ? -1 : x->c > y->c;
}

char *trc_links_hottest(const TopoSystem *sys, const SimTransport *t,
                        SimTime end, guint n)
{
  const SimFabric *f = topo_system_fabric(sys);
  g_autoptr(GArray) hot = g_array_new(FALSE, FALSE, sizeof(Hot));
  GString *s = g_string_new("# hottest links:");
  double run_s = sim_time_to_s(end);

  g_assert(end > 0);
  for (SimChannelId c = 0; c < sim_fabric_n_channels(f); c++) {
    SimChannelStats st;
    Hot h = {c, 0};

    sim_transport_channel_stats(t, c, &st);
    if (st.wire_bytes <= 0)
      continue;
    h.util = st.wire_bytes / sim_fabric_channel(f, c)->rate_Bps / run_s;
    g_array_append_val(hot, h);
  }
  g_array_sort(hot, cmp_hot);
  if (hot->len == 0)
    g_string_append(s, " none carried bytes");
  for (guint i = 0; i < MIN(n, hot->len); i++) {
    const Hot *h = &g_array_index(hot, Hot, i);
    const SimChannel *ch = sim_fabric_channel(f, h->c);

    g_string_append_printf(s, "%s %s->%s %s %.1f%% utilized", i ? "," : "",
                           sim_fabric_node_name(f, ch->src),
                           sim_fabric_node_name(f, ch->dst),
                           topo_channel_link(sys, h->c)->name, 100.0 * h->util);
  }
  g_string_append_c(s, '\n');
  return g_string_free(s, FALSE);
}
