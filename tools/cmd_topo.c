/* `ifsim topo`: what a system file builds — counts, per-GPU bandwidths,
 * bisection (computed), diameters, oversubscription; its links; Graphviz.
 *
 *   ifsim topo [TOPO.ini]           the embedded DGX H100 without a file
 *   ifsim topo --example NAME       a built-in example (--list shows them)
 *   ifsim topo TOPO.ini --links     one line per link
 *   ifsim topo TOPO.ini --dot out.dot
 *   ifsim topo --import DUMP [--emit-ini OUT]   nvidia-smi topo -m, NCCL
 *                                               XML or ibnetdiscover */
#include <stdio.h>
#include <string.h>

#include "models/registry.h"
#include "sim/input.h"
#include "tools/cli.h"
#include "tools/fault_options.h"
#include "topologies/import.h"
#include "topologies/system.h"
#include "traces/output.h"

#define COMMAND "topo"

static const char *const p2p_answers[] = {"yes", "no", NULL};
static const char *const kind_names[] = {
    "gpu", "cpu", "nic", "nvswitch", "pcie-switch", "net-switch"};
static const char *const family_names[] = {"NVLink", "PCIe", "InfiniBand",
                                           "Ethernet (RoCE)", "socket"};

static void print_summary(const TopoSystem *sys, const TopoSummary *sp)
{
  const TopoSummary s = *sp;
  const SimFabric *f = topo_system_fabric(sys);
  static const char *const net_names[] = {"none", "fat-tree", "dragonfly",
                                          "explicit"};

  printf("System: %s\n", topo_system_name(sys));
  printf("Servers: %u x %u GPUs = %u GPUs; %u CPU sockets; %u NICs\n",
         s.servers, topo_system_gpus_per_server(sys), s.gpus, s.cpus, s.nics);
  printf("Scale-up switches: %u NVSwitch, %u PCIe\n", s.nvswitches,
         s.pcie_switches);
  printf("Network: %s", net_names[topo_system_net(sys)]);
  if (topo_system_net(sys) == TOPO_NET_FATTREE ||
      topo_system_net(sys) == TOPO_NET_EXPLICIT)
    printf(", %u plane(s): %u leaves, %u spines, %u cores", s.net_planes,
           s.net_switches[1], s.net_switches[2], s.net_switches[3]);
  else if (topo_system_net(sys) == TOPO_NET_DRAGONFLY)
    printf(": %u routers", s.net_switches[1]);
  printf("\nPhysical links:");
  for (guint i = 0; i < G_N_ELEMENTS(family_names); i++) {
    if (s.links_by_family[i])
      printf(" %s %" G_GUINT64_FORMAT ";", family_names[i],
             s.links_by_family[i]);
  }
  printf("\nPer GPU: scale-up %.1f GB/s, scale-out %.1f GB/s (data rates, "
         "one direction)\n",
         s.gpu_scaleup_GBps, s.gpu_scaleout_GBps);
  printf("Bisection: scale-up %.1f GB/s (server 0, GPUs in halves)",
         s.scaleup_bisection_GBps);
  if (s.servers > 1)
    printf("; scale-out %.1f GB/s (servers in halves)",
           s.scaleout_bisection_GBps);
  printf("\nDiameter: %u hops GPU to GPU", s.diameter_hops);
  if (s.network_diameter_hops)
    printf(", %u NIC to NIC", s.network_diameter_hops);
  printf("\n");
  if (topo_system_net(sys) == TOPO_NET_FATTREE ||
      topo_system_net(sys) == TOPO_NET_EXPLICIT) {
    static const char *const tiers[] = {"", "leaf", "spine", "core"};
    printf("Oversubscription (down:up data rate, worst switch):");
    for (guint t = 1; t <= 3; t++) {
      if (s.oversubscription[t] > 0)
        printf(" %s %.2f:1;", tiers[t], s.oversubscription[t]);
    }
    printf("\n");
  }
  printf("Fabric: %u nodes, %u channels, %.1f MiB\n", sim_fabric_n_nodes(f),
         sim_fabric_n_channels(f),
         sim_fabric_memory_bytes(f) / (1024.0 * 1024.0));
  cli_fault_print(stdout, sys);
}

