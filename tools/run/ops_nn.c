/*
 * vkdml-run's nn family (ops.h): the neural-network operators.
 * - Conv, ConvTranspose: CONVOLUTION (cross-correlation, FORWARD / BACKWARD), 1-D to 3-D; 1-D runs
 *   as 2-D with a spatial dimension of 1 in the descs (DirectML's convolutions take 4-D or 5-D).
 * - Gemm, MatMul: GEMM (4-D: MatMul's batch dimensions broadcast by 0 strides, more than two of them
 *   merged where their strides allow, else both operands copied out whole by ELEMENT_WISE_IDENTITY).
 * - BatchNormalization (inference form; training outputs are unsupported): BATCH_NORMALIZATION.
 * - MaxPool (Indices through MAX_POOLING2; storage_order 1 pools an NCWH view), AveragePool, LpPool and
 *   their Global forms: MAX_POOLING2, AVERAGE_POOLING1, LP_POOLING1. ceil_mode widens EndPadding:
 *   DirectML leaves no window past it (README.md, "Pooling: decisions"); with count_include_pad the
 *   pads become real zeros (PADDING) first, so the widening is not counted.
 * - InstanceNormalization, LayerNormalization, MeanVarianceNormalization, GroupNormalization (X viewed as
 *   {N, groups, C / groups, spatial}): MEAN_VARIANCE_NORMALIZATION1 over their axes; LayerNormalization's
 *   Mean and InvStdDev by REDUCE, DIFFERENCE_SQUARE and CONSTANT_POW.
 * - LRN: LOCAL_RESPONSE_NORMALIZATION across channels (other ranks folded into NCHW); LpNormalization:
 *   LP_NORMALIZATION.
 * - Resize, Upsample: RESAMPLE3 for nearest and linear, every coordinate transformation as pixel offsets,
 *   nearest_mode as the rounding direction and half-pixel shifts. Cubic (which DirectML lacks), linear
 *   tf_crop_and_resize (ONNX extrapolates where DirectML clamps) and antialiased downscaling (ONNX's filter
 *   widens for every scale below 1) as two GEMMs with interpolation matrices made on the host, over the
 *   last two dimensions; nearest tf_crop_and_resize where no read leaves the input.
 * - MaxUnpool: MAX_UNPOOLING (4-D: other ranks folded; a larger output_shape pads with PADDING).
 * - MaxRoiPool: ROI_POOLING; RoiAlign: ROI_ALIGN1, mode avg only (DirectML's MAX is not ONNX's max of
 *   weighted corners).
 * Float operators take FLOAT and FLOAT16 only, as DirectML's tables list (README.md, "Operator support").
 */
#include "ops.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- Shared helpers ---- */

static bool is_float(int type)
{
    return type == ONNX_FLOAT || type == ONNX_FLOAT16;
}

static bool require_float(struct run_node *n, const struct run_value *v)
{
    if (is_float(v->type))
        return true;
    return run_unsupported(n, "'%s' is %s: DirectML's operator takes FLOAT and FLOAT16 only", v->name,
            onnx_type_name(v->type));
}

/* `v` (N, C, D1..Dk) as DirectML's 4-D or 5-D NCHW / NCDHW: a 1-D spatial shape gets a height of 1.
 * `type` overrides the data type (DML_TENSOR_DATA_TYPE_UNKNOWN: v's). */
static DML_TENSOR_DESC *nchw_desc_typed(struct run_node *n, const struct run_value *v, DML_TENSOR_DATA_TYPE type)
{
    UINT sizes[5];
    unsigned int rank = v->shape.rank, i, j = 0;

    if (rank < 3 || rank > 5)
    {
        run_unsupported(n, "'%s' has %u dimensions (DirectML takes 1 to 3 spatial ones)", v->name, rank);
        return NULL;
    }
    for (i = 0; i < rank; ++i)
    {
        if (i == 2 && rank == 3)
            sizes[j++] = 1;
        sizes[j++] = (UINT)v->shape.dims[i];
    }
    return run_desc_view(n, v, j, sizes, NULL, type);
}

static DML_TENSOR_DESC *nchw_desc(struct run_node *n, const struct run_value *v)
{
    return nchw_desc_typed(n, v, DML_TENSOR_DATA_TYPE_UNKNOWN);
}

/* A per-channel parameter ([C], or [C, D1..] for BatchNormalization's spatial 0) read as {1, C, ...}
 * in `rank` dimensions. */
static DML_TENSOR_DESC *channel_desc(struct run_node *n, const struct run_value *v, unsigned int rank)
{
    UINT sizes[RUN_MAX_RANK];
    unsigned int i;

    if (v->shape.rank + 1 > rank)
    {
        run_fail(n, "'%s' has %u dimensions, more than the input's channels and spatial ones", v->name,
                v->shape.rank);
        return NULL;
    }
    for (i = 0; i < rank; ++i)
        sizes[i] = i >= 1 && i <= v->shape.rank ? (UINT)v->shape.dims[i - 1] : 1;
    return run_desc_view(n, v, rank, sizes, NULL, DML_TENSOR_DATA_TYPE_UNKNOWN);
}

/* ---- Windows: the spatial attributes of convolutions and pools ---- */

struct window
{
    unsigned int count;                 /* the ONNX tensors' spatial dimensions, 1 to 3 */
    int64_t kernel[3], strides[3], dilations[3], start[3], end[3], output_padding[3];
    int64_t in[3], out[3];
};

/* DirectML's arrays of a window (1-D as 2-D: a leading dimension of 1). */
struct dml_window
{
    UINT count;
    UINT kernel[3], strides[3], dilations[3], start[3], end[3], output_padding[3];
};

enum auto_pad { PAD_NOTSET, PAD_SAME_UPPER, PAD_SAME_LOWER, PAD_VALID };

static bool read_auto_pad(struct run_node *n, enum auto_pad *pad)
{
    char buffer[32];
    const char *text = onnx_attr_string(n->onnx, "auto_pad", "NOTSET", buffer, sizeof(buffer));

    if (!strcmp(text, "NOTSET"))
        *pad = PAD_NOTSET;
    else if (!strcmp(text, "SAME_UPPER"))
        *pad = PAD_SAME_UPPER;
    else if (!strcmp(text, "SAME_LOWER"))
        *pad = PAD_SAME_LOWER;
    else if (!strcmp(text, "VALID"))
        *pad = PAD_VALID;
    else
        return run_fail(n, "auto_pad '%s' is not an ONNX value", text);
    return true;
}

/* An ints attribute of `count` values, each at least `minimum`, or `fallback` everywhere. */
static bool read_ints(struct run_node *n, const char *name, unsigned int count, int64_t fallback, int64_t minimum,
        int64_t *values)
{
    int64_t given[6];
    int got = onnx_attr_ints(n->onnx, name, given, 6);
    unsigned int i;

    if (got >= 0 && (unsigned int)got != count)
        return run_fail(n, "'%s' has %d values, %u expected", name, got, count);
    for (i = 0; i < count; ++i)
    {
        values[i] = got >= 0 ? given[i] : fallback;
        if (values[i] < minimum)
            return run_fail(n, "'%s'[%u] is %" PRId64 " (at least %" PRId64 ")", name, i, values[i], minimum);
    }
    return true;
}

/* The spatial attributes shared by Conv, ConvTranspose and the pools; `kernel` NULL: kernel_shape. */
static bool read_window(struct run_node *n, const struct run_shape *x, const int64_t *kernel, struct window *w)
{
    int64_t pads[6];
    unsigned int i;

    memset(w, 0, sizeof(*w));
    if (x->rank < 3 || x->rank > 5)
        return run_unsupported(n, "input of %u dimensions (DirectML takes 1 to 3 spatial ones)", x->rank);
    w->count = x->rank - 2;
    for (i = 0; i < w->count; ++i)
        w->in[i] = x->dims[i + 2];
    if (kernel)
        memcpy(w->kernel, kernel, w->count * sizeof(*kernel));
    else if (onnx_attr_ints(n->onnx, "kernel_shape", NULL, 0) < 0)
        return run_fail(n, "kernel_shape is required");
    else if (!read_ints(n, "kernel_shape", w->count, 1, 1, w->kernel))
        return false;
    if (!read_ints(n, "strides", w->count, 1, 1, w->strides) || !read_ints(n, "dilations", w->count, 1, 1, w->dilations)
            || !read_ints(n, "pads", 2 * w->count, 0, 0, pads))
        return false;
    for (i = 0; i < w->count; ++i)
    {
        w->start[i] = pads[i];
        w->end[i] = pads[i + w->count];
    }
    return true;
}

static int64_t dilated_kernel(const struct window *w, unsigned int i)
{
    return (w->kernel[i] - 1) * w->dilations[i] + 1;
}

/* The output size of a forward window (Conv, pools): ONNX's rules for auto_pad and ceil_mode. */
static bool forward_sizes(struct run_node *n, struct window *w, bool ceil_mode)
{
    enum auto_pad pad;
    unsigned int i;

    if (!read_auto_pad(n, &pad))
        return false;
    for (i = 0; i < w->count; ++i)
    {
        int64_t k = dilated_kernel(w, i), s = w->strides[i], in = w->in[i], span, total;

        if (pad == PAD_SAME_UPPER || pad == PAD_SAME_LOWER)
        {
            w->out[i] = (in + s - 1) / s;
            total = (w->out[i] - 1) * s + k - in;
            total = total > 0 ? total : 0;
            w->start[i] = pad == PAD_SAME_UPPER ? total / 2 : total - total / 2;
            w->end[i] = total - w->start[i];
            continue;
        }
        if (pad == PAD_VALID)
            w->start[i] = w->end[i] = 0;
        if ((span = in + w->start[i] + w->end[i] - k) < 0)
            return run_fail(n, "the window (%" PRId64 ") is wider than the padded input (%" PRId64 ")", k, span + k);
        w->out[i] = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
        /* ONNX's ceil_mode: the last window starts inside the input or its start padding. */
        if (ceil_mode && (w->out[i] - 1) * s >= in + w->start[i])
            --w->out[i];
    }
    return true;
}

/* DirectML's arrays; EndPadding grows to hold the last window (ceil_mode), `widened` says if it did. */
static void to_dml_window(const struct window *w, bool backward, struct dml_window *d, bool *widened)
{
    unsigned int i, j = w->count == 1 ? 1 : 0;

    *widened = false;
    d->count = w->count + j;
    if (j)
    {
        d->kernel[0] = d->strides[0] = d->dilations[0] = 1;
        d->start[0] = d->end[0] = d->output_padding[0] = 0;
    }
    for (i = 0; i < w->count; ++i, ++j)
    {
        int64_t end = w->end[i];

        if (!backward)
        {
            int64_t needed = (w->out[i] - 1) * w->strides[i] + dilated_kernel(w, i) - w->in[i] - w->start[i];

            if (needed > end)
            {
                end = needed;
                *widened = true;
            }
        }
        d->kernel[j] = (UINT)w->kernel[i];
        d->strides[j] = (UINT)w->strides[i];
        d->dilations[j] = (UINT)w->dilations[i];
        d->start[j] = (UINT)w->start[i];
        d->end[j] = (UINT)end;
        d->output_padding[j] = (UINT)w->output_padding[i];
    }
}

static void window_out_shape(const struct window *w, int64_t n, int64_t c, struct run_shape *shape)
{
    unsigned int i;

    shape->rank = w->count + 2;
    shape->dims[0] = n;
    shape->dims[1] = c;
    for (i = 0; i < w->count; ++i)
        shape->dims[i + 2] = w->out[i];
}

/* ---- Conv, ConvTranspose ---- */

static bool conv_window(struct run_node *n, struct window *w)
{
    const struct run_value *x = n->in[0], *weights = n->in[1];

    if (weights->shape.rank != x->shape.rank)
        return run_fail(n, "W has %u dimensions, X %u", weights->shape.rank, x->shape.rank);
    return read_window(n, &x->shape, &weights->shape.dims[2], w);
}

