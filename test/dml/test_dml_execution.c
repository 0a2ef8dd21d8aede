/*
 * The execution model of DirectML, black-box: operator initializers (zero targets, several
 * targets, Reset, initializing twice, executing uninitialized on a debug device), the persistent
 * resource's lifetime, DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE (one recording, rebound and
 * executed three times with different buffers), and thread safety (one compiled operator recorded
 * from 4 threads at once through one command recorder; 4 threads compiling on one device).
 */
#include "dml/dml_rules_utils.h"

#include <pthread.h>

/* Binds the temporary resource (created when needed) and the persistent resource (may be NULL). */
static ID3D12Resource *bind_resources(struct dml_context *context, void *dispatchable, IDMLBindingTable *table,
        ID3D12Resource *persistent)
{
    DML_BINDING_PROPERTIES properties = dml_properties(dispatchable);
    ID3D12Resource *temporary = NULL;
    DML_BUFFER_BINDING binding;
    DML_BINDING_DESC desc;

    if (properties.TemporaryResourceSize)
    {
        temporary = dml_create_buffer(context, properties.TemporaryResourceSize, 0, NULL, 0);
        binding = dml_buffer_binding(temporary, 0, properties.TemporaryResourceSize);
        desc = dml_binding(&binding);
        IDMLBindingTable_BindTemporaryResource(table, &desc);
    }
    if (properties.PersistentResourceSize)
    {
        assert_non_null(persistent);
        binding = dml_buffer_binding(persistent, 0, properties.PersistentResourceSize);
        desc = dml_binding(&binding);
        IDMLBindingTable_BindPersistentResource(table, &desc);
    }
    return temporary;
}

static void cpu_gemm(const float *a, const float *b, float *out, unsigned int m_count, unsigned int k_count,
        unsigned int n_count)
{
    unsigned int m, n, k;

    for (m = 0; m < m_count; ++m)
    {
        for (n = 0; n < n_count; ++n)
        {
            double sum = 0.0;

            for (k = 0; k < k_count; ++k)
                sum += (double)a[m * k_count + k] * b[k * n_count + n];
            out[m * n_count + n] = (float)sum;
        }
    }
}

/* ---- Initializers ---- */

/* CreateOperatorInitializer(0, NULL): legal, executing it is a no-op; Reset gives it targets. */
static void test_initializer_zero_operators(void **state)
{
    struct dml_context *context = *state;
    IDMLOperatorInitializer *initializer = NULL;
    DML_BINDING_PROPERTIES properties;
    IDMLCompiledOperator *compiled;
    ID3D12Resource *temporary, *persistent = NULL, *input, *output;
    DML_BUFFER_BINDING persistent_binding, in_binding, out_binding;
    DML_BINDING_DESC persistent_desc, in_desc, out_desc;
    IDMLBindingTable *table;
    struct dml_tensor tensor;
    float data[24], result[24];
    UINT64 persistent_size;

    check_hr(IDMLDevice_CreateOperatorInitializer(context->dml, 0, NULL, &IID_IDMLOperatorInitializer,
            (void **)&initializer), S_OK);
    assert_non_null(initializer);
    properties = dml_properties(initializer);
    assert_int_equal(properties.PersistentResourceSize, 0);
    table = dml_create_table(context, initializer, 0, 0);
    temporary = bind_resources(context, initializer, table, NULL);
    IDMLBindingTable_BindInputs(table, 0, NULL);
    IDMLBindingTable_BindOutputs(table, 0, NULL);
    dml_record(context, initializer, table);
    dml_check_not_removed(context->dml);
    dml_execute_and_wait(context);
    dml_check_not_removed(context->dml);
    release_last(table);
    if (temporary)
        release_last(temporary);

    /* Reset to one IDENTITY; its properties may change. */
    dml_tensor_init_hello(&tensor);
    compiled = dml_compile(context->dml, dml_create_identity(context->dml, &tensor, &tensor),
            DML_EXECUTION_FLAG_NONE);
    check_hr(IDMLOperatorInitializer_Reset(initializer, 1, &compiled), S_OK);
    properties = dml_properties(initializer);
    assert_int_equal(properties.PersistentResourceSize, 0);
    table = dml_create_table(context, initializer, 0, 0);
    temporary = bind_resources(context, initializer, table, NULL);
    persistent_size = dml_properties(compiled).PersistentResourceSize;
    if (persistent_size)
    {
        persistent = dml_create_buffer(context, persistent_size, 0, NULL, 0);
        persistent_binding = dml_buffer_binding(persistent, 0, persistent_size);
    }
    persistent_desc = dml_binding(persistent ? &persistent_binding : NULL);
    in_desc = dml_binding(NULL);
    IDMLBindingTable_BindInputs(table, 1, &in_desc);
    IDMLBindingTable_BindOutputs(table, 1, &persistent_desc);
    dml_record(context, initializer, table);
    dml_execute_and_wait(context);
    dml_check_not_removed(context->dml);
    release_last(table);
    if (temporary)
        release_last(temporary);

    /* Reset back to nothing. */
    check_hr(IDMLOperatorInitializer_Reset(initializer, 0, NULL), S_OK);
    release_last(initializer);

    dml_fill_floats(data, 24, 11, 3.0f);
    input = dml_create_buffer(context, sizeof(data), 0, data, sizeof(data));
    output = dml_create_buffer(context, sizeof(data), 0, NULL, 0);
    in_binding = dml_buffer_binding(input, 0, sizeof(data));
    out_binding = dml_buffer_binding(output, 0, sizeof(data));
    in_desc = dml_binding(&in_binding);
    out_desc = dml_binding(&out_binding);
    dml_execute(context, compiled, &in_desc, 1, &out_desc, 1, persistent);
    dml_read_buffer(context, output, 0, result, sizeof(result));
    assert_int_equal(dml_compare_floats(result, data, 24, 0.0f, 0.0f), -1);

    release_last(input);
    release_last(output);
    if (persistent)
        release_last(persistent);
    release_last(compiled);
    assert_no_log_errors();
}

