/* Per-port packet statistics and queue samples as CSV; see
 * traces/portstats.h.  Numbers are written with printf, names through the
 * shared CSV quoting (traces/csvtext.h), as the link report does. */
#include "traces/portstats.h"

#include "traces/csvtext.h"

char *trc_ports_csv(const SimFabric *f, const SimPortStats *stats, SimTime end)
{
  GString *s = g_string_new(
      "channel,src,dst,packets,payload_bytes,wire_bytes,drops,ecn_marks,"
      "pauses_received,pauses_sent,paused_us,credit_stalls,credit_stall_us,"
      "max_queue_bytes,busy_us,utilization\n");
  double run_s = sim_time_to_s(end);

  g_assert(end > 0);
  for (SimChannelId c = 0; c < sim_fabric_n_channels(f); c++) {
    const SimPortStats *st = &stats[c];
    guint64 sent = stats[sim_channel_reverse(c)].pauses;

    if (st->packets == 0 && st->pauses == 0 && sent == 0)
      continue;
    trc_csv_append_channel(s, f, c);
    g_string_append_printf(
        s,
        ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
        ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
        ",%" G_GUINT64_FORMAT ",%.6f,%" G_GUINT64_FORMAT ",%.6f"
        ",%" G_GUINT64_FORMAT ",%.6f,%.6f\n",
        st->packets, st->payload_bytes, st->wire_bytes, st->drops,
        st->ecn_marks, st->pauses, sent, sim_time_to_us(st->paused_ps),
        st->credit_stalls, sim_time_to_us(st->credit_stall_ps),
        st->max_queue_bytes, sim_time_to_us(st->busy_ps),
        (double)st->wire_bytes / sim_fabric_channel(f, c)->rate_Bps / run_s);
  }
  return g_string_free(s, FALSE);
}

char *trc_ports_csv_transport(const SimTransport *t, SimTime end)
{
  guint32 n = sim_fabric_n_channels(t->fabric);
  g_autofree SimPortStats *stats = g_new(SimPortStats, MAX(n, 1));

  g_assert(sim_transport_is_packet(t));
  for (SimChannelId c = 0; c < n; c++)
    sim_packet_port_stats(t, c, &stats[c]);
  return trc_ports_csv(t->fabric, stats, end);
}

char *trc_queue_samples_csv(const SimFabric *f, const SimQueueSample *s,
                            gsize n)
{
  GString *out = g_string_new("time_us,channel,src,dst,queue_bytes\n");

  for (gsize i = 0; i < n; i++) {
    g_string_append_printf(out, "%.6f,", sim_time_to_us(s[i].t));
    trc_csv_append_channel(out, f, s[i].channel);
    g_string_append_printf(out, ",%" G_GUINT64_FORMAT "\n", s[i].queue_bytes);
  }
  return g_string_free(out, FALSE);
}

char *trc_queue_samples_csv_transport(const SimTransport *t)
{
  gsize n = 0;
  const SimQueueSample *s;

  g_assert(sim_transport_is_packet(t));
  s = sim_packet_samples(t, &n);
  return trc_queue_samples_csv(t->fabric, s, n);
}