static void print_links(const TopoSystem *sys)
{
  const SimFabric *f = topo_system_fabric(sys);

  printf("%-8s %-22s %-22s %-14s %5s %10s %9s\n", "channel", "from", "to",
         "link", "width", "GB/s", "latency");
  for (SimChannelId c = 0; c < sim_fabric_n_channels(f); c += 2) {
    const SimChannel *ch = sim_fabric_channel(f, c);
    printf("%-8u %-22s %-22s %-14s %5u %10.3f %7.1fns\n", c,
           sim_fabric_node_name(f, ch->src), sim_fabric_node_name(f, ch->dst),
           topo_channel_link(sys, c)->name, ch->width, ch->rate_Bps / 1e9,
           sim_time_to_ns(ch->latency_ps));
  }
}

/* The system as a Graphviz graph. */
static char *dot_text(const TopoSystem *sys)
{
  const SimFabric *f = topo_system_fabric(sys);
  GString *out = g_string_new("graph ifsim {\n  node [shape=box];\n");

  for (SimNodeId n = 0; n < sim_fabric_n_nodes(f); n++) {
    const SimNode *node = sim_fabric_node(f, n);
    g_string_append_printf(out, "  \"%s\" [label=\"%s\\n%s\"];\n",
                           sim_fabric_node_name(f, n),
                           sim_fabric_node_name(f, n), kind_names[node->kind]);
  }
  for (SimChannelId c = 0; c < sim_fabric_n_channels(f); c += 2) {
    const SimChannel *ch = sim_fabric_channel(f, c);
    g_string_append_printf(out, "  \"%s\" -- \"%s\" ",
                           sim_fabric_node_name(f, ch->src),
                           sim_fabric_node_name(f, ch->dst));
    if (ch->width)
      g_string_append_printf(out, "[label=\"%s x%u\"];\n",
                             topo_channel_link(sys, c)->name, ch->width);
    else /* a link faults took down */
      g_string_append_printf(out,
                             "[label=\"%s down\", style=dashed, color=red];\n",
                             topo_channel_link(sys, c)->name);
  }
  g_string_append(out, "}\n");
  return g_string_free(out, FALSE);
}

static const char *const format_names[] = {"auto", "smi", "nccl-xml",
                                           "ibnetdiscover", NULL};

/* The importer's notes of what the dump did not say and of what it set
 * aside (blocks of the header comment of the system file it writes), on
 * stderr: an import never assumes or drops silently. */
static void print_assumptions(const char *ini)
{
  static const struct {
    const char *header, *prefix;
  } blocks[] = {{"# What the dump does not say is assumed:\n", ""},
                {"# Set aside from the dump:\n", "set aside: "}};

  for (guint b = 0; b < G_N_ELEMENTS(blocks); b++) {
    const char *at = strstr(ini, blocks[b].header);
    g_auto(GStrv) lines = NULL;
    if (!at)
      continue;
    lines = g_strsplit(strchr(at, '\n') + 1, "\n", -1);
    for (guint i = 0; lines[i] && g_str_has_prefix(lines[i], "# ") &&
                      !g_str_has_suffix(lines[i], ":");
         i++)
      fprintf(stderr, "ifsim: %s: import: %s%s\n", COMMAND, blocks[b].prefix,
              lines[i] + 2);
  }
}

