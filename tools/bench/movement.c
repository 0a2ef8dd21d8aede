/*
 * vkdml-bench's workloads of issue 19's operators: data movement (SLICE, SPLIT, JOIN, PADDING,
 * TILE, the depth/space ones, REVERSE_SUBSEQUENCES), indexing (GATHER*, SCATTER*, ONE_HOT,
 * NONZERO_COORDINATES), CAST and the generators (RANDOM_GENERATOR, DIAGONAL_MATRIX*,
 * VALUE_SCALE_2D): their families (tensors and attributes from a shape) and CPU references.
 *
 * The descs follow DirectML's pages (docs/benchmarks/README.md lists the shapes). Index tensors get
 * integers spread over the axis' size, negative ones too where DirectML takes them (signed index
 * types), never out of range: the bench measures speed; test/ops checks the corner cases. The
 * movers' references are exact in every type (the values are small integers, or floats of the type).
 */
#include "operators.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALL_TYPES 0x0ffeu               /* FLOAT32 to INT64: bits 1 to 11 */
#define INDEX_TYPES ((1u << DML_TENSOR_DATA_TYPE_INT32) | (1u << DML_TENSOR_DATA_TYPE_UINT32) \
        | (1u << DML_TENSOR_DATA_TYPE_INT64) | (1u << DML_TENSOR_DATA_TYPE_UINT64))
#define FLOAT_TYPES ((1u << FP32) | (1u << FP16))

/* ---- Shapes ---- */

static UINT64 product(const UINT *sizes, UINT count)
{
    UINT64 p = 1;
    UINT i;

    for (i = 0; i < count; ++i)
        p *= sizes[i];
    return p;
}

/* Row-major coordinates of element `index` of a tensor of `sizes`. */
static void coordinates_of(const struct tensor *t, UINT64 index, UINT64 *c)
{
    int d;

    for (d = (int)t->rank - 1; d >= 0; --d)
    {
        c[d] = index % t->sizes[d];
        index /= t->sizes[d];
    }
}

/* The element offset of coordinates `c` in `t` (its strides, or packed). */
static UINT64 offset_of(const struct tensor *t, const UINT64 *c)
{
    UINT64 offset = 0, packed = 1;
    int d;

    for (d = (int)t->rank - 1; d >= 0; --d)
    {
        offset += c[d] * (t->buffer.Strides ? t->strides[d] : packed);
        packed *= t->sizes[d];
    }
    return offset;
}

static double element_at(const struct tensor *t, const float *values, const UINT64 *c)
{
    return values[offset_of(t, c)];
}

/* The one axis of the shape's ":AXIS", else `fallback`; ~0u when it names several. */
static UINT single_axis(const struct workload *w, UINT fallback)
{
    return !w->axis_count ? fallback : w->axis_count == 1 ? w->axes[0] : ~0u;
}

/* Marks the shape's axes (the last one when it names none) in `along`. */
static const char *axes_along(struct workload *w, bool *along)
{
    const char *why = reduction_axes(w);
    UINT i;

    memset(along, 0, MAX_RANK * sizeof(*along));
    for (i = 0; !why && i < w->axis_count; ++i)
        along[w->axes[i]] = true;
    return why;
}

static bool is_signed_index(DML_TENSOR_DATA_TYPE type)
{
    return type == DML_TENSOR_DATA_TYPE_INT32 || type == DML_TENSOR_DATA_TYPE_INT64;
}

static bool is_unsigned(DML_TENSOR_DATA_TYPE type)
{
    return type == UINT8 || type == DML_TENSOR_DATA_TYPE_UINT16 || type == DML_TENSOR_DATA_TYPE_UINT32
            || type == DML_TENSOR_DATA_TYPE_UINT64;
}

/* The index type: the shape's "@TYPE", else INT32. */
static const char *index_type(const struct workload *w, DML_TENSOR_DATA_TYPE *type)
{
    *type = w->other_type ? w->other_type : DML_TENSOR_DATA_TYPE_INT32;
    return INDEX_TYPES & (1u << *type) ? NULL : "the index type (@TYPE) is int32, uint32, int64 or uint64";
}

/* REVERSE_SUBSEQUENCES' lengths: "@TYPE", else UINT32 (DirectML takes UINT32 and UINT64 only). */
static const char *length_type(const struct workload *w, DML_TENSOR_DATA_TYPE *type)
{
    *type = w->other_type ? w->other_type : DML_TENSOR_DATA_TYPE_UINT32;
    return is_unsigned(*type) && element_size(*type) >= 4 ? NULL : "the lengths' type (@TYPE) is uint32 or uint64";
}

/* Input `input` holds indices into an axis of `size`: negative ones too for a signed type. */
static void index_values(struct workload *w, UINT input, DML_TENSOR_DATA_TYPE type, UINT size)
{
    w->value_low[input] = is_signed_index(type) ? -(int64_t)size : 0;
    w->value_high[input] = size;
}

/* An index as the reference reads it, resolved against an axis of `size`. */
static UINT64 resolved(double index, UINT size)
{
    return (UINT64)(index < 0 ? index + size : index);
}

/* What a gather must move: each output element read once from the input and written once, and the
 * indices (the rest of the input is never read). */
static void gathered_bytes(struct workload *w)
{
    w->bytes = 2.0 * w->output.buffer.TotalTensorSizeInBytes + w->inputs[1].buffer.TotalTensorSizeInBytes;
}

/* ---- CAST ---- */

/* The output's type: "@TYPE", else FLOAT16 from FLOAT32 and FLOAT32 from anything else. */
static const char *build_cast(struct workload *w)
{
    DML_TENSOR_DATA_TYPE out = w->other_type ? w->other_type : w->type == FP32 ? FP16 : FP32;

    if (w->dim_count > MAX_RANK)
        return "CAST shapes have 1 to 8 dimensions";
    tensor_init(&w->inputs[0], w->type, w->dim_count, w->dims, NULL);
    tensor_init(&w->output, out, w->dim_count, w->dims, NULL);
    return NULL;
}

static bool is_integer(DML_TENSOR_DATA_TYPE type)
{
    return !is_float_type(type);
}

