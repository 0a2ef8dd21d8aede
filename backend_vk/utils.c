/* VkResult naming and checking: the one place Vulkan errors become log lines and HRESULTs. */

#include "vk_private.h"

const char *vkdml_vk_result_string(VkResult vr)
{
    switch (vr)
    {
#define RESULT(r) case r: return #r;
        RESULT(VK_SUCCESS)
        RESULT(VK_NOT_READY)
        RESULT(VK_TIMEOUT)
        RESULT(VK_INCOMPLETE)
        RESULT(VK_ERROR_OUT_OF_HOST_MEMORY)
        RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY)
        RESULT(VK_ERROR_INITIALIZATION_FAILED)
        RESULT(VK_ERROR_DEVICE_LOST)
        RESULT(VK_ERROR_MEMORY_MAP_FAILED)
        RESULT(VK_ERROR_LAYER_NOT_PRESENT)
        RESULT(VK_ERROR_EXTENSION_NOT_PRESENT)
        RESULT(VK_ERROR_FEATURE_NOT_PRESENT)
        RESULT(VK_ERROR_INCOMPATIBLE_DRIVER)
        RESULT(VK_ERROR_TOO_MANY_OBJECTS)
        RESULT(VK_ERROR_FORMAT_NOT_SUPPORTED)
        RESULT(VK_ERROR_FRAGMENTED_POOL)
        RESULT(VK_ERROR_OUT_OF_POOL_MEMORY)
        RESULT(VK_ERROR_INVALID_EXTERNAL_HANDLE)
        RESULT(VK_ERROR_FRAGMENTATION)
        RESULT(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
        RESULT(VK_PIPELINE_COMPILE_REQUIRED)
        RESULT(VK_ERROR_UNKNOWN)
#undef RESULT
        default: return vkdml_debug_sprintf("VkResult %d", vr);
    }
}

VkResult vkdml_vk_check(VkResult vr, const char *expr, const char *function)
{
    if (vr < 0 && vkdml_log_enabled(VKDML_LOG_ERR))
        vkdml_log(VKDML_LOG_ERR, VKDML_LOG_SOURCE_VKDML, function, "%s failed: %s.", expr, vkdml_vk_result_string(vr));
    return vr;
}

HRESULT hresult_from_vk_result(VkResult vr)
{
    switch (vr)
    {
        case VK_SUCCESS:
        case VK_INCOMPLETE:
            return S_OK;
        case VK_NOT_READY:
        case VK_TIMEOUT:
            return S_FALSE;
        case VK_ERROR_OUT_OF_HOST_MEMORY:
            return E_OUTOFMEMORY;
        case VK_ERROR_OUT_OF_DEVICE_MEMORY:
        case VK_ERROR_TOO_MANY_OBJECTS:
        case VK_ERROR_FRAGMENTED_POOL:
        case VK_ERROR_OUT_OF_POOL_MEMORY:
            return E_OUTOFMEMORY;
        case VK_ERROR_DEVICE_LOST:
            return DXGI_ERROR_DEVICE_REMOVED;
        case VK_ERROR_FEATURE_NOT_PRESENT:
        case VK_ERROR_EXTENSION_NOT_PRESENT:
        case VK_ERROR_LAYER_NOT_PRESENT:
        case VK_ERROR_INCOMPATIBLE_DRIVER:
        case VK_ERROR_FORMAT_NOT_SUPPORTED:
            return DXGI_ERROR_UNSUPPORTED;
        default:
            FIXME("Unhandled %s.", vkdml_vk_result_string(vr));
            return E_FAIL;
    }
}
