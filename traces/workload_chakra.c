/* Chakra execution traces (MLCommons' et_def.proto, kept in
 * traces/chakra/), one `.et` file per rank, read as a workload
 * (docs/workload.md, "Replaying Chakra execution traces").
 *
 * A file is a sequence of messages, each after its length as a varint (the
 * framing of Chakra's protolib encodeMessage): one GlobalMetadata, then
 * Node messages.  What is read:
 * - GlobalMetadata's `version`: "0.0.4" (the schema with the version
 *   field, chakra a2b45c10) or empty (files written before it by the same
 *   schema); another is refused by name.  A `schema` attribute, when there,
 *   is the converter's ("1.0.1", "1.0.2-chakra.0.0.4"), said in the notes;
 * - every Node: its id, type, `data_deps` and `ctrl_deps` (both are waited
 *   for), `duration_micros`, and the attributes `comm_type`, `comm_size`
 *   (bytes), `pg_name`, `comm_src`, `comm_dst`, `comm_tag`;
 * - the rank of a file from its name, `NAME.RANK.et` (the convention of
 *   Chakra's converters and ASTRA-sim's `--workload-configuration`), else
 *   the files' order.
 *
 * How the nodes become ops:
 * - COMP_NODE with a duration: compute of that duration on its rank.
 *   Nodes of no duration and the other kinds (metadata, memory) carry
 *   their dependencies through and take no time.
 * - COMM_COLL_NODE: a collective of comm_size bytes (nccl-tests' size) of
 *   its comm_type over its process group: the ranks whose files hold
 *   collectives of that `pg_name` (without one: every rank).  A group's
 *   k-th collective on each of its ranks (in the file's dependency order,
 *   by id where the order leaves a choice) is one collective; they must
 *   agree.  GATHER and SCATTER, which ifsim does not replay, keep their
 *   duration_micros as compute (counted in the notes).
 * - COMM_SEND_NODE / COMM_RECV_NODE: a rank's i-th send to a peer with a
 *   tag matches the peer's i-th receive from it with that tag: one
 *   one-way SendRecv. */
#include "traces/error.h"
#include "traces/workload.h"

#include <string.h>

#include "traces/chakra/et_def.pb-c.h"
#include "sim/units.h"
#include "traces/tracegraph.h"

typedef ChakraProtoMsg__Node CNode;

typedef enum { N_PASS, N_COMP, N_COLL, N_SEND, N_RECV } NKind;

typedef struct {
  guint64 id;
  NKind kind;
  SimTime ps;
  NcclColl coll;
  guint64 bytes;
  char *pg;
  gint64 src, dst, tag;
  guint64 *deps; /* ids */
  guint32 n_deps;
  guint32 order;  /* position in the file's dependency order */
  guint32 gnode;  /* its node of the graph (N_COMP, N_COLL, N_SEND) */
  GArray *stands; /* guint32 graph nodes it stands for (N_PASS) */
} ENode;

typedef struct {
  char *name;
  guint32 rank;
  GArray *nodes;  /* ENode, in dependency order once sorted */
  GHashTable *at; /* id -> index + 1 */
} ERank;

/* The varint at data[*at], advancing; FALSE when cut or longer than 10
 * bytes. */
static gboolean varint(const guint8 *data, gsize len, gsize *at, guint64 *out)
{
  guint64 v = 0;

  for (guint shift = 0; shift < 64; shift += 7) {
    guint8 b;

    if (*at >= len)
      return FALSE;
    b = data[(*at)++];
    v |= (guint64)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *out = v;
      return TRUE;
    }
  }
  return FALSE;
}

/* The next message of the file, or FALSE at its end (*done) or on a cut
 * one (error). */
static gboolean next_message(const char *name, const guint8 *data, gsize len,
                             gsize *at, const guint8 **msg, gsize *mlen,
                             gboolean *done, GError **error)
{
  gsize start = *at;
  guint64 n;

  *done = *at >= len;
  if (*done)
    return FALSE;
  if (!varint(data, len, at, &n))
    return trc_file_error(error, name,
                          "byte %" G_GSIZE_FORMAT
                          ": a message's length cut short "
                          "(a truncated file?)",
                          start);
  if (n > len - *at)
    return trc_file_error(
        error, name,
        "byte %" G_GSIZE_FORMAT ": a message of %" G_GUINT64_FORMAT
        " bytes, %" G_GSIZE_FORMAT " left in the file (a truncated "
        "file?)",
        start, n, len - *at);
  *msg = data + *at;
  *mlen = (gsize)n;
  *at += (gsize)n;
  return TRUE;
}

