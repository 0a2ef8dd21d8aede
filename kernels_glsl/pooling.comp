#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
/*
 * The pooling family (pooling_interface.h): AVERAGE_POOLING(1), LP_POOLING(1), MAX_POOLING(1, 2).
 *
 * LANES == 1: one invocation per output element, consecutive invocations on consecutive outputs
 * along W, so a subgroup's loads of one window row are neighbours and overlapping windows hit the
 * cache; every cell is read at clamped coordinates and padding masked, so border outputs run the
 * same instructions as the others (no divergence). LANES > 1 (long windows, global pooling): LANES
 * consecutive invocations share an output, each reads every LANES-th cell of the window in row-major
 * order (coalesced along W), and the lanes combine by a shuffle butterfly in a fixed order (the same
 * result on every run). ROW_OUTPUTS > 1 (average and Lp of packed float rows): an invocation pools
 * that many consecutive outputs of a row from the aligned 16-byte vectors their windows span, each
 * read once, and stores them as one word (pool_row, store_row).
 *
 * Average and Lp sum in fp32; padding adds nothing, and average divides by the window volume
 * (IncludePadding) or by the real cells. Max compares by type (floats: NaN above everything;
 * 64-bit integers on uvec2 words, no shaderInt64) and stores the winner's bits; the first maximum
 * in window order wins ties, and its index is the input's row-major logical index.
 *
 * Variants (kernels_glsl/meson.build, typed_kernels): the storage the tensor type needs.
 */
#include "common.glsl"
#include "dml_interface.h"
#include "tensor_io.glsl"
#include "pooling_interface.h"

layout(local_size_x = POOLING_THREADS, local_size_y = 1, local_size_z = 1) in;

