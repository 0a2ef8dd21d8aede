/*
 * The graph compiler's "constants" and "batchnorm" passes (docs/graph.md, "Passes"): each graph
 * runs with the pass on and off (VKDML_GRAPH_OPT), both against a C reference, twice per
 * initialization (what the initializer computed stays; outputs are written at every execution)
 * with the OWNED_BY_DML inputs' buffers overwritten after initialization; the report counts what
 * folded, and the cases each pass must leave alone fold nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dml_graph_utils.h"
#include "vkdml.h"

#define F32 DML_TENSOR_DATA_TYPE_FLOAT32
#define F16 DML_TENSOR_DATA_TYPE_FLOAT16
#define GRAPH_MAX_IO 4
#define MAX_OUTPUT_ELEMENTS 1024

static const DML_TENSOR_DATA_TYPE float_types[] = {F32, F16};

/* A graph's inputs (in GraphInputIndex order; OWNED_BY_DML ones bound to the initializer) and outputs. */
struct graph_io
{
    const struct dml_test_float_tensor *inputs[GRAPH_MAX_IO];
    UINT input_count;
    const struct dml_test_tensor *outputs[GRAPH_MAX_IO];
    UINT output_count;
};

static void add_output_buffers(struct dml_test_context *context, const struct graph_io *io,
        struct dml_test_binding *outputs)
{
    UINT i;

    for (i = 0; i < io->output_count; ++i)
        outputs[i].buffer = dml_test_create_buffer(context, io->outputs[i]->buffer.TotalTensorSizeInBytes, NULL);
}

static void clear_outputs(struct dml_test_context *context, const struct graph_io *io,
        const struct dml_test_binding *outputs)
{
    static const uint8_t zeros[MAX_OUTPUT_ELEMENTS * sizeof(float)];
    UINT i;

    for (i = 0; i < io->output_count; ++i)
        dml_test_write_buffer(context, outputs[i].buffer, 0, zeros, io->outputs[i]->buffer.TotalTensorSizeInBytes);
}

static void read_outputs(struct dml_test_context *context, const struct graph_io *io,
        const struct dml_test_binding *outputs, float (*results)[MAX_OUTPUT_ELEMENTS])
{
    uint8_t bytes[MAX_OUTPUT_ELEMENTS * sizeof(float)];
    UINT64 e, count;
    UINT i;

    for (i = 0; i < io->output_count; ++i)
    {
        count = dml_test_element_count(io->outputs[i]);
        assert_true(count <= MAX_OUTPUT_ELEMENTS);
        dml_test_read_buffer(context, outputs[i].buffer, 0, bytes, io->outputs[i]->buffer.TotalTensorSizeInBytes);
        for (e = 0; e < count; ++e)
            results[i][e] = dml_test_read_float(bytes, io->outputs[i]->buffer.DataType, e);
    }
}

/* Compiles the builder's graph, initializes it, overwrites the OWNED_BY_DML inputs' buffers,
 * executes twice (outputs cleared before each) and reads the outputs (packed) as floats. */
static void run_graph(struct dml_test_context *context, struct dml_graph_builder *builder, const struct graph_io *io,
        float (*results)[MAX_OUTPUT_ELEMENTS], struct vkdml_graph_report *report)
{
    struct dml_test_binding inputs[GRAPH_MAX_IO] = {{0}}, owned[GRAPH_MAX_IO] = {{0}}, outputs[GRAPH_MAX_IO] = {{0}};
    IDMLCompiledOperator *compiled = dml_graph_compile(context, builder, DML_EXECUTION_FLAG_NONE);
    ID3D12Resource *persistent;
    UINT execution;

    dml_test_create_input_buffers(context, io->inputs, io->input_count, inputs, owned);
    add_output_buffers(context, io, outputs);
    persistent = dml_test_initialize(context, compiled, owned, io->input_count);
    dml_test_scribble_owned(owned, io->inputs, io->input_count);
    for (execution = 0; execution < 2; ++execution)
    {
        clear_outputs(context, io, outputs);
        dml_test_execute(context, compiled, persistent, inputs, io->input_count, outputs, io->output_count);
    }
    read_outputs(context, io, outputs, results);
    assert_int_equal(vkdml_get_graph_report(compiled, report, sizeof(*report)), S_OK);
    assert_int_equal(IDMLCompiledOperator_Release(compiled), 0);
    if (persistent)
        ID3D12Resource_Release(persistent);
    dml_test_release_bindings(inputs, io->input_count);
    dml_test_release_bindings(owned, io->input_count);
    dml_test_release_bindings(outputs, io->output_count);
}

