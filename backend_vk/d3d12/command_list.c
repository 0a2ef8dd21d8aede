/*
 * ID3D12GraphicsCommandList on Vulkan.
 *
 * Lists: buffer-only compute subset. ResourceBarrier accumulates one global VkMemoryBarrier2
 * that is emitted before the next command (vkd3d-proton does the same); each list starts with a
 * full barrier (D3D12 serialises ExecuteCommandLists boundaries) and ends with one that makes
 * device writes visible to the host. Graphics, DXIL (Dispatch, root signatures, PSOs), queries
 * and bundles are not supported: those calls log a FIXME once and make Close return E_NOTIMPL.
 * A list borrows its VkCommandBuffer from an allocator (command_allocator.c).
 */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "d3d12_private.h"

/* ---- ID3D12GraphicsCommandList: state and barriers ---- */

static inline struct d3d12_command_list *impl_from_ID3D12GraphicsCommandList(ID3D12GraphicsCommandList *iface)
{
    return CONTAINING_RECORD(iface, struct d3d12_command_list, ID3D12GraphicsCommandList_iface);
}

/* Keeps the first error recorded while open; Close returns it. */
static void list_set_error(struct d3d12_command_list *list, HRESULT hr)
{
    if (SUCCEEDED(list->close_error))
        list->close_error = hr;
}

/* Recording into a closed list: D3D12 would remove the device; we log and ignore the call. */
static bool list_is_recording(struct d3d12_command_list *list, const char *method)
{
    if (!list->is_open)
    {
        ERR("%s: the command list is closed (Reset it before recording); the call is ignored.", method);
        return false;
    }
    /* NULL when the allocator was released while the list recorded: Close reports it. */
    return list->vk_command_buffer != VK_NULL_HANDLE;
}

/* Everything a list does not implement: logged once per method, Close returns E_NOTIMPL. */
#define LIST_UNSUPPORTED(list, method, why) \
    do { \
        if (list_is_recording(list, method)) \
        { \
            FIXME_ONCE("%s is not supported (%s): Close will return E_NOTIMPL.", method, why); \
            list_set_error(list, E_NOTIMPL); \
        } \
    } while (0)

#define WHY_GRAPHICS "the D3D12 shim implements the buffer-only compute subset"
#define WHY_DXIL "no DXIL shaders, root signatures or pipeline states"

#define WRITE_ACCESS (VK_ACCESS_2_SHADER_WRITE_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT \
        | VK_ACCESS_2_TRANSFER_WRITE_BIT | VK_ACCESS_2_HOST_WRITE_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT)
/* Unordered access covers compute shaders and ClearUnorderedAccessView*, which is a transfer fill. */
#define UAV_STAGES (VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT)
#define UAV_ACCESS (VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT \
        | VK_ACCESS_2_TRANSFER_READ_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT)

/* The stages and accesses a buffer in `state` may be used by. */
static void state_scope(D3D12_RESOURCE_STATES state, VkPipelineStageFlags2 *stages, VkAccessFlags2 *access)
{
    const D3D12_RESOURCE_STATES handled = D3D12_RESOURCE_STATE_UNORDERED_ACCESS | D3D12_RESOURCE_STATE_COPY_DEST
            | D3D12_RESOURCE_STATE_COPY_SOURCE | D3D12_RESOURCE_STATE_NON_PIXEL_SHADER_RESOURCE;
    const D3D12_RESOURCE_STATES writes = D3D12_RESOURCE_STATE_RENDER_TARGET | D3D12_RESOURCE_STATE_DEPTH_WRITE
            | D3D12_RESOURCE_STATE_STREAM_OUT | D3D12_RESOURCE_STATE_RESOLVE_DEST;

    *stages = 0;
    *access = 0;
    /* COMMON: anything, through implicit promotion. */
    if (state == D3D12_RESOURCE_STATE_COMMON)
    {
        *stages = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
        *access = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT;
        return;
    }
    if (state & D3D12_RESOURCE_STATE_UNORDERED_ACCESS)
    {
        *stages |= UAV_STAGES;
        *access |= UAV_ACCESS;
    }
    if (state & D3D12_RESOURCE_STATE_COPY_DEST)
    {
        *stages |= VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT;
        *access |= VK_ACCESS_2_TRANSFER_WRITE_BIT;
    }
    if (state & D3D12_RESOURCE_STATE_COPY_SOURCE)
    {
        *stages |= VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT;
        *access |= VK_ACCESS_2_TRANSFER_READ_BIT;
    }
    if (state & D3D12_RESOURCE_STATE_NON_PIXEL_SHADER_RESOURCE)
    {
        *stages |= VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
        *access |= VK_ACCESS_2_SHADER_READ_BIT;
    }
    /* The rest of GENERIC_READ (vertex, index, pixel-shader, indirect) and graphics states. */
    if (state & ~handled)
    {
        *stages |= VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
        *access |= VK_ACCESS_2_MEMORY_READ_BIT;
        if (state & writes)
            *access |= VK_ACCESS_2_MEMORY_WRITE_BIT;
    }
}

static void list_add_barrier(struct d3d12_command_list *list, VkPipelineStageFlags2 src_stages,
        VkAccessFlags2 src_access, VkPipelineStageFlags2 dst_stages, VkAccessFlags2 dst_access)
{
    list->pending.src_stages |= src_stages;
    /* Only writes need making available; reads in the first scope are an execution dependency. */
    list->pending.src_access |= src_access & WRITE_ACCESS;
    list->pending.dst_stages |= dst_stages;
    list->pending.dst_access |= dst_access;
}

static void list_add_full_barrier(struct d3d12_command_list *list)
{
    list_add_barrier(list, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_WRITE_BIT,
            VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT);
}