layout(constant_id = POOLING_SPEC_FUNCTION) const uint FUNCTION = POOLING_MAX;
layout(constant_id = POOLING_SPEC_TYPE) const uint TYPE = TIO_TYPE_FLOAT32;
layout(constant_id = POOLING_SPEC_INDEX_TYPE) const uint INDEX_TYPE = 0;
layout(constant_id = POOLING_SPEC_INCLUDE_PADDING) const bool INCLUDE_PADDING = false;
layout(constant_id = POOLING_SPEC_P) const uint P = 2;
layout(constant_id = POOLING_SPEC_OUTPUT_COUNT) const uint OUTPUT_COUNT = 1;
layout(constant_id = POOLING_SPEC_IN_SIZES + 0) const uint IN_N = 1;
layout(constant_id = POOLING_SPEC_IN_SIZES + 1) const uint IN_C = 1;
layout(constant_id = POOLING_SPEC_IN_SIZES + 2) const uint IN_D = 1;
layout(constant_id = POOLING_SPEC_IN_SIZES + 3) const uint IN_H = 1;
layout(constant_id = POOLING_SPEC_IN_SIZES + 4) const uint IN_W = 1;
layout(constant_id = POOLING_SPEC_OUT_SIZES + 0) const uint OUT_N = 1;
layout(constant_id = POOLING_SPEC_OUT_SIZES + 1) const uint OUT_C = 1;
layout(constant_id = POOLING_SPEC_OUT_SIZES + 2) const uint OUT_D = 1;
layout(constant_id = POOLING_SPEC_OUT_SIZES + 3) const uint OUT_H = 1;
layout(constant_id = POOLING_SPEC_OUT_SIZES + 4) const uint OUT_W = 1;
layout(constant_id = POOLING_SPEC_IN_STRIDES + 0) const uint IN_STRIDE_N = 0;
layout(constant_id = POOLING_SPEC_IN_STRIDES + 1) const uint IN_STRIDE_C = 0;
layout(constant_id = POOLING_SPEC_IN_STRIDES + 2) const uint IN_STRIDE_D = 0;
layout(constant_id = POOLING_SPEC_IN_STRIDES + 3) const uint IN_STRIDE_H = 0;
layout(constant_id = POOLING_SPEC_IN_STRIDES + 4) const uint IN_STRIDE_W = 1;
layout(constant_id = POOLING_SPEC_OUT_STRIDES + 0) const uint OUT_STRIDE_N = 0;
layout(constant_id = POOLING_SPEC_OUT_STRIDES + 1) const uint OUT_STRIDE_C = 0;
layout(constant_id = POOLING_SPEC_OUT_STRIDES + 2) const uint OUT_STRIDE_D = 0;
layout(constant_id = POOLING_SPEC_OUT_STRIDES + 3) const uint OUT_STRIDE_H = 0;
layout(constant_id = POOLING_SPEC_OUT_STRIDES + 4) const uint OUT_STRIDE_W = 1;
layout(constant_id = POOLING_SPEC_INDEX_STRIDES + 0) const uint INDEX_STRIDE_N = 0;
layout(constant_id = POOLING_SPEC_INDEX_STRIDES + 1) const uint INDEX_STRIDE_C = 0;
layout(constant_id = POOLING_SPEC_INDEX_STRIDES + 2) const uint INDEX_STRIDE_D = 0;
layout(constant_id = POOLING_SPEC_INDEX_STRIDES + 3) const uint INDEX_STRIDE_H = 0;
layout(constant_id = POOLING_SPEC_INDEX_STRIDES + 4) const uint INDEX_STRIDE_W = 1;
layout(constant_id = POOLING_SPEC_WINDOW + 0) const uint WINDOW_D = 1;
layout(constant_id = POOLING_SPEC_WINDOW + 1) const uint WINDOW_H = 1;
layout(constant_id = POOLING_SPEC_WINDOW + 2) const uint WINDOW_W = 1;
layout(constant_id = POOLING_SPEC_STRIDES + 0) const uint STRIDE_D = 1;
layout(constant_id = POOLING_SPEC_STRIDES + 1) const uint STRIDE_H = 1;
layout(constant_id = POOLING_SPEC_STRIDES + 2) const uint STRIDE_W = 1;
layout(constant_id = POOLING_SPEC_PADDING + 0) const uint PAD_D = 0;
layout(constant_id = POOLING_SPEC_PADDING + 1) const uint PAD_H = 0;
layout(constant_id = POOLING_SPEC_PADDING + 2) const uint PAD_W = 0;
layout(constant_id = POOLING_SPEC_DILATIONS + 0) const uint DILATION_D = 1;
layout(constant_id = POOLING_SPEC_DILATIONS + 1) const uint DILATION_H = 1;
layout(constant_id = POOLING_SPEC_DILATIONS + 2) const uint DILATION_W = 1;
layout(constant_id = POOLING_SPEC_IN_LOCATION + 0) const uint IN_SLOT = 0;
layout(constant_id = POOLING_SPEC_IN_LOCATION + 1) const uint IN_OFFSET_LO = 0;
layout(constant_id = POOLING_SPEC_IN_LOCATION + 2) const uint IN_OFFSET_HI = 0;
layout(constant_id = POOLING_SPEC_OUT_LOCATION + 0) const uint OUT_SLOT = 0;
layout(constant_id = POOLING_SPEC_OUT_LOCATION + 1) const uint OUT_OFFSET_LO = 0;
layout(constant_id = POOLING_SPEC_OUT_LOCATION + 2) const uint OUT_OFFSET_HI = 0;
layout(constant_id = POOLING_SPEC_INDEX_LOCATION + 0) const uint INDEX_SLOT = 0;
layout(constant_id = POOLING_SPEC_INDEX_LOCATION + 1) const uint INDEX_OFFSET_LO = 0;
layout(constant_id = POOLING_SPEC_INDEX_LOCATION + 2) const uint INDEX_OFFSET_HI = 0;
layout(constant_id = POOLING_SPEC_LANES) const uint LANES = 1;
layout(constant_id = POOLING_SPEC_CLAMP_READS) const bool CLAMP_READS = false;
layout(constant_id = POOLING_SPEC_ROW_OUTPUTS) const uint ROW_OUTPUTS = 1;
layout(constant_id = POOLING_SPEC_ROW_STORE) const bool ROW_STORE = false;

