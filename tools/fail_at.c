/* --fail-at: tools/fail_at.h. */
#include "tools/fail_at.h"

#include <math.h>
#include <string.h>

#include "models/params.h"
#include "sim/time.h"
#include "tools/cli.h"

/* "TIME ELEMENT": the time after the call starts and the element. */
static gboolean parse_fail_at(const char *text, SimTime *at, char **at_text,
                              char **element, GError **error)
{
  g_autofree char *copy = g_strstrip(g_strdup(text));
  char *space = strpbrk(copy, " \t");

  if (!space) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "--fail-at: '%s' is not 'TIME ELEMENT' (how long after the "
                "call starts, and what fails: '2ms p0.spine3')",
                text);
    return FALSE;
  }
  *space = '\0';
  if (!sim_time_parse(copy, at, error)) {
    g_prefix_error(error, "--fail-at: ");
    return FALSE;
  }
  *element = g_strdup(g_strstrip(space + 1));
  *at_text = g_strdup(copy);
  return TRUE;
}

/* The system as run has it, with the element down as well. */
static TopoSystem *load_after(const CliRunOptions *o, const char *element,
                              GError **error)
{
  const char *fail[] = {element, NULL};
  TopoFaultSpec spec = {.fail = fail,
                        .where_fail = "--fail-at",
                        .where_degrade = "--fail-at",
                        .where_random = "--fail-at",
                        .where_slow = "--fail-at",
                        .where_lossy = "--fail-at",
                        .running = TRUE};
  g_autoptr(TopoSystem) sys = cli_run_load_system(o, error);

  if (!sys || !topo_system_add_faults(sys, &spec, error))
    return NULL;
  return g_steal_pointer(&sys);
}

/* A time in seconds, as the lines print it. */
static char *secs(SimTime ps)
{
  return g_strdup_printf("%.3f s", sim_time_to_s(ps));
}

/* One size's call on the system after the fault, with the choice NCCL
 * made for it before (a communicator keeps its channels and algorithms;
 * only the fabric's routes change under it): its time as rows give it. */
static gboolean time_after(const NcclComm *before, const NcclComm *after,
                           const CliRunPlan *plan, NcclExec exec, guint64 size,
                           double *us, GError **error)
{
  NcclChoice ch;
  NcclRunStats st;

  if (!nccl_select(before, plan->coll, size, &ch, NULL, error) ||
      !nccl_run(after, plan->coll, size, &ch, exec, NULL, NULL, &st, error))
    return FALSE;
  *us = sim_time_to_us(
      nccl_tests_time(after, st.time_ps, st.pace_ps, ch.channels));
  return TRUE;
}

struct CliFailAt {
  const CliRunOptions *o;
  const CliRunPlan *plan;
  const NcclComm *comm;
  char *element;
  char *at_text; /* TIME as given */
  SimTime at;
  SimTime stall;    /* the call's, when it recovers */
  SimTime fails_at; /* after the call starts, when it fails; 0: it does not */
  gboolean unaffected; /* the call does not use what fails */
  char *line;          /* what happens */
  TopoSystem *after;
  NcclComm *comm_after;
};

void cli_fail_at_free(CliFailAt *f)
{
  if (!f)
    return;
  g_free(f->element);
  g_free(f->at_text);
  g_free(f->line);
  nccl_comm_free(f->comm_after);
  topo_system_free(f->after);
  g_free(f);
}

