/* NCCL's knobs on the command line; see tools/nccl_options.h. */
#include "tools/nccl_options.h"

#include "sim/input.h"

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
      {"tuner-config", 0, 0, G_OPTION_ARG_FILENAME, &o->tuner_config,
       "Choose as NCCL's example tuner plugin does with these rules (its "
       "NCCL_TUNER_CONFIG_FILE: collective_type,min_bytes,max_bytes,"
       "algorithm,protocol,channels,nNodes,nRanks[,numPipeOps[,regBuff]] "
       "lines; NCCL 2.28 and later)",
       "FILE"},
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
  g_free(o->tuner_config);
  nccl_tuner_free(o->tuner);
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

/* A variable of NCCL_CONF_FILE: its value and its place ("file:line"). */
typedef struct {
  char *value, *where;
} ConfEntry;

static void conf_entry_free(gpointer p)
{
  ConfEntry *e = p;

  g_free(e->value);
  g_free(e->where);
  g_free(e);
}

/* The NAME=VALUE lines of NCCL_CONF_FILE `path`, as NCCL reads them
 * (misc/param.cc setEnvFile, from 2.23): a line starting with # is a
 * comment, the name is what precedes the first =, the value the rest of
 * the line.  NCCL skips a line without = and keeps the first of a name
 * set twice; ifsim refuses both, and a name with blanks (NCCL would set a
 * variable it never reads).  Name -> ConfEntry. */
static GHashTable *conf_load(const char *path, GError **error)
{
  g_autoptr(GHashTable) conf =
      g_hash_table_new_full(g_str_hash, g_str_equal, g_free, conf_entry_free);
  g_autofree char *text = NULL;
  g_autofree char **lines = NULL;
  gsize len;

  if (!sim_input_read(path, &text, &len, error) ||
      !(lines = sim_input_text_lines(text, len, path, NULL, error))) {
    g_prefix_error(error, "environment NCCL_CONF_FILE: ");
    return NULL;
  }
  for (guint i = 0; lines[i]; i++) {
    const char *line = lines[i];
    const char *eq;
    g_autofree char *name = NULL;
    ConfEntry *e;

    if (line[0] == '\0' || line[0] == '#')
      continue;
    eq = strchr(line, '=');
    name = eq ? g_strndup(line, (gsize)(eq - line)) : NULL;
    if (!eq || !*name || strpbrk(name, " \t")) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "%s:%u: '%s': expected NAME=VALUE, the name without "
                  "blanks, or a # comment (NCCL would skip the line or set "
                  "a variable it never reads)",
                  path, i + 1, line);
      return NULL;
    }
    if ((e = g_hash_table_lookup(conf, name))) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "%s:%u: %s set again (first at %s; NCCL keeps the first)",
                  path, i + 1, name, e->where);
      return NULL;
    }
    e = g_new(ConfEntry, 1);
    e->value = g_strdup(eq + 1);
    e->where = g_strdup_printf("%s:%u", path, i + 1);
    g_hash_table_insert(conf, g_steal_pointer(&name), e);
  }
  return g_steal_pointer(&conf);
}

/* What nccl_env_read reads through flag_env. */
typedef struct {
  const CliNcclOptions *o;
  GHashTable *conf; /* conf_load's; NULL: no NCCL_CONF_FILE */
} EnvSources;

/* The process's environment for nccl_env_read, then NCCL_CONF_FILE's
 * lines (a variable in the environment, even empty, wins: setEnvFile
 * does not overwrite), but for the variables a flag replaces (--algo
 * NCCL_ALGO, --proto NCCL_PROTO). */
static const char *flag_env(void *ctx, const char *name, const char **where)
{
  const EnvSources *s = ctx;
  const char *v;
  const ConfEntry *e;

  if ((s->o->algo && strcmp(name, "NCCL_ALGO") == 0) ||
      (s->o->proto && strcmp(name, "NCCL_PROTO") == 0))
    return NULL;
  if ((v = g_getenv(name)))
    return v;
  if (!s->conf || !(e = g_hash_table_lookup(s->conf, name)))
    return NULL;
  if (where)
    *where = e->where;
  return e->value;
}

/* NCCL_CONF_FILE's lines (NULL where it is unset), for NCCL `version`:
 * before 2.23 NCCL does not read it. */
static GHashTable *conf_for(guint32 version, GError **error)
{
  const char *path = g_getenv("NCCL_CONF_FILE");

  if (!path || !*path)
    return NULL;
  if (version && version < 22300) {
    g_autofree char *v = nccl_version_text(version);

    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "environment NCCL_CONF_FILE='%s': NCCL reads it from 2.23; "
                "%s reads ~/.nccl.conf and /etc/nccl.conf instead (give "
                "their variables in the environment)",
                path, v);
    return NULL;
  }
  return conf_load(path, error);
}

/* How a knob was given: name's words for it, else its flag. */
#define KNOB(key, flag) (name ? name(name_ctx, key) : flag)

gboolean cli_nccl_check(CliNcclOptions *o, NcclOptions *n,
                        const char *(*name)(void *ctx, const char *key),
                        void *name_ctx, GError **error)
{
  g_autoptr(GHashTable) conf = NULL;
  g_autoptr(GError) conf_error = NULL;
  EnvSources sources = {o, NULL};

  if (!cli_check_name(&o->fidelity, KNOB("fidelity", "--fidelity"),
                      nccl_fidelities, error))
    return FALSE;
  if (o->nccl_version &&
      !nccl_version_parse(o->nccl_version,
                          KNOB("nccl_version", "--nccl-version"),
                          &n->nccl_version, error))
    return FALSE;
  conf = conf_for(n->nccl_version, &conf_error);
  if (conf_error) {
    g_propagate_error(error, g_steal_pointer(&conf_error));
    return FALSE;
  }
  sources.conf = conf;
  if (!nccl_env_read(n, flag_env, &sources, NULL, error))
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
  n->collnet = n->collnet || o->collnet;
  if (o->tuner_config && !o->tuner &&
      !(o->tuner = nccl_tuner_load(o->tuner_config, error))) {
    g_prefix_error(error, "%s: ", KNOB("tuner_config", "--tuner-config"));
    return FALSE;
  }
  n->tuner = o->tuner;
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
  /* checked before (cli_nccl_check); a file that fails now gets no notes */
  g_autoptr(GHashTable) conf = conf_for(0, NULL);

  qsort(names, n, sizeof(char *), strcmp_ptr);
  for (guint i = 0; i < n; i++) {
    if (!g_str_has_prefix(names[i], "NCCL_") || nccl_env_known(names[i]) ||
        env_logging(names[i]) || strcmp(names[i], "NCCL_CONF_FILE") == 0)
      continue;
    fprintf(stderr,
            "ifsim: %s: note: %s=%s in the environment is not modelled: "
            "predicted with NCCL's default\n",
            command, names[i], g_getenv(names[i]) ? g_getenv(names[i]) : "");
  }
  if (conf) {
    g_autofree gpointer *keys = g_hash_table_get_keys_as_array(conf, &n);

    qsort(keys, n, sizeof(char *), strcmp_ptr);
    for (guint i = 0; i < n; i++) {
      const ConfEntry *e = g_hash_table_lookup(conf, keys[i]);

      /* what the environment sets, it noted above */
      if (nccl_env_known(keys[i]) || env_logging(keys[i]) || g_getenv(keys[i]))
        continue;
      fprintf(stderr,
              "ifsim: %s: note: %s=%s in %s is not modelled: predicted "
              "with NCCL's default\n",
              command, (const char *)keys[i], e->value, e->where);
    }
  }
}
