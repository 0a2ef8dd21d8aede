#version 460
#extension GL_GOOGLE_include_directive : require
/*
 * GATHER, GATHER_ELEMENTS, GATHER_ND, GATHER_ND1 and ONE_HOT (gather_interface.h): items of one
 * output element, or of 16 bytes of a packed output row (VECTOR > 1: an embedding lookup's rows),
 * consecutive invocations on consecutive items, so stores coalesce and a row's reads are
 * contiguous; each invocation moves UNROLL items GATHER_THREADS apart, all loads first, so
 * several are in flight (docs/kernels.md). Each item decomposes its output index over 8
 * dimensions of specialization constants, loads its index tuple (the lanes of one row load the
 * same words) and resolves each component (indices.glsl) before any input address is formed from
 * it: an index out of range stores zeros (ONE_HOT: OffValue), never reads outside the input
 * (README, "Indices out of range"). Elements move as bits (64-bit ones as uvec2 words: no
 * shaderInt64). ONE_HOT's packed rows are written 16 bytes per item too, from OffValue and
 * OnValue.
 *
 * Variants (kernels_glsl/meson.build, typed_kernels): the storage the element size needs.
 */
#include "common.glsl"
#include "dml_interface.h"
#include "tensor_io.glsl"
#include "indices.glsl"
#include "gather_interface.h"

layout(local_size_x = GATHER_THREADS, local_size_y = 1, local_size_z = 1) in;

