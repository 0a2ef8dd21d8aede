/*
 * The graph API's conformance tests on test/ops/dml_graph_utils.h's builder (the model for the
 * bench's graph presets): named nodes that remember their tensors, and runs of a graph two ways on
 * the same inputs: compiled by IDMLDevice1::CompileGraph, and "unfused" (each operator node through
 * CompileOperator, one by one, in dependency order: the reference the compiled graph is compared
 * with). Built on test/ops/dml_test_utils.h's context, buffers and runs.
 *
 * Each operator node records the byte size, type and flags of its flattened input and output
 * tensors (desc-field order, optional ones included as NULL: docs/graph.md, "Rules"), which is
 * what the unfused run allocates and binds. Graph inputs take their tensor from the first input
 * edge that names them; an OWNED_BY_DML one goes into an UPLOAD buffer bound to the initializer.
 */
#ifndef VKDML_TEST_DML_GRAPH_TEST_UTILS_H
#define VKDML_TEST_DML_GRAPH_TEST_UTILS_H

#include "ops/dml_graph_utils.h"

#define GRAPH_TEST_MAX_IO 16                /* graph inputs or outputs */
#define GRAPH_TEST_MAX_TENSORS 8            /* flattened inputs or outputs of one node */

/* A node's tensor as the unfused run needs it; bytes 0: an optional tensor left out. */
struct graph_test_tensor
{
    UINT64 bytes;
    DML_TENSOR_DATA_TYPE type;
    DML_TENSOR_FLAGS flags;
};

/* What the unfused run needs of a node: its flattened tensors (a constant: one output). */
struct graph_test_node
{
    UINT input_count, output_count;
    struct graph_test_tensor inputs[GRAPH_TEST_MAX_TENSORS], outputs[GRAPH_TEST_MAX_TENSORS];
};

struct graph_test
{
    /* The desc, its nodes and edges; builder.desc's counts are the graph's (tests may break them). */
    struct dml_graph_builder builder;
    struct graph_test_node nodes[DML_GRAPH_MAX_NODES];

    /* Graph input data (graph_test_prepare_inputs): `data` set by the test before, else random values
     * in [-1, 1] for FLOAT32 and FLOAT16 and zeros for other types. */
    const void *data[GRAPH_TEST_MAX_IO];
    void *input_bytes[GRAPH_TEST_MAX_IO];
    struct graph_test_tensor input_tensors[GRAPH_TEST_MAX_IO];
    struct dml_test_binding input_buffers[GRAPH_TEST_MAX_IO], owned_buffers[GRAPH_TEST_MAX_IO];
};

/* Host copies of a run's graph outputs, in GraphOutputIndex order. */
struct graph_test_outputs
{
    UINT count;
    void *bytes[GRAPH_TEST_MAX_IO];
    struct graph_test_tensor tensors[GRAPH_TEST_MAX_IO];
};

void graph_test_init(struct graph_test *graph);
/* Creates the operator (asserting success) and adds a node for it; `inputs` and `outputs` are the
 * operator's flattened tensors, NULL where an optional one is left out. Returns the node index. */
UINT graph_test_add_operator(struct graph_test *graph, struct dml_test_context *context, DML_OPERATOR_TYPE type,
        const void *desc, const char *name, const DML_TENSOR_DESC *const *inputs, UINT input_count,
        const DML_TENSOR_DESC *const *outputs, UINT output_count);
/* A constant-data node (FL 6_2); `data` must live until CompileGraph and the unfused run. */
UINT graph_test_add_constant(struct graph_test *graph, const void *data, SIZE_T size, const char *name);
/* The edges; nothing is checked here, so tests can describe bad graphs. */
void graph_test_input(struct graph_test *graph, UINT graph_input, UINT node, UINT node_input);
void graph_test_edge(struct graph_test *graph, UINT from_node, UINT from_output, UINT to_node, UINT to_input);
void graph_test_output(struct graph_test *graph, UINT node, UINT node_output, UINT graph_output);
/* Nodes of common operators, with tensors from dml_test_tensor_init():
 * - unary: a desc of {InputTensor, OutputTensor} and then only optional pointers, left NULL
 *   (ELEMENT_WISE_IDENTITY, EXP, ..., ACTIVATION_RELU, SIGMOID, GELU, SOFTMAX);
 * - binary: {ATensor, BTensor, OutputTensor} and then only optional pointers (ELEMENT_WISE_ADD, ADD1,
 *   MULTIPLY, SUBTRACT, ...);
 * - conv: 2-D CONVOLUTION, stride 1, `pad` on every side; bias and activation may be NULL;
 * - gemm: GEMM, C and activation may be NULL;
 * - batch_norm: spatial BATCH_NORMALIZATION, epsilon 1e-3; activation may be NULL. */
UINT graph_test_add_unary(struct graph_test *graph, struct dml_test_context *context, DML_OPERATOR_TYPE type,
        const char *name, const struct dml_test_tensor *input, const struct dml_test_tensor *output);
