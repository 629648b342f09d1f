/* Tests of topologies/faults.c: what each fault takes down or slows, that
 * routes avoid what is down (fat-tree D-mod-k, ECMP and adaptive over the
 * survivors, 3 tiers, explicit networks searched again), that NIC faults
 * move GPUs to the nearest NIC up, that faults touching nothing a route
 * takes change no route, random draws, NVLinks inside a server, and the
 * bad input each refuses. */
#include <string.h>

#include "tests/suites.h"
#include "topologies/error.h"
#include "topologies/system.h"
#include "tests/topologies/systems.h"

/* The same with 4 spines, so that each leaf-spine link bundles 8 cables. */
#define TWO_TIER_BUNDLED TWO_TIER("dmodk") "spines = 4\n"

static gboolean add(TopoSystem *sys, const char *fail, const char *degrade,
                    guint32 random_links, guint32 seed, GError **error)
{
  const char *f[] = {fail, NULL}, *d[] = {degrade, NULL};
  TopoFaultSpec spec = {.fail = fail ? f : NULL,
                        .degrade = degrade ? d : NULL,
                        .random_links = random_links,
                        .seed = seed,
                        .where_fail = "fail",
                        .where_degrade = "degrade",
                        .where_random = "random"};

  return topo_system_add_faults(sys, &spec, error);
}

/* spec refused on a system of ini, with a message holding expect. */
static void assert_refused(const char *ini, const TopoFaultSpec *spec,
                           const char *expect, guint i)
{
  g_autoptr(TopoSystem) sys = load_text(ini);
  g_autoptr(GError) error = NULL;

  ck_assert_msg(!topo_system_add_faults(sys, spec, &error), "case %u", i);
  ck_assert_msg(strstr(error->message, expect), "case %u: %s", i,
                error->message);
}

static void add_ok(TopoSystem *sys, const char *fail, const char *degrade)
{
  g_autoptr(GError) error = NULL;

  ck_assert_msg(add(sys, fail, degrade, 0, 0, &error), "%s",
                error ? error->message : "");
}

static SimNodeId node_named(const TopoSystem *sys, const char *name)
{
  const SimFabric *f = topo_system_fabric(sys);

  for (SimNodeId n = 0; n < sim_fabric_n_nodes(f); n++) {
    if (strcmp(sim_fabric_node_name(f, n), name) == 0)
      return n;
  }
  ck_abort_msg("no node %s", name);
  return SIM_NONE;
}

/* Whether a path crosses node n, and whether every hop is up. */
static gboolean path_crosses(const TopoSystem *sys, const SimPath *p,
                             SimNodeId n)
{
  const SimFabric *f = topo_system_fabric(sys);

  for (guint32 i = 0; i < p->n; i++) {
    const SimChannel *ch = sim_fabric_channel(f, p->hop[i]);
    if (ch->src == n || ch->dst == n)
      return TRUE;
  }
  return FALSE;
}

static void assert_up(const TopoSystem *sys, const SimPath *p)
{
  for (guint32 i = 0; i < p->n; i++)
    ck_assert_msg(topo_channel_up(sys, p->hop[i]), "hop %u is down", i);
}

static SimPath net_route(const TopoSystem *sys, guint32 a, guint32 b,
                         guint64 flow)
{
  SimPath p;
  g_autoptr(GError) error = NULL;

  ck_assert_msg(topo_route_network(sys, topo_nic(sys, a, 0),
                                   topo_nic(sys, b, 0), flow, NULL, &p, &error),
                "%s", error ? error->message : "");
  return p;
}

/* A spine down: no route crosses it, every hop is up, and D-mod-k takes
 * the live spines in order, destination mod 31. */
START_TEST(test_spine_down_dmodk)
{
  g_autoptr(TopoSystem) sys = load_text(TWO_TIER("dmodk"));
  const SimFabric *f = topo_system_fabric(sys);
  SimNodeId dead = node_named(sys, "p0.spine5");

  add_ok(sys, "p0.spine5", NULL);
  for (guint32 a = 0; a < 128; a += 7) {
    for (guint32 b = 0; b < 128; b += 3) {
      SimPath p;
      guint32 j;

      if (a / 32 == b / 32)
        continue;
      p = net_route(sys, a, b, a + b);
      ck_assert(!path_crosses(sys, &p, dead));
      assert_up(sys, &p);
      /* spines 0..4 then 6..31: the (b mod 31)-th live one */
      j = b % 31;
      ck_assert_uint_eq(
          sim_fabric_node(f, sim_fabric_channel(f, p.hop[1])->dst)->index,
          j < 5 ? j : j + 1);
    }
  }
}
END_TEST

/* ECMP and adaptive also keep off what is down. */
START_TEST(test_ecmp_adaptive_avoid)
{
  static const char *const routings[] = {TWO_TIER("ecmp"),
                                         TWO_TIER("adaptive")};

  for (guint k = 0; k < G_N_ELEMENTS(routings); k++) {
    g_autoptr(TopoSystem) sys = load_text(routings[k]);
    SimNodeId s3 = node_named(sys, "p0.spine3");
    SimNodeId s9 = node_named(sys, "p0.spine9");
    guint32 seen[32] = {0};

    add_ok(sys, "p0.spine3", NULL);
    add_ok(sys, "p0.leaf0 p0.spine9", NULL);
    for (guint32 flow = 0; flow < 2000; flow++) {
      SimPath p = net_route(sys, flow % 32, 32 + flow % 96, flow);
      const SimChannel *up =
          sim_fabric_channel(topo_system_fabric(sys), p.hop[1]);

      ck_assert(!path_crosses(sys, &p, s3) && !path_crosses(sys, &p, s9));
      assert_up(sys, &p);
      seen[sim_fabric_node(topo_system_fabric(sys), up->dst)->index]++;
    }
    /* every other spine still carries some */
    for (guint32 j = 0; j < 32; j++)
      ck_assert(j == 3 || j == 9 || seen[j] > 0);
  }
}
END_TEST

