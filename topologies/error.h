/* GError domain of the topologies layer (topologies/): system files, server
 * templates, builders, routing and the importers of nvidia-smi, NCCL XML
 * and ibnetdiscover text.
 *
 * Bad input reaches the user as a GError whose message names the place
 * (file, group, key or flag) and the accepted values; the CLI prints it as
 * "ifsim: <command>: <message>" and exits with status 2.  Each layer raises
 * its own domain (docs/architecture.md), so a caller can tell where an
 * error came from; errors a layer only passes on keep the domain of the
 * layer that raised them.  Bugs are g_assert. */
#ifndef TOPOLOGIES_ERROR_H
#define TOPOLOGIES_ERROR_H

#include <glib.h>

#define TOPO_ERROR (topo_error_quark())

typedef enum {
  TOPO_ERROR_SYNTAX,     /* a file that is not of its format (INI, XML, text) */
  TOPO_ERROR_UNKNOWN,    /* an unknown group, key, name or kind */
  TOPO_ERROR_VALUE,      /* a value of the wrong form or outside its range */
  TOPO_ERROR_MISSING,    /* a required group or key is absent */
  TOPO_ERROR_CONFLICT,   /* values fine alone but not together; a system
                            that cannot be built or routed */
  TOPO_ERROR_UNMODELLED, /* a state that a real system can be in but that
                            ifsim does not model (not a fault that cuts
                            the job) */
} TopoErrorCode;

GQuark topo_error_quark(void);

#endif /* TOPOLOGIES_ERROR_H */
