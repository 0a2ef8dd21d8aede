#version 460
#extension GL_GOOGLE_include_directive : require
/*
 * DML_OPERATOR_TOP_K and TOP_K1 (top_k_interface.h has the layout): one workgroup per row, or
 * per part of a long row.
 *
 * Each element gets an order-preserving unsigned key (README, "TOP_K and TOP_K1": floats by their
 * bits with the negative ones flipped, -0 as +0 and every NaN above +inf; signed integers with the
 * sign bit flipped; all of it inverted for the smallest first), extended by the reversed index
 * (LENGTH - index) so that the lower index wins a tie: the composite (key, reversed index) is
 * unique, and the K largest composites are the answer, in order.
 *
 * Keys of up to 32 bits with K <= TOPK_SMALL_K first go through a threshold filter (FILTER_GROUPS,
 * filter_select): the smallest of K or more groups' largest keys bounds the K-th largest from
 * below, the few elements at or above it go to shared memory, a radix select over them and a
 * rank count finish the row. Otherwise, or when they overflow shared memory, radix select finds
 * the K-th largest composite 8 bits per pass (a 256-bin histogram in shared memory of the
 * elements that still match the prefix found so far, then the bin where the count from the top
 * reaches K), and stops as soon as the rest of a bin is taken, which for data without ties means
 * after the key's bits at most. The row's keys stay in registers between passes (TOPK_MAX_CACHE
 * per thread; beyond that they are read again). The selected elements then go into shared
 * memory, a bitonic sort orders them (small K: each counts those greater), and K values and
 * indices are written. When K slots do not fit in shared memory, they are sorted in the
 * temporary resource instead. Rows longer than a workgroup's registers may split into parts
 * (top_k_interface.h, TOPK_SPEC_STAGE): each part's K best go to the temporary resource as
 * candidates, and a second dispatch selects the row's K among them the same way.
 * Counts are integers, so atomics in shared memory give the same result on every run, and the
 * sort's order is total (the filter's candidates land in any order; their ranks do not depend on it).
 */
#include "common.glsl"
#include "dml_interface.h"
#include "tensor_io.glsl"
#include "reduce_common.glsl"
#include "top_k_interface.h"

layout(local_size_x_id = TOPK_SPEC_THREADS, local_size_y = 1, local_size_z = 1) in;

