/* Jobs of `ifsim replay`; see tools/jobs.h. */
#include "tools/jobs.h"

#include <string.h>

#include "models/params.h"
#include "sim/input.h"
#include "sim/units.h"
#include "tools/cli.h"

void cli_job_clear(CliJob *j)
{
  g_free(j->name);
  g_free(j->where);
  trc_workload_free(j->w);
  if (j->list)
    g_array_free(j->list, TRUE);
  g_free(j->servers);
}

/* "0-7,16,20-23": server indices in the order given. */
gboolean cli_parse_servers(const char *text, const char *what, GArray **out,
                           GError **error)
{
  g_auto(GStrv) parts = g_strsplit(text, ",", -1);
  GArray *a = g_array_new(FALSE, FALSE, sizeof(guint32));

  for (guint i = 0; parts[i]; i++) {
    g_auto(GStrv) ends = g_strsplit(g_strstrip(parts[i]), "-", 2);
    guint64 lo, hi;

    if (!ends[0] ||
        !g_ascii_string_to_unsigned(ends[0], 10, 0, G_MAXUINT32, &lo, NULL) ||
        (ends[1] && !g_ascii_string_to_unsigned(ends[1], 10, lo, G_MAXUINT32,
                                                &hi, NULL))) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "%s: '%s' is not a server or a range of servers (expected "
                  "e.g. 0-7,16,20-23)",
                  what, parts[i]);
      g_array_free(a, TRUE);
      return FALSE;
    }
    if (!ends[1])
      hi = lo;
    if (hi - lo >= TRC_MAX_SERVERS || a->len + (hi - lo) >= TRC_MAX_SERVERS) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "%s: '%s' lists more than %u servers (a system's most)", what,
                  parts[i], TRC_MAX_SERVERS);
      g_array_free(a, TRUE);
      return FALSE;
    }
    for (guint64 s = lo; s <= hi; s++) {
      guint32 v = (guint32)s;

      g_array_append_val(a, v);
    }
  }
  *out = a;
  return TRUE;
}

/* Reads a workload: a CSV file, an ASTRA-sim text file or an LLM spec. */
TrcWorkload *cli_load_workload(const char *csv, const char *astra,
                               const char *llm, guint32 astra_tp,
                               guint32 astra_gpus, const char *ns_per_tick,
                               const char *where, const CliWorkloadNames *names,
                               GError **error)
{
  int given = (csv != NULL) + (astra != NULL) + (llm != NULL);
  TrcWorkload *w;

  if (given > 1) {
    /* name what was given, as it was given */
    g_autoptr(GString) both = g_string_new(NULL);
    const char *parts[] = {csv, astra ? names->astra : NULL,
                           llm ? names->llm : NULL};

    for (guint i = 0; i < G_N_ELEMENTS(parts); i++)
      if (parts[i])
        g_string_append_printf(both, "%s%s", both->len ? " and " : "",
                               parts[i]);
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s: more than one workload: %s (expected one of a "
                "workload CSV, an ASTRA-sim text workload or an LLM layout)",
                where, both->str);
    return NULL;
  }
  if (given != 1) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s: no workload (expected exactly one of a workload CSV, an "
                "ASTRA-sim text workload or an LLM layout)",
                where);
    return NULL;
  }
  if (llm) {
    TrcLlmParams p;

    if (!trc_llm_parse(llm, &p, error) || !(w = trc_llm_generate(&p, error))) {
      g_prefix_error(error, "%s: ", names->llm);
      return NULL;
    }
    return w;
  }
  if (astra) {
    TrcAstraOptions ao = {.tp = astra_tp,
                          .tp_given_as = names->astra_tp,
                          .gpus = astra_gpus,
                          .gpus_given_as = names->astra_gpus,
                          .ns_per_tick = 1.0};

    /* a decimal number of ns, at least a picosecond (shorter ticks would
     * round every compute time to nothing) */
    if (ns_per_tick && (!sim_decimal_parse(ns_per_tick, &ao.ns_per_tick) ||
                        ao.ns_per_tick < 0.001 || ao.ns_per_tick > 1e9)) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "%s: '%s' is not a tick length (expected a decimal number "
                  "of ns from 0.001, a picosecond, to 10^9)",
                  names->ns_per_tick, ns_per_tick);
      return NULL;
    }
    w = trc_workload_load_astra_opts(astra, &ao, error);
  } else {
    w = trc_workload_load_csv(csv, error);
  }
  /* the readers name the file; say where it was named */
  if (!w && strcmp(where, "workload") != 0)
    g_prefix_error(error, "%s: ", where);
  return w;
}