layout(constant_id = GATHER_SPEC_MODE) const uint MODE = GATHER_MODE_GATHER;
layout(constant_id = GATHER_SPEC_TYPE) const uint TYPE = TIO_TYPE_UINT32;
layout(constant_id = GATHER_SPEC_INDEX_TYPE) const uint INDEX_TYPE = TIO_TYPE_UINT32;
layout(constant_id = GATHER_SPEC_COUNT_ELEMENTS) const uint COUNT = 1;
layout(constant_id = GATHER_SPEC_VECTOR) const uint VECTOR = 1;
layout(constant_id = GATHER_SPEC_UNROLL) const uint UNROLL = 1;
layout(constant_id = GATHER_SPEC_TUPLE) const uint TUPLE = 1;
layout(constant_id = GATHER_SPEC_TUPLE_INDEX_STRIDE) const uint TUPLE_INDEX_STRIDE = 0;
layout(constant_id = GATHER_SPEC_ONE_HOT_AXIS) const uint ONE_HOT_AXIS = 0;
layout(constant_id = GATHER_SPEC_ON_OFFSET) const uint ON_OFFSET = 1;
layout(constant_id = GATHER_SPEC_SIZES + 0) const uint SIZE_0 = 1;
layout(constant_id = GATHER_SPEC_SIZES + 1) const uint SIZE_1 = 1;
layout(constant_id = GATHER_SPEC_SIZES + 2) const uint SIZE_2 = 1;
layout(constant_id = GATHER_SPEC_SIZES + 3) const uint SIZE_3 = 1;
layout(constant_id = GATHER_SPEC_SIZES + 4) const uint SIZE_4 = 1;
layout(constant_id = GATHER_SPEC_SIZES + 5) const uint SIZE_5 = 1;
layout(constant_id = GATHER_SPEC_SIZES + 6) const uint SIZE_6 = 1;
layout(constant_id = GATHER_SPEC_SIZES + 7) const uint SIZE_7 = 1;
layout(constant_id = GATHER_SPEC_OUT_STRIDES + 0) const uint OUT_STRIDE_0 = 0;
layout(constant_id = GATHER_SPEC_OUT_STRIDES + 1) const uint OUT_STRIDE_1 = 0;
layout(constant_id = GATHER_SPEC_OUT_STRIDES + 2) const uint OUT_STRIDE_2 = 0;
layout(constant_id = GATHER_SPEC_OUT_STRIDES + 3) const uint OUT_STRIDE_3 = 0;
layout(constant_id = GATHER_SPEC_OUT_STRIDES + 4) const uint OUT_STRIDE_4 = 0;
layout(constant_id = GATHER_SPEC_OUT_STRIDES + 5) const uint OUT_STRIDE_5 = 0;
layout(constant_id = GATHER_SPEC_OUT_STRIDES + 6) const uint OUT_STRIDE_6 = 0;
layout(constant_id = GATHER_SPEC_OUT_STRIDES + 7) const uint OUT_STRIDE_7 = 0;
layout(constant_id = GATHER_SPEC_IN_STRIDES + 0) const uint IN_STRIDE_0 = 0;
layout(constant_id = GATHER_SPEC_IN_STRIDES + 1) const uint IN_STRIDE_1 = 0;
layout(constant_id = GATHER_SPEC_IN_STRIDES + 2) const uint IN_STRIDE_2 = 0;
layout(constant_id = GATHER_SPEC_IN_STRIDES + 3) const uint IN_STRIDE_3 = 0;
layout(constant_id = GATHER_SPEC_IN_STRIDES + 4) const uint IN_STRIDE_4 = 0;
layout(constant_id = GATHER_SPEC_IN_STRIDES + 5) const uint IN_STRIDE_5 = 0;
layout(constant_id = GATHER_SPEC_IN_STRIDES + 6) const uint IN_STRIDE_6 = 0;
layout(constant_id = GATHER_SPEC_IN_STRIDES + 7) const uint IN_STRIDE_7 = 0;
layout(constant_id = GATHER_SPEC_INDEX_STRIDES + 0) const uint INDEX_STRIDE_0 = 0;
layout(constant_id = GATHER_SPEC_INDEX_STRIDES + 1) const uint INDEX_STRIDE_1 = 0;
layout(constant_id = GATHER_SPEC_INDEX_STRIDES + 2) const uint INDEX_STRIDE_2 = 0;
layout(constant_id = GATHER_SPEC_INDEX_STRIDES + 3) const uint INDEX_STRIDE_3 = 0;
layout(constant_id = GATHER_SPEC_INDEX_STRIDES + 4) const uint INDEX_STRIDE_4 = 0;
layout(constant_id = GATHER_SPEC_INDEX_STRIDES + 5) const uint INDEX_STRIDE_5 = 0;
layout(constant_id = GATHER_SPEC_INDEX_STRIDES + 6) const uint INDEX_STRIDE_6 = 0;
layout(constant_id = GATHER_SPEC_INDEX_STRIDES + 7) const uint INDEX_STRIDE_7 = 0;
layout(constant_id = GATHER_SPEC_TUPLE_SIZES + 0) const uint TUPLE_SIZE_0 = 1;
layout(constant_id = GATHER_SPEC_TUPLE_SIZES + 1) const uint TUPLE_SIZE_1 = 1;
layout(constant_id = GATHER_SPEC_TUPLE_SIZES + 2) const uint TUPLE_SIZE_2 = 1;
layout(constant_id = GATHER_SPEC_TUPLE_SIZES + 3) const uint TUPLE_SIZE_3 = 1;
layout(constant_id = GATHER_SPEC_TUPLE_SIZES + 4) const uint TUPLE_SIZE_4 = 1;
layout(constant_id = GATHER_SPEC_TUPLE_SIZES + 5) const uint TUPLE_SIZE_5 = 1;
layout(constant_id = GATHER_SPEC_TUPLE_SIZES + 6) const uint TUPLE_SIZE_6 = 1;
layout(constant_id = GATHER_SPEC_TUPLE_SIZES + 7) const uint TUPLE_SIZE_7 = 1;
layout(constant_id = GATHER_SPEC_TUPLE_IN_STRIDES + 0) const uint TUPLE_IN_STRIDE_0 = 0;
layout(constant_id = GATHER_SPEC_TUPLE_IN_STRIDES + 1) const uint TUPLE_IN_STRIDE_1 = 0;
layout(constant_id = GATHER_SPEC_TUPLE_IN_STRIDES + 2) const uint TUPLE_IN_STRIDE_2 = 0;
layout(constant_id = GATHER_SPEC_TUPLE_IN_STRIDES + 3) const uint TUPLE_IN_STRIDE_3 = 0;
layout(constant_id = GATHER_SPEC_TUPLE_IN_STRIDES + 4) const uint TUPLE_IN_STRIDE_4 = 0;
layout(constant_id = GATHER_SPEC_TUPLE_IN_STRIDES + 5) const uint TUPLE_IN_STRIDE_5 = 0;
layout(constant_id = GATHER_SPEC_TUPLE_IN_STRIDES + 6) const uint TUPLE_IN_STRIDE_6 = 0;
layout(constant_id = GATHER_SPEC_TUPLE_IN_STRIDES + 7) const uint TUPLE_IN_STRIDE_7 = 0;
layout(constant_id = GATHER_SPEC_IN_LOCATION + 0) const uint IN_SLOT = 0;
layout(constant_id = GATHER_SPEC_IN_LOCATION + 1) const uint IN_OFFSET_LO = 0;
layout(constant_id = GATHER_SPEC_IN_LOCATION + 2) const uint IN_OFFSET_HI = 0;
layout(constant_id = GATHER_SPEC_INDEX_LOCATION + 0) const uint INDEX_SLOT = 0;
layout(constant_id = GATHER_SPEC_INDEX_LOCATION + 1) const uint INDEX_OFFSET_LO = 0;
layout(constant_id = GATHER_SPEC_INDEX_LOCATION + 2) const uint INDEX_OFFSET_HI = 0;
layout(constant_id = GATHER_SPEC_OUT_LOCATION + 0) const uint OUT_SLOT = 0;
layout(constant_id = GATHER_SPEC_OUT_LOCATION + 1) const uint OUT_OFFSET_LO = 0;
layout(constant_id = GATHER_SPEC_OUT_LOCATION + 2) const uint OUT_OFFSET_HI = 0;

