#version 460
#extension GL_GOOGLE_include_directive : require
/*
 * DML_OPERATOR_REDUCE (every DML_REDUCE_FUNCTION), DML_OPERATOR_ARGMIN and DML_OPERATOR_ARGMAX over
 * any set of axes; reduce_interface.h has the modes (ROW, SUBGROUP_ROW, COLUMN, COMBINE, COMBINE_ROW)
 * and the layout.
 *
 * A reduction carries a state (uvec4) through one combine() per input element, then across
 * invocations and parts; store_result() finishes it (AVERAGE's division, L2's square root, the
 * logarithms) and stores it. The state by the input type's domain:
 *   float (FLOAT32, FLOAT16; fp32 arithmetic): x the value bits, y LOG_SUM_EXP's sum (x its max);
 *   32-bit integers (INT8 .. UINT32, sign- or zero-extended; sums and products wrap as the
 *   output type does): x the value;
 *   64-bit integers (INT64, UINT64; the int64 variants): xy the value.
 * z is ARG*'s index (the flattened index over the reduced axes), and marks an empty state
 * (REDUCE_EMPTY) for MIN, MAX and ARG*. NaN wins MIN, MAX and ARG* (README,
 * "Reductions (REDUCE, ARGMIN, ARGMAX)").
 *
 * Float inputs (but LOG_SUM_EXP) skip the state inside an invocation: an Acc accumulates in fp32,
 * MIN / MAX as integer min / max of the value bits (extremum_bits), ARG* the best number by float
 * compares and its index, a NaN's index aside; across invocations, integer subgroup min / max of
 * ordered integer keys (float_key), or the state and combine() (sums); across parts, states and
 * combine() (docs/kernels.md, "Reductions").
 *
 * Variants (kernels_glsl/meson.build, typed_kernels): the storage the input and output types need.
 */
#include "common.glsl"
#include "dml_interface.h"
#include "tensor_io.glsl"
#include "reduce_common.glsl"
#include "reduce_interface.h"

layout(local_size_x = REDUCE_THREADS, local_size_y = 1, local_size_z = 1) in;

layout(constant_id = REDUCE_SPEC_MODE) const uint MODE = REDUCE_MODE_ROW;
layout(constant_id = REDUCE_SPEC_FUNCTION) const uint FUNCTION = REDUCE_SUM;
layout(constant_id = REDUCE_SPEC_LAST_INDEX) const bool LAST_INDEX = false;
layout(constant_id = REDUCE_SPEC_INPUT_TYPE) const uint IN_TYPE = TIO_TYPE_FLOAT32;
layout(constant_id = REDUCE_SPEC_OUTPUT_TYPE) const uint OUT_TYPE = TIO_TYPE_FLOAT32;
layout(constant_id = REDUCE_SPEC_KEPT_COUNT) const uint KEPT_COUNT = 0;
layout(constant_id = REDUCE_SPEC_REDUCED_COUNT) const uint REDUCED_COUNT = 1;
layout(constant_id = REDUCE_SPEC_PARTIAL) const bool PARTIAL = false;
layout(constant_id = REDUCE_SPEC_VECTOR) const uint VECTOR = 1;
layout(constant_id = REDUCE_SPEC_SLICES) const uint SLICES = 1;
layout(constant_id = REDUCE_SPEC_IN_LOCATION + 0) const uint IN_SLOT = 0;
layout(constant_id = REDUCE_SPEC_IN_LOCATION + 1) const uint IN_OFFSET_LO = 0;
layout(constant_id = REDUCE_SPEC_IN_LOCATION + 2) const uint IN_OFFSET_HI = 0;
layout(constant_id = REDUCE_SPEC_OUT_LOCATION + 0) const uint OUT_SLOT = 0;
layout(constant_id = REDUCE_SPEC_OUT_LOCATION + 1) const uint OUT_OFFSET_LO = 0;
layout(constant_id = REDUCE_SPEC_OUT_LOCATION + 2) const uint OUT_OFFSET_HI = 0;
layout(constant_id = REDUCE_SPEC_TEMP_LOCATION + 0) const uint TEMP_SLOT = 0;
layout(constant_id = REDUCE_SPEC_TEMP_LOCATION + 1) const uint TEMP_OFFSET_LO = 0;
layout(constant_id = REDUCE_SPEC_TEMP_LOCATION + 2) const uint TEMP_OFFSET_HI = 0;

#define REDUCE_EMPTY 0xffffffffu

const bool FLOAT_DOMAIN = IN_TYPE == TIO_TYPE_FLOAT32 || IN_TYPE == TIO_TYPE_FLOAT16;
const bool LONG_DOMAIN = IN_TYPE == TIO_TYPE_INT64 || IN_TYPE == TIO_TYPE_UINT64;
const bool SIGNED = IN_TYPE == TIO_TYPE_INT8 || IN_TYPE == TIO_TYPE_INT16 || IN_TYPE == TIO_TYPE_INT32
        || IN_TYPE == TIO_TYPE_INT64;
