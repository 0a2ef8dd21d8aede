/*
 * The element-wise family: every ELEMENT_WISE_* operator but the quantized ones and CLIP_GRAD*,
 * the element-wise ACTIVATION_* operators and CAST, as one dispatch of kernels_glsl/
 * elementwise_unary.comp, elementwise_binary.comp or elementwise_cast.comp
 * (include/elementwise_interface.h describes the kernels, their variants, domains and
 * constants; README "CAST: decisions" the conversions). IDENTITY copies that transpose take the
 * tiled transpose instead (transpose.c). The graph compiler's element-wise chains (several of
 * these operators in one dispatch of elementwise_chain.comp, docs/graph.md) compile here too.
 *
 * DirectML's rules for these operators: every tensor has the output's DimensionCount and Sizes
 * (broadcasting is expressed with 0-strides, never with size-1 dimensions); the data types and
 * ranks are those of the operator's "Tensor support" table at FL 6_4, checked generically from
 * tools/directml-schema.json (docs/schema.md): the tensors share one type except where the
 * operator says otherwise: predicates (comparisons, IS_NAN, IS_INFINITY, BIT_COUNT) write UINT8
 * or UINT32 from inputs of one type, IF's ConditionTensor is UINT8, POW's ExponentTensor may have
 * any of POW's types. Left here, as the schema cannot say them: ScaleBias applies to float tensors
 * only; CLIP1's MinMaxDataType; ADD1's FusedActivation follows the fused-activation rules
 * (activation.c).
 *
 * Decisions where DirectML is silent (the kernels' headers give the numerics):
 * - CLIP and THRESHOLD on integer tensors clamp to the integers inside [Min, Max]: ceil(Min) and
 *   floor(Max), saturated to the type's range. CLIP and CLIP1 require Min <= Max.
 * - Integer ACTIVATION_SHRINK compares exactly (x < -Threshold, x > Threshold) and adds or
 *   subtracts Bias truncated toward zero.
 * - CONSTANT_POW also takes the 8-, 16- and 32-bit integer types: DirectML's feature-level history
 *   lists it with POW among the operators that gained integer support at FL 3_0, although its
 *   tensor-support table shows FLOAT32 and FLOAT16 only.
 * - DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION is accepted and ignored: FLOAT16 is always
 *   computed in fp32.
 */

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops_private.h"
#include "elementwise_interface.h"

/* How an operator's tensors relate. */
enum ew_kind
{
    EW_KIND_SAME,               /* every tensor has the output's type */
    EW_KIND_PREDICATE,          /* inputs share a type; the output is UINT8/UINT32 */
    EW_KIND_POW,                /* ExponentTensor: any of the operator's types */
    EW_KIND_IF,                 /* ConditionTensor UINT8; A, B, output share a type */
    EW_KIND_CAST,               /* any input type to any output type (elementwise_cast.comp) */
};

/* Which compute domain the operand type maps to. */
enum ew_rule
{
    EW_RULE_VALUE,              /* the operand type's own domain */
    EW_RULE_BITS,               /* the encoding: an unsigned domain of the type's width */
    EW_RULE_MOVE,               /* a data move: FLOAT32/FLOAT16 as bits, unless ScaleBias applies */
};

typedef HRESULT (*ew_attribute_fn)(const struct vkdml_operator_view *op, DML_TENSOR_DATA_TYPE type,
        uint32_t attributes[EW_ATTRIBUTE_COUNT]);

static HRESULT clip_attributes(const struct vkdml_operator_view *op, DML_TENSOR_DATA_TYPE type, uint32_t *attributes);
static HRESULT clip1_attributes(const struct vkdml_operator_view *op, DML_TENSOR_DATA_TYPE type, uint32_t *attributes);
static HRESULT threshold_attributes(const struct vkdml_operator_view *op, DML_TENSOR_DATA_TYPE type, uint32_t *attributes);
static HRESULT round_attributes(const struct vkdml_operator_view *op, DML_TENSOR_DATA_TYPE type, uint32_t *attributes);
static HRESULT is_infinity_attributes(const struct vkdml_operator_view *op, DML_TENSOR_DATA_TYPE type, uint32_t *attributes);
static HRESULT constant_pow_attributes(const struct vkdml_operator_view *op, DML_TENSOR_DATA_TYPE type, uint32_t *attributes);
static HRESULT shrink_attributes(const struct vkdml_operator_view *op, DML_TENSOR_DATA_TYPE type, uint32_t *attributes);

/* One row per operator. ScaleBias and FusedActivation fields are found through the schema. */
struct ew_operator
{
    DML_OPERATOR_TYPE type;
    uint8_t op;                         /* EW_OP_* */
    uint8_t kind;                       /* enum ew_kind */
    uint8_t rule;                       /* enum ew_rule */
    bool activation;                    /* an ACTIVATION_* operator: its own desc is the kernel's activation */
    ew_attribute_fn attributes;         /* NULL: none */
};

/* ELEMENT_WISE_<name>: every tensor of one type, computed in that type's domain. */
#define SAME(name) {DML_OPERATOR_ELEMENT_WISE_##name, EW_OP_##name, EW_KIND_SAME, EW_RULE_VALUE, false, NULL}
#define SAME_ATTR(name, code, fn) \
        {DML_OPERATOR_ELEMENT_WISE_##name, EW_OP_##code, EW_KIND_SAME, EW_RULE_VALUE, false, fn}
#define BITWISE(name) {DML_OPERATOR_ELEMENT_WISE_##name, EW_OP_##name, EW_KIND_SAME, EW_RULE_BITS, false, NULL}
#define COMPARISON(name) {DML_OPERATOR_ELEMENT_WISE_LOGICAL_##name, EW_OP_##name, EW_KIND_PREDICATE, EW_RULE_VALUE, false, \
        NULL}
#define ACTIVATION(name) {DML_OPERATOR_ACTIVATION_##name, EW_OP_IDENTITY, EW_KIND_SAME, EW_RULE_VALUE, true, NULL}