void d3d12_command_list_flush_barriers(struct d3d12_command_list *list)
{
    const struct vkdml_vk_device_procs *vk_procs = &list->device->vk->procs;
    VkMemoryBarrier2 barrier = {VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
    VkDependencyInfo dependency = {VK_STRUCTURE_TYPE_DEPENDENCY_INFO};

    if (!list->pending.src_stages && !list->pending.dst_stages)
        return;
    if (list->vk_command_buffer)
    {
        barrier.srcStageMask = list->pending.src_stages;
        barrier.srcAccessMask = list->pending.src_access;
        barrier.dstStageMask = list->pending.dst_stages;
        barrier.dstAccessMask = list->pending.dst_access;
        dependency.memoryBarrierCount = 1;
        dependency.pMemoryBarriers = &barrier;
        VK_CALL(vkCmdPipelineBarrier2(list->vk_command_buffer, &dependency));
    }
    memset(&list->pending, 0, sizeof(list->pending));
}

/* A buffer argument of a recording method; logs as `method`/`argument`. */
static struct d3d12_resource *list_buffer_arg(struct d3d12_command_list *list, ID3D12Resource *iface,
        const char *method, const char *argument)
{
    struct d3d12_resource *resource;

    if (!iface)
        ERR("%s: %s is NULL.", method, argument);
    else if (!(resource = unsafe_impl_from_ID3D12Resource(iface)))
        ERR("%s: %s %p is not a vkdml resource.", method, argument, iface);
    else if (resource->device != list->device)
        ERR("%s: %s %p belongs to another device.", method, argument, iface);
    else if (resource->desc.Dimension != D3D12_RESOURCE_DIMENSION_BUFFER || !resource->vk_buffer)
        ERR("%s: %s %p is not a buffer.", method, argument, iface);
    else
        return resource;
    return NULL;
}

/* [offset, offset + size) lies within [0, width). */
static bool range_inside(uint64_t offset, uint64_t size, uint64_t width)
{
    return offset <= width && size <= width - offset;
}

/* Where a resource's byte lies in memory, to catch copies between aliasing placed buffers. */
static const void *resource_memory(const struct d3d12_resource *resource, uint64_t *offset)
{
    if (resource->heap)
    {
        *offset += resource->heap_offset;
        return resource->heap;
    }
    /* Wrapped engine buffers: ranges of one VkBuffer may overlap. */
    if (resource->wrapped)
    {
        *offset += resource->vk_offset;
        return (const void *)(uintptr_t)resource->vk_buffer;
    }
    return resource;
}

static bool copy_ranges_overlap(const struct d3d12_resource *dst, uint64_t dst_offset,
        const struct d3d12_resource *src, uint64_t src_offset, uint64_t size)
{
    if (resource_memory(dst, &dst_offset) != resource_memory(src, &src_offset))
        return false;
    return dst_offset < src_offset + size && src_offset < dst_offset + size;
}

static void list_copy_buffer(struct d3d12_command_list *list, struct d3d12_resource *dst, uint64_t dst_offset,
        struct d3d12_resource *src, uint64_t src_offset, uint64_t size)
{
    const struct vkdml_vk_device_procs *vk_procs = &list->device->vk->procs;
    VkBufferCopy region;

    if (!size)
        return;
    region.srcOffset = src->vk_offset + src_offset;
    region.dstOffset = dst->vk_offset + dst_offset;
    region.size = size;
    d3d12_command_list_flush_barriers(list);
    VK_CALL(vkCmdCopyBuffer(list->vk_command_buffer, src->vk_buffer, dst->vk_buffer, 1, &region));
}

static void list_forget_submission(struct d3d12_command_list *list)
{
    struct d3d12_command_queue *queue;

    vkdml_mutex_lock(&list->device->vk->queue_mutex);
    queue = list->last_queue;
    list->last_queue = NULL;
    list->last_submission = 0;
    vkdml_mutex_unlock(&list->device->vk->queue_mutex);
    if (queue)
        d3d12_command_queue_internal_release(queue);
}

/* Takes a buffer from `allocator` and opens the list on it (CreateCommandList and Reset). */
static HRESULT list_begin(struct d3d12_command_list *list, struct d3d12_command_allocator *allocator,
        const char *method)
{
    const struct vkdml_vk_device_procs *vk_procs = &list->device->vk->procs;
    VkCommandBufferBeginInfo begin_info = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VkCommandBuffer buffer;
    HRESULT hr;
    VkResult vr;

    vkdml_mutex_lock(&allocator->mutex);
    if (allocator->recording)
    {
        ERR("%s: command list %p is already recording into pAllocator %p (Close it first).", method,
                &allocator->recording->ID3D12GraphicsCommandList_iface, &allocator->ID3D12CommandAllocator_iface);
        hr = E_INVALIDARG;
        goto done;
    }
    if (FAILED(hr = d3d12_command_allocator_take_buffer(allocator, &buffer)))
        goto done;
    /* Not ONE_TIME_SUBMIT: a closed list may be executed any number of times. */
    if ((vr = VK_CHECK(VK_CALL(vkBeginCommandBuffer(buffer, &begin_info)))) < 0)
    {
        hr = d3d12_device_check_vk_result(list->device, vr);
        goto done;
    }
    if (list->allocator != allocator)
    {
        list->allocator = allocator;
        list->allocator_next = allocator->lists;
        allocator->lists = list;
    }
    list->vk_command_buffer = buffer;
    allocator->recording = list;
    list->is_open = true;
    list->close_error = S_OK;
    list->descriptor_heap = NULL;
    memset(&list->pending, 0, sizeof(list->pending));
    /* D3D12 serialises ExecuteCommandLists boundaries: make earlier lists' writes visible. */
    list_add_full_barrier(list);
done:
    vkdml_mutex_unlock(&allocator->mutex);
    if (FAILED(hr))
        return hr;
    if (list->name)
        d3d12_device_set_vk_object_name(list->device, VK_OBJECT_TYPE_COMMAND_BUFFER,
                (uint64_t)(uintptr_t)list->vk_command_buffer, list->name);
    /* The in-flight rule is about one recording (one VkCommandBuffer): the new recording may be
     * executed while the previous one still runs (ORT resets and re-records lists at once). */
    list_forget_submission(list);
    return S_OK;
}

/* Leaves the allocator the list borrowed its buffer from (list Reset onto another one, Release). */
static void list_detach(struct d3d12_command_list *list)
{
    struct d3d12_command_allocator *allocator = list->allocator;
    struct d3d12_command_list **link;

    if (!allocator)
        return;
    vkdml_mutex_lock(&allocator->mutex);
    if (allocator->recording == list)
        allocator->recording = NULL;
    for (link = &allocator->lists; *link; link = &(*link)->allocator_next)
    {
        if (*link == list)
        {
            *link = list->allocator_next;
            break;
        }
    }
    list->allocator = NULL;
    list->allocator_next = NULL;
    list->vk_command_buffer = VK_NULL_HANDLE;
    vkdml_mutex_unlock(&allocator->mutex);
}

/* The allocator argument of CreateCommandList and Reset. */
static HRESULT check_list_allocator(struct d3d12_device *device, D3D12_COMMAND_LIST_TYPE type,
        ID3D12CommandAllocator *iface, ID3D12PipelineState *initial_state, const char *method,
        struct d3d12_command_allocator **out)
{
    struct d3d12_command_allocator *allocator;
    struct d3d12_command_list *recording;

    if (!(allocator = unsafe_impl_from_ID3D12CommandAllocator(iface)))
    {
        ERR("%s: pAllocator %p is not a vkdml command allocator.", method, iface);
        return E_INVALIDARG;
    }
    if (allocator->device != device)
    {
        ERR("%s: pAllocator %p belongs to another device.", method, iface);
        return E_INVALIDARG;
    }
    if (allocator->type != type)
    {
        ERR("%s: pAllocator %p is a %s allocator; the list is %s.", method, iface,
                d3d12_debug_list_type(allocator->type), d3d12_debug_list_type(type));
        return E_INVALIDARG;
    }
    if (initial_state)
    {
        FIXME("%s: pInitialState %p: pipeline states are not supported (" WHY_DXIL "); pass NULL.", method,
                initial_state);
        return E_NOTIMPL;
    }
    vkdml_mutex_lock(&allocator->mutex);
    recording = allocator->recording;
    vkdml_mutex_unlock(&allocator->mutex);
    if (recording)
    {
        ERR("%s: command list %p is already recording into pAllocator %p (Close it first).", method,
                &recording->ID3D12GraphicsCommandList_iface, iface);
        return E_INVALIDARG;
    }
    *out = allocator;
    return S_OK;
}

/* ---- ID3D12GraphicsCommandList: IUnknown, ID3D12Object, ID3D12DeviceChild, ID3D12CommandList ---- */

static HRESULT STDMETHODCALLTYPE d3d12_command_list_QueryInterface(ID3D12GraphicsCommandList *iface,
        REFIID riid, void **object)
{
    static const IID *const iids[] =
    {
        &IID_ID3D12GraphicsCommandList, &IID_ID3D12CommandList, &IID_ID3D12DeviceChild,
        &IID_ID3D12Object, &IID_IUnknown
    };

    TRACE("iface %p, riid %s, object %p.", iface, debugstr_guid(riid), object);
    return vkdml_query_interface((IUnknown *)iface, iids, ARRAY_SIZE(iids), riid, object);
}

static ULONG STDMETHODCALLTYPE d3d12_command_list_AddRef(ID3D12GraphicsCommandList *iface)
{
    struct d3d12_command_list *list = impl_from_ID3D12GraphicsCommandList(iface);
    ULONG refcount = vkdml_refcount_increment(&list->refcount);

    TRACE("%p increasing refcount to %u.", list, (unsigned int)refcount);
    return refcount;
}

static void list_clear_submit_checks(struct d3d12_command_list *list)
{
    size_t i;

    for (i = 0; i < list->submit_check_count; ++i)
        list->submit_checks[i].destroy(list->submit_checks[i].context);
    list->submit_check_count = 0;
}

HRESULT d3d12_command_list_add_submit_check(struct d3d12_command_list *list, const struct d3d12_submit_check *check)
{
    if (list->submit_check_count == list->submit_check_capacity)
    {
        size_t capacity = list->submit_check_capacity ? 2 * list->submit_check_capacity : 4;
        struct d3d12_submit_check *checks = realloc(list->submit_checks, capacity * sizeof(*checks));

        if (!checks)
        {
            ERR("RecordDispatch: out of memory for the list's submission checks; Close will fail.");
            check->destroy(check->context);
            list_set_error(list, E_OUTOFMEMORY);
            return E_OUTOFMEMORY;
        }
        list->submit_checks = checks;
        list->submit_check_capacity = capacity;
    }
    list->submit_checks[list->submit_check_count++] = *check;
    return S_OK;
}

bool d3d12_command_list_run_submit_checks(struct d3d12_command_list *list)
{
    size_t i;

    for (i = 0; i < list->submit_check_count; ++i)
    {
        if (!list->submit_checks[i].run(list->submit_checks[i].context))
            return false;
    }
    return true;
}

static void d3d12_command_list_destroy(struct d3d12_command_list *list)
{
    struct d3d12_device *device = list->device;

    list_clear_submit_checks(list);
    free(list->submit_checks);
    /* The VkCommandBuffer belongs to the allocator: only the borrow ends here. */
    list_detach(list);
    if (list->last_queue)
        d3d12_command_queue_internal_release(list->last_queue);
    vkdml_profiler_internal_release(list->profiler);
    free(list->name);
    vkdml_private_store_destroy(&list->private_store);
    free(list);
    d3d12_device_release(device);
}

static ULONG STDMETHODCALLTYPE d3d12_command_list_Release(ID3D12GraphicsCommandList *iface)
{
    struct d3d12_command_list *list = impl_from_ID3D12GraphicsCommandList(iface);
    ULONG refcount = vkdml_refcount_decrement(&list->refcount);

    TRACE("%p decreasing refcount to %u.", list, (unsigned int)refcount);
    if (!refcount)
        d3d12_command_list_destroy(list);
    return refcount;
}

VKDML_IMPLEMENT_PRIVATE_DATA(d3d12_command_list, ID3D12GraphicsCommandList, impl_from_ID3D12GraphicsCommandList,
        const IUnknown *)

static HRESULT STDMETHODCALLTYPE d3d12_command_list_SetName(ID3D12GraphicsCommandList *iface, const WCHAR *name)
{
    struct d3d12_command_list *list = impl_from_ID3D12GraphicsCommandList(iface);
    char *utf8 = NULL;
    HRESULT hr;

    TRACE("iface %p, name %p.", iface, name);
    if (name && !(utf8 = vkdml_utf8_from_wide(name)))
        return E_OUTOFMEMORY;
    if (FAILED(hr = d3d12_object_set_name(list->device, &list->private_store, VK_OBJECT_TYPE_COMMAND_BUFFER,
            (uint64_t)(uintptr_t)list->vk_command_buffer, name)))
    {
        free(utf8);
        return hr;
    }
    /* Kept for the VkCommandBuffer each Reset takes. */
    free(list->name);
    list->name = utf8;
    return S_OK;
}

D3D12_IMPLEMENT_GET_DEVICE(d3d12_command_list, ID3D12GraphicsCommandList, impl_from_ID3D12GraphicsCommandList)

static D3D12_COMMAND_LIST_TYPE STDMETHODCALLTYPE d3d12_command_list_GetType(ID3D12GraphicsCommandList *iface)
{
    struct d3d12_command_list *list = impl_from_ID3D12GraphicsCommandList(iface);

    TRACE("iface %p.", iface);
    return list->type;
}

/* ---- ID3D12GraphicsCommandList ---- */

static HRESULT STDMETHODCALLTYPE d3d12_command_list_Close(ID3D12GraphicsCommandList *iface)
{
    struct d3d12_command_list *list = impl_from_ID3D12GraphicsCommandList(iface);
    const struct vkdml_vk_device_procs *vk_procs = &list->device->vk->procs;
    struct d3d12_command_allocator *allocator = list->allocator;
    VkResult vr;

    TRACE("iface %p.", iface);

    if (!list->is_open)
    {
        ERR("Close: the command list is not open (Close called twice?).");
        return E_FAIL;
    }
    list->is_open = false;
    if (!list->vk_command_buffer)
    {
        /* Its allocator was released while it recorded (logged then). */
        list_set_error(list, E_FAIL);
        return list->close_error;
    }
    /* Readback: make the list's device writes visible to the host once its fence is reached. */
    list_add_barrier(list, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_WRITE_BIT,
            VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
    d3d12_command_list_flush_barriers(list);
    if ((vr = VK_CHECK(VK_CALL(vkEndCommandBuffer(list->vk_command_buffer)))) < 0)
        list_set_error(list, d3d12_device_check_vk_result(list->device, vr));

    vkdml_mutex_lock(&allocator->mutex);
    if (allocator->recording == list)
        allocator->recording = NULL;
    vkdml_mutex_unlock(&allocator->mutex);
    return list->close_error;
}

static HRESULT STDMETHODCALLTYPE d3d12_command_list_Reset(ID3D12GraphicsCommandList *iface,
        ID3D12CommandAllocator *allocator_iface, ID3D12PipelineState *initial_state)
{
    struct d3d12_command_list *list = impl_from_ID3D12GraphicsCommandList(iface);
    struct d3d12_command_allocator *allocator;
    HRESULT hr;

    TRACE("iface %p, allocator %p, initial_state %p.", iface, allocator_iface, initial_state);

    if (list->is_open)
    {
        ERR("Reset: the command list is still open (call Close first).");
        return E_FAIL;
    }
    if (FAILED(hr = check_list_allocator(list->device, list->type, allocator_iface, initial_state, "Reset",
            &allocator)))
        return hr;
    if (list->allocator != allocator)
        list_detach(list);
    list_clear_submit_checks(list);
    return list_begin(list, allocator, "Reset");
}

static void list_clear_state(struct d3d12_command_list *list, ID3D12PipelineState *pipeline_state)
{
    if (!list_is_recording(list, "ClearState"))
        return;
    if (list->type != D3D12_COMMAND_LIST_TYPE_DIRECT)
    {
        ERR("ClearState: only DIRECT command lists can be cleared; this one is %s.", d3d12_debug_list_type(list->type));
        list_set_error(list, E_FAIL);
        return;
    }
    if (pipeline_state)
    {
        LIST_UNSUPPORTED(list, "ClearState with a pipeline state", WHY_DXIL);
        return;
    }
    /* The only state this list keeps is the descriptor heap binding. */
    list->descriptor_heap = NULL;
}

/* mingw-w64's WIDL header declares ClearState as returning HRESULT. */
#if VKDML_D3D12_WIDL_HEADER
static HRESULT STDMETHODCALLTYPE d3d12_command_list_ClearState(ID3D12GraphicsCommandList *iface,
        ID3D12PipelineState *pipeline_state)
{
    TRACE("iface %p, pipeline_state %p.", iface, pipeline_state);
    list_clear_state(impl_from_ID3D12GraphicsCommandList(iface), pipeline_state);
    return S_OK;
}
#else
static void STDMETHODCALLTYPE d3d12_command_list_ClearState(ID3D12GraphicsCommandList *iface,
        ID3D12PipelineState *pipeline_state)
{
    TRACE("iface %p, pipeline_state %p.", iface, pipeline_state);
    list_clear_state(impl_from_ID3D12GraphicsCommandList(iface), pipeline_state);
}
#endif

static void STDMETHODCALLTYPE d3d12_command_list_DrawInstanced(ID3D12GraphicsCommandList *iface,
        UINT vertex_count, UINT instance_count, UINT start_vertex, UINT start_instance)
{
    TRACE("iface %p, vertex_count %u, instance_count %u, start_vertex %u, start_instance %u.", iface,
            vertex_count, instance_count, start_vertex, start_instance);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "DrawInstanced", WHY_GRAPHICS);
}

static void STDMETHODCALLTYPE d3d12_command_list_DrawIndexedInstanced(ID3D12GraphicsCommandList *iface,
        UINT index_count, UINT instance_count, UINT start_index, INT base_vertex, UINT start_instance)
{
    TRACE("iface %p, index_count %u, instance_count %u, start_index %u, base_vertex %d, start_instance %u.",
            iface, index_count, instance_count, start_index, base_vertex, start_instance);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "DrawIndexedInstanced", WHY_GRAPHICS);
}

