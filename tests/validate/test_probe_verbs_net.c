/* The rendezvous of `ifsim-probe verbs` (validate/probe_verbs_net.c),
 * which needs no RDMA device: the frame layout is fixed and big-endian,
 * foreign or newer peers are refused by name, and over loopback TCP every
 * way a peer can misbehave (never connects, closes, stalls, fails, says
 * the wrong thing, is not up yet) ends in the message the user sees, in
 * bounded time. */
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/suites.h"
#include "validate/error.h"
#include "validate/probe_verbs.h"

/* --- frames ------------------------------------------------------------- */

START_TEST(test_frame_layout)
{
  ProbeVbMsg m = {.kind = PROBE_VB_PLAN}, back;
  guint8 f[PROBE_VB_FRAME];
  g_autoptr(GError) error = NULL;

  m.u.plan.tests = 0x5;
  m.u.plan.min_bytes = 2;
  m.u.plan.max_bytes = 8 << 20;
  m.u.plan.step_factor = 2;
  m.u.plan.iters = 1000;
  m.u.plan.warmup = 100;
  m.u.plan.tx_depth = 128;
  m.u.plan.mtu_bytes = 4096;
  m.u.plan.timeout_s = 10;
  probe_vb_encode(&m, f);
  ck_assert_mem_eq(f, "IFVB\x00\x01\x00\x01\x00\x00\x00\x05", 12);
  /* max_bytes, big-endian u64 at offset 20 */
  ck_assert_mem_eq(f + 20, "\x00\x00\x00\x00\x00\x80\x00\x00", 8);
  for (int i = 64; i < PROBE_VB_FRAME; i++)
    ck_assert_uint_eq(f[i], 0);
  ck_assert(probe_vb_decode(f, &back, &error));
  ck_assert_int_eq(back.kind, PROBE_VB_PLAN);
  ck_assert_mem_eq(&back.u.plan, &m.u.plan, sizeof(m.u.plan));
  ck_assert(probe_vb_plan_check(&back.u.plan, &error));
}
END_TEST

START_TEST(test_frame_roundtrip)
{
  ProbeVbMsg m = {.kind = PROBE_VB_QP}, back;
  guint8 f[PROBE_VB_FRAME];
  g_autoptr(GError) error = NULL;

  m.u.qp.lid = 0x1234;
  m.u.qp.link_layer = 2;
  m.u.qp.flags = PROBE_VB_QP_GRH | PROBE_VB_QP_GPU;
  m.u.qp.qpn = 0xabcdef;
  m.u.qp.psn = 0x123456;
  m.u.qp.rkey = 0xdeadbeef;
  memcpy(m.u.qp.gid,
         "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff"
         "\x0a\x00\x00\x01",
         16);
  m.u.qp.gid_index = 3;
  m.u.qp.addr = G_GUINT64_CONSTANT(0x7f0012345000);
  m.u.qp.buf_bytes = 16 << 20;
  m.u.qp.mtu_bytes = 1024;
  probe_vb_encode(&m, f);
  ck_assert_mem_eq(f + 8, "\x12\x34\x02\x03\x00\xab\xcd\xef", 8);
  ck_assert(probe_vb_decode(f, &back, &error));
  ck_assert_mem_eq(&back.u.qp, &m.u.qp, sizeof(m.u.qp));

  memset(&m, 0, sizeof(m));
  m.kind = PROBE_VB_RESULT;
  m.u.step.test = PROBE_VB_SEND_LAT;
  m.u.step.size_bytes = 65536;
  m.u.step.iterations = 1000;
  m.u.step.us_min = 1.25;
  m.u.step.us_median = 1.5;
  m.u.step.us_max = 1e-300;
  m.u.step.bw_GBps = 43.69;
  probe_vb_encode(&m, f);
  /* 1.25 = 0x3ff4000000000000 */
  ck_assert_mem_eq(f + 28, "\x3f\xf4\x00\x00\x00\x00\x00\x00", 8);
  ck_assert(probe_vb_decode(f, &back, &error));
  ck_assert_mem_eq(&back.u.step, &m.u.step, sizeof(m.u.step));

  memset(&m, 0, sizeof(m));
  m.kind = PROBE_VB_ABORT;
  g_strlcpy(m.u.text, "ibv_post_send: Cannot allocate memory",
            sizeof(m.u.text));
  probe_vb_encode(&m, f);
  ck_assert(probe_vb_decode(f, &back, &error));
  ck_assert_str_eq(back.u.text, m.u.text);
}
END_TEST

