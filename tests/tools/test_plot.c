/* Tests of `ifsim plot`'s machinery (tools/plot.c): the kind of a CSV told
 * from its header, the checks of its rows, and the data and labels of the
 * generated gnuplot script.  Drawing is checked end to end by
 * tests/cli/cli_test.sh. */
#include <string.h>

#include "tests/suites.h"
#include "tools/plot.h"

#define RUN_HEADER                                                             \
  "size_bytes,count_elements,type,redop,root,time_us,algbw_GBps,busbw_GBps,"   \
  "algo,proto,channels,nccl_model_us\n"
#define SWEEP_HEADER "point,scaleout.link,system.servers,collective," RUN_HEADER
#define REPLAY_HEADER                                                          \
  "job,step_us,compute_us,exposed_us,exposed_tp_us,exposed_dp_us,"             \
  "exposed_pp_us,exposed_ep_us,exposed_edp_us,exposed_world_us,slowdown\n"
#define LINKS_HEADER                                                           \
  "channel,src,dst,link,rate_GBps,payload_bytes,wire_bytes,busy_us,"           \
  "busy_fraction,utilization,peak_flows\n"
#define SAMPLES_HEADER "time_us,channel,src,dst,link,utilization\n"
#define FAULTS_RESULT                                                          \
  "size_bytes,time_us,busbw_GBps,slowdown,algo,proto,channels,outcome\n"
#define CRIT_HEADER "element," FAULTS_RESULT
#define DRAWS_HEADER "kind,down,seed," FAULTS_RESULT

static const CliPlotStyle style = {NULL, 640, 480, FALSE, 48, 32};

static gboolean detect(const char *header, CliPlotKind *kind)
{
  g_auto(GStrv) f = g_strsplit(header, ",", -1);

  return cli_plot_kind_detect((const char *const *)f, kind);
}

START_TEST(test_kind_detect)
{
  CliPlotKind k = CLI_PLOT_N_KINDS;
  g_autofree char *run = g_strndup(RUN_HEADER, strlen(RUN_HEADER) - 1);
  g_autofree char *sweep = g_strndup(SWEEP_HEADER, strlen(SWEEP_HEADER) - 1);
  g_autofree char *replay = g_strndup(REPLAY_HEADER, strlen(REPLAY_HEADER) - 1);
  g_autofree char *links = g_strndup(LINKS_HEADER, strlen(LINKS_HEADER) - 1);
  g_autofree char *samples =
      g_strndup(SAMPLES_HEADER, strlen(SAMPLES_HEADER) - 1);
  g_autofree char *sweep_no_key = g_strdup_printf("point,collective,%s", run);
  g_autofree char *sweep_one_key =
      g_strdup_printf("point,nccl.algo,collective,%s", run);
  g_autofree char *run_extra = g_strdup_printf("%s,extra", run);

  ck_assert(detect(run, &k) && k == CLI_PLOT_RUN);
  ck_assert(detect(sweep, &k) && k == CLI_PLOT_SWEEP);
  ck_assert(detect(sweep_one_key, &k) && k == CLI_PLOT_SWEEP);
  ck_assert(detect(replay, &k) && k == CLI_PLOT_REPLAY);
  ck_assert(detect(links, &k) && k == CLI_PLOT_LINKS);
  ck_assert(detect(samples, &k) && k == CLI_PLOT_SAMPLES);
  {
    g_autofree char *crit = g_strndup(CRIT_HEADER, strlen(CRIT_HEADER) - 1);
    g_autofree char *draws = g_strndup(DRAWS_HEADER, strlen(DRAWS_HEADER) - 1);
    ck_assert(detect(crit, &k) && k == CLI_PLOT_CRITICALITY);
    ck_assert(detect(draws, &k) && k == CLI_PLOT_DRAWS);
    ck_assert_str_eq(cli_plot_kind_name(CLI_PLOT_DRAWS), "faults-draws");
  }
  /* a sweep varies at least one key; no extra or missing columns */
  ck_assert(!detect(sweep_no_key, &k));
  ck_assert(!detect(run_extra, &k));
  ck_assert(!detect("size_bytes,time_us", &k));
  ck_assert(!detect("time_us,channel,src,dst,link", &k));
  ck_assert_str_eq(cli_plot_kind_name(CLI_PLOT_REPLAY), "replay-summary");
  ck_assert_str_eq(cli_plot_kind_name(CLI_PLOT_SAMPLES), "link-samples");
}
END_TEST

