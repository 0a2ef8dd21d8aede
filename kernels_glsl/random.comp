#version 460
#extension GL_GOOGLE_include_directive : require
/*
 * DML_OPERATOR_RANDOM_GENERATOR, Philox 4x32-10 (random_interface.h): invocation b computes
 * Philox(counter + b, key) and stores its four words as output elements 4b .. 4b + 3, one
 * 16-byte store where the output is packed and 16-byte aligned, else element by element through
 * the strides. Consecutive invocations store consecutive blocks: coalesced. The state (six
 * words) is read by every invocation; invocation 0 writes the output state.
 */
#include "common.glsl"
#include "dml_interface.h"
#include "tensor_io.glsl"
#include "random_interface.h"

layout(local_size_x = RANDOM_THREADS, local_size_y = 1, local_size_z = 1) in;

layout(constant_id = RANDOM_SPEC_COUNT_ELEMENTS) const uint COUNT = 1;
layout(constant_id = RANDOM_SPEC_PACKED) const bool PACKED = true;
layout(constant_id = RANDOM_SPEC_SIZES + 0) const uint SIZE_0 = 1;
layout(constant_id = RANDOM_SPEC_SIZES + 1) const uint SIZE_1 = 1;
layout(constant_id = RANDOM_SPEC_SIZES + 2) const uint SIZE_2 = 1;
layout(constant_id = RANDOM_SPEC_SIZES + 3) const uint SIZE_3 = 1;
layout(constant_id = RANDOM_SPEC_SIZES + 4) const uint SIZE_4 = 1;
layout(constant_id = RANDOM_SPEC_SIZES + 5) const uint SIZE_5 = 1;
layout(constant_id = RANDOM_SPEC_SIZES + 6) const uint SIZE_6 = 1;
layout(constant_id = RANDOM_SPEC_SIZES + 7) const uint SIZE_7 = 1;
layout(constant_id = RANDOM_SPEC_STRIDES + 0) const uint STRIDE_0 = 0;
layout(constant_id = RANDOM_SPEC_STRIDES + 1) const uint STRIDE_1 = 0;
layout(constant_id = RANDOM_SPEC_STRIDES + 2) const uint STRIDE_2 = 0;
layout(constant_id = RANDOM_SPEC_STRIDES + 3) const uint STRIDE_3 = 0;
layout(constant_id = RANDOM_SPEC_STRIDES + 4) const uint STRIDE_4 = 0;
layout(constant_id = RANDOM_SPEC_STRIDES + 5) const uint STRIDE_5 = 0;
layout(constant_id = RANDOM_SPEC_STRIDES + 6) const uint STRIDE_6 = 0;
layout(constant_id = RANDOM_SPEC_STRIDES + 7) const uint STRIDE_7 = 1;
layout(constant_id = RANDOM_SPEC_OUT_LOCATION + 0) const uint OUT_SLOT = 0;
layout(constant_id = RANDOM_SPEC_OUT_LOCATION + 1) const uint OUT_OFFSET_LO = 0;
layout(constant_id = RANDOM_SPEC_OUT_LOCATION + 2) const uint OUT_OFFSET_HI = 0;
layout(constant_id = RANDOM_SPEC_IN_STATE_LOCATION + 0) const uint IN_STATE_SLOT = 0;
layout(constant_id = RANDOM_SPEC_IN_STATE_LOCATION + 1) const uint IN_STATE_OFFSET_LO = 0;
layout(constant_id = RANDOM_SPEC_IN_STATE_LOCATION + 2) const uint IN_STATE_OFFSET_HI = 0;
layout(constant_id = RANDOM_SPEC_IN_STATE_STRIDE) const uint IN_STATE_STRIDE = 1;
layout(constant_id = RANDOM_SPEC_HAS_OUT_STATE) const bool HAS_OUT_STATE = false;
layout(constant_id = RANDOM_SPEC_OUT_STATE_LOCATION + 0) const uint OUT_STATE_SLOT = 0;
layout(constant_id = RANDOM_SPEC_OUT_STATE_LOCATION + 1) const uint OUT_STATE_OFFSET_LO = 0;
layout(constant_id = RANDOM_SPEC_OUT_STATE_LOCATION + 2) const uint OUT_STATE_OFFSET_HI = 0;
layout(constant_id = RANDOM_SPEC_OUT_STATE_STRIDE) const uint OUT_STATE_STRIDE = 1;

