/* Helpers of the embedding tests (embed_utils.h). */

#include "embed_utils.h"

/* ---- A vkdml device on an engine ---- */

void embed_create(struct embed *e, const struct engine_options *options)
{
    embed_create_with_loader(e, options, NULL);
}

void embed_create_with_loader(struct embed *e, const struct engine_options *options,
        PFN_vkGetInstanceProcAddr get_instance_proc_addr)
{
    struct vkdml_vulkan_device_desc desc;
    D3D12_DESCRIPTOR_HEAP_DESC heap_desc;

    memset(e, 0, sizeof(*e));
    engine_create(&e->engine, options);
    engine_device_desc(&e->engine, &desc);
    if (get_instance_proc_addr)
        desc.get_instance_proc_addr = get_instance_proc_addr;
    check_hr(vkdml_create_device_from_vulkan(&desc, DML_CREATE_DEVICE_FLAG_NONE, &IID_IDMLDevice, (void **)&e->dml,
            &IID_ID3D12Device, (void **)&e->d3d12), S_OK);
    check_hr(IDMLDevice_CreateCommandRecorder(e->dml, &IID_IDMLCommandRecorder, (void **)&e->recorder), S_OK);
    memset(&heap_desc, 0, sizeof(heap_desc));
    heap_desc.Type = D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV;
    heap_desc.NumDescriptors = TABLE_DESCRIPTORS * TABLES;
    heap_desc.Flags = D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE;
    check_hr(ID3D12Device_CreateDescriptorHeap(e->d3d12, &heap_desc, &IID_ID3D12DescriptorHeap, (void **)&e->heap),
            S_OK);
    e->increment = ID3D12Device_GetDescriptorHandleIncrementSize(e->d3d12, D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);
}

/* Releases everything vkdml made (each to refcount 0), then the engine destroys its own objects. */
void embed_destroy(struct embed *e)
{
    assert_int_equal(IDMLCommandRecorder_Release(e->recorder), 0);
    assert_int_equal(ID3D12DescriptorHeap_Release(e->heap), 0);
    assert_int_equal(IDMLDevice_Release(e->dml), 0);
    assert_int_equal(ID3D12Device_Release(e->d3d12), 0);
    engine_destroy(&e->engine);
    assert_no_log_errors();
}

void tensor_init(struct tensor *t, DML_TENSOR_DATA_TYPE type, UINT rows, UINT columns)
{
    memset(t, 0, sizeof(*t));
    t->sizes[0] = t->sizes[1] = 1;
    t->sizes[2] = rows;
    t->sizes[3] = columns;
    t->buffer.DataType = type;
    t->buffer.DimensionCount = 4;
    t->buffer.Sizes = t->sizes;
    t->buffer.TotalTensorSizeInBytes = vkdml_calc_buffer_tensor_size(type, 4, t->sizes, NULL);
    t->desc.Type = DML_TENSOR_TYPE_BUFFER;
    t->desc.Desc = &t->buffer;
}

HRESULT create_add(struct embed *e, struct tensor *a, struct tensor *b, struct tensor *out,
        IDMLCompiledOperator **compiled)
{
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC add = {&a->desc, &b->desc, &out->desc};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_ELEMENT_WISE_ADD, &add};
    IDMLOperator *op;
    HRESULT hr;

    *compiled = NULL;
    if (FAILED(hr = IDMLDevice_CreateOperator(e->dml, &desc, &IID_IDMLOperator, (void **)&op)))
        return hr;
    hr = IDMLDevice_CompileOperator(e->dml, op, DML_EXECUTION_FLAG_NONE, &IID_IDMLCompiledOperator, (void **)compiled);
    IDMLOperator_Release(op);
    return hr;
}

