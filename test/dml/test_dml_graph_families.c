/*
 * Graphs of every operator family vkdml implements, each graph output compared with the same
 * operators run one by one through CompileOperator (graph_test_utils.h): element-wise and
 * activations (FLOAT32 and FLOAT16), GEMM, convolution and pooling, normalization (MVN, batch
 * norm, LRN, LP), softmax and reduce, data movement (slice, strided views, gather, padding,
 * tile, cast), resample, scans and arg-reductions, operators of several outputs (TOP_K1,
 * MAX_POOLING2 into MAX_UNPOOLING) or of none in (FILL_VALUE_SEQUENCE); then a ResNet
 * bottleneck block and a transformer encoder block, with every optimisation on and with none
 * (README, "Environment variables": VKDML_GRAPH_OPT).
 */
#include "dml/graph_test_utils.h"

#include <math.h>

/* Builds a graph into `graph` for `context`'s device. */
typedef void (*build_graph_fn)(struct dml_test_context *context, struct graph_test *graph);

/* The unfused run once, then the compiled graph under each VKDML_GRAPH_OPT setting (NULL: the
 * default), each on a DML device of its own, against it. */
static void check_settings(struct dml_test_context *context, build_graph_fn build, const char *const *settings,
        unsigned int count)
{
    struct graph_test_outputs outputs, reference;
    IDMLCompiledOperator *compiled;
    struct graph_test graph;
    unsigned int i;

    graph_test_init(&graph);
    build(context, &graph);
    graph_test_run_unfused(context, &graph, &reference);
    graph_test_release(&graph);
    for (i = 0; i < count; ++i)
    {
        print_message("VKDML_GRAPH_OPT=%s\n", settings[i] ? settings[i] : "(default)");
        dml_test_set_knob(context, "VKDML_GRAPH_OPT", settings[i]);
        graph_test_init(&graph);
        build(context, &graph);
        compiled = graph_test_compile(context, &graph, DML_EXECUTION_FLAG_NONE);
        graph_test_run_compiled(context, &graph, compiled, &outputs);
        graph_test_compare(&outputs, &reference, -1.0);
        graph_test_outputs_cleanup(&outputs);
        release_last(compiled);
        graph_test_release(&graph);
    }
    graph_test_outputs_cleanup(&reference);
}

/* Family graphs run with the default passes (test_dml_graph.c turns each on and off); the blocks
 * with none too. */
static const char *const default_and_none[] = {NULL, "none"};

/* ---- Element-wise and activations ---- */

/* x -> IDENTITY(2x - 0.5) -> CLIP[-1, 1.5] -> ADD1(., y) -> TANH -> MULTIPLY(., y) -> LEAKY_RELU
 * -> SIGMOID -> output 0; MAX(x, y) -> GELU -> output 1. */
static void build_elementwise(struct dml_test_context *context, struct graph_test *graph, DML_TENSOR_DATA_TYPE type)
{
    static const UINT sizes[4] = {1, 2, 3, 4};
    static const DML_SCALE_BIAS scale_bias = {2.0f, -0.5f};
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity;
    DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC leaky;
    DML_ELEMENT_WISE_CLIP_OPERATOR_DESC clip;
    struct dml_test_tensor t;
    UINT n[9];

    dml_test_tensor_init(&t, type, 4, sizes, NULL);
    identity = (DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC){&t.desc, &t.desc, &scale_bias};
    clip = (DML_ELEMENT_WISE_CLIP_OPERATOR_DESC){&t.desc, &t.desc, NULL, -1.0f, 1.5f};
    leaky = (DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC){&t.desc, &t.desc, 0.1f};
    n[0] = graph_test_add_operator(graph, context, DML_OPERATOR_ELEMENT_WISE_IDENTITY, &identity, "scale",
            GRAPH_TEST_TENSORS(&t.desc), GRAPH_TEST_TENSORS(&t.desc));
    n[1] = graph_test_add_operator(graph, context, DML_OPERATOR_ELEMENT_WISE_CLIP, &clip, "clip",
            GRAPH_TEST_TENSORS(&t.desc), GRAPH_TEST_TENSORS(&t.desc));
    n[2] = graph_test_add_binary(graph, context, DML_OPERATOR_ELEMENT_WISE_ADD1, "add", &t, &t, &t);
    n[3] = graph_test_add_unary(graph, context, DML_OPERATOR_ELEMENT_WISE_TANH, "tanh", &t, &t);
    n[4] = graph_test_add_binary(graph, context, DML_OPERATOR_ELEMENT_WISE_MULTIPLY, "mul", &t, &t, &t);
    n[5] = graph_test_add_operator(graph, context, DML_OPERATOR_ACTIVATION_LEAKY_RELU, &leaky, "leaky",
            GRAPH_TEST_TENSORS(&t.desc), GRAPH_TEST_TENSORS(&t.desc));
    n[6] = graph_test_add_unary(graph, context, DML_OPERATOR_ACTIVATION_SIGMOID, "sigmoid", &t, &t);
    n[7] = graph_test_add_binary(graph, context, DML_OPERATOR_ELEMENT_WISE_MAX, "max", &t, &t, &t);
    n[8] = graph_test_add_unary(graph, context, DML_OPERATOR_ACTIVATION_GELU, "gelu", &t, &t);
    graph_test_input(graph, 0, n[0], 0);
    graph_test_edge(graph, n[0], 0, n[1], 0);
    graph_test_edge(graph, n[1], 0, n[2], 0);
    graph_test_input(graph, 1, n[2], 1);
    graph_test_edge(graph, n[2], 0, n[3], 0);
    graph_test_edge(graph, n[3], 0, n[4], 0);
    graph_test_input(graph, 1, n[4], 1);
    graph_test_edge(graph, n[4], 0, n[5], 0);
    graph_test_edge(graph, n[5], 0, n[6], 0);
    graph_test_output(graph, n[6], 0, 0);
    graph_test_input(graph, 0, n[7], 0);
    graph_test_input(graph, 1, n[7], 1);
    graph_test_edge(graph, n[7], 0, n[8], 0);
    graph_test_output(graph, n[8], 0, 1);
}

