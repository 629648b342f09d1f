/* The topologies layer's GError domain; see topologies/error.h. */
#include "topologies/error.h"

GQuark topo_error_quark(void)
{
  return g_quark_from_static_string("ifsim-topologies-error-quark");
}
