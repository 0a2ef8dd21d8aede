/*
 * Helpers shared by the C tests of the D3D12 shim: COM basics through COBJMACROS, buffer
 * descriptions, barriers, and the close → execute → wait → reset cycle. Black-box: only
 * DirectX-Headers' declarations, D3D12CreateDevice (vkdml_create_d3d12_device on Windows) and
 * vkdml.h; test_platform.h holds what differs on Windows.
 */
#ifndef VKDML_TEST_D3D12_H
#define VKDML_TEST_D3D12_H

#ifndef COBJMACROS
# define COBJMACROS
#endif
#include "test_platform.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "test_utils.h"

/* HRESULTs compared as 32-bit patterns, so cmocka prints them in hex. */
#define check_hr(hr, expected) assert_int_equal((uint32_t)(HRESULT)(hr), (uint32_t)(HRESULT)(expected))

/* Every COM interface starts with IUnknown: Release through it and return the new count. */
static inline ULONG release_unknown(void *object)
{
    return IUnknown_Release((IUnknown *)object);
}
static inline ULONG refcount_of(void *object)
{
    IUnknown_AddRef((IUnknown *)object);
    return IUnknown_Release((IUnknown *)object);
}
/* The last reference of an object: Release must return 0. */
#define release_last(object) do { assert_int_equal(release_unknown(object), 0); (object) = NULL; } while (0)

/* Exactly one vkdml error line since the last check, naming `what` (the call or the rule). */
#define check_one_error(what) do { \
        assert_int_equal(vkdml_test_log_counts()->errors, 1); \
        assert_logged_error(what); \
    } while (0)

struct test_context
{
    ID3D12Device *device;
    ID3D12CommandQueue *queue;
    ID3D12CommandAllocator *allocator;
    ID3D12GraphicsCommandList *list;    /* open after setup and after every execute_and_wait() */
    ID3D12Fence *fence;
    UINT64 fence_value;
};

static inline D3D12_RESOURCE_DESC buffer_desc(UINT64 width, D3D12_RESOURCE_FLAGS flags)
{
    D3D12_RESOURCE_DESC desc;

    memset(&desc, 0, sizeof(desc));
    desc.Dimension = D3D12_RESOURCE_DIMENSION_BUFFER;
    desc.Alignment = 0;
    desc.Width = width;
    desc.Height = 1;
    desc.DepthOrArraySize = 1;
    desc.MipLevels = 1;
    desc.Format = DXGI_FORMAT_UNKNOWN;
    desc.SampleDesc.Count = 1;
    desc.SampleDesc.Quality = 0;
    desc.Layout = D3D12_TEXTURE_LAYOUT_ROW_MAJOR;
    desc.Flags = flags;
    return desc;
}

static inline D3D12_HEAP_PROPERTIES heap_properties(D3D12_HEAP_TYPE type)
{
    D3D12_HEAP_PROPERTIES properties;

    memset(&properties, 0, sizeof(properties));
    properties.Type = type;
    properties.CPUPageProperty = D3D12_CPU_PAGE_PROPERTY_UNKNOWN;
    properties.MemoryPoolPreference = D3D12_MEMORY_POOL_UNKNOWN;
    properties.CreationNodeMask = 1;
    properties.VisibleNodeMask = 1;
    return properties;
}

static inline D3D12_HEAP_PROPERTIES custom_heap_properties(D3D12_CPU_PAGE_PROPERTY page, D3D12_MEMORY_POOL pool)
{
    D3D12_HEAP_PROPERTIES properties = heap_properties(D3D12_HEAP_TYPE_CUSTOM);

    properties.CPUPageProperty = page;
    properties.MemoryPoolPreference = pool;
    return properties;
}

static inline ID3D12Resource *create_buffer_with_properties(ID3D12Device *device,
        const D3D12_HEAP_PROPERTIES *properties, UINT64 width, D3D12_RESOURCE_FLAGS flags,
        D3D12_RESOURCE_STATES state)
{
    D3D12_RESOURCE_DESC desc = buffer_desc(width, flags);
    ID3D12Resource *resource = NULL;
    HRESULT hr;

    hr = ID3D12Device_CreateCommittedResource(device, properties, D3D12_HEAP_FLAG_NONE, &desc, state, NULL,
            &IID_ID3D12Resource, (void **)&resource);
    check_hr(hr, S_OK);
    assert_non_null(resource);
    return resource;
}

