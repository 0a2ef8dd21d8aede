/*
 * Bandwidth of the element-wise kernel through the public API: BENCH_K (default 50) dispatches
 * with UAV barriers between them in one command list, wall clock around ExecuteCommandLists +
 * fence wait, after a warm-up. Not a test (meson builds it, `meson test` does not run it): a
 * measurement aid until vkdml-bench covers the element-wise family with GPU timestamps. On
 * lavapipe it only shows that the path works; numbers mean something on a GPU.
 */
#include "bench_utils.h"

struct config
{
    const char *name;
    DML_OPERATOR_TYPE op;
    DML_TENSOR_DATA_TYPE type;
    UINT rank, sizes[4];
    const UINT *strides[3];
    const DML_OPERATOR_DESC *activation;
    double bytes_per_element;       /* DRAM traffic per output element */
    UINT inputs;                    /* 0: from the operator (1 for IDENTITY and RELU, else 2) */
    DML_TENSOR_DATA_TYPE output;    /* 0: `type` (comparisons write UINT8) */
};

static void bench(struct dml_test_context *context, const struct config *c, int k)
{
    struct dml_test_tensor t[3];
    ID3D12Resource *buffers[3] = {0}, *persistent;
    UINT inputs = c->inputs ? c->inputs
            : c->op == DML_OPERATOR_ELEMENT_WISE_IDENTITY || c->op == DML_OPERATOR_ACTIVATION_RELU ? 1 : 2, i;
    /* Every element-wise desc starts with its tensors, inputs then output; ADD1's activation and
     * the unary descs' ScaleBias follow (NULL here). */
    union
    {
        const DML_TENSOR_DESC *tensors[4];
        DML_ELEMENT_WISE_ADD1_OPERATOR_DESC add1;
    } desc;
    IDMLCompiledOperator *compiled;
    IDMLBindingTable *table;
    DML_BINDING_TABLE_DESC table_desc;
    DML_BUFFER_BINDING bb[3];
    DML_BINDING_DESC bd[3];
    UINT64 n = 1;
    double seconds;

    for (i = 0; i < c->rank; ++i)
        n *= c->sizes[i];
    for (i = 0; i < 3; ++i)
        dml_test_tensor_init(&t[i], i == 2 && c->output ? c->output : c->type, c->rank, c->sizes, c->strides[i]);
    memset(&desc, 0, sizeof(desc));
    if (c->op == DML_OPERATOR_ELEMENT_WISE_ADD1)
    {
        desc.add1 = (DML_ELEMENT_WISE_ADD1_OPERATOR_DESC){&t[0].desc, &t[1].desc, &t[2].desc, c->activation};
    }
    else
    {
        for (i = 0; i < inputs; ++i)
            desc.tensors[i] = &t[i].desc;
        desc.tensors[inputs] = &t[2].desc;
    }
    compiled = dml_test_compile(context, c->op, &desc, DML_EXECUTION_FLAG_NONE);
    persistent = dml_test_initialize(context, compiled, NULL, 0);
    for (i = 0; i < 3; ++i)
    {
        if (i == 1 && inputs == 1)
            continue;
        buffers[i] = dml_test_create_buffer(context, t[i].buffer.TotalTensorSizeInBytes, NULL);
        bb[i] = (DML_BUFFER_BINDING){buffers[i], 0, t[i].buffer.TotalTensorSizeInBytes};
        bd[i] = (DML_BINDING_DESC){DML_BINDING_TYPE_BUFFER, &bb[i]};
    }
    table_desc = (DML_BINDING_TABLE_DESC){(IDMLDispatchable *)compiled, cpu_handle(context->heap, context->increment, 0),
            gpu_handle(context->heap, context->increment, 0), 8};
    check_hr(IDMLDevice_CreateBindingTable(context->dml, &table_desc, &IID_IDMLBindingTable, (void **)&table), S_OK);
    IDMLBindingTable_BindInputs(table, inputs, bd);
    IDMLBindingTable_BindOutputs(table, 1, &bd[2]);
    /* A warm-up list of 2, then the list of k. */
    bench_time_dispatches(context, compiled, table, 2);
    seconds = bench_time_dispatches(context, compiled, table, k);
    printf("%-34s %10llu elements: %8.3f ms/dispatch, %7.1f GB/s\n", c->name, (unsigned long long)n,
            seconds / k * 1e3, c->bytes_per_element * n * k / seconds / 1e9);
    fflush(stdout);
    release_last(table);
    for (i = 0; i < 3; ++i)
    {
        if (buffers[i])
            release_last(buffers[i]);
    }
    if (persistent)
        release_last(persistent);
    release_last(compiled);
}

