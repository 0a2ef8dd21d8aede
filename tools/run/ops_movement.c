/*
 * vkdml-run's movement family (ops.h): operators that move, select or repeat elements without
 * computing on them. Those that shape computations feed (Transpose, Concat, Split, Slice, Tile,
 * Expand, Gather) also fold on the host when their inputs are constants; the rest are emitted
 * even then (their constant inputs become OWNED_BY_DML weights). Where nothing moves (a slice of
 * everything, an identity permutation, a single part, no pads) the output aliases the input.
 * - Transpose: ELEMENT_WISE_IDENTITY reading the input through permuted strides.
 * - Concat: JOIN (inputs without elements left out). Split: SPLIT (the split attribute, then
 *   input, num_outputs from opset 18).
 * - Slice: SLICE1 (attributes before opset 10, then inputs; negative steps read a window backwards).
 * - Pad: PADDING1 (constant, reflect, edge, wrap; pads and constant_value inputs from 11, axes from 18).
 *   Negative pads crop through a SLICE1 first.
 * - Tile: TILE. Expand: ELEMENT_WISE_IDENTITY from a broadcast view (strides of 0).
 * - Gather, GatherElements, GatherND (batch_dims): GATHER, GATHER_ELEMENTS, GATHER_ND1; negative
 *   indices count from the end on the device (README, "Gather family").
 * - Scatter, ScatterElements, ScatterND: SCATTER_ELEMENTS, SCATTER_ND. Unsupported: the
 *   add/mul/max/min reductions (DirectML's scatters only replace) and ScatterElements indices
 *   smaller than the data off the axis (SCATTER_ELEMENTS takes the data's sizes there).
 * - DepthToSpace (DCR, CRD), SpaceToDepth: DEPTH_TO_SPACE1, SPACE_TO_DEPTH1.
 * - OneHot: ONE_HOT (non-integer indices through CAST first). ReverseSequence: REVERSE_SUBSEQUENCES.
 * - Trilu: DIAGONAL_MATRIX1 writing zeros over the span of diagonals cleared, the input elsewhere.
 * - NonZero, Unique: their output shapes depend on the values, so they fold only when the input is
 *   a constant (else unsupported; DirectML has no unique operator). Compress: a GATHER of the
 *   positions its condition selects, which must be known on the host (a constant or given input).
 * docs/onnx.md, "Operators".
 */
#include "ops.h"

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- Host helpers ---- */

static void packed_strides(const struct run_shape *shape, int64_t *strides)
{
    int64_t stride = 1;
    unsigned int i;

    for (i = shape->rank; i-- > 0;)
    {
        strides[i] = stride;
        stride *= shape->dims[i];
    }
}

static void index_coords(const struct run_shape *shape, int64_t index, int64_t *coords)
{
    unsigned int i;

    for (i = shape->rank; i-- > 0;)
    {
        coords[i] = index % shape->dims[i];
        index /= shape->dims[i];
    }
}

static void copy_element(struct run_tensor *to, int64_t to_index, const struct run_tensor *from, int64_t from_index)
{
    size_t size = onnx_type_size(to->type);

    memcpy((char *)to->data + to_index * size, (const char *)from->data + from_index * size, size);
}

/* A DML_TENSOR_DESC array of `count` descs of `values`, each of `rank` dimensions. */
static DML_TENSOR_DESC *desc_array(struct run_node *n, struct run_value *const *values, unsigned int count,
        unsigned int rank)
{
    DML_TENSOR_DESC *descs = run_alloc(n, count * sizeof(*descs)), *desc;
    unsigned int i;

    if (!descs)
    {
        run_fail(n, "out of memory");
        return NULL;
    }
    for (i = 0; i < count; ++i)
    {
        if (!(desc = run_desc(n, values[i], rank)))
            return NULL;
        descs[i] = *desc;
    }
    return descs;
}

/* The output's type and a shape; the output has the type of input 0. */
static bool set_out_like_input(struct run_node *n, unsigned int i, const struct run_shape *shape)
{
    run_set_out(n, i, n->in[0]->type, shape);
    return true;
}

/* ---- Transpose ---- */

static bool transpose_perm(struct run_node *n, unsigned int *perm)
{
    unsigned int rank = n->in[0]->shape.rank, i, seen = 0;
    int64_t values[RUN_MAX_RANK];
    int count;

    if ((count = onnx_attr_ints(n->onnx, "perm", values, RUN_MAX_RANK)) < 0)
    {
        for (i = 0; i < rank; ++i)
            perm[i] = rank - 1 - i;
        return true;
    }
    if ((unsigned int)count != rank)
        return run_fail(n, "perm has %d values for %u dimensions", count, rank);
    for (i = 0; i < rank; ++i)
    {
        if (!run_axis(n, values[i], rank, &perm[i]))
            return false;
        if (seen & (1u << perm[i]))
            return run_fail(n, "perm names axis %u twice", perm[i]);
        seen |= 1u << perm[i];
    }
    return true;
}

static bool infer_transpose(struct run_node *n)
{
    struct run_shape shape;
    unsigned int perm[RUN_MAX_RANK], i;

    if (!run_need_io(n, 1, 1))
        return false;
    shape = n->in[0]->shape;

    if (!transpose_perm(n, perm))
        return false;
    for (i = 0; i < shape.rank; ++i)
        shape.dims[i] = n->in[0]->shape.dims[perm[i]];
    return set_out_like_input(n, 0, &shape);
}

static bool fold_transpose(struct run_node *n)
{
    const struct run_tensor *in = n->in[0]->host;
    struct run_tensor *out = run_out_host(n, 0);
    int64_t strides[RUN_MAX_RANK], coords[RUN_MAX_RANK], count, i, source;
    unsigned int perm[RUN_MAX_RANK], d;

    if (!out || !transpose_perm(n, perm))
        return false;
    packed_strides(&in->shape, strides);
    count = run_shape_elements(&out->shape);
    for (i = 0; i < count; ++i)
    {
        index_coords(&out->shape, i, coords);
        for (d = 0, source = 0; d < out->shape.rank; ++d)
            source += coords[d] * strides[perm[d]];
        copy_element(out, i, in, source);
    }
    return true;
}

/* Whether the permutation keeps the order of the dimensions larger than 1: the bytes do not move. */
static bool transpose_keeps_order(const struct run_shape *in, const unsigned int *perm)
{
    unsigned int i, last = 0;
    bool first = true;

    for (i = 0; i < in->rank; ++i)
    {
        if (in->dims[perm[i]] == 1)
            continue;
        if (!first && perm[i] < last)
            return false;
        last = perm[i];
        first = false;
    }
    return true;
}

static bool emit_transpose(struct run_node *n)
{
    const struct run_shape *out = &n->out[0]->shape;
    uint32_t sizes[RUN_MAX_RANK] = {1}, strides[RUN_MAX_RANK] = {1};
    int64_t in_strides[RUN_MAX_RANK];
    unsigned int perm[RUN_MAX_RANK], i;

    if (!transpose_perm(n, perm))
        return false;
    if (transpose_keeps_order(&n->in[0]->shape, perm))
        return run_alias(n, 0, n->in[0]);
    packed_strides(&n->in[0]->shape, in_strides);
    for (i = 0; i < out->rank; ++i)
    {
        sizes[i] = (uint32_t)out->dims[i];
        strides[i] = (uint32_t)in_strides[perm[i]];
    }
    return run_view(n, 0, n->in[0], out->rank ? out->rank : 1, sizes, strides);
}

/* ---- Concat ---- */

/* Concat-1's axis defaults to 1; from opset 4 it is required. */
static bool concat_axis(struct run_node *n, unsigned int rank, unsigned int *axis)
{
    if (n->opset >= 4 && !onnx_attr_has(n->onnx, "axis"))
        return run_fail(n, "no axis attribute");
    return run_axis(n, onnx_attr_int(n->onnx, "axis", 1), rank, axis);
}

static bool infer_concat(struct run_node *n)
{
    struct run_shape shape;
    unsigned int axis, i, d;

    if (!run_need_io(n, 1, 1))
        return false;
    shape = n->in[0]->shape;

    if (!shape.rank)
        return run_fail(n, "scalars cannot be concatenated");
    if (!concat_axis(n, shape.rank, &axis))
        return false;
    shape.dims[axis] = 0;
    for (i = 0; i < n->in_count; ++i)
    {
        const struct run_shape *s;

        if (!n->in[i])
            return run_fail(n, "input %u is missing", i);
        s = &n->in[i]->shape;
        if (s->rank != shape.rank)
            return run_fail(n, "input %u has %u dimensions, input 0 %u", i, s->rank, shape.rank);
        for (d = 0; d < s->rank; ++d)
            if (d != axis && s->dims[d] != shape.dims[d])
                return run_fail(n, "input %u's dimension %u is %" PRId64 ", not %" PRId64, i, d, s->dims[d],
                        shape.dims[d]);
        shape.dims[axis] += s->dims[axis];
    }
    return set_out_like_input(n, 0, &shape);
}

