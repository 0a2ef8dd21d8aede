/*
 * The element-wise operators with two or three inputs, per element, the op code an argument (an
 * EW_OP_* of elementwise_interface.h, a specialization constant in practice): y = f(a, b), IF's
 * y = c ? a : b. elementwise_binary.comp applies one per dispatch, elementwise_chain.comp several
 * (include/elementwise_core.glsl first; POW and ATAN_YX only with their group's define).
 *
 * Numerics:
 * - floats: IEEE, NaN propagates (MAX and MIN too, and they order -0 < +0); MEAN halves before
 *   adding only where a + b overflows; MODULUS_TRUNCATE is C's fmod (the sign of a),
 *   MODULUS_FLOOR adds b to a remainder of the other sign (the sign of b, as Python and NumPy);
 *   POW and ATAN_YX follow C99 Annex F for zeros, infinities and negative bases.
 * - integers: two's complement, wrapping. DIVIDE truncates toward zero; MODULUS_TRUNCATE has the
 *   sign of a, MODULUS_FLOOR that of b. DirectML leaves division by zero undefined: here a
 *   quotient or remainder by zero is the all-ones pattern (the type's maximum for unsigned types,
 *   -1 for signed ones; D3D's rule for unsigned division), and INT_MIN / -1 wraps to INT_MIN
 *   (remainder 0); neither ever traps. MEAN is (a + b) / 2 without overflow, truncated toward
 *   zero like DIVIDE. POW is exact (wrapping) for integer exponents; a negative exponent gives
 *   1 / a^n truncated; a float exponent with a fraction goes through fp32 pow.
 * - shifts by at least the element's width give 0.
 */
#ifndef VKDML_ELEMENTWISE_BINARY_OPS_GLSL
#define VKDML_ELEMENTWISE_BINARY_OPS_GLSL

/* ---- FLOAT ---- */

float ew_fmax(float a, float b)
{
    if (vkdml_isnan(a) || vkdml_isnan(b))
        return vkdml_nan();
    return a > b || (a == b && !vkdml_signbit(a)) ? a : b;
}

float ew_fmin(float a, float b)
{
    if (vkdml_isnan(a) || vkdml_isnan(b))
        return vkdml_nan();
    return a < b || (a == b && vkdml_signbit(a)) ? a : b;
}

float ew_fmean(float a, float b)
{
    /* precise: the compiler must not factor the halves back into 0.5 (a + b). */
    precise float s = a + b, halves = 0.5 * a + 0.5 * b;

    return vkdml_isinf(s) && !vkdml_isinf(a) && !vkdml_isinf(b) ? halves : 0.5 * s;
}

/* MODULUS_TRUNCATE and MODULUS_FLOOR through one call of vkdml_fmod (one inlined copy). */
float ew_fmodulus(uint op, float a, float b)
{
    float r = vkdml_fmod(a, b);

    if (op == EW_OP_MODULUS_TRUNCATE)
        return r;
    if (r != 0.0 && (r < 0.0) != (b < 0.0))
        r += b;
    return r == 0.0 ? vkdml_copysign(0.0, b) : r;
}

float ew_float_binary(uint op, float a, float b, float c)
{
    switch (op)
    {
        case EW_OP_ADD: return a + b;
        case EW_OP_SUBTRACT: return a - b;
        case EW_OP_MULTIPLY: return a * b;
        case EW_OP_DIVIDE: return vkdml_div(a, b);
        case EW_OP_MAX: return ew_fmax(a, b);
        case EW_OP_MIN: return ew_fmin(a, b);
        case EW_OP_MEAN: return ew_fmean(a, b);
#ifdef EW_GROUP_POW
        case EW_OP_POW: return vkdml_pow(a, b);
#endif
#ifdef EW_GROUP_TRIG
        case EW_OP_ATAN_YX: return vkdml_atan2(a, b);
#endif
        case EW_OP_DIFFERENCE_SQUARE: return (a - b) * (a - b);
        case EW_OP_MODULUS_TRUNCATE:
        case EW_OP_MODULUS_FLOOR: return ew_fmodulus(op, a, b);
        case EW_OP_PRELU: return a < 0.0 ? a * b : a;
        case EW_OP_IF: return a != 0.0 ? b : c;
        default: return a;
    }
}

