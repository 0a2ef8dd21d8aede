/*
 * The graph compiler's core (docs/graph.md) through CompileGraph: a graph input feeding two nodes,
 * a node output read by a node and also a graph output, constant nodes, OWNED_BY_DML graph
 * inputs, memory reuse along a chain (the plan against its lower bound), barriers only between
 * dependent nodes, slots past 255, and VKDML_GRAPH_OPT=-memory,-barriers giving the same
 * results. Outputs are checked against C; test/dml/test_dml_graph.c covers the API's rules and
 * every family.
 */
#include <math.h>

#include "dml_graph_utils.h"
#include "vkdml.h"

#define ELEMENTS 15u

static void binary_desc(DML_ELEMENT_WISE_ADD_OPERATOR_DESC *desc, const struct dml_test_tensor *a,
        const struct dml_test_tensor *b, const struct dml_test_tensor *out)
{
    *desc = (DML_ELEMENT_WISE_ADD_OPERATOR_DESC){&a->desc, &b->desc, &out->desc};
}

static struct dml_test_binding buffer_of(struct dml_test_context *context, const float *data)
{
    return (struct dml_test_binding){dml_test_create_buffer(context, ELEMENTS * sizeof(float), data)};
}

static void read_floats(struct dml_test_context *context, const struct dml_test_binding *binding, float *values)
{
    dml_test_read_buffer(context, binding->buffer, 0, values, ELEMENTS * sizeof(float));
}

static void fill(float *values, float start, float step)
{
    UINT i;

    for (i = 0; i < ELEMENTS; ++i)
        values[i] = start + step * (float)i;
}

/* out0 = relu(a + b) + a, out1 = relu(a + b): input a feeds two nodes, the RELU's output is
 * read by a node and is a graph output. */
static void test_graph_shared_edges(void **state)
{
    struct dml_test_context *context = *state;
    DML_ACTIVATION_RELU_OPERATOR_DESC relu_desc;
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC add_desc;
    struct dml_test_binding in[2], out[2];
    float a[ELEMENTS], b[ELEMENTS], sum[ELEMENTS], relu[ELEMENTS];
    struct dml_graph_builder builder = {0};
    struct vkdml_graph_report report;
    IDMLCompiledOperator *compiled;
    struct dml_test_tensor tensor;
    UINT add1, relu_node, add2, i;

    /* The core alone: the fusing passes would merge these nodes. */
    dml_test_set_knob(context, "VKDML_GRAPH_OPT", "memory,barriers");
    dml_test_tensor_init(&tensor, DML_TENSOR_DATA_TYPE_FLOAT32, 4, (const UINT[]){1, 1, 3, 5}, NULL);
    binary_desc(&add_desc, &tensor, &tensor, &tensor);
    relu_desc = (DML_ACTIVATION_RELU_OPERATOR_DESC){&tensor.desc, &tensor.desc};
    add1 = dml_graph_add_op(context, &builder, DML_OPERATOR_ELEMENT_WISE_ADD, &add_desc);
    relu_node = dml_graph_add_op(context, &builder, DML_OPERATOR_ACTIVATION_RELU, &relu_desc);
    add2 = dml_graph_add_op(context, &builder, DML_OPERATOR_ELEMENT_WISE_ADD, &add_desc);
    dml_graph_connect_input(&builder, 0, add1, 0);
    dml_graph_connect_input(&builder, 1, add1, 1);
    dml_graph_connect(&builder, add1, 0, relu_node, 0);
    dml_graph_connect(&builder, relu_node, 0, add2, 0);
    dml_graph_connect_input(&builder, 0, add2, 1);
    dml_graph_connect_output(&builder, add2, 0, 0);
    dml_graph_connect_output(&builder, relu_node, 0, 1);
    compiled = dml_graph_compile(context, &builder, DML_EXECUTION_FLAG_NONE);

    fill(a, -3.0f, 0.5f);
    fill(b, 1.0f, -0.25f);
    in[0] = buffer_of(context, a);
    in[1] = buffer_of(context, b);
    out[0] = buffer_of(context, NULL);
    out[1] = buffer_of(context, NULL);
    dml_test_run(context, compiled, in, 2, out, 2);
    read_floats(context, &out[0], sum);
    read_floats(context, &out[1], relu);
    for (i = 0; i < ELEMENTS; ++i)
    {
        float expected = fmaxf(a[i] + b[i], 0.0f);

        assert_float_equal(relu[i], expected, 0.0f);
        assert_float_equal(sum[i], expected + a[i], 0.0f);
    }
    assert_int_equal(vkdml_get_graph_report(compiled, &report, sizeof(report)), S_OK);
    assert_int_equal(report.node_count, 3);
    /* Each dispatch reads what the one before wrote (the passes may fuse the RELU into the ADD). */
    assert_int_equal(report.barrier_count, report.dispatch_count - 1);
    assert_int_equal(IDMLCompiledOperator_Release(compiled), 0);
    dml_test_release_bindings(in, 2);
    dml_test_release_bindings(out, 2);
}

