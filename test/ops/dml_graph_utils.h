/*
 * Building DML graphs in tests (test/ops/dml_graph_utils.c): nodes, edges and CompileGraph, the
 * builder's arrays sized for test graphs. Operators are created on the context's device; the
 * compiled graph keeps no reference to them, so dml_graph_compile() releases them (asserting the
 * last reference) as DirectML allows.
 */
#ifndef VKDML_TEST_OPS_DML_GRAPH_UTILS_H
#define VKDML_TEST_OPS_DML_GRAPH_UTILS_H

#include "dml_test_utils.h"

#define DML_GRAPH_MAX_NODES 64
#define DML_GRAPH_MAX_EDGES 320

struct dml_graph_builder
{
    DML_GRAPH_NODE_DESC nodes[DML_GRAPH_MAX_NODES];
    DML_OPERATOR_GRAPH_NODE_DESC op_nodes[DML_GRAPH_MAX_NODES];
    DML_CONSTANT_DATA_GRAPH_NODE_DESC constant_nodes[DML_GRAPH_MAX_NODES];
    IDMLOperator *ops[DML_GRAPH_MAX_NODES];
    DML_GRAPH_EDGE_DESC inputs[DML_GRAPH_MAX_EDGES], intermediates[DML_GRAPH_MAX_EDGES], outputs[DML_GRAPH_MAX_EDGES];
    DML_INPUT_GRAPH_EDGE_DESC input_edges[DML_GRAPH_MAX_EDGES];
    DML_INTERMEDIATE_GRAPH_EDGE_DESC intermediate_edges[DML_GRAPH_MAX_EDGES];
    DML_OUTPUT_GRAPH_EDGE_DESC output_edges[DML_GRAPH_MAX_EDGES];
    DML_GRAPH_DESC desc;
};

/* An operator node (CreateOperator asserted); returns its index. */
UINT dml_graph_add_op(struct dml_test_context *context, struct dml_graph_builder *builder, DML_OPERATOR_TYPE type,
        const void *desc);
/* A constant node of `size` bytes at `data` (read at CompileGraph); returns its index. */
UINT dml_graph_add_constant(struct dml_graph_builder *builder, const void *data, SIZE_T size);
/* Graph input `graph_input` → input `input` of `node` (InputCount grows to hold it). */
void dml_graph_connect_input(struct dml_graph_builder *builder, UINT graph_input, UINT node, UINT input);
/* Output `output` of `from` → input `input` of `to`. */
void dml_graph_connect(struct dml_graph_builder *builder, UINT from, UINT output, UINT to, UINT input);
/* Output `output` of `node` → graph output `graph_output` (OutputCount grows to hold it). */
void dml_graph_connect_output(struct dml_graph_builder *builder, UINT node, UINT output, UINT graph_output);
/* CompileGraph with `flags`, asserting S_OK; releases the builder's operators. */
IDMLCompiledOperator *dml_graph_compile(struct dml_test_context *context, struct dml_graph_builder *builder,
        DML_EXECUTION_FLAGS flags);
/* CompileGraph's HRESULT, the builder's operators released; *compiled is released too (may be NULL). */
HRESULT dml_graph_try_compile(struct dml_test_context *context, struct dml_graph_builder *builder,
        DML_EXECUTION_FLAGS flags);

#endif /* VKDML_TEST_OPS_DML_GRAPH_UTILS_H */
