/*
 * Vtable slots of the D3D12 shim. Two things are checked:
 *  - DirectX-Headers' own C declarations put every method the shim implements at the slot
 *    `slots` below lists: D3D12's vtable order, the ABI a C++ caller compiled against any d3d12.h uses;
 *  - every slot of every shim object's vtable, implemented or not, is non-NULL, so a caller never
 *    jumps through NULL (unimplemented methods are E_NOTIMPL stubs).
 */
#define COBJMACROS
#include "d3d12_test.h"

struct slot
{
    const char *name;
    size_t offset;
    size_t expected;
};

#define SLOT(iface, method, index) {#iface "::" #method, offsetof(iface##Vtbl, method), index}

static const struct slot slots[] =
{
    SLOT(ID3D12Device, QueryInterface, 0),
    SLOT(ID3D12Device, AddRef, 1),
    SLOT(ID3D12Device, Release, 2),
    SLOT(ID3D12Device, GetPrivateData, 3),
    SLOT(ID3D12Device, SetPrivateData, 4),
    SLOT(ID3D12Device, SetPrivateDataInterface, 5),
    SLOT(ID3D12Device, SetName, 6),
    SLOT(ID3D12Device, GetNodeCount, 7),
    SLOT(ID3D12Device, CreateCommandQueue, 8),
    SLOT(ID3D12Device, CreateCommandAllocator, 9),
    SLOT(ID3D12Device, CreateCommandList, 12),
    SLOT(ID3D12Device, CheckFeatureSupport, 13),
    SLOT(ID3D12Device, CreateDescriptorHeap, 14),
    SLOT(ID3D12Device, GetDescriptorHandleIncrementSize, 15),
    SLOT(ID3D12Device, CreateRootSignature, 16),
    SLOT(ID3D12Device, CreateShaderResourceView, 18),
    SLOT(ID3D12Device, CreateUnorderedAccessView, 19),
    SLOT(ID3D12Device, CopyDescriptors, 23),
    SLOT(ID3D12Device, CopyDescriptorsSimple, 24),
    SLOT(ID3D12Device, GetResourceAllocationInfo, 25),
    SLOT(ID3D12Device, GetCustomHeapProperties, 26),
    SLOT(ID3D12Device, CreateCommittedResource, 27),
    SLOT(ID3D12Device, CreateHeap, 28),
    SLOT(ID3D12Device, CreatePlacedResource, 29),
    SLOT(ID3D12Device, MakeResident, 34),
    SLOT(ID3D12Device, Evict, 35),
    SLOT(ID3D12Device, CreateFence, 36),
    SLOT(ID3D12Device, GetDeviceRemovedReason, 37),
    SLOT(ID3D12Device, GetCopyableFootprints, 38),
    SLOT(ID3D12Device, GetAdapterLuid, 43),

    SLOT(ID3D12GraphicsCommandList, SetName, 6),
    SLOT(ID3D12GraphicsCommandList, GetDevice, 7),
    SLOT(ID3D12GraphicsCommandList, GetType, 8),
    SLOT(ID3D12GraphicsCommandList, Close, 9),
    SLOT(ID3D12GraphicsCommandList, Reset, 10),
    SLOT(ID3D12GraphicsCommandList, Dispatch, 14),
    SLOT(ID3D12GraphicsCommandList, CopyBufferRegion, 15),
    SLOT(ID3D12GraphicsCommandList, CopyResource, 17),
    SLOT(ID3D12GraphicsCommandList, ResourceBarrier, 26),
    SLOT(ID3D12GraphicsCommandList, SetDescriptorHeaps, 28),
    SLOT(ID3D12GraphicsCommandList, ClearUnorderedAccessViewUint, 49),
    SLOT(ID3D12GraphicsCommandList, ClearUnorderedAccessViewFloat, 50),

    SLOT(ID3D12Resource, GetDevice, 7),
    SLOT(ID3D12Resource, Map, 8),
    SLOT(ID3D12Resource, Unmap, 9),
    SLOT(ID3D12Resource, GetDesc, 10),
    SLOT(ID3D12Resource, GetGPUVirtualAddress, 11),
    SLOT(ID3D12Resource, GetHeapProperties, 14),

    SLOT(ID3D12DescriptorHeap, GetDesc, 8),
    SLOT(ID3D12DescriptorHeap, GetCPUDescriptorHandleForHeapStart, 9),
    SLOT(ID3D12DescriptorHeap, GetGPUDescriptorHandleForHeapStart, 10),

    SLOT(ID3D12Fence, GetCompletedValue, 8),
    SLOT(ID3D12Fence, SetEventOnCompletion, 9),
    SLOT(ID3D12Fence, Signal, 10),

    SLOT(ID3D12CommandQueue, ExecuteCommandLists, 10),
    SLOT(ID3D12CommandQueue, Signal, 14),
    SLOT(ID3D12CommandQueue, Wait, 15),
    SLOT(ID3D12CommandQueue, GetTimestampFrequency, 16),
    SLOT(ID3D12CommandQueue, GetDesc, 18),

    SLOT(ID3D12CommandAllocator, Reset, 8),

    SLOT(ID3D12Heap, GetDesc, 8),
};

