/* ifsim CLI: subcommand dispatch, --help, error reporting and the option
 * parsing helpers shared by subcommands; see tools/cli.h. */
#include "tools/cli.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "sim/config.h"
#include "sim/error.h"
#include "sim/input.h"
#include "sim/interrupt.h"
#include "traces/output.h"
#include "sim/memory.h"
#include "sim/units.h"

GQuark cli_error_quark(void)
{
  return g_quark_from_static_string("ifsim-tools-error-quark");
}

typedef struct {
  const char *name;
  const char *summary;
  int (*fn)(int argc, char **argv);
  const char *parameter_string; /* for subcommands not built yet */
  const char *not_built;        /* NULL when built; else what it awaits */
} CliCommand;

static int cli_cmd_not_built(const CliCommand *cmd, int argc, char **argv);

static const CliCommand cli_commands[] = {
    {"run", "predict a collective over a size sweep (nccl-tests table)",
     cli_cmd_run, NULL, NULL},
    {"models", "list link, switch and NIC models with derived bandwidths",
     cli_cmd_models, NULL, NULL},
    {"topo", "describe a topology: counts, bisection bandwidth, diameter",
     cli_cmd_topo, NULL, NULL},
    {"sweep", "what-if grid over topology, model and workload keys",
     cli_cmd_sweep, NULL, NULL},
    {"replay", "replay a training step: communication, compute, exposure",
     cli_cmd_replay, NULL, NULL},
    {"faults", "what failures cost: each element down, random links down",
     cli_cmd_faults, NULL, NULL},
    {"plot", "plot result CSVs with gnuplot (PNG or SVG)", cli_cmd_plot, NULL,
     NULL},
    {"calibrate", "fit link models to measurements, write a model file",
     cli_cmd_calibrate, NULL, NULL},
    {"validate", "compare predictions with measurements, per size",
     cli_cmd_validate, NULL, NULL},
    {"version", "print the version and the optional features built in",
     cli_cmd_version, NULL, NULL},
};

static void cli_usage(FILE *out)
{
  fprintf(out,
          "Usage: ifsim COMMAND [OPTION...]\n\n"
          "Predicts how long NCCL-style collectives take on GPU interconnect "
          "fabrics.\n\nCommands:\n");
  for (size_t i = 0; i < G_N_ELEMENTS(cli_commands); i++) {
    const CliCommand *c = &cli_commands[i];
    fprintf(out, "  %-10s %s%s\n", c->name, c->summary,
            c->not_built ? " [not built yet]" : "");
  }
  fprintf(out, "\nRun 'ifsim COMMAND --help' for the options of a "
               "command.\n");
}

/* What a command printed must reach standard output: a write error (a
 * full disk, /dev/full) fails the run with a message, exit 2, even when
 * the command itself succeeded.  A reader that went away (`| head`) ends
 * it quietly, as a shell's SIGPIPE does: 128 + SIGPIPE. */
static int finish_stdout(const char *command, int status)
{
  int err;

  errno = 0;
  if (fflush(stdout) == 0 && !ferror(stdout))
    return status;
  err = errno;
  if (status != CLI_EXIT_OK)
    return status; /* its error is said (a failed "-" output among them) */
  if (err == EPIPE)
    return 128 + SIGPIPE;
  fprintf(stderr, "ifsim: %s: standard output: cannot write (%s)%s\n", command,
          err ? g_strerror(err) : "write error",
          trc_outputs_wrote_files()
              ? "; the output files were written before it failed"
              : "");
  return CLI_EXIT_USAGE;
}