static const struct ew_operator ops[] =
{
    {DML_OPERATOR_ELEMENT_WISE_IDENTITY, EW_OP_IDENTITY, EW_KIND_SAME, EW_RULE_MOVE, false, NULL},
    SAME(ABS),
    SAME(ACOS),
    SAME(ACOSH),
    SAME(ASIN),
    SAME(ASINH),
    SAME(ATAN),
    SAME(ATANH),
    SAME(CEIL),
    SAME_ATTR(CLIP, CLIP, clip_attributes),
    SAME_ATTR(CLIP1, CLIP, clip1_attributes),
    SAME(COS),
    SAME(COSH),
    SAME(ERF),
    SAME(EXP),
    SAME(FLOOR),
    SAME(LOG),
    SAME(NEGATE),
    SAME(RECIP),
    SAME_ATTR(ROUND, ROUND, round_attributes),
    SAME(SIGN),
    SAME(SIN),
    SAME(SINH),
    SAME(SQRT),
    SAME(TAN),
    SAME(TANH),
    SAME_ATTR(THRESHOLD, CLIP, threshold_attributes),
    SAME_ATTR(CONSTANT_POW, CONSTANT_POW, constant_pow_attributes),
    {DML_OPERATOR_ELEMENT_WISE_IS_NAN, EW_OP_IS_NAN, EW_KIND_PREDICATE, EW_RULE_VALUE, false, NULL},
    {DML_OPERATOR_ELEMENT_WISE_IS_INFINITY, EW_OP_IS_INFINITY, EW_KIND_PREDICATE, EW_RULE_VALUE, false,
            is_infinity_attributes},
    SAME(LOGICAL_NOT),
    BITWISE(BIT_NOT),
    {DML_OPERATOR_ELEMENT_WISE_BIT_COUNT, EW_OP_BIT_COUNT, EW_KIND_PREDICATE, EW_RULE_BITS, false, NULL},
    {DML_OPERATOR_CAST, EW_OP_CAST, EW_KIND_CAST, EW_RULE_BITS, false, NULL},

    SAME(ADD),
    {DML_OPERATOR_ELEMENT_WISE_ADD1, EW_OP_ADD, EW_KIND_SAME, EW_RULE_VALUE, false, NULL},
    SAME(SUBTRACT),
    SAME(MULTIPLY),
    SAME(DIVIDE),
    SAME(MAX),
    SAME(MIN),
    SAME(MEAN),
    {DML_OPERATOR_ELEMENT_WISE_POW, EW_OP_POW, EW_KIND_POW, EW_RULE_VALUE, false, NULL},
    SAME(ATAN_YX),
    SAME(DIFFERENCE_SQUARE),
    SAME(MODULUS_TRUNCATE),
    SAME(MODULUS_FLOOR),
    {DML_OPERATOR_ELEMENT_WISE_IF, EW_OP_IF, EW_KIND_IF, EW_RULE_MOVE, false, NULL},
    SAME(LOGICAL_AND),
    SAME(LOGICAL_OR),
    SAME(LOGICAL_XOR),
    COMPARISON(EQUALS),
    COMPARISON(GREATER_THAN),
    COMPARISON(LESS_THAN),
    COMPARISON(GREATER_THAN_OR_EQUAL),
    COMPARISON(LESS_THAN_OR_EQUAL),
    BITWISE(BIT_AND),
    BITWISE(BIT_OR),
    BITWISE(BIT_XOR),
    BITWISE(BIT_SHIFT_LEFT),
    BITWISE(BIT_SHIFT_RIGHT),

    ACTIVATION(ELU),
    ACTIVATION(CELU),
    ACTIVATION(GELU),
    ACTIVATION(HARD_SIGMOID),
    ACTIVATION(HARD_SWISH),
    {DML_OPERATOR_ACTIVATION_IDENTITY, EW_OP_IDENTITY, EW_KIND_SAME, EW_RULE_MOVE, true, NULL},
    ACTIVATION(LEAKY_RELU),
    ACTIVATION(LINEAR),
    {DML_OPERATOR_ACTIVATION_PARAMETERIZED_RELU, EW_OP_PRELU, EW_KIND_SAME, EW_RULE_VALUE, false, NULL},
    ACTIVATION(PARAMETRIC_SOFTPLUS),
    ACTIVATION(RELU),
    ACTIVATION(SCALED_ELU),
    ACTIVATION(SCALED_TANH),
    {DML_OPERATOR_ACTIVATION_SHRINK, EW_OP_IDENTITY, EW_KIND_SAME, EW_RULE_VALUE, true, shrink_attributes},
    ACTIVATION(SIGMOID),
    ACTIVATION(SOFTPLUS),
    ACTIVATION(SOFTSIGN),
    ACTIVATION(SWISH),
    ACTIVATION(TANH),
    ACTIVATION(THRESHOLDED_RELU),
};

#undef SAME
#undef SAME_ATTR
#undef BITWISE
#undef COMPARISON
#undef ACTIVATION

static const struct ew_operator *find_operator(DML_OPERATOR_TYPE type)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE(ops); ++i)
    {
        if (ops[i].type == type)
            return &ops[i];
    }
    return NULL;
}

/* ---- Types ---- */

static bool is_float_type(DML_TENSOR_DATA_TYPE type)
{
    return type == DML_TENSOR_DATA_TYPE_FLOAT32 || type == DML_TENSOR_DATA_TYPE_FLOAT16
            || type == DML_TENSOR_DATA_TYPE_FLOAT64;
}

static bool is_signed_type(DML_TENSOR_DATA_TYPE type)
{
    return type == DML_TENSOR_DATA_TYPE_INT8 || type == DML_TENSOR_DATA_TYPE_INT16
            || type == DML_TENSOR_DATA_TYPE_INT32 || type == DML_TENSOR_DATA_TYPE_INT64;
}


/* ---- The desc ---- */

/* The pointer in the desc's field of `kind`, or NULL when the operator has no such field. */
static const void *desc_pointer(const struct vkdml_operator_view *op, enum vkdml_field_kind kind)
{
    const struct vkdml_op_schema *schema = vkdml_op_schema_get(op->type);
    uint32_t i;

    for (i = 0; schema && i < schema->field_count; ++i)
    {
        if (schema->fields[i].kind == kind)
            return *(const void *const *)((const char *)op->desc + schema->fields[i].offset);
    }
    return NULL;
}

static const DML_SCALE_BIAS *op_scale_bias(const struct vkdml_operator_view *op)
{
    return desc_pointer(op, VKDML_FIELD_SCALE_BIAS);
}

static const DML_OPERATOR_DESC *op_fused_activation(const struct vkdml_operator_view *op)
{
    return desc_pointer(op, VKDML_FIELD_OPERATOR_DESC);
}

/* The desc's name of tensor `index` ("ATensor", "InputTensor"), from the schema. */
static const char *tensor_name(const struct vkdml_operator_view *op, bool output, uint32_t index)
{
    const struct vkdml_op_schema *schema = vkdml_op_schema_get(op->type);
    enum vkdml_field_role role = output ? VKDML_ROLE_OUTPUT : VKDML_ROLE_INPUT;
    uint32_t i, seen = 0;

    for (i = 0; schema && i < schema->field_count; ++i)
    {
        if (schema->fields[i].role == role && seen++ == index)
            return schema->fields[i].name;
    }
    return vkdml_debug_sprintf("%s %u", output ? "output" : "input", index);
}