static gboolean attr_int(const ChakraProtoMsg__AttributeProto *a, gint64 *out)
{
  switch (a->value_case) {
  case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL:
    *out = a->int32_val;
    return TRUE;
  case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL:
    *out = a->int64_val;
    return TRUE;
  case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT32_VAL:
    *out = a->uint32_val;
    return TRUE;
  case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL:
    if (a->uint64_val > G_MAXINT64)
      return FALSE;
    *out = (gint64)a->uint64_val;
    return TRUE;
  case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT32_VAL:
    *out = a->sint32_val;
    return TRUE;
  case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT64_VAL:
    *out = a->sint64_val;
    return TRUE;
  default: return FALSE;
  }
}

static const ChakraProtoMsg__AttributeProto *attr(const CNode *n,
                                                  const char *key)
{
  for (size_t i = 0; i < n->n_attr; i++)
    if (n->attr[i]->name && g_str_equal(n->attr[i]->name, key))
      return n->attr[i];
  return NULL;
}

/* comm_type (et_def.proto CollectiveCommType) to ifsim's; FALSE: not one
 * it replays (GATHER, SCATTER). */
static gboolean coll_of(gint64 t, NcclColl *out)
{
  switch (t) {
  case CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_REDUCE:
  case CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__BARRIER:
    *out = NCCL_COLL_ALLREDUCE;
    return TRUE;
  case CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__REDUCE:
    *out = NCCL_COLL_REDUCE;
    return TRUE;
  case CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_GATHER:
    *out = NCCL_COLL_ALLGATHER;
    return TRUE;
  case CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__BROADCAST:
    *out = NCCL_COLL_BROADCAST;
    return TRUE;
  case CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_TO_ALL:
    *out = NCCL_COLL_ALLTOALL;
    return TRUE;
  case CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__REDUCE_SCATTER:
  case CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__REDUCE_SCATTER_BLOCK:
    *out = NCCL_COLL_REDUCESCATTER;
    return TRUE;
  default: return FALSE;
  }
}

typedef struct {
  guint64 gather_scatter, zero_size, passed;
  char *schema; /* the first file's "schema" attribute, if any */
} Counts;

