/* Tests of topologies/: known shapes (counts and bisection bandwidth),
 * routing (valid paths, hop counts, NVLink spraying, ECMP spread, D-mod-k,
 * adaptive, dragonfly policies), the built-in examples and templates, the
 * packet transport's view of the links (topologies/packet.c), and the
 * bad-input corpus tests/data/bad/topo. */
#include <string.h>

#include "models/link.h"

#include "tests/bad_corpus.h"
#include "tests/suites.h"
#include "topologies/error.h"
#include "topologies/system.h"
#include "topologies/system_internal.h"
#include "tests/topologies/systems.h"

static guint32 count_kind(const TopoSystem *sys, TopoNodeKind kind,
                          guint32 group)
{
  const SimFabric *f = topo_system_fabric(sys);
  guint32 n = 0;

  for (SimNodeId i = 0; i < sim_fabric_n_nodes(f); i++) {
    const SimNode *node = sim_fabric_node(f, i);
    n += node->kind == kind && (group == G_MAXUINT32 || node->group == group);
  }
  return n;
}

/* k = 4 three-tier fat-tree: 16 hosts, 8 leaves, 8 spines, 4 cores;
 * non-blocking, so half the hosts can send at full rate across. */
START_TEST(test_kary_fattree_k4)
{
  g_autoptr(TopoSystem) sys =
      load_text("[system]\nserver = host\nservers = 16\n" HOST_SERVER
                "[switch sw4]\nbased_on = quantum2-ndr\nports = 4\n"
                "[scaleout]\ntopology = fat-tree\nswitch = sw4\ntiers = 3\n");
  TopoSummary s;

  topo_system_summary(sys, &s);
  ck_assert_uint_eq(count_kind(sys, TOPO_NODE_NET_SWITCH, 1), 8);
  ck_assert_uint_eq(count_kind(sys, TOPO_NODE_NET_SWITCH, 2), 8);
  ck_assert_uint_eq(count_kind(sys, TOPO_NODE_NET_SWITCH, 3), 4);
  ck_assert_uint_eq(count_kind(sys, TOPO_NODE_NET_SWITCH, G_MAXUINT32), 20);
  ck_assert_double_eq_tol(s.scaleout_bisection_GBps, 8 * 50.0, 1e-6);
  ck_assert_uint_eq(s.network_diameter_hops, 6);
  ck_assert_double_eq_tol(s.oversubscription[1], 1.0, 1e-9);
}
END_TEST

/* 64-port two-tier non-blocking: 2048 hosts (64 leaves x 32, 32 spines);
 * one more host does not fit. */
START_TEST(test_two_tier_64port)
{
  g_autoptr(TopoSystem) sys = load_text(
      "[system]\nserver = host\nservers = 2048\n" HOST_SERVER
      "[scaleout]\ntopology = fat-tree\nswitch = quantum2-ndr\ntiers = 2\n");
  g_autoptr(GError) error = NULL;
  const char *too_big =
      "[system]\nserver = host\nservers = 2049\n" HOST_SERVER
      "[scaleout]\ntopology = fat-tree\nswitch = quantum2-ndr\ntiers = 2\n";
  TopoSummary s;

  topo_system_summary(sys, &s);
  ck_assert_uint_eq(s.net_switches[1], 64);
  ck_assert_uint_eq(s.net_switches[2], 32);
  ck_assert_double_eq_tol(s.scaleout_bisection_GBps, 1024 * 50.0, 1e-6);
  ck_assert_ptr_null(
      topo_system_load_data(too_big, strlen(too_big), "t.ini", NULL, &error));
  ck_assert(strstr(error->message, "use 3 tiers") != NULL);
}
END_TEST

/* 2:1 at the leaves halves the bisection of a full 2-tier tree. */
START_TEST(test_oversubscription)
{
  g_autoptr(TopoSystem) full =
      load_text("[system]\nserver = host\nservers = 96\n" HOST_SERVER
                "[switch sw48]\nbased_on = quantum2-ndr\nports = 48\n"
                "[scaleout]\ntopology = fat-tree\nswitch = sw48\ntiers = 2\n");
  g_autoptr(TopoSystem) half =
      load_text("[system]\nserver = host\nservers = 96\n" HOST_SERVER
                "[switch sw48]\nbased_on = quantum2-ndr\nports = 48\n"
                "[scaleout]\ntopology = fat-tree\nswitch = sw48\ntiers = 2\n"
                "oversubscription = 2\n");
  TopoSummary a, b;

  topo_system_summary(full, &a);
  topo_system_summary(half, &b);
  ck_assert_double_eq_tol(a.scaleout_bisection_GBps, 48 * 50.0, 1e-6);
  /* 32 down, 16 up: 3 leaves; 48 hosts a side cross 1.5 leaves of uplinks
   * minus what stays inside the shared leaf */
  ck_assert_double_eq_tol(b.oversubscription[1], 2.0, 1e-9);
  ck_assert_double_lt(b.scaleout_bisection_GBps, a.scaleout_bisection_GBps);
}
END_TEST

/* Balanced dragonfly p = h = 4, a = 8, g = 33: 1056 terminals, 264
 * routers, one global link per pair of groups, in all arrangements. */
