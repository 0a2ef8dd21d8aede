/* Device memory by kind (the D3D12 heap types), buffers with their own allocation, buffers placed
 * in existing memory, flush/invalidate for non-coherent mappings, and asynchronous GPU clears of
 * memory the CPU cannot reach. Every buffer is addressed by buffer device address. */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "vk_private.h"

#define HOST_VISIBLE VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT
#define HOST_COHERENT VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
#define HOST_CACHED VK_MEMORY_PROPERTY_HOST_CACHED_BIT
#define DEVICE_LOCAL VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT

/* Never chosen: protected memory needs protected queues, lazily allocated memory is for
 * transient attachments. */
#define UNWANTED_FLAGS (VK_MEMORY_PROPERTY_PROTECTED_BIT | VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT)

#define BUFFER_USAGE (VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT \
        | VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT)

static const char *const memory_kind_names[] = {"device", "upload", "readback", "host-device"};
_Static_assert(ARRAY_SIZE(memory_kind_names) == VKDML_VK_MEMORY_KIND_COUNT, "a name per memory kind");

/* The index of the largest device-local heap: VRAM on a discrete GPU. */
static int largest_device_local_heap(const VkPhysicalDeviceMemoryProperties *memory)
{
    int best = -1;
    uint32_t i;

    for (i = 0; i < memory->memoryHeapCount; ++i)
    {
        if ((memory->memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
                && (best < 0 || memory->memoryHeaps[i].size > memory->memoryHeaps[best].size))
            best = i;
    }
    return best;
}

/* Upload memory may live in device-local memory only where that costs nothing: UMA, or ReBAR
 * (a host-visible device-local type on the main VRAM heap rather than on a small 256 MiB BAR
 * heap, which must be kept for descriptor heaps). This is vkd3d-proton's rule. */
static bool device_local_upload_is_cheap(const VkPhysicalDeviceMemoryProperties *memory)
{
    int vram = largest_device_local_heap(memory);
    uint32_t i;

    for (i = 0; i < memory->memoryTypeCount; ++i)
    {
        const VkMemoryType *type = &memory->memoryTypes[i];

        if ((type->propertyFlags & (DEVICE_LOCAL | HOST_VISIBLE | HOST_COHERENT)) == (DEVICE_LOCAL | HOST_VISIBLE | HOST_COHERENT)
                && (int)type->heapIndex == vram)
            return true;
    }
    return false;
}

/* The property flags to try for `kind`, most preferred first; returns how many. */
static unsigned int memory_candidates(const struct vkdml_vk_device *device, enum vkdml_vk_memory_kind kind,
        VkMemoryPropertyFlags candidates[3])
{
    unsigned int count = 0;

    switch (kind)
    {
        case VKDML_VK_MEMORY_DEVICE:
            candidates[count++] = DEVICE_LOCAL;
            break;
        case VKDML_VK_MEMORY_UPLOAD:
            if (device_local_upload_is_cheap(&device->caps.memory))
                candidates[count++] = DEVICE_LOCAL | HOST_VISIBLE | HOST_COHERENT;
            candidates[count++] = HOST_VISIBLE | HOST_COHERENT;
            break;
        case VKDML_VK_MEMORY_READBACK:
            candidates[count++] = HOST_VISIBLE | HOST_COHERENT | HOST_CACHED;
            candidates[count++] = HOST_VISIBLE | HOST_CACHED;
            candidates[count++] = HOST_VISIBLE | HOST_COHERENT;
            break;
        case VKDML_VK_MEMORY_HOST_DEVICE:
            candidates[count++] = DEVICE_LOCAL | HOST_VISIBLE | HOST_COHERENT;
            candidates[count++] = HOST_VISIBLE | HOST_COHERENT;
            break;
        default:
            break;
    }
    return count;
}

static VkResult allocate_type(struct vkdml_vk_device *device, VkDeviceSize size, uint32_t type_index,
        struct vkdml_vk_memory *memory)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->procs;
    /* Every vkdml buffer is used through its device address. */
    VkMemoryAllocateFlagsInfo flags_info =
    {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
        .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT,
    };
    VkMemoryAllocateInfo info =
    {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .pNext = &flags_info,
        .allocationSize = size,
        .memoryTypeIndex = type_index,
    };
    VkResult vr;

    if ((vr = VK_CALL(vkAllocateMemory(device->vk_device, &info, NULL, &memory->vk_memory))) < 0)
        return vr;
    memory->size = size;
    memory->type_index = type_index;
    memory->flags = device->caps.memory.memoryTypes[type_index].propertyFlags;
    memory->mapped = NULL;
    if ((memory->flags & HOST_VISIBLE) && (vr = VK_CHECK(VK_CALL(vkMapMemory(device->vk_device,
            memory->vk_memory, 0, VK_WHOLE_SIZE, 0, &memory->mapped)))) < 0)
    {
        VK_CALL(vkFreeMemory(device->vk_device, memory->vk_memory, NULL));
        memory->vk_memory = VK_NULL_HANDLE;
    }
    return vr;
}

