/* Measurements against the models; see validate/calibrate.h. */
#include "validate/calibrate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/device.h"
#include "models/registry.h"
#include "collectives/nccl/nccl.h"
#include "sim/error.h"
#include "sim/route.h"
#include "sim/time.h"
#include "sim/units.h"
#include "validate/error.h"

/* --- the fit ------------------------------------------------------------- */

gboolean val_fit_line(const double *size_bytes, const double *time_us,
                      guint n, double *alpha_us, double *beta_GBps,
                      double *rms_rel, double *max_rel)
{
  double sw = 0, ss = 0, st = 0, sss = 0, sst = 0, a, b, den;
  gboolean distinct = FALSE;

  if (n == 0)
    return FALSE;
  for (guint i = 0; i < n; i++) {
    double w;

    if (!(time_us[i] > 0) || !(size_bytes[i] > 0))
      return FALSE;
    w = 1.0 / (time_us[i] * time_us[i]);
    sw += w;
    ss += w * size_bytes[i];
    st += w * time_us[i];
    sss += w * size_bytes[i] * size_bytes[i];
    sst += w * size_bytes[i] * time_us[i];
    distinct = distinct || size_bytes[i] != size_bytes[0];
  }
  den = sw * sss - ss * ss;
  if (distinct && den > 0) {
    b = (sw * sst - ss * st) / den;
    a = (st - b * ss) / sw;
  } else {
    a = -1; /* one size: through the origin */
    b = 0;
  }
  if (a < 0) {
    /* A latency below zero is no latency: fit through the origin. */
    a = 0;
    b = sst / sss;
  }
  if (!(b > 0))
    return FALSE;
  *alpha_us = a;
  *beta_GBps = 1e-3 / b; /* bytes per microsecond -> GB/s */
  *rms_rel = *max_rel = 0;
  for (guint i = 0; i < n; i++) {
    double r = (a + b * size_bytes[i] - time_us[i]) / time_us[i];

    *rms_rel += r * r;
    *max_rel = MAX(*max_rel, fabs(r));
  }
  *rms_rel = sqrt(*rms_rel / n);
  return TRUE;
}

/* --- endpoints ----------------------------------------------------------- */

/* Parses "gpuN", "sK.gpuN", "host", "sK.host" into server, gpu (or
 * G_MAXUINT32 for host). */
static gboolean parse_endpoint(const char *name, guint32 *server,
                               guint32 *gpu)
{
  guint64 v;
  const char *dot;

  *server = 0;
  if (name[0] == 's' && (dot = strchr(name, '.')) != NULL) {
    g_autofree char *num = g_strndup(name + 1, (gsize)(dot - name - 1));
    if (!g_ascii_string_to_unsigned(num, 10, 0, G_MAXUINT32 - 1, &v, NULL))
      return FALSE;
    *server = (guint32)v;
    name = dot + 1;
  }
  if (g_str_equal(name, "host")) {
    *gpu = G_MAXUINT32;
    return TRUE;
  }
  if (!g_str_has_prefix(name, "gpu") ||
      !g_ascii_string_to_unsigned(name + 3, 10, 0, G_MAXUINT32 - 1, &v, NULL))
    return FALSE;
  *gpu = (guint32)v;
  return TRUE;
}

/* The socket of `server` with the shortest route to `toward`. */
static SimNodeId nearest_host(const TopoSystem *sys, guint32 server,
                              SimNodeId toward)
{
  const SimFabric *f = topo_system_fabric(sys);
  SimNodeId best = SIM_NONE;
  SimTime best_lat = 0;

  for (SimNodeId n = 0; n < sim_fabric_n_nodes(f); n++) {
    const SimNode *node = sim_fabric_node(f, n);
    SimPathSet ps;
    SimTime lat;

    if (node->kind != TOPO_NODE_CPU || node->group != server)
      continue;
    if (toward == SIM_NONE)
      return n;
    if (!topo_route(sys, n, toward, 0, NULL, &ps, NULL))
      continue;
    lat = sim_path_latency_ps(f, &ps.path[0]);
    if (best == SIM_NONE || lat < best_lat)
      best = n, best_lat = lat;
  }
  return best;
}

static gboolean endpoint_node(const TopoSystem *sys, const char *name,
                              guint32 server, guint32 gpu, SimNodeId toward,
                              SimNodeId *out, GError **error)
{
  if (server >= topo_system_servers(sys) ||
      (gpu != G_MAXUINT32 && gpu >= topo_system_gpus_per_server(sys))) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_RANGE,
                "'%s' is not in system '%s' (%u server(s) of %u GPUs)", name,
                topo_system_name(sys), topo_system_servers(sys),
                topo_system_gpus_per_server(sys));
    return FALSE;
  }
  *out = gpu == G_MAXUINT32 ? nearest_host(sys, server, toward)
                            : topo_gpu(sys, server, gpu);
  if (*out == SIM_NONE) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_RANGE,
                "system '%s' has no CPU socket for '%s'", topo_system_name(sys),
                name);
    return FALSE;
  }
  return TRUE;
}

/* --- point-to-point prediction ------------------------------------------ */

typedef struct {
  double time_ps;
  const MdlLink *limit;
  guint hops;
  const MdlNic *nic;
  ValRouteModels route;
} P2pTime;

/* Notes link model l at rate r on a route: each model once, at its
 * slowest channel's rate. */
static void route_add(ValRouteModels *m, const MdlLink *l, double r)
{
  for (guint i = 0; i < m->n; i++)
    if (m->model[i] == l) {
      m->rate_Bps[i] = MIN(m->rate_Bps[i], r);
      return;
    }
  if (m->n < VAL_ROUTE_MODELS) {
    m->model[m->n] = l;
    m->rate_Bps[m->n++] = r;
  }
}

/* One transfer of `bytes` from a to b: the paths of its set in parallel,
 * each at its slowest channel's effective rate for its share. */
static gboolean p2p_time(const TopoSystem *sys, SimNodeId a, SimNodeId b,
                         guint64 bytes, MdlOp net_op, gboolean pcie_read,
                         P2pTime *out, GError **error)
{
  const SimFabric *f = topo_system_fabric(sys);
  SimPathSet ps;

  memset(out, 0, sizeof(*out));
  if (!topo_route(sys, a, b, 0, NULL, &ps, error))
    return FALSE;
  for (guint32 i = 0; i < ps.n; i++) {
    const SimPath *p = &ps.path[i];
    double share = ps.n > 1 ? ps.weight[i] : 1.0;
    guint64 part = (guint64)ceil((double)bytes * share);
    double rate = G_MAXDOUBLE, t;
    const MdlLink *limit = NULL;
    ValRouteModels route = {0};

    for (guint32 h = 0; h < p->n; h++) {
      const SimChannel *c = sim_fabric_channel(f, p->hop[h]);
      const MdlLink *l = topo_channel_link(sys, p->hop[h]);
      MdlOp op = MDL_OP_WRITE;
      double r;

      if (l->family == MDL_FAMILY_IB || l->family == MDL_FAMILY_ROCE)
        op = net_op;
      else if (l->family == MDL_FAMILY_PCIE && pcie_read)
        op = MDL_OP_READ;
      r = c->width * mdl_link_effective_Bps(l, MAX(part, 1), 0, op);
      route_add(&route, l, r);
      if (r < rate)
        rate = r, limit = l;
      if (!out->nic) {
        out->nic = topo_node_nic(sys, c->dst);
      }
    }
    t = (double)sim_path_latency_ps(f, p) + (double)part / rate * 1e12;
    if (t > out->time_ps) {
      out->time_ps = t;
      out->limit = limit;
      out->route = route;
    }
  }
  for (guint32 h = 0; out->limit && h < ps.path[0].n; h++)
    out->hops += topo_channel_link(sys, ps.path[0].hop[h]) == out->limit;
  return TRUE;
}