int cli_main(int argc, char **argv)
{
  const char *name;

  if (argc < 2) {
    cli_usage(stderr);
    return CLI_EXIT_USAGE;
  }
  name = argv[1];
  if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 ||
      strcmp(name, "help") == 0) {
    cli_usage(stdout);
    return finish_stdout("help", CLI_EXIT_OK);
  }
  if (strcmp(name, "--version") == 0)
    name = "version";
  sim_interrupt_install();
  cli_memory_wording_install();
  sim_input_set_advice("--max-input SIZE reads larger ones");
  for (size_t i = 0; i < G_N_ELEMENTS(cli_commands); i++) {
    const CliCommand *c = &cli_commands[i];
    g_autofree char *argv0 = NULL;
    char **sub_argv;
    int status;

    if (strcmp(name, c->name) != 0)
      continue;
    /* The subcommand's program name is "ifsim NAME", for the usage line
     * of its --help. */
    sub_argv = g_new0(char *, (size_t)argc);
    argv0 = g_strdup_printf("ifsim %s", c->name);
    g_set_prgname(argv0);
    sub_argv[0] = argv0;
    for (int k = 2; k < argc; k++)
      sub_argv[k - 1] = argv[k];
    status = c->fn ? c->fn(argc - 1, sub_argv)
                   : cli_cmd_not_built(c, argc - 1, sub_argv);
    /* a signal in a phase that does not look (printing what was
     * computed): the outputs are whole, but the run did not end on its
     * own, and a shell must see that */
    if (status == CLI_EXIT_OK && sim_interrupted()) {
      int sig = sim_interrupted();

      fprintf(stderr,
              "ifsim: %s: interrupted (%s) after its outputs were "
              "written\n",
              c->name, sig == SIGINT ? "SIGINT" : "SIGTERM");
      status = 128 + sig;
    }
    g_free(sub_argv);
    return finish_stdout(c->name, status);
  }
  fprintf(stderr, "ifsim: unknown command '%s' (expected one of:", name);
  for (size_t i = 0; i < G_N_ELEMENTS(cli_commands); i++)
    fprintf(stderr, " %s", cli_commands[i].name);
  fprintf(stderr, "); see 'ifsim --help'\n");
  return CLI_EXIT_USAGE;
}

int cli_report(const char *command, const GError *error)
{
  fprintf(stderr, "ifsim: %s: %s\n", command, error->message);
  /* As a shell reports a process a signal ended: 128 + its number. */
  if (g_error_matches(error, SIM_ERROR, SIM_ERROR_INTERRUPTED) &&
      sim_interrupted())
    return 128 + sim_interrupted();
  if (error->domain == G_OPTION_ERROR)
    fprintf(stderr, "ifsim: %s: see 'ifsim %s --help'\n", command, command);
  return CLI_EXIT_USAGE;
}

/* The options of the context being built that take a value: short names,
 * and long names between NULs ("\0minbytes\0maxbytes\0"). */
static GString *value_shorts, *value_longs; /* value_longs starts with a
                                                NUL */
/* Those whose value names a file, the same way */
static GString *file_shorts, *file_longs;

static gboolean names_file(const char *what);

static void note_entries(const GOptionEntry *e)
{
  if (!value_shorts) {
    value_shorts = g_string_new(NULL);
    value_longs = g_string_new(NULL);
    g_string_append_c(value_longs, '\0');
    file_shorts = g_string_new(NULL);
    file_longs = g_string_new(NULL);
    g_string_append_c(file_longs, '\0');
  }
  for (; e->long_name; e++) {
    gboolean value =
        e->arg != G_OPTION_ARG_NONE &&
        !(e->arg == G_OPTION_ARG_CALLBACK &&
          (e->flags & (G_OPTION_FLAG_NO_ARG | G_OPTION_FLAG_OPTIONAL_ARG)));

    if (!value || e->long_name[0] == '\0') /* G_OPTION_REMAINING */
      continue;
    if (e->short_name)
      g_string_append_c(value_shorts, e->short_name);
    g_string_append_len(value_longs, e->long_name,
                        (gssize)strlen(e->long_name) + 1);
    if (names_file(e->arg_description)) {
      if (e->short_name)
        g_string_append_c(file_shorts, e->short_name);
      g_string_append_len(file_longs, e->long_name,
                          (gssize)strlen(e->long_name) + 1);
    }
  }
}

