/*
 * Binding rules of IDMLBindingTable and IDMLCommandRecorder::RecordDispatch (fact sheet §9.1,
 * §9.3), black-box. Bind* and RecordDispatch return void: DirectML reports their misuse by
 * removing the DML device, so every misuse case checks that an error is logged, that
 * GetDeviceRemovedReason fails and that an HRESULT method then answers DXGI_ERROR_DEVICE_REMOVED.
 * Count mismatches must be caught by the Bind call itself; the other rules by the Bind call or,
 * at the latest, by the RecordDispatch that follows. Positive cases check the results.
 */
#include "dml/dml_rules_utils.h"

#define BUFFER_SIZE 4096

struct fixture
{
    struct dml_tensor tensor;           /* IDENTITY/ADD: FLOAT32 {1,2,3,4}, 96 bytes */
    struct dml_tensor a, b, out;        /* GEMM: {1,1,4,8} x {1,1,8,4} (B OWNED_BY_DML) */
    IDMLCompiledOperator *op;
    ID3D12Resource *persistent, *temporary;
    ID3D12Resource *input, *output;     /* BUFFER_SIZE each; input holds `data` at 0 */
    IDMLBindingTable *table;
    DML_BUFFER_BINDING in_binding[3], out_binding;
    DML_BINDING_DESC in_desc[3], out_desc;
    float data[BUFFER_SIZE / sizeof(float)];
};

/* Table with temporary and persistent resources bound, input/output bindings prepared. */
static void prepare_table(struct dml_context *context, struct fixture *f)
{
    DML_BINDING_PROPERTIES properties = dml_properties(f->op);
    DML_BUFFER_BINDING binding;
    DML_BINDING_DESC desc;

    f->table = dml_create_table(context, f->op, 0, 0);
    if (properties.TemporaryResourceSize)
    {
        f->temporary = dml_create_buffer(context, properties.TemporaryResourceSize, 0, NULL, 0);
        binding = dml_buffer_binding(f->temporary, 0, properties.TemporaryResourceSize);
        desc = dml_binding(&binding);
        IDMLBindingTable_BindTemporaryResource(f->table, &desc);
    }
    if (properties.PersistentResourceSize)
    {
        binding = dml_buffer_binding(f->persistent, 0, properties.PersistentResourceSize);
        desc = dml_binding(&binding);
        IDMLBindingTable_BindPersistentResource(f->table, &desc);
    }
    dml_check_not_removed(context->dml);
}

static void prepare_buffers(struct dml_context *context, struct fixture *f)
{
    dml_fill_floats(f->data, ARRAY_SIZE(f->data), 3, 100.0f);
    f->input = dml_create_buffer(context, BUFFER_SIZE, 0, f->data, sizeof(f->data));
    f->output = dml_create_buffer(context, BUFFER_SIZE, 0, NULL, 0);
}

static void set_bindings(struct fixture *f, UINT input_count, UINT64 input_size, UINT64 output_size)
{
    UINT i;

    for (i = 0; i < input_count; ++i)
    {
        f->in_binding[i] = dml_buffer_binding(f->input, 0, input_size);
        f->in_desc[i] = dml_binding(&f->in_binding[i]);
    }
    f->out_binding = dml_buffer_binding(f->output, 0, output_size);
    f->out_desc = dml_binding(&f->out_binding);
}

/* An initialized IDENTITY on the hello tensor (with `alignment` as GuaranteedBaseOffsetAlignment). */
static void prepare_identity_aligned(struct dml_context *context, struct fixture *f, UINT alignment)
{
    memset(f, 0, sizeof(*f));
    dml_tensor_init_hello(&f->tensor);
    f->tensor.buffer.GuaranteedBaseOffsetAlignment = alignment;
    f->op = dml_compile(context->dml, dml_create_identity(context->dml, &f->tensor, &f->tensor),
            DML_EXECUTION_FLAG_NONE);
    dml_initialize(context, &f->op, 1, &f->persistent, NULL);
    prepare_buffers(context, f);
    prepare_table(context, f);
    set_bindings(f, 1, dml_tensor_bytes(&f->tensor), dml_tensor_bytes(&f->tensor));
}

