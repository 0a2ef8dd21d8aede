/*
 * vkdml-run's reduce family (ops.h): reductions and the operators that select or scan along axes.
 *
 * - ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2, ReduceLogSum,
 *   ReduceLogSumExp, ReduceSumSquare: DML_OPERATOR_REDUCE. Axes come from the attribute, or from
 *   input 1 from opset 13 (ReduceSum) and 18 (the others); no axes reduce all of them, unless
 *   noop_with_empty_axes makes the node an alias. REDUCE keeps reduced dimensions as 1: with
 *   keepdims 0 the output's desc is still the kept-dims shape (same bytes). Folded on the host.
 * - ArgMax, ArgMin: DML_OPERATOR_ARGMAX / ARGMIN into INT64; select_last_index is
 *   DML_AXIS_DIRECTION_DECREASING (README.md, "Reductions").
 * - Softmax, LogSoftmax, Hardmax: the `1` forms with Axes. Before opset 13 the input is coerced to
 *   2-D at `axis`, so every axis from `axis` on is reduced together.
 * - TopK: DML_OPERATOR_TOP_K1 (K from the input, or the attribute before opset 10); the INT64
 *   indices are written as UINT64 (TOP_K1 has no signed indices; they are never negative).
 *   Sorted or not, the output is sorted (ONNX leaves the order free when sorted is 0).
 * - CumSum: DML_OPERATOR_CUMULATIVE_SUMMATION (reverse: DECREASING; exclusive: HasExclusiveSum).
 * - Trilu: DML_OPERATOR_DIAGONAL_MATRIX1 over the input, zero filled outside the kept band
 *   (README.md, "Generators").
 * - Einsum: any equation of up to 16 operands and 8 distinct labels, as views: the computation's
 *   dimensions are the output's labels, then the summed ones; each operand is read through strides
 *   in that order (transposes), its repeated labels one dimension whose stride is their sum
 *   (diagonals, traces), a label it lacks broadcast. Two float operands whose labels group into
 *   batches, M, N and K that nest in every tensor (matrix products, batched, transposed, the
 *   attention products of transformers) are one GEMM; anything else is multiplied over all
 *   labels (ELEMENT_WISE_MULTIPLY) and the summed labels reduced (REDUCE SUM), a product that
 *   materializes the whole label space.
 * - FLOAT64: vkdml's REDUCE, softmaxes, scans and multiply take no FLOAT64 (README.md, "Operator
 *   support"): doubles are unsupported, as in every family (docs/onnx.md, "Operators"); computing
 *   them in FLOAT would pass ONNX's tolerances without the precision asked for.
 * - Unsupported: NonMaxSuppression (DirectML has no such operator, and its output shape depends on
 *   the data); integer types a function lacks (README.md, "Reductions"). A TopK output the model
 *   leaves out is written to an intermediate nothing reads (docs/onnx.md, "Lowering").
 */
#include "ops.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <string.h>

/* ---- Shared helpers ---- */

/* `v`, when the device computes in its type: DirectML's REDUCE, softmaxes, scans and multiply take no
 * FLOAT64 on vkdml, and computing doubles in FLOAT would silently lose the precision asked for. */
static struct run_value *device_input(struct run_node *n, struct run_value *v)
{
    if (v->type != ONNX_DOUBLE)
        return v;
    run_unsupported(n, "double: vkdml's operator has no FLOAT64 (docs/onnx.md, \"Operators\")");
    return NULL;
}

static bool is_float(int type)
{
    return type == ONNX_FLOAT || type == ONNX_FLOAT16 || type == ONNX_DOUBLE;
}

/* `shape` with the dimensions of `reduced` set to 1 (keepdims) or dropped. */
static void reduced_shape(const struct run_shape *shape, const bool *reduced, bool keepdims, struct run_shape *out)
{
    unsigned int i;

    out->rank = 0;
    for (i = 0; i < shape->rank; ++i)
    {
        if (!reduced[i])
            out->dims[out->rank++] = shape->dims[i];
        else if (keepdims)
            out->dims[out->rank++] = 1;
    }
}

/* The desc of a reduction's output `v`: the input's rank with the reduced dimensions as 1. */
static DML_TENSOR_DESC *kept_dims_desc(struct run_node *n, const struct run_value *v, const struct run_shape *in,
        const bool *reduced)
{
    uint32_t sizes[RUN_MAX_RANK] = {1};
    unsigned int i;

    for (i = 0; i < in->rank; ++i)
        sizes[i] = reduced[i] ? 1 : (uint32_t)in->dims[i];
    return run_desc_view(n, v, in->rank ? in->rank : 1, sizes, NULL, DML_TENSOR_DATA_TYPE_UNKNOWN);
}

/* ---- Reduce* ---- */

struct reduce_function
{
    const char *op_type;
    DML_REDUCE_FUNCTION function;
    int64_t axes_input_opset;           /* from this opset the axes are input 1 */
    bool integers;                      /* DirectML's REDUCE takes 32- and 64-bit integers */
};

static const struct reduce_function reduce_functions[] =
{
    {"ReduceSum", DML_REDUCE_FUNCTION_SUM, 13, true},
    {"ReduceMean", DML_REDUCE_FUNCTION_AVERAGE, 18, false},
    {"ReduceMax", DML_REDUCE_FUNCTION_MAX, 18, true},
    {"ReduceMin", DML_REDUCE_FUNCTION_MIN, 18, true},
    {"ReduceProd", DML_REDUCE_FUNCTION_MULTIPLY, 18, true},
    {"ReduceL1", DML_REDUCE_FUNCTION_L1, 18, true},
    {"ReduceL2", DML_REDUCE_FUNCTION_L2, 18, false},
    {"ReduceLogSum", DML_REDUCE_FUNCTION_LOG_SUM, 18, false},
    {"ReduceLogSumExp", DML_REDUCE_FUNCTION_LOG_SUM_EXP, 18, false},
    {"ReduceSumSquare", DML_REDUCE_FUNCTION_SUM_SQUARE, 18, true},
};

