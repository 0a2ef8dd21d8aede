/* The exported adapter queries of vkdml.h. Each call uses a short-lived instance of its own,
 * so nothing Vulkan-related stays global. */

#include <stdlib.h>
#include <string.h>

#include "vk_private.h"

static struct vkdml_vk_instance *enumeration_instance(void)
{
    struct vkdml_vk_instance *instance;
    struct vkdml_vk_instance_options options = {.application_name = "vkdml adapter enumeration"};

    return vkdml_vk_instance_create(&options, &instance) < 0 ? NULL : instance;
}

VKDML_API int vkdml_get_adapter_count(void)
{
    struct vkdml_vk_instance *instance;
    uint32_t count = 0;
    int result = -1;

    if (!(instance = enumeration_instance()))
        return -1;
    if (vkdml_vk_instance_get_physical_devices(instance, &count, NULL) >= 0)
        result = count;
    vkdml_vk_instance_destroy(instance);
    return result;
}

VKDML_API int vkdml_get_adapter_info(uint32_t index, struct vkdml_adapter_info *info, size_t info_size)
{
    struct vkdml_adapter_info full;
    struct vkdml_vk_instance *instance;
    VkPhysicalDevice *devices = NULL;
    uint32_t count = 0;
    int result = -1;

    if (!info || !info_size)
    {
        ERR("info %p, info_size %zu: need a struct vkdml_adapter_info to fill.", (void *)info, info_size);
        return -1;
    }
    if (!(instance = enumeration_instance()))
        return -1;
    if (vkdml_vk_instance_get_physical_devices(instance, &count, NULL) < 0)
        goto done;
    if (index >= count)
    {
        ERR("Adapter index %u is out of range: there are %u Vulkan devices.", index, count);
        goto done;
    }
    if (!(devices = calloc(count, sizeof(*devices)))
            || vkdml_vk_instance_get_physical_devices(instance, &count, devices) < 0)
        goto done;
    vkdml_vk_get_adapter_info(instance, devices[index], index, &full);
    memcpy(info, &full, VKDML_MIN(info_size, sizeof(full)));
    result = 0;

done:
    free(devices);
    vkdml_vk_instance_destroy(instance);
    return result;
}

VKDML_API int vkdml_select_adapter(const char *selector)
{
    struct vkdml_vk_instance *instance;
    int index;

    if (!(instance = enumeration_instance()))
        return -1;
    index = vkdml_vk_select_adapter(instance, selector);
    vkdml_vk_instance_destroy(instance);
    return index;
}