static void prepare_identity(struct dml_context *context, struct fixture *f)
{
    prepare_identity_aligned(context, f, 0);
}

static void prepare_add(struct dml_context *context, struct fixture *f)
{
    memset(f, 0, sizeof(*f));
    dml_tensor_init_hello(&f->tensor);
    f->op = dml_compile(context->dml, dml_create_add(context->dml, &f->tensor, &f->tensor, &f->tensor),
            DML_EXECUTION_FLAG_NONE);
    dml_initialize(context, &f->op, 1, &f->persistent, NULL);
    prepare_buffers(context, f);
    prepare_table(context, f);
    set_bindings(f, 2, dml_tensor_bytes(&f->tensor), dml_tensor_bytes(&f->tensor));
}

/* GEMM with B OWNED_BY_DML, initialized from f->input at offset 0 (the weights); at execution
 * A is bound at offset 256 of f->input, B and C are NONE. */
static void prepare_gemm(struct dml_context *context, struct fixture *f)
{
    static const UINT a_sizes[] = {1, 1, 4, 8}, b_sizes[] = {1, 1, 8, 4}, out_sizes[] = {1, 1, 4, 4};
    DML_BUFFER_BINDING init_bindings[3];
    DML_BUFFER_ARRAY_BINDING init_inputs;

    memset(f, 0, sizeof(*f));
    dml_tensor_init(&f->a, DML_TENSOR_DATA_TYPE_FLOAT32, 4, a_sizes, DML_TENSOR_FLAG_NONE);
    dml_tensor_init(&f->b, DML_TENSOR_DATA_TYPE_FLOAT32, 4, b_sizes, DML_TENSOR_FLAG_OWNED_BY_DML);
    dml_tensor_init(&f->out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, out_sizes, DML_TENSOR_FLAG_NONE);
    f->op = dml_compile(context->dml, dml_create_gemm(context->dml, &f->a, &f->b, NULL, &f->out, 1.0f, 0.0f),
            DML_EXECUTION_FLAG_NONE);
    /* OWNED_BY_DML weights end up in the persistent resource. */
    assert_true(dml_properties(f->op).PersistentResourceSize > 0);
    prepare_buffers(context, f);
    memset(init_bindings, 0, sizeof(init_bindings));
    init_bindings[1] = dml_buffer_binding(f->input, 0, dml_tensor_bytes(&f->b));
    init_inputs.BindingCount = 3;
    init_inputs.Bindings = init_bindings;
    dml_initialize(context, &f->op, 1, &f->persistent, &init_inputs);
    prepare_table(context, f);
    f->in_binding[0] = dml_buffer_binding(f->input, 256, dml_tensor_bytes(&f->a));
    f->in_desc[0] = dml_binding(&f->in_binding[0]);
    f->in_desc[1] = dml_binding(NULL);
    f->in_desc[2] = dml_binding(NULL);
    f->out_binding = dml_buffer_binding(f->output, 0, dml_tensor_bytes(&f->out));
    f->out_desc = dml_binding(&f->out_binding);
}

static void release_fixture(struct fixture *f)
{
    if (f->table)
        release_last(f->table);
    release_last(f->op);
    if (f->persistent)
        release_last(f->persistent);
    if (f->temporary)
        release_last(f->temporary);
    release_last(f->input);
    release_last(f->output);
}

/* Records and executes with the table as it is; checks the device stays usable. */
static void record_and_run(struct dml_context *context, struct fixture *f)
{
    dml_record(context, f->op, f->table);
    dml_check_not_removed(context->dml);
    dml_execute_and_wait(context);
    dml_check_not_removed(context->dml);
}

/* The misuse just made must already have removed the device. */
static void check_removed_now(struct dml_context *context)
{
    dml_check_errors_logged();
    dml_check_removed(context->dml);
    vkdml_test_log_reset();
}

/* The misuse must remove the device by the RecordDispatch that follows, at the latest. */
static void check_removed_by_record(struct dml_context *context, struct fixture *f)
{
    if (IDMLDevice_GetDeviceRemovedReason(context->dml) == S_OK)
        dml_record(context, f->op, f->table);
    check_removed_now(context);
}