START_TEST(test_size_labels)
{
  static const struct {
    guint64 bytes;
    const char *label;
  } cases[] = {{8, "8B"},
               {512, "512B"},
               {1000, "1000B"},
               {1024, "1K"},
               {1536, "1536B"},
               {32768, "32K"},
               {3 << 20, "3M"},
               {G_GUINT64_CONSTANT(1) << 30, "1G"},
               {G_GUINT64_CONSTANT(8) << 30, "8G"},
               {G_GUINT64_CONSTANT(1) << 40, "1T"}};

  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *l = cli_plot_size_label(cases[i].bytes);
    ck_assert_str_eq(l, cases[i].label);
  }
}
END_TEST

/* The script of text (one file) with style; NULL and *error on failure. */
static char *script_of(const char *name, const char *text,
                       const CliPlotStyle *st, GError **error)
{
  g_autoptr(CliPlot) p = cli_plot_new();

  if (!cli_plot_add(p, name, text, strlen(text), error))
    return NULL;
  return cli_plot_script(p, st, "out.png", error);
}

static void assert_contains(const char *text, const char *part)
{
  if (!strstr(text, part))
    ck_abort_msg("expected '%s' in:\n%s", part, text);
}

START_TEST(test_run_script)
{
  g_autoptr(CliPlot) p = cli_plot_new();
  const char *a = "# collective: AllReduce\n# system: Bob's 'box'\n" RUN_HEADER
                  "8,2,float,sum,-1,15.0,0.0005,0.5,Ring,LL,1,15.0\n"
                  "1024,256,float,sum,-1,15.2,0.06,2.25,Ring,LL,1,15.0\n";
  const char *b = "# collective: AllGather\n# system: Bob's 'box'\n" RUN_HEADER
                  "16,4,float,none,-1,15.0,0.001,0.875,Ring,LL,1,15.0\n";
  CliPlotStyle st = style;
  g_autofree char *s1 = NULL, *s2 = NULL;
  g_autoptr(GError) error = NULL;

  st.title = "my\ttitle";
  {
    /* gnuplot's double-quoted strings: a leading quote, a backslash and a
     * double quote as typed (in single quotes, three quotes read as an
     * empty string and a stray quote) */
    CliPlotStyle q = style;
    g_autoptr(CliPlot) pq = cli_plot_new();
    g_autofree char *sq = NULL;

    q.title = "'quoted' \\ \"run\"";
    ck_assert(cli_plot_add(pq, "a.csv", a, strlen(a), &error));
    sq = cli_plot_script(pq, &q, "o.png", &error);
    assert_contains(sq, "TITLE = \"'quoted' \\\\ \\\"run\\\"\"\n");
  }
  ck_assert(cli_plot_add(p, "a.csv", a, strlen(a), &error));
  ck_assert(cli_plot_add(p, "b.csv", b, strlen(b), &error));
  ck_assert_int_eq(cli_plot_kind(p), CLI_PLOT_RUN);
  s1 = cli_plot_script(p, &st, "o'ut.png", &error);
  s2 = cli_plot_script(p, &st, "o'ut.png", &error);
  ck_assert_ptr_nonnull(s1);
  ck_assert_str_eq(s1, s2); /* deterministic */
  assert_contains(s1, "set terminal pngcairo size 640,480 noenhanced\n");
  assert_contains(s1, "set output \"o'ut.png\"\n");
  assert_contains(s1, "TITLE = \"my title\"\nNOTE = \"\"\nN = 2\n");
  assert_contains(s1, "LEGEND[1] = \"AllReduce on Bob's 'box'\"\n"
                      "LEGEND[2] = \"AllGather on Bob's 'box'\"\n");
  /* 8 B to 1 KiB: a tick at every power of two */
  assert_contains(s1, "set xtics ('8B' 8, '16B' 16, '32B' 32, '64B' 64, "
                      "'128B' 128, '256B' 256, '512B' 512, '1K' 1024)\n");
  assert_contains(s1, "$D << EOD\n8 0.5\n1024 2.25\n\n\n16 0.875\n\n\nEOD\n");
  /* then the shipped script */
  assert_contains(s1, "plot for [i=1:N] $D index (i - 1) using 1:2");

  /* Alike legends: the file names instead */
  {
    g_autoptr(CliPlot) q = cli_plot_new();
    g_autofree char *s = NULL;

    ck_assert(cli_plot_add(q, "x/a.csv", a, strlen(a), &error));
    ck_assert(cli_plot_add(q, "y/a.csv", a, strlen(a), &error));
    s = cli_plot_script(q, &style, "out.svg", &error);
    assert_contains(s, "LEGEND[1] = \"x/a.csv\"\nLEGEND[2] = \"y/a.csv\"\n");
    assert_contains(s, "TITLE = \"ifsim: AllReduce bus bandwidth per size\"");
  }
}
END_TEST