/* Floats to integers: truncated or rounded (within 1); a negative value into an unsigned type is not
 * compared (DirectML's page leaves both open; test/ops checks vkdml's choice). */
static double reference_cast(const struct workload *w, float *const *inputs, UINT output, UINT64 index,
        double *tolerance)
{
    DML_TENSOR_DATA_TYPE in = w->inputs[0].buffer.DataType, out = w->output.buffer.DataType;
    double x = inputs[0][index];

    *tolerance = 0.0;
    if (is_integer(out) && x < 0 && is_unsigned(out))
    {
        *tolerance = INFINITY;
        return 0.0;
    }
    if (is_integer(out) && !is_integer(in))
    {
        *tolerance = 1.0;
        return trunc(x);
    }
    return output_rounding(w, x, tolerance);
}

/* ---- JOIN and SPLIT ---- */

/* JOIN: K inputs of the shape (default 2) along the axis (default the last). */
static const char *build_join(struct workload *w)
{
    UINT axis = single_axis(w, w->dim_count - 1), parts = w->k ? w->k : 2, sizes[MAX_RANK], i;

    if (w->dim_count > MAX_RANK || axis == ~0u)
        return "JOIN shapes have 1 to 8 dimensions and one axis";
    if (parts > MAX_INPUTS)
        return "vkdml-bench joins at most 4 inputs (kK)";
    memcpy(sizes, w->dims, w->dim_count * sizeof(*sizes));
    sizes[axis] *= parts;
    for (i = 0; i < parts; ++i)
        tensor_init(&w->inputs[i], w->type, w->dim_count, w->dims, NULL);
    tensor_init(&w->output, w->type, w->dim_count, sizes, NULL);
    w->array_count = parts;
    w->axes[0] = axis;
    set_uint_field(w, "Axis", axis);
    return NULL;
}

static double reference_join(const struct workload *w, float *const *inputs, UINT output, UINT64 index,
        double *tolerance)
{
    UINT axis = w->axes[0], size = w->dims[axis];
    UINT64 c[MAX_RANK], part;

    *tolerance = 0.0;
    coordinates_of(&w->output, index, c);
    part = c[axis] / size;
    c[axis] %= size;
    return element_at(&w->inputs[part], inputs[part], c);
}

/* The parts of a split: the first size % parts of them one element longer. */
static UINT part_size(UINT size, UINT parts, UINT part)
{
    return size / parts + (part < size % parts);
}

/* SPLIT: the input of the shape, in K parts (default 2) along the axis (default the last). */
static const char *build_split(struct workload *w)
{
    UINT axis = single_axis(w, w->dim_count - 1), parts = w->k ? w->k : 2, sizes[MAX_RANK], i;

    if (w->dim_count > MAX_RANK || axis == ~0u)
        return "SPLIT shapes have 1 to 8 dimensions and one axis";
    if (parts > MAX_OUTPUTS || parts > w->dims[axis])
        return "vkdml-bench splits into at most 4 parts (kK), none of them empty";
    tensor_init(&w->inputs[0], w->type, w->dim_count, w->dims, NULL);
    memcpy(sizes, w->dims, w->dim_count * sizeof(*sizes));
    for (i = 0; i < parts; ++i)
    {
        sizes[axis] = part_size(w->dims[axis], parts, i);
        tensor_init(i ? &w->more_outputs[i - 1] : &w->output, w->type, w->dim_count, sizes, NULL);
    }
    w->array_count = parts;
    w->axes[0] = axis;
    set_uint_field(w, "Axis", axis);
    return NULL;
}

static double reference_split(const struct workload *w, float *const *inputs, UINT output, UINT64 index,
        double *tolerance)
{
    const struct tensor *t = output ? &w->more_outputs[output - 1] : &w->output;
    UINT axis = w->axes[0], parts = w->k ? w->k : 2, i;
    UINT64 c[MAX_RANK];

    *tolerance = 0.0;
    coordinates_of(t, index, c);
    for (i = 0; i < output; ++i)
        c[axis] += part_size(w->dims[axis], parts, i);
    return element_at(&w->inputs[0], inputs[0], c);
}

/* ---- SLICE, SLICE1 ---- */

/* The window [D/8, D/8 + D/2) along the axes (default the last), every K-th element (default 1);
 * SLICE1 reads it backwards (negative strides). */
static const char *build_slice(struct workload *w)
{
    bool slice1 = w->op->type == DML_OPERATOR_SLICE1, along[MAX_RANK];
    UINT stride = w->k ? w->k : 1, sizes[MAX_RANK], window[MAX_RANK], strides[MAX_RANK], d;
    const char *why;

    if ((why = axes_along(w, along)))
        return why;
    for (d = 0; d < w->dim_count; ++d)
    {
        w->offsets[d] = along[d] ? w->dims[d] / 8 : 0;
        window[d] = along[d] ? (w->dims[d] / 2 ? w->dims[d] / 2 : 1) : w->dims[d];
        strides[d] = along[d] ? stride : 1;
        sizes[d] = (window[d] + strides[d] - 1) / strides[d];
        w->signed_strides[d] = slice1 && along[d] ? -(INT)strides[d] : (INT)strides[d];
        /* SLICE's Sizes are the output's; SLICE1's InputWindowSizes the window's. */
        w->sizes[d] = slice1 ? window[d] : sizes[d];
        w->steps[d] = strides[d];
    }
    tensor_init(&w->inputs[0], w->type, w->dim_count, w->dims, NULL);
    tensor_init(&w->output, w->type, w->dim_count, sizes, NULL);
    w->bytes = 2.0 * w->output.buffer.TotalTensorSizeInBytes;  /* the window is read, no more */
    set_uint_field(w, "DimensionCount", w->dim_count);
    set_array_field(w, slice1 ? "InputWindowOffsets" : "Offsets", w->offsets, w->dim_count);
    set_array_field(w, slice1 ? "InputWindowSizes" : "Sizes", w->sizes, w->dim_count);
    if (slice1)
        set_array_field(w, "InputWindowStrides", w->signed_strides, w->dim_count);
    else
        set_array_field(w, "Strides", w->steps, w->dim_count);
    return NULL;
}