/* ---- INT, UINT (and float bits for the bitwise operators and IF) ---- */

/* Quotient and remainder by magnitudes (no signed division: its rounding and overflow are the
 * driver's business); by zero: all ones. */
uint ew_idiv(uint a, uint b)
{
    bool negative;
    uint q;

    if (b == 0u)
        return 0xffffffffu;
    if (!ew_signed_domain())
        return a / b;
    negative = (int(a) < 0) != (int(b) < 0);
    q = (int(a) < 0 ? 0u - a : a) / (int(b) < 0 ? 0u - b : b);
    return negative ? 0u - q : q;
}

/* DIVIDE, MODULUS_TRUNCATE and MODULUS_FLOOR through one call of ew_idiv. */
uint ew_idivide(uint op, uint a, uint b)
{
    uint q = ew_idiv(a, b), r;

    if (op == EW_OP_DIVIDE || b == 0u)
        return q;
    r = a - q * b;
    if (op == EW_OP_MODULUS_FLOOR && r != 0u && ew_signed_domain() && (int(r) < 0) != (int(b) < 0))
        r += b;
    return r;
}

/* (a + b) / 2 without overflow: floor((a + b) / 2) = (a & b) + ((a ^ b) >> 1), then toward zero. */
uint ew_imean(uint a, uint b)
{
    int f;

    if (!ew_signed_domain())
        return (a & b) + ((a ^ b) >> 1);
    f = (int(a) & int(b)) + ((int(a) ^ int(b)) >> 1);
    return uint(f < 0 && ((a ^ b) & 1u) != 0u ? f + 1 : f);
}

#ifdef EW_GROUP_POW
/* a^b, b of ExponentTensor's own type (maybe a float type, or signed where a is not). */
uint ew_ipow_operand(uint a, uint b)
{
    if (tio_is_float(T1_TYPE))
        return ew_ipow_float(a, tio_bits_to_float(T1_TYPE, b));
    if (tio_is_signed(T1_TYPE) && int(b) < 0)
        return ew_ipow_negative(a, 0u - b);
    return ew_ipow(a, b);
}
#endif

uint ew_uint_binary(uint op, uint a, uint b, uint c)
{
    bool s = ew_signed_domain();

    switch (op)
    {
        case EW_OP_ADD: return a + b;
        case EW_OP_SUBTRACT: return a - b;
        case EW_OP_MULTIPLY: return a * b;
        case EW_OP_DIVIDE:
        case EW_OP_MODULUS_TRUNCATE:
        case EW_OP_MODULUS_FLOOR: return ew_idivide(op, a, b);
        case EW_OP_MAX: return s ? uint(max(int(a), int(b))) : max(a, b);
        case EW_OP_MIN: return s ? uint(min(int(a), int(b))) : min(a, b);
        case EW_OP_MEAN: return ew_imean(a, b);
#ifdef EW_GROUP_POW
        case EW_OP_POW: return ew_ipow_operand(a, b);
#endif
        case EW_OP_DIFFERENCE_SQUARE: return (a - b) * (a - b);
        case EW_OP_LOGICAL_AND: return a != 0u && b != 0u ? 1u : 0u;
        case EW_OP_LOGICAL_OR: return a != 0u || b != 0u ? 1u : 0u;
        case EW_OP_LOGICAL_XOR: return (a != 0u) != (b != 0u) ? 1u : 0u;
        case EW_OP_BIT_AND: return a & b;
        case EW_OP_BIT_OR: return a | b;
        case EW_OP_BIT_XOR: return a ^ b;
        case EW_OP_BIT_SHIFT_LEFT: return b >= 32u ? 0u : a << b;
        case EW_OP_BIT_SHIFT_RIGHT: return b >= 32u ? 0u : a >> b;
        case EW_OP_PRELU: return s && int(a) < 0 ? a * b : a;
        case EW_OP_IF: return a != 0u ? b : c;
        default: return a;
    }
}

#endif /* VKDML_ELEMENTWISE_BINARY_OPS_GLSL */
