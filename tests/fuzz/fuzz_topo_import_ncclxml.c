/* libFuzzer harness: NCCL topology XML (NCCL_TOPO_DUMP_FILE), through
 * topo_import (topologies/import*.c) with the format forced, so inputs that
 * lose what auto-detection looks for still reach the parser.  A system file it
 * returns is loaded with topo_system_load_data, as `ifsim topo --import`
 * does.  See fuzz_common.h for the checks. */
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  fuzz_topo_import(data, size, TOPO_IMPORT_NCCL_XML);
  return 0;
}