gboolean val_test_is_latency(const char *test)
{
  return strstr(test, "lat") != NULL;
}

/* The test's network operation: RDMA SEND for send_*, READ for read_*. */
static MdlOp verbs_op(const char *test)
{
  if (g_str_has_prefix(test, "send"))
    return MDL_OP_SEND;
  if (g_str_has_prefix(test, "read"))
    return MDL_OP_READ;
  return MDL_OP_WRITE;
}

/* A GPU-to-GPU copy with peer access off: the driver stages it through
 * host memory, the source GPU writing to the socket nearest it and the
 * destination reading from there, pipelined in chunks: both routes'
 * latencies, the slower route's rate. */
static gboolean staged(const ValPoint *p, guint32 s_gpu, guint32 d_gpu)
{
  return p->probe == VAL_PROBE_P2P && g_str_equal(p->mode, "nopeer") &&
         s_gpu != G_MAXUINT32 && d_gpu != G_MAXUINT32;
}

static gboolean staged_time(const TopoSystem *sys, SimNodeId a, SimNodeId b,
                            guint64 bytes, P2pTime *out, GError **error)
{
  SimNodeId h = nearest_host(
      sys, sim_fabric_node(topo_system_fabric(sys), a)->group, a);
  P2pTime down, up;
  double lat_down, lat_up;

  if (h == SIM_NONE) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_RANGE,
                "a copy without peer access is staged in host memory; "
                "system '%s' has no CPU socket",
                topo_system_name(sys));
    return FALSE;
  }
  if (!p2p_time(sys, a, h, bytes, MDL_OP_WRITE, FALSE, &down, error) ||
      !p2p_time(sys, h, b, bytes, MDL_OP_WRITE, TRUE, &up, error) ||
      !p2p_time(sys, a, h, 1, MDL_OP_WRITE, FALSE, out, error))
    return FALSE;
  lat_down = out->time_ps;
  if (!p2p_time(sys, h, b, 1, MDL_OP_WRITE, TRUE, out, error))
    return FALSE;
  lat_up = out->time_ps;
  *out = down.time_ps - lat_down >= up.time_ps - lat_up ? down : up;
  out->time_ps = lat_down + lat_up +
                 MAX(down.time_ps - lat_down, up.time_ps - lat_up);
  return TRUE;
}

/* Messages a perftest bandwidth run keeps in flight: each QP posts up to
 * its tx depth of writes or sends (perftest_parameters.h DEF_TX_BW 128);
 * reads are held to the outstanding reads the QP allows (-o, the device's
 * max_qp_rd_atom: 16 on ConnectX, MAX_OUT_READ_HERMON).  0 for other
 * tests.  The header's counts are checked by the importer. */
static guint32 verbs_depth(const ValMeasurements *m, const char *test)
{
  /* perftest's header (the importer), else the probe's */
  const char *tx = val_meas_get(m, "verbs.tx_depth")
                       ? val_meas_get(m, "verbs.tx_depth")
                       : val_meas_get(m, "tx_depth");
  const char *rd = val_meas_get(m, "verbs.outstand_reads");
  const char *qps = val_meas_get(m, "verbs.number_of_qps");
  guint64 depth = 128, reads = 16, n_qps = 1;

  if (!g_str_has_suffix(test, "_bw"))
    return 0;
  if (tx)
    g_ascii_string_to_unsigned(tx, 10, 1, 1u << 20, &depth, NULL);
  if (rd)
    g_ascii_string_to_unsigned(rd, 10, 1, 1u << 20, &reads, NULL);
  if (qps)
    g_ascii_string_to_unsigned(qps, 10, 1, 1u << 20, &n_qps, NULL);
  if (g_str_equal(test, "read_bw"))
    depth = MIN(depth, reads);
  return (guint32)(depth * n_qps);
}

static gboolean predict_p2p(const TopoSystem *sys, const ValPoint *p,
                            P2pTime *out, GError **error)
{
  guint32 s_srv, s_gpu, d_srv, d_gpu;
  SimNodeId a, b;
  gboolean read = FALSE, bidir = g_str_has_suffix(p->test, "bidir");
  gboolean round_trip = g_str_equal(p->test, "sm_latency");
  MdlOp net = MDL_OP_WRITE;

  if (p->probe == VAL_PROBE_VERBS) {
    /* Between the first two servers, host or GPU memory. */
    if (topo_system_servers(sys) < 2) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_RANGE,
                  "verbs runs between two hosts; system '%s' has one server",
                  topo_system_name(sys));
      return FALSE;
    }
    s_srv = 0, d_srv = 1;
    s_gpu = d_gpu = g_str_equal(p->mode, "gpu") ? 0 : G_MAXUINT32;
    net = verbs_op(p->test);
  } else if (!parse_endpoint(p->src, &s_srv, &s_gpu) ||
             !parse_endpoint(p->dst, &d_srv, &d_gpu)) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_PARSE,
                "endpoints '%s' -> '%s': expected gpuN, sK.gpuN, host or "
                "sK.host",
                p->src, p->dst);
    return FALSE;
  }
  /* A host end is the socket nearest the GPU end. */
  if (!endpoint_node(sys, p->dst, d_srv, d_gpu,
                     d_gpu == G_MAXUINT32 && s_gpu != G_MAXUINT32
                         ? topo_gpu(sys, s_srv, s_gpu)
                         : SIM_NONE,
                     &b, error) ||
      !endpoint_node(sys, p->src, s_srv, s_gpu, b, &a, error))
    return FALSE;
  if (a == b) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_RANGE,
                "%s -> %s is a local copy: no link of the system carries it",
                p->src, p->dst);
    return FALSE;
  }
  /* The GPU's copy engine reads host memory for h2d: read completions. */
  read = p->probe == VAL_PROBE_HOSTDEV && s_gpu == G_MAXUINT32;
  if (staged(p, s_gpu, d_gpu)) {
    if (!staged_time(sys, a, b, p->size_bytes, out, error))
      return FALSE;
  } else if (!p2p_time(sys, a, b, p->size_bytes, net, read, out, error)) {
    return FALSE;
  }
  if (p->probe == VAL_PROBE_VERBS && g_str_has_suffix(p->test, "_bw")) {
    /* A bandwidth run posts a stream, `depth` messages in flight: a
     * message costs its time on the wire, or its whole latency shared by
     * the messages in flight when those do not cover it; the first one's
     * latency is spread over the run's iterations. */
    P2pTime one;
    double depth = p->depth ? p->depth : 128, n = MAX(p->iterations, 1);
    double wire, per;

    if (!p2p_time(sys, a, b, 1, net, read, &one, error))
      return FALSE;
    wire = MAX(out->time_ps - one.time_ps, 0);
    per = MAX(wire, out->time_ps / depth);
    out->time_ps = per + (out->time_ps - per) / n;
  }
  if (bidir || round_trip) {
    P2pTime back;
    if (staged(p, s_gpu, d_gpu)
            ? !staged_time(sys, b, a, p->size_bytes, &back, error)
            : !p2p_time(sys, b, a, p->size_bytes, net,
                        p->probe == VAL_PROBE_HOSTDEV && !read, &back, error))
      return FALSE;
    if (round_trip)
      out->time_ps += back.time_ps;
    else if (back.time_ps > out->time_ps)
      out->time_ps = back.time_ps, out->limit = back.limit,
      out->route = back.route;
  }
  return TRUE;
}

