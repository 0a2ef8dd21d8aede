#version 460
#extension GL_GOOGLE_include_directive : require
/*
 * DML_OPERATOR_SCATTER_ELEMENTS and DML_OPERATOR_SCATTER_ND (scatter_interface.h has the modes
 * and the layout): elements move as bits (64-bit ones as uvec2 words, no shaderInt64 needed),
 * consecutive invocations on consecutive logical elements (coalesced where the tensors are).
 * Where two candidates share a target, the one with the highest candidate number (the last in
 * row-major order) wins, decided by CLAIM's atomicMax before WRITE stores anything: the result
 * is the same on every run and never mixes two candidates' words. An index out of range skips
 * its candidate before any address is formed from it (indices.glsl).
 *
 * Variants (kernels_glsl/meson.build, typed_kernels): the storage the data type needs.
 */
#include "common.glsl"
#include "dml_interface.h"
#include "tensor_io.glsl"
#include "indices.glsl"
#include "scatter_interface.h"

layout(local_size_x = SCATTER_THREADS, local_size_y = 1, local_size_z = 1) in;

layout(constant_id = SCATTER_SPEC_MODE) const uint MODE = SCATTER_MODE_WRITE;
layout(constant_id = SCATTER_SPEC_TYPE) const uint TYPE = TIO_TYPE_FLOAT32;
layout(constant_id = SCATTER_SPEC_INDEX_TYPE) const uint INDEX_TYPE = TIO_TYPE_UINT32;
layout(constant_id = SCATTER_SPEC_DEDUP) const bool DEDUP = false;
layout(constant_id = SCATTER_SPEC_COUNT_ELEMENTS) const uint COUNT = 1;
layout(constant_id = SCATTER_SPEC_VECTOR) const uint VECTOR = 1;
layout(constant_id = SCATTER_SPEC_TUPLE) const uint TUPLE = 1;
layout(constant_id = SCATTER_SPEC_TUPLE_STRIDE) const uint TUPLE_STRIDE = 1;

#define SPEC8(name, base, value) \
    layout(constant_id = base + 0) const uint name##_0 = value; \
    layout(constant_id = base + 1) const uint name##_1 = value; \
    layout(constant_id = base + 2) const uint name##_2 = value; \
    layout(constant_id = base + 3) const uint name##_3 = value; \
    layout(constant_id = base + 4) const uint name##_4 = value; \
    layout(constant_id = base + 5) const uint name##_5 = value; \
    layout(constant_id = base + 6) const uint name##_6 = value; \
    layout(constant_id = base + 7) const uint name##_7 = value;

SPEC8(SIZE, SCATTER_SPEC_SIZES, 1)
SPEC8(SOURCE_STRIDE, SCATTER_SPEC_SOURCE_STRIDES, 0)
SPEC8(OUT_STRIDE, SCATTER_SPEC_OUT_STRIDES, 0)
SPEC8(INDEX_STRIDE, SCATTER_SPEC_INDEX_STRIDES, 0)
SPEC8(SLOT_STRIDE, SCATTER_SPEC_SLOT_STRIDES, 0)
SPEC8(CANDIDATE_STRIDE, SCATTER_SPEC_CANDIDATE_STRIDES, 0)
SPEC8(AXIS_SIZE, SCATTER_SPEC_AXIS_SIZES, 1)
SPEC8(AXIS_OUT_STRIDE, SCATTER_SPEC_AXIS_OUT_STRIDES, 0)
SPEC8(AXIS_SLOT_STRIDE, SCATTER_SPEC_AXIS_SLOT_STRIDES, 0)

layout(constant_id = SCATTER_SPEC_SOURCE_LOCATION + 0) const uint SOURCE_SLOT = 0;
layout(constant_id = SCATTER_SPEC_SOURCE_LOCATION + 1) const uint SOURCE_OFFSET_LO = 0;
layout(constant_id = SCATTER_SPEC_SOURCE_LOCATION + 2) const uint SOURCE_OFFSET_HI = 0;
layout(constant_id = SCATTER_SPEC_INDEX_LOCATION + 0) const uint INDEX_SLOT = 0;
layout(constant_id = SCATTER_SPEC_INDEX_LOCATION + 1) const uint INDEX_OFFSET_LO = 0;
layout(constant_id = SCATTER_SPEC_INDEX_LOCATION + 2) const uint INDEX_OFFSET_HI = 0;
layout(constant_id = SCATTER_SPEC_OUT_LOCATION + 0) const uint OUT_SLOT = 0;
layout(constant_id = SCATTER_SPEC_OUT_LOCATION + 1) const uint OUT_OFFSET_LO = 0;
layout(constant_id = SCATTER_SPEC_OUT_LOCATION + 2) const uint OUT_OFFSET_HI = 0;
layout(constant_id = SCATTER_SPEC_SLOT_LOCATION + 0) const uint WINNER_SLOT = 0;
layout(constant_id = SCATTER_SPEC_SLOT_LOCATION + 1) const uint WINNER_OFFSET_LO = 0;
layout(constant_id = SCATTER_SPEC_SLOT_LOCATION + 2) const uint WINNER_OFFSET_HI = 0;

