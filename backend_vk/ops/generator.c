/*
 * The generator family (DML_OPERATOR_FILL_VALUE_CONSTANT and DML_OPERATOR_FILL_VALUE_SEQUENCE,
 * FL 2_1; DML_OPERATOR_DIAGONAL_MATRIX, FL 2_0, and DIAGONAL_MATRIX1, FL 5_1): one output of any
 * rank and strides (DIAGONAL_MATRIX*: 2 to 4, the schema's), DIAGONAL_MATRIX1's optional input,
 * written by one dispatch of kernels_glsl/generator.comp (generator_interface.h).
 *
 * DirectML's rules (DML_FILL_VALUE_CONSTANT_OPERATOR_DESC, DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC):
 * ValueDataType must equal OutputTensor.DataType; the generic layer checks the output's types
 * (SEQUENCE has no FLOAT64). The scalars are read as the bits of that type (FLOAT16: the half's
 * bits in the union's first two bytes, README "Generators"). SEQUENCE writes ValueStart + i *
 * ValueDelta at row-major logical index i; where 0-strides make elements share an address, which
 * of their values lands there is unspecified (README).
 *
 * DIAGONAL_MATRIX's Value is a FLOAT converted to the output's type (README "Generators":
 * integers truncated toward zero and saturated, NaN 0); it is DIAGONAL_MATRIX1 with the span
 * [Offset, Offset + 1). DIAGONAL_MATRIX1 (DML_DIAGONAL_MATRIX1_OPERATOR_DESC): ValueDataType
 * must equal OutputTensor.DataType, InputTensor (optional) has the output's sizes; Value goes
 * where x - y is in [DiagonalFillBegin, DiagonalFillEnd), or outside [End, Begin) when End < Begin.
 */

#include <math.h>
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

static bool is_diagonal(const struct vkdml_operator_view *op)
{
    return op->type == DML_OPERATOR_DIAGONAL_MATRIX || op->type == DML_OPERATOR_DIAGONAL_MATRIX1;
}

/* DIAGONAL_MATRIX1's optional input; NULL for the other operators. */
static const DML_BUFFER_TENSOR_DESC *diagonal_input(const struct vkdml_operator_view *op)
{
    return op->type == DML_OPERATOR_DIAGONAL_MATRIX1 ? op->inputs[0] : NULL;
}

HRESULT vkdml_generator_validate(struct vkdml_backend_device *device, const struct vkdml_operator_view *op)
{
    const DML_BUFFER_TENSOR_DESC *output = op->outputs[0], *input = diagonal_input(op);
    DML_TENSOR_DATA_TYPE value_type;
    HRESULT hr;

    if (op->type == DML_OPERATOR_DIAGONAL_MATRIX)
        return vkdml_check_index_range(op, output, "OutputTensor");
    value_type = op->type == DML_OPERATOR_DIAGONAL_MATRIX1
            ? ((const DML_DIAGONAL_MATRIX1_OPERATOR_DESC *)op->desc)->ValueDataType
            : ((const DML_FILL_VALUE_CONSTANT_OPERATOR_DESC *)op->desc)->ValueDataType;
    if (value_type != output->DataType)
        return vkdml_op_error(op, E_INVALIDARG, "ValueDataType=%s must equal OutputTensor.DataType=%s.",
                debugstr_data_type(value_type), debugstr_data_type(output->DataType));
    if (input && FAILED(hr = vkdml_validate_same_sizes(op, input, "InputTensor", output, "OutputTensor")))
        return hr;
    if (input && FAILED(hr = vkdml_check_index_range(op, input, "InputTensor")))
        return hr;
    return vkdml_check_index_range(op, output, "OutputTensor");
}

