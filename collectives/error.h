/* GError domain of the collectives layer (collectives/): communicators and the
 * calls planned on them (a rank placement the system cannot hold, a choice
 * that cannot run here).
 *
 * Bad input reaches the user as a GError whose message names the place
 * (file, group, key or flag) and the accepted values; the CLI prints it as
 * "ifsim: <command>: <message>" and exits with status 2.  Each layer raises
 * its own domain (docs/architecture.md), so a caller can tell where an
 * error came from; errors a layer only passes on keep the domain of the
 * layer that raised them.  Bugs are g_assert. */
#ifndef COLLECTIVES_ERROR_H
#define COLLECTIVES_ERROR_H

#include <glib.h>

#define COLL_ERROR (coll_error_quark())

typedef enum {
  COLL_ERROR_VALUE,    /* an option of the wrong form or outside its range */
  COLL_ERROR_CONFLICT, /* options or a system that cannot run the call */
} CollErrorCode;

GQuark coll_error_quark(void);

#endif /* COLLECTIVES_ERROR_H */
