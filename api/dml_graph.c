/*
 * IDMLDevice1::CompileGraph's object-layer half: checks a DML_GRAPH_DESC against DirectML's graph
 * rules (docs/graph.md, "Rules"), copies what the compiled graph keeps (operator descs, constant
 * data, names: it references no IDMLOperator afterwards), orders the nodes so that every node
 * follows its producers, and hands the backend a vkdml_graph_view to compile.
 */

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dml_private.h"
#include "vkdml.h"

#define NO_NODE UINT32_MAX

struct dml_graph
{
    uint32_t node_count;
    struct vkdml_desc_copy *copies;         /* [node_count]; memory NULL for constant nodes */
    struct vkdml_graph_node *nodes;         /* [node_count], in execution order */
    struct vkdml_graph_source *sources;     /* every node's inputs, then the graph outputs */
    void **constants;                       /* [node_count]: constant data copies */
    char **labels;                          /* [node_count] */
    DML_BUFFER_TENSOR_DESC *input_descs;    /* [input_count]: the bindings' descs */
    const DML_BUFFER_TENSOR_DESC **input_views;
    const DML_BUFFER_TENSOR_DESC **output_views;
    struct vkdml_graph_view view;
    struct vkdml_operator_view bindings;     /* what binding tables check: "GRAPH" */
};

/* The desc's nodes as validation sees them, in the application's numbering. */
struct graph_check
{
    const DML_GRAPH_DESC *desc;
    struct dml_device *device;
    const struct vkdml_operator_view **ops;     /* [NodeCount]; NULL for constant nodes */
    const DML_CONSTANT_DATA_GRAPH_NODE_DESC **constants;
    const char **names;
    struct vkdml_graph_source **inputs;         /* [NodeCount][input_count] */
    const char ***input_edges;                  /* the edge that connected each input, for messages */
    uint32_t **output_uses;                     /* [NodeCount][output_count]: edges reading each output */
    struct vkdml_graph_source *outputs;         /* [OutputCount] */
    const DML_BUFFER_TENSOR_DESC **graph_inputs;    /* [InputCount]: the first consumer's tensor */
    uint64_t *graph_input_sizes;
    int *graph_input_owned;                     /* -1: no consumer yet, else 0/1 */
};

static const char *node_name(const struct graph_check *check, uint32_t node)
{
    if (check->names[node])
        return check->names[node];
    return check->ops[node] ? check->ops[node]->name : "CONSTANT";
}

/* One ERR line "CompileGraph: <where>: <rule>" and E_INVALIDARG. */
static HRESULT VKDML_PRINTF(1, 2) graph_error(const char *fmt, ...)
{
    char message[512];
    va_list args;

    va_start(args, fmt);
    vsnprintf(message, sizeof(message), fmt, args);
    va_end(args);
    ERR("CompileGraph: %s", message);
    return E_INVALIDARG;
}

static const char *edge_label(const char *kind, uint32_t index, const char *name)
{
    return name ? vkdml_debug_sprintf("%s edge %u (\"%s\")", kind, index, name)
            : vkdml_debug_sprintf("%s edge %u", kind, index);
}

static HRESULT check_nodes(struct graph_check *check)
{
    const DML_GRAPH_DESC *desc = check->desc;
    uint32_t i;

    for (i = 0; i < desc->NodeCount; ++i)
    {
        const DML_GRAPH_NODE_DESC *node = &desc->Nodes[i];

        if (node->Type == DML_GRAPH_NODE_TYPE_OPERATOR && node->Desc)
        {
            const DML_OPERATOR_GRAPH_NODE_DESC *op_desc = node->Desc;
            struct dml_operator *op = unsafe_impl_from_IDMLOperator(op_desc->Operator);

            check->names[i] = op_desc->Name;
            if (!op || op->device != check->device)
                return graph_error("node %u: Operator %p is not an operator of this DML device.", i,
                        (void *)op_desc->Operator);
            check->ops[i] = &op->desc.view;
        }
        else if (node->Type == DML_GRAPH_NODE_TYPE_CONSTANT && node->Desc)
        {
            const DML_CONSTANT_DATA_GRAPH_NODE_DESC *constant = node->Desc;

            check->names[i] = constant->Name;
            if (!constant->Data || !constant->DataSize)
                return graph_error("node %u (%s): a constant node needs Data and a DataSize above 0.", i,
                        node_name(check, i));
            check->constants[i] = constant;
        }
        else
        {
            return graph_error("node %u: Type %#x with Desc %p; nodes are OPERATOR or CONSTANT with a desc.",
                    i, (unsigned int)node->Type, node->Desc);
        }
    }
    return S_OK;
}