START_TEST(test_dragonfly_balanced)
{
  static const char *const arrangements[] = {"absolute", "relative",
                                             "circulant"};
  for (int i = 0; i < 3; i++) {
    g_autofree char *text = g_strdup_printf(
        "[system]\nserver = host\nservers = 1056\n" HOST_SERVER
        "[scaleout]\ntopology = dragonfly\nswitch = quantum2-ndr\n"
        "routers_per_group = 8\nterminals_per_router = 4\n"
        "global_links_per_router = 4\ngroups = 33\narrangement = %s\n",
        arrangements[i]);
    g_autoptr(TopoSystem) sys = load_text(text);
    TopoSummary s;

    topo_system_summary(sys, &s);
    ck_assert_uint_eq(s.nics, 1056);
    ck_assert_uint_eq(s.net_switches[1], 264);
    /* links: 1056 terminal + 33 x 28 local + 33 x 32 / 2 global */
    ck_assert_uint_eq(s.links_by_family[MDL_FAMILY_IB],
                      1056 + 33 * 28 + 33 * 32 / 2);
    ck_assert_uint_eq(s.network_diameter_hops, 5);
    for (guint32 x = 0; x < 33; x++) {
      for (guint32 y = 0; y < 33; y++) {
        if (x != y)
          ck_assert_uint_eq(topo_dragonfly_links(sys, x, y), 1);
      }
    }
  }
}
END_TEST

/* --- routing --------------------------------------------------------------- */

static void route_ok(const TopoSystem *sys, SimNodeId a, SimNodeId b,
                     guint64 flow, SimPathSet *ps)
{
  g_autoptr(GError) error = NULL;
  double total = 0;

  ck_assert_msg(topo_route(sys, a, b, flow, NULL, ps, &error), "%s",
                error ? error->message : "");
  ck_assert_uint_ge(ps->n, 1);
  for (guint32 i = 0; i < ps->n; i++) {
    ck_assert(sim_path_valid(topo_system_fabric(sys), &ps->path[i], a, b));
    total += ps->weight[i];
  }
  ck_assert_double_eq_tol(total, 1.0, 1e-12);
}

/* The NIC a path leaves server 0 by (its first NIC node). */
static SimNodeId first_nic(const TopoSystem *sys, const SimPath *p)
{
  const SimFabric *f = topo_system_fabric(sys);

  for (guint32 i = 0; i < p->n; i++) {
    SimNodeId d = sim_fabric_channel(f, p->hop[i])->dst;

    if (sim_fabric_node(f, d)->kind == TOPO_NODE_NIC)
      return d;
  }
  return SIM_NONE;
}

/* A server with two NICs per GPU (16 on 4 PCIe switches, as OCI's
 * BM.GPU4.8): NCCL puts channels on both, so a GPU's rail flows c and
 * c + 8 leave by different NICs, both on its own switch; with one NIC per
 * GPU both leave by the same. */
START_TEST(test_route_spare_nics)
{
  static const char ini[] =
      "[system]\nserver = two-nic\nservers = 2\n"
      "[server two-nic]\ngpus = 8\nsockets = 2\nsocket_link = xgmi3\n"
      "root_complex = root-complex-gen4\nnvlink = nvlink3\n"
      "nvlinks_per_gpu = 12\nnvswitch = nvswitch2\nnvswitches = 6\n"
      "gpu_pcie = pcie4-x16\npcie_switch = pex88000\npcie_switches = 4\n"
      "nic = cx6-200g\nnics = 16\n"
      "[scaleout]\ntopology = fat-tree\nswitch = spectrum4-400g\n"
      "tiers = 2\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(TopoSystem) sys =
      topo_system_load_data(ini, strlen(ini), "two-nic", NULL, &error);
  g_autoptr(TopoSystem) one = topo_system_load_builtin("dgx-a100-pod-hdr", NULL);
  SimPathSet a, b;

  ck_assert_msg(sys != NULL, "%s", error ? error->message : "");
  for (guint32 g = 0; g < 8; g++) {
    route_ok(sys, topo_gpu(sys, 0, g), topo_gpu(sys, 1, g), g, &a);
    route_ok(sys, topo_gpu(sys, 0, g), topo_gpu(sys, 1, g), g + 8, &b);
    ck_assert_uint_ne(first_nic(sys, &a.path[0]), first_nic(sys, &b.path[0]));
  }
  ck_assert_ptr_nonnull(one);
  route_ok(one, topo_gpu(one, 0, 2), topo_gpu(one, 1, 2), 2, &a);
  route_ok(one, topo_gpu(one, 0, 2), topo_gpu(one, 1, 2), 10, &b);
  ck_assert_uint_eq(first_nic(one, &a.path[0]), first_nic(one, &b.path[0]));
}
END_TEST

/* The host CPU (NCCL's proxy threads run there): auto is arm for GPUs on
 * NVLink-C2C, amd for xGMI-joined sockets, intel otherwise; a `cpu` key
 * says it outright. */
START_TEST(test_server_cpu)
{
  static const struct {
    const char *ini;
    TopoCpu cpu;
  } want[] = {
      {"[system]\nserver = dgx-h100\n", TOPO_CPU_INTEL},
      {"[system]\nserver = dgx-a100\n", TOPO_CPU_AMD},
      {"[system]\nserver = gb200-nvl72\n", TOPO_CPU_ARM},
      {"[system]\nserver = x\n[server x]\ngpus = 2\nsockets = 2\n"
       "socket_link = xgmi3\ncpu = intel\n",
       TOPO_CPU_INTEL},
      {"[system]\nserver = x\n[server x]\ngpus = 2\nsockets = 1\n"
       "cpu = amd\n",
       TOPO_CPU_AMD},
  };

  for (guint i = 0; i < G_N_ELEMENTS(want); i++) {
    g_autoptr(GError) error = NULL;
    g_autoptr(TopoSystem) sys = topo_system_load_data(
        want[i].ini, strlen(want[i].ini), "cpu", NULL, &error);
    TopoGpuInfo info;

    ck_assert_msg(sys != NULL, "%s", error ? error->message : "");
    topo_system_gpu_info(sys, &info);
    ck_assert_int_eq(info.cpu, want[i].cpu);
  }
}
END_TEST

