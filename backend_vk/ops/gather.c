/*
 * The gather family: DML_OPERATOR_GATHER, GATHER_ELEMENTS, GATHER_ND, GATHER_ND1 and ONE_HOT, one
 * dispatch of kernels_glsl/gather.comp each (gather_interface.h).
 *
 * Each operator is first described as a list of "source dimensions" in output order (DirectML's
 * output-shape rule: GATHER's input dimensions around Axis with the last IndexDimensions of the
 * indices between; GATHER_ND's leading index dimensions and the input's trailing ones), each with
 * its size and its input and index strides, plus the index tuple (the input dimensions the
 * indices select). The list is right-aligned on the output: extra leading dimensions must have
 * size 1, missing ones count as 1 (DirectML's pages). Leading dimensions outside
 * InputDimensionCount and IndicesDimensionCount must be 1 (vkdml_validate_real_rank); those
 * outside GATHER's IndexDimensions are read at coordinate 0. Signed indices may be negative (from the end, FL 3_0); indices out of range zero the output
 * element (ONE_HOT: OffValue) and are never used to form an address (README, "Indices out of
 * range").
 */

#include <string.h>

#include "ops_private.h"
#include "gather_interface.h"

/* Unrolled dispatches keep at least this many workgroups: 2 per core of a 132-core GPU. */
#define GATHER_MIN_GROUPS 264
#define GATHER_UNROLL_BYTES 32

/* The operator on the output's dimensions (gather_interface.h), index 0 outermost. */
struct gather_layout
{
    uint32_t rank;
    uint32_t sizes[GATHER_MAX_RANK];
    uint32_t out_strides[GATHER_MAX_RANK], in_strides[GATHER_MAX_RANK], index_strides[GATHER_MAX_RANK];
    uint32_t tuple, tuple_sizes[GATHER_MAX_RANK], tuple_in_strides[GATHER_MAX_RANK], tuple_index_stride;
    uint32_t one_hot_axis, on_offset;
};

/* A dimension of the output before right alignment. */
struct source_dim
{
    uint32_t size, in_stride, index_stride;
};

struct source_dims
{
    uint32_t count;
    struct source_dim dims[2 * VKDML_MAX_RANK];
};

static void add_dim(struct source_dims *list, uint32_t size, uint32_t in_stride, uint32_t index_stride)
{
    struct source_dim *dim = &list->dims[list->count++];

    dim->size = size;
    dim->in_stride = in_stride;
    dim->index_stride = index_stride;
}

static void set_single_index(struct gather_layout *layout, const DML_BUFFER_TENSOR_DESC *input, uint32_t axis)
{
    layout->tuple = 1;
    layout->tuple_sizes[0] = input->Sizes[axis];
    layout->tuple_in_strides[0] = vkdml_tensor_stride(input, axis);
}

/* GATHER: input dimensions before Axis, the last IndexDimensions of the indices, input
 * dimensions after Axis. */
static HRESULT describe_gather(const struct vkdml_operator_view *op, struct source_dims *list,
        struct gather_layout *layout)
{
    const DML_GATHER_OPERATOR_DESC *desc = op->desc;
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[0], *indices = op->inputs[1];
    uint32_t rank = input->DimensionCount, i;
    HRESULT hr;

    if (FAILED(hr = vkdml_validate_axis(op, desc->Axis, input, "InputTensor")))
        return hr;
    if (desc->IndexDimensions > indices->DimensionCount)
        return vkdml_op_error(op, E_INVALIDARG, "IndexDimensions=%u must be at most IndicesTensor.DimensionCount=%u.",
                desc->IndexDimensions, indices->DimensionCount);
    for (i = 0; i < desc->Axis; ++i)
        add_dim(list, input->Sizes[i], vkdml_tensor_stride(input, i), 0);
    for (i = indices->DimensionCount - desc->IndexDimensions; i < indices->DimensionCount; ++i)
        add_dim(list, indices->Sizes[i], 0, vkdml_tensor_stride(indices, i));
    for (i = desc->Axis + 1; i < rank; ++i)
        add_dim(list, input->Sizes[i], vkdml_tensor_stride(input, i), 0);
    set_single_index(layout, input, desc->Axis);
    return S_OK;
}

/* GATHER_ELEMENTS: the indices' dimensions, the input's sizes but on Axis. */
static HRESULT describe_gather_elements(const struct vkdml_operator_view *op, struct source_dims *list,
        struct gather_layout *layout)
{
    const DML_GATHER_ELEMENTS_OPERATOR_DESC *desc = op->desc;
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[0], *indices = op->inputs[1];
    uint32_t rank = input->DimensionCount, i;
    HRESULT hr;

