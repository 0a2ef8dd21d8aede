#version 460
#extension GL_GOOGLE_include_directive : require
/*
 * The tiled transpose (include/transpose_interface.h): a tile per workgroup, read along the
 * source's contiguous dimension into shared memory, written along the destination's. Rows of the
 * shared tile are padded by one word, so that reading a column touches 32 banks (2-byte elements
 * move in pairs, packed in a word of the shared tile too: two-way conflicts). 8-byte elements
 * keep their high words in a second array. Every invocation issues all its loads before its
 * first shared store.
 *
 * Variants (kernels_glsl/meson.build, typed_kernels): the storage 1- and 2-byte elements need;
 * 4- and 8-byte elements, and 2-byte ones in pairs, move as words through any variant.
 */
#include "common.glsl"
#include "dml_interface.h"
#include "tensor_io.glsl"
#include "transpose_interface.h"

layout(local_size_x = TRANSPOSE_THREADS, local_size_y = 1, local_size_z = 1) in;

layout(constant_id = TRANSPOSE_SPEC_ELEMENT_SIZE) const uint ELEMENT_SIZE = 4;
layout(constant_id = TRANSPOSE_SPEC_VECTOR) const uint VECTOR = 1;
layout(constant_id = TRANSPOSE_SPEC_SPAN) const uint SPAN = 1;
layout(constant_id = TRANSPOSE_SPEC_SPECIALIZED) const bool SPECIALIZED = false;
layout(constant_id = TRANSPOSE_SPEC_OUTER_RANK) const uint OUTER_RANK = TRANSPOSE_MAX_OUTER;
layout(constant_id = TRANSPOSE_SPEC_COLUMN_TILES) const uint COLUMN_TILES = 1;
layout(constant_id = TRANSPOSE_SPEC_ROW_TILES) const uint ROW_TILES = 1;
layout(constant_id = TRANSPOSE_SPEC_OUTER_SIZES + 0) const uint OUTER_SIZE_0 = 1;
layout(constant_id = TRANSPOSE_SPEC_OUTER_SIZES + 1) const uint OUTER_SIZE_1 = 1;
layout(constant_id = TRANSPOSE_SPEC_OUTER_SIZES + 2) const uint OUTER_SIZE_2 = 1;
layout(constant_id = TRANSPOSE_SPEC_OUTER_SIZES + 3) const uint OUTER_SIZE_3 = 1;
layout(constant_id = TRANSPOSE_SPEC_OUTER_SIZES + 4) const uint OUTER_SIZE_4 = 1;
layout(constant_id = TRANSPOSE_SPEC_OUTER_SIZES + 5) const uint OUTER_SIZE_5 = 1;

/* A tile is TILE rows of TILE_COLUMNS elements. */
const uint TILE = TRANSPOSE_LANES * VECTOR;
const uint TILE_COLUMNS = TILE * SPAN;
/* Words per shared row: a tile row of words (pairs of 2-byte elements packed), plus one. */
const uint PITCH = TRANSPOSE_LANES * SPAN + 1;
/* Accesses per invocation on each side. */
const uint PER_THREAD = TILE / TRANSPOSE_STEP * SPAN;
const uint ROWS_PER_THREAD = TILE / TRANSPOSE_STEP;
const bool WIDE = ELEMENT_SIZE == 8;
/* The tensor_io type that moves ELEMENT_SIZE bytes (up to 4) as bits. */
const uint BITS_TYPE = ELEMENT_SIZE == 1 ? TIO_TYPE_UINT8 : (ELEMENT_SIZE == 2 ? TIO_TYPE_UINT16 : TIO_TYPE_UINT32);

shared uint tile_lo[TILE * PITCH];
shared uint tile_hi[WIDE ? TILE * PITCH : 1];

uint outer_size(uint d)
{
    if (!SPECIALIZED)
        return push.outer_sizes[d];
    return d == 0u ? OUTER_SIZE_0 : d == 1u ? OUTER_SIZE_1 : d == 2u ? OUTER_SIZE_2 : d == 3u ? OUTER_SIZE_3
            : d == 4u ? OUTER_SIZE_4 : OUTER_SIZE_5;
}

/* VECTOR elements from `index` (fewer, `count`, at the end of a row) as bits: 2-byte pairs packed
 * in the low word, 8-byte elements in both. */
uvec2 load_vector(uvec2 base, uint index, uint count)
{
    if (WIDE)
        return TioPair(tio_element_address(base, index, 8u)).v;
    if (VECTOR == 2u && count >= 2u)
        return uvec2(TioWord(tio_element_address(base, index, 2u)).v, 0u);
    return uvec2(tio_load_bits(BITS_TYPE, base, index), 0u);
}

