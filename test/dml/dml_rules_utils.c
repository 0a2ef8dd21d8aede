/* The helpers of dml_rules_utils.h. IID_IDML* come from libvkdml (exported for C applications),
 * D3D12's IIDs from DirectX-Headers' GUID library. */
#include "dml_rules_utils.h"

#include <math.h>

/* ---- Context ---- */

static int setup_with_flags(void **state, DML_CREATE_DEVICE_FLAGS flags)
{
    struct dml_context *context;
    D3D12_DESCRIPTOR_HEAP_DESC heap_desc;
    HRESULT hr;

    vkdml_test_log_reset();
    if (!(context = calloc(1, sizeof(*context))))
        return -1;
    *state = context;
    /* d3d12_context_setup allocates its own context: move its contents into ours. */
    {
        void *d3d_state = NULL;
        struct test_context *d3d;

        if (d3d12_context_setup(&d3d_state))
        {
            if (d3d_state)
                d3d12_context_teardown(&d3d_state);
            return -1;
        }
        d3d = d3d_state;
        context->d3d = *d3d;
        free(d3d);
    }
    context->flags = flags;
    if (FAILED(hr = DMLCreateDevice(context->d3d.device, flags, &IID_IDMLDevice, (void **)&context->dml)))
    {
        fprintf(stderr, "DMLCreateDevice failed, hr %#x.\n", (unsigned int)hr);
        return -1;
    }
    if (FAILED(hr = IDMLDevice_CreateCommandRecorder(context->dml, &IID_IDMLCommandRecorder,
            (void **)&context->recorder)))
    {
        fprintf(stderr, "CreateCommandRecorder failed, hr %#x.\n", (unsigned int)hr);
        return -1;
    }
    memset(&heap_desc, 0, sizeof(heap_desc));
    heap_desc.Type = D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV;
    heap_desc.NumDescriptors = DML_CONTEXT_DESCRIPTORS;
    heap_desc.Flags = D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE;
    if (FAILED(hr = ID3D12Device_CreateDescriptorHeap(context->d3d.device, &heap_desc, &IID_ID3D12DescriptorHeap,
            (void **)&context->heap)))
    {
        fprintf(stderr, "CreateDescriptorHeap failed, hr %#x.\n", (unsigned int)hr);
        return -1;
    }
    context->increment = ID3D12Device_GetDescriptorHandleIncrementSize(context->d3d.device,
            D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);
    dml_set_heap(context);
    return vkdml_test_log_teardown(state);
}

int dml_context_setup(void **state)
{
    return setup_with_flags(state, DML_CREATE_DEVICE_FLAG_NONE);
}

int dml_debug_context_setup(void **state)
{
    return setup_with_flags(state, DML_CREATE_DEVICE_FLAG_DEBUG);
}

