#version 460
#extension GL_GOOGLE_include_directive : require
/*
 * ACTIVATION_SOFTMAX, ACTIVATION_LOG_SOFTMAX, ACTIVATION_HARDMAX and their `1` forms over any
 * set of reduced axes (softmax_interface.h has the layout and the paths). fp32 math for
 * FLOAT32 and FLOAT16 tensors (VKDML_STORAGE_16BIT variant).
 *
 * Numerics (README, "Softmax, log-softmax and hardmax"): the row's maximum is subtracted before
 * exp; NaN entries are left out of the maximum and make the sum, hence the whole row, NaN; a row
 * whose maximum is -inf gives NaN (-inf - -inf). Hardmax writes 1 at the first maximum in
 * row-major order of the reduced dimensions, a NaN counting as larger than every number.
 *
 * In place (output bound over the input): each element is read and written by one invocation,
 * and every read of a row precedes the workgroup reduction (a barrier) before any write, so a
 * row is read whole before it is written.
 */
#include "common.glsl"
#include "dml_interface.h"
#include "tensor_io.glsl"
#include "reduce_common.glsl"
#include "softmax_interface.h"

layout(local_size_x_id = SOFTMAX_SPEC_THREADS, local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(constant_id = SOFTMAX_SPEC_FUNCTION) const uint FUNCTION = SOFTMAX_FUNCTION_SOFTMAX;
layout(constant_id = SOFTMAX_SPEC_TYPE) const uint TYPE = TIO_TYPE_FLOAT32;
layout(constant_id = SOFTMAX_SPEC_PATH) const uint PATH = SOFTMAX_PATH_REGISTERS;
layout(constant_id = SOFTMAX_SPEC_PER_THREAD) const uint PER_THREAD = 1;
layout(constant_id = SOFTMAX_SPEC_VECTOR) const uint VECTOR = 1;
layout(constant_id = SOFTMAX_SPEC_SLICES) const uint SLICES = 1;
layout(constant_id = SOFTMAX_SPEC_COLUMN_WIDTH) const uint COLUMN_WIDTH = 1;
layout(constant_id = SOFTMAX_SPEC_TEAM) const uint TEAM = 0;
layout(constant_id = SOFTMAX_SPEC_CHUNKS) const uint CHUNKS = 1;
layout(constant_id = SOFTMAX_SPEC_CHUNK_LENGTH) const uint CHUNK_LENGTH = 1;
layout(constant_id = SOFTMAX_SPEC_ROWS) const uint ROWS = 1;
layout(constant_id = SOFTMAX_SPEC_LENGTH) const uint LENGTH = 1;

#define DECLARE_DIMS(base, name, value) \
    layout(constant_id = base + 0) const uint name##_0 = value; \
    layout(constant_id = base + 1) const uint name##_1 = value; \
    layout(constant_id = base + 2) const uint name##_2 = value; \
    layout(constant_id = base + 3) const uint name##_3 = value; \
    layout(constant_id = base + 4) const uint name##_4 = value; \
    layout(constant_id = base + 5) const uint name##_5 = value; \
    layout(constant_id = base + 6) const uint name##_6 = value; \
    layout(constant_id = base + 7) const uint name##_7 = value;

DECLARE_DIMS(SOFTMAX_SPEC_KEPT_SIZES, KEPT_SIZE, 1)
DECLARE_DIMS(SOFTMAX_SPEC_KEPT_IN_STRIDES, KEPT_IN, 0)
DECLARE_DIMS(SOFTMAX_SPEC_KEPT_OUT_STRIDES, KEPT_OUT, 0)
DECLARE_DIMS(SOFTMAX_SPEC_REDUCED_SIZES, REDUCED_SIZE, 1)
DECLARE_DIMS(SOFTMAX_SPEC_REDUCED_IN_STRIDES, REDUCED_IN, 0)
DECLARE_DIMS(SOFTMAX_SPEC_REDUCED_OUT_STRIDES, REDUCED_OUT, 0)

layout(constant_id = SOFTMAX_SPEC_IN_LOCATION + 0) const uint IN_SLOT = 0;
layout(constant_id = SOFTMAX_SPEC_IN_LOCATION + 1) const uint IN_OFFSET_LO = 0;
layout(constant_id = SOFTMAX_SPEC_IN_LOCATION + 2) const uint IN_OFFSET_HI = 0;
layout(constant_id = SOFTMAX_SPEC_OUT_LOCATION + 0) const uint OUT_SLOT = 0;
layout(constant_id = SOFTMAX_SPEC_OUT_LOCATION + 1) const uint OUT_OFFSET_LO = 0;
layout(constant_id = SOFTMAX_SPEC_OUT_LOCATION + 2) const uint OUT_OFFSET_HI = 0;
layout(constant_id = SOFTMAX_SPEC_TEMP_LOCATION + 0) const uint TEMP_SLOT = 0;
layout(constant_id = SOFTMAX_SPEC_TEMP_LOCATION + 1) const uint TEMP_OFFSET_LO = 0;
layout(constant_id = SOFTMAX_SPEC_TEMP_LOCATION + 2) const uint TEMP_OFFSET_HI = 0;

const uint THREADS = gl_WorkGroupSize.x;
#define NEG_INF uintBitsToFloat(0xff800000u)
#define POS_INF uintBitsToFloat(0x7f800000u)
#define NAN uintBitsToFloat(0x7fc00000u)

/* ---- Element offsets (input, output) of a row and of an entry of a row ---- */

#define OFFSET_STEP(index, offsets, SIZE, IN, OUT, d) \
    offsets += (index % SIZE##_##d) * uvec2(IN##_##d, OUT##_##d); \
    index /= SIZE##_##d;

#define OFFSETS_OF(index, offsets, SIZE, IN, OUT) \
    OFFSET_STEP(index, offsets, SIZE, IN, OUT, 7) OFFSET_STEP(index, offsets, SIZE, IN, OUT, 6) \
    OFFSET_STEP(index, offsets, SIZE, IN, OUT, 5) OFFSET_STEP(index, offsets, SIZE, IN, OUT, 4) \
    OFFSET_STEP(index, offsets, SIZE, IN, OUT, 3) OFFSET_STEP(index, offsets, SIZE, IN, OUT, 2) \
    OFFSET_STEP(index, offsets, SIZE, IN, OUT, 1) OFFSET_STEP(index, offsets, SIZE, IN, OUT, 0)

uvec2 row_offsets(uint row)
{
    uvec2 offsets = uvec2(0u);

    OFFSETS_OF(row, offsets, KEPT_SIZE, KEPT_IN, KEPT_OUT)
    return offsets;
}

uvec2 entry_offsets(uint entry)
{
    uvec2 offsets = uvec2(0u);

    OFFSETS_OF(entry, offsets, REDUCED_SIZE, REDUCED_IN, REDUCED_OUT)
    return offsets;
}

uvec2 in_base;
uvec2 out_base;

float load_entry(uvec2 row, uint entry)
{
    return tio_load_float(TYPE, in_base, row.x + entry_offsets(entry).x);
}

void store_entry(uvec2 row, uint entry, float value)
{
    tio_store_float(TYPE, out_base, row.y + entry_offsets(entry).y, value);
}

/* ---- Numerics ---- */

bool is_nan(float x)
{
    return (floatBitsToUint(x) & 0x7fffffffu) > 0x7f800000u;
}

/* An unsigned key in the order of the values: -0 and +0 equal, every NaN above +inf, and 0 below
 * every value's key (the "no entry" key). */
uint order_key(float x)
{
    uint bits = floatBitsToUint(x), magnitude = bits & 0x7fffffffu;

    if (magnitude > 0x7f800000u)
        bits = 0x7fc00000u;
    else if (magnitude == 0u)
        bits = 0u;
    return (bits & 0x80000000u) != 0u ? ~bits : bits | 0x80000000u;
}

float add(float a, float b)
{
    return a + b;
}

VKDML_DEFINE_WORKGROUP_REDUCE(workgroup_max, float, subgroupMax, max, NEG_INF)
VKDML_DEFINE_WORKGROUP_REDUCE(workgroup_sum, float, subgroupAdd, add, 0.0)
VKDML_DEFINE_WORKGROUP_REDUCE(workgroup_max_key, uint, subgroupMax, max, 0u)
VKDML_DEFINE_WORKGROUP_REDUCE(workgroup_min_index, uint, subgroupMin, min, 0xffffffffu)

/* A running maximum (NaN left out) and the sum of exp(x - max) over the entries seen: the sum is
 * rescaled when the maximum grows. -inf entries add exactly 0 (exp(-inf - -inf) would be NaN
 * while the maximum is -inf); a +inf maximum adds exp(inf - inf) = NaN, as the registers path
 * does. */
struct online_state
{
    float max_value;
    float sum;
};

void online_add(inout online_state state, float x)
{
    if (x > state.max_value)
    {
        state.sum = state.sum * exp(state.max_value - x) + (x == POS_INF ? NAN : 1.0);
        state.max_value = x;
    }
    else if (x != NEG_INF)
    {
        state.sum += exp(x - state.max_value);
    }
}

/* The sum rescaled to the maximum `row_max` >= state.max_value (0 stays 0, NaN stays NaN). */
float online_rescaled_sum(online_state state, float row_max)
{
    return state.sum == 0.0 ? 0.0 : state.sum * exp(state.max_value - row_max);
}

/* The first maximum so far: entries come in increasing order, so a tie keeps the earlier one. */
void argmax_add(inout uint best_key, inout uint best_entry, float x, uint entry)
{
    uint key = order_key(x);

    if (key > best_key)
    {
        best_key = key;
        best_entry = entry;
    }
}

/* The row's first maximum from each invocation's (key, first entry). */
uint workgroup_argmax(uint best_key, uint best_entry)
{
    uint row_key = workgroup_max_key(best_key);

    return workgroup_min_index(best_key == row_key ? best_entry : 0xffffffffu);
}

/* What a row's outputs need of its sum, once per row: its log (log-softmax), else its reciprocal. */
float row_scale(float row_sum)
{
    return FUNCTION == SOFTMAX_FUNCTION_LOG_SOFTMAX ? log(row_sum) : 1.0 / row_sum;
}

/* The output of entry x of a row of maximum `row_max` (`scale`: row_scale() of its sum). */
float softmax_output(float x, float row_max, float scale)
{
    if (FUNCTION == SOFTMAX_FUNCTION_LOG_SOFTMAX)
        return x - row_max - scale;
    return exp(x - row_max) * scale;
}

/* ---- Paths ---- */

/* Vectors of VECTOR entries: entry v * VECTOR + k of a row is vector v's element k (VECTOR > 1
 * only for rows contiguous in both tensors, 16-byte aligned: one 16-byte load or store). A vector
 * stays as loaded (FLOAT16 packed two per word; VECTOR 1: the entry's fp32 bits), so that a row
 * of fp16 takes half the registers of fp32: exp is computed again in the writing pass rather than
 * kept. */
uvec4 load_raw(uvec2 row, uint vector_index)
{
    if (VECTOR == 1u)
        return uvec4(floatBitsToUint(load_entry(row, vector_index)), 0u, 0u, 0u);
    return TioVector(tio_element_address(in_base, row.x + vector_index * VECTOR, tio_element_size(TYPE))).v;
}

/* Element k of a loaded vector. */
float raw_element(uvec4 bits, uint k)
{
    if (VECTOR == 1u)
        return uintBitsToFloat(bits.x);
    if (TYPE == TIO_TYPE_FLOAT16)
        return unpackHalf2x16(bits[k / 2u])[k % 2u];
    return uintBitsToFloat(bits[k]);
}

void store_vector(uvec2 row, uint vector_index, float outputs[VECTOR])
{
    uvec4 bits;
    uint k;

    if (VECTOR == 1u)
    {
        store_entry(row, vector_index, outputs[0]);
        return;
    }
    [[unroll]] for (k = 0u; k < 4u; ++k)
    {
        if (TYPE == TIO_TYPE_FLOAT16)
            bits[k] = packHalf2x16(vec2(outputs[2u * k], outputs[2u * k + 1u]));
        else
            bits[k] = floatBitsToUint(outputs[k]);
    }
    TioVector(tio_element_address(out_base, row.y + vector_index * VECTOR, tio_element_size(TYPE))).v = bits;
}

/* The output of entry `entry`, of value x: hardmax's 1 at entry `winner`, else softmax_output(). */
float output_of(float x, uint entry, float row_max, float scale, uint winner)
{
    if (FUNCTION == SOFTMAX_FUNCTION_HARDMAX)
        return entry == winner ? 1.0 : 0.0;
    return softmax_output(x, row_max, scale);
}

void write_vector(uvec2 row, uint v, uvec4 bits, float row_max, float scale, uint winner)
{
    float outputs[VECTOR];
    uint j;

    [[unroll]] for (j = 0u; j < VECTOR; ++j)
        outputs[j] = output_of(raw_element(bits, j), v * VECTOR + j, row_max, scale, winner);
    store_vector(row, v, outputs);
}

/* The registers path's reductions: over the workgroup, or over a team of TEAM adjacent lanes of a
 * subgroup (butterfly: every lane adds the same pairs in the same order, so all get the same bits). */
const uint ROW_THREADS = TEAM > 0u ? TEAM : THREADS;

/* The registers path's vectors of the invocation: its i-th in raw[i]. */
uvec4 raw[PER_THREAD];

float row_reduce_max(float value)
{
    uint mask;

    if (TEAM == 0u)
        return workgroup_max(value);
    for (mask = TEAM / 2u; mask > 0u; mask /= 2u)
        value = max(value, subgroupShuffleXor(value, mask));
    return value;
}

float row_reduce_sum(float value)
{
    uint mask;

    if (TEAM == 0u)
        return workgroup_sum(value);
    for (mask = TEAM / 2u; mask > 0u; mask /= 2u)
        value += subgroupShuffleXor(value, mask);
    return value;
}

uint row_argmax(uint best_key, uint best_entry)
{
    uint mask, row_key = best_key;

    if (TEAM == 0u)
        return workgroup_argmax(best_key, best_entry);
    for (mask = TEAM / 2u; mask > 0u; mask /= 2u)
        row_key = max(row_key, subgroupShuffleXor(row_key, mask));
    best_entry = best_key == row_key ? best_entry : 0xffffffffu;
    for (mask = TEAM / 2u; mask > 0u; mask /= 2u)
        best_entry = min(best_entry, subgroupShuffleXor(best_entry, mask));
    return best_entry;
}

/* `tid`: the invocation's index in the workgroup, or in its team. */
void row_in_registers(uint row_index, uint tid)
{
    uvec2 row = row_offsets(row_index);
    uint best_key = 0u, best_entry = 0xffffffffu, winner = 0u, i, k;
    float row_max = NEG_INF, row_sum = 0.0, scale = 0.0;

    [[unroll]] for (i = 0u; i < PER_THREAD; ++i)
    {
        if ((tid + i * ROW_THREADS) * VECTOR < LENGTH)
            raw[i] = load_raw(row, tid + i * ROW_THREADS);
    }
    [[unroll]] for (i = 0u; i < PER_THREAD; ++i)
    {
        uint vector_index = tid + i * ROW_THREADS;

        if (vector_index * VECTOR >= LENGTH)
            continue;
        [[unroll]] for (k = 0u; k < VECTOR; ++k)
        {
            float x = raw_element(raw[i], k);

            if (FUNCTION == SOFTMAX_FUNCTION_HARDMAX)
                argmax_add(best_key, best_entry, x, vector_index * VECTOR + k);
            else if (!is_nan(x))
                row_max = max(row_max, x);
        }
    }
    if (FUNCTION == SOFTMAX_FUNCTION_HARDMAX)
    {
        winner = row_argmax(best_key, best_entry);
    }
    else
    {
        row_max = row_reduce_max(row_max);
        [[unroll]] for (i = 0u; i < PER_THREAD; ++i)
        {
            if ((tid + i * ROW_THREADS) * VECTOR >= LENGTH)
                continue;
            [[unroll]] for (k = 0u; k < VECTOR; ++k)
                row_sum += exp(raw_element(raw[i], k) - row_max);
        }
        scale = row_scale(row_reduce_sum(row_sum));
    }
    [[unroll]] for (i = 0u; i < PER_THREAD; ++i)
    {
        if ((tid + i * ROW_THREADS) * VECTOR < LENGTH)
            write_vector(row, tid + i * ROW_THREADS, raw[i], row_max, scale, winner);
    }
}

void accumulate_entry(inout online_state state, inout uint best_key, inout uint best_entry, float x, uint entry)
{
    if (FUNCTION == SOFTMAX_FUNCTION_HARDMAX)
        argmax_add(best_key, best_entry, x, entry);
    else
        online_add(state, x);
}

/* The online state (hardmax: the first maximum) of vectors first, first + step, ... below end,
 * loaded four at a time so that four loads are in flight. */
void accumulate(uvec2 row, uint first, uint end, uint step, inout online_state state, inout uint best_key,
        inout uint best_entry)
{
    uint v = first, k, j;

    for (; v + 3u * step < end; v += 4u * step)
    {
        uvec4 bits[4] = uvec4[4](load_raw(row, v), load_raw(row, v + step), load_raw(row, v + 2u * step),
                load_raw(row, v + 3u * step));

        [[unroll]] for (k = 0u; k < 4u; ++k)
        {
            [[unroll]] for (j = 0u; j < VECTOR; ++j)
                accumulate_entry(state, best_key, best_entry, raw_element(bits[k], j), (v + k * step) * VECTOR + j);
        }
    }
    for (; v < end; v += step)
    {
        uvec4 bits = load_raw(row, v);

        [[unroll]] for (j = 0u; j < VECTOR; ++j)
            accumulate_entry(state, best_key, best_entry, raw_element(bits, j), v * VECTOR + j);
    }
}

/* Writes the outputs of vectors first, first + step, ... below end: four loads (none for hardmax),
 * then their four stores (the output may be the input, so the compiler cannot move loads past
 * stores itself). */
void normalize_vectors(uvec2 row, uint first, uint end, uint step, float row_max, float scale, uint winner)
{
    uvec4 bits[4] = uvec4[4](uvec4(0u), uvec4(0u), uvec4(0u), uvec4(0u));
    uint v = first, k;

    for (; v + 3u * step < end; v += 4u * step)
    {
        [[unroll]] for (k = 0u; k < 4u && FUNCTION != SOFTMAX_FUNCTION_HARDMAX; ++k)
            bits[k] = load_raw(row, v + k * step);
        [[unroll]] for (k = 0u; k < 4u; ++k)
            write_vector(row, v + k * step, bits[k], row_max, scale, winner);
    }
    for (; v < end; v += step)
    {
        if (FUNCTION != SOFTMAX_FUNCTION_HARDMAX)
            bits[0] = load_raw(row, v);
        write_vector(row, v, bits[0], row_max, scale, winner);
    }
}

void row_two_pass(uint row_index)
{
    uvec2 row = row_offsets(row_index);
    uint tid = gl_LocalInvocationIndex, best_key = 0u, best_entry = 0xffffffffu;
    online_state state = online_state(NEG_INF, 0.0);
    float row_max, row_sum;

    accumulate(row, tid, LENGTH / VECTOR, THREADS, state, best_key, best_entry);
    if (FUNCTION == SOFTMAX_FUNCTION_HARDMAX)
    {
        normalize_vectors(row, tid, LENGTH / VECTOR, THREADS, 0.0, 0.0, workgroup_argmax(best_key, best_entry));
        return;
    }
    row_max = workgroup_max(state.max_value);
    row_sum = workgroup_sum(online_rescaled_sum(state, row_max));
    normalize_vectors(row, tid, LENGTH / VECTOR, THREADS, row_max, row_scale(row_sum), 0u);
}

/* Columns path: TILE rows per workgroup, adjacent in memory, COLUMN_WIDTH (1, or 2, 4, 8 where
 * that many rows are adjacent and aligned) per invocation and loaded together, each split into
 * SLICES interleaved parts (entry e in slice e % SLICES), an invocation per part; the parts' states
 * are combined through shared memory (share_columns()). */
const uint COLUMNS = THREADS / SLICES;
const uint TILE = COLUMNS * COLUMN_WIDTH;

/* Slice s's state of the workgroup's row r at s * TILE + r: (max, sum), hardmax (key, first entry). */
shared uint column_a[THREADS * COLUMN_WIDTH];
shared uint column_b[THREADS * COLUMN_WIDTH];

/* Entry `entry` of the invocation's COLUMN_WIDTH rows (the first of them at `row`). */
void load_columns(uvec2 row, uint entry, out float x[SOFTMAX_MAX_COLUMN_WIDTH])
{
    uint at = row.x + entry_offsets(entry).x, bytes = COLUMN_WIDTH * tio_element_size(TYPE), k;
    uvec2 address = tio_element_address(in_base, at, tio_element_size(TYPE));
    uvec4 bits = uvec4(0u);

    if (COLUMN_WIDTH == 1u)
    {
        x[0] = tio_load_float(TYPE, in_base, at);
        return;
    }
    if (bytes == 4u)
        bits.x = TioWord(address).v;
    else if (bytes == 8u)
        bits.xy = TioPair(address).v;
    else
        bits = TioVector(address).v;
    [[unroll]] for (k = 0u; k < COLUMN_WIDTH; ++k)
        x[k] = TYPE == TIO_TYPE_FLOAT16 ? unpackHalf2x16(bits[k / 2u])[k % 2u] : uintBitsToFloat(bits[k]);
}

void store_columns(uvec2 row, uint entry, float y[SOFTMAX_MAX_COLUMN_WIDTH])
{
    uint at = row.y + entry_offsets(entry).y, bytes = COLUMN_WIDTH * tio_element_size(TYPE), k;
    uvec2 address = tio_element_address(out_base, at, tio_element_size(TYPE));
    uvec4 bits;

    if (COLUMN_WIDTH == 1u)
    {
        tio_store_float(TYPE, out_base, at, y[0]);
        return;
    }
    [[unroll]] for (k = 0u; k < 4u; ++k)
    {
        if (TYPE == TIO_TYPE_FLOAT16)
            bits[k] = packHalf2x16(vec2(y[2u * k], y[2u * k + 1u]));
        else
            bits[k] = floatBitsToUint(y[k]);
    }
    if (bytes == 4u)
        TioWord(address).v = bits.x;
    else if (bytes == 8u)
        TioPair(address).v = bits.xy;
    else
        TioVector(address).v = bits;
}

/* The online states of the invocation's rows over entries first, first + SLICES, ... below end,
 * four loads in flight. */
void accumulate_columns(uvec2 row, uint first, uint end, inout online_state state[SOFTMAX_MAX_COLUMN_WIDTH],
        inout uint best_key[SOFTMAX_MAX_COLUMN_WIDTH], inout uint best_entry[SOFTMAX_MAX_COLUMN_WIDTH])
{
    float x[4][SOFTMAX_MAX_COLUMN_WIDTH];
    uint entry = first, k, w;

    for (; entry + 3u * SLICES < end; entry += 4u * SLICES)
    {
        [[unroll]] for (k = 0u; k < 4u; ++k)
            load_columns(row, entry + k * SLICES, x[k]);
        [[unroll]] for (k = 0u; k < 4u; ++k)
        {
            [[unroll]] for (w = 0u; w < COLUMN_WIDTH; ++w)
                accumulate_entry(state[w], best_key[w], best_entry[w], x[k][w], entry + k * SLICES);
        }
    }
    for (; entry < end; entry += SLICES)
    {
        load_columns(row, entry, x[0]);
        [[unroll]] for (w = 0u; w < COLUMN_WIDTH; ++w)
            accumulate_entry(state[w], best_key[w], best_entry[w], x[0][w], entry);
    }
}

/* Combines the states of the workgroup's row r in slices first, first + step, ... (count of them,
 * in that order) into the first one's slot; only this invocation touches those slots until the
 * next barrier. */
void combine_slices(uint r, uint first, uint count, uint step)
{
    online_state state = online_state(NEG_INF, 0.0);
    uint best_key = 0u, best_entry = 0xffffffffu, i;

    for (i = 0u; i < count; ++i)
    {
        state.max_value = max(state.max_value, uintBitsToFloat(column_a[(first + i * step) * TILE + r]));
        best_key = max(best_key, column_a[(first + i * step) * TILE + r]);
    }
    for (i = 0u; i < count; ++i)
    {
        uint a = column_a[(first + i * step) * TILE + r], b = column_b[(first + i * step) * TILE + r];

        state.sum += online_rescaled_sum(online_state(uintBitsToFloat(a), uintBitsToFloat(b)), state.max_value);
        if (a == best_key)
            best_entry = min(best_entry, b);
    }
    column_a[first * TILE + r] = FUNCTION == SOFTMAX_FUNCTION_HARDMAX ? best_key : floatBitsToUint(state.max_value);
    column_b[first * TILE + r] = FUNCTION == SOFTMAX_FUNCTION_HARDMAX ? best_entry : floatBitsToUint(state.sum);
}

/* The workgroup's rows' states over all slices, in every invocation of each row: the slices in
 * PARTS groups of adjacent ones, a group per invocation (every invocation busy), then the groups
 * of a row by one invocation, always in the same order. */
const uint PARTS = SLICES >= COLUMN_WIDTH ? SLICES / COLUMN_WIDTH : 1u;

void share_columns(uint lane, uint slice, inout online_state state[SOFTMAX_MAX_COLUMN_WIDTH],
        inout uint best_key[SOFTMAX_MAX_COLUMN_WIDTH], inout uint best_entry[SOFTMAX_MAX_COLUMN_WIDTH])
{
    uint at = slice * TILE + lane * COLUMN_WIDTH, t, w;

    [[unroll]] for (w = 0u; w < COLUMN_WIDTH; ++w)
    {
        bool hardmax = FUNCTION == SOFTMAX_FUNCTION_HARDMAX;

        column_a[at + w] = hardmax ? best_key[w] : floatBitsToUint(state[w].max_value);
        column_b[at + w] = hardmax ? best_entry[w] : floatBitsToUint(state[w].sum);
    }
    barrier();
    for (t = gl_LocalInvocationIndex; t < TILE * PARTS; t += THREADS)
        combine_slices(t % TILE, t / TILE * (SLICES / PARTS), SLICES / PARTS, 1u);
    if (PARTS > 1u)
    {
        barrier();
        for (t = gl_LocalInvocationIndex; t < TILE; t += THREADS)
            combine_slices(t, 0u, PARTS, SLICES / PARTS);
    }
    barrier();
    [[unroll]] for (w = 0u; w < COLUMN_WIDTH; ++w)
    {
        uint a = column_a[lane * COLUMN_WIDTH + w], b = column_b[lane * COLUMN_WIDTH + w];

        best_key[w] = a;
        best_entry[w] = b;
        state[w] = online_state(uintBitsToFloat(a), uintBitsToFloat(b));
    }
}

/* The outputs of entry `entry` of the invocation's rows from its loaded values `x`. */
void column_outputs(uint entry, float x[SOFTMAX_MAX_COLUMN_WIDTH], online_state state[SOFTMAX_MAX_COLUMN_WIDTH],
        uint best_entry[SOFTMAX_MAX_COLUMN_WIDTH], out float y[SOFTMAX_MAX_COLUMN_WIDTH])
{
    uint w;

    [[unroll]] for (w = 0u; w < COLUMN_WIDTH; ++w)
    {
        if (FUNCTION == SOFTMAX_FUNCTION_HARDMAX)
            y[w] = entry == best_entry[w] ? 1.0 : 0.0;
        else
            y[w] = softmax_output(x[w], state[w].max_value, row_scale(state[w].sum));
    }
}

/* Column split paths: the chunk's (max, sum) or (key, first entry) of each row, two words per row
 * and chunk at 2 * (row * CHUNKS + chunk). */
uvec2 temp_base;

void write_column_stats(uint row_index, uint chunk, online_state state[SOFTMAX_MAX_COLUMN_WIDTH],
        uint best_key[SOFTMAX_MAX_COLUMN_WIDTH], uint best_entry[SOFTMAX_MAX_COLUMN_WIDTH])
{
    uint w;

    [[unroll]] for (w = 0u; w < COLUMN_WIDTH; ++w)
    {
        bool hardmax = FUNCTION == SOFTMAX_FUNCTION_HARDMAX;
        uint at = 2u * ((row_index + w) * CHUNKS + chunk);

        uvec2 words = hardmax ? uvec2(best_key[w], best_entry[w])
                : floatBitsToUint(vec2(state[w].max_value, state[w].sum));

        TioWord(tio_element_address(temp_base, at, 4u)).v = words.x;
        TioWord(tio_element_address(temp_base, at + 1u, 4u)).v = words.y;
    }
}

/* The rows' states over all chunks, combined in chunk order (the same in every workgroup). */
void read_column_stats(uint row_index, inout online_state state[SOFTMAX_MAX_COLUMN_WIDTH],
        inout uint best_key[SOFTMAX_MAX_COLUMN_WIDTH], inout uint best_entry[SOFTMAX_MAX_COLUMN_WIDTH])
{
    uint w, c;

    [[unroll]] for (w = 0u; w < COLUMN_WIDTH; ++w)
    {
        for (c = 0u; c < CHUNKS; ++c)
        {
            uint at = 2u * ((row_index + w) * CHUNKS + c);
            uint a = TioWord(tio_element_address(temp_base, at, 4u)).v;
            uint b = TioWord(tio_element_address(temp_base, at + 1u, 4u)).v;
            float row_max = max(state[w].max_value, uintBitsToFloat(a));

            if (a > best_key[w])
            {
                best_key[w] = a;
                best_entry[w] = b;
            }
            state[w].sum = online_rescaled_sum(state[w], row_max)
                    + online_rescaled_sum(online_state(uintBitsToFloat(a), uintBitsToFloat(b)), row_max);
            state[w].max_value = row_max;
        }
    }
}

/* The columns path, whole rows (CHUNKS 1) or one chunk of entries of them: COLUMN_STATS writes the
 * chunk's states, COLUMN_NORMALIZE combines all chunks' and writes its chunk. */
void column(uint group)
{
    uint tid = gl_LocalInvocationIndex, lane = tid % COLUMNS, slice = tid / COLUMNS, w, n, k, count;
    uint chunk = group % CHUNKS, row_index = (group / CHUNKS * COLUMNS + lane) * COLUMN_WIDTH;
    uint begin = PATH == SOFTMAX_PATH_COLUMNS ? 0u : chunk * CHUNK_LENGTH;
    uint end = PATH == SOFTMAX_PATH_COLUMNS ? LENGTH : min(LENGTH, begin + CHUNK_LENGTH);
    uint best_key[SOFTMAX_MAX_COLUMN_WIDTH], best_entry[SOFTMAX_MAX_COLUMN_WIDTH];
    bool has_row = row_index < ROWS;
    uvec2 row = row_offsets(has_row ? row_index : 0u);
    online_state state[SOFTMAX_MAX_COLUMN_WIDTH];
    float x[4][SOFTMAX_MAX_COLUMN_WIDTH], y[SOFTMAX_MAX_COLUMN_WIDTH];

    [[unroll]] for (w = 0u; w < SOFTMAX_MAX_COLUMN_WIDTH; ++w)
    {
        state[w] = online_state(NEG_INF, 0.0);
        best_key[w] = 0u;
        best_entry[w] = 0xffffffffu;
    }
    if (PATH == SOFTMAX_PATH_COLUMN_NORMALIZE)
    {
        if (has_row)
            read_column_stats(row_index, state, best_key, best_entry);
    }
    else
    {
        if (has_row)
            accumulate_columns(row, begin + slice, end, state, best_key, best_entry);
        if (SLICES > 1u)
            share_columns(lane, slice, state, best_key, best_entry);
        if (PATH == SOFTMAX_PATH_COLUMN_STATS)
        {
            if (has_row && slice == 0u)
                write_column_stats(row_index, chunk, state, best_key, best_entry);
            return;
        }
    }
    if (!has_row || begin + slice >= end)
        return;
    /* The slice's entries from its last down, four loads in flight: the first pass read the last
     * ones most recently, so more of them may still be in the GPU's cache. */
    count = (end - 1u - begin - slice) / SLICES + 1u;
    for (n = 0u; n + 3u < count; n += 4u)
    {
        [[unroll]] for (k = 0u; k < 4u && FUNCTION != SOFTMAX_FUNCTION_HARDMAX; ++k)
            load_columns(row, begin + slice + (count - 1u - n - k) * SLICES, x[k]);
        [[unroll]] for (k = 0u; k < 4u; ++k)
        {
            uint entry = begin + slice + (count - 1u - n - k) * SLICES;

            column_outputs(entry, x[k], state, best_entry, y);
            store_columns(row, entry, y);
        }
    }
    for (; n < count; ++n)
    {
        uint entry = begin + slice + (count - 1u - n) * SLICES;

        if (FUNCTION != SOFTMAX_FUNCTION_HARDMAX)
            load_columns(row, entry, x[0]);
        column_outputs(entry, x[0], state, best_entry, y);
        store_columns(row, entry, y);
    }
}

/* Split paths: the chunk's (max, sum) or (key, first entry), two words per chunk (temp_base). */

void split_stats(uint row_index, uint chunk)
{
    uvec2 row = row_offsets(row_index);
    uint tid = gl_LocalInvocationIndex, best_key = 0u, best_entry = 0xffffffffu;
    uint end = min(LENGTH, (chunk + 1u) * CHUNK_LENGTH), at = 2u * (row_index * CHUNKS + chunk);
    online_state state = online_state(NEG_INF, 0.0);
    uvec2 words;

    accumulate(row, chunk * CHUNK_LENGTH / VECTOR + tid, end / VECTOR, THREADS, state, best_key, best_entry);
    if (FUNCTION == SOFTMAX_FUNCTION_HARDMAX)
    {
        uint chunk_key = workgroup_max_key(best_key);

        words = uvec2(chunk_key, workgroup_min_index(best_key == chunk_key ? best_entry : 0xffffffffu));
    }
    else
    {
        float row_max = workgroup_max(state.max_value);

        words = floatBitsToUint(vec2(row_max, workgroup_sum(online_rescaled_sum(state, row_max))));
    }
    if (tid == 0u)
    {
        TioWord(tio_element_address(temp_base, at, 4u)).v = words.x;
        TioWord(tio_element_address(temp_base, at + 1u, 4u)).v = words.y;
    }
}

void split_normalize(uint row_index, uint chunk)
{
    uvec2 row = row_offsets(row_index);
    uint tid = gl_LocalInvocationIndex, best_key = 0u, best_entry = 0xffffffffu, c;
    uint end = min(LENGTH, (chunk + 1u) * CHUNK_LENGTH) / VECTOR, first = 2u * row_index * CHUNKS;
    uint begin = chunk * CHUNK_LENGTH / VECTOR + tid;
    online_state state = online_state(NEG_INF, 0.0);
    float row_max, row_sum;

    /* The same chunks to the same invocations in every workgroup of the row: the same result. */
    for (c = tid; c < CHUNKS; c += THREADS)
    {
        uint key = TioWord(tio_element_address(temp_base, first + 2u * c, 4u)).v;
        uint word = TioWord(tio_element_address(temp_base, first + 2u * c + 1u, 4u)).v;

        if (FUNCTION == SOFTMAX_FUNCTION_HARDMAX)
        {
            if (key > best_key)
            {
                best_key = key;
                best_entry = word;
            }
            continue;
        }
        row_max = max(state.max_value, uintBitsToFloat(key));
        state.sum = online_rescaled_sum(state, row_max)
                + online_rescaled_sum(online_state(uintBitsToFloat(key), uintBitsToFloat(word)), row_max);
        state.max_value = row_max;
    }
    if (FUNCTION == SOFTMAX_FUNCTION_HARDMAX)
    {
        normalize_vectors(row, begin, end, THREADS, 0.0, 0.0, workgroup_argmax(best_key, best_entry));
        return;
    }
    row_max = workgroup_max(state.max_value);
    row_sum = workgroup_sum(online_rescaled_sum(state, row_max));
    normalize_vectors(row, begin, end, THREADS, row_max, row_scale(row_sum), 0u);
}

void main()
{
    VkdmlDescriptorTable table = VkdmlDescriptorTable(push.table);
    uint group = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);

    in_base = vkdml_binding_address(table, IN_SLOT, IN_OFFSET_LO, IN_OFFSET_HI);
    out_base = vkdml_binding_address(table, OUT_SLOT, OUT_OFFSET_LO, OUT_OFFSET_HI);
    /* Whole workgroups leave together, so the barriers stay uniform. */
    if (PATH == SOFTMAX_PATH_SPLIT_STATS || PATH == SOFTMAX_PATH_SPLIT_NORMALIZE)
    {
        if (group >= ROWS * CHUNKS)
            return;
        temp_base = vkdml_binding_address(table, TEMP_SLOT, TEMP_OFFSET_LO, TEMP_OFFSET_HI);
        if (PATH == SOFTMAX_PATH_SPLIT_STATS)
            split_stats(group / CHUNKS, group % CHUNKS);
        else
            split_normalize(group / CHUNKS, group % CHUNKS);
        return;
    }
    if (PATH == SOFTMAX_PATH_COLUMNS || PATH == SOFTMAX_PATH_COLUMN_STATS || PATH == SOFTMAX_PATH_COLUMN_NORMALIZE)
    {
        if (group / CHUNKS * TILE >= ROWS)
            return;
        if (PATH != SOFTMAX_PATH_COLUMNS)
            temp_base = vkdml_binding_address(table, TEMP_SLOT, TEMP_OFFSET_LO, TEMP_OFFSET_HI);
        column(group);
        return;
    }
    if (group * (TEAM > 0u ? THREADS / TEAM : 1u) >= ROWS)
        return;
    if (PATH == SOFTMAX_PATH_TWO_PASS)
    {
        row_two_pass(group);
    }
    else if (TEAM > 0u)
    {
        /* A row per team; a team's lanes leave together (no barriers in this mode). */
        uint team = gl_SubgroupID * (gl_SubgroupSize / TEAM) + gl_SubgroupInvocationID / TEAM;

        if (group * (THREADS / TEAM) + team < ROWS)
            row_in_registers(group * (THREADS / TEAM) + team, gl_SubgroupInvocationID % TEAM);
    }
    else
    {
        row_in_registers(group, gl_LocalInvocationIndex);
    }
}
