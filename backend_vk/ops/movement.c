/*
 * The movement family (SLICE, SLICE1, SPLIT, JOIN, PADDING, PADDING1, TILE, SPACE_TO_DEPTH(1),
 * DEPTH_TO_SPACE(1)) and the strided-copy service every pure data-movement operator uses
 * (vkdml_copy_add_dispatches(), ops_private.h). Each operator is one or more strided copies
 * (struct vkdml_strided_copy): SPLIT one per output, JOIN one per input into its slab of the
 * output, the depth/space pair one rank-6 permutation, PADDING and TILE with bounded source
 * dimensions. The service merges dimensions and picks kernels_glsl/movement.comp's path
 * (movement_interface.h); the copies of one operator are independent dispatches.
 *
 * Bits are moved, never converted (all 11 types; 64-bit elements as word pairs). Where
 * DirectML's pages leave room, README "Data movement" has the decisions.
 */

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "ops_private.h"
#include "movement_interface.h"

_Static_assert(VKDML_COPY_BOUNDS_CONSTANT == MOVEMENT_MODE_CONSTANT
        && VKDML_COPY_BOUNDS_EDGE == MOVEMENT_MODE_EDGE && VKDML_COPY_BOUNDS_REFLECTION == MOVEMENT_MODE_REFLECTION
        && VKDML_COPY_BOUNDS_SYMMETRIC == MOVEMENT_MODE_SYMMETRIC && VKDML_COPY_BOUNDS_WRAP == MOVEMENT_MODE_WRAP,
        "copy bounds");
_Static_assert(MOVEMENT_MAX_RANK == VKDML_MAX_RANK, "copy rank");

/* ---- The strided-copy service ---- */

enum copy_path
{
    COPY_PATH_ELEMENTS = MOVEMENT_PATH_ELEMENTS,    /* one destination element per invocation */
    COPY_PATH_ROWS = MOVEMENT_PATH_ROWS,            /* contiguous rows, 16 bytes per invocation */
    COPY_PATH_CHUNKS = MOVEMENT_PATH_CHUNKS,        /* a packed destination, 16 bytes per invocation */
    COPY_PATH_GATHER_ROWS = MOVEMENT_PATH_GATHER_ROWS,  /* contiguous destination rows, 16 bytes per invocation */
};

static const char *const copy_path_names[] = {"elements", "rows", "chunks", "gathered rows"};

static bool dimension_bounded(const struct vkdml_strided_copy *copy, uint32_t i)
{
    if (copy->bounds_mode == VKDML_COPY_BOUNDS_NONE || !copy->source_bounds[i])
        return false;
    /* Every coordinate inside the source range: a plain dimension. */
    return copy->bound_starts[i] || copy->sizes[i] > copy->source_bounds[i];
}

/* `copy` with unbounded size-1 dimensions dropped and neighbours merged where both sides'
 * strides allow (the element order is unchanged); rank at least 1. */
static void normalize_copy(const struct vkdml_strided_copy *copy, struct vkdml_strided_copy *shape)
{
    uint32_t i, r;

    *shape = *copy;
    shape->rank = 0;
    for (i = 0; i < copy->rank; ++i)
    {
        bool bounded = dimension_bounded(copy, i);

        if (copy->sizes[i] == 1 && !bounded)
            continue;
        r = shape->rank;
        if (r && !bounded && !dimension_bounded(shape, r - 1)
                && (int64_t)shape->source_strides[r - 1] == (int64_t)copy->source_strides[i] * copy->sizes[i]
                && (int64_t)shape->destination_strides[r - 1]
                        == (int64_t)copy->destination_strides[i] * copy->sizes[i])
        {
            shape->sizes[r - 1] *= copy->sizes[i];
            shape->source_strides[r - 1] = copy->source_strides[i];
            shape->destination_strides[r - 1] = copy->destination_strides[i];
            continue;
        }
        shape->sizes[r] = copy->sizes[i];
        shape->source_strides[r] = copy->source_strides[i];
        shape->destination_strides[r] = copy->destination_strides[i];
        shape->source_bounds[r] = bounded ? copy->source_bounds[i] : 0;
        shape->bound_starts[r] = bounded ? copy->bound_starts[i] : 0;
        ++shape->rank;
    }
    for (i = 0; i < shape->rank && !shape->source_bounds[i]; ++i)
        ;
    if (i == shape->rank)
        shape->bounds_mode = VKDML_COPY_BOUNDS_NONE;
    if (!shape->rank)
    {
        shape->rank = 1;
        shape->sizes[0] = 1;
        shape->source_strides[0] = shape->destination_strides[0] = 1;
        shape->source_bounds[0] = shape->bound_starts[0] = 0;
    }
}

static bool destination_packed(const struct vkdml_strided_copy *shape)
{
    int64_t stride = 1;
    uint32_t i;

    for (i = shape->rank; i-- > 0; stride *= shape->sizes[i])
    {
        if (shape->destination_strides[i] != stride)
            return false;
    }
    return true;
}

