#version 460
#extension GL_GOOGLE_include_directive : require
/*
 * DML_OPERATOR_CUMULATIVE_SUMMATION and DML_OPERATOR_CUMULATIVE_PRODUCT: inclusive or exclusive
 * scans along one axis, in either direction (scan_interface.h has the layout and the two
 * algorithms). Every value travels as a uvec2 of bits: FLOAT32 and FLOAT16 as fp32 bits (fp16
 * tensors accumulate in fp32), 32-bit integers in .x, 64-bit integers as (low, high) words; sums
 * and products of integers wrap. The order of operations depends only on the shapes, the
 * workgroup and the subgroup size (and the device's subgroup scans): the result is the same on
 * every run. An invocation writes only the elements it read, after reading them, so the output may be
 * bound over the input (in place).
 *
 * Variants (kernels_glsl/meson.build, typed_kernels): the storage the tensor type needs.
 */
#include "common.glsl"
#include "dml_interface.h"
#include "tensor_io.glsl"
#include "reduce_common.glsl"
#include "scan_interface.h"

layout(local_size_x_id = SCAN_SPEC_THREADS, local_size_y = 1, local_size_z = 1) in;

layout(constant_id = SCAN_SPEC_ALGORITHM) const uint ALGORITHM = SCAN_ALGORITHM_ROW;
layout(constant_id = SCAN_SPEC_PASS) const uint PASS = SCAN_PASS_SCAN;
layout(constant_id = SCAN_SPEC_TYPE) const uint TYPE = TIO_TYPE_FLOAT32;
layout(constant_id = SCAN_SPEC_PRODUCT) const bool PRODUCT = false;
layout(constant_id = SCAN_SPEC_EXCLUSIVE) const bool EXCLUSIVE = false;
layout(constant_id = SCAN_SPEC_REVERSE) const bool REVERSE = false;
layout(constant_id = SCAN_SPEC_LENGTH) const uint LENGTH = 1;
layout(constant_id = SCAN_SPEC_AXIS_STRIDES + 0) const uint IN_AXIS_STRIDE = 1;
layout(constant_id = SCAN_SPEC_AXIS_STRIDES + 1) const uint OUT_AXIS_STRIDE = 1;
layout(constant_id = SCAN_SPEC_LINES) const uint LINES = 1;
layout(constant_id = SCAN_SPEC_TILES) const uint TILES = 1;
layout(constant_id = SCAN_SPEC_TILE_LENGTH) const uint TILE_LENGTH = 1;
layout(constant_id = SCAN_SPEC_VECTOR) const uint VECTOR = 1;
layout(constant_id = SCAN_SPEC_ACROSS) const uint ACROSS = 1;
layout(constant_id = SCAN_SPEC_KEPT_SIZES + 0) const uint SIZE_0 = 1;
layout(constant_id = SCAN_SPEC_KEPT_SIZES + 1) const uint SIZE_1 = 1;
layout(constant_id = SCAN_SPEC_KEPT_SIZES + 2) const uint SIZE_2 = 1;
layout(constant_id = SCAN_SPEC_KEPT_SIZES + 3) const uint SIZE_3 = 1;
layout(constant_id = SCAN_SPEC_KEPT_SIZES + 4) const uint SIZE_4 = 1;
layout(constant_id = SCAN_SPEC_KEPT_SIZES + 5) const uint SIZE_5 = 1;
layout(constant_id = SCAN_SPEC_KEPT_SIZES + 6) const uint SIZE_6 = 1;
layout(constant_id = SCAN_SPEC_IN_KEPT_STRIDES + 0) const uint IN_STRIDE_0 = 0;
layout(constant_id = SCAN_SPEC_IN_KEPT_STRIDES + 1) const uint IN_STRIDE_1 = 0;
layout(constant_id = SCAN_SPEC_IN_KEPT_STRIDES + 2) const uint IN_STRIDE_2 = 0;
layout(constant_id = SCAN_SPEC_IN_KEPT_STRIDES + 3) const uint IN_STRIDE_3 = 0;
layout(constant_id = SCAN_SPEC_IN_KEPT_STRIDES + 4) const uint IN_STRIDE_4 = 0;
layout(constant_id = SCAN_SPEC_IN_KEPT_STRIDES + 5) const uint IN_STRIDE_5 = 0;
layout(constant_id = SCAN_SPEC_IN_KEPT_STRIDES + 6) const uint IN_STRIDE_6 = 0;
layout(constant_id = SCAN_SPEC_OUT_KEPT_STRIDES + 0) const uint OUT_STRIDE_0 = 0;
layout(constant_id = SCAN_SPEC_OUT_KEPT_STRIDES + 1) const uint OUT_STRIDE_1 = 0;
layout(constant_id = SCAN_SPEC_OUT_KEPT_STRIDES + 2) const uint OUT_STRIDE_2 = 0;
layout(constant_id = SCAN_SPEC_OUT_KEPT_STRIDES + 3) const uint OUT_STRIDE_3 = 0;
layout(constant_id = SCAN_SPEC_OUT_KEPT_STRIDES + 4) const uint OUT_STRIDE_4 = 0;
layout(constant_id = SCAN_SPEC_OUT_KEPT_STRIDES + 5) const uint OUT_STRIDE_5 = 0;
layout(constant_id = SCAN_SPEC_OUT_KEPT_STRIDES + 6) const uint OUT_STRIDE_6 = 0;
layout(constant_id = SCAN_SPEC_IN_LOCATION + 0) const uint IN_SLOT = 0;
layout(constant_id = SCAN_SPEC_IN_LOCATION + 1) const uint IN_OFFSET_LO = 0;
layout(constant_id = SCAN_SPEC_IN_LOCATION + 2) const uint IN_OFFSET_HI = 0;
layout(constant_id = SCAN_SPEC_OUT_LOCATION + 0) const uint OUT_SLOT = 0;
layout(constant_id = SCAN_SPEC_OUT_LOCATION + 1) const uint OUT_OFFSET_LO = 0;
layout(constant_id = SCAN_SPEC_OUT_LOCATION + 2) const uint OUT_OFFSET_HI = 0;
layout(constant_id = SCAN_SPEC_TOTALS_LOCATION + 0) const uint TOTALS_SLOT = 0;
layout(constant_id = SCAN_SPEC_TOTALS_LOCATION + 1) const uint TOTALS_OFFSET_LO = 0;
layout(constant_id = SCAN_SPEC_TOTALS_LOCATION + 2) const uint TOTALS_OFFSET_HI = 0;