static double reference_slice(const struct workload *w, float *const *inputs, UINT output, UINT64 index,
        double *tolerance)
{
    bool slice1 = w->op->type == DML_OPERATOR_SLICE1;
    UINT64 c[MAX_RANK];
    UINT d;

    *tolerance = 0.0;
    coordinates_of(&w->output, index, c);
    for (d = 0; d < w->dim_count; ++d)
    {
        if (slice1 && w->signed_strides[d] < 0)
            c[d] = w->offsets[d] + w->sizes[d] - 1 - c[d] * (UINT64)-w->signed_strides[d];
        else
            c[d] = w->offsets[d] + c[d] * (UINT64)w->signed_strides[d];
    }
    return element_at(&w->inputs[0], inputs[0], c);
}

/* ---- PADDING, PADDING1, TILE ---- */

/* K (default 1) before and after along the axes (default the last); --mode: the padding mode. */
static const char *build_padding(struct workload *w)
{
    UINT pad = w->k ? w->k : 1, sizes[MAX_RANK], d;
    bool along[MAX_RANK];
    const char *why;

    if ((why = axes_along(w, along)))
        return why;
    for (d = 0; d < w->dim_count; ++d)
    {
        w->start_pads[d] = w->end_pads[d] = along[d] ? pad : 0;
        sizes[d] = w->dims[d] + 2 * w->start_pads[d];
    }
    tensor_init(&w->inputs[0], w->type, w->dim_count, w->dims, NULL);
    tensor_init(&w->output, w->type, w->dim_count, sizes, NULL);
    set_uint_field(w, "DimensionCount", w->dim_count);
    set_array_field(w, "StartPadding", w->start_pads, w->dim_count);
    set_array_field(w, "EndPadding", w->end_pads, w->dim_count);
    return NULL;
}

/* A coordinate `c` of [-pad, size + pad) mapped into [0, size) by the padding mode; false: the
 * padding value. */
static bool padded_coordinate(int mode, int64_t c, int64_t size, UINT64 *mapped)
{
    if (c >= 0 && c < size)
        return *mapped = (UINT64)c, true;
    switch (mode)
    {
        case DML_PADDING_MODE_EDGE:
            *mapped = c < 0 ? 0 : (UINT64)size - 1;
            return true;
        case DML_PADDING_MODE_REFLECTION:
            *mapped = (UINT64)(c < 0 ? -c : 2 * (size - 1) - c);
            return true;
        case DML_PADDING_MODE_SYMMETRIC:
            *mapped = (UINT64)(c < 0 ? -c - 1 : 2 * size - 1 - c);
            return true;
        case DML_PADDING_MODE_WRAP:
            *mapped = (UINT64)((c % size + size) % size);
            return true;
        default:
            return false;
    }
}

static double reference_padding(const struct workload *w, float *const *inputs, UINT output, UINT64 index,
        double *tolerance)
{
    int mode = w->mode < 0 ? DML_PADDING_MODE_CONSTANT : w->mode;
    UINT64 c[MAX_RANK];
    UINT d;

    *tolerance = 0.0;
    coordinates_of(&w->output, index, c);
    for (d = 0; d < w->dim_count; ++d)
    {
        if (padded_coordinate(mode, (int64_t)c[d] - w->start_pads[d], w->dims[d], &c[d]))
            continue;
        if (w->op->type == DML_OPERATOR_PADDING1)
            return typed_value(w->type, 0.5);       /* the bench's PaddingValue (operators.c) */
        /* PADDING's FLOAT 0.5 in an integer type: rounded either way */
        *tolerance = is_float_type(w->type) ? 0.0 : 0.5;
        return output_rounding(w, 0.5, tolerance);
    }
    return element_at(&w->inputs[0], inputs[0], c);
}

/* K repeats (default 2) along the axes (default the last). */
static const char *build_tile(struct workload *w)
{
    UINT sizes[MAX_RANK], d;
    bool along[MAX_RANK];
    const char *why;

    if ((why = axes_along(w, along)))
        return why;
    for (d = 0; d < w->dim_count; ++d)
    {
        w->repeats[d] = along[d] ? (w->k ? w->k : 2) : 1;
        sizes[d] = w->dims[d] * w->repeats[d];
    }
    tensor_init(&w->inputs[0], w->type, w->dim_count, w->dims, NULL);
    tensor_init(&w->output, w->type, w->dim_count, sizes, NULL);
    set_array_field(w, "Repeats", w->repeats, w->dim_count);
    return NULL;
}

static double reference_tile(const struct workload *w, float *const *inputs, UINT output, UINT64 index,
        double *tolerance)
{
    UINT64 c[MAX_RANK];
    UINT d;

    *tolerance = 0.0;
    coordinates_of(&w->output, index, c);
    for (d = 0; d < w->dim_count; ++d)
        c[d] %= w->dims[d];
    return element_at(&w->inputs[0], inputs[0], c);
}

/* ---- SPACE_TO_DEPTH(1), DEPTH_TO_SPACE(1) ---- */

static bool to_depth(const struct workload *w)
{
    return w->op->type == DML_OPERATOR_SPACE_TO_DEPTH || w->op->type == DML_OPERATOR_SPACE_TO_DEPTH1;
}

/* The image NxCxHxW, blocks of K (default 2); --mode: the '1' forms' Order. */
static const char *build_depth_space(struct workload *w)
{
    UINT block = w->k ? w->k : 2, out[4];
    const UINT *d = w->dims;

    if (w->dim_count != 4)
        return "depth/space shapes are NxCxHxW[kBLOCK]";
    if (to_depth(w) ? d[2] % block || d[3] % block : d[1] % (block * block))
        return to_depth(w) ? "H and W are multiples of the block (kBLOCK)" : "C is a multiple of the block's square";
    out[0] = d[0];
    out[1] = to_depth(w) ? d[1] * block * block : d[1] / (block * block);
    out[2] = to_depth(w) ? d[2] / block : d[2] * block;
    out[3] = to_depth(w) ? d[3] / block : d[3] * block;
    w->k = block;
    tensor_init(&w->inputs[0], w->type, 4, d, NULL);
    tensor_init(&w->output, w->type, 4, out, NULL);
    set_uint_field(w, "BlockSize", block);
    return NULL;
}

