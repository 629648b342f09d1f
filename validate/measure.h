/* Measurements of real hardware, in the one format every probe writes and
 * every importer produces, and that `ifsim calibrate` and `ifsim validate`
 * read.
 *
 * The file is CSV text with a header block of comment lines describing the
 * machine, then a header row and one row per measured point:
 *
 *   # ifsim measurements 1
 *   # gpu = NVIDIA H200
 *   # driver = 570.86.15
 *   # source = ifsim-probe hostdev
 *   probe,test,mode,src,dst,ranks,size_bytes,iterations,time_us_min,
 *     time_us_median,time_us_max,bw_GBps,busbw_GBps
 *   hostdev,h2d,pinned,host,gpu0,1,1048576,20,21.1,21.3,22.0,49.23,49.23
 *
 * Units are in the column names: time per operation in microseconds,
 * bandwidth in GB/s (10^9 bytes/s, as nccl-tests, nvbandwidth and
 * p2pBandwidthLatencyTest print it).  bw_GBps is the bytes the operation
 * moved over the median time: size_bytes for one direction, 2 x size_bytes
 * for a bidirectional test (what the tools print), size_bytes / time for a
 * collective (nccl-tests' algbw).  busbw_GBps is the collective's bus
 * bandwidth (nccl-tests' definition); equal to bw_GBps for the others. */
#ifndef VALIDATE_MEASURE_H
#define VALIDATE_MEASURE_H

#include <glib.h>

#include "traces/csvtext.h"

#define VAL_MEAS_MAGIC "# ifsim measurements 1"

/* What was measured.  The probe names the family; `test` the experiment
 * in it; `mode` a variant:
 *
 *   probe    test                      mode              src, dst
 *   p2p      ce_uni ce_bidir sm_uni    peer nopeer       gpuN, gpuM
 *            sm_bidir ce_latency
 *            sm_latency
 *   hostdev  h2d d2h bidir latency_h2d pinned pageable   host, gpuN / gpuN, host
 *            latency_d2h
 *   nccl     allreduce allgather       oop ip            rank range "0-7", "all"
 *            reducescatter broadcast
 *            reduce alltoall sendrecv
 *   verbs    write_bw send_bw          host gpu          local device:port,
 *            write_lat send_lat                          peer address
 *
 * Latency tests report the time of one small operation; their size_bytes
 * is the size used. */
typedef enum {
  VAL_PROBE_P2P,
  VAL_PROBE_HOSTDEV,
  VAL_PROBE_NCCL,
  VAL_PROBE_VERBS,
  VAL_N_PROBES
} ValProbe;

typedef struct {
  ValProbe probe;
  char test[24];
  char mode[16];
  char src[48], dst[48];
  guint32 ranks;        /* 1 for point to point; the communicator size */
  guint64 size_bytes;   /* per direction, per rank for nccl-tests' S */
  guint32 iterations;   /* operations timed (0: not known, imported) */
  double time_us_min, time_us_median, time_us_max;
  double bw_GBps, busbw_GBps;
  guint32 gpus_per_process; /* nccl: GPUs one process drove (the header's
                               gpus_per_process; 0: not known, one) */
  guint32 iters; /* nccl: calls launched back to back inside one timing
                    (the header's iters, nccl-tests -n; 0: not known, a
                    long loop) */
  guint32 graph_launches; /* nccl: the calls captured in CUDA graphs
                             launched this many times (the header's
                             graph_launches, nccl-tests -G; 0: not) */
  guint32 nccl_version; /* nccl: the NCCL measured (the header's nccl or
                           nccl.version, as NcclOptions; 0: not known) */
  guint32 depth; /* verbs bandwidth tests: messages in flight (the header's
                    verbs.tx_depth, or verbs.outstand_reads for read_bw,
                    times verbs.number_of_qps; 0: not known, perftest's
                    defaults) */
} ValPoint;

/* A set of points and the machine they were measured on. */
typedef struct {
  GPtrArray *keys, *values; /* the header block, in order */
  GArray *points;           /* ValPoint */
} ValMeasurements;

