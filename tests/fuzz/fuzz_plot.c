/* libFuzzer harness: the CSVs `ifsim plot` reads, cli_plot_add
 * (tools/plot.c): run, sweep and replay results, per-link utilization and
 * link samples, told apart by their header.  Two inputs of one kind must
 * also add to one plot.  See fuzz_common.h for the contract. */
#include "tests/fuzz/fuzz_common.h"
#include "tools/plot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  g_autoptr(CliPlot) p = cli_plot_new();
  g_autoptr(GError) error = NULL;
  gboolean ok = cli_plot_add(p, "fuzz.csv", (const char *)data, size, &error);

  fuzz_contract("cli_plot_add", ok, error);
  if (ok) {
    g_autoptr(GError) again = NULL;
    gboolean twice =
        cli_plot_add(p, "again.csv", (const char *)data, size, &again);

    fuzz_contract("cli_plot_add (a second file)", twice, again);
  }
  return 0;
}