layout(constant_id = TOPK_SPEC_CACHE) const uint CACHE = 1;
layout(constant_id = TOPK_SPEC_SORT) const uint SORT = 1;
layout(constant_id = TOPK_SPEC_GLOBAL_SORT) const bool GLOBAL_SORT = false;
layout(constant_id = TOPK_SPEC_TYPE) const uint TYPE = TIO_TYPE_FLOAT32;
layout(constant_id = TOPK_SPEC_KEY_BITS) const uint KEY_BITS = 32;
layout(constant_id = TOPK_SPEC_INDEX_64) const bool INDEX_64 = false;
layout(constant_id = TOPK_SPEC_LARGEST) const bool LARGEST = true;
layout(constant_id = TOPK_SPEC_LENGTH) const uint LENGTH = 1;
layout(constant_id = TOPK_SPEC_K) const uint K = 1;
layout(constant_id = TOPK_SPEC_INDEX_BITS) const uint INDEX_BITS = 0;
layout(constant_id = TOPK_SPEC_ROWS) const uint ROWS = 1;
layout(constant_id = TOPK_SPEC_AXIS_STRIDES + 0) const uint AXIS_STRIDE_IN = 1;
layout(constant_id = TOPK_SPEC_AXIS_STRIDES + 1) const uint AXIS_STRIDE_VALUE = 1;
layout(constant_id = TOPK_SPEC_AXIS_STRIDES + 2) const uint AXIS_STRIDE_INDEX = 1;
layout(constant_id = TOPK_SPEC_KEPT_COUNT) const uint KEPT_COUNT = 0;
layout(constant_id = TOPK_SPEC_KEPT_SIZES + 0) const uint KEPT_SIZE_0 = 1;
layout(constant_id = TOPK_SPEC_KEPT_SIZES + 1) const uint KEPT_SIZE_1 = 1;
layout(constant_id = TOPK_SPEC_KEPT_SIZES + 2) const uint KEPT_SIZE_2 = 1;
layout(constant_id = TOPK_SPEC_KEPT_SIZES + 3) const uint KEPT_SIZE_3 = 1;
layout(constant_id = TOPK_SPEC_KEPT_SIZES + 4) const uint KEPT_SIZE_4 = 1;
layout(constant_id = TOPK_SPEC_KEPT_SIZES + 5) const uint KEPT_SIZE_5 = 1;
layout(constant_id = TOPK_SPEC_KEPT_SIZES + 6) const uint KEPT_SIZE_6 = 1;
layout(constant_id = TOPK_SPEC_KEPT_STRIDES + 0) const uint IN_STRIDE_0 = 0;
layout(constant_id = TOPK_SPEC_KEPT_STRIDES + 1) const uint IN_STRIDE_1 = 0;
layout(constant_id = TOPK_SPEC_KEPT_STRIDES + 2) const uint IN_STRIDE_2 = 0;
layout(constant_id = TOPK_SPEC_KEPT_STRIDES + 3) const uint IN_STRIDE_3 = 0;
layout(constant_id = TOPK_SPEC_KEPT_STRIDES + 4) const uint IN_STRIDE_4 = 0;
layout(constant_id = TOPK_SPEC_KEPT_STRIDES + 5) const uint IN_STRIDE_5 = 0;
layout(constant_id = TOPK_SPEC_KEPT_STRIDES + 6) const uint IN_STRIDE_6 = 0;
layout(constant_id = TOPK_SPEC_KEPT_STRIDES + 7) const uint VALUE_STRIDE_0 = 0;
layout(constant_id = TOPK_SPEC_KEPT_STRIDES + 8) const uint VALUE_STRIDE_1 = 0;
layout(constant_id = TOPK_SPEC_KEPT_STRIDES + 9) const uint VALUE_STRIDE_2 = 0;
layout(constant_id = TOPK_SPEC_KEPT_STRIDES + 10) const uint VALUE_STRIDE_3 = 0;
layout(constant_id = TOPK_SPEC_KEPT_STRIDES + 11) const uint VALUE_STRIDE_4 = 0;
layout(constant_id = TOPK_SPEC_KEPT_STRIDES + 12) const uint VALUE_STRIDE_5 = 0;
layout(constant_id = TOPK_SPEC_KEPT_STRIDES + 13) const uint VALUE_STRIDE_6 = 0;
layout(constant_id = TOPK_SPEC_KEPT_STRIDES + 14) const uint INDEX_STRIDE_0 = 0;
layout(constant_id = TOPK_SPEC_KEPT_STRIDES + 15) const uint INDEX_STRIDE_1 = 0;
layout(constant_id = TOPK_SPEC_KEPT_STRIDES + 16) const uint INDEX_STRIDE_2 = 0;
layout(constant_id = TOPK_SPEC_KEPT_STRIDES + 17) const uint INDEX_STRIDE_3 = 0;
layout(constant_id = TOPK_SPEC_KEPT_STRIDES + 18) const uint INDEX_STRIDE_4 = 0;
layout(constant_id = TOPK_SPEC_KEPT_STRIDES + 19) const uint INDEX_STRIDE_5 = 0;
layout(constant_id = TOPK_SPEC_KEPT_STRIDES + 20) const uint INDEX_STRIDE_6 = 0;
layout(constant_id = TOPK_SPEC_IN_LOCATION + 0) const uint IN_SLOT = 0;
layout(constant_id = TOPK_SPEC_IN_LOCATION + 1) const uint IN_OFFSET_LO = 0;
layout(constant_id = TOPK_SPEC_IN_LOCATION + 2) const uint IN_OFFSET_HI = 0;
layout(constant_id = TOPK_SPEC_VALUE_LOCATION + 0) const uint VALUE_SLOT = 0;
layout(constant_id = TOPK_SPEC_VALUE_LOCATION + 1) const uint VALUE_OFFSET_LO = 0;
layout(constant_id = TOPK_SPEC_VALUE_LOCATION + 2) const uint VALUE_OFFSET_HI = 0;
layout(constant_id = TOPK_SPEC_INDEX_LOCATION + 0) const uint INDEX_SLOT = 0;
layout(constant_id = TOPK_SPEC_INDEX_LOCATION + 1) const uint INDEX_OFFSET_LO = 0;
layout(constant_id = TOPK_SPEC_INDEX_LOCATION + 2) const uint INDEX_OFFSET_HI = 0;
layout(constant_id = TOPK_SPEC_TEMP_LOCATION + 0) const uint TEMP_SLOT = 0;
layout(constant_id = TOPK_SPEC_TEMP_LOCATION + 1) const uint TEMP_OFFSET_LO = 0;
layout(constant_id = TOPK_SPEC_TEMP_LOCATION + 2) const uint TEMP_OFFSET_HI = 0;
layout(constant_id = TOPK_SPEC_STAGE) const uint STAGE = TOPK_STAGE_ROWS;
layout(constant_id = TOPK_SPEC_PARTS) const uint PARTS = 1;
layout(constant_id = TOPK_SPEC_FILTER_GROUPS) const uint FILTER_GROUPS = 0;