/* Dimension constant `d` (DIM(SIZE, d) is SIZE_d); `d` is a constant in the unrolled loops. */
#define DIM(name, d) ((d) == 0 ? name##_0 : (d) == 1 ? name##_1 : (d) == 2 ? name##_2 : (d) == 3 ? name##_3 \
        : (d) == 4 ? name##_4 : (d) == 5 ? name##_5 : (d) == 6 ? name##_6 : name##_7)

const bool WIDE = TYPE == TIO_TYPE_UINT64;

/* An element's bits (narrow ones in .x). */
uvec2 load_element(uvec2 base, uint index)
{
    if (WIDE)
        return TioPair(tio_element_address(base, index, 8u)).v;
    return uvec2(tio_load_bits(TYPE, base, index), 0u);
}

void store_element(uvec2 base, uint index, uvec2 bits)
{
    if (WIDE)
        TioPair(tio_element_address(base, index, 8u)).v = bits;
    else
        tio_store_bits(TYPE, base, index, bits.x);
}

/* Puts element k of a 16-byte vector into its words. */
void pack_element(inout uvec4 words, uint k, uvec2 bits)
{
    uint size = tio_element_size(TYPE);

    if (WIDE)
    {
        words[2u * k] = bits.x;
        words[2u * k + 1u] = bits.y;
    }
    else
    {
        words[k * size / 4u] |= (bits.x & tio_type_mask(TYPE)) << (8u * (k * size % 4u));
    }
}

/* ONE_HOT: VECTOR elements along the last dimension, OffValue or OnValue each; along Axis the
 * coordinate moves, elsewhere the index does. One 16-byte store where the output is aligned. */
void one_hot(uvec2 values, uvec2 indices, uvec2 target, uint index_offset, uint axis_coordinate, uint out_offset)
{
    uvec2 off = load_element(values, 0u), on = load_element(values, ON_OFFSET);
    bool vector = VECTOR > 1u && (target.x & 15u) == 0u;
    uvec4 words = uvec4(0u);
    uint resolved;

    [[unroll]] for (uint k = 0; k < VECTOR; ++k)
    {
        uint coordinate = axis_coordinate + (ONE_HOT_AXIS == GATHER_MAX_RANK - 1 ? k : 0u);
        bool hot = idx_resolve(INDEX_TYPE, indices, index_offset + k * INDEX_STRIDE_7, TUPLE_SIZE_0, true, resolved)
                && resolved == coordinate;

        if (vector)
            pack_element(words, k, hot ? on : off);
        else
            store_element(target, out_offset + k, hot ? on : off);
    }
    if (vector)
        TioVector(tio_element_address(target, out_offset, tio_element_size(TYPE))).v = words;
}

/* Output element `first`'s offsets: output, input (before the index tuple) and index elements,
 * and its coordinate along ONE_HOT's axis. */
void locate(uint first, out uint out_offset, out uint in_offset, out uint index_offset, out uint axis_coordinate)
{
    uint rest = first;

    out_offset = 0u;
    in_offset = 0u;
    index_offset = 0u;
    axis_coordinate = 0u;
    [[unroll]] for (int d = GATHER_MAX_RANK - 1; d >= 0; --d)
    {
        uint coordinate = rest % DIM(SIZE, d);

        rest /= DIM(SIZE, d);
        out_offset += coordinate * DIM(OUT_STRIDE, d);
        in_offset += coordinate * DIM(IN_STRIDE, d);
        index_offset += coordinate * DIM(INDEX_STRIDE, d);
        if (d == int(ONE_HOT_AXIS))
            axis_coordinate = coordinate;
    }
}

