/* The graph builder and its two runs (graph_test_utils.h). */
#include "dml/graph_test_utils.h"

#include <inttypes.h>
#include <math.h>

void graph_test_init(struct graph_test *graph)
{
    memset(graph, 0, sizeof(*graph));
}

static void describe_tensors(struct graph_test_tensor *tensors, const DML_TENSOR_DESC *const *descs, UINT count)
{
    const DML_BUFFER_TENSOR_DESC *buffer;
    UINT i;

    assert_true(count <= GRAPH_TEST_MAX_TENSORS);
    for (i = 0; i < count; ++i)
    {
        if (!descs[i])
            continue;
        buffer = descs[i]->Desc;
        tensors[i] = (struct graph_test_tensor){buffer->TotalTensorSizeInBytes, buffer->DataType, buffer->Flags};
    }
}

UINT graph_test_add_operator(struct graph_test *graph, struct dml_test_context *context, DML_OPERATOR_TYPE type,
        const void *desc, const char *name, const DML_TENSOR_DESC *const *inputs, UINT input_count,
        const DML_TENSOR_DESC *const *outputs, UINT output_count)
{
    UINT index = dml_graph_add_op(context, &graph->builder, type, desc);
    struct graph_test_node *node = &graph->nodes[index];

    graph->builder.op_nodes[index].Name = name;
    node->input_count = input_count;
    node->output_count = output_count;
    describe_tensors(node->inputs, inputs, input_count);
    describe_tensors(node->outputs, outputs, output_count);
    return index;
}

UINT graph_test_add_constant(struct graph_test *graph, const void *data, SIZE_T size, const char *name)
{
    UINT index = dml_graph_add_constant(&graph->builder, data, size);
    struct graph_test_node *node = &graph->nodes[index];

    graph->builder.constant_nodes[index].Name = name;
    node->output_count = 1;
    node->outputs[0] = (struct graph_test_tensor){size, DML_TENSOR_DATA_TYPE_UNKNOWN, DML_TENSOR_FLAG_NONE};
    return index;
}

void graph_test_input(struct graph_test *graph, UINT graph_input, UINT node, UINT node_input)
{
    dml_graph_connect_input(&graph->builder, graph_input, node, node_input);
}

void graph_test_edge(struct graph_test *graph, UINT from_node, UINT from_output, UINT to_node, UINT to_input)
{
    dml_graph_connect(&graph->builder, from_node, from_output, to_node, to_input);
}

void graph_test_output(struct graph_test *graph, UINT node, UINT node_output, UINT graph_output)
{
    dml_graph_connect_output(&graph->builder, node, node_output, graph_output);
}

/* ---- Nodes of common operators ---- */

static const DML_TENSOR_DESC *desc_of(const struct dml_test_tensor *tensor)
{
    return tensor ? &tensor->desc : NULL;
}

UINT graph_test_add_unary(struct graph_test *graph, struct dml_test_context *context, DML_OPERATOR_TYPE type,
        const char *name, const struct dml_test_tensor *input, const struct dml_test_tensor *output)
{
    /* The shape every such desc starts with; the optional pointers after it stay NULL. */
    struct
    {
        const DML_TENSOR_DESC *input, *output;
        const void *optional[4];
    } desc = {&input->desc, &output->desc, {NULL}};

    return graph_test_add_operator(graph, context, type, &desc, name, GRAPH_TEST_TENSORS(&input->desc),
            GRAPH_TEST_TENSORS(&output->desc));
}

UINT graph_test_add_binary(struct graph_test *graph, struct dml_test_context *context, DML_OPERATOR_TYPE type,
        const char *name, const struct dml_test_tensor *a, const struct dml_test_tensor *b,
        const struct dml_test_tensor *output)
{
    struct
    {
        const DML_TENSOR_DESC *a, *b, *output;
        const void *optional[4];
    } desc = {&a->desc, &b->desc, &output->desc, {NULL}};

    return graph_test_add_operator(graph, context, type, &desc, name, GRAPH_TEST_TENSORS(&a->desc, &b->desc),
            GRAPH_TEST_TENSORS(&output->desc));
}

