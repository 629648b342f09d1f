/* Memory limits; see sim/memory.h. */
#include "sim/memory.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "sim/error.h"

static guint64 user_limit;
static SimMemoryWording wording;

void sim_memory_set_wording(const SimMemoryWording *w)
{
  static const SimMemoryWording none = {0};

  wording = w ? *w : none;
}

void sim_memory_set_limit(guint64 bytes)
{
  user_limit = bytes;
}

/* What the process may still map under its own limits (ulimit -v, -d:
 * RLIMIT_AS and RLIMIT_DATA), less what it has mapped (/proc/self/statm);
 * G_MAXUINT64 when unlimited.  Past it malloc fails, and GLib aborts. */
static guint64 rlimit_left(void)
{
  static const int which[] = {RLIMIT_AS, RLIMIT_DATA};
  g_autofree char *statm = NULL;
  long page = sysconf(_SC_PAGESIZE);
  guint64 mapped = 0, left = G_MAXUINT64;

  if (g_file_get_contents("/proc/self/statm", &statm, NULL, NULL) && page > 0)
    mapped = g_ascii_strtoull(statm, NULL, 10) * (guint64)page;
  for (size_t i = 0; i < G_N_ELEMENTS(which); i++) {
    struct rlimit rl;

    if (getrlimit(which[i], &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
      left = MIN(left, (guint64)rl.rlim_cur > mapped
                           ? (guint64)rl.rlim_cur - mapped
                           : 0);
  }
  return left;
}

/* MemAvailable from /proc/meminfo, or the physical memory, in bytes, and
 * no more than the process's own limits allow. */
static guint64 memory_available(void)
{
  g_autofree char *text = NULL;
  const char *p;
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  guint64 avail =
      pages > 0 && page > 0 ? (guint64)pages * (guint64)page : G_MAXUINT64;

  if (g_file_get_contents("/proc/meminfo", &text, NULL, NULL) &&
      (p = strstr(text, "MemAvailable:")) != NULL) {
    guint64 kib = g_ascii_strtoull(p + strlen("MemAvailable:"), NULL, 10);
    if (kib > 0)
      avail = kib * 1024;
  }
  return MIN(avail, rlimit_left());
}

guint64 sim_memory_limit(gboolean *user_set)
{
  static guint64 available;

  if (user_set)
    *user_set = user_limit != 0;
  if (user_limit)
    return user_limit;
  if (available == 0)
    available = memory_available();
  return available;
}

/* "30.5 GiB", "64.0 MiB": in ASCII (g_format_size puts a no-break space
 * between number and unit). */
static char *format_size(guint64 bytes)
{
  const double mib = 1024.0 * 1024.0;

  return (double)bytes >= 1024 * mib
             ? g_strdup_printf("%.1f GiB", (double)bytes / (1024 * mib))
             : g_strdup_printf("%.1f MiB", (double)bytes / mib);
}

gboolean sim_memory_check(guint64 need_bytes, const char *what, const char *how,
                          GError **error)
{
  gboolean user_set;
  guint64 limit = sim_memory_limit(&user_set);

  if (need_bytes <= limit)
    return TRUE;
  {
    g_autofree char *need = format_size(need_bytes);
    g_autofree char *have = format_size(limit);
    g_autofree char *advice =
        wording.advice ? wording.advice(need_bytes) : NULL;

    g_set_error(error, SIM_ERROR, SIM_ERROR_MEMORY,
                "%s needs about %s of memory (%s), more than the %s %s%s%s",
                what, need, how, have,
                !user_set            ? "available"
                : wording.user_limit ? wording.user_limit
                                     : "allowed",
                advice ? "; " : "", advice ? advice : "");
  }
  return FALSE;
}
