/* GError domain of the engine layer (sim/).
 *
 * Bad input reaches the user as a GError whose message names the place
 * (file, group, key or flag) and the accepted values; the CLI prints it as
 * "ifsim: <place>: <message>" and exits with status 2.  Bugs are g_assert. */
#ifndef SIM_ERROR_H
#define SIM_ERROR_H

#include <glib.h>

#define SIM_ERROR (sim_error_quark())

typedef enum {
  SIM_ERROR_PARSE, /* text that is not of the expected form */
  SIM_ERROR_RANGE, /* a well-formed value outside the accepted range */
  SIM_ERROR_INTERRUPTED, /* SIGINT or SIGTERM arrived (sim/interrupt.h) */
  SIM_ERROR_MEMORY,      /* the estimate exceeds the memory allowed */
  SIM_ERROR_STALLED,     /* the simulation cannot progress */
} SimErrorCode;

GQuark sim_error_quark(void);

#endif /* SIM_ERROR_H */
