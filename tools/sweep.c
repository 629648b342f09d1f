/* `ifsim sweep`'s grid: varied keys, the plan file, the points' systems
 * and workloads, their CSV rows and the frames that carry them between
 * processes; see tools/sweep.h.  The command (options, worker processes,
 * MPI) is tools/cmd_sweep.c. */
#include "tools/sweep.h"

#include <string.h>

#include "models/params.h"
#include "sim/config.h"
#include "sim/input.h"
#include "sim/memory.h"
#include "sim/units.h"
#include "tools/cli.h"
#include "tools/run.h"
#include "topologies/system.h"
#include "traces/csvtext.h"

/* The workload keys (run.KEY, [sweep] KEY) and what they set. */
typedef enum {
  RUN_COLLECTIVE,
  RUN_SIZE,   /* sim_size_parse */
  RUN_COUNT,  /* a decimal count */
  RUN_STRING, /* checked by cli_run_check */
  RUN_BOOL,
} RunKeyKind;

static const struct {
  const char *key;
  RunKeyKind kind;
} run_keys[] = {
    {"collective", RUN_COLLECTIVE},
    {"minbytes", RUN_SIZE},
    {"maxbytes", RUN_SIZE},
    {"stepbytes", RUN_SIZE},
    {"stepfactor", RUN_COUNT},
    {"ranks", RUN_COUNT},
    {"gpus_per_process", RUN_COUNT},
    {"iters", RUN_COUNT},
    {"graph_launches", RUN_COUNT},
    {"root", RUN_COUNT},
    {"channels", RUN_COUNT},
    {"datatype", RUN_STRING},
    {"op", RUN_STRING},
    {"algo", RUN_STRING},
    {"proto", RUN_STRING},
    {"nccl_version", RUN_STRING},
    {"fidelity", RUN_STRING},
    {"collnet", RUN_BOOL},
    {"no_fold", RUN_BOOL},
    {"no_shortcut", RUN_STRING},
    {"tuner_config", RUN_STRING},
};

/* Groups of a topology file a key may address, and the prefixes of the
 * named ones. */
static const char *const topo_groups[] = {"system", "scaleout", "network",
                                          "faults", "nccl",     NULL};
static const char *const topo_group_prefixes[] = {"server ", "link ", "switch ",
                                                  "nic ", NULL};
#define SWEEP_GROUPS_TEXT                                                      \
  "run, env, system, scaleout, network, faults, nccl, 'server NAME', "         \
  "'link NAME', 'switch NAME' or 'nic NAME'"

struct CliSweep {
  char *topology; /* NULL: the embedded default */
  char *plan;     /* the plan file read, for messages; NULL: none */
  gboolean topology_set;
  char *topology_where;  /* "PLAN: [sweep] topology" when the plan set it */
  GPtrArray *models;     /* char * */
  GPtrArray *run_keys;   /* char *: fixed workload keys, in order set */
  GPtrArray *run_values; /* char *: their values */
  GPtrArray *run_wheres; /* char *: where each was set, for messages */
  GPtrArray *vary;       /* CliSweepVary * */
  /* After cli_sweep_prepare: */
  char *base; /* the base topology text */
  gsize base_len;
  char *source; /* names it in messages */
  guint points;
};

static void vary_free(gpointer p)
{
  CliSweepVary *v = p;

  if (!v)
    return;
  g_free(v->name);
  g_free(v->group);
  g_free(v->key);
  g_strfreev(v->values);
  g_free(v);
}

CliSweep *cli_sweep_new(void)
{
  CliSweep *sw = g_new0(CliSweep, 1);

  sw->models = g_ptr_array_new_with_free_func(g_free);
  sw->run_keys = g_ptr_array_new_with_free_func(g_free);
  sw->run_values = g_ptr_array_new_with_free_func(g_free);
  sw->run_wheres = g_ptr_array_new_with_free_func(g_free);
  sw->vary = g_ptr_array_new_with_free_func(vary_free);
  return sw;
}

void cli_sweep_free(CliSweep *sw)
{
  if (!sw)
    return;
  g_free(sw->topology);
  g_free(sw->plan);
  g_free(sw->topology_where);
  g_ptr_array_unref(sw->models);
  g_ptr_array_unref(sw->run_keys);
  g_ptr_array_unref(sw->run_values);
  g_ptr_array_unref(sw->run_wheres);
  g_ptr_array_unref(sw->vary);
  g_free(sw->base);
  g_free(sw->source);
  g_free(sw);
}

static int run_key_find(const char *key)
{
  for (guint i = 0; i < G_N_ELEMENTS(run_keys); i++) {
    if (strcmp(run_keys[i].key, key) == 0)
      return (int)i;
  }
  return -1;
}

static char *run_keys_text(void)
{
  GString *s = g_string_new(NULL);

  for (guint i = 0; i < G_N_ELEMENTS(run_keys); i++)
    g_string_append_printf(s, "%s%s", i ? ", " : "", run_keys[i].key);
  return g_string_free(s, FALSE);
}

