/* Memory limits: a scenario too large for the machine is refused before it
 * is built, with the estimate and the flag that overrides it, instead of
 * ending in the kernel's OOM killer an hour later.
 *
 * Callers estimate what they are about to allocate (topologies/ per GPU of
 * the system, collectives/nccl per rank and channel of a run: the constants are
 * measured peaks, see each caller) and ask sim_memory_check().  The limit
 * is what the machine has available when the process starts
 * (MemAvailable in /proc/meminfo; physical memory where that is missing),
 * or the one the program sets for its user.  The engine keeps the numbers;
 * how a refusal names a limit the user set and says how to raise it are
 * the program's words (sim_memory_set_wording; the CLI's name its flag). */
#ifndef SIM_MEMORY_H
#define SIM_MEMORY_H

#include <glib.h>

/* Sets the limit in bytes; 0 restores the default (the memory available).
 * Process-wide, as it is one machine's memory: set by the program. */
void sim_memory_set_limit(guint64 bytes);

/* The limit in bytes, and whether the user set it. */
guint64 sim_memory_limit(gboolean *user_set);

/* How a refusal words the limit: user_limit names a limit the user set
 * (NULL: "allowed"); advice (may be NULL) returns the newly allocated
 * text that ends a refusal of need_bytes, after "; " (how to run it
 * anyway).  Process-wide, copied; NULL restores the engine's own words. */
typedef struct {
  const char *user_limit;
  char *(*advice)(guint64 need_bytes);
} SimMemoryWording;

void sim_memory_set_wording(const SimMemoryWording *w);

/* FALSE with a SIM_ERROR_MEMORY error when need_bytes exceeds the limit:
 * "WHAT needs about X GiB of memory (HOW), more than the Y GiB available"
 * (or "allowed", as the wording names a limit the user set), then "; " and
 * the wording's advice. */
gboolean sim_memory_check(guint64 need_bytes, const char *what, const char *how,
                          GError **error);

#endif /* SIM_MEMORY_H */