static void STDMETHODCALLTYPE d3d12_command_list_Dispatch(ID3D12GraphicsCommandList *iface, UINT x, UINT y, UINT z)
{
    TRACE("iface %p, x %u, y %u, z %u.", iface, x, y, z);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "Dispatch", WHY_DXIL);
}

static void STDMETHODCALLTYPE d3d12_command_list_CopyBufferRegion(ID3D12GraphicsCommandList *iface,
        ID3D12Resource *dst_iface, UINT64 dst_offset, ID3D12Resource *src_iface, UINT64 src_offset, UINT64 size)
{
    struct d3d12_command_list *list = impl_from_ID3D12GraphicsCommandList(iface);
    struct d3d12_resource *dst, *src;

    TRACE("iface %p, dst %p, dst_offset %" PRIu64 ", src %p, src_offset %" PRIu64 ", size %" PRIu64 ".", iface,
            dst_iface, (uint64_t)dst_offset, src_iface, (uint64_t)src_offset, (uint64_t)size);

    if (!list_is_recording(list, "CopyBufferRegion"))
        return;
    if (!(dst = list_buffer_arg(list, dst_iface, "CopyBufferRegion", "pDstBuffer"))
            || !(src = list_buffer_arg(list, src_iface, "CopyBufferRegion", "pSrcBuffer")))
        goto invalid;
    if (!range_inside(dst_offset, size, dst->desc.Width))
    {
        ERR("CopyBufferRegion: DstOffset %" PRIu64 " + NumBytes %" PRIu64 " exceeds pDstBuffer's width %" PRIu64
                "; nothing recorded.", (uint64_t)dst_offset, (uint64_t)size, (uint64_t)dst->desc.Width);
        goto invalid;
    }
    if (!range_inside(src_offset, size, src->desc.Width))
    {
        ERR("CopyBufferRegion: SrcOffset %" PRIu64 " + NumBytes %" PRIu64 " exceeds pSrcBuffer's width %" PRIu64
                "; nothing recorded.", (uint64_t)src_offset, (uint64_t)size, (uint64_t)src->desc.Width);
        goto invalid;
    }
    if (size && copy_ranges_overlap(dst, dst_offset, src, src_offset, size))
    {
        ERR("CopyBufferRegion: the source and destination ranges overlap in memory; nothing recorded.");
        goto invalid;
    }
    list_copy_buffer(list, dst, dst_offset, src, src_offset, size);
    return;

invalid:
    list_set_error(list, E_INVALIDARG);
}

