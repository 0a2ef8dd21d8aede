#version 460
#extension GL_GOOGLE_include_directive : require
/*
 * DML_OPERATOR_FILL_VALUE_CONSTANT, DML_OPERATOR_FILL_VALUE_SEQUENCE, DML_OPERATOR_DIAGONAL_MATRIX
 * and DIAGONAL_MATRIX1 (generator_interface.h):
 * one invocation per output element (strided outputs) or per 16 bytes of elements (packed ones,
 * which skip the coordinate arithmetic and store uvec4s where the tensor is 16-byte aligned),
 * consecutive invocations on consecutive logical elements: coalesced stores. CONSTANT stores
 * the value's bits; SEQUENCE computes ValueStart + i * ValueDelta: floats in fp32 as
 * start + float(i) * delta (not a running sum; FLOAT16 rounded once at the store), integers
 * with wrap-around in the type's width, 64-bit ones on uvec2 words (no shaderInt64 needed).
 * DIAGONAL stores Value on the span of diagonals, elsewhere the input element's bits (moved, not
 * converted) or zero.
 *
 * The values come in push constants; the type, shape and strides are specialization constants.
 *
 * Variants (kernels_glsl/meson.build, typed_kernels): the storage the tensor type needs;
 * 64-bit elements are stored as uvec2 through any variant.
 */
#include "common.glsl"
#include "dml_interface.h"
#include "tensor_io.glsl"
#include "generator_interface.h"

layout(local_size_x = GENERATOR_THREADS, local_size_y = 1, local_size_z = 1) in;

layout(constant_id = GENERATOR_SPEC_TYPE) const uint TYPE = TIO_TYPE_FLOAT32;
layout(constant_id = GENERATOR_SPEC_SEQUENCE) const bool SEQUENCE = false;
layout(constant_id = GENERATOR_SPEC_PACKED) const bool PACKED = true;
layout(constant_id = GENERATOR_SPEC_COUNT_ELEMENTS) const uint COUNT = 1;
layout(constant_id = GENERATOR_SPEC_VECTOR) const uint VECTOR = 1;
layout(constant_id = GENERATOR_SPEC_SIZES + 0) const uint SIZE_0 = 1;
layout(constant_id = GENERATOR_SPEC_SIZES + 1) const uint SIZE_1 = 1;
layout(constant_id = GENERATOR_SPEC_SIZES + 2) const uint SIZE_2 = 1;
layout(constant_id = GENERATOR_SPEC_SIZES + 3) const uint SIZE_3 = 1;
layout(constant_id = GENERATOR_SPEC_SIZES + 4) const uint SIZE_4 = 1;
layout(constant_id = GENERATOR_SPEC_SIZES + 5) const uint SIZE_5 = 1;
layout(constant_id = GENERATOR_SPEC_SIZES + 6) const uint SIZE_6 = 1;
layout(constant_id = GENERATOR_SPEC_SIZES + 7) const uint SIZE_7 = 1;
layout(constant_id = GENERATOR_SPEC_STRIDES + 0) const uint STRIDE_0 = 0;
layout(constant_id = GENERATOR_SPEC_STRIDES + 1) const uint STRIDE_1 = 0;
layout(constant_id = GENERATOR_SPEC_STRIDES + 2) const uint STRIDE_2 = 0;
layout(constant_id = GENERATOR_SPEC_STRIDES + 3) const uint STRIDE_3 = 0;
layout(constant_id = GENERATOR_SPEC_STRIDES + 4) const uint STRIDE_4 = 0;
layout(constant_id = GENERATOR_SPEC_STRIDES + 5) const uint STRIDE_5 = 0;
layout(constant_id = GENERATOR_SPEC_STRIDES + 6) const uint STRIDE_6 = 0;
layout(constant_id = GENERATOR_SPEC_STRIDES + 7) const uint STRIDE_7 = 1;
layout(constant_id = GENERATOR_SPEC_OUT_LOCATION + 0) const uint OUT_SLOT = 0;
layout(constant_id = GENERATOR_SPEC_OUT_LOCATION + 1) const uint OUT_OFFSET_LO = 0;
layout(constant_id = GENERATOR_SPEC_OUT_LOCATION + 2) const uint OUT_OFFSET_HI = 0;
layout(constant_id = GENERATOR_SPEC_DIAGONAL) const bool DIAGONAL = false;
layout(constant_id = GENERATOR_SPEC_HAS_INPUT) const bool HAS_INPUT = false;
layout(constant_id = GENERATOR_SPEC_IN_PACKED) const bool IN_PACKED = true;
layout(constant_id = GENERATOR_SPEC_IN_STRIDES + 0) const uint IN_STRIDE_0 = 0;
layout(constant_id = GENERATOR_SPEC_IN_STRIDES + 1) const uint IN_STRIDE_1 = 0;
layout(constant_id = GENERATOR_SPEC_IN_STRIDES + 2) const uint IN_STRIDE_2 = 0;
layout(constant_id = GENERATOR_SPEC_IN_STRIDES + 3) const uint IN_STRIDE_3 = 0;
layout(constant_id = GENERATOR_SPEC_IN_STRIDES + 4) const uint IN_STRIDE_4 = 0;
layout(constant_id = GENERATOR_SPEC_IN_STRIDES + 5) const uint IN_STRIDE_5 = 0;
layout(constant_id = GENERATOR_SPEC_IN_STRIDES + 6) const uint IN_STRIDE_6 = 0;
layout(constant_id = GENERATOR_SPEC_IN_STRIDES + 7) const uint IN_STRIDE_7 = 1;
layout(constant_id = GENERATOR_SPEC_IN_LOCATION + 0) const uint IN_SLOT = 0;
layout(constant_id = GENERATOR_SPEC_IN_LOCATION + 1) const uint IN_OFFSET_LO = 0;
layout(constant_id = GENERATOR_SPEC_IN_LOCATION + 2) const uint IN_OFFSET_HI = 0;