/* An option whose value names a file (its help says FILE, TOPO.ini,
 * OUT.png, DUMP, ...). */
static gboolean names_file(const char *what)
{
  static const char *const ends[] = {".ini", ".csv", ".json", ".png"};

  if (!what)
    return FALSE;
  if (strstr(what, "FILE") || strcmp(what, "DUMP") == 0)
    return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS(ends); i++)
    if (g_str_has_suffix(what, ends[i]))
      return TRUE;
  return FALSE;
}

/* Whether name is one of names ("\0a\0b\0": NUL-separated, a NUL first). */
static gboolean in_names(const GString *names, const char *name)
{
  for (const char *n = names->str + 1; n < names->str + names->len;
       n += strlen(n) + 1)
    if (strcmp(n, name) == 0)
      return TRUE;
  return FALSE;
}

/* An empty value of an option that names a file: an error naming the
 * option, before anything runs ("" is no file name). */
static gboolean check_empty_files(int argc, char **argv, GError **error)
{
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *value = NULL;
    g_autofree char *name = NULL;

    if (strcmp(a, "--") == 0)
      break;
    if (g_str_has_prefix(a, "--")) {
      const char *eq = strchr(a, '=');

      name = eq ? g_strndup(a, (gsize)(eq - a)) : g_strdup(a);
      if (!in_names(file_longs, name + 2))
        continue;
      value = eq ? eq + 1 : i + 1 < argc ? argv[i + 1] : NULL;
    } else if (a[0] == '-' && a[1] && !a[2] &&
               memchr(file_shorts->str, a[1], file_shorts->len)) {
      value = i + 1 < argc ? argv[i + 1] : NULL;
      name = g_strdup(a);
    }
    if (value && value[0] == '\0') {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "%s: '' is an empty file name (expected a path)", name);
      return FALSE;
    }
  }
  return TRUE;
}

/* entries, with their text values taken as the bytes typed: GLib would
 * convert a string option's value from the locale's encoding, which under
 * the C locale (no setlocale here: LC_NUMERIC must stay "C" for the
 * outputs) refuses any byte above 127, so "--title µs" failed with a
 * message naming nothing.  cli_parse checks that every argument is UTF-8
 * instead.  GLib copies the entries it is given. */
static GOptionEntry *raw_entries(const GOptionEntry *entries)
{
  guint n = 0;
  GOptionEntry *raw;

  while (entries[n].long_name)
    n++;
  raw = g_new0(GOptionEntry, n + 1);
  memcpy(raw, entries, (n + 1) * sizeof *raw);
  for (guint i = 0; i < n; i++) {
    if (raw[i].arg == G_OPTION_ARG_STRING)
      raw[i].arg = G_OPTION_ARG_FILENAME;
    else if (raw[i].arg == G_OPTION_ARG_STRING_ARRAY)
      raw[i].arg = G_OPTION_ARG_FILENAME_ARRAY;
    else if (raw[i].arg == G_OPTION_ARG_CALLBACK &&
             !(raw[i].flags & G_OPTION_FLAG_NO_ARG))
      raw[i].flags |= G_OPTION_FLAG_FILENAME;
  }
  return raw;
}

void cli_add_entries(GOptionGroup *group, const GOptionEntry *entries)
{
  g_autofree GOptionEntry *raw = raw_entries(entries);

  note_entries(entries);
  g_option_group_add_entries(group, raw);
}

void cli_add_main_entries(GOptionContext *ctx, const GOptionEntry *entries)
{
  g_autofree GOptionEntry *raw = raw_entries(entries);

  note_entries(entries);
  g_option_context_add_main_entries(ctx, raw, NULL);
}

static gboolean takes_value_short(char c)
{
  return c != '\0' && value_shorts &&
         memchr(value_shorts->str, c, value_shorts->len) != NULL;
}

/* "--name" (without "=VALUE") of an option that takes a value. */
static gboolean takes_value_long(const char *arg)
{
  return value_longs && !strchr(arg, '=') && in_names(value_longs, arg + 2);
}