static void STDMETHODCALLTYPE d3d12_command_list_CopyTextureRegion(ID3D12GraphicsCommandList *iface,
        const D3D12_TEXTURE_COPY_LOCATION *dst, UINT dst_x, UINT dst_y, UINT dst_z,
        const D3D12_TEXTURE_COPY_LOCATION *src, const D3D12_BOX *src_box)
{
    TRACE("iface %p, dst %p, dst_x %u, dst_y %u, dst_z %u, src %p, src_box %p.", iface, dst, dst_x, dst_y, dst_z,
            src, src_box);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "CopyTextureRegion", WHY_GRAPHICS);
}

static void STDMETHODCALLTYPE d3d12_command_list_CopyResource(ID3D12GraphicsCommandList *iface,
        ID3D12Resource *dst_iface, ID3D12Resource *src_iface)
{
    struct d3d12_command_list *list = impl_from_ID3D12GraphicsCommandList(iface);
    struct d3d12_resource *dst, *src;

    TRACE("iface %p, dst %p, src %p.", iface, dst_iface, src_iface);

    if (!list_is_recording(list, "CopyResource"))
        return;
    if (!(dst = list_buffer_arg(list, dst_iface, "CopyResource", "pDstResource"))
            || !(src = list_buffer_arg(list, src_iface, "CopyResource", "pSrcResource")))
        goto invalid;
    if (dst == src)
    {
        ERR("CopyResource: pDstResource and pSrcResource are the same resource; nothing recorded.");
        goto invalid;
    }
    if (dst->desc.Width != src->desc.Width)
    {
        ERR("CopyResource: pDstResource's width %" PRIu64 " differs from pSrcResource's width %" PRIu64
                "; nothing recorded.", (uint64_t)dst->desc.Width, (uint64_t)src->desc.Width);
        goto invalid;
    }
    if (copy_ranges_overlap(dst, 0, src, 0, dst->desc.Width))
    {
        ERR("CopyResource: pDstResource and pSrcResource overlap in their heap; nothing recorded.");
        goto invalid;
    }
    list_copy_buffer(list, dst, 0, src, 0, dst->desc.Width);
    return;

invalid:
    list_set_error(list, E_INVALIDARG);
}

static void STDMETHODCALLTYPE d3d12_command_list_CopyTiles(ID3D12GraphicsCommandList *iface,
        ID3D12Resource *tiled_resource, const D3D12_TILED_RESOURCE_COORDINATE *region_start,
        const D3D12_TILE_REGION_SIZE *region_size, ID3D12Resource *buffer, UINT64 buffer_offset,
        D3D12_TILE_COPY_FLAGS flags)
{
    TRACE("iface %p, tiled_resource %p, region_start %p, region_size %p, buffer %p, buffer_offset %" PRIu64
            ", flags %#x.", iface, tiled_resource, region_start, region_size, buffer, (uint64_t)buffer_offset,
            (unsigned int)flags);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "CopyTiles", "tiled resources are not supported");
}

static void STDMETHODCALLTYPE d3d12_command_list_ResolveSubresource(ID3D12GraphicsCommandList *iface,
        ID3D12Resource *dst, UINT dst_subresource, ID3D12Resource *src, UINT src_subresource, DXGI_FORMAT format)
{
    TRACE("iface %p, dst %p, dst_subresource %u, src %p, src_subresource %u, format %#x.", iface, dst,
            dst_subresource, src, src_subresource, (unsigned int)format);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "ResolveSubresource", WHY_GRAPHICS);
}

static void STDMETHODCALLTYPE d3d12_command_list_IASetPrimitiveTopology(ID3D12GraphicsCommandList *iface,
        D3D12_PRIMITIVE_TOPOLOGY topology)
{
    TRACE("iface %p, topology %#x.", iface, (unsigned int)topology);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "IASetPrimitiveTopology", WHY_GRAPHICS);
}

static void STDMETHODCALLTYPE d3d12_command_list_RSSetViewports(ID3D12GraphicsCommandList *iface,
        UINT viewport_count, const D3D12_VIEWPORT *viewports)
{
    TRACE("iface %p, viewport_count %u, viewports %p.", iface, viewport_count, viewports);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "RSSetViewports", WHY_GRAPHICS);
}

static void STDMETHODCALLTYPE d3d12_command_list_RSSetScissorRects(ID3D12GraphicsCommandList *iface,
        UINT rect_count, const D3D12_RECT *rects)
{
    TRACE("iface %p, rect_count %u, rects %p.", iface, rect_count, rects);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "RSSetScissorRects", WHY_GRAPHICS);
}

static void STDMETHODCALLTYPE d3d12_command_list_OMSetBlendFactor(ID3D12GraphicsCommandList *iface,
        const FLOAT blend_factor[4])
{
    TRACE("iface %p, blend_factor %p.", iface, blend_factor);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "OMSetBlendFactor", WHY_GRAPHICS);
}

static void STDMETHODCALLTYPE d3d12_command_list_OMSetStencilRef(ID3D12GraphicsCommandList *iface,
        UINT stencil_ref)
{
    TRACE("iface %p, stencil_ref %u.", iface, stencil_ref);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "OMSetStencilRef", WHY_GRAPHICS);
}

