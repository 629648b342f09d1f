/* bench/parse: every input format ifsim reads, at a tenth of a size and at
 * the size, to show that parsing is linear and that a million-element input
 * parses in under 5 s (issue 24, part 4), or is refused up front.
 *
 * Each case generates its input in memory (or in a temporary file, for the
 * readers that take a path), then parses it in a forked child, so that the
 * child's CPU time and peak RSS are the parse's alone (wait4's rusage).
 * Printed per case and size: elements, input bytes, CPU seconds, wall
 * seconds, peak RSS, the outcome (ok, or the refusal's first words); then
 * per case the CPU ratio of the size to its tenth (linear: about 10;
 * quadratic: about 100) and whether the full size met 5 s.
 *
 * Usage: bench_parse [--quick] [CASE...]   (--quick: 1/100 of the sizes) */
#define _DEFAULT_SOURCE /* wait4 */
#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tools/plot.h"
#include "tools/sweep.h"
#include "topologies/import.h"
#include "topologies/system.h"
#include "traces/workload.h"
#include "validate/import.h"

#define TARGET_S 5.0

typedef struct {
  const char *name;
  const char *what;                    /* what an element is */
  guint64 elements;                    /* at full size */
  char *(*gen)(guint64 n, gsize *len); /* the text of n elements */
  gboolean (*parse)(const char *text, gsize len, const char *path,
                    GError **error);
} Case;

/* --- generators ----------------------------------------------------------- */

/* A 2-tier explicit network: leaves x spines links (n of them), a server
 * of one GPU and one NIC on each leaf. */
static char *gen_explicit(guint64 n, gsize *len)
{
  guint64 leaves = 1, spines;
  GString *s = g_string_new(NULL);

  while (leaves * leaves < n)
    leaves++;
  spines = (n + leaves - 1) / leaves;
  g_string_append_printf(
      s,
      "[system]\nserver = s\nservers = %" G_GUINT64_FORMAT
      "\n\n[server s]\ngpus = 1\nsockets = 1\nnic = cx7-ndr\n"
      "nics = 1\n\n[scaleout]\ntopology = explicit\nswitch = "
      "quantum2-ndr\nlink = ib-ndr-4x\n\n[network]\nswitches = ",
      leaves);
  for (guint64 i = 0; i < leaves; i++)
    g_string_append_printf(s, "%sleaf%" G_GUINT64_FORMAT, i ? "; " : "", i);
  for (guint64 i = 0; i < spines; i++)
    g_string_append_printf(s, "; spine%" G_GUINT64_FORMAT, i);
  g_string_append(s, "\nlinks = ");
  for (guint64 i = 0; i < leaves; i++)
    for (guint64 j = 0; j < spines; j++)
      g_string_append_printf(
          s, "%sleaf%" G_GUINT64_FORMAT " spine%" G_GUINT64_FORMAT,
          i || j ? "; " : "", i, j);
  g_string_append(s, "\nattach = ");
  for (guint64 i = 0; i < leaves; i++)
    g_string_append_printf(s,
                           "%s%" G_GUINT64_FORMAT ".0 leaf%" G_GUINT64_FORMAT,
                           i ? "; " : "", i, i);
  g_string_append_c(s, '\n');
  *len = s->len;
  return g_string_free(s, FALSE);
}

/* The case: n switches; 1000 leaves hold a server's NIC each and
 * reach 16 spines; each of the others hangs off a leaf and a spine. */