static bool infer_conv(struct run_node *n)
{
    const struct run_value *x = n->in[0], *weights = n->in[1];
    int64_t group = onnx_attr_int(n->onnx, "group", 1);
    struct run_shape shape;
    struct window w;

    if (!conv_window(n, &w) || !forward_sizes(n, &w, false))
        return false;
    if (group < 1 || x->shape.dims[1] != weights->shape.dims[1] * group || weights->shape.dims[0] % group)
        return run_fail(n, "X's %" PRId64 " channels, W's %" PRId64 "x%" PRId64 " and group %" PRId64 " disagree",
                x->shape.dims[1], weights->shape.dims[0], weights->shape.dims[1], group);
    window_out_shape(&w, x->shape.dims[0], weights->shape.dims[0], &shape);
    run_set_out(n, 0, x->type, &shape);
    return true;
}

/* ConvTranspose: ONNX's output size, or output_shape's with the padding it implies. */
static bool transpose_sizes(struct run_node *n, struct window *w)
{
    int64_t output_shape[3];
    bool has_shape = onnx_attr_ints(n->onnx, "output_shape", NULL, 0) >= 0;
    enum auto_pad pad;
    unsigned int i;

    if (!read_auto_pad(n, &pad) || !read_ints(n, "output_padding", w->count, 0, 0, w->output_padding))
        return false;
    if (has_shape)
    {
        int64_t given[5];
        int count = onnx_attr_ints(n->onnx, "output_shape", given, 5);

        /* The spatial sizes, or (as some exporters write) the whole shape. */
        if (count != (int)w->count && count != (int)w->count + 2)
            return run_fail(n, "output_shape has %d values", count);
        memcpy(output_shape, &given[count - w->count], w->count * sizeof(*given));
    }
    for (i = 0; i < w->count; ++i)
    {
        int64_t full = w->strides[i] * (w->in[i] - 1) + w->output_padding[i] + dilated_kernel(w, i), total;

        if (!has_shape && pad == PAD_NOTSET)
        {
            w->out[i] = full - w->start[i] - w->end[i];
            continue;
        }
        if (!has_shape && pad == PAD_VALID)
        {
            w->start[i] = w->end[i] = 0;
            w->out[i] = full;
            continue;
        }
        w->out[i] = has_shape ? output_shape[i] : w->in[i] * w->strides[i];
        if ((total = full - w->out[i]) < 0)
        {
            /* A larger output than the full one: zeros after it, as output padding. */
            w->output_padding[i] -= total;
            total = 0;
        }
        w->start[i] = pad == PAD_SAME_UPPER ? total / 2 : total - total / 2;
        w->end[i] = total - w->start[i];
    }
    for (i = 0; i < w->count; ++i)
        if (w->out[i] < 1)
            return run_fail(n, "spatial output size %u is %" PRId64, i, w->out[i]);
    return true;
}

static bool infer_conv_transpose(struct run_node *n)
{
    const struct run_value *x = n->in[0], *weights = n->in[1];
    int64_t group = onnx_attr_int(n->onnx, "group", 1);
    struct run_shape shape;
    struct window w;

    if (!conv_window(n, &w) || !transpose_sizes(n, &w))
        return false;
    if (group < 1 || x->shape.dims[1] != weights->shape.dims[0] || x->shape.dims[1] % group)
        return run_fail(n, "X's %" PRId64 " channels, W's %" PRId64 "x%" PRId64 " and group %" PRId64 " disagree",
                x->shape.dims[1], weights->shape.dims[0], weights->shape.dims[1], group);
    window_out_shape(&w, x->shape.dims[0], weights->shape.dims[1] * group, &shape);
    run_set_out(n, 0, x->type, &shape);
    return true;
}

static bool emit_convolution(struct run_node *n, DML_CONVOLUTION_DIRECTION direction)
{
    struct run_value *inputs[3] = {n->in[0], n->in[1], run_in(n, 2)};
    DML_CONVOLUTION_OPERATOR_DESC desc;
    struct dml_window d;
    struct window w;
    bool widened;

    if (!require_float(n, inputs[0]) || !conv_window(n, &w))
        return false;
    if (direction == DML_CONVOLUTION_DIRECTION_FORWARD ? !forward_sizes(n, &w, false) : !transpose_sizes(n, &w))
        return false;
    to_dml_window(&w, direction == DML_CONVOLUTION_DIRECTION_BACKWARD, &d, &widened);
    memset(&desc, 0, sizeof(desc));
    if (!(desc.InputTensor = nchw_desc(n, inputs[0])) || !(desc.FilterTensor = nchw_desc(n, inputs[1]))
            || !(desc.OutputTensor = nchw_desc(n, n->out[0])))
        return false;
    if (inputs[2] && !(desc.BiasTensor = channel_desc(n, inputs[2], d.count + 2)))
        return false;
    desc.Mode = DML_CONVOLUTION_MODE_CROSS_CORRELATION;
    desc.Direction = direction;
    desc.DimensionCount = d.count;
    desc.Strides = d.strides;
    desc.Dilations = d.dilations;
    desc.StartPadding = d.start;
    desc.EndPadding = d.end;
    desc.OutputPadding = d.output_padding;
    desc.GroupCount = (UINT)onnx_attr_int(n->onnx, "group", 1);
    return run_emit(n, DML_OPERATOR_CONVOLUTION, &desc, inputs, 3, &n->out[0], 1);
}

static bool emit_conv(struct run_node *n)
{
    return emit_convolution(n, DML_CONVOLUTION_DIRECTION_FORWARD);
}

static bool emit_conv_transpose(struct run_node *n)
{
    return emit_convolution(n, DML_CONVOLUTION_DIRECTION_BACKWARD);
}

/* ---- Gemm ---- */

static bool infer_gemm(struct run_node *n)
{
    const struct run_value *a = n->in[0], *b = n->in[1];
    bool trans_a = onnx_attr_int(n->onnx, "transA", 0), trans_b = onnx_attr_int(n->onnx, "transB", 0);
    struct run_shape shape = {2, {0}};
    int64_t k_a, k_b;

    if (a->shape.rank != 2 || b->shape.rank != 2)
        return run_fail(n, "A and B must be matrices (ranks %u and %u)", a->shape.rank, b->shape.rank);
    shape.dims[0] = a->shape.dims[trans_a ? 1 : 0];
    shape.dims[1] = b->shape.dims[trans_b ? 0 : 1];
    k_a = a->shape.dims[trans_a ? 0 : 1];
    k_b = b->shape.dims[trans_b ? 1 : 0];
    if (k_a != k_b)
        return run_fail(n, "A's K (%" PRId64 ") is not B's (%" PRId64 ")", k_a, k_b);
    run_set_out(n, 0, a->type, &shape);
    return true;
}

static DML_TENSOR_DESC *matrix_desc(struct run_node *n, const struct run_value *v)
{
    return run_desc(n, v, 4);
}

static bool emit_gemm(struct run_node *n)
{
    struct run_value *inputs[3] = {n->in[0], n->in[1], run_in(n, 2)};
    const struct run_value *out = n->out[0];
    int64_t sizes[4] = {1, 1, out->shape.dims[0], out->shape.dims[1]};
    DML_GEMM_OPERATOR_DESC desc;
    struct run_shape c_shape;

    if (!require_float(n, inputs[0]))
        return false;
    memset(&desc, 0, sizeof(desc));
    if (inputs[2] && (inputs[2]->shape.rank > 2 || !run_broadcast(n, &inputs[2]->shape, &out->shape, &c_shape)
            || !run_shape_equal(&c_shape, &out->shape)))
        return run_fail(n, "C does not broadcast to the output");
    if (!(desc.ATensor = matrix_desc(n, inputs[0])) || !(desc.BTensor = matrix_desc(n, inputs[1]))
            || !(desc.OutputTensor = matrix_desc(n, n->out[0])))
        return false;
    if (inputs[2] && !(desc.CTensor = run_desc_broadcast(n, inputs[2], 4, sizes)))
        return false;
    desc.TransA = onnx_attr_int(n->onnx, "transA", 0) ? DML_MATRIX_TRANSFORM_TRANSPOSE : DML_MATRIX_TRANSFORM_NONE;
    desc.TransB = onnx_attr_int(n->onnx, "transB", 0) ? DML_MATRIX_TRANSFORM_TRANSPOSE : DML_MATRIX_TRANSFORM_NONE;
    desc.Alpha = onnx_attr_float(n->onnx, "alpha", 1.0f);
    desc.Beta = inputs[2] ? onnx_attr_float(n->onnx, "beta", 1.0f) : 0.0f;
    return run_emit(n, DML_OPERATOR_GEMM, &desc, inputs, 3, &n->out[0], 1);
}

/* ---- MatMul ---- */

/* MatMul's operands as batches of matrices: 1-D A is [1, K], 1-D B [K, 1] (numpy's rule). */
struct matmul
{
    int64_t m, k, n;
    struct run_shape batch;             /* broadcast batch dimensions */
};

static bool matmul_shapes(struct run_node *n, struct matmul *mm, struct run_shape *out)
{
    const struct run_shape *a = &n->in[0]->shape, *b = &n->in[1]->shape;
    struct run_shape a_batch = {0}, b_batch = {0};
    int64_t k_b;

    if (!a->rank || !b->rank)
        return run_fail(n, "MatMul takes no scalars");
    mm->m = a->rank > 1 ? a->dims[a->rank - 2] : 1;
    mm->k = a->dims[a->rank - 1];
    k_b = b->rank > 1 ? b->dims[b->rank - 2] : b->dims[0];
    mm->n = b->rank > 1 ? b->dims[b->rank - 1] : 1;
    if (mm->k != k_b)
        return run_fail(n, "A's K (%" PRId64 ") is not B's (%" PRId64 ")", mm->k, k_b);
    a_batch.rank = a->rank > 2 ? a->rank - 2 : 0;
    memcpy(a_batch.dims, a->dims, a_batch.rank * sizeof(*a->dims));
    b_batch.rank = b->rank > 2 ? b->rank - 2 : 0;
    memcpy(b_batch.dims, b->dims, b_batch.rank * sizeof(*b->dims));
    if (!run_broadcast(n, &a_batch, &b_batch, &mm->batch))
        return false;
    *out = mm->batch;
    if (a->rank > 1)
        out->dims[out->rank++] = mm->m;
    if (b->rank > 1)
        out->dims[out->rank++] = mm->n;
    return true;
}

static bool infer_matmul(struct run_node *n)
{
    struct run_shape shape;
    struct matmul mm;

    if (!matmul_shapes(n, &mm, &shape))
        return false;
    run_set_out(n, 0, n->in[0]->type, &shape);
    return true;
}

/* Strides (elements) of a packed operand's batch dimensions read at the broadcast batch shape. */
static void batch_strides(const struct run_shape *own, unsigned int own_batch, const struct run_shape *batch,
        int64_t matrix, int64_t *strides)
{
    int64_t stride = matrix;
    unsigned int i;

    for (i = batch->rank; i-- > 0;)
    {
        unsigned int back = batch->rank - i;
        int64_t size = back <= own_batch ? own->dims[own_batch - back] : 1;

        strides[i] = size == 1 && batch->dims[i] != 1 ? 0 : stride;
        stride *= size;
    }
}

/* Merges batch dimensions where every operand's strides allow, into at most two; false otherwise. */
static bool merge_batch(int64_t *sizes, int64_t (*strides)[RUN_MAX_RANK], unsigned int operands, unsigned int *rank)
{
    unsigned int i, j, k;

    for (i = *rank; i-- > 1 && *rank > 2;)
    {
        bool mergeable = true;

        for (k = 0; k < operands; ++k)
            mergeable &= strides[k][i - 1] == strides[k][i] * sizes[i];
        if (!mergeable)
            continue;
        sizes[i - 1] *= sizes[i];
        for (k = 0; k < operands; ++k)
            strides[k][i - 1] = strides[k][i];
        for (j = i; j + 1 < *rank; ++j)
        {
            sizes[j] = sizes[j + 1];
            for (k = 0; k < operands; ++k)
                strides[k][j] = strides[k][j + 1];
        }
        --*rank;
    }
    return *rank <= 2;
}

static DML_TENSOR_DESC *gemm_operand(struct run_node *n, const struct run_value *v, const int64_t *batch_sizes,
        const int64_t *batch_strides, unsigned int batch_rank, int64_t rows, int64_t columns)
{
    UINT sizes[4] = {1, 1, (UINT)rows, (UINT)columns}, strides[4] = {0, 0, (UINT)columns, 1};
    unsigned int i;

    for (i = 0; i < batch_rank; ++i)
    {
        sizes[2 - batch_rank + i] = (UINT)batch_sizes[i];
        strides[2 - batch_rank + i] = (UINT)batch_strides[i];
    }
    return run_desc_view(n, v, 4, sizes, strides, DML_TENSOR_DATA_TYPE_UNKNOWN);
}

