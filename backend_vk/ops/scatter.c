/*
 * The scatter family: DML_OPERATOR_SCATTER_ELEMENTS (= DML_OPERATOR_SCATTER, FL 2_0) and
 * DML_OPERATOR_SCATTER_ND (FL 2_1): output = input, then updates written at the indexed places,
 * by kernels_glsl/scatter.comp (scatter_interface.h has the dispatches).
 *
 * DirectML's rules (DML_SCATTER_OPERATOR_DESC, DML_SCATTER_ND_OPERATOR_DESC; the schema checks
 * types and equal ranks): the output has the input's sizes. ELEMENTS: Axis < DimensionCount; the
 * indices have the input's sizes except on Axis; the updates have the indices' sizes. ND: the
 * input's and the indices' real ranks (InputDimensionCount, IndicesDimensionCount) are 1 to
 * DimensionCount, their leading sizes beyond them 1; a tuple's k = IndicesTensor.Sizes[last]
 * coordinates are 1 to InputDimensionCount; the updates' sizes, right-aligned, are the indices'
 * batch sizes (all but the last) then the input's trailing InputDimensionCount - k sizes, leading
 * ones 1 (ONNX ScatterND). Signed indices may be negative (from the end, FL 3_0). What vkdml
 * decides where the pages leave it open (README, "Indices out of range" and "Scatter"): an index
 * out of range skips its update (or its slice); among updates sharing a target, the last in
 * row-major order wins.
 */

#include <string.h>

#include "ops_private.h"
#include "scatter_interface.h"

/* Both descs begin alike (DirectML.h). */
_Static_assert(offsetof(DML_SCATTER_OPERATOR_DESC, Axis) == offsetof(DML_SCATTER_ND_OPERATOR_DESC, InputDimensionCount),
        "scatter descs");

enum scatter_tensor
{
    SCATTER_INPUT,
    SCATTER_INDICES,
    SCATTER_UPDATES,
};

static bool is_nd(const struct vkdml_operator_view *op)
{
    return op->type == DML_OPERATOR_SCATTER_ND;
}

/* ---- Validation ---- */

static HRESULT validate_elements(const struct vkdml_operator_view *op)
{
    const DML_SCATTER_OPERATOR_DESC *desc = op->desc;
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[SCATTER_INPUT], *indices = op->inputs[SCATTER_INDICES];
    uint32_t i;
    HRESULT hr;

    if (FAILED(hr = vkdml_validate_axis(op, desc->Axis, input, "InputTensor")))
        return hr;
    for (i = 0; i < input->DimensionCount; ++i)
    {
        if (i != desc->Axis && indices->Sizes[i] != input->Sizes[i])
            return vkdml_op_error(op, E_INVALIDARG, "IndicesTensor.Sizes[%u]=%u must equal InputTensor.Sizes[%u]=%u "
                    "(all but Axis=%u).", i, indices->Sizes[i], i, input->Sizes[i], desc->Axis);
    }
    return vkdml_validate_same_sizes(op, op->inputs[SCATTER_UPDATES], "UpdatesTensor", indices, "IndicesTensor");
}

/* The leading sizes of `tensor` before its last `real_rank` dimensions are 1. */
static HRESULT validate_nd(const struct vkdml_operator_view *op)
{
    const DML_SCATTER_ND_OPERATOR_DESC *desc = op->desc;
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[SCATTER_INPUT], *indices = op->inputs[SCATTER_INDICES];
    const DML_BUFFER_TENSOR_DESC *updates = op->inputs[SCATTER_UPDATES];
    uint32_t rank = input->DimensionCount, tuple = indices->Sizes[rank - 1], batch, slice, i;
    UINT expected[VKDML_MAX_RANK];
    HRESULT hr;

    if (FAILED(hr = vkdml_validate_real_rank(op, input, "InputTensor", desc->InputDimensionCount, "InputDimensionCount")))
        return hr;
    if (FAILED(hr = vkdml_validate_real_rank(op, indices, "IndicesTensor", desc->IndicesDimensionCount,
            "IndicesDimensionCount")))
        return hr;
    if (tuple > desc->InputDimensionCount)
        return vkdml_op_error(op, E_INVALIDARG, "IndicesTensor.Sizes[%u]=%u (coordinates per index) must be at "
                "most InputDimensionCount=%u.", rank - 1, tuple, desc->InputDimensionCount);
    batch = desc->IndicesDimensionCount - 1;
    slice = desc->InputDimensionCount - tuple;
    if (batch + slice > rank)
        return vkdml_op_error(op, E_INVALIDARG, "UpdatesTensor needs %u dimensions (IndicesDimensionCount - 1 "
                "+ InputDimensionCount - %u), more than DimensionCount=%u.", batch + slice, tuple, rank);
    for (i = 0; i < rank; ++i)
        expected[i] = 1;
    for (i = 0; i < slice; ++i)
        expected[rank - slice + i] = input->Sizes[rank - slice + i];
    for (i = 0; i < batch; ++i)
        expected[rank - slice - batch + i] = indices->Sizes[rank - 1 - batch + i];
    for (i = 0; i < rank; ++i)
    {
        if (updates->Sizes[i] != expected[i])
            return vkdml_op_error(op, E_INVALIDARG, "UpdatesTensor.Sizes[%u]=%u must be %u (1s, the indices' %u "
                    "batch sizes, the input's last %u sizes).", i, updates->Sizes[i], expected[i], batch, slice);
    }
    return S_OK;
}