static char *gen_switches(guint64 n, gsize *len)
{
  guint64 leaves = MIN(n / 4, 1000), spines = 16;
  GString *s = g_string_new(NULL);

  g_string_append_printf(
      s,
      "[system]\nserver = s\nservers = %" G_GUINT64_FORMAT
      "\n\n[server s]\ngpus = 1\nsockets = 1\nnic = cx7-ndr\n"
      "nics = 1\n\n[scaleout]\ntopology = explicit\nswitch = "
      "quantum2-ndr\nlink = ib-ndr-4x\n\n[network]\nswitches = ",
      leaves);
  for (guint64 i = 0; i < n; i++)
    g_string_append_printf(s, "%ssw%" G_GUINT64_FORMAT, i ? "; " : "", i);
  g_string_append(s, "\nlinks = ");
  for (guint64 l = 0; l < leaves; l++)
    for (guint64 sp = leaves; sp < leaves + spines; sp++)
      g_string_append_printf(s,
                             "%ssw%" G_GUINT64_FORMAT " sw%" G_GUINT64_FORMAT,
                             l || sp > leaves ? "; " : "", l, sp);
  for (guint64 i = leaves + spines; i < n; i++)
    g_string_append_printf(s,
                           "; sw%" G_GUINT64_FORMAT " sw%" G_GUINT64_FORMAT
                           "; sw%" G_GUINT64_FORMAT " sw%" G_GUINT64_FORMAT,
                           i, i % leaves, i, leaves + i % spines);
  g_string_append(s, "\nattach = ");
  for (guint64 i = 0; i < leaves; i++)
    g_string_append_printf(s, "%s%" G_GUINT64_FORMAT ".0 sw%" G_GUINT64_FORMAT,
                           i ? "; " : "", i, i);
  g_string_append_c(s, '\n');
  *len = s->len;
  return g_string_free(s, FALSE);
}

/* A chain of n ops, compute and TP AllReduce in turn. */
static char *gen_workload(guint64 n, gsize *len)
{
  GString *s = g_string_new("# tp: 2\n# pp: 1\n# dp: 2\n# ep: 1\n"
                            "id,name,op,group,size_bytes,compute_us,stage,"
                            "peer,deps\n");

  for (guint64 i = 1; i <= n; i++) {
    char dep[24] = "";

    if (i > 1)
      g_snprintf(dep, sizeof dep, "%" G_GUINT64_FORMAT, i - 1);
    if (i % 2)
      g_string_append_printf(s,
                             "%" G_GUINT64_FORMAT ",c%" G_GUINT64_FORMAT
                             ",compute,,,1.5,,,%s\n",
                             i, i, dep);
    else
      g_string_append_printf(s,
                             "%" G_GUINT64_FORMAT ",a%" G_GUINT64_FORMAT
                             ",allreduce,tp,1048576,,,,%s\n",
                             i, i, dep);
  }
  *len = s->len;
  return g_string_free(s, FALSE);
}

/* An ASTRA-sim 1.0 DATA workload of n layers. */
static char *gen_astra(guint64 n, gsize *len)
{
  GString *s = g_string_new(NULL);

  g_string_append_printf(s, "DATA\n%" G_GUINT64_FORMAT "\n", n);
  for (guint64 i = 0; i < n; i++)
    g_string_append_printf(s,
                           "layer%" G_GUINT64_FORMAT " -1 1000 NONE 0 1000 "
                           "NONE 0 1000 ALLREDUCE 1048576 10\n",
                           i);
  *len = s->len;
  return g_string_free(s, FALSE);
}

/* ifsim's measurement CSV: n AllReduce rows. */
static char *gen_measure(guint64 n, gsize *len)
{
  GString *s = g_string_new(
      "# ifsim measurements 1\nprobe,test,mode,src,dst,ranks,size_bytes,"
      "iterations,time_us_min,time_us_median,time_us_max,bw_GBps,busbw_GBps\n");

  for (guint64 i = 0; i < n; i++)
    g_string_append_printf(s,
                           "nccl,allreduce,oop,0-7,all,8,%" G_GUINT64_FORMAT
                           ",20,10.5,11.0,12.5,1.0,1.75\n",
                           8 * (i + 1));
  *len = s->len;
  return g_string_free(s, FALSE);
}

