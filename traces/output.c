/* realpath (POSIX.1-2008 XSI), beside the project's _POSIX_C_SOURCE */
#define _XOPEN_SOURCE 700
/* A run's output files, committed together; see traces/output.h. */
#include "traces/output.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/interrupt.h"

typedef struct {
  char *path;        /* the destination, as given */
  char *target;      /* where the data goes: path, or the file its symbolic
                   links lead to */
  char *tmp;         /* the temporary; NULL for "-" or once renamed */
  char *text;        /* for "-" and in-place outputs, written at commit */
  int fd;            /* an in-place output (a device, a FIFO): open from the
                   start, written at commit; -1 otherwise */
  gboolean reserved; /* tmp was handed to another program (reserve) */
  gboolean in_place; /* fd's output */
  char *canon;       /* target with its directory's real path: two outputs
                        to one file ("out.csv", "./out.csv", a link to it)
                        have the same */
} Output;

struct TrcOutputs {
  GArray *items; /* Output, in the order added */
};

/* Whether a commit of this process has put a file in place */
static gboolean wrote_files;

gboolean trc_outputs_wrote_files(void)
{
  return wrote_files;
}

static void output_clear(void *p)
{
  Output *x = p;

  if (x->tmp)
    g_unlink(x->tmp);
  if (x->fd >= 0)
    close(x->fd);
  g_free(x->path);
  g_free(x->target);
  g_free(x->canon);
  g_free(x->tmp);
  g_free(x->text);
}

TrcOutputs *trc_outputs_new(void)
{
  TrcOutputs *o = g_new0(TrcOutputs, 1);

  o->items = g_array_new(FALSE, TRUE, sizeof(Output));
  g_array_set_clear_func(o->items, output_clear);
  return o;
}

void trc_outputs_free(TrcOutputs *o)
{
  if (!o)
    return;
  g_array_unref(o->items);
  g_free(o);
}

static gboolean fail_errno(GError **error, const char *path, const char *what,
                           int err)
{
  g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(err),
              "%s: cannot %s (%s)", path, what, g_strerror(err));
  return FALSE;
}

/* Opens a new temporary file for x: next to its target, so that the
 * rename stays on one file system; for an in-place output, in the
 * temporary directory (only a program writing a reserved file uses it).
 * A target that exists keeps its permission bits, and its owner where the
 * process may give it (root), once the temporary replaces it. */
static int open_temp(const char *path, Output *x, GError **error)
{
  g_autofree char *dir =
      x->in_place ? g_strdup(g_get_tmp_dir()) : g_path_get_dirname(x->target);
  g_autofree char *base = g_path_get_basename(x->target);
  struct stat st;
  int fd;

  x->tmp = g_strdup_printf("%s/.%s.XXXXXX", dir, base);
  fd = g_mkstemp_full(x->tmp, O_WRONLY, 0666);
  if (fd < 0) {
    int err = errno;
    g_clear_pointer(&x->tmp, g_free);
    fail_errno(error, path, "write", err);
    return -1;
  }
  if (!x->in_place && stat(x->target, &st) == 0 && S_ISREG(st.st_mode)) {
    if (fchmod(fd, st.st_mode & 07777) != 0 ||
        (geteuid() == 0 && fchown(fd, st.st_uid, st.st_gid) != 0)) {
      int err = errno;
      close(fd);
      fail_errno(error, path, "keep the permissions of", err);
      return -1;
    }
  }
  return fd;
}

/* Where path's data goes: the file at the end of its symbolic links (a
 * link is kept and its target written; a dangling link's target is
 * created), and whether that is a regular file (or none yet), replaced by
 * a rename, or a device or FIFO, opened now and written in place at
 * commit.  A directory or a socket is refused, as is a FIFO that no
 * process reads (writing to it would block). */
#define MAX_LINKS 40
static gboolean open_in_place(const char *path, const struct stat *stp,
                              Output *x, GError **error);

static gboolean resolve(const char *path, Output *x, GError **error)
{
  char *target = g_strdup(path);
  struct stat st;
  int links = 0;

  x->fd = -1;
  /* What the path leads to, links followed by the kernel (which also
   * follows /proc's links, /dev/stdout among them, that name no file) */
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    x->target = target;
    return open_in_place(path, &st, x, error);
  }
  while (lstat(target, &st) == 0 && S_ISLNK(st.st_mode)) {
    g_autoptr(GError) local = NULL;
    char *to = g_file_read_link(target, &local);

    if (!to || ++links > MAX_LINKS) {
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_LOOP,
                  "%s: cannot follow its symbolic link%s", path,
                  to ? "s (too many)" : "");
      g_free(to);
      g_free(target);
      return FALSE;
    }
    if (!g_path_is_absolute(to)) {
      g_autofree char *dir = g_path_get_dirname(target);
      char *joined = g_build_filename(dir, to, NULL);

      g_free(to);
      to = joined;
    }
    g_free(target);
    target = to;
  }
  x->target = target;
  return TRUE; /* a new file, or one to replace */
}