HRESULT vkdml_scatter_validate(struct vkdml_backend_device *device, const struct vkdml_operator_view *op)
{
    static const char *const names[] = {"InputTensor", "IndicesTensor", "UpdatesTensor"};
    HRESULT hr;
    uint32_t i;

    if (FAILED(hr = vkdml_validate_same_sizes(op, op->outputs[0], "OutputTensor", op->inputs[SCATTER_INPUT],
            "InputTensor")))
        return hr;
    if (FAILED(hr = is_nd(op) ? validate_nd(op) : validate_elements(op)))
        return hr;
    for (i = 0; i < ARRAY_SIZE(names); ++i)
    {
        if (FAILED(hr = vkdml_check_index_range(op, op->inputs[i], names[i])))
            return hr;
    }
    /* The kernel numbers candidates in 32 bits (+1 in the winner slots), broadcast updates too. */
    if (vkdml_tensor_element_count(op->inputs[SCATTER_UPDATES]) > INT32_MAX)
        return vkdml_op_error(op, E_NOTIMPL, "UpdatesTensor has more than 2^31 - 1 elements.");
    return vkdml_check_index_range(op, op->outputs[0], "OutputTensor");
}

/* ---- Compilation ---- */

/* Dispatch dimension of tensor dimension `dim` of a tensor of `rank` dimensions. */
static uint32_t kernel_dim(uint32_t rank, uint32_t dim)
{
    return SCATTER_MAX_RANK - rank + dim;
}

/* The row-major (logical) stride of dimension `dim` among dimensions [first, last). */
static uint32_t logical_stride(const UINT *sizes, uint32_t dim, uint32_t last)
{
    uint32_t stride = 1, i;

    for (i = dim + 1; i < last; ++i)
        stride *= sizes[i];
    return stride;
}

static uint32_t product(const UINT *sizes, uint32_t first, uint32_t last)
{
    uint32_t count = 1, i;

    for (i = first; i < last; ++i)
        count *= sizes[i];
    return count;
}

static void set_sizes(uint32_t spec[SCATTER_SPEC_COUNT], const UINT *sizes, uint32_t rank)
{
    uint32_t i;

    for (i = 0; i < SCATTER_MAX_RANK; ++i)
        spec[SCATTER_SPEC_SIZES + i] = 1;
    for (i = 0; i < rank; ++i)
        spec[SCATTER_SPEC_SIZES + kernel_dim(rank, i)] = sizes[i];
    spec[SCATTER_SPEC_COUNT_ELEMENTS] = product(sizes, 0, rank);
}

/* The indexed output dimension j of a tuple: output dimension `dim`, slot stride `slot_stride`. */
static void set_axis(uint32_t spec[SCATTER_SPEC_COUNT], uint32_t j, const DML_BUFFER_TENSOR_DESC *output,
        uint32_t dim, uint32_t slot_stride)
{
    spec[SCATTER_SPEC_AXIS_SIZES + j] = output->Sizes[dim];
    spec[SCATTER_SPEC_AXIS_OUT_STRIDES + j] = vkdml_tensor_stride(output, dim);
    spec[SCATTER_SPEC_AXIS_SLOT_STRIDES + j] = slot_stride;
}

/* ELEMENTS: one candidate per update element; its slot is its output element's logical index.
 * Returns the number of slots. */