    if (FAILED(hr = vkdml_validate_axis(op, desc->Axis, input, "InputTensor")))
        return hr;
    for (i = 0; i < rank; ++i)
    {
        if (i != desc->Axis && indices->Sizes[i] != input->Sizes[i])
            return vkdml_op_error(op, E_INVALIDARG, "IndicesTensor.Sizes[%u]=%u must equal InputTensor.Sizes[%u]=%u "
                    "(all but Axis=%u).", i, indices->Sizes[i], i, input->Sizes[i], desc->Axis);
        add_dim(list, indices->Sizes[i], i == desc->Axis ? 0 : vkdml_tensor_stride(input, i),
                vkdml_tensor_stride(indices, i));
    }
    set_single_index(layout, input, desc->Axis);
    return S_OK;
}

/* GATHER_ND and GATHER_ND1 (ONNX GatherND): the index dimensions but the tuple's (batch ones
 * first, which also step through the input), then the input dimensions after the batch and
 * the tuple. */
static HRESULT describe_gather_nd(const struct vkdml_operator_view *op, struct source_dims *list,
        struct gather_layout *layout)
{
    const DML_GATHER_ND1_OPERATOR_DESC *desc = op->desc;
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[0], *indices = op->inputs[1];
    uint32_t rank = input->DimensionCount, input_dims = desc->InputDimensionCount;
    uint32_t index_dims = desc->IndicesDimensionCount, batch, tuple, first_input, first_index, i;
    HRESULT hr;

    /* GATHER_ND's desc is GATHER_ND1's without BatchDimensionCount. */
    batch = op->type == DML_OPERATOR_GATHER_ND1 ? desc->BatchDimensionCount : 0;
    if (FAILED(hr = vkdml_validate_real_rank(op, input, "InputTensor", input_dims, "InputDimensionCount"))
            || FAILED(hr = vkdml_validate_real_rank(op, indices, "IndicesTensor", index_dims, "IndicesDimensionCount")))
        return hr;
    if (batch >= index_dims)
        return vkdml_op_error(op, E_INVALIDARG, "BatchDimensionCount=%u must be less than IndicesDimensionCount=%u.",
                batch, index_dims);
    tuple = indices->Sizes[indices->DimensionCount - 1];
    if (batch + tuple > input_dims)
        return vkdml_op_error(op, E_INVALIDARG, "BatchDimensionCount=%u plus the index tuple's size %u (the last of "
                "IndicesTensor.Sizes) must be at most InputDimensionCount=%u.", batch, tuple, input_dims);
    first_input = rank - input_dims;
    first_index = indices->DimensionCount - index_dims;
    for (i = 0; i < batch; ++i)
    {
        if (input->Sizes[first_input + i] != indices->Sizes[first_index + i])
            return vkdml_op_error(op, E_INVALIDARG, "batch dimension %u: IndicesTensor.Sizes[%u]=%u must equal "
                    "InputTensor.Sizes[%u]=%u.", i, first_index + i, indices->Sizes[first_index + i],
                    first_input + i, input->Sizes[first_input + i]);
    }
    for (i = 0; i < index_dims - 1; ++i)
        add_dim(list, indices->Sizes[first_index + i], i < batch ? vkdml_tensor_stride(input, first_input + i) : 0,
                vkdml_tensor_stride(indices, first_index + i));
    for (i = first_input + batch + tuple; i < rank; ++i)
        add_dim(list, input->Sizes[i], vkdml_tensor_stride(input, i), 0);
    layout->tuple = tuple;
    for (i = 0; i < tuple; ++i)
    {
        layout->tuple_sizes[i] = input->Sizes[first_input + batch + i];
        layout->tuple_in_strides[i] = vkdml_tensor_stride(input, first_input + batch + i);
    }
    layout->tuple_index_stride = vkdml_tensor_stride(indices, indices->DimensionCount - 1);
    return S_OK;
}

/* ONE_HOT: the output's dimensions; the indices' have size 1 on Axis. */
static HRESULT describe_one_hot(const struct vkdml_operator_view *op, struct source_dims *list,
        struct gather_layout *layout)
{
    const DML_ONE_HOT_OPERATOR_DESC *desc = op->desc;
    const DML_BUFFER_TENSOR_DESC *indices = op->inputs[0], *values = op->inputs[1], *output = op->outputs[0];
    uint32_t rank = indices->DimensionCount, i;
    HRESULT hr;