static void test_header_slots(void **state)
{
    unsigned int i, failures = 0;

    for (i = 0; i < sizeof(slots) / sizeof(*slots); ++i)
    {
        size_t index = slots[i].offset / sizeof(void *);

        if (slots[i].offset % sizeof(void *) || index != slots[i].expected)
        {
            fprintf(stderr, "%s is at slot %zu in DirectX-Headers' d3d12.h, expected %zu.\n", slots[i].name,
                    index, slots[i].expected);
            ++failures;
        }
    }
    assert_int_equal(failures, 0);

    /* The full lengths: the shim's vtables must have this many entries. */
    assert_int_equal(sizeof(ID3D12DeviceVtbl) / sizeof(void *), 44);
    assert_int_equal(sizeof(ID3D12GraphicsCommandListVtbl) / sizeof(void *), 60);
    assert_int_equal(sizeof(ID3D12ResourceVtbl) / sizeof(void *), 15);
    assert_int_equal(sizeof(ID3D12DescriptorHeapVtbl) / sizeof(void *), 11);
    assert_int_equal(sizeof(ID3D12FenceVtbl) / sizeof(void *), 11);
    assert_int_equal(sizeof(ID3D12CommandQueueVtbl) / sizeof(void *), 19);
    assert_int_equal(sizeof(ID3D12CommandAllocatorVtbl) / sizeof(void *), 9);
    assert_int_equal(sizeof(ID3D12HeapVtbl) / sizeof(void *), 9);
}

/* Every entry of `object`'s vtable, `vtbl_size` bytes long, is non-NULL. */
static void check_vtable(const char *name, const void *object, size_t vtbl_size)
{
    void *const *vtbl = *(void *const *const *)object;
    size_t i, count = vtbl_size / sizeof(void *);
    unsigned int nulls = 0;

    assert_non_null(vtbl);
    for (i = 0; i < count; ++i)
    {
        if (!vtbl[i])
        {
            fprintf(stderr, "%s vtable slot %zu is NULL.\n", name, i);
            ++nulls;
        }
    }
    assert_int_equal(nulls, 0);
}

/* If `object` offers the newer interface `iid`, the vtable behind it is checked at that length too. */
static void check_optional_interface(const char *name, void *object, REFIID iid, size_t vtbl_size)
{
    void *out = NULL;

    if (SUCCEEDED(IUnknown_QueryInterface((IUnknown *)object, iid, &out)))
    {
        assert_non_null(out);
        check_vtable(name, out, vtbl_size);
        IUnknown_Release((IUnknown *)out);
    }
    else
    {
        assert_null(out);
    }
    vkdml_test_log_reset();
}