const bool ARG = FUNCTION == REDUCE_ARGMAX || FUNCTION == REDUCE_ARGMIN;
const bool EXTREMUM = ARG || FUNCTION == REDUCE_MAX || FUNCTION == REDUCE_MIN;
const bool LARGEST = FUNCTION == REDUCE_ARGMAX || FUNCTION == REDUCE_MAX;
const bool WIDE_INDEX = OUT_TYPE == TIO_TYPE_INT64 || OUT_TYPE == TIO_TYPE_UINT64;
/* An invocation accumulates in an Acc's natural fields rather than its state. */
const bool FAST = FLOAT_DOMAIN && FUNCTION != REDUCE_LOG_SUM_EXP;

/* ---- Layout (push.dims: reduce_interface.h) ---- */

const uint KEPT_IN_STRIDES = KEPT_COUNT;
const uint KEPT_OUT_STRIDES = 2 * KEPT_COUNT;
const uint REDUCED_SIZES = 3 * KEPT_COUNT;
const uint REDUCED_STRIDES = 3 * KEPT_COUNT + REDUCED_COUNT;

/* Element offsets of kept index `k` in the input and the output. */
void kept_offsets(uint k, out uint in_offset, out uint out_offset)
{
    in_offset = out_offset = 0u;
    [[unroll]] for (int i = int(KEPT_COUNT) - 1; i >= 0; --i)
    {
        uint c = i == 0 ? k : k % push.dims[i];

        k /= push.dims[i];
        in_offset += c * push.dims[KEPT_IN_STRIDES + i];
        out_offset += c * push.dims[KEPT_OUT_STRIDES + i];
    }
}

/* Element offset of reduced index `r` in the input. */
uint reduced_offset(uint r)
{
    uint offset = 0u;

    [[unroll]] for (int i = int(REDUCED_COUNT) - 1; i >= 0; --i)
    {
        uint c = i == 0 ? r : r % push.dims[REDUCED_SIZES + i];

        r /= push.dims[REDUCED_SIZES + i];
        offset += c * push.dims[REDUCED_STRIDES + i];
    }
    return offset;
}

uvec2 tensor_address(uint slot, uint offset_lo, uint offset_hi)
{
    return vkdml_binding_address(VkdmlDescriptorTable(push.table), slot, offset_lo, offset_hi);
}

/* ---- States ---- */

uvec4 identity_state()
{
    if (EXTREMUM)
        return uvec4(0u, 0u, REDUCE_EMPTY, 0u);
    if (FUNCTION == REDUCE_LOG_SUM_EXP)
        return uvec4(0xff800000u, 0u, 0u, 0u);     /* -inf */
    if (FUNCTION == REDUCE_MULTIPLY)
        return uvec4(FLOAT_DOMAIN ? floatBitsToUint(1.0) : 1u, 0u, 0u, 0u);
    return uvec4(0u);
}

/* Whether value a wins over value b (MAX, ARGMAX: the larger; MIN, ARGMIN: the smaller; NaN first). */
bool wins(uvec2 a, uvec2 b)
{
    if (FLOAT_DOMAIN)
    {
        float x = uintBitsToFloat(a.x), y = uintBitsToFloat(b.x);

        if (isnan(x) || isnan(y))
            return isnan(x) && !isnan(y);
        /* -0 < +0 for MAX and MIN, as element-wise MAX / MIN order them (ARG* call them a tie). */
        if (x == y)
            return LARGEST ? a.x < b.x : a.x > b.x;
        return LARGEST ? x > y : x < y;
    }
#ifdef VKDML_INT64
    if (LONG_DOMAIN)
    {
        uint64_t x = packUint2x32(a), y = packUint2x32(b);

        if (SIGNED)
            return LARGEST ? int64_t(x) > int64_t(y) : int64_t(x) < int64_t(y);
        return LARGEST ? x > y : x < y;
    }
#endif
    if (SIGNED)
        return LARGEST ? int(a.x) > int(b.x) : int(a.x) < int(b.x);
    return LARGEST ? a.x > b.x : a.x < b.x;
}

bool same_value(uvec2 a, uvec2 b)
{
    if (FLOAT_DOMAIN)
    {
        float x = uintBitsToFloat(a.x), y = uintBitsToFloat(b.x);

        return x == y || (isnan(x) && isnan(y));
    }
    return LONG_DOMAIN ? a == b : a.x == b.x;
}

uvec4 combine_extremum(uvec4 a, uvec4 b)
{
    if (a.z == REDUCE_EMPTY)
        return b;
    if (b.z == REDUCE_EMPTY)
        return a;
    if (ARG && same_value(a.xy, b.xy))
        return (LAST_INDEX ? a.z > b.z : a.z < b.z) ? a : b;
    return wins(b.xy, a.xy) ? b : a;
}