/* One node of the file into e; FALSE with the error. */
static gboolean read_node(const char *name, guint k, const CNode *n, ENode *e,
                          Counts *cnt, GError **error)
{
  const ChakraProtoMsg__AttributeProto *a;
  gint64 v;

  e->id = n->id;
  e->n_deps = (guint32)(n->n_data_deps + n->n_ctrl_deps);
  e->deps = g_new(guint64, MAX(e->n_deps, 1));
  if (n->n_data_deps > 0) /* (memcpy of NULL is undefined, even of 0) */
    memcpy(e->deps, n->data_deps, n->n_data_deps * sizeof(guint64));
  if (n->n_ctrl_deps > 0)
    memcpy(e->deps + n->n_data_deps, n->ctrl_deps,
           n->n_ctrl_deps * sizeof(guint64));
  if (n->duration_micros > TRC_MAX_COMPUTE_PS / SIM_PS_PER_US)
    return trc_file_error(error, name,
                          "node %u (id %" G_GUINT64_FORMAT
                          "): duration_micros %" G_GUINT64_FORMAT
                          ": above 2^60 ps (13 days)",
                          k, n->id, n->duration_micros);
  e->ps = n->duration_micros * SIM_PS_PER_US;
  e->kind = N_PASS;
  switch (n->type) {
  case CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE:
    e->kind = e->ps > 0 ? N_COMP : N_PASS;
    break;
  case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE:
    if (!(a = attr(n, "comm_type")) || !attr_int(a, &v))
      return trc_file_error(error, name,
                            "node %u (id %" G_GUINT64_FORMAT
                            ", a collective): no "
                            "integer comm_type attribute",
                            k, n->id);
    if (!coll_of(v, &e->coll)) {
      if (v < 0 || v > CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__BARRIER)
        return trc_file_error(
            error, name,
            "node %u (id %" G_GUINT64_FORMAT "): comm_type %" G_GINT64_FORMAT
            ": expected 0 to 9 (et_def.proto CollectiveCommType)",
            k, n->id, v);
      cnt->gather_scatter++;
      e->kind = e->ps > 0 ? N_COMP : N_PASS;
      break;
    }
    G_GNUC_FALLTHROUGH; /* its size and group, as a send's */
  case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE:
  case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE:
    if (!(a = attr(n, "comm_size")) || !attr_int(a, &v) || v < 0 ||
        (guint64)v > TRC_MAX_BYTES)
      return trc_file_error(error, name,
                            "node %u (id %" G_GUINT64_FORMAT
                            "): comm_size: expected "
                            "an integer attribute of bytes, at most 2^50",
                            k, n->id);
    e->bytes = (guint64)v;
    if (e->bytes == 0) {
      cnt->zero_size++;
      e->kind = N_PASS;
      break;
    }
    if (n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE) {
      e->kind = N_COLL;
      a = attr(n, "pg_name");
      e->pg = g_strdup(
          a && a->value_case ==
                      CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL
              ? a->string_val
              : "");
      break;
    }
    e->kind = n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE ? N_SEND
                                                                     : N_RECV;
    e->tag = (a = attr(n, "comm_tag")) && attr_int(a, &v) ? v : 0;
    if (!(a = attr(n, e->kind == N_SEND ? "comm_dst" : "comm_src")) ||
        !attr_int(a, &v) || v < 0 || v >= TRC_MAX_RANKS)
      return trc_file_error(error, name,
                            "node %u (id %" G_GUINT64_FORMAT
                            ", a %s): no %s attribute "
                            "naming the peer's rank",
                            k, n->id, e->kind == N_SEND ? "send" : "receive",
                            e->kind == N_SEND ? "comm_dst" : "comm_src");
    if (e->kind == N_SEND)
      e->dst = v;
    else
      e->src = v;
    break;
  default: cnt->passed++; break;
  }
  return TRUE;
}

static int cmp_order(gconstpointer a, gconstpointer b)
{
  const ENode *x = a, *y = b;

  return x->order < y->order ? -1 : x->order > y->order;
}

