/*
 * The operator support matrix of vkdml.h (vkdml_get_operator_support()): per DML_OPERATOR_TYPE,
 * whether the operator table implements it and, where the schema records them (DirectML's tensor
 * support, docs/schema.md), which data types it takes and which of those an adapter's features
 * let it run (the one data-type table of dml.c). vkdml-info prints it.
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

/* The tensor the operator computes on: the first of its first same-type group (an element-wise
 * operator's output, GEMM's ATensor, IF's output rather than its UINT8 condition), else the first
 * input, else (a generator: FILL_VALUE_*) the output. */
static const struct vkdml_field_schema *main_tensor(const struct vkdml_op_schema *schema)
{
    uint32_t i;

    if (schema->same_type_count)
        return &schema->fields[schema->same_type[0].fields[0]];
    for (i = 0; i < schema->field_count; ++i)
    {
        if (schema->fields[i].role == VKDML_ROLE_INPUT)
            return &schema->fields[i];
    }
    for (i = 0; i < schema->field_count; ++i)
    {
        if (schema->fields[i].role == VKDML_ROLE_OUTPUT)
            return &schema->fields[i];
    }
    return NULL;
}

static bool in_group(const struct vkdml_tensor_group *group, uint32_t field)
{
    uint32_t i;

    for (i = 0; i < group->count; ++i)
    {
        if (group->fields[i] == field)
            return true;
    }
    return false;
}

/* Whether the device runs the operator with its main tensors of `type`: the type itself, and for
 * each other required tensor with a type of its own (IF's condition, a comparison's output) one of
 * its types. */
static bool device_runs(const struct vkdml_op_schema *schema, const struct vkdml_vk_caps *caps,
        DML_TENSOR_DATA_TYPE type)
{
    uint32_t i, t;

    if (!vkdml_caps_data_type_supported(caps, type))
        return false;
    for (i = 0; i < schema->field_count; ++i)
    {
        const struct vkdml_field_schema *field = &schema->fields[i];
        bool runs = false;

        if (field->role == VKDML_ROLE_ATTRIBUTE || field->optional || !field->data_types
                || (schema->same_type_count && in_group(&schema->same_type[0], i)))
            continue;
        for (t = 0; t < 32 && !runs; ++t)
            runs = (field->data_types & (1u << t)) && vkdml_caps_data_type_supported(caps, t);
        if (!runs)
            return false;
    }
    return true;
}

static void fill_entry(DML_OPERATOR_TYPE type, const struct vkdml_vk_caps *caps, bool usable,
        struct vkdml_operator_support *entry)
{
    const struct vkdml_op_schema *schema = vkdml_op_schema_get(type);
    const struct vkdml_op_entry *op = &vkdml_op_table[type];
    const struct vkdml_field_schema *tensor;
    uint32_t t;

    memset(entry, 0, sizeof(*entry));
    entry->operator_type = type;
    if (!schema)
        return;
    entry->name = schema->name;
    entry->feature_level = schema->feature_level;
    entry->implemented = op->compile != NULL;
    if (!entry->implemented)
        return;
    /* DirectML's types (tools/directml-schema.json), or the family's where DirectML lists none. */
    tensor = schema->tensor_support ? main_tensor(schema) : NULL;
    entry->data_types = tensor && tensor->data_types ? tensor->data_types : op->data_types;
    for (t = 0; t < 32 && usable; ++t)
    {
        if ((entry->data_types & (1u << t)) && device_runs(schema, caps, t))
            entry->device_data_types |= 1u << t;
    }
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