/* `v` read at the whole batch shape (its batch `strides`, 0 where it broadcasts), copied packed. */
static struct run_value *broadcast_copy(struct run_node *n, struct run_value *v, const struct run_shape *batch,
        const int64_t *strides, int64_t rows, int64_t columns)
{
    UINT sizes[RUN_MAX_RANK], view_strides[RUN_MAX_RANK];
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc;
    unsigned int rank = batch->rank + 2, i;
    struct run_shape shape = *batch;
    struct run_value *copy;

    if (rank > RUN_MAX_RANK)
    {
        run_unsupported(n, "%u dimensions", rank);
        return NULL;
    }
    for (i = 0; i < batch->rank; ++i)
    {
        sizes[i] = (UINT)batch->dims[i];
        view_strides[i] = (UINT)strides[i];
    }
    sizes[rank - 2] = (UINT)rows;
    view_strides[rank - 2] = (UINT)columns;
    sizes[rank - 1] = (UINT)columns;
    view_strides[rank - 1] = 1;
    shape.dims[shape.rank++] = rows;
    shape.dims[shape.rank++] = columns;
    memset(&desc, 0, sizeof(desc));
    if (!(copy = run_temp(n, v->type, &shape))
            || !(desc.InputTensor = run_desc_view(n, v, rank, sizes, view_strides, DML_TENSOR_DATA_TYPE_UNKNOWN))
            || !(desc.OutputTensor = run_desc(n, copy, rank))
            || !run_emit(n, DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc, &v, 1, &copy, 1))
        return NULL;
    return copy;
}

/* A bias Add that alone reads MatMul's output, its other operand a row of the N columns ([N] or
 * [1, ..., 1, N]) already lowered: GEMM adds it as C, read with strides 0 but the columns' — one
 * dispatch and one intermediate fewer (docs/onnx.md, "Lowering"). */
static const struct onnx_node *sole_bias_add(struct run_node *n, int64_t columns, struct run_value **bias)
{
    const struct onnx_node *add = run_sole_consumer(n, n->out[0]);
    const char *name = n->out[0]->name;
    unsigned int i;

    *bias = NULL;
    if (!add || strcmp(add->op_type, "Add") || (add->domain[0] && strcmp(add->domain, "ai.onnx")) || n->opset < 7
            || add->input_count != 2 || n->in[1]->shape.rank < 2 || !strcmp(add->inputs[0], add->inputs[1]))
        return NULL;
    *bias = run_find(n, strcmp(add->inputs[0], name) ? add->inputs[0] : add->inputs[1]);
    if (!*bias || (*bias)->type != n->out[0]->type || !(*bias)->shape.rank
            || (*bias)->shape.rank > n->out[0]->shape.rank || (*bias)->shape.dims[(*bias)->shape.rank - 1] != columns)
        add = NULL;
    for (i = 0; add && i + 1 < (*bias)->shape.rank; ++i)
        if ((*bias)->shape.dims[i] != 1)
            add = NULL;
    if (!add)
        *bias = NULL;
    return add;
}

/* A Mul by a constant scalar that alone reads the product (attention's 1/sqrt(d) on Q): GEMM's Alpha
 * and Beta take it. */
static const struct onnx_node *sole_scale(struct run_node *n, const struct run_value *product, double *factor)
{
    const struct onnx_node *mul = run_sole_consumer(n, product);
    const char *other;

    if (!mul || strcmp(mul->op_type, "Mul") || (mul->domain[0] && strcmp(mul->domain, "ai.onnx")) || n->opset < 7
            || mul->input_count != 2 || !strcmp(mul->inputs[0], mul->inputs[1]))
        return NULL;
    other = strcmp(mul->inputs[0], product->name) ? mul->inputs[0] : mul->inputs[1];
    /* A scalar of more dimensions than the product would add them to the Mul's output. */
    if (!run_constant_scalar(n, other, factor) || run_find(n, other)->shape.rank > product->shape.rank)
        return NULL;
    return mul;
}

static DML_TENSOR_DESC *bias_operand(struct run_node *n, const struct run_value *bias, const int64_t *batch_sizes,
        unsigned int batch_rank, int64_t rows, int64_t columns)
{
    UINT sizes[4] = {1, 1, (UINT)rows, (UINT)columns}, strides[4] = {0, 0, 0, 1};
    unsigned int i;

    for (i = 0; i < batch_rank; ++i)
        sizes[2 - batch_rank + i] = (UINT)batch_sizes[i];
    return run_desc_view(n, bias, 4, sizes, strides, DML_TENSOR_DATA_TYPE_UNKNOWN);
}

static bool emit_matmul(struct run_node *n)
{
    struct run_value *inputs[3] = {n->in[0], n->in[1], NULL}, *output = n->out[0];
    const struct onnx_node *add, *scale;
    double factor;
    int64_t sizes[RUN_MAX_RANK], strides[3][RUN_MAX_RANK], unmerged[3][RUN_MAX_RANK];
    unsigned int a_batch, b_batch, rank;
    DML_GEMM_OPERATOR_DESC desc;
    struct run_shape out_shape;
    struct matmul mm;

    if (!require_float(n, inputs[0]) || !matmul_shapes(n, &mm, &out_shape))
        return false;
    a_batch = inputs[0]->shape.rank > 2 ? inputs[0]->shape.rank - 2 : 0;
    b_batch = inputs[1]->shape.rank > 2 ? inputs[1]->shape.rank - 2 : 0;
    rank = mm.batch.rank;
    memcpy(sizes, mm.batch.dims, rank * sizeof(*sizes));
    /* A batch of A's rows times one B (a linear layer over [batch, sequence, features]) is one
     * taller matrix product: a single GEMM instead of a batch of small ones (not for a view, whose
     * rows seldom continue from one matrix to the next). */
    if (!b_batch && !inputs[0]->view_of
            && run_shape_elements(&inputs[0]->shape) == run_shape_elements(&mm.batch) * mm.m * mm.k)
    {
        mm.m *= run_shape_elements(&mm.batch);
        rank = 0;
    }
    batch_strides(&inputs[0]->shape, a_batch, &mm.batch, mm.m * mm.k, strides[0]);
    batch_strides(&inputs[1]->shape, b_batch, &mm.batch, mm.k * mm.n, strides[1]);
    batch_strides(&mm.batch, rank, &mm.batch, mm.m * mm.n, strides[2]);
    memcpy(unmerged, strides, sizeof(unmerged));
    if (!merge_batch(sizes, strides, 3, &rank))
    {
        /* Broadcasts GEMM's two batch dimensions cannot express: both operands copied out whole. */
        if (!(inputs[0] = broadcast_copy(n, inputs[0], &mm.batch, unmerged[0], mm.m, mm.k))
                || !(inputs[1] = broadcast_copy(n, inputs[1], &mm.batch, unmerged[1], mm.k, mm.n)))
            return false;
        rank = 1;
        sizes[0] = run_shape_elements(&mm.batch);
        strides[0][0] = mm.m * mm.k;
        strides[1][0] = mm.k * mm.n;
        strides[2][0] = mm.m * mm.n;
    }
    memset(&desc, 0, sizeof(desc));
    desc.Alpha = 1.0f;
    if ((add = sole_bias_add(n, mm.n, &inputs[2])))
    {
        if (!(output = run_absorb(n, add, n->out[0]))
                || !(desc.CTensor = bias_operand(n, inputs[2], sizes, rank, mm.m, mm.n)))
            return false;
        desc.Beta = 1.0f;
    }
    if ((scale = sole_scale(n, output, &factor)))
    {
        if (!(output = run_absorb(n, scale, output)))
            return false;
        desc.Alpha *= factor;
        desc.Beta *= factor;
    }
    if (!(desc.ATensor = gemm_operand(n, inputs[0], sizes, strides[0], rank, mm.m, mm.k))
            || !(desc.BTensor = gemm_operand(n, inputs[1], sizes, strides[1], rank, mm.k, mm.n))
            || !(desc.OutputTensor = gemm_operand(n, output, sizes, strides[2], rank, mm.m, mm.n)))
        return false;
    desc.TransA = desc.TransB = DML_MATRIX_TRANSFORM_NONE;
    return run_emit(n, DML_OPERATOR_GEMM, &desc, inputs, 3, &output, 1);
}

/* ---- BatchNormalization ---- */

static bool infer_batch_norm(struct run_node *n)
{
    unsigned int i;

    if (onnx_attr_int(n->onnx, "training_mode", 0))
        return run_unsupported(n, "training_mode 1 (batch statistics) is not mapped: the inference form only");
    for (i = 1; i < n->out_count; ++i)
        if (n->out[i])
            return run_unsupported(n, "the training outputs (running and saved statistics) are not mapped");
    if (n->in[0]->shape.rank < 2)
        return run_fail(n, "X has %u dimensions (N, C, ... expected)", n->in[0]->shape.rank);
    run_set_out(n, 0, n->in[0]->type, &n->in[0]->shape);
    return true;
}

static bool emit_batch_norm(struct run_node *n)
{
    struct run_value *x = n->in[0];
    /* DirectML's binding order: input, mean, variance, scale, bias; ONNX's: X, scale, B, mean, var. */
    struct run_value *inputs[5] = {x, n->in[3], n->in[4], n->in[1], n->in[2]};
    DML_BATCH_NORMALIZATION_OPERATOR_DESC desc;
    unsigned int rank = x->shape.rank;

    if (!require_float(n, x))
        return false;
    memset(&desc, 0, sizeof(desc));
    if (!(desc.InputTensor = run_desc(n, x, rank)) || !(desc.MeanTensor = channel_desc(n, inputs[1], rank))
            || !(desc.VarianceTensor = channel_desc(n, inputs[2], rank))
            || !(desc.ScaleTensor = channel_desc(n, inputs[3], rank))
            || !(desc.BiasTensor = channel_desc(n, inputs[4], rank))
            || !(desc.OutputTensor = run_desc(n, n->out[0], rank)))
        return false;
    desc.Spatial = TRUE;
    desc.Epsilon = onnx_attr_float(n->onnx, "epsilon", 1e-5f);
    return run_emit(n, DML_OPERATOR_BATCH_NORMALIZATION, &desc, inputs, 5, &n->out[0], 1);
}

/* ---- Pools ---- */

enum pool_kind { POOL_MAX, POOL_AVERAGE, POOL_LP };

static bool pool_window(struct run_node *n, bool global, struct window *w)
{
    const struct run_shape *x = &n->in[0]->shape;
    unsigned int i;

    if (!global)
        return read_window(n, x, NULL, w) && forward_sizes(n, w, onnx_attr_int(n->onnx, "ceil_mode", 0) != 0);
    memset(w, 0, sizeof(*w));
    if (x->rank < 3 || x->rank > 5)
        return run_unsupported(n, "input of %u dimensions (DirectML takes 1 to 3 spatial ones)", x->rank);
    w->count = x->rank - 2;
    for (i = 0; i < w->count; ++i)
    {
        w->in[i] = w->kernel[i] = x->dims[i + 2];
        w->strides[i] = w->dilations[i] = w->out[i] = 1;
    }
    return true;
}

static bool infer_pool_common(struct run_node *n, bool global)
{
    const struct run_value *x = n->in[0];
    struct run_shape shape;
    struct window w;

    if (!pool_window(n, global, &w))
        return false;
    window_out_shape(&w, x->shape.dims[0], x->shape.dims[1], &shape);
    run_set_out(n, 0, x->type, &shape);
    run_set_out(n, 1, ONNX_INT64, &shape);
    return true;
}

static bool infer_pool(struct run_node *n)
{
    return infer_pool_common(n, false);
}

static bool infer_global_pool(struct run_node *n)
{
    return infer_pool_common(n, true);
}

