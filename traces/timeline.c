/* TrcTimeline; see traces/timeline.h.  Hand-written JSON: numbers are
 * printed from integers (timestamps) or with g_ascii_formatd (counters),
 * so the text is locale-independent; strings go through
 * trc_json_append_string.  Overflow tracks are assigned when the text is
 * made, over all slices of a thread at once, so the order of the calls
 * does not matter. */
#include "traces/error.h"
#include "traces/timeline.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "sim/error.h"

typedef struct {
  guint32 pid, tid;
  gint32 sort_index;
  const char *name; /* interned */
  gboolean process; /* process_name (tid unused), else thread_name */
} Meta;

typedef struct {
  guint32 pid, tid;
  SimTime start, end;
  const char *name, *cat, *args; /* interned / chunk; cat, args may be NULL */
  guint64 seq;
  guint32 out_tid; /* after assignment */
} Slice;

typedef struct {
  guint32 pid;
  const char *name;
  SimTime t;
  double value;
  guint64 seq;
} Counter;

struct TrcTimeline {
  GStringChunk *strings;
  GArray *meta;     /* Meta */
  GArray *slices;   /* Slice */
  GArray *counters; /* Counter */
  GPtrArray *other; /* key, value, key, value ... (owned) */
};

TrcTimeline *trc_timeline_new(void)
{
  TrcTimeline *tl = g_new0(TrcTimeline, 1);

  tl->strings = g_string_chunk_new(4096);
  tl->meta = g_array_new(FALSE, FALSE, sizeof(Meta));
  tl->slices = g_array_new(FALSE, FALSE, sizeof(Slice));
  tl->counters = g_array_new(FALSE, FALSE, sizeof(Counter));
  tl->other = g_ptr_array_new_with_free_func(g_free);
  return tl;
}

void trc_timeline_free(TrcTimeline *tl)
{
  if (!tl)
    return;
  g_string_chunk_free(tl->strings);
  g_array_free(tl->meta, TRUE);
  g_array_free(tl->slices, TRUE);
  g_array_free(tl->counters, TRUE);
  g_ptr_array_free(tl->other, TRUE);
  g_free(tl);
}

static const char *intern(TrcTimeline *tl, const char *s)
{
  return s ? g_string_chunk_insert_const(tl->strings, s) : NULL;
}

/* The metadata record of (pid, tid, process), added when new. */
static Meta *meta_of(TrcTimeline *tl, guint32 pid, guint32 tid,
                     gboolean process)
{
  Meta m = {.pid = pid, .tid = process ? 0 : tid, .process = process};

  for (guint i = 0; i < tl->meta->len; i++) {
    Meta *e = &g_array_index(tl->meta, Meta, i);
    if (e->pid == pid && e->process == process && e->tid == m.tid)
      return e;
  }
  g_array_append_val(tl->meta, m);
  return &g_array_index(tl->meta, Meta, tl->meta->len - 1);
}

void trc_timeline_process(TrcTimeline *tl, guint32 pid, const char *name,
                          gint32 sort_index)
{
  Meta *m = meta_of(tl, pid, 0, TRUE);

  m->name = intern(tl, name);
  m->sort_index = sort_index;
}

void trc_timeline_thread(TrcTimeline *tl, guint32 pid, guint32 tid,
                         const char *name)
{
  meta_of(tl, pid, tid, FALSE)->name = intern(tl, name);
}

void trc_timeline_slice(TrcTimeline *tl, guint32 pid, guint32 tid,
                        const char *name, const char *cat, SimTime start_ps,
                        SimTime end_ps, const char *args_json)
{
  Slice s = {.pid = pid,
             .tid = tid,
             .start = start_ps,
             .end = end_ps,
             .name = intern(tl, name),
             .cat = intern(tl, cat),
             .args = args_json ? g_string_chunk_insert(tl->strings, args_json)
                               : NULL,
             .seq = tl->slices->len};

  g_assert(end_ps >= start_ps);
  g_assert(!args_json || args_json[0] == '{');
  g_array_append_val(tl->slices, s);
}

