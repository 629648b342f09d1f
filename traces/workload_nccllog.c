/* NCCL's own log (NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL) read as a
 * workload of exactly the calls the job made (docs/workload.md, "NCCL
 * logs").
 *
 * What a line looks like, from NCCL's source (src/debug.cc ncclDebugLog,
 * 2.18-2.30): an optional timestamp (NCCL_DEBUG_TIMESTAMP_LEVELS,
 * NCCL_DEBUG_TIMESTAMP_FORMAT, default "[%F %T] "), "host:pid:tid ", then
 * "[cudaDev] NCCL INFO " and the message; launchers put their own prefix
 * before it ("[rank0]:", "[1,0]<stdout>:", "(RayTrainWorker ...)").  The
 * messages read:
 *
 * - a call (src/enqueue.cc ncclEnqueueCheck, unchanged from 2.4 to 2.30):
 *   "%s: opCount %lx sendbuff %p recvbuff %p count %zu datatype %d op %d
 *   root %d comm %p [nranks=%d] stream %p"; for Send and Recv, root is the
 *   peer's rank;
 * - a communicator: "comm %p rank %d nranks %d cudaDev %d ..." with
 *   "commId 0x%llx" (2.18+ Init START/COMPLETE, after the function's name
 *   from 2.28) or "parent %p splitCount %d color %d key %d" (ncclCommSplit);
 *   "comm %p rank %d nRanks %d nNodes %d ..." (2.21+); "comm %p rank %d
 *   nranks %d cudaDev %d nvmlDev %d" (2.4).  "... - Destroy COMPLETE" and
 *   "Abort COMPLETE" lines are not communicators.
 *
 * How the calls become a workload:
 * - A communicator is the same one on every process by its commId, or by
 *   its parent's identity, split count and color for a split; a log
 *   without either (2.4, or COLL lines only) takes a device's k-th
 *   communicator of n ranks to be every device's k-th, and where no line
 *   gives the ranks, numbers them in device order (said in the notes).
 * - The job's ranks are the ranks of the communicator that spans every
 *   device of the log; without one, the devices in order of appearance
 *   (said in the notes).
 * - A communicator's k-th collective call on each of its ranks is one
 *   collective; they must agree on the collective, the count, the
 *   datatype and the root.  A rank's i-th Send to a peer matches the
 *   peer's i-th Recv from it (NCCL's order); consecutive Send/Recv lines
 *   of a device on one communicator with one opCount are one group
 *   (ncclGroupStart/End): they run at once.  (comm->opCount advances in
 *   ncclProxyStart, proxy.cc, once per launch that has proxy work: in 2.28
 *   a launch over NVLink alone keeps the count, so two such groups in a
 *   row read as one.)  A group in which every rank of the communicator
 *   sends to every other and receives from every other is the AllToAll it
 *   implements (PyTorch's all_to_all; of unequal sizes, an AllToAll of the
 *   same total, in the notes); sends to self move nothing over the fabric
 *   and are left out (counted in the notes).
 * - A rank's calls run in the order its host issued them (the log's
 *   order): each waits for the rank's previous one.  The log does not say
 *   which CUDA stream waits for which, nor what compute ran between two
 *   calls: the gap is the user's (gap_ps), or the time between the two
 *   lines' timestamps (the host's time between issuing them), or none.
 * - Sizes follow nccl-tests (collectives/nccl/nccl.h): AllGather and
 *   ReduceScatter count x n elements, AllToAll count x n (NCCL 2.28's
 *   ncclAlltoAll: count per peer), the others count.  A call of count 0
 *   moves nothing and is left out (counted in the notes). */
#include "traces/error.h"
#include "traces/workload.h"

#include <string.h>

#include "sim/input.h"
#include "sim/memory.h"

/* ncclDataType_t (nccl.h, 2.4-2.30): Int8, Uint8, Int32, Uint32, Int64,
 * Uint64, Float16, Float32, Float64, Bfloat16 (2.10), Float8e4m3,
 * Float8e5m2 (2.19). */
static const guint8 dtype_bytes[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};

typedef enum {
  K_COLL, /* a collective: coll */
  K_SEND,
  K_RECV
} CallKind;

typedef struct {
  guint32 dev;   /* index into devs */
  guint32 lcomm; /* index into lcomms */
  CallKind kind;
  NcclColl coll;
  guint64 count, bytes, opcount;
  gint32 dtype, root;
  guint32 file, line;
  gint64 ts;    /* ns since the epoch (as UTC), < 0: no timestamp */
  guint32 ev;   /* its event (global index) */
  guint32 inst; /* its instance */
} Call;

typedef struct {
  char *host;
  guint64 pid;
  gint32 cuda_dev;
  gint64 launcher_rank; /* "[rankN]:", -1 without */
  guint32 file, line;   /* first line */
  guint32 job_rank;
} Dev;

typedef struct {
  guint32 dev;
  char *ptr;
  gint32 rank; /* -1: no line gave it */
  guint32 nranks;
  gboolean has_id;
  guint64 id;
  char *parent; /* split: parent's pointer, else NULL */
  gint64 split_count, color;
  guint32 file, line;
  gint64 gcomm; /* resolved: index into gcomms, -1 not yet */
} LComm;

typedef struct {
  char *key;
  guint32 nranks;
  gint64 *member; /* [nranks]: dev of each comm rank, -1 none yet */
  guint32 *lcomm; /* [nranks]: its local comm */
  guint32 trc;    /* index in the workload's comms, G_MAXUINT32: none */
} GComm;

typedef struct {
  const char *const *names;
  GArray *devs, *lcomms, *calls, *gcomms;
  GHashTable *dev_of;   /* "host:pid:dev" -> dev + 1 */
  GHashTable *lcomm_of; /* "host:pid:ptr" -> lcomm + 1 */
  GHashTable *gcomm_of; /* key -> gcomm + 1 */
  guint64 skipped_zero, skipped_self, uneven_alltoall;
  gboolean any_ts, missing_ts;
  GString *notes;
} Log;

static gboolean fail_at(GError **error, const Log *g, guint32 file,
                        guint32 line, const char *fmt, ...) G_GNUC_PRINTF(5, 6);

static gboolean fail_at(GError **error, const Log *g, guint32 file,
                        guint32 line, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;

  va_start(ap, fmt);
  msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_set_error(error, TRC_ERROR, TRC_ERROR_PARSE, "%s:%u: %s", g->names[file],
              line, msg);
  return FALSE;
}

/* --- one line ------------------------------------------------------------ */

/* A decimal number at *p (optionally negative), advancing *p. */
static gboolean take_int(const char **p, gint64 *out)
{
  const char *c = *p;
  gboolean neg = *c == '-';
  guint64 v = 0;

  if (neg)
    c++;
  if (!g_ascii_isdigit(*c))
    return FALSE;
  for (; g_ascii_isdigit(*c); c++) {
    if (v > (guint64)G_MAXINT64 / 10)
      return FALSE;
    v = v * 10 + (guint64)(*c - '0');
  }
  if (v > (guint64)G_MAXINT64)
    return FALSE;
  *out = neg ? -(gint64)v : (gint64)v;
  *p = c;
  return TRUE;
}

static gboolean take_hex(const char **p, guint64 *out)
{
  const char *c = *p;
  guint64 v = 0;

  if (!g_ascii_isxdigit(*c))
    return FALSE;
  for (; g_ascii_isxdigit(*c); c++) {
    if (v >> 60)
      return FALSE;
    v = (v << 4) | (guint64)g_ascii_xdigit_value(*c);
  }
  *out = v;
  *p = c;
  return TRUE;
}

/* A non-space word at *p into a new string. */
static char *take_word(const char **p)
{
  const char *c = *p;

  while (*c && *c != ' ' && *c != '\t')
    c++;
  if (c == *p)
    return NULL;
  {
    char *w = g_strndup(*p, (gsize)(c - *p));

    *p = c;
    return w;
  }
}

/* The literal `lit` at *p, advancing past it. */
static gboolean take(const char **p, const char *lit)
{
  gsize n = strlen(lit);

  if (strncmp(*p, lit, n) != 0)
    return FALSE;
  *p += n;
  return TRUE;
}

/* "[YYYY-MM-DD HH:MM:SS(.frac)]" anywhere in [from, to): nanoseconds since
 * the epoch, read as UTC (only differences are used; digits past the
 * ninth are dropped); -1 without one. */