/* Inside a DGX H100, GPU traffic sprays over the four NVSwitches 5:5:4:4;
 * across servers of a rail-optimized tree, same-rail GPUs meet at their
 * rail leaf (6 hops), other rails go through a spine (8). */
START_TEST(test_route_superpod)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TopoSystem) sys =
      topo_system_load_builtin("dgx-h100-superpod", &error);
  SimPathSet ps;

  ck_assert_ptr_nonnull(sys);
  route_ok(sys, topo_gpu(sys, 3, 1), topo_gpu(sys, 3, 6), 0, &ps);
  ck_assert_uint_eq(ps.n, 4);
  ck_assert_double_eq_tol(ps.weight[0], 5.0 / 18, 1e-12);
  ck_assert_double_eq_tol(ps.weight[3], 4.0 / 18, 1e-12);
  for (guint32 i = 0; i < 4; i++)
    ck_assert_uint_eq(ps.path[i].n, 2);
  route_ok(sys, topo_gpu(sys, 0, 2), topo_gpu(sys, 17, 2), 0, &ps);
  ck_assert_uint_eq(ps.n, 1);
  ck_assert_uint_eq(ps.path[0].n, 6);
  route_ok(sys, topo_gpu(sys, 0, 2), topo_gpu(sys, 17, 5), 0, &ps);
  ck_assert_uint_eq(ps.path[0].n, 8);
  /* every GPU pair routes */
  for (guint32 a = 0; a < 32 * 8; a += 7) {
    for (guint32 b = 0; b < 32 * 8; b += 11) {
      if (a != b)
        route_ok(sys, topo_gpu(sys, a / 8, a % 8), topo_gpu(sys, b / 8, b % 8),
                 a * 1000 + b, &ps);
    }
  }
}
END_TEST

/* nvidia-smi's pair classes as hop counts: PIX 2, PXB 4, SYS 7 (two levels
 * of switches); NODE 2 and SYS 3 without switches. */
START_TEST(test_route_pcie_classes)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TopoSystem) sw =
      topo_system_load_builtin("server:pcie-8gpu-switched", &error);
  g_autoptr(TopoSystem) direct =
      topo_system_load_builtin("server:pcie-8gpu-direct", &error);
  SimPathSet ps;

  ck_assert_ptr_nonnull(sw);
  ck_assert_ptr_nonnull(direct);
  route_ok(sw, topo_gpu(sw, 0, 0), topo_gpu(sw, 0, 1), 0, &ps);
  ck_assert_uint_eq(ps.path[0].n, 2); /* PIX */
  route_ok(sw, topo_gpu(sw, 0, 0), topo_gpu(sw, 0, 2), 0, &ps);
  ck_assert_uint_eq(ps.path[0].n, 4); /* PXB */
  route_ok(sw, topo_gpu(sw, 0, 0), topo_gpu(sw, 0, 7), 0, &ps);
  ck_assert_uint_eq(ps.path[0].n, 7); /* SYS */
  route_ok(direct, topo_gpu(direct, 0, 0), topo_gpu(direct, 0, 3), 0, &ps);
  ck_assert_uint_eq(ps.path[0].n, 2); /* NODE */
  route_ok(direct, topo_gpu(direct, 0, 0), topo_gpu(direct, 0, 4), 0, &ps);
  ck_assert_uint_eq(ps.path[0].n, 3); /* SYS */
  /* each GPU's NIC is on its own switch (affinity) */
  ck_assert_uint_eq(topo_gpu_nic(sw, 0), 0);
  ck_assert_uint_eq(topo_gpu_nic(sw, 3), 1);
  ck_assert_uint_eq(topo_gpu_nic(direct, 5), 1);
}
END_TEST

START_TEST(test_route_nvl72)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TopoSystem) sys =
      topo_system_load_builtin("gb200-nvl72-rack", &error);
  SimPathSet ps;

  ck_assert_ptr_nonnull(sys);
  route_ok(sys, topo_gpu(sys, 0, 0), topo_gpu(sys, 0, 71), 0, &ps);
  ck_assert_uint_eq(ps.n, 18);
  ck_assert_double_eq_tol(ps.weight[17], 1.0 / 18, 1e-12);
}
END_TEST

/* The spine a network path crosses (its third channel's source). */
static SimNodeId spine_of(const TopoSystem *sys, guint32 a, guint32 b,
                          guint64 flow, const SimLoadHook *load)
{
  SimPath p;
  g_autoptr(GError) error = NULL;

  ck_assert(topo_route_network(sys, topo_nic(sys, a, 0), topo_nic(sys, b, 0),
                               flow, load, &p, &error));
  ck_assert_uint_eq(p.n, 4);
  return sim_fabric_channel(topo_system_fabric(sys), p.hop[1])->dst;
}