const uint THREADS = gl_WorkGroupSize.x;
const uint KEY_PASSES = KEY_BITS / 8u;
const uint INDEX_PASSES = (INDEX_BITS + 7u) / 8u;
const uint KEY_MASK = KEY_BITS >= 32u ? 0xffffffffu : (1u << KEY_BITS) - 1u;
const uint SIGN_BIT = 1u << ((KEY_BITS - 1u) & 31u);
const bool FILTER = FILTER_GROUPS != 0u;
/* Sort slots: the filter's selected candidates may exceed K where keys tie, twice K fit. */
const uint SLOTS = GLOBAL_SORT ? 1u : FILTER ? 2u * SORT : SORT;

/* Two histograms: a pass counts into one while clearing the other for the next pass; the bin a
 * pass chose (the same for every invocation); the selected elements' composites. */
shared uint histograms[2][TOPK_RADIX];
shared uint chosen_digit, chosen_above, chosen_count, selected_count;
shared uint sort_hi[SLOTS], sort_lo[SLOTS], sort_rev[SLOTS];
/* The threshold filter: the groups' largest keys, then the candidates (key less the threshold,
 * index in the row). */
shared uint filter_partials[FILTER ? THREADS : 1];
shared uint filter_keys[FILTER ? TOPK_FILTER_CAPACITY : 1], filter_indices[FILTER ? TOPK_FILTER_CAPACITY : 1];
shared uint filter_count;

/* Sort slots in the temporary resource, shared by the workgroup's invocations. */
layout(buffer_reference, std430, buffer_reference_align = 4) coherent buffer TopKSlots
{
    uint words[];
};

uvec2 in_base, value_base, index_base, temp_base;
uint row_in, row_value, row_index;
/* What this workgroup scans: `count` elements, the row's from `first` on, or (candidates stage)
 * the candidates from `candidates` (in candidates, TOPK_CANDIDATE_WORDS words each) on; parts
 * write theirs there too. */
uint count, first, candidates;
TopKSlots global_slots;
/* The row's keys held in registers: element gl_LocalInvocationID.x + i * THREADS in cache[i]. */
uvec2 cache[CACHE];

/* ---- Keys ---- */

bool is_float_type()
{
    return TYPE == TIO_TYPE_FLOAT32 || TYPE == TIO_TYPE_FLOAT16;
}

/* The element's bits (high, low words) as an order-preserving key, larger first. */
uvec2 order_key(uvec2 bits)
{
    uint exponent = TYPE == TIO_TYPE_FLOAT16 ? 0x7c00u : 0x7f800000u;

    bits.y &= KEY_MASK;
    if (is_float_type())
    {
        if ((bits.y & ~SIGN_BIT) > exponent)
            bits.y = KEY_MASK;                      /* every NaN above +inf */
        else if (bits.y == SIGN_BIT)
            bits.y = SIGN_BIT;                      /* -0 ties with +0 */
        else
            bits.y = (bits.y & SIGN_BIT) != 0u ? ~bits.y & KEY_MASK : bits.y | SIGN_BIT;
    }
    else if (tio_is_signed(TYPE))
    {
        if (KEY_BITS == 64u)
            bits.x ^= 0x80000000u;
        else
            bits.y ^= SIGN_BIT;
    }
    if (!LARGEST)
        bits = uvec2(KEY_BITS == 64u ? ~bits.x : 0u, ~bits.y & KEY_MASK);
    return bits;
}

uint load_bits(uvec2 base, uint offset, out uint high)
{
    if (KEY_BITS == 64u)
    {
        high = tio_load_bits(TIO_TYPE_UINT32, base, 2u * offset + 1u);
        return tio_load_bits(TIO_TYPE_UINT32, base, 2u * offset);
    }
    high = 0u;
    return tio_load_bits(TYPE, base, offset);
}

uint candidate_word(uint j, uint word)
{
    return tio_load_bits(TIO_TYPE_UINT32, temp_base, (candidates + j) * TOPK_CANDIDATE_WORDS + word);
}

/* The key of element j of what this workgroup scans. */
uvec2 load_key(uint j)
{
    uint high, low;

    if (STAGE == TOPK_STAGE_CANDIDATES)
        return uvec2(candidate_word(j, 0u), candidate_word(j, 1u));
    low = load_bits(in_base, row_in + (first + j) * AXIS_STRIDE_IN, high);
    return order_key(uvec2(high, low));
}

