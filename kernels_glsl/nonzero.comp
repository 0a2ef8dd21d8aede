#version 460
#extension GL_GOOGLE_include_directive : require
/*
 * DML_OPERATOR_NONZERO_COORDINATES (nonzero_interface.h has the three passes): the coordinates
 * of the nonzero input elements in row-major order, from per-block counts, their exclusive scan
 * and a second read of each block; no atomics, so the order and the result are the same on
 * every run and at every size. Nonzero means: integers != 0; floats with magnitude bits != 0
 * (-0.0 is zero, NaN is not). Consecutive invocations read consecutive logical elements.
 *
 * Variants (kernels_glsl/meson.build, typed_kernels): the storage the input type needs.
 */
#include "common.glsl"
#include "dml_interface.h"
#include "tensor_io.glsl"
#include "reduce_common.glsl"
#include "nonzero_interface.h"

layout(local_size_x = NONZERO_THREADS, local_size_y = 1, local_size_z = 1) in;

layout(constant_id = NONZERO_SPEC_MODE) const uint MODE = NONZERO_MODE_COUNT;
layout(constant_id = NONZERO_SPEC_TYPE) const uint TYPE = TIO_TYPE_FLOAT32;
layout(constant_id = NONZERO_SPEC_PACKED) const bool PACKED = true;
layout(constant_id = NONZERO_SPEC_COUNT_ELEMENTS) const uint COUNT = 1;
layout(constant_id = NONZERO_SPEC_BLOCK) const uint BLOCK = NONZERO_THREADS;
layout(constant_id = NONZERO_SPEC_BLOCKS) const uint BLOCKS = 1;
layout(constant_id = NONZERO_SPEC_COORDINATES) const uint COORDINATES = 1;
layout(constant_id = NONZERO_SPEC_ROW_STRIDE) const uint ROW_STRIDE = 1;
layout(constant_id = NONZERO_SPEC_COLUMN_STRIDE) const uint COLUMN_STRIDE = 1;
layout(constant_id = NONZERO_SPEC_SIZES + 0) const uint SIZE_0 = 1;
layout(constant_id = NONZERO_SPEC_SIZES + 1) const uint SIZE_1 = 1;
layout(constant_id = NONZERO_SPEC_SIZES + 2) const uint SIZE_2 = 1;
layout(constant_id = NONZERO_SPEC_SIZES + 3) const uint SIZE_3 = 1;
layout(constant_id = NONZERO_SPEC_SIZES + 4) const uint SIZE_4 = 1;
layout(constant_id = NONZERO_SPEC_SIZES + 5) const uint SIZE_5 = 1;
layout(constant_id = NONZERO_SPEC_SIZES + 6) const uint SIZE_6 = 1;
layout(constant_id = NONZERO_SPEC_SIZES + 7) const uint SIZE_7 = 1;
layout(constant_id = NONZERO_SPEC_STRIDES + 0) const uint STRIDE_0 = 0;
layout(constant_id = NONZERO_SPEC_STRIDES + 1) const uint STRIDE_1 = 0;
layout(constant_id = NONZERO_SPEC_STRIDES + 2) const uint STRIDE_2 = 0;
layout(constant_id = NONZERO_SPEC_STRIDES + 3) const uint STRIDE_3 = 0;
layout(constant_id = NONZERO_SPEC_STRIDES + 4) const uint STRIDE_4 = 0;
layout(constant_id = NONZERO_SPEC_STRIDES + 5) const uint STRIDE_5 = 0;
layout(constant_id = NONZERO_SPEC_STRIDES + 6) const uint STRIDE_6 = 0;
layout(constant_id = NONZERO_SPEC_STRIDES + 7) const uint STRIDE_7 = 1;
layout(constant_id = NONZERO_SPEC_IN_LOCATION + 0) const uint IN_SLOT = 0;
layout(constant_id = NONZERO_SPEC_IN_LOCATION + 1) const uint IN_OFFSET_LO = 0;
layout(constant_id = NONZERO_SPEC_IN_LOCATION + 2) const uint IN_OFFSET_HI = 0;
layout(constant_id = NONZERO_SPEC_COUNT_LOCATION + 0) const uint COUNT_SLOT = 0;
layout(constant_id = NONZERO_SPEC_COUNT_LOCATION + 1) const uint COUNT_OFFSET_LO = 0;
layout(constant_id = NONZERO_SPEC_COUNT_LOCATION + 2) const uint COUNT_OFFSET_HI = 0;
layout(constant_id = NONZERO_SPEC_COORDINATES_LOCATION + 0) const uint COORDINATES_SLOT = 0;
layout(constant_id = NONZERO_SPEC_COORDINATES_LOCATION + 1) const uint COORDINATES_OFFSET_LO = 0;
layout(constant_id = NONZERO_SPEC_COORDINATES_LOCATION + 2) const uint COORDINATES_OFFSET_HI = 0;
layout(constant_id = NONZERO_SPEC_BLOCKS_LOCATION + 0) const uint BLOCKS_SLOT = 0;
layout(constant_id = NONZERO_SPEC_BLOCKS_LOCATION + 1) const uint BLOCKS_OFFSET_LO = 0;
layout(constant_id = NONZERO_SPEC_BLOCKS_LOCATION + 2) const uint BLOCKS_OFFSET_HI = 0;

