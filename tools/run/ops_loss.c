/*
 * vkdml-run's loss family (ops.h): NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (opsets 12
 * and 13, which differ only in the types they list).
 *
 * Input [N, C] or [N, C, d1, ...], target [N] or [N, d1, ...] (INT32 or INT64), optional weight [C]:
 * - SoftmaxCrossEntropyLoss first takes ACTIVATION_LOG_SOFTMAX1 over axis 1 (its optional second
 *   output, log_prob); the rest is NegativeLogLikelihoodLoss of it.
 * - The picked log-probability input[n, target[n, d], d] is GATHER_ELEMENTS on axis 1 with the target
 *   read as [N, 1, d1, ...] (no copy: the same packed layout); the weight, read as [N, C, d1, ...] with
 *   strides 0 but on C, is gathered with the same indices and multiplied in (ELEMENT_WISE_MULTIPLY).
 * - ignore_index: a mask ELEMENT_WISE_LOGICAL_EQUALS(target, ignore_index) and ELEMENT_WISE_IF puts 0
 *   in the loss and in the weight of those positions (so an ignore_index outside [0, C) reads
 *   nothing that matters).
 * - reduction "none" negates with ELEMENT_WISE_IDENTITY's ScaleBias; "sum" is REDUCE SUM over every
 *   axis, then the negation; "mean" divides the sum by the sum of the picked weights
 *   (ELEMENT_WISE_DIVIDE), or, with neither weight nor ignore_index, scales it by -1 / count.
 *   Every position ignored makes that mean 0 / 0: NaN.
 * - A target outside [0, C) that is not ignore_index is invalid input for ONNX. Here -C to -1 count
 *   from the end (ONNX's rule for negative indices, as GATHER_ELEMENTS reads them), and any other
 *   reads 0 (README.md, "Indices out of range"): its loss is 0, and with a weight its weight too.
 * Unsupported: double inputs (vkdml's ACTIVATION_LOG_SOFTMAX1 and element-wise math take no FLOAT64,
 * README.md "Operator support") and bfloat16 ones (DirectML has no such type).
 */
#include "ops.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum loss_reduction
{
    LOSS_NONE,
    LOSS_SUM,
    LOSS_MEAN,
};

struct loss
{
    struct run_value *scores;           /* input 0: log-probabilities (NLL), or scores (SCE) */
    struct run_value *target;
    struct run_value *weight;           /* NULL: every class weighs 1 */
    enum loss_reduction reduction;
    bool has_ignore_index;
    int64_t ignore_index;
};

/* ---- Attributes and checks ---- */

static bool parse_reduction(struct run_node *n, enum loss_reduction *reduction)
{
    char buffer[16];
    const char *text = onnx_attr_string(n->onnx, "reduction", "mean", buffer, sizeof(buffer));

    if (!strcmp(text, "none"))
        *reduction = LOSS_NONE;
    else if (!strcmp(text, "sum"))
        *reduction = LOSS_SUM;
    else if (!strcmp(text, "mean"))
        *reduction = LOSS_MEAN;
    else
        return run_fail(n, "reduction '%s' is none of none, sum, mean", text);
    return true;
}

/* The target's shape is the input's without dimension 1 (C). */
static bool check_target_shape(struct run_node *n, const struct run_value *scores, const struct run_value *target)
{
    unsigned int i;

    if (scores->shape.rank < 2)
        return run_fail(n, "input '%s' has rank %u; it needs [N, C, ...]", scores->name, scores->shape.rank);
    if (target->shape.rank + 1 != scores->shape.rank)
        return run_fail(n, "target '%s' has rank %u; the input's is %u", target->name, target->shape.rank,
                scores->shape.rank);
    for (i = 0; i < target->shape.rank; ++i)
    {
        if (target->shape.dims[i] != scores->shape.dims[i ? i + 1 : 0])
            return run_fail(n, "target '%s' dimension %u is %" PRId64 ", the input's is %" PRId64, target->name, i,
                    target->shape.dims[i], scores->shape.dims[i ? i + 1 : 0]);
    }
    return true;
}