/* Kept constant `d` (KEPT(SIZE, d) is SIZE_d); `d` is a constant in the unrolled loop. */
#define KEPT(name, d) ((d) == 0 ? name##_0 : (d) == 1 ? name##_1 : (d) == 2 ? name##_2 : (d) == 3 ? name##_3 \
        : (d) == 4 ? name##_4 : (d) == 5 ? name##_5 : name##_6)

const bool FLOAT_TYPE = TYPE == TIO_TYPE_FLOAT32 || TYPE == TIO_TYPE_FLOAT16;
const bool WIDE = TYPE == TIO_TYPE_UINT64 || TYPE == TIO_TYPE_INT64;
const bool TILED = TILES > 1u;
/* SCAN_ALGORITHM_COLUMN: invocations along the axis, and the strips of ACROSS x VECTOR lines. */
const uint ALONG = gl_WorkGroupSize.x / ACROSS;
const uint STRIPS = (LINES + ACROSS * VECTOR - 1u) / (ACROSS * VECTOR);

/* ---- Values ---- */

uvec2 identity()
{
    if (!PRODUCT)
        return uvec2(0u);
    return uvec2(FLOAT_TYPE ? floatBitsToUint(1.0) : 1u, 0u);
}

/* `earlier` op `later`, in the tensor type's arithmetic. */
uvec2 combine(uvec2 earlier, uvec2 later)
{
    uint carry, high, low;

    if (FLOAT_TYPE)
    {
        float a = uintBitsToFloat(earlier.x), b = uintBitsToFloat(later.x);

        return uvec2(floatBitsToUint(PRODUCT ? a * b : a + b), 0u);
    }
    if (!WIDE)
        return uvec2(PRODUCT ? earlier.x * later.x : earlier.x + later.x, 0u);
    if (PRODUCT)
    {
        umulExtended(earlier.x, later.x, high, low);
        return uvec2(low, high + earlier.x * later.y + earlier.y * later.x);
    }
    low = uaddCarry(earlier.x, later.x, carry);
    return uvec2(low, earlier.y + later.y + carry);
}

