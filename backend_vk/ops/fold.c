/*
 * The FOLD / UNFOLD family (DML_OPERATOR_FOLD, col2im, and DML_OPERATOR_UNFOLD, im2col, FL 6_4):
 * DirectML's rules, and one dispatch of kernels_glsl/fold.comp (fold_interface.h).
 *
 * DirectML's rules (DML_FOLD_OPERATOR_DESC, DML_UNFOLD_OPERATOR_DESC): the image tensor (FOLD's
 * output, UNFOLD's input) is {N, C, S0, ..}, with DimensionCount (1 to 6) spatial dimensions;
 * the columns tensor (FOLD's input, UNFOLD's output) is {N, C x prod(WindowSizes), BlockCount}.
 * BlockCount is the product over d of
 *   (S[d] + StartPadding[d] + EndPadding[d] - Dilations[d] * (WindowSizes[d] - 1) - 1) / Strides[d] + 1.
 * The docs' examples give the columns tensor 3 dimensions while their constraints say both
 * tensors have one DimensionCount; both are accepted: extra leading dimensions of the columns
 * tensor must be 1. The docs list no data types: FLOAT32, FLOAT16, INT32 and UINT32 are
 * implemented (FOLD sums integers with wrap-around).
 */

#include <inttypes.h>
#include <stddef.h>
#include <string.h>

#include "ops_private.h"
#include "fold_interface.h"

/* Both descs have the same layout (DirectML.h): UNFOLD's is read as a DML_FOLD_OPERATOR_DESC. */
_Static_assert(sizeof(DML_FOLD_OPERATOR_DESC) == sizeof(DML_UNFOLD_OPERATOR_DESC), "FOLD and UNFOLD descs");
_Static_assert(offsetof(DML_FOLD_OPERATOR_DESC, EndPadding) == offsetof(DML_UNFOLD_OPERATOR_DESC, EndPadding),
        "FOLD and UNFOLD descs");

/* The two tensors by role; `image_name` / `columns_name` name the desc fields they are. */
struct fold_tensors
{
    bool fold;
    const DML_BUFFER_TENSOR_DESC *image, *columns;
    const char *image_name, *columns_name;
};

static struct fold_tensors fold_tensors(const struct vkdml_operator_view *op)
{
    struct fold_tensors t;

    t.fold = op->type == DML_OPERATOR_FOLD;
    t.image = t.fold ? op->outputs[0] : op->inputs[0];
    t.columns = t.fold ? op->inputs[0] : op->outputs[0];
    t.image_name = t.fold ? "OutputTensor" : "InputTensor";
    t.columns_name = t.fold ? "InputTensor" : "OutputTensor";
    return t;
}

/* Blocks along spatial dimension `i`; 0 when the dilated window does not fit. */
static uint64_t blocks_along(const DML_FOLD_OPERATOR_DESC *desc, uint32_t size, unsigned int i)
{
    return vkdml_window_positions(size, desc->StartPadding[i], desc->EndPadding[i], desc->WindowSizes[i],
            desc->Dilations[i], desc->Strides[i]);
}

/* ---- Validation ---- */

static HRESULT validate_attributes(const struct vkdml_operator_view *op, const DML_FOLD_OPERATOR_DESC *desc)
{
    unsigned int i;

    if (desc->DimensionCount < 1 || desc->DimensionCount > FOLD_MAX_SPATIAL)
        return vkdml_op_error(op, E_INVALIDARG, "DimensionCount=%u must be 1 to %u.", desc->DimensionCount,
                FOLD_MAX_SPATIAL);
    for (i = 0; i < desc->DimensionCount; ++i)
    {
        if (!desc->WindowSizes[i])
            return vkdml_op_error(op, E_INVALIDARG, "WindowSizes[%u]=0 must be at least 1.", i);
        if (!desc->Strides[i])
            return vkdml_op_error(op, E_INVALIDARG, "Strides[%u]=0 must be at least 1.", i);
        if (!desc->Dilations[i])
            return vkdml_op_error(op, E_INVALIDARG, "Dilations[%u]=0 must be at least 1.", i);
    }
    return S_OK;
}

static HRESULT validate_ranks(const struct vkdml_operator_view *op, const struct fold_tensors *t)
{
    uint32_t rank = t->columns->DimensionCount, i;

    /* DimensionCount = the image's rank - 2 is the generic layer's rule (the schema's array_lengths). */
    if (rank < 3)
        return vkdml_op_error(op, E_INVALIDARG, "%s.DimensionCount=%u must be at least 3 ({N, C x "
                "prod(WindowSizes), BlockCount}).", t->columns_name, rank);
    for (i = 0; i + 3 < rank; ++i)
    {
        if (t->columns->Sizes[i] != 1)
            return vkdml_op_error(op, E_INVALIDARG, "%s.Sizes[%u]=%u must be 1 (only the last 3 dimensions, {N, "
                    "C x prod(WindowSizes), BlockCount}, may exceed 1).", t->columns_name, i, t->columns->Sizes[i]);
    }
    return S_OK;
}

