/* ifsim-probe: measurements on real GPUs and RDMA NICs.
 *
 * Exit status: 0 measured, 2 bad input, 77 the device needed is absent
 * (so ctest counts such a test as skipped, not failed). */
#ifndef VALIDATE_PROBE_H
#define VALIDATE_PROBE_H

#include <glib.h>

#define PROBE_EXIT_OK 0
#define PROBE_EXIT_USAGE 2
#define PROBE_EXIT_NO_DEVICE 77

/* `ifsim-probe devices`: lists CUDA GPUs (with the NCCL version) and RDMA
 * devices with their ports.  Returns PROBE_EXIT_NO_DEVICE, after saying why
 * on stderr, when neither kind is present. */
int val_probe_devices(int argc, char **argv);

#endif /* VALIDATE_PROBE_H */
