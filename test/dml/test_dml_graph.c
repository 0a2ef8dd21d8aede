/*
 * The graph API (IDMLDevice1::CompileGraph), black-box: graph shapes (multi-input, multi-output,
 * diamonds, one graph input or node output feeding several nodes and a graph output, no graph
 * inputs, constants only), constant nodes, OWNED_BY_DML graph inputs (one initializer for two
 * graphs, two executions after one initialization), reinterpreted edges, JOIN and SPLIT with one
 * edge per array element; every optimisation of VKDML_GRAPH_OPT on and off (README, "Environment
 * variables") against the same operators run one by one, and where the passes must hold back;
 * vkdml_get_graph_report()'s counts, memory planning and barriers; the profiler, SetName,
 * GetBindingProperties, DESCRIPTORS_VOLATILE; no references kept to the graph's operators; and
 * every bad graph: E_INVALIDARG with one log line. The operator families and the ResNet and
 * transformer blocks are in test_dml_graph_families.c.
 */
#include "dml/graph_test_utils.h"

#include <math.h>

static const UINT shape[4] = {1, 1, 4, 6};

/* ---- Graph shapes ---- */

/* A diamond with two graph inputs and three graph outputs: input 0 feeds two nodes; EXP's output
 * feeds ADD and graph output 1; ADD's output feeds MULTIPLY and graph output 2. */
static void build_diamond(struct dml_test_context *context, struct graph_test *graph)
{
    static const DML_SCALE_BIAS scale_bias = {2.0f, -1.0f};
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity;
    struct dml_test_tensor t;
    UINT exp, scaled, add, mul;

    dml_test_tensor_init(&t, DML_TENSOR_DATA_TYPE_FLOAT32, 4, shape, NULL);
    identity = (DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC){&t.desc, &t.desc, &scale_bias};
    exp = graph_test_add_unary(graph, context, DML_OPERATOR_ELEMENT_WISE_EXP, "exp", &t, &t);
    scaled = graph_test_add_operator(graph, context, DML_OPERATOR_ELEMENT_WISE_IDENTITY, &identity, "scaled",
            GRAPH_TEST_TENSORS(&t.desc), GRAPH_TEST_TENSORS(&t.desc));
    add = graph_test_add_binary(graph, context, DML_OPERATOR_ELEMENT_WISE_ADD1, "add", &t, &t, &t);
    mul = graph_test_add_binary(graph, context, DML_OPERATOR_ELEMENT_WISE_MULTIPLY, "mul", &t, &t, &t);
    graph_test_input(graph, 0, exp, 0);
    graph_test_input(graph, 0, scaled, 0);
    graph_test_edge(graph, exp, 0, add, 0);
    graph_test_edge(graph, scaled, 0, add, 1);
    graph_test_edge(graph, add, 0, mul, 0);
    graph_test_input(graph, 1, mul, 1);
    graph_test_output(graph, mul, 0, 0);
    graph_test_output(graph, exp, 0, 1);
    graph_test_output(graph, add, 0, 2);
}

static void test_diamond(void **state)
{
    struct dml_test_context *context = *state;
    struct graph_test graph;

    graph_test_init(&graph);
    build_diamond(context, &graph);
    assert_int_equal(graph_test_desc(&graph)->InputCount, 2);
    assert_int_equal(graph.builder.desc.OutputCount, 3);
    graph_test_check(context, &graph, DML_EXECUTION_FLAG_NONE, NULL);
    graph_test_release(&graph);
}

/* No edge type joins a graph input to a graph output (DML_GRAPH_DESC: output edges start at a
 * node): an IDENTITY node does, and its output is a copy in the output's own buffer even where
 * `alias` turns IDENTITY nodes into aliases. A graph output without an edge is a bad graph
 * (test_bad_outputs). */
static void test_output_from_input(void **state)
{
    struct dml_test_context *context = *state;
    struct graph_test_outputs outputs;
    IDMLCompiledOperator *compiled;
    struct dml_test_tensor t;
    struct graph_test graph;
    UINT node;

    graph_test_init(&graph);
    dml_test_tensor_init(&t, DML_TENSOR_DATA_TYPE_FLOAT32, 4, shape, NULL);
    node = graph_test_add_unary(&graph, context, DML_OPERATOR_ELEMENT_WISE_IDENTITY, "copy", &t, &t);
    graph_test_input(&graph, 0, node, 0);
    graph_test_output(&graph, node, 0, 0);
    compiled = graph_test_compile(context, &graph, DML_EXECUTION_FLAG_NONE);
    graph_test_run_compiled(context, &graph, compiled, &outputs);
    assert_memory_equal(outputs.bytes[0], graph.input_bytes[0], t.buffer.TotalTensorSizeInBytes);
    graph_test_outputs_cleanup(&outputs);
    release_last(compiled);
    graph_test_release(&graph);
}

/* Constant nodes (FL 6_2): one feeds two nodes, two feed a subgraph of constants only; the data is
 * read at CompileGraph, so overwriting it afterwards changes nothing. */
static void test_constant_nodes(void **state)
{
    struct dml_test_context *context = *state;
    struct graph_test_outputs outputs, reference;
    struct vkdml_graph_report report;
    IDMLCompiledOperator *compiled;
    float c0[24], c1[24];
    struct dml_test_tensor t;
    struct graph_test graph;
    UINT k0, k1, mul, add, scale;
    unsigned int i;

    for (i = 0; i < 24; ++i)
    {
        c0[i] = 0.25f * i - 3.0f;
        c1[i] = 1.0f / (i + 1);
    }
    graph_test_init(&graph);
    dml_test_tensor_init(&t, DML_TENSOR_DATA_TYPE_FLOAT32, 4, shape, NULL);
    mul = graph_test_add_binary(&graph, context, DML_OPERATOR_ELEMENT_WISE_MULTIPLY, "const_mul", &t, &t, &t);
    add = graph_test_add_binary(&graph, context, DML_OPERATOR_ELEMENT_WISE_ADD, "add", &t, &t, &t);
    scale = graph_test_add_binary(&graph, context, DML_OPERATOR_ELEMENT_WISE_MULTIPLY, "scale", &t, &t, &t);
    /* DirectMLX's order: operator nodes first, then constants. */
    k0 = graph_test_add_constant(&graph, c0, sizeof(c0), "c0");
    k1 = graph_test_add_constant(&graph, c1, sizeof(c1), "c1");
    graph_test_edge(&graph, k0, 0, mul, 0);
    graph_test_edge(&graph, k1, 0, mul, 1);
    graph_test_input(&graph, 0, add, 0);
    graph_test_edge(&graph, mul, 0, add, 1);
    graph_test_edge(&graph, add, 0, scale, 0);
    graph_test_edge(&graph, k0, 0, scale, 1);
    graph_test_output(&graph, scale, 0, 0);

    graph_test_run_unfused(context, &graph, &reference);
    compiled = graph_test_compile(context, &graph, DML_EXECUTION_FLAG_NONE);
    memset(c0, 0xcc, sizeof(c0));
    memset(c1, 0xcc, sizeof(c1));
    check_hr(vkdml_get_graph_report(compiled, &report, sizeof(report)), S_OK);
    assert_int_equal(report.node_count, 3);
    assert_int_equal(report.constant_node_count, 2);
    /* `constants` (on by default) evaluates const_mul once, in the initializer. */
    assert_true(report.folded_nodes >= 1);
    assert_true(report.dispatch_count < report.dispatches_unfused);
    graph_test_run_compiled(context, &graph, compiled, &outputs);
    graph_test_compare(&outputs, &reference, -1.0);
    graph_test_outputs_cleanup(&outputs);
    graph_test_outputs_cleanup(&reference);
    release_last(compiled);
    graph_test_release(&graph);
}

/* A CONVOLUTION whose filter and bias are OWNED_BY_DML graph inputs 1 and 2, bound only to the
 * initializer (graph_test_run_compiled overwrites them before executing). */
static void build_owned_conv(struct dml_test_context *context, struct graph_test *graph,
        const DML_OPERATOR_DESC *activation)
{
    static const UINT input_sizes[4] = {1, 2, 5, 5}, filter_sizes[4] = {3, 2, 3, 3}, bias_sizes[4] = {1, 3, 1, 1};
    static const UINT output_sizes[4] = {1, 3, 5, 5};
    struct dml_test_tensor input, filter, bias, output;
    UINT conv, relu;

    dml_test_tensor_init(&input, DML_TENSOR_DATA_TYPE_FLOAT32, 4, input_sizes, NULL);
    dml_test_tensor_init(&filter, DML_TENSOR_DATA_TYPE_FLOAT32, 4, filter_sizes, NULL);
    dml_test_tensor_init(&bias, DML_TENSOR_DATA_TYPE_FLOAT32, 4, bias_sizes, NULL);
    dml_test_tensor_init(&output, DML_TENSOR_DATA_TYPE_FLOAT32, 4, output_sizes, NULL);
    filter.buffer.Flags = bias.buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    conv = graph_test_add_conv(graph, context, "conv", &input, &filter, &bias, &output, 1, activation);
    graph_test_input(graph, 0, conv, 0);
    graph_test_input(graph, 1, conv, 1);
    graph_test_input(graph, 2, conv, 2);
    if (activation)
    {
        graph_test_output(graph, conv, 0, 0);
        return;
    }
    relu = graph_test_add_unary(graph, context, DML_OPERATOR_ACTIVATION_RELU, "relu", &output, &output);
    graph_test_edge(graph, conv, 0, relu, 0);
    graph_test_output(graph, relu, 0, 0);
}