/* (max, sum of exp(x - max)), the sum 0 when empty; symmetric in a and b. */
uvec4 combine_log_sum_exp(uvec4 a, uvec4 b)
{
    float max_a = uintBitsToFloat(a.x), max_b = uintBitsToFloat(b.x);
    float sum_a = uintBitsToFloat(a.y), sum_b = uintBitsToFloat(b.y);

    if (isnan(max_a) || sum_b == 0.0)
        return a;
    if (isnan(max_b) || sum_a == 0.0)
        return b;
    if (max_a == max_b)
        return uvec4(a.x, floatBitsToUint(sum_a + sum_b), 0u, 0u);
    if (max_a > max_b)
        return uvec4(a.x, floatBitsToUint(sum_a + sum_b * exp(max_b - max_a)), 0u, 0u);
    return uvec4(b.x, floatBitsToUint(sum_b + sum_a * exp(max_a - max_b)), 0u, 0u);
}

uvec4 combine(uvec4 a, uvec4 b)
{
    if (EXTREMUM)
        return combine_extremum(a, b);
    if (FUNCTION == REDUCE_LOG_SUM_EXP)
        return combine_log_sum_exp(a, b);
    if (FLOAT_DOMAIN)
    {
        float x = uintBitsToFloat(a.x), y = uintBitsToFloat(b.x);

        return uvec4(floatBitsToUint(FUNCTION == REDUCE_MULTIPLY ? x * y : x + y), 0u, 0u, 0u);
    }
#ifdef VKDML_INT64
    if (LONG_DOMAIN)
    {
        uint64_t x = packUint2x32(a.xy), y = packUint2x32(b.xy);

        return uvec4(unpackUint2x32(FUNCTION == REDUCE_MULTIPLY ? x * y : x + y), 0u, 0u);
    }
#endif
    return uvec4(FUNCTION == REDUCE_MULTIPLY ? a.x * b.x : a.x + b.x, 0u, 0u, 0u);
}

VKDML_DEFINE_WORKGROUP_COMBINE(workgroup_combine, uvec4, combine)
VKDML_DEFINE_SUBGROUP_COMBINE(subgroup_combine, uvec4, combine)

/* The state of float `x` at reduced index `r` (FLOAT_DOMAIN). */
uvec4 float_state(float x, uint r)
{
    if (FUNCTION == REDUCE_LOG_SUM_EXP)
        return uvec4(floatBitsToUint(x), floatBitsToUint(1.0), 0u, 0u);
    if (FUNCTION == REDUCE_L1)
        x = abs(x);
    else if (FUNCTION == REDUCE_L2 || FUNCTION == REDUCE_SUM_SQUARE)
        x *= x;
    return uvec4(floatBitsToUint(x), 0u, r, 0u);
}

/* The state of an integer of up to 32 bits, sign- or zero-extended, at reduced index `r`. */
uvec4 int_state(uint bits, uint r)
{
    if (FUNCTION == REDUCE_L1 && SIGNED)
        bits = uint(abs(int(bits)));
    else if (FUNCTION == REDUCE_SUM_SQUARE)
        bits *= bits;
    return uvec4(bits, 0u, r, 0u);
}

#ifdef VKDML_INT64
/* The state of a 64-bit integer at reduced index `r` (LONG_DOMAIN). */
uvec4 long_state(uint64_t x, uint r)
{
    if (FUNCTION == REDUCE_L1 && SIGNED && int64_t(x) < 0l)
        x = uint64_t(-int64_t(x));
    else if (FUNCTION == REDUCE_SUM_SQUARE)
        x *= x;
    return uvec4(unpackUint2x32(x), r, 0u);
}
#endif

/* The state of input element `offset`, reduced index `r`. */
uvec4 element_state(uvec2 input_base, uint offset, uint r)
{
    if (FAST)
        return uvec4(floatBitsToUint(tio_load_float(IN_TYPE, input_base, offset)), 0u, r, 0u);
    if (FLOAT_DOMAIN)
        return float_state(tio_load_float(IN_TYPE, input_base, offset), r);
#ifdef VKDML_INT64
    if (LONG_DOMAIN)
        return long_state(tio_load_long(IN_TYPE, input_base, offset), r);
#endif
    return int_state(tio_load_bits(IN_TYPE, input_base, offset), r);
}

/* VECTOR elements in one load: vector `v` from the input's base, 16 bytes (4 32-bit elements, 8
 * FLOAT16), or 8 bytes of 4 FLOAT16 (in .xy). */
uvec4 load_vector(uvec2 input_base, uint v)
{
    if (IN_TYPE == TIO_TYPE_FLOAT16 && VECTOR == 4u)
        return uvec4(TioPair(tio_element_address(input_base, v, 8u)).v, 0u, 0u);
    return TioVector(tio_element_address(input_base, v, 16u)).v;
}

