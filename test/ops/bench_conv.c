/*
 * CONVOLUTION speed through the public API (shim D3D12 device, DirectML), for GPU runs; not a
 * test (meson builds it, `meson test` does not run it).
 *
 *     bench_conv [TYPE:N:C:H:W:K:KH:KW:STRIDE:PAD:GROUPS[:b] ...]
 *
 * TYPE f32 or f16; a trailing :b makes it a backward (transposed) convolution whose input has C
 * channels. Without arguments, the ResNet-50 anchor shapes (docs/benchmarks/README.md) and a few others. Each
 * shape runs with every kernel that can take it (VKDML_CONV_KERNEL=auto, direct, implicit-gemm,
 * gemm-1x1); packed NCHW tensors, cross-correlation, no bias, random data in [-1, 1].
 *
 * Timing (as bench_gemm.c; the shim has no timestamp queries yet): wall clock around
 * ExecuteCommandLists + fence wait of one list of R dependent dispatches (UAV barrier after
 * each), with R and 2R dispatches, three times; the time per convolution is the median of
 * (T(2R) - T(R)) / R. A spot check of 32 outputs against a double-precision reference guards
 * against timing a wrong kernel.
 */
#include <math.h>

#include "bench_utils.h"

struct config
{
    DML_TENSOR_DATA_TYPE type;
    UINT n, c, h, w, k, kh, kw, stride, pad, groups;
    bool backward;
};

/* Spatial output size along a dimension of `size`. */
static UINT out_size(const struct config *c, UINT size, UINT kernel)
{
    if (c->backward)
        return (size - 1) * c->stride + kernel - 2 * c->pad;
    return (size + 2 * c->pad - kernel) / c->stride + 1;
}

/* Largest |got - expected| / (sum of |products|) over 32 outputs. */
static double spot_check(struct dml_test_context *context, const struct config *c, ID3D12Resource *output,
        const float *input, const float *filter, const UINT out_sizes[4])
{
    size_t count = (size_t)out_sizes[0] * out_sizes[1] * out_sizes[2] * out_sizes[3];
    UINT cpg = c->c / c->groups, kpg = c->k / c->groups, i, ci, y, x;
    void *data = malloc(count * dml_test_element_size(c->type));
    uint32_t random = 12345;
    double worst = 0.0;

    assert_non_null(data);
    dml_test_read_buffer(context, output, 0, data, count * dml_test_element_size(c->type));
    for (i = 0; i < 32; ++i)
    {
        size_t index = ref_random(&random) % count;
        UINT ox = index % out_sizes[3], oy = (index / out_sizes[3]) % out_sizes[2];
        UINT k = (index / ((size_t)out_sizes[2] * out_sizes[3])) % c->k, n = index / ((size_t)out_sizes[1] * out_sizes[2] * out_sizes[3]);
        UINT g = k / kpg;
        double sum = 0.0, magnitude = 0.0, got, product;
        long iy, ix;

        for (ci = 0; ci < cpg; ++ci)
        for (y = 0; y < c->kh; ++y)
        for (x = 0; x < c->kw; ++x)
        {
            if (c->backward)
            {
                long ty = (long)oy + c->pad - y, tx = (long)ox + c->pad - x;

                if (ty < 0 || tx < 0 || ty % c->stride || tx % c->stride)
                    continue;
                iy = ty / c->stride, ix = tx / c->stride;
            }
            else
            {
                iy = (long)oy * c->stride + y - c->pad, ix = (long)ox * c->stride + x - c->pad;
            }
            if (iy < 0 || ix < 0 || iy >= (long)c->h || ix >= (long)c->w)
                continue;
            product = input[(((size_t)n * c->c + g * cpg + ci) * c->h + iy) * c->w + ix]
                    * (c->backward ? filter[(((size_t)(g * cpg + ci) * kpg + k % kpg) * c->kh + y) * c->kw + x]
                    : filter[(((size_t)k * cpg + ci) * c->kh + y) * c->kw + x]);
            sum += product;
            magnitude += fabs(product);
        }
        got = dml_test_read_float(data, c->type, index);
        worst = fmax(worst, isnan(got) ? INFINITY : fabs(got - sum) / fmax(magnitude, 1e-30));
    }
    free(data);
    return worst;
}

