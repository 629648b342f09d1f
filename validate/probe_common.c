/* What the probes share: the size sweep options, messages, the run's
 * description and the output; see validate/probe.h. */
#include <stdio.h>
#include <string.h>

#include "sim/config.h"
#include "sim/units.h"
#include "validate/probe.h"

void probe_sweep_init(ProbeSweep *s, guint64 min_bytes, guint64 max_bytes)
{
  memset(s, 0, sizeof(*s));
  s->min_bytes = min_bytes;
  s->max_bytes = max_bytes;
  s->step_factor = 2;
  s->iters = 20;
  s->warmup = 5;
}

/* The sweep's number options (GOptionArgFunc, the group's data the
 * ProbeSweep): decimal sizes with K/M/G/T suffixes and counts up to 2^32 -
 * 1 (the probes loop over them in guint), errors naming the option. */
static gboolean number_option(const char *option, const char *value,
                              gboolean size, guint64 *out, GError **error)
{
  g_autoptr(GError) local = NULL;

  if (size ? sim_size_parse(value, out, &local)
           : sim_count_parse(value, G_MAXUINT32, out, &local))
    return TRUE;
  g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s: %s", option,
              local->message);
  return FALSE;
}

static gboolean min_bytes_option(const gchar *option, const gchar *value,
                                 gpointer data, GError **error)
{
  return number_option(option, value, TRUE, &((ProbeSweep *)data)->min_bytes,
                       error);
}

static gboolean max_bytes_option(const gchar *option, const gchar *value,
                                 gpointer data, GError **error)
{
  return number_option(option, value, TRUE, &((ProbeSweep *)data)->max_bytes,
                       error);
}

static gboolean step_factor_option(const gchar *option, const gchar *value,
                                   gpointer data, GError **error)
{
  return number_option(option, value, FALSE, &((ProbeSweep *)data)->step_factor,
                       error);
}

static gboolean iters_option(const gchar *option, const gchar *value,
                             gpointer data, GError **error)
{
  return number_option(option, value, FALSE, &((ProbeSweep *)data)->iters,
                       error);
}

static gboolean warmup_option(const gchar *option, const gchar *value,
                              gpointer data, GError **error)
{
  return number_option(option, value, FALSE, &((ProbeSweep *)data)->warmup,
                       error);
}

void probe_sweep_clear(ProbeSweep *s)
{
  g_clear_pointer(&s->output, g_free);
}

GOptionContext *probe_context_new(const char *name, const char *summary,
                                  ProbeSweep *s, const GOptionEntry *extra)
{
  const GOptionEntry sweep[] = {
      {"minbytes", 'b', 0, G_OPTION_ARG_CALLBACK, min_bytes_option,
       "Smallest size; K, M, G suffixes are binary", "SIZE"},
      {"maxbytes", 'e', 0, G_OPTION_ARG_CALLBACK, max_bytes_option,
       "Largest size", "SIZE"},
      {"stepfactor", 'f', 0, G_OPTION_ARG_CALLBACK, step_factor_option,
       "Multiply the size by N between steps (default 2)", "N"},
      {"iters", 'n', 0, G_OPTION_ARG_CALLBACK, iters_option,
       "Timed repetitions per size", "N"},
      {"warmup", 'w', 0, G_OPTION_ARG_CALLBACK, warmup_option,
       "Untimed repetitions before them", "N"},
      {"output", 'o', 0, G_OPTION_ARG_FILENAME, &s->output,
       "Write the measurements to FILE (default: standard output)", "FILE"},
      G_OPTION_ENTRY_NULL};
  g_autofree char *param = g_strdup_printf("- %s", summary);
  GOptionContext *ctx = g_option_context_new(param);
  GOptionGroup *group = g_option_group_new(name, summary, summary, s, NULL);
  char lo[SIM_SIZE_FORMAT_LEN], hi[SIM_SIZE_FORMAT_LEN];
  g_autofree char *desc = g_strdup_printf(
      "Defaults: sizes %s to %s, -n %" G_GUINT64_FORMAT
      ", -w %" G_GUINT64_FORMAT
      ".\nWrites the ifsim measurement CSV (the format: "
      "docs/validate.md; this probe: docs/%s.md).\nExit status: 0 measured, "
      "2 bad input or a failed call, 77 no device to measure (or built "
      "without its library).",
      sim_size_format(s->min_bytes, lo), sim_size_format(s->max_bytes, hi),
      s->iters, s->warmup,
      g_str_equal(name, "verbs") ? "probe-verbs" : "probes");
  char prg[64];

  g_option_group_add_entries(group, sweep);
  if (extra)
    g_option_group_add_entries(group, extra);
  g_option_context_set_main_group(ctx, group);
  g_option_context_set_description(ctx, desc);
  g_snprintf(prg, sizeof(prg), "ifsim-probe %s", name);
  g_set_prgname(prg);
  return ctx;
}

