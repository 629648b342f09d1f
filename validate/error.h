/* GError domain of the validate layer (validate/): measurements read
 * (nccl-tests, perftest, p2pBandwidthLatencyTest, nvbandwidth, ifsim
 * CSV), calibration, and the probes on real GPUs and RDMA NICs.
 *
 * Bad input reaches the user as a GError whose message names the place
 * (file, group, key or flag) and the accepted values; the CLI prints it as
 * "ifsim: <command>: <message>" and exits with status 2.  Each layer raises
 * its own domain (docs/architecture.md), so a caller can tell where an
 * error came from; errors a layer only passes on keep the domain of the
 * layer that raised them.  Bugs are g_assert. */
#ifndef VALIDATE_ERROR_H
#define VALIDATE_ERROR_H

#include <glib.h>

#define VAL_ERROR (val_error_quark())

typedef enum {
  VAL_ERROR_PARSE,        /* text that is not of the expected form */
  VAL_ERROR_RANGE,        /* a well-formed value outside the accepted range */
  VAL_ERROR_VALUE,        /* values that do not fit together or the system */
  VAL_ERROR_DEVICE,       /* a CUDA or NCCL call failed (the message names it
                             and its code) */
  VAL_ERROR_NET_FAILED,   /* a socket call of the verbs rendezvous failed */
  VAL_ERROR_NET_TIMEOUT,  /* --timeout passed */
  VAL_ERROR_NET_CLOSED,   /* the peer closed the connection */
  VAL_ERROR_NET_PROTOCOL, /* the peer sent what this side cannot read */
  VAL_ERROR_NET_PEER,     /* the peer reported a failure (ABORT) */
} ValErrorCode;

GQuark val_error_quark(void);

#endif /* VALIDATE_ERROR_H */