static bool fold_concat(struct run_node *n)
{
    struct run_tensor *out = run_out_host(n, 0);
    int64_t outer = 1, offset = 0, chunk, o;
    size_t size;
    unsigned int axis, i, d;

    if (!out || !concat_axis(n, out->shape.rank, &axis))
        return false;
    size = onnx_type_size(out->type);
    for (d = 0; d < axis; ++d)
        outer *= out->shape.dims[d];
    /* Each input adds a chunk of its own width to every row of the output. */
    for (i = 0; i < n->in_count; ++i)
    {
        const struct run_tensor *in = n->in[i]->host;

        chunk = outer ? run_shape_elements(&in->shape) / outer : 0;
        for (o = 0; o < outer; ++o)
            memcpy((char *)out->data + (o * run_shape_elements(&out->shape) / outer + offset) * size,
                    (const char *)in->data + o * chunk * size, chunk * size);
        offset += chunk;
    }
    return true;
}

static bool emit_concat(struct run_node *n)
{
    struct run_value **inputs = run_alloc(n, n->in_count * sizeof(*inputs));
    unsigned int rank = n->out[0]->shape.rank, i, count = 0;
    DML_JOIN_OPERATOR_DESC desc;

    if (!inputs)
        return run_fail(n, "out of memory");
    for (i = 0; i < n->in_count; ++i)
        if (run_shape_elements(&n->in[i]->shape))
            inputs[count++] = n->in[i];
    if (!concat_axis(n, rank, &desc.Axis))
        return false;
    if (count == 1)
        return run_alias(n, 0, inputs[0]);
    desc.InputCount = count;
    desc.InputTensors = desc_array(n, inputs, count, rank);
    desc.OutputTensor = run_desc(n, n->out[0], rank);
    return desc.InputTensors && desc.OutputTensor && run_emit(n, DML_OPERATOR_JOIN, &desc, inputs, count, n->out, 1);
}

/* ---- Slice ---- */

struct slice_window
{
    int64_t start[RUN_MAX_RANK], step[RUN_MAX_RANK], count[RUN_MAX_RANK];
};

/* One axis's slice with ONNX's clamping: the first element, the step and how many. */
static void slice_axis(int64_t dim, int64_t start, int64_t end, int64_t step, struct slice_window *w, unsigned int a)
{
    /* A step longer than the axis takes one element at most: clamped, the arithmetic cannot overflow. */
    step = step > dim ? dim + 1 : step < -dim ? -dim - 1 : step;
    start = start < 0 ? start + dim : start;
    end = end < 0 ? end + dim : end;
    if (step > 0)
    {
        start = start < 0 ? 0 : start > dim ? dim : start;
        end = end < 0 ? 0 : end > dim ? dim : end;
        w->count[a] = end > start ? (end - start + step - 1) / step : 0;
    }
    else
    {
        start = start < 0 ? 0 : start > dim - 1 ? dim - 1 : start;
        end = end < -1 ? -1 : end > dim - 1 ? dim - 1 : end;
        w->count[a] = start > end ? (start - end - step - 1) / -step : 0;
    }
    w->start[a] = start;
    w->step[a] = step;
}

/* Slice's operands: attributes before opset 10, inputs 1 to 4 after; absent axes are 0, 1, ...
 * and absent steps 1. Returns the count of axes, -1 on failure. */
static int slice_operands(struct run_node *n, int64_t *starts, int64_t *ends, int64_t *axes, int64_t *steps)
{
    int count, ends_count, axes_count, steps_count = -1, i;

    if (n->opset < 10)
    {
        count = onnx_attr_ints(n->onnx, "starts", starts, RUN_MAX_RANK);
        ends_count = onnx_attr_ints(n->onnx, "ends", ends, RUN_MAX_RANK);
        axes_count = onnx_attr_ints(n->onnx, "axes", axes, RUN_MAX_RANK);
    }
    else
    {
        if ((count = run_in_ints(n, 1, starts, RUN_MAX_RANK)) < 0
                || (ends_count = run_in_ints(n, 2, ends, RUN_MAX_RANK)) < 0)
            return -1;
        axes_count = run_in(n, 3) ? run_in_ints(n, 3, axes, RUN_MAX_RANK) : -2;
        steps_count = run_in(n, 4) ? run_in_ints(n, 4, steps, RUN_MAX_RANK) : -2;
        if (axes_count == -1 || steps_count == -1)
            return -1;
    }
    if (count < 0 || count != ends_count || count > RUN_MAX_RANK || (axes_count >= 0 && axes_count != count)
            || (steps_count >= 0 && steps_count != count))
    {
        run_fail(n, "starts, ends, axes and steps are missing or differ in length");
        return -1;
    }
    for (i = 0; i < count; ++i)
    {
        if (axes_count < 0)
            axes[i] = i;
        if (steps_count < 0)
            steps[i] = 1;
    }
    return count;
}

static bool slice_window(struct run_node *n, struct slice_window *w)
{
    const struct run_shape *in = &n->in[0]->shape;
    int64_t starts[RUN_MAX_RANK], ends[RUN_MAX_RANK], axes[RUN_MAX_RANK], steps[RUN_MAX_RANK];
    unsigned int seen = 0, axis, i;
    int count, j;

    if ((count = slice_operands(n, starts, ends, axes, steps)) < 0)
        return false;
    for (i = 0; i < in->rank; ++i)
    {
        w->start[i] = 0;
        w->step[i] = 1;
        w->count[i] = in->dims[i];
    }
    for (j = 0; j < count; ++j)
    {
        if (!run_axis(n, axes[j], in->rank, &axis))
            return false;
        if (seen & (1u << axis))
            return run_fail(n, "axis %u is sliced twice", axis);
        if (!steps[j])
            return run_fail(n, "a step of 0");
        seen |= 1u << axis;
        slice_axis(in->dims[axis], starts[j], ends[j], steps[j], w, axis);
    }
    return true;
}

static bool infer_slice(struct run_node *n)
{
    struct run_shape shape;
    struct slice_window w;
    unsigned int i;

    if (!run_need_io(n, 1, 1))
        return false;
    shape = n->in[0]->shape;

    if (!slice_window(n, &w))
        return false;
    for (i = 0; i < shape.rank; ++i)
        shape.dims[i] = w.count[i];
    return set_out_like_input(n, 0, &shape);
}

static bool fold_slice(struct run_node *n)
{
    const struct run_tensor *in = n->in[0]->host;
    struct run_tensor *out = run_out_host(n, 0);
    int64_t strides[RUN_MAX_RANK], coords[RUN_MAX_RANK], count, i, source;
    struct slice_window w;
    unsigned int d;

    if (!out || !slice_window(n, &w))
        return false;
    packed_strides(&in->shape, strides);
    count = run_shape_elements(&out->shape);
    for (i = 0; i < count; ++i)
    {
        index_coords(&out->shape, i, coords);
        for (d = 0, source = 0; d < out->shape.rank; ++d)
            source += (w.start[d] + coords[d] * w.step[d]) * strides[d];
        copy_element(out, i, in, source);
    }
    return true;
}

/* SLICE1 of `in` into `out` through window `w` (a negative step reads its window backwards). */
static bool emit_slice_window(struct run_node *n, struct run_value *in, struct run_value *out,
        const struct slice_window *w)
{
    unsigned int rank = in->shape.rank, i;
    DML_SLICE1_OPERATOR_DESC desc;
    uint32_t *offsets = run_alloc(n, 2 * RUN_MAX_RANK * sizeof(uint32_t));
    int32_t *strides = run_alloc(n, RUN_MAX_RANK * sizeof(int32_t));

    if (!offsets || !strides)
        return run_fail(n, "out of memory");
    for (i = 0; i < rank; ++i)
    {
        int64_t last = w->start[i] + (w->count[i] - 1) * w->step[i];

        offsets[i] = (uint32_t)(w->step[i] > 0 ? w->start[i] : last);
        offsets[RUN_MAX_RANK + i] = (uint32_t)((w->count[i] - 1) * (w->step[i] > 0 ? w->step[i] : -w->step[i]) + 1);
        if (w->step[i] > INT32_MAX || w->step[i] < -INT32_MAX)
            return run_unsupported(n, "a step of %" PRId64 " (SLICE1's strides are 32-bit)", w->step[i]);
        strides[i] = (int32_t)w->step[i];
    }
    desc.InputTensor = run_desc(n, in, rank);
    desc.OutputTensor = run_desc(n, out, rank);
    desc.DimensionCount = rank;
    desc.InputWindowOffsets = offsets;
    desc.InputWindowSizes = offsets + RUN_MAX_RANK;
    desc.InputWindowStrides = strides;
    return desc.InputTensor && desc.OutputTensor && run_emit(n, DML_OPERATOR_SLICE1, &desc, &in, 1, &out, 1);
}

