/* The fault options of the commands that build a system (run, replay,
 * topo): --fail, --degrade, --lossy, --slow-gpu, --fail-random and
 * --fault-seed
 * (docs/faults.md), applied on top of the system file's [faults]. */
#ifndef TOOLS_FAULT_OPTIONS_H
#define TOOLS_FAULT_OPTIONS_H

#include <glib.h>
#include <stdio.h>

#include "tools/cli.h"
#include "topologies/system.h"

typedef struct {
  char **fail;    /* --fail ELEMENT, repeatable */
  char **degrade; /* --degrade 'ELEMENT RATE', repeatable */
  char **slow_gpu; /* --slow-gpu 'GPU FACTOR', repeatable */
  char **lossy;    /* --lossy 'ELEMENT BER', repeatable */
  guint64 random; /* --fail-random K */
  guint64 seed;   /* --fault-seed N */
  gboolean random_seen, seed_seen;
} CliFaultOptions;

/* The numbers' CliNumberTarget entries, for the command's table. */
/* clang-format off */
#define CLI_FAULT_TARGETS(f)                                                   \
  {"fail-random", 0, CLI_NUMBER_COUNT, &(f)->random, &(f)->random_seen,        \
   1u << 24},                                                                  \
  {"fault-seed", 0, CLI_NUMBER_COUNT, &(f)->seed, &(f)->seed_seen,             \
   G_MAXUINT32}
/* clang-format on */

void cli_fault_add_entries(GOptionGroup *group, CliFaultOptions *f);

/* Applies the options' faults to sys; errors name the flag. */
gboolean cli_fault_apply(TopoSystem *sys, const CliFaultOptions *f,
                         GError **error);

void cli_fault_options_clear(CliFaultOptions *f);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(CliFaultOptions, cli_fault_options_clear)

/* "Faults: D links down, S slower" and a line each, for reports. */
void cli_fault_print(FILE *out, const TopoSystem *sys);

#endif /* TOOLS_FAULT_OPTIONS_H */
