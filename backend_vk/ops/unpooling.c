/*
 * DML_OPERATOR_MAX_UNPOOLING (FL 2_0): three dispatches of kernels_glsl/unpooling.comp
 * (unpooling_interface.h) over a winner word per output element in the temporary resource.
 *
 * DirectML's rules (DML_MAX_UNPOOLING_OPERATOR_DESC): 4-D tensors; the output has the input's
 * type (the schema's); IndicesTensor (UINT32, UINT64 from FL 5_0) has the input's sizes; its
 * values are zero-based indices into the output seen as one contiguous array, as MAX_POOLING1
 * and MAX_POOLING2 produce them. The page leaves open (README "Normalization" and "Indices out
 * of range"): an index outside the output is skipped; where several inputs name one output
 * element, the last one in the input's row-major order wins; the output's sizes are free.
 * Elements move as bits.
 */

#include "ops_private.h"
#include "unpooling_interface.h"

HRESULT vkdml_unpooling_validate(struct vkdml_backend_device *device, const struct vkdml_operator_view *op)
{
    HRESULT hr;

    if (FAILED(hr = vkdml_validate_same_sizes(op, op->inputs[1], "IndicesTensor", op->inputs[0], "InputTensor")))
        return hr;
    if (FAILED(hr = vkdml_check_index_range(op, op->inputs[0], "InputTensor")))
        return hr;
    if (FAILED(hr = vkdml_check_index_range(op, op->inputs[1], "IndicesTensor")))
        return hr;
    /* The winners hold input index + 1 in 32 bits. */
    if (vkdml_tensor_element_count(op->inputs[0]) >= UINT32_MAX
            || vkdml_tensor_element_count(op->outputs[0]) >= UINT32_MAX)
        return vkdml_op_error(op, E_NOTIMPL, "tensors of 2^32 elements or more are not implemented.");
    return vkdml_check_index_range(op, op->outputs[0], "OutputTensor");
}

static void fill_spec(const struct vkdml_compile *compile, const struct vkdml_tensor_location *winners,
        uint32_t spec[UNPOOL_SPEC_COUNT])
{
    const DML_BUFFER_TENSOR_DESC *input = compile->op->inputs[0], *indices = compile->op->inputs[1];
    const DML_BUFFER_TENSOR_DESC *output = compile->op->outputs[0];
    uint32_t d;

    spec[UNPOOL_SPEC_TYPE] = input->DataType;
    spec[UNPOOL_SPEC_INDEX_TYPE] = indices->DataType;
    spec[UNPOOL_SPEC_OUT_PACKED] = vkdml_tensor_is_packed(output);
    for (d = 0; d < UNPOOL_RANK; ++d)
    {
        spec[UNPOOL_SPEC_IN_SIZES + d] = input->Sizes[d];
        spec[UNPOOL_SPEC_IN_STRIDES + d] = vkdml_tensor_stride(input, d);
        spec[UNPOOL_SPEC_INDEX_STRIDES + d] = vkdml_tensor_stride(indices, d);
        spec[UNPOOL_SPEC_OUT_SIZES + d] = output->Sizes[d];
        spec[UNPOOL_SPEC_OUT_STRIDES + d] = vkdml_tensor_stride(output, d);
    }
    vkdml_set_location(&spec[UNPOOL_SPEC_LOCATIONS + 0], &compile->inputs[0]);
    vkdml_set_location(&spec[UNPOOL_SPEC_LOCATIONS + 3], &compile->inputs[1]);
    vkdml_set_location(&spec[UNPOOL_SPEC_LOCATIONS + 6], &compile->outputs[0]);
    vkdml_set_location(&spec[UNPOOL_SPEC_LOCATIONS + 9], winners);
}

static HRESULT add_pass(struct vkdml_compile *compile, enum vkdml_kernel_id kernel, uint32_t *spec, uint32_t mode,
        uint64_t invocations)
{
    uint32_t groups[3];
    HRESULT hr;

    spec[UNPOOL_SPEC_MODE] = mode;
    /* CLEAR and GATHER take UNPOOL_GRAIN output elements an invocation. */
    if (mode != UNPOOL_MODE_CLAIM)
        invocations = vkdml_div_up(invocations, UNPOOL_GRAIN);
    if (FAILED(hr = vkdml_spread_groups(compile, vkdml_div_up(invocations, UNPOOL_THREADS), groups)))
        return hr;
    return vkdml_compile_add_dispatch(compile, kernel, spec, UNPOOL_SPEC_COUNT, NULL, 0, groups,
            mode != UNPOOL_MODE_CLEAR);
}

HRESULT vkdml_unpooling_compile(struct vkdml_compile *compile)
{
    DML_TENSOR_DATA_TYPE type = compile->op->inputs[0]->DataType;
    uint64_t outputs = vkdml_tensor_element_count(compile->op->outputs[0]);
    uint32_t spec[UNPOOL_SPEC_COUNT] = {0};
    struct vkdml_tensor_location winners;
    enum vkdml_kernel_id kernel;
    HRESULT hr;

    if (!vkdml_find_kernel_variant(&compile->vk->caps, "unpooling", NULL, vkdml_move_kernel_features(type), &kernel))
        return vkdml_op_error(compile->op, E_NOTIMPL, "no unpooling.comp variant holds %s tensors on this device.",
                debugstr_data_type(type));
    winners.slot = compile->temporary_slot;
    winners.offset = VKDML_ALIGN_UP(compile->temporary_size, 256);
    compile->temporary_size = winners.offset + outputs * sizeof(uint32_t);
    fill_spec(compile, &winners, spec);
    if (FAILED(hr = add_pass(compile, kernel, spec, UNPOOL_MODE_CLEAR, outputs)))
        return hr;
    if (FAILED(hr = add_pass(compile, kernel, spec, UNPOOL_MODE_CLAIM,
            vkdml_tensor_element_count(compile->op->inputs[0]))))
        return hr;
    return add_pass(compile, kernel, spec, UNPOOL_MODE_GATHER, outputs);
}
