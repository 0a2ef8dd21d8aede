/*
 * The graph compiler's activation, alias and join passes (docs/graph.md, "Passes"): each graph
 * runs with the pass on and off (VKDML_GRAPH_OPT), both checked against a C reference, and the
 * report says what the pass did and that it saved dispatches; the graphs also hold the cases
 * the pass must leave alone (a second reader, a graph output in between, other layouts).
 */
#include <math.h>
#include <stdio.h>

#include "dml_graph_utils.h"
#include "vkdml.h"

#define MAX_TENSORS 10

/* A graph under test: random inputs, the reference's outputs, and how to build it again (the
 * builder's operators are released by each CompileGraph). */
struct fuse_graph
{
    DML_TENSOR_DATA_TYPE type;
    UINT input_count, output_count;
    struct dml_test_float_tensor inputs[MAX_TENSORS];
    UINT64 output_elements[MAX_TENSORS];
    double *expected[MAX_TENSORS];
    void (*build)(struct dml_test_context *context, struct fuse_graph *graph, struct dml_graph_builder *builder);
};

static void graph_init(struct fuse_graph *graph, DML_TENSOR_DATA_TYPE type,
        void (*build)(struct dml_test_context *, struct fuse_graph *, struct dml_graph_builder *))
{
    memset(graph, 0, sizeof(*graph));
    graph->type = type;
    graph->build = build;
}

/* Input `index`, random in [-1, 1], packed. */
static const float *add_input(struct fuse_graph *graph, UINT index, const UINT *sizes)
{
    dml_test_float_tensor_init(&graph->inputs[index], graph->type, 4, sizes, NULL, DML_TENSOR_FLAG_NONE, index + 7);
    if (graph->input_count <= index)
        graph->input_count = index + 1;
    return graph->inputs[index].values;
}

static double *add_output(struct fuse_graph *graph, UINT index, UINT64 elements)
{
    graph->output_elements[index] = elements;
    if (graph->output_count <= index)
        graph->output_count = index + 1;
    assert_non_null(graph->expected[index] = calloc(elements, sizeof(double)));
    return graph->expected[index];
}

static void graph_cleanup(struct fuse_graph *graph)
{
    UINT i;

    for (i = 0; i < graph->input_count; ++i)
        dml_test_float_tensor_cleanup(&graph->inputs[i]);
    for (i = 0; i < graph->output_count; ++i)
        free(graph->expected[i]);
}

static void check_output(const struct fuse_graph *graph, UINT index, const void *bytes, const char *knob)
{
    double tolerance = graph->type == DML_TENSOR_DATA_TYPE_FLOAT16 ? 4e-3 : 1e-4;
    UINT64 i;

    for (i = 0; i < graph->output_elements[index]; ++i)
    {
        double expected = graph->expected[index][i], value = dml_test_read_float(bytes, graph->type, i);

        if (fabs(value - expected) > tolerance * (1.0 + fabs(expected)))
            fail_msg("VKDML_GRAPH_OPT=%s, %s: output %u element %u is %.8g, expected %.8g.", knob,
                    dml_test_type_name(graph->type), index, (unsigned int)i, value, expected);
    }
}

/* Builds, compiles and runs the graph with VKDML_GRAPH_OPT=`knob`; checks every output. */
static void run_graph(struct dml_test_context *context, struct fuse_graph *graph, const char *knob,
        struct vkdml_graph_report *report)
{
    const struct dml_test_float_tensor *inputs[MAX_TENSORS];
    struct dml_test_binding in[MAX_TENSORS] = {0}, owned[MAX_TENSORS] = {0}, out[MAX_TENSORS] = {0};
    struct dml_graph_builder *builder = calloc(1, sizeof(*builder));
    IDMLCompiledOperator *compiled;
    UINT i, size = dml_test_element_size(graph->type);
    void *bytes;

    assert_non_null(builder);
    dml_test_set_knob(context, "VKDML_GRAPH_OPT", knob);
    graph->build(context, graph, builder);
    compiled = dml_graph_compile(context, builder, DML_EXECUTION_FLAG_NONE);
    free(builder);
    for (i = 0; i < graph->input_count; ++i)
        inputs[i] = &graph->inputs[i];
    dml_test_create_input_buffers(context, inputs, graph->input_count, in, owned);
    for (i = 0; i < graph->output_count; ++i)
        out[i].buffer = dml_test_create_buffer(context, graph->output_elements[i] * size, NULL);
    dml_test_run(context, compiled, in, graph->input_count, out, graph->output_count);
    for (i = 0; i < graph->output_count; ++i)
    {
        assert_non_null(bytes = malloc(graph->output_elements[i] * size));
        dml_test_read_buffer(context, out[i].buffer, 0, bytes, graph->output_elements[i] * size);
        check_output(graph, i, bytes, knob);
        free(bytes);
    }
    assert_int_equal(vkdml_get_graph_report(compiled, report, sizeof(*report)), S_OK);
    assert_int_equal(IDMLCompiledOperator_Release(compiled), 0);
    dml_test_release_bindings(in, graph->input_count);
    dml_test_release_bindings(out, graph->output_count);
}

/* Runs with only `pass` on (and memory planning and barriers) and with it off: both match the
 * reference; the pass's work shows in `on` and nowhere in `off`. */
static void run_pass_on_off(struct dml_test_context *context, struct fuse_graph *graph, const char *pass,
        struct vkdml_graph_report *on, struct vkdml_graph_report *off)
{
    char knob[64];