/* The index in the row of element j of what this workgroup scans. */
uint element_index(uint j)
{
    return STAGE == TOPK_STAGE_CANDIDATES ? candidate_word(j, 2u) : first + j;
}

/* (key high, key low, reversed index in the row): unique per element, larger first. */
uvec3 composite(uvec2 key, uint j)
{
    return uvec3(key, LENGTH - element_index(j));
}

bool composite_greater(uvec3 a, uvec3 b)
{
    if (a.x != b.x)
        return a.x > b.x;
    if (a.y != b.y)
        return a.y > b.y;
    return a.z > b.z;
}

/* ---- Rows ---- */

void locate_row(uint row)
{
    const uint sizes[TOPK_MAX_KEPT] = uint[](KEPT_SIZE_0, KEPT_SIZE_1, KEPT_SIZE_2, KEPT_SIZE_3, KEPT_SIZE_4,
            KEPT_SIZE_5, KEPT_SIZE_6);
    const uint in_strides[TOPK_MAX_KEPT] = uint[](IN_STRIDE_0, IN_STRIDE_1, IN_STRIDE_2, IN_STRIDE_3, IN_STRIDE_4,
            IN_STRIDE_5, IN_STRIDE_6);
    const uint value_strides[TOPK_MAX_KEPT] = uint[](VALUE_STRIDE_0, VALUE_STRIDE_1, VALUE_STRIDE_2, VALUE_STRIDE_3,
            VALUE_STRIDE_4, VALUE_STRIDE_5, VALUE_STRIDE_6);
    const uint index_strides[TOPK_MAX_KEPT] = uint[](INDEX_STRIDE_0, INDEX_STRIDE_1, INDEX_STRIDE_2, INDEX_STRIDE_3,
            INDEX_STRIDE_4, INDEX_STRIDE_5, INDEX_STRIDE_6);
    uint i, d, c;

    row_in = row_value = row_index = 0u;
    [[unroll]] for (i = 0u; i < TOPK_MAX_KEPT; ++i)
    {
        if (i < KEPT_COUNT)
        {
            d = KEPT_COUNT - 1u - i;
            c = row % sizes[d];
            row /= sizes[d];
            row_in += c * in_strides[d];
            row_value += c * value_strides[d];
            row_index += c * index_strides[d];
        }
    }
}

/* ---- Radix select ---- */

/* The bin, counted from the top digit down, where the elements still to take run out: one
 * subgroup sums runs of bins, adds the runs up, and the lane whose run holds the crossing
 * publishes it (TOPK_RADIX / gl_SubgroupSize bins each: subgroups have at most 128 lanes). */
void choose_bin(uint remaining, uint bank)
{
    uint per_lane = TOPK_RADIX / gl_SubgroupSize, first = gl_SubgroupInvocationID * per_lane, sum = 0u, above;
    uint count, digit, i;

    if (gl_SubgroupID == 0u)
    {
        for (i = 0u; i < per_lane; ++i)
            sum += histograms[bank][TOPK_RADIX - 1u - (first + i)];
        above = subgroupInclusiveAdd(sum) - sum;
        for (i = 0u; i < per_lane; ++i)
        {
            digit = TOPK_RADIX - 1u - (first + i);
            count = histograms[bank][digit];
            if (above < remaining && remaining <= above + count)
            {
                chosen_digit = digit;
                chosen_above = above;
                chosen_count = count;
            }
            above += count;
        }
    }
    barrier();
}

/* Pass `pass`'s digit position: the component of the composite and the shift in it. */
void pass_position(uint pass, out uint component, out uint shift)
{
    uint bit;

    if (pass < KEY_PASSES)
    {
        bit = KEY_BITS - 8u * (pass + 1u);
        component = bit >= 32u ? 0u : 1u;
        shift = bit & 31u;
        return;
    }
    component = 2u;
    shift = 8u * (INDEX_PASSES - 1u - (pass - KEY_PASSES));
}

bool matches(uvec3 c, uvec3 prefix, uvec3 known)
{
    return all(equal(c & known, prefix));
}

/* Floats' high digits take few values (sign and exponent), so many invocations of a subgroup
 * often add to one bin, and shared-memory atomics on one address serialize: each subgroup first
 * adds up to TOPK_AGGREGATE bins with one atomic each (all its invocations that have that
 * digit), then the rest one by one. Only the lowest invocation of a ballot adds, so the count is
 * right however the implementation groups the invocations of a branch. */
