#version 460
#extension GL_GOOGLE_include_directive : require
/*
 * DML_OPERATOR_MAX_UNPOOLING (unpooling_interface.h): the CLEAR, CLAIM and GATHER dispatches.
 * Elements move as bits (64-bit ones as uvec2 words, no shaderInt64); index elements are read
 * as words (indices.glsl) and resolved against the output's element count before any address is
 * formed: an index outside it is skipped (README "Indices out of range"). The winners make
 * duplicate indices deterministic without ordering the scatter, and GATHER writes each output
 * element once, coalesced, zeros included. CLEAR and GATHER take 16 bytes of winners an
 * invocation: one word per invocation left them at half the copy bandwidth.
 */
#include "common.glsl"
#include "dml_interface.h"
#include "tensor_io.glsl"
#include "indices.glsl"
#include "unpooling_interface.h"

layout(local_size_x = UNPOOL_THREADS, local_size_y = 1, local_size_z = 1) in;

layout(constant_id = UNPOOL_SPEC_MODE) const uint MODE = UNPOOL_MODE_CLEAR;
layout(constant_id = UNPOOL_SPEC_TYPE) const uint TYPE = TIO_TYPE_FLOAT32;
layout(constant_id = UNPOOL_SPEC_INDEX_TYPE) const uint INDEX_TYPE = TIO_TYPE_UINT32;
layout(constant_id = UNPOOL_SPEC_OUT_PACKED) const bool OUT_PACKED = false;
layout(constant_id = UNPOOL_SPEC_IN_SIZES + 0) const uint IN_SIZE_0 = 1;
layout(constant_id = UNPOOL_SPEC_IN_SIZES + 1) const uint IN_SIZE_1 = 1;
layout(constant_id = UNPOOL_SPEC_IN_SIZES + 2) const uint IN_SIZE_2 = 1;
layout(constant_id = UNPOOL_SPEC_IN_SIZES + 3) const uint IN_SIZE_3 = 1;
layout(constant_id = UNPOOL_SPEC_IN_STRIDES + 0) const uint IN_STRIDE_0 = 0;
layout(constant_id = UNPOOL_SPEC_IN_STRIDES + 1) const uint IN_STRIDE_1 = 0;
layout(constant_id = UNPOOL_SPEC_IN_STRIDES + 2) const uint IN_STRIDE_2 = 0;
layout(constant_id = UNPOOL_SPEC_IN_STRIDES + 3) const uint IN_STRIDE_3 = 0;
layout(constant_id = UNPOOL_SPEC_INDEX_STRIDES + 0) const uint INDEX_STRIDE_0 = 0;
layout(constant_id = UNPOOL_SPEC_INDEX_STRIDES + 1) const uint INDEX_STRIDE_1 = 0;
layout(constant_id = UNPOOL_SPEC_INDEX_STRIDES + 2) const uint INDEX_STRIDE_2 = 0;
layout(constant_id = UNPOOL_SPEC_INDEX_STRIDES + 3) const uint INDEX_STRIDE_3 = 0;
layout(constant_id = UNPOOL_SPEC_OUT_SIZES + 0) const uint OUT_SIZE_0 = 1;
layout(constant_id = UNPOOL_SPEC_OUT_SIZES + 1) const uint OUT_SIZE_1 = 1;
layout(constant_id = UNPOOL_SPEC_OUT_SIZES + 2) const uint OUT_SIZE_2 = 1;
layout(constant_id = UNPOOL_SPEC_OUT_SIZES + 3) const uint OUT_SIZE_3 = 1;
layout(constant_id = UNPOOL_SPEC_OUT_STRIDES + 0) const uint OUT_STRIDE_0 = 0;
layout(constant_id = UNPOOL_SPEC_OUT_STRIDES + 1) const uint OUT_STRIDE_1 = 0;
layout(constant_id = UNPOOL_SPEC_OUT_STRIDES + 2) const uint OUT_STRIDE_2 = 0;
layout(constant_id = UNPOOL_SPEC_OUT_STRIDES + 3) const uint OUT_STRIDE_3 = 0;
layout(constant_id = UNPOOL_SPEC_LOCATIONS + 0) const uint IN_SLOT = 0;
layout(constant_id = UNPOOL_SPEC_LOCATIONS + 1) const uint IN_OFFSET_LO = 0;
layout(constant_id = UNPOOL_SPEC_LOCATIONS + 2) const uint IN_OFFSET_HI = 0;
layout(constant_id = UNPOOL_SPEC_LOCATIONS + 3) const uint INDEX_SLOT = 0;
layout(constant_id = UNPOOL_SPEC_LOCATIONS + 4) const uint INDEX_OFFSET_LO = 0;
layout(constant_id = UNPOOL_SPEC_LOCATIONS + 5) const uint INDEX_OFFSET_HI = 0;
layout(constant_id = UNPOOL_SPEC_LOCATIONS + 6) const uint OUT_SLOT = 0;
layout(constant_id = UNPOOL_SPEC_LOCATIONS + 7) const uint OUT_OFFSET_LO = 0;
layout(constant_id = UNPOOL_SPEC_LOCATIONS + 8) const uint OUT_OFFSET_HI = 0;
layout(constant_id = UNPOOL_SPEC_LOCATIONS + 9) const uint WINNER_SLOT = 0;
layout(constant_id = UNPOOL_SPEC_LOCATIONS + 10) const uint WINNER_OFFSET_LO = 0;
layout(constant_id = UNPOOL_SPEC_LOCATIONS + 11) const uint WINNER_OFFSET_HI = 0;

layout(buffer_reference, std430, buffer_reference_align = 4) buffer WinnerWords { uint v[]; };