static UINT add_constant(struct dml_graph_builder *builder, const struct dml_test_float_tensor *tensor,
        void **bytes)
{
    *bytes = dml_test_float_tensor_bytes(tensor);
    return dml_graph_add_constant(builder, *bytes, tensor->t.buffer.TotalTensorSizeInBytes);
}

/* A value as stored in `type`. */
static float stored(DML_TENSOR_DATA_TYPE type, double value)
{
    return type == F16 ? ref_round_to_half((float)value) : (float)value;
}

static void check_close(const char *name, DML_TENSOR_DATA_TYPE type, UINT index, float result, double expected,
        double tolerance)
{
    if (fabs(result - expected) <= tolerance)
        return;
    fail_msg("%s (%s), element %u: %.7g, expected %.7g (tolerance %.3g).", name, dml_test_type_name(type), index,
            result, expected, tolerance);
}

/* ---- constants ---- */

#define SMALL_SIZES ((const UINT[]){1, 1, 3, 5})
#define SMALL_ELEMENTS 15u

struct constants_graph
{
    struct dml_test_float_tensor x, w, c1, c2;
    struct dml_test_tensor out;
    void *bytes[2];
};

static void constants_graph_init(struct constants_graph *g, DML_TENSOR_DATA_TYPE type)
{
    memset(g, 0, sizeof(*g));
    dml_test_float_tensor_init(&g->x, type, 4, SMALL_SIZES, NULL, DML_TENSOR_FLAG_NONE, 1);
    dml_test_float_tensor_init(&g->w, type, 4, SMALL_SIZES, NULL, DML_TENSOR_FLAG_OWNED_BY_DML, 2);
    dml_test_float_tensor_init(&g->c1, type, 4, SMALL_SIZES, NULL, DML_TENSOR_FLAG_NONE, 3);
    dml_test_float_tensor_init(&g->c2, type, 4, SMALL_SIZES, NULL, DML_TENSOR_FLAG_NONE, 4);
    dml_test_tensor_init(&g->out, type, 4, SMALL_SIZES, NULL);
}

static void constants_graph_cleanup(struct constants_graph *g)
{
    dml_test_float_tensor_cleanup(&g->x);
    dml_test_float_tensor_cleanup(&g->w);
    dml_test_float_tensor_cleanup(&g->c1);
    dml_test_float_tensor_cleanup(&g->c2);
}

/* out = x + (c1 + c2) * w, c1 and c2 constant nodes, w OWNED_BY_DML: the ADD and the MULTIPLY
 * fold (the ADD's output only feeds the MULTIPLY: the initializer's temporary resource holds it),
 * the last ADD reads a graph input bound at execution. */
static void run_constants(struct dml_test_context *context, struct constants_graph *g, float *result,
        struct vkdml_graph_report *report)
{
    const struct graph_io io = {{&g->x, &g->w}, 2, {&g->out}, 1};
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC desc = {&g->x.t.desc, &g->x.t.desc, &g->out.desc};
    DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC mul_desc = {&g->x.t.desc, &g->w.t.desc, &g->out.desc};
    float results[GRAPH_MAX_IO][MAX_OUTPUT_ELEMENTS];
    struct dml_graph_builder builder = {0};
    UINT c1, c2, sum, product, out;

    c1 = add_constant(&builder, &g->c1, &g->bytes[0]);
    c2 = add_constant(&builder, &g->c2, &g->bytes[1]);
    sum = dml_graph_add_op(context, &builder, DML_OPERATOR_ELEMENT_WISE_ADD, &desc);
    product = dml_graph_add_op(context, &builder, DML_OPERATOR_ELEMENT_WISE_MULTIPLY, &mul_desc);
    out = dml_graph_add_op(context, &builder, DML_OPERATOR_ELEMENT_WISE_ADD, &desc);
    dml_graph_connect(&builder, c1, 0, sum, 0);
    dml_graph_connect(&builder, c2, 0, sum, 1);
    dml_graph_connect(&builder, sum, 0, product, 0);
    dml_graph_connect_input(&builder, 1, product, 1);
    dml_graph_connect_input(&builder, 0, out, 0);
    dml_graph_connect(&builder, product, 0, out, 1);
    dml_graph_connect_output(&builder, out, 0, 0);
    run_graph(context, &builder, &io, results, report);
    memcpy(result, results[0], SMALL_ELEMENTS * sizeof(*result));
    free(g->bytes[0]);
    free(g->bytes[1]);
    g->bytes[0] = g->bytes[1] = NULL;
}

static void check_constants(const struct constants_graph *g, DML_TENSOR_DATA_TYPE type, const float *result)
{
    UINT i;

    for (i = 0; i < SMALL_ELEMENTS; ++i)
    {
        double expected = stored(type, g->x.values[i] + stored(type, stored(type, g->c1.values[i] + g->c2.values[i])
                * g->w.values[i]));

        check_close("x + (c1 + c2) * w", type, i, result[i], expected, type == F16 ? 4e-3 : 1e-6);
    }
}