static HRESULT alloc_node_tables(struct graph_check *check)
{
    const DML_GRAPH_DESC *desc = check->desc;
    uint32_t i, j;

    for (i = 0; i < desc->NodeCount; ++i)
    {
        const struct vkdml_operator_view *op = check->ops[i];
        uint32_t inputs = op ? op->input_count : 0, outputs = op ? op->output_count : 1;

        if (!(check->inputs[i] = calloc(inputs + 1, sizeof(**check->inputs)))
                || !(check->input_edges[i] = calloc(inputs + 1, sizeof(**check->input_edges)))
                || !(check->output_uses[i] = calloc(outputs, sizeof(**check->output_uses))))
            return E_OUTOFMEMORY;
        for (j = 0; j < inputs; ++j)
            check->inputs[i][j].kind = VKDML_GRAPH_SOURCE_NONE;
    }
    return S_OK;
}

/* The tensor of input `input` of operator node `node`: the edge `edge` may connect it once. */
static HRESULT check_target(struct graph_check *check, const char *edge, uint32_t node, uint32_t input,
        const DML_BUFFER_TENSOR_DESC **tensor)
{
    const struct vkdml_operator_view *op;

    if (node >= check->desc->NodeCount)
        return graph_error("%s: ToNodeIndex %u is not below NodeCount %u.", edge, node, check->desc->NodeCount);
    if (!(op = check->ops[node]))
        return graph_error("%s: node %u (%s) is a constant node, which has no inputs.", edge, node,
                node_name(check, node));
    if (input >= op->input_count)
        return graph_error("%s: ToNodeInputIndex %u of node %u (%s) is not below its %u inputs.", edge,
                input, node, node_name(check, node), op->input_count);
    if (!(*tensor = op->inputs[input]))
        return graph_error("%s: input %u of node %u (%s) is an absent optional tensor (NULL in its desc).",
                edge, input, node, node_name(check, node));
    if (check->input_edges[node][input])
        return graph_error("%s: input %u of node %u (%s) is already connected by %s; an input has one edge.",
                edge, input, node, node_name(check, node), check->input_edges[node][input]);
    check->input_edges[node][input] = edge;
    return S_OK;
}

/* The bytes output `output` of node `node` holds, for a connection through `edge`. */
static HRESULT check_source(struct graph_check *check, const char *edge, uint32_t node, uint32_t output,
        uint64_t *size)
{
    if (node >= check->desc->NodeCount)
        return graph_error("%s: FromNodeIndex %u is not below NodeCount %u.", edge, node,
                check->desc->NodeCount);
    if (!check->ops[node])
    {
        if (output)
            return graph_error("%s: FromNodeOutputIndex %u of constant node %u (%s); a constant node has "
                    "output 0 only.", edge, output, node, node_name(check, node));
        *size = check->constants[node]->DataSize;
        ++check->output_uses[node][0];
        return S_OK;
    }
    if (output >= check->ops[node]->output_count || !check->ops[node]->outputs[output])
        return graph_error("%s: FromNodeOutputIndex %u of node %u (%s) is not one of its outputs.", edge,
                output, node, node_name(check, node));
    *size = check->ops[node]->outputs[output]->TotalTensorSizeInBytes;
    ++check->output_uses[node][output];
    return S_OK;
}