/* Adds the index tuple's part to `in_offset`; false where a component is out of range, then
 * `in_offset` means nothing. */
bool resolve_tuple(uvec2 indices, uint index_offset, inout uint in_offset)
{
    bool valid = true;
    uint resolved;

    [[unroll]] for (uint t = 0; t < GATHER_MAX_RANK; ++t)
    {
        if (t < TUPLE)
        {
            if (idx_resolve(INDEX_TYPE, indices, index_offset + t * TUPLE_INDEX_STRIDE, DIM(TUPLE_SIZE, t), true,
                    resolved))
                in_offset += resolved * DIM(TUPLE_IN_STRIDE, t);
            else
                valid = false;
        }
    }
    return valid;
}

/* An item's VECTOR elements one by one (the bases are not 16-byte aligned). */
void move_elements(uvec2 source, uvec2 target, uint in_offset, uint out_offset, bool valid)
{
    [[unroll]] for (uint k = 0; k < VECTOR; ++k)
    {
        uvec2 bits = uvec2(0u);

        if (valid)
            bits = load_element(source, in_offset + k);
        store_element(target, out_offset + k, bits);
    }
}

void main()
{
    uint group = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);
    uint first_item = group * GATHER_THREADS * UNROLL + gl_LocalInvocationIndex, items = COUNT / VECTOR;
    VkdmlDescriptorTable table = VkdmlDescriptorTable(push.table);
    uint out_offsets[GATHER_MAX_UNROLL], in_offsets[GATHER_MAX_UNROLL];
    bool live[GATHER_MAX_UNROLL], valid[GATHER_MAX_UNROLL];
    uvec2 source, indices, target, bits[GATHER_MAX_UNROLL];
    uvec4 words[GATHER_MAX_UNROLL];
    bool vector;

    if (first_item >= items)
        return;
    source = vkdml_binding_address(table, IN_SLOT, IN_OFFSET_LO, IN_OFFSET_HI);
    indices = vkdml_binding_address(table, INDEX_SLOT, INDEX_OFFSET_LO, INDEX_OFFSET_HI);
    target = vkdml_binding_address(table, OUT_SLOT, OUT_OFFSET_LO, OUT_OFFSET_HI);
    /* UNROLL items per invocation, GATHER_THREADS apart so each stays coalesced: every index and
     * input load is issued before the first store, which the compiler may not move loads across
     * (device addresses may alias). */
    [[unroll]] for (uint u = 0; u < GATHER_MAX_UNROLL; ++u)
    {
        uint index_offset, axis_coordinate;

        live[u] = u < UNROLL && first_item + u * GATHER_THREADS < items;
        valid[u] = false;
        if (!live[u])
            continue;
        locate((first_item + u * GATHER_THREADS) * VECTOR, out_offsets[u], in_offsets[u], index_offset,
                axis_coordinate);
        if (MODE == GATHER_MODE_ONE_HOT)
        {
            one_hot(source, indices, target, index_offset, axis_coordinate, out_offsets[u]);
            live[u] = false;
            continue;
        }
        valid[u] = resolve_tuple(indices, index_offset, in_offsets[u]);
    }

    /* Whole 16-byte vectors where both tensors start 16-byte aligned (uniform: the bases are
     * the dispatch's); VECTOR divides the row and every offset, so they stay aligned. */
    vector = VECTOR > 1u && ((source.x | target.x) & 15u) == 0u;
    [[unroll]] for (uint u = 0; u < GATHER_MAX_UNROLL; ++u)
    {
        words[u] = uvec4(0u);
        bits[u] = uvec2(0u);
        if (!live[u] || !valid[u])
            continue;
        if (vector)
            words[u] = TioVector(tio_element_address(source, in_offsets[u], tio_element_size(TYPE))).v;
        else if (VECTOR == 1u)
            bits[u] = load_element(source, in_offsets[u]);
    }
    [[unroll]] for (uint u = 0; u < GATHER_MAX_UNROLL; ++u)
    {
        if (!live[u])
            continue;
        if (vector)
            TioVector(tio_element_address(target, out_offsets[u], tio_element_size(TYPE))).v = words[u];
        else if (VECTOR == 1u)
            store_element(target, out_offsets[u], bits[u]);
        else
            move_elements(source, target, in_offsets[u], out_offsets[u], valid[u]);
    }
}
