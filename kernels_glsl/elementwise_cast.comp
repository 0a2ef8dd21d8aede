#version 460
#extension GL_GOOGLE_include_directive : require
/*
 * DML_OPERATOR_CAST: input 0 of any type converted to the output's type, through the element-wise
 * addressing, vector mode and grid of include/elementwise_core.glsl (EW_GROUP_CAST routes its
 * items here). Every conversion works on the bits with 32-bit integer arithmetic (64-bit values
 * as uvec2 words), so no variant needs shaderInt64 or shaderFloat64 and no rounding is left to
 * the driver (README, "CAST"):
 * - integer -> integer wraps (the low bits of the two's complement value);
 * - float -> integer truncates toward zero and saturates at the type's limits; NaN gives 0;
 * - integer -> float and float -> narrower float round to nearest even; too large gives ±inf;
 * - NaN -> float keeps its sign and top payload bits and is quiet; ±inf and ±0 stay.
 * FLOAT32 -> FLOAT16 and FLOAT16 -> FLOAT32 take a few operations for normal values and zeros,
 * the general path only for the rest.
 */
#include "elementwise_core.glsl"

/* ---- 64-bit words ---- */

uvec2 cast_shl(uvec2 v, uint s)
{
    if (s == 0u)
        return v;
    if (s >= 64u)
        return uvec2(0u);
    if (s >= 32u)
        return uvec2(0u, v.x << (s - 32u));
    return uvec2(v.x << s, (v.y << s) | (v.x >> (32u - s)));
}

uvec2 cast_shr(uvec2 v, uint s)
{
    if (s == 0u)
        return v;
    if (s >= 64u)
        return uvec2(0u);
    if (s >= 32u)
        return uvec2(v.y >> (s - 32u), 0u);
    return uvec2((v.x >> s) | (v.y << (32u - s)), v.y >> s);
}

uvec2 cast_add(uvec2 a, uvec2 b)
{
    uint carry, lo = uaddCarry(a.x, b.x, carry);

    return uvec2(lo, a.y + b.y + carry);
}

uvec2 cast_negate(uvec2 v)
{
    return cast_add(~v, uvec2(1u, 0u));
}

bool cast_less(uvec2 a, uvec2 b)
{
    return a.y < b.y || (a.y == b.y && a.x < b.x);
}

/* The highest bit set, -1 for 0. */
int cast_msb(uvec2 v)
{
    return v.y != 0u ? 32 + findMSB(v.y) : findMSB(v.x);
}

/* v / 2^s rounded to nearest, ties to even. */
uvec2 cast_round_shr(uvec2 v, uint s)
{
    uvec2 q, rest, half_unit;

    if (s == 0u)
        return v;
    if (s > 64u)
        return uvec2(0u);
    if (s == 64u)
        return uvec2(cast_less(uvec2(0u, 0x80000000u), v) ? 1u : 0u, 0u);
    q = cast_shr(v, s);
    rest = v ^ cast_shl(q, s);
    half_unit = cast_shl(uvec2(1u, 0u), s - 1u);
    if (cast_less(half_unit, rest) || (rest == half_unit && (q.x & 1u) != 0u))
        q = cast_add(q, uvec2(1u, 0u));
    return q;
}

/* ---- Types ---- */

/* Float formats: mantissa bits, exponent bias. */
uint cast_mantissa_bits(uint type)
{
    return type == TIO_TYPE_FLOAT16 ? 10u : (type == TIO_TYPE_FLOAT32 ? 23u : 52u);
}

int cast_bias(uint type)
{
    return type == TIO_TYPE_FLOAT16 ? 15 : (type == TIO_TYPE_FLOAT32 ? 127 : 1023);
}

uint cast_bits(uint type)
{
    return 8u * tio_element_size(type);
}

/* A float's bits: sign, exponent field, mantissa field. */
uvec2 cast_sign_bit(uint type)
{
    return cast_shl(uvec2(1u, 0u), cast_bits(type) - 1u);
}

uint cast_exponent_field(uint type, uvec2 bits)
{
    uint m = cast_mantissa_bits(type);

    return cast_shr(bits, m).x & (uint(2 * cast_bias(type)) + 1u);
}

uvec2 cast_mantissa_field(uint type, uvec2 bits)
{
    uvec2 one = cast_shl(uvec2(1u, 0u), cast_mantissa_bits(type));

    return uvec2(bits.x & (one.x - 1u), one.y != 0u ? bits.y & (one.y - 1u) : (one.x == 0u ? bits.y : 0u));
}

/* The largest value of an integer type, and the magnitude of the smallest (0 when unsigned). */
uvec2 cast_int_max(uint type)
{
    uint w = cast_bits(type);

    return cast_add(cast_shl(uvec2(1u, 0u), tio_is_signed(type) ? w - 1u : w), uvec2(0xffffffffu));
}