#define DIM(name, d) ((d) == 0 ? name##_0 : (d) == 1 ? name##_1 : (d) == 2 ? name##_2 : (d) == 3 ? name##_3 \
        : (d) == 4 ? name##_4 : (d) == 5 ? name##_5 : (d) == 6 ? name##_6 : name##_7)

#define ADD(a, b) ((a) + (b))
VKDML_DEFINE_WORKGROUP_REDUCE(workgroup_sum, uint, subgroupAdd, ADD, 0u)

/* The subgroups' totals, then their exclusive prefix (SCAN and WRITE). */
shared uint subgroup_totals[NONZERO_THREADS];

/* Exclusive prefix sum of `value` over the workgroup's invocations (in invocation order, which
 * is subgroup order); `total` gets the sum of all. Every invocation must call it. */
uint workgroup_exclusive_sum(uint value, out uint total)
{
    uint prefix = subgroupExclusiveAdd(value), i, before = 0u;

    if (gl_SubgroupInvocationID == gl_SubgroupSize - 1u)
        subgroup_totals[gl_SubgroupID] = prefix + value;
    barrier();
    total = 0u;
    for (i = 0u; i < gl_NumSubgroups; ++i)
    {
        before += i < gl_SubgroupID ? subgroup_totals[i] : 0u;
        total += subgroup_totals[i];
    }
    barrier();
    return before + prefix;
}

uint element_offset(uint index)
{
    uint offset = 0u;

    if (PACKED)
        return index;
    [[unroll]] for (int d = NONZERO_MAX_RANK - 1; d >= 0; --d)
    {
        offset += (index % DIM(SIZE, d)) * DIM(STRIDE, d);
        index /= DIM(SIZE, d);
    }
    return offset;
}

bool is_nonzero(uvec2 input_base, uint index)
{
    uint bits = tio_load_bits(TYPE, input_base, element_offset(index));

    if (TYPE == TIO_TYPE_FLOAT32)
        return (bits & 0x7fffffffu) != 0u;
    if (TYPE == TIO_TYPE_FLOAT16)
        return (bits & 0x7fffu) != 0u;
    return bits != 0u;
}

void write_coordinates(uvec2 coordinates, uint row, uint index)
{
    uint address = row * ROW_STRIDE + (COORDINATES - 1u) * COLUMN_STRIDE;

    [[unroll]] for (int d = NONZERO_MAX_RANK - 1; d >= 0; --d)
    {
        if (d >= NONZERO_MAX_RANK - int(COORDINATES))
        {
            TioWord(tio_element_address(coordinates, address, 4u)).v = index % DIM(SIZE, d);
            address -= COLUMN_STRIDE;
        }
        index /= DIM(SIZE, d);
    }
}

