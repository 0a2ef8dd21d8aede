/* Buffers with their own memory allocation, addressed by buffer device address. */

#include <inttypes.h>
#include <string.h>

#include "vk_private.h"

static const char *const memory_kind_names[] = {"device", "upload", "readback"};

/* Memory property flags per kind, most preferred first. */
static const VkMemoryPropertyFlags preferred_flags[][3] =
{
    [VKDML_VK_MEMORY_DEVICE] = {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0},
    [VKDML_VK_MEMORY_UPLOAD] = {VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0},
    [VKDML_VK_MEMORY_READBACK] =
    {
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
        0,
    },
};

static int find_memory_type(const struct vkdml_vk_device *device, uint32_t type_bits, enum vkdml_vk_memory_kind kind)
{
    const VkPhysicalDeviceMemoryProperties *memory = &device->caps.memory;
    const VkMemoryPropertyFlags *candidates = preferred_flags[kind];
    uint32_t i, j;

    for (j = 0; candidates[j]; ++j)
    {
        for (i = 0; i < memory->memoryTypeCount; ++i)
        {
            if ((type_bits & (1u << i)) && (memory->memoryTypes[i].propertyFlags & candidates[j]) == candidates[j])
                return i;
        }
    }
    return -1;
}

static VkResult allocate_and_bind(struct vkdml_vk_device *device, enum vkdml_vk_memory_kind kind,
        struct vkdml_vk_buffer *buffer)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->procs;
    VkMemoryAllocateFlagsInfo flags_info =
    {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
        .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT,
    };
    VkMemoryAllocateInfo info = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .pNext = &flags_info};
    VkMemoryRequirements requirements;
    int type;
    VkResult vr;

    VK_CALL(vkGetBufferMemoryRequirements(device->vk_device, buffer->vk_buffer, &requirements));
    if ((type = find_memory_type(device, requirements.memoryTypeBits, kind)) < 0)
    {
        ERR("No %s memory type for a buffer of %" PRIu64 " bytes.", memory_kind_names[kind], (uint64_t)buffer->size);
        return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    }
    info.allocationSize = requirements.size;
    info.memoryTypeIndex = type;
    if ((vr = VK_CHECK(VK_CALL(vkAllocateMemory(device->vk_device, &info, NULL, &buffer->memory)))) < 0)
        return vr;
    return VK_CHECK(VK_CALL(vkBindBufferMemory(device->vk_device, buffer->vk_buffer, buffer->memory, 0)));
}

VkResult vkdml_vk_buffer_create(struct vkdml_vk_device *device, VkDeviceSize size,
        enum vkdml_vk_memory_kind kind, struct vkdml_vk_buffer *buffer)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->procs;
    VkBufferCreateInfo info =
    {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = size,
        .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT
                | VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
    };
    VkBufferDeviceAddressInfo address_info = {.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
    VkResult vr;

    memset(buffer, 0, sizeof(*buffer));
    buffer->size = size;
    if ((vr = VK_CHECK(VK_CALL(vkCreateBuffer(device->vk_device, &info, NULL, &buffer->vk_buffer)))) < 0)
        return vr;
    if ((vr = allocate_and_bind(device, kind, buffer)) < 0)
        goto fail;
    if (kind != VKDML_VK_MEMORY_DEVICE
            && (vr = VK_CHECK(VK_CALL(vkMapMemory(device->vk_device, buffer->memory, 0, VK_WHOLE_SIZE, 0, &buffer->mapped)))) < 0)
        goto fail;
    address_info.buffer = buffer->vk_buffer;
    buffer->address = VK_CALL(vkGetBufferDeviceAddress(device->vk_device, &address_info));
    return VK_SUCCESS;

fail:
    vkdml_vk_buffer_destroy(device, buffer);
    return vr;
}

void vkdml_vk_buffer_destroy(struct vkdml_vk_device *device, struct vkdml_vk_buffer *buffer)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->procs;

    /* Unmapping is implicit in vkFreeMemory. */
    VK_CALL(vkDestroyBuffer(device->vk_device, buffer->vk_buffer, NULL));
    VK_CALL(vkFreeMemory(device->vk_device, buffer->memory, NULL));
    memset(buffer, 0, sizeof(*buffer));
}