/* One initializer for IDENTITY, GEMM (OWNED_BY_DML B) and ADD: per-target bindings in order. */
static void test_initializer_several_targets(void **state)
{
    static const UINT a_sizes[] = {1, 1, 3, 5}, b_sizes[] = {1, 1, 5, 2}, out_sizes[] = {1, 1, 3, 2};
    struct dml_context *context = *state;
    struct dml_tensor tensor, a, b, gemm_out;
    IDMLCompiledOperator *ops[3];
    ID3D12Resource *persistent[3], *weights, *input, *output;
    DML_BUFFER_BINDING gemm_init[3], in_bindings[2], out_binding;
    DML_BUFFER_ARRAY_BINDING init_inputs[3];
    DML_BINDING_DESC in_descs[3], out_desc;
    float data[64], weight_data[10], result[24], expected[24];
    unsigned int i;

    dml_tensor_init_hello(&tensor);
    dml_tensor_init(&a, DML_TENSOR_DATA_TYPE_FLOAT32, 4, a_sizes, DML_TENSOR_FLAG_NONE);
    dml_tensor_init(&b, DML_TENSOR_DATA_TYPE_FLOAT32, 4, b_sizes, DML_TENSOR_FLAG_OWNED_BY_DML);
    dml_tensor_init(&gemm_out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, out_sizes, DML_TENSOR_FLAG_NONE);
    ops[0] = dml_compile(context->dml, dml_create_identity(context->dml, &tensor, &tensor), DML_EXECUTION_FLAG_NONE);
    ops[1] = dml_compile(context->dml, dml_create_gemm(context->dml, &a, &b, NULL, &gemm_out, 1.0f, 0.0f),
            DML_EXECUTION_FLAG_NONE);
    ops[2] = dml_compile(context->dml, dml_create_add(context->dml, &tensor, &tensor, &tensor),
            DML_EXECUTION_FLAG_NONE);

    dml_fill_floats(weight_data, 10, 21, 2.0f);
    weights = dml_create_buffer(context, 256, 0, weight_data, sizeof(weight_data));
    memset(gemm_init, 0, sizeof(gemm_init));
    gemm_init[1] = dml_buffer_binding(weights, 0, dml_tensor_bytes(&b));
    memset(init_inputs, 0, sizeof(init_inputs));
    init_inputs[1].BindingCount = 3;
    init_inputs[1].Bindings = gemm_init;
    dml_initialize(context, ops, 3, persistent, init_inputs);

    dml_fill_floats(data, 64, 22, 4.0f);
    input = dml_create_buffer(context, 512, 0, data, sizeof(data));
    output = dml_create_buffer(context, 256, 0, NULL, 0);

    /* IDENTITY */
    in_bindings[0] = dml_buffer_binding(input, 0, 96);
    out_binding = dml_buffer_binding(output, 0, 96);
    in_descs[0] = dml_binding(&in_bindings[0]);
    out_desc = dml_binding(&out_binding);
    dml_execute(context, ops[0], in_descs, 1, &out_desc, 1, persistent[0]);
    dml_read_buffer(context, output, 0, result, 96);
    assert_int_equal(dml_compare_floats(result, data, 24, 0.0f, 0.0f), -1);

    /* GEMM: A from input, B from the persistent resource. */
    in_bindings[0] = dml_buffer_binding(input, 0, dml_tensor_bytes(&a));
    in_descs[0] = dml_binding(&in_bindings[0]);
    in_descs[1] = dml_binding(NULL);
    in_descs[2] = dml_binding(NULL);
    out_binding = dml_buffer_binding(output, 0, dml_tensor_bytes(&gemm_out));
    dml_execute(context, ops[1], in_descs, 3, &out_desc, 1, persistent[1]);
    dml_read_buffer(context, output, 0, result, 6 * sizeof(float));
    cpu_gemm(data, weight_data, expected, 3, 5, 2);
    assert_int_equal(dml_compare_floats(result, expected, 6, 1e-4f, 1e-5f), -1);

    /* ADD */
    in_bindings[0] = dml_buffer_binding(input, 0, 96);
    in_bindings[1] = dml_buffer_binding(input, 128, 96);
    in_descs[0] = dml_binding(&in_bindings[0]);
    in_descs[1] = dml_binding(&in_bindings[1]);
    out_binding = dml_buffer_binding(output, 0, 96);
    dml_execute(context, ops[2], in_descs, 2, &out_desc, 1, persistent[2]);
    dml_read_buffer(context, output, 0, result, 96);
    for (i = 0; i < 24; ++i)
        expected[i] = data[i] + data[32 + i];
    assert_int_equal(dml_compare_floats(result, expected, 24, 0.0f, 0.0f), -1);

    for (i = 0; i < 3; ++i)
    {
        release_last(ops[i]);
        if (persistent[i])
            release_last(persistent[i]);
    }
    release_last(weights);
    release_last(input);
    release_last(output);
    assert_no_log_errors();
}