/* The scalar's bits of `type` as the kernel's (low, high) words; narrower types zero-extended. */
static void set_scalar(uint32_t words[2], const DML_SCALAR_UNION *value, DML_TENSOR_DATA_TYPE type)
{
    uint64_t bits = 0;

    memcpy(&bits, value->Bytes, vkdml_element_size(type));
    words[0] = (uint32_t)bits;
    words[1] = (uint32_t)(bits >> 32);
}

/* FLOAT32 to FLOAT16 bits, rounded to nearest even. */
static uint16_t half_bits(float value)
{
    uint32_t bits, sign;

    memcpy(&bits, &value, sizeof(bits));
    sign = (bits >> 16) & 0x8000;
    bits &= 0x7fffffff;
    if (bits > 0x7f800000)
        return sign | 0x7e00;
    if (bits >= 0x477ff000)             /* 65520 and above round to infinity */
        return sign | 0x7c00;
    if (bits < 0x38800000)              /* below 2^-14: subnormal steps of 2^-24, exact in fp32 */
        return sign | (uint16_t)nearbyintf(fabsf(value) * 16777216.0f);
    bits -= 0x38000000;                 /* rebias the exponent, then round the 13 dropped bits */
    return sign | ((bits + 0xfff + ((bits >> 13) & 1)) >> 13);
}

/* DIAGONAL_MATRIX's FLOAT Value in `type`: integers truncated toward zero and saturated, NaN 0. */
static void set_float_value(uint32_t words[2], float value, DML_TENSOR_DATA_TYPE type)
{
    double v = isnan(value) ? 0.0 : trunc(value), low, high;
    unsigned int bits = 8 * vkdml_element_size(type);
    uint64_t result;

    if (type == DML_TENSOR_DATA_TYPE_FLOAT32)
    {
        uint32_t single;

        memcpy(&single, &value, sizeof(single));
        result = single;
    }
    else if (type == DML_TENSOR_DATA_TYPE_FLOAT64)
    {
        double wide = value;

        memcpy(&result, &wide, sizeof(result));
    }
    else if (type == DML_TENSOR_DATA_TYPE_FLOAT16)
    {
        result = half_bits(value);
    }
    else if (type == DML_TENSOR_DATA_TYPE_INT8 || type == DML_TENSOR_DATA_TYPE_INT16
            || type == DML_TENSOR_DATA_TYPE_INT32 || type == DML_TENSOR_DATA_TYPE_INT64)
    {
        high = ldexp(1.0, bits - 1);
        low = -high;
        result = v <= low ? (uint64_t)1 << (bits - 1) : v >= high ? ((uint64_t)1 << (bits - 1)) - 1
                : (uint64_t)(int64_t)v;
    }
    else
    {
        high = ldexp(1.0, bits);
        result = v <= 0.0 ? 0 : v >= high ? ~(uint64_t)0 : (uint64_t)v;
    }
    if (bits < 64)
        result &= ((uint64_t)1 << bits) - 1;
    words[0] = (uint32_t)result;
    words[1] = (uint32_t)(result >> 32);
}

/* DIAGONAL: the span of x - y that gets Value as first, last (inclusive) and invert. */
static void set_diagonal(struct generator_push *push, int64_t begin, int64_t end)
{
    bool invert = end < begin;
    int64_t first = invert ? end : begin, last = (invert ? begin : end) - 1;

    /* x - y lies in [-2^31, 2^31): clamping keeps the span's meaning there; empty stays empty. */
    if (last < first)
        first = 1, last = 0;
    push->diagonal[0] = (int32_t)(first < INT32_MIN ? INT32_MIN : first > INT32_MAX ? INT32_MAX : first);
    push->diagonal[1] = (int32_t)(last < INT32_MIN ? INT32_MIN : last > INT32_MAX ? INT32_MAX : last);
    push->diagonal_invert = invert;
}

