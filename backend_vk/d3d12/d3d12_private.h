/*
 * The D3D12 shim: the buffer-only compute subset of Direct3D 12 that DirectML applications use,
 * implemented on the Vulkan backend, with the real interface declarations of DirectX-Headers.
 * Every object and cross-file prototype of the shim is here (vkd3d style).
 *
 * Files: device.c (ID3D12Device, creation entry points, CheckFeatureSupport), resource.c
 * (ID3D12Resource, ID3D12Heap), descriptor.c (ID3D12DescriptorHeap, views, CopyDescriptors),
 * command.c (ID3D12CommandQueue, ID3D12CommandAllocator, ID3D12GraphicsCommandList),
 * fence.c (ID3D12Fence on a timeline semaphore, the event waiter).
 */
#ifndef VKDML_D3D12_PRIVATE_H
#define VKDML_D3D12_PRIVATE_H

#include <stdatomic.h>

/* vkdml_com.h defines CONST_VTABLE before the first Windows header: the shim's vtables are static
 * const, so lpVtbl is const-qualified (same layout and ABI). */
#include "vkdml_com.h"
#ifdef _WIN32
# include <d3d12.h>
#else
# include <directx/d3d12.h>
#endif

#include "vk_private.h"
#include "descriptor_interface.h"

/* The implementation functions of struct-returning methods follow DirectX-Headers' C view:
 * an explicit RetVal pointer on _WIN32, a by-value return elsewhere (docs/design.md, ABI). */
#ifdef _WIN32
# define VKDML_RETVAL_WIN32 1
#else
# define VKDML_RETVAL_WIN32 0
#endif

HRESULT hresult_from_vk_result(VkResult vr);


/* ---- Device (device.c) ---- */

struct d3d12_device
{
    ID3D12Device ID3D12Device_iface;
    atomic_uint refcount;

    struct vkdml_vk_instance *vk_instance;  /* owned */
    struct vkdml_vk_device *vk;             /* owned; vk->procs is the function table */
    struct vkdml_private_store private_store;
    LUID adapter_luid;

    /* Set once when the Vulkan device is lost; every later call reports it. */
    atomic_int removed_reason;              /* HRESULT; S_OK while usable */

    /* Live descriptor heaps, to validate CPU/GPU descriptor handles the application passes in. */
    struct vkdml_mutex heaps_mutex;
    struct d3d12_descriptor_heap *heaps;

    /* Fence event waiter thread (fence.c); started on first use. */
    struct d3d12_fence_waiter *waiter;

    /* Queues holding operations back on the CPU behind an unsatisfied Wait (command.c), linked
     * through blocked_next; guarded by vk->queue_mutex. */
    struct d3d12_command_queue *blocked_queues;

    /* Memory limits and architecture (UMA), read once at creation. */
    struct vkdml_vk_memory_info memory_info;
    /* GPU clears zeroing new device-local committed resources and heaps (resource.c). */
    struct vkdml_vk_clears clears;
};

/* Creates a shim device on adapter `index` of a fresh instance (-1: the default adapter, VKDML_DEVICE). */
HRESULT d3d12_device_create(int adapter_index, struct d3d12_device **device);
/* Creates a shim device on an engine's imported instance and device (embed.c); takes ownership of both
 * structs (not of the Vulkan objects they name), also on failure. */
HRESULT d3d12_device_create_from_vk(struct vkdml_vk_instance *instance, struct vkdml_vk_device *vk,
        struct d3d12_device **device);
