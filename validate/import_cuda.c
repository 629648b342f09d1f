/* Importers of the CUDA copy benchmarks: cuda-samples
 * p2pBandwidthLatencyTest and NVIDIA nvbandwidth (text output and the CSV
 * transcriptions of tests/data/reference).
 *
 * p2pBandwidthLatencyTest (NVIDIA/cuda-samples
 * Samples/5_Domain_Specific/p2pBandwidthLatencyTest.cu @ca37378c): each
 * matrix is a title ("Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)",
 * "... P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)", "Bidirectional
 * ...", "P2P=Disabled Latency Matrix (us)", "P2P=Enabled Latency (P2P
 * Writes) Matrix (us)", and the "(P2P Reads)" variants of --p2p_read), a
 * header "D\D 0 1 ..." ("GPU 0 1 ..." and "CPU 0 1 ..." for latency) and
 * one row per source GPU ("%6d " then "%6.02f " per column).  The copies:
 * bandwidth cudaMemcpyPeerAsync of numElems = 40000000 ints = 160,000,000
 * bytes, repeated 5 times, GB = 10^9; the diagonal (a copy inside one GPU)
 * counts read and write (x2), the bidirectional matrix counts both
 * directions (x2, and x2 again on the diagonal); latency copies one int4 =
 * 16 bytes, 100 times, and reports the mean per copy in us.  Writes: the
 * row GPU is the source; reads (P2P Reads): the row GPU reads the column
 * GPU, so data goes column -> row.  The "CPU" latency block is the time
 * the host took to enqueue the copies (timed while the stream is blocked),
 * not a transfer: it is not imported.  A real output: the nvbandwidth /
 * p2p acceptance document behind tests/data/reference/
 * nvbandwidth_8xH100_sxm_pcie5_acceptance_kr.csv.
 *
 * nvbandwidth (NVIDIA/nvbandwidth, output.cpp, testcases_ce.cpp, README):
 * "nvbandwidth Version: v0.10.0", "Driver Version: ...", "Device N: NAME
 * (domain:bus:dev)", then per testcase "Running NAME." (older: "Running
 * benchmark NAME."), a title such as "memcpy CE CPU(row) -> GPU(column)
 * bandwidth (GB/s)" or "Device to Device Latency SM GPU(row) <-> GPU(column)
 * (ns)", a header of column indices, rows ("N/A" where untested) and
 * "SUM NAME value".  The printed D2D arrows are not the data direction:
 * memcpy_read_ce computes value(row, col) = doMemcpy(col buffer -> row
 * buffer) in the row GPU's context, memcpy_write_ce copies row -> col.
 * CE bidirectional tests report the measured stream only (one direction
 * under opposite traffic): bw_GBps is taken as twice that (both
 * directions, the measure.h convention), time as size / printed.  The copy
 * size is the default --bufferSize: 512 MiB (README: "-b [ --bufferSize ]
 * arg (=512) Memcpy buffer size in MiB"); releases before v0.4 printed
 * "--bufferSize arg (=67108864)" bytes (64 MiB) and are taken as such.
 * Latency (pointer chase) points use 8 bytes, the pointer loaded per hop. */
#include "validate/import_internal.h"

#include <stdlib.h>
#include <string.h>

#define P2P_COPY_BYTES (40000000ull * 4)
#define P2P_LAT_BYTES 16
#define NVBW_LAT_BYTES 8

/* --- p2pBandwidthLatencyTest ------------------------------------------ */

typedef enum { K_CONN, K_UNI, K_BIDIR, K_LAT, K_SKIP } P2pKind;

typedef struct {
  P2pKind kind;
  const char *mode;
  gboolean reads;
} P2pMatrix;

static gboolean p2p_title(const char *l, P2pMatrix *mx)
{
  gboolean enabled = strstr(l, "P2P=Enabled") != NULL;

  mx->reads = strstr(l, "(P2P Reads)") != NULL;
  mx->mode = !enabled ? "nopeer" : mx->reads ? "peer_read" : "peer";
  if (strstr(l, "P2P Connectivity Matrix"))
    mx->kind = K_CONN;
  else if (g_str_has_prefix(l, "Unidirectional P2P=") &&
           strstr(l, "Matrix (GB/s)"))
    mx->kind = K_UNI;
  else if (g_str_has_prefix(l, "Bidirectional P2P=") &&
           strstr(l, "Matrix (GB/s)"))
    mx->kind = K_BIDIR;
  else if (g_str_has_prefix(l, "P2P=") && strstr(l, "Latency") &&
           strstr(l, "Matrix (us)"))
    mx->kind = K_LAT;
  else
    return FALSE;
  return TRUE;
}

static gboolean p2p_cell(ValMeasurements *m, ValSeen *seen, const P2pMatrix *mx,
                         guint i, guint j, double v, const char *name,
                         guint line, GError **error)
{
  ValPoint p;
  char a[16], b[16];
  guint si = mx->reads ? j : i, di = mx->reads ? i : j;

  if (mx->kind == K_CONN || mx->kind == K_SKIP)
    return TRUE;
  if (v <= 0)
    return val__fail(error, name, line,
                     "column %u: expected a %s > 0, found %g", j,
                     mx->kind == K_LAT ? "latency" : "bandwidth", v);
  g_snprintf(a, sizeof(a), "gpu%u", si);
  g_snprintf(b, sizeof(b), "gpu%u", di);
  val_point_init(&p, VAL_PROBE_P2P,
             mx->kind == K_UNI ? "ce_uni" : mx->kind == K_BIDIR ? "ce_bidir"
                                                                : "ce_latency",
             mx->mode, a, b);
  if (mx->kind == K_LAT) {
    p.size_bytes = P2P_LAT_BYTES;
    p.iterations = 100;
    p.time_us_median = v;
  } else {
    double moved = (double)P2P_COPY_BYTES * (mx->kind == K_BIDIR ? 2 : 1) *
                   (i == j ? 2 : 1);
    p.size_bytes = P2P_COPY_BYTES;
    p.iterations = 5;
    p.bw_GBps = v;
    p.time_us_median = moved / (v * 1e3);
  }
  if (!val__point_once(seen, &p, name, line, error))
    return FALSE;
  val_meas_add(m, &p);
  return TRUE;
}