/* ---- Valid bindings ---- */

static void test_valid_bindings(void **state)
{
    struct dml_context *context = *state;
    float result[24], expected[24];
    struct fixture f;
    unsigned int i;

    prepare_identity(context, &f);
    /* Offsets that are multiples of 16, sizes larger than needed. */
    f.in_binding[0] = dml_buffer_binding(f.input, 16, 200);
    f.out_binding = dml_buffer_binding(f.output, 48, BUFFER_SIZE - 48);
    IDMLBindingTable_BindInputs(f.table, 1, f.in_desc);
    IDMLBindingTable_BindOutputs(f.table, 1, &f.out_desc);
    record_and_run(context, &f);
    dml_read_buffer(context, f.output, 48, result, sizeof(result));
    assert_int_equal(dml_compare_floats(result, f.data + 4, 24, 0.0f, 0.0f), -1);

    /* Unbind everything (BindInputs(0, NULL) is legal), bind again elsewhere, run again. */
    IDMLBindingTable_BindInputs(f.table, 0, NULL);
    IDMLBindingTable_BindOutputs(f.table, 0, NULL);
    dml_check_not_removed(context->dml);
    f.in_binding[0] = dml_buffer_binding(f.input, 1024, 96);
    f.out_binding = dml_buffer_binding(f.output, 2048, 96);
    IDMLBindingTable_BindInputs(f.table, 1, f.in_desc);
    IDMLBindingTable_BindOutputs(f.table, 1, &f.out_desc);
    record_and_run(context, &f);
    dml_read_buffer(context, f.output, 2048, result, sizeof(result));
    assert_int_equal(dml_compare_floats(result, f.data + 256, 24, 0.0f, 0.0f), -1);
    release_fixture(&f);

    /* ADD: both inputs may be the same range of one resource. */
    prepare_add(context, &f);
    f.in_binding[0] = dml_buffer_binding(f.input, 32, 96);
    f.in_binding[1] = dml_buffer_binding(f.input, 32, 96);
    IDMLBindingTable_BindInputs(f.table, 2, f.in_desc);
    IDMLBindingTable_BindOutputs(f.table, 1, &f.out_desc);
    record_and_run(context, &f);
    dml_read_buffer(context, f.output, 0, result, sizeof(result));
    for (i = 0; i < 24; ++i)
        expected[i] = f.data[8 + i] + f.data[8 + i];
    assert_int_equal(dml_compare_floats(result, expected, 24, 0.0f, 0.0f), -1);
    release_fixture(&f);
    assert_no_log_errors();
}

/* GuaranteedBaseOffsetAlignment 256: an offset of 256 is fine, 16 is not (next test). */
static void test_valid_guaranteed_alignment(void **state)
{
    struct dml_context *context = *state;
    float result[24];
    struct fixture f;

    prepare_identity_aligned(context, &f, 256);
    f.in_binding[0] = dml_buffer_binding(f.input, 512, 96);
    f.out_binding = dml_buffer_binding(f.output, 256, 96);
    IDMLBindingTable_BindInputs(f.table, 1, f.in_desc);
    IDMLBindingTable_BindOutputs(f.table, 1, &f.out_desc);
    record_and_run(context, &f);
    dml_read_buffer(context, f.output, 256, result, sizeof(result));
    assert_int_equal(dml_compare_floats(result, f.data + 128, 24, 0.0f, 0.0f), -1);
    release_fixture(&f);
    assert_no_log_errors();
}

static void test_guaranteed_alignment_broken(void **state)
{
    struct dml_context *context = *state;
    struct fixture f;

    prepare_identity_aligned(context, &f, 256);
    f.in_binding[0] = dml_buffer_binding(f.input, 16, 96);
    IDMLBindingTable_BindInputs(f.table, 1, f.in_desc);
    IDMLBindingTable_BindOutputs(f.table, 1, &f.out_desc);
    check_removed_by_record(context, &f);
    release_fixture(&f);
}

