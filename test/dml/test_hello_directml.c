/*
 * HelloDirectML in C: the flow of Microsoft's DirectML sample (Samples/HelloDirectML), written
 * against the C view of the headers (COBJMACROS), unchanged but for the adapter (vkdml has no
 * DXGI: D3D12CreateDevice(NULL, ...) takes the default adapter; vkdml_create_d3d12_device on
 * Windows, test_platform.h) and the fence wait (NULL blocks, instead of a Win32 event).
 *
 * D3D12 device → DML device → ELEMENT_WISE_IDENTITY on a 1×2×3×4 FLOAT32 tensor → compile →
 * initialize → bind → record → execute → read back → print. Exits 0 when the output equals the
 * input, 1 otherwise, 77 without a Vulkan device.
 */
#define COBJMACROS
#include <DirectML.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_platform.h"
#include "test_utils.h"

#define CHECK(expr) \
    do { \
        HRESULT hr_ = (expr); \
        if (FAILED(hr_)) \
        { \
            fprintf(stderr, "%s:%d: %s failed, hr %#x\n", __FILE__, __LINE__, #expr, (unsigned int)hr_); \
            exit(1); \
        } \
    } while (0)

static ID3D12Device *d3d12_device;
static ID3D12CommandQueue *command_queue;
static ID3D12CommandAllocator *command_allocator;
static ID3D12GraphicsCommandList *command_list;

static void initialize_direct3d12(void)
{
    D3D12_COMMAND_QUEUE_DESC queue_desc;

    CHECK(test_create_d3d12_device(&IID_ID3D12Device, (void **)&d3d12_device));
    memset(&queue_desc, 0, sizeof(queue_desc));
    queue_desc.Type = D3D12_COMMAND_LIST_TYPE_DIRECT;
    queue_desc.Flags = D3D12_COMMAND_QUEUE_FLAG_NONE;
    CHECK(ID3D12Device_CreateCommandQueue(d3d12_device, &queue_desc, &IID_ID3D12CommandQueue,
            (void **)&command_queue));
    CHECK(ID3D12Device_CreateCommandAllocator(d3d12_device, D3D12_COMMAND_LIST_TYPE_DIRECT,
            &IID_ID3D12CommandAllocator, (void **)&command_allocator));
    CHECK(ID3D12Device_CreateCommandList(d3d12_device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, command_allocator, NULL,
            &IID_ID3D12GraphicsCommandList, (void **)&command_list));
}

static void close_execute_reset_wait(void)
{
    ID3D12CommandList *lists[1];
    ID3D12Fence *fence;

    CHECK(ID3D12GraphicsCommandList_Close(command_list));
    lists[0] = (ID3D12CommandList *)command_list;
    ID3D12CommandQueue_ExecuteCommandLists(command_queue, 1, lists);

    CHECK(ID3D12Device_CreateFence(d3d12_device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&fence));
    CHECK(ID3D12CommandQueue_Signal(command_queue, fence, 1));
    /* NULL event: block until the fence reaches 1. */
    CHECK(ID3D12Fence_SetEventOnCompletion(fence, 1, NULL));
    ID3D12Fence_Release(fence);

    CHECK(ID3D12CommandAllocator_Reset(command_allocator));
    CHECK(ID3D12GraphicsCommandList_Reset(command_list, command_allocator, NULL));
}

static D3D12_HEAP_PROPERTIES heap_properties(D3D12_HEAP_TYPE type)
{
    D3D12_HEAP_PROPERTIES properties;

    memset(&properties, 0, sizeof(properties));
    properties.Type = type;
    properties.CreationNodeMask = 1;
    properties.VisibleNodeMask = 1;
    return properties;
}

static D3D12_RESOURCE_DESC buffer_desc(UINT64 width, D3D12_RESOURCE_FLAGS flags)
{
    D3D12_RESOURCE_DESC desc;

    memset(&desc, 0, sizeof(desc));
    desc.Dimension = D3D12_RESOURCE_DIMENSION_BUFFER;
    desc.Width = width;
    desc.Height = 1;
    desc.DepthOrArraySize = 1;
    desc.MipLevels = 1;
    desc.Format = DXGI_FORMAT_UNKNOWN;
    desc.SampleDesc.Count = 1;
    desc.Layout = D3D12_TEXTURE_LAYOUT_ROW_MAJOR;
    desc.Flags = flags;
    return desc;
}

static ID3D12Resource *create_buffer(D3D12_HEAP_TYPE type, UINT64 width, D3D12_RESOURCE_FLAGS flags,
        D3D12_RESOURCE_STATES state)
{
    D3D12_HEAP_PROPERTIES properties = heap_properties(type);
    D3D12_RESOURCE_DESC desc = buffer_desc(width, flags);
    ID3D12Resource *resource;

    CHECK(ID3D12Device_CreateCommittedResource(d3d12_device, &properties, D3D12_HEAP_FLAG_NONE, &desc, state, NULL,
            &IID_ID3D12Resource, (void **)&resource));
    return resource;
}

static void transition(ID3D12Resource *resource, D3D12_RESOURCE_STATES before, D3D12_RESOURCE_STATES after)
{
    D3D12_RESOURCE_BARRIER barrier;

    memset(&barrier, 0, sizeof(barrier));
    barrier.Type = D3D12_RESOURCE_BARRIER_TYPE_TRANSITION;
    barrier.Transition.pResource = resource;
    barrier.Transition.Subresource = D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES;
    barrier.Transition.StateBefore = before;
    barrier.Transition.StateAfter = after;
    ID3D12GraphicsCommandList_ResourceBarrier(command_list, 1, &barrier);
}

int main(void)
{
    static const UINT tensor_sizes[4] = {1, 2, 3, 4};
    enum {tensor_element_count = 1 * 2 * 3 * 4};
    ID3D12Resource *temporary_buffer = NULL, *persistent_buffer = NULL;
    ID3D12Resource *upload_buffer, *input_buffer, *output_buffer, *readback_buffer;
    DML_BINDING_PROPERTIES initialize_properties, execute_properties;
    IDMLOperatorInitializer *operator_initializer;
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity_desc;
    DML_BUFFER_BINDING input_binding, output_binding, temporary_binding, persistent_binding;
    DML_BINDING_DESC input_desc, output_desc, temporary_desc, persistent_desc;
    IDMLCompiledOperator *compiled_operator;
    DML_BUFFER_TENSOR_DESC buffer_tensor_desc;
    D3D12_DESCRIPTOR_HEAP_DESC heap_desc;
    DML_BINDING_TABLE_DESC table_desc;
    ID3D12DescriptorHeap *descriptor_heap;
    IDMLCommandRecorder *command_recorder;
    const struct vkdml_test_log_counts *log;
    ID3D12DescriptorHeap *heaps[1];
    IDMLBindingTable *binding_table;
    DML_OPERATOR_DESC operator_desc;
    DML_TENSOR_DESC tensor_desc;
    UINT64 tensor_buffer_size, temporary_size, persistent_size;
    IDMLOperator *dml_operator;
    D3D12_RANGE range = {0, 0};
    UINT descriptor_count, i;
    IDMLDevice *dml_device;
    float *mapped, *values;
    int ok = 1;
    ULONG refs;

    vkdml_test_init_logging();
    vkdml_test_require_device();

    initialize_direct3d12();
    /* A debug build of the sample uses DML_CREATE_DEVICE_FLAG_DEBUG. */
    CHECK(DMLCreateDevice(d3d12_device, DML_CREATE_DEVICE_FLAG_DEBUG, &IID_IDMLDevice, (void **)&dml_device));

    /* The tensor. */
    memset(&buffer_tensor_desc, 0, sizeof(buffer_tensor_desc));
    buffer_tensor_desc.DataType = DML_TENSOR_DATA_TYPE_FLOAT32;
    buffer_tensor_desc.Flags = DML_TENSOR_FLAG_NONE;
    buffer_tensor_desc.DimensionCount = 4;
    buffer_tensor_desc.Sizes = tensor_sizes;
    buffer_tensor_desc.Strides = NULL;
    buffer_tensor_desc.TotalTensorSizeInBytes = vkdml_calc_buffer_tensor_size(buffer_tensor_desc.DataType,
            buffer_tensor_desc.DimensionCount, buffer_tensor_desc.Sizes, buffer_tensor_desc.Strides);
    tensor_buffer_size = buffer_tensor_desc.TotalTensorSizeInBytes;
    tensor_desc.Type = DML_TENSOR_TYPE_BUFFER;
    tensor_desc.Desc = &buffer_tensor_desc;

    /* The operator: identity, in place of the tensor's data. */
    identity_desc.InputTensor = &tensor_desc;
    identity_desc.OutputTensor = &tensor_desc;
    identity_desc.ScaleBias = NULL;
    operator_desc.Type = DML_OPERATOR_ELEMENT_WISE_IDENTITY;
    operator_desc.Desc = &identity_desc;
    CHECK(IDMLDevice_CreateOperator(dml_device, &operator_desc, &IID_IDMLOperator, (void **)&dml_operator));
    CHECK(IDMLDevice_CompileOperator(dml_device, dml_operator, DML_EXECUTION_FLAG_NONE, &IID_IDMLCompiledOperator,
            (void **)&compiled_operator));
    IDMLOperator_Release(dml_operator);

    CHECK(IDMLDevice_CreateOperatorInitializer(dml_device, 1, &compiled_operator, &IID_IDMLOperatorInitializer,
            (void **)&operator_initializer));

    /* Binding properties of both: the descriptor heap must fit the larger. */
    initialize_properties = IDMLOperatorInitializer_GetBindingPropertiesByValue(operator_initializer);
    execute_properties = IDMLCompiledOperator_GetBindingPropertiesByValue(compiled_operator);
    descriptor_count = initialize_properties.RequiredDescriptorCount > execute_properties.RequiredDescriptorCount
            ? initialize_properties.RequiredDescriptorCount : execute_properties.RequiredDescriptorCount;
    if (!descriptor_count)
        descriptor_count = 1;

    memset(&heap_desc, 0, sizeof(heap_desc));
    heap_desc.Type = D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV;
    heap_desc.NumDescriptors = descriptor_count;
    heap_desc.Flags = D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE;
    CHECK(ID3D12Device_CreateDescriptorHeap(d3d12_device, &heap_desc, &IID_ID3D12DescriptorHeap,
            (void **)&descriptor_heap));
    heaps[0] = descriptor_heap;
    ID3D12GraphicsCommandList_SetDescriptorHeaps(command_list, 1, heaps);

    table_desc.Dispatchable = (IDMLDispatchable *)operator_initializer;
    table_desc.CPUDescriptorHandle = ID3D12DescriptorHeap_GetCPUDescriptorHandleForHeapStart(descriptor_heap);
    table_desc.GPUDescriptorHandle = ID3D12DescriptorHeap_GetGPUDescriptorHandleForHeapStart(descriptor_heap);
    table_desc.SizeInDescriptors = descriptor_count;
    CHECK(IDMLDevice_CreateBindingTable(dml_device, &table_desc, &IID_IDMLBindingTable, (void **)&binding_table));

    /* Temporary and persistent resources, when the operator needs them. */
    temporary_size = initialize_properties.TemporaryResourceSize > execute_properties.TemporaryResourceSize
            ? initialize_properties.TemporaryResourceSize : execute_properties.TemporaryResourceSize;
    persistent_size = execute_properties.PersistentResourceSize;
    if (temporary_size)
    {
        temporary_buffer = create_buffer(D3D12_HEAP_TYPE_DEFAULT, temporary_size,
                D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COMMON);
        if (initialize_properties.TemporaryResourceSize)
        {
            temporary_binding.Buffer = temporary_buffer;
            temporary_binding.Offset = 0;
            temporary_binding.SizeInBytes = temporary_size;
            temporary_desc.Type = DML_BINDING_TYPE_BUFFER;
            temporary_desc.Desc = &temporary_binding;
            IDMLBindingTable_BindTemporaryResource(binding_table, &temporary_desc);
        }
    }
    if (persistent_size)
    {
        persistent_buffer = create_buffer(D3D12_HEAP_TYPE_DEFAULT, persistent_size,
                D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COMMON);
        /* The persistent resource is the initializer's output. */
        persistent_binding.Buffer = persistent_buffer;
        persistent_binding.Offset = 0;
        persistent_binding.SizeInBytes = persistent_size;
        persistent_desc.Type = DML_BINDING_TYPE_BUFFER;
        persistent_desc.Desc = &persistent_binding;
        IDMLBindingTable_BindOutputs(binding_table, 1, &persistent_desc);
    }

    /* Initialize. */
    CHECK(IDMLDevice_CreateCommandRecorder(dml_device, &IID_IDMLCommandRecorder, (void **)&command_recorder));
    IDMLCommandRecorder_RecordDispatch(command_recorder, (ID3D12CommandList *)command_list,
            (IDMLDispatchable *)operator_initializer, binding_table);
    close_execute_reset_wait();

    /* Bind and execute. */
    ID3D12GraphicsCommandList_SetDescriptorHeaps(command_list, 1, heaps);
    table_desc.Dispatchable = (IDMLDispatchable *)compiled_operator;
    CHECK(IDMLBindingTable_Reset(binding_table, &table_desc));
    if (execute_properties.TemporaryResourceSize)
    {
        temporary_binding.Buffer = temporary_buffer;
        temporary_binding.Offset = 0;
        temporary_binding.SizeInBytes = temporary_size;
        temporary_desc.Type = DML_BINDING_TYPE_BUFFER;
        temporary_desc.Desc = &temporary_binding;
        IDMLBindingTable_BindTemporaryResource(binding_table, &temporary_desc);
    }
    if (persistent_size)
        IDMLBindingTable_BindPersistentResource(binding_table, &persistent_desc);

    /* The input: uploaded, copied into a DEFAULT buffer, made UNORDERED_ACCESS. */
    upload_buffer = create_buffer(D3D12_HEAP_TYPE_UPLOAD, tensor_buffer_size, D3D12_RESOURCE_FLAG_NONE,
            D3D12_RESOURCE_STATE_GENERIC_READ);
    input_buffer = create_buffer(D3D12_HEAP_TYPE_DEFAULT, tensor_buffer_size,
            D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_DEST);
    CHECK(ID3D12Resource_Map(upload_buffer, 0, &range, (void **)&values));
    for (i = 0; i < tensor_element_count; ++i)
        values[i] = 1.618f * (float)(i + 1);
    ID3D12Resource_Unmap(upload_buffer, 0, NULL);
    ID3D12GraphicsCommandList_CopyBufferRegion(command_list, input_buffer, 0, upload_buffer, 0, tensor_buffer_size);
    transition(input_buffer, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);

    input_binding.Buffer = input_buffer;
    input_binding.Offset = 0;
    input_binding.SizeInBytes = tensor_buffer_size;
    input_desc.Type = DML_BINDING_TYPE_BUFFER;
    input_desc.Desc = &input_binding;
    IDMLBindingTable_BindInputs(binding_table, 1, &input_desc);

    output_buffer = create_buffer(D3D12_HEAP_TYPE_DEFAULT, tensor_buffer_size,
            D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    output_binding.Buffer = output_buffer;
    output_binding.Offset = 0;
    output_binding.SizeInBytes = tensor_buffer_size;
    output_desc.Type = DML_BINDING_TYPE_BUFFER;
    output_desc.Desc = &output_binding;
    IDMLBindingTable_BindOutputs(binding_table, 1, &output_desc);

    IDMLCommandRecorder_RecordDispatch(command_recorder, (ID3D12CommandList *)command_list,
            (IDMLDispatchable *)compiled_operator, binding_table);
    close_execute_reset_wait();

    /* Read back. */
    readback_buffer = create_buffer(D3D12_HEAP_TYPE_READBACK, tensor_buffer_size, D3D12_RESOURCE_FLAG_NONE,
            D3D12_RESOURCE_STATE_COPY_DEST);
    transition(output_buffer, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE);
    ID3D12GraphicsCommandList_CopyResource(command_list, readback_buffer, output_buffer);
    close_execute_reset_wait();

    range.Begin = 0;
    range.End = tensor_buffer_size;
    CHECK(ID3D12Resource_Map(readback_buffer, 0, &range, (void **)&mapped));
    printf("output tensor: ");
    for (i = 0; i < tensor_element_count; ++i)
    {
        printf("%s%.4f", i ? " " : "", mapped[i]);
        if (mapped[i] != 1.618f * (float)(i + 1))
            ok = 0;
    }
    printf("\n");
    range.End = 0;
    ID3D12Resource_Unmap(readback_buffer, 0, &range);

    if (IDMLDevice_GetDeviceRemovedReason(dml_device) != S_OK)
    {
        fprintf(stderr, "the DML device was removed\n");
        ok = 0;
    }

    /* Everything released, the devices last, each to zero. */
    ID3D12Resource_Release(readback_buffer);
    ID3D12Resource_Release(output_buffer);
    ID3D12Resource_Release(input_buffer);
    ID3D12Resource_Release(upload_buffer);
    if (persistent_buffer)
        ID3D12Resource_Release(persistent_buffer);
    if (temporary_buffer)
        ID3D12Resource_Release(temporary_buffer);
    IDMLCommandRecorder_Release(command_recorder);
    IDMLBindingTable_Release(binding_table);
    ID3D12DescriptorHeap_Release(descriptor_heap);
    IDMLOperatorInitializer_Release(operator_initializer);
    IDMLCompiledOperator_Release(compiled_operator);
    if ((refs = IDMLDevice_Release(dml_device)))
    {
        fprintf(stderr, "the DML device's final Release returned %u\n", (unsigned int)refs);
        ok = 0;
    }
    ID3D12GraphicsCommandList_Release(command_list);
    ID3D12CommandAllocator_Release(command_allocator);
    ID3D12CommandQueue_Release(command_queue);
    if ((refs = ID3D12Device_Release(d3d12_device)))
    {
        fprintf(stderr, "the D3D12 device's final Release returned %u\n", (unsigned int)refs);
        ok = 0;
    }

    log = vkdml_test_log_counts();
    if (log->errors || log->validation)
    {
        fprintf(stderr, "%u error(s), %u validation message(s) logged; last: %s\n", log->errors, log->validation,
                log->last_error);
        ok = 0;
    }
    printf("%s\n", ok ? "OK" : "MISMATCH");
    return ok ? 0 : 1;
}
