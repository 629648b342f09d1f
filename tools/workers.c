/* Work over worker processes (tools/workers.h). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/interrupt.h"
#include "tools/cli.h"
#include "tools/sweep.h"
#include "tools/workers.h"
#include "traces/output.h"

typedef struct {
  gboolean keep_going;
  CliWorkFn work;
  CliRecordFn record;
  void *ctx;
} Pool;

/* Whether a worker goes on after an item that ran (ok) or failed. */
static gboolean go_on(const Pool *pl, gboolean ok)
{
  return ok || (pl->keep_going && !sim_interrupted());
}

/* A worker: items[w], items[w + jobs], ... sent to fd as they finish. */
G_GNUC_NORETURN static void worker(const Pool *pl, const guint *items, guint n,
                                   guint w, guint jobs, int fd)
{
  for (guint k = w; k < n; k += jobs) {
    g_autoptr(GByteArray) frame = g_byte_array_new();
    gboolean ok;
    g_autofree char *text = pl->work(pl->ctx, items[k], &ok);

    cli_sweep_frame_append(frame, items[k], ok, text);
    if (!trc_write_all(fd, frame->data, frame->len) || !go_on(pl, ok))
      break;
  }
  close(fd);
  _exit(0);
}

static void stop_workers(const pid_t *pids, guint jobs)
{
  for (guint w = 0; w < jobs; w++) {
    if (pids[w] > 0)
      kill(pids[w], SIGKILL);
  }
}

/* Runs items over `jobs` worker processes, recording what they send. */
static gboolean run_parallel(const Pool *pl, const guint *items, guint n,
                             guint jobs, GError **error)
{
  g_autofree pid_t *pids = g_new0(pid_t, jobs);
  g_autofree struct pollfd *fds = g_new0(struct pollfd, jobs);
  g_autoptr(GPtrArray) bufs =
      g_ptr_array_new_with_free_func((GDestroyNotify)g_byte_array_unref);
  guint open_fds = 0;
  gboolean stop = FALSE, ok = TRUE;

  fflush(NULL);
  for (guint w = 0; w < jobs; w++) {
    int fd[2];

    fds[w].fd = -1;
    g_ptr_array_add(bufs, g_byte_array_new());
    if (pipe(fd) != 0) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "-j: cannot create a pipe for worker %u: %s", w,
                  g_strerror(errno));
      ok = FALSE;
      break;
    }
    pids[w] = fork();
    if (pids[w] < 0) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "-j: cannot start worker %u: %s", w, g_strerror(errno));
      close(fd[0]);
      close(fd[1]);
      ok = FALSE;
      break;
    }
    if (pids[w] == 0) {
      close(fd[0]);
      for (guint k = 0; k < w; k++)
        close(fds[k].fd);
      /* The worker ends with _exit: nothing of this frame is freed after
       * it (memcheck would call these lost). */
      g_clear_pointer(&pids, g_free);
      g_clear_pointer(&fds, g_free);
      g_clear_pointer(&bufs, g_ptr_array_unref);
      worker(pl, items, n, w, jobs, fd[1]);
    }
    close(fd[1]);
    fds[w].fd = fd[0];
    fds[w].events = POLLIN;
    open_fds++;
  }
  if (!ok) {
    stop = TRUE;
    stop_workers(pids, jobs);
  }
  while (!stop && open_fds > 0) {
    guint8 chunk[65536];

    if (poll(fds, jobs, 200) < 0 && errno != EINTR)
      break;
    if (sim_interrupted())
      break;
    for (guint w = 0; w < jobs && !stop; w++) {
      GByteArray *buf = g_ptr_array_index(bufs, w);
      gsize at = 0;
      guint32 item;
      gboolean iok;
      char *text;
      ssize_t got;

      if (fds[w].fd < 0 || !(fds[w].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      got = read(fds[w].fd, chunk, sizeof(chunk));
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0) {
        close(fds[w].fd);
        fds[w].fd = -1;
        open_fds--;
        continue;
      }
      g_byte_array_append(buf, chunk, (guint)got);
      while (
          cli_sweep_frame_next(buf->data, buf->len, &at, &item, &iok, &text)) {
        if (!pl->record(pl->ctx, item, iok, text))
          stop = TRUE;
      }
      g_byte_array_remove_range(buf, 0, (guint)at);
    }
  }
  if (stop || sim_interrupted())
    stop_workers(pids, jobs);
  for (guint w = 0; w < jobs; w++) {
    int st;

    if (fds[w].fd >= 0)
      close(fds[w].fd);
    if (pids[w] > 0 && waitpid(pids[w], &st, 0) > 0 && !stop && ok &&
        !sim_interrupted() && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
      g_set_error(error, CLI_ERROR, CLI_ERROR_BAD_VALUE,
                  "worker %u (pid %ld) ended abnormally (%s %d)", w,
                  (long)pids[w], WIFSIGNALED(st) ? "signal" : "status",
                  WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
      ok = FALSE;
    }
  }
  return ok && sim_interrupt_check(error);
}

gboolean cli_workers_run(const guint *items, guint n, guint jobs,
                         gboolean keep_going, CliWorkFn work,
                         CliRecordFn record, void *ctx, GError **error)
{
  Pool pl = {keep_going, work, record, ctx};

  if (jobs > n)
    jobs = n;
  if (jobs > 1)
    return run_parallel(&pl, items, n, jobs, error);
  for (guint k = 0; k < n; k++) {
    gboolean ok;
    char *text = work(ctx, items[k], &ok);

    if (!record(ctx, items[k], ok, text))
      break;
  }
  return sim_interrupt_check(error);
}
