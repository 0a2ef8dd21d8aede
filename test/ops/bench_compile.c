/*
 * CompileOperator cost of a network's operator set through the public API, for the choice of what
 * kernels take as specialization constants (docs/kernels.md); not a test (meson builds it,
 * `meson test` runs it only as a smoke run at batch 1).
 *
 *     bench_compile [--each] [f32|f16] [BATCH ...]
 *
 * The set is ResNet-50 v1.5 inference as a DirectML graph of it runs (batch normalization folded
 * into the convolutions' bias): the input normalized per channel (SUBTRACT, MULTIPLY with
 * broadcast mean and 1/std), the 53 CONVOLUTIONs with their shapes (fused ReLU where the network
 * has one), the 16 residual ELEMENT_WISE_ADD1s with fused ReLU, the flatten before the classifier
 * as an ELEMENT_WISE_IDENTITY copy, and the final GEMM (2048 -> 1000, bias broadcast). Pooling
 * is left out (not an operator vkdml implements yet). Default: FLOAT32, batch 1 then batch 32,
 * each on a fresh device (an empty pipeline cache).
 *
 * Printed per family: operators compiled, pipelines the device created while compiling them
 * (counted from the TRACE line "Created a <kernel> pipeline" that program.c logs; 0 when built
 * with -Dtrace-messages=false), and the wall time of CompileOperator in total, per operator and
 * at most; --each prints every operator's time and pipelines.
 */
#include "bench_utils.h"

enum family
{
    FAMILY_CONV,
    FAMILY_ELEMENTWISE,
    FAMILY_GEMM,
    FAMILY_COUNT,
};

static const char *const family_names[FAMILY_COUNT] = {"conv", "elementwise", "gemm"};

struct family_stats
{
    unsigned int operators, pipelines;
    double seconds, slowest;
};

/* What the log sink counts while an operator compiles. */
static struct
{
    struct family_stats families[FAMILY_COUNT];
    unsigned int pipelines;             /* created so far, whatever their kernel */
    unsigned int problems;              /* errors or validation messages: the run fails */
    char problem[512];
} stats;

static DML_TENSOR_DATA_TYPE data_type = DML_TENSOR_DATA_TYPE_FLOAT32;
static UINT batches[8] = {1, 32};
static unsigned int batch_count = 2, next_batch;
static bool print_each;

static void count_sink(void *user_data, enum vkdml_log_level level, enum vkdml_log_source source,
        const char *function, const char *message)
{
    static const char created[] = "Created a ";

    if (source == VKDML_LOG_SOURCE_VALIDATION || level == VKDML_LOG_ERR)
    {
        ++stats.problems;
        snprintf(stats.problem, sizeof(stats.problem), "%s: %s", function, message);
    }
    if (level == VKDML_LOG_TRACE && !strncmp(message, created, sizeof(created) - 1))
        ++stats.pipelines;
}

/* CreateOperator, then CompileOperator timed with the pipeline count on: the pipelines created
 * meanwhile count for `family`, whatever their kernels (a 1x1 convolution may run GEMM's). The
 * result is released (its pipelines stay in the device's cache). */
static void compile(struct dml_test_context *context, enum family family, const char *name,
        DML_OPERATOR_TYPE type, const void *desc)
{
    enum vkdml_log_level level = vkdml_get_log_level();
    struct family_stats *f = &stats.families[family];
    IDMLCompiledOperator *compiled = NULL;
    double start, seconds;
    unsigned int pipelines = stats.pipelines;
    IDMLOperator *op;
    HRESULT hr;

    check_hr(dml_test_create_operator(context, type, desc, &op), S_OK);
    vkdml_set_log_level(VKDML_LOG_TRACE);
    vkdml_set_log_callback(count_sink, NULL);
    start = bench_now();
    hr = IDMLDevice_CompileOperator(context->dml, op, DML_EXECUTION_FLAG_NONE, &IID_IDMLCompiledOperator,
            (void **)&compiled);
    seconds = bench_now() - start;
    vkdml_test_init_logging();
    vkdml_set_log_level(level);
    release_unknown(op);
    check_hr(hr, S_OK);
    if (stats.problems)
        fail_msg("compiling %s logged: %s", name, stats.problem);
    release_last(compiled);
    ++f->operators;
    f->pipelines += stats.pipelines - pipelines;
    f->seconds += seconds;
    f->slowest = seconds > f->slowest ? seconds : f->slowest;
    if (print_each)
        printf("  %-40s %8.2f ms %u pipelines\n", name, seconds * 1e3, stats.pipelines - pipelines);
}

/* ---- The network ---- */

struct net
{
    struct dml_test_context *context;
    UINT batch;
};

static void tensor4(struct dml_test_tensor *t, UINT n, UINT c, UINT h, UINT w)
{
    const UINT sizes[4] = {n, c, h, w};

    dml_test_tensor_init(t, data_type, 4, sizes, NULL);
}

