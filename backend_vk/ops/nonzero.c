/*
 * DML_OPERATOR_NONZERO_COORDINATES (FL 3_0): the count of nonzero input elements, and their
 * coordinates in row-major order, by three dispatches of kernels_glsl/nonzero.comp
 * (nonzero_interface.h).
 *
 * DirectML's rules (DML_NONZERO_COORDINATES_OPERATOR_DESC; the schema checks the types):
 * OutputCountTensor has all sizes 1; OutputCoordinatesTensor is {1, ..., 1, M, N} with M the
 * input's element count and N from the input's effective rank (without leading sizes of 1) to
 * its DimensionCount: a row holds the input's last N coordinates. -0.0 is zero. Rows past the
 * count are left unwritten (README, "NONZERO_COORDINATES": the page leaves them undefined).
 */

#include <inttypes.h>

#include "ops_private.h"
#include "nonzero_interface.h"

enum nonzero_output
{
    NONZERO_OUTPUT_COUNT,
    NONZERO_OUTPUT_COORDINATES,
};

/* ---- Validation ---- */

static uint32_t effective_rank(const DML_BUFFER_TENSOR_DESC *tensor)
{
    uint32_t i;

    for (i = 0; i < tensor->DimensionCount && tensor->Sizes[i] == 1; ++i)
        ;
    return tensor->DimensionCount - i;
}

static HRESULT validate_coordinates(const struct vkdml_operator_view *op)
{
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[0], *coordinates = op->outputs[NONZERO_OUTPUT_COORDINATES];
    uint32_t rank = coordinates->DimensionCount, i, columns;
    uint64_t elements = vkdml_tensor_element_count(input);

    for (i = 0; i < rank - 2; ++i)
    {
        if (coordinates->Sizes[i] != 1)
            return vkdml_op_error(op, E_INVALIDARG, "OutputCoordinatesTensor.Sizes[%u]=%u must be 1 (all but the "
                    "last two).", i, coordinates->Sizes[i]);
    }
    if (coordinates->Sizes[rank - 2] != elements)
        return vkdml_op_error(op, E_INVALIDARG, "OutputCoordinatesTensor.Sizes[%u]=%u must be the input's element "
                "count %" PRIu64 ".", rank - 2, coordinates->Sizes[rank - 2], elements);
    columns = coordinates->Sizes[rank - 1];
    if (columns < effective_rank(input) || columns > input->DimensionCount)
        return vkdml_op_error(op, E_INVALIDARG, "OutputCoordinatesTensor.Sizes[%u]=%u must be from the input's "
                "effective rank %u to its DimensionCount=%u.", rank - 1, columns, effective_rank(input),
                input->DimensionCount);
    return S_OK;
}

HRESULT vkdml_nonzero_validate(struct vkdml_backend_device *device, const struct vkdml_operator_view *op)
{
    const DML_BUFFER_TENSOR_DESC *count = op->outputs[NONZERO_OUTPUT_COUNT];
    uint32_t i;
    HRESULT hr;

    for (i = 0; i < count->DimensionCount; ++i)
    {
        if (count->Sizes[i] != 1)
            return vkdml_op_error(op, E_INVALIDARG, "OutputCountTensor.Sizes[%u]=%u must be 1.", i, count->Sizes[i]);
    }
    if (FAILED(hr = validate_coordinates(op)))
        return hr;
    if (FAILED(hr = vkdml_check_subgroup_reductions(device, op)))
        return hr;
    if (FAILED(hr = vkdml_check_index_range(op, op->inputs[0], "InputTensor")))
        return hr;
    return vkdml_check_index_range(op, op->outputs[NONZERO_OUTPUT_COORDINATES], "OutputCoordinatesTensor");
}

/* ---- Compilation ---- */

/* A block's elements: enough blocks to fill a big GPU, at most NONZERO_MAX_BLOCKS (one SCAN
 * workgroup), at least two chunks each. */
#define NONZERO_MIN_BLOCK (2 * NONZERO_CHUNK)

static uint32_t block_elements(uint32_t elements)
{
    uint64_t block = vkdml_div_up(elements, NONZERO_MAX_BLOCKS);

    block = VKDML_ALIGN_UP(block, NONZERO_CHUNK);
    return (uint32_t)(block < NONZERO_MIN_BLOCK ? NONZERO_MIN_BLOCK : block);
}