uvec2 load_value(uvec2 base, uint index)
{
#ifdef VKDML_INT64
    if (WIDE)
        return unpackUint2x32(tio_load_long(TYPE, base, index));
#endif
    if (FLOAT_TYPE)
        return uvec2(floatBitsToUint(tio_load_float(TYPE, base, index)), 0u);
    return uvec2(tio_load_bits(TYPE, base, index), 0u);
}

void store_value(uvec2 base, uint index, uvec2 value)
{
#ifdef VKDML_INT64
    if (WIDE)
    {
        tio_store_long(base, index, packUint2x32(value));
        return;
    }
#endif
    if (FLOAT_TYPE)
        tio_store_float(TYPE, base, index, uintBitsToFloat(value.x));
    else
        tio_store_bits(TYPE, base, index, value.x);
}

/* VECTOR elements in memory order from element `index` on: one 16- or 8-byte access (cumulative.c
 * checks the alignment), unpacked to values; FLOAT16 converts exactly to fp32. */
const bool PAIR_VECTOR = VECTOR * (TYPE == TIO_TYPE_FLOAT16 ? 2u : WIDE ? 8u : 4u) == 8u;

void load_vector(uvec2 base, uint index, out uvec2 values[SCAN_MAX_VECTOR])
{
    uvec2 address = tio_element_address(base, index, tio_element_size(TYPE));
    uvec4 words = PAIR_VECTOR ? uvec4(TioPair(address).v, 0u, 0u) : TioVector(address).v;
    uint k;

    [[unroll]] for (k = 0u; k < SCAN_MAX_VECTOR; ++k)
    {
        if (WIDE)
            values[k] = k == 0u ? words.xy : words.zw;
        else if (TYPE == TIO_TYPE_FLOAT16)
            values[k] = uvec2(floatBitsToUint(unpackHalf2x16(words[(k / 2u) & 3u])[k % 2u]), 0u);
        else
            values[k] = uvec2(words[k & 3u], 0u);
    }
}

/* FLOAT16 rounds to nearest even, as the scalar store does. */
void store_vector(uvec2 base, uint index, uvec2 values[SCAN_MAX_VECTOR])
{
    uvec4 words;
    uint k;

    [[unroll]] for (k = 0u; k < 4u; ++k)
    {
        if (WIDE)
            words[k] = values[k / 2u][k % 2u];
        else if (TYPE == TIO_TYPE_FLOAT16)
            words[k] = packHalf2x16(vec2(uintBitsToFloat(values[2u * k].x), uintBitsToFloat(values[2u * k + 1u].x)));
        else
            words[k] = values[k].x;
    }
    uvec2 address = tio_element_address(base, index, tio_element_size(TYPE));

    if (PAIR_VECTOR)
        TioPair(address).v = words.xy;
    else
        TioVector(address).v = words;
}

/* ---- Addresses ---- */

uvec2 tensor_address(uint slot, uint offset_lo, uint offset_hi)
{
    return vkdml_binding_address(VkdmlDescriptorTable(push.table), slot, offset_lo, offset_hi);
}

/* The element offsets of line `line`'s first axis element: input in .x, output in .y. */
uvec2 line_offsets(uint line)
{
    uvec2 offsets = uvec2(0u);

    [[unroll]] for (int d = SCAN_MAX_KEPT - 1; d >= 0; --d)
    {
        offsets += (line % KEPT(SIZE, d)) * uvec2(KEPT(IN_STRIDE, d), KEPT(OUT_STRIDE, d));
        line /= KEPT(SIZE, d);
    }
    return offsets;
}

/* The axis index of scan position `position`, times the axis stride. */
uint axis_offset(uint position, uint stride)
{
    return (REVERSE ? LENGTH - 1u - position : position) * stride;
}

/* The tiles' totals (TILED): uvec2 records in the temporary resource. */
uvec2 load_total(uint index)
{
    return TioPair(tio_element_address(tensor_address(TOTALS_SLOT, TOTALS_OFFSET_LO, TOTALS_OFFSET_HI), index, 8u)).v;
}

void store_total(uint index, uvec2 value)
{
    TioPair(tio_element_address(tensor_address(TOTALS_SLOT, TOTALS_OFFSET_LO, TOTALS_OFFSET_HI), index, 8u)).v = value;
}

/* ---- SCAN_ALGORITHM_ROW: a workgroup per line or tile ---- */

/* Subgroup totals (ROW) or the ALONG invocations' totals (COLUMN), two sets, one per parity of the
 * chunk: one barrier per chunk suffices. */