/* A 4-D NCHW `v` read as NCWH: row-major indices over this view are ONNX's column-major ones. */
static DML_TENSOR_DESC *nchw_transposed_desc(struct run_node *n, const struct run_value *v, DML_TENSOR_DATA_TYPE type)
{
    const int64_t *dims = v->shape.dims;
    UINT sizes[4] = {(UINT)dims[0], (UINT)dims[1], (UINT)dims[3], (UINT)dims[2]};
    UINT strides[4] = {(UINT)(dims[1] * dims[2] * dims[3]), (UINT)(dims[2] * dims[3]), 1, (UINT)dims[3]};

    return run_desc_view(n, v, 4, sizes, strides, type);
}

static void swap_uints(UINT *values)
{
    UINT first = values[0];

    values[0] = values[1];
    values[1] = first;
}

/* storage_order 1 (column-major Indices) pools the input seen as NCWH: the window's axes swap too. */
static bool max_pool_column_major(struct run_node *n, struct dml_window *d, struct run_value **outputs,
        DML_MAX_POOLING2_OPERATOR_DESC *desc)
{
    if (n->in[0]->shape.rank != 4)
        return run_unsupported(n, "storage_order 1 is mapped for 1-D and 2-D pools only");
    swap_uints(d->kernel);
    swap_uints(d->strides);
    swap_uints(d->dilations);
    swap_uints(d->start);
    swap_uints(d->end);
    return (desc->InputTensor = nchw_transposed_desc(n, n->in[0], DML_TENSOR_DATA_TYPE_UNKNOWN))
            && (desc->OutputTensor = nchw_transposed_desc(n, outputs[0], DML_TENSOR_DATA_TYPE_UNKNOWN))
            && (desc->OutputIndicesTensor = nchw_transposed_desc(n, outputs[1], DML_TENSOR_DATA_TYPE_UINT64));
}

static bool emit_max_pool(struct run_node *n, struct dml_window *d, struct run_value **outputs)
{
    DML_MAX_POOLING2_OPERATOR_DESC desc;

    memset(&desc, 0, sizeof(desc));
    /* With one spatial dimension both storage orders count the same. */
    if (outputs[1] && onnx_attr_int(n->onnx, "storage_order", 0) && n->in[0]->shape.rank != 3)
    {
        if (!max_pool_column_major(n, d, outputs, &desc))
            return false;
    }
    else if (!(desc.InputTensor = nchw_desc(n, n->in[0])) || !(desc.OutputTensor = nchw_desc(n, outputs[0])))
    {
        return false;
    }
    /* ONNX's INT64 indices are never negative: DirectML's UINT64 holds them. */
    else if (outputs[1] && !(desc.OutputIndicesTensor = nchw_desc_typed(n, outputs[1], DML_TENSOR_DATA_TYPE_UINT64)))
    {
        return false;
    }
    desc.DimensionCount = d->count;
    desc.Strides = d->strides;
    desc.WindowSize = d->kernel;
    desc.StartPadding = d->start;
    desc.EndPadding = d->end;
    desc.Dilations = d->dilations;
    return run_emit(n, DML_OPERATOR_MAX_POOLING2, &desc, n->in, 1, outputs, 2);
}

/* count_include_pad with a window widened past the pads (ceil_mode): the given pads count, the widening
 * does not (the window is clipped to the padded input). The pads are made real zeros with PADDING,
 * then pooled without counting padding, the widening left as DirectML's only EndPadding. */
static struct run_value *pad_pool_input(struct run_node *n, const struct window *w, struct dml_window *d)
{
    struct run_value *x = n->in[0], *padded;
    UINT start[5] = {0}, end[5] = {0};
    struct run_shape shape = x->shape;
    DML_PADDING_OPERATOR_DESC desc;
    unsigned int i, j = d->count - w->count;

    for (i = 0; i < w->count; ++i, ++j)
    {
        start[i + 2] = (UINT)w->start[i];
        end[i + 2] = (UINT)w->end[i];
        shape.dims[i + 2] += w->start[i] + w->end[i];
        d->start[j] = 0;
        d->end[j] -= (UINT)w->end[i];
    }
    desc.PaddingMode = DML_PADDING_MODE_CONSTANT;
    desc.PaddingValue = 0.0f;
    desc.DimensionCount = shape.rank;
    desc.StartPadding = start;
    desc.EndPadding = end;
    if (!(padded = run_temp(n, x->type, &shape)) || !(desc.InputTensor = run_desc(n, x, shape.rank))
            || !(desc.OutputTensor = run_desc(n, padded, shape.rank))
            || !run_emit(n, DML_OPERATOR_PADDING, &desc, &x, 1, &padded, 1))
        return NULL;
    return padded;
}

static bool emit_average_pool(struct run_node *n, const struct window *w, struct dml_window *d, bool widened)
{
    bool include_padding = onnx_attr_int(n->onnx, "count_include_pad", 0) != 0;
    DML_AVERAGE_POOLING1_OPERATOR_DESC desc;
    struct run_value *x = n->in[0];

    if (include_padding && widened)
    {
        if (!(x = pad_pool_input(n, w, d)))
            return false;
        include_padding = false;
    }
    memset(&desc, 0, sizeof(desc));
    if (!(desc.InputTensor = nchw_desc(n, x)) || !(desc.OutputTensor = nchw_desc(n, n->out[0])))
        return false;
    desc.DimensionCount = d->count;
    desc.Strides = d->strides;
    desc.WindowSize = d->kernel;
    desc.StartPadding = d->start;
    desc.EndPadding = d->end;
    desc.Dilations = d->dilations;
    desc.IncludePadding = include_padding;
    return run_emit(n, DML_OPERATOR_AVERAGE_POOLING1, &desc, &x, 1, &n->out[0], 1);
}

static bool emit_lp_pool(struct run_node *n, const struct dml_window *d)
{
    DML_LP_POOLING1_OPERATOR_DESC desc;
    int64_t p = onnx_attr_int(n->onnx, "p", 2);

    if (p < 1)
        return run_fail(n, "p is %" PRId64 " (at least 1)", p);
    memset(&desc, 0, sizeof(desc));
    if (!(desc.InputTensor = nchw_desc(n, n->in[0])) || !(desc.OutputTensor = nchw_desc(n, n->out[0])))
        return false;
    desc.DimensionCount = d->count;
    desc.Strides = d->strides;
    desc.WindowSize = d->kernel;
    desc.StartPadding = d->start;
    desc.EndPadding = d->end;
    desc.Dilations = d->dilations;
    desc.P = (UINT)p;
    return run_emit(n, DML_OPERATOR_LP_POOLING1, &desc, n->in, 1, &n->out[0], 1);
}

static bool emit_pool(struct run_node *n, enum pool_kind kind, bool global)
{
    struct run_value *outputs[2] = {n->out[0], n->out_count > 1 ? n->out[1] : NULL};
    struct dml_window d;
    struct window w;
    bool widened;

    if (kind != POOL_MAX && !require_float(n, n->in[0]))
        return false;
    if (!pool_window(n, global, &w))
        return false;
    to_dml_window(&w, false, &d, &widened);
    if (kind == POOL_MAX)
        return emit_max_pool(n, &d, outputs);
    if (kind == POOL_AVERAGE)
        return emit_average_pool(n, &w, &d, widened);
    return emit_lp_pool(n, &d);
}

static bool emit_max_pool_node(struct run_node *n)
{
    return emit_pool(n, POOL_MAX, false);
}

static bool emit_average_pool_node(struct run_node *n)
{
    return emit_pool(n, POOL_AVERAGE, false);
}

static bool emit_lp_pool_node(struct run_node *n)
{
    return emit_pool(n, POOL_LP, false);
}

static bool emit_global_max_pool(struct run_node *n)
{
    return emit_pool(n, POOL_MAX, true);
}

static bool emit_global_average_pool(struct run_node *n)
{
    return emit_pool(n, POOL_AVERAGE, true);
}

static bool emit_global_lp_pool(struct run_node *n)
{
    return emit_pool(n, POOL_LP, true);
}

/* ---- Normalizations over axes: InstanceNormalization, LayerNormalization, MeanVarianceNormalization ---- */

static bool emit_mvn(struct run_node *n, struct run_value *x, const DML_TENSOR_DESC *scale,
        struct run_value *scale_value, const DML_TENSOR_DESC *bias, struct run_value *bias_value, const UINT *axes,
        unsigned int axis_count, float epsilon)
{
    struct run_value *inputs[3] = {x, scale_value, bias_value};
    DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC desc;

    memset(&desc, 0, sizeof(desc));
    if (!(desc.InputTensor = run_desc(n, x, x->shape.rank))
            || !(desc.OutputTensor = run_desc(n, n->out[0], x->shape.rank)))
        return false;
    desc.ScaleTensor = scale;
    desc.BiasTensor = bias;
    desc.AxisCount = axis_count;
    desc.Axes = axes;
    desc.NormalizeVariance = TRUE;
    desc.Epsilon = epsilon;
    return run_emit(n, DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1, &desc, inputs, 3, &n->out[0], 1);
}

static bool infer_same(struct run_node *n)
{
    run_set_out(n, 0, n->in[0]->type, &n->in[0]->shape);
    return true;
}

static bool emit_instance_norm(struct run_node *n)
{
    struct run_value *x = n->in[0];
    unsigned int rank = x->shape.rank, i;
    DML_TENSOR_DESC *scale, *bias;
    UINT axes[RUN_MAX_RANK];

    if (!require_float(n, x))
        return false;
    if (rank < 3)
        return run_fail(n, "input of %u dimensions (N, C and spatial ones expected)", rank);
    for (i = 2; i < rank; ++i)
        axes[i - 2] = i;
    return (scale = channel_desc(n, n->in[1], rank)) && (bias = channel_desc(n, n->in[2], rank))
            && emit_mvn(n, x, scale, n->in[1], bias, n->in[2], axes, rank - 2,
                    onnx_attr_float(n->onnx, "epsilon", 1e-5f));
}

static bool emit_mean_variance_norm(struct run_node *n)
{
    struct run_value *x = n->in[0];
    int64_t given[RUN_MAX_RANK] = {0, 2, 3};
    int count = onnx_attr_ints(n->onnx, "axes", given, RUN_MAX_RANK);
    UINT axes[RUN_MAX_RANK];
    unsigned int axis;
    int i;

    if (!require_float(n, x))
        return false;
    if (count > RUN_MAX_RANK)
        return run_fail(n, "%d axes", count);
    count = count < 0 ? 3 : count;
    for (i = 0; i < count; ++i)
    {
        if (!run_axis(n, given[i], x->shape.rank, &axis))
            return false;
        axes[i] = axis;
    }
    /* ONNX's function body divides by sqrt(variance + 1e-9). */
    return emit_mvn(n, x, NULL, NULL, NULL, NULL, axes, (unsigned int)count, 1e-9f);
}

/* GroupNormalization: X seen as {N, G, C / G, spatial} normalized over its last two dimensions; scale and
 * bias are per group ([G], opset 18) or per channel ([C], opset 21), both a broadcast view of that shape. */
static DML_TENSOR_DESC *group_desc(struct run_node *n, const struct run_value *v, UINT groups)
{
    const int64_t *dims = v->shape.dims;
    UINT sizes[4] = {(UINT)dims[0], groups, (UINT)(dims[1] / groups), 1};
    unsigned int i;

    for (i = 2; i < v->shape.rank; ++i)
        sizes[3] *= (UINT)dims[i];
    return run_desc_view(n, v, 4, sizes, NULL, DML_TENSOR_DATA_TYPE_UNKNOWN);
}

static DML_TENSOR_DESC *group_parameter_desc(struct run_node *n, const struct run_value *v, UINT groups,
        int64_t channels)
{
    UINT sizes[4] = {1, groups, 1, 1};

    if (v->shape.rank != 1 || (v->shape.dims[0] != groups && v->shape.dims[0] != channels))
    {
        run_fail(n, "'%s' must have num_groups or C values", v->name);
        return NULL;
    }
    if (v->shape.dims[0] == channels && channels != groups)
        sizes[2] = (UINT)(channels / groups);
    return run_desc_view(n, v, 4, sizes, NULL, DML_TENSOR_DATA_TYPE_UNKNOWN);
}

