/*
 * The generator family (DML_OPERATOR_FILL_VALUE_CONSTANT and DML_OPERATOR_FILL_VALUE_SEQUENCE,
 * FL 2_1): no inputs, one output of any rank and strides, written by one dispatch of
 * kernels_glsl/generator.comp (generator_interface.h).
 *
 * DirectML's rules (DML_FILL_VALUE_CONSTANT_OPERATOR_DESC, DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC):
 * ValueDataType must equal OutputTensor.DataType; the generic layer checks the output's types
 * (SEQUENCE has no FLOAT64). The scalars are read as the bits of that type (FLOAT16: the half's
 * bits in the union's first two bytes, README "Generators"). SEQUENCE writes ValueStart + i *
 * ValueDelta at row-major logical index i; where 0-strides make elements share an address, which
 * of their values lands there is unspecified (README).
 */

#include <string.h>

#include "ops_private.h"
#include "generator_interface.h"

/* Both descs begin alike (DirectML.h): CONSTANT's Value is SEQUENCE's ValueStart. */
_Static_assert(offsetof(DML_FILL_VALUE_CONSTANT_OPERATOR_DESC, ValueDataType)
        == offsetof(DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC, ValueDataType), "FILL descs");
_Static_assert(offsetof(DML_FILL_VALUE_CONSTANT_OPERATOR_DESC, Value)
        == offsetof(DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC, ValueStart), "FILL descs");

static bool is_sequence(const struct vkdml_operator_view *op)
{
    return op->type == DML_OPERATOR_FILL_VALUE_SEQUENCE;
}

HRESULT vkdml_generator_validate(struct vkdml_backend_device *device, const struct vkdml_operator_view *op)
{
    const DML_FILL_VALUE_CONSTANT_OPERATOR_DESC *desc = op->desc;
    DML_TENSOR_DATA_TYPE type = op->outputs[0]->DataType;

    if (desc->ValueDataType != type)
        return vkdml_op_error(op, E_INVALIDARG, "ValueDataType=%s must equal OutputTensor.DataType=%s.",
                debugstr_data_type(desc->ValueDataType), debugstr_data_type(type));
    return vkdml_check_index_range(op, op->outputs[0], "OutputTensor");
}

/* The scalar's bits of `type` as the kernel's (low, high) words; narrower types zero-extended. */
static void set_scalar(uint32_t words[2], const DML_SCALAR_UNION *value, DML_TENSOR_DATA_TYPE type)
{
    uint64_t bits = 0;

    memcpy(&bits, value->Bytes, vkdml_element_size(type));
    words[0] = (uint32_t)bits;
    words[1] = (uint32_t)(bits >> 32);
}

static void fill_push(const struct vkdml_compile *compile, struct generator_push *push)
{
    const DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC *desc = compile->op->desc;
    DML_TENSOR_DATA_TYPE type = compile->op->outputs[0]->DataType;

    memset(push, 0, sizeof(*push));
    set_scalar(push->value, &desc->ValueStart, type);
    /* CONSTANT's desc ends before ValueDelta. */
    if (is_sequence(compile->op))
        set_scalar(push->delta, &desc->ValueDelta, type);
}

/* Dimension i of the output is kernel dimension GENERATOR_MAX_RANK - rank + i; leading ones have
 * size 1. Packed when the strides are row-major (no Strides, or equal ones). */
static void fill_spec(const struct vkdml_compile *compile, uint32_t spec[GENERATOR_SPEC_COUNT])
{
    const DML_BUFFER_TENSOR_DESC *output = compile->op->outputs[0];
    uint32_t first = GENERATOR_MAX_RANK - output->DimensionCount, packed_stride = 1, i;
    bool packed = true;

    for (i = 0; i < GENERATOR_MAX_RANK; ++i)
        spec[GENERATOR_SPEC_SIZES + i] = 1;
    for (i = output->DimensionCount; i-- > 0;)
    {
        uint32_t stride = vkdml_tensor_stride(output, i);

        spec[GENERATOR_SPEC_SIZES + first + i] = output->Sizes[i];
        spec[GENERATOR_SPEC_STRIDES + first + i] = stride;
        packed = packed && (output->Sizes[i] == 1 || stride == packed_stride);
        packed_stride *= output->Sizes[i];
    }
    spec[GENERATOR_SPEC_TYPE] = output->DataType;   /* TIO_TYPE_* are DML's values (tensor_io.glsl) */
    spec[GENERATOR_SPEC_SEQUENCE] = is_sequence(compile->op);
    spec[GENERATOR_SPEC_PACKED] = packed;
    spec[GENERATOR_SPEC_COUNT_ELEMENTS] = (uint32_t)vkdml_tensor_element_count(output);
    /* Packed: 16 bytes per invocation (one vector store). */
    spec[GENERATOR_SPEC_VECTOR] = packed ? 16 / vkdml_element_size(output->DataType) : 1;
    vkdml_set_location(&spec[GENERATOR_SPEC_OUT_LOCATION], &compile->outputs[0]);
}

/* 64-bit elements are stored as pairs of 32-bit words: no shaderInt64 needed. */
static uint32_t kernel_features(DML_TENSOR_DATA_TYPE type)
{
    return vkdml_element_size(type) == 8 ? 0 : vkdml_type_kernel_features(type, false);
}

HRESULT vkdml_generator_compile(struct vkdml_compile *compile)
{
    DML_TENSOR_DATA_TYPE type = compile->op->outputs[0]->DataType;
    uint32_t spec[GENERATOR_SPEC_COUNT] = {0}, groups[3];
    struct generator_push push;
    enum vkdml_kernel_id kernel;
    uint64_t invocations;
    HRESULT hr;

    if (!vkdml_find_kernel_variant(&compile->vk->caps, "generator", NULL, kernel_features(type), &kernel))
        return vkdml_op_error(compile->op, E_NOTIMPL, "no generator.comp variant holds %s tensors on this device.",
                debugstr_data_type(type));
    fill_spec(compile, spec);
    fill_push(compile, &push);
    invocations = vkdml_div_up(spec[GENERATOR_SPEC_COUNT_ELEMENTS], spec[GENERATOR_SPEC_VECTOR]);
    if (FAILED(hr = vkdml_spread_groups(compile, (invocations + GENERATOR_THREADS - 1) / GENERATOR_THREADS, groups)))
        return hr;
    return vkdml_compile_add_dispatch(compile, kernel, spec, GENERATOR_SPEC_COUNT, &push, sizeof(push), groups,
            false);
}