/* Compiles for the kernel VKDML_CONV_KERNEL names; NULL when that kernel cannot run the shape. */
static IDMLCompiledOperator *compile(struct dml_test_context *context, const DML_CONVOLUTION_OPERATOR_DESC *desc)
{
    enum vkdml_log_level level = vkdml_get_log_level();
    IDMLCompiledOperator *compiled = NULL;
    DML_OPERATOR_DESC op_desc = {DML_OPERATOR_CONVOLUTION, desc};
    IDMLOperator *op;
    HRESULT hr;

    check_hr(IDMLDevice_CreateOperator(context->dml, &op_desc, &IID_IDMLOperator, (void **)&op), S_OK);
    vkdml_set_log_level(VKDML_LOG_ERR);
    hr = IDMLDevice_CompileOperator(context->dml, op, DML_EXECUTION_FLAG_NONE, &IID_IDMLCompiledOperator,
            (void **)&compiled);
    vkdml_set_log_level(level);
    release_unknown(op);
    vkdml_test_log_reset();
    return SUCCEEDED(hr) ? compiled : NULL;
}

static void bench_kernel(struct dml_test_context *context, const struct config *c,
        const DML_CONVOLUTION_OPERATOR_DESC *desc, ID3D12Resource *buffers[3], const float *input,
        const float *filter, const UINT out_sizes[4], const char *kernel)
{
    struct dml_test_binding inputs[3] = {{buffers[0]}, {buffers[1]}, {NULL}}, output = {buffers[2]};
    UINT out_h = out_sizes[2], out_w = out_sizes[3];
    double seconds, flops, error;
    IDMLCompiledOperator *compiled;
    IDMLBindingTable *table;
    ID3D12Resource *persistent, *temporary;

    dml_test_set_knob(context, "VKDML_CONV_KERNEL", kernel);
    if (!(compiled = compile(context, desc)))
        return;
    persistent = dml_test_initialize(context, compiled, NULL, 0);
    dml_test_execute(context, compiled, persistent, inputs, 3, &output, 1);
    error = spot_check(context, c, buffers[2], input, filter, out_sizes);

    table = bench_bind_two_inputs(context, compiled, buffers, &temporary);
    seconds = bench_time_per_dispatch(context, compiled, table);
    flops = 2.0 * c->n * c->k * out_h * out_w * (c->c / c->groups) * c->kh * c->kw;
    if (c->backward)
        flops = 2.0 * c->n * c->c * c->h * c->w * (c->k / c->groups) * c->kh * c->kw;
    printf("%s N%u C%u %ux%u K%u %ux%u s%u p%u g%u%s  %-13s %9.4f ms %10.1f GFLOP/s  error %.1e\n",
            c->type == DML_TENSOR_DATA_TYPE_FLOAT16 ? "f16" : "f32", c->n, c->c, c->h, c->w, c->k, c->kh, c->kw,
            c->stride, c->pad, c->groups, c->backward ? " backward" : "", kernel, seconds * 1e3,
            flops / seconds * 1e-9, error);
    release_unknown(table);
    if (temporary)
        release_last(temporary);
    if (persistent)
        release_last(persistent);
    release_last(compiled);
}

static void bench(struct dml_test_context *context, const struct config *c)
{
    static const char *const kernels[] = {"auto", "direct", "implicit-gemm", "gemm-1x1"};
    static const UINT ones[2] = {1, 1};
    UINT in_sizes[4] = {c->n, c->c, c->h, c->w}, out_sizes[4], filter_sizes[4], pad[2] = {c->pad, c->pad};
    UINT strides[2] = {c->stride, c->stride}, zeros[2] = {0, 0};
    struct dml_test_tensor input, filter, output;
    DML_CONVOLUTION_OPERATOR_DESC desc;
    ID3D12Resource *buffers[3];
    void *input_bytes, *filter_bytes;
    float *input_values, *filter_values;
    size_t filter_count;
    unsigned int i;

    out_sizes[0] = c->n, out_sizes[1] = c->k;
    out_sizes[2] = out_size(c, c->h, c->kh), out_sizes[3] = out_size(c, c->w, c->kw);
    filter_sizes[0] = c->backward ? c->c : c->k;
    filter_sizes[1] = c->backward ? c->k / c->groups : c->c / c->groups;
    filter_sizes[2] = c->kh, filter_sizes[3] = c->kw;
    filter_count = (size_t)filter_sizes[0] * filter_sizes[1] * c->kh * c->kw;
    dml_test_tensor_init(&input, c->type, 4, in_sizes, NULL);
    dml_test_tensor_init(&filter, c->type, 4, filter_sizes, NULL);
    dml_test_tensor_init(&output, c->type, 4, out_sizes, NULL);
    input_values = bench_random_values(c->type, (size_t)c->n * c->c * c->h * c->w, 1, &input_bytes);
    filter_values = bench_random_values(c->type, filter_count, 2, &filter_bytes);
    buffers[0] = dml_test_create_buffer(context, input.buffer.TotalTensorSizeInBytes, input_bytes);
    buffers[1] = dml_test_create_buffer(context, filter.buffer.TotalTensorSizeInBytes, filter_bytes);
    buffers[2] = dml_test_create_buffer(context, output.buffer.TotalTensorSizeInBytes, NULL);
    desc = (DML_CONVOLUTION_OPERATOR_DESC){&input.desc, &filter.desc, NULL, &output.desc,
            DML_CONVOLUTION_MODE_CROSS_CORRELATION, c->backward ? DML_CONVOLUTION_DIRECTION_BACKWARD
            : DML_CONVOLUTION_DIRECTION_FORWARD, 2, strides, ones, pad, pad, zeros, c->groups, NULL};
    for (i = 0; i < ARRAY_SIZE(kernels); ++i)
        bench_kernel(context, c, &desc, buffers, input_values, filter_values, out_sizes, kernels[i]);
    for (i = 0; i < 3; ++i)
        release_last(buffers[i]);
    free(input_values);
    free(filter_values);
    free(input_bytes);
    free(filter_bytes);
}