static const struct reduce_function *find_reduce_function(const struct run_node *n)
{
    unsigned int i;

    for (i = 0; i < sizeof(reduce_functions) / sizeof(reduce_functions[0]); ++i)
        if (!strcmp(reduce_functions[i].op_type, n->onnx->op_type))
            return &reduce_functions[i];
    return NULL;
}

/* The reduced axes of a Reduce* node as a mask over the input's rank; `*noop` when empty axes
 * with noop_with_empty_axes leave the input as it is. */
static bool reduce_axes(struct run_node *n, bool *reduced, bool *noop)
{
    const struct reduce_function *f = find_reduce_function(n);
    unsigned int rank = n->in[0]->shape.rank, axis, i;
    int64_t axes[RUN_MAX_RANK];
    int count = -1;

    if (n->opset >= f->axes_input_opset)
    {
        if (run_in(n, 1) && (count = run_in_ints(n, 1, axes, RUN_MAX_RANK)) < 0)
            return false;
    }
    else if ((count = onnx_attr_ints(n->onnx, "axes", axes, RUN_MAX_RANK)) > RUN_MAX_RANK)
    {
        return run_fail(n, "%d axes", count);
    }
    *noop = count <= 0 && onnx_attr_int(n->onnx, "noop_with_empty_axes", 0);
    for (i = 0; i < RUN_MAX_RANK; ++i)
        reduced[i] = count <= 0 && !*noop && i < rank;
    for (i = 0; i < (unsigned int)(count > 0 ? count : 0); ++i)
    {
        if (!run_axis(n, axes[i], rank, &axis))
            return false;
        reduced[axis] = true;
    }
    return true;
}

static bool infer_reduce(struct run_node *n)
{
    bool reduced[RUN_MAX_RANK], noop;
    struct run_shape shape;

    if (!reduce_axes(n, reduced, &noop))
        return false;
    reduced_shape(&n->in[0]->shape, reduced, noop || onnx_attr_int(n->onnx, "keepdims", 1), &shape);
    run_set_out(n, 0, n->in[0]->type, &shape);
    return true;
}

static double reduce_start(DML_REDUCE_FUNCTION function)
{
    switch (function)
    {
        case DML_REDUCE_FUNCTION_MAX: return -INFINITY;
        case DML_REDUCE_FUNCTION_MIN: return INFINITY;
        case DML_REDUCE_FUNCTION_MULTIPLY: return 1.0;
        default: return 0.0;
    }
}

static double reduce_step(DML_REDUCE_FUNCTION function, double sum, double x)
{
    switch (function)
    {
        case DML_REDUCE_FUNCTION_MAX: return isnan(x) || x > sum ? x : sum;
        case DML_REDUCE_FUNCTION_MIN: return isnan(x) || x < sum ? x : sum;
        case DML_REDUCE_FUNCTION_MULTIPLY: return sum * x;
        case DML_REDUCE_FUNCTION_L1: return sum + fabs(x);
        case DML_REDUCE_FUNCTION_L2: case DML_REDUCE_FUNCTION_SUM_SQUARE: return sum + x * x;
        case DML_REDUCE_FUNCTION_LOG_SUM_EXP: return sum + exp(x);
        default: return sum + x;
    }
}

static double reduce_finish(DML_REDUCE_FUNCTION function, double sum, int64_t count)
{
    switch (function)
    {
        case DML_REDUCE_FUNCTION_AVERAGE: return sum / (double)count;
        case DML_REDUCE_FUNCTION_L2: return sqrt(sum);
        case DML_REDUCE_FUNCTION_LOG_SUM: case DML_REDUCE_FUNCTION_LOG_SUM_EXP: return log(sum);
        default: return sum;
    }
}

/* The output element (of the kept-dims shape) that input element `index` of `shape` reduces into. */
static int64_t reduced_index(const struct run_shape *shape, const bool *reduced, int64_t index)
{
    int64_t out = 0, stride = 1;
    unsigned int i;

    for (i = shape->rank; i-- > 0;)
    {
        if (!reduced[i])
        {
            out += index % shape->dims[i] * stride;
            stride *= shape->dims[i];
        }
        index /= shape->dims[i];
    }
    return out;
}

/* Shape arithmetic (ReduceProd of a Shape) and other constants, in doubles on the host; also
 * the reduction of an input with no elements (DirectML has no empty tensors), which reads none. */
static bool fold_reduce(struct run_node *n)
{
    DML_REDUCE_FUNCTION function = find_reduce_function(n)->function;
    const struct run_tensor *in = n->in[0]->host;
    const struct run_shape *in_shape = &n->in[0]->shape;
    int64_t count, i, outputs, per_output;
    bool reduced[RUN_MAX_RANK], noop;
    struct run_tensor *out;
    double *sums;

    if (!reduce_axes(n, reduced, &noop) || !(out = run_out_host(n, 0)))
        return false;
    if (noop)
    {
        memcpy(out->data, in->data, run_tensor_bytes(out));
        return true;
    }
    count = run_shape_elements(in_shape);
    outputs = run_shape_elements(&out->shape);
    if (!count && !is_float(out->type)
            && (function == DML_REDUCE_FUNCTION_MAX || function == DML_REDUCE_FUNCTION_MIN))
        return run_unsupported(n, "the maximum or minimum of no integers");
    per_output = outputs ? count / outputs : 0;
    if (!(sums = run_alloc(n, (size_t)outputs * sizeof(*sums))))
        return run_fail(n, "out of memory");
    for (i = 0; i < outputs; ++i)
        sums[i] = reduce_start(function);
    for (i = 0; i < count; ++i)
    {
        int64_t o = reduced_index(in_shape, reduced, i);

        sums[o] = reduce_step(function, sums[o], run_tensor_get_double(in, i));
    }
    for (i = 0; i < outputs; ++i)
        run_tensor_set_double(out, i, reduce_finish(function, sums[i], per_output));
    return true;
}

