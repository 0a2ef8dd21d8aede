/*
 * DML_OPERATOR_CONVOLUTION through the public API (shim D3D12 device, CreateOperator,
 * CompileOperator, an initializer, binding tables, RecordDispatch), checked against a C reference
 * that accumulates in double.
 *
 * A combinatorial sweep of tiny tensors covers direction x mode x strides x dilations x
 * asymmetric padding x groups x OutputPadding (or the larger backward output ONNX Runtime sends)
 * on the direct kernel and on the implicit-GEMM kernel, over 1-D (3-D tensors, and 4-D with
 * H = 1), 2-D and 3-D convolutions and padded / channels-last layouts. Hand-picked cases add
 * the 1x1-as-GEMM path, depthwise, broadcast inputs, thread tiles above 1x1, bias, fused
 * activations (CLIP included), FLOAT16 with fp32 and with half-precision accumulation
 * (tolerances grow with the reduction length), OWNED_BY_DML filter and bias bound only to a real
 * initializer dispatch from UPLOAD heaps (overwritten after initialization: the results must not
 * change), each kernel forced onto shapes it would not get (VKDML_CONV_KERNEL), and every desc
 * rule with E_INVALIDARG and its log line. The kernel each case should get is checked against
 * compilation's TRACE line when TRACE messages are compiled in. Every test ends with every
 * object's final Release returning 0 and no validation message.
 */
#include <math.h>

#include "dml_test_utils.h"

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

#define CONV_INPUTS 3               /* Input, Filter, Bias: Bias is bound (as NONE) even when absent */

#define F32 DML_TENSOR_DATA_TYPE_FLOAT32
#define F16 DML_TENSOR_DATA_TYPE_FLOAT16
#define FWD DML_CONVOLUTION_DIRECTION_FORWARD
#define BWD DML_CONVOLUTION_DIRECTION_BACKWARD
#define CONV DML_CONVOLUTION_MODE_CONVOLUTION
#define XCORR DML_CONVOLUTION_MODE_CROSS_CORRELATION

/* ---- Tensors ---- */

enum layout
{
    LAYOUT_PACKED,                  /* Strides NULL */
    LAYOUT_PADDED,                  /* every dimension padded with unused elements */
    LAYOUT_CHANNELS_LAST,           /* {N, spatial, C} in memory */
    LAYOUT_BATCH_BROADCAST,         /* packed, but the batch stride is 0 (one image read N times) */
    LAYOUT_SPATIAL_BROADCAST,       /* spatial strides 0: one value per image and channel */
};

struct tensor
{
    UINT sizes[5], strides[5];      /* the kernel's 5-D view {N, C, D, H, W}; missing dimensions have size 1 */
    struct dml_test_float_tensor data;  /* the desc (`rank` dimensions) and the values */
};

static void layout_strides(enum layout layout, UINT rank, const UINT *sizes, UINT *strides)
{
    UINT i, stride = 1;

    switch (layout)
    {
        case LAYOUT_PACKED:
        case LAYOUT_BATCH_BROADCAST:
        case LAYOUT_SPATIAL_BROADCAST:
            for (i = rank; i-- > 0; stride *= sizes[i])
                strides[i] = layout == LAYOUT_SPATIAL_BROADCAST && i >= 2 ? 0 : stride;
            if (layout == LAYOUT_BATCH_BROADCAST)
                strides[0] = 0;
            break;
        case LAYOUT_PADDED:
            for (i = rank; i-- > 0; stride = stride * sizes[i] + 1 + (i & 1))
                strides[i] = stride;
            break;
        case LAYOUT_CHANNELS_LAST:
            strides[1] = 1;
            stride = sizes[1];
            for (i = rank; i-- > 2; stride *= sizes[i])
                strides[i] = stride;
            strides[0] = stride;
            break;
    }
}

/* A tensor of `rank` desc sizes; values in [-1, 1]. */
static void tensor_init(struct tensor *t, DML_TENSOR_DATA_TYPE type, UINT rank, const UINT *sizes,
        enum layout layout, DML_TENSOR_FLAGS flags, unsigned int seed)
{
    UINT strides[5], i, d;

    memset(t, 0, sizeof(*t));
    layout_strides(layout, rank, sizes, strides);
    for (i = 0; i < 5; ++i)
        t->sizes[i] = 1;
    for (i = 0; i < rank; ++i)
    {
        d = i < 2 ? i : i + 5 - rank;
        t->sizes[d] = sizes[i];
        t->strides[d] = strides[i];
    }
    dml_test_float_tensor_init(&t->data, type, rank, sizes, layout == LAYOUT_PACKED ? NULL : strides, flags, seed);
}

static size_t tensor_index(const struct tensor *t, UINT n, UINT c, const UINT position[3])
{
    return (size_t)n * t->strides[0] + (size_t)c * t->strides[1] + (size_t)position[0] * t->strides[2]
            + (size_t)position[1] * t->strides[3] + (size_t)position[2] * t->strides[4];
}

/* ---- Test cases ---- */

#define OWN_FILTER 0x1
#define OWN_BIAS 0x2

/* The kernel conv.c should pick (its TRACE line "Convolution kernel: <name>"). */
enum conv_path
{
    PATH_ANY,
    PATH_DIRECT,
    PATH_GEMM,                      /* the implicit-GEMM kernel */
    PATH_1X1,                       /* gemm.comp over channels */
    PATH_COOPMAT,                   /* FLOAT16 on cooperative matrices, where the device has them */
    PATH_TILED,                     /* the register-tiled implicit GEMM for large shapes */
    PATH_COOPMAT_NHWC,              /* the same on channels-last copies (forward, one group) */
};

static const char *const path_names[] = {"any", "direct", "implicit-gemm", "gemm-1x1", "coopmat", "tiled",
        "coopmat-nhwc"};

struct conv_case
{
    const char *name;
    DML_TENSOR_DATA_TYPE type;
    UINT rank;                      /* 3 to 5: DimensionCount = rank - 2 */
    UINT batch, in_channels, out_channels, groups;
    UINT in_sizes[3], kernel[3];    /* the spatial dimensions in desc order (rank - 2 of them) */
    UINT strides[3], dilations[3];  /* 0 means 1 */
    UINT start_pad[3], end_pad[3], out_pad[3];
    UINT out_slack[3];              /* backward: output larger than the formula, OutputPadding 0 (ONNX Runtime's way) */
    DML_CONVOLUTION_MODE mode;
    DML_CONVOLUTION_DIRECTION direction;
    bool bias;
    enum layout in_layout, filter_layout, out_layout;
    const DML_OPERATOR_DESC *activation;
    unsigned int owned;             /* OWN_*: flagged DML_TENSOR_FLAG_OWNED_BY_DML */
    DML_EXECUTION_FLAGS flags;
    enum conv_path path;            /* the kernel compilation must pick */
    enum conv_path force;           /* VKDML_CONV_KERNEL during compilation; PATH_ANY: automatic */
};

/* A case with its defaults filled in (0 strides and dilations mean 1) and its derived shapes:
 * spatial arrays in the kernel's 3-D order {D, H, W}, the desc's dimensions last. */
struct conv_geometry
{
    UINT dims;                      /* DimensionCount */
    UINT in[3], kernel[3], out[3];
    UINT extent[3];                 /* positions that take input: out less a forward OutputPadding */
    UINT strides[3], dilations[3], start_pad[3];
    UINT c_per_group, k_per_group;
};

static UINT or_one(UINT value)
{
    return value ? value : 1;
}

static void geometry_init(struct conv_geometry *g, const struct conv_case *test)
{
    UINT i, d, window;

    g->dims = test->rank - 2;
    for (d = 0; d < 3; ++d)
    {
        g->in[d] = g->kernel[d] = g->out[d] = g->extent[d] = g->strides[d] = g->dilations[d] = 1;
        g->start_pad[d] = 0;
    }
    for (i = 0; i < g->dims; ++i)
    {
        d = i + 3 - g->dims;
        g->in[d] = test->in_sizes[i];
        g->kernel[d] = test->kernel[i];
        g->strides[d] = or_one(test->strides[i]);
        g->dilations[d] = or_one(test->dilations[i]);
        g->start_pad[d] = test->start_pad[i];
        window = (g->kernel[d] - 1) * g->dilations[d] + 1;
        if (test->direction == FWD)
            g->extent[d] = (g->in[d] + test->start_pad[i] + test->end_pad[i] - window) / g->strides[d] + 1;
        else
            g->extent[d] = (g->in[d] - 1) * g->strides[d] + window - test->start_pad[i] - test->end_pad[i]
                    + test->out_slack[i];
        g->out[d] = g->extent[d] + test->out_pad[i];
        /* A transposed convolution's OutputPadding positions are ordinary outputs (README.md). */
        if (test->direction == BWD)
            g->extent[d] = g->out[d];
    }
    g->c_per_group = test->in_channels / test->groups;
    g->k_per_group = test->out_channels / test->groups;
}

/* A desc's sizes: {N, C} then the spatial dimensions (the last `dims` of the 3). */
static void desc_sizes(UINT rank, UINT n, UINT c, const UINT spatial[3], UINT sizes[5])
{
    UINT i;

    sizes[0] = n;
    sizes[1] = c;
    for (i = 2; i < rank; ++i)
        sizes[i] = spatial[i - 2 + 5 - rank];
}