static HRESULT check_input_edges(struct graph_check *check)
{
    const DML_GRAPH_DESC *desc = check->desc;
    const DML_BUFFER_TENSOR_DESC *tensor;
    uint32_t i;
    HRESULT hr;

    for (i = 0; i < desc->InputEdgeCount; ++i)
    {
        const DML_INPUT_GRAPH_EDGE_DESC *edge = desc->InputEdges[i].Desc;
        const char *label = edge_label("input", i, edge && desc->InputEdges[i].Type == DML_GRAPH_EDGE_TYPE_INPUT
                ? edge->Name : NULL);
        bool owned;

        if (desc->InputEdges[i].Type != DML_GRAPH_EDGE_TYPE_INPUT || !edge)
            return graph_error("%s: Type %#x with Desc %p; InputEdges hold INPUT edges with a desc.", label,
                    (unsigned int)desc->InputEdges[i].Type, (const void *)edge);
        if (edge->GraphInputIndex >= desc->InputCount)
            return graph_error("%s: GraphInputIndex %u is not below InputCount %u.", label,
                    edge->GraphInputIndex, desc->InputCount);
        if (FAILED(hr = check_target(check, label, edge->ToNodeIndex, edge->ToNodeInputIndex, &tensor)))
            return hr;
        owned = tensor->Flags & DML_TENSOR_FLAG_OWNED_BY_DML;
        if (check->graph_input_owned[edge->GraphInputIndex] >= 0
                && check->graph_input_owned[edge->GraphInputIndex] != owned)
            return graph_error("%s: input %u of node %u (%s) %s OWNED_BY_DML but another input fed by graph "
                    "input %u %s; its consumers agree on the flag.", label, edge->ToNodeInputIndex, edge->ToNodeIndex,
                    node_name(check, edge->ToNodeIndex), owned ? "is" : "is not", edge->GraphInputIndex,
                    owned ? "is not" : "is");
        check->graph_input_owned[edge->GraphInputIndex] = owned;
        if (!check->graph_inputs[edge->GraphInputIndex])
            check->graph_inputs[edge->GraphInputIndex] = tensor;
        check->graph_input_sizes[edge->GraphInputIndex] = VKDML_MAX(check->graph_input_sizes[edge->GraphInputIndex],
                tensor->TotalTensorSizeInBytes);
        check->inputs[edge->ToNodeIndex][edge->ToNodeInputIndex] =
                (struct vkdml_graph_source){VKDML_GRAPH_SOURCE_INPUT, edge->GraphInputIndex, 0};
    }
    return S_OK;
}

static HRESULT check_intermediate_edges(struct graph_check *check)
{
    const DML_GRAPH_DESC *desc = check->desc;
    const DML_BUFFER_TENSOR_DESC *tensor;
    uint64_t size;
    uint32_t i;
    HRESULT hr;

    for (i = 0; i < desc->IntermediateEdgeCount; ++i)
    {
        const DML_INTERMEDIATE_GRAPH_EDGE_DESC *edge = desc->IntermediateEdges[i].Desc;
        const char *label = edge_label("intermediate", i,
                edge && desc->IntermediateEdges[i].Type == DML_GRAPH_EDGE_TYPE_INTERMEDIATE ? edge->Name : NULL);
        bool constant;

        if (desc->IntermediateEdges[i].Type != DML_GRAPH_EDGE_TYPE_INTERMEDIATE || !edge)
            return graph_error("%s: Type %#x with Desc %p; IntermediateEdges hold INTERMEDIATE edges with a "
                    "desc.", label, (unsigned int)desc->IntermediateEdges[i].Type, (const void *)edge);
        if (FAILED(hr = check_source(check, label, edge->FromNodeIndex, edge->FromNodeOutputIndex, &size))
                || FAILED(hr = check_target(check, label, edge->ToNodeIndex, edge->ToNodeInputIndex, &tensor)))
            return hr;
        constant = !check->ops[edge->FromNodeIndex];
        if (constant ? size < tensor->TotalTensorSizeInBytes : size != tensor->TotalTensorSizeInBytes)
            return graph_error("%s: node %u (%s) output %u holds %" PRIu64 " bytes but input %u of node %u "
                    "(%s) has TotalTensorSizeInBytes %" PRIu64 "; connected tensors have equal sizes.", label,
                    edge->FromNodeIndex, node_name(check, edge->FromNodeIndex), edge->FromNodeOutputIndex, size,
                    edge->ToNodeInputIndex, edge->ToNodeIndex, node_name(check, edge->ToNodeIndex),
                    (uint64_t)tensor->TotalTensorSizeInBytes);
        if (tensor->Flags & DML_TENSOR_FLAG_OWNED_BY_DML)
            return graph_error("%s: input %u of node %u (%s) is OWNED_BY_DML; such an input is fed by a graph "
                    "input.", label, edge->ToNodeInputIndex, edge->ToNodeIndex, node_name(check, edge->ToNodeIndex));
        check->inputs[edge->ToNodeIndex][edge->ToNodeInputIndex] =
                (struct vkdml_graph_source){VKDML_GRAPH_SOURCE_NODE, edge->FromNodeIndex, edge->FromNodeOutputIndex};
    }
    return S_OK;
}