shared uvec2 exchange[gl_WorkGroupSize.x * (ALGORITHM == SCAN_ALGORITHM_COLUMN ? VECTOR : 1u) * 2u];

uvec2 subgroup_shuffle(uvec2 value, uint lane)
{
    return uvec2(subgroupShuffle(value.x, lane), WIDE ? subgroupShuffle(value.y, lane) : 0u);
}

/* Inclusive scan over the subgroup's lanes: the device's own for 32-bit values, else Hillis-Steele
 * (log2(subgroup size) shuffles of both words). */
uvec2 subgroup_inclusive_scan(uvec2 value)
{
    uint lane = gl_SubgroupInvocationID, distance;
    uvec2 earlier;

    if (FLOAT_TYPE)
    {
        float single = uintBitsToFloat(value.x);

        return uvec2(floatBitsToUint(PRODUCT ? subgroupInclusiveMul(single) : subgroupInclusiveAdd(single)), 0u);
    }
    if (!WIDE)
        return uvec2(PRODUCT ? subgroupInclusiveMul(value.x) : subgroupInclusiveAdd(value.x), 0u);
    for (distance = 1u; distance < gl_SubgroupSize; distance <<= 1u)
    {
        earlier = subgroup_shuffle(value, lane >= distance ? lane - distance : lane);
        if (lane >= distance)
            value = combine(earlier, value);
    }
    return value;
}

/* The VECTOR values of scan positions [position, position + VECTOR) of a line, in scan order. */
void load_positions(uvec2 base, uint position, out uvec2 values[SCAN_MAX_VECTOR])
{
    uvec2 memory[SCAN_MAX_VECTOR];
    uint k;

    if (VECTOR == 1u)
    {
        values[0] = load_value(base, axis_offset(position, IN_AXIS_STRIDE));
        return;
    }
    load_vector(base, REVERSE ? LENGTH - position - VECTOR : position, memory);
    [[unroll]] for (k = 0u; k < SCAN_MAX_VECTOR; ++k)
        values[k] = k < VECTOR ? memory[REVERSE ? (VECTOR - 1u - k) % SCAN_MAX_VECTOR : k] : identity();
}

void store_positions(uvec2 base, uint position, uvec2 values[SCAN_MAX_VECTOR])
{
    uvec2 memory[SCAN_MAX_VECTOR];
    uint k;

    if (VECTOR == 1u)
    {
        store_value(base, axis_offset(position, OUT_AXIS_STRIDE), values[0]);
        return;
    }
    [[unroll]] for (k = 0u; k < SCAN_MAX_VECTOR; ++k)
        memory[k] = k < VECTOR ? values[REVERSE ? (VECTOR - 1u - k) % SCAN_MAX_VECTOR : k] : identity();
    store_vector(base, REVERSE ? LENGTH - position - VECTOR : position, memory);
}

/* Scans the VECTOR values of a group in place (inclusive, or exclusive from the identity) and
 * returns their total; the running total starts from the first value, not from the identity (one
 * operation less). */
uvec2 scan_group(inout uvec2 values[SCAN_MAX_VECTOR])
{
    uvec2 total = identity(), previous;
    uint k;

    [[unroll]] for (k = 0u; k < VECTOR; ++k)
    {
        previous = total;
        total = k == 0u ? values[k] : combine(total, values[k]);
        values[k] = EXCLUSIVE ? previous : total;
    }
    return total;
}

/* Scans positions [begin, end) of a line from `carry`, in chunks of SCAN_ITEMS groups of VECTOR
 * positions per invocation: each subgroup takes a contiguous segment of the chunk, lane `l`'s group
 * `j` being the segment's (j x subgroup size + l)-th, so that each load is coalesced across the
 * lanes; every load of the chunk is issued before any arithmetic. An invocation scans its groups,
 * a subgroup scan of the groups' totals gives each its prefix, the subgroups' totals go through
 * shared memory (one barrier per chunk). Stores the results when `store`; returns the carry
 * after `end`. */