UINT graph_test_add_binary(struct graph_test *graph, struct dml_test_context *context, DML_OPERATOR_TYPE type,
        const char *name, const struct dml_test_tensor *a, const struct dml_test_tensor *b,
        const struct dml_test_tensor *output);
UINT graph_test_add_conv(struct graph_test *graph, struct dml_test_context *context, const char *name,
        const struct dml_test_tensor *input, const struct dml_test_tensor *filter, const struct dml_test_tensor *bias,
        const struct dml_test_tensor *output, UINT pad, const DML_OPERATOR_DESC *activation);
UINT graph_test_add_gemm(struct graph_test *graph, struct dml_test_context *context, const char *name,
        const struct dml_test_tensor *a, const struct dml_test_tensor *b, const struct dml_test_tensor *c,
        const struct dml_test_tensor *output, DML_MATRIX_TRANSFORM trans_b, float alpha,
        const DML_OPERATOR_DESC *activation);
UINT graph_test_add_batch_norm(struct graph_test *graph, struct dml_test_context *context, const char *name,
        const struct dml_test_tensor *input, const struct dml_test_tensor *const *parameters,
        const struct dml_test_tensor *output, const DML_OPERATOR_DESC *activation);

/* Points builder.desc at the builder's arrays and returns it. */
DML_GRAPH_DESC *graph_test_desc(struct graph_test *graph);

/* IDMLDevice1::CompileGraph of `desc` (graph_test_desc() of the graph when NULL); returns its HRESULT.
 * Unlike dml_graph_try_compile(), the graph keeps its operators: the unfused run and further
 * compilations use them. */
HRESULT graph_test_try_compile(struct dml_test_context *context, struct graph_test *graph, const DML_GRAPH_DESC *desc,
        DML_EXECUTION_FLAGS flags, IDMLCompiledOperator **compiled);
/* CompileGraph of the graph as built, asserting success and that nothing was logged as an error. */
IDMLCompiledOperator *graph_test_compile(struct dml_test_context *context, struct graph_test *graph,
        DML_EXECUTION_FLAGS flags);
/* CompileGraph fails with `expected` and one error line containing `message`; no object comes back. */
void graph_test_expect_failure(struct dml_test_context *context, struct graph_test *graph,
        const DML_GRAPH_DESC *desc, HRESULT expected, const char *message);

/* Creates the graph inputs' buffers and host data (once; the runs call it). */
void graph_test_prepare_inputs(struct dml_test_context *context, struct graph_test *graph);
/* Runs `compiled`'s initializer, OWNED_BY_DML graph inputs bound to it (graph input order); returns
 * the persistent resource (NULL when none is needed). */
ID3D12Resource *graph_test_initialize(struct dml_test_context *context, struct graph_test *graph,
        IDMLCompiledOperator *compiled);
/* Initializes `compiled` (OWNED_BY_DML graph inputs bound to the initializer), overwrites those
 * upload buffers (the weights must live in the persistent resource by now), executes once and
 * reads the graph outputs back; then restores the upload buffers. */
void graph_test_run_compiled(struct dml_test_context *context, struct graph_test *graph,
        IDMLCompiledOperator *compiled, struct graph_test_outputs *outputs);
/* The reference: every operator node through CompileOperator, in dependency order, on the same inputs. */
void graph_test_run_unfused(struct dml_test_context *context, struct graph_test *graph,
        struct graph_test_outputs *outputs);
/* Fails unless every output matches the reference: FLOAT32 and FLOAT16 within `tolerance` x (1 + |reference|)
 * (graph_test_tolerance() when negative), other types bit for bit. */
void graph_test_compare(const struct graph_test_outputs *outputs, const struct graph_test_outputs *reference,
        double tolerance);
/* The fused arithmetic's tolerance for a type: what fusing (kept intermediates, folded batch norm)
 * may change against the unfused run. */
double graph_test_tolerance(DML_TENSOR_DATA_TYPE type);
void graph_test_outputs_cleanup(struct graph_test_outputs *outputs);

/* Compile, run compiled and unfused, compare (graph_test_tolerance), release the compiled graph.
 * `report` (may be NULL) receives vkdml_get_graph_report()'s report of the compiled graph. */
void graph_test_check(struct dml_test_context *context, struct graph_test *graph, DML_EXECUTION_FLAGS flags,
        struct vkdml_graph_report *report);

/* Final Release of every operator left and every input buffer (asserted): the compiled graph keeps none. */
void graph_test_release(struct graph_test *graph);

/* The list of one node's tensors: GRAPH_TEST_TENSORS(&a.desc, NULL, &b.desc) gives array and count. */
#define GRAPH_TEST_TENSORS(...) (const DML_TENSOR_DESC *const []){__VA_ARGS__}, \
        (UINT)ARRAY_SIZE(((const DML_TENSOR_DESC *const []){__VA_ARGS__}))

#endif /* VKDML_TEST_DML_GRAPH_TEST_UTILS_H */