static bool check_types(struct run_node *n, const struct loss *loss)
{
    int type = loss->scores->type;

    if (type != ONNX_FLOAT && type != ONNX_FLOAT16)
        return run_unsupported(n, "input '%s' is %s; vkdml's operators for losses take float and float16",
                loss->scores->name, onnx_type_name(type));
    if (loss->target->type != ONNX_INT32 && loss->target->type != ONNX_INT64)
        return run_fail(n, "target '%s' is %s, not int32 or int64", loss->target->name,
                onnx_type_name(loss->target->type));
    if (loss->weight && loss->weight->type != type)
        return run_fail(n, "weight '%s' is %s, the input %s", loss->weight->name, onnx_type_name(loss->weight->type),
                onnx_type_name(type));
    return true;
}

static bool parse_loss(struct run_node *n, struct loss *loss)
{
    memset(loss, 0, sizeof(*loss));
    if (n->opset < 12)
        return run_fail(n, "%s is defined from opset 12", n->onnx->op_type);
    if (!run_need_io(n, 2, 1))
        return false;
    loss->scores = run_in(n, 0);
    loss->target = run_in(n, 1);
    loss->weight = run_in(n, 2);
    if (!parse_reduction(n, &loss->reduction) || !check_types(n, loss)
            || !check_target_shape(n, loss->scores, loss->target))
        return false;
    if (loss->weight && (loss->weight->shape.rank != 1 || loss->weight->shape.dims[0] != loss->scores->shape.dims[1]))
        return run_fail(n, "weight '%s' is not [C] (C = %" PRId64 ")", loss->weight->name, loss->scores->shape.dims[1]);
    loss->ignore_index = onnx_attr_int(n->onnx, "ignore_index", 0);
    loss->has_ignore_index = onnx_attr_has(n->onnx, "ignore_index");
    /* No int32 target equals an ignore_index beyond int32: the same as none. */
    if (loss->target->type == ONNX_INT32 && (loss->ignore_index < INT32_MIN || loss->ignore_index > INT32_MAX))
        loss->has_ignore_index = false;
    return true;
}

/* Output 0, the loss: shaped like the target with reduction "none", else a scalar. */
static bool infer_loss(struct run_node *n, const struct loss *loss)
{
    struct run_shape scalar = {0};

    run_set_out(n, 0, loss->scores->type, loss->reduction == LOSS_NONE ? &loss->target->shape : &scalar);
    return true;
}

static bool infer_nll_loss(struct run_node *n)
{
    struct loss loss;

    if (n->out_count > 1)
        return run_fail(n, "%u outputs; it has one", n->out_count);
    return parse_loss(n, &loss) && infer_loss(n, &loss);
}

/* Output 1, log_prob, is shaped like the scores. */
static bool infer_sce_loss(struct run_node *n)
{
    struct loss loss;

    if (n->out_count > 2)
        return run_fail(n, "%u outputs; it has two", n->out_count);
    if (!parse_loss(n, &loss) || !infer_loss(n, &loss))
        return false;
    run_set_out(n, 1, loss.scores->type, &loss.scores->shape);
    return true;
}

/* ---- Emitting ---- */

/* A rank-0 constant of `type`, a weight of the graph. */
static struct run_value *loss_constant(struct run_node *n, int type, double value)
{
    struct run_shape scalar = {0};
    struct run_value *v;

    if (!(v = run_temp(n, type, &scalar)))
        return NULL;
    if (!(v->host = run_alloc(n, sizeof(*v->host))) || !run_tensor_alloc(v->host, type, &scalar))
    {
        v->host = NULL;
        run_fail(n, "out of memory");
        return NULL;
    }
    run_tensor_set_double(v->host, 0, value);
    v->host_owned = true;
    v->constant = true;
    return v;
}

