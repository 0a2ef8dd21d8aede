#version 460
#extension GL_GOOGLE_include_directive : require
/*
 * The tiled transpose (include/transpose_interface.h): a TILE x TILE tile per workgroup, read
 * along the source's contiguous dimension into shared memory, written along the destination's.
 * Rows of the shared tile are padded by one word, so that reading a column touches 32 banks.
 * 8-byte elements keep their high words in a second array.
 *
 * Variants (kernels_glsl/meson.build, typed_kernels): the storage 1- and 2-byte elements need;
 * 4- and 8-byte elements move as words through any variant.
 */
#include "common.glsl"
#include "dml_interface.h"
#include "tensor_io.glsl"
#include "transpose_interface.h"

layout(local_size_x = TRANSPOSE_THREADS, local_size_y = 1, local_size_z = 1) in;

layout(constant_id = TRANSPOSE_SPEC_ELEMENT_SIZE) const uint ELEMENT_SIZE = 4;
layout(constant_id = TRANSPOSE_SPEC_TILE) const uint TILE = 32;

const uint PITCH = TILE + 1;
const uint STEP = TRANSPOSE_THREADS / TILE;
const bool WIDE = ELEMENT_SIZE == 8;
/* The tensor_io type that moves ELEMENT_SIZE bytes (up to 4) as bits. */
const uint BITS_TYPE = ELEMENT_SIZE == 1 ? TIO_TYPE_UINT8 : (ELEMENT_SIZE == 2 ? TIO_TYPE_UINT16 : TIO_TYPE_UINT32);

shared uint tile_lo[TILE * PITCH];
shared uint tile_hi[WIDE ? TILE * PITCH : 1];

void load_element(uvec2 base, uint index, uint slot)
{
    if (WIDE)
    {
        uvec2 v = TioPair(tio_element_address(base, index, 8u)).v;

        tile_lo[slot] = v.x;
        tile_hi[slot] = v.y;
    }
    else
    {
        tile_lo[slot] = tio_load_bits(BITS_TYPE, base, index);
    }
}

void store_element(uvec2 base, uint index, uint slot)
{
    if (WIDE)
        TioPair(tio_element_address(base, index, 8u)).v = uvec2(tile_lo[slot], tile_hi[slot]);
    else
        tio_store_bits(BITS_TYPE, base, index, tile_lo[slot]);
}

void main()
{
    uint group = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);
    uint column_tiles = (push.columns + TILE - 1u) / TILE, row_tiles = (push.rows + TILE - 1u) / TILE;
    uint lane = gl_LocalInvocationIndex % TILE, first = gl_LocalInvocationIndex / TILE;
    uint source = 0u, destination = 0u, column0, row0, outer;
    VkdmlDescriptorTable table = VkdmlDescriptorTable(push.table);
    uvec2 source_base, destination_base;

    /* Surplus groups of vkdml_spread_groups()' rounding (uniform per workgroup). */
    if (group / column_tiles / row_tiles >= push.outer_count)
        return;
    column0 = (group % column_tiles) * TILE;
    group /= column_tiles;
    row0 = (group % row_tiles) * TILE;
    outer = group / row_tiles;
    [[unroll]] for (uint d = 0u; d < TRANSPOSE_MAX_OUTER; ++d)
    {
        uint c = outer % push.outer_sizes[d];

        outer /= push.outer_sizes[d];
        source += c * push.outer_source_strides[d];
        destination += c * push.outer_destination_strides[d];
    }
    source_base = vkdml_binding_address(table, push.source_slot, push.source_offset.x, push.source_offset.y);
    destination_base = vkdml_binding_address(table, push.destination_slot, push.destination_offset.x,
            push.destination_offset.y);

    /* Tile row r is source row row0 + r: consecutive lanes read consecutive source elements. */
    if (column0 + lane < push.columns)
    {
        uint index = source + row0 * push.source_row_stride + column0 + lane;

        [[unroll]] for (uint r = first; r < TILE; r += STEP)
        {
            if (row0 + r < push.rows)
                load_element(source_base, index + r * push.source_row_stride, r * PITCH + lane);
        }
    }
    barrier();
    /* Tile column c is destination column column0 + c: consecutive lanes write consecutive
     * destination elements. */
    if (row0 + lane < push.rows)
    {
        uint index = destination + column0 * push.destination_column_stride + row0 + lane;

        [[unroll]] for (uint c = first; c < TILE; c += STEP)
        {
            if (column0 + c < push.columns)
                store_element(destination_base, index + c * push.destination_column_stride, lane * PITCH + c);
        }
    }
}