/* The column indices "0 1 ... n-1" after a matrix header's first word
 * ("D\D", "GPU", "CPU" of p2pBandwidthLatencyTest; none for nvbandwidth):
 * their count, or 0 when they are not that. */
static guint column_indices(GStrv tok)
{
  guint n = 0;

  for (; tok[n]; n++)
    if (!val__all_digits(tok[n]) || strtoul(tok[n], NULL, 10) != n)
      return 0;
  return n;
}

/* TRUE when a matrix of `rows` rows got them all; else an error at `line`
 * (0: the end of the file) naming the row missing. */
static gboolean rows_done(const char *name, guint line, const char *what,
                          guint rows, guint next_row, GError **error)
{
  if (next_row >= rows)
    return TRUE;
  return val__fail(error, name, line,
                   "expected row %u of %s (%u rows), found %s: a truncated "
                   "matrix?",
                   next_row, what, rows,
                   line ? "the next matrix" : "the end of the file");
}

static void p2p_keys(ValMeasurements *m)
{
  char buf[32];

  g_snprintf(buf, sizeof(buf), "%llu", P2P_COPY_BYTES);
  val_meas_set(m, "p2p.copy_size_bytes", buf);
  g_snprintf(buf, sizeof(buf), "%d", P2P_LAT_BYTES);
  val_meas_set(m, "p2p.latency_size_bytes", buf);
  val_meas_set(m, "p2p.assumed",
               "the default --numElems=40000000 (the output does not print "
               "it)");
}

/* A matrix row's index (or the header's first column index): 0, 1, ... */
static gboolean row_index_ok(const char *name, guint line, const char *tok,
                             GError **error)
{
  g_autofree char *x = NULL;

  if (val__all_digits(tok) && strlen(tok) < 10)
    return TRUE;
  x = val__excerpt(tok);
  return val__fail(error, name, line,
                   "row index '%s': expected a GPU index (0, 1, 2, ...)", x);
}

/* A matrix row is its index and one value per column (p2p and nvbandwidth
 * matrices alike). */
static gboolean row_width_ok(const ValText *t, guint line, GStrv tok,
                             guint ncols, GError **error)
{
  if (g_strv_length(tok) == ncols + 1)
    return TRUE;
  return val__fail(error, t->name, line,
                   "expected a row index and %u values, found %u fields: a "
                   "truncated row?",
                   ncols, g_strv_length(tok));
}

ValMeasurements *val__import_p2p_text(const ValText *t, GError **error)
{
  g_autoptr(ValMeasurements) m = val_meas_new();
  g_autoptr(GPtrArray) gpus = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(ValSeen) seen = val__seen_new();
  P2pMatrix mx = {K_SKIP, "", FALSE};
  gboolean in_matrix = FALSE, cpu_block = FALSE;
  guint ncols = 0, next_row = 0;

  for (guint i = 0; i < t->n; i++) {
    const char *l = t->lines[i];
    guint line = i + 1;
    g_auto(GStrv) tok = NULL;
    P2pMatrix nm;

    if (g_str_has_prefix(l, "Device: ")) {
      g_auto(GStrv) f = g_strsplit(l, ",", 3);
      if (f[0] && f[1])
        g_ptr_array_add(gpus, g_strstrip(g_strdup(f[1])));
      continue;
    }
    if (p2p_title(l, &nm)) {
      if (!rows_done(t->name, line, "the matrix above", ncols, next_row,
                     error))
        return NULL;
      mx = nm;
      in_matrix = TRUE;
      ncols = next_row = 0;
      cpu_block = FALSE;
      continue;
    }
    if (strstr(l, "Matrix (")) { /* a title p2p_title does not know */
      const char *unit = strstr(l, "Matrix (") + 7;
      gboolean known_unit = g_str_has_prefix(unit, "(GB/s)") ||
                            g_str_has_prefix(unit, "(us)");
      g_autofree char *x = val__excerpt(known_unit ? l : unit);
      val__fail(error, t->name, line,
                known_unit ? "'%s': not a matrix title ifsim knows (expected "
                             "'Unidirectional P2P=Disabled Bandwidth Matrix "
                             "(GB/s)' and the like)"
                           : "a matrix in %s: expected (GB/s) for a "
                             "bandwidth, (us) for a latency matrix",
                x);
      return NULL;
    }
    if (!in_matrix)
      continue;
    tok = val__tokens(l);
    if (!tok[0])
      continue;
    if (g_str_equal(tok[0], "D\\D") || g_str_equal(tok[0], "GPU") ||
        g_str_equal(tok[0], "CPU")) {
      if (!rows_done(t->name, line, "the matrix above", ncols, next_row,
                     error))
        return NULL;
      ncols = column_indices(tok + 1);
      if (ncols == 0) {
        val__fail(error, t->name, line,
                  "expected the column indices '%s 0 1 ...' of a matrix",
                  tok[0]);
        return NULL;
      }
      next_row = 0;
      cpu_block = g_str_equal(tok[0], "CPU");
      continue;
    }
    /* a row starts with its index: a line that starts with any number
     * is a row, and a bad index is its error (not a line skipped) */
    if (!val__numeric_start(tok[0]))
      continue;
    if (!row_index_ok(t->name, line, tok[0], error))
      return NULL;
    if (ncols == 0) {
      val__fail(error, t->name, line,
                "a matrix row before the matrix's header (expected 'D\\D "
                "0 1 ...', 'GPU 0 1 ...' or 'CPU 0 1 ...')");
      return NULL;
    }
    if (next_row >= ncols) {
      g_autofree char *x = val__excerpt(tok[0]);
      val__fail(error, t->name, line,
                "row %s after the matrix's last row, %u: expected %u rows, "
                "one per column",
                x, ncols - 1, ncols);
      return NULL;
    }
    if (!row_width_ok(t, line, tok, ncols, error))
      return NULL;
    if (strtoul(tok[0], NULL, 10) != next_row) {
      g_autofree char *x = val__excerpt(tok[0]);
      val__fail(error, t->name, line, "expected row %u, found row %s",
                next_row, x);
      return NULL;
    }
    for (guint j = 0; j < ncols; j++) {
      double v;
      g_autofree char *what = g_strdup_printf("column %u", j);
      if (!val__num(t->name, line, what, tok[j + 1], &v, error))
        return NULL;
      if (!cpu_block &&
          !p2p_cell(m, seen, &mx, next_row, j, v, t->name, line, error))
        return NULL;
    }
    next_row++;
  }
  if (!rows_done(t->name, 0, "the last matrix", ncols, next_row, error))
    return NULL;
  if (m->points->len == 0) {
    val__fail(error, t->name, 0,
              "no bandwidth or latency matrix (expected titles such as "
              "'Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)' followed "
              "by 'D\\D 0 1 ...' and one row per GPU)");
    return NULL;
  }
  val__set_gpus(m, gpus);
  val_meas_set(m, "source", "cuda-samples p2pBandwidthLatencyTest (imported)");
  p2p_keys(m);
  val__copy_hints(m, t);
  return g_steal_pointer(&m);
}