void count_digit(uvec3 c, uvec3 prefix, uvec3 known, uint component, uint shift, uint bank)
{
    uint digit = (c[component] >> shift) & 0xffu, round, leader;
    bool pending = matches(c, prefix, known);
    uvec4 same;

    for (round = 0u; round < TOPK_AGGREGATE && subgroupBallot(pending) != uvec4(0u); ++round)
    {
        if (pending)
        {
            leader = subgroupBroadcastFirst(digit);
            same = subgroupBallot(digit == leader);
            if (digit == leader)
            {
                if (gl_SubgroupInvocationID == subgroupBallotFindLSB(same))
                    atomicAdd(histograms[bank][digit], subgroupBallotBitCount(same));
                pending = false;
            }
        }
    }
    if (pending)
        atomicAdd(histograms[bank][digit], 1u);
}

/* The smallest composite taken: the K largest are those at least this one. Histogram 0 was
 * cleared before the first pass; each pass clears the other one for the next, and two barriers
 * a pass order it all (the chosen bin is read before the next pass's first barrier, and written
 * after its second). */
uvec3 radix_select(uint take)
{
    uvec3 prefix = uvec3(0u), known = uvec3(0u);
    uint remaining = take, pass, component, shift, bank, i, j;

    if (take == count)
        return prefix;                  /* all of them */
    for (pass = 0u; pass < KEY_PASSES + INDEX_PASSES; ++pass)
    {
        pass_position(pass, component, shift);
        bank = pass & 1u;
        for (i = gl_LocalInvocationID.x; i < TOPK_RADIX; i += THREADS)
            histograms[bank ^ 1u][i] = 0u;
        [[unroll]] for (i = 0u; i < CACHE; ++i)
        {
            j = gl_LocalInvocationID.x + i * THREADS;
            if (j < count)
                count_digit(composite(cache[i], j), prefix, known, component, shift, bank);
        }
        for (j = CACHE * THREADS + gl_LocalInvocationID.x; j < count; j += THREADS)
            count_digit(composite(load_key(j), j), prefix, known, component, shift, bank);
        barrier();
        choose_bin(remaining, bank);
        remaining -= chosen_above;
        prefix[component] |= chosen_digit << shift;
        known[component] |= 0xffu << shift;
        if (remaining == chosen_count)
            break;                      /* the whole bin is taken: uniform, as the shared values are */
    }
    return prefix;
}

/* ---- Output ---- */

void store_element(uint i, uint j)
{
    uint high, low = load_bits(in_base, row_in + j * AXIS_STRIDE_IN, high);
    uint value_at = row_value + i * AXIS_STRIDE_VALUE, index_at = row_index + i * AXIS_STRIDE_INDEX;

    if (KEY_BITS == 64u)
    {
        tio_store_bits(TIO_TYPE_UINT32, value_base, 2u * value_at, low);
        tio_store_bits(TIO_TYPE_UINT32, value_base, 2u * value_at + 1u, high);
    }
    else
    {
        tio_store_bits(TYPE, value_base, value_at, low);
    }
    if (INDEX_64)
    {
        tio_store_bits(TIO_TYPE_UINT32, index_base, 2u * index_at, j);
        tio_store_bits(TIO_TYPE_UINT32, index_base, 2u * index_at + 1u, 0u);
    }
    else
    {
        tio_store_bits(TIO_TYPE_UINT32, index_base, index_at, j);
    }
}

uvec3 load_slot(uint i)
{
    if (GLOBAL_SORT)
        return uvec3(global_slots.words[3u * i], global_slots.words[3u * i + 1u], global_slots.words[3u * i + 2u]);
    return uvec3(sort_hi[i], sort_lo[i], sort_rev[i]);
}

void store_slot(uint i, uvec3 c)
{
    if (GLOBAL_SORT)
    {
        global_slots.words[3u * i] = c.x;
        global_slots.words[3u * i + 1u] = c.y;
        global_slots.words[3u * i + 2u] = c.z;
        return;
    }
    sort_hi[i] = c.x;
    sort_lo[i] = c.y;
    sort_rev[i] = c.z;
}

/* Slot writes before it are seen by every invocation after it. */
void slots_barrier()
{
    if (GLOBAL_SORT)
        memoryBarrierBuffer();
    barrier();
}

void gather_selected(uvec3 c, uvec3 threshold)
{
    if (!composite_greater(threshold, c))
        store_slot(atomicAdd(selected_count, 1u), c);
}