    if (FAILED(hr = vkdml_validate_axis(op, desc->Axis, indices, "IndicesTensor")))
        return hr;
    if (indices->Sizes[desc->Axis] != 1)
        return vkdml_op_error(op, E_INVALIDARG, "IndicesTensor.Sizes[Axis=%u]=%u must be 1.", desc->Axis,
                indices->Sizes[desc->Axis]);
    if (vkdml_tensor_element_count(values) < 2)
        return vkdml_op_error(op, E_INVALIDARG, "ValuesTensor must hold at least 2 elements (OffValue, OnValue).");
    for (i = 0; i < rank; ++i)
    {
        if (i != desc->Axis && indices->Sizes[i] != output->Sizes[i])
            return vkdml_op_error(op, E_INVALIDARG, "IndicesTensor.Sizes[%u]=%u must equal OutputTensor.Sizes[%u]=%u "
                    "(all but Axis=%u).", i, indices->Sizes[i], i, output->Sizes[i], desc->Axis);
        add_dim(list, output->Sizes[i], 0, i == desc->Axis ? 0 : vkdml_tensor_stride(indices, i));
    }
    layout->tuple = 1;
    layout->tuple_sizes[0] = output->Sizes[desc->Axis];
    layout->one_hot_axis = desc->Axis;
    /* OnValue: element 1 along the fastest-changing dimension of size > 1. */
    for (i = values->DimensionCount; i-- > 0;)
    {
        if (values->Sizes[i] > 1)
        {
            layout->on_offset = vkdml_tensor_stride(values, i);
            break;
        }
    }
    return S_OK;
}

/* The source dimensions right-aligned on the output: leading ones cropped (size 1 only) or
 * added (size 1). */
static HRESULT place_dims(const struct vkdml_operator_view *op, const struct source_dims *list,
        struct gather_layout *layout)
{
    const DML_BUFFER_TENSOR_DESC *output = op->outputs[0];
    int32_t shift = (int32_t)list->count - (int32_t)output->DimensionCount;
    uint32_t i, expected;

    for (i = 0; (int32_t)i < shift; ++i)
    {
        if (list->dims[i].size != 1)
            return vkdml_op_error(op, E_INVALIDARG, "the output has %u dimensions, more than "
                    "OutputTensor.DimensionCount=%u.", list->count - i, output->DimensionCount);
    }
    layout->rank = output->DimensionCount;
    for (i = 0; i < output->DimensionCount; ++i)
    {
        int32_t source = (int32_t)i + shift;
        const struct source_dim *dim = source >= 0 ? &list->dims[source] : NULL;

        expected = dim ? dim->size : 1;
        if (output->Sizes[i] != expected)
            return vkdml_op_error(op, E_INVALIDARG, "OutputTensor.Sizes[%u]=%u must be %u.", i, output->Sizes[i],
                    expected);
        layout->sizes[i] = expected;
        layout->out_strides[i] = vkdml_tensor_stride(output, i);
        layout->in_strides[i] = dim ? dim->in_stride : 0;
        layout->index_strides[i] = dim ? dim->index_stride : 0;
    }
    return S_OK;
}

/* The operator's layout; E_INVALIDARG (logged) where its desc breaks a rule of its page. */
static HRESULT describe(const struct vkdml_operator_view *op, struct gather_layout *layout)
{
    struct source_dims list;
    HRESULT hr;

    memset(layout, 0, sizeof(*layout));
    list.count = 0;
    switch (op->type)
    {
        case DML_OPERATOR_GATHER:
            hr = describe_gather(op, &list, layout);
            break;
        case DML_OPERATOR_GATHER_ELEMENTS:
            hr = describe_gather_elements(op, &list, layout);
            break;
        case DML_OPERATOR_GATHER_ND:
        case DML_OPERATOR_GATHER_ND1:
            hr = describe_gather_nd(op, &list, layout);
            break;
        default:
            hr = describe_one_hot(op, &list, layout);
            break;
    }
    if (FAILED(hr))
        return hr;
    return place_dims(op, &list, layout);
}