/* The input whose type the operator computes in: A of IF, else the first. */
static uint32_t operand_index(const struct ew_operator *info)
{
    return info->kind == EW_KIND_IF ? 1 : 0;
}

/* ---- Attributes ---- */

static void set_attribute64(uint32_t *attributes, unsigned int index, uint64_t value)
{
    attributes[index] = (uint32_t)value;
    attributes[index + 1] = (uint32_t)(value >> 32);
}

/* The integer `value` rounds to (ceil for a lower bound, floor for an upper one), saturated to
 * `type`'s range, as the 64-bit pattern the kernel compares with; NaN gives the bound that never
 * applies. The limits are compared as doubles (2^(bits-1), 2^bits exactly) but returned as
 * integers: INT64_MAX has no double. */
static uint64_t integer_bound(DML_TENSOR_DATA_TYPE type, double value, bool lower)
{
    unsigned int bits = vkdml_data_type_bits(type);
    bool is_signed = is_signed_type(type);
    uint64_t max = is_signed ? (UINT64_C(1) << (bits - 1)) - 1 : (bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1);
    uint64_t min = is_signed ? ~max : 0;
    double lo = is_signed ? -ldexp(1.0, bits - 1) : 0.0, hi = ldexp(1.0, is_signed ? bits - 1 : bits);

    if (isnan(value))
        return lower ? min : max;
    value = lower ? ceil(value) : floor(value);
    if (value <= lo)
        return min;
    if (value >= hi)
        return max;
    return is_signed ? (uint64_t)(int64_t)value : (uint64_t)value;
}

/* Clamp bounds for the kernel's EW_OP_CLIP in `type`'s domain. */
static void set_clip_bounds(DML_TENSOR_DATA_TYPE type, double min, double max, uint32_t *attributes)
{
    if (is_float_type(type))
    {
        attributes[EW_ATTR_CLIP_MIN] = vkdml_float_bits((float)min);
        attributes[EW_ATTR_CLIP_MAX] = vkdml_float_bits((float)max);
        return;
    }
    set_attribute64(attributes, EW_ATTR_CLIP_MIN, integer_bound(type, min, true));
    set_attribute64(attributes, EW_ATTR_CLIP_MAX, integer_bound(type, max, false));
}

static HRESULT clip_attributes(const struct vkdml_operator_view *op, DML_TENSOR_DATA_TYPE type, uint32_t *attributes)
{
    const DML_ELEMENT_WISE_CLIP_OPERATOR_DESC *desc = op->desc;

    /* DirectML defines max(Min, min(x, Max)) with no Min <= Max rule: Min > Max gives Min. */
    set_clip_bounds(type, desc->Min, desc->Max, attributes);
    return S_OK;
}

static float half_to_float(uint16_t half)
{
    unsigned int exponent = (half >> 10) & 0x1f, mantissa = half & 0x3ff;
    float magnitude;

    if (exponent == 0x1f)
        magnitude = mantissa ? NAN : INFINITY;
    else if (exponent)
        magnitude = ldexpf((float)(mantissa | 0x400), (int)exponent - 25);
    else
        magnitude = ldexpf((float)mantissa, -24);
    return half & 0x8000 ? -magnitude : magnitude;
}

/* A DML_SCALAR_UNION of `type`: floats as double, integers as their 64-bit pattern. */
static void scalar_value(DML_TENSOR_DATA_TYPE type, const DML_SCALAR_UNION *scalar, double *f, uint64_t *u)
{
    *f = 0.0;
    *u = 0;
    switch (type)
    {
        case DML_TENSOR_DATA_TYPE_FLOAT32: *f = scalar->Float32; break;
        case DML_TENSOR_DATA_TYPE_FLOAT16: *f = half_to_float(scalar->UInt16); break;
        case DML_TENSOR_DATA_TYPE_FLOAT64: *f = scalar->Float64; break;
        case DML_TENSOR_DATA_TYPE_INT8: *u = (uint64_t)(int64_t)scalar->Int8; break;
        case DML_TENSOR_DATA_TYPE_INT16: *u = (uint64_t)(int64_t)scalar->Int16; break;
        case DML_TENSOR_DATA_TYPE_INT32: *u = (uint64_t)(int64_t)scalar->Int32; break;
        case DML_TENSOR_DATA_TYPE_UINT8: *u = scalar->UInt8; break;
        case DML_TENSOR_DATA_TYPE_UINT16: *u = scalar->UInt16; break;
        case DML_TENSOR_DATA_TYPE_UINT32: *u = scalar->UInt32; break;
        default: *u = scalar->UInt64; break;
    }
}

static HRESULT clip1_attributes(const struct vkdml_operator_view *op, DML_TENSOR_DATA_TYPE type, uint32_t *attributes)
{
    const DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC *desc = op->desc;
    uint64_t min_bits, max_bits;
    double min, max;

    if (desc->MinMaxDataType != type)
        return vkdml_op_error(op, E_INVALIDARG, "MinMaxDataType=%s must equal OutputTensor.DataType=%s.",
                debugstr_data_type(desc->MinMaxDataType), debugstr_data_type(type));
    scalar_value(type, &desc->Min, &min, &min_bits);
    scalar_value(type, &desc->Max, &max, &max_bits);
    if (is_float_type(type))
    {
        set_clip_bounds(type, min, max, attributes);
        return S_OK;
    }
    set_attribute64(attributes, EW_ATTR_CLIP_MIN, min_bits);
    set_attribute64(attributes, EW_ATTR_CLIP_MAX, max_bits);
    return S_OK;
}

static HRESULT threshold_attributes(const struct vkdml_operator_view *op, DML_TENSOR_DATA_TYPE type,
        uint32_t *attributes)
{
    const DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC *desc = op->desc;

    set_clip_bounds(type, desc->Min, INFINITY, attributes);
    return S_OK;
}

static HRESULT round_attributes(const struct vkdml_operator_view *op, DML_TENSOR_DATA_TYPE type, uint32_t *attributes)
{
    attributes[0] = ((const DML_ELEMENT_WISE_ROUND_OPERATOR_DESC *)op->desc)->RoundingMode;
    return S_OK;
}

static HRESULT is_infinity_attributes(const struct vkdml_operator_view *op, DML_TENSOR_DATA_TYPE type,
        uint32_t *attributes)
{
    attributes[0] = ((const DML_ELEMENT_WISE_IS_INFINITY_OPERATOR_DESC *)op->desc)->InfinityMode;
    return S_OK;
}

