/* libFuzzer harness: PyTorch profiler (Kineto) traces,
 * trc_workload_load_kineto_data (traces/workload_kineto.c): the input as a
 * one-rank trace with the step found, and with step 1 asked for.  A
 * workload it accepts must pass trc_workload_validate and survive the
 * trip through the workload CSV's writer.  See fuzz_common.h for the
 * contract checks. */
#include "sim/memory.h"
#include "tests/fuzz/fuzz_common.h"
#include "traces/workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static const gint64 steps[] = {-1, 1};
  const char *texts[] = {(const char *)data};
  gsize lens[] = {size};
  const char *names[] = {"fuzz.json"};

  /* a mutated gzip stream may unpack to much: refused, not held */
  sim_memory_set_limit((guint64)1 << 30);
  for (size_t i = 0; i < G_N_ELEMENTS(steps); i++) {
    g_autoptr(GError) error = NULL;
    g_autoptr(TrcWorkload) w = trc_workload_load_kineto_data(
        texts, lens, names, 1, steps[i], NULL, &error);

    fuzz_contract("trc_workload_load_kineto_data", w != NULL, error);
    if (w)
      fuzz_check_workload("trc_workload_load_kineto_data", w);
  }
  return 0;
}