static void test_object_vtables(void **state)
{
    struct test_context *context = *state;
    ID3D12DescriptorHeap *descriptor_heap;
    ID3D12Resource *buffer, *placed;
    D3D12_RESOURCE_DESC desc;
    D3D12_HEAP_DESC heap_desc;
    ID3D12Heap *heap;

    buffer = create_upload_buffer(context->device, 256);
    descriptor_heap = create_descriptor_heap(context->device, 4, true);
    memset(&heap_desc, 0, sizeof(heap_desc));
    heap_desc.SizeInBytes = D3D12_DEFAULT_RESOURCE_PLACEMENT_ALIGNMENT;
    heap_desc.Properties = heap_properties(D3D12_HEAP_TYPE_DEFAULT);
    heap_desc.Flags = D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS;
    check_hr(ID3D12Device_CreateHeap(context->device, &heap_desc, &IID_ID3D12Heap, (void **)&heap), S_OK);
    desc = buffer_desc(256, D3D12_RESOURCE_FLAG_NONE);
    check_hr(ID3D12Device_CreatePlacedResource(context->device, heap, 0, &desc, D3D12_RESOURCE_STATE_COMMON, NULL,
            &IID_ID3D12Resource, (void **)&placed), S_OK);

    check_vtable("ID3D12Device", context->device, sizeof(ID3D12DeviceVtbl));
    check_vtable("ID3D12CommandQueue", context->queue, sizeof(ID3D12CommandQueueVtbl));
    check_vtable("ID3D12CommandAllocator", context->allocator, sizeof(ID3D12CommandAllocatorVtbl));
    check_vtable("ID3D12GraphicsCommandList", context->list, sizeof(ID3D12GraphicsCommandListVtbl));
    check_vtable("ID3D12Fence", context->fence, sizeof(ID3D12FenceVtbl));
    check_vtable("ID3D12Resource (committed)", buffer, sizeof(ID3D12ResourceVtbl));
    check_vtable("ID3D12Resource (placed)", placed, sizeof(ID3D12ResourceVtbl));
    check_vtable("ID3D12DescriptorHeap", descriptor_heap, sizeof(ID3D12DescriptorHeapVtbl));
    check_vtable("ID3D12Heap", heap, sizeof(ID3D12HeapVtbl));

    /* Newer interfaces, where the shim hands them out, have full vtables as well. */
    check_optional_interface("ID3D12Device1", context->device, &IID_ID3D12Device1, sizeof(ID3D12Device1Vtbl));
    check_optional_interface("ID3D12Device2", context->device, &IID_ID3D12Device2, sizeof(ID3D12Device2Vtbl));
    check_optional_interface("ID3D12Fence1", context->fence, &IID_ID3D12Fence1, sizeof(ID3D12Fence1Vtbl));
    check_optional_interface("ID3D12GraphicsCommandList1", context->list, &IID_ID3D12GraphicsCommandList1,
            sizeof(ID3D12GraphicsCommandList1Vtbl));
    check_optional_interface("ID3D12Resource1", buffer, &IID_ID3D12Resource1, sizeof(ID3D12Resource1Vtbl));
    check_optional_interface("ID3D12Heap1", heap, &IID_ID3D12Heap1, sizeof(ID3D12Heap1Vtbl));

    /* Objects of one kind share one vtable (that is how the shim recognises its own objects). */
    assert_ptr_equal(*(void **)buffer, *(void **)placed);

    release_last(placed);
    release_last(heap);
    release_last(descriptor_heap);
    release_last(buffer);
    assert_no_log_errors();
}

/* Calling straight through the slot numbers (no macros) reaches the right methods. */
static void test_call_by_slot(void **state)
{
    typedef UINT64 (STDMETHODCALLTYPE *get_completed_value_fn)(ID3D12Fence *);
    typedef HRESULT (STDMETHODCALLTYPE *signal_fn)(ID3D12Fence *, UINT64);
    typedef UINT (STDMETHODCALLTYPE *get_node_count_fn)(ID3D12Device *);
    typedef D3D12_COMMAND_LIST_TYPE (STDMETHODCALLTYPE *get_type_fn)(ID3D12GraphicsCommandList *);
    struct test_context *context = *state;
    void *const *fence_vtbl = *(void *const *const *)context->fence;
    void *const *device_vtbl = *(void *const *const *)context->device;
    void *const *list_vtbl = *(void *const *const *)context->list;

    check_hr(((signal_fn)fence_vtbl[10])(context->fence, 42), S_OK);
    assert_int_equal(((get_completed_value_fn)fence_vtbl[8])(context->fence), 42);
    assert_int_equal(((get_node_count_fn)device_vtbl[7])(context->device), 1);
    assert_int_equal(((get_type_fn)list_vtbl[8])(context->list), D3D12_COMMAND_LIST_TYPE_DIRECT);
    context->fence_value = 42;
    assert_no_log_errors();
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_teardown(test_header_slots, vkdml_test_log_teardown),
        cmocka_unit_test_setup_teardown(test_object_vtables, d3d12_context_setup, d3d12_context_teardown),
        cmocka_unit_test_setup_teardown(test_call_by_slot, d3d12_context_setup, d3d12_context_teardown),
    };

    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