void trc_timeline_counter(TrcTimeline *tl, guint32 pid, const char *name,
                          SimTime t_ps, double value)
{
  Counter c = {.pid = pid,
               .name = intern(tl, name),
               .t = t_ps,
               .value = value,
               .seq = tl->counters->len};

  g_assert(isfinite(value));
  g_array_append_val(tl->counters, c);
}

void trc_timeline_other(TrcTimeline *tl, const char *key, const char *value)
{
  g_ptr_array_add(tl->other, g_strdup(key));
  g_ptr_array_add(tl->other, g_strdup(value));
}

guint64 trc_timeline_n_events(const TrcTimeline *tl)
{
  guint64 n = tl->slices->len + (guint64)tl->counters->len;

  for (guint i = 0; i < tl->meta->len; i++)
    n += g_array_index(tl->meta, Meta, i).process ? 2 : 1;
  return n;
}

void trc_json_append_string(GString *out, const char *s)
{
  g_autofree char *valid = g_utf8_make_valid(s, -1);

  g_string_append_c(out, '"');
  for (const char *p = valid; *p; p++) {
    unsigned char c = (unsigned char)*p;

    if (c == '"' || c == '\\') {
      g_string_append_c(out, '\\');
      g_string_append_c(out, (char)c);
    } else if (c == '\n') {
      g_string_append(out, "\\n");
    } else if (c == '\t') {
      g_string_append(out, "\\t");
    } else if (c < 0x20 || c == 0x7f) {
      g_string_append_printf(out, "\\u%04x", c);
    } else {
      g_string_append_c(out, (char)c);
    }
  }
  g_string_append_c(out, '"');
}

/* Microseconds with 6 decimals, exactly, from picoseconds. */
static void append_us(GString *out, SimTime ps)
{
  g_string_append_printf(out, "%" G_GUINT64_FORMAT ".%06u",
                         ps / G_GUINT64_CONSTANT(1000000),
                         (guint)(ps % G_GUINT64_CONSTANT(1000000)));
}