static void STDMETHODCALLTYPE d3d12_command_list_SetPipelineState(ID3D12GraphicsCommandList *iface,
        ID3D12PipelineState *pipeline_state)
{
    TRACE("iface %p, pipeline_state %p.", iface, pipeline_state);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "SetPipelineState", WHY_DXIL);
}

/* One D3D12_RESOURCE_BARRIER into list->pending; false (logged) when it breaks a rule. */
static bool list_add_resource_barrier(struct d3d12_command_list *list, const D3D12_RESOURCE_BARRIER *barrier,
        UINT index)
{
    const D3D12_RESOURCE_BARRIER_FLAGS split = D3D12_RESOURCE_BARRIER_FLAG_BEGIN_ONLY
            | D3D12_RESOURCE_BARRIER_FLAG_END_ONLY;
    VkPipelineStageFlags2 src_stages, dst_stages;
    VkAccessFlags2 src_access, dst_access;
    const char *argument;

    if ((barrier->Flags & ~split) || (barrier->Flags & split) == split)
    {
        ERR("ResourceBarrier: pBarriers[%u].Flags %#x: use NONE, BEGIN_ONLY or END_ONLY.", index,
                (unsigned int)barrier->Flags);
        return false;
    }
    switch (barrier->Type)
    {
        case D3D12_RESOURCE_BARRIER_TYPE_TRANSITION:
            argument = vkdml_debug_sprintf("pBarriers[%u].Transition.pResource", index);
            if (!list_buffer_arg(list, barrier->Transition.pResource, "ResourceBarrier", argument))
                return false;
            if (barrier->Transition.Subresource != D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES
                    && barrier->Transition.Subresource)
            {
                ERR("ResourceBarrier: pBarriers[%u].Transition.Subresource %u: a buffer has only subresource 0.",
                        index, barrier->Transition.Subresource);
                return false;
            }
            /* Split barriers: the END_ONLY half is the barrier, the BEGIN_ONLY half does nothing. */
            if (barrier->Flags & D3D12_RESOURCE_BARRIER_FLAG_BEGIN_ONLY)
                return true;
            state_scope(barrier->Transition.StateBefore, &src_stages, &src_access);
            state_scope(barrier->Transition.StateAfter, &dst_stages, &dst_access);
            list_add_barrier(list, src_stages, src_access, dst_stages, dst_access);
            return true;

        case D3D12_RESOURCE_BARRIER_TYPE_ALIASING:
            if ((barrier->Aliasing.pResourceBefore && !list_buffer_arg(list, barrier->Aliasing.pResourceBefore,
                    "ResourceBarrier", vkdml_debug_sprintf("pBarriers[%u].Aliasing.pResourceBefore", index)))
                    || (barrier->Aliasing.pResourceAfter && !list_buffer_arg(list, barrier->Aliasing.pResourceAfter,
                    "ResourceBarrier", vkdml_debug_sprintf("pBarriers[%u].Aliasing.pResourceAfter", index))))
                return false;
            if (!(barrier->Flags & D3D12_RESOURCE_BARRIER_FLAG_BEGIN_ONLY))
                list_add_full_barrier(list);
            return true;

        case D3D12_RESOURCE_BARRIER_TYPE_UAV:
            /* pResource NULL: every UAV access (ORT records one after each dispatch). */
            if (barrier->UAV.pResource && !list_buffer_arg(list, barrier->UAV.pResource, "ResourceBarrier",
                    vkdml_debug_sprintf("pBarriers[%u].UAV.pResource", index)))
                return false;
            if (!(barrier->Flags & D3D12_RESOURCE_BARRIER_FLAG_BEGIN_ONLY))
                list_add_barrier(list, UAV_STAGES, UAV_ACCESS, UAV_STAGES, UAV_ACCESS);
            return true;

        default:
            ERR("ResourceBarrier: pBarriers[%u].Type %#x is not a D3D12_RESOURCE_BARRIER_TYPE.", index,
                    (unsigned int)barrier->Type);
            return false;
    }
}

static void STDMETHODCALLTYPE d3d12_command_list_ResourceBarrier(ID3D12GraphicsCommandList *iface,
        UINT barrier_count, const D3D12_RESOURCE_BARRIER *barriers)
{
    struct d3d12_command_list *list = impl_from_ID3D12GraphicsCommandList(iface);
    struct d3d12_pending_barrier saved;
    UINT i;

    TRACE("iface %p, barrier_count %u, barriers %p.", iface, barrier_count, barriers);

    if (!list_is_recording(list, "ResourceBarrier"))
        return;
    if (barrier_count && !barriers)
    {
        ERR("ResourceBarrier: pBarriers is NULL but NumBarriers is %u.", barrier_count);
        list_set_error(list, E_INVALIDARG);
        return;
    }
    /* All or nothing: a bad barrier drops the whole call. */
    saved = list->pending;
    for (i = 0; i < barrier_count; ++i)
    {
        if (!list_add_resource_barrier(list, &barriers[i], i))
        {
            list->pending = saved;
            list_set_error(list, E_INVALIDARG);
            return;
        }
    }
}

static void STDMETHODCALLTYPE d3d12_command_list_ExecuteBundle(ID3D12GraphicsCommandList *iface,
        ID3D12GraphicsCommandList *bundle)
{
    TRACE("iface %p, bundle %p.", iface, bundle);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "ExecuteBundle", "bundles are not supported");
}

static void STDMETHODCALLTYPE d3d12_command_list_SetDescriptorHeaps(ID3D12GraphicsCommandList *iface,
        UINT heap_count, ID3D12DescriptorHeap *const *heaps)
{
    struct d3d12_command_list *list = impl_from_ID3D12GraphicsCommandList(iface);
    struct d3d12_descriptor_heap *heap, *resource_heap = NULL;
    bool sampler_heap = false;
    UINT i;

    TRACE("iface %p, heap_count %u, heaps %p.", iface, heap_count, heaps);

    if (!list_is_recording(list, "SetDescriptorHeaps"))
        return;
    if (heap_count && !heaps)
    {
        ERR("SetDescriptorHeaps: ppDescriptorHeaps is NULL but NumDescriptorHeaps is %u.", heap_count);
        goto invalid;
    }
    for (i = 0; i < heap_count; ++i)
    {
        if (!(heap = unsafe_impl_from_ID3D12DescriptorHeap(heaps[i])))
        {
            ERR("SetDescriptorHeaps: ppDescriptorHeaps[%u] %p is not a vkdml descriptor heap.", i, heaps[i]);
            goto invalid;
        }
        if (heap->device != list->device)
        {
            ERR("SetDescriptorHeaps: ppDescriptorHeaps[%u] %p belongs to another device.", i, heaps[i]);
            goto invalid;
        }
        if (!(heap->desc.Flags & D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE))
        {
            ERR("SetDescriptorHeaps: ppDescriptorHeaps[%u] %p is not shader-visible.", i, heaps[i]);
            goto invalid;
        }
        if (heap->desc.Type == D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV && !resource_heap)
            resource_heap = heap;
        else if (heap->desc.Type == D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER && !sampler_heap)
            sampler_heap = true;
        else
        {
            ERR("SetDescriptorHeaps: ppDescriptorHeaps[%u] %p: at most one CBV_SRV_UAV and one SAMPLER heap "
                    "can be bound.", i, heaps[i]);
            goto invalid;
        }
    }
    /* Heaps not passed are unbound, as in D3D12. The list holds no reference. */
    list->descriptor_heap = resource_heap;
    return;

invalid:
    list_set_error(list, E_INVALIDARG);
}

static void STDMETHODCALLTYPE d3d12_command_list_SetComputeRootSignature(ID3D12GraphicsCommandList *iface,
        ID3D12RootSignature *root_signature)
{
    TRACE("iface %p, root_signature %p.", iface, root_signature);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "SetComputeRootSignature", WHY_DXIL);
}

static void STDMETHODCALLTYPE d3d12_command_list_SetGraphicsRootSignature(ID3D12GraphicsCommandList *iface,
        ID3D12RootSignature *root_signature)
{
    TRACE("iface %p, root_signature %p.", iface, root_signature);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "SetGraphicsRootSignature", WHY_GRAPHICS);
}

