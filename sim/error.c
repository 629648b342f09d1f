/* GError domain of the engine layer; see sim/error.h. */
#include "sim/error.h"

G_DEFINE_QUARK(ifsim - sim - error, sim_error)