/* Imports a dump: the system file text, or NULL. */
static char *import_file(const char *path, const char *format,
                         const TopoImportOptions *opt, GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  guint f;

  for (f = 0; format_names[f]; f++) {
    if (strcmp(format, format_names[f]) == 0)
      break;
  }
  if (!format_names[f]) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "--format: '%s' is not one of auto, smi, nccl-xml, "
                "ibnetdiscover",
                format);
    return NULL;
  }
  if (!sim_input_read(path, &text, &len, error))
    return NULL;
  {
    /* the options a format reads; one it does not would be dropped */
    static const char *const format_what[] = {
        NULL, "an nvidia-smi topo -m dump", "an NCCL topology XML dump",
        "an ibnetdiscover dump"};
    const struct {
      const char *value, *flag;
      guint formats; /* bit per TopoImportFormat that reads it */
    } uses[] = {
        {opt->nic, "--import-nic",
         1u << TOPO_IMPORT_SMI | 1u << TOPO_IMPORT_NCCL_XML},
        {opt->nvlink, "--import-nvlink",
         1u << TOPO_IMPORT_SMI | 1u << TOPO_IMPORT_NCCL_XML},
        {opt->pcie, "--import-pcie", 1u << TOPO_IMPORT_SMI},
        {opt->p2p, "--import-p2p", 1u << TOPO_IMPORT_SMI},
        {opt->sockets ? "" : NULL, "--import-sockets", 1u << TOPO_IMPORT_SMI},
        {opt->server, "--import-server", 1u << TOPO_IMPORT_IBNET},
    };
    TopoImportFormat k = (TopoImportFormat)f == TOPO_IMPORT_AUTO
                             ? topo_import_detect(text, len)
                             : (TopoImportFormat)f;

    for (guint i = 0; k != TOPO_IMPORT_AUTO && i < G_N_ELEMENTS(uses); i++) {
      if (uses[i].value && !(uses[i].formats & (1u << k))) {
        g_autoptr(GString) to = g_string_new(NULL);

        for (guint j = 1; j < G_N_ELEMENTS(format_what); j++)
          if (uses[i].formats & (1u << j))
            g_string_append_printf(to, "%s%s", to->len ? " or " : "",
                                   format_what[j]);
        g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                    "%s: %s is not read from %s (it applies to %s)", path,
                    uses[i].flag, format_what[k], to->str);
        return NULL;
      }
    }
  }
  return topo_import(text, len, path, (TopoImportFormat)f, opt, error);
}

