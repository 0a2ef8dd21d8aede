/*
 * The graph compiler's "elementwise" pass (docs/graph.md, "elementwise"): chains of element-wise
 * nodes in one dispatch. Each graph runs with the pass on and off (VKDML_GRAPH_OPT=-elementwise),
 * both checked against a C reference that evaluates the nodes one by one (integer results wrap
 * to the type after every node, as their tensors would), and the report says what was fused: a
 * transformer's bias and residual adds, ADD + RELU (an ADD1 after the activation pass) and a
 * MULTIPLY, x * sigmoid(x), GELU written out with ERF, POW, (x - mean) * scale + bias (its fourth
 * input starts a new chain: a chain has at most three), nine steps (a chain has at most eight),
 * ScaleBias and CLIP steps, INT8 and INT32 chains, a constant node as a chain input, and the
 * graphs it must leave alone: an intermediate with a second reader, one that is a graph output,
 * one read through other strides.
 */
#include <math.h>
#include <string.h>

#include "dml_graph_utils.h"
#include "vkdml.h"

#define RANK 4
#define ELEMENTS 48u
#define MAX_INPUTS 4
#define MAX_NODES 9
#define NODE_OUT(k) (16u + (k))              /* an operand: node k's output (else a graph input) */

static const UINT sizes[RANK] = {1, 1, 6, 8};
static const UINT row_broadcast[RANK] = {0, 0, 0, 1};       /* one value per column: a bias */
static const UINT column_broadcast[RANK] = {0, 0, 1, 0};    /* one value per row: a mean */
static const UINT transposed[RANK] = {48, 48, 1, 6};
static const UINT scalar[RANK] = {0, 0, 0, 0};

struct test_node
{
    DML_OPERATOR_TYPE type;
    UINT operands[2];
    const UINT *strides[2];             /* how it reads an NODE_OUT() operand; NULL: packed */
    const DML_SCALE_BIAS *scale_bias;   /* unary ELEMENT_WISE_* operators */
    float min, max;                     /* CLIP */
};

struct test_graph
{
    const char *name;
    UINT input_count;
    const UINT *input_strides[MAX_INPUTS];  /* NULL: packed */
    UINT constants;                     /* inputs given as constant nodes (bit i: input i) */
    UINT node_count;
    struct test_node nodes[MAX_NODES];
    UINT output_count;
    UINT outputs[2];                    /* nodes whose outputs are graph outputs */
    UINT fused, dispatches;             /* with the pass */
    UINT activations;                   /* activation nodes the activation pass fuses first */
};

/* A built graph's tensors (dml_test_tensor must not move once its desc is used) and descs. */
struct test_descs
{
    struct dml_test_tensor tensors[MAX_NODES][3];
    union
    {
        DML_ELEMENT_WISE_POW_OPERATOR_DESC binary;
        DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC unary;
        DML_ELEMENT_WISE_CLIP_OPERATOR_DESC clip;
    } descs[MAX_NODES];
};

static bool is_binary(DML_OPERATOR_TYPE type)
{
    return type == DML_OPERATOR_ELEMENT_WISE_ADD || type == DML_OPERATOR_ELEMENT_WISE_SUBTRACT
            || type == DML_OPERATOR_ELEMENT_WISE_MULTIPLY || type == DML_OPERATOR_ELEMENT_WISE_DIVIDE
            || type == DML_OPERATOR_ELEMENT_WISE_MAX || type == DML_OPERATOR_ELEMENT_WISE_POW;
}

static bool is_float(DML_TENSOR_DATA_TYPE type)
{
    return type == DML_TENSOR_DATA_TYPE_FLOAT32 || type == DML_TENSOR_DATA_TYPE_FLOAT16;
}

static const UINT *operand_strides(const struct test_graph *graph, const struct test_node *node, UINT i)
{
    return node->operands[i] >= NODE_OUT(0) ? node->strides[i] : graph->input_strides[node->operands[i]];
}

