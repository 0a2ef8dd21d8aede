/* The operator-test harness (dml_test_utils.h). */
#define INITGUID
#include "dml_test_utils.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Context ---- */

static int create_d3d12_objects(struct test_context *d3d)
{
    D3D12_COMMAND_QUEUE_DESC queue_desc;

    memset(&queue_desc, 0, sizeof(queue_desc));
    queue_desc.Type = D3D12_COMMAND_LIST_TYPE_DIRECT;
    if (vkdml_create_d3d12_device(NULL, &IID_ID3D12Device, (void **)&d3d->device) < 0)
        return -1;
    if (FAILED(ID3D12Device_CreateCommandQueue(d3d->device, &queue_desc, &IID_ID3D12CommandQueue,
            (void **)&d3d->queue))
            || FAILED(ID3D12Device_CreateCommandAllocator(d3d->device, D3D12_COMMAND_LIST_TYPE_DIRECT,
            &IID_ID3D12CommandAllocator, (void **)&d3d->allocator))
            || FAILED(ID3D12Device_CreateCommandList(d3d->device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, d3d->allocator,
            NULL, &IID_ID3D12GraphicsCommandList, (void **)&d3d->list))
            || FAILED(ID3D12Device_CreateFence(d3d->device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence,
            (void **)&d3d->fence)))
        return -1;
    return 0;
}

static HRESULT create_dml_objects(struct dml_test_context *context)
{
    HRESULT hr;

    if (FAILED(hr = DMLCreateDevice(context->d3d.device, DML_CREATE_DEVICE_FLAG_NONE, &IID_IDMLDevice,
            (void **)&context->dml)))
        return hr;
    return IDMLDevice_CreateCommandRecorder(context->dml, &IID_IDMLCommandRecorder, (void **)&context->recorder);
}

int dml_test_setup(void **state)
{
    struct dml_test_context *context;

    vkdml_test_log_reset();
    if (!(context = calloc(1, sizeof(*context))))
        return -1;
    *state = context;
    if (create_d3d12_objects(&context->d3d) || FAILED(create_dml_objects(context)))
    {
        fprintf(stderr, "Creating the D3D12 or DML objects failed.\n");
        return -1;
    }
    context->heap = create_descriptor_heap(context->d3d.device, DML_TEST_DESCRIPTORS, true);
    context->increment = ID3D12Device_GetDescriptorHandleIncrementSize(context->d3d.device,
            D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);
    return vkdml_test_log_teardown(state);
}

static int release_last_of(void *object, const char *name)
{
    ULONG count;

    if (object && (count = release_unknown(object)))
    {
        fprintf(stderr, "Final Release of %s returned %u, expected 0.\n", name, (unsigned int)count);
        return -1;
    }
    return 0;
}

static const char *const knobs[] = {"VKDML_GEMM_KERNEL", "VKDML_GEMM_TUNE", "VKDML_CONV_KERNEL", "VKDML_CONV_TUNE",
        "VKDML_GRAPH_OPT"};

int dml_test_teardown(void **state)
{
    struct dml_test_context *context = *state;
    struct test_context *d3d;
    unsigned int i;
    int ret = 0;

    if (!context)
        return -1;
    d3d = &context->d3d;
    /* Whatever a failed test left on the queue finishes before anything is released. */
    if (d3d->queue && d3d->fence)
    {
        ID3D12CommandQueue_Signal(d3d->queue, d3d->fence, ++d3d->fence_value);
        ID3D12Fence_SetEventOnCompletion(d3d->fence, d3d->fence_value, NULL);
    }
    ret |= release_last_of(context->recorder, "recorder");
    ret |= release_last_of(context->heap, "descriptor heap");
    /* The DML device holds the D3D12 device: it goes first. */
    ret |= release_last_of(context->dml, "DML device");
    ret |= release_last_of(d3d->list, "list");
    ret |= release_last_of(d3d->allocator, "allocator");
    ret |= release_last_of(d3d->fence, "fence");
    ret |= release_last_of(d3d->queue, "queue");
    ret |= release_last_of(d3d->device, "device");
    free(context);
    *state = NULL;
    for (i = 0; i < ARRAY_SIZE(knobs); ++i)
        dml_test_set_env(knobs[i], NULL);
    if (vkdml_test_log_teardown(state))
        ret = -1;
    vkdml_test_log_reset();
    return ret;
}

