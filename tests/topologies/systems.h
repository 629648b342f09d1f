/* Systems the topologies/ tests build from text (test_topo.c,
 * test_faults.c). */
#ifndef TESTS_TOPOLOGIES_SYSTEMS_H
#define TESTS_TOPOLOGIES_SYSTEMS_H

#include <check.h>
#include <string.h>

#include "topologies/system.h"

static inline TopoSystem *load_text(const char *text)
{
  g_autoptr(GError) error = NULL;
  TopoSystem *sys =
      topo_system_load_data(text, strlen(text), "test.ini", NULL, &error);
  ck_assert_msg(sys != NULL, "%s", error ? error->message : "");
  return sys;
}

/* One GPU and one NIC per server: hosts of a plain network. */
#define HOST_SERVER                                                            \
  "[server host]\ngpus = 1\nsockets = 1\ngpu_pcie = pcie5-x16\n"               \
  "nic = cx7-ndr\nnics = 1\n"

/* 128 hosts on a 2-tier tree of 64-port switches: 4 leaves of 32 hosts,
 * 32 spines, one link from each leaf to each. */
#define TWO_TIER(routing)                                                      \
  "[system]\nserver = host\nservers = 128\n" HOST_SERVER                       \
  "[scaleout]\ntopology = fat-tree\nswitch = quantum2-ndr\ntiers = 2\n"        \
  "routing = " routing "\n"

#endif /* TESTS_TOPOLOGIES_SYSTEMS_H */