static void fill_desc(struct test_descs *descs, const struct test_graph *graph, UINT n, DML_TENSOR_DATA_TYPE type)
{
    const struct test_node *node = &graph->nodes[n];
    struct dml_test_tensor *t = descs->tensors[n];
    UINT i;

    /* Fields after the tensors (POW's ScaleBias) stay NULL. */
    memset(&descs->descs[n], 0, sizeof(descs->descs[n]));
    for (i = 0; i < (is_binary(node->type) ? 2u : 1u); ++i)
        dml_test_tensor_init(&t[i], type, RANK, sizes, operand_strides(graph, node, i));
    dml_test_tensor_init(&t[2], type, RANK, sizes, NULL);
    if (is_binary(node->type))
        descs->descs[n].binary = (DML_ELEMENT_WISE_POW_OPERATOR_DESC){&t[0].desc, &t[1].desc, &t[2].desc, NULL};
    else if (node->type == DML_OPERATOR_ELEMENT_WISE_CLIP)
        descs->descs[n].clip = (DML_ELEMENT_WISE_CLIP_OPERATOR_DESC){&t[0].desc, &t[2].desc, node->scale_bias,
                node->min, node->max};
    else        /* unary ELEMENT_WISE_* with their ScaleBias; the ACTIVATION_* descs end before it */
        descs->descs[n].unary = (DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC){&t[0].desc, &t[2].desc, node->scale_bias};
}

/* The graph input index of input `input`: constant nodes take none. */
static UINT binding_index(const struct test_graph *graph, UINT input)
{
    UINT i, index = 0;

    for (i = 0; i < input; ++i)
        index += !(graph->constants & (1u << i));
    return index;
}

/* The graph; `data` holds each input's bytes, which constant nodes copy. */
static IDMLCompiledOperator *build_graph(struct dml_test_context *context, const struct test_graph *graph,
        DML_TENSOR_DATA_TYPE type, struct test_descs *descs, uint8_t data[][ELEMENTS * 4], const UINT *data_size)
{
    struct dml_graph_builder builder = {0};
    UINT constants[MAX_INPUTS], n, i;

    for (n = 0; n < graph->node_count; ++n)
    {
        fill_desc(descs, graph, n, type);
        assert_int_equal(dml_graph_add_op(context, &builder, graph->nodes[n].type, &descs->descs[n]), n);
    }
    for (i = 0; i < graph->input_count; ++i)
    {
        if (graph->constants & (1u << i))
            constants[i] = dml_graph_add_constant(&builder, data[i], data_size[i]);
    }
    for (n = 0; n < graph->node_count; ++n)
    {
        const struct test_node *node = &graph->nodes[n];

        for (i = 0; i < (is_binary(node->type) ? 2u : 1u); ++i)
        {
            UINT o = node->operands[i];

            if (o >= NODE_OUT(0))
                dml_graph_connect(&builder, o - NODE_OUT(0), 0, n, i);
            else if (graph->constants & (1u << o))
                dml_graph_connect(&builder, constants[o], 0, n, i);
            else
                dml_graph_connect_input(&builder, binding_index(graph, o), n, i);
        }
    }
    for (i = 0; i < graph->output_count; ++i)
        dml_graph_connect_output(&builder, graph->outputs[i], 0, i);
    return dml_graph_compile(context, &builder, DML_EXECUTION_FLAG_NONE);
}

/* ---- Data and the reference ---- */

static UINT64 element_offset(const UINT *strides, UINT index)
{
    struct dml_test_tensor tensor;

    dml_test_tensor_init(&tensor, DML_TENSOR_DATA_TYPE_FLOAT32, RANK, sizes, strides);
    return dml_test_element_offset(&tensor, index);
}

static UINT span(const UINT *strides)
{
    return (UINT)element_offset(strides, ELEMENTS - 1) + 1;
}

/* Input `input`'s element `i` as stored: floats in [-1.25, 1.25] (FLOAT16-rounded), integers in
 * [-20, 20] but never 0 (they divide). */
static double input_value(DML_TENSOR_DATA_TYPE type, UINT input, UINT i)
{
    int v = (int)((i * 37 + input * 11) % 41) - 20;

    if (type == DML_TENSOR_DATA_TYPE_FLOAT16)
        return ref_half_to_float(ref_float_to_half((float)v / 16.0f));
    if (is_float(type))
        return (float)v / 16.0f;
    return v ? v : 7;
}

static void store(DML_TENSOR_DATA_TYPE type, void *bytes, UINT i, double value)
{
    switch (type)
    {
        case DML_TENSOR_DATA_TYPE_FLOAT32: ((float *)bytes)[i] = (float)value; break;
        case DML_TENSOR_DATA_TYPE_FLOAT16: ((uint16_t *)bytes)[i] = ref_float_to_half((float)value); break;
        case DML_TENSOR_DATA_TYPE_INT8: ((int8_t *)bytes)[i] = (int8_t)value; break;
        default: ((int32_t *)bytes)[i] = (int32_t)value; break;
    }
}