/* Whether DirectML's REDUCE computes `function` in `type` itself (README.md, "Reductions"). */
static bool reduce_type_supported(const struct reduce_function *f, int type)
{
    switch (type)
    {
        case ONNX_FLOAT: case ONNX_FLOAT16:
            return true;
        case ONNX_INT32: case ONNX_UINT32: case ONNX_INT64: case ONNX_UINT64:
            return f->integers;
        case ONNX_INT8: case ONNX_UINT8: case ONNX_INT16: case ONNX_UINT16: case ONNX_BOOL:
            return f->function == DML_REDUCE_FUNCTION_MAX || f->function == DML_REDUCE_FUNCTION_MIN;
        default:
            return false;
    }
}

static bool emit_reduce(struct run_node *n)
{
    const struct reduce_function *f = find_reduce_function(n);
    struct run_value *in = n->in[0], *out = n->out[0];
    UINT axes[RUN_MAX_RANK], axis_count = 0, i;
    bool reduced[RUN_MAX_RANK], noop;
    DML_REDUCE_OPERATOR_DESC desc;
    struct run_value *result = out;

    if (!reduce_axes(n, reduced, &noop))
        return false;
    if (noop)
        return run_alias(n, 0, in);
    if (!out)
        return true;
    if (!run_shape_elements(&in->shape))
        return fold_reduce(n);
    if (in->type != ONNX_DOUBLE && !reduce_type_supported(f, in->type))
        return run_unsupported(n, "DirectML's REDUCE has no %s for %s", f->op_type, onnx_type_name(in->type));
    for (i = 0; i < in->shape.rank; ++i)
        if (reduced[i])
            axes[axis_count++] = i;
    if (!in->shape.rank)
        axes[axis_count++] = 0;     /* a scalar: one element, read as {1} */
    if (!(in = device_input(n, in)))
        return false;
    desc.Function = f->function;
    desc.InputTensor = run_desc(n, in, 0);
    desc.OutputTensor = kept_dims_desc(n, result, &in->shape, reduced);
    desc.AxisCount = axis_count;
    desc.Axes = axes;
    return desc.InputTensor && desc.OutputTensor && run_emit(n, DML_OPERATOR_REDUCE, &desc, &in, 1, &result, 1);
}

/* ---- ArgMax, ArgMin ---- */

static bool arg_axis(struct run_node *n, bool *reduced)
{
    unsigned int axis;

    memset(reduced, 0, RUN_MAX_RANK * sizeof(*reduced));
    if (!run_axis(n, onnx_attr_int(n->onnx, "axis", 0), n->in[0]->shape.rank, &axis))
        return false;
    reduced[axis] = true;
    return true;
}

static bool infer_arg(struct run_node *n)
{
    bool reduced[RUN_MAX_RANK];
    struct run_shape shape;

    if (!arg_axis(n, reduced))
        return false;
    reduced_shape(&n->in[0]->shape, reduced, onnx_attr_int(n->onnx, "keepdims", 1), &shape);
    run_set_out(n, 0, ONNX_INT64, &shape);
    return true;
}

static bool emit_arg(struct run_node *n)
{
    struct run_value *in = n->in[0];
    DML_ARGMAX_OPERATOR_DESC desc;  /* ARGMIN's desc has the same layout */
    bool reduced[RUN_MAX_RANK];
    UINT axis;

    if (!arg_axis(n, reduced))
        return false;
    if (!n->out[0])
        return true;
    if (in->type == ONNX_DOUBLE || run_dml_type(n->lower, in->type) == DML_TENSOR_DATA_TYPE_UNKNOWN)
        return run_unsupported(n, "DirectML's ARGMAX and ARGMIN have no %s", onnx_type_name(in->type));
    for (axis = 0; !reduced[axis]; ++axis)
        ;
    desc.InputTensor = run_desc(n, in, 0);
    desc.OutputTensor = kept_dims_desc(n, n->out[0], &in->shape, reduced);
    desc.AxisCount = 1;
    desc.Axes = &axis;
    desc.AxisDirection = onnx_attr_int(n->onnx, "select_last_index", 0)
            ? DML_AXIS_DIRECTION_DECREASING : DML_AXIS_DIRECTION_INCREASING;
    return desc.InputTensor && desc.OutputTensor
            && run_emit(n, strcmp(n->onnx->op_type, "ArgMax") ? DML_OPERATOR_ARGMIN : DML_OPERATOR_ARGMAX, &desc,
            &in, 1, &n->out[0], 1);
}

/* ---- Softmax, LogSoftmax, Hardmax ---- */

static bool infer_same(struct run_node *n)
{
    run_set_out(n, 0, n->in[0]->type, &n->in[0]->shape);
    return true;
}

static DML_OPERATOR_TYPE softmax_operator(const struct run_node *n)
{
    if (!strcmp(n->onnx->op_type, "LogSoftmax"))
        return DML_OPERATOR_ACTIVATION_LOG_SOFTMAX1;
    if (!strcmp(n->onnx->op_type, "Hardmax"))
        return DML_OPERATOR_ACTIVATION_HARDMAX1;
    return DML_OPERATOR_ACTIVATION_SOFTMAX1;
}

static bool emit_softmax(struct run_node *n)
{
    DML_OPERATOR_TYPE type = softmax_operator(n);
    struct run_value *in = n->in[0], *out = n->out[0], *result = out;
    DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC desc;     /* the layout of the three `1` descs */
    unsigned int rank = in->shape.rank, axis;
    UINT axes[RUN_MAX_RANK], axis_count = 0;

    if (!rank)
        return run_fail(n, "the input is a scalar");
    if (!run_axis(n, onnx_attr_int(n->onnx, "axis", n->opset >= 13 ? -1 : 1), rank, &axis))
        return false;
    if (!out)
        return true;
    if (!is_float(in->type) || (in->type == ONNX_DOUBLE && type == DML_OPERATOR_ACTIVATION_HARDMAX1))
        return run_unsupported(n, "DirectML's softmax operators have no %s", onnx_type_name(in->type));
    /* Before opset 13 the input is a 2-D matrix split at `axis`: one row is every axis from it on. */
    do
        axes[axis_count++] = axis;
    while (n->opset < 13 && ++axis < rank);
    if (!(in = device_input(n, in)))
        return false;
    desc.InputTensor = run_desc(n, in, 0);
    desc.OutputTensor = run_desc(n, result, 0);
    desc.AxisCount = axis_count;
    desc.Axes = axes;
    return desc.InputTensor && desc.OutputTensor && run_emit(n, type, &desc, &in, 1, &result, 1);
}