static void build_elementwise_float32(struct dml_test_context *context, struct graph_test *graph)
{
    build_elementwise(context, graph, DML_TENSOR_DATA_TYPE_FLOAT32);
}

static void build_elementwise_float16(struct dml_test_context *context, struct graph_test *graph)
{
    build_elementwise(context, graph, DML_TENSOR_DATA_TYPE_FLOAT16);
}

static void test_elementwise(void **state)
{
    struct dml_test_context *context = *state;

    check_settings(context, build_elementwise_float32, default_and_none, 1);
    if (!dml_test_skip_float16(context, DML_TENSOR_DATA_TYPE_FLOAT16, "the FLOAT16 graph"))
        check_settings(context, build_elementwise_float16, default_and_none, 1);
}

/* ---- GEMM, convolution, pooling ---- */

/* x {1,2,6,6} -> conv 3x3 (filter and bias graph inputs) -> MAX_POOLING 2x2/2 -> AVERAGE_POOLING
 * 3x3 padded -> read as A {1,1,4,9} -> GEMM(A, B {9,5}, C {4,5}) -> RELU -> output 0. */
static void build_gemm_conv_pooling(struct dml_test_context *context, struct graph_test *graph)
{
    static const UINT x_sizes[4] = {1, 2, 6, 6}, filter_sizes[4] = {4, 2, 3, 3}, bias_sizes[4] = {1, 4, 1, 1};
    static const UINT conv_sizes[4] = {1, 4, 6, 6}, pooled_sizes[4] = {1, 4, 3, 3}, a_sizes[4] = {1, 1, 4, 9};
    static const UINT b_sizes[4] = {1, 1, 9, 5}, out_sizes[4] = {1, 1, 4, 5};
    static const UINT twos[2] = {2, 2}, ones[2] = {1, 1}, threes[2] = {3, 3}, zeros[2] = {0, 0};
    struct dml_test_tensor x, filter, bias, conv_out, pooled, a, b, out;
    DML_AVERAGE_POOLING_OPERATOR_DESC average;
    DML_MAX_POOLING_OPERATOR_DESC max;
    UINT conv, max_node, avg_node, gemm, relu;

    dml_test_tensor_init(&x, DML_TENSOR_DATA_TYPE_FLOAT32, 4, x_sizes, NULL);
    dml_test_tensor_init(&filter, DML_TENSOR_DATA_TYPE_FLOAT32, 4, filter_sizes, NULL);
    dml_test_tensor_init(&bias, DML_TENSOR_DATA_TYPE_FLOAT32, 4, bias_sizes, NULL);
    dml_test_tensor_init(&conv_out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, conv_sizes, NULL);
    dml_test_tensor_init(&pooled, DML_TENSOR_DATA_TYPE_FLOAT32, 4, pooled_sizes, NULL);
    dml_test_tensor_init(&a, DML_TENSOR_DATA_TYPE_FLOAT32, 4, a_sizes, NULL);
    dml_test_tensor_init(&b, DML_TENSOR_DATA_TYPE_FLOAT32, 4, b_sizes, NULL);
    dml_test_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, out_sizes, NULL);
    conv = graph_test_add_conv(graph, context, "conv", &x, &filter, &bias, &conv_out, 1, NULL);
    max = (DML_MAX_POOLING_OPERATOR_DESC){&conv_out.desc, &pooled.desc, 2, twos, twos, zeros, zeros};
    max_node = graph_test_add_operator(graph, context, DML_OPERATOR_MAX_POOLING, &max, "max_pool",
            GRAPH_TEST_TENSORS(&conv_out.desc), GRAPH_TEST_TENSORS(&pooled.desc));
    average = (DML_AVERAGE_POOLING_OPERATOR_DESC){&pooled.desc, &pooled.desc, 2, ones, threes, ones, ones, FALSE};
    avg_node = graph_test_add_operator(graph, context, DML_OPERATOR_AVERAGE_POOLING, &average, "avg_pool",
            GRAPH_TEST_TENSORS(&pooled.desc), GRAPH_TEST_TENSORS(&pooled.desc));
    gemm = graph_test_add_gemm(graph, context, "gemm", &a, &b, &out, &out, DML_MATRIX_TRANSFORM_NONE, 0.5f, NULL);
    relu = graph_test_add_unary(graph, context, DML_OPERATOR_ACTIVATION_RELU, "relu", &out, &out);
    graph_test_input(graph, 0, conv, 0);
    graph_test_input(graph, 1, conv, 1);
    graph_test_input(graph, 2, conv, 2);
    graph_test_edge(graph, conv, 0, max_node, 0);
    graph_test_edge(graph, max_node, 0, avg_node, 0);
    graph_test_edge(graph, avg_node, 0, gemm, 0);
    graph_test_input(graph, 3, gemm, 1);
    graph_test_input(graph, 4, gemm, 2);
    graph_test_edge(graph, gemm, 0, relu, 0);
    graph_test_output(graph, relu, 0, 0);
}

