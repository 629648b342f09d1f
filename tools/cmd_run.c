/* `ifsim run`: predict one collective over a size sweep, printed as
 * nccl-tests prints it.
 *
 * The options follow nccl-tests (-b/-e/-f/-i with K/M/G suffixes, binary
 * multiples) and NCCL (--algo/--proto names).  This file parses and checks
 * them; the prediction itself needs the link models, topologies, transports
 * and collective planner, which are not built yet, so a valid command line
 * ends with a "not built yet" error (exit status 2). */
#include <stdio.h>
#include <string.h>

#include "sim/units.h"
#include "tools/cli.h"

#define COMMAND "run"

typedef struct {
  char *topology;
  char *collective;
  guint64 min_bytes;
  guint64 max_bytes;
  guint64 step_bytes;
  gboolean step_bytes_seen;
  guint64 step_factor;
  gboolean step_factor_seen;
  char *algo;
  char *proto;
  char *fidelity;
  char *csv;
  char *json;
  char *timeline;
} RunOptions;

static const char *const run_collectives[] = {
    "allreduce", "allgather", "reducescatter", "broadcast",
    "reduce",    "alltoall",  "sendrecv",      NULL};
/* NCCL_ALGO names (src/graph/tuning.cc), compared case-insensitively. */
static const char *const run_algos[] = {
    "ring",          "tree",         "nvls", "nvlstree",
    "collnetdirect", "collnetchain", "pat",  NULL};
static const char *const run_protos[] = {"ll", "ll128", "simple", NULL};
static const char *const run_fidelities[] = {"analytical", "flow", "packet",
                                             NULL};

static void run_options_clear(RunOptions *o)
{
  g_free(o->topology);
  g_free(o->collective);
  g_free(o->algo);
  g_free(o->proto);
  g_free(o->fidelity);
  g_free(o->csv);
  g_free(o->json);
  g_free(o->timeline);
}

/* Checks that value (if set) is one of names, ignoring case and the '_'
 * nccl-tests puts in collective names (all_reduce).  Rewrites value to the
 * canonical name. */
static gboolean run_check_name(char **value, const char *flag,
                               const char *const *names, GError **error)
{
  g_autofree char *folded = NULL;
  g_autoptr(GString) accepted = g_string_new(NULL);
  char *w = NULL;

  if (*value == NULL)
    return TRUE;
  folded = g_ascii_strdown(*value, -1);
  w = folded;
  for (const char *r = folded; *r; r++) {
    if (*r != '_')
      *w++ = *r;
  }
  *w = '\0';
  for (const char *const *n = names; *n; n++) {
    if (strcmp(folded, *n) == 0) {
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

static gboolean run_check(RunOptions *o, GError **error)
{
  if (!run_check_name(&o->collective, "--collective", run_collectives, error) ||
      !run_check_name(&o->algo, "--algo", run_algos, error) ||
      !run_check_name(&o->proto, "--proto", run_protos, error) ||
      !run_check_name(&o->fidelity, "--fidelity", run_fidelities, error))
    return FALSE;
  if (o->min_bytes == 0) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "--minbytes: must be at least 1 byte");
    return FALSE;
  }
  if (o->min_bytes > o->max_bytes) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "--minbytes (%" G_GUINT64_FORMAT ") is larger than --maxbytes "
                "(%" G_GUINT64_FORMAT ")",
                o->min_bytes, o->max_bytes);
    return FALSE;
  }
  if (o->step_bytes_seen && o->step_factor_seen) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "--stepbytes and --stepfactor exclude each other");
    return FALSE;
  }
  if (o->step_bytes_seen && o->step_bytes == 0) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "--stepbytes: must be at least 1 byte");
    return FALSE;
  }
  if (!o->step_bytes_seen && o->step_factor < 2) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "--stepfactor: %" G_GUINT64_FORMAT " is below 2 (use "
                "--stepbytes for linear steps)",
                o->step_factor);
    return FALSE;
  }
  return TRUE;
}