static const struct config default_configs[] =
{
    {DML_TENSOR_DATA_TYPE_FLOAT32, 32, 64, 56, 56, 64, 3, 3, 1, 1, 1},
    {DML_TENSOR_DATA_TYPE_FLOAT32, 32, 256, 14, 14, 256, 3, 3, 1, 1, 1},
    {DML_TENSOR_DATA_TYPE_FLOAT32, 32, 64, 56, 56, 256, 1, 1, 1, 0, 1},
    {DML_TENSOR_DATA_TYPE_FLOAT32, 32, 3, 224, 224, 64, 7, 7, 2, 3, 1},
    {DML_TENSOR_DATA_TYPE_FLOAT16, 32, 64, 56, 56, 64, 3, 3, 1, 1, 1},
    {DML_TENSOR_DATA_TYPE_FLOAT16, 32, 256, 14, 14, 256, 3, 3, 1, 1, 1},
    {DML_TENSOR_DATA_TYPE_FLOAT32, 1, 64, 56, 56, 64, 3, 3, 1, 1, 1},
    {DML_TENSOR_DATA_TYPE_FLOAT32, 32, 256, 28, 28, 256, 3, 3, 1, 1, 256},
    {DML_TENSOR_DATA_TYPE_FLOAT32, 8, 128, 28, 28, 64, 4, 4, 2, 1, 1, true},
};

static struct config *configs;
static unsigned int config_count;

static void run(void **state)
{
    unsigned int i;

    for (i = 0; i < config_count; ++i)
        bench(*state, &configs[i]);
}

static bool parse_config(const char *text, struct config *c)
{
    char type[8], backward = 0;
    int fields;

    memset(c, 0, sizeof(*c));
    fields = sscanf(text, "%7[^:]:%u:%u:%u:%u:%u:%u:%u:%u:%u:%u:%c", type, &c->n, &c->c, &c->h, &c->w, &c->k, &c->kh,
            &c->kw, &c->stride, &c->pad, &c->groups, &backward);
    c->type = strcmp(type, "f16") ? DML_TENSOR_DATA_TYPE_FLOAT32 : DML_TENSOR_DATA_TYPE_FLOAT16;
    c->backward = backward == 'b';
    return fields >= 11 && c->n && c->c && c->h && c->w && c->k && c->kh && c->kw && c->stride && c->groups;
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test_setup_teardown(run, dml_test_setup, dml_test_teardown)};
    int i;

    if (argc > 1)
    {
        configs = calloc(argc - 1, sizeof(*configs));
        for (i = 1; i < argc; ++i)
        {
            if (!parse_config(argv[i], &configs[config_count++]))
            {
                fprintf(stderr, "Bad shape \"%s\": want TYPE:N:C:H:W:K:KH:KW:STRIDE:PAD:GROUPS[:b].\n", argv[i]);
                return 2;
            }
        }
    }
    else
    {
        configs = (struct config *)default_configs;
        config_count = ARRAY_SIZE(default_configs);
    }
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