/* Reads a file: its metadata and nodes, put in dependency order. */
static gboolean read_file(const char *name, const guint8 *data, gsize len,
                          ERank *er, Counts *cnt, GError **error)
{
  gsize at = 0, mlen;
  const guint8 *msg;
  gboolean done;
  guint k = 0;

  er->nodes = g_array_new(FALSE, TRUE, sizeof(ENode));
  er->at = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  if (!next_message(name, data, len, &at, &msg, &mlen, &done, error)) {
    if (done)
      return trc_file_error(error, name,
                            "empty: expected a Chakra execution trace (a "
                            "GlobalMetadata message, then nodes)");
    return FALSE;
  }
  {
    ChakraProtoMsg__GlobalMetadata *m =
        chakra_proto_msg__global_metadata__unpack(NULL, mlen, msg);
    gboolean ok;

    if (!m)
      return trc_file_error(
          error, name,
          "byte 0: not a Chakra GlobalMetadata message (expected "
          "an .et file of et_def.proto)");
    ok = m->version[0] == '\0' || g_str_equal(m->version, "0.0.4");
    if (!ok)
      trc_file_error(
          error, name,
          "Chakra schema version '%s' is not supported (expected 0.0.4, "
          "the et_def.proto of mlcommons/chakra a2b45c10, or none)",
          m->version);
    for (size_t i = 0; ok && !cnt->schema && i < m->n_attr; i++)
      if (m->attr[i]->name && g_str_equal(m->attr[i]->name, "schema") &&
          m->attr[i]->value_case ==
              CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL)
        cnt->schema = g_strdup(m->attr[i]->string_val);
    chakra_proto_msg__global_metadata__free_unpacked(m, NULL);
    if (!ok)
      return FALSE;
  }
  for (;;) {
    gsize start = at;
    CNode *n;
    ENode e = {0};
    gboolean ok;

    if (!next_message(name, data, len, &at, &msg, &mlen, &done, error)) {
      if (!done)
        return FALSE;
      break;
    }
    n = chakra_proto_msg__node__unpack(NULL, mlen, msg);
    if (!n)
      return trc_file_error(error, name,
                            "byte %" G_GSIZE_FORMAT
                            ": node %u is not a Chakra Node "
                            "message",
                            start, k);
    ok = read_node(name, k, n, &e, cnt, error);
    if (ok && g_hash_table_contains(er->at, &n->id))
      ok = trc_file_error(error, name,
                          "node %u: id %" G_GUINT64_FORMAT " again", k, n->id);
    chakra_proto_msg__node__free_unpacked(n, NULL);
    if (!ok) {
      g_free(e.deps);
      g_free(e.pg);
      return FALSE;
    }
    g_array_append_val(er->nodes, e);
    g_hash_table_insert(er->at, g_memdup2(&e.id, sizeof e.id),
                        GUINT_TO_POINTER(er->nodes->len));
    k++;
  }
  /* dependency order (Kahn, the lowest id first) */
  {
    guint n = er->nodes->len, done_n = 0;
    g_autofree guint32 *waiting = g_new0(guint32, MAX(n, 1));
    g_autofree guint32 *start = g_new0(guint32, n + 1);
    g_autofree guint32 *fill = g_new0(guint32, n + 1);
    g_autofree guint32 *users = NULL;
    g_autoptr(GArray) ready = g_array_new(FALSE, FALSE, sizeof(TrcHeapItem));

    for (guint i = 0; i < n; i++) {
      ENode *e = &g_array_index(er->nodes, ENode, i);

      for (guint32 d = 0; d < e->n_deps; d++) {
        gpointer v = g_hash_table_lookup(er->at, &e->deps[d]);

        if (!v)
          return trc_file_error(error, name,
                                "node id %" G_GUINT64_FORMAT
                                " depends on id %" G_GUINT64_FORMAT
                                ", which the file does not hold",
                                e->id, e->deps[d]);
        start[GPOINTER_TO_UINT(v)]++;
        waiting[i]++;
      }
    }
    for (guint i = 0; i < n; i++)
      start[i + 1] += start[i];
    users = g_new(guint32, MAX(start[n], 1));
    for (guint i = 0; i < n; i++) {
      ENode *e = &g_array_index(er->nodes, ENode, i);

      for (guint32 d = 0; d < e->n_deps; d++) {
        guint32 j =
            GPOINTER_TO_UINT(g_hash_table_lookup(er->at, &e->deps[d])) - 1;

        users[start[j] + fill[j]++] = i;
      }
      if (waiting[i] == 0)
        trc_heap_push(ready, (double)e->id, i);
    }
    while (ready->len > 0) {
      guint32 i = trc_heap_pop(ready);

      g_array_index(er->nodes, ENode, i).order = done_n++;
      for (guint32 u = start[i]; u < start[i + 1]; u++)
        if (--waiting[users[u]] == 0)
          trc_heap_push(ready,
                        (double)g_array_index(er->nodes, ENode, users[u]).id,
                        users[u]);
    }
    if (done_n < n)
      return trc_file_error(
          error, name,
          "the nodes' dependencies form a cycle: expected a "
          "graph (an execution trace's nodes depend on earlier "
          "ones)");
  }
  return TRUE;
}

/* The nodes it stands for: its own, or a pass node's dependencies'. */
static void stands(const ENode *e, GArray *out)
{
  if (e->kind != N_PASS) {
    g_array_append_val(out, e->gnode);
    return;
  }
  if (e->stands)
    g_array_append_vals(out, e->stands->data, e->stands->len);
}

static ENode *by_id(const ERank *er, guint64 id)
{
  gpointer v = g_hash_table_lookup(er->at, &id);

  return &g_array_index(er->nodes, ENode, GPOINTER_TO_UINT(v) - 1);
}

/* A process group's k-th collective on each member is one node; its
 * members are the ranks whose files hold its collectives (every rank for
 * collectives of no pg_name). */
