/* `ifsim version`: the version, build and optional features. */
#include <stdio.h>

#include "sim/config.h"
#include "tools/cli.h"

int cli_cmd_version(int argc, char **argv)
{
  g_autoptr(GOptionContext) ctx = cli_context_new(
      NULL, "Print the version and the optional features built in.", NULL);
  int status = CLI_EXIT_USAGE;
  g_auto(GStrv) rest = NULL;
  GOptionEntry entries[] = {
      {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &rest, NULL, NULL},
      G_OPTION_ENTRY_NULL};

  cli_add_main_entries(ctx, entries);
  if (!cli_parse(ctx, "version", &argc, &argv, &status))
    return status;
  if (rest && rest[0]) {
    g_autoptr(GError) error = NULL;

    g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "unexpected argument '%s' (version takes none)", rest[0]);
    return cli_report("version", error);
  }
  printf("ifsim %s (%s, %s)\n", IFSIM_VERSION, IFSIM_BUILD_TYPE,
         IFSIM_C_COMPILER);
  printf("GLib %u.%u.%u\n", glib_major_version, glib_minor_version,
         glib_micro_version);
  printf("CUDA probes: %s\n", IFSIM_HAVE_CUDA
                                  ? "built (toolkit " IFSIM_CUDA_VERSION ")"
                                  : "not built");
  printf("NCCL probes: %s\n", IFSIM_HAVE_NCCL ? "built" : "not built");
  printf("NCCL over MPI (ifsim-probe nccl --mpi): %s\n",
         IFSIM_HAVE_MPI && IFSIM_HAVE_NCCL ? "built" : "not built");
  printf("MPI sweeps (mpirun ... ifsim sweep): %s\n",
         IFSIM_HAVE_MPI ? "built" : "not built");
  printf("RDMA probes: %s\n", IFSIM_HAVE_VERBS
                                  ? "built (libibverbs " IFSIM_VERBS_VERSION ")"
                                  : "not built");
  return CLI_EXIT_OK;
}