/* ---- TopK ---- */

static bool topk_params(struct run_node *n, unsigned int *axis, int64_t *k)
{
    const struct run_value *in = n->in[0];

    if (!run_axis(n, onnx_attr_int(n->onnx, "axis", -1), in->shape.rank, axis))
        return false;
    if (n->opset < 10)
        *k = onnx_attr_int(n->onnx, "k", -1);
    else if (run_in_ints(n, 1, k, 1) != 1)
        return run_fail(n, "K must be one value");
    if (*k < 0 || *k > in->shape.dims[*axis])
        return run_fail(n, "K %" PRId64 " is outside [0, %" PRId64 "]", *k, in->shape.dims[*axis]);
    return true;
}

static bool infer_topk(struct run_node *n)
{
    struct run_shape shape = n->in[0]->shape;
    unsigned int axis;
    int64_t k;

    if (!topk_params(n, &axis, &k))
        return false;
    shape.dims[axis] = k;
    run_set_out(n, 0, n->in[0]->type, &shape);
    run_set_out(n, 1, ONNX_INT64, &shape);
    return true;
}

static bool emit_topk(struct run_node *n)
{
    struct run_value *in = n->in[0], *outputs[2];
    struct run_shape shape = in->shape;
    DML_TOP_K1_OPERATOR_DESC desc;
    unsigned int axis, i;
    uint32_t sizes[RUN_MAX_RANK];
    int64_t k;

    if (!topk_params(n, &axis, &k))
        return false;
    if (in->type == ONNX_DOUBLE || in->type == ONNX_BOOL
            || run_dml_type(n->lower, in->type) == DML_TENSOR_DATA_TYPE_UNKNOWN)
        return run_unsupported(n, "DirectML's TOP_K1 has no %s", onnx_type_name(in->type));
    shape.dims[axis] = k;
    for (i = 0; i < shape.rank; ++i)
        sizes[i] = (uint32_t)shape.dims[i];
    /* TOP_K1 writes both outputs: one the model leaves out is an intermediate of its own, which
     * lowering keeps as a discarded graph output (docs/onnx.md, "Lowering"). */
    outputs[0] = n->out_count > 0 && n->out[0] ? n->out[0] : run_temp(n, in->type, &shape);
    outputs[1] = n->out_count > 1 && n->out[1] ? n->out[1] : run_temp(n, ONNX_INT64, &shape);
    if (!outputs[0] || !outputs[1])
        return false;
    desc.InputTensor = run_desc(n, in, 0);
    desc.OutputValueTensor = run_desc(n, outputs[0], 0);
    desc.OutputIndexTensor = run_desc_view(n, outputs[1], shape.rank, sizes, NULL, DML_TENSOR_DATA_TYPE_UINT64);
    desc.Axis = axis;
    desc.K = (UINT)k;
    desc.AxisDirection = onnx_attr_int(n->onnx, "largest", 1)
            ? DML_AXIS_DIRECTION_DECREASING : DML_AXIS_DIRECTION_INCREASING;
    return desc.InputTensor && desc.OutputValueTensor && desc.OutputIndexTensor
            && run_emit(n, DML_OPERATOR_TOP_K1, &desc, &in, 1, outputs, 2);
}

/* ---- CumSum ---- */

static bool emit_cumsum(struct run_node *n)
{
    struct run_value *in = n->in[0], *out = n->out[0], *result = out;
    DML_CUMULATIVE_SUMMATION_OPERATOR_DESC desc;
    unsigned int axis;
    int64_t value;

    if (run_in_ints(n, 1, &value, 1) != 1)
        return run_fail(n, "the axis must be one value");
    if (!run_axis(n, value, in->shape.rank, &axis))
        return false;
    if (!out)
        return true;
    switch (in->type)
    {
        case ONNX_FLOAT: case ONNX_FLOAT16: case ONNX_DOUBLE: case ONNX_INT32: case ONNX_UINT32: case ONNX_INT64:
        case ONNX_UINT64:
            break;
        default:
            return run_unsupported(n, "DirectML's CUMULATIVE_SUMMATION has no %s", onnx_type_name(in->type));
    }
    if (!(in = device_input(n, in)))
        return false;
    desc.InputTensor = run_desc(n, in, 0);
    desc.OutputTensor = run_desc(n, result, 0);
    desc.Axis = axis;
    desc.AxisDirection = onnx_attr_int(n->onnx, "reverse", 0)
            ? DML_AXIS_DIRECTION_DECREASING : DML_AXIS_DIRECTION_INCREASING;
    desc.HasExclusiveSum = onnx_attr_int(n->onnx, "exclusive", 0) ? TRUE : FALSE;
    return desc.InputTensor && desc.OutputTensor
            && run_emit(n, DML_OPERATOR_CUMULATIVE_SUMMATION, &desc, &in, 1, &result, 1);
}

/* ---- Trilu ---- */

static bool infer_trilu(struct run_node *n)
{
    if (n->in[0]->shape.rank < 2)
        return run_fail(n, "the input has %u dimensions (at least 2)", n->in[0]->shape.rank);
    return infer_same(n);
}

/* DIAGONAL_MATRIX1 takes ranks 2 to 4: the leading dimensions of a larger tensor are one batch. */
static DML_TENSOR_DESC *trilu_desc(struct run_node *n, const struct run_value *v)
{
    const struct run_shape *shape = &v->shape;
    uint32_t sizes[3];

    if (shape->rank <= 4)
        return run_desc(n, v, 0);
    sizes[0] = (uint32_t)(run_shape_elements(shape) / (shape->dims[shape->rank - 2] * shape->dims[shape->rank - 1]));
    sizes[1] = (uint32_t)shape->dims[shape->rank - 2];
    sizes[2] = (uint32_t)shape->dims[shape->rank - 1];
    return run_desc_view(n, v, 3, sizes, NULL, DML_TENSOR_DATA_TYPE_UNKNOWN);
}

