/* libFuzzer harness: Chakra execution traces, trc_workload_load_chakra_data
 * (traces/workload_chakra.c), the input as one rank's file and, split at
 * its middle byte, as two ranks' files.  A workload it accepts must pass
 * trc_workload_validate and survive the trip through the workload CSV's
 * writer.  See fuzz_common.h for the contract checks. */
#include "tests/fuzz/fuzz_common.h"
#include "traces/workload.h"

static void one(const char *const *texts, const gsize *lens, guint n)
{
  static const char *const names[] = {"fuzz.0.et", "fuzz.1.et"};
  g_autoptr(GError) error = NULL;
  g_autoptr(TrcWorkload) w =
      trc_workload_load_chakra_data(texts, lens, names, n, NULL, &error);

  fuzz_contract("trc_workload_load_chakra_data", w != NULL, error);
  if (w)
    fuzz_check_workload("trc_workload_load_chakra_data", w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const char *text = (const char *)data;
  const char *whole[] = {text};
  const char *halves[] = {text, text + size / 2};
  gsize whole_len[] = {size};
  gsize half_len[] = {size / 2, size - size / 2};

  one(whole, whole_len, 1);
  one(halves, half_len, 2);
  return 0;
}
