/* Tests of models/registry.c and models/params.c: built-in models, user
 * overrides, new models, all-or-nothing loading, and the bad-input corpus
 * tests/data/bad/models (every file must fail with the message its first
 * line announces, "# expect: ..."). */
#include <string.h>

#include "models/registry.h"
#include "tests/bad_corpus.h"
#include "tests/suites.h"

static MdlRegistry *builtin(void)
{
  g_autoptr(GError) error = NULL;
  MdlRegistry *r = mdl_registry_new_builtin(&error);
  ck_assert_msg(r != NULL, "%s", error ? error->message : "");
  return r;
}

static gboolean load(MdlRegistry *r, const char *text, GError **error)
{
  return mdl_registry_load_data(r, text, strlen(text), "test.ini", error);
}

START_TEST(test_builtin_complete)
{
  g_autoptr(MdlRegistry) r = builtin();
  g_autoptr(GPtrArray) links = mdl_registry_link_names(r);
  g_autoptr(GPtrArray) switches = mdl_registry_switch_names(r);
  g_autoptr(GPtrArray) nics = mdl_registry_nic_names(r);
  /* Every technology the models cover, by the names configs use. */
  static const char *const expected[] = {
      "nvlink3",      "nvlink4",      "nvlink5",      "pcie3-x4",
      "pcie3-x8",     "pcie3-x16",    "pcie4-x16",    "pcie5-x16",
      "pcie6-x16",    "ib-edr-4x",    "ib-hdr-1x",    "ib-hdr-2x",
      "ib-hdr-4x",    "ib-ndr-4x",    "ib-xdr-4x",    "roce-v1-100g",
      "roce-v2-100g", "roce-v2-200g", "roce-v2-400g", "roce-v2-800g",
      "upi2",         "xgmi3",        "efa-400g",     "efa-2x400g"};

  for (size_t i = 0; i < G_N_ELEMENTS(expected); i++)
    ck_assert_msg(mdl_registry_link(r, expected[i]), "no %s", expected[i]);
  ck_assert_uint_eq(links->len, 40);
  ck_assert_ptr_nonnull(mdl_registry_switch(r, "nvswitch3"));
  ck_assert_ptr_nonnull(mdl_registry_switch(r, "quantum2-ndr"));
  ck_assert_ptr_nonnull(mdl_registry_switch(r, "pex89000"));
  ck_assert_ptr_nonnull(mdl_registry_nic(r, "cx7-ndr"));
  ck_assert_ptr_nonnull(mdl_registry_nic(r, "cx8-xdr"));
  ck_assert_ptr_nonnull(mdl_registry_nic(r, "efa-2x400g"));
  ck_assert_uint_eq(switches->len, 14);
  ck_assert_ptr_nonnull(mdl_registry_switch(r, "pex8796"));
  ck_assert_ptr_nonnull(mdl_registry_switch(r, "root-complex-gen3"));
  ck_assert_uint_eq(nics->len, 12);
  /* sorted */
  for (guint i = 1; i < links->len; i++)
    ck_assert_int_lt(strcmp(links->pdata[i - 1], links->pdata[i]), 0);
  /* variants inherit: a x8 link is its x16 base with half the lanes */
  ck_assert_uint_eq(mdl_registry_link(r, "pcie5-x8")->lanes, 8);
  ck_assert_double_eq(mdl_registry_link(r, "pcie5-x8")->data_rate_Gbps * 2,
                      mdl_registry_link(r, "pcie5-x16")->data_rate_Gbps);
  ck_assert_uint_eq(mdl_registry_link(r, "roce-v1-400g")->roce.version,
                    MDL_ROCE_V1);
}
END_TEST