/* Whether the window is the whole input in order (a slice to INT64_MAX, say): nothing moves. */
static bool slice_is_whole(const struct run_shape *in, const struct slice_window *w)
{
    unsigned int i;

    for (i = 0; i < in->rank; ++i)
        if (w->count[i] != in->dims[i] || (in->dims[i] > 1 && w->step[i] < 0))
            return false;
    return true;
}

static bool emit_slice(struct run_node *n)
{
    struct slice_window w;

    if (!n->in[0]->shape.rank)
        return run_fail(n, "a scalar cannot be sliced");
    if (!slice_window(n, &w))
        return false;
    if (slice_is_whole(&n->in[0]->shape, &w))
        return run_alias(n, 0, n->in[0]);
    return emit_slice_window(n, n->in[0], n->out[0], &w);
}

/* ---- Split ---- */

/* The parts' sizes along the axis: the split input (opset 13, and Split-1's optional input) or
 * attribute, else num_outputs (opset 18: the last part smaller) or the output count (equal parts). */
static bool split_sizes(struct run_node *n, unsigned int axis, int64_t *sizes)
{
    int64_t total = n->in[0]->shape.dims[axis], sum = 0, part;
    unsigned int i, parts = n->out_count;
    int count;

    if (run_in(n, 1))
        count = run_in_ints(n, 1, sizes, RUN_MAX_NODE_TENSORS);
    else if (n->opset < 13)
        count = onnx_attr_ints(n->onnx, "split", sizes, RUN_MAX_NODE_TENSORS);
    else
        count = -2;
    if (count == -1 && run_in(n, 1))
        return false;
    if (count >= 0)
    {
        if ((unsigned int)count != parts)
            return run_fail(n, "split has %d sizes for %u outputs", count, parts);
        for (i = 0; i < parts; ++i)
            sum += sizes[i];
        return sum == total || run_fail(n, "the split sizes do not add up to %" PRId64, total);
    }
    if (n->opset >= 18 && onnx_attr_int(n->onnx, "num_outputs", parts) != parts)
        return run_fail(n, "num_outputs is not the output count %u", parts);
    if (n->opset < 18 && total % parts)
        return run_fail(n, "%" PRId64 " does not split into %u equal parts", total, parts);
    part = (total + parts - 1) / parts;
    for (i = 0; i < parts; ++i)
    {
        sizes[i] = total - sum < part ? total - sum : part;
        sum += sizes[i];
    }
    return true;
}

static bool infer_split(struct run_node *n)
{
    struct run_shape shape;
    int64_t sizes[RUN_MAX_NODE_TENSORS];
    unsigned int axis, i;

    if (!run_need_io(n, 1, 0))
        return false;
    shape = n->in[0]->shape;

    if (!run_axis(n, onnx_attr_int(n->onnx, "axis", 0), shape.rank, &axis) || !split_sizes(n, axis, sizes))
        return false;
    for (i = 0; i < n->out_count; ++i)
    {
        shape.dims[axis] = sizes[i];
        set_out_like_input(n, i, &shape);
    }
    return true;
}

static bool fold_split(struct run_node *n)
{
    const struct run_tensor *in = n->in[0]->host;
    int64_t outer = 1, row, offset = 0, chunk, o;
    size_t size = onnx_type_size(in->type);
    unsigned int axis, i, d;
    struct run_tensor *out;

    if (!run_axis(n, onnx_attr_int(n->onnx, "axis", 0), in->shape.rank, &axis))
        return false;
    for (d = 0; d < axis; ++d)
        outer *= in->shape.dims[d];
    row = outer ? run_shape_elements(&in->shape) / outer : 0;
    for (i = 0; i < n->out_count; ++i)
    {
        if (!n->out[i])
            continue;
        if (!(out = run_out_host(n, i)))
            return false;
        chunk = outer ? run_shape_elements(&out->shape) / outer : 0;
        for (o = 0; o < outer; ++o)
            memcpy((char *)out->data + o * chunk * size, (const char *)in->data + (o * row + offset) * size,
                    chunk * size);
        offset += chunk;
    }
    return true;
}

/* Outputs the model leaves out: a graph's every operator output takes an edge (docs/graph.md), so
 * each present part is its own SLICE1 instead of one SPLIT. */
static bool emit_split_parts(struct run_node *n, unsigned int axis, const int64_t *sizes)
{
    const struct run_shape *in = &n->in[0]->shape;
    struct slice_window w;
    int64_t offset = 0;
    unsigned int i, d;

    for (d = 0; d < in->rank; ++d)
    {
        w.start[d] = 0;
        w.step[d] = 1;
        w.count[d] = in->dims[d];
    }
    for (i = 0; i < n->out_count; offset += sizes[i++])
    {
        if (!n->out[i] || !sizes[i])
            continue;
        w.start[axis] = offset;
        w.count[axis] = sizes[i];
        if (!emit_slice_window(n, n->in[0], n->out[i], &w))
            return false;
    }
    return true;
}

static bool emit_split(struct run_node *n)
{
    int64_t sizes[RUN_MAX_NODE_TENSORS];
    DML_SPLIT_OPERATOR_DESC desc;
    unsigned int i;

    if (!run_axis(n, onnx_attr_int(n->onnx, "axis", 0), n->in[0]->shape.rank, &desc.Axis)
            || !split_sizes(n, desc.Axis, sizes))
        return false;
    if (n->out_count == 1)
        return run_alias(n, 0, n->in[0]);
    for (i = 0; i < n->out_count; ++i)
        if (!n->out[i])
            return emit_split_parts(n, desc.Axis, sizes);
    desc.InputTensor = run_desc(n, n->in[0], 0);
    desc.OutputCount = n->out_count;
    desc.OutputTensors = desc_array(n, n->out, n->out_count, n->in[0]->shape.rank);
    return desc.InputTensor && desc.OutputTensors
            && run_emit(n, DML_OPERATOR_SPLIT, &desc, n->in, 1, n->out, n->out_count);
}

/* ---- Pad ---- */

struct pad_operands
{
    int64_t begin[RUN_MAX_RANK], end[RUN_MAX_RANK];
    DML_PADDING_MODE mode;
    double value;
};

static bool pad_mode(struct run_node *n, DML_PADDING_MODE *mode)
{
    char text[16];
    const char *name = onnx_attr_string(n->onnx, "mode", "constant", text, sizeof(text));

    if (!strcmp(name, "constant"))
        *mode = DML_PADDING_MODE_CONSTANT;
    else if (!strcmp(name, "reflect"))
        *mode = DML_PADDING_MODE_REFLECTION;
    else if (!strcmp(name, "edge"))
        *mode = DML_PADDING_MODE_EDGE;
    else if (!strcmp(name, "wrap"))
        *mode = DML_PADDING_MODE_WRAP;
    else
        return run_fail(n, "mode '%s'", name);
    return true;
}

/* Pads' axes (opset 18's input 3), else every axis. */
static int pad_axes(struct run_node *n, unsigned int rank, unsigned int *axes)
{
    int64_t values[RUN_MAX_RANK];
    int count, i;

    if (n->opset < 18 || !run_in(n, 3))
    {
        for (i = 0; i < (int)rank; ++i)
            axes[i] = (unsigned int)i;
        return (int)rank;
    }
    if ((count = run_in_ints(n, 3, values, RUN_MAX_RANK)) < 0)
        return -1;
    for (i = 0; i < count; ++i)
        if (!run_axis(n, values[i], rank, &axes[i]))
            return -1;
    return count;
}