static void test_gemm_conv_pooling(void **state)
{
    check_settings(*state, build_gemm_conv_pooling, default_and_none, 1);
}

/* ---- Normalization, softmax, reduce ---- */

/* x {1,3,4,5} -> MVN1 over {2,3} with scale and bias -> SOFTMAX1 over {3} -> REDUCE SUM over {3}
 * -> output 0; LP_NORMALIZATION (L2, axis 3) of x -> output 1; BATCH_NORMALIZATION of x -> LRN
 * across 3 channels -> output 2. */
static float positive_variance[3] = {0.5f, 1.0f, 2.0f};

static void build_normalization(struct dml_test_context *context, struct graph_test *graph)
{
    static const UINT sizes[4] = {1, 3, 4, 5}, channel_sizes[4] = {1, 3, 1, 1}, sum_sizes[4] = {1, 3, 4, 1};
    static const UINT spatial_axes[2] = {2, 3}, last_axis[1] = {3};
    struct dml_test_tensor x, channel, sums;
    const struct dml_test_tensor *parameters[4] = {&channel, &channel, &channel, &channel};
    DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC mvn;
    DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC lrn;
    DML_LP_NORMALIZATION_OPERATOR_DESC lp;
    DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC softmax;
    DML_REDUCE_OPERATOR_DESC reduce;
    UINT mvn_node, softmax_node, reduce_node, lp_node, bn, lrn_node, i;

    dml_test_tensor_init(&x, DML_TENSOR_DATA_TYPE_FLOAT32, 4, sizes, NULL);
    dml_test_tensor_init(&channel, DML_TENSOR_DATA_TYPE_FLOAT32, 4, channel_sizes, NULL);
    dml_test_tensor_init(&sums, DML_TENSOR_DATA_TYPE_FLOAT32, 4, sum_sizes, NULL);
    mvn = (DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC){&x.desc, &channel.desc, &channel.desc, &x.desc, 2,
            spatial_axes, TRUE, 1e-5f, NULL};
    mvn_node = graph_test_add_operator(graph, context, DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1, &mvn, "mvn",
            GRAPH_TEST_TENSORS(&x.desc, &channel.desc, &channel.desc), GRAPH_TEST_TENSORS(&x.desc));
    softmax = (DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC){&x.desc, &x.desc, 1, last_axis};
    softmax_node = graph_test_add_operator(graph, context, DML_OPERATOR_ACTIVATION_SOFTMAX1, &softmax, "softmax",
            GRAPH_TEST_TENSORS(&x.desc), GRAPH_TEST_TENSORS(&x.desc));
    reduce = (DML_REDUCE_OPERATOR_DESC){DML_REDUCE_FUNCTION_SUM, &x.desc, &sums.desc, 1, last_axis};
    reduce_node = graph_test_add_operator(graph, context, DML_OPERATOR_REDUCE, &reduce, "sum",
            GRAPH_TEST_TENSORS(&x.desc), GRAPH_TEST_TENSORS(&sums.desc));
    lp = (DML_LP_NORMALIZATION_OPERATOR_DESC){&x.desc, &x.desc, 3, 1e-5f, 2};
    lp_node = graph_test_add_operator(graph, context, DML_OPERATOR_LP_NORMALIZATION, &lp, "lp",
            GRAPH_TEST_TENSORS(&x.desc), GRAPH_TEST_TENSORS(&x.desc));
    bn = graph_test_add_batch_norm(graph, context, "bn", &x, parameters, &x, NULL);
    lrn = (DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC){&x.desc, &x.desc, TRUE, 3, 1e-2f, 0.75f, 1.0f};
    lrn_node = graph_test_add_operator(graph, context, DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION, &lrn, "lrn",
            GRAPH_TEST_TENSORS(&x.desc), GRAPH_TEST_TENSORS(&x.desc));

    graph_test_input(graph, 0, mvn_node, 0);
    graph_test_input(graph, 1, mvn_node, 1);
    graph_test_input(graph, 2, mvn_node, 2);
    graph_test_edge(graph, mvn_node, 0, softmax_node, 0);
    graph_test_edge(graph, softmax_node, 0, reduce_node, 0);
    graph_test_output(graph, reduce_node, 0, 0);
    graph_test_input(graph, 0, lp_node, 0);
    graph_test_output(graph, lp_node, 0, 1);
    graph_test_input(graph, 0, bn, 0);
    for (i = 0; i < 4; ++i)
        graph_test_input(graph, 3 + i, bn, 1 + i);
    graph->data[4] = positive_variance;
    graph_test_edge(graph, bn, 0, lrn_node, 0);
    graph_test_output(graph, lrn_node, 0, 2);
}

static void test_normalization(void **state)
{
    check_settings(*state, build_normalization, default_and_none, 1);
}

/* ---- Data movement ---- */

/* x {1,1,4,6} -> SLICE1 rows 1-2 {1,1,2,6} -> read transposed as {1,1,6,2} (an IDENTITY of
 * strided input: a transpose) -> GATHER rows {5,0,2} of axis 2 -> PADDING by one on both sides of
 * the last two axes {1,1,5,4} -> TILE x2 on the last axis {1,1,5,8} -> CAST to FLOAT16 -> output 0. */
static const int32_t gather_rows[3] = {5, 0, 2};

