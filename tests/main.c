/* Runs the Check suites listed in tests/suites.h.  ctest runs this binary
 * once per suite with CK_RUN_SUITE set; run it bare to run them all.  A run
 * that executes no test fails: a misspelt suite name must not pass. */
#include <stdio.h>
#include <stdlib.h>

#include "tests/suites.h"

int main(void)
{
  Suite *(*const suites[])(void) = {
      suite_time,     suite_units,    suite_pool,       suite_queue,
      suite_engine,   suite_rng,      suite_transport,  suite_dag,
      suite_packet,   suite_links,    suite_registry,   suite_topo,
      suite_faults,   suite_import,   suite_traces,     suite_collresults,
      suite_output,   suite_timeline, suite_nccl,       suite_cli,
      suite_sweep,    suite_measure,  suite_importmeas, suite_calibrate,
      suite_verbsnet, suite_workload, suite_plot,       suite_replay,
      suite_errors,   suite_accuracy, suite_input,      suite_tracelogs};
  SRunner *sr = srunner_create(NULL);
  int failed, run;

  for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++)
    srunner_add_suite(sr, suites[i]());
  srunner_run_all(sr, CK_ENV);
  failed = srunner_ntests_failed(sr);
  run = srunner_ntests_run(sr);
  srunner_free(sr);
  if (run == 0) {
    fprintf(stderr, "ifsim_tests: no test ran (CK_RUN_SUITE=%s?)\n",
            getenv("CK_RUN_SUITE") ? getenv("CK_RUN_SUITE") : "");
    return EXIT_FAILURE;
  }
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
