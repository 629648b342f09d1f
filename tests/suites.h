/* The Check suites of ifsim, one per source folder file; tests/main.c runs
 * them (all, or the one named by CK_RUN_SUITE, which ctest sets). */
#ifndef TESTS_SUITES_H
#define TESTS_SUITES_H

#include <check.h>

Suite *suite_time(void);
Suite *suite_units(void);
Suite *suite_pool(void);
Suite *suite_queue(void);
Suite *suite_engine(void);
Suite *suite_rng(void);
Suite *suite_transport(void);
Suite *suite_dag(void);
Suite *suite_packet(void);
Suite *suite_links(void);
Suite *suite_registry(void);
Suite *suite_topo(void);
Suite *suite_faults(void);
Suite *suite_import(void);
Suite *suite_traces(void);
Suite *suite_collresults(void);
Suite *suite_output(void);
Suite *suite_timeline(void);
Suite *suite_nccl(void);
Suite *suite_cli(void);
Suite *suite_sweep(void);
Suite *suite_measure(void);
Suite *suite_importmeas(void);
Suite *suite_calibrate(void);
Suite *suite_verbsnet(void);
Suite *suite_workload(void);
Suite *suite_plot(void);
Suite *suite_replay(void);
Suite *suite_tracelogs(void);
Suite *suite_errors(void);
Suite *suite_accuracy(void);
Suite *suite_input(void);

#endif /* TESTS_SUITES_H */