UINT graph_test_add_conv(struct graph_test *graph, struct dml_test_context *context, const char *name,
        const struct dml_test_tensor *input, const struct dml_test_tensor *filter, const struct dml_test_tensor *bias,
        const struct dml_test_tensor *output, UINT pad, const DML_OPERATOR_DESC *activation)
{
    const UINT ones[2] = {1, 1}, pads[2] = {pad, pad}, zeros[2] = {0, 0};
    DML_CONVOLUTION_OPERATOR_DESC desc =
    {
        &input->desc, &filter->desc, desc_of(bias), &output->desc, DML_CONVOLUTION_MODE_CROSS_CORRELATION,
        DML_CONVOLUTION_DIRECTION_FORWARD, 2, ones, ones, pads, pads, zeros, 1, activation,
    };

    return graph_test_add_operator(graph, context, DML_OPERATOR_CONVOLUTION, &desc, name,
            GRAPH_TEST_TENSORS(&input->desc, &filter->desc, desc_of(bias)), GRAPH_TEST_TENSORS(&output->desc));
}

UINT graph_test_add_gemm(struct graph_test *graph, struct dml_test_context *context, const char *name,
        const struct dml_test_tensor *a, const struct dml_test_tensor *b, const struct dml_test_tensor *c,
        const struct dml_test_tensor *output, DML_MATRIX_TRANSFORM trans_b, float alpha,
        const DML_OPERATOR_DESC *activation)
{
    DML_GEMM_OPERATOR_DESC desc =
    {
        &a->desc, &b->desc, desc_of(c), &output->desc, DML_MATRIX_TRANSFORM_NONE, trans_b, alpha, c ? 1.0f : 0.0f,
        activation,
    };

    return graph_test_add_operator(graph, context, DML_OPERATOR_GEMM, &desc, name,
            GRAPH_TEST_TENSORS(&a->desc, &b->desc, desc_of(c)), GRAPH_TEST_TENSORS(&output->desc));
}

UINT graph_test_add_batch_norm(struct graph_test *graph, struct dml_test_context *context, const char *name,
        const struct dml_test_tensor *input, const struct dml_test_tensor *const *parameters,
        const struct dml_test_tensor *output, const DML_OPERATOR_DESC *activation)
{
    DML_BATCH_NORMALIZATION_OPERATOR_DESC desc =
    {
        &input->desc, &parameters[0]->desc, &parameters[1]->desc, &parameters[2]->desc, &parameters[3]->desc,
        &output->desc, TRUE, 1e-3f, activation,
    };

    return graph_test_add_operator(graph, context, DML_OPERATOR_BATCH_NORMALIZATION, &desc, name,
            GRAPH_TEST_TENSORS(&input->desc, &parameters[0]->desc, &parameters[1]->desc, &parameters[2]->desc,
            &parameters[3]->desc), GRAPH_TEST_TENSORS(&output->desc));
}

DML_GRAPH_DESC *graph_test_desc(struct graph_test *graph)
{
    struct dml_graph_builder *builder = &graph->builder;

    builder->desc.Nodes = builder->nodes;
    builder->desc.InputEdges = builder->inputs;
    builder->desc.IntermediateEdges = builder->intermediates;
    builder->desc.OutputEdges = builder->outputs;
    return &builder->desc;
}

/* ---- Compiling ---- */

HRESULT graph_test_try_compile(struct dml_test_context *context, struct graph_test *graph, const DML_GRAPH_DESC *desc,
        DML_EXECUTION_FLAGS flags, IDMLCompiledOperator **compiled)
{
    IDMLDevice1 *device1;
    HRESULT hr;

    check_hr(IDMLDevice_QueryInterface(context->dml, &IID_IDMLDevice1, (void **)&device1), S_OK);
    *compiled = NULL;
    hr = IDMLDevice1_CompileGraph(device1, desc ? desc : graph_test_desc(graph), flags, &IID_IDMLCompiledOperator,
            (void **)compiled);
    IDMLDevice1_Release(device1);
    return hr;
}