struct d3d12_device *unsafe_impl_from_ID3D12Device(ID3D12Device *iface);
static inline void d3d12_device_add_ref(struct d3d12_device *device) { ID3D12Device_AddRef(&device->ID3D12Device_iface); }
static inline void d3d12_device_release(struct d3d12_device *device) { ID3D12Device_Release(&device->ID3D12Device_iface); }
/* Records VK_ERROR_DEVICE_LOST (and only that) as DXGI_ERROR_DEVICE_REMOVED; returns the HRESULT for vr. */
HRESULT d3d12_device_check_vk_result(struct d3d12_device *device, VkResult vr);
/* SetName support: names the Vulkan object when VK_EXT_debug_utils is on. */
void d3d12_device_set_vk_object_name(struct d3d12_device *device, VkObjectType type, uint64_t handle, const char *name);
/* The whole of ID3D12Object::SetName: keeps the name as WKPDID_D3DDebugObjectNameW private data, as
 * D3D12 does, and names the Vulkan object (VK_NULL_HANDLE: none). */
HRESULT d3d12_object_set_name(struct d3d12_device *device, struct vkdml_private_store *store,
        VkObjectType type, uint64_t handle, const WCHAR *name);

/* ID3D12DeviceChild::GetDevice, the same for every device child: `prefix` names the function
 * (prefix_GetDevice), `impl_from` maps `iface_type *` to the object, whose `device` member is the
 * parent struct d3d12_device. Private data: VKDML_IMPLEMENT_PRIVATE_DATA (vkdml_com.h). */
#define D3D12_IMPLEMENT_GET_DEVICE(prefix, iface_type, impl_from) \
    static HRESULT STDMETHODCALLTYPE prefix##_GetDevice(iface_type *iface, REFIID riid, void **device) \
    { \
        TRACE("iface %p, riid %s, device %p.", (void *)iface, debugstr_guid(riid), (void *)device); \
        if (!device) \
        { \
            ERR("GetDevice: ppvDevice is NULL."); \
            return E_POINTER; \
        } \
        return ID3D12Device_QueryInterface(&impl_from(iface)->device->ID3D12Device_iface, riid, device); \
    }

/* ---- Heaps and resources (resource.c) ---- */

struct d3d12_heap
{
    ID3D12Heap ID3D12Heap_iface;
    atomic_uint refcount;
    /* 1 while refcount > 0, plus one per placed resource: a heap outlives its public references for
     * as long as resources placed in it live (D3D12 semantics), without showing in refcount. */
    atomic_uint internal_refcount;
    struct d3d12_device *device;            /* holds a reference */
    struct vkdml_private_store private_store;
    D3D12_HEAP_DESC desc;                   /* Properties normalised: CUSTOM page properties resolved */
    VkDeviceMemory memory;
    void *mapped;                           /* whole-heap persistent mapping for host-visible heaps */
    struct vkdml_vk_memory allocation;      /* the same memory with its size, type and flags */
};

struct d3d12_resource
{
    ID3D12Resource ID3D12Resource_iface;
    atomic_uint refcount;
    struct d3d12_device *device;            /* holds a reference */
    struct vkdml_private_store private_store;
    D3D12_RESOURCE_DESC desc;
    D3D12_HEAP_PROPERTIES heap_properties;
    D3D12_HEAP_FLAGS heap_flags;
    D3D12_RESOURCE_STATES initial_state;
    struct d3d12_heap *heap;                /* placed: holds a reference; committed: NULL */
    UINT64 heap_offset;
    VkBuffer vk_buffer;
    VkDeviceMemory memory;                  /* committed only */
    VkDeviceAddress gpu_address;            /* GetGPUVirtualAddress() */
    void *mapped;                           /* host-visible: address of byte 0 of the resource */
    bool host_coherent;
    atomic_uint map_count;
    /* A wrapped engine VkBuffer (vkdml_wrap_vk_buffer): not owned, and byte 0 of the resource lies at
     * vk_offset in vk_buffer (0 for every buffer vkdml made). */
    bool wrapped;
    VkDeviceSize vk_offset;
};