static inline ID3D12Resource *create_buffer(ID3D12Device *device, D3D12_HEAP_TYPE type, UINT64 width,
        D3D12_RESOURCE_FLAGS flags, D3D12_RESOURCE_STATES state)
{
    D3D12_HEAP_PROPERTIES properties = heap_properties(type);

    return create_buffer_with_properties(device, &properties, width, flags, state);
}

static inline ID3D12Resource *create_upload_buffer(ID3D12Device *device, UINT64 width)
{
    return create_buffer(device, D3D12_HEAP_TYPE_UPLOAD, width, D3D12_RESOURCE_FLAG_NONE,
            D3D12_RESOURCE_STATE_GENERIC_READ);
}

static inline ID3D12Resource *create_readback_buffer(ID3D12Device *device, UINT64 width)
{
    return create_buffer(device, D3D12_HEAP_TYPE_READBACK, width, D3D12_RESOURCE_FLAG_NONE,
            D3D12_RESOURCE_STATE_COPY_DEST);
}

static inline ID3D12Resource *create_default_buffer(ID3D12Device *device, UINT64 width, D3D12_RESOURCE_STATES state)
{
    return create_buffer(device, D3D12_HEAP_TYPE_DEFAULT, width, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS, state);
}

/* A byte pattern that differs between neighbouring bytes, pages and seeds. */
static inline uint8_t pattern_byte(size_t i, unsigned int seed)
{
    uint32_t x = (uint32_t)i * 2654435761u + seed * 40503u;

    return (uint8_t)((x >> 24) ^ (x >> 13) ^ seed);
}

static inline void fill_pattern(void *data, size_t size, unsigned int seed)
{
    uint8_t *bytes = data;
    size_t i;

    for (i = 0; i < size; ++i)
        bytes[i] = pattern_byte(i, seed);
}

/* The first differing byte, or -1: gives readable failures for big buffers. */
static inline long first_difference(const void *a, const void *b, size_t size)
{
    const uint8_t *x = a, *y = b;
    size_t i;

    for (i = 0; i < size; ++i)
    {
        if (x[i] != y[i])
        {
            fprintf(stderr, "byte %zu: got 0x%02x, expected 0x%02x\n", i, x[i], y[i]);
            return (long)i;
        }
    }
    return -1;
}

static inline void write_mapped(ID3D12Resource *resource, UINT64 offset, const void *data, size_t size)
{
    D3D12_RANGE read_range = {0, 0};
    void *mapped = NULL;

    check_hr(ID3D12Resource_Map(resource, 0, &read_range, &mapped), S_OK);
    assert_non_null(mapped);
    memcpy((uint8_t *)mapped + offset, data, size);
    ID3D12Resource_Unmap(resource, 0, NULL);
}

static inline void read_mapped(ID3D12Resource *resource, UINT64 offset, void *data, size_t size)
{
    D3D12_RANGE read_range = {offset, offset + size}, written = {0, 0};
    void *mapped = NULL;

    check_hr(ID3D12Resource_Map(resource, 0, &read_range, &mapped), S_OK);
    assert_non_null(mapped);
    memcpy(data, (const uint8_t *)mapped + offset, size);
    ID3D12Resource_Unmap(resource, 0, &written);
}

static inline void transition(ID3D12GraphicsCommandList *list, ID3D12Resource *resource,
        D3D12_RESOURCE_STATES before, D3D12_RESOURCE_STATES after)
{
    D3D12_RESOURCE_BARRIER barrier;

    memset(&barrier, 0, sizeof(barrier));
    barrier.Type = D3D12_RESOURCE_BARRIER_TYPE_TRANSITION;
    barrier.Flags = D3D12_RESOURCE_BARRIER_FLAG_NONE;
    barrier.Transition.pResource = resource;
    barrier.Transition.Subresource = D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES;
    barrier.Transition.StateBefore = before;
    barrier.Transition.StateAfter = after;
    ID3D12GraphicsCommandList_ResourceBarrier(list, 1, &barrier);
}

static inline void uav_barrier(ID3D12GraphicsCommandList *list, ID3D12Resource *resource)
{
    D3D12_RESOURCE_BARRIER barrier;

    memset(&barrier, 0, sizeof(barrier));
    barrier.Type = D3D12_RESOURCE_BARRIER_TYPE_UAV;
    barrier.UAV.pResource = resource;
    ID3D12GraphicsCommandList_ResourceBarrier(list, 1, &barrier);
}