IDMLCompiledOperator *graph_test_compile(struct dml_test_context *context, struct graph_test *graph,
        DML_EXECUTION_FLAGS flags)
{
    IDMLCompiledOperator *compiled;

    vkdml_test_log_reset();
    check_hr(graph_test_try_compile(context, graph, NULL, flags, &compiled), S_OK);
    assert_non_null(compiled);
    assert_no_log_errors();
    return compiled;
}

void graph_test_expect_failure(struct dml_test_context *context, struct graph_test *graph,
        const DML_GRAPH_DESC *desc, HRESULT expected, const char *message)
{
    IDMLCompiledOperator *compiled;

    vkdml_test_log_reset();
    check_hr(graph_test_try_compile(context, graph, desc, DML_EXECUTION_FLAG_NONE, &compiled), expected);
    assert_null(compiled);
    check_one_error(message);
}

/* ---- Inputs ---- */

/* The tensor a graph input stands for: its first consumer's input. */
static struct graph_test_tensor graph_input_tensor(const struct graph_test *graph, UINT graph_input)
{
    const DML_INPUT_GRAPH_EDGE_DESC *edge;
    UINT i;

    for (i = 0; i < graph->builder.desc.InputEdgeCount; ++i)
    {
        edge = &graph->builder.input_edges[i];
        if (edge->GraphInputIndex == graph_input)
            return graph->nodes[edge->ToNodeIndex].inputs[edge->ToNodeInputIndex];
    }
    fail_msg("graph input %u feeds no node", graph_input);
    return (struct graph_test_tensor){0};
}

static void *random_bytes(const struct graph_test_tensor *tensor, unsigned int seed)
{
    uint32_t random = 0x9e3779b9u * (seed + 1);
    uint8_t *bytes = calloc(1, tensor->bytes);
    UINT64 i;

    assert_non_null(bytes);
    for (i = 0; tensor->type == DML_TENSOR_DATA_TYPE_FLOAT32 && i < tensor->bytes / 4; ++i)
        ((float *)bytes)[i] = ref_random_float(&random, -1.0f, 1.0f);
    for (i = 0; tensor->type == DML_TENSOR_DATA_TYPE_FLOAT16 && i < tensor->bytes / 2; ++i)
        ((uint16_t *)bytes)[i] = ref_float_to_half(ref_random_float(&random, -1.0f, 1.0f));
    return bytes;
}

void graph_test_prepare_inputs(struct dml_test_context *context, struct graph_test *graph)
{
    struct graph_test_tensor *tensor;
    UINT i;

    assert_true(graph->builder.desc.InputCount <= GRAPH_TEST_MAX_IO);
    for (i = 0; i < graph->builder.desc.InputCount; ++i)
    {
        if (graph->input_bytes[i])
            continue;
        tensor = &graph->input_tensors[i];
        *tensor = graph_input_tensor(graph, i);
        graph->input_bytes[i] = random_bytes(tensor, 1000 + i);
        if (graph->data[i])
            memcpy(graph->input_bytes[i], graph->data[i], tensor->bytes);
        if (tensor->flags & DML_TENSOR_FLAG_OWNED_BY_DML)
        {
            graph->owned_buffers[i].buffer = create_upload_buffer(context->d3d.device, tensor->bytes);
            write_mapped(graph->owned_buffers[i].buffer, 0, graph->input_bytes[i], tensor->bytes);
        }
        else
        {
            graph->input_buffers[i].buffer = dml_test_create_buffer(context, tensor->bytes, graph->input_bytes[i]);
        }
    }
}

/* ---- Runs ---- */

static void read_output(struct dml_test_context *context, ID3D12Resource *buffer,
        const struct graph_test_tensor *tensor, struct graph_test_outputs *outputs, UINT index)
{
    outputs->tensors[index] = *tensor;
    outputs->bytes[index] = malloc(tensor->bytes);
    assert_non_null(outputs->bytes[index]);
    dml_test_read_buffer(context, buffer, 0, outputs->bytes[index], tensor->bytes);
}