/* The kernel for a normalized copy. Rows where the innermost dimension is contiguous on both
 * sides, unbounded and at least one 16-byte chunk long; else 16-byte chunks of a packed
 * destination; else gathered rows where the destination's rows are contiguous and that long;
 * else element by element. (vkdml_copy_add_dispatches() tries the tiled transpose first.) */
static enum copy_path choose_path(const struct vkdml_strided_copy *shape)
{
    uint32_t last = shape->rank - 1;
    bool long_rows = shape->sizes[last] >= 16 / vkdml_element_size(shape->type);

    if (shape->source_strides[last] == 1 && shape->destination_strides[last] == 1 && !shape->source_bounds[last]
            && long_rows)
        return COPY_PATH_ROWS;
    if (destination_packed(shape))
        return COPY_PATH_CHUNKS;
    if (shape->destination_strides[last] == 1 && long_rows)
        return COPY_PATH_GATHER_ROWS;
    return COPY_PATH_ELEMENTS;
}

/* The locations and, for CONSTANT, 8 bytes of the element's bits repeated (the kernel stores
 * any part of it). */
static void fill_push(const struct vkdml_strided_copy *shape, struct movement_push *push)
{
    unsigned int size = vkdml_element_size(shape->type), i;
    uint64_t bits = 0, element = shape->constant_bits;

    memset(push, 0, sizeof(*push));
    if (size < 8)
        element &= ((uint64_t)1 << (8 * size)) - 1;
    for (i = 0; i < 8; i += size)
        bits |= element << (8 * i);
    push->value[0] = (uint32_t)bits;
    push->value[1] = (uint32_t)(bits >> 32);
    vkdml_set_location(push->source, &shape->source);
    vkdml_set_location(push->destination, &shape->destination);
    /* Below 2^31 elements (vkdml_check_index_range): 32-bit offsets are exact. */
    push->source[3] = (uint32_t)shape->source_first;
    push->destination[3] = (uint32_t)shape->destination_first;
}

/* Dimension i of the copy is kernel dimension MOVEMENT_MAX_RANK - rank + i; leading ones have
 * size 1. */
static void fill_spec(const struct vkdml_strided_copy *shape, enum copy_path path, uint64_t invocations,
        uint32_t spec[MOVEMENT_SPEC_COUNT])
{
    uint32_t first = MOVEMENT_MAX_RANK - shape->rank, i, chunk = 16 / vkdml_element_size(shape->type);

    for (i = 0; i < MOVEMENT_MAX_RANK; ++i)
        spec[MOVEMENT_SPEC_SIZES + i] = 1;
    for (i = 0; i < shape->rank; ++i)
    {
        spec[MOVEMENT_SPEC_SIZES + first + i] = shape->sizes[i];
        spec[MOVEMENT_SPEC_SOURCE_STRIDES + first + i] = (uint32_t)shape->source_strides[i];
        spec[MOVEMENT_SPEC_DESTINATION_STRIDES + first + i] = (uint32_t)shape->destination_strides[i];
        spec[MOVEMENT_SPEC_BOUND_SIZES + first + i] = shape->source_bounds[i];
        spec[MOVEMENT_SPEC_BOUND_STARTS + first + i] = shape->bound_starts[i];
    }
    spec[MOVEMENT_SPEC_ELEMENT_SIZE] = vkdml_element_size(shape->type);
    spec[MOVEMENT_SPEC_PATH] = path;
    spec[MOVEMENT_SPEC_MODE] = shape->bounds_mode;
    spec[MOVEMENT_SPEC_INVOCATIONS] = (uint32_t)invocations;
    spec[MOVEMENT_SPEC_ROW_CHUNKS] = path == COPY_PATH_ROWS || path == COPY_PATH_GATHER_ROWS
            ? (uint32_t)vkdml_div_up(shape->sizes[shape->rank - 1], chunk) : 1;
}