    snprintf(knob, sizeof(knob), "%s,memory,barriers", pass);
    run_graph(context, graph, knob, on);
    run_graph(context, graph, "memory,barriers", off);
    assert_int_equal(off->fused_activations + off->aliased_nodes + off->joined_in_place, 0);
    assert_int_equal(on->dispatches_unfused, off->dispatch_count);
}

static void tensor4(struct dml_test_tensor *tensor, DML_TENSOR_DATA_TYPE type, UINT n, UINT c, UINT h, UINT w)
{
    dml_test_tensor_init(tensor, type, 4, (const UINT[]){n, c, h, w}, NULL);
}

/* ---- References ---- */

static double gelu(double x)
{
    return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
}

static double relu(double x)
{
    return x > 0.0 ? x : 0.0;
}

static double sigmoid(double x)
{
    return 1.0 / (1.0 + exp(-x));
}

/* What the graph stores between nodes: FLOAT16 rounds every intermediate. */
static double stored(const struct fuse_graph *graph, double x)
{
    return graph->type == DML_TENSOR_DATA_TYPE_FLOAT16 ? ref_round_to_half((float)x) : x;
}

/* ---- activation ---- */

#define GEMM_M 4
#define GEMM_K 8
#define GEMM_N 6

static const DML_ELEMENT_WISE_CLIP_OPERATOR_DESC *clip_desc(const DML_TENSOR_DESC *input, const DML_TENSOR_DESC *output)
{
    static DML_ELEMENT_WISE_CLIP_OPERATOR_DESC desc;

    desc = (DML_ELEMENT_WISE_CLIP_OPERATOR_DESC){input, output, NULL, -0.25f, 0.5f};
    return &desc;
}

/* GEMM → GELU (the transformer's MLP), and GEMM → CLIP (CLIP fuses into GEMM and CONVOLUTION). */
static void build_gemm(struct dml_test_context *context, struct fuse_graph *graph, struct dml_graph_builder *b)
{
    struct dml_test_tensor a, bt, out;
    DML_ACTIVATION_GELU_OPERATOR_DESC gelu_desc = {&out.desc, &out.desc};
    DML_GEMM_OPERATOR_DESC gemm = {&a.desc, &bt.desc, NULL, &out.desc, DML_MATRIX_TRANSFORM_NONE,
            DML_MATRIX_TRANSFORM_NONE, 1.0f, 0.0f, NULL};
    UINT g, act, i;

    tensor4(&a, graph->type, 1, 1, GEMM_M, GEMM_K);
    tensor4(&bt, graph->type, 1, 1, GEMM_K, GEMM_N);
    tensor4(&out, graph->type, 1, 1, GEMM_M, GEMM_N);
    for (i = 0; i < graph->output_count; ++i)
    {
        g = dml_graph_add_op(context, b, DML_OPERATOR_GEMM, &gemm);
        act = i ? dml_graph_add_op(context, b, DML_OPERATOR_ELEMENT_WISE_CLIP, clip_desc(&out.desc, &out.desc))
                : dml_graph_add_op(context, b, DML_OPERATOR_ACTIVATION_GELU, &gelu_desc);
        dml_graph_connect_input(b, 0, g, 0);
        dml_graph_connect_input(b, 1, g, 1);
        dml_graph_connect(b, g, 0, act, 0);
        dml_graph_connect_output(b, act, 0, i);
    }
}

static void test_activation_gemm(void **state, DML_TENSOR_DATA_TYPE type, UINT activations)
{
    struct dml_test_context *context = *state;
    struct vkdml_graph_report on, off;
    struct fuse_graph graph;
    UINT m, n, k, i, fused;
    const float *a, *b;

    if (dml_test_skip_float16(context, type, "GEMM + activation"))
        return;
    graph_init(&graph, type, build_gemm);
    a = add_input(&graph, 0, (const UINT[]){1, 1, GEMM_M, GEMM_K});
    b = add_input(&graph, 1, (const UINT[]){1, 1, GEMM_K, GEMM_N});
    for (i = 0; i < activations; ++i)
        add_output(&graph, i, GEMM_M * GEMM_N);
    for (m = 0; m < GEMM_M; ++m)
    {
        for (n = 0; n < GEMM_N; ++n)
        {
            double sum = 0.0;

            for (k = 0; k < GEMM_K; ++k)
                sum += (double)a[m * GEMM_K + k] * b[k * GEMM_N + n];
            graph.expected[0][m * GEMM_N + n] = gelu(sum);
            if (activations > 1)
                graph.expected[1][m * GEMM_N + n] = fmin(fmax(sum, -0.25), 0.5);
        }
    }
    run_pass_on_off(context, &graph, "activation", &on, &off);
    /* GELU stays apart from a FLOAT16 GEMM, where its own dispatch is faster (docs/graph.md, "activation"). */
    fused = type == DML_TENSOR_DATA_TYPE_FLOAT16 ? activations - 1 : activations;
    assert_int_equal(on.fused_activations, fused);
    assert_int_equal(on.dispatch_count + fused, off.dispatch_count);
    graph_cleanup(&graph);
}

static void test_activation_gemm_float32(void **state)
{
    test_activation_gemm(state, DML_TENSOR_DATA_TYPE_FLOAT32, 2);
}

static void test_activation_gemm_float16(void **state)
{
    test_activation_gemm(state, DML_TENSOR_DATA_TYPE_FLOAT16, 2);
}