static HRESULT check_output_edges(struct graph_check *check)
{
    const DML_GRAPH_DESC *desc = check->desc;
    uint64_t size;
    uint32_t i;
    HRESULT hr;

    for (i = 0; i < desc->OutputEdgeCount; ++i)
    {
        const DML_OUTPUT_GRAPH_EDGE_DESC *edge = desc->OutputEdges[i].Desc;
        const char *label = edge_label("output", i,
                edge && desc->OutputEdges[i].Type == DML_GRAPH_EDGE_TYPE_OUTPUT ? edge->Name : NULL);

        if (desc->OutputEdges[i].Type != DML_GRAPH_EDGE_TYPE_OUTPUT || !edge)
            return graph_error("%s: Type %#x with Desc %p; OutputEdges hold OUTPUT edges with a desc.", label,
                    (unsigned int)desc->OutputEdges[i].Type, (const void *)edge);
        if (edge->GraphOutputIndex >= desc->OutputCount)
            return graph_error("%s: GraphOutputIndex %u is not below OutputCount %u.", label,
                    edge->GraphOutputIndex, desc->OutputCount);
        if (check->outputs[edge->GraphOutputIndex].kind != VKDML_GRAPH_SOURCE_NONE)
            return graph_error("%s: graph output %u already has an edge; a graph output has one.", label,
                    edge->GraphOutputIndex);
        if (FAILED(hr = check_source(check, label, edge->FromNodeIndex, edge->FromNodeOutputIndex, &size)))
            return hr;
        if (!check->ops[edge->FromNodeIndex])
            return graph_error("%s: node %u (%s) is a constant node; graph outputs come from operator nodes.",
                    label, edge->FromNodeIndex, node_name(check, edge->FromNodeIndex));
        check->outputs[edge->GraphOutputIndex] =
                (struct vkdml_graph_source){VKDML_GRAPH_SOURCE_NODE, edge->FromNodeIndex, edge->FromNodeOutputIndex};
    }
    return S_OK;
}

/* Every required input is connected, every graph input and output has an edge. Outputs of a node
 * may stay unconnected (docs/graph.md: they are computed and dropped). */
static HRESULT check_connections(struct graph_check *check)
{
    const DML_GRAPH_DESC *desc = check->desc;
    uint32_t i, j;

    for (i = 0; i < desc->NodeCount; ++i)
    {
        const struct vkdml_operator_view *op = check->ops[i];

        for (j = 0; op && j < op->input_count; ++j)
        {
            if (op->inputs[j] && check->inputs[i][j].kind == VKDML_GRAPH_SOURCE_NONE)
                return graph_error("node %u (%s): input %u is not connected; every input the desc gives "
                        "takes an edge.", i, node_name(check, i), j);
        }
        if (!op && !check->output_uses[i][0])
            return graph_error("node %u (%s): the constant node feeds no node.", i, node_name(check, i));
    }
    for (i = 0; i < desc->InputCount; ++i)
    {
        if (!check->graph_inputs[i])
            return graph_error("graph input %u has no edge; every graph input feeds a node.", i);
    }
    for (i = 0; i < desc->OutputCount; ++i)
    {
        if (check->outputs[i].kind == VKDML_GRAPH_SOURCE_NONE)
            return graph_error("graph output %u has no edge; every graph output comes from a node.", i);
    }
    return S_OK;
}

