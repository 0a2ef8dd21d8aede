/*
 * The graph compiler's "alias" pass (docs/graph.md, "alias"): an IDENTITY without arithmetic
 * (ELEMENT_WISE_IDENTITY without ScaleBias, ACTIVATION_IDENTITY) between packed tensors of one
 * type and element count copies bytes unchanged (a reshape): the node disappears and its output
 * becomes an alias of its input, or, where the output is a graph output, its input becomes an
 * alias of the output so that the producer writes straight into the binding.
 */

#include "graph_private.h"

static bool is_plain_identity(const struct vkdml_operator_view *op)
{
    if (op->type == DML_OPERATOR_ACTIVATION_IDENTITY)
        return true;
    return op->type == DML_OPERATOR_ELEMENT_WISE_IDENTITY
            && !((const DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC *)op->desc)->ScaleBias;
}

/* Output bytes [0, n) equal input bytes [0, n): one type, both packed, the same element count. */
static bool copies_bytes(const struct vkdml_operator_view *op)
{
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[0], *output = op->outputs[0];

    return input->DataType == output->DataType && vkdml_element_size(input->DataType)
            && vkdml_tensor_is_packed(input) && vkdml_tensor_is_packed(output)
            && vkdml_tensor_element_count(input) == vkdml_tensor_element_count(output);
}

/* Whether an initializer node reads `value` (it cannot read what the execution computes). */
static bool read_at_init(const struct graph_ir *ir, uint32_t value)
{
    uint32_t n, i;

    for (n = 0; n < ir->node_count; ++n)
    {
        for (i = 0; !ir->nodes[n].removed && ir->nodes[n].at_init && i < ir->nodes[n].op->input_count; ++i)
        {
            if (ir->nodes[n].inputs[i] == value)
                return true;
        }
    }
    return false;
}

/* The output reads the input's bytes: any value but an initializer's intermediate, which the
 * execution does not have. Graph inputs and persistent values are only read through it. Its
 * readers may read all of its bytes: they must lie inside the input's. */
static bool alias_output_to_input(struct graph_ir *ir, uint32_t input, uint32_t output)
{
    enum graph_value_kind kind = ir->values[graph_value_root(ir, input, NULL)].kind;

    if (kind == GRAPH_VALUE_INIT_TEMPORARY || read_at_init(ir, output)
            || ir->values[output].size > ir->values[input].size)
        return false;
    ir->values[output].alias_of = input;
    ir->values[output].alias_offset = 0;
    return true;
}

/* A graph output keeps its binding: the input, an intermediate that is nothing's alias and has a
 * producer, moves there, if the producer's bytes fit. */
static bool alias_input_to_output(struct graph_ir *ir, uint32_t input, uint32_t output)
{
    uint32_t producer, v;

    if (ir->values[input].kind != GRAPH_VALUE_TEMPORARY || ir->values[input].alias_of != GRAPH_NO_VALUE
            || ir->values[input].size > ir->values[output].size)
        return false;
    for (v = 0; v < ir->value_count; ++v)
    {
        if (ir->values[v].alias_of == input)
            return false;
    }
    if ((producer = graph_value_producer(ir, input, NULL)) == GRAPH_NO_VALUE || ir->nodes[producer].at_init)
        return false;
    ir->values[input].alias_of = output;
    ir->values[input].alias_offset = 0;
    return true;
}

static bool alias_node(struct graph_ir *ir, struct graph_node *node)
{
    uint32_t input = node->inputs[0], output = node->outputs[0];

    if (input == GRAPH_NO_VALUE || output == GRAPH_NO_VALUE || ir->values[output].alias_of != GRAPH_NO_VALUE)
        return false;
    if (ir->values[output].kind == GRAPH_VALUE_OUTPUT)
        return alias_input_to_output(ir, input, output);
    return ir->values[output].kind == GRAPH_VALUE_TEMPORARY && alias_output_to_input(ir, input, output);
}

HRESULT graph_pass_alias(struct graph_ir *ir)
{
    uint32_t n;

    for (n = 0; n < ir->node_count; ++n)
    {
        struct graph_node *node = &ir->nodes[n];

        if (node->removed || node->at_init || !is_plain_identity(node->op) || !copies_bytes(node->op))
            continue;
        if (!alias_node(ir, node))
            continue;
        node->removed = true;
        ++ir->report.aliased_nodes;
    }
    return S_OK;
}