static gint64 find_timestamp(const char *from, const char *to)
{
  for (const char *c = from; c + 21 <= to; c++) {
    /* "[YYYY-MM-DD HH:MM:SS": digits where the pattern has '9' */
    static const char pat[] = "[9999-99-99 99:99:99";
    int y, mo, d, h, mi, s;
    gint64 frac = 0, scale = 100000000;
    const char *f;
    gboolean match = TRUE;

    for (int k = 0; pat[k] && match; k++)
      match = pat[k] == '9' ? g_ascii_isdigit(c[k]) : c[k] == pat[k];
    if (!match)
      continue;
#define NUM2(at) ((c[at] - '0') * 10 + (c[(at) + 1] - '0'))
    y = NUM2(1) * 100 + NUM2(3);
    mo = NUM2(6);
    d = NUM2(9);
    h = NUM2(12);
    mi = NUM2(15);
    s = NUM2(18);
#undef NUM2
    if (y < 1970 || y > 2200) /* keeps nanoseconds inside 63 bits */
      continue;
    f = c + 20;
    if (*f == '.' || *f == ',')
      for (f++; f < to && g_ascii_isdigit(*f); f++, scale /= 10)
        frac += (*f - '0') * scale;
    if (f >= to || *f != ']')
      continue;
    {
      g_autoptr(GDateTime) t = g_date_time_new_utc(y, mo, d, h, mi, s);

      if (!t)
        continue;
      return g_date_time_to_unix(t) * 1000000000 + frac;
    }
  }
  return -1;
}

typedef struct {
  char *host;
  guint64 pid;
  gint32 dev;
  gint64 launcher_rank;
  gint64 ts;
  const char *msg; /* after "NCCL INFO " */
} Head;

/* Splits "…host:pid:tid [dev] NCCL INFO msg"; FALSE for another line. */
static gboolean split_head(const char *text, Head *h)
{
  const char *info = strstr(text, " NCCL INFO ");
  const char *b, *tok, *c;
  gint64 pid, tid, dev;

  if (!info)
    return FALSE;
  h->msg = info + strlen(" NCCL INFO ");
  /* "[dev]" right before */
  b = info;
  if (b - text < 4 || b[-1] != ']') /* room for "h [0]" */
    return FALSE;
  for (c = b - 2; c > text && g_ascii_isdigit(*c); c--)
    ;
  if (*c != '[' || c == b - 2 || c == text || c[-1] != ' ')
    return FALSE;
  {
    const char *q = c + 1;

    if (!take_int(&q, &dev) || dev > G_MAXINT32)
      return FALSE;
  }
  /* "host:pid:tid" before the space */
  b = c - 1;
  for (tok = b; tok > text && tok[-1] != ' ' && tok[-1] != '\t'; tok--)
    ;
  {
    /* from the right: tid, pid, then the host after the last ':' or ']' */
    const char *p2 = b, *p1, *hs;

    while (p2 > tok && p2[-1] != ':')
      p2--;
    if (p2 == tok)
      return FALSE;
    p1 = p2 - 1;
    while (p1 > tok && p1[-1] != ':')
      p1--;
    if (p1 == tok)
      return FALSE;
    {
      const char *q = p2;

      if (!take_int(&q, &tid) || q != b || tid < 0)
        return FALSE;
      q = p1;
      if (!take_int(&q, &pid) || q != p2 - 1 || pid < 0)
        return FALSE;
    }
    for (hs = p1 - 1; hs > tok && hs[-1] != ':' && hs[-1] != ']'; hs--)
      ;
    if (hs == p1 - 1)
      return FALSE;
    h->host = g_strndup(hs, (gsize)(p1 - 1 - hs));
    h->pid = (guint64)pid;
    h->dev = (gint32)dev;
    h->launcher_rank = -1;
    {
      const char *r = strstr(text, "[rank");

      if (r && r < hs) {
        gint64 v;

        r += 5;
        if (take_int(&r, &v) && v >= 0 && *r == ']')
          h->launcher_rank = v;
      }
    }
    h->ts = find_timestamp(text, tok);
  }
  return TRUE;
}

static guint32 dev_index(Log *g, const Head *h, guint32 file, guint32 line)
{
  g_autofree char *key =
      g_strdup_printf("%s:%" G_GUINT64_FORMAT ":%d", h->host, h->pid, h->dev);
  gpointer v = g_hash_table_lookup(g->dev_of, key);
  Dev d = {0};

  if (v) {
    Dev *x = &g_array_index(g->devs, Dev, GPOINTER_TO_UINT(v) - 1);

    if (x->launcher_rank < 0)
      x->launcher_rank = h->launcher_rank;
    return GPOINTER_TO_UINT(v) - 1;
  }
  d.host = g_strdup(h->host);
  d.pid = h->pid;
  d.cuda_dev = h->dev;
  d.launcher_rank = h->launcher_rank;
  d.file = file;
  d.line = line;
  g_array_append_val(g->devs, d);
  g_hash_table_insert(g->dev_of, g_steal_pointer(&key),
                      GUINT_TO_POINTER(g->devs->len));
  return g->devs->len - 1;
}

/* The local communicator of (process of dev, ptr), made when new. */
static guint32 lcomm_index(Log *g, guint32 dev, const char *ptr, guint32 file,
                           guint32 line, gboolean *made)
{
  const Dev *d = &g_array_index(g->devs, Dev, dev);
  g_autofree char *key =
      g_strdup_printf("%s:%" G_GUINT64_FORMAT ":%s", d->host, d->pid, ptr);
  gpointer v = g_hash_table_lookup(g->lcomm_of, key);
  LComm c = {0};

  *made = v == NULL;
  if (v)
    return GPOINTER_TO_UINT(v) - 1;
  c.dev = dev;
  c.ptr = g_strdup(ptr);
  c.rank = -1;
  c.split_count = -1;
  c.file = file;
  c.line = line;
  c.gcomm = -1;
  g_array_append_val(g->lcomms, c);
  g_hash_table_insert(g->lcomm_of, g_steal_pointer(&key),
                      GUINT_TO_POINTER(g->lcomms->len));
  return g->lcomms->len - 1;
}

static const struct {
  const char *name;
  CallKind kind;
  NcclColl coll;
} call_names[] = {
    {"AllReduce", K_COLL, NCCL_COLL_ALLREDUCE},
    {"AllGather", K_COLL, NCCL_COLL_ALLGATHER},
    {"ReduceScatter", K_COLL, NCCL_COLL_REDUCESCATTER},
    {"Broadcast", K_COLL, NCCL_COLL_BROADCAST},
    {"Reduce", K_COLL, NCCL_COLL_REDUCE},
    {"AlltoAll", K_COLL, NCCL_COLL_ALLTOALL},
    {"Send", K_SEND, NCCL_COLL_SENDRECV},
    {"Recv", K_RECV, NCCL_COLL_SENDRECV},
};

/* A call line's message, "Name: opCount ..."; FALSE with the error when
 * it is one but malformed; *is set when the message is a call line. */