static void run(void **state)
{
    static const UINT bcast[] = {0, 1};
    static const UINT transposed[] = {1, 8192};
    static const DML_ACTIVATION_GELU_OPERATOR_DESC gelu = {NULL, NULL};
    static const DML_OPERATOR_DESC gelu_desc = {DML_OPERATOR_ACTIVATION_GELU, &gelu};
    const struct config configs[] =
    {
        {"ADD fp32", DML_OPERATOR_ELEMENT_WISE_ADD, DML_TENSOR_DATA_TYPE_FLOAT32, 1, {1u << 26}, {0}, NULL, 12},
        {"ADD fp32 4-D", DML_OPERATOR_ELEMENT_WISE_ADD, DML_TENSOR_DATA_TYPE_FLOAT32, 4, {16, 64, 256, 256}, {0}, NULL, 12},
        {"ADD fp32, B broadcast row", DML_OPERATOR_ELEMENT_WISE_ADD, DML_TENSOR_DATA_TYPE_FLOAT32, 2, {8192, 8192}, {NULL, bcast}, NULL, 8},
        {"ADD fp16", DML_OPERATOR_ELEMENT_WISE_ADD, DML_TENSOR_DATA_TYPE_FLOAT16, 1, {1u << 26}, {0}, NULL, 6},
        {"ADD1+GELU fp32", DML_OPERATOR_ELEMENT_WISE_ADD1, DML_TENSOR_DATA_TYPE_FLOAT32, 1, {1u << 26}, {0}, &gelu_desc, 12},
        {"IDENTITY uint8", DML_OPERATOR_ELEMENT_WISE_IDENTITY, DML_TENSOR_DATA_TYPE_UINT8, 1, {1u << 28}, {0}, NULL, 2},
        {"IDENTITY fp32 (copy)", DML_OPERATOR_ELEMENT_WISE_IDENTITY, DML_TENSOR_DATA_TYPE_FLOAT32, 1, {1u << 26}, {0}, NULL, 8},
        {"IDENTITY fp32 transpose 8192^2", DML_OPERATOR_ELEMENT_WISE_IDENTITY, DML_TENSOR_DATA_TYPE_FLOAT32, 2, {8192, 8192}, {transposed}, NULL, 8},
        {"RELU int8", DML_OPERATOR_ACTIVATION_RELU, DML_TENSOR_DATA_TYPE_INT8, 1, {1u << 28}, {0}, NULL, 2},
        /* The other groups and mixed element sizes (vector mode over 4-byte inputs, 1-byte output). */
        {"LESS_THAN fp32 -> uint8", DML_OPERATOR_ELEMENT_WISE_LOGICAL_LESS_THAN, DML_TENSOR_DATA_TYPE_FLOAT32, 1,
                {1u << 26}, {0}, NULL, 9, 2, DML_TENSOR_DATA_TYPE_UINT8},
        {"DIVIDE int32", DML_OPERATOR_ELEMENT_WISE_DIVIDE, DML_TENSOR_DATA_TYPE_INT32, 1, {1u << 26}, {0}, NULL, 12},
        {"MODULUS_FLOOR fp32", DML_OPERATOR_ELEMENT_WISE_MODULUS_FLOOR, DML_TENSOR_DATA_TYPE_FLOAT32, 1, {1u << 26},
                {0}, NULL, 12},
        {"EXP fp32", DML_OPERATOR_ELEMENT_WISE_EXP, DML_TENSOR_DATA_TYPE_FLOAT32, 1, {1u << 26}, {0}, NULL, 8, 1},
        {"SIN fp16", DML_OPERATOR_ELEMENT_WISE_SIN, DML_TENSOR_DATA_TYPE_FLOAT16, 1, {1u << 27}, {0}, NULL, 4, 1},
        {"POW fp32", DML_OPERATOR_ELEMENT_WISE_POW, DML_TENSOR_DATA_TYPE_FLOAT32, 1, {1u << 26}, {0}, NULL, 12},
        {"ERF fp32", DML_OPERATOR_ELEMENT_WISE_ERF, DML_TENSOR_DATA_TYPE_FLOAT32, 1, {1u << 26}, {0}, NULL, 8, 1},
        {"BIT_XOR int64", DML_OPERATOR_ELEMENT_WISE_BIT_XOR, DML_TENSOR_DATA_TYPE_INT64, 1, {1u << 25}, {0}, NULL, 24},
    };
    struct dml_test_context *context = *state;
    int k = getenv("BENCH_K") ? atoi(getenv("BENCH_K")) : 50;
    unsigned int i;

    for (i = 0; i < ARRAY_SIZE(configs); ++i)
        bench(context, &configs[i], k);
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(run, dml_test_setup, dml_test_teardown),
    };

    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