/* Faults that leave every route's links up and at their rate (a fraction
 * of 1, a link no route between these hosts takes) change no route. */
START_TEST(test_harmless_faults_change_nothing)
{
  static const char *const routings[] = {"dmodk", "ecmp", "adaptive"};

  for (guint k = 0; k < G_N_ELEMENTS(routings); k++) {
    g_autofree char *ini = g_strdup_printf(TWO_TIER("%s"), routings[k]);
    g_autoptr(TopoSystem) base = load_text(ini);
    g_autoptr(TopoSystem) sys = load_text(ini);

    add_ok(sys, NULL, "p0.* p0.* 1");
    for (guint32 a = 0; a < 128; a += 5) {
      for (guint32 b = 1; b < 128; b += 11) {
        SimPath p, q;
        if (a == b)
          continue;
        p = net_route(base, a, b, a * 131 + b);
        q = net_route(sys, a, b, a * 131 + b);
        ck_assert_uint_eq(p.n, q.n);
        ck_assert_mem_eq(p.hop, q.hop, p.n * sizeof p.hop[0]);
      }
    }
  }
}
END_TEST

/* Rates: a fraction, another model of the family, N cables of a bundle
 * down and slow; the counts reported. */
START_TEST(test_rates)
{
  g_autoptr(TopoSystem) sys = load_text(TWO_TIER_BUNDLED);
  const SimFabric *f = topo_system_fabric(sys);
  SimChannelId nic, bundle;
  guint32 down, slow;
  g_autoptr(GError) error = NULL;

  nic = sim_fabric_find_channel(f, node_named(sys, "s0.nic0"),
                                node_named(sys, "p0.leaf0"));
  bundle = sim_fabric_find_channel(f, node_named(sys, "p0.leaf1"),
                                   node_named(sys, "p0.spine2"));
  ck_assert_uint_eq(sim_fabric_channel(f, bundle)->width, 8);
  ck_assert_double_eq_tol(sim_fabric_channel(f, nic)->rate_Bps, 50e9, 1);
  add_ok(sys, NULL, "s0.nic0 p0.leaf0 ib-ndr-1x");
  ck_assert_double_eq_tol(sim_fabric_channel(f, nic)->rate_Bps, 12.5e9, 1);
  ck_assert_double_eq_tol(
      sim_fabric_channel(f, sim_channel_reverse(nic))->rate_Bps, 12.5e9, 1);
  /* no healthy cable left to slow */
  ck_assert(!add(sys, NULL, "s0.nic0 p0.leaf0 0.5", 0, 0, &error));
  ck_assert_ptr_nonnull(strstr(error->message, "0 of its 1 physical links"));
  g_clear_error(&error);

  add_ok(sys, "p0.leaf1 p0.spine2 x3", NULL);
  ck_assert_uint_eq(sim_fabric_channel(f, bundle)->width, 5);
  ck_assert_double_eq_tol(sim_fabric_channel(f, bundle)->rate_Bps, 250e9, 1);
  add_ok(sys, NULL, "p0.leaf1 p0.spine2 x2 0.5");
  ck_assert_double_eq_tol(sim_fabric_channel(f, bundle)->rate_Bps, 200e9, 1);
  /* down takes the healthy cables first, then the slow ones */
  add_ok(sys, "p0.leaf1 p0.spine2 x4", NULL);
  ck_assert_uint_eq(sim_fabric_channel(f, bundle)->width, 1);
  ck_assert_double_eq_tol(sim_fabric_channel(f, bundle)->rate_Bps, 25e9, 1);
  ck_assert(!add(sys, "p0.leaf1 p0.spine2 x2", NULL, 0, 0, &error));
  ck_assert_ptr_nonnull(strstr(error->message, "1 of its 8 physical links up"));
  add_ok(sys, "p0.leaf1 p0.spine2", NULL);
  ck_assert(!topo_channel_up(sys, bundle));
  ck_assert_double_eq(sim_fabric_channel(f, bundle)->rate_Bps, 0);
  topo_system_fault_counts(sys, &down, &slow);
  ck_assert_uint_eq(down, 8);
  ck_assert_uint_eq(slow, 1); /* the NIC's; the bundle's two went down */
  {
    g_auto(GStrv) lines = topo_system_fault_lines(sys);
    ck_assert_uint_eq(g_strv_length(lines), 5);
    ck_assert_str_eq(lines[0], "slow: s0.nic0 p0.leaf0 ib-ndr-1x (1 link)");
  }
}
END_TEST

/* Three tiers: a core down, and a spine's core uplinks down, are routed
 * around; pairs in one pod never needed them. */