static gboolean match_colls(TrcGraph *g, ERank *er, guint32 nr, GError **error)
{
  g_autoptr(GHashTable) pgs = g_hash_table_new_full(
      g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_ptr_array_unref);
  GHashTableIter it;
  gpointer key, val;
  guint32 q = 0;

  for (guint32 r = 0; r < nr; r++) {
    for (guint i = 0; i < er[r].nodes->len; i++) {
      ENode *e = &g_array_index(er[r].nodes, ENode, i);
      GPtrArray *per;

      if (e->kind != N_COLL)
        continue;
      per = g_hash_table_lookup(pgs, e->pg);
      if (!per) {
        per = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
        for (guint32 x = 0; x < nr; x++)
          g_ptr_array_add(per, g_array_new(FALSE, FALSE, sizeof(ENode *)));
        g_hash_table_insert(pgs, g_strdup(e->pg), per);
      }
      g_array_append_val(g_ptr_array_index(per, r), e);
    }
  }
  g_hash_table_iter_init(&it, pgs);
  while (g_hash_table_iter_next(&it, &key, &val)) {
    GPtrArray *per = val;
    g_autoptr(GArray) members = g_array_new(FALSE, FALSE, sizeof(guint32));
    g_autofree char *name = g_strdup_printf("pg%u", q++);
    guint32 calls = 0, comm;

    for (guint32 r = 0; r < nr; r++) {
      GArray *a = g_ptr_array_index(per, r);

      if (a->len == 0 && ((const char *)key)[0] != '\0')
        continue;
      if (members->len > 0 && a->len != calls)
        return trc_file_error(
            error, er[r].name,
            "rank %u made %u collectives of process group '%s', "
            "rank %u made %u: the ranks disagree",
            er[r].rank, a->len, (const char *)key,
            g_array_index(members, guint32, 0), calls);
      calls = a->len;
      g_array_append_val(members, er[r].rank);
    }
    comm = trc_graph_comm(g, name, (const guint32 *)(void *)members->data,
                          members->len);
    for (guint32 c = 0; c < calls; c++) {
      const ENode *e0 = NULL;
      guint32 node = 0;

      for (guint32 r = 0; r < nr; r++) {
        GArray *a = g_ptr_array_index(per, r);
        ENode *e;

        if (a->len == 0)
          continue;
        e = g_array_index(a, ENode *, c);
        if (!e0) {
          e0 = e;
          node = trc_graph_coll(g, e->coll, e->bytes, comm, e->order);
        } else if (e->coll != e0->coll || e->bytes != e0->bytes) {
          return trc_file_error(
              error, er[r].name,
              "node id %" G_GUINT64_FORMAT ": %s of %" G_GUINT64_FORMAT
              " bytes is collective %u of process group '%s'; "
              "another rank's is %s of %" G_GUINT64_FORMAT
              " bytes: the ranks disagree",
              e->id, trc_coll_name(e->coll), e->bytes, c + 1, (const char *)key,
              trc_coll_name(e0->coll), e0->bytes);
        }
        e->gnode = node;
      }
    }
  }
  return TRUE;
}

/* A rank's i-th send to a peer with a tag is the peer's i-th receive from
 * it with that tag: one node. */
