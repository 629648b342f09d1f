/* The graph a trace reader builds before it is a workload (readers of
 * PyTorch profiler and Chakra traces): nodes that are compute on one rank
 * or a collective over a communicator, each after its dependencies, with
 * a key (where the trace had it) that orders nodes free to go in either
 * order.  trc_graph_emit() writes the nodes as the ops of a workload with
 * communicators (traces/workload.h), each after its dependencies, the
 * lowest key first. */
#ifndef TRACES_TRACEGRAPH_H
#define TRACES_TRACEGRAPH_H

#include <glib.h>

#include "traces/workload.h"

typedef struct TrcGraph TrcGraph;

TrcGraph *trc_graph_new(void);
void trc_graph_free(TrcGraph *g);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TrcGraph, trc_graph_free)

/* The communicator of these ranks (in its rank order) under name, made
 * when the name is new; its index. */
guint32 trc_graph_comm(TrcGraph *g, const char *name, const guint32 *ranks,
                       guint32 n);
/* A compute node of ps on rank r (a name prefix: "compute", "lead"). */
guint32 trc_graph_compute(TrcGraph *g, guint32 rank, SimTime ps,
                          const char *what, double key);
/* A collective node over communicator comm. */
guint32 trc_graph_coll(TrcGraph *g, NcclColl coll, guint64 bytes, guint32 comm,
                       double key);
void trc_graph_set_ps(TrcGraph *g, guint32 node, SimTime ps);
void trc_graph_set_key(TrcGraph *g, guint32 node, double key);
void trc_graph_set_measured(TrcGraph *g, guint32 node, SimTime ps);
/* node waits for dep (once, however often it is said). */
void trc_graph_dep(TrcGraph *g, guint32 node, guint32 dep);
guint32 trc_graph_nodes(const TrcGraph *g);

/* The nodes as w's ops and communicators (w->ops and w->comms empty);
 * FALSE, naming source, when they wait in a cycle. */
gboolean trc_graph_emit(TrcGraph *g, TrcWorkload *w, const char *source,
                        GError **error);

#endif /* TRACES_TRACEGRAPH_H */