/* argv with each short option's attached value split off ("-b8" ->
 * "-b" "8", "-qb8" -> "-qb" "8"): a new array (to free, not its strings:
 * they are in *owned), or argv itself when no value is attached.  The options among them (not their
 * values, not the other arguments) are added to `options`. */
static char **split_attached(int *argc, char **argv, GPtrArray **owned,
                             GPtrArray *options)
{
  g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func(g_free);
  gboolean split = FALSE, rest = FALSE;

  g_ptr_array_add(out, g_strdup(argv[0]));
  for (int i = 1; i < *argc; i++) {
    const char *a = argv[i];
    gsize cut = 0;

    if (!rest && strcmp(a, "--") == 0)
      rest = TRUE;
    if (rest || a[0] != '-' || a[1] == '\0') {
      g_ptr_array_add(out, g_strdup(a));
      continue;
    }
    g_ptr_array_add(options, g_strdup(a));
    if (a[1] == '-') {
      g_ptr_array_add(out, g_strdup(a));
      /* its value is the next argument, whatever it looks like */
      if (takes_value_long(a) && i + 1 < *argc)
        g_ptr_array_add(out, g_strdup(argv[++i]));
      continue;
    }
    /* a group of short options: the first that takes a value ends it, and
     * what follows it is its value, else the next argument is */
    for (gsize j = 1; a[j] && cut == 0; j++)
      if (takes_value_short(a[j]))
        cut = j + 1;
    if (cut > 0 && a[cut] != '\0') {
      g_ptr_array_add(out, g_strndup(a, cut));
      g_ptr_array_add(out, g_strdup(a + cut));
      g_free(g_ptr_array_steal_index(options, options->len - 1));
      g_ptr_array_add(options, g_strndup(a, cut));
      split = TRUE;
      continue;
    }
    g_ptr_array_add(out, g_strdup(a));
    if (cut > 0 && i + 1 < *argc)
      g_ptr_array_add(out, g_strdup(argv[++i]));
  }
  if (!split)
    return argv;
  /* GLib moves the pointers of the array it parses (and drops those it
   * read): it gets a copy, and the strings stay in *owned */
  {
    char **copy = g_new0(char *, out->len + 1);

    memcpy(copy, out->pdata, out->len * sizeof(char *));
    *argc = (int)out->len;
    *owned = g_steal_pointer(&out);
    return copy;
  }
}

GOptionContext *cli_context_new(const char *parameter_string,
                                const char *summary, const char *description)
{
  GOptionContext *ctx = g_option_context_new(parameter_string);

  if (value_shorts) {
    g_string_truncate(value_shorts, 0);
    g_string_truncate(value_longs, 1);
  }

  g_option_context_set_summary(ctx, summary);
  if (description)
    g_option_context_set_description(ctx, description);
  return ctx;
}

/* Prints ctx's help to stdout.  GLib would print it itself, converted to
 * the locale's charset, where its "…" becomes "?" in the C locale (a fresh
 * machine, CI); print the UTF-8 text with "..." instead. */
static void cli_print_help(GOptionContext *ctx)
{
  g_autofree char *help = g_option_context_get_help(ctx, TRUE, NULL);
  g_auto(GStrv) parts = g_strsplit(help, "\u2026", -1);
  g_autofree char *ascii = g_strjoinv("...", parts);

  fputs(ascii, stdout);
}

/* --max-input SIZE (sim/input.h), which every command takes. */
static gboolean cli_parse_max_input(const gchar *option_name,
                                    const gchar *value, gpointer data,
                                    GError **error)
{
  guint64 bytes;

  (void)data;
  if (!sim_size_parse(value, &bytes, error)) {
    g_prefix_error(error, "%s: ", option_name);
    (*error)->domain = G_OPTION_ERROR;
    (*error)->code = G_OPTION_ERROR_BAD_VALUE;
    return FALSE;
  }
  if (bytes == 0) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "%s: 0 is not a file size (expected a size above 0, e.g. "
                "1G)",
                option_name);
    return FALSE;
  }
  sim_input_set_limit(bytes);
  return TRUE;
}

