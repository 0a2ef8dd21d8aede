/*
 * The element-wise kernels' shared part (include/elementwise_interface.h describes the kernels,
 * their variants, domains and constants): output[i] = activation(op(input0[i], input1[i],
 * input2[i])) over any rank 1..8 and any element strides (0 broadcasts). The including .comp
 * defines the operations, per compute domain, after including this file:
 *
 *     float ew_float_value(float x0, float x1, float x2);      FLOAT (x0 after ScaleBias)
 *     uint ew_float_predicate(float x0, float x1);
 *     uint ew_uint_value(uint x0, uint x1, uint x2);           INT and UINT (EW_DOMAIN tells)
 *     uint ew_uint_predicate(uint x0, uint x1);
 *     uint64_t ew_long_value(...), uint ew_long_predicate(...)  INT64 and UINT64 (VKDML_INT64)
 *     double ew_double_value(double x0, double x1, double x2)  DOUBLE (VKDML_FLOAT64)
 *
 * One invocation owns whole elements: it reads every input of an element, then writes that
 * element, so in-place execution (output bound over an input with the same layout) needs no
 * synchronisation. A 1-D grid walks the elements (or vectors of them) with a grid-stride loop,
 * so element counts up to 2^32 - 1 work with any maxComputeWorkGroupCount.
 */
#include "common.glsl"
#include "tensor_io.glsl"

#include "elementwise_interface.h"
#define ACTIVATION_SPEC_BASE EW_SPEC_ACTIVATION
#include "activation.glsl"
#include "math.glsl"

layout(local_size_x_id = EW_SPEC_LOCAL_SIZE_X, local_size_x = EW_DEFAULT_LOCAL_SIZE) in;

layout(constant_id = EW_SPEC_OP) const uint EW_OP = EW_OP_IDENTITY;
layout(constant_id = EW_SPEC_DOMAIN) const uint EW_DOMAIN = EW_DOMAIN_FLOAT;
layout(constant_id = EW_SPEC_RANK) const uint EW_RANK = 1u;
layout(constant_id = EW_SPEC_SCALE_BIAS) const bool EW_SCALE_BIAS = false;
layout(constant_id = EW_SPEC_SCALE) const uint EW_SCALE_BITS = 0x3f800000u;
layout(constant_id = EW_SPEC_BIAS) const uint EW_BIAS_BITS = 0u;
layout(constant_id = EW_SPEC_VECTOR) const uint EW_VECTOR = 0u;
layout(constant_id = EW_SPEC_PREDICATE) const bool EW_PREDICATE = false;
/* Elements per vector item; 1 outside vector mode. */
#define EW_V (EW_VECTOR > 1u ? EW_VECTOR : 1u)

layout(constant_id = EW_SPEC_ATTRIBUTES + 0) const uint EW_ATTR0 = 0u;
layout(constant_id = EW_SPEC_ATTRIBUTES + 1) const uint EW_ATTR1 = 0u;
layout(constant_id = EW_SPEC_ATTRIBUTES + 2) const uint EW_ATTR2 = 0u;
layout(constant_id = EW_SPEC_ATTRIBUTES + 3) const uint EW_ATTR3 = 0u;
layout(constant_id = EW_SPEC_ATTRIBUTES + 4) const uint EW_ATTR4 = 0u;
layout(constant_id = EW_SPEC_ATTRIBUTES + 5) const uint EW_ATTR5 = 0u;
layout(constant_id = EW_SPEC_ATTRIBUTES + 6) const uint EW_ATTR6 = 0u;
layout(constant_id = EW_SPEC_ATTRIBUTES + 7) const uint EW_ATTR7 = 0u;

layout(constant_id = EW_SPEC_SHAPE) const bool EW_SHAPE_SPECIALIZED = false;
layout(constant_id = EW_SPEC_ELEMENT_COUNT) const uint EW_ELEMENT_COUNT = 0u;
#define EW_DECLARE_SIZE(d) layout(constant_id = EW_SPEC_SIZES + d) const uint EW_SIZE##d = 1u;
EW_DECLARE_SIZE(0) EW_DECLARE_SIZE(1) EW_DECLARE_SIZE(2) EW_DECLARE_SIZE(3)
EW_DECLARE_SIZE(4) EW_DECLARE_SIZE(5) EW_DECLARE_SIZE(6)

