/*
 * The normalization family: DML_OPERATOR_BATCH_NORMALIZATION (FL 1_0, inference) and
 * DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION (FL 1_0), FLOAT32 and FLOAT16 in fp32 arithmetic,
 * one dispatch each (kernels_glsl/batch_norm.comp, kernels_glsl/lrn.comp,
 * normalization_interface.h).
 *
 * DirectML's rules (DML_BATCH_NORMALIZATION_OPERATOR_DESC): every tensor has the input's type and
 * rank (the schema's); the output has the input's sizes; each dimension of Mean, Variance, Scale
 * and Bias is 1 (broadcast) or the input's. Spatial has had no effect since FL 4_0 and is
 * ignored (README "Normalization"). FusedActivation: DirectML's list (activation.c).
 * DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC: 4-D NCHW input and output of equal sizes,
 * LocalSize at least 1.
 */

#include "ops_private.h"
#include "normalization_interface.h"

static const char *const bn_tensor_names[NORM_TENSORS] =
{
    "InputTensor", "MeanTensor", "VarianceTensor", "ScaleTensor", "BiasTensor", "OutputTensor",
};

/* BATCH_NORMALIZATION's tensors in the kernel's order (op->inputs are the desc's, then the output). */
static const DML_BUFFER_TENSOR_DESC *bn_tensor(const struct vkdml_operator_view *op, unsigned int t)
{
    return t < 5 ? op->inputs[t] : op->outputs[0];
}

static HRESULT validate_batch_norm(const struct vkdml_operator_view *op)
{
    const DML_BATCH_NORMALIZATION_OPERATOR_DESC *desc = op->desc;
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[0], *tensor;
    unsigned int t, i;
    HRESULT hr;

    if (FAILED(hr = vkdml_validate_fused_activation(op, desc->FusedActivation)))
        return hr;
    if (FAILED(hr = vkdml_validate_same_sizes(op, op->outputs[0], "OutputTensor", input, "InputTensor")))
        return hr;
    for (t = 1; t <= NORM_PARAMS; ++t)
    {
        tensor = bn_tensor(op, t);
        for (i = 0; i < tensor->DimensionCount; ++i)
        {
            if (tensor->Sizes[i] != 1 && tensor->Sizes[i] != input->Sizes[i])
                return vkdml_op_error(op, E_INVALIDARG, "%s.Sizes[%u]=%u must be 1 or InputTensor.Sizes[%u]=%u.",
                        bn_tensor_names[t], i, tensor->Sizes[i], i, input->Sizes[i]);
        }
    }
    for (t = 0; t < NORM_TENSORS; ++t)
    {
        if (FAILED(hr = vkdml_check_index_range(op, bn_tensor(op, t), bn_tensor_names[t])))
            return hr;
    }
    return S_OK;
}

static HRESULT validate_lrn(const struct vkdml_operator_view *op)
{
    const DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC *desc = op->desc;
    HRESULT hr;

    if (!desc->LocalSize)
        return vkdml_op_error(op, E_INVALIDARG, "LocalSize=0 must be at least 1.");
    if (FAILED(hr = vkdml_validate_same_sizes(op, op->outputs[0], "OutputTensor", op->inputs[0], "InputTensor")))
        return hr;
    if (FAILED(hr = vkdml_check_index_range(op, op->inputs[0], "InputTensor")))
        return hr;
    return vkdml_check_index_range(op, op->outputs[0], "OutputTensor");
}

HRESULT vkdml_normalization_validate(struct vkdml_backend_device *device, const struct vkdml_operator_view *op)
{
    if (op->type == DML_OPERATOR_BATCH_NORMALIZATION)
        return validate_batch_norm(op);
    return validate_lrn(op);
}

/* BATCH_NORMALIZATION's dimensions with size-1 ones dropped and neighbours merged where every
 * tensor's strides allow (0-strides of a broadcast parameter merge with 0-strides). */
struct bn_layout
{
    uint32_t rank;
    uint32_t sizes[NORM_MAX_RANK];
    uint32_t strides[NORM_TENSORS][NORM_MAX_RANK];
};

static uint32_t bn_stride(const DML_BUFFER_TENSOR_DESC *tensor, uint32_t dim)
{
    return tensor->Sizes[dim] == 1 ? 0 : vkdml_tensor_stride(tensor, dim);
}

static void bn_layout_init(struct bn_layout *layout, const struct vkdml_operator_view *op)
{
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[0];
    uint32_t d, size, last;
    unsigned int t;
    bool merge;

    layout->rank = 0;
    for (d = 0; d < input->DimensionCount; ++d)
    {
        if ((size = input->Sizes[d]) == 1)
            continue;
        merge = layout->rank > 0;
        last = layout->rank - 1;
        for (t = 0; t < NORM_TENSORS && merge; ++t)
            merge = layout->strides[t][last] == (uint64_t)bn_stride(bn_tensor(op, t), d) * size;
        if (merge)
        {
            layout->sizes[last] *= size;
            for (t = 0; t < NORM_TENSORS; ++t)
                layout->strides[t][last] = bn_stride(bn_tensor(op, t), d);
            continue;
        }
        layout->sizes[layout->rank] = size;
        for (t = 0; t < NORM_TENSORS; ++t)
            layout->strides[t][layout->rank] = bn_stride(bn_tensor(op, t), d);
        ++layout->rank;
    }
}

/* 16 bytes of elements per invocation where the input and output rows of the last dimension are
 * contiguous and every vector starts 16-byte aligned (given aligned bindings, checked by the
 * kernel); else 1. */