struct d3d12_resource *unsafe_impl_from_ID3D12Resource(ID3D12Resource *iface);
struct d3d12_heap *unsafe_impl_from_ID3D12Heap(ID3D12Heap *iface);
HRESULT d3d12_committed_resource_create(struct d3d12_device *device, const D3D12_HEAP_PROPERTIES *heap_properties,
        D3D12_HEAP_FLAGS heap_flags, const D3D12_RESOURCE_DESC *desc, D3D12_RESOURCE_STATES initial_state,
        struct d3d12_resource **resource);
HRESULT d3d12_placed_resource_create(struct d3d12_device *device, struct d3d12_heap *heap, UINT64 heap_offset,
        const D3D12_RESOURCE_DESC *desc, D3D12_RESOURCE_STATES initial_state, struct d3d12_resource **resource);
HRESULT d3d12_heap_create(struct d3d12_device *device, const D3D12_HEAP_DESC *desc, struct d3d12_heap **heap);
/* A resource over [offset, offset + size) of an engine's VkBuffer (checked by the caller); `address` is
 * the device address of its byte 0. The VkBuffer is not destroyed with the resource. */
HRESULT d3d12_wrapped_resource_create(struct d3d12_device *device, VkBuffer buffer, VkDeviceSize offset,
        VkDeviceSize size, VkDeviceAddress address, struct d3d12_resource **resource);
/* Checks a buffer desc (dimension, layout, alignment, size within device limits); logs as `caller`. */
HRESULT d3d12_validate_buffer_desc(struct d3d12_device *device, const D3D12_RESOURCE_DESC *desc, const char *caller);
/* Resolves DEFAULT/UPLOAD/READBACK/CUSTOM to a memory kind; E_INVALIDARG (logged) when impossible. */
HRESULT d3d12_memory_kind_from_heap_properties(const D3D12_HEAP_PROPERTIES *properties,
        enum vkdml_vk_memory_kind *kind, const char *caller);
/* The properties GetCustomHeapProperties reports for a heap type on this device. */
D3D12_HEAP_PROPERTIES d3d12_device_custom_heap_properties(struct d3d12_device *device, D3D12_HEAP_TYPE type);

/* ---- Descriptor heaps (descriptor.c) ----
 * CBV_SRV_UAV heaps are "software descriptor heaps": arrays of struct vkdml_descriptor
 * (kernels_glsl/include/descriptor_interface.h). A shader-visible heap lives in a host-visible
 * Vulkan buffer: its CPU handle is the host pointer, its GPU handle the device address of the
 * same record, so kernels read descriptors at execution time and CopyDescriptors is memcpy.
 * A non-shader-visible heap is malloc'd memory with GPU handle 0. */

struct d3d12_descriptor_heap
{
    ID3D12DescriptorHeap ID3D12DescriptorHeap_iface;
    atomic_uint refcount;
    struct d3d12_device *device;            /* holds a reference */
    struct vkdml_private_store private_store;
    D3D12_DESCRIPTOR_HEAP_DESC desc;
    struct vkdml_vk_buffer buffer;          /* shader-visible heaps */
    struct vkdml_descriptor *records;       /* host view: buffer.mapped or malloc'd */
    D3D12_GPU_DESCRIPTOR_HANDLE gpu_start;  /* 0 when not shader-visible */
    struct d3d12_descriptor_heap *next;     /* in device->heaps */
};

struct d3d12_descriptor_heap *unsafe_impl_from_ID3D12DescriptorHeap(ID3D12DescriptorHeap *iface);
HRESULT d3d12_descriptor_heap_create(struct d3d12_device *device, const D3D12_DESCRIPTOR_HEAP_DESC *desc,
        struct d3d12_descriptor_heap **heap);
UINT d3d12_descriptor_increment_size(D3D12_DESCRIPTOR_HEAP_TYPE type);
/* The record at a CPU handle, after checking that [handle, handle + count records) lies inside one live
 * CBV_SRV_UAV heap; NULL (logged as `caller`) otherwise. */
struct vkdml_descriptor *d3d12_device_descriptor_from_cpu_handle(struct d3d12_device *device,
        D3D12_CPU_DESCRIPTOR_HANDLE handle, UINT count, const char *caller);