IDMLCompiledOperator *compile_gemm(struct embed *e, struct tensor *a, struct tensor *b, struct tensor *out)
{
    DML_GEMM_OPERATOR_DESC gemm;
    DML_OPERATOR_DESC desc = {DML_OPERATOR_GEMM, &gemm};
    IDMLCompiledOperator *compiled;
    IDMLOperator *op;

    memset(&gemm, 0, sizeof(gemm));
    gemm.ATensor = &a->desc;
    gemm.BTensor = &b->desc;
    gemm.OutputTensor = &out->desc;
    gemm.TransA = DML_MATRIX_TRANSFORM_NONE;
    gemm.TransB = DML_MATRIX_TRANSFORM_NONE;
    gemm.Alpha = 1.0f;
    check_hr(IDMLDevice_CreateOperator(e->dml, &desc, &IID_IDMLOperator, (void **)&op), S_OK);
    check_hr(IDMLDevice_CompileOperator(e->dml, op, DML_EXECUTION_FLAG_NONE, &IID_IDMLCompiledOperator,
            (void **)&compiled), S_OK);
    IDMLOperator_Release(op);
    return compiled;
}

IDMLBindingTable *create_table(struct embed *e, void *dispatchable)
{
    D3D12_CPU_DESCRIPTOR_HANDLE cpu = ID3D12DescriptorHeap_GetCPUDescriptorHandleForHeapStart(e->heap);
    D3D12_GPU_DESCRIPTOR_HANDLE gpu = ID3D12DescriptorHeap_GetGPUDescriptorHandleForHeapStart(e->heap);
    DML_BINDING_TABLE_DESC desc;
    IDMLBindingTable *table;

    assert_true(e->next_table < TABLES);
    assert_true(IDMLDispatchable_GetBindingPropertiesByValue(dispatchable).RequiredDescriptorCount
            <= TABLE_DESCRIPTORS);
    cpu.ptr += (SIZE_T)e->next_table * TABLE_DESCRIPTORS * e->increment;
    gpu.ptr += (UINT64)e->next_table * TABLE_DESCRIPTORS * e->increment;
    ++e->next_table;
    desc.Dispatchable = dispatchable;
    desc.CPUDescriptorHandle = cpu;
    desc.GPUDescriptorHandle = gpu;
    desc.SizeInDescriptors = TABLE_DESCRIPTORS;
    check_hr(IDMLDevice_CreateBindingTable(e->dml, &desc, &IID_IDMLBindingTable, (void **)&table), S_OK);
    return table;
}

void buffer_desc_init(struct vkdml_vulkan_buffer_desc *desc, const struct engine_buffer *buffer,
        VkDeviceSize offset, VkDeviceSize size)
{
    memset(desc, 0, sizeof(*desc));
    desc->struct_size = sizeof(*desc);
    desc->buffer = buffer->buffer;
    desc->usage = buffer->usage;
    desc->offset = offset;
    desc->size = size;
    desc->address = buffer->address;
    desc->buffer_size = buffer->size;
}

ID3D12Resource *wrap(struct embed *e, const struct engine_buffer *buffer, VkDeviceSize offset, VkDeviceSize size)
{
    struct vkdml_vulkan_buffer_desc desc;
    ID3D12Resource *resource;

    buffer_desc_init(&desc, buffer, offset, size);
    check_hr(vkdml_wrap_vk_buffer(e->d3d12, &desc, &IID_ID3D12Resource, (void **)&resource), S_OK);
    assert_int_equal(ID3D12Resource_GetGPUVirtualAddress(resource), buffer->address + offset);
    assert_int_equal(ID3D12Resource_GetDesc(resource).Width, size);
    return resource;
}

/* A DEFAULT-heap buffer of the shim on the engine's device (zeroed by a submission on its queue). */
ID3D12Resource *shim_buffer(struct embed *e, UINT64 size)
{
    D3D12_HEAP_PROPERTIES properties = {D3D12_HEAP_TYPE_DEFAULT};
    D3D12_RESOURCE_DESC desc = {D3D12_RESOURCE_DIMENSION_BUFFER, 0, size, 1, 1, 1, DXGI_FORMAT_UNKNOWN, {1, 0},
            D3D12_TEXTURE_LAYOUT_ROW_MAJOR, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS};
    ID3D12Resource *resource;

    check_hr(ID3D12Device_CreateCommittedResource(e->d3d12, &properties, D3D12_HEAP_FLAG_NONE, &desc,
            D3D12_RESOURCE_STATE_UNORDERED_ACCESS, NULL, &IID_ID3D12Resource, (void **)&resource), S_OK);
    return resource;
}