/* The state of element `j` of `words` (load_vector) at reduced index `r`. */
uvec4 vector_element_state(uvec4 words, uint j, uint r)
{
    if (IN_TYPE == TIO_TYPE_FLOAT16)
    {
        float x = unpackHalf2x16(words[j / 2u] >> (16u * (j % 2u))).x;

        return FAST ? uvec4(floatBitsToUint(x), 0u, r, 0u) : float_state(x, r);
    }
    if (FAST)
        return uvec4(words[j], 0u, r, 0u);
    if (FLOAT_DOMAIN)
        return float_state(uintBitsToFloat(words[j]), r);
    return int_state(words[j], r);
}

/* ---- Accumulators: an invocation's elements, in index order ---- */

struct Acc
{
    uvec4 state;    /* !FAST */
    float value;    /* FAST sums and products; ARG*: the best number so far, NaN before one comes */
    uint index;     /* FAST ARG*: the best number's, REDUCE_EMPTY before one comes */
    uint nan_index; /* FAST ARG*: the first or last NaN's (NaN wins), REDUCE_EMPTY before one comes */
    /* FAST MIN, MAX: the value bits' signed maximum, unsigned minimum and maximum, from which
     * extremum_bits() tells the result: an integer min / max per element and no key. */
    int top;
    uvec2 range;
};

/* Keys no float reaches: NaN's (it wins), and the identity of MIN / MAX / ARG*. */
const int NAN_KEY = LARGEST ? 0x7fffffff : int(0x80000000u);
const int IDENTITY_KEY = LARGEST ? int(0x80000000u) : 0x7fffffff;

/* An integer that orders as the float does: -0 below +0 for MIN and MAX (as combine_extremum()),
 * a tie for ARG*; NaN wins. */
int float_key(float x)
{
    uint bits = floatBitsToUint(x);
    int key = int(bits) >= 0 ? int(bits) : ARG ? -int(bits & 0x7fffffffu) : int(bits ^ 0x7fffffffu);

    return isnan(x) ? NAN_KEY : key;
}

/* float_key's inverse, as a state's value bits (NaN canonical). */
uint key_bits(int key)
{
    if (key == NAN_KEY)
        return 0x7fc00000u;
    if (key >= 0)
        return uint(key);
    return ARG ? uint(-key) | 0x80000000u : uint(key) ^ 0x7fffffffu;
}

Acc acc_identity()
{
    Acc a;

    a.state = identity_state();
    a.value = ARG ? uintBitsToFloat(0x7fc00000u) : FUNCTION == REDUCE_MULTIPLY ? 1.0 : 0.0;
    a.index = a.nan_index = REDUCE_EMPTY;
    a.top = int(0x80000000u);
    a.range = uvec2(0xffffffffu, 0u);
    return a;
}

/* Adds element `e` (element_state(), vector_element_state(): on the FAST path the raw value in x,
 * its reduced index in z), which comes after every element already in `a`. */
void acc_add(inout Acc a, uvec4 e)
{
    float x = uintBitsToFloat(e.x);
    bool better;

    if (!FAST)
    {
        a.state = combine(a.state, e);
        return;
    }
    if (!EXTREMUM)
    {
        if (FUNCTION == REDUCE_L1)
            x = abs(x);
        else if (FUNCTION == REDUCE_L2 || FUNCTION == REDUCE_SUM_SQUARE)
            x *= x;
        a.value = FUNCTION == REDUCE_MULTIPLY ? a.value * x : a.value + x;
        return;
    }
    if (!ARG)
    {
        a.top = max(a.top, int(e.x));
        a.range = uvec2(min(a.range.x, e.x), max(a.range.y, e.x));
        return;
    }
    /* Float compares: ±0 tie; against the initial NaN every number is better. Later indices come
     * last: a tie goes to them only for the last index. NaNs aside, in nan_index. */
    if (LARGEST)
        better = LAST_INDEX ? !(x < a.value) : !(x <= a.value);
    else
        better = LAST_INDEX ? !(x > a.value) : !(x >= a.value);
    if (isnan(x))
        a.nan_index = LAST_INDEX ? e.z : min(a.nan_index, e.z);
    else if (better)
    {
        a.value = x;
        a.index = e.z;
    }
}

/* FAST ARG*'s index: a NaN's, else the best number's. */
uint acc_index(Acc a)
{
    return a.nan_index != REDUCE_EMPTY ? a.nan_index : a.index;
}

/* FAST MIN / MAX of a non-empty `a`: a NaN when a positive one raised the signed maximum above
 * +inf or a negative one the unsigned maximum above -inf; MAX: the largest non-negative value
 * (-0 is negative), else the negative closest to 0; MIN: the negative farthest from 0, else the
 * smallest non-negative value. */
uint extremum_bits(Acc a)
{
    if (a.top > 0x7f800000 || a.range.y > 0xff800000u)
        return 0x7fc00000u;
    if (LARGEST)
        return a.top >= 0 ? uint(a.top) : a.range.x;
    return a.range.y >= 0x80000000u ? a.range.y : a.range.x;
}

