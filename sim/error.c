/* GError domain of the engine layer; see sim/error.h. */
#include "sim/error.h"

GQuark sim_error_quark(void)
{
  return g_quark_from_static_string("ifsim-sim-error-quark");
}