/* `v` read at `shape` (numpy broadcasting; at least one dimension). */
static DML_TENSOR_DESC *desc_at(struct run_node *n, const struct run_value *v, const struct run_shape *shape)
{
    static const int64_t one = 1;

    return run_desc_broadcast(n, v, shape->rank ? shape->rank : 1, shape->rank ? shape->dims : &one);
}

/* `v`, shaped like the target, read as [N, 1, d1, ...]: the same packed layout. */
static DML_TENSOR_DESC *desc_with_class_axis(struct run_node *n, const struct run_value *v)
{
    uint32_t sizes[RUN_MAX_RANK];
    unsigned int i, rank = v->shape.rank + 1;

    if (rank > RUN_MAX_RANK)
    {
        run_unsupported(n, "'%s' has %u dimensions with the class axis", v->name, rank);
        return NULL;
    }
    sizes[0] = (uint32_t)v->shape.dims[0];
    sizes[1] = 1;
    for (i = 2; i < rank; ++i)
        sizes[i] = (uint32_t)v->shape.dims[i - 1];
    return run_desc_view(n, v, rank, sizes, NULL, DML_TENSOR_DATA_TYPE_UNKNOWN);
}

/* The weight [C] read as [N, C, d1, ...]. */
static DML_TENSOR_DESC *desc_weight_spread(struct run_node *n, const struct run_value *weight,
        const struct run_value *scores)
{
    uint32_t sizes[RUN_MAX_RANK], strides[RUN_MAX_RANK];
    unsigned int i;

    for (i = 0; i < scores->shape.rank; ++i)
    {
        sizes[i] = (uint32_t)scores->shape.dims[i];
        strides[i] = i == 1 ? 1 : 0;
    }
    return run_desc_view(n, weight, scores->shape.rank, sizes, strides, DML_TENSOR_DATA_TYPE_UNKNOWN);
}

/* out[n, 0, d] = source[n, target[n, d], d]; `source_desc` reads the source as [N, C, d1, ...]. */
static bool emit_pick(struct run_node *n, const struct loss *loss, struct run_value *source,
        DML_TENSOR_DESC *source_desc, struct run_value *out)
{
    struct run_value *inputs[2] = {source, loss->target};
    DML_GATHER_ELEMENTS_OPERATOR_DESC desc = {0};

    desc.InputTensor = source_desc;
    desc.IndicesTensor = desc_with_class_axis(n, loss->target);
    desc.OutputTensor = desc_with_class_axis(n, out);
    desc.Axis = 1;
    return desc.InputTensor && desc.IndicesTensor && desc.OutputTensor
            && run_emit(n, DML_OPERATOR_GATHER_ELEMENTS, &desc, inputs, 2, &out, 1);
}

/* Every binary ELEMENT_WISE desc used here is A, B, Output. */
static bool emit_binary(struct run_node *n, DML_OPERATOR_TYPE type, struct run_value *a, struct run_value *b,
        struct run_value *out)
{
    struct run_value *inputs[2] = {a, b};
    DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC desc = {0};

    desc.ATensor = desc_at(n, a, &out->shape);
    desc.BTensor = desc_at(n, b, &out->shape);
    desc.OutputTensor = desc_at(n, out, &out->shape);
    return desc.ATensor && desc.BTensor && desc.OutputTensor && run_emit(n, type, &desc, inputs, 2, &out, 1);
}

/* out = mask ? zero : value. */
static bool emit_unless(struct run_node *n, struct run_value *mask, struct run_value *zero, struct run_value *value,
        struct run_value *out)
{
    struct run_value *inputs[3] = {mask, zero, value};
    DML_ELEMENT_WISE_IF_OPERATOR_DESC desc = {0};

