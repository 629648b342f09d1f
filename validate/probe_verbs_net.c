/* The TCP rendezvous of `ifsim-probe verbs`: frames, their encoding and a
 * connection whose every wait is bounded; see validate/probe_verbs.h for
 * the protocol.
 *
 * Invariants: a ProbeVbConn's socket is non-blocking once connected, and
 * every read or write waits in poll() for at most the time left to a
 * deadline computed at the start of the call, so no call here blocks for
 * longer than the connection's timeout.  Frames are read whole (a short
 * read is continued, never interpreted).  Writes use MSG_NOSIGNAL, so a
 * closed peer is an EPIPE error here, not a SIGPIPE. */
#define _GNU_SOURCE /* NI_MAXHOST, SOCK_CLOEXEC, SOCK_NONBLOCK */

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "validate/error.h"
#include "validate/probe_verbs.h"

static const char *const probe_vb_tests[PROBE_VB_N_TESTS] = {
    "write_bw", "send_bw", "write_lat", "send_lat"};

const char *probe_vb_test_name(guint32 test)
{
  return test < PROBE_VB_N_TESTS ? probe_vb_tests[test] : NULL;
}

/* --- encoding ------------------------------------------------------- */

static void put16(guint8 *p, guint16 v)
{
  p[0] = v >> 8;
  p[1] = v;
}

static void put32(guint8 *p, guint32 v)
{
  for (int i = 0; i < 4; i++)
    p[i] = v >> (24 - 8 * i);
}

static void put64(guint8 *p, guint64 v)
{
  for (int i = 0; i < 8; i++)
    p[i] = v >> (56 - 8 * i);
}

static void putd(guint8 *p, double d)
{
  guint64 v;

  G_STATIC_ASSERT(sizeof(d) == sizeof(v));
  memcpy(&v, &d, sizeof(v));
  put64(p, v);
}

static guint16 get16(const guint8 *p)
{
  return (guint16)(p[0] << 8 | p[1]);
}

static guint32 get32(const guint8 *p)
{
  guint32 v = 0;

  for (int i = 0; i < 4; i++)
    v = v << 8 | p[i];
  return v;
}

static guint64 get64(const guint8 *p)
{
  guint64 v = 0;

  for (int i = 0; i < 8; i++)
    v = v << 8 | p[i];
  return v;
}

static double getd(const guint8 *p)
{
  guint64 v = get64(p);
  double d;

  memcpy(&d, &v, sizeof(d));
  return d;
}

/* Payload offsets (from the start of the frame).  PLAN: */
enum {
  OFF_PLAN_TESTS = 8,
  OFF_PLAN_MIN = 12,
  OFF_PLAN_MAX = 20,
  OFF_PLAN_FACTOR = 28,
  OFF_PLAN_ITERS = 36,
  OFF_PLAN_WARMUP = 44,
  OFF_PLAN_DEPTH = 52,
  OFF_PLAN_MTU = 56,
  OFF_PLAN_TIMEOUT = 60
};
/* QP: */
enum {
  OFF_QP_LID = 8,
  OFF_QP_LINK = 10,
  OFF_QP_FLAGS = 11,
  OFF_QP_QPN = 12,
  OFF_QP_PSN = 16,
  OFF_QP_RKEY = 20,
  OFF_QP_GID = 24,
  OFF_QP_GIDX = 40,
  OFF_QP_ADDR = 44,
  OFF_QP_BYTES = 52,
  OFF_QP_MTU = 60
};
/* READY, RESULT: */
enum {
  OFF_ST_TEST = 8,
  OFF_ST_SIZE = 12,
  OFF_ST_ITERS = 20,
  OFF_ST_MIN = 28,
  OFF_ST_MED = 36,
  OFF_ST_MAX = 44,
  OFF_ST_BW = 52
};
/* ABORT: */
enum { OFF_TEXT = 8 };
G_STATIC_ASSERT(OFF_TEXT + PROBE_VB_TEXT <= PROBE_VB_FRAME);

