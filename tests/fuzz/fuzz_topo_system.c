/* libFuzzer harness: system files (topology INI), topo_system_load_data
 * (topologies/system.c), which also applies the file's model groups and
 * builds the fabric.  See fuzz_common.h for the checks. */
#include "tests/fuzz/fuzz_common.h"
#include "topologies/system.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TopoSystem) sys = topo_system_load_data(
      (const char *)data, size, "fuzz.ini", NULL, &error);

  fuzz_contract("topo_system_load_data", sys != NULL, error);
  return 0;
}