/* ---- Conversions ---- */

/* sig * 2^e (sig != 0) as `type`'s bits with its sign, rounded to nearest even; ±inf beyond. */
uvec2 cast_encode(uint type, bool negative, uvec2 sig, int e)
{
    uint m = cast_mantissa_bits(type);
    int bias = cast_bias(type), top = cast_msb(sig) + e, quantum = max(top, 1 - bias) - int(m), shift = quantum - e;
    uvec2 sign = negative ? cast_sign_bit(type) : uvec2(0u), q;

    if (top > bias)
        return sign | cast_shl(uvec2(uint(2 * bias + 1), 0u), m);
    q = shift <= 0 ? cast_shl(sig, uint(-shift)) : cast_round_shr(sig, uint(shift));
    /* Normal numbers: q holds the leading one, which adds 1 to the exponent field; a carry out of
     * the mantissa (or from the largest subnormal) moves on to the next binade or to inf. */
    if (top >= 1 - bias)
        q = cast_add(q, cast_shl(uvec2(uint(top + bias - 1), 0u), m));
    return sign | q;
}

/* A float's class: 0 finite (sig * 2^e, sig 0 for zeros), 1 inf, 2 NaN. */
uint cast_decode(uint type, uvec2 bits, out uvec2 sig, out int e)
{
    uint m = cast_mantissa_bits(type), field = cast_exponent_field(type, bits);
    int bias = cast_bias(type);

    sig = cast_mantissa_field(type, bits);
    if (field == uint(2 * bias + 1))
        return sig == uvec2(0u) ? 1u : 2u;
    e = (field == 0u ? 1 : int(field)) - bias - int(m);
    if (field != 0u)
        sig |= cast_shl(uvec2(1u, 0u), m);
    return 0u;
}

uvec2 cast_float_to_float(uint from, uint to, uvec2 x)
{
    bool negative = (x & cast_sign_bit(from)) != uvec2(0u);
    uvec2 sign = negative ? cast_sign_bit(to) : uvec2(0u), sig, inf = cast_shl(uvec2(uint(2 * cast_bias(to) + 1), 0u),
            cast_mantissa_bits(to));
    int e, shift = int(cast_mantissa_bits(to)) - int(cast_mantissa_bits(from));
    uint kind = cast_decode(from, x, sig, e);

    if (kind == 1u)
        return sign | inf;
    if (kind == 2u)
    {
        /* The payload's top bits, quiet. */
        sig = shift >= 0 ? cast_shl(sig, uint(shift)) : cast_shr(sig, uint(-shift));
        return sign | inf | sig | cast_shl(uvec2(1u, 0u), cast_mantissa_bits(to) - 1u);
    }
    return sig == uvec2(0u) ? sign : cast_encode(to, negative, sig, e);
}

/* Truncated toward zero, saturated to `to`'s range; NaN gives 0. */
uvec2 cast_float_to_int(uint from, uint to, uvec2 x)
{
    bool negative = (x & cast_sign_bit(from)) != uvec2(0u), overflow = false;
    uvec2 sig, magnitude = uvec2(0u), max_value = cast_int_max(to);
    uint kind;
    int e = 0;

    kind = cast_decode(from, x, sig, e);
    if (kind == 2u)
        return uvec2(0u);
    if (kind == 1u)
        overflow = true;
    else if (e >= 0)
        overflow = sig != uvec2(0u) && cast_msb(sig) + e >= 64;
    if (kind == 0u && !overflow)
        magnitude = e >= 0 ? cast_shl(sig, uint(e)) : cast_shr(sig, uint(-e));
    if (!negative)
        return overflow || cast_less(max_value, magnitude) ? max_value : magnitude;
    if (!tio_is_signed(to))
        return uvec2(0u);
    /* The smallest value's magnitude is max_value + 1. */
    if (overflow || cast_less(max_value, cast_add(magnitude, uvec2(0xffffffffu))) && magnitude != uvec2(0u))
        return cast_negate(cast_add(max_value, uvec2(1u, 0u)));
    return cast_negate(magnitude);
}

/* An integer of `from` (bits zero-extended) as its 64-bit two's complement value. */
uvec2 cast_int_value(uint from, uvec2 x)
{
    uint w = cast_bits(from);

    if (w == 64u || !tio_is_signed(from))
        return x;
    x.x = uint(bitfieldExtract(int(x.x), 0, int(w)));
    return uvec2(x.x, int(x.x) < 0 ? 0xffffffffu : 0u);
}

uvec2 cast_int_to_float(uint from, uint to, uvec2 x)
{
    uvec2 value = cast_int_value(from, x);
    bool negative = tio_is_signed(from) && int(value.y) < 0;

    if (value == uvec2(0u))
        return uvec2(0u);
    return cast_encode(to, negative, negative ? cast_negate(value) : value, 0);
}