START_TEST(test_ecmp_spreads_evenly)
{
  g_autoptr(TopoSystem) sys = load_text(TWO_TIER("ecmp"));
  guint32 counts[256] = {0};
  SimNodeId first = SIM_NONE;
  const guint32 flows = 32000;

  for (guint32 f = 0; f < flows; f++) {
    SimNodeId sp = spine_of(sys, f % 32, 32 + f % 64, f, NULL);
    if (first == SIM_NONE)
      first = sp;
    ck_assert_uint_lt(sp - first + 32, 256);
    counts[sp - first + 32]++;
  }
  {
    guint32 used = 0, lo = G_MAXUINT32, hi = 0;
    for (guint i = 0; i < 256; i++) {
      if (!counts[i])
        continue;
      used++;
      lo = MIN(lo, counts[i]);
      hi = MAX(hi, counts[i]);
    }
    /* 1000 expected per spine, sd about 31: 15% either way is 5 sd */
    ck_assert_uint_eq(used, 32);
    ck_assert_uint_gt(lo, 850);
    ck_assert_uint_lt(hi, 1150);
  }
}
END_TEST

START_TEST(test_dmodk_and_seeds)
{
  g_autoptr(TopoSystem) dmodk = load_text(TWO_TIER("dmodk"));
  g_autoptr(TopoSystem) ecmp1 = load_text(TWO_TIER("ecmp") "seed = 1\n");
  g_autoptr(TopoSystem) ecmp1b = load_text(TWO_TIER("ecmp") "seed = 1\n");
  g_autoptr(TopoSystem) ecmp2 = load_text(TWO_TIER("ecmp") "seed = 2\n");
  guint32 differ = 0;

  /* D-mod-k: destinations 32..63 on one leaf take 32 different spines,
   * whatever the source or the flow */
  for (guint32 d = 32; d < 64; d++) {
    for (guint32 e = d + 1; e < 64; e++)
      ck_assert_uint_ne(spine_of(dmodk, 0, d, 0, NULL),
                        spine_of(dmodk, 0, e, 0, NULL));
    ck_assert_uint_eq(spine_of(dmodk, 0, d, 0, NULL),
                      spine_of(dmodk, 5, d, 99, NULL));
  }
  for (guint32 f = 0; f < 200; f++) {
    ck_assert_uint_eq(spine_of(ecmp1, 0, 40, f, NULL),
                      spine_of(ecmp1b, 0, 40, f, NULL));
    differ +=
        spine_of(ecmp1, 0, 40, f, NULL) != spine_of(ecmp2, 0, 40, f, NULL);
  }
  ck_assert_uint_gt(differ, 150); /* 31/32 of 200 expected */
}
END_TEST

/* A load hook saying every spine but one is busy. */
static double busy_but_one(SimChannelId c, void *ctx)
{
  const TopoSystem *sys = ctx;
  const SimFabric *f = topo_system_fabric(sys);
  const SimNode *d = sim_fabric_node(f, sim_fabric_channel(f, c)->dst);
  return d->index == 7 ? 0.0 : 1.0;
}

START_TEST(test_adaptive_avoids_load)
{
  g_autoptr(TopoSystem) sys = load_text(TWO_TIER("adaptive"));
  SimLoadHook hook = {busy_but_one, NULL};

  hook.ctx = sys;
  for (guint32 f = 0; f < 100; f++) {
    SimNodeId sp = spine_of(sys, f % 32, 32 + f % 64, f, &hook);
    ck_assert_uint_eq(sim_fabric_node(topo_system_fabric(sys), sp)->index, 7);
  }
}
END_TEST

START_TEST(test_dragonfly_routing)
{
  static const char *const policies[] = {"minimal", "valiant", "ugal-l",
                                         "ugal-g"};
  for (int i = 0; i < 4; i++) {
    g_autofree char *text = g_strdup_printf(
        "[system]\nserver = host\nservers = 144\n" HOST_SERVER
        "[scaleout]\ntopology = dragonfly\nswitch = quantum2-ndr\n"
        "routers_per_group = 4\nterminals_per_router = 4\n"
        "global_links_per_router = 2\ngroups = 9\nrouting = %s\n",
        policies[i]);
    g_autoptr(TopoSystem) sys = load_text(text);
    guint32 longest = 0;
    for (guint32 a = 0; a < 144; a += 5) {
      for (guint32 b = 0; b < 144; b += 3) {
        SimPath p;
        g_autoptr(GError) error = NULL;
        if (a == b)
          continue;
        ck_assert(topo_route_network(sys, topo_nic(sys, a, 0),
                                     topo_nic(sys, b, 0), a * b, NULL, &p,
                                     &error));
        ck_assert(sim_path_valid(topo_system_fabric(sys), &p,
                                 topo_nic(sys, a, 0), topo_nic(sys, b, 0)));
        longest = MAX(longest, p.n);
      }
    }
    /* minimal: up, local, global, local, down; Valiant adds a global and a
     * local hop; UGAL without load information stays minimal */
    if (i == 1)
      ck_assert_uint_eq(longest, 7);
    else
      ck_assert_uint_eq(longest, 5);
  }
}
END_TEST

