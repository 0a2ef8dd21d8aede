/*
 * Misuse a careless or hostile application commits, one regression test per defect of issue 17:
 * none may crash or hang the process; each is refused with exactly one log line, and misuse in a
 * void method removes the DML device (README "DirectML in vkdml: decisions").
 */
#include <pthread.h>

#include "dml/dml_rules_utils.h"

#define BUFFER_SIZE 4096

/* An initialized IDENTITY on the hello tensor (FLOAT32 {1,2,3,4}, 96 bytes). */
static IDMLCompiledOperator *create_identity(struct dml_context *context, struct dml_tensor *tensor,
        DML_EXECUTION_FLAGS flags)
{
    IDMLCompiledOperator *op;
    ID3D12Resource *persistent = NULL;

    dml_tensor_init_hello(tensor);
    op = dml_compile(context->dml, dml_create_identity(context->dml, tensor, tensor), flags);
    dml_initialize(context, &op, 1, &persistent, NULL);
    assert_null(persistent);
    assert_int_equal(dml_properties(op).TemporaryResourceSize, 0);
    return op;
}

/* Exactly one error line naming `what`, then the DML device is removed (which logs on its own). */
static void check_removed_with_one_line(struct dml_context *context, const char *what)
{
    check_one_error(what);
    dml_check_removed(context->dml);
    vkdml_test_log_reset();
}

/* ---- 1: SetName on operators that share pipelines, from several threads ---- */

#define NAME_THREADS 4
#define NAMES_PER_THREAD 50000

struct name_thread
{
    IDMLCompiledOperator *const *ops;
    pthread_barrier_t *barrier;
    unsigned int index;
    HRESULT hr;
};

static void *name_thread_main(void *arg)
{
    struct name_thread *t = arg;
    WCHAR name[] = {'s', 'q', 'r', 't', '0', '0', 0};
    unsigned int i;

    pthread_barrier_wait(t->barrier);
    for (i = 0; i < NAMES_PER_THREAD && SUCCEEDED(t->hr); ++i)
    {
        name[4] = (WCHAR)('0' + t->index);
        name[5] = (WCHAR)('0' + i % 10);
        t->hr = IDMLCompiledOperator_SetName(t->ops[(t->index + i) % NAME_THREADS], name);
    }
    return NULL;
}

static void test_set_name_from_threads(void **state)
{
    struct dml_context *context = *state;
    IDMLCompiledOperator *ops[NAME_THREADS];
    struct name_thread threads[NAME_THREADS];
    DML_ELEMENT_WISE_SQRT_OPERATOR_DESC desc;
    pthread_t handles[NAME_THREADS];
    pthread_barrier_t barrier;
    struct dml_tensor tensor;
    UINT size = 32;
    unsigned int i;

    /* Identical compiled operators: one pipeline, named by every thread. */
    dml_tensor_init(&tensor, DML_TENSOR_DATA_TYPE_FLOAT32, 1, &size, DML_TENSOR_FLAG_NONE);
    memset(&desc, 0, sizeof(desc));
    desc.InputTensor = &tensor.desc;
    desc.OutputTensor = &tensor.desc;
    for (i = 0; i < NAME_THREADS; ++i)
        ops[i] = dml_compile(context->dml, dml_create_operator(context->dml, DML_OPERATOR_ELEMENT_WISE_SQRT, &desc),
                DML_EXECUTION_FLAG_NONE);
    pthread_barrier_init(&barrier, NULL, NAME_THREADS);
    for (i = 0; i < NAME_THREADS; ++i)
    {
        threads[i].ops = ops;
        threads[i].barrier = &barrier;
        threads[i].index = i;
        threads[i].hr = S_OK;
        assert_int_equal(pthread_create(&handles[i], NULL, name_thread_main, &threads[i]), 0);
    }
    for (i = 0; i < NAME_THREADS; ++i)
        assert_int_equal(pthread_join(handles[i], NULL), 0);
    pthread_barrier_destroy(&barrier);
    for (i = 0; i < NAME_THREADS; ++i)
        check_hr(threads[i].hr, S_OK);
    dml_check_not_removed(context->dml);
    for (i = 0; i < NAME_THREADS; ++i)
        release_last(ops[i]);
    assert_no_log_errors();
}

/* ---- 5: an output overlapping an input of the same buffer ---- */

static void bind_identity(IDMLBindingTable *table, ID3D12Resource *input, UINT64 input_offset, ID3D12Resource *output,
        UINT64 output_offset)
{
    DML_BUFFER_BINDING in_binding = dml_buffer_binding(input, input_offset, 96);
    DML_BUFFER_BINDING out_binding = dml_buffer_binding(output, output_offset, 96);
    DML_BINDING_DESC in_desc = dml_binding(&in_binding), out_desc = dml_binding(&out_binding);

    IDMLBindingTable_BindInputs(table, 1, &in_desc);
    IDMLBindingTable_BindOutputs(table, 1, &out_desc);
}