/* Kahn's algorithm: `order` gets the nodes producers first, or E_INVALIDARG naming a node on a cycle. */
static HRESULT sort_nodes(struct graph_check *check, uint32_t *order)
{
    uint32_t count = check->desc->NodeCount, done = 0, i, j;
    HRESULT hr = S_OK;
    bool *placed;

    if (!(placed = calloc(count, sizeof(*placed))))
        return E_OUTOFMEMORY;
    /* Graphs are small next to their compile time: a plain O(nodes * inputs) pass per round. */
    while (done < count)
    {
        uint32_t before = done;

        for (i = 0; i < count; ++i)
        {
            const struct vkdml_operator_view *op = check->ops[i];
            bool ready = !placed[i];

            for (j = 0; ready && op && j < op->input_count; ++j)
                ready = check->inputs[i][j].kind != VKDML_GRAPH_SOURCE_NODE || placed[check->inputs[i][j].index];
            if (ready)
            {
                placed[i] = true;
                order[done++] = i;
            }
        }
        if (done == before)
        {
            for (i = 0; placed[i]; ++i)
                ;
            hr = graph_error("node %u (%s) is on a cycle (or fed by one); the graph must be acyclic.", i,
                    node_name(check, i));
            break;
        }
    }
    free(placed);
    return hr;
}

static void free_check(struct graph_check *check)
{
    uint32_t i;

    for (i = 0; check->inputs && i < check->desc->NodeCount; ++i)
    {
        free(check->inputs[i]);
        free(check->input_edges[i]);
        free(check->output_uses[i]);
    }
    free(check->ops);
    free(check->constants);
    free(check->names);
    free(check->inputs);
    free(check->input_edges);
    free(check->output_uses);
    free(check->outputs);
    free(check->graph_inputs);
    free(check->graph_input_sizes);
    free(check->graph_input_owned);
}

static HRESULT check_counts(struct graph_check *check)
{
    const DML_GRAPH_DESC *desc = check->desc;

    if (!desc->NodeCount || !desc->Nodes)
        return graph_error("NodeCount %u, Nodes %p; a graph has nodes.", desc->NodeCount,
                (const void *)desc->Nodes);
    if (!desc->OutputCount || !desc->OutputEdgeCount || !desc->OutputEdges)
        return graph_error("OutputCount %u, OutputEdgeCount %u, OutputEdges %p; a graph has outputs.",
                desc->OutputCount, desc->OutputEdgeCount, (const void *)desc->OutputEdges);
    if ((desc->InputEdgeCount && !desc->InputEdges) || (desc->IntermediateEdgeCount && !desc->IntermediateEdges))
        return graph_error("InputEdges or IntermediateEdges is NULL with a count above 0.");
    return S_OK;
}

static HRESULT check_graph(struct graph_check *check)
{
    const DML_GRAPH_DESC *desc = check->desc;
    uint32_t nodes = desc->NodeCount;
    HRESULT hr;

    if (FAILED(hr = check_counts(check)))
        return hr;
    if (!(check->ops = calloc(nodes, sizeof(*check->ops)))
            || !(check->constants = calloc(nodes, sizeof(*check->constants)))
            || !(check->names = calloc(nodes, sizeof(*check->names)))
            || !(check->inputs = calloc(nodes, sizeof(*check->inputs)))
            || !(check->input_edges = calloc(nodes, sizeof(*check->input_edges)))
            || !(check->output_uses = calloc(nodes, sizeof(*check->output_uses)))
            || !(check->outputs = calloc(desc->OutputCount, sizeof(*check->outputs)))
            || !(check->graph_inputs = calloc(desc->InputCount + 1, sizeof(*check->graph_inputs)))
            || !(check->graph_input_sizes = calloc(desc->InputCount + 1, sizeof(*check->graph_input_sizes)))
            || !(check->graph_input_owned = malloc((desc->InputCount + 1) * sizeof(*check->graph_input_owned))))
        return E_OUTOFMEMORY;
    memset(check->graph_input_owned, 0xff, (desc->InputCount + 1) * sizeof(*check->graph_input_owned));
    if (FAILED(hr = check_nodes(check)) || FAILED(hr = alloc_node_tables(check)))
        return hr;
    if (FAILED(hr = check_input_edges(check)) || FAILED(hr = check_intermediate_edges(check))
            || FAILED(hr = check_output_edges(check)))
        return hr;
    return check_connections(check);
}