START_TEST(test_planes)
{
  g_autoptr(TopoSystem) sys = load_text(
      "[system]\nserver = dgx-h100\nservers = 4\n"
      "[scaleout]\ntopology = fat-tree\nswitch = quantum2-ndr\ntiers = 2\n"
      "planes = 2\n");
  g_autoptr(GError) error = NULL;
  TopoSummary s;
  SimPath p;

  topo_system_summary(sys, &s);
  ck_assert_uint_eq(s.net_planes, 2);
  ck_assert_uint_eq(s.net_switches[1], 2); /* one leaf per plane */
  ck_assert(topo_route_network(sys, topo_nic(sys, 0, 0), topo_nic(sys, 3, 2), 0,
                               NULL, &p, &error));
  ck_assert(!topo_route_network(sys, topo_nic(sys, 0, 0), topo_nic(sys, 3, 1),
                                0, NULL, &p, &error));
  ck_assert(strstr(error->message, "share no network plane") != NULL);
}
END_TEST

/* --- files ------------------------------------------------------------------ */

START_TEST(test_builtins_load)
{
  g_auto(GStrv) examples = topo_builtin_examples();
  g_auto(GStrv) servers = topo_builtin_servers();

  ck_assert_uint_ge(g_strv_length(examples), 8);
  ck_assert_uint_ge(g_strv_length(servers), 7);
  for (guint i = 0; examples[i]; i++) {
    g_autoptr(GError) error = NULL;
    g_autoptr(TopoSystem) sys = NULL;
    if (strcmp(examples[i], "dgx-h100-32k") == 0 ||
        strcmp(examples[i], "dgx-h100-128k") == 0)
      continue; /* bench/topology builds them */
    sys = topo_system_load_builtin(examples[i], &error);
    ck_assert_msg(sys != NULL, "%s: %s", examples[i],
                  error ? error->message : "");
  }
  for (guint i = 0; servers[i]; i++) {
    g_autofree char *name = g_strdup_printf("server:%s", servers[i]);
    g_autoptr(GError) error = NULL;
    g_autoptr(TopoSystem) sys = topo_system_load_builtin(name, &error);
    ck_assert_msg(sys != NULL, "%s: %s", name, error ? error->message : "");
  }
}
END_TEST