/* The OWNED_BY_DML data lives in the persistent resource: overwriting its source after
 * initialization changes nothing, and results repeat across executions. */
static void test_persistent_survives(void **state)
{
    static const UINT a_sizes[] = {1, 1, 4, 6}, b_sizes[] = {1, 1, 6, 3}, out_sizes[] = {1, 1, 4, 3};
    struct dml_context *context = *state;
    struct dml_tensor a, b, out;
    IDMLCompiledOperator *op;
    ID3D12Resource *persistent = NULL, *weights, *input, *output;
    DML_BUFFER_BINDING init[3], in_binding, out_binding;
    DML_BUFFER_ARRAY_BINDING init_inputs;
    DML_BINDING_DESC in_descs[3], out_desc;
    float a_data[24], b_data[18], zeros[18], result[12], expected[12];
    unsigned int run;

    dml_tensor_init(&a, DML_TENSOR_DATA_TYPE_FLOAT32, 4, a_sizes, DML_TENSOR_FLAG_NONE);
    dml_tensor_init(&b, DML_TENSOR_DATA_TYPE_FLOAT32, 4, b_sizes, DML_TENSOR_FLAG_OWNED_BY_DML);
    dml_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, out_sizes, DML_TENSOR_FLAG_NONE);
    op = dml_compile(context->dml, dml_create_gemm(context->dml, &a, &b, NULL, &out, 1.0f, 0.0f),
            DML_EXECUTION_FLAG_NONE);
    dml_fill_floats(a_data, 24, 31, 2.0f);
    dml_fill_floats(b_data, 18, 32, 2.0f);
    memset(zeros, 0, sizeof(zeros));
    cpu_gemm(a_data, b_data, expected, 4, 6, 3);

    /* Weights in an UPLOAD heap (GENERIC_READ): allowed for OWNED_BY_DML initializer inputs. */
    weights = create_upload_buffer(context->d3d.device, 256);
    write_mapped(weights, 0, b_data, sizeof(b_data));
    memset(init, 0, sizeof(init));
    init[1] = dml_buffer_binding(weights, 0, dml_tensor_bytes(&b));
    init_inputs.BindingCount = 3;
    init_inputs.Bindings = init;
    dml_initialize(context, &op, 1, &persistent, &init_inputs);
    assert_non_null(persistent);
    write_mapped(weights, 0, zeros, sizeof(zeros));

    input = dml_create_buffer(context, 256, 0, a_data, sizeof(a_data));
    output = dml_create_buffer(context, 256, 0, NULL, 0);
    in_binding = dml_buffer_binding(input, 0, dml_tensor_bytes(&a));
    out_binding = dml_buffer_binding(output, 0, dml_tensor_bytes(&out));
    in_descs[0] = dml_binding(&in_binding);
    in_descs[1] = dml_binding(NULL);
    in_descs[2] = dml_binding(NULL);
    out_desc = dml_binding(&out_binding);
    for (run = 0; run < 3; ++run)
    {
        memset(result, 0, sizeof(result));
        dml_execute(context, op, in_descs, 3, &out_desc, 1, persistent);
        dml_read_buffer(context, output, 0, result, sizeof(result));
        assert_int_equal(dml_compare_floats(result, expected, 12, 1e-4f, 1e-5f), -1);
    }

    release_last(op);
    release_last(persistent);
    release_last(weights);
    release_last(input);
    release_last(output);
    assert_no_log_errors();
}