START_TEST(test_three_tier)
{
  static const char ini[] =
      "[system]\nserver = host\nservers = 16\n" HOST_SERVER
      "[scaleout]\ntopology = fat-tree\nswitch = quantum2-ndr\nradix = 4\n"
      "tiers = 3\nrouting = dmodk\n";
  g_autoptr(TopoSystem) sys = load_text(ini);
  SimNodeId core = node_named(sys, "p0.core0");
  SimNodeId sp = node_named(sys, "p0.spine1");
  guint32 crossing = 0;

  add_ok(sys, "p0.core0", NULL);
  add_ok(sys, "p0.spine1 p0.core*", NULL);
  for (guint32 a = 0; a < 16; a++) {
    for (guint32 b = 0; b < 16; b++) {
      SimPath p;
      if (a / 2 == b / 2)
        continue;
      p = net_route(sys, a, b, 0);
      assert_up(sys, &p);
      ck_assert(!path_crosses(sys, &p, core));
      crossing += p.n == 6;
      if (p.n == 6)
        ck_assert(!path_crosses(sys, &p, sp));
    }
  }
  ck_assert_uint_gt(crossing, 0);
}
END_TEST

/* A NIC down: its GPU leaves by the nearest NIC up (one PCIe switch away
 * on a DGX H100), and traffic to it enters there too. */
START_TEST(test_nic_down_moves_gpu)
{
  static const char ini[] =
      "[system]\nserver = dgx-h100\nservers = 2\n[scaleout]\n"
      "topology = fat-tree\nswitch = quantum2-ndr\ntiers = 2\n"
      "rail_optimized = true\n";
  g_autoptr(TopoSystem) sys = load_text(ini);
  g_autoptr(GError) error = NULL;
  SimNodeId nic0 = topo_nic(sys, 0, 0);
  SimNodeId sub;
  SimPathSet ps;

  add_ok(sys, "s0.nic0", NULL);
  ck_assert(!topo_nic_up(sys, 0, 0));
  ck_assert(topo_nic_up(sys, 1, 0));
  sub = topo_live_nic(sys, 0, 0, 0);
  ck_assert_uint_ne(sub, nic0);
  ck_assert_uint_eq(
      topo_gpu_nic_pci_path(
          sys, 0, sim_fabric_node(topo_system_fabric(sys), sub)->index),
      TOPO_PCI_PIX);
  for (guint dir = 0; dir < 2; dir++) {
    SimNodeId a = topo_gpu(sys, dir, 0), b = topo_gpu(sys, 1 - dir, 0);
    ck_assert_msg(topo_route(sys, a, b, 0, NULL, &ps, &error), "%s",
                  error ? error->message : "");
    ck_assert(!path_crosses(sys, &ps.path[0], nic0));
    ck_assert(path_crosses(sys, &ps.path[0], sub));
    assert_up(sys, &ps.path[0]);
  }
  /* every NIC of a server down: its GPUs cannot reach the network */
  add_ok(sys, "s0.nic*", NULL);
  ck_assert(!topo_route(sys, topo_gpu(sys, 0, 3), topo_gpu(sys, 1, 3), 0, NULL,
                        &ps, &error));
  ck_assert_ptr_nonnull(strstr(error->message, "every NIC of server 0"));
}
END_TEST

/* An explicit network searches its distances again: with one spine down
 * the other carries everything; with both down the leaves are apart. */
START_TEST(test_explicit_reroute)
{
  static const char ini[] =
      "[system]\nserver = host\nservers = 4\n" HOST_SERVER
      "[scaleout]\ntopology = explicit\nswitch = quantum2-ndr\n"
      "link = ib-ndr-4x\nrouting = dmodk\n[network]\n"
      "switches = leafA; leafB; spineA; spineB\n"
      "links = leafA spineA; leafA spineB; leafB spineA; leafB spineB\n"
      "attach = 0.0 leafA; 1.0 leafA; 2.0 leafB; 3.0 leafB\n";
  g_autoptr(TopoSystem) sys = load_text(ini);
  g_autoptr(GError) error = NULL;
  SimNodeId a = node_named(sys, "spineA"), b = node_named(sys, "spineB");
  guint32 via_b = 0;
  SimPath p;

  add_ok(sys, "spineA", NULL);
  for (guint32 s = 0; s < 2; s++) {
    for (guint32 d = 2; d < 4; d++) {
      p = net_route(sys, s, d, s + d);
      ck_assert(!path_crosses(sys, &p, a));
      via_b += path_crosses(sys, &p, b);
      assert_up(sys, &p);
    }
  }
  ck_assert_uint_eq(via_b, 4);
  /* inside a leaf nothing changes */
  p = net_route(sys, 0, 1, 0);
  ck_assert_uint_eq(p.n, 2);
  add_ok(sys, "leafB spineB", NULL);
  ck_assert(!topo_route_network(sys, topo_nic(sys, 0, 0), topo_nic(sys, 2, 0),
                                0, NULL, &p, &error));
  ck_assert_ptr_nonnull(strstr(error->message, "s0.nic0 to s2.nic0"));
  ck_assert_ptr_nonnull(strstr(error->message, "faults"));
}
END_TEST

/* A dragonfly of 5 groups of 4 routers, a host on each (host i on router
 * i: group i / 4), 2 global links per router. */
#define DRAGONFLY(routing)                                                     \
  "[system]\nserver = host\nservers = 20\n" HOST_SERVER                        \
  "[scaleout]\ntopology = dragonfly\nswitch = quantum2-ndr\n"                  \
  "routers_per_group = 4\nterminals_per_router = 1\n"                          \
  "global_links_per_router = 2\ngroups = 5\nrouting = " routing "\n"

/* A dragonfly takes what is left: another global link toward the group,
 * a detour through a router of the group, or, with every global link
 * between two groups down, a third group (minimal and Valiant alike);
 * with every global link of a group down, its hosts are cut off. */