HRESULT vkdml_gather_validate(struct vkdml_backend_device *device, const struct vkdml_operator_view *op)
{
    static const char *const input_names[][2] =
    {
        {"InputTensor", "IndicesTensor"},
        {"IndicesTensor", "ValuesTensor"},
    };
    bool one_hot = op->type == DML_OPERATOR_ONE_HOT;
    struct gather_layout layout;
    HRESULT hr;

    if (FAILED(hr = describe(op, &layout)))
        return hr;
    if (FAILED(hr = vkdml_check_index_range(op, op->inputs[0], input_names[one_hot][0])))
        return hr;
    if (FAILED(hr = vkdml_check_index_range(op, op->inputs[1], input_names[one_hot][1])))
        return hr;
    return vkdml_check_index_range(op, op->outputs[0], "OutputTensor");
}

/* Drops size-1 dimensions and merges neighbours whose strides all chain (ONE_HOT keeps its
 * dimensions: the kernel compares the Axis coordinate), then right-aligns on 8 dimensions. */
static void normalize(struct gather_layout *layout, bool merge)
{
    struct gather_layout packed = *layout;
    uint32_t count = 0, shift, i;

    for (i = 0; i < layout->rank; ++i)
    {
        uint32_t size = layout->sizes[i], last = count - 1;

        if (merge && size == 1)
            continue;
        if (merge && count && packed.out_strides[last] == (uint64_t)layout->out_strides[i] * size
                && packed.in_strides[last] == (uint64_t)layout->in_strides[i] * size
                && packed.index_strides[last] == (uint64_t)layout->index_strides[i] * size)
        {
            packed.sizes[last] *= size;
            packed.out_strides[last] = layout->out_strides[i];
            packed.in_strides[last] = layout->in_strides[i];
            packed.index_strides[last] = layout->index_strides[i];
            continue;
        }
        packed.sizes[count] = size;
        packed.out_strides[count] = layout->out_strides[i];
        packed.in_strides[count] = layout->in_strides[i];
        packed.index_strides[count] = layout->index_strides[i];
        ++count;
    }
    shift = GATHER_MAX_RANK - count;
    for (i = GATHER_MAX_RANK; i-- > 0;)
    {
        bool kept = i >= shift;

        layout->sizes[i] = kept ? packed.sizes[i - shift] : 1;
        layout->out_strides[i] = kept ? packed.out_strides[i - shift] : 0;
        layout->in_strides[i] = kept ? packed.in_strides[i - shift] : 0;
        layout->index_strides[i] = kept ? packed.index_strides[i - shift] : 0;
    }
    layout->one_hot_axis += shift;
    layout->rank = GATHER_MAX_RANK;
}

/* Elements per invocation: 16 bytes where the last dimension is packed in the output (and, but
 * for ONE_HOT, a packed copy of the input's) and every other offset keeps the vectors aligned;
 * else 1. */
static uint32_t choose_vector(const struct gather_layout *layout, unsigned int element_size, bool one_hot)
{
    uint32_t vector = 16 / element_size, last = GATHER_MAX_RANK - 1, i;

    if (layout->out_strides[last] != 1 || layout->sizes[last] % vector)
        return 1;
    if (!one_hot && (layout->in_strides[last] != 1 || layout->index_strides[last]))
        return 1;
    /* ONE_HOT's input strides are 0. */
    for (i = 0; i < GATHER_MAX_RANK; ++i)
    {
        if ((i < last && (layout->out_strides[i] % vector || layout->in_strides[i] % vector))
                || (i < layout->tuple && layout->tuple_in_strides[i] % vector))
            return 1;
    }
    return vector;
}

/* Elements move as bits: the unsigned type of their size. */
static DML_TENSOR_DATA_TYPE bits_type(unsigned int element_size)
{
    switch (element_size)
    {
        case 1: return DML_TENSOR_DATA_TYPE_UINT8;
        case 2: return DML_TENSOR_DATA_TYPE_UINT16;
        case 8: return DML_TENSOR_DATA_TYPE_UINT64;
        default: return DML_TENSOR_DATA_TYPE_UINT32;
    }
}

/* Items per invocation: about GATHER_UNROLL_BYTES (ONE_HOT, which only stores, twice that) each,
 * so an invocation has several loads or stores in flight, but never so many that the dispatch
 * falls below GATHER_MIN_GROUPS workgroups (a big GPU's cores stay busy). docs/kernels.md has
 * the figures. */
static uint32_t choose_unroll(uint64_t invocations, uint32_t item_bytes, bool one_hot)
{
    uint32_t unroll = GATHER_MAX_UNROLL, bytes = one_hot ? 2 * GATHER_UNROLL_BYTES : GATHER_UNROLL_BYTES;

    while (unroll > 1 && (unroll * item_bytes > bytes
            || invocations < (uint64_t)unroll * GATHER_THREADS * GATHER_MIN_GROUPS))
        unroll /= 2;
    return unroll;
}