/* The same check for a GPU handle (shader-visible heaps only); returns the heap. */
struct d3d12_descriptor_heap *d3d12_device_heap_from_gpu_handle(struct d3d12_device *device,
        D3D12_GPU_DESCRIPTOR_HANDLE handle, UINT count, const char *caller);
/* Writes a buffer view record (CreateUnorderedAccessView / CreateShaderResourceView for buffers). */
void d3d12_write_buffer_descriptor(struct vkdml_descriptor *record, struct d3d12_resource *resource,
        UINT64 offset, UINT64 size, uint32_t kind, uint32_t stride);
/* ID3D12Device methods implemented in descriptor.c. */
void d3d12_device_create_unordered_access_view(struct d3d12_device *device, ID3D12Resource *resource,
        ID3D12Resource *counter, const D3D12_UNORDERED_ACCESS_VIEW_DESC *desc, D3D12_CPU_DESCRIPTOR_HANDLE handle);
void d3d12_device_create_shader_resource_view(struct d3d12_device *device, ID3D12Resource *resource,
        const D3D12_SHADER_RESOURCE_VIEW_DESC *desc, D3D12_CPU_DESCRIPTOR_HANDLE handle);
void d3d12_device_copy_descriptors(struct d3d12_device *device, UINT dst_range_count,
        const D3D12_CPU_DESCRIPTOR_HANDLE *dst_starts, const UINT *dst_sizes, UINT src_range_count,
        const D3D12_CPU_DESCRIPTOR_HANDLE *src_starts, const UINT *src_sizes, D3D12_DESCRIPTOR_HEAP_TYPE type);
void d3d12_device_copy_descriptors_simple(struct d3d12_device *device, UINT count, D3D12_CPU_DESCRIPTOR_HANDLE dst,
        D3D12_CPU_DESCRIPTOR_HANDLE src, D3D12_DESCRIPTOR_HEAP_TYPE type);

/* ---- Fences (fence.c) ---- */

struct d3d12_fence
{
    ID3D12Fence ID3D12Fence_iface;
    atomic_uint refcount;
    struct d3d12_device *device;            /* holds a reference */
    struct vkdml_private_store private_store;
    D3D12_FENCE_FLAGS flags;
    VkSemaphore timeline;
    /* The highest value a queue Signal has been submitted for (written under the queue mutex):
     * timeline values must increase, so Signal/Wait compare against it. */
    atomic_uint_least64_t pending_value;
    /* 1 while refcount > 0, plus one per queue operation deferred on the CPU that names the fence
     * (command.c): the application may Release a fence right after a queue Signal or Wait. */
    atomic_uint internal_refcount;
    /* The last VkQueue submission that waits on or signals the timeline (written under the queue
     * mutex): the semaphore is destroyed only once it completed. */
    struct d3d12_command_queue *last_queue; /* internal reference */
    uint64_t last_submission;
};

struct d3d12_fence *unsafe_impl_from_ID3D12Fence(ID3D12Fence *iface);
HRESULT d3d12_fence_create(struct d3d12_device *device, UINT64 initial_value, D3D12_FENCE_FLAGS flags,
        struct d3d12_fence **fence);
/* Stops the event waiter thread and drops its pending events; called by the device's Release. */
void d3d12_device_stop_fence_waiter(struct d3d12_device *device);
/* References held by deferred queue operations (command.c). Never release with the queue mutex held. */
void d3d12_fence_internal_add_ref(struct d3d12_fence *fence);
void d3d12_fence_internal_release(struct d3d12_fence *fence);

/* ---- Command queues, allocators, lists (command.c) ---- */

