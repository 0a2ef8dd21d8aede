/*
 * Profilers (vkdml.h): per-dispatch GPU timestamps in a query pool, two queries per timed
 * dispatch, reset in the command buffer right before they are written (so neither host query
 * reset nor an engine's optional features are needed), read back after execution.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d3d12_private.h"
#include "vkdml_backend.h"

#ifndef DXGI_ERROR_WAS_STILL_DRAWING
# define DXGI_ERROR_WAS_STILL_DRAWING ((HRESULT)0x887A000AL)
#endif

#define MAX_TIMED_DISPATCHES (1u << 20)
#define NAME_SIZE sizeof(((struct vkdml_profiler_entry *)0)->name)

/* Failures are logged under the public function's name. */
#define LOG_AS(level, function, ...) \
    do { if (vkdml_log_enabled(level)) vkdml_log(level, VKDML_LOG_SOURCE_VKDML, function, __VA_ARGS__); } while (0)

struct vkdml_profiler
{
    atomic_uint refcount;                   /* the application's, plus one per attached command list */
    struct d3d12_device *device;            /* holds a reference */
    VkQueryPool pool;
    uint32_t capacity;                      /* timed dispatches; the pool has two queries per dispatch */
    uint64_t valid_mask;                    /* timestampValidBits of the queue family, as a mask */
    double period;                          /* nanoseconds per tick */
    struct vkdml_mutex mutex;               /* guards everything below */
    uint32_t count;                         /* dispatches timed since the last reset */
    bool warned_full;
    char (*names)[NAME_SIZE];
};

/* ---- Internal (d3d12_private.h) ---- */

static void profiler_destroy(struct vkdml_profiler *profiler)
{
    struct d3d12_device *device = profiler->device;
    const struct vkdml_vk_device_procs *vk_procs = &device->vk->procs;

    VK_CALL(vkDestroyQueryPool(device->vk->vk_device, profiler->pool, NULL));
    free(profiler->names);
    free(profiler);
    d3d12_device_release(device);
}

void vkdml_profiler_internal_add_ref(struct vkdml_profiler *profiler)
{
    if (profiler)
        vkdml_refcount_increment(&profiler->refcount);
}

void vkdml_profiler_internal_release(struct vkdml_profiler *profiler)
{
    if (profiler && !vkdml_refcount_decrement(&profiler->refcount))
        profiler_destroy(profiler);
}

struct d3d12_device *vkdml_profiler_device(const struct vkdml_profiler *profiler)
{
    return profiler->device;
}

int vkdml_profiler_begin(struct vkdml_profiler *profiler, VkCommandBuffer command_buffer, const char *name)
{
    const struct vkdml_vk_device_procs *vk_procs = &profiler->device->vk->procs;
    int slot = -1;

    vkdml_mutex_lock(&profiler->mutex);
    if (profiler->count < profiler->capacity)
    {
        slot = (int)profiler->count++;
        snprintf(profiler->names[slot], NAME_SIZE, "%s", name);
    }
    else if (!profiler->warned_full)
    {
        profiler->warned_full = true;
        WARN("Profiler %p is full (%u timed dispatches): later dispatches are not timed until "
                "vkdml_profiler_reset().", (void *)profiler, profiler->capacity);
    }
    vkdml_mutex_unlock(&profiler->mutex);
    if (slot < 0)
        return -1;
    /* Query commands on one query execute in submission order: the reset precedes the writes. */
    VK_CALL(vkCmdResetQueryPool(command_buffer, profiler->pool, 2 * (uint32_t)slot, 2));
    VK_CALL(vkCmdWriteTimestamp(command_buffer, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, profiler->pool,
            2 * (uint32_t)slot));
    return slot;
}

void vkdml_profiler_end(struct vkdml_profiler *profiler, VkCommandBuffer command_buffer, int slot)
{
    const struct vkdml_vk_device_procs *vk_procs = &profiler->device->vk->procs;

    VK_CALL(vkCmdWriteTimestamp(command_buffer, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, profiler->pool,
            2 * (uint32_t)slot + 1));
}

/* ---- Creation ---- */

/* The shim device behind an ID3D12Device or IDMLDevice of vkdml, with a reference; NULL otherwise. */
static struct d3d12_device *profiler_target_device(void *iface)
{
    struct d3d12_device *device;
    ID3D12Device *parent = NULL;
    IDMLDevice *dml = NULL;

    if ((device = unsafe_impl_from_ID3D12Device(iface)))
    {
        d3d12_device_add_ref(device);
        return device;
    }
    if (FAILED(((IUnknown *)iface)->lpVtbl->QueryInterface((IUnknown *)iface, &IID_IDMLDevice, (void **)&dml)))
        return NULL;
    dml->lpVtbl->GetParentDevice(dml, &IID_ID3D12Device, (void **)&parent);
    dml->lpVtbl->Release(dml);
    if (!(device = unsafe_impl_from_ID3D12Device(parent)) && parent)
        ID3D12Device_Release(parent);
    return device;
}