/* The matrix transcriptions' columns after the first three: col_gpu0,
 * col_gpu1, ... */
static gboolean gpu_columns(const ValText *t, const ValCsv *csv, guint ncols,
                            GError **error)
{
  GStrv head = csv->rows->pdata[0];

  for (guint c = 0; c < ncols; c++) {
    g_autofree char *want = g_strdup_printf("col_gpu%u", c);
    if (!g_str_equal(head[3 + c], want)) {
      g_autofree char *x = val__excerpt(head[3 + c]);
      return val__fail(error, t->name, g_array_index(csv->lines, guint, 0),
                       "column %u is '%s', expected '%s'", c + 4, x, want);
    }
  }
  return TRUE;
}

/* The matrices of the p2pBandwidthLatencyTest transcriptions. */
static const struct {
  const char *name;
  P2pKind kind;
  const char *unit;
} p2p_csv_matrices[] = {
    {"connectivity", K_CONN, "bool"},
    {"uni_p2p_disabled_bw", K_UNI, "GB/s"},
    {"uni_p2p_enabled_bw", K_UNI, "GB/s"},
    {"bi_p2p_disabled_bw", K_BIDIR, "GB/s"},
    {"bi_p2p_enabled_bw", K_BIDIR, "GB/s"},
    {"p2p_disabled_latency_gpu", K_LAT, "us"},
    {"p2p_enabled_latency_gpu", K_LAT, "us"},
    {"p2p_disabled_latency_cpu", K_SKIP, "us"},
    {"p2p_enabled_latency_cpu", K_SKIP, "us"},
};

ValMeasurements *val__import_p2p_csv(const ValText *t, const ValCsv *csv,
                                     GError **error)
{
  g_autoptr(ValMeasurements) m = val_meas_new();
  g_autoptr(ValSeen) seen = val__seen_new();
  GStrv head = csv->rows->pdata[0];
  guint ncols = g_strv_length(head) - 3;

  if (!gpu_columns(t, csv, ncols, error))
    return NULL;
  for (guint r = 1; r < csv->rows->len; r++) {
    GStrv f = csv->rows->pdata[r];
    guint line = g_array_index(csv->lines, guint, r);
    P2pMatrix mx = {K_SKIP, "", FALSE};
    const char *mat = f[0], *unit = "";
    guint64 row;

    if (g_strv_length(f) != ncols + 3) {
      val__fail(error, t->name, line,
                "%u fields, expected %u (matrix,unit,row_gpu,col_gpu0..%u): a "
                "truncated row?",
                g_strv_length(f), ncols + 3, ncols - 1);
      return NULL;
    }
    for (guint k = 0; k < G_N_ELEMENTS(p2p_csv_matrices) && !unit[0]; k++)
      if (g_str_equal(mat, p2p_csv_matrices[k].name)) {
        mx.kind = p2p_csv_matrices[k].kind;
        unit = p2p_csv_matrices[k].unit;
      }
    if (unit[0] == '\0') {
      g_autofree char *x = val__excerpt(mat);
      val__fail(error, t->name, line,
                "matrix '%s': expected connectivity, uni_p2p_{disabled,"
                "enabled}_bw, bi_p2p_{disabled,enabled}_bw or p2p_{disabled,"
                "enabled}_latency_{gpu,cpu}",
                x);
      return NULL;
    }
    mx.mode = strstr(mat, "p2p_enabled") ? "peer" : "nopeer";
    if (!g_str_equal(f[1], unit)) {
      g_autofree char *x = val__excerpt(f[1]);
      val__fail(error, t->name, line, "unit '%s' for %s, expected '%s'", x,
                mat, unit);
      return NULL;
    }
    if (!g_ascii_string_to_unsigned(f[2], 10, 0, ncols - 1, &row, NULL)) {
      g_autofree char *x = val__excerpt(f[2]);
      val__fail(error, t->name, line,
                "row_gpu: expected a GPU index from 0 to %u, found '%s'",
                ncols - 1, x);
      return NULL;
    }
    for (guint j = 0; j < ncols; j++) {
      double v;
      if (!val__num(t->name, line, head[3 + j], f[3 + j], &v, error) ||
          !p2p_cell(m, seen, &mx, (guint)row, j, v, t->name, line, error))
        return NULL;
    }
  }
  if (m->points->len == 0) {
    val__fail(error, t->name, 0, "no bandwidth or latency rows");
    return NULL;
  }
  val_meas_set(m, "source",
               "cuda-samples p2pBandwidthLatencyTest (imported from a CSV "
               "transcription)");
  p2p_keys(m);
  val__copy_hints(m, t);
  return g_steal_pointer(&m);
}