/* A destination that is not a regular file: a device or FIFO is opened
 * for writing in place, anything else refused. */
static gboolean open_in_place(const char *path, const struct stat *stp,
                              Output *x, GError **error)
{
  if (S_ISDIR(stp->st_mode)) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_ISDIR,
                "%s: is a directory (expected a file name)", path);
    return FALSE;
  }
  if (!S_ISCHR(stp->st_mode) && !S_ISBLK(stp->st_mode) &&
      !S_ISFIFO(stp->st_mode)) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                "%s: is neither a file, a device nor a FIFO; nothing "
                "written",
                path);
    return FALSE;
  }
  /* A device or FIFO is never replaced: written in place.  O_NONBLOCK so
   * that a FIFO nobody reads fails (ENXIO) instead of hanging. */
  x->fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  if (x->fd < 0) {
    int err = errno;

    if (err == ENXIO)
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NXIO,
                  "%s: a FIFO that no process reads; nothing written", path);
    else
      fail_errno(error, path, "open", err);
    return FALSE;
  }
  fcntl(x->fd, F_SETFL, fcntl(x->fd, F_GETFL) & ~O_NONBLOCK);
  x->in_place = TRUE;
  return TRUE;
}

gboolean trc_write_all(int fd, const void *data, gsize len)
{
  const char *text = data;

  while (len > 0) {
    ssize_t n = write(fd, text, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return FALSE;
    text += n;
    len -= (gsize)n;
  }
  return TRUE;
}

/* target's directory made real (symbolic links, "..", relative), and its
 * name: one text per file, whatever the spelling. */
static char *canonical(const char *target)
{
  g_autofree char *dir = g_path_get_dirname(target);
  g_autofree char *base = g_path_get_basename(target);
  g_autofree char *real = realpath(dir, NULL);

  return g_build_filename(real ? real : dir, base, NULL);
}

/* Appends path's entry, refusing a path given twice, in any spelling. */
static Output *add_entry(TrcOutputs *o, const char *path, GError **error)
{
  Output x = {.path = g_strdup(path), .fd = -1};
  Output *added;

  if (path[0] == '\0') {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                "'': an empty file name (expected a path, or - for standard "
                "output)");
    g_free(x.path);
    return NULL;
  }
  for (guint i = 0; i < o->items->len; i++) {
    if (g_str_equal(g_array_index(o->items, Output, i).path, path)) {
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_EXIST,
                  "%s: given for two outputs of one run", path);
      g_free(x.path);
      return NULL;
    }
  }
  g_array_append_val(o->items, x);
  added = &g_array_index(o->items, Output, o->items->len - 1);
  if (g_str_equal(path, "-"))
    return added;
  if (!resolve(path, added, error))
    return NULL; /* the set's clear function frees the entry */
  added->canon = canonical(added->target ? added->target : path);
  for (guint i = 0; i + 1 < o->items->len; i++) {
    const Output *y = &g_array_index(o->items, Output, i);

    if (y->canon && g_str_equal(y->canon, added->canon)) {
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_EXIST,
                  "%s: the same file as %s, given for two outputs of one run",
                  path, y->path);
      return NULL;
    }
  }
  return added;
}

gboolean trc_outputs_add(TrcOutputs *o, const char *path, char *text,
                         GError **error)
{
  g_autofree char *owned = text;
  Output *x = add_entry(o, path, error);
  int fd;
  gboolean ok;
  int err;

  if (!x)
    return FALSE;
  if (g_str_equal(path, "-") || x->in_place) {
    x->text = g_steal_pointer(&owned);
    return TRUE;
  }
  fd = open_temp(path, x, error);
  if (fd < 0)
    return FALSE;
  ok = trc_write_all(fd, owned, strlen(owned)) && fsync(fd) == 0;
  err = errno;
  if (close(fd) != 0 && ok) {
    ok = FALSE;
    err = errno;
  }
  return ok || fail_errno(error, path, "write", err);
}

const char *trc_outputs_reserve(TrcOutputs *o, const char *path,
                                GError **error)
{
  Output *x = add_entry(o, path, error);
  int fd;

  if (!x)
    return NULL;
  if (g_str_equal(path, "-")) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                "-: this output needs a file name, not standard output");
    return NULL;
  }
  fd = open_temp(path, x, error);
  if (fd < 0)
    return NULL;
  close(fd);
  x->reserved = TRUE;
  return x->tmp;
}

/* Writes an in-place output: its text, or what a program wrote into its
 * reserved temporary. */
static gboolean write_in_place(Output *x, GError **error)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  int err;

  if (x->reserved) {
    if (!g_file_get_contents(x->tmp, &data, &len, error))
      return FALSE;
  } else {
    data = g_steal_pointer(&x->text);
    len = strlen(data);
  }
  if (!trc_write_all(x->fd, data, len))
    return fail_errno(error, x->path, "write", errno);
  err = close(x->fd) == 0 ? 0 : errno;
  x->fd = -1;
  return err == 0 || fail_errno(error, x->path, "write", err);
}