void dml_graph_destroy(struct dml_graph *graph)
{
    uint32_t i;

    if (!graph)
        return;
    for (i = 0; i < graph->node_count; ++i)
    {
        free(graph->copies ? graph->copies[i].memory : NULL);
        free(graph->constants ? graph->constants[i] : NULL);
        free(graph->labels ? graph->labels[i] : NULL);
    }
    free(graph->copies);
    free(graph->nodes);
    free(graph->sources);
    free(graph->constants);
    free(graph->labels);
    free(graph->input_descs);
    free(graph->input_views);
    free(graph->output_views);
    free(graph);
}

/* Node `node` (the application's index) as position `position` of the compiled graph. */
static HRESULT copy_node(struct dml_graph *graph, const struct graph_check *check, uint32_t node, uint32_t position,
        const uint32_t *positions, struct vkdml_graph_source **next_source)
{
    const struct vkdml_operator_view *op = check->ops[node];
    struct vkdml_graph_node *out = &graph->nodes[position];
    uint32_t i;
    HRESULT hr;

    if (!(graph->labels[position] = strdup(node_name(check, node))))
        return E_OUTOFMEMORY;
    out->label = graph->labels[position];
    if (!op)
    {
        const DML_CONSTANT_DATA_GRAPH_NODE_DESC *constant = check->constants[node];

        if (!(graph->constants[position] = malloc(constant->DataSize)))
            return E_OUTOFMEMORY;
        memcpy(graph->constants[position], constant->Data, constant->DataSize);
        out->data = graph->constants[position];
        out->data_size = constant->DataSize;
        return S_OK;
    }
    if (FAILED(hr = vkdml_copy_operator_desc(&(DML_OPERATOR_DESC){op->type, op->desc}, &graph->copies[position])))
        return hr;
    out->op = &graph->copies[position].view;
    out->inputs = *next_source;
    for (i = 0; i < op->input_count; ++i)
    {
        struct vkdml_graph_source source = check->inputs[node][i];

        if (source.kind == VKDML_GRAPH_SOURCE_NODE)
            source.index = positions[source.index];
        (*next_source)[i] = source;
    }
    *next_source += op->input_count;
    return S_OK;
}

static HRESULT build_interface(struct dml_graph *graph, const struct graph_check *check, const uint32_t *positions)
{
    const DML_GRAPH_DESC *desc = check->desc;
    struct vkdml_graph_source *outputs = (struct vkdml_graph_source *)graph->view.outputs;
    uint32_t i;

    if (!(graph->input_descs = calloc(desc->InputCount + 1, sizeof(*graph->input_descs)))
            || !(graph->input_views = calloc(desc->InputCount + 1, sizeof(*graph->input_views)))
            || !(graph->output_views = calloc(desc->OutputCount, sizeof(*graph->output_views))))
        return E_OUTOFMEMORY;
    /* A graph input's binding holds what its largest consumer reads. The descs point into the
     * consumers' copies, which the graph keeps. */
    for (i = 0; i < desc->InputCount; ++i)
    {
        graph->input_descs[i] = *check->graph_inputs[i];
        graph->input_descs[i].TotalTensorSizeInBytes = check->graph_input_sizes[i];
        graph->input_views[i] = &graph->input_descs[i];
    }
    for (i = 0; i < desc->OutputCount; ++i)
    {
        outputs[i] = check->outputs[i];
        outputs[i].index = positions[outputs[i].index];
        graph->output_views[i] = graph->nodes[outputs[i].index].op->outputs[outputs[i].output];
    }
    graph->view.input_count = desc->InputCount;
    graph->view.output_count = desc->OutputCount;
    graph->view.inputs = graph->input_views;
    graph->bindings = (struct vkdml_operator_view){DML_OPERATOR_INVALID, "GRAPH", NULL, desc->InputCount,
            desc->OutputCount, graph->input_views, graph->output_views};
    return S_OK;
}