static HRESULT constant_pow_attributes(const struct vkdml_operator_view *op, DML_TENSOR_DATA_TYPE type,
        uint32_t *attributes)
{
    attributes[0] = vkdml_float_bits(((const DML_ELEMENT_WISE_CONSTANT_POW_OPERATOR_DESC *)op->desc)->Exponent);
    return S_OK;
}

/* Integer SHRINK (the float one is the kernel's activation): x <= LOW ⟺ x < -Threshold and
 * x >= HIGH ⟺ x > Threshold for integers x; a bound outside the type's range never holds. */
static HRESULT shrink_attributes(const struct vkdml_operator_view *op, DML_TENSOR_DATA_TYPE type, uint32_t *attributes)
{
    const DML_ACTIVATION_SHRINK_OPERATOR_DESC *desc = op->desc;
    unsigned int bits = vkdml_data_type_bits(type);
    double lo = is_signed_type(type) ? -ldexp(1.0, bits - 1) : 0.0;
    double hi = (is_signed_type(type) ? ldexp(1.0, bits - 1) : ldexp(1.0, bits)) - 1.0;
    double low = ceil(-(double)desc->Threshold) - 1.0, high = floor(desc->Threshold) + 1.0;
    double bias = trunc(desc->Bias);

    if (is_float_type(type))
        return S_OK;
    if (isnan(low) || low < lo)
        attributes[EW_ATTR_SHRINK_FLAGS] |= EW_SHRINK_NO_LOW;
    if (isnan(high) || high > hi)
        attributes[EW_ATTR_SHRINK_FLAGS] |= EW_SHRINK_NO_HIGH;
    attributes[EW_ATTR_SHRINK_LOW] = (uint32_t)(int64_t)fmin(isnan(low) ? lo : low, hi);
    attributes[EW_ATTR_SHRINK_HIGH] = (uint32_t)(int64_t)fmax(isnan(high) ? hi : high, lo);
    /* Wrapping arithmetic makes any bias a 32-bit pattern; saturate what int64 cannot hold. */
    attributes[EW_ATTR_SHRINK_BIAS] = isnan(bias) ? 0 : (uint32_t)(int64_t)fmax(fmin(bias, 9.2e18), -9.2e18);
    return S_OK;
}

/* ---- Validation ---- */

static HRESULT validate_shape(const struct vkdml_operator_view *op, uint32_t index)
{
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[index], *output = op->outputs[0];
    const char *name = tensor_name(op, false, index);
    uint32_t i;

    if (!input)
        return vkdml_op_error(op, E_INVALIDARG, "%s must not be NULL.", name);
    if (input->DimensionCount != output->DimensionCount)
        return vkdml_op_error(op, E_INVALIDARG, "%s.DimensionCount=%u must equal OutputTensor.DimensionCount=%u.",
                name, input->DimensionCount, output->DimensionCount);
    for (i = 0; i < output->DimensionCount; ++i)
    {
        if (input->Sizes[i] != output->Sizes[i])
            return vkdml_op_error(op, E_INVALIDARG, "%s.Sizes[%u]=%u is not broadcastable to OutputTensor.Sizes[%u]=%u "
                    "(sizes must be equal; broadcast with 0-strides).", name, i, input->Sizes[i], i, output->Sizes[i]);
    }
    return S_OK;
}

/* Strides in elements, packed row-major when the desc has none. */
static void tensor_strides(const DML_BUFFER_TENSOR_DESC *tensor, uint32_t strides[EW_MAX_RANK])
{
    uint32_t i;

    for (i = 0; i < tensor->DimensionCount; ++i)
        strides[i] = vkdml_tensor_stride(tensor, i);
}

/* The kernel's element offsets are 32-bit. */
static HRESULT validate_index_range(const struct vkdml_operator_view *op, bool output, uint32_t index)
{
    const DML_BUFFER_TENSOR_DESC *tensor = output ? op->outputs[index] : op->inputs[index];
    uint64_t last = vkdml_tensor_last_element(tensor);

    if (last > UINT32_MAX)
        return vkdml_op_error(op, E_INVALIDARG, "%s addresses element %" PRIu64 "; element offsets must be below 2^32.",
                tensor_name(op, output, index), last);
    return S_OK;
}

static DML_TENSOR_DATA_TYPE operand_type(const struct ew_operator *info, const struct vkdml_operator_view *op)
{
    return op->inputs[operand_index(info)]->DataType;
}

static HRESULT validate_attributes(const struct ew_operator *info, const struct vkdml_operator_view *op)
{
    uint32_t attributes[EW_ATTRIBUTE_COUNT] = {0};
    DML_TENSOR_DATA_TYPE type = operand_type(info, op);
    HRESULT hr;

    if (op_scale_bias(op) && !is_float_type(type))
        return vkdml_op_error(op, E_INVALIDARG, "ScaleBias must be NULL for %s tensors (float tensors only).",
                debugstr_data_type(type));
    if (FAILED(hr = vkdml_validate_fused_activation(op, op_fused_activation(op))))
        return hr;
    return info->attributes ? info->attributes(op, type, attributes) : S_OK;
}

static HRESULT validate_device_types(struct vkdml_backend_device *device, const struct vkdml_operator_view *op)
{
    uint32_t i;

    for (i = 0; i <= op->input_count; ++i)
    {
        DML_TENSOR_DATA_TYPE type = (i < op->input_count ? op->inputs[i] : op->outputs[0])->DataType;

        if (!vkdml_backend_data_type_supported(device, type))
            return vkdml_op_error(op, E_NOTIMPL, "%s tensors are not supported by this device.", debugstr_data_type(type));
    }
    return S_OK;
}

HRESULT vkdml_elementwise_validate(struct vkdml_backend_device *device, const struct vkdml_operator_view *op)
{
    const struct ew_operator *info = find_operator(op->type);
    uint32_t i;
    HRESULT hr;

    if (!info || op->output_count != 1 || !op->input_count || op->input_count > EW_MAX_INPUTS)
        return vkdml_op_error(op, E_NOTIMPL, "not an element-wise operator vkdml implements.");
    if (!op->outputs[0])
        return vkdml_op_error(op, E_INVALIDARG, "OutputTensor must not be NULL.");
    for (i = 0; i < op->input_count; ++i)
    {
        if (FAILED(hr = validate_shape(op, i)))
            return hr;
    }
    if (FAILED(hr = validate_attributes(info, op)))
        return hr;
    for (i = 0; i < op->input_count; ++i)
    {
        if (FAILED(hr = validate_index_range(op, false, i)))
            return hr;
    }
    if (FAILED(hr = validate_index_range(op, true, 0)))
        return hr;
    return validate_device_types(device, op);
}

/* ---- Kernels: domains and variants ---- */

