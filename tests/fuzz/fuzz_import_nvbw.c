/* libFuzzer harness: nvbandwidth text and -j JSON (validate/import_cuda.c;
 * the JSON importer takes the raw text), and its CSV transcription through
 * val_import; see fuzz_import.h. */
#include "tests/fuzz/fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const char *text = (const char *)data;

  fuzz_import_run(data, size, val__import_nvbw_text);
  if (fuzz_is_text(text, size)) {
    g_autoptr(GError) error = NULL;
    g_autoptr(ValMeasurements) m =
        val__import_nvbw_json("fuzz.json", text, size, &error);
    fuzz_check_meas("val__import_nvbw_json", m, error);
  }
  return 0;
}
