/* Tests of topologies/import*.c: every fixture in tests/data/import imports
 * into a system file that loads, and the built system has what the dump
 * shows (counts, PCIe classes as hop counts, affinity); imports are
 * deterministic; malformed dumps (inline, and the corpora of
 * tests/data/bad/import-*) fail with named errors, never crash. */
#include <string.h>

#include "tests/bad_corpus.h"
#include "tests/suites.h"
#include "topologies/import.h"
#include "topologies/system.h"

static char *fixture_path(const char *name)
{
  return g_build_filename(IFSIM_TEST_DATA_DIR, "import", name, NULL);
}

/* Imports a fixture and builds it; checks the import is deterministic. */
static TopoSystem *import_fixture(const char *name,
                                  const TopoImportOptions *opt)
{
  g_autofree char *path = fixture_path(name);
  g_autofree char *text = NULL, *ini = NULL, *again = NULL;
  g_autoptr(GError) error = NULL;
  gsize len;
  TopoSystem *sys;

  ck_assert(g_file_get_contents(path, &text, &len, NULL));
  ini = topo_import(text, len, name, TOPO_IMPORT_AUTO, opt, &error);
  ck_assert_msg(ini != NULL, "%s: %s", name, error ? error->message : "");
  again = topo_import(text, len, name, TOPO_IMPORT_AUTO, opt, &error);
  ck_assert_str_eq(ini, again);
  sys = topo_system_load_data(ini, strlen(ini), name, NULL, &error);
  ck_assert_msg(sys != NULL, "%s: emitted file does not load: %s\n%s", name,
                error ? error->message : "", ini);
  return sys;
}

static guint32 hops(const TopoSystem *sys, SimNodeId a, SimNodeId b)
{
  SimPathSet ps;
  g_autoptr(GError) error = NULL;

  ck_assert_msg(topo_route(sys, a, b, 0, NULL, &ps, &error), "%s",
                error ? error->message : "");
  return ps.path[0].n;
}

START_TEST(test_smi_dgx_h100)
{
  g_autoptr(TopoSystem) sys = import_fixture("smi_dgx_h100.txt", NULL);
  TopoSummary s;
  SimPathSet ps;
  g_autoptr(GError) error = NULL;

  topo_system_summary(sys, &s);
  ck_assert_uint_eq(s.gpus, 8);
  ck_assert_uint_eq(s.nics, 9);
  /* four NUMA domains (SYS between them), on the two sockets of an HGX
   * board, assumed and said */
  ck_assert_uint_eq(s.cpus, 2);
  ck_assert_uint_eq(s.pcie_switches, 8);
  ck_assert_uint_eq(s.nvswitches, 4);
  ck_assert_uint_eq(s.links_by_family[MDL_FAMILY_NVLINK], 8 * 18);
  ck_assert_uint_eq(topo_gpu_nic(sys, 0), 0);
  ck_assert_uint_eq(topo_gpu_nic(sys, 3), 4); /* PIX with NIC4, not NIC3 */
  ck_assert_uint_eq(topo_gpu_nic(sys, 7), 8);
  ck_assert(topo_route(sys, topo_gpu(sys, 0, 0), topo_gpu(sys, 0, 5), 0, NULL,
                       &ps, &error));
  ck_assert_uint_eq(ps.n, 4);
  ck_assert_uint_eq(hops(sys, topo_gpu(sys, 0, 0), topo_nic(sys, 0, 0)), 2);
  /* NODE: through the socket; SYS: across sockets */
  ck_assert_uint_eq(hops(sys, topo_gpu(sys, 0, 0), topo_nic(sys, 0, 1)), 4);
  ck_assert_uint_gt(hops(sys, topo_gpu(sys, 0, 0), topo_nic(sys, 0, 5)), 4);
}
END_TEST