/* Sets workload key k of o from text; the message does not name the key. */
static gboolean run_apply(CliRunOptions *o, int k, const char *value,
                          GError **error)
{
  guint64 n = 0;

  switch (run_keys[k].kind) {
  case RUN_COLLECTIVE: {
    NcclColl c;

    if (!nccl_coll_parse(value, &c)) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "'%s' is not one of allreduce, allgather, reducescatter, "
                  "broadcast, reduce, alltoall, sendrecv",
                  value);
      return FALSE;
    }
    g_free(o->collective);
    o->collective = g_strdup(value);
    return TRUE;
  }
  case RUN_SIZE:
    if (!sim_size_parse(value, &n, error))
      return FALSE;
    break;
  case RUN_COUNT:
    if (!sim_count_parse(value, 0, &n, error))
      return FALSE;
    break;
  case RUN_BOOL: {
    gboolean *field = strcmp(run_keys[k].key, "collnet") == 0
                          ? &o->nccl.collnet
                          : &o->nccl.no_fold;

    if (strcmp(value, "true") == 0)
      *field = TRUE;
    else if (strcmp(value, "false") == 0)
      *field = FALSE;
    else {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "'%s' is not true or false", value);
      return FALSE;
    }
    return TRUE;
  }
  case RUN_STRING: {
    const char *key = run_keys[k].key;
    char **field = strcmp(key, "datatype") == 0       ? &o->dtype
                   : strcmp(key, "op") == 0           ? &o->redop
                   : strcmp(key, "algo") == 0         ? &o->nccl.algo
                   : strcmp(key, "proto") == 0        ? &o->nccl.proto
                   : strcmp(key, "nccl_version") == 0 ? &o->nccl.nccl_version
                   : strcmp(key, "no_shortcut") == 0  ? &o->nccl.no_shortcut
                   : strcmp(key, "tuner_config") == 0 ? &o->nccl.tuner_config
                                                      : &o->nccl.fidelity;
    g_free(*field);
    *field = g_strdup(value);
    return TRUE;
  }
  }
  {
    const char *key = run_keys[k].key;

    if (strcmp(key, "minbytes") == 0)
      o->min_bytes = n;
    else if (strcmp(key, "maxbytes") == 0)
      o->max_bytes = n;
    else if (strcmp(key, "stepbytes") == 0) {
      o->step_bytes = n;
      o->step_bytes_seen = TRUE;
    } else if (strcmp(key, "stepfactor") == 0) {
      o->step_factor = n;
      o->step_factor_seen = TRUE;
    } else if (strcmp(key, "ranks") == 0) {
      o->ranks = n;
      o->ranks_seen = TRUE;
    } else if (strcmp(key, "gpus_per_process") == 0)
      o->gpus_per_process = n;
    else if (strcmp(key, "iters") == 0) {
      o->iters = n;
      o->iters_seen = TRUE;
    } else if (strcmp(key, "graph_launches") == 0)
      o->graph_launches = n;
    else if (strcmp(key, "root") == 0)
      o->root = n;
    else {
      g_assert(strcmp(key, "channels") == 0);
      o->nccl.channels = n;
      o->nccl.channels_seen = TRUE;
    }
  }
  return TRUE;
}

/* The name run's checks give a key checked alone: none (the caller names
 * it, and the leading ": " is dropped) */
static const char *unnamed(void *ctx, const char *key)
{
  (void)ctx;
  (void)key;
  return "";
}

/* Whether run's defaults pass its checks: not when the environment
 * (NCCL_ALGO, ...) fails them, which each point then reports as such
 * rather than as the fault of a value checked alone. */
static gboolean run_defaults_ok(void)
{
  CliRunOptions o;
  CliRunPlan plan;
  gboolean ok;

  cli_run_options_init(&o);
  o.name = unnamed;
  ok = cli_run_check(&o, &plan, NULL);
  cli_run_options_clear(&o);
  return ok;
}

/* Run's checks of o, a key's value checked alone: the message without the
 * leading ": " that an unnamed key leaves. */
static gboolean check_alone(CliRunOptions *o, GError **error)
{
  CliRunPlan plan;
  g_autoptr(GError) local = NULL;

  o->name = unnamed;
  if (cli_run_check(o, &plan, &local))
    return TRUE;
  g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE, "%s",
              g_str_has_prefix(local->message, ": ") ? local->message + 2
                                                     : local->message);
  return FALSE;
}

/* Checks that value parses as workload key k ("collective" one name), and
 * that it is one run takes (a datatype, an op, an NCCL release, an
 * iteration count...): checked with the other keys at run's defaults,
 * before any point runs, so that a typo in one value of a grid is an
 * error, not a failed point (which -k would keep going past).  The sizes
 * are checked against each other per point (a minbytes above the default
 * maxbytes may come with a larger maxbytes). */