static void test_constants_folded(void **state)
{
    struct dml_test_context *context = *state;
    struct vkdml_graph_report on, off;
    float folded[SMALL_ELEMENTS], unfolded[SMALL_ELEMENTS];
    struct constants_graph g;
    unsigned int t;

    for (t = 0; t < ARRAY_SIZE(float_types); ++t)
    {
        if (dml_test_skip_float16(context, float_types[t], "constants, FLOAT16"))
            continue;
        constants_graph_init(&g, float_types[t]);
        /* The elementwise pass would merge what stays unfolded into one chain: off in both runs. */
        dml_test_set_knob(context, "VKDML_GRAPH_OPT", "-elementwise");
        run_constants(context, &g, folded, &on);
        dml_test_set_knob(context, "VKDML_GRAPH_OPT", "-constants,-elementwise");
        run_constants(context, &g, unfolded, &off);
        check_constants(&g, float_types[t], folded);
        check_constants(&g, float_types[t], unfolded);
        /* The same operators compute the same values, once in the initializer. */
        assert_memory_equal(folded, unfolded, sizeof(folded));
        assert_int_equal(on.folded_nodes, 2);
        assert_int_equal(off.folded_nodes, 0);
        assert_int_equal(on.dispatch_count, 1);
        assert_int_equal(off.dispatch_count, 3);
        assert_int_equal(on.dispatches_unfused, 3);
        /* c1, c2 and w, plus the MULTIPLY's output; the ADD's lives in the initializer's temporary resource. */
        assert_int_equal(off.persistent_size, 3 * DML_PERSISTENT_BUFFER_ALIGNMENT);
        assert_int_equal(on.persistent_size, 4 * DML_PERSISTENT_BUFFER_ALIGNMENT);
        constants_graph_cleanup(&g);
    }
}

/* out = x + FILL_VALUE_CONSTANT(2.5): a node without inputs folds too. */
static void run_fill(struct dml_test_context *context, struct constants_graph *g, float *result,
        struct vkdml_graph_report *report)
{
    const struct graph_io io = {{&g->x}, 1, {&g->out}, 1};
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC desc = {&g->x.t.desc, &g->x.t.desc, &g->out.desc};
    DML_FILL_VALUE_CONSTANT_OPERATOR_DESC fill_desc = {&g->out.desc, DML_TENSOR_DATA_TYPE_FLOAT32, {.Float32 = 2.5f}};
    float results[GRAPH_MAX_IO][MAX_OUTPUT_ELEMENTS];
    struct dml_graph_builder builder = {0};
    UINT fill, out;

    fill = dml_graph_add_op(context, &builder, DML_OPERATOR_FILL_VALUE_CONSTANT, &fill_desc);
    out = dml_graph_add_op(context, &builder, DML_OPERATOR_ELEMENT_WISE_ADD, &desc);
    dml_graph_connect_input(&builder, 0, out, 0);
    dml_graph_connect(&builder, fill, 0, out, 1);
    dml_graph_connect_output(&builder, out, 0, 0);
    run_graph(context, &builder, &io, results, report);
    memcpy(result, results[0], SMALL_ELEMENTS * sizeof(*result));
}

static void test_constants_no_inputs(void **state)
{
    struct dml_test_context *context = *state;
    float folded[SMALL_ELEMENTS], unfolded[SMALL_ELEMENTS];
    struct vkdml_graph_report on, off;
    struct constants_graph g;
    UINT i;

    constants_graph_init(&g, F32);
    run_fill(context, &g, folded, &on);
    dml_test_set_knob(context, "VKDML_GRAPH_OPT", "-constants");
    run_fill(context, &g, unfolded, &off);
    for (i = 0; i < SMALL_ELEMENTS; ++i)
    {
        check_close("x + 2.5, folded", F32, i, folded[i], g.x.values[i] + 2.5f, 0.0);
        check_close("x + 2.5, -constants", F32, i, unfolded[i], g.x.values[i] + 2.5f, 0.0);
    }
    assert_int_equal(on.folded_nodes, 1);
    assert_int_equal(on.dispatch_count, 1);
    assert_int_equal(off.dispatch_count, 2);
    constants_graph_cleanup(&g);
}

/* out0 = x + s and out1 = s with s = c1 + c2 (a graph output: written at every execution, so its
 * ADD stays), out2 = CAST(RANDOM_GENERATOR(constant state)) (the generator never folds): nothing
 * folds. */