VkResult vkdml_vk_memory_allocate(struct vkdml_vk_device *device, VkDeviceSize size, uint32_t type_bits,
        enum vkdml_vk_memory_kind kind, struct vkdml_vk_memory *memory)
{
    const VkPhysicalDeviceMemoryProperties *properties = &device->caps.memory;
    VkResult vr = VK_ERROR_OUT_OF_DEVICE_MEMORY;
    VkMemoryPropertyFlags candidates[3];
    unsigned int count, c;
    uint32_t i;

    memset(memory, 0, sizeof(*memory));
    count = memory_candidates(device, kind, candidates);
    for (c = 0; c < count; ++c)
    {
        for (i = 0; i < properties->memoryTypeCount; ++i)
        {
            const VkMemoryType *type = &properties->memoryTypes[i];

            if (!(type_bits & (1u << i)) || (type->propertyFlags & candidates[c]) != candidates[c]
                    || (type->propertyFlags & UNWANTED_FLAGS))
                continue;
            /* Asking for more than the heap holds is invalid usage, not just a failure. */
            if (size > properties->memoryHeaps[type->heapIndex].size)
                continue;
            if ((vr = allocate_type(device, size, i, memory)) >= 0)
                return vr;
            /* A full heap: fall back to the next type, as vkd3d-proton does. */
            if (vr != VK_ERROR_OUT_OF_DEVICE_MEMORY && vr != VK_ERROR_OUT_OF_HOST_MEMORY)
                return VK_CHECK(vr);
        }
    }
    WARN("No %s memory for %" PRIu64 " bytes (memory type bits %#x): %s.", memory_kind_names[kind],
            (uint64_t)size, type_bits, vkdml_vk_result_string(vr));
    return vr;
}

void vkdml_vk_memory_free(struct vkdml_vk_device *device, struct vkdml_vk_memory *memory)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->procs;

    /* Unmapping is implicit in vkFreeMemory. */
    VK_CALL(vkFreeMemory(device->vk_device, memory->vk_memory, NULL));
    memset(memory, 0, sizeof(*memory));
}

/* Widens [offset, offset + size) to whole non-coherent atoms, as vkFlush/InvalidateMappedMemoryRanges require. */
static VkMappedMemoryRange mapped_range(const struct vkdml_vk_device *device, VkDeviceMemory memory,
        VkDeviceSize memory_size, VkDeviceSize offset, VkDeviceSize size)
{
    VkDeviceSize atom = device->caps.properties.limits.nonCoherentAtomSize;
    VkDeviceSize start, end;
    VkMappedMemoryRange range = {.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, .memory = memory};

    if (!atom)
        atom = 1;
    start = offset / atom * atom;
    end = VKDML_ALIGN_UP(offset + size, atom);
    range.offset = start;
    range.size = memory_size != VK_WHOLE_SIZE && end <= memory_size ? end - start : VK_WHOLE_SIZE;
    return range;
}

VkResult vkdml_vk_memory_flush(struct vkdml_vk_device *device, VkDeviceMemory memory, VkDeviceSize memory_size,
        VkDeviceSize offset, VkDeviceSize size)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->procs;
    VkMappedMemoryRange range = mapped_range(device, memory, memory_size, offset, size);

    return VK_CHECK(VK_CALL(vkFlushMappedMemoryRanges(device->vk_device, 1, &range)));
}