/* The producer's tensor of graph output `index`. */
static const struct graph_test_tensor *graph_output_tensor(const struct graph_test *graph, UINT index)
{
    const DML_OUTPUT_GRAPH_EDGE_DESC *edge;
    UINT i;

    for (i = 0; i < graph->builder.desc.OutputEdgeCount; ++i)
    {
        edge = &graph->builder.output_edges[i];
        if (edge->GraphOutputIndex == index)
            return &graph->nodes[edge->FromNodeIndex].outputs[edge->FromNodeOutputIndex];
    }
    fail_msg("graph output %u has no edge", index);
    return NULL;
}

static void scribble_owned(struct graph_test *graph, bool restore)
{
    void *garbage;
    UINT i;

    for (i = 0; i < graph->builder.desc.InputCount; ++i)
    {
        if (!graph->owned_buffers[i].buffer)
            continue;
        garbage = malloc(graph->input_tensors[i].bytes);
        assert_non_null(garbage);
        fill_pattern(garbage, graph->input_tensors[i].bytes, 31 + i);
        write_mapped(graph->owned_buffers[i].buffer, 0, restore ? graph->input_bytes[i] : garbage,
                graph->input_tensors[i].bytes);
        free(garbage);
    }
}

/* The initializer's input binding: one entry per input when any is OWNED_BY_DML, else none. */
static UINT owned_count(const struct dml_test_binding *owned, UINT count)
{
    UINT i;

    for (i = 0; i < count; ++i)
    {
        if (owned[i].buffer)
            return count;
    }
    return 0;
}

ID3D12Resource *graph_test_initialize(struct dml_test_context *context, struct graph_test *graph,
        IDMLCompiledOperator *compiled)
{
    graph_test_prepare_inputs(context, graph);
    return dml_test_initialize(context, compiled, graph->owned_buffers,
            owned_count(graph->owned_buffers, graph->builder.desc.InputCount));
}

void graph_test_run_compiled(struct dml_test_context *context, struct graph_test *graph,
        IDMLCompiledOperator *compiled, struct graph_test_outputs *outputs)
{
    struct dml_test_binding bindings[GRAPH_TEST_MAX_IO] = {{0}};
    const struct graph_test_tensor *tensor;
    ID3D12Resource *persistent;
    UINT i;

    graph_test_prepare_inputs(context, graph);
    memset(outputs, 0, sizeof(*outputs));
    outputs->count = graph->builder.desc.OutputCount;
    for (i = 0; i < graph->builder.desc.OutputCount; ++i)
        bindings[i].buffer = dml_test_create_buffer(context, graph_output_tensor(graph, i)->bytes, NULL);
    persistent = graph_test_initialize(context, graph, compiled);
    scribble_owned(graph, false);
    dml_test_execute(context, compiled, persistent, graph->input_buffers, graph->builder.desc.InputCount, bindings,
            graph->builder.desc.OutputCount);
    scribble_owned(graph, true);
    for (i = 0; i < graph->builder.desc.OutputCount; ++i)
    {
        tensor = graph_output_tensor(graph, i);
        read_output(context, bindings[i].buffer, tensor, outputs, i);
    }
    dml_test_release_bindings(bindings, graph->builder.desc.OutputCount);
    if (persistent)
        release_last(persistent);
}

/* What the unfused run keeps per node: one buffer per output. */
struct unfused_node
{
    bool done;
    ID3D12Resource *outputs[GRAPH_TEST_MAX_TENSORS];
};

/* The node input's source: a graph input (returns its index) or a node output (`*from`, `*from_output`). */
static bool find_source(const struct graph_test *graph, UINT node, UINT input, UINT *graph_input, UINT *from,
        UINT *from_output)
{
    const DML_INTERMEDIATE_GRAPH_EDGE_DESC *edge;
    const DML_INPUT_GRAPH_EDGE_DESC *input_edge;
    UINT i;

    *graph_input = *from = *from_output = ~0u;
    for (i = 0; i < graph->builder.desc.InputEdgeCount; ++i)
    {
        input_edge = &graph->builder.input_edges[i];
        if (input_edge->ToNodeIndex == node && input_edge->ToNodeInputIndex == input)
        {
            *graph_input = input_edge->GraphInputIndex;
            return true;
        }
    }
    for (i = 0; i < graph->builder.desc.IntermediateEdgeCount; ++i)
    {
        edge = &graph->builder.intermediate_edges[i];
        if (edge->ToNodeIndex == node && edge->ToNodeInputIndex == input)
        {
            *from = edge->FromNodeIndex;
            *from_output = edge->FromNodeOutputIndex;
            return true;
        }
    }
    return false;
}