/* A chain of eight ADDs of a constant: the plan reuses two buffers, the lower bound is two. */
static void run_chain(struct dml_test_context *context, struct vkdml_graph_report *report, float *result)
{
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC add_desc;
    struct dml_graph_builder builder = {0};
    IDMLCompiledOperator *compiled;
    struct dml_test_binding in, out;
    struct dml_test_tensor tensor;
    float a[ELEMENTS], constant[ELEMENTS];
    UINT n, previous = 0, c;

    dml_test_tensor_init(&tensor, DML_TENSOR_DATA_TYPE_FLOAT32, 4, (const UINT[]){1, 1, 3, 5}, NULL);
    binary_desc(&add_desc, &tensor, &tensor, &tensor);
    fill(constant, 0.125f, 1.0f);
    for (n = 0; n < 8; ++n)
    {
        UINT node = dml_graph_add_op(context, &builder, DML_OPERATOR_ELEMENT_WISE_ADD, &add_desc);

        if (n)
            dml_graph_connect(&builder, previous, 0, node, 0);
        else
            dml_graph_connect_input(&builder, 0, node, 0);
        c = dml_graph_add_constant(&builder, constant, sizeof(constant));
        dml_graph_connect(&builder, c, 0, node, 1);
        previous = node;
    }
    dml_graph_connect_output(&builder, previous, 0, 0);
    compiled = dml_graph_compile(context, &builder, DML_EXECUTION_FLAG_NONE);
    fill(a, -1.0f, 0.5f);
    in = buffer_of(context, a);
    out = buffer_of(context, NULL);
    dml_test_run(context, compiled, &in, 1, &out, 1);
    read_floats(context, &out, result);
    assert_int_equal(vkdml_get_graph_report(compiled, report, sizeof(*report)), S_OK);
    assert_int_equal(IDMLCompiledOperator_Release(compiled), 0);
    dml_test_release_bindings(&in, 1);
    dml_test_release_bindings(&out, 1);
}

static void test_graph_chain_memory(void **state)
{
    struct dml_test_context *context = *state;
    float result[ELEMENTS], unplanned[ELEMENTS];
    struct vkdml_graph_report report;
    UINT i;

    dml_test_set_knob(context, "VKDML_GRAPH_OPT", "memory,barriers");
    run_chain(context, &report, result);
    for (i = 0; i < ELEMENTS; ++i)
        assert_float_equal(result[i], -1.0f + 0.5f * (float)i + 8 * (0.125f + (float)i), 1e-5f);
    assert_int_equal(report.constant_node_count, 8);
    assert_int_equal(report.temporary_lower_bound, 2 * DML_TEMPORARY_BUFFER_ALIGNMENT);
    assert_int_equal(report.temporary_size, report.temporary_lower_bound);
    assert_true(report.persistent_size >= 8 * ELEMENTS * sizeof(float));

    dml_test_set_knob(context, "VKDML_GRAPH_OPT", "none");
    run_chain(context, &report, unplanned);
    assert_memory_equal(result, unplanned, sizeof(result));
    assert_int_equal(report.temporary_size, 7 * DML_TEMPORARY_BUFFER_ALIGNMENT);
    assert_int_equal(report.barrier_count, 7);
}

