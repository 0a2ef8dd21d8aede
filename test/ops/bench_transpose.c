/*
 * Bandwidth of the tiled transpose (IDENTITY with permuted input strides) and of CAST through the
 * public API, next to a packed IDENTITY of the same bytes (the copy bandwidth of the run): wall
 * clock per dispatch by the R/2R method (bench_utils.h). "ScaleBias 1, 0" rows are the same
 * transposes on the element-wise kernel (what IDENTITY did before the tiled path). Not a test;
 * numbers mean something on a GPU only.
 */
#include "bench_utils.h"

#define F32 DML_TENSOR_DATA_TYPE_FLOAT32
#define F16 DML_TENSOR_DATA_TYPE_FLOAT16

struct config
{
    const char *name;
    DML_OPERATOR_TYPE op;
    DML_TENSOR_DATA_TYPE from, to;
    UINT rank, sizes[6];
    UINT input_strides[6];              /* all 0: packed */
    bool scale_bias;
};

/* A binding table for one input and one output, each bound whole. */
static IDMLBindingTable *bind_one_input(struct dml_test_context *context, IDMLCompiledOperator *compiled,
        ID3D12Resource *input, ID3D12Resource *output, ID3D12Resource **temporary)
{
    IDMLBindingTable *table = dml_test_create_table(context, compiled);
    DML_BUFFER_BINDING bindings[2] =
    {
        {input, 0, ID3D12Resource_GetDesc(input).Width},
        {output, 0, ID3D12Resource_GetDesc(output).Width},
    };
    DML_BINDING_DESC descs[2] = {{DML_BINDING_TYPE_BUFFER, &bindings[0]}, {DML_BINDING_TYPE_BUFFER, &bindings[1]}};

    IDMLBindingTable_BindInputs(table, 1, &descs[0]);
    IDMLBindingTable_BindOutputs(table, 1, &descs[1]);
    *temporary = dml_test_bind_temporary(context, table, compiled);
    return table;
}

static double bench(struct dml_test_context *context, const struct config *c)
{
    bool strided = c->input_strides[c->rank - 1] || c->input_strides[0];
    DML_SCALE_BIAS scale_bias = {1.0f, 0.0f};
    ID3D12Resource *buffers[3] = {NULL}, *temporary, *persistent;
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity;
    struct dml_test_tensor in, out;
    IDMLCompiledOperator *compiled;
    DML_CAST_OPERATOR_DESC cast;
    IDMLBindingTable *table;
    UINT64 n, bytes;
    double seconds;

    dml_test_tensor_init(&in, c->from, c->rank, c->sizes, strided ? c->input_strides : NULL);
    dml_test_tensor_init(&out, c->to, c->rank, c->sizes, NULL);
    identity = (DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC){&in.desc, &out.desc, c->scale_bias ? &scale_bias : NULL};
    cast = (DML_CAST_OPERATOR_DESC){&in.desc, &out.desc};
    compiled = dml_test_compile(context, c->op, c->op == DML_OPERATOR_CAST ? (const void *)&cast
            : (const void *)&identity, DML_EXECUTION_FLAG_NONE);
    persistent = dml_test_initialize(context, compiled, NULL, 0);
    buffers[0] = dml_test_create_buffer(context, in.buffer.TotalTensorSizeInBytes, NULL);
    buffers[2] = dml_test_create_buffer(context, out.buffer.TotalTensorSizeInBytes, NULL);
    table = bind_one_input(context, compiled, buffers[0], buffers[2], &temporary);
    seconds = bench_time_per_dispatch(context, compiled, table);
    n = dml_test_element_count(&out);
    bytes = n * (dml_test_element_size(c->from) + dml_test_element_size(c->to));
    printf("%-44s %11llu elements: %8.1f us, %7.1f GB/s\n", c->name, (unsigned long long)n, seconds * 1e6,
            bytes / seconds / 1e9);
    fflush(stdout);
    release_last(table);
    if (temporary)
        release_last(temporary);
    release_last(buffers[0]);
    release_last(buffers[2]);
    if (persistent)
        release_last(persistent);
    release_last(compiled);
    return bytes / seconds / 1e9;
}

#define N 32
#define C 256
#define HW 56
#define IDENTITY DML_OPERATOR_ELEMENT_WISE_IDENTITY

