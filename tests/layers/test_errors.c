/* Each layer raises errors in a GError domain of its own, spelled
 * "ifsim-LAYER-error-quark", so a caller (and a reader of a bug report)
 * can tell where an error came from: the quarks are distinct, and a
 * bad input of each layer's own comes back in that layer's domain. */
#include <string.h>

#include "collectives/error.h"
#include "collectives/nccl/nccl.h"
#include "models/params.h"
#include "models/registry.h"
#include "sim/error.h"
#include "sim/units.h"
#include "tests/suites.h"
#include "tools/cli.h"
#include "tools/run.h"
#include "topologies/error.h"
#include "topologies/system.h"
#include "traces/error.h"
#include "traces/workload.h"
#include "validate/error.h"
#include "validate/measure.h"

static const struct {
  const char *layer;
  GQuark (*quark)(void);
} domains[] = {
    {"sim", sim_error_quark},         {"models", mdl_error_quark},
    {"topologies", topo_error_quark}, {"collectives", coll_error_quark},
    {"traces", trc_error_quark},      {"validate", val_error_quark},
    {"tools", cli_error_quark},
};

START_TEST(test_domains_distinct)
{
  for (gsize i = 0; i < G_N_ELEMENTS(domains); i++) {
    g_autofree char *want =
        g_strdup_printf("ifsim-%s-error-quark", domains[i].layer);

    ck_assert_str_eq(g_quark_to_string(domains[i].quark()), want);
    for (gsize j = 0; j < i; j++)
      ck_assert_uint_ne(domains[i].quark(), domains[j].quark());
  }
}
END_TEST

/* A bad input of each layer's own, and the domain it comes back in. */
START_TEST(test_raised_where)
{
  g_autoptr(GError) sim = NULL, mdl = NULL, topo = NULL, coll = NULL;
  g_autoptr(GError) trc = NULL, val = NULL, cli = NULL;
  g_autoptr(MdlRegistry) r = mdl_registry_new();
  static const char model[] = "[bogus]\n";
  static const char system[] = "[system]\nserver = nope\nservers = 1\n";
  static const char workload[] = "not,a,workload\n";
  static const char meas[] = "no measurement here\n";
  guint64 n;
  guint32 k;
  g_autoptr(TopoSystem) h100 =
      topo_system_load_builtin("server:dgx-h100", NULL);
  NcclOptions opt = {.ranks = 16};

  ck_assert(!sim_size_parse("12X", &n, &sim));
  ck_assert(g_error_matches(sim, SIM_ERROR, SIM_ERROR_PARSE));
  ck_assert(!mdl_registry_load_data(r, model, strlen(model), "m.ini", &mdl));
  ck_assert(mdl->domain == MDL_ERROR);
  ck_assert(
      !topo_system_load_data(system, strlen(system), "s.ini", NULL, &topo));
  ck_assert_msg(topo->domain == TOPO_ERROR, "%s: %s",
                g_quark_to_string(topo->domain), topo->message);
  ck_assert(h100 != NULL);
  ck_assert(!nccl_comm_new(h100, &opt, &coll));
  ck_assert(g_error_matches(coll, COLL_ERROR, COLL_ERROR_VALUE));
  ck_assert(
      !trc_workload_load_csv_data(workload, strlen(workload), "w.csv", &trc));
  ck_assert_msg(trc->domain == TRC_ERROR, "%s: %s",
                g_quark_to_string(trc->domain), trc->message);
  ck_assert(!val_meas_parse("m.txt", meas, strlen(meas), &val));
  ck_assert_msg(val->domain == VAL_ERROR, "%s: %s",
                g_quark_to_string(val->domain), val->message);
  ck_assert(!cli_parse_hot_links("x", &k, &cli));
  ck_assert(cli->domain == CLI_ERROR);
}
END_TEST

Suite *suite_errors(void)
{
  Suite *s = suite_create("errors");
  TCase *tc = tcase_create("domains");

  tcase_add_test(tc, test_domains_distinct);
  tcase_add_test(tc, test_raised_where);
  suite_add_tcase(s, tc);
  return s;
}
