/*
 * The graph compiler's "join" pass (docs/graph.md, "join"): a JOIN of packed tensors of one type
 * whose dimensions before the axis all have size 1 lays each input out as one contiguous run of
 * its output. When every input is an intermediate that a node writes, each becomes an alias of
 * the output at its run's offset, so its producer writes straight into its slice, and the JOIN
 * disappears.
 */

#include <stdlib.h>

#include "graph_private.h"

/* The byte offset of each input's run in the output (offsets[input_count] is the output's
 * packed size); false when the layouts do not make runs. */
static bool join_runs(const struct vkdml_operator_view *op, uint64_t *offsets)
{
    const DML_JOIN_OPERATOR_DESC *desc = op->desc;
    const DML_BUFFER_TENSOR_DESC *output = op->outputs[0];
    uint64_t inner = vkdml_element_size(output->DataType), position = 0;
    uint32_t i;

    if (!inner || !vkdml_tensor_is_packed(output))
        return false;
    for (i = 0; i < desc->Axis; ++i)
    {
        if (output->Sizes[i] != 1)
            return false;
    }
    for (i = desc->Axis + 1; i < output->DimensionCount; ++i)
        inner *= output->Sizes[i];
    for (i = 0; i < op->input_count; ++i)
    {
        const DML_BUFFER_TENSOR_DESC *input = op->inputs[i];

        if (input->DataType != output->DataType || input->DimensionCount != output->DimensionCount
                || !vkdml_tensor_is_packed(input))
            return false;
        offsets[i] = position * inner;
        position += input->Sizes[desc->Axis];
    }
    offsets[op->input_count] = position * inner;
    return true;
}

/* Whether input `i` may move into its run: an intermediate (no graph input, constant or alias)
 * that an executed node writes, listed once, whose bytes fit the run, at an offset the kernels
 * may address (DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT, as any binding). */
static bool input_movable(const struct graph_ir *ir, const struct graph_node *join, uint32_t i,
        const uint64_t *offsets, uint64_t base)
{
    uint32_t value = join->inputs[i], producer, j;
    uint64_t end = i + 1 == join->op->input_count ? ir->values[join->outputs[0]].size : offsets[i + 1];

    if (value == GRAPH_NO_VALUE || ir->values[value].kind != GRAPH_VALUE_TEMPORARY
            || ir->values[value].alias_of != GRAPH_NO_VALUE)
        return false;
    for (j = 0; j < i; ++j)
    {
        if (join->inputs[j] == value)
            return false;
    }
    if ((producer = graph_value_producer(ir, value, NULL)) == GRAPH_NO_VALUE || ir->nodes[producer].at_init)
        return false;
    return offsets[i] + ir->values[value].size <= end
            && !((base + offsets[i]) % DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT);
}

static HRESULT join_in_place(struct graph_ir *ir, struct graph_node *join)
{
    uint32_t output = join->outputs[0], count = join->op->input_count, i;
    enum graph_value_kind kind;
    uint64_t *offsets, base;
    bool movable;

    if (output == GRAPH_NO_VALUE)
        return S_OK;
    kind = ir->values[graph_value_root(ir, output, &base)].kind;
    if (kind != GRAPH_VALUE_TEMPORARY && kind != GRAPH_VALUE_OUTPUT)
        return S_OK;
    if (!(offsets = calloc(count + 1, sizeof(*offsets))))
        return E_OUTOFMEMORY;
    movable = join_runs(join->op, offsets);
    for (i = 0; movable && i < count; ++i)
        movable = input_movable(ir, join, i, offsets, base);
    /* Some inputs in place and a JOIN for the rest would gain little: all or nothing. */
    for (i = 0; movable && i < count; ++i)
    {
        ir->values[join->inputs[i]].alias_of = output;
        ir->values[join->inputs[i]].alias_offset = offsets[i];
    }
    if (movable)
    {
        join->removed = true;
        ++ir->report.joined_in_place;
    }
    free(offsets);
    return S_OK;
}

HRESULT graph_pass_join(struct graph_ir *ir)
{
    uint32_t n;
    HRESULT hr;

    for (n = 0; n < ir->node_count; ++n)
    {
        struct graph_node *node = &ir->nodes[n];

        if (node->removed || node->at_init || node->op->type != DML_OPERATOR_JOIN)
            continue;
        if (FAILED(hr = join_in_place(ir, node)))
            return hr;
    }
    return S_OK;
}
