/* Reading the reference measurements in tests/data/reference (CSV, with a
 * header row) for tests that compare models with real systems. */
#ifndef TESTS_REF_DATA_H
#define TESTS_REF_DATA_H

#include <glib.h>

typedef struct {
  GPtrArray *rows; /* of GStrv, header excluded */
  GStrv header;
} RefTable;

/* Loads tests/data/reference/NAME; aborts the test when it cannot. */
RefTable *ref_table_load(const char *name);
void ref_table_free(RefTable *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(RefTable, ref_table_free)

/* The numbers of the cells of every row whose first cell is `first`, from
 * column `from` on, skipping non-numbers ("N/A", diagonals are the
 * caller's business). */
GArray *ref_numbers(const RefTable *t, const char *first, guint from);

/* Off-diagonal cells of a p2pBandwidthLatencyTest matrix (rows
 * `matrix,unit,row_gpu,col_gpu0..`): GPU-to-GPU values, local copies
 * excluded. */
GArray *ref_p2p_offdiag(const RefTable *t, const char *matrix);

/* Column `col` of the row whose column `key_col` equals key, as a double;
 * aborts the test when absent. */
double ref_lookup(const RefTable *t, guint key_col, const char *key, guint col);

double ref_median(GArray *values);
double ref_min(GArray *values);
double ref_max(GArray *values);

#endif /* TESTS_REF_DATA_H */