const uint IN_COUNT = IN_SIZE_0 * IN_SIZE_1 * IN_SIZE_2 * IN_SIZE_3;
const uint OUT_COUNT = OUT_SIZE_0 * OUT_SIZE_1 * OUT_SIZE_2 * OUT_SIZE_3;
const bool WIDE = TYPE == TIO_TYPE_FLOAT64 || TYPE == TIO_TYPE_UINT64 || TYPE == TIO_TYPE_INT64;

/* The element offset of row-major index `i` over sizes s through strides t. */
#define OFFSET_OF(i, s, t) ((i) % s##_3 * t##_3 + (i) / s##_3 % s##_2 * t##_2 \
        + (i) / (s##_3 * s##_2) % s##_1 * t##_1 + (i) / (s##_3 * s##_2 * s##_1) * t##_0)

/* The bits of output element `i`: its winner's input element, or 0. */
uvec2 output_bits(uvec2 input_base, uint winner)
{
    uint i = OFFSET_OF(winner - 1u, IN_SIZE, IN_STRIDE);

    if (winner == 0u)
        return uvec2(0u);
    if (WIDE)
        return TioPair(tio_element_address(input_base, i, 8u)).v;
    return uvec2(tio_load_bits(TYPE, input_base, i) & tio_type_mask(TYPE), 0u);
}

void store_output(uvec2 output_base, uint i, uvec2 bits)
{
    uint target = OFFSET_OF(i, OUT_SIZE, OUT_STRIDE);

    if (WIDE)
        TioPair(tio_element_address(output_base, target, 8u)).v = bits;
    else
        tio_store_bits(TYPE, output_base, target, bits.x);
}

/* UNPOOL_GRAIN packed output elements from `first` as one store (two for 64-bit types). */
void store_grain(uvec2 output_base, uint first, uvec2 bits[UNPOOL_GRAIN])
{
    uint size = tio_element_size(TYPE);

    if (size == 8u)
    {
        TioVector(tio_element_address(output_base, first, 8u)).v = uvec4(bits[0], bits[1]);
        TioVector(tio_element_address(output_base, first + 2u, 8u)).v = uvec4(bits[2], bits[3]);
    }
    else if (size == 4u)
    {
        TioVector(tio_element_address(output_base, first, 4u)).v = uvec4(bits[0].x, bits[1].x, bits[2].x, bits[3].x);
    }
    else if (size == 2u)
    {
        TioPair(tio_element_address(output_base, first, 2u)).v = uvec2(bits[0].x | bits[1].x << 16,
                bits[2].x | bits[3].x << 16);
    }
    else
    {
        TioWord(tio_element_address(output_base, first, 1u)).v = bits[0].x | bits[1].x << 8 | bits[2].x << 16
                | bits[3].x << 24;
    }
}

void main()
{
    uint group = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);
    uint i = group * UNPOOL_THREADS + gl_LocalInvocationIndex, first = i * UNPOOL_GRAIN, target;
    VkdmlDescriptorTable table = VkdmlDescriptorTable(push.table);
    uvec2 winner_base = vkdml_binding_address(table, WINNER_SLOT, WINNER_OFFSET_LO, WINNER_OFFSET_HI);
    WinnerWords winners = WinnerWords(winner_base);
    uvec2 input_base, output_base, indices_base, bits[UNPOOL_GRAIN];
    uvec4 grain;
    bool whole;

    if (MODE == UNPOOL_MODE_CLAIM)
    {
        if (i >= IN_COUNT)
            return;
        indices_base = vkdml_binding_address(table, INDEX_SLOT, INDEX_OFFSET_LO, INDEX_OFFSET_HI);
        if (idx_resolve(INDEX_TYPE, indices_base, OFFSET_OF(i, IN_SIZE, INDEX_STRIDE), OUT_COUNT, false, target))
            atomicMax(winners.v[target], i + 1u);
        return;
    }

    /* CLEAR and GATHER: UNPOOL_GRAIN consecutive output elements, 16-byte winner loads and stores
     * (and one output store where the output is packed) when the grain is whole and aligned. */
    if (first >= OUT_COUNT)
        return;
    whole = first + UNPOOL_GRAIN <= OUT_COUNT && (winner_base.x & 15u) == 0u;
    if (MODE == UNPOOL_MODE_CLEAR)
    {
        if (whole)
        {
            TioVector(tio_element_address(winner_base, first, 4u)).v = uvec4(0u);
            return;
        }
        for (uint k = 0; k < UNPOOL_GRAIN && first + k < OUT_COUNT; ++k)
            winners.v[first + k] = 0u;
        return;
    }

    input_base = vkdml_binding_address(table, IN_SLOT, IN_OFFSET_LO, IN_OFFSET_HI);
    output_base = vkdml_binding_address(table, OUT_SLOT, OUT_OFFSET_LO, OUT_OFFSET_HI);
    if (whole)
    {
        grain = TioVector(tio_element_address(winner_base, first, 4u)).v;
        [[unroll]] for (uint k = 0; k < UNPOOL_GRAIN; ++k)
            bits[k] = output_bits(input_base, grain[k]);
        if (OUT_PACKED && (output_base.x & 15u) == 0u)
        {
            store_grain(output_base, first, bits);
            return;
        }
        [[unroll]] for (uint k = 0; k < UNPOOL_GRAIN; ++k)
            store_output(output_base, first + k, bits[k]);
        return;
    }
    for (uint k = 0; k < UNPOOL_GRAIN && first + k < OUT_COUNT; ++k)
        store_output(output_base, first + k, output_bits(input_base, winners.v[first + k]));
}