static gboolean read_call(Log *g, const Head *h, guint32 file, guint32 line,
                          gboolean *is, GError **error)
{
  const char *p = h->msg, *colon;
  g_autofree char *name = NULL, *ptr = NULL;
  gint64 count, dtype, op, root, nranks;
  guint64 opcount;
  Call c = {0};
  gsize k;
  gboolean made;

  *is = FALSE;
  if (*p == '[') { /* an "[N] " index some releases and wrappers print */
    const char *q = p + 1;
    gint64 v;

    if (take_int(&q, &v) && take(&q, "] "))
      p = q;
  }
  colon = strstr(p, ": opCount ");
  if (!colon)
    return TRUE;
  for (const char *c2 = p; c2 < colon; c2++)
    if (!g_ascii_isalnum(*c2))
      return TRUE; /* "…: opCount" inside another message */
  *is = TRUE;
  name = g_strndup(p, (gsize)(colon - p));
  for (k = 0; k < G_N_ELEMENTS(call_names); k++)
    if (g_str_equal(name, call_names[k].name))
      break;
  if (k == G_N_ELEMENTS(call_names))
    return fail_at(error, g, file, line,
                   "call '%s': not a collective ifsim replays (expected "
                   "AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, "
                   "AlltoAll, Send or Recv)",
                   name);
  p = colon + strlen(": opCount ");
  {
    g_autofree char *sb = NULL, *rb = NULL, *st = NULL;

    if (!take_hex(&p, &opcount) || !take(&p, " sendbuff ") ||
        !(sb = take_word(&p)) || !take(&p, " recvbuff ") ||
        !(rb = take_word(&p)) || !take(&p, " count ") ||
        !take_int(&p, &count) || !take(&p, " datatype ") ||
        !take_int(&p, &dtype) || !take(&p, " op ") || !take_int(&p, &op) ||
        !take(&p, " root ") || !take_int(&p, &root) || !take(&p, " comm ") ||
        !(ptr = take_word(&p)) || !take(&p, " [nranks=") ||
        !take_int(&p, &nranks) || !take(&p, "] stream ") ||
        !(st = take_word(&p)))
      return fail_at(error, g, file, line,
                     "%s line cut short or malformed at '%.40s' (expected "
                     "'%s: opCount X sendbuff P recvbuff P count N datatype "
                     "D op O root R comm P [nranks=N] stream P', NCCL's "
                     "enqueue.cc; a truncated log?)",
                     name, p, name);
  }
  if (count < 0 || dtype < 0 || dtype >= (gint64)G_N_ELEMENTS(dtype_bytes) ||
      nranks < 1 || nranks > TRC_MAX_RANKS || root < 0 || root >= nranks)
    return fail_at(error, g, file, line,
                   "%s: count %" G_GINT64_FORMAT ", datatype %" G_GINT64_FORMAT
                   ", root %" G_GINT64_FORMAT ", nranks %" G_GINT64_FORMAT
                   ": expected a count >= 0, a datatype in [0, %u] "
                   "(ncclDataType_t), 1 to %u ranks and a root among them",
                   name, count, dtype, root, nranks,
                   (guint)G_N_ELEMENTS(dtype_bytes) - 1, TRC_MAX_RANKS);
  c.dev = dev_index(g, h, file, line);
  c.lcomm = lcomm_index(g, c.dev, ptr, file, line, &made);
  {
    LComm *lc = &g_array_index(g->lcomms, LComm, c.lcomm);

    if (made)
      lc->nranks = (guint32)nranks;
    else if (lc->nranks != (guint32)nranks)
      return fail_at(error, g, file, line,
                     "comm %s has %" G_GINT64_FORMAT " ranks here, %u at "
                     "%s:%u",
                     ptr, nranks, lc->nranks, g->names[lc->file], lc->line);
  }
  c.kind = call_names[k].kind;
  c.coll = call_names[k].coll;
  c.count = (guint64)count;
  c.opcount = opcount;
  c.dtype = (gint32)dtype;
  c.root = (gint32)root;
  c.file = file;
  c.line = line;
  c.ts = h->ts;
  {
    /* nccl-tests sizes: the whole array */
    guint64 elems = (guint64)count;
    gboolean whole = c.coll == NCCL_COLL_ALLGATHER ||
                     c.coll == NCCL_COLL_REDUCESCATTER ||
                     c.coll == NCCL_COLL_ALLTOALL;

    if (whole && elems > G_MAXUINT64 / (guint64)nranks)
      elems = G_MAXUINT64;
    else if (whole)
      elems *= (guint64)nranks;
    c.bytes =
        elems > TRC_MAX_BYTES ? TRC_MAX_BYTES + 1 : elems * dtype_bytes[dtype];
    if (c.bytes > TRC_MAX_BYTES)
      return fail_at(error, g, file, line,
                     "%s of %" G_GINT64_FORMAT " elements: above 2^50 bytes "
                     "(1 PiB); no call of a job moves that much",
                     name, count);
  }
  if (h->ts >= 0)
    g->any_ts = TRUE;
  else
    g->missing_ts = TRUE;
  g_array_append_val(g->calls, c);
  return TRUE;
}

/* A communicator line: "[func ]comm P rank R nranks|nRanks N ...". */
static gboolean read_comm_line(Log *g, const Head *h, guint32 file,
                               guint32 line, GError **error)
{
  const char *p = strstr(h->msg, "comm 0x");
  g_autofree char *ptr = NULL;
  gint64 rank, nranks;
  guint32 li;
  gboolean made;
  LComm *lc;

  if (!p || (p != h->msg && p[-1] != ' '))
    return TRUE;
  if (strstr(h->msg, "Destroy COMPLETE") || strstr(h->msg, "Abort COMPLETE"))
    return TRUE;
  p += 5;
  ptr = take_word(&p);
  if (!ptr || !take(&p, " rank ") || !take_int(&p, &rank) ||
      !(take(&p, " nranks ") || take(&p, " nRanks ")))
    return TRUE; /* another message naming a comm */
  if (!take_int(&p, &nranks) || nranks < 1 || nranks > TRC_MAX_RANKS ||
      rank < 0 || rank >= nranks)
    return fail_at(error, g, file, line,
                   "communicator %s: rank %" G_GINT64_FORMAT " of '%.20s': "
                   "expected a rank below a count of 1 to %u ranks",
                   ptr, rank, p, TRC_MAX_RANKS);
  li = lcomm_index(g, dev_index(g, h, file, line), ptr, file, line, &made);
  lc = &g_array_index(g->lcomms, LComm, li);
  if ((!made && lc->nranks != 0 && lc->nranks != (guint32)nranks) ||
      (lc->rank >= 0 && lc->rank != rank))
    return fail_at(error, g, file, line,
                   "communicator %s is rank %" G_GINT64_FORMAT
                   " of %" G_GINT64_FORMAT " here, rank %d of %u at %s:%u",
                   ptr, rank, nranks, lc->rank, lc->nranks, g->names[lc->file],
                   lc->line);
  lc->rank = (gint32)rank;
  lc->nranks = (guint32)nranks;
  {
    const char *id = strstr(p, " commId 0x");
    const char *par = strstr(p, " parent ");

    if (id) {
      id += strlen(" commId 0x");
      if (!take_hex(&id, &lc->id))
        return fail_at(error, g, file, line,
                       "communicator %s: commId is not hexadecimal", ptr);
      lc->has_id = TRUE;
    } else if (par) {
      gint64 sc, color;

      par += strlen(" parent ");
      g_free(lc->parent);
      lc->parent = take_word(&par);
      if (!lc->parent || !take(&par, " splitCount ") || !take_int(&par, &sc) ||
          !take(&par, " color ") || !take_int(&par, &color))
        return fail_at(error, g, file, line,
                       "communicator %s: expected 'parent P splitCount N "
                       "color C' (ncclCommSplit's line)",
                       ptr);
      lc->split_count = sc;
      lc->color = color;
    }
  }
  return TRUE;
}

static gboolean read_text(Log *g, guint32 file, const char *data, gsize len,
                          GError **error)
{
  const char *at = data, *end = data + len;
  guint32 line = 0, nccl = 0;

  while (at < end) {
    const char *nl = memchr(at, '\n', (size_t)(end - at));
    const char *stop = nl ? nl : end;
    gboolean nul = memchr(at, '\0', (size_t)(stop - at)) != NULL;
    g_autofree char *text = g_strndup(at, (gsize)(stop - at));
    Head h = {0};
    gboolean is;

    line++;
    at = stop + (nl != NULL);
    if (nul)
      return fail_at(error, g, file, line, "a NUL byte: expected a text log");
    g_strchomp(text);
    if (!split_head(text, &h))
      continue;
    nccl++;
    if (!read_call(g, &h, file, line, &is, error) ||
        (!is && !read_comm_line(g, &h, file, line, error))) {
      g_free(h.host);
      return FALSE;
    }
    g_free(h.host);
  }
  if (nccl == 0) {
    g_set_error(error, TRC_ERROR, TRC_ERROR_PARSE,
                "%s: no 'NCCL INFO' line in its %u lines: not an NCCL log "
                "(record with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL)",
                g->names[file], line);
    return FALSE;
  }
  return TRUE;
}

/* --- communicators across processes -------------------------------------- */

static gint64 find_parent(Log *g, const LComm *c)
{
  const Dev *d = &g_array_index(g->devs, Dev, c->dev);
  g_autofree char *key = g_strdup_printf("%s:%" G_GUINT64_FORMAT ":%s", d->host,
                                         d->pid, c->parent);
  gpointer v = g_hash_table_lookup(g->lcomm_of, key);

  return v ? (gint64)GPOINTER_TO_UINT(v) - 1 : -1;
}