/* Initializing twice is an error: CreateOperatorInitializer refuses the target (E_INVALIDARG), or
 * the second initializer dispatch removes the device. */
static void test_initialize_twice(void **state)
{
    struct dml_context *context = *state;
    IDMLOperatorInitializer *initializer = NULL;
    ID3D12Resource *persistent = NULL, *temporary;
    DML_BUFFER_BINDING persistent_binding;
    DML_BINDING_DESC in_desc, out_desc;
    IDMLCompiledOperator *compiled;
    IDMLBindingTable *table;
    struct dml_tensor tensor;
    UINT64 size;
    HRESULT hr;

    dml_tensor_init_hello(&tensor);
    compiled = dml_compile(context->dml, dml_create_identity(context->dml, &tensor, &tensor),
            DML_EXECUTION_FLAG_NONE);
    dml_initialize(context, &compiled, 1, &persistent, NULL);

    hr = IDMLDevice_CreateOperatorInitializer(context->dml, 1, &compiled, &IID_IDMLOperatorInitializer,
            (void **)&initializer);
    if (hr == S_OK)
    {
        table = dml_create_table(context, initializer, 0, 0);
        temporary = bind_resources(context, initializer, table, NULL);
        size = dml_properties(compiled).PersistentResourceSize;
        persistent_binding = dml_buffer_binding(persistent, 0, size);
        out_desc = dml_binding(persistent ? &persistent_binding : NULL);
        in_desc = dml_binding(NULL);
        IDMLBindingTable_BindInputs(table, 1, &in_desc);
        IDMLBindingTable_BindOutputs(table, 1, &out_desc);
        dml_check_not_removed(context->dml);
        dml_record(context, initializer, table);
        dml_check_errors_logged();
        dml_check_removed(context->dml);
        release_last(table);
        release_last(initializer);
        if (temporary)
            release_last(temporary);
    }
    else
    {
        check_hr(hr, E_INVALIDARG);
        assert_null(initializer);
        dml_check_errors_logged();
        dml_check_not_removed(context->dml);
    }
    vkdml_test_log_reset();
    release_last(compiled);
    if (persistent)
        release_last(persistent);
}

static void test_initialize_twice_debug(void **state)
{
    test_initialize_twice(state);
}

/* Executing a compiled operator that needs initialization (OWNED_BY_DML weights) without
 * initializing it, on a debug device: an error, and the device is removed (void method). */