static void build_movement(struct dml_test_context *context, struct graph_test *graph)
{
    static const UINT x_sizes[4] = {1, 1, 4, 6}, slice_sizes[4] = {1, 1, 2, 6}, offsets[4] = {0, 0, 1, 0};
    static const UINT transposed_sizes[4] = {1, 1, 6, 2}, transposed_strides[4] = {12, 12, 1, 6};
    static const UINT indices_sizes[4] = {1, 1, 1, 3}, gathered_sizes[4] = {1, 1, 3, 2};
    static const UINT padded_sizes[4] = {1, 1, 5, 4}, tiled_sizes[4] = {1, 1, 5, 8}, repeats[4] = {1, 1, 1, 2};
    static const UINT pad_start[4] = {0, 0, 1, 1}, pad_end[4] = {0, 0, 1, 1};
    static const INT unit_strides[4] = {1, 1, 1, 1};
    struct dml_test_tensor x, slice_out, transposed_in, transposed, indices, gathered, padded, tiled, half;
    DML_SLICE1_OPERATOR_DESC slice;
    DML_GATHER_OPERATOR_DESC gather;
    DML_PADDING_OPERATOR_DESC padding;
    DML_TILE_OPERATOR_DESC tile;
    DML_CAST_OPERATOR_DESC cast;
    UINT slice_node, transpose, gather_node, pad_node, tile_node, cast_node;

    dml_test_tensor_init(&x, DML_TENSOR_DATA_TYPE_FLOAT32, 4, x_sizes, NULL);
    dml_test_tensor_init(&slice_out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, slice_sizes, NULL);
    dml_test_tensor_init(&transposed_in, DML_TENSOR_DATA_TYPE_FLOAT32, 4, transposed_sizes, transposed_strides);
    dml_test_tensor_init(&transposed, DML_TENSOR_DATA_TYPE_FLOAT32, 4, transposed_sizes, NULL);
    dml_test_tensor_init(&indices, DML_TENSOR_DATA_TYPE_INT32, 4, indices_sizes, NULL);
    dml_test_tensor_init(&gathered, DML_TENSOR_DATA_TYPE_FLOAT32, 4, gathered_sizes, NULL);
    dml_test_tensor_init(&padded, DML_TENSOR_DATA_TYPE_FLOAT32, 4, padded_sizes, NULL);
    dml_test_tensor_init(&tiled, DML_TENSOR_DATA_TYPE_FLOAT32, 4, tiled_sizes, NULL);
    dml_test_tensor_init(&half, DML_TENSOR_DATA_TYPE_FLOAT16, 4, tiled_sizes, NULL);

    slice = (DML_SLICE1_OPERATOR_DESC){&x.desc, &slice_out.desc, 4, offsets, slice_sizes, unit_strides};
    slice_node = graph_test_add_operator(graph, context, DML_OPERATOR_SLICE1, &slice, "slice",
            GRAPH_TEST_TENSORS(&x.desc), GRAPH_TEST_TENSORS(&slice_out.desc));
    transpose = graph_test_add_unary(graph, context, DML_OPERATOR_ELEMENT_WISE_IDENTITY, "transpose",
            &transposed_in, &transposed);
    gather = (DML_GATHER_OPERATOR_DESC){&transposed.desc, &indices.desc, &gathered.desc, 2, 2};
    gather_node = graph_test_add_operator(graph, context, DML_OPERATOR_GATHER, &gather, "gather",
            GRAPH_TEST_TENSORS(&transposed.desc, &indices.desc), GRAPH_TEST_TENSORS(&gathered.desc));
    padding = (DML_PADDING_OPERATOR_DESC){&gathered.desc, &padded.desc, DML_PADDING_MODE_CONSTANT, 0.25f, 4,
            pad_start, pad_end};
    pad_node = graph_test_add_operator(graph, context, DML_OPERATOR_PADDING, &padding, "pad",
            GRAPH_TEST_TENSORS(&gathered.desc), GRAPH_TEST_TENSORS(&padded.desc));
    tile = (DML_TILE_OPERATOR_DESC){&padded.desc, &tiled.desc, 4, repeats};
    tile_node = graph_test_add_operator(graph, context, DML_OPERATOR_TILE, &tile, "tile",
            GRAPH_TEST_TENSORS(&padded.desc), GRAPH_TEST_TENSORS(&tiled.desc));
    cast = (DML_CAST_OPERATOR_DESC){&tiled.desc, &half.desc};
    cast_node = graph_test_add_operator(graph, context, DML_OPERATOR_CAST, &cast, "cast",
            GRAPH_TEST_TENSORS(&tiled.desc), GRAPH_TEST_TENSORS(&half.desc));

    graph_test_input(graph, 0, slice_node, 0);
    graph_test_edge(graph, slice_node, 0, transpose, 0);
    graph_test_edge(graph, transpose, 0, gather_node, 0);
    graph_test_input(graph, 1, gather_node, 1);
    graph->data[1] = gather_rows;
    graph_test_edge(graph, gather_node, 0, pad_node, 0);
    graph_test_edge(graph, pad_node, 0, tile_node, 0);
    graph_test_edge(graph, tile_node, 0, cast_node, 0);
    graph_test_output(graph, cast_node, 0, 0);
}

static void test_movement(void **state)
{
    check_settings(*state, build_movement, default_and_none, 1);
}

/* ---- Resample, scans, arg-reductions ---- */

/* x {1,2,3,3} -> RESAMPLE nearest x2 -> RESAMPLE linear x0.5 -> output 0; CUMULATIVE_SUMMATION of x
 * along axis 3 -> output 1; ARGMAX of x over the channels -> output 2 (UINT32, bit-exact). */