/* Decoding `f` fails with a message containing `want`. */
static void expect_decode_error(const guint8 *f, const char *want)
{
  ProbeVbMsg m;
  g_autoptr(GError) error = NULL;

  ck_assert(!probe_vb_decode(f, &m, &error));
  ck_assert_int_eq(error->code, VAL_ERROR_NET_PROTOCOL);
  ck_assert_msg(strstr(error->message, want), "'%s' lacks '%s'", error->message,
                want);
}

START_TEST(test_frame_refused)
{
  ProbeVbMsg m = {.kind = PROBE_VB_ABORT};
  guint8 f[PROBE_VB_FRAME];

  probe_vb_encode(&m, f);
  memcpy(f, "GET ", 4);
  expect_decode_error(f, "not an ifsim-probe verbs peer (its first bytes "
                         "are 47 45 54 20");
  probe_vb_encode(&m, f);
  f[5] = 2;
  expect_decode_error(f, "the peer speaks version 2 of the ifsim-probe "
                         "verbs protocol, this side version 1");
  probe_vb_encode(&m, f);
  f[7] = 99;
  expect_decode_error(f, "unknown kind 99");
  probe_vb_encode(&m, f);
  memset(f + 8, 'x', PROBE_VB_FRAME - 8);
  expect_decode_error(f, "without its end");
}
END_TEST

START_TEST(test_plan_check)
{
  ProbeVbPlan ok = {.tests = 0xf,
                    .min_bytes = 2,
                    .max_bytes = 8 << 20,
                    .step_factor = 2,
                    .iters = 1000,
                    .warmup = 100,
                    .tx_depth = 128,
                    .mtu_bytes = 0,
                    .timeout_s = 10};
  ProbeVbPlan p;
  g_autoptr(GError) error = NULL;

  ck_assert(probe_vb_plan_check(&ok, NULL));
  p = ok, p.mtu_bytes = 300;
  ck_assert(!probe_vb_plan_check(&p, &error));
  ck_assert_str_eq(error->message, "the client's test plan has an invalid "
                                   "MTU");
  p = ok, p.tests = 0x10;
  ck_assert(!probe_vb_plan_check(&p, NULL));
  p = ok, p.min_bytes = 16, p.max_bytes = 8;
  ck_assert(!probe_vb_plan_check(&p, NULL));
  p = ok, p.step_factor = 1;
  ck_assert(!probe_vb_plan_check(&p, NULL));
  p = ok, p.tx_depth = 0;
  ck_assert(!probe_vb_plan_check(&p, NULL));
  p = ok, p.timeout_s = 0;
  ck_assert(!probe_vb_plan_check(&p, NULL));
}
END_TEST

/* --- loopback ------------------------------------------------------------- */

/* What the peer thread does once connected. */
typedef enum {
  PEER_TALK,   /* sends PLAN, expects QP, sends PROGRESS x3 + RESULT */
  PEER_CLOSE,  /* closes at once */
  PEER_STALL,  /* says nothing for 600 ms, then closes */
  PEER_FAIL,   /* sends ERROR */
  PEER_WRONG,  /* sends READY where PLAN is due */
  PEER_GARBAGE /* sends an HTTP request */
} PeerAct;

typedef struct {
  const char *host;
  char port[8];
  PeerAct act;
  guint delay_ms; /* before connecting */
  gboolean ok;
  char message[256];
} Peer;

