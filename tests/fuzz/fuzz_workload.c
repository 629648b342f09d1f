/* libFuzzer harness: the training-step workload CSV, wrk_load_csv_data
 * (traces/workload.c).  A workload it accepts must pass wrk_validate and
 * survive the trip through its writer: wrk_to_csv read back gives the same
 * layout and ops.  See fuzz_common.h for the contract checks. */
#include "tests/fuzz/fuzz_common.h"
#include "traces/workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(WrkWorkload) w =
      wrk_load_csv_data((const char *)data, size, "fuzz.csv", &error);

  fuzz_contract("wrk_load_csv_data", w != NULL, error);
  if (w) {
    g_autofree char *text = wrk_to_csv(w);
    g_autoptr(GError) again_error = NULL;
    g_autoptr(WrkWorkload) again =
        wrk_load_csv_data(text, strlen(text), "again.csv", &again_error);

    if (!wrk_validate(w, NULL) || !again || again->n_ops != w->n_ops ||
        again->tp != w->tp || again->pp != w->pp || again->dp != w->dp ||
        again->ep != w->ep) {
      fprintf(stderr, "fuzz: a workload did not survive wrk_to_csv: %s\n",
              again_error ? again_error->message : "(differs)");
      abort();
    }
  }
  return 0;
}