int cli_cmd_topo(int argc, char **argv)
{
  g_auto(GStrv) model_files = NULL;
  g_auto(GStrv) files = NULL;
  g_autofree char *example = NULL;
  g_autofree char *dot = NULL;
  gboolean links = FALSE, list = FALSE;
  g_autofree char *import = NULL, *emit = NULL, *format = NULL;
  g_autofree char *import_text = NULL;
  TopoImportOptions iopt = {0};
  g_autofree char *inic = NULL, *invlink = NULL, *iserver = NULL;
  g_autofree char *ipcie = NULL;
  g_autofree char *ip2p = NULL;
  guint64 max_memory = 0, isockets = 0;
  gboolean max_memory_seen = FALSE, isockets_seen = FALSE;
  g_auto(CliFaultOptions) faults = {0};
  CliNumberTarget numbers[] = {
      CLI_MAX_MEMORY_TARGET(&max_memory, &max_memory_seen),
      {"import-sockets", 0, CLI_NUMBER_COUNT, &isockets, &isockets_seen, 64},
      CLI_FAULT_TARGETS(&faults),
      {NULL, 0, 0, NULL, NULL, 0}};
  GOptionEntry entries[] = {
      {"models", 'm', 0, G_OPTION_ARG_FILENAME_ARRAY, &model_files,
       "Apply a model file first (repeatable)", "FILE"},
      {"example", 0, 0, G_OPTION_ARG_STRING, &example,
       "Use a built-in example instead of a file", "NAME"},
      {"list", 0, 0, G_OPTION_ARG_NONE, &list,
       "List the built-in examples and server templates", NULL},
      {"links", 0, 0, G_OPTION_ARG_NONE, &links, "List every link", NULL},
      {"dot", 0, 0, G_OPTION_ARG_FILENAME, &dot, "Write a Graphviz graph",
       "FILE"},
      {"import", 0, 0, G_OPTION_ARG_FILENAME, &import,
       "Import nvidia-smi topo -m, NCCL topology XML or ibnetdiscover output",
       "DUMP"},
      {"format", 0, 0, G_OPTION_ARG_STRING, &format,
       "Format of --import: auto (default), smi, nccl-xml, ibnetdiscover",
       "NAME"},
      {"emit-ini", 0, 0, G_OPTION_ARG_FILENAME, &emit,
       "Write the imported system file (- for stdout)", "FILE"},
      {"import-nic", 0, 0, G_OPTION_ARG_STRING, &inic,
       "NIC model for imports that do not give NIC speeds", "MODEL"},
      {"import-nvlink", 0, 0, G_OPTION_ARG_STRING, &invlink,
       "NVLink model for imports (e.g. nvlink5 for B200's NV18)", "MODEL"},
      {"import-pcie", 0, 0, G_OPTION_ARG_STRING, &ipcie,
       "nvidia-smi imports: the GPUs' PCIe link (pcie3-x16, pcie4-x16, "
       "pcie5-x16; default: from the NVLink generation, else assumed)",
       "MODEL"},
      {"import-p2p", 0, 0, G_OPTION_ARG_STRING, &ip2p,
       "nvidia-smi imports: whether the driver lets GPUs reach each other "
       "over PCIe (yes, or no where nvidia-smi topo -p2p r shows NS; "
       "default: assumed yes, and said)",
       "yes|no"},
      CLI_MAX_MEMORY_ENTRY,
      {"import-sockets", 0, 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,
       "nvidia-smi imports: the CPU sockets the dump's NUMA domains (devices "
       "apart by SYS) group into, for NPS4 or SNC hosts (default: as many as "
       "domains; two on NVSwitch boards, said)",
       "N"},
      {"import-server", 0, 0, G_OPTION_ARG_STRING, &iserver,
       "ibnetdiscover: server template of the hosts", "NAME"},
      {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL,
       NULL},
      G_OPTION_ENTRY_NULL};
  g_autoptr(GOptionContext) ctx = cli_context_new(
      "[TOPO.ini]",
      "Describe a system: counts, bandwidths, bisection, "
      "diameter.",
      "Without a file, describes the embedded default (one DGX H100).\n"
      "Config keys: docs/config.md.");
  g_autoptr(TopoSystem) sys = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(TrcOutputs) outs = trc_outputs_new();
  TopoSummary summary;
  int status = CLI_EXIT_USAGE;

  GOptionGroup *group =
      g_option_group_new(COMMAND, "topo options", "topo options", numbers, NULL);

  cli_add_entries(group, entries);
  cli_fault_add_entries(group, &faults);
  g_option_context_set_main_group(ctx, group);
  if (!cli_parse(ctx, COMMAND, &argc, &argv, &status))
    return status;
  if (!cli_apply_max_memory(max_memory, max_memory_seen, &error))
    return cli_report(COMMAND, error);
  if (list && (files || example || import || dot || emit || links)) {
    g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "--list lists the built-in examples and server templates "
                "alone: it describes no system (give no file, --example, "
                "--import, --dot, --emit-ini or --links with it)");
    return cli_report(COMMAND, error);
  }
  if (list) {
    g_auto(GStrv) ex = topo_builtin_examples();
    g_auto(GStrv) sv = topo_builtin_servers();
    printf("Examples (--example NAME):\n");
    for (guint i = 0; ex[i]; i++)
      printf("  %s\n", ex[i]);
    printf("Server templates ([system] server = NAME):\n");
    for (guint i = 0; sv[i]; i++)
      printf("  %s\n", sv[i]);
    return CLI_EXIT_OK;
  }
  if (files && files[0] && files[1]) {
    g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "one topology file at a time ('%s' is extra)", files[1]);
    return cli_report(COMMAND, error);
  }
  if ((example != NULL) + (files != NULL) + (import != NULL) > 1) {
    g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "give a file, --example or --import, not several");
    return cli_report(COMMAND, error);
  }
  if (emit && !import) {
    g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "--emit-ini writes what --import read: give --import");
    return cli_report(COMMAND, error);
  }
  if (!import) {
    /* an import's options without an import would be dropped unseen */
    const char *given = inic            ? "--import-nic"
                        : invlink       ? "--import-nvlink"
                        : ipcie         ? "--import-pcie"
                        : ip2p          ? "--import-p2p"
                        : isockets_seen ? "--import-sockets"
                        : iserver       ? "--import-server"
                        : format        ? "--format"
                                        : NULL;

    if (given) {
      g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "%s describes what --import reads: give --import", given);
      return cli_report(COMMAND, error);
    }
  }
  if (import) {
    g_autofree char *source = g_strdup_printf("%s (imported)", import);
    g_autoptr(MdlRegistry) reg = mdl_registry_new_builtin(&error);
    g_auto(GStrv) servers = topo_builtin_servers();

    /* the names the options give, checked as the user typed them (the
     * system they would land in is the importer's, not the user's) */
    for (guint i = 0; reg && model_files && model_files[i]; i++)
      if (!mdl_registry_load_file(reg, model_files[i], &error))
        return cli_report(COMMAND, error);
    if (!reg)
      return cli_report(COMMAND, error);
    if (inic && !mdl_registry_nic(reg, inic)) {
      g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "--import-nic: '%s' is not a known NIC (see 'ifsim models')",
                  inic);
      return cli_report(COMMAND, error);
    }
    if (invlink && !mdl_registry_link(reg, invlink)) {
      g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "--import-nvlink: '%s' is not a known link (see 'ifsim "
                  "models')",
                  invlink);
      return cli_report(COMMAND, error);
    }
    if (invlink &&
        mdl_registry_link(reg, invlink)->family != MDL_FAMILY_NVLINK) {
      g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "--import-nvlink: '%s' is a %s link (expected an NVLink "
                  "model: nvlink3, nvlink4, nvlink5, ...)",
                  invlink,
                  mdl_link_family(mdl_registry_link(reg, invlink))->name);
      return cli_report(COMMAND, error);
    }
    if (ipcie) {
      const MdlLink *l = mdl_registry_link(reg, ipcie);
      guint64 gen = 0;

      /* a link of the PCIe family whose generation has switch models */
      if (!l || l->family != MDL_FAMILY_PCIE || strlen(ipcie) < 5 ||
          !g_ascii_string_to_unsigned((char[]){ipcie[4], 0}, 10, 3, 5, &gen,
                                      NULL)) {
        g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                    "--import-pcie: '%s' is not a PCIe Gen3 to Gen5 link "
                    "(expected pcie3-x16, pcie4-x16, pcie5-x16 or another "
                    "width; see 'ifsim models')",
                    ipcie);
        return cli_report(COMMAND, error);
      }
    }
    if (!cli_check_name(&ip2p, "--import-p2p", p2p_answers, &error))
      return cli_report(COMMAND, error);
    if (iserver && !g_strv_contains((const char *const *)servers, iserver)) {
      g_autofree char *known = g_strjoinv(", ", servers);
      g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "--import-server: '%s' is not a server template (expected "
                  "one of %s)",
                  iserver, known);
      return cli_report(COMMAND, error);
    }
    iopt.nic = inic;
    iopt.nvlink = invlink;
    iopt.pcie = ipcie;
    iopt.p2p = ip2p;
    iopt.server = iserver;
    if (isockets_seen && isockets == 0) {
      g_set_error(&error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "--import-sockets: 0: expected sockets from 1 to 64");
      return cli_report(COMMAND, error);
    }
    iopt.sockets = (guint32)isockets;
    import_text = import_file(import, format ? format : "auto", &iopt, &error);
    if (!import_text)
      return cli_report(COMMAND, error);
    print_assumptions(import_text);
    sys = topo_system_load_data(import_text, strlen(import_text), source,
                                (const char *const *)model_files, &error);
    if (!sys)
      return cli_report(COMMAND, error);
    if (emit && !trc_outputs_add(outs, emit, g_strdup(import_text), &error))
      return cli_report(COMMAND, error);
  } else if (example)
    sys = topo_system_load_builtin(example, &error);
  else
    sys = topo_system_load(files ? files[0] : NULL,
                           (const char *const *)model_files, &error);
  if (!sys || !cli_fault_apply(sys, &faults, &error))
    return cli_report(COMMAND, error);
  if (dot && !trc_outputs_add(outs, dot, dot_text(sys), &error))
    return cli_report(COMMAND, error);
  /* the summary (seconds on a million-node fabric) before the outputs,
   * so that a signal while it runs leaves nothing written */
  if (!(emit && strcmp(emit, "-") == 0))
    topo_system_summary(sys, &summary);
  /* the summary first (the system file on stdout, nothing else, with
   * --emit-ini -): when it cannot be written (a full disk), the commit
   * sees it and replaces no file */
  if (!(emit && strcmp(emit, "-") == 0)) {
    print_summary(sys, &summary);
    if (links)
      print_links(sys);
  }
  if (!trc_outputs_commit(outs, &error))
    return cli_report(COMMAND, error);
  return CLI_EXIT_OK;
}