static void test_execute_uninitialized(void **state)
{
    static const UINT a_sizes[] = {1, 1, 2, 2}, out_sizes[] = {1, 1, 2, 2};
    struct dml_context *context = *state;
    struct dml_tensor a, b, out;
    IDMLCompiledOperator *op;
    ID3D12Resource *persistent, *temporary, *input, *output;
    DML_BUFFER_BINDING in_binding, out_binding;
    DML_BINDING_DESC in_descs[3], out_desc;
    IDMLBindingTable *table;

    assert_int_equal(context->flags, DML_CREATE_DEVICE_FLAG_DEBUG);
    dml_tensor_init(&a, DML_TENSOR_DATA_TYPE_FLOAT32, 4, a_sizes, DML_TENSOR_FLAG_NONE);
    dml_tensor_init(&b, DML_TENSOR_DATA_TYPE_FLOAT32, 4, a_sizes, DML_TENSOR_FLAG_OWNED_BY_DML);
    dml_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, out_sizes, DML_TENSOR_FLAG_NONE);
    op = dml_compile(context->dml, dml_create_gemm(context->dml, &a, &b, NULL, &out, 1.0f, 0.0f),
            DML_EXECUTION_FLAG_NONE);
    persistent = dml_create_buffer(context, dml_properties(op).PersistentResourceSize, 0, NULL, 0);
    input = dml_create_buffer(context, 256, 0, NULL, 0);
    output = dml_create_buffer(context, 256, 0, NULL, 0);
    table = dml_create_table(context, op, 0, 0);
    temporary = bind_resources(context, op, table, persistent);
    in_binding = dml_buffer_binding(input, 0, dml_tensor_bytes(&a));
    out_binding = dml_buffer_binding(output, 0, dml_tensor_bytes(&out));
    in_descs[0] = dml_binding(&in_binding);
    in_descs[1] = dml_binding(NULL);
    in_descs[2] = dml_binding(NULL);
    out_desc = dml_binding(&out_binding);
    IDMLBindingTable_BindInputs(table, 3, in_descs);
    IDMLBindingTable_BindOutputs(table, 1, &out_desc);
    dml_check_not_removed(context->dml);
    dml_record(context, op, table);
    dml_check_errors_logged();
    dml_check_removed(context->dml);
    vkdml_test_log_reset();

    release_last(table);
    if (temporary)
        release_last(temporary);
    release_last(op);
    release_last(persistent);
    release_last(input);
    release_last(output);
}

/* ---- DESCRIPTORS_VOLATILE ---- */

/* ADD compiled with DESCRIPTORS_VOLATILE, recorded once before anything is bound, then for each
 * of three executions of the same closed list: rebound to other inputs and another output. */
static void test_volatile_rebind(void **state)
{
    struct dml_context *context = *state;
    IDMLCompiledOperator *op;
    ID3D12Resource *persistent = NULL, *temporary, *a[3], *b[3], *out[3];
    DML_BUFFER_BINDING in_bindings[2], out_binding;
    DML_BINDING_DESC in_descs[2], out_desc;
    float a_data[3][24], b_data[3][24], result[24], expected[24];
    IDMLBindingTable *table;
    struct dml_tensor tensor;
    unsigned int run, i;

    dml_tensor_init_hello(&tensor);
    op = dml_compile(context->dml, dml_create_add(context->dml, &tensor, &tensor, &tensor),
            DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE);
    dml_initialize(context, &op, 1, &persistent, NULL);
    for (run = 0; run < 3; ++run)
    {
        dml_fill_floats(a_data[run], 24, 100 + run, 10.0f);
        dml_fill_floats(b_data[run], 24, 200 + run, 10.0f);
        /* Different offsets each time, too. */
        a[run] = dml_create_buffer(context, 1024, 16 * run, a_data[run], sizeof(a_data[run]));
        b[run] = dml_create_buffer(context, 1024, 256 * run, b_data[run], sizeof(b_data[run]));
        out[run] = dml_create_buffer(context, 1024, 0, NULL, 0);
    }
    table = dml_create_table(context, op, 0, 0);
    temporary = bind_resources(context, op, table, persistent);
    dml_record(context, op, table);
    dml_check_not_removed(context->dml);
    check_hr(ID3D12GraphicsCommandList_Close(context->d3d.list), S_OK);

    for (run = 0; run < 3; ++run)
    {
        in_bindings[0] = dml_buffer_binding(a[run], 16 * run, 96);
        in_bindings[1] = dml_buffer_binding(b[run], 256 * run, 96);
        out_binding = dml_buffer_binding(out[run], 32 * run, 96);
        in_descs[0] = dml_binding(&in_bindings[0]);
        in_descs[1] = dml_binding(&in_bindings[1]);
        out_desc = dml_binding(&out_binding);
        IDMLBindingTable_BindInputs(table, 2, in_descs);
        IDMLBindingTable_BindOutputs(table, 1, &out_desc);
        dml_check_not_removed(context->dml);
        execute_list(context->d3d.queue, context->d3d.list);
        wait_queue_idle(&context->d3d);
    }
    check_hr(ID3D12CommandAllocator_Reset(context->d3d.allocator), S_OK);
    check_hr(ID3D12GraphicsCommandList_Reset(context->d3d.list, context->d3d.allocator, NULL), S_OK);
    dml_set_heap(context);

    /* Each output holds its own run's sum: the descriptors were read at execution time. */
    for (run = 0; run < 3; ++run)
    {
        for (i = 0; i < 24; ++i)
            expected[i] = a_data[run][i] + b_data[run][i];
        dml_read_buffer(context, out[run], 32 * run, result, sizeof(result));
        if (dml_compare_floats(result, expected, 24, 0.0f, 0.0f) != -1)
            fail_msg("run %u: wrong output", run);
    }

    release_last(table);
    if (temporary)
        release_last(temporary);
    for (run = 0; run < 3; ++run)
    {
        release_last(a[run]);
        release_last(b[run]);
        release_last(out[run]);
    }
    if (persistent)
        release_last(persistent);
    release_last(op);
    assert_no_log_errors();
}

