#version 460
#extension GL_GOOGLE_include_directive : require
/*
 * The element-wise family: output[i] = activation(op(input0[i], input1[i], input2[i])) over any
 * rank 1..8 and any element strides (0 broadcasts), for every data type its variant allows
 * (include/elementwise_interface.h lists the variants, the specialization constants and the
 * domains). One invocation owns whole elements: it reads every input of an element, then
 * writes that element, so in-place execution (output bound over an input with the same
 * layout) needs no synchronisation. A 1-D grid walks the elements (or 16-byte vectors of them)
 * with a grid-stride loop, so element counts up to 2^32 - 1 work with any
 * maxComputeWorkGroupCount.
 */
#include "common.glsl"
#extension GL_EXT_buffer_reference_uvec2 : require
#ifdef EW_STORAGE_16BIT
#extension GL_EXT_shader_16bit_storage : require
#endif
#ifdef EW_STORAGE_8BIT
#extension GL_EXT_shader_8bit_storage : require
#endif
#ifdef EW_INT64
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#endif

#include "elementwise_interface.h"
#define ACTIVATION_SPEC_BASE EW_SPEC_ACTIVATION
#include "activation.glsl"

layout(local_size_x_id = EW_SPEC_LOCAL_SIZE_X, local_size_x = EW_DEFAULT_LOCAL_SIZE) in;

layout(constant_id = EW_SPEC_OP) const uint EW_OP = EW_OP_IDENTITY;
layout(constant_id = EW_SPEC_DOMAIN) const uint EW_DOMAIN = EW_DOMAIN_FLOAT;
layout(constant_id = EW_SPEC_RANK) const uint EW_RANK = 1u;
layout(constant_id = EW_SPEC_ELEMENT_COUNT) const uint EW_ELEMENT_COUNT = 0u;
layout(constant_id = EW_SPEC_SCALE_BIAS) const bool EW_SCALE_BIAS = false;
layout(constant_id = EW_SPEC_SCALE) const uint EW_SCALE_BITS = 0x3f800000u;
layout(constant_id = EW_SPEC_BIAS) const uint EW_BIAS_BITS = 0u;
layout(constant_id = EW_SPEC_VECTOR) const bool EW_VECTOR = false;

#define EW_DECLARE_SIZE(d) layout(constant_id = EW_SPEC_SIZES + d) const uint EW_SIZE##d = 1u;
EW_DECLARE_SIZE(0) EW_DECLARE_SIZE(1) EW_DECLARE_SIZE(2) EW_DECLARE_SIZE(3)
EW_DECLARE_SIZE(4) EW_DECLARE_SIZE(5) EW_DECLARE_SIZE(6) EW_DECLARE_SIZE(7)

#define EW_DECLARE_TENSOR(t) \
    layout(constant_id = EW_SPEC_TENSOR(t, EW_SPEC_TENSOR_TYPE)) const uint T##t##_TYPE = 0u; \
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

/* ---- Addresses: 64-bit arithmetic on uvec2 (no shaderInt64) ---- */