static const char *const job_keys[] = {
    "workload",    "llm",       "astra", "astra_tp", "astra_gpus",
    "ns_per_tick", "nccl_log",  "gap",   "kineto",   "step",
    "chakra",      "placement", "seed",  "servers",  NULL};

/* A job's trace files (nccl_log, kineto or chakra): paths separated by
 * spaces, relative to the jobs file; NULL and an error for none. */
static char **trace_paths(const char *value, const char *dir, const char *where,
                          const char *key, GError **error)
{
  g_auto(GStrv) parts = g_strsplit_set(value, " \t", -1);
  GStrvBuilder *b = g_strv_builder_new();
  char **out;

  for (guint i = 0; parts[i]; i++) {
    if (!parts[i][0])
      continue;
    if (g_path_is_absolute(parts[i])) {
      g_strv_builder_add(b, parts[i]);
    } else {
      g_autofree char *p = g_build_filename(dir, parts[i], NULL);

      g_strv_builder_add(b, p);
    }
  }
  out = g_strv_builder_end(b);
  g_strv_builder_unref(b);
  if (!out[0]) {
    g_strfreev(out);
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s: %s: no file (expected paths separated by spaces)", where,
                key);
    return NULL;
  }
  return out;
}

TrcWorkload *cli_load_trace(const CliTraceSource *t, GError **error)
{
  const char *const *paths = (const char *const *)(t->nccl_logs ? t->nccl_logs
                                                   : t->kineto  ? t->kineto
                                                                : t->chakra);
  guint n = g_strv_length((char **)paths);
  g_autoptr(GString) notes = g_string_new(NULL);
  TrcWorkload *w;

  if (t->nccl_logs) {
    TrcNcclLogOptions o = {0};

    if (t->gap && g_str_equal(t->gap, "timestamps")) {
      o.timestamps = TRUE;
    } else if (t->gap && !sim_time_parse(t->gap, &o.gap_ps, NULL)) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "%s: '%s' is not a time with a unit (e.g. 150us) or "
                  "'timestamps'",
                  t->gap_name, t->gap);
      return NULL;
    } else if (o.gap_ps > TRC_MAX_COMPUTE_PS) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "%s: '%s' is above 2^60 ps (13 days)", t->gap_name, t->gap);
      return NULL;
    }
    w = trc_workload_load_nccl_log(paths, n, &o, notes, error);
  } else if (t->kineto) {
    w = trc_workload_load_kineto(paths, n, t->step, notes, error);
  } else {
    w = trc_workload_load_chakra(paths, n, notes, error);
  }
  if (!w) {
    if (t->where)
      g_prefix_error(error, "%s: ", t->where);
    return NULL;
  }
  {
    g_autofree char *who = t->where
                               ? g_strdup_printf("replay: note: %s", t->where)
                               : g_strdup("replay: note");

    cli_print_notes(who, notes->str);
  }
  return w;
}

/* A job's workload from its trace keys (file lists relative to dir); NULL
 * with the error. */
static TrcWorkload *load_trace(const char *nccl_log, const char *gap,
                               const char *kineto, const char *step,
                               const char *chakra, const char *dir,
                               const char *where, GError **error)
{
  const char *key = nccl_log ? "nccl_log" : kineto ? "kineto" : "chakra";
  g_auto(GStrv) paths = trace_paths(nccl_log ? nccl_log
                                    : kineto ? kineto
                                             : chakra,
                                    dir, where, key, error);
  g_autofree char *gap_name = g_strdup_printf("%s gap", where);
  CliTraceSource t = {
      .gap = gap, .gap_name = gap_name, .step = -1, .where = where};
  guint64 st = 0;

  if (!paths)
    return NULL;
  if (step && !g_ascii_string_to_unsigned(step, 10, 0, G_MAXINT64, &st, NULL)) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s: step '%s' is not a ProfilerStep number", where, step);
    return NULL;
  }
  if (step)
    t.step = (gint64)st;
  if (nccl_log)
    t.nccl_logs = paths;
  else if (kineto)
    t.kineto = paths;
  else
    t.chakra = paths;
  return cli_load_trace(&t, error);
}

