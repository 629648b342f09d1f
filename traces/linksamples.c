/* TrcLinkSampler; see traces/linksamples.h.  Samples are stored sparse:
 * per interval, the channels that carried bytes in it and how many, so
 * memory follows the traffic, not channels x intervals. */
#include "traces/linksamples.h"

#include <string.h>

#include "traces/csvtext.h"

typedef struct {
  SimChannelId ch;
  double wire_bytes;
} Entry;

struct TrcLinkSampler {
  SimEngine *engine;
  const SimTransport *t;
  SimTime interval, first;
  SimKind kind;
  guint32 n_ch;
  double *last;    /* [n_ch] wire bytes at the previous sample */
  double *total;   /* [n_ch] over all intervals */
  GArray *entries; /* Entry */
  GArray *starts;  /* guint: first entry of each interval, + the end */
  gboolean truncated; /* stopped at TRC_LINK_SAMPLES_MAX_INTERVALS */
};

static void sample(SimEngine *e, void *ctx, guint64 data)
{
  TrcLinkSampler *s = ctx;

  (void)data;
  for (SimChannelId c = 0; c < s->n_ch; c++) {
    SimChannelStats st;
    Entry en = {.ch = c};

    sim_transport_channel_stats(s->t, c, &st);
    en.wire_bytes = st.wire_bytes - s->last[c];
    if (en.wire_bytes > 0) {
      s->last[c] = st.wire_bytes;
      s->total[c] += en.wire_bytes;
      g_array_append_val(s->entries, en);
    }
  }
  g_array_append_val(s->starts, s->entries->len);
  /* Nothing left to run: stop, so the engine runs dry. */
  if (s->t->in_flight == 0 && sim_engine_pending(e) == 0)
    return;
  /* an interval far below the run's length (1 ps against milliseconds)
   * would read every channel 10^9 times: stop sampling, and say so */
  if (s->starts->len > TRC_LINK_SAMPLES_MAX_INTERVALS) {
    s->truncated = TRUE;
    return;
  }
  sim_engine_schedule_in(e, s->interval, s->kind, 0);
}

TrcLinkSampler *trc_link_sampler_new(SimEngine *e, const SimTransport *t,
                                     SimTime interval_ps)
{
  TrcLinkSampler *s = g_new0(TrcLinkSampler, 1);
  guint zero = 0;

  g_assert(interval_ps > 0);
  s->engine = e;
  s->t = t;
  s->interval = interval_ps;
  s->first = sim_engine_now(e);
  s->n_ch = sim_fabric_n_channels(t->fabric);
  s->last = g_new0(double, s->n_ch);
  s->total = g_new0(double, s->n_ch);
  s->entries = g_array_new(FALSE, FALSE, sizeof(Entry));
  s->starts = g_array_new(FALSE, FALSE, sizeof(guint));
  g_array_append_val(s->starts, zero);
  s->kind = sim_engine_register(e, "trc.link_sample", sample, s);
  sim_engine_schedule_in(e, interval_ps, s->kind, 0);
  return s;
}

void trc_link_sampler_free(TrcLinkSampler *s)
{
  if (!s)
    return;
  g_free(s->last);
  g_free(s->total);
  g_array_free(s->entries, TRUE);
  g_array_free(s->starts, TRUE);
  g_free(s);
}

gboolean trc_link_sampler_truncated(const TrcLinkSampler *s)
{
  return s->truncated;
}

guint trc_link_sampler_n_samples(const TrcLinkSampler *s)
{
  return s->starts->len - 1;
}

static gint cmp_hot(gconstpointer a, gconstpointer b, gpointer total)
{
  const double *sort_total = total;
  SimChannelId x = *(const SimChannelId *)a, y = *(const SimChannelId *)b;

  if (sort_total[x] != sort_total[y])
    return sort_total[x] > sort_total[y] ? -1 : 1;
  return x < y ? -1 : x > y;
}

SimChannelId *trc_link_sampler_hottest(const TrcLinkSampler *s, guint32 k,
                                       guint32 *n)
{
  SimChannelId *hot = g_new(SimChannelId, MAX(s->n_ch, 1));
  guint32 m = 0;

  for (SimChannelId c = 0; c < s->n_ch; c++)
    if (s->total[c] > 0)
      hot[m++] = c;
  g_qsort_with_data(hot, (gint)m, sizeof *hot, cmp_hot, s->total);
  *n = k == 0 ? m : MIN(m, k);
  return hot;
}

