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

/* Parses argv with ctx.  Returns FALSE with *status set when the command
 * should end now: CLI_EXIT_OK after printing --help, or the status of a
 * parse error reported as cli_report does. */
gboolean cli_parse(GOptionContext *ctx, const char *command, int *argc,
                   char ***argv, int *status);

/* Number options (sizes, counts): sim_parse_number_option in sim/units.h. */

int cli_cmd_run(int argc, char **argv);
int cli_cmd_sweep(int argc, char **argv);
int cli_cmd_models(int argc, char **argv);
int cli_cmd_topo(int argc, char **argv);
int cli_cmd_version(int argc, char **argv);
int cli_cmd_calibrate(int argc, char **argv);
int cli_cmd_validate(int argc, char **argv);
int cli_cmd_replay(int argc, char **argv);
int cli_cmd_plot(int argc, char **argv);

/* --max-memory SIZE, for the commands that build systems and run them
 * (sim/memory.h): its SimNumberTarget (in the option group's table) and
 * GOptionEntry, and cli_apply_max_memory() after parsing. */
#define CLI_MAX_MEMORY_TARGET(bytes, seen)                                     \
  {"max-memory", 0, SIM_NUMBER_SIZE, (bytes), (seen), 0}
#define CLI_MAX_MEMORY_ENTRY                                                   \
  {"max-memory", 0, 0, G_OPTION_ARG_CALLBACK, sim_parse_number_option,        \
   "Run what is estimated to need up to SIZE of memory (K/M/G/T; default: "   \
   "refuse more than the memory available)",                                  \
   "SIZE"}
gboolean cli_apply_max_memory(guint64 bytes, gboolean seen, GError **error);

#endif /* TOOLS_CLI_H */
