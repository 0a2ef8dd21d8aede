/*
 * vkdml-run's op table: each ONNX operator it maps, with the three lowering steps (lower.h). One
 * file per family of operators; op_table.c is the one table that lists the families.
 * docs/onnx.md, "Operators".
 */
#ifndef VKDML_RUN_OPS_H
#define VKDML_RUN_OPS_H

#include "lower.h"

struct run_op
{
    const char *op_type;                /* in the default domain ("" / "ai.onnx") */
    /* Sets every output's type and static shape (run_set_out). Required. */
    bool (*infer)(struct run_node *n);
    /* Computes the outputs on the host (run_out_host) when every input is a constant; NULL: the op
     * is always emitted. Shape-only ops (Shape, Size) fold whatever their inputs are. */
    bool (*fold)(struct run_node *n);
    /* Adds the DirectML operators (run_emit, run_alias). NULL: fold must always succeed. */
    bool (*emit)(struct run_node *n);
    bool fold_always;                   /* fold even when inputs are not constants (only shapes read) */
    /* emit reads views (run_view) through its descs; for other ops lowering copies views out first. */
    bool reads_views;
};

/* The families, each a table ended by an entry with op_type NULL. */
extern const struct run_op run_ops_elementwise[];   /* ops_elementwise.c: math, logic, activations, Cast */
extern const struct run_op run_ops_nn[];            /* ops_nn.c: Conv, Gemm, MatMul, pooling, normalization */
extern const struct run_op run_ops_reduce[];        /* ops_reduce.c: Reduce*, ArgMax/Min, Softmax, TopK, CumSum */
extern const struct run_op run_ops_shape[];         /* ops_shape.c: Shape, Reshape, Constant, Range... */
extern const struct run_op run_ops_movement[];      /* ops_movement.c: Transpose, Concat, Slice, Gather... */

/* The op for `op_type` in `domain`, or NULL. */
const struct run_op *run_find_op(const char *domain, const char *op_type);
/* Every mapped op type, for --list-ops. */
void run_list_ops(void (*callback)(const char *op_type, void *user), void *user);

#endif /* VKDML_RUN_OPS_H */