/* --- nvbandwidth ------------------------------------------------------- */

typedef enum { D_ROW_TO_COL, D_COL_TO_ROW, D_LOCAL } NvbwDir;
typedef enum { V_UNI, V_BIDIR_CE, V_BIDIR_SM, V_LAT } NvbwValue;

typedef struct {
  const char *name;
  ValProbe probe;
  const char *test, *mode;
  gboolean host_row; /* the row is the CPU */
  NvbwDir dir;
  NvbwValue value;
} NvbwCase;

static const NvbwCase nvbw_cases[] = {
    {"host_to_device_memcpy_ce", VAL_PROBE_HOSTDEV, "h2d", "pinned", TRUE,
     D_ROW_TO_COL, V_UNI},
    {"device_to_host_memcpy_ce", VAL_PROBE_HOSTDEV, "d2h", "pinned", TRUE,
     D_COL_TO_ROW, V_UNI},
    {"host_to_device_bidirectional_memcpy_ce", VAL_PROBE_HOSTDEV, "bidir",
     "pinned", TRUE, D_ROW_TO_COL, V_BIDIR_CE},
    {"device_to_host_bidirectional_memcpy_ce", VAL_PROBE_HOSTDEV, "bidir",
     "pinned", TRUE, D_COL_TO_ROW, V_BIDIR_CE},
    {"host_to_device_memcpy_sm", VAL_PROBE_HOSTDEV, "h2d", "pinned_sm", TRUE,
     D_ROW_TO_COL, V_UNI},
    {"device_to_host_memcpy_sm", VAL_PROBE_HOSTDEV, "d2h", "pinned_sm", TRUE,
     D_COL_TO_ROW, V_UNI},
    {"host_to_device_bidirectional_memcpy_sm", VAL_PROBE_HOSTDEV, "bidir",
     "pinned_sm", TRUE, D_ROW_TO_COL, V_BIDIR_SM},
    {"device_to_host_bidirectional_memcpy_sm", VAL_PROBE_HOSTDEV, "bidir",
     "pinned_sm", TRUE, D_COL_TO_ROW, V_BIDIR_SM},
    {"device_to_device_memcpy_read_ce", VAL_PROBE_P2P, "ce_uni", "peer_read",
     FALSE, D_COL_TO_ROW, V_UNI},
    {"device_to_device_memcpy_write_ce", VAL_PROBE_P2P, "ce_uni", "peer",
     FALSE, D_ROW_TO_COL, V_UNI},
    {"device_to_device_bidirectional_memcpy_read_ce", VAL_PROBE_P2P,
     "ce_bidir", "peer_read", FALSE, D_COL_TO_ROW, V_BIDIR_CE},
    {"device_to_device_bidirectional_memcpy_write_ce", VAL_PROBE_P2P,
     "ce_bidir", "peer", FALSE, D_ROW_TO_COL, V_BIDIR_CE},
    {"device_to_device_memcpy_read_sm", VAL_PROBE_P2P, "sm_uni", "peer_read",
     FALSE, D_COL_TO_ROW, V_UNI},
    {"device_to_device_memcpy_write_sm", VAL_PROBE_P2P, "sm_uni", "peer",
     FALSE, D_ROW_TO_COL, V_UNI},
    {"device_to_device_bidirectional_memcpy_read_sm", VAL_PROBE_P2P,
     "sm_bidir", "peer_read", FALSE, D_COL_TO_ROW, V_BIDIR_SM},
    {"device_to_device_bidirectional_memcpy_write_sm", VAL_PROBE_P2P,
     "sm_bidir", "peer", FALSE, D_ROW_TO_COL, V_BIDIR_SM},
    {"device_local_copy", VAL_PROBE_P2P, "ce_uni", "local", FALSE, D_LOCAL,
     V_UNI},
    {"device_to_device_latency_sm", VAL_PROBE_P2P, "sm_latency", "peer",
     FALSE, D_ROW_TO_COL, V_LAT},
    {"host_device_latency_sm", VAL_PROBE_HOSTDEV, "latency_h2d", "pinned",
     TRUE, D_ROW_TO_COL, V_LAT},
};

static const NvbwCase *nvbw_case(const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS(nvbw_cases); i++)
    if (g_str_equal(nvbw_cases[i].name, name))
      return &nvbw_cases[i];
  return NULL;
}

/* Default copy size of an nvbandwidth version ("v0.10.0"; NULL: unknown,
 * taken as a current release). */
static guint64 nvbw_buffer_bytes(const char *version)
{
  if (version) {
    const char *v = version + (version[0] == 'v');
    char *end;
    long major = strtol(v, &end, 10), minor = 0;
    if (*end == '.')
      minor = strtol(end + 1, NULL, 10);
    if (major == 0 && minor < 4)
      return 64ull << 20;
  }
  return 512ull << 20;
}