static void build_resample(struct dml_test_context *context, struct graph_test *graph)
{
    static const UINT x_sizes[4] = {1, 2, 3, 3}, up_sizes[4] = {1, 2, 6, 6}, arg_sizes[4] = {1, 1, 3, 3};
    static const FLOAT up[4] = {1.0f, 1.0f, 2.0f, 2.0f}, down[4] = {1.0f, 1.0f, 0.5f, 0.5f};
    static const UINT channel_axis[1] = {1};
    struct dml_test_tensor x, upsampled, args;
    DML_CUMULATIVE_SUMMATION_OPERATOR_DESC cumsum;
    DML_RESAMPLE_OPERATOR_DESC nearest, linear;
    DML_ARGMAX_OPERATOR_DESC argmax;
    UINT up_node, down_node, cumsum_node, argmax_node;

    dml_test_tensor_init(&x, DML_TENSOR_DATA_TYPE_FLOAT32, 4, x_sizes, NULL);
    dml_test_tensor_init(&upsampled, DML_TENSOR_DATA_TYPE_FLOAT32, 4, up_sizes, NULL);
    dml_test_tensor_init(&args, DML_TENSOR_DATA_TYPE_UINT32, 4, arg_sizes, NULL);
    nearest = (DML_RESAMPLE_OPERATOR_DESC){&x.desc, &upsampled.desc, DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR, 4, up};
    up_node = graph_test_add_operator(graph, context, DML_OPERATOR_RESAMPLE, &nearest, "upsample",
            GRAPH_TEST_TENSORS(&x.desc), GRAPH_TEST_TENSORS(&upsampled.desc));
    linear = (DML_RESAMPLE_OPERATOR_DESC){&upsampled.desc, &x.desc, DML_INTERPOLATION_MODE_LINEAR, 4, down};
    down_node = graph_test_add_operator(graph, context, DML_OPERATOR_RESAMPLE, &linear, "downsample",
            GRAPH_TEST_TENSORS(&upsampled.desc), GRAPH_TEST_TENSORS(&x.desc));
    cumsum = (DML_CUMULATIVE_SUMMATION_OPERATOR_DESC){&x.desc, &x.desc, 3, DML_AXIS_DIRECTION_INCREASING, FALSE};
    cumsum_node = graph_test_add_operator(graph, context, DML_OPERATOR_CUMULATIVE_SUMMATION, &cumsum, "cumsum",
            GRAPH_TEST_TENSORS(&x.desc), GRAPH_TEST_TENSORS(&x.desc));
    argmax = (DML_ARGMAX_OPERATOR_DESC){&x.desc, &args.desc, 1, channel_axis, DML_AXIS_DIRECTION_INCREASING};
    argmax_node = graph_test_add_operator(graph, context, DML_OPERATOR_ARGMAX, &argmax, "argmax",
            GRAPH_TEST_TENSORS(&x.desc), GRAPH_TEST_TENSORS(&args.desc));
    graph_test_input(graph, 0, up_node, 0);
    graph_test_edge(graph, up_node, 0, down_node, 0);
    graph_test_output(graph, down_node, 0, 0);
    graph_test_input(graph, 0, cumsum_node, 0);
    graph_test_output(graph, cumsum_node, 0, 1);
    graph_test_input(graph, 0, argmax_node, 0);
    graph_test_output(graph, argmax_node, 0, 2);
}

static void test_resample_scan_arg(void **state)
{
    check_settings(*state, build_resample, default_and_none, 1);
}

/* ---- Operators with several outputs, or none in ---- */

/* x {1,4,2,3} -> DEPTH_TO_SPACE -> d {1,1,4,6}; TOP_K1 of d (2 largest per row: values and UINT32
 * indices, output 3) -> GATHER_ELEMENTS(d, indices) + values -> output 0; that x FILL_VALUE_SEQUENCE
 * (a node without inputs) -> output 1; MAX_POOLING2 of d with its indices -> MAX_UNPOOLING -> output 2. */