/* --- collective prediction ----------------------------------------------- */

/* A collective point as `ifsim run` predicts it; with proxy_us, under
 * that [nccl] net_proxy_us. */
static gboolean predict_nccl(const TopoSystem *sys, const ValPoint *p,
                             const double *proxy_us, double *time_us,
                             GError **error)
{
  NcclOptions opt = {.ranks = p->ranks,
                     .gpus_per_process = p->gpus_per_process,
                     .iterations = p->iters,
                     .graph_launches = p->graph_launches,
                     .nccl_version = p->nccl_version,
                     .set_net_proxy = proxy_us != NULL,
                     .net_proxy_us = proxy_us ? *proxy_us : 0};
  g_autoptr(NcclComm) comm = NULL;
  NcclColl coll;
  NcclChoice ch;
  NcclRunStats st;

  if (!nccl_coll_parse(p->test, &coll)) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_PARSE,
                "nccl test '%s' is not a collective ifsim plans", p->test);
    return FALSE;
  }
  comm = nccl_comm_new(sys, &opt, error);
  if (comm && p->gpus_per_process > 1) {
    guint32 ppn = nccl_comm_ranks(comm) / nccl_comm_nodes(comm);

    if (p->gpus_per_process > ppn || ppn % p->gpus_per_process) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_PARSE,
                  "gpus_per_process %u does not divide the %u ranks of each "
                  "server (a process drives GPUs of one server)",
                  p->gpus_per_process, ppn);
      return FALSE;
    }
  }
  if (!comm || !nccl_select(comm, coll, p->size_bytes, &ch, NULL, error) ||
      !nccl_run(comm, coll, p->size_bytes, &ch, NCCL_EXEC_FLOW, NULL, NULL,
                &st, error))
    return FALSE;
  *time_us = sim_time_to_us(
      nccl_tests_time(comm, st.time_ps, st.pace_ps, ch.channels));
  return TRUE;
}

/* val_predict_point, and the models the route crosses into *route. */
static gboolean predict_point(const TopoSystem *sys, const ValPoint *p,
                              double *time_us, const MdlLink **limit,
                              guint *hops, ValRouteModels *route,
                              GError **error)
{
  P2pTime t;

  *limit = NULL;
  *hops = 0;
  memset(route, 0, sizeof(*route));
  if (p->probe == VAL_PROBE_NCCL)
    return predict_nccl(sys, p, NULL, time_us, error);
  if (!predict_p2p(sys, p, &t, error))
    return FALSE;
  *time_us = t.time_ps * 1e-6;
  *limit = t.limit;
  *hops = t.hops;
  *route = t.route;
  return TRUE;
}

gboolean val_predict_point(const TopoSystem *sys, const ValPoint *p,
                           double *time_us, const MdlLink **limit, guint *hops,
                           GError **error)
{
  ValRouteModels route;

  return predict_point(sys, p, time_us, limit, hops, &route, error);
}

/* --- the report ------------------------------------------------------------ */

static char *series_key(const ValPoint *p)
{
  return g_strdup_printf("%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%u\x1f%u",
                         val_probe_name(p->probe), p->test, p->mode, p->src,
                         p->dst, p->ranks, p->gpus_per_process);
}

static int cmp_point_size(const void *a, const void *b)
{
  const ValPoint *x = a, *y = b;

  return x->size_bytes < y->size_bytes ? -1 : x->size_bytes > y->size_bytes;
}

/* Fits and predicts one series (its points sorted by size). */
static void build_series(const TopoSystem *sys, GArray *pts, guint index,
                         ValReport *out)
{
  ValSeries s = {0};
  g_autoptr(GArray) size = g_array_new(FALSE, FALSE, sizeof(double));
  g_autoptr(GArray) meas = g_array_new(FALSE, FALSE, sizeof(double));
  g_autoptr(GArray) pred = g_array_new(FALSE, FALSE, sizeof(double));
  g_autoptr(GArray) errs = g_array_new(FALSE, FALSE, sizeof(double));

  g_array_sort(pts, cmp_point_size);
  s.key = g_array_index(pts, ValPoint, 0);
  s.n = pts->len;
  s.min_bytes = s.key.size_bytes;
  s.max_bytes = g_array_index(pts, ValPoint, pts->len - 1).size_bytes;
  s.predicted = sys != NULL;
  if (!sys)
    g_strlcpy(s.why, "no system given", sizeof(s.why));
  for (guint i = 0; i < pts->len; i++) {
    const ValPoint *p = &g_array_index(pts, ValPoint, i);
    double x = (double)p->size_bytes, t;

    g_array_append_val(size, x);
    g_array_append_val(meas, p->time_us_median);
    if (s.predicted) {
      g_autoptr(GError) why = NULL;
      if (!predict_point(sys, p, &t, &s.limit, &s.hops, &s.route, &why)) {
        /* Not an error of the run: this system cannot predict it. */
        s.predicted = FALSE;
        g_strlcpy(s.why, why->message, sizeof(s.why));
        continue;
      }
      g_array_append_val(pred, t);
      {
        ValCompare c = {.series = index, .point = *p, .predicted_us = t};
        c.error = (t - p->time_us_median) / p->time_us_median;
        g_array_append_val(out->points, c);
        t = fabs(c.error);
        g_array_append_val(errs, t);
      }
    }
  }
  if (val_test_is_latency(s.key.test)) {
    /* A latency test times small operations: its alpha is the smallest
     * size's time, and it has no bandwidth. */
    s.fitted = TRUE;
    s.alpha_us = g_array_index(meas, double, 0);
    if (s.predicted)
      s.model_alpha_us = g_array_index(pred, double, 0);
  } else {
    s.fitted = val_fit_line((double *)(void *)size->data,
                            (double *)(void *)meas->data, size->len,
                            &s.alpha_us, &s.beta_GBps, &s.rms_rel,
                            &s.max_rel);
  }
  if (s.predicted) {
    double r1, r2;
    if (s.beta_GBps > 0 &&
        !val_fit_line((double *)(void *)size->data,
                      (double *)(void *)pred->data, pred->len,
                      &s.model_alpha_us, &s.model_beta_GBps, &r1, &r2))
      s.model_beta_GBps = 0;
    for (guint i = 0; i < errs->len; i++)
      s.worst_abs_err = MAX(s.worst_abs_err, g_array_index(errs, double, i));
    s.median_abs_err = val_median(errs);
  } else {
    /* Points of a series predicted in part are dropped: all or none. */
    guint keep = 0;
    for (guint i = 0; i < out->points->len; i++)
      if (g_array_index(out->points, ValCompare, i).series != index)
        g_array_index(out->points, ValCompare, keep++) =
            g_array_index(out->points, ValCompare, i);
    g_array_set_size(out->points, keep);
  }
  g_array_append_val(out->series, s);
}