/* What the command printed before the commit must have reached standard
 * output (a full disk, /dev/full): else the run failed, and its files must
 * not replace an earlier run's. */
static gboolean stdout_ok(GError **error)
{
  errno = 0;
  if (fflush(stdout) == 0 && !ferror(stdout))
    return TRUE;
  g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno),
              "standard output: cannot write (%s): no file written",
              errno ? g_strerror(errno) : "write error");
  return FALSE;
}

/* Puts the files back as they were before renames 0 .. n-1 of a commit:
 * an earlier file from its second name, a new one removed.  Returns the
 * first one that cannot be (it existed, and its file system gave it no
 * second name), or NULL. */
static const char *roll_back(TrcOutputs *o, char **backup,
                             const gboolean *existed, guint n)
{
  const char *kept = NULL;

  for (guint i = 0; i < n; i++) {
    Output *x = &g_array_index(o->items, Output, i);

    if (x->in_place || !x->tmp)
      continue;
    if (backup[i])
      g_rename(backup[i], x->target);
    else if (!existed[i])
      g_unlink(x->target);
    else if (!kept)
      kept = x->path;
  }
  return kept;
}

gboolean trc_outputs_commit(TrcOutputs *o, GError **error)
{
  guint n = o->items->len;
  g_autofree char **backup = g_new0(char *, n + 1);
  g_autofree gboolean *existed = g_new0(gboolean, n + 1);
  gboolean ok = FALSE;
  guint i;

  if (!sim_interrupt_check(error)) {
    g_prefix_error(error, "nothing written: ");
    return FALSE;
  }
  if (!stdout_ok(error))
    return FALSE;
  /* Devices and FIFOs first: a write there may fail (/dev/full) and
   * cannot be undone, so it fails before anything is renamed. */
  for (i = 0; i < n; i++) {
    Output *x = &g_array_index(o->items, Output, i);

    if (x->in_place && x->fd >= 0 && !write_in_place(x, error))
      return FALSE;
  }
  /* Then what goes to standard output, before any file is replaced */
  for (i = 0; i < n; i++) {
    Output *x = &g_array_index(o->items, Output, i);

    if (x->in_place || !x->text)
      continue;
    if (fputs(x->text, stdout) < 0 || fflush(stdout) != 0)
      return fail_errno(error, "standard output", "write", errno);
    g_clear_pointer(&x->text, g_free);
  }
  /* Each file that exists gets a second name (a hard link beside it), so
   * that a rename that fails after others succeeded (a read-only
   * directory, an immutable file) puts them all back: the files are
   * replaced together or not at all.  A file system without hard links
   * leaves that file without one. */
  for (i = 0; i < n; i++) {
    Output *x = &g_array_index(o->items, Output, i);
    struct stat st;
    g_autofree char *dir = NULL, *base = NULL;

    if (x->in_place || !x->tmp || lstat(x->target, &st) != 0)
      continue;
    existed[i] = TRUE;
    dir = g_path_get_dirname(x->target);
    base = g_path_get_basename(x->target);
    backup[i] = g_strdup_printf("%s/.%s.old.%d", dir, base, (int)getpid());
    g_unlink(backup[i]);
    if (link(x->target, backup[i]) != 0)
      g_clear_pointer(&backup[i], g_free);
  }
  for (i = 0; i < n; i++) {
    Output *x = &g_array_index(o->items, Output, i);

    if (x->in_place || !x->tmp)
      continue;
    if (g_rename(x->tmp, x->target) != 0) {
      int err = errno;
      const char *kept = roll_back(o, backup, existed, i);

      if (kept)
        g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(err),
                    "%s: cannot rename %s into place (%s); the outputs "
                    "before it were put back, but %s stays new (its file "
                    "system has no hard link to keep the old one by)",
                    x->path, x->tmp, g_strerror(err), kept);
      else
        g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(err),
                    "%s: cannot rename %s into place (%s); no file written",
                    x->path, x->tmp, g_strerror(err));
      goto done;
    }
  }
  for (i = 0; i < n; i++) {
    Output *x = &g_array_index(o->items, Output, i);

    wrote_files |= x->tmp != NULL || x->in_place;
    g_clear_pointer(&x->tmp, g_free);
  }
  ok = TRUE;
done:
  for (i = 0; i < n; i++) {
    if (backup[i])
      g_unlink(backup[i]);
    g_free(backup[i]);
  }
  return ok;
}

gboolean trc_write_text(const char *path, char *text, GError **error)
{
  g_autoptr(TrcOutputs) o = trc_outputs_new();

  return trc_outputs_add(o, path, text, error) && trc_outputs_commit(o, error);
}
