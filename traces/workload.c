/* The workload CSV format: reader, writer and checks (docs/workload.md).
 *
 * A file is `# key: value` layout lines (tp, pp, dp, ep, all required),
 * then the header `id,name,op,group,size_bytes,compute_us,stage,peer,deps`
 * (any order, each column once), then one op a row.  Rows are split by
 * trc_csv_split (libcsv); every value is checked where it is read and the
 * error names file:line, the column and what was expected.  Dependencies
 * name earlier ids only, so a workload is a DAG by construction.
 *
 * compute_us is decimal text read exactly: up to 6 fraction digits are
 * whole picoseconds, further digits round the picoseconds once (half up);
 * the writer prints picoseconds / 10^6 exactly, so files round-trip. */
#include "traces/error.h"
#include "traces/workload.h"

#include <string.h>

#include "sim/error.h"
#include "sim/input.h"
#include "sim/units.h"
#include "traces/csvtext.h"

static const char *const group_names[TRC_N_GROUPS] = {
    "", "tp", "dp", "pp", "ep", "world", "edp", "comm"};

static const char *const coll_csv_names[NCCL_N_COLLS] = {
    "broadcast", "reduce",   "allgather", "reducescatter",
    "allreduce", "alltoall", "sendrecv"};

const char *trc_group_name(TrcGroup g)
{
  g_assert(g < TRC_N_GROUPS);
  return group_names[g];
}

const char *trc_coll_name(NcclColl c)
{
  g_assert(c < NCCL_N_COLLS);
  return coll_csv_names[c];
}

void trc_workload_free(TrcWorkload *w)
{
  if (w == NULL)
    return;
  for (guint32 i = 0; i < w->n_ops; i++) {
    g_free(w->ops[i].name);
    g_free(w->ops[i].deps);
  }
  g_free(w->ops);
  for (guint32 c = 0; c < w->n_comms; c++) {
    g_free(w->comms[c].name);
    g_free(w->comms[c].ranks);
  }
  g_free(w->comms);
  g_free(w->source);
  g_free(w);
}

const char *trc_op_group_label(const TrcWorkload *w, const TrcOp *op)
{
  if (op->group == TRC_GROUP_COMM && op->comm < w->n_comms)
    return w->comms[op->comm].name;
  return trc_group_name(op->group);
}

/* A communicator name: letters, digits, '_', '-', '.', at most
 * TRC_MAX_COMM_NAME characters, not a layout group's name. */
static gboolean comm_name_ok(const char *t)
{
  gsize n = strlen(t);

  if (n == 0 || n > TRC_MAX_COMM_NAME)
    return FALSE;
  for (gsize i = 0; i < n; i++)
    if (!g_ascii_isalnum(t[i]) && t[i] != '_' && t[i] != '-' && t[i] != '.')
      return FALSE;
  for (int g = 0; g < TRC_N_GROUPS; g++)
    if (g_str_equal(t, group_names[g]))
      return FALSE;
  return TRUE;
}

/* The communicators of w are well formed: names, ranks below the job's,
 * each rank once; an explicit workload's layout is 1 x 1 x ranks. */
static gboolean validate_comms(const TrcWorkload *w, GError **error)
{
  g_autoptr(GHashTable) names = g_hash_table_new(g_str_hash, g_str_equal);
  g_autofree guint32 *seen = NULL;

  if (w->n_comms == 0)
    return TRUE;
  if (w->tp != 1 || w->pp != 1 || w->ep != 1) {
    g_set_error(error, TRC_ERROR, TRC_ERROR_RANGE,
                "%s: a workload with communicators has no tp/pp/ep layout "
                "(tp %u, pp %u, ep %u; expected 1, 1, 1 and dp = ranks)",
                w->source, w->tp, w->pp, w->ep);
    return FALSE;
  }
  seen = g_new0(guint32, w->dp);
  for (guint32 c = 0; c < w->n_comms; c++) {
    const TrcComm *m = &w->comms[c];

    if (!m->name || !comm_name_ok(m->name) ||
        g_hash_table_contains(names, m->name)) {
      g_set_error(error, TRC_ERROR, TRC_ERROR_RANGE,
                  "%s: communicator %u ('%s'): expected a unique name of "
                  "letters, digits, '_', '-' or '.', at most %u characters, "
                  "not a layout group's (tp, dp, pp, ep, edp, world, comm)",
                  w->source, c, m->name ? m->name : "", TRC_MAX_COMM_NAME);
      return FALSE;
    }
    g_hash_table_add(names, m->name);
    if (m->n == 0) {
      g_set_error(error, TRC_ERROR, TRC_ERROR_RANGE,
                  "%s: communicator '%s' has no ranks", w->source, m->name);
      return FALSE;
    }
    for (guint32 i = 0; i < m->n; i++) {
      if (m->ranks[i] >= w->dp || seen[m->ranks[i]] == c + 1) {
        g_set_error(error, TRC_ERROR, TRC_ERROR_RANGE,
                    "%s: communicator '%s': rank %u %s (expected distinct "
                    "ranks in [0, %u])",
                    w->source, m->name, m->ranks[i],
                    m->ranks[i] >= w->dp ? "is not a rank of the job"
                                         : "is listed twice",
                    w->dp - 1);
        return FALSE;
      }
      seen[m->ranks[i]] = c + 1;
    }
  }
  return TRUE;
}

