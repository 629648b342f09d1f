/* Transports over a real system (a DGX H100) and the per-link utilization
 * CSV: NVLink spraying over the four NVSwitches as a path set, wire
 * overheads from the link models, an incast that the flow transport
 * shares and the analytical one does not, and the report read back with
 * libcsv; the per-port packet report and queue samples (traces/portstats.h)
 * from given counters and from a packet run. */
#include <csv.h>
#include <glib/gstdio.h>
#include <string.h>

#include "sim/dag.h"
#include "tests/suites.h"
#include "topologies/system.h"
#include "traces/linkstats.h"
#include "traces/portstats.h"

#define GIB (G_GUINT64_CONSTANT(1) << 30)

typedef struct {
  TopoSystem *sys;
  SimEngine *engine;
  SimTransport *t;
  SimDag *dag;
  SimPathSet ps[8]; /* GPU g -> GPU 0 */
  SimTime end;
} Box;

static void box_init(Box *b, gboolean flow)
{
  g_autoptr(GError) error = NULL;

  b->sys = topo_system_load_builtin("server:dgx-h100", &error);
  ck_assert_msg(b->sys != NULL, "%s", error ? error->message : "");
  b->engine = sim_engine_new();
  b->t = flow ? sim_flow_new(b->engine, topo_system_fabric(b->sys))
              : sim_analytical_new(b->engine, topo_system_fabric(b->sys));
  if (flow)
    sim_flow_set_checking(b->t, TRUE);
  sim_transport_set_wire(b->t, topo_wire_ratio, b->sys);
  b->dag = sim_dag_new(b->engine, b->t);
  for (guint32 g = 1; g < 8; g++)
    ck_assert(topo_route(b->sys, topo_gpu(b->sys, 0, g), topo_gpu(b->sys, 0, 0),
                         g, NULL, &b->ps[g], &error));
}

static void box_clear(Box *b)
{
  sim_dag_free(b->dag);
  sim_transport_free(b->t);
  sim_engine_free(b->engine);
  topo_system_free(b->sys);
}

static void on_end(void *ctx, guint64 user, SimTime now)
{
  (void)user;
  ((Box *)ctx)->end = MAX(((Box *)ctx)->end, now);
}

static void send_to_0(Box *b, guint32 g, guint64 bytes)
{
  SimTaskSpec s = {.bytes = bytes,
                   .paths = b->ps[g].path,
                   .weights = b->ps[g].weight,
                   .n_paths = b->ps[g].n,
                   .stream = SIM_NONE,
                   .done = on_end,
                   .ctx = b};
  sim_dag_add(b->dag, &s, NULL, 0);
}

/* One GPU to another: sprayed over the 4 NVSwitches (18 NVLink4 links),
 * the same time in both transports, below the NVLink data rate
 * (18 x 25 GB/s) by the packet overheads only. */
START_TEST(test_nvlink_pair)
{
  SimTime t[2];

  for (guint k = 0; k < 2; k++) {
    Box b = {0};
    box_init(&b, k == 0);
    ck_assert_uint_eq(b.ps[1].n, 4);
    send_to_0(&b, 1, GIB);
    sim_engine_run(b.engine);
    t[k] = b.end;
    box_clear(&b);
  }
  ck_assert_uint_eq(t[0], t[1]);
  {
    double GBps = (double)GIB / sim_time_to_s(t[0]) / 1e9;
    ck_assert_msg(GBps < 450.0 && GBps > 380.0, "%.2f GB/s", GBps);
  }
}
END_TEST

/* Seven GPUs into GPU 0 at once: its 18 links are shared seven ways, so
 * the flow transport takes about 7x the single transfer; the analytical
 * one ignores contention.  The report shows GPU 0's ingress carrying all
 * 7 GiB, at most at its rate. */
