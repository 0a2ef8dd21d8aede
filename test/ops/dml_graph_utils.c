/*
 * Building DML graphs in tests (dml_graph_utils.h).
 */
#include "dml_graph_utils.h"

UINT dml_graph_add_op(struct dml_test_context *context, struct dml_graph_builder *b, DML_OPERATOR_TYPE type,
        const void *desc)
{
    UINT n = b->desc.NodeCount++;

    assert_true(n < DML_GRAPH_MAX_NODES);
    assert_int_equal(dml_test_create_operator(context, type, desc, &b->ops[n]), S_OK);
    b->op_nodes[n] = (DML_OPERATOR_GRAPH_NODE_DESC){b->ops[n], NULL};
    b->nodes[n] = (DML_GRAPH_NODE_DESC){DML_GRAPH_NODE_TYPE_OPERATOR, &b->op_nodes[n]};
    return n;
}

UINT dml_graph_add_constant(struct dml_graph_builder *b, const void *data, SIZE_T size)
{
    UINT n = b->desc.NodeCount++;

    assert_true(n < DML_GRAPH_MAX_NODES);
    b->constant_nodes[n] = (DML_CONSTANT_DATA_GRAPH_NODE_DESC){data, size, "constant"};
    b->nodes[n] = (DML_GRAPH_NODE_DESC){DML_GRAPH_NODE_TYPE_CONSTANT, &b->constant_nodes[n]};
    return n;
}

void dml_graph_connect_input(struct dml_graph_builder *b, UINT graph_input, UINT node, UINT input)
{
    UINT e = b->desc.InputEdgeCount++;

    assert_true(e < DML_GRAPH_MAX_EDGES);
    b->input_edges[e] = (DML_INPUT_GRAPH_EDGE_DESC){graph_input, node, input, NULL};
    b->inputs[e] = (DML_GRAPH_EDGE_DESC){DML_GRAPH_EDGE_TYPE_INPUT, &b->input_edges[e]};
    b->desc.InputCount = b->desc.InputCount > graph_input ? b->desc.InputCount : graph_input + 1;
}

void dml_graph_connect(struct dml_graph_builder *b, UINT from, UINT output, UINT to, UINT input)
{
    UINT e = b->desc.IntermediateEdgeCount++;

    assert_true(e < DML_GRAPH_MAX_EDGES);
    b->intermediate_edges[e] = (DML_INTERMEDIATE_GRAPH_EDGE_DESC){from, output, to, input, NULL};
    b->intermediates[e] = (DML_GRAPH_EDGE_DESC){DML_GRAPH_EDGE_TYPE_INTERMEDIATE, &b->intermediate_edges[e]};
}

void dml_graph_connect_output(struct dml_graph_builder *b, UINT node, UINT output, UINT graph_output)
{
    UINT e = b->desc.OutputEdgeCount++;

    assert_true(e < DML_GRAPH_MAX_EDGES);
    b->output_edges[e] = (DML_OUTPUT_GRAPH_EDGE_DESC){node, output, graph_output, NULL};
    b->outputs[e] = (DML_GRAPH_EDGE_DESC){DML_GRAPH_EDGE_TYPE_OUTPUT, &b->output_edges[e]};
    b->desc.OutputCount = b->desc.OutputCount > graph_output ? b->desc.OutputCount : graph_output + 1;
}

static HRESULT compile(struct dml_test_context *context, struct dml_graph_builder *b, DML_EXECUTION_FLAGS flags,
        IDMLCompiledOperator **compiled)
{
    IDMLDevice1 *device1;
    HRESULT hr;
    UINT i;

    b->desc.Nodes = b->nodes;
    b->desc.InputEdges = b->inputs;
    b->desc.IntermediateEdges = b->intermediates;
    b->desc.OutputEdges = b->outputs;
    assert_int_equal(IDMLDevice_QueryInterface(context->dml, &IID_IDMLDevice1, (void **)&device1), S_OK);
    hr = IDMLDevice1_CompileGraph(device1, &b->desc, flags, &IID_IDMLCompiledOperator, (void **)compiled);
    IDMLDevice1_Release(device1);
    /* The compiled graph keeps no reference to its operators. */
    for (i = 0; i < b->desc.NodeCount; ++i)
    {
        if (b->ops[i])
            assert_int_equal(IDMLOperator_Release(b->ops[i]), 0);
        b->ops[i] = NULL;
    }
    return hr;
}

IDMLCompiledOperator *dml_graph_compile(struct dml_test_context *context, struct dml_graph_builder *builder,
        DML_EXECUTION_FLAGS flags)
{
    IDMLCompiledOperator *compiled = NULL;

    assert_int_equal(compile(context, builder, flags, &compiled), S_OK);
    return compiled;
}

HRESULT dml_graph_try_compile(struct dml_test_context *context, struct dml_graph_builder *builder,
        DML_EXECUTION_FLAGS flags)
{
    IDMLCompiledOperator *compiled = NULL;
    HRESULT hr = compile(context, builder, flags, &compiled);

    if (compiled)
        assert_int_equal(IDMLCompiledOperator_Release(compiled), 0);
    return hr;
}