START_TEST(test_override_existing)
{
  g_autoptr(MdlRegistry) r = builtin();
  g_autoptr(GError) error = NULL;
  double rate = mdl_registry_link(r, "nvlink4")->data_rate_Gbps;

  ck_assert(load(r, "[link nvlink4]\nlatency_ns = 120\n", &error));
  ck_assert_double_eq(mdl_registry_link(r, "nvlink4")->latency_ns, 120);
  ck_assert_double_eq(mdl_registry_link(r, "nvlink4")->data_rate_Gbps, rate);
  /* derived values follow the parameters */
  ck_assert(load(r, "[link nvlink4]\nsignal_GBd = 40\n", &error));
  ck_assert_double_eq_tol(mdl_registry_link(r, "nvlink4")->data_rate_Gbps, 160,
                          1e-9);
  /* A calibrated efficiency scales the rate transfers get, not the
   * physical data rate. */
  {
    const MdlLink *l = mdl_registry_link(r, "nvlink4");
    double eff = mdl_link_effective_Bps(l, 1 << 20, 0, MDL_OP_WRITE);

    ck_assert_double_eq(l->efficiency, 1.0);
    ck_assert_double_eq(mdl_link_rate_Bps(l), mdl_link_data_rate_Bps(l));
    ck_assert(load(r, "[link nvlink4]\nefficiency = 0.8\n", &error));
    l = mdl_registry_link(r, "nvlink4");
    ck_assert_double_eq(l->data_rate_Gbps, 160);
    ck_assert_double_eq_tol(mdl_link_rate_Bps(l),
                            0.8 * mdl_link_data_rate_Bps(l), 1e-3);
    ck_assert_double_eq_tol(
        mdl_link_effective_Bps(l, 1 << 20, 0, MDL_OP_WRITE) / eff, 0.8, 1e-9);
  }
  /* [nccl]: defaults, then a calibration's values. */
  ck_assert_double_eq(mdl_registry_nccl(r)->simple_efficiency, 1.0);
  ck_assert_double_eq(mdl_registry_nccl(r)->latency_us, 0.0);
  ck_assert(load(r, "[nccl]\nll_efficiency = 0.6\nlatency_us = 20\n", &error));
  ck_assert_double_eq(mdl_registry_nccl(r)->ll_efficiency, 0.6);
  ck_assert_double_eq(mdl_registry_nccl(r)->ll128_efficiency, 1.0);
  ck_assert_double_eq(mdl_registry_nccl(r)->latency_us, 20.0);
  ck_assert(load(r, "[nic cx7-ndr]\ngpudirect = false\n", &error));
  ck_assert(!mdl_registry_nic(r, "cx7-ndr")->gpudirect);
  ck_assert_uint_eq(mdl_nic_pcie_crossings(mdl_registry_nic(r, "cx7-ndr")), 2);
}
END_TEST

START_TEST(test_new_models)
{
  g_autoptr(MdlRegistry) r = builtin();
  g_autoptr(GError) error = NULL;
  const MdlLink *l;

  ck_assert(load(r,
                 "[link ndr-long]\nbased_on = ib-ndr-4x\ncable_m = 100\n"
                 "[switch my-leaf]\nbased_on = quantum2-ndr\nports = 32\n"
                 "port_link = ndr-long\n",
                 &error));
  l = mdl_registry_link(r, "ndr-long");
  ck_assert_double_eq(l->cable_m, 100);
  ck_assert_uint_eq(mdl_link_latency_ps(l), SIM_NS(100 + 500));
  ck_assert_double_eq(mdl_registry_link(r, "ib-ndr-4x")->cable_m, 0);
  ck_assert_uint_eq(mdl_registry_switch(r, "my-leaf")->ports, 32);
  /* From scratch: family plus every key without a default. */
  ck_assert_msg(load(r,
                     "[link slingshot]\nfamily = roce\nversion = v2\n"
                     "lanes = 4\nsignal_GBd = 26.5625\nmodulation = pam4\n"
                     "line_code = 64b66b\nfec = rs544\nlatency_ns = 300\n"
                     "max_payload_bytes = 4096\neth_mtu_bytes = 9000\n"
                     "flow_control = lossy\nretransmit_timeout_us = 100\n",
                     &error),
                "%s", error ? error->message : "");
  ck_assert_double_eq_tol(mdl_registry_link(r, "slingshot")->data_rate_Gbps,
                          200, 1e-9);
}
END_TEST

/* Each family from scratch with only its required keys: the defaults of
 * the parameter tables must all be valid. */
START_TEST(test_family_defaults_valid)
{
  static const char *const minimal[] = {
      "[link a]\nfamily = nvlink\nlanes = 2\nsignal_GBd = 50\nline_code = "
      "none\nlatency_ns = 1\nmax_payload_bytes = 256\nflow_control = credit\n",
      "[link b]\nfamily = pcie\ngeneration = 4\nlanes = 16\nsignal_GBd = 16\n"
      "line_code = 128b130b\nlatency_ns = 1\nmax_payload_bytes = 256\n"
      "flow_control = credit\n",
      "[link c]\nfamily = ib\nlanes = 4\nsignal_GBd = 25.78125\nline_code = "
      "64b66b\nlatency_ns = 1\nmax_payload_bytes = 4096\nflow_control = "
      "credit\n",
      "[link d]\nfamily = roce\nversion = v2\nlanes = 4\nsignal_GBd = "
      "25.78125\nline_code = 64b66b\nlatency_ns = 1\nmax_payload_bytes = "
      "1024\neth_mtu_bytes = 1500\nflow_control = pfc\npfc_xoff_bytes = "
      "100000\npfc_headroom_bytes = 4096\n",
      "[link e]\nfamily = socket\nlanes = 20\nsignal_GBd = 16\nline_code = "
      "none\nlatency_ns = 1\nmax_payload_bytes = 64\nflow_control = credit\n"
      "flit_bits = 80\nflit_data_bits = 64\n",
      "[switch f]\nkind = ib\nports = 40\nport_link = ib-hdr-4x\nlatency_ns = "
      "100\n",
      "[nic g]\nport_link = ib-hdr-4x\nhost_link = pcie4-x16\nlatency_ns = "
      "500\n",
  };

  for (size_t i = 0; i < G_N_ELEMENTS(minimal); i++) {
    g_autoptr(MdlRegistry) r = builtin();
    g_autoptr(GError) error = NULL;
    ck_assert_msg(load(r, minimal[i], &error), "%s",
                  error ? error->message : "");
  }
}
END_TEST