static HRESULT build_graph(const struct graph_check *check, const uint32_t *order, struct dml_graph **out)
{
    const DML_GRAPH_DESC *desc = check->desc;
    uint32_t nodes = desc->NodeCount, sources = desc->OutputCount, i, *positions;
    struct vkdml_graph_source *next_source;
    struct dml_graph *graph;
    HRESULT hr = E_OUTOFMEMORY;

    for (i = 0; i < nodes; ++i)
        sources += check->ops[i] ? check->ops[i]->input_count : 0;
    if (!(positions = calloc(nodes, sizeof(*positions))))
        return E_OUTOFMEMORY;
    if (!(graph = calloc(1, sizeof(*graph))) || !(graph->copies = calloc(nodes, sizeof(*graph->copies)))
            || !(graph->nodes = calloc(nodes, sizeof(*graph->nodes)))
            || !(graph->sources = calloc(sources, sizeof(*graph->sources)))
            || !(graph->constants = calloc(nodes, sizeof(*graph->constants)))
            || !(graph->labels = calloc(nodes, sizeof(*graph->labels))))
        goto fail;
    graph->node_count = nodes;
    for (i = 0; i < nodes; ++i)
        positions[order[i]] = i;
    next_source = graph->sources;
    for (i = 0; i < nodes; ++i)
    {
        if (FAILED(hr = copy_node(graph, check, order[i], i, positions, &next_source)))
            goto fail;
    }
    graph->view.nodes = graph->nodes;
    graph->view.node_count = nodes;
    graph->view.outputs = next_source;
    if (FAILED(hr = build_interface(graph, check, positions)))
        goto fail;
    free(positions);
    *out = graph;
    return S_OK;

fail:
    free(positions);
    dml_graph_destroy(graph);
    return hr;
}

HRESULT dml_graph_compile(struct dml_device *device, const DML_GRAPH_DESC *desc, DML_EXECUTION_FLAGS flags,
        struct dml_compiled_operator **compiled)
{
    struct graph_check check = {desc, device};
    struct vkdml_program *program;
    struct dml_graph *graph = NULL;
    uint32_t *order = NULL;
    HRESULT hr;

    if (!desc)
        return graph_error("desc is NULL.");
    if (FAILED(hr = check_graph(&check)))
        goto done;
    hr = E_OUTOFMEMORY;
    if (!(order = calloc(desc->NodeCount, sizeof(*order))))
        goto done;
    if (FAILED(hr = sort_nodes(&check, order)) || FAILED(hr = build_graph(&check, order, &graph)))
        goto done;
    if (FAILED(hr = vkdml_backend_compile_graph(device->backend, &graph->view, flags, &program)))
    {
        dml_graph_destroy(graph);
        goto done;
    }
    hr = dml_compiled_operator_wrap(device, NULL, graph, &graph->bindings, flags, program, compiled);

done:
    free(order);
    free_check(&check);
    return hr;
}

VKDML_API int32_t vkdml_get_graph_report(void *compiled_operator, struct vkdml_graph_report *report,
        size_t report_size)
{
    struct dml_compiled_operator *compiled = unsafe_impl_from_IDMLCompiledOperator(compiled_operator);
    struct vkdml_graph_report full;

    if (!compiled || !compiled->graph || !report)
    {
        ERR("vkdml_get_graph_report: %p is not a compiled graph (an IDMLDevice1::CompileGraph result), or report "
                "is NULL.", compiled_operator);
        return E_INVALIDARG;
    }
    vkdml_backend_program_graph_report(compiled->program, &full);
    memcpy(report, &full, VKDML_MIN(report_size, sizeof(full)));
    return S_OK;
}