DML_BINDING_DESC buffer_binding(DML_BUFFER_BINDING *storage, ID3D12Resource *buffer, UINT64 size)
{
    DML_BINDING_DESC desc;

    storage->Buffer = buffer;
    storage->Offset = 0;
    storage->SizeInBytes = size;
    desc.Type = buffer ? DML_BINDING_TYPE_BUFFER : DML_BINDING_TYPE_NONE;
    desc.Desc = buffer ? storage : NULL;
    return desc;
}

/* Binds inputs, one output and (made here) a temporary resource; returns the table. */
IDMLBindingTable *bind_operator(struct embed *e, IDMLCompiledOperator *op, ID3D12Resource *const *inputs,
        const UINT64 *input_sizes, UINT input_count, ID3D12Resource *output, UINT64 output_size,
        ID3D12Resource **temporary)
{
    DML_BINDING_PROPERTIES properties = IDMLCompiledOperator_GetBindingPropertiesByValue(op);
    IDMLBindingTable *table = create_table(e, op);
    DML_BUFFER_BINDING storage[5];
    DML_BINDING_DESC bindings[4], desc;
    UINT i;

    assert_int_equal(properties.PersistentResourceSize, 0);
    *temporary = NULL;
    if (properties.TemporaryResourceSize)
    {
        *temporary = shim_buffer(e, properties.TemporaryResourceSize);
        desc = buffer_binding(&storage[4], *temporary, properties.TemporaryResourceSize);
        IDMLBindingTable_BindTemporaryResource(table, &desc);
    }
    for (i = 0; i < input_count; ++i)
        bindings[i] = buffer_binding(&storage[i], inputs[i], input_sizes[i]);
    IDMLBindingTable_BindInputs(table, input_count, bindings);
    desc = buffer_binding(&storage[3], output, output_size);
    IDMLBindingTable_BindOutputs(table, 1, &desc);
    check_hr(IDMLDevice_GetDeviceRemovedReason(e->dml), S_OK);
    return table;
}

/* Initializes the operators in `command_buffer` (DirectML's contract, even when there is nothing to
 * copy); the initializer must live until the command buffer completed. */
IDMLOperatorInitializer *record_initializer(struct embed *e, VkCommandBuffer command_buffer,
        IDMLCompiledOperator **ops, UINT count, ID3D12Resource **temporary)
{
    IDMLOperatorInitializer *initializer;
    DML_BINDING_PROPERTIES properties;
    DML_BUFFER_BINDING storage;
    DML_BINDING_DESC desc;
    IDMLBindingTable *table;

    check_hr(IDMLDevice_CreateOperatorInitializer(e->dml, count, ops, &IID_IDMLOperatorInitializer,
            (void **)&initializer), S_OK);
    table = create_table(e, initializer);
    properties = IDMLOperatorInitializer_GetBindingPropertiesByValue(initializer);
    *temporary = NULL;
    if (properties.TemporaryResourceSize)
    {
        *temporary = shim_buffer(e, properties.TemporaryResourceSize);
        desc = buffer_binding(&storage, *temporary, properties.TemporaryResourceSize);
        IDMLBindingTable_BindTemporaryResource(table, &desc);
    }
    check_hr(vkdml_record_dispatch_vk(e->recorder, command_buffer, initializer, table, NULL), S_OK);
    /* RecordDispatch keeps no references: the table may go now. */
    assert_int_equal(IDMLBindingTable_Release(table), 0);
    return initializer;
}

void release_if(void *object)
{
    if (object)
        assert_int_equal(IUnknown_Release((IUnknown *)object), 0);
}