static gboolean match_p2p(TrcGraph *g, ERank *er, guint32 nr, GError **error)
{
  g_autoptr(GHashTable) q = g_hash_table_new_full(
      g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_ptr_array_unref);
  GHashTableIter it;
  gpointer key, val;

  for (guint32 r = 0; r < nr; r++) {
    for (guint i = 0; i < er[r].nodes->len; i++) {
      ENode *e = &g_array_index(er[r].nodes, ENode, i);
      char *k;
      GPtrArray *pair;

      if (e->kind != N_SEND && e->kind != N_RECV)
        continue;
      if ((e->kind == N_SEND ? e->dst : e->src) >= nr)
        return trc_file_error(error, er[r].name,
                              "node id %" G_GUINT64_FORMAT
                              ": peer rank %" G_GINT64_FORMAT " of %u ranks",
                              e->id, e->kind == N_SEND ? e->dst : e->src, nr);
      k = g_strdup_printf("%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT
                          ":%" G_GINT64_FORMAT,
                          e->kind == N_SEND ? (gint64)r : e->src,
                          e->kind == N_SEND ? e->dst : (gint64)r, e->tag);
      pair = g_hash_table_lookup(q, k);
      if (!pair) {
        pair = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
        g_ptr_array_add(pair, g_array_new(FALSE, FALSE, sizeof(ENode *)));
        g_ptr_array_add(pair, g_array_new(FALSE, FALSE, sizeof(ENode *)));
        g_hash_table_insert(q, k, pair);
      } else {
        g_free(k);
      }
      g_array_append_val(g_ptr_array_index(pair, e->kind == N_RECV), e);
    }
  }
  g_hash_table_iter_init(&it, q);
  while (g_hash_table_iter_next(&it, &key, &val)) {
    GArray *s = g_ptr_array_index((GPtrArray *)val, 0);
    GArray *rv = g_ptr_array_index((GPtrArray *)val, 1);

    if (s->len != rv->len)
      return trc_file_error(
          error, er[0].name,
          "sends and receives %s (source:destination:tag): %u "
          "sends, %u receives; each send needs its receive",
          (const char *)key, s->len, rv->len);
    for (guint k = 0; k < s->len; k++) {
      ENode *a = g_array_index(s, ENode *, k),
            *b = g_array_index(rv, ENode *, k);
      guint32 ranks[2] = {(guint32)b->src, (guint32)a->dst};
      g_autofree char *name = g_strdup_printf("p%u-%u", ranks[0], ranks[1]);

      if (a->bytes != b->bytes)
        return trc_file_error(
            error, er[a->dst].name,
            "node id %" G_GUINT64_FORMAT ": a receive of %" G_GUINT64_FORMAT
            " bytes for a send of %" G_GUINT64_FORMAT ": the ranks "
            "disagree",
            b->id, b->bytes, a->bytes);
      a->gnode = b->gnode = trc_graph_coll(g, NCCL_COLL_SENDRECV, a->bytes,
                                           trc_graph_comm(g, name, ranks, 2),
                                           MIN(a->order, b->order));
    }
  }
  return TRUE;
}

/* Each rank's compute nodes, and every node's dependencies. */
static void build_rank(TrcGraph *g, ERank *er)
{
  g_autoptr(GArray) tmp = g_array_new(FALSE, FALSE, sizeof(guint32));

  for (guint i = 0; i < er->nodes->len; i++) {
    ENode *e = &g_array_index(er->nodes, ENode, i);

    if (e->kind == N_COMP)
      e->gnode = trc_graph_compute(g, er->rank, e->ps, "compute", e->order);
    g_array_set_size(tmp, 0);
    for (guint32 d = 0; d < e->n_deps; d++)
      stands(by_id(er, e->deps[d]), tmp);
    if (e->kind == N_PASS) {
      e->stands = g_array_copy(tmp);
      continue;
    }
    for (guint k = 0; k < tmp->len; k++)
      trc_graph_dep(g, e->gnode, g_array_index(tmp, guint32, k));
  }
}

/* "NAME.RANK.et": RANK; -1 for another name. */
static gint64 rank_of_name(const char *path)
{
  g_autofree char *base = g_path_get_basename(path);
  char *dot = g_str_has_suffix(base, ".et") ? base + strlen(base) - 3 : NULL;
  char *p;

  if (!dot)
    return -1;
  *dot = '\0';
  p = strrchr(base, '.');
  if (!p || !p[1])
    return -1;
  for (char *c = p + 1; *c; c++)
    if (!g_ascii_isdigit(*c))
      return -1;
  return g_ascii_strtoll(p + 1, NULL, 10);
}

static void erank_clear(ERank *er)
{
  for (guint i = 0; er->nodes && i < er->nodes->len; i++) {
    ENode *e = &g_array_index(er->nodes, ENode, i);

    g_free(e->deps);
    g_free(e->pg);
    if (e->stands)
      g_array_free(e->stands, TRUE);
  }
  if (er->nodes)
    g_array_free(er->nodes, TRUE);
  if (er->at)
    g_hash_table_destroy(er->at);
}