static gboolean run_check_value(int k, const char *value, GError **error)
{
  CliRunOptions o;
  gboolean ok;

  cli_run_options_init(&o);
  ok = run_apply(&o, k, value, error);
  if (ok && run_keys[k].kind != RUN_SIZE && run_defaults_ok())
    ok = check_alone(&o, error);
  cli_run_options_clear(&o);
  return ok;
}

/* Sets environment variable name to value, first noting in saved (a
 * name, then its earlier value or NULL, in pairs) what env_restore puts
 * back. */
static void env_set_saving(GPtrArray *saved, const char *name,
                           const char *value)
{
  g_ptr_array_add(saved, g_strdup(name));
  g_ptr_array_add(saved, g_strdup(g_getenv(name)));
  g_setenv(name, value, TRUE);
}

/* Puts back what env_set_saving noted, and frees saved. */
static void env_restore(GPtrArray *saved)
{
  for (guint i = 0; i + 1 < saved->len; i += 2) {
    const char *old = g_ptr_array_index(saved, i + 1);

    if (old)
      g_setenv(g_ptr_array_index(saved, i), old, TRUE);
    else
      g_unsetenv(g_ptr_array_index(saved, i));
  }
  g_ptr_array_free(saved, TRUE);
}

/* Whether value of environment variable name (env.NAME) passes run's
 * checks at run's defaults (cli_nccl_check reads the environment), before
 * any point runs. */
static gboolean env_check_value(const char *name, const char *value,
                                GError **error)
{
  GPtrArray *saved = g_ptr_array_new_with_free_func(g_free);
  CliRunOptions o;
  gboolean ok;

  env_set_saving(saved, name, value);
  cli_run_options_init(&o);
  ok = check_alone(&o, error);
  cli_run_options_clear(&o);
  env_restore(saved);
  return ok;
}

/* Whether a varied key's group is of the workload (run.KEY, env.NAME), not
 * of the topology file. */
static gboolean workload_group(const char *group)
{
  return strcmp(group, "run") == 0 || strcmp(group, "env") == 0;
}

static gboolean topo_group_known(const char *group)
{
  if (g_strv_contains(topo_groups, group))
    return TRUE;
  for (guint i = 0; topo_group_prefixes[i]; i++) {
    const char *p = topo_group_prefixes[i];

    if (g_str_has_prefix(group, p) && group[strlen(p)] != '\0')
      return TRUE;
  }
  return FALSE;
}

/* Splits a comma-separated list, trimmed; refuses an empty item. */
static GStrv split_values(const char *text, const char *where, const char *name,
                          GError **error)
{
  g_auto(GStrv) values = g_strsplit(text, ",", -1);

  if (!values[0]) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s: %s%sempty value in '' (expected V1,V2,...)", where,
                name ? name : "", name ? ": " : "");
    return NULL;
  }
  for (guint i = 0; values[i]; i++) {
    g_strstrip(values[i]);
    if (!*values[i]) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "%s: %s%sempty value in '%s' (expected V1,V2,...)", where,
                  name ? name : "", name ? ": " : "", text);
      return NULL;
    }
  }
  return g_steal_pointer(&values);
}

static CliSweepVary *vary_find(const CliSweep *sw, const char *name)
{
  for (guint i = 0; i < sw->vary->len; i++) {
    CliSweepVary *v = g_ptr_array_index(sw->vary, i);

    if (strcmp(v->name, name) == 0)
      return v;
  }
  return NULL;
}

/* A varied key from name and its values text. */
static CliSweepVary *vary_new(const char *name_in, const char *values,
                              const char *where, GError **error)
{
  g_autofree char *name = g_strstrip(g_strdup(name_in));
  const char *dot = strrchr(name, '.');
  CliSweepVary *v;
  g_autofree char *group = NULL;
  GStrv list;

  if (!dot || dot == name || dot[1] == '\0') {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s: '%s' is not GROUP.KEY (GROUP is %s)", where, name,
                SWEEP_GROUPS_TEXT);
    return NULL;
  }
  group = g_strndup(name, (gsize)(dot - name));
  if (strcmp(group, "run") == 0) {
    int k = run_key_find(dot + 1);

    if (k < 0) {
      g_autofree char *keys = run_keys_text();
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "%s: %s: unknown workload key '%s' (run.KEY: %s)", where,
                  name, dot + 1, keys);
      return NULL;
    }
  } else if (strcmp(group, "env") == 0) {
    if (!nccl_env_known(dot + 1)) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "%s: %s: '%s' is not an NCCL_* variable ifsim reads "
                  "(docs/cli.md lists them)",
                  where, name, dot + 1);
      return NULL;
    }
  } else if (!topo_group_known(group)) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s: %s: unknown group '%s' (expected %s)", where, name, group,
                SWEEP_GROUPS_TEXT);
    return NULL;
  }
  list = split_values(values, where, name, error);
  if (!list)
    return NULL;
  v = g_new0(CliSweepVary, 1);
  v->name = g_steal_pointer(&name);
  v->group = g_steal_pointer(&group);
  v->key = g_strdup(dot + 1);
  v->values = list;
  if (workload_group(v->group)) {
    gboolean env = strcmp(v->group, "env") == 0;
    int k = env ? -1 : run_key_find(v->key);

    for (guint i = 0; v->values[i]; i++) {
      g_autoptr(GError) local = NULL;

      if (env ? !env_check_value(v->key, v->values[i], &local)
              : !run_check_value(k, v->values[i], &local)) {
        g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE, "%s: %s: %s", where,
                    v->name, local->message);
        vary_free(v);
        return NULL;
      }
    }
  }
  return v;
}