/* A square KERNELxKERNEL convolution of C channels at HxH into K, padding KERNEL / 2, with its
 * folded batch-normalization bias; returns the output's height. */
static UINT conv(struct net *net, UINT c, UINT h, UINT k, UINT kernel, UINT stride, bool relu)
{
    UINT out = (h + 2 * (kernel / 2) - kernel) / stride + 1, strides[2] = {stride, stride};
    UINT pad[2] = {kernel / 2, kernel / 2}, ones[2] = {1, 1}, zeros[2] = {0, 0};
    DML_ACTIVATION_RELU_OPERATOR_DESC relu_desc = {NULL, NULL};
    DML_OPERATOR_DESC activation = {DML_OPERATOR_ACTIVATION_RELU, &relu_desc};
    struct dml_test_tensor input, filter, bias, output;
    DML_CONVOLUTION_OPERATOR_DESC desc;
    char name[64];

    tensor4(&input, net->batch, c, h, h);
    tensor4(&filter, k, c, kernel, kernel);
    tensor4(&bias, 1, k, 1, 1);
    tensor4(&output, net->batch, k, out, out);
    desc = (DML_CONVOLUTION_OPERATOR_DESC){&input.desc, &filter.desc, &bias.desc, &output.desc,
            DML_CONVOLUTION_MODE_CROSS_CORRELATION, DML_CONVOLUTION_DIRECTION_FORWARD, 2, strides, ones, pad, pad,
            zeros, 1, relu ? &activation : NULL};
    snprintf(name, sizeof(name), "conv C%u %ux%u K%u %ux%u s%u%s", c, h, h, k, kernel, kernel, stride,
            relu ? " relu" : "");
    compile(net->context, FAMILY_CONV, name, DML_OPERATOR_CONVOLUTION, &desc);
    return out;
}

static void add_relu(struct net *net, UINT c, UINT h)
{
    DML_ACTIVATION_RELU_OPERATOR_DESC relu_desc = {NULL, NULL};
    DML_OPERATOR_DESC activation = {DML_OPERATOR_ACTIVATION_RELU, &relu_desc};
    struct dml_test_tensor a, b, output;
    DML_ELEMENT_WISE_ADD1_OPERATOR_DESC desc;
    char name[64];

    tensor4(&a, net->batch, c, h, h);
    tensor4(&b, net->batch, c, h, h);
    tensor4(&output, net->batch, c, h, h);
    desc = (DML_ELEMENT_WISE_ADD1_OPERATOR_DESC){&a.desc, &b.desc, &output.desc, &activation};
    snprintf(name, sizeof(name), "add1 relu C%u %ux%u", c, h, h);
    compile(net->context, FAMILY_ELEMENTWISE, name, DML_OPERATOR_ELEMENT_WISE_ADD1, &desc);
}

/* ImageNet normalization: (x - mean[c]) * (1 / std[c]), the per-channel tensors broadcast. */
static void normalize(struct net *net)
{
    static const DML_OPERATOR_TYPE types[2] = {DML_OPERATOR_ELEMENT_WISE_SUBTRACT, DML_OPERATOR_ELEMENT_WISE_MULTIPLY};
    static const char *const names[2] = {"subtract mean", "multiply 1/std"};
    const UINT sizes[4] = {net->batch, 3, 224, 224}, channel_strides[4] = {0, 1, 0, 0};
    struct dml_test_tensor x, channel, output;
    DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC desc;
    unsigned int i;

    tensor4(&x, net->batch, 3, 224, 224);
    dml_test_tensor_init(&channel, data_type, 4, sizes, channel_strides);
    tensor4(&output, net->batch, 3, 224, 224);
    desc = (DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC){&x.desc, &channel.desc, &output.desc};
    /* MULTIPLY's desc has SUBTRACT's layout. */
    for (i = 0; i < 2; ++i)
        compile(net->context, FAMILY_ELEMENTWISE, names[i], types[i], &desc);
}

/* Global average pooling's [N, 2048, 1, 1] copied as the classifier's [N, 2048] rows. */
static void flatten(struct net *net)
{
    struct dml_test_tensor input, output;
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc;

    /* IDENTITY wants the output's sizes: the input is the pooled [N, 2048, 1, 1] seen as rows. */
    tensor4(&input, 1, 1, net->batch, 2048);
    tensor4(&output, 1, 1, net->batch, 2048);
    desc = (DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC){&input.desc, &output.desc, NULL};
    compile(net->context, FAMILY_ELEMENTWISE, "identity flatten", DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc);
}