void probe_vb_encode(const ProbeVbMsg *m, guint8 f[PROBE_VB_FRAME])
{
  memset(f, 0, PROBE_VB_FRAME);
  memcpy(f, PROBE_VB_MAGIC, 4);
  put16(f + 4, PROBE_VB_VERSION);
  put16(f + 6, m->kind);
  switch (m->kind) {
  case PROBE_VB_PLAN: {
    const ProbeVbPlan *p = &m->u.plan;
    put32(f + OFF_PLAN_TESTS, p->tests);
    put64(f + OFF_PLAN_MIN, p->min_bytes);
    put64(f + OFF_PLAN_MAX, p->max_bytes);
    put64(f + OFF_PLAN_FACTOR, p->step_factor);
    put64(f + OFF_PLAN_ITERS, p->iters);
    put64(f + OFF_PLAN_WARMUP, p->warmup);
    put32(f + OFF_PLAN_DEPTH, p->tx_depth);
    put32(f + OFF_PLAN_MTU, p->mtu_bytes);
    put32(f + OFF_PLAN_TIMEOUT, p->timeout_s);
    break;
  }
  case PROBE_VB_QP: {
    const ProbeVbQp *q = &m->u.qp;
    put16(f + OFF_QP_LID, q->lid);
    f[OFF_QP_LINK] = q->link_layer;
    f[OFF_QP_FLAGS] = q->flags;
    put32(f + OFF_QP_QPN, q->qpn);
    put32(f + OFF_QP_PSN, q->psn);
    put32(f + OFF_QP_RKEY, q->rkey);
    memcpy(f + OFF_QP_GID, q->gid, 16);
    put32(f + OFF_QP_GIDX, q->gid_index);
    put64(f + OFF_QP_ADDR, q->addr);
    put64(f + OFF_QP_BYTES, q->buf_bytes);
    put32(f + OFF_QP_MTU, q->mtu_bytes);
    break;
  }
  case PROBE_VB_READY:
  case PROBE_VB_RESULT: {
    const ProbeVbStep *s = &m->u.step;
    put32(f + OFF_ST_TEST, s->test);
    put64(f + OFF_ST_SIZE, s->size_bytes);
    put64(f + OFF_ST_ITERS, s->iterations);
    putd(f + OFF_ST_MIN, s->us_min);
    putd(f + OFF_ST_MED, s->us_median);
    putd(f + OFF_ST_MAX, s->us_max);
    putd(f + OFF_ST_BW, s->bw_GBps);
    break;
  }
  case PROBE_VB_ABORT:
    g_strlcpy((char *)f + OFF_TEXT, m->u.text, PROBE_VB_TEXT);
    break;
  case PROBE_VB_PROGRESS: break;
  }
}