struct d3d12_command_queue
{
    ID3D12CommandQueue ID3D12CommandQueue_iface;
    atomic_uint refcount;
    /* Held by the public refcount (as one) and by allocators and lists whose last submission went
     * to this queue, so its timeline outlives them; the queue is destroyed when it reaches 0. */
    atomic_uint internal_refcount;
    struct d3d12_device *device;            /* holds a reference */
    struct vkdml_private_store private_store;
    D3D12_COMMAND_QUEUE_DESC desc;
    /* Counts this queue's submissions, so allocators know when their command buffers are idle. */
    VkSemaphore submission_timeline;
    /* The last number handed to an accepted operation. A deferred operation gets its number when
     * accepted and signals it once submitted: the queue submits in order, so values increase. */
    atomic_uint_least64_t submission_count;

    /* Everything below is guarded by device->vk->queue_mutex. */
    uint64_t submitted_count;               /* the last number submitted to the VkQueue */
    /* Operations held back on the CPU, in call order, from a Wait that no completed value or
     * submitted signal satisfies; the queue is in device->blocked_queues while there are any. */
    struct d3d12_queue_op *deferred_head, **deferred_tail;
    struct d3d12_command_queue *blocked_next;
};

struct d3d12_command_allocator
{
    ID3D12CommandAllocator ID3D12CommandAllocator_iface;
    atomic_uint refcount;
    /* 1 while refcount > 0, plus one per deferred ExecuteCommandLists entry using one of its
     * buffers: the pool outlives the application's references until that work is submitted. */
    atomic_uint internal_refcount;
    struct d3d12_device *device;            /* holds a reference */
    struct vkdml_private_store private_store;
    D3D12_COMMAND_LIST_TYPE type;
    VkCommandPool pool;
    /* Lock order: this mutex, then device->vk->queue_mutex; never the other way round. */
    struct vkdml_mutex mutex;               /* guards buffers, recording and lists */
    VkCommandBuffer *buffers;               /* every buffer allocated from pool (the allocator owns them) */
    size_t buffer_count, buffer_capacity;
    size_t buffers_in_use;                  /* buffers[0, buffers_in_use) handed out since the last Reset */
    struct d3d12_command_list *recording;   /* the list currently recording into this allocator */
    struct d3d12_command_list *lists;       /* lists holding one of its buffers, via allocator_next */
    /* The last queue submission that used one of its command buffers: Reset fails while it is
     * pending. Written under device->vk->queue_mutex. */
    struct d3d12_command_queue *last_queue; /* internal reference */
    VkSemaphore last_timeline;              /* last_queue->submission_timeline */
    uint64_t last_submission;
    /* Deferred ExecuteCommandLists entries using its buffers, not yet submitted (guarded by the
     * queue mutex): they are in flight too. */
    size_t deferred_count;
};

/* Global barrier state accumulated by ResourceBarrier and flushed before the next command. */
struct d3d12_pending_barrier
{
    VkPipelineStageFlags2 src_stages, dst_stages;
    VkAccessFlags2 src_access, dst_access;
};

struct d3d12_command_list
{
    ID3D12GraphicsCommandList ID3D12GraphicsCommandList_iface;
    atomic_uint refcount;
    struct d3d12_device *device;            /* holds a reference */
    struct vkdml_private_store private_store;
    D3D12_COMMAND_LIST_TYPE type;
    struct d3d12_command_allocator *allocator;  /* no reference (D3D12 semantics) */
    VkCommandBuffer vk_command_buffer;
    bool is_open;
    HRESULT close_error;                    /* an error recorded while open, returned by Close */
    struct d3d12_descriptor_heap *descriptor_heap;  /* CBV_SRV_UAV heap from SetDescriptorHeaps */
    struct d3d12_pending_barrier pending;
    /* The list borrows vk_command_buffer from `allocator` and sits in allocator->lists until it is
     * Reset onto another allocator or released; an allocator Reset or Release detaches it
     * (allocator and vk_command_buffer become NULL), so a stale list cannot be executed. */
    struct d3d12_command_list *allocator_next;
    char *name;                             /* SetName, applied to each new VkCommandBuffer */
    /* Its last execution (written under device->vk->queue_mutex): D3D12 forbids executing a list
     * again before the previous execution completed. */
    struct d3d12_command_queue *last_queue; /* internal reference */
    uint64_t last_submission;
    /* vkdml_command_list_set_profiler (profiler.c): times every RecordDispatch; internal reference. */
    struct vkdml_profiler *profiler;
};

