/* libFuzzer harness: nvbandwidth text (validate/import_cuda.c), and its
 * CSV transcription through val_import; see fuzz_import.h. */
#include "tests/fuzz/fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  fuzz_import_run(data, size, val__import_nvbw_text);
  return 0;
}
