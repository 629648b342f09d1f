/* NCCL's example tuner plugin and its rules; see NcclTuner in
 * collectives/nccl/nccl.h and nccl_internal.h. */
#include "collectives/error.h"
#include "collectives/nccl/nccl_internal.h"
#include "sim/input.h"

#include <string.h>

/* The plugin's fgets buffer (plugin.c MAX_LINE_LENGTH): a longer line
 * is read as pieces, each a line of its own. */
#define TUNER_LINE_MAX 255
#define TUNER_FIELDS_MIN 8
#define TUNER_FIELDS_MAX 10

/* The plugin's names (parseCollType, parseAlgorithm, parseProtocol),
 * compared as they are written; an unknown one it takes as allreduce,
 * ring, simple. */
static const char *const coll_names[NCCL_N_TUNED_COLLS] = {
    [NCCL_COLL_BROADCAST] = "broadcast",
    [NCCL_COLL_REDUCE] = "reduce",
    [NCCL_COLL_ALLGATHER] = "allgather",
    [NCCL_COLL_REDUCESCATTER] = "reducescatter",
    [NCCL_COLL_ALLREDUCE] = "allreduce"};
static const char *const proto_names[NCCL_N_PROTOS] = {
    [NCCL_PROTO_LL] = "ll",
    [NCCL_PROTO_LL128] = "ll128",
    [NCCL_PROTO_SIMPLE] = "simple"};

struct NcclTuner {
  char *path;
  GArray *rules; /* NcclTunerRule, in the file's order */
};

/* The index of `word` in names[n], or -1; a message naming the field,
 * the names and what the plugin would take otherwise. */
static int tuner_name(const char *word, const char *const *names, int n,
                      const char *field, const char *fallback,
                      const char *where, GError **error)
{
  g_autoptr(GString) list = g_string_new(NULL);

  for (int i = 0; i < n; i++)
    if (strcmp(word, names[i]) == 0)
      return i;
  for (int i = 0; i < n; i++)
    g_string_append_printf(list, "%s%s", i ? ", " : "", names[i]);
  g_set_error(error, COLL_ERROR, COLL_ERROR_VALUE,
              "%s: %s '%s': expected %s (the plugin would take it as %s)",
              where, field, word, list->str, fallback);
  return -1;
}

/* A decimal integer field from lo to hi (the plugin's strtoull or atoi,
 * which stop at the first other character without a word). */
static gboolean tuner_int(const char *word, gint64 lo, gint64 hi,
                          const char *field, const char *expected,
                          const char *where, gint64 *out, GError **error)
{
  if (!g_ascii_string_to_signed(word, 10, lo, hi, out, NULL)) {
    g_set_error(error, COLL_ERROR, COLL_ERROR_VALUE, "%s: %s '%s': expected %s",
                where, field, word, expected);
    return FALSE;
  }
  return TRUE;
}

/* A size field: decimal bytes up to 2^64 - 1, as the plugin's strtoull
 * reads them. */
static gboolean tuner_bytes(const char *word, const char *field,
                            const char *where, guint64 *out, GError **error)
{
  if (!g_ascii_string_to_unsigned(word, 10, 0, G_MAXUINT64, out, NULL)) {
    g_set_error(error, COLL_ERROR, COLL_ERROR_VALUE,
                "%s: %s '%s': expected a size in decimal bytes", where, field,
                word);
    return FALSE;
  }
  return TRUE;
}

/* One line's rule (the plugin's loadConfig): fields split at commas and
 * trimmed of blanks and tabs. */