gboolean cli_sweep_add_vary(CliSweep *sw, const char *spec, const char *where,
                            GError **error)
{
  const char *eq = strchr(spec, '=');
  g_autofree char *name = NULL;
  CliSweepVary *v;

  if (!eq) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s: '%s' is not KEY=V1,V2,...", where, spec);
    return FALSE;
  }
  name = g_strndup(spec, (gsize)(eq - spec));
  v = vary_new(name, eq + 1, where, error);
  if (!v)
    return FALSE;
  if (vary_find(sw, v->name)) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s: %s is varied twice (give its values in one list)", where,
                v->name);
    vary_free(v);
    return FALSE;
  }
  g_ptr_array_add(sw->vary, v);
  return TRUE;
}

gboolean cli_sweep_set_run(CliSweep *sw, const char *key, const char *value,
                           const char *where, GError **error)
{
  int k = run_key_find(key);

  if (k < 0) {
    g_autofree char *keys = run_keys_text();
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s: unknown workload key '%s' (expected %s)", where, key,
                keys);
    return FALSE;
  }
  if (run_keys[k].kind == RUN_COLLECTIVE) {
    g_auto(GStrv) names = split_values(value, where, NULL, error);

    if (!names)
      return FALSE;
    for (guint i = 0; names[i]; i++) {
      g_autoptr(GError) local = NULL;

      if (!run_check_value(k, names[i], &local)) {
        g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE, "%s: %s", where,
                    local->message);
        return FALSE;
      }
    }
  } else {
    g_autoptr(GError) local = NULL;

    if (!run_check_value(k, value, &local)) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE, "%s: %s", where,
                  local->message);
      return FALSE;
    }
  }
  for (guint i = 0; i < sw->run_keys->len; i++) {
    if (strcmp(g_ptr_array_index(sw->run_keys, i), key) == 0) {
      g_free(sw->run_values->pdata[i]);
      sw->run_values->pdata[i] = g_strdup(value);
      g_free(sw->run_wheres->pdata[i]);
      sw->run_wheres->pdata[i] = g_strdup(where);
      return TRUE;
    }
  }
  g_ptr_array_add(sw->run_keys, g_strdup(key));
  g_ptr_array_add(sw->run_values, g_strdup(value));
  g_ptr_array_add(sw->run_wheres, g_strdup(where));
  return TRUE;
}

static gboolean run_is_set(const CliSweep *sw, const char *key)
{
  for (guint i = 0; i < sw->run_keys->len; i++) {
    if (strcmp(g_ptr_array_index(sw->run_keys, i), key) == 0)
      return TRUE;
  }
  return FALSE;
}

void cli_sweep_set_topology(CliSweep *sw, const char *path)
{
  g_free(sw->topology);
  sw->topology = g_strdup(path);
  sw->topology_set = TRUE;
}

void cli_sweep_add_model(CliSweep *sw, const char *path)
{
  g_ptr_array_add(sw->models, g_strdup(path));
}

/* A path of the plan relative to the plan's directory. */
static char *plan_path(const char *plan, const char *path)
{
  g_autofree char *dir = NULL;

  if (g_path_is_absolute(path))
    return g_strdup(path);
  dir = g_path_get_dirname(plan);
  return g_build_filename(dir, path, NULL);
}

gboolean cli_sweep_load_plan(CliSweep *sw, const char *path, GError **error)
{
  g_autofree char *data = NULL;
  gsize len = 0;

  return sim_input_read(path, &data, &len, error) &&
         cli_sweep_load_plan_data(sw, data, len, path, error);
}