TrcWorkload *trc_workload_load_chakra_data(const char *const *texts,
                                           const gsize *lens,
                                           const char *const *names,
                                           guint n_files, GString *notes,
                                           GError **error)
{
  g_autofree ERank *er = g_new0(ERank, n_files);
  g_autoptr(TrcWorkload) w = g_new0(TrcWorkload, 1);
  g_autoptr(TrcGraph) g = trc_graph_new();
  Counts cnt = {0};
  gboolean ok = TRUE, by_name = TRUE;

  w->source = g_strdup(n_files == 1 ? names[0] : "Chakra traces");
  for (guint f = 0; f < n_files && by_name; f++)
    by_name = rank_of_name(names[f]) >= 0;
  for (guint f = 0; f < n_files && by_name && ok; f++)
    if (rank_of_name(names[f]) >= n_files)
      ok = trc_file_error(error, names[f],
                          "its name gives rank %" G_GINT64_FORMAT
                          ", and %u files "
                          "are given: give every rank's file (ranks 0 to %u)",
                          rank_of_name(names[f]), n_files, n_files - 1);
  /* each rank's file at its rank */
  for (guint f = 0; f < n_files && ok; f++) {
    guint32 r = by_name ? (guint32)rank_of_name(names[f]) : f;

    if (er[r].name) {
      ok = trc_file_error(error, names[f],
                          "rank %u again (also %s): one file per rank", r,
                          er[r].name);
      break;
    }
    er[r].name = (char *)names[f];
    er[r].rank = r;
    ok = read_file(names[f], (const guint8 *)texts[f], lens[f], &er[r], &cnt,
                   error);
  }
  for (guint32 r = 0; r < n_files && ok && by_name; r++)
    if (!er[r].name)
      ok = trc_file_error(error, names[0],
                          "no file of rank %u among the %u given", r, n_files);
  if (ok) {
    for (guint32 r = 0; r < n_files; r++) {
      g_array_sort(er[r].nodes, cmp_order);
      g_hash_table_remove_all(er[r].at);
      for (guint i = 0; i < er[r].nodes->len; i++) {
        ENode *e = &g_array_index(er[r].nodes, ENode, i);

        g_hash_table_insert(er[r].at, g_memdup2(&e->id, sizeof e->id),
                            GUINT_TO_POINTER(i + 1));
      }
    }
    ok = match_colls(g, er, n_files, error) && match_p2p(g, er, n_files, error);
  }
  if (ok) {
    for (guint32 r = 0; r < n_files; r++)
      build_rank(g, &er[r]);
    ok = trc_graph_emit(g, w, w->source, error);
  }
  if (ok && w->n_ops == 0)
    ok = trc_file_error(
        error, names[0],
        "no compute of any duration and no communication: nothing "
        "to replay");
  if (ok) {
    w->tp = w->pp = w->ep = 1;
    w->dp = n_files;
    if (notes && !by_name)
      g_string_append(notes, "the files' names do not end in .RANK.et: their "
                             "ranks are their order\n");
    if (notes && cnt.gather_scatter)
      g_string_append_printf(notes,
                             "%" G_GUINT64_FORMAT " gathers and scatters "
                             "kept at their duration_micros, not replayed "
                             "on the fabric\n",
                             cnt.gather_scatter);
    if (notes && cnt.schema)
      g_string_append_printf(notes,
                             "converted by Chakra schema '%s' (its "
                             "GlobalMetadata attribute)\n",
                             cnt.schema);
    if (notes && cnt.passed)
      g_string_append_printf(notes,
                             "%" G_GUINT64_FORMAT " metadata and memory "
                             "nodes take no time (their dependencies pass "
                             "through)\n",
                             cnt.passed);
    if (notes && cnt.zero_size)
      g_string_append_printf(notes,
                             "%" G_GUINT64_FORMAT " communication nodes of "
                             "comm_size 0 left out (they move nothing)\n",
                             cnt.zero_size);
    ok = trc_workload_validate(w, error);
  }
  for (guint32 r = 0; r < n_files; r++)
    erank_clear(&er[r]);
  g_free(cnt.schema);
  return ok ? g_steal_pointer(&w) : NULL;
}

TrcWorkload *trc_workload_load_chakra(const char *const *paths, guint n_files,
                                      GString *notes, GError **error)
{
  g_autofree char **texts = g_new0(char *, n_files);
  g_autofree gsize *lens = g_new0(gsize, n_files);
  TrcWorkload *w = NULL;

  if (trc_texts_read(paths, n_files, texts, lens, error)) {
    w = trc_workload_load_chakra_data((const char *const *)texts, lens, paths,
                                      n_files, notes, error);
    trc_texts_free(texts, n_files);
  }
  return w;
}