START_TEST(test_dragonfly_reroute)
{
  static const char *const routings[] = {DRAGONFLY("minimal"),
                                         DRAGONFLY("valiant")};

  for (guint k = 0; k < G_N_ELEMENTS(routings); k++) {
    g_autoptr(TopoSystem) sys = load_text(routings[k]);
    g_autoptr(GError) error = NULL;
    SimPath p;

    add_ok(sys, "g0.* g1.*", NULL);
    add_ok(sys, "g2.router0 g2.router1", NULL);
    for (guint32 a = 0; a < 20; a++) {
      for (guint32 b = 0; b < 20; b++) {
        if (a == b)
          continue;
        p = net_route(sys, a, b, a * 20 + b);
        assert_up(sys, &p);
      }
    }
    /* 0 -> 5 (groups 0 and 1) cannot go direct: a third group's routers */
    p = net_route(sys, 0, 5, 3);
    ck_assert_uint_ge(p.n, 4);
    /* 8 -> 9 (routers 0 and 1 of group 2): a detour of two local hops at
     * least, as minimal; Valiant may leave the group */
    p = net_route(sys, 8, 9, 0);
    ck_assert_uint_ge(p.n, 4);
    add_ok(sys, "g0.* g2.*", NULL);
    add_ok(sys, "g0.* g3.*", NULL);
    add_ok(sys, "g0.* g4.*", NULL);
    ck_assert(!topo_route_network(sys, topo_nic(sys, 0, 0), topo_nic(sys, 9, 0),
                                  0, NULL, &p, &error));
    ck_assert_ptr_nonnull(strstr(error->message, "cut every one"));
  }
}
END_TEST

/* A leaf cut from every spine: routes to it fail, naming the pair. */
START_TEST(test_disconnected_pair)
{
  g_autoptr(TopoSystem) sys = load_text(TWO_TIER("dmodk"));
  g_autoptr(GError) error = NULL;
  SimPath p;

  add_ok(sys, "p0.leaf1 p0.spine*", NULL);
  ck_assert(!topo_route_network(sys, topo_nic(sys, 0, 0), topo_nic(sys, 40, 0),
                                0, NULL, &p, &error));
  ck_assert_str_eq(error->message, "no network path from s0.nic0 to s40.nic0: "
                                   "the faults (from fail) cut every one");
  /* the leaf's own hosts still reach each other */
  p = net_route(sys, 33, 40, 0);
  ck_assert_uint_eq(p.n, 2);
}
END_TEST

/* Random links: k cables down, the same for a seed, others for another. */
START_TEST(test_random_links)
{
  g_autoptr(TopoSystem) a = load_text(TWO_TIER("dmodk"));
  g_autoptr(TopoSystem) b = load_text(TWO_TIER("dmodk"));
  g_autoptr(TopoSystem) c = load_text(TWO_TIER("dmodk"));
  g_autoptr(GError) error = NULL;
  guint32 down, slow;

  ck_assert(add(a, NULL, NULL, 6, 11, &error));
  ck_assert(add(b, NULL, NULL, 6, 11, &error));
  ck_assert(add(c, NULL, NULL, 6, 12, &error));
  topo_system_fault_counts(a, &down, &slow);
  ck_assert_uint_eq(down, 6);
  ck_assert_uint_eq(slow, 0);
  {
    g_auto(GStrv) la = topo_system_fault_lines(a);
    g_auto(GStrv) lb = topo_system_fault_lines(b);
    g_auto(GStrv) lc = topo_system_fault_lines(c);
    ck_assert(g_strv_equal((const char *const *)la, (const char *const *)lb));
    ck_assert(!g_strv_equal((const char *const *)la, (const char *const *)lc));
    ck_assert_ptr_nonnull(strstr(la[0], "(random, seed 11)"));
  }
  /* more than the network has */
  ck_assert(!add(a, NULL, NULL, 100000, 1, &error));
  ck_assert_ptr_nonnull(strstr(error->message, "more than the"));
}
END_TEST

/* Bad input: each refused with the place and what is wrong. */
START_TEST(test_bad_faults)
{
  static const struct {
    const char *fail, *degrade, *expect;
  } cases[] = {
      {"p0.spine99", NULL, "fail: 'p0.spine99' names no element"},
      {"p0.nothing*", NULL, "names no element"},
      {"s0.gpu0", NULL,
       "s0.gpu0 is a GPU without NVLink: faults take a GPU's or an "
       "NVSwitch's NVLinks"},
      {"s0.cpu0", NULL,
       "s0.cpu0 is a CPU socket: ifsim models faults of the network"},
      {"s0.gpu0 s0.cpu0", NULL, "is a PCIe or socket link"},
      {"p0.leaf0 p0.leaf1", NULL, "no link joins 'p0.leaf0' and 'p0.leaf1'"},
      {"p0.leaf0 p0.spine0 x0", NULL, "is not an element"},
      {"a b c d", NULL, "is not an element"},
      {NULL, "p0.spine0 0", "degrade: 0 is outside (0, 1]"},
      {NULL, "p0.spine0 1.5", "1.5 is outside (0, 1]"},
      {NULL, "p0.spine0 nan", "is outside (0, 1]"},
      {NULL, "p0.spine0", "has no rate"},
      {NULL, "p0.spine0 ib-hdr", "neither a fraction in (0, 1] nor a link"},
      {NULL, "p0.spine0 roce-v2-100g", "is not of the family of ib-ndr-4x"},
      {NULL, "p0.spine0 ib-xdr-4x", "a link trains at its own rate or lower"},
  };

  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autoptr(TopoSystem) sys = load_text(TWO_TIER("dmodk"));
    g_autoptr(GError) error = NULL;

    ck_assert_msg(!add(sys, cases[i].fail, cases[i].degrade, 0, 0, &error),
                  "case %u accepted", i);
    ck_assert_msg(strstr(error->message, cases[i].expect), "case %u: %s", i,
                  error->message);
    ck_assert(error->domain == TOPO_ERROR);
  }
}
END_TEST