static bool emit_group_norm(struct run_node *n)
{
    struct run_value *x = n->in[0], *inputs[3] = {x, n->in[1], n->in[2]};
    int64_t groups = onnx_attr_int(n->onnx, "num_groups", 0), channels;
    DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC desc;
    static const UINT axes[2] = {2, 3};

    if (!require_float(n, x))
        return false;
    if (x->shape.rank < 2 || groups < 1 || (channels = x->shape.dims[1]) % groups)
        return run_fail(n, "num_groups %" PRId64 " does not divide X's channels", groups);
    memset(&desc, 0, sizeof(desc));
    desc.AxisCount = 2;
    desc.Axes = axes;
    desc.NormalizeVariance = TRUE;
    desc.Epsilon = onnx_attr_float(n->onnx, "epsilon", 1e-5f);
    return (desc.InputTensor = group_desc(n, x, (UINT)groups))
            && (desc.ScaleTensor = group_parameter_desc(n, inputs[1], (UINT)groups, channels))
            && (desc.BiasTensor = group_parameter_desc(n, inputs[2], (UINT)groups, channels))
            && (desc.OutputTensor = group_desc(n, n->out[0], (UINT)groups))
            && run_emit(n, DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1, &desc, inputs, 3, &n->out[0], 1);
}

/* LayerNormalization normalizes over [axis, rank); Mean and InvStdDev keep those dimensions as 1s. */
static bool layer_norm_axis(struct run_node *n, unsigned int *axis)
{
    return run_axis(n, onnx_attr_int(n->onnx, "axis", -1), n->in[0]->shape.rank, axis);
}

static bool infer_layer_norm(struct run_node *n)
{
    const struct run_value *x = n->in[0];
    int stash = (int)onnx_attr_int(n->onnx, "stash_type", ONNX_FLOAT);
    struct run_shape stats = x->shape;
    unsigned int axis, i;

    if (!layer_norm_axis(n, &axis))
        return false;
    for (i = axis; i < stats.rank; ++i)
        stats.dims[i] = 1;
    run_set_out(n, 0, x->type, &x->shape);
    run_set_out(n, 1, stash, &stats);
    run_set_out(n, 2, stash, &stats);
    return true;
}

static bool emit_reduce_average(struct run_node *n, struct run_value *in, struct run_value *out, const UINT *axes,
        unsigned int axis_count)
{
    DML_REDUCE_OPERATOR_DESC desc;
    unsigned int rank = in->shape.rank;

    desc.Function = DML_REDUCE_FUNCTION_AVERAGE;
    desc.AxisCount = axis_count;
    desc.Axes = axes;
    return (desc.InputTensor = run_desc(n, in, rank)) && (desc.OutputTensor = run_desc(n, out, rank))
            && run_emit(n, DML_OPERATOR_REDUCE, &desc, &in, 1, &out, 1);
}

/* InvStdDev = (mean((x - mean)^2) + epsilon)^-0.5, as ONNX's function body computes it. */
static bool emit_inv_std_dev(struct run_node *n, struct run_value *mean, const UINT *axes, unsigned int axis_count,
        float epsilon)
{
    struct run_value *x = n->in[0], *inputs[2] = {x, mean}, *square, *variance;
    DML_ELEMENT_WISE_DIFFERENCE_SQUARE_OPERATOR_DESC square_desc;
    DML_ELEMENT_WISE_CONSTANT_POW_OPERATOR_DESC pow_desc;
    DML_SCALE_BIAS scale_bias = {1.0f, epsilon};
    unsigned int rank = x->shape.rank;

    if (!(square = run_temp(n, mean->type, &x->shape)) || !(variance = run_temp(n, mean->type, &mean->shape)))
        return false;
    if (!(square_desc.ATensor = run_desc(n, x, rank))
            || !(square_desc.BTensor = run_desc_broadcast(n, mean, rank, x->shape.dims))
            || !(square_desc.OutputTensor = run_desc(n, square, rank))
            || !run_emit(n, DML_OPERATOR_ELEMENT_WISE_DIFFERENCE_SQUARE, &square_desc, inputs, 2, &square, 1)
            || !emit_reduce_average(n, square, variance, axes, axis_count))
        return false;
    pow_desc.ScaleBias = &scale_bias;
    pow_desc.Exponent = -0.5f;
    return (pow_desc.InputTensor = run_desc(n, variance, rank))
            && (pow_desc.OutputTensor = run_desc(n, n->out[2], rank))
            && run_emit(n, DML_OPERATOR_ELEMENT_WISE_CONSTANT_POW, &pow_desc, &variance, 1, &n->out[2], 1);
}

static bool emit_layer_norm(struct run_node *n)
{
    struct run_value *x = n->in[0], *bias = run_in(n, 2), *mean;
    struct run_value *mean_out = n->out_count > 1 ? n->out[1] : NULL, *inv_out = n->out_count > 2 ? n->out[2] : NULL;
    float epsilon = onnx_attr_float(n->onnx, "epsilon", 1e-5f);
    DML_TENSOR_DESC *scale_desc, *bias_desc = NULL;
    unsigned int rank = x->shape.rank, axis, i;
    UINT axes[RUN_MAX_RANK];

    if (!require_float(n, x) || !layer_norm_axis(n, &axis))
        return false;
    for (i = axis; i < rank; ++i)
        axes[i - axis] = i;
    if ((mean_out || inv_out) && run_dml_type(n->lower, (mean_out ? mean_out : inv_out)->type)
            != run_dml_type(n->lower, x->type))
        return run_unsupported(n, "Mean and InvStdDev of stash_type %s from %s X", onnx_type_name(
                (mean_out ? mean_out : inv_out)->type), onnx_type_name(x->type));
    if (n->in[1]->shape.rank > rank || (bias && bias->shape.rank > rank))
        return run_fail(n, "Scale or B has more dimensions than X");
    if (!(scale_desc = run_desc(n, n->in[1], rank)) || (bias && !(bias_desc = run_desc(n, bias, rank)))
            || !emit_mvn(n, x, scale_desc, n->in[1], bias_desc, bias, axes, rank - axis, epsilon))
        return false;
    if (!mean_out && !inv_out)
        return true;
    mean = mean_out;
    if (!mean && !(mean = run_temp(n, inv_out->type, &inv_out->shape)))
        return false;
    if (!emit_reduce_average(n, x, mean, axes, rank - axis))
        return false;
    return !inv_out || emit_inv_std_dev(n, mean, axes, rank - axis, epsilon);
}

/* ---- LRN, LpNormalization ---- */

/* LRN's input as DirectML's NCHW: a 1-D spatial shape gets a height of 1, more spatial dimensions
 * merge into the height (LRN sums along C only, so the layout of the rest does not matter). */
static DML_TENSOR_DESC *lrn_desc(struct run_node *n, const struct run_value *v)
{
    const int64_t *dims = v->shape.dims;
    UINT sizes[4] = {(UINT)dims[0], (UINT)dims[1], 1, 1};
    unsigned int i;

    for (i = 2; i + 1 < v->shape.rank; ++i)
        sizes[2] *= (UINT)dims[i];
    if (v->shape.rank > 2)
        sizes[3] = (UINT)dims[v->shape.rank - 1];
    return run_desc_view(n, v, 4, sizes, NULL, DML_TENSOR_DATA_TYPE_UNKNOWN);
}

static bool emit_lrn(struct run_node *n)
{
    DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC desc;
    int64_t size = onnx_attr_int(n->onnx, "size", 0);

    if (!require_float(n, n->in[0]))
        return false;
    if (size < 1)
        return run_fail(n, "size is %" PRId64 " (required, at least 1)", size);
    if (n->in[0]->shape.rank < 2)
        return run_fail(n, "input of %u dimensions (N, C, ... expected)", n->in[0]->shape.rank);
    desc.CrossChannel = TRUE;
    desc.LocalSize = (UINT)size;
    desc.Alpha = onnx_attr_float(n->onnx, "alpha", 1e-4f);
    desc.Beta = onnx_attr_float(n->onnx, "beta", 0.75f);
    desc.Bias = onnx_attr_float(n->onnx, "bias", 1.0f);
    return (desc.InputTensor = lrn_desc(n, n->in[0])) && (desc.OutputTensor = lrn_desc(n, n->out[0]))
            && run_emit(n, DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION, &desc, n->in, 1, &n->out[0], 1);
}

static bool emit_lp_norm(struct run_node *n)
{
    DML_LP_NORMALIZATION_OPERATOR_DESC desc;
    int64_t p = onnx_attr_int(n->onnx, "p", 2);
    unsigned int axis;

    if (!require_float(n, n->in[0]) || !run_axis(n, onnx_attr_int(n->onnx, "axis", -1), n->in[0]->shape.rank, &axis))
        return false;
    if (p != 1 && p != 2)
        return run_fail(n, "p is %" PRId64 " (ONNX allows 1 and 2)", p);
    desc.Axis = axis;
    /* x / max(norm, 0) is ONNX's x / norm. */
    desc.Epsilon = 0.0f;
    desc.P = (UINT)p;
    return (desc.InputTensor = run_desc(n, n->in[0], 0)) && (desc.OutputTensor = run_desc(n, n->out[0], 0))
            && run_emit(n, DML_OPERATOR_LP_NORMALIZATION, &desc, n->in, 1, &n->out[0], 1);
}

/* ---- Resize, Upsample ---- */

/* The output size and ONNX's scale of each dimension, and the crop of tf_crop_and_resize. */
struct resize
{
    unsigned int rank;
    int64_t out[RUN_MAX_RANK];
    double scales[RUN_MAX_RANK];
    double roi_start[RUN_MAX_RANK], roi_end[RUN_MAX_RANK];
};

/* Input i's floats when it is present and has values; the count, 0 when absent or empty, -1 on failure. */
static int optional_floats(struct run_node *n, unsigned int i, double *values, unsigned int max)
{
    const struct run_tensor *t;
    int64_t count, j;

    if (!run_in(n, i) || !run_shape_elements(&run_in(n, i)->shape))
        return 0;
    if (!(t = run_in_host(n, i)))
        return -1;
    if ((count = run_shape_elements(&t->shape)) > max)
    {
        run_fail(n, "input %u has %" PRId64 " values (at most %u)", i, count, max);
        return -1;
    }
    for (j = 0; j < count; ++j)
        values[j] = run_tensor_get_double(t, j);
    return (int)count;
}

/* Where the scales and sizes are: Upsample-7's attribute, Upsample-9's and Resize-10's input 1,
 * Resize-11's inputs 1 (roi), 2 (scales) and 3 (sizes). */
static bool resize_read(struct run_node *n, double *scales, int *scale_count, double *sizes, int *size_count,
        double *roi, int *roi_count)
{
    bool upsample = !strcmp(n->onnx->op_type, "Upsample");
    float attr[RUN_MAX_RANK];
    int i;

    *size_count = *roi_count = 0;
    if (upsample && n->opset < 9)
    {
        if ((*scale_count = onnx_attr_floats(n->onnx, "scales", attr, RUN_MAX_RANK)) > RUN_MAX_RANK)
            return run_fail(n, "%d scales", *scale_count);
        for (i = 0; i < *scale_count; ++i)
            scales[i] = attr[i];
        return true;
    }
    if (upsample || n->opset < 11)
        return (*scale_count = optional_floats(n, 1, scales, RUN_MAX_RANK)) >= 0;
    return (*roi_count = optional_floats(n, 1, roi, 2 * RUN_MAX_RANK)) >= 0
            && (*scale_count = optional_floats(n, 2, scales, RUN_MAX_RANK)) >= 0
            && (*size_count = optional_floats(n, 3, sizes, RUN_MAX_RANK)) >= 0;
}

/* Resize-18's axes: which dimensions the scales and sizes name (all of them without it). */
static bool resize_axes(struct run_node *n, unsigned int rank, unsigned int *axes, unsigned int *count)
{
    int64_t given[RUN_MAX_RANK];
    int got = onnx_attr_ints(n->onnx, "axes", given, RUN_MAX_RANK);
    unsigned int i;

    if (got > RUN_MAX_RANK)
        return run_fail(n, "%d axes", got);
    *count = got < 0 ? rank : (unsigned int)got;
    for (i = 0; i < *count; ++i)
        if (got < 0)
            axes[i] = i;
        else if (!run_axis(n, given[i], rank, &axes[i]))
            return false;
    return true;
}

