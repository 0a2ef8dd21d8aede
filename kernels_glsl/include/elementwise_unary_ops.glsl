/*
 * The element-wise operators with one input, per element, the op code and attributes arguments
 * (EW_OP_* and their attribute words, elementwise_interface.h; specialization constants in
 * practice): y = f(x). elementwise_unary.comp applies one per dispatch, elementwise_chain.comp
 * several (include/elementwise_core.glsl first; costly functions only with their group's define).
 *
 * Numerics: NaN in gives NaN out (no GLSL min/max/clamp/sign on floats: their NaN results are
 * undefined); the transcendental functions are include/math.glsl's, not the built-ins. ROUND is
 * exact in every mode. Integer ABS and NEGATE wrap (|INT_MIN| = INT_MIN).
 */
#ifndef VKDML_ELEMENTWISE_UNARY_OPS_GLSL
#define VKDML_ELEMENTWISE_UNARY_OPS_GLSL

/* ---- FLOAT ---- */

float ew_round(float x, uint mode)
{
    float t;

    if (mode == 0u)                /* DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN */
        return roundEven(x);
    t = trunc(x);
    if (mode == 1u)                /* TOWARD_ZERO */
        return t;
    /* TOWARD_INFINITY: halves away from zero. x - t is exact; round() may go either way. */
    return abs(x - t) >= 0.5 ? t + vkdml_copysign(1.0, x) : t;
}

/* On the bits: ±1 for denormals too (float comparisons may flush them), zeros keep their sign. */
float ew_sign(float x)
{
    uint bits = floatBitsToUint(x);

    if (vkdml_isnan(x) || (bits & 0x7fffffffu) == 0u)
        return x;
    return (bits & 0x80000000u) != 0u ? -1.0 : 1.0;
}

float ew_float_unary(uint op, float x, uint attr0, uint attr2)
{
    switch (op)
    {
        case EW_OP_ABS: return abs(x);
        case EW_OP_CEIL: return ceil(x);
        case EW_OP_CLIP: return vkdml_clamp(x, uintBitsToFloat(attr0), uintBitsToFloat(attr2));
        case EW_OP_FLOOR: return floor(x);
        case EW_OP_NEGATE: return -x;
        case EW_OP_RECIP: return 1.0 / x;
        case EW_OP_ROUND: return ew_round(x, attr0);
        case EW_OP_SIGN: return ew_sign(x);
        /* GLSL leaves sqrt of a negative number undefined. */
        case EW_OP_SQRT: return x < 0.0 ? vkdml_nan() : sqrt(x);
#ifdef EW_GROUP_TRIG
        case EW_OP_ACOS: return vkdml_acos(x);
        case EW_OP_ASIN: return vkdml_asin(x);
        case EW_OP_ATAN: return vkdml_atan(x);
        case EW_OP_COS: return vkdml_cos(x);
        case EW_OP_SIN: return vkdml_sin(x);
        case EW_OP_TAN: return vkdml_tan(x);
#endif
#ifdef EW_GROUP_EXP
        case EW_OP_ACOSH: return vkdml_acosh(x);
        case EW_OP_ASINH: return vkdml_asinh(x);
        case EW_OP_ATANH: return vkdml_atanh(x);
        case EW_OP_COSH: return vkdml_cosh(x);
        case EW_OP_ERF: return vkdml_erf(x);
        case EW_OP_EXP: return vkdml_exp(x);
        case EW_OP_LOG: return vkdml_log(x);
        case EW_OP_SINH: return vkdml_sinh(x);
        case EW_OP_TANH: return vkdml_tanh(x);
#endif
#ifdef EW_GROUP_POW
        case EW_OP_CONSTANT_POW: return vkdml_pow(x, uintBitsToFloat(attr0));
#endif
        default: return x;
    }
}

/* ---- INT, UINT (and float bits for BIT_NOT, BIT_COUNT, IDENTITY) ---- */

uint ew_uint_unary(uint op, uint x, uint attr0, uint attr2)
{
    bool s = ew_signed_domain();

    switch (op)
    {
        case EW_OP_ABS:
            return s && int(x) < 0 ? 0u - x : x;
        case EW_OP_NEGATE:
            return 0u - x;
        case EW_OP_SIGN:
            if (s)
                return int(x) > 0 ? 1u : (int(x) < 0 ? 0xffffffffu : 0u);
            return x != 0u ? 1u : 0u;
        case EW_OP_CLIP:
            if (s)
                return uint(max(min(int(x), int(attr2)), int(attr0)));
            return max(min(x, attr2), attr0);
#ifdef EW_GROUP_POW
        case EW_OP_CONSTANT_POW:
            return ew_ipow_float(x, uintBitsToFloat(attr0));
#endif
        case EW_OP_LOGICAL_NOT:
            return x == 0u ? 1u : 0u;
        case EW_OP_BIT_NOT:
            return ~x;
        default:
            return x;
    }
}

#endif /* VKDML_ELEMENTWISE_UNARY_OPS_GLSL */