/* CONVOLUTION 3x3 (padding 1) → RELU: ResNet's pair. */
static void conv_desc(DML_CONVOLUTION_OPERATOR_DESC *desc, const DML_TENSOR_DESC *input, const DML_TENSOR_DESC *filter,
        const DML_TENSOR_DESC *output)
{
    static const UINT ones[2] = {1, 1}, zeros[2] = {0, 0};

    *desc = (DML_CONVOLUTION_OPERATOR_DESC){input, filter, NULL, output, DML_CONVOLUTION_MODE_CROSS_CORRELATION,
            DML_CONVOLUTION_DIRECTION_FORWARD, 2, ones, ones, ones, ones, zeros, 1, NULL};
}

static void build_conv_relu(struct dml_test_context *context, struct fuse_graph *graph, struct dml_graph_builder *b)
{
    struct dml_test_tensor input, filter, out;
    DML_ACTIVATION_RELU_OPERATOR_DESC relu_desc = {&out.desc, &out.desc};
    DML_CONVOLUTION_OPERATOR_DESC conv;
    UINT c, r;

    tensor4(&input, graph->type, 1, 2, 4, 4);
    tensor4(&filter, graph->type, 3, 2, 3, 3);
    tensor4(&out, graph->type, 1, 3, 4, 4);
    conv_desc(&conv, &input.desc, &filter.desc, &out.desc);
    c = dml_graph_add_op(context, b, DML_OPERATOR_CONVOLUTION, &conv);
    r = dml_graph_add_op(context, b, DML_OPERATOR_ACTIVATION_RELU, &relu_desc);
    dml_graph_connect_input(b, 0, c, 0);
    dml_graph_connect_input(b, 1, c, 1);
    dml_graph_connect(b, c, 0, r, 0);
    dml_graph_connect_output(b, r, 0, 0);
}

/* out[k][y][x] = sum over c, i, j of input[c][y + i - 1][x + j - 1] * filter[k][c][i][j]. */
static void conv_reference(const float *input, const float *filter, UINT channels, UINT filters, double *out)
{
    UINT k, c, y, x, i, j;

    for (k = 0; k < filters; ++k)
    {
        for (y = 0; y < 4; ++y)
        {
            for (x = 0; x < 4; ++x)
            {
                double sum = 0.0;

                for (c = 0; c < channels; ++c)
                {
                    for (i = 0; i < 3; ++i)
                    {
                        for (j = 0; j < 3; ++j)
                        {
                            int iy = (int)(y + i) - 1, ix = (int)(x + j) - 1;

                            if (iy >= 0 && iy < 4 && ix >= 0 && ix < 4)
                                sum += (double)input[(c * 4 + iy) * 4 + ix]
                                        * filter[((k * channels + c) * 3 + i) * 3 + j];
                        }
                    }
                }
                out[(k * 4 + y) * 4 + x] = sum;
            }
        }
    }
}

static void test_activation_conv(void **state, DML_TENSOR_DATA_TYPE type)
{
    struct dml_test_context *context = *state;
    struct vkdml_graph_report on, off;
    struct fuse_graph graph;
    const float *input, *filter;
    double *expected;
    UINT i;

    if (dml_test_skip_float16(context, type, "CONVOLUTION + RELU"))
        return;
    graph_init(&graph, type, build_conv_relu);
    input = add_input(&graph, 0, (const UINT[]){1, 2, 4, 4});
    filter = add_input(&graph, 1, (const UINT[]){3, 2, 3, 3});
    expected = add_output(&graph, 0, 3 * 16);
    conv_reference(input, filter, 2, 3, expected);
    for (i = 0; i < 3 * 16; ++i)
        expected[i] = relu(expected[i]);
    run_pass_on_off(context, &graph, "activation", &on, &off);
    assert_int_equal(on.fused_activations, 1);
    assert_int_equal(on.dispatch_count + 1, off.dispatch_count);
    graph_cleanup(&graph);
}

static void test_activation_conv_float32(void **state)
{
    test_activation_conv(state, DML_TENSOR_DATA_TYPE_FLOAT32);
}

static void test_activation_conv_float16(void **state)
{
    test_activation_conv(state, DML_TENSOR_DATA_TYPE_FLOAT16);
}

/* BATCH_NORMALIZATION (not folded: its input is no convolution) → LEAKY_RELU, and
 * MEAN_VARIANCE_NORMALIZATION1 over {H, W} (a layer normalization) → TANH. */
static void build_normalizations(struct dml_test_context *context, struct fuse_graph *graph,
        struct dml_graph_builder *b)
{
    static const UINT axes[2] = {2, 3};
    struct dml_test_tensor x, channel;
    DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC leaky_desc = {&x.desc, &x.desc, 0.125f};
    DML_ACTIVATION_TANH_OPERATOR_DESC tanh_desc = {&x.desc, &x.desc};
    DML_BATCH_NORMALIZATION_OPERATOR_DESC bn = {&x.desc, &channel.desc, &channel.desc, &channel.desc, &channel.desc,
            &x.desc, TRUE, 1e-3f, NULL};
    DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC mvn = {&x.desc, NULL, NULL, &x.desc, 2, axes, TRUE, 1e-3f, NULL};
    UINT node, act, i;

    tensor4(&x, graph->type, 1, 2, 2, 3);
    tensor4(&channel, graph->type, 1, 2, 1, 1);
    node = dml_graph_add_op(context, b, DML_OPERATOR_BATCH_NORMALIZATION, &bn);
    act = dml_graph_add_op(context, b, DML_OPERATOR_ACTIVATION_LEAKY_RELU, &leaky_desc);
    for (i = 0; i < 5; ++i)
        dml_graph_connect_input(b, i, node, i);
    dml_graph_connect(b, node, 0, act, 0);
    dml_graph_connect_output(b, act, 0, 0);
    node = dml_graph_add_op(context, b, DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1, &mvn);
    act = dml_graph_add_op(context, b, DML_OPERATOR_ACTIVATION_TANH, &tanh_desc);
    dml_graph_connect_input(b, 0, node, 0);
    dml_graph_connect(b, node, 0, act, 0);
    dml_graph_connect_output(b, act, 0, 1);
}