static uint32_t domain_of(DML_TENSOR_DATA_TYPE type)
{
    switch (type)
    {
        case DML_TENSOR_DATA_TYPE_INT32:
        case DML_TENSOR_DATA_TYPE_INT16:
        case DML_TENSOR_DATA_TYPE_INT8:
            return EW_DOMAIN_INT;
        case DML_TENSOR_DATA_TYPE_UINT32:
        case DML_TENSOR_DATA_TYPE_UINT16:
        case DML_TENSOR_DATA_TYPE_UINT8:
            return EW_DOMAIN_UINT;
        case DML_TENSOR_DATA_TYPE_INT64:
            return EW_DOMAIN_INT64;
        case DML_TENSOR_DATA_TYPE_UINT64:
            return EW_DOMAIN_UINT64;
        case DML_TENSOR_DATA_TYPE_FLOAT64:
            return EW_DOMAIN_DOUBLE;
        default:
            return EW_DOMAIN_FLOAT;
    }
}

/* The domain the kernel computes in (elementwise_interface.h). */
static uint32_t compute_domain(const struct ew_operator *info, DML_TENSOR_DATA_TYPE type, bool scale_bias)
{
    bool bits = info->rule == EW_RULE_BITS
            || (info->rule == EW_RULE_MOVE && !scale_bias && type != DML_TENSOR_DATA_TYPE_FLOAT64);

    if (bits && is_float_type(type))
        return vkdml_element_size(type) == 8 ? EW_DOMAIN_UINT64 : EW_DOMAIN_UINT;
    return domain_of(type);
}

/* The variant group holding the op: each variant carries the code of one group only
 * (kernels_glsl/meson.build), the registry's `group`. */
static const char *op_group(uint32_t op, bool float_activation)
{
    switch (op)
    {
        case EW_OP_ACOS: case EW_OP_ASIN: case EW_OP_ATAN: case EW_OP_COS: case EW_OP_SIN: case EW_OP_TAN:
        case EW_OP_ATAN_YX:
            return "trig";
        case EW_OP_ACOSH: case EW_OP_ASINH: case EW_OP_ATANH: case EW_OP_COSH: case EW_OP_SINH: case EW_OP_TANH:
        case EW_OP_ERF: case EW_OP_EXP: case EW_OP_LOG:
            return "exp";
        case EW_OP_POW: case EW_OP_CONSTANT_POW:
            return "pow";
        case EW_OP_CAST:
            return "cast";
        default:
            /* ACTIVATION_* on floats, ADD1's FusedActivation */
            return float_activation ? "activation" : "basic";
    }
}

/* What loading and storing a tensor of `type` needs; FLOAT64 as double only in the DOUBLE domain. */
static uint32_t type_features(DML_TENSOR_DATA_TYPE type, uint32_t domain)
{
    return vkdml_type_kernel_features(type, domain == EW_DOMAIN_DOUBLE);
}

static uint32_t domain_features(uint32_t domain)
{
    if (domain == EW_DOMAIN_INT64 || domain == EW_DOMAIN_UINT64)
        return VKDML_KERNEL_FEATURE_INT64;
    return domain == EW_DOMAIN_DOUBLE ? VKDML_KERNEL_FEATURE_FLOAT64 : 0;
}

static uint32_t tensor_features(const DML_TENSOR_DATA_TYPE *types, uint32_t count, uint32_t domain)
{
    uint32_t features = domain_features(domain), i;

    for (i = 0; i < count; ++i)
        features |= type_features(types[i], domain);
    return features;
}

/* CAST moves 64-bit elements as word pairs and converts them with 32-bit arithmetic. */
static uint32_t cast_features(const DML_TENSOR_DATA_TYPE *types, uint32_t count)
{
    uint32_t features = 0, i;

    for (i = 0; i < count; ++i)
        features |= vkdml_element_size(types[i]) == 8 ? 0 : vkdml_type_kernel_features(types[i], false);
    return features;
}

static const char *kernel_family(const struct ew_operator *info)
{
    if (info->kind == EW_KIND_CAST)
        return "elementwise_cast";
    return info->op >= EW_OP_ADD ? "elementwise_binary" : "elementwise_unary";
}

/* ---- Compilation ---- */

/* The iteration space after dropping size-1 dimensions and merging dimensions that are
 * contiguous in every tensor; innermost first, as the kernel reads it. */
struct ew_shape
{
    uint32_t rank;
    uint32_t sizes[EW_MAX_RANK];
    uint32_t strides[EW_TENSOR_COUNT][EW_MAX_RANK];
};

static void collapse_shape(const struct vkdml_operator_view *op, struct ew_shape *shape)
{
    const DML_BUFFER_TENSOR_DESC *output = op->outputs[0];
    uint32_t strides[EW_TENSOR_COUNT][EW_MAX_RANK] = {{0}};
    uint32_t t, n = 0;
    int d;

    memset(shape, 0, sizeof(*shape));
    for (t = 0; t < op->input_count; ++t)
        tensor_strides(op->inputs[t], strides[t]);
    tensor_strides(output, strides[EW_OUTPUT]);
    for (d = (int)output->DimensionCount - 1; d >= 0; --d)
    {
        bool mergeable = n > 0;

        if (output->Sizes[d] == 1)
            continue;
        /* Absent tensors have 0-strides everywhere, which always merge. */
        for (t = 0; mergeable && t < EW_TENSOR_COUNT; ++t)
            mergeable = strides[t][d] == (uint64_t)shape->strides[t][n - 1] * shape->sizes[n - 1];
        if (mergeable)
        {
            shape->sizes[n - 1] *= output->Sizes[d];
            continue;
        }
        shape->sizes[n] = output->Sizes[d];
        for (t = 0; t < EW_TENSOR_COUNT; ++t)
            shape->strides[t][n] = strides[t][d];
        ++n;
    }
    if (!n)
        shape->sizes[n++] = 1;
    shape->rank = n;
    for (; n < EW_MAX_RANK; ++n)
        shape->sizes[n] = 1;
}

/* Tensor t of the dispatch (inputs, then EW_OUTPUT), NULL when absent. */
static const DML_BUFFER_TENSOR_DESC *dispatch_tensor(const struct vkdml_operator_view *op, uint32_t t)
{
    if (t == EW_OUTPUT)
        return op->outputs[0];
    return t < op->input_count ? op->inputs[t] : NULL;
}

static const struct vkdml_tensor_location *dispatch_location(const struct vkdml_compile *compile, uint32_t t)
{
    return t == EW_OUTPUT ? &compile->outputs[0] : &compile->inputs[t];
}

/* Vector mode (elementwise_interface.h): elements per vector item, 1 when the layout does not
 * allow it. */