HRESULT vkdml_copy_add_dispatches(struct vkdml_compile *compile, const struct vkdml_strided_copy *copy)
{
    uint32_t spec[MOVEMENT_SPEC_COUNT] = {0}, groups[3], chunk = 16 / vkdml_element_size(copy->type), i;
    struct vkdml_strided_copy shape;
    struct movement_push push;
    enum vkdml_kernel_id kernel;
    uint64_t invocations = 1;
    enum copy_path path;
    HRESULT hr;

    /* Transposed innermost dimensions: tiles through shared memory (docs/kernels.md). */
    if (copy->bounds_mode == VKDML_COPY_BOUNDS_NONE && (hr = vkdml_transpose_add_dispatch(compile, copy)) != S_FALSE)
        return hr;
    if (!vkdml_find_kernel_variant(&compile->vk->caps, "movement", NULL, vkdml_move_kernel_features(copy->type),
            &kernel))
        return vkdml_op_error(compile->op, E_NOTIMPL, "no movement.comp variant holds %s tensors on this device.",
                debugstr_data_type(copy->type));
    normalize_copy(copy, &shape);
    path = choose_path(&shape);
    for (i = 0; i < shape.rank; ++i)
        invocations *= shape.sizes[i];
    if (path == COPY_PATH_ROWS || path == COPY_PATH_GATHER_ROWS)
        invocations = invocations / shape.sizes[shape.rank - 1] * vkdml_div_up(shape.sizes[shape.rank - 1], chunk);
    else if (path == COPY_PATH_CHUNKS)
        invocations = vkdml_div_up(invocations, chunk);
    TRACE("Strided copy: %s, rank %u, %" PRIu64 " invocations, %u-byte elements, bounds %u.",
            copy_path_names[path], shape.rank, invocations, vkdml_element_size(shape.type), shape.bounds_mode);
    fill_spec(&shape, path, invocations, spec);
    fill_push(&shape, &push);
    if (FAILED(hr = vkdml_spread_groups(compile, vkdml_div_up(invocations, MOVEMENT_THREADS), groups)))
        return hr;
    return vkdml_compile_add_dispatch(compile, kernel, spec, MOVEMENT_SPEC_COUNT, &push, sizeof(push), groups,
            false);
}

/* ---- Validation helpers ---- */

static HRESULT check_dimension_count(const struct vkdml_operator_view *op, const char *field, UINT count, UINT rank)
{
    if (count != rank)
        return vkdml_op_error(op, E_INVALIDARG, "%s=%u must equal the tensors' DimensionCount=%u.", field, count,
                rank);
    return S_OK;
}

/* `tensor` (named `name`) has `reference`'s sizes except along `axis`; its size there is added
 * to `*sum`. */
static HRESULT check_slab(const struct vkdml_operator_view *op, const DML_BUFFER_TENSOR_DESC *tensor,
        const char *name, UINT index, const DML_BUFFER_TENSOR_DESC *reference, const char *reference_name,
        UINT axis, uint64_t *sum)
{
    UINT i;

    for (i = 0; i < reference->DimensionCount; ++i)
    {
        if (i != axis && tensor->Sizes[i] != reference->Sizes[i])
            return vkdml_op_error(op, E_INVALIDARG, "%s[%u].Sizes[%u]=%u must equal %s.Sizes[%u]=%u (Axis=%u).",
                    name, index, i, tensor->Sizes[i], reference_name, i, reference->Sizes[i], axis);
    }
    *sum += tensor->Sizes[axis];
    return S_OK;
}

static HRESULT check_slab_sum(const struct vkdml_operator_view *op, const char *name, uint64_t sum,
        const DML_BUFFER_TENSOR_DESC *whole, const char *whole_name, UINT axis)
{
    if (sum != whole->Sizes[axis])
        return vkdml_op_error(op, E_INVALIDARG, "the %s sizes along Axis=%u add up to %" PRIu64
                ", not %s.Sizes[%u]=%u.", name, axis, sum, whole_name, axis, whole->Sizes[axis]);
    return S_OK;
}

static HRESULT check_tensors_range(const struct vkdml_operator_view *op)
{
    HRESULT hr;
    UINT i;

    for (i = 0; i < op->input_count; ++i)
    {
        if (op->inputs[i] && FAILED(hr = vkdml_check_index_range(op, op->inputs[i], "InputTensor")))
            return hr;
    }
    for (i = 0; i < op->output_count; ++i)
    {
        if (FAILED(hr = vkdml_check_index_range(op, op->outputs[i], "OutputTensor")))
            return hr;
    }
    return S_OK;
}

/* ---- Per operator: validation ---- */

static HRESULT validate_slice(const struct vkdml_operator_view *op)
{
    const DML_SLICE_OPERATOR_DESC *desc = op->desc;
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[0], *output = op->outputs[0];
    HRESULT hr;
    UINT i;

    if (FAILED(hr = check_dimension_count(op, "DimensionCount", desc->DimensionCount, input->DimensionCount)))
        return hr;
    for (i = 0; i < desc->DimensionCount; ++i)
    {
        if (desc->Sizes[i] != output->Sizes[i])
            return vkdml_op_error(op, E_INVALIDARG, "Sizes[%u]=%u must equal OutputTensor.Sizes[%u]=%u.", i,
                    desc->Sizes[i], i, output->Sizes[i]);
        if (!desc->Strides[i])
            return vkdml_op_error(op, E_INVALIDARG, "Strides[%u] must not be 0.", i);
        if ((uint64_t)desc->Offsets[i] + (uint64_t)(desc->Sizes[i] - 1) * desc->Strides[i] >= input->Sizes[i])
            return vkdml_op_error(op, E_INVALIDARG, "Offsets[%u]=%u + (Sizes[%u]=%u - 1) * Strides[%u]=%u reads "
                    "past InputTensor.Sizes[%u]=%u.", i, desc->Offsets[i], i, desc->Sizes[i], i, desc->Strides[i],
                    i, input->Sizes[i]);
    }
    return S_OK;
}