/* FLOAT32 -> FLOAT16 of normal results and zeros (round to nearest even on the bits: the carry
 * of the rounding runs into the exponent, up to inf); the rest by the general path. */
uvec2 cast_f32_to_f16(uvec2 x)
{
    uint sign = (x.x >> 16u) & 0x8000u, magnitude = x.x & 0x7fffffffu;

    if (magnitude == 0u)
        return uvec2(sign, 0u);
    if (magnitude >= 0x38800000u && magnitude < 0x47800000u)
        return uvec2(sign | ((magnitude + 0xc8000fffu + ((magnitude >> 13u) & 1u)) >> 13u), 0u);
    return cast_float_to_float(TIO_TYPE_FLOAT32, TIO_TYPE_FLOAT16, x);
}

/* FLOAT16 -> FLOAT32, exact: normal values and zeros on the bits, the rest by the general path. */
uvec2 cast_f16_to_f32(uvec2 x)
{
    uint sign = (x.x & 0x8000u) << 16u, field = (x.x >> 10u) & 31u;

    if ((x.x & 0x7fffu) == 0u)
        return uvec2(sign, 0u);
    if (field != 0u && field != 31u)
        return uvec2(sign | (((x.x & 0x7fffu) << 13u) + 0x38000000u), 0u);
    return cast_float_to_float(TIO_TYPE_FLOAT16, TIO_TYPE_FLOAT32, x);
}

/* Input bits (zero-extended) -> output bits; the types are constants, so one path remains. */
uvec2 cast_convert(uvec2 x)
{
    const uint from = T0_TYPE, to = T3_TYPE;

    if (from == TIO_TYPE_FLOAT32 && to == TIO_TYPE_FLOAT16)
        return cast_f32_to_f16(x);
    if (from == TIO_TYPE_FLOAT16 && to == TIO_TYPE_FLOAT32)
        return cast_f16_to_f32(x);
    if (from == to)
        return x;
    if (tio_is_float(from))
        return tio_is_float(to) ? cast_float_to_float(from, to, x) : cast_float_to_int(from, to, x);
    return tio_is_float(to) ? cast_int_to_float(from, to, x) : cast_int_value(from, x);
}

/* ---- One item (elementwise_core.glsl's ew_item): EW_V elements ---- */

uvec2 cast_load(uvec2 base, uint o)
{
    if (tio_element_size(T0_TYPE) == 8u)
        return TioPair(tio_element_address(base, o, 8u)).v;
    return uvec2(tio_load_bits(T0_TYPE, base, o) & tio_type_mask(T0_TYPE), 0u);
}

void cast_store(uvec2 base, uint o, uvec2 y)
{
    if (tio_element_size(T3_TYPE) == 8u)
        TioPair(tio_element_address(base, o, 8u)).v = y;
    else
        tio_store_bits(T3_TYPE, base, o, y.x);
}

void ew_item_cast(EwTensors t, uint o0, uint o3, uint count)
{
    bool wide_in = tio_element_size(T0_TYPE) == 8u, wide_out = tio_element_size(T3_TYPE) == 8u;
    uvec2 x[16], y[16];

    if (ew_chunked(T0_TYPE, T0_INNER, count))
    {
        uvec4 w = ew_load_chunk(T0_TYPE, t.base[0], o0);

        [[unroll]] for (uint i = 0u; i < EW_V; ++i)
            x[i] = wide_in ? ew_unpack_pair(w, i) : uvec2(ew_unpack_bits(T0_TYPE, w, i) & tio_type_mask(T0_TYPE), 0u);
    }
    else if (ew_single(T0_INNER))
    {
        uvec2 v = cast_load(t.base[0], o0);

        [[unroll]] for (uint i = 0u; i < EW_V; ++i)
            x[i] = v;
    }
    else
    {
        [[unroll]] for (uint i = 0u; i < EW_V; ++i)
            x[i] = i < count ? cast_load(t.base[0], o0 + i) : uvec2(0u);
    }
    [[unroll]] for (uint i = 0u; i < EW_V; ++i)
        y[i] = cast_convert(x[i]);
    if (EW_V > 1u && count == EW_V)
    {
        uvec4 w = uvec4(0u);

        [[unroll]] for (uint i = 0u; i < EW_V; ++i)
            w = wide_out ? ew_pack_pair(w, i, y[i]) : ew_pack_bits(T3_TYPE, w, i, y[i].x);
        ew_store_chunk(T3_TYPE, t.base[EW_OUTPUT], o3, w);
        return;
    }
    [[unroll]] for (uint i = 0u; i < EW_V; ++i)
        if (i < count)
            cast_store(t.base[EW_OUTPUT], o3 + i, y[i]);
}