static uint32_t vector_width(const struct vkdml_compile *compile, const struct ew_shape *shape)
{
    unsigned int largest = 0, smallest = 8, v;
    uint32_t t, d;

    for (t = 0; t < EW_TENSOR_COUNT; ++t)
    {
        const DML_BUFFER_TENSOR_DESC *tensor = dispatch_tensor(compile->op, t);

        if (tensor)
        {
            largest = VKDML_MAX(largest, vkdml_element_size(tensor->DataType));
            smallest = VKDML_MIN(smallest, vkdml_element_size(tensor->DataType));
        }
    }
    v = 16 / largest;
    if (v < 2 || smallest * v < 4 || shape->strides[EW_OUTPUT][0] != 1 || shape->sizes[0] < v
            || (shape->rank > 1 && shape->sizes[0] % v))
        return 1;
    for (t = 0; t < EW_TENSOR_COUNT; ++t)
    {
        const DML_BUFFER_TENSOR_DESC *tensor = dispatch_tensor(compile->op, t);

        if (!tensor)
            continue;
        if (shape->strides[t][0] > 1)
            return 1;
        if (shape->strides[t][0] == 0)
            continue;               /* broadcast along dimension 0: scalar loads, any alignment */
        if (dispatch_location(compile, t)->offset % (v * vkdml_element_size(tensor->DataType)))
            return 1;
        for (d = 1; d < shape->rank; ++d)
        {
            if (shape->strides[t][d] % v)
                return 1;
        }
    }
    return v;
}

/* A dispatch's record (elementwise_interface.h): what depends on the shape alone, kept out of
 * the pipeline so that shapes share it. */
struct ew_record
{
    uint32_t words[EW_REC_WORDS(EW_TENSOR_COUNT, EW_MAX_RANK)];
};

/* The multiplier with which ew_divide() (elementwise_core.glsl) divides any 32-bit n by `size`
 * (< 2^31) exactly: n / size = (hi + ((n - hi) >> min(l, 1))) >> max(l - 1, 0), where hi is the
 * high word of n * multiplier and l = ceil(log2(size)) (the round-up method). */
static uint32_t division_multiplier(uint32_t size)
{
    unsigned int l = 0;

    while ((UINT64_C(1) << l) < size)
        ++l;
    return (uint32_t)(((((UINT64_C(1) << l) - size) << 32) / size) + 1);
}

/* Word `word` of the record, and with `spec` (a specialized record) its specialization constant. */
static void set_record_word(struct ew_record *record, uint32_t *spec, uint32_t word, uint32_t spec_id,
        uint32_t value)
{
    record->words[word] = value;
    if (spec)
        spec[spec_id] = value;
}

/* Pushed shapes let every shape of a rank share a pipeline, but on NVIDIA's driver they cost each
 * dispatch 0.3 us of GPU time and about 1 us of recording (H200, 580.159.04), more than the
 * pipelines they save cost once (docs/kernels.md): GPUs specialize, CPU devices (lavapipe, where
 * creating pipelines is the expensive part) push. */
static bool push_shapes(const struct vkdml_compile *compile)
{
    if (compile->knobs->elementwise_shapes != VKDML_SHAPES_AUTO)
        return compile->knobs->elementwise_shapes == VKDML_SHAPES_PUSH;
    return compile->vk->adapter.is_software;
}

/* The record of a dispatch over `shape`: pushed when push_shapes() and it fits the push constants,
 * else specialized (elementwise_interface.h). Returns the bytes to push. */
static uint32_t set_record(const struct vkdml_compile *compile, const struct ew_shape *shape,
        uint32_t element_count, uint32_t vector, struct ew_record *record, uint32_t *spec)
{
    uint32_t n = 0, k = 0, rank = shape->rank, t, d;

    for (t = 0; t < EW_TENSOR_COUNT; ++t)
        n += dispatch_tensor(compile->op, t) != NULL;
    memset(record, 0, sizeof(*record));
    if (push_shapes(compile) && EW_REC_WORDS(n, rank) <= EW_PUSH_WORDS)
        spec = NULL;
    else
        spec[EW_SPEC_SHAPE] = 1;
    set_record_word(record, spec, EW_REC_COUNT, EW_SPEC_ELEMENT_COUNT, element_count);
    for (t = 0; t < EW_TENSOR_COUNT; ++t)
    {
        const struct vkdml_tensor_location *location = dispatch_location(compile, t);

        if (!dispatch_tensor(compile->op, t))
            continue;
        record->words[EW_REC_SLOTS] |= location->slot << (8 * k);
        if (spec)
            spec[EW_SPEC_TENSOR(t, EW_SPEC_TENSOR_SLOT)] = location->slot;
        set_record_word(record, spec, EW_REC_OFFSET(k), EW_SPEC_TENSOR(t, EW_SPEC_TENSOR_OFFSET_LO),
                (uint32_t)location->offset);
        set_record_word(record, spec, EW_REC_OFFSET(k) + 1, EW_SPEC_TENSOR(t, EW_SPEC_TENSOR_OFFSET_HI),
                (uint32_t)(location->offset >> 32));
        for (d = 0; d < rank; ++d)
            set_record_word(record, spec, EW_REC_STRIDE(n, rank, k, d),
                    EW_SPEC_TENSOR(t, EW_SPEC_TENSOR_STRIDES + d), shape->strides[t][d]);
        ++k;
    }
    /* Dimension 0 counts vector items; the outermost dimension needs no division. */
    for (d = 0; d + 1 < rank; ++d)
    {
        uint32_t size = d ? shape->sizes[d] : shape->sizes[0] / vector;

        set_record_word(record, spec, EW_REC_DIVISOR(n, d), EW_SPEC_SIZES + d, size);
        record->words[EW_REC_DIVISOR(n, d) + 1] = division_multiplier(size);
    }
    return spec ? 0 : EW_REC_WORDS(n, rank) * sizeof(uint32_t);
}

static void set_tensor_spec(uint32_t *spec, uint32_t t, DML_TENSOR_DATA_TYPE type, const struct ew_shape *shape)
{
    uint32_t stride = shape->strides[t][0];

    spec[EW_SPEC_TENSOR(t, EW_SPEC_TENSOR_TYPE)] = type;
    spec[EW_SPEC_TENSOR(t, EW_SPEC_TENSOR_INNER)] = stride <= 1 ? stride : EW_INNER_STRIDED;
}

/* The operator's activation (VKDML_ACTIVATION_SPEC_COUNT words at `activation`). */
static void set_activation_spec(uint32_t *activation, const struct ew_operator *info,
        const struct vkdml_operator_view *op)
{
    DML_OPERATOR_DESC self = {op->type, op->desc};

    /* An ACTIVATION_* operator maps its own desc exactly as a fused one would be mapped. */
    vkdml_fused_activation_spec(info->activation ? &self : op_fused_activation(op), activation);
}