/* nccl-tests all_reduce_perf output with n rows. */
static char *gen_nccltests(guint64 n, gsize *len)
{
  GString *s = g_string_new(
      "# nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) "
      "warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n"
      "# Using devices\n"
      "#  Rank  0 Group  0 Pid  1 on host device  0 [0x19] NVIDIA H100\n"
      "#  Rank  1 Group  0 Pid  2 on host device  1 [0x3b] NVIDIA H100\n"
      "#  Rank  2 Group  0 Pid  3 on host device  2 [0x4c] NVIDIA H100\n"
      "#  Rank  3 Group  0 Pid  4 on host device  3 [0x5d] NVIDIA H100\n"
      "#  Rank  4 Group  0 Pid  5 on host device  4 [0x9b] NVIDIA H100\n"
      "#  Rank  5 Group  0 Pid  6 on host device  5 [0xbb] NVIDIA H100\n"
      "#  Rank  6 Group  0 Pid  7 on host device  6 [0xcb] NVIDIA H100\n"
      "#  Rank  7 Group  0 Pid  8 on host device  7 [0xdb] NVIDIA H100\n#\n"
      "#       size         count      type   redop    root     time   algbw"
      "   busbw #wrong     time   algbw   busbw #wrong\n"
      "#        (B)    (elements)                               (us)  (GB/s)"
      "  (GB/s)            (us)  (GB/s)  (GB/s)\n");

  for (guint64 i = 0; i < n; i++) {
    guint64 size = 8 * (i + 1);
    g_string_append_printf(s,
                           "%12" G_GUINT64_FORMAT " %13" G_GUINT64_FORMAT
                           "     float     sum      -1    20.00    %.2f    "
                           "%.2f      0    20.00    %.2f    %.2f      0\n",
                           size, size / 4, size / 20e3, size / 20e3 * 1.75,
                           size / 20e3, size / 20e3 * 1.75);
  }
  g_string_append(s, "# Avg bus bandwidth    : 1.0\n#\n\n# Collective test "
                     "concluded: all_reduce_perf\n");
  *len = s->len;
  return g_string_free(s, FALSE);
}

/* A unicast LID (1 to 0xBFFF) for element x: a fabric this large has more
 * ports than LIDs, and ifsim routes by the graph, not the LIDs. */
#define IB_LID(x) (1 + (guint64)(x) % 0xBFFF)

/* ibnetdiscover of a 3-tier fat-tree of pods: 32 leaves of 32 hosts and 16
 * aggregation switches a pod, aggregation switch j of every pod linked to
 * the 4 cores of group j; about 6,600 lines a pod, n lines in all. */
static void ibnet_switch(GString *s, guint64 guid, guint64 ports,
                         const char *name, guint64 lid)
{
  g_string_append_printf(
      s,
      "\nswitchguid=0x%016" G_GINT64_MODIFIER "x\n"
      "Switch\t%" G_GUINT64_FORMAT " \"S-%016" G_GINT64_MODIFIER
      "x\"\t\t# \"%s\" enhanced port 0 lid %" G_GUINT64_FORMAT " lmc 0\n",
      guid, ports, guid, name, IB_LID(lid));
}

static void ibnet_port(GString *s, guint64 port, char kind, guint64 guid,
                       guint64 peer_port, const char *peer, guint64 lid)
{
  g_string_append_printf(s,
                         "[%" G_GUINT64_FORMAT "]\t\"%c-%016" G_GINT64_MODIFIER
                         "x\"[%" G_GUINT64_FORMAT
                         "]\t\t# \"%s\" lid %" G_GUINT64_FORMAT " 4xNDR\n",
                         port, kind, guid, peer_port, peer, IB_LID(lid));
}