/* ONNX's DepthToSpace: DEPTH_COLUMN_ROW (DCR, the first forms' order) takes output (c, y*b + i,
 * x*b + j) from depth (i*b + j)*C + c, COLUMN_ROW_DEPTH (CRD) from c*b*b + i*b + j. */
static double reference_depth_space(const struct workload *w, float *const *inputs, UINT output, UINT64 index,
        double *tolerance)
{
    bool crd = w->mode == DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH;
    const struct tensor *space = to_depth(w) ? &w->inputs[0] : &w->output;
    const struct tensor *depth = to_depth(w) ? &w->output : &w->inputs[0];
    UINT64 b = w->k, channels = space->sizes[1], s[4], t[4], i, j;

    *tolerance = 0.0;
    coordinates_of(&w->output, index, to_depth(w) ? t : s);
    if (to_depth(w))
    {
        i = crd ? t[1] % (b * b) / b : t[1] / channels / b;
        j = crd ? t[1] % b : t[1] / channels % b;
        s[0] = t[0];
        s[1] = crd ? t[1] / (b * b) : t[1] % channels;
        s[2] = t[2] * b + i;
        s[3] = t[3] * b + j;
        return element_at(space, inputs[0], s);
    }
    i = s[2] % b;
    j = s[3] % b;
    t[0] = s[0];
    t[1] = crd ? s[1] * b * b + i * b + j : (i * b + j) * channels + s[1];
    t[2] = s[2] / b;
    t[3] = s[3] / b;
    return element_at(depth, inputs[0], t);
}

/* ---- GATHER, GATHER_ELEMENTS, GATHER_ND, GATHER_ND1 ---- */

/* K indices (default 3) of "@TYPE" into the axis (default the first): the input's rows along it. */
static const char *build_gather(struct workload *w)
{
    UINT axis = single_axis(w, 0), count = w->k ? w->k : 3, indices[MAX_RANK], sizes[MAX_RANK], d;
    DML_TENSOR_DATA_TYPE type;
    const char *why;

    if (w->dim_count > MAX_RANK || axis == ~0u)
        return "GATHER shapes have 1 to 8 dimensions and one axis";
    if ((why = index_type(w, &type)))
        return why;
    for (d = 0; d < w->dim_count; ++d)
    {
        indices[d] = d + 1 == w->dim_count ? count : 1;
        sizes[d] = d == axis ? count : w->dims[d];
    }
    tensor_init(&w->inputs[0], w->type, w->dim_count, w->dims, NULL);
    tensor_init(&w->inputs[1], type, w->dim_count, indices, NULL);
    tensor_init(&w->output, w->type, w->dim_count, sizes, NULL);
    index_values(w, 1, type, w->dims[axis]);
    gathered_bytes(w);
    w->axes[0] = axis;
    set_uint_field(w, "Axis", axis);
    set_uint_field(w, "IndexDimensions", 1);
    return NULL;
}

static double reference_gather(const struct workload *w, float *const *inputs, UINT output, UINT64 index,
        double *tolerance)
{
    UINT axis = w->axes[0];
    UINT64 c[MAX_RANK];

    *tolerance = 0.0;
    coordinates_of(&w->output, index, c);
    c[axis] = resolved(inputs[1][c[axis]], w->dims[axis]);
    return element_at(&w->inputs[0], inputs[0], c);
}

/* Indices of the input's shape, but K (default the axis' size) along the axis (default the last). */
static const char *build_gather_elements(struct workload *w)
{
    UINT axis = single_axis(w, w->dim_count - 1), sizes[MAX_RANK];
    DML_TENSOR_DATA_TYPE type;
    const char *why;

    if (w->dim_count > MAX_RANK || axis == ~0u)
        return "GATHER_ELEMENTS shapes have 1 to 8 dimensions and one axis";
    if ((why = index_type(w, &type)))
        return why;
    memcpy(sizes, w->dims, w->dim_count * sizeof(*sizes));
    sizes[axis] = w->k ? w->k : w->dims[axis];
    tensor_init(&w->inputs[0], w->type, w->dim_count, w->dims, NULL);
    tensor_init(&w->inputs[1], type, w->dim_count, sizes, NULL);
    tensor_init(&w->output, w->type, w->dim_count, sizes, NULL);
    index_values(w, 1, type, w->dims[axis]);
    gathered_bytes(w);
    w->axes[0] = axis;
    set_uint_field(w, "Axis", axis);
    return NULL;
}

static double reference_gather_elements(const struct workload *w, float *const *inputs, UINT output,
        UINT64 index, double *tolerance)
{
    UINT axis = w->axes[0];
    UINT64 c[MAX_RANK];

    *tolerance = 0.0;
    coordinates_of(&w->output, index, c);
    c[axis] = resolved(inputs[1][offset_of(&w->inputs[1], c)], w->dims[axis]);
    return element_at(&w->inputs[0], inputs[0], c);
}

/* K tuples (default 3) of two coordinates into the input's first two dimensions: the output holds
 * the blocks they name, {1, K, D2, ...} (GATHER_ND1: no batch dimensions). */
static const char *build_gather_nd(struct workload *w)
{
    UINT rank = w->dim_count, count = w->k ? w->k : 3, indices[MAX_RANK], sizes[MAX_RANK], d;
    DML_TENSOR_DATA_TYPE type;
    const char *why;

    if (rank < 2 || rank > MAX_RANK)
        return "GATHER_ND shapes have 2 to 8 dimensions";
    if ((why = index_type(w, &type)))
        return why;
    for (d = 0; d < rank; ++d)
    {
        indices[d] = d + 2 == rank ? count : d + 1 == rank ? 2 : 1;
        sizes[d] = d == 0 ? 1 : d == 1 ? count : w->dims[d];
    }
    tensor_init(&w->inputs[0], w->type, rank, w->dims, NULL);
    tensor_init(&w->inputs[1], type, rank, indices, NULL);
    tensor_init(&w->output, w->type, rank, sizes, NULL);
    index_values(w, 1, type, w->dims[0] < w->dims[1] ? w->dims[0] : w->dims[1]);
    gathered_bytes(w);
    set_uint_field(w, "InputDimensionCount", rank);
    set_uint_field(w, "IndicesDimensionCount", 2);
    return NULL;
}

