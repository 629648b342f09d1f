/* What the files of `ifsim-probe verbs` share: the TCP rendezvous of the
 * two sides and its messages (validate/probe_verbs_net.c, which needs no
 * RDMA library and so is unit-tested on any machine), and the decoding of
 * an RDMA port's link speed (validate/probe_devices.c, which also prints
 * it).
 *
 * The wire protocol.  Every message is one frame of PROBE_VB_FRAME bytes:
 *
 *   offset 0  "IFVB"          magic
 *          4  u16 version     PROBE_VB_VERSION
 *          6  u16 kind        ProbeVbKind
 *          8  payload         per kind, zero-filled to the end
 *
 * All integers are unsigned big-endian; a double travels as the big-endian
 * bits of its IEEE 754 binary64 representation; a GID as its 16 bytes in
 * network order (as ibv_gid holds it).  A frame with another magic or
 * version is refused with a message naming what the peer sent, so two
 * different ifsim versions fail cleanly instead of misreading each other.
 *
 * The conversation (C client, S server):
 *
 *   C->S PLAN                   the client's test plan; the server adopts it
 *   S->C QP, C->S QP            queue-pair and buffer of each side
 *   for each test, each size:
 *     S->C READY                server prepared (receives posted, buffer
 *                               cleared)
 *     ...RDMA traffic; during a long step the client sends PROGRESS
 *        frames so the server's wait stays bounded by --timeout...
 *     C->S RESULT               what the client measured; the server
 *                               records the same point
 *
 * Either side that fails after the connection is up sends ABORT with its
 * message before it closes, so the other side reports the cause rather
 * than a closed connection. */
#ifndef VALIDATE_PROBE_VERBS_H
#define VALIDATE_PROBE_VERBS_H

#include <glib.h>

#define PROBE_VB_FRAME 256
#define PROBE_VB_VERSION 1
#define PROBE_VB_MAGIC "IFVB"
#define PROBE_VB_DEFAULT_PORT "18515" /* perftest's */
#define PROBE_VB_TEXT 240             /* ABORT text, NUL included */

/* The tests, as bits of ProbeVbPlan.tests, in the order they run. */
typedef enum {
  PROBE_VB_WRITE_BW,
  PROBE_VB_SEND_BW,
  PROBE_VB_WRITE_LAT,
  PROBE_VB_SEND_LAT,
  PROBE_VB_N_TESTS
} ProbeVbTest;

/* "write_bw", ...; NULL outside the enum. */
const char *probe_vb_test_name(guint32 test);

typedef enum {
  PROBE_VB_PLAN = 1,
  PROBE_VB_QP,
  PROBE_VB_READY,
  PROBE_VB_RESULT,
  PROBE_VB_PROGRESS,
  PROBE_VB_ABORT
} ProbeVbKind;

/* The client's options that both sides must share. */
typedef struct {
  guint32 tests; /* bit (1 << ProbeVbTest) per test to run */
  guint64 min_bytes, max_bytes, step_factor;
  guint64 iters, warmup;
  guint32 tx_depth;
  guint32 mtu_bytes; /* 0: the smaller of the two ports' active MTU */
  guint32 timeout_s;
} ProbeVbPlan;

#define PROBE_VB_QP_GRH 0x1 /* this side routes by GID (RoCE, or -x) */
#define PROBE_VB_QP_GPU 0x2 /* its buffer is GPU memory */

/* One side's queue pair and buffer.  The buffer is 2 x max_bytes: the
 * first half is what this side sends from, the second what the peer
 * writes into (addr and rkey describe the whole buffer). */
typedef struct {
  guint16 lid;
  guint8 link_layer; /* IBV_LINK_LAYER_* */
  guint8 flags;      /* PROBE_VB_QP_* */
  guint32 qpn, psn, rkey;
  guint8 gid[16];
  guint32 gid_index;
  guint64 addr, buf_bytes;
  guint32 mtu_bytes; /* the port's active MTU */
} ProbeVbQp;