/* tanh((x - mean) / sqrt(variance + 1e-3)) over each channel's 6 elements. */
static void layer_norm_tanh_reference(const float *x, double *out)
{
    UINT c, i;

    for (c = 0; c < 2; ++c)
    {
        double mean = 0.0, variance = 0.0;

        for (i = 0; i < 6; ++i)
            mean += x[c * 6 + i] / 6.0;
        for (i = 0; i < 6; ++i)
            variance += (x[c * 6 + i] - mean) * (x[c * 6 + i] - mean) / 6.0;
        for (i = 0; i < 6; ++i)
            out[c * 6 + i] = tanh((x[c * 6 + i] - mean) / sqrt(variance + 1e-3));
    }
}

static void test_activation_normalizations(void **state, DML_TENSOR_DATA_TYPE type)
{
    struct dml_test_context *context = *state;
    struct vkdml_graph_report on, off;
    struct fuse_graph graph;
    float *params[4];
    const float *x;
    double *expected;
    UINT i, c;

    if (dml_test_skip_float16(context, type, "normalizations + activations"))
        return;
    graph_init(&graph, type, build_normalizations);
    x = add_input(&graph, 0, (const UINT[]){1, 2, 2, 3});
    for (i = 0; i < 4; ++i)
        params[i] = (float *)add_input(&graph, 1 + i, (const UINT[]){1, 2, 1, 1});
    /* A variance of 0.5 or more. */
    for (c = 0; c < 2; ++c)
        params[1][c] = fabsf(params[1][c]) + 0.5f;
    expected = add_output(&graph, 0, 12);
    for (i = 0; i < 12; ++i)
    {
        c = i / 6;
        expected[i] = params[2][c] * (x[i] - params[0][c]) / sqrt(params[1][c] + 1e-3f) + params[3][c];
        expected[i] = expected[i] > 0.0 ? expected[i] : 0.125 * expected[i];
    }
    layer_norm_tanh_reference(x, add_output(&graph, 1, 12));
    run_pass_on_off(context, &graph, "activation", &on, &off);
    assert_int_equal(on.fused_activations, 2);
    assert_int_equal(on.dispatch_count + 2, off.dispatch_count);
    graph_cleanup(&graph);
}

static void test_activation_normalizations_float32(void **state)
{
    test_activation_normalizations(state, DML_TENSOR_DATA_TYPE_FLOAT32);
}

static void test_activation_normalizations_float16(void **state)
{
    test_activation_normalizations(state, DML_TENSOR_DATA_TYPE_FLOAT16);
}

/* ADDs of inputs 0 and 1 ({1, 1, 3, 5}), each followed by an activation:
 *   out0 = relu(a + b)                 fused: ADD becomes ADD1
 *   out1 = clip(a + b)                 CLIP fuses only into CONVOLUTION and GEMM
 *   out2 = relu(a + b), out3 = a + b   the sum is a graph output too
 *   out4 = sigmoid(s), out5 = relu(s)  s = a + b has two readers
 *   out6 = relu(a + b) as {1, 1, 5, 3} fused: both packed, the RELU reads each sum where it is
 *   out7 = sigmoid(add1_relu(a, b))    the host has a FusedActivation already */
#define EW_ELEMENTS 15u

static UINT add_of_inputs(struct dml_test_context *context, struct dml_graph_builder *b, DML_OPERATOR_TYPE type,
        const void *desc)
{
    UINT node = dml_graph_add_op(context, b, type, desc);

    dml_graph_connect_input(b, 0, node, 0);
    dml_graph_connect_input(b, 1, node, 1);
    return node;
}

static void connect_activation(struct dml_test_context *context, struct dml_graph_builder *b, UINT from,
        DML_OPERATOR_TYPE type, const void *desc, UINT output)
{
    UINT node = dml_graph_add_op(context, b, type, desc);

    dml_graph_connect(b, from, 0, node, 0);
    dml_graph_connect_output(b, node, 0, output);
}

