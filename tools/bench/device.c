/*
 * vkdml-bench's D3D12 device of vkdml's shim and the plumbing on it: queue, lists, buffers,
 * binding tables, operator compilation and initialization.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- D3D12 plumbing ---- */

void execute_and_wait(struct bench *b, ID3D12GraphicsCommandList *list)
{
    ID3D12CommandList *lists[] = {(ID3D12CommandList *)list};

    ID3D12CommandQueue_ExecuteCommandLists(b->queue, 1, lists);
    CHECK(ID3D12CommandQueue_Signal(b->queue, b->fence, ++b->fence_value));
    CHECK(ID3D12Fence_SetEventOnCompletion(b->fence, b->fence_value, NULL));
}

struct list_execution
{
    struct bench *b;
    ID3D12GraphicsCommandList *list;
};

static void execute_list_callback(void *context)
{
    struct list_execution *execution = context;

    execute_and_wait(execution->b, execution->list);
}

void warm_up_list(struct bench *b, ID3D12GraphicsCommandList *list, unsigned int batch)
{
    struct list_execution execution = {b, list};

    warm_up(b, batch, execute_list_callback, &execution);
}

/* Opens a closed list for recording (the GPU is idle: every execution is waited for). */
void begin_list(struct bench *b, ID3D12CommandAllocator *allocator, ID3D12GraphicsCommandList *list)
{
    ID3D12DescriptorHeap *heaps[] = {b->heap};

    CHECK(ID3D12CommandAllocator_Reset(allocator));
    CHECK(ID3D12GraphicsCommandList_Reset(list, allocator, NULL));
    ID3D12GraphicsCommandList_SetDescriptorHeaps(list, 1, heaps);
}

static void begin_setup(struct bench *b)
{
    begin_list(b, b->setup_allocator, b->setup_list);
}

static void finish_setup(struct bench *b)
{
    CHECK(ID3D12GraphicsCommandList_Close(b->setup_list));
    execute_and_wait(b, b->setup_list);
}

/* NULL on failure (out of memory, most likely). */
ID3D12Resource *create_buffer(struct bench *b, D3D12_HEAP_TYPE type, UINT64 size, D3D12_RESOURCE_STATES state)
{
    ID3D12Resource *buffer;

    /* Rounded to 4 bytes: DirectML binds buffers in 32-bit units. */
    if (FAILED(tool_create_buffer(b->device, type, (size + 3) & ~(UINT64)3, state, &buffer)))
        return NULL;
    return buffer;
}