int cli_cmd_run(int argc, char **argv)
{
  RunOptions o = {
      .min_bytes = 8, .max_bytes = UINT64_C(8) << 30, .step_factor = 2};
  CliNumberTarget numbers[] = {
      {"minbytes", 'b', CLI_NUMBER_SIZE, &o.min_bytes, NULL},
      {"maxbytes", 'e', CLI_NUMBER_SIZE, &o.max_bytes, NULL},
      {"stepbytes", 'i', CLI_NUMBER_SIZE, &o.step_bytes, &o.step_bytes_seen},
      {"stepfactor", 'f', CLI_NUMBER_COUNT, &o.step_factor,
       &o.step_factor_seen},
      {NULL, 0, 0, NULL, NULL}};
  GOptionEntry entries[] = {
      {"topology", 't', 0, G_OPTION_ARG_FILENAME, &o.topology,
       "System to simulate (default: the embedded 8-GPU H100 server)",
       "TOPO.ini"},
      {"collective", 'c', 0, G_OPTION_ARG_STRING, &o.collective,
       "allreduce, allgather, reducescatter, broadcast, reduce, alltoall or "
       "sendrecv (default allreduce)",
       "NAME"},
      {"minbytes", 'b', 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,
       "Smallest size, K/M/G/T suffixes are binary (default 8)", "SIZE"},
      {"maxbytes", 'e', 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,
       "Largest size (default 8G)", "SIZE"},
      {"stepfactor", 'f', 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,
       "Multiply the size by N between steps (default 2)", "N"},
      {"stepbytes", 'i', 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,
       "Add SIZE between steps instead of multiplying", "SIZE"},
      {"algo", 0, 0, G_OPTION_ARG_STRING, &o.algo,
       "Force an NCCL algorithm: ring, tree, nvls, nvlstree, collnetdirect, "
       "collnetchain, pat",
       "NAME"},
      {"proto", 0, 0, G_OPTION_ARG_STRING, &o.proto,
       "Force an NCCL protocol: ll, ll128, simple", "NAME"},
      {"fidelity", 0, 0, G_OPTION_ARG_STRING, &o.fidelity,
       "Transport: analytical, flow (default) or packet", "LEVEL"},
      {"csv", 0, 0, G_OPTION_ARG_FILENAME, &o.csv, "Also write results as CSV",
       "FILE"},
      {"json", 0, 0, G_OPTION_ARG_FILENAME, &o.json,
       "Also write results as JSON", "FILE"},
      {"timeline", 0, 0, G_OPTION_ARG_FILENAME, &o.timeline,
       "Write a Perfetto/Chrome timeline of the largest size", "FILE"},
      G_OPTION_ENTRY_NULL};
  g_autoptr(GOptionContext) ctx = cli_context_new(
      NULL, "Predict how long a collective takes over a range of sizes.",
      "With no options, runs AllReduce from 8 B to 8 GiB on the embedded "
      "8-GPU H100 server.\nSizes are decimal with optional K, M, G, T "
      "suffixes (binary multiples), as in nccl-tests.");
  GOptionGroup *group =
      g_option_group_new(COMMAND, "run options", "run options", numbers, NULL);
  g_autoptr(GError) error = NULL;
  int status = CLI_EXIT_USAGE;

  g_option_group_add_entries(group, entries);
  g_option_context_set_main_group(ctx, group);
  if (!cli_parse(ctx, COMMAND, &argc, &argv, &status))
    goto out;
  if (argc > 1) {
    g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "unexpected argument '%s'", argv[1]);
    status = cli_report(COMMAND, error);
    goto out;
  }
  if (!run_check(&o, &error)) {
    status = cli_report(COMMAND, error);
    goto out;
  }
  g_set_error(&error, CLI_ERROR, CLI_ERROR_NOT_BUILT,
              "not built yet: predictions need the link models, topologies, "
              "transports and collective planner (issues 3-7)");
  status = cli_report(COMMAND, error);
out:
  run_options_clear(&o);
  return status;
}