VkResult vkdml_vk_memory_invalidate(struct vkdml_vk_device *device, VkDeviceMemory memory, VkDeviceSize memory_size,
        VkDeviceSize offset, VkDeviceSize size)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->procs;
    VkMappedMemoryRange range = mapped_range(device, memory, memory_size, offset, size);

    return VK_CHECK(VK_CALL(vkInvalidateMappedMemoryRanges(device->vk_device, 1, &range)));
}

static VkResult create_vk_buffer(struct vkdml_vk_device *device, VkDeviceSize size, VkBuffer *buffer)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->procs;
    VkBufferCreateInfo info =
    {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = size,
        .usage = BUFFER_USAGE,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
    };

    return VK_CHECK(VK_CALL(vkCreateBuffer(device->vk_device, &info, NULL, buffer)));
}

static VkDeviceAddress buffer_address(struct vkdml_vk_device *device, VkBuffer buffer)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->procs;
    VkBufferDeviceAddressInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO, .buffer = buffer};

    return VK_CALL(vkGetBufferDeviceAddress(device->vk_device, &info));
}

VkResult vkdml_vk_get_memory_info(struct vkdml_vk_device *device, struct vkdml_vk_memory_info *info)
{
    const struct vkdml_vk_instance_procs *instance_procs = &device->instance->procs;
    const struct vkdml_vk_device_procs *vk_procs = &device->procs;
    const VkPhysicalDeviceMemoryProperties *memory = &device->caps.memory;
    VkPhysicalDeviceMaintenance4Properties maintenance4 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES};
    VkPhysicalDeviceMaintenance3Properties maintenance3 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
    VkPhysicalDeviceProperties2 properties = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &maintenance3};
    VkMemoryRequirements requirements;
    VkBuffer probe;
    uint32_t i;
    VkResult vr;

    memset(info, 0, sizeof(*info));
    /* maxBufferSize is core only from 1.3, and only where instance and device both have it. */
    if (VKDML_MIN(device->instance->api_version, device->adapter.api_version) >= VK_API_VERSION_1_3)
        maintenance3.pNext = &maintenance4;
    instance_procs->vkGetPhysicalDeviceProperties2(device->physical_device, &properties);
    info->max_allocation_size = maintenance3.maxMemoryAllocationSize;
    info->max_buffer_size = maintenance4.maxBufferSize ? maintenance4.maxBufferSize : UINT64_MAX;
    info->non_coherent_atom_size = device->caps.properties.limits.nonCoherentAtomSize;

    /* memoryTypeBits is the same for every buffer of the same usage and flags (Vulkan spec,
     * VkMemoryRequirements), so one probe tells where every vkdml buffer may live. */
    if ((vr = create_vk_buffer(device, 4, &probe)) < 0)
        return vr;
    VK_CALL(vkGetBufferMemoryRequirements(device->vk_device, probe, &requirements));
    VK_CALL(vkDestroyBuffer(device->vk_device, probe, NULL));
    info->buffer_type_bits = requirements.memoryTypeBits;

    info->uma = info->cache_coherent_uma = true;
    for (i = 0; i < memory->memoryTypeCount; ++i)
    {
        VkMemoryPropertyFlags flags = memory->memoryTypes[i].propertyFlags;

        if (!(flags & DEVICE_LOCAL))
            continue;
        if (!(flags & HOST_VISIBLE))
            info->uma = false;
        if (!(flags & HOST_COHERENT))
            info->cache_coherent_uma = false;
    }
    info->cache_coherent_uma = info->cache_coherent_uma && info->uma;
    return VK_SUCCESS;
}

VkResult vkdml_vk_buffer_create(struct vkdml_vk_device *device, VkDeviceSize size,
        enum vkdml_vk_memory_kind kind, struct vkdml_vk_buffer *buffer)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->procs;
    struct vkdml_vk_memory memory;
    VkMemoryRequirements requirements;
    VkResult vr;

    memset(buffer, 0, sizeof(*buffer));
    buffer->size = size;
    if ((vr = create_vk_buffer(device, size, &buffer->vk_buffer)) < 0)
        return vr;
    VK_CALL(vkGetBufferMemoryRequirements(device->vk_device, buffer->vk_buffer, &requirements));
    if ((vr = vkdml_vk_memory_allocate(device, requirements.size, requirements.memoryTypeBits, kind, &memory)) < 0)
        goto fail;
    buffer->memory = memory.vk_memory;
    buffer->mapped = memory.mapped;
    buffer->memory_flags = memory.flags;
    buffer->memory_type = memory.type_index;
    buffer->memory_size = memory.size;
    if ((vr = VK_CHECK(VK_CALL(vkBindBufferMemory(device->vk_device, buffer->vk_buffer, buffer->memory, 0)))) < 0)
        goto fail;
    buffer->address = buffer_address(device, buffer->vk_buffer);
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