/* --- checks shared by every source ------------------------------------ */

gboolean trc_workload_validate(const TrcWorkload *w, GError **error)
{
  guint64 ranks = (guint64)w->tp * w->pp * w->dp;
  GHashTable *ids;
  gboolean ok = TRUE, rising = TRUE;

  if (w->tp == 0 || w->pp == 0 || w->dp == 0 || w->ep == 0 ||
      w->tp > TRC_MAX_DIM || w->pp > TRC_MAX_DIM || w->dp > TRC_MAX_DIM ||
      w->ep > TRC_MAX_DIM || ranks > TRC_MAX_RANKS) {
    g_set_error(error, TRC_ERROR, TRC_ERROR_RANGE,
                "%s: layout tp %u, pp %u, dp %u, ep %u: expected each in "
                "[1, %u] and tp x pp x dp at most %u",
                w->source, w->tp, w->pp, w->dp, w->ep, TRC_MAX_DIM,
                TRC_MAX_RANKS);
    return FALSE;
  }
  if (w->dp % w->ep != 0) {
    g_set_error(error, TRC_ERROR, TRC_ERROR_RANGE,
                "%s: ep %u does not divide dp %u (expert-parallel groups "
                "are blocks of ep data-parallel ranks)",
                w->source, w->ep, w->dp);
    return FALSE;
  }
  if (!validate_comms(w, error))
    return FALSE;
  if (w->per_server != 0 && ranks % w->per_server != 0) {
    g_set_error(
        error, TRC_ERROR, TRC_ERROR_RANGE,
        "%s: ranks_per_server %u does not divide the job's %" G_GUINT64_FORMAT
        " ranks",
        w->source, w->per_server, ranks);
    return FALSE;
  }
  /* ids that rise (every generated and imported workload's, most files')
   * are unique without a set of them: a set only for the others */
  for (guint32 i = 1; i < w->n_ops && rising; i++)
    rising = w->ops[i].id > w->ops[i - 1].id;
  ids = rising ? NULL : g_hash_table_new(g_direct_hash, g_direct_equal);
  for (guint32 i = 0; i < w->n_ops && ok; i++) {
    const TrcOp *o = &w->ops[i];
    const char *bad = NULL;

    if (o->id == 0 ||
        (ids && g_hash_table_contains(ids, GUINT_TO_POINTER(o->id))))
      bad = "its id is 0 or not unique";
    else if ((o->group == TRC_GROUP_COMM) != (w->n_comms > 0) ||
             (o->group == TRC_GROUP_COMM && o->comm >= w->n_comms))
      bad = w->n_comms > 0 ? "in a workload with communicators every op "
                             "runs over one of them"
                           : "it names a communicator the workload lacks";
    else if (o->group == TRC_GROUP_COMM &&
             (o->stage != -1 || o->peer != 0 ||
              (!o->compute && o->coll == NCCL_COLL_SENDRECV &&
               w->comms[o->comm].n != 2)))
      bad = "over a communicator an op has no stage or peer, and a SendRecv "
            "runs over two ranks";
    else if (o->compute &&
             ((o->group != TRC_GROUP_NONE && o->group != TRC_GROUP_COMM) ||
              o->bytes != 0 || o->compute_ps == 0))
      bad = "a compute op needs compute time > 0, no group, no size";
    else if (o->compute_ps > TRC_MAX_COMPUTE_PS)
      bad = "its compute time is above 2^60 ps (13 days): no step has one "
            "(sim/time.h SIM_TIME_HORIZON bounds a run at 53 days)";
    else if (o->bytes > TRC_MAX_BYTES)
      bad = "its size is above 2^50 bytes (1 PiB): no collective of a step "
            "moves that much";
    else if (!o->compute &&
             (o->group == TRC_GROUP_NONE || o->group >= TRC_N_GROUPS ||
              o->bytes == 0 || o->compute_ps != 0 || o->coll >= NCCL_N_COLLS))
      bad = "a collective needs a group and a size > 0, no compute time";
    else if (o->stage < -1 || o->stage >= (gint32)w->pp)
      bad = "its stage is not -1 or a stage of the pipeline";
    else if (!o->compute && o->group != TRC_GROUP_COMM &&
             (o->group == TRC_GROUP_PP) != (o->coll == NCCL_COLL_SENDRECV))
      bad = "SendRecv runs over the pp group and only SendRecv does";
    else if (o->group == TRC_GROUP_PP &&
             (o->stage < 0 || (o->peer != 1 && o->peer != -1) ||
              o->stage + o->peer < 0 || o->stage + o->peer >= (gint32)w->pp))
      bad = "a pp SendRecv needs a stage and a peer +1/-1 inside the pipeline";
    else if (o->group != TRC_GROUP_PP && o->peer != 0)
      bad = "only a pp SendRecv has a peer";
    for (guint32 k = 0; k < o->n_deps && bad == NULL; k++)
      if (o->deps[k] >= i)
        bad = "a dependency is not an earlier op";
    if (bad) {
      g_set_error(error, TRC_ERROR, TRC_ERROR_RANGE, "%s: op %u '%s': %s",
                  w->source, o->id, o->name ? o->name : "", bad);
      ok = FALSE;
    }
    if (ids)
      g_hash_table_add(ids, GUINT_TO_POINTER(o->id));
  }
  if (ids)
    g_hash_table_destroy(ids);
  if (ok) {
    /* a stage's compute runs in turn: its sum bounds the step from below,
     * and past 2^61 ps (26 days) the step would pass the simulation's
     * horizon (2^62 ps) with its collectives; said here, with the file,
     * not as the engine's overflow */
    g_autofree guint64 *sum = g_new0(guint64, w->pp);

    for (guint32 i = 0; i < w->n_ops; i++) {
      const TrcOp *o = &w->ops[i];

      for (guint32 st = 0; o->compute && st < w->pp; st++)
        if (o->stage < 0 || (guint32)o->stage == st)
          sum[st] += o->compute_ps;
    }
    for (guint32 st = 0; st < w->pp && ok; st++) {
      if (sum[st] > TRC_MAX_COMPUTE_PS * 2) {
        g_set_error(error, TRC_ERROR, TRC_ERROR_RANGE,
                    "%s: stage %u's compute ops add up to %.0f s, past what "
                    "a step can take (2^61 ps, 26 days, leaves room for its "
                    "collectives below the simulation's 2^62 ps)",
                    w->source, st, (double)sum[st] / 1e12);
        ok = FALSE;
      }
    }
  }
  return ok;
}