gboolean probe_vb_decode(const guint8 f[PROBE_VB_FRAME], ProbeVbMsg *m,
                         GError **error)
{
  guint16 version = get16(f + 4), kind = get16(f + 6);

  memset(m, 0, sizeof(*m));
  if (memcmp(f, PROBE_VB_MAGIC, 4) != 0) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_NET_PROTOCOL,
                "the peer is not an ifsim-probe verbs peer (its first "
                "bytes are %02x %02x %02x %02x, not \"" PROBE_VB_MAGIC "\")",
                f[0], f[1], f[2], f[3]);
    return FALSE;
  }
  if (version != PROBE_VB_VERSION) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_NET_PROTOCOL,
                "the peer speaks version %u of the ifsim-probe verbs "
                "protocol, this side version %u (use the same ifsim on "
                "both hosts)",
                version, PROBE_VB_VERSION);
    return FALSE;
  }
  m->kind = kind;
  switch (kind) {
  case PROBE_VB_PLAN: {
    ProbeVbPlan *p = &m->u.plan;
    p->tests = get32(f + OFF_PLAN_TESTS);
    p->min_bytes = get64(f + OFF_PLAN_MIN);
    p->max_bytes = get64(f + OFF_PLAN_MAX);
    p->step_factor = get64(f + OFF_PLAN_FACTOR);
    p->iters = get64(f + OFF_PLAN_ITERS);
    p->warmup = get64(f + OFF_PLAN_WARMUP);
    p->tx_depth = get32(f + OFF_PLAN_DEPTH);
    p->mtu_bytes = get32(f + OFF_PLAN_MTU);
    p->timeout_s = get32(f + OFF_PLAN_TIMEOUT);
    return TRUE;
  }
  case PROBE_VB_QP: {
    ProbeVbQp *q = &m->u.qp;
    q->lid = get16(f + OFF_QP_LID);
    q->link_layer = f[OFF_QP_LINK];
    q->flags = f[OFF_QP_FLAGS];
    q->qpn = get32(f + OFF_QP_QPN);
    q->psn = get32(f + OFF_QP_PSN);
    q->rkey = get32(f + OFF_QP_RKEY);
    memcpy(q->gid, f + OFF_QP_GID, 16);
    q->gid_index = get32(f + OFF_QP_GIDX);
    q->addr = get64(f + OFF_QP_ADDR);
    q->buf_bytes = get64(f + OFF_QP_BYTES);
    q->mtu_bytes = get32(f + OFF_QP_MTU);
    return TRUE;
  }
  case PROBE_VB_READY:
  case PROBE_VB_RESULT: {
    ProbeVbStep *s = &m->u.step;
    s->test = get32(f + OFF_ST_TEST);
    s->size_bytes = get64(f + OFF_ST_SIZE);
    s->iterations = get64(f + OFF_ST_ITERS);
    s->us_min = getd(f + OFF_ST_MIN);
    s->us_median = getd(f + OFF_ST_MED);
    s->us_max = getd(f + OFF_ST_MAX);
    s->bw_GBps = getd(f + OFF_ST_BW);
    return TRUE;
  }
  case PROBE_VB_ABORT:
    if (!memchr(f + OFF_TEXT, '\0', PROBE_VB_TEXT)) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_NET_PROTOCOL,
                  "the peer sent an error message without its end");
      return FALSE;
    }
    g_strlcpy(m->u.text, (const char *)f + OFF_TEXT, PROBE_VB_TEXT);
    return TRUE;
  case PROBE_VB_PROGRESS: return TRUE;
  default:
    g_set_error(error, VAL_ERROR, VAL_ERROR_NET_PROTOCOL,
                "the peer sent a message of unknown kind %u", kind);
    return FALSE;
  }
}

gboolean probe_vb_plan_check(const ProbeVbPlan *p, GError **error)
{
  const char *bad = NULL;
  guint32 mtu = p->mtu_bytes;

  if (p->tests == 0 || p->tests >= 1u << PROBE_VB_N_TESTS)
    bad = "tests";
  else if (p->min_bytes == 0 || p->min_bytes > p->max_bytes ||
           p->max_bytes > (G_GUINT64_CONSTANT(1) << 31))
    bad = "sizes";
  else if (p->step_factor < 2)
    bad = "step factor";
  else if (p->iters < 1 || p->iters > G_MAXUINT32 || p->warmup > G_MAXUINT32)
    bad = "iterations";
  else if (p->tx_depth < 1 || p->tx_depth > 65536)
    bad = "queue depth";
  else if (mtu != 0 && mtu != 256 && mtu != 512 && mtu != 1024 && mtu != 2048 &&
           mtu != 4096)
    bad = "MTU";
  else if (p->timeout_s < 1)
    bad = "timeout";
  if (bad) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_NET_PROTOCOL,
                "the client's test plan has an invalid %s", bad);
    return FALSE;
  }
  return TRUE;
}

/* --- connection ------------------------------------------------------ */

void probe_vb_conn_init(ProbeVbConn *c, guint timeout_ms)
{
  memset(c, 0, sizeof(*c));
  c->fd = -1;
  c->timeout_ms = timeout_ms;
}

void probe_vb_conn_clear(ProbeVbConn *c)
{
  if (c->fd >= 0)
    close(c->fd);
  c->fd = -1;
}

