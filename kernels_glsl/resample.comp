#version 460
#extension GL_GOOGLE_include_directive : require
/*
 * DML_OPERATOR_UPSAMPLE_2D, RESAMPLE, RESAMPLE1, RESAMPLE2 and RESAMPLE3 (resample_interface.h):
 * one invocation per VECTOR consecutive outputs of a row (16 bytes of them where the output is
 * packed: one vector store), consecutive invocations on consecutive outputs, so stores coalesce
 * and the input rows they read stay in cache. The taps of the outer dimensions (their indices and
 * weights) are found once per invocation; only the last dimension's vary along the row.
 *
 * Nearest (and copy) on every dimension moves bits, any type; otherwise values are summed in
 * fp32 (FLOAT16 and the integers rounded once at the store). Coordinates are fp32 (README
 * "Resampling").
 *
 * Variants (kernels_glsl/meson.build, typed_kernels): the storage the tensor type needs.
 */
#include "common.glsl"
#include "dml_interface.h"
#include "tensor_io.glsl"
#include "resample_interface.h"

layout(local_size_x = RESAMPLE_THREADS, local_size_y = 1, local_size_z = 1) in;

layout(constant_id = RESAMPLE_SPEC_TYPE) const uint TYPE = TIO_TYPE_FLOAT32;
layout(constant_id = RESAMPLE_SPEC_ROUND_UP) const bool ROUND_UP = false;
layout(constant_id = RESAMPLE_SPEC_VECTOR) const uint VECTOR = 1;
layout(constant_id = RESAMPLE_SPEC_OUT_PACKED) const bool OUT_PACKED = true;
layout(constant_id = RESAMPLE_SPEC_ROWS) const uint ROWS = 1;
layout(constant_id = RESAMPLE_SPEC_PERIODIC) const bool PERIODIC = false;
layout(constant_id = RESAMPLE_SPEC_WINDOW) const uint WINDOW = 1;
layout(constant_id = RESAMPLE_SPEC_PERIOD) const uint PERIOD = 1;
layout(constant_id = RESAMPLE_SPEC_REL_MIN) const int REL_MIN = 0;
layout(constant_id = RESAMPLE_SPEC_PLACES_LO) const uint PLACES_LO = 0;
layout(constant_id = RESAMPLE_SPEC_PLACES_HI) const uint PLACES_HI = 0;
layout(constant_id = RESAMPLE_SPEC_INVOCATIONS) const uint INVOCATIONS = 1;
layout(constant_id = RESAMPLE_SPEC_IN_SIZES + 0) const uint IN_SIZE_0 = 1;
layout(constant_id = RESAMPLE_SPEC_IN_SIZES + 1) const uint IN_SIZE_1 = 1;
layout(constant_id = RESAMPLE_SPEC_IN_SIZES + 2) const uint IN_SIZE_2 = 1;
layout(constant_id = RESAMPLE_SPEC_IN_SIZES + 3) const uint IN_SIZE_3 = 1;
layout(constant_id = RESAMPLE_SPEC_IN_SIZES + 4) const uint IN_SIZE_4 = 1;
layout(constant_id = RESAMPLE_SPEC_OUT_SIZES + 0) const uint OUT_SIZE_0 = 1;
layout(constant_id = RESAMPLE_SPEC_OUT_SIZES + 1) const uint OUT_SIZE_1 = 1;
layout(constant_id = RESAMPLE_SPEC_OUT_SIZES + 2) const uint OUT_SIZE_2 = 1;
layout(constant_id = RESAMPLE_SPEC_OUT_SIZES + 3) const uint OUT_SIZE_3 = 1;
layout(constant_id = RESAMPLE_SPEC_OUT_SIZES + 4) const uint OUT_SIZE_4 = 1;
layout(constant_id = RESAMPLE_SPEC_IN_STRIDES + 0) const uint IN_STRIDE_0 = 0;
layout(constant_id = RESAMPLE_SPEC_IN_STRIDES + 1) const uint IN_STRIDE_1 = 0;
layout(constant_id = RESAMPLE_SPEC_IN_STRIDES + 2) const uint IN_STRIDE_2 = 0;
layout(constant_id = RESAMPLE_SPEC_IN_STRIDES + 3) const uint IN_STRIDE_3 = 0;
layout(constant_id = RESAMPLE_SPEC_IN_STRIDES + 4) const uint IN_STRIDE_4 = 1;
layout(constant_id = RESAMPLE_SPEC_OUT_STRIDES + 0) const uint OUT_STRIDE_0 = 0;
layout(constant_id = RESAMPLE_SPEC_OUT_STRIDES + 1) const uint OUT_STRIDE_1 = 0;
layout(constant_id = RESAMPLE_SPEC_OUT_STRIDES + 2) const uint OUT_STRIDE_2 = 0;
layout(constant_id = RESAMPLE_SPEC_OUT_STRIDES + 3) const uint OUT_STRIDE_3 = 0;
layout(constant_id = RESAMPLE_SPEC_OUT_STRIDES + 4) const uint OUT_STRIDE_4 = 1;
layout(constant_id = RESAMPLE_SPEC_KINDS + 0) const uint KIND_0 = RESAMPLE_KIND_COPY;
layout(constant_id = RESAMPLE_SPEC_KINDS + 1) const uint KIND_1 = RESAMPLE_KIND_COPY;
layout(constant_id = RESAMPLE_SPEC_KINDS + 2) const uint KIND_2 = RESAMPLE_KIND_COPY;
layout(constant_id = RESAMPLE_SPEC_KINDS + 3) const uint KIND_3 = RESAMPLE_KIND_COPY;
layout(constant_id = RESAMPLE_SPEC_KINDS + 4) const uint KIND_4 = RESAMPLE_KIND_COPY;
layout(constant_id = RESAMPLE_SPEC_INV_SCALES + 0) const uint INV_SCALE_0 = 0x3f800000u;
layout(constant_id = RESAMPLE_SPEC_INV_SCALES + 1) const uint INV_SCALE_1 = 0x3f800000u;
layout(constant_id = RESAMPLE_SPEC_INV_SCALES + 2) const uint INV_SCALE_2 = 0x3f800000u;
layout(constant_id = RESAMPLE_SPEC_INV_SCALES + 3) const uint INV_SCALE_3 = 0x3f800000u;
layout(constant_id = RESAMPLE_SPEC_INV_SCALES + 4) const uint INV_SCALE_4 = 0x3f800000u;
layout(constant_id = RESAMPLE_SPEC_BIASES + 0) const uint BIAS_0 = 0;
layout(constant_id = RESAMPLE_SPEC_BIASES + 1) const uint BIAS_1 = 0;
layout(constant_id = RESAMPLE_SPEC_BIASES + 2) const uint BIAS_2 = 0;
layout(constant_id = RESAMPLE_SPEC_BIASES + 3) const uint BIAS_3 = 0;
layout(constant_id = RESAMPLE_SPEC_BIASES + 4) const uint BIAS_4 = 0;
layout(constant_id = RESAMPLE_SPEC_AA_SCALES + 0) const uint AA_SCALE_0 = 0x3f800000u;
layout(constant_id = RESAMPLE_SPEC_AA_SCALES + 1) const uint AA_SCALE_1 = 0x3f800000u;
layout(constant_id = RESAMPLE_SPEC_AA_SCALES + 2) const uint AA_SCALE_2 = 0x3f800000u;
layout(constant_id = RESAMPLE_SPEC_AA_SCALES + 3) const uint AA_SCALE_3 = 0x3f800000u;
layout(constant_id = RESAMPLE_SPEC_AA_SCALES + 4) const uint AA_SCALE_4 = 0x3f800000u;
layout(constant_id = RESAMPLE_SPEC_AA_STARTS + 0) const int AA_START_0 = 0;
layout(constant_id = RESAMPLE_SPEC_AA_STARTS + 1) const int AA_START_1 = 0;
layout(constant_id = RESAMPLE_SPEC_AA_STARTS + 2) const int AA_START_2 = 0;
layout(constant_id = RESAMPLE_SPEC_AA_STARTS + 3) const int AA_START_3 = 0;
layout(constant_id = RESAMPLE_SPEC_AA_STARTS + 4) const int AA_START_4 = 0;
layout(constant_id = RESAMPLE_SPEC_AA_TAPS + 0) const uint AA_TAPS_0 = 2;
layout(constant_id = RESAMPLE_SPEC_AA_TAPS + 1) const uint AA_TAPS_1 = 2;
layout(constant_id = RESAMPLE_SPEC_AA_TAPS + 2) const uint AA_TAPS_2 = 2;
layout(constant_id = RESAMPLE_SPEC_AA_TAPS + 3) const uint AA_TAPS_3 = 2;
layout(constant_id = RESAMPLE_SPEC_AA_TAPS + 4) const uint AA_TAPS_4 = 2;
layout(constant_id = RESAMPLE_SPEC_IN_LOCATION + 0) const uint IN_SLOT = 0;
layout(constant_id = RESAMPLE_SPEC_IN_LOCATION + 1) const uint IN_OFFSET_LO = 0;
layout(constant_id = RESAMPLE_SPEC_IN_LOCATION + 2) const uint IN_OFFSET_HI = 0;
layout(constant_id = RESAMPLE_SPEC_OUT_LOCATION + 0) const uint OUT_SLOT = 0;
layout(constant_id = RESAMPLE_SPEC_OUT_LOCATION + 1) const uint OUT_OFFSET_LO = 0;
layout(constant_id = RESAMPLE_SPEC_OUT_LOCATION + 2) const uint OUT_OFFSET_HI = 0;