static uint32_t magnitude(INT value)
{
    return value < 0 ? 0u - (uint32_t)value : (uint32_t)value;
}

static HRESULT validate_slice1(const struct vkdml_operator_view *op)
{
    const DML_SLICE1_OPERATOR_DESC *desc = op->desc;
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[0], *output = op->outputs[0];
    uint32_t maximum;
    HRESULT hr;
    UINT i;

    if (FAILED(hr = check_dimension_count(op, "DimensionCount", desc->DimensionCount, input->DimensionCount)))
        return hr;
    for (i = 0; i < desc->DimensionCount; ++i)
    {
        if (!desc->InputWindowSizes[i] || !desc->InputWindowStrides[i])
            return vkdml_op_error(op, E_INVALIDARG, "InputWindowSizes[%u]=%u and InputWindowStrides[%u]=%d must "
                    "not be 0.", i, desc->InputWindowSizes[i], i, desc->InputWindowStrides[i]);
        if ((uint64_t)desc->InputWindowOffsets[i] + desc->InputWindowSizes[i] > input->Sizes[i])
            return vkdml_op_error(op, E_INVALIDARG, "the window InputWindowOffsets[%u]=%u + InputWindowSizes[%u]=%u "
                    "extends past InputTensor.Sizes[%u]=%u.", i, desc->InputWindowOffsets[i], i,
                    desc->InputWindowSizes[i], i, input->Sizes[i]);
        maximum = 1 + (desc->InputWindowSizes[i] - 1) / magnitude(desc->InputWindowStrides[i]);
        if (output->Sizes[i] > maximum)
            return vkdml_op_error(op, E_INVALIDARG, "OutputTensor.Sizes[%u]=%u exceeds the %u elements the window "
                    "holds at stride %d.", i, output->Sizes[i], maximum, desc->InputWindowStrides[i]);
    }
    return S_OK;
}

static HRESULT validate_split(const struct vkdml_operator_view *op)
{
    const DML_SPLIT_OPERATOR_DESC *desc = op->desc;
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[0];
    uint64_t sum = 0;
    HRESULT hr;
    UINT i;

    if (!desc->OutputCount || desc->OutputCount != op->output_count)
        return vkdml_op_error(op, E_INVALIDARG, "OutputCount=%u must be at least 1 and count the %u output tensors.",
                desc->OutputCount, op->output_count);
    if (FAILED(hr = vkdml_validate_axis(op, desc->Axis, input, "InputTensor")))
        return hr;
    for (i = 0; i < op->output_count; ++i)
    {
        if (FAILED(hr = check_slab(op, op->outputs[i], "OutputTensors", i, input, "InputTensor", desc->Axis, &sum)))
            return hr;
    }
    return check_slab_sum(op, "OutputTensors", sum, input, "InputTensor", desc->Axis);
}

static HRESULT validate_join(const struct vkdml_operator_view *op)
{
    const DML_JOIN_OPERATOR_DESC *desc = op->desc;
    const DML_BUFFER_TENSOR_DESC *output = op->outputs[0];
    uint64_t sum = 0;
    HRESULT hr;
    UINT i;

    if (!desc->InputCount || desc->InputCount != op->input_count)
        return vkdml_op_error(op, E_INVALIDARG, "InputCount=%u must be at least 1 and count the %u input tensors.",
                desc->InputCount, op->input_count);
    if (FAILED(hr = vkdml_validate_axis(op, desc->Axis, output, "OutputTensor")))
        return hr;
    for (i = 0; i < op->input_count; ++i)
    {
        if (FAILED(hr = check_slab(op, op->inputs[i], "InputTensors", i, output, "OutputTensor", desc->Axis, &sum)))
            return hr;
    }
    return check_slab_sum(op, "InputTensors", sum, output, "OutputTensor", desc->Axis);
}

/* PADDING and PADDING1's common fields. */
struct padding_view
{
    DML_PADDING_MODE mode;
    UINT dimension_count;
    const UINT *start, *end;
};

static void get_padding(const struct vkdml_operator_view *op, struct padding_view *padding)
{
    if (op->type == DML_OPERATOR_PADDING)
    {
        const DML_PADDING_OPERATOR_DESC *desc = op->desc;

        padding->mode = desc->PaddingMode;
        padding->dimension_count = desc->DimensionCount;
        padding->start = desc->StartPadding;
        padding->end = desc->EndPadding;
    }
    else
    {
        const DML_PADDING1_OPERATOR_DESC *desc = op->desc;

        padding->mode = desc->PaddingMode;
        padding->dimension_count = desc->DimensionCount;
        padding->start = desc->StartPadding;
        padding->end = desc->EndPadding;
    }
}