static void run_constants_kept(struct dml_test_context *context, struct constants_graph *g, const UINT *state,
        float (*results)[MAX_OUTPUT_ELEMENTS], struct vkdml_graph_report *report)
{
    const struct graph_io io = {{&g->x}, 1, {&g->out, &g->out, &g->out}, 3};
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC desc = {&g->x.t.desc, &g->x.t.desc, &g->out.desc};
    DML_RANDOM_GENERATOR_OPERATOR_DESC random_desc;
    struct dml_test_tensor state_tensor, bits;
    DML_CAST_OPERATOR_DESC cast_desc;
    struct dml_graph_builder builder = {0};
    UINT c1, c2, sum, out, seed, random, cast;

    dml_test_tensor_init(&state_tensor, DML_TENSOR_DATA_TYPE_UINT32, 4, (const UINT[]){1, 1, 1, 6}, NULL);
    dml_test_tensor_init(&bits, DML_TENSOR_DATA_TYPE_UINT32, 4, SMALL_SIZES, NULL);
    random_desc = (DML_RANDOM_GENERATOR_OPERATOR_DESC){&state_tensor.desc, &bits.desc, NULL,
            DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10};
    cast_desc = (DML_CAST_OPERATOR_DESC){&bits.desc, &g->out.desc};
    c1 = add_constant(&builder, &g->c1, &g->bytes[0]);
    c2 = add_constant(&builder, &g->c2, &g->bytes[1]);
    seed = dml_graph_add_constant(&builder, state, 6 * sizeof(*state));
    sum = dml_graph_add_op(context, &builder, DML_OPERATOR_ELEMENT_WISE_ADD, &desc);
    out = dml_graph_add_op(context, &builder, DML_OPERATOR_ELEMENT_WISE_ADD, &desc);
    random = dml_graph_add_op(context, &builder, DML_OPERATOR_RANDOM_GENERATOR, &random_desc);
    cast = dml_graph_add_op(context, &builder, DML_OPERATOR_CAST, &cast_desc);
    dml_graph_connect(&builder, c1, 0, sum, 0);
    dml_graph_connect(&builder, c2, 0, sum, 1);
    dml_graph_connect_input(&builder, 0, out, 0);
    dml_graph_connect(&builder, sum, 0, out, 1);
    dml_graph_connect(&builder, seed, 0, random, 0);
    dml_graph_connect(&builder, random, 0, cast, 0);
    dml_graph_connect_output(&builder, out, 0, 0);
    dml_graph_connect_output(&builder, sum, 0, 1);
    dml_graph_connect_output(&builder, cast, 0, 2);
    run_graph(context, &builder, &io, results, report);
    free(g->bytes[0]);
    free(g->bytes[1]);
    g->bytes[0] = g->bytes[1] = NULL;
}

static void test_constants_kept(void **state)
{
    static const UINT seed[6] = {0x12345678, 0x9abcdef0, 0, 0, 0, 0};
    struct dml_test_context *context = *state;
    float on[3][MAX_OUTPUT_ELEMENTS], off[3][MAX_OUTPUT_ELEMENTS];
    struct vkdml_graph_report report, report_off;
    struct constants_graph g;
    UINT i;

    memset(on, 0, sizeof(on));
    memset(off, 0, sizeof(off));
    constants_graph_init(&g, F32);
    run_constants_kept(context, &g, seed, on, &report);
    dml_test_set_knob(context, "VKDML_GRAPH_OPT", "-constants");
    run_constants_kept(context, &g, seed, off, &report_off);
    for (i = 0; i < SMALL_ELEMENTS; ++i)
    {
        float s = g.c1.values[i] + g.c2.values[i];

        check_close("c1 + c2, a graph output", F32, i, on[1][i], s, 0.0);
        check_close("x + (c1 + c2)", F32, i, on[0][i], g.x.values[i] + s, 0.0);
    }
    assert_memory_equal(on, off, sizeof(on));
    /* The generator's bits from a constant state: the same at every execution, but not folded. */
    assert_true(on[2][0] != on[2][1]);
    assert_int_equal(report.folded_nodes, 0);
    assert_int_equal(report.dispatch_count, report_off.dispatch_count);
    constants_graph_cleanup(&g);
}

/* ---- batchnorm ---- */

/* CONVOLUTION of x {1, C, 5, 5} with a 3x3 filter, K output channels, padding 1 (C 2, K 3 unless
 * the case says), then BATCH_NORMALIZATION (epsilon 0.01) with per-channel parameters. */
#define SIDE 5u
#define POSITIONS (SIDE * SIDE)
#define EPSILON 0.01f