/* --- numbers ------------------------------------------------------------ */

/* Decimal digits only, no sign, no spaces: a count in [1, max]. */
static gboolean parse_count(const char *t, guint64 max, guint64 *out)
{
  guint64 v = 0;

  if (t[0] == '\0')
    return FALSE;
  for (const char *c = t; *c; c++) {
    if (!g_ascii_isdigit(*c))
      return FALSE;
    if (v > (max - (guint64)(*c - '0')) / 10)
      return FALSE;
    v = v * 10 + (guint64)(*c - '0');
  }
  if (v == 0)
    return FALSE;
  *out = v;
  return TRUE;
}

/* "12.5" microseconds -> 12500000 ps, exactly; digits past the sixth
 * fraction digit round once, half up.  Fails on another form, on 0 after
 * rounding and beyond SIM_TIME_MAX. */
static gboolean parse_us(const char *t, SimTime *out)
{
  SimTime v = 0;
  const char *c = t;
  guint frac = 0;
  gboolean digits = FALSE, round_up = FALSE;

  for (; g_ascii_isdigit(*c); c++, digits = TRUE) {
    if (v > (SIM_TIME_MAX - (SimTime)(*c - '0')) / 10)
      return FALSE;
    v = v * 10 + (SimTime)(*c - '0');
  }
  if (*c == '.') {
    for (c++; g_ascii_isdigit(*c); c++, digits = TRUE) {
      if (frac < 6) {
        if (v > (SIM_TIME_MAX - (SimTime)(*c - '0')) / 10)
          return FALSE;
        v = v * 10 + (SimTime)(*c - '0');
        frac++;
      } else if (frac == 6) {
        round_up = *c >= '5';
        frac++;
      }
    }
  }
  if (!digits || *c != '\0')
    return FALSE;
  for (; frac < 6; frac++) {
    if (v > SIM_TIME_MAX / 10)
      return FALSE;
    v *= 10;
  }
  if (round_up) {
    if (v == SIM_TIME_MAX)
      return FALSE;
    v++;
  }
  if (v == 0)
    return FALSE;
  *out = v;
  return TRUE;
}

static void append_us(GString *s, SimTime ps)
{
  guint64 frac = ps % SIM_PS_PER_US;
  char buf[8];
  int n;

  g_string_append_printf(s, "%" G_GUINT64_FORMAT, ps / SIM_PS_PER_US);
  if (frac == 0)
    return;
  n = g_snprintf(buf, sizeof buf, "%06" G_GUINT64_FORMAT, frac);
  while (n > 0 && buf[n - 1] == '0')
    buf[--n] = '\0';
  g_string_append_printf(s, ".%s", buf);
}

/* --- reading ------------------------------------------------------------ */

enum {
  COL_ID,
  COL_NAME,
  COL_OP,
  COL_GROUP,
  COL_SIZE,
  COL_COMPUTE,
  COL_STAGE,
  COL_PEER,
  COL_DEPS,
  N_COLS
};

static const char *const col_names[N_COLS] = {
    "id",         "name",  "op",   "group", "size_bytes",
    "compute_us", "stage", "peer", "deps"};

static const char *const layout_keys[] = {"tp", "pp",    "dp",
                                          "ep", "ranks", "ranks_per_server"};
#define N_LAYOUT_KEYS 6
#define KEY_RANKS 4
#define KEY_PER_SERVER 5

#define HEADER_TEXT "id,name,op,group,size_bytes,compute_us,stage,peer,deps"

typedef struct {
  const char *name;
  guint line;
  int col[N_COLS]; /* field index of each column */
  guint n_fields;
} Reader;

