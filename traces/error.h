/* GError domain of the traces layer (traces/): workloads read (CSV, LLM
 * layouts, ASTRA-sim text) and results written.
 *
 * Bad input reaches the user as a GError whose message names the place
 * (file, group, key or flag) and the accepted values; the CLI prints it as
 * "ifsim: <command>: <message>" and exits with status 2.  Each layer raises
 * its own domain (docs/architecture.md), so a caller can tell where an
 * error came from; errors a layer only passes on keep the domain of the
 * layer that raised them.  Bugs are g_assert. */
#ifndef TRACES_ERROR_H
#define TRACES_ERROR_H

#include <glib.h>

#define TRC_ERROR (trc_error_quark())

typedef enum {
  TRC_ERROR_PARSE, /* text that is not of the expected form */
  TRC_ERROR_RANGE, /* a well-formed value outside the accepted range */
  TRC_ERROR_VALUE, /* values that do not fit together or the system */
} TrcErrorCode;

GQuark trc_error_quark(void);

#endif /* TRACES_ERROR_H */
