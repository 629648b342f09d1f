/* `ifsim sweep`: a what-if grid of `ifsim run`-style collective size
 * sweeps (docs/sweep.md).
 *
 * A sweep holds a base system (a topology file, or the embedded default,
 * and model files), fixed workload settings and the varied keys, each with
 * its values.  The grid crosses the varied keys, the first varying
 * slowest; point p is numbered from 0 in that order.  A point is built by
 * setting its values in the base topology's GKeyFile (GROUP.KEY: the key
 * KEY of [GROUP], model groups included: `link ib-ndr-4x.cable_m`,
 * `nccl.latency_us`) and loading the result with the system loader, whose
 * checks and messages apply; `run.KEY` keys set the workload instead
 * (tools/run.h).  A point's result is CSV text: one row per (collective,
 * size), numbers printed as `ifsim run --csv` prints them, so a sweep's
 * output is the same however its points are dealt out (worker processes,
 * MPI ranks); results travel between processes as frames
 * (cli_sweep_frame_append).
 *
 * Invariant: a CliSweep is not changed after cli_sweep_prepare(); every
 * point reads it only, so forked workers and MPI ranks agree on it. */
#ifndef TOOLS_SWEEP_H
#define TOOLS_SWEEP_H

#include <glib.h>

typedef struct {
  char *name;   /* as given: "scaleout.link", "link ib-ndr-4x.cable_m" */
  char *group;  /* "scaleout", "link ib-ndr-4x"; "run" for the workload */
  char *key;    /* "link", "cable_m", "minbytes" */
  GStrv values; /* at least one, trimmed, none empty */
} CliSweepVary;

typedef struct CliSweep CliSweep;

CliSweep *cli_sweep_new(void);
void cli_sweep_free(CliSweep *sw);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(CliSweep, cli_sweep_free)

/* Adds a varied key from "KEY=V1,V2,..." (--vary).  Refuses a key of no
 * known form or group (the message lists them), an unknown run.KEY (lists
 * the run keys), a key varied twice, an empty value, and a run value that
 * does not parse.  `where` prefixes messages ("--vary", "plan.ini: [vary]"). */
gboolean cli_sweep_add_vary(CliSweep *sw, const char *spec, const char *where,
                            GError **error);

/* Sets a fixed workload key (KEY without "run."; "collective" takes a
 * comma-separated list, crossed inside every point); a later setting of
 * the same key replaces an earlier one.  `where` names the setting in
 * messages ("--minbytes", "plan.ini: [sweep] minbytes"). */
gboolean cli_sweep_set_run(CliSweep *sw, const char *key, const char *value,
                           const char *where, GError **error);

/* Sets the base topology file (NULL: the embedded default) and appends a
 * model file. */
void cli_sweep_set_topology(CliSweep *sw, const char *path);
void cli_sweep_add_model(CliSweep *sw, const char *path);

/* Reads a plan file: [sweep] topology, models (comma-separated) and the
 * fixed workload keys; [vary] one varied key per line, values
 * comma-separated.  Everything already set takes precedence over the
 * plan's [sweep] keys (the command line is applied first); the plan's
 * [vary] keys come before those already added, in the plan's order, with
 * the values already given for a key varied in both.  Errors name the
 * file, the group and the key. */
gboolean cli_sweep_load_plan(CliSweep *sw, const char *path, GError **error);
/* The same of the plan's text (len bytes; path names it, and the plan's
 * topology and models are relative to it). */
gboolean cli_sweep_load_plan_data(CliSweep *sw, const char *data, gsize len,
                                  const char *path, GError **error);

/* Reads the base topology; after it, the sweep is complete.  Refuses a
 * sweep that varies nothing. */
gboolean cli_sweep_prepare(CliSweep *sw, GError **error);

guint cli_sweep_points(const CliSweep *sw);
const CliSweepVary *cli_sweep_vary(const CliSweep *sw, guint i);
guint cli_sweep_n_vary(const CliSweep *sw);
/* The index in vary i's values of point p's value. */
guint cli_sweep_value_index(const CliSweep *sw, guint point, guint i);

/* "system.servers=4, scaleout.link=ib-ndr-4x": point p's values. */
char *cli_sweep_point_label(const CliSweep *sw, guint point);

/* Point p's system file text (the base with p's values set); the caller
 * frees it. */
char *cli_sweep_point_topology(const CliSweep *sw, guint point, gsize *len);

/* Runs point p: its CSV rows (point, its values, the collective, then
 * trc_coll_csv_append_row's fields), each ending in '\n'.  Errors lead
 * with "point P (its label): ". */
char *cli_sweep_run_point(const CliSweep *sw, guint point, GError **error);

/* The CSV: "# key: value" comments (version, base topology, models, fixed
 * and varied keys, point count, then "# point N failed: reason" for
 * failures[N] non-NULL when failures is given), the header
 * "point,<varied keys>,collective,<TRC_COLL_CSV_COLUMNS>" and rows[p] in
 * point order (NULL rows are skipped). */
char *cli_sweep_csv(const CliSweep *sw, char *const *rows,
                    char *const *failures);

/* Results between processes: a frame is point (4 bytes), ok (4), the
 * length of text (8), then text without its NUL, in host byte order (the
 * processes of one sweep run one build). */
void cli_sweep_frame_append(GByteArray *buf, guint32 point, gboolean ok,
                            const char *text);
/* Reads the frame at buf[*offset]: TRUE with *offset past it and the text
 * copied into *text; FALSE when buf holds no whole frame there. */
gboolean cli_sweep_frame_next(const guint8 *buf, gsize len, gsize *offset,
                              guint32 *point, gboolean *ok, char **text);

/* The progress line: "[#####...............] 5/16 points, 0:12 elapsed,
 * ETA 0:26" (ETA "--:--" before the first point; hours shown from an
 * hour on). */
char *cli_sweep_progress_text(guint done, guint total, double elapsed_s);

#endif /* TOOLS_SWEEP_H */