VkResult vkdml_vk_buffer_create_placed(struct vkdml_vk_device *device, VkDeviceSize size,
        const struct vkdml_vk_memory *memory, VkDeviceSize offset, VkBuffer *buffer, VkDeviceAddress *address)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->procs;
    VkMemoryRequirements requirements;
    VkResult vr;

    *buffer = VK_NULL_HANDLE;
    *address = 0;
    if ((vr = create_vk_buffer(device, size, buffer)) < 0)
        return vr;
    VK_CALL(vkGetBufferMemoryRequirements(device->vk_device, *buffer, &requirements));
    vr = VK_ERROR_UNKNOWN;
    if (!(requirements.memoryTypeBits & (1u << memory->type_index)))
    {
        ERR("Memory type %u cannot hold a buffer (allowed types %#x).", memory->type_index,
                requirements.memoryTypeBits);
        goto fail;
    }
    if (offset % requirements.alignment || offset > memory->size || requirements.size > memory->size - offset)
    {
        ERR("A buffer of %" PRIu64 " bytes (alignment %" PRIu64 ") does not fit at offset %" PRIu64
                " of %" PRIu64 " bytes of memory.", (uint64_t)requirements.size, (uint64_t)requirements.alignment,
                (uint64_t)offset, (uint64_t)memory->size);
        goto fail;
    }
    if ((vr = VK_CHECK(VK_CALL(vkBindBufferMemory(device->vk_device, *buffer, memory->vk_memory, offset)))) < 0)
        goto fail;
    *address = buffer_address(device, *buffer);
    return VK_SUCCESS;

fail:
    VK_CALL(vkDestroyBuffer(device->vk_device, *buffer, NULL));
    *buffer = VK_NULL_HANDLE;
    return vr;
}

/* ---- Clears of device-local memory ---- */

struct vkdml_vk_clear
{
    struct vkdml_vk_clear *next;
    VkDeviceMemory memory;          /* what it clears */
    VkBuffer buffer;                /* its own view of that memory */
    VkCommandPool pool;
    VkFence fence;
};

void vkdml_vk_clears_init(struct vkdml_vk_clears *clears)
{
    clears->mutex = (struct vkdml_mutex)VKDML_MUTEX_INIT;
    clears->pending = NULL;
}

static void clear_free(struct vkdml_vk_device *device, struct vkdml_vk_clear *clear)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->procs;

    VK_CALL(vkDestroyFence(device->vk_device, clear->fence, NULL));
    /* Frees the command buffer too. */
    VK_CALL(vkDestroyCommandPool(device->vk_device, clear->pool, NULL));
    VK_CALL(vkDestroyBuffer(device->vk_device, clear->buffer, NULL));
    free(clear);
}

/* Frees finished clears; with `memory`, first waits for the clears of that memory. Caller holds the mutex. */
static void reclaim_clears(struct vkdml_vk_device *device, struct vkdml_vk_clears *clears, VkDeviceMemory memory)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->procs;
    struct vkdml_vk_clear **link = &clears->pending, *clear;

    while ((clear = *link))
    {
        if (memory && clear->memory == memory)
            VK_CALL(vkWaitForFences(device->vk_device, 1, &clear->fence, VK_TRUE, UINT64_MAX));
        if (VK_CALL(vkGetFenceStatus(device->vk_device, clear->fence)) == VK_NOT_READY)
        {
            link = &clear->next;
            continue;
        }
        /* Done, or the device is lost: either way nothing runs any more. */
        *link = clear->next;
        clear_free(device, clear);
    }
}