/* GEMM with OWNED_BY_DML weights: B and C NONE at execution; results against the CPU. */
static void test_valid_owned_by_dml(void **state)
{
    struct dml_context *context = *state;
    float result[16], expected[16];
    struct fixture f;
    unsigned int m, n, k;

    prepare_gemm(context, &f);
    IDMLBindingTable_BindInputs(f.table, 3, f.in_desc);
    IDMLBindingTable_BindOutputs(f.table, 1, &f.out_desc);
    record_and_run(context, &f);
    dml_read_buffer(context, f.output, 0, result, sizeof(result));
    for (m = 0; m < 4; ++m)
    {
        for (n = 0; n < 4; ++n)
        {
            double sum = 0.0;

            for (k = 0; k < 8; ++k)
                sum += (double)f.data[64 + m * 8 + k] * f.data[k * 4 + n];
            expected[m * 4 + n] = (float)sum;
        }
    }
    assert_int_equal(dml_compare_floats(result, expected, 16, 1e-3f, 1e-5f), -1);
    release_fixture(&f);
    assert_no_log_errors();
}

/* ---- Counts ---- */

static void test_identity_two_inputs(void **state)
{
    struct dml_context *context = *state;
    struct fixture f;

    prepare_identity(context, &f);
    f.in_desc[1] = f.in_desc[0];
    IDMLBindingTable_BindInputs(f.table, 2, f.in_desc);
    check_removed_now(context);
    release_fixture(&f);
}

static void test_add_one_input(void **state)
{
    struct dml_context *context = *state;
    struct fixture f;

    prepare_add(context, &f);
    IDMLBindingTable_BindInputs(f.table, 1, f.in_desc);
    check_removed_now(context);
    release_fixture(&f);
}

static void test_add_three_inputs(void **state)
{
    struct dml_context *context = *state;
    struct fixture f;

    prepare_add(context, &f);
    f.in_desc[2] = f.in_desc[0];
    IDMLBindingTable_BindInputs(f.table, 3, f.in_desc);
    check_removed_now(context);
    release_fixture(&f);
}

static void test_two_outputs(void **state)
{
    struct dml_context *context = *state;
    DML_BINDING_DESC outputs[2];
    struct fixture f;

    prepare_identity(context, &f);
    outputs[0] = outputs[1] = f.out_desc;
    IDMLBindingTable_BindOutputs(f.table, 2, outputs);
    check_removed_now(context);
    release_fixture(&f);
}

/* A count without an array. */
static void test_count_without_array(void **state)
{
    struct dml_context *context = *state;
    struct fixture f;

    prepare_identity(context, &f);
    IDMLBindingTable_BindInputs(f.table, 1, NULL);
    check_removed_now(context);
    release_fixture(&f);
}

/* GEMM has 3 inputs, C optional: the count includes it (bound as NONE). */
static void test_gemm_optional_not_counted(void **state)
{
    struct dml_context *context = *state;
    struct fixture f;

    prepare_gemm(context, &f);
    IDMLBindingTable_BindInputs(f.table, 2, f.in_desc);
    check_removed_now(context);
    release_fixture(&f);
}

/* ---- Types ---- */

static void test_input_none(void **state)
{
    struct dml_context *context = *state;
    struct fixture f;

    prepare_identity(context, &f);
    f.in_desc[0] = dml_binding(NULL);
    IDMLBindingTable_BindInputs(f.table, 1, f.in_desc);
    IDMLBindingTable_BindOutputs(f.table, 1, &f.out_desc);
    check_removed_by_record(context, &f);
    release_fixture(&f);
}

static void test_output_none(void **state)
{
    struct dml_context *context = *state;
    struct fixture f;

    prepare_identity(context, &f);
    f.out_desc = dml_binding(NULL);
    IDMLBindingTable_BindInputs(f.table, 1, f.in_desc);
    IDMLBindingTable_BindOutputs(f.table, 1, &f.out_desc);
    check_removed_by_record(context, &f);
    release_fixture(&f);
}

