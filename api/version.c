/* Run-time version query. */

#include "vkdml_common.h"
#include "vkdml_version.h"

VKDML_API uint32_t vkdml_get_version(void)
{
    return VKDML_VERSION;
}

VKDML_API const char *vkdml_get_version_string(void)
{
    return VKDML_VERSION_STRING;
}