static void test_owned_by_dml_inputs(void **state)
{
    struct dml_test_context *context = *state;
    DML_BINDING_PROPERTIES properties;
    IDMLCompiledOperator *compiled;
    struct graph_test graph;

    graph_test_init(&graph);
    build_owned_conv(context, &graph, NULL);
    compiled = graph_test_compile(context, &graph, DML_EXECUTION_FLAG_NONE);
    /* The weights outlive their upload buffers: they are in the persistent resource. */
    properties = IDMLDispatchable_GetBindingPropertiesByValue((IDMLDispatchable *)compiled);
    assert_true(properties.PersistentResourceSize >= (3 * 2 * 3 * 3 + 3) * sizeof(float));
    release_last(compiled);
    graph_test_check(context, &graph, DML_EXECUTION_FLAG_NONE, NULL);
    graph_test_release(&graph);
}

/* One initializer for two compiled graphs: its input bindings are one array per target, each in
 * that graph's input order (docs/design.md, "Descriptor model"), its outputs each graph's
 * persistent resource. Each graph then gives the unfused run's results. */
static void test_shared_initializer(void **state)
{
    struct dml_test_context *context = *state;
    DML_BUFFER_BINDING owned[2][3], persistent_buffers[2];
    DML_BINDING_DESC input_descs[2], output_descs[2];
    struct graph_test_outputs outputs, reference[2];
    struct dml_test_binding results[1] = {{NULL}};
    IDMLOperatorInitializer *initializer;
    IDMLCompiledOperator *compiled[2];
    ID3D12Resource *persistent[2], *temporary;
    DML_BUFFER_ARRAY_BINDING arrays[2];
    DML_BINDING_PROPERTIES properties;
    struct graph_test graphs[2];
    IDMLBindingTable *table;
    float filter[54];
    UINT i, j;

    /* The second graph's filter differs from the first's, so swapped weights would show. */
    for (i = 0; i < ARRAY_SIZE(filter); ++i)
        filter[i] = 0.01f * i - 0.25f;
    for (i = 0; i < 2; ++i)
    {
        graph_test_init(&graphs[i]);
        build_owned_conv(context, &graphs[i], i ? &dml_test_relu : NULL);
        graphs[i].data[1] = i ? filter : NULL;
        graph_test_run_unfused(context, &graphs[i], &reference[i]);
        compiled[i] = graph_test_compile(context, &graphs[i], DML_EXECUTION_FLAG_NONE);
        for (j = 0; j < 3; ++j)
        {
            owned[i][j] = (DML_BUFFER_BINDING){graphs[i].owned_buffers[j].buffer, 0,
                    j ? graphs[i].input_tensors[j].bytes : 0};
        }
        arrays[i] = (DML_BUFFER_ARRAY_BINDING){3, owned[i]};
        input_descs[i] = (DML_BINDING_DESC){DML_BINDING_TYPE_BUFFER_ARRAY, &arrays[i]};
        properties = IDMLDispatchable_GetBindingPropertiesByValue((IDMLDispatchable *)compiled[i]);
        assert_true(properties.PersistentResourceSize > 0);
        persistent[i] = dml_test_create_buffer(context, properties.PersistentResourceSize, NULL);
        persistent_buffers[i] = (DML_BUFFER_BINDING){persistent[i], 0, properties.PersistentResourceSize};
        output_descs[i] = (DML_BINDING_DESC){DML_BINDING_TYPE_BUFFER, &persistent_buffers[i]};
    }
    check_hr(IDMLDevice_CreateOperatorInitializer(context->dml, 2, compiled, &IID_IDMLOperatorInitializer,
            (void **)&initializer), S_OK);
    table = dml_test_create_table(context, initializer);
    temporary = dml_test_bind_temporary(context, table, initializer);
    IDMLBindingTable_BindInputs(table, 2, input_descs);
    IDMLBindingTable_BindOutputs(table, 2, output_descs);
    ID3D12GraphicsCommandList_SetDescriptorHeaps(context->d3d.list, 1, &context->heap);
    IDMLCommandRecorder_RecordDispatch(context->recorder, (ID3D12CommandList *)context->d3d.list,
            (IDMLDispatchable *)initializer, table);
    execute_and_wait(&context->d3d);
    check_hr(IDMLDevice_GetDeviceRemovedReason(context->dml), S_OK);
    release_last(table);
    release_last(initializer);
    if (temporary)
        release_last(temporary);

    for (i = 0; i < 2; ++i)
    {
        results[0].buffer = dml_test_create_buffer(context, reference[i].tensors[0].bytes, NULL);
        dml_test_execute(context, compiled[i], persistent[i], graphs[i].input_buffers, 3, results, 1);
        outputs = (struct graph_test_outputs){1, {malloc(reference[i].tensors[0].bytes)}, {reference[i].tensors[0]}};
        assert_non_null(outputs.bytes[0]);
        dml_test_read_buffer(context, results[0].buffer, 0, outputs.bytes[0], reference[i].tensors[0].bytes);
        graph_test_compare(&outputs, &reference[i], -1.0);
        graph_test_outputs_cleanup(&outputs);
        graph_test_outputs_cleanup(&reference[i]);
        dml_test_release_bindings(results, 1);
        release_last(persistent[i]);
        release_last(compiled[i]);
        graph_test_release(&graphs[i]);
    }
}

/* Connected tensors of other sizes, rank and type but the same TotalTensorSizeInBytes: the bytes
 * are reinterpreted. A {1,1,4,6} FLOAT32 result is read as {8,3} by REDUCE and as {24} UINT32 bits. */
static void test_reinterpreted_edges(void **state)
{
    static const UINT matrix[2] = {8, 3}, row_sums[2] = {8, 1}, flat[1] = {24};
    static const DML_SCALE_BIAS scale_bias = {2.0f, 0.5f};
    struct dml_test_context *context = *state;
    struct dml_test_tensor t, m, sums, bits;
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity;
    DML_REDUCE_OPERATOR_DESC reduce;
    struct graph_test graph;
    UINT scaled, sum, copy, axis = 1;

    graph_test_init(&graph);
    dml_test_tensor_init(&t, DML_TENSOR_DATA_TYPE_FLOAT32, 4, shape, NULL);
    dml_test_tensor_init(&m, DML_TENSOR_DATA_TYPE_FLOAT32, 2, matrix, NULL);
    dml_test_tensor_init(&sums, DML_TENSOR_DATA_TYPE_FLOAT32, 2, row_sums, NULL);
    dml_test_tensor_init(&bits, DML_TENSOR_DATA_TYPE_UINT32, 1, flat, NULL);
    identity = (DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC){&t.desc, &t.desc, &scale_bias};
    scaled = graph_test_add_operator(&graph, context, DML_OPERATOR_ELEMENT_WISE_IDENTITY, &identity, "scaled",
            GRAPH_TEST_TENSORS(&t.desc), GRAPH_TEST_TENSORS(&t.desc));
    reduce = (DML_REDUCE_OPERATOR_DESC){DML_REDUCE_FUNCTION_SUM, &m.desc, &sums.desc, 1, &axis};
    sum = graph_test_add_operator(&graph, context, DML_OPERATOR_REDUCE, &reduce, "row_sums",
            GRAPH_TEST_TENSORS(&m.desc), GRAPH_TEST_TENSORS(&sums.desc));
    copy = graph_test_add_unary(&graph, context, DML_OPERATOR_ELEMENT_WISE_IDENTITY, "bits", &bits, &bits);
    graph_test_input(&graph, 0, scaled, 0);
    graph_test_edge(&graph, scaled, 0, sum, 0);
    graph_test_edge(&graph, scaled, 0, copy, 0);
    graph_test_output(&graph, sum, 0, 0);
    graph_test_output(&graph, copy, 0, 1);
    graph_test_check(context, &graph, DML_EXECUTION_FLAG_NONE, NULL);
    graph_test_release(&graph);
}

/* SPLIT's outputs and JOIN's inputs take one edge index per array element (docs/graph.md,
 * "Rules"): JOIN(SPLIT[2], EXP(SPLIT[1]), graph input 1, SPLIT[0]) along axis 2. */
static void test_join_split_arrays(void **state)
{
    static const UINT part_sizes[4] = {1, 1, 2, 6}, joined_sizes[4] = {1, 1, 8, 6};
    struct dml_test_context *context = *state;
    DML_TENSOR_DESC parts[4];
    DML_SPLIT_OPERATOR_DESC split;
    DML_JOIN_OPERATOR_DESC join;
    struct dml_test_tensor t, part, joined;
    struct graph_test graph;
    UINT split_node, exp, join_node;

    graph_test_init(&graph);
    dml_test_tensor_init(&t, DML_TENSOR_DATA_TYPE_FLOAT32, 4, (const UINT[]){1, 1, 6, 6}, NULL);
    dml_test_tensor_init(&part, DML_TENSOR_DATA_TYPE_FLOAT32, 4, part_sizes, NULL);
    dml_test_tensor_init(&joined, DML_TENSOR_DATA_TYPE_FLOAT32, 4, joined_sizes, NULL);
    parts[0] = parts[1] = parts[2] = parts[3] = part.desc;
    split = (DML_SPLIT_OPERATOR_DESC){&t.desc, 3, parts, 2};
    split_node = graph_test_add_operator(&graph, context, DML_OPERATOR_SPLIT, &split, "split",
            GRAPH_TEST_TENSORS(&t.desc), GRAPH_TEST_TENSORS(&parts[0], &parts[1], &parts[2]));
    exp = graph_test_add_unary(&graph, context, DML_OPERATOR_ELEMENT_WISE_EXP, "exp", &part, &part);
    join = (DML_JOIN_OPERATOR_DESC){4, parts, &joined.desc, 2};
    join_node = graph_test_add_operator(&graph, context, DML_OPERATOR_JOIN, &join, "join",
            GRAPH_TEST_TENSORS(&parts[0], &parts[1], &parts[2], &parts[3]), GRAPH_TEST_TENSORS(&joined.desc));
    graph_test_input(&graph, 0, split_node, 0);
    graph_test_edge(&graph, split_node, 1, exp, 0);
    graph_test_edge(&graph, split_node, 2, join_node, 0);
    graph_test_edge(&graph, exp, 0, join_node, 1);
    graph_test_input(&graph, 1, join_node, 2);
    graph_test_edge(&graph, split_node, 0, join_node, 3);
    graph_test_output(&graph, join_node, 0, 0);
    graph_test_check(context, &graph, DML_EXECUTION_FLAG_NONE, NULL);
    graph_test_release(&graph);
}