static bool emit_trilu(struct run_node *n)
{
    struct run_value *in = n->in[0];
    DML_DIAGONAL_MATRIX1_OPERATOR_DESC desc;
    int64_t k = 0;

    if (run_in(n, 1) && run_in_ints(n, 1, &k, 1) != 1)
        return run_fail(n, "k must be one value");
    if (!n->out[0])
        return true;
    /* Column − row beyond ±INT_MAX is outside every matrix DirectML holds: the same as the bound. */
    k = k < -INT_MAX ? -INT_MAX : k > INT_MAX - 1 ? INT_MAX - 1 : k;
    desc.InputTensor = trilu_desc(n, in);
    desc.OutputTensor = trilu_desc(n, n->out[0]);
    desc.ValueDataType = run_dml_type(n->lower, in->type);
    desc.Value = run_scalar(desc.ValueDataType, 0.0);
    /* DIAGONAL_MATRIX1 writes Value where column − row is in [Begin, End): the band Trilu zeroes. */
    if (onnx_attr_int(n->onnx, "upper", 1))
    {
        desc.DiagonalFillBegin = INT_MIN;
        desc.DiagonalFillEnd = (INT)k;
    }
    else
    {
        desc.DiagonalFillBegin = (INT)k + 1;
        desc.DiagonalFillEnd = INT_MAX;
    }
    if (desc.ValueDataType == DML_TENSOR_DATA_TYPE_UNKNOWN)
        return run_unsupported(n, "DirectML has no %s", onnx_type_name(in->type));
    return desc.InputTensor && desc.OutputTensor
            && run_emit(n, DML_OPERATOR_DIAGONAL_MATRIX1, &desc, &in, 1, &n->out[0], 1);
}

/* ---- Einsum ---- */

#define EINSUM_OPERANDS 16
#define EINSUM_LETTERS 52               /* a-z, A-Z; then the dimensions the ellipsis stands for */
#define EINSUM_LABELS (EINSUM_LETTERS + RUN_MAX_RANK)

struct einsum
{
    unsigned int operands;
    unsigned int rank[EINSUM_OPERANDS];
    unsigned int labels[EINSUM_OPERANDS][RUN_MAX_RANK];     /* each operand dimension's label */
    unsigned int ellipsis;              /* dimensions the ellipsis stands for, at most */
    int64_t size[EINSUM_LABELS];        /* 0: a label not used */
    unsigned int order[RUN_MAX_RANK];   /* the computation's dimensions: the output's, then the summed */
    unsigned int order_count, out_count;
};

static int einsum_letter(char c)
{
    if (c >= 'a' && c <= 'z')
        return c - 'a';
    if (c >= 'A' && c <= 'Z')
        return 26 + c - 'A';
    return -1;
}

/* Counts a term's letters; false on a character that is neither a letter nor one "...". */
static bool einsum_count(const char *term, size_t length, unsigned int *letters, bool *ellipsis)
{
    size_t i;

    *letters = 0;
    *ellipsis = false;
    for (i = 0; i < length; ++i)
    {
        if (einsum_letter(term[i]) >= 0)
        {
            ++*letters;
            continue;
        }
        if (*ellipsis || i + 3 > length || strncmp(term + i, "...", 3))
            return false;
        *ellipsis = true;
        i += 2;
    }
    return true;
}

/* A term's labels; its ellipsis stands for `ellipsis_rank` dimensions, right-aligned among the
 * equation's (numpy broadcasting). */
static unsigned int einsum_term(const struct einsum *e, const char *term, size_t length, unsigned int ellipsis_rank,
        unsigned int *labels)
{
    unsigned int count = 0, j;
    size_t i;

    for (i = 0; i < length; ++i)
    {
        if (einsum_letter(term[i]) >= 0)
        {
            labels[count++] = (unsigned int)einsum_letter(term[i]);
            continue;
        }
        for (j = 0; j < ellipsis_rank; ++j)
            labels[count++] = EINSUM_LETTERS + e->ellipsis - ellipsis_rank + j;
        i += 2;
    }
    return count;
}

/* Operand `i`'s term: its labels and their sizes. */
static bool einsum_operand(struct run_node *n, struct einsum *e, unsigned int i, const char *term, size_t length)
{
    const struct run_shape *shape = &n->in[i]->shape;
    unsigned int letters, d;
    bool ellipsis;

    einsum_count(term, length, &letters, &ellipsis);
    if (letters > shape->rank || (!ellipsis && letters != shape->rank))
        return run_fail(n, "term %u has %u labels for %u dimensions", i, letters, shape->rank);
    e->rank[i] = einsum_term(e, term, length, shape->rank - letters, e->labels[i]);
    for (d = 0; d < e->rank[i]; ++d)
    {
        int64_t *size = &e->size[e->labels[i][d]];

        if (*size > 1 && shape->dims[d] != 1 && shape->dims[d] != *size)
            return run_fail(n, "a label has sizes %" PRId64 " and %" PRId64, *size, shape->dims[d]);
        if (*size <= 1)
            *size = shape->dims[d] ? shape->dims[d] : -1;
    }
    return true;
}

/* The output's labels when the equation has no "->": the ellipsis's, then the letters used once,
 * in the order of their character codes (numpy's rule). */
static void einsum_implicit_output(struct einsum *e)
{
    static const char letters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    unsigned int i, j, d, uses;

    for (i = 0; i < e->ellipsis; ++i)
        e->order[e->out_count++] = EINSUM_LETTERS + i;
    for (i = 0; letters[i]; ++i)
    {
        unsigned int label = (unsigned int)einsum_letter(letters[i]);

        for (j = 0, uses = 0; j < e->operands; ++j)
            for (d = 0; d < e->rank[j]; ++d)
                uses += e->labels[j][d] == label;
        if (uses == 1 && e->out_count < RUN_MAX_RANK)
            e->order[e->out_count++] = label;
    }
}

