/*
 * vkdml-run's element-wise family (ops.h): arithmetic with numpy broadcasting (strides of 0 on the
 * broadcast dimensions), math functions, comparisons and logic, activations, Cast.
 */
#include "ops.h"

/* Inputs broadcast to the output's shape; the output has the first input's type. */
static bool infer_broadcast(struct run_node *n)
{
    struct run_shape shape = n->in[0]->shape;
    unsigned int i;

    for (i = 1; i < n->in_count; ++i)
        if (n->in[i] && !run_broadcast(n, &shape, &n->in[i]->shape, &shape))
            return false;
    run_set_out(n, 0, n->in[0]->type, &shape);
    return true;
}

static bool infer_same(struct run_node *n)
{
    run_set_out(n, 0, n->in[0]->type, &n->in[0]->shape);
    return true;
}

/* Descs of a binary operator: both inputs read at the output's shape. */
static bool emit_binary(struct run_node *n, DML_OPERATOR_TYPE type)
{
    const struct run_value *out = n->out[0];
    unsigned int rank = out->shape.rank ? out->shape.rank : 1;
    int64_t sizes[RUN_MAX_RANK] = {1};
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC desc;    /* the layout of every binary ELEMENT_WISE desc */
    struct run_value *inputs[2] = {n->in[0], n->in[1]};
    unsigned int i;

    for (i = 0; i < out->shape.rank; ++i)
        sizes[i] = out->shape.dims[i];
    desc.ATensor = run_desc_broadcast(n, inputs[0], rank, sizes);
    desc.BTensor = run_desc_broadcast(n, inputs[1], rank, sizes);
    desc.OutputTensor = run_desc(n, out, rank);
    return desc.ATensor && desc.BTensor && desc.OutputTensor
            && run_emit(n, type, &desc, inputs, 2, &n->out[0], 1);
}

static bool emit_add(struct run_node *n)
{
    return emit_binary(n, DML_OPERATOR_ELEMENT_WISE_ADD);
}

static bool emit_relu(struct run_node *n)
{
    DML_ACTIVATION_RELU_OPERATOR_DESC desc;

    desc.InputTensor = run_desc(n, n->in[0], 0);
    desc.OutputTensor = run_desc(n, n->out[0], 0);
    return desc.InputTensor && desc.OutputTensor
            && run_emit(n, DML_OPERATOR_ACTIVATION_RELU, &desc, &n->in[0], 1, &n->out[0], 1);
}

const struct run_op run_ops_elementwise[] =
{
    {"Add", infer_broadcast, NULL, emit_add},
    {"Relu", infer_same, NULL, emit_relu},
    {NULL},
};
