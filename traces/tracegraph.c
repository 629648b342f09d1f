/* The trace readers' graph (traces/tracegraph.h). */
#include "traces/tracegraph.h"

#include "traces/error.h"

typedef struct {
  gboolean coll;
  guint32 rank; /* compute */
  SimTime ps;   /* compute */
  const char *what;
  NcclColl kind; /* collective */
  guint64 bytes;
  guint32 comm;
  SimTime measured_ps;
  double key;
  GArray *deps; /* guint32 */
  guint32 waiting, op;
} GraphNode;

struct TrcGraph {
  GArray *nodes;     /* GraphNode */
  GArray *comms;     /* TrcComm */
  GHashTable *named; /* comm name -> index + 1 */
  GHashTable *solo;  /* rank + 1 -> comm index + 1 */
};

TrcGraph *trc_graph_new(void)
{
  TrcGraph *g = g_new0(TrcGraph, 1);

  g->nodes = g_array_new(FALSE, TRUE, sizeof(GraphNode));
  g->comms = g_array_new(FALSE, TRUE, sizeof(TrcComm));
  g->named = g_hash_table_new(g_str_hash, g_str_equal);
  g->solo = g_hash_table_new(NULL, NULL);
  return g;
}

void trc_graph_free(TrcGraph *g)
{
  if (!g)
    return;
  for (guint i = 0; i < g->nodes->len; i++)
    g_array_free(g_array_index(g->nodes, GraphNode, i).deps, TRUE);
  g_array_free(g->nodes, TRUE);
  for (guint c = 0; c < g->comms->len; c++) {
    g_free(g_array_index(g->comms, TrcComm, c).name);
    g_free(g_array_index(g->comms, TrcComm, c).ranks);
  }
  g_array_free(g->comms, TRUE);
  g_hash_table_destroy(g->named);
  g_hash_table_destroy(g->solo);
  g_free(g);
}

guint32 trc_graph_comm(TrcGraph *g, const char *name, const guint32 *ranks,
                       guint32 n)
{
  gpointer v = g_hash_table_lookup(g->named, name);
  TrcComm c;

  if (v)
    return GPOINTER_TO_UINT(v) - 1;
  c.name = g_strdup(name);
  c.n = n;
  c.ranks = g_memdup2(ranks, n * sizeof(guint32));
  g_array_append_val(g->comms, c);
  /* the key is the array's copy of the name, which stays put */
  g_hash_table_insert(g->named, c.name, GUINT_TO_POINTER(g->comms->len));
  return g->comms->len - 1;
}

static guint32 solo_comm(TrcGraph *g, guint32 r)
{
  gpointer v = g_hash_table_lookup(g->solo, GUINT_TO_POINTER(r + 1));
  g_autofree char *name = NULL;
  guint32 c;

  if (v)
    return GPOINTER_TO_UINT(v) - 1;
  name = g_strdup_printf("r%u", r);
  c = trc_graph_comm(g, name, &r, 1);
  g_hash_table_insert(g->solo, GUINT_TO_POINTER(r + 1),
                      GUINT_TO_POINTER(c + 1));
  return c;
}

static guint32 add(TrcGraph *g, GraphNode *n)
{
  n->deps = g_array_new(FALSE, FALSE, sizeof(guint32));
  g_array_append_val(g->nodes, *n);
  return g->nodes->len - 1;
}

guint32 trc_graph_compute(TrcGraph *g, guint32 rank, SimTime ps,
                          const char *what, double key)
{
  GraphNode n = {.rank = rank, .ps = ps, .what = what, .key = key};

  solo_comm(g, rank);
  return add(g, &n);
}

guint32 trc_graph_coll(TrcGraph *g, NcclColl coll, guint64 bytes, guint32 comm,
                       double key)
{
  GraphNode n = {
      .coll = TRUE, .kind = coll, .bytes = bytes, .comm = comm, .key = key};

  return add(g, &n);
}

void trc_graph_set_ps(TrcGraph *g, guint32 node, SimTime ps)
{
  g_array_index(g->nodes, GraphNode, node).ps = ps;
}

void trc_graph_set_key(TrcGraph *g, guint32 node, double key)
{
  g_array_index(g->nodes, GraphNode, node).key = key;
}

void trc_graph_set_measured(TrcGraph *g, guint32 node, SimTime ps)
{
  g_array_index(g->nodes, GraphNode, node).measured_ps = ps;
}