START_TEST(test_smi_dgx_a100)
{
  g_autoptr(TopoSystem) sys = import_fixture("smi_dgx_a100.txt", NULL);
  TopoSummary s;

  topo_system_summary(sys, &s);
  ck_assert_uint_eq(s.gpus, 8);
  ck_assert_uint_eq(s.nics, 10);
  ck_assert_uint_eq(s.nvswitches, 6);
  ck_assert_uint_eq(s.links_by_family[MDL_FAMILY_NVLINK], 8 * 12);
  /* 8 GPU switches, 4 NIC-pair switches, 4 top switches */
  ck_assert_uint_eq(s.pcie_switches, 16);
  /* PXB: GPU, its switch, the top switch, the NICs' switch, the NIC */
  ck_assert_uint_eq(hops(sys, topo_gpu(sys, 0, 0), topo_nic(sys, 0, 1)), 4);
  ck_assert_uint_lt(topo_gpu_nic(sys, 0), 2);
  ck_assert_uint_lt(topo_gpu_nic(sys, 7) - 6, 2);
}
END_TEST

START_TEST(test_smi_4090)
{
  g_autoptr(TopoSystem) sys = import_fixture("smi_8x4090.txt", NULL);
  TopoSummary s;

  topo_system_summary(sys, &s);
  ck_assert_uint_eq(s.gpus, 8);
  ck_assert_uint_eq(s.nics, 2);
  ck_assert_uint_eq(s.cpus, 2);
  ck_assert_uint_eq(s.nvswitches, 0);
  ck_assert_uint_eq(s.links_by_family[MDL_FAMILY_NVLINK], 0);
  ck_assert_uint_eq(s.pcie_switches, 1); /* the NICs' PIX */
  ck_assert_uint_eq(hops(sys, topo_gpu(sys, 0, 0), topo_gpu(sys, 0, 1)), 2);
  ck_assert_uint_eq(hops(sys, topo_gpu(sys, 0, 0), topo_gpu(sys, 0, 4)), 3);
  ck_assert_uint_eq(hops(sys, topo_gpu(sys, 0, 6), topo_nic(sys, 0, 0)), 3);
}
END_TEST

/* What topo -m does not state (the PCIe generation, the NICs' speed):
 * from the GPU the NVLink count names, given, or assumed in words that say
 * so. */