/* Two independent branches (a + b, a * b) joined by a SUBTRACT: no barrier between the branches,
 * one before the join; b is OWNED_BY_DML (bound at initialization only). */
static void test_graph_branches_owned(void **state)
{
    struct dml_test_context *context = *state;
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC add_desc, mul_desc, sub_desc;
    struct dml_test_tensor tensor, owned;
    float a[ELEMENTS], b[ELEMENTS], result[ELEMENTS];
    struct dml_test_binding in[2], out, owned_binding;
    struct dml_graph_builder builder = {0};
    struct vkdml_graph_report report;
    IDMLCompiledOperator *compiled;
    ID3D12Resource *persistent;
    UINT add, mul, sub, i;

    dml_test_set_knob(context, "VKDML_GRAPH_OPT", "memory,barriers");
    dml_test_tensor_init(&tensor, DML_TENSOR_DATA_TYPE_FLOAT32, 4, (const UINT[]){1, 1, 3, 5}, NULL);
    dml_test_tensor_init(&owned, DML_TENSOR_DATA_TYPE_FLOAT32, 4, (const UINT[]){1, 1, 3, 5}, NULL);
    owned.buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    binary_desc(&add_desc, &tensor, &owned, &tensor);
    binary_desc(&mul_desc, &tensor, &owned, &tensor);
    binary_desc(&sub_desc, &tensor, &tensor, &tensor);
    add = dml_graph_add_op(context, &builder, DML_OPERATOR_ELEMENT_WISE_ADD, &add_desc);
    mul = dml_graph_add_op(context, &builder, DML_OPERATOR_ELEMENT_WISE_MULTIPLY, &mul_desc);
    sub = dml_graph_add_op(context, &builder, DML_OPERATOR_ELEMENT_WISE_SUBTRACT, &sub_desc);
    dml_graph_connect_input(&builder, 0, add, 0);
    dml_graph_connect_input(&builder, 1, add, 1);
    dml_graph_connect_input(&builder, 0, mul, 0);
    dml_graph_connect_input(&builder, 1, mul, 1);
    dml_graph_connect(&builder, add, 0, sub, 0);
    dml_graph_connect(&builder, mul, 0, sub, 1);
    dml_graph_connect_output(&builder, sub, 0, 0);
    compiled = dml_graph_compile(context, &builder, DML_EXECUTION_FLAG_NONE);

    fill(a, -2.0f, 0.75f);
    fill(b, 3.0f, -0.5f);
    owned_binding = buffer_of(context, b);
    in[0] = buffer_of(context, a);
    in[1] = (struct dml_test_binding){NULL};
    out = buffer_of(context, NULL);
    persistent = dml_test_initialize(context, compiled, (const struct dml_test_binding[]){{NULL}, owned_binding}, 2);
    dml_test_execute(context, compiled, persistent, in, 2, &out, 1);
    read_floats(context, &out, result);
    for (i = 0; i < ELEMENTS; ++i)
        assert_float_equal(result[i], (a[i] + b[i]) - a[i] * b[i], 1e-5f);
    assert_int_equal(vkdml_get_graph_report(compiled, &report, sizeof(report)), S_OK);
    assert_int_equal(report.barrier_count, 1);
    assert_int_equal(report.dispatch_count, 3);
    assert_int_equal(IDMLCompiledOperator_Release(compiled), 0);
    ID3D12Resource_Release(persistent);
    dml_test_release_bindings(in, 1);
    dml_test_release_bindings(&out, 1);
    dml_test_release_bindings(&owned_binding, 1);
}

/* 260 graph inputs joined, then a RELU: the temporary slot (after 261 bindings) is past 255,
 * where element-wise kernels cannot push it in their one-byte slot fields. */