static bool resize_plan(struct run_node *n, struct resize *r)
{
    const struct run_shape *x = &n->in[0]->shape;
    double scales[RUN_MAX_RANK], sizes[RUN_MAX_RANK], roi[2 * RUN_MAX_RANK];
    int scale_count, size_count, roi_count;
    unsigned int axes[RUN_MAX_RANK], axis_count = 0, i;
    char policy[32];

    if (!resize_read(n, scales, &scale_count, sizes, &size_count, roi, &roi_count)
            || !resize_axes(n, x->rank, axes, &axis_count))
        return false;
    if (strcmp(onnx_attr_string(n->onnx, "keep_aspect_ratio_policy", "stretch", policy, sizeof(policy)), "stretch"))
        return run_unsupported(n, "keep_aspect_ratio_policy '%s' is not mapped", policy);
    if ((size_count ? size_count : scale_count) != (int)axis_count)
        return run_fail(n, "%d %s for %u dimensions", size_count ? size_count : scale_count,
                size_count ? "sizes" : "scales", axis_count);
    if (roi_count && roi_count != 2 * (int)axis_count)
        return run_fail(n, "roi has %d values for %u dimensions", roi_count, axis_count);
    r->rank = x->rank;
    for (i = 0; i < x->rank; ++i)
    {
        r->out[i] = x->dims[i];
        r->scales[i] = 1.0;
        r->roi_start[i] = 0.0;
        r->roi_end[i] = 1.0;
    }
    for (i = 0; i < axis_count; ++i)
    {
        unsigned int a = axes[i];

        if (roi_count)
        {
            r->roi_start[a] = roi[i];
            r->roi_end[a] = roi[i + axis_count];
        }
        if (size_count)
        {
            r->out[a] = (int64_t)sizes[i];
            r->scales[a] = (double)r->out[a] / (double)x->dims[a];
            continue;
        }
        if (!(scales[i] > 0.0))
            return run_fail(n, "scale %u is %g (positive expected)", i, scales[i]);
        r->scales[a] = scales[i];
        r->out[a] = (int64_t)floor((double)x->dims[a] * scales[i]);
    }
    return true;
}

static bool infer_resize(struct run_node *n)
{
    struct run_shape shape;
    struct resize r;
    unsigned int i;

    if (!resize_plan(n, &r))
        return false;
    shape.rank = r.rank;
    for (i = 0; i < r.rank; ++i)
        shape.dims[i] = r.out[i];
    run_set_out(n, 0, n->in[0]->type, &shape);
    return true;
}

/* DirectML's mapping (README.md, "Resampling: decisions"): output x reads input
 * (x - OutputPixelOffset) / Scale - InputPixelOffset. */
struct resample
{
    FLOAT scales[RUN_MAX_RANK], input_offsets[RUN_MAX_RANK], output_offsets[RUN_MAX_RANK];
};

/* tf_crop_and_resize: x reads roi_start (in - 1) + x (roi_end - roi_start) (in - 1) / (out - 1); DirectML
 * clamps where ONNX extrapolates, so every read must stay inside the input. */
static bool crop_and_resize(struct run_node *n, const struct resize *r, unsigned int i, int64_t in,
        struct resample *d)
{
    double first, last, step;

    if (r->out[i] == 1)
    {
        first = last = 0.5 * (r->roi_start[i] + r->roi_end[i]) * (double)(in - 1);
        d->scales[i] = 1.0f;
        d->input_offsets[i] = (FLOAT)-first;
        d->output_offsets[i] = 0.0f;
    }
    else
    {
        step = (r->roi_end[i] - r->roi_start[i]) * (double)(in - 1) / (double)(r->out[i] - 1);
        first = r->roi_start[i] * (double)(in - 1);
        last = first + step * (double)(r->out[i] - 1);
        if (!(step > 0.0))
            return run_unsupported(n, "tf_crop_and_resize with an empty or inverted region");
        d->scales[i] = (FLOAT)(1.0 / step);
        d->input_offsets[i] = (FLOAT)-first;
        d->output_offsets[i] = 0.0f;
    }
    if (first < 0.0 || last > (double)(in - 1))
        return run_unsupported(n, "tf_crop_and_resize reads outside the input: DirectML clamps where ONNX "
                "writes extrapolation_value");
    return true;
}

static bool resample_offsets(struct run_node *n, const struct resize *r, const char *mode, struct resample *d)
{
    const struct run_value *x = n->in[0];
    unsigned int i;

    for (i = 0; i < r->rank; ++i)
    {
        int64_t in = x->shape.dims[i];
        /* ONNX's length_resized: in x scale, not rounded when the scales are given. */
        double length = (double)in * r->scales[i];

        d->scales[i] = (FLOAT)r->scales[i];
        d->input_offsets[i] = d->output_offsets[i] = 0.0f;
        if (!strcmp(mode, "asymmetric"))
            continue;
        if (!strcmp(mode, "half_pixel") || (!strcmp(mode, "pytorch_half_pixel") && length > 1.0))
        {
            d->input_offsets[i] = 0.5f;
            d->output_offsets[i] = -0.5f;
        }
        else if (!strcmp(mode, "pytorch_half_pixel"))
        {
            d->scales[i] = 1.0f;
        }
        else if (!strcmp(mode, "tf_half_pixel_for_nn"))
        {
            d->output_offsets[i] = -0.5f;
        }
        else if (!strcmp(mode, "align_corners"))
        {
            d->scales[i] = length > 1.0 && in > 1 ? (FLOAT)((length - 1.0) / (double)(in - 1)) : 1.0f;
        }
        else if (!strcmp(mode, "tf_crop_and_resize"))
        {
            if (!crop_and_resize(n, r, i, in, d))
                return false;
        }
        else
        {
            return run_unsupported(n, "coordinate_transformation_mode '%s' is not mapped", mode);
        }
    }
    return true;
}

/* ONNX's nearest_mode as DirectML's rounding direction (floor: DECREASING, ceil: INCREASING); the
 * round modes shift the input offsets by half a pixel: round_prefer_floor(c) = ceil(c - 0.5).
 * DirectML computes coordinates in fp32 (README.md, "Resampling: decisions"), where ONNX's exact
 * integers and halves may land a rounding error to the wrong side: a nudge of a quarter of the
 * smallest step between coordinates (1 / (2 x output size)) keeps them on the side ONNX takes. */
static bool nearest_rounding(struct run_node *n, const struct resize *r, struct resample *d,
        DML_AXIS_DIRECTION *direction)
{
    char buffer[32];
    const char *mode = onnx_attr_string(n->onnx, "nearest_mode", "round_prefer_floor", buffer, sizeof(buffer));
    double shift = 0.0, nudge;
    unsigned int i;

    /* Upsample and Resize-10 read input floor(x / scale). */
    if (!strcmp(n->onnx->op_type, "Upsample") || n->opset < 11 || !strcmp(mode, "floor"))
        *direction = DML_AXIS_DIRECTION_DECREASING;
    else if (!strcmp(mode, "ceil"))
        *direction = DML_AXIS_DIRECTION_INCREASING;
    else if (!strcmp(mode, "round_prefer_floor"))
    {
        *direction = DML_AXIS_DIRECTION_INCREASING;
        shift = 0.5;
    }
    else if (!strcmp(mode, "round_prefer_ceil"))
    {
        *direction = DML_AXIS_DIRECTION_DECREASING;
        shift = -0.5;
    }
    else
    {
        return run_fail(n, "nearest_mode '%s' is not an ONNX value", mode);
    }
    for (i = 0; i < r->rank; ++i)
    {
        /* c + nudge for DECREASING (floor), c - nudge for INCREASING (ceil); c falls as the offset grows. */
        nudge = 0.125 / (double)r->out[i];
        nudge = nudge < 1e-3 ? nudge : 1e-3;
        if (r->out[i] == n->in[0]->shape.dims[i] && r->scales[i] == 1.0)
            nudge = 0.0;
        d->input_offsets[i] = (FLOAT)(d->input_offsets[i] + shift
                + (*direction == DML_AXIS_DIRECTION_DECREASING ? -nudge : nudge));
    }
    return true;
}

/* ---- Resize through interpolation matrices ---- */

/* Cubic (which DirectML lacks) and tf_crop_and_resize's extrapolation are ONNX's separable
 * interpolation written as matrices computed on the host: Y = Ah X Aw^T + E over the last two
 * dimensions, two GEMMs, E holding extrapolation_value where a coordinate leaves the input. The
 * weights follow ONNX's reference interpolation (neighbours of an edge-padded row). */
struct resize_axis
{
    const char *transform;
    double a;                           /* cubic_coeff_a */
    bool cubic, exclude_outside;
    bool normalize;                     /* the weights divided by their sum (antialias, exclude_outside) */
    int64_t in, out;
    double scale, length, roi_start, roi_end;
    double filter_scale;                /* min(scale, 1) with antialias, else 1 */
};

/* ONNX's kernels at a distance of `d` input pixels: the triangle (linear) and Keys' cubic. */
static double interpolation_kernel(const struct resize_axis *r, double d)
{
    double a = r->a;

    d = fabs(d);
    if (!r->cubic)
        return d < 1.0 ? 1.0 - d : 0.0;
    if (d <= 1.0)
        return ((a + 2.0) * d - (a + 3.0)) * d * d + 1.0;
    if (d < 2.0)
        return ((a * d - 5.0 * a) * d + 8.0 * a) * d - 4.0 * a;
    return 0.0;
}

/* The input coordinate output x reads; false where tf_crop_and_resize extrapolates. */
static bool source_coordinate(const struct resize_axis *r, int64_t x, double *c)
{
    double in = (double)r->in;

    if (!strcmp(r->transform, "align_corners"))
        *c = r->length == 1.0 ? 0.0 : (double)x * (in - 1.0) / (r->length - 1.0);
    else if (!strcmp(r->transform, "asymmetric"))
        *c = (double)x / r->scale;
    else if (!strcmp(r->transform, "tf_half_pixel_for_nn"))
        *c = ((double)x + 0.5) / r->scale;
    else if (!strcmp(r->transform, "pytorch_half_pixel") && r->length == 1.0)
        *c = -0.5;
    else if (strcmp(r->transform, "tf_crop_and_resize"))
        *c = ((double)x + 0.5) / r->scale - 0.5;
    else
    {
        double span = r->roi_end - r->roi_start;

        *c = (r->length == 1.0 ? span * (in - 1.0) / 2.0 : (double)x * span * (in - 1.0) / (r->length - 1.0))
                + r->roi_start * (in - 1.0);
        return *c >= 0.0 && *c <= in - 1.0;
    }
    return true;
}

/* Row x of the matrix (r->in weights); false where the coordinate extrapolates (the row stays 0).
 * The taps are ONNX's: floor(c) + j for j from `start`, the kernel read at (j - ratio) x filter_scale
 * (antialias stretches it by 1 / scale when downscaling), indices clamped to the edge (ONNX pads
 * with the edge values); an integer c is floor c - 1 with a ratio of 1, as ONNX takes it. */
static bool interpolation_row(const struct resize_axis *r, int64_t x, double *row)
{
    double c, ratio, sum = 0.0, support = r->cubic ? 2.0 : 1.0;
    int64_t base, start, count, j;

    if (!source_coordinate(r, x, &c))
        return false;
    base = c == floor(c) ? (int64_t)c - 1 : (int64_t)floor(c);
    ratio = c - (double)base;
    start = (int64_t)floor(-support / r->filter_scale) + 1;
    count = 2 - 2 * start;
    for (j = start; j < start + count; ++j)
    {
        int64_t index = base + j;
        double weight = interpolation_kernel(r, ((double)j - ratio) * r->filter_scale);

        if (r->exclude_outside && (index < 0 || index >= r->in))
            weight = 0.0;
        sum += weight;
        index = index < 0 ? 0 : index >= r->in ? r->in - 1 : index;
        row[index] += weight;
    }
    if (r->normalize && sum != 0.0)
        for (j = 0; j < r->in; ++j)
            row[j] /= sum;
    return true;
}

/* A constant made here: the interpolation matrices and E, in X's type. */
static struct run_value *host_constant(struct run_node *n, int type, const struct run_shape *shape)
{
    struct run_value *v = run_temp(n, type, shape);
    struct run_tensor *t;

    if (!v)
        return NULL;
    if (!(t = run_alloc(n, sizeof(*t))) || !run_tensor_alloc(t, type, shape))
    {
        run_fail(n, "out of memory");
        return NULL;
    }
    v->host = t;
    v->host_owned = true;
    v->constant = true;
    return v;
}

