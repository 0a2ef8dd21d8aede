#version 460
#extension GL_GOOGLE_include_directive : require
/*
 * The element-wise operators with one input: y = f(x * scale + bias) (include/elementwise_core.glsl
 * does the addressing; include/elementwise_interface.h lists the op codes and attributes).
 * ACTIVATION_* operators are EW_OP_IDENTITY followed by the kernel's activation. Operators with
 * costly functions are compiled only into their group's variants (EW_GROUP_TRIG, EW_GROUP_EXP,
 * EW_GROUP_POW: elementwise_interface.h).
 * The operations themselves, and their numerics, are in include/elementwise_unary_ops.glsl
 * (the chain kernel applies them too).
 */
#include "elementwise_core.glsl"
#include "elementwise_unary_ops.glsl"

/* ---- FLOAT ---- */

float ew_float_value(float x, float unused1, float unused2)
{
    return ew_float_unary(EW_OP, x, EW_ATTR0, EW_ATTR2);
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
    return ew_uint_unary(EW_OP, x, EW_ATTR0, EW_ATTR2);
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