static HRESULT validate_padding(const struct vkdml_operator_view *op)
{
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[0], *output = op->outputs[0];
    struct padding_view padding;
    HRESULT hr;
    UINT i;

    get_padding(op, &padding);
    if (op->type == DML_OPERATOR_PADDING1)
    {
        const DML_PADDING1_OPERATOR_DESC *desc = op->desc;

        if (desc->PaddingValueDataType != output->DataType)
            return vkdml_op_error(op, E_INVALIDARG, "PaddingValueDataType=%s must equal OutputTensor.DataType=%s.",
                    debugstr_data_type(desc->PaddingValueDataType), debugstr_data_type(output->DataType));
    }
    if (FAILED(hr = check_dimension_count(op, "DimensionCount", padding.dimension_count, input->DimensionCount)))
        return hr;
    for (i = 0; i < padding.dimension_count; ++i)
    {
        if ((uint64_t)input->Sizes[i] + padding.start[i] + padding.end[i] != output->Sizes[i])
            return vkdml_op_error(op, E_INVALIDARG, "OutputTensor.Sizes[%u]=%u must be InputTensor.Sizes[%u]=%u + "
                    "StartPadding[%u]=%u + EndPadding[%u]=%u.", i, output->Sizes[i], i, input->Sizes[i], i,
                    padding.start[i], i, padding.end[i]);
    }
    return S_OK;
}

static HRESULT validate_tile(const struct vkdml_operator_view *op)
{
    const DML_TILE_OPERATOR_DESC *desc = op->desc;
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[0], *output = op->outputs[0];
    HRESULT hr;
    UINT i;

    if (FAILED(hr = check_dimension_count(op, "RepeatsCount", desc->RepeatsCount, input->DimensionCount)))
        return hr;
    for (i = 0; i < desc->RepeatsCount; ++i)
    {
        if ((uint64_t)input->Sizes[i] * desc->Repeats[i] != output->Sizes[i])
            return vkdml_op_error(op, E_INVALIDARG, "OutputTensor.Sizes[%u]=%u must be InputTensor.Sizes[%u]=%u * "
                    "Repeats[%u]=%u.", i, output->Sizes[i], i, input->Sizes[i], i, desc->Repeats[i]);
    }
    return S_OK;
}

/* The depth/space descs: BlockSize first, then (the `1` forms) Order. */
static void get_block(const struct vkdml_operator_view *op, UINT *block, DML_DEPTH_SPACE_ORDER *order)
{
    const DML_DEPTH_TO_SPACE1_OPERATOR_DESC *desc = op->desc;

    *block = desc->BlockSize;
    /* The first forms are DEPTH_COLUMN_ROW (README, "Data movement"). */
    *order = op->type == DML_OPERATOR_DEPTH_TO_SPACE1 || op->type == DML_OPERATOR_SPACE_TO_DEPTH1
            ? desc->Order : DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW;
}

_Static_assert(offsetof(DML_DEPTH_TO_SPACE_OPERATOR_DESC, BlockSize)
        == offsetof(DML_DEPTH_TO_SPACE1_OPERATOR_DESC, BlockSize), "depth/space descs");
_Static_assert(offsetof(DML_SPACE_TO_DEPTH_OPERATOR_DESC, BlockSize)
        == offsetof(DML_DEPTH_TO_SPACE1_OPERATOR_DESC, BlockSize), "depth/space descs");
_Static_assert(offsetof(DML_SPACE_TO_DEPTH1_OPERATOR_DESC, Order)
        == offsetof(DML_DEPTH_TO_SPACE1_OPERATOR_DESC, Order), "depth/space descs");

static bool is_depth_to_space(const struct vkdml_operator_view *op)
{
    return op->type == DML_OPERATOR_DEPTH_TO_SPACE || op->type == DML_OPERATOR_DEPTH_TO_SPACE1;
}

static HRESULT validate_depth_space(const struct vkdml_operator_view *op)
{
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[0], *output = op->outputs[0];
    /* depth: [N, C * b * b, H, W]; space: [N, C, H * b, W * b] */
    const DML_BUFFER_TENSOR_DESC *depth = is_depth_to_space(op) ? input : output;
    const DML_BUFFER_TENSOR_DESC *space = is_depth_to_space(op) ? output : input;
    DML_DEPTH_SPACE_ORDER order;
    uint64_t area;
    UINT block;

    get_block(op, &block, &order);
    if (!block)
        return vkdml_op_error(op, E_INVALIDARG, "BlockSize must not be 0.");
    area = (uint64_t)block * block;
    if (depth->Sizes[0] != space->Sizes[0] || depth->Sizes[1] != space->Sizes[1] * area
            || space->Sizes[2] != (uint64_t)depth->Sizes[2] * block
            || space->Sizes[3] != (uint64_t)depth->Sizes[3] * block)
        return vkdml_op_error(op, E_INVALIDARG, "with BlockSize=%u, the depth tensor {%u,%u,%u,%u} must be the space "
                "tensor {%u,%u,%u,%u} as [N, C * %" PRIu64 ", H / %u, W / %u].", block, depth->Sizes[0],
                depth->Sizes[1], depth->Sizes[2], depth->Sizes[3], space->Sizes[0], space->Sizes[1], space->Sizes[2],
                space->Sizes[3], area, block, block);
    return S_OK;
}