static VkResult record_clear(struct vkdml_vk_device *device, struct vkdml_vk_clear *clear)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->procs;
    VkCommandBufferAllocateInfo allocate_info =
    {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = clear->pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = 1,
    };
    VkCommandBufferBeginInfo begin_info =
    {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
    };
    /* Later submissions are in this barrier's second scope (submission order), so whatever the
     * application records next sees zeros. */
    VkMemoryBarrier2 barrier =
    {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
        .srcStageMask = VK_PIPELINE_STAGE_2_CLEAR_BIT,
        .srcAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT,
        .dstStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
        .dstAccessMask = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT,
    };
    VkDependencyInfo dependency =
    {
        .sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
        .memoryBarrierCount = 1,
        .pMemoryBarriers = &barrier,
    };
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1};
    VkCommandBuffer command_buffer;
    VkResult vr;

    if ((vr = VK_CHECK(VK_CALL(vkAllocateCommandBuffers(device->vk_device, &allocate_info, &command_buffer)))) < 0
            || (vr = VK_CHECK(VK_CALL(vkBeginCommandBuffer(command_buffer, &begin_info)))) < 0)
        return vr;
    VK_CALL(vkCmdFillBuffer(command_buffer, clear->buffer, 0, VK_WHOLE_SIZE, 0));
    VK_CALL(vkCmdPipelineBarrier2(command_buffer, &dependency));
    if ((vr = VK_CHECK(VK_CALL(vkEndCommandBuffer(command_buffer)))) < 0)
        return vr;
    submit.pCommandBuffers = &command_buffer;
    vkdml_mutex_lock(&device->queue_mutex);
    vkdml_vk_queue_lock(device);
    vr = VK_CHECK(VK_CALL(vkQueueSubmit(device->queue, 1, &submit, clear->fence)));
    vkdml_vk_queue_unlock(device);
    vkdml_mutex_unlock(&device->queue_mutex);
    return vr;
}

VkResult vkdml_vk_clear_memory(struct vkdml_vk_device *device, struct vkdml_vk_clears *clears,
        const struct vkdml_vk_memory *memory, VkDeviceSize size)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->procs;
    VkCommandPoolCreateInfo pool_info =
    {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
        .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
        .queueFamilyIndex = device->queue_family,
    };
    VkFenceCreateInfo fence_info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    struct vkdml_vk_clear *clear;
    VkDeviceAddress address;
    VkResult vr;

    if (!(clear = calloc(1, sizeof(*clear))))
        return VK_ERROR_OUT_OF_HOST_MEMORY;
    clear->memory = memory->vk_memory;
    /* Whole dwords: vkCmdFillBuffer writes 4 bytes at a time. */
    if ((vr = vkdml_vk_buffer_create_placed(device, VKDML_ALIGN_UP(size, 4), memory, 0, &clear->buffer, &address)) < 0
            || (vr = VK_CHECK(VK_CALL(vkCreateCommandPool(device->vk_device, &pool_info, NULL, &clear->pool)))) < 0
            || (vr = VK_CHECK(VK_CALL(vkCreateFence(device->vk_device, &fence_info, NULL, &clear->fence)))) < 0
            || (vr = record_clear(device, clear)) < 0)
    {
        /* Nothing was submitted: everything can go at once. */
        clear_free(device, clear);
        return vr;
    }
    vkdml_mutex_lock(&clears->mutex);
    reclaim_clears(device, clears, VK_NULL_HANDLE);
    clear->next = clears->pending;
    clears->pending = clear;
    vkdml_mutex_unlock(&clears->mutex);
    return VK_SUCCESS;
}

void vkdml_vk_clears_wait_memory(struct vkdml_vk_device *device, struct vkdml_vk_clears *clears, VkDeviceMemory memory)
{
    vkdml_mutex_lock(&clears->mutex);
    reclaim_clears(device, clears, memory);
    vkdml_mutex_unlock(&clears->mutex);
}

void vkdml_vk_clears_destroy(struct vkdml_vk_device *device, struct vkdml_vk_clears *clears)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->procs;
    struct vkdml_vk_clear *clear;

    while ((clear = clears->pending))
    {
        clears->pending = clear->next;
        VK_CALL(vkWaitForFences(device->vk_device, 1, &clear->fence, VK_TRUE, UINT64_MAX));
        clear_free(device, clear);
    }
}