static gboolean fail(GError **error, const Reader *r, int col,
                     const char *value, const char *fmt, ...)
    G_GNUC_PRINTF(5, 6);

/* "file:line: column 'x' ('value'): message" */
static gboolean fail(GError **error, const Reader *r, int col,
                     const char *value, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;

  va_start(ap, fmt);
  msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  if (col >= 0)
    g_set_error(error, TRC_ERROR, TRC_ERROR_PARSE,
                "%s:%u: column %s ('%s'): %s", r->name, r->line, col_names[col],
                value, msg);
  else
    g_set_error(error, TRC_ERROR, TRC_ERROR_PARSE, "%s:%u: %s", r->name,
                r->line, msg);
  return FALSE;
}

/* A `# comm: NAME R0 R1 ...` line's value into w->comms (ranks checked
 * against the job's later, by validate_comms). */
static gboolean read_comm(const char *name, guint line, const char *v,
                          GArray *comms, GError **error)
{
  g_auto(GStrv) parts = g_strsplit_set(v, " \t", -1);
  g_autoptr(GArray) ranks = g_array_new(FALSE, FALSE, sizeof(guint32));
  TrcComm c = {0};
  const char *cname = NULL;

  for (guint i = 0; parts[i]; i++) {
    guint64 n;

    if (parts[i][0] == '\0')
      continue;
    if (!cname) {
      cname = parts[i];
      if (!comm_name_ok(cname)) {
        g_set_error(error, TRC_ERROR, TRC_ERROR_PARSE,
                    "%s:%u: comm: '%s' is not a communicator name (expected "
                    "letters, digits, '_', '-' or '.', at most %u, not tp, "
                    "dp, pp, ep, edp, world or comm)",
                    name, line, cname, TRC_MAX_COMM_NAME);
        return FALSE;
      }
      for (guint k = 0; k < comms->len; k++) {
        if (g_str_equal(g_array_index(comms, TrcComm, k).name, cname)) {
          g_set_error(error, TRC_ERROR, TRC_ERROR_PARSE,
                      "%s:%u: comm: '%s' given twice", name, line, cname);
          return FALSE;
        }
      }
      continue;
    }
    if (g_str_equal(parts[i], "0"))
      n = 0;
    else if (!parse_count(parts[i], TRC_MAX_RANKS - 1, &n)) {
      g_set_error(error, TRC_ERROR, TRC_ERROR_PARSE,
                  "%s:%u: comm %s: '%s' is not a rank (expected whole "
                  "numbers in [0, %u] separated by spaces)",
                  name, line, cname, parts[i], TRC_MAX_RANKS - 1);
      return FALSE;
    }
    {
      guint32 r = (guint32)n;

      g_array_append_val(ranks, r);
    }
  }
  if (!cname || ranks->len == 0) {
    g_set_error(error, TRC_ERROR, TRC_ERROR_PARSE,
                "%s:%u: comm: expected a name and its ranks in communicator "
                "order ('# comm: tp0 0 1 2 3')",
                name, line);
    return FALSE;
  }
  c.name = g_strdup(cname);
  c.n = ranks->len;
  c.ranks = (guint32 *)(void *)g_array_free(g_steal_pointer(&ranks), FALSE);
  g_array_append_val(comms, c);
  return TRUE;
}

/* The `# key: value` lines before the header: tp, pp, dp and ep, or ranks
 * and comm lines.  Other comments there must not look like a key (a typo
 * such as `# tpp: 8` must not pass). */
