/* libFuzzer harness: NCCL logs, trc_workload_load_nccl_log_data
 * (traces/workload_nccllog.c), as one file and split in two at the input's
 * middle line (one file per process), with no gap and with gaps from the
 * timestamps.  A workload it accepts must pass trc_workload_validate and
 * survive the trip through the workload CSV's writer.  See fuzz_common.h
 * for the contract checks. */
#include <string.h>

#include "tests/fuzz/fuzz_common.h"
#include "traces/workload.h"

static void one(const char *const *texts, const gsize *lens, guint n,
                const TrcNcclLogOptions *o)
{
  static const char *const names[] = {"fuzz-a.log", "fuzz-b.log"};
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) notes = g_string_new(NULL);
  g_autoptr(TrcWorkload) w =
      trc_workload_load_nccl_log_data(texts, lens, names, n, o, notes, &error);

  fuzz_contract("trc_workload_load_nccl_log_data", w != NULL, error);
  if (w)
    fuzz_check_workload("trc_workload_load_nccl_log_data", w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const char *text = (const char *)data;
  const char *mid = memchr(text + size / 2, '\n', size - size / 2);
  gsize cut = mid ? (gsize)(mid - text) + 1 : size;
  const char *whole[] = {text};
  const char *halves[] = {text, text + cut};
  gsize whole_len[] = {size};
  gsize half_len[] = {cut, size - cut};
  TrcNcclLogOptions none = {0}, stamps = {.timestamps = TRUE};

  one(whole, whole_len, 1, &none);
  one(whole, whole_len, 1, &stamps);
  one(halves, half_len, 2, &none);
  return 0;
}