bool dml_test_data_type_supported(struct dml_test_context *context, DML_TENSOR_DATA_TYPE type)
{
    DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT query = {type};
    DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT support = {FALSE};

    check_hr(IDMLDevice_CheckFeatureSupport(context->dml, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof(query),
            &query, sizeof(support), &support), S_OK);
    return support.IsSupported;
}

/* ---- Tensors ---- */

const DML_TENSOR_DATA_TYPE dml_test_all_types[11] =
{
    DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_UINT32,
    DML_TENSOR_DATA_TYPE_UINT16, DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_INT32,
    DML_TENSOR_DATA_TYPE_INT16, DML_TENSOR_DATA_TYPE_INT8, DML_TENSOR_DATA_TYPE_FLOAT64,
    DML_TENSOR_DATA_TYPE_UINT64, DML_TENSOR_DATA_TYPE_INT64,
};

const DML_TENSOR_DATA_TYPE dml_test_index_types[4] =
{
    DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_INT64,
    DML_TENSOR_DATA_TYPE_UINT64,
};

unsigned int dml_test_element_size(DML_TENSOR_DATA_TYPE type)
{
    switch (type)
    {
        case DML_TENSOR_DATA_TYPE_FLOAT16:
        case DML_TENSOR_DATA_TYPE_UINT16:
        case DML_TENSOR_DATA_TYPE_INT16:
            return 2;
        case DML_TENSOR_DATA_TYPE_UINT8:
        case DML_TENSOR_DATA_TYPE_INT8:
            return 1;
        case DML_TENSOR_DATA_TYPE_FLOAT64:
        case DML_TENSOR_DATA_TYPE_UINT64:
        case DML_TENSOR_DATA_TYPE_INT64:
            return 8;
        default:
            return 4;
    }
}

const char *dml_test_type_name(DML_TENSOR_DATA_TYPE type)
{
    static const char *const names[] =
    {
        "UNKNOWN", "FLOAT32", "FLOAT16", "UINT32", "UINT16", "UINT8", "INT32", "INT16", "INT8", "FLOAT64",
        "UINT64", "INT64",
    };

    return (unsigned int)type < ARRAY_SIZE(names) ? names[type] : "?";
}

void dml_test_tensor_init(struct dml_test_tensor *tensor, DML_TENSOR_DATA_TYPE type, UINT rank, const UINT *sizes,
        const UINT *strides)
{
    memset(tensor, 0, sizeof(*tensor));
    assert_true(rank >= 1 && rank <= DML_TENSOR_DIMENSION_COUNT_MAX1);
    memcpy(tensor->sizes, sizes, rank * sizeof(*sizes));
    if (strides)
        memcpy(tensor->strides, strides, rank * sizeof(*strides));
    tensor->buffer.DataType = type;
    tensor->buffer.Flags = DML_TENSOR_FLAG_NONE;
    tensor->buffer.DimensionCount = rank;
    tensor->buffer.Sizes = tensor->sizes;
    tensor->buffer.Strides = strides ? tensor->strides : NULL;
    tensor->buffer.TotalTensorSizeInBytes = vkdml_calc_buffer_tensor_size(type, rank, sizes, strides);
    tensor->desc.Type = DML_TENSOR_TYPE_BUFFER;
    tensor->desc.Desc = &tensor->buffer;
}

UINT64 dml_test_element_count(const struct dml_test_tensor *tensor)
{
    UINT64 count = 1;
    UINT i;

    for (i = 0; i < tensor->buffer.DimensionCount; ++i)
        count *= tensor->sizes[i];
    return count;
}

void dml_test_row_and_entry(UINT rank, const UINT *sizes, uint32_t mask, size_t index, size_t *row, size_t *entry)
{
    size_t row_scale = 1, entry_scale = 1, coordinate;
    UINT i;

    *row = *entry = 0;
    for (i = rank; i-- > 0; index /= sizes[i])
    {
        coordinate = index % sizes[i];
        if (mask & (1u << i))
            *entry += coordinate * entry_scale, entry_scale *= sizes[i];
        else
            *row += coordinate * row_scale, row_scale *= sizes[i];
    }
}

