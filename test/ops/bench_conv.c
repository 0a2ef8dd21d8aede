/*
 * CONVOLUTION speed through the public API (shim D3D12 device, DirectML), for GPU runs; not a
 * test (meson builds it, `meson test` does not run it).
 *
 *     bench_conv [TYPE:N:C:H:W:K:KH:KW:STRIDE:PAD:GROUPS[:b] ...]
 *
 * TYPE f32 or f16; a trailing :b makes it a backward (transposed) convolution whose input has C
 * channels. Without arguments, performance.md's ResNet-50 anchors and a few other shapes. Each
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
#include <time.h>

#include "dml_test_utils.h"

struct config
{
    DML_TENSOR_DATA_TYPE type;
    UINT n, c, h, w, k, kh, kw, stride, pad, groups;
    bool backward;
};

static double now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static float *random_tensor(DML_TENSOR_DATA_TYPE type, size_t count, uint32_t seed, void **bytes)
{
    float *values = malloc(count * sizeof(*values));
    uint32_t random = seed;
    size_t i;

    *bytes = malloc(count * dml_test_element_size(type));
    assert_true(values && *bytes);
    for (i = 0; i < count; ++i)
    {
        values[i] = dml_test_random_float(&random, -1.0f, 1.0f);
        if (type == DML_TENSOR_DATA_TYPE_FLOAT16)
        {
            ((uint16_t *)*bytes)[i] = dml_test_float_to_half(values[i]);
            values[i] = dml_test_half_to_float(((uint16_t *)*bytes)[i]);
        }
        else
        {
            ((float *)*bytes)[i] = values[i];
        }
    }
    return values;
}

/* Seconds for one execution of a list of `count` dependent dispatches. */
static double time_dispatches(struct dml_test_context *context, IDMLCompiledOperator *compiled,
        IDMLBindingTable *table, unsigned int count)
{
    ID3D12DescriptorHeap *heaps[] = {context->heap};
    unsigned int i;
    double start;

    ID3D12GraphicsCommandList_SetDescriptorHeaps(context->d3d.list, 1, heaps);
    for (i = 0; i < count; ++i)
    {
        IDMLCommandRecorder_RecordDispatch(context->recorder, (ID3D12CommandList *)context->d3d.list,
                (IDMLDispatchable *)compiled, table);
        uav_barrier(context->d3d.list, NULL);
    }
    check_hr(ID3D12GraphicsCommandList_Close(context->d3d.list), S_OK);
    start = now();
    execute_list(context->d3d.queue, context->d3d.list);
    wait_queue_idle(&context->d3d);
    start = now() - start;
    check_hr(ID3D12CommandAllocator_Reset(context->d3d.allocator), S_OK);
    check_hr(ID3D12GraphicsCommandList_Reset(context->d3d.list, context->d3d.allocator, NULL), S_OK);
    return start;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static double time_conv(struct dml_test_context *context, IDMLCompiledOperator *compiled, IDMLBindingTable *table)
{
    double one, per[3];
    unsigned int repeats, i;

    time_dispatches(context, compiled, table, 2);
    one = time_dispatches(context, compiled, table, 1);
    repeats = (unsigned int)fmin(fmax(0.025 / one, 4.0), 4000.0);
    for (i = 0; i < 3; ++i)
    {
        double single = time_dispatches(context, compiled, table, repeats);
        double twice = time_dispatches(context, compiled, table, 2 * repeats);

        per[i] = (twice - single) / repeats;
    }
    qsort(per, 3, sizeof(*per), compare_doubles);
    return per[1];
}

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
        size_t index = dml_test_random(&random) % count;
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
        got = c->type == DML_TENSOR_DATA_TYPE_FLOAT16 ? dml_test_half_to_float(((uint16_t *)data)[index])
                : ((float *)data)[index];
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
    DML_BUFFER_BINDING bindings[5];
    DML_BINDING_DESC descs[5];
    DML_BINDING_TABLE_DESC table_desc;
    IDMLBindingTable *table;
    ID3D12Resource *persistent;
    unsigned int i;

    dml_test_set_env("VKDML_CONV_KERNEL", kernel);
    if (!(compiled = compile(context, desc)))
        return;
    persistent = dml_test_initialize(context, compiled, NULL, 0);
    dml_test_execute(context, compiled, persistent, inputs, 3, &output, 1);
    error = spot_check(context, c, buffers[2], input, filter, out_sizes);

    table_desc.Dispatchable = (IDMLDispatchable *)compiled;
    table_desc.CPUDescriptorHandle = cpu_handle(context->heap, context->increment, 0);
    table_desc.GPUDescriptorHandle = gpu_handle(context->heap, context->increment, 0);
    table_desc.SizeInDescriptors = IDMLDispatchable_GetBindingPropertiesByValue((IDMLDispatchable *)compiled)
            .RequiredDescriptorCount;
    check_hr(IDMLDevice_CreateBindingTable(context->dml, &table_desc, &IID_IDMLBindingTable, (void **)&table), S_OK);
    for (i = 0; i < 3; ++i)
    {
        bindings[i] = (DML_BUFFER_BINDING){buffers[i], 0, ID3D12Resource_GetDesc(buffers[i]).Width};
        descs[i] = (DML_BINDING_DESC){DML_BINDING_TYPE_BUFFER, &bindings[i]};
    }
    descs[2] = (DML_BINDING_DESC){DML_BINDING_TYPE_NONE, NULL};
    descs[3] = (DML_BINDING_DESC){DML_BINDING_TYPE_BUFFER, &bindings[2]};
    IDMLBindingTable_BindInputs(table, 3, descs);
    IDMLBindingTable_BindOutputs(table, 1, &descs[3]);
    seconds = time_conv(context, compiled, table);
    flops = 2.0 * c->n * c->k * out_h * out_w * (c->c / c->groups) * c->kh * c->kw;
    if (c->backward)
        flops = 2.0 * c->n * c->c * c->h * c->w * (c->k / c->groups) * c->kh * c->kw;
    printf("%s N%u C%u %ux%u K%u %ux%u s%u p%u g%u%s  %-13s %9.4f ms %10.1f GFLOP/s  error %.1e\n",
            c->type == DML_TENSOR_DATA_TYPE_FLOAT16 ? "f16" : "f32", c->n, c->c, c->h, c->w, c->k, c->kh, c->kw,
            c->stride, c->pad, c->groups, c->backward ? " backward" : "", kernel, seconds * 1e3,
            flops / seconds * 1e-9, error);
    release_unknown(table);
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
    input_values = random_tensor(c->type, (size_t)c->n * c->c * c->h * c->w, 1, &input_bytes);
    filter_values = random_tensor(c->type, filter_count, 2, &filter_bytes);
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