/* Workgroups along x only; the kernel's grid-stride loop covers what one row of groups can't.
 * `items` are elements, or vectors in vector mode. */
static void dispatch_size(const struct vkdml_compile *compile, uint32_t items, uint32_t groups[3])
{
    uint32_t max_x = compile->vk->caps.properties.limits.maxComputeWorkGroupCount[0];
    uint64_t needed = ((uint64_t)items + EW_DEFAULT_LOCAL_SIZE - 1) / EW_DEFAULT_LOCAL_SIZE;

    groups[0] = (uint32_t)VKDML_MAX(1, VKDML_MIN(needed, (uint64_t)VKDML_MIN(max_x, 65535u)));
    groups[1] = 1;
    groups[2] = 1;
}

static HRESULT find_variant(const struct vkdml_compile *compile, const char *family, const char *group,
        uint32_t features, DML_TENSOR_DATA_TYPE type, enum vkdml_kernel_id *kernel)
{
    if (!vkdml_caps_have_kernel_features(&compile->vk->caps, features))
        return vkdml_op_error(compile->op, E_NOTIMPL, "the device lacks the storage or arithmetic features of %s "
                "tensors.", debugstr_data_type(type));
    if (!vkdml_find_kernel_variant(&compile->vk->caps, family, group, features, kernel))
        return vkdml_op_error(compile->op, E_NOTIMPL, "no element-wise kernel variant holds this mix of data types.");
    return S_OK;
}

static HRESULT choose_kernel(const struct vkdml_compile *compile, const struct ew_operator *info, uint32_t domain,
        const char *group, enum vkdml_kernel_id *kernel)
{
    const struct vkdml_operator_view *op = compile->op;
    DML_TENSOR_DATA_TYPE types[EW_TENSOR_COUNT];
    uint32_t count = 0, features, t;

    for (t = 0; t < EW_TENSOR_COUNT; ++t)
    {
        if (dispatch_tensor(op, t))
            types[count++] = dispatch_tensor(op, t)->DataType;
    }
    features = info->kind == EW_KIND_CAST ? cast_features(types, count) : tensor_features(types, count, domain);
    return find_variant(compile, kernel_family(info), group, features, operand_type(info, op), kernel);
}

static HRESULT set_op_spec(uint32_t *spec, const struct ew_operator *info, const struct vkdml_operator_view *op,
        uint32_t domain)
{
    const DML_SCALE_BIAS *scale_bias = op_scale_bias(op);

    spec[EW_SPEC_OP] = info->op;
    spec[EW_SPEC_DOMAIN] = domain;
    spec[EW_SPEC_PREDICATE] = info->kind == EW_KIND_PREDICATE;
    spec[EW_SPEC_SCALE] = vkdml_float_bits(1.0f);
    if (scale_bias)
    {
        spec[EW_SPEC_SCALE_BIAS] = 1;
        spec[EW_SPEC_SCALE] = vkdml_float_bits(scale_bias->Scale);
        spec[EW_SPEC_BIAS] = vkdml_float_bits(scale_bias->Bias);
    }
    set_activation_spec(&spec[EW_SPEC_ACTIVATION], info, op);
    if (!info->attributes)
        return S_OK;
    return info->attributes(op, operand_type(info, op), &spec[EW_SPEC_ATTRIBUTES]);
}

/* A pure move (IDENTITY without ScaleBias, ACTIVATION_IDENTITY) as a strided copy, for the tiled
 * transpose (README, "Transposes"): S_FALSE when it is not one. */
static HRESULT add_transpose(struct vkdml_compile *compile, const struct ew_operator *info)
{
    const DML_BUFFER_TENSOR_DESC *input = compile->op->inputs[0], *output = compile->op->outputs[0];
    struct vkdml_strided_copy copy;
    uint32_t d;

    if (info->rule != EW_RULE_MOVE || info->op != EW_OP_IDENTITY || op_scale_bias(compile->op)
            || input->DataType != output->DataType)
        return S_FALSE;
    for (d = 0; d < output->DimensionCount; ++d)
    {
        if (vkdml_tensor_stride(input, d) > INT32_MAX || vkdml_tensor_stride(output, d) > INT32_MAX)
            return S_FALSE;
    }
    vkdml_strided_copy_init(&copy, output, input, &compile->inputs[0], output, &compile->outputs[0]);
    return vkdml_transpose_add_dispatch(compile, &copy);
}

/* The dispatch of `kernel` over the op's tensors, `spec` holding what the operation needs: the
 * shape, its record and vector mode added here. */
static HRESULT add_elementwise_dispatch(struct vkdml_compile *compile, enum vkdml_kernel_id kernel, uint32_t *spec,
        uint32_t spec_count)
{
    const struct vkdml_operator_view *op = compile->op;
    uint32_t groups[3], element_count = 1, vector, push_size, d, t;
    struct ew_record record;
    struct ew_shape shape;

    collapse_shape(op, &shape);
    for (d = 0; d < op->outputs[0]->DimensionCount; ++d)
        element_count *= op->outputs[0]->Sizes[d];

    spec[EW_SPEC_LOCAL_SIZE_X] = EW_DEFAULT_LOCAL_SIZE;
    spec[EW_SPEC_RANK] = shape.rank;
    for (t = 0; t < EW_TENSOR_COUNT; ++t)
    {
        if (dispatch_tensor(op, t))
            set_tensor_spec(spec, t, dispatch_tensor(op, t)->DataType, &shape);
    }
    vector = vector_width(compile, &shape);
    spec[EW_SPEC_VECTOR] = vector > 1 ? vector : 0;

    push_size = set_record(compile, &shape, element_count, vector, &record, spec);
    dispatch_size(compile, element_count / vector, groups);
    return vkdml_compile_add_dispatch(compile, kernel, spec, spec_count, record.words, push_size, groups, false);
}

HRESULT vkdml_elementwise_compile(struct vkdml_compile *compile)
{
    const struct vkdml_operator_view *op = compile->op;
    const struct ew_operator *info = find_operator(op->type);
    uint32_t spec[EW_SPEC_COUNT] = {0}, domain;
    enum vkdml_kernel_id kernel = VKDML_KERNEL_ELEMENTWISE_UNARY_BASIC;
    const char *group;
    HRESULT hr;

    if (!info)
        return vkdml_op_error(op, E_NOTIMPL, "not an element-wise operator vkdml implements.");
    if ((hr = add_transpose(compile, info)) != S_FALSE)
        return hr;
    domain = compute_domain(info, operand_type(info, op), op_scale_bias(op) != NULL);
    if (FAILED(hr = set_op_spec(spec, info, op, domain)))
        return hr;
    group = op_group(info->op, domain == EW_DOMAIN_FLOAT && spec[EW_SPEC_ACTIVATION] != VKDML_ACTIVATION_NONE);
    if (FAILED(hr = choose_kernel(compile, info, domain, group, &kernel)))
        return hr;
    return add_elementwise_dispatch(compile, kernel, spec, EW_SPEC_COUNT);
}