/* Dimension constant `d` (DIM(IN_SIZE, d) is IN_SIZE_d); `d` is a constant once unrolled. */
#define DIM(name, d) ((d) == 0 ? name##_0 : (d) == 1 ? name##_1 : (d) == 2 ? name##_2 : (d) == 3 ? name##_3 \
        : name##_4)

#define LAST (RESAMPLE_MAX_RANK - 1)

/* How many taps dimension d has. */
#define TAPS(d) (DIM(KIND, d) == RESAMPLE_KIND_LINEAR ? 2u \
        : DIM(KIND, d) == RESAMPLE_KIND_FILTER ? DIM(AA_TAPS, d) : 1u)

const bool MOVE_BITS = KIND_0 < RESAMPLE_KIND_LINEAR && KIND_1 < RESAMPLE_KIND_LINEAR
        && KIND_2 < RESAMPLE_KIND_LINEAR && KIND_3 < RESAMPLE_KIND_LINEAR && KIND_4 < RESAMPLE_KIND_LINEAR;
const uint ROW_GROUPS = (OUT_SIZE_4 + VECTOR - 1) / VECTOR;
const uint ROW_BLOCKS = (OUT_SIZE_3 + ROWS - 1) / ROWS;
const uint OUTER_TAPS = TAPS(0) * TAPS(1) * TAPS(2) * TAPS(3);
/* The last dimension's taps (indices and weights) found once for all ROWS rows (not the filter's). */
const bool HOIST = TAPS(LAST) <= 2u;
const uint HOISTED = HOIST ? VECTOR * TAPS(LAST) : 1u;