uvec2 row_scan(uvec2 input_base, uvec2 output_base, uint begin, uint end, uvec2 carry, bool store)
{
    uint lane = gl_SubgroupInvocationID, segment = gl_SubgroupSize * SCAN_ITEMS * VECTOR, parity = 0u;
    uint chunk, first, position, s, j, k;
    uvec2 values[SCAN_ITEMS][SCAN_MAX_VECTOR], prefixes[SCAN_ITEMS], run, inclusive, earlier, before;

    for (chunk = begin; chunk < end; chunk += gl_WorkGroupSize.x * SCAN_ITEMS * VECTOR)
    {
        first = chunk + gl_SubgroupID * segment + lane * VECTOR;
        [[unroll]] for (j = 0u; j < SCAN_ITEMS; ++j)
        {
            position = first + j * gl_SubgroupSize * VECTOR;
            if (position < end)
                load_positions(input_base, position, values[j]);
            else
                [[unroll]] for (k = 0u; k < SCAN_MAX_VECTOR; ++k)
                    values[j][k] = identity();
        }
        run = identity();
        [[unroll]] for (j = 0u; j < SCAN_ITEMS; ++j)
        {
            inclusive = subgroup_inclusive_scan(scan_group(values[j]));
            earlier = subgroup_shuffle(inclusive, lane > 0u ? lane - 1u : 0u);
            prefixes[j] = lane > 0u ? combine(run, earlier) : run;
            run = combine(run, subgroup_shuffle(inclusive, gl_SubgroupSize - 1u));
        }
        if (subgroupElect())
            exchange[parity * gl_WorkGroupSize.x + gl_SubgroupID] = run;
        barrier();
        before = carry;
        for (s = 0u; s < gl_NumSubgroups; ++s)
        {
            if (s == gl_SubgroupID)
                before = carry;
            carry = combine(carry, exchange[parity * gl_WorkGroupSize.x + s]);
        }
        [[unroll]] for (j = 0u; j < SCAN_ITEMS && store; ++j)
        {
            position = first + j * gl_SubgroupSize * VECTOR;
            if (position >= end)
                continue;
            prefixes[j] = combine(before, prefixes[j]);
            [[unroll]] for (k = 0u; k < VECTOR; ++k)
                values[j][k] = EXCLUSIVE && k == 0u ? prefixes[j] : combine(prefixes[j], values[j][k]);
            store_positions(output_base, position, values[j]);
        }
        parity ^= 1u;
    }
    return carry;
}

void row_main(uint group)
{
    uint line = group / TILES, tile = group % TILES, begin = tile * TILE_LENGTH, t;
    uvec2 offsets = line_offsets(line), carry = identity();
    uvec2 input_base = tensor_address(IN_SLOT, IN_OFFSET_LO, IN_OFFSET_HI);
    uvec2 output_base = tensor_address(OUT_SLOT, OUT_OFFSET_LO, OUT_OFFSET_HI);

    if (line >= LINES)
        return;
    input_base = tio_element_address(input_base, offsets.x, tio_element_size(TYPE));
    output_base = tio_element_address(output_base, offsets.y, tio_element_size(TYPE));
    if (PASS == SCAN_PASS_SCAN)
    {
        for (t = 0u; TILED && t < tile; ++t)
            carry = combine(carry, load_total(line * TILES + t));
        row_scan(input_base, output_base, begin, min(LENGTH, begin + TILE_LENGTH), carry, true);
        return;
    }
    carry = row_scan(input_base, output_base, begin, min(LENGTH, begin + TILE_LENGTH), carry, false);
    if (gl_LocalInvocationIndex == 0u)
        store_total(line * TILES + tile, carry);
}

/* ---- SCAN_ALGORITHM_COLUMN: a workgroup per strip of lines, or tile of it ---- */

/* Position `position` of VECTOR neighbouring lines from the one at element `offset`. */
void load_lines(uvec2 base, uint offset, uint position, out uvec2 values[SCAN_MAX_VECTOR])
{
    if (VECTOR == 1u)
        values[0] = load_value(base, offset + axis_offset(position, IN_AXIS_STRIDE));
    else
        load_vector(base, offset + axis_offset(position, IN_AXIS_STRIDE), values);
}

void store_lines(uvec2 base, uint offset, uint position, uvec2 values[SCAN_MAX_VECTOR])
{
    if (VECTOR == 1u)
        store_value(base, offset + axis_offset(position, OUT_AXIS_STRIDE), values[0]);
    else
        store_vector(base, offset + axis_offset(position, OUT_AXIS_STRIDE), values);
}

/* Invocation (across, along) takes lines [line, line + VECTOR) and, in each chunk of ALONG x
 * SCAN_COLUMN_ITEMS positions, the SCAN_COLUMN_ITEMS from along x SCAN_COLUMN_ITEMS: all loads
 * first, a sequential scan of each line, then the totals of the invocations before it along the
 * axis (shared memory, in order). Invocations past the last line only take part in the barriers. */