static char *import_text(const char *dir, const char *name,
                         const TopoImportOptions *opt)
{
  g_autofree char *path =
      g_build_filename(IFSIM_TEST_DATA_DIR, "import", dir, name, NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  gsize len;
  char *ini;

  ck_assert(g_file_get_contents(path, &text, &len, NULL));
  ini = topo_import(text, len, name, TOPO_IMPORT_AUTO, opt, &error);
  ck_assert_msg(ini != NULL, "%s: %s", name, error ? error->message : "");
  return ini;
}

START_TEST(test_smi_real)
{
  TopoImportOptions gen3 = {
      .pcie = "pcie3-x16", .nic = "cx6-hdr", .p2p = "yes"};
  TopoImportOptions geforce = {.pcie = "pcie3-x16", .p2p = "no"};
  g_autofree char *a100 = import_text("", "smi_dgx_a100.txt", NULL);
  g_autofree char *h100 = import_text("", "smi_dgx_h100.txt", NULL);
  g_autofree char *dgx1 =
      import_text("real", "dgx1_topo_mp_pcie_only.txt", NULL);
  g_autofree char *dgx1_given =
      import_text("real", "dgx1_topo_mp_pcie_only.txt", &gen3);
  g_autofree char *turing =
      import_text("real", "rtx2080ti_x2_autodl_spaces.txt", &geforce);

  /* NV12: A100, so Gen4 and HDR as the DGX A100 */
  ck_assert_ptr_nonnull(strstr(a100, "gpu_pcie = pcie4-x16\n"));
  ck_assert_ptr_nonnull(strstr(a100, "root_complex = root-complex-gen4\n"));
  ck_assert_ptr_nonnull(strstr(a100, "nic = cx6-hdr\n"));
  ck_assert_ptr_nonnull(strstr(a100, "# NIC model cx6-hdr as the DGX A100's"));
  ck_assert_ptr_nonnull(strstr(h100, "gpu_pcie = pcie5-x16\n"));
  ck_assert_ptr_nonnull(strstr(h100, "nic = cx7-ndr\n"));
  ck_assert_ptr_null(strstr(h100, "ASSUMED: GPUs on"));
  ck_assert_ptr_null(strstr(h100, "ASSUMED: NIC model"));
  /* NPS4 (the DGX A100 dump) and SNC (the DGX H100's): the NUMA domains
   * are two sockets, said; --import-sockets says otherwise */
  ck_assert_ptr_nonnull(strstr(h100, "# ASSUMED: the 4 NUMA domains"));
  ck_assert_ptr_nonnull(strstr(a100, "# ASSUMED: the 4 NUMA domains"));
  ck_assert_ptr_nonnull(strstr(a100, "sockets = 2\n"));
  {
    TopoImportOptions four = {.sockets = 4}, three = {.sockets = 3};
    g_autofree char *a4 = import_text("", "smi_dgx_a100.txt", &four);
    g_autofree char *path = g_build_filename(IFSIM_TEST_DATA_DIR, "import",
                                             "smi_dgx_a100.txt", NULL);
    g_autofree char *text = NULL;
    g_autoptr(GError) error = NULL;
    gsize len;
    ck_assert_ptr_nonnull(strstr(a4, "sockets = 4\n"));
    ck_assert_ptr_nonnull(strstr(a4, "4 NUMA domains (devices apart by SYS) "
                                     "on 4 sockets (given)"));
    ck_assert(g_file_get_contents(path, &text, &len, NULL));
    ck_assert_ptr_null(
        topo_import(text, len, "a100.txt", TOPO_IMPORT_SMI, &three, &error));
    ck_assert_msg(strstr(error->message, "do not split evenly into 3"), "%s",
                  error->message);
  }
  /* no NVLink in the dump: the generation is assumed, and it says so */
  ck_assert_ptr_nonnull(strstr(dgx1, "# ASSUMED: GPUs on pcie5-x16"));
  ck_assert_ptr_nonnull(strstr(dgx1, "give --import-pcie"));
  ck_assert_ptr_nonnull(strstr(dgx1, "# ASSUMED: NIC model cx7-ndr"));
  ck_assert_ptr_nonnull(
      strstr(dgx1, "# ASSUMED: the driver allows P2P between GPUs over PCIe"));
  ck_assert_ptr_null(strstr(dgx1, "gpu_p2p"));
  /* given: Gen3 links, switches and root complex */
  ck_assert_ptr_null(strstr(dgx1_given, "ASSUMED"));
  ck_assert_ptr_nonnull(strstr(dgx1_given, "gpu_pcie = pcie3-x16\n"));
  ck_assert_ptr_nonnull(strstr(dgx1_given, "pcie_switch = pex8796\n"));
  ck_assert_ptr_nonnull(strstr(dgx1_given, "root_complex = root-complex-gen3"));
  ck_assert_ptr_nonnull(strstr(dgx1_given, "nic = cx6-hdr\n"));
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(TopoSystem) sys =
        topo_system_load_data(turing, strlen(turing), "turing", NULL, &error);
    TopoGpuInfo info;

    ck_assert_msg(sys != NULL, "%s", error ? error->message : "");
    topo_system_gpu_info(sys, &info);
    ck_assert_str_eq(info.gpu_pcie->name, "pcie3-x16");
    ck_assert_uint_eq(info.gpus, 2);
    /* the GeForce pair: no P2P, given */
    ck_assert(!info.pcie_p2p);
    ck_assert_ptr_nonnull(strstr(turing, "gpu_p2p = false\n"));
  }
}
END_TEST