struct conv_run
{
    const struct conv_case *test;
    struct conv_geometry g;
    struct tensor input, filter, bias, output;
    float *expected;                /* [output.span] */
    double *tolerance;              /* [output.span] */
};

/* Where kernel tap `tap` of output position `o` reads the input, per dimension; false if nowhere. */
static bool input_position(const struct conv_run *run, const UINT o[3], const UINT tap[3], UINT at[3])
{
    const struct conv_geometry *g = &run->g;
    long shifted;
    UINT d;

    for (d = 0; d < 3; ++d)
    {
        if (run->test->direction == FWD)
        {
            shifted = (long)o[d] * g->strides[d] + (long)tap[d] * g->dilations[d] - g->start_pad[d];
        }
        else
        {
            shifted = (long)o[d] + g->start_pad[d] - (long)tap[d] * g->dilations[d];
            if (shifted < 0 || shifted % g->strides[d])
                return false;
            shifted /= g->strides[d];
        }
        if (shifted < 0 || shifted >= (long)g->in[d])
            return false;
        at[d] = (UINT)shifted;
    }
    return true;
}

static double filter_value(const struct conv_run *run, UINT group, UINT c, UINT k, const UINT tap[3])
{
    const struct conv_geometry *g = &run->g;
    UINT flipped[3], d;

    for (d = 0; d < 3; ++d)
        flipped[d] = run->test->mode == CONV ? g->kernel[d] - 1 - tap[d] : tap[d];
    if (run->test->direction == FWD)
        return run->filter.data.values[tensor_index(&run->filter, group * g->k_per_group + k, c, flipped)];
    return run->filter.data.values[tensor_index(&run->filter, group * g->c_per_group + c, k, flipped)];
}

/* The convolution sum of one output element and the sum of its terms' magnitudes. */
static double reference_sum(const struct conv_run *run, UINT n, UINT channel, const UINT o[3], double *magnitude)
{
    const struct conv_geometry *g = &run->g;
    UINT group = channel / g->k_per_group, k = channel % g->k_per_group, tap[3], at[3], c;
    double sum = 0.0, product;

    *magnitude = 0.0;
    if (o[0] >= g->extent[0] || o[1] >= g->extent[1] || o[2] >= g->extent[2])
        return 0.0;
    for (tap[0] = 0; tap[0] < g->kernel[0]; ++tap[0])
    for (tap[1] = 0; tap[1] < g->kernel[1]; ++tap[1])
    for (tap[2] = 0; tap[2] < g->kernel[2]; ++tap[2])
    {
        if (!input_position(run, o, tap, at))
            continue;
        for (c = 0; c < g->c_per_group; ++c)
        {
            product = run->input.data.values[tensor_index(&run->input, n, group * g->c_per_group + c, at)]
                    * filter_value(run, group, c, k, tap);
            sum += product;
            *magnitude += fabs(product);
        }
    }
    return sum;
}

static void compute_reference(struct conv_run *run)
{
    const struct conv_case *test = run->test;
    double value, magnitude, slope;
    UINT terms = run->g.c_per_group * run->g.kernel[0] * run->g.kernel[1] * run->g.kernel[2];
    UINT n, k, o[3];
    size_t index;

    for (n = 0; n < test->batch; ++n)
    for (k = 0; k < test->out_channels; ++k)
    for (o[0] = 0; o[0] < run->g.out[0]; ++o[0])
    for (o[1] = 0; o[1] < run->g.out[1]; ++o[1])
    for (o[2] = 0; o[2] < run->g.out[2]; ++o[2])
    {
        static const UINT zero[3];

        value = reference_sum(run, n, k, o, &magnitude);
        if (test->bias)
        {
            double b = run->bias.data.values[tensor_index(&run->bias, 0, k, zero)];

            value += b;
            magnitude += fabs(b);
        }
        value = dml_test_fused_activation(test->activation, value, &slope);
        index = tensor_index(&run->output, n, k, o);
        run->expected[index] = (float)value;
        run->tolerance[index] = dml_test_sum_tolerance(test->type, test->flags, terms, magnitude, value, slope);
    }
}

static void conv_run_init(struct conv_run *run, const struct conv_case *test)
{
    UINT sizes[5], bias_spatial[3] = {1, 1, 1};
    const struct conv_geometry *g = &run->g;
    bool forward = test->direction == FWD;

    memset(run, 0, sizeof(*run));
    run->test = test;
    geometry_init(&run->g, test);
    desc_sizes(test->rank, test->batch, test->in_channels, g->in, sizes);
    tensor_init(&run->input, test->type, test->rank, sizes, test->in_layout, 0, 1);
    desc_sizes(test->rank, forward ? test->out_channels : test->in_channels,
            forward ? g->c_per_group : g->k_per_group, g->kernel, sizes);
    tensor_init(&run->filter, test->type, test->rank, sizes, test->filter_layout,
            (test->owned & OWN_FILTER) ? DML_TENSOR_FLAG_OWNED_BY_DML : 0, 2);
    if (test->bias)
    {
        desc_sizes(test->rank, 1, test->out_channels, bias_spatial, sizes);
        tensor_init(&run->bias, test->type, test->rank, sizes, LAYOUT_PACKED,
                (test->owned & OWN_BIAS) ? DML_TENSOR_FLAG_OWNED_BY_DML : 0, 3);
    }
    desc_sizes(test->rank, test->batch, test->out_channels, g->out, sizes);
    tensor_init(&run->output, test->type, test->rank, sizes, test->out_layout, 0, 4);
    run->expected = calloc(run->output.data.span, sizeof(*run->expected));
    run->tolerance = calloc(run->output.data.span, sizeof(*run->tolerance));
    assert_true(run->expected && run->tolerance);
    compute_reference(run);
}

static void conv_run_cleanup(struct conv_run *run)
{
    dml_test_float_tensor_cleanup(&run->input.data);
    dml_test_float_tensor_cleanup(&run->filter.data);
    if (run->test->bias)
        dml_test_float_tensor_cleanup(&run->bias.data);
    dml_test_float_tensor_cleanup(&run->output.data);
    free(run->expected);
    free(run->tolerance);
}

/* The desc's per-dimension arrays, defaults filled in. */
struct conv_attributes
{
    UINT strides[3], dilations[3], start_pad[3], end_pad[3], out_pad[3];
};

static void fill_desc(DML_CONVOLUTION_OPERATOR_DESC *desc, struct conv_attributes *a, const struct conv_run *run)
{
    const struct conv_case *test = run->test;
    UINT i;

    for (i = 0; i < 3; ++i)
    {
        a->strides[i] = or_one(test->strides[i]);
        a->dilations[i] = or_one(test->dilations[i]);
        a->start_pad[i] = test->start_pad[i];
        a->end_pad[i] = test->end_pad[i];
        a->out_pad[i] = test->out_pad[i];
    }
    memset(desc, 0, sizeof(*desc));
    desc->InputTensor = &run->input.data.t.desc;
    desc->FilterTensor = &run->filter.data.t.desc;
    desc->BiasTensor = test->bias ? &run->bias.data.t.desc : NULL;
    desc->OutputTensor = &run->output.data.t.desc;
    desc->Mode = test->mode;
    desc->Direction = test->direction;
    desc->DimensionCount = run->g.dims;
    desc->Strides = a->strides;
    desc->Dilations = a->dilations;
    desc->StartPadding = a->start_pad;
    desc->EndPadding = a->end_pad;
    desc->OutputPadding = a->out_pad;
    desc->GroupCount = test->groups;
    desc->FusedActivation = test->activation;
}

/* ---- Which kernel compilation picked: its TRACE line ---- */

static void set_kernel(struct dml_test_context *context, const char *name)
{
    dml_test_set_knob(context, "VKDML_CONV_KERNEL", name);
}

/* Compiles with VKDML_CONV_KERNEL naming `force` (unless PATH_ANY); `path` receives the kernel's
 * name from conv.c's "Convolution kernel: <name>, ..." TRACE line ("" without one). */
static IDMLCompiledOperator *compile_traced(struct dml_test_context *context, const DML_CONVOLUTION_OPERATOR_DESC *desc,
        DML_EXECUTION_FLAGS flags, enum conv_path force, char path[32])
{
    IDMLCompiledOperator *compiled;
    char trace[256];

    /* Set before the compilation, for the device it makes: the knob stays until the next case. */
    set_kernel(context, force != PATH_ANY ? path_names[force] : NULL);
    compiled = dml_test_compile_traced(context, DML_OPERATOR_CONVOLUTION, desc, flags, "Convolution kernel: ",
            trace, sizeof(trace));
    snprintf(path, 32, "%.*s", (int)strcspn(trace, ",."), trace);
    return compiled;
}

static void check_path(const struct conv_case *test, const char *path)
{
    /* Without TRACE messages compiled in (-Dtrace-messages=false) nothing tells. */
    if (test->path == PATH_ANY || !path[0])
        return;
    /* Devices with cooperative matrices take every FLOAT16 convolution with enough channels. */
    if (test->type == F16 && test->force == PATH_ANY
            && (!strcmp(path, path_names[PATH_COOPMAT]) || !strcmp(path, path_names[PATH_COOPMAT_NHWC])))
        return;
    if (strcmp(path, path_names[test->path]))
        fail_msg("%s: compiled for the %s kernel, expected %s", test->name, path, path_names[test->path]);
}

/* ---- Running ---- */

