/* libFuzzer harness: the training-step workload CSV,
 * trc_workload_load_csv_data (traces/workload.c).  A workload it accepts
 * must pass trc_workload_validate and survive the trip through its writer:
 * trc_workload_to_csv read back gives the same layout and ops.  See
 * fuzz_common.h for the contract checks. */
#include "tests/fuzz/fuzz_common.h"
#include "traces/workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TrcWorkload) w =
      trc_workload_load_csv_data((const char *)data, size, "fuzz.csv", &error);

  fuzz_contract("trc_workload_load_csv_data", w != NULL, error);
  if (w) {
    g_autofree char *text = trc_workload_to_csv(w);
    g_autoptr(GError) again_error = NULL;
    g_autoptr(TrcWorkload) again = trc_workload_load_csv_data(
        text, strlen(text), "again.csv", &again_error);

    if (!trc_workload_validate(w, NULL) || !again || again->n_ops != w->n_ops ||
        again->tp != w->tp || again->pp != w->pp || again->dp != w->dp ||
        again->ep != w->ep) {
      fprintf(stderr,
              "fuzz: a workload did not survive trc_workload_to_csv: %s\n",
              again_error ? again_error->message : "(differs)");
      abort();
    }
  }
  return 0;
}