/* Calls fn for each (interval, hot channel) with its utilization. */
typedef void (*EachFn)(void *ctx, SimTime t0, SimChannelId c, double u);

static void each_sample(const TrcLinkSampler *s, const SimFabric *f,
                        SimTime end, guint32 k, EachFn fn, void *ctx)
{
  guint32 n;
  g_autofree SimChannelId *hot = trc_link_sampler_hottest(s, k, &n);
  g_autofree guint32 *rank = g_new(guint32, MAX(s->n_ch, 1));
  g_autofree double *u = g_new0(double, MAX(n, 1));

  for (SimChannelId c = 0; c < s->n_ch; c++)
    rank[c] = G_MAXUINT32;
  for (guint32 i = 0; i < n; i++)
    rank[hot[i]] = i;
  for (guint i = 0; i + 1 < s->starts->len; i++) {
    SimTime t0 = s->first + (SimTime)i * s->interval;
    SimTime t1 = MIN(t0 + s->interval, end);
    guint a = g_array_index(s->starts, guint, i);
    guint b = g_array_index(s->starts, guint, i + 1);

    if (t1 <= t0)
      break; /* at or past the run's end: carried nothing */
    memset(u, 0, n * sizeof *u);
    for (guint j = a; j < b; j++) {
      const Entry *en = &g_array_index(s->entries, Entry, j);
      if (rank[en->ch] != G_MAXUINT32)
        u[rank[en->ch]] =
            en->wire_bytes /
            (sim_fabric_channel(f, en->ch)->rate_Bps * sim_time_to_s(t1 - t0));
    }
    for (guint32 r = 0; r < n; r++)
      fn(ctx, t0, hot[r], u[r]);
  }
}

typedef struct {
  GString *out;
  const TopoSystem *sys;
} CsvCtx;

static void csv_row(void *ctx, SimTime t0, SimChannelId c, double u)
{
  CsvCtx *x = ctx;
  char num[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append_printf(
      x->out, "%s,",
      g_ascii_formatd(num, sizeof num, "%.6f", sim_time_to_us(t0)));
  trc_csv_append_channel(x->out, topo_system_fabric(x->sys), c);
  g_string_append_c(x->out, ',');
  trc_csv_append_text(x->out, topo_channel_link(x->sys, c)->name);
  g_string_append_printf(x->out, ",%s\n",
                         g_ascii_formatd(num, sizeof num, "%.6f", u));
}

char *trc_link_samples_csv(const TrcLinkSampler *s, const TopoSystem *sys,
                           SimTime end, guint32 k)
{
  CsvCtx x = {g_string_new("time_us,channel,src,dst,link,utilization\n"), sys};

  g_assert(end > 0);
  each_sample(s, topo_system_fabric(sys), end, k, csv_row, &x);
  return g_string_free(x.out, FALSE);
}

typedef struct {
  TrcTimeline *tl;
  const TopoSystem *sys;
  guint32 pid;
} TlCtx;

static char *counter_name(const TopoSystem *sys, SimChannelId c)
{
  const SimFabric *f = topo_system_fabric(sys);
  const SimChannel *ch = sim_fabric_channel(f, c);

  return g_strdup_printf("%s->%s %s", sim_fabric_node_name(f, ch->src),
                         sim_fabric_node_name(f, ch->dst),
                         topo_channel_link(sys, c)->name);
}

static void tl_point(void *ctx, SimTime t0, SimChannelId c, double u)
{
  TlCtx *x = ctx;
  g_autofree char *name = counter_name(x->sys, c);

  trc_timeline_counter(x->tl, x->pid, name, t0, u);
}

void trc_link_samples_timeline(const TrcLinkSampler *s, const TopoSystem *sys,
                               SimTime end, guint32 k, TrcTimeline *tl,
                               guint32 pid)
{
  TlCtx x = {tl, sys, pid};
  guint32 n;
  g_autofree SimChannelId *hot = trc_link_sampler_hottest(s, k, &n);

  each_sample(s, topo_system_fabric(sys), end, k, tl_point, &x);
  for (guint32 i = 0; i < n; i++) {
    g_autofree char *name = counter_name(sys, hot[i]);
    trc_timeline_counter(tl, pid, name, end, 0);
  }
}