/* Compares every output element (the padding of strided outputs is not checked). */
static void check_output(struct dml_test_context *context, const struct conv_run *run, ID3D12Resource *output,
        const char *when)
{
    const struct conv_case *test = run->test;
    size_t size = run->output.data.t.buffer.TotalTensorSizeInBytes, index;
    void *bytes = malloc(size);
    UINT n, k, o[3];
    float got;

    assert_non_null(bytes);
    dml_test_read_buffer(context, output, 0, bytes, size);
    for (n = 0; n < test->batch; ++n)
    for (k = 0; k < test->out_channels; ++k)
    for (o[0] = 0; o[0] < run->g.out[0]; ++o[0])
    for (o[1] = 0; o[1] < run->g.out[1]; ++o[1])
    for (o[2] = 0; o[2] < run->g.out[2]; ++o[2])
    {
        index = tensor_index(&run->output, n, k, o);
        got = dml_test_read_float(bytes, test->type, index);
        if (!(fabs((double)got - run->expected[index]) <= run->tolerance[index]))
            fail_msg("%s (%s): output[%u][%u][%u][%u][%u] = %.9g, expected %.9g (tolerance %.3g)", test->name, when,
                    n, k, o[0], o[1], o[2], got, run->expected[index], run->tolerance[index]);
    }
    free(bytes);
}

static void execute_and_check(struct dml_test_context *context, const struct conv_run *run,
        IDMLCompiledOperator *compiled, ID3D12Resource *persistent, const struct dml_test_binding *inputs,
        const char *when)
{
    struct dml_test_binding output = {NULL};

    output.buffer = dml_test_create_buffer(context, run->output.data.t.buffer.TotalTensorSizeInBytes, NULL);
    dml_test_execute(context, compiled, persistent, inputs, CONV_INPUTS, &output, 1);
    check_output(context, run, output.buffer, when);
    release_last(output.buffer);
}

/* Compiles, initializes and executes `run`'s case on its data, checks the output against run->expected and
 * cleans `run` up. */
static void run_prepared(struct dml_test_context *context, struct conv_run *run)
{
    struct dml_test_binding inputs[CONV_INPUTS] = {{NULL}}, owned[CONV_INPUTS] = {{NULL}};
    const struct dml_test_float_tensor *tensors[CONV_INPUTS];
    const struct conv_case *test = run->test;
    DML_CONVOLUTION_OPERATOR_DESC desc;
    struct conv_attributes attributes;
    IDMLCompiledOperator *compiled;
    ID3D12Resource *persistent;
    char path[32];

    tensors[0] = &run->input.data, tensors[1] = &run->filter.data, tensors[2] = test->bias ? &run->bias.data : NULL;
    fill_desc(&desc, &attributes, run);
    compiled = compile_traced(context, &desc, test->flags, test->force, path);
    check_path(test, path);

    /* OWNED_BY_DML inputs exist only in upload buffers bound to the initializer; the others live
     * in DEFAULT buffers bound at execute. */
    dml_test_create_input_buffers(context, tensors, CONV_INPUTS, inputs, owned);
    persistent = dml_test_initialize(context, compiled, owned, CONV_INPUTS);
    if (test->owned)
        assert_non_null(persistent);
    execute_and_check(context, run, compiled, persistent, inputs, "first execution");
    if (test->owned)
    {
        dml_test_scribble_owned(owned, tensors, CONV_INPUTS);
        execute_and_check(context, run, compiled, persistent, inputs, "after overwriting the OWNED_BY_DML sources");
    }

    dml_test_release_bindings(owned, CONV_INPUTS);
    dml_test_release_bindings(inputs, CONV_INPUTS);
    if (persistent)
        release_last(persistent);
    release_last(compiled);
    conv_run_cleanup(run);
    assert_no_log_errors();
}

static void run_case(struct dml_test_context *context, const struct conv_case *test)
{
    struct conv_run run;

    if (dml_test_skip_float16(context, test->type, test->name))
        return;
    conv_run_init(&run, test);
    run_prepared(context, &run);
}

static void run_cases(void **state, const struct conv_case *cases, size_t count)
{
    size_t i;

    for (i = 0; i < count; ++i)
        run_case(*state, &cases[i]);
}

/* ---- The sweep ---- */

/* Case `index` of the full product of direction, mode, strides, dilations, padding, groups and
 * (backward) OutputPadding or the larger output; the spatial rank cycles through 1-D (as 3-D
 * and as 4-D tensors with H = 1), 2-D and 3-D so that each rank meets every combination of the
 * others over the sweep. `wide` runs the implicit-GEMM kernel, with 8 output channels and 4
 * input channels per group; otherwise the direct kernel, with 1 to 3. The tensors are too small
 * for the automatic choice to take the implicit GEMM: VKDML_CONV_KERNEL forces both. */
static void sweep_case(struct conv_case *test, char *name, size_t name_size, unsigned int index, bool wide)
{
    unsigned int bits = index, rank_choice = (index + (index >> 3) + (index >> 6)) % 4, i;
    bool backward = bits & 1, correlation = bits & 2, strided = bits & 4, dilated = bits & 8;
    bool padded = bits & 16, grouped = bits & 32, out_padded = bits & 64, one_d = rank_choice < 2;
    UINT window, min_out = one_d ? 8 : 3;

    memset(test, 0, sizeof(*test));
    test->type = F32;
    test->direction = backward ? BWD : FWD;
    test->mode = correlation ? XCORR : CONV;
    test->rank = rank_choice == 0 ? 3 : rank_choice == 1 ? 4 : rank_choice == 2 ? 4 : 5;
    test->groups = grouped ? 2 : 1;
    test->batch = 2;
    test->in_channels = test->groups * (wide ? 4 : 1 + index % 3);
    test->out_channels = test->groups * (wide ? 8 : 1 + (index / 3) % 3);
    test->bias = (index / 2) % 2;
    test->in_layout = index % 5 == 1 ? LAYOUT_PADDED : index % 5 == 3 ? LAYOUT_CHANNELS_LAST : LAYOUT_PACKED;
    test->filter_layout = index % 7 == 2 ? LAYOUT_PADDED : LAYOUT_PACKED;
    test->out_layout = index % 6 == 4 ? LAYOUT_PADDED : index % 6 == 5 ? LAYOUT_CHANNELS_LAST : LAYOUT_PACKED;
    test->path = test->force = wide ? PATH_GEMM : PATH_DIRECT;
    for (i = 0; i < test->rank - 2; ++i)
    {
        /* 1-D as 4-D: the H dimension is 1 with a 1-tap kernel. */
        if (rank_choice == 1 && !i)
        {
            test->in_sizes[i] = test->kernel[i] = 1;
            continue;
        }
        test->kernel[i] = 2 + (index + i) % 2;
        test->strides[i] = strided ? 2 : 1;
        test->dilations[i] = dilated ? 2 : 1;
        test->start_pad[i] = padded ? (i % 2 ? 0 : 2) : 0;
        test->end_pad[i] = padded ? 1 : 0;
        if (out_padded && backward && i % 2 == 0)
            test->out_pad[i] = 1;
        else if (out_padded && backward)
            test->out_slack[i] = MAX(test->strides[i], test->dilations[i]) - 1;
        else if (out_padded)
            test->out_pad[i] = 1;
        /* Large enough for min_out forward positions; backward outputs are larger than their inputs. */
        window = (test->kernel[i] - 1) * test->dilations[i] + 1;
        test->in_sizes[i] = MAX(one_d ? 10 : 4, window + (min_out - 1) * test->strides[i]
                - test->start_pad[i] - test->end_pad[i]);
    }
    snprintf(name, name_size, "sweep %s #%u: %u-D (rank %u) %s %s%s%s%s%s%s", wide ? "wide" : "narrow", index,
            one_d ? 1 : test->rank - 2, test->rank, backward ? "BACKWARD" : "FORWARD",
            correlation ? "CROSS_CORRELATION" : "CONVOLUTION", strided ? " strided" : "", dilated ? " dilated" : "",
            padded ? " padded" : "", grouped ? " grouped" : "", out_padded ? " OutputPadding" : "");
    test->name = name;
}

/* The wide sweep compiles the implicit-GEMM kernel, which lavapipe compiles slowly: it runs the
 * half of the product with an even number of the 7 binary choices set, which still holds every
 * combination of any 6 of them. */
static bool even_parity(unsigned int bits)
{
    bool parity = false;

    for (; bits; bits &= bits - 1)
        parity = !parity;
    return !parity;
}

static void run_sweep(void **state, bool wide)
{
    struct conv_case test;
    char name[160];
    unsigned int i;

    for (i = 0; i < 128; ++i)
    {
        if (wide && !even_parity(i))
            continue;
        sweep_case(&test, name, sizeof(name), i, wide);
        run_case(*state, &test);
    }
}

static void test_sweep_direct(void **state)
{
    run_sweep(state, false);
}

static void test_sweep_implicit_gemm(void **state)
{
    run_sweep(state, true);
}

/* ---- Hand-picked cases ---- */

#define PACKED LAYOUT_PACKED
#define PADDED LAYOUT_PADDED
#define NHWC LAYOUT_CHANNELS_LAST
#define BROADCAST LAYOUT_BATCH_BROADCAST