START_TEST(test_sweep_script)
{
  const char *text =
      "# base: x.ini\n" SWEEP_HEADER
      "0,ib-hdr-4x,16,AllReduce,1024,256,float,sum,-1,20,0.05,0.1,Ring,"
      "Simple,16,20\n"
      "0,ib-hdr-4x,16,AllReduce,1048576,262144,float,sum,-1,40,26,52,Ring,"
      "Simple,16,40\n"
      "1,ib-ndr-4x,32,AllReduce,1024,256,float,sum,-1,20,0.05,0.125,Ring,"
      "Simple,16,20\n"
      "0,ib-hdr-4x,16,AllGather,1024,256,float,none,-1,20,0.05,0.0625,Ring,"
      "Simple,16,20\n"
      "1,ib-ndr-4x,32,AllGather,1024,256,float,none,-1,20,0.05,0.03125,"
      "Ring,Simple,16,20\n";
  g_autoptr(GError) error = NULL;
  g_autofree char *s = script_of("sweep.csv", text, &style, &error);

  ck_assert_ptr_nonnull(s);
  assert_contains(s, "PANELS = 2\nCOLS = 2\nROWS = 1\n");
  assert_contains(s, "FIRST[1] = 0\nLAST[1] = 1\nFIRST[2] = 2\nLAST[2] = 3\n");
  assert_contains(s, "PANEL_TITLE[1] = \"AllReduce\"\n"
                     "PANEL_TITLE[2] = \"AllGather\"\n");
  /* a varied key by its last part, where that is unambiguous */
  assert_contains(s, "LEGEND[1] = \"link=ib-hdr-4x, servers=16\"\n"
                     "LEGEND[2] = \"link=ib-ndr-4x, servers=32\"\n");
  /* blocks per (collective, point), rows in the file's order */
  assert_contains(s, "$D << EOD\n1024 0.1\n1048576 52\n\n\n1024 0.125\n\n\n"
                     "1024 0.0625\n\n\n1024 0.03125\n\n\nEOD\n");
  /* 1 KiB to 1 MiB: 11 powers of two, in a panel of two a row at most 6
   * labels, a tick every other one */
  assert_contains(s, "'1K' 1024, '4K' 4096, '16K' 16384,");
  assert_contains(s, "'1M' 1048576)\n");
  {
    /* two varied keys ending alike keep their whole names */
    const char *twin = "point,scaleout.link,nic.link,collective," RUN_HEADER
                       "0,ib-hdr-4x,cx6,AllReduce,1024,256,float,sum,-1,20,"
                       "0.05,0.1,Ring,Simple,16,20\n";
    g_autofree char *t = script_of("twin.csv", twin, &style, &error);

    ck_assert_ptr_nonnull(t);
    assert_contains(t, "LEGEND[1] = \"scaleout.link=ib-hdr-4x, "
                       "nic.link=cx6\"\n");
  }
}
END_TEST

/* ifsim faults --criticality: the largest size's slowdowns, worst first,
 * the baseline's row left out, a cut element drawn past the others. */
