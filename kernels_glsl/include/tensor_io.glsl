/*
 * Typed element access for every kernel that reads or writes DirectML tensors of any data type:
 * the data types as DML_TENSOR_DATA_TYPE values, 64-bit byte addresses on uvec2 (no
 * shaderInt64 needed), scalar loads and stores by type. A kernel source is compiled in variants
 * (kernels_glsl/meson.build) that define what its tensors need; a type a variant cannot hold
 * never reaches it, the C side picks the variant (vkdml_find_kernel_variant()):
 *     VKDML_STORAGE_16BIT   FLOAT16, INT16, UINT16 (storageBuffer16BitAccess)
 *     VKDML_STORAGE_8BIT    INT8, UINT8 (storageBuffer8BitAccess)
 *     VKDML_INT64           INT64, UINT64 as uint64_t; FLOAT64 as bits (shaderInt64)
 *     VKDML_FLOAT64         FLOAT64 arithmetic (shaderFloat64)
 * `type` arguments are specialization constants in practice, so each call keeps one branch.
 */
#ifndef VKDML_TENSOR_IO_GLSL
#define VKDML_TENSOR_IO_GLSL

#extension GL_EXT_buffer_reference_uvec2 : require
#ifdef VKDML_STORAGE_16BIT
#extension GL_EXT_shader_16bit_storage : require
#endif
#ifdef VKDML_STORAGE_8BIT
#extension GL_EXT_shader_8bit_storage : require
#endif
#ifdef VKDML_INT64
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#endif

/* DML_TENSOR_DATA_TYPE values. */
#define TIO_TYPE_FLOAT32 1
#define TIO_TYPE_FLOAT16 2
#define TIO_TYPE_UINT32 3
#define TIO_TYPE_UINT16 4
#define TIO_TYPE_UINT8 5
#define TIO_TYPE_INT32 6
#define TIO_TYPE_INT16 7
#define TIO_TYPE_INT8 8
#define TIO_TYPE_FLOAT64 9
#define TIO_TYPE_UINT64 10
#define TIO_TYPE_INT64 11

/* ---- Types ---- */

uint tio_element_size(uint type)
{
    switch (type)
    {
        case TIO_TYPE_FLOAT16: case TIO_TYPE_UINT16: case TIO_TYPE_INT16:
            return 2u;
        case TIO_TYPE_UINT8: case TIO_TYPE_INT8:
            return 1u;
        case TIO_TYPE_FLOAT64: case TIO_TYPE_UINT64: case TIO_TYPE_INT64:
            return 8u;
        default:
            return 4u;
    }
}

bool tio_is_signed(uint type)
{
    return type == TIO_TYPE_INT8 || type == TIO_TYPE_INT16 || type == TIO_TYPE_INT32 || type == TIO_TYPE_INT64;
}

bool tio_is_float(uint type)
{
    return type == TIO_TYPE_FLOAT32 || type == TIO_TYPE_FLOAT16 || type == TIO_TYPE_FLOAT64;
}

/* The bits of an element of `type` (up to 32 bits wide), zero-extended. */
uint tio_type_mask(uint type)
{
    uint size = tio_element_size(type);

    return size >= 4u ? 0xffffffffu : (1u << (8u * size)) - 1u;
}

/* A 32-bit pattern of a (sign- or zero-extended) integer of `type`, or the bits of a FLOAT32 /
 * FLOAT16, as a float value. */
float tio_bits_to_float(uint type, uint bits)
{
    if (type == TIO_TYPE_FLOAT32)
        return uintBitsToFloat(bits);
    if (type == TIO_TYPE_FLOAT16)
        return unpackHalf2x16(bits).x;
    return tio_is_signed(type) ? float(int(bits)) : float(bits);
}

/* ---- Addresses: 64-bit arithmetic on uvec2 (no shaderInt64) ---- */