static gint64 probe_vb_now_ms(void)
{
  return g_get_monotonic_time() / 1000;
}

/* "HOST:PORT" or "[HOST]:PORT" of a socket address, numeric. */
static void probe_vb_addr_name(const struct sockaddr *sa, socklen_t len,
                               char *out, size_t size)
{
  char host[NI_MAXHOST], serv[NI_MAXSERV];
  const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
  struct sockaddr_in in4;

  /* A dual-stack listener sees IPv4 clients as ::ffff:a.b.c.d; name
   * them as IPv4. */
  if (sa->sa_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
    memset(&in4, 0, sizeof(in4));
    in4.sin_family = AF_INET;
    in4.sin_port = in6->sin6_port;
    memcpy(&in4.sin_addr, in6->sin6_addr.s6_addr + 12, 4);
    sa = (const struct sockaddr *)&in4;
    len = sizeof(in4);
  }
  if (getnameinfo(sa, len, host, sizeof(host), serv, sizeof(serv),
                  NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
    g_strlcpy(out, "?", size);
    return;
  }
  g_snprintf(out, size, sa->sa_family == AF_INET6 ? "[%s]:%s" : "%s:%s", host,
             serv);
}

static gboolean probe_vb_set_nonblock(int fd, GError **error)
{
  int flags = fcntl(fd, F_GETFL);

  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_NET_FAILED, "fcntl(O_NONBLOCK): %s",
                g_strerror(errno));
    return FALSE;
  }
  return TRUE;
}

/* What a connected socket gets: no Nagle delay (the frames are small and
 * latency-bound), and keepalive so a peer host that vanishes without a
 * FIN is noticed by the kernel too. */
static void probe_vb_tune(int fd)
{
  int one = 1;

  (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  (void)setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
}

/* Waits for `events` on fd until deadline_ms.  Returns 1 ready, 0 timed
 * out, -1 error (errno). */
static int probe_vb_wait(int fd, short events, gint64 deadline_ms)
{
  for (;;) {
    gint64 left = deadline_ms - probe_vb_now_ms();
    struct pollfd p = {.fd = fd, .events = events};
    int rc;

    if (left <= 0)
      return 0;
    rc = poll(&p, 1, (int)MIN(left, G_MAXINT));
    if (rc < 0 && errno == EINTR)
      continue;
    if (rc <= 0)
      return rc;
    return 1;
  }
}

static void probe_vb_timeout_error(const ProbeVbConn *c, const char *during,
                                   GError **error)
{
  g_set_error(error, VAL_ERROR, VAL_ERROR_NET_TIMEOUT,
              "peer %s sent nothing for %g s during %s (--timeout)", c->peer,
              c->timeout_ms / 1000.0, during);
}

static void probe_vb_closed_error(const ProbeVbConn *c, const char *during,
                                  GError **error)
{
  g_set_error(error, VAL_ERROR, VAL_ERROR_NET_CLOSED,
              "peer %s closed the connection during %s", c->peer, during);
}

int probe_vb_listen(const char *port, guint16 *bound_port, GError **error)
{
  struct addrinfo hints = {.ai_family = AF_UNSPEC,
                           .ai_socktype = SOCK_STREAM,
                           .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
  struct addrinfo *res = NULL;
  int rc = getaddrinfo(NULL, port, &hints, &res), fd = -1, saved = 0;
  const char *call = "socket";

  if (rc != 0) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_NET_FAILED,
                "getaddrinfo(port %s): %s", port, gai_strerror(rc));
    return -1;
  }
  /* IPv6 first, dual-stack, so one socket serves both families; plain
   * IPv4 where the system has no IPv6. */
  for (int pass = 0; pass < 2 && fd < 0; pass++)
    for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
      int one = 1, zero = 0;
      if ((pass == 0) != (a->ai_family == AF_INET6))
        continue;
      fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
      if (fd < 0) {
        saved = errno, call = "socket";
        continue;
      }
      (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
      if (a->ai_family == AF_INET6)
        (void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
      if (bind(fd, a->ai_addr, a->ai_addrlen) < 0)
        saved = errno, call = "bind";
      else if (listen(fd, 1) < 0)
        saved = errno, call = "listen";
      else
        break;
      close(fd);
      fd = -1;
    }
  freeaddrinfo(res);
  if (fd < 0) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_NET_FAILED, "%s(TCP port %s): %s",
                call, port,
                saved ? g_strerror(saved) : "no address to listen on");
    return -1;
  }
  if (bound_port) {
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    *bound_port = 0;
    if (getsockname(fd, (struct sockaddr *)&ss, &len) == 0)
      *bound_port = ntohs(ss.ss_family == AF_INET6
                              ? ((struct sockaddr_in6 *)&ss)->sin6_port
                              : ((struct sockaddr_in *)&ss)->sin_port);
  }
  return fd;
}

