/*
 * The graph compiler's "batchnorm" pass (docs/graph.md, "Passes"): not written yet; it changes nothing.
 */

#include "graph_private.h"

HRESULT graph_pass_batchnorm(struct graph_ir *ir)
{
    (void)ir;
    return S_OK;
}