static void fill_push(const struct vkdml_compile *compile, struct generator_push *push)
{
    const DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC *desc = compile->op->desc;
    const DML_DIAGONAL_MATRIX1_OPERATOR_DESC *diagonal1 = compile->op->desc;
    const DML_DIAGONAL_MATRIX_OPERATOR_DESC *diagonal = compile->op->desc;
    DML_TENSOR_DATA_TYPE type = compile->op->outputs[0]->DataType;

    memset(push, 0, sizeof(*push));
    if (compile->op->type == DML_OPERATOR_DIAGONAL_MATRIX)
    {
        set_float_value(push->value, diagonal->Value, type);
        set_diagonal(push, diagonal->Offset, (int64_t)diagonal->Offset + 1);
        return;
    }
    if (compile->op->type == DML_OPERATOR_DIAGONAL_MATRIX1)
    {
        set_scalar(push->value, &diagonal1->Value, type);
        set_diagonal(push, diagonal1->DiagonalFillBegin, diagonal1->DiagonalFillEnd);
        return;
    }
    set_scalar(push->value, &desc->ValueStart, type);
    /* CONSTANT's desc ends before ValueDelta. */
    if (is_sequence(compile->op))
        set_scalar(push->delta, &desc->ValueDelta, type);
}


/* Dimension i of the output is kernel dimension GENERATOR_MAX_RANK - rank + i; leading ones have
 * size 1. Packed when the strides are row-major (no Strides, or equal ones). */
static void fill_spec(const struct vkdml_compile *compile, uint32_t spec[GENERATOR_SPEC_COUNT])
{
    const DML_BUFFER_TENSOR_DESC *output = compile->op->outputs[0], *input = diagonal_input(compile->op);
    uint32_t first = GENERATOR_MAX_RANK - output->DimensionCount, i;
    bool packed = vkdml_tensor_is_packed(output);

    for (i = 0; i < GENERATOR_MAX_RANK; ++i)
        spec[GENERATOR_SPEC_SIZES + i] = 1;
    for (i = 0; i < output->DimensionCount; ++i)
    {
        spec[GENERATOR_SPEC_SIZES + first + i] = output->Sizes[i];
        spec[GENERATOR_SPEC_STRIDES + first + i] = vkdml_tensor_stride(output, i);
        if (input)
            spec[GENERATOR_SPEC_IN_STRIDES + first + i] = vkdml_tensor_stride(input, i);
    }
    spec[GENERATOR_SPEC_DIAGONAL] = is_diagonal(compile->op);
    spec[GENERATOR_SPEC_HAS_INPUT] = !!input;
    spec[GENERATOR_SPEC_IN_PACKED] = input && vkdml_tensor_is_packed(input);
    if (input)
        vkdml_set_location(&spec[GENERATOR_SPEC_IN_LOCATION], &compile->inputs[0]);
    spec[GENERATOR_SPEC_TYPE] = output->DataType;   /* TIO_TYPE_* are DML's values (tensor_io.glsl) */
    spec[GENERATOR_SPEC_SEQUENCE] = is_sequence(compile->op);
    spec[GENERATOR_SPEC_PACKED] = packed;
    spec[GENERATOR_SPEC_COUNT_ELEMENTS] = (uint32_t)vkdml_tensor_element_count(output);
    /* Packed: 16 bytes per invocation (one vector store). */
    spec[GENERATOR_SPEC_VECTOR] = packed ? 16 / vkdml_element_size(output->DataType) : 1;
    vkdml_set_location(&spec[GENERATOR_SPEC_OUT_LOCATION], &compile->outputs[0]);
}

HRESULT vkdml_generator_compile(struct vkdml_compile *compile)
{
    DML_TENSOR_DATA_TYPE type = compile->op->outputs[0]->DataType;
    uint32_t spec[GENERATOR_SPEC_COUNT] = {0}, groups[3];
    struct generator_push push;
    enum vkdml_kernel_id kernel;
    uint64_t invocations;
    HRESULT hr;

    if (!vkdml_find_kernel_variant(&compile->vk->caps, "generator", NULL, vkdml_move_kernel_features(type), &kernel))
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