static gboolean nvbw_cell(ValMeasurements *m, ValSeen *seen, const NvbwCase *c,
                          guint64 bytes, guint row, guint col, double v,
                          const char *name, guint line, GError **error)
{
  ValPoint p;
  char r[16], k[16];

  /* a GPU with itself in a matrix between GPUs is no peer measurement:
   * nvbandwidth prints N/A there, and 0.00 in its README's sample */
  if (v == 0 && row == col && !c->host_row && c->dir != D_LOCAL)
    return TRUE;
  if (v <= 0)
    return val__fail(error, name, line,
                     "%s column %u: expected a value > 0, found %g", c->name,
                     col, v);
  /* nvbandwidth prints GB/s with 2 decimals and latencies in ns: a
   * bandwidth above any link (10^6 GB/s) or a latency above a second is
   * not a measurement; nor is anything it would print as 0.00 */
  if (v < 0.005 || v > (c->value == V_LAT ? 1e9 : 1e6))
    return val__fail(
        error, name, line,
        "%s column %u: %g is not a %s nvbandwidth measures "
        "(expected %s)",
        c->name, col, v, c->value == V_LAT ? "latency" : "bandwidth",
        c->value == V_LAT ? "0.01 ns to 1 s" : "0.01 to 10^6 GB/s");
  if (c->host_row)
    g_strlcpy(r, "host", sizeof(r));
  else
    g_snprintf(r, sizeof(r), "gpu%u", row);
  g_snprintf(k, sizeof(k), "gpu%u", col);
  if (c->dir == D_LOCAL)
    val_point_init(&p, c->probe, c->test, c->mode, k, k);
  else if (c->dir == D_ROW_TO_COL)
    val_point_init(&p, c->probe, c->test, c->mode, r, k);
  else
    val_point_init(&p, c->probe, c->test, c->mode, k, r);
  if (c->value == V_LAT) {
    p.size_bytes = NVBW_LAT_BYTES;
    p.time_us_median = v / 1e3; /* ns */
  } else {
    p.size_bytes = bytes;
    p.bw_GBps = c->value == V_BIDIR_CE ? 2 * v : v;
    p.time_us_median =
        (double)bytes * (c->value == V_BIDIR_SM ? 2 : 1) / (v * 1e3);
  }
  if (!val__point_once(seen, &p, name, line, error))
    return FALSE;
  val_meas_add(m, &p);
  return TRUE;
}

/* The rows of an nvbandwidth matrix of ncols columns: one per GPU, or one
 * for the CPU and for device_local_copy (row 0, a GPU per column). */
static guint nvbw_rows(const NvbwCase *c, guint ncols)
{
  return c->host_row || c->dir == D_LOCAL ? 1 : ncols;
}

/* rows_done for an nvbandwidth matrix. */
static gboolean nvbw_rows_done(const char *name, guint line,
                               const NvbwCase *c, guint ncols, guint next_row,
                               GError **error)
{
  g_autofree char *what = g_strdup_printf("%s's matrix", c->name);

  if (ncols == 0)
    return TRUE;
  return rows_done(name, line, what, nvbw_rows(c, ncols), next_row, error);
}

static void nvbw_keys(ValMeasurements *m, guint64 bytes, GPtrArray *skipped)
{
  char buf[32];

  g_snprintf(buf, sizeof(buf), "%" G_GUINT64_FORMAT, bytes);
  val_meas_set(m, "nvbandwidth.buffer_size_bytes", buf);
  if (skipped->len > 0) {
    g_autofree char *s = NULL;
    g_ptr_array_add(skipped, NULL);
    s = g_strjoinv(" ", (char **)skipped->pdata);
    g_ptr_array_remove_index(skipped, skipped->len - 1);
    val_meas_set(m, "nvbandwidth.not_imported", s);
  }
}

/* The copy size: a "# nvbandwidth.buffer_size_bytes = N" hint, else
 * dflt. */
static gboolean hinted_bytes(const ValText *t, guint64 dflt, guint64 *out,
                             GError **error)
{
  static const char key[] = "nvbandwidth.buffer_size_bytes";
  g_autoptr(GHashTable) h = val__hints(t);
  const char *v = g_hash_table_lookup(h, key);

  *out = dflt;
  if (v && !g_ascii_string_to_unsigned(v, 10, 1, G_MAXUINT64, out, NULL))
    return val__fail(error, t->name, val__hint_line(t, key),
                     "'# %s = %s': expected a whole number of bytes >= 1 "
                     "(nvbandwidth's -b is in MiB: 512 MiB is 536870912)",
                     key, v);
  return TRUE;
}