struct bn_case
{
    const char *name;
    DML_TENSOR_DATA_TYPE type;
    bool conv_bias;
    bool owned_filter;                  /* an OWNED_BY_DML graph input, else a constant node */
    bool broadcast_mean;                /* Mean {1, 1, 1, 1}: one value for every channel */
    bool exp_variance;                  /* Variance = EXP(constant): a node the constants pass folds */
    bool mean_input;                    /* Mean: a graph input bound at execution */
    bool conv_output_too;               /* the convolution's output is graph output 1 too */
    bool second_reader;                 /* ... or ELEMENT_WISE_ABS reads it into graph output 1 */
    bool relu_node;                     /* an ACTIVATION_RELU node after the BATCH_NORMALIZATION */
    bool reinterpreted;                 /* the BATCH_NORMALIZATION reads the bytes as {1, 5, 15, 1} */
    const DML_OPERATOR_DESC *conv_activation, *bn_activation;
    UINT folded;                        /* folded_batch_norms expected */
    UINT in_channels, channels, groups; /* 0: 2, 3 and 1 */
    /* The convolution forced to the cooperative-matrix kernel on channels-last copies, which
     * copies an OWNED_BY_DML filter once, in the initializer (conv.c's initialize hook): the folded
     * filter's copy runs there, the unfolded constant filter's at every execution. */
    bool staged;
};

struct bn_graph
{
    const struct bn_case *test;
    struct dml_test_float_tensor x, filter, conv_bias, mean, variance, scale, bias;
    struct dml_test_tensor conv_out, bn_io;
    UINT in_channels, channels, groups, bn_channels;
    void *bytes[8];
    UINT byte_count;
};

/* Values in [0.5, 1.5], as stored. */
static void make_positive(struct dml_test_float_tensor *tensor)
{
    size_t i;

    for (i = 0; i < tensor->span; ++i)
        tensor->values[i] = stored(tensor->t.buffer.DataType, 1.0 + 0.5 * tensor->values[i]);
}

static void bn_graph_init(struct bn_graph *g, const struct bn_case *test)
{
    UINT channels = test->channels ? test->channels : 3, in_channels = test->in_channels ? test->in_channels : 2;
    UINT bn_sizes[4] = {1, channels, SIDE, SIDE}, parameter[4] = {1, channels, 1, 1};
    DML_TENSOR_DATA_TYPE type = test->type;

    memset(g, 0, sizeof(*g));
    g->test = test;
    g->channels = channels;
    g->in_channels = in_channels;
    g->groups = test->groups ? test->groups : 1;
    if (test->reinterpreted)
        memcpy(bn_sizes, (const UINT[]){1, 5, 15, 1}, sizeof(bn_sizes));
    g->bn_channels = parameter[1] = bn_sizes[1];
    dml_test_float_tensor_init(&g->x, type, 4, (const UINT[]){1, in_channels, SIDE, SIDE}, NULL, 0, 11);
    dml_test_float_tensor_init(&g->filter, type, 4, (const UINT[]){channels, in_channels / g->groups, 3, 3}, NULL,
            test->owned_filter ? DML_TENSOR_FLAG_OWNED_BY_DML : 0, 12);
    dml_test_float_tensor_init(&g->conv_bias, type, 4, (const UINT[]){1, channels, 1, 1}, NULL, 0, 13);
    dml_test_float_tensor_init(&g->mean, type, 4, test->broadcast_mean ? (const UINT[]){1, 1, 1, 1} : parameter,
            NULL, 0, 14);
    dml_test_float_tensor_init(&g->variance, type, 4, parameter, NULL, 0, 15);
    dml_test_float_tensor_init(&g->scale, type, 4, parameter, NULL, 0, 16);
    dml_test_float_tensor_init(&g->bias, type, 4, parameter, NULL, 0, 17);
    if (!test->exp_variance)
        make_positive(&g->variance);
    make_positive(&g->scale);
    dml_test_tensor_init(&g->conv_out, type, 4, (const UINT[]){1, channels, SIDE, SIDE}, NULL);
    dml_test_tensor_init(&g->bn_io, type, 4, bn_sizes, NULL);
}

static void bn_graph_cleanup(struct bn_graph *g)
{
    dml_test_float_tensor_cleanup(&g->x);
    dml_test_float_tensor_cleanup(&g->filter);
    dml_test_float_tensor_cleanup(&g->conv_bias);
    dml_test_float_tensor_cleanup(&g->mean);
    dml_test_float_tensor_cleanup(&g->variance);
    dml_test_float_tensor_cleanup(&g->scale);
    dml_test_float_tensor_cleanup(&g->bias);
}