/* READY (test, size_bytes) and RESULT (all of it; times per operation). */
typedef struct {
  guint32 test;
  guint64 size_bytes, iterations;
  double us_min, us_median, us_max, bw_GBps;
} ProbeVbStep;

typedef struct {
  ProbeVbKind kind;
  union {
    ProbeVbPlan plan;
    ProbeVbQp qp;
    ProbeVbStep step;
    char text[PROBE_VB_TEXT];
  } u;
} ProbeVbMsg;

/* Errors of the rendezvous: VAL_ERROR_NET_* (validate/error.h). */

/* Encodes m into a frame (fields beyond the kind's payload are zero). */
void probe_vb_encode(const ProbeVbMsg *m, guint8 frame[PROBE_VB_FRAME]);
/* Decodes a frame; fails (PROTOCOL) on another magic or version, an
 * unknown kind or an ABORT text without its NUL. */
gboolean probe_vb_decode(const guint8 frame[PROBE_VB_FRAME], ProbeVbMsg *m,
                         GError **error);
/* Checks a plan as the server receives it: what the client's option
 * parsing guarantees, so only a broken or foreign peer fails it. */
gboolean probe_vb_plan_check(const ProbeVbPlan *p, GError **error);

/* A connection to the peer.  The socket is non-blocking; every wait is
 * bounded by timeout_ms.  `peer` is "HOST:PORT" ("[ADDR]:PORT" for IPv6)
 * for messages. */
typedef struct {
  int fd;
  guint timeout_ms;
  char peer[128];
} ProbeVbConn;

/* fd -1, nothing owned. */
void probe_vb_conn_init(ProbeVbConn *c, guint timeout_ms);
/* Closes the socket if open; the struct can be reused. */
void probe_vb_conn_clear(ProbeVbConn *c);

/* Listens on TCP `port` ("0": any free port) on all addresses, IPv6 and
 * IPv4 where the system allows.  Returns the socket (the caller closes it)
 * and the bound port, or -1 with error set. */
int probe_vb_listen(const char *port, guint16 *bound_port, GError **error);
/* Waits up to c->timeout_ms for one client on lfd and accepts it into c
 * (the listening socket stays open; the caller closes it). */
gboolean probe_vb_accept(int lfd, ProbeVbConn *c, GError **error);
/* Connects to host:port (getaddrinfo, every address in turn), retrying a
 * refused connection until c->timeout_ms has passed, so the client may be
 * started just before the server. */
gboolean probe_vb_connect(ProbeVbConn *c, const char *host, const char *port,
                          GError **error);

/* Sends one message.  `during` names the step for messages ("the test
 * plan"): "peer HOST:PORT closed the connection during the test plan". */
gboolean probe_vb_send(ProbeVbConn *c, const ProbeVbMsg *m, const char *during,
                       GError **error);
/* Receives the next message of kind `want`, skipping PROGRESS frames (each
 * restarts the timeout).  Fails on a timeout, a closed connection, an
 * ABORT from the peer (PEER, with its text) or another kind (PROTOCOL). */
gboolean probe_vb_recv(ProbeVbConn *c, ProbeVbKind want, ProbeVbMsg *m,
                       const char *during, GError **error);
/* Without waiting: consumes any PROGRESS frames already received, and
 * fails when the peer has closed the connection or sent ABORT.  For loops
 * that wait on something else (a completion queue, a byte in memory), so
 * that a peer that dies is reported at once, not at the timeout. */
gboolean probe_vb_check_peer(ProbeVbConn *c, const char *during,
                             GError **error);
/* Best effort, never blocks long: tells the peer why this side stops. */
void probe_vb_send_error(ProbeVbConn *c, const char *text);

/* --- port speed (validate/probe_devices.c) --------------------------- */

/* "4x NDR 400 Gb/s" from ibv_port_attr's active_width and active_speed
 * (IBTA encodings, as ibv_devinfo decodes them); "?" parts for values
 * it does not know.  Free with g_free. */
char *probe_ibv_link_str(guint8 active_width, guint32 active_speed);

#endif /* VALIDATE_PROBE_VERBS_H */