/* A DEFAULT buffer (kept in UNORDERED_ACCESS) holding `count` values of `type`; NULL on failure. */
ID3D12Resource *upload_buffer(struct bench *b, const float *values, size_t count, DML_TENSOR_DATA_TYPE type)
{
    UINT64 size = (UINT64)count * element_size(type);
    ID3D12Resource *buffer, *upload;
    D3D12_RANGE range = {0, 0};
    void *mapped;

    if (!(buffer = create_buffer(b, D3D12_HEAP_TYPE_DEFAULT, size, D3D12_RESOURCE_STATE_UNORDERED_ACCESS)))
        return NULL;
    if (!(upload = create_buffer(b, D3D12_HEAP_TYPE_UPLOAD, size, D3D12_RESOURCE_STATE_GENERIC_READ)))
    {
        ID3D12Resource_Release(buffer);
        return NULL;
    }
    CHECK(ID3D12Resource_Map(upload, 0, &range, &mapped));
    store_values(mapped, values, count, type);
    ID3D12Resource_Unmap(upload, 0, NULL);
    begin_setup(b);
    tool_transition(b->setup_list, buffer, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_DEST);
    ID3D12GraphicsCommandList_CopyBufferRegion(b->setup_list, buffer, 0, upload, 0, size);
    tool_transition(b->setup_list, buffer, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    finish_setup(b);
    ID3D12Resource_Release(upload);
    return buffer;
}

/* A mapped READBACK copy of `buffer`'s first `size` bytes; NULL on failure. Unmap and release it. */
ID3D12Resource *read_back(struct bench *b, ID3D12Resource *buffer, UINT64 size, void **mapped)
{
    ID3D12Resource *readback;
    D3D12_RANGE range = {0, (SIZE_T)size};

    if (!(readback = create_buffer(b, D3D12_HEAP_TYPE_READBACK, size, D3D12_RESOURCE_STATE_COPY_DEST)))
        return NULL;
    begin_setup(b);
    tool_transition(b->setup_list, buffer, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE);
    ID3D12GraphicsCommandList_CopyBufferRegion(b->setup_list, readback, 0, buffer, 0, size);
    tool_transition(b->setup_list, buffer, D3D12_RESOURCE_STATE_COPY_SOURCE, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    finish_setup(b);
    CHECK(ID3D12Resource_Map(readback, 0, &range, mapped));
    return readback;
}

void unmap_and_release(ID3D12Resource *readback)
{
    D3D12_RANGE range = {0, 0};

    ID3D12Resource_Unmap(readback, 0, &range);
    ID3D12Resource_Release(readback);
}

HRESULT create_table(struct bench *b, void *dispatchable, UINT region, IDMLBindingTable **table)
{
    D3D12_CPU_DESCRIPTOR_HANDLE cpu = ID3D12DescriptorHeap_GetCPUDescriptorHandleForHeapStart(b->heap);
    D3D12_GPU_DESCRIPTOR_HANDLE gpu = ID3D12DescriptorHeap_GetGPUDescriptorHandleForHeapStart(b->heap);
    DML_BINDING_PROPERTIES properties = IDMLDispatchable_GetBindingPropertiesByValue(dispatchable);
    DML_BINDING_TABLE_DESC desc;

    if (properties.RequiredDescriptorCount > TABLE_DESCRIPTORS)
        return E_OUTOFMEMORY;
    cpu.ptr += (SIZE_T)region * TABLE_DESCRIPTORS * b->increment;
    gpu.ptr += (UINT64)region * TABLE_DESCRIPTORS * b->increment;
    desc.Dispatchable = dispatchable;
    desc.CPUDescriptorHandle = cpu;
    desc.GPUDescriptorHandle = gpu;
    desc.SizeInDescriptors = TABLE_DESCRIPTORS;
    return IDMLDevice_CreateBindingTable(b->dml, &desc, &IID_IDMLBindingTable, (void **)table);
}

/* A DEFAULT buffer for a temporary or persistent resource of `size` bytes (NULL when 0). */
HRESULT create_optional_buffer(struct bench *b, UINT64 size, ID3D12Resource **buffer)
{
    *buffer = NULL;
    if (size && !(*buffer = create_buffer(b, D3D12_HEAP_TYPE_DEFAULT, size, D3D12_RESOURCE_STATE_UNORDERED_ACCESS)))
        return E_OUTOFMEMORY;
    return S_OK;
}

/* Runs an initializer for `op` (DirectML requires one before execution); returns its persistent
 * resource, NULL when it needs none. */
HRESULT initialize_operator(struct bench *b, IDMLCompiledOperator *op, ID3D12Resource **persistent)
{
    DML_BINDING_PROPERTIES op_properties = IDMLCompiledOperator_GetBindingPropertiesByValue(op), properties;
    IDMLOperatorInitializer *initializer;
    ID3D12Resource *temporary = NULL;
    DML_BUFFER_BINDING storage[3];
    DML_BINDING_DESC input, output, desc;
    IDMLBindingTable *table;
    HRESULT hr;

    if (FAILED(hr = create_optional_buffer(b, op_properties.PersistentResourceSize, persistent)))
        return hr;
    if (FAILED(hr = IDMLDevice_CreateOperatorInitializer(b->dml, 1, &op, &IID_IDMLOperatorInitializer,
            (void **)&initializer)))
        return hr;
    properties = IDMLOperatorInitializer_GetBindingPropertiesByValue(initializer);
    if (SUCCEEDED(hr = create_optional_buffer(b, properties.TemporaryResourceSize, &temporary))
            && SUCCEEDED(hr = create_table(b, initializer, 0, &table)))
    {
        if (temporary)
        {
            desc = tool_buffer_binding(&storage[2], temporary, properties.TemporaryResourceSize);
            IDMLBindingTable_BindTemporaryResource(table, &desc);
        }
        /* No OWNED_BY_DML inputs: one NONE for the target. */
        input = tool_buffer_binding(&storage[0], NULL, 0);
        output = tool_buffer_binding(&storage[1], *persistent, op_properties.PersistentResourceSize);
        IDMLBindingTable_BindInputs(table, 1, &input);
        IDMLBindingTable_BindOutputs(table, 1, &output);
        begin_setup(b);
        IDMLCommandRecorder_RecordDispatch(b->recorder, (ID3D12CommandList *)b->setup_list,
                (IDMLDispatchable *)initializer, table);
        finish_setup(b);
        IDMLBindingTable_Release(table);
        hr = IDMLDevice_GetDeviceRemovedReason(b->dml);
    }
    if (temporary)
        ID3D12Resource_Release(temporary);
    IDMLOperatorInitializer_Release(initializer);
    return hr;
}

/* CreateOperator + CompileOperator. */
HRESULT compile_workload(struct bench *b, struct workload *w, IDMLCompiledOperator **compiled)
{
    DML_OPERATOR_DESC desc = {w->op->type, &w->desc};
    IDMLOperator *op;
    HRESULT hr;

    if (FAILED(hr = IDMLDevice_CreateOperator(b->dml, &desc, &IID_IDMLOperator, (void **)&op)))
        return hr;
    hr = IDMLDevice_CompileOperator(b->dml, op, DML_EXECUTION_FLAG_NONE, &IID_IDMLCompiledOperator,
            (void **)compiled);
    IDMLOperator_Release(op);
    return hr;
}

bool type_supported(struct bench *b, DML_TENSOR_DATA_TYPE type)
{
    DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT query = {type};
    DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT data = {FALSE};

    return SUCCEEDED(IDMLDevice_CheckFeatureSupport(b->dml, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof(query),
            &query, sizeof(data), &data)) && data.IsSupported;
}
/* ---- Device ---- */

/* 0, 1 when no adapter matches, 77 when there is no Vulkan device at all (meson's "skipped"). */
int create_device(struct bench *b)
{
    D3D12_COMMAND_QUEUE_DESC queue_desc = {D3D12_COMMAND_LIST_TYPE_DIRECT};
    D3D12_DESCRIPTOR_HEAP_DESC heap_desc = {D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV,
            HEAP_REGIONS * TABLE_DESCRIPTORS, D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, 0};
    HRESULT hr;

    if (vkdml_get_adapter_count() <= 0)
    {
        fprintf(stderr, "vkdml-bench: no Vulkan device\n");
        return 77;
    }
    if ((b->adapter_index = vkdml_select_adapter(b->selector)) < 0
            || vkdml_get_adapter_info((uint32_t)b->adapter_index, &b->adapter, sizeof(b->adapter)))
    {
        fprintf(stderr, "vkdml-bench: no usable Vulkan device%s%s\n", b->selector ? " matches " : "",
                b->selector ? b->selector : "");
        return 1;
    }
    if (FAILED(hr = vkdml_create_d3d12_device(b->selector, &IID_ID3D12Device, (void **)&b->device)))
        fatal_hr(hr, "vkdml_create_d3d12_device", __LINE__);
    CHECK(ID3D12Device_CreateCommandQueue(b->device, &queue_desc, &IID_ID3D12CommandQueue, (void **)&b->queue));
    CHECK(ID3D12Device_CreateFence(b->device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&b->fence));
    CHECK(ID3D12Device_CreateDescriptorHeap(b->device, &heap_desc, &IID_ID3D12DescriptorHeap, (void **)&b->heap));
    b->increment = ID3D12Device_GetDescriptorHandleIncrementSize(b->device, D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);
    CHECK(ID3D12Device_CreateCommandAllocator(b->device, D3D12_COMMAND_LIST_TYPE_DIRECT, &IID_ID3D12CommandAllocator,
            (void **)&b->setup_allocator));
    CHECK(ID3D12Device_CreateCommandAllocator(b->device, D3D12_COMMAND_LIST_TYPE_DIRECT, &IID_ID3D12CommandAllocator,
            (void **)&b->timed_allocator));
    CHECK(ID3D12Device_CreateCommandList(b->device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, b->setup_allocator, NULL,
            &IID_ID3D12GraphicsCommandList, (void **)&b->setup_list));
    CHECK(ID3D12Device_CreateCommandList(b->device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, b->timed_allocator, NULL,
            &IID_ID3D12GraphicsCommandList, (void **)&b->timed_list));
    CHECK(ID3D12GraphicsCommandList_Close(b->setup_list));
    CHECK(ID3D12GraphicsCommandList_Close(b->timed_list));
    CHECK(DMLCreateDevice(b->device, DML_CREATE_DEVICE_FLAG_NONE, &IID_IDMLDevice, (void **)&b->dml));
    CHECK(IDMLDevice_CreateCommandRecorder(b->dml, &IID_IDMLCommandRecorder, (void **)&b->recorder));
    return 0;
}

/* Everything to zero references; false when something leaked one. */
bool destroy_device(struct bench *b)
{
    bool ok;

    ID3D12GraphicsCommandList_Release(b->timed_list);
    ID3D12GraphicsCommandList_Release(b->setup_list);
    ID3D12CommandAllocator_Release(b->timed_allocator);
    ID3D12CommandAllocator_Release(b->setup_allocator);
    IDMLCommandRecorder_Release(b->recorder);
    ok = !IDMLDevice_Release(b->dml);
    ID3D12DescriptorHeap_Release(b->heap);
    ID3D12Fence_Release(b->fence);
    ID3D12CommandQueue_Release(b->queue);
    ok &= !ID3D12Device_Release(b->device);
    if (!ok)
        fprintf(stderr, "vkdml-bench: a device's final Release left references\n");
    return ok;
}