static bool einsum_order_add(struct run_node *n, struct einsum *e, unsigned int label)
{
    unsigned int i;

    for (i = 0; i < e->order_count; ++i)
        if (e->order[i] == label)
            return true;
    if (e->order_count == RUN_MAX_RANK)
        return run_unsupported(n, "more than %u distinct labels (DirectML's tensors have at most %u dimensions)",
                RUN_MAX_RANK, RUN_MAX_RANK);
    e->order[e->order_count++] = label;
    return true;
}

/* The explicit output term: labels of the inputs, each once. */
static bool einsum_explicit_output(struct run_node *n, struct einsum *e, const char *term, size_t length)
{
    unsigned int letters, labels[RUN_MAX_RANK + EINSUM_LETTERS], count, i, j;
    bool ellipsis;

    if (!einsum_count(term, length, &letters, &ellipsis) || letters + (ellipsis ? e->ellipsis : 0) > RUN_MAX_RANK)
        return run_fail(n, "the output term is not valid");
    count = einsum_term(e, term, length, ellipsis ? e->ellipsis : 0, labels);
    for (i = 0; i < count; ++i)
    {
        if (!e->size[labels[i]])
            return run_fail(n, "an output label is in no input");
        for (j = 0; j < i; ++j)
            if (labels[j] == labels[i])
                return run_fail(n, "an output label is repeated");
        e->order[e->out_count++] = labels[i];
    }
    return true;
}

/* Parses the equation for the node's inputs. */
static bool einsum_parse(struct run_node *n, struct einsum *e)
{
    char equation[256], buffer[256];
    const char *text, *term, *arrow, *end;
    unsigned int i, d, letters;
    bool ellipsis;
    size_t j, k;

    memset(e, 0, sizeof(*e));
    text = onnx_attr_string(n->onnx, "equation", "", buffer, sizeof(buffer));
    for (j = k = 0; text[j]; ++j)
        if (text[j] != ' ')
            equation[k++] = text[j];
    equation[k] = 0;
    if ((e->operands = n->in_count) > EINSUM_OPERANDS || !e->operands)
        return run_unsupported(n, "%u operands (at most %u)", n->in_count, EINSUM_OPERANDS);
    arrow = strstr(equation, "->");
    end = arrow ? arrow : equation + k;
    /* First pass: how many dimensions the ellipsis stands for, at most. */
    for (i = 0, term = equation; i < e->operands; ++i, term += strcspn(term, ",") + 1)
    {
        size_t length = strcspn(term, ",");

        if (!n->in[i] || term > end || (i + 1 < e->operands) != (term + length < end && term[length] == ','))
            return run_fail(n, "the equation '%s' does not have %u input terms", equation, e->operands);
        if (!einsum_count(term, term + length > end ? (size_t)(end - term) : length, &letters, &ellipsis))
            return run_fail(n, "the equation '%s' is not valid", equation);
        if (ellipsis && n->in[i]->shape.rank >= letters && n->in[i]->shape.rank - letters > e->ellipsis)
            e->ellipsis = n->in[i]->shape.rank - letters;
    }
    for (i = 0, term = equation; i < e->operands; ++i, term += strcspn(term, ",") + 1)
    {
        size_t length = strcspn(term, ",");

        if (!einsum_operand(n, e, i, term, term + length > end ? (size_t)(end - term) : length))
            return false;
    }
    if (!arrow)
        einsum_implicit_output(e);
    else if (!einsum_explicit_output(n, e, arrow + 2, strlen(arrow + 2)))
        return false;
    e->order_count = e->out_count;
    for (i = 0; i < e->operands; ++i)
        for (d = 0; d < e->rank[i]; ++d)
            if (!einsum_order_add(n, e, e->labels[i][d]))
                return false;
    return true;
}

static bool infer_einsum(struct run_node *n)
{
    struct run_shape shape;
    struct einsum e;
    unsigned int i;

    if (!einsum_parse(n, &e))
        return false;
    shape.rank = e.out_count;
    for (i = 0; i < e.out_count; ++i)
        shape.dims[i] = e.size[e.order[i]] < 0 ? 0 : e.size[e.order[i]];
    run_set_out(n, 0, n->in[0]->type, &shape);
    return true;
}

/* Operand `i` read in the computation's dimensions: a repeated label's strides add up (a
 * diagonal), a missing label or a dimension of 1 is broadcast (stride 0). */
static DML_TENSOR_DESC *einsum_view(struct run_node *n, const struct einsum *e, unsigned int i, struct run_value *v)
{
    uint32_t sizes[RUN_MAX_RANK] = {1}, strides[RUN_MAX_RANK] = {0}, stride = 1;
    unsigned int d, p;

    for (p = 0; p < e->order_count; ++p)
        sizes[p] = (uint32_t)e->size[e->order[p]];
    for (d = e->rank[i]; d-- > 0;)
    {
        for (p = 0; e->order[p] != e->labels[i][d]; ++p)
            ;
        if (v->shape.dims[d] != 1)
            strides[p] += stride;
        stride *= (uint32_t)v->shape.dims[d];
    }
    return run_desc_view(n, v, e->order_count ? e->order_count : 1, sizes, strides, DML_TENSOR_DATA_TYPE_UNKNOWN);
}

/* A packed tensor in the computation's dimensions, those from `kept` on as 1 (the summed ones). */
static DML_TENSOR_DESC *einsum_packed(struct run_node *n, const struct einsum *e, struct run_value *v,
        unsigned int kept)
{
    uint32_t sizes[RUN_MAX_RANK] = {1};
    unsigned int p;

    for (p = 0; p < e->order_count; ++p)
        sizes[p] = p < kept ? (uint32_t)e->size[e->order[p]] : 1;
    return run_desc_view(n, v, e->order_count ? e->order_count : 1, sizes, NULL, DML_TENSOR_DATA_TYPE_UNKNOWN);
}

/* The product of every operand over all the labels (ELEMENT_WISE_MULTIPLY), into `result` when
 * nothing is summed; returns the product and its desc. */