/* Input elements through access chains (indices below 2^31: resample.c checks the tensors). */
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer ResampleWords { uint v[]; };
#ifdef VKDML_STORAGE_16BIT
layout(buffer_reference, std430, buffer_reference_align = 2) readonly buffer ResampleHalves { float16_t v[]; };
layout(buffer_reference, std430, buffer_reference_align = 2) readonly buffer ResampleShorts { uint16_t v[]; };
#endif
#ifdef VKDML_STORAGE_8BIT
layout(buffer_reference, std430, buffer_reference_align = 1) readonly buffer ResampleBytes { uint8_t v[]; };
#endif

uint load_bits(uvec2 base, uint index)
{
#ifdef VKDML_STORAGE_16BIT
    if (tio_element_size(TYPE) == 2u)
        return uint(ResampleShorts(base).v[index]);
#endif
#ifdef VKDML_STORAGE_8BIT
    if (tio_element_size(TYPE) == 1u)
        return uint(ResampleBytes(base).v[index]);
#endif
    return ResampleWords(base).v[index];
}

/* An element's value: integers (INT8, UINT8) by value. */
float load_float(uvec2 base, uint index)
{
#ifdef VKDML_STORAGE_16BIT
    if (TYPE == TIO_TYPE_FLOAT16)
        return float(ResampleHalves(base).v[index]);
#endif
    if (!tio_is_float(TYPE))
        return tio_bits_to_float(TYPE, TYPE == TIO_TYPE_INT8 ? uint(int(load_bits(base, index) << 24) >> 24)
                : load_bits(base, index));
    return uintBitsToFloat(ResampleWords(base).v[index]);
}