static void STDMETHODCALLTYPE d3d12_command_list_SetComputeRootDescriptorTable(ID3D12GraphicsCommandList *iface,
        UINT index, D3D12_GPU_DESCRIPTOR_HANDLE base_descriptor)
{
    TRACE("iface %p, index %u, base_descriptor %#" PRIx64 ".", iface, index, (uint64_t)base_descriptor.ptr);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "SetComputeRootDescriptorTable", WHY_DXIL);
}

static void STDMETHODCALLTYPE d3d12_command_list_SetGraphicsRootDescriptorTable(ID3D12GraphicsCommandList *iface,
        UINT index, D3D12_GPU_DESCRIPTOR_HANDLE base_descriptor)
{
    TRACE("iface %p, index %u, base_descriptor %#" PRIx64 ".", iface, index, (uint64_t)base_descriptor.ptr);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "SetGraphicsRootDescriptorTable", WHY_GRAPHICS);
}

static void STDMETHODCALLTYPE d3d12_command_list_SetComputeRoot32BitConstant(ID3D12GraphicsCommandList *iface,
        UINT index, UINT data, UINT dst_offset)
{
    TRACE("iface %p, index %u, data %#x, dst_offset %u.", iface, index, data, dst_offset);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "SetComputeRoot32BitConstant", WHY_DXIL);
}

static void STDMETHODCALLTYPE d3d12_command_list_SetGraphicsRoot32BitConstant(ID3D12GraphicsCommandList *iface,
        UINT index, UINT data, UINT dst_offset)
{
    TRACE("iface %p, index %u, data %#x, dst_offset %u.", iface, index, data, dst_offset);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "SetGraphicsRoot32BitConstant", WHY_GRAPHICS);
}

static void STDMETHODCALLTYPE d3d12_command_list_SetComputeRoot32BitConstants(ID3D12GraphicsCommandList *iface,
        UINT index, UINT count, const void *data, UINT dst_offset)
{
    TRACE("iface %p, index %u, count %u, data %p, dst_offset %u.", iface, index, count, data, dst_offset);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "SetComputeRoot32BitConstants", WHY_DXIL);
}

static void STDMETHODCALLTYPE d3d12_command_list_SetGraphicsRoot32BitConstants(ID3D12GraphicsCommandList *iface,
        UINT index, UINT count, const void *data, UINT dst_offset)
{
    TRACE("iface %p, index %u, count %u, data %p, dst_offset %u.", iface, index, count, data, dst_offset);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "SetGraphicsRoot32BitConstants", WHY_GRAPHICS);
}

static void STDMETHODCALLTYPE d3d12_command_list_SetComputeRootConstantBufferView(ID3D12GraphicsCommandList *iface,
        UINT index, D3D12_GPU_VIRTUAL_ADDRESS address)
{
    TRACE("iface %p, index %u, address %#" PRIx64 ".", iface, index, (uint64_t)address);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "SetComputeRootConstantBufferView", WHY_DXIL);
}

static void STDMETHODCALLTYPE d3d12_command_list_SetGraphicsRootConstantBufferView(ID3D12GraphicsCommandList *iface,
        UINT index, D3D12_GPU_VIRTUAL_ADDRESS address)
{
    TRACE("iface %p, index %u, address %#" PRIx64 ".", iface, index, (uint64_t)address);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "SetGraphicsRootConstantBufferView", WHY_GRAPHICS);
}

static void STDMETHODCALLTYPE d3d12_command_list_SetComputeRootShaderResourceView(ID3D12GraphicsCommandList *iface,
        UINT index, D3D12_GPU_VIRTUAL_ADDRESS address)
{
    TRACE("iface %p, index %u, address %#" PRIx64 ".", iface, index, (uint64_t)address);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "SetComputeRootShaderResourceView", WHY_DXIL);
}

static void STDMETHODCALLTYPE d3d12_command_list_SetGraphicsRootShaderResourceView(ID3D12GraphicsCommandList *iface,
        UINT index, D3D12_GPU_VIRTUAL_ADDRESS address)
{
    TRACE("iface %p, index %u, address %#" PRIx64 ".", iface, index, (uint64_t)address);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "SetGraphicsRootShaderResourceView", WHY_GRAPHICS);
}

static void STDMETHODCALLTYPE d3d12_command_list_SetComputeRootUnorderedAccessView(ID3D12GraphicsCommandList *iface,
        UINT index, D3D12_GPU_VIRTUAL_ADDRESS address)
{
    TRACE("iface %p, index %u, address %#" PRIx64 ".", iface, index, (uint64_t)address);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "SetComputeRootUnorderedAccessView", WHY_DXIL);
}

static void STDMETHODCALLTYPE d3d12_command_list_SetGraphicsRootUnorderedAccessView(ID3D12GraphicsCommandList *iface,
        UINT index, D3D12_GPU_VIRTUAL_ADDRESS address)
{
    TRACE("iface %p, index %u, address %#" PRIx64 ".", iface, index, (uint64_t)address);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "SetGraphicsRootUnorderedAccessView", WHY_GRAPHICS);
}

static void STDMETHODCALLTYPE d3d12_command_list_IASetIndexBuffer(ID3D12GraphicsCommandList *iface,
        const D3D12_INDEX_BUFFER_VIEW *view)
{
    TRACE("iface %p, view %p.", iface, view);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "IASetIndexBuffer", WHY_GRAPHICS);
}

static void STDMETHODCALLTYPE d3d12_command_list_IASetVertexBuffers(ID3D12GraphicsCommandList *iface,
        UINT start_slot, UINT view_count, const D3D12_VERTEX_BUFFER_VIEW *views)
{
    TRACE("iface %p, start_slot %u, view_count %u, views %p.", iface, start_slot, view_count, views);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "IASetVertexBuffers", WHY_GRAPHICS);
}

static void STDMETHODCALLTYPE d3d12_command_list_SOSetTargets(ID3D12GraphicsCommandList *iface,
        UINT start_slot, UINT view_count, const D3D12_STREAM_OUTPUT_BUFFER_VIEW *views)
{
    TRACE("iface %p, start_slot %u, view_count %u, views %p.", iface, start_slot, view_count, views);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "SOSetTargets", WHY_GRAPHICS);
}

static void STDMETHODCALLTYPE d3d12_command_list_OMSetRenderTargets(ID3D12GraphicsCommandList *iface,
        UINT render_target_count, const D3D12_CPU_DESCRIPTOR_HANDLE *render_targets, BOOL single_handle,
        const D3D12_CPU_DESCRIPTOR_HANDLE *depth_stencil)
{
    TRACE("iface %p, render_target_count %u, render_targets %p, single_handle %d, depth_stencil %p.", iface,
            render_target_count, render_targets, single_handle, depth_stencil);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "OMSetRenderTargets", WHY_GRAPHICS);
}

static void STDMETHODCALLTYPE d3d12_command_list_ClearDepthStencilView(ID3D12GraphicsCommandList *iface,
        D3D12_CPU_DESCRIPTOR_HANDLE dsv, D3D12_CLEAR_FLAGS flags, FLOAT depth, UINT8 stencil, UINT rect_count,
        const D3D12_RECT *rects)
{
    TRACE("iface %p, dsv %#" PRIx64 ", flags %#x, depth %.8e, stencil %u, rect_count %u, rects %p.", iface,
            (uint64_t)dsv.ptr, (unsigned int)flags, depth, stencil, rect_count, rects);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "ClearDepthStencilView", WHY_GRAPHICS);
}

static void STDMETHODCALLTYPE d3d12_command_list_ClearRenderTargetView(ID3D12GraphicsCommandList *iface,
        D3D12_CPU_DESCRIPTOR_HANDLE rtv, const FLOAT color[4], UINT rect_count, const D3D12_RECT *rects)
{
    TRACE("iface %p, rtv %#" PRIx64 ", color %p, rect_count %u, rects %p.", iface, (uint64_t)rtv.ptr, color, rect_count,
            rects);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "ClearRenderTargetView", WHY_GRAPHICS);
}