static uint32_t elements_spec(const struct vkdml_compile *compile, uint32_t spec[SCATTER_SPEC_COUNT])
{
    const DML_SCATTER_OPERATOR_DESC *desc = compile->op->desc;
    const DML_BUFFER_TENSOR_DESC *indices = compile->op->inputs[SCATTER_INDICES];
    const DML_BUFFER_TENSOR_DESC *updates = compile->op->inputs[SCATTER_UPDATES], *output = compile->op->outputs[0];
    uint32_t rank = output->DimensionCount, i, k;

    set_sizes(spec, updates->Sizes, rank);
    for (i = 0; i < rank; ++i)
    {
        k = kernel_dim(rank, i);
        spec[SCATTER_SPEC_SOURCE_STRIDES + k] = vkdml_tensor_stride(updates, i);
        spec[SCATTER_SPEC_INDEX_STRIDES + k] = vkdml_tensor_stride(indices, i);
        spec[SCATTER_SPEC_CANDIDATE_STRIDES + k] = logical_stride(updates->Sizes, i, rank);
        if (i == desc->Axis)
            continue;
        spec[SCATTER_SPEC_OUT_STRIDES + k] = vkdml_tensor_stride(output, i);
        spec[SCATTER_SPEC_SLOT_STRIDES + k] = logical_stride(output->Sizes, i, rank);
    }
    spec[SCATTER_SPEC_TUPLE] = 1;
    set_axis(spec, 0, output, desc->Axis, logical_stride(output->Sizes, desc->Axis, rank));
    /* One index along Axis: every target has one candidate at most. */
    spec[SCATTER_SPEC_DEDUP] = indices->Sizes[desc->Axis] > 1;
    return product(output->Sizes, 0, rank);
}

/* Whether `tensor`'s last dimension is contiguous and every other element offset a multiple of
 * `vector` elements. */
static bool rows_of_vectors(const DML_BUFFER_TENSOR_DESC *tensor, uint32_t vector)
{
    uint32_t rank = tensor->DimensionCount, i;

    if (vkdml_tensor_stride(tensor, rank - 1) != 1 || tensor->Sizes[rank - 1] % vector)
        return false;
    for (i = 0; i + 1 < rank; ++i)
    {
        if (tensor->Sizes[i] != 1 && vkdml_tensor_stride(tensor, i) % vector)
            return false;
    }
    return true;
}

/* ND's WRITE: the elements per invocation, 16 bytes of a slice row where the rows of the updates
 * and the output allow (the last dimension is a slice dimension), else 1. */
static uint32_t row_vector(const DML_BUFFER_TENSOR_DESC *updates, const DML_BUFFER_TENSOR_DESC *output)
{
    uint32_t vector = 16 / vkdml_element_size(output->DataType);

    return rows_of_vectors(updates, vector) && rows_of_vectors(output, vector) ? vector : 1;
}

/* ND: one candidate per index tuple (with its slice); its slot is its target's logical index
 * among the indexed dimensions. Returns the number of slots. */
static uint32_t nd_spec(const struct vkdml_compile *compile, uint32_t spec[SCATTER_SPEC_COUNT])
{
    const DML_SCATTER_ND_OPERATOR_DESC *desc = compile->op->desc;
    const DML_BUFFER_TENSOR_DESC *indices = compile->op->inputs[SCATTER_INDICES];
    const DML_BUFFER_TENSOR_DESC *updates = compile->op->inputs[SCATTER_UPDATES], *output = compile->op->outputs[0];
    uint32_t rank = output->DimensionCount, tuple = indices->Sizes[rank - 1];
    uint32_t batch = desc->IndicesDimensionCount - 1, slice = desc->InputDimensionCount - tuple;
    uint32_t first_indexed = rank - desc->InputDimensionCount, i, k;

    set_sizes(spec, updates->Sizes, rank);
    for (i = 0; i < rank; ++i)
    {
        k = kernel_dim(rank, i);
        spec[SCATTER_SPEC_SOURCE_STRIDES + k] = vkdml_tensor_stride(updates, i);
        if (i >= rank - slice)
        {
            /* A slice dimension: the output's dimension of the same number. */
            spec[SCATTER_SPEC_OUT_STRIDES + k] = vkdml_tensor_stride(output, i);
        }
        else if (i >= rank - slice - batch)
        {
            /* A batch dimension: the indices' dimension that holds it. */
            spec[SCATTER_SPEC_INDEX_STRIDES + k] = vkdml_tensor_stride(indices, i + slice - 1);
            spec[SCATTER_SPEC_CANDIDATE_STRIDES + k] = logical_stride(updates->Sizes, i, rank - slice);
        }
    }
    spec[SCATTER_SPEC_TUPLE] = tuple;
    spec[SCATTER_SPEC_TUPLE_STRIDE] = vkdml_tensor_stride(indices, rank - 1);
    for (i = 0; i < tuple; ++i)
        set_axis(spec, i, output, first_indexed + i, logical_stride(output->Sizes, first_indexed + i,
                first_indexed + tuple));
    spec[SCATTER_SPEC_DEDUP] = product(updates->Sizes, 0, rank - slice) > 1;
    spec[SCATTER_SPEC_VECTOR] = slice ? row_vector(updates, output) : 1;
    return product(output->Sizes, first_indexed, first_indexed + tuple);
}