/* BUFFER_ARRAY is for initializer inputs only. */
static void test_buffer_array_at_execute(void **state)
{
    struct dml_context *context = *state;
    DML_BUFFER_ARRAY_BINDING array;
    struct fixture f;

    prepare_identity(context, &f);
    array.BindingCount = 1;
    array.Bindings = &f.in_binding[0];
    f.in_desc[0].Type = DML_BINDING_TYPE_BUFFER_ARRAY;
    f.in_desc[0].Desc = &array;
    IDMLBindingTable_BindInputs(f.table, 1, f.in_desc);
    check_removed_now(context);
    release_fixture(&f);
}

static void test_null_buffer(void **state)
{
    struct dml_context *context = *state;
    struct fixture f;

    prepare_identity(context, &f);
    f.in_binding[0].Buffer = NULL;
    IDMLBindingTable_BindInputs(f.table, 1, f.in_desc);
    IDMLBindingTable_BindOutputs(f.table, 1, &f.out_desc);
    check_removed_by_record(context, &f);
    release_fixture(&f);
}

/* Inputs must live in DEFAULT heaps (UPLOAD only for OWNED_BY_DML initializer inputs). */
static void test_upload_heap_input(void **state)
{
    struct dml_context *context = *state;
    ID3D12Resource *upload;
    struct fixture f;

    prepare_identity(context, &f);
    upload = create_upload_buffer(context->d3d.device, BUFFER_SIZE);
    f.in_binding[0].Buffer = upload;
    IDMLBindingTable_BindInputs(f.table, 1, f.in_desc);
    IDMLBindingTable_BindOutputs(f.table, 1, &f.out_desc);
    check_removed_by_record(context, &f);
    release_last(upload);
    release_fixture(&f);
}

/* ---- Sizes ---- */

static void test_undersized_input(void **state)
{
    struct dml_context *context = *state;
    struct fixture f;

    prepare_identity(context, &f);
    f.in_binding[0].SizeInBytes = dml_tensor_bytes(&f.tensor) - 4;
    IDMLBindingTable_BindInputs(f.table, 1, f.in_desc);
    IDMLBindingTable_BindOutputs(f.table, 1, &f.out_desc);
    check_removed_by_record(context, &f);
    release_fixture(&f);
}

static void test_undersized_output(void **state)
{
    struct dml_context *context = *state;
    struct fixture f;

    prepare_identity(context, &f);
    f.out_binding.SizeInBytes = dml_tensor_bytes(&f.tensor) - 16;
    IDMLBindingTable_BindInputs(f.table, 1, f.in_desc);
    IDMLBindingTable_BindOutputs(f.table, 1, &f.out_desc);
    check_removed_by_record(context, &f);
    release_fixture(&f);
}

/* Offset + SizeInBytes beyond the resource. */
static void test_binding_past_end(void **state)
{
    struct dml_context *context = *state;
    struct fixture f;

    prepare_identity(context, &f);
    f.out_binding = dml_buffer_binding(f.output, BUFFER_SIZE - 64, 96);
    IDMLBindingTable_BindInputs(f.table, 1, f.in_desc);
    IDMLBindingTable_BindOutputs(f.table, 1, &f.out_desc);
    check_removed_by_record(context, &f);
    release_fixture(&f);
}

/* ---- Offsets ---- */

static void test_misaligned_input(void **state)
{
    struct dml_context *context = *state;
    struct fixture f;

    prepare_identity(context, &f);
    f.in_binding[0].Offset = 4;
    IDMLBindingTable_BindInputs(f.table, 1, f.in_desc);
    IDMLBindingTable_BindOutputs(f.table, 1, &f.out_desc);
    check_removed_by_record(context, &f);
    release_fixture(&f);
}

static void test_misaligned_output(void **state)
{
    struct dml_context *context = *state;
    struct fixture f;

    prepare_identity(context, &f);
    f.out_binding.Offset = 8;
    IDMLBindingTable_BindInputs(f.table, 1, f.in_desc);
    IDMLBindingTable_BindOutputs(f.table, 1, &f.out_desc);
    check_removed_by_record(context, &f);
    release_fixture(&f);
}