static void classifier(struct net *net)
{
    const UINT c_sizes[4] = {1, 1, net->batch, 1000}, c_strides[4] = {0, 0, 0, 1};
    struct dml_test_tensor a, b, c, output;
    DML_GEMM_OPERATOR_DESC desc;

    tensor4(&a, 1, 1, net->batch, 2048);
    tensor4(&b, 1, 1, 1000, 2048);
    dml_test_tensor_init(&c, data_type, 4, c_sizes, c_strides);
    tensor4(&output, 1, 1, net->batch, 1000);
    desc = (DML_GEMM_OPERATOR_DESC){&a.desc, &b.desc, &c.desc, &output.desc, DML_MATRIX_TRANSFORM_NONE,
            DML_MATRIX_TRANSFORM_TRANSPOSE, 1.0f, 1.0f, NULL};
    compile(net->context, FAMILY_GEMM, "gemm 2048 -> 1000", DML_OPERATOR_GEMM, &desc);
}

/* A bottleneck block: 1x1 reduce, 3x3 (v1.5: the stride is here), 1x1 expand, the projection
 * shortcut on the first block of a stage, the residual ADD with ReLU. Returns the output height. */
static UINT bottleneck(struct net *net, UINT c, UINT h, UINT width, UINT stride, bool project)
{
    UINT out;

    conv(net, c, h, width, 1, 1, true);
    out = conv(net, width, h, width, 3, stride, true);
    conv(net, width, out, 4 * width, 1, 1, false);
    if (project)
        conv(net, c, h, 4 * width, 1, stride, false);
    add_relu(net, 4 * width, out);
    return out;
}

static void resnet50(struct net *net)
{
    static const struct {UINT width, blocks, stride;} stages[4] = {{64, 3, 1}, {128, 4, 2}, {256, 6, 2}, {512, 3, 2}};
    UINT c = 64, h, i, b;

    normalize(net);
    h = conv(net, 3, 224, 64, 7, 2, true) / 2;          /* the 3x3 max pooling halves it */
    for (i = 0; i < ARRAY_SIZE(stages); ++i)
    {
        for (b = 0; b < stages[i].blocks; ++b)
        {
            h = bottleneck(net, c, h, stages[i].width, b ? 1 : stages[i].stride, !b);
            c = 4 * stages[i].width;
        }
    }
    flatten(net);
    classifier(net);
}

static void run(void **state)
{
    struct net net = {*state, batches[next_batch++]};
    struct family_stats total = {0};
    unsigned int f;

    memset(&stats, 0, sizeof(stats));
    printf("ResNet-50 v1.5, batch %u, %s:\n", net.batch, dml_test_type_name(data_type));
    resnet50(&net);
    printf("  %-12s %9s %9s %10s %9s %9s\n", "family", "operators", "pipelines", "total ms", "ms/op", "max ms");
    for (f = 0; f < FAMILY_COUNT; ++f)
    {
        const struct family_stats *s = &stats.families[f];

        if (!s->operators)
            continue;
        total.operators += s->operators;
        total.pipelines += s->pipelines;
        total.seconds += s->seconds;
        total.slowest = s->slowest > total.slowest ? s->slowest : total.slowest;
        printf("  %-12s %9u %9u %10.1f %9.2f %9.2f\n", family_names[f], s->operators, s->pipelines,
                s->seconds * 1e3, s->seconds * 1e3 / s->operators, s->slowest * 1e3);
    }
    printf("  %-12s %9u %9u %10.1f %9.2f %9.2f\n", "all", total.operators, total.pipelines, total.seconds * 1e3,
            total.seconds * 1e3 / total.operators, total.slowest * 1e3);
}

static bool parse_arguments(int argc, char **argv)
{
    unsigned int count = 0;
    int i;

    for (i = 1; i < argc; ++i)
    {
        unsigned long value;
        char *end;

        if (!strcmp(argv[i], "--each"))
            print_each = true;
        else if (!strcmp(argv[i], "f32") || !strcmp(argv[i], "f16"))
            data_type = argv[i][1] == '1' ? DML_TENSOR_DATA_TYPE_FLOAT16 : DML_TENSOR_DATA_TYPE_FLOAT32;
        else if ((value = strtoul(argv[i], &end, 10)) && !*end && value <= 1024 && count < ARRAY_SIZE(batches))
            batches[count++] = value;
        else
            return false;
    }
    if (count)
        batch_count = count;
    return true;
}

int main(int argc, char **argv)
{
    struct CMUnitTest tests[ARRAY_SIZE(batches)];
    unsigned int i;

    if (!parse_arguments(argc, argv))
    {
        fprintf(stderr, "Usage: %s [--each] [f32|f16] [BATCH ...] (at most %zu batches of at most 1024).\n",
                argv[0], ARRAY_SIZE(batches));
        return 2;
    }
    for (i = 0; i < batch_count; ++i)
        tests[i] = (struct CMUnitTest)cmocka_unit_test_setup_teardown(run, dml_test_setup, dml_test_teardown);
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return _cmocka_run_group_tests("bench_compile", tests, batch_count, NULL, NULL);
}
