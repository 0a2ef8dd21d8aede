/*
 * The one op table: every ONNX operator vkdml-run maps, family by family (ops.h). An op type is in
 * one family only (test/tools/test_onnx_lowering.c checks).
 */
#include "ops.h"

#include <stdio.h>
#include <string.h>

static const struct run_op *const families[] =
{
    run_ops_elementwise,
    run_ops_nn,
    run_ops_reduce,
    run_ops_shape,
    run_ops_movement,
    run_ops_loss,
};

const struct run_op *run_find_op(const char *domain, const char *op_type)
{
    unsigned int i;
    const struct run_op *op;

    if (domain[0] && strcmp(domain, "ai.onnx"))
        return NULL;
    for (i = 0; i < sizeof(families) / sizeof(families[0]); ++i)
        for (op = families[i]; op->op_type; ++op)
            if (!strcmp(op->op_type, op_type))
                return op;
    return NULL;
}

void run_list_ops(void (*callback)(const char *op_type, void *user), void *user)
{
    const struct run_op *op;
    unsigned int i;

    for (i = 0; i < sizeof(families) / sizeof(families[0]); ++i)
        for (op = families[i]; op->op_type; ++op)
            callback(op->op_type, user);
}