/* ---- Threads ---- */

#define THREAD_COUNT 4
#define RECORDS_PER_THREAD 16
#define DESCRIPTORS_PER_THREAD 16

struct record_thread
{
    struct dml_context *context;
    pthread_barrier_t *barrier;
    IDMLCompiledOperator *op;
    ID3D12Resource *persistent, *temporary, *input, *output;
    ID3D12CommandAllocator *allocator;
    ID3D12GraphicsCommandList *list;
    unsigned int index;
    HRESULT hr;                         /* of CreateBindingTable */
};

/* No cmocka asserts here (they longjmp): failures are returned in `hr` and checked by main. */
static void *record_thread_main(void *arg)
{
    struct record_thread *t = arg;
    struct dml_context *context = t->context;
    DML_BINDING_PROPERTIES properties = dml_properties(t->op);
    DML_BUFFER_BINDING in_binding, out_binding, temp_binding, persistent_binding;
    DML_BINDING_DESC in_desc, out_desc, temp_desc, persistent_desc;
    ID3D12DescriptorHeap *heaps[] = {context->heap};
    IDMLBindingTable *table = NULL;
    DML_BINDING_TABLE_DESC desc;
    unsigned int i;

    desc.Dispatchable = (IDMLDispatchable *)t->op;
    desc.CPUDescriptorHandle = cpu_handle(context->heap, context->increment, t->index * DESCRIPTORS_PER_THREAD);
    desc.GPUDescriptorHandle = gpu_handle(context->heap, context->increment, t->index * DESCRIPTORS_PER_THREAD);
    desc.SizeInDescriptors = DESCRIPTORS_PER_THREAD;

    pthread_barrier_wait(t->barrier);
    if (FAILED(t->hr = IDMLDevice_CreateBindingTable(context->dml, &desc, &IID_IDMLBindingTable, (void **)&table)))
        return NULL;
    if (t->temporary)
    {
        temp_binding = dml_buffer_binding(t->temporary, 0, properties.TemporaryResourceSize);
        temp_desc = dml_binding(&temp_binding);
        IDMLBindingTable_BindTemporaryResource(table, &temp_desc);
    }
    if (t->persistent)
    {
        persistent_binding = dml_buffer_binding(t->persistent, 0, properties.PersistentResourceSize);
        persistent_desc = dml_binding(&persistent_binding);
        IDMLBindingTable_BindPersistentResource(table, &persistent_desc);
    }
    in_binding = dml_buffer_binding(t->input, 0, 96);
    out_binding = dml_buffer_binding(t->output, 0, 96);
    in_desc = dml_binding(&in_binding);
    out_desc = dml_binding(&out_binding);
    IDMLBindingTable_BindInputs(table, 1, &in_desc);
    IDMLBindingTable_BindOutputs(table, 1, &out_desc);
    ID3D12GraphicsCommandList_SetDescriptorHeaps(t->list, 1, heaps);
    for (i = 0; i < RECORDS_PER_THREAD; ++i)
    {
        IDMLCommandRecorder_RecordDispatch(context->recorder, (ID3D12CommandList *)t->list,
                (IDMLDispatchable *)t->op, table);
        uav_barrier(t->list, NULL);
    }
    IDMLBindingTable_Release(table);
    return NULL;
}