static char *gen_ibnet(guint64 n, gsize *len)
{
  enum { LEAVES = 32, HOSTS = 32, AGGS = 16, CORES = 4 };
  guint64 pods = MAX(n / 6600, 1);
  GString *s =
      g_string_new("#\n# Topology file: generated by bench_parse\n#\n");
  char name[64], peer[64];
  /* guids: core 1e6 + i, agg 2e6 + pod*AGGS + j, leaf 3e6 + pod*LEAVES + l,
   * host 1e8 + global host index; lids the same numbers */
#define CORE(c) (1000000 + (c))
#define AGG(p, j) (2000000 + (p)*AGGS + (j))
#define LEAF(p, l) (3000000 + (p)*LEAVES + (l))
#define HOST(p, l, h) (100000000 + ((p)*LEAVES + (l)) * HOSTS + (h))

  for (guint64 c = 0; c < AGGS * CORES; c++) {
    g_snprintf(name, sizeof name, "core%" G_GUINT64_FORMAT, c);
    ibnet_switch(s, CORE(c), pods, name, CORE(c));
    for (guint64 p = 0; p < pods; p++) {
      g_snprintf(peer, sizeof peer,
                 "agg%" G_GUINT64_FORMAT ".%" G_GUINT64_FORMAT, p, c / CORES);
      ibnet_port(s, p + 1, 'S', AGG(p, c / CORES), LEAVES + 1 + c % CORES, peer,
                 AGG(p, c / CORES));
    }
  }
  for (guint64 p = 0; p < pods; p++) {
    for (guint64 j = 0; j < AGGS; j++) {
      g_snprintf(name, sizeof name,
                 "agg%" G_GUINT64_FORMAT ".%" G_GUINT64_FORMAT, p, j);
      ibnet_switch(s, AGG(p, j), LEAVES + CORES, name, AGG(p, j));
      for (guint64 l = 0; l < LEAVES; l++) {
        g_snprintf(peer, sizeof peer,
                   "leaf%" G_GUINT64_FORMAT ".%" G_GUINT64_FORMAT, p, l);
        ibnet_port(s, l + 1, 'S', LEAF(p, l), HOSTS + 1 + j, peer, LEAF(p, l));
      }
      for (guint64 c = 0; c < CORES; c++) {
        g_snprintf(peer, sizeof peer, "core%" G_GUINT64_FORMAT, j * CORES + c);
        ibnet_port(s, LEAVES + 1 + c, 'S', CORE(j * CORES + c), p + 1, peer,
                   CORE(j * CORES + c));
      }
    }
    for (guint64 l = 0; l < LEAVES; l++) {
      g_snprintf(name, sizeof name,
                 "leaf%" G_GUINT64_FORMAT ".%" G_GUINT64_FORMAT, p, l);
      ibnet_switch(s, LEAF(p, l), HOSTS + AGGS, name, LEAF(p, l));
      for (guint64 h = 0; h < HOSTS; h++) {
        g_snprintf(peer, sizeof peer, "node%" G_GUINT64_FORMAT " mlx5_0",
                   (p * LEAVES + l) * HOSTS + h);
        ibnet_port(s, h + 1, 'H', HOST(p, l, h), 1, peer, HOST(p, l, h));
      }
      for (guint64 j = 0; j < AGGS; j++) {
        g_snprintf(peer, sizeof peer,
                   "agg%" G_GUINT64_FORMAT ".%" G_GUINT64_FORMAT, p, j);
        ibnet_port(s, HOSTS + 1 + j, 'S', AGG(p, j), l + 1, peer, AGG(p, j));
      }
      for (guint64 h = 0; h < HOSTS; h++) {
        g_string_append_printf(
            s,
            "\ncaguid=0x%016" G_GINT64_MODIFIER "x\n"
            "Ca\t1 \"H-%016" G_GINT64_MODIFIER
            "x\"\t\t# \"node%" G_GUINT64_FORMAT " mlx5_0\"\n",
            HOST(p, l, h), HOST(p, l, h), (p * LEAVES + l) * HOSTS + h);
        g_snprintf(peer, sizeof peer,
                   "leaf%" G_GUINT64_FORMAT ".%" G_GUINT64_FORMAT, p, l);
        g_string_append_printf(
            s,
            "[1](%016" G_GINT64_MODIFIER "x)\t\"S-%016" G_GINT64_MODIFIER
            "x\"[%" G_GUINT64_FORMAT "]\t\t# lid %" G_GUINT64_FORMAT
            " lmc 0 \"%s\" lid %" G_GUINT64_FORMAT " 4xNDR\n",
            HOST(p, l, h), LEAF(p, l), h + 1, IB_LID(HOST(p, l, h)), peer,
            IB_LID(LEAF(p, l)));
      }
    }
  }
#undef CORE
#undef AGG
#undef LEAF
#undef HOST
  *len = s->len;
  return g_string_free(s, FALSE);
}