static const struct conv_case shape_cases[] =
{
    /* Depthwise: a group per channel, one or two output channels per group. */
    {"depthwise 3x3, pad 1", F32, 4, 2, 8, 8, 8, {9, 7}, {3, 3}, .start_pad = {1, 1}, .end_pad = {1, 1},
            .mode = XCORR, .direction = FWD, .bias = true, .activation = &dml_test_relu, .path = PATH_DIRECT},
    {"depthwise, channel multiplier 2, stride 2, CONVOLUTION mode", F32, 4, 1, 6, 12, 6, {8, 9}, {3, 2},
            .strides = {2, 2}, .start_pad = {1, 0}, .end_pad = {0, 1}, .mode = CONV, .direction = FWD,
            .path = PATH_DIRECT},
    {"depthwise 3-D backward", F32, 5, 1, 4, 4, 4, {3, 4, 3}, {2, 3, 2}, .strides = {2, 1, 2}, .start_pad = {1, 1, 0},
            .mode = XCORR, .direction = BWD, .bias = true, .path = PATH_DIRECT},
    /* 1x1, unit strides, no padding: GEMMs over channels, packed or channels-last positions. */
    {"1x1 forward", F32, 4, 2, 6, 20, 1, {5, 4}, {1, 1}, .mode = XCORR, .direction = FWD, .bias = true,
            .activation = &dml_test_relu, .path = PATH_1X1},
    {"1x1 forward, 2 groups, 3-D", F32, 5, 2, 8, 18, 2, {2, 3, 4}, {1, 1, 1}, .mode = CONV, .direction = FWD,
            .bias = true, .path = PATH_1X1},
    {"1x1 backward, 2 groups, 1-D", F32, 3, 3, 10, 6, 2, {13}, {1}, .mode = XCORR, .direction = BWD,
            .bias = true, .path = PATH_1X1},
    {"1x1 channels-last input and output", F32, 4, 2, 5, 9, 1, {3, 7}, {1, 1}, .mode = XCORR, .direction = FWD,
            .in_layout = NHWC, .out_layout = NHWC, .filter_layout = PADDED, .path = PATH_1X1},
    {"1x1 with dilation (no effect)", F32, 4, 1, 4, 4, 1, {4, 4}, {1, 1}, .dilations = {3, 2}, .mode = XCORR,
            .direction = FWD, .path = PATH_1X1},
    /* 1x1 that is not a plain GEMM: padded positions, strides, padding, OutputPadding. */
    {"1x1 padded layout", F32, 4, 2, 8, 16, 1, {5, 6}, {1, 1}, .mode = XCORR, .direction = FWD,
            .in_layout = PADDED, .path = PATH_GEMM, .force = PATH_GEMM},
    {"1x1 stride 2", F32, 4, 2, 8, 16, 1, {9, 10}, {1, 1}, .strides = {2, 2}, .mode = XCORR, .direction = FWD,
            .bias = true, .path = PATH_GEMM, .force = PATH_GEMM},
    {"1x1 padded", F32, 4, 2, 8, 16, 1, {5, 6}, {1, 1}, .start_pad = {1, 0}, .end_pad = {0, 2}, .mode = XCORR,
            .direction = FWD, .bias = true, .path = PATH_GEMM, .force = PATH_GEMM},
    {"1x1 OutputPadding", F32, 4, 2, 8, 16, 1, {5, 6}, {1, 1}, .out_pad = {1, 2}, .mode = XCORR,
            .direction = FWD, .bias = true, .activation = &dml_test_sigmoid, .path = PATH_GEMM, .force = PATH_GEMM},
    /* Input broadcast over the positions (0 strides) reads as one position: still a GEMM. */
    {"1x1, input broadcast over positions", F32, 4, 2, 4, 16, 1, {3, 5}, {1, 1}, .mode = XCORR, .direction = FWD,
            .in_layout = LAYOUT_SPATIAL_BROADCAST, .path = PATH_1X1},
    {"3x3, input broadcast over positions", F32, 4, 2, 4, 16, 1, {6, 5}, {3, 3}, .start_pad = {1, 0},
            .mode = XCORR, .direction = FWD, .in_layout = LAYOUT_SPATIAL_BROADCAST, .path = PATH_GEMM, .force = PATH_GEMM},
    /* Input broadcast over the batch through a 0 stride. */
    {"batch-broadcast input", F32, 4, 3, 4, 8, 1, {6, 6}, {3, 3}, .mode = XCORR, .direction = FWD,
            .in_layout = BROADCAST, .path = PATH_GEMM, .force = PATH_GEMM},
    {"batch-broadcast input, direct", F32, 4, 3, 4, 2, 1, {6, 6}, {3, 3}, .mode = XCORR, .direction = BWD,
            .in_layout = BROADCAST, .path = PATH_DIRECT},
    /* Tiny outputs and reductions take the direct kernel even with many output channels. */
    {"one output position", F32, 4, 1, 3, 32, 1, {3, 3}, {3, 3}, .mode = XCORR, .direction = FWD, .bias = true,
            .path = PATH_DIRECT},
    {"reduction of 4", F32, 4, 2, 1, 16, 1, {6, 6}, {2, 2}, .mode = XCORR, .direction = FWD, .path = PATH_DIRECT},
    /* Backward, strides 3x3 and 2x2: most taps of an output position meet no input. */
    {"backward stride 3x3", F32, 4, 2, 16, 16, 1, {4, 5}, {3, 3}, .strides = {3, 3}, .start_pad = {1, 1},
            .end_pad = {0, 1}, .out_pad = {1, 0}, .mode = XCORR, .direction = BWD, .bias = true,
            .path = PATH_DIRECT},
    {"backward stride 2x2", F32, 4, 2, 16, 16, 1, {4, 5}, {3, 3}, .strides = {2, 2}, .start_pad = {1, 1},
            .end_pad = {0, 1}, .out_pad = {1, 0}, .mode = XCORR, .direction = BWD, .bias = true,
            .path = PATH_GEMM, .force = PATH_GEMM},
    /* Kernel as large as the padded input; every tap of a dilated kernel in the padding but one. */
    {"kernel covers the input", F32, 4, 2, 4, 8, 1, {5, 6}, {5, 6}, .mode = CONV, .direction = FWD,
            .path = PATH_DIRECT},
    {"dilation 3, padding larger than the kernel", F32, 3, 2, 8, 16, 2, {3}, {2}, .dilations = {3},
            .start_pad = {5}, .end_pad = {4}, .mode = XCORR, .direction = FWD, .bias = true, .path = PATH_GEMM, .force = PATH_GEMM},
};

/* Large enough for thread tiles of more than one output (groups multiply the tiles); the first
 * and last are large enough for the tiled kernel too, so the implicit GEMM is forced. */
static const struct conv_case tile_cases[] =
{
    {"thread tiles 4x4", F32, 4, 2, 32, 1024, 16, {16, 16}, {3, 3}, .start_pad = {1, 1}, .end_pad = {1, 1},
            .mode = XCORR, .direction = FWD, .bias = true, .path = PATH_GEMM, .force = PATH_GEMM},
    {"thread tiles 2x4, ragged", F32, 4, 1, 32, 1008, 16, {15, 17}, {3, 2}, .start_pad = {1, 0},
            .mode = CONV, .direction = FWD, .path = PATH_GEMM},
    {"thread tiles, backward", F32, 4, 2, 32, 1024, 16, {15, 16}, {2, 3}, .strides = {1, 2}, .start_pad = {0, 1},
            .mode = XCORR, .direction = BWD, .bias = true, .path = PATH_GEMM, .force = PATH_GEMM},
};

/* DirectML's CLIP is max(Min, min(x, Max)), with no Min <= Max rule: Min > Max gives Min. */
static const DML_ELEMENT_WISE_CLIP_OPERATOR_DESC clip_min_above_max_desc = {NULL, NULL, NULL, 0.25f, -0.5f};
static const DML_OPERATOR_DESC clip_min_above_max = {DML_OPERATOR_ELEMENT_WISE_CLIP, &clip_min_above_max_desc};

static const struct conv_case activation_cases[] =
{
    {"RELU, implicit GEMM", F32, 4, 2, 4, 16, 1, {6, 5}, {3, 3}, .start_pad = {1, 1}, .end_pad = {1, 1},
            .mode = XCORR, .direction = FWD, .bias = true, .activation = &dml_test_relu, .path = PATH_GEMM,
            .force = PATH_GEMM},
    {"SIGMOID, direct", F32, 4, 2, 4, 4, 1, {6, 5}, {3, 3}, .mode = XCORR, .direction = BWD, .bias = true,
            .activation = &dml_test_sigmoid, .path = PATH_DIRECT},
    {"LEAKY_RELU, implicit GEMM, backward", F32, 3, 2, 8, 16, 2, {9}, {3}, .strides = {2}, .mode = CONV,
            .direction = BWD, .bias = true, .activation = &dml_test_leaky_relu, .path = PATH_GEMM, .force = PATH_GEMM},
    {"HARD_SIGMOID, 1x1", F32, 4, 2, 4, 16, 1, {6, 5}, {1, 1}, .mode = XCORR, .direction = FWD, .bias = true,
            .activation = &dml_test_hard_sigmoid, .path = PATH_1X1},
    {"LINEAR, direct", F32, 5, 1, 2, 2, 2, {3, 3, 3}, {2, 2, 2}, .mode = XCORR, .direction = FWD,
            .activation = &dml_test_linear, .path = PATH_DIRECT},
    {"CLIP, implicit GEMM", F32, 4, 2, 4, 16, 1, {6, 5}, {3, 3}, .start_pad = {1, 1}, .end_pad = {1, 1},
            .mode = XCORR, .direction = FWD, .bias = true, .activation = &dml_test_clip, .path = PATH_GEMM,
            .force = PATH_GEMM},
    {"CLIP, direct, OutputPadding past the windows holds clip(bias)", F32, 4, 1, 3, 3, 3, {4, 4}, {3, 3},
            .strides = {2, 1}, .out_pad = {1, 1}, .mode = XCORR, .direction = BWD, .bias = true,
            .activation = &dml_test_clip, .path = PATH_DIRECT},
    {"CLIP, 1x1", F32, 4, 1, 4, 16, 1, {4, 4}, {1, 1}, .mode = XCORR, .direction = BWD, .bias = true,
            .activation = &dml_test_clip, .path = PATH_1X1},
    {"CLIP with Min > Max: Min everywhere, direct", F32, 4, 2, 4, 4, 1, {6, 5}, {3, 3}, .mode = XCORR,
            .direction = FWD, .bias = true, .activation = &clip_min_above_max, .path = PATH_DIRECT},
};