/* Descending bitonic sort of the SORT slots; empty slots hold reversed index 0 and come last. */
void sort_selected()
{
    uint size, stride, i, a, b;
    bool descending;
    uvec3 first_slot, second_slot;

    for (size = 2u; size <= SORT; size <<= 1u)
    {
        for (stride = size >> 1u; stride > 0u; stride >>= 1u)
        {
            for (i = gl_LocalInvocationID.x; i < SORT / 2u; i += THREADS)
            {
                a = 2u * stride * (i / stride) + i % stride;
                b = a + stride;
                descending = (a & size) == 0u;
                first_slot = load_slot(a);
                second_slot = load_slot(b);
                if (composite_greater(second_slot, first_slot) == descending)
                {
                    store_slot(a, second_slot);
                    store_slot(b, first_slot);
                }
            }
            slots_barrier();
        }
    }
}

/* K slots of shared memory hold exactly the K selected elements (in any order); up to
 * TOPK_SMALL_K each finds its place by counting those greater (one pass, no barrier), more are
 * sorted. */
void write_sorted(uvec3 threshold)
{
    bool small = SORT <= TOPK_SMALL_K;
    uint i, j, rank;

    for (i = K + gl_LocalInvocationID.x; !small && i < SORT; i += THREADS)
        store_slot(i, uvec3(0u));
    if (gl_LocalInvocationID.x == 0u)
        selected_count = 0u;
    barrier();
    [[unroll]] for (i = 0u; i < CACHE; ++i)
    {
        j = gl_LocalInvocationID.x + i * THREADS;
        if (j < count)
            gather_selected(composite(cache[i], j), threshold);
    }
    for (j = CACHE * THREADS + gl_LocalInvocationID.x; j < count; j += THREADS)
        gather_selected(composite(load_key(j), j), threshold);
    slots_barrier();
    if (small)
    {
        for (i = gl_LocalInvocationID.x; i < K; i += THREADS)
        {
            rank = 0u;
            for (j = 0u; j < K; ++j)
                rank += composite_greater(load_slot(j), load_slot(i)) ? 1u : 0u;
            store_element(rank, LENGTH - load_slot(i).z);
        }
        return;
    }
    sort_selected();
    for (i = gl_LocalInvocationID.x; i < K; i += THREADS)
        store_element(i, LENGTH - load_slot(i).z);
}

/* Parts stage: the part's selected elements (`take` of them, any order) and fillers up to K. */
void write_candidate(uint slot, uvec3 c)
{
    uint at = (candidates + slot) * TOPK_CANDIDATE_WORDS;

    tio_store_bits(TIO_TYPE_UINT32, temp_base, at, c.x);
    tio_store_bits(TIO_TYPE_UINT32, temp_base, at + 1u, c.y);
    tio_store_bits(TIO_TYPE_UINT32, temp_base, at + 2u, LENGTH - c.z);
}

void select_candidate(uvec3 c, uvec3 threshold)
{
    if (!composite_greater(threshold, c))
        write_candidate(atomicAdd(selected_count, 1u), c);
}

void write_candidates(uvec3 threshold, uint take)
{
    uint i, j;

    if (gl_LocalInvocationID.x == 0u)
        selected_count = 0u;
    barrier();
    [[unroll]] for (i = 0u; i < CACHE; ++i)
    {
        j = gl_LocalInvocationID.x + i * THREADS;
        if (j < count)
            select_candidate(composite(cache[i], j), threshold);
    }
    for (j = CACHE * THREADS + gl_LocalInvocationID.x; j < count; j += THREADS)
        select_candidate(composite(load_key(j), j), threshold);
    for (i = take + gl_LocalInvocationID.x; i < K; i += THREADS)
        write_candidate(i, uvec3(0u));
}

/* ---- Threshold filter (keys of up to 32 bits, K <= FILTER_GROUPS) ---- */

/* The FILTER_GROUPS groups of invocations each hold different elements, so the smallest of their
 * largest keys is at most the row's K-th largest key (there are at least K groups): only elements
 * at or above it are candidates, usually a few times K. Returns (that bound, the row's largest
 * key). Elements past the row hold key 0, below or equal to every element's. Groups are runs of
 * lanes within a subgroup, or whole subgroups, whatever the implementation's lane numbering. */