static double reference_gather_nd(const struct workload *w, float *const *inputs, UINT output, UINT64 index,
        double *tolerance)
{
    UINT64 c[MAX_RANK], tuple;

    *tolerance = 0.0;
    coordinates_of(&w->output, index, c);
    tuple = c[1];
    c[0] = resolved(inputs[1][2 * tuple], w->dims[0]);
    c[1] = resolved(inputs[1][2 * tuple + 1], w->dims[1]);
    return element_at(&w->inputs[0], inputs[0], c);
}

/* ---- SCATTER_ELEMENTS, SCATTER_ND ---- */

/* Updates of the input's shape, but K (default 1, at most the axis' size) along the axis (default
 * the last), with indices of that shape: distinct along each line (scatter_values), since DirectML
 * leaves the winner of repeated indices undefined. */
static const char *build_scatter_elements(struct workload *w)
{
    UINT axis = single_axis(w, w->dim_count - 1), sizes[MAX_RANK];
    DML_TENSOR_DATA_TYPE type;
    const char *why;

    if (w->dim_count > MAX_RANK || axis == ~0u)
        return "SCATTER_ELEMENTS shapes have 1 to 8 dimensions and one axis";
    if ((why = index_type(w, &type)))
        return why;
    memcpy(sizes, w->dims, w->dim_count * sizeof(*sizes));
    sizes[axis] = w->k ? w->k : 1;
    if (sizes[axis] > w->dims[axis])
        return "SCATTER_ELEMENTS' K (kK) is at most the axis' size: distinct indices";
    tensor_init(&w->inputs[0], w->type, w->dim_count, w->dims, NULL);
    tensor_init(&w->inputs[1], type, w->dim_count, sizes, NULL);
    tensor_init(&w->inputs[2], w->type, w->dim_count, sizes, NULL);
    tensor_init(&w->output, w->type, w->dim_count, w->dims, NULL);
    w->axes[0] = axis;
    set_uint_field(w, "Axis", axis);
    return NULL;
}

/* K updates (default 3, at most D0) of blocks of the input's dimensions after the first, at
 * distinct coordinates into the first: indices {K, 1} and updates {K, D1, ...}, ONNX's ScatterND
 * with leading 1s to the input's rank. */
static const char *build_scatter_nd(struct workload *w)
{
    UINT rank = w->dim_count, count = w->k ? w->k : 3, indices[MAX_RANK], updates[MAX_RANK], d;
    DML_TENSOR_DATA_TYPE type;
    const char *why;

    if (rank < 2 || rank > MAX_RANK)
        return "SCATTER_ND shapes have 2 to 8 dimensions";
    if ((why = index_type(w, &type)))
        return why;
    if (count > w->dims[0])
        return "SCATTER_ND's K (kK) is at most the first dimension: distinct indices";
    for (d = 0; d < rank; ++d)
    {
        indices[d] = d + 2 == rank ? count : 1;
        updates[d] = d ? w->dims[d] : count;
    }
    tensor_init(&w->inputs[0], w->type, rank, w->dims, NULL);
    tensor_init(&w->inputs[1], type, rank, indices, NULL);
    tensor_init(&w->inputs[2], w->type, rank, updates, NULL);
    tensor_init(&w->output, w->type, rank, w->dims, NULL);
    w->axes[0] = rank - 2;              /* the indices' axis of distinct values */
    set_uint_field(w, "InputDimensionCount", rank);
    set_uint_field(w, "IndicesDimensionCount", 2);
    return NULL;
}

/* The size of the input axis the scatter's indices point into. */
static UINT scatter_range(const struct workload *w)
{
    return w->op->type == DML_OPERATOR_SCATTER_ND ? w->dims[0] : w->dims[w->axes[0]];
}

/* The indices (input 1): along w->axes[0] of the indices tensor, each line holds distinct positions
 * of [0, range) (a partial shuffle), half of them written as negative ones for a signed type. */
static bool scatter_values(const struct workload *w, UINT input, float *values, size_t count)
{
    const struct tensor *t = &w->inputs[1];
    bool is_signed = is_signed_index(t->buffer.DataType);
    UINT axis = w->axes[0], range = scatter_range(w), length = t->sizes[axis], j, pick, swap;
    UINT64 inner = 1, lines, line, c[MAX_RANK] = {0};
    uint32_t seed = 0x2545f491u;
    UINT *order;
    int d;

    if (input != 1 || !(order = malloc(range * sizeof(*order))))
        return false;
    for (d = (int)t->rank - 1; d > (int)axis; --d)
        inner *= t->sizes[d];
    lines = tensor_elements(t) / length;
    for (line = 0; line < lines; ++line)
    {
        for (j = 0; j < range; ++j)
            order[j] = j;
        for (j = 0; j < length; ++j)
        {
            pick = j + ref_random(&seed) % (range - j);
            swap = order[j], order[j] = order[pick], order[pick] = swap;
            c[0] = line / inner * length * inner + (UINT64)j * inner + line % inner;
            if (c[0] < count)
                values[c[0]] = is_signed && ref_random(&seed) % 2 ? (float)order[j] - range : (float)order[j];
        }
    }
    free(order);
    return true;
}

/* The update written at the output element, else the input's: the indices are distinct. */
static double reference_scatter(const struct workload *w, float *const *inputs, UINT output, UINT64 index,
        double *tolerance)
{
    const struct tensor *indices = &w->inputs[1];
    bool nd = w->op->type == DML_OPERATOR_SCATTER_ND;
    UINT axis = nd ? 0 : w->axes[0], length = indices->sizes[w->axes[0]], t;
    UINT64 c[MAX_RANK], k[MAX_RANK], block = tensor_elements(&w->output) / w->dims[0];

    *tolerance = 0.0;
    coordinates_of(&w->output, index, c);
    memcpy(k, c, sizeof(k));
    for (t = 0; t < length; ++t)
    {
        double position;

        if (nd)
            position = inputs[1][t];
        else
        {
            k[axis] = t;
            position = inputs[1][offset_of(indices, k)];
        }
        if (resolved(position, w->dims[axis]) != c[axis])
            continue;
        if (nd)
            return inputs[2][t * block + index % block];
        return inputs[2][offset_of(&w->inputs[2], k)];
    }
    return inputs[0][offset_of(&w->inputs[0], c)];
}