static gpointer peer_thread(gpointer data)
{
  Peer *p = data;
  ProbeVbConn c;
  ProbeVbMsg m;
  g_autoptr(GError) error = NULL;

  g_usleep(p->delay_ms * 1000);
  probe_vb_conn_init(&c, 2000);
  if (!probe_vb_connect(&c, p->host, p->port, &error))
    goto done;
  switch (p->act) {
  case PEER_TALK:
    memset(&m, 0, sizeof(m));
    m.kind = PROBE_VB_PLAN;
    m.u.plan.tests = 1;
    m.u.plan.iters = 7;
    if (!probe_vb_send(&c, &m, "the test plan", &error) ||
        !probe_vb_recv(&c, PROBE_VB_QP, &m, "the queue-pair exchange", &error))
      goto done;
    ck_assert_uint_eq(m.u.qp.qpn, 0x42);
    for (int i = 0; i < 3; i++) {
      m.kind = PROBE_VB_PROGRESS;
      if (!probe_vb_send(&c, &m, "write_bw 2 B", &error))
        goto done;
    }
    memset(&m, 0, sizeof(m));
    m.kind = PROBE_VB_RESULT;
    m.u.step.size_bytes = 2;
    m.u.step.us_median = 0.5;
    if (!probe_vb_send(&c, &m, "write_bw 2 B", &error))
      goto done;
    /* Waits for the server to close: the close is what ends the test. */
    (void)probe_vb_recv(&c, PROBE_VB_READY, &m, "the end", NULL);
    break;
  case PEER_CLOSE: break;
  case PEER_STALL: g_usleep(600 * 1000); break;
  case PEER_FAIL:
    probe_vb_send_error(&c, "ibv_post_send: Cannot allocate memory");
    g_usleep(100 * 1000);
    break;
  case PEER_WRONG:
    memset(&m, 0, sizeof(m));
    m.kind = PROBE_VB_READY;
    if (!probe_vb_send(&c, &m, "the test plan", &error))
      goto done;
    g_usleep(100 * 1000);
    break;
  case PEER_GARBAGE: {
    char req[PROBE_VB_FRAME];
    memset(req, ' ', sizeof(req));
    memcpy(req, "GET / HTTP/1.0\r\n", 16);
    ck_assert_int_eq(write(c.fd, req, sizeof(req)), sizeof(req));
    g_usleep(100 * 1000);
    break;
  }
  }
  p->ok = TRUE;
done:
  if (error)
    g_strlcpy(p->message, error->message, sizeof(p->message));
  probe_vb_conn_clear(&c);
  return NULL;
}

/* A server on a free port and a peer thread doing `act`; the accepted
 * connection in *c (timeout_ms), the listening socket closed. */
static GThread *start_pair(Peer *p, PeerAct act, const char *host,
                           guint timeout_ms, ProbeVbConn *c)
{
  guint16 port = 0;
  g_autoptr(GError) error = NULL;
  int lfd = probe_vb_listen("0", &port, &error);
  GThread *t;

  ck_assert_msg(lfd >= 0, "%s", error ? error->message : "");
  ck_assert_uint_gt(port, 0);
  memset(p, 0, sizeof(*p));
  p->host = host;
  p->act = act;
  g_snprintf(p->port, sizeof(p->port), "%u", port);
  t = g_thread_new("peer", peer_thread, p);
  probe_vb_conn_init(c, timeout_ms);
  ck_assert_msg(probe_vb_accept(lfd, c, &error), "%s",
                error ? error->message : "");
  close(lfd);
  return t;
}

static void expect_error(const GError *error, int code, const char *want)
{
  ck_assert_ptr_nonnull(error);
  ck_assert_msg(strstr(error->message, want), "'%s' lacks '%s'", error->message,
                want);
  ck_assert_int_eq(error->code, code);
}

START_TEST(test_talk)
{
  Peer p;
  ProbeVbConn c;
  ProbeVbMsg m;
  g_autoptr(GError) error = NULL;
  GThread *t = start_pair(&p, PEER_TALK, "127.0.0.1", 2000, &c);

  ck_assert(g_str_has_prefix(c.peer, "127.0.0.1:"));
  ck_assert(probe_vb_recv(&c, PROBE_VB_PLAN, &m, "the test plan", &error));
  ck_assert_uint_eq(m.u.plan.iters, 7);
  memset(&m, 0, sizeof(m));
  m.kind = PROBE_VB_QP;
  m.u.qp.qpn = 0x42;
  ck_assert(probe_vb_send(&c, &m, "the queue-pair exchange", &error));
  /* PROGRESS frames are consumed while waiting for something else, and
   * skipped by recv. */
  g_usleep(100 * 1000);
  ck_assert(probe_vb_check_peer(&c, "write_bw 2 B", &error));
  ck_assert(probe_vb_recv(&c, PROBE_VB_RESULT, &m, "write_bw 2 B", &error));
  ck_assert_uint_eq(m.u.step.size_bytes, 2);
  ck_assert_double_eq(m.u.step.us_median, 0.5);
  probe_vb_conn_clear(&c);
  g_thread_join(t);
  ck_assert_msg(p.ok, "%s", p.message);
}
END_TEST