static void test_record_from_threads(void **state)
{
    struct dml_context *context = *state;
    struct record_thread threads[THREAD_COUNT];
    ID3D12CommandList *lists[THREAD_COUNT];
    pthread_t handles[THREAD_COUNT];
    pthread_barrier_t barrier;
    ID3D12Resource *persistent = NULL;
    IDMLCompiledOperator *op;
    struct dml_tensor tensor;
    float data[THREAD_COUNT][24], result[24];
    UINT64 temporary_size;
    unsigned int i;

    dml_tensor_init_hello(&tensor);
    op = dml_compile(context->dml, dml_create_identity(context->dml, &tensor, &tensor), DML_EXECUTION_FLAG_NONE);
    dml_initialize(context, &op, 1, &persistent, NULL);
    assert_true(dml_properties(op).RequiredDescriptorCount <= DESCRIPTORS_PER_THREAD);
    temporary_size = dml_properties(op).TemporaryResourceSize;

    memset(threads, 0, sizeof(threads));
    pthread_barrier_init(&barrier, NULL, THREAD_COUNT);
    for (i = 0; i < THREAD_COUNT; ++i)
    {
        struct record_thread *t = &threads[i];

        t->context = context;
        t->barrier = &barrier;
        t->op = op;
        t->index = i;
        t->persistent = persistent;
        /* Each thread its own temporary resource: the dispatches may overlap on the GPU. */
        t->temporary = temporary_size ? dml_create_buffer(context, temporary_size, 0, NULL, 0) : NULL;
        dml_fill_floats(data[i], 24, 300 + i, 50.0f);
        t->input = dml_create_buffer(context, 256, 0, data[i], sizeof(data[i]));
        t->output = dml_create_buffer(context, 256, 0, NULL, 0);
        check_hr(ID3D12Device_CreateCommandAllocator(context->d3d.device, D3D12_COMMAND_LIST_TYPE_DIRECT,
                &IID_ID3D12CommandAllocator, (void **)&t->allocator), S_OK);
        check_hr(ID3D12Device_CreateCommandList(context->d3d.device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT,
                t->allocator, NULL, &IID_ID3D12GraphicsCommandList, (void **)&t->list), S_OK);
    }
    /* The buffers' transitions to UNORDERED_ACCESS are in the context list: run them first. */
    dml_execute_and_wait(context);

    for (i = 0; i < THREAD_COUNT; ++i)
        assert_int_equal(pthread_create(&handles[i], NULL, record_thread_main, &threads[i]), 0);
    for (i = 0; i < THREAD_COUNT; ++i)
        assert_int_equal(pthread_join(handles[i], NULL), 0);
    pthread_barrier_destroy(&barrier);

    for (i = 0; i < THREAD_COUNT; ++i)
    {
        check_hr(threads[i].hr, S_OK);
        check_hr(ID3D12GraphicsCommandList_Close(threads[i].list), S_OK);
        lists[i] = (ID3D12CommandList *)threads[i].list;
    }
    dml_check_not_removed(context->dml);
    ID3D12CommandQueue_ExecuteCommandLists(context->d3d.queue, THREAD_COUNT, lists);
    wait_queue_idle(&context->d3d);

    for (i = 0; i < THREAD_COUNT; ++i)
    {
        struct record_thread *t = &threads[i];

        dml_read_buffer(context, t->output, 0, result, sizeof(result));
        if (dml_compare_floats(result, data[i], 24, 0.0f, 0.0f) != -1)
            fail_msg("thread %u: wrong output", i);
        release_last(t->list);
        release_last(t->allocator);
        release_last(t->input);
        release_last(t->output);
        if (t->temporary)
            release_last(t->temporary);
    }
    if (persistent)
        release_last(persistent);
    release_last(op);
    assert_no_log_errors();
}

/* The device is thread-safe: 4 threads create and compile operators on it at once. */
struct compile_thread
{
    IDMLDevice *device;
    pthread_barrier_t *barrier;
    const struct dml_tensor *tensor;
    IDMLCompiledOperator *compiled[8];
    HRESULT hr;
};