static bool pad_operands(struct run_node *n, struct pad_operands *p)
{
    unsigned int rank = n->in[0]->shape.rank, axes[RUN_MAX_RANK];
    int64_t pads[2 * RUN_MAX_RANK];
    const struct run_tensor *value;
    int count, axis_count, i;

    memset(p, 0, sizeof(*p));
    if (!pad_mode(n, &p->mode))
        return false;
    if (n->opset < 11)
    {
        count = onnx_attr_ints(n->onnx, n->opset < 2 ? "paddings" : "pads", pads, 2 * RUN_MAX_RANK);
        p->value = onnx_attr_float(n->onnx, "value", 0.0f);
    }
    else
    {
        count = run_in_ints(n, 1, pads, 2 * RUN_MAX_RANK);
        if (count < 0)
            return false;
        if (run_in(n, 2) && run_shape_elements(&run_in(n, 2)->shape))
        {
            if (!(value = run_in_host(n, 2)))
                return false;
            p->value = run_tensor_get_double(value, 0);
        }
    }
    if ((axis_count = pad_axes(n, rank, axes)) < 0)
        return false;
    if (count != 2 * axis_count)
        return run_fail(n, "%d pads for %d axes (a start and an end each)", count, axis_count);
    for (i = 0; i < axis_count; ++i)
    {
        p->begin[axes[i]] = pads[i];
        p->end[axes[i]] = pads[axis_count + i];
    }
    return true;
}

static bool infer_pad(struct run_node *n)
{
    struct run_shape shape;
    struct pad_operands p;
    unsigned int i;

    if (!run_need_io(n, 1, 1))
        return false;
    shape = n->in[0]->shape;

    if (!pad_operands(n, &p))
        return false;
    for (i = 0; i < shape.rank; ++i)
    {
        shape.dims[i] += p.begin[i] + p.end[i];
        if (shape.dims[i] < 0)
            return run_fail(n, "the pads crop dimension %u below 0", i);
    }
    return set_out_like_input(n, 0, &shape);
}

/* Negative pads crop: a SLICE1 of the input first, into an intermediate the padding reads. */
static struct run_value *pad_crop(struct run_node *n, struct pad_operands *p)
{
    struct run_value *in = n->in[0], *cropped;
    struct run_shape shape = in->shape;
    struct slice_window w;
    bool crop = false;
    unsigned int i;

    for (i = 0; i < shape.rank; ++i)
    {
        w.start[i] = p->begin[i] < 0 ? -p->begin[i] : 0;
        w.count[i] = shape.dims[i] - w.start[i] - (p->end[i] < 0 ? -p->end[i] : 0);
        w.step[i] = 1;
        crop |= p->begin[i] < 0 || p->end[i] < 0;
        shape.dims[i] = w.count[i];
        p->begin[i] = p->begin[i] < 0 ? 0 : p->begin[i];
        p->end[i] = p->end[i] < 0 ? 0 : p->end[i];
    }
    if (!crop)
        return in;
    if (!run_shape_elements(&shape))
    {
        run_unsupported(n, "the pads crop every element, then pad");
        return NULL;
    }
    if (!(cropped = run_temp(n, in->type, &shape)) || !emit_slice_window(n, in, cropped, &w))
        return NULL;
    return cropped;
}

static bool emit_pad(struct run_node *n)
{
    unsigned int rank = n->in[0]->shape.rank, i;
    uint32_t *begin = run_alloc(n, 2 * RUN_MAX_RANK * sizeof(uint32_t));
    static const int64_t zeros[RUN_MAX_RANK];
    DML_PADDING1_OPERATOR_DESC desc;
    struct run_value *in;
    struct pad_operands p;

    if (!begin)
        return run_fail(n, "out of memory");
    if (!rank)
        return run_fail(n, "a scalar cannot be padded");
    if (!pad_operands(n, &p))
        return false;
    if (!memcmp(p.begin, zeros, sizeof(zeros)) && !memcmp(p.end, zeros, sizeof(zeros)))
        return run_alias(n, 0, n->in[0]);
    if (!(in = pad_crop(n, &p)))
        return false;
    for (i = 0; i < rank; ++i)
    {
        begin[i] = (uint32_t)p.begin[i];
        begin[RUN_MAX_RANK + i] = (uint32_t)p.end[i];
    }
    desc.InputTensor = run_desc(n, in, rank);
    desc.OutputTensor = run_desc(n, n->out[0], rank);
    desc.PaddingMode = p.mode;
    desc.PaddingValueDataType = run_dml_type(n->lower, n->out[0]->type);
    desc.PaddingValue = run_scalar(desc.PaddingValueDataType, p.value);
    desc.DimensionCount = rank;
    desc.StartPadding = begin;
    desc.EndPadding = begin + RUN_MAX_RANK;
    return desc.InputTensor && desc.OutputTensor
            && run_emit(n, DML_OPERATOR_PADDING1, &desc, &in, 1, &n->out[0], 1);
}

/* ---- Tile, Expand ---- */

static bool tile_repeats(struct run_node *n, int64_t *repeats)
{
    int count;

    if (n->opset < 6)
        return run_unsupported(n, "Tile-1's tiles and axis inputs");
    if ((count = run_in_ints(n, 1, repeats, RUN_MAX_RANK)) < 0)
        return false;
    if ((unsigned int)count != n->in[0]->shape.rank)
        return run_fail(n, "%d repeats for %u dimensions", count, n->in[0]->shape.rank);
    for (; count-- > 0;)
        if (repeats[count] < 0)
            return run_fail(n, "a negative repeat");
    return true;
}

static bool infer_tile(struct run_node *n)
{
    struct run_shape shape;
    int64_t repeats[RUN_MAX_RANK];
    unsigned int i;

    if (!run_need_io(n, 2, 1))
        return false;
    shape = n->in[0]->shape;

    if (!tile_repeats(n, repeats))
        return false;
    for (i = 0; i < shape.rank; ++i)
        shape.dims[i] *= repeats[i];
    return set_out_like_input(n, 0, &shape);
}

static bool fold_tile(struct run_node *n)
{
    const struct run_tensor *in = n->in[0]->host;
    struct run_tensor *out = run_out_host(n, 0);
    int64_t strides[RUN_MAX_RANK], coords[RUN_MAX_RANK], count, i, source;
    unsigned int d;

    if (!out)
        return false;
    packed_strides(&in->shape, strides);
    count = run_shape_elements(&out->shape);
    for (i = 0; i < count; ++i)
    {
        index_coords(&out->shape, i, coords);
        for (d = 0, source = 0; d < out->shape.rank; ++d)
            source += coords[d] % in->shape.dims[d] * strides[d];
        copy_element(out, i, in, source);
    }
    return true;
}

static bool emit_tile(struct run_node *n)
{
    unsigned int rank = n->in[0]->shape.rank, i;
    uint32_t *repeats = run_alloc(n, RUN_MAX_RANK * sizeof(*repeats));
    int64_t values[RUN_MAX_RANK];
    DML_TILE_OPERATOR_DESC desc;

    if (!repeats)
        return run_fail(n, "out of memory");
    if (!tile_repeats(n, values))
        return false;
    if (run_shape_equal(&n->in[0]->shape, &n->out[0]->shape))
        return run_alias(n, 0, n->in[0]);
    for (i = 0; i < rank; ++i)
        repeats[i] = (uint32_t)values[i];
    repeats[0] = rank ? repeats[0] : 1;
    desc.InputTensor = run_desc(n, n->in[0], 0);
    desc.OutputTensor = run_desc(n, n->out[0], 0);
    desc.RepeatsCount = rank ? rank : 1;
    desc.Repeats = repeats;
    return desc.InputTensor && desc.OutputTensor && run_emit(n, DML_OPERATOR_TILE, &desc, n->in, 1, n->out, 1);
}

static bool infer_expand(struct run_node *n)
{
    struct run_shape shape = {0}, out;
    int count;

    if (!run_need_io(n, 2, 1))
        return false;

    if ((count = run_in_ints(n, 1, shape.dims, RUN_MAX_RANK)) < 0)
        return false;
    shape.rank = (unsigned int)count;
    return run_broadcast(n, &n->in[0]->shape, &shape, &out) && set_out_like_input(n, 0, &out);
}

static bool fold_expand(struct run_node *n)
{
    const struct run_tensor *in = n->in[0]->host;
    struct run_tensor *out = run_out_host(n, 0);
    int64_t count, i;

    if (!out)
        return false;
    count = run_shape_elements(&out->shape);
    for (i = 0; i < count; ++i)
        copy_element(out, i, in, run_broadcast_source(&in->shape, &out->shape, i));
    return true;
}

static bool emit_expand(struct run_node *n)
{
    const struct run_shape *out = &n->out[0]->shape;
    unsigned int rank = out->rank ? out->rank : 1;
    int64_t sizes[RUN_MAX_RANK] = {1};
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc;

    if (run_shape_equal(&n->in[0]->shape, out))
        return run_alias(n, 0, n->in[0]);
    memcpy(sizes, out->dims, out->rank * sizeof(*sizes));
    memset(&desc, 0, sizeof(desc));
    desc.InputTensor = run_desc_broadcast(n, n->in[0], rank, sizes);
    desc.OutputTensor = run_desc(n, n->out[0], rank);
    return desc.InputTensor && desc.OutputTensor
            && run_emit(n, DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc, n->in, 1, n->out, 1);
}

