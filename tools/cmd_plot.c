/* `ifsim plot`: result CSVs drawn by gnuplot into a PNG or an SVG.
 *
 *   ifsim plot run1.csv run2.csv -o busbw.png     runs compared, one line
 *                                                 per file
 *   ifsim plot sweep.csv -o sweep.svg --title T   a line per point
 *   ifsim plot links.csv -o links.png --script links.gp
 *
 * The kind of CSV is told from its header (tools/plot.h); gnuplot (found
 * on PATH, or $IFSIM_GNUPLOT) writes a temporary next to OUT, renamed into
 * place only when it succeeded (traces/output.h), so a failed plot leaves
 * an older OUT as it was.  See docs/plot.md. */
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "sim/input.h"
#include "tools/cli.h"
#include "tools/plot.h"
#include "traces/output.h"

#define COMMAND "plot"

/* Image sizes accepted, in pixels a side. */
#define MIN_SIDE_PX 64
#define MAX_SIDE_PX 16384
/* The most nodes / links a heatmap shows. */
#define MAX_ROWS 1024

static gboolean check_range(const char *option, guint64 v, guint64 lo,
                            guint64 hi, const char *what, GError **error)
{
  if (v >= lo && v <= hi)
    return TRUE;
  g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
              "--%s: %" G_GUINT64_FORMAT " is outside [%" G_GUINT64_FORMAT
              ", %" G_GUINT64_FORMAT "] (%s)",
              option, v, lo, hi, what);
  return FALSE;
}

/* Reads every input into p. */
static gboolean read_inputs(CliPlot *p, char **files, GError **error)
{
  for (guint i = 0; files[i]; i++) {
    g_autofree char *text = NULL;
    gsize len = 0;

    if (!sim_input_read(files[i], &text, &len, error) ||
        !cli_plot_add(p, files[i], text, len, error))
      return FALSE;
  }
  return TRUE;
}