HRESULT vkdml_movement_validate(struct vkdml_backend_device *device, const struct vkdml_operator_view *op)
{
    HRESULT hr;

    switch (op->type)
    {
        case DML_OPERATOR_SLICE: hr = validate_slice(op); break;
        case DML_OPERATOR_SLICE1: hr = validate_slice1(op); break;
        case DML_OPERATOR_SPLIT: hr = validate_split(op); break;
        case DML_OPERATOR_JOIN: hr = validate_join(op); break;
        case DML_OPERATOR_PADDING:
        case DML_OPERATOR_PADDING1: hr = validate_padding(op); break;
        case DML_OPERATOR_TILE: hr = validate_tile(op); break;
        default: hr = validate_depth_space(op); break;
    }
    if (FAILED(hr))
        return hr;
    return check_tensors_range(op);
}

/* ---- Per operator: the copies ---- */

void vkdml_strided_copy_init(struct vkdml_strided_copy *copy, const DML_BUFFER_TENSOR_DESC *sizes,
        const DML_BUFFER_TENSOR_DESC *source, const struct vkdml_tensor_location *source_location,
        const DML_BUFFER_TENSOR_DESC *destination, const struct vkdml_tensor_location *destination_location)
{
    UINT i;

    memset(copy, 0, sizeof(*copy));
    copy->type = destination->DataType;
    copy->rank = sizes->DimensionCount;
    copy->source = *source_location;
    copy->destination = *destination_location;
    for (i = 0; i < copy->rank; ++i)
    {
        copy->sizes[i] = sizes->Sizes[i];
        copy->source_strides[i] = (int32_t)vkdml_tensor_stride(source, i);
        copy->destination_strides[i] = (int32_t)vkdml_tensor_stride(destination, i);
    }
}

static HRESULT compile_slice(struct vkdml_compile *compile)
{
    const struct vkdml_operator_view *op = compile->op;
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[0];
    struct vkdml_strided_copy copy;
    UINT i;

    vkdml_strided_copy_init(&copy, op->outputs[0], input, &compile->inputs[0], op->outputs[0], &compile->outputs[0]);
    for (i = 0; i < copy.rank; ++i)
    {
        uint32_t stride = vkdml_tensor_stride(input, i), offset;
        int32_t step;

        if (op->type == DML_OPERATOR_SLICE)
        {
            const DML_SLICE_OPERATOR_DESC *desc = op->desc;

            offset = desc->Offsets[i];
            step = (int32_t)desc->Strides[i];
        }
        else
        {
            const DML_SLICE1_OPERATOR_DESC *desc = op->desc;

            step = desc->InputWindowStrides[i];
            /* A negative stride starts at the window's end. */
            offset = desc->InputWindowOffsets[i] + (step < 0 ? desc->InputWindowSizes[i] - 1 : 0);
        }
        copy.source_first += (uint64_t)offset * stride;
        copy.source_strides[i] = step * (int32_t)stride;
    }
    return vkdml_copy_add_dispatches(compile, &copy);
}

/* SPLIT (`whole` the input) or JOIN (the output): one copy per part, into or out of its slab. */
static HRESULT compile_parts(struct vkdml_compile *compile, UINT axis)
{
    const struct vkdml_operator_view *op = compile->op;
    bool split = op->type == DML_OPERATOR_SPLIT;
    const DML_BUFFER_TENSOR_DESC *whole = split ? op->inputs[0] : op->outputs[0];
    uint64_t slab = 0, axis_stride = vkdml_tensor_stride(whole, axis);
    UINT count = split ? op->output_count : op->input_count, i;
    struct vkdml_strided_copy copy;
    HRESULT hr;

    for (i = 0; i < count; ++i)
    {
        if (split)
        {
            vkdml_strided_copy_init(&copy, op->outputs[i], whole, &compile->inputs[0], op->outputs[i],
                    &compile->outputs[i]);
            copy.source_first = slab * axis_stride;
            slab += op->outputs[i]->Sizes[axis];
        }
        else
        {
            vkdml_strided_copy_init(&copy, op->inputs[i], op->inputs[i], &compile->inputs[i], whole,
                    &compile->outputs[0]);
            copy.destination_first = slab * axis_stride;
            slab += op->inputs[i]->Sizes[axis];
        }
        if (FAILED(hr = vkdml_copy_add_dispatches(compile, &copy)))
            return hr;
    }
    return S_OK;
}

/* A float as an integer type's bits: rounded toward zero, saturated, NaN as 0 (README, "Data
 * movement"). */