/* The global key of local communicator i (its parents' first). */
static gboolean lcomm_key(Log *g, guint32 i, guint32 depth, char **key,
                          GError **error)
{
  LComm *c = &g_array_index(g->lcomms, LComm, i);

  if (c->has_id) {
    *key = g_strdup_printf("id:%" G_GINT64_MODIFIER "x", c->id);
    return TRUE;
  }
  if (c->parent) {
    gint64 p = find_parent(g, c);
    g_autofree char *pk = NULL;

    if (p < 0 || depth > 64)
      return fail_at(error, g, c->file, c->line,
                     "communicator %s is split from %s, which no line of "
                     "this process describes (record with "
                     "NCCL_DEBUG_SUBSYS=INIT,COLL from the job's start)",
                     c->ptr, c->parent);
    if (!lcomm_key(g, (guint32)p, depth + 1, &pk, error))
      return FALSE;
    if (!pk)
      return fail_at(error, g, c->file, c->line,
                     "communicator %s is split from %s, which no "
                     "communicator line of this process describes (record "
                     "with NCCL_DEBUG_SUBSYS=INIT,COLL from the job's start)",
                     c->ptr, c->parent);
    *key = g_strdup_printf("split:%s:%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT,
                           pk, c->split_count, c->color);
    return TRUE;
  }
  *key = NULL; /* anonymous: numbered later */
  return TRUE;
}

static guint32 gcomm_for(Log *g, char *key, guint32 nranks)
{
  gpointer v = g_hash_table_lookup(g->gcomm_of, key);
  GComm c = {0};

  if (v) {
    g_free(key);
    return GPOINTER_TO_UINT(v) - 1;
  }
  c.key = key;
  c.nranks = nranks;
  c.member = g_new(gint64, nranks);
  c.lcomm = g_new0(guint32, nranks);
  c.trc = G_MAXUINT32;
  for (guint32 r = 0; r < nranks; r++)
    c.member[r] = -1;
  g_array_append_val(g->gcomms, c);
  g_hash_table_insert(g->gcomm_of, key, GUINT_TO_POINTER(g->gcomms->len));
  return g->gcomms->len - 1;
}

static gboolean resolve_comms(Log *g, GError **error)
{
  g_autoptr(GHashTable) ordinal =
      g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  gboolean inferred = FALSE;

  for (guint32 i = 0; i < g->lcomms->len; i++) {
    LComm *c = &g_array_index(g->lcomms, LComm, i);
    char *key;
    GComm *gc;

    if (!lcomm_key(g, i, 0, &key, error))
      return FALSE;
    if (!key) {
      /* the device's k-th anonymous communicator of n ranks */
      g_autofree char *ok = g_strdup_printf("%u:%u", c->dev, c->nranks);
      guint k = GPOINTER_TO_UINT(g_hash_table_lookup(ordinal, ok));

      g_hash_table_insert(ordinal, g_steal_pointer(&ok),
                          GUINT_TO_POINTER(k + 1));
      key = g_strdup_printf("anon:%u:%u", c->nranks, k);
    }
    c->gcomm = gcomm_for(g, key, c->nranks);
    gc = &g_array_index(g->gcomms, GComm, c->gcomm);
    if (gc->nranks != c->nranks)
      return fail_at(error, g, c->file, c->line,
                     "communicator %s has %u ranks; another process's "
                     "copy of it has %u",
                     c->ptr, c->nranks, gc->nranks);
    if (c->rank < 0)
      continue;
    if (gc->member[c->rank] >= 0 && gc->member[c->rank] != c->dev) {
      const Dev *o = &g_array_index(g->devs, Dev, gc->member[c->rank]);

      return fail_at(
          error, g, c->file, c->line,
          "communicator %s: rank %d is also %s pid %" G_GUINT64_FORMAT
          " device %d's (the log mixes two jobs, or a communicator's "
          "lines are missing)",
          c->ptr, c->rank, o->host, o->pid, o->cuda_dev);
    }
    gc->member[c->rank] = c->dev;
    gc->lcomm[c->rank] = i;
  }
  /* ranks no line gave: the free ranks, in device order */
  for (guint32 i = 0; i < g->lcomms->len; i++) {
    LComm *c = &g_array_index(g->lcomms, LComm, i);
    GComm *gc = &g_array_index(g->gcomms, GComm, c->gcomm);
    guint32 r;

    if (c->rank >= 0)
      continue;
    for (r = 0; r < gc->nranks && gc->member[r] >= 0; r++)
      ;
    if (r == gc->nranks)
      return fail_at(error, g, c->file, c->line,
                     "communicator %s: more devices call it than its %u "
                     "ranks (the log mixes two jobs?)",
                     c->ptr, gc->nranks);
    c->rank = (gint32)r;
    gc->member[r] = c->dev;
    gc->lcomm[r] = i;
    inferred = TRUE;
  }
  for (guint32 k = 0; k < g->gcomms->len; k++) {
    const GComm *gc = &g_array_index(g->gcomms, GComm, k);

    for (guint32 r = 0; r < gc->nranks; r++) {
      if (gc->member[r] < 0) {
        guint32 have = 0, li = 0;

        for (guint32 q = 0; q < gc->nranks; q++)
          if (gc->member[q] >= 0) {
            have++;
            li = gc->lcomm[q];
          }
        {
          const LComm *c = &g_array_index(g->lcomms, LComm, li);

          g_set_error(error, TRC_ERROR, TRC_ERROR_VALUE,
                      "%s:%u: communicator %s has %u ranks; the log holds "
                      "%u of them (rank %u is missing): give every rank's "
                      "log (NCCL_DEBUG_FILE writes one per process)",
                      g->names[c->file], c->line, c->ptr, gc->nranks, have, r);
        }
        return FALSE;
      }
    }
  }
  if (inferred)
    g_string_append(g->notes,
                    "no communicator line gave some devices' ranks: they "
                    "were numbered in the order the devices appear (record "
                    "with NCCL_DEBUG_SUBSYS=INIT,COLL to read them)\n");
  return TRUE;
}

/* The job's rank of each device: its rank in the communicator over every
 * device, else the launcher's "[rankN]" prefix, else the order of
 * appearance. */
static void number_devices(Log *g)
{
  guint32 n = g->devs->len;

  for (guint32 k = 0; k < g->gcomms->len; k++) {
    const GComm *gc = &g_array_index(g->gcomms, GComm, k);

    if (gc->nranks == n) {
      for (guint32 r = 0; r < n; r++)
        g_array_index(g->devs, Dev, gc->member[r]).job_rank = r;
      return;
    }
  }
  {
    gboolean launcher = TRUE;
    g_autofree guint8 *seen = g_new0(guint8, n);

    for (guint32 d = 0; d < n && launcher; d++) {
      gint64 r = g_array_index(g->devs, Dev, d).launcher_rank;

      launcher = r >= 0 && r < n && !seen[r];
      if (launcher)
        seen[r] = 1;
    }
    for (guint32 d = 0; d < n; d++) {
      Dev *x = &g_array_index(g->devs, Dev, d);

      x->job_rank = launcher ? (guint32)x->launcher_rank : d;
    }
    g_string_append_printf(g->notes,
                           "no communicator spans all %u devices: the job's "
                           "ranks are %s\n",
                           n,
                           launcher ? "the launcher's [rankN] prefixes"
                                    : "the devices in order of appearance");
  }
}

/* Ranks per server when every host holds k devices whose ranks are one
 * block of k; 0 (the ranks fill servers in order) otherwise. */
static guint32 ranks_per_host(Log *g)
{
  guint32 n = g->devs->len, k = 0;
  g_autoptr(GHashTable) count =
      g_hash_table_new(g_str_hash, g_str_equal); /* host -> devices */
  g_autoptr(GHashTable) block = g_hash_table_new(g_str_hash, g_str_equal);
  GHashTableIter it;
  gpointer v;

  for (guint32 d = 0; d < n; d++) {
    const Dev *x = &g_array_index(g->devs, Dev, d);

    g_hash_table_insert(
        count, x->host,
        GUINT_TO_POINTER(GPOINTER_TO_UINT(g_hash_table_lookup(count, x->host)) +
                         1));
  }
  g_hash_table_iter_init(&it, count);
  while (g_hash_table_iter_next(&it, NULL, &v)) {
    if (k != 0 && GPOINTER_TO_UINT(v) != k)
      return 0;
    k = GPOINTER_TO_UINT(v);
  }
  for (guint32 d = 0; d < n; d++) {
    const Dev *x = &g_array_index(g->devs, Dev, d);
    gpointer b;

    if (g_hash_table_lookup_extended(block, x->host, NULL, &b)) {
      if (GPOINTER_TO_UINT(b) != x->job_rank / k)
        return 0;
    } else {
      g_hash_table_insert(block, x->host, GUINT_TO_POINTER(x->job_rank / k));
    }
  }
  return k;
}