static double load(DML_TENSOR_DATA_TYPE type, const void *bytes, UINT i)
{
    switch (type)
    {
        case DML_TENSOR_DATA_TYPE_INT8: return ((const int8_t *)bytes)[i];
        case DML_TENSOR_DATA_TYPE_INT32: return ((const int32_t *)bytes)[i];
        default: return dml_test_read_float(bytes, type, i);
    }
}

/* An integer result as the type holds it (two's complement wrapping). */
static double wrap(DML_TENSOR_DATA_TYPE type, double value)
{
    int64_t v = (int64_t)value;

    return type == DML_TENSOR_DATA_TYPE_INT8 ? (double)(int8_t)(uint8_t)v : (double)(int32_t)(uint32_t)v;
}

static double apply(const struct test_node *node, DML_TENSOR_DATA_TYPE type, double a, double b)
{
    if (node->scale_bias)
        a = a * node->scale_bias->Scale + node->scale_bias->Bias;
    switch (node->type)
    {
        case DML_OPERATOR_ELEMENT_WISE_ADD: return a + b;
        case DML_OPERATOR_ELEMENT_WISE_SUBTRACT: return a - b;
        case DML_OPERATOR_ELEMENT_WISE_MULTIPLY: return a * b;
        case DML_OPERATOR_ELEMENT_WISE_DIVIDE: return is_float(type) ? a / b : trunc(a / b);
        case DML_OPERATOR_ELEMENT_WISE_MAX: return fmax(a, b);
        case DML_OPERATOR_ELEMENT_WISE_CLIP: return fmax(node->min, fmin(a, node->max));
        case DML_OPERATOR_ACTIVATION_RELU: return fmax(a, 0.0);
        case DML_OPERATOR_ELEMENT_WISE_NEGATE: return -a;
        case DML_OPERATOR_ELEMENT_WISE_ERF: return erf(a);
        case DML_OPERATOR_ELEMENT_WISE_POW: return pow(a, b);
        case DML_OPERATOR_ELEMENT_WISE_ABS: return fabs(a);
        case DML_OPERATOR_ACTIVATION_SIGMOID: return 1.0 / (1.0 + exp(-a));
        default: return a;      /* IDENTITY */
    }
}

/* Every node's output, node by node: values[n][i] is node n's (packed) element i. */
static void reference(const struct test_graph *graph, DML_TENSOR_DATA_TYPE type, double values[][ELEMENTS])
{
    UINT n, i, k;

    for (n = 0; n < graph->node_count; ++n)
    {
        const struct test_node *node = &graph->nodes[n];

        for (i = 0; i < ELEMENTS; ++i)
        {
            double x[2] = {0.0, 0.0};

            for (k = 0; k < (is_binary(node->type) ? 2u : 1u); ++k)
            {
                UINT offset = (UINT)element_offset(operand_strides(graph, node, k), i), o = node->operands[k];

                x[k] = o >= NODE_OUT(0) ? values[o - NODE_OUT(0)][offset] : input_value(type, o, offset);
            }
            values[n][i] = apply(node, type, x[0], x[1]);
            if (!is_float(type))
                values[n][i] = wrap(type, values[n][i]);
        }
    }
}

/* ---- Running a graph ---- */

static void run_graph(struct dml_test_context *context, const struct test_graph *graph, DML_TENSOR_DATA_TYPE type,
        struct vkdml_graph_report *report)
{
    UINT element_size = dml_test_element_size(type), n, i, o;
    struct dml_test_binding inputs[MAX_INPUTS] = {{0}}, outputs[2] = {{0}};
    uint8_t bytes[ELEMENTS * 4], data[MAX_INPUTS][ELEMENTS * 4];
    UINT data_size[MAX_INPUTS], binding_count = 0;
    double expected[MAX_NODES][ELEMENTS];
    IDMLCompiledOperator *compiled;
    struct test_descs descs;

    for (n = 0; n < graph->input_count; ++n)
    {
        UINT count = span(graph->input_strides[n]);

        for (i = 0; i < count; ++i)
            store(type, data[n], i, input_value(type, n, i));
        /* Bindings and constants hold whole 4-byte words. */
        data_size[n] = (count * element_size + 3) & ~3u;
        if (!(graph->constants & (1u << n)))
            inputs[binding_count++].buffer = dml_test_create_buffer(context, data_size[n], data[n]);
    }
    compiled = build_graph(context, graph, type, &descs, data, data_size);
    for (o = 0; o < graph->output_count; ++o)
        outputs[o].buffer = dml_test_create_buffer(context, ELEMENTS * element_size, NULL);
    dml_test_run(context, compiled, inputs, binding_count, outputs, graph->output_count);

