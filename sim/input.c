/* Bounded, interruptible input; see sim/input.h. */
#include "sim/input.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/error.h"
#include "sim/interrupt.h"
#include "sim/memory.h"
#include "sim/units.h"

static guint64 limit_bytes;
static char *advice;

void sim_input_set_limit(guint64 bytes)
{
  limit_bytes = bytes;
}

guint64 sim_input_limit(void)
{
  return limit_bytes ? limit_bytes : SIM_INPUT_LIMIT_DEFAULT;
}

void sim_input_set_advice(const char *text)
{
  g_free(advice);
  advice = g_strdup(text);
}

static gboolean too_large(const char *path, GError **error)
{
  char limit[SIM_SIZE_FORMAT_LEN];

  g_set_error(error, SIM_ERROR, SIM_ERROR_RANGE,
              "%s: larger than the %s allowed for an input file%s%s", path,
              sim_size_format(sim_input_limit(), limit), advice ? "; " : "",
              advice ? advice : "");
  return FALSE;
}

/* A system call that failed: EINTR from a signal sim/interrupt.h caught
 * ends the read (SA_RESTART is not set, so a blocked open or read
 * returns); any other EINTR is retried. */
static gboolean failed(const char *path, int err, gboolean *retry,
                       GError **error)
{
  *retry = FALSE;
  if (err == EINTR) {
    if (!sim_interrupt_check(error)) {
      g_prefix_error(error, "%s: ", path);
      return FALSE;
    }
    *retry = TRUE;
    return TRUE;
  }
  g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(err),
              "%s: cannot read: %s", path, g_strerror(err));
  return FALSE;
}

gboolean sim_input_read(const char *path, char **data, gsize *len,
                        GError **error)
{
  guint64 limit = sim_input_limit();
  struct stat st;
  gboolean retry = TRUE;
  int fd = -1;
  char *buf = NULL;
  gsize used = 0, cap = 0;

  *data = NULL;
  *len = 0;
  if (path[0] == '\0') {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                "'': an empty file name (expected a path)");
    return FALSE;
  }
  while (fd < 0 && retry) {
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0 && !failed(path, errno, &retry, error))
      return FALSE;
  }
  if (fstat(fd, &st) != 0) {
    failed(path, errno, &retry, error);
    close(fd);
    return FALSE;
  }
  if (S_ISDIR(st.st_mode)) {
    close(fd);
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_ISDIR,
                "%s: is a directory, not a file", path);
    return FALSE;
  }
  if (S_ISREG(st.st_mode) && (guint64)st.st_size > limit) {
    close(fd);
    return too_large(path, error);
  }
  for (;;) {
    ssize_t got;

    if (!sim_interrupt_check(error)) {
      g_prefix_error(error, "%s: ", path);
      break;
    }
    if (cap - used < 2) {
      /* grow by doubling, from the size the file states, to one byte past
       * the limit (which proves the file too large) plus the NUL */
      gsize want = cap ? cap * 2 : MAX((gsize)st.st_size + 2, 64 * 1024);
      char *grown;

      /* (saturating: a limit near 2^64 must not wrap to a small one) */
      want = (gsize)MIN((guint64)want,
                        limit > G_MAXSIZE - 2 ? G_MAXSIZE : limit + 2);
      if (want <= cap) {
        too_large(path, error);
        break;
      }
      /* a --max-input above the memory there is: refused as memory, not
       * an abort inside GLib (the old and new block are held at once) */
      if (want > 64 * 1024 * 1024 &&
          !sim_memory_check((guint64)want + cap, "reading the file",
                            "the whole file is held in memory", error)) {
        g_prefix_error(error, "%s: ", path);
        break;
      }
      grown = g_try_realloc(buf, want);
      if (!grown) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_RANGE,
                    "%s: cannot hold %" G_GSIZE_FORMAT " bytes of it in "
                    "memory",
                    path, want);
        break;
      }
      buf = grown;
      cap = want;
    }
    got = read(fd, buf + used, cap - 1 - used);
    if (got < 0) {
      if (failed(path, errno, &retry, error) && retry)
        continue;
      break;
    }
    if (got == 0) {
      close(fd);
      buf[used] = '\0';
      *data = buf;
      *len = used;
      return TRUE;
    }
    used += (gsize)got;
    if (used > limit) {
      too_large(path, error);
      break;
    }
  }
  close(fd);
  g_free(buf);
  return FALSE;
}