void compute_barrier(struct embed *e, VkCommandBuffer command_buffer)
{
    engine_barrier(&e->engine, command_buffer, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
            VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT | VK_ACCESS_2_SHADER_STORAGE_READ_BIT,
            VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
            VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
}

static uint32_t random_next(uint32_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 17;
    *state ^= *state << 5;
    return *state;
}

void fill_random(float *values, size_t count, uint32_t seed)
{
    size_t i;

    for (i = 0; i < count; ++i)
        values[i] = (float)(random_next(&seed) % 2001) / 1000.0f - 1.0f;
}

void shim_create(struct shim *shim)
{
    D3D12_COMMAND_QUEUE_DESC queue_desc = {D3D12_COMMAND_LIST_TYPE_DIRECT};

    check_hr(vkdml_create_d3d12_device(NULL, &IID_ID3D12Device, (void **)&shim->device), S_OK);
    check_hr(ID3D12Device_CreateCommandQueue(shim->device, &queue_desc, &IID_ID3D12CommandQueue,
            (void **)&shim->queue), S_OK);
    check_hr(ID3D12Device_CreateCommandAllocator(shim->device, D3D12_COMMAND_LIST_TYPE_DIRECT,
            &IID_ID3D12CommandAllocator, (void **)&shim->allocator), S_OK);
    check_hr(ID3D12Device_CreateCommandList(shim->device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, shim->allocator, NULL,
            &IID_ID3D12GraphicsCommandList, (void **)&shim->list), S_OK);
    check_hr(ID3D12Device_CreateFence(shim->device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence,
            (void **)&shim->fence), S_OK);
}

void shim_execute_and_wait(struct shim *shim, UINT64 value)
{
    ID3D12CommandList *lists[] = {(ID3D12CommandList *)shim->list};

    check_hr(ID3D12GraphicsCommandList_Close(shim->list), S_OK);
    ID3D12CommandQueue_ExecuteCommandLists(shim->queue, 1, lists);
    check_hr(ID3D12CommandQueue_Signal(shim->queue, shim->fence, value), S_OK);
    check_hr(ID3D12Fence_SetEventOnCompletion(shim->fence, value, NULL), S_OK);
}

void shim_destroy(struct shim *shim)
{
    release_if(shim->fence);
    release_if(shim->list);
    release_if(shim->allocator);
    release_if(shim->queue);
    release_if(shim->device);
}

void uav_barrier(ID3D12GraphicsCommandList *list)
{
    D3D12_RESOURCE_BARRIER barrier;

    memset(&barrier, 0, sizeof(barrier));
    barrier.Type = D3D12_RESOURCE_BARRIER_TYPE_UAV;
    ID3D12GraphicsCommandList_ResourceBarrier(list, 1, &barrier);
}

/* A DML device on vkdml's own D3D12 device, through the same helpers (they only need `embed`'s COM part). */
void shim_embed_create(struct embed *e, struct shim *shim)
{
    D3D12_DESCRIPTOR_HEAP_DESC heap_desc = {D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, TABLE_DESCRIPTORS * TABLES,
            D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, 0};
    ID3D12DescriptorHeap *heaps[1];

    memset(e, 0, sizeof(*e));
    shim_create(shim);
    e->d3d12 = shim->device;
    check_hr(DMLCreateDevice(shim->device, DML_CREATE_DEVICE_FLAG_NONE, &IID_IDMLDevice, (void **)&e->dml), S_OK);
    check_hr(ID3D12Device_CreateDescriptorHeap(shim->device, &heap_desc, &IID_ID3D12DescriptorHeap,
            (void **)&e->heap), S_OK);
    e->increment = ID3D12Device_GetDescriptorHandleIncrementSize(shim->device, D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);
    check_hr(IDMLDevice_CreateCommandRecorder(e->dml, &IID_IDMLCommandRecorder, (void **)&e->recorder), S_OK);
    heaps[0] = e->heap;
    ID3D12GraphicsCommandList_SetDescriptorHeaps(shim->list, 1, heaps);
}

void shim_embed_destroy(struct embed *e, struct shim *shim)
{
    release_if(e->recorder);
    release_if(e->heap);
    release_if(e->dml);
    shim_destroy(shim);
    assert_no_log_errors();
}