static gboolean tuner_rule(char *line, const char *where, NcclTunerRule *r,
                           GError **error)
{
  g_auto(GStrv) f = g_strsplit(line, ",", -1);
  guint n = g_strv_length(f);
  gint64 v[7] = {0, 0, 0, 0, 0, -1, -1}; /* numPipeOps, regBuff: any */
  static const char *const fields[] = {"min_bytes", "max_bytes", "channels",
                                       "nNodes",    "nRanks",    "numPipeOps",
                                       "regBuff"};
  int k;

  if (n < TUNER_FIELDS_MIN || n > TUNER_FIELDS_MAX) {
    g_set_error(error, COLL_ERROR, COLL_ERROR_VALUE,
                "%s: %u fields: expected 8 to 10 (collective_type,min_bytes,"
                "max_bytes,algorithm,protocol,channels,nNodes,nRanks"
                "[,numPipeOps[,regBuff]]; the plugin skips the line)",
                where, n);
    return FALSE;
  }
  for (guint i = 0; i < n; i++) {
    g_strstrip(f[i]);
    if (!*f[i]) {
      g_set_error(error, COLL_ERROR, COLL_ERROR_VALUE,
                  "%s: field %u is empty (the plugin's strtok would skip "
                  "it and read the next field in its place)",
                  where, i + 1);
      return FALSE;
    }
  }
  if ((k = tuner_name(f[0], coll_names, NCCL_N_TUNED_COLLS, "collective_type",
                      "allreduce", where, error)) < 0)
    return FALSE;
  r->coll = (NcclColl)k;
  if ((k = tuner_name(f[3], nccl_algo_keys, NCCL_N_ALGOS, "algorithm", "ring",
                      where, error)) < 0)
    return FALSE;
  r->algo = (NcclAlgo)k;
  if ((k = tuner_name(f[4], proto_names, NCCL_N_PROTOS, "protocol", "simple",
                      where, error)) < 0)
    return FALSE;
  r->proto = (NcclProto)k;
  if (!tuner_bytes(f[1], fields[0], where, &r->min_bytes, error) ||
      !tuner_bytes(f[2], fields[1], where, &r->max_bytes, error) ||
      !tuner_int(f[5], -1, NCCL_MAX_CHANNELS, fields[2],
                 "a channel count up to 32 (the most ifsim runs), 0 for "
                 "NCCL's or -1",
                 where, &v[2], error) ||
      !tuner_int(f[6], -1, G_MAXINT32, fields[3], "a node count or -1 (any)",
                 where, &v[3], error) ||
      !tuner_int(f[7], -1, G_MAXINT32, fields[4], "a rank count or -1 (any)",
                 where, &v[4], error) ||
      (n > 8 &&
       !tuner_int(f[8], -1, G_MAXINT32, fields[5],
                  "a count of operations or -1 (any)", where, &v[5], error)) ||
      (n > 9 && !tuner_int(f[9], -1, 1, fields[6], "0, 1 or -1 (any)", where,
                           &v[6], error)))
    return FALSE;
  for (int i = 3; i <= 5; i++) {
    if (v[i] == 0) {
      g_set_error(error, COLL_ERROR, COLL_ERROR_VALUE,
                  "%s: %s 0: expected a count or -1 (any): 0 matches no "
                  "communicator",
                  where, fields[i]);
      return FALSE;
    }
  }
  if (r->min_bytes > r->max_bytes) {
    g_set_error(error, COLL_ERROR, COLL_ERROR_VALUE,
                "%s: min_bytes %" G_GUINT64_FORMAT
                " above max_bytes %" G_GUINT64_FORMAT
                " (the range matches no size)",
                where, r->min_bytes, r->max_bytes);
    return FALSE;
  }
  r->channels = (gint32)v[2];
  r->nnodes = (gint32)v[3];
  r->nranks = (gint32)v[4];
  r->pipe_ops = (gint32)v[5];
  r->reg_buff = (gint32)v[6];
  return TRUE;
}

NcclTuner *nccl_tuner_load(const char *path, GError **error)
{
  g_autofree char *text = NULL;
  gsize len;

  if (!sim_input_read(path, &text, &len, error))
    return NULL;
  return nccl_tuner_load_data(text, len, path, error);
}

NcclTuner *nccl_tuner_load_data(const char *text, gsize len, const char *path,
                                GError **error)
{
  g_autofree char **lines = NULL;
  NcclTuner *t;

  if (!(lines = sim_input_text_lines(text, len, path, NULL, error)))
    return NULL;
  t = g_new0(NcclTuner, 1);
  t->path = g_strdup(path);
  t->rules = g_array_new(FALSE, FALSE, sizeof(NcclTunerRule));
  for (guint i = 0; lines[i]; i++) {
    char *line = lines[i];
    gsize n = strlen(line);
    g_autofree char *where = g_strdup_printf("%s:%u", path, i + 1);
    NcclTunerRule r = {.line = i + 1};

    if (line[0] == '#' || strspn(line, " \t") == n)
      continue; /* a comment, or a line of blanks */
    if (n > TUNER_LINE_MAX) {
      g_set_error(error, COLL_ERROR, COLL_ERROR_VALUE,
                  "%s: %" G_GSIZE_FORMAT " characters: the plugin reads %d "
                  "a line, the rest as a line of its own",
                  where, n, TUNER_LINE_MAX);
      nccl_tuner_free(t);
      return NULL;
    }
    if (!tuner_rule(line, where, &r, error)) {
      nccl_tuner_free(t);
      return NULL;
    }
    g_array_append_val(t->rules, r);
  }
  return t;
}

void nccl_tuner_free(NcclTuner *t)
{
  if (!t)
    return;
  g_free(t->path);
  g_array_unref(t->rules);
  g_free(t);
}

const char *nccl_tuner_path(const NcclTuner *t)
{
  return t->path;
}

guint nccl_tuner_n_rules(const NcclTuner *t)
{
  return t->rules->len;
}

const NcclTunerRule *nccl_tuner_rule(const NcclTuner *t, guint i)
{
  return &g_array_index(t->rules, NcclTunerRule, i);
}

gboolean nccl_tuner_rule_matches(const NcclTunerRule *r, NcclColl coll,
                                 guint64 bytes, guint32 nnodes, guint32 nranks,
                                 gint32 pipe_ops, gint32 reg_buff)
{
  return r->coll == coll && bytes >= r->min_bytes && bytes <= r->max_bytes &&
         (r->nnodes == -1 || (guint32)r->nnodes == nnodes) &&
         (r->nranks == -1 || (guint32)r->nranks == nranks) &&
         (r->pipe_ops == -1 || r->pipe_ops == pipe_ops) &&
         (r->reg_buff == -1 || r->reg_buff == reg_buff);
}