#define HALF DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION

/* Tolerances grow with the reduction length (64 x 9 = 576 terms in the longest). */
static const struct conv_case float16_cases[] =
{
    {"FLOAT16 implicit GEMM, 576-term reductions", F16, 4, 2, 64, 16, 1, {6, 6}, {3, 3}, .start_pad = {1, 1},
            .end_pad = {1, 1}, .mode = XCORR, .direction = FWD, .bias = true, .path = PATH_GEMM, .force = PATH_GEMM},
    {"FLOAT16 implicit GEMM, half-precision math", F16, 4, 2, 64, 16, 1, {6, 6}, {3, 3}, .start_pad = {1, 1},
            .end_pad = {1, 1}, .mode = XCORR, .direction = FWD, .bias = true, .activation = &dml_test_relu,
            .flags = HALF, .path = PATH_GEMM, .force = PATH_GEMM},
    {"FLOAT16 direct, backward, grouped", F16, 4, 2, 16, 6, 2, {5, 4}, {3, 3}, .strides = {2, 2},
            .start_pad = {1, 1}, .mode = CONV, .direction = BWD, .bias = true, .path = PATH_DIRECT},
    {"FLOAT16 direct, half-precision math", F16, 5, 1, 8, 4, 1, {4, 3, 4}, {2, 2, 2}, .mode = XCORR,
            .direction = FWD, .bias = true, .flags = HALF, .path = PATH_DIRECT},
    {"FLOAT16 1x1, 1-D", F16, 3, 2, 40, 24, 1, {11}, {1}, .mode = XCORR, .direction = FWD, .bias = true,
            .path = PATH_1X1},
    {"FLOAT16 1x1, half-precision math", F16, 4, 2, 40, 24, 2, {3, 5}, {1, 1}, .mode = XCORR, .direction = BWD,
            .flags = HALF, .path = PATH_1X1},
};

static const struct conv_case owned_cases[] =
{
    {"OWNED_BY_DML filter, implicit GEMM", F32, 4, 2, 4, 16, 1, {6, 5}, {3, 3}, .start_pad = {1, 1},
            .end_pad = {1, 1}, .mode = XCORR, .direction = FWD, .bias = true, .owned = OWN_FILTER,
            .path = PATH_GEMM, .force = PATH_GEMM},
    {"OWNED_BY_DML filter and bias, direct, backward", F32, 4, 2, 4, 4, 2, {5, 5}, {3, 3}, .strides = {2, 2},
            .mode = CONV, .direction = BWD, .bias = true, .owned = OWN_FILTER | OWN_BIAS, .activation = &dml_test_relu,
            .path = PATH_DIRECT},
    {"OWNED_BY_DML filter and bias, 1x1, padded filter", F32, 4, 2, 8, 16, 2, {4, 4}, {1, 1}, .mode = XCORR,
            .direction = FWD, .bias = true, .filter_layout = PADDED, .owned = OWN_FILTER | OWN_BIAS,
            .path = PATH_1X1},
    {"OWNED_BY_DML bias only, 3-D", F32, 5, 1, 2, 8, 1, {4, 4, 4}, {2, 2, 2}, .mode = XCORR, .direction = FWD,
            .bias = true, .owned = OWN_BIAS, .path = PATH_GEMM, .force = PATH_GEMM},
    {"FLOAT16 OWNED_BY_DML filter and bias", F16, 4, 2, 8, 16, 1, {5, 5}, {3, 3}, .mode = XCORR,
            .direction = FWD, .bias = true, .owned = OWN_FILTER | OWN_BIAS, .path = PATH_GEMM, .force = PATH_GEMM},
};

static void test_shapes(void **state)
{
    run_cases(state, shape_cases, ARRAY_SIZE(shape_cases));
}

static void test_thread_tiles(void **state)
{
    run_cases(state, tile_cases, ARRAY_SIZE(tile_cases));
}

/* WebNN's convTranspose2d with explicit padding and outputSizes, as DirectML gets it: stride 2, a 3x3
 * window, padding 1 on each side and OutputPadding 1. All-ones input and filter: along each dimension the
 * outputs 0..3 take 1, 2, 1 and 1 input positions, so output (h, w) holds 3 (the channels) x taken[h] x
 * taken[w]; the OutputPadding row and column take input like any other output (3 in the corner). */
static void test_backward_output_padding(void **state)
{
    static const struct conv_case webnn = {"WebNN convTranspose2d, explicit padding and outputSizes", F32, 4, 1,
            3, 1, 1, {2, 2}, {3, 3}, .strides = {2, 2}, .start_pad = {1, 1}, .end_pad = {1, 1}, .out_pad = {1, 1},
            .mode = XCORR, .direction = BWD, .path = PATH_DIRECT};
    static const double taken[4] = {1.0, 2.0, 1.0, 1.0};
    struct conv_run run;
    UINT o[3] = {0};
    size_t i;

    conv_run_init(&run, &webnn);
    for (i = 0; i < run.input.data.span; ++i)
        run.input.data.values[i] = 1.0f;
    for (i = 0; i < run.filter.data.span; ++i)
        run.filter.data.values[i] = 1.0f;
    compute_reference(&run);
    assert_int_equal(run.g.out[1], 4);
    assert_int_equal(run.g.out[2], 4);
    for (o[1] = 0; o[1] < 4; ++o[1])
    for (o[2] = 0; o[2] < 4; ++o[2])
    {
        if (run.expected[tensor_index(&run.output, 0, 0, o)] != 3.0 * taken[o[1]] * taken[o[2]])
            fail_msg("reference output[%u][%u] = %.9g, expected %.9g", o[1], o[2],
                    run.expected[tensor_index(&run.output, 0, 0, o)], 3.0 * taken[o[1]] * taken[o[2]]);
    }
    run_prepared(*state, &run);
}

static void test_fused_activations(void **state)
{
    run_cases(state, activation_cases, ARRAY_SIZE(activation_cases));
}

static void test_float16(void **state)
{
    run_cases(state, float16_cases, ARRAY_SIZE(float16_cases));
}

static void test_owned_by_dml(void **state)
{
    run_cases(state, owned_cases, ARRAY_SIZE(owned_cases));
}

/* ---- VKDML_CONV_KERNEL: each kernel on shapes the automatic choice gives another ---- */

static const struct conv_case forced_gemm_cases[] =
{
    {"depthwise on the implicit GEMM", F32, 4, 2, 4, 4, 4, {7, 6}, {3, 3}, .start_pad = {1, 1}, .end_pad = {1, 0},
            .mode = CONV, .direction = FWD, .bias = true, .path = PATH_GEMM, .force = PATH_GEMM},
    {"backward stride 2x2 on the implicit GEMM", F32, 4, 2, 6, 4, 2, {4, 5}, {3, 2}, .strides = {2, 2},
            .dilations = {1, 2}, .start_pad = {1, 1}, .out_pad = {1, 0}, .mode = XCORR, .direction = BWD,
            .bias = true, .activation = &dml_test_leaky_relu, .path = PATH_GEMM, .force = PATH_GEMM},
    {"1x1 on the implicit GEMM", F32, 3, 2, 6, 5, 1, {9}, {1}, .mode = XCORR, .direction = FWD, .bias = true,
            .path = PATH_GEMM, .force = PATH_GEMM},
    {"backward, EndPadding and OutputPadding on the implicit GEMM", F32, 4, 2, 6, 8, 2, {3, 4}, {3, 3},
            .strides = {2, 2}, .start_pad = {1, 0}, .end_pad = {1, 2}, .out_pad = {1, 1}, .mode = CONV,
            .direction = BWD, .bias = true, .path = PATH_GEMM, .force = PATH_GEMM},
};

static const struct conv_case forced_direct_cases[] =
{
    {"wide 3-D on the direct kernel", F32, 5, 2, 8, 16, 2, {4, 5, 4}, {2, 3, 2}, .strides = {1, 2, 1},
            .dilations = {2, 1, 1}, .start_pad = {1, 1, 0}, .end_pad = {0, 1, 1}, .mode = CONV, .direction = FWD,
            .bias = true, .path = PATH_DIRECT, .force = PATH_DIRECT},
    {"1x1 on the direct kernel", F32, 4, 2, 8, 16, 2, {4, 4}, {1, 1}, .mode = XCORR, .direction = BWD,
            .bias = true, .path = PATH_DIRECT, .force = PATH_DIRECT},
    {"backward, EndPadding and OutputPadding on the direct kernel", F32, 5, 1, 4, 6, 2, {2, 3, 3}, {2, 3, 2},
            .strides = {2, 2, 1}, .dilations = {1, 1, 2}, .end_pad = {1, 2, 1}, .out_pad = {1, 1, 1},
            .mode = XCORR, .direction = BWD, .bias = true, .activation = &dml_test_clip, .path = PATH_DIRECT,
            .force = PATH_DIRECT},
};