static void build_add_cases(struct dml_test_context *context, struct fuse_graph *graph, struct dml_graph_builder *b)
{
    struct dml_test_tensor t, reshaped;
    DML_ACTIVATION_RELU_OPERATOR_DESC relu_desc = {&t.desc, &t.desc}, reshaped_relu = {&reshaped.desc, &reshaped.desc};
    DML_ACTIVATION_SIGMOID_OPERATOR_DESC sigmoid_desc = {&t.desc, &t.desc};
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC add = {&t.desc, &t.desc, &t.desc};
    DML_ELEMENT_WISE_ADD1_OPERATOR_DESC add1 = {&t.desc, &t.desc, &t.desc, &dml_test_relu};
    UINT node;

    tensor4(&t, graph->type, 1, 1, 3, 5);
    tensor4(&reshaped, graph->type, 1, 1, 5, 3);
    node = add_of_inputs(context, b, DML_OPERATOR_ELEMENT_WISE_ADD, &add);
    connect_activation(context, b, node, DML_OPERATOR_ACTIVATION_RELU, &relu_desc, 0);
    node = add_of_inputs(context, b, DML_OPERATOR_ELEMENT_WISE_ADD, &add);
    connect_activation(context, b, node, DML_OPERATOR_ELEMENT_WISE_CLIP, clip_desc(&t.desc, &t.desc), 1);
    node = add_of_inputs(context, b, DML_OPERATOR_ELEMENT_WISE_ADD, &add);
    connect_activation(context, b, node, DML_OPERATOR_ACTIVATION_RELU, &relu_desc, 2);
    dml_graph_connect_output(b, node, 0, 3);
    node = add_of_inputs(context, b, DML_OPERATOR_ELEMENT_WISE_ADD, &add);
    connect_activation(context, b, node, DML_OPERATOR_ACTIVATION_SIGMOID, &sigmoid_desc, 4);
    connect_activation(context, b, node, DML_OPERATOR_ACTIVATION_RELU, &relu_desc, 5);
    node = add_of_inputs(context, b, DML_OPERATOR_ELEMENT_WISE_ADD, &add);
    connect_activation(context, b, node, DML_OPERATOR_ACTIVATION_RELU, &reshaped_relu, 6);
    node = add_of_inputs(context, b, DML_OPERATOR_ELEMENT_WISE_ADD1, &add1);
    connect_activation(context, b, node, DML_OPERATOR_ACTIVATION_SIGMOID, &sigmoid_desc, 7);
}

static void test_activation_add(void **state, DML_TENSOR_DATA_TYPE type)
{
    struct dml_test_context *context = *state;
    struct vkdml_graph_report on, off;
    struct fuse_graph graph;
    const float *a, *b;
    UINT i, o;

    if (dml_test_skip_float16(context, type, "ADD + activation"))
        return;
    graph_init(&graph, type, build_add_cases);
    a = add_input(&graph, 0, (const UINT[]){1, 1, 3, 5});
    b = add_input(&graph, 1, (const UINT[]){1, 1, 3, 5});
    for (o = 0; o < 8; ++o)
        add_output(&graph, o, EW_ELEMENTS);
    for (i = 0; i < EW_ELEMENTS; ++i)
    {
        double sum = (double)a[i] + b[i], rounded = stored(&graph, sum);

        graph.expected[0][i] = graph.expected[2][i] = graph.expected[5][i] = graph.expected[6][i] = relu(sum);
        graph.expected[1][i] = fmin(fmax(sum, -0.25), 0.5);
        graph.expected[3][i] = sum;
        graph.expected[4][i] = sigmoid(rounded);
        graph.expected[7][i] = sigmoid(stored(&graph, relu(sum)));
    }
    run_pass_on_off(context, &graph, "activation", &on, &off);
    assert_int_equal(on.fused_activations, 2);
    assert_int_equal(on.dispatch_count + 2, off.dispatch_count);
    graph_cleanup(&graph);
}

static void test_activation_add_float32(void **state)
{
    test_activation_add(state, DML_TENSOR_DATA_TYPE_FLOAT32);
}

static void test_activation_add_float16(void **state)
{
    test_activation_add(state, DML_TENSOR_DATA_TYPE_FLOAT16);
}

/* ---- alias ---- */

/* Inputs a, b ({1, 1, 3, 5}) and a constant k; s = a + b:
 *   out0 = identity(s) * b, as {1, 1, 5, 3}    the IDENTITY's output becomes an alias of s
 *   out1 = identity(s as {1, 1, 1, 15})        s moves into graph output 1's binding
 *   out2 = identity(a)                         a graph input to a graph output: a copy stays
 *   out3 = identity(s) * 2 + 1                 ScaleBias is arithmetic
 *   out4 = identity(a read transposed)         a strided input is no reshape
 *   out5 = activation_identity(a) + b          a graph input is aliased for reading
 *   out6 = identity(identity(s))               the first aliases s; the second's input is an alias
 *   out7 = identity(k) + a                     a constant (persistent) is aliased for reading */
static const UINT alias_sizes[4] = {1, 1, 3, 5};

static UINT add_identity(struct dml_test_context *context, struct dml_graph_builder *b,
        const struct dml_test_tensor *input, const struct dml_test_tensor *output, const DML_SCALE_BIAS *scale_bias)
{
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc = {&input->desc, &output->desc, scale_bias};

    return dml_graph_add_op(context, b, DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc);
}

static UINT add_binary(struct dml_test_context *context, struct dml_graph_builder *b, DML_OPERATOR_TYPE type,
        const struct dml_test_tensor *t, UINT x, UINT y)
{
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC desc = {&t->desc, &t->desc, &t->desc};
    UINT node = dml_graph_add_op(context, b, type, &desc);

    dml_graph_connect_input(b, x, node, 0);
    dml_graph_connect_input(b, y, node, 1);
    return node;
}

static void alias_constant(const struct fuse_graph *graph, void *data)
{
    UINT i;

    for (i = 0; i < EW_ELEMENTS; ++i)
    {
        float value = 0.125f * (float)i - 1.0f;

        if (graph->type == DML_TENSOR_DATA_TYPE_FLOAT16)
            ((uint16_t *)data)[i] = ref_float_to_half(value);
        else
            ((float *)data)[i] = value;
    }
}

