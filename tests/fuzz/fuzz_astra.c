/* libFuzzer harness: ASTRA-sim 1.0 / SimAI text workloads,
 * trc_workload_load_astra_data (traces/workload_astra.c), with the ranks
 * and model-parallel size from the file and given.  A workload it accepts
 * must pass trc_workload_validate.  See fuzz_common.h for the contract. */
#include "sim/memory.h"
#include "tests/fuzz/fuzz_common.h"
#include "traces/workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static const TrcAstraOptions opts[] = {
      {.ns_per_tick = 1},
      {.tp = 2, .tp_given_as = "--astra-tp", .gpus = 8, .ns_per_tick = 0.5},
  };

  /* a mutated count may ask for a big workload: refused, not built */
  sim_memory_set_limit((guint64)1 << 30);
  for (size_t i = 0; i < G_N_ELEMENTS(opts); i++) {
    g_autoptr(GError) error = NULL;
    g_autoptr(TrcWorkload) w = trc_workload_load_astra_data(
        (const char *)data, size, "fuzz.txt", &opts[i], &error);

    fuzz_contract("trc_workload_load_astra_data", w != NULL, error);
    if (w && !trc_workload_validate(w, NULL)) {
      fprintf(stderr, "fuzz: an ASTRA-sim workload does not validate\n");
      abort();
    }
  }
  return 0;
}
