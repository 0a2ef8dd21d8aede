#version 460
#extension GL_GOOGLE_include_directive : require
/*
 * The element-wise family: output[i] = activation(op(input0[i], input1[i], input2[i])) over any
 * rank 1..8 and any element strides (0 broadcasts), for every data type its variant allows
 * (include/elementwise_interface.h lists the variants, the specialization constants and the
 * domains). One invocation owns whole elements: it reads every input of an element, then
 * writes that element, so in-place execution (output bound over an input with the same
 * layout) needs no synchronisation. A 1-D grid walks the elements with a grid-stride loop, so
 * element counts up to 2^32 - 1 work with any maxComputeWorkGroupCount.
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

/* Element index -> element offset in every tensor. Dimension d is used only when d < RANK (a
 * constant), and the outermost one needs no division. */
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
            c = i % EW_SIZE##d; \
            i /= EW_SIZE##d; \
        } \
        o0 += c * T0_STRIDE##d; \
        o1 += c * T1_STRIDE##d; \
        o2 += c * T2_STRIDE##d; \
        o3 += c * T3_STRIDE##d; \
    }

void main()
{
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x, index = gl_GlobalInvocationID.x;
    EwTensors t;

    if (index >= EW_ELEMENT_COUNT)
        return;
    t.base[0] = ew_tensor_base(T0_SLOT, T0_OFFSET_LO, T0_OFFSET_HI);
    t.base[1] = t.base[2] = t.base[0];
    if (T1_TYPE != 0u)
        t.base[1] = ew_tensor_base(T1_SLOT, T1_OFFSET_LO, T1_OFFSET_HI);
    if (T2_TYPE != 0u)
        t.base[2] = ew_tensor_base(T2_SLOT, T2_OFFSET_LO, T2_OFFSET_HI);
    t.base[EW_OUTPUT] = ew_tensor_base(T3_SLOT, T3_OFFSET_LO, T3_OFFSET_HI);

    for (;;)
    {
        uint i = index, o0 = 0u, o1 = 0u, o2 = 0u, o3 = 0u;

        EW_DIMENSION(0)
        EW_DIMENSION(1)
        EW_DIMENSION(2)
        EW_DIMENSION(3)
        EW_DIMENSION(4)
        EW_DIMENSION(5)
        EW_DIMENSION(6)
        EW_DIMENSION(7)
        ew_element(t, o0, o1, o2, o3);
        /* index + stride may wrap past 2^32 - 1. */
        if (EW_ELEMENT_COUNT - index <= stride)
            break;
        index += stride;
    }
}