/* Graphs at the edges of what DML_GRAPH_DESC allows: no graph inputs at all (a generator), every
 * operator fed only by constants (whatever `constants` computes at initialization still reaches
 * the output binding at each execution), one node output as two graph outputs, and one
 * IDMLOperator in two nodes. */
static void test_unusual_graphs(void **state)
{
    struct dml_test_context *context = *state;
    DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC sequence;
    struct dml_test_tensor t;
    struct graph_test graph;
    float c0[24], c1[24];
    UINT node, k0, k1, exp;
    unsigned int i;

    dml_test_tensor_init(&t, DML_TENSOR_DATA_TYPE_FLOAT32, 4, shape, NULL);
    graph_test_init(&graph);
    sequence = (DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC){&t.desc, DML_TENSOR_DATA_TYPE_FLOAT32, {.Float32 = -1.0f},
            {.Float32 = 0.125f}};
    node = graph_test_add_operator(&graph, context, DML_OPERATOR_FILL_VALUE_SEQUENCE, &sequence, "sequence",
            NULL, 0, GRAPH_TEST_TENSORS(&t.desc));
    exp = graph_test_add_unary(&graph, context, DML_OPERATOR_ELEMENT_WISE_EXP, "exp", &t, &t);
    graph_test_edge(&graph, node, 0, exp, 0);
    graph_test_output(&graph, exp, 0, 0);
    assert_int_equal(graph_test_desc(&graph)->InputCount, 0);
    graph_test_check(context, &graph, DML_EXECUTION_FLAG_NONE, NULL);
    graph_test_release(&graph);

    for (i = 0; i < 24; ++i)
    {
        c0[i] = 0.5f * i;
        c1[i] = 2.0f - 0.1f * i;
    }
    graph_test_init(&graph);
    node = graph_test_add_binary(&graph, context, DML_OPERATOR_ELEMENT_WISE_ADD, "add", &t, &t, &t);
    exp = graph_test_add_unary(&graph, context, DML_OPERATOR_ELEMENT_WISE_EXP, "exp", &t, &t);
    k0 = graph_test_add_constant(&graph, c0, sizeof(c0), "c0");
    k1 = graph_test_add_constant(&graph, c1, sizeof(c1), "c1");
    graph_test_edge(&graph, k0, 0, node, 0);
    graph_test_edge(&graph, k1, 0, node, 1);
    graph_test_edge(&graph, node, 0, exp, 0);
    graph_test_output(&graph, exp, 0, 0);
    graph_test_check(context, &graph, DML_EXECUTION_FLAG_NONE, NULL);
    graph_test_release(&graph);

    /* One node output feeding two graph outputs: DML_GRAPH_DESC allows it (one edge per graph
     * output, any node output); the second is a copy of the first (docs/graph.md). */
    graph_test_init(&graph);
    exp = graph_test_add_unary(&graph, context, DML_OPERATOR_ELEMENT_WISE_EXP, "exp", &t, &t);
    graph_test_input(&graph, 0, exp, 0);
    graph_test_output(&graph, exp, 0, 0);
    graph_test_output(&graph, exp, 0, 1);
    graph_test_check(context, &graph, DML_EXECUTION_FLAG_NONE, NULL);
    graph_test_release(&graph);

    /* Nodes 0 and 1 share node 0's operator; node 1's own is not in the graph. */
    graph_test_init(&graph);
    exp = graph_test_add_unary(&graph, context, DML_OPERATOR_ELEMENT_WISE_EXP, "exp", &t, &t);
    node = graph_test_add_unary(&graph, context, DML_OPERATOR_ELEMENT_WISE_EXP, "exp again", &t, &t);
    graph.builder.op_nodes[node].Operator = graph.builder.ops[exp];
    graph_test_input(&graph, 0, exp, 0);
    graph_test_edge(&graph, exp, 0, node, 0);
    graph_test_output(&graph, node, 0, 0);
    graph_test_check(context, &graph, DML_EXECUTION_FLAG_NONE, NULL);
    graph_test_release(&graph);
}

/* ---- Optimisations (VKDML_GRAPH_OPT) ---- */

/* Every optimisation has something to do here (graph inputs: 0 x, 1-2 conv filter and bias and
 * 3-6 batch norm mean, variance, scale, bias, all OWNED_BY_DML, 7 y; constants c0 and c1):
 *   conv -> bn -> relu -> view (IDENTITY) -> add(view, c0 * c1) -> mul(., y) -> sigmoid -> join[0]
 *   relu -> scaled (IDENTITY x 0.5 + 1) -> join[1]; join (channels) -> output 0 */
struct opt_graph
{
    float c0[64], c1[64], variance[4];
};

static void build_opt_graph(struct dml_test_context *context, struct graph_test *graph, struct opt_graph *data)
{
    static const UINT x_sizes[4] = {1, 2, 4, 4}, filter_sizes[4] = {4, 2, 3, 3}, channel_sizes[4] = {1, 4, 1, 1};
    static const UINT y_sizes[4] = {1, 4, 4, 4}, joined_sizes[4] = {1, 8, 4, 4};
    static const DML_SCALE_BIAS scale_bias = {0.5f, 1.0f};
    struct dml_test_tensor x, filter, bias, channel, y, joined;
    const struct dml_test_tensor *parameters[4] = {&channel, &channel, &channel, &channel};
    UINT conv, bn, relu, view, k0, k1, consts, add, mul, sigmoid, scaled, join_node, i;
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity;
    DML_TENSOR_DESC parts[2];
    DML_JOIN_OPERATOR_DESC join;

    for (i = 0; i < 64; ++i)
    {
        data->c0[i] = 0.03f * i - 1.0f;
        data->c1[i] = 0.5f + 0.01f * i;
    }
    for (i = 0; i < 4; ++i)
        data->variance[i] = 0.5f + 0.25f * i;
    dml_test_tensor_init(&x, DML_TENSOR_DATA_TYPE_FLOAT32, 4, x_sizes, NULL);
    dml_test_tensor_init(&filter, DML_TENSOR_DATA_TYPE_FLOAT32, 4, filter_sizes, NULL);
    dml_test_tensor_init(&bias, DML_TENSOR_DATA_TYPE_FLOAT32, 4, channel_sizes, NULL);
    dml_test_tensor_init(&channel, DML_TENSOR_DATA_TYPE_FLOAT32, 4, channel_sizes, NULL);
    dml_test_tensor_init(&y, DML_TENSOR_DATA_TYPE_FLOAT32, 4, y_sizes, NULL);
    dml_test_tensor_init(&joined, DML_TENSOR_DATA_TYPE_FLOAT32, 4, joined_sizes, NULL);
    filter.buffer.Flags = bias.buffer.Flags = channel.buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;

    conv = graph_test_add_conv(graph, context, "conv", &x, &filter, &bias, &y, 1, NULL);
    bn = graph_test_add_batch_norm(graph, context, "bn", &y, parameters, &y, NULL);
    relu = graph_test_add_unary(graph, context, DML_OPERATOR_ACTIVATION_RELU, "relu", &y, &y);
    view = graph_test_add_unary(graph, context, DML_OPERATOR_ELEMENT_WISE_IDENTITY, "view", &y, &y);
    consts = graph_test_add_binary(graph, context, DML_OPERATOR_ELEMENT_WISE_MULTIPLY, "consts", &y, &y, &y);
    add = graph_test_add_binary(graph, context, DML_OPERATOR_ELEMENT_WISE_ADD, "add", &y, &y, &y);
    mul = graph_test_add_binary(graph, context, DML_OPERATOR_ELEMENT_WISE_MULTIPLY, "mul", &y, &y, &y);
    sigmoid = graph_test_add_unary(graph, context, DML_OPERATOR_ACTIVATION_SIGMOID, "sigmoid", &y, &y);
    identity = (DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC){&y.desc, &y.desc, &scale_bias};
    scaled = graph_test_add_operator(graph, context, DML_OPERATOR_ELEMENT_WISE_IDENTITY, &identity, "scaled",
            GRAPH_TEST_TENSORS(&y.desc), GRAPH_TEST_TENSORS(&y.desc));
    parts[0] = parts[1] = y.desc;
    join = (DML_JOIN_OPERATOR_DESC){2, parts, &joined.desc, 1};
    join_node = graph_test_add_operator(graph, context, DML_OPERATOR_JOIN, &join, "join",
            GRAPH_TEST_TENSORS(&parts[0], &parts[1]), GRAPH_TEST_TENSORS(&joined.desc));
    k0 = graph_test_add_constant(graph, data->c0, sizeof(data->c0), "c0");
    k1 = graph_test_add_constant(graph, data->c1, sizeof(data->c1), "c1");

    graph_test_input(graph, 0, conv, 0);
    graph_test_input(graph, 1, conv, 1);
    graph_test_input(graph, 2, conv, 2);
    for (i = 0; i < 4; ++i)
        graph_test_input(graph, 3 + i, bn, 1 + i);
    graph->data[4] = data->variance;
    graph_test_edge(graph, conv, 0, bn, 0);
    graph_test_edge(graph, bn, 0, relu, 0);
    graph_test_edge(graph, relu, 0, view, 0);
    graph_test_edge(graph, k0, 0, consts, 0);
    graph_test_edge(graph, k1, 0, consts, 1);
    graph_test_edge(graph, view, 0, add, 0);
    graph_test_edge(graph, consts, 0, add, 1);
    graph_test_edge(graph, add, 0, mul, 0);
    graph_test_input(graph, 7, mul, 1);
    graph_test_edge(graph, mul, 0, sigmoid, 0);
    graph_test_edge(graph, relu, 0, scaled, 0);
    graph_test_edge(graph, sigmoid, 0, join_node, 0);
    graph_test_edge(graph, scaled, 0, join_node, 1);
    graph_test_output(graph, join_node, 0, 0);
}