void store_vector(uvec2 base, uint index, uint count, uvec2 v)
{
    if (WIDE)
        TioPair(tio_element_address(base, index, 8u)).v = v;
    else if (VECTOR == 1u)
        tio_store_bits(BITS_TYPE, base, index, v.x);
    else if (count >= 2u)
        TioWord(tio_element_address(base, index, 2u)).v = v.x | (v.y << 16u);
    else
        tio_store_bits(BITS_TYPE, base, index, v.x);
}

void main()
{
    uint group = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);
    uint column_tiles = SPECIALIZED ? COLUMN_TILES : (push.columns + TILE_COLUMNS - 1u) / TILE_COLUMNS;
    uint row_tiles = SPECIALIZED ? ROW_TILES : (push.rows + TILE - 1u) / TILE;
    uint lane = gl_LocalInvocationIndex % TRANSPOSE_LANES, first = gl_LocalInvocationIndex / TRANSPOSE_LANES;
    uint source = 0u, destination = 0u, column0, row0, outer;
    VkdmlDescriptorTable table = VkdmlDescriptorTable(push.table);
    uvec2 source_base, destination_base;

    /* Row tiles first: consecutive workgroups write the same destination columns' neighbouring
     * runs (fp32 NCHW -> NHWC +1.5% on an H200, docs/kernels.md). */
    row0 = (group % row_tiles) * TILE;
    group /= row_tiles;
    column0 = (group % column_tiles) * TILE_COLUMNS;
    outer = group / column_tiles;
    /* Surplus groups of vkdml_spread_groups()' rounding (uniform per workgroup). */
    if (outer >= push.outer_count)
        return;
    [[unroll]] for (uint d = 0u; d < OUTER_RANK; ++d)
    {
        uint c = outer;

        if (d + 1u < OUTER_RANK)
        {
            c = outer % outer_size(d);
            outer /= outer_size(d);
        }
        source += c * push.outer_source_strides[d];
        destination += c * push.outer_destination_strides[d];
    }
    source_base = vkdml_binding_address(table, push.source_slot, push.source_offset.x, push.source_offset.y);
    destination_base = vkdml_binding_address(table, push.destination_slot, push.destination_offset.x,
            push.destination_offset.y);

    /* Tile row r is source row row0 + r: consecutive lanes read consecutive source elements,
     * SPAN runs of TRANSPOSE_LANES accesses per row. */
    {
        uint lo[PER_THREAD], hi[WIDE ? PER_THREAD : 1];

        [[unroll]] for (uint k = 0u; k < PER_THREAD; ++k)
        {
            uint r = first + (k % ROWS_PER_THREAD) * TRANSPOSE_STEP;
            uint column = column0 + (lane + k / ROWS_PER_THREAD * TRANSPOSE_LANES) * VECTOR;
            uvec2 v = uvec2(0u);

            if (row0 + r < push.rows && column < push.columns)
                v = load_vector(source_base, source + (row0 + r) * push.source_row_stride + column,
                        push.columns - column);
            lo[k] = v.x;
            if (WIDE)
                hi[k] = v.y;
        }
        [[unroll]] for (uint k = 0u; k < PER_THREAD; ++k)
        {
            uint r = first + (k % ROWS_PER_THREAD) * TRANSPOSE_STEP;
            uint slot = r * PITCH + lane + k / ROWS_PER_THREAD * TRANSPOSE_LANES;

            tile_lo[slot] = lo[k];
            if (WIDE)
                tile_hi[slot] = hi[k];
        }
    }
    barrier();
    /* Tile column c is destination column column0 + c: consecutive lanes write consecutive
     * destination elements. */
    if (row0 + lane * VECTOR < push.rows)
    {
        uint row = row0 + lane * VECTOR, index = destination + column0 * push.destination_column_stride + row;

        [[unroll]] for (uint k = 0u; k < PER_THREAD; ++k)
        {
            uint c = first + k * TRANSPOSE_STEP, slot = lane * VECTOR * PITCH + c / VECTOR;
            uvec2 v;

            if (column0 + c >= push.columns)
                continue;
            if (WIDE)
                v = uvec2(tile_lo[slot], tile_hi[slot]);
            else if (VECTOR == 2u)
                v = (uvec2(tile_lo[slot], tile_lo[slot + PITCH]) >> (16u * (c & 1u))) & 0xffffu;
            else
                v = uvec2(tile_lo[slot], 0u);
            store_vector(destination_base, index + c * push.destination_column_stride, push.rows - row, v);
        }
    }
}