static uint64_t float_to_integer_bits(float value, DML_TENSOR_DATA_TYPE type)
{
    unsigned int bits = vkdml_element_size(type) * 8;
    bool is_signed = type == DML_TENSOR_DATA_TYPE_INT8 || type == DML_TENSOR_DATA_TYPE_INT16
            || type == DML_TENSOR_DATA_TYPE_INT32 || type == DML_TENSOR_DATA_TYPE_INT64;
    double truncated = trunc((double)value), low, high;

    if (isnan(value))
        return 0;
    low = is_signed ? -ldexp(1.0, bits - 1) : 0.0;
    high = is_signed ? ldexp(1.0, bits - 1) : ldexp(1.0, bits);
    if (truncated <= low)
        return is_signed ? (uint64_t)1 << (bits - 1) : 0;
    if (truncated >= high)
        return is_signed ? ((uint64_t)1 << (bits - 1)) - 1 : (bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1);
    return is_signed ? (uint64_t)(int64_t)truncated : (uint64_t)truncated;
}

/* IEEE binary16 of a float, rounded to nearest even (NaN stays NaN, quiet). */
static uint16_t float_to_half(float value)
{
    uint32_t bits, magnitude, sign, half, rest;

    memcpy(&bits, &value, sizeof(bits));
    sign = (bits >> 16) & 0x8000;
    magnitude = bits & 0x7fffffff;
    if (magnitude > 0x7f800000)
        return (uint16_t)(sign | 0x7e00 | ((magnitude >> 13) & 0x3ff));
    if (magnitude >= 0x477ff000)        /* 65520 and above round to infinity */
        return (uint16_t)(sign | 0x7c00);
    if (magnitude < 0x38800000)         /* below 2^-14: subnormal, exactly scaled then rounded */
        return (uint16_t)(sign | (uint32_t)lrintf(fabsf(value) * 16777216.0f));
    half = (magnitude - 0x38000000) >> 13;
    rest = magnitude & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
        ++half;
    return (uint16_t)(sign | half);
}

/* PADDING's float PaddingValue as the output type's bits (README, "Data movement"). */
static uint64_t padding_value_bits(float value, DML_TENSOR_DATA_TYPE type)
{
    double wide = value;
    uint64_t bits = 0;

    switch (type)
    {
        case DML_TENSOR_DATA_TYPE_FLOAT32:
            memcpy(&bits, &value, sizeof(value));
            return bits;
        case DML_TENSOR_DATA_TYPE_FLOAT16:
            return float_to_half(value);
        case DML_TENSOR_DATA_TYPE_FLOAT64:
            memcpy(&bits, &wide, sizeof(wide));
            return bits;
        default:
            return float_to_integer_bits(value, type);
    }
}

static HRESULT compile_padding(struct vkdml_compile *compile)
{
    const struct vkdml_operator_view *op = compile->op;
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[0], *output = op->outputs[0];
    struct vkdml_strided_copy copy;
    struct padding_view padding;
    UINT i;

    get_padding(op, &padding);
    vkdml_strided_copy_init(&copy, output, input, &compile->inputs[0], output, &compile->outputs[0]);
    copy.bounds_mode = VKDML_COPY_BOUNDS_CONSTANT + (padding.mode - DML_PADDING_MODE_CONSTANT);
    for (i = 0; i < copy.rank; ++i)
    {
        copy.source_bounds[i] = input->Sizes[i];
        copy.bound_starts[i] = padding.start[i];
    }
    if (op->type == DML_OPERATOR_PADDING)
    {
        copy.constant_bits = padding_value_bits(((const DML_PADDING_OPERATOR_DESC *)op->desc)->PaddingValue,
                output->DataType);
    }
    else
    {
        const DML_PADDING1_OPERATOR_DESC *desc = op->desc;

        memcpy(&copy.constant_bits, desc->PaddingValue.Bytes, vkdml_element_size(output->DataType));
    }
    return vkdml_copy_add_dispatches(compile, &copy);
}

/* Output dimension i = Repeats[i] copies of the input's: split into (repeats, size) with a
 * 0-stride source for the repeats (a plain copy the row path takes) while the rank allows,
 * innermost first; the remaining repeated dimensions wrap. */
static HRESULT compile_tile(struct vkdml_compile *compile)
{
    const struct vkdml_operator_view *op = compile->op;
    const DML_TILE_OPERATOR_DESC *desc = op->desc;
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[0], *output = op->outputs[0];
    struct vkdml_strided_copy copy;
    bool split[VKDML_MAX_RANK] = {false};
    UINT rank = input->DimensionCount, extra = 0, i, r;

    for (i = rank; i-- > 0;)
    {
        if (desc->Repeats[i] > 1 && input->Sizes[i] > 1 && rank + extra < VKDML_MAX_RANK)
            split[i] = true, ++extra;
    }
    memset(&copy, 0, sizeof(copy));
    copy.type = output->DataType;
    copy.source = compile->inputs[0];
    copy.destination = compile->outputs[0];
    for (i = 0, r = 0; i < rank; ++i)
    {
        int32_t source_stride = (int32_t)vkdml_tensor_stride(input, i);
        int32_t destination_stride = (int32_t)vkdml_tensor_stride(output, i);

        if (split[i])
        {
            copy.sizes[r] = desc->Repeats[i];
            copy.source_strides[r] = 0;
            copy.destination_strides[r++] = destination_stride * (int32_t)input->Sizes[i];
            copy.sizes[r] = input->Sizes[i];
        }
        else
        {
            copy.sizes[r] = output->Sizes[i];
            /* A size-1 input dimension repeats through its 0 stride. */
            if (input->Sizes[i] == 1)
                source_stride = 0;
            else if (desc->Repeats[i] > 1)
                copy.source_bounds[r] = input->Sizes[i];
        }
        copy.source_strides[r] = source_stride;
        copy.destination_strides[r++] = destination_stride;
    }
    copy.rank = r;
    copy.bounds_mode = VKDML_COPY_BOUNDS_WRAP;
    return vkdml_copy_add_dispatches(compile, &copy);
}