/* Persistent resources: offsets multiples of 256, at least PersistentResourceSize. */
static void test_persistent_misaligned(void **state)
{
    struct dml_context *context = *state;
    DML_BUFFER_BINDING binding;
    ID3D12Resource *big;
    DML_BINDING_DESC desc;
    struct fixture f;
    UINT64 size;

    prepare_gemm(context, &f);
    size = dml_properties(f.op).PersistentResourceSize;
    big = dml_create_buffer(context, size + 512, 0, NULL, 0);
    binding = dml_buffer_binding(big, 16, size);
    desc = dml_binding(&binding);
    IDMLBindingTable_BindPersistentResource(f.table, &desc);
    IDMLBindingTable_BindInputs(f.table, 3, f.in_desc);
    IDMLBindingTable_BindOutputs(f.table, 1, &f.out_desc);
    check_removed_by_record(context, &f);
    release_last(big);
    release_fixture(&f);
}

static void test_persistent_undersized(void **state)
{
    struct dml_context *context = *state;
    DML_BUFFER_BINDING binding;
    DML_BINDING_DESC desc;
    struct fixture f;

    prepare_gemm(context, &f);
    binding = dml_buffer_binding(f.persistent, 0, dml_properties(f.op).PersistentResourceSize - 4);
    desc = dml_binding(&binding);
    IDMLBindingTable_BindPersistentResource(f.table, &desc);
    IDMLBindingTable_BindInputs(f.table, 3, f.in_desc);
    IDMLBindingTable_BindOutputs(f.table, 1, &f.out_desc);
    check_removed_by_record(context, &f);
    release_fixture(&f);
}

static void test_persistent_missing(void **state)
{
    struct dml_context *context = *state;
    struct fixture f;

    prepare_gemm(context, &f);
    IDMLBindingTable_BindPersistentResource(f.table, NULL);
    IDMLBindingTable_BindInputs(f.table, 3, f.in_desc);
    IDMLBindingTable_BindOutputs(f.table, 1, &f.out_desc);
    check_removed_by_record(context, &f);
    release_fixture(&f);
}

/* The temporary resource: offset a multiple of 256 (only for an operator that has one). */
static void test_temporary_misaligned(void **state)
{
    struct dml_context *context = *state;
    DML_BUFFER_BINDING binding;
    ID3D12Resource *big;
    DML_BINDING_DESC desc;
    struct fixture f;
    UINT64 size;

    prepare_gemm(context, &f);
    if (!(size = dml_properties(f.op).TemporaryResourceSize))
    {
        release_fixture(&f);
        assert_no_log_errors();
        skip();
    }
    big = dml_create_buffer(context, size + 512, 0, NULL, 0);
    binding = dml_buffer_binding(big, 64, size);
    desc = dml_binding(&binding);
    IDMLBindingTable_BindTemporaryResource(f.table, &desc);
    IDMLBindingTable_BindInputs(f.table, 3, f.in_desc);
    IDMLBindingTable_BindOutputs(f.table, 1, &f.out_desc);
    check_removed_by_record(context, &f);
    release_last(big);
    release_fixture(&f);
}

/* OWNED_BY_DML inputs are bound at initialization only. */
static void test_owned_by_dml_at_execute(void **state)
{
    struct dml_context *context = *state;
    struct fixture f;

    prepare_gemm(context, &f);
    f.in_binding[1] = dml_buffer_binding(f.input, 0, dml_tensor_bytes(&f.b));
    f.in_desc[1] = dml_binding(&f.in_binding[1]);
    IDMLBindingTable_BindInputs(f.table, 3, f.in_desc);
    IDMLBindingTable_BindOutputs(f.table, 1, &f.out_desc);
    check_removed_by_record(context, &f);
    release_fixture(&f);
}

/* ---- Initializer bindings ---- */