/* The [faults] group of a system file; a system without a network
 * refuses faults of the network; unknown keys are refused. */
START_TEST(test_faults_group)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *ini = g_strconcat(
      TWO_TIER("dmodk"),
      "[faults]\nfail = p0.spine1; p0.leaf2 p0.spine3\n"
      "degrade = s0.nic0 p0.leaf0 0.5\nrandom_links = 2\nseed = 4\n",
      NULL);
  g_autoptr(TopoSystem) sys = load_text(ini);
  g_auto(GStrv) lines = topo_system_fault_lines(sys);
  guint32 down, slow;
  TopoSystem *bad;

  topo_system_fault_counts(sys, &down, &slow);
  ck_assert_uint_eq(down, 4 + 1 + 2);
  ck_assert_uint_eq(slow, 1);
  ck_assert_uint_eq(g_strv_length(lines), 5);
  {
    static const char *const bad_ini[][2] = {
        {TWO_TIER("dmodk") "[faults]\nfial = p0.spine1\n", "fial"},
        {TWO_TIER("dmodk") "[faults]\nfail = p0.spine1; s0.gpu0\n",
         "test.ini: [faults] fail: s0.gpu0 is a GPU without NVLink"},
        {TWO_TIER("dmodk") "[faults]\nrandom_links = -1\n", "random_links"},
        {"[system]\nserver = dgx-h100\n[faults]\nfail = s0.nic0\n",
         "s0.nic0 is a NIC, and faults of NICs need a network between "
         "servers: this system has none (topology = none)"},
        {"[system]\nserver = dgx-h100\n[faults]\nrandom_links = 1\n",
         "random_links: random network links need a network"},
    };
    for (guint i = 0; i < G_N_ELEMENTS(bad_ini); i++) {
      g_clear_error(&error);
      bad = topo_system_load_data(bad_ini[i][0], strlen(bad_ini[i][0]),
                                  "test.ini", NULL, &error);
      ck_assert_msg(bad == NULL, "case %u loaded", i);
      ck_assert_msg(strstr(error->message, bad_ini[i][1]), "case %u: %s", i,
                    error->message);
    }
  }
  /* "none": no fault, for a sweep's baseline */
  {
    g_autofree char *none =
        g_strconcat(TWO_TIER("dmodk"), "[faults]\nfail = none\n", NULL);
    g_autoptr(TopoSystem) ok = load_text(none);
    ck_assert_ptr_null(topo_system_fault_lines(ok));
  }
}
END_TEST

/* NVLinks inside a server, their links kept up as they are (Fabric
 * Manager's policies: test_fabric_manager): a bundle's links down re-weigh
 * the routes of that server alone (links up through each NVSwitch, the
 * fewer of the two GPUs'), a GPU with none left reaches the others over
 * PCIe, an NVSwitch takes its links from every GPU, and the element kinds
 * list them. */
