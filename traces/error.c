/* The traces layer's GError domain; see traces/error.h. */
#include "traces/error.h"

GQuark trc_error_quark(void)
{
  return g_quark_from_static_string("ifsim-traces-error-quark");
}