/* The [out, in] matrix of one axis; `outside[x]` is set where output x extrapolates. */
static struct run_value *interpolation_matrix(struct run_node *n, const struct resize_axis *r, bool *outside)
{
    struct run_shape shape = {2, {r->out, r->in}};
    struct run_value *v;
    double *row;
    int64_t x, i;

    if (!(v = host_constant(n, n->in[0]->type, &shape)) || !(row = run_alloc(n, r->in * sizeof(*row))))
        return NULL;
    for (x = 0; x < r->out; ++x)
    {
        memset(row, 0, r->in * sizeof(*row));
        outside[x] = !interpolation_row(r, x, row);
        for (i = 0; i < r->in; ++i)
            run_tensor_set_double(v->host, x * r->in + i, row[i]);
    }
    return v;
}

static void resize_axis_init(struct run_node *n, const struct resize *plan, unsigned int dim, const char *transform,
        struct resize_axis *r)
{
    char mode[16];

    r->transform = transform;
    r->cubic = !strcmp(onnx_attr_string(n->onnx, "mode", "nearest", mode, sizeof(mode)), "cubic");
    r->a = onnx_attr_float(n->onnx, "cubic_coeff_a", -0.75f);
    r->exclude_outside = onnx_attr_int(n->onnx, "exclude_outside", 0) != 0;
    r->in = n->in[0]->shape.dims[dim];
    r->out = plan->out[dim];
    r->scale = plan->scales[dim];
    r->length = (double)r->in * r->scale;
    r->roi_start = plan->roi_start[dim];
    r->roi_end = plan->roi_end[dim];
    r->filter_scale = onnx_attr_int(n->onnx, "antialias", 0) && r->scale < 1.0 ? r->scale : 1.0;
    r->normalize = r->exclude_outside || r->filter_scale < 1.0;
}

/* out[b] = a[b] x b[b] (+ c): each operand {1, batch, rows, columns}, `a` and `c` shared by the batch
 * when their batch stride is 0. */
static bool emit_batched_gemm(struct run_node *n, struct run_value *a, UINT a_batch_stride, struct run_value *b,
        struct run_value *c, struct run_value *out, UINT batch, UINT m, UINT k, UINT columns)
{
    struct run_value *inputs[3] = {a, b, c};
    UINT a_sizes[4] = {1, batch, m, k}, a_strides[4] = {0, a_batch_stride, k, 1};
    UINT b_sizes[4] = {1, batch, k, columns}, out_sizes[4] = {1, batch, m, columns};
    UINT c_strides[4] = {0, 0, columns, 1};
    DML_GEMM_OPERATOR_DESC desc;

    memset(&desc, 0, sizeof(desc));
    desc.TransA = desc.TransB = DML_MATRIX_TRANSFORM_NONE;
    desc.Alpha = 1.0f;
    desc.Beta = c ? 1.0f : 0.0f;
    if (c && !(desc.CTensor = run_desc_view(n, c, 4, out_sizes, c_strides, DML_TENSOR_DATA_TYPE_UNKNOWN)))
        return false;
    return (desc.ATensor = run_desc_view(n, a, 4, a_sizes, a_strides, DML_TENSOR_DATA_TYPE_UNKNOWN))
            && (desc.BTensor = run_desc_view(n, b, 4, b_sizes, NULL, DML_TENSOR_DATA_TYPE_UNKNOWN))
            && (desc.OutputTensor = run_desc_view(n, out, 4, out_sizes, NULL, DML_TENSOR_DATA_TYPE_UNKNOWN))
            && run_emit(n, DML_OPERATOR_GEMM, &desc, inputs, 3, &out, 1);
}

/* E: extrapolation_value where the row or the column extrapolates; NULL when none does. */
static struct run_value *extrapolation_matrix(struct run_node *n, const bool *rows, int64_t height, const bool *columns,
        int64_t width, bool *failed)
{
    float value = onnx_attr_float(n->onnx, "extrapolation_value", 0.0f);
    struct run_shape shape = {2, {height, width}};
    struct run_value *v;
    bool any = false;
    int64_t y, x;

    *failed = false;
    for (y = 0; y < height; ++y)
        any |= rows[y];
    for (x = 0; x < width; ++x)
        any |= columns[x];
    if (!any || value == 0.0f)
        return NULL;
    if (!(v = host_constant(n, n->in[0]->type, &shape)))
    {
        *failed = true;
        return NULL;
    }
    for (y = 0; y < height; ++y)
        for (x = 0; x < width; ++x)
            run_tensor_set_double(v->host, y * width + x, rows[y] || columns[x] ? value : 0.0);
    return v;
}

static bool emit_resize_matrices(struct run_node *n, const struct resize *plan, const char *transform)
{
    struct run_value *x = n->in[0], *out = n->out[0], *ah, *aw, *e, *rows;
    unsigned int rank = x->shape.rank, h = rank - 2, i;
    struct resize_axis height, width;
    struct run_shape rows_shape;
    bool *outside, failed;
    int64_t batch = 1;

    if (!require_float(n, x))
        return false;
    if (rank < 2)
        return run_unsupported(n, "cubic Resize of a 1-D tensor");
    for (i = 0; i < h; ++i)
    {
        batch *= x->shape.dims[i];
        if (plan->out[i] != x->shape.dims[i] || plan->scales[i] != 1.0 || plan->roi_start[i] != 0.0
                || plan->roi_end[i] != 1.0)
            return run_unsupported(n, "cubic or extrapolating Resize of dimension %u (the last two are mapped)", i);
    }
    resize_axis_init(n, plan, h, transform, &height);
    resize_axis_init(n, plan, h + 1, transform, &width);
    if (!(outside = run_alloc(n, (height.out + width.out) * sizeof(*outside)))
            || !(ah = interpolation_matrix(n, &height, outside))
            || !(aw = interpolation_matrix(n, &width, outside + height.out)))
        return false;
    e = extrapolation_matrix(n, outside, height.out, outside + height.out, width.out, &failed);
    /* rows = X Aw^T, read as one [batch x H, W] matrix times Aw^T (a view of Aw, transposed by strides). */
    rows_shape = x->shape;
    rows_shape.dims[h + 1] = width.out;
    if (failed || !(rows = run_temp(n, x->type, &rows_shape)))
        return false;
    {
        struct run_value *inputs[2] = {x, aw};
        UINT x_sizes[4] = {1, 1, (UINT)(batch * height.in), (UINT)width.in};
        UINT aw_sizes[4] = {1, 1, (UINT)width.in, (UINT)width.out}, aw_strides[4] = {0, 0, 1, (UINT)width.in};
        UINT rows_sizes[4] = {1, 1, (UINT)(batch * height.in), (UINT)width.out};
        DML_GEMM_OPERATOR_DESC desc;

        memset(&desc, 0, sizeof(desc));
        desc.Alpha = 1.0f;
        if (!(desc.ATensor = run_desc_view(n, x, 4, x_sizes, NULL, DML_TENSOR_DATA_TYPE_UNKNOWN))
                || !(desc.BTensor = run_desc_view(n, aw, 4, aw_sizes, aw_strides, DML_TENSOR_DATA_TYPE_UNKNOWN))
                || !(desc.OutputTensor = run_desc_view(n, rows, 4, rows_sizes, NULL, DML_TENSOR_DATA_TYPE_UNKNOWN))
                || !run_emit(n, DML_OPERATOR_GEMM, &desc, inputs, 2, &rows, 1))
            return false;
    }
    /* Y[b] = Ah rows[b] + E. */
    return emit_batched_gemm(n, ah, 0, rows, e, out, (UINT)batch, (UINT)height.out, (UINT)height.in,
            (UINT)width.out);
}


static bool resize_downscales(const struct resize *r)
{
    unsigned int i;

    for (i = 0; i < r->rank; ++i)
        if (r->scales[i] < 1.0)
            return true;
    return false;
}

/* RESAMPLE3 takes at most 4 dimensions: neighbouring dimensions the resize leaves alone (same size,
 * scale 1, a transformation that reads input x for output x) merge into one. */
static bool resize_identity(const struct resize *r, const char *transform, const struct run_shape *x, unsigned int i)
{
    return r->out[i] == x->dims[i] && r->scales[i] == 1.0 && (!strcmp(transform, "half_pixel")
            || !strcmp(transform, "pytorch_half_pixel") || !strcmp(transform, "align_corners")
            || !strcmp(transform, "asymmetric"));
}

static unsigned int merge_resize_dims(const struct resize *r, const char *transform, const struct run_shape *x,
        struct resample *d, UINT *in_sizes, UINT *out_sizes)
{
    unsigned int i, count = 0;
    bool previous = false;

    for (i = 0; i < r->rank; ++i)
    {
        bool identity = resize_identity(r, transform, x, i);

        if (identity && previous)
        {
            in_sizes[count - 1] *= (UINT)x->dims[i];
            out_sizes[count - 1] *= (UINT)r->out[i];
            continue;
        }
        in_sizes[count] = (UINT)x->dims[i];
        out_sizes[count] = (UINT)r->out[i];
        d->scales[count] = d->scales[i];
        d->input_offsets[count] = d->input_offsets[i];
        d->output_offsets[count] = d->output_offsets[i];
        ++count;
        previous = identity;
    }
    return count;
}

static bool emit_resize(struct run_node *n)
{
    bool legacy = !strcmp(n->onnx->op_type, "Upsample") || n->opset < 11;
    struct run_value *x = n->in[0];
    DML_RESAMPLE3_OPERATOR_DESC desc;
    char mode_buffer[32], transform_buffer[32];
    const char *mode = onnx_attr_string(n->onnx, "mode", "nearest", mode_buffer, sizeof(mode_buffer));
    const char *transform = legacy ? "asymmetric" : onnx_attr_string(n->onnx, "coordinate_transformation_mode",
            "half_pixel", transform_buffer, sizeof(transform_buffer));
    UINT in_sizes[RUN_MAX_RANK], out_sizes[RUN_MAX_RANK];
    unsigned int rank;
    struct resample d;
    struct resize r;

    if (!resize_plan(n, &r))
        return false;
    if (x->type != ONNX_FLOAT && x->type != ONNX_FLOAT16 && x->type != ONNX_INT8 && x->type != ONNX_UINT8)
        return run_unsupported(n, "X is %s: DirectML resamples FLOAT, FLOAT16, INT8 and UINT8",
                onnx_type_name(x->type));
    if (!strcmp(mode, "cubic") || (!strcmp(mode, "linear") && (!strcmp(transform, "tf_crop_and_resize")
            || (onnx_attr_int(n->onnx, "antialias", 0) && resize_downscales(&r)))))
        return emit_resize_matrices(n, &r, transform);
    memset(&desc, 0, sizeof(desc));
    desc.RoundingDirection = DML_AXIS_DIRECTION_DECREASING;
    if (!strcmp(mode, "nearest"))
        desc.InterpolationMode = DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    else if (!strcmp(mode, "linear") || !strcmp(mode, "bilinear"))
        desc.InterpolationMode = DML_INTERPOLATION_MODE_LINEAR;
    else
        return run_fail(n, "mode '%s' is not an ONNX value", mode);
    if (!resample_offsets(n, &r, transform, &d))
        return false;
    if (desc.InterpolationMode == DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR
            && !nearest_rounding(n, &r, &d, &desc.RoundingDirection))
        return false;
    if ((rank = merge_resize_dims(&r, transform, &x->shape, &d, in_sizes, out_sizes)) > 4)
        return run_unsupported(n, "%u resized dimensions: vkdml's RESAMPLE3 takes at most 4", rank);
    desc.DimensionCount = rank;
    desc.Scales = d.scales;
    desc.InputPixelOffsets = d.input_offsets;
    desc.OutputPixelOffsets = d.output_offsets;
    /* Antialiased downscaling went to the matrices; ONNX's antialias does nothing to nearest. */
    desc.Antialiased = FALSE;
    return (desc.InputTensor = run_desc_view(n, x, rank, in_sizes, NULL, DML_TENSOR_DATA_TYPE_UNKNOWN))
            && (desc.OutputTensor = run_desc_view(n, n->out[0], rank, out_sizes, NULL, DML_TENSOR_DATA_TYPE_UNKNOWN))
            && run_emit(n, DML_OPERATOR_RESAMPLE3, &desc, &n->in[0], 1, &n->out[0], 1);
}