/* Dimension constant `d` (DIM(SIZE, d) is SIZE_d); `d` is a constant in the unrolled loop. */
#define DIM(name, d) ((d) == 0 ? name##_0 : (d) == 1 ? name##_1 : (d) == 2 ? name##_2 : (d) == 3 ? name##_3 \
        : (d) == 4 ? name##_4 : (d) == 5 ? name##_5 : (d) == 6 ? name##_6 : name##_7)

const bool WIDE = TYPE == TIO_TYPE_FLOAT64 || TYPE == TIO_TYPE_UINT64 || TYPE == TIO_TYPE_INT64;

/* DIAGONAL_MATRIX1's input tensor (main sets it). */
uvec2 input_base;

/* The element offset of logical element `index` (row-major over the sizes). */
uint element_offset(uint index)
{
    uint offset = 0;

    if (PACKED)
        return index;
    [[unroll]] for (int d = GENERATOR_MAX_RANK - 1; d >= 0; --d)
    {
        offset += (index % DIM(SIZE, d)) * DIM(STRIDE, d);
        index /= DIM(SIZE, d);
    }
    return offset;
}

uint input_offset(uint index)
{
    uint offset = 0;

    if (IN_PACKED)
        return index;
    [[unroll]] for (int d = GENERATOR_MAX_RANK - 1; d >= 0; --d)
    {
        offset += (index % DIM(SIZE, d)) * DIM(IN_STRIDE, d);
        index /= DIM(SIZE, d);
    }
    return offset;
}

/* DIAGONAL: whether element `index` (x, y its last two coordinates) gets Value. */
bool on_diagonal(uint index)
{
    int x = int(index % SIZE_7), y = int((index / SIZE_7) % SIZE_6);
    bool inside = x - y >= push.diagonal.x && x - y <= push.diagonal.y;

    return inside != (push.diagonal_invert != 0u);
}

/* VALUE + index * DELTA modulo 2^64, on (low, high) words. */
uvec2 wide_value(uint index)
{
    uint carry, hi, lo;

    if (DIAGONAL && !on_diagonal(index))
        return HAS_INPUT ? TioPair(tio_element_address(input_base, input_offset(index), 8u)).v : uvec2(0u);
    if (!SEQUENCE)
        return push.value;
    umulExtended(index, push.delta.x, hi, lo);
    hi += index * push.delta.y;
    lo = uaddCarry(lo, push.value.x, carry);
    return uvec2(lo, hi + push.value.y + carry);
}

/* The bits of element `index` of a type up to 32 bits wide. */
uint narrow_value(uint index)
{
    precise float value;

    if (DIAGONAL && !on_diagonal(index))
        return HAS_INPUT ? tio_load_bits(TYPE, input_base, input_offset(index)) : 0u;
    if (!SEQUENCE)
        return push.value.x;
    if (TYPE == TIO_TYPE_FLOAT32)
    {
        value = uintBitsToFloat(push.value.x) + float(index) * uintBitsToFloat(push.delta.x);
        return floatBitsToUint(value);
    }
    if (TYPE == TIO_TYPE_FLOAT16)
    {
        value = unpackHalf2x16(push.value.x).x + float(index) * unpackHalf2x16(push.delta.x).x;
        return packHalf2x16(vec2(value, 0.0)) & 0xffffu;
    }
    /* Narrow integers wrap when tio_store_bits keeps the low bits. */
    return push.value.x + index * push.delta.x;
}

void store_element(uvec2 base, uint index)
{
    if (WIDE)
        TioPair(tio_element_address(base, element_offset(index), 8u)).v = wide_value(index);
    else
        tio_store_bits(TYPE, base, element_offset(index), narrow_value(index));
}

/* VECTOR (16 bytes' worth) consecutive elements from `first`, packed into words. */
uvec4 vector_words(uint first)
{
    uint size = tio_element_size(TYPE);
    uvec4 words = uvec4(0u);

    [[unroll]] for (uint k = 0; k < VECTOR; ++k)
    {
        if (WIDE)
        {
            uvec2 value = wide_value(first + k);

            words[2u * k] = value.x;
            words[2u * k + 1u] = value.y;
        }
        else
        {
            words[k * size / 4u] |= (narrow_value(first + k) & tio_type_mask(TYPE)) << (8u * (k * size % 4u));
        }
    }
    return words;
}

void main()
{
    uint group = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);
    uint first = (group * GENERATOR_THREADS + gl_LocalInvocationIndex) * VECTOR;
    uvec2 base = vkdml_binding_address(VkdmlDescriptorTable(push.table), OUT_SLOT, OUT_OFFSET_LO, OUT_OFFSET_HI);

    if (HAS_INPUT)
        input_base = vkdml_binding_address(VkdmlDescriptorTable(push.table), IN_SLOT, IN_OFFSET_LO, IN_OFFSET_HI);

    if (first >= COUNT)
        return;
    /* Packed outputs: one 16-byte store per invocation where the tensor starts 16-byte aligned
     * (uniform: the same for every invocation) and the vector is whole. */
    if (VECTOR > 1u && (base.x & 15u) == 0u && first + VECTOR <= COUNT)
    {
        TioVector(tio_element_address(base, first, tio_element_size(TYPE))).v = vector_words(first);
        return;
    }
    [[unroll]] for (uint k = 0; k < VECTOR; ++k)
    {
        if (first + k < COUNT)
            store_element(base, first + k);
    }
}