/* One initialization, two executions on different inputs: what the initializer wrote (weights,
 * folded constants and batch norms) survives the first execution, and the second reads its own
 * inputs; both equal the unfused run on the same inputs. */
static void test_execute_twice(void **state)
{
    struct dml_test_context *context = *state;
    struct dml_test_binding outputs[1] = {{NULL}};
    struct graph_test_outputs result = {1}, reference;
    IDMLCompiledOperator *compiled;
    ID3D12Resource *persistent;
    struct graph_test graph;
    struct opt_graph data;
    float x[32];
    unsigned int i;

    graph_test_init(&graph);
    build_opt_graph(context, &graph, &data);
    compiled = graph_test_compile(context, &graph, DML_EXECUTION_FLAG_NONE);
    persistent = graph_test_initialize(context, &graph, compiled);
    result.tensors[0] = (struct graph_test_tensor){8 * 16 * sizeof(float), DML_TENSOR_DATA_TYPE_FLOAT32};
    outputs[0].buffer = dml_test_create_buffer(context, result.tensors[0].bytes, NULL);
    dml_test_execute(context, compiled, persistent, graph.input_buffers, graph.builder.desc.InputCount, outputs, 1);

    for (i = 0; i < ARRAY_SIZE(x); ++i)
        x[i] = 0.0625f * i - 1.0f;
    memcpy(graph.input_bytes[0], x, sizeof(x));
    dml_test_write_buffer(context, graph.input_buffers[0].buffer, 0, x, sizeof(x));
    dml_test_execute(context, compiled, persistent, graph.input_buffers, graph.builder.desc.InputCount, outputs, 1);
    result.bytes[0] = malloc(result.tensors[0].bytes);
    assert_non_null(result.bytes[0]);
    dml_test_read_buffer(context, outputs[0].buffer, 0, result.bytes[0], result.tensors[0].bytes);

    graph_test_run_unfused(context, &graph, &reference);
    graph_test_compare(&result, &reference, -1.0);
    graph_test_outputs_cleanup(&result);
    graph_test_outputs_cleanup(&reference);
    dml_test_release_bindings(outputs, 1);
    if (persistent)
        release_last(persistent);
    release_last(compiled);
    graph_test_release(&graph);
}

/* Where a pass must hold back (the graph compiled with every pass on, against the unfused run):
 * - a BATCH_NORMALIZATION after a convolution that has a FusedActivation (the norm comes after it);
 * - a convolution whose output is also a graph output, followed by a batch norm, and one followed
 *   by a RELU (folding or fusing would change the graph output);
 * - an element-wise chain whose first node's output is a graph output and a JOIN input too. */
static float hazard_variance[4] = {0.5f, 1.0f, 1.5f, 2.0f};

static void build_fusion_hazards(struct dml_test_context *context, struct graph_test *graph)
{
    static const UINT x_sizes[4] = {1, 2, 4, 4}, filter_sizes[4] = {4, 2, 3, 3}, channel_sizes[4] = {1, 4, 1, 1};
    static const UINT y_sizes[4] = {1, 4, 4, 4}, joined_sizes[4] = {1, 8, 4, 4};
    struct dml_test_tensor x, filter, bias, channel, y, joined;
    const struct dml_test_tensor *parameters[4] = {&channel, &channel, &channel, &channel};
    UINT conv[3], bn[2], relu, add, exp, mul, join_node, i, j;
    DML_TENSOR_DESC parts[2];
    DML_JOIN_OPERATOR_DESC join;

    dml_test_tensor_init(&x, DML_TENSOR_DATA_TYPE_FLOAT32, 4, x_sizes, NULL);
    dml_test_tensor_init(&filter, DML_TENSOR_DATA_TYPE_FLOAT32, 4, filter_sizes, NULL);
    dml_test_tensor_init(&bias, DML_TENSOR_DATA_TYPE_FLOAT32, 4, channel_sizes, NULL);
    dml_test_tensor_init(&channel, DML_TENSOR_DATA_TYPE_FLOAT32, 4, channel_sizes, NULL);
    dml_test_tensor_init(&y, DML_TENSOR_DATA_TYPE_FLOAT32, 4, y_sizes, NULL);
    dml_test_tensor_init(&joined, DML_TENSOR_DATA_TYPE_FLOAT32, 4, joined_sizes, NULL);
    filter.buffer.Flags = bias.buffer.Flags = channel.buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;

    for (i = 0; i < 3; ++i)
    {
        conv[i] = graph_test_add_conv(graph, context, (const char *[]){"conv_relu", "conv_out", "conv_out2"}[i], &x,
                &filter, &bias, &y, 1, i ? NULL : &dml_test_relu);
        graph_test_input(graph, 0, conv[i], 0);
        graph_test_input(graph, 1, conv[i], 1);
        graph_test_input(graph, 2, conv[i], 2);
    }
    for (i = 0; i < 2; ++i)
    {
        bn[i] = graph_test_add_batch_norm(graph, context, i ? "bn_after_output" : "bn_after_relu", &y, parameters,
                &y, NULL);
        graph_test_edge(graph, conv[i], 0, bn[i], 0);
        for (j = 0; j < 4; ++j)
            graph_test_input(graph, 3 + j, bn[i], 1 + j);
        graph_test_output(graph, bn[i], 0, i);
    }
    graph->data[4] = hazard_variance;
    graph_test_output(graph, conv[1], 0, 2);
    relu = graph_test_add_unary(graph, context, DML_OPERATOR_ACTIVATION_RELU, "relu_after_output", &y, &y);
    graph_test_edge(graph, conv[2], 0, relu, 0);
    graph_test_output(graph, relu, 0, 3);
    graph_test_output(graph, conv[2], 0, 4);

    add = graph_test_add_binary(graph, context, DML_OPERATOR_ELEMENT_WISE_ADD, "add", &y, &y, &y);
    exp = graph_test_add_unary(graph, context, DML_OPERATOR_ELEMENT_WISE_EXP, "exp", &y, &y);
    mul = graph_test_add_binary(graph, context, DML_OPERATOR_ELEMENT_WISE_MULTIPLY, "mul", &y, &y, &y);
    parts[0] = parts[1] = y.desc;
    join = (DML_JOIN_OPERATOR_DESC){2, parts, &joined.desc, 1};
    join_node = graph_test_add_operator(graph, context, DML_OPERATOR_JOIN, &join, "join",
            GRAPH_TEST_TENSORS(&parts[0], &parts[1]), GRAPH_TEST_TENSORS(&joined.desc));
    graph_test_input(graph, 7, add, 0);
    graph_test_input(graph, 8, add, 1);
    graph_test_edge(graph, add, 0, exp, 0);
    graph_test_edge(graph, exp, 0, mul, 0);
    graph_test_input(graph, 7, mul, 1);
    graph_test_output(graph, add, 0, 5);
    graph_test_output(graph, mul, 0, 6);
    graph_test_edge(graph, add, 0, join_node, 0);
    graph_test_edge(graph, exp, 0, join_node, 1);
    graph_test_output(graph, join_node, 0, 7);
}

static void test_fusion_hazards(void **state)
{
    struct dml_test_context *context = *state;
    struct graph_test graph;

    graph_test_init(&graph);
    build_fusion_hazards(context, &graph);
    graph_test_check(context, &graph, DML_EXECUTION_FLAG_NONE, NULL);
    graph_test_release(&graph);
}

/* What one pass alone must have done to the graph above. */
static void check_pass_report(const char *pass, const struct vkdml_graph_report *report)
{
    if (!strcmp(pass, "activation"))
        assert_true(report->fused_activations >= 1);
    if (!strcmp(pass, "elementwise"))
        assert_true(report->fused_elementwise >= 1);
    /* The graph is FLOAT32, whose convolutions keep their normalization (docs/graph.md,
     * "batchnorm"); test/ops/test_graph_fold.c folds FLOAT16 ones. */
    if (!strcmp(pass, "batchnorm"))
        assert_int_equal(report->folded_batch_norms, 0);
    if (!strcmp(pass, "constants"))
        assert_true(report->folded_nodes >= 1);
    if (!strcmp(pass, "alias"))
        assert_true(report->aliased_nodes >= 1);
    if (!strcmp(pass, "join"))
        assert_true(report->joined_in_place >= 1);
    if (strcmp(pass, "activation") && strcmp(pass, "all"))
        assert_int_equal(report->fused_activations, 0);
    if (strcmp(pass, "batchnorm") && strcmp(pass, "all"))
        assert_int_equal(report->folded_batch_norms, 0);
    if (strcmp(pass, "constants") && strcmp(pass, "all"))
        assert_int_equal(report->folded_nodes, 0);
    if (strcmp(pass, "alias") && strcmp(pass, "all"))
        assert_int_equal(report->aliased_nodes, 0);
    if (strcmp(pass, "join") && strcmp(pass, "all"))
        assert_int_equal(report->joined_in_place, 0);
    if (strcmp(pass, "elementwise") && strcmp(pass, "all"))
        assert_int_equal(report->fused_elementwise, 0);
}

/* Each fusion pass alone, all and none: the same outputs as the unfused run, and reports that
 * say what was done. */