static gboolean read_layout(const char *name, const char *data, gsize len,
                            TrcWorkload *w, GError **error)
{
  const char *at = data, *end = data + len;
  guint line = 0;
  guint32 values[N_LAYOUT_KEYS] = {0};
  g_autoptr(GArray) comms = g_array_new(FALSE, FALSE, sizeof(TrcComm));

  while (at < end) {
    const char *nl = memchr(at, '\n', (size_t)(end - at));
    const char *stop = nl ? nl : end;
    g_autofree char *text = g_strstrip(g_strndup(at, (gsize)(stop - at)));
    const char *colon;
    gsize klen = 0;

    line++;
    at = stop + (nl != NULL);
    if (text[0] == '\0')
      continue;
    if (text[0] != '#')
      break;
    colon = strchr(text, ':');
    {
      const char *key = text + 1;
      while (*key == ' ' || *key == '\t')
        key++;
      while (g_ascii_isalnum(key[klen]) || key[klen] == '_')
        klen++;
      if (klen == 0 || colon != key + klen)
        continue; /* a free comment */
      if (klen == 4 && strncmp(key, "comm", 4) == 0) {
        if (!read_comm(name, line, colon + 1, comms, error))
          goto fail;
        continue;
      }
      for (int k = 0; k < N_LAYOUT_KEYS; k++) {
        if (strlen(layout_keys[k]) == klen &&
            strncmp(key, layout_keys[k], klen) == 0) {
          g_autofree char *v = g_strstrip(g_strdup(colon + 1));
          guint64 n;
          guint32 max = k >= KEY_RANKS ? TRC_MAX_RANKS : TRC_MAX_DIM;

          if (values[k] != 0) {
            g_set_error(error, TRC_ERROR, TRC_ERROR_PARSE,
                        "%s:%u: layout key '%s' given twice", name, line,
                        layout_keys[k]);
            goto fail;
          }
          if (!parse_count(v, max, &n)) {
            g_set_error(error, TRC_ERROR, TRC_ERROR_PARSE,
                        "%s:%u: layout key '%s': '%s' is not a whole number "
                        "in [1, %u]",
                        name, line, layout_keys[k], v, max);
            goto fail;
          }
          values[k] = (guint32)n;
          goto next;
        }
      }
      g_set_error(error, TRC_ERROR, TRC_ERROR_PARSE,
                  "%s:%u: unknown layout key '%.*s' (expected tp, pp, dp, "
                  "ep, or ranks and comm, and ranks_per_server; a free "
                  "comment must not start with 'word:')",
                  name, line, (int)klen, key);
      goto fail;
    }
  next:;
  }
  if (values[KEY_RANKS] != 0 || comms->len > 0) {
    for (int k = 0; k < KEY_RANKS; k++) {
      if (values[k] != 0) {
        g_set_error(error, TRC_ERROR, TRC_ERROR_PARSE,
                    "%s: layout key '%s' beside ranks and comm lines: "
                    "expected either tp, pp, dp and ep, or ranks and its "
                    "communicators",
                    name, layout_keys[k]);
        goto fail;
      }
    }
    if (values[KEY_RANKS] == 0 || comms->len == 0) {
      g_set_error(error, TRC_ERROR, TRC_ERROR_PARSE,
                  "%s: %s: expected a line '# ranks: N' and at least one "
                  "'# comm: NAME R0 R1 ...' before the header",
                  name,
                  values[KEY_RANKS] ? "ranks without comm lines"
                                    : "comm lines without ranks");
      goto fail;
    }
    w->tp = w->pp = w->ep = 1;
    w->dp = values[KEY_RANKS];
    w->per_server = values[KEY_PER_SERVER];
    w->n_comms = comms->len;
    w->comms = (TrcComm *)(void *)g_array_free(g_steal_pointer(&comms), FALSE);
    return TRUE;
  }
  for (int k = 0; k < KEY_RANKS; k++) {
    if (values[k] == 0) {
      g_set_error(error, TRC_ERROR, TRC_ERROR_PARSE,
                  "%s: layout key '%s' missing: expected a line '# %s: N' "
                  "before the header (tp, pp, dp and ep are required, or "
                  "ranks and comm lines)",
                  name, layout_keys[k], layout_keys[k]);
      return FALSE;
    }
  }
  w->tp = values[0];
  w->pp = values[1];
  w->dp = values[2];
  w->ep = values[3];
  w->per_server = values[KEY_PER_SERVER];
  return TRUE;
fail:
  for (guint k = 0; k < comms->len; k++) {
    g_free(g_array_index(comms, TrcComm, k).name);
    g_free(g_array_index(comms, TrcComm, k).ranks);
  }
  return FALSE;
}

static gboolean read_header(Reader *r, char **fields, GError **error)
{
  for (int c = 0; c < N_COLS; c++)
    r->col[c] = -1;
  r->n_fields = g_strv_length(fields);
  for (guint f = 0; f < r->n_fields; f++) {
    int c;

    for (c = 0; c < N_COLS; c++)
      if (g_str_equal(fields[f], col_names[c]))
        break;
    if (c == N_COLS)
      return fail(error, r, -1, NULL,
                  "header: unknown column '%s' (expected the columns "
                  "" HEADER_TEXT ")",
                  fields[f]);
    if (r->col[c] >= 0)
      return fail(error, r, -1, NULL, "header: column '%s' given twice",
                  fields[f]);
    r->col[c] = (int)f;
  }
  for (int c = 0; c < N_COLS; c++)
    if (r->col[c] < 0)
      return fail(error, r, -1, NULL,
                  "header: column '%s' missing (expected the columns "
                  "" HEADER_TEXT ")",
                  col_names[c]);
  return TRUE;
}