/* ---- Gather, GatherElements, GatherND ---- */

static bool infer_gather(struct run_node *n)
{
    const struct run_shape *data, *indices;
    struct run_shape shape = {0};
    unsigned int axis, i;

    if (!run_need_io(n, 2, 1))
        return false;
    data = &n->in[0]->shape;
    indices = &n->in[1]->shape;

    if (!run_axis(n, onnx_attr_int(n->onnx, "axis", 0), data->rank, &axis))
        return false;
    if (data->rank + indices->rank - 1 > RUN_MAX_RANK)
        return run_unsupported(n, "an output of %u dimensions", data->rank + indices->rank - 1);
    for (i = 0; i < axis; ++i)
        shape.dims[shape.rank++] = data->dims[i];
    for (i = 0; i < indices->rank; ++i)
        shape.dims[shape.rank++] = indices->dims[i];
    for (i = axis + 1; i < data->rank; ++i)
        shape.dims[shape.rank++] = data->dims[i];
    return set_out_like_input(n, 0, &shape);
}

/* An index resolved against its axis (negative from the end); -1 when out of range. */
static int64_t resolve_index(int64_t index, int64_t size)
{
    index = index < 0 ? index + size : index;
    return index >= 0 && index < size ? index : -1;
}

static bool fold_gather(struct run_node *n)
{
    const struct run_tensor *data = n->in[0]->host, *indices = n->in[1]->host;
    struct run_tensor *out = run_out_host(n, 0);
    int64_t count, inner = 1, index_count, i, o, k, index;
    unsigned int axis, d;

    if (!out || !run_axis(n, onnx_attr_int(n->onnx, "axis", 0), data->shape.rank, &axis))
        return false;
    for (d = axis + 1; d < data->shape.rank; ++d)
        inner *= data->shape.dims[d];
    index_count = run_shape_elements(&indices->shape);
    count = run_shape_elements(&out->shape);
    /* Output element i: outer row o, index k, inner position i % inner. */
    for (i = 0; i < count; ++i)
    {
        o = i / inner / index_count;
        index = run_tensor_get_int(indices, i / inner % index_count);
        if ((k = resolve_index(index, data->shape.dims[axis])) < 0)
            return run_fail(n, "index %" PRId64 " is out of range", index);
        copy_element(out, i, data, (o * data->shape.dims[axis] + k) * inner + i % inner);
    }
    return true;
}

static bool emit_gather(struct run_node *n)
{
    unsigned int data_rank = n->in[0]->shape.rank, rank = n->out[0]->shape.rank, axis;
    DML_GATHER_OPERATOR_DESC desc;

    rank = rank > data_rank ? rank : data_rank;
    if (!run_axis(n, onnx_attr_int(n->onnx, "axis", 0), data_rank, &axis))
        return false;
    desc.InputTensor = run_desc(n, n->in[0], rank);
    desc.IndicesTensor = run_desc(n, n->in[1], rank);
    desc.OutputTensor = run_desc(n, n->out[0], rank);
    desc.Axis = axis + rank - data_rank;
    desc.IndexDimensions = n->in[1]->shape.rank;
    return desc.InputTensor && desc.IndicesTensor && desc.OutputTensor
            && run_emit(n, DML_OPERATOR_GATHER, &desc, n->in, 2, n->out, 1);
}

static bool infer_gather_elements(struct run_node *n)
{
    unsigned int axis;

    if (!run_need_io(n, 2, 1))
        return false;

    if (n->in[0]->shape.rank != n->in[1]->shape.rank)
        return run_fail(n, "data and indices differ in rank");
    if (!run_axis(n, onnx_attr_int(n->onnx, "axis", 0), n->in[0]->shape.rank, &axis))
        return false;
    return set_out_like_input(n, 0, &n->in[1]->shape);
}

static bool emit_gather_elements(struct run_node *n)
{
    DML_GATHER_ELEMENTS_OPERATOR_DESC desc;

    if (!run_axis(n, onnx_attr_int(n->onnx, "axis", 0), n->in[0]->shape.rank, &desc.Axis))
        return false;
    desc.InputTensor = run_desc(n, n->in[0], 0);
    desc.IndicesTensor = run_desc(n, n->in[1], 0);
    desc.OutputTensor = run_desc(n, n->out[0], 0);
    return desc.InputTensor && desc.IndicesTensor && desc.OutputTensor
            && run_emit(n, DML_OPERATOR_GATHER_ELEMENTS, &desc, n->in, 2, n->out, 1);
}

static bool infer_gather_nd(struct run_node *n)
{
    const struct run_shape *data, *indices;
    int64_t batch = n->opset >= 12 ? onnx_attr_int(n->onnx, "batch_dims", 0) : 0, tuple;
    struct run_shape shape = {0};
    unsigned int i;

    if (!run_need_io(n, 2, 1))
        return false;
    data = &n->in[0]->shape;
    indices = &n->in[1]->shape;

    if (!indices->rank || !data->rank)
        return run_fail(n, "data and indices need at least one dimension");
    tuple = indices->dims[indices->rank - 1];
    if (batch < 0 || batch >= (int64_t)indices->rank || batch + tuple > (int64_t)data->rank)
        return run_fail(n, "batch_dims %" PRId64 " and tuples of %" PRId64 " do not fit", batch, tuple);
    for (i = 0; i + 1 < indices->rank; ++i)
        shape.dims[shape.rank++] = indices->dims[i];
    for (i = (unsigned int)(batch + tuple); i < data->rank; ++i)
    {
        if (shape.rank == RUN_MAX_RANK)
            return run_unsupported(n, "an output of more than %d dimensions", RUN_MAX_RANK);
        shape.dims[shape.rank++] = data->dims[i];
    }
    return set_out_like_input(n, 0, &shape);
}

static bool emit_gather_nd(struct run_node *n)
{
    unsigned int rank = n->in[0]->shape.rank;
    DML_GATHER_ND1_OPERATOR_DESC desc;

    rank = n->in[1]->shape.rank > rank ? n->in[1]->shape.rank : rank;
    rank = n->out[0]->shape.rank > rank ? n->out[0]->shape.rank : rank;
    desc.InputTensor = run_desc(n, n->in[0], rank);
    desc.IndicesTensor = run_desc(n, n->in[1], rank);
    desc.OutputTensor = run_desc(n, n->out[0], rank);
    desc.InputDimensionCount = n->in[0]->shape.rank;
    desc.IndicesDimensionCount = n->in[1]->shape.rank;
    desc.BatchDimensionCount = n->opset >= 12 ? (UINT)onnx_attr_int(n->onnx, "batch_dims", 0) : 0;
    return desc.InputTensor && desc.IndicesTensor && desc.OutputTensor
            && run_emit(n, DML_OPERATOR_GATHER_ND1, &desc, n->in, 2, n->out, 1);
}

/* ---- Scatter, ScatterElements, ScatterND ---- */

static bool scatter_reduction_none(struct run_node *n)
{
    char text[16];
    const char *reduction = onnx_attr_string(n->onnx, "reduction", "none", text, sizeof(text));

    if (strcmp(reduction, "none"))
        return run_unsupported(n, "reduction '%s' (DirectML's scatters only replace elements)", reduction);
    return true;
}

static bool infer_scatter_elements(struct run_node *n)
{
    const struct run_shape *data, *indices;
    unsigned int axis, i;

    if (!run_need_io(n, 3, 1))
        return false;
    data = &n->in[0]->shape;
    indices = &n->in[1]->shape;

    if (!scatter_reduction_none(n) || !run_axis(n, onnx_attr_int(n->onnx, "axis", 0), data->rank, &axis))
        return false;
    if (indices->rank != data->rank || !run_shape_equal(indices, &n->in[2]->shape))
        return run_fail(n, "indices and updates must have the data's rank and one shape");
    for (i = 0; i < data->rank; ++i)
        if (i != axis && indices->dims[i] != data->dims[i])
            return run_unsupported(n, "indices smaller than the data off the axis (dimension %u: SCATTER_ELEMENTS "
                    "takes the data's sizes there)", i);
    return set_out_like_input(n, 0, data);
}

static bool emit_scatter_elements(struct run_node *n)
{
    DML_SCATTER_OPERATOR_DESC desc;

    if (!run_axis(n, onnx_attr_int(n->onnx, "axis", 0), n->in[0]->shape.rank, &desc.Axis))
        return false;
    desc.InputTensor = run_desc(n, n->in[0], 0);
    desc.IndicesTensor = run_desc(n, n->in[1], 0);
    desc.UpdatesTensor = run_desc(n, n->in[2], 0);
    desc.OutputTensor = run_desc(n, n->out[0], 0);
    return desc.InputTensor && desc.IndicesTensor && desc.UpdatesTensor && desc.OutputTensor
            && run_emit(n, DML_OPERATOR_SCATTER_ELEMENTS, &desc, n->in, 3, n->out, 1);
}