    desc.ConditionTensor = desc_at(n, mask, &out->shape);
    desc.ATensor = desc_at(n, zero, &out->shape);
    desc.BTensor = desc_at(n, value, &out->shape);
    desc.OutputTensor = desc_at(n, out, &out->shape);
    return desc.ConditionTensor && desc.ATensor && desc.BTensor && desc.OutputTensor
            && run_emit(n, DML_OPERATOR_ELEMENT_WISE_IF, &desc, inputs, 3, &out, 1);
}

/* out (a scalar) = the sum of every element of `in`. */
static bool emit_sum(struct run_node *n, struct run_value *in, struct run_value *out)
{
    unsigned int rank = in->shape.rank ? in->shape.rank : 1, i;
    DML_REDUCE_OPERATOR_DESC desc = {0};
    UINT axes[RUN_MAX_RANK];

    for (i = 0; i < rank; ++i)
        axes[i] = i;
    desc.Function = DML_REDUCE_FUNCTION_SUM;
    desc.InputTensor = run_desc(n, in, rank);
    desc.OutputTensor = run_desc(n, out, rank);
    desc.AxisCount = rank;
    desc.Axes = axes;
    return desc.InputTensor && desc.OutputTensor && run_emit(n, DML_OPERATOR_REDUCE, &desc, &in, 1, &out, 1);
}

/* out = scale * in. */
static bool emit_scale(struct run_node *n, struct run_value *in, float scale, struct run_value *out)
{
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc = {0};
    DML_SCALE_BIAS scale_bias = {scale, 0.0f};

    desc.InputTensor = run_desc(n, in, 0);
    desc.OutputTensor = run_desc(n, out, 0);
    desc.ScaleBias = &scale_bias;
    return desc.InputTensor && desc.OutputTensor
            && run_emit(n, DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc, &in, 1, &out, 1);
}

/* A temporary shaped like the target (or a scalar) of the loss's type. */
static struct run_value *loss_temp(struct run_node *n, const struct loss *loss, int type, bool scalar)
{
    struct run_shape none = {0};

    return run_temp(n, type, scalar ? &none : &loss->target->shape);
}

/* The weight of each position: the gathered class weight, 0 where ignored; NULL when every
 * position weighs 1 (no weight, no ignore_index). */
static struct run_value *position_weights(struct run_node *n, const struct loss *loss, struct run_value *picked_weight,
        struct run_value *ignored, struct run_value *zero)
{
    struct run_value *weights;

    if (!ignored)
        return picked_weight;
    if (!picked_weight && !(picked_weight = loss_constant(n, loss->scores->type, 1.0)))
        return NULL;
    if (!(weights = loss_temp(n, loss, loss->scores->type, false))
            || !emit_unless(n, ignored, zero, picked_weight, weights))
        return NULL;
    return weights;
}

/* Output 0 from the per-position losses (not yet negated) and their weights (NULL: all 1). */
static bool emit_reduction(struct run_node *n, const struct loss *loss, struct run_value *losses,
        struct run_value *weights)
{
    int type = loss->scores->type;
    struct run_value *sum, *weight_sum, *mean;

    if (loss->reduction == LOSS_NONE)
        return emit_scale(n, losses, -1.0f, n->out[0]);
    if (!(sum = loss_temp(n, loss, type, true)) || !emit_sum(n, losses, sum))
        return false;
    if (loss->reduction == LOSS_SUM)
        return emit_scale(n, sum, -1.0f, n->out[0]);
    if (!weights)
        return emit_scale(n, sum, -1.0f / (float)run_shape_elements(&losses->shape), n->out[0]);
    if (!(weight_sum = loss_temp(n, loss, type, true)) || !emit_sum(n, weights, weight_sum)
            || !(mean = loss_temp(n, loss, type, true))
            || !emit_binary(n, DML_OPERATOR_ELEMENT_WISE_DIVIDE, sum, weight_sum, mean))
        return false;
    return emit_scale(n, mean, -1.0f, n->out[0]);
}

