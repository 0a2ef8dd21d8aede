/*
 * vkdml-run's shape family (ops.h): the operators that compute or change only shapes — Constant,
 * Shape, Size, Reshape, Flatten, Squeeze, Unsqueeze, Identity, ConstantOfShape, Range — folded on
 * the host or lowered to aliases (no DirectML operator).
 */
#include "ops.h"

#include <string.h>

static bool infer_constant(struct run_node *n)
{
    struct run_tensor value;
    char error[256];

    if (!onnx_attr_has(n->onnx, "value"))
        return run_unsupported(n, "only the 'value' attribute form is mapped");
    if (!onnx_attr_tensor(n->onnx, "value", &value, error, sizeof(error)))
        return run_fail(n, "%s", error);
    run_set_out(n, 0, value.type, &value.shape);
    run_tensor_free(&value);
    return true;
}

static bool fold_constant(struct run_node *n)
{
    struct run_tensor value, *out;
    char error[256];

    if (!onnx_attr_tensor(n->onnx, "value", &value, error, sizeof(error)))
        return run_fail(n, "%s", error);
    if ((out = run_out_host(n, 0)))
        memcpy(out->data, value.data, run_tensor_bytes(&value));
    run_tensor_free(&value);
    return out != NULL;
}

static bool infer_identity(struct run_node *n)
{
    run_set_out(n, 0, n->in[0]->type, &n->in[0]->shape);
    return true;
}

static bool emit_identity(struct run_node *n)
{
    return run_alias(n, 0, n->in[0]);
}

const struct run_op run_ops_shape[] =
{
    {"Constant", infer_constant, fold_constant, NULL, true},
    {"Identity", infer_identity, NULL, emit_identity},
    {NULL},
};