gboolean probe_vb_accept(int lfd, ProbeVbConn *c, GError **error)
{
  gint64 deadline = probe_vb_now_ms() + c->timeout_ms;
  struct sockaddr_storage ss;
  socklen_t len = sizeof(ss);
  int rc, fd;

  g_return_val_if_fail(c->fd < 0, FALSE);
  rc = probe_vb_wait(lfd, POLLIN, deadline);
  if (rc == 0) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_NET_TIMEOUT,
                "no client connected within %g s (--timeout)",
                c->timeout_ms / 1000.0);
    return FALSE;
  }
  if (rc < 0) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_NET_FAILED,
                "poll(listening socket): %s", g_strerror(errno));
    return FALSE;
  }
  fd = accept(lfd, (struct sockaddr *)&ss, &len);
  if (fd < 0) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_NET_FAILED, "accept: %s",
                g_strerror(errno));
    return FALSE;
  }
  (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
  if (!probe_vb_set_nonblock(fd, error)) {
    close(fd);
    return FALSE;
  }
  probe_vb_tune(fd);
  probe_vb_addr_name((struct sockaddr *)&ss, len, c->peer, sizeof(c->peer));
  c->fd = fd;
  return TRUE;
}

/* One non-blocking connect attempt to one address; returns the connected
 * socket, or -1 with errno.  Waits no later than deadline_ms. */
static int probe_vb_connect_one(const struct addrinfo *a, gint64 deadline_ms)
{
  int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
                  a->ai_protocol);
  int err = 0, rc;
  socklen_t len = sizeof(err);

  if (fd < 0)
    return -1;
  if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
    return fd;
  if (errno != EINPROGRESS) {
    err = errno;
    goto fail;
  }
  rc = probe_vb_wait(fd, POLLOUT, deadline_ms);
  if (rc <= 0) {
    err = rc == 0 ? ETIMEDOUT : errno;
    goto fail;
  }
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
    err = errno;
  if (err == 0)
    return fd;
fail:
  close(fd);
  errno = err;
  return -1;
}