gboolean probe_parse(GOptionContext *ctx, const char *name, ProbeSweep *s,
                     int *argc, char ***argv, int *status)
{
  g_autoptr(GError) error = NULL;

  for (int i = 1; i < *argc; i++)
    if (g_str_equal((*argv)[i], "--help") || g_str_equal((*argv)[i], "-h")) {
      g_autofree char *help = g_option_context_get_help(ctx, TRUE, NULL);
      fputs(help, stdout);
      *status = PROBE_EXIT_OK;
      return FALSE;
    }
  g_option_context_set_help_enabled(ctx, FALSE);
  if (!g_option_context_parse(ctx, argc, argv, &error)) {
    *status = probe_fail(name, error);
    return FALSE;
  }
  if (*argc > 1)
    g_set_error(&error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "unexpected argument '%s'", (*argv)[1]);
  else if (s->min_bytes == 0 || s->min_bytes > s->max_bytes)
    g_set_error(&error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--minbytes %" G_GUINT64_FORMAT
                " must be at least 1 and at most --maxbytes %" G_GUINT64_FORMAT,
                s->min_bytes, s->max_bytes);
  else if (s->step_factor < 2)
    g_set_error(&error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--stepfactor %" G_GUINT64_FORMAT " must be at least 2",
                s->step_factor);
  else if (s->iters < 1)
    g_set_error(&error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--iters must be at least 1");
  if (error) {
    *status = probe_fail(name, error);
    return FALSE;
  }
  return TRUE;
}

GArray *probe_sweep_sizes(const ProbeSweep *s)
{
  GArray *sizes = g_array_new(FALSE, FALSE, sizeof(guint64));

  for (guint64 b = s->min_bytes; b <= s->max_bytes; b *= s->step_factor) {
    g_array_append_val(sizes, b);
    if (b > G_MAXUINT64 / s->step_factor)
      break;
  }
  return sizes;
}

int probe_fail(const char *name, const GError *error)
{
  fprintf(stderr, "ifsim-probe: %s: %s\n", name, error->message);
  return PROBE_EXIT_USAGE;
}

int probe_no_device(const char *name, const char *why)
{
  fprintf(stderr, "ifsim-probe: %s: %s (skipped)\n", name, why);
  return PROBE_EXIT_NO_DEVICE;
}

/* The command line as typed, before option parsing takes options out. */
static char *probe_command;

void probe_set_command(int argc, char **argv)
{
  GString *cmd = g_string_new("ifsim-probe");

  for (int i = 1; i < argc; i++) {
    /* Plain words as they are; quoted only when the shell needs it. */
    static const char special[] = " \t\n'\"\\$`*?[]{}()<>|&;#~";
    g_autofree char *q = g_shell_quote(argv[i]);
    gboolean plain = argv[i][0] != '\0' && !strpbrk(argv[i], special);

    g_string_append_printf(cmd, " %s", plain ? argv[i] : q);
  }
  g_free(probe_command);
  probe_command = g_string_free(cmd, FALSE);
}

void probe_describe_run(ValMeasurements *m, const char *name)
{
  g_autofree char *source = g_strdup_printf("ifsim-probe %s", name);
  g_autoptr(GDateTime) now = g_date_time_new_now_utc();
  g_autofree char *date = g_date_time_format_iso8601(now);

  val_meas_set(m, "source", source);
  val_meas_set(m, "command", probe_command ? probe_command : source);
  val_meas_set(m, "host", g_get_host_name());
  val_meas_set(m, "date", date);
  val_meas_set(m, "ifsim", IFSIM_VERSION);
}

int probe_finish(const char *name, const ValMeasurements *m,
                 const ProbeSweep *s)
{
  g_autoptr(GError) error = NULL;

  if (!val_meas_write(m, s->output, &error))
    return probe_fail(name, error);
  return PROBE_EXIT_OK;
}