static void *compile_thread_main(void *arg)
{
    struct compile_thread *t = arg;
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC desc = {&t->tensor->desc, &t->tensor->desc, &t->tensor->desc};
    DML_OPERATOR_DESC op_desc = {DML_OPERATOR_ELEMENT_WISE_ADD, &desc};
    IDMLOperator *op = NULL;
    unsigned int i;

    pthread_barrier_wait(t->barrier);
    for (i = 0; i < ARRAY_SIZE(t->compiled); ++i)
    {
        if (FAILED(t->hr = IDMLDevice_CreateOperator(t->device, &op_desc, &IID_IDMLOperator, (void **)&op)))
            return NULL;
        t->hr = IDMLDevice_CompileOperator(t->device, op, DML_EXECUTION_FLAG_NONE, &IID_IDMLCompiledOperator,
                (void **)&t->compiled[i]);
        IDMLOperator_Release(op);
        if (FAILED(t->hr))
            return NULL;
    }
    return NULL;
}

static void test_compile_from_threads(void **state)
{
    struct dml_context *context = *state;
    struct compile_thread threads[THREAD_COUNT];
    pthread_t handles[THREAD_COUNT];
    ID3D12Resource *persistent[2] = {NULL, NULL}, *input, *output;
    DML_BUFFER_BINDING in_binding, out_binding;
    DML_BINDING_DESC in_descs[2], out_desc;
    IDMLCompiledOperator *pair[2];
    pthread_barrier_t barrier;
    struct dml_tensor tensor;
    float data[24], result[24], expected[24];
    unsigned int i, j;

    dml_tensor_init_hello(&tensor);
    memset(threads, 0, sizeof(threads));
    pthread_barrier_init(&barrier, NULL, THREAD_COUNT);
    for (i = 0; i < THREAD_COUNT; ++i)
    {
        threads[i].device = context->dml;
        threads[i].barrier = &barrier;
        threads[i].tensor = &tensor;
        assert_int_equal(pthread_create(&handles[i], NULL, compile_thread_main, &threads[i]), 0);
    }
    for (i = 0; i < THREAD_COUNT; ++i)
        assert_int_equal(pthread_join(handles[i], NULL), 0);
    pthread_barrier_destroy(&barrier);
    for (i = 0; i < THREAD_COUNT; ++i)
        check_hr(threads[i].hr, S_OK);

    /* The first and last compiled by different threads both work. */
    pair[0] = threads[0].compiled[0];
    pair[1] = threads[THREAD_COUNT - 1].compiled[7];
    dml_initialize(context, pair, 2, persistent, NULL);
    dml_fill_floats(data, 24, 400, 8.0f);
    input = dml_create_buffer(context, 256, 0, data, sizeof(data));
    output = dml_create_buffer(context, 256, 0, NULL, 0);
    in_binding = dml_buffer_binding(input, 0, 96);
    out_binding = dml_buffer_binding(output, 0, 96);
    in_descs[0] = in_descs[1] = dml_binding(&in_binding);
    out_desc = dml_binding(&out_binding);
    for (i = 0; i < 24; ++i)
        expected[i] = data[i] + data[i];
    for (i = 0; i < 2; ++i)
    {
        memset(result, 0, sizeof(result));
        dml_execute(context, pair[i], in_descs, 2, &out_desc, 1, persistent[i]);
        dml_read_buffer(context, output, 0, result, sizeof(result));
        assert_int_equal(dml_compare_floats(result, expected, 24, 0.0f, 0.0f), -1);
        if (persistent[i])
            release_last(persistent[i]);
    }
    for (i = 0; i < THREAD_COUNT; ++i)
        for (j = 0; j < ARRAY_SIZE(threads[i].compiled); ++j)
            release_last(threads[i].compiled[j]);
    release_last(input);
    release_last(output);
    assert_no_log_errors();
}

int main(void)
{
#define TEST(name) cmocka_unit_test_setup_teardown(name, dml_context_setup, dml_context_teardown)
#define DEBUG_TEST(name) cmocka_unit_test_setup_teardown(name, dml_debug_context_setup, dml_context_teardown)
    const struct CMUnitTest tests[] =
    {
        TEST(test_initializer_zero_operators),
        TEST(test_initializer_several_targets),
        TEST(test_persistent_survives),
        TEST(test_initialize_twice),
        DEBUG_TEST(test_initialize_twice_debug),
        DEBUG_TEST(test_execute_uninitialized),
        TEST(test_volatile_rebind),
        TEST(test_record_from_threads),
        TEST(test_compile_from_threads),
    };
#undef TEST
#undef DEBUG_TEST

    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