static bool infer_scatter_nd(struct run_node *n)
{
    if (!run_need_io(n, 3, 1))
        return false;

    if (!scatter_reduction_none(n))
        return false;
    return set_out_like_input(n, 0, &n->in[0]->shape);
}

static bool emit_scatter_nd(struct run_node *n)
{
    unsigned int rank = n->in[0]->shape.rank, i;
    DML_SCATTER_ND_OPERATOR_DESC desc;

    for (i = 1; i < 3; ++i)
        rank = n->in[i]->shape.rank > rank ? n->in[i]->shape.rank : rank;
    desc.InputTensor = run_desc(n, n->in[0], rank);
    desc.IndicesTensor = run_desc(n, n->in[1], rank);
    desc.UpdatesTensor = run_desc(n, n->in[2], rank);
    desc.OutputTensor = run_desc(n, n->out[0], rank);
    desc.InputDimensionCount = n->in[0]->shape.rank;
    desc.IndicesDimensionCount = n->in[1]->shape.rank;
    return desc.InputTensor && desc.IndicesTensor && desc.UpdatesTensor && desc.OutputTensor
            && run_emit(n, DML_OPERATOR_SCATTER_ND, &desc, n->in, 3, n->out, 1);
}

/* ---- DepthToSpace, SpaceToDepth ---- */

static bool depth_space_shape(struct run_node *n, bool to_space, struct run_shape *shape)
{
    int64_t block = onnx_attr_int(n->onnx, "blocksize", 0);

    *shape = n->in[0]->shape;
    if (shape->rank != 4)
        return run_fail(n, "the input has %u dimensions, not 4", shape->rank);
    if (block <= 0 || (to_space ? shape->dims[1] % (block * block)
            : shape->dims[2] % block || shape->dims[3] % block))
        return run_fail(n, "blocksize %" PRId64 " does not divide the input", block);
    shape->dims[1] = to_space ? shape->dims[1] / (block * block) : shape->dims[1] * block * block;
    shape->dims[2] = to_space ? shape->dims[2] * block : shape->dims[2] / block;
    shape->dims[3] = to_space ? shape->dims[3] * block : shape->dims[3] / block;
    return true;
}

static bool infer_depth_to_space(struct run_node *n)
{
    struct run_shape shape;

    if (!run_need_io(n, 1, 1))
        return false;

    return depth_space_shape(n, true, &shape) && set_out_like_input(n, 0, &shape);
}

static bool infer_space_to_depth(struct run_node *n)
{
    struct run_shape shape;

    if (!run_need_io(n, 1, 1))
        return false;

    return depth_space_shape(n, false, &shape) && set_out_like_input(n, 0, &shape);
}

static bool emit_depth_space(struct run_node *n, DML_OPERATOR_TYPE type, DML_DEPTH_SPACE_ORDER order)
{
    DML_DEPTH_TO_SPACE1_OPERATOR_DESC desc;    /* SPACE_TO_DEPTH1's layout too */

    desc.InputTensor = run_desc(n, n->in[0], 0);
    desc.OutputTensor = run_desc(n, n->out[0], 0);
    desc.BlockSize = (UINT)onnx_attr_int(n->onnx, "blocksize", 0);
    desc.Order = order;
    return desc.InputTensor && desc.OutputTensor && run_emit(n, type, &desc, n->in, 1, n->out, 1);
}

static bool emit_depth_to_space(struct run_node *n)
{
    char text[8];
    const char *mode = onnx_attr_string(n->onnx, "mode", "DCR", text, sizeof(text));

    if (strcmp(mode, "DCR") && strcmp(mode, "CRD"))
        return run_fail(n, "mode '%s'", mode);
    return emit_depth_space(n, DML_OPERATOR_DEPTH_TO_SPACE1,
            strcmp(mode, "CRD") ? DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW : DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH);
}

static bool emit_space_to_depth(struct run_node *n)
{
    return emit_depth_space(n, DML_OPERATOR_SPACE_TO_DEPTH1, DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW);
}

/* ---- OneHot ---- */

static bool one_hot_axis(struct run_node *n, unsigned int *axis)
{
    return run_axis(n, onnx_attr_int(n->onnx, "axis", -1), n->in[0]->shape.rank + 1, axis);
}

static bool infer_one_hot(struct run_node *n)
{
    const struct run_shape *indices;
    const struct run_tensor *depth;
    struct run_shape shape = {0};
    unsigned int axis, i;

    if (!run_need_io(n, 3, 1))
        return false;
    indices = &n->in[0]->shape;

    if (!(depth = run_in_host(n, 1)) || !one_hot_axis(n, &axis))
        return false;
    if (indices->rank + 1 > RUN_MAX_RANK)
        return run_unsupported(n, "an output of %u dimensions", indices->rank + 1);
    if (run_shape_elements(&n->in[2]->shape) != 2)
        return run_fail(n, "values must hold 2 elements");
    shape.rank = indices->rank + 1;
    for (i = 0; i < shape.rank; ++i)
        shape.dims[i] = i < axis ? indices->dims[i] : i == axis ? (int64_t)run_tensor_get_double(depth, 0)
                : indices->dims[i - 1];
    if (shape.dims[axis] <= 0)
        return run_fail(n, "depth %g", run_tensor_get_double(depth, 0));
    run_set_out(n, 0, n->in[2]->type, &shape);
    return true;
}

static bool is_index_type(int type)
{
    return type == ONNX_INT32 || type == ONNX_INT64 || type == ONNX_UINT32 || type == ONNX_UINT64;
}

/* The indices as a type ONE_HOT takes: other types go through CAST to INT64 (truncating, as ONNX
 * casts non-integer indices). */
static struct run_value *one_hot_indices(struct run_node *n)
{
    struct run_value *cast;
    DML_CAST_OPERATOR_DESC desc;

    if (is_index_type(n->in[0]->type))
        return n->in[0];
    if (!(cast = run_temp(n, ONNX_INT64, &n->in[0]->shape)))
        return NULL;
    desc.InputTensor = run_desc(n, n->in[0], 0);
    desc.OutputTensor = run_desc(n, cast, 0);
    if (!desc.InputTensor || !desc.OutputTensor || !run_emit(n, DML_OPERATOR_CAST, &desc, n->in, 1, &cast, 1))
        return NULL;
    return cast;
}

static bool emit_one_hot(struct run_node *n)
{
    const struct run_shape *out = &n->out[0]->shape;
    uint32_t sizes[RUN_MAX_RANK];
    struct run_value *inputs[2];
    DML_ONE_HOT_OPERATOR_DESC desc;
    unsigned int axis, i;

    if (!one_hot_axis(n, &axis) || !(inputs[0] = one_hot_indices(n)))
        return false;
    inputs[1] = n->in[2];
    /* The indices read with a dimension of 1 at the axis, the values as {1, ..., 2}. */
    for (i = 0; i < out->rank; ++i)
        sizes[i] = i == axis ? 1 : (uint32_t)out->dims[i];
    desc.IndicesTensor = run_desc_view(n, inputs[0], out->rank, sizes, NULL, DML_TENSOR_DATA_TYPE_UNKNOWN);
    desc.ValuesTensor = run_desc(n, inputs[1], out->rank);
    desc.OutputTensor = run_desc(n, n->out[0], out->rank);
    desc.Axis = axis;
    return desc.IndicesTensor && desc.ValuesTensor && desc.OutputTensor
            && run_emit(n, DML_OPERATOR_ONE_HOT, &desc, inputs, 2, n->out, 1);
}

/* ---- ReverseSequence ---- */

static bool reverse_axes(struct run_node *n, unsigned int *batch, unsigned int *time)
{
    unsigned int rank = n->in[0]->shape.rank;

    if (rank < 2)
        return run_fail(n, "the input has %u dimensions, at least 2 needed", rank);
    if (!run_axis(n, onnx_attr_int(n->onnx, "batch_axis", 1), 2, batch)
            || !run_axis(n, onnx_attr_int(n->onnx, "time_axis", 0), 2, time))
        return false;
    if (*batch == *time)
        return run_fail(n, "batch_axis and time_axis are both %u", *batch);
    if (run_shape_elements(&n->in[1]->shape) != n->in[0]->shape.dims[*batch])
        return run_fail(n, "sequence_lens must hold one length per batch");
    return true;
}