START_TEST(test_incast_and_report)
{
  SimTime one, seven[2];
  guint32 n_channels = 0;
  g_autofree char *csv = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;

  {
    Box b = {0};
    box_init(&b, TRUE);
    send_to_0(&b, 1, GIB);
    sim_engine_run(b.engine);
    one = b.end;
    box_clear(&b);
  }
  for (guint k = 0; k < 2; k++) {
    Box b = {0};
    box_init(&b, k == 0);
    for (guint32 g = 1; g < 8; g++)
      send_to_0(&b, g, GIB);
    sim_engine_run(b.engine);
    seven[k] = b.end;
    if (k == 0) {
      n_channels = sim_fabric_n_channels(topo_system_fabric(b.sys));
      csv = trc_links_csv(b.sys, b.t, b.end, FALSE);
      path = g_build_filename(g_get_tmp_dir(), "ifsim-links-test.csv", NULL);
      ck_assert(trc_links_csv_write(path, b.sys, b.t, b.end, TRUE, &error));
      ck_assert(!trc_links_csv_write("/nonexistent-dir/x.csv", b.sys, b.t,
                                     b.end, FALSE, &error));
    }
    box_clear(&b);
  }
  ck_assert_uint_eq(seven[1], one);
  ck_assert_msg(sim_time_to_s(seven[0]) > 6.9 * sim_time_to_s(one) &&
                    sim_time_to_s(seven[0]) < 7.01 * sim_time_to_s(one),
                "%g vs %g", sim_time_to_s(seven[0]), sim_time_to_s(one));
  ck_assert(g_str_has_prefix(csv, "channel,src,dst,link,rate_GBps,"
                                  "payload_bytes,wire_bytes,busy_us,"
                                  "busy_fraction,utilization,peak_flows\n"));
  {
    /* Rows into GPU 0 (from the NVSwitches) carry 7 GiB in all. */
    double into0 = 0;
    gchar **lines = g_strsplit(csv, "\n", -1);
    for (guint i = 1; lines[i] && *lines[i]; i++) {
      gchar **f = g_strsplit(lines[i], ",", -1);
      ck_assert_uint_eq(g_strv_length(f), 11);
      ck_assert(g_ascii_strtod(f[9], NULL) <= 1.0 + 1e-9);
      if (g_str_equal(f[2], "s0.gpu0"))
        into0 += g_ascii_strtod(f[5], NULL);
      g_strfreev(f);
    }
    g_strfreev(lines);
    ck_assert(into0 == 7.0 * (double)GIB);
  }
  {
    /* The file (all channels) parses as CSV: same columns every row. */
    g_autofree char *text = NULL;
    gsize len;
    struct csv_parser p;
    guint rows = 0;
    ck_assert(g_file_get_contents(path, &text, &len, NULL));
    ck_assert_int_eq(csv_init(&p, CSV_STRICT), 0);
    ck_assert_uint_eq(csv_parse(&p, text, len, NULL, NULL, NULL), len);
    csv_fini(&p, NULL, NULL, NULL);
    csv_free(&p);
    for (const char *c = text; *c; c++)
      rows += *c == '\n';
    ck_assert_uint_eq(rows - 1, n_channels);
    g_unlink(path);
  }
}
END_TEST

/* The text parses as strict CSV with `cols` fields on every line; returns
 * the number of lines. */
static guint csv_lines(const char *text, guint cols)
{
  struct csv_parser p;
  gsize len = strlen(text);
  guint lines = 0;

  ck_assert_int_eq(csv_init(&p, CSV_STRICT), 0);
  ck_assert_uint_eq(csv_parse(&p, text, len, NULL, NULL, NULL), len);
  csv_fini(&p, NULL, NULL, NULL);
  csv_free(&p);
  {
    g_auto(GStrv) rows = g_strsplit(text, "\n", -1);
    for (guint i = 0; rows[i] && *rows[i]; i++, lines++) {
      g_auto(GStrv) f = g_strsplit(rows[i], ",", -1);
      ck_assert_uint_eq(g_strv_length(f), cols);
    }
  }
  return lines;
}

/* Given counters: a row per channel that carried packets or whose link
 * saw pauses; pauses_sent is the reverse channel's pauses_received; times
 * in us; utilization = wire bytes / (rate x run time). */
START_TEST(test_ports_csv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TopoSystem) sys = topo_system_load_builtin("server:dgx-h100",
                                                       &error);
  const SimFabric *f = topo_system_fabric(sys);
  guint32 n = sim_fabric_n_channels(f);
  g_autofree SimPortStats *st = g_new0(SimPortStats, n);
  g_autofree char *csv = NULL;
  g_autofree char *row0 = NULL;
  g_autofree char *row1 = NULL;
  SimTime end = SIM_US(10);
  double rate = sim_fabric_channel(f, 0)->rate_Bps;

  st[0] = (SimPortStats){.packets = 10,
                         .payload_bytes = 2560,
                         .wire_bytes = 2880,
                         .drops = 1,
                         .ecn_marks = 2,
                         .pauses = 3,
                         .paused_ps = SIM_NS(1500),
                         .credit_stalls = 4,
                         .credit_stall_ps = SIM_NS(250),
                         .max_queue_bytes = 512,
                         .busy_ps = SIM_US(1)};
  st[1].pauses = 5; /* channel 0's reverse: paused, carried nothing */
  st[2].busy_ps = SIM_US(1); /* nothing counted: no row */
  csv = trc_ports_csv(f, st, end);
  row0 = g_strdup_printf("0,%s,%s,10,2560,2880,1,2,3,5,1.500000,4,0.250000,"
                         "512,1.000000,%.6f\n",
                         sim_fabric_node_name(f, sim_fabric_channel(f, 0)->src),
                         sim_fabric_node_name(f, sim_fabric_channel(f, 0)->dst),
                         2880 / rate / 1e-5);
  row1 = g_strdup_printf("1,%s,%s,0,0,0,0,0,5,3,0.000000,0,0.000000,0,"
                         "0.000000,0.000000\n",
                         sim_fabric_node_name(f, sim_fabric_channel(f, 1)->src),
                         sim_fabric_node_name(f, sim_fabric_channel(f, 1)->dst));
  ck_assert(g_str_has_prefix(
      csv, "channel,src,dst,packets,payload_bytes,wire_bytes,drops,ecn_marks,"
           "pauses_received,pauses_sent,paused_us,credit_stalls,"
           "credit_stall_us,max_queue_bytes,busy_us,utilization\n"));
  ck_assert_msg(strstr(csv, row0) != NULL, "%s lacks %s", csv, row0);
  ck_assert_msg(strstr(csv, row1) != NULL, "%s lacks %s", csv, row1);
  ck_assert_uint_eq(csv_lines(csv, 16), 3);
}
END_TEST