/* A file that fails anywhere changes nothing, even groups before it. */
START_TEST(test_all_or_nothing)
{
  g_autoptr(MdlRegistry) r = builtin();
  g_autoptr(GError) error = NULL;

  ck_assert(!load(r,
                  "[link nvlink4]\nlatency_ns = 999\n"
                  "[link new-one]\nbased_on = nvlink4\n"
                  "[link ib-ndr-4x]\nlanes = 0\n",
                  &error));
  ck_assert_double_eq(mdl_registry_link(r, "nvlink4")->latency_ns, 60);
  ck_assert_ptr_null(mdl_registry_link(r, "new-one"));
}
END_TEST

START_TEST(test_apply_keyfile_skips_other_groups)
{
  g_autoptr(MdlRegistry) r = builtin();
  g_autoptr(GKeyFile) kf = g_key_file_new();
  g_autoptr(GError) error = NULL;

  ck_assert(g_key_file_load_from_data(
      kf, "[system]\nnodes = 4\n[link nvlink4]\nlatency_ns = 75\n", -1,
      G_KEY_FILE_NONE, NULL));
  ck_assert(mdl_registry_is_model_group("link nvlink4"));
  ck_assert(!mdl_registry_is_model_group("system"));
  ck_assert(mdl_registry_apply_keyfile(r, kf, "topo.ini", &error));
  ck_assert_double_eq(mdl_registry_link(r, "nvlink4")->latency_ns, 75);
  /* an empty model file is a wrong file given: refused, nothing changed */
  ck_assert(!load(r, "", &error));
  ck_assert_ptr_nonnull(strstr(error->message, "no groups (expected [link"));
  ck_assert_double_eq(mdl_registry_link(r, "nvlink4")->latency_ns, 75);
}
END_TEST

static gboolean load_models_file(const char *path, GError **error)
{
  g_autoptr(MdlRegistry) r = builtin();

  return mdl_registry_load_file(r, path, error);
}

START_TEST(test_bad_corpus)
{
  ck_assert_uint_ge(
      bad_corpus_check("models", load_models_file, BAD_NAMES_PATH), 25);
}
END_TEST

/* One [nccl] key set in place (validate/accuracy.c's grids): checked as
 * a file's would be, the others kept, a bad value or key refused with the
 * field as it was. */
START_TEST(test_set_nccl)
{
  g_autoptr(MdlRegistry) r = mdl_registry_new();
  const MdlNcclTuning *t = mdl_registry_nccl(r);
  double proxy = t->net_proxy_us;
  g_autoptr(GError) bad = NULL;
  g_autoptr(GError) unknown = NULL;

  ck_assert(mdl_registry_set_nccl(r, "nvls_copy_ratio", "0.7", NULL));
  ck_assert_double_eq(t->nvls_copy_ratio, 0.7);
  ck_assert_double_eq(t->net_proxy_us, proxy);
  ck_assert(!mdl_registry_set_nccl(r, "nvls_copy_ratio", "3", &bad));
  ck_assert_int_eq(bad->code, MDL_ERROR_VALUE);
  ck_assert_double_eq(t->nvls_copy_ratio, 0.7);
  ck_assert(mdl_registry_set_nccl(r, "p2p_copy_ratio", "0.75", NULL));
  ck_assert_double_eq(t->p2p_copy_ratio, 0.75);
  ck_assert_double_eq(t->nvls_copy_ratio, 0.7);
  ck_assert(!mdl_registry_set_nccl(r, "nvls_copy_rate", "0.8", &unknown));
  ck_assert_int_eq(unknown->code, MDL_ERROR_UNKNOWN);
  ck_assert_ptr_nonnull(strstr(unknown->message, "nvls_copy_rate"));
}
END_TEST

START_TEST(test_suggestion)
{
  const MdlParamSpec *tables[] = {mdl_link_common_params, NULL};

  ck_assert_str_eq(mdl_param_suggest(tables, "latncy_ns"), "latency_ns");
  ck_assert_str_eq(mdl_param_suggest(tables, "lane"), "lanes");
  ck_assert_ptr_null(mdl_param_suggest(tables, "frobnicate"));
}
END_TEST

Suite *suite_registry(void)
{
  Suite *s = suite_create("registry");
  TCase *tc = tcase_create("load");

  tcase_add_test(tc, test_builtin_complete);
  tcase_add_test(tc, test_override_existing);
  tcase_add_test(tc, test_new_models);
  tcase_add_test(tc, test_family_defaults_valid);
  tcase_add_test(tc, test_all_or_nothing);
  tcase_add_test(tc, test_apply_keyfile_skips_other_groups);
  tcase_add_test(tc, test_bad_corpus);
  tcase_add_test(tc, test_suggestion);
  tcase_add_test(tc, test_set_nccl);
  tcase_set_timeout(tc, 60);
  suite_add_tcase(s, tc);
  return s;
}
