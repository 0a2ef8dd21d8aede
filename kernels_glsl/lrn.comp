#version 460
#extension GL_GOOGLE_include_directive : require
/*
 * DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION (normalization_interface.h): Output = Input /
 * (Bias + Alpha / LocalSize * sum(Input^2 over the local region))^Beta, in fp32. The region is
 * LocalSize elements along C (CrossChannel) or LocalSize x LocalSize along H and W, from
 * floor((LocalSize - 1) / 2) before the element to floor(LocalSize / 2) after it, clipped to
 * the tensor (README "Normalization").
 *
 * One invocation per output element, consecutive invocations along W: the window's loads
 * coalesce across the workgroup and the neighbours' reads hit the cache, so memory sees about
 * one read and one write per element.
 */
#include "common.glsl"
#include "dml_interface.h"
#include "tensor_io.glsl"
#include "normalization_interface.h"

/* For vkdml_isnan() only: the activation's constants are unused. */
#define ACTIVATION_SPEC_BASE LRN_SPEC_COUNT
#include "activation.glsl"

layout(local_size_x = NORM_THREADS, local_size_y = 1, local_size_z = 1) in;

layout(constant_id = LRN_SPEC_TYPE) const uint TYPE = TIO_TYPE_FLOAT32;
layout(constant_id = LRN_SPEC_CROSS_CHANNEL) const bool CROSS_CHANNEL = true;
layout(constant_id = LRN_SPEC_LOCAL_SIZE) const uint LOCAL_SIZE = 1;
layout(constant_id = LRN_SPEC_SIZES + 0) const uint SIZE_N = 1;
layout(constant_id = LRN_SPEC_SIZES + 1) const uint SIZE_C = 1;
layout(constant_id = LRN_SPEC_SIZES + 2) const uint SIZE_H = 1;
layout(constant_id = LRN_SPEC_SIZES + 3) const uint SIZE_W = 1;
layout(constant_id = LRN_SPEC_IN_STRIDES + 0) const uint IN_STRIDE_N = 0;
layout(constant_id = LRN_SPEC_IN_STRIDES + 1) const uint IN_STRIDE_C = 0;
layout(constant_id = LRN_SPEC_IN_STRIDES + 2) const uint IN_STRIDE_H = 0;
layout(constant_id = LRN_SPEC_IN_STRIDES + 3) const uint IN_STRIDE_W = 0;
layout(constant_id = LRN_SPEC_OUT_STRIDES + 0) const uint OUT_STRIDE_N = 0;
layout(constant_id = LRN_SPEC_OUT_STRIDES + 1) const uint OUT_STRIDE_C = 0;
layout(constant_id = LRN_SPEC_OUT_STRIDES + 2) const uint OUT_STRIDE_H = 0;
layout(constant_id = LRN_SPEC_OUT_STRIDES + 3) const uint OUT_STRIDE_W = 0;
layout(constant_id = LRN_SPEC_IN_LOCATION + 0) const uint IN_SLOT = 0;
layout(constant_id = LRN_SPEC_IN_LOCATION + 1) const uint IN_OFFSET_LO = 0;
layout(constant_id = LRN_SPEC_IN_LOCATION + 2) const uint IN_OFFSET_HI = 0;
layout(constant_id = LRN_SPEC_OUT_LOCATION + 0) const uint OUT_SLOT = 0;
layout(constant_id = LRN_SPEC_OUT_LOCATION + 1) const uint OUT_OFFSET_LO = 0;
layout(constant_id = LRN_SPEC_OUT_LOCATION + 2) const uint OUT_OFFSET_HI = 0;

/* The window: BEFORE elements before the element, AFTER after it, clipped to the tensor. */
const uint BEFORE = (LOCAL_SIZE - 1u) / 2u;
const uint AFTER = LOCAL_SIZE / 2u;
/* Windows of more loads than this are summed by a loop over the clipped span: unrolled, a LocalSize
 * of 1001 across channels took lavapipe 17 s to compile, 65 within channels minutes. */
const uint MAX_UNROLLED_LOADS = 64u;
const bool UNROLLED = CROSS_CHANNEL ? LOCAL_SIZE <= MAX_UNROLLED_LOADS : LOCAL_SIZE <= 8u;

float square(uvec2 base, uint offset)
{
    float x = tio_load_float(TYPE, base, offset);

    return x * x;
}

/* The clipped span [first, last] of a window around i along a dimension of `size` entries. */
void clipped_span(uint i, uint size, out uint first, out uint last)
{
    first = i >= BEFORE ? i - BEFORE : 0u;
    last = size - 1u - i > AFTER ? i + AFTER : size - 1u;
}

/* The element of this invocation as (n, c, h, w); false past the tensor's end. Across channels, a
 * workgroup takes LRN_TILE_CHANNELS channels of LRN_TILE_SPATIAL consecutive positions: the
 * window's neighbours in the channels around are the workgroup's own loads, found in L1, so the
 * input goes through L2 about once instead of LocalSize times. */
