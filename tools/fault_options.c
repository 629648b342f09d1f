/* --fail, --degrade, --lossy, --slow-gpu, --fail-random, --fault-seed:
 * tools/fault_options.h. */
#include "tools/fault_options.h"

void cli_fault_add_entries(GOptionGroup *group, CliFaultOptions *f)
{
  const GOptionEntry entries[] = {
      {"fail", 0, 0, G_OPTION_ARG_STRING_ARRAY, &f->fail,
       "Take an element down: a switch or NIC (p0.spine3, s2.nic1), a GPU's "
       "or NVSwitch's NVLinks (s0.gpu3, s0.nvsw1), a link ('p0.leaf0 "
       "p0.spine1'), N of a link's cables ('A B xN'); * and ? match "
       "(repeatable; docs/faults.md)",
       "ELEMENT"},
      {"degrade", 0, 0, G_OPTION_ARG_STRING_ARRAY, &f->degrade,
       "Run links slower: 'ELEMENT FRACTION' (0.25: a 4x port at 1x) or "
       "'ELEMENT LINK-MODEL' (ib-hdr-4x: NDR trained at HDR) (repeatable)",
       "'ELEMENT RATE'"},
      {"lossy", 0, 0, G_OPTION_ARG_STRING_ARRAY, &f->lossy,
       "Network links with bit errors: 'ELEMENT BER', the rate after FEC "
       "(1e-8); a packet hit is dropped and resent (repeatable)",
       "'ELEMENT BER'"},
      {"slow-gpu", 0, 0, G_OPTION_ARG_STRING_ARRAY, &f->slow_gpu,
       "A straggler: 'GPU FACTOR', its compute and its NCCL kernels' "
       "channels FACTOR (>= 1) times as slow (repeatable)",
       "'GPU FACTOR'"},
      {"fail-random", 0, 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,
       "Take K network links down, drawn at random (--fault-seed)", "K"},
      {"fault-seed", 0, 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,
       "Seed of --fail-random's draw (default 1)", "N"},
      G_OPTION_ENTRY_NULL};

  cli_add_entries(group, entries);
}

gboolean cli_fault_apply(TopoSystem *sys, const CliFaultOptions *f,
                         GError **error)
{
  TopoFaultSpec spec = {
      .fail = (const char *const *)f->fail,
      .degrade = (const char *const *)f->degrade,
      .random_links = (guint32)f->random,
      .seed = f->seed_seen ? (guint32)f->seed : 1,
      .slow_gpus = (const char *const *)f->slow_gpu,
      .lossy = (const char *const *)f->lossy,
      .where_lossy = "--lossy",
      .where_fail = "--fail",
      .where_degrade = "--degrade",
      .where_random = "--fail-random",
      .where_slow = "--slow-gpu",
  };

  if (f->seed_seen && !f->random_seen) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "--fault-seed: seeds --fail-random, which is not given");
    return FALSE;
  }
  return topo_system_add_faults(sys, &spec, error);
}

void cli_fault_options_clear(CliFaultOptions *f)
{
  g_strfreev(f->fail);
  g_strfreev(f->degrade);
  g_strfreev(f->slow_gpu);
  g_strfreev(f->lossy);
  f->fail = f->degrade = f->slow_gpu = f->lossy = NULL;
}

void cli_fault_print(FILE *out, const TopoSystem *sys)
{
  g_auto(GStrv) lines = topo_system_fault_lines(sys);
  guint32 down, slow;

  if (!lines)
    return;
  topo_system_fault_counts(sys, &down, &slow);
  fprintf(out, "Faults: %u physical link%s down, %u slower\n", down,
          down == 1 ? "" : "s", slow);
  for (guint i = 0; lines[i]; i++)
    fprintf(out, "  %s\n", lines[i]);
}