static void test_optimisations(void **state)
{
    /* `memory` and `barriers` on and off: test_memory_and_barriers. */
    static const char *const settings[] =
    {
        "none", "all", "activation", "elementwise", "batchnorm", "constants", "alias", "join",
    };
    struct dml_test_context *context = *state;
    struct vkdml_graph_report report, none, all;
    struct graph_test_outputs outputs, reference;
    IDMLCompiledOperator *compiled;
    struct graph_test graph;
    struct opt_graph data;
    unsigned int i;

    graph_test_init(&graph);
    build_opt_graph(context, &graph, &data);
    graph_test_run_unfused(context, &graph, &reference);
    graph_test_release(&graph);
    for (i = 0; i < ARRAY_SIZE(settings); ++i)
    {
        print_message("VKDML_GRAPH_OPT=%s\n", settings[i]);
        dml_test_set_knob(context, "VKDML_GRAPH_OPT", settings[i]);
        graph_test_init(&graph);
        build_opt_graph(context, &graph, &data);
        compiled = graph_test_compile(context, &graph, DML_EXECUTION_FLAG_NONE);
        check_hr(vkdml_get_graph_report(compiled, &report, sizeof(report)), S_OK);
        graph_test_run_compiled(context, &graph, compiled, &outputs);
        graph_test_compare(&outputs, &reference, -1.0);
        graph_test_outputs_cleanup(&outputs);
        release_last(compiled);
        graph_test_release(&graph);

        assert_int_equal(report.node_count, 10);
        assert_int_equal(report.constant_node_count, 2);
        assert_true(report.dispatch_count <= report.dispatches_unfused);
        assert_true(report.temporary_size >= report.temporary_lower_bound);
        check_pass_report(settings[i], &report);
        if (!strcmp(settings[i], "none"))
            none = report;
        if (!strcmp(settings[i], "all"))
            all = report;
    }
    /* Off, every node is its own dispatch(es); on, fewer. */
    assert_int_equal(none.dispatch_count, none.dispatches_unfused);
    assert_int_equal(all.dispatches_unfused, none.dispatches_unfused);
    assert_true(all.dispatch_count < none.dispatch_count);
    assert_true(all.temporary_size <= none.temporary_size);
    assert_true(all.barrier_count <= none.barrier_count);
    graph_test_outputs_cleanup(&reference);
}

/* Memory planning and barriers on a 5-node chain and two independent 2-node branches:
 * - the chain's 4 intermediates of 96 bytes: at most 2 alive at once (a node's input and output),
 *   so `memory` reuses ranges where every intermediate has its own with it off;
 * - branches a and b interleaved (a1, b1, a2, b2): only a2 waits for what came before (a1's
 *   output), b1 runs beside a1 and b2's input was covered by that barrier; with `barriers` off,
 *   a barrier comes before every node. */
static void build_chain_and_branches(struct dml_test_context *context, struct graph_test *graph)
{
    static const DML_OPERATOR_TYPE types[2] = {DML_OPERATOR_ELEMENT_WISE_EXP, DML_OPERATOR_ELEMENT_WISE_NEGATE};
    UINT chain[5], a1, b1, a2, b2, i;
    struct dml_test_tensor t;

    dml_test_tensor_init(&t, DML_TENSOR_DATA_TYPE_FLOAT32, 4, shape, NULL);
    for (i = 0; i < 5; ++i)
    {
        chain[i] = graph_test_add_unary(graph, context, types[i % 2], NULL, &t, &t);
        if (i)
            graph_test_edge(graph, chain[i - 1], 0, chain[i], 0);
    }
    graph_test_input(graph, 0, chain[0], 0);
    graph_test_output(graph, chain[4], 0, 0);
    a1 = graph_test_add_unary(graph, context, DML_OPERATOR_ELEMENT_WISE_EXP, "a1", &t, &t);
    b1 = graph_test_add_unary(graph, context, DML_OPERATOR_ELEMENT_WISE_EXP, "b1", &t, &t);
    a2 = graph_test_add_unary(graph, context, DML_OPERATOR_ELEMENT_WISE_NEGATE, "a2", &t, &t);
    b2 = graph_test_add_unary(graph, context, DML_OPERATOR_ELEMENT_WISE_NEGATE, "b2", &t, &t);
    graph_test_input(graph, 1, a1, 0);
    graph_test_input(graph, 2, b1, 0);
    graph_test_edge(graph, a1, 0, a2, 0);
    graph_test_edge(graph, b1, 0, b2, 0);
    graph_test_output(graph, a2, 0, 1);
    graph_test_output(graph, b2, 0, 2);
}

static void test_memory_and_barriers(void **state)
{
    static const char *const settings[] = {"memory", "barriers", "none"};
    struct vkdml_graph_report reports[ARRAY_SIZE(settings)];
    struct dml_test_context *context = *state;
    struct graph_test graph;
    unsigned int i;

    for (i = 0; i < ARRAY_SIZE(settings); ++i)
    {
        dml_test_set_knob(context, "VKDML_GRAPH_OPT", settings[i]);
        graph_test_init(&graph);
        build_chain_and_branches(context, &graph);
        graph_test_check(context, &graph, DML_EXECUTION_FLAG_NONE, &reports[i]);
        graph_test_release(&graph);
        assert_int_equal(reports[i].dispatch_count, 9);
        /* Two chain intermediates alive at once, or a1's and b1's outputs (ranges may be aligned). */
        assert_int_equal(reports[i].temporary_lower_bound, reports[0].temporary_lower_bound);
        assert_true(reports[i].temporary_lower_bound >= 2 * 96);
    }
    /* Equal sizes: reuse reaches the lower bound; without it, six ranges. */
    assert_int_equal(reports[0].temporary_size, reports[0].temporary_lower_bound);
    assert_true(reports[2].temporary_size >= 6 * 96);
    assert_true(reports[2].temporary_size > reports[0].temporary_size);
    /* The chain: one barrier before each of its nodes but the first; the branches: one, before a2. */
    assert_int_equal(reports[1].barrier_count, 4 + 1);
    assert_true(reports[2].barrier_count >= 8);
}

/* CONVOLUTION + RELU: with `activation`, RELU becomes the convolution's FusedActivation (one
 * dispatch fewer); with none, as many dispatches as unfused. The report answers only for graphs. */
static void test_report_counts(void **state)
{
    static const char *const settings[] = {"activation", "none"};
    struct dml_test_context *context = *state;
    struct vkdml_graph_report report;
    IDMLCompiledOperator *compiled;
    struct dml_test_tensor t;
    struct graph_test graph;
    unsigned int i;

    for (i = 0; i < ARRAY_SIZE(settings); ++i)
    {
        dml_test_set_knob(context, "VKDML_GRAPH_OPT", settings[i]);
        graph_test_init(&graph);
        build_owned_conv(context, &graph, NULL);
        memset(&report, 0xcc, sizeof(report));
        graph_test_check(context, &graph, DML_EXECUTION_FLAG_NONE, &report);
        graph_test_release(&graph);
        assert_int_equal(report.node_count, 2);
        assert_int_equal(report.constant_node_count, 0);
        assert_int_equal(report.fused_activations, i ? 0 : 1);
        assert_int_equal(report.dispatch_count, report.dispatches_unfused - (i ? 0 : 1));
        assert_int_equal(report.folded_batch_norms + report.folded_nodes + report.aliased_nodes
                + report.joined_in_place + report.fused_elementwise, 0);
    }

    /* The first fields of a shorter, older struct; nothing beyond them is written. */
    dml_test_set_knob(context, "VKDML_GRAPH_OPT", NULL);
    graph_test_init(&graph);
    build_owned_conv(context, &graph, NULL);
    compiled = graph_test_compile(context, &graph, DML_EXECUTION_FLAG_NONE);
    memset(&report, 0xcc, sizeof(report));
    check_hr(vkdml_get_graph_report(compiled, &report, offsetof(struct vkdml_graph_report, dispatch_count)), S_OK);
    assert_int_equal(report.node_count, 2);
    assert_int_equal(report.dispatch_count, 0xcccccccc);
    release_last(compiled);
    graph_test_release(&graph);

    /* Not a graph. */
    dml_test_tensor_init(&t, DML_TENSOR_DATA_TYPE_FLOAT32, 4, shape, NULL);
    compiled = dml_test_compile(context, DML_OPERATOR_ACTIVATION_RELU, &(DML_ACTIVATION_RELU_OPERATOR_DESC){
            &t.desc, &t.desc}, DML_EXECUTION_FLAG_NONE);
    vkdml_test_log_reset();
    check_hr(vkdml_get_graph_report(compiled, &report, sizeof(report)), E_INVALIDARG);
    check_one_error("vkdml_get_graph_report");
    check_hr(vkdml_get_graph_report(NULL, &report, sizeof(report)), E_INVALIDARG);
    check_one_error("vkdml_get_graph_report");
    release_last(compiled);
}

/* ---- The compiled graph as a compiled operator ---- */

/* A chain x -> first -> second -> (unnamed EXP) -> output, every optimisation off. */
static void build_chain(struct dml_test_context *context, struct graph_test *graph)
{
    struct dml_test_tensor t;
    UINT first, second, third;

    dml_test_tensor_init(&t, DML_TENSOR_DATA_TYPE_FLOAT32, 4, shape, NULL);
    first = graph_test_add_unary(graph, context, DML_OPERATOR_ACTIVATION_SIGMOID, "first", &t, &t);
    second = graph_test_add_unary(graph, context, DML_OPERATOR_ACTIVATION_RELU, "second", &t, &t);
    third = graph_test_add_unary(graph, context, DML_OPERATOR_ELEMENT_WISE_EXP, NULL, &t, &t);
    graph_test_input(graph, 0, first, 0);
    graph_test_edge(graph, first, 0, second, 0);
    graph_test_edge(graph, second, 0, third, 0);
    graph_test_output(graph, third, 0, 0);
}

/* Executes `compiled` once with a profiler on the list; returns how many entries it recorded. */
static uint32_t profile(struct dml_test_context *context, struct graph_test *graph, IDMLCompiledOperator *compiled,
        struct vkdml_profiler_entry *entries, uint32_t capacity)
{
    struct dml_test_binding outputs[GRAPH_TEST_MAX_IO] = {{0}};
    struct vkdml_profiler *profiler;
    ID3D12Resource *persistent;
    uint32_t count = capacity;
    UINT i;