START_TEST(test_queue_samples_csv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TopoSystem) sys = topo_system_load_builtin("server:dgx-h100",
                                                       &error);
  const SimFabric *f = topo_system_fabric(sys);
  SimQueueSample q[2] = {{.t = SIM_NS(500), .channel = 1, .queue_bytes = 288},
                         {.t = SIM_NS(1500), .channel = 0, .queue_bytes = 0}};
  g_autofree char *csv = trc_queue_samples_csv(f, q, 2);
  g_autofree char *want = g_strdup_printf(
      "time_us,channel,src,dst,queue_bytes\n0.500000,1,%s,%s,288\n"
      "1.500000,0,%s,%s,0\n",
      sim_fabric_node_name(f, sim_fabric_channel(f, 1)->src),
      sim_fabric_node_name(f, sim_fabric_channel(f, 1)->dst),
      sim_fabric_node_name(f, sim_fabric_channel(f, 0)->src),
      sim_fabric_node_name(f, sim_fabric_channel(f, 0)->dst));
  g_autofree char *none = trc_queue_samples_csv(f, NULL, 0);

  ck_assert_str_eq(csv, want);
  ck_assert_str_eq(none, "time_us,channel,src,dst,queue_bytes\n");
}
END_TEST

/* A packet run of GPU 1 to GPU 0 over the NVSwitches: the rows into GPU 0
 * carry the whole transfer, no port is busier than the run, and queue
 * samples were taken. */
START_TEST(test_ports_of_packet_run)
{
  Box b = {0};
  g_autoptr(GError) error = NULL;
  g_autofree char *csv = NULL;
  g_autofree char *samples = NULL;
  double into0 = 0;

  b.sys = topo_system_load_builtin("server:dgx-h100", &error);
  ck_assert_msg(b.sys != NULL, "%s", error ? error->message : "");
  b.engine = sim_engine_new();
  b.t = sim_packet_new(b.engine, topo_system_fabric(b.sys), topo_packet_link,
                       b.sys);
  sim_transport_set_wire(b.t, topo_wire_ratio, b.sys);
  sim_packet_set_sampling(b.t, SIM_NS(100));
  b.dag = sim_dag_new(b.engine, b.t);
  ck_assert(topo_route(b.sys, topo_gpu(b.sys, 0, 1), topo_gpu(b.sys, 0, 0), 1,
                       NULL, &b.ps[1], &error));
  send_to_0(&b, 1, 1u << 20);
  sim_engine_run(b.engine);
  ck_assert_uint_gt(b.end, 0);
  csv = trc_ports_csv_transport(b.t, b.end);
  samples = trc_queue_samples_csv_transport(b.t);
  ck_assert_uint_eq(csv_lines(csv, 16), 1 + 2 * b.ps[1].n);
  {
    g_auto(GStrv) lines = g_strsplit(csv, "\n", -1);
    for (guint i = 1; lines[i] && *lines[i]; i++) {
      g_auto(GStrv) fl = g_strsplit(lines[i], ",", -1);
      ck_assert(g_ascii_strtod(fl[15], NULL) <= 1.0 + 1e-9);
      ck_assert(g_ascii_strtod(fl[14], NULL) <= sim_time_to_us(b.end));
      if (g_str_equal(fl[2], "s0.gpu0"))
        into0 += g_ascii_strtod(fl[4], NULL);
    }
  }
  ck_assert(into0 == (double)(1u << 20));
  ck_assert_uint_gt(csv_lines(samples, 5), 1);
  box_clear(&b);
}
END_TEST

Suite *suite_traces(void)
{
  Suite *s = suite_create("traces");
  TCase *tc = tcase_create("linkstats");

  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_nvlink_pair);
  tcase_add_test(tc, test_incast_and_report);
  suite_add_tcase(s, tc);
  tc = tcase_create("portstats");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_ports_csv);
  tcase_add_test(tc, test_queue_samples_csv);
  tcase_add_test(tc, test_ports_of_packet_run);
  suite_add_tcase(s, tc);
  return s;
}
