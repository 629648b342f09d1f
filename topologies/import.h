/* Importers: what users already have, turned into ifsim system files.
 *
 *   nvidia-smi topo -m      a server: GPUs, NICs, NVLink, PCIe pair classes
 *   NCCL topology XML       a server: the PCIe tree, NVLink targets, speeds
 *                           (NCCL_TOPO_DUMP_FILE)
 *   ibnetdiscover           a network: switches, HCAs and their links
 *
 * Each produces the text of a system file (GKeyFile INI) that
 * topo_system_load_data builds into the same internal fabric as any other
 * file; `ifsim topo --import FILE --emit-ini OUT` writes it.  What a dump
 * does not say (the NIC model behind "mlx5_0", the GPU generation behind
 * "NV18") is an assumption written as a comment in the emitted file, and
 * may be set with TopoImportOptions.  Formats and their sources:
 * ../shared/notes/ecosystem-formats.md, sections 1.1-1.3. */
#ifndef TOPOLOGIES_IMPORT_H
#define TOPOLOGIES_IMPORT_H

#include <glib.h>

typedef enum {
  TOPO_IMPORT_AUTO,
  TOPO_IMPORT_SMI,
  TOPO_IMPORT_NCCL_XML,
  TOPO_IMPORT_IBNET,
} TopoImportFormat;

typedef struct {
  const char *nic;    /* NIC model; NULL: from the dump or cx7-ndr */
  const char *nvlink; /* NVLink model; NULL: from the dump */
  const char *pcie;   /* the GPUs' PCIe link model (pcie3-x16 ...); NULL:
                         from the dump, else from the NVLink generation, else
                         assumed (and said) */
  const char *server; /* ibnetdiscover: server template for hosts */
  guint32 sockets;    /* nvidia-smi: CPU sockets the NUMA domains of the
                         dump group into (NPS4, SNC); 0: assumed, and
                         said, where the dump shows more than two */
  const char *p2p;    /* nvidia-smi: "yes" or "no", whether the driver lets
                         GPUs reach each other over PCIe (topo -p2p r: OK or
                         NS); NULL: assumed yes, and said */
} TopoImportOptions;

/* Detects the format of a dump from its text. */
TopoImportFormat topo_import_detect(const char *text, gsize len);

/* Returns the system file text, or NULL with an error naming `source` and
 * the line. */
char *topo_import(const char *text, gsize len, const char *source,
                  TopoImportFormat format, const TopoImportOptions *opt,
                  GError **error);

#endif /* TOPOLOGIES_IMPORT_H */