/* A results CSV as `ifsim run --csv` writes, n rows. */
static char *gen_plot(guint64 n, gsize *len)
{
  GString *s = g_string_new(
      "# test: all_reduce_perf\n# collective: AllReduce\n# system: bench\n"
      "size_bytes,count_elements,type,redop,root,time_us,algbw_GBps,"
      "busbw_GBps,algo,proto,channels,nccl_model_us\n");

  for (guint64 i = 0; i < n; i++)
    g_string_append_printf(s,
                           "%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
                           ",float,sum,-1,15.3,0.06,0.11,Ring,LL,1,15.0\n",
                           4 * (i + 1), i + 1);
  *len = s->len;
  return g_string_free(s, FALSE);
}

/* A sweep plan varying one key over n values. */
static char *gen_plan(guint64 n, gsize *len)
{
  GString *s = g_string_new("[sweep]\ncollective = allreduce\n\n[vary]\n"
                            "nccl.host_launch_us = ");

  for (guint64 i = 0; i < n; i++)
    g_string_append_printf(s, "%s%" G_GUINT64_FORMAT ".5", i ? ", " : "", i);
  g_string_append_c(s, '\n');
  *len = s->len;
  return g_string_free(s, FALSE);
}

/* --- parsers --------------------------------------------------------------- */

static gboolean parse_system(const char *text, gsize len, const char *path,
                             GError **error)
{
  g_autoptr(TopoSystem) sys =
      topo_system_load_data(text, len, path, NULL, error);
  return sys != NULL;
}

static gboolean parse_workload(const char *text, gsize len, const char *path,
                               GError **error)
{
  g_autoptr(TrcWorkload) w = trc_workload_load_csv_data(text, len, path, error);
  return w != NULL;
}

static gboolean parse_astra(const char *text, gsize len, const char *path,
                            GError **error)
{
  TrcAstraOptions opt = {.tp = 1, .gpus = 8, .ns_per_tick = 1};
  g_autoptr(TrcWorkload) w = NULL;

  (void)text;
  (void)len;
  w = trc_workload_load_astra_opts(path, &opt, error);
  return w != NULL;
}

static gboolean parse_measure(const char *text, gsize len, const char *path,
                              GError **error)
{
  g_autoptr(ValMeasurements) m = val_import(path, text, len, error);
  return m != NULL;
}

static gboolean parse_ibnet(const char *text, gsize len, const char *path,
                            GError **error)
{
  TopoImportOptions opt = {0};
  g_autofree char *ini =
      topo_import(text, len, path, TOPO_IMPORT_IBNET, &opt, error);
  return ini != NULL;
}

static gboolean parse_plot(const char *text, gsize len, const char *path,
                           GError **error)
{
  g_autoptr(CliPlot) p = cli_plot_new();
  return cli_plot_add(p, path, text, len, error);
}

static gboolean parse_plan(const char *text, gsize len, const char *path,
                           GError **error)
{
  g_autoptr(CliSweep) sw = cli_sweep_new();

  (void)text;
  (void)len;
  return cli_sweep_load_plan(sw, path, error) && cli_sweep_prepare(sw, error);
}

static const Case cases[] = {
    {"explicit", "links", 1000000, gen_explicit, parse_system},
    {"switches", "switches", 200000, gen_switches, parse_system},
    {"workload", "ops", 1000000, gen_workload, parse_workload},
    {"astra", "layers", 1000000, gen_astra, parse_astra},
    {"measure", "rows", 1000000, gen_measure, parse_measure},
    {"nccltests", "rows", 1000000, gen_nccltests, parse_measure},
    {"ibnet", "lines", 1000000, gen_ibnet, parse_ibnet},
    {"plot", "rows", 1000000, gen_plot, parse_plot},
    {"plan", "values", 1000000, gen_plan, parse_plan},
};

/* --- measuring ------------------------------------------------------------- */