static void initializer_case(struct dml_context *context, int which)
{
    IDMLOperatorInitializer *initializer = NULL;
    DML_BUFFER_BINDING init_bindings[3], persistent_binding;
    DML_BUFFER_ARRAY_BINDING array;
    DML_BINDING_DESC inputs[2], outputs[2];
    IDMLBindingTable *table;
    ID3D12Resource *persistent;
    struct fixture f;

    prepare_gemm(context, &f);  /* only for its tensors and buffers; compile a second GEMM */
    release_last(f.table);
    f.table = NULL;
    {
        IDMLCompiledOperator *op = dml_compile(context->dml,
                dml_create_gemm(context->dml, &f.a, &f.b, NULL, &f.out, 1.0f, 0.0f), DML_EXECUTION_FLAG_NONE);

        release_last(f.op);
        f.op = op;
    }
    persistent = dml_create_buffer(context, dml_properties(f.op).PersistentResourceSize, 0, NULL, 0);
    check_hr(IDMLDevice_CreateOperatorInitializer(context->dml, 1, &f.op, &IID_IDMLOperatorInitializer,
            (void **)&initializer), S_OK);
    table = dml_create_table(context, initializer, 0, 0);
    memset(init_bindings, 0, sizeof(init_bindings));
    init_bindings[1] = dml_buffer_binding(f.input, 0, dml_tensor_bytes(&f.b));
    array.BindingCount = 3;
    array.Bindings = init_bindings;
    inputs[0].Type = DML_BINDING_TYPE_BUFFER_ARRAY;
    inputs[0].Desc = &array;
    inputs[1] = inputs[0];
    persistent_binding = dml_buffer_binding(persistent, 0, dml_properties(f.op).PersistentResourceSize);
    outputs[0] = outputs[1] = dml_binding(&persistent_binding);
    switch (which)
    {
        case 0:     /* one BUFFER_ARRAY per target: two for one target */
            IDMLBindingTable_BindInputs(table, 2, inputs);
            check_removed_now(context);
            break;
        case 1:     /* one persistent binding per target: two for one target */
            IDMLBindingTable_BindOutputs(table, 2, outputs);
            check_removed_now(context);
            break;
        case 2:     /* a plain BUFFER where the target's BUFFER_ARRAY goes */
            inputs[0] = dml_binding(&init_bindings[1]);
            IDMLBindingTable_BindInputs(table, 1, inputs);
            IDMLBindingTable_BindOutputs(table, 1, outputs);
            if (IDMLDevice_GetDeviceRemovedReason(context->dml) == S_OK)
                dml_record(context, initializer, table);
            check_removed_now(context);
            break;
        case 3:     /* the array has fewer entries than the target has inputs */
            array.BindingCount = 2;
            IDMLBindingTable_BindInputs(table, 1, inputs);
            IDMLBindingTable_BindOutputs(table, 1, outputs);
            if (IDMLDevice_GetDeviceRemovedReason(context->dml) == S_OK)
                dml_record(context, initializer, table);
            check_removed_now(context);
            break;
    }
    release_last(table);
    release_last(initializer);
    release_last(persistent);
    release_fixture(&f);
}

static void test_initializer_two_input_arrays(void **state)
{
    initializer_case(*state, 0);
}

static void test_initializer_two_outputs(void **state)
{
    initializer_case(*state, 1);
}

static void test_initializer_buffer_not_array(void **state)
{
    initializer_case(*state, 2);
}

static void test_initializer_short_array(void **state)
{
    initializer_case(*state, 3);
}

/* ---- RecordDispatch ---- */

/* Without DESCRIPTORS_VOLATILE every binding must be complete at record time. */
static void test_record_incomplete(void **state)
{
    struct dml_context *context = *state;
    struct fixture f;

    prepare_identity(context, &f);
    IDMLBindingTable_BindInputs(f.table, 1, f.in_desc);
    dml_record(context, f.op, f.table);
    check_removed_now(context);
    release_fixture(&f);
}

/* Inputs bound, then all unbound with BindInputs(0, NULL): incomplete again. */
static void test_record_after_unbind(void **state)
{
    struct dml_context *context = *state;
    struct fixture f;

    prepare_identity(context, &f);
    IDMLBindingTable_BindInputs(f.table, 1, f.in_desc);
    IDMLBindingTable_BindOutputs(f.table, 1, &f.out_desc);
    IDMLBindingTable_BindInputs(f.table, 0, NULL);
    dml_check_not_removed(context->dml);
    dml_record(context, f.op, f.table);
    check_removed_now(context);
    release_fixture(&f);
}