gboolean cli_sweep_load_plan_data(CliSweep *sw, const char *data, gsize len,
                                  const char *path, GError **error)
{
  g_autoptr(GKeyFile) kf = NULL;
  g_auto(GStrv) groups = NULL;
  g_autoptr(GPtrArray) plan_vary = NULL;

  g_free(sw->plan);
  sw->plan = g_strdup(path);
  kf = mdl_ini_load(data, len, path, error);
  if (!kf)
    return FALSE;
  groups = g_key_file_get_groups(kf, NULL);
  for (guint i = 0; groups[i]; i++) {
    if (strcmp(groups[i], "sweep") != 0 && strcmp(groups[i], "vary") != 0) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "%s: [%s]: unknown group (expected [sweep] and [vary])", path,
                  groups[i]);
      return FALSE;
    }
  }
  if (g_key_file_has_group(kf, "sweep")) {
    g_auto(GStrv) keys = g_key_file_get_keys(kf, "sweep", NULL, NULL);
    g_autofree char *where = g_strdup_printf("%s: [sweep]", path);

    for (guint i = 0; keys[i]; i++) {
      g_autofree char *value = g_key_file_get_value(kf, "sweep", keys[i], NULL);

      g_strstrip(value);
      if (strcmp(keys[i], "topology") == 0) {
        g_autofree char *p = NULL;

        if (!*value) {
          g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                      "%s topology: empty (expected a topology file, "
                      "relative to the plan's directory)",
                      where);
          return FALSE;
        }
        if (sw->topology_set)
          continue;
        p = plan_path(path, value);
        cli_sweep_set_topology(sw, p);
        g_free(sw->topology_where);
        sw->topology_where = g_strdup_printf("%s topology", where);
      } else if (strcmp(keys[i], "models") == 0) {
        g_auto(GStrv) files = split_values(value, where, keys[i], error);

        if (!files)
          return FALSE;
        /* Before the command line's -m files, which apply last.  Each
         * read now, so a bad one names this key, not a point. */
        for (guint f = 0; files[f]; f++) {
          char *mp = plan_path(path, files[f]);
          g_autofree char *text = NULL;
          gsize mlen;

          if (!sim_input_read(mp, &text, &mlen, error)) {
            g_prefix_error(error, "%s models: ", where);
            g_free(mp);
            return FALSE;
          }
          g_ptr_array_insert(sw->models, (gint)f, mp);
        }
      } else if (run_key_find(keys[i]) >= 0) {
        g_autofree char *kwhere = g_strdup_printf("%s %s", where, keys[i]);

        if (!run_is_set(sw, keys[i]) &&
            !cli_sweep_set_run(sw, keys[i], value, kwhere, error))
          return FALSE;
      } else {
        g_autofree char *rk = run_keys_text();
        g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                    "%s %s: unknown key (expected topology, models or a "
                    "workload key: %s)",
                    where, keys[i], rk);
        return FALSE;
      }
    }
  }
  plan_vary = g_ptr_array_new_with_free_func(vary_free);
  if (g_key_file_has_group(kf, "vary")) {
    g_auto(GStrv) keys = g_key_file_get_keys(kf, "vary", NULL, NULL);
    g_autofree char *where = g_strdup_printf("%s: [vary]", path);

    for (guint i = 0; keys[i]; i++) {
      g_autofree char *value = g_key_file_get_value(kf, "vary", keys[i], NULL);
      CliSweepVary *v = vary_new(keys[i], value, where, error);

      if (!v)
        return FALSE;
      CliSweepVary *given = vary_find(sw, v->name);

      /* In the plan's place, with the command line's values */
      if (given) {
        guint at = 0;

        gboolean found = g_ptr_array_find(sw->vary, given, &at);

        g_assert(found);
        vary_free(v);
        v = g_ptr_array_steal_index(sw->vary, at);
      }
      g_ptr_array_add(plan_vary, v);
    }
  }
  /* The plan's varied keys first, in its order, then the others. */
  for (guint i = 0; i < sw->vary->len; i++)
    g_ptr_array_add(plan_vary, g_steal_pointer(&sw->vary->pdata[i]));
  g_ptr_array_set_size(sw->vary, 0);
  for (guint i = 0; i < plan_vary->len; i++)
    g_ptr_array_add(sw->vary, g_steal_pointer(&plan_vary->pdata[i]));
  g_ptr_array_set_size(plan_vary, 0);
  return TRUE;
}

/* Memory a point of the grid holds: see cli_sweep_prepare. */
#define SWEEP_POINT_BYTES ((guint)(2 * sizeof(char *) + sizeof(guint) + 256))