static HRESULT add_dispatch(struct vkdml_compile *compile, enum vkdml_kernel_id kernel, const uint32_t *spec,
        bool barrier_before)
{
    uint64_t invocations;
    uint32_t groups[3];
    HRESULT hr;

    invocations = vkdml_div_up(spec[SCATTER_SPEC_COUNT_ELEMENTS], spec[SCATTER_SPEC_VECTOR]);
    if (FAILED(hr = vkdml_spread_groups(compile, vkdml_div_up(invocations, SCATTER_THREADS), groups)))
        return hr;
    return vkdml_compile_add_dispatch(compile, kernel, spec, SCATTER_SPEC_COUNT, NULL, 0, groups, barrier_before);
}

/* The candidates' passes (CLEAR, CLAIM) run over the candidates: ND's slice dimensions size 1. */
static void candidate_sizes(const struct vkdml_compile *compile, uint32_t spec[SCATTER_SPEC_COUNT])
{
    const DML_SCATTER_ND_OPERATOR_DESC *desc = compile->op->desc;
    const DML_BUFFER_TENSOR_DESC *updates = compile->op->inputs[SCATTER_UPDATES];
    uint32_t rank = updates->DimensionCount, slice, i;

    if (!is_nd(compile->op))
        return;
    slice = desc->InputDimensionCount - compile->op->inputs[SCATTER_INDICES]->Sizes[rank - 1];
    for (i = rank - slice; i < rank; ++i)
        spec[SCATTER_SPEC_SIZES + kernel_dim(rank, i)] = 1;
    spec[SCATTER_SPEC_COUNT_ELEMENTS] = product(updates->Sizes, 0, rank - slice);
}

HRESULT vkdml_scatter_compile(struct vkdml_compile *compile)
{
    DML_TENSOR_DATA_TYPE type = compile->op->outputs[0]->DataType;
    const DML_BUFFER_TENSOR_DESC *input = compile->op->inputs[SCATTER_INPUT], *output = compile->op->outputs[0];
    uint32_t spec[SCATTER_SPEC_COUNT] = {0}, pass[SCATTER_SPEC_COUNT];
    struct vkdml_strided_copy copy;
    struct vkdml_tensor_location winners = {compile->temporary_slot};
    enum vkdml_kernel_id kernel;
    uint32_t slots;
    HRESULT hr;

    if (!vkdml_find_kernel_variant(&compile->vk->caps, "scatter", NULL, vkdml_move_kernel_features(type), &kernel))
        return vkdml_op_error(compile->op, E_NOTIMPL, "no scatter.comp variant holds %s tensors on this device.",
                debugstr_data_type(type));
    /* output = input first; the updates overwrite it after a barrier. */
    vkdml_strided_copy_init(&copy, output, input, &compile->inputs[SCATTER_INPUT], output, &compile->outputs[0]);
    if (FAILED(hr = vkdml_copy_add_dispatches(compile, &copy)))
        return hr;
    spec[SCATTER_SPEC_TYPE] = type;     /* TIO_TYPE_* are DML's values */
    spec[SCATTER_SPEC_VECTOR] = 1;

    spec[SCATTER_SPEC_MODE] = SCATTER_MODE_WRITE;
    spec[SCATTER_SPEC_INDEX_TYPE] = compile->op->inputs[SCATTER_INDICES]->DataType;
    slots = is_nd(compile->op) ? nd_spec(compile, spec) : elements_spec(compile, spec);
    vkdml_set_location(&spec[SCATTER_SPEC_SOURCE_LOCATION], &compile->inputs[SCATTER_UPDATES]);
    vkdml_set_location(&spec[SCATTER_SPEC_INDEX_LOCATION], &compile->inputs[SCATTER_INDICES]);
    vkdml_set_location(&spec[SCATTER_SPEC_OUT_LOCATION], &compile->outputs[0]);
    if (spec[SCATTER_SPEC_DEDUP])
    {
        /* The winner slots go after what the temporary resource already holds. */
        winners.offset = VKDML_ALIGN_UP(compile->temporary_size, 256);
        compile->temporary_size = winners.offset + (uint64_t)slots * sizeof(uint32_t);
        vkdml_set_location(&spec[SCATTER_SPEC_SLOT_LOCATION], &winners);
        memcpy(pass, spec, sizeof(pass));
        candidate_sizes(compile, pass);
        pass[SCATTER_SPEC_VECTOR] = 1;
        pass[SCATTER_SPEC_MODE] = SCATTER_MODE_CLEAR;
        /* CLEAR touches only the temporary resource: it runs beside the copy. */
        if (FAILED(hr = add_dispatch(compile, kernel, pass, false)))
            return hr;
        pass[SCATTER_SPEC_MODE] = SCATTER_MODE_CLAIM;
        if (FAILED(hr = add_dispatch(compile, kernel, pass, true)))
            return hr;
    }
    return add_dispatch(compile, kernel, spec, true);
}