/* The NCCL dump of a DGX H100 builds what the dgx-h100 template builds. */
START_TEST(test_nccl_xml_matches_template)
{
  g_autoptr(TopoSystem) sys = import_fixture("nccl_topo_h100.xml", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(TopoSystem) ref = topo_system_load_builtin("dgx-h100", &error);
  TopoSummary a, b;

  topo_system_summary(sys, &a);
  topo_system_summary(ref, &b);
  ck_assert_uint_eq(a.gpus, b.gpus);
  ck_assert_uint_eq(a.nics, b.nics);
  ck_assert_uint_eq(a.cpus, b.cpus);
  ck_assert_uint_eq(a.nvswitches, b.nvswitches);
  ck_assert_uint_eq(a.pcie_switches, b.pcie_switches);
  ck_assert_uint_eq(a.links_by_family[MDL_FAMILY_NVLINK],
                    b.links_by_family[MDL_FAMILY_NVLINK]);
  ck_assert_uint_eq(a.links_by_family[MDL_FAMILY_PCIE],
                    b.links_by_family[MDL_FAMILY_PCIE]);
  ck_assert_double_eq_tol(a.gpu_scaleup_GBps, b.gpu_scaleup_GBps, 1e-9);
  ck_assert_uint_eq(a.diameter_hops, b.diameter_hops);
  for (guint32 g = 0; g < 8; g++)
    ck_assert_uint_eq(topo_gpu_nic(sys, g), topo_gpu_nic(ref, g));
}
END_TEST

/* Direct NVLinks count on every GPU, also when the first GPU has none. */
START_TEST(test_nccl_xml_bridge)
{
  g_autoptr(TopoSystem) sys =
      import_fixture("nccl_topo_nvlink_bridge.xml", NULL);
  TopoSummary s;

  topo_system_summary(sys, &s);
  ck_assert_uint_eq(s.gpus, 3);
  ck_assert_uint_eq(s.nvswitches, 0);
  ck_assert_uint_eq(s.links_by_family[MDL_FAMILY_NVLINK], 4);
  ck_assert_uint_eq(hops(sys, topo_gpu(sys, 0, 1), topo_gpu(sys, 0, 2)), 1);
}
END_TEST

START_TEST(test_ibnetdiscover)
{
  g_autoptr(TopoSystem) sys =
      import_fixture("ibnetdiscover_hdr_2tier.txt", NULL);
  TopoSummary s;
  SimPath p;
  g_autoptr(GError) error = NULL;

  topo_system_summary(sys, &s);
  ck_assert_uint_eq(s.servers, 4);
  ck_assert_uint_eq(s.nics, 8);
  ck_assert_uint_eq(s.net_switches[1], 2); /* leaves */
  ck_assert_uint_eq(s.net_switches[2], 2); /* spines */
  /* 8 HCA links and 2 x 2 bundles of 2 leaf-spine links */
  ck_assert_uint_eq(s.links_by_family[MDL_FAMILY_IB], 8 + 8);
  ck_assert_uint_eq(s.network_diameter_hops, 4);
  ck_assert_double_eq_tol(s.scaleout_bisection_GBps, 4 * 25.0, 1e-6);
  /* rail: HCA 0 of every host on one leaf */
  ck_assert(topo_route_network(sys, topo_nic(sys, 0, 0), topo_nic(sys, 3, 0), 0,
                               NULL, &p, &error));
  ck_assert_uint_eq(p.n, 2);
  ck_assert(topo_route_network(sys, topo_nic(sys, 0, 0), topo_nic(sys, 3, 1), 0,
                               NULL, &p, &error));
  ck_assert_uint_eq(p.n, 4);
}
END_TEST

/* Azure's shipped topology files: the PCI tree alone (NDv4), a NIC
 * directly in a <cpu> (NCv4), filled in as NCCL does at run time. */
START_TEST(test_nccl_xml_azure)
{
  TopoImportOptions hgx = {.nvlink = "nvlink3"};
  g_autofree char *nd =
      import_text("real", "ncclxml_azure_ndv4-topo.xml", NULL);
  g_autofree char *nd_hgx =
      import_text("real", "ncclxml_azure_ndv4-topo.xml", &hgx);
  g_autofree char *nc =
      import_text("real", "ncclxml_azure_ncv4-topo.xml", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(TopoSystem) nds =
      topo_system_load_data(nd_hgx, strlen(nd_hgx), "ndv4", NULL, &error);
  g_autoptr(TopoSystem) ncs =
      topo_system_load_data(nc, strlen(nc), "ncv4", NULL, &error);
  TopoSummary s;

  /* NDv4: GPUs and NICs by PCI class, 2 of each under each socket's
   * switch; NVLink only when given */
  ck_assert_ptr_nonnull(strstr(nd, "gpus = 8\nsockets = 4\n"));
  ck_assert_ptr_nonnull(strstr(nd, "gpu_pcie_switch = 0,0,1,1,2,2,3,3\n"));
  ck_assert_ptr_nonnull(strstr(nd, "nic_pcie_switch = 0,0,1,1,2,2,3,3\n"));
  ck_assert_ptr_nonnull(strstr(nd, "# ASSUMED: no NVLink between the GPUs"));
  ck_assert_ptr_null(strstr(nd, "nvlink ="));
  ck_assert_ptr_nonnull(strstr(nd, "# ASSUMED: NIC model cx6-hdr"));
  ck_assert_ptr_nonnull(strstr(nd, "gpu_pcie = pcie4-x16\n"));
  ck_assert_ptr_nonnull(strstr(nd_hgx, "nvswitches = 6\n"));
  ck_assert_msg(nds != NULL, "%s", error ? error->message : "");
  topo_system_summary(nds, &s);
  ck_assert_uint_eq(s.gpus, 8);
  ck_assert_uint_eq(s.nics, 8);
  ck_assert_uint_eq(s.nvswitches, 6);
  /* NCv4: the NIC on socket 0's root complex, 100 GbE without GPUDirect;
   * the GPU's NVLink to itself ignored, and said */
  ck_assert_ptr_nonnull(strstr(nc, "nics = 1\nnic_socket = 0\n"));
  ck_assert_ptr_nonnull(strstr(nc, "[nic imported-nic]\nbased_on = cx6-200g\n"
                                   "port_link = roce-v2-100g\n"
                                   "gpudirect = false\n"));
  ck_assert_ptr_nonnull(strstr(nc, "joins no two GPUs"));
  ck_assert_ptr_nonnull(strstr(nc, "# ASSUMED: GPUs on pcie4-x16"));
  ck_assert_msg(ncs != NULL, "%s", error ? error->message : "");
  topo_system_summary(ncs, &s);
  ck_assert_uint_eq(s.gpus, 4);
  ck_assert_uint_eq(s.cpus, 4);
  ck_assert_uint_eq(s.nvswitches, 0);
}
END_TEST

/* A real DGX H100 NDR fabric (NVIDIA/topograph's example dump): SHARP
 * Aggregation Nodes, adapters naming no host and hosts with an adapter
 * down are set aside and said; each host's adapters in rail order. */
START_TEST(test_ibnetdiscover_real)
{
  g_autofree char *ini =
      import_text("real", "ibnetdiscover_topograph_example.out", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(TopoSystem) sys =
      topo_system_load_data(ini, strlen(ini), "real", NULL, &error);
  TopoSummary s;
  guint rails = 0;

  ck_assert_msg(sys != NULL, "%s", error ? error->message : "");
  ck_assert_ptr_nonnull(strstr(ini, "# Set aside from the dump:\n"
                                    "# 40 SHARP Aggregation Node(s)"));
  ck_assert_ptr_nonnull(
      strstr(ini, "# 69 adapter(s) whose description names no host "
                  "(\"MT4129 ConnectX7   Mellanox Technologies\""));
  ck_assert_ptr_nonnull(strstr(ini, "# 13 host(s) unlike the 109 kept (4 "
                                    "adapter(s) of 1 connected port(s)"));
  ck_assert_ptr_nonnull(strstr(ini, "a05-p1-dgx-01-c18 (3 adapter(s))"));
  ck_assert_ptr_nonnull(strstr(ini, "# one GPU per adapter"));
  topo_system_summary(sys, &s);
  ck_assert_uint_eq(s.servers, 109);
  ck_assert_uint_eq(s.nics, 436);
  /* 436 adapter links, 532 leaf-spine links (40 switches, 2 tiers) */
  ck_assert_uint_eq(s.links_by_family[MDL_FAMILY_IB], 968);
  /* rails: two hosts whose HCA-1 share a leaf share one on every rail
   * (the dump lists a host's adapters out of order) */
  for (guint32 b = 1; b < s.servers; b++) {
    SimPath p;
    ck_assert(topo_route_network(sys, topo_nic(sys, 0, 0), topo_nic(sys, b, 0),
                                 0, NULL, &p, &error));
    if (p.n != 2)
      continue;
    rails++;
    for (guint32 c = 1; c < 4; c++) {
      ck_assert(topo_route_network(sys, topo_nic(sys, 0, c),
                                   topo_nic(sys, b, c), 0, NULL, &p, &error));
      ck_assert_msg(p.n == 2, "server %u NIC %u: %u hops", b, c, p.n);
    }
  }
  ck_assert_uint_ge(rails, 8);
}
END_TEST

static void expect_import_error(const char *text, const char *source,
                                const char *expect)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *ini =
      topo_import(text, strlen(text), source, TOPO_IMPORT_AUTO, NULL, &error);

  ck_assert_msg(ini == NULL, "%s imported", source);
  ck_assert_msg(strstr(error->message, expect) != NULL &&
                    strstr(error->message, source) != NULL,
                "%s: '%s' lacks '%s'", source, error->message, expect);
}

START_TEST(test_bad_dumps)
{
  g_autofree char *path = fixture_path("smi_dgx_h100.txt");
  g_autofree char *h100 = NULL;
  char *cut;

  ck_assert(g_file_get_contents(path, &h100, NULL, NULL));
  cut = strstr(h100, "\nGPU5\t");
  cut[1] = '\0'; /* truncated after GPU4's row */
  expect_import_error(h100, "cut.txt", "no row for GPU5");
  expect_import_error("\tGPU0\tGPU1\nGPU0\t X \tNV4\nGPU1\tXYZ\t X \n",
                      "cell.txt", "'XYZ' is not X (diagonal), NV#");
  expect_import_error("\tGPU0\tGPU1\nGPU0\t X \n", "short.txt",
                      "row GPU0 has 1 cells (expected 2)");
  expect_import_error("<system version=\"2\"></system>", "v2.xml",
                      "XML Topology has wrong version");
  expect_import_error("<system version=\"1\"><cpu><pci busid=\"x\">",
                      "open.xml", "open.xml");
  expect_import_error("<system version=\"1\"><cpu numaid=\"0\"/></system>",
                      "nogpu.xml", "no <gpu> element");
  expect_import_error("switchguid=0x1(1)\nSwitch\t40 \"S-1\"\t# \"s\"\n"
                      "[1]\t\"H-2\"[1]\t# \"h mlx5_0\" lid 1 4xFDR\n"
                      "caguid=0x2\nCa\t1 \"H-2\"\t# \"h mlx5_0\"\n"
                      "[1](2)\t\"S-1\"[1]\t# lid 1 4xFDR\n",
                      "fdr.txt", "4xFDR links are not modelled");
  expect_import_error("switchguid=0x1(1)\nSwitch\tmany \"S-1\"\n", "np.txt",
                      "is not NODETYPE NPORTS");
  expect_import_error("hello world\n", "what.txt", "not a recognised dump");
  expect_import_error("\xff\xfe garbage", "bin.txt", "not a text file");
}
END_TEST

/* A token of 60000 characters is quoted in a message in part only. */
START_TEST(test_bad_long_token)
{
  g_autofree char *cell = g_strnfill(60000, 'Q');
  g_autofree char *smi = g_strdup_printf("\tGPU0\tGPU1\nGPU0\t X \t%s\n", cell);
  g_autofree char *ib = g_strdup_printf("%s=0x1\n", cell);
  const char *texts[] = {smi, ib};

  for (guint i = 0; i < G_N_ELEMENTS(texts); i++) {
    g_autoptr(GError) error = NULL;
    g_autofree char *ini =
        topo_import(texts[i], strlen(texts[i]), "long.txt",
                    i ? TOPO_IMPORT_IBNET : TOPO_IMPORT_SMI, NULL, &error);
    ck_assert_ptr_null(ini);
    ck_assert_msg(strstr(error->message, "QQQ...") &&
                      strlen(error->message) < 400,
                  "%.400s", error->message);
  }
}
END_TEST

/* tests/data/bad/import-*: each file fails as its format, forced (every
 * parser path is reached) and detected, naming the file and the place. */
static void import_bad_case(const char *path, const char *name,
                            const char *expect, gpointer data)
{
  TopoImportFormat format = GPOINTER_TO_INT(data);
  g_autofree char *text = NULL;
  gsize len;

  ck_assert(g_file_get_contents(path, &text, &len, NULL));
  for (guint pass = 0; pass < 2; pass++) {
    TopoImportFormat f = pass ? TOPO_IMPORT_AUTO : format;
    g_autoptr(GError) error = NULL;
    g_autofree char *ini = topo_import(text, len, path, f, NULL, &error);
    ck_assert_msg(ini == NULL, "%s imported (format %d)", name, f);
    ck_assert_msg(strstr(error->message, name) != NULL,
                  "%s: '%s' does not name the file", name, error->message);
    if (f == format || topo_import_detect(text, len) == format)
      ck_assert_msg(strstr(error->message, expect) != NULL,
                    "%s: '%s' lacks '%s' (format %d)", name, error->message,
                    expect, f);
  }
}

START_TEST(test_bad_corpus)
{
  static const struct {
    const char *dir;
    TopoImportFormat format;
  } corpora[] = {{"import-smi", TOPO_IMPORT_SMI},
                 {"import-ncclxml", TOPO_IMPORT_NCCL_XML},
                 {"import-ibnet", TOPO_IMPORT_IBNET}};

  for (guint i = 0; i < G_N_ELEMENTS(corpora); i++)
    ck_assert_uint_ge(bad_corpus_manifest(corpora[i].dir, import_bad_case,
                                          GINT_TO_POINTER(corpora[i].format)),
                      10);
}
END_TEST

Suite *suite_import(void)
{
  Suite *s = suite_create("import");
  TCase *tc = tcase_create("fixtures");

  tcase_add_test(tc, test_smi_dgx_h100);
  tcase_add_test(tc, test_smi_dgx_a100);
  tcase_add_test(tc, test_smi_4090);
  tcase_add_test(tc, test_smi_real);
  tcase_add_test(tc, test_nccl_xml_matches_template);
  tcase_add_test(tc, test_nccl_xml_bridge);
  tcase_add_test(tc, test_ibnetdiscover);
  tcase_add_test(tc, test_ibnetdiscover_real);
  tcase_add_test(tc, test_nccl_xml_azure);
  tcase_add_test(tc, test_bad_dumps);
  tcase_add_test(tc, test_bad_long_token);
  tcase_add_test(tc, test_bad_corpus);
  tcase_set_timeout(tc, 60);
  suite_add_tcase(s, tc);
  return s;
}