ValMeasurements *val__import_nvbw_text(const ValText *t, GError **error)
{
  g_autoptr(ValMeasurements) m = val_meas_new();
  g_autoptr(GPtrArray) skipped = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GPtrArray) gpus = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(ValSeen) seen = val__seen_new();
  g_autofree char *version = NULL;
  const NvbwCase *cur = NULL;
  gboolean in_block = FALSE;
  guint ncols = 0, next_row = 0;
  guint64 bytes;

  for (guint i = 0; i < t->n; i++) {
    const char *l = t->lines[i];
    if (g_str_has_prefix(l, "nvbandwidth Version:") && !version)
      version = g_strstrip(g_strdup(l + 20));
  }
  if (!hinted_bytes(t, nvbw_buffer_bytes(version), &bytes, error))
    return NULL;
  for (guint i = 0; i < t->n; i++) {
    const char *l = t->lines[i];
    guint line = i + 1;
    g_auto(GStrv) tok = NULL;

    if (g_str_has_prefix(l, "Driver Version:")) {
      g_autofree char *v = g_strstrip(g_strdup(l + 15));
      val_meas_set(m, "driver", v);
      continue;
    }
    if (g_str_has_prefix(l, "CUDA Runtime Version:")) {
      g_autofree char *v = g_strstrip(g_strdup(l + 21));
      val_meas_set(m, "cuda.runtime", v);
      continue;
    }
    if (g_str_has_prefix(l, "Device ") && strstr(l, ": ")) {
      char *end;
      guint64 idx = g_ascii_strtoull(l + 7, &end, 10);
      /* "Device N: NAME": N counts the GPUs from 0, in order */
      if (end != l + 7 && *end == ':' && idx != gpus->len) {
        g_autofree char *x = g_strndup(l + 7, MIN((gsize)(end - l - 7), 24));
        val__fail(error, t->name, line,
                  "'Device %s:': expected device %u next (devices are "
                  "listed 0, 1, 2, ...)",
                  x, gpus->len);
        return NULL;
      }
      if (end != l + 7 && *end == ':') {
        g_autofree char *nm = g_strstrip(g_strdup(end + 1));
        char *paren = strrchr(nm, '(');
        if (paren && paren > nm)
          *paren = '\0';
        g_ptr_array_add(gpus, g_strstrip(g_strdup(nm)));
      }
      continue;
    }
    if (g_str_has_prefix(l, "Running ")) {
      const char *nm = l + 8;
      g_autofree char *name = NULL;
      if (g_str_has_prefix(nm, "benchmark "))
        nm += 10;
      name = g_strdup(nm);
      if (g_str_has_suffix(name, "."))
        name[strlen(name) - 1] = '\0';
      if (in_block && cur &&
          !nvbw_rows_done(t->name, line, cur, ncols, next_row, error))
        return NULL;
      cur = nvbw_case(name);
      in_block = TRUE;
      ncols = next_row = 0;
      if (!cur) {
        gboolean listed = FALSE;
        for (guint j = 0; j < skipped->len && !listed; j++)
          listed = g_str_equal(skipped->pdata[j], name);
        if (!listed)
          g_ptr_array_add(skipped, g_strdup(name));
      }
      continue;
    }
    if (!in_block || !cur)
      continue;
    if (g_str_has_prefix(l, "SUM ") || g_str_has_prefix(l, "COEFFICIENT")) {
      if (!nvbw_rows_done(t->name, line, cur, ncols, next_row, error))
        return NULL;
      in_block = FALSE;
      continue;
    }
    if (ncols == 0 && g_str_has_suffix(l, ")") && strrchr(l, '(')) {
      /* the title: "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)" */
      const char *want = cur->value == V_LAT ? "(ns)" : "(GB/s)";
      if (!g_str_equal(strrchr(l, '('), want)) {
        g_autofree char *x = val__excerpt(strrchr(l, '('));
        val__fail(error, t->name, line,
                  "%s: the title gives the unit %s, expected %s", cur->name,
                  x, want);
        return NULL;
      }
      continue;
    }
    tok = val__tokens(l);
    /* rows and the header of column indices start with a number; a line
     * that starts with any number is one of them (a bad index is its
     * error, not a line skipped) */
    if (!tok[0] || !val__numeric_start(tok[0]))
      continue;
    if (!row_index_ok(t->name, line, tok[0], error))
      return NULL;
    if (ncols == 0) { /* the header of column indices */
      ncols = column_indices(tok);
      if (ncols > 0)
        continue;
      val__fail(error, t->name, line,
                "expected the column indices '0 1 ...' of %s's matrix",
                cur->name);
      return NULL;
    }
    if (strtoul(tok[0], NULL, 10) != next_row ||
        next_row >= nvbw_rows(cur, ncols)) {
      guint rows = nvbw_rows(cur, ncols);
      g_autofree char *x = val__excerpt(tok[0]);
      g_autofree char *want =
          next_row < rows ? g_strdup_printf("row %u", next_row)
                          : g_strdup_printf("%u rows (0 to %u), no more", rows,
                                            rows - 1);
      val__fail(error, t->name, line, "row %s of %s's matrix: expected %s",
                x, cur->name, want);
      return NULL;
    }
    if (!row_width_ok(t, line, tok, ncols, error))
      return NULL;
    for (guint j = 0; j < ncols; j++) {
      double v;
      g_autofree char *what = NULL;
      if (g_str_equal(tok[j + 1], "N/A"))
        continue;
      what = g_strdup_printf("%s column %u", cur->name, j);
      if (!val__num(t->name, line, what, tok[j + 1], &v, error) ||
          !nvbw_cell(m, seen, cur, bytes, next_row, j, v, t->name, line,
                     error))
        return NULL;
    }
    next_row++;
  }
  if (in_block && cur &&
      !nvbw_rows_done(t->name, 0, cur, ncols, next_row, error))
    return NULL;
  if (m->points->len == 0) {
    val__fail(error, t->name, 0,
              "no nvbandwidth matrix ifsim imports (expected 'Running "
              "host_to_device_memcpy_ce.' or another known testcase, a "
              "title, column indices and rows)");
    return NULL;
  }
  if (version)
    val_meas_set(m, "nvbandwidth.version", version);
  val__set_gpus(m, gpus);
  val_meas_set(m, "source", "nvbandwidth (imported)");
  nvbw_keys(m, bytes, skipped);
  val__copy_hints(m, t);
  return g_steal_pointer(&m);
}

/* --- nvbandwidth -j ---------------------------------------------------- */

/* nvbandwidth's json_output.cpp: {"nvbandwidth": {"version", "git_version",
 * "CUDA Runtime Version", "Driver Version", "GPU Device list": ["N: NAME
 * (BUS): (HOST)", ...], "testcases": [{"name", "status" (Passed, Waived,
 * Not Found, Error), "bandwidth_description" (the text output's title),
 * "bandwidth_matrix": rows of strings, a number or "N/A", "sum"}],
 * "error", "warning"}}.  The same testcases and points as the text; json-
 * glib keeps no line numbers, so messages name the place by its path
 * ("testcases[3].bandwidth_matrix[2][5]"). */

static const char *jv_str(JsonObject *o, const char *key)
{
  JsonNode *n = o && json_object_has_member(o, key)
                    ? json_object_get_member(o, key)
                    : NULL;

  return n && JSON_NODE_HOLDS_VALUE(n) &&
                 json_node_get_value_type(n) == G_TYPE_STRING
             ? json_node_get_string(n)
             : NULL;
}

/* The member `key` of o, checked to be of `type` when present (NULL when
 * absent); FALSE with an error when it is another type. */