START_TEST(test_talk_ipv6)
{
  Peer p;
  ProbeVbConn c;
  ProbeVbMsg m;
  GThread *t;
  int probe = socket(AF_INET6, SOCK_STREAM, 0);

  if (probe < 0)
    return; /* no IPv6 here */
  close(probe);
  t = start_pair(&p, PEER_TALK, "::1", 2000, &c);
  ck_assert_msg(g_str_has_prefix(c.peer, "[::1]:"), "%s", c.peer);
  ck_assert(probe_vb_recv(&c, PROBE_VB_PLAN, &m, "the test plan", NULL));
  memset(&m, 0, sizeof(m));
  m.kind = PROBE_VB_QP;
  m.u.qp.qpn = 0x42;
  ck_assert(probe_vb_send(&c, &m, "the queue-pair exchange", NULL));
  ck_assert(probe_vb_recv(&c, PROBE_VB_RESULT, &m, "write_bw 2 B", NULL));
  probe_vb_conn_clear(&c);
  g_thread_join(t);
  ck_assert_msg(p.ok, "%s", p.message);
}
END_TEST

START_TEST(test_accept_timeout)
{
  guint16 port = 0;
  g_autoptr(GError) error = NULL;
  int lfd = probe_vb_listen("0", &port, &error);
  ProbeVbConn c;
  gint64 t0 = g_get_monotonic_time();

  ck_assert_int_ge(lfd, 0);
  probe_vb_conn_init(&c, 200);
  ck_assert(!probe_vb_accept(lfd, &c, &error));
  expect_error(error, VAL_ERROR_NET_TIMEOUT,
               "no client connected within 0.2 s (--timeout)");
  ck_assert_int_lt(g_get_monotonic_time() - t0, 1000000);
  close(lfd);
}
END_TEST

START_TEST(test_peer_closes)
{
  Peer p;
  ProbeVbConn c;
  ProbeVbMsg m;
  g_autoptr(GError) error = NULL;
  g_autofree char *want = NULL;
  GThread *t = start_pair(&p, PEER_CLOSE, "127.0.0.1", 2000, &c);

  g_thread_join(t);
  want = g_strdup_printf("peer %s closed the connection during the test "
                         "plan",
                         c.peer);
  ck_assert(!probe_vb_recv(&c, PROBE_VB_PLAN, &m, "the test plan", &error));
  expect_error(error, VAL_ERROR_NET_CLOSED, want);
  g_clear_error(&error);
  ck_assert(!probe_vb_check_peer(&c, "send_bw 4 B", &error));
  expect_error(error, VAL_ERROR_NET_CLOSED,
               "closed the connection during "
               "send_bw 4 B");
  probe_vb_conn_clear(&c);
}
END_TEST

START_TEST(test_peer_stalls)
{
  Peer p;
  ProbeVbConn c;
  ProbeVbMsg m;
  g_autoptr(GError) error = NULL;
  GThread *t = start_pair(&p, PEER_STALL, "127.0.0.1", 200, &c);
  gint64 t0 = g_get_monotonic_time();

  ck_assert(probe_vb_check_peer(&c, "the test plan", &error));
  ck_assert(!probe_vb_recv(&c, PROBE_VB_PLAN, &m, "the test plan", &error));
  expect_error(error, VAL_ERROR_NET_TIMEOUT,
               "sent nothing for 0.2 s during the test plan (--timeout)");
  ck_assert_int_lt(g_get_monotonic_time() - t0, 550000);
  probe_vb_conn_clear(&c);
  g_thread_join(t);
}
END_TEST

START_TEST(test_peer_fails)
{
  Peer p;
  ProbeVbConn c;
  ProbeVbMsg m;
  g_autoptr(GError) error = NULL;
  GThread *t = start_pair(&p, PEER_FAIL, "127.0.0.1", 2000, &c);

  g_usleep(50 * 1000);
  ck_assert(!probe_vb_check_peer(&c, "write_lat 2 B", &error));
  expect_error(error, VAL_ERROR_NET_PEER,
               "failed: ibv_post_send: Cannot allocate memory");
  g_clear_error(&error);
  ck_assert(!probe_vb_recv(&c, PROBE_VB_PLAN, &m, "the test plan", &error));
  expect_error(error, VAL_ERROR_NET_PEER,
               "failed: ibv_post_send: Cannot allocate memory");
  probe_vb_conn_clear(&c);
  g_thread_join(t);
}
END_TEST