/* The key of FAST MIN, MAX, ARG*: IDENTITY_KEY when empty. */
int acc_key(Acc a)
{
    if (ARG)
        return a.nan_index != REDUCE_EMPTY ? NAN_KEY : a.index == REDUCE_EMPTY ? IDENTITY_KEY : float_key(a.value);
    return a.range.y < a.range.x ? IDENTITY_KEY : float_key(uintBitsToFloat(extremum_bits(a)));
}

/* The state of FAST MIN, MAX, ARG* from a key and an index (ARG*). */
uvec4 key_state(int key, uint index)
{
    if (ARG)
        return index == REDUCE_EMPTY ? identity_state() : uvec4(key_bits(key), 0u, index, 0u);
    return key == IDENTITY_KEY ? identity_state() : uvec4(key_bits(key), 0u, 0u, 0u);
}

/* The state of `a`, for combine(). */
uvec4 acc_state(Acc a)
{
    if (!FAST)
        return a.state;
    if (!EXTREMUM)
        return uvec4(floatBitsToUint(a.value), 0u, 0u, 0u);
    return key_state(acc_key(a), acc_index(a));
}

/* MIN, MAX and ARG* of float_key's across invocations: integer subgroup operations, exact, where
 * combine() on states would cost tens of instructions a step. */
VKDML_DEFINE_WORKGROUP_REDUCE(workgroup_max_key, int, subgroupMax, max, int(0x80000000u))
VKDML_DEFINE_WORKGROUP_REDUCE(workgroup_min_key, int, subgroupMin, min, 0x7fffffff)
VKDML_DEFINE_WORKGROUP_REDUCE(workgroup_max_index, uint, subgroupMax, max, 0u)
VKDML_DEFINE_WORKGROUP_REDUCE(workgroup_min_index, uint, subgroupMin, min, REDUCE_EMPTY)

/* ARG*: of the invocations holding the best key, the first or last index (REDUCE_EMPTY when
 * every invocation is empty). */
uint index_candidate(Acc a, int best)
{
    return acc_key(a) == best ? acc_index(a) : LAST_INDEX ? 0u : REDUCE_EMPTY;
}

/* The state of the subgroup's accumulators (every invocation of the subgroup calls, full). */
uvec4 subgroup_reduce(Acc a)
{
    uint index = 0u;
    int best;

    if (!FAST || !EXTREMUM)
        return subgroup_combine(acc_state(a));
    best = LARGEST ? subgroupMax(acc_key(a)) : subgroupMin(acc_key(a));
    if (ARG)
        index = LAST_INDEX ? subgroupMax(index_candidate(a, best)) : subgroupMin(index_candidate(a, best));
    return key_state(best, index);
}

/* The state of the workgroup's accumulators (every invocation of the workgroup calls). */
uvec4 workgroup_reduce(Acc a)
{
    uint index = 0u;
    int best;

    if (!FAST || !EXTREMUM)
        return workgroup_combine(acc_state(a));
    best = LARGEST ? workgroup_max_key(acc_key(a)) : workgroup_min_key(acc_key(a));
    if (ARG)
        index = LAST_INDEX ? workgroup_max_index(index_candidate(a, best))
                : workgroup_min_index(index_candidate(a, best));
    return key_state(best, index);
}

/* Combines the VECTOR elements of `words` (load_vector), reduced indices r, r + 1 ..., in order. */
void acc_add_vector(inout Acc a, uvec4 words, uint r)
{
    [[unroll]] for (uint j = 0u; j < VECTOR; ++j)
        acc_add(a, vector_element_state(words, j, r + j));
}

/* Invocation `lane` of `width` striding over reduced elements [begin, end) of the row at input
 * offset `row`: REDUCE_UNROLL loads in flight, of VECTOR elements where the layout allows
 * (reduce.c: contiguous rows, 4-element aligned, begin and end too), combined in index order. */
Acc stride_row(uvec2 input_base, uint row, uint begin, uint end, uint lane, uint width)
{
    Acc acc = acc_identity();
    uint r, v;

    if (VECTOR > 1u)
    {
        const uint UNROLL = REDUCE_UNROLL / 2u;

        v = (row + begin) / VECTOR + lane;
        for (r = begin + lane * VECTOR; r + (UNROLL - 1u) * width * VECTOR < end; r += UNROLL * width * VECTOR)
        {
            uvec4 words[UNROLL];

            [[unroll]] for (uint u = 0u; u < UNROLL; ++u)
                words[u] = load_vector(input_base, v + u * width);
            [[unroll]] for (uint u = 0u; u < UNROLL; ++u)
                acc_add_vector(acc, words[u], r + u * width * VECTOR);
            v += UNROLL * width;
        }
        for (; r < end; r += width * VECTOR, v += width)
            acc_add_vector(acc, load_vector(input_base, v), r);
        return acc;
    }
    for (r = begin + lane; r + (REDUCE_UNROLL - 1u) * width < end; r += REDUCE_UNROLL * width)
    {
        uvec4 elements[REDUCE_UNROLL];

        [[unroll]] for (uint u = 0u; u < REDUCE_UNROLL; ++u)
            elements[u] = element_state(input_base, row + reduced_offset(r + u * width), r + u * width);
        [[unroll]] for (uint u = 0u; u < REDUCE_UNROLL; ++u)
            acc_add(acc, elements[u]);
    }
    for (; r < end; r += width)
        acc_add(acc, element_state(input_base, row + reduced_offset(r), r));
    return acc;
}