    graph_test_prepare_inputs(context, graph);
    for (i = 0; i < graph->builder.desc.OutputCount; ++i)
        outputs[i].buffer = dml_test_create_buffer(context, 4096, NULL);
    persistent = graph_test_initialize(context, graph, compiled);
    check_hr(vkdml_profiler_create(context->dml, capacity, &profiler), S_OK);
    check_hr(vkdml_command_list_set_profiler(context->d3d.list, profiler), S_OK);
    dml_test_execute(context, compiled, persistent, graph->input_buffers, graph->builder.desc.InputCount, outputs,
            graph->builder.desc.OutputCount);
    check_hr(vkdml_profiler_get_results(profiler, entries, sizeof(*entries), &count), S_OK);
    check_hr(vkdml_command_list_set_profiler(context->d3d.list, NULL), S_OK);
    vkdml_profiler_destroy(profiler);
    for (i = 0; i < count; ++i)
        assert_true(entries[i].end_ns >= entries[i].start_ns);
    if (persistent)
        release_last(persistent);
    dml_test_release_bindings(outputs, graph->builder.desc.OutputCount);
    return count;
}

/* One profiler entry per node executed, in order, named after the node (or its operator type);
 * SetName names the compiled graph, not its nodes. A fused node is timed under its host's name. */
static void test_profiler_and_name(void **state)
{
    static const char *const names[] = {"first", "second", "ELEMENT_WISE_EXP"};
    struct dml_test_context *context = *state;
    struct vkdml_profiler_entry entries[8];
    IDMLCompiledOperator *compiled;
    struct graph_test graph;
    unsigned int i;

    dml_test_set_knob(context, "VKDML_GRAPH_OPT", "none");
    graph_test_init(&graph);
    build_chain(context, &graph);
    compiled = graph_test_compile(context, &graph, DML_EXECUTION_FLAG_NONE);
    check_hr(IDMLCompiledOperator_SetName(compiled, L"the whole graph"), S_OK);
    assert_int_equal(profile(context, &graph, compiled, entries, ARRAY_SIZE(entries)), ARRAY_SIZE(names));
    for (i = 0; i < ARRAY_SIZE(names); ++i)
        assert_string_equal(entries[i].name, names[i]);
    release_last(compiled);
    graph_test_release(&graph);

    dml_test_set_knob(context, "VKDML_GRAPH_OPT", "activation");
    graph_test_init(&graph);
    build_owned_conv(context, &graph, NULL);
    compiled = graph_test_compile(context, &graph, DML_EXECUTION_FLAG_NONE);
    assert_int_equal(profile(context, &graph, compiled, entries, ARRAY_SIZE(entries)), 1);
    assert_string_equal(entries[0].name, "conv");
    release_last(compiled);
    graph_test_release(&graph);
}

/* GetBindingProperties: a table with every graph input and output; with `memory` off, room for
 * every intermediate; the report's sizes are the properties'. */
static void test_binding_properties(void **state)
{
    struct dml_test_context *context = *state;
    DML_BINDING_PROPERTIES properties;
    struct vkdml_graph_report report;
    IDMLCompiledOperator *compiled;
    struct graph_test graph;

    dml_test_set_knob(context, "VKDML_GRAPH_OPT", "none");
    graph_test_init(&graph);
    build_chain(context, &graph);
    compiled = graph_test_compile(context, &graph, DML_EXECUTION_FLAG_NONE);
    properties = IDMLDispatchable_GetBindingPropertiesByValue((IDMLDispatchable *)compiled);
    assert_true(properties.RequiredDescriptorCount >= 2);
    /* Two intermediates of 96 bytes, each in its own range. */
    assert_true(properties.TemporaryResourceSize >= 2 * 24 * sizeof(float));
    assert_int_equal(properties.PersistentResourceSize, 0);
    check_hr(vkdml_get_graph_report(compiled, &report, sizeof(report)), S_OK);
    assert_int_equal(report.temporary_size, properties.TemporaryResourceSize);
    assert_int_equal(report.persistent_size, properties.PersistentResourceSize);
    assert_int_equal(report.dispatch_count, 3);
    release_last(compiled);
    graph_test_release(&graph);

    dml_test_set_knob(context, "VKDML_GRAPH_OPT", NULL);
    graph_test_init(&graph);
    build_diamond(context, &graph);
    compiled = graph_test_compile(context, &graph, DML_EXECUTION_FLAG_NONE);
    properties = IDMLDispatchable_GetBindingPropertiesByValue((IDMLDispatchable *)compiled);
    assert_true(properties.RequiredDescriptorCount >= 5);
    check_hr(vkdml_get_graph_report(compiled, &report, sizeof(report)), S_OK);
    assert_int_equal(report.temporary_size, properties.TemporaryResourceSize);
    assert_true(report.temporary_size >= report.temporary_lower_bound);
    release_last(compiled);
    graph_test_release(&graph);
}

/* CompileGraph keeps no reference to the IDMLOperators: they are released (to zero) before the
 * compiled graph is initialized and executed. */
static void test_no_operator_references(void **state)
{
    struct dml_test_context *context = *state;
    struct graph_test_outputs outputs, reference;
    IDMLCompiledOperator *compiled;
    struct graph_test graph;
    UINT i;

    graph_test_init(&graph);
    build_diamond(context, &graph);
    graph_test_run_unfused(context, &graph, &reference);
    compiled = graph_test_compile(context, &graph, DML_EXECUTION_FLAG_NONE);
    for (i = 0; i < graph.builder.desc.NodeCount; ++i)
    {
        assert_int_equal(refcount_of(graph.builder.ops[i]), 1);
        release_last(graph.builder.ops[i]);
    }
    graph_test_run_compiled(context, &graph, compiled, &outputs);
    graph_test_compare(&outputs, &reference, -1.0);
    graph_test_outputs_cleanup(&outputs);
    graph_test_outputs_cleanup(&reference);
    release_last(compiled);
    graph_test_release(&graph);
}

/* DESCRIPTORS_VOLATILE: recorded with inputs and outputs bound to dummies, rebound before the list
 * executes; the graph reads the new bindings (docs/design.md, "Descriptor model"). */
static void test_descriptors_volatile(void **state)
{
    struct dml_test_context *context = *state;
    DML_BUFFER_BINDING buffers[5], temporary_buffer, persistent_buffer;
    ID3D12Resource *dummy, *results, *temporary = NULL, *persistent;
    struct graph_test_outputs outputs = {0}, reference;
    ID3D12DescriptorHeap *heaps[1] = {context->heap};
    DML_BINDING_DESC descs[5], desc;
    DML_BINDING_PROPERTIES properties;
    IDMLCompiledOperator *compiled;
    IDMLBindingTable *table;
    struct graph_test graph;
    UINT i;

    graph_test_init(&graph);
    build_diamond(context, &graph);
    graph_test_run_unfused(context, &graph, &reference);
    compiled = graph_test_compile(context, &graph, DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE);
    properties = IDMLDispatchable_GetBindingPropertiesByValue((IDMLDispatchable *)compiled);
    persistent = graph_test_initialize(context, &graph, compiled);
    table = dml_test_create_table(context, compiled);
    if (properties.TemporaryResourceSize)
    {
        temporary = dml_test_create_buffer(context, properties.TemporaryResourceSize, NULL);
        temporary_buffer = (DML_BUFFER_BINDING){temporary, 0, properties.TemporaryResourceSize};
        desc = (DML_BINDING_DESC){DML_BINDING_TYPE_BUFFER, &temporary_buffer};
        IDMLBindingTable_BindTemporaryResource(table, &desc);
    }
    if (persistent)
    {
        persistent_buffer = (DML_BUFFER_BINDING){persistent, 0, properties.PersistentResourceSize};
        desc = (DML_BINDING_DESC){DML_BINDING_TYPE_BUFFER, &persistent_buffer};
        IDMLBindingTable_BindPersistentResource(table, &desc);
    }
    dummy = dml_test_create_buffer(context, 5 * 96, NULL);
    for (i = 0; i < 5; ++i)
    {
        buffers[i] = (DML_BUFFER_BINDING){dummy, 96 * i, 96};
        descs[i] = (DML_BINDING_DESC){DML_BINDING_TYPE_BUFFER, &buffers[i]};
    }
    IDMLBindingTable_BindInputs(table, 2, descs);
    IDMLBindingTable_BindOutputs(table, 3, descs + 2);
    ID3D12GraphicsCommandList_SetDescriptorHeaps(context->d3d.list, 1, heaps);
    IDMLCommandRecorder_RecordDispatch(context->recorder, (ID3D12CommandList *)context->d3d.list,
            (IDMLDispatchable *)compiled, table);

    /* Rebound after recording: the real inputs, and outputs in a buffer of their own. */
    graph_test_prepare_inputs(context, &graph);
    results = dml_test_create_buffer(context, 3 * 96, NULL);
    outputs.count = 3;
    for (i = 0; i < 5; ++i)
    {
        if (i < 2)
            buffers[i] = (DML_BUFFER_BINDING){graph.input_buffers[i].buffer, 0, 96};
        else
            buffers[i] = (DML_BUFFER_BINDING){results, 96 * (i - 2), 96};
    }
    IDMLBindingTable_BindInputs(table, 2, descs);
    IDMLBindingTable_BindOutputs(table, 3, descs + 2);
    execute_and_wait(&context->d3d);
    check_hr(IDMLDevice_GetDeviceRemovedReason(context->dml), S_OK);
    for (i = 0; i < 3; ++i)
    {
        outputs.tensors[i] = reference.tensors[i];
        outputs.bytes[i] = malloc(96);
        assert_non_null(outputs.bytes[i]);
        dml_test_read_buffer(context, results, 96 * i, outputs.bytes[i], 96);
    }
    graph_test_compare(&outputs, &reference, -1.0);

    graph_test_outputs_cleanup(&outputs);
    graph_test_outputs_cleanup(&reference);
    release_last(table);
    release_last(dummy);
    release_last(results);
    if (temporary)
        release_last(temporary);
    if (persistent)
        release_last(persistent);
    release_last(compiled);
    graph_test_release(&graph);
}