/* Dimension constant `d` (DIM(SIZE, d) is SIZE_d); `d` is a constant in the unrolled loops. */
#define DIM(name, d) ((d) == 0 ? name##_0 : (d) == 1 ? name##_1 : (d) == 2 ? name##_2 : (d) == 3 ? name##_3 \
        : (d) == 4 ? name##_4 : (d) == 5 ? name##_5 : (d) == 6 ? name##_6 : name##_7)

const bool WIDE = TYPE == TIO_TYPE_FLOAT64 || TYPE == TIO_TYPE_UINT64 || TYPE == TIO_TYPE_INT64;
/* ND's WRITE with contiguous slice rows: VECTOR consecutive elements of one row (scatter.c). */
const bool VECTOR_WRITE = MODE == SCATTER_MODE_WRITE && VECTOR > 1u;

/* Where an invocation's coordinates lead, before its indices. */
struct Place
{
    uint source, target, index, slot, candidate;
};

Place place_of(uint linear)
{
    Place p = Place(0u, 0u, 0u, 0u, 0u);

    [[unroll]] for (int d = SCATTER_MAX_RANK - 1; d >= 0; --d)
    {
        uint c = linear % DIM(SIZE, d);

        linear /= DIM(SIZE, d);
        p.source += c * DIM(SOURCE_STRIDE, d);
        p.target += c * DIM(OUT_STRIDE, d);
        p.index += c * DIM(INDEX_STRIDE, d);
        p.slot += c * DIM(SLOT_STRIDE, d);
        p.candidate += c * DIM(CANDIDATE_STRIDE, d);
    }
    return p;
}

/* Adds the tuple's resolved indices to p.target and p.slot; false when one is out of range. */
bool resolve_tuple(inout Place p, uvec2 indices)
{
    uint resolved;

    [[unroll]] for (uint j = 0u; j < SCATTER_MAX_RANK; ++j)
    {
        if (j >= TUPLE)
            break;
        if (!idx_resolve(INDEX_TYPE, indices, p.index + j * TUPLE_STRIDE, DIM(AXIS_SIZE, j), true, resolved))
            return false;
        p.target += resolved * DIM(AXIS_OUT_STRIDE, j);
        p.slot += resolved * DIM(AXIS_SLOT_STRIDE, j);
    }
    return true;
}

void move_element(uvec2 source, uint source_index, uvec2 output_base, uint out_index)
{
    if (WIDE)
        TioPair(tio_element_address(output_base, out_index, 8u)).v
                = TioPair(tio_element_address(source, source_index, 8u)).v;
    else
        tio_store_bits(TYPE, output_base, out_index, tio_load_bits(TYPE, source, source_index));
}

void write_update(uvec2 source, uvec2 output_base, Place p)
{
    uint size = tio_element_size(TYPE);

    /* Element offsets are multiples of VECTOR; the tensors' alignment is uniform. */
    if (VECTOR_WRITE && ((source.x | output_base.x) & 15u) == 0u)
    {
        TioVector(tio_element_address(output_base, p.target, size)).v
                = TioVector(tio_element_address(source, p.source, size)).v;
        return;
    }
    [[unroll]] for (uint k = 0u; k < VECTOR; ++k)
        move_element(source, p.source + k, output_base, p.target + k);
}

void main()
{
    uint group = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);
    uint linear = (group * SCATTER_THREADS + gl_LocalInvocationIndex) * VECTOR;
    VkdmlDescriptorTable table = VkdmlDescriptorTable(push.table);
    uvec2 source = vkdml_binding_address(table, SOURCE_SLOT, SOURCE_OFFSET_LO, SOURCE_OFFSET_HI);
    uvec2 output_base = vkdml_binding_address(table, OUT_SLOT, OUT_OFFSET_LO, OUT_OFFSET_HI);
    uvec2 indices, winners;
    Place p;

    if (linear >= COUNT)
        return;
    indices = vkdml_binding_address(table, INDEX_SLOT, INDEX_OFFSET_LO, INDEX_OFFSET_HI);
    winners = vkdml_binding_address(table, WINNER_SLOT, WINNER_OFFSET_LO, WINNER_OFFSET_HI);
    p = place_of(linear);
    if (!resolve_tuple(p, indices))
        return;
    if (MODE == SCATTER_MODE_CLEAR)
        TioWord(tio_element_address(winners, p.slot, 4u)).v = 0u;
    else if (MODE == SCATTER_MODE_CLAIM)
        atomicMax(TioWord(tio_element_address(winners, p.slot, 4u)).v, p.candidate + 1u);
    else if (!DEDUP || TioWord(tio_element_address(winners, p.slot, 4u)).v == p.candidate + 1u)
        write_update(source, output_base, p);
}