START_TEST(test_nvlinks)
{
  static const char ini[] = "[system]\nserver = dgx-h100\nservers = 2\n"
                            "[scaleout]\ntopology = fat-tree\n"
                            "switch = quantum2-ndr\ntiers = 2\n"
                            "[faults]\naccess_link_failure_mode = keep-links\n"
                            "nvswitch_failure_mode = disable\n";
  g_autoptr(TopoSystem) sys = load_text(ini);
  g_autoptr(TopoSystem) healthy = load_text(ini);
  SimPathSet ps, hs;
  g_autoptr(GError) error = NULL;

  add_ok(sys, "s1.gpu3 s1.nvsw0 x2", NULL);
  ck_assert(topo_server_nvlink_faulted(sys, 1));
  ck_assert(!topo_server_nvlink_faulted(sys, 0));
  ck_assert_uint_eq(topo_gpu_nvlinks_down(sys, 1, 3), 2);
  ck_assert_uint_eq(topo_gpu_nvlinks_down(sys, 0, 3), 0);
  /* server 1, GPU 3 to 4: 3, 5, 4 and 4 links through the four switches */
  ck_assert(topo_route(sys, topo_gpu(sys, 1, 3), topo_gpu(sys, 1, 4), 0, NULL,
                       &ps, &error));
  ck_assert_uint_eq(ps.n, 4);
  ck_assert_double_eq_tol(ps.weight[0], 3.0 / 16, 1e-12);
  ck_assert_double_eq_tol(ps.weight[1], 5.0 / 16, 1e-12);
  ck_assert_double_eq_tol(ps.weight[2], 4.0 / 16, 1e-12);
  /* server 0 keeps the routes as built: 5, 5, 4, 4 of 18 */
  ck_assert(topo_route(sys, topo_gpu(sys, 0, 3), topo_gpu(sys, 0, 4), 0, NULL,
                       &ps, &error));
  ck_assert(topo_route(healthy, topo_gpu(healthy, 0, 3),
                       topo_gpu(healthy, 0, 4), 0, NULL, &hs, &error));
  ck_assert_uint_eq(ps.n, hs.n);
  for (guint32 i = 0; i < ps.n; i++) {
    ck_assert_double_eq(ps.weight[i], hs.weight[i]);
    ck_assert_uint_eq(ps.path[i].hop[0], hs.path[i].hop[0]);
  }
  ck_assert_double_eq_tol(ps.weight[0], 5.0 / 18, 1e-12);

  /* every NVLink of GPU 3 of server 1: its routes take PCIe */
  add_ok(sys, "s1.gpu3", NULL);
  ck_assert_uint_eq(topo_gpu_nvlinks_down(sys, 1, 3), 18);
  ck_assert(!topo_gpus_nvlinked(sys, 1, 3, 4));
  ck_assert(topo_gpus_nvlinked(sys, 1, 2, 4));
  ck_assert(topo_gpus_nvlinked(sys, 0, 3, 4));
  ck_assert(topo_route(sys, topo_gpu(sys, 1, 3), topo_gpu(sys, 1, 4), 0, NULL,
                       &ps, &error));
  ck_assert_uint_eq(ps.n, 1);
  for (guint32 h = 0; h < ps.path[0].n; h++) {
    ck_assert_int_ne(topo_channel_link(sys, ps.path[0].hop[h])->family,
                     MDL_FAMILY_NVLINK);
    ck_assert(topo_channel_up(sys, ps.path[0].hop[h]));
  }

  /* an NVSwitch: 4 or 5 links of each of the 8 GPUs */
  {
    g_autoptr(TopoSystem) sw = load_text(ini);
    guint32 down, slow;

    add_ok(sw, "s0.nvsw2", "s0.gpu0 s0.nvsw0 x1 0.5");
    topo_system_fault_counts(sw, &down, &slow);
    ck_assert_uint_eq(down, 8 * 4);
    ck_assert_uint_eq(slow, 1);
    ck_assert_uint_eq(topo_gpu_nvlinks_down(sw, 0, 5), 4);
    ck_assert(topo_gpus_nvlinked(sw, 0, 0, 1));
  }
  /* patterns: GPU 0 of every server */
  {
    g_autoptr(TopoSystem) pat = load_text(ini);

    add_ok(pat, "s*.gpu0", NULL);
    ck_assert_uint_eq(topo_gpu_nvlinks_down(pat, 0, 0), 18);
    ck_assert_uint_eq(topo_gpu_nvlinks_down(pat, 1, 0), 18);
    ck_assert_uint_eq(topo_gpu_nvlinks_down(pat, 1, 1), 0);
  }
  /* the kinds */
  {
    g_autoptr(GPtrArray) gpus = topo_fault_elements(sys, "gpus", &error);
    g_autoptr(GPtrArray) sws = topo_fault_elements(sys, "nvswitches", &error);
    g_autoptr(GPtrArray) nvl = topo_fault_elements(sys, "nvlinks", &error);
    g_autoptr(GPtrArray) cables = topo_fault_nvlink_cables(healthy);
    g_autoptr(GPtrArray) links = topo_fault_elements(sys, "links", &error);

    ck_assert_uint_eq(gpus->len, 16);
    ck_assert_uint_eq(sws->len, 8);
    ck_assert_uint_eq(nvl->len, 2 * 8 * 4);
    ck_assert_str_eq(g_ptr_array_index(nvl, 0), "s0.gpu0 s0.nvsw0");
    ck_assert_uint_eq(cables->len, 2 * 8 * 18);
    ck_assert_str_eq(g_ptr_array_index(cables, 0), "s0.gpu0 s0.nvsw0 x1");
    for (guint i = 0; i < links->len; i++)
      ck_assert(!strstr(g_ptr_array_index(links, i), "nvsw"));
  }
}
END_TEST

/* Fabric Manager's policies for NVLink failures (faults.c
 * fabric_manager): by default a failed access link takes its GPU off
 * NVLink and a failed NVSwitch stops the server; with disable-nvswitch
 * the access link's switch goes (every GPU keeps 10 of 12 links on a DGX
 * A100), unless the GPU's failures reach two switches; with disable an
 * NVSwitch down leaves the rest running. */
