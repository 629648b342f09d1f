/* libFuzzer harness: the measurement format, val_meas_parse
 * (validate/measure.c), which hands text that is not in it to val_import;
 * the seeds are measurement files, so the fuzzer mostly stays in the
 * format's own reader.  See fuzz_common.h for the checks. */
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(ValMeasurements) m =
      val_meas_parse("fuzz.csv", (const char *)data, size, &error);

  fuzz_check_meas("val_meas_parse", m, error);
  return 0;
}
