/* libFuzzer harness: nccl-tests output (validate/import_nccltests.c):
 * text, old and new layouts, and -J JSON (whose importer takes the raw
 * text), and its CSV transcription through val_import; see fuzz_import.h.
 * And through val_import_sets, which splits a paste of several runs. */
#include "tests/fuzz/fuzz_import.h"
#include "validate/import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const char *text = (const char *)data;

  fuzz_import_run(data, size, val__import_nccltests_text);
  if (fuzz_is_text(text, size)) {
    g_autoptr(GError) error = NULL;
    g_autoptr(ValMeasurements) m =
        val__import_nccltests_json("fuzz.json", text, size, &error);
    fuzz_check_meas("val__import_nccltests_json", m, error);
  }
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(GPtrArray) sets =
        g_ptr_array_new_with_free_func((GDestroyNotify)val_meas_free);
    gboolean ok = val_import_sets("fuzz.txt", text, size, NULL, sets, &error);
    fuzz_contract("val_import_sets", ok, error);
    if (ok != (sets->len > 0))
      abort();
    for (guint i = 0; i < sets->len; i++)
      fuzz_check_meas("val_import_sets", sets->pdata[i], NULL);
  }
  return 0;
}