bool element_of_invocation(out uint n, out uint c, out uint h, out uint w)
{
    uint group = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);
    uint index = group * NORM_THREADS + gl_LocalInvocationIndex, spatial_blocks, channel_blocks, s;

    if (!CROSS_CHANNEL)
    {
        w = index % SIZE_W, h = index / SIZE_W % SIZE_H, c = index / (SIZE_W * SIZE_H) % SIZE_C;
        n = index / (SIZE_W * SIZE_H * SIZE_C);
        return index < SIZE_N * SIZE_C * SIZE_H * SIZE_W;
    }
    spatial_blocks = (SIZE_H * SIZE_W + LRN_TILE_SPATIAL - 1u) / LRN_TILE_SPATIAL;
    channel_blocks = (SIZE_C + LRN_TILE_CHANNELS - 1u) / LRN_TILE_CHANNELS;
    s = group % spatial_blocks * LRN_TILE_SPATIAL + gl_LocalInvocationIndex % LRN_TILE_SPATIAL;
    c = group / spatial_blocks % channel_blocks * LRN_TILE_CHANNELS + gl_LocalInvocationIndex / LRN_TILE_SPATIAL;
    n = group / (spatial_blocks * channel_blocks);
    w = s % SIZE_W, h = s / SIZE_W;
    return s < SIZE_H * SIZE_W && c < SIZE_C && n < SIZE_N;
}

void main()
{
    uvec2 input_base = vkdml_binding_address(VkdmlDescriptorTable(push.table), IN_SLOT, IN_OFFSET_LO, IN_OFFSET_HI);
    uvec2 output_base = vkdml_binding_address(VkdmlDescriptorTable(push.table), OUT_SLOT, OUT_OFFSET_LO,
            OUT_OFFSET_HI);
    uint n, c, h, w, origin;
    float sum = 0.0, x, base;

    if (!element_of_invocation(n, c, h, w))
        return;
    origin = n * IN_STRIDE_N + c * IN_STRIDE_C + h * IN_STRIDE_H + w * IN_STRIDE_W;
    x = tio_load_float(TYPE, input_base, origin);
    /* Loops of LocalSize steps, unrolled once specialized: the window's loads are independent and
     * in flight together (a loop over the clipped span would wait for each in turn). */
    if (!UNROLLED)
    {
        /* The same terms in the same order, the loops' trip counts from the clipped spans. */
        uint first_c = c, last_c = c, first_h = h, last_h = h, first_w = w, last_w = w;

        origin -= c * IN_STRIDE_C + h * IN_STRIDE_H + w * IN_STRIDE_W;
        if (CROSS_CHANNEL)
            clipped_span(c, SIZE_C, first_c, last_c);
        else
            clipped_span(h, SIZE_H, first_h, last_h), clipped_span(w, SIZE_W, first_w, last_w);
        for (uint i = first_c; i <= last_c; ++i)
        {
            for (uint j = first_h; j <= last_h; ++j)
            {
                for (uint k = first_w; k <= last_w; ++k)
                    sum += square(input_base, origin + i * IN_STRIDE_C + j * IN_STRIDE_H + k * IN_STRIDE_W);
            }
        }
    }
    else if (CROSS_CHANNEL)
    {
        origin -= c * IN_STRIDE_C;
        [[unroll]] for (uint k = 0; k < LOCAL_SIZE; ++k)
        {
            if (c + k >= BEFORE && c + k - BEFORE < SIZE_C)
                sum += square(input_base, origin + (c + k - BEFORE) * IN_STRIDE_C);
        }
    }
    else
    {
        origin -= h * IN_STRIDE_H + w * IN_STRIDE_W;
        [[unroll]] for (uint j = 0; j < LOCAL_SIZE; ++j)
        {
            if (h + j < BEFORE || h + j - BEFORE >= SIZE_H)
                continue;
            [[unroll]] for (uint k = 0; k < LOCAL_SIZE; ++k)
            {
                if (w + k >= BEFORE && w + k - BEFORE < SIZE_W)
                    sum += square(input_base, origin + (h + j - BEFORE) * IN_STRIDE_H
                            + (w + k - BEFORE) * IN_STRIDE_W);
            }
        }
    }
    /* pow() is undefined for a base <= 0: exp2(log2()) makes 0 give 0 (Beta > 0) and a negative base
     * NaN; a NaN in the window is kept explicitly (drivers need not carry it through log2 and exp2). */
    base = push.bias + push.alpha_over_size * sum;
    tio_store_float(TYPE, output_base, n * OUT_STRIDE_N + c * OUT_STRIDE_C + h * OUT_STRIDE_H + w * OUT_STRIDE_W,
            vkdml_isnan(base) ? base : x / exp2(push.beta * log2(base)));
}