static void test_overlapping_input_output(void **state)
{
    struct dml_context *context = *state;
    float data[BUFFER_SIZE / sizeof(float)], result[24];
    IDMLBindingTable *table;
    struct dml_tensor tensor;
    IDMLCompiledOperator *op;
    ID3D12Resource *buffer;

    op = create_identity(context, &tensor, DML_EXECUTION_FLAG_NONE);
    dml_fill_floats(data, ARRAY_SIZE(data), 5, 50.0f);
    buffer = dml_create_buffer(context, BUFFER_SIZE, 0, data, sizeof(data));

    /* In place over exactly the input's range: allowed (IDENTITY is element-wise). */
    table = dml_create_table(context, op, 0, 0);
    bind_identity(table, buffer, 256, buffer, 256);
    dml_record(context, op, table);
    dml_check_not_removed(context->dml);
    dml_execute_and_wait(context);
    dml_read_buffer(context, buffer, 256, result, sizeof(result));
    assert_int_equal(dml_compare_floats(result, data + 64, 24, 0.0f, 0.0f), -1);
    /* Disjoint ranges of one buffer: allowed too. */
    bind_identity(table, buffer, 0, buffer, 512);
    dml_check_not_removed(context->dml);
    assert_no_log_errors();

    /* Offsets 0 and 16: refused at BindOutputs. */
    bind_identity(table, buffer, 0, buffer, 16);
    check_removed_with_one_line(context, "overlaps");
    release_last(table);
    release_last(buffer);
    release_last(op);
}

/* Outputs bound before inputs: RecordDispatch refuses the overlap. */
static void test_overlapping_output_first(void **state)
{
    struct dml_context *context = *state;
    DML_BUFFER_BINDING in_binding, out_binding;
    DML_BINDING_DESC in_desc, out_desc;
    IDMLBindingTable *table;
    struct dml_tensor tensor;
    IDMLCompiledOperator *op;
    ID3D12Resource *buffer;

    op = create_identity(context, &tensor, DML_EXECUTION_FLAG_NONE);
    buffer = dml_create_buffer(context, BUFFER_SIZE, 0, NULL, 0);
    table = dml_create_table(context, op, 0, 0);
    out_binding = dml_buffer_binding(buffer, 16, 96);
    in_binding = dml_buffer_binding(buffer, 0, 96);
    out_desc = dml_binding(&out_binding);
    in_desc = dml_binding(&in_binding);
    IDMLBindingTable_BindOutputs(table, 1, &out_desc);
    IDMLBindingTable_BindInputs(table, 1, &in_desc);
    dml_check_not_removed(context->dml);
    IDMLCommandRecorder_RecordDispatch(context->recorder, (ID3D12CommandList *)context->d3d.list,
            (IDMLDispatchable *)op, table);
    check_removed_with_one_line(context, "overlaps");
    release_last(table);
    release_last(buffer);
    release_last(op);
}

/* Two outputs over shared bytes (TOP_K1's values and indices): refused at BindOutputs. */
static void test_overlapping_outputs(void **state)
{
    static const UINT in_sizes[2] = {1, 16}, out_sizes[2] = {1, 8};
    struct dml_context *context = *state;
    struct dml_tensor input, values, indices;
    DML_BUFFER_BINDING in_binding, out_bindings[2];
    DML_BINDING_DESC in_desc, out_descs[2];
    DML_TOP_K1_OPERATOR_DESC desc;
    IDMLBindingTable *table;
    ID3D12Resource *buffer, *persistent = NULL;
    IDMLCompiledOperator *op;

    dml_tensor_init(&input, DML_TENSOR_DATA_TYPE_FLOAT32, 2, in_sizes, DML_TENSOR_FLAG_NONE);
    dml_tensor_init(&values, DML_TENSOR_DATA_TYPE_FLOAT32, 2, out_sizes, DML_TENSOR_FLAG_NONE);
    dml_tensor_init(&indices, DML_TENSOR_DATA_TYPE_UINT32, 2, out_sizes, DML_TENSOR_FLAG_NONE);
    desc = (DML_TOP_K1_OPERATOR_DESC){&input.desc, &values.desc, &indices.desc, 1, 8, DML_AXIS_DIRECTION_DECREASING};
    op = dml_compile(context->dml, dml_create_operator(context->dml, DML_OPERATOR_TOP_K1, &desc),
            DML_EXECUTION_FLAG_NONE);
    dml_initialize(context, &op, 1, &persistent, NULL);
    assert_null(persistent);
    buffer = dml_create_buffer(context, BUFFER_SIZE, 0, NULL, 0);
    table = dml_create_table(context, op, 0, 0);
    in_binding = dml_buffer_binding(buffer, 0, dml_tensor_bytes(&input));
    in_desc = dml_binding(&in_binding);
    IDMLBindingTable_BindInputs(table, 1, &in_desc);

    /* Disjoint: allowed. */
    out_bindings[0] = dml_buffer_binding(buffer, 256, dml_tensor_bytes(&values));
    out_bindings[1] = dml_buffer_binding(buffer, 512, dml_tensor_bytes(&indices));
    out_descs[0] = dml_binding(&out_bindings[0]);
    out_descs[1] = dml_binding(&out_bindings[1]);
    IDMLBindingTable_BindOutputs(table, 2, out_descs);
    dml_check_not_removed(context->dml);
    assert_no_log_errors();

    /* The indices over the values' second half (32 bytes each; offsets are multiples of 16): refused. */
    out_bindings[1] = dml_buffer_binding(buffer, 256 + 16, dml_tensor_bytes(&indices));
    IDMLBindingTable_BindOutputs(table, 2, out_descs);
    check_removed_with_one_line(context, "output 1 overlaps output 0");
    release_last(table);
    release_last(buffer);
    release_last(op);
}