/* ---- Results ---- */

void store_result(uint offset, uvec4 state)
{
    uvec2 base = tensor_address(OUT_SLOT, OUT_OFFSET_LO, OUT_OFFSET_HI);

    if (ARG)
    {
        /* INT64 / UINT64 indices as two words: no int64 arithmetic needed. */
        if (WIDE_INDEX)
        {
            tio_store_bits(TIO_TYPE_UINT32, base, 2u * offset, state.z);
            tio_store_bits(TIO_TYPE_UINT32, base, 2u * offset + 1u, 0u);
        }
        else
        {
            tio_store_bits(OUT_TYPE, base, offset, state.z);
        }
        return;
    }
    if (FLOAT_DOMAIN)
    {
        float value = uintBitsToFloat(state.x);

        if (FUNCTION == REDUCE_AVERAGE)
            value /= float(push.reduced_elements);
        else if (FUNCTION == REDUCE_L2)
            value = sqrt(value);
        else if (FUNCTION == REDUCE_LOG_SUM)
            value = log(value);
        else if (FUNCTION == REDUCE_LOG_SUM_EXP)
            value += log(uintBitsToFloat(state.y));
        tio_store_float(OUT_TYPE, base, offset, value);
        return;
    }
#ifdef VKDML_INT64
    if (LONG_DOMAIN)
    {
        tio_store_long(base, offset, packUint2x32(state.xy));
        return;
    }
#endif
    tio_store_bits(OUT_TYPE, base, offset, state.x);
}

const uint PARTIAL_WORDS = uint(REDUCE_PARTIAL_WORDS(FUNCTION, LONG_DOMAIN));

uvec2 partial_address(uint output_index, uint part)
{
    return tio_element_address(tensor_address(TEMP_SLOT, TEMP_OFFSET_LO, TEMP_OFFSET_HI),
            part * push.kept_elements + output_index, 4u * PARTIAL_WORDS);
}

/* A non-empty state's PARTIAL_WORDS words, first, and back. */
uvec4 pack_state(uvec4 state)
{
    return PARTIAL_WORDS == 2u && ARG ? state.xzyw : state;
}

uvec4 unpack_state(uvec4 words)
{
    if (PARTIAL_WORDS == 1u)
        return uvec4(words.x, 0u, 0u, 0u);
    if (PARTIAL_WORDS == 4u)
        return words;
    return ARG ? uvec4(words.x, 0u, words.y, 0u) : uvec4(words.xy, 0u, 0u);
}

void store_partial(uint output_index, uint part, uvec4 state)
{
    uvec2 address = partial_address(output_index, part);
    uvec4 words = pack_state(state);

    if (PARTIAL_WORDS == 1u)
        TioWord(address).v = words.x;
    else if (PARTIAL_WORDS == 2u)
        TioPair(address).v = words.xy;
    else
        TioVector(address).v = words;
}

uvec4 load_partial(uint output_index, uint part)
{
    uvec2 address = partial_address(output_index, part);

    if (PARTIAL_WORDS == 1u)
        return unpack_state(uvec4(TioWord(address).v, 0u, 0u, 0u));
    if (PARTIAL_WORDS == 2u)
        return unpack_state(uvec4(TioPair(address).v, 0u, 0u));
    return unpack_state(TioVector(address).v);
}

/* A part's state: into the temporary resource, or finished into the output. */
void finish(uint output_index, uint part, uint out_offset, uvec4 state)
{
    if (PARTIAL)
        store_partial(output_index, part, state);
    else
        store_result(out_offset, state);
}

/* ---- Modes ---- */

void row_main(uint group)
{
    uint output_index = group / push.parts, part = group % push.parts, in_offset, out_offset, begin, end;
    uvec2 input_base = tensor_address(IN_SLOT, IN_OFFSET_LO, IN_OFFSET_HI);
    uvec4 state;

    /* Uniform across the workgroup, so the barriers of workgroup_combine() stay uniform. */
    if (output_index >= push.kept_elements)
        return;
    kept_offsets(output_index, in_offset, out_offset);
    begin = part * push.part_size;
    end = min(push.reduced_elements, begin + push.part_size);
    state = workgroup_reduce(stride_row(input_base, in_offset, begin, end, gl_LocalInvocationIndex, REDUCE_THREADS));
    if (gl_LocalInvocationIndex == 0u)
        finish(output_index, part, out_offset, state);
}