static void build_multi_output(struct dml_test_context *context, struct graph_test *graph)
{
    static const UINT x_sizes[4] = {1, 4, 2, 3}, d_sizes[4] = {1, 1, 4, 6}, k_sizes[4] = {1, 1, 4, 2};
    static const UINT pooled_sizes[4] = {1, 1, 2, 3}, twos[2] = {2, 2}, ones[2] = {1, 1}, zeros[2] = {0, 0};
    struct dml_test_tensor x, d, values, indices, pooled, pool_indices;
    DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC sequence;
    DML_GATHER_ELEMENTS_OPERATOR_DESC gather;
    DML_MAX_UNPOOLING_OPERATOR_DESC unpool;
    DML_DEPTH_TO_SPACE_OPERATOR_DESC d2s;
    DML_MAX_POOLING2_OPERATOR_DESC pool;
    DML_TOP_K1_OPERATOR_DESC top_k;
    UINT d2s_node, top_k_node, gather_node, add, sequence_node, mul, pool_node, unpool_node;

    dml_test_tensor_init(&x, DML_TENSOR_DATA_TYPE_FLOAT32, 4, x_sizes, NULL);
    dml_test_tensor_init(&d, DML_TENSOR_DATA_TYPE_FLOAT32, 4, d_sizes, NULL);
    dml_test_tensor_init(&values, DML_TENSOR_DATA_TYPE_FLOAT32, 4, k_sizes, NULL);
    dml_test_tensor_init(&indices, DML_TENSOR_DATA_TYPE_UINT32, 4, k_sizes, NULL);
    dml_test_tensor_init(&pooled, DML_TENSOR_DATA_TYPE_FLOAT32, 4, pooled_sizes, NULL);
    dml_test_tensor_init(&pool_indices, DML_TENSOR_DATA_TYPE_UINT32, 4, pooled_sizes, NULL);

    d2s = (DML_DEPTH_TO_SPACE_OPERATOR_DESC){&x.desc, &d.desc, 2};
    d2s_node = graph_test_add_operator(graph, context, DML_OPERATOR_DEPTH_TO_SPACE, &d2s, "d2s",
            GRAPH_TEST_TENSORS(&x.desc), GRAPH_TEST_TENSORS(&d.desc));
    top_k = (DML_TOP_K1_OPERATOR_DESC){&d.desc, &values.desc, &indices.desc, 3, 2, DML_AXIS_DIRECTION_DECREASING};
    top_k_node = graph_test_add_operator(graph, context, DML_OPERATOR_TOP_K1, &top_k, "top_k",
            GRAPH_TEST_TENSORS(&d.desc), GRAPH_TEST_TENSORS(&values.desc, &indices.desc));
    gather = (DML_GATHER_ELEMENTS_OPERATOR_DESC){&d.desc, &indices.desc, &values.desc, 3};
    gather_node = graph_test_add_operator(graph, context, DML_OPERATOR_GATHER_ELEMENTS, &gather, "gather",
            GRAPH_TEST_TENSORS(&d.desc, &indices.desc), GRAPH_TEST_TENSORS(&values.desc));
    add = graph_test_add_binary(graph, context, DML_OPERATOR_ELEMENT_WISE_ADD, "add", &values, &values, &values);
    sequence = (DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC){&values.desc, DML_TENSOR_DATA_TYPE_FLOAT32,
            {.Float32 = 0.5f}, {.Float32 = 0.25f}};
    sequence_node = graph_test_add_operator(graph, context, DML_OPERATOR_FILL_VALUE_SEQUENCE, &sequence,
            "sequence", NULL, 0, GRAPH_TEST_TENSORS(&values.desc));
    mul = graph_test_add_binary(graph, context, DML_OPERATOR_ELEMENT_WISE_MULTIPLY, "mul", &values, &values,
            &values);
    pool = (DML_MAX_POOLING2_OPERATOR_DESC){&d.desc, &pooled.desc, &pool_indices.desc, 2, twos, twos, zeros, zeros,
            ones};
    pool_node = graph_test_add_operator(graph, context, DML_OPERATOR_MAX_POOLING2, &pool, "pool",
            GRAPH_TEST_TENSORS(&d.desc), GRAPH_TEST_TENSORS(&pooled.desc, &pool_indices.desc));
    unpool = (DML_MAX_UNPOOLING_OPERATOR_DESC){&pooled.desc, &pool_indices.desc, &d.desc};
    unpool_node = graph_test_add_operator(graph, context, DML_OPERATOR_MAX_UNPOOLING, &unpool, "unpool",
            GRAPH_TEST_TENSORS(&pooled.desc, &pool_indices.desc), GRAPH_TEST_TENSORS(&d.desc));

    graph_test_input(graph, 0, d2s_node, 0);
    graph_test_edge(graph, d2s_node, 0, top_k_node, 0);
    graph_test_edge(graph, d2s_node, 0, gather_node, 0);
    graph_test_edge(graph, top_k_node, 1, gather_node, 1);
    graph_test_edge(graph, top_k_node, 0, add, 0);
    graph_test_edge(graph, gather_node, 0, add, 1);
    graph_test_output(graph, add, 0, 0);
    graph_test_edge(graph, add, 0, mul, 0);
    graph_test_edge(graph, sequence_node, 0, mul, 1);
    graph_test_output(graph, mul, 0, 1);
    graph_test_edge(graph, d2s_node, 0, pool_node, 0);
    graph_test_edge(graph, pool_node, 0, unpool_node, 0);
    graph_test_edge(graph, pool_node, 1, unpool_node, 1);
    graph_test_output(graph, unpool_node, 0, 2);
    graph_test_output(graph, top_k_node, 1, 3);
}

static void test_multi_output(void **state)
{
    check_settings(*state, build_multi_output, default_and_none, 1);
}

/* ---- A ResNet bottleneck block ---- */

/* x {1,8,4,4} -> [conv 1x1 8->4, BN, RELU] -> [conv 3x3 4->4, BN, RELU] -> [conv 1x1 4->8, BN]
 * -> ADD1(., x) -> RELU -> output 0. Filters (inputs 1-3) and batch-norm parameters (inputs 4-15:
 * mean, variance, scale, bias per layer) are OWNED_BY_DML graph inputs, as in the bench's ResNet-50. */
static float block_variance[3][8] =
{
    {0.5f, 0.75f, 1.0f, 1.25f},
    {1.5f, 0.6f, 0.9f, 1.1f},
    {0.7f, 0.8f, 0.9f, 1.0f, 1.1f, 1.2f, 1.3f, 1.4f},
};

