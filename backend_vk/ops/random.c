/*
 * DML_OPERATOR_RANDOM_GENERATOR (FL 3_0): Philox 4x32-10 random bits, one dispatch of
 * kernels_glsl/random.comp (random_interface.h).
 *
 * DirectML's rules (DML_RANDOM_GENERATOR_OPERATOR_DESC): Type is PHILOX_4X32_10; the state
 * tensors hold six UINT32 words (sizes {1,1,1,6}: every dimension 1 but the last, 6), the output
 * state has the input state's sizes; the generic layer checks the UINT32 types. The output may
 * have any sizes and strides. Which counter feeds which element, and how the state advances:
 * README "Random numbers".
 */

#include "ops_private.h"
#include "random_interface.h"

static HRESULT validate_state(const struct vkdml_operator_view *op, const DML_BUFFER_TENSOR_DESC *state,
        const char *name)
{
    uint32_t i;

    for (i = 0; i + 1 < state->DimensionCount; ++i)
    {
        if (state->Sizes[i] != 1)
            break;
    }
    if (i + 1 != state->DimensionCount || state->Sizes[i] != RANDOM_STATE_WORDS)
        return vkdml_op_error(op, E_INVALIDARG, "%s must have sizes {1,...,1,%u} (the PHILOX_4X32_10 state).",
                name, RANDOM_STATE_WORDS);
    return S_OK;
}

HRESULT vkdml_random_validate(struct vkdml_backend_device *device, const struct vkdml_operator_view *op)
{
    const DML_RANDOM_GENERATOR_OPERATOR_DESC *desc = op->desc;
    const DML_BUFFER_TENSOR_DESC *output_state = op->outputs[1];
    HRESULT hr;

    if (desc->Type != DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10)
        return vkdml_op_error(op, E_INVALIDARG, "Type=%#x is not a DML_RANDOM_GENERATOR_TYPE.", desc->Type);
    if (FAILED(hr = validate_state(op, op->inputs[0], "InputStateTensor")))
        return hr;
    if (output_state && FAILED(hr = vkdml_validate_same_sizes(op, output_state, "OutputStateTensor",
            op->inputs[0], "InputStateTensor")))
        return hr;
    return vkdml_check_index_range(op, op->outputs[0], "OutputTensor");
}

/* Dimension i of the output is kernel dimension RANDOM_MAX_RANK - rank + i; leading ones have
 * size 1. Packed when the strides are row-major (no Strides, or equal ones). */
static void fill_spec(const struct vkdml_compile *compile, uint32_t spec[RANDOM_SPEC_COUNT])
{
    const DML_BUFFER_TENSOR_DESC *output = compile->op->outputs[0], *input_state = compile->op->inputs[0];
    const DML_BUFFER_TENSOR_DESC *output_state = compile->op->outputs[1];
    uint32_t first = RANDOM_MAX_RANK - output->DimensionCount, i;

    for (i = 0; i < RANDOM_MAX_RANK; ++i)
        spec[RANDOM_SPEC_SIZES + i] = 1;
    for (i = 0; i < output->DimensionCount; ++i)
    {
        spec[RANDOM_SPEC_SIZES + first + i] = output->Sizes[i];
        spec[RANDOM_SPEC_STRIDES + first + i] = vkdml_tensor_stride(output, i);
    }
    spec[RANDOM_SPEC_COUNT_ELEMENTS] = (uint32_t)vkdml_tensor_element_count(output);
    spec[RANDOM_SPEC_PACKED] = vkdml_tensor_is_packed(output);
    vkdml_set_location(&spec[RANDOM_SPEC_OUT_LOCATION], &compile->outputs[0]);
    /* The state's words lie along its last dimension (the others have size 1). */
    vkdml_set_location(&spec[RANDOM_SPEC_IN_STATE_LOCATION], &compile->inputs[0]);
    spec[RANDOM_SPEC_IN_STATE_STRIDE] = vkdml_tensor_stride(input_state, input_state->DimensionCount - 1);
    spec[RANDOM_SPEC_HAS_OUT_STATE] = !!output_state;
    if (output_state)
    {
        vkdml_set_location(&spec[RANDOM_SPEC_OUT_STATE_LOCATION], &compile->outputs[1]);
        spec[RANDOM_SPEC_OUT_STATE_STRIDE] = vkdml_tensor_stride(output_state, output_state->DimensionCount - 1);
    }
}

HRESULT vkdml_random_compile(struct vkdml_compile *compile)
{
    uint32_t spec[RANDOM_SPEC_COUNT] = {0}, groups[3];
    uint64_t blocks;
    HRESULT hr;

    fill_spec(compile, spec);
    blocks = vkdml_div_up(spec[RANDOM_SPEC_COUNT_ELEMENTS], 4);
    if (FAILED(hr = vkdml_spread_groups(compile, vkdml_div_up(blocks, RANDOM_THREADS), groups)))
        return hr;
    return vkdml_compile_add_dispatch(compile, VKDML_KERNEL_RANDOM, spec, RANDOM_SPEC_COUNT, NULL, 0, groups, false);
}
