/* Measurements against the models: the prediction of each measured point
 * on a described system, the fit time = alpha + size / beta of each
 * measured series, and the model changes a calibration makes of them.
 *
 * A series is the points of one experiment (probe, test, mode, src, dst,
 * ranks) over sizes.  Each is fitted by weighted least squares on
 * relative residuals (weights 1/t^2: a sweep from bytes to gigabytes would
 * otherwise be fitted to its largest sizes only), and its model
 * predictions are fitted the same way, so that measured and modelled
 * alpha and beta compare like with like.
 *
 * What a point is predicted with:
 *   p2p, hostdev, verbs  one transfer on the system's route between the
 *                        endpoints: path latency + bytes over the slowest
 *                        channel's effective rate for that message (the
 *                        link models' packet overheads, reads for h2d),
 *                        paths of a set in parallel; bidir tests run both
 *                        directions at once (full duplex: the slower).
 *   nccl                 the collective planned and run as `ifsim run`
 *                        does (NCCL's choice, flow transport). */
#ifndef VALIDATE_CALIBRATE_H
#define VALIDATE_CALIBRATE_H

#include <glib.h>

#include "models/link.h"
#include "topologies/system.h"
#include "validate/measure.h"

/* Least squares of t = alpha + size / beta with weights 1 / t^2.  One
 * distinct size: alpha = 0, beta = size / t.  Residuals are relative:
 * (fitted - measured) / measured.  FALSE when n is 0, a time is not
 * positive, or the fit gives no positive beta (times falling with size). */
gboolean val_fit_line(const double *size_bytes, const double *time_us,
                      guint n, double *alpha_us, double *beta_GBps,
                      double *rms_rel, double *max_rel);

/* TRUE for a latency test (the name holds "lat"): small operations, no
 * bandwidth fit; the series' alpha is its smallest size's time. */
gboolean val_test_is_latency(const char *test);

/* Predicts one point on sys: its time in microseconds, and the link model
 * that limits it (the slowest channel of the route; NULL for nccl).
 * hops: channels of that link model on the route.  Endpoint names:
 * "gpuN" (server 0), "sN.gpuM", "host" (the socket nearest the GPU at the
 * other end), "sN.host"; verbs goes from server 0 to server 1's host (or
 * GPU with mode "gpu"), so it needs two servers.  Fails with a message
 * saying why the point cannot be predicted there. */
gboolean val_predict_point(const TopoSystem *sys, const ValPoint *p,
                           double *time_us, const MdlLink **limit,
                           guint *hops, GError **error);

/* The link models on a point's route (its slowest path's), each with
 * the model's rate of its slowest channel there, bytes/s: which models a
 * series crosses, for the calibration to tell them apart. */
#define VAL_ROUTE_MODELS 8
typedef struct {
  const MdlLink *model[VAL_ROUTE_MODELS];
  double rate_Bps[VAL_ROUTE_MODELS];
  guint n;
} ValRouteModels;

/* One series and its comparison with the model. */
typedef struct {
  ValPoint key;      /* the first point: probe, test, mode, src, dst */
  guint n;           /* points */
  guint64 min_bytes, max_bytes;
  double alpha_us, beta_GBps, rms_rel, max_rel; /* measured fit; beta 0 for
                                                   a latency test */
  gboolean fitted;
  gboolean predicted;      /* FALSE: why says why */
  char why[160];
  double model_alpha_us, model_beta_GBps;
  const MdlLink *limit;    /* bottleneck link model (not nccl) */
  guint hops;              /* its channels on the route */
  ValRouteModels route;    /* the models it crosses (not nccl) */
  double median_abs_err, worst_abs_err; /* per point, predicted vs measured */
} ValSeries;

/* Per point, predicted against measured. */
typedef struct {
  guint series;
  ValPoint point;
  double predicted_us;
  double error; /* (predicted - measured) / measured, of the median time */
} ValCompare;

typedef struct {
  GArray *series; /* ValSeries */
  GArray *points; /* ValCompare, only points that could be predicted */
  double median_abs_err, worst_abs_err; /* over all predicted points */
} ValReport;

/* Groups, fits and predicts every point of every measurement set on sys
 * (sys may be NULL: fits only).  Points the system cannot predict are
 * kept in their series, with `why`, and out of `points`. */
void val_report_build(const TopoSystem *sys, ValMeasurements *const *sets,
                      guint n_sets, ValReport *out);
void val_report_clear(ValReport *r);

/* Where a measurement set and the system both state a thing, whether they
 * agree: the GPU model (its name, from the measured tool, against the
 * system's compute capability) and, for tools that list every GPU of the
 * machine (p2pBandwidthLatencyTest, nvbandwidth, the probes: sets without
 * collective points), the GPU count against the system's servers.  One
 * message a disagreement ("FILE: the measured GPUs are ..."), appended to
 * `warnings`; none when either side is silent. */
void val_meas_check_system(const ValMeasurements *m, const char *name,
                           const TopoSystem *sys, GPtrArray *warnings);
/* The compute capability x 10 of an NVIDIA GPU's marketing name ("NVIDIA
 * A100-SXM4-80GB": 80), 0 when the name is not one ifsim knows. */
guint32 val_gpu_name_sm(const char *name);

/* The model file a calibration writes: for each link model limiting a
 * bandwidth series, `efficiency` scaled by the median of measured over
 * modelled beta (a series whose route adds one model to the shortest
 * routes to its limit, and ran more than 5% slower than they did, is
 * that model's); from latency tests (p2p sm_latency: half the round trip;
 * verbs *_lat: one way), the link's `latency_ns` (NVLink/PCIe) or the
 * NIC's `latency_ns` (verbs) moved by the median difference of measured
 * and modelled latency; comments give every series' fit and what each
 * value came from.  `sources` are named in the header. */
char *val_calibration_ini(const TopoSystem *sys, const ValReport *r,
                          const char *const *sources, GError **error);

#endif /* VALIDATE_CALIBRATE_H */