/* The jobs of a jobs file: groups [job NAME]; paths relative to it. */
gboolean cli_jobs_load(const char *path, GArray *jobs, GError **error)
{
  g_autofree char *text = NULL;
  gsize len;

  return sim_input_read(path, &text, &len, error) &&
         cli_jobs_load_data(text, len, path, jobs, error);
}

gboolean cli_jobs_load_data(const char *text, gsize len, const char *path,
                            GArray *jobs, GError **error)
{
  g_autoptr(GKeyFile) kf = NULL;
  g_auto(GStrv) groups = NULL;
  g_autofree char *dir = g_path_get_dirname(path);

  /* a repeated group or key, which GKeyFile would merge, is refused */
  kf = mdl_ini_load(text, len, path, error);
  if (!kf)
    return FALSE;
  groups = g_key_file_get_groups(kf, NULL);
  for (guint gi = 0; groups[gi]; gi++) {
    const char *g = groups[gi];
    g_auto(GStrv) keys = NULL;
    g_autofree char *where = NULL;
    g_autofree char *csv = NULL, *astra = NULL, *llm = NULL, *ns = NULL;
    g_autofree char *pl = NULL, *seed = NULL, *servers = NULL, *tp = NULL;
    g_autofree char *gpus = NULL;
    g_autofree char *nlog = NULL, *gap = NULL, *kin = NULL, *step = NULL;
    g_autofree char *chk = NULL;
    CliJob j = {0};
    guint64 astra_tp = 0, astra_gpus = 0;

    if (!g_str_has_prefix(g, "job ") || !g[4]) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "%s: group [%s]: expected [job NAME]", path, g);
      return FALSE;
    }
    where = g_strdup_printf("%s: [%s]", path, g);
    keys = g_key_file_get_keys(kf, g, NULL, NULL);
    for (guint k = 0; keys && keys[k]; k++) {
      if (!g_strv_contains(job_keys, keys[k])) {
        g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                    "%s: unknown key '%s' (expected workload, llm, astra, "
                    "astra_tp, astra_gpus, ns_per_tick, nccl_log, gap, "
                    "kineto, step, chakra, placement, seed, servers)",
                    where, keys[k]);
        return FALSE;
      }
    }
#define GET(var, key) var = g_key_file_get_string(kf, g, key, NULL)
    GET(csv, "workload");
    GET(astra, "astra");
    GET(llm, "llm");
    GET(ns, "ns_per_tick");
    GET(pl, "placement");
    GET(seed, "seed");
    GET(servers, "servers");
    GET(tp, "astra_tp");
    GET(gpus, "astra_gpus");
    GET(nlog, "nccl_log");
    GET(gap, "gap");
    GET(kin, "kineto");
    GET(step, "step");
    GET(chk, "chakra");
