/* NCCL's knobs on the command line, one option group for every command
 * that runs collectives (run, replay, sweep): --algo, --proto,
 * --nccl-version, --channels, --collnet, --fidelity, --no-fold and
 * --no-shortcut, with
 * one help text each, and the NCCL_* environment variables they stand for (NCCL_ALGO,
 * NCCL_PROTO, NCCL_MIN_NCHANNELS, NCCL_MAX_NCHANNELS,
 * NCCL_COLLNET_ENABLE), which the flags override. */
#ifndef TOOLS_NCCL_OPTIONS_H
#define TOOLS_NCCL_OPTIONS_H

#include <glib.h>

#include "collectives/nccl/nccl.h"
#include "tools/cli.h"

typedef struct {
  char *algo;         /* --algo: NCCL_ALGO's syntax */
  char *proto;        /* --proto: NCCL_PROTO's syntax */
  char *nccl_version; /* --nccl-version: the NCCL whose cost model chooses */
  char *fidelity;     /* --fidelity: analytical, flow or packet; NULL: flow */
  guint64 channels;   /* --channels, when channels_seen */
  gboolean channels_seen;
  gboolean collnet; /* --collnet */
  gboolean no_fold; /* --no-fold: every shortcut off */
  char *no_shortcut; /* --no-shortcut: a list of nccl_shortcuts' names */
  char *tuner_config; /* --tuner-config: NCCL's example tuner plugin's
                         rules */
  NcclTuner *tuner;   /* loaded from tuner_config by cli_nccl_check */
} CliNcclOptions;

/* The --channels entry of a command's CliNumberTarget table (the group's
 * data, as CLI_MAX_MEMORY_TARGET). */
/* clang-format off */
#define CLI_NCCL_CHANNELS_TARGET(o)                                            \
  {"channels", 0, CLI_NUMBER_COUNT, &(o)->channels, &(o)->channels_seen, 0}
/* clang-format on */

/* What a command's --help description says of the environment. */
#define CLI_NCCL_ENV_HELP                                                      \
  "NCCL_ALGO, NCCL_PROTO, NCCL_MIN_NCHANNELS, NCCL_MAX_NCHANNELS, "            \
  "NCCL_MIN_CTAS, NCCL_MAX_CTAS, NCCL_COLLNET_ENABLE, NCCL_P2P_DISABLE, "      \
  "NCCL_P2P_LEVEL, NCCL_IB_DISABLE, NCCL_NET, NCCL_NET_GDR_LEVEL, "            \
  "NCCL_NET_GDR_READ, NCCL_NET_GDR_C2C, NCCL_NET_FORCE_FLUSH, "                \
  "NCCL_SOCKET_NTHREADS, "                                                     \
  "NCCL_NSOCKS_PERTHREAD, NCCL_IB_TIMEOUT, NCCL_IB_RETRY_CNT, "                \
  "NCCL_IB_QPS_PER_CONNECTION, NCCL_IB_DATA_DIRECT, NCCL_NVLS_ENABLE, "        \
  "NCCL_PAT_ENABLE, "                                                          \
  "NCCL_PXN_DISABLE, "                                                         \
  "NCCL_P2P_PXN_LEVEL, NCCL_BUFFSIZE, NCCL_LL_BUFFSIZE, "                      \
  "NCCL_LL128_BUFFSIZE, NCCL_P2P_NET_CHUNKSIZE, NCCL_P2P_NVL_CHUNKSIZE, "      \
  "NCCL_P2P_PCI_CHUNKSIZE, NCCL_NVLS_CHUNKSIZE and "                           \
  "NCCL_NVLSTREE_MAX_CHUNKSIZE are read from the environment, and from "       \
  "the NAME=VALUE lines of NCCL_CONF_FILE (NCCL 2.23 and later) where the "    \
  "environment does not set them; the flags take precedence.  Another "        \
  "NCCL_* variable there is not modelled, and a note on standard error "       \
  "says so."

/* Adds the nine options, writing into o, to group (whose data is a
 * CliNumberTarget table holding CLI_NCCL_CHANNELS_TARGET(o)). */
void cli_nccl_add_entries(GOptionGroup *group, CliNcclOptions *o);

/* Frees o's strings; o may be reused zeroed. */
void cli_nccl_options_clear(CliNcclOptions *o);

/* Checks o and the environment (nccl_env_read: every NCCL_* variable the
 * model follows) into n: the environment's fields, o's flags over them
 * (algos, protos, channel bounds, collnet), nccl_version and the
 * shortcuts turned off (no_fold, all_rounds, packetwise,
 * no_alltoall_closed; n's other fields untouched), and
 * --fidelity's
 * name (made lowercase); errors name the flag or the variable, or what
 * name (may be NULL) calls a knob (fidelity, algo, proto, channels,
 * nccl_version, no_shortcut: how a sweep names its keys). */
gboolean cli_nccl_check(CliNcclOptions *o, NcclOptions *n,
                        const char *(*name)(void *ctx, const char *key),
                        void *name_ctx, GError **error);

/* The transport --fidelity names (NULL: flow; the name already checked). */
NcclExec cli_nccl_exec(const CliNcclOptions *o);
/* Its name, "flow" when none was given. */
const char *cli_nccl_fidelity(const CliNcclOptions *o);

/* A note on stderr for each NCCL_* variable of the environment that no
 * command reads (NCCL's logging ones aside): it would change NCCL, and
 * the prediction is made with its default. */
void cli_nccl_env_notes(const char *command);

#endif /* TOOLS_NCCL_OPTIONS_H */
