/*
 * The graph compiler's "elementwise" pass (docs/graph.md, "elementwise"): consecutive element-wise
 * nodes, each intermediate read only by the next one, become one node of the backend-internal
 * VKDML_OPERATOR_ELEMENT_WISE_CHAIN (ops_private.h), which the element-wise family compiles into
 * one dispatch that reads each chain input once and writes the last node's output once.
 */

#include <stdio.h>
#include <string.h>

#include "graph_private.h"

/* A chain being gathered: its nodes (steps), its inputs (value and how the steps read it). */
struct chain
{
    struct vkdml_elementwise_chain_desc desc;
    uint32_t nodes[VKDML_CHAIN_MAX_STEPS];
    uint32_t input_values[VKDML_CHAIN_MAX_INPUTS];
    const DML_BUFFER_TENSOR_DESC *inputs[VKDML_CHAIN_MAX_INPUTS];
    uint32_t input_count;
};

static bool same_type_and_sizes(const DML_BUFFER_TENSOR_DESC *a, const DML_BUFFER_TENSOR_DESC *b)
{
    return a->DataType == b->DataType && a->DimensionCount == b->DimensionCount
            && !memcmp(a->Sizes, b->Sizes, a->DimensionCount * sizeof(*a->Sizes));
}

/* Whether two descs map every element to the same bytes: data type, sizes and strides. */
static bool same_layout(const DML_BUFFER_TENSOR_DESC *a, const DML_BUFFER_TENSOR_DESC *b)
{
    uint32_t d;

    if (!same_type_and_sizes(a, b))
        return false;
    for (d = 0; d < a->DimensionCount; ++d)
    {
        if (a->Sizes[d] > 1 && vkdml_tensor_stride(a, d) != vkdml_tensor_stride(b, d))
            return false;
    }
    return true;
}

static bool is_aliased(const struct graph_ir *ir, uint32_t value)
{
    uint32_t v;

    for (v = 0; v < ir->value_count; ++v)
    {
        if (ir->values[v].alias_of == value)
            return true;
    }
    return false;
}

static bool is_step(const struct graph_ir *ir, uint32_t n)
{
    const struct graph_node *node = &ir->nodes[n];

    return !node->removed && !node->at_init && vkdml_elementwise_chain_accepts(node->op);
}

/* The node that alone reads `value`, an intermediate nothing else sees (not a graph output, not
 * aliased), and reads it as it was written, packed; GRAPH_NO_VALUE when there is none. */
static uint32_t private_reader(const struct graph_ir *ir, uint32_t value, const DML_BUFFER_TENSOR_DESC *written)
{
    const struct graph_value *v = &ir->values[value];
    uint32_t reader, i;

    if (v->kind != GRAPH_VALUE_TEMPORARY || v->alias_of != GRAPH_NO_VALUE || is_aliased(ir, value)
            || !vkdml_tensor_is_packed(written) || graph_value_readers(ir, value, &reader) != 1)
        return GRAPH_NO_VALUE;
    for (i = 0; i < ir->nodes[reader].op->input_count; ++i)
    {
        if (ir->nodes[reader].inputs[i] == value && !same_layout(ir->nodes[reader].op->inputs[i], written))
            return GRAPH_NO_VALUE;
    }
    return reader;
}

/* The operand that reads `value` through `desc`: a chain input (shared by reads of the same
 * layout), added when there is room; UINT32_MAX when there is none. */
static uint32_t chain_input(struct chain *chain, uint32_t value, const DML_BUFFER_TENSOR_DESC *desc)
{
    uint32_t i;

    for (i = 0; i < chain->input_count; ++i)
    {
        if (chain->input_values[i] == value && same_layout(chain->inputs[i], desc))
            return VKDML_CHAIN_INPUT(i);
    }
    if (chain->input_count == VKDML_CHAIN_MAX_INPUTS)
        return UINT32_MAX;
    chain->input_values[chain->input_count] = value;
    chain->inputs[chain->input_count] = desc;
    return VKDML_CHAIN_INPUT(chain->input_count++);
}

/* Appends node `n` as the next step, its input `previous` (if any) the last step's result;
 * false, the chain as it was, when its inputs do not fit or a tensor's type or sizes differ. */