/* ClearUnorderedAccessView{Uint,Float} on a buffer view: vkCmdFillBuffer of `value` over the view's
 * bytes. Raw and 32-bit-element views use Values[0] only; wider elements need all four values to
 * be the same 32-bit pattern (`uniform`), since the record does not say how components are laid out. */
static void list_clear_uav(struct d3d12_command_list *list, D3D12_GPU_DESCRIPTOR_HANDLE gpu_handle,
        D3D12_CPU_DESCRIPTOR_HANDLE cpu_handle, ID3D12Resource *resource_iface, uint32_t value, bool uniform,
        UINT rect_count, const D3D12_RECT *rects, const char *method)
{
    const struct vkdml_vk_device_procs *vk_procs = &list->device->vk->procs;
    const struct vkdml_descriptor *record;
    struct d3d12_descriptor_heap *heap;
    struct d3d12_resource *resource;
    uint64_t offset;

    if (!(resource = list_buffer_arg(list, resource_iface, method, "pResource")))
        goto invalid;
    if (rect_count || rects)
    {
        ERR("%s: NumRects %u, pRects %p: buffer views are cleared whole (NumRects must be 0).", method,
                rect_count, rects);
        goto invalid;
    }
    /* Both helpers log the broken rule themselves. */
    if (!(record = d3d12_device_descriptor_from_cpu_handle(list->device, cpu_handle, 1, method))
            || !(heap = d3d12_device_heap_from_gpu_handle(list->device, gpu_handle, 1, method)))
        goto invalid;
    if (heap != list->descriptor_heap)
        WARN("%s: ViewGPUHandleInCurrentHeap %#" PRIx64 " is not in the heap set by SetDescriptorHeaps.", method,
                (uint64_t)gpu_handle.ptr);
    if (record->kind != VKDML_DESCRIPTOR_KIND_UAV_BUFFER)
    {
        ERR("%s: ViewCPUHandle %#" PRIx64 " does not hold a buffer unordered-access view.", method,
                (uint64_t)cpu_handle.ptr);
        goto invalid;
    }
    if (record->address < resource->gpu_address
            || !range_inside(record->address - resource->gpu_address, record->size, resource->desc.Width))
    {
        ERR("%s: the view at ViewCPUHandle %#" PRIx64 " is not a view of pResource %p.", method,
                (uint64_t)cpu_handle.ptr, resource_iface);
        goto invalid;
    }
    offset = record->address - resource->gpu_address;
    if (offset % 4 || record->size % 4)
    {
        ERR("%s: the view's offset %" PRIu64 " and size %" PRIu64 " must be multiples of 4 bytes.", method,
                offset, (uint64_t)record->size);
        goto invalid;
    }
    /* A fill writes one 32-bit pattern: exact for raw and 32-bit-element views. */
    if (record->stride > 4 && !uniform)
    {
        FIXME("%s: clearing a view of %u-byte elements to different per-component values is not supported; "
                "Close will return E_NOTIMPL.", method, record->stride);
        list_set_error(list, E_NOTIMPL);
        return;
    }
    if (!record->size)
        return;
    d3d12_command_list_flush_barriers(list);
    VK_CALL(vkCmdFillBuffer(list->vk_command_buffer, resource->vk_buffer, resource->vk_offset + offset,
            record->size, value));
    return;

invalid:
    list_set_error(list, E_INVALIDARG);
}

static void STDMETHODCALLTYPE d3d12_command_list_ClearUnorderedAccessViewUint(ID3D12GraphicsCommandList *iface,
        D3D12_GPU_DESCRIPTOR_HANDLE gpu_handle, D3D12_CPU_DESCRIPTOR_HANDLE cpu_handle, ID3D12Resource *resource,
        const UINT values[4], UINT rect_count, const D3D12_RECT *rects)
{
    struct d3d12_command_list *list = impl_from_ID3D12GraphicsCommandList(iface);
    bool uniform;

    TRACE("iface %p, gpu_handle %#" PRIx64 ", cpu_handle %#" PRIx64 ", resource %p, values %p, rect_count %u, "
            "rects %p.", iface, (uint64_t)gpu_handle.ptr, (uint64_t)cpu_handle.ptr, resource, values, rect_count,
            rects);

    if (!list_is_recording(list, "ClearUnorderedAccessViewUint"))
        return;
    if (!values)
    {
        ERR("ClearUnorderedAccessViewUint: Values is NULL.");
        list_set_error(list, E_INVALIDARG);
        return;
    }
    uniform = values[0] == values[1] && values[0] == values[2] && values[0] == values[3];
    list_clear_uav(list, gpu_handle, cpu_handle, resource, values[0], uniform, rect_count, rects,
            "ClearUnorderedAccessViewUint");
}

static void STDMETHODCALLTYPE d3d12_command_list_ClearUnorderedAccessViewFloat(ID3D12GraphicsCommandList *iface,
        D3D12_GPU_DESCRIPTOR_HANDLE gpu_handle, D3D12_CPU_DESCRIPTOR_HANDLE cpu_handle, ID3D12Resource *resource,
        const float values[4], UINT rect_count, const D3D12_RECT *rects)
{
    struct d3d12_command_list *list = impl_from_ID3D12GraphicsCommandList(iface);
    uint32_t bits[4];
    bool uniform;

    TRACE("iface %p, gpu_handle %#" PRIx64 ", cpu_handle %#" PRIx64 ", resource %p, values %p, rect_count %u, "
            "rects %p.", iface, (uint64_t)gpu_handle.ptr, (uint64_t)cpu_handle.ptr, resource, values, rect_count,
            rects);

    if (!list_is_recording(list, "ClearUnorderedAccessViewFloat"))
        return;
    if (!values)
    {
        ERR("ClearUnorderedAccessViewFloat: Values is NULL.");
        list_set_error(list, E_INVALIDARG);
        return;
    }
    /* The view's format is not recorded, so the float is written as its bit pattern: exact for
     * raw and 32-bit float views, which only use Values[0] (list_clear_uav checks the rest). */
    memcpy(bits, values, sizeof(bits));
    uniform = bits[0] == bits[1] && bits[0] == bits[2] && bits[0] == bits[3];
    list_clear_uav(list, gpu_handle, cpu_handle, resource, bits[0], uniform, rect_count, rects,
            "ClearUnorderedAccessViewFloat");
}

static void STDMETHODCALLTYPE d3d12_command_list_DiscardResource(ID3D12GraphicsCommandList *iface,
        ID3D12Resource *resource_iface, const D3D12_DISCARD_REGION *region)
{
    struct d3d12_command_list *list = impl_from_ID3D12GraphicsCommandList(iface);

    TRACE("iface %p, resource %p, region %p.", iface, resource_iface, region);

    if (!list_is_recording(list, "DiscardResource"))
        return;
    /* Discarding only makes the contents undefined: leaving them is a valid implementation. */
    if (!list_buffer_arg(list, resource_iface, "DiscardResource", "pResource"))
        list_set_error(list, E_INVALIDARG);
}

static void STDMETHODCALLTYPE d3d12_command_list_BeginQuery(ID3D12GraphicsCommandList *iface,
        ID3D12QueryHeap *heap, D3D12_QUERY_TYPE type, UINT index)
{
    TRACE("iface %p, heap %p, type %#x, index %u.", iface, heap, (unsigned int)type, index);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "BeginQuery", "queries are not supported");
}

static void STDMETHODCALLTYPE d3d12_command_list_EndQuery(ID3D12GraphicsCommandList *iface,
        ID3D12QueryHeap *heap, D3D12_QUERY_TYPE type, UINT index)
{
    TRACE("iface %p, heap %p, type %#x, index %u.", iface, heap, (unsigned int)type, index);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "EndQuery", "queries are not supported");
}

