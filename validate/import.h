/* Importers: measurements users already have, in the text other tools
 * print, into validate/measure.h's points, so they need not be rerun.
 *
 * Recognised from the content (not the file name):
 *   - nccl-tests text output (all_reduce_perf, all_gather_perf, ...: the
 *     "# nThread ... nGpus" header, the "#  Rank" device lines and the
 *     size table), old (no root column) and new (root, #wrong) layouts;
 *   - nccl-tests -J JSON output;
 *   - perftest text (ib_write_bw, ib_send_bw, ib_write_lat, ib_send_lat,
 *     ib_read_*), including --report_gbits and the default MB/sec;
 *   - cuda-samples p2pBandwidthLatencyTest text;
 *   - nvbandwidth text (its matrices, each headed "Running TESTCASE.");
 *   - the CSV transcriptions in tests/data/reference (nccl-tests tables,
 *     p2p matrices, nvbandwidth matrices, perftest tables).
 * The machine description a tool prints (GPU names, NCCL version, device,
 * link type, MTU) goes into the header block; "source" names the tool. */
#ifndef VALIDATE_IMPORT_H
#define VALIDATE_IMPORT_H

#include "validate/measure.h"

/* Parses text in any of those formats.  `name` (the file name) is used in
 * messages only.  On failure the error names the file, the line, and what
 * was expected there; text in none of the formats gets an error listing
 * the formats accepted. */
ValMeasurements *val_import(const char *name, const char *text, gsize len,
                            GError **error);

/* The same, with hints the user gave for a file that does not state them
 * ("collective", "ranks": as its "# key = value" lines would, which win
 * where the file has them); `given` may be NULL. */
ValMeasurements *val_import_given(const char *name, const char *text, gsize len,
                                  GHashTable *given, GError **error);

/* The same, appending to out (whose free function frees sets) one set, or
 * one per run for a paste of several nccl-tests runs (each with the key
 * nccltests.run, "2 of 3, from line 57"); val_import_given refuses such a
 * paste.  On failure out is as it was. */
gboolean val_import_sets(const char *name, const char *text, gsize len,
                         GHashTable *given, GPtrArray *out, GError **error);

#endif /* VALIDATE_IMPORT_H */