static bool add_step(const struct graph_ir *ir, struct chain *chain, uint32_t n, uint32_t previous)
{
    const struct graph_node *node = &ir->nodes[n];
    const DML_BUFFER_TENSOR_DESC *output = node->op->outputs[0];
    struct vkdml_elementwise_chain_step *step = &chain->desc.steps[chain->desc.step_count];
    uint32_t input_count = chain->input_count, i;

    if (chain->desc.step_count == VKDML_CHAIN_MAX_STEPS || node->outputs[0] == GRAPH_NO_VALUE)
        return false;
    if (chain->desc.step_count && !same_type_and_sizes(output, chain->desc.steps[0].op->outputs[0]))
        return false;
    for (i = 0; i < node->op->input_count; ++i)
    {
        if (node->inputs[i] == GRAPH_NO_VALUE)
            step->operands[i] = UINT32_MAX;
        else if (previous != GRAPH_NO_VALUE && node->inputs[i] == previous)
            step->operands[i] = VKDML_CHAIN_RESULT(chain->desc.step_count - 1);
        else
            step->operands[i] = chain_input(chain, node->inputs[i], node->op->inputs[i]);
        if (step->operands[i] == UINT32_MAX)
        {
            chain->input_count = input_count;
            return false;
        }
    }
    step->op = node->op;
    chain->nodes[chain->desc.step_count++] = n;
    return true;
}

/* The chain starting at node `first`: each next node the private reader of the last one's output. */
static void gather_chain(const struct graph_ir *ir, uint32_t first, struct chain *chain)
{
    uint32_t last, value, next;

    memset(chain, 0, sizeof(*chain));
    if (!add_step(ir, chain, first, GRAPH_NO_VALUE))
        return;
    for (;;)
    {
        last = chain->nodes[chain->desc.step_count - 1];
        value = ir->nodes[last].outputs[0];
        next = private_reader(ir, value, ir->nodes[last].op->outputs[0]);
        if (next == GRAPH_NO_VALUE || !is_step(ir, next) || !add_step(ir, chain, next, value))
            return;
    }
}

/* "first+...+last", for the profiler entry and debug label (NULL when out of memory). */
static const char *chain_label(struct graph_ir *ir, const struct chain *chain)
{
    const char *first = ir->nodes[chain->nodes[0]].label;
    const char *last = ir->nodes[chain->nodes[chain->desc.step_count - 1]].label;
    size_t size = strlen(first) + strlen(last) + 8;
    char *label;

    if (!(label = graph_alloc(ir, size)))
        return NULL;
    snprintf(label, size, chain->desc.step_count > 2 ? "%s+...+%s" : "%s+%s", first, last);
    return label;
}

/* The chain's last node becomes the chain (so it runs where that node ran, after every producer
 * of the chain's inputs); the others are removed. */
static HRESULT fuse_chain(struct graph_ir *ir, const struct chain *chain)
{
    struct graph_node *node = &ir->nodes[chain->nodes[chain->desc.step_count - 1]];
    struct vkdml_elementwise_chain_desc *desc;
    const DML_BUFFER_TENSOR_DESC **inputs, **outputs;
    struct vkdml_operator_view *view;
    uint32_t *values, i;
    const char *label;

    desc = graph_alloc(ir, sizeof(*desc));
    inputs = graph_alloc(ir, chain->input_count * sizeof(*inputs));
    outputs = graph_alloc(ir, sizeof(*outputs));
    values = graph_alloc(ir, (chain->input_count + 1) * sizeof(*values));
    view = graph_alloc(ir, sizeof(*view));
    if (!desc || !inputs || !outputs || !values || !view || !(label = chain_label(ir, chain)))
        return E_OUTOFMEMORY;
    *desc = chain->desc;
    memcpy(inputs, chain->inputs, chain->input_count * sizeof(*inputs));
    memcpy(values, chain->input_values, chain->input_count * sizeof(*values));
    outputs[0] = node->op->outputs[0];
    *view = (struct vkdml_operator_view){VKDML_OPERATOR_ELEMENT_WISE_CHAIN, "ELEMENT_WISE_CHAIN", desc,
            chain->input_count, 1, inputs, outputs};
    for (i = 0; i + 1 < chain->desc.step_count; ++i)
        ir->nodes[chain->nodes[i]].removed = true;
    node->op = view;
    node->inputs = values;
    node->label = label;
    ir->report.fused_elementwise += chain->desc.step_count - 1;
    return S_OK;
}

HRESULT graph_pass_elementwise(struct graph_ir *ir)
{
    struct chain chain;
    uint32_t n;
    HRESULT hr;

    for (n = 0; n < ir->node_count; ++n)
    {
        if (!is_step(ir, n))
            continue;
        gather_chain(ir, n, &chain);
        if (chain.desc.step_count > 1 && FAILED(hr = fuse_chain(ir, &chain)))
            return hr;
    }
    return S_OK;
}