    reference(graph, type, expected);
    for (o = 0; o < graph->output_count; ++o)
    {
        dml_test_read_buffer(context, outputs[o].buffer, 0, bytes, ELEMENTS * element_size);
        for (i = 0; i < ELEMENTS; ++i)
        {
            double want = expected[graph->outputs[o]][i], got = load(type, bytes, i);
            /* FLOAT16 intermediates are rounded one by one, or not at all when fused. */
            double tolerance = is_float(type) ? (type == DML_TENSOR_DATA_TYPE_FLOAT16 ? 4e-3 : 2e-6)
                    * fmax(1.0, fabs(want)) : 0.0;

            if (!(fabs(got - want) <= tolerance))
                fail_msg("%s (%s) output %u element %u: %.9g, expected %.9g.", graph->name, dml_test_type_name(type),
                        o, i, got, want);
        }
    }
    assert_int_equal(vkdml_get_graph_report(compiled, report, sizeof(*report)), S_OK);
    assert_int_equal(IDMLCompiledOperator_Release(compiled), 0);
    dml_test_release_bindings(inputs, binding_count);
    dml_test_release_bindings(outputs, graph->output_count);
}

/* The graph with the pass (what it fused, in how many dispatches) and without it. */
static void check_graph(struct dml_test_context *context, const struct test_graph *graph, DML_TENSOR_DATA_TYPE type)
{
    struct vkdml_graph_report report;

    if (dml_test_skip_float16(context, type, graph->name))
        return;
    run_graph(context, graph, type, &report);
    assert_int_equal(report.node_count, graph->node_count);
    assert_int_equal(report.dispatches_unfused, graph->node_count);
    assert_int_equal(report.fused_activations, graph->activations);
    assert_int_equal(report.fused_elementwise, graph->fused);
    assert_int_equal(report.dispatch_count, graph->dispatches);

    dml_test_set_knob(context, "VKDML_GRAPH_OPT", "-elementwise");
    run_graph(context, graph, type, &report);
    assert_int_equal(report.fused_activations, graph->activations);
    assert_int_equal(report.fused_elementwise, 0);
    assert_int_equal(report.dispatch_count, graph->node_count - graph->activations);
    dml_test_set_knob(context, "VKDML_GRAPH_OPT", NULL);
}

/* ---- The graphs ---- */

/* A transformer's bias add (the bias a constant node, broadcast along rows) and residual add:
 * one dispatch. */
static const struct test_graph bias_residual =
{
    "bias + residual", 3, {NULL, row_broadcast, NULL}, 0x2, 2,
    {
        {DML_OPERATOR_ELEMENT_WISE_ADD, {0, 1}},
        {DML_OPERATOR_ELEMENT_WISE_ADD, {NODE_OUT(0), 2}},
    },
    1, {1}, 1, 1,
};

/* ResNet's ADD + RELU, then a MULTIPLY: the activation pass makes the first two an ADD1 with
 * the RELU fused, the elementwise pass runs after it and chains that ADD1 with the MULTIPLY. */
static const struct test_graph add_relu_multiply =
{
    "add + relu, multiply", 3, {NULL, NULL, NULL}, 0, 3,
    {
        {DML_OPERATOR_ELEMENT_WISE_ADD, {0, 1}},
        {DML_OPERATOR_ACTIVATION_RELU, {NODE_OUT(0)}},
        {DML_OPERATOR_ELEMENT_WISE_MULTIPLY, {NODE_OUT(1), 2}},
    },
    1, {2}, 1, 1, 1,
};

/* x * sigmoid(x): x is one chain input, read once. */
static const struct test_graph swish =
{
    "x * sigmoid(x)", 1, {NULL}, 0, 2,
    {
        {DML_OPERATOR_ACTIVATION_SIGMOID, {0}},
        {DML_OPERATOR_ELEMENT_WISE_MULTIPLY, {0, NODE_OUT(0)}},
    },
    1, {1}, 1, 1,
};