/* ---- Chains (the graph compiler's "elementwise" pass, docs/graph.md) ---- */

_Static_assert(VKDML_CHAIN_MAX_STEPS == EW_CHAIN_MAX_STEPS, "chain steps");
_Static_assert(VKDML_CHAIN_MAX_INPUTS == EW_MAX_INPUTS, "chain inputs");
_Static_assert(VKDML_CHAIN_RESULT(1) == EW_CHAIN_RESULT(1), "chain operands");

/* The chain kernel's types: its variants (kernels_glsl/meson.build) hold 16- or 8-bit storage. */
static bool is_chain_type(DML_TENSOR_DATA_TYPE type)
{
    unsigned int size = vkdml_element_size(type);

    return size && size <= 4;
}

bool vkdml_elementwise_chain_accepts(const struct vkdml_operator_view *op)
{
    const struct ew_operator *info = find_operator(op->type);
    DML_TENSOR_DATA_TYPE type;
    bool is_float, activation;
    uint32_t act[VKDML_ACTIVATION_SPEC_COUNT], i;
    const char *group;

    /* Predicates, CAST and IF mix data types; POW only where its exponent has the base's type. */
    if (!info || (info->kind != EW_KIND_SAME && info->kind != EW_KIND_POW) || op->output_count != 1
            || !op->input_count || op->input_count > 2)
        return false;
    type = op->outputs[0]->DataType;
    for (i = 0; i < op->input_count; ++i)
    {
        if (!op->inputs[i] || op->inputs[i]->DataType != type)
            return false;
    }
    if (!is_chain_type(type))
        return false;
    is_float = is_float_type(type);
    set_activation_spec(act, info, op);
    activation = act[0] != VKDML_ACTIVATION_NONE;
    /* Integer activations (RELU, SHRINK), integer POW (its exponent's signedness is the kernel's
     * tensor 1's) and bitwise operators on float bits are their own kernels'. */
    if ((activation || info->kind == EW_KIND_POW) && !is_float)
        return false;
    if (is_float && info->rule == EW_RULE_BITS)
        return false;
    group = op_group(info->op, is_float && activation);
    return strcmp(group, "cast") != 0;
}

/* The chain kernel's group: "math" for any trigonometric, exponential or power step, else
 * "activation" for any activation, else "basic" (kernels_glsl/meson.build). */
static const char *chain_group(const char *group, const char *step_group)
{
    if (!strcmp(group, "math") || (strcmp(step_group, "basic") && strcmp(step_group, "activation")))
        return "math";
    if (!strcmp(group, "activation") || !strcmp(step_group, "activation"))
        return "activation";
    return "basic";
}

static HRESULT set_chain_step(uint32_t *spec, uint32_t k, const struct vkdml_elementwise_chain_step *step,
        DML_TENSOR_DATA_TYPE type)
{
    const struct vkdml_operator_view *op = step->op;
    const struct ew_operator *info = find_operator(op->type);
    const DML_SCALE_BIAS *scale_bias = op_scale_bias(op);
    uint32_t attributes[EW_ATTRIBUTE_COUNT] = {0};
    HRESULT hr;

    spec[EW_SPEC_CHAIN_STEP(k, EW_CHAIN_OP)] = info->op;
    spec[EW_SPEC_CHAIN_STEP(k, EW_CHAIN_A)] = step->operands[0];
    spec[EW_SPEC_CHAIN_STEP(k, EW_CHAIN_B)] = op->input_count > 1 ? step->operands[1] : step->operands[0];
    spec[EW_SPEC_CHAIN_STEP(k, EW_CHAIN_SCALE)] = vkdml_float_bits(1.0f);
    if (scale_bias)
    {
        spec[EW_SPEC_CHAIN_STEP(k, EW_CHAIN_SCALE_BIAS)] = 1;
        spec[EW_SPEC_CHAIN_STEP(k, EW_CHAIN_SCALE)] = vkdml_float_bits(scale_bias->Scale);
        spec[EW_SPEC_CHAIN_STEP(k, EW_CHAIN_BIAS)] = vkdml_float_bits(scale_bias->Bias);
    }
    set_activation_spec(&spec[EW_SPEC_CHAIN_STEP(k, EW_CHAIN_ACTIVATION)], info, op);
    if (info->attributes && FAILED(hr = info->attributes(op, type, attributes)))
        return hr;
    spec[EW_SPEC_CHAIN_STEP(k, EW_CHAIN_ATTR0)] = attributes[0];
    spec[EW_SPEC_CHAIN_STEP(k, EW_CHAIN_ATTR2)] = attributes[2];
    return S_OK;
}

HRESULT vkdml_elementwise_chain_compile(struct vkdml_compile *compile)
{
    const struct vkdml_elementwise_chain_desc *chain = compile->op->desc;
    DML_TENSOR_DATA_TYPE type = compile->op->outputs[0]->DataType;
    uint32_t spec[EW_SPEC_CHAIN_COUNT] = {0}, domain = domain_of(type), k;
    const char *group = "basic";
    enum vkdml_kernel_id kernel;
    HRESULT hr;

    spec[EW_SPEC_OP] = EW_OP_IDENTITY;
    spec[EW_SPEC_DOMAIN] = domain;
    spec[EW_SPEC_SCALE] = vkdml_float_bits(1.0f);
    spec[EW_SPEC_CHAIN_STEPS] = chain->step_count;
    for (k = 0; k < chain->step_count; ++k)
    {
        bool activation;

        if (FAILED(hr = set_chain_step(spec, k, &chain->steps[k], type)))
            return hr;
        activation = spec[EW_SPEC_CHAIN_STEP(k, EW_CHAIN_ACTIVATION)] != VKDML_ACTIVATION_NONE;
        group = chain_group(group, op_group(spec[EW_SPEC_CHAIN_STEP(k, EW_CHAIN_OP)], activation));
    }
    if (FAILED(hr = find_variant(compile, "elementwise_chain", group, tensor_features(&type, 1, domain), type,
            &kernel)))
        return hr;
    return add_elementwise_dispatch(compile, kernel, spec, EW_SPEC_CHAIN_COUNT);
}