/* An output per subgroup: rows too short to keep a workgroup busy. */
void subgroup_row(uvec2 input_base, uint output_index)
{
    uint in_offset, out_offset;
    uvec4 state;

    kept_offsets(output_index, in_offset, out_offset);
    state = subgroup_reduce(stride_row(input_base, in_offset, 0u, push.reduced_elements, gl_SubgroupInvocationID,
            gl_SubgroupSize));
    if (subgroupElect())
        store_result(out_offset, state);
}

/* The C side counts rows per workgroup with the device's subgroup size; a grid-stride loop keeps
 * every row covered should the pipeline run with another. */
void subgroup_row_main(uint group)
{
    uint stride = gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_NumWorkGroups.z * gl_NumSubgroups, output_index;
    uvec2 input_base = tensor_address(IN_SLOT, IN_OFFSET_LO, IN_OFFSET_HI);

    /* Uniform across the subgroup, which stays full for the shuffles. */
    for (output_index = group * gl_NumSubgroups + gl_SubgroupID; output_index < push.kept_elements;
            output_index += stride)
        subgroup_row(input_base, output_index);
}

/* An invocation's reduced elements begin, begin + step ... below end of the column at input offset
 * `column`. */
uvec4 stride_column(uvec2 input_base, uint column, uint begin, uint end, uint step)
{
    uint stride = REDUCED_COUNT == 1u ? push.dims[REDUCED_STRIDES] : 0u, r;
    Acc acc = acc_identity();

    if (REDUCED_COUNT > 1u)
    {
        for (r = begin; r < end; r += step)
            acc_add(acc, element_state(input_base, column + reduced_offset(r), r));
        return acc_state(acc);
    }
    for (r = begin; r + (REDUCE_UNROLL - 1u) * step < end; r += REDUCE_UNROLL * step)
    {
        uvec4 elements[REDUCE_UNROLL];

        [[unroll]] for (uint u = 0u; u < REDUCE_UNROLL; ++u)
            elements[u] = element_state(input_base, column + (r + u * step) * stride, r + u * step);
        [[unroll]] for (uint u = 0u; u < REDUCE_UNROLL; ++u)
            acc_add(acc, elements[u]);
    }
    for (; r < end; r += step)
        acc_add(acc, element_state(input_base, column + r * stride, r));
    return acc_state(acc);
}

/* VECTOR adjacent columns (adjacent outputs) from vector loads (reduce.c: one reduced dimension,
 * contiguous kept elements, everything a multiple of the vector), reduced elements begin,
 * begin + step ... below end, accumulated into accs[j]. */
void stride_column_vectors(uvec2 input_base, uint column, uint begin, uint end, uint step, inout Acc accs[VECTOR])
{
    const uint UNROLL = REDUCE_UNROLL;
    uint stride = push.dims[REDUCED_STRIDES] / VECTOR, v = column / VECTOR, r;

    for (r = begin; r + (UNROLL - 1u) * step < end; r += UNROLL * step)
    {
        uvec4 words[UNROLL];

        [[unroll]] for (uint u = 0u; u < UNROLL; ++u)
            words[u] = load_vector(input_base, v + (r + u * step) * stride);
        [[unroll]] for (uint u = 0u; u < UNROLL; ++u)
        {
            [[unroll]] for (uint j = 0u; j < VECTOR; ++j)
                acc_add(accs[j], vector_element_state(words[u], j, r + u * step));
        }
    }
    for (; r < end; r += step)
    {
        uvec4 words = load_vector(input_base, v + r * stride);

        [[unroll]] for (uint j = 0u; j < VECTOR; ++j)
            acc_add(accs[j], vector_element_state(words, j, r));
    }
}

/* COLUMN's lanes (VECTOR adjacent columns each) per workgroup, and the words of the slices' tree. */
const uint COLUMN_LANES = REDUCE_THREADS / SLICES;
const uint SLICE_STATES = VECTOR < REDUCE_SLICE_WORDS / PARTIAL_WORDS ? VECTOR : REDUCE_SLICE_WORDS / PARTIAL_WORDS;
shared uint slice_words[SLICES > 1u ? REDUCE_SLICE_WORDS * REDUCE_THREADS : 1u];

/* Combines the SLICES slices' states into slice 0's, slice s with s + h for h = SLICES / 2 ... 1:
 * a fixed order, the same on every run. Slice t (reduced elements begin + t, begin + t + SLICES
 * ...) is empty when begin + t >= end, and then so are the slices above it that its tree holds:
 * those are never combined. Every invocation of the workgroup calls. */