ValMeasurements *val_meas_new(void);
void val_meas_free(ValMeasurements *m);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ValMeasurements, val_meas_free)

const char *val_probe_name(ValProbe p);
/* FALSE when the name is none of "p2p", "hostdev", "nccl", "verbs". */
gboolean val_probe_parse(const char *name, ValProbe *out);

/* Sets a header key (lower case, digits, '_' and '.'); a value replaces an
 * earlier one; line breaks in the value are replaced by spaces. */
void val_meas_set(ValMeasurements *m, const char *key, const char *value);
/* NULL when the key is not set. */
const char *val_meas_get(const ValMeasurements *m, const char *key);

/* Clears p and sets what names it (texts longer than the fields are
 * cut, between UTF-8 characters). */
void val_point_init(ValPoint *p, ValProbe probe, const char *test,
                    const char *mode, const char *src, const char *dst);

/* Appends a point.  Fills what follows from the rest when it is 0: the
 * median from min and max when both are given, min and max from the
 * median, bw_GBps from size and median time (x2 for tests whose name ends
 * in "bidir"), busbw_GBps from bw_GBps except for nccl points (a
 * collective's bus bandwidth is 0 for one rank). */
void val_meas_add(ValMeasurements *m, const ValPoint *p);

/* Time from one timed repetition per element of `us` (n >= 1): min,
 * median and max into p (the array is sorted in place). */
void val_point_set_times(ValPoint *p, double *us, guint n);

/* The median of `values` (doubles), sorted in place; 0 when empty. */
double val_median(GArray *values);

/* Appends the point's first five CSV fields, probe,test,mode,src,dst
 * (texts quoted where CSV needs it), with no trailing comma. */
void val_point_csv_names(GString *s, const ValPoint *p);

/* The file's text; see the top of this header. */
char *val_meas_csv(const ValMeasurements *m);

/* Writes the text to path atomically (a temporary file renamed: a failure
 * leaves no partial file), or to standard output when path is NULL or
 * "-". */
gboolean val_meas_write(const ValMeasurements *m, const char *path,
                        GError **error);

/* Reads a measurement file, or any format validate/import.h recognises
 * (nccl-tests text and -J JSON, perftest, p2pBandwidthLatencyTest,
 * nvbandwidth, and the CSV transcriptions in tests/data/reference): the
 * format is told from the content.  Errors name the file and line and
 * what was expected there. */
ValMeasurements *val_meas_load(const char *path, GError **error);

/* The same, from text already read; `name` is used in messages. */
ValMeasurements *val_meas_parse(const char *name, const char *text,
                                gsize len, GError **error);

/* val_meas_load and val_meas_parse with hints the user gave for files that
 * do not state them (val_import_given: "collective", "ranks"); `given`
 * may be NULL. */
ValMeasurements *val_meas_load_given(const char *path, GHashTable *given,
                                     GError **error);
ValMeasurements *val_meas_parse_given(const char *name, const char *text,
                                      gsize len, GHashTable *given,
                                      GError **error);
/* val_meas_load_given appending to out (freeing sets): one set, or one per
 * run of a paste of several nccl-tests runs (val_import_sets). */
gboolean val_meas_load_sets(const char *path, GHashTable *given, GPtrArray *out,
                            GError **error);

/* --- CSV text, for this format and the importers ------------------- */

/* Rows of CSV text, one per line (traces/csvtext.h, trc_csv_split). */
typedef TrcCsv ValCsv;

/* Fails only on a line libcsv rejects (an unterminated quote) or a row of
 * more than 4096 fields; the error names the file and line. */
gboolean val_csv_split(const char *name, const char *text, gsize len,
                       ValCsv *out, GError **error);
void val_csv_clear(ValCsv *c);

/* A finite decimal number in a CSV cell (surrounding spaces allowed). */
gboolean val_cell_double(const char *cell, double *out);

#endif /* VALIDATE_MEASURE_H */