static bool infer_reverse_sequence(struct run_node *n)
{
    unsigned int batch, time;

    if (!run_need_io(n, 2, 1))
        return false;

    return reverse_axes(n, &batch, &time) && set_out_like_input(n, 0, &n->in[0]->shape);
}

static bool emit_reverse_sequence(struct run_node *n)
{
    unsigned int rank = n->in[0]->shape.rank, batch, time, i;
    uint32_t sizes[RUN_MAX_RANK], strides[RUN_MAX_RANK];
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC desc;

    if (!reverse_axes(n, &batch, &time))
        return false;
    /* The int64 lengths read as UINT64 (ONNX's lengths are not negative), one per batch, the
     * same for every other coordinate. */
    for (i = 0; i < rank; ++i)
    {
        sizes[i] = i == time ? 1 : (uint32_t)n->in[0]->shape.dims[i];
        strides[i] = i == batch ? 1 : 0;
    }
    desc.InputTensor = run_desc(n, n->in[0], 0);
    desc.SequenceLengthsTensor = run_desc_view(n, n->in[1], rank, sizes, strides,
            n->in[1]->type == ONNX_INT64 ? DML_TENSOR_DATA_TYPE_UINT64 : DML_TENSOR_DATA_TYPE_UINT32);
    desc.OutputTensor = run_desc(n, n->out[0], 0);
    desc.Axis = time;
    return desc.InputTensor && desc.SequenceLengthsTensor && desc.OutputTensor
            && run_emit(n, DML_OPERATOR_REVERSE_SUBSEQUENCES, &desc, n->in, 2, n->out, 1);
}

/* ---- Trilu ---- */

static bool trilu_k(struct run_node *n, int64_t *k)
{
    const struct run_tensor *t;

    *k = 0;
    if (!run_in(n, 1))
        return true;
    if (!(t = run_in_host(n, 1)))
        return false;
    *k = run_tensor_get_int(t, 0);
    return true;
}

static bool infer_trilu(struct run_node *n)
{
    int64_t k;

    if (!run_need_io(n, 1, 1))
        return false;

    if (n->in[0]->shape.rank < 2)
        return run_fail(n, "the input has %u dimensions, at least 2 needed", n->in[0]->shape.rank);
    return trilu_k(n, &k) && set_out_like_input(n, 0, &n->in[0]->shape);
}

static int32_t clamp_int32(int64_t value)
{
    return value < INT32_MIN + 1 ? INT32_MIN + 1 : value > INT32_MAX - 1 ? INT32_MAX - 1 : (int32_t)value;
}

/* Zeros over the diagonals Trilu clears (column - row below k for the upper part, above k for the
 * lower), the input elsewhere; batches of matrices as one dimension (DIAGONAL_MATRIX1: rank 2-4). */
static bool emit_trilu(struct run_node *n)
{
    const struct run_shape *shape = &n->in[0]->shape;
    bool upper = onnx_attr_int(n->onnx, "upper", 1) != 0;
    DML_DIAGONAL_MATRIX1_OPERATOR_DESC desc;
    uint32_t sizes[3] = {1};
    unsigned int i;
    int64_t k;

    if (!trilu_k(n, &k))
        return false;
    for (i = 0; i + 2 < shape->rank; ++i)
        sizes[0] *= (uint32_t)shape->dims[i];
    sizes[1] = (uint32_t)shape->dims[shape->rank - 2];
    sizes[2] = (uint32_t)shape->dims[shape->rank - 1];
    desc.InputTensor = run_desc_view(n, n->in[0], 3, sizes, NULL, DML_TENSOR_DATA_TYPE_UNKNOWN);
    desc.OutputTensor = run_desc_view(n, n->out[0], 3, sizes, NULL, DML_TENSOR_DATA_TYPE_UNKNOWN);
    desc.ValueDataType = run_dml_type(n->lower, n->out[0]->type);
    desc.Value = run_scalar(desc.ValueDataType, 0.0);
    desc.DiagonalFillBegin = upper ? INT32_MIN : clamp_int32(k + 1);
    desc.DiagonalFillEnd = upper ? clamp_int32(k) : INT32_MAX;
    return desc.InputTensor && desc.OutputTensor
            && run_emit(n, DML_OPERATOR_DIAGONAL_MATRIX1, &desc, n->in, 1, n->out, 1);
}

/* ---- NonZero, Compress, Unique: data-dependent shapes ---- */

static bool is_nonzero(const struct run_tensor *t, int64_t i)
{
    return run_tensor_get_double(t, i) != 0.0;
}

static bool infer_nonzero(struct run_node *n)
{
    struct run_shape shape = {2, {0}};
    int64_t count, i;

    if (!run_need_io(n, 1, 1))
        return false;
    shape.dims[0] = n->in[0]->shape.rank;

    if (!n->in[0]->constant)
        return run_unsupported(n, "the output's shape depends on the input's values (data-dependent shape)");
    count = run_shape_elements(&n->in[0]->shape);
    for (i = 0; i < count; ++i)
        shape.dims[1] += is_nonzero(n->in[0]->host, i);
    run_set_out(n, 0, ONNX_INT64, &shape);
    return true;
}

static bool fold_nonzero(struct run_node *n)
{
    const struct run_tensor *in = n->in[0]->host;
    struct run_tensor *out = run_out_host(n, 0);
    int64_t coords[RUN_MAX_RANK], count, i, found = 0, columns;
    unsigned int d;

    if (!out)
        return false;
    count = run_shape_elements(&in->shape);
    columns = out->shape.dims[1];
    for (i = 0; i < count; ++i)
    {
        if (!is_nonzero(in, i))
            continue;
        index_coords(&in->shape, i, coords);
        for (d = 0; d < in->shape.rank; ++d)
            run_tensor_set_int(out, d * columns + found, coords[d]);
        ++found;
    }
    return true;
}

/* Unique of a constant: the input as [outer, extent, inner] around the axis (flattened without
 * one); slice k is every element at position k along it, compared in row-major order. */
struct unique_slices
{
    int64_t outer, extent, inner;
    int64_t count;                      /* unique slices */
    int64_t *first;                     /* [count]: the first occurrence of each, in output order */
    int64_t *counts;                    /* [count] */
    int64_t *inverse;                   /* [extent]: the output slice of each input slice */
};

static int compare_slices(const struct run_tensor *t, const struct unique_slices *u, int64_t a, int64_t b)
{
    bool integer = t->type != ONNX_FLOAT && t->type != ONNX_DOUBLE && t->type != ONNX_FLOAT16;
    int64_t o, i, x, y;

    for (o = 0; o < u->outer; ++o)
        for (i = 0; i < u->inner; ++i)
        {
            x = (o * u->extent + a) * u->inner + i;
            y = (o * u->extent + b) * u->inner + i;
            if (integer ? run_tensor_get_int(t, x) != run_tensor_get_int(t, y)
                    : run_tensor_get_double(t, x) != run_tensor_get_double(t, y))
                return (integer ? run_tensor_get_int(t, x) < run_tensor_get_int(t, y)
                        : run_tensor_get_double(t, x) < run_tensor_get_double(t, y)) ? -1 : 1;
        }
    return 0;
}

/* Sorts the unique slices (insertion sort: constants are small). */
static void sort_unique(const struct run_tensor *t, struct unique_slices *u)
{
    int64_t i, j, first, count;

    for (i = 1; i < u->count; ++i)
    {
        first = u->first[i];
        count = u->counts[i];
        for (j = i; j > 0 && compare_slices(t, u, u->first[j - 1], first) > 0; --j)
        {
            u->first[j] = u->first[j - 1];
            u->counts[j] = u->counts[j - 1];
        }
        u->first[j] = first;
        u->counts[j] = count;
    }
}