layout(buffer_reference, std430, buffer_reference_align = 4) buffer TioWord { uint v; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer TioPair { uvec2 v; };
layout(buffer_reference, std430, buffer_reference_align = 16) buffer TioVector { uvec4 v; };
#ifdef VKDML_STORAGE_16BIT
layout(buffer_reference, std430, buffer_reference_align = 2) buffer TioHalf { float16_t v; };
layout(buffer_reference, std430, buffer_reference_align = 2) buffer TioShort { int16_t v; };
layout(buffer_reference, std430, buffer_reference_align = 2) buffer TioUshort { uint16_t v; };
#endif
#ifdef VKDML_STORAGE_8BIT
layout(buffer_reference, std430, buffer_reference_align = 1) buffer TioByte { int8_t v; };
layout(buffer_reference, std430, buffer_reference_align = 1) buffer TioUbyte { uint8_t v; };
#endif
#ifdef VKDML_INT64
layout(buffer_reference, std430, buffer_reference_align = 8) buffer TioUlong { uint64_t v; };
#endif
#ifdef VKDML_FLOAT64
layout(buffer_reference, std430, buffer_reference_align = 8) buffer TioDouble { double v; };
#endif

uvec2 tio_add64(uvec2 a, uint lo, uint hi)
{
    uint carry, sum = uaddCarry(a.x, lo, carry);

    return uvec2(sum, a.y + hi + carry);
}

uvec2 tio_element_address(uvec2 base, uint index, uint element_size)
{
    uint hi, lo;

    umulExtended(index, element_size, hi, lo);
    return tio_add64(base, lo, hi);
}

/* ---- Scalar loads and stores; `type` is a specialization constant, so each call keeps one
 * branch. A type a variant cannot hold never reaches it (the C side picks the variant). ---- */

float tio_load_float(uint type, uvec2 base, uint index)
{
#ifdef VKDML_STORAGE_16BIT
    if (type == TIO_TYPE_FLOAT16)
        return float(TioHalf(tio_element_address(base, index, 2u)).v);
#endif
    return uintBitsToFloat(TioWord(tio_element_address(base, index, 4u)).v);
}

void tio_store_float(uint type, uvec2 base, uint index, float value)
{
#ifdef VKDML_STORAGE_16BIT
    if (type == TIO_TYPE_FLOAT16)
    {
        TioHalf(tio_element_address(base, index, 2u)).v = float16_t(value);
        return;
    }
#endif
    TioWord(tio_element_address(base, index, 4u)).v = floatBitsToUint(value);
}

/* Elements up to 32 bits as 32-bit patterns: integers sign- or zero-extended by their type,
 * floats as their bits (FLOAT16 zero-extended). */
uint tio_load_bits(uint type, uvec2 base, uint index)
{
#ifdef VKDML_STORAGE_16BIT
    if (type == TIO_TYPE_INT16)
        return uint(int(TioShort(tio_element_address(base, index, 2u)).v));
    if (type == TIO_TYPE_UINT16 || type == TIO_TYPE_FLOAT16)
        return uint(TioUshort(tio_element_address(base, index, 2u)).v);
#endif
#ifdef VKDML_STORAGE_8BIT
    if (type == TIO_TYPE_INT8)
        return uint(int(TioByte(tio_element_address(base, index, 1u)).v));
    if (type == TIO_TYPE_UINT8)
        return uint(TioUbyte(tio_element_address(base, index, 1u)).v);
#endif
    return TioWord(tio_element_address(base, index, 4u)).v;
}

/* Stores the low bits that fit the tensor's type (wrapping, as two's complement does). */
void tio_store_bits(uint type, uvec2 base, uint index, uint value)
{
#ifdef VKDML_STORAGE_16BIT
    if (tio_element_size(type) == 2u)
    {
        TioUshort(tio_element_address(base, index, 2u)).v = uint16_t(value);
        return;
    }
#endif
#ifdef VKDML_STORAGE_8BIT
    if (tio_element_size(type) == 1u)
    {
        TioUbyte(tio_element_address(base, index, 1u)).v = uint8_t(value);
        return;
    }
#endif
    TioWord(tio_element_address(base, index, 4u)).v = value;
}

#ifdef VKDML_INT64
/* 64-bit elements as their bits; narrower integers sign- or zero-extended. */
uint64_t tio_load_long(uint type, uvec2 base, uint index)
{
    uint bits;

    if (tio_element_size(type) == 8u)
        return TioUlong(tio_element_address(base, index, 8u)).v;
    bits = tio_load_bits(type, base, index);
    return tio_is_signed(type) ? uint64_t(int64_t(int(bits))) : uint64_t(bits);
}

void tio_store_long(uvec2 base, uint index, uint64_t value)
{
    TioUlong(tio_element_address(base, index, 8u)).v = value;
}
#endif

#ifdef VKDML_FLOAT64
/* FLOAT64 elements; narrower integers (IF's condition) by value. */
double tio_load_double(uint type, uvec2 base, uint index)
{
    uint bits;

    if (type == TIO_TYPE_FLOAT64)
        return TioDouble(tio_element_address(base, index, 8u)).v;
    bits = tio_load_bits(type, base, index);
    return tio_is_signed(type) ? double(int(bits)) : double(bits);
}

void tio_store_double(uvec2 base, uint index, double value)
{
    TioDouble(tio_element_address(base, index, 8u)).v = value;
}
#endif

/* A value of any 32-bit-or-narrower type as a float: floats as themselves, integers by value. */
float tio_load_float_any(uint type, uvec2 base, uint index)
{
    if (tio_is_float(type))
        return tio_load_float(type, base, index);
    return tio_bits_to_float(type, tio_load_bits(type, base, index));
}

#endif /* VKDML_TENSOR_IO_GLSL */