gboolean cli_sweep_prepare(CliSweep *sw, GError **error)
{
  guint64 points = 1;

  if (sw->vary->len == 0) {
    if (sw->plan)
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "%s: nothing to vary: expected a [vary] group with a key "
                  "(or --vary KEY=V1,V2,...)",
                  sw->plan);
    else
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "nothing to vary (give --vary KEY=V1,V2,... or a plan file "
                  "with a [vary] group)");
    return FALSE;
  }
  for (guint i = 0; i < sw->vary->len; i++) {
    const CliSweepVary *v = g_ptr_array_index(sw->vary, i);

    points *= g_strv_length(v->values);
    if (points > G_MAXINT32) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "the grid has more than %d points", G_MAXINT32);
      return FALSE;
    }
  }
  {
    /* what each point holds until the sweep ends: its row and failure
     * pointers, its place in a rank's list, and its result row (a CSV
     * line of the run's columns, about 200 bytes) */
    g_autofree char *how =
        g_strdup_printf("%" G_GUINT64_FORMAT " points, %u bytes each", points,
                        SWEEP_POINT_BYTES);
    if (!sim_memory_check(points * SWEEP_POINT_BYTES, "the sweep's grid", how,
                          error))
      return FALSE;
  }
  sw->points = (guint)points;
  /* a workload key both fixed and varied would run the varied values
   * while the header said the fixed one */
  for (guint i = 0; i < sw->vary->len; i++) {
    const CliSweepVary *v = g_ptr_array_index(sw->vary, i);

    if (strcmp(v->group, "run") == 0 && run_is_set(sw, v->key)) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "%s is both fixed (its option or [sweep] %s) and varied; "
                  "give one",
                  v->name, v->key);
      return FALSE;
    }
  }
  if (sw->topology) {
    if (!sim_input_read(sw->topology, &sw->base, &sw->base_len, error)) {
      if (sw->topology_where)
        g_prefix_error(error, "%s: ", sw->topology_where);
      return FALSE;
    }
    sw->source = g_strdup(sw->topology);
  } else {
    g_autoptr(GBytes) bytes = topo_builtin_example_data("dgx-h100");
    gsize len;
    const char *d = g_bytes_get_data(bytes, &len);

    sw->base = g_strndup(d, len);
    sw->base_len = len;
    sw->source = g_strdup("topologies/examples/dgx-h100.ini (built in)");
  }
  /* Syntax and repeated groups or keys, which a point's GKeyFile would
   * silently merge, are refused here, naming the file. */
  {
    g_autoptr(GKeyFile) kf =
        mdl_ini_load(sw->base, sw->base_len, sw->source, error);

    return kf != NULL;
  }
}

guint cli_sweep_points(const CliSweep *sw)
{
  return sw->points;
}

const CliSweepVary *cli_sweep_vary(const CliSweep *sw, guint i)
{
  return g_ptr_array_index(sw->vary, i);
}

guint cli_sweep_n_vary(const CliSweep *sw)
{
  return sw->vary->len;
}

guint cli_sweep_value_index(const CliSweep *sw, guint point, guint i)
{
  guint stride = 1;

  /* The last key varies fastest. */
  for (guint k = sw->vary->len - 1; k > i; k--)
    stride *= g_strv_length(cli_sweep_vary(sw, k)->values);
  return point / stride % g_strv_length(cli_sweep_vary(sw, i)->values);
}

static const char *point_value(const CliSweep *sw, guint point, guint i)
{
  return cli_sweep_vary(sw, i)->values[cli_sweep_value_index(sw, point, i)];
}

char *cli_sweep_point_label(const CliSweep *sw, guint point)
{
  GString *s = g_string_new(NULL);

  for (guint i = 0; i < sw->vary->len; i++)
    g_string_append_printf(s, "%s%s=%s", i ? ", " : "",
                           cli_sweep_vary(sw, i)->name,
                           point_value(sw, point, i));
  return g_string_free(s, FALSE);
}

char *cli_sweep_point_topology(const CliSweep *sw, guint point, gsize *len)
{
  g_autoptr(GKeyFile) kf = g_key_file_new();
  gboolean topo = FALSE;

  for (guint i = 0; i < sw->vary->len; i++)
    topo = topo || !workload_group(cli_sweep_vary(sw, i)->group);
  if (!topo) {
    *len = sw->base_len;
    return g_strndup(sw->base, sw->base_len);
  }
  /* Parsed again for each point (GKeyFile has no copy); it parsed at
   * cli_sweep_prepare. */
  if (!g_key_file_load_from_data(kf, sw->base, sw->base_len, G_KEY_FILE_NONE,
                                 NULL))
    g_assert_not_reached();
  for (guint i = 0; i < sw->vary->len; i++) {
    const CliSweepVary *v = cli_sweep_vary(sw, i);

    if (!workload_group(v->group))
      g_key_file_set_value(kf, v->group, v->key, point_value(sw, point, i));
  }
  return g_key_file_to_data(kf, len, NULL);
}

/* How a point's workload key was given (CliRunOptions.name): its varied
 * key ("run.minbytes"; the point's values lead the message), else where
 * it was set (a flag as typed, "PLAN: [sweep] minbytes"), else run's
 * flag. */
static const char *point_name(void *ctx, const char *key)
{
  const CliSweep *sw = ctx;
  g_autofree char *run_key = g_strconcat("run.", key, NULL);

  for (guint i = 0; i < sw->vary->len; i++) {
    if (strcmp(cli_sweep_vary(sw, i)->name, run_key) == 0)
      return g_intern_string(run_key);
  }
  for (guint i = 0; i < sw->run_keys->len; i++) {
    if (strcmp(g_ptr_array_index(sw->run_keys, i), key) == 0)
      return g_intern_string(g_ptr_array_index(sw->run_wheres, i));
  }
  return g_intern_string(key);
}

/* The environment of a point: each varied env.NAME set to its value;
 * returns what env_restore puts back. */
static GPtrArray *env_apply(const CliSweep *sw, guint point)
{
  GPtrArray *saved = g_ptr_array_new_with_free_func(g_free);

  for (guint i = 0; i < sw->vary->len; i++) {
    const CliSweepVary *v = cli_sweep_vary(sw, i);

    if (strcmp(v->group, "env") == 0)
      env_set_saving(saved, v->key, point_value(sw, point, i));
  }
  return saved;
}