static bool unique_slices(struct run_node *n, struct unique_slices *u)
{
    const struct run_tensor *t = n->in[0]->host;
    const struct run_shape *shape = &n->in[0]->shape;
    int64_t *rank, k, j;
    unsigned int axis = 0, d;

    if (!n->in[0]->constant)
        return run_unsupported(n, "the outputs' shapes depend on the input's values (data-dependent shape), and "
                "DirectML has no unique operator; only a constant input folds");
    u->outer = u->inner = 1;
    u->extent = run_shape_elements(shape);
    if (onnx_attr_has(n->onnx, "axis"))
    {
        if (!run_axis(n, onnx_attr_int(n->onnx, "axis", 0), shape->rank, &axis))
            return false;
        u->extent = shape->dims[axis];
        for (d = 0; d < shape->rank; ++d)
            *(d < axis ? &u->outer : &u->inner) *= d == axis ? 1 : shape->dims[d];
    }
    u->first = run_alloc(n, (u->extent + 1) * sizeof(*u->first));
    u->counts = run_alloc(n, (u->extent + 1) * sizeof(*u->counts));
    u->inverse = run_alloc(n, (u->extent + 1) * sizeof(*u->inverse));
    rank = run_alloc(n, (u->extent + 1) * sizeof(*rank));
    if (!u->first || !u->counts || !u->inverse || !rank)
        return run_fail(n, "out of memory");
    /* In order of first occurrence; the inverse names the first occurrence's position until the
     * output order is final. */
    for (k = 0, u->count = 0; k < u->extent; ++k)
    {
        for (j = 0; j < u->count && compare_slices(t, u, u->first[j], k); ++j)
            ;
        if (j == u->count)
        {
            u->first[u->count] = k;
            u->counts[u->count++] = 0;
        }
        ++u->counts[j];
        u->inverse[k] = u->first[j];
    }
    if (onnx_attr_int(n->onnx, "sorted", 1))
        sort_unique(t, u);
    for (j = 0; j < u->count; ++j)
        rank[u->first[j]] = j;
    for (k = 0; k < u->extent; ++k)
        u->inverse[k] = rank[u->inverse[k]];
    return true;
}

static bool infer_unique(struct run_node *n)
{
    struct run_shape shape, vector = {1, {0}};
    struct unique_slices u;
    unsigned int axis;

    if (!run_need_io(n, 1, 1) || !unique_slices(n, &u))
        return false;
    shape = n->in[0]->shape;
    if (onnx_attr_has(n->onnx, "axis"))
    {
        run_axis(n, onnx_attr_int(n->onnx, "axis", 0), shape.rank, &axis);
        shape.dims[axis] = u.count;
    }
    else
    {
        shape = vector;
        shape.dims[0] = u.count;
    }
    set_out_like_input(n, 0, &shape);
    vector.dims[0] = u.count;
    run_set_out(n, 1, ONNX_INT64, &vector);
    run_set_out(n, 3, ONNX_INT64, &vector);
    vector.dims[0] = u.extent;
    run_set_out(n, 2, ONNX_INT64, &vector);
    return true;
}

static bool fold_unique(struct run_node *n)
{
    const struct run_tensor *in = n->in[0]->host;
    struct run_tensor *out;
    struct unique_slices u;
    int64_t j, o, i;

    if (!unique_slices(n, &u) || !(out = run_out_host(n, 0)))
        return false;
    for (o = 0; o < u.outer; ++o)
        for (j = 0; j < u.count; ++j)
            for (i = 0; i < u.inner; ++i)
                copy_element(out, (o * u.count + j) * u.inner + i, in, (o * u.extent + u.first[j]) * u.inner + i);
    for (j = 0; j < u.count; ++j)
    {
        if (n->out_count > 1 && n->out[1] && (out = run_out_host(n, 1)))
            run_tensor_set_int(out, j, u.first[j]);
        if (n->out_count > 3 && n->out[3] && (out = run_out_host(n, 3)))
            run_tensor_set_int(out, j, u.counts[j]);
    }
    for (j = 0; n->out_count > 2 && n->out[2] && j < u.extent; ++j)
        if ((out = run_out_host(n, 2)))
            run_tensor_set_int(out, j, u.inverse[j]);
    return true;
}

/* Compress: the positions its condition selects along the axis (of the flattened input without
 * one), known on the host. */
static bool compress_positions(struct run_node *n, int64_t **positions, int64_t *count, int64_t *extent)
{
    const struct run_tensor *condition = run_in_host(n, 1);
    int64_t length, i;
    unsigned int axis;

    if (!condition)
        return false;
    if (onnx_attr_has(n->onnx, "axis"))
    {
        if (!run_axis(n, onnx_attr_int(n->onnx, "axis", 0), n->in[0]->shape.rank, &axis))
            return false;
        *extent = n->in[0]->shape.dims[axis];
    }
    else
    {
        *extent = run_shape_elements(&n->in[0]->shape);
    }
    length = run_shape_elements(&condition->shape);
    if (!(*positions = run_alloc(n, (length + 1) * sizeof(**positions))))
        return run_fail(n, "out of memory");
    for (i = 0, *count = 0; i < length && i < *extent; ++i)
        if (run_tensor_get_int(condition, i))
            (*positions)[(*count)++] = i;
    return true;
}

static bool infer_compress(struct run_node *n)
{
    struct run_shape shape = {1, {0}};
    int64_t *positions, count, extent;
    unsigned int axis;

    if (!run_need_io(n, 2, 1))
        return false;

    if (!compress_positions(n, &positions, &count, &extent))
        return false;
    if (onnx_attr_has(n->onnx, "axis"))
    {
        run_axis(n, onnx_attr_int(n->onnx, "axis", 0), n->in[0]->shape.rank, &axis);
        shape = n->in[0]->shape;
        shape.dims[axis] = count;
    }
    else
    {
        shape.dims[0] = count;
    }
    return set_out_like_input(n, 0, &shape);
}

/* A constant int64 vector for the device: an intermediate with host values, made a weight when
 * an operator reads it. */
static struct run_value *constant_indices(struct run_node *n, const int64_t *values, int64_t count)
{
    struct run_shape shape = {1, {count}};
    struct run_value *v = run_temp(n, ONNX_INT64, &shape);
    struct run_tensor *t = run_alloc(n, sizeof(*t));

    if (!v || !t || !run_tensor_alloc(t, ONNX_INT64, &shape))
    {
        run_fail(n, "out of memory");
        return NULL;
    }
    memcpy(t->data, values, count * sizeof(*values));
    v->host = t;
    v->host_owned = true;
    v->constant = true;
    return v;
}

static bool emit_compress(struct run_node *n)
{
    struct run_value *inputs[2] = {n->in[0]};
    const struct run_shape *data = &n->in[0]->shape;
    int64_t *positions, count, extent;
    DML_GATHER_OPERATOR_DESC desc;
    unsigned int axis = 0, rank = data->rank;
    uint32_t sizes[1];

    if (!compress_positions(n, &positions, &count, &extent) || !(inputs[1] = constant_indices(n, positions, count)))
        return false;
    if (onnx_attr_has(n->onnx, "axis"))
    {
        run_axis(n, onnx_attr_int(n->onnx, "axis", 0), rank, &axis);
        desc.InputTensor = run_desc(n, inputs[0], rank);
    }
    else
    {
        sizes[0] = (uint32_t)extent;
        rank = 1;
        desc.InputTensor = run_desc_view(n, inputs[0], 1, sizes, NULL, DML_TENSOR_DATA_TYPE_UNKNOWN);
    }
    desc.IndicesTensor = run_desc(n, inputs[1], rank);
    desc.OutputTensor = run_desc(n, n->out[0], rank);
    desc.Axis = axis;
    desc.IndexDimensions = 1;
    return desc.InputTensor && desc.IndicesTensor && desc.OutputTensor
            && run_emit(n, DML_OPERATOR_GATHER, &desc, inputs, 2, n->out, 1);
}

const struct run_op run_ops_movement[] =
{
    {"Compress", infer_compress, NULL, emit_compress},
    {"Concat", infer_concat, fold_concat, emit_concat},
    {"DepthToSpace", infer_depth_to_space, NULL, emit_depth_to_space},
    {"Expand", infer_expand, fold_expand, emit_expand},
    {"Gather", infer_gather, fold_gather, emit_gather},
    {"GatherElements", infer_gather_elements, NULL, emit_gather_elements},
    {"GatherND", infer_gather_nd, NULL, emit_gather_nd},
    {"NonZero", infer_nonzero, fold_nonzero, NULL},
    {"OneHot", infer_one_hot, NULL, emit_one_hot},
    {"Pad", infer_pad, NULL, emit_pad},
    {"ReverseSequence", infer_reverse_sequence, NULL, emit_reverse_sequence},
    {"Scatter", infer_scatter_elements, NULL, emit_scatter_elements},
    {"ScatterElements", infer_scatter_elements, NULL, emit_scatter_elements},
    {"ScatterND", infer_scatter_nd, NULL, emit_scatter_nd},
    {"Slice", infer_slice, fold_slice, emit_slice},
    {"SpaceToDepth", infer_space_to_depth, NULL, emit_space_to_depth},
    {"Split", infer_split, fold_split, emit_split},
    {"Tile", infer_tile, fold_tile, emit_tile},
    {"Transpose", infer_transpose, fold_transpose, emit_transpose},
    {"Trilu", infer_trilu, NULL, emit_trilu},
    {"Unique", infer_unique, fold_unique, NULL},
    {NULL},
};