/* ---- ONE_HOT, NONZERO_COORDINATES ---- */

/* The output's shape; the axis (default the last) is the depth; indices of "@TYPE" have size 1 there;
 * Values {off, on} of the main type. */
static const char *build_one_hot(struct workload *w)
{
    UINT axis = single_axis(w, w->dim_count - 1), sizes[MAX_RANK], values[MAX_RANK], d;
    DML_TENSOR_DATA_TYPE type;
    const char *why;

    if (w->dim_count > MAX_RANK || axis == ~0u)
        return "ONE_HOT shapes have 1 to 8 dimensions and one axis";
    if ((why = index_type(w, &type)))
        return why;
    for (d = 0; d < w->dim_count; ++d)
    {
        sizes[d] = d == axis ? 1 : w->dims[d];
        values[d] = d + 1 == w->dim_count ? 2 : 1;
    }
    tensor_init(&w->inputs[0], type, w->dim_count, sizes, NULL);
    tensor_init(&w->inputs[1], w->type, w->dim_count, values, NULL);
    tensor_init(&w->output, w->type, w->dim_count, w->dims, NULL);
    index_values(w, 0, type, w->dims[axis]);
    w->axes[0] = axis;
    set_uint_field(w, "Axis", axis);
    return NULL;
}

static double reference_one_hot(const struct workload *w, float *const *inputs, UINT output, UINT64 index,
        double *tolerance)
{
    UINT axis = w->axes[0];
    UINT64 c[MAX_RANK], position;

    *tolerance = 0.0;
    coordinates_of(&w->output, index, c);
    position = c[axis];
    c[axis] = 0;
    return inputs[1][resolved(inputs[0][offset_of(&w->inputs[0], c)], w->dims[axis]) == position];
}

/* Leading 1s up to `rank` dimensions (the 4-D-only operators'); false when the shape has more. */
static bool padded_shape(struct workload *w, UINT rank)
{
    UINT d;

    if (w->dim_count > rank)
        return false;
    memmove(w->dims + rank - w->dim_count, w->dims, w->dim_count * sizeof(*w->dims));
    for (d = 0; d < rank - w->dim_count; ++d)
        w->dims[d] = 1;
    w->dim_count = rank;
    return true;
}

/* The input of the shape (with leading 1s to 4 dimensions); the count {1, 1, 1, 1} and the
 * coordinates {1, 1, M, rank} as UINT32: the three have one rank, 4 or 5. */
static const char *build_nonzero(struct workload *w)
{
    UINT count[5] = {1, 1, 1, 1, 1}, coordinates[5] = {1, 1, 1, 1, 1};
    UINT rank;

    if (w->dim_count < 4 && !padded_shape(w, 4))
        return "NONZERO_COORDINATES shapes have 1 to 5 dimensions";
    if ((rank = w->dim_count) > 5)
        return "NONZERO_COORDINATES shapes have 1 to 5 dimensions";
    coordinates[rank - 2] = (UINT)product(w->dims, rank);
    coordinates[rank - 1] = rank;
    tensor_init(&w->inputs[0], w->type, rank, w->dims, NULL);
    tensor_init(&w->output, DML_TENSOR_DATA_TYPE_UINT32, rank, count, NULL);
    tensor_init(&w->more_outputs[0], DML_TENSOR_DATA_TYPE_UINT32, rank, coordinates, NULL);
    return NULL;
}

/* The count, and the coordinates of the nonzero elements in row-major order; the rows after the
 * count are not compared (DirectML leaves them undefined). */
static double reference_nonzero(const struct workload *w, float *const *inputs, UINT output, UINT64 index,
        double *tolerance)
{
    UINT64 count = tensor_elements(&w->inputs[0]), found = 0, i, row = index / w->dim_count;
    UINT64 c[MAX_RANK];

    *tolerance = 0.0;
    for (i = 0; i < count; ++i)
    {
        if (inputs[0][i] == 0.0f)
            continue;
        if (output && found == row)
        {
            coordinates_of(&w->inputs[0], i, c);
            return (double)c[index % w->dim_count];
        }
        ++found;
    }
    if (!output)
        return (double)found;
    *tolerance = INFINITY;
    return 0.0;
}

/* ---- Generators: RANDOM_GENERATOR, DIAGONAL_MATRIX(1), VALUE_SCALE_2D; REVERSE_SUBSEQUENCES ---- */

/* The output's shape with leading 1s to 4 dimensions (UINT32); the state {1, 1, 1, 6} in and out. */
static const char *build_random(struct workload *w)
{
    UINT state[4] = {1, 1, 1, 6};

    if (!padded_shape(w, 4))
        return "RANDOM_GENERATOR shapes have 1 to 4 dimensions";
    tensor_init(&w->inputs[0], DML_TENSOR_DATA_TYPE_UINT32, 4, state, NULL);
    tensor_init(&w->output, w->type, w->dim_count, w->dims, NULL);
    tensor_init(&w->more_outputs[0], DML_TENSOR_DATA_TYPE_UINT32, 4, state, NULL);
    return NULL;
}

/* The output's shape (its last two dimensions the matrix); DIAGONAL_MATRIX's Offset 1 and Value 0.5,
 * DIAGONAL_MATRIX1's span [0, 2) of 0.5 without an input. */
static const char *build_diagonal(struct workload *w)
{
    if (w->dim_count < 2 || w->dim_count > MAX_RANK)
        return "DIAGONAL_MATRIX shapes have 2 to 8 dimensions";
    tensor_init(&w->output, w->type, w->dim_count, w->dims, NULL);
    set_uint_field(w, "Offset", 1);
    set_uint_field(w, "DiagonalFillEnd", 2);
    return NULL;
}