static gboolean jv_member(const char *name, JsonObject *o, const char *path,
                          const char *key, JsonNodeType type, JsonNode **out,
                          GError **error)
{
  static const char *const types[] = {"an object", "a list", "a value", "null"};

  *out = json_object_has_member(o, key) ? json_object_get_member(o, key) : NULL;
  if (*out && JSON_NODE_TYPE(*out) != type)
    return val__fail(error, name, 0, "JSON %s\"%s\": expected %s", path, key,
                     types[type]);
  return TRUE;
}

ValMeasurements *val__import_nvbw_json(const char *name, const char *text,
                                       gsize len, GError **error)
{
  g_autoptr(JsonParser) parser = val__json_parse(name, text, len, error);
  g_autoptr(ValMeasurements) m = NULL;
  g_autoptr(GPtrArray) skipped = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GPtrArray) gpus = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(ValSeen) seen = val__seen_new();
  JsonNode *root, *top, *n;
  JsonObject *nv;
  const char *version, *s;
  guint64 bytes;

  if (!parser)
    return NULL;
  root = json_parser_get_root(parser);
  top = JSON_NODE_HOLDS_OBJECT(root)
            ? json_object_get_member(json_node_get_object(root), "nvbandwidth")
            : NULL;
  if (!top || !JSON_NODE_HOLDS_OBJECT(top)) {
    val__fail(error, name, 0,
              "JSON: expected an object {\"nvbandwidth\": {...}} (nvbandwidth "
              "-j output)");
    return NULL;
  }
  nv = json_node_get_object(top);
  m = val_meas_new();
  if ((s = jv_str(nv, "error"))) {
    g_autofree char *x = val__excerpt(s);
    val__fail(error, name, 0,
              "JSON nvbandwidth.error: the run failed ('%s'): nothing was "
              "measured",
              x);
    return NULL;
  }
  version = jv_str(nv, "version");
  bytes = nvbw_buffer_bytes(version);
  if (version)
    val_meas_set(m, "nvbandwidth.version", version);
  if ((s = jv_str(nv, "Driver Version")))
    val_meas_set(m, "driver", s);
  if (json_object_has_member(nv, "CUDA Runtime Version")) {
    g_autofree char *v = json_to_string(
        json_object_get_member(nv, "CUDA Runtime Version"), FALSE);
    val_meas_set(m, "cuda.runtime", v);
  }
  if (!jv_member(name, nv, "nvbandwidth.", "GPU Device list", JSON_NODE_ARRAY,
                 &n, error))
    return NULL;
  for (guint i = 0; n && i < json_array_get_length(json_node_get_array(n));
       i++) {
    JsonNode *d = json_array_get_element(json_node_get_array(n), i);
    const char *t =
        JSON_NODE_HOLDS_VALUE(d) && json_node_get_value_type(d) == G_TYPE_STRING
            ? json_node_get_string(d)
            : NULL;
    char *end = NULL;
    guint64 idx = t ? g_ascii_strtoull(t, &end, 10) : 0;

    /* "N: NAME (BUS): (HOST)", N counting from 0 */
    if (!t || end == t || idx != i || strncmp(end, ": ", 2) != 0) {
      val__fail(error, name, 0,
                "JSON nvbandwidth.\"GPU Device list\"[%u]: expected \"%u: "
                "NAME (BUS): (HOST)\"",
                i, i);
      return NULL;
    }
    {
      g_autofree char *nm = g_strdup(end + 2);
      char *paren = strstr(nm, " (");

      if (paren)
        *paren = '\0';
      g_ptr_array_add(gpus, g_strstrip(g_strdup(nm)));
    }
  }
  if (!jv_member(name, nv, "nvbandwidth.", "testcases", JSON_NODE_ARRAY, &n,
                 error))
    return NULL;
  for (guint k = 0; n && k < json_array_get_length(json_node_get_array(n));
       k++) {
    JsonNode *tn = json_array_get_element(json_node_get_array(n), k);
    g_autofree char *path = g_strdup_printf("testcases[%u].", k);
    JsonObject *tc;
    JsonNode *mx;
    JsonArray *rows;
    const NvbwCase *c;
    const char *tname, *status, *desc;
    guint ncols;

    if (!JSON_NODE_HOLDS_OBJECT(tn)) {
      val__fail(error, name, 0, "JSON testcases[%u]: expected an object", k);
      return NULL;
    }
    tc = json_node_get_object(tn);
    tname = jv_str(tc, "name");
    status = jv_str(tc, "status");
    if (!tname || !status) {
      val__fail(error, name, 0,
                "JSON %s%s: expected a string (a testcase's name and status)",
                path, tname ? "status" : "name");
      return NULL;
    }
    c = nvbw_case(tname);
    if (!c || !g_str_equal(status, "Passed")) {
      /* other testcases, and those not run, are listed as not imported */
      g_ptr_array_add(skipped, g_str_equal(status, "Passed")
                                   ? g_strdup(tname)
                                   : g_strdup_printf("%s(%s)", tname, status));
      for (gchar *p = skipped->pdata[skipped->len - 1]; *p; p++)
        if (*p == ' ')
          *p = '_';
      continue;
    }
    desc = jv_str(tc, "bandwidth_description");
    if (desc &&
        !g_str_has_suffix(desc, c->value == V_LAT ? "(ns)" : "(GB/s)")) {
      g_autofree char *x = val__excerpt(desc);
      val__fail(error, name, 0,
                "JSON %sbandwidth_description '%s': expected the unit %s", path,
                x, c->value == V_LAT ? "(ns)" : "(GB/s)");
      return NULL;
    }
    if (!jv_member(name, tc, path, "bandwidth_matrix", JSON_NODE_ARRAY, &mx,
                   error))
      return NULL;
    rows = mx ? json_node_get_array(mx) : NULL;
    if (!rows || json_array_get_length(rows) == 0 ||
        !JSON_NODE_HOLDS_ARRAY(json_array_get_element(rows, 0)) ||
        (ncols = json_array_get_length(
             json_node_get_array(json_array_get_element(rows, 0)))) == 0) {
      val__fail(error, name, 0,
                "JSON %sbandwidth_matrix: expected a list of rows, each a "
                "list of values (testcase %s passed)",
                path, tname);
      return NULL;
    }
    if (json_array_get_length(rows) != nvbw_rows(c, ncols)) {
      val__fail(error, name, 0,
                "JSON %sbandwidth_matrix: %u rows of %u values: expected %u "
                "(%s)",
                path, json_array_get_length(rows), ncols, nvbw_rows(c, ncols),
                c->host_row || c->dir == D_LOCAL ? "one" : "one per GPU");
      return NULL;
    }
    for (guint r = 0; r < json_array_get_length(rows); r++) {
      JsonNode *rn = json_array_get_element(rows, r);
      g_autofree char *place =
          g_strdup_printf("%s: JSON %sbandwidth_matrix[%u]", name, path, r);
      JsonArray *row;

      if (!JSON_NODE_HOLDS_ARRAY(rn) ||
          json_array_get_length(json_node_get_array(rn)) != ncols) {
        val__fail(error, place, 0, "expected a list of %u values", ncols);
        return NULL;
      }
      row = json_node_get_array(rn);
      for (guint j = 0; j < ncols; j++) {
        JsonNode *cell = json_array_get_element(row, j);
        g_autofree char *what = g_strdup_printf("%s column %u", c->name, j);
        g_autofree char *num = NULL;
        double v;

        /* the tool writes each value as a string; a number is read too */
        if (JSON_NODE_HOLDS_VALUE(cell) &&
            json_node_get_value_type(cell) == G_TYPE_STRING)
          num = g_strdup(json_node_get_string(cell));
        else if (JSON_NODE_HOLDS_VALUE(cell) &&
                 (json_node_get_value_type(cell) == G_TYPE_DOUBLE ||
                  json_node_get_value_type(cell) == G_TYPE_INT64))
          num = json_to_string(cell, FALSE);
        if (!num) {
          val__fail(error, place, 0, "%s: expected a number or \"N/A\"", what);
          return NULL;
        }
        if (g_str_equal(num, "N/A"))
          continue;
        if (!val__num(place, 0, what, num, &v, error) ||
            !nvbw_cell(m, seen, c, bytes, r, j, v, place, 0, error))
          return NULL;
      }
    }
  }
  if (m->points->len == 0) {
    val__fail(error, name, 0,
              "JSON: no passed testcase ifsim imports (expected "
              "host_to_device_memcpy_ce or another known testcase with status "
              "Passed and a bandwidth_matrix)");
    return NULL;
  }
  val__set_gpus(m, gpus);
  val_meas_set(m, "source", "nvbandwidth -j (imported)");
  nvbw_keys(m, bytes, skipped);
  return g_steal_pointer(&m);
}