static HRESULT validate_sizes(const struct vkdml_operator_view *op, const DML_FOLD_OPERATOR_DESC *desc,
        const struct fold_tensors *t)
{
    uint32_t rank = t->columns->DimensionCount, i;
    uint64_t window_volume = 1, block_count = 1, blocks;

    for (i = 0; i < desc->DimensionCount; ++i)
    {
        if (!(blocks = blocks_along(desc, t->image->Sizes[i + 2], i)))
            return vkdml_op_error(op, E_INVALIDARG, "%s.Sizes[%u]=%u + StartPadding[%u]=%u + EndPadding[%u]=%u must "
                    "be at least the dilated window Dilations[%u]=%u * (WindowSizes[%u]=%u - 1) + 1.", t->image_name,
                    i + 2, t->image->Sizes[i + 2], i, desc->StartPadding[i], i, desc->EndPadding[i], i,
                    desc->Dilations[i], i, desc->WindowSizes[i]);
        window_volume *= desc->WindowSizes[i];
        block_count *= blocks;
    }
    if (t->columns->Sizes[rank - 3] != t->image->Sizes[0])
        return vkdml_op_error(op, E_INVALIDARG, "%s.Sizes[%u]=%u must equal %s.Sizes[0]=%u (batch).", t->columns_name,
                rank - 3, t->columns->Sizes[rank - 3], t->image_name, t->image->Sizes[0]);
    if (t->columns->Sizes[rank - 2] != t->image->Sizes[1] * window_volume)
        return vkdml_op_error(op, E_INVALIDARG, "%s.Sizes[%u]=%u must equal %s.Sizes[1]=%u * prod(WindowSizes)=%"
                PRIu64 " (a row per channel and window position).", t->columns_name, rank - 2,
                t->columns->Sizes[rank - 2], t->image_name, t->image->Sizes[1], window_volume);
    if (t->columns->Sizes[rank - 1] != block_count)
        return vkdml_op_error(op, E_INVALIDARG, "%s.Sizes[%u]=%u must equal the block count %" PRIu64 " (the product "
                "over dimensions of (size + StartPadding + EndPadding - dilated window) / Strides + 1).",
                t->columns_name, rank - 1, t->columns->Sizes[rank - 1], block_count);
    return S_OK;
}

/* DirectML's page lists no data types (the schema records none, so the generic check lets every
 * type through; it checks that the tensors share one): the others are not implemented. */
static HRESULT validate_implemented_type(const struct vkdml_operator_view *op)
{
    DML_TENSOR_DATA_TYPE type = op->inputs[0]->DataType;

    if (!(VKDML_FOLD_DATA_TYPES & (1u << type)))
        return vkdml_op_error(op, E_NOTIMPL, "InputTensor.DataType=%s is not implemented (FLOAT32, FLOAT16, INT32 "
                "and UINT32 are).", debugstr_data_type(type));
    return S_OK;
}

/* The kernel indexes elements and coordinates with 32-bit signed arithmetic. */
static HRESULT validate_index_range(const struct vkdml_operator_view *op, const DML_FOLD_OPERATOR_DESC *desc)
{
    const DML_BUFFER_TENSOR_DESC *image = fold_tensors(op).image;
    unsigned int i;
    HRESULT hr;

    if (FAILED(hr = vkdml_check_index_range(op, op->inputs[0], "InputTensor"))
            || FAILED(hr = vkdml_check_index_range(op, op->outputs[0], "OutputTensor")))
        return hr;
    for (i = 0; i < desc->DimensionCount; ++i)
    {
        if ((uint64_t)desc->StartPadding[i] + desc->EndPadding[i] + (uint64_t)desc->Dilations[i] * desc->WindowSizes[i]
                + image->Sizes[i + 2] > INT32_MAX)
            return vkdml_op_error(op, E_NOTIMPL, "spatial dimension %u exceeds 2^31 padded positions.", i);
    }
    return S_OK;
}

HRESULT vkdml_fold_validate(struct vkdml_backend_device *device, const struct vkdml_operator_view *op)
{
    const DML_FOLD_OPERATOR_DESC *desc = op->desc;
    struct fold_tensors t = fold_tensors(op);
    HRESULT hr;

    if (FAILED(hr = validate_attributes(op, desc)))
        return hr;
    if (FAILED(hr = validate_ranks(op, &t)))
        return hr;
    if (FAILED(hr = validate_sizes(op, desc, &t)))
        return hr;
    if (FAILED(hr = validate_implemented_type(op)))
        return hr;
    return validate_index_range(op, desc);
}

