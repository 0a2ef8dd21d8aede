/*
 * The graph compiler's optimisation passes (docs/graph.md, "Passes"), in the order they run: each
 * rewrites the intermediate form (graph_private.h), counts what it did in the report, and is
 * turned off by VKDML_GRAPH_OPT. Constants fold first (so later passes see fewer nodes), batch
 * normalization folds into its convolution before the activation that followed it fuses there,
 * and element-wise chains merge last, from what the other passes left.
 */

#include "graph_private.h"

static const struct
{
    enum vkdml_graph_pass pass;
    HRESULT (*run)(struct graph_ir *ir);
}
passes[] =
{
    {VKDML_GRAPH_PASS_CONSTANTS, graph_pass_constants},
    {VKDML_GRAPH_PASS_BATCHNORM, graph_pass_batchnorm},
    {VKDML_GRAPH_PASS_ACTIVATION, graph_pass_activation},
    {VKDML_GRAPH_PASS_ALIAS, graph_pass_alias},
    {VKDML_GRAPH_PASS_JOIN, graph_pass_join},
    {VKDML_GRAPH_PASS_ELEMENTWISE, graph_pass_elementwise},
};

HRESULT graph_run_passes(struct graph_ir *ir)
{
    unsigned int i;
    HRESULT hr;

    for (i = 0; i < ARRAY_SIZE(passes); ++i)
    {
        if ((ir->passes & passes[i].pass) && FAILED(hr = passes[i].run(ir)))
            return hr;
    }
    return S_OK;
}
