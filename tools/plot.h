/* `ifsim plot`'s machinery: result CSVs in, a gnuplot script out.
 *
 * A CSV's kind is told from its header row (the first row that is not a
 * "# key: value" comment): a run (`ifsim run --csv`), a sweep (`ifsim
 * sweep`), a replay summary (`ifsim replay --summary-csv`), a links table
 * (`ifsim run --links-csv`) or link samples (`--link-samples`).  The rows
 * are read with libcsv (validate/measure.h val_csv_split) and checked
 * here, so that gnuplot only ever sees numbers: the generated script holds
 * the data as inline datablocks ($D << EOD), the texts (legends, tick
 * labels, titles) as gnuplot strings, and then the kind's shipped script
 * (tools/plot/KIND.gp, embedded with the GResource bundle), which holds
 * the styling and the plot commands.  The same inputs and options give
 * the same script, byte for byte. */
#ifndef TOOLS_PLOT_H
#define TOOLS_PLOT_H

#include <glib.h>

typedef enum {
  CLI_PLOT_RUN,     /* busbw per size, a line per file */
  CLI_PLOT_SWEEP,   /* busbw per size, a line per point, a panel per
                       collective */
  CLI_PLOT_REPLAY,  /* step-time breakdown, a stacked bar per job */
  CLI_PLOT_LINKS,   /* utilization heatmap, source node x destination node */
  CLI_PLOT_SAMPLES, /* utilization heatmap, time x link */
  CLI_PLOT_CRITICALITY, /* ifsim faults --criticality: slowdown per
                           element, a bar each, worst first */
  CLI_PLOT_DRAWS,       /* ifsim faults --random: the slowdown's
                     distribution (CDF), a line per count of elements */
} CliPlotKind;
#define CLI_PLOT_N_KINDS 7

/* "run", "sweep", "replay-summary", "links", "link-samples",
 * "faults-criticality", "faults-draws". */
const char *cli_plot_kind_name(CliPlotKind kind);

/* Tells the kind from a header row (fields without surrounding spaces,
 * NULL-terminated).  FALSE when it is none of them. */
gboolean cli_plot_kind_detect(const char *const *header, CliPlotKind *kind);

/* The kinds and their headers, for messages: "run (size_bytes,...), ...". */
char *cli_plot_kinds_text(void);

/* A tick label for a size of bytes: "8B", "512B", "1K", "32M", "8G" (binary
 * multiples; the unit the size divides into exactly). */
char *cli_plot_size_label(guint64 bytes);

/* gnuplot commands for a log2 size axis from lo to hi bytes: the range
 * from the power of two at or below lo to the one at or above hi, labelled
 * as cli_plot_size_label at every step-th power of two (max_labels at
 * most: 12 fill a 1024-pixel plot). */
void cli_plot_size_axis(GString *s, guint64 lo, guint64 hi, guint max_labels);

/* The CSVs of one plot, all of one kind. */
typedef struct CliPlot CliPlot;

CliPlot *cli_plot_new(void);
void cli_plot_free(CliPlot *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(CliPlot, cli_plot_free)

/* Reads one CSV (text of len bytes; name used in messages and as a
 * fallback legend) into p.  Fails, naming the file and line, on a header
 * of no known kind (listing the kinds), a kind other than the files added
 * before, a second file of a kind other than run, no data rows, a row of
 * another number of fields than the header, and a cell that is not what
 * its column holds (a size of at least 1 byte, a finite number, a
 * utilization in [0, 1]). */
gboolean cli_plot_add(CliPlot *p, const char *name, const char *text, gsize len,
                      GError **error);

/* The kind of the files added; at least one must have been. */
CliPlotKind cli_plot_kind(const CliPlot *p);

typedef struct {
  const char *title; /* NULL: the kind's own */
  guint width_px;    /* the image's size */
  guint height_px;
  gboolean svg;    /* the svg terminal, else pngcairo */
  guint max_nodes; /* links: nodes kept, those of the hottest channels */
  guint max_links; /* link samples: links kept, the hottest */
} CliPlotStyle;

/* The complete gnuplot script drawing p into output_path (newly
 * allocated).  Fails only when the kind's shipped script is missing from
 * the binary (a build error). */
char *cli_plot_script(const CliPlot *p, const CliPlotStyle *style,
                      const char *output_path, GError **error);

/* Runs gnuplot on script (written to a temporary file, no shell): the
 * program named by $IFSIM_GNUPLOT, else "gnuplot" on PATH.  Fails when it
 * cannot be found or started ("gnuplot not found on PATH (Debian: apt-get
 * install gnuplot-nox)"), and when it exits other than 0, with its
 * standard error in the message. */
gboolean cli_gnuplot_run(const char *script, GError **error);

#endif /* TOOLS_PLOT_H */