/* Whether the sweep varies a key of [faults]: then some points have
 * faults and others may not. */
static gboolean varies_faults(const CliSweep *sw)
{
  for (guint i = 0; i < sw->vary->len; i++) {
    if (strcmp(cli_sweep_vary(sw, i)->group, "faults") == 0)
      return TRUE;
  }
  return FALSE;
}

/* The rows of one collective of a point. */
static gboolean point_collective(const CliSweep *sw, guint point,
                                 const TopoSystem *sys, const char *coll,
                                 GString *out, GError **error)
{
  CliRunOptions o;
  CliRunPlan plan;
  g_autoptr(NcclComm) comm = NULL;
  g_autoptr(GArray) rows = g_array_new(FALSE, TRUE, sizeof(TrcCollRow));
  g_autoptr(GString) lead = g_string_new(NULL);
  GPtrArray *saved;
  TrcCollInfo info;
  gboolean ok = TRUE;

  cli_run_options_init(&o);
  o.name = point_name;
  o.name_ctx = (void *)sw;
  for (guint i = 0; ok && i < sw->run_keys->len; i++) {
    int k = run_key_find(g_ptr_array_index(sw->run_keys, i));

    if (run_keys[k].kind != RUN_COLLECTIVE)
      ok = run_apply(&o, k, g_ptr_array_index(sw->run_values, i), error);
  }
  for (guint i = 0; ok && i < sw->vary->len; i++) {
    const CliSweepVary *v = cli_sweep_vary(sw, i);
    int k = strcmp(v->group, "run") == 0 ? run_key_find(v->key) : -1;

    if (k >= 0 && run_keys[k].kind != RUN_COLLECTIVE)
      ok = run_apply(&o, k, point_value(sw, point, i), error);
  }
  o.collective = g_strdup(coll);
  saved = env_apply(sw, point);
  ok = ok && cli_run_check(&o, &plan, error);
  env_restore(saved);
  /* Points with faults and without by one method: an AllToAll of 1024
   * ranks or more is in closed form only without faults (as in ifsim
   * faults, whose baseline runs every pair too). */
  if (varies_faults(sw))
    plan.nopt.no_alltoall_closed = TRUE;
  if (ok)
    comm = cli_run_comm_new(sys, &o, &plan, error);
  ok = ok && comm &&
       cli_run_collective(comm, &o, &plan, NULL, NULL, NULL, NULL, NULL, rows,
                         error);
  if (ok) {
    cli_run_info(&o, &plan, sys, comm, &info);
    g_string_append_printf(lead, "%u", point);
    for (guint i = 0; i < sw->vary->len; i++) {
      g_string_append_c(lead, ',');
      trc_csv_append_text(lead, point_value(sw, point, i));
    }
    g_string_append_c(lead, ',');
    trc_csv_append_text(lead, info.collective);
    g_string_append_c(lead, ',');
    for (guint r = 0; r < rows->len; r++) {
      g_string_append_len(out, lead->str, (gssize)lead->len);
      trc_coll_csv_append_row(out, &info, &g_array_index(rows, TrcCollRow, r));
      g_string_append_c(out, '\n');
    }
  }
  cli_run_options_clear(&o);
  return ok;
}

static char *point_rows(const CliSweep *sw, guint point, GError **error)
{
  gsize len = 0;
  g_autofree char *text = cli_sweep_point_topology(sw, point, &len);
  g_autoptr(GPtrArray) models = g_ptr_array_new();
  g_autoptr(TopoSystem) sys = NULL;
  g_autoptr(GString) out = g_string_new(NULL);
  g_auto(GStrv) colls = NULL;
  const char *list = "allreduce";

  for (guint i = 0; i < sw->models->len; i++)
    g_ptr_array_add(models, g_ptr_array_index(sw->models, i));
  g_ptr_array_add(models, NULL);
  for (guint i = 0; i < sw->run_keys->len; i++) {
    if (strcmp(g_ptr_array_index(sw->run_keys, i), "collective") == 0)
      list = g_ptr_array_index(sw->run_values, i);
  }
  for (guint i = 0; i < sw->vary->len; i++) {
    const CliSweepVary *v = cli_sweep_vary(sw, i);

    if (strcmp(v->group, "run") == 0 && strcmp(v->key, "collective") == 0)
      list = point_value(sw, point, i);
  }
  colls = g_strsplit(list, ",", -1);
  sys = topo_system_load_data(text, len, sw->source,
                              (const char *const *)models->pdata, error);
  if (!sys)
    return NULL;
  for (guint c = 0; colls[c]; c++) {
    if (!point_collective(sw, point, sys, g_strstrip(colls[c]), out, error))
      return NULL;
  }
  return g_string_free(g_steal_pointer(&out), FALSE);
}