void val_report_build(const TopoSystem *sys, ValMeasurements *const *sets,
                      guint n_sets, ValReport *out)
{
  g_autoptr(GHashTable) index =
      g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) groups =
      g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
  g_autoptr(GArray) all = g_array_new(FALSE, FALSE, sizeof(double));

  memset(out, 0, sizeof(*out));
  out->series = g_array_new(FALSE, TRUE, sizeof(ValSeries));
  out->points = g_array_new(FALSE, TRUE, sizeof(ValCompare));
  for (guint k = 0; k < n_sets; k++) {
    const char *gpp = val_meas_get(sets[k], "gpus_per_process");
    const char *its = val_meas_get(sets[k], "iters");
    const char *graphs = val_meas_get(sets[k], "graph_launches");
    const char *ver = val_meas_get(sets[k], "nccl.version");
    guint64 per_process = 0, iters = 0, graph_launches = 0;
    guint32 version = 0;

    /* checked by the reader; probes and the nccl-tests import write them */
    if (gpp)
      g_ascii_string_to_unsigned(gpp, 10, 1, 1024, &per_process, NULL);
    if (its)
      g_ascii_string_to_unsigned(its, 10, 1, G_MAXUINT32, &iters, NULL);
    if (graphs)
      g_ascii_string_to_unsigned(graphs, 10, 0, G_MAXINT32, &graph_launches,
                                 NULL);
    /* the importers' key, else the probe's; checked by the reader, and the
     * importers keep only a version that parses */
    if (!ver)
      ver = val_meas_get(sets[k], "nccl");
    if (ver)
      nccl_version_parse(ver, "nccl.version", &version, NULL);
    for (guint i = 0; i < sets[k]->points->len; i++) {
      ValPoint pt = g_array_index(sets[k]->points, ValPoint, i);
      char *key;
      gpointer at;
      GArray *g;

      if (pt.probe == VAL_PROBE_NCCL) {
        pt.gpus_per_process = (guint32)per_process;
        pt.iters = (guint32)iters;
        pt.graph_launches = (guint32)graph_launches;
        pt.nccl_version = version;
      }
      if (pt.probe == VAL_PROBE_VERBS)
        pt.depth = verbs_depth(sets[k], pt.test);
      key = series_key(&pt);
      if (g_hash_table_lookup_extended(index, key, NULL, &at)) {
        g = groups->pdata[GPOINTER_TO_UINT(at)];
        g_free(key);
      } else {
        g = g_array_new(FALSE, FALSE, sizeof(ValPoint));
        g_hash_table_insert(index, key, GUINT_TO_POINTER(groups->len));
        g_ptr_array_add(groups, g);
      }
      g_array_append_val(g, pt);
    }
  }
  for (guint i = 0; i < groups->len; i++)
    build_series(sys, groups->pdata[i], i, out);
  for (guint i = 0; i < out->points->len; i++) {
    double e = fabs(g_array_index(out->points, ValCompare, i).error);
    out->worst_abs_err = MAX(out->worst_abs_err, e);
    g_array_append_val(all, e);
  }
  out->median_abs_err = val_median(all);
}

/* GPU names (as nvidia-smi and the CUDA samples print them) by their
 * compute capability, from NVIDIA's CUDA GPU list; a name is matched by a
 * word of it ("A10" is not "A100"). */
static const struct {
  const char *word;
  guint32 sm;
} gpu_names[] = {
    {"V100", 70},     {"TITAN V", 70},      {"T4", 75},        {"2080", 75},
    {"2070", 75},     {"2060", 75},         {"TITAN RTX", 75}, {"RTX 6000", 75},
    {"RTX 8000", 75}, {"A100", 80},         {"A800", 80},      {"A30", 80},
    {"A10", 86},      {"A10G", 86},         {"A40", 86},       {"A16", 86},
    {"A2", 86},       {"A6000", 86},        {"A5000", 86},     {"A4000", 86},
    {"3090", 86},     {"3080", 86},         {"3070", 86},      {"L40", 89},
    {"L40S", 89},     {"L4", 89},           {"L20", 89},       {"4090", 89},
    {"4080", 89},     {"RTX 6000 Ada", 89}, {"H100", 90},      {"H800", 90},
    {"H200", 90},     {"H20", 90},          {"GH200", 90},     {"B200", 100},
    {"B100", 100},    {"GB200", 100},       {"B300", 103},     {"GB300", 103},
};

guint32 val_gpu_name_sm(const char *name)
{
  guint32 sm = 0;
  gsize best = 0;

  for (guint i = 0; i < G_N_ELEMENTS(gpu_names); i++) {
    const char *w = gpu_names[i].word, *at = name;
    gsize n = strlen(w);

    /* the longest word found whole: "RTX 6000 Ada" over "RTX 6000" */
    while ((at = strstr(at, w)) != NULL) {
      gboolean start = at == name || !g_ascii_isalnum(at[-1]);
      gboolean end = !g_ascii_isalnum(at[n]);

      if (start && end && n > best) {
        best = n;
        sm = gpu_names[i].sm;
      }
      at += n;
    }
  }
  return sm;
}

