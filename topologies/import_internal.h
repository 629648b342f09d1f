/* Importer internals shared by topologies/import*.c; not for users. */
#ifndef TOPOLOGIES_IMPORT_INTERNAL_H
#define TOPOLOGIES_IMPORT_INTERNAL_H

#include "topologies/import.h"

/* ibnetdiscover output to a system file (import_ibnet.c); as topo_import. */
char *topo_import_ibnet(const char *text, gsize len, const char *source,
                        const TopoImportOptions *opt, GError **error);

/* A copy of UTF-8 text for an error message: whole when short, else its
 * first 60 characters and "...", so a 10 MB token never fills a message;
 * control characters (tabs) become spaces. */
char *topo_import_excerpt(const char *text);

#endif /* TOPOLOGIES_IMPORT_INTERNAL_H */