static void build_resnet_block(struct dml_test_context *context, struct graph_test *graph)
{
    static const UINT x_sizes[4] = {1, 8, 4, 4}, mid_sizes[4] = {1, 4, 4, 4};
    static const UINT filter_sizes[3][4] = {{4, 8, 1, 1}, {4, 4, 3, 3}, {8, 4, 1, 1}};
    static const UINT channel_sizes[3][4] = {{1, 4, 1, 1}, {1, 4, 1, 1}, {1, 8, 1, 1}};
    struct dml_test_tensor x, mid, filters[3], channels[3];
    const struct dml_test_tensor *parameters[4];
    UINT conv[3], bn[3], relu[3], add, i, j;

    dml_test_tensor_init(&x, DML_TENSOR_DATA_TYPE_FLOAT32, 4, x_sizes, NULL);
    dml_test_tensor_init(&mid, DML_TENSOR_DATA_TYPE_FLOAT32, 4, mid_sizes, NULL);
    for (i = 0; i < 3; ++i)
    {
        dml_test_tensor_init(&filters[i], DML_TENSOR_DATA_TYPE_FLOAT32, 4, filter_sizes[i], NULL);
        dml_test_tensor_init(&channels[i], DML_TENSOR_DATA_TYPE_FLOAT32, 4, channel_sizes[i], NULL);
        filters[i].buffer.Flags = channels[i].buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    }
    for (i = 0; i < 3; ++i)
    {
        const struct dml_test_tensor *in = i ? &mid : &x, *out = i == 2 ? &x : &mid;

        parameters[0] = parameters[1] = parameters[2] = parameters[3] = &channels[i];
        conv[i] = graph_test_add_conv(graph, context, (const char *[]){"conv1", "conv2", "conv3"}[i], in,
                &filters[i], NULL, out, i == 1, NULL);
        bn[i] = graph_test_add_batch_norm(graph, context, (const char *[]){"bn1", "bn2", "bn3"}[i], out,
                parameters, out, NULL);
        graph_test_input(graph, 1 + i, conv[i], 1);
        graph_test_edge(graph, conv[i], 0, bn[i], 0);
        for (j = 0; j < 4; ++j)
            graph_test_input(graph, 4 + 4 * i + j, bn[i], 1 + j);
        graph->data[4 + 4 * i + 1] = block_variance[i];
        if (i < 2)
        {
            relu[i] = graph_test_add_unary(graph, context, DML_OPERATOR_ACTIVATION_RELU,
                    (const char *[]){"relu1", "relu2"}[i], &mid, &mid);
            graph_test_edge(graph, bn[i], 0, relu[i], 0);
            if (i)
                graph_test_edge(graph, relu[0], 0, conv[1], 0);
        }
    }
    graph_test_input(graph, 0, conv[0], 0);
    graph_test_edge(graph, relu[1], 0, conv[2], 0);
    add = graph_test_add_binary(graph, context, DML_OPERATOR_ELEMENT_WISE_ADD1, "residual", &x, &x, &x);
    relu[2] = graph_test_add_unary(graph, context, DML_OPERATOR_ACTIVATION_RELU, "relu3", &x, &x);
    graph_test_edge(graph, bn[2], 0, add, 0);
    graph_test_input(graph, 0, add, 1);
    graph_test_edge(graph, add, 0, relu[2], 0);
    graph_test_output(graph, relu[2], 0, 0);
}

static void test_resnet_block(void **state)
{
    check_settings(*state, build_resnet_block, default_and_none, 2);
}

/* ---- A transformer encoder block ---- */

/* x {1,1,8,16}: ln1 = MVN1(x) with scale and bias over the hidden axis; q, k, v = GEMMs of ln1;
 * probs = SOFTMAX1(q k^T / 4); h = x + (probs v) Wo; out = h + GEMM(GELU(GEMM(MVN1(h), W1) + b1), W2).
 * Weight matrices are OWNED_BY_DML graph inputs. */
