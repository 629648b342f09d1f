/* libFuzzer harness: the training-step workload CSV,
 * trc_workload_load_csv_data (traces/workload.c).  A workload it accepts
 * must pass trc_workload_validate and survive the trip through its writer:
 * trc_workload_to_csv read back gives the same layout and ops.  See
 * fuzz_common.h for the contract checks. */
#include "tests/fuzz/fuzz_common.h"
#include "traces/workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrcWorkload) w =
      trc_workload_load_csv_data((const char *)data, size, "fuzz.csv", &error);

  fuzz_contract("trc_workload_load_csv_data", w != NULL, error);
  if (w)
    fuzz_check_workload("trc_workload_load_csv_data", w);
  return 0;
}