/* Where output coordinate x of dimension d reads: the first tap's input index (unclamped), the
 * fraction f between it and the next, and the filter's normalization (1 / the sum of its weights). */
struct Axis
{
    int first;
    float frac;
    float norm;
};

Axis make_axis(int d, uint x)
{
    precise float c = float(x) * uintBitsToFloat(DIM(INV_SCALE, d)) + uintBitsToFloat(DIM(BIAS, d));
    precise float base, sum;
    Axis axis;
    int j;

    axis.norm = 1.0;
    axis.frac = 0.0;
    if (DIM(KIND, d) == RESAMPLE_KIND_COPY)
    {
        axis.first = int(x);
        return axis;
    }
    /* Clamped before the conversion to int: far-away coordinates still clamp to the edge. */
    base = ROUND_UP && DIM(KIND, d) == RESAMPLE_KIND_NEAREST ? ceil(c) : floor(c);
    axis.first = int(clamp(base, -1.0, float(DIM(IN_SIZE, d))));
    axis.frac = c - base;
    if (DIM(KIND, d) == RESAMPLE_KIND_FILTER)
    {
        sum = 0.0;
        for (j = 0; j < int(DIM(AA_TAPS, d)); ++j)
            sum += max(0.0, 1.0 - abs(float(DIM(AA_START, d) + j) - axis.frac) * uintBitsToFloat(DIM(AA_SCALE, d)));
        axis.norm = 1.0 / sum;
    }
    return axis;
}

/* Tap j's input index along dimension d, clamped to the input. */
uint tap_index(int d, Axis axis, int j)
{
    int first = axis.first + (DIM(KIND, d) == RESAMPLE_KIND_FILTER ? DIM(AA_START, d) : 0);

    if (DIM(KIND, d) == RESAMPLE_KIND_COPY)
        return uint(axis.first);
    return uint(clamp(first + j, 0, int(DIM(IN_SIZE, d)) - 1));
}

float tap_weight(int d, Axis axis, int j)
{
    precise float w;

    if (DIM(KIND, d) == RESAMPLE_KIND_LINEAR)
        return j == 0 ? 1.0 - axis.frac : axis.frac;
    if (DIM(KIND, d) != RESAMPLE_KIND_FILTER)
        return 1.0;
    w = max(0.0, 1.0 - abs(float(DIM(AA_START, d) + j) - axis.frac) * uintBitsToFloat(DIM(AA_SCALE, d)));
    return w * axis.norm;
}

/* The output value's bits (32 bits at most; FLOAT16 in the low half). Integers: rounded to
 * nearest, ties to even, within the type's range (README "Resampling"). */
uint value_bits(float value)
{
    if (TYPE == TIO_TYPE_FLOAT16)
        return packHalf2x16(vec2(value, 0.0)) & 0xffffu;
    if (TYPE == TIO_TYPE_INT8)
        return uint(int(clamp(roundEven(value), -128.0, 127.0))) & 0xffu;
    if (TYPE == TIO_TYPE_UINT8)
        return uint(clamp(roundEven(value), 0.0, 255.0));
    return floatBitsToUint(value);
}

/* Output k of a periodic group: its first tap's place in the window (from the host: a constant
 * once specialized, so the arrays below stay in registers), and its fraction. */
int window_place(uint k, out float frac)
{
    precise float c = float(k) * uintBitsToFloat(INV_SCALE_4) + uintBitsToFloat(BIAS_4);

    frac = c - floor(c);
    return int(((k < 8u ? PLACES_LO : PLACES_HI) >> (4u * (k % 8u))) & 15u);
}

