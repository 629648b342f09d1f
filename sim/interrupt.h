/* Ctrl-C: a long run stops cleanly instead of dying half-way.
 *
 * sim_interrupt_install() makes SIGINT and SIGTERM set a flag (and restore
 * the default action, so a second Ctrl-C kills at once).  The engine loop
 * polls the flag every few thousand events and returns
 * SIM_RUN_INTERRUPTED; the layers above turn that into an error, free what
 * they hold and write nothing (traces/output.h refuses to commit).  The
 * CLI then exits with 128 + the signal's number, as a shell expects. */
#ifndef SIM_INTERRUPT_H
#define SIM_INTERRUPT_H

#include <glib.h>

void sim_interrupt_install(void);

/* The signal that arrived since sim_interrupt_install(), or 0. */
int sim_interrupted(void);

/* Sets error to "interrupted (SIGNAME)" in SIM_ERROR and returns FALSE,
 * when a signal arrived; else TRUE. */
gboolean sim_interrupt_check(GError **error);

#endif /* SIM_INTERRUPT_H */