/* A constant node, or graph input `*next_input` for inputs (OWNED_BY_DML or not), into `input` of `node`. */
static void feed(struct bn_graph *g, struct dml_graph_builder *builder, struct graph_io *io,
        const struct dml_test_float_tensor *tensor, bool graph_input, UINT node, UINT input)
{
    if (graph_input)
    {
        dml_graph_connect_input(builder, io->input_count, node, input);
        io->inputs[io->input_count++] = tensor;
        return;
    }
    dml_graph_connect(builder, add_constant(builder, tensor, &g->bytes[g->byte_count++]), 0, node, input);
}

static void conv_desc(const struct bn_graph *g, DML_CONVOLUTION_OPERATOR_DESC *desc)
{
    static const UINT ones[2] = {1, 1}, zeros[2] = {0, 0};

    *desc = (DML_CONVOLUTION_OPERATOR_DESC){&g->x.t.desc, &g->filter.t.desc,
            g->test->conv_bias ? &g->conv_bias.t.desc : NULL, &g->conv_out.desc,
            DML_CONVOLUTION_MODE_CROSS_CORRELATION, DML_CONVOLUTION_DIRECTION_FORWARD, 2, ones, ones, ones, ones,
            zeros, g->groups, g->test->conv_activation};
}

static UINT add_conv(struct dml_test_context *context, struct dml_graph_builder *builder, const struct bn_graph *g)
{
    DML_CONVOLUTION_OPERATOR_DESC desc;

    conv_desc(g, &desc);
    return dml_graph_add_op(context, builder, DML_OPERATOR_CONVOLUTION, &desc);
}

/* Whether the convolution compiles with the kernel VKDML_CONV_KERNEL forces (E_NOTIMPL where the
 * device lacks it; its log line is dropped). */
static bool conv_compiles(struct dml_test_context *context, const struct bn_graph *g)
{
    IDMLCompiledOperator *compiled = NULL;
    DML_CONVOLUTION_OPERATOR_DESC desc;
    IDMLOperator *op;
    HRESULT hr;

    conv_desc(g, &desc);
    assert_int_equal(dml_test_create_operator(context, DML_OPERATOR_CONVOLUTION, &desc, &op), S_OK);
    hr = IDMLDevice_CompileOperator(context->dml, op, DML_EXECUTION_FLAG_NONE, &IID_IDMLCompiledOperator,
            (void **)&compiled);
    if (hr != E_NOTIMPL)
        assert_int_equal(hr, S_OK);
    if (compiled)
        assert_int_equal(IDMLCompiledOperator_Release(compiled), 0);
    assert_int_equal(IDMLOperator_Release(op), 0);
    vkdml_test_log_reset();
    return hr == S_OK;
}

/* Variance = EXP(the variance tensor's values), folded by the constants pass. */
static void feed_variance(struct dml_test_context *context, struct bn_graph *g, struct dml_graph_builder *builder,
        struct graph_io *io, UINT bn)
{
    DML_ELEMENT_WISE_EXP_OPERATOR_DESC exp_desc = {&g->variance.t.desc, &g->variance.t.desc, NULL};
    UINT exp;

    if (!g->test->exp_variance)
    {
        feed(g, builder, io, &g->variance, false, bn, 2);
        return;
    }
    exp = dml_graph_add_op(context, builder, DML_OPERATOR_ELEMENT_WISE_EXP, &exp_desc);
    feed(g, builder, io, &g->variance, false, exp, 0);
    dml_graph_connect(builder, exp, 0, bn, 2);
}

static void run_bn(struct dml_test_context *context, struct bn_graph *g, float (*results)[MAX_OUTPUT_ELEMENTS],
        struct vkdml_graph_report *report)
{
    const struct bn_case *test = g->test;
    DML_BATCH_NORMALIZATION_OPERATOR_DESC bn_desc = {&g->bn_io.desc, &g->mean.t.desc, &g->variance.t.desc,
            &g->scale.t.desc, &g->bias.t.desc, &g->bn_io.desc, TRUE, EPSILON, test->bn_activation};
    struct dml_graph_builder builder = {0};
    struct graph_io io = {{&g->x}, 1, {&g->bn_io, &g->conv_out}, test->conv_output_too || test->second_reader ? 2 : 1};
    DML_ELEMENT_WISE_ABS_OPERATOR_DESC abs_desc = {&g->conv_out.desc, &g->conv_out.desc, NULL};
    DML_ACTIVATION_RELU_OPERATOR_DESC relu_desc = {&g->bn_io.desc, &g->bn_io.desc};
    UINT conv, bn, i, abs, relu;