static void build_alias_cases(struct dml_test_context *context, struct fuse_graph *graph, struct dml_graph_builder *b)
{
    static const DML_SCALE_BIAS scale_bias = {2.0f, 1.0f};
    struct dml_test_tensor t, wide, tall, transposed;
    DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC tall_mul = {&tall.desc, &tall.desc, &tall.desc};
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC add = {&t.desc, &t.desc, &t.desc};
    DML_ACTIVATION_IDENTITY_OPERATOR_DESC activation_identity = {&t.desc, &t.desc};
    static uint32_t constant[EW_ELEMENTS];
    UINT s, id, id2, node, k;

    tensor4(&t, graph->type, 1, 1, 3, 5);
    tensor4(&wide, graph->type, 1, 1, 1, 15);
    tensor4(&tall, graph->type, 1, 1, 5, 3);
    dml_test_tensor_init(&transposed, graph->type, 4, alias_sizes, (const UINT[]){15, 15, 1, 3});
    s = add_binary(context, b, DML_OPERATOR_ELEMENT_WISE_ADD, &t, 0, 1);
    id = add_identity(context, b, &tall, &tall, NULL);
    node = dml_graph_add_op(context, b, DML_OPERATOR_ELEMENT_WISE_MULTIPLY, &tall_mul);
    dml_graph_connect(b, s, 0, id, 0);
    dml_graph_connect(b, id, 0, node, 0);
    dml_graph_connect_input(b, 1, node, 1);
    dml_graph_connect_output(b, node, 0, 0);

    s = add_binary(context, b, DML_OPERATOR_ELEMENT_WISE_ADD, &t, 0, 1);
    id = add_identity(context, b, &wide, &wide, NULL);
    dml_graph_connect(b, s, 0, id, 0);
    dml_graph_connect_output(b, id, 0, 1);

    id = add_identity(context, b, &t, &t, NULL);
    dml_graph_connect_input(b, 0, id, 0);
    dml_graph_connect_output(b, id, 0, 2);

    s = add_binary(context, b, DML_OPERATOR_ELEMENT_WISE_ADD, &t, 0, 1);
    id = add_identity(context, b, &t, &t, &scale_bias);
    dml_graph_connect(b, s, 0, id, 0);
    dml_graph_connect_output(b, id, 0, 3);

    id = add_identity(context, b, &transposed, &t, NULL);
    dml_graph_connect_input(b, 0, id, 0);
    dml_graph_connect_output(b, id, 0, 4);

    id = dml_graph_add_op(context, b, DML_OPERATOR_ACTIVATION_IDENTITY, &activation_identity);
    node = dml_graph_add_op(context, b, DML_OPERATOR_ELEMENT_WISE_ADD, &add);
    dml_graph_connect_input(b, 0, id, 0);
    dml_graph_connect(b, id, 0, node, 0);
    dml_graph_connect_input(b, 1, node, 1);
    dml_graph_connect_output(b, node, 0, 5);

    s = add_binary(context, b, DML_OPERATOR_ELEMENT_WISE_ADD, &t, 0, 1);
    id = add_identity(context, b, &t, &t, NULL);
    id2 = add_identity(context, b, &t, &t, NULL);
    dml_graph_connect(b, s, 0, id, 0);
    dml_graph_connect(b, id, 0, id2, 0);
    dml_graph_connect_output(b, id2, 0, 6);

    alias_constant(graph, constant);
    k = dml_graph_add_constant(b, constant, t.buffer.TotalTensorSizeInBytes);
    id = add_identity(context, b, &t, &t, NULL);
    node = dml_graph_add_op(context, b, DML_OPERATOR_ELEMENT_WISE_ADD, &add);
    dml_graph_connect(b, k, 0, id, 0);
    dml_graph_connect(b, id, 0, node, 0);
    dml_graph_connect_input(b, 0, node, 1);
    dml_graph_connect_output(b, node, 0, 7);
}

static void test_alias(void **state, DML_TENSOR_DATA_TYPE type)
{
    struct dml_test_context *context = *state;
    struct vkdml_graph_report on, off;
    struct fuse_graph graph;
    const float *a, *b;
    UINT i, o;

    if (dml_test_skip_float16(context, type, "IDENTITY aliases"))
        return;
    graph_init(&graph, type, build_alias_cases);
    a = add_input(&graph, 0, alias_sizes);
    b = add_input(&graph, 1, alias_sizes);
    for (o = 0; o < 8; ++o)
        add_output(&graph, o, EW_ELEMENTS);
    for (i = 0; i < EW_ELEMENTS; ++i)
    {
        double sum = stored(&graph, (double)a[i] + b[i]);

        graph.expected[0][i] = sum * b[i];
        graph.expected[1][i] = graph.expected[6][i] = sum;
        graph.expected[2][i] = a[i];
        graph.expected[3][i] = sum * 2.0 + 1.0;
        graph.expected[4][i] = a[(i % 5) * 3 + i / 5];
        graph.expected[5][i] = (double)a[i] + b[i];
        graph.expected[7][i] = stored(&graph, 0.125 * i - 1.0) + a[i];
    }
    run_pass_on_off(context, &graph, "alias", &on, &off);
    assert_int_equal(on.aliased_nodes, 5);
    assert_int_equal(on.dispatch_count + 5, off.dispatch_count);
    graph_cleanup(&graph);
}

static void test_alias_float32(void **state)
{
    test_alias(state, DML_TENSOR_DATA_TYPE_FLOAT32);
}

static void test_alias_float16(void **state)
{
    test_alias(state, DML_TENSOR_DATA_TYPE_FLOAT16);
}

/* ---- join ---- */

/* Graph inputs a, c ({1, 1, 2, 8}), b ({1, 1, 3, 8}), d ({1, 1, 1, 3}):
 *   out0 = join(a + a, b + b) on axis 2, out1 = (a + a) * c   in place; a + a has a second reader
 *   out2 = join(a + c, c) on axis 2                             a graph input cannot move
 *   out3 = join(a + a, c + c) on axis 3                         the runs interleave
 *   out4 = join(d + d, d * d) on axis 3                         the second run is not 16-byte aligned
 *   out5 = 2 * join(a * c, a + c) on axis 2                     in place; the join is an intermediate */