struct d3d12_command_queue *unsafe_impl_from_ID3D12CommandQueue(ID3D12CommandQueue *iface);
struct d3d12_command_list *unsafe_impl_from_ID3D12CommandList(ID3D12CommandList *iface);
HRESULT d3d12_command_queue_create(struct d3d12_device *device, const D3D12_COMMAND_QUEUE_DESC *desc,
        struct d3d12_command_queue **queue);
HRESULT d3d12_command_allocator_create(struct d3d12_device *device, D3D12_COMMAND_LIST_TYPE type,
        struct d3d12_command_allocator **allocator);
HRESULT d3d12_command_list_create(struct d3d12_device *device, UINT node_mask, D3D12_COMMAND_LIST_TYPE type,
        ID3D12CommandAllocator *allocator, ID3D12PipelineState *initial_state, struct d3d12_command_list **list);
/* For recorders (IDMLCommandRecorder, vkdml_record_dispatch): emits pending barriers so the next
 * command sees earlier writes as D3D12 barriers require. */
void d3d12_command_list_flush_barriers(struct d3d12_command_list *list);

/* Submits to the device's VkQueue under its mutex. `wait`/`signal` are optional timeline operations. */
struct d3d12_timeline_op
{
    VkSemaphore semaphore;
    uint64_t value;
};
HRESULT d3d12_device_submit(struct d3d12_device *device, const VkCommandBuffer *buffers, uint32_t buffer_count,
        const struct d3d12_timeline_op *waits, uint32_t wait_count,
        const struct d3d12_timeline_op *signals, uint32_t signal_count);
/* Creates a timeline semaphore with `initial_value`. */
VkResult d3d12_device_create_timeline(struct d3d12_device *device, uint64_t initial_value, VkSemaphore *semaphore);

/* A queue operation held back on the CPU behind an unsatisfied queue Wait (command.c). */
struct d3d12_queue_op;
/* Submits, in order, the deferred operations of every blocked queue whose Waits a completed value or
 * a submitted signal now satisfies; for a CPU ID3D12Fence::Signal. Caller holds device->vk->queue_mutex
 * and passes the result to d3d12_queue_ops_free once it released the mutex. */
struct d3d12_queue_op *d3d12_device_unblock_queues_locked(struct d3d12_device *device);
/* Frees submitted or dropped operations and drops the references they held. */
void d3d12_queue_ops_free(struct d3d12_queue_op *ops);
/* For a fence's destruction: waits until the last submission using its timeline completed. */
void d3d12_fence_wait_submissions(struct d3d12_fence *fence);

/* ---- Profilers (profiler.c) ----
 * A query pool of GPU timestamps, two per timed dispatch, with the dispatches' names. */

/* Takes/drops a reference held by a command list the profiler is attached to. NULL is ignored. */
void vkdml_profiler_internal_add_ref(struct vkdml_profiler *profiler);
void vkdml_profiler_internal_release(struct vkdml_profiler *profiler);
struct d3d12_device *vkdml_profiler_device(const struct vkdml_profiler *profiler);
/* Claims the next timed slot for a dispatch called `name` and records the query reset and the start
 * timestamp; returns the slot, or -1 when the profiler is full (warned once per reset). */
int vkdml_profiler_begin(struct vkdml_profiler *profiler, VkCommandBuffer command_buffer, const char *name);
/* Records the end timestamp of `slot`. */
void vkdml_profiler_end(struct vkdml_profiler *profiler, VkCommandBuffer command_buffer, int slot);

#endif /* VKDML_D3D12_PRIVATE_H */