START_TEST(test_criticality_script)
{
  const char *csv =
      "# collective: AllReduce\n" CRIT_HEADER "none,1024,10,1,1,Ring,LL,2,ok\n"
      "none,1048576,100,10,1,Ring,Simple,2,ok\n"
      "p0.spine0,1024,10,1,1,Ring,LL,2,ok\n"
      "p0.spine0,1048576,120,8,1.2,Ring,Simple,2,ok\n"
      "p0.leaf1,1024,,,,,,,\"no network path from s0.nic0 to s2.nic0\"\n"
      "p0.leaf1,1048576,,,,,,,\"no network path from s0.nic0 to s2.nic0\"\n"
      "p0.spine1,1024,10,1,1,Ring,LL,2,ok\n"
      "p0.spine1,1048576,150,6,1.5,Ring,Simple,2,ok\n";
  g_autoptr(GError) error = NULL;
  g_autofree char *s = script_of("c.csv", csv, &style, &error);

  ck_assert_msg(s != NULL, "%s", error ? error->message : "");
  assert_contains(s, "$D << EOD\n1.575 1\n1.5 0\n1.2 0\nEOD\nN = 3\n");
  assert_contains(s, "SIZE = \"1M\"\n");
  assert_contains(s, "set ytics (\"p0.leaf1 (cut)\" 0, \"p0.spine1\" 1, "
                     "\"p0.spine0\" 2)\n");
  assert_contains(s, "cut: no path for some pair of ranks");
}
END_TEST

/* ifsim faults --random: per count, the sorted slowdowns of the
 * largest size as a CDF over the draws; a cut draw leaves its share off. */
START_TEST(test_draws_script)
{
  const char *csv = DRAWS_HEADER "links,0,0,4096,10,1,1,Ring,LL,2,ok\n"
                                 "links,1,1,4096,13,1,1.3,Ring,LL,2,ok\n"
                                 "links,1,2,4096,11,1,1.1,Ring,LL,2,ok\n"
                                 "links,2,1,4096,,,,,,,cut\n"
                                 "links,2,2,4096,12,1,1.2,Ring,LL,2,ok\n";
  g_autoptr(GError) error = NULL;
  g_autofree char *s = script_of("d.csv", csv, &style, &error);

  ck_assert_msg(s != NULL, "%s", error ? error->message : "");
  assert_contains(s, "$D << EOD\n1.1 0.5\n1.3 1\n\n\n1.2 0.5\n\n\nEOD\n"
                     "N = 2\n");
  assert_contains(s, "\"1 down (2 draws)\"");
  assert_contains(s, "\"2 down (2 draws)\"");
  assert_contains(s, "slowdown with random links down");
  assert_contains(s, "1 draws cut the job");
}
END_TEST

START_TEST(test_replay_script)
{
  const char *ms = REPLAY_HEADER "a,41250.5,30120,11130.5,2100,6400.25,"
                                 "1830.25,0,0,800,1.37\n"
                                 "\"b, c\",18400,15200,3200,900,2300,0,0,50,0,\n";
  const char *us = REPLAY_HEADER "tiny,500,400,100,100,0,0,0,0,0,\n";
  g_autoptr(GError) error = NULL;
  g_autofree char *s = script_of("r.csv", ms, &style, &error);
  g_autofree char *t = script_of("r.csv", us, &style, &error);

  ck_assert_ptr_nonnull(s);
  assert_contains(s, "UNIT = 'ms'\nN = 2\n");
  assert_contains(s, "$D << EOD\n30.12 2.1 6.40025 1.83025 0 0 0.8 41.2505\n"
                     "15.2 0.9 2.3 0 0 0.05 0 18.4\nEOD\n");
  assert_contains(s, "set xtics (\"a (x1.37)\" 0, \"b, c\" 1)\n");
  /* the legend names the parts some job has: not EP (0 in both) */
  assert_contains(s, "array SHOW[7] = [1, 1, 1, 1, 0, 1, 1]\n");
  ck_assert_ptr_nonnull(t);
  assert_contains(t, "UNIT = 'us'\n");
  assert_contains(t, "$D << EOD\n400 100 0 0 0 0 0 500\nEOD\n");
  assert_contains(t, "array SHOW[7] = [1, 1, 0, 0, 0, 0, 0]\n");
}
END_TEST

/* A links table of n GPUs around a switch, each way; the channel from
 * gpu`hot` has utilization 0.9, the others 0.1 * (i % 5) / 5. */
static char *links_table(guint n, guint hot)
{
  GString *s = g_string_new(LINKS_HEADER);

  for (guint i = 0; i < n; i++) {
    double u = i == hot ? 0.9 : 0.1 * (i % 5) / 5;
    g_string_append_printf(s, "%u,gpu%u,sw,nvlink4,125,1,1,1,1,%g,1\n", 2 * i,
                           i, u);
    g_string_append_printf(s, "%u,sw,gpu%u,nvlink4,125,1,1,1,1,%g,1\n",
                           2 * i + 1, i, u / 2);
  }
  return g_string_free(s, FALSE);
}

