/*
 * The graph compiler's "join" pass (docs/graph.md, "Passes"): not written yet; it changes nothing.
 */

#include "graph_private.h"

HRESULT graph_pass_join(struct graph_ir *ir)
{
    (void)ir;
    return S_OK;
}
