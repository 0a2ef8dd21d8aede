/*
 * ID3D12CommandAllocator on Vulkan.
 *
 * Allocators own a VkCommandPool and every VkCommandBuffer allocated from it; a list borrows
 * one buffer per Reset. An allocator Reset (vkResetCommandPool) or Release detaches the lists
 * that borrowed from it, so a stale list is refused by ExecuteCommandLists instead of
 * submitting a reset command buffer. Lock order: allocator->mutex, then device->vk->queue_mutex
 * (queue.c).
 */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "d3d12_private.h"

/* ---- ID3D12CommandAllocator ---- */

static const struct ID3D12CommandAllocatorVtbl d3d12_command_allocator_vtbl;

static inline struct d3d12_command_allocator *impl_from_ID3D12CommandAllocator(ID3D12CommandAllocator *iface)
{
    return CONTAINING_RECORD(iface, struct d3d12_command_allocator, ID3D12CommandAllocator_iface);
}

struct d3d12_command_allocator *unsafe_impl_from_ID3D12CommandAllocator(ID3D12CommandAllocator *iface)
{
    if (!iface || iface->lpVtbl != &d3d12_command_allocator_vtbl)
        return NULL;
    return impl_from_ID3D12CommandAllocator(iface);
}

/* Forgets every list that borrowed a buffer: their buffers are about to be reset or freed.
 * Caller holds allocator->mutex. */
static void allocator_detach_lists(struct d3d12_command_allocator *allocator)
{
    struct d3d12_command_list *list, *next;

    for (list = allocator->lists; list; list = next)
    {
        next = list->allocator_next;
        list->allocator = NULL;
        list->allocator_next = NULL;
        list->vk_command_buffer = VK_NULL_HANDLE;
    }
    allocator->lists = NULL;
}