/* Cells a lane reads before it adds them up: their loads are in flight together. */
#define POOLING_LANE_BATCH 8

const bool WIDE = TYPE == TIO_TYPE_UINT64 || TYPE == TIO_TYPE_INT64;
const bool IS_FLOAT = TYPE == TIO_TYPE_FLOAT32 || TYPE == TIO_TYPE_FLOAT16;
const uint WINDOW_VOLUME = WINDOW_D * WINDOW_H * WINDOW_W;
const uint NO_INDEX = 0xffffffffu;
/* Element distances between window cells along each dimension. */
const uint STEP_D = DILATION_D * IN_STRIDE_D, STEP_H = DILATION_H * IN_STRIDE_H, STEP_W = DILATION_W * IN_STRIDE_W;

/* The input as typed arrays from an element's address (the plane's, or a window's first cell's): a
 * cell costs a 32-bit index, not the 64-bit address arithmetic of tio_load_bits(), which bounded
 * these kernels' speed (docs/kernels.md, "Pooling"). */
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer PoolWords { uint v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer PoolPairs { uvec2 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer PoolVectors { uvec4 v[]; };
#ifdef VKDML_STORAGE_16BIT
layout(buffer_reference, std430, buffer_reference_align = 2) readonly buffer PoolShorts { uint16_t v[]; };
#endif
#ifdef VKDML_STORAGE_8BIT
layout(buffer_reference, std430, buffer_reference_align = 1) readonly buffer PoolBytes { uint8_t v[]; };
#endif

/* ---- Max: values as bits (low, high word), compared by type ---- */

/* Whether bits `a` hold a larger value than bits `b`; a float NaN is larger than every number. */
bool greater(uvec2 a, uvec2 b)
{
    if (IS_FLOAT)
    {
        float x = tio_bits_to_float(TYPE, a.x), y = tio_bits_to_float(TYPE, b.x);

        return isnan(y) ? false : isnan(x) || x > y;
    }
    if (WIDE)
    {
        if (a.y != b.y)
            return TYPE == TIO_TYPE_INT64 ? int(a.y) > int(b.y) : a.y > b.y;
        return a.x > b.x;
    }
    return tio_is_signed(TYPE) ? int(a.x) > int(b.x) : a.x > b.x;
}

/* The lowest value of the type: an all-padding window's max. */
uvec2 lowest_bits()
{
    if (TYPE == TIO_TYPE_FLOAT32)
        return uvec2(0xff800000u, 0u);
    if (TYPE == TIO_TYPE_FLOAT16)
        return uvec2(0xfc00u, 0u);
    if (TYPE == TIO_TYPE_INT64)
        return uvec2(0u, 0x80000000u);
    if (tio_is_signed(TYPE))
        return uvec2(uint(int(0x80000000u) >> (32u - 8u * tio_element_size(TYPE))), 0u);
    return uvec2(0u);
}

/* The bits of element `index` from `origin` (an element's address), as tio_load_bits() gives them:
 * integers sign- or zero-extended; 64-bit ones as (low, high) words. */
uvec2 load_bits(uvec2 origin, uint index)
{
    uint bits, size = tio_element_size(TYPE);

    if (WIDE)
        return PoolPairs(origin).v[index];
#ifdef VKDML_STORAGE_16BIT
    if (size == 2u)
    {
        bits = uint(PoolShorts(origin).v[index]);
        return uvec2(TYPE == TIO_TYPE_INT16 ? uint(int(bits << 16) >> 16) : bits, 0u);
    }
#endif
#ifdef VKDML_STORAGE_8BIT
    if (size == 1u)
    {
        bits = uint(PoolBytes(origin).v[index]);
        return uvec2(TYPE == TIO_TYPE_INT8 ? uint(int(bits << 24) >> 24) : bits, 0u);
    }
#endif
    return uvec2(PoolWords(origin).v[index], 0u);
}

/* What a cell adds to an average or Lp sum. */
float term_of(float value)
{
    if (FUNCTION != POOLING_LP)
        return value;
    return P == 1u ? abs(value) : P == 2u ? value * value : pow(abs(value), float(P));
}

float term(uvec2 bits)
{
    return term_of(tio_bits_to_float(TYPE, bits.x));
}

/* A pooling state: max's best bits and window cell (row-major; NO_INDEX: no real cell yet), or the
 * fp32 sum and the count of real cells. */
struct State
{
    uvec2 best;
    uint cell;
    float sum;
    uint count;
};

State state_init()
{
    State s;

    s.best = lowest_bits();
    s.cell = NO_INDEX;
    s.sum = 0.0;
    s.count = 0u;
    return s;
}

void state_add(inout State s, uvec2 bits, uint cell)
{
    if (FUNCTION == POOLING_MAX)
    {
        if (s.cell == NO_INDEX || greater(bits, s.best))
        {
            s.best = bits;
            s.cell = cell;
        }
        return;
    }
    s.sum += term(bits);
    ++s.count;
}

/* Combines two lanes' states: ties go to the earlier cell. */
State state_combine(State s, State t)
{
    if (FUNCTION == POOLING_MAX)
    {
        bool take = t.cell != NO_INDEX && (s.cell == NO_INDEX || greater(t.best, s.best)
                || (!greater(s.best, t.best) && t.cell < s.cell));

        return take ? t : s;
    }
    s.sum += t.sum;
    s.count += t.count;
    return s;
}

State state_shuffle(State s, uint mask)
{
    State t;

    if (FUNCTION == POOLING_MAX)
    {
        t.best = subgroupShuffleXor(s.best, mask);
        t.cell = subgroupShuffleXor(s.cell, mask);
    }
    else
    {
        t.sum = subgroupShuffleXor(s.sum, mask);
        t.count = INCLUDE_PADDING ? 0u : subgroupShuffleXor(s.count, mask);
    }
    return t;
}

float finish_value(State s)
{
    if (FUNCTION == POOLING_AVERAGE)
        return s.sum / float(INCLUDE_PADDING ? WINDOW_VOLUME : s.count);
    if (P == 1u)
        return s.sum;
    return P == 2u ? sqrt(s.sum) : pow(s.sum, 1.0 / float(P));
}

/* ---- The window of one output ---- */

/* The output's window: its first cell's coordinates (start padding wraps them above the sizes, so
 * one unsigned comparison tests both ends) and the address of its plane (n, c). */
struct Window
{
    uvec3 start;
    uvec2 plane;
};

/* Adds window cell (kd, kh, kw), number `cell`, if it lies inside the input. */
void add_checked(inout State s, Window win, uint kd, uint kh, uint kw, uint cell)
{
    uint d = win.start.x + kd * DILATION_D, h = win.start.y + kh * DILATION_H, w = win.start.z + kw * DILATION_W;

    if (d < IN_D && h < IN_H && w < IN_W)
        state_add(s, load_bits(win.plane, d * IN_STRIDE_D + h * IN_STRIDE_H + w * IN_STRIDE_W), cell);
}

/* Whether the whole window lies inside the input (a start in the padding has wrapped above the size). */
bool inside(Window win)
{
    uvec3 last = win.start + uvec3(WINDOW_D - 1u, WINDOW_H - 1u, WINDOW_W - 1u) * uvec3(DILATION_D, DILATION_H,
            DILATION_W);

    return all(lessThan(win.start, uvec3(IN_D, IN_H, IN_W))) && all(lessThan(last, uvec3(IN_D, IN_H, IN_W)));
}

/* Max pooling may read padding cells as their nearest input cell (clamped coordinates): with
 * dilation 1 and padding narrower than the window at both ends (CLAMP_READS), that cell is in the
 * window too, and the first occurrences of the cells keep their row-major order, so the maximum
 * and its first cell do not change. No cell is then skipped: no divergence at the borders. */
const bool CLAMPED_MAX = FUNCTION == POOLING_MAX && CLAMP_READS;

/* Coordinate `c` (wrapped above `size` when negative) clamped into [0, size). */
uint clamp_coordinate(uint c, uint size)
{
    return uint(clamp(int(c), 0, int(size) - 1));
}

/* One invocation per output: every cell read at its clamped coordinates, padding masked (average,
 * Lp, max with dilations) or harmless (CLAMPED_MAX): the same instructions for every output. */
void pool_window(inout State s, Window win)
{
    uint kd, kh, kw, d, h, w, cell, rows = 0u, cols = 0u, depth = 0u;
    bool valid;
    uvec2 bits;

    for (kd = 0u; kd < WINDOW_D; ++kd)
    {
        d = win.start.x + kd * DILATION_D;
        depth += d < IN_D ? 1u : 0u;
        for (kh = 0u; kh < WINDOW_H; ++kh)
        {
            h = win.start.y + kh * DILATION_H;
            if (kd == 0u)
                rows += h < IN_H ? 1u : 0u;
            [[unroll]] for (kw = 0u; kw < WINDOW_W; ++kw)
            {
                w = win.start.z + kw * DILATION_W;
                if (kd == 0u && kh == 0u)
                    cols += w < IN_W ? 1u : 0u;
                valid = d < IN_D && h < IN_H && w < IN_W;
                cell = (kd * WINDOW_H + kh) * WINDOW_W + kw;
                bits = load_bits(win.plane, clamp_coordinate(d, IN_D) * IN_STRIDE_D
                        + clamp_coordinate(h, IN_H) * IN_STRIDE_H + clamp_coordinate(w, IN_W) * IN_STRIDE_W);
                if (FUNCTION != POOLING_MAX)
                    s.sum += valid ? term(bits) : 0.0;
                else if ((CLAMPED_MAX || valid) && (s.cell == NO_INDEX || greater(bits, s.best)))
                    s.best = bits, s.cell = cell;
            }
        }
    }
    s.count = depth * rows * cols;
}

/* A window whose cells are consecutive elements (global pooling of a packed image): cell k is
 * element k from the first. */
const bool CONTIGUOUS_WINDOW = STEP_W == 1u && STEP_H == WINDOW_W && (WINDOW_D == 1u || STEP_D == WINDOW_H * WINDOW_W);

/* LANES invocations per output: lane `lane` takes cells lane, lane + LANES, ... in batches whose
 * loads are in flight together. */
void pool_lane(inout State s, Window win, uint lane)
{
    uint first, cell, i, kd, kh, kw;
    bool all_inside = inside(win);
    uvec2 origin = tio_element_address(win.plane, win.start.x * IN_STRIDE_D + win.start.y * IN_STRIDE_H
            + win.start.z * IN_STRIDE_W, tio_element_size(TYPE));

    for (first = lane; first < WINDOW_VOLUME; first += LANES * POOLING_LANE_BATCH)
    {
        [[unroll]] for (i = 0u; i < POOLING_LANE_BATCH; ++i)
        {
            cell = first + i * LANES;
            kw = cell % WINDOW_W;
            kh = (cell / WINDOW_W) % WINDOW_H;
            kd = cell / (WINDOW_W * WINDOW_H);
            if (cell >= WINDOW_VOLUME)
                break;
            if (CONTIGUOUS_WINDOW && all_inside)
                state_add(s, load_bits(origin, cell), cell);
            else if (all_inside)
                state_add(s, load_bits(origin, kd * STEP_D + kh * STEP_H + kw * STEP_W), cell);
            else
                add_checked(s, win, kd, kh, kw, cell);
        }
    }
}

/* ---- Row path (average and Lp pooling of float rows in whole 16-byte vectors) ---- */

/* tio_element_size(TYPE) as a constant expression (array sizes and unrolled loops need one). */
const uint ELEMENT_SIZE = TYPE == TIO_TYPE_FLOAT16 ? 2u : 4u;
const uint PER_WORD = 4u / ELEMENT_SIZE;
const uint PER_VECTOR = 16u / ELEMENT_SIZE;

/* ROW_OUTPUTS > 1; the C side checks the conditions: average or Lp of a float type, contiguous W a
 * multiple of the vector, dilation 1 along W, ROW_OUTPUTS * STRIDE_W a multiple of the vector, the
 * other strides and the offset aligned. An invocation pools ROW_OUTPUTS consecutive outputs of a
 * row: each window row is read once as ROW_VECTORS aligned 16-byte vectors (clamped into the row;
 * cells outside it masked) that the outputs' overlapping windows share, instead of a load per cell
 * and output (docs/kernels.md, "Pooling"). */
const uint ROW_SPAN = (ROW_OUTPUTS - 1u) * STRIDE_W + WINDOW_W;       /* columns the outputs read */
const uint ROW_LEAD = (PER_VECTOR - PAD_W % PER_VECTOR) % PER_VECTOR;   /* first column's place */
const uint ROW_VECTORS = (ROW_LEAD + ROW_SPAN + PER_VECTOR - 1u) / PER_VECTOR;
const uint ROW_CHUNKS = (OUT_W + ROW_OUTPUTS - 1u) / ROW_OUTPUTS;       /* invocations per output row */

/* The value of element `e` of a row's words. */
float row_value(uint words[POOLING_ROW_VECTORS_MAX * 4u], uint e)
{
    if (TYPE == TIO_TYPE_FLOAT16)
        return unpackHalf2x16(words[e / PER_WORD] >> (16u * (e % PER_WORD))).x;
    return uintBitsToFloat(words[e]);
}

void pool_row(inout State s[POOLING_ROW_OUTPUTS_MAX], Window win)
{
    uint kd, kh, kw, t, i, d, h, column, rows = 0u, first_vector, last_vector;
    uint words[POOLING_ROW_VECTORS_MAX * 4u];
    bool valid;
    uvec4 v;

    /* The first vector holds column start - ROW_LEAD: start + PAD_W is a multiple of the vector. */
    first_vector = (win.start.z + PAD_W) / PER_VECTOR - (PAD_W + PER_VECTOR - 1u) / PER_VECTOR;
    last_vector = IN_W / PER_VECTOR - 1u;
    for (kd = 0u; kd < WINDOW_D; ++kd)
    {
        d = win.start.x + kd * DILATION_D;
        for (kh = 0u; kh < WINDOW_H; ++kh)
        {
            h = win.start.y + kh * DILATION_H;
            valid = d < IN_D && h < IN_H;
            rows += valid ? 1u : 0u;
            [[unroll]] for (i = 0u; i < ROW_VECTORS; ++i)
            {
                v = PoolVectors(win.plane).v[(clamp_coordinate(d, IN_D) * IN_STRIDE_D
                        + clamp_coordinate(h, IN_H) * IN_STRIDE_H) / PER_VECTOR
                        + uint(clamp(int(first_vector + i), 0, int(last_vector)))];
                words[4u * i] = v.x;
                words[4u * i + 1u] = v.y;
                words[4u * i + 2u] = v.z;
                words[4u * i + 3u] = v.w;
            }
            [[unroll]] for (t = 0u; t < ROW_OUTPUTS; ++t)
            {
                [[unroll]] for (kw = 0u; kw < WINDOW_W; ++kw)
                {
                    column = win.start.z + t * STRIDE_W + kw;
                    s[t].sum += valid && column < IN_W ? term_of(row_value(words, ROW_LEAD + t * STRIDE_W + kw))
                            : 0.0;
                }
            }
        }
    }
    [[unroll]] for (t = 0u; t < ROW_OUTPUTS; ++t)
    {
        s[t].count = 0u;
        [[unroll]] for (kw = 0u; kw < WINDOW_W; ++kw)
            s[t].count += win.start.z + t * STRIDE_W + kw < IN_W ? rows : 0u;
    }
}

/* The element offset of output (n, c, od, oh * OUT_W + ow). */
uint output_offset(uvec4 o)
{
    return o.x * OUT_STRIDE_N + o.y * OUT_STRIDE_C + o.z * OUT_STRIDE_D + (o.w / OUT_W) * OUT_STRIDE_H
            + (o.w % OUT_W) * OUT_STRIDE_W;
}

/* Stores a max output's index (MAX_POOLING1/2's OutputIndicesTensor). */
void store_index(VkdmlDescriptorTable table, uvec4 o, State s)
{
    uint index = 0u, d, h, w, offset;
    uvec2 base;

    if (INDEX_TYPE == 0u)
        return;
    /* The input's row-major logical index of the winning cell; 0 for an all-padding window. */
    if (s.cell != NO_INDEX)
    {
        d = clamp_coordinate(o.z * STRIDE_D - PAD_D + s.cell / (WINDOW_W * WINDOW_H) * DILATION_D, IN_D);
        h = clamp_coordinate((o.w / OUT_W) * STRIDE_H - PAD_H + (s.cell / WINDOW_W) % WINDOW_H * DILATION_H, IN_H);
        w = clamp_coordinate((o.w % OUT_W) * STRIDE_W - PAD_W + s.cell % WINDOW_W * DILATION_W, IN_W);
        index = (((o.x * IN_C + o.y) * IN_D + d) * IN_H + h) * IN_W + w;
    }
    offset = o.x * INDEX_STRIDE_N + o.y * INDEX_STRIDE_C + o.z * INDEX_STRIDE_D + (o.w / OUT_W) * INDEX_STRIDE_H
            + (o.w % OUT_W) * INDEX_STRIDE_W;
    base = vkdml_binding_address(table, INDEX_SLOT, INDEX_OFFSET_LO, INDEX_OFFSET_HI);
    if (INDEX_TYPE == TIO_TYPE_UINT64)
        TioPair(tio_element_address(base, offset, 8u)).v = uvec2(index, 0u);
    else
        TioWord(tio_element_address(base, offset, 4u)).v = index;
}

/* Stores an output (and its index) from its final state. */
void store_result(VkdmlDescriptorTable table, uvec4 o, State s)
{
    uint offset = output_offset(o);
    uvec2 base = vkdml_binding_address(table, OUT_SLOT, OUT_OFFSET_LO, OUT_OFFSET_HI);

    if (FUNCTION != POOLING_MAX)
    {
        tio_store_float(TYPE, base, offset, finish_value(s));
        return;
    }
    if (WIDE)
        TioPair(tio_element_address(base, offset, 8u)).v = s.best;
    else
        tio_store_bits(TYPE, base, offset, s.best.x);
    store_index(table, o, s);
}

/* The coordinates (n, c, od, oh * OUT_W + ow) of output `o`. */
uvec4 output_coordinates(uint o)
{
    uvec4 coords;
    uint rest;

    coords.w = o % (OUT_H * OUT_W);
    rest = o / (OUT_H * OUT_W);
    coords.z = rest % OUT_D;
    rest /= OUT_D;
    coords.y = rest % OUT_C;
    coords.x = rest / OUT_C;
    return coords;
}

/* ROW_STORE (the C side checks: the output's rows contiguous, ROW_OUTPUTS dividing OUT_W, every
 * other stride and the offset aligned to ROW_OUTPUTS elements of 8 or 16 bytes): an invocation's
 * outputs as one store, coalesced over the subgroup. */
void store_row(VkdmlDescriptorTable table, uvec4 first, State s[POOLING_ROW_OUTPUTS_MAX])
{
    uvec2 address = tio_element_address(vkdml_binding_address(table, OUT_SLOT, OUT_OFFSET_LO, OUT_OFFSET_HI),
            output_offset(first), ELEMENT_SIZE);
    uint words[4] = uint[4](0u, 0u, 0u, 0u), t;

    [[unroll]] for (t = 0u; t < ROW_OUTPUTS; ++t)
    {
        if (TYPE == TIO_TYPE_FLOAT16)
            words[t / 2u] |= packHalf2x16(vec2(finish_value(s[t]), 0.0)) << (16u * (t % 2u));
        else
            words[t] = floatBitsToUint(finish_value(s[t]));
    }
    if (ROW_OUTPUTS * ELEMENT_SIZE == 16u)
        TioVector(address).v = uvec4(words[0], words[1], words[2], words[3]);
    else
        TioPair(address).v = uvec2(words[0], words[1]);
}

void main_row(VkdmlDescriptorTable table, uint invocation)
{
    uint chunk = invocation % ROW_CHUNKS, row = invocation / ROW_CHUNKS, t;
    uvec4 coords = output_coordinates(row * OUT_W);
    State s[POOLING_ROW_OUTPUTS_MAX];
    uint oh = coords.w / OUT_W;
    Window win;

    if (row >= OUTPUT_COUNT / OUT_W)
        return;
    win.start = uvec3(coords.z * STRIDE_D - PAD_D, oh * STRIDE_H - PAD_H, chunk * ROW_OUTPUTS * STRIDE_W - PAD_W);
    win.plane = tio_element_address(vkdml_binding_address(table, IN_SLOT, IN_OFFSET_LO, IN_OFFSET_HI),
            coords.x * IN_STRIDE_N + coords.y * IN_STRIDE_C, ELEMENT_SIZE);
    [[unroll]] for (t = 0u; t < ROW_OUTPUTS; ++t)
        s[t] = state_init();
    pool_row(s, win);
    if (ROW_STORE)
    {
        store_row(table, uvec4(coords.xyz, coords.w + chunk * ROW_OUTPUTS), s);
        return;
    }
    [[unroll]] for (t = 0u; t < ROW_OUTPUTS; ++t)
    {
        if (chunk * ROW_OUTPUTS + t < OUT_W)
            store_result(table, uvec4(coords.xyz, coords.w + chunk * ROW_OUTPUTS + t), s[t]);
    }
}

void main()
{
    uint group = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);
    uint invocation = group * POOLING_THREADS + gl_LocalInvocationIndex;
    uint o = invocation / LANES, lane = invocation % LANES, oh, ow, i;
    VkdmlDescriptorTable table = VkdmlDescriptorTable(push.table);
    State s = state_init();
    uvec4 coords;           /* n, c, od, oh * OUT_W + ow */
    Window win;

    if (ROW_OUTPUTS > 1u)
    {
        main_row(table, invocation);
        return;
    }
    /* Lanes of an output past the end still take part in the shuffles (their state stays empty). */
    if (LANES == 1u && o >= OUTPUT_COUNT)
        return;
    coords = output_coordinates(o);
    oh = coords.w / OUT_W;
    ow = coords.w % OUT_W;
    win.start = uvec3(coords.z * STRIDE_D - PAD_D, oh * STRIDE_H - PAD_H, ow * STRIDE_W - PAD_W);
    win.plane = tio_element_address(vkdml_binding_address(table, IN_SLOT, IN_OFFSET_LO, IN_OFFSET_HI),
            coords.x * IN_STRIDE_N + coords.y * IN_STRIDE_C, tio_element_size(TYPE));

    if (LANES == 1u)
    {
        pool_window(s, win);
    }
    else
    {
        if (o < OUTPUT_COUNT)
            pool_lane(s, win, lane);
        for (i = 1u; i < LANES; i <<= 1)
        {
            State t = state_shuffle(s, i);

            s = (lane & i) == 0u ? state_combine(s, t) : state_combine(t, s);
        }
        if (lane != 0u || o >= OUTPUT_COUNT)
            return;
    }
    store_result(table, coords, s);
}