static void run(void **state)
{
    const struct config configs[] =
    {
        {"copy fp32 (packed IDENTITY, 64 Mi)", IDENTITY, F32, F32, 1, {1u << 26}},
        {"copy fp16 (packed IDENTITY, 64 Mi)", IDENTITY, F16, F16, 1, {1u << 26}},
        {"copy fp32 (packed IDENTITY, NCHW size)", IDENTITY, F32, F32, 4, {N, HW, HW, C}},
        {"NCHW->NHWC fp32 tiled", IDENTITY, F32, F32, 4, {N, HW, HW, C}, {C * HW * HW, HW, 1, HW * HW}},
        {"NCHW->NHWC fp32 ScaleBias 1,0 (element-wise)", IDENTITY, F32, F32, 4, {N, HW, HW, C},
                {C * HW * HW, HW, 1, HW * HW}, true},
        {"NCHW->NHWC fp16 tiled", IDENTITY, F16, F16, 4, {N, HW, HW, C}, {C * HW * HW, HW, 1, HW * HW}},
        {"NCHW->NHWC fp16 ScaleBias 1,0 (element-wise)", IDENTITY, F16, F16, 4, {N, HW, HW, C},
                {C * HW * HW, HW, 1, HW * HW}, true},
        {"NHWC->NCHW fp32 tiled", IDENTITY, F32, F32, 4, {N, C, HW, HW}, {HW * HW * C, 1, HW * C, C}},
        {"NHWC->NCHW fp16 tiled", IDENTITY, F16, F16, 4, {N, C, HW, HW}, {HW * HW * C, 1, HW * C, C}},
        {"transpose 8192^2 fp32 tiled", IDENTITY, F32, F32, 2, {8192, 8192}, {1, 8192}},
        {"transpose 8192^2 fp32 ScaleBias (element-wise)", IDENTITY, F32, F32, 2, {8192, 8192}, {1, 8192}, true},
        {"transpose 8192^2 fp16 tiled", IDENTITY, F16, F16, 2, {8192, 8192}, {1, 8192}},
        {"odd NCHW->NHWC 31x255x57x57 fp32 tiled", IDENTITY, F32, F32, 4, {31, 57, 57, 255},
                {255 * 57 * 57, 57, 1, 57 * 57}},
        /* SPACE_TO_DEPTH (DCR, block 2) of 32x64x112x112 as a rank-6 permutation: input
         * {N, C, H/2, 2, W/2, 2} read as {N, 2, 2, C, H/2, W/2}. */
        {"space-to-depth rank 6 fp32", IDENTITY, F32, F32, 6, {32, 2, 2, 64, 56, 56},
                {64 * 112 * 112, 112, 1, 112 * 112, 224, 2}},
        /* Its inverse's shape: channels-last blocks {N, H/2, W/2, 2, 2, C} from NCHW. */
        {"rank 6 to channels-last fp16", IDENTITY, F16, F16, 6, {32, 56, 56, 2, 2, 64},
                {64 * 112 * 112, 224, 2, 112, 1, 112 * 112}},
        {"CAST fp32->fp16 64 Mi", DML_OPERATOR_CAST, F32, F16, 1, {1u << 26}},
        {"CAST fp16->fp32 64 Mi", DML_OPERATOR_CAST, F16, F32, 1, {1u << 26}},
        {"CAST int32->fp16 64 Mi", DML_OPERATOR_CAST, DML_TENSOR_DATA_TYPE_INT32, F16, 1, {1u << 26}},
        {"CAST fp32->int8 64 Mi", DML_OPERATOR_CAST, F32, DML_TENSOR_DATA_TYPE_INT8, 1, {1u << 26}},
        {"CAST int64->fp32 32 Mi", DML_OPERATOR_CAST, DML_TENSOR_DATA_TYPE_INT64, F32, 1, {1u << 25}},
        {"CAST fp64->fp16 32 Mi", DML_OPERATOR_CAST, DML_TENSOR_DATA_TYPE_FLOAT64, F16, 1, {1u << 25}},
    };
    struct dml_test_context *context = *state;
    const char *only = getenv("BENCH_ONLY");
    unsigned int i;

    for (i = 0; i < ARRAY_SIZE(configs); ++i)
    {
        if (!only || strstr(configs[i].name, only))
            bench(context, &configs[i]);
    }
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