START_TEST(test_links_script)
{
  g_autofree char *all = links_table(12, 7);
  CliPlotStyle st = style;
  g_autoptr(GError) error = NULL;
  g_autofree char *s = script_of("l.csv", all, &st, &error);
  g_autofree char *pruned = NULL;

  ck_assert_ptr_nonnull(s);
  /* natural order: gpu2 before gpu10 */
  assert_contains(
      s, "NODES = 13\nset xtics (\"gpu0\" 0, \"gpu1\" 1, \"gpu2\" 2, "
         "\"gpu3\" 3, \"gpu4\" 4, \"gpu5\" 5, \"gpu6\" 6, \"gpu7\" 7, "
         "\"gpu8\" 8, \"gpu9\" 9, \"gpu10\" 10, \"gpu11\" 11, \"sw\" 12)\n");
  assert_contains(s, "NOTE = \"\"\n");
  /* row gpu7 (y 7) column sw (x 12), and back */
  assert_contains(s, "\n12 7 0.9\n");
  assert_contains(s, "\n7 12 0.45\n");
  /* Three nodes: the hottest channel's two, then the next hottest's
   * (gpu4 -> sw 0.08, before gpu9 -> sw by row order) */
  st.max_nodes = 3;
  pruned = script_of("l.csv", all, &st, &error);
  ck_assert_ptr_nonnull(pruned);
  assert_contains(pruned, "NOTE = \"the 3 nodes of the hottest channels (of "
                          "13 nodes)\"\n");
  assert_contains(pruned,
                  "NODES = 3\nset xtics (\"gpu4\" 0, \"gpu7\" 1, \"sw\" 2)");
  assert_contains(pruned, "$D << EOD\n2 0 0.08\n2 1 0.9\n0 2 0.04\n"
                          "1 2 0.45\nEOD\n");
}
END_TEST

START_TEST(test_samples_script)
{
  const char *text = SAMPLES_HEADER "0,5,a,b,ib,0.5\n"
                                    "0,6,a,b,ib,1\n"
                                    "0,7,c,d,ib,0.25\n"
                                    "1,5,a,b,ib,0.75\n"
                                    "3,5,a,b,ib,0\n"
                                    "3,7,c,d,ib,0.125\n";
  CliPlotStyle st = style;
  g_autoptr(GError) error = NULL;
  g_autofree char *s = script_of("s.csv", text, &st, &error);
  g_autofree char *top = NULL;

  ck_assert_ptr_nonnull(s);
  /* hottest first (summed): 5 (1.25), 6 (1), 7 (0.375); 5 and 6 join the
   * same nodes: told by channel */
  assert_contains(s, "LINKS = 3\nset ytics (\"a->b #5\" 0, \"a->b #6\" 1, "
                     "\"c->d\" 2)\n");
  /* a box to the next sample time, the last as wide as the gap before */
  assert_contains(s, "$D << EOD\n0 1 0 0.5\n0 1 1 1\n0 1 2 0.25\n"
                     "1 3 0 0.75\n3 5 0 0\n3 5 2 0.125\nEOD\n");
  st.max_links = 1;
  top = script_of("s.csv", text, &st, &error);
  assert_contains(top, "NOTE = \"the 1 hottest links (of 3 links)\"\n");
  assert_contains(top, "LINKS = 1\nset ytics (\"a->b\" 0)\n");
}
END_TEST

/* cli_plot_add fails on text with a message holding part. */
static void assert_refused(const char *name, const char *text, const char *part)
{
  g_autoptr(CliPlot) p = cli_plot_new();
  g_autoptr(GError) error = NULL;

  ck_assert(!cli_plot_add(p, name, text, strlen(text), &error));
  ck_assert_ptr_nonnull(error);
  if (!strstr(error->message, part))
    ck_abort_msg("expected '%s' in '%s'", part, error->message);
}

