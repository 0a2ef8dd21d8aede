#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
/*
 * The pooling family (pooling_interface.h): AVERAGE_POOLING(1), LP_POOLING(1), MAX_POOLING(1, 2).
 *
 * LANES == 1: one invocation per output element, consecutive invocations on consecutive outputs
 * along W, so a subgroup's loads of one window row are neighbours and overlapping windows hit the
 * cache. LANES > 1 (long windows, global pooling): LANES consecutive invocations share an output,
 * each reads every LANES-th cell of the window in row-major order (coalesced along W), and the
 * lanes combine by a shuffle butterfly in a fixed order (the same result on every run).
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

const bool WIDE = TYPE == TIO_TYPE_UINT64 || TYPE == TIO_TYPE_INT64;
const bool IS_FLOAT = TYPE == TIO_TYPE_FLOAT32 || TYPE == TIO_TYPE_FLOAT16;
const uint WINDOW_VOLUME = WINDOW_D * WINDOW_H * WINDOW_W;
const uint NO_INDEX = 0xffffffffu;

uvec2 input_base;

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

uvec2 load_bits(uint offset)
{
    if (WIDE)
        return TioPair(tio_element_address(input_base, offset, 8u)).v;
    return uvec2(tio_load_bits(TYPE, input_base, offset), 0u);
}

/* A pooling state: max's best bits and its logical index (NO_INDEX: no real cell yet), or the
 * fp32 sum and the count of real cells. */
struct State
{
    uvec2 best;
    uint index;
    float sum;
    uint count;
};

State state_init()
{
    State s;

    s.best = lowest_bits();
    s.index = NO_INDEX;
    s.sum = 0.0;
    s.count = 0u;
    return s;
}

void state_add(inout State s, uint offset, uint index)
{
    if (FUNCTION == POOLING_MAX)
    {
        uvec2 bits = load_bits(offset);

        if (s.index == NO_INDEX || greater(bits, s.best))
        {
            s.best = bits;
            s.index = index;
        }
        return;
    }
    float value = tio_load_float(TYPE, input_base, offset);

    if (FUNCTION == POOLING_LP)
        value = P == 1u ? abs(value) : P == 2u ? value * value : pow(abs(value), float(P));
    s.sum += value;
    ++s.count;
}

/* Combines lane states; `s` covers cells before `t`'s in each row-major stretch of LANES, so
 * ties go to the smaller index. */
State state_combine(State s, State t)
{
    if (FUNCTION == POOLING_MAX)
    {
        bool take = t.index != NO_INDEX && (s.index == NO_INDEX || greater(t.best, s.best)
                || (!greater(s.best, t.best) && t.index < s.index));

        return take ? t : s;
    }
    s.sum += t.sum;
    s.count += t.count;
    return s;
}

State state_shuffle(State s, uint mask)
{
    State t;

    t.best = subgroupShuffleXor(s.best, mask);
    t.index = subgroupShuffleXor(s.index, mask);
    t.sum = subgroupShuffleXor(s.sum, mask);
    t.count = subgroupShuffleXor(s.count, mask);
    return t;
}

/* ---- The window ---- */

/* Adds the cell at window offset (kd, kh, kw) of the output whose window starts at `start`. */
void add_cell(inout State s, uvec3 start, uint plane_offset, uint plane_index, uint kd, uint kh, uint kw)
{
    /* Unsigned: a coordinate in the start padding wraps above the size and is skipped alike. */
    uint d = start.x + kd * DILATION_D, h = start.y + kh * DILATION_H, w = start.z + kw * DILATION_W;

    if (d >= IN_D || h >= IN_H || w >= IN_W)
        return;
    state_add(s, plane_offset + d * IN_STRIDE_D + h * IN_STRIDE_H + w * IN_STRIDE_W,
            plane_index + (d * IN_H + h) * IN_W + w);
}

