/* libFuzzer harness: replay's jobs files, cli_jobs_load_data
 * (tools/jobs.c): [job NAME] groups, their keys, server lists, placements,
 * and the workloads they name (an LLM spec inline; files relative to the
 * jobs file, here the current folder).  See fuzz_common.h. */
#include "sim/memory.h"
#include "tests/fuzz/fuzz_common.h"
#include "tools/jobs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  g_autoptr(GArray) jobs = g_array_new(FALSE, TRUE, sizeof(CliJob));
  g_autoptr(GError) error = NULL;
  gboolean ok;

  sim_memory_set_limit((guint64)1 << 28);
  ok = cli_jobs_load_data((const char *)data, size, "fuzz.ini", jobs, &error);
  fuzz_contract("cli_jobs_load_data", ok, error);
  for (guint i = 0; i < jobs->len; i++)
    cli_job_clear(&g_array_index(jobs, CliJob, i));
  return 0;
}