/* (x - mean) * scale + bias: four inputs, so the last ADD stays a node of its own. */
static const struct test_graph normalize =
{
    "(x - mean) * scale + bias", 4, {NULL, column_broadcast, row_broadcast, row_broadcast}, 0, 3,
    {
        {DML_OPERATOR_ELEMENT_WISE_SUBTRACT, {0, 1}},
        {DML_OPERATOR_ELEMENT_WISE_MULTIPLY, {NODE_OUT(0), 2}},
        {DML_OPERATOR_ELEMENT_WISE_ADD, {NODE_OUT(1), 3}},
    },
    1, {2}, 1, 2,
};

static const DML_SCALE_BIAS identity_scale_bias = {2.0f, -0.5f}, clip_scale_bias = {0.5f, 0.25f};

/* ScaleBias steps, CLIP's bounds, an activation that no host took: four nodes, one dispatch. */
static const struct test_graph scale_clip_relu =
{
    "scale, clip, subtract, relu", 2, {NULL, NULL}, 0, 4,
    {
        {DML_OPERATOR_ELEMENT_WISE_IDENTITY, {0}, {NULL}, &identity_scale_bias},
        {DML_OPERATOR_ELEMENT_WISE_CLIP, {NODE_OUT(0)}, {NULL}, &clip_scale_bias, -0.4f, 0.6f},
        {DML_OPERATOR_ELEMENT_WISE_SUBTRACT, {NODE_OUT(1), 1}},
        {DML_OPERATOR_ACTIVATION_RELU, {NODE_OUT(2)}},
    },
    1, {3}, 3, 1,
};

/* Integers: a * b wraps in INT8 before the division; MAX joins a third input. */
static const struct test_graph integer_chain =
{
    "a * b / c, max", 3, {NULL, NULL, row_broadcast}, 0, 3,
    {
        {DML_OPERATOR_ELEMENT_WISE_MULTIPLY, {0, 1}},
        {DML_OPERATOR_ELEMENT_WISE_DIVIDE, {NODE_OUT(0), 2}},
        {DML_OPERATOR_ELEMENT_WISE_MAX, {NODE_OUT(1), 1}},
    },
    1, {2}, 2, 1,
};

/* GELU written out, as ONNX exports it: x * (erf(x / s) + c) * h. ERF takes the kernel's math
 * group; the fifth node would make a fourth input. */
static const struct test_graph gelu_by_erf =
{
    "gelu written out", 4, {NULL, scalar, scalar, scalar}, 0, 5,
    {
        {DML_OPERATOR_ELEMENT_WISE_DIVIDE, {0, 1}},
        {DML_OPERATOR_ELEMENT_WISE_ERF, {NODE_OUT(0)}},
        {DML_OPERATOR_ELEMENT_WISE_ADD, {NODE_OUT(1), 2}},
        {DML_OPERATOR_ELEMENT_WISE_MULTIPLY, {0, NODE_OUT(2)}},
        {DML_OPERATOR_ELEMENT_WISE_MULTIPLY, {NODE_OUT(3), 3}},
    },
    1, {4}, 3, 2,
};

static const DML_SCALE_BIAS abs_scale_bias = {0.5f, 0.25f}, offset_scale_bias = {1.0f, 0.03125f};

/* POW with an exponent tensor of the base's type, of a base kept away from 0. */
static const struct test_graph pow_chain =
{
    "|a + 1/32| ^ c - b", 3, {NULL, scalar, NULL}, 0, 3,
    {
        {DML_OPERATOR_ELEMENT_WISE_ABS, {0}, {NULL}, &offset_scale_bias},
        {DML_OPERATOR_ELEMENT_WISE_POW, {NODE_OUT(0), 1}},
        {DML_OPERATOR_ELEMENT_WISE_SUBTRACT, {NODE_OUT(1), 2}},
    },
    1, {2}, 2, 1,
};

/* Nine steps: the first eight (the bound) are one dispatch, the ninth another. */
static const struct test_graph nine_steps =
{
    "nine steps", 1, {NULL}, 0, 9,
    {
        {DML_OPERATOR_ELEMENT_WISE_NEGATE, {0}},
        {DML_OPERATOR_ELEMENT_WISE_ABS, {NODE_OUT(0)}, {NULL}, &abs_scale_bias},
        {DML_OPERATOR_ELEMENT_WISE_NEGATE, {NODE_OUT(1)}},
        {DML_OPERATOR_ELEMENT_WISE_ABS, {NODE_OUT(2)}, {NULL}, &abs_scale_bias},
        {DML_OPERATOR_ELEMENT_WISE_NEGATE, {NODE_OUT(3)}},
        {DML_OPERATOR_ELEMENT_WISE_ABS, {NODE_OUT(4)}, {NULL}, &abs_scale_bias},
        {DML_OPERATOR_ELEMENT_WISE_NEGATE, {NODE_OUT(5)}},
        {DML_OPERATOR_ELEMENT_WISE_ABS, {NODE_OUT(6)}, {NULL}, &abs_scale_bias},
        {DML_OPERATOR_ELEMENT_WISE_NEGATE, {NODE_OUT(7)}},
    },
    1, {8}, 7, 2,
};

