/* The validate layer's GError domain; see validate/error.h. */
#include "validate/error.h"

GQuark val_error_quark(void)
{
  return g_quark_from_static_string("ifsim-validate-error-quark");
}
