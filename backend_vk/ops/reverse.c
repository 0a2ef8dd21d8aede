/*
 * DML_OPERATOR_REVERSE_SUBSEQUENCES (FL 2_1; every type by bits from 5_0): one dispatch of
 * kernels_glsl/reverse.comp (reverse_interface.h).
 *
 * DirectML's rules (DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC): Axis < the input's DimensionCount;
 * OutputTensor has the input's sizes; SequenceLengthsTensor has them too but 1 on Axis (the
 * generic layer checks the types and that the ranks agree). A length past the axis reverses the
 * whole axis, as the page says ("as if clamped"): README "Reverse subsequences".
 */

#include "ops_private.h"
#include "reverse_interface.h"

HRESULT vkdml_reverse_validate(struct vkdml_backend_device *device, const struct vkdml_operator_view *op)
{
    const DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC *desc = op->desc;
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[0], *lengths = op->inputs[1], *output = op->outputs[0];
    uint32_t i, expected;
    HRESULT hr;

    if (FAILED(hr = vkdml_validate_axis(op, desc->Axis, input, "InputTensor")))
        return hr;
    if (FAILED(hr = vkdml_validate_same_sizes(op, output, "OutputTensor", input, "InputTensor")))
        return hr;
    for (i = 0; i < lengths->DimensionCount; ++i)
    {
        expected = i == desc->Axis ? 1 : input->Sizes[i];
        if (lengths->Sizes[i] != expected)
            return vkdml_op_error(op, E_INVALIDARG, "SequenceLengthsTensor.Sizes[%u]=%u must be %u (InputTensor's "
                    "sizes, 1 on Axis=%u).", i, lengths->Sizes[i], expected, desc->Axis);
    }
    if (FAILED(hr = vkdml_check_index_range(op, input, "InputTensor"))
            || FAILED(hr = vkdml_check_index_range(op, lengths, "SequenceLengthsTensor")))
        return hr;
    return vkdml_check_index_range(op, output, "OutputTensor");
}

/* Dimension i of the tensors is kernel dimension REVERSE_MAX_RANK - rank + i; leading ones have
 * size 1. */
static void fill_spec(const struct vkdml_compile *compile, uint32_t spec[REVERSE_SPEC_COUNT])
{
    const DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC *desc = compile->op->desc;
    const DML_BUFFER_TENSOR_DESC *input = compile->op->inputs[0], *lengths = compile->op->inputs[1];
    const DML_BUFFER_TENSOR_DESC *output = compile->op->outputs[0];
    uint32_t first = REVERSE_MAX_RANK - input->DimensionCount, i;
    bool packed = vkdml_tensor_is_packed(output);

    for (i = 0; i < REVERSE_MAX_RANK; ++i)
        spec[REVERSE_SPEC_SIZES + i] = 1;
    for (i = 0; i < input->DimensionCount; ++i)
    {
        spec[REVERSE_SPEC_SIZES + first + i] = input->Sizes[i];
        spec[REVERSE_SPEC_IN_STRIDES + first + i] = vkdml_tensor_stride(input, i);
        spec[REVERSE_SPEC_OUT_STRIDES + first + i] = vkdml_tensor_stride(output, i);
        spec[REVERSE_SPEC_LENGTH_STRIDES + first + i] = i == desc->Axis ? 0 : vkdml_tensor_stride(lengths, i);
    }
    spec[REVERSE_SPEC_TYPE] = input->DataType;      /* TIO_TYPE_* are DML's values (tensor_io.glsl) */
    spec[REVERSE_SPEC_LENGTH_TYPE] = lengths->DataType;
    spec[REVERSE_SPEC_AXIS] = first + desc->Axis;
    spec[REVERSE_SPEC_COUNT_ELEMENTS] = (uint32_t)vkdml_tensor_element_count(input);
    spec[REVERSE_SPEC_OUT_PACKED] = packed;
    /* Packed: 16 bytes per invocation (one vector store). */
    spec[REVERSE_SPEC_VECTOR] = packed ? 16 / vkdml_element_size(input->DataType) : 1;
    vkdml_set_location(&spec[REVERSE_SPEC_IN_LOCATION], &compile->inputs[0]);
    vkdml_set_location(&spec[REVERSE_SPEC_LENGTH_LOCATION], &compile->inputs[1]);
    vkdml_set_location(&spec[REVERSE_SPEC_OUT_LOCATION], &compile->outputs[0]);
}

HRESULT vkdml_reverse_compile(struct vkdml_compile *compile)
{
    DML_TENSOR_DATA_TYPE type = compile->op->inputs[0]->DataType;
    uint32_t spec[REVERSE_SPEC_COUNT] = {0}, groups[3];
    enum vkdml_kernel_id kernel;
    HRESULT hr;

    if (!vkdml_find_kernel_variant(&compile->vk->caps, "reverse", NULL, vkdml_move_kernel_features(type), &kernel))
        return vkdml_op_error(compile->op, E_NOTIMPL, "no reverse.comp variant holds %s tensors on this device.",
                debugstr_data_type(type));
    fill_spec(compile, spec);
    if (FAILED(hr = vkdml_spread_groups(compile, vkdml_div_up(vkdml_div_up(spec[REVERSE_SPEC_COUNT_ELEMENTS],
            spec[REVERSE_SPEC_VECTOR]), REVERSE_THREADS), groups)))
        return hr;
    return vkdml_compile_add_dispatch(compile, kernel, spec, REVERSE_SPEC_COUNT, NULL, 0, groups, false);
}
