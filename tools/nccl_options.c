/* NCCL's knobs on the command line; see tools/nccl_options.h. */
#include "tools/nccl_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const nccl_fidelities[] = {"analytical", "flow", "packet",
                                              NULL};

void cli_nccl_add_entries(GOptionGroup *group, CliNcclOptions *o)
{
  const GOptionEntry entries[] = {
      {"algo", 0, 0, G_OPTION_ARG_STRING, &o->algo,
       "NCCL algorithms allowed, as NCCL_ALGO: ring, tree, nvls, nvlstree, "
       "collnetdirect, collnetchain, pat; a list, or ^list to exclude",
       "LIST"},
      {"proto", 0, 0, G_OPTION_ARG_STRING, &o->proto,
       "NCCL protocols allowed, as NCCL_PROTO: ll, ll128, simple", "LIST"},
      {"nccl-version", 0, 0, G_OPTION_ARG_STRING, &o->nccl_version,
       "Choose as this NCCL release's cost model does, e.g. 2.26.2 "
       "(default 2.28.9; docs/nccl.md lists what differs)",
       "VERSION"},
      {"channels", 0, 0, G_OPTION_ARG_CALLBACK, cli_parse_number_option,
       "Force the channel count (as NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS)",
       "N"},
      {"collnet", 0, 0, G_OPTION_ARG_NONE, &o->collnet,
       "Let NCCL use the network's SHARP reductions (CollNet, multi-node "
       "NVLS), as NCCL_COLLNET_ENABLE=1 with the SHARP plugin",
       NULL},
      {"fidelity", 0, 0, G_OPTION_ARG_STRING, &o->fidelity,
       "Transport: flow (default), analytical or packet", "LEVEL"},
      {"no-fold", 0, 0, G_OPTION_ARG_NONE, &o->no_fold,
       "Run every channel of a collective, and every round of each of its "
       "connections, as transfers of their own, and with --fidelity packet "
       "every packet as events; by default channels that move the same "
       "bytes over the same paths run as one, a connection nothing waits "
       "on moves its bytes in one transfer, a packet flow alone on its "
       "path runs in closed form, and an AllToAll of 128 ranks or more is "
       "computed in closed form (docs/transports.md)",
       NULL},
      {"no-shortcut", 0, 0, G_OPTION_ARG_STRING, &o->no_shortcut,
       "Turn these of --no-fold's shortcuts off, the others kept: fold "
       "(alike channels as one transfer; exact), whole (a connection "
       "nothing waits on in one transfer; within 1.5%), closed-form (a "
       "packet flow alone on its path; exact but for the order of "
       "simultaneous events), alltoall (an AllToAll of 128 ranks or more "
       "in closed form; within 1%); a comma-separated list",
       "LIST"},
      G_OPTION_ENTRY_NULL};

  cli_add_entries(group, entries);
}

void cli_nccl_options_clear(CliNcclOptions *o)
{
  g_free(o->algo);
  g_free(o->proto);
  g_free(o->nccl_version);
  g_free(o->fidelity);
  g_free(o->no_shortcut);
}

/* The shortcuts --no-shortcut names (docs/transports.md), in the order
 * its help and messages give them. */
static const char *const nccl_shortcuts[] = {"fold", "whole", "closed-form",
                                             "alltoall", NULL};

/* --no-fold and --no-shortcut's list into n's no_fold, all_rounds,
 * packetwise and no_alltoall_closed; flag names the list in messages. */
static gboolean shortcuts_check(const CliNcclOptions *o, const char *flag,
                                NcclOptions *n, GError **error)
{
  gboolean off[G_N_ELEMENTS(nccl_shortcuts) - 1] = {0};

  if (o->no_shortcut) {
    g_auto(GStrv) names = g_strsplit(o->no_shortcut, ",", -1);

    for (guint i = 0; names[i]; i++) {
      g_autofree char *name = g_strdup(g_strstrip(names[i]));

      if (!cli_check_name(&name, flag, nccl_shortcuts, error))
        return FALSE;
      for (guint k = 0; nccl_shortcuts[k]; k++)
        off[k] |= strcmp(name, nccl_shortcuts[k]) == 0;
    }
  }
  n->no_fold = o->no_fold || off[0];
  n->all_rounds = o->no_fold || off[1];
  n->packetwise = o->no_fold || off[2];
  n->no_alltoall_closed = o->no_fold || off[3];
  return TRUE;
}