static double reference_diagonal(const struct workload *w, float *const *inputs, UINT output, UINT64 index,
        double *tolerance)
{
    UINT64 c[MAX_RANK];
    int64_t k;

    *tolerance = 0.0;
    coordinates_of(&w->output, index, c);
    k = (int64_t)c[w->dim_count - 1] - (int64_t)c[w->dim_count - 2];
    if (w->op->type == DML_OPERATOR_DIAGONAL_MATRIX1)
        return k >= 0 && k < 2 ? typed_value(w->type, 0.5) : 0.0;
    /* DIAGONAL_MATRIX's FLOAT 0.5 in an integer type: rounded either way */
    *tolerance = is_float_type(w->type) ? 0.0 : 0.5;
    return k == 1 ? output_rounding(w, 0.5, tolerance) : 0.0;
}

/* NxCxHxW, C 1 or 3 (DirectML's ChannelCount); Scale 0.5 and Bias[c] = c / 8. */
static const char *build_value_scale(struct workload *w)
{
    UINT c;

    if (w->dim_count != 4 || (w->dims[1] != 1 && w->dims[1] != 3))
        return "VALUE_SCALE_2D shapes are NxCxHxW with C 1 or 3";
    for (c = 0; c < w->dims[1]; ++c)
        w->bias[c] = c / 8.0f;
    tensor_init(&w->inputs[0], w->type, 4, w->dims, NULL);
    tensor_init(&w->output, w->type, 4, w->dims, NULL);
    set_array_field(w, "Bias", w->bias, w->dims[1]);
    return NULL;
}

static double reference_value_scale(const struct workload *w, float *const *inputs, UINT output, UINT64 index,
        double *tolerance)
{
    UINT64 c[4];
    double value;

    coordinates_of(&w->output, index, c);
    value = (float)(inputs[0][index] * 0.5f + w->bias[c[1]]);
    *tolerance = 1e-6 * (fabs(value) + 1.0);
    return output_rounding(w, value, tolerance);
}

/* The input's shape; SequenceLengths of "@TYPE" have size 1 along the axis (default the first),
 * lengths in [0, the axis' size]. */
static const char *build_reverse(struct workload *w)
{
    UINT axis = single_axis(w, 0), sizes[MAX_RANK];
    DML_TENSOR_DATA_TYPE type;
    const char *why;

    if (w->dim_count > MAX_RANK || axis == ~0u)
        return "REVERSE_SUBSEQUENCES shapes have 1 to 8 dimensions and one axis";
    if ((why = length_type(w, &type)))
        return why;
    memcpy(sizes, w->dims, w->dim_count * sizeof(*sizes));
    sizes[axis] = 1;
    tensor_init(&w->inputs[0], w->type, w->dim_count, w->dims, NULL);
    tensor_init(&w->inputs[1], type, w->dim_count, sizes, NULL);
    tensor_init(&w->output, w->type, w->dim_count, w->dims, NULL);
    w->value_high[1] = w->dims[axis] + 1;
    w->axes[0] = axis;
    set_uint_field(w, "Axis", axis);
    return NULL;
}

static double reference_reverse(const struct workload *w, float *const *inputs, UINT output, UINT64 index,
        double *tolerance)
{
    UINT axis = w->axes[0];
    UINT64 c[MAX_RANK], position, length;

    *tolerance = 0.0;
    coordinates_of(&w->output, index, c);
    position = c[axis];
    c[axis] = 0;
    length = (UINT64)inputs[1][offset_of(&w->inputs[1], c)];
    c[axis] = position < length ? length - 1 - position : position;
    return element_at(&w->inputs[0], inputs[0], c);
}

/* ---- The families and references ---- */