void combine_slices(inout uvec4 states[VECTOR], uint slice, uint begin, uint end)
{
    [[unroll]] for (uint j0 = 0u; j0 < VECTOR; j0 += SLICE_STATES)
    {
        for (uint h = SLICES / 2u; h > 0u; h /= 2u)
        {
            if (slice >= h && slice < 2u * h)
            {
                [[unroll]] for (uint k = 0u; k < SLICE_STATES; ++k)
                {
                    uvec4 words = pack_state(states[j0 + k]);

                    [[unroll]] for (uint w = 0u; w < PARTIAL_WORDS; ++w)
                        slice_words[((k * PARTIAL_WORDS + w) * REDUCE_THREADS) + gl_LocalInvocationIndex] = words[w];
                }
            }
            barrier();
            if (slice < h && begin + slice + h < end)
            {
                uint partner = gl_LocalInvocationIndex + h * COLUMN_LANES;

                [[unroll]] for (uint k = 0u; k < SLICE_STATES; ++k)
                {
                    uvec4 words = uvec4(0u);

                    [[unroll]] for (uint w = 0u; w < PARTIAL_WORDS; ++w)
                        words[w] = slice_words[((k * PARTIAL_WORDS + w) * REDUCE_THREADS) + partner];
                    states[j0 + k] = combine(states[j0 + k], unpack_state(words));
                }
            }
            barrier();
        }
    }
}

/* An invocation per VECTOR adjacent outputs, slice and part. */
void column_main(uint group)
{
    uint tiles = (push.kept_elements / VECTOR + COLUMN_LANES - 1u) / COLUMN_LANES, part = group / tiles;
    uint lane = gl_LocalInvocationIndex % COLUMN_LANES, slice = gl_LocalInvocationIndex / COLUMN_LANES;
    uint first = ((group % tiles) * COLUMN_LANES + lane) * VECTOR, in_offset, out_offset, begin, end, out_stride;
    uvec2 input_base = tensor_address(IN_SLOT, IN_OFFSET_LO, IN_OFFSET_HI);
    bool owns_columns = first < push.kept_elements;
    uvec4 states[VECTOR];
    Acc accs[VECTOR];

    /* Uniform across the workgroup, so the barriers of combine_slices() stay uniform. */
    if (part >= push.parts)
        return;
    begin = part * push.part_size;
    end = min(push.reduced_elements, begin + push.part_size);
    [[unroll]] for (uint j = 0u; j < VECTOR; ++j)
        accs[j] = acc_identity();
    if (owns_columns)
    {
        kept_offsets(first, in_offset, out_offset);
        if (VECTOR == 1u)
            states[0] = stride_column(input_base, in_offset, begin + slice, end, SLICES);
        else
            stride_column_vectors(input_base, in_offset, begin + slice, end, SLICES, accs);
    }
    if (VECTOR > 1u || !owns_columns)
    {
        [[unroll]] for (uint j = 0u; j < VECTOR; ++j)
            states[j] = acc_state(accs[j]);
    }
    if (SLICES > 1u)
        combine_slices(states, slice, begin, end);
    if (!owns_columns || slice != 0u)
        return;
    out_stride = push.dims[KEPT_OUT_STRIDES + KEPT_COUNT - 1u];
    [[unroll]] for (uint j = 0u; j < VECTOR; ++j)
        finish(first + j, part, out_offset + j * out_stride, states[j]);
}

void combine_main(uint group)
{
    uint output_index = group * REDUCE_THREADS + gl_LocalInvocationIndex, in_offset, out_offset, part = 0u;
    uvec4 state = identity_state();

    if (output_index >= push.kept_elements)
        return;
    for (; part + REDUCE_COMBINE_UNROLL <= push.parts; part += REDUCE_COMBINE_UNROLL)
    {
        uvec4 partials[REDUCE_COMBINE_UNROLL];

        [[unroll]] for (uint u = 0u; u < REDUCE_COMBINE_UNROLL; ++u)
            partials[u] = load_partial(output_index, part + u);
        [[unroll]] for (uint u = 0u; u < REDUCE_COMBINE_UNROLL; ++u)
            state = combine(state, partials[u]);
    }
    for (; part < push.parts; ++part)
        state = combine(state, load_partial(output_index, part));
    kept_offsets(output_index, in_offset, out_offset);
    store_result(out_offset, state);
}

/* COMBINE with a workgroup per output: many parts over few outputs (a whole-tensor reduction). */
void combine_row_main(uint group)
{
    uint output_index = group, in_offset, out_offset, part;
    uvec4 state = identity_state();

    if (output_index >= push.kept_elements)
        return;
    for (part = gl_LocalInvocationIndex; part < push.parts; part += REDUCE_THREADS)
        state = combine(state, load_partial(output_index, part));
    state = workgroup_combine(state);
    if (gl_LocalInvocationIndex != 0u)
        return;
    kept_offsets(output_index, in_offset, out_offset);
    store_result(out_offset, state);
}

void main()
{
    uint group = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);

    if (MODE == REDUCE_MODE_ROW)
        row_main(group);
    else if (MODE == REDUCE_MODE_SUBGROUP_ROW)
        subgroup_row_main(group);
    else if (MODE == REDUCE_MODE_COLUMN)
        column_main(group);
    else if (MODE == REDUCE_MODE_COMBINE)
        combine_main(group);
    else
        combine_row_main(group);
}