static void test_graph_many_bindings(void **state)
{
    enum {INPUTS = 260, WIDTH = 4};
    struct dml_test_context *context = *state;
    static struct dml_graph_builder builder;
    static struct dml_test_binding in[INPUTS];
    static DML_TENSOR_DESC join_inputs[INPUTS];
    DML_ACTIVATION_RELU_OPERATOR_DESC relu_desc;
    static float values[INPUTS * WIDTH], result[INPUTS * WIDTH];
    struct dml_test_tensor piece, joined;
    DML_JOIN_OPERATOR_DESC join_desc;
    IDMLCompiledOperator *compiled;
    struct dml_test_binding out;
    UINT join, relu, i;

    memset(&builder, 0, sizeof(builder));
    dml_test_tensor_init(&piece, DML_TENSOR_DATA_TYPE_FLOAT32, 4, (const UINT[]){1, 1, 1, WIDTH}, NULL);
    dml_test_tensor_init(&joined, DML_TENSOR_DATA_TYPE_FLOAT32, 4, (const UINT[]){1, 1, 1, INPUTS * WIDTH}, NULL);
    for (i = 0; i < INPUTS; ++i)
        join_inputs[i] = piece.desc;
    join_desc = (DML_JOIN_OPERATOR_DESC){INPUTS, join_inputs, &joined.desc, 3};
    relu_desc = (DML_ACTIVATION_RELU_OPERATOR_DESC){&joined.desc, &joined.desc};
    join = dml_graph_add_op(context, &builder, DML_OPERATOR_JOIN, &join_desc);
    relu = dml_graph_add_op(context, &builder, DML_OPERATOR_ACTIVATION_RELU, &relu_desc);
    for (i = 0; i < INPUTS; ++i)
        dml_graph_connect_input(&builder, i, join, i);
    dml_graph_connect(&builder, join, 0, relu, 0);
    dml_graph_connect_output(&builder, relu, 0, 0);
    compiled = dml_graph_compile(context, &builder, DML_EXECUTION_FLAG_NONE);

    for (i = 0; i < INPUTS * WIDTH; ++i)
        values[i] = (float)i * (i % 3 ? 0.5f : -0.5f);
    for (i = 0; i < INPUTS; ++i)
        in[i] = (struct dml_test_binding){dml_test_create_buffer(context, WIDTH * sizeof(float), &values[i * WIDTH])};
    out = (struct dml_test_binding){dml_test_create_buffer(context, sizeof(result), NULL)};
    dml_test_run(context, compiled, in, INPUTS, &out, 1);
    dml_test_read_buffer(context, out.buffer, 0, result, sizeof(result));
    for (i = 0; i < INPUTS * WIDTH; ++i)
        assert_float_equal(result[i], fmaxf(values[i], 0.0f), 0.0f);
    assert_int_equal(IDMLCompiledOperator_Release(compiled), 0);
    dml_test_release_bindings(in, INPUTS);
    dml_test_release_bindings(&out, 1);
}

/* a = RELU(x) stays alive across a batch-1 convolution whose long reduction is split (split-K
 * sums in the temporary resource) and is read after it: the sums must not land on a's bytes. */