/* --- the workload ------------------------------------------------------- */

/* One device's calls that run together: a collective alone, consecutive
 * Send/Recv on one communicator (a group). */
typedef struct {
  guint32 dev;
  guint32 first, n; /* calls: dev_calls[dev][first .. first + n) */
  gboolean p2p;
  GArray *inst; /* guint32: the instances it takes part in */
  guint32 left; /* of them, not yet emitted */
} Event;

typedef struct {
  NcclColl coll;
  guint64 bytes;
  guint32 comm;    /* the workload's communicator */
  guint32 waiting; /* its events not yet at their device's head */
  guint32 call;    /* one of its calls, for messages */
  guint32 *devs;   /* the devices it runs on */
  guint32 n_devs;
  guint32 op;
} Inst;

typedef struct {
  Log *g;
  GArray **dev_calls; /* [devs]: guint32 call indices, in the log's order */
  GArray *events;     /* Event */
  GArray *inst;       /* Inst */
  GArray *comms;      /* TrcComm */
  GHashTable *pair;   /* "s-r" -> TrcComm index + 1 */
  GHashTable *solo;   /* rank + 1 -> TrcComm index + 1 */
} Build;

static Call *call_at(const Build *b, guint32 i)
{
  return &g_array_index(b->g->calls, Call, i);
}

static const LComm *lcomm_of_call(const Build *b, const Call *c)
{
  return &g_array_index(b->g->lcomms, LComm, c->lcomm);
}

static GComm *gcomm_of_call(const Build *b, const Call *c)
{
  return &g_array_index(b->g->gcomms, GComm, lcomm_of_call(b, c)->gcomm);
}

static guint32 job_rank(const Build *b, guint32 dev)
{
  return g_array_index(b->g->devs, Dev, dev).job_rank;
}

static guint32 new_comm(Build *b, char *name, guint32 n)
{
  TrcComm c = {.name = name, .n = n, .ranks = g_new(guint32, n)};

  g_array_append_val(b->comms, c);
  return b->comms->len - 1;
}

static guint32 comm_of_gcomm(Build *b, GComm *gc)
{
  if (gc->trc == G_MAXUINT32) {
    gc->trc = new_comm(b, g_strdup_printf("c%u", b->comms->len), gc->nranks);
    for (guint32 r = 0; r < gc->nranks; r++)
      g_array_index(b->comms, TrcComm, gc->trc).ranks[r] =
          job_rank(b, (guint32)gc->member[r]);
  }
  return gc->trc;
}

/* A communicator of job ranks (s, r), or of s alone when r is s. */
static guint32 comm_of_ranks(Build *b, guint32 s, guint32 r)
{
  GHashTable *h = s == r ? b->solo : b->pair;
  g_autofree char *key = g_strdup_printf("%u-%u", s, r);
  gpointer v = g_hash_table_lookup(h, key);
  guint32 c;

  if (v)
    return GPOINTER_TO_UINT(v) - 1;
  c = s == r ? new_comm(b, g_strdup_printf("r%u", s), 1)
             : new_comm(b, g_strdup_printf("p%u-%u", s, r), 2);
  g_array_index(b->comms, TrcComm, c).ranks[0] = s;
  if (s != r)
    g_array_index(b->comms, TrcComm, c).ranks[1] = r;
  g_hash_table_insert(h, g_steal_pointer(&key), GUINT_TO_POINTER(c + 1));
  return c;
}

static const char *call_name(const Call *c)
{
  for (gsize k = 0; k < G_N_ELEMENTS(call_names); k++)
    if (call_names[k].kind == c->kind &&
        (c->kind != K_COLL || call_names[k].coll == c->coll))
      return call_names[k].name;
  return "?";
}

static guint32 add_inst(Build *b, NcclColl coll, guint64 bytes, guint32 comm,
                        guint32 call, guint32 n_devs)
{
  Inst x = {.coll = coll,
            .bytes = bytes,
            .comm = comm,
            .waiting = n_devs,
            .call = call,
            .devs = g_new(guint32, n_devs),
            .n_devs = 0};

  g_array_append_val(b->inst, x);
  return b->inst->len - 1;
}

/* Each device's calls (count 0 and sends to self left out), then its
 * events. */
static void make_events(Build *b)
{
  Log *g = b->g;

  b->dev_calls = g_new(GArray *, g->devs->len);
  for (guint32 d = 0; d < g->devs->len; d++)
    b->dev_calls[d] = g_array_new(FALSE, FALSE, sizeof(guint32));
  for (guint32 i = 0; i < g->calls->len; i++) {
    Call *c = call_at(b, i);

    if (c->count == 0) {
      g->skipped_zero++;
      continue;
    }
    if (c->kind != K_COLL && c->root == lcomm_of_call(b, c)->rank) {
      g->skipped_self++;
      continue;
    }
    g_array_append_val(b->dev_calls[c->dev], i);
  }
  for (guint32 d = 0; d < g->devs->len; d++) {
    GArray *dc = b->dev_calls[d];

    for (guint32 k = 0; k < dc->len; k++) {
      Call *c = call_at(b, g_array_index(dc, guint32, k));
      Event *last = b->events->len
                        ? &g_array_index(b->events, Event, b->events->len - 1)
                        : NULL;

      const Call *prev =
          k > 0 ? call_at(b, g_array_index(dc, guint32, k - 1)) : NULL;

      if (c->kind != K_COLL && last && last->dev == d && last->p2p &&
          prev->lcomm == c->lcomm && prev->opcount == c->opcount) {
        last->n++;
      } else {
        Event e = {.dev = d,
                   .first = k,
                   .n = 1,
                   .p2p = c->kind != K_COLL,
                   .inst = g_array_new(FALSE, FALSE, sizeof(guint32))};

        g_array_append_val(b->events, e);
      }
      c->ev = b->events->len - 1;
    }
  }
}

static void event_add_inst(Build *b, guint32 ev, guint32 inst)
{
  Event *e = &g_array_index(b->events, Event, ev);
  Inst *x = &g_array_index(b->inst, Inst, inst);

  for (guint32 k = 0; k < e->inst->len; k++)
    if (g_array_index(e->inst, guint32, k) == inst)
      return;
  g_array_append_val(e->inst, inst);
  x->devs[x->n_devs++] = e->dev;
}

