/* The importer harnesses (fuzz_import_*.c): one per tool format.
 *
 * Each input goes through val_import, as a user's file does (the
 * binary-data gate, format detection, the importer chosen, and the CSV
 * transcriptions, told by their header row, which the seeds carry); then,
 * when it is text, straight into that format's text importer of
 * validate/import_internal.h.  Detection looks for one marker line
 * anywhere in the file, which random mutation soon loses; whatever the
 * direct call reaches, val_import reaches too once that line is added (a
 * crash found there is checked that way before it is called a bug), so
 * the direct call is coverage, not a wider attack surface.  The CSV
 * importers are not called directly: they assume the header row
 * import_csv checked (columns 0 and 1 exist).  Every call is held to the
 * contract of fuzz_common.h. */
#ifndef TESTS_FUZZ_FUZZ_IMPORT_H
#define TESTS_FUZZ_FUZZ_IMPORT_H

#include "tests/fuzz/fuzz_common.h"
#include "validate/import_internal.h"

typedef ValMeasurements *(*FuzzTextImporter)(const ValText *t,
                                             GError **error);

static inline void fuzz_import_run(const uint8_t *data, size_t size,
                                   FuzzTextImporter text_importer)
{
  const char *text = (const char *)data;

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(ValMeasurements) m = val_import("fuzz.txt", text, size, &error);
    fuzz_check_meas("val_import", m, error);
  }
  if (text_importer && fuzz_is_text(text, size)) {
    g_autoptr(GError) error = NULL;
    g_autoptr(ValMeasurements) m = NULL;
    ValText t;

    if (!val__text_init(&t, "fuzz.txt", text, size, &error))
      abort();
    m = text_importer(&t, &error);
    fuzz_check_meas("text importer", m, error);
    val__text_clear(&t);
  }
}

#endif /* TESTS_FUZZ_FUZZ_IMPORT_H */
