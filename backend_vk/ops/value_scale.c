/*
 * DML_OPERATOR_VALUE_SCALE_2D (FL 1_0): output = Scale * input + Bias[c] over {N, C, H, W}
 * FLOAT32 or FLOAT16 tensors, one dispatch of kernels_glsl/value_scale.comp
 * (value_scale_interface.h).
 *
 * DirectML's rules (DML_VALUE_SCALE_2D_OPERATOR_DESC): ChannelCount is 1 or 3 and equals the
 * input's channel dimension (Sizes[1]); the output has the input's sizes (the generic layer
 * checks the types and ranks).
 */

#include <string.h>

#include "ops_private.h"
#include "value_scale_interface.h"

HRESULT vkdml_value_scale_validate(struct vkdml_backend_device *device, const struct vkdml_operator_view *op)
{
    const DML_VALUE_SCALE_2D_OPERATOR_DESC *desc = op->desc;
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[0], *output = op->outputs[0];
    HRESULT hr;

    if (desc->ChannelCount != 1 && desc->ChannelCount != 3)
        return vkdml_op_error(op, E_INVALIDARG, "ChannelCount=%u must be 1 or 3.", desc->ChannelCount);
    if (input->Sizes[1] != desc->ChannelCount)
        return vkdml_op_error(op, E_INVALIDARG, "ChannelCount=%u must equal InputTensor.Sizes[1]=%u.",
                desc->ChannelCount, input->Sizes[1]);
    if (FAILED(hr = vkdml_validate_same_sizes(op, output, "OutputTensor", input, "InputTensor")))
        return hr;
    if (FAILED(hr = vkdml_check_index_range(op, input, "InputTensor")))
        return hr;
    return vkdml_check_index_range(op, output, "OutputTensor");
}

static void fill_spec(const struct vkdml_compile *compile, uint32_t spec[VALUE_SCALE_SPEC_COUNT])
{
    const DML_BUFFER_TENSOR_DESC *input = compile->op->inputs[0], *output = compile->op->outputs[0];
    uint32_t i, vector = 16 / vkdml_element_size(input->DataType);
    bool packed = vkdml_tensor_is_packed(input) && vkdml_tensor_is_packed(output);

    for (i = 0; i < 4; ++i)
    {
        spec[VALUE_SCALE_SPEC_SIZES + i] = input->Sizes[i];
        spec[VALUE_SCALE_SPEC_IN_STRIDES + i] = vkdml_tensor_stride(input, i);
        spec[VALUE_SCALE_SPEC_OUT_STRIDES + i] = vkdml_tensor_stride(output, i);
    }
    spec[VALUE_SCALE_SPEC_TYPE] = input->DataType;  /* TIO_TYPE_* are DML's values (tensor_io.glsl) */
    spec[VALUE_SCALE_SPEC_COUNT_ELEMENTS] = (uint32_t)vkdml_tensor_element_count(input);
    spec[VALUE_SCALE_SPEC_PACKED] = packed;
    /* A vector must not straddle two channels (one bias per vector). */
    spec[VALUE_SCALE_SPEC_VECTOR] = packed && (uint64_t)input->Sizes[2] * input->Sizes[3] % vector == 0 ? vector : 1;
    vkdml_set_location(&spec[VALUE_SCALE_SPEC_IN_LOCATION], &compile->inputs[0]);
    vkdml_set_location(&spec[VALUE_SCALE_SPEC_OUT_LOCATION], &compile->outputs[0]);
}

HRESULT vkdml_value_scale_compile(struct vkdml_compile *compile)
{
    const DML_VALUE_SCALE_2D_OPERATOR_DESC *desc = compile->op->desc;
    DML_TENSOR_DATA_TYPE type = compile->op->inputs[0]->DataType;
    uint32_t spec[VALUE_SCALE_SPEC_COUNT] = {0}, groups[3], i;
    struct value_scale_push push;
    enum vkdml_kernel_id kernel;
    HRESULT hr;

    if (!vkdml_find_kernel_variant(&compile->vk->caps, "value_scale", NULL, vkdml_type_kernel_features(type, false),
            &kernel))
        return vkdml_op_error(compile->op, E_NOTIMPL, "no value_scale.comp variant holds %s tensors on this device.",
                debugstr_data_type(type));
    fill_spec(compile, spec);
    memset(&push, 0, sizeof(push));
    push.scale = desc->Scale;
    for (i = 0; i < desc->ChannelCount; ++i)
        push.bias[i] = desc->Bias[i];
    if (FAILED(hr = vkdml_spread_groups(compile, vkdml_div_up(vkdml_div_up(spec[VALUE_SCALE_SPEC_COUNT_ELEMENTS],
            spec[VALUE_SCALE_SPEC_VECTOR]), VALUE_SCALE_THREADS), groups)))
        return hr;
    return vkdml_compile_add_dispatch(compile, kernel, spec, VALUE_SCALE_SPEC_COUNT, &push, sizeof(push), groups,
            false);
}