static gboolean read_row(Reader *r, TrcWorkload *w, GHashTable *index_of,
                         char **fields, TrcOp *o, GError **error)
{
  const char *f[N_COLS];
  guint64 n;
  guint32 i = w->n_ops;

  if (g_strv_length(fields) != r->n_fields)
    return fail(error, r, -1, NULL,
                "%u fields, expected %u (the header's columns " HEADER_TEXT
                "; a truncated row?)",
                g_strv_length(fields), r->n_fields);
  for (int c = 0; c < N_COLS; c++)
    f[c] = fields[r->col[c]];
  o->line = r->line;
  o->stage = -1;

  if (!parse_count(f[COL_ID], G_MAXUINT32, &n))
    return fail(error, r, COL_ID, f[COL_ID],
                "expected a whole number in [1, %u]", G_MAXUINT32);
  o->id = (guint32)n;
  if (g_hash_table_contains(index_of, GUINT_TO_POINTER(o->id)))
    return fail(error, r, COL_ID, f[COL_ID],
                "duplicate id (ids must be unique)");
  if (f[COL_NAME][0] == '\0')
    return fail(error, r, COL_NAME, f[COL_NAME], "expected a name");
  o->name = g_strdup(f[COL_NAME]);

  if (g_str_equal(f[COL_OP], "compute")) {
    o->compute = TRUE;
  } else if (!nccl_coll_parse(f[COL_OP], &o->coll)) {
    return fail(error, r, COL_OP, f[COL_OP],
                "unknown op: expected compute, allreduce, allgather, "
                "reducescatter, broadcast, reduce, alltoall or sendrecv");
  }

  if (w->n_comms > 0) {
    /* every op names one of the communicators; no stage, no peer */
    guint32 c;

    for (c = 0; c < w->n_comms; c++)
      if (g_str_equal(f[COL_GROUP], w->comms[c].name))
        break;
    if (c == w->n_comms)
      return fail(error, r, COL_GROUP, f[COL_GROUP],
                  "expected one of the communicators of the comm lines "
                  "(here every op, compute too, names the ranks it runs "
                  "on)");
    o->group = TRC_GROUP_COMM;
    o->comm = c;
    if (f[COL_STAGE][0] != '\0' || f[COL_PEER][0] != '\0')
      return fail(error, r, f[COL_STAGE][0] ? COL_STAGE : COL_PEER,
                  f[COL_STAGE][0] ? f[COL_STAGE] : f[COL_PEER],
                  "an op over a communicator has no stage or peer: expected "
                  "an empty field");
    if (!o->compute && o->coll == NCCL_COLL_SENDRECV && w->comms[c].n != 2)
      return fail(error, r, COL_GROUP, f[COL_GROUP],
                  "a sendrecv runs over a communicator of two ranks (sender, "
                  "receiver); '%s' has %u",
                  w->comms[c].name, w->comms[c].n);
  }
  if (o->compute) {
    if (w->n_comms == 0 && f[COL_GROUP][0] != '\0')
      return fail(error, r, COL_GROUP, f[COL_GROUP],
                  "a compute op has no group: expected an empty field");
    if (f[COL_SIZE][0] != '\0')
      return fail(error, r, COL_SIZE, f[COL_SIZE],
                  "a compute op has no size: expected an empty field");
    if (!parse_us(f[COL_COMPUTE], &o->compute_ps))
      return fail(error, r, COL_COMPUTE, f[COL_COMPUTE],
                  "expected a decimal number of microseconds above 0 "
                  "(e.g. 12.5)");
    if (o->compute_ps > TRC_MAX_COMPUTE_PS)
      return fail(error, r, COL_COMPUTE, f[COL_COMPUTE],
                  "expected at most 1152921504606.846976 us (2^60 ps, 13 "
                  "days): no step has a longer compute op");
  } else {
    g_autoptr(GError) e = NULL;
    int g;

    for (g = 1; g < TRC_GROUP_COMM && w->n_comms == 0; g++)
      if (g_str_equal(f[COL_GROUP], group_names[g]))
        break;
    if (w->n_comms == 0 && g == TRC_GROUP_COMM)
      return fail(error, r, COL_GROUP, f[COL_GROUP],
                  "a collective needs its group: expected tp, dp, pp, ep, "
                  "edp or world");
    if (w->n_comms == 0)
      o->group = (TrcGroup)g;
    if (f[COL_SIZE][0] == '\0')
      return fail(error, r, COL_SIZE, f[COL_SIZE],
                  "a collective needs its size: expected bytes above 0 "
                  "(e.g. 16777216 or 16M)");
    if (!sim_size_parse(f[COL_SIZE], &o->bytes, &e) || o->bytes == 0 ||
        o->bytes > TRC_MAX_BYTES)
      return fail(error, r, COL_SIZE, f[COL_SIZE],
                  "expected bytes above 0, at most 2^50 = 1125899906842624 "
                  "(1 PiB: no collective of a step moves more), with an "
                  "optional K, M, G or T suffix (e.g. 16777216 or 16M)");
    if (f[COL_COMPUTE][0] != '\0')
      return fail(error, r, COL_COMPUTE, f[COL_COMPUTE],
                  "a collective has no compute time: expected an empty "
                  "field");
    if (o->group == TRC_GROUP_PP && w->pp == 1)
      return fail(error, r, COL_GROUP, f[COL_GROUP],
                  "group pp in a job without pipeline parallelism (pp 1)");
    if (o->group != TRC_GROUP_COMM &&
        (o->group == TRC_GROUP_PP) != (o->coll == NCCL_COLL_SENDRECV))
      return fail(error, r, COL_GROUP, f[COL_GROUP],
                  o->group == TRC_GROUP_PP
                      ? "only sendrecv runs over pp"
                      : "sendrecv runs over pp: expected pp");
  }

  if (f[COL_STAGE][0] != '\0') {
    if (g_str_equal(f[COL_STAGE], "0"))
      o->stage = 0;
    else if (parse_count(f[COL_STAGE], G_MAXINT32, &n) && n < w->pp)
      o->stage = (gint32)n;
    else
      return fail(error, r, COL_STAGE, f[COL_STAGE],
                  "expected a stage in [0, %u] or empty (every stage)",
                  w->pp - 1);
  }

  if (f[COL_PEER][0] != '\0') {
    if (o->group != TRC_GROUP_PP)
      return fail(error, r, COL_PEER, f[COL_PEER],
                  "only a pp sendrecv has a peer: expected an empty field");
    if (g_str_equal(f[COL_PEER], "1") || g_str_equal(f[COL_PEER], "+1"))
      o->peer = 1;
    else if (g_str_equal(f[COL_PEER], "-1"))
      o->peer = -1;
    else
      return fail(error, r, COL_PEER, f[COL_PEER],
                  "expected +1 (next stage) or -1 (previous stage)");
  }
  if (o->group == TRC_GROUP_PP) {
    if (o->peer == 0)
      return fail(error, r, COL_PEER, f[COL_PEER],
                  "a pp sendrecv needs its peer: expected +1 or -1");
    if (o->stage < 0)
      return fail(error, r, COL_STAGE, f[COL_STAGE],
                  "a pp sendrecv needs its sender's stage: expected a "
                  "stage in [0, %u]",
                  w->pp - 1);
    if (o->stage + o->peer < 0 || o->stage + o->peer >= (gint32)w->pp)
      return fail(error, r, COL_PEER, f[COL_PEER],
                  "stage %d has no stage %d to send to: expected a peer "
                  "inside [0, %u]",
                  o->stage, o->stage + o->peer, w->pp - 1);
  }

  if (f[COL_DEPS][0] == '\0') {
    if (i > 0) {
      o->deps = g_new(guint32, 1);
      o->deps[0] = i - 1;
      o->n_deps = 1;
    }
  } else if (!g_str_equal(f[COL_DEPS], "none")) {
    g_auto(GStrv) parts = g_strsplit(f[COL_DEPS], ";", -1);
    guint np = g_strv_length(parts);

    o->deps = g_new(guint32, np);
    for (guint k = 0; k < np; k++) {
      gpointer idx;
      char *t = g_strstrip(parts[k]);

      if (!parse_count(t, G_MAXUINT32, &n))
        return fail(error, r, COL_DEPS, f[COL_DEPS],
                    "'%s' is not an id: expected earlier ids separated by "
                    "';', empty (the previous row) or none",
                    t);
      if (!g_hash_table_lookup_extended(index_of, GUINT_TO_POINTER(n), NULL,
                                        &idx))
        return fail(error, r, COL_DEPS, f[COL_DEPS],
                    "no earlier op has id %s (a dependency must be an "
                    "earlier row)",
                    t);
      for (guint j = 0; j < o->n_deps; j++)
        if (o->deps[j] == GPOINTER_TO_UINT(idx))
          return fail(error, r, COL_DEPS, f[COL_DEPS], "id %s listed twice", t);
      o->deps[o->n_deps++] = GPOINTER_TO_UINT(idx);
    }
  }
  return TRUE;
}