/* Binds node `index`'s inputs if all their producers ran; false otherwise. */
static bool bind_node_inputs(struct graph_test *graph, const struct unfused_node *state, UINT index,
        struct dml_test_binding *inputs, struct dml_test_binding *owned)
{
    const struct graph_test_node *node = &graph->nodes[index];
    UINT i, graph_input, from, from_output;

    memset(inputs, 0, sizeof(*inputs) * GRAPH_TEST_MAX_TENSORS);
    memset(owned, 0, sizeof(*owned) * GRAPH_TEST_MAX_TENSORS);
    for (i = 0; i < node->input_count; ++i)
    {
        if (!find_source(graph, index, i, &graph_input, &from, &from_output))
            continue;
        if (graph_input != ~0u)
        {
            if (graph->owned_buffers[graph_input].buffer)
                owned[i] = graph->owned_buffers[graph_input];
            else
                inputs[i] = graph->input_buffers[graph_input];
        }
        else if (!state[from].done)
        {
            return false;
        }
        else
        {
            inputs[i].buffer = state[from].outputs[from_output];
        }
    }
    return true;
}

static void run_node(struct dml_test_context *context, struct graph_test *graph, struct unfused_node *state,
        UINT index, const struct dml_test_binding *inputs, const struct dml_test_binding *owned)
{
    struct graph_test_node *node = &graph->nodes[index];
    struct dml_test_binding outputs[GRAPH_TEST_MAX_TENSORS] = {{0}};
    IDMLCompiledOperator *compiled = NULL;
    ID3D12Resource *persistent;
    UINT i;

    if (!graph->builder.ops[index])
    {
        const DML_CONSTANT_DATA_GRAPH_NODE_DESC *constant = &graph->builder.constant_nodes[index];

        state[index].outputs[0] = dml_test_create_buffer(context, constant->DataSize, constant->Data);
        return;
    }
    for (i = 0; i < node->output_count; ++i)
    {
        if (node->outputs[i].bytes)
            outputs[i].buffer = state[index].outputs[i] = dml_test_create_buffer(context, node->outputs[i].bytes, NULL);
    }
    check_hr(IDMLDevice_CompileOperator(context->dml, graph->builder.ops[index], DML_EXECUTION_FLAG_NONE,
            &IID_IDMLCompiledOperator, (void **)&compiled), S_OK);
    persistent = dml_test_initialize(context, compiled, owned, owned_count(owned, node->input_count));
    dml_test_execute(context, compiled, persistent, inputs, node->input_count, outputs, node->output_count);
    if (persistent)
        release_last(persistent);
    release_last(compiled);
}

void graph_test_run_unfused(struct dml_test_context *context, struct graph_test *graph,
        struct graph_test_outputs *outputs)
{
    struct dml_test_binding inputs[GRAPH_TEST_MAX_TENSORS], owned[GRAPH_TEST_MAX_TENSORS];
    struct unfused_node state[DML_GRAPH_MAX_NODES] = {{0}};
    const DML_OUTPUT_GRAPH_EDGE_DESC *edge;
    UINT i, j, done = 0;
    bool progress;

    graph_test_prepare_inputs(context, graph);
    memset(outputs, 0, sizeof(*outputs));
    outputs->count = graph->builder.desc.OutputCount;
    do
    {
        progress = false;
        for (i = 0; i < graph->builder.desc.NodeCount; ++i)
        {
            if (state[i].done || !bind_node_inputs(graph, state, i, inputs, owned))
                continue;
            run_node(context, graph, state, i, inputs, owned);
            state[i].done = progress = true;
            ++done;
        }
    } while (progress);
    assert_int_equal(done, graph->builder.desc.NodeCount);