static inline void aliasing_barrier(ID3D12GraphicsCommandList *list, ID3D12Resource *before, ID3D12Resource *after)
{
    D3D12_RESOURCE_BARRIER barrier;

    memset(&barrier, 0, sizeof(barrier));
    barrier.Type = D3D12_RESOURCE_BARRIER_TYPE_ALIASING;
    barrier.Aliasing.pResourceBefore = before;
    barrier.Aliasing.pResourceAfter = after;
    ID3D12GraphicsCommandList_ResourceBarrier(list, 1, &barrier);
}

static inline double now_seconds(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Polls GetCompletedValue (never blocks inside the shim), failing after 240 s rather than hanging
 * (lavapipe on a loaded 2-core CI machine can take tens of seconds for the biggest cases). */
static inline void wait_fence_polling(ID3D12Fence *fence, UINT64 value)
{
    double deadline = now_seconds() + 240.0;
    UINT64 completed;

    while ((completed = ID3D12Fence_GetCompletedValue(fence)) < value)
    {
        if (now_seconds() > deadline)
            fail_msg("fence stuck at %llu, waiting for %llu", (unsigned long long)completed,
                    (unsigned long long)value);
        usleep(200);
    }
}

/* Signals the context fence on the queue and waits for it. */
static inline void wait_queue_idle(struct test_context *context)
{
    check_hr(ID3D12CommandQueue_Signal(context->queue, context->fence, ++context->fence_value), S_OK);
    wait_fence_polling(context->fence, context->fence_value);
}

static inline void execute_list(ID3D12CommandQueue *queue, ID3D12GraphicsCommandList *list)
{
    ID3D12CommandList *lists[] = {(ID3D12CommandList *)list};

    ID3D12CommandQueue_ExecuteCommandLists(queue, 1, lists);
}

/* Close, execute, wait, then reset the allocator and reopen the list. */
static inline void execute_and_wait(struct test_context *context)
{
    check_hr(ID3D12GraphicsCommandList_Close(context->list), S_OK);
    execute_list(context->queue, context->list);
    wait_queue_idle(context);
    check_hr(ID3D12CommandAllocator_Reset(context->allocator), S_OK);
    check_hr(ID3D12GraphicsCommandList_Reset(context->list, context->allocator, NULL), S_OK);
}

/* Writes `size` bytes at `offset` of `buffer` (in COPY_DEST state) through an upload buffer. */
static inline void upload_to_buffer(struct test_context *context, ID3D12Resource *buffer, UINT64 offset,
        const void *data, size_t size)
{
    ID3D12Resource *upload = create_upload_buffer(context->device, size);

    write_mapped(upload, 0, data, size);
    ID3D12GraphicsCommandList_CopyBufferRegion(context->list, buffer, offset, upload, 0, size);
    execute_and_wait(context);
    release_last(upload);
}

/* Reads `size` bytes at `offset` of `buffer` (in COPY_SOURCE state) through a readback buffer. */
static inline void read_buffer(struct test_context *context, ID3D12Resource *buffer, UINT64 offset,
        void *data, size_t size)
{
    ID3D12Resource *readback = create_readback_buffer(context->device, size);

    ID3D12GraphicsCommandList_CopyBufferRegion(context->list, readback, 0, buffer, offset, size);
    execute_and_wait(context);
    read_mapped(readback, 0, data, size);
    release_last(readback);
}

static inline ID3D12DescriptorHeap *create_descriptor_heap(ID3D12Device *device, UINT count, bool shader_visible)
{
    D3D12_DESCRIPTOR_HEAP_DESC desc;
    ID3D12DescriptorHeap *heap = NULL;

    memset(&desc, 0, sizeof(desc));
    desc.Type = D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV;
    desc.NumDescriptors = count;
    desc.Flags = shader_visible ? D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE : D3D12_DESCRIPTOR_HEAP_FLAG_NONE;
    desc.NodeMask = 0;
    check_hr(ID3D12Device_CreateDescriptorHeap(device, &desc, &IID_ID3D12DescriptorHeap, (void **)&heap), S_OK);
    assert_non_null(heap);
    return heap;
}

static inline D3D12_CPU_DESCRIPTOR_HANDLE cpu_handle(ID3D12DescriptorHeap *heap, UINT increment, UINT index)
{
    D3D12_CPU_DESCRIPTOR_HANDLE handle = ID3D12DescriptorHeap_GetCPUDescriptorHandleForHeapStart(heap);

    handle.ptr += (SIZE_T)increment * index;
    return handle;
}

static inline D3D12_GPU_DESCRIPTOR_HANDLE gpu_handle(ID3D12DescriptorHeap *heap, UINT increment, UINT index)
{
    D3D12_GPU_DESCRIPTOR_HANDLE handle = ID3D12DescriptorHeap_GetGPUDescriptorHandleForHeapStart(heap);

    handle.ptr += (UINT64)increment * index;
    return handle;
}

/* A raw (R32_TYPELESS) buffer UAV of `count` dwords starting at dword `first`. */
static inline D3D12_UNORDERED_ACCESS_VIEW_DESC raw_uav_desc(UINT64 first, UINT count)
{
    D3D12_UNORDERED_ACCESS_VIEW_DESC desc;

    memset(&desc, 0, sizeof(desc));
    desc.Format = DXGI_FORMAT_R32_TYPELESS;
    desc.ViewDimension = D3D12_UAV_DIMENSION_BUFFER;
    desc.Buffer.FirstElement = first;
    desc.Buffer.NumElements = count;
    desc.Buffer.StructureByteStride = 0;
    desc.Buffer.CounterOffsetInBytes = 0;
    desc.Buffer.Flags = D3D12_BUFFER_UAV_FLAG_RAW;
    return desc;
}

static inline D3D12_UNORDERED_ACCESS_VIEW_DESC typed_uav_desc(DXGI_FORMAT format, UINT64 first, UINT count)
{
    D3D12_UNORDERED_ACCESS_VIEW_DESC desc = raw_uav_desc(first, count);

    desc.Format = format;
    desc.Buffer.Flags = D3D12_BUFFER_UAV_FLAG_NONE;
    return desc;
}

/* A device from D3D12CreateDevice (test_platform.h) with a DIRECT queue, allocator, open list and fence. */
static inline int d3d12_context_setup(void **state)
{
    D3D12_COMMAND_QUEUE_DESC queue_desc;
    struct test_context *context;
    HRESULT hr;

    vkdml_test_log_reset();
    if (!(context = calloc(1, sizeof(*context))))
        return -1;
    *state = context;
    if (FAILED(hr = test_create_d3d12_device(&IID_ID3D12Device, (void **)&context->device)))
    {
        fprintf(stderr, "Creating the D3D12 device failed, hr %#x.\n", (unsigned int)hr);
        return -1;
    }
    memset(&queue_desc, 0, sizeof(queue_desc));
    queue_desc.Type = D3D12_COMMAND_LIST_TYPE_DIRECT;
    if (FAILED(ID3D12Device_CreateCommandQueue(context->device, &queue_desc, &IID_ID3D12CommandQueue,
            (void **)&context->queue))
            || FAILED(ID3D12Device_CreateCommandAllocator(context->device, D3D12_COMMAND_LIST_TYPE_DIRECT,
            &IID_ID3D12CommandAllocator, (void **)&context->allocator))
            || FAILED(ID3D12Device_CreateCommandList(context->device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT,
            context->allocator, NULL, &IID_ID3D12GraphicsCommandList, (void **)&context->list))
            || FAILED(ID3D12Device_CreateFence(context->device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence,
            (void **)&context->fence)))
    {
        fprintf(stderr, "Creating the queue, allocator, list or fence failed.\n");
        return -1;
    }
    return vkdml_test_log_teardown(state);
}

/* Releases the context objects (each to 0), then the device, whose final Release must return 0. */
static inline int d3d12_context_teardown(void **state)
{
    struct test_context *context = *state;
    int ret = 0;
    ULONG count;

    if (!context)
        return -1;
    if (context->device)
    {
        /* Whatever a failed test left on the queue finishes before anything is released. */
        if (context->queue && context->fence)
        {
            ID3D12CommandQueue_Signal(context->queue, context->fence, ++context->fence_value);
            ID3D12Fence_SetEventOnCompletion(context->fence, context->fence_value, NULL);
        }
#define RELEASE_LAST(o) \
        if (context->o && (count = release_unknown(context->o))) \
        { \
            fprintf(stderr, "Final Release of " #o " returned %u, expected 0.\n", (unsigned int)count); \
            ret = -1; \
        }
        RELEASE_LAST(list)
        RELEASE_LAST(allocator)
        RELEASE_LAST(fence)
        RELEASE_LAST(queue)
        RELEASE_LAST(device)
#undef RELEASE_LAST
    }
    free(context);
    *state = NULL;
    if (vkdml_test_log_teardown(state))
        ret = -1;
    vkdml_test_log_reset();
    return ret;
}

#endif /* VKDML_TEST_D3D12_H */