char *cli_sweep_run_point(const CliSweep *sw, guint point, GError **error)
{
  g_autoptr(GError) local = NULL;
  char *rows = point_rows(sw, point, &local);

  if (!rows) {
    g_autofree char *label = cli_sweep_point_label(sw, point);
    g_propagate_prefixed_error(error, g_steal_pointer(&local),
                               "point %u (%s): ", point, label);
  }
  return rows;
}

char *cli_sweep_csv(const CliSweep *sw, char *const *rows,
                    char *const *failures)
{
  GString *s = g_string_new(NULL);

  g_string_append_printf(s, "# ifsim sweep: version %s\n", IFSIM_VERSION);
  /* files by their names, not where they were: outputs carry no paths */
  {
    g_autofree char *base = g_path_get_basename(sw->source);
    g_string_append_printf(s, "# topology: %s\n",
                           sw->topology ? base : sw->source);
  }
  for (guint i = 0; i < sw->models->len; i++) {
    g_autofree char *base =
        g_path_get_basename(g_ptr_array_index(sw->models, i));
    g_string_append_printf(s, "# model: %s\n", base);
  }
  for (guint i = 0; i < sw->run_keys->len; i++)
    g_string_append_printf(s, "# run.%s: %s\n",
                           (const char *)g_ptr_array_index(sw->run_keys, i),
                           (const char *)g_ptr_array_index(sw->run_values, i));
  for (guint i = 0; i < sw->vary->len; i++) {
    const CliSweepVary *v = cli_sweep_vary(sw, i);
    g_autofree char *values = g_strjoinv(", ", v->values);

    g_string_append_printf(s, "# vary %s: %s\n", v->name, values);
  }
  g_string_append_printf(s, "# points: %u\n", sw->points);
  for (guint p = 0; failures && p < sw->points; p++) {
    if (failures[p]) {
      g_auto(GStrv) lines = g_strsplit(failures[p], "\n", -1);
      g_autofree char *one = g_strjoinv(" ", lines);

      g_string_append_printf(s, "# point %u failed: %s\n", p, one);
    }
  }
  g_string_append(s, "point");
  for (guint i = 0; i < sw->vary->len; i++) {
    g_string_append_c(s, ',');
    trc_csv_append_text(s, cli_sweep_vary(sw, i)->name);
  }
  g_string_append(s, ",collective," TRC_COLL_CSV_COLUMNS "\n");
  for (guint p = 0; p < sw->points; p++) {
    if (rows[p])
      g_string_append(s, rows[p]);
  }
  return g_string_free(s, FALSE);
}

void cli_sweep_frame_append(GByteArray *buf, guint32 point, gboolean ok,
                            const char *text)
{
  guint32 k = ok ? 1 : 0;
  guint64 len = strlen(text);

  g_byte_array_append(buf, (const guint8 *)&point, sizeof(point));
  g_byte_array_append(buf, (const guint8 *)&k, sizeof(k));
  g_byte_array_append(buf, (const guint8 *)&len, sizeof(len));
  g_byte_array_append(buf, (const guint8 *)text, (guint)len);
}

gboolean cli_sweep_frame_next(const guint8 *buf, gsize len, gsize *offset,
                              guint32 *point, gboolean *ok, char **text)
{
  gsize at = *offset;
  guint32 k;
  guint64 n;

  if (len - at < 16)
    return FALSE;
  memcpy(point, buf + at, 4);
  memcpy(&k, buf + at + 4, 4);
  memcpy(&n, buf + at + 8, 8);
  if (len - at - 16 < n)
    return FALSE;
  *ok = k != 0;
  *text = g_strndup((const char *)buf + at + 16, (gsize)n);
  *offset = at + 16 + (gsize)n;
  return TRUE;
}

static void append_clock(GString *s, double seconds)
{
  guint64 t = (guint64)(seconds + 0.5);

  if (t >= 3600)
    g_string_append_printf(s, "%" G_GUINT64_FORMAT ":%02u:%02u", t / 3600,
                           (guint)(t / 60 % 60), (guint)(t % 60));
  else
    g_string_append_printf(s, "%u:%02u", (guint)(t / 60), (guint)(t % 60));
}

#define PROGRESS_BAR_WIDTH 20

char *cli_sweep_progress_text(guint done, guint total, double elapsed_s)
{
  GString *s = g_string_new("[");
  guint filled = total ? (guint)((guint64)done * PROGRESS_BAR_WIDTH / total)
                       : PROGRESS_BAR_WIDTH;

  for (guint i = 0; i < PROGRESS_BAR_WIDTH; i++)
    g_string_append_c(s, i < filled ? '#' : '.');
  g_string_append_printf(s, "] %u/%u points, ", done, total);
  append_clock(s, elapsed_s);
  g_string_append(s, " elapsed, ETA ");
  if (done == 0)
    g_string_append(s, "--:--");
  else
    append_clock(s, elapsed_s / done * (total - done));
  return g_string_free(s, FALSE);
}