/* ---- Compilation ---- */

/* Desc dimension i is kernel dimension FOLD_MAX_SPATIAL - DimensionCount + i; the leading ones
 * keep the neutral values set here. */
static void fill_spatial_spec(const DML_FOLD_OPERATOR_DESC *desc, const struct fold_tensors *t,
        uint32_t spec[FOLD_SPEC_COUNT])
{
    uint32_t first = FOLD_MAX_SPATIAL - desc->DimensionCount, i, d;

    for (d = 0; d < FOLD_MAX_SPATIAL; ++d)
    {
        spec[FOLD_SPEC_IMAGE_SIZES + d] = spec[FOLD_SPEC_WINDOW + d] = spec[FOLD_SPEC_STRIDES + d] = 1;
        spec[FOLD_SPEC_DILATIONS + d] = spec[FOLD_SPEC_BLOCKS + d] = 1;
    }
    for (i = 0; i < desc->DimensionCount; ++i)
    {
        d = first + i;
        spec[FOLD_SPEC_IMAGE_SIZES + d] = t->image->Sizes[i + 2];
        spec[FOLD_SPEC_IMAGE_STRIDES + 2 + d] = vkdml_tensor_stride(t->image, i + 2);
        spec[FOLD_SPEC_WINDOW + d] = desc->WindowSizes[i];
        spec[FOLD_SPEC_STRIDES + d] = desc->Strides[i];
        spec[FOLD_SPEC_DILATIONS + d] = desc->Dilations[i];
        spec[FOLD_SPEC_START_PADDING + d] = desc->StartPadding[i];
        spec[FOLD_SPEC_BLOCKS + d] = (uint32_t)blocks_along(desc, t->image->Sizes[i + 2], i);
    }
}

static void fill_spec(const struct vkdml_compile *compile, uint32_t spec[FOLD_SPEC_COUNT])
{
    const DML_FOLD_OPERATOR_DESC *desc = compile->op->desc;
    struct fold_tensors t = fold_tensors(compile->op);
    uint32_t rank = t.columns->DimensionCount;

    spec[FOLD_SPEC_FOLD] = t.fold;
    spec[FOLD_SPEC_BATCH] = t.image->Sizes[0];
    spec[FOLD_SPEC_CHANNELS] = t.image->Sizes[1];
    spec[FOLD_SPEC_IMAGE_STRIDES + 0] = vkdml_tensor_stride(t.image, 0);
    spec[FOLD_SPEC_IMAGE_STRIDES + 1] = vkdml_tensor_stride(t.image, 1);
    spec[FOLD_SPEC_COLUMN_STRIDES + 0] = vkdml_tensor_stride(t.columns, rank - 3);
    spec[FOLD_SPEC_COLUMN_STRIDES + 1] = vkdml_tensor_stride(t.columns, rank - 2);
    spec[FOLD_SPEC_COLUMN_STRIDES + 2] = vkdml_tensor_stride(t.columns, rank - 1);
    fill_spatial_spec(desc, &t, spec);
    vkdml_set_location(&spec[FOLD_SPEC_IN_LOCATION], &compile->inputs[0]);
    vkdml_set_location(&spec[FOLD_SPEC_OUT_LOCATION], &compile->outputs[0]);
}

static enum vkdml_kernel_id choose_kernel(DML_TENSOR_DATA_TYPE type)
{
    switch (type)
    {
        case DML_TENSOR_DATA_TYPE_FLOAT16:
            return VKDML_KERNEL_FOLD_F16;
        case DML_TENSOR_DATA_TYPE_INT32:
        case DML_TENSOR_DATA_TYPE_UINT32:
            return VKDML_KERNEL_FOLD_U32;
        default:
            return VKDML_KERNEL_FOLD_F32;
    }
}

/* One thread per output element. */
static HRESULT output_groups(const struct vkdml_compile *compile, uint32_t groups[3])
{
    const DML_BUFFER_TENSOR_DESC *output = compile->op->outputs[0];
    uint64_t count = 1;
    uint32_t i;

    for (i = 0; i < output->DimensionCount; ++i)
        count *= output->Sizes[i];
    return vkdml_spread_groups(compile, (count + FOLD_THREADS - 1) / FOLD_THREADS, groups);
}

HRESULT vkdml_fold_compile(struct vkdml_compile *compile)
{
    uint32_t spec[FOLD_SPEC_COUNT] = {0}, groups[3];
    HRESULT hr;

    fill_spec(compile, spec);
    if (FAILED(hr = output_groups(compile, groups)))
        return hr;
    return vkdml_compile_add_dispatch(compile, choose_kernel(compile->op->inputs[0]->DataType), spec, FOLD_SPEC_COUNT,
            NULL, 0, groups, false);
}