#define EW_DECLARE_TENSOR(t) \
    layout(constant_id = EW_SPEC_TENSOR(t, EW_SPEC_TENSOR_TYPE)) const uint T##t##_TYPE = 0u; \
    layout(constant_id = EW_SPEC_TENSOR(t, EW_SPEC_TENSOR_INNER)) const uint T##t##_INNER = EW_INNER_STRIDED; \
    layout(constant_id = EW_SPEC_TENSOR(t, EW_SPEC_TENSOR_SLOT)) const uint T##t##_SLOT = 0u; \
    layout(constant_id = EW_SPEC_TENSOR(t, EW_SPEC_TENSOR_OFFSET_LO)) const uint T##t##_OFFSET_LO = 0u; \
    layout(constant_id = EW_SPEC_TENSOR(t, EW_SPEC_TENSOR_OFFSET_HI)) const uint T##t##_OFFSET_HI = 0u; \
    layout(constant_id = EW_SPEC_TENSOR(t, EW_SPEC_TENSOR_STRIDES + 0)) const uint T##t##_STRIDE0 = 0u; \
    layout(constant_id = EW_SPEC_TENSOR(t, EW_SPEC_TENSOR_STRIDES + 1)) const uint T##t##_STRIDE1 = 0u; \
    layout(constant_id = EW_SPEC_TENSOR(t, EW_SPEC_TENSOR_STRIDES + 2)) const uint T##t##_STRIDE2 = 0u; \
    layout(constant_id = EW_SPEC_TENSOR(t, EW_SPEC_TENSOR_STRIDES + 3)) const uint T##t##_STRIDE3 = 0u; \
    layout(constant_id = EW_SPEC_TENSOR(t, EW_SPEC_TENSOR_STRIDES + 4)) const uint T##t##_STRIDE4 = 0u; \
    layout(constant_id = EW_SPEC_TENSOR(t, EW_SPEC_TENSOR_STRIDES + 5)) const uint T##t##_STRIDE5 = 0u; \
    layout(constant_id = EW_SPEC_TENSOR(t, EW_SPEC_TENSOR_STRIDES + 6)) const uint T##t##_STRIDE6 = 0u; \
    layout(constant_id = EW_SPEC_TENSOR(t, EW_SPEC_TENSOR_STRIDES + 7)) const uint T##t##_STRIDE7 = 0u;
EW_DECLARE_TENSOR(0)
EW_DECLARE_TENSOR(1)
EW_DECLARE_TENSOR(2)
EW_DECLARE_TENSOR(3)    /* EW_OUTPUT */

/* ---- The record (elementwise_interface.h): pushed, or specialized when it does not fit. Macros,
 * not functions, so that every word index stays a specialization-constant expression, folded
 * when the pipeline is created. ---- */

/* Tensors present: the inputs, then the output; tensor t's place among them. */
const uint EW_N = T2_TYPE != 0u ? 4u : (T1_TYPE != 0u ? 3u : 2u);
#define EW_PLACE(t) ((t) == EW_OUTPUT ? EW_N - 1u : uint(t))
/* Clamped: a specialized record's indices may pass the pushed words it does not read. */
#define EW_WORD(i, specialized) (EW_SHAPE_SPECIALIZED ? (specialized) : push.words[min(i, EW_PUSH_WORDS - 1u)])

#define EW_COUNT EW_WORD(EW_REC_COUNT, EW_ELEMENT_COUNT)
#define EW_SLOT(t) (EW_SHAPE_SPECIALIZED ? T##t##_SLOT \
        : bitfieldExtract(push.words[EW_REC_SLOTS], int(8u * EW_PLACE(t)), 8))