START_TEST(test_repo_files_match_builtins)
{
  /* The example files in the repository load from disk too. */
  g_autofree char *dir =
      g_build_filename(IFSIM_SOURCE_DIR, "topologies", "examples", NULL);
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  const char *name;

  ck_assert_ptr_nonnull(d);
  while ((name = g_dir_read_name(d))) {
    g_autofree char *path = g_build_filename(dir, name, NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(TopoSystem) sys = NULL;
    if (!g_str_has_suffix(name, ".ini") || strstr(name, "32k") ||
        strstr(name, "128k"))
      continue;
    sys = topo_system_load(path, NULL, &error);
    ck_assert_msg(sys != NULL, "%s: %s", name, error ? error->message : "");
  }
}
END_TEST

/* --- packet parameters ---------------------------------------------------- */

/* The first channel from a node of kind a to one of kind b. */
static SimChannelId find_channel(const TopoSystem *sys, TopoNodeKind a,
                                 TopoNodeKind b)
{
  const SimFabric *f = topo_system_fabric(sys);

  for (SimChannelId c = 0; c < sim_fabric_n_channels(f); c++) {
    const SimChannel *ch = sim_fabric_channel(f, c);

    if (sim_fabric_node(f, ch->src)->kind == a &&
        sim_fabric_node(f, ch->dst)->kind == b)
      return c;
  }
  ck_abort_msg("no channel from kind %d to kind %d", a, b);
  return SIM_NONE;
}

static TopoSystem *load_builtin(const char *name)
{
  g_autoptr(GError) error = NULL;
  TopoSystem *sys = topo_system_load_builtin(name, &error);

  ck_assert_msg(sys != NULL, "%s", error ? error->message : "");
  return sys;
}

static guint32 width_of(const TopoSystem *sys, SimChannelId c)
{
  return sim_fabric_channel(topo_system_fabric(sys), c)->width;
}

/* DGX H100 SuperPOD: NDR into a Quantum-2 switch is credit-based and
 * cut-through, 4 KiB MTU, 8 VLs, 64-byte credits, 64 KiB per VL, 44
 * overhead bytes (delimiters 2, LRH 8, BTH 12, RETH 16, ICRC 4, VCRC 2);
 * into a NIC it is
 * store and forward.  NVLink into an NVSwitch: 256-byte packets, 16-byte
 * credits, 4 KiB per link times the links bundled.  No ECN, DCQCN or
 * timeout on lossless families; one cached record per kind of channel. */
START_TEST(test_packet_link_ib_nvlink)
{
  g_autoptr(TopoSystem) sys = load_builtin("dgx-h100-superpod");
  SimChannelId up = find_channel(sys, TOPO_NODE_NIC, TOPO_NODE_NET_SWITCH);
  SimChannelId nv = find_channel(sys, TOPO_NODE_GPU, TOPO_NODE_NVSWITCH);
  const SimPacketLink *p = topo_packet_link(sys, up);
  const SimPacketLink *down = topo_packet_link(sys, sim_channel_reverse(up));
  const SimPacketLink *n = topo_packet_link(sys, nv);

  ck_assert_str_eq(topo_channel_link(sys, up)->name, "ib-ndr-4x");
  ck_assert_uint_eq(width_of(sys, up), 1);
  ck_assert_uint_eq(p->flow_control, SIM_FC_CREDIT);
  ck_assert(p->cut_through);
  ck_assert_uint_eq(p->mtu, 4096);
  ck_assert_uint_eq(p->n_vl, 8);
  ck_assert_uint_eq(p->credit_unit, 64);
  ck_assert_uint_eq(p->buffer_bytes, 65536);
  ck_assert_uint_eq(p->cut_through_bytes, 44);
  ck_assert(!p->ecn && !p->dcqcn);
  ck_assert_uint_eq(p->rto, 0);
  ck_assert_uint_eq(down->flow_control, SIM_FC_CREDIT);
  ck_assert(!down->cut_through);
  ck_assert_ptr_eq(topo_packet_link(sys, up), p);
  ck_assert_ptr_ne(down, p);

  ck_assert_str_eq(topo_channel_link(sys, nv)->name, "nvlink4");
  ck_assert_uint_eq(n->flow_control, SIM_FC_CREDIT);
  ck_assert(n->cut_through);
  ck_assert_uint_eq(n->mtu, 256);
  ck_assert_uint_eq(n->n_vl, 1);
  ck_assert_uint_eq(n->credit_unit, 16);
  ck_assert_uint_eq(n->buffer_bytes, topo_channel_link(sys, nv)->credit_buffer_bytes *
                                          width_of(sys, nv));
  ck_assert_uint_eq(n->cut_through_bytes,
                    mdl_link_wire_bytes(topo_channel_link(sys, nv), 256, 0,
                                        MDL_OP_WRITE) -
                        256);
}
END_TEST

/* The RoCE example: lossless by PFC with the link model's thresholds;
 * switch ports mark ECN, the NIC's does not; every RoCE hop carries
 * DCQCN with rates in bytes/s and timers in ps, alpha every 55 us; the
 * go-back-N timeout.  UPI sets no credit buffer: twice the hop's
 * bandwidth-delay product, whole credits. */
START_TEST(test_packet_link_roce)
{
  g_autoptr(TopoSystem) sys = load_builtin("roce-400g-fattree");
  SimChannelId up = find_channel(sys, TOPO_NODE_NIC, TOPO_NODE_NET_SWITCH);
  SimChannelId mid =
      find_channel(sys, TOPO_NODE_NET_SWITCH, TOPO_NODE_NET_SWITCH);
  SimChannelId upi = find_channel(sys, TOPO_NODE_CPU, TOPO_NODE_CPU);
  const SimPacketLink *p = topo_packet_link(sys, up);
  const SimPacketLink *q = topo_packet_link(sys, mid);
  const SimPacketLink *u = topo_packet_link(sys, upi);
  const MdlLink *ul = topo_channel_link(sys, upi);
  /* twice the credit loop: 2 latencies, 2 full packets, 150 ns forwarding */
  double full = (double)mdl_link_wire_bytes(ul, ul->max_payload_bytes, 0,
                                            MDL_OP_WRITE);
  double bdp2 = 2 * mdl_link_rate_Bps(ul) *
                (2 * sim_time_to_s(mdl_link_latency_ps(ul)) +
                 2 * full / mdl_link_rate_Bps(ul) + 150e-9) *
                width_of(sys, upi);
  guint32 w = width_of(sys, mid);

  ck_assert_uint_eq(width_of(sys, up), 1);
  ck_assert_uint_eq(p->flow_control, SIM_FC_PFC);
  ck_assert(p->cut_through);
  ck_assert_uint_eq(p->n_vl, 8);
  ck_assert_uint_eq(p->pfc_xoff_bytes, 262144);
  ck_assert_uint_eq(p->pfc_xon_bytes, 131072);
  ck_assert_uint_eq(p->pfc_headroom_bytes, 131072);
  ck_assert(!p->ecn);
  ck_assert(p->dcqcn);
  ck_assert_double_eq_tol(p->dcqcn_g, 1.0 / 204.8, 1e-12);
  ck_assert_uint_eq(p->dcqcn_alpha_period, SIM_US(55));
  ck_assert_uint_eq(p->dcqcn_rate_increase, SIM_US(300));
  ck_assert_uint_eq(p->dcqcn_byte_counter, 32767);
  ck_assert_double_eq_tol(p->dcqcn_rai_Bps, 5e6 / 8, 1e-6);
  ck_assert_double_eq_tol(p->dcqcn_rhai_Bps, 50e6 / 8, 1e-6);
  ck_assert_double_eq_tol(p->dcqcn_min_rate_Bps, 1e6 / 8, 1e-6);
  ck_assert_uint_eq(p->dcqcn_cnp_interval, SIM_US(50));
  ck_assert_uint_eq(p->rto, 67108864000ull);

  ck_assert(q->ecn && q->dcqcn);
  ck_assert_uint_eq(q->ecn_kmin_bytes, 10240ull * w);
  ck_assert_uint_eq(q->ecn_kmax_bytes, 102400ull * w);
  ck_assert_double_eq_tol(q->ecn_pmax, 0.01, 1e-12);
  ck_assert_uint_eq(q->pfc_xoff_bytes, 262144ull * w);

  ck_assert_str_eq(ul->name, "upi2");
  ck_assert_uint_eq(u->flow_control, SIM_FC_CREDIT);
  ck_assert_uint_eq(u->buffer_bytes % u->credit_unit, 0);
  ck_assert(u->buffer_bytes >= bdp2 &&
            u->buffer_bytes < bdp2 + u->credit_unit * width_of(sys, upi));
}
END_TEST

/* Lossy RoCE: a port's queue limit is the switch's shared buffer split
 * evenly over its ports, or, where the switch sets none (and at the NIC),
 * what the port holds before dropping under PFC (xoff + headroom). */
START_TEST(test_packet_link_lossy)
{
  g_autoptr(TopoSystem) sys =
      load_text("[system]\nserver = host\nservers = 4\n"
                "[server host]\ngpus = 1\nsockets = 1\ngpu_pcie = pcie5-x16\n"
                "nic = cx7-400g\nnics = 1\n"
                "[link roce-v2-400g]\nflow_control = lossy\n"
                "[switch sw]\nbased_on = spectrum4-400g\nports = 8\n"
                "buffer_bytes = 8000000\n"
                "[scaleout]\ntopology = fat-tree\nswitch = sw\ntiers = 1\n");
  SimChannelId up = find_channel(sys, TOPO_NODE_NIC, TOPO_NODE_NET_SWITCH);
  const SimPacketLink *p = topo_packet_link(sys, up);
  const SimPacketLink *q = topo_packet_link(sys, sim_channel_reverse(up));

  ck_assert_uint_eq(p->flow_control, SIM_FC_LOSSY);
  ck_assert_uint_eq(p->buffer_bytes, 262144 + 131072);
  ck_assert_uint_eq(q->flow_control, SIM_FC_LOSSY);
  ck_assert_uint_eq(q->buffer_bytes, 8000000 / 8);
  ck_assert(q->ecn && !p->ecn);
  ck_assert(!q->cut_through && p->cut_through);
}
END_TEST

/* InfiniBand CC on: every IB channel carries the sender's figures, only
 * switch ports mark FECN; ps from us and ns. */
START_TEST(test_packet_link_ib_cc)
{
  g_autoptr(TopoSystem) sys =
      load_text("[system]\nserver = host\nservers = 4\n"
                "[server host]\ngpus = 1\nsockets = 1\ngpu_pcie = pcie5-x16\n"
                "nic = cx7-ndr\nnics = 1\n"
                "[link ib-ndr-4x]\ncc = true\n"
                "[scaleout]\ntopology = fat-tree\nswitch = quantum2-ndr\n"
                "tiers = 1\n");
  SimChannelId up = find_channel(sys, TOPO_NODE_NIC, TOPO_NODE_NET_SWITCH);
  const SimPacketLink *p = topo_packet_link(sys, up);
  const SimPacketLink *q = topo_packet_link(sys, sim_channel_reverse(up));

  ck_assert(p->ibcc && q->ibcc);
  ck_assert(!p->ibcc_mark && q->ibcc_mark);
  ck_assert_uint_eq(q->ibcc_threshold_bytes, 16384);
  ck_assert_uint_eq(q->ibcc_ccti_increase, 1);
  ck_assert_uint_eq(q->ibcc_ccti_limit, 127);
  ck_assert_uint_eq(q->ibcc_ccti_timer, SIM_US(5));
  ck_assert_uint_eq(q->ibcc_ipd_step, 10000);
  ck_assert(!q->ecn && !q->dcqcn);
}
END_TEST

static gboolean load_system_file(const char *path, GError **error)
{
  g_autoptr(TopoSystem) sys = topo_system_load(path, NULL, error);

  return sys != NULL;
}

START_TEST(test_bad_corpus)
{
  ck_assert_uint_ge(
      bad_corpus_check("topo", load_system_file, BAD_NAMES_FILE_OR_BUILTIN),
      20);
}
END_TEST

/* The kinds of network as one table each (TopoNetOps): the keys of the
 * others refused by name, the routings each takes, [network] read by
 * explicit alone, the planes reported; a system without a network has
 * no table. */
#define NET_HOSTS "[system]\nserver = host\nservers = 2\n" HOST_SERVER

static void expect_refused(const char *text, const char *want)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TopoSystem) sys =
      topo_system_load_data(text, strlen(text), "k.ini", NULL, &error);

  ck_assert(sys == NULL);
  ck_assert_msg(g_error_matches(error, TOPO_ERROR, TOPO_ERROR_CONFLICT) &&
                    strstr(error->message, want),
                "%s: '%s'", error->message, want);
}