/* `*ignored` = (target == ignore_index) and `*zero`, the value those positions get. */
static bool emit_ignored(struct run_node *n, const struct loss *loss, struct run_value **ignored,
        struct run_value **zero)
{
    struct run_value *index;

    if (!(index = loss_constant(n, loss->target->type, 0.0)) || !(*zero = loss_constant(n, loss->scores->type, 0.0)))
        return false;
    run_tensor_set_int(index->host, 0, loss->ignore_index);
    return (*ignored = loss_temp(n, loss, ONNX_BOOL, false))
            && emit_binary(n, DML_OPERATOR_ELEMENT_WISE_LOGICAL_EQUALS, loss->target, index, *ignored);
}

/* NegativeLogLikelihoodLoss of `log_prob` (input 0, or SoftmaxCrossEntropyLoss's log-softmax). */
static bool emit_nll(struct run_node *n, const struct loss *loss, struct run_value *log_prob)
{
    int type = loss->scores->type;
    struct run_value *picked, *picked_weight = NULL, *losses, *ignored = NULL, *zero = NULL, *weighted, *masked;

    if (!(picked = loss_temp(n, loss, type, false))
            || !emit_pick(n, loss, log_prob, run_desc(n, log_prob, 0), picked))
        return false;
    losses = picked;
    if (loss->weight)
    {
        if (!(picked_weight = loss_temp(n, loss, type, false))
                || !emit_pick(n, loss, loss->weight, desc_weight_spread(n, loss->weight, loss->scores), picked_weight)
                || !(weighted = loss_temp(n, loss, type, false))
                || !emit_binary(n, DML_OPERATOR_ELEMENT_WISE_MULTIPLY, picked, picked_weight, weighted))
            return false;
        losses = weighted;
    }
    if (loss->has_ignore_index)
    {
        if (!emit_ignored(n, loss, &ignored, &zero) || !(masked = loss_temp(n, loss, type, false))
                || !emit_unless(n, ignored, zero, losses, masked))
            return false;
        losses = masked;
    }
    if (loss->reduction == LOSS_MEAN && (loss->weight || ignored))
    {
        struct run_value *weights = position_weights(n, loss, picked_weight, ignored, zero);

        return weights && emit_reduction(n, loss, losses, weights);
    }
    return emit_reduction(n, loss, losses, NULL);
}

static bool emit_nll_loss(struct run_node *n)
{
    struct loss loss;

    return parse_loss(n, &loss) && emit_nll(n, &loss, loss.scores);
}

/* log_prob = log_softmax(scores) over axis 1: output 1, or a temporary when the model leaves it out. */
static bool emit_sce_loss(struct run_node *n)
{
    DML_ACTIVATION_LOG_SOFTMAX1_OPERATOR_DESC desc = {0};
    struct run_value *log_prob;
    static const UINT axis = 1;
    struct loss loss;

    if (!parse_loss(n, &loss))
        return false;
    log_prob = n->out_count > 1 ? n->out[1] : NULL;
    if (!log_prob && !(log_prob = run_temp(n, loss.scores->type, &loss.scores->shape)))
        return false;
    desc.InputTensor = run_desc(n, loss.scores, 0);
    desc.OutputTensor = run_desc(n, log_prob, 0);
    desc.AxisCount = 1;
    desc.Axes = &axis;
    return desc.InputTensor && desc.OutputTensor
            && run_emit(n, DML_OPERATOR_ACTIVATION_LOG_SOFTMAX1, &desc, &loss.scores, 1, &log_prob, 1)
            && emit_nll(n, &loss, log_prob);
}

const struct run_op run_ops_loss[] =
{
    {"NegativeLogLikelihoodLoss", infer_nll_loss, NULL, emit_nll_loss},
    {"SoftmaxCrossEntropyLoss", infer_sce_loss, NULL, emit_sce_loss},
    {NULL},
};