/* ---- MaxUnpool, MaxRoiPool, RoiAlign ---- */

/* MaxUnpool's default output: the input of the MaxPool that made the indices. */
static bool max_unpool_default(struct run_node *n, struct run_shape *shape)
{
    const struct run_value *x = n->in[0];
    struct window w;
    unsigned int i;

    if (!read_window(n, &x->shape, NULL, &w))
        return false;
    for (i = 0; i < w.count; ++i)
        w.out[i] = (w.in[i] - 1) * w.strides[i] + w.kernel[i] - w.start[i] - w.end[i];
    window_out_shape(&w, x->shape.dims[0], x->shape.dims[1], shape);
    return true;
}

static bool infer_max_unpool(struct run_node *n)
{
    const struct run_value *x = n->in[0];
    struct run_shape shape;

    if (run_in(n, 2))
    {
        int64_t dims[RUN_MAX_RANK];
        int count = run_in_ints(n, 2, dims, RUN_MAX_RANK);

        if (count < 0)
            return false;
        if (count != (int)x->shape.rank)
            return run_fail(n, "output_shape has %d values for %u dimensions", count, x->shape.rank);
        shape.rank = (unsigned int)count;
        memcpy(shape.dims, dims, count * sizeof(*dims));
    }
    else if (!max_unpool_default(n, &shape))
    {
        return false;
    }
    run_set_out(n, 0, x->type, &shape);
    return true;
}

/* MAX_UNPOOLING's 4-D: a 1-D spatial shape gets a height of 1, a 3-D one merges depth into height;
 * an index is a row-major position over the output, which neither changes. */
static DML_TENSOR_DESC *unpool_desc(struct run_node *n, const struct run_value *v, DML_TENSOR_DATA_TYPE type)
{
    const int64_t *dims = v->shape.dims;
    unsigned int rank = v->shape.rank;
    UINT sizes[4] = {(UINT)dims[0], (UINT)dims[1], 1, (UINT)dims[rank - 1]};

    if (rank < 3 || rank > 5)
    {
        run_unsupported(n, "'%s' has %u dimensions (1 to 3 spatial ones are mapped)", v->name, rank);
        return NULL;
    }
    if (rank >= 4)
        sizes[2] = (UINT)(rank == 5 ? dims[2] * dims[3] : dims[2]);
    return run_desc_view(n, v, 4, sizes, NULL, type);
}

static bool emit_unpooling(struct run_node *n, struct run_value *out)
{
    struct run_value *inputs[2] = {n->in[0], n->in[1]};
    DML_MAX_UNPOOLING_OPERATOR_DESC desc;

    /* ONNX's INT64 indices are never negative: DirectML's UINT64 holds them. */
    return (desc.InputTensor = unpool_desc(n, inputs[0], DML_TENSOR_DATA_TYPE_UNKNOWN))
            && (desc.IndicesTensor = unpool_desc(n, inputs[1], DML_TENSOR_DATA_TYPE_UINT64))
            && (desc.OutputTensor = unpool_desc(n, out, DML_TENSOR_DATA_TYPE_UNKNOWN))
            && run_emit(n, DML_OPERATOR_MAX_UNPOOLING, &desc, inputs, 2, &out, 1);
}

/* A larger output_shape than the default: ONNX's indices count over the default shape, which lies at
 * the start of each dimension, zeros after it. */
static bool emit_max_unpool(struct run_node *n)
{
    UINT start[RUN_MAX_RANK] = {0}, end[RUN_MAX_RANK];
    struct run_value *out = n->out[0], *unpooled;
    DML_PADDING_OPERATOR_DESC desc;
    struct run_shape shape;
    unsigned int i;

    if (!max_unpool_default(n, &shape))
        return false;
    if (run_shape_equal(&shape, &out->shape))
        return emit_unpooling(n, out);
    for (i = 0; i < shape.rank; ++i)
    {
        if (out->shape.dims[i] < shape.dims[i])
            return run_unsupported(n, "output_shape smaller than the unpooled shape");
        end[i] = (UINT)(out->shape.dims[i] - shape.dims[i]);
    }
    if (!(unpooled = run_temp(n, out->type, &shape)) || !emit_unpooling(n, unpooled))
        return false;
    desc.PaddingMode = DML_PADDING_MODE_CONSTANT;
    desc.PaddingValue = 0.0f;
    desc.DimensionCount = shape.rank;
    desc.StartPadding = start;
    desc.EndPadding = end;
    return (desc.InputTensor = run_desc(n, unpooled, shape.rank)) && (desc.OutputTensor = run_desc(n, out, shape.rank))
            && run_emit(n, DML_OPERATOR_PADDING, &desc, &unpooled, 1, &n->out[0], 1);
}

static bool infer_max_roi_pool(struct run_node *n)
{
    const struct run_value *x = n->in[0], *rois = n->in[1];
    struct run_shape shape = {4, {0}};
    int64_t pooled[2];

    if (x->shape.rank != 4 || rois->shape.rank != 2 || rois->shape.dims[1] != 5)
        return run_fail(n, "X must be NCHW and rois [num_rois, 5]");
    if (onnx_attr_ints(n->onnx, "pooled_shape", pooled, 2) != 2 || pooled[0] < 1 || pooled[1] < 1)
        return run_fail(n, "pooled_shape must be two positive sizes");
    shape.dims[0] = rois->shape.dims[0];
    shape.dims[1] = x->shape.dims[1];
    shape.dims[2] = pooled[0];
    shape.dims[3] = pooled[1];
    run_set_out(n, 0, x->type, &shape);
    return true;
}

static bool emit_max_roi_pool(struct run_node *n)
{
    struct run_value *inputs[2] = {n->in[0], n->in[1]};
    const struct run_shape *out = &n->out[0]->shape;
    DML_ROI_POOLING_OPERATOR_DESC desc;

    if (!require_float(n, inputs[0]) || !require_float(n, inputs[1]))
        return false;
    desc.SpatialScale = onnx_attr_float(n->onnx, "spatial_scale", 1.0f);
    desc.PooledSize.Height = (UINT)out->dims[2];
    desc.PooledSize.Width = (UINT)out->dims[3];
    /* DirectML's ROITensor is {1, 1, NumROIs, 5}. */
    return (desc.InputTensor = run_desc(n, inputs[0], 4)) && (desc.ROITensor = run_desc(n, inputs[1], 4))
            && (desc.OutputTensor = run_desc(n, n->out[0], 4))
            && run_emit(n, DML_OPERATOR_ROI_POOLING, &desc, inputs, 2, &n->out[0], 1);
}

static bool infer_roi_align(struct run_node *n)
{
    const struct run_value *x = n->in[0], *rois = n->in[1];
    struct run_shape shape = {4, {0}};

    if (x->shape.rank != 4 || rois->shape.rank != 2 || rois->shape.dims[1] != 4 || n->in[2]->shape.rank != 1
            || n->in[2]->shape.dims[0] != rois->shape.dims[0])
        return run_fail(n, "X must be NCHW, rois [num_rois, 4] and batch_indices [num_rois]");
    shape.dims[0] = rois->shape.dims[0];
    shape.dims[1] = x->shape.dims[1];
    shape.dims[2] = onnx_attr_int(n->onnx, "output_height", 1);
    shape.dims[3] = onnx_attr_int(n->onnx, "output_width", 1);
    if (shape.dims[2] < 1 || shape.dims[3] < 1)
        return run_fail(n, "output_height and output_width must be positive");
    run_set_out(n, 0, x->type, &shape);
    return true;
}

static bool emit_roi_align(struct run_node *n)
{
    struct run_value *inputs[3] = {n->in[0], n->in[1], n->in[2]};
    int64_t sampling_ratio = onnx_attr_int(n->onnx, "sampling_ratio", 0);
    char mode_buffer[16], transform_buffer[32];
    const char *mode = onnx_attr_string(n->onnx, "mode", "avg", mode_buffer, sizeof(mode_buffer));
    /* RoiAlign-10 behaves as output_half_pixel; RoiAlign-16's default is half_pixel. */
    const char *transform = onnx_attr_string(n->onnx, "coordinate_transformation_mode",
            n->opset < 16 ? "output_half_pixel" : "half_pixel", transform_buffer, sizeof(transform_buffer));
    DML_ROI_ALIGN1_OPERATOR_DESC desc;
    float scale = onnx_attr_float(n->onnx, "spatial_scale", 1.0f);

    if (!require_float(n, inputs[0]) || !require_float(n, inputs[1]))
        return false;
    if (strcmp(mode, "avg"))
        return run_unsupported(n, "mode '%s': DirectML's MAX takes the largest sample, ONNX the largest weighted "
                "corner", mode);
    if (sampling_ratio < 0)
        return run_fail(n, "sampling_ratio is %" PRId64, sampling_ratio);
    memset(&desc, 0, sizeof(desc));
    if (!strcmp(transform, "half_pixel"))
        desc.InputPixelOffset = 0.5f;
    else if (strcmp(transform, "output_half_pixel"))
        return run_fail(n, "coordinate_transformation_mode '%s' is not an ONNX value", transform);
    desc.OutputPixelOffset = -0.5f;
    desc.ReductionFunction = DML_REDUCE_FUNCTION_AVERAGE;
    desc.InterpolationMode = DML_INTERPOLATION_MODE_LINEAR;
    desc.SpatialScaleX = desc.SpatialScaleY = scale;
    desc.OutOfBoundsInputValue = 0.0f;
    /* sampling_ratio 0: ONNX's adaptive count, ceil(region / output size) (README.md, "ROI pooling"). */
    desc.MinimumSamplesPerOutput = sampling_ratio ? (UINT)sampling_ratio : 1;
    desc.MaximumSamplesPerOutput = sampling_ratio ? (UINT)sampling_ratio : 65536;
    /* ONNX's INT64 batch indices are never negative: DirectML's UINT64 holds them. */
    return (desc.InputTensor = run_desc(n, inputs[0], 4)) && (desc.ROITensor = run_desc(n, inputs[1], 2))
            && (desc.BatchIndicesTensor = run_desc_view(n, inputs[2], 1, (UINT[]){(UINT)inputs[2]->shape.dims[0]},
                    NULL, inputs[2]->type == ONNX_INT64 ? DML_TENSOR_DATA_TYPE_UINT64 : DML_TENSOR_DATA_TYPE_UNKNOWN))
            && (desc.OutputTensor = run_desc(n, n->out[0], 4))
            && run_emit(n, DML_OPERATOR_ROI_ALIGN1, &desc, inputs, 3, &n->out[0], 1);
}

const struct run_op run_ops_nn[] =
{
    {"AveragePool", infer_pool, NULL, emit_average_pool_node},
    {"BatchNormalization", infer_batch_norm, NULL, emit_batch_norm},
    {"Conv", infer_conv, NULL, emit_conv},
    {"ConvTranspose", infer_conv_transpose, NULL, emit_conv_transpose},
    {"Gemm", infer_gemm, NULL, emit_gemm},
    {"GlobalAveragePool", infer_global_pool, NULL, emit_global_average_pool},
    {"GlobalLpPool", infer_global_pool, NULL, emit_global_lp_pool},
    {"GlobalMaxPool", infer_global_pool, NULL, emit_global_max_pool},
    {"GroupNormalization", infer_same, NULL, emit_group_norm},
    {"InstanceNormalization", infer_same, NULL, emit_instance_norm},
    {"LRN", infer_same, NULL, emit_lrn},
    {"LayerNormalization", infer_layer_norm, NULL, emit_layer_norm},
    {"LpNormalization", infer_same, NULL, emit_lp_norm},
    {"LpPool", infer_pool, NULL, emit_lp_pool_node},
    {"MatMul", infer_matmul, NULL, emit_matmul, .reads_views = true},
    {"MaxPool", infer_pool, NULL, emit_max_pool_node},
    {"MaxRoiPool", infer_max_roi_pool, NULL, emit_max_roi_pool},
    {"MaxUnpool", infer_max_unpool, NULL, emit_max_unpool},
    {"MeanVarianceNormalization", infer_same, NULL, emit_mean_variance_norm},
    {"Resize", infer_resize, NULL, emit_resize},
    {"RoiAlign", infer_roi_align, NULL, emit_roi_align},
    {"Upsample", infer_resize, NULL, emit_resize},
    {NULL},
};