static void fill_spec(const struct vkdml_compile *compile, uint32_t spec[NONZERO_SPEC_COUNT])
{
    const DML_BUFFER_TENSOR_DESC *input = compile->op->inputs[0];
    const DML_BUFFER_TENSOR_DESC *coordinates = compile->op->outputs[NONZERO_OUTPUT_COORDINATES];
    uint32_t rank = input->DimensionCount, first = NONZERO_MAX_RANK - rank, packed_stride = 1, i;
    bool packed = true;

    for (i = 0; i < NONZERO_MAX_RANK; ++i)
        spec[NONZERO_SPEC_SIZES + i] = 1;
    for (i = rank; i-- > 0;)
    {
        uint32_t stride = vkdml_tensor_stride(input, i);

        spec[NONZERO_SPEC_SIZES + first + i] = input->Sizes[i];
        spec[NONZERO_SPEC_STRIDES + first + i] = stride;
        packed = packed && (input->Sizes[i] == 1 || stride == packed_stride);
        packed_stride *= input->Sizes[i];
    }
    spec[NONZERO_SPEC_TYPE] = input->DataType;      /* TIO_TYPE_* are DML's values (tensor_io.glsl) */
    spec[NONZERO_SPEC_PACKED] = packed;
    spec[NONZERO_SPEC_COUNT_ELEMENTS] = (uint32_t)vkdml_tensor_element_count(input);
    spec[NONZERO_SPEC_BLOCK] = block_elements(spec[NONZERO_SPEC_COUNT_ELEMENTS]);
    spec[NONZERO_SPEC_BLOCKS] = vkdml_div_up(spec[NONZERO_SPEC_COUNT_ELEMENTS], spec[NONZERO_SPEC_BLOCK]);
    spec[NONZERO_SPEC_COORDINATES] = coordinates->Sizes[coordinates->DimensionCount - 1];
    spec[NONZERO_SPEC_ROW_STRIDE] = vkdml_tensor_stride(coordinates, coordinates->DimensionCount - 2);
    spec[NONZERO_SPEC_COLUMN_STRIDE] = vkdml_tensor_stride(coordinates, coordinates->DimensionCount - 1);
    vkdml_set_location(&spec[NONZERO_SPEC_IN_LOCATION], &compile->inputs[0]);
    vkdml_set_location(&spec[NONZERO_SPEC_COUNT_LOCATION], &compile->outputs[NONZERO_OUTPUT_COUNT]);
    vkdml_set_location(&spec[NONZERO_SPEC_COORDINATES_LOCATION], &compile->outputs[NONZERO_OUTPUT_COORDINATES]);
}

HRESULT vkdml_nonzero_compile(struct vkdml_compile *compile)
{
    DML_TENSOR_DATA_TYPE type = compile->op->inputs[0]->DataType;
    struct vkdml_tensor_location blocks = {compile->temporary_slot};
    uint32_t spec[NONZERO_SPEC_COUNT] = {0}, groups[3], one[3] = {1, 1, 1};
    enum vkdml_kernel_id kernel;
    HRESULT hr;

    if (!vkdml_find_kernel_variant(&compile->vk->caps, "nonzero", NULL, vkdml_type_kernel_features(type, false),
            &kernel))
        return vkdml_op_error(compile->op, E_NOTIMPL, "no nonzero.comp variant holds %s tensors on this device.",
                debugstr_data_type(type));
    fill_spec(compile, spec);
    /* The blocks' counts go after what the temporary resource already holds. */
    blocks.offset = VKDML_ALIGN_UP(compile->temporary_size, 256);
    compile->temporary_size = blocks.offset + (uint64_t)spec[NONZERO_SPEC_BLOCKS] * sizeof(uint32_t);
    vkdml_set_location(&spec[NONZERO_SPEC_BLOCKS_LOCATION], &blocks);
    if (FAILED(hr = vkdml_spread_groups(compile, spec[NONZERO_SPEC_BLOCKS], groups)))
        return hr;
    spec[NONZERO_SPEC_MODE] = NONZERO_MODE_COUNT;
    if (FAILED(hr = vkdml_compile_add_dispatch(compile, kernel, spec, NONZERO_SPEC_COUNT, NULL, 0, groups, false)))
        return hr;
    spec[NONZERO_SPEC_MODE] = NONZERO_MODE_SCAN;
    if (FAILED(hr = vkdml_compile_add_dispatch(compile, kernel, spec, NONZERO_SPEC_COUNT, NULL, 0, one, true)))
        return hr;
    spec[NONZERO_SPEC_MODE] = NONZERO_MODE_WRITE;
    return vkdml_compile_add_dispatch(compile, kernel, spec, NONZERO_SPEC_COUNT, NULL, 0, groups, true);
}
