/* `ifsim models`: the link, switch and NIC models with their derived
 * figures, for users to check what a prediction starts from.
 *
 *   ifsim models                 tables of every model
 *   ifsim models NAME...         every parameter and derived value of NAME
 *   ifsim models -m FILE ...     after applying model files */
#include <stdio.h>

#include "models/registry.h"
#include "sim/units.h"
#include "tools/cli.h"

#define COMMAND "models"

/* Wire bytes per full packet beyond its payload, averaged over a long
 * message (RDMA WRITE's one RETH is spread over 1024 packets). */
static double packet_overhead(const MdlLink *l)
{
  guint64 bytes = (guint64)l->max_payload_bytes * 1024;
  return (double)(mdl_link_wire_bytes(l, bytes, 0, MDL_OP_WRITE) - bytes) /
         1024.0;
}

/* Effective bandwidth of a 1 GiB write in GB/s (10^9 bytes/s). */
static double large_write_GBps(const MdlLink *l)
{
  return mdl_link_effective_Bps(l, G_GUINT64_CONSTANT(1) << 30, 0,
                                MDL_OP_WRITE) /
         1e9;
}

static const char *param_text(const MdlParamSpec *tables, const void *model,
                              const char *key, char **owned)
{
  const MdlParamSpec *t[] = {tables, NULL};
  *owned = mdl_param_format(mdl_param_find(t, key), model);
  return *owned;
}

static void print_link_table(const MdlRegistry *r)
{
  g_autoptr(GPtrArray) names = mdl_registry_link_names(r);

  printf("Links (one direction; effective = 1 GiB write at the largest "
         "payload)\n");
  printf("%-16s %-7s %-22s %9s %8s %9s %9s %6s %8s %-7s\n", "name", "family",
         "lanes x signalling", "data", "payload", "overhead", "effective",
         "eff", "latency", "flow");
  printf("%-16s %-7s %-22s %9s %8s %9s %9s %6s %8s %-7s\n", "", "", "",
         "(GB/s)", "(B)", "(B/pkt)", "(GB/s)", "(%)", "(ns)", "control");
  for (guint i = 0; i < names->len; i++) {
    const MdlLink *l = mdl_registry_link(r, names->pdata[i]);
    g_autofree char *phy =
        g_strdup_printf("%u x %.7g GBd %s", l->lanes, l->signal_GBd,
                        l->modulation == MDL_MOD_PAM4 ? "PAM4" : "NRZ");
    g_autofree char *flow = NULL;
    double data = mdl_link_data_rate_Bps(l) / 1e9;
    double eff = large_write_GBps(l);

    printf("%-16s %-7s %-22s %9.3f %8u %9.1f %9.3f %6.1f %8.1f %-7s\n", l->name,
           mdl_link_family(l)->name, phy, data, l->max_payload_bytes,
           packet_overhead(l), eff, 100.0 * eff / data,
           sim_time_to_ns(mdl_link_latency_ps(l)),
           param_text(mdl_link_common_params, l, "flow_control", &flow));
  }
}

static void print_switch_table(const MdlRegistry *r)
{
  g_autoptr(GPtrArray) names = mdl_registry_switch_names(r);

  printf("\nSwitches\n%-18s %-12s %6s %-16s %8s %-6s %-10s\n", "name", "kind",
         "ports", "port link", "latency", "cut", "reduction");
  printf("%-18s %-12s %6s %-16s %8s %-6s %-10s\n", "", "", "", "", "(ns)",
         "thru", "");
  for (guint i = 0; i < names->len; i++) {
    const MdlSwitch *s = mdl_registry_switch(r, names->pdata[i]);
    g_autofree char *kind = NULL, *red = NULL;
    printf("%-18s %-12s %6u %-16s %8.1f %-6s %-10s\n", s->name,
           param_text(mdl_switch_params, s, "kind", &kind), s->ports,
           s->port_link, s->latency_ns, s->cut_through ? "yes" : "no",
           param_text(mdl_switch_params, s, "reduction", &red));
  }
}

/* Network and host-side bandwidths of a NIC, GB/s, for 1 GiB writes. */
static void nic_bandwidths(const MdlRegistry *r, const MdlNic *n,
                           double *network, double *host)
{
  *network = n->ports * large_write_GBps(mdl_registry_link(r, n->port_link));
  *host = large_write_GBps(mdl_registry_link(r, n->host_link));
}

static void print_nic_table(const MdlRegistry *r)
{
  g_autoptr(GPtrArray) names = mdl_registry_nic_names(r);

  printf("\nNICs (effective bandwidths of 1 GiB writes)\n");
  printf("%-15s %-14s %-10s %9s %9s %8s %8s %-9s %s\n", "name", "port link",
         "host link", "network", "host", "latency", "rate", "gpudirect",
         "vendor");
  printf("%-15s %-14s %-10s %9s %9s %8s %8s %-9s\n", "", "", "", "(GB/s)",
         "(GB/s)", "(ns)", "(Mpps)", "");
  for (guint i = 0; i < names->len; i++) {
    const MdlNic *n = mdl_registry_nic(r, names->pdata[i]);
    double network, host;
    g_autofree char *rate = n->message_rate_Mpps > 0
                                ? g_strdup_printf("%.0f", n->message_rate_Mpps)
                                : g_strdup("-");
    nic_bandwidths(r, n, &network, &host);
    printf("%-15s %-14s %-10s %9.3f %9.3f %8.1f %8s %-9s %s\n", n->name,
           n->port_link, n->host_link, network, host, n->latency_ns, rate,
           n->gpudirect ? "yes" : "no", mdl_nic_vendor_name(n->vendor));
  }
}