/* The options of the command line cli_parse read last, as typed but with
 * short options' attached values cut off (for cli_typed), and, when
 * values were attached, the arguments split (what the caller's argv
 * points to after cli_parse). */
static GPtrArray *typed_args, *split_args;
static char **split_argv;

const char *cli_typed(const char *long_name, char short_name)
{
  g_autofree char *lng = g_strconcat("--", long_name, NULL);
  gsize n = strlen(lng);
  gboolean short_seen = FALSE;

  for (guint i = 0; typed_args && i < typed_args->len; i++) {
    const char *a = g_ptr_array_index(typed_args, i);

    if (strcmp(a, "--") == 0)
      break;
    if (strncmp(a, lng, n) == 0 && (a[n] == '\0' || a[n] == '='))
      return g_intern_string(lng);
    /* -b, and groups of short options (-kb; values cut off) */
    if (short_name && a[0] == '-' && a[1] != '-' &&
        strchr(a + 1, short_name) != NULL)
      short_seen = TRUE;
  }
  if (short_seen) {
    char s[3] = {'-', short_name, '\0'};
    return g_intern_string(s);
  }
  return NULL;
}

const char *cli_flag_typed(const char *long_name, char short_name)
{
  const char *typed = cli_typed(long_name, short_name);
  g_autofree char *lng = NULL;

  if (typed)
    return typed;
  lng = g_strconcat("--", long_name, NULL);
  return g_intern_string(lng);
}

gboolean cli_parse(GOptionContext *ctx, const char *command, int *argc,
                   char ***argv, int *status)
{
  g_autoptr(GError) error = NULL;
  const GOptionEntry input[] = {
      {"max-input", 0, 0, G_OPTION_ARG_CALLBACK, cli_parse_max_input,
       "Read input files of up to SIZE (K/M/G/T; default 256M)", "SIZE"},
      G_OPTION_ENTRY_NULL};
  GOptionGroup *main_group = g_option_context_get_main_group(ctx);

  if (!main_group) {
    main_group = g_option_group_new(NULL, NULL, NULL, NULL, NULL);
    g_option_context_set_main_group(ctx, main_group);
  }
  cli_add_entries(main_group, input);
  if (typed_args)
    g_ptr_array_unref(typed_args);
  typed_args = g_ptr_array_new_with_free_func(g_free);
  g_clear_pointer(&split_args, g_ptr_array_unref);
  g_clear_pointer(&split_argv, g_free);
  *argv = split_attached(argc, *argv, &split_args, typed_args);
  if (split_args)
    split_argv = *argv;

  for (int i = 1; i < *argc; i++) {
    const char *a = (*argv)[i];
    if (strcmp(a, "--") == 0)
      break;
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0 ||
        strcmp(a, "-?") == 0 || strcmp(a, "--help-all") == 0) {
      cli_print_help(ctx);
      *status = CLI_EXIT_OK;
      return FALSE;
    }
  }
  /* Every argument is text, UTF-8 (raw_entries: GLib takes the bytes as
   * typed); one that is not is named, with the option it is for */
  for (int i = 1; i < *argc; i++) {
    const char *a = (*argv)[i];

    if (!g_utf8_validate(a, -1, NULL)) {
      g_autofree char *shown = g_utf8_make_valid(a, -1);
      const char *opt =
          i > 1 && (*argv)[i - 1][0] == '-' ? (*argv)[i - 1] : NULL;

      g_set_error(&error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "%s%s'%s' is not UTF-8 text (expected UTF-8)", opt ? opt : "",
                  opt ? ": " : "", shown);
      *status = cli_report(command, error);
      return FALSE;
    }
  }
  if (!check_empty_files(*argc, *argv, &error)) {
    *status = cli_report(command, error);
    return FALSE;
  }
  if (g_option_context_parse(ctx, argc, argv, &error))
    return TRUE;
  *status = cli_report(command, error);
  return FALSE;
}