static void STDMETHODCALLTYPE d3d12_command_list_ResolveQueryData(ID3D12GraphicsCommandList *iface,
        ID3D12QueryHeap *heap, D3D12_QUERY_TYPE type, UINT start_index, UINT query_count,
        ID3D12Resource *dst_buffer, UINT64 aligned_dst_buffer_offset)
{
    TRACE("iface %p, heap %p, type %#x, start_index %u, query_count %u, dst_buffer %p, offset %" PRIu64 ".",
            iface, heap, (unsigned int)type, start_index, query_count, dst_buffer,
            (uint64_t)aligned_dst_buffer_offset);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "ResolveQueryData", "queries are not supported");
}

static void STDMETHODCALLTYPE d3d12_command_list_SetPredication(ID3D12GraphicsCommandList *iface,
        ID3D12Resource *buffer, UINT64 aligned_buffer_offset, D3D12_PREDICATION_OP operation)
{
    struct d3d12_command_list *list = impl_from_ID3D12GraphicsCommandList(iface);

    TRACE("iface %p, buffer %p, offset %" PRIu64 ", operation %#x.", iface, buffer, (uint64_t)aligned_buffer_offset,
            (unsigned int)operation);

    /* A NULL buffer turns predication off, which it always is. */
    if (buffer)
        LIST_UNSUPPORTED(list, "SetPredication", "predication is not supported");
    else
        list_is_recording(list, "SetPredication");
}

static void STDMETHODCALLTYPE d3d12_command_list_SetMarker(ID3D12GraphicsCommandList *iface, UINT metadata,
        const void *data, UINT size)
{
    TRACE("iface %p, metadata %#x, data %p, size %u: ignored.", iface, metadata, data, size);
}

static void STDMETHODCALLTYPE d3d12_command_list_BeginEvent(ID3D12GraphicsCommandList *iface, UINT metadata,
        const void *data, UINT size)
{
    TRACE("iface %p, metadata %#x, data %p, size %u: ignored.", iface, metadata, data, size);
}

static void STDMETHODCALLTYPE d3d12_command_list_EndEvent(ID3D12GraphicsCommandList *iface)
{
    TRACE("iface %p: ignored.", iface);
}

static void STDMETHODCALLTYPE d3d12_command_list_ExecuteIndirect(ID3D12GraphicsCommandList *iface,
        ID3D12CommandSignature *command_signature, UINT max_command_count, ID3D12Resource *arg_buffer,
        UINT64 arg_buffer_offset, ID3D12Resource *count_buffer, UINT64 count_buffer_offset)
{
    TRACE("iface %p, command_signature %p, max_command_count %u, arg_buffer %p, arg_buffer_offset %" PRIu64
            ", count_buffer %p, count_buffer_offset %" PRIu64 ".", iface, command_signature, max_command_count,
            arg_buffer, (uint64_t)arg_buffer_offset, count_buffer, (uint64_t)count_buffer_offset);
    LIST_UNSUPPORTED(impl_from_ID3D12GraphicsCommandList(iface), "ExecuteIndirect", WHY_DXIL);
}

static const struct ID3D12GraphicsCommandListVtbl d3d12_command_list_vtbl =
{
    /* IUnknown */
    d3d12_command_list_QueryInterface,
    d3d12_command_list_AddRef,
    d3d12_command_list_Release,
    /* ID3D12Object */
    d3d12_command_list_GetPrivateData,
    d3d12_command_list_SetPrivateData,
    d3d12_command_list_SetPrivateDataInterface,
    d3d12_command_list_SetName,
    /* ID3D12DeviceChild */
    d3d12_command_list_GetDevice,
    /* ID3D12CommandList */
    d3d12_command_list_GetType,
    /* ID3D12GraphicsCommandList */
    d3d12_command_list_Close,
    d3d12_command_list_Reset,
    d3d12_command_list_ClearState,
    d3d12_command_list_DrawInstanced,
    d3d12_command_list_DrawIndexedInstanced,
    d3d12_command_list_Dispatch,
    d3d12_command_list_CopyBufferRegion,
    d3d12_command_list_CopyTextureRegion,
    d3d12_command_list_CopyResource,
    d3d12_command_list_CopyTiles,
    d3d12_command_list_ResolveSubresource,
    d3d12_command_list_IASetPrimitiveTopology,
    d3d12_command_list_RSSetViewports,
    d3d12_command_list_RSSetScissorRects,
    d3d12_command_list_OMSetBlendFactor,
    d3d12_command_list_OMSetStencilRef,
    d3d12_command_list_SetPipelineState,
    d3d12_command_list_ResourceBarrier,
    d3d12_command_list_ExecuteBundle,
    d3d12_command_list_SetDescriptorHeaps,
    d3d12_command_list_SetComputeRootSignature,
    d3d12_command_list_SetGraphicsRootSignature,
    d3d12_command_list_SetComputeRootDescriptorTable,
    d3d12_command_list_SetGraphicsRootDescriptorTable,
    d3d12_command_list_SetComputeRoot32BitConstant,
    d3d12_command_list_SetGraphicsRoot32BitConstant,
    d3d12_command_list_SetComputeRoot32BitConstants,
    d3d12_command_list_SetGraphicsRoot32BitConstants,
    d3d12_command_list_SetComputeRootConstantBufferView,
    d3d12_command_list_SetGraphicsRootConstantBufferView,
    d3d12_command_list_SetComputeRootShaderResourceView,
    d3d12_command_list_SetGraphicsRootShaderResourceView,
    d3d12_command_list_SetComputeRootUnorderedAccessView,
    d3d12_command_list_SetGraphicsRootUnorderedAccessView,
    d3d12_command_list_IASetIndexBuffer,
    d3d12_command_list_IASetVertexBuffers,
    d3d12_command_list_SOSetTargets,
    d3d12_command_list_OMSetRenderTargets,
    d3d12_command_list_ClearDepthStencilView,
    d3d12_command_list_ClearRenderTargetView,
    d3d12_command_list_ClearUnorderedAccessViewUint,
    d3d12_command_list_ClearUnorderedAccessViewFloat,
    d3d12_command_list_DiscardResource,
    d3d12_command_list_BeginQuery,
    d3d12_command_list_EndQuery,
    d3d12_command_list_ResolveQueryData,
    d3d12_command_list_SetPredication,
    d3d12_command_list_SetMarker,
    d3d12_command_list_BeginEvent,
    d3d12_command_list_EndEvent,
    d3d12_command_list_ExecuteIndirect,
};

struct d3d12_command_list *unsafe_impl_from_ID3D12CommandList(ID3D12CommandList *iface)
{
    if (!iface || iface->lpVtbl != (const void *)&d3d12_command_list_vtbl)
        return NULL;
    return impl_from_ID3D12GraphicsCommandList((ID3D12GraphicsCommandList *)iface);
}

HRESULT d3d12_command_list_create(struct d3d12_device *device, UINT node_mask, D3D12_COMMAND_LIST_TYPE type,
        ID3D12CommandAllocator *allocator_iface, ID3D12PipelineState *initial_state, struct d3d12_command_list **out)
{
    struct d3d12_command_allocator *allocator;
    struct d3d12_command_list *list;
    HRESULT hr;

    *out = NULL;
    if (node_mask > 1)
    {
        ERR("CreateCommandList: nodeMask %#x: the device has a single node (use 0 or 1).", node_mask);
        return E_INVALIDARG;
    }
    if (FAILED(hr = d3d12_check_list_type(type, "CreateCommandList")))
        return hr;
    if (FAILED(hr = check_list_allocator(device, type, allocator_iface, initial_state, "CreateCommandList",
            &allocator)))
        return hr;

    if (!(list = calloc(1, sizeof(*list))))
        return E_OUTOFMEMORY;
    list->ID3D12GraphicsCommandList_iface.lpVtbl = &d3d12_command_list_vtbl;
    atomic_init(&list->refcount, 1);
    list->device = device;
    list->type = type;
    /* D3D12 creates lists open. */
    if (FAILED(hr = list_begin(list, allocator, "CreateCommandList")))
    {
        free(list);
        return hr;
    }
    vkdml_private_store_init(&list->private_store);
    d3d12_device_add_ref(device);

    TRACE("Created %s command list %p.", d3d12_debug_list_type(type), list);
    *out = list;
    return S_OK;
}