static void test_forced_kernels(void **state)
{
    struct dml_test_context *context = *state;
    struct conv_attributes attributes;
    DML_CONVOLUTION_OPERATOR_DESC desc;
    IDMLCompiledOperator *compiled;
    struct conv_run run;
    IDMLOperator *op;

    run_cases(state, forced_gemm_cases, ARRAY_SIZE(forced_gemm_cases));
    run_cases(state, forced_direct_cases, ARRAY_SIZE(forced_direct_cases));

    /* A kernel that cannot run the shape: E_NOTIMPL at compilation, with a FIXME line. */
    set_kernel(context, "gemm-1x1");
    conv_run_init(&run, &forced_gemm_cases[0]);
    fill_desc(&desc, &attributes, &run);
    check_hr(dml_test_create_operator(context, DML_OPERATOR_CONVOLUTION, &desc, &op), S_OK);
    vkdml_test_log_reset();
    compiled = (IDMLCompiledOperator *)(uintptr_t)0xdeadbeef;
    check_hr(IDMLDevice_CompileOperator(context->dml, op, DML_EXECUTION_FLAG_NONE, &IID_IDMLCompiledOperator,
            (void **)&compiled), E_NOTIMPL);
    assert_null(compiled);
    assert_int_equal(vkdml_test_log_counts()->errors, 0);
    assert_true(vkdml_test_log_counts()->fixmes >= 1);
    vkdml_test_log_reset();
    release_last(op);
    conv_run_cleanup(&run);
    set_kernel(context, NULL);
}

/* ---- The cooperative-matrix kernel (FLOAT16, only where the device has it) ---- */

/* The kernel exists when a FLOAT16 convolution compiles with it forced. */
static bool coopmat_available(struct dml_test_context *context)
{
    static const struct conv_case probe = {"probe", F16, 4, 1, 16, 16, 1, {4, 4}, {3, 3}, .mode = XCORR,
            .direction = FWD};
    IDMLCompiledOperator *compiled = NULL;
    struct conv_attributes attributes;
    DML_CONVOLUTION_OPERATOR_DESC desc;
    struct conv_run run;
    IDMLOperator *op;
    HRESULT hr;

    if (!dml_test_data_type_supported(context, F16))
        return false;
    conv_run_init(&run, &probe);
    fill_desc(&desc, &attributes, &run);
    set_kernel(context, path_names[PATH_COOPMAT]);
    check_hr(dml_test_create_operator(context, DML_OPERATOR_CONVOLUTION, &desc, &op), S_OK);
    hr = IDMLDevice_CompileOperator(context->dml, op, DML_EXECUTION_FLAG_NONE, &IID_IDMLCompiledOperator,
            (void **)&compiled);
    if (hr != E_NOTIMPL)
        check_hr(hr, S_OK);
    if (compiled)
        release_last(compiled);
    release_last(op);
    conv_run_cleanup(&run);
    vkdml_test_log_reset();
    return hr == S_OK;
}

static const struct conv_case coopmat_cases[] =
{
    {"coopmat: ResNet-like 3x3, filter in vectors", F16, 4, 2, 64, 64, 1, {9, 7}, {3, 3}, .start_pad = {1, 1},
            .end_pad = {1, 1}, .mode = XCORR, .direction = FWD, .bias = true, .activation = &dml_test_relu},
    {"coopmat: 80 channels (partial tiles), 1x1", F16, 4, 3, 24, 80, 1, {5, 7}, {1, 1}, .mode = XCORR,
            .direction = FWD, .bias = true},
    {"coopmat: flipped, strided, dilated, gathered filter", F16, 4, 1, 12, 32, 1, {11, 10}, {3, 2},
            .strides = {2, 1}, .dilations = {1, 2}, .start_pad = {2, 0}, .end_pad = {0, 1}, .mode = CONV,
            .direction = FWD, .bias = true, .activation = &dml_test_leaky_relu},
    {"coopmat: backward, grouped, OutputPadding", F16, 4, 2, 32, 48, 2, {5, 4}, {3, 3}, .strides = {2, 2},
            .start_pad = {1, 1}, .out_pad = {1, 0}, .mode = XCORR, .direction = BWD, .bias = true},
    {"coopmat: backward, EndPadding and OutputPadding", F16, 4, 2, 32, 32, 1, {5, 4}, {3, 3},
            .strides = {2, 2}, .start_pad = {1, 0}, .end_pad = {1, 2}, .out_pad = {1, 1}, .mode = CONV,
            .direction = BWD, .bias = true},
    {"coopmat: 3-D, padded and NHWC layouts", F16, 5, 2, 16, 16, 1, {4, 5, 3}, {2, 3, 2}, .start_pad = {1, 1, 0},
            .mode = XCORR, .direction = FWD, .in_layout = LAYOUT_PADDED, .filter_layout = LAYOUT_PADDED,
            .out_layout = LAYOUT_CHANNELS_LAST, .activation = &dml_test_clip},
    {"coopmat: OWNED_BY_DML filter and bias", F16, 4, 2, 24, 32, 1, {6, 6}, {3, 3}, .start_pad = {1, 1},
            .mode = XCORR, .direction = FWD, .bias = true, .owned = OWN_FILTER | OWN_BIAS},
    {"coopmat: half-precision permission", F16, 3, 2, 16, 32, 1, {40}, {5}, .start_pad = {2}, .end_pad = {2},
            .mode = XCORR, .direction = FWD, .bias = true, .flags = HALF},
    /* Output rows of 8 positions and more: the gather's row runs, at the input's edges too. */
    {"coopmat: wide rows, stride 2 along W", F16, 4, 2, 16, 32, 1, {6, 40}, {3, 3}, .strides = {1, 2},
            .start_pad = {1, 1}, .end_pad = {1, 1}, .mode = XCORR, .direction = FWD, .bias = true},
    {"coopmat: wide rows, dilated, CONVOLUTION mode", F16, 4, 1, 24, 16, 1, {5, 37}, {2, 3}, .dilations = {1, 2},
            .start_pad = {0, 3}, .end_pad = {1, 0}, .mode = CONV, .direction = FWD, .in_layout = LAYOUT_PADDED},
};

static void set_conv_tune(struct dml_test_context *context, const char *value)
{
    dml_test_set_knob(context, "VKDML_CONV_TUNE", value);
}

/* ---- The register-tiled kernel ---- */

/* The first two are large enough for the automatic choice (128 tiles of 64 x 64; the second
 * splits K in two parts); the others force it. */
static const struct conv_case tiled_cases[] =
{
    {"tiled: 3x3 pad 1, 64 channels per group", F32, 4, 2, 32, 1024, 16, {16, 16}, {3, 3}, .start_pad = {1, 1},
            .end_pad = {1, 1}, .mode = XCORR, .direction = FWD, .bias = true, .activation = &dml_test_relu,
            .path = PATH_TILED},
    {"tiled: 256 channels per group, few positions: split K", F32, 4, 1, 128, 512, 2, {40, 40}, {3, 3},
            .start_pad = {1, 1}, .end_pad = {1, 1}, .mode = XCORR, .direction = FWD, .bias = true,
            .activation = &dml_test_leaky_relu, .path = PATH_TILED},
    {"tiled: partial tiles, CONVOLUTION mode", F32, 4, 2, 20, 150, 2, {15, 17}, {3, 2}, .start_pad = {1, 0},
            .mode = CONV, .direction = FWD, .bias = true},
    {"tiled: backward, strided, EndPadding and OutputPadding", F32, 4, 2, 24, 72, 1, {9, 8}, {2, 3},
            .strides = {2, 2}, .start_pad = {0, 1}, .end_pad = {1, 0}, .out_pad = {1, 0}, .mode = XCORR,
            .direction = BWD, .bias = true, .activation = &dml_test_leaky_relu},
    {"tiled: 3-D, dilated, padded and NHWC layouts", F32, 5, 2, 12, 40, 2, {5, 6, 7}, {2, 3, 2}, .dilations = {1, 2, 1},
            .start_pad = {1, 2, 0}, .end_pad = {0, 1, 1}, .mode = XCORR, .direction = FWD, .in_layout = LAYOUT_PADDED,
            .filter_layout = LAYOUT_PADDED, .out_layout = LAYOUT_CHANNELS_LAST, .activation = &dml_test_clip},
    {"tiled: 1-D, K not a multiple of the slab", F32, 3, 3, 7, 130, 1, {70}, {5}, .strides = {2}, .start_pad = {2},
            .end_pad = {2}, .mode = XCORR, .direction = FWD, .bias = true},
    {"tiled: FLOAT16 tensors", F16, 4, 2, 16, 96, 1, {12, 11}, {3, 3}, .start_pad = {1, 1}, .end_pad = {1, 1},
            .mode = CONV, .direction = FWD, .bias = true, .activation = &dml_test_sigmoid},
    {"tiled: FLOAT16, half-precision permission", F16, 4, 1, 8, 64, 1, {10, 10}, {3, 3}, .mode = XCORR,
            .direction = FWD, .flags = HALF},
    {"tiled: OWNED_BY_DML filter and bias", F32, 4, 2, 16, 80, 1, {8, 9}, {3, 3}, .start_pad = {1, 1},
            .mode = XCORR, .direction = FWD, .bias = true, .owned = OWN_FILTER | OWN_BIAS},
};