/* ---- Bad graphs: E_INVALIDARG and one log line naming the node, the edge and the rule ---- */

/* The error lines start "CompileGraph: " (docs/graph.md, "Rules"); `rule` is the part the
 * test pins down: the node it names, or the rule where no node is at fault. */
static void expect_bad(struct dml_test_context *context, struct graph_test *graph, const DML_GRAPH_DESC *desc,
        const char *rule)
{
    graph_test_expect_failure(context, graph, desc, E_INVALIDARG, "CompileGraph");
    graph_test_expect_failure(context, graph, desc, E_INVALIDARG, rule);
}

/* in0 -> a (EXP) -> b (ADD, second input in1) -> output 0. */
static void build_pair(struct dml_test_context *context, struct graph_test *graph)
{
    struct dml_test_tensor t;
    UINT a, b;

    graph_test_init(graph);
    dml_test_tensor_init(&t, DML_TENSOR_DATA_TYPE_FLOAT32, 4, shape, NULL);
    a = graph_test_add_unary(graph, context, DML_OPERATOR_ELEMENT_WISE_EXP, "a", &t, &t);
    b = graph_test_add_binary(graph, context, DML_OPERATOR_ELEMENT_WISE_ADD, "b", &t, &t, &t);
    graph_test_input(graph, 0, a, 0);
    graph_test_edge(graph, a, 0, b, 0);
    graph_test_input(graph, 1, b, 1);
    graph_test_output(graph, b, 0, 0);
}

static void test_bad_cycle(void **state)
{
    struct dml_test_context *context = *state;
    struct graph_test graph;
    struct dml_test_tensor t;
    UINT a, b;

    /* a = ADD(in0, b), b = EXP(a). */
    graph_test_init(&graph);
    dml_test_tensor_init(&t, DML_TENSOR_DATA_TYPE_FLOAT32, 4, shape, NULL);
    a = graph_test_add_binary(&graph, context, DML_OPERATOR_ELEMENT_WISE_ADD, "a", &t, &t, &t);
    b = graph_test_add_unary(&graph, context, DML_OPERATOR_ELEMENT_WISE_EXP, "b", &t, &t);
    graph_test_input(&graph, 0, a, 0);
    graph_test_edge(&graph, b, 0, a, 1);
    graph_test_edge(&graph, a, 0, b, 0);
    graph_test_output(&graph, b, 0, 0);
    expect_bad(context, &graph, NULL, "cycle");
    graph_test_release(&graph);

    /* A node feeding itself. */
    graph_test_init(&graph);
    a = graph_test_add_binary(&graph, context, DML_OPERATOR_ELEMENT_WISE_ADD, "a", &t, &t, &t);
    graph_test_input(&graph, 0, a, 0);
    graph_test_edge(&graph, a, 0, a, 1);
    graph_test_output(&graph, a, 0, 0);
    expect_bad(context, &graph, NULL, "cycle");
    graph_test_release(&graph);
}

static void test_bad_connections(void **state)
{
    struct dml_test_context *context = *state;
    IDMLCompiledOperator *compiled;
    struct graph_test graph;

    /* b's second input unconnected (ADD has no optional input). */
    build_pair(context, &graph);
    graph.builder.desc.InputEdgeCount = 1;
    graph.builder.desc.InputCount = 1;
    expect_bad(context, &graph, NULL, "node 1 (b): input 1 is not connected");
    graph_test_release(&graph);

    /* Two edges into b's first input. */
    build_pair(context, &graph);
    graph_test_input(&graph, 0, 1, 0);
    expect_bad(context, &graph, NULL, "input 0 of node 1 (b) is already connected");
    graph_test_release(&graph);

    /* a's output goes nowhere: DML_GRAPH_DESC's page requires connections for every node output
     * that is not optional. */
    build_pair(context, &graph);
    graph.builder.desc.IntermediateEdgeCount = 0;
    graph_test_input(&graph, 0, 1, 0);
    vkdml_test_log_reset();
    check_hr(graph_test_try_compile(context, &graph, NULL, DML_EXECUTION_FLAG_NONE, &compiled), E_INVALIDARG);
    check_one_error("node 0 (a)");
    graph_test_release(&graph);
}

static void test_bad_indices(void **state)
{
    struct dml_test_context *context = *state;
    IDMLCompiledOperator *compiled;
    struct graph_test graph;
    DML_GRAPH_DESC desc;

    build_pair(context, &graph);
    /* Messages name the edge, with its Name when it has one. */
    graph.builder.input_edges[0].Name = "x_in";
    graph.builder.input_edges[0].ToNodeIndex = 2;
    expect_bad(context, &graph, NULL, "input edge 0 (\"x_in\"): ToNodeIndex 2");
    graph.builder.input_edges[0].ToNodeIndex = 0;
    graph.builder.input_edges[0].ToNodeInputIndex = 1;
    expect_bad(context, &graph, NULL, "node 0 (a)");
    graph.builder.input_edges[0].ToNodeInputIndex = 0;
    graph.builder.intermediate_edges[0].FromNodeIndex = 7;
    expect_bad(context, &graph, NULL, "FromNodeIndex");
    graph.builder.intermediate_edges[0].FromNodeIndex = 0;
    graph.builder.intermediate_edges[0].FromNodeOutputIndex = 1;
    expect_bad(context, &graph, NULL, "node 0 (a)");
    graph.builder.intermediate_edges[0].FromNodeOutputIndex = 0;
    graph.builder.intermediate_edges[0].ToNodeIndex = ~0u;
    expect_bad(context, &graph, NULL, "ToNodeIndex");
    graph.builder.intermediate_edges[0].ToNodeIndex = 1;
    graph.builder.intermediate_edges[0].ToNodeInputIndex = 2;
    expect_bad(context, &graph, NULL, "node 1 (b)");
    graph.builder.intermediate_edges[0].ToNodeInputIndex = 0;
    graph.builder.output_edges[0].FromNodeIndex = 2;
    expect_bad(context, &graph, NULL, "FromNodeIndex");
    graph.builder.output_edges[0].FromNodeIndex = 1;
    graph.builder.output_edges[0].FromNodeOutputIndex = 1;
    expect_bad(context, &graph, NULL, "node 1 (b)");
    graph.builder.output_edges[0].FromNodeOutputIndex = 0;
    /* Graph indices beyond InputCount and OutputCount. */
    desc = *graph_test_desc(&graph);
    desc.InputCount = 1;
    expect_bad(context, &graph, &desc, "GraphInputIndex");
    desc = *graph_test_desc(&graph);
    desc.OutputCount = 0;
    expect_bad(context, &graph, &desc, "OutputCount");
    graph.builder.output_edges[0].GraphOutputIndex = 1;
    expect_bad(context, &graph, NULL, "GraphOutputIndex");
    graph.builder.output_edges[0].GraphOutputIndex = 0;
    /* Fixed again: it compiles. */
    compiled = graph_test_compile(context, &graph, DML_EXECUTION_FLAG_NONE);
    release_last(compiled);
    graph_test_release(&graph);
}

/* Graph outputs: one without an edge, one with two edges. */
static void test_bad_outputs(void **state)
{
    struct dml_test_context *context = *state;
    struct graph_test graph;

    build_pair(context, &graph);
    graph.builder.desc.OutputCount = 2;
    expect_bad(context, &graph, NULL, "graph output 1 has no edge");
    graph_test_release(&graph);

    build_pair(context, &graph);
    graph_test_output(&graph, 0, 0, 0);
    expect_bad(context, &graph, NULL, "graph output 0 already has an edge");
    graph_test_release(&graph);
}

static void test_bad_sizes(void **state)
{
    static const UINT smaller[4] = {1, 1, 4, 5};
    struct dml_test_context *context = *state;
    struct dml_test_tensor t, s;
    struct graph_test graph;
    float data[20] = {0};
    UINT a, b, k;

    /* a's 96 bytes into b's 80. */
    graph_test_init(&graph);
    dml_test_tensor_init(&t, DML_TENSOR_DATA_TYPE_FLOAT32, 4, shape, NULL);
    dml_test_tensor_init(&s, DML_TENSOR_DATA_TYPE_FLOAT32, 4, smaller, NULL);
    a = graph_test_add_unary(&graph, context, DML_OPERATOR_ELEMENT_WISE_EXP, "a", &t, &t);
    b = graph_test_add_unary(&graph, context, DML_OPERATOR_ELEMENT_WISE_EXP, "b", &s, &s);
    graph_test_input(&graph, 0, a, 0);
    graph_test_edge(&graph, a, 0, b, 0);
    graph_test_output(&graph, b, 0, 0);
    expect_bad(context, &graph, NULL, "node 1 (b)");
    graph_test_release(&graph);

    /* A constant of 80 bytes into 96 (docs/graph.md: a constant may hold more, not less). */
    graph_test_init(&graph);
    b = graph_test_add_unary(&graph, context, DML_OPERATOR_ELEMENT_WISE_EXP, "b", &t, &t);
    k = graph_test_add_constant(&graph, data, sizeof(data), "k");
    graph_test_edge(&graph, k, 0, b, 0);
    graph_test_output(&graph, b, 0, 0);
    expect_bad(context, &graph, NULL, "input 0 of node 0 (b)");
    graph_test_release(&graph);
}

/* OWNED_BY_DML inputs: fed by a node's output or a constant (not a graph input), and a graph input
 * feeding an OWNED_BY_DML input and a plain one. */
