/* libFuzzer harness: sweep plan files, cli_sweep_load_plan_data and
 * cli_sweep_prepare (tools/sweep.c): the [sweep] and [vary] groups, their
 * keys and values, the grid.  Topology and model files a plan names are
 * read relative to it (here: the current folder; missing is an error like
 * any other).  See fuzz_common.h for the contract. */
#include "sim/memory.h"
#include "tests/fuzz/fuzz_common.h"
#include "tools/sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  g_autoptr(CliSweep) sw = cli_sweep_new();
  g_autoptr(GError) error = NULL;
  gboolean ok;

  sim_memory_set_limit((guint64)1 << 30);
  ok = cli_sweep_load_plan_data(sw, (const char *)data, size, "fuzz.ini",
                                &error) &&
       cli_sweep_prepare(sw, &error);
  fuzz_contract("cli_sweep_load_plan_data", ok, error);
  return 0;
}