/* Bit k: element first + k of the invocation's NONZERO_ITEMS is nonzero. */
uint nonzero_mask(uvec2 input_base, uint first, uint end)
{
    uint mask = 0u;

    [[unroll]] for (uint k = 0u; k < NONZERO_ITEMS; ++k)
    {
        if (first + k < end && is_nonzero(input_base, first + k))
            mask |= 1u << k;
    }
    return mask;
}

void count_block(uint block, uvec2 input_base, uvec2 blocks)
{
    uint first = block * BLOCK, end = min(first + BLOCK, COUNT), count = 0u, chunk;

    for (chunk = first; chunk < end; chunk += NONZERO_CHUNK)
        count += bitCount(nonzero_mask(input_base, chunk + gl_LocalInvocationIndex * NONZERO_ITEMS, end));
    count = workgroup_sum(count);
    if (gl_LocalInvocationIndex == 0u)
        TioWord(tio_element_address(blocks, block, 4u)).v = count;
}

/* One workgroup: invocation t scans blocks [t * NONZERO_SCAN_ITEMS, +NONZERO_SCAN_ITEMS). */
void scan_blocks(uvec2 blocks, uvec2 count_base)
{
    uint first = gl_LocalInvocationIndex * NONZERO_SCAN_ITEMS, sum = 0u, total, offset, value, i;
    uint counts[NONZERO_SCAN_ITEMS];

    [[unroll]] for (i = 0u; i < NONZERO_SCAN_ITEMS; ++i)
    {
        counts[i] = first + i < BLOCKS ? TioWord(tio_element_address(blocks, first + i, 4u)).v : 0u;
        sum += counts[i];
    }
    offset = workgroup_exclusive_sum(sum, total);
    [[unroll]] for (i = 0u; i < NONZERO_SCAN_ITEMS; ++i)
    {
        if (first + i < BLOCKS)
            TioWord(tio_element_address(blocks, first + i, 4u)).v = offset;
        offset += counts[i];
    }
    if (gl_LocalInvocationIndex == 0u)
        TioWord(count_base).v = total;
}

void write_block(uint block, uvec2 input_base, uvec2 blocks, uvec2 coordinates)
{
    uint first = block * BLOCK, end = min(first + BLOCK, COUNT), chunk, i, mask, before, row, total;

    row = TioWord(tio_element_address(blocks, block, 4u)).v;
    /* Uniform loop: the scan has barriers. */
    for (chunk = first; chunk < end; chunk += NONZERO_CHUNK)
    {
        i = chunk + gl_LocalInvocationIndex * NONZERO_ITEMS;
        mask = nonzero_mask(input_base, i, end);
        before = row + workgroup_exclusive_sum(bitCount(mask), total);
        [[unroll]] for (uint k = 0u; k < NONZERO_ITEMS; ++k)
        {
            if ((mask & (1u << k)) != 0u)
                write_coordinates(coordinates, before++, i + k);
        }
        row += total;
    }
}

void main()
{
    uint block = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);
    VkdmlDescriptorTable table = VkdmlDescriptorTable(push.table);
    uvec2 input_base = vkdml_binding_address(table, IN_SLOT, IN_OFFSET_LO, IN_OFFSET_HI);
    uvec2 blocks = vkdml_binding_address(table, BLOCKS_SLOT, BLOCKS_OFFSET_LO, BLOCKS_OFFSET_HI);

    /* Surplus groups of the spread (uniform per workgroup). */
    if (block >= BLOCKS)
        return;
    if (MODE == NONZERO_MODE_COUNT)
        count_block(block, input_base, blocks);
    else if (MODE == NONZERO_MODE_SCAN)
        scan_blocks(blocks, vkdml_binding_address(table, COUNT_SLOT, COUNT_OFFSET_LO, COUNT_OFFSET_HI));
    else
        write_block(block, input_base, blocks,
                vkdml_binding_address(table, COORDINATES_SLOT, COORDINATES_OFFSET_LO, COORDINATES_OFFSET_HI));
}