/* ---- 7: BindTemporaryResource({BUFFER, NULL}) ---- */

static void test_temporary_null_desc(void **state)
{
    struct dml_context *context = *state;
    DML_BINDING_DESC desc = {DML_BINDING_TYPE_BUFFER, NULL};
    IDMLBindingTable *table;
    struct dml_tensor tensor;
    IDMLCompiledOperator *op;

    /* IDENTITY needs no temporary resource: NONE and NULL are fine, a BUFFER without a desc is not. */
    op = create_identity(context, &tensor, DML_EXECUTION_FLAG_NONE);
    table = dml_create_table(context, op, 0, 0);
    IDMLBindingTable_BindTemporaryResource(table, NULL);
    dml_check_not_removed(context->dml);
    IDMLBindingTable_BindTemporaryResource(table, &desc);
    check_removed_with_one_line(context, "BindTemporaryResource");
    release_last(table);
    release_last(op);
}

/* ---- 2: a DESCRIPTORS_VOLATILE dispatch executed with unwritten bindings ---- */

/* Kernels would read address 0 from the unwritten records: the queue must refuse the list instead,
 * remove the DML device, complete the fence and leave the D3D12 device usable. */
static void run_volatile_unbound(struct dml_context *context, bool bind_input, const char *missing)
{
    DML_BUFFER_BINDING in_binding, out_binding;
    DML_BINDING_DESC in_desc, out_desc;
    float data[24], result[24];
    IDMLBindingTable *table;
    struct dml_tensor tensor;
    IDMLCompiledOperator *op;
    ID3D12Resource *input, *output;

    op = create_identity(context, &tensor, DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE);
    dml_fill_floats(data, ARRAY_SIZE(data), 7, 20.0f);
    input = dml_create_buffer(context, BUFFER_SIZE, 0, data, sizeof(data));
    output = dml_create_buffer(context, BUFFER_SIZE, 0, NULL, 0);
    in_binding = dml_buffer_binding(input, 0, 96);
    out_binding = dml_buffer_binding(output, 0, 96);
    in_desc = dml_binding(&in_binding);
    out_desc = dml_binding(&out_binding);
    /* Descriptors no earlier table of this test wrote. */
    table = dml_create_table(context, op, DML_CONTEXT_DESCRIPTORS / 2, 0);
    if (bind_input)
        IDMLBindingTable_BindInputs(table, 1, &in_desc);
    dml_record(context, op, table);
    dml_check_not_removed(context->dml);
    assert_no_log_errors();

    execute_and_wait(&context->d3d);
    check_removed_with_one_line(context, missing);
    release_last(table);
    release_last(op);

    /* The D3D12 device still runs work: a new DML device executes the same operator. */
    dml_context_recreate_device(context);
    dml_set_heap(context);
    op = create_identity(context, &tensor, DML_EXECUTION_FLAG_NONE);
    dml_execute(context, op, &in_desc, 1, &out_desc, 1, NULL);
    dml_read_buffer(context, output, 0, result, sizeof(result));
    assert_int_equal(dml_compare_floats(result, data, 24, 0.0f, 0.0f), -1);
    release_last(op);
    release_last(input);
    release_last(output);
    assert_no_log_errors();
}

static void test_volatile_nothing_bound(void **state)
{
    run_volatile_unbound(*state, false, "input 0");
}

static void test_volatile_only_input_bound(void **state)
{
    run_volatile_unbound(*state, true, "output 0");
}

int main(void)
{
#define TEST(name) cmocka_unit_test_setup_teardown(name, dml_context_setup, dml_context_teardown)
    const struct CMUnitTest tests[] =
    {
        TEST(test_set_name_from_threads),
        TEST(test_overlapping_input_output),
        TEST(test_overlapping_output_first),
        TEST(test_overlapping_outputs),
        TEST(test_temporary_null_desc),
        TEST(test_volatile_nothing_bound),
        TEST(test_volatile_only_input_bound),
    };
#undef TEST

    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