static struct run_value *einsum_product(struct run_node *n, const struct einsum *e, struct run_value **operands,
        struct run_value *result, DML_TENSOR_DESC **product_desc)
{
    struct run_value *product = operands[0], *inputs[2];
    DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC desc;
    struct run_shape shape;
    unsigned int i, p;

    shape.rank = e->order_count;
    for (p = 0; p < e->order_count; ++p)
        shape.dims[p] = e->size[e->order[p]];
    *product_desc = einsum_view(n, e, 0, product);
    for (i = 1; i < e->operands && *product_desc; ++i)
    {
        inputs[0] = product;
        inputs[1] = operands[i];
        desc.ATensor = *product_desc;
        desc.BTensor = einsum_view(n, e, i, operands[i]);
        if (i + 1 == e->operands && e->order_count == e->out_count)
            product = result;
        else if (!(product = run_temp(n, result->type, &shape)))
            return NULL;
        desc.OutputTensor = *product_desc = einsum_packed(n, e, product, e->order_count);
        if (!desc.BTensor || !desc.OutputTensor
                || !run_emit(n, DML_OPERATOR_ELEMENT_WISE_MULTIPLY, &desc, inputs, 2, &product, 1))
            return NULL;
    }
    return *product_desc ? product : NULL;
}

/* Einsum as one GEMM: A {B0, B1, M, K}, B {B0, B1, K, N}, output {B0, B1, M, N}, each dimension a
 * group of labels in the computation's order (batches: in both operands and the output, all in B1
 * or the first in B0; M: in A and the output; N: in B and the output; K: in both operands only). */
enum einsum_gemm_role { GEMM_BATCH0, GEMM_BATCH, GEMM_M, GEMM_K, GEMM_N, GEMM_ROLES };

struct einsum_gemm
{
    unsigned int labels[GEMM_ROLES][RUN_MAX_RANK];
    unsigned int count[GEMM_ROLES];
    uint32_t sizes[3][4], strides[3][4];    /* A, B, output */
};

static bool einsum_has(const struct einsum *e, unsigned int operand, unsigned int label)
{
    unsigned int d;

    for (d = 0; d < e->rank[operand]; ++d)
        if (e->labels[operand][d] == label)
            return true;
    return false;
}

/* The stride of `label` in a packed tensor whose dimensions are `labels` with `shape`; 0 where it
 * is a dimension of 1 (broadcast). */
static uint32_t einsum_stride(const unsigned int *labels, const struct run_shape *shape, unsigned int label)
{
    uint32_t stride = 1;
    unsigned int d;

    for (d = shape->rank; d-- > 0;)
    {
        if (labels[d] == label)
            return shape->dims[d] == 1 ? 0 : stride;
        stride *= (uint32_t)shape->dims[d];
    }
    return 0;
}

/* A group of labels as one dimension of a tensor, when its strides nest (each label's stride is
 * the next one's times that one's size), as a row-major tensor's consecutive dimensions do. */
static bool einsum_group(const struct einsum *e, const unsigned int *labels, const struct run_shape *shape,
        const unsigned int *group, unsigned int count, uint32_t *size, uint32_t *stride)
{
    uint64_t expected = 0;
    bool first = true;
    unsigned int j;

    *size = 1;
    *stride = 0;
    for (j = count; j-- > 0;)
    {
        uint32_t label_size = (uint32_t)e->size[group[j]], label_stride;

        if (label_size == 1)
            continue;
        label_stride = einsum_stride(labels, shape, group[j]);
        if (!first && label_stride != expected)
            return false;
        if (first)
            *stride = label_stride;
        first = false;
        expected = (uint64_t)label_stride * label_size;
        *size *= label_size;
    }
    return true;
}

/* One tensor's sizes and strides: `roles` gives its four dimensions' groups. */
static bool einsum_gemm_tensor(const struct einsum *e, struct einsum_gemm *g, unsigned int tensor,
        const unsigned int *labels, const struct run_shape *shape, const enum einsum_gemm_role *roles)
{
    unsigned int i;

    for (i = 0; i < 4; ++i)
    {
        if (!einsum_group(e, labels, shape, g->labels[roles[i]], g->count[roles[i]], &g->sizes[tensor][i],
                &g->strides[tensor][i]))
            return false;
    }
    return true;
}

/* Whether two operands make one GEMM: no label repeated in an operand, none summed that only one
 * operand has, and each group's labels nested in every tensor that has them. */
static bool einsum_gemm_plan(const struct einsum *e, const struct run_shape *a, const struct run_shape *b,
        const struct run_shape *out, struct einsum_gemm *g)
{
    static const enum einsum_gemm_role a_roles[] = {GEMM_BATCH0, GEMM_BATCH, GEMM_M, GEMM_K};
    static const enum einsum_gemm_role b_roles[] = {GEMM_BATCH0, GEMM_BATCH, GEMM_K, GEMM_N};
    static const enum einsum_gemm_role out_roles[] = {GEMM_BATCH0, GEMM_BATCH, GEMM_M, GEMM_N};
    unsigned int p, i, labels = 0;

    if (e->operands != 2)
        return false;
    memset(g, 0, sizeof(*g));
    for (p = 0; p < e->order_count; ++p)
    {
        unsigned int label = e->order[p];
        bool in_a = einsum_has(e, 0, label), in_b = einsum_has(e, 1, label), in_out = p < e->out_count;
        enum einsum_gemm_role role;

        if (in_a && in_b)
            role = in_out ? GEMM_BATCH : GEMM_K;
        else if (in_out)
            role = in_a ? GEMM_M : GEMM_N;
        else
            return false;
        g->labels[role][g->count[role]++] = label;
    }
    for (i = 0; i < 2; ++i)
        labels += e->rank[i];
    if (labels != e->order_count + g->count[GEMM_BATCH] + g->count[GEMM_K])
        return false;   /* a label repeated within an operand: a diagonal */
    for (;;)
    {
        if (einsum_gemm_tensor(e, g, 0, e->labels[0], a, a_roles)
                && einsum_gemm_tensor(e, g, 1, e->labels[1], b, b_roles)
                && einsum_gemm_tensor(e, g, 2, e->order, out, out_roles))
            return true;
        /* Batches that do not nest: the first one apart, in B0. */
        if (g->count[GEMM_BATCH0] || g->count[GEMM_BATCH] < 2)
            return false;
        g->labels[GEMM_BATCH0][g->count[GEMM_BATCH0]++] = g->labels[GEMM_BATCH][0];
        memmove(g->labels[GEMM_BATCH], g->labels[GEMM_BATCH] + 1, --g->count[GEMM_BATCH] * sizeof(**g->labels));
    }
}

