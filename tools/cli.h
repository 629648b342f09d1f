/* The ifsim command-line interface: subcommand table and shared helpers.
 *
 * Conventions: every subcommand parses its own options with one
 * GOptionContext (so each has --help); bad input is reported on stderr as
 * "ifsim: <command>: <place>: <message>" and exits CLI_EXIT_USAGE (2). */
#ifndef TOOLS_CLI_H
#define TOOLS_CLI_H

#include <glib.h>

#include "sim/units.h"

#define CLI_EXIT_OK 0
#define CLI_EXIT_USAGE 2 /* bad input: flags, files, values */

#define CLI_ERROR (cli_error_quark())
GQuark cli_error_quark(void);

typedef enum {
  CLI_ERROR_BAD_VALUE,
  CLI_ERROR_NOT_BUILT,
} CliErrorCode;

/* Entry point of the `ifsim` binary: dispatches on argv[1]. */
int cli_main(int argc, char **argv);

/* Prints "ifsim: <command>: <message>" to stderr (plus a pointer to --help
 * for option errors) and returns CLI_EXIT_USAGE, the status for bad input;
 * for a run a signal interrupted (sim/interrupt.h), 128 + the signal. */
int cli_report(const char *command, const GError *error);

/* Builds a GOptionContext for a subcommand: parameter_string follows the
 * options in the usage line, summary and description frame --help. */
GOptionContext *cli_context_new(const char *parameter_string,
                                const char *summary, const char *description);

/* Adds entries to group (or, group NULL, to ctx's main group) as GLib
 * does, noting the options that take a value: cli_parse then reads
 * "-b8" as "-b 8" and "-ab8" as "-a -b 8" (getopt's way, which
 * nccl-tests' users type; GLib reads a short option's value only from the
 * next argument).  Every entry of a command is added through these. */
void cli_add_entries(GOptionGroup *group, const GOptionEntry *entries);
void cli_add_main_entries(GOptionContext *ctx, const GOptionEntry *entries);

/* Parses argv with ctx.  Returns FALSE with *status set when the command
 * should end now: CLI_EXIT_OK after printing --help, or the status of a
 * parse error reported as cli_report does. */
gboolean cli_parse(GOptionContext *ctx, const char *command, int *argc,
                   char ***argv, int *status);

/* Number options.  Numbers on command lines are decimal, never octal or
 * hex (GOption's INT/INT64 read "010" as 8): options parsed by
 * cli_parse_number_option name their target in a table passed as the
 * option group's user data, ended by an entry whose long_name is NULL. */
typedef enum {
  CLI_NUMBER_SIZE,  /* bytes with K/M/G/T suffixes (sim_size_parse) */
  CLI_NUMBER_COUNT, /* a plain decimal count (sim_count_parse) */
} CliNumberKind;

typedef struct {
  const char *long_name; /* without dashes, e.g. "minbytes" */
  char short_name;       /* e.g. 'b', or 0 */
  CliNumberKind kind;
  guint64 *value;
  gboolean *seen; /* set to TRUE when the option is given; may be NULL */
  guint64 max;    /* largest count accepted; 0: no bound below 2^64 */
} CliNumberTarget;

/* GOptionArgFunc for the options of a CliNumberTarget table; errors are
 * G_OPTION_ERROR_BAD_VALUE naming the option as typed ("-b: '12X' is not
 * a size ..."). */
gboolean cli_parse_number_option(const gchar *option_name, const gchar *value,
                                 gpointer data, GError **error);

int cli_cmd_run(int argc, char **argv);
int cli_cmd_sweep(int argc, char **argv);
int cli_cmd_models(int argc, char **argv);
int cli_cmd_topo(int argc, char **argv);
int cli_cmd_version(int argc, char **argv);
int cli_cmd_calibrate(int argc, char **argv);
int cli_cmd_validate(int argc, char **argv);
int cli_cmd_replay(int argc, char **argv);
int cli_cmd_faults(int argc, char **argv);
int cli_cmd_plot(int argc, char **argv);

/* The spelling of an option the user typed on this command line, for
 * messages: "--minbytes" or "-b" (short_name; 0: it has none) as given
 * (the long one when both were), NULL when it was not given.  Interned. */
const char *cli_typed(const char *long_name, char short_name);
/* The same, "--long_name" when it was not given (a message about a
 * default or a value from elsewhere). */
const char *cli_flag_typed(const char *long_name, char short_name);

/* Checks that *value (if set) is one of names, ignoring case, and makes
 * it that name's spelling; else "FLAG: 'v' is not one of a, b, c". */
gboolean cli_check_name(char **value, const char *flag,
                        const char *const *names, GError **error);

/* --max-memory SIZE, for the commands that build systems and run them
 * (sim/memory.h): its CliNumberTarget (in the option group's table) and
 * GOptionEntry, and cli_apply_max_memory() after parsing. */
/* clang-format off */
#define CLI_MAX_MEMORY_TARGET(bytes, seen)                                     \
  {"max-memory", 0, CLI_NUMBER_SIZE, (bytes), (seen), 0}
#define CLI_MAX_MEMORY_ENTRY                                                   \
  {"max-memory", 0, 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,        \
   "Run what is estimated to need up to SIZE of memory (K/M/G/T; default: "   \
   "refuse more than the memory available)",                                  \
   "SIZE"}
/* clang-format on */
gboolean cli_apply_max_memory(guint64 bytes, gboolean seen, GError **error);
/* Has the engine's memory refusals name --max-memory and the value that
 * would run them (cli_main does it before any command). */
void cli_memory_wording_install(void);

/* Prints each line of notes (a reader's, '\n'-separated) on standard
 * error as "ifsim: WHO: LINE". */
void cli_print_notes(const char *who, const char *notes);

/* The note run and validate print for collectives launched as CUDA graphs
 * across servers (nccl-tests -G; docs/nccl.md): what is not modelled. */
#define CLI_GRAPH_NOTE                                                         \
  "CUDA graph launches across nodes: NCCL runs a host function before each "   \
  "captured call to hand its network operations to the proxy thread, and "     \
  "the call waits for it; its latency is not modelled"

#endif /* TOOLS_CLI_H */