void val_meas_check_system(const ValMeasurements *m, const char *name,
                           const TopoSystem *sys, GPtrArray *warnings)
{
  const char *gpu = val_meas_get(m, "gpu"),
             *count = val_meas_get(m, "gpu.count");
  TopoGpuInfo info;
  gboolean collective = FALSE;
  guint64 n;

  topo_system_gpu_info(sys, &info);
  if (gpu && !strstr(gpu, " + ")) { /* one model, not a mix */
    guint32 sm = val_gpu_name_sm(gpu);

    /* a family by its major version: Blackwell's 10.0 and 10.3 alike */
    if (sm && sm / 10 != info.sm / 10)
      g_ptr_array_add(
          warnings,
          g_strdup_printf("%s: the measured GPUs are '%s' (compute "
                          "capability %u.%u), the system's %u.%u (%s): its "
                          "predictions are for other GPUs",
                          name, gpu, sm / 10, sm % 10, info.sm / 10,
                          info.sm % 10, topo_system_name(sys)));
  }
  for (guint i = 0; i < m->points->len && !collective; i++)
    collective = g_array_index(m->points, ValPoint, i).probe == VAL_PROBE_NCCL;
  /* a collective's file lists the GPUs it ran on, a subset maybe; the
   * other tools list the machine's */
  if (!collective && count &&
      g_ascii_string_to_unsigned(count, 10, 1, G_MAXUINT32, &n, NULL) &&
      n != info.gpus)
    g_ptr_array_add(
        warnings,
        g_strdup_printf("%s: the measured machine has %" G_GUINT64_FORMAT
                        " GPU%s, the system's servers %u (%s)",
                        name, n, n == 1 ? "" : "s", info.gpus,
                        topo_system_name(sys)));
  /* the network devices NCCL used, where its log says them: a device
   * per NIC port (mlx5 makes each port one) */
  {
    const char *devs = val_meas_get(m, "nccl.net_devices"),
               *kind = val_meas_get(m, "nccl.net_link");
    guint32 ports = info.nic ? info.nics * info.nic->ports : 0;
    const MdlLink *pl = info.nic ? mdl_registry_link(topo_system_models(sys),
                                                     info.nic->port_link)
                                 : NULL;

    if (devs &&
        g_ascii_string_to_unsigned(devs, 10, 1, G_MAXUINT32, &n, NULL) &&
        n != ports)
      g_ptr_array_add(
          warnings,
          g_strdup_printf("%s: NCCL used %" G_GUINT64_FORMAT
                          " network device%s (NET/IB), the system's servers "
                          "have %u NIC port%s (%s)",
                          name, n, n == 1 ? "" : "s", ports,
                          ports == 1 ? "" : "s", topo_system_name(sys)));
    if (kind && pl &&
        (g_str_equal(kind, "IB") ? pl->family != MDL_FAMILY_IB
                                 : pl->family != MDL_FAMILY_ROCE))
      g_ptr_array_add(
          warnings,
          g_strdup_printf("%s: NCCL's network devices are %s, the system's "
                          "NIC ports %s (%s)",
                          name, g_str_equal(kind, "IB") ? "InfiniBand" : "RoCE",
                          pl->name, topo_system_name(sys)));
  }
}

void val_report_clear(ValReport *r)
{
  g_clear_pointer(&r->series, g_array_unref);
  g_clear_pointer(&r->points, g_array_unref);
}

/* --- the calibration file ------------------------------------------------ */

/* Changes gathered for one model: values whose median is taken. */
typedef struct {
  char *group; /* "link nvlink4", "nic cx7-ndr" */
  char *key;   /* "efficiency", "latency_ns" */
  double old_value;
  gboolean ratio; /* new = old x median (else old + median) */
  GArray *values;
  GString *from; /* the series it came from, for the comment */
} Change;

static void change_free(gpointer p)
{
  Change *c = p;

  g_free(c->group);
  g_free(c->key);
  g_array_unref(c->values);
  g_string_free(c->from, TRUE);
  g_free(c);
}

static int cmp_change(gconstpointer a, gconstpointer b)
{
  const Change *x = *(Change *const *)a, *y = *(Change *const *)b;
  int c = strcmp(x->group, y->group);

  return c ? c : strcmp(x->key, y->key);
}

static void add_change(GPtrArray *changes, const char *group,
                       const char *key, double old_value, gboolean ratio,
                       double v, const ValSeries *s)
{
  Change *c = NULL;

  for (guint i = 0; i < changes->len && !c; i++) {
    Change *x = changes->pdata[i];
    if (g_str_equal(x->group, group) && g_str_equal(x->key, key))
      c = x;
  }
  if (!c) {
    c = g_new0(Change, 1);
    c->group = g_strdup(group);
    c->key = g_strdup(key);
    c->old_value = old_value;
    c->ratio = ratio;
    c->values = g_array_new(FALSE, FALSE, sizeof(double));
    c->from = g_string_new(NULL);
    g_ptr_array_add(changes, c);
  }
  g_array_append_val(c->values, v);
  g_string_append_printf(c->from, "#   %s %s %s %s->%s: %s %.4g\n",
                         val_probe_name(s->key.probe), s->key.test,
                         s->key.mode, s->key.src, s->key.dst,
                         ratio                            ? "measured/model"
                         : g_str_has_suffix(key, "_us") ? "measured-model us"
                                                          : "measured-model ns",
                         v);
}

/* Sizes up to this are latency: the launch, not the protocol's rate. */
#define NCCL_LATENCY_MAX_BYTES (64u << 10)

/* A collective series: the median excess of measured over predicted time
 * of its small sizes moves [nccl] latency_us; above them, per protocol
 * NCCL chose, the median of predicted over measured time (less that
 * excess) scales the protocol's efficiency. */
/* Whether a collective point's prediction is the launch floor of its
 * process (G x the launch on the channels NCCL chose for it,
 * nccl_launch_us) rather than the GPUs' time.  Timed as a loop of n calls
 * (nccl_tests_time), a call of D us on the GPUs is predicted at G L + D / n
 * when D <= G L, and at D + G L / n above.  Calls launched as CUDA graphs
 * are never at it: the host launched graphs, not the calls. */
static gboolean point_at_floor(const ValCompare *c, const NcclComm *comm,
                               guint32 channels)
{
  double floor_us =
      MAX(c->point.gpus_per_process, 1) * nccl_launch_us(comm, channels);
  double n = c->point.iters;

  if (c->point.graph_launches)
    return FALSE;
  if (n > 0)
    floor_us *= 1 + 1 / n;
  return c->predicted_us <= floor_us * (1 + 1e-9);
}

/* Across nodes, a collective series' excess over the model is the
 * network steps' (their proxy actions, collectives/nccl/plan.c) more than
 * a latency per call: it fits [nccl] net_proxy_us, the least mean
 * |log(predicted / measured)| over its points off the launch floor, on a
 * 0.5 us grid to PROXY_FIT_MAX_US and then 0.05 us round the best;
 * predicted[] gets each point's time at it (0 where not fitted). */
#define PROXY_FIT_MAX_US 16.0
static double proxy_cost(const TopoSystem *sys, const ValReport *r,
                         const guint8 *use, double tau, double *predicted)
{
  double sum = 0;
  guint n = 0;

  for (guint k = 0; k < r->points->len; k++) {
    const ValCompare *c = &g_array_index(r->points, ValCompare, k);
    double us;

    if (!use[k] || !predict_nccl(sys, &c->point, &tau, &us, NULL))
      continue;
    sum += fabs(log(us / c->point.time_us_median));
    n++;
    if (predicted)
      predicted[k] = us;
  }
  return n ? sum / n : G_MAXDOUBLE;
}