void column_main(uint group)
{
    uint strip = group % STRIPS, tile = group / STRIPS, across = gl_LocalInvocationIndex % ACROSS;
    uint along = gl_LocalInvocationIndex / ACROSS, line = (strip * ACROSS + across) * VECTOR;
    uint begin = tile * TILE_LENGTH, end = min(LENGTH, begin + TILE_LENGTH), parity = 0u;
    uint chunk, first, position, slot, a, t, j, k;
    uvec2 values[SCAN_COLUMN_ITEMS][SCAN_MAX_VECTOR], carry[SCAN_MAX_VECTOR], totals[SCAN_MAX_VECTOR];
    uvec2 before[SCAN_MAX_VECTOR], offsets, input_base, output_base;
    bool in_range = line < LINES;

    if (tile >= TILES)
        return;
    offsets = line_offsets(in_range ? line : 0u);
    input_base = tensor_address(IN_SLOT, IN_OFFSET_LO, IN_OFFSET_HI);
    output_base = tensor_address(OUT_SLOT, OUT_OFFSET_LO, OUT_OFFSET_HI);
    [[unroll]] for (k = 0u; k < SCAN_MAX_VECTOR; ++k)
        carry[k] = identity();
    for (t = 0u; PASS == SCAN_PASS_SCAN && TILED && in_range && t < tile; ++t)
    {
        [[unroll]] for (k = 0u; k < VECTOR; ++k)
            carry[k] = combine(carry[k], load_total(t * LINES + line + k));
    }
    for (chunk = begin; chunk < end; chunk += ALONG * SCAN_COLUMN_ITEMS)
    {
        first = chunk + along * SCAN_COLUMN_ITEMS;
        [[unroll]] for (j = 0u; j < SCAN_COLUMN_ITEMS; ++j)
        {
            if (in_range && first + j < end)
                load_lines(input_base, offsets.x, first + j, values[j]);
        }
        [[unroll]] for (k = 0u; k < VECTOR; ++k)
        {
            totals[k] = identity();
            [[unroll]] for (j = 0u; j < SCAN_COLUMN_ITEMS; ++j)
            {
                uvec2 previous = totals[k];

                if (!in_range || first + j >= end)
                    continue;
                totals[k] = j == 0u ? values[j][k] : combine(totals[k], values[j][k]);
                values[j][k] = EXCLUSIVE ? previous : totals[k];
            }
        }
        [[unroll]] for (k = 0u; k < VECTOR; ++k)
            before[k] = carry[k];
        if (ALONG == 1u)
        {
            [[unroll]] for (k = 0u; k < VECTOR; ++k)
                carry[k] = combine(carry[k], totals[k]);
        }
        else
        {
            slot = (parity * gl_WorkGroupSize.x + gl_LocalInvocationIndex) * VECTOR;
            [[unroll]] for (k = 0u; k < VECTOR; ++k)
                exchange[slot + k] = totals[k];
            barrier();
            for (a = 0u; a < ALONG; ++a)
            {
                slot = (parity * gl_WorkGroupSize.x + a * ACROSS + across) * VECTOR;
                [[unroll]] for (k = 0u; k < VECTOR; ++k)
                {
                    if (a == along)
                        before[k] = carry[k];
                    carry[k] = combine(carry[k], exchange[slot + k]);
                }
            }
            parity ^= 1u;
        }
        [[unroll]] for (j = 0u; j < SCAN_COLUMN_ITEMS && PASS == SCAN_PASS_SCAN; ++j)
        {
            if (!in_range || first + j >= end)
                continue;
            [[unroll]] for (k = 0u; k < VECTOR; ++k)
                values[j][k] = EXCLUSIVE && j == 0u ? before[k] : combine(before[k], values[j][k]);
            store_lines(output_base, offsets.y, first + j, values[j]);
        }
    }
    if (PASS == SCAN_PASS_TOTALS && in_range && along == 0u)
    {
        [[unroll]] for (k = 0u; k < VECTOR; ++k)
            store_total(tile * LINES + line + k, carry[k]);
    }
}

void main()
{
    uint group = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);

    if (ALGORITHM == SCAN_ALGORITHM_ROW)
        row_main(group);
    else
        column_main(group);
}