static void build_transformer(struct dml_test_context *context, struct graph_test *graph, DML_TENSOR_DATA_TYPE type)
{
    enum {S = 8, D = 16, F = 32};
    static const UINT x_sizes[4] = {1, 1, S, D}, vec_sizes[4] = {1, 1, 1, D}, w_sizes[4] = {1, 1, D, D};
    static const UINT scores_sizes[4] = {1, 1, S, S}, w1_sizes[4] = {1, 1, D, F}, w2_sizes[4] = {1, 1, F, D};
    static const UINT hidden_sizes[4] = {1, 1, S, F}, b1_strides[4] = {0, 0, 0, 1}, last_axis[1] = {3};
    struct dml_test_tensor x, vec, w, scores, w1, w2, hidden, b1;
    DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC mvn;
    DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC softmax;
    UINT ln[2], q, k, v, qk, probs, attn, proj, h, ffn1, gelu, ffn2, out, i;

    dml_test_tensor_init(&x, type, 4, x_sizes, NULL);
    dml_test_tensor_init(&vec, type, 4, vec_sizes, NULL);
    dml_test_tensor_init(&w, type, 4, w_sizes, NULL);
    dml_test_tensor_init(&scores, type, 4, scores_sizes, NULL);
    dml_test_tensor_init(&w1, type, 4, w1_sizes, NULL);
    dml_test_tensor_init(&w2, type, 4, w2_sizes, NULL);
    dml_test_tensor_init(&hidden, type, 4, hidden_sizes, NULL);
    dml_test_tensor_init(&b1, type, 4, hidden_sizes, b1_strides);
    w.buffer.Flags = w1.buffer.Flags = w2.buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;

    mvn = (DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC){&x.desc, &vec.desc, &vec.desc, &x.desc, 1, last_axis,
            TRUE, 1e-5f, NULL};
    for (i = 0; i < 2; ++i)
        ln[i] = graph_test_add_operator(graph, context, DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1, &mvn,
                i ? "ln2" : "ln1", GRAPH_TEST_TENSORS(&x.desc, &vec.desc, &vec.desc), GRAPH_TEST_TENSORS(&x.desc));
    q = graph_test_add_gemm(graph, context, "q", &x, &w, NULL, &x, DML_MATRIX_TRANSFORM_NONE, 1.0f, NULL);
    k = graph_test_add_gemm(graph, context, "k", &x, &w, NULL, &x, DML_MATRIX_TRANSFORM_NONE, 1.0f, NULL);
    v = graph_test_add_gemm(graph, context, "v", &x, &w, NULL, &x, DML_MATRIX_TRANSFORM_NONE, 1.0f, NULL);
    qk = graph_test_add_gemm(graph, context, "qk", &x, &x, NULL, &scores, DML_MATRIX_TRANSFORM_TRANSPOSE, 0.25f,
            NULL);
    softmax = (DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC){&scores.desc, &scores.desc, 1, last_axis};
    probs = graph_test_add_operator(graph, context, DML_OPERATOR_ACTIVATION_SOFTMAX1, &softmax, "probs",
            GRAPH_TEST_TENSORS(&scores.desc), GRAPH_TEST_TENSORS(&scores.desc));
    attn = graph_test_add_gemm(graph, context, "attn", &scores, &x, NULL, &x, DML_MATRIX_TRANSFORM_NONE, 1.0f, NULL);
    proj = graph_test_add_gemm(graph, context, "proj", &x, &w, NULL, &x, DML_MATRIX_TRANSFORM_NONE, 1.0f, NULL);
    h = graph_test_add_binary(graph, context, DML_OPERATOR_ELEMENT_WISE_ADD1, "residual1", &x, &x, &x);
    ffn1 = graph_test_add_gemm(graph, context, "ffn1", &x, &w1, &b1, &hidden, DML_MATRIX_TRANSFORM_NONE, 1.0f,
            NULL);
    gelu = graph_test_add_unary(graph, context, DML_OPERATOR_ACTIVATION_GELU, "gelu", &hidden, &hidden);
    ffn2 = graph_test_add_gemm(graph, context, "ffn2", &hidden, &w2, NULL, &x, DML_MATRIX_TRANSFORM_NONE, 1.0f,
            NULL);
    out = graph_test_add_binary(graph, context, DML_OPERATOR_ELEMENT_WISE_ADD1, "residual2", &x, &x, &x);

    /* Graph inputs: 0 x, 1-2 ln1 scale and bias, 3-6 Wq Wk Wv Wo, 7-8 ln2 scale and bias, 9 W1, 10 b1, 11 W2. */
    graph_test_input(graph, 0, ln[0], 0);
    graph_test_input(graph, 1, ln[0], 1);
    graph_test_input(graph, 2, ln[0], 2);
    graph_test_edge(graph, ln[0], 0, q, 0);
    graph_test_edge(graph, ln[0], 0, k, 0);
    graph_test_edge(graph, ln[0], 0, v, 0);
    graph_test_input(graph, 3, q, 1);
    graph_test_input(graph, 4, k, 1);
    graph_test_input(graph, 5, v, 1);
    graph_test_edge(graph, q, 0, qk, 0);
    graph_test_edge(graph, k, 0, qk, 1);
    graph_test_edge(graph, qk, 0, probs, 0);
    graph_test_edge(graph, probs, 0, attn, 0);
    graph_test_edge(graph, v, 0, attn, 1);
    graph_test_edge(graph, attn, 0, proj, 0);
    graph_test_input(graph, 6, proj, 1);
    graph_test_input(graph, 0, h, 0);
    graph_test_edge(graph, proj, 0, h, 1);
    graph_test_edge(graph, h, 0, ln[1], 0);
    graph_test_input(graph, 7, ln[1], 1);
    graph_test_input(graph, 8, ln[1], 2);
    graph_test_edge(graph, ln[1], 0, ffn1, 0);
    graph_test_input(graph, 9, ffn1, 1);
    graph_test_input(graph, 10, ffn1, 2);
    graph_test_edge(graph, ffn1, 0, gelu, 0);
    graph_test_edge(graph, gelu, 0, ffn2, 0);
    graph_test_input(graph, 11, ffn2, 1);
    graph_test_edge(graph, h, 0, out, 0);
    graph_test_edge(graph, ffn2, 0, out, 1);
    graph_test_output(graph, out, 0, 0);
}

static void build_transformer_float32(struct dml_test_context *context, struct graph_test *graph)
{
    build_transformer(context, graph, DML_TENSOR_DATA_TYPE_FLOAT32);
}

static void build_transformer_float16(struct dml_test_context *context, struct graph_test *graph)
{
    build_transformer(context, graph, DML_TENSOR_DATA_TYPE_FLOAT16);
}

static void test_transformer_block(void **state)
{
    struct dml_test_context *context = *state;

    check_settings(context, build_transformer_float32, default_and_none, 2);
    if (!dml_test_skip_float16(context, DML_TENSOR_DATA_TYPE_FLOAT16, "the FLOAT16 transformer block"))
        check_settings(context, build_transformer_float16, default_and_none, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_elementwise, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_gemm_conv_pooling, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_normalization, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_movement, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_resample_scan_arg, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_multi_output, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_resnet_block, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_transformer_block, dml_test_setup, dml_test_teardown),
    };

    /* Logging first: it keeps the Vulkan driver loaded for LeakSanitizer (test_utils.c). */
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
