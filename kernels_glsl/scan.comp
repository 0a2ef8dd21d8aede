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

/* Two sets of subgroup totals, one per parity of the chunk: one barrier per chunk suffices. */
shared uvec2 subgroup_totals[gl_WorkGroupSize.x * 2u];

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

/* Scans positions [begin, end) of a line from `carry`, in chunks of SCAN_ITEMS x the workgroup's
 * invocations: each subgroup scans a contiguous segment of the chunk, SCAN_ITEMS loads per lane,
 * each coalesced across the lanes; the subgroups' totals then give each its prefix. Stores the
 * results when `store`; returns the carry after `end`. */
uvec2 row_scan(uvec2 input_base, uvec2 output_base, uint begin, uint end, uvec2 carry, bool store)
{
    uint lane = gl_SubgroupInvocationID, segment = gl_SubgroupSize * SCAN_ITEMS, parity = 0u, chunk, first, s, j;
    uvec2 values[SCAN_ITEMS], run, inclusive, scanned, before;

    for (chunk = begin; chunk < end; chunk += gl_WorkGroupSize.x * SCAN_ITEMS)
    {
        first = chunk + gl_SubgroupID * segment + lane;
        [[unroll]] for (j = 0u; j < SCAN_ITEMS; ++j)
        {
            uint position = first + j * gl_SubgroupSize;

            values[j] = position < end ? load_value(input_base, axis_offset(position, IN_AXIS_STRIDE)) : identity();
        }
        run = identity();
        [[unroll]] for (j = 0u; j < SCAN_ITEMS; ++j)
        {
            inclusive = subgroup_inclusive_scan(values[j]);
            scanned = inclusive;
            if (EXCLUSIVE)
            {
                scanned = subgroup_shuffle(inclusive, lane > 0u ? lane - 1u : 0u);
                if (lane == 0u)
                    scanned = identity();
            }
            values[j] = combine(run, scanned);
            run = combine(run, subgroup_shuffle(inclusive, gl_SubgroupSize - 1u));
        }
        if (subgroupElect())
            subgroup_totals[parity * gl_WorkGroupSize.x + gl_SubgroupID] = run;
        barrier();
        before = carry;
        for (s = 0u; s < gl_NumSubgroups; ++s)
        {
            if (s == gl_SubgroupID)
                before = carry;
            carry = combine(carry, subgroup_totals[parity * gl_WorkGroupSize.x + s]);
        }
        [[unroll]] for (j = 0u; j < SCAN_ITEMS && store; ++j)
        {
            uint position = first + j * gl_SubgroupSize;

            if (position < end)
                store_value(output_base, axis_offset(position, OUT_AXIS_STRIDE), combine(before, values[j]));
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

/* ---- SCAN_ALGORITHM_COLUMN: an invocation per line or tile, sequential ---- */

/* SCAN_ITEMS loads before their stores: the compiler cannot move a load above a store that may
 * alias it (in place), so this keeps several loads in flight per invocation. */
void column_main(uint index)
{
    uint line = index % LINES, tile = index / LINES, begin = tile * TILE_LENGTH, end, position, t, j;
    uvec2 offsets = line_offsets(line), accumulated = identity(), values[SCAN_ITEMS];
    uvec2 input_base = tensor_address(IN_SLOT, IN_OFFSET_LO, IN_OFFSET_HI);
    uvec2 output_base = tensor_address(OUT_SLOT, OUT_OFFSET_LO, OUT_OFFSET_HI);

    if (tile >= TILES)
        return;
    end = min(LENGTH, begin + TILE_LENGTH);
    for (t = 0u; PASS == SCAN_PASS_SCAN && TILED && t < tile; ++t)
        accumulated = combine(accumulated, load_total(t * LINES + line));
    for (position = begin; position < end; position += SCAN_ITEMS)
    {
        [[unroll]] for (j = 0u; j < SCAN_ITEMS; ++j)
        {
            if (position + j < end)
                values[j] = load_value(input_base, offsets.x + axis_offset(position + j, IN_AXIS_STRIDE));
        }
        [[unroll]] for (j = 0u; j < SCAN_ITEMS && position + j < end; ++j)
        {
            uint at = offsets.y + axis_offset(position + j, OUT_AXIS_STRIDE);

            if (PASS == SCAN_PASS_SCAN && EXCLUSIVE)
                store_value(output_base, at, accumulated);
            accumulated = combine(accumulated, values[j]);
            if (PASS == SCAN_PASS_SCAN && !EXCLUSIVE)
                store_value(output_base, at, accumulated);
        }
    }
    if (PASS == SCAN_PASS_TOTALS)
        store_total(tile * LINES + line, accumulated);
}

void main()
{
    uint group = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);

    if (ALGORITHM == SCAN_ALGORITHM_ROW)
        row_main(group);
    else
        column_main(group * gl_WorkGroupSize.x + gl_LocalInvocationIndex);
}