static double fit_net_proxy(const TopoSystem *sys, const ValReport *r,
                            const guint8 *use, double *predicted)
{
  double best = G_MAXDOUBLE, best_tau = 0;

  for (double tau = 0; tau <= PROXY_FIT_MAX_US + 1e-9; tau += 0.5) {
    double c = proxy_cost(sys, r, use, tau, NULL);

    if (c < best) {
      best = c;
      best_tau = tau;
    }
  }
  for (int k = -10; k <= 10; k++) {
    double tau = best_tau + k * 0.05, c;

    if (tau < 0 || k == 0)
      continue;
    c = proxy_cost(sys, r, use, tau, NULL);
    if (c < best - 1e-12) {
      best = c;
      best_tau = tau;
    }
  }
  proxy_cost(sys, r, use, best_tau, predicted);
  return best_tau;
}

/* A point at the launch floor: its call's channels beyond the first and
 * the error of one launch there (measured - predicted, over G), us. */
typedef struct {
  double further, error;
} LaunchPoint;

/* Channel counts a per-channel fit needs among its points: with two, one
 * odd point (a mid-size call the model runs too fast, whose GPUs and not
 * the host set its time) is the slope. */
#define LAUNCH_FIT_MIN_COUNTS 3

/* The launch pair's changes from points at the floor on at least
 * LAUNCH_FIT_MIN_COUNTS channel counts: the least-squares line of a
 * launch's error over the further channels, its value at one channel
 * (host_launch_us) and its slope (host_launch_per_channel_us), each held
 * where it would take its constant below 0.  FALSE where the points are on
 * fewer counts. */
static gboolean fit_launch_pair(const GArray *pts, const MdlNcclTuning *t,
                                double *launch_delta, double *channel_delta)
{
  double n = pts->len, sx = 0, sy = 0, sxx = 0, sxy = 0, slope;
  double counts[LAUNCH_FIT_MIN_COUNTS];
  guint n_counts = 0;

  for (guint k = 0; k < pts->len; k++) {
    const LaunchPoint *p = &g_array_index(pts, LaunchPoint, k);
    guint j = 0;

    while (j < n_counts && counts[j] != p->further)
      j++;
    if (j == n_counts && n_counts < LAUNCH_FIT_MIN_COUNTS)
      counts[n_counts++] = p->further;
    sx += p->further;
    sy += p->error;
    sxx += p->further * p->further;
    sxy += p->further * p->error;
  }
  if (n_counts < LAUNCH_FIT_MIN_COUNTS)
    return FALSE;
  slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  slope = MAX(slope, -t->host_launch_per_channel_us);
  *channel_delta = slope;
  *launch_delta = MAX((sy - slope * sx) / n, -t->host_launch_us);
  return TRUE;
}

static void report_nccl_changes(const TopoSystem *sys, const ValReport *r,
                                guint i, GPtrArray *changes)
{
  const ValSeries *v = &g_array_index(r->series, ValSeries, i);
  const MdlNcclTuning *t = mdl_registry_nccl(topo_system_models(sys));
  const double old[NCCL_N_PROTOS] = {[NCCL_PROTO_LL] = t->ll_efficiency,
                                     [NCCL_PROTO_LL128] = t->ll128_efficiency,
                                     [NCCL_PROTO_SIMPLE] =
                                         t->simple_efficiency};
  static const char *const keys[NCCL_N_PROTOS] = {
      [NCCL_PROTO_LL] = "ll_efficiency",
      [NCCL_PROTO_LL128] = "ll128_efficiency",
      [NCCL_PROTO_SIMPLE] = "simple_efficiency"};
  NcclOptions opt = {.ranks = v->key.ranks,
                     .nccl_version = v->key.nccl_version};
  g_autoptr(NcclComm) comm = nccl_comm_new(sys, &opt, NULL);
  g_autoptr(GArray) excess = g_array_new(FALSE, FALSE, sizeof(double));
  g_autoptr(GArray) launch = g_array_new(FALSE, FALSE, sizeof(double));
  g_autoptr(GArray) at_floor = g_array_new(FALSE, FALSE, sizeof(LaunchPoint));
  gboolean per_channel = nccl_launch_per_channel(v->key.nccl_version);
  double launch_delta, channel_delta;
  /* [algorithm][protocol]: collectives; [NCCL_N_ALGOS][Simple]: p2p */
  GArray *ratio[NCCL_N_ALGOS + 1][NCCL_N_PROTOS] = {{NULL}};
  double lat = 0;
  NcclColl coll;
  g_autofree guint8 *on_net = NULL;
  g_autofree double *at_proxy = NULL;

  if (!comm || !nccl_coll_parse(v->key.test, &coll))
    return;
  if (nccl_comm_nodes(comm) > 1) {
    on_net = g_new0(guint8, r->points->len);
    at_proxy = g_new0(double, r->points->len);
  }
  /* A point predicted at the launch floor (one process launching G
   * kernels per call, nccl_tests_time) says how long the host takes, not
   * the GPUs: it fits host_launch_us, and neither the latency nor the
   * protocols' rates.  Before NCCL 2.22 a launch also costs the host per
   * channel (nccl_launch_per_channel): the floor points of every size
   * then fit both, where they ran on LAUNCH_FIT_MIN_COUNTS channel counts
   * or more. */
  for (guint k = 0; k < r->points->len; k++) {
    const ValCompare *c = &g_array_index(r->points, ValCompare, k);
    double g = MAX(c->point.gpus_per_process, 1);
    double d = c->point.time_us_median - c->predicted_us;
    gboolean small = c->point.size_bytes <= NCCL_LATENCY_MAX_BYTES;
    NcclChoice ch = {.channels = 1};

    if (c->series != i || (!small && !per_channel))
      continue;
    nccl_select(comm, coll, c->point.size_bytes, &ch, NULL, NULL);
    /* at the floor, measured - predicted is G times the launch's error,
     * in a long loop (G L) as in n calls (G L + D / n) */
    if (point_at_floor(c, comm, ch.channels)) {
      LaunchPoint lp = {.further = MAX(ch.channels, 1) - 1, .error = d / g};

      if (per_channel)
        g_array_append_val(at_floor, lp);
      if (small)
        g_array_append_val(launch, lp.error);
    } else if (small) {
      g_array_append_val(excess, d);
    }
  }
  if (per_channel &&
      fit_launch_pair(at_floor, t, &launch_delta, &channel_delta)) {
    add_change(changes, "nccl", "host_launch_us", t->host_launch_us, FALSE,
               launch_delta, v);
    add_change(changes, "nccl", "host_launch_per_channel_us",
               t->host_launch_per_channel_us, FALSE, channel_delta, v);
  } else if (launch->len > 0) {
    add_change(changes, "nccl", "host_launch_us", t->host_launch_us, FALSE,
               val_median(launch), v);
  }
  if (on_net) {
    guint used = 0;

    for (guint k = 0; k < r->points->len; k++) {
      const ValCompare *c = &g_array_index(r->points, ValCompare, k);
      NcclChoice ch = {.channels = 1};

      if (c->series != i)
        continue;
      nccl_select(comm, coll, c->point.size_bytes, &ch, NULL, NULL);
      on_net[k] = !point_at_floor(c, comm, ch.channels);
      used += on_net[k];
    }
    if (used > 0)
      add_change(changes, "nccl", "net_proxy_us", t->net_proxy_us, FALSE,
                 fit_net_proxy(sys, r, on_net, at_proxy) - t->net_proxy_us,
                 v);
  } else if (excess->len > 0) {
    lat = MAX(0.0, val_median(excess));
    add_change(changes, "nccl", "latency_us", t->latency_us, FALSE, lat, v);
  }
  for (guint k = 0; k < r->points->len; k++) {
    const ValCompare *c = &g_array_index(r->points, ValCompare, k);
    NcclChoice ch;
    double q;

    if (c->series != i || c->point.size_bytes <= NCCL_LATENCY_MAX_BYTES ||
        c->point.time_us_median <= lat ||
        !nccl_select(comm, coll, c->point.size_bytes, &ch, NULL, NULL) ||
        point_at_floor(c, comm, ch.channels))
      continue;
    /* point-to-point collectives run Simple, outside the algorithms */
    if (coll >= NCCL_N_TUNED_COLLS) {
      ch.proto = NCCL_PROTO_SIMPLE;
      ch.algo = NCCL_N_ALGOS;
    }
    if (!ratio[ch.algo][ch.proto])
      ratio[ch.algo][ch.proto] = g_array_new(FALSE, FALSE, sizeof(double));
    /* across nodes, against the time at the fitted proxy */
    q = (at_proxy && at_proxy[k] > 0 ? at_proxy[k] : c->predicted_us) /
        (c->point.time_us_median - lat);
    g_array_append_val(ratio[ch.algo][ch.proto], q);
  }
  /* A collective's rate is its algorithm's protocol's (tree_ll128_
   * efficiency, ...), so that what Tree/LL128 shows on one node count does
   * not move Ring/LL128 on another; point-to-point's is Simple's. */
  for (int a = 0; a <= NCCL_N_ALGOS; a++) {
    for (int p = 0; p < NCCL_N_PROTOS; p++) {
      g_autofree char *key = NULL;
      double was;

      if (!ratio[a][p])
        continue;
      if (a == NCCL_N_ALGOS) {
        key = g_strdup(keys[p]);
        was = old[p];
      } else {
        key = g_strdup_printf("%s_%s", nccl_algo_keys[a], keys[p]);
        was = mdl_nccl_efficiency(t, a, p);
      }
      add_change(changes, "nccl", key, was, TRUE, val_median(ratio[a][p]), v);
      g_array_unref(ratio[a][p]);
    }
  }
}