static void print_params(const MdlParamSpec *const *tables, const void *m)
{
  for (; *tables; tables++) {
    for (const MdlParamSpec *s = *tables; s->key; s++) {
      g_autofree char *v = mdl_param_format(s, m);
      printf("  %-26s = %-14s # %s\n", s->key, v, s->help);
    }
  }
}

static void print_link_detail(const MdlLink *l)
{
  static const guint64 sizes[] = {64, 1024, 65536, 1u << 20, 1u << 30};
  static const char *const ops[] = {"write", "read", "send"};
  const MdlParamSpec *tables[3];

  mdl_link_param_tables(l, tables);
  printf("[link %s]\n", l->name);
  print_params(tables, l);
  printf("  # derived: data rate %.4f Gb/s = %.4f GB/s per direction "
         "(coding efficiency %.6f); control overhead %.4f%%; latency %.1f "
         "ns\n",
         l->data_rate_Gbps, mdl_link_data_rate_Bps(l) / 1e9,
         mdl_link_coding_efficiency(l), 100.0 * l->control_overhead,
         sim_time_to_ns(mdl_link_latency_ps(l)));
  printf("  # effective GB/s by message size:\n  # %-6s", "op");
  for (size_t i = 0; i < G_N_ELEMENTS(sizes); i++) {
    char buf[SIM_SIZE_FORMAT_LEN];
    printf(" %10s", sim_size_format(sizes[i], buf));
  }
  printf("\n");
  for (guint op = 0; op < G_N_ELEMENTS(ops); op++) {
    printf("  # %-6s", ops[op]);
    for (size_t i = 0; i < G_N_ELEMENTS(sizes); i++)
      printf(" %10.3f", mdl_link_effective_Bps(l, sizes[i], 0, op) / 1e9);
    printf("\n");
  }
  printf("  # bytes on the opposite direction (requests, acks):\n");
  for (guint op = 0; op < G_N_ELEMENTS(ops); op++) {
    printf("  # %-6s", ops[op]);
    for (size_t i = 0; i < G_N_ELEMENTS(sizes); i++)
      printf(" %10" G_GUINT64_FORMAT,
             mdl_link_reverse_bytes(l, sizes[i], 0, op));
    printf("\n");
  }
}

static gboolean print_detail(const MdlRegistry *r, const char *name,
                             GError **error)
{
  const MdlLink *l = mdl_registry_link(r, name);
  const MdlSwitch *s = mdl_registry_switch(r, name);
  const MdlNic *n = mdl_registry_nic(r, name);

  if (g_str_equal(name, "nccl")) {
    const MdlParamSpec *t[] = {mdl_nccl_params, NULL};
    printf("[nccl]\n");
    print_params(t, mdl_registry_nccl(r));
    return TRUE;
  }
  if (!l && !s && !n) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "no model named '%s' (run 'ifsim models' for the list)", name);
    return FALSE;
  }
  if (l)
    print_link_detail(l);
  if (s) {
    const MdlParamSpec *t[] = {mdl_switch_params, NULL};
    printf("[switch %s]\n", s->name);
    print_params(t, s);
  }
  if (n) {
    const MdlParamSpec *t[] = {mdl_nic_params, NULL};
    double network, host;
    nic_bandwidths(r, n, &network, &host);
    printf("[nic %s]\n", n->name);
    print_params(t, n);
    printf("  # derived: network %.3f GB/s, host link %.3f GB/s (1 GiB "
           "writes); PCIe crossings per transfer end: %u\n",
           network, host, mdl_nic_pcie_crossings(n));
  }
  return TRUE;
}

int cli_cmd_models(int argc, char **argv)
{
  g_auto(GStrv) model_files = NULL;
  g_auto(GStrv) names = NULL;
  GOptionEntry entries[] = {
      {"models", 'm', 0, G_OPTION_ARG_FILENAME_ARRAY, &model_files,
       "Apply a model file ([link], [switch], [nic], [nccl] groups); "
       "repeatable",
       "FILE"},
      {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &names, NULL, NULL},
      G_OPTION_ENTRY_NULL};
  g_autoptr(GOptionContext) ctx = cli_context_new(
      "[NAME...]", "List the link, switch and NIC models and what they derive.",
      "With NAMEs, prints every parameter of those models and the effective "
      "bandwidth of writes, reads and sends by size; 'nccl' prints the [nccl] "
      "group (protocol efficiencies a calibration sets).\nParameters and "
      "their sources: docs/models.md.");
  g_autoptr(MdlRegistry) r = NULL;
  g_autoptr(GError) error = NULL;
  int status = CLI_EXIT_USAGE;

  cli_add_main_entries(ctx, entries);
  if (!cli_parse(ctx, COMMAND, &argc, &argv, &status))
    return status;
  r = mdl_registry_new_builtin(&error);
  for (guint i = 0; r && model_files && model_files[i]; i++) {
    if (!mdl_registry_load_file(r, model_files[i], &error))
      g_clear_pointer(&r, mdl_registry_free);
  }
  if (!r)
    return cli_report(COMMAND, error);
  if (!names) {
    print_link_table(r);
    print_switch_table(r);
    print_nic_table(r);
    {
      const MdlNcclTuning *t = mdl_registry_nccl(r);
      printf("\nNCCL ([nccl], 'ifsim models nccl'): protocol efficiency LL "
             "%g, LL128 %g, Simple %g; launch latency +%g us\n",
             t->ll_efficiency, t->ll128_efficiency, t->simple_efficiency,
             t->latency_us);
    }
    return CLI_EXIT_OK;
  }
  for (guint i = 0; names[i]; i++) {
    if (!print_detail(r, names[i], &error))
      return cli_report(COMMAND, error);
  }
  return CLI_EXIT_OK;
}
