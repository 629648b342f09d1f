/* libFuzzer harness: `--llm` specs, trc_llm_parse and trc_llm_generate
 * (traces/workload_llm.c).  The spec is NUL-terminated text on the command
 * line, so the input is cut at its first NUL.  A generated workload must
 * pass trc_workload_validate and hold at most trc_llm_ops_bound ops (the
 * figure checked against memory before it is made).  See fuzz_common.h. */
#include "sim/memory.h"
#include "tests/fuzz/fuzz_common.h"
#include "traces/workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  g_autofree char *spec = g_strndup((const char *)data, size);
  g_autoptr(GError) error = NULL;
  g_autoptr(TrcWorkload) w = NULL;
  TrcLlmParams p;
  gboolean ok;

  sim_memory_set_limit((guint64)1 << 28);
  ok = trc_llm_parse(spec, &p, &error);
  fuzz_contract("trc_llm_parse", ok, error);
  if (!ok)
    return 0;
  w = trc_llm_generate(&p, &error);
  fuzz_contract("trc_llm_generate", w != NULL, error);
  if (w &&
      (!trc_workload_validate(w, NULL) || w->n_ops > trc_llm_ops_bound(&p))) {
    fprintf(stderr,
            "fuzz: %s: %u ops (bound %" G_GUINT64_FORMAT ") or invalid\n", spec,
            w->n_ops, trc_llm_ops_bound(&p));
    abort();
  }
  return 0;
}