TrcWorkload *trc_workload_load_csv_data(const char *data, gsize len,
                                        const char *name, GError **error)
{
  g_autoptr(TrcWorkload) w = g_new0(TrcWorkload, 1);
  g_autoptr(GHashTable) index_of =
      g_hash_table_new(g_direct_hash, g_direct_equal);
  TrcCsv csv = {0};
  Reader r = {.name = name};
  guint rows;

  w->source = g_strdup(name);
  /* a UTF-8 byte order mark (spreadsheets write one), as the measurement
   * importers skip it */
  if (len >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0) {
    data += 3;
    len -= 3;
  }
  if (!read_layout(name, data, len, w, error))
    return NULL;
  if (!trc_workload_validate(w, error))
    return NULL;
  if (!trc_csv_split(name, data, len, &csv, error))
    return NULL;
  rows = csv.rows->len;
  if (rows == 0) {
    trc_csv_clear(&csv);
    g_set_error(error, TRC_ERROR, TRC_ERROR_PARSE,
                "%s: no header: expected the line " HEADER_TEXT
                " after the layout lines",
                name);
    return NULL;
  }
  r.line = g_array_index(csv.lines, guint, 0);
  if (!read_header(&r, g_ptr_array_index(csv.rows, 0), error)) {
    trc_csv_clear(&csv);
    return NULL;
  }
  if (rows == 1) {
    trc_csv_clear(&csv);
    g_set_error(error, TRC_ERROR, TRC_ERROR_PARSE,
                "%s: no ops: expected rows after the header", name);
    return NULL;
  }
  w->ops = g_new0(TrcOp, rows - 1);
  for (guint k = 1; k < rows; k++) {
    TrcOp *o = &w->ops[w->n_ops];

    r.line = g_array_index(csv.lines, guint, k);
    if (!read_row(&r, w, index_of, g_ptr_array_index(csv.rows, k), o, error)) {
      w->n_ops++; /* freed with the rest */
      trc_csv_clear(&csv);
      return NULL;
    }
    g_hash_table_insert(index_of, GUINT_TO_POINTER(o->id),
                        GUINT_TO_POINTER(w->n_ops));
    w->n_ops++;
  }
  trc_csv_clear(&csv);
  /* each row was checked as read; what is left is the whole workload's
   * (a stage's compute sum) */
  if (!trc_workload_validate(w, error))
    return NULL;
  return g_steal_pointer(&w);
}