layout(buffer_reference, std430, buffer_reference_align = 4) buffer EwWord { uint v; };
layout(buffer_reference, std430, buffer_reference_align = 16) buffer EwVector { uvec4 v; };
#ifdef EW_STORAGE_16BIT
layout(buffer_reference, std430, buffer_reference_align = 2) buffer EwHalf { float16_t v; };
layout(buffer_reference, std430, buffer_reference_align = 2) buffer EwShort { int16_t v; };
layout(buffer_reference, std430, buffer_reference_align = 2) buffer EwUshort { uint16_t v; };
#endif
#ifdef EW_STORAGE_8BIT
layout(buffer_reference, std430, buffer_reference_align = 1) buffer EwByte { int8_t v; };
layout(buffer_reference, std430, buffer_reference_align = 1) buffer EwUbyte { uint8_t v; };
#endif
#ifdef EW_INT64
layout(buffer_reference, std430, buffer_reference_align = 8) buffer EwLong { int64_t v; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer EwUlong { uint64_t v; };
#endif
#ifdef EW_FLOAT64
layout(buffer_reference, std430, buffer_reference_align = 8) buffer EwDouble { double v; };
#endif

uvec2 ew_add64(uvec2 a, uint lo, uint hi)
{
    uint carry, sum = uaddCarry(a.x, lo, carry);

    return uvec2(sum, a.y + hi + carry);
}

/* The tensor's first byte: its descriptor's address plus its byte offset. */
uvec2 ew_tensor_base(uint slot, uint offset_lo, uint offset_hi)
{
    return ew_add64(push.table.records[slot].address, offset_lo, offset_hi);
}

uvec2 ew_element_address(uvec2 base, uint index, uint element_size)
{
    uint hi, lo;

    umulExtended(index, element_size, hi, lo);
    return ew_add64(base, lo, hi);
}

uint ew_load_word(uvec2 base, uint index)
{
    return EwWord(ew_element_address(base, index, 4u)).v;
}

void ew_store_word(uvec2 base, uint index, uint value)
{
    EwWord(ew_element_address(base, index, 4u)).v = value;
}

/* ---- Loads and stores per domain; `type` is a specialization constant, so each call keeps one
 * branch. A type a variant cannot hold never reaches it (the C side picks the variant). ---- */

float ew_load_float(uint type, uvec2 base, uint index)
{
#ifdef EW_STORAGE_16BIT
    if (type == EW_TYPE_FLOAT16)
        return float(EwHalf(ew_element_address(base, index, 2u)).v);
#endif
    return uintBitsToFloat(ew_load_word(base, index));
}

void ew_store_float(uint type, uvec2 base, uint index, float value)
{
#ifdef EW_STORAGE_16BIT
    if (type == EW_TYPE_FLOAT16)
    {
        EwHalf(ew_element_address(base, index, 2u)).v = float16_t(value);
        return;
    }
#endif
    ew_store_word(base, index, floatBitsToUint(value));
}

/* Integers up to 32 bits as 32-bit patterns: sign- or zero-extended by the tensor's type. */
uint ew_load_bits(uint type, uvec2 base, uint index)
{
#ifdef EW_STORAGE_16BIT
    if (type == EW_TYPE_INT16)
        return uint(int(EwShort(ew_element_address(base, index, 2u)).v));
    if (type == EW_TYPE_UINT16)
        return uint(EwUshort(ew_element_address(base, index, 2u)).v);
#endif
#ifdef EW_STORAGE_8BIT
    if (type == EW_TYPE_INT8)
        return uint(int(EwByte(ew_element_address(base, index, 1u)).v));
    if (type == EW_TYPE_UINT8)
        return uint(EwUbyte(ew_element_address(base, index, 1u)).v);
#endif
    return ew_load_word(base, index);
}

/* Stores the low bits that fit the tensor's type (wrapping, as two's complement does). */
void ew_store_bits(uint type, uvec2 base, uint index, uint value)
{
#ifdef EW_STORAGE_16BIT
    if (type == EW_TYPE_INT16 || type == EW_TYPE_UINT16)
    {
        EwUshort(ew_element_address(base, index, 2u)).v = uint16_t(value);
        return;
    }
#endif
#ifdef EW_STORAGE_8BIT
    if (type == EW_TYPE_INT8 || type == EW_TYPE_UINT8)
    {
        EwUbyte(ew_element_address(base, index, 1u)).v = uint8_t(value);
        return;
    }
#endif
    ew_store_word(base, index, value);
}

#ifdef EW_INT64
uint64_t ew_load_long(uint type, uvec2 base, uint index)
{
    return EwUlong(ew_element_address(base, index, 8u)).v;
}

void ew_store_long(uint type, uvec2 base, uint index, uint64_t value)
{
    EwUlong(ew_element_address(base, index, 8u)).v = value;
}
#endif

#ifdef EW_FLOAT64
double ew_load_double(uint type, uvec2 base, uint index)
{
    return EwDouble(ew_element_address(base, index, 8u)).v;
}

void ew_store_double(uint type, uvec2 base, uint index, double value)
{
    EwDouble(ew_element_address(base, index, 8u)).v = value;
}
#endif

/* ---- 16-byte vectors (vector mode): elements packed in 32-bit words, little-endian ---- */

uint ew_element_size(uint type)
{
    switch (type)
    {
        case EW_TYPE_FLOAT16: case EW_TYPE_UINT16: case EW_TYPE_INT16:
            return 2u;
        case EW_TYPE_UINT8: case EW_TYPE_INT8:
            return 1u;
        case EW_TYPE_FLOAT64: case EW_TYPE_UINT64: case EW_TYPE_INT64:
            return 8u;
        default:
            return 4u;
    }
}

bool ew_is_signed(uint type)
{
    return type == EW_TYPE_INT8 || type == EW_TYPE_INT16 || type == EW_TYPE_INT32 || type == EW_TYPE_INT64;
}

/* `index` is the element index of the vector's first element (a multiple of V). */
uvec4 ew_load_vector(uint type, uvec2 base, uint index)
{
    return EwVector(ew_element_address(base, index, ew_element_size(type))).v;
}

void ew_store_vector(uint type, uvec2 base, uint index, uvec4 value)
{
    EwVector(ew_element_address(base, index, ew_element_size(type))).v = value;
}

/* Element i of a vector; i is a constant once the caller's loop is unrolled. */
float ew_unpack_float(uint type, uvec4 w, uint i)
{
    if (type == EW_TYPE_FLOAT16)
        return unpackHalf2x16(w[i >> 1u])[i & 1u];
    return uintBitsToFloat(w[i]);
}

uvec4 ew_pack_float(uint type, uvec4 w, uint i, float value)
{
    if (type == EW_TYPE_FLOAT16)
        w[i >> 1u] = bitfieldInsert(w[i >> 1u], packHalf2x16(vec2(value, 0.0)), int(16u * (i & 1u)), 16);
    else
        w[i] = floatBitsToUint(value);
    return w;
}

/* Integers up to 32 bits, sign- or zero-extended as ew_load_bits() does. */
uint ew_unpack_bits(uint type, uvec4 w, uint i)
{
    uint size = ew_element_size(type), per_word = 4u / size, word = w[i / per_word];
    int offset = int(8u * size * (i % per_word)), bits = int(8u * size);

    if (size == 4u)
        return word;
    return ew_is_signed(type) ? uint(bitfieldExtract(int(word), offset, bits)) : bitfieldExtract(word, offset, bits);
}

uvec4 ew_pack_bits(uint type, uvec4 w, uint i, uint value)
{
    uint size = ew_element_size(type), per_word = 4u / size;

    if (size == 4u)
        w[i] = value;
    else
        w[i / per_word] = bitfieldInsert(w[i / per_word], value, int(8u * size * (i % per_word)), int(8u * size));
    return w;
}

/* ---- Operations per domain ---- */

float ew_float_op(float x0, float x1, float x2)
{
    if (EW_SCALE_BIAS)
        x0 = x0 * uintBitsToFloat(EW_SCALE_BITS) + uintBitsToFloat(EW_BIAS_BITS);
    switch (EW_OP)
    {
        case EW_OP_ADD:
            return x0 + x1;
        case EW_OP_MULTIPLY:
            return x0 * x1;
        default:                /* EW_OP_IDENTITY */
            return x0;
    }
}

/* Two's complement: signed and unsigned add/multiply share their bits; the domains differ in
 * the ops that read the sign (RELU here; compare, divide, shift in issue 5). */
uint ew_int_op(uint x0, uint x1, uint x2)
{
    uint y;

    switch (EW_OP)
    {
        case EW_OP_ADD:
            y = x0 + x1;
            break;
        case EW_OP_MULTIPLY:
            y = x0 * x1;
            break;
        default:
            y = x0;
            break;
    }
    if (EW_DOMAIN == EW_DOMAIN_INT && VKDML_ACTIVATION_KIND == VKDML_ACTIVATION_RELU)
        y = int(y) < 0 ? 0u : y;
    return y;
}

#ifdef EW_INT64
uint64_t ew_long_op(uint64_t x0, uint64_t x1, uint64_t x2)
{
    uint64_t y;

    switch (EW_OP)
    {
        case EW_OP_ADD:
            y = x0 + x1;
            break;
        case EW_OP_MULTIPLY:
            y = x0 * x1;
            break;
        default:
            y = x0;
            break;
    }
    if (EW_DOMAIN == EW_DOMAIN_INT64 && VKDML_ACTIVATION_KIND == VKDML_ACTIVATION_RELU)
        y = int64_t(y) < 0l ? 0ul : y;
    return y;
}
#endif

#ifdef EW_FLOAT64
double ew_double_op(double x0, double x1, double x2)
{
    if (EW_SCALE_BIAS)
        x0 = x0 * double(uintBitsToFloat(EW_SCALE_BITS)) + double(uintBitsToFloat(EW_BIAS_BITS));
    switch (EW_OP)
    {
        case EW_OP_ADD:
            return x0 + x1;
        case EW_OP_MULTIPLY:
            return x0 * x1;
        default:
            return x0;
    }
}
#endif

/* ---- One element ---- */

struct EwTensors
{
    uvec2 base[EW_TENSOR_COUNT];
};

void ew_element(EwTensors t, uint o0, uint o1, uint o2, uint o3)
{
    if (EW_DOMAIN == EW_DOMAIN_FLOAT)
    {
        float x0 = ew_load_float(T0_TYPE, t.base[0], o0), x1 = 0.0, x2 = 0.0;

        if (T1_TYPE != 0u)
            x1 = ew_load_float(T1_TYPE, t.base[1], o1);
        if (T2_TYPE != 0u)
            x2 = ew_load_float(T2_TYPE, t.base[2], o2);
        ew_store_float(T3_TYPE, t.base[EW_OUTPUT], o3, vkdml_activation(ew_float_op(x0, x1, x2)));
    }
    else if (EW_DOMAIN == EW_DOMAIN_INT || EW_DOMAIN == EW_DOMAIN_UINT)
    {
        uint x0 = ew_load_bits(T0_TYPE, t.base[0], o0), x1 = 0u, x2 = 0u;

        if (T1_TYPE != 0u)
            x1 = ew_load_bits(T1_TYPE, t.base[1], o1);
        if (T2_TYPE != 0u)
            x2 = ew_load_bits(T2_TYPE, t.base[2], o2);
        ew_store_bits(T3_TYPE, t.base[EW_OUTPUT], o3, ew_int_op(x0, x1, x2));
    }
#ifdef EW_INT64
    else if (EW_DOMAIN == EW_DOMAIN_INT64 || EW_DOMAIN == EW_DOMAIN_UINT64)
    {
        uint64_t x0 = ew_load_long(T0_TYPE, t.base[0], o0), x1 = 0ul, x2 = 0ul;

        if (T1_TYPE != 0u)
            x1 = ew_load_long(T1_TYPE, t.base[1], o1);
        if (T2_TYPE != 0u)
            x2 = ew_load_long(T2_TYPE, t.base[2], o2);
        ew_store_long(T3_TYPE, t.base[EW_OUTPUT], o3, ew_long_op(x0, x1, x2));
    }
#endif
#ifdef EW_FLOAT64
    else if (EW_DOMAIN == EW_DOMAIN_DOUBLE)
    {
        double x0 = ew_load_double(T0_TYPE, t.base[0], o0), x1 = 0.0lf, x2 = 0.0lf;

        if (T1_TYPE != 0u)
            x1 = ew_load_double(T1_TYPE, t.base[1], o1);
        if (T2_TYPE != 0u)
            x2 = ew_load_double(T2_TYPE, t.base[2], o2);
        ew_store_double(T3_TYPE, t.base[EW_OUTPUT], o3, ew_double_op(x0, x1, x2));
    }
#endif
}

/* One 16-byte vector of output: V elements from vector loads of the stride-1 inputs and single
 * loads of the stride-0 (broadcast) ones. */
void ew_vector_item(EwTensors t, uint o0, uint o1, uint o2, uint o3)
{
    const uint V = 16u / ew_element_size(T3_TYPE);
    const bool v0 = T0_STRIDE0 == 1u, v1 = T1_TYPE != 0u && T1_STRIDE0 == 1u, v2 = T2_TYPE != 0u && T2_STRIDE0 == 1u;
    const bool s1 = T1_TYPE != 0u && T1_STRIDE0 == 0u, s2 = T2_TYPE != 0u && T2_STRIDE0 == 0u;
    uvec4 w0 = uvec4(0u), w1 = uvec4(0u), w2 = uvec4(0u), wo = uvec4(0u);

    if (v0)
        w0 = ew_load_vector(T0_TYPE, t.base[0], o0);
    if (v1)
        w1 = ew_load_vector(T1_TYPE, t.base[1], o1);
    if (v2)
        w2 = ew_load_vector(T2_TYPE, t.base[2], o2);

    if (EW_DOMAIN == EW_DOMAIN_FLOAT)
    {
        float x0 = 0.0, x1 = 0.0, x2 = 0.0;

        if (!v0)
            x0 = ew_load_float(T0_TYPE, t.base[0], o0);
        if (s1)
            x1 = ew_load_float(T1_TYPE, t.base[1], o1);
        if (s2)
            x2 = ew_load_float(T2_TYPE, t.base[2], o2);
        [[unroll]] for (uint i = 0u; i < V; ++i)
        {
            float y = ew_float_op(v0 ? ew_unpack_float(T0_TYPE, w0, i) : x0,
                    v1 ? ew_unpack_float(T1_TYPE, w1, i) : x1, v2 ? ew_unpack_float(T2_TYPE, w2, i) : x2);

            wo = ew_pack_float(T3_TYPE, wo, i, vkdml_activation(y));
        }
    }
    else if (EW_DOMAIN == EW_DOMAIN_INT || EW_DOMAIN == EW_DOMAIN_UINT)
    {
        uint x0 = 0u, x1 = 0u, x2 = 0u;

        if (!v0)
            x0 = ew_load_bits(T0_TYPE, t.base[0], o0);
        if (s1)
            x1 = ew_load_bits(T1_TYPE, t.base[1], o1);
        if (s2)
            x2 = ew_load_bits(T2_TYPE, t.base[2], o2);
        [[unroll]] for (uint i = 0u; i < V; ++i)
        {
            uint y = ew_int_op(v0 ? ew_unpack_bits(T0_TYPE, w0, i) : x0,
                    v1 ? ew_unpack_bits(T1_TYPE, w1, i) : x1, v2 ? ew_unpack_bits(T2_TYPE, w2, i) : x2);

            wo = ew_pack_bits(T3_TYPE, wo, i, y);
        }
    }
#ifdef EW_INT64
    else if (EW_DOMAIN == EW_DOMAIN_INT64 || EW_DOMAIN == EW_DOMAIN_UINT64)
    {
        uint64_t x0 = 0ul, x1 = 0ul, x2 = 0ul;

        if (!v0)
            x0 = ew_load_long(T0_TYPE, t.base[0], o0);
        if (s1)
            x1 = ew_load_long(T1_TYPE, t.base[1], o1);
        if (s2)
            x2 = ew_load_long(T2_TYPE, t.base[2], o2);
        [[unroll]] for (uint i = 0u; i < 2u; ++i)
        {
            uint64_t y = ew_long_op(v0 ? packUint2x32(uvec2(w0[2u * i], w0[2u * i + 1u])) : x0,
                    v1 ? packUint2x32(uvec2(w1[2u * i], w1[2u * i + 1u])) : x1,
                    v2 ? packUint2x32(uvec2(w2[2u * i], w2[2u * i + 1u])) : x2);
            uvec2 words = unpackUint2x32(y);

            wo[2u * i] = words.x;
            wo[2u * i + 1u] = words.y;
        }
    }
#endif
#ifdef EW_FLOAT64
    else if (EW_DOMAIN == EW_DOMAIN_DOUBLE)
    {
        double x0 = 0.0lf, x1 = 0.0lf, x2 = 0.0lf;

        if (!v0)
            x0 = ew_load_double(T0_TYPE, t.base[0], o0);
        if (s1)
            x1 = ew_load_double(T1_TYPE, t.base[1], o1);
        if (s2)
            x2 = ew_load_double(T2_TYPE, t.base[2], o2);
        [[unroll]] for (uint i = 0u; i < 2u; ++i)
        {
            double y = ew_double_op(v0 ? packDouble2x32(uvec2(w0[2u * i], w0[2u * i + 1u])) : x0,
                    v1 ? packDouble2x32(uvec2(w1[2u * i], w1[2u * i + 1u])) : x1,
                    v2 ? packDouble2x32(uvec2(w2[2u * i], w2[2u * i + 1u])) : x2);
            uvec2 words = unpackDouble2x32(y);

            wo[2u * i] = words.x;
            wo[2u * i + 1u] = words.y;
        }
    }
#endif
    ew_store_vector(T3_TYPE, t.base[EW_OUTPUT], o3, wo);
}

/* Index -> element offset in every tensor. Dimension d is used only when d < RANK (a constant),
 * and the outermost one needs no division. With `inner` > 1 (vector mode) the index counts
 * vectors of `inner` elements along dimension 0. */
#define EW_DIMENSION(d) \
    if (EW_RANK > d) \
    { \
        uint size = d == 0 ? EW_SIZE##d / inner : EW_SIZE##d, c; \
        if (EW_RANK == d + 1) \
        { \
            c = i; \
        } \
        else \
        { \
            c = i % size; \
            i /= size; \
        } \
        if (d == 0) \
            c *= inner; \
        o0 += c * T0_STRIDE##d; \
        o1 += c * T1_STRIDE##d; \
        o2 += c * T2_STRIDE##d; \
        o3 += c * T3_STRIDE##d; \
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
    EW_DIMENSION(7)
}

void main()
{
    const uint V = EW_VECTOR ? 16u / ew_element_size(T3_TYPE) : 1u;
    /* Vector mode at rank 1 leaves ELEMENT_COUNT % V elements to the scalar path. */
    const uint items = EW_ELEMENT_COUNT / V, tail = items * V;
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x, index = gl_GlobalInvocationID.x, o0, o1, o2, o3;
    EwTensors t;

    t.base[0] = ew_tensor_base(T0_SLOT, T0_OFFSET_LO, T0_OFFSET_HI);
    t.base[1] = t.base[2] = t.base[0];
    if (T1_TYPE != 0u)
        t.base[1] = ew_tensor_base(T1_SLOT, T1_OFFSET_LO, T1_OFFSET_HI);
    if (T2_TYPE != 0u)
        t.base[2] = ew_tensor_base(T2_SLOT, T2_OFFSET_LO, T2_OFFSET_HI);
    t.base[EW_OUTPUT] = ew_tensor_base(T3_SLOT, T3_OFFSET_LO, T3_OFFSET_HI);

    if (EW_VECTOR && index < EW_ELEMENT_COUNT - tail)
    {
        ew_offsets(tail + index, 1u, o0, o1, o2, o3);
        ew_element(t, o0, o1, o2, o3);
    }
    for (; index < items; index += stride)
    {
        ew_offsets(index, V, o0, o1, o2, o3);
        if (EW_VECTOR)
            ew_vector_item(t, o0, o1, o2, o3);
        else
            ew_element(t, o0, o1, o2, o3);
        /* index + stride may wrap past 2^32 - 1. */
        if (items - index <= stride)
            break;
    }
}