/* A reset (or new) command buffer for a list. Caller holds allocator->mutex. */
HRESULT d3d12_command_allocator_take_buffer(struct d3d12_command_allocator *allocator, VkCommandBuffer *buffer)
{
    struct d3d12_device *device = allocator->device;
    const struct vkdml_vk_device_procs *vk_procs = &device->vk->procs;
    VkCommandBufferAllocateInfo info = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    VkResult vr;

    if (allocator->buffers_in_use < allocator->buffer_count)
    {
        *buffer = allocator->buffers[allocator->buffers_in_use++];
        return S_OK;
    }
    if (allocator->buffer_count == allocator->buffer_capacity)
    {
        size_t capacity = VKDML_MAX(4, 2 * allocator->buffer_capacity);
        VkCommandBuffer *buffers = realloc(allocator->buffers, capacity * sizeof(*buffers));

        if (!buffers)
            return E_OUTOFMEMORY;
        allocator->buffers = buffers;
        allocator->buffer_capacity = capacity;
    }
    info.commandPool = allocator->pool;
    info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    info.commandBufferCount = 1;
    if ((vr = VK_CHECK(VK_CALL(vkAllocateCommandBuffers(device->vk->vk_device, &info, buffer)))) < 0)
        return d3d12_device_check_vk_result(device, vr);
    allocator->buffers[allocator->buffer_count++] = *buffer;
    allocator->buffers_in_use = allocator->buffer_count;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE d3d12_command_allocator_QueryInterface(ID3D12CommandAllocator *iface,
        REFIID riid, void **object)
{
    static const IID *const iids[] =
    {
        &IID_ID3D12CommandAllocator, &IID_ID3D12Pageable, &IID_ID3D12DeviceChild, &IID_ID3D12Object,
        &IID_IUnknown
    };

    TRACE("iface %p, riid %s, object %p.", iface, debugstr_guid(riid), object);
    return vkdml_query_interface((IUnknown *)iface, iids, ARRAY_SIZE(iids), riid, object);
}

static ULONG STDMETHODCALLTYPE d3d12_command_allocator_AddRef(ID3D12CommandAllocator *iface)
{
    struct d3d12_command_allocator *allocator = impl_from_ID3D12CommandAllocator(iface);
    ULONG refcount = vkdml_refcount_increment(&allocator->refcount);

    TRACE("%p increasing refcount to %u.", allocator, (unsigned int)refcount);
    return refcount;
}

/* The application's last reference is gone: the lists recorded from the allocator become stale at
 * once, even while deferred ExecuteCommandLists keep its pool alive. */
static void allocator_release_lists(struct d3d12_command_allocator *allocator)
{
    vkdml_mutex_lock(&allocator->mutex);
    if (allocator->recording)
    {
        ERR("Release: command list %p is still recording into the allocator being released; its Close will "
                "return E_FAIL.", &allocator->recording->ID3D12GraphicsCommandList_iface);
        if (SUCCEEDED(allocator->recording->close_error))
            allocator->recording->close_error = E_FAIL;
        allocator->recording = NULL;
    }
    allocator_detach_lists(allocator);
    vkdml_mutex_unlock(&allocator->mutex);
}

static void d3d12_command_allocator_destroy(struct d3d12_command_allocator *allocator)
{
    struct d3d12_device *device = allocator->device;
    const struct vkdml_vk_device_procs *vk_procs = &device->vk->procs;

    /* Freeing command buffers the GPU still executes is invalid; D3D12 leaves it to the
     * application, we wait rather than break. */
    if (d3d12_command_queue_submission_pending(allocator->last_queue, allocator->last_submission))
    {
        WARN("Release: the allocator's command buffers are still executing; waiting for submission %" PRIu64 ".",
                allocator->last_submission);
        d3d12_device_wait_timeline(device, allocator->last_timeline, allocator->last_submission);
    }
    VK_CALL(vkDestroyCommandPool(device->vk->vk_device, allocator->pool, NULL));
    if (allocator->last_queue)
        d3d12_command_queue_internal_release(allocator->last_queue);
    free(allocator->buffers);
    vkdml_private_store_destroy(&allocator->private_store);
    free(allocator);
    d3d12_device_release(device);
}

void d3d12_command_allocator_internal_add_ref(struct d3d12_command_allocator *allocator)
{
    vkdml_refcount_increment(&allocator->internal_refcount);
}

/* Never call with device->vk->queue_mutex held: destruction waits for the allocator's work. */
void d3d12_command_allocator_internal_release(struct d3d12_command_allocator *allocator)
{
    if (!vkdml_refcount_decrement(&allocator->internal_refcount))
        d3d12_command_allocator_destroy(allocator);
}

static ULONG STDMETHODCALLTYPE d3d12_command_allocator_Release(ID3D12CommandAllocator *iface)
{
    struct d3d12_command_allocator *allocator = impl_from_ID3D12CommandAllocator(iface);
    ULONG refcount = vkdml_refcount_decrement(&allocator->refcount);

    TRACE("%p decreasing refcount to %u.", allocator, (unsigned int)refcount);
    if (!refcount)
    {
        allocator_release_lists(allocator);
        d3d12_command_allocator_internal_release(allocator);
    }
    return refcount;
}

VKDML_IMPLEMENT_PRIVATE_DATA(d3d12_command_allocator, ID3D12CommandAllocator, impl_from_ID3D12CommandAllocator,
        const IUnknown *)

static HRESULT STDMETHODCALLTYPE d3d12_command_allocator_SetName(ID3D12CommandAllocator *iface, const WCHAR *name)
{
    struct d3d12_command_allocator *allocator = impl_from_ID3D12CommandAllocator(iface);

    TRACE("iface %p, name %p.", iface, name);
    return d3d12_object_set_name(allocator->device, &allocator->private_store, VK_OBJECT_TYPE_COMMAND_POOL,
            (uint64_t)allocator->pool, name);
}

D3D12_IMPLEMENT_GET_DEVICE(d3d12_command_allocator, ID3D12CommandAllocator, impl_from_ID3D12CommandAllocator)

static HRESULT STDMETHODCALLTYPE d3d12_command_allocator_Reset(ID3D12CommandAllocator *iface)
{
    struct d3d12_command_allocator *allocator = impl_from_ID3D12CommandAllocator(iface);
    struct d3d12_device *device = allocator->device;
    const struct vkdml_vk_device_procs *vk_procs = &device->vk->procs;
    struct d3d12_command_queue *idle_queue = NULL;
    uint64_t pending_submission = 0, deferred;
    bool in_flight;
    HRESULT hr = S_OK;
    VkResult vr;

    TRACE("iface %p.", iface);

    vkdml_mutex_lock(&allocator->mutex);
    if (allocator->recording)
    {
        ERR("Reset: command list %p is still recording into the allocator (Close it first).",
                &allocator->recording->ID3D12GraphicsCommandList_iface);
        hr = E_FAIL;
        goto done;
    }
    vkdml_mutex_lock(&device->vk->queue_mutex);
    deferred = allocator->deferred_count;
    in_flight = deferred || d3d12_command_queue_submission_pending(allocator->last_queue, allocator->last_submission);
    if (!in_flight)
    {
        /* Nothing of this allocator runs any more: let the queue go. */
        idle_queue = allocator->last_queue;
        allocator->last_queue = NULL;
        allocator->last_timeline = VK_NULL_HANDLE;
        allocator->last_submission = 0;
    }
    pending_submission = allocator->last_submission;
    vkdml_mutex_unlock(&device->vk->queue_mutex);
    if (deferred)
    {
        ERR("Reset: the allocator's command lists are still in flight (%" PRIu64 " of their executions are held "
                "back behind a queue Wait whose fence value is not signalled yet; signal it, then wait on a fence).",
                deferred);
        hr = E_FAIL;
        goto done;
    }
    if (in_flight)
    {
        ERR("Reset: the allocator's command lists are still in flight (queue submission %" PRIu64 " has not "
                "completed; wait on a fence first).", pending_submission);
        hr = E_FAIL;
        goto done;
    }
    if ((vr = VK_CHECK(VK_CALL(vkResetCommandPool(device->vk->vk_device, allocator->pool, 0)))) < 0)
    {
        hr = d3d12_device_check_vk_result(device, vr);
        goto done;
    }
    /* The buffers are kept for reuse; the lists that borrowed them must be Reset before use. */
    allocator_detach_lists(allocator);
    allocator->buffers_in_use = 0;
done:
    vkdml_mutex_unlock(&allocator->mutex);
    if (idle_queue)
        d3d12_command_queue_internal_release(idle_queue);
    return hr;
}

static const struct ID3D12CommandAllocatorVtbl d3d12_command_allocator_vtbl =
{
    /* IUnknown */
    d3d12_command_allocator_QueryInterface,
    d3d12_command_allocator_AddRef,
    d3d12_command_allocator_Release,
    /* ID3D12Object */
    d3d12_command_allocator_GetPrivateData,
    d3d12_command_allocator_SetPrivateData,
    d3d12_command_allocator_SetPrivateDataInterface,
    d3d12_command_allocator_SetName,
    /* ID3D12DeviceChild */
    d3d12_command_allocator_GetDevice,
    /* ID3D12CommandAllocator */
    d3d12_command_allocator_Reset,
};

HRESULT d3d12_command_allocator_create(struct d3d12_device *device, D3D12_COMMAND_LIST_TYPE type,
        struct d3d12_command_allocator **out)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->vk->procs;
    VkCommandPoolCreateInfo info = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    struct d3d12_command_allocator *allocator;
    VkResult vr;
    HRESULT hr;

    *out = NULL;
    if (FAILED(hr = d3d12_check_list_type(type, "CreateCommandAllocator")))
        return hr;
    if (!(allocator = calloc(1, sizeof(*allocator))))
        return E_OUTOFMEMORY;
    allocator->ID3D12CommandAllocator_iface.lpVtbl = &d3d12_command_allocator_vtbl;
    atomic_init(&allocator->refcount, 1);
    atomic_init(&allocator->internal_refcount, 1);
    allocator->type = type;
    allocator->mutex = (struct vkdml_mutex)VKDML_MUTEX_INIT;
    /* Whole-pool resets only (vkResetCommandPool), so no RESET_COMMAND_BUFFER flag. */
    info.queueFamilyIndex = device->vk->queue_family;
    if ((vr = VK_CHECK(VK_CALL(vkCreateCommandPool(device->vk->vk_device, &info, NULL, &allocator->pool)))) < 0)
    {
        hr = d3d12_device_check_vk_result(device, vr);
        free(allocator);
        return hr;
    }
    vkdml_private_store_init(&allocator->private_store);
    allocator->device = device;
    d3d12_device_add_ref(device);

    TRACE("Created %s allocator %p.", d3d12_debug_list_type(type), allocator);
    *out = allocator;
    return S_OK;
}