void trc_graph_dep(TrcGraph *g, guint32 node, guint32 dep)
{
  GraphNode *n = &g_array_index(g->nodes, GraphNode, node);

  if (dep == node)
    return;
  for (guint i = 0; i < n->deps->len; i++)
    if (g_array_index(n->deps, guint32, i) == dep)
      return;
  g_array_append_val(n->deps, dep);
}

guint32 trc_graph_nodes(const TrcGraph *g)
{
  return g->nodes->len;
}

gboolean trc_graph_emit(TrcGraph *g, TrcWorkload *w, const char *source,
                        GError **error)
{
  guint32 n = g->nodes->len, done = 0;
  g_autofree guint32 *start = g_new0(guint32, n + 1);
  g_autofree guint32 *fill = g_new0(guint32, n + 1);
  g_autofree guint32 *users = NULL;
  g_autofree guint32 *seq = g_new0(guint32, MAX(g->comms->len, 1));
  g_autoptr(GArray) ready = g_array_new(FALSE, FALSE, sizeof(TrcHeapItem));
  g_autoptr(GArray) ops = g_array_new(FALSE, TRUE, sizeof(TrcOp));

  for (guint32 v = 0; v < n; v++) {
    GraphNode *x = &g_array_index(g->nodes, GraphNode, v);

    x->waiting = x->deps->len;
    for (guint i = 0; i < x->deps->len; i++)
      start[g_array_index(x->deps, guint32, i) + 1]++;
  }
  for (guint32 v = 0; v < n; v++)
    start[v + 1] += start[v];
  users = g_new(guint32, MAX(start[n], 1));
  for (guint32 v = 0; v < n; v++) {
    GraphNode *x = &g_array_index(g->nodes, GraphNode, v);

    for (guint i = 0; i < x->deps->len; i++) {
      guint32 d = g_array_index(x->deps, guint32, i);

      users[start[d] + fill[d]++] = v;
    }
    if (x->waiting == 0)
      trc_heap_push(ready, x->key, v);
  }
  while (ready->len > 0) {
    guint32 v = trc_heap_pop(ready);
    GraphNode *x = &g_array_index(g->nodes, GraphNode, v);
    TrcOp op = {0};

    op.id = ops->len + 1;
    op.stage = -1;
    op.group = TRC_GROUP_COMM;
    op.n_deps = x->deps->len;
    op.deps = g_new(guint32, MAX(op.n_deps, 1));
    for (guint i = 0; i < op.n_deps; i++)
      op.deps[i] =
          g_array_index(g->nodes, GraphNode, g_array_index(x->deps, guint32, i))
              .op;
    if (x->coll) {
      const TrcComm *c = &g_array_index(g->comms, TrcComm, x->comm);

      op.coll = x->kind;
      op.bytes = x->bytes;
      op.comm = x->comm;
      op.measured_ps = x->measured_ps;
      op.name = g_strdup_printf("%s.%s.%u", trc_coll_name(x->kind), c->name,
                                seq[x->comm]++);
    } else {
      op.compute = TRUE;
      op.comm = solo_comm(g, x->rank);
      op.compute_ps = MAX(x->ps, 1);
      op.name = g_strdup_printf("%s.r%u.%u", x->what, x->rank, op.id);
    }
    x->op = ops->len;
    g_array_append_val(ops, op);
    done++;
    for (guint32 u = start[v]; u < start[v + 1]; u++) {
      GraphNode *y = &g_array_index(g->nodes, GraphNode, users[u]);

      if (--y->waiting == 0)
        trc_heap_push(ready, y->key, users[u]);
    }
  }
  w->n_ops = ops->len;
  w->ops = (TrcOp *)(void *)g_array_free(g_steal_pointer(&ops), FALSE);
  w->n_comms = g->comms->len;
  w->comms = (TrcComm *)(void *)g_array_free(g->comms, FALSE);
  g->comms = g_array_new(FALSE, TRUE, sizeof(TrcComm));
  g_hash_table_remove_all(g->named);
  g_hash_table_remove_all(g->solo);
  if (done < n) {
    g_set_error(error, TRC_ERROR, TRC_ERROR_VALUE,
                "%s: the trace's work waits in a cycle: two ranks run the "
                "collectives of two groups in opposite orders (traces of "
                "different steps or jobs?)",
                source);
    return FALSE;
  }
  return TRUE;
}
