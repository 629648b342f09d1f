/* ifsim-probe: dispatch of the hardware probes; see validate/probe.h. */
#include <stdio.h>
#include <string.h>

#include "validate/probe.h"

typedef struct {
  const char *name;
  const char *summary;
  int (*fn)(int argc, char **argv);
} ProbeCommand;

static const ProbeCommand probe_commands[] = {
    {"devices", "list CUDA GPUs and RDMA devices found here",
     val_probe_devices},
    {"p2p", "GPU<->GPU copy bandwidth and latency matrices", val_probe_p2p},
    {"hostdev", "host<->device bandwidth and latency", val_probe_hostdev},
    {"nccl", "NCCL collective sweeps over the local GPUs", val_probe_nccl},
    {"verbs", "RDMA WRITE/SEND bandwidth and latency between two hosts", val_probe_verbs},
};

static void probe_usage(FILE *out)
{
  fprintf(out, "Usage: ifsim-probe PROBE [OPTION...]\n\nProbes:\n");
  for (size_t i = 0; i < G_N_ELEMENTS(probe_commands); i++)
    fprintf(out, "  %-8s %s%s\n", probe_commands[i].name,
            probe_commands[i].summary,
            probe_commands[i].fn ? "" : " [not built yet]");
  fprintf(out, "\nExit status 77 means the device a probe needs is "
               "absent.\n");
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    probe_usage(stderr);
    return PROBE_EXIT_USAGE;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    probe_usage(stdout);
    return PROBE_EXIT_OK;
  }
  probe_set_command(argc, argv);
  for (size_t i = 0; i < G_N_ELEMENTS(probe_commands); i++) {
    const ProbeCommand *c = &probe_commands[i];
    if (strcmp(argv[1], c->name) != 0)
      continue;
    if (!c->fn) {
      fprintf(stderr,
              "ifsim-probe: %s: not built yet (the probes arrive with "
              "issue 9)\n",
              c->name);
      return PROBE_EXIT_USAGE;
    }
    return c->fn(argc - 1, argv + 1);
  }
  fprintf(stderr,
          "ifsim-probe: unknown probe '%s'; see 'ifsim-probe "
          "--help'\n",
          argv[1]);
  return PROBE_EXIT_USAGE;
}