START_TEST(test_net_kinds)
{
  static const char explicit_net[] =
      "[scaleout]\ntopology = explicit\nswitch = quantum2-ndr\n%s"
      "[network]\nswitches = a\nattach = 0.0 a; 1.0 a\n";
  g_autofree char *ex = g_strdup_printf(explicit_net, "");
  g_autofree char *ex_tiers = g_strdup_printf(explicit_net, "tiers = 2\n");
  g_autofree char *ex_groups = g_strdup_printf(explicit_net, "groups = 3\n");
  g_autofree char *ex_valiant =
      g_strdup_printf(explicit_net, "routing = valiant\n");
  g_autofree char *a = g_strconcat(NET_HOSTS, ex, NULL);
  g_autoptr(TopoSystem) sys = load_text(a);
  g_autoptr(TopoSystem) ft = load_text(
      NET_HOSTS "[scaleout]\ntopology = fat-tree\nswitch = quantum2-ndr\n"
                "tiers = 1\nplanes = 1\n");
  g_autoptr(TopoSystem) df = load_text(
      NET_HOSTS "[scaleout]\ntopology = dragonfly\nswitch = quantum2-ndr\n"
                "routers_per_group = 2\nterminals_per_router = 1\n"
                "global_links_per_router = 1\ngroups = 3\n");
  g_autoptr(TopoSystem) none =
      load_text("[system]\nserver = host\nservers = 1\n" HOST_SERVER);
  TopoSummary s;
  SimPath path;
  g_autoptr(GError) error = NULL;

  ck_assert_ptr_eq(topo_net_ops(sys), &topo_explicit_ops);
  ck_assert_ptr_eq(topo_net_ops(ft), &topo_fattree_ops);
  ck_assert_ptr_eq(topo_net_ops(df), &topo_dragonfly_ops);
  ck_assert_ptr_null(topo_net_ops(none));
  topo_system_summary(none, &s);
  ck_assert_uint_eq(s.net_planes, 0);
  topo_system_summary(df, &s);
  ck_assert_uint_eq(s.net_planes, 1);
  ck_assert_double_eq(s.oversubscription[1], 0);
  topo_system_summary(sys, &s);
  ck_assert_uint_eq(s.net_planes, 1);
  {
    g_autoptr(TopoSystem) two = load_text(TWO_TIER("ecmp"));

    topo_system_summary(two, &s); /* tiered: each tier's ratio */
    ck_assert_double_eq_tol(s.oversubscription[1], 1.0, 1e-9);
  }
  /* routing through each kind's own route function */
  ck_assert(topo_route_network(sys, topo_nic(sys, 0, 0), topo_nic(sys, 1, 0), 0,
                               NULL, &path, &error));
  ck_assert_uint_eq(path.n, 2);
  ck_assert(topo_route_network(df, topo_nic(df, 0, 0), topo_nic(df, 1, 0), 0,
                               NULL, &path, &error));
  /* dragonfly routes minimally unless told otherwise */
  ck_assert_uint_eq(df->scaleout.routing, TOPO_ROUTE_MINIMAL);
  ck_assert_uint_eq(ft->scaleout.routing, TOPO_ROUTE_ECMP);

  expect_refused(NET_HOSTS "[scaleout]\ntopology = fat-tree\n"
                           "switch = quantum2-ndr\ngroups = 3\n",
                 "k.ini: [scaleout] groups: does not apply to topology = "
                 "fat-tree");
  expect_refused(NET_HOSTS "[scaleout]\ntopology = dragonfly\n"
                           "switch = quantum2-ndr\ntiers = 2\n",
                 "[scaleout] tiers: does not apply to topology = dragonfly");
  g_free(a);
  a = g_strconcat(NET_HOSTS, ex_tiers, NULL);
  expect_refused(a, "[scaleout] tiers: does not apply to topology = explicit");
  g_free(a);
  a = g_strconcat(NET_HOSTS, ex_groups, NULL);
  expect_refused(a, "[scaleout] groups: does not apply to topology = explicit");
  g_free(a);
  a = g_strconcat(NET_HOSTS, ex_valiant, NULL);
  expect_refused(a, "[scaleout] routing: valiant does not apply to topology "
                    "= explicit (dmodk, ecmp or adaptive)");
  expect_refused(NET_HOSTS "[scaleout]\ntopology = dragonfly\n"
                           "switch = quantum2-ndr\nrouting = dmodk\n",
                 "routing: dmodk does not apply to topology = dragonfly "
                 "(minimal, valiant, ugal-l or ugal-g)");
  expect_refused(NET_HOSTS "[scaleout]\ntopology = fat-tree\n"
                           "switch = quantum2-ndr\n[network]\nswitches = a\n",
                 "k.ini: [network]: only topology = explicit reads it");
}
END_TEST