    conv = add_conv(context, &builder, g);
    bn = dml_graph_add_op(context, &builder, DML_OPERATOR_BATCH_NORMALIZATION, &bn_desc);
    dml_graph_connect_input(&builder, 0, conv, 0);
    feed(g, &builder, &io, &g->filter, test->owned_filter, conv, 1);
    if (test->conv_bias)
        feed(g, &builder, &io, &g->conv_bias, false, conv, 2);
    dml_graph_connect(&builder, conv, 0, bn, 0);
    feed(g, &builder, &io, &g->mean, test->mean_input, bn, 1);
    feed_variance(context, g, &builder, &io, bn);
    feed(g, &builder, &io, &g->scale, false, bn, 3);
    feed(g, &builder, &io, &g->bias, false, bn, 4);
    if (test->relu_node)
    {
        relu = dml_graph_add_op(context, &builder, DML_OPERATOR_ACTIVATION_RELU, &relu_desc);
        dml_graph_connect(&builder, bn, 0, relu, 0);
        dml_graph_connect_output(&builder, relu, 0, 0);
    }
    else
    {
        dml_graph_connect_output(&builder, bn, 0, 0);
    }
    if (test->conv_output_too)
        dml_graph_connect_output(&builder, conv, 0, 1);
    if (test->second_reader)
    {
        abs = dml_graph_add_op(context, &builder, DML_OPERATOR_ELEMENT_WISE_ABS, &abs_desc);
        dml_graph_connect(&builder, conv, 0, abs, 0);
        dml_graph_connect_output(&builder, abs, 0, 1);
    }
    run_graph(context, &builder, &io, results, report);
    for (i = 0; i < g->byte_count; ++i)
        free(g->bytes[i]);
    g->byte_count = 0;
}

static double activate(const DML_OPERATOR_DESC *activation, double x)
{
    double slope;

    return dml_test_fused_activation(activation, x, &slope);
}

/* The convolution's output k, position p (before any activation), and the sum of its terms' magnitudes. */
static double conv_reference(const struct bn_graph *g, UINT k, UINT p, double *magnitude)
{
    UINT group_inputs = g->in_channels / g->groups, first = k / (g->channels / g->groups) * group_inputs;
    double sum = g->test->conv_bias ? g->conv_bias.values[k] : 0.0;
    int y = p / SIDE, x = p % SIDE, c, i, j, yy, xx;

    *magnitude = fabs(sum);
    for (c = 0; c < (int)group_inputs; ++c)
    {
        for (i = 0; i < 3; ++i)
        {
            for (j = 0; j < 3; ++j)
            {
                double term;

                yy = y + i - 1;
                xx = x + j - 1;
                if (yy < 0 || xx < 0 || yy >= (int)SIDE || xx >= (int)SIDE)
                    continue;
                term = g->x.values[((first + c) * SIDE + yy) * SIDE + xx]
                        * g->filter.values[((k * group_inputs + c) * 3 + i) * 3 + j];
                sum += term;
                *magnitude += fabs(term);
            }
        }
    }
    return sum;
}

static double variance_of(const struct bn_graph *g, UINT channel)
{
    double v = g->variance.values[channel];

    return g->test->exp_variance ? stored(g->test->type, exp(v)) : v;
}

/* Flat element e of the BATCH_NORMALIZATION's output: its channel is e / (elements per channel). */
static void check_bn(const struct bn_graph *g, const char *pass, float (*results)[MAX_OUTPUT_ELEMENTS])
{
    const struct bn_case *test = g->test;
    bool half = test->type == F16;
    double conv, magnitude, factor, expected, tolerance;
    UINT e, channel;
    char name[160];

    snprintf(name, sizeof(name), "%s, %s", test->name, pass);
    for (e = 0; e < g->channels * POSITIONS; ++e)
    {
        channel = e / (g->channels * POSITIONS / g->bn_channels);
        conv = conv_reference(g, e / POSITIONS, e % POSITIONS, &magnitude);
        conv = activate(test->conv_activation, conv);
        if (test->conv_output_too || test->second_reader)
            check_close(name, test->type, e, results[1][e], test->second_reader ? fabs(conv) : conv,
                    half ? 2e-3 * magnitude + 1e-3 : 1e-5 * magnitude + 1e-6);
        factor = g->scale.values[channel] / sqrt(variance_of(g, channel) + EPSILON);
        expected = (conv - g->mean.values[test->broadcast_mean ? 0 : channel]) * factor + g->bias.values[channel];
        expected = activate(test->relu_node ? &dml_test_relu : test->bn_activation, expected);
        /* FLOAT16: the folded filter, bias and factors are rounded once each (docs/graph.md, "batchnorm"). */
        tolerance = half ? 4e-3 * (magnitude + 1.0) * fabs(factor) + 2e-3 * fabs(expected) + 2e-3
                : 1e-5 * (magnitude + 1.0) * fabs(factor) + 1e-5;
        check_close(name, test->type, e, results[0][e], expected, tolerance);
    }
}