UINT64 dml_test_element_offset(const struct dml_test_tensor *tensor, UINT64 index)
{
    UINT64 offset = 0, packed = 1;
    int d;

    for (d = (int)tensor->buffer.DimensionCount - 1; d >= 0; --d)
    {
        UINT64 coordinate = index % tensor->sizes[d];

        index /= tensor->sizes[d];
        offset += coordinate * (tensor->buffer.Strides ? tensor->strides[d] : packed);
        packed *= tensor->sizes[d];
    }
    return offset;
}

/* ---- Buffers ---- */

ID3D12Resource *dml_test_create_buffer(struct dml_test_context *context, UINT64 size, const void *data)
{
    UINT64 rounded = (size + 3) & ~(UINT64)3;
    ID3D12Resource *buffer;

    /* The buffer is rounded up to whole words; `data` holds only `size` bytes. */
    buffer = create_default_buffer(context->d3d.device, rounded ? rounded : 4, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    if (data && size)
        dml_test_write_buffer(context, buffer, 0, data, size);
    return buffer;
}

void dml_test_write_buffer(struct dml_test_context *context, ID3D12Resource *buffer, UINT64 offset,
        const void *data, size_t size)
{
    ID3D12Resource *upload = create_upload_buffer(context->d3d.device, size);

    write_mapped(upload, 0, data, size);
    transition(context->d3d.list, buffer, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_DEST);
    ID3D12GraphicsCommandList_CopyBufferRegion(context->d3d.list, buffer, offset, upload, 0, size);
    transition(context->d3d.list, buffer, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    execute_and_wait(&context->d3d);
    release_last(upload);
}

void dml_test_read_buffer(struct dml_test_context *context, ID3D12Resource *buffer, UINT64 offset,
        void *data, size_t size)
{
    ID3D12Resource *readback = create_readback_buffer(context->d3d.device, size);

    transition(context->d3d.list, buffer, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE);
    ID3D12GraphicsCommandList_CopyBufferRegion(context->d3d.list, readback, 0, buffer, offset, size);
    transition(context->d3d.list, buffer, D3D12_RESOURCE_STATE_COPY_SOURCE, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    execute_and_wait(&context->d3d);
    read_mapped(readback, 0, data, size);
    release_last(readback);
}

/* ---- Operators ---- */

HRESULT dml_test_create_operator(struct dml_test_context *context, DML_OPERATOR_TYPE type, const void *desc,
        IDMLOperator **op)
{
    DML_OPERATOR_DESC op_desc = {type, desc};

    *op = NULL;
    return IDMLDevice_CreateOperator(context->dml, &op_desc, &IID_IDMLOperator, (void **)op);
}

IDMLCompiledOperator *dml_test_compile(struct dml_test_context *context, DML_OPERATOR_TYPE type, const void *desc,
        DML_EXECUTION_FLAGS flags)
{
    IDMLCompiledOperator *compiled = NULL;
    IDMLOperator *op;

    check_hr(dml_test_create_operator(context, type, desc, &op), S_OK);
    assert_non_null(op);
    check_hr(IDMLDevice_CompileOperator(context->dml, op, flags, &IID_IDMLCompiledOperator,
            (void **)&compiled), S_OK);
    assert_non_null(compiled);
    /* The compiled operator holds its own reference to the operator. */
    release_unknown(op);
    return compiled;
}

/* What the log sink keeps while dml_test_compile_traced() compiles. */
static struct
{
    const char *prefix;
    char *trace;
    size_t trace_size;
    unsigned int problems;          /* validation messages or errors: the test fails */
    char problem[512];
} capture;

static void capture_sink(void *user_data, enum vkdml_log_level level, enum vkdml_log_source source,
        const char *function, const char *message)
{
    if (source == VKDML_LOG_SOURCE_VALIDATION || level == VKDML_LOG_ERR)
    {
        ++capture.problems;
        snprintf(capture.problem, sizeof(capture.problem), "%s: %s", function, message);
    }
    if (level == VKDML_LOG_TRACE && !strncmp(message, capture.prefix, strlen(capture.prefix)))
        snprintf(capture.trace, capture.trace_size, "%s", message + strlen(capture.prefix));
}

IDMLCompiledOperator *dml_test_compile_traced(struct dml_test_context *context, DML_OPERATOR_TYPE type,
        const void *desc, DML_EXECUTION_FLAGS flags, const char *prefix, char *trace, size_t trace_size)
{
    enum vkdml_log_level old_level = vkdml_get_log_level();
    IDMLCompiledOperator *compiled = NULL;
    IDMLOperator *op;
    HRESULT hr;

    memset(&capture, 0, sizeof(capture));
    capture.prefix = prefix;
    capture.trace = trace;
    capture.trace_size = trace_size;
    trace[0] = 0;
    check_hr(dml_test_create_operator(context, type, desc, &op), S_OK);
    vkdml_set_log_level(VKDML_LOG_TRACE);
    vkdml_set_log_callback(capture_sink, NULL);
    hr = IDMLDevice_CompileOperator(context->dml, op, flags, &IID_IDMLCompiledOperator, (void **)&compiled);
    vkdml_test_init_logging();
    vkdml_set_log_level(old_level);
    release_unknown(op);
    check_hr(hr, S_OK);
    if (capture.problems)
        fail_msg("compiling logged: %s", capture.problem);
    return compiled;
}

/* ---- Running ---- */

static DML_BINDING_PROPERTIES properties_of(void *dispatchable)
{
    return IDMLDispatchable_GetBindingPropertiesByValue((IDMLDispatchable *)dispatchable);
}

IDMLBindingTable *dml_test_create_table(struct dml_test_context *context, void *dispatchable)
{
    DML_BINDING_PROPERTIES properties = properties_of(dispatchable);
    IDMLBindingTable *table = NULL;
    DML_BINDING_TABLE_DESC desc;

    assert_true(properties.RequiredDescriptorCount <= DML_TEST_DESCRIPTORS);
    desc.Dispatchable = dispatchable;
    desc.CPUDescriptorHandle = cpu_handle(context->heap, context->increment, 0);
    desc.GPUDescriptorHandle = gpu_handle(context->heap, context->increment, 0);
    desc.SizeInDescriptors = properties.RequiredDescriptorCount ? properties.RequiredDescriptorCount : 1;
    check_hr(IDMLDevice_CreateBindingTable(context->dml, &desc, &IID_IDMLBindingTable, (void **)&table), S_OK);
    assert_non_null(table);
    return table;
}

static DML_BUFFER_BINDING buffer_binding(const struct dml_test_binding *binding)
{
    DML_BUFFER_BINDING buffer = {binding->buffer, binding->offset, binding->size};

    if (binding->buffer && !buffer.SizeInBytes)
        buffer.SizeInBytes = ID3D12Resource_GetDesc(binding->buffer).Width - binding->offset;
    return buffer;
}

/* Binding descs for `count` bindings; `buffers` holds what the descs point at. */
static void binding_descs(const struct dml_test_binding *bindings, UINT count, DML_BUFFER_BINDING *buffers,
        DML_BINDING_DESC *descs)
{
    UINT i;

    for (i = 0; i < count; ++i)
    {
        buffers[i] = buffer_binding(&bindings[i]);
        descs[i].Type = bindings[i].buffer ? DML_BINDING_TYPE_BUFFER : DML_BINDING_TYPE_NONE;
        descs[i].Desc = bindings[i].buffer ? &buffers[i] : NULL;
    }
}

ID3D12Resource *dml_test_bind_temporary(struct dml_test_context *context, IDMLBindingTable *table, void *dispatchable)
{
    UINT64 size = properties_of(dispatchable).TemporaryResourceSize;
    DML_BUFFER_BINDING buffer;
    DML_BINDING_DESC desc;
    ID3D12Resource *temporary;

    if (!size)
        return NULL;
    temporary = dml_test_create_buffer(context, size, NULL);
    buffer = (DML_BUFFER_BINDING){temporary, 0, size};
    desc = (DML_BINDING_DESC){DML_BINDING_TYPE_BUFFER, &buffer};
    IDMLBindingTable_BindTemporaryResource(table, &desc);
    return temporary;
}

static void record_and_wait(struct dml_test_context *context, void *dispatchable, IDMLBindingTable *table)
{
    ID3D12DescriptorHeap *heaps[] = {context->heap};

    ID3D12GraphicsCommandList_SetDescriptorHeaps(context->d3d.list, 1, heaps);
    IDMLCommandRecorder_RecordDispatch(context->recorder, (ID3D12CommandList *)context->d3d.list,
            (IDMLDispatchable *)dispatchable, table);
    execute_and_wait(&context->d3d);
    check_hr(IDMLDevice_GetDeviceRemovedReason(context->dml), S_OK);
}

ID3D12Resource *dml_test_initialize(struct dml_test_context *context, IDMLCompiledOperator *op,
        const struct dml_test_binding *owned, UINT owned_count)
{
    DML_BUFFER_BINDING owned_buffers[16], persistent_buffer;
    DML_BINDING_DESC input_desc = {DML_BINDING_TYPE_NONE, NULL}, output_desc = {DML_BINDING_TYPE_NONE, NULL};
    UINT64 persistent_size = properties_of(op).PersistentResourceSize;
    IDMLOperatorInitializer *initializer = NULL;
    ID3D12Resource *persistent = NULL, *temporary;
    DML_BUFFER_ARRAY_BINDING array;
    IDMLBindingTable *table;
    UINT i;

    check_hr(IDMLDevice_CreateOperatorInitializer(context->dml, 1, &op, &IID_IDMLOperatorInitializer,
            (void **)&initializer), S_OK);
    table = dml_test_create_table(context, initializer);
    temporary = dml_test_bind_temporary(context, table, initializer);
    if (owned_count)
    {
        assert_true(owned_count <= ARRAY_SIZE(owned_buffers));
        for (i = 0; i < owned_count; ++i)
            owned_buffers[i] = buffer_binding(&owned[i]);
        array = (DML_BUFFER_ARRAY_BINDING){owned_count, owned_buffers};
        input_desc = (DML_BINDING_DESC){DML_BINDING_TYPE_BUFFER_ARRAY, &array};
    }
    if (persistent_size)
    {
        persistent = dml_test_create_buffer(context, persistent_size, NULL);
        persistent_buffer = (DML_BUFFER_BINDING){persistent, 0, persistent_size};
        output_desc = (DML_BINDING_DESC){DML_BINDING_TYPE_BUFFER, &persistent_buffer};
    }
    IDMLBindingTable_BindInputs(table, 1, &input_desc);
    IDMLBindingTable_BindOutputs(table, 1, &output_desc);
    record_and_wait(context, initializer, table);
    release_last(table);
    release_last(initializer);
    if (temporary)
        release_last(temporary);
    return persistent;
}

void dml_test_execute(struct dml_test_context *context, IDMLCompiledOperator *op, ID3D12Resource *persistent,
        const struct dml_test_binding *inputs, UINT input_count, const struct dml_test_binding *outputs,
        UINT output_count)
{
    DML_BUFFER_BINDING input_buffers[16], output_buffers[16], persistent_buffer;
    DML_BINDING_DESC input_descs[16], output_descs[16], persistent_desc;
    UINT64 persistent_size = properties_of(op).PersistentResourceSize;
    ID3D12Resource *temporary;
    IDMLBindingTable *table;

    assert_true(input_count <= ARRAY_SIZE(input_descs) && output_count <= ARRAY_SIZE(output_descs));
    table = dml_test_create_table(context, op);
    temporary = dml_test_bind_temporary(context, table, op);
    if (persistent_size)
    {
        assert_non_null(persistent);
        persistent_buffer = (DML_BUFFER_BINDING){persistent, 0, persistent_size};
        persistent_desc = (DML_BINDING_DESC){DML_BINDING_TYPE_BUFFER, &persistent_buffer};
        IDMLBindingTable_BindPersistentResource(table, &persistent_desc);
    }
    binding_descs(inputs, input_count, input_buffers, input_descs);
    binding_descs(outputs, output_count, output_buffers, output_descs);
    IDMLBindingTable_BindInputs(table, input_count, input_count ? input_descs : NULL);
    IDMLBindingTable_BindOutputs(table, output_count, output_count ? output_descs : NULL);
    record_and_wait(context, op, table);
    release_last(table);
    if (temporary)
        release_last(temporary);
}

void dml_test_run(struct dml_test_context *context, IDMLCompiledOperator *op, const struct dml_test_binding *inputs,
        UINT input_count, const struct dml_test_binding *outputs, UINT output_count)
{
    ID3D12Resource *persistent = dml_test_initialize(context, op, NULL, 0);

    dml_test_execute(context, op, persistent, inputs, input_count, outputs, output_count);
    if (persistent)
        release_last(persistent);
}

void dml_test_expect_invalid(struct dml_test_context *context, DML_OPERATOR_TYPE type, const void *desc,
        const char *message)
{
    IDMLOperator *op = (IDMLOperator *)(uintptr_t)0xdeadbeef;

    check_hr(dml_test_create_operator(context, type, desc, &op), E_INVALIDARG);
    assert_null(op);
    assert_logged_error(message);
}

HRESULT dml_test_try_create(struct dml_test_context *context, DML_OPERATOR_TYPE type, const void *desc,
        struct dml_test_tensor *const *tensors, UINT tensor_count)
{
    IDMLOperator *op = NULL;
    HRESULT hr;

    dml_test_update_sizes(tensors, tensor_count);
    vkdml_test_log_reset();
    hr = dml_test_create_operator(context, type, desc, &op);
    if (op)
        release_last(op);
    return hr;
}

void dml_test_update_sizes(struct dml_test_tensor *const *tensors, UINT count)
{
    DML_BUFFER_TENSOR_DESC *buffer;
    UINT i;

    for (i = 0; i < count; ++i)
    {
        buffer = &tensors[i]->buffer;
        buffer->TotalTensorSizeInBytes = vkdml_calc_buffer_tensor_size(buffer->DataType, buffer->DimensionCount,
                buffer->Sizes, buffer->Strides);
    }
}

/* ---- FLOAT32 / FLOAT16 tensors with host values ---- */

void dml_test_float_tensor_init(struct dml_test_float_tensor *tensor, DML_TENSOR_DATA_TYPE type, UINT rank,
        const UINT *sizes, const UINT *strides, DML_TENSOR_FLAGS flags, unsigned int seed)
{
    uint32_t random = 0x9e3779b9u * (seed + 1);
    size_t i;

    memset(tensor, 0, sizeof(*tensor));
    dml_test_tensor_init(&tensor->t, type, rank, sizes, strides);
    tensor->t.buffer.Flags = flags;
    /* The offset of the last element is the largest: strides are not negative. */
    tensor->span = dml_test_element_offset(&tensor->t, dml_test_element_count(&tensor->t) - 1) + 1;
    tensor->values = malloc(tensor->span * sizeof(*tensor->values));
    assert_non_null(tensor->values);
    for (i = 0; i < tensor->span; ++i)
    {
        tensor->values[i] = ref_random_float(&random, -1.0f, 1.0f);
        if (type == DML_TENSOR_DATA_TYPE_FLOAT16)
            tensor->values[i] = ref_round_to_half(tensor->values[i]);
    }
}

void dml_test_float_tensor_cleanup(struct dml_test_float_tensor *tensor)
{
    free(tensor->values);
}

void *dml_test_float_tensor_bytes(const struct dml_test_float_tensor *tensor)
{
    uint8_t *bytes = calloc(1, tensor->t.buffer.TotalTensorSizeInBytes);
    size_t i;

    assert_non_null(bytes);
    for (i = 0; i < tensor->span; ++i)
    {
        if (tensor->t.buffer.DataType == DML_TENSOR_DATA_TYPE_FLOAT16)
            ((uint16_t *)bytes)[i] = ref_float_to_half(tensor->values[i]);
        else
            ((float *)bytes)[i] = tensor->values[i];
    }
    return bytes;
}

float dml_test_read_float(const void *bytes, DML_TENSOR_DATA_TYPE type, size_t index)
{
    return type == DML_TENSOR_DATA_TYPE_FLOAT16 ? ref_half_to_float(((const uint16_t *)bytes)[index])
            : ((const float *)bytes)[index];
}

bool dml_test_skip_float16(struct dml_test_context *context, DML_TENSOR_DATA_TYPE type, const char *name)
{
    if (type != DML_TENSOR_DATA_TYPE_FLOAT16 || dml_test_data_type_supported(context, type))
        return false;
    print_message("Skipping %s: the device has no FLOAT16 support.\n", name);
    return true;
}

void dml_test_create_input_buffers(struct dml_test_context *context,
        const struct dml_test_float_tensor *const *tensors, UINT count, struct dml_test_binding *inputs,
        struct dml_test_binding *owned)
{
    const struct dml_test_float_tensor *tensor;
    UINT64 size;
    void *bytes;
    UINT i;

    for (i = 0; i < count; ++i)
    {
        if (!(tensor = tensors[i]))
            continue;
        size = tensor->t.buffer.TotalTensorSizeInBytes;
        bytes = dml_test_float_tensor_bytes(tensor);
        if (tensor->t.buffer.Flags & DML_TENSOR_FLAG_OWNED_BY_DML)
        {
            owned[i].buffer = create_upload_buffer(context->d3d.device, size);
            write_mapped(owned[i].buffer, 0, bytes, size);
        }
        else
        {
            inputs[i].buffer = dml_test_create_buffer(context, size, bytes);
        }
        free(bytes);
    }
}

void dml_test_scribble_owned(const struct dml_test_binding *owned, const struct dml_test_float_tensor *const *tensors,
        UINT count)
{
    size_t size;
    void *garbage;
    UINT i;

    for (i = 0; i < count; ++i)
    {
        if (!owned[i].buffer)
            continue;
        size = tensors[i]->t.buffer.TotalTensorSizeInBytes;
        garbage = malloc(size);
        assert_non_null(garbage);
        fill_pattern(garbage, size, 77 + i);
        write_mapped(owned[i].buffer, 0, garbage, size);
        free(garbage);
    }
}

void dml_test_release_bindings(struct dml_test_binding *bindings, UINT count)
{
    UINT i;

    for (i = 0; i < count; ++i)
    {
        if (bindings[i].buffer)
            release_last(bindings[i].buffer);
    }
}

void dml_test_create_guarded(struct dml_test_context *context, UINT64 size, const void *data,
        struct dml_test_binding *binding)
{
    UINT64 total = DML_TEST_GUARD_BYTES * 2 + ((size + 3) & ~(UINT64)3);
    unsigned char *bytes = malloc(total);

    assert_non_null(bytes);
    memset(bytes, DML_TEST_GUARD_PATTERN, total);
    if (data)
        memcpy(bytes + DML_TEST_GUARD_BYTES, data, size);
    else
        memset(bytes + DML_TEST_GUARD_BYTES, 0, size);
    binding->buffer = dml_test_create_buffer(context, total, bytes);
    binding->offset = DML_TEST_GUARD_BYTES;
    binding->size = size;
    free(bytes);
}

/* Checks `size` bytes at `offset` still hold the guard pattern. */
static void check_guard(struct dml_test_context *context, ID3D12Resource *buffer, UINT64 offset, UINT64 size)
{
    unsigned char *bytes = malloc(size);
    UINT64 i;

    assert_non_null(bytes);
    dml_test_read_buffer(context, buffer, offset, bytes, size);
    for (i = 0; i < size; ++i)
    {
        if (bytes[i] != DML_TEST_GUARD_PATTERN)
            fail_msg("guard byte %" PRIu64 " at offset %" PRIu64 " was written (0x%02x).", i, offset + i, bytes[i]);
    }
    free(bytes);
}

void dml_test_check_guards(struct dml_test_context *context, const struct dml_test_binding *binding)
{
    UINT64 end = binding->offset + ((binding->size + 3) & ~(UINT64)3);

    check_guard(context, binding->buffer, 0, binding->offset);
    check_guard(context, binding->buffer, end, DML_TEST_GUARD_BYTES);
}

static const DML_ACTIVATION_RELU_OPERATOR_DESC relu_desc = {NULL, NULL};
static const DML_ACTIVATION_SIGMOID_OPERATOR_DESC sigmoid_desc = {NULL, NULL};
static const DML_ACTIVATION_TANH_OPERATOR_DESC tanh_desc = {NULL, NULL};
static const DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC leaky_relu_desc = {NULL, NULL, 0.1f};
static const DML_ACTIVATION_ELU_OPERATOR_DESC elu_desc = {NULL, NULL, 0.7f};
static const DML_ACTIVATION_LINEAR_OPERATOR_DESC linear_desc = {NULL, NULL, -1.5f, 0.25f};
static const DML_ACTIVATION_HARD_SIGMOID_OPERATOR_DESC hard_sigmoid_desc = {NULL, NULL, 0.3f, 0.4f};
static const DML_ELEMENT_WISE_CLIP_OPERATOR_DESC clip_desc = {NULL, NULL, NULL, -0.5f, 0.75f};

const DML_OPERATOR_DESC dml_test_relu = {DML_OPERATOR_ACTIVATION_RELU, &relu_desc};
const DML_OPERATOR_DESC dml_test_sigmoid = {DML_OPERATOR_ACTIVATION_SIGMOID, &sigmoid_desc};
const DML_OPERATOR_DESC dml_test_tanh = {DML_OPERATOR_ACTIVATION_TANH, &tanh_desc};
const DML_OPERATOR_DESC dml_test_leaky_relu = {DML_OPERATOR_ACTIVATION_LEAKY_RELU, &leaky_relu_desc};
const DML_OPERATOR_DESC dml_test_elu = {DML_OPERATOR_ACTIVATION_ELU, &elu_desc};
const DML_OPERATOR_DESC dml_test_linear = {DML_OPERATOR_ACTIVATION_LINEAR, &linear_desc};
const DML_OPERATOR_DESC dml_test_hard_sigmoid = {DML_OPERATOR_ACTIVATION_HARD_SIGMOID, &hard_sigmoid_desc};
const DML_OPERATOR_DESC dml_test_clip = {DML_OPERATOR_ELEMENT_WISE_CLIP, &clip_desc};

double dml_test_fused_activation(const DML_OPERATOR_DESC *activation, double x, double *slope)
{
    *slope = 1.0;
    if (!activation)
        return x;
    switch (activation->Type)
    {
        case DML_OPERATOR_ACTIVATION_RELU:
            return x > 0.0 ? x : 0.0;
        case DML_OPERATOR_ACTIVATION_SIGMOID:
            return 1.0 / (1.0 + exp(-x));
        case DML_OPERATOR_ACTIVATION_TANH:
            return tanh(x);
        case DML_OPERATOR_ACTIVATION_LEAKY_RELU:
            return x > 0.0 ? x : ((const DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC *)activation->Desc)->Alpha * x;
        case DML_OPERATOR_ACTIVATION_ELU:
            return x > 0.0 ? x : ((const DML_ACTIVATION_ELU_OPERATOR_DESC *)activation->Desc)->Alpha * (exp(x) - 1.0);
        case DML_OPERATOR_ACTIVATION_LINEAR:
        {
            const DML_ACTIVATION_LINEAR_OPERATOR_DESC *linear = activation->Desc;

            *slope = fabs(linear->Alpha);
            return linear->Alpha * x + linear->Beta;
        }
        case DML_OPERATOR_ACTIVATION_HARD_SIGMOID:
        {
            const DML_ACTIVATION_HARD_SIGMOID_OPERATOR_DESC *hard_sigmoid = activation->Desc;

            x = hard_sigmoid->Alpha * x + hard_sigmoid->Beta;
            return x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x;
        }
        case DML_OPERATOR_ELEMENT_WISE_CLIP:
        {
            const DML_ELEMENT_WISE_CLIP_OPERATOR_DESC *clip = activation->Desc;

            /* max(Min, min(x, Max)): Min where Min > Max. */
            x = x > clip->Max ? clip->Max : x;
            return x < clip->Min ? clip->Min : x;
        }
        default:
            fail_msg("no reference for activation %d", (int)activation->Type);
            return 0.0;
    }
}

double dml_test_sum_tolerance(DML_TENSOR_DATA_TYPE type, DML_EXECUTION_FLAGS flags, UINT terms, double magnitude,
        double value, double slope)
{
    bool half = type == DML_TENSOR_DATA_TYPE_FLOAT16;
    double accumulate_eps = half && (flags & DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION)
            ? ldexp(1.0, -11) : ldexp(1.0, -24);
    double store_eps = half ? ldexp(1.0, -11) : ldexp(1.0, -24);

    /* Each of the terms + 2 roundings of the sum can be off by eps times the magnitude so far. */
    return slope * magnitude * accumulate_eps * (terms + 2) * 2.0 + fabs(value) * store_eps * 2.0 + 1e-6;
}

/* ---- Host data ---- */

void dml_test_set_env(const char *name, const char *value)
{
#ifdef _WIN32
    char assignment[96];

    snprintf(assignment, sizeof(assignment), "%s=%s", name, value ? value : "");
    _putenv(assignment);
#else
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
#endif
}

void dml_test_set_knob(struct dml_test_context *context, const char *name, const char *value)
{
    const char *current = getenv(name);

    if (!strcmp(current ? current : "", value ? value : ""))
        return;
    dml_test_set_env(name, value);
    assert_int_equal(release_unknown(context->recorder), 0);
    assert_int_equal(release_unknown(context->dml), 0);
    context->recorder = NULL;
    context->dml = NULL;
    check_hr(create_dml_objects(context), S_OK);
}