CliFailAt *cli_fail_at_new(const CliRunOptions *o, const CliRunPlan *plan,
                           const TopoSystem *sys, const NcclComm *comm,
                           GError **error)
{
  g_autoptr(CliFailAt) f = g_new0(CliFailAt, 1);
  g_autofree char *why = NULL, *timer_s = NULL, *r = NULL, *stall_s = NULL;
  SimTime reroute = 0, timer;
  guint32 retries, cut = G_MAXUINT32;
  TopoRecovery rec;
  guint64 k;

  f->o = o;
  f->plan = plan;
  f->comm = comm;
  if (!parse_fail_at(o->fail_at, &f->at, &f->at_text, &f->element, error))
    return NULL;
  if (o->reroute_time && !sim_time_parse(o->reroute_time, &reroute, error)) {
    g_prefix_error(error, "--reroute-time: ");
    return NULL;
  }
  if (nccl_comm_uses_socket(comm)) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "--fail-at: the communicator's traffic between servers is on "
                "TCP sockets, whose retransmissions are not modelled (only "
                "RDMA's)");
    return NULL;
  }
  f->after = load_after(o, f->element, error);
  if (!f->after ||
      !topo_fault_recovery(sys, f->after, &rec, &why, &cut, error)) {
    g_prefix_error(error, "--fail-at: ");
    return NULL;
  }
  if (nccl_comm_nodes(comm) == 1) {
    /* one server's ranks: the network carries none of the call */
    f->line = g_strdup_printf("at %s into each call, %s goes down: the "
                              "call's ranks share one server, and it runs "
                              "on as it was",
                              f->at_text, f->element);
    f->unaffected = TRUE;
    return g_steal_pointer(&f);
  }
  if (rec == TOPO_RECOVER_NONE) {
    gboolean used = FALSE;

    for (guint32 rank = 0; rank < nccl_comm_ranks(comm) && !used; rank++)
      used = nccl_comm_rank_server(comm, rank) == cut;
    if (!used) {
      g_free(why);
      why = g_strdup("the NIC it cuts serves none of the call's ranks, and "
                     "the switches route around the rest");
      rec = TOPO_RECOVER_AT_ONCE;
    }
  }
  if (rec == TOPO_RECOVER_CONTROL && !o->reroute_time) {
    g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                "--fail-at: %s: %s; give --reroute-time (how long that takes "
                "on this fabric)",
                f->element, why);
    return NULL;
  }
  nccl_comm_ib_retry(comm, &timer, &retries);
  timer_s = secs(timer);
  r = secs(reroute);
  /* what was in flight is lost.  With no route for it until `reroute`,
   * its connections resend it when their timer fires after that, each
   * try a retry; with the switches routing around it at once, the packets
   * that follow on the new path draw the receiver's NAK, and go-back-N
   * resends it within a round trip (not counted) */
  k = rec == TOPO_RECOVER_NONE ? G_MAXUINT64
      : reroute                ? (reroute + timer - 1) / timer
                               : 0;
  if (k > retries) {
    f->fails_at = f->at + (SimTime)(retries + 1) * timer;
    f->line = g_strdup_printf(
        "at %s into each call, %s goes down: %s%s%s; its connections "
        "retransmit %u times, every %s (NCCL_IB_TIMEOUT, NCCL_IB_RETRY_CNT), "
        "and fail",
        f->at_text, f->element, why, rec == TOPO_RECOVER_NONE ? "" : ", after ",
        rec == TOPO_RECOVER_NONE ? "" : r, retries, timer_s);
    return g_steal_pointer(&f);
  }
  f->stall = (SimTime)k * timer;
  stall_s = secs(f->stall);
  f->line =
      k ? g_strdup_printf("at %s into each call, %s goes down: %s, after %s; "
                          "the call stalls %s (%" G_GUINT64_FORMAT
                          " of its connections' retransmission timer, %s: "
                          "NCCL_IB_TIMEOUT), then runs on the routes left",
                          f->at_text, f->element, why, r, stall_s, k, timer_s)
        : g_strdup_printf("at %s into each call, %s goes down: %s; the call "
                          "runs on (what was in flight is resent within a "
                          "round trip) over the routes left",
                          f->at_text, f->element, why);
  f->comm_after = cli_run_comm_new(f->after, o, plan, error);
  return f->comm_after ? g_steal_pointer(&f) : NULL;
}

gboolean cli_fail_at_rows(CliFailAt *f, GArray *rows, GPtrArray *lines,
                          GError **error)
{
  double at_us = sim_time_to_us(f->at);

  g_ptr_array_add(lines, g_strdup(f->line));
  for (guint i = 0; !f->unaffected && i < rows->len;) {
    TrcCollRow *r = &g_array_index(rows, TrcCollRow, i);
    double rest, bus;

    if (at_us >= r->time_us) {
      i++; /* it ended before the fault */
      continue;
    }
    if (f->fails_at) {
      g_autofree char *when = secs(f->fails_at);

      g_ptr_array_add(lines,
                      g_strdup_printf("%" G_GUINT64_FORMAT
                                      " B: the call fails %s after it starts; "
                                      "the job starts again on a new "
                                      "communicator (--fail %s: that state)",
                                      r->size_bytes, when, f->element));
      g_array_remove_index(rows, i);
      continue;
    }
    if (!time_after(f->comm, f->comm_after, f->plan, cli_nccl_exec(&f->o->nccl),
                    r->size_bytes, &rest, error))
      return FALSE;
    /* the work done by the fault is its share of the call's time: exact
     * for a call that runs at one pace throughout */
    bus = r->busbw_GBps / r->algbw_GBps;
    r->time_us =
        at_us + sim_time_to_us(f->stall) + (1 - at_us / r->time_us) * rest;
    r->algbw_GBps = (double)r->size_bytes / (r->time_us * 1e3);
    r->busbw_GBps = r->algbw_GBps * bus;
    i++;
  }
  return TRUE;
}