static void run_bn_case(struct dml_test_context *context, const struct bn_case *test)
{
    float on[GRAPH_MAX_IO][MAX_OUTPUT_ELEMENTS], off[GRAPH_MAX_IO][MAX_OUTPUT_ELEMENTS];
    struct vkdml_graph_report report, report_off;
    struct bn_graph g;
    UINT folded;

    if (dml_test_skip_float16(context, test->type, test->name))
        return;
    bn_graph_init(&g, test);
    dml_test_set_knob(context, "VKDML_GRAPH_OPT", NULL);
    dml_test_set_knob(context, "VKDML_CONV_KERNEL", test->staged ? "coopmat-nhwc" : NULL);
    if (test->staged && !conv_compiles(context, &g))
    {
        print_message("Skipping %s: the device has no cooperative-matrix convolution.\n", test->name);
        bn_graph_cleanup(&g);
        return;
    }
    run_bn(context, &g, on, &report);
    dml_test_set_knob(context, "VKDML_GRAPH_OPT", "-batchnorm");
    run_bn(context, &g, off, &report_off);
    check_bn(&g, "folded", on);
    check_bn(&g, "-batchnorm", off);
    /* FLOAT32 convolutions keep their normalization (docs/graph.md, "batchnorm"). */
    folded = test->type == F16 ? test->folded : 0;
    assert_int_equal(report.folded_batch_norms, folded);
    assert_int_equal(report_off.folded_batch_norms, 0);
    assert_int_equal(report.dispatch_count + folded + (folded ? test->staged : 0), report_off.dispatch_count);
    assert_int_equal(report.folded_nodes, test->exp_variance);
    assert_int_equal(report.fused_activations, test->relu_node);
    assert_int_equal(report_off.fused_activations, test->relu_node);
    /* filter' and bias' (less than 256 bytes each) are new persistent values; the EXP's output,
     * which only the folding nodes read now, leaves the persistent resource. */
    if (test->exp_variance && folded)
        assert_int_equal(report.persistent_size, report_off.persistent_size + DML_PERSISTENT_BUFFER_ALIGNMENT);
    bn_graph_cleanup(&g);
}

static const struct bn_case folded_cases[] =
{
    {"bias, constant filter, RELU moves", F32, .conv_bias = true, .bn_activation = &dml_test_relu, .folded = 1},
    {"bias, constant filter, RELU moves", F16, .conv_bias = true, .bn_activation = &dml_test_relu, .folded = 1},
    {"no bias, OWNED_BY_DML filter, one mean, folded variance", F32, .owned_filter = true, .broadcast_mean = true,
            .exp_variance = true, .folded = 1},
    {"no bias, OWNED_BY_DML filter, one mean, folded variance", F16, .owned_filter = true, .broadcast_mean = true,
            .exp_variance = true, .folded = 1},
    {"2 groups of 1 input and 2 output channels", F16, .conv_bias = true, .folded = 1, .channels = 4,
            .groups = 2},
    /* The activation pass then fuses the RELU into the folded convolution (into the normalization without). */
    {"a RELU node after the normalization", F16, .conv_bias = true, .relu_node = true, .folded = 1},
};

static void test_batchnorm_folded(void **state)
{
    unsigned int i;

    for (i = 0; i < ARRAY_SIZE(folded_cases); ++i)
        run_bn_case(*state, &folded_cases[i]);
}

/* 16 channels in and out: what the cooperative-matrix kernel takes. */
static const struct bn_case staged_case = {"filter copied once by the initializer", F16, .conv_bias = true,
        .bn_activation = &dml_test_relu, .folded = 1, .in_channels = 16, .channels = 16, .staged = true};

static void test_batchnorm_filter_staged_once(void **state)
{
    run_bn_case(*state, &staged_case);
}

static const struct bn_case kept_cases[] =
{
    {"the convolution's output is a graph output too", F32, .conv_bias = true, .conv_output_too = true},
    {"the convolution's output has a second reader", F32, .conv_bias = true, .second_reader = true},
    {"the convolution has a FusedActivation", F32, .conv_bias = true, .conv_activation = &dml_test_relu},
    {"Mean is bound at execution", F32, .conv_bias = true, .mean_input = true},
    {"the BATCH_NORMALIZATION reads the output as 5 channels", F32, .conv_bias = true, .reinterpreted = true},
};

static void test_batchnorm_kept(void **state)
{
    unsigned int i;

    for (i = 0; i < ARRAY_SIZE(kept_cases); ++i)
        run_bn_case(*state, &kept_cases[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_constants_folded, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_constants_no_inputs, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_constants_kept, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_batchnorm_folded, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_batchnorm_kept, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_batchnorm_filter_staged_once, dml_test_setup, dml_test_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