/* The SUBTRACT's output has two readers: nothing is fused. */
static const struct test_graph second_reader =
{
    "second reader", 2, {NULL, NULL}, 0, 3,
    {
        {DML_OPERATOR_ELEMENT_WISE_SUBTRACT, {0, 1}},
        {DML_OPERATOR_ACTIVATION_RELU, {NODE_OUT(0)}},
        {DML_OPERATOR_ELEMENT_WISE_MULTIPLY, {NODE_OUT(0), 1}},
    },
    2, {1, 2}, 0, 3,
};

/* The SUBTRACT's output is also a graph output: nothing is fused. */
static const struct test_graph graph_output_between =
{
    "graph output between", 2, {NULL, NULL}, 0, 2,
    {
        {DML_OPERATOR_ELEMENT_WISE_SUBTRACT, {0, 1}},
        {DML_OPERATOR_ACTIVATION_RELU, {NODE_OUT(0)}},
    },
    2, {1, 0}, 0, 2,
};

/* The RELU reads the SUBTRACT's output transposed (same bytes, other strides): not fused. */
static const struct test_graph transposed_read =
{
    "transposed read", 2, {NULL, NULL}, 0, 2,
    {
        {DML_OPERATOR_ELEMENT_WISE_SUBTRACT, {0, 1}},
        {DML_OPERATOR_ACTIVATION_RELU, {NODE_OUT(0)}, {transposed}},
    },
    1, {1}, 0, 2,
};

static void test_chain_bias_residual(void **state)
{
    check_graph(*state, &bias_residual, DML_TENSOR_DATA_TYPE_FLOAT32);
    check_graph(*state, &bias_residual, DML_TENSOR_DATA_TYPE_FLOAT16);
}

static void test_chain_after_activation(void **state)
{
    check_graph(*state, &add_relu_multiply, DML_TENSOR_DATA_TYPE_FLOAT32);
    check_graph(*state, &add_relu_multiply, DML_TENSOR_DATA_TYPE_FLOAT16);
}

static void test_chain_swish(void **state)
{
    check_graph(*state, &swish, DML_TENSOR_DATA_TYPE_FLOAT32);
    check_graph(*state, &swish, DML_TENSOR_DATA_TYPE_FLOAT16);
}

static void test_chain_math(void **state)
{
    /* FLOAT32 only: the math group's pipelines are the costly ones on lavapipe. */
    check_graph(*state, &gelu_by_erf, DML_TENSOR_DATA_TYPE_FLOAT32);
    check_graph(*state, &pow_chain, DML_TENSOR_DATA_TYPE_FLOAT32);
}

static void test_chain_bounds(void **state)
{
    check_graph(*state, &normalize, DML_TENSOR_DATA_TYPE_FLOAT32);
    check_graph(*state, &nine_steps, DML_TENSOR_DATA_TYPE_FLOAT32);
}

static void test_chain_scale_bias_clip(void **state)
{
    check_graph(*state, &scale_clip_relu, DML_TENSOR_DATA_TYPE_FLOAT32);
    check_graph(*state, &scale_clip_relu, DML_TENSOR_DATA_TYPE_FLOAT16);
}

static void test_chain_integers(void **state)
{
    check_graph(*state, &integer_chain, DML_TENSOR_DATA_TYPE_INT8);
    check_graph(*state, &integer_chain, DML_TENSOR_DATA_TYPE_INT32);
}

static void test_chain_not_fused(void **state)
{
    check_graph(*state, &second_reader, DML_TENSOR_DATA_TYPE_FLOAT32);
    check_graph(*state, &graph_output_between, DML_TENSOR_DATA_TYPE_FLOAT32);
    check_graph(*state, &transposed_read, DML_TENSOR_DATA_TYPE_FLOAT32);
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_chain_bias_residual, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_chain_after_activation, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_chain_swish, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_chain_math, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_chain_bounds, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_chain_scale_bias_clip, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_chain_integers, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_chain_not_fused, dml_test_setup, dml_test_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