/* The table belongs to another dispatchable than the one recorded. */
static void test_record_wrong_dispatchable(void **state)
{
    struct dml_context *context = *state;
    IDMLCompiledOperator *other;
    struct fixture f;

    prepare_identity(context, &f);
    other = dml_compile(context->dml, dml_create_identity(context->dml, &f.tensor, &f.tensor),
            DML_EXECUTION_FLAG_NONE);
    IDMLBindingTable_BindInputs(f.table, 1, f.in_desc);
    IDMLBindingTable_BindOutputs(f.table, 1, &f.out_desc);
    dml_check_not_removed(context->dml);
    dml_record(context, other, f.table);
    check_removed_now(context);
    release_last(other);
    release_fixture(&f);
}

static void test_record_closed_list(void **state)
{
    struct dml_context *context = *state;
    struct fixture f;

    prepare_identity(context, &f);
    IDMLBindingTable_BindInputs(f.table, 1, f.in_desc);
    IDMLBindingTable_BindOutputs(f.table, 1, &f.out_desc);
    check_hr(ID3D12GraphicsCommandList_Close(context->d3d.list), S_OK);
    dml_record(context, f.op, f.table);
    check_removed_now(context);
    check_hr(ID3D12GraphicsCommandList_Reset(context->d3d.list, context->d3d.allocator, NULL), S_OK);
    release_fixture(&f);
}

static void test_record_foreign_list(void **state)
{
    struct dml_context *context = *state;
    struct fake_com_object fake;
    struct fixture f;

    prepare_identity(context, &f);
    IDMLBindingTable_BindInputs(f.table, 1, f.in_desc);
    IDMLBindingTable_BindOutputs(f.table, 1, &f.out_desc);
    fake_com_object_init(&fake, &IID_ID3D12GraphicsCommandList);
    fake_com_other_calls = 0;
    IDMLCommandRecorder_RecordDispatch(context->recorder, (ID3D12CommandList *)&fake, (IDMLDispatchable *)f.op,
            f.table);
    check_removed_now(context);
    assert_int_equal(fake.refcount, 1);
    assert_int_equal(fake_com_other_calls, 0);
    release_fixture(&f);
}

/* A NULL table or dispatchable. */
static void test_record_null_table(void **state)
{
    struct dml_context *context = *state;
    struct fixture f;

    prepare_identity(context, &f);
    dml_record(context, f.op, NULL);
    check_removed_now(context);
    release_fixture(&f);
}

int main(void)
{
#define TEST(name) cmocka_unit_test_setup_teardown(name, dml_context_setup, dml_context_teardown)
    const struct CMUnitTest tests[] =
    {
        TEST(test_valid_bindings),
        TEST(test_valid_guaranteed_alignment),
        TEST(test_valid_owned_by_dml),
        TEST(test_identity_two_inputs),
        TEST(test_add_one_input),
        TEST(test_add_three_inputs),
        TEST(test_two_outputs),
        TEST(test_count_without_array),
        TEST(test_gemm_optional_not_counted),
        TEST(test_input_none),
        TEST(test_output_none),
        TEST(test_buffer_array_at_execute),
        TEST(test_null_buffer),
        TEST(test_upload_heap_input),
        TEST(test_undersized_input),
        TEST(test_undersized_output),
        TEST(test_binding_past_end),
        TEST(test_misaligned_input),
        TEST(test_misaligned_output),
        TEST(test_guaranteed_alignment_broken),
        TEST(test_persistent_misaligned),
        TEST(test_persistent_undersized),
        TEST(test_persistent_missing),
        TEST(test_temporary_misaligned),
        TEST(test_owned_by_dml_at_execute),
        TEST(test_initializer_two_input_arrays),
        TEST(test_initializer_two_outputs),
        TEST(test_initializer_buffer_not_array),
        TEST(test_initializer_short_array),
        TEST(test_record_incomplete),
        TEST(test_record_after_unbind),
        TEST(test_record_wrong_dispatchable),
        TEST(test_record_closed_list),
        TEST(test_record_foreign_list),
        TEST(test_record_null_table),
    };
#undef TEST

    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
