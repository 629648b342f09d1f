/* libFuzzer harness: the rules of NCCL's example tuner plugin
 * (nccl_tuner_load_data, collectives/nccl/tuner.c), as `ifsim run
 * --tuner-config FILE` reads them; every rule it accepts is then matched
 * against a call, as nccl_select does.  See fuzz_common.h for the
 * checks. */
#include "collectives/nccl/nccl_internal.h"
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NcclTuner) t =
      nccl_tuner_load_data((const char *)data, size, "fuzz.conf", &error);

  fuzz_contract("nccl_tuner_load_data", t != NULL, error);
  for (guint i = 0; t && i < nccl_tuner_n_rules(t); i++) {
    const NcclTunerRule *r = nccl_tuner_rule(t, i);

    if (r->coll >= NCCL_N_TUNED_COLLS || r->algo >= NCCL_N_ALGOS ||
        r->proto >= NCCL_N_PROTOS || r->min_bytes > r->max_bytes ||
        r->channels < -1 || r->channels > NCCL_MAX_CHANNELS)
      abort();
    (void)nccl_tuner_rule_matches(r, r->coll, r->min_bytes, 1, 8, 1, 0);
  }
  return 0;
}
