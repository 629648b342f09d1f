/* A run's output files, committed together; see traces/output.h. */
#include "traces/output.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/interrupt.h"

typedef struct {
  char *path; /* the destination */
  char *tmp;  /* the temporary; NULL for "-" or once renamed */
  char *text; /* for "-" only */
} Output;

struct TrcOutputs {
  GArray *items; /* Output, in the order added */
};

static void output_clear(void *p)
{
  Output *x = p;

  if (x->tmp)
    g_unlink(x->tmp);
  g_free(x->path);
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

/* Opens a new temporary file next to path; fills *tmp. */
static int open_temp(const char *path, char **tmp, GError **error)
{
  g_autofree char *dir = g_path_get_dirname(path);
  g_autofree char *base = g_path_get_basename(path);
  int fd;

  *tmp = g_strdup_printf("%s/.%s.XXXXXX", dir, base);
  fd = g_mkstemp_full(*tmp, O_WRONLY, 0666);
  if (fd < 0) {
    int err = errno;
    g_clear_pointer(tmp, g_free);
    fail_errno(error, path, "write", err);
  }
  return fd;
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

/* Appends path's entry, refusing a path given twice. */
static Output *add_entry(TrcOutputs *o, const char *path, GError **error)
{
  Output x = {.path = g_strdup(path)};

  for (guint i = 0; i < o->items->len; i++) {
    if (g_str_equal(g_array_index(o->items, Output, i).path, path)) {
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_EXIST,
                  "%s: given for two outputs of one run", path);
      g_free(x.path);
      return NULL;
    }
  }
  g_array_append_val(o->items, x);
  return &g_array_index(o->items, Output, o->items->len - 1);
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
  if (g_str_equal(path, "-")) {
    x->text = g_steal_pointer(&owned);
    return TRUE;
  }
  fd = open_temp(path, &x->tmp, error);
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
  fd = open_temp(path, &x->tmp, error);
  if (fd < 0)
    return NULL;
  close(fd);
  return x->tmp;
}

gboolean trc_outputs_commit(TrcOutputs *o, GError **error)
{
  if (!sim_interrupt_check(error)) {
    g_prefix_error(error, "nothing written: ");
    return FALSE;
  }
  for (guint i = 0; i < o->items->len; i++) {
    Output *x = &g_array_index(o->items, Output, i);

    if (x->text) {
      if (fputs(x->text, stdout) < 0 || fflush(stdout) != 0)
        return fail_errno(error, "standard output", "write", errno);
      g_clear_pointer(&x->text, g_free);
      continue;
    }
    if (x->tmp && g_rename(x->tmp, x->path) != 0) {
      int err = errno;
      g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(err),
                  "%s: cannot rename %s into place (%s)%s", x->path, x->tmp,
                  g_strerror(err),
                  i > 0 ? "; the outputs before it were written" : "");
      return FALSE;
    }
    g_clear_pointer(&x->tmp, g_free);
  }
  return TRUE;
}

gboolean trc_write_text(const char *path, char *text, GError **error)
{
  g_autoptr(TrcOutputs) o = trc_outputs_new();

  return trc_outputs_add(o, path, text, error) && trc_outputs_commit(o, error);
}