static uint32_t queue_timestamp_bits(struct vkdml_vk_device *vk)
{
    const struct vkdml_vk_instance_procs *vk_procs = &vk->instance->procs;
    VkQueueFamilyProperties *families;
    uint32_t count = 0, bits = 0;

    VK_CALL(vkGetPhysicalDeviceQueueFamilyProperties(vk->physical_device, &count, NULL));
    if (vk->queue_family >= count || !(families = calloc(count, sizeof(*families))))
        return 0;
    VK_CALL(vkGetPhysicalDeviceQueueFamilyProperties(vk->physical_device, &count, families));
    bits = families[vk->queue_family].timestampValidBits;
    free(families);
    return bits;
}

/* Queries start uninitialized, and reading those is invalid: reset the pool once on the queue, so
 * a slot recorded but not yet executed reads as "not ready". */
static VkResult reset_pool_on_queue(struct vkdml_vk_device *vk, VkQueryPool pool, uint32_t query_count)
{
    const struct vkdml_vk_device_procs *vk_procs = &vk->procs;
    VkCommandPoolCreateInfo pool_info = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, NULL,
            VK_COMMAND_POOL_CREATE_TRANSIENT_BIT, vk->queue_family};
    VkCommandBufferBeginInfo begin_info = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, NULL,
            VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL};
    VkFenceCreateInfo fence_info = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkSubmitInfo submit = {VK_STRUCTURE_TYPE_SUBMIT_INFO};
    VkCommandBufferAllocateInfo allocate_info = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    VkCommandPool command_pool = VK_NULL_HANDLE;
    VkCommandBuffer command_buffer;
    VkFence fence = VK_NULL_HANDLE;
    VkResult vr;

    if ((vr = VK_CHECK(VK_CALL(vkCreateCommandPool(vk->vk_device, &pool_info, NULL, &command_pool)))) < 0)
        return vr;
    allocate_info.commandPool = command_pool;
    allocate_info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    allocate_info.commandBufferCount = 1;
    if ((vr = VK_CHECK(VK_CALL(vkAllocateCommandBuffers(vk->vk_device, &allocate_info, &command_buffer)))) < 0
            || (vr = VK_CHECK(VK_CALL(vkBeginCommandBuffer(command_buffer, &begin_info)))) < 0)
        goto done;
    VK_CALL(vkCmdResetQueryPool(command_buffer, pool, 0, query_count));
    if ((vr = VK_CHECK(VK_CALL(vkEndCommandBuffer(command_buffer)))) < 0
            || (vr = VK_CHECK(VK_CALL(vkCreateFence(vk->vk_device, &fence_info, NULL, &fence)))) < 0)
        goto done;
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &command_buffer;
    vkdml_mutex_lock(&vk->queue_mutex);
    vkdml_vk_queue_lock(vk);
    vr = VK_CHECK(VK_CALL(vkQueueSubmit(vk->queue, 1, &submit, fence)));
    vkdml_vk_queue_unlock(vk);
    vkdml_mutex_unlock(&vk->queue_mutex);
    if (vr >= 0)
        vr = VK_CHECK(VK_CALL(vkWaitForFences(vk->vk_device, 1, &fence, VK_TRUE, UINT64_MAX)));

done:
    VK_CALL(vkDestroyFence(vk->vk_device, fence, NULL));
    VK_CALL(vkDestroyCommandPool(vk->vk_device, command_pool, NULL));
    return vr;
}