    for (i = 0; i < graph->builder.desc.OutputEdgeCount; ++i)
    {
        edge = &graph->builder.output_edges[i];
        read_output(context, state[edge->FromNodeIndex].outputs[edge->FromNodeOutputIndex],
                &graph->nodes[edge->FromNodeIndex].outputs[edge->FromNodeOutputIndex], outputs,
                edge->GraphOutputIndex);
    }
    for (i = 0; i < graph->builder.desc.NodeCount; ++i)
    {
        for (j = 0; j < GRAPH_TEST_MAX_TENSORS; ++j)
        {
            if (state[i].outputs[j])
                release_last(state[i].outputs[j]);
        }
    }
}

/* ---- Comparing ---- */

double graph_test_tolerance(DML_TENSOR_DATA_TYPE type)
{
    /* FLOAT16: fused chains keep in fp32 what the unfused run rounds to fp16, a few roundings.
     * FLOAT32: a folded batch norm reassociates each output's sum (up to ~100 products of
     * magnitude ~1 in these tests), so 256 roundings; a wrong fusion is off by far more. */
    return type == DML_TENSOR_DATA_TYPE_FLOAT16 ? 8.0 * ldexp(1.0, -11) : 256.0 * ldexp(1.0, -24);
}

void graph_test_compare(const struct graph_test_outputs *outputs, const struct graph_test_outputs *reference,
        double tolerance)
{
    const struct graph_test_tensor *tensor;
    double got, expected, bound;
    UINT i;
    UINT64 j;

    assert_int_equal(outputs->count, reference->count);
    for (i = 0; i < outputs->count; ++i)
    {
        tensor = &reference->tensors[i];
        assert_int_equal(outputs->tensors[i].bytes, tensor->bytes);
        if (tensor->type != DML_TENSOR_DATA_TYPE_FLOAT32 && tensor->type != DML_TENSOR_DATA_TYPE_FLOAT16)
        {
            if (memcmp(outputs->bytes[i], reference->bytes[i], tensor->bytes))
                fail_msg("graph output %u (%s) differs from the unfused run", i, dml_test_type_name(tensor->type));
            continue;
        }
        bound = tolerance < 0.0 ? graph_test_tolerance(tensor->type) : tolerance;
        for (j = 0; j < tensor->bytes / dml_test_element_size(tensor->type); ++j)
        {
            got = dml_test_read_float(outputs->bytes[i], tensor->type, j);
            expected = dml_test_read_float(reference->bytes[i], tensor->type, j);
            if (!(fabs(got - expected) <= bound * (1.0 + fabs(expected))))
                fail_msg("graph output %u, element %" PRIu64 ": %.9g, the unfused run %.9g", i, j, got, expected);
        }
    }
}

void graph_test_outputs_cleanup(struct graph_test_outputs *outputs)
{
    UINT i;

    for (i = 0; i < outputs->count; ++i)
        free(outputs->bytes[i]);
    memset(outputs, 0, sizeof(*outputs));
}

void graph_test_check(struct dml_test_context *context, struct graph_test *graph, DML_EXECUTION_FLAGS flags,
        struct vkdml_graph_report *report)
{
    struct graph_test_outputs outputs, reference;
    IDMLCompiledOperator *compiled;

    graph_test_run_unfused(context, graph, &reference);
    compiled = graph_test_compile(context, graph, flags);
    if (report)
        check_hr(vkdml_get_graph_report(compiled, report, sizeof(*report)), S_OK);
    graph_test_run_compiled(context, graph, compiled, &outputs);
    graph_test_compare(&outputs, &reference, -1.0);
    release_last(compiled);
    graph_test_outputs_cleanup(&outputs);
    graph_test_outputs_cleanup(&reference);
}

void graph_test_release(struct graph_test *graph)
{
    UINT i;

    for (i = 0; i < graph->builder.desc.NodeCount; ++i)
    {
        if (graph->builder.ops[i])
            release_last(graph->builder.ops[i]);
    }
    for (i = 0; i < GRAPH_TEST_MAX_IO; ++i)
    {
        free(graph->input_bytes[i]);
        graph->input_bytes[i] = NULL;
    }
    dml_test_release_bindings(graph->input_buffers, GRAPH_TEST_MAX_IO);
    dml_test_release_bindings(graph->owned_buffers, GRAPH_TEST_MAX_IO);
}