/* The row's VECTOR outputs from WINDOW inputs per outer tap (the taps of a periodic group). */
void periodic_row(uvec2 in_base, Axis axes[RESAMPLE_MAX_RANK], uint window_offsets[WINDOW], inout float sums[VECTOR],
        inout uint bits[VECTOR])
{
    float columns[WINDOW], outer_weight, w0, w1;
    uint values[WINDOW], outer_offset, t, i, k;
    float frac;
    int d, j, place;

    [[unroll]] for (i = 0; i < WINDOW; ++i)
        columns[i] = 0.0;
    for (t = 0; t < OUTER_TAPS; ++t)
    {
        uint tap = t;

        outer_offset = 0;
        outer_weight = 1.0;
        [[unroll]] for (d = LAST - 1; d >= 0; --d)
        {
            j = int(tap % TAPS(d));
            tap /= TAPS(d);
            outer_offset += tap_index(d, axes[d], j) * DIM(IN_STRIDE, d);
            if (!MOVE_BITS)
                outer_weight *= tap_weight(d, axes[d], j);
        }
        if (!MOVE_BITS && outer_weight == 0.0)
            continue;
        [[unroll]] for (i = 0; i < WINDOW; ++i)
        {
            uint index = outer_offset + window_offsets[i];

            if (MOVE_BITS)
                values[i] = load_bits(in_base, index);
            else
                columns[i] += outer_weight * load_float(in_base, index);
        }
    }
    [[unroll]] for (k = 0; k < VECTOR; ++k)
    {
        place = window_place(k, frac);
        if (MOVE_BITS)
        {
            bits[k] = values[place];
            continue;
        }
        w0 = 1.0 - frac;
        w1 = frac;
        /* A tap of weight 0 adds nothing, even an infinity (README "Resampling"). */
        sums[k] = (w0 != 0.0 ? w0 * columns[place] : 0.0) + (w1 != 0.0 ? w1 * columns[place + 1] : 0.0);
    }
}

/* The outputs: bits moved, or sums rounded once to the type (FLOAT16 two at a time). */
void store_outputs(uvec2 out_base, uint out_offset, uint x_first, uint bits[VECTOR], float sums[VECTOR])
{
    uint size = tio_element_size(TYPE);
    uint k;

    /* A whole vector of a packed output starting 16-byte aligned: one store. */
    if (VECTOR * size == 16u && OUT_PACKED && x_first + VECTOR <= OUT_SIZE_4 && (out_base.x & 15u) == 0u
            && ((out_offset * size) & 15u) == 0u)
    {
        uvec4 words = uvec4(0u);

        [[unroll]] for (k = 0; k < VECTOR; ++k)
        {
            if (!MOVE_BITS && TYPE == TIO_TYPE_FLOAT16 && k % 2u == 0u)
                words[k / 2u] = packHalf2x16(vec2(sums[k], sums[k + 1u]));
            else if (!MOVE_BITS && TYPE == TIO_TYPE_FLOAT32)
                words[k] = floatBitsToUint(sums[k]);
            else if (MOVE_BITS || !tio_is_float(TYPE))
                words[k * size / 4u] |= ((MOVE_BITS ? bits[k] : value_bits(sums[k])) & tio_type_mask(TYPE))
                        << (8u * (k * size % 4u));
        }
        TioVector(tio_element_address(out_base, out_offset, size)).v = words;
        return;
    }
    [[unroll]] for (k = 0; k < VECTOR; ++k)
    {
        if (x_first + k < OUT_SIZE_4)
            tio_store_bits(TYPE, out_base, out_offset + k * OUT_STRIDE_4, MOVE_BITS ? bits[k] : value_bits(sums[k]));
    }
}