/* The NIC model on the route of a verbs series. */
static const MdlNic *series_nic(const TopoSystem *sys, const ValSeries *s)
{
  P2pTime t;

  if (!predict_p2p(sys, &s->key, &t, NULL))
    return NULL;
  return t.nic;
}

/* Whether a series measures a link's rate: a bandwidth sweep (not
 * nccl) that reaches the bandwidth regime, predicted with a limit, and
 * not a staged copy (peer access off times the driver's staging). */
static gboolean rate_series(const ValSeries *v)
{
  return v->fitted && v->predicted && v->key.probe != VAL_PROBE_NCCL &&
         v->limit && !val_test_is_latency(v->key.test) &&
         v->max_bytes >= (1u << 20) && v->model_beta_GBps > 0 &&
         v->beta_GBps > 0 && !g_str_equal(v->key.mode, "nopeer");
}

/* A rate series whose route crosses a model the shortest routes to its
 * limit do not is attributed to that model when it ran slower than
 * they did by more than this: the limit's own pairs then say the limit
 * is not what held it. */
#define ROUTE_PEEL_MARGIN 0.05

/* What the rate series of one limit model say together: the first with
 * the shortest route to it, and the median measured over modelled beta
 * of those with routes as short. */
typedef struct {
  guint pure;
  double ratio;
} LimitRoutes;

/* The rate series' LimitRoutes by limit (an MdlLink), in one pass over
 * the series and one over each limit's shortest. */
static GHashTable *limit_routes(const ValReport *r)
{
  GHashTable *t = g_hash_table_new_full(NULL, NULL, NULL, g_free);
  g_autoptr(GHashTable) ratios =
      g_hash_table_new_full(NULL, NULL, NULL, (GDestroyNotify)g_array_unref);
  GHashTableIter it;
  gpointer key, value;

  for (guint k = 0; k < r->series->len; k++) {
    const ValSeries *w = &g_array_index(r->series, ValSeries, k);
    LimitRoutes *l;

    if (!rate_series(w))
      continue;
    l = g_hash_table_lookup(t, w->limit);
    if (!l) {
      l = g_new0(LimitRoutes, 1);
      l->pure = k;
      g_hash_table_insert(t, (gpointer)w->limit, l);
    } else if (w->route.n <
               g_array_index(r->series, ValSeries, l->pure).route.n) {
      l->pure = k;
    }
  }
  for (guint k = 0; k < r->series->len; k++) {
    const ValSeries *w = &g_array_index(r->series, ValSeries, k);
    const LimitRoutes *l =
        rate_series(w) ? g_hash_table_lookup(t, w->limit) : NULL;
    GArray *q;
    double x;

    if (!l ||
        w->route.n != g_array_index(r->series, ValSeries, l->pure).route.n)
      continue;
    q = g_hash_table_lookup(ratios, w->limit);
    if (!q) {
      q = g_array_new(FALSE, FALSE, sizeof(double));
      g_hash_table_insert(ratios, (gpointer)w->limit, q);
    }
    x = w->beta_GBps / w->model_beta_GBps;
    g_array_append_val(q, x);
  }
  g_hash_table_iter_init(&it, t);
  while (g_hash_table_iter_next(&it, &key, &value))
    ((LimitRoutes *)value)->ratio =
        val_median(g_hash_table_lookup(ratios, key));
  return t;
}

/* A rate series' change.  Its measured over modelled beta goes to its
 * limit, unless its route crosses exactly one model that the shortest
 * routes to its limit do not, and it ran more than ROUTE_PEEL_MARGIN
 * slower than those: then that model is what held it, and its
 * efficiency is scaled to the measured beta (over the rate its channels
 * have on the route).  On a two-socket PCIe server the GPUs of one
 * socket set PCIe's efficiency and the pairs across the socket link its
 * own: 8 RTX 4090 on two AMD Rome sockets copied at 24.4 GB/s within a
 * socket and 19-21 across, where one PCIe efficiency for all took the
 * cross-socket pairs' median. */