#define FAMILY(name, help, shape, tiny, build, types, suffixes) \
        static const struct family name = {#name, help, shape, tiny, false, false, build, types, suffixes, NULL}
#define SCATTER_FAMILY(name, help, shape, tiny, build) static const struct family name = \
        {#name, help, shape, tiny, false, false, build, ALL_TYPES, SUFFIX_K | SUFFIX_TYPE | SUFFIX_AXES, scatter_values}
FAMILY(cast, "N or DxDx...[@TYPE] (@TYPE: the output's; default fp16 from fp32, else fp32)", "67108864", "5x7x9",
        build_cast, ALL_TYPES, SUFFIX_TYPE);
FAMILY(join, "DxDx...[kN][:AXIS] (N inputs of the shape, default 2, joined along AXIS, default the last)",
        "4096x4096k4:0", "5x7x9k3:1", build_join, ALL_TYPES, SUFFIX_K | SUFFIX_AXES);
FAMILY(split, "DxDx...[kN][:AXIS] (the input, in N parts, default 2, along AXIS, default the last)",
        "16384x4096k4:0", "5x7x9k3:1", build_split, ALL_TYPES, SUFFIX_K | SUFFIX_AXES);
FAMILY(slice, "DxDx...[kSTRIDE][:AXES] (the window [D/8, D/8 + D/2) along AXES, default the last; SLICE1 "
        "backwards)", "8192x8192", "5x7x33k2:0,2", build_slice, ALL_TYPES, SUFFIX_K | SUFFIX_AXES);
FAMILY(padding, "DxDx...[kPAD][:AXES] (PAD before and after, default 1, along AXES, default the last; "
        "--mode constant, edge, reflection, symmetric, wrap)", "32x64x112x112:2,3", "2x3x7x9k2:2,3",
        build_padding, ALL_TYPES, SUFFIX_K | SUFFIX_AXES);
FAMILY(tile, "DxDx...[kREPEATS][:AXES] (REPEATS, default 2, along AXES, default the last)", "32x64x56x56k2:2,3",
        "2x3x5x7k3:1,3", build_tile, ALL_TYPES, SUFFIX_K | SUFFIX_AXES);
FAMILY(depth_space, "NxCxHxW[kBLOCK] (BLOCK default 2; --mode depth-column-row or column-row-depth for the "
        "'1' forms)", "32x64x112x112", "2x12x6x4", build_depth_space, ALL_TYPES, SUFFIX_K);
FAMILY(gather, "DxDx...[kCOUNT][@ITYPE][:AXIS] (COUNT indices, default 3, of ITYPE, default int32, into AXIS, "
        "default the first)", "65536x1024k32768", "33x7k5", build_gather, ALL_TYPES,
        SUFFIX_K | SUFFIX_TYPE | SUFFIX_AXES);
FAMILY(gather_elements, "DxDx...[kCOUNT][@ITYPE][:AXIS] (indices of the input's shape, COUNT along AXIS, "
        "default the last)", "8192x8192", "5x7x9k4:1", build_gather_elements, ALL_TYPES,
        SUFFIX_K | SUFFIX_TYPE | SUFFIX_AXES);
FAMILY(gather_nd, "DxDx...[kCOUNT][@ITYPE] (COUNT tuples, default 3, into the first two dimensions)",
        "256x256x1024k32768", "7x5x9k4", build_gather_nd, ALL_TYPES, SUFFIX_K | SUFFIX_TYPE);
SCATTER_FAMILY(scatter_elements, "DxDx...[kCOUNT][@ITYPE][:AXIS] (updates of the input's shape, COUNT, default "
        "1, along AXIS, default the last; distinct indices)", "8192x8192k1024", "5x7x9k3:1", build_scatter_elements);
SCATTER_FAMILY(scatter_nd, "DxDx...[kCOUNT][@ITYPE] (COUNT blocks, default 3, at distinct coordinates into the "
        "first dimension)", "65536x1024k32768", "33x7k5", build_scatter_nd);
FAMILY(one_hot, "DxDx...[@ITYPE][:AXIS] (the output; AXIS, default the last, is the depth)", "32768x1024",
        "7x33", build_one_hot, ALL_TYPES, SUFFIX_TYPE | SUFFIX_AXES);
FAMILY(nonzero, "N or DxDx... (the input, 1 to 5 dimensions)", "16777216", "5x7x9", build_nonzero, ALL_TYPES, 0);
FAMILY(random_generator, "N or DxDx... (the output, 1 to 4 dimensions)", "67108864", "1001", build_random,
        1u << DML_TENSOR_DATA_TYPE_UINT32, 0);
FAMILY(diagonal, "DxDx... (the output; its last two dimensions the matrix)", "1x1x8192x8192", "1x2x7x33",
        build_diagonal, ALL_TYPES, 0);
FAMILY(value_scale, "NxCxHxW (C 1 or 3)", "32x3x224x224", "2x3x7x9", build_value_scale, FLOAT_TYPES, 0);
FAMILY(reverse, "DxDx...[@ITYPE][:AXIS] (sequences along AXIS, default the first)", "512x64x1024", "9x5x7",
        build_reverse, ALL_TYPES, SUFFIX_TYPE | SUFFIX_AXES);
#undef FAMILY
#undef SCATTER_FAMILY

static const struct
{
    const char *name;
    const struct family *family;
}
families[] =
{
    {"CAST", &cast}, {"JOIN", &join}, {"SPLIT", &split}, {"SLICE", &slice}, {"SLICE1", &slice},
    {"PADDING", &padding}, {"PADDING1", &padding}, {"TILE", &tile},
    {"SPACE_TO_DEPTH", &depth_space}, {"SPACE_TO_DEPTH1", &depth_space},
    {"DEPTH_TO_SPACE", &depth_space}, {"DEPTH_TO_SPACE1", &depth_space},
    {"GATHER", &gather}, {"GATHER_ELEMENTS", &gather_elements}, {"GATHER_ND", &gather_nd},
    {"GATHER_ND1", &gather_nd}, {"SCATTER_ELEMENTS", &scatter_elements}, {"SCATTER_ND", &scatter_nd},
    {"ONE_HOT", &one_hot}, {"NONZERO_COORDINATES", &nonzero}, {"RANDOM_GENERATOR", &random_generator},
    {"DIAGONAL_MATRIX", &diagonal}, {"DIAGONAL_MATRIX1", &diagonal}, {"VALUE_SCALE_2D", &value_scale},
    {"REVERSE_SUBSEQUENCES", &reverse},
};

const struct family *movement_family(const char *schema_name)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE(families); ++i)
    {
        if (!strcmp(families[i].name, schema_name))
            return families[i].family;
    }
    return NULL;
}

/* Movers: exact in every type, every output. */
#define MOVER(op, fn) {DML_OPERATOR_##op, fn, NULL, 0.0, true, true}
static const struct reference references[] =
{
    MOVER(CAST, reference_cast),
    MOVER(JOIN, reference_join),
    MOVER(SPLIT, reference_split),
    MOVER(SLICE, reference_slice),
    MOVER(SLICE1, reference_slice),
    MOVER(PADDING, reference_padding),
    MOVER(PADDING1, reference_padding),
    MOVER(TILE, reference_tile),
    MOVER(SPACE_TO_DEPTH, reference_depth_space),
    MOVER(SPACE_TO_DEPTH1, reference_depth_space),
    MOVER(DEPTH_TO_SPACE, reference_depth_space),
    MOVER(DEPTH_TO_SPACE1, reference_depth_space),
    MOVER(GATHER, reference_gather),
    MOVER(GATHER_ELEMENTS, reference_gather_elements),
    MOVER(GATHER_ND, reference_gather_nd),
    MOVER(GATHER_ND1, reference_gather_nd),
    MOVER(SCATTER_ELEMENTS, reference_scatter),
    MOVER(SCATTER_ND, reference_scatter),
    MOVER(ONE_HOT, reference_one_hot),
    MOVER(NONZERO_COORDINATES, reference_nonzero),
    MOVER(DIAGONAL_MATRIX, reference_diagonal),
    MOVER(DIAGONAL_MATRIX1, reference_diagonal),
    MOVER(REVERSE_SUBSEQUENCES, reference_reverse),
    {DML_OPERATOR_VALUE_SCALE_2D, reference_value_scale},
};
#undef MOVER

const struct reference *movement_reference(DML_OPERATOR_TYPE type)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE(references); ++i)
    {
        if (references[i].type == type)
            return &references[i];
    }
    return NULL;
}