static double now_s(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct {
  double cpu_s, wall_s, rss_mib;
  gboolean ok;
} Result;

/* Parses in a child; its first error line comes back through a pipe. */
static Result measure(const Case *c, guint64 n)
{
  Result r = {0};
  gsize len;
  g_autofree char *text = c->gen(n, &len);
  g_autofree char *path = NULL;
  char msg[160] = "";
  int fds[2];
  int status;
  struct rusage ru;
  pid_t pid;
  double t0;
  GError *error = NULL;
  int fd = g_file_open_tmp("bench-parse-XXXXXX", &path, &error);

  if (fd < 0 || !g_file_set_contents(path, text, (gssize)len, &error)) {
    fprintf(stderr, "bench_parse: %s\n", error->message);
    exit(1);
  }
  close(fd);
  if (pipe(fds) != 0) {
    perror("bench_parse: pipe");
    exit(1);
  }
  t0 = now_s();
  pid = fork();
  if (pid == 0) {
    gboolean ok;

    close(fds[0]);
    ok = c->parse(text, len, path, &error);
    if (!ok)
      (void)!write(fds[1], error->message,
                   MIN(strlen(error->message), sizeof msg - 1));
    _exit(ok ? 0 : 1);
  }
  close(fds[1]);
  {
    ssize_t got = read(fds[0], msg, sizeof msg - 1);
    msg[got > 0 ? got : 0] = '\0';
  }
  close(fds[0]);
  if (wait4(pid, &status, 0, &ru) != pid) {
    perror("bench_parse: wait4");
    exit(1);
  }
  r.wall_s = now_s() - t0;
  r.cpu_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
            (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
  r.rss_mib = (double)ru.ru_maxrss / 1024.0;
  r.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  g_unlink(path);
  printf("%-10s %9" G_GUINT64_FORMAT " %-8s %8.1f MB %8.3f s cpu %8.3f s wall "
         "%8.1f MiB  %s%.70s\n",
         c->name, n, c->what, (double)len / 1e6, r.cpu_s, r.wall_s, r.rss_mib,
         r.ok                  ? "ok"
         : WIFSIGNALED(status) ? "CRASHED "
                               : "refused: ",
         msg);
  fflush(stdout);
  if (WIFSIGNALED(status))
    r.ok = FALSE;
  return r;
}

int main(int argc, char **argv)
{
  guint64 scale = 1;
  gboolean all_met = TRUE;
  int first = 1;

  if (argc > 1 && strcmp(argv[1], "--quick") == 0) {
    scale = 100;
    first = 2;
  }
  for (int a = first; a < argc; a++) {
    gboolean known = FALSE;

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
      known |= strcmp(argv[a], cases[i].name) == 0;
    if (!known) {
      fprintf(stderr,
              "usage: bench_parse [--quick] [CASE...]\n"
              "bench_parse: unknown case '%s'; the cases are:",
              argv[a]);
      for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
        fprintf(stderr, " %s", cases[i].name);
      fprintf(stderr, "\n");
      return 2;
    }
  }
  printf("%-10s %9s %-8s %11s %14s %15s %12s  %s\n", "case", "elements", "of",
         "input", "CPU", "wall", "peak RSS", "outcome");
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    const Case *c = &cases[i];
    guint64 n = c->elements / scale;
    Result tenth, full;
    gboolean wanted = argc <= first;

    for (int a = first; a < argc; a++)
      wanted |= strcmp(argv[a], c->name) == 0;
    if (!wanted)
      continue;
    tenth = measure(c, n / 10);
    full = measure(c, n);
    printf("%-10s CPU x%.1f for x10 elements (linear: ~10); %s %.0f s: %s\n",
           c->name, full.cpu_s / MAX(tenth.cpu_s, 1e-3),
           full.ok ? "parsed under" : "refused under", TARGET_S,
           full.cpu_s < TARGET_S ? "met" : "NOT MET");
    all_met &= full.cpu_s < TARGET_S;
  }
  printf("target (every case, %s elements, under %.0f s CPU): %s\n",
         scale == 1 ? "full" : "1/100 of the", TARGET_S,
         all_met ? "met" : "NOT MET");
  return 0;
}
