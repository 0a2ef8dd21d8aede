#version 460
#extension GL_GOOGLE_include_directive : require
/*
 * The element-wise operators with two or three inputs: y = f(a, b), IF's y = c ? a : b
 * (include/elementwise_core.glsl does the addressing; include/elementwise_interface.h lists the
 * op codes). ELEMENT_WISE_ADD1's fused activation follows the operation. POW and ATAN_YX are
 * compiled only into their group's variants (EW_GROUP_POW, EW_GROUP_TRIG), fused activations
 * only into EW_GROUP_ACTIVATION's. The operations themselves, and their numerics, are in
 * include/elementwise_binary_ops.glsl (the chain kernel applies them too).
 */
#include "elementwise_core.glsl"
#include "elementwise_binary_ops.glsl"

/* ---- FLOAT ---- */

float ew_float_value(float a, float b, float c)
{
    return ew_float_binary(EW_OP, a, b, c);
}

uint ew_float_predicate(float a, float b)
{
    switch (EW_OP)
    {
        case EW_OP_EQUALS: return a == b ? 1u : 0u;
        case EW_OP_GREATER_THAN: return a > b ? 1u : 0u;
        case EW_OP_LESS_THAN: return a < b ? 1u : 0u;
        case EW_OP_GREATER_THAN_OR_EQUAL: return a >= b ? 1u : 0u;
        default: return a <= b ? 1u : 0u;      /* EW_OP_LESS_THAN_OR_EQUAL */
    }
}

/* ---- INT, UINT (and float bits for the bitwise operators and IF) ---- */

uint ew_uint_value(uint a, uint b, uint c)
{
    return ew_uint_binary(EW_OP, a, b, c);
}

uint ew_uint_predicate(uint a, uint b)
{
    bool s = ew_signed_domain();

    switch (EW_OP)
    {
        case EW_OP_EQUALS: return a == b ? 1u : 0u;
        case EW_OP_GREATER_THAN: return (s ? int(a) > int(b) : a > b) ? 1u : 0u;
        case EW_OP_LESS_THAN: return (s ? int(a) < int(b) : a < b) ? 1u : 0u;
        case EW_OP_GREATER_THAN_OR_EQUAL: return (s ? int(a) >= int(b) : a >= b) ? 1u : 0u;
        default: return (s ? int(a) <= int(b) : a <= b) ? 1u : 0u;
    }
}

/* ---- INT64, UINT64 (and FLOAT64 bits): the same rules in 64 bits ---- */

#ifdef VKDML_INT64
bool ew_lneg(uint64_t x)
{
    return int64_t(x) < 0l;
}

uint64_t ew_ldiv(uint64_t a, uint64_t b)
{
    uint64_t q;

    if (b == 0ul)
        return ~0ul;
    if (!ew_signed_domain())
        return a / b;
    q = (ew_lneg(a) ? 0ul - a : a) / (ew_lneg(b) ? 0ul - b : b);
    return ew_lneg(a) != ew_lneg(b) ? 0ul - q : q;
}

uint64_t ew_ldivide(uint64_t a, uint64_t b)
{
    uint64_t q = ew_ldiv(a, b), r;

    if (EW_OP == EW_OP_DIVIDE || b == 0ul)
        return q;
    r = a - q * b;
    if (EW_OP == EW_OP_MODULUS_FLOOR && r != 0ul && ew_signed_domain() && ew_lneg(r) != ew_lneg(b))
        r += b;
    return r;
}

uint64_t ew_long_value(uint64_t a, uint64_t b, uint64_t c)
{
    bool s = ew_signed_domain();

    switch (EW_OP)
    {
        case EW_OP_ADD: return a + b;
        case EW_OP_SUBTRACT: return a - b;
        case EW_OP_MULTIPLY: return a * b;
        case EW_OP_DIVIDE:
        case EW_OP_MODULUS_TRUNCATE:
        case EW_OP_MODULUS_FLOOR: return ew_ldivide(a, b);
        case EW_OP_MAX: return s ? uint64_t(max(int64_t(a), int64_t(b))) : max(a, b);
        case EW_OP_MIN: return s ? uint64_t(min(int64_t(a), int64_t(b))) : min(a, b);
        case EW_OP_BIT_AND: return a & b;
        case EW_OP_BIT_OR: return a | b;
        case EW_OP_BIT_XOR: return a ^ b;
        case EW_OP_BIT_SHIFT_LEFT: return b >= 64ul ? 0ul : a << b;
        case EW_OP_BIT_SHIFT_RIGHT: return b >= 64ul ? 0ul : a >> b;
        case EW_OP_IF: return a != 0ul ? b : c;
        default: return a;
    }
}

uint ew_long_predicate(uint64_t a, uint64_t b)
{
    bool s = ew_signed_domain();

    switch (EW_OP)
    {
        case EW_OP_EQUALS: return a == b ? 1u : 0u;
        case EW_OP_GREATER_THAN: return (s ? int64_t(a) > int64_t(b) : a > b) ? 1u : 0u;
        case EW_OP_LESS_THAN: return (s ? int64_t(a) < int64_t(b) : a < b) ? 1u : 0u;
        case EW_OP_GREATER_THAN_OR_EQUAL: return (s ? int64_t(a) >= int64_t(b) : a >= b) ? 1u : 0u;
        default: return (s ? int64_t(a) <= int64_t(b) : a <= b) ? 1u : 0u;
    }
}
#endif

/* ---- DOUBLE: IF of FLOAT64 ---- */

#ifdef VKDML_FLOAT64
double ew_double_value(double c, double a, double b)
{
    return c != 0.0lf ? a : b;
}
#endif
