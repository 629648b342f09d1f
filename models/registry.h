/* MdlRegistry: the link, switch and NIC models known by name.
 *
 * Built-in models are the INI files under models/links/, models/switches/
 * and models/nics/, compiled into the binary (GResource), so every command
 * works from any directory.  Users add or change models with the same
 * groups in a model file (`ifsim run -m calibrated.ini`) or a topology
 * file:
 *
 *   [link nvlink4]            # change a built-in: only the keys given
 *   latency_ns = 120
 *
 *   [link nvlink4-slow]       # a new model from an existing one
 *   based_on = nvlink4
 *   signal_GBd = 40
 *
 *   [link my-link]            # a new model from scratch: every key
 *   family = ib               # without a default must be given
 *   ...
 *
 * Loading is all or nothing: on any error the registry is unchanged and the
 * error names the file, the group, the key and the accepted values. */
#ifndef MODELS_REGISTRY_H
#define MODELS_REGISTRY_H

#include <glib.h>

#include "models/device.h"
#include "models/link.h"

typedef struct MdlRegistry MdlRegistry;

/* How NCCL's kernels perform on this machine against the model ([nccl]
 * group; written by ifsim calibrate from measured collectives).  NCCL's
 * own choice of algorithm and protocol does not read these: they change
 * what a choice costs, not the choice. */
/* NCCL's algorithms in NCCL's order (tree, ring, collnet_direct,
 * collnet_chain, nvls, nvls_tree, pat) and protocols (ll, ll128, simple),
 * for the per-algorithm efficiencies. */
#define MDL_NCCL_ALGOS 7
#define MDL_NCCL_PROTOS 3

typedef struct {
  double ll_efficiency;     /* per-channel rate of LL, relative to the model */
  double ll128_efficiency;  /* of LL128 */
  double simple_efficiency; /* of Simple (and point-to-point) */
  /* the same for one algorithm's protocol (tree_ll128_efficiency, ...);
   * 0: the protocol's above.  What a calibration on one node count learns
   * of Tree/LL128 then leaves Ring/LL128 as it was. */
  double algo_efficiency[MDL_NCCL_ALGOS][MDL_NCCL_PROTOS];
  double latency_us;        /* added to every collective's launch */
  double host_launch_us;    /* host time to launch one rank's kernel */
  double host_launch_per_channel_us; /* and per channel beyond the first */
  double net_proxy_us; /* one proxy action of a network step (collectives/
                          nccl/plan.c net_proxy_actions) */
  double shm_duplex_GBps; /* a channel's SHM connection whose CTA also
                             reads (or writes) host memory for another
                             (collectives/nccl/plan.c shm_caps) */
  double nvls_copy_ratio; /* an NVLS channel's copies of the GPU's whole
                            buffer in and out of the NVLS buffer, relative
                            to NCCL's model of the channel (collectives/
                            nccl/plan.c channel_cap) */
  double p2p_copy_ratio;  /* what NCCL's point-to-point kernel moves, relative
                           to the GPU's NCCL bandwidth (collectives/nccl/
                           plan.c channel_cap) */
  double socket_thread_GBps; /* bytes one thread moves through the kernel's
                                TCP, sent and received together (NCCL's
                                socket transport; plan.c socket_caps) */
} MdlNcclTuning;

extern const MdlParamSpec mdl_nccl_params[];

MdlRegistry *mdl_registry_new(void);
MdlRegistry *mdl_registry_new_builtin(GError **error);
void mdl_registry_free(MdlRegistry *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(MdlRegistry, mdl_registry_free)

/* Applies every [link NAME], [switch NAME], [nic NAME] and [nccl] group of
 * INI text; any other group is an error.  `source` names the text in messages. */
gboolean mdl_registry_load_data(MdlRegistry *r, const char *data, gsize len,
                                const char *source, GError **error);
gboolean mdl_registry_load_file(MdlRegistry *r, const char *path,
                                GError **error);

/* TRUE for a group name this registry reads ("link x", "switch x",
 * "nic x", "nccl"); topology files pass those groups on. */
gboolean mdl_registry_is_model_group(const char *group);

/* Applies the model groups of kf, ignoring the others. */
gboolean mdl_registry_apply_keyfile(MdlRegistry *r, GKeyFile *kf,
                                    const char *source, GError **error);

const MdlLink *mdl_registry_link(const MdlRegistry *r, const char *name);
const MdlSwitch *mdl_registry_switch(const MdlRegistry *r, const char *name);
const MdlNic *mdl_registry_nic(const MdlRegistry *r, const char *name);
const MdlNcclTuning *mdl_registry_nccl(const MdlRegistry *r);
/* Sets one [nccl] key from text, checked as a file's would be (its range,
 * an unknown key an error); the others keep their values. */
gboolean mdl_registry_set_nccl(MdlRegistry *r, const char *key,
                               const char *text, GError **error);
/* The rate of one algorithm's protocol (indices in NCCL's order): its own
 * algo_efficiency where set, else the protocol's. */
double mdl_nccl_efficiency(const MdlNcclTuning *t, guint algo, guint proto);

/* Names in sorted order, borrowed from the registry (free the array). */
GPtrArray *mdl_registry_link_names(const MdlRegistry *r);
GPtrArray *mdl_registry_switch_names(const MdlRegistry *r);
GPtrArray *mdl_registry_nic_names(const MdlRegistry *r);

#endif /* MODELS_REGISTRY_H */