static int cli_cmd_not_built(const CliCommand *cmd, int argc, char **argv)
{
  g_autofree char *description = g_strdup_printf(
      "Not built yet: this command arrives with %s.", cmd->not_built);
  g_autoptr(GOptionContext) ctx =
      cli_context_new(cmd->parameter_string, cmd->summary, description);
  g_auto(GStrv) rest = NULL;
  GOptionEntry entries[] = {
      {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &rest, NULL, NULL},
      G_OPTION_ENTRY_NULL};
  int status = CLI_EXIT_USAGE;
  g_autoptr(GError) error = NULL;

  cli_add_main_entries(ctx, entries);
  g_option_context_set_ignore_unknown_options(ctx, TRUE);
  if (!cli_parse(ctx, cmd->name, &argc, &argv, &status))
    return status;
  g_set_error(&error, CLI_ERROR, CLI_ERROR_NOT_BUILT,
              "not built yet: this command arrives with %s", cmd->not_built);
  return cli_report(cmd->name, error);
}

gboolean cli_parse_number_option(const gchar *option_name, const gchar *value,
                                 gpointer data, GError **error)
{
  const CliNumberTarget *t = data;
  g_autoptr(GError) local = NULL;
  gboolean ok;

  for (; t->long_name; t++) {
    gboolean is_long = g_str_has_prefix(option_name, "--") &&
                       strcmp(option_name + 2, t->long_name) == 0;
    gboolean is_short = t->short_name && option_name[0] == '-' &&
                        option_name[1] == t->short_name &&
                        option_name[2] == '\0';
    if (is_long || is_short)
      break;
  }
  g_assert(t->long_name != NULL); /* every number option has a target */
  ok = t->kind == CLI_NUMBER_SIZE
           ? sim_size_parse(value, t->value, &local)
           : sim_count_parse(value, t->max, t->value, &local);
  if (!ok) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s: %s",
                option_name, local->message);
    return FALSE;
  }
  if (t->seen)
    *t->seen = TRUE;
  return TRUE;
}

gboolean cli_check_name(char **value, const char *flag,
                        const char *const *names, GError **error)
{
  g_autoptr(GString) accepted = g_string_new(NULL);

  if (*value == NULL)
    return TRUE;
  for (const char *const *n = names; *n; n++) {
    if (g_ascii_strcasecmp(*value, *n) == 0) {
      g_free(*value);
      *value = g_strdup(*n);
      return TRUE;
    }
    g_string_append_printf(accepted, "%s%s", n == names ? "" : ", ", *n);
  }
  g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
              "%s: '%s' is not one of %s", flag, *value, accepted->str);
  return FALSE;
}

/* The memory limit's words (sim/memory.h): the flag that sets it and the
 * flag's value that would run a refused scenario. */
static char *cli_memory_advice(guint64 need_bytes)
{
  const double gib = 1024.0 * 1024.0 * 1024.0;

  return g_strdup_printf("--max-memory %.0fG runs it anyway",
                         ceil((double)need_bytes / gib));
}

void cli_memory_wording_install(void)
{
  static const SimMemoryWording w = {"allowed by --max-memory",
                                     cli_memory_advice};

  sim_memory_set_wording(&w);
}

gboolean cli_apply_max_memory(guint64 bytes, gboolean seen, GError **error)
{
  if (!seen)
    return TRUE;
  if (bytes == 0) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--max-memory: 0 is not an amount of memory (expected a size "
                "above 0, e.g. 64G)");
    return FALSE;
  }
  sim_memory_set_limit(bytes);
  return TRUE;
}

void cli_print_notes(const char *who, const char *notes)
{
  g_auto(GStrv) lines = g_strsplit(notes, "\n", -1);

  for (guint k = 0; lines[k]; k++)
    if (lines[k][0])
      fprintf(stderr, "ifsim: %s: %s\n", who, lines[k]);
}
