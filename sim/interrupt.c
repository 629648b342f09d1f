/* Ctrl-C as a flag; see sim/interrupt.h.  The handler only stores to a
 * volatile sig_atomic_t (async-signal-safe); SA_RESETHAND restores the
 * default action for the next signal. */
#include "sim/interrupt.h"

#include <signal.h>
#include <string.h>

#include "sim/error.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
  interrupted = sig;
}

void sim_interrupt_install(void)
{
  struct sigaction sa;

  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

int sim_interrupted(void)
{
  return interrupted;
}

gboolean sim_interrupt_check(GError **error)
{
  int sig = interrupted;

  if (sig == 0)
    return TRUE;
  g_set_error(error, SIM_ERROR, SIM_ERROR_INTERRUPTED, "interrupted (%s)",
              sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "signal");
  return FALSE;
}
