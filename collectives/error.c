/* The collectives layer's GError domain; see collectives/error.h. */
#include "collectives/error.h"

GQuark coll_error_quark(void)
{
  return g_quark_from_static_string("ifsim-collectives-error-quark");
}