static int cmp_meta(gconstpointer a, gconstpointer b)
{
  const Meta *x = a, *y = b;

  if (x->pid != y->pid)
    return x->pid < y->pid ? -1 : 1;
  if (x->process != y->process)
    return x->process ? -1 : 1;
  return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Track order: pid, tid, start, longer first, the order added. */
static int cmp_slice(gconstpointer a, gconstpointer b)
{
  const Slice *x = a, *y = b;

  if (x->pid != y->pid)
    return x->pid < y->pid ? -1 : 1;
  if (x->tid != y->tid)
    return x->tid < y->tid ? -1 : 1;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  if (x->end != y->end)
    return x->end > y->end ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_out(gconstpointer a, gconstpointer b)
{
  const Slice *x = a, *y = b;

  if (x->pid != y->pid)
    return x->pid < y->pid ? -1 : 1;
  if (x->out_tid != y->out_tid)
    return x->out_tid < y->out_tid ? -1 : 1;
  return cmp_slice(a, b);
}

static int cmp_counter(gconstpointer a, gconstpointer b)
{
  const Counter *x = a, *y = b;
  int c;

  if (x->pid != y->pid)
    return x->pid < y->pid ? -1 : 1;
  c = strcmp(x->name, y->name);
  if (c)
    return c;
  if (x->t != y->t)
    return x->t < y->t ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A track of a thread while assigning: its open slices' ends, innermost
 * last. */
typedef struct {
  GArray *open; /* SimTime */
  guint32 tid;
} Lane;

/* An overflow track: thread (pid, tid)'s lane k (>= 1) became out_tid. */
typedef struct {
  guint32 pid, tid, k, out_tid;
} Overflow;

/* The largest tid of each process: overflow tids go past it. */
static guint32 max_tid(const TrcTimeline *tl, guint32 pid, guint first,
                       guint last)
{
  guint32 m = 0;

  for (guint i = 0; i < tl->meta->len; i++) {
    const Meta *e = &g_array_index(tl->meta, Meta, i);
    if (e->pid == pid && !e->process)
      m = MAX(m, e->tid);
  }
  for (guint i = first; i < last; i++)
    m = MAX(m, g_array_index(tl->slices, Slice, i).tid);
  return m;
}

/* Sorts the slices and sets out_tid, making overflow tracks (appended to
 * `ovf` in thread order, then lane order). */
static void assign_tracks(TrcTimeline *tl, GArray *ovf)
{
  GArray *sl = tl->slices;
  g_autoptr(GPtrArray) lanes = g_ptr_array_new();
  guint i = 0;

  g_array_sort(sl, cmp_slice);
  while (i < sl->len) {
    guint32 pid = g_array_index(sl, Slice, i).pid;
    guint p_end = i;
    guint32 next_tid;

    while (p_end < sl->len && g_array_index(sl, Slice, p_end).pid == pid)
      p_end++;
    next_tid = max_tid(tl, pid, i, p_end);
    /* one thread at a time */
    while (i < p_end) {
      guint32 tid = g_array_index(sl, Slice, i).tid;

      for (; i < p_end && g_array_index(sl, Slice, i).tid == tid; i++) {
        Slice *s = &g_array_index(sl, Slice, i);
        guint k;

        for (k = 0; k < lanes->len; k++) {
          Lane *ln = g_ptr_array_index(lanes, k);
          /* slices ended by this start are closed */
          while (ln->open->len > 0 &&
                 g_array_index(ln->open, SimTime, ln->open->len - 1) <=
                     s->start)
            g_array_set_size(ln->open, ln->open->len - 1);
          if (ln->open->len == 0 ||
              g_array_index(ln->open, SimTime, ln->open->len - 1) >= s->end)
            break;
        }
        if (k == lanes->len) {
          Lane *ln = g_new0(Lane, 1);
          ln->open = g_array_new(FALSE, FALSE, sizeof(SimTime));
          if (k == 0) {
            ln->tid = tid;
          } else {
            Overflow o = {pid, tid, k, ++next_tid};
            g_assert(next_tid != 0); /* tids ran out: 2^32 tracks */
            ln->tid = o.out_tid;
            g_array_append_val(ovf, o);
          }
          g_ptr_array_add(lanes, ln);
        }
        {
          Lane *ln = g_ptr_array_index(lanes, k);
          g_array_append_val(ln->open, s->end);
          s->out_tid = ln->tid;
        }
      }
      for (guint k = 0; k < lanes->len; k++) {
        Lane *ln = g_ptr_array_index(lanes, k);
        g_array_free(ln->open, TRUE);
        g_free(ln);
      }
      g_ptr_array_set_size(lanes, 0);
    }
  }
  /* output order: by the track the slice landed on */
  g_array_sort(sl, cmp_out);
}

static void append_meta(GString *s, const char *what, guint32 pid, guint32 tid,
                        const char *key, const char *str, gint64 num)
{
  g_string_append_printf(s,
                         "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%u,"
                         "\"tid\":%u,\"args\":{\"%s\":",
                         what, pid, tid, key);
  if (str)
    trc_json_append_string(s, str);
  else
    g_string_append_printf(s, "%" G_GINT64_FORMAT, num);
  g_string_append(s, "}},\n");
}

/* The name of thread (pid, tid), or NULL. */
static const char *thread_name(const TrcTimeline *tl, guint32 pid, guint32 tid)
{
  for (guint i = 0; i < tl->meta->len; i++) {
    const Meta *e = &g_array_index(tl->meta, Meta, i);
    if (e->pid == pid && !e->process && e->tid == tid)
      return e->name;
  }
  return NULL;
}

char *trc_timeline_json(TrcTimeline *tl)
{
  GString *s = g_string_new("{\"traceEvents\":[\n");
  g_autoptr(GArray) ovf = g_array_new(FALSE, FALSE, sizeof(Overflow));
  guint32 sort = 0;

  assign_tracks(tl, ovf);
  g_array_sort(tl->meta, cmp_meta);
  for (guint i = 0; i < tl->meta->len; i++) {
    const Meta *m = &g_array_index(tl->meta, Meta, i);

    if (m->process) {
      append_meta(s, "process_name", m->pid, 0, "name", m->name, 0);
      append_meta(s, "process_sort_index", m->pid, 0, "sort_index", NULL,
                  m->sort_index);
      continue;
    }
    append_meta(s, "thread_name", m->pid, m->tid, "name", m->name, 0);
  }
  /* thread order: each thread, then its overflow tracks */
  for (guint i = 0, o = 0; i < tl->meta->len || o < ovf->len;) {
    const Meta *m =
        i < tl->meta->len ? &g_array_index(tl->meta, Meta, i) : NULL;
    const Overflow *v = o < ovf->len ? &g_array_index(ovf, Overflow, o) : NULL;

    if (m && m->process) {
      i++;
      continue;
    }
    if (m &&
        (!v || m->pid < v->pid || (m->pid == v->pid && m->tid <= v->tid))) {
      append_meta(s, "thread_sort_index", m->pid, m->tid, "sort_index", NULL,
                  sort++);
      i++;
      continue;
    }
    {
      const char *base = thread_name(tl, v->pid, v->tid);
      g_autofree char *name =
          base ? g_strdup_printf("%s #%u", base, v->k + 1)
               : g_strdup_printf("tid %u #%u", v->tid, v->k + 1);

      append_meta(s, "thread_name", v->pid, v->out_tid, "name", name, 0);
      append_meta(s, "thread_sort_index", v->pid, v->out_tid, "sort_index",
                  NULL, sort++);
      o++;
    }
  }
  for (guint i = 0; i < tl->slices->len; i++) {
    const Slice *x = &g_array_index(tl->slices, Slice, i);

    g_string_append(s, "{\"ph\":\"X\",\"name\":");
    trc_json_append_string(s, x->name);
    if (x->cat) {
      g_string_append(s, ",\"cat\":");
      trc_json_append_string(s, x->cat);
    }
    g_string_append_printf(s, ",\"pid\":%u,\"tid\":%u,\"ts\":", x->pid,
                           x->out_tid);
    append_us(s, x->start);
    g_string_append(s, ",\"dur\":");
    append_us(s, x->end - x->start);
    if (x->args) {
      g_string_append(s, ",\"args\":");
      g_string_append(s, x->args);
    }
    g_string_append(s, "},\n");
  }
  g_array_sort(tl->counters, cmp_counter);
  for (guint i = 0; i < tl->counters->len; i++) {
    const Counter *c = &g_array_index(tl->counters, Counter, i);
    char num[G_ASCII_DTOSTR_BUF_SIZE];

    g_string_append(s, "{\"ph\":\"C\",\"name\":");
    trc_json_append_string(s, c->name);
    g_string_append_printf(s, ",\"pid\":%u,\"ts\":", c->pid);
    append_us(s, c->t);
    g_ascii_formatd(num, sizeof num, "%.9g", c->value);
    g_string_append_printf(s, ",\"args\":{\"value\":%s}},\n", num);
  }
  /* no trailing comma: the last event ends the array */
  if (s->str[s->len - 2] == ',')
    g_string_truncate(s, s->len - 2);
  else
    g_string_truncate(s, s->len - 1);
  g_string_append(s, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{");
  for (guint i = 0; i + 1 < tl->other->len; i += 2) {
    if (i)
      g_string_append_c(s, ',');
    trc_json_append_string(s, g_ptr_array_index(tl->other, i));
    g_string_append_c(s, ':');
    trc_json_append_string(s, g_ptr_array_index(tl->other, i + 1));
  }
  g_string_append(s, "}}\n");
  return g_string_free(s, FALSE);
}

/* ---- the checker -------------------------------------------------------- */

typedef struct {
  gint64 pid, tid;
  gint64 start, end; /* ps */
  guint index;       /* in traceEvents */
} CheckSlice;

static int cmp_check(gconstpointer a, gconstpointer b)
{
  const CheckSlice *x = a, *y = b;

  if (x->pid != y->pid)
    return x->pid < y->pid ? -1 : 1;
  if (x->tid != y->tid)
    return x->tid < y->tid ? -1 : 1;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  if (x->end != y->end)
    return x->end > y->end ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

static gboolean check_fail(GError **error, const char *fmt, ...)
    G_GNUC_PRINTF(2, 3);

static gboolean check_fail(GError **error, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *m = NULL;

  va_start(ap, fmt);
  m = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_set_error_literal(error, TRC_ERROR, TRC_ERROR_PARSE, m);
  return FALSE;
}

/* A number member of an event, or FALSE. */
static gboolean member_number(JsonObject *o, const char *key, double *out)
{
  JsonNode *n = json_object_get_member(o, key);

  if (!n || !JSON_NODE_HOLDS_VALUE(n) ||
      (json_node_get_value_type(n) != G_TYPE_INT64 &&
       json_node_get_value_type(n) != G_TYPE_DOUBLE))
    return FALSE;
  *out = json_node_get_double(n);
  return TRUE;
}

gboolean trc_timeline_check(const char *json, guint *n_pids, GError **error)
{
  g_autoptr(JsonParser) p = json_parser_new();
  g_autoptr(GArray) sl = g_array_new(FALSE, FALSE, sizeof(CheckSlice));
  g_autoptr(GArray) open = g_array_new(FALSE, FALSE, sizeof(CheckSlice));
  JsonNode *root;
  JsonArray *ev;
  guint pids = 0;

  if (!json_parser_load_from_data(p, json, -1, error))
    return FALSE;
  root = json_parser_get_root(p);
  if (!root || !JSON_NODE_HOLDS_OBJECT(root) ||
      !json_object_has_member(json_node_get_object(root), "traceEvents") ||
      !JSON_NODE_HOLDS_ARRAY(
          json_object_get_member(json_node_get_object(root), "traceEvents")))
    return check_fail(error, "not a trace: expected an object with a "
                             "\"traceEvents\" array");
  ev = json_object_get_array_member(json_node_get_object(root), "traceEvents");
  for (guint i = 0; i < json_array_get_length(ev); i++) {
    JsonNode *n = json_array_get_element(ev, i);
    JsonObject *o;
    const char *ph;
    double ts, dur, pid, tid;
    CheckSlice c = {.index = i};

    if (!JSON_NODE_HOLDS_OBJECT(n))
      return check_fail(error, "traceEvents[%u]: not an object", i);
    o = json_node_get_object(n);
    ph = json_object_has_member(o, "ph")
             ? json_object_get_string_member_with_default(o, "ph", NULL)
             : NULL;
    if (!ph)
      return check_fail(error, "traceEvents[%u]: no \"ph\" string", i);
    if (strcmp(ph, "X") != 0)
      continue;
    if (!member_number(o, "ts", &ts) || !member_number(o, "dur", &dur) ||
        !member_number(o, "pid", &pid) || !member_number(o, "tid", &tid))
      return check_fail(error,
                        "traceEvents[%u]: an \"X\" event needs numbers ts, "
                        "dur, pid and tid",
                        i);
    if (dur < 0 || ts < 0)
      return check_fail(error, "traceEvents[%u]: ts %g, dur %g: negative", i,
                        ts, dur);
    c.pid = (gint64)pid;
    c.tid = (gint64)tid;
    c.start = llround(ts * 1e6);
    c.end = c.start + llround(dur * 1e6);
    g_array_append_val(sl, c);
  }
  g_array_sort(sl, cmp_check);
  for (guint i = 0; i < sl->len; i++) {
    const CheckSlice *c = &g_array_index(sl, CheckSlice, i);

    if (i == 0 || c->pid != c[-1].pid)
      pids++;
    if (i == 0 || c->pid != c[-1].pid || c->tid != c[-1].tid)
      g_array_set_size(open, 0);
    while (open->len > 0 &&
           g_array_index(open, CheckSlice, open->len - 1).end <= c->start)
      g_array_set_size(open, open->len - 1);
    if (open->len > 0) {
      const CheckSlice *top = &g_array_index(open, CheckSlice, open->len - 1);
      if (top->end < c->end)
        return check_fail(error,
                          "traceEvents[%u] (pid %" G_GINT64_FORMAT
                          ", tid %" G_GINT64_FORMAT
                          ") overlaps traceEvents[%u] without nesting in it",
                          c->index, c->pid, c->tid, top->index);
    }
    g_array_append_val(open, *c);
  }
  if (n_pids)
    *n_pids = pids;
  return TRUE;
}