static UINT add_join(struct dml_test_context *context, struct dml_graph_builder *b, const struct dml_test_tensor *x,
        const struct dml_test_tensor *y, const struct dml_test_tensor *out, UINT axis)
{
    DML_TENSOR_DESC inputs[2] = {x->desc, y->desc};
    DML_JOIN_OPERATOR_DESC desc = {2, inputs, &out->desc, axis};

    return dml_graph_add_op(context, b, DML_OPERATOR_JOIN, &desc);
}

static void build_join_cases(struct dml_test_context *context, struct fuse_graph *graph, struct dml_graph_builder *b)
{
    struct dml_test_tensor small, large, joined, wide, tiny, tiny_joined, pair;
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC twice = {&pair.desc, &pair.desc, &pair.desc};
    DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC product = {&small.desc, &small.desc, &small.desc};
    UINT x, y, join, node;

    tensor4(&small, graph->type, 1, 1, 2, 8);
    tensor4(&large, graph->type, 1, 1, 3, 8);
    tensor4(&joined, graph->type, 1, 1, 5, 8);
    tensor4(&pair, graph->type, 1, 1, 4, 8);
    tensor4(&wide, graph->type, 1, 1, 2, 16);
    tensor4(&tiny, graph->type, 1, 1, 1, 3);
    tensor4(&tiny_joined, graph->type, 1, 1, 1, 6);

    x = add_binary(context, b, DML_OPERATOR_ELEMENT_WISE_ADD, &small, 0, 0);
    y = add_binary(context, b, DML_OPERATOR_ELEMENT_WISE_ADD, &large, 1, 1);
    join = add_join(context, b, &small, &large, &joined, 2);
    dml_graph_connect(b, x, 0, join, 0);
    dml_graph_connect(b, y, 0, join, 1);
    dml_graph_connect_output(b, join, 0, 0);
    node = dml_graph_add_op(context, b, DML_OPERATOR_ELEMENT_WISE_MULTIPLY, &product);
    dml_graph_connect(b, x, 0, node, 0);
    dml_graph_connect_input(b, 2, node, 1);
    dml_graph_connect_output(b, node, 0, 1);

    x = add_binary(context, b, DML_OPERATOR_ELEMENT_WISE_ADD, &small, 0, 2);
    join = add_join(context, b, &small, &small, &pair, 2);
    dml_graph_connect(b, x, 0, join, 0);
    dml_graph_connect_input(b, 2, join, 1);
    dml_graph_connect_output(b, join, 0, 2);

    x = add_binary(context, b, DML_OPERATOR_ELEMENT_WISE_ADD, &small, 0, 0);
    y = add_binary(context, b, DML_OPERATOR_ELEMENT_WISE_ADD, &small, 2, 2);
    join = add_join(context, b, &small, &small, &wide, 3);
    dml_graph_connect(b, x, 0, join, 0);
    dml_graph_connect(b, y, 0, join, 1);
    dml_graph_connect_output(b, join, 0, 3);

    x = add_binary(context, b, DML_OPERATOR_ELEMENT_WISE_ADD, &tiny, 3, 3);
    y = add_binary(context, b, DML_OPERATOR_ELEMENT_WISE_MULTIPLY, &tiny, 3, 3);
    join = add_join(context, b, &tiny, &tiny, &tiny_joined, 3);
    dml_graph_connect(b, x, 0, join, 0);
    dml_graph_connect(b, y, 0, join, 1);
    dml_graph_connect_output(b, join, 0, 4);

    x = add_binary(context, b, DML_OPERATOR_ELEMENT_WISE_MULTIPLY, &small, 0, 2);
    y = add_binary(context, b, DML_OPERATOR_ELEMENT_WISE_ADD, &small, 0, 2);
    join = add_join(context, b, &small, &small, &pair, 2);
    node = dml_graph_add_op(context, b, DML_OPERATOR_ELEMENT_WISE_ADD, &twice);
    dml_graph_connect(b, x, 0, join, 0);
    dml_graph_connect(b, y, 0, join, 1);
    dml_graph_connect(b, join, 0, node, 0);
    dml_graph_connect(b, join, 0, node, 1);
    dml_graph_connect_output(b, node, 0, 5);
}

static void join_reference(struct fuse_graph *graph, const float *a, const float *b, const float *c, const float *d)
{
    UINT i, row, column;

    for (i = 0; i < 16; ++i)
    {
        graph->expected[0][i] = 2.0 * a[i];
        graph->expected[1][i] = stored(graph, 2.0 * a[i]) * c[i];
        graph->expected[2][i] = (double)a[i] + c[i];
        graph->expected[2][16 + i] = c[i];
        graph->expected[5][i] = 2.0 * stored(graph, (double)a[i] * c[i]);
        graph->expected[5][16 + i] = 2.0 * stored(graph, (double)a[i] + c[i]);
    }
    for (i = 0; i < 24; ++i)
        graph->expected[0][16 + i] = 2.0 * b[i];
    for (row = 0; row < 2; ++row)
    {
        for (column = 0; column < 8; ++column)
        {
            graph->expected[3][row * 16 + column] = 2.0 * a[row * 8 + column];
            graph->expected[3][row * 16 + 8 + column] = 2.0 * c[row * 8 + column];
        }
    }
    for (i = 0; i < 3; ++i)
    {
        graph->expected[4][i] = 2.0 * d[i];
        graph->expected[4][3 + i] = (double)d[i] * d[i];
    }
}