ValMeasurements *val__import_nvbw_csv(const ValText *t, const ValCsv *csv,
                                      GError **error)
{
  g_autoptr(ValMeasurements) m = val_meas_new();
  g_autoptr(GPtrArray) skipped = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(ValSeen) seen = val__seen_new();
  GStrv head = csv->rows->pdata[0];
  guint ncols = g_strv_length(head) - 3;
  guint64 bytes;

  if (!hinted_bytes(t, nvbw_buffer_bytes(NULL), &bytes, error) ||
      !gpu_columns(t, csv, ncols, error))
    return NULL;
  for (guint r = 1; r < csv->rows->len; r++) {
    GStrv f = csv->rows->pdata[r];
    guint line = g_array_index(csv->lines, guint, r);
    const NvbwCase *c;
    const char *unit;
    guint64 row;

    if (g_strv_length(f) != ncols + 3) {
      val__fail(error, t->name, line,
                "%u fields, expected %u (testcase,unit,row,col_gpu0..%u): a "
                "truncated row?",
                g_strv_length(f), ncols + 3, ncols - 1);
      return NULL;
    }
    if (!(c = nvbw_case(f[0]))) {
      gboolean listed = FALSE;
      for (guint j = 0; j < skipped->len && !listed; j++)
        listed = g_str_equal(skipped->pdata[j], f[0]);
      if (!listed)
        g_ptr_array_add(skipped, g_strdup(f[0]));
      continue;
    }
    unit = c->value == V_LAT ? "ns" : "GB/s";
    if (!g_str_equal(f[1], unit)) {
      g_autofree char *x = val__excerpt(f[1]);
      val__fail(error, t->name, line, "unit '%s' for %s, expected '%s'", x,
                f[0], unit);
      return NULL;
    }
    if (!g_str_has_prefix(f[2], c->host_row ? "cpu" : "gpu") ||
        !g_ascii_string_to_unsigned(f[2] + 3, 10, 0,
                                    c->host_row ? 0 : ncols - 1, &row,
                                    NULL)) {
      g_autofree char *x = val__excerpt(f[2]);
      g_autofree char *want =
          c->host_row ? g_strdup("cpu0")
                      : g_strdup_printf("gpu0 to gpu%u", ncols - 1);
      val__fail(error, t->name, line, "row '%s' for %s, expected %s", x,
                f[0], want);
      return NULL;
    }
    for (guint j = 0; j < ncols; j++) {
      double v;
      if (g_str_equal(f[3 + j], "N/A"))
        continue;
      if (!val__num(t->name, line, head[3 + j], f[3 + j], &v, error) ||
          !nvbw_cell(m, seen, c, bytes, (guint)row, j, v, t->name, line,
                     error))
        return NULL;
    }
  }
  if (m->points->len == 0) {
    val__fail(error, t->name, 0, "no testcase ifsim imports");
    return NULL;
  }
  val_meas_set(m, "source", "nvbandwidth (imported from a CSV transcription)");
  nvbw_keys(m, bytes, skipped);
  val__copy_hints(m, t);
  return g_steal_pointer(&m);
}