/* A communicator's k-th collective on each rank is one collective. */
static gboolean match_collectives(Build *b, GError **error)
{
  Log *g = b->g;
  GArray **per;
  guint64 slots = 0;
  g_autofree guint64 *base = g_new0(guint64, g->gcomms->len + 1);
  gboolean ok = TRUE;

  /* calls of (communicator, rank), flattened */
  for (guint32 k = 0; k < g->gcomms->len; k++) {
    base[k] = slots;
    slots += g_array_index(g->gcomms, GComm, k).nranks;
  }
  base[g->gcomms->len] = slots;
  per = g_new0(GArray *, slots);
  for (guint64 s = 0; s < slots; s++)
    per[s] = g_array_new(FALSE, FALSE, sizeof(guint32));
  for (guint32 d = 0; d < g->devs->len; d++) {
    for (guint32 k = 0; k < b->dev_calls[d]->len; k++) {
      guint32 i = g_array_index(b->dev_calls[d], guint32, k);
      const Call *c = call_at(b, i);
      const LComm *lc = lcomm_of_call(b, c);

      if (c->kind == K_COLL)
        g_array_append_val(per[base[lc->gcomm] + (guint32)lc->rank], i);
    }
  }
  for (guint32 k = 0; k < g->gcomms->len && ok; k++) {
    GComm *gc = &g_array_index(g->gcomms, GComm, k);
    GArray *r0 = per[base[k]];

    for (guint32 r = 1; r < gc->nranks && ok; r++) {
      GArray *rr = per[base[k] + r];

      if (rr->len != r0->len) {
        const LComm *lc = &g_array_index(g->lcomms, LComm, gc->lcomm[r]);

        ok = fail_at(error, g, lc->file, lc->line,
                     "communicator %s: rank %u made %u collective calls on "
                     "it, rank 0 made %u: the ranks disagree (a truncated "
                     "log, or a rank's lines missing)",
                     lc->ptr, r, rr->len, r0->len);
      }
    }
    for (guint32 n = 0; n < r0->len && ok; n++) {
      const Call *a = call_at(b, g_array_index(r0, guint32, n));
      guint32 inst;

      for (guint32 r = 1; r < gc->nranks && ok; r++) {
        const Call *c = call_at(b, g_array_index(per[base[k] + r], guint32, n));

        if (c->coll != a->coll || c->count != a->count ||
            c->dtype != a->dtype ||
            ((c->coll == NCCL_COLL_BROADCAST || c->coll == NCCL_COLL_REDUCE) &&
             c->root != a->root))
          ok = fail_at(error, g, c->file, c->line,
                       "%s count %" G_GUINT64_FORMAT " datatype %d root %d is "
                       "call %u of rank %u on its communicator; rank 0's "
                       "call %u (%s:%u) is %s count %" G_GUINT64_FORMAT
                       " datatype %d root %d: the ranks disagree on a "
                       "collective",
                       call_name(c), c->count, c->dtype, c->root, n + 1, r,
                       n + 1, g->names[a->file], a->line, call_name(a),
                       a->count, a->dtype, a->root);
      }
      if (!ok)
        break;
      inst = add_inst(b, a->coll, a->bytes, comm_of_gcomm(b, gc),
                      g_array_index(r0, guint32, n), gc->nranks);
      for (guint32 r = 0; r < gc->nranks; r++) {
        Call *c = call_at(b, g_array_index(per[base[k] + r], guint32, n));

        c->inst = inst;
        event_add_inst(b, c->ev, inst);
      }
    }
  }
  for (guint64 s = 0; s < slots; s++)
    g_array_free(per[s], TRUE);
  g_free(per);
  return ok;
}

static guint32 find(guint32 *parent, guint32 x)
{
  while (parent[x] != x)
    x = parent[x] = parent[parent[x]];
  return x;
}

/* A group that is an AllToAll: every other rank of the communicator once
 * as a destination and once as a source; *sent is what it sends, *even
 * whether every send is one size. */
static gboolean event_is_alltoall(const Build *b, const Event *e, guint64 *sent,
                                  gboolean *even)
{
  GArray *dc = b->dev_calls[e->dev];
  const Call *c0 = call_at(b, g_array_index(dc, guint32, e->first));
  const GComm *gc = gcomm_of_call(b, c0);
  g_autofree guint8 *to = NULL, *from = NULL;

  if (gc->nranks < 3 || e->n != 2 * (gc->nranks - 1))
    return FALSE;
  to = g_new0(guint8, gc->nranks);
  from = g_new0(guint8, gc->nranks);
  for (guint32 k = 0; k < e->n; k++) {
    const Call *c = call_at(b, g_array_index(dc, guint32, e->first + k));
    guint8 *seen = c->kind == K_SEND ? to : from;

    if (seen[c->root])
      return FALSE;
    seen[c->root] = 1;
  }
  *sent = 0;
  *even = TRUE;
  for (guint32 k = 0; k < e->n; k++) {
    const Call *c = call_at(b, g_array_index(dc, guint32, e->first + k));

    if (c->kind == K_SEND)
      *sent += c->bytes;
    *even = *even && c->bytes == c0->bytes;
  }
  return TRUE;
}

/* A rank's i-th Send to a peer is the peer's i-th Recv from it; groups
 * whose sends form a whole AllToAll become one. */
static gboolean match_p2p(Build *b, GError **error)
{
  Log *g = b->g;
  g_autoptr(GHashTable) q = g_hash_table_new_full(
      g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_ptr_array_unref);
  g_autofree guint32 *parent = g_new(guint32, b->events->len);
  GHashTableIter it;
  gpointer key, val;

  for (guint32 e = 0; e < b->events->len; e++)
    parent[e] = e;
  /* sends and receives per (communicator, source, destination) */
  for (guint32 d = 0; d < g->devs->len; d++) {
    for (guint32 k = 0; k < b->dev_calls[d]->len; k++) {
      guint32 i = g_array_index(b->dev_calls[d], guint32, k);
      const Call *c = call_at(b, i);
      const LComm *lc = lcomm_of_call(b, c);
      char *kk;
      GPtrArray *pair;

      if (c->kind == K_COLL)
        continue;
      kk = g_strdup_printf("%" G_GINT64_FORMAT ":%d:%d", lc->gcomm,
                           c->kind == K_SEND ? lc->rank : c->root,
                           c->kind == K_SEND ? c->root : lc->rank);
      pair = g_hash_table_lookup(q, kk);
      if (!pair) {
        pair = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
        g_ptr_array_add(pair, g_array_new(FALSE, FALSE, sizeof(guint32)));
        g_ptr_array_add(pair, g_array_new(FALSE, FALSE, sizeof(guint32)));
        g_hash_table_insert(q, kk, pair);
      } else {
        g_free(kk);
      }
      g_array_append_val(g_ptr_array_index(pair, c->kind == K_RECV), i);
    }
  }
  g_hash_table_iter_init(&it, q);
  while (g_hash_table_iter_next(&it, &key, &val)) {
    GArray *s = g_ptr_array_index((GPtrArray *)val, 0);
    GArray *r = g_ptr_array_index((GPtrArray *)val, 1);

    for (guint32 k = 0; k < MIN(s->len, r->len); k++) {
      const Call *cs = call_at(b, g_array_index(s, guint32, k));
      const Call *cr = call_at(b, g_array_index(r, guint32, k));

      if (cs->bytes != cr->bytes)
        return fail_at(error, g, cr->file, cr->line,
                       "Recv of %" G_GUINT64_FORMAT " bytes from rank %d "
                       "matches a Send of %" G_GUINT64_FORMAT " bytes "
                       "(%s:%u): the ranks disagree",
                       cr->bytes, cr->root, cs->bytes, g->names[cs->file],
                       cs->line);
      parent[find(parent, cs->ev)] = find(parent, cr->ev);
    }
    if (s->len != r->len) {
      const Call *c = call_at(b, g_array_index(s->len > r->len ? s : r, guint32,
                                               MIN(s->len, r->len)));

      return fail_at(error, g, c->file, c->line,
                     "this %s has no matching %s on rank %d (%u sends, %u "
                     "receives between the two): a truncated log, or a "
                     "rank's lines missing",
                     call_name(c), c->kind == K_SEND ? "Recv" : "Send", c->root,
                     s->len, r->len);
    }
  }
  /* AllToAll: a component of n groups, one per rank, each whole */
  {
    g_autofree guint32 *size = g_new0(guint32, b->events->len);
    g_autofree guint8 *whole = g_new0(guint8, b->events->len);
    g_autofree gboolean *even = g_new0(gboolean, b->events->len);
    g_autofree guint64 *bytes = g_new0(guint64, b->events->len);
    g_autofree guint64 *total = g_new0(guint64, b->events->len);
    g_autofree guint32 *inst = g_new(guint32, b->events->len);

    for (guint32 e = 0; e < b->events->len; e++) {
      const Event *ev = &g_array_index(b->events, Event, e);
      guint32 root = find(parent, e);

      if (!ev->p2p)
        continue;
      size[root]++;
      inst[root] = G_MAXUINT32;
      whole[e] = event_is_alltoall(b, ev, &bytes[e], &even[e]);
    }
    /* a component is an AllToAll when each of its groups is whole; even
     * when every send has one size */
    for (guint32 e = 0; e < b->events->len; e++) {
      const Event *ev = &g_array_index(b->events, Event, e);
      guint32 root = find(parent, e);

      if (!ev->p2p)
        continue;
      total[root] += bytes[e];
      if (!whole[e])
        whole[root] = 0;
      if (!even[e] || bytes[e] != bytes[root])
        even[root] = FALSE;
    }
    for (guint32 e = 0; e < b->events->len; e++) {
      Event *ev = &g_array_index(b->events, Event, e);
      guint32 root = find(parent, e);
      GArray *dc = b->dev_calls[ev->dev];
      const Call *c0;
      GComm *gc;

      if (!ev->p2p)
        continue;
      c0 = call_at(b, g_array_index(dc, guint32, ev->first));
      gc = gcomm_of_call(b, c0);
      if (whole[root] && size[root] == gc->nranks) {
        if (inst[root] == G_MAXUINT32) {
          /* each rank's buffer: the mean send to a peer times the ranks
           * (exact when even; an uneven all_to_all taken as the even one
           * of the same total, said in the notes) */
          guint64 per_rank = total[root] / (gc->nranks - 1);

          if (!even[root])
            g->uneven_alltoall++;
          inst[root] = add_inst(
              b, NCCL_COLL_ALLTOALL, MAX(per_rank, 1), comm_of_gcomm(b, gc),
              g_array_index(dc, guint32, ev->first), gc->nranks);
        }
        for (guint32 k = 0; k < ev->n; k++)
          call_at(b, g_array_index(dc, guint32, ev->first + k))->inst =
              inst[root];
        event_add_inst(b, e, inst[root]);
        continue;
      }
      /* one SendRecv per matched pair, made at its Send */
      for (guint32 k = 0; k < ev->n; k++) {
        Call *c = call_at(b, g_array_index(dc, guint32, ev->first + k));

        if (c->kind == K_SEND) {
          guint32 src = job_rank(b, c->dev);
          guint32 dst = job_rank(b, (guint32)gc->member[c->root]);

          c->inst = add_inst(b, NCCL_COLL_SENDRECV, c->bytes,
                             comm_of_ranks(b, src, dst),
                             g_array_index(dc, guint32, ev->first + k), 2);
          event_add_inst(b, e, c->inst);
        }
      }
    }
    /* each Recv joins its Send's instance: the k-th of its pair's queue */
    g_hash_table_iter_init(&it, q);
    while (g_hash_table_iter_next(&it, &key, &val)) {
      GArray *s = g_ptr_array_index((GPtrArray *)val, 0);
      GArray *r = g_ptr_array_index((GPtrArray *)val, 1);

      for (guint32 k = 0; k < s->len; k++) {
        Call *cs = call_at(b, g_array_index(s, guint32, k));
        Call *cr = call_at(b, g_array_index(r, guint32, k));

        cr->inst = cs->inst;
        event_add_inst(b, cr->ev, cs->inst);
      }
    }
  }
  return TRUE;
}