static HRESULT profiler_init(struct vkdml_profiler *profiler, uint32_t max_dispatches, uint32_t bits)
{
    struct d3d12_device *device = profiler->device;
    const struct vkdml_vk_device_procs *vk_procs = &device->vk->procs;
    VkQueryPoolCreateInfo info = {VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    VkResult vr;

    atomic_init(&profiler->refcount, 1);
    profiler->mutex = (struct vkdml_mutex)VKDML_MUTEX_INIT;
    profiler->capacity = max_dispatches;
    profiler->valid_mask = bits >= 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
    profiler->period = device->vk->caps.properties.limits.timestampPeriod;
    if (!(profiler->names = calloc(max_dispatches, NAME_SIZE)))
        return E_OUTOFMEMORY;
    info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    info.queryCount = 2 * max_dispatches;
    if ((vr = VK_CHECK(VK_CALL(vkCreateQueryPool(device->vk->vk_device, &info, NULL, &profiler->pool)))) < 0)
        return d3d12_device_check_vk_result(device, vr);
    if ((vr = reset_pool_on_queue(device->vk, profiler->pool, info.queryCount)) < 0)
        return d3d12_device_check_vk_result(device, vr);
    return S_OK;
}

static HRESULT check_create_arguments(void *device, uint32_t max_dispatches, struct vkdml_profiler **profiler)
{
    if (!profiler)
    {
        LOG_AS(VKDML_LOG_ERR, "vkdml_profiler_create", "profiler is NULL; it receives the new profiler.");
        return E_POINTER;
    }
    *profiler = NULL;
    if (!device)
    {
        LOG_AS(VKDML_LOG_ERR, "vkdml_profiler_create", "device is NULL; pass an IDMLDevice or ID3D12Device of vkdml.");
        return E_INVALIDARG;
    }
    if (!max_dispatches || max_dispatches > MAX_TIMED_DISPATCHES)
    {
        LOG_AS(VKDML_LOG_ERR, "vkdml_profiler_create", "max_dispatches %u must be 1 to %u.", max_dispatches,
                MAX_TIMED_DISPATCHES);
        return E_INVALIDARG;
    }
    return S_OK;
}

VKDML_API int32_t vkdml_profiler_create(void *device_iface, uint32_t max_dispatches, struct vkdml_profiler **out)
{
    struct vkdml_profiler *profiler;
    struct d3d12_device *device;
    uint32_t bits;
    HRESULT hr;

    TRACE("device %p, max_dispatches %u, profiler %p.", device_iface, max_dispatches, (void *)out);

    if (FAILED(hr = check_create_arguments(device_iface, max_dispatches, out)))
        return hr;
    if (!(device = profiler_target_device(device_iface)))
    {
        LOG_AS(VKDML_LOG_ERR, "vkdml_profiler_create", "device %p is neither an IDMLDevice nor an ID3D12Device of "
                "vkdml.", device_iface);
        return E_INVALIDARG;
    }
    if (!(bits = queue_timestamp_bits(device->vk)))
    {
        LOG_AS(VKDML_LOG_ERR, "vkdml_profiler_create", "device %p: queue family %u of \"%s\" has no timestamps "
                "(timestampValidBits 0).", device_iface, device->vk->queue_family, device->vk->adapter.name);
        d3d12_device_release(device);
        return DXGI_ERROR_UNSUPPORTED;
    }
    if (!(profiler = calloc(1, sizeof(*profiler))))
    {
        d3d12_device_release(device);
        return E_OUTOFMEMORY;
    }
    profiler->device = device;
    if (FAILED(hr = profiler_init(profiler, max_dispatches, bits)))
    {
        LOG_AS(VKDML_LOG_ERR, "vkdml_profiler_create", "creating a query pool of %u timestamps failed (%#x).",
                2 * max_dispatches, (unsigned int)hr);
        profiler_destroy(profiler);
        return hr;
    }
    TRACE("Created profiler %p for %u dispatches, %u valid timestamp bits, period %.3f ns.", (void *)profiler,
            max_dispatches, bits, profiler->period);
    *out = profiler;
    return S_OK;
}

VKDML_API void vkdml_profiler_destroy(struct vkdml_profiler *profiler)
{
    TRACE("profiler %p.", (void *)profiler);
    vkdml_profiler_internal_release(profiler);
}

/* ---- Use ---- */

VKDML_API int32_t vkdml_command_list_set_profiler(void *command_list, struct vkdml_profiler *profiler)
{
    struct d3d12_command_list *list = unsafe_impl_from_ID3D12CommandList(command_list);
    struct vkdml_profiler *old;

    TRACE("command_list %p, profiler %p.", command_list, (void *)profiler);

    if (!list)
    {
        LOG_AS(VKDML_LOG_ERR, "vkdml_command_list_set_profiler", "command_list %p is not an "
                "ID3D12GraphicsCommandList of vkdml.", command_list);
        return E_INVALIDARG;
    }
    if (profiler && profiler->device != list->device)
    {
        LOG_AS(VKDML_LOG_ERR, "vkdml_command_list_set_profiler", "profiler %p belongs to another D3D12 device than "
                "command_list %p.", (void *)profiler, command_list);
        return E_INVALIDARG;
    }
    /* A command list is used by one thread at a time (D3D12's rule), so no lock is needed. */
    old = list->profiler;
    vkdml_profiler_internal_add_ref(profiler);
    list->profiler = profiler;
    vkdml_profiler_internal_release(old);
    return S_OK;
}

VKDML_API int32_t vkdml_profiler_reset(struct vkdml_profiler *profiler)
{
    TRACE("profiler %p.", (void *)profiler);

    if (!profiler)
    {
        LOG_AS(VKDML_LOG_ERR, "vkdml_profiler_reset", "profiler is NULL.");
        return E_INVALIDARG;
    }
    vkdml_mutex_lock(&profiler->mutex);
    profiler->count = 0;
    profiler->warned_full = false;
    vkdml_mutex_unlock(&profiler->mutex);
    return S_OK;
}

static HRESULT check_results_arguments(struct vkdml_profiler *profiler, const struct vkdml_profiler_entry *entries,
        size_t entry_size, const uint32_t *count)
{
    if (!profiler || !count)
    {
        LOG_AS(VKDML_LOG_ERR, "vkdml_profiler_get_results", "%s is NULL.", profiler ? "count" : "profiler");
        return E_INVALIDARG;
    }
    if (entries && entry_size < sizeof(*entries))
    {
        LOG_AS(VKDML_LOG_ERR, "vkdml_profiler_get_results", "entry_size %zu is less than %zu, "
                "sizeof(struct vkdml_profiler_entry).", entry_size, sizeof(*entries));
        return E_INVALIDARG;
    }
    if (atomic_load(&profiler->device->removed_reason) != S_OK)
    {
        LOG_AS(VKDML_LOG_ERR, "vkdml_profiler_get_results", "the device was removed (Vulkan device lost).");
        return DXGI_ERROR_DEVICE_REMOVED;
    }
    return S_OK;
}

static uint64_t ticks_to_ns(const struct vkdml_profiler *profiler, uint64_t ticks)
{
    ticks &= profiler->valid_mask;
    /* lavapipe and many GPUs count nanoseconds: keep those exact. */
    return profiler->period == 1.0 ? ticks : (uint64_t)((double)ticks * profiler->period);
}

/* Reads the timestamps of slots [0, count) into `entries` (`stride` bytes apart). */
static HRESULT read_slots(struct vkdml_profiler *profiler, uint32_t count, const char (*names)[NAME_SIZE],
        uint8_t *entries, size_t stride)
{
    const struct vkdml_vk_device_procs *vk_procs = &profiler->device->vk->procs;
    uint64_t *ticks;
    uint32_t i;
    VkResult vr;

    if (!(ticks = calloc(2 * (size_t)count, sizeof(*ticks))))
        return E_OUTOFMEMORY;
    vr = VK_CALL(vkGetQueryPoolResults(profiler->device->vk->vk_device, profiler->pool, 0, 2 * count,
            2 * count * sizeof(*ticks), ticks, sizeof(*ticks), VK_QUERY_RESULT_64_BIT));
    if (vr == VK_NOT_READY)
    {
        free(ticks);
        LOG_AS(VKDML_LOG_WARN, "vkdml_profiler_get_results", "some of the %u timed dispatches have not executed yet; "
                "wait for the GPU (the fence after their submission) first.", count);
        return DXGI_ERROR_WAS_STILL_DRAWING;
    }
    for (i = 0; vr >= 0 && i < count; ++i)
    {
        struct vkdml_profiler_entry *entry = (struct vkdml_profiler_entry *)(entries + i * stride);

        memcpy(entry->name, names[i], NAME_SIZE);
        entry->start_ns = ticks_to_ns(profiler, ticks[2 * i]);
        entry->end_ns = ticks_to_ns(profiler, ticks[2 * i + 1]);
        entry->duration_ns = entry->end_ns > entry->start_ns ? entry->end_ns - entry->start_ns : 0;
    }
    free(ticks);
    if (vr < 0)
        LOG_AS(VKDML_LOG_ERR, "vkdml_profiler_get_results", "vkGetQueryPoolResults failed: %s.",
                vkdml_vk_result_string(vr));
    return vr < 0 ? d3d12_device_check_vk_result(profiler->device, vr) : S_OK;
}

VKDML_API int32_t vkdml_profiler_get_results(struct vkdml_profiler *profiler, struct vkdml_profiler_entry *entries,
        size_t entry_size, uint32_t *count)
{
    char (*names)[NAME_SIZE] = NULL;
    uint32_t recorded, wanted;
    HRESULT hr;

    TRACE("profiler %p, entries %p, entry_size %zu, count %p.", (void *)profiler, (void *)entries, entry_size,
            (void *)count);

    if (FAILED(hr = check_results_arguments(profiler, entries, entry_size, count)))
        return hr;
    vkdml_mutex_lock(&profiler->mutex);
    recorded = profiler->count;
    wanted = entries ? VKDML_MIN(*count, recorded) : 0;
    /* A snapshot, so recording on other threads may go on while the GPU results are read. */
    if (wanted && (names = malloc(wanted * NAME_SIZE)))
        memcpy(names, profiler->names, wanted * NAME_SIZE);
    vkdml_mutex_unlock(&profiler->mutex);
    if (wanted && !names)
        return E_OUTOFMEMORY;
    if (wanted && FAILED(hr = read_slots(profiler, wanted, (const char (*)[NAME_SIZE])names, (uint8_t *)entries,
            entry_size)))
    {
        free(names);
        return hr;
    }
    free(names);
    *count = recorded;
    return wanted < recorded && entries ? S_FALSE : S_OK;
}
