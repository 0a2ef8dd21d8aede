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

const uint BEFORE = (LOCAL_SIZE - 1u) / 2u, AFTER = LOCAL_SIZE / 2u;

/* The clipped window [first, last] around `i` along a dimension of `size`. */
uvec2 window(uint i, uint size)
{
    return uvec2(i >= BEFORE ? i - BEFORE : 0u, min(i + AFTER, size - 1u));
}

float square(uvec2 base, uint offset)
{
    float x = tio_load_float(TYPE, base, offset);

    return x * x;
}

void main()
{
    uint group = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);
    uint index = group * NORM_THREADS + gl_LocalInvocationIndex;
    uvec2 input_base = vkdml_binding_address(VkdmlDescriptorTable(push.table), IN_SLOT, IN_OFFSET_LO, IN_OFFSET_HI);
    uvec2 output_base = vkdml_binding_address(VkdmlDescriptorTable(push.table), OUT_SLOT, OUT_OFFSET_LO,
            OUT_OFFSET_HI);
    uint w = index % SIZE_W, h = (index / SIZE_W) % SIZE_H, c = (index / (SIZE_W * SIZE_H)) % SIZE_C;
    uint n = index / (SIZE_W * SIZE_H * SIZE_C), origin;
    float sum = 0.0, x, base;
    uvec2 span, rows, columns;

    if (index >= SIZE_N * SIZE_C * SIZE_H * SIZE_W)
        return;
    origin = n * IN_STRIDE_N + c * IN_STRIDE_C + h * IN_STRIDE_H + w * IN_STRIDE_W;
    x = tio_load_float(TYPE, input_base, origin);
    if (CROSS_CHANNEL)
    {
        span = window(c, SIZE_C);
        origin -= c * IN_STRIDE_C;
        for (uint i = span.x; i <= span.y; ++i)
            sum += square(input_base, origin + i * IN_STRIDE_C);
    }
    else
    {
        rows = window(h, SIZE_H);
        columns = window(w, SIZE_W);
        origin -= h * IN_STRIDE_H + w * IN_STRIDE_W;
        for (uint y = rows.x; y <= rows.y; ++y)
        {
            for (uint i = columns.x; i <= columns.y; ++i)
                sum += square(input_base, origin + y * IN_STRIDE_H + i * IN_STRIDE_W);
        }
    }
    /* pow() is undefined for a base <= 0: exp2(log2()) makes 0 give 0 (Beta > 0) and a negative base
     * NaN; a NaN in the window is kept explicitly (drivers need not carry it through log2 and exp2). */
    base = push.bias + push.alpha_over_size * sum;
    tio_store_float(TYPE, output_base, n * OUT_STRIDE_N + c * OUT_STRIDE_C + h * OUT_STRIDE_H + w * OUT_STRIDE_W,
            vkdml_isnan(base) ? base : x / exp2(push.beta * log2(base)));
}