START_TEST(test_peer_wrong)
{
  Peer p;
  ProbeVbConn c;
  ProbeVbMsg m;
  g_autoptr(GError) error = NULL;
  GThread *t = start_pair(&p, PEER_WRONG, "127.0.0.1", 2000, &c);

  ck_assert(!probe_vb_recv(&c, PROBE_VB_PLAN, &m, "the test plan", &error));
  expect_error(error, VAL_ERROR_NET_PROTOCOL,
               "sent message kind 3 during the test plan, expected 1");
  probe_vb_conn_clear(&c);
  g_thread_join(t);

  t = start_pair(&p, PEER_GARBAGE, "localhost", 2000, &c);
  g_clear_error(&error);
  ck_assert(!probe_vb_recv(&c, PROBE_VB_PLAN, &m, "the test plan", &error));
  expect_error(error, VAL_ERROR_NET_PROTOCOL,
               "is not an ifsim-probe verbs peer");
  probe_vb_conn_clear(&c);
  g_thread_join(t);
}
END_TEST

START_TEST(test_connect_refused)
{
  guint16 port = 0;
  g_autoptr(GError) error = NULL;
  int lfd = probe_vb_listen("0", &port, &error);
  char sport[8];
  ProbeVbConn c;
  gint64 t0;

  ck_assert_int_ge(lfd, 0);
  close(lfd); /* now nothing listens there */
  g_snprintf(sport, sizeof(sport), "%u", port);
  probe_vb_conn_init(&c, 300);
  t0 = g_get_monotonic_time();
  ck_assert(!probe_vb_connect(&c, "127.0.0.1", sport, &error));
  expect_error(error, VAL_ERROR_NET_FAILED, "cannot connect to 127.0.0.1:");
  expect_error(error, VAL_ERROR_NET_FAILED,
               "Connection refused (tried for "
               "up to 0.3 s, --timeout)");
  /* retried until the timeout, not beyond */
  ck_assert_int_ge(g_get_monotonic_time() - t0, 150000);
  ck_assert_int_lt(g_get_monotonic_time() - t0, 1000000);
}
END_TEST

/* The client may start first: a refused connection is retried. */
START_TEST(test_connect_before_listen)
{
  guint16 port = 0;
  g_autoptr(GError) error = NULL;
  int lfd = probe_vb_listen("0", &port, &error);
  Peer p;
  ProbeVbConn c;
  GThread *t;

  ck_assert_int_ge(lfd, 0);
  close(lfd);
  memset(&p, 0, sizeof(p));
  p.host = "127.0.0.1";
  p.act = PEER_CLOSE;
  p.delay_ms = 0;
  g_snprintf(p.port, sizeof(p.port), "%u", port);
  t = g_thread_new("peer", peer_thread, &p);
  g_usleep(300 * 1000);
  lfd = probe_vb_listen(p.port, NULL, &error);
  ck_assert_msg(lfd >= 0, "%s", error ? error->message : "");
  probe_vb_conn_init(&c, 2000);
  ck_assert(probe_vb_accept(lfd, &c, &error));
  close(lfd);
  g_thread_join(t);
  ck_assert_msg(p.ok, "%s", p.message);
  probe_vb_conn_clear(&c);
}
END_TEST

START_TEST(test_listen_busy)
{
  guint16 port = 0;
  g_autoptr(GError) error = NULL;
  int lfd = probe_vb_listen("0", &port, &error);
  char sport[8];
  g_autofree char *want = NULL;

  ck_assert_int_ge(lfd, 0);
  g_snprintf(sport, sizeof(sport), "%u", port);
  want = g_strdup_printf("bind(TCP port %s): Address already in use", sport);
  ck_assert_int_lt(probe_vb_listen(sport, NULL, &error), 0);
  expect_error(error, VAL_ERROR_NET_FAILED, want);
  close(lfd);
}
END_TEST

Suite *suite_verbsnet(void)
{
  Suite *s = suite_create("verbsnet");
  TCase *tc = tcase_create("frames");
  TCase *net = tcase_create("loopback");

  tcase_add_test(tc, test_frame_layout);
  tcase_add_test(tc, test_frame_roundtrip);
  tcase_add_test(tc, test_frame_refused);
  tcase_add_test(tc, test_plan_check);
  suite_add_tcase(s, tc);
  tcase_add_test(net, test_talk);
  tcase_add_test(net, test_talk_ipv6);
  tcase_add_test(net, test_accept_timeout);
  tcase_add_test(net, test_peer_closes);
  tcase_add_test(net, test_peer_stalls);
  tcase_add_test(net, test_peer_fails);
  tcase_add_test(net, test_peer_wrong);
  tcase_add_test(net, test_connect_refused);
  tcase_add_test(net, test_connect_before_listen);
  tcase_add_test(net, test_listen_busy);
  tcase_set_timeout(net, 10);
  suite_add_tcase(s, net);
  return s;
}
