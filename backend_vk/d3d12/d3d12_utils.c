/* VkResult -> HRESULT, in one place. */

#include "d3d12_private.h"

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