static void test_graph_split_k_scratch(void **state)
{
    enum {C = 128, K = 512, HW = 4, TAPS = 9};
    static const UINT ones[2] = {1, 1}, zeros[2] = {0, 0};
    struct dml_test_context *context = *state;
    static float x[C * HW * HW], filter[K * C * TAPS], conv[K * HW * HW], relu[C * HW * HW];
    struct dml_test_tensor input, weights, output;
    DML_ACTIVATION_RELU_OPERATOR_DESC relu_desc;
    DML_ELEMENT_WISE_ABS_OPERATOR_DESC abs_desc;
    DML_CONVOLUTION_OPERATOR_DESC conv_desc;
    struct dml_graph_builder builder = {0};
    struct dml_test_binding in[2], out[2];
    IDMLCompiledOperator *compiled;
    UINT a, c, b, k, i, y, xx, t;

    dml_test_tensor_init(&input, DML_TENSOR_DATA_TYPE_FLOAT32, 4, (const UINT[]){1, C, HW, HW}, NULL);
    dml_test_tensor_init(&weights, DML_TENSOR_DATA_TYPE_FLOAT32, 4, (const UINT[]){K, C, 3, 3}, NULL);
    dml_test_tensor_init(&output, DML_TENSOR_DATA_TYPE_FLOAT32, 4, (const UINT[]){1, K, HW, HW}, NULL);
    relu_desc = (DML_ACTIVATION_RELU_OPERATOR_DESC){&input.desc, &input.desc};
    abs_desc = (DML_ELEMENT_WISE_ABS_OPERATOR_DESC){&input.desc, &input.desc, NULL};
    conv_desc = (DML_CONVOLUTION_OPERATOR_DESC){&input.desc, &weights.desc, NULL, &output.desc,
            DML_CONVOLUTION_MODE_CROSS_CORRELATION, DML_CONVOLUTION_DIRECTION_FORWARD, 2, ones, ones, ones, ones,
            zeros, 1, NULL};
    a = dml_graph_add_op(context, &builder, DML_OPERATOR_ACTIVATION_RELU, &relu_desc);
    c = dml_graph_add_op(context, &builder, DML_OPERATOR_CONVOLUTION, &conv_desc);
    b = dml_graph_add_op(context, &builder, DML_OPERATOR_ELEMENT_WISE_ABS, &abs_desc);
    dml_graph_connect_input(&builder, 0, a, 0);
    dml_graph_connect(&builder, a, 0, c, 0);
    dml_graph_connect_input(&builder, 1, c, 1);
    dml_graph_connect(&builder, a, 0, b, 0);
    dml_graph_connect_output(&builder, c, 0, 0);
    dml_graph_connect_output(&builder, b, 0, 1);
    compiled = dml_graph_compile(context, &builder, DML_EXECUTION_FLAG_NONE);

    for (i = 0; i < ARRAY_SIZE(x); ++i)
        x[i] = (float)((int)(i * 7 % 13) - 6) * 0.25f;
    for (i = 0; i < ARRAY_SIZE(filter); ++i)
        filter[i] = (float)((int)(i * 5 % 11) - 5) * 0.125f;
    in[0] = (struct dml_test_binding){dml_test_create_buffer(context, sizeof(x), x)};
    in[1] = (struct dml_test_binding){dml_test_create_buffer(context, sizeof(filter), filter)};
    out[0] = (struct dml_test_binding){dml_test_create_buffer(context, sizeof(conv), NULL)};
    out[1] = (struct dml_test_binding){dml_test_create_buffer(context, sizeof(relu), NULL)};
    dml_test_run(context, compiled, in, 2, out, 2);
    dml_test_read_buffer(context, out[0].buffer, 0, conv, sizeof(conv));
    dml_test_read_buffer(context, out[1].buffer, 0, relu, sizeof(relu));
    for (i = 0; i < ARRAY_SIZE(relu); ++i)
        assert_float_equal(relu[i], fmaxf(x[i], 0.0f), 0.0f);
    for (k = 0; k < K; ++k)
    {
        for (i = 0; i < HW * HW; ++i)
        {
            double sum = 0.0;

            y = i / HW, xx = i % HW;
            for (c = 0; c < C; ++c)
            {
                for (t = 0; t < TAPS; ++t)
                {
                    int iy = (int)y + (int)(t / 3) - 1, ix = (int)xx + (int)(t % 3) - 1;

                    if (iy >= 0 && iy < HW && ix >= 0 && ix < HW)
                        sum += fmax(x[(c * HW + iy) * HW + ix], 0.0) * filter[(k * C + c) * TAPS + t];
                }
            }
            assert_float_equal(conv[k * HW * HW + i], sum, 1e-3);
        }
    }
    assert_int_equal(IDMLCompiledOperator_Release(compiled), 0);
    dml_test_release_bindings(in, 2);
    dml_test_release_bindings(out, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_graph_shared_edges, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_graph_chain_memory, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_graph_branches_owned, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_graph_many_bindings, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_graph_split_k_scratch, dml_test_setup, dml_test_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