TrcWorkload *trc_workload_load_csv(const char *path, GError **error)
{
  g_autofree char *text = NULL;
  gsize len;

  if (!sim_input_read(path, &text, &len, error))
    return NULL;
  if (len == 0) {
    g_set_error(error, TRC_ERROR, TRC_ERROR_PARSE,
                "%s: empty file: expected a workload CSV (docs/workload.md)",
                path);
    return NULL;
  }
  return trc_workload_load_csv_data(text, len, path, error);
}

gboolean trc_file_error(GError **error, const char *name, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;

  va_start(ap, fmt);
  msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_set_error(error, TRC_ERROR, TRC_ERROR_PARSE, "%s: %s", name, msg);
  return FALSE;
}

gboolean trc_texts_read(const char *const *paths, guint n, char **texts,
                        gsize *lens, GError **error)
{
  for (guint f = 0; f < n; f++)
    texts[f] = NULL;
  for (guint f = 0; f < n; f++) {
    if (!sim_input_read(paths[f], &texts[f], &lens[f], error)) {
      trc_texts_free(texts, n);
      return FALSE;
    }
  }
  return TRUE;
}

void trc_texts_free(char **texts, guint n)
{
  for (guint f = 0; f < n; f++)
    g_clear_pointer(&texts[f], g_free);
}

static gboolean heap_less(const TrcHeapItem *a, const TrcHeapItem *b)
{
  return a->key < b->key || (a->key == b->key && a->id < b->id);
}

void trc_heap_push(GArray *heap, double key, guint32 id)
{
  TrcHeapItem x = {key, id}, *a;

  g_array_append_val(heap, x);
  a = (TrcHeapItem *)(void *)heap->data;
  for (guint k = heap->len - 1; k > 0;) {
    guint up = (k - 1) / 2;

    if (!heap_less(&a[k], &a[up]))
      break;
    x = a[up];
    a[up] = a[k];
    a[k] = x;
    k = up;
  }
}

guint32 trc_heap_pop(GArray *heap)
{
  TrcHeapItem *a = (TrcHeapItem *)(void *)heap->data, t;
  guint32 top = a[0].id;
  guint n = heap->len - 1, k = 0;

  a[0] = a[n];
  g_array_set_size(heap, n);
  for (;;) {
    guint l = 2 * k + 1, m = k;

    if (l < n && heap_less(&a[l], &a[m]))
      m = l;
    if (l + 1 < n && heap_less(&a[l + 1], &a[m]))
      m = l + 1;
    if (m == k)
      break;
    t = a[m];
    a[m] = a[k];
    a[k] = t;
    k = m;
  }
  return top;
}

/* --- writing ------------------------------------------------------------ */

char *trc_workload_to_csv(const TrcWorkload *w)
{
  GString *s = g_string_new(NULL);

  g_string_append(s, "# ifsim training-step workload (docs/workload.md)\n");
  if (w->n_comms > 0) {
    g_string_append_printf(s, "# ranks: %u\n", w->dp);
    for (guint32 c = 0; c < w->n_comms; c++) {
      g_string_append_printf(s, "# comm: %s", w->comms[c].name);
      for (guint32 i = 0; i < w->comms[c].n; i++)
        g_string_append_printf(s, " %u", w->comms[c].ranks[i]);
      g_string_append_c(s, '\n');
    }
  } else {
    g_string_append_printf(s, "# tp: %u\n# pp: %u\n# dp: %u\n# ep: %u\n", w->tp,
                           w->pp, w->dp, w->ep);
  }
  if (w->per_server != 0)
    g_string_append_printf(s, "# ranks_per_server: %u\n", w->per_server);
  g_string_append(s, HEADER_TEXT "\n");
  for (guint32 i = 0; i < w->n_ops; i++) {
    const TrcOp *o = &w->ops[i];

    g_string_append_printf(s, "%u,", o->id);
    trc_csv_append_text(s, o->name);
    if (o->compute) {
      g_string_append_printf(s, ",compute,%s,,", trc_op_group_label(w, o));
      append_us(s, o->compute_ps);
    } else {
      g_string_append_printf(s, ",%s,%s,%" G_GUINT64_FORMAT ",",
                             coll_csv_names[o->coll], trc_op_group_label(w, o),
                             o->bytes);
    }
    g_string_append_c(s, ',');
    if (o->stage >= 0)
      g_string_append_printf(s, "%d", o->stage);
    g_string_append_c(s, ',');
    if (o->peer != 0)
      g_string_append(s, o->peer > 0 ? "+1" : "-1");
    g_string_append_c(s, ',');
    if (o->n_deps == 0 && i > 0)
      g_string_append(s, "none");
    else if (!(o->n_deps == 1 && o->deps[0] == i - 1))
      for (guint32 k = 0; k < o->n_deps; k++)
        g_string_append_printf(s, "%s%u", k ? ";" : "", w->ops[o->deps[k]].id);
    g_string_append_c(s, '\n');
  }
  return g_string_free(s, FALSE);
}