static void rate_change(GPtrArray *changes, const ValReport *r,
                        GHashTable *limits, guint i)
{
  const ValSeries *v = &g_array_index(r->series, ValSeries, i);
  const LimitRoutes *l = g_hash_table_lookup(limits, v->limit);
  const ValSeries *p = &g_array_index(r->series, ValSeries, l->pure);
  double q = v->beta_GBps / v->model_beta_GBps;
  const MdlLink *extra = NULL;
  double extra_Bps = 0, limit_Bps = 0;
  guint n_extra = 0;

  /* a series on a route as short as the shortest is its limit's own */
  for (guint a = 0; v->route.n > p->route.n && a < v->route.n; a++) {
    gboolean shared = FALSE;

    for (guint b = 0; b < p->route.n; b++)
      shared |= p->route.model[b] == v->route.model[a];
    if (v->route.model[a] == v->limit)
      limit_Bps = v->route.rate_Bps[a];
    else if (!shared)
      extra = v->route.model[a], extra_Bps = v->route.rate_Bps[a], n_extra++;
  }
  if (n_extra == 1 && limit_Bps > 0 && extra_Bps > 0 &&
      q < l->ratio * (1 - ROUTE_PEEL_MARGIN)) {
    g_autofree char *g = g_strdup_printf("link %s", extra->name);

    /* the beta the model would give with that model as the limit */
    add_change(changes, g, "efficiency", extra->efficiency, TRUE,
               v->beta_GBps / (v->model_beta_GBps * extra_Bps / limit_Bps), v);
    return;
  }
  {
    g_autofree char *g = g_strdup_printf("link %s", v->limit->name);

    add_change(changes, g, "efficiency", v->limit->efficiency, TRUE, q, v);
  }
}

char *val_calibration_ini(const TopoSystem *sys, const ValReport *r,
                          const char *const *sources, GError **error)
{
  g_autoptr(GPtrArray) changes = g_ptr_array_new_with_free_func(change_free);
  g_autoptr(GHashTable) limits = limit_routes(r);
  GString *s = g_string_new("# ifsim calibration (ifsim calibrate)\n");

  g_string_append_printf(s, "# system: %s\n# from:",
                         sys ? topo_system_name(sys) : "-");
  for (guint i = 0; sources && sources[i]; i++)
    g_string_append_printf(s, " %s", sources[i]);
  g_string_append(s, "\n#\n# Fits time = alpha + size / beta per series "
                     "(weighted by 1/t^2):\n");
  for (guint i = 0; i < r->series->len; i++) {
    const ValSeries *v = &g_array_index(r->series, ValSeries, i);
    char lo[SIM_SIZE_FORMAT_LEN], hi[SIM_SIZE_FORMAT_LEN];

    g_string_append_printf(
        s, "#   %s %s %s %s->%s ranks %u, %u sizes %s..%s: ",
        val_probe_name(v->key.probe), v->key.test, v->key.mode, v->key.src,
        v->key.dst, v->key.ranks, v->n, sim_size_format(v->min_bytes, lo),
        sim_size_format(v->max_bytes, hi));
    if (v->fitted && v->beta_GBps == 0)
      g_string_append_printf(s, "latency %.3f us", v->alpha_us);
    else if (v->fitted)
      g_string_append_printf(s,
                             "alpha %.3f us, beta %.2f GB/s, residual rms "
                             "%.1f%% max %.1f%%",
                             v->alpha_us, v->beta_GBps, 100 * v->rms_rel,
                             100 * v->max_rel);
    else
      g_string_append(s, "no fit");
    if (v->predicted && v->beta_GBps == 0)
      g_string_append_printf(s, "; model %.3f us%s%s", v->model_alpha_us,
                             v->limit ? ", over " : "",
                             v->limit ? v->limit->name : "");
    else if (v->predicted && v->model_beta_GBps > 0)
      g_string_append_printf(s, "; model alpha %.3f us, beta %.2f GB/s%s%s",
                             v->model_alpha_us, v->model_beta_GBps,
                             v->limit ? ", limited by " : "",
                             v->limit ? v->limit->name : "");
    else if (!v->predicted)
      g_string_append_printf(s, "; not predicted: %s", v->why);
    g_string_append_c(s, '\n');
    if (!v->fitted || !v->predicted)
      continue;
    if (v->key.probe == VAL_PROBE_NCCL) {
      report_nccl_changes(sys, r, i, changes);
      continue;
    }
    if (!v->limit)
      continue;
    if (!val_test_is_latency(v->key.test)) {
      /* Bandwidth: only sweeps that reach the bandwidth regime. */
      if (rate_series(v))
        rate_change(changes, r, limits, i);
    } else if (g_str_equal(v->key.test, "sm_latency") && v->hops > 0) {
      /* Round trip over the route: half of the excess per hop. */
      g_autofree char *g = g_strdup_printf("link %s", v->limit->name);
      add_change(changes, g, "latency_ns", v->limit->latency_ns, FALSE,
                 (v->alpha_us - v->model_alpha_us) * 1e3 / 2 / v->hops, v);
    } else if (v->key.probe == VAL_PROBE_VERBS) {
      /* One way: the excess goes to the NICs' processing. */
      const MdlNic *nic = series_nic(sys, v);
      if (nic) {
        g_autofree char *g = g_strdup_printf("nic %s", nic->name);
        add_change(changes, g, "latency_ns", nic->latency_ns, FALSE,
                   (v->alpha_us - v->model_alpha_us) * 1e3, v);
      }
    }
  }
  if (changes->len == 0) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_RANGE,
                "nothing to calibrate: no bandwidth series reaching 1 MiB, "
                "no latency series (p2p sm_latency, verbs *_lat) and no "
                "collective that the system predicts");
    g_string_free(s, TRUE);
    return NULL;
  }
  /* One group per model, its keys together (a group may not repeat). */
  g_ptr_array_sort(changes, cmp_change);
  for (guint i = 0; i < changes->len; i++) {
    Change *c = changes->pdata[i];
    double m = val_median(c->values);
    double v = c->ratio ? c->old_value * m : MAX(0.0, c->old_value + m);

    if (c->ratio)
      v = CLAMP(v, g_str_equal(c->group, "nccl") ? 0.05 : 0.01, 2.0);
    else if (g_str_equal(c->key, "latency_us"))
      v = MIN(v, 1000.0);
    if (i == 0 || !g_str_equal(((Change *)changes->pdata[i - 1])->group,
                               c->group))
      g_string_append_printf(s, "\n[%s]\n", c->group);
    g_string_append_printf(s, "# %s was %.6g; median of %u series:\n%s",
                           c->key, c->old_value, c->values->len, c->from->str);
    g_string_append_printf(s, "%s = %.6g\n", c->key, v);
  }
  return g_string_free(s, FALSE);
}