/* One rank-6 copy in the destination's order (coalesced stores). With the depth tensor
 * [N, D, H, W] and the space tensor [N, C, H * b, W * b] (D = C * b * b), depth channel d holds
 * (by, bx, c) as d = (by * b + bx) * C + c (DEPTH_COLUMN_ROW, ONNX's DCR) or
 * d = (c * b + by) * b + bx (COLUMN_ROW_DEPTH, CRD), and goes to space element
 * [n, c, h * b + by, w * b + bx]. */
static HRESULT compile_depth_space(struct vkdml_compile *compile)
{
    const struct vkdml_operator_view *op = compile->op;
    bool to_space = is_depth_to_space(op);
    const DML_BUFFER_TENSOR_DESC *depth = to_space ? op->inputs[0] : op->outputs[0];
    const DML_BUFFER_TENSOR_DESC *space = to_space ? op->outputs[0] : op->inputs[0];
    int32_t d[4], s[4], by_depth, bx_depth, c_depth;
    struct vkdml_strided_copy copy;
    DML_DEPTH_SPACE_ORDER order;
    UINT block, channels, i;

    get_block(op, &block, &order);
    channels = space->Sizes[1];
    for (i = 0; i < 4; ++i)
    {
        d[i] = (int32_t)vkdml_tensor_stride(depth, i);
        s[i] = (int32_t)vkdml_tensor_stride(space, i);
    }
    if (order == DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW)
    {
        by_depth = d[1] * (int32_t)(block * channels);
        bx_depth = d[1] * (int32_t)channels;
        c_depth = d[1];
    }
    else
    {
        by_depth = d[1] * (int32_t)block;
        bx_depth = d[1];
        c_depth = d[1] * (int32_t)(block * block);
    }
    memset(&copy, 0, sizeof(copy));
    copy.type = op->outputs[0]->DataType;
    copy.rank = 6;
    copy.source = compile->inputs[0];
    copy.destination = compile->outputs[0];
    {
        /* Dimensions (n, c, h, by, w, bx): the space tensor's order. */
        const uint32_t sizes[6] = {space->Sizes[0], channels, depth->Sizes[2], block, depth->Sizes[3], block};
        const int32_t space_strides[6] = {s[0], s[1], s[2] * (int32_t)block, s[2], s[3] * (int32_t)block, s[3]};
        const int32_t depth_strides[6] = {d[0], c_depth, d[2], by_depth, d[3], bx_depth};
        /* The depth tensor's order: DCR (n, by, bx, c, h, w), CRD (n, c, by, bx, h, w). */
        static const uint32_t dcr[6] = {0, 3, 5, 1, 2, 4}, crd[6] = {0, 1, 3, 5, 2, 4};
        const uint32_t *permutation = order == DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW ? dcr : crd;

        for (i = 0; i < 6; ++i)
        {
            uint32_t k = to_space ? i : permutation[i];

            copy.sizes[i] = sizes[k];
            copy.source_strides[i] = to_space ? depth_strides[k] : space_strides[k];
            copy.destination_strides[i] = to_space ? space_strides[k] : depth_strides[k];
        }
    }
    return vkdml_copy_add_dispatches(compile, &copy);
}

HRESULT vkdml_movement_compile(struct vkdml_compile *compile)
{
    switch (compile->op->type)
    {
        case DML_OPERATOR_SLICE:
        case DML_OPERATOR_SLICE1:
            return compile_slice(compile);
        case DML_OPERATOR_SPLIT:
            return compile_parts(compile, ((const DML_SPLIT_OPERATOR_DESC *)compile->op->desc)->Axis);
        case DML_OPERATOR_JOIN:
            return compile_parts(compile, ((const DML_JOIN_OPERATOR_DESC *)compile->op->desc)->Axis);
        case DML_OPERATOR_PADDING:
        case DML_OPERATOR_PADDING1:
            return compile_padding(compile);
        case DML_OPERATOR_TILE:
            return compile_tile(compile);
        default:
            return compile_depth_space(compile);
    }
}