/* Each case and part of the wide sweep on the kernel forced, over its default tiling and the
 * others (lavapipe compiles the kernel slowly: a fifth of the sweep, a twenty-third for the others). */
static void test_tiled_kernel(void **state)
{
    static const char *const tunings[] = {NULL, "64,256,8", "256,64,16,3", "128,128,8", "64,64,16,4"};
    struct dml_test_context *context = *state;
    struct conv_case test;
    char name[160];
    unsigned int i, t;

    for (t = 0; t < ARRAY_SIZE(tunings); ++t)
    {
        set_conv_tune(context, tunings[t]);
        for (i = 0; i < ARRAY_SIZE(tiled_cases); ++i)
        {
            test = tiled_cases[i];
            /* The automatic split (the largest case) once. */
            if (t && i == 1)
                continue;
            if (t || test.path != PATH_TILED)
                test.path = test.force = PATH_TILED;
            run_case(context, &test);
        }
        for (i = t; i < 128; i += t ? 23 : 5)
        {
            sweep_case(&test, name, sizeof(name), i, true);
            test.path = test.force = PATH_TILED;
            run_case(context, &test);
        }
    }
    set_conv_tune(context, NULL);
}

/* ---- Few tiles and a long reduction: the tiled kernel split (batch-1 inference) ---- */

/* 16 positions: 8 or 4 tiles of 64x64, K long enough for 8 or 16 parts: conv.c picks the tiled
 * kernel with split-K (64 workgroups), 1x1 included (rather than the GEMM service). */
static const struct conv_case split_tiled_cases[] =
{
    {"split-K by shape: 3x3 C128 4x4 K512, pad 1", F32, 4, 1, 128, 512, 1, {4, 4}, {3, 3}, .start_pad = {1, 1},
            .end_pad = {1, 1}, .mode = XCORR, .direction = FWD, .bias = true, .activation = &dml_test_relu,
            .path = PATH_TILED},
    {"split-K by shape: 1x1 C2048 4x4 K256", F32, 4, 1, 2048, 256, 1, {4, 4}, {1, 1}, .mode = XCORR,
            .direction = FWD, .bias = true, .path = PATH_TILED},
};

/* Each case as picked (split), then forced unsplit: both must match the reference. */
static void test_split_tiled(void **state)
{
    struct dml_test_context *context = *state;
    struct conv_case test;
    unsigned int i;

    for (i = 0; i < ARRAY_SIZE(split_tiled_cases); ++i)
    {
        run_case(context, &split_tiled_cases[i]);
        test = split_tiled_cases[i];
        test.force = PATH_TILED;
        set_conv_tune(context, "64,64,8,1");
        run_case(context, &test);
        set_conv_tune(context, NULL);
    }
}

/* On the gathering kernel, every case; on channels-last copies, those it takes. */
static void force_coopmat(struct conv_case *test, enum conv_path path)
{
    if (path == PATH_COOPMAT_NHWC && (test->direction == BWD || test->groups != 1))
        path = PATH_COOPMAT;
    test->path = test->force = path;
}

/* Each case, and the wide sweep in FLOAT16 with 16 channels per group, on the kernel forced
 * (gathering the input, and on channels-last copies), over its default tiling and the others it
 * can take. */
static void test_coopmat_kernel(void **state)
{
    static const char *const tunings[] = {NULL, "64,64,2,2", "128,128,2,4", "256,64,4,2", "64,128,2,4,3",
            "64,64,2,2,4"};
    static const enum conv_path paths[] = {PATH_COOPMAT, PATH_COOPMAT_NHWC};
    struct dml_test_context *context = *state;
    struct conv_case test;
    unsigned int i, p, t;
    char name[160];

    if (!coopmat_available(context))
    {
        print_message("Skipping: the device has no cooperative-matrix convolution kernel.\n");
        return;
    }
    for (p = 0; p < ARRAY_SIZE(paths); ++p)
    {
        for (t = 0; t < ARRAY_SIZE(tunings); ++t)
        {
            set_conv_tune(context, tunings[t]);
            for (i = 0; i < ARRAY_SIZE(coopmat_cases); ++i)
            {
                test = coopmat_cases[i];
                force_coopmat(&test, paths[p]);
                run_case(context, &test);
            }
            for (i = 0; i < 128; i += t ? 7 : 1)
            {
                sweep_case(&test, name, sizeof(name), i, true);
                test.type = F16;
                test.in_channels = test.groups * 8;
                test.out_channels = test.groups * 16;
                force_coopmat(&test, paths[p]);
                run_case(context, &test);
            }
        }
    }
    set_conv_tune(context, NULL);
    print_message("Ran %u cases and the sweep on the cooperative-matrix kernel, gathering and on channels-last "
            "copies, %u tilings.\n", (unsigned int)ARRAY_SIZE(coopmat_cases), (unsigned int)ARRAY_SIZE(tunings));
}

/* ---- Invalid descs ---- */

struct bad_desc
{
    struct dml_test_tensor input, filter, bias, output;
    UINT strides[3], dilations[3], start_pad[3], end_pad[3], out_pad[3];
    DML_CONVOLUTION_OPERATOR_DESC desc;
};

/* A valid forward 2-D convolution: Input {1, 4, 5, 5}, Filter {6, 4 / groups, 3, 3}, Bias
 * {1, 6, 1, 1}, Output {1, 6, 3, 3}; tests then break one rule. */
static void bad_desc_init(struct bad_desc *bad, DML_TENSOR_DATA_TYPE type, UINT groups)
{
    UINT input_sizes[4] = {1, 4, 5, 5}, filter_sizes[4] = {6, 4 / groups, 3, 3};
    UINT bias_sizes[4] = {1, 6, 1, 1}, output_sizes[4] = {1, 6, 3, 3}, i;

    memset(bad, 0, sizeof(*bad));
    dml_test_tensor_init(&bad->input, type, 4, input_sizes, NULL);
    dml_test_tensor_init(&bad->filter, type, 4, filter_sizes, NULL);
    dml_test_tensor_init(&bad->bias, type, 4, bias_sizes, NULL);
    dml_test_tensor_init(&bad->output, type, 4, output_sizes, NULL);
    for (i = 0; i < 3; ++i)
        bad->strides[i] = bad->dilations[i] = 1;
    bad->desc.InputTensor = &bad->input.desc;
    bad->desc.FilterTensor = &bad->filter.desc;
    bad->desc.BiasTensor = &bad->bias.desc;
    bad->desc.OutputTensor = &bad->output.desc;
    bad->desc.Mode = XCORR;
    bad->desc.Direction = FWD;
    bad->desc.DimensionCount = 2;
    bad->desc.Strides = bad->strides;
    bad->desc.Dilations = bad->dilations;
    bad->desc.StartPadding = bad->start_pad;
    bad->desc.EndPadding = bad->end_pad;
    bad->desc.OutputPadding = bad->out_pad;
    bad->desc.GroupCount = groups;
}

/* The same as a backward convolution: Input {1, 4, 3, 3}, Filter {4, 6 / groups, 3, 3},
 * Output {1, 6, 5, 5}. */
static void bad_desc_init_backward(struct bad_desc *bad, UINT groups)
{
    bad_desc_init(bad, F32, groups);
    bad->desc.Direction = BWD;
    bad->input.sizes[2] = bad->input.sizes[3] = 3;
    bad->filter.sizes[0] = 4;
    bad->filter.sizes[1] = 6 / groups;
    bad->output.sizes[2] = bad->output.sizes[3] = 5;
}

static HRESULT create_bad(struct dml_test_context *context, struct bad_desc *bad)
{
    struct dml_test_tensor *tensors[] = {&bad->input, &bad->filter, &bad->bias, &bad->output};

    return dml_test_try_create(context, DML_OPERATOR_CONVOLUTION, &bad->desc, tensors, ARRAY_SIZE(tensors));
}

/* CreateOperator fails with E_INVALIDARG and one log line naming the rule. */
#define check_bad(context, bad, message) dml_test_check_bad(create_bad(context, bad), message)

#define check_good(context, bad) \
    do { \
        check_hr(create_bad(context, bad), S_OK); \
        assert_no_log_errors(); \
    } while (0)

