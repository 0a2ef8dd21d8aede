/*
 * The graph compiler's "constants" pass (docs/graph.md, "Passes", "constants"): a node whose inputs
 * are all available before the first execution (constant nodes' data, OWNED_BY_DML graph inputs,
 * what other folded nodes compute) runs once, in the initializer, and its outputs are kept for
 * every execution: in the persistent resource where an executed node reads them, else in the
 * initializer's temporary resource.
 */

#include "graph_private.h"

/* Nodes that never fold (docs/graph.md, "constants"): RANDOM_GENERATOR, whose state the
 * application advances from one execution to the next, and families with an initialize hook,
 * whose compile() reserves persistent data that the initializer's own nodes cannot reserve. */
static bool foldable_operator(const struct vkdml_operator_view *op)
{
    return op->type != DML_OPERATOR_RANDOM_GENERATOR && !vkdml_op_table[op->type].initialize;
}

/* Every input known at initialization, and no output a graph output (written at every execution). */
static bool foldable_node(const struct graph_ir *ir, const struct graph_node *node)
{
    uint32_t i, v;

    if (node->removed || node->at_init || !foldable_operator(node->op))
        return false;
    for (i = 0; i < node->op->input_count; ++i)
    {
        if ((v = node->inputs[i]) != GRAPH_NO_VALUE && ir->values[v].kind != GRAPH_VALUE_PERSISTENT)
            return false;
    }
    for (i = 0; i < node->op->output_count; ++i)
    {
        if ((v = node->outputs[i]) != GRAPH_NO_VALUE && ir->values[v].kind != GRAPH_VALUE_TEMPORARY)
            return false;
    }
    return true;
}

HRESULT graph_pass_constants(struct graph_ir *ir)
{
    uint32_t n, i, v;

    /* The IR's nodes come in dependency order: producers fold before their readers are looked at. */
    for (n = 0; n < ir->node_count; ++n)
    {
        struct graph_node *node = &ir->nodes[n];

        if (!foldable_node(ir, node))
            continue;
        node->at_init = true;
        for (i = 0; i < node->op->output_count; ++i)
        {
            if ((v = node->outputs[i]) != GRAPH_NO_VALUE)
                ir->values[v].kind = GRAPH_VALUE_PERSISTENT;
        }
        ++ir->report.folded_nodes;
    }
    graph_keep_init_only_values_temporary(ir);
    return S_OK;
}