uvec2 filter_bounds()
{
    uint lanes = min(THREADS / FILTER_GROUPS, gl_SubgroupSize), per_group = THREADS / FILTER_GROUPS / lanes;
    uint largest = 0u, low = 0xffffffffu, high = 0u, offset, group, i;

    [[unroll]] for (i = 0u; i < CACHE; ++i)
        largest = max(largest, cache[i].y);
    for (i = CACHE * THREADS + gl_LocalInvocationID.x; i < count; i += THREADS)
        largest = max(largest, load_key(i).y);
    for (offset = 1u; offset < lanes; offset <<= 1u)
        largest = max(largest, subgroupShuffleXor(largest, offset));
    if (gl_SubgroupInvocationID % lanes == 0u)
        filter_partials[gl_SubgroupID * (gl_SubgroupSize / lanes) + gl_SubgroupInvocationID / lanes] = largest;
    barrier();
    for (group = gl_SubgroupInvocationID; group < FILTER_GROUPS; group += gl_SubgroupSize)
    {
        largest = 0u;
        for (i = 0u; i < per_group; ++i)
            largest = max(largest, filter_partials[group * per_group + i]);
        low = min(low, largest);
        high = max(high, largest);
    }
    return uvec2(subgroupMin(low), subgroupMax(high));
}

void add_candidate(uint at, uint key, uint threshold, uint j)
{
    if (at < TOPK_FILTER_CAPACITY)
    {
        filter_keys[at] = key - threshold;
        filter_indices[at] = element_index(j);
    }
}

/* The candidates into shared memory, in any order (the selection below orders them totally);
 * false when they overflow it. Those in registers take one atomic a subgroup, the others (read
 * again, from the cache usually) one each: they are few. */
bool gather_candidates(uint threshold)
{
    uint n = 0u, at, total, base = 0u, key, i, j;

    [[unroll]] for (i = 0u; i < CACHE; ++i)
    {
        j = gl_LocalInvocationID.x + i * THREADS;
        n += j < count && cache[i].y >= threshold ? 1u : 0u;
    }
    at = subgroupExclusiveAdd(n);
    total = subgroupAdd(n);
    if (subgroupElect())
        base = atomicAdd(filter_count, total);
    at += subgroupBroadcastFirst(base);
    [[unroll]] for (i = 0u; i < CACHE; ++i)
    {
        j = gl_LocalInvocationID.x + i * THREADS;
        if (j < count && cache[i].y >= threshold)
            add_candidate(at++, cache[i].y, threshold, j);
    }
    for (j = CACHE * THREADS + gl_LocalInvocationID.x; j < count; j += THREADS)
    {
        if ((key = load_key(j).y) >= threshold)
            add_candidate(atomicAdd(filter_count, 1u), key, threshold, j);
    }
    barrier();
    return filter_count <= TOPK_FILTER_CAPACITY;
}

/* Radix select among the candidates' keys less the threshold, 8 bits a pass from the top bit of
 * their range down: the smallest key taken (every candidate at or above it is taken, ties at it
 * included; the caller orders them). */
uint select_candidate_key(uint take, uint range)
{
    uint shift = uint(max(findMSB(range) - 7, 0)), prefix = 0u, known = 0u, remaining = take, bank = 0u, s, d;

    for (;;)
    {
        for (s = gl_LocalInvocationID.x; s < TOPK_RADIX; s += THREADS)
            histograms[bank ^ 1u][s] = 0u;
        for (s = gl_LocalInvocationID.x; s < filter_count; s += THREADS)
        {
            d = filter_keys[s];
            if ((d & known) == prefix)
                atomicAdd(histograms[bank][(d >> shift) & 0xffu], 1u);
        }
        barrier();
        choose_bin(remaining, bank);
        remaining -= chosen_above;
        prefix |= chosen_digit << shift;
        known |= 0xffu << shift;
        if (remaining == chosen_count || shift == 0u)
            return prefix;              /* uniform, as the shared values are */
        shift = shift > 8u ? shift - 8u : 0u;
        bank ^= 1u;
    }
    return prefix;
}

uvec3 filter_composite(uint s)
{
    return uvec3(0u, filter_keys[s], LENGTH - filter_indices[s]);
}

/* Candidate s's place among the selected ones (at least `take`, more where keys tie at the
 * smallest taken): the number of greater ones, counted by `lanes` invocations together. */
uint filtered_rank(uvec3 c, uint selected, uint lanes, bool in_slots, uint smallest)
{
    uint rank = 0u, offset, t;

    for (t = gl_SubgroupInvocationID % lanes; t < (in_slots ? selected : filter_count); t += lanes)
    {
        if (in_slots)
            rank += composite_greater(load_slot(t), c) ? 1u : 0u;
        else
            rank += filter_keys[t] >= smallest && composite_greater(filter_composite(t), c) ? 1u : 0u;
    }
    for (offset = 1u; offset < lanes; offset <<= 1u)
        rank += subgroupShuffleXor(rank, offset);
    return rank;
}

