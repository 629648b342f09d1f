/* What every libFuzzer harness of tests/fuzz shares: the contract checks.
 *
 * A parser either succeeds and leaves the GError unset, or fails and sets
 * it: a NULL/FALSE without an error is a "silent" failure (the CLI would
 * print nothing and exit 2), an error with a success leaks the error and
 * says two things at once.  Both abort, so libFuzzer records the input as
 * a crash like any sanitizer report.  Measurements a parser accepts must
 * also survive the trip through the measurement format: written by
 * val_meas_csv (what val_meas_write and the probes write) and read back
 * by val_meas_parse with the same number of points.
 *
 * The input is libFuzzer's buffer as is: exactly `size` bytes, not
 * NUL-terminated, so a parser that reads past its `len` argument is an
 * ASan report. */
#ifndef TESTS_FUZZ_FUZZ_COMMON_H
#define TESTS_FUZZ_FUZZ_COMMON_H

#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topologies/import.h"
#include "topologies/system.h"
#include "traces/workload.h"
#include "validate/measure.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts with `what` unless (ok, error) is a success without an error or
 * a failure with one that has a message. */
static inline void fuzz_contract(const char *what, gboolean ok,
                                 const GError *error)
{
  if (!ok && !error) {
    fprintf(stderr, "fuzz: %s failed without setting a GError\n", what);
    abort();
  }
  if (ok && error) {
    fprintf(stderr, "fuzz: %s succeeded but set a GError: %s\n", what,
            error->message);
    abort();
  }
  if (error && (!error->message || !error->message[0])) {
    fprintf(stderr, "fuzz: %s set a GError with no message\n", what);
    abort();
  }
}

/* Checks a workload a reader accepted: it validates, and its workload CSV
 * reads back with the same layout, communicators and ops. */
static inline void fuzz_check_workload(const char *what, const TrcWorkload *w)
{
  g_autofree char *text = trc_workload_to_csv(w);
  g_autoptr(GError) again_error = NULL;
  g_autoptr(TrcWorkload) again =
      trc_workload_load_csv_data(text, strlen(text), "again.csv", &again_error);

  if (!trc_workload_validate(w, NULL) || !again || again->n_ops != w->n_ops ||
      again->n_comms != w->n_comms || again->tp != w->tp ||
      again->pp != w->pp || again->dp != w->dp || again->ep != w->ep ||
      again->per_server != w->per_server) {
    fprintf(stderr,
            "fuzz: %s: a workload did not survive "
            "trc_workload_to_csv: %s\n",
            what, again_error ? again_error->message : "(differs)");
    abort();
  }
}

/* Checks a parser's measurements: the contract, then the round trip. */
static inline void fuzz_check_meas(const char *what, ValMeasurements *m,
                                   GError *error)
{
  fuzz_contract(what, m != NULL, error);
  if (m) {
    g_autofree char *csv = val_meas_csv(m);
    g_autoptr(GError) again = NULL;
    g_autoptr(ValMeasurements) back =
        val_meas_parse("roundtrip.csv", csv, strlen(csv), &again);

    fuzz_contract("val_meas_parse (round trip)", back != NULL, again);
    if (!back || back->points->len != m->points->len) {
      fprintf(stderr,
              "fuzz: %s: its %u points do not read back from the "
              "measurement format: %s\n--- text:\n%s",
              what, m->points->len,
              again ? again->message : "point count differs", csv);
      abort();
    }
  }
}

/* The gate val_import applies before any importer (validate/import.c,
 * check_text): no NUL, valid UTF-8, no control characters but tab, line
 * breaks and form feed.  The per-format harnesses call an importer
 * directly only on inputs that pass it, as val_import would. */
static inline gboolean fuzz_is_text(const char *text, size_t len)
{
  if (memchr(text, '\0', len) || !g_utf8_validate(text, (gssize)len, NULL))
    return FALSE;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)text[i];
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f')
      return FALSE;
  }
  return TRUE;
}

/* The topology-import harnesses: data through topo_import with the
 * format forced, and the system file it returns loaded as `ifsim topo
 * --import` loads it, both held to the contract. */
static inline void fuzz_topo_import(const uint8_t *data, size_t size,
                                    TopoImportFormat format)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *ini = topo_import((const char *)data, size, "fuzz.txt",
                                     format, NULL, &error);

  fuzz_contract("topo_import", ini != NULL, error);
  if (ini) {
    g_autoptr(GError) error2 = NULL;
    g_autoptr(TopoSystem) sys = topo_system_load_data(
        ini, strlen(ini), "imported.ini", NULL, &error2);
    fuzz_contract("topo_system_load_data (imported)", sys != NULL, error2);
  }
}

#endif /* TESTS_FUZZ_FUZZ_COMMON_H */