/* Two operands as one GEMM (einsum_gemm_plan), read through strides: no product of the whole
 * label space. */
static bool einsum_gemm(struct run_node *n, const struct einsum_gemm *g, struct run_value **operands,
        struct run_value *result)
{
    DML_GEMM_OPERATOR_DESC desc;

    memset(&desc, 0, sizeof(desc));
    desc.ATensor = run_desc_view(n, operands[0], 4, g->sizes[0], g->strides[0], DML_TENSOR_DATA_TYPE_UNKNOWN);
    desc.BTensor = run_desc_view(n, operands[1], 4, g->sizes[1], g->strides[1], DML_TENSOR_DATA_TYPE_UNKNOWN);
    desc.OutputTensor = run_desc_view(n, result, 4, g->sizes[2], g->strides[2], DML_TENSOR_DATA_TYPE_UNKNOWN);
    desc.TransA = DML_MATRIX_TRANSFORM_NONE;
    desc.TransB = DML_MATRIX_TRANSFORM_NONE;
    desc.Alpha = 1.0f;
    return desc.ATensor && desc.BTensor && desc.OutputTensor
            && run_emit(n, DML_OPERATOR_GEMM, &desc, operands, 2, &result, 1);
}

static bool emit_einsum(struct run_node *n)
{
    struct run_value *operands[EINSUM_OPERANDS], *out = n->out[0], *result, *product;
    UINT axes[RUN_MAX_RANK], axis_count = 0;
    struct einsum_gemm gemm;
    DML_TENSOR_DESC *product_desc;
    struct einsum e;
    unsigned int i;

    if (!einsum_parse(n, &e))
        return false;
    if (!out)
        return true;
    switch (out->type)
    {
        case ONNX_FLOAT: case ONNX_FLOAT16: case ONNX_DOUBLE: case ONNX_INT32: case ONNX_UINT32: case ONNX_INT64:
        case ONNX_UINT64:
            break;
        default:
            return run_unsupported(n, "DirectML's REDUCE has no SUM for %s", onnx_type_name(out->type));
    }
    for (i = 0; i < e.operands; ++i)
        if (n->in[i]->type != out->type || !(operands[i] = device_input(n, n->in[i])))
            return n->in[i]->type != out->type ? run_fail(n, "the operands' types differ") : false;
    result = out;
    if (is_float(out->type) && einsum_gemm_plan(&e, &operands[0]->shape, &operands[1]->shape, &out->shape, &gemm))
        return einsum_gemm(n, &gemm, operands, result);
    if (!(product = einsum_product(n, &e, operands, result, &product_desc)))
        return false;
    if (e.order_count > e.out_count)
    {
        DML_REDUCE_OPERATOR_DESC desc;

        for (i = e.out_count; i < e.order_count; ++i)
            axes[axis_count++] = i;
        desc.Function = DML_REDUCE_FUNCTION_SUM;
        desc.InputTensor = product_desc;
        desc.OutputTensor = einsum_packed(n, &e, result, e.out_count);
        desc.AxisCount = axis_count;
        desc.Axes = axes;
        if (!desc.OutputTensor || !run_emit(n, DML_OPERATOR_REDUCE, &desc, &product, 1, &result, 1))
            return false;
    }
    else if (e.operands == 1)
    {
        DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc;

        desc.InputTensor = product_desc;
        desc.OutputTensor = einsum_packed(n, &e, result, e.out_count);
        desc.ScaleBias = NULL;
        if (!desc.OutputTensor || !run_emit(n, DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc, &product, 1, &result, 1))
            return false;
    }
    return true;
}

/* ---- NonMaxSuppression ---- */

static bool infer_non_max_suppression(struct run_node *n)
{
    return run_unsupported(n, "DirectML has no non-maximum suppression operator, and the output's shape "
            "depends on the data");
}

const struct run_op run_ops_reduce[] =
{
    {"ReduceSum", infer_reduce, fold_reduce, emit_reduce},
    {"ReduceMean", infer_reduce, fold_reduce, emit_reduce},
    {"ReduceMax", infer_reduce, fold_reduce, emit_reduce},
    {"ReduceMin", infer_reduce, fold_reduce, emit_reduce},
    {"ReduceProd", infer_reduce, fold_reduce, emit_reduce},
    {"ReduceL1", infer_reduce, fold_reduce, emit_reduce},
    {"ReduceL2", infer_reduce, fold_reduce, emit_reduce},
    {"ReduceLogSum", infer_reduce, fold_reduce, emit_reduce},
    {"ReduceLogSumExp", infer_reduce, fold_reduce, emit_reduce},
    {"ReduceSumSquare", infer_reduce, fold_reduce, emit_reduce},
    {"ArgMax", infer_arg, NULL, emit_arg},
    {"ArgMin", infer_arg, NULL, emit_arg},
    {"Softmax", infer_same, NULL, emit_softmax},
    {"LogSoftmax", infer_same, NULL, emit_softmax},
    {"Hardmax", infer_same, NULL, emit_softmax},
    {"TopK", infer_topk, NULL, emit_topk},
    {"CumSum", infer_same, NULL, emit_cumsum},
    {"Trilu", infer_trilu, NULL, emit_trilu},
    {"Einsum", infer_einsum, NULL, emit_einsum},
    {"NonMaxSuppression", infer_non_max_suppression, NULL, NULL},
    {NULL},
};