gboolean probe_vb_connect(ProbeVbConn *c, const char *host, const char *port,
                          GError **error)
{
  gint64 deadline = probe_vb_now_ms() + c->timeout_ms;
  struct addrinfo hints = {.ai_family = AF_UNSPEC,
                           .ai_socktype = SOCK_STREAM,
                           .ai_flags = AI_NUMERICSERV | AI_ADDRCONFIG};
  struct addrinfo *res = NULL;
  int rc, err = 0;

  g_return_val_if_fail(c->fd < 0, FALSE);
  g_snprintf(c->peer, sizeof(c->peer), strchr(host, ':') ? "[%s]:%s" : "%s:%s",
             host, port);
  rc = getaddrinfo(host, port, &hints, &res);
  if (rc == EAI_NONAME || rc == EAI_FAMILY) {
    /* AI_ADDRCONFIG hides ::1 and 127.0.0.1 on a host whose only
     * interface is loopback; ask again without it. */
    hints.ai_flags &= ~AI_ADDRCONFIG;
    rc = getaddrinfo(host, port, &hints, &res);
  }
  if (rc != 0) {
    g_set_error(error, VAL_ERROR, VAL_ERROR_NET_FAILED, "getaddrinfo(%s): %s",
                host, rc == EAI_SYSTEM ? g_strerror(errno) : gai_strerror(rc));
    return FALSE;
  }
  /* A refused connection is retried every 100 ms until the deadline: the
   * server may not be listening yet. */
  for (;;) {
    gboolean refused_only = TRUE;
    for (struct addrinfo *a = res; a; a = a->ai_next) {
      int fd = probe_vb_connect_one(a, deadline);
      if (fd >= 0) {
        freeaddrinfo(res);
        probe_vb_tune(fd);
        c->fd = fd;
        return TRUE;
      }
      err = errno;
      if (err != ECONNREFUSED)
        refused_only = FALSE;
    }
    if (!refused_only || probe_vb_now_ms() + 100 >= deadline)
      break;
    g_usleep(100 * 1000);
  }
  freeaddrinfo(res);
  g_set_error(error, VAL_ERROR,
              err == ETIMEDOUT ? VAL_ERROR_NET_TIMEOUT : VAL_ERROR_NET_FAILED,
              "cannot connect to %s: %s (tried for up to %g s, --timeout)",
              c->peer, g_strerror(err), c->timeout_ms / 1000.0);
  return FALSE;
}

gboolean probe_vb_send(ProbeVbConn *c, const ProbeVbMsg *m, const char *during,
                       GError **error)
{
  gint64 deadline = probe_vb_now_ms() + c->timeout_ms;
  guint8 frame[PROBE_VB_FRAME];
  size_t done = 0;

  probe_vb_encode(m, frame);
  while (done < sizeof(frame)) {
    ssize_t n = send(c->fd, frame + done, sizeof(frame) - done, MSG_NOSIGNAL);
    if (n > 0) {
      done += (size_t)n;
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      int rc = probe_vb_wait(c->fd, POLLOUT, deadline);
      if (rc > 0)
        continue;
      if (rc == 0) {
        g_set_error(error, VAL_ERROR, VAL_ERROR_NET_TIMEOUT,
                    "peer %s accepted no data for %g s during %s "
                    "(--timeout)",
                    c->peer, c->timeout_ms / 1000.0, during);
        return FALSE;
      }
    }
    if (errno == EPIPE || errno == ECONNRESET) {
      probe_vb_closed_error(c, during, error);
      return FALSE;
    }
    g_set_error(error, VAL_ERROR, VAL_ERROR_NET_FAILED,
                "send to %s during %s: %s", c->peer, during, g_strerror(errno));
    return FALSE;
  }
  return TRUE;
}

/* Reads one whole frame, waiting until deadline_ms.  Returns 1 with the
 * frame, 0 when nothing at all had arrived by then (with wait FALSE: at
 * once when nothing is there), -1 with error set. */
static int probe_vb_read_frame(ProbeVbConn *c, guint8 *frame,
                               gint64 deadline_ms, gboolean wait,
                               const char *during, GError **error)
{
  size_t done = 0;

  while (done < PROBE_VB_FRAME) {
    ssize_t n = recv(c->fd, frame + done, PROBE_VB_FRAME - done, 0);
    if (n > 0) {
      done += (size_t)n;
      continue;
    }
    if (n == 0) {
      probe_vb_closed_error(c, during, error);
      return -1;
    }
    if (errno == EINTR)
      continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      int rc;
      if (done == 0 && !wait)
        return 0;
      /* A frame once begun is finished within the timeout. */
      if (done > 0 && !wait)
        deadline_ms = probe_vb_now_ms() + c->timeout_ms, wait = TRUE;
      rc = probe_vb_wait(c->fd, POLLIN, deadline_ms);
      if (rc > 0)
        continue;
      if (rc == 0) {
        if (done == 0)
          return 0;
        probe_vb_timeout_error(c, during, error);
        return -1;
      }
    }
    if (errno == ECONNRESET) {
      probe_vb_closed_error(c, during, error);
      return -1;
    }
    g_set_error(error, VAL_ERROR, VAL_ERROR_NET_FAILED,
                "recv from %s during %s: %s", c->peer, during,
                g_strerror(errno));
    return -1;
  }
  return 1;
}