static guint line_of(const char *text, gsize at)
{
  guint line = 1;

  for (gsize i = 0; i < at; i++)
    line += text[i] == '\n';
  return line;
}

gboolean sim_input_check_text(const char *name, const char *text, gsize len,
                              GError **error)
{
  const char *bad = memchr(text, '\0', len);

  if (bad) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                "%s:%u: binary data (a NUL byte at byte %" G_GSIZE_FORMAT
                "), expected text",
                name, line_of(text, (gsize)(bad - text)), (gsize)(bad - text));
    return FALSE;
  }
  if (!g_utf8_validate(text, (gssize)len, &bad)) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                "%s:%u: binary data (byte 0x%02x at byte %" G_GSIZE_FORMAT
                " is not UTF-8 text), expected text",
                name, line_of(text, (gsize)(bad - text)), (unsigned char)*bad,
                (gsize)(bad - text));
    return FALSE;
  }
  for (gsize i = 0; i < len; i++) {
    unsigned char c = (unsigned char)text[i];

    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f') {
      g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                  "%s:%u: binary data (control character 0x%02x at byte "
                  "%" G_GSIZE_FORMAT "%s), expected text",
                  name, line_of(text, i), c, i,
                  c == 0x1b ? ": a terminal escape sequence, colours?" : "");
      return FALSE;
    }
  }
  return TRUE;
}

char **sim_input_lines(const char *text, gsize len, const char *what,
                       guint *n_lines, GError **error)
{
  gsize n = 0;
  char **lines;
  char *copy;
  const char *p = text, *end = text + len;

  /* as g_strsplit(text, "\n", -1): no line in an empty text, else one more
   * than the newlines */
  if (len > 0) {
    n = 1;
    while ((p = memchr(p, '\n', (gsize)(end - p))) != NULL) {
      n++;
      p++;
    }
  }
  if (n >= G_MAXUINT) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_RANGE,
                "%s: %" G_GSIZE_FORMAT
                " lines, more than the %u a text may have",
                what, n, G_MAXUINT - 1);
    return NULL;
  }
  {
    g_autofree char *how = g_strdup_printf("%" G_GSIZE_FORMAT " lines", n);
    if (!sim_memory_check((guint64)(n + 1) * sizeof(char *) + len + 1, what,
                          how, error))
      return NULL;
  }
  lines = g_malloc((n + 1) * sizeof(char *) + len + 1);
  copy = (char *)(lines + n + 1);
  memcpy(copy, text, len);
  copy[len] = '\0';
  {
    char *q = copy, *stop = copy + len;

    for (gsize i = 0; i < n; i++) {
      char *nl = memchr(q, '\n', (gsize)(stop - q));

      lines[i] = q;
      if (nl) {
        *nl = '\0';
        q = nl + 1;
      }
    }
  }
  lines[n] = NULL;
  if (n_lines)
    *n_lines = (guint)n;
  return lines;
}

void sim_input_strip_cr(char **lines)
{
  for (guint i = 0; lines[i]; i++) {
    gsize n = strlen(lines[i]);

    if (n > 0 && lines[i][n - 1] == '\r')
      lines[i][n - 1] = '\0';
  }
}

char **sim_input_text_lines(const char *text, gsize len, const char *name,
                            guint *n_lines, GError **error)
{
  char **lines;

  if (!sim_input_check_text(name, text, len, error) ||
      !(lines = sim_input_lines(text, len, name, n_lines, error)))
    return NULL;
  sim_input_strip_cr(lines);
  return lines;
}