Suite *suite_topo(void)
{
  Suite *s = suite_create("topo");
  TCase *tc = tcase_create("shapes");

  tcase_add_test(tc, test_kary_fattree_k4);
  tcase_add_test(tc, test_two_tier_64port);
  tcase_add_test(tc, test_oversubscription);
  tcase_add_test(tc, test_dragonfly_balanced);
  tcase_set_timeout(tc, 120);
  suite_add_tcase(s, tc);
  tc = tcase_create("routing");
  tcase_add_test(tc, test_route_superpod);
  tcase_add_test(tc, test_route_spare_nics);
  tcase_add_test(tc, test_server_cpu);
  tcase_add_test(tc, test_route_pcie_classes);
  tcase_add_test(tc, test_route_nvl72);
  tcase_add_test(tc, test_ecmp_spreads_evenly);
  tcase_add_test(tc, test_dmodk_and_seeds);
  tcase_add_test(tc, test_adaptive_avoids_load);
  tcase_add_test(tc, test_dragonfly_routing);
  tcase_add_test(tc, test_planes);
  tcase_set_timeout(tc, 120);
  suite_add_tcase(s, tc);
  tc = tcase_create("packet");
  tcase_add_test(tc, test_packet_link_ib_nvlink);
  tcase_add_test(tc, test_packet_link_roce);
  tcase_add_test(tc, test_packet_link_lossy);
  tcase_add_test(tc, test_packet_link_ib_cc);
  tcase_set_timeout(tc, 60);
  suite_add_tcase(s, tc);
  tc = tcase_create("files");
  tcase_add_test(tc, test_builtins_load);
  tcase_add_test(tc, test_repo_files_match_builtins);
  tcase_add_test(tc, test_net_kinds);
  tcase_add_test(tc, test_bad_corpus);
  tcase_set_timeout(tc, 120);
  suite_add_tcase(s, tc);
  return s;
}