static gboolean probe_vb_peer_failed(const ProbeVbConn *c, const ProbeVbMsg *m,
                                     GError **error)
{
  g_set_error(error, VAL_ERROR, VAL_ERROR_NET_PEER, "peer %s failed: %s",
              c->peer, m->u.text);
  return FALSE;
}

gboolean probe_vb_recv(ProbeVbConn *c, ProbeVbKind want, ProbeVbMsg *m,
                       const char *during, GError **error)
{
  for (;;) {
    gint64 deadline = probe_vb_now_ms() + c->timeout_ms;
    guint8 frame[PROBE_VB_FRAME];
    g_autoptr(GError) inner = NULL;
    int rc = probe_vb_read_frame(c, frame, deadline, TRUE, during, error);

    if (rc == 0) {
      probe_vb_timeout_error(c, during, error);
      return FALSE;
    }
    if (rc < 0)
      return FALSE;
    if (!probe_vb_decode(frame, m, &inner)) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_NET_PROTOCOL, "%s during %s: %s",
                  c->peer, during, inner->message);
      return FALSE;
    }
    if (m->kind == PROBE_VB_PROGRESS)
      continue;
    if (m->kind == PROBE_VB_ABORT)
      return probe_vb_peer_failed(c, m, error);
    if (m->kind != want) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_NET_PROTOCOL,
                  "peer %s sent message kind %u during %s, expected %u "
                  "(do both sides run the same ifsim?)",
                  c->peer, m->kind, during, want);
      return FALSE;
    }
    return TRUE;
  }
}

gboolean probe_vb_check_peer(ProbeVbConn *c, const char *during, GError **error)
{
  for (;;) {
    guint8 frame[PROBE_VB_FRAME];
    ProbeVbMsg m;
    ssize_t n = recv(c->fd, frame, sizeof(frame), MSG_PEEK | MSG_DONTWAIT);
    g_autoptr(GError) inner = NULL;

    if (n == 0) {
      probe_vb_closed_error(c, during, error);
      return FALSE;
    }
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
        return TRUE;
      if (errno == ECONNRESET) {
        probe_vb_closed_error(c, during, error);
        return FALSE;
      }
      g_set_error(error, VAL_ERROR, VAL_ERROR_NET_FAILED,
                  "recv from %s during %s: %s", c->peer, during,
                  g_strerror(errno));
      return FALSE;
    }
    if ((size_t)n < sizeof(frame))
      return TRUE; /* a frame under way: looked at when whole */
    if (!probe_vb_decode(frame, &m, &inner)) {
      g_set_error(error, VAL_ERROR, VAL_ERROR_NET_PROTOCOL, "%s during %s: %s",
                  c->peer, during, inner->message);
      return FALSE;
    }
    if (m.kind == PROBE_VB_ABORT)
      return probe_vb_peer_failed(c, &m, error);
    if (m.kind != PROBE_VB_PROGRESS)
      return TRUE; /* left for probe_vb_recv */
    if (probe_vb_read_frame(c, frame, 0, FALSE, during, error) < 0)
      return FALSE;
  }
}

void probe_vb_send_error(ProbeVbConn *c, const char *text)
{
  ProbeVbMsg m = {.kind = PROBE_VB_ABORT};
  guint8 frame[PROBE_VB_FRAME];

  if (c->fd < 0)
    return;
  g_strlcpy(m.u.text, text, sizeof(m.u.text));
  probe_vb_encode(&m, frame);
  /* One attempt: the socket buffer is nearly always empty at this point,
   * and a peer that does not read must not hold this side up. */
  (void)send(c->fd, frame, sizeof(frame), MSG_NOSIGNAL | MSG_DONTWAIT);
}
