/*
 * The operator support matrix of vkdml.h (vkdml_get_operator_support()): per DML_OPERATOR_TYPE,
 * whether the operator table implements it and, where its family reports them, which data types
 * it takes and which of those an adapter's features let it run. vkdml-info prints it.
 *
 * The adapter's features are read without creating a device, and chosen as device.c enables
 * them: every optional feature vkdml uses is on whenever the adapter has it.
 */

#include <stdlib.h>
#include <string.h>

#include "ops_private.h"

static void physical_device_caps(struct vkdml_vk_instance *instance, VkPhysicalDevice physical_device,
        struct vkdml_vk_caps *caps)
{
    const struct vkdml_vk_instance_procs *vk_procs = &instance->procs;
    VkPhysicalDeviceVulkan12Features vulkan12 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceVulkan11Features vulkan11 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, &vulkan12};
    VkPhysicalDeviceFeatures2 features = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &vulkan11};

    memset(caps, 0, sizeof(*caps));
    VK_CALL(vkGetPhysicalDeviceFeatures2(physical_device, &features));
    vkdml_vk_caps_set_features(caps, &features.features, &vulkan11, &vulkan12);
}

static void fill_entry(DML_OPERATOR_TYPE type, const struct vkdml_vk_caps *caps, bool usable,
        struct vkdml_operator_support *entry)
{
    const struct vkdml_op_schema *schema = vkdml_op_schema_get(type);
    const struct vkdml_op_entry *op = &vkdml_op_table[type];

    memset(entry, 0, sizeof(*entry));
    entry->operator_type = type;
    if (!schema)
        return;
    entry->name = schema->name;
    entry->feature_level = schema->feature_level;
    entry->implemented = op->compile != NULL;
    if (entry->implemented && op->support)
        op->support(type, caps, &entry->data_types, &entry->device_data_types);
    if (!usable)
        entry->device_data_types = 0;
}

VKDML_API uint32_t vkdml_get_operator_type_count(void)
{
    return VKDML_OPERATOR_TYPE_COUNT;
}

static bool get_physical_device(struct vkdml_vk_instance *instance, uint32_t index, VkPhysicalDevice *device)
{
    VkPhysicalDevice *devices;
    uint32_t count = 0;
    bool found = false;

    if (vkdml_vk_instance_get_physical_devices(instance, &count, NULL) < 0)
        return false;
    if (index >= count)
    {
        ERR("Adapter index %u is out of range: there are %u Vulkan devices.", index, count);
        return false;
    }
    if ((devices = calloc(count, sizeof(*devices)))
            && vkdml_vk_instance_get_physical_devices(instance, &count, devices) >= 0 && index < count)
    {
        *device = devices[index];
        found = true;
    }
    free(devices);
    return found;
}

VKDML_API int vkdml_get_operator_support(uint32_t adapter_index, uint32_t count, struct vkdml_operator_support *support,
        size_t entry_size)
{
    struct vkdml_vk_instance_options options = {.application_name = "vkdml operator support"};
    struct vkdml_operator_support entry;
    struct vkdml_vk_instance *instance;
    struct vkdml_adapter_info info;
    VkPhysicalDevice device;
    struct vkdml_vk_caps caps;
    uint32_t t;

    if (!support || !entry_size || count > VKDML_OPERATOR_TYPE_COUNT)
    {
        ERR("support %p, count %u, entry_size %zu: need up to %u entries of struct vkdml_operator_support.",
                (void *)support, count, entry_size, VKDML_OPERATOR_TYPE_COUNT);
        return -1;
    }
    if (vkdml_vk_instance_create(&options, &instance) < 0)
        return -1;
    if (!get_physical_device(instance, adapter_index, &device))
    {
        vkdml_vk_instance_destroy(instance);
        return -1;
    }
    vkdml_vk_get_adapter_info(instance, device, adapter_index, &info);
    physical_device_caps(instance, device, &caps);
    for (t = 0; t < count; ++t)
    {
        fill_entry(t, &caps, info.is_supported, &entry);
        memcpy((char *)support + t * entry_size, &entry, VKDML_MIN(entry_size, sizeof(entry)));
    }
    vkdml_vk_instance_destroy(instance);
    return 0;
}