static uint32_t bn_vector(const struct bn_layout *layout, DML_TENSOR_DATA_TYPE type)
{
    uint32_t vector = 16 / vkdml_element_size(type), last, d;

    if (!layout->rank)
        return 1;
    last = layout->rank - 1;
    if (layout->sizes[last] % vector || layout->strides[0][last] != 1 || layout->strides[5][last] != 1)
        return 1;
    for (d = 0; d < last; ++d)
    {
        if (layout->strides[0][d] % vector || layout->strides[5][d] % vector)
            return 1;
    }
    return vector;
}

static HRESULT compile_batch_norm(struct vkdml_compile *compile)
{
    const DML_BATCH_NORMALIZATION_OPERATOR_DESC *desc = compile->op->desc;
    DML_TENSOR_DATA_TYPE type = compile->op->inputs[0]->DataType;
    uint32_t spec[BN_SPEC_COUNT] = {0}, groups[3], first, d;
    struct bn_layout layout;
    enum vkdml_kernel_id kernel;
    uint64_t count, invocations;
    unsigned int t;
    HRESULT hr;

    if (!vkdml_find_kernel_variant(&compile->vk->caps, "batch_norm", NULL, vkdml_type_kernel_features(type, false),
            &kernel))
        return vkdml_op_error(compile->op, E_NOTIMPL, "no batch_norm.comp variant holds %s tensors on this device.",
                debugstr_data_type(type));
    bn_layout_init(&layout, compile->op);
    count = vkdml_tensor_element_count(compile->op->inputs[0]);
    first = NORM_MAX_RANK - layout.rank;
    for (d = 0; d < NORM_MAX_RANK; ++d)
        spec[BN_SPEC_SIZES + d] = d < first ? 1 : layout.sizes[d - first];
    for (t = 0; t < NORM_TENSORS; ++t)
    {
        for (d = first; d < NORM_MAX_RANK; ++d)
            spec[BN_SPEC_STRIDES + t * NORM_MAX_RANK + d] = layout.strides[t][d - first];
        vkdml_set_location(&spec[BN_SPEC_LOCATIONS + 3 * t],
                t < 5 ? &compile->inputs[t] : &compile->outputs[0]);
    }
    spec[BN_SPEC_TYPE] = type;
    spec[BN_SPEC_VECTOR] = bn_vector(&layout, type);
    spec[BN_SPEC_COUNT_ELEMENTS] = (uint32_t)count;
    spec[BN_SPEC_EPSILON] = vkdml_float_bits(desc->Epsilon);
    vkdml_fused_activation_spec(desc->FusedActivation, &spec[BN_SPEC_ACTIVATION]);
    invocations = count / spec[BN_SPEC_VECTOR];
    if (FAILED(hr = vkdml_spread_groups(compile, vkdml_div_up(invocations, NORM_THREADS), groups)))
        return hr;
    return vkdml_compile_add_dispatch(compile, kernel, spec, BN_SPEC_COUNT, NULL, 0, groups, false);
}

static HRESULT compile_lrn(struct vkdml_compile *compile)
{
    const DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC *desc = compile->op->desc;
    const DML_BUFFER_TENSOR_DESC *input = compile->op->inputs[0], *output = compile->op->outputs[0];
    DML_TENSOR_DATA_TYPE type = input->DataType;
    uint32_t spec[LRN_SPEC_COUNT] = {0}, groups[3], d;
    enum vkdml_kernel_id kernel;
    struct lrn_push push;
    uint64_t count;
    HRESULT hr;

    if (!vkdml_find_kernel_variant(&compile->vk->caps, "lrn", NULL, vkdml_type_kernel_features(type, false), &kernel))
        return vkdml_op_error(compile->op, E_NOTIMPL, "no lrn.comp variant holds %s tensors on this device.",
                debugstr_data_type(type));
    spec[LRN_SPEC_TYPE] = type;
    spec[LRN_SPEC_CROSS_CHANNEL] = !!desc->CrossChannel;
    spec[LRN_SPEC_LOCAL_SIZE] = desc->LocalSize;
    for (d = 0; d < 4; ++d)
    {
        spec[LRN_SPEC_SIZES + d] = input->Sizes[d];
        spec[LRN_SPEC_IN_STRIDES + d] = vkdml_tensor_stride(input, d);
        spec[LRN_SPEC_OUT_STRIDES + d] = vkdml_tensor_stride(output, d);
    }
    vkdml_set_location(&spec[LRN_SPEC_IN_LOCATION], &compile->inputs[0]);
    vkdml_set_location(&spec[LRN_SPEC_OUT_LOCATION], &compile->outputs[0]);
    push.alpha_over_size = desc->Alpha / (float)desc->LocalSize;
    push.beta = desc->Beta;
    push.bias = desc->Bias;
    if (desc->CrossChannel)
        count = input->Sizes[0] * vkdml_div_up(input->Sizes[1], LRN_TILE_CHANNELS)
                * vkdml_div_up((uint64_t)input->Sizes[2] * input->Sizes[3], LRN_TILE_SPATIAL);
    else
        count = vkdml_div_up(vkdml_tensor_element_count(input), NORM_THREADS);
    if (FAILED(hr = vkdml_spread_groups(compile, count, groups)))
        return hr;
    return vkdml_compile_add_dispatch(compile, kernel, spec, LRN_SPEC_COUNT, &push, sizeof(push), groups, false);
}

HRESULT vkdml_normalization_compile(struct vkdml_compile *compile)
{
    if (compile->op->type == DML_OPERATOR_BATCH_NORMALIZATION)
        return compile_batch_norm(compile);
    return compile_lrn(compile);
}