/* The workload's ops, in an order every device's order agrees with. */
static gboolean emit(Build *b, const TrcNcclLogOptions *o, TrcWorkload *w,
                     GError **error)
{
  Log *g = b->g;
  guint32 nd = g->devs->len;
  g_autofree guint32 *head = g_new0(guint32, nd);  /* event index + 1 */
  g_autofree guint32 *evend = g_new0(guint32, nd); /* past its last */
  g_autofree guint32 *gaps = g_new0(guint32, nd);
  g_autofree guint32 *seq = g_new0(guint32, b->comms->len); /* per comm */
  g_autoptr(GArray) ops = g_array_new(FALSE, TRUE, sizeof(TrcOp));
  g_autoptr(GArray) ready = g_array_new(FALSE, FALSE, sizeof(TrcHeapItem));
  GArray **prev = g_new0(GArray *, nd);
  g_autoptr(GArray) deps = g_array_new(FALSE, FALSE, sizeof(guint32));
  guint32 done = 0;
  gboolean ok = TRUE;

  for (guint32 d = 0; d < nd; d++)
    prev[d] = g_array_new(FALSE, FALSE, sizeof(guint32));
  /* each device's events are consecutive in b->events */
  for (guint32 e = 0; e < b->events->len; e++) {
    const Event *ev = &g_array_index(b->events, Event, e);

    if (head[ev->dev] == 0)
      head[ev->dev] = e + 1;
    evend[ev->dev] = e + 1;
  }
  for (guint32 d = 0; d < nd; d++) {
    if (head[d] == 0) {
      done++;
      continue;
    }
    {
      Event *ev = &g_array_index(b->events, Event, head[d] - 1);

      ev->left = ev->inst->len;
      for (guint32 k = 0; k < ev->inst->len; k++) {
        guint32 i = g_array_index(ev->inst, guint32, k);

        if (--g_array_index(b->inst, Inst, i).waiting == 0)
          trc_heap_push(ready, g_array_index(b->inst, Inst, i).call, i);
      }
    }
  }
  while (ready->len > 0 && ok) {
    guint32 i = trc_heap_pop(ready);
    Inst *x = &g_array_index(b->inst, Inst, i);
    TrcOp op = {0};

    g_array_set_size(deps, 0);
    for (guint32 k = 0; k < x->n_devs; k++)
      for (guint32 m = 0; m < prev[x->devs[k]]->len; m++) {
        guint32 dep = g_array_index(prev[x->devs[k]], guint32, m);
        gboolean dup = FALSE;

        for (guint32 q = 0; q < deps->len && !dup; q++)
          dup = g_array_index(deps, guint32, q) == dep;
        if (!dup)
          g_array_append_val(deps, dep);
      }
    op.id = ops->len + 1;
    op.coll = x->coll;
    op.group = TRC_GROUP_COMM;
    op.comm = x->comm;
    op.bytes = x->bytes;
    op.stage = -1;
    op.line = call_at(b, x->call)->line;
    op.name = g_strdup_printf("%s.%s.%u", trc_coll_name(x->coll),
                              g_array_index(b->comms, TrcComm, x->comm).name,
                              seq[x->comm]++);
    op.n_deps = deps->len;
    op.deps = g_memdup2(deps->data, deps->len * sizeof(guint32));
    x->op = ops->len;
    g_array_append_val(ops, op);
    /* its devices' events: done when all their instances are */
    for (guint32 k = 0; k < x->n_devs; k++) {
      guint32 d = x->devs[k];
      Event *ev = &g_array_index(b->events, Event, head[d] - 1);

      if (--ev->left > 0)
        continue;
      g_array_set_size(prev[d], 0);
      for (guint32 m = 0; m < ev->inst->len; m++)
        g_array_append_val(
            prev[d],
            g_array_index(b->inst, Inst, g_array_index(ev->inst, guint32, m))
                .op);
      if (head[d] == evend[d]) {
        done++;
        continue;
      }
      head[d]++;
      {
        Event *nx = &g_array_index(b->events, Event, head[d] - 1);
        SimTime gap = o->gap_ps;

        if (o->timestamps) {
          const Call *a = call_at(b, g_array_index(b->dev_calls[d], guint32,
                                                   ev->first + ev->n - 1));
          const Call *z =
              call_at(b, g_array_index(b->dev_calls[d], guint32, nx->first));
          gint64 dt = z->ts - a->ts;

          gap = dt <= 0 ? 0
                : (guint64)dt > TRC_MAX_COMPUTE_PS / 1000
                    ? TRC_MAX_COMPUTE_PS + 1
                    : (SimTime)dt * 1000;
        }
        if (gap > TRC_MAX_COMPUTE_PS) {
          const Call *z =
              call_at(b, g_array_index(b->dev_calls[d], guint32, nx->first));

          ok = fail_at(error, g, z->file, z->line,
                       "the gap before this call is above 2^60 ps (13 "
                       "days): the timestamps are not one job's");
          break;
        }
        if (gap > 0) {
          TrcOp c = {0};
          guint32 r = job_rank(b, d);

          c.id = ops->len + 1;
          c.compute = TRUE;
          c.group = TRC_GROUP_COMM;
          c.comm = comm_of_ranks(b, r, r);
          c.compute_ps = gap;
          c.stage = -1;
          c.name = g_strdup_printf("gap.r%u.%u", r, gaps[d]++);
          c.n_deps = prev[d]->len;
          c.deps = g_memdup2(prev[d]->data, prev[d]->len * sizeof(guint32));
          g_array_set_size(prev[d], 0);
          g_array_append_val(prev[d], ops->len);
          g_array_append_val(ops, c);
        }
        nx->left = nx->inst->len;
        for (guint32 m = 0; m < nx->inst->len; m++) {
          guint32 j = g_array_index(nx->inst, guint32, m);

          if (--g_array_index(b->inst, Inst, j).waiting == 0)
            trc_heap_push(ready, g_array_index(b->inst, Inst, j).call, j);
        }
      }
    }
  }
  if (ok && done < nd) {
    /* a device waits at a call whose other ranks wait elsewhere */
    for (guint32 d = 0; d < nd && ok; d++) {
      if (head[d] == 0 || head[d] > evend[d])
        continue;
      {
        const Event *ev = &g_array_index(b->events, Event, head[d] - 1);

        if (ev->left == 0)
          continue;
        {
          const Call *c =
              call_at(b, g_array_index(b->dev_calls[d], guint32, ev->first));

          ok = fail_at(error, g, c->file, c->line,
                       "rank %u waits at this %s while the other ranks of "
                       "its communicator wait at other calls first: the "
                       "ranks issue the calls of two communicators in "
                       "opposite orders (ifsim runs a rank's calls in the "
                       "log's order)",
                       job_rank(b, d), call_name(c));
        }
      }
    }
  }
  w->n_ops = ops->len;
  w->ops = (TrcOp *)(void *)g_array_free(g_steal_pointer(&ops), FALSE);
  for (guint32 d = 0; d < nd; d++)
    g_array_free(prev[d], TRUE);
  g_free(prev);
  return ok;
}