float finish_value(State s)
{
    if (FUNCTION == POOLING_AVERAGE)
        return s.sum / float(INCLUDE_PADDING ? WINDOW_VOLUME : s.count);
    if (P == 1u)
        return s.sum;
    return P == 2u ? sqrt(s.sum) : pow(s.sum, 1.0 / float(P));
}

void main()
{
    uint group = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);
    uint invocation = group * POOLING_THREADS + gl_LocalInvocationIndex;
    uint o = invocation / LANES, lane = invocation % LANES;
    uint ow, oh, od, c, n, rest, plane_offset, plane_index, out_offset, cell, i;
    VkdmlDescriptorTable table = VkdmlDescriptorTable(push.table);
    uvec2 base;
    uvec3 start;
    State s = state_init();

    /* Lanes of an output past the end still take part in the shuffles (their state stays empty). */
    if (LANES == 1u && o >= OUTPUT_COUNT)
        return;
    input_base = vkdml_binding_address(table, IN_SLOT, IN_OFFSET_LO, IN_OFFSET_HI);
    ow = o % OUT_W;
    rest = o / OUT_W;
    oh = rest % OUT_H;
    rest /= OUT_H;
    od = rest % OUT_D;
    rest /= OUT_D;
    c = rest % OUT_C;
    n = rest / OUT_C;
    start = uvec3(od * STRIDE_D - PAD_D, oh * STRIDE_H - PAD_H, ow * STRIDE_W - PAD_W);
    plane_offset = n * IN_STRIDE_N + c * IN_STRIDE_C;
    plane_index = (n * IN_C + c) * IN_D * IN_H * IN_W;

    if (o < OUTPUT_COUNT)
    {
        if (LANES == 1u)
        {
            for (uint kd = 0u; kd < WINDOW_D; ++kd)
                for (uint kh = 0u; kh < WINDOW_H; ++kh)
                    for (uint kw = 0u; kw < WINDOW_W; ++kw)
                        add_cell(s, start, plane_offset, plane_index, kd, kh, kw);
        }
        else
        {
            for (cell = lane; cell < WINDOW_VOLUME; cell += LANES)
                add_cell(s, start, plane_offset, plane_index, cell / (WINDOW_W * WINDOW_H),
                        (cell / WINDOW_W) % WINDOW_H, cell % WINDOW_W);
        }
    }
    if (LANES > 1u)
    {
        for (i = 1u; i < LANES; i <<= 1)
        {
            State t = state_shuffle(s, i);

            s = (lane & i) == 0u ? state_combine(s, t) : state_combine(t, s);
        }
        if (lane != 0u || o >= OUTPUT_COUNT)
            return;
    }

    out_offset = n * OUT_STRIDE_N + c * OUT_STRIDE_C + od * OUT_STRIDE_D + oh * OUT_STRIDE_H + ow * OUT_STRIDE_W;
    base = vkdml_binding_address(table, OUT_SLOT, OUT_OFFSET_LO, OUT_OFFSET_HI);
    if (FUNCTION != POOLING_MAX)
    {
        tio_store_float(TYPE, base, out_offset, finish_value(s));
        return;
    }
    if (WIDE)
        TioPair(tio_element_address(base, out_offset, 8u)).v = s.best;
    else
        tio_store_bits(TYPE, base, out_offset, s.best.x);
    if (INDEX_TYPE == 0u)
        return;
    /* An all-padding window has no maximum cell: its index is 0. */
    i = s.index == NO_INDEX ? 0u : s.index;
    base = vkdml_binding_address(table, INDEX_SLOT, INDEX_OFFSET_LO, INDEX_OFFSET_HI);
    out_offset = n * INDEX_STRIDE_N + c * INDEX_STRIDE_C + od * INDEX_STRIDE_D + oh * INDEX_STRIDE_H
            + ow * INDEX_STRIDE_W;
    if (INDEX_TYPE == TIO_TYPE_UINT64)
        TioPair(tio_element_address(base, out_offset, 8u)).v = uvec2(i, 0u);
    else
        TioWord(tio_element_address(base, out_offset, 4u)).v = i;
}