static void test_invalid_ranks_and_types(void **state)
{
    struct dml_test_context *context = *state;
    struct bad_desc bad;

    bad_desc_init(&bad, F32, 1);
    check_good(context, &bad);

    bad_desc_init(&bad, F32, 1);
    bad.filter.buffer.DimensionCount = 3;
    bad.filter.buffer.Sizes = &bad.filter.sizes[1];
    check_bad(context, &bad, "CreateOperator(CONVOLUTION): FilterTensor.DimensionCount=3 must equal "
            "InputTensor.DimensionCount=4");

    bad_desc_init(&bad, F32, 1);
    bad.bias.buffer.DimensionCount = 2;
    check_bad(context, &bad, "BiasTensor.DimensionCount=2 must equal InputTensor.DimensionCount=4");

    bad_desc_init(&bad, F32, 1);
    bad.input.buffer.DimensionCount = bad.filter.buffer.DimensionCount = bad.bias.buffer.DimensionCount
            = bad.output.buffer.DimensionCount = 2;
    bad.desc.DimensionCount = 0;
    check_bad(context, &bad, "InputTensor.DimensionCount=2 must be 3 to 5");

    bad_desc_init(&bad, F32, 1);
    bad.desc.DimensionCount = 3;
    check_bad(context, &bad, "DimensionCount=3 must be InputTensor.DimensionCount=4 - 2");

    bad_desc_init(&bad, DML_TENSOR_DATA_TYPE_INT32, 1);
    check_bad(context, &bad, "InputTensor.DataType=INT32 must be FLOAT32 or FLOAT16");

    bad_desc_init(&bad, F32, 1);
    bad.filter.buffer.DataType = F16;
    check_bad(context, &bad, "FilterTensor.DataType=FLOAT16 must equal InputTensor.DataType=FLOAT32");

    bad_desc_init(&bad, F32, 1);
    bad.output.buffer.DataType = F16;
    check_bad(context, &bad, "OutputTensor.DataType=FLOAT16 must equal InputTensor.DataType=FLOAT32");

    bad_desc_init(&bad, F32, 1);
    bad.desc.Mode = (DML_CONVOLUTION_MODE)2;
    check_bad(context, &bad, "Mode 2 is not a DML_CONVOLUTION_MODE value");

    bad_desc_init(&bad, F32, 1);
    bad.desc.Direction = (DML_CONVOLUTION_DIRECTION)7;
    check_bad(context, &bad, "Direction 7 is not a DML_CONVOLUTION_DIRECTION value");
}

static void test_invalid_attributes(void **state)
{
    struct dml_test_context *context = *state;
    struct bad_desc bad;

    bad_desc_init(&bad, F32, 1);
    bad.desc.GroupCount = 0;
    check_bad(context, &bad, "GroupCount=0 must be at least 1");

    bad_desc_init(&bad, F32, 1);
    bad.strides[1] = 0;
    check_bad(context, &bad, "Strides[1]=0 must be at least 1");

    bad_desc_init(&bad, F32, 1);
    bad.dilations[0] = 0;
    check_bad(context, &bad, "Dilations[0]=0 must be at least 1");

    bad_desc_init(&bad, F32, 1);
    bad.desc.Strides = NULL;
    check_bad(context, &bad, "Strides is NULL but DimensionCount is 2");

    bad_desc_init(&bad, F32, 1);
    bad.desc.OutputPadding = NULL;
    check_bad(context, &bad, "OutputPadding is NULL but DimensionCount is 2");
}

static void test_invalid_channels(void **state)
{
    struct dml_test_context *context = *state;
    struct bad_desc bad;

    bad_desc_init(&bad, F32, 1);
    bad.output.sizes[0] = 2;
    check_bad(context, &bad, "OutputTensor.Sizes[0]=2 must equal InputTensor.Sizes[0]=1 (batch)");

    bad_desc_init(&bad, F32, 1);
    bad.desc.GroupCount = 3;
    check_bad(context, &bad, "InputTensor.Sizes[1]=4 must be a multiple of GroupCount=3");

    bad_desc_init(&bad, F32, 4);
    bad.filter.sizes[0] = bad.bias.sizes[1] = bad.output.sizes[1] = 6;
    check_bad(context, &bad, "OutputTensor.Sizes[1]=6 must be a multiple of GroupCount=4");

    bad_desc_init(&bad, F32, 2);
    bad.filter.sizes[1] = 4;
    check_bad(context, &bad, "FilterTensor.Sizes[1]=4 must equal InputTensor.Sizes[1]=4 / GroupCount=2");

    bad_desc_init(&bad, F32, 1);
    bad.filter.sizes[0] = 5;
    check_bad(context, &bad, "FilterTensor.Sizes[0]=5 must equal OutputTensor.Sizes[1]=6 (output channels)");

    bad_desc_init_backward(&bad, 2);
    check_good(context, &bad);

    bad_desc_init_backward(&bad, 1);
    bad.filter.sizes[0] = 6;
    bad.filter.sizes[1] = 6;
    check_bad(context, &bad, "FilterTensor.Sizes[0]=6 must equal InputTensor.Sizes[1]=4 (input channels of a "
            "backward convolution)");

    bad_desc_init_backward(&bad, 2);
    bad.filter.sizes[1] = 6;
    check_bad(context, &bad, "OutputTensor.Sizes[1]=6 must equal FilterTensor.Sizes[1]=6 * GroupCount=2");

    bad_desc_init(&bad, F32, 1);
    bad.bias.sizes[1] = 4;
    check_bad(context, &bad, "BiasTensor.Sizes[1]=4 must equal OutputTensor.Sizes[1]=6 (one bias per output channel)");

    bad_desc_init(&bad, F32, 1);
    bad.bias.sizes[3] = 3;
    check_bad(context, &bad, "BiasTensor.Sizes[3]=3 must be 1");
}

static void test_invalid_spatial_sizes(void **state)
{
    struct dml_test_context *context = *state;
    struct bad_desc bad;

    bad_desc_init(&bad, F32, 1);
    bad.output.sizes[3] = 4;
    check_bad(context, &bad, "OutputTensor.Sizes[3]=4 must equal (InputTensor.Sizes[3]=5 + StartPadding[1]=0 + "
            "EndPadding[1]=0 - 3 (dilated kernel)) / Strides[1]=1 + 1 + OutputPadding[1]=0 = 3");

    /* Strides, dilations, padding and OutputPadding all enter the formula. */
    bad_desc_init(&bad, F32, 1);
    bad.strides[0] = 2, bad.dilations[0] = 2, bad.start_pad[0] = 2, bad.end_pad[0] = 1, bad.out_pad[0] = 1;
    bad.output.sizes[2] = 4;
    check_bad(context, &bad, "OutputTensor.Sizes[2]=4 must equal (InputTensor.Sizes[2]=5 + StartPadding[0]=2 + "
            "EndPadding[0]=1 - 5 (dilated kernel)) / Strides[0]=2 + 1 + OutputPadding[0]=1 = 3");
    bad.output.sizes[2] = 3;
    check_good(context, &bad);

    bad_desc_init(&bad, F32, 1);
    bad.dilations[1] = 3;
    check_bad(context, &bad, "InputTensor.Sizes[3]=5 + StartPadding[1]=0 + EndPadding[1]=0 must be at least the "
            "dilated kernel");

    bad_desc_init_backward(&bad, 1);
    bad.output.sizes[2] = 4;
    check_bad(context, &bad, "OutputTensor.Sizes[2]=4 must equal (InputTensor.Sizes[2]=3 - 1) * Strides[0]=1 + "
            "3 (dilated kernel) - StartPadding[0]=0 - EndPadding[0]=0 + OutputPadding[0]=0 = 5");

    /* Larger by less than max(Strides, Dilations): ONNX Runtime's and WebNN's OutputPadding. */
    bad_desc_init_backward(&bad, 1);
    bad.strides[1] = 2;
    bad.output.sizes[3] = 8;
    check_good(context, &bad);
    bad.output.sizes[3] = 9;
    check_bad(context, &bad, "OutputTensor.Sizes[3]=9 must equal (InputTensor.Sizes[3]=3 - 1) * Strides[1]=2 + "
            "3 (dilated kernel) - StartPadding[1]=0 - EndPadding[1]=0 + OutputPadding[1]=0 = 7");
    bad.out_pad[1] = 1;
    check_good(context, &bad);

    bad_desc_init_backward(&bad, 1);
    bad.start_pad[0] = 3, bad.end_pad[0] = 2;
    check_bad(context, &bad, "StartPadding[0]=3 + EndPadding[0]=2 must be less than (InputTensor.Sizes[2]=3 - 1) "
            "* Strides[0]=1 + 3 (dilated kernel)");
}

static void test_invalid_activations(void **state)
{
    static const DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity_desc = {NULL, NULL, NULL};
    static const DML_OPERATOR_DESC not_fusible = {DML_OPERATOR_ELEMENT_WISE_IDENTITY, &identity_desc};
    struct dml_test_context *context = *state;
    DML_ACTIVATION_RELU_OPERATOR_DESC relu_with_tensor;
    DML_OPERATOR_DESC activation;
    struct bad_desc bad;

    bad_desc_init(&bad, F32, 1);
    bad.desc.FusedActivation = &dml_test_clip;
    check_good(context, &bad);

    bad_desc_init(&bad, F32, 1);
    bad.desc.FusedActivation = &not_fusible;
    check_bad(context, &bad, "FusedActivation.Type=ELEMENT_WISE_IDENTITY is not a fusible activation");

    bad_desc_init(&bad, F32, 1);
    relu_with_tensor.InputTensor = &bad.output.desc;
    relu_with_tensor.OutputTensor = NULL;
    activation.Type = DML_OPERATOR_ACTIVATION_RELU;
    activation.Desc = &relu_with_tensor;
    bad.desc.FusedActivation = &activation;
    check_bad(context, &bad, "FusedActivation.InputTensor must be NULL");
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_sweep_direct, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_sweep_implicit_gemm, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_shapes, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_thread_tiles, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_backward_output_padding, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_fused_activations, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_float16, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_owned_by_dml, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_forced_kernels, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_coopmat_kernel, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_tiled_kernel, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_split_tiled, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_invalid_ranks_and_types, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_invalid_attributes, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_invalid_channels, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_invalid_spatial_sizes, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_invalid_activations, dml_test_setup, dml_test_teardown),
    };

    /* Logging first: it keeps the Vulkan driver loaded for LeakSanitizer (test_utils.c). */
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