/* The selected candidates go to the sort slots when they fit (else they are counted where they
 * are), then each counts the greater ones with a run of lanes and writes itself at its rank: an
 * output element, or (parts stage) a candidate with its key, fillers after the part's own. */
void write_filtered(uint take, uint threshold, uint smallest)
{
    uint lanes = min(gl_SubgroupSize, max(THREADS / SLOTS, 1u)), runs = THREADS / lanes;
    uint run = gl_SubgroupID * (gl_SubgroupSize / lanes) + gl_SubgroupInvocationID / lanes;
    uint s, at, rank, selected, items;
    bool in_slots;
    uvec3 c;

    for (s = gl_LocalInvocationID.x; s < filter_count; s += THREADS)
    {
        if (filter_keys[s] >= smallest && (at = atomicAdd(selected_count, 1u)) < SLOTS)
            store_slot(at, filter_composite(s));
    }
    barrier();
    selected = selected_count;
    in_slots = selected <= SLOTS;
    items = in_slots ? selected : filter_count;
    for (s = run; s - run < items; s += runs)     /* the same trips for every invocation (shuffles) */
    {
        c = s < items ? (in_slots ? load_slot(s) : filter_composite(s)) : uvec3(0u);
        rank = filtered_rank(c, selected, lanes, in_slots, smallest);
        if (s < items && gl_SubgroupInvocationID % lanes == 0u && (in_slots || filter_keys[s] >= smallest)
                && rank < take)
        {
            if (STAGE == TOPK_STAGE_PARTS)
                write_candidate(rank, uvec3(0u, c.y + threshold, c.z));
            else
                store_element(rank, LENGTH - c.z);
        }
    }
    for (s = take + gl_LocalInvocationID.x; STAGE == TOPK_STAGE_PARTS && s < K; s += THREADS)
        write_candidate(s, uvec3(0u));
}

/* The row's K through the threshold filter; false (nothing written, the histograms untouched)
 * when the candidates overflow shared memory. */
bool filter_select(uint take)
{
    uvec2 bounds = filter_bounds();

    if (!gather_candidates(bounds.x))
        return false;
    write_filtered(take, bounds.x, select_candidate_key(take, bounds.y - bounds.x));
    return true;
}

/* This workgroup's row, and what of it it scans; false for a surplus workgroup. */
bool locate_work(uint group)
{
    uint row = STAGE == TOPK_STAGE_PARTS ? group / PARTS : group, part = group - row * PARTS;

    if (row >= ROWS)
        return false;
    locate_row(row);
    first = STAGE == TOPK_STAGE_PARTS ? part * TOPK_SEGMENT : 0u;
    count = STAGE == TOPK_STAGE_PARTS ? min(TOPK_SEGMENT, LENGTH - first)
            : STAGE == TOPK_STAGE_CANDIDATES ? PARTS * K : LENGTH;
    candidates = (STAGE == TOPK_STAGE_PARTS ? group : row * PARTS) * K;
    return true;
}

void main()
{
    uint group = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);
    VkdmlDescriptorTable table = VkdmlDescriptorTable(push.table);
    uvec3 threshold;
    uint i, j, take;

    if (!locate_work(group))
        return;                         /* the whole workgroup: groups are uniform */
    in_base = vkdml_binding_address(table, IN_SLOT, IN_OFFSET_LO, IN_OFFSET_HI);
    value_base = vkdml_binding_address(table, VALUE_SLOT, VALUE_OFFSET_LO, VALUE_OFFSET_HI);
    index_base = vkdml_binding_address(table, INDEX_SLOT, INDEX_OFFSET_LO, INDEX_OFFSET_HI);
    temp_base = vkdml_binding_address(table, TEMP_SLOT, TEMP_OFFSET_LO, TEMP_OFFSET_HI);
    if (GLOBAL_SORT)
        global_slots = TopKSlots(tio_element_address(temp_base, group * SORT, TOPK_CANDIDATE_WORDS * 4u));
    for (i = gl_LocalInvocationID.x; i < TOPK_RADIX; i += THREADS)
        histograms[0][i] = 0u;
    [[unroll]] for (i = 0u; i < CACHE; ++i)
    {
        j = gl_LocalInvocationID.x + i * THREADS;
        cache[i] = j < count ? load_key(j) : uvec2(0u);
    }
    if (gl_LocalInvocationID.x == 0u)
        filter_count = selected_count = 0u;
    barrier();
    take = min(K, count);
    if (FILTER && filter_select(take))
        return;
    threshold = radix_select(take);
    if (STAGE == TOPK_STAGE_PARTS)
        write_candidates(threshold, take);
    else
        write_sorted(threshold);
}