static void test_join(void **state, DML_TENSOR_DATA_TYPE type)
{
    struct dml_test_context *context = *state;
    struct vkdml_graph_report on, off;
    const float *a, *b, *c, *d;
    struct fuse_graph graph;

    if (dml_test_skip_float16(context, type, "JOIN in place"))
        return;
    graph_init(&graph, type, build_join_cases);
    a = add_input(&graph, 0, (const UINT[]){1, 1, 2, 8});
    b = add_input(&graph, 1, (const UINT[]){1, 1, 3, 8});
    c = add_input(&graph, 2, (const UINT[]){1, 1, 2, 8});
    d = add_input(&graph, 3, (const UINT[]){1, 1, 1, 3});
    add_output(&graph, 0, 40);
    add_output(&graph, 1, 16);
    add_output(&graph, 2, 32);
    add_output(&graph, 3, 32);
    add_output(&graph, 4, 6);
    add_output(&graph, 5, 32);
    join_reference(&graph, a, b, c, d);
    run_pass_on_off(context, &graph, "join", &on, &off);
    assert_int_equal(on.joined_in_place, 2);
    assert_true(on.dispatch_count + 2 <= off.dispatch_count);
    graph_cleanup(&graph);
}

static void test_join_float32(void **state)
{
    test_join(state, DML_TENSOR_DATA_TYPE_FLOAT32);
}

static void test_join_float16(void **state)
{
    test_join(state, DML_TENSOR_DATA_TYPE_FLOAT16);
}

/* ---- The three together ---- */

/* Inception-like: out = identity(join(relu(conv(x, f0)), relu(conv(x, f1))) on channels). The
 * RELUs fuse into the convolutions, which then write their channels of the JOIN straight into
 * the graph output's binding (the IDENTITY's input moved there): two dispatches. */
static void build_block(struct dml_test_context *context, struct fuse_graph *graph, struct dml_graph_builder *b)
{
    struct dml_test_tensor input, filter, half, out;
    DML_ACTIVATION_RELU_OPERATOR_DESC relu_desc = {&half.desc, &half.desc};
    DML_CONVOLUTION_OPERATOR_DESC conv;
    UINT join, id, i, c, r;

    tensor4(&input, graph->type, 1, 2, 4, 4);
    tensor4(&filter, graph->type, 2, 2, 3, 3);
    tensor4(&half, graph->type, 1, 2, 4, 4);
    tensor4(&out, graph->type, 1, 4, 4, 4);
    conv_desc(&conv, &input.desc, &filter.desc, &half.desc);
    join = add_join(context, b, &half, &half, &out, 1);
    for (i = 0; i < 2; ++i)
    {
        c = dml_graph_add_op(context, b, DML_OPERATOR_CONVOLUTION, &conv);
        r = dml_graph_add_op(context, b, DML_OPERATOR_ACTIVATION_RELU, &relu_desc);
        dml_graph_connect_input(b, 0, c, 0);
        dml_graph_connect_input(b, 1 + i, c, 1);
        dml_graph_connect(b, c, 0, r, 0);
        dml_graph_connect(b, r, 0, join, i);
    }
    id = add_identity(context, b, &out, &out, NULL);
    dml_graph_connect(b, join, 0, id, 0);
    dml_graph_connect_output(b, id, 0, 0);
}

static void test_block(void **state, DML_TENSOR_DATA_TYPE type)
{
    struct dml_test_context *context = *state;
    struct vkdml_graph_report all, none;
    const float *input, *filters[2];
    struct fuse_graph graph;
    double *expected;
    UINT i;

    if (dml_test_skip_float16(context, type, "CONVOLUTION + RELU + JOIN + IDENTITY"))
        return;
    graph_init(&graph, type, build_block);
    input = add_input(&graph, 0, (const UINT[]){1, 2, 4, 4});
    filters[0] = add_input(&graph, 1, (const UINT[]){2, 2, 3, 3});
    filters[1] = add_input(&graph, 2, (const UINT[]){2, 2, 3, 3});
    expected = add_output(&graph, 0, 4 * 16);
    conv_reference(input, filters[0], 2, 2, expected);
    conv_reference(input, filters[1], 2, 2, expected + 2 * 16);
    for (i = 0; i < 4 * 16; ++i)
        expected[i] = relu(expected[i]);
    run_graph(context, &graph, "all", &all);
    run_graph(context, &graph, "none", &none);
    assert_int_equal(all.fused_activations, 2);
    assert_int_equal(all.joined_in_place, 1);
    assert_int_equal(all.aliased_nodes, 1);
    assert_int_equal(all.dispatches_unfused, none.dispatch_count);
    assert_true(all.dispatch_count + 4 <= none.dispatch_count);
    /* Nothing is left in the temporary resource. */
    assert_int_equal(all.temporary_lower_bound, 0);
    graph_cleanup(&graph);
}

static void test_block_float32(void **state)
{
    test_block(state, DML_TENSOR_DATA_TYPE_FLOAT32);
}

static void test_block_float16(void **state)
{
    test_block(state, DML_TENSOR_DATA_TYPE_FLOAT16);
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_activation_gemm_float32, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_activation_gemm_float16, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_activation_conv_float32, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_activation_conv_float16, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_activation_normalizations_float32, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_activation_normalizations_float16, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_activation_add_float32, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_activation_add_float16, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_alias_float32, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_alias_float16, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_join_float32, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_join_float16, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_block_float32, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_block_float16, dml_test_setup, dml_test_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