/* The process's environment for nccl_env_read, but for the variables a
 * flag of o replaces (--algo NCCL_ALGO, --proto NCCL_PROTO). */
static const char *flag_env(void *ctx, const char *name)
{
  const CliNcclOptions *o = ctx;

  if ((o->algo && strcmp(name, "NCCL_ALGO") == 0) ||
      (o->proto && strcmp(name, "NCCL_PROTO") == 0))
    return NULL;
  return g_getenv(name);
}

/* How a knob was given: name's words for it, else its flag. */
#define KNOB(key, flag) (name ? name(name_ctx, key) : flag)

gboolean cli_nccl_check(CliNcclOptions *o, NcclOptions *n,
                        const char *(*name)(void *ctx, const char *key),
                        void *name_ctx, GError **error)
{
  if (!cli_check_name(&o->fidelity, KNOB("fidelity", "--fidelity"),
                      nccl_fidelities, error) ||
      !nccl_env_read(n, flag_env, o, NULL, error))
    return FALSE;
  if (o->algo && !nccl_parse_algos(o->algo, KNOB("algo", "--algo"), &n->algos,
                                   n->coll_algos, error))
    return FALSE;
  if (o->proto && !nccl_parse_protos(o->proto, KNOB("proto", "--proto"),
                                     &n->protos, n->coll_protos, error))
    return FALSE;
  if (o->channels_seen) {
    if (o->channels == 0 || o->channels > NCCL_MAX_CHANNELS) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "%s: %" G_GUINT64_FORMAT " is not from 1 to %d",
                  KNOB("channels", "--channels"), o->channels,
                  NCCL_MAX_CHANNELS);
      return FALSE;
    }
    n->min_channels = n->max_channels = (guint32)o->channels;
  }
  if (o->nccl_version &&
      !nccl_version_parse(o->nccl_version,
                          KNOB("nccl_version", "--nccl-version"),
                          &n->nccl_version, error))
    return FALSE;
  n->collnet = n->collnet || o->collnet;
  return shortcuts_check(o, KNOB("no_shortcut", "--no-shortcut"), n, error);
}

#undef KNOB

NcclExec cli_nccl_exec(const CliNcclOptions *o)
{
  if (o->fidelity && strcmp(o->fidelity, "analytical") == 0)
    return NCCL_EXEC_ANALYTICAL;
  if (o->fidelity && strcmp(o->fidelity, "packet") == 0)
    return NCCL_EXEC_PACKET;
  return NCCL_EXEC_FLOW;
}

const char *cli_nccl_fidelity(const CliNcclOptions *o)
{
  return o->fidelity ? o->fidelity : "flow";
}

/* NCCL's logging variables, which change nothing measured: read, in
 * that no note is given for them. */
static gboolean env_logging(const char *name)
{
  return g_str_has_prefix(name, "NCCL_DEBUG");
}

static int strcmp_ptr(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

void cli_nccl_env_notes(const char *command)
{
  g_auto(GStrv) names = g_listenv();
  guint n = g_strv_length(names);

  qsort(names, n, sizeof(char *), strcmp_ptr);
  for (guint i = 0; i < n; i++) {
    if (!g_str_has_prefix(names[i], "NCCL_") || nccl_env_known(names[i]) ||
        env_logging(names[i]))
      continue;
    fprintf(stderr,
            "ifsim: %s: note: %s=%s in the environment is not modelled: "
            "predicted with NCCL's default\n",
            command, names[i], g_getenv(names[i]) ? g_getenv(names[i]) : "");
  }
}