START_TEST(test_fabric_manager)
{
  g_autoptr(GError) error = NULL;

  {
    g_autoptr(TopoSystem) sys = load_text("[system]\nserver = dgx-a100\n");
    g_auto(GStrv) lines = NULL;

    add_ok(sys, "s0.gpu3 s0.nvsw0 x1", NULL);
    ck_assert_uint_eq(topo_gpu_nvlinks_down(sys, 0, 3), 12);
    ck_assert_uint_eq(topo_gpu_nvlinks_down(sys, 0, 2), 0);
    lines = topo_system_fault_lines(sys);
    ck_assert_uint_eq(g_strv_length(lines), 2);
    ck_assert_ptr_nonnull(strstr(lines[1], "s0.gpu3 (Fabric Manager removes"));
    /* faults added later leave the GPU as it is */
    add_ok(sys, "s0.gpu5 s0.nvsw1 x1", NULL);
    ck_assert_uint_eq(topo_gpu_nvlinks_down(sys, 0, 5), 12);
    ck_assert_uint_eq(topo_gpu_nvlinks_down(sys, 0, 3), 12);
  }
  {
    g_autoptr(TopoSystem) sys = load_text("[system]\nserver = dgx-a100\n");

    ck_assert(!add(sys, "s0.nvsw2", NULL, 0, 0, &error));
    ck_assert_ptr_nonnull(strstr(error->message,
                                 "s0.nvsw2 down (faults from fail): Fabric "
                                 "Manager leaves server 0's NVLink fabric "
                                 "uninitialized"));
  }
  {
    /* under a running job the policies do not apply: what fails is down */
    g_autoptr(TopoSystem) sys = load_text("[system]\nserver = dgx-a100\n");
    const char *fail[] = {"s0.nvsw2", "s0.gpu4 s0.nvsw0 x1", NULL};
    TopoFaultSpec spec = {.fail = fail, .where_fail = "fail", .running = TRUE};

    ck_assert_msg(topo_system_add_faults(sys, &spec, &error), "%s",
                  error ? error->message : "");
    ck_assert_uint_eq(topo_gpu_nvlinks_down(sys, 0, 4), 3);
    ck_assert_uint_eq(topo_gpu_nvlinks_down(sys, 0, 5), 2);
  }
  {
    g_autoptr(TopoSystem) sys =
        load_text("[system]\nserver = dgx-a100\n[faults]\n"
                  "access_link_failure_mode = disable-nvswitch\n");

    add_ok(sys, "s0.gpu3 s0.nvsw0 x1", NULL);
    for (guint32 g = 0; g < 8; g++)
      ck_assert_uint_eq(topo_gpu_nvlinks_down(sys, 0, g), 2);
    /* GPU 6's failed links reach two more switches: the GPU goes, the
     * switches stay */
    {
      const char *two[] = {"s0.gpu6 s0.nvsw1 x1", "s0.gpu6 s0.nvsw2 x1", NULL};
      TopoFaultSpec spec = {.fail = two, .where_fail = "fail"};

      ck_assert(topo_system_add_faults(sys, &spec, &error));
      ck_assert_uint_eq(topo_gpu_nvlinks_down(sys, 0, 6), 12);
      ck_assert_uint_eq(topo_gpu_nvlinks_down(sys, 0, 5), 2);
    }
  }
  {
    g_autoptr(TopoSystem) sys =
        load_text("[system]\nserver = dgx-a100\n[faults]\n"
                  "nvswitch_failure_mode = disable\nfail = s0.nvsw2\n");

    for (guint32 g = 0; g < 8; g++)
      ck_assert_uint_eq(topo_gpu_nvlinks_down(sys, 0, g), 2);
  }
}
END_TEST

/* Stragglers: GPUs by name or pattern at a factor >= 1, the last entry
 * for a GPU winning; what is not a GPU, a factor below 1, and an entry
 * without one are refused. */
START_TEST(test_slow_gpus)
{
  static const char ini[] = "[system]\nserver = dgx-h100\nservers = 2\n"
                            "[scaleout]\ntopology = fat-tree\n"
                            "switch = quantum2-ndr\ntiers = 2\n";
  static const struct {
    const char *entry, *expect;
  } bad[] = {
      {"s0.gpu3 0.5", "0.5 is not a slowdown factor in [1, 1000]"},
      {"s0.gpu3 fast", "fast is not a slowdown factor"},
      {"s0.gpu3", "'s0.gpu3' is not 'GPU FACTOR'"},
      {"s0.nic0 2", "s0.nic0 is a NIC: a straggler is a GPU"},
      {"p0.* 2", "'p0.*' matches no GPU"},
      {"s9.gpu0 2", "'s9.gpu0' names no element"},
  };
  g_autoptr(TopoSystem) sys = load_text(ini);
  const char *slow[] = {"s*.gpu3 1.5", "s1.gpu3 2", NULL};
  TopoFaultSpec spec = {.slow_gpus = slow, .where_slow = "slow"};
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;

  ck_assert_double_eq(topo_gpu_slowdown(sys, 0, 3), 1);
  ck_assert_msg(topo_system_add_faults(sys, &spec, &error), "%s",
                error ? error->message : "");
  ck_assert_double_eq(topo_gpu_slowdown(sys, 0, 3), 1.5);
  ck_assert_double_eq(topo_gpu_slowdown(sys, 1, 3), 2);
  ck_assert_double_eq(topo_gpu_slowdown(sys, 1, 2), 1);
  lines = topo_system_fault_lines(sys);
  ck_assert_str_eq(lines[0],
                   "straggler: s*.gpu3, its work 1.5x as long (2 GPUs)");
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    const char *one[] = {bad[i].entry, NULL};
    TopoFaultSpec bs = {.slow_gpus = one, .where_slow = "slow"};

    assert_refused(ini, &bs, bad[i].expect, i);
  }
}
END_TEST

/* How a fabric recovers from an element failing under traffic
 * (topo_fault_recovery): an InfiniBand fat-tree at once (SHIELD); an
 * Ethernet fat-tree at once for a switch, through its control plane for a
 * link between switches; a NIC's port not at all; an InfiniBand dragonfly
 * through its subnet manager; an NVLink refused. */