#undef GET
    {
      /* an empty file name would name the jobs file's directory */
      const char *empty = csv && !*g_strstrip(csv)       ? "workload"
                          : astra && !*g_strstrip(astra) ? "astra"
                                                         : NULL;

      if (empty) {
        g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                    "%s: %s: an empty file name (expected a path)", where,
                    empty);
        return FALSE;
      }
    }
    if (csv && !g_path_is_absolute(csv)) {
      char *p = g_build_filename(dir, csv, NULL);
      g_free(csv);
      csv = p;
    }
    if (astra && !g_path_is_absolute(astra)) {
      char *p = g_build_filename(dir, astra, NULL);
      g_free(astra);
      astra = p;
    }
    if (tp &&
        !g_ascii_string_to_unsigned(tp, 10, 1, G_MAXUINT32, &astra_tp, NULL)) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "%s: astra_tp '%s' is not a count of ranks", where, tp);
      return FALSE;
    }
    if (gpus && !g_ascii_string_to_unsigned(gpus, 10, 1, TRC_MAX_RANKS,
                                            &astra_gpus, NULL)) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "%s: astra_gpus '%s' is not a count of GPUs (1 to %u)", where,
                  gpus, TRC_MAX_RANKS);
      return FALSE;
    }
    if ((tp || ns || gpus) && !astra) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "%s: %s goes with astra (an ASTRA-sim workload)", where,
                  tp     ? "astra_tp"
                  : gpus ? "astra_gpus"
                         : "ns_per_tick");
      return FALSE;
    }
    if ((gap && !nlog) || (step && !kin)) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE, "%s: %s goes with %s",
                  where, gap && !nlog ? "gap" : "step",
                  gap && !nlog ? "nccl_log" : "kineto");
      return FALSE;
    }
    j.name = g_strdup(g + 4);
    if (nlog || kin || chk) {
      if ((nlog != NULL) + (kin != NULL) + (chk != NULL) > 1 || csv || astra ||
          llm) {
        g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                    "%s: more than one workload (expected one of workload, "
                    "llm, astra, nccl_log, kineto, chakra)",
                    where);
        goto bad;
      }
      j.w = load_trace(nlog, gap, kin, step, chk, dir, where, error);
    } else {
      g_autofree char *n_llm = g_strdup_printf("%s llm", where);
      g_autofree char *n_tp = g_strdup_printf("%s astra_tp", where);
      g_autofree char *n_ns = g_strdup_printf("%s ns_per_tick", where);
      g_autofree char *n_astra = g_strdup_printf("%s astra", where);
      g_autofree char *n_gpus = g_strdup_printf("%s astra_gpus", where);
      const CliWorkloadNames names = {n_llm, n_tp, n_ns, n_astra, n_gpus};

      j.w = cli_load_workload(csv, astra, llm, (guint32)astra_tp,
                              (guint32)astra_gpus, ns, where, &names, error);
    }
    if (!j.w)
      goto bad;
    j.placement = servers ? TRC_PLACE_EXPLICIT : TRC_PLACE_PACKED;
    if (pl && strcmp(pl, "explicit") != 0 &&
        !trc_placement_parse(pl, &j.placement)) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "%s: placement '%s' is not one of packed, spread, random, "
                  "explicit",
                  where, pl);
      goto bad;
    }
    if ((pl && strcmp(pl, "explicit") == 0 && !servers) ||
        (servers && j.placement != TRC_PLACE_EXPLICIT)) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "%s: servers and placement = explicit go together", where);
      goto bad;
    }
    if (seed && (j.placement != TRC_PLACE_RANDOM ||
                 !g_ascii_string_to_unsigned(seed, 10, 0, G_MAXUINT64, &j.seed,
                                             NULL))) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE, "%s: seed '%s': %s",
                  where, seed,
                  j.placement != TRC_PLACE_RANDOM
                      ? "only placement = random takes a seed"
                      : "expected a number");
      goto bad;
    }
    if (servers && !cli_parse_servers(servers, where, &j.list, error))
      goto bad;
    j.where = g_strdup_printf("%s%s", where, servers ? " servers" : "");
    g_array_append_val(jobs, j);
    continue;
  bad:
    cli_job_clear(&j);
    return FALSE;
  }
  if (jobs->len == 0) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "%s: no [job NAME] group", path);
    return FALSE;
  }
  return TRUE;
}

gboolean cli_jobs_place(const TopoSystem *sys, GArray *jobs, GError **error)
{
  guint32 total = topo_system_servers(sys);
  guint32 g = topo_system_gpus_per_server(sys);
  g_autofree guint8 *used = g_new0(guint8, total);

  for (guint i = 0; i < jobs->len; i++) {
    CliJob *j = &g_array_index(jobs, CliJob, i);
    guint32 ranks = j->w->tp * j->w->pp * j->w->dp;
    guint32 per = trc_ranks_per_server(j->w, g);
    guint32 n = per ? trc_servers_needed(ranks, per) : 0;

    if (per == 0) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "%s: the job runs %u ranks per server, the system's servers "
                  "have %u GPUs",
                  j->where, j->w->per_server, g);
      return FALSE;
    }
    if (n == 0) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "%s: %u ranks (tp %u x pp %u x dp %u) do not fill "
                  "whole servers of %u GPUs",
                  j->where, ranks, j->w->tp, j->w->pp, j->w->dp, g);
      return FALSE;
    }
    if (j->list && j->list->len != n) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "%s: %u servers listed, the job's %u ranks need %u", j->where,
                  j->list->len, ranks, n);
      return FALSE;
    }
    j->servers = g_new(guint32, n);
    j->n_servers = n;
    if (!trc_place(total, used, n, j->placement, j->seed,
                   j->list ? (const guint32 *)(void *)j->list->data : NULL,
                   j->servers, error)) {
      g_prefix_error(error, "%s: ", j->where);
      return FALSE;
    }
  }
  return TRUE;
}