static void fill_spec(const struct vkdml_compile *compile, const struct gather_layout *layout,
        DML_TENSOR_DATA_TYPE type, uint32_t vector, uint32_t unroll, uint32_t spec[GATHER_SPEC_COUNT])
{
    const struct vkdml_operator_view *op = compile->op;
    bool one_hot = op->type == DML_OPERATOR_ONE_HOT;
    uint32_t i;

    spec[GATHER_SPEC_MODE] = one_hot ? GATHER_MODE_ONE_HOT : GATHER_MODE_GATHER;
    spec[GATHER_SPEC_TYPE] = type;                  /* TIO_TYPE_* are DML's values (tensor_io.glsl) */
    spec[GATHER_SPEC_INDEX_TYPE] = op->inputs[one_hot ? 0 : 1]->DataType;
    spec[GATHER_SPEC_COUNT_ELEMENTS] = (uint32_t)vkdml_tensor_element_count(op->outputs[0]);
    spec[GATHER_SPEC_VECTOR] = vector;
    spec[GATHER_SPEC_UNROLL] = unroll;
    spec[GATHER_SPEC_TUPLE] = layout->tuple;
    spec[GATHER_SPEC_TUPLE_INDEX_STRIDE] = layout->tuple_index_stride;
    spec[GATHER_SPEC_ONE_HOT_AXIS] = one_hot ? layout->one_hot_axis : 0;
    spec[GATHER_SPEC_ON_OFFSET] = layout->on_offset;
    for (i = 0; i < GATHER_MAX_RANK; ++i)
    {
        spec[GATHER_SPEC_SIZES + i] = layout->sizes[i];
        spec[GATHER_SPEC_OUT_STRIDES + i] = layout->out_strides[i];
        spec[GATHER_SPEC_IN_STRIDES + i] = layout->in_strides[i];
        spec[GATHER_SPEC_INDEX_STRIDES + i] = layout->index_strides[i];
        spec[GATHER_SPEC_TUPLE_SIZES + i] = i < layout->tuple ? layout->tuple_sizes[i] : 1;
        spec[GATHER_SPEC_TUPLE_IN_STRIDES + i] = i < layout->tuple ? layout->tuple_in_strides[i] : 0;
    }
    /* ONE_HOT's input (ValuesTensor) is its second. */
    vkdml_set_location(&spec[GATHER_SPEC_IN_LOCATION], &compile->inputs[one_hot ? 1 : 0]);
    vkdml_set_location(&spec[GATHER_SPEC_INDEX_LOCATION], &compile->inputs[one_hot ? 0 : 1]);
    vkdml_set_location(&spec[GATHER_SPEC_OUT_LOCATION], &compile->outputs[0]);
}

HRESULT vkdml_gather_compile(struct vkdml_compile *compile)
{
    const struct vkdml_operator_view *op = compile->op;
    unsigned int element_size = vkdml_element_size(op->outputs[0]->DataType);
    DML_TENSOR_DATA_TYPE type = bits_type(element_size);
    bool one_hot = op->type == DML_OPERATOR_ONE_HOT;
    uint32_t spec[GATHER_SPEC_COUNT] = {0}, groups[3], features, vector, unroll;
    struct gather_layout layout;
    enum vkdml_kernel_id kernel;
    uint64_t invocations;
    HRESULT hr;

    if (FAILED(hr = describe(op, &layout)))
        return hr;
    /* 64-bit elements move as pairs of 32-bit words: no shaderInt64 needed. */
    features = vkdml_move_kernel_features(type);
    if (!vkdml_find_kernel_variant(&compile->vk->caps, "gather", NULL, features, &kernel))
        return vkdml_op_error(op, E_NOTIMPL, "no gather.comp variant holds %s tensors on this device.",
                debugstr_data_type(op->outputs[0]->DataType));
    normalize(&layout, !one_hot);
    vector = choose_vector(&layout, element_size, one_hot);
    invocations = vkdml_tensor_element_count(op->outputs[0]) / vector;
    unroll = choose_unroll(invocations, vector * element_size, one_hot);
    fill_spec(compile, &layout, type, vector, unroll, spec);
    if (FAILED(hr = vkdml_spread_groups(compile, vkdml_div_up(invocations, GATHER_THREADS * unroll), groups)))
        return hr;
    return vkdml_compile_add_dispatch(compile, kernel, spec, GATHER_SPEC_COUNT, NULL, 0, groups, false);
}
