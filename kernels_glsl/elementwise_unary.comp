#version 460
#extension GL_GOOGLE_include_directive : require
/*
 * The element-wise operators with one input: y = f(x * scale + bias) (include/elementwise_core.glsl
 * does the addressing; include/elementwise_interface.h lists the op codes and attributes).
 * ACTIVATION_* operators are EW_OP_IDENTITY followed by the kernel's activation. Operators with
 * costly functions are compiled only into their group's variants (EW_GROUP_TRIG, EW_GROUP_EXP,
 * EW_GROUP_POW: elementwise_interface.h).
 *
 * Numerics: NaN in gives NaN out (no GLSL min/max/clamp/sign on floats: their NaN results are
 * undefined); the transcendental functions are include/math.glsl's, not the built-ins. ROUND is
 * exact in every mode. Integer ABS and NEGATE wrap (|INT_MIN| = INT_MIN).
 */
#include "elementwise_core.glsl"

/* ---- FLOAT ---- */

float ew_round(float x)
{
    float t;

    if (EW_ATTR0 == 0u)             /* DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN */
        return roundEven(x);
    t = trunc(x);
    if (EW_ATTR0 == 1u)             /* TOWARD_ZERO */
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

float ew_float_value(float x, float unused1, float unused2)
{
    switch (EW_OP)
    {
        case EW_OP_ABS: return abs(x);
        case EW_OP_CEIL: return ceil(x);
        case EW_OP_CLIP: return vkdml_clamp(x, uintBitsToFloat(EW_ATTR0), uintBitsToFloat(EW_ATTR2));
        case EW_OP_FLOOR: return floor(x);
        case EW_OP_NEGATE: return -x;
        case EW_OP_RECIP: return 1.0 / x;
        case EW_OP_ROUND: return ew_round(x);
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
        case EW_OP_CONSTANT_POW: return vkdml_pow(x, uintBitsToFloat(EW_ATTR0));
#endif
        default: return x;
    }
}

uint ew_float_predicate(float x, float unused)
{
    switch (EW_OP)
    {
        case EW_OP_IS_NAN:
            return vkdml_isnan(x) ? 1u : 0u;
        case EW_OP_IS_INFINITY:
            /* DML_IS_INFINITY_MODE: EITHER, POSITIVE, NEGATIVE */
            return vkdml_isinf(x) && (EW_ATTR0 == 0u || (EW_ATTR0 == 1u) == (x > 0.0)) ? 1u : 0u;
        default:
            return 0u;
    }
}

/* ---- INT, UINT (and float bits for BIT_NOT, BIT_COUNT, IDENTITY) ---- */

uint ew_uint_value(uint x, uint unused1, uint unused2)
{
    bool s = ew_signed_domain();

    switch (EW_OP)
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
                return uint(max(min(int(x), int(EW_ATTR2)), int(EW_ATTR0)));
            return max(min(x, EW_ATTR2), EW_ATTR0);
#ifdef EW_GROUP_POW
        case EW_OP_CONSTANT_POW:
            return ew_ipow_float(x, uintBitsToFloat(EW_ATTR0));
#endif
        case EW_OP_LOGICAL_NOT:
            return x == 0u ? 1u : 0u;
        case EW_OP_BIT_NOT:
            return ~x;
        default:
            return x;
    }
}

uint ew_uint_predicate(uint x, uint unused)
{
    /* EW_OP_BIT_COUNT: the element's own bits only (narrow signed types are sign-extended). */
    return uint(bitCount(x & tio_type_mask(T0_TYPE)));
}

/* ---- INT64, UINT64 (and FLOAT64 bits) ---- */

#ifdef VKDML_INT64
uint64_t ew_long_value(uint64_t x, uint64_t unused1, uint64_t unused2)
{
    bool s = ew_signed_domain();
    uint64_t lo = packUint2x32(uvec2(EW_ATTR0, EW_ATTR1)), hi = packUint2x32(uvec2(EW_ATTR2, EW_ATTR3));

    switch (EW_OP)
    {
        case EW_OP_ABS:
            return s && int64_t(x) < 0l ? 0ul - x : x;
        case EW_OP_NEGATE:
            return 0ul - x;
        case EW_OP_SIGN:
            if (s)
                return int64_t(x) > 0l ? 1ul : (int64_t(x) < 0l ? ~0ul : 0ul);
            return x != 0ul ? 1ul : 0ul;
        case EW_OP_CLIP:
            if (s)
                return uint64_t(max(min(int64_t(x), int64_t(hi)), int64_t(lo)));
            return max(min(x, hi), lo);
        case EW_OP_BIT_NOT:
            return ~x;
        default:
            return x;
    }
}

uint ew_long_predicate(uint64_t x, uint64_t unused)
{
    uvec2 words = unpackUint2x32(x);

    return uint(bitCount(words.x) + bitCount(words.y));
}
#endif

/* ---- DOUBLE: IDENTITY with ScaleBias ---- */

#ifdef VKDML_FLOAT64
double ew_double_value(double x, double unused1, double unused2)
{
    return x;
}
#endif