#define RELEASE_LAST(o) \
    do { \
        ULONG count_; \
        if ((o) && (count_ = release_unknown(o))) \
        { \
            fprintf(stderr, "Final Release of " #o " returned %u, expected 0.\n", (unsigned int)count_); \
            ret = -1; \
        } \
        (o) = NULL; \
    } while (0)

int dml_context_teardown(void **state)
{
    struct dml_context *context = *state;
    void *d3d_state;
    int ret = 0;

    if (!context)
        return -1;
    if (context->d3d.queue && context->d3d.fence)
    {
        ID3D12CommandQueue_Signal(context->d3d.queue, context->d3d.fence, ++context->d3d.fence_value);
        ID3D12Fence_SetEventOnCompletion(context->d3d.fence, context->d3d.fence_value, NULL);
    }
    RELEASE_LAST(context->recorder);
    RELEASE_LAST(context->heap);
    /* The DML device holds the D3D12 device: it goes first. */
    RELEASE_LAST(context->dml);
    if (!(d3d_state = malloc(sizeof(struct test_context))))
        return -1;
    *(struct test_context *)d3d_state = context->d3d;
    free(context);
    *state = NULL;
    if (d3d12_context_teardown(&d3d_state))
        ret = -1;
    return ret;
}

void dml_context_recreate_device(struct dml_context *context)
{
    if (context->recorder)
        release_last(context->recorder);
    release_last(context->dml);
    check_hr(DMLCreateDevice(context->d3d.device, context->flags, &IID_IDMLDevice, (void **)&context->dml), S_OK);
    check_hr(IDMLDevice_CreateCommandRecorder(context->dml, &IID_IDMLCommandRecorder, (void **)&context->recorder),
            S_OK);
}

void dml_set_heap(struct dml_context *context)
{
    ID3D12DescriptorHeap *heaps[] = {context->heap};

    ID3D12GraphicsCommandList_SetDescriptorHeaps(context->d3d.list, 1, heaps);
}

void dml_execute_and_wait(struct dml_context *context)
{
    execute_and_wait(&context->d3d);
    dml_set_heap(context);
}

/* ---- Tensors ---- */

void dml_tensor_init(struct dml_tensor *tensor, DML_TENSOR_DATA_TYPE type, UINT rank, const UINT *sizes,
        DML_TENSOR_FLAGS flags)
{
    memset(tensor, 0, sizeof(*tensor));
    assert_true(rank >= 1 && rank <= 8);
    memcpy(tensor->sizes, sizes, rank * sizeof(*sizes));
    tensor->buffer.DataType = type;
    tensor->buffer.Flags = flags;
    tensor->buffer.DimensionCount = rank;
    tensor->buffer.Sizes = tensor->sizes;
    tensor->buffer.Strides = NULL;
    tensor->buffer.TotalTensorSizeInBytes = vkdml_calc_buffer_tensor_size(type, rank, sizes, NULL);
    assert_true(tensor->buffer.TotalTensorSizeInBytes > 0);
    tensor->buffer.GuaranteedBaseOffsetAlignment = 0;
    tensor->desc.Type = DML_TENSOR_TYPE_BUFFER;
    tensor->desc.Desc = &tensor->buffer;
}

void dml_tensor_init_hello(struct dml_tensor *tensor)
{
    static const UINT sizes[] = {1, 2, 3, 4};

    dml_tensor_init(tensor, DML_TENSOR_DATA_TYPE_FLOAT32, 4, sizes, DML_TENSOR_FLAG_NONE);
    assert_int_equal(tensor->buffer.TotalTensorSizeInBytes, 24 * sizeof(float));
}

/* ---- Operators ---- */

IDMLOperator *dml_create_operator(IDMLDevice *device, DML_OPERATOR_TYPE type, const void *desc)
{
    DML_OPERATOR_DESC op_desc;
    IDMLOperator *op = NULL;

    op_desc.Type = type;
    op_desc.Desc = desc;
    check_hr(IDMLDevice_CreateOperator(device, &op_desc, &IID_IDMLOperator, (void **)&op), S_OK);
    assert_non_null(op);
    return op;
}

IDMLOperator *dml_create_identity(IDMLDevice *device, const struct dml_tensor *input, const struct dml_tensor *output)
{
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc;

    desc.InputTensor = &input->desc;
    desc.OutputTensor = &output->desc;
    desc.ScaleBias = NULL;
    return dml_create_operator(device, DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc);
}

IDMLOperator *dml_create_add(IDMLDevice *device, const struct dml_tensor *a, const struct dml_tensor *b,
        const struct dml_tensor *output)
{
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC desc;

    desc.ATensor = &a->desc;
    desc.BTensor = &b->desc;
    desc.OutputTensor = &output->desc;
    return dml_create_operator(device, DML_OPERATOR_ELEMENT_WISE_ADD, &desc);
}

IDMLOperator *dml_create_gemm(IDMLDevice *device, const struct dml_tensor *a, const struct dml_tensor *b,
        const struct dml_tensor *c, const struct dml_tensor *output, float alpha, float beta)
{
    DML_GEMM_OPERATOR_DESC desc;

    memset(&desc, 0, sizeof(desc));
    desc.ATensor = &a->desc;
    desc.BTensor = &b->desc;
    desc.CTensor = c ? &c->desc : NULL;
    desc.OutputTensor = &output->desc;
    desc.TransA = DML_MATRIX_TRANSFORM_NONE;
    desc.TransB = DML_MATRIX_TRANSFORM_NONE;
    desc.Alpha = alpha;
    desc.Beta = beta;
    desc.FusedActivation = NULL;
    return dml_create_operator(device, DML_OPERATOR_GEMM, &desc);
}

IDMLCompiledOperator *dml_compile(IDMLDevice *device, IDMLOperator *op, DML_EXECUTION_FLAGS flags)
{
    IDMLCompiledOperator *compiled = NULL;

    check_hr(IDMLDevice_CompileOperator(device, op, flags, &IID_IDMLCompiledOperator, (void **)&compiled), S_OK);
    assert_non_null(compiled);
    /* The compiled operator holds the operator. */
    assert_int_not_equal(release_unknown(op), 0);
    return compiled;
}

/* ---- Buffers ---- */

ID3D12Resource *dml_create_buffer(struct dml_context *context, UINT64 size, UINT64 offset, const void *data,
        size_t data_size)
{
    ID3D12Resource *buffer = create_default_buffer(context->d3d.device, size, D3D12_RESOURCE_STATE_COPY_DEST);

    if (data && data_size)
    {
        assert_true(offset + data_size <= size);
        upload_to_buffer(&context->d3d, buffer, offset, data, data_size);
        dml_set_heap(context);
    }
    transition(context->d3d.list, buffer, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    return buffer;
}

void dml_read_buffer(struct dml_context *context, ID3D12Resource *buffer, UINT64 offset, void *data, size_t size)
{
    transition(context->d3d.list, buffer, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE);
    read_buffer(&context->d3d, buffer, offset, data, size);
    dml_set_heap(context);
    transition(context->d3d.list, buffer, D3D12_RESOURCE_STATE_COPY_SOURCE, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
}

void dml_uav_barrier(struct dml_context *context)
{
    uav_barrier(context->d3d.list, NULL);
}

/* ---- Bindings ---- */

DML_BINDING_TABLE_DESC dml_table_desc(struct dml_context *context, void *dispatchable, UINT first, UINT count)
{
    DML_BINDING_TABLE_DESC desc;

    if (!count && dispatchable)
        count = dml_properties(dispatchable).RequiredDescriptorCount;
    if (!count)
        count = 1;
    assert_true(first + count <= DML_CONTEXT_DESCRIPTORS);
    desc.Dispatchable = dispatchable;
    desc.CPUDescriptorHandle = cpu_handle(context->heap, context->increment, first);
    desc.GPUDescriptorHandle = gpu_handle(context->heap, context->increment, first);
    desc.SizeInDescriptors = count;
    return desc;
}

IDMLBindingTable *dml_create_table(struct dml_context *context, void *dispatchable, UINT first, UINT count)
{
    DML_BINDING_TABLE_DESC desc = dml_table_desc(context, dispatchable, first, count);
    IDMLBindingTable *table = NULL;

    check_hr(IDMLDevice_CreateBindingTable(context->dml, &desc, &IID_IDMLBindingTable, (void **)&table), S_OK);
    assert_non_null(table);
    return table;
}

void dml_record(struct dml_context *context, void *dispatchable, IDMLBindingTable *table)
{
    IDMLCommandRecorder_RecordDispatch(context->recorder, (ID3D12CommandList *)context->d3d.list,
            (IDMLDispatchable *)dispatchable, table);
}

void dml_initialize(struct dml_context *context, IDMLCompiledOperator *const *ops, UINT count,
        ID3D12Resource **persistent, const DML_BUFFER_ARRAY_BINDING *inputs)
{
    DML_BUFFER_BINDING persistent_bindings[16], temporary_binding;
    DML_BINDING_DESC input_descs[16], output_descs[16], temporary_desc;
    IDMLOperatorInitializer *initializer = NULL;
    ID3D12Resource *temporary = NULL;
    DML_BINDING_PROPERTIES properties;
    IDMLBindingTable *table;
    UINT i;

    assert_true(count <= 16);
    check_hr(IDMLDevice_CreateOperatorInitializer(context->dml, count, ops, &IID_IDMLOperatorInitializer,
            (void **)&initializer), S_OK);
    properties = dml_properties(initializer);
    assert_int_equal(properties.PersistentResourceSize, 0);
    table = dml_create_table(context, initializer, 0, 0);

    for (i = 0; i < count; ++i)
    {
        UINT64 size = dml_properties(ops[i]).PersistentResourceSize;

        persistent[i] = size ? dml_create_buffer(context, size, 0, NULL, 0) : NULL;
        persistent_bindings[i] = dml_buffer_binding(persistent[i], 0, size);
        output_descs[i] = dml_binding(persistent[i] ? &persistent_bindings[i] : NULL);
        if (inputs && inputs[i].BindingCount)
        {
            input_descs[i].Type = DML_BINDING_TYPE_BUFFER_ARRAY;
            input_descs[i].Desc = &inputs[i];
        }
        else
        {
            input_descs[i].Type = DML_BINDING_TYPE_NONE;
            input_descs[i].Desc = NULL;
        }
    }
    if (properties.TemporaryResourceSize)
    {
        temporary = dml_create_buffer(context, properties.TemporaryResourceSize, 0, NULL, 0);
        temporary_binding = dml_buffer_binding(temporary, 0, properties.TemporaryResourceSize);
        temporary_desc = dml_binding(&temporary_binding);
        IDMLBindingTable_BindTemporaryResource(table, &temporary_desc);
    }
    IDMLBindingTable_BindInputs(table, count, count ? input_descs : NULL);
    IDMLBindingTable_BindOutputs(table, count, count ? output_descs : NULL);
    dml_record(context, initializer, table);
    release_last(table);
    dml_execute_and_wait(context);
    release_last(initializer);
    if (temporary)
        release_last(temporary);
    dml_check_not_removed(context->dml);
}

void dml_execute(struct dml_context *context, IDMLCompiledOperator *op, const DML_BINDING_DESC *inputs,
        UINT input_count, const DML_BINDING_DESC *outputs, UINT output_count, ID3D12Resource *persistent)
{
    DML_BINDING_PROPERTIES properties = dml_properties(op);
    DML_BUFFER_BINDING temporary_binding, persistent_binding;
    DML_BINDING_DESC temporary_desc, persistent_desc;
    ID3D12Resource *temporary = NULL;
    IDMLBindingTable *table;

    table = dml_create_table(context, op, 0, 0);
    if (properties.TemporaryResourceSize)
    {
        temporary = dml_create_buffer(context, properties.TemporaryResourceSize, 0, NULL, 0);
        temporary_binding = dml_buffer_binding(temporary, 0, properties.TemporaryResourceSize);
        temporary_desc = dml_binding(&temporary_binding);
        IDMLBindingTable_BindTemporaryResource(table, &temporary_desc);
    }
    if (properties.PersistentResourceSize)
    {
        assert_non_null(persistent);
        persistent_binding = dml_buffer_binding(persistent, 0, properties.PersistentResourceSize);
        persistent_desc = dml_binding(&persistent_binding);
        IDMLBindingTable_BindPersistentResource(table, &persistent_desc);
    }
    IDMLBindingTable_BindInputs(table, input_count, inputs);
    IDMLBindingTable_BindOutputs(table, output_count, outputs);
    dml_record(context, op, table);
    release_last(table);
    dml_execute_and_wait(context);
    if (temporary)
        release_last(temporary);
    dml_check_not_removed(context->dml);
}

/* ---- Device state and logging ---- */

void dml_check_not_removed_(IDMLDevice *device, const char *file, int line)
{
    HRESULT hr = IDMLDevice_GetDeviceRemovedReason(device);

    if (hr != S_OK)
    {
        fprintf(stderr, "%s:%d: the DML device is removed, reason %#x; last error: %s\n", file, line,
                (unsigned int)hr, vkdml_test_log_counts()->last_error);
        _fail(file, line);
    }
}

HRESULT dml_check_removed_(IDMLDevice *device, const char *file, int line)
{
    IDMLCommandRecorder *recorder = (IDMLCommandRecorder *)(uintptr_t)0xdeadbeef;
    HRESULT reason = IDMLDevice_GetDeviceRemovedReason(device), hr;

    if (SUCCEEDED(reason))
    {
        fprintf(stderr, "%s:%d: the DML device is not removed (GetDeviceRemovedReason %#x)\n", file, line,
                (unsigned int)reason);
        _fail(file, line);
    }
    hr = IDMLDevice_CreateCommandRecorder(device, &IID_IDMLCommandRecorder, (void **)&recorder);
    if (hr != DXGI_ERROR_DEVICE_REMOVED)
    {
        fprintf(stderr, "%s:%d: CreateCommandRecorder on a removed device returned %#x, expected %#x\n", file, line,
                (unsigned int)hr, (unsigned int)DXGI_ERROR_DEVICE_REMOVED);
        if (SUCCEEDED(hr) && recorder)
            IDMLCommandRecorder_Release(recorder);
        _fail(file, line);
    }
    if (recorder)
    {
        fprintf(stderr, "%s:%d: a failed CreateCommandRecorder left *ppv = %p, expected NULL\n", file, line,
                (void *)recorder);
        _fail(file, line);
    }
    return reason;
}

void dml_check_errors_logged_(const char *file, int line)
{
    const struct vkdml_test_log_counts *counts = vkdml_test_log_counts();

    if (counts->validation || !counts->errors)
    {
        fprintf(stderr, "%s:%d: expected vkdml error log(s) and no validation messages; saw %u error(s), %u "
                "validation message(s), last: \"%s\"\n", file, line, counts->errors, counts->validation,
                counts->last_error);
        _fail(file, line);
    }
    vkdml_test_log_reset();
}

/* ---- Foreign COM objects ---- */

unsigned int fake_com_other_calls;

typedef void (*fake_slot)(void);

static HRESULT STDMETHODCALLTYPE fake_query_interface(IUnknown *iface, REFIID iid, void **out)
{
    struct fake_com_object *object = (struct fake_com_object *)iface;

    if (!memcmp(iid, &IID_IUnknown, sizeof(*iid)) || !memcmp(iid, &object->iid, sizeof(*iid)))
    {
        ++object->refcount;
        *out = object;
        return S_OK;
    }
    *out = NULL;
    return E_NOINTERFACE;
}

static ULONG STDMETHODCALLTYPE fake_add_ref(IUnknown *iface)
{
    return ++((struct fake_com_object *)iface)->refcount;
}

static ULONG STDMETHODCALLTYPE fake_release(IUnknown *iface)
{
    return --((struct fake_com_object *)iface)->refcount;
}

static HRESULT STDMETHODCALLTYPE fake_other(void)
{
    ++fake_com_other_calls;
    return E_NOTIMPL;
}

static fake_slot fake_vtable[128];

void fake_com_object_init(struct fake_com_object *object, REFIID iid)
{
    unsigned int i;

    fake_vtable[0] = (fake_slot)fake_query_interface;
    fake_vtable[1] = (fake_slot)fake_add_ref;
    fake_vtable[2] = (fake_slot)fake_release;
    for (i = 3; i < ARRAY_SIZE(fake_vtable); ++i)
        fake_vtable[i] = (fake_slot)fake_other;
    object->lpVtbl = fake_vtable;
    object->refcount = 1;
    object->iid = *iid;
}

/* ---- Float data ---- */

void dml_fill_floats(float *data, size_t count, unsigned int seed, float range)
{
    size_t i;

    for (i = 0; i < count; ++i)
    {
        uint32_t x = (uint32_t)i * 2654435761u + (seed + 1) * 2246822519u;

        x ^= x >> 15;
        x *= 2246822519u;
        x ^= x >> 13;
        data[i] = range * ((float)(x & 0xffff) / 32767.5f - 1.0f);
    }
}

long dml_compare_floats(const float *got, const float *expected, size_t count, float abs_tol, float rel_tol)
{
    size_t i;

    for (i = 0; i < count; ++i)
    {
        if (!(fabsf(got[i] - expected[i]) <= abs_tol + rel_tol * fabsf(expected[i])))
        {
            fprintf(stderr, "element %zu: got %.9g, expected %.9g\n", i, got[i], expected[i]);
            return (long)i;
        }
    }
    return -1;
}