/* Dimension constant `d` (DIM(SIZE, d) is SIZE_d); `d` is a constant in the unrolled loop. */
#define DIM(name, d) ((d) == 0 ? name##_0 : (d) == 1 ? name##_1 : (d) == 2 ? name##_2 : (d) == 3 ? name##_3 \
        : (d) == 4 ? name##_4 : (d) == 5 ? name##_5 : (d) == 6 ? name##_6 : name##_7)

/* The element offset of logical element `index` (row-major over the sizes). */
uint element_offset(uint index)
{
    uint offset = 0;

    if (PACKED)
        return index;
    [[unroll]] for (int d = RANDOM_MAX_RANK - 1; d >= 0; --d)
    {
        offset += (index % DIM(SIZE, d)) * DIM(STRIDE, d);
        index /= DIM(SIZE, d);
    }
    return offset;
}

/* The 128-bit counter (least significant word first) plus `n`. */
uvec4 counter_add(uvec4 counter, uint n)
{
    uint carry;

    counter.x = uaddCarry(counter.x, n, carry);
    counter.y = uaddCarry(counter.y, carry, carry);
    counter.z = uaddCarry(counter.z, carry, carry);
    counter.w += carry;
    return counter;
}

/* Philox 4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3"; Random123's
 * constants and round order). */
uvec4 philox4x32_10(uvec4 counter, uvec2 key)
{
    uint hi0, lo0, hi1, lo1;

    [[unroll]] for (int round = 0; round < 10; ++round)
    {
        umulExtended(0xd2511f53u, counter.x, hi0, lo0);
        umulExtended(0xcd9e8d57u, counter.z, hi1, lo1);
        counter = uvec4(hi1 ^ counter.y ^ key.x, lo1, hi0 ^ counter.w ^ key.y, lo0);
        key += uvec2(0x9e3779b9u, 0xbb67ae85u);
    }
    return counter;
}

uint state_word(uvec2 base, uint word)
{
    return TioWord(tio_element_address(base, word * IN_STATE_STRIDE, 4u)).v;
}

void store_state(uvec4 counter, uvec2 key)
{
    uvec2 base = vkdml_binding_address(VkdmlDescriptorTable(push.table), OUT_STATE_SLOT, OUT_STATE_OFFSET_LO,
            OUT_STATE_OFFSET_HI);
    uint words[RANDOM_STATE_WORDS] = uint[](counter.x, counter.y, counter.z, counter.w, key.x, key.y);

    [[unroll]] for (uint i = 0; i < RANDOM_STATE_WORDS; ++i)
        TioWord(tio_element_address(base, i * OUT_STATE_STRIDE, 4u)).v = words[i];
}

void main()
{
    uint group = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);
    uint block = group * RANDOM_THREADS + gl_LocalInvocationIndex, first = block * 4u;
    VkdmlDescriptorTable table = VkdmlDescriptorTable(push.table);
    uvec2 state = vkdml_binding_address(table, IN_STATE_SLOT, IN_STATE_OFFSET_LO, IN_STATE_OFFSET_HI);
    uvec2 base = vkdml_binding_address(table, OUT_SLOT, OUT_OFFSET_LO, OUT_OFFSET_HI);
    uvec4 counter, words;
    uvec2 key;

    if (first >= COUNT)
        return;
    counter = uvec4(state_word(state, 0u), state_word(state, 1u), state_word(state, 2u), state_word(state, 3u));
    key = uvec2(state_word(state, 4u), state_word(state, 5u));
    if (HAS_OUT_STATE && block == 0u)
        store_state(counter_add(counter, (COUNT + 3u) / 4u), key);
    words = philox4x32_10(counter_add(counter, block), key);
    /* Packed and 16-byte aligned (uniform: the same for every invocation), a whole block. */
    if (PACKED && (base.x & 15u) == 0u && first + 4u <= COUNT)
    {
        TioVector(tio_element_address(base, first, 4u)).v = words;
        return;
    }
    [[unroll]] for (uint k = 0; k < 4u; ++k)
    {
        if (first + k < COUNT)
            TioWord(tio_element_address(base, element_offset(first + k), 4u)).v = words[k];
    }
}