static void test_bad_owned(void **state)
{
    static const UINT input_sizes[4] = {1, 2, 5, 5}, filter_sizes[4] = {3, 2, 3, 3}, output_sizes[4] = {1, 3, 5, 5};
    struct dml_test_context *context = *state;
    struct dml_test_tensor input, filter, plain, output;
    float weights[54] = {0};
    struct graph_test graph;
    UINT conv, copy, k;

    dml_test_tensor_init(&input, DML_TENSOR_DATA_TYPE_FLOAT32, 4, input_sizes, NULL);
    dml_test_tensor_init(&filter, DML_TENSOR_DATA_TYPE_FLOAT32, 4, filter_sizes, NULL);
    dml_test_tensor_init(&plain, DML_TENSOR_DATA_TYPE_FLOAT32, 4, filter_sizes, NULL);
    dml_test_tensor_init(&output, DML_TENSOR_DATA_TYPE_FLOAT32, 4, output_sizes, NULL);
    filter.buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;

    graph_test_init(&graph);
    conv = graph_test_add_conv(&graph, context, "conv", &input, &filter, NULL, &output, 1, NULL);
    copy = graph_test_add_unary(&graph, context, DML_OPERATOR_ELEMENT_WISE_IDENTITY, "copy", &plain, &plain);
    graph_test_input(&graph, 0, conv, 0);
    graph_test_input(&graph, 1, copy, 0);
    graph_test_edge(&graph, copy, 0, conv, 1);
    graph_test_output(&graph, conv, 0, 0);
    expect_bad(context, &graph, NULL, "node 0 (conv)");
    graph_test_release(&graph);

    graph_test_init(&graph);
    conv = graph_test_add_conv(&graph, context, "conv", &input, &filter, NULL, &output, 1, NULL);
    k = graph_test_add_constant(&graph, weights, sizeof(weights), "weights");
    graph_test_input(&graph, 0, conv, 0);
    graph_test_edge(&graph, k, 0, conv, 1);
    graph_test_output(&graph, conv, 0, 0);
    expect_bad(context, &graph, NULL, "node 0 (conv)");
    graph_test_release(&graph);

    graph_test_init(&graph);
    conv = graph_test_add_conv(&graph, context, "conv", &input, &filter, NULL, &output, 1, NULL);
    copy = graph_test_add_unary(&graph, context, DML_OPERATOR_ELEMENT_WISE_IDENTITY, "copy", &plain, &plain);
    graph_test_input(&graph, 0, conv, 0);
    graph_test_input(&graph, 1, conv, 1);
    graph_test_input(&graph, 1, copy, 0);
    graph_test_output(&graph, conv, 0, 0);
    graph_test_output(&graph, copy, 0, 1);
    expect_bad(context, &graph, NULL, "OWNED_BY_DML");
    graph_test_release(&graph);
}

/* NULL and zero fields, wrong and invalid types; NULL ppv and bad flags behave as for CompileOperator. */
static void test_bad_fields(void **state)
{
    struct dml_test_context *context = *state;
    IDMLCompiledOperator *compiled;
    struct graph_test graph;
    DML_GRAPH_DESC desc;
    IDMLDevice1 *device1;
    HRESULT operator_hr;
    float data[24] = {0};
    UINT k;

    build_pair(context, &graph);
    check_hr(IDMLDevice_QueryInterface(context->dml, &IID_IDMLDevice1, (void **)&device1), S_OK);
    vkdml_test_log_reset();
    check_hr(IDMLDevice1_CompileGraph(device1, NULL, DML_EXECUTION_FLAG_NONE, &IID_IDMLCompiledOperator,
            (void **)&compiled), E_INVALIDARG);
    check_one_error("CompileGraph");
    IDMLDevice1_Release(device1);

    desc = *graph_test_desc(&graph);
    desc.NodeCount = 0;
    expect_bad(context, &graph, &desc, "NodeCount");
    desc = *graph_test_desc(&graph);
    desc.Nodes = NULL;
    expect_bad(context, &graph, &desc, "Nodes");
    desc = *graph_test_desc(&graph);
    desc.InputEdges = NULL;
    expect_bad(context, &graph, &desc, "InputEdges");
    desc = *graph_test_desc(&graph);
    desc.IntermediateEdges = NULL;
    expect_bad(context, &graph, &desc, "IntermediateEdges");
    desc = *graph_test_desc(&graph);
    desc.OutputEdges = NULL;
    expect_bad(context, &graph, &desc, "OutputEdges");
    desc = *graph_test_desc(&graph);
    desc.OutputEdgeCount = 0;
    expect_bad(context, &graph, &desc, "OutputEdgeCount");

    /* Nodes. */
    graph.builder.nodes[1].Desc = NULL;
    expect_bad(context, &graph, NULL, "node 1");
    graph.builder.nodes[1].Desc = &graph.builder.op_nodes[1];
    graph.builder.op_nodes[1].Operator = NULL;
    expect_bad(context, &graph, NULL, "node 1: Operator");
    graph.builder.op_nodes[1].Operator = graph.builder.ops[1];
    graph.builder.nodes[1].Type = DML_GRAPH_NODE_TYPE_INVALID;
    expect_bad(context, &graph, NULL, "node 1");
    graph.builder.nodes[1].Type = DML_GRAPH_NODE_TYPE_OPERATOR;

    /* Edges: NULL desc, the wrong type in each array, the invalid type. */
    graph.builder.inputs[0].Desc = NULL;
    expect_bad(context, &graph, NULL, "input edge 0");
    graph.builder.inputs[0].Desc = &graph.builder.input_edges[0];
    graph.builder.inputs[1].Type = DML_GRAPH_EDGE_TYPE_INTERMEDIATE;
    expect_bad(context, &graph, NULL, "input edge 1");
    graph.builder.inputs[1].Type = DML_GRAPH_EDGE_TYPE_INPUT;
    graph.builder.intermediates[0].Type = DML_GRAPH_EDGE_TYPE_OUTPUT;
    expect_bad(context, &graph, NULL, "intermediate edge 0");
    graph.builder.intermediates[0].Type = DML_GRAPH_EDGE_TYPE_INTERMEDIATE;
    graph.builder.outputs[0].Type = DML_GRAPH_EDGE_TYPE_INVALID;
    expect_bad(context, &graph, NULL, "output edge 0");
    graph.builder.outputs[0].Type = DML_GRAPH_EDGE_TYPE_OUTPUT;

    /* Unknown flags; a NULL ppv answers as CompileOperator does (validation only). */
    vkdml_test_log_reset();
    check_hr(graph_test_try_compile(context, &graph, NULL, 0x80000000u, &compiled), E_INVALIDARG);
    check_one_error("CompileGraph");
    operator_hr = IDMLDevice_CompileOperator(context->dml, graph.builder.ops[0], DML_EXECUTION_FLAG_NONE,
            &IID_IDMLCompiledOperator, NULL);
    check_hr(IDMLDevice_QueryInterface(context->dml, &IID_IDMLDevice1, (void **)&device1), S_OK);
    check_hr(IDMLDevice1_CompileGraph(device1, graph_test_desc(&graph), DML_EXECUTION_FLAG_NONE,
            &IID_IDMLCompiledOperator, NULL), operator_hr);
    IDMLDevice1_Release(device1);
    assert_no_log_errors();
    graph_test_release(&graph);

    /* Constant nodes: NULL data, no bytes. */
    build_pair(context, &graph);
    graph.builder.desc.IntermediateEdgeCount = 0;
    k = graph_test_add_constant(&graph, NULL, sizeof(data), "k");
    graph_test_edge(&graph, k, 0, 1, 0);
    graph_test_output(&graph, 0, 0, 1);
    expect_bad(context, &graph, NULL, "node 2 (k)");
    graph.builder.constant_nodes[k] = (DML_CONSTANT_DATA_GRAPH_NODE_DESC){data, 0, "k"};
    expect_bad(context, &graph, NULL, "node 2 (k)");
    graph.builder.constant_nodes[k] = (DML_CONSTANT_DATA_GRAPH_NODE_DESC){data, sizeof(data), "k"};
    compiled = graph_test_compile(context, &graph, DML_EXECUTION_FLAG_NONE);
    release_last(compiled);
    graph_test_release(&graph);
}

/* An operator vkdml does not implement cannot enter a graph: CreateOperator answers E_NOTIMPL and
 * names it (docs/design.md, "The op table"). */
static void test_unimplemented_operator(void **state)
{
    struct dml_test_context *context = *state;
    DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC desc;
    struct dml_test_tensor t;
    IDMLOperator *op;

    dml_test_tensor_init(&t, DML_TENSOR_DATA_TYPE_FLOAT32, 4, shape, NULL);
    desc = (DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC){&t.desc, &t.desc, &t.desc};
    vkdml_test_log_reset();
    check_hr(dml_test_create_operator(context, DML_OPERATOR_ACTIVATION_RELU_GRAD, &desc, &op), E_NOTIMPL);
    assert_null(op);
    assert_int_equal(vkdml_test_log_counts()->fixmes, 1);
    vkdml_test_log_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_diamond, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_output_from_input, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_constant_nodes, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_owned_by_dml_inputs, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_shared_initializer, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_reinterpreted_edges, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_join_split_arrays, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_unusual_graphs, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_optimisations, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_execute_twice, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_fusion_hazards, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_report_counts, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_memory_and_barriers, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_profiler_and_name, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_binding_properties, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_no_operator_references, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_descriptors_volatile, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_bad_cycle, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_bad_connections, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_bad_indices, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_bad_outputs, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_bad_sizes, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_bad_owned, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_bad_fields, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_unimplemented_operator, dml_test_setup, dml_test_teardown),
    };

    /* Logging first: it keeps the Vulkan driver loaded for LeakSanitizer (test_utils.c). */
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