START_TEST(test_refused)
{
  assert_refused("e.csv", "",
                 "e.csv: no header row (expected the header of "
                 "one of: run (size_bytes,");
  assert_refused("h.csv", "# x: y\nfoo,bar\n1,2\n",
                 "h.csv:2: header 'foo,bar' is of no CSV ifsim plots "
                 "(expected the header of one of: run (");
  assert_refused("h.csv", "foo\n",
                 "link-samples (time_us,channel,src,dst,"
                 "link,utilization)");
  assert_refused("n.csv", "# c: d\n" RUN_HEADER,
                 "n.csv:2: no data rows after the header");
  assert_refused("t.csv",
                 RUN_HEADER "8,2,float,sum,-1,1,1,1,Ring,LL,1,1\n"
                            "16,4,float\n",
                 "t.csv:3: 3 fields, expected 12 as in the header");
  assert_refused("q.csv", RUN_HEADER "8,2,float,sum,-1,1,1,1,\"Ring\n",
                 "q.csv:2: not a CSV row");
  assert_refused("z.csv", RUN_HEADER "0,0,float,sum,-1,1,1,1,Ring,LL,1,1\n",
                 "z.csv:2: size_bytes '0': expected a size of at least 1 "
                 "byte");
  assert_refused("b.csv", RUN_HEADER "8,2,float,sum,-1,1,1,nan,Ring,LL,1,1\n",
                 "b.csv:2: busbw_GBps 'nan': expected a finite number");
  assert_refused("u.csv", LINKS_HEADER "0,a,b,l,1,1,1,1,1,1.5,1\n",
                 "u.csv:2: utilization '1.5': expected a utilization from 0 "
                 "to 1");
  assert_refused("j.csv", REPLAY_HEADER ",1,1,0,0,0,0,0,0,0,\n",
                 "j.csv:2: job '': expected a name");
  assert_refused("s.csv", REPLAY_HEADER "a,1,1,0,0,0,0,0,0,0,fast\n",
                 "s.csv:2: slowdown 'fast': expected a finite number");
}
END_TEST

START_TEST(test_refused_mix)
{
  g_autoptr(CliPlot) p = cli_plot_new();
  g_autoptr(GError) error = NULL;
  const char *run = RUN_HEADER "8,2,float,sum,-1,1,1,1,Ring,LL,1,1\n";
  const char *links = LINKS_HEADER "0,a,b,l,1,1,1,1,1,0.5,1\n";

  ck_assert(cli_plot_add(p, "r.csv", run, strlen(run), &error));
  ck_assert(!cli_plot_add(p, "l.csv", links, strlen(links), &error));
  ck_assert_str_eq(error->message, "l.csv: a links CSV, but r.csv is a run "
                                   "CSV (expected files of one kind)");
  g_clear_error(&error);
  {
    g_autoptr(CliPlot) q = cli_plot_new();

    ck_assert(cli_plot_add(q, "a.csv", links, strlen(links), &error));
    ck_assert(!cli_plot_add(q, "b.csv", links, strlen(links), &error));
    ck_assert_str_eq(error->message,
                     "b.csv: a second links CSV (several files compare run "
                     "CSVs only; expected one file of this kind)");
  }
}
END_TEST

START_TEST(test_gnuplot_missing)
{
  g_autoptr(GError) error = NULL;

  g_setenv("IFSIM_GNUPLOT", "/nonexistent/gnuplot", TRUE);
  ck_assert(!cli_gnuplot_run("set terminal dumb\n", &error));
  g_unsetenv("IFSIM_GNUPLOT");
  ck_assert(g_str_has_prefix(error->message,
                             "gnuplot not found: IFSIM_GNUPLOT='/nonexistent/"
                             "gnuplot' is not a program"));
}
END_TEST

Suite *suite_plot(void)
{
  Suite *s = suite_create("plot");
  TCase *tc = tcase_create("plot");

  tcase_add_test(tc, test_kind_detect);
  tcase_add_test(tc, test_size_labels);
  tcase_add_test(tc, test_run_script);
  tcase_add_test(tc, test_sweep_script);
  tcase_add_test(tc, test_replay_script);
  tcase_add_test(tc, test_criticality_script);
  tcase_add_test(tc, test_draws_script);
  tcase_add_test(tc, test_links_script);
  tcase_add_test(tc, test_samples_script);
  tcase_add_test(tc, test_refused);
  tcase_add_test(tc, test_refused_mix);
  tcase_add_test(tc, test_gnuplot_missing);
  suite_add_tcase(s, tc);
  return s;
}