static void log_clear(Log *g)
{
  for (guint32 d = 0; d < g->devs->len; d++)
    g_free(g_array_index(g->devs, Dev, d).host);
  for (guint32 i = 0; i < g->lcomms->len; i++) {
    g_free(g_array_index(g->lcomms, LComm, i).ptr);
    g_free(g_array_index(g->lcomms, LComm, i).parent);
  }
  for (guint32 k = 0; k < g->gcomms->len; k++) {
    g_free(g_array_index(g->gcomms, GComm, k).member);
    g_free(g_array_index(g->gcomms, GComm, k).lcomm);
  }
  g_array_free(g->devs, TRUE);
  g_array_free(g->lcomms, TRUE);
  g_array_free(g->calls, TRUE);
  g_array_free(g->gcomms, TRUE);
  g_hash_table_destroy(g->dev_of);
  g_hash_table_destroy(g->lcomm_of);
  g_hash_table_destroy(g->gcomm_of);
}

static void build_clear(Build *b)
{
  for (guint32 d = 0; b->dev_calls && d < b->g->devs->len; d++)
    g_array_free(b->dev_calls[d], TRUE);
  g_free(b->dev_calls);
  for (guint32 e = 0; e < b->events->len; e++)
    g_array_free(g_array_index(b->events, Event, e).inst, TRUE);
  g_array_free(b->events, TRUE);
  for (guint32 i = 0; i < b->inst->len; i++)
    g_free(g_array_index(b->inst, Inst, i).devs);
  g_array_free(b->inst, TRUE);
  g_hash_table_destroy(b->pair);
  g_hash_table_destroy(b->solo);
}

TrcWorkload *trc_workload_load_nccl_log_data(
    const char *const *texts, const gsize *lens, const char *const *names,
    guint n_files, const TrcNcclLogOptions *o, GString *notes, GError **error)
{
  Log g = {
      .names = names,
      .devs = g_array_new(FALSE, TRUE, sizeof(Dev)),
      .lcomms = g_array_new(FALSE, TRUE, sizeof(LComm)),
      .calls = g_array_new(FALSE, TRUE, sizeof(Call)),
      .gcomms = g_array_new(FALSE, TRUE, sizeof(GComm)),
      .dev_of = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
      .lcomm_of = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
      .gcomm_of = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
      .notes = notes ? notes : g_string_new(NULL)};
  Build b = {
      .g = &g,
      .events = g_array_new(FALSE, TRUE, sizeof(Event)),
      .inst = g_array_new(FALSE, TRUE, sizeof(Inst)),
      .comms = g_array_new(FALSE, TRUE, sizeof(TrcComm)),
      .pair = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
      .solo = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL)};
  g_autoptr(TrcWorkload) w = g_new0(TrcWorkload, 1);
  gboolean ok = TRUE;

  w->source = g_strdup(n_files == 1 ? names[0] : "NCCL logs");
  for (guint f = 0; f < n_files && ok; f++)
    ok = read_text(&g, f, texts[f], lens[f], error);
  if (ok && g.calls->len == 0) {
    g_set_error(error, TRC_ERROR, TRC_ERROR_PARSE,
                "%s%s: no NCCL call lines ('… NCCL INFO AllReduce: opCount "
                "…'): record the job with NCCL_DEBUG=INFO "
                "NCCL_DEBUG_SUBSYS=INIT,COLL",
                names[0], n_files > 1 ? " and the other logs" : "");
    ok = FALSE;
  }
  if (ok && o->timestamps && (!g.any_ts || g.missing_ts)) {
    for (guint32 i = 0; i < g.calls->len; i++) {
      const Call *c = &g_array_index(g.calls, Call, i);

      if (c->ts < 0) {
        ok = fail_at(error, &g, c->file, c->line,
                     "no timestamp on this call line, and the gaps are to "
                     "come from timestamps: record with "
                     "NCCL_DEBUG_TIMESTAMP_LEVELS=INFO "
                     "NCCL_DEBUG_TIMESTAMP_FORMAT='[%%F %%T.%%6f] '");
        break;
      }
    }
  }
  ok = ok && resolve_comms(&g, error);
  if (ok)
    number_devices(&g);
  if (ok) {
    make_events(&b);
    ok = match_collectives(&b, error) && match_p2p(&b, error) &&
         emit(&b, o, w, error);
  }
  if (ok && w->n_ops == 0) {
    g_set_error(error, TRC_ERROR, TRC_ERROR_VALUE,
                "%s: every call moves nothing (count 0 or to itself): no "
                "workload to replay",
                names[0]);
    ok = FALSE;
  }
  if (ok) {
    w->tp = w->pp = w->ep = 1;
    w->dp = g.devs->len;
    w->per_server = ranks_per_host(&g);
    if (w->per_server == 0)
      g_string_append(g.notes,
                      "the hosts hold unequal numbers of devices, or a "
                      "host's ranks are not one block: the ranks fill each "
                      "server's GPUs in turn\n");
    w->n_comms = b.comms->len;
    w->comms = (TrcComm *)(void *)g_array_free(b.comms, FALSE);
    b.comms = NULL;
    if (g.skipped_zero)
      g_string_append_printf(g.notes,
                             "%" G_GUINT64_FORMAT " calls of count 0 left "
                             "out (they move nothing)\n",
                             g.skipped_zero);
    if (g.skipped_self)
      g_string_append_printf(g.notes,
                             "%" G_GUINT64_FORMAT " Send/Recv to the rank "
                             "itself left out (a local copy, no fabric "
                             "traffic)\n",
                             g.skipped_self);
    if (g.uneven_alltoall)
      g_string_append_printf(
          g.notes,
          "%" G_GUINT64_FORMAT " all-to-all groups of unequal sizes run as "
          "AllToAlls of the same total, evenly split (ifsim's AllToAll has "
          "one size)\n",
          g.uneven_alltoall);
    if (!o->timestamps && o->gap_ps == 0)
      g_string_append(g.notes,
                      "the log does not say what ran between a rank's "
                      "calls: they run back to back (give a gap, or take "
                      "it from the lines' timestamps)\n");
    ok = trc_workload_validate(w, error);
  }
  if (b.comms) {
    for (guint32 c = 0; c < b.comms->len; c++) {
      g_free(g_array_index(b.comms, TrcComm, c).name);
      g_free(g_array_index(b.comms, TrcComm, c).ranks);
    }
    g_array_free(b.comms, TRUE);
  }
  build_clear(&b);
  log_clear(&g);
  if (!notes)
    g_string_free(g.notes, TRUE);
  return ok ? g_steal_pointer(&w) : NULL;
}

TrcWorkload *trc_workload_load_nccl_log(const char *const *paths, guint n_files,
                                        const TrcNcclLogOptions *o,
                                        GString *notes, GError **error)
{
  g_autofree char **texts = g_new0(char *, n_files);
  g_autofree gsize *lens = g_new0(gsize, n_files);
  TrcWorkload *w = NULL;

  if (trc_texts_read(paths, n_files, texts, lens, error)) {
    w = trc_workload_load_nccl_log_data((const char *const *)texts, lens, paths,
                                        n_files, o, notes, error);
    trc_texts_free(texts, n_files);
  }
  return w;
}