#define EW_OFFSET_LO(t) EW_WORD(EW_REC_OFFSET(EW_PLACE(t)), T##t##_OFFSET_LO)
#define EW_OFFSET_HI(t) EW_WORD(EW_REC_OFFSET(EW_PLACE(t)) + 1u, T##t##_OFFSET_HI)
#define EW_DIVISOR(d) EW_WORD(EW_REC_DIVISOR(EW_N, d), EW_SIZE##d)
#define EW_MULTIPLIER(d) push.words[min(EW_REC_DIVISOR(EW_N, d) + 1u, EW_PUSH_WORDS - 1u)]
/* Stride d of tensor t in elements: 0 for an absent tensor; the innermost one from its kind. */
#define EW_STRIDE(t, d) (T##t##_TYPE == 0u ? 0u : (d == 0 && T##t##_INNER != EW_INNER_STRIDED) ? T##t##_INNER \
        : EW_WORD(EW_REC_STRIDE(EW_N, EW_RANK, EW_PLACE(t), d), T##t##_STRIDE##d))

/* n / divisor of dimension d: by a constant (specialized), else by its multiplier
 * (elementwise.c's division_multiplier() says how). */
uint ew_divide(uint n, uint size, uint multiplier)
{
    uint l = uint(findMSB(size - 1u) + 1), hi, lo;

    umulExtended(n, multiplier, hi, lo);
    return (hi + ((n - hi) >> min(l, 1u))) >> (l > 0u ? l - 1u : 0u);
}

#define EW_QUOTIENT(n, d) (EW_SHAPE_SPECIALIZED ? (n) / EW_SIZE##d : ew_divide(n, EW_DIVISOR(d), EW_MULTIPLIER(d)))

/* ---- The operations (defined by the including kernel) ---- */

float ew_float_value(float x0, float x1, float x2);
uint ew_float_predicate(float x0, float x1);
uint ew_uint_value(uint x0, uint x1, uint x2);
uint ew_uint_predicate(uint x0, uint x1);
#ifdef VKDML_INT64
uint64_t ew_long_value(uint64_t x0, uint64_t x1, uint64_t x2);
uint ew_long_predicate(uint64_t x0, uint64_t x1);
#endif
#ifdef VKDML_FLOAT64
double ew_double_value(double x0, double x1, double x2);
#endif

/* ---- Types (tensor_io.glsl has the rest) ---- */

bool ew_signed_domain()
{
    return EW_DOMAIN == EW_DOMAIN_INT || EW_DOMAIN == EW_DOMAIN_INT64;
}

/* The tensor's first byte: its descriptor's address plus its byte offset. */
uvec2 ew_tensor_base(uint slot, uint offset_lo, uint offset_hi)
{
    return tio_add64(push.table.records[slot].address, offset_lo, offset_hi);
}
#define EW_TENSOR_BASE(t) ew_tensor_base(EW_SLOT(t), EW_OFFSET_LO(t), EW_OFFSET_HI(t))

/* ---- Vectors (vector mode): V elements of one tensor in a 4-, 8- or 16-byte chunk, unpacked
 * from 32-bit words, little-endian ---- */

/* `index` is the element index of the chunk's first element (a multiple of V). */
uvec4 ew_load_chunk(uint type, uvec2 base, uint index)
{
    uint size = tio_element_size(type), bytes = EW_V * size;
    uvec2 address = tio_element_address(base, index, size);

    if (bytes == 16u)
        return TioVector(address).v;
    if (bytes == 8u)
        return uvec4(TioPair(address).v, 0u, 0u);
    return uvec4(TioWord(address).v, 0u, 0u, 0u);
}

void ew_store_chunk(uint type, uvec2 base, uint index, uvec4 w)
{
    uint size = tio_element_size(type), bytes = EW_V * size;
    uvec2 address = tio_element_address(base, index, size);

    if (bytes == 16u)
        TioVector(address).v = w;
    else if (bytes == 8u)
        TioPair(address).v = w.xy;
    else
        TioWord(address).v = w.x;
}

/* Element i of a chunk, up to 32 bits, sign- or zero-extended as tio_load_bits() does; i is a
 * constant once the caller's loop is unrolled. */
uint ew_unpack_bits(uint type, uvec4 w, uint i)
{
    uint size = tio_element_size(type), per_word = 4u / size, word = w[i / per_word];
    int offset = int(8u * size * (i % per_word)), bits = int(8u * size);

    if (size == 4u)
        return word;
    return tio_is_signed(type) ? uint(bitfieldExtract(int(word), offset, bits)) : bitfieldExtract(word, offset, bits);
}

uvec4 ew_pack_bits(uint type, uvec4 w, uint i, uint value)
{
    uint size = tio_element_size(type), per_word = 4u / size;

    if (size == 4u)
        w[i] = value;
    else
        w[i / per_word] = bitfieldInsert(w[i / per_word], value, int(8u * size * (i % per_word)), int(8u * size));
    return w;
}

float ew_unpack_float(uint type, uvec4 w, uint i)
{
    if (type == TIO_TYPE_FLOAT16)
        return unpackHalf2x16(w[i >> 1u])[i & 1u];
    return tio_bits_to_float(type, ew_unpack_bits(type, w, i));
}

uvec4 ew_pack_float(uint type, uvec4 w, uint i, float value)
{
    if (type == TIO_TYPE_FLOAT16)
        w[i >> 1u] = bitfieldInsert(w[i >> 1u], packHalf2x16(vec2(value, 0.0)), int(16u * (i & 1u)), 16);
    else
        w[i] = floatBitsToUint(value);
    return w;
}

uvec2 ew_unpack_pair(uvec4 w, uint i)
{
    return uvec2(w[2u * i], w[2u * i + 1u]);
}

uvec4 ew_pack_pair(uvec4 w, uint i, uvec2 value)
{
    w[2u * i] = value.x;
    w[2u * i + 1u] = value.y;
    return w;
}

#ifdef VKDML_INT64
uint64_t ew_unpack_long(uint type, uvec4 w, uint i)
{
    uint bits;

    if (tio_element_size(type) == 8u)
        return packUint2x32(ew_unpack_pair(w, i));
    bits = ew_unpack_bits(type, w, i);
    return tio_is_signed(type) ? uint64_t(int64_t(int(bits))) : uint64_t(bits);
}
#endif

#ifdef VKDML_FLOAT64
double ew_unpack_double(uint type, uvec4 w, uint i)
{
    uint bits;

    if (type == TIO_TYPE_FLOAT64)
        return packDouble2x32(ew_unpack_pair(w, i));
    bits = ew_unpack_bits(type, w, i);
    return tio_is_signed(type) ? double(int(bits)) : double(bits);
}
#endif

/* ---- What every operation shares ---- */

/* The float activation: ACTIVATION_* operators and ELEMENT_WISE_ADD1's FusedActivation, compiled
 * only into EW_GROUP_ACTIVATION variants (the whole set costs pipeline-creation time). */
float ew_float_activation(float y)
{
#ifdef EW_GROUP_ACTIVATION
    return vkdml_activation(y);
#else
    return y;
#endif
}

float ew_scale_bias(float x)
{
    return EW_SCALE_BIAS ? x * uintBitsToFloat(EW_SCALE_BITS) + uintBitsToFloat(EW_BIAS_BITS) : x;
}

/* The activations integers have: RELU (signed types) and SHRINK (attributes above). */
uint ew_uint_activation(uint y)
{
    bool s = ew_signed_domain();

    if (VKDML_ACTIVATION_KIND == VKDML_ACTIVATION_RELU)
        return s && int(y) < 0 ? 0u : y;
    if (VKDML_ACTIVATION_KIND == VKDML_ACTIVATION_SHRINK)
    {
        bool low = (EW_ATTR3 & EW_SHRINK_NO_LOW) == 0u
                && (s ? int(y) <= int(EW_ATTR0) : y <= EW_ATTR0);
        bool high = (EW_ATTR3 & EW_SHRINK_NO_HIGH) == 0u
                && (s ? int(y) >= int(EW_ATTR1) : y >= EW_ATTR1);

        return low ? y + EW_ATTR2 : (high ? y - EW_ATTR2 : 0u);
    }
    return y;
}

/* A float result as a 32-bit integer of the domain: truncated toward zero (C's conversion),
 * saturated at the 32-bit limits, NaN as 0. Narrower types then wrap when stored. */
uint ew_float_to_bits(float y)
{
    if (vkdml_isnan(y))
        return 0u;
    if (ew_signed_domain())
        return y >= 2147483648.0 ? 0x7fffffffu : (y <= -2147483648.0 ? 0x80000000u : uint(int(y)));
    return y >= 4294967296.0 ? 0xffffffffu : (y <= 0.0 ? 0u : uint(y));
}

#ifdef EW_GROUP_POW
/* x^n for n >= 0, wrapping as repeated multiplication in the type does. */
uint ew_ipow(uint x, uint n)
{
    uint r = 1u;

    while (n != 0u)
    {
        if ((n & 1u) != 0u)
            r *= x;
        x *= x;
        n >>= 1u;
    }
    return r;
}

/* x^-n for n > 0: 1 / x^n truncated toward zero, as integer division does (1 / 0 gives DIVIDE's
 * all-ones result). */
uint ew_ipow_negative(uint x, uint n)
{
    if (x == 1u)
        return 1u;
    if (ew_signed_domain() && x == 0xffffffffu)
        return (n & 1u) != 0u ? x : 1u;
    return x == 0u ? 0xffffffffu : 0u;
}

/* x^e for a float exponent: exact for integral e, else fp32 pow converted as above. */
uint ew_ipow_float(uint x, float e)
{
    if (vkdml_isnan(e))
        return 0u;
    if (floor(e) == e && abs(e) < 4294967296.0)
        return e >= 0.0 ? ew_ipow(x, uint(e)) : ew_ipow_negative(x, uint(-e));
    return ew_float_to_bits(vkdml_pow(ew_signed_domain() ? float(int(x)) : float(x), e));
}
#endif

/* ---- One item: EW_V consecutive output elements (one outside vector mode), computed through
 * a single call of the operation per domain, so that the operation is inlined once. An input
 * with innermost stride 1 is read as one chunk, one with stride 0 as one element; the last item
 * of a rank-1 tensor in vector mode may hold fewer (`count`) and goes element by element. ---- */

struct EwTensors
{
    uvec2 base[EW_TENSOR_COUNT];
};

/* Whether input `type` with innermost stride kind `inner` is read as a chunk. */
bool ew_chunked(uint type, uint inner, uint count)
{
    return EW_V > 1u && type != 0u && inner == EW_INNER_CONTIGUOUS && count == EW_V;
}

/* Whether it is read as one element (broadcast along dimension 0, or outside vector mode). */
bool ew_single(uint inner)
{
    return EW_V == 1u || inner == EW_INNER_BROADCAST;
}

void ew_gather_float(uint type, uint inner, uvec2 base, uint o, uint count, out float x[16])
{
    [[unroll]] for (uint i = 0u; i < EW_V; ++i)
        x[i] = 0.0;
    if (type == 0u)
        return;
    if (ew_chunked(type, inner, count))
    {
        uvec4 w = ew_load_chunk(type, base, o);

        [[unroll]] for (uint i = 0u; i < EW_V; ++i)
            x[i] = ew_unpack_float(type, w, i);
    }
    else if (ew_single(inner))
    {
        float v = tio_load_float_any(type, base, o);

        [[unroll]] for (uint i = 0u; i < EW_V; ++i)
            x[i] = v;
    }
    else
    {
        [[unroll]] for (uint i = 0u; i < EW_V; ++i)
            if (i < count)
                x[i] = tio_load_float_any(type, base, o + i);
    }
}

void ew_gather_bits(uint type, uint inner, uvec2 base, uint o, uint count, out uint x[16])
{
    [[unroll]] for (uint i = 0u; i < EW_V; ++i)
        x[i] = 0u;
    if (type == 0u)
        return;
    if (ew_chunked(type, inner, count))
    {
        uvec4 w = ew_load_chunk(type, base, o);

        [[unroll]] for (uint i = 0u; i < EW_V; ++i)
            x[i] = ew_unpack_bits(type, w, i);
    }
    else if (ew_single(inner))
    {
        uint v = tio_load_bits(type, base, o);

        [[unroll]] for (uint i = 0u; i < EW_V; ++i)
            x[i] = v;
    }
    else
    {
        [[unroll]] for (uint i = 0u; i < EW_V; ++i)
            if (i < count)
                x[i] = tio_load_bits(type, base, o + i);
    }
}

/* The output: a chunk when the item is whole, else element by element. */
void ew_scatter_float(uvec2 base, uint o, uint count, float y[16])
{
    if (EW_V > 1u && count == EW_V)
    {
        uvec4 w = uvec4(0u);

        [[unroll]] for (uint i = 0u; i < EW_V; ++i)
            w = ew_pack_float(T3_TYPE, w, i, y[i]);
        ew_store_chunk(T3_TYPE, base, o, w);
        return;
    }
    [[unroll]] for (uint i = 0u; i < EW_V; ++i)
        if (i < count)
            tio_store_float(T3_TYPE, base, o + i, y[i]);
}

void ew_scatter_bits(uvec2 base, uint o, uint count, uint y[16])
{
    if (EW_V > 1u && count == EW_V)
    {
        uvec4 w = uvec4(0u);

        [[unroll]] for (uint i = 0u; i < EW_V; ++i)
            w = ew_pack_bits(T3_TYPE, w, i, y[i]);
        ew_store_chunk(T3_TYPE, base, o, w);
        return;
    }
    [[unroll]] for (uint i = 0u; i < EW_V; ++i)
        if (i < count)
            tio_store_bits(T3_TYPE, base, o + i, y[i]);
}

void ew_item_float(EwTensors t, uint o0, uint o1, uint o2, uint o3, uint count)
{
    float x0[16], x1[16], x2[16], y[16];
    uint p[16];

    ew_gather_float(T0_TYPE, T0_INNER, t.base[0], o0, count, x0);
    ew_gather_float(T1_TYPE, T1_INNER, t.base[1], o1, count, x1);
    ew_gather_float(T2_TYPE, T2_INNER, t.base[2], o2, count, x2);
    if (EW_PREDICATE)
    {
        [[unroll]] for (uint i = 0u; i < EW_V; ++i)
            p[i] = ew_float_predicate(ew_scale_bias(x0[i]), x1[i]);
        ew_scatter_bits(t.base[EW_OUTPUT], o3, count, p);
        return;
    }
    [[unroll]] for (uint i = 0u; i < EW_V; ++i)
        y[i] = ew_float_activation(ew_float_value(ew_scale_bias(x0[i]), x1[i], x2[i]));
    ew_scatter_float(t.base[EW_OUTPUT], o3, count, y);
}

void ew_item_uint(EwTensors t, uint o0, uint o1, uint o2, uint o3, uint count)
{
    uint x0[16], x1[16], x2[16], y[16];

    ew_gather_bits(T0_TYPE, T0_INNER, t.base[0], o0, count, x0);
    ew_gather_bits(T1_TYPE, T1_INNER, t.base[1], o1, count, x1);
    ew_gather_bits(T2_TYPE, T2_INNER, t.base[2], o2, count, x2);
    [[unroll]] for (uint i = 0u; i < EW_V; ++i)
        y[i] = EW_PREDICATE ? ew_uint_predicate(x0[i], x1[i]) : ew_uint_activation(ew_uint_value(x0[i], x1[i], x2[i]));
    ew_scatter_bits(t.base[EW_OUTPUT], o3, count, y);
}

#ifdef VKDML_INT64
void ew_gather_long(uint type, uint inner, uvec2 base, uint o, uint count, out uint64_t x[16])
{
    [[unroll]] for (uint i = 0u; i < EW_V; ++i)
        x[i] = 0ul;
    if (type == 0u)
        return;
    if (ew_chunked(type, inner, count))
    {
        uvec4 w = ew_load_chunk(type, base, o);

        [[unroll]] for (uint i = 0u; i < EW_V; ++i)
            x[i] = ew_unpack_long(type, w, i);
    }
    else if (ew_single(inner))
    {
        uint64_t v = tio_load_long(type, base, o);

        [[unroll]] for (uint i = 0u; i < EW_V; ++i)
            x[i] = v;
    }
    else
    {
        [[unroll]] for (uint i = 0u; i < EW_V; ++i)
            if (i < count)
                x[i] = tio_load_long(type, base, o + i);
    }
}

void ew_item_long(EwTensors t, uint o0, uint o1, uint o2, uint o3, uint count)
{
    uint64_t x0[16], x1[16], x2[16], y[16];
    uint p[16];

    ew_gather_long(T0_TYPE, T0_INNER, t.base[0], o0, count, x0);
    ew_gather_long(T1_TYPE, T1_INNER, t.base[1], o1, count, x1);
    ew_gather_long(T2_TYPE, T2_INNER, t.base[2], o2, count, x2);
    if (EW_PREDICATE)
    {
        [[unroll]] for (uint i = 0u; i < EW_V; ++i)
            p[i] = ew_long_predicate(x0[i], x1[i]);
        ew_scatter_bits(t.base[EW_OUTPUT], o3, count, p);
        return;
    }
    [[unroll]] for (uint i = 0u; i < EW_V; ++i)
        y[i] = ew_long_value(x0[i], x1[i], x2[i]);
    if (EW_V > 1u && count == EW_V)
    {
        uvec4 w = uvec4(0u);

        [[unroll]] for (uint i = 0u; i < EW_V; ++i)
            w = ew_pack_pair(w, i, unpackUint2x32(y[i]));
        ew_store_chunk(T3_TYPE, t.base[EW_OUTPUT], o3, w);
        return;
    }
    [[unroll]] for (uint i = 0u; i < EW_V; ++i)
        if (i < count)
            tio_store_long(t.base[EW_OUTPUT], o3 + i, y[i]);
}
#endif

#ifdef VKDML_FLOAT64
void ew_gather_double(uint type, uint inner, uvec2 base, uint o, uint count, out double x[16])
{
    [[unroll]] for (uint i = 0u; i < EW_V; ++i)
        x[i] = 0.0lf;
    if (type == 0u)
        return;
    if (ew_chunked(type, inner, count))
    {
        uvec4 w = ew_load_chunk(type, base, o);

        [[unroll]] for (uint i = 0u; i < EW_V; ++i)
            x[i] = ew_unpack_double(type, w, i);
    }
    else if (ew_single(inner))
    {
        double v = tio_load_double(type, base, o);

        [[unroll]] for (uint i = 0u; i < EW_V; ++i)
            x[i] = v;
    }
    else
    {
        [[unroll]] for (uint i = 0u; i < EW_V; ++i)
            if (i < count)
                x[i] = tio_load_double(type, base, o + i);
    }
}

void ew_item_double(EwTensors t, uint o0, uint o1, uint o2, uint o3, uint count)
{
    double x0[16], x1[16], x2[16], y[16];

    ew_gather_double(T0_TYPE, T0_INNER, t.base[0], o0, count, x0);
    ew_gather_double(T1_TYPE, T1_INNER, t.base[1], o1, count, x1);
    ew_gather_double(T2_TYPE, T2_INNER, t.base[2], o2, count, x2);
    [[unroll]] for (uint i = 0u; i < EW_V; ++i)
    {
        double a = x0[i];

        if (EW_SCALE_BIAS)
            a = a * double(uintBitsToFloat(EW_SCALE_BITS)) + double(uintBitsToFloat(EW_BIAS_BITS));
        y[i] = ew_double_value(a, x1[i], x2[i]);
    }
    if (EW_V > 1u && count == EW_V)
    {
        uvec4 w = uvec4(0u);

        [[unroll]] for (uint i = 0u; i < EW_V; ++i)
            w = ew_pack_pair(w, i, unpackDouble2x32(y[i]));
        ew_store_chunk(T3_TYPE, t.base[EW_OUTPUT], o3, w);
        return;
    }
    [[unroll]] for (uint i = 0u; i < EW_V; ++i)
        if (i < count)
            tio_store_double(t.base[EW_OUTPUT], o3 + i, y[i]);
}
#endif

#ifdef EW_GROUP_CAST
/* elementwise_cast.comp: input type -> output type, whatever the domain. */
void ew_item_cast(EwTensors t, uint o0, uint o3, uint count);
#endif

/* The 64-bit variants are chosen only for their own domains (the C side picks the variant from
 * the tensor types, and a 64-bit operand type means a 64-bit domain), so each variant compiles
 * only the domains it can meet. */
void ew_item(EwTensors t, uint o0, uint o1, uint o2, uint o3, uint count)
{
#if defined(EW_GROUP_CAST)
    ew_item_cast(t, o0, o3, count);
#elif defined(VKDML_INT64)
    ew_item_long(t, o0, o1, o2, o3, count);
#elif defined(VKDML_FLOAT64)
    ew_item_double(t, o0, o1, o2, o3, count);
#else
    if (EW_DOMAIN == EW_DOMAIN_FLOAT)
        ew_item_float(t, o0, o1, o2, o3, count);
    else
        ew_item_uint(t, o0, o1, o2, o3, count);
#endif
}

/* ---- The grid ---- */

/* Index -> element offset in every tensor. Dimension d is used only when d < RANK (a constant),
 * and the outermost one needs no division. With `inner` > 1 (vector mode) the index counts
 * vectors of `inner` elements along dimension 0 (the record's size of dimension 0 counts them). */
#define EW_DIMENSION(d) \
    if (EW_RANK > d) \
    { \
        uint c; \
        if (EW_RANK == d + 1) \
        { \
            c = i; \
        } \
        else \
        { \
            uint q = EW_QUOTIENT(i, d); \
            c = i - q * EW_DIVISOR(d); \
            i = q; \
        } \
        if (d == 0) \
            c *= inner; \
        o0 += c * EW_STRIDE(0, d); \
        o1 += c * EW_STRIDE(1, d); \
        o2 += c * EW_STRIDE(2, d); \
        o3 += c * EW_STRIDE(3, d); \
    }

void ew_offsets(uint i, uint inner, out uint o0, out uint o1, out uint o2, out uint o3)
{
    o0 = o1 = o2 = o3 = 0u;
    EW_DIMENSION(0)
    EW_DIMENSION(1)
    EW_DIMENSION(2)
    EW_DIMENSION(3)
    EW_DIMENSION(4)
    EW_DIMENSION(5)
    EW_DIMENSION(6)
    if (EW_RANK == 8)
    {
        o0 += i * EW_STRIDE(0, 7);
        o1 += i * EW_STRIDE(1, 7);
        o2 += i * EW_STRIDE(2, 7);
        o3 += i * EW_STRIDE(3, 7);
    }
}

void main()
{
    /* Items of EW_V elements; at rank 1 the last one may be partial. */
    const uint count = EW_COUNT, items = count / EW_V + (count % EW_V != 0u ? 1u : 0u);
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x, index = gl_GlobalInvocationID.x, o0, o1, o2, o3;
    EwTensors t;

    t.base[0] = EW_TENSOR_BASE(0);
    t.base[1] = t.base[2] = t.base[0];
    if (T1_TYPE != 0u)
        t.base[1] = EW_TENSOR_BASE(1);
    if (T2_TYPE != 0u)
        t.base[2] = EW_TENSOR_BASE(2);
    t.base[EW_OUTPUT] = EW_TENSOR_BASE(3);

    for (; index < items; index += stride)
    {
        ew_offsets(index, EW_V, o0, o1, o2, o3);
        /* index * EW_V < count for every item, so this cannot wrap. */
        ew_item(t, o0, o1, o2, o3, min(EW_V, count - index * EW_V));
        /* index + stride may wrap past 2^32 - 1. */
        if (items - index <= stride)
            break;
    }
}