void main()
{
    uint group = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);
    uint invocation = group * RESAMPLE_THREADS + gl_LocalInvocationIndex;
    uvec2 in_base = vkdml_binding_address(VkdmlDescriptorTable(push.table), IN_SLOT, IN_OFFSET_LO, IN_OFFSET_HI);
    uvec2 out_base = vkdml_binding_address(VkdmlDescriptorTable(push.table), OUT_SLOT, OUT_OFFSET_LO, OUT_OFFSET_HI);
    uint rest, x_first, y_first, plane_offset = 0, outer_offset, bits[VECTOR], t, k, r;
    uint tap_offsets[HOISTED];
    float tap_weights[HOISTED];
    Axis axes[RESAMPLE_MAX_RANK], inner[VECTOR];
    float sums[VECTOR], sum, outer_weight;
    int d, j;

    uint window_offsets[WINDOW];
    bool periodic;
    int window_first;

    if (invocation >= INVOCATIONS)
        return;
    /* VECTOR outputs of ROWS rows (dimension LAST - 1) of one plane (the dimensions before). */
    x_first = (invocation % ROW_GROUPS) * VECTOR;
    window_first = int(invocation % ROW_GROUPS * PERIOD) + REL_MIN;
    /* Every invocation of a periodic operator takes the periodic path (no divergence at the edges):
     * its window's indices are clamped as each tap's would be. */
    periodic = PERIODIC;
    if (PERIODIC)
    {
        [[unroll]] for (k = 0; k < WINDOW; ++k)
            window_offsets[k] = uint(clamp(window_first + int(k), 0, int(IN_SIZE_4) - 1)) * IN_STRIDE_4;
    }
    rest = invocation / ROW_GROUPS;
    y_first = (rest % ROW_BLOCKS) * ROWS;
    rest /= ROW_BLOCKS;
    [[unroll]] for (d = LAST - 2; d >= 0; --d)
    {
        uint x = rest % DIM(OUT_SIZE, d);

        rest /= DIM(OUT_SIZE, d);
        plane_offset += x * DIM(OUT_STRIDE, d);
        axes[d] = make_axis(d, x);
    }
    [[unroll]] for (k = 0; k < VECTOR; ++k)
    {
        inner[k] = make_axis(LAST, min(x_first + k, OUT_SIZE_4 - 1));
        if (HOIST)
        {
            [[unroll]] for (j = 0; j < int(TAPS(LAST)); ++j)
            {
                tap_offsets[k * TAPS(LAST) + j] = tap_index(LAST, inner[k], j) * IN_STRIDE_4;
                tap_weights[k * TAPS(LAST) + j] = tap_weight(LAST, inner[k], j);
            }
        }
    }

    for (r = 0; r < ROWS; ++r)
    {
        uint y = y_first + r;

        if (y >= OUT_SIZE_3)
            break;
        axes[LAST - 1] = make_axis(LAST - 1, y);
        [[unroll]] for (k = 0; k < VECTOR; ++k)
        {
            sums[k] = 0.0;
            bits[k] = 0u;
        }
        if (periodic)
        {
            periodic_row(in_base, axes, window_offsets, sums, bits);
            store_outputs(out_base, plane_offset + y * OUT_STRIDE_3 + x_first * OUT_STRIDE_4, x_first, bits, sums);
            continue;
        }
        /* Every outer tap (a product of the outer dimensions' taps), then the row's own. */
        for (t = 0; t < OUTER_TAPS; ++t)
        {
            uint tap = t;

            outer_offset = 0;
            outer_weight = 1.0;
            [[unroll]] for (d = LAST - 1; d >= 0; --d)
            {
                j = int(tap % TAPS(d));
                tap /= TAPS(d);
                outer_offset += tap_index(d, axes[d], j) * DIM(IN_STRIDE, d);
                if (!MOVE_BITS)
                    outer_weight *= tap_weight(d, axes[d], j);
            }
            if (!MOVE_BITS && outer_weight == 0.0)
                continue;
            [[unroll]] for (k = 0; k < VECTOR; ++k)
            {
                if (MOVE_BITS)
                {
                    bits[k] = load_bits(in_base, outer_offset + (HOIST ? tap_offsets[k]
                            : tap_index(LAST, inner[k], 0) * IN_STRIDE_4));
                    continue;
                }
                sum = 0.0;
                for (j = 0; j < int(TAPS(LAST)); ++j)
                {
                    float w = HOIST ? tap_weights[k * TAPS(LAST) + j] : tap_weight(LAST, inner[k], j);
                    uint offset = HOIST ? tap_offsets[k * TAPS(LAST) + j] : tap_index(LAST, inner[k], j) * IN_STRIDE_4;

                    /* A tap of weight 0 adds nothing, even an infinity (README "Resampling"). */
                    if (w != 0.0)
                        sum += w * load_float(in_base, outer_offset + offset);
                }
                sums[k] += outer_weight * sum;
            }
        }
        store_outputs(out_base, plane_offset + y * OUT_STRIDE_3 + x_first * OUT_STRIDE_4, x_first, bits, sums);
    }
}