START_TEST(test_recovery)
{
  static const char roce[] =
      "[system]\nserver = host\nservers = 128\n"
      "[server host]\ngpus = 1\nsockets = 1\ngpu_pcie = pcie5-x16\n"
      "nic = cx7-400g\nnics = 1\n"
      "[scaleout]\ntopology = fat-tree\nswitch = spectrum4-400g\ntiers = 2\n";
  static const struct {
    const char *ini, *element;
    TopoRecovery expect;
    const char *why;
  } cases[] = {
      {TWO_TIER("dmodk"), "p0.spine3", TOPO_RECOVER_AT_ONCE, "SHIELD"},
      {TWO_TIER("dmodk"), "p0.leaf1 p0.spine3", TOPO_RECOVER_AT_ONCE, "SHIELD"},
      {TWO_TIER("dmodk"), "s5.nic0", TOPO_RECOVER_NONE, "a port of s5.nic0"},
      {TWO_TIER("dmodk"), "p0.leaf1", TOPO_RECOVER_NONE, "a port of s32.nic0"},
      {roce, "p0.spine3", TOPO_RECOVER_AT_ONCE, "ECMP groups at once"},
      {roce, "p0.leaf1 p0.spine3", TOPO_RECOVER_CONTROL,
       "until the routing converges"},
      {DRAGONFLY("minimal"), "g2.router0 g2.router1", TOPO_RECOVER_CONTROL,
       "the subnet manager"},
  };

  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autoptr(TopoSystem) before = load_text(cases[i].ini);
    g_autoptr(TopoSystem) after = load_text(cases[i].ini);
    g_autoptr(GError) error = NULL;
    g_autofree char *why = NULL;
    TopoRecovery rec;
    guint32 cut = G_MAXUINT32;

    add_ok(after, cases[i].element, NULL);
    ck_assert_msg(topo_fault_recovery(before, after, &rec, &why, &cut, &error),
                  "case %u: %s", i, error ? error->message : "");
    ck_assert_msg(rec == cases[i].expect, "case %u: %d (%s)", i, rec, why);
    ck_assert_msg(strstr(why, cases[i].why), "case %u: %s", i, why);
    if (rec == TOPO_RECOVER_NONE)
      ck_assert_uint_eq(cut, i == 2 ? 5 : 32);
  }
  {
    static const char dgx[] = "[system]\nserver = dgx-h100\n";
    g_autoptr(TopoSystem) before = load_text(dgx);
    g_autoptr(TopoSystem) after = load_text(dgx);
    g_autoptr(GError) error = NULL;
    g_autofree char *why = NULL;
    TopoRecovery rec;
    guint32 cut;

    add_ok(after, "s0.gpu2 s0.nvsw1 x1", NULL);
    ck_assert(!topo_fault_recovery(before, after, &rec, &why, &cut, &error));
    ck_assert_ptr_nonnull(strstr(error->message, "is an NVLink"));
  }
}
END_TEST

/* Lossy links: a bit error rate per link, by element; a rate outside
 * (0, 1e-3], N cables of a bundle and NVLinks are refused. */
START_TEST(test_lossy)
{
  static const struct {
    const char *entry, *expect;
  } bad[] = {
      {"p0.leaf0 p0.spine1 0", "0 is not a bit error rate in (0, 1e-3]"},
      {"p0.leaf0 p0.spine1 0.01", "0.01 is not a bit error rate"},
      {"p0.leaf0 p0.spine1", "is not a bit error rate"},
      {"p0.leaf0", "has no bit error rate"},
      {"p0.leaf0 p0.spine1 x1 1e-8", "a bit error rate is a whole link's"},
  };
  g_autoptr(TopoSystem) sys = load_text(TWO_TIER("dmodk"));
  const char *lossy[] = {"p0.leaf0 p0.spine1 1e-8", "s3.nic0 1e-9", NULL};
  TopoFaultSpec spec = {.lossy = lossy, .where_lossy = "lossy"};
  const SimFabric *f = topo_system_fabric(sys);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  SimChannelId up = sim_fabric_find_channel(f, node_named(sys, "p0.leaf0"),
                                            node_named(sys, "p0.spine1"));

  ck_assert(!topo_system_lossy(sys));
  ck_assert_msg(topo_system_add_faults(sys, &spec, &error), "%s",
                error ? error->message : "");
  ck_assert(topo_system_lossy(sys));
  ck_assert_double_eq(topo_channel_ber(sys, up), 1e-8);
  ck_assert_double_eq(topo_channel_ber(sys, sim_channel_reverse(up)), 1e-8);
  ck_assert_double_eq(topo_channel_ber(sys, sim_fabric_find_channel(
                                                f, node_named(sys, "p0.leaf1"),
                                                node_named(sys, "p0.spine1"))),
                      0);
  lines = topo_system_fault_lines(sys);
  ck_assert_str_eq(lines[0],
                   "lossy: p0.leaf0 p0.spine1, bit error rate 1e-08 (1 link)");
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    const char *one[] = {bad[i].entry, NULL};
    TopoFaultSpec bs = {.lossy = one, .where_lossy = "lossy"};

    assert_refused(TWO_TIER("dmodk"), &bs, bad[i].expect, i);
  }
  {
    const char *one[] = {"s0.gpu0 s0.nvsw0 1e-8", NULL};
    TopoFaultSpec bs = {.lossy = one, .where_lossy = "lossy"};

    assert_refused("[system]\nserver = dgx-h100\n", &bs,
                   "is an NVLink: its link layer replays", 0);
  }
}
END_TEST

Suite *suite_faults(void)
{
  Suite *s = suite_create("faults");
  TCase *tc = tcase_create("faults");

  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_spine_down_dmodk);
  tcase_add_test(tc, test_ecmp_adaptive_avoid);
  tcase_add_test(tc, test_harmless_faults_change_nothing);
  tcase_add_test(tc, test_rates);
  tcase_add_test(tc, test_three_tier);
  tcase_add_test(tc, test_nic_down_moves_gpu);
  tcase_add_test(tc, test_explicit_reroute);
  tcase_add_test(tc, test_dragonfly_reroute);
  tcase_add_test(tc, test_disconnected_pair);
  tcase_add_test(tc, test_random_links);
  tcase_add_test(tc, test_bad_faults);
  tcase_add_test(tc, test_faults_group);
  tcase_add_test(tc, test_nvlinks);
  tcase_add_test(tc, test_fabric_manager);
  tcase_add_test(tc, test_slow_gpus);
  tcase_add_test(tc, test_recovery);
  tcase_add_test(tc, test_lossy);
  suite_add_tcase(s, tc);
  return s;
}
