/* libFuzzer harness: model override files (INI of [link NAME], [switch
 * NAME], [nic NAME], [nccl]), mdl_registry_load_data (models/registry.c)
 * on a fresh registry of the built-in models, as `ifsim --models FILE`
 * does: a fresh one per input, so every run is reproducible alone.  See
 * fuzz_common.h for the checks. */
#include "models/registry.h"
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(MdlRegistry) r = mdl_registry_new_builtin(&error);
  gboolean ok;

  fuzz_contract("mdl_registry_new_builtin", r != NULL, error);
  if (!r)
    abort();
  ok = mdl_registry_load_data(r, (const char *)data, size, "fuzz.ini",
                              &error);
  fuzz_contract("mdl_registry_load_data", ok, error);
  return 0;
}