int cli_cmd_plot(int argc, char **argv)
{
  guint64 width = 1024, height = 768, max_nodes = 48, max_links = 32;
  g_autofree char *output = NULL, *title = NULL, *script_path = NULL;
  g_auto(GStrv) files = NULL;
  CliNumberTarget numbers[] = {
      {"width", 0, CLI_NUMBER_COUNT, &width, NULL, 0},
      {"height", 0, CLI_NUMBER_COUNT, &height, NULL, 0},
      {"max-nodes", 0, CLI_NUMBER_COUNT, &max_nodes, NULL, 0},
      {"max-links", 0, CLI_NUMBER_COUNT, &max_links, NULL, 0},
      {NULL, 0, 0, NULL, NULL, 0}};
  GOptionEntry entries[] = {
      {"output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
       "The image to write: .png (pngcairo) or .svg (required)", "OUT.png"},
      {"title", 0, 0, G_OPTION_ARG_STRING, &title,
       "The plot's title (default: one naming what is drawn)", "TEXT"},
      {"width", 0, 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,
       "Image width in pixels (default 1024)", "PX"},
      {"height", 0, 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,
       "Image height in pixels (default 768)", "PX"},
      {"max-nodes", 0, 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,
       "Links heatmap: show at most N nodes, those of the hottest channels "
       "(default 48)",
       "N"},
      {"max-links", 0, 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,
       "Link samples: show the N hottest links (default 32)", "N"},
      {"script", 0, 0, G_OPTION_ARG_FILENAME, &script_path,
       "Also write the gnuplot script (data included) that draws OUT, to "
       "change and rerun with gnuplot",
       "FILE"},
      {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL,
       NULL},
      G_OPTION_ENTRY_NULL};
  g_autoptr(GOptionContext) ctx = cli_context_new(
      "RESULTS.csv [MORE.csv...] -o OUT.png", "Plot result CSVs with gnuplot.",
      "The kind of CSV is told from its header row:\n"
      "  run             (ifsim run --csv)  bus bandwidth per size, a line "
      "per file\n"
      "  sweep           (ifsim sweep)  bus bandwidth per size, a line per "
      "point, a panel per collective\n"
      "  replay-summary  (ifsim replay --summary-csv)  step-time breakdown, "
      "a stacked bar per job\n"
      "  links           (ifsim run --links-csv)  utilization heatmap, "
      "source x destination node\n"
      "  link-samples    (--link-samples)  utilization heatmap, time x "
      "link\n"
      "Several files must be run CSVs.  gnuplot (Debian: gnuplot-nox) is "
      "found on PATH; IFSIM_GNUPLOT names another program.  See "
      "docs/plot.md.");
  GOptionGroup *group = g_option_group_new(COMMAND, "plot options",
                                           "plot options", numbers, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(CliPlot) plot = cli_plot_new();
  g_autoptr(TrcOutputs) outs = trc_outputs_new();
  g_autofree char *script = NULL;
  CliPlotStyle style = {0};
  const char *tmp;
  int status = CLI_EXIT_USAGE;

  cli_add_entries(group, entries);
  g_option_context_set_main_group(ctx, group);
  if (!cli_parse(ctx, COMMAND, &argc, &argv, &status))
    return status;
  if (!files || !files[0]) {
    g_set_error(&error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "expected a CSV to plot (RESULTS.csv)");
    return cli_report(COMMAND, error);
  }
  if (!output) {
    g_set_error(&error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "-o OUT.png is required (or OUT.svg)");
    return cli_report(COMMAND, error);
  }
  if (g_str_has_suffix(output, ".svg")) {
    style.svg = TRUE;
  } else if (!g_str_has_suffix(output, ".png")) {
    g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "-o %s: expected a file name ending in .png or .svg", output);
    return cli_report(COMMAND, error);
  }
  if (!check_range("width", width, MIN_SIDE_PX, MAX_SIDE_PX, "pixels",
                   &error) ||
      !check_range("height", height, MIN_SIDE_PX, MAX_SIDE_PX, "pixels",
                   &error) ||
      !check_range("max-nodes", max_nodes, 2, MAX_ROWS, "nodes", &error) ||
      !check_range("max-links", max_links, 1, MAX_ROWS, "links", &error) ||
      !read_inputs(plot, files, &error))
    return cli_report(COMMAND, error);
  style.title = title;
  style.width_px = (guint)width;
  style.height_px = (guint)height;
  style.max_nodes = (guint)max_nodes;
  style.max_links = (guint)max_links;
  /* The script as the user sees it draws into OUT itself. */
  if (script_path) {
    char *text = cli_plot_script(plot, &style, output, &error);

    if (!text || !trc_outputs_add(outs, script_path, text, &error))
      return cli_report(COMMAND, error);
  }
  tmp = trc_outputs_reserve(outs, output, &error);
  if (!tmp)
    return cli_report(COMMAND, error);
  script = cli_plot_script(plot, &style, tmp, &error);
  if (!script || !cli_gnuplot_run(script, &error))
    return cli_report(COMMAND, error);
  {
    /* a gnuplot that ends well having drawn nothing (another terminal,
     * a broken IFSIM_GNUPLOT) leaves the output empty: not a plot */
    GStatBuf st;

    if (g_stat(tmp, &st) != 0 || st.st_size == 0) {
      g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "%s: gnuplot ended without drawing anything (is "
                  "IFSIM_GNUPLOT gnuplot?)",
                  output);
      return cli_report(COMMAND, error);
    }
  }
  if (!trc_outputs_commit(outs, &error))
    return cli_report(COMMAND, error);
  printf("# wrote %s (%s, from %u file%s)\n", output,
         cli_plot_kind_name(cli_plot_kind(plot)), g_strv_length(files),
         g_strv_length(files) == 1 ? "" : "s");
  return CLI_EXIT_OK;
}
