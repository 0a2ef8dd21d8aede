#version 460
#extension GL_GOOGLE_include_directive : require
/*
 * DML_OPERATOR_VALUE_SCALE_2D (value_scale_interface.h): one pass, consecutive invocations on
 * consecutive logical elements (coalesced). Packed tensors whose channel planes hold whole
 * vectors: one 16-byte load and store per invocation where both start 16-byte aligned; otherwise
 * element by element through the strides.
 *
 * Variants (kernels_glsl/meson.build, typed_kernels): FLOAT16 tensors need 16-bit storage.
 */
#include "common.glsl"
#include "dml_interface.h"
#include "tensor_io.glsl"
#include "value_scale_interface.h"

layout(local_size_x = VALUE_SCALE_THREADS, local_size_y = 1, local_size_z = 1) in;

layout(constant_id = VALUE_SCALE_SPEC_TYPE) const uint TYPE = TIO_TYPE_FLOAT32;
layout(constant_id = VALUE_SCALE_SPEC_COUNT_ELEMENTS) const uint COUNT = 1;
layout(constant_id = VALUE_SCALE_SPEC_VECTOR) const uint VECTOR = 1;
layout(constant_id = VALUE_SCALE_SPEC_PACKED) const bool PACKED = true;
layout(constant_id = VALUE_SCALE_SPEC_SIZES + 0) const uint SIZE_N = 1;
layout(constant_id = VALUE_SCALE_SPEC_SIZES + 1) const uint SIZE_C = 1;
layout(constant_id = VALUE_SCALE_SPEC_SIZES + 2) const uint SIZE_H = 1;
layout(constant_id = VALUE_SCALE_SPEC_SIZES + 3) const uint SIZE_W = 1;
layout(constant_id = VALUE_SCALE_SPEC_IN_STRIDES + 0) const uint IN_STRIDE_N = 0;
layout(constant_id = VALUE_SCALE_SPEC_IN_STRIDES + 1) const uint IN_STRIDE_C = 0;
layout(constant_id = VALUE_SCALE_SPEC_IN_STRIDES + 2) const uint IN_STRIDE_H = 0;
layout(constant_id = VALUE_SCALE_SPEC_IN_STRIDES + 3) const uint IN_STRIDE_W = 1;
layout(constant_id = VALUE_SCALE_SPEC_OUT_STRIDES + 0) const uint OUT_STRIDE_N = 0;
layout(constant_id = VALUE_SCALE_SPEC_OUT_STRIDES + 1) const uint OUT_STRIDE_C = 0;
layout(constant_id = VALUE_SCALE_SPEC_OUT_STRIDES + 2) const uint OUT_STRIDE_H = 0;
layout(constant_id = VALUE_SCALE_SPEC_OUT_STRIDES + 3) const uint OUT_STRIDE_W = 1;
layout(constant_id = VALUE_SCALE_SPEC_IN_LOCATION + 0) const uint IN_SLOT = 0;
layout(constant_id = VALUE_SCALE_SPEC_IN_LOCATION + 1) const uint IN_OFFSET_LO = 0;
layout(constant_id = VALUE_SCALE_SPEC_IN_LOCATION + 2) const uint IN_OFFSET_HI = 0;
layout(constant_id = VALUE_SCALE_SPEC_OUT_LOCATION + 0) const uint OUT_SLOT = 0;
layout(constant_id = VALUE_SCALE_SPEC_OUT_LOCATION + 1) const uint OUT_OFFSET_LO = 0;
layout(constant_id = VALUE_SCALE_SPEC_OUT_LOCATION + 2) const uint OUT_OFFSET_HI = 0;

const uint PLANE = SIZE_H * SIZE_W;

float bias(uint index)
{
    uint channel = index / PLANE % SIZE_C;

    return push.bias[min(channel, VALUE_SCALE_MAX_CHANNELS - 1)];
}

/* Scale * x + Bias[c], in fp32 as written (no contraction into a fused multiply-add). */
float scaled(float x, float b)
{
    precise float product = push.scale * x;
    precise float sum = product + b;

    return sum;
}

void scale_element(uvec2 source, uvec2 destination, uint index)
{
    uint w = index % SIZE_W, h = index / SIZE_W % SIZE_H, c = index / PLANE % SIZE_C, n = index / PLANE / SIZE_C;
    uint in_offset = PACKED ? index : n * IN_STRIDE_N + c * IN_STRIDE_C + h * IN_STRIDE_H + w * IN_STRIDE_W;
    uint out_offset = PACKED ? index : n * OUT_STRIDE_N + c * OUT_STRIDE_C + h * OUT_STRIDE_H + w * OUT_STRIDE_W;

    tio_store_float(TYPE, destination, out_offset, scaled(tio_load_float(TYPE, source, in_offset), bias(index)));
}

/* 16 bytes of packed elements from `first` (within one channel plane). */
uvec4 scale_vector(uvec4 words, uint first)
{
    float b = bias(first);

    [[unroll]] for (uint k = 0; k < 4u; ++k)
    {
        if (TYPE == TIO_TYPE_FLOAT16)
        {
            vec2 pair = unpackHalf2x16(words[k]);

            words[k] = packHalf2x16(vec2(scaled(pair.x, b), scaled(pair.y, b)));
        }
        else
        {
            words[k] = floatBitsToUint(scaled(uintBitsToFloat(words[k]), b));
        }
    }
    return words;
}

void main()
{
    uint group = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);
    uint first = (group * VALUE_SCALE_THREADS + gl_LocalInvocationIndex) * VECTOR;
    VkdmlDescriptorTable table = VkdmlDescriptorTable(push.table);
    uvec2 source = vkdml_binding_address(table, IN_SLOT, IN_OFFSET_LO, IN_OFFSET_HI);
    uvec2 destination = vkdml_binding_address(table, OUT_SLOT, OUT_OFFSET_LO, OUT_OFFSET_HI);
    uint size = TYPE == TIO_TYPE_FLOAT16 ? 2u : 4u;

    if (first >= COUNT)
        return;
    /* Uniform: the same for every invocation. VECTOR > 1 only where planes hold whole vectors. */
    if (VECTOR > 1u && ((source.x | destination.x) & 15u) == 0u)
    {
        TioVector(tio_element_address(destination, first, size)).v
                = scale_vector(TioVector(tio_element_address(source, first, size)).v, first);
        return;
    }
    [[unroll]] for (uint k = 0; k < VECTOR; ++k)
    {
        if (first + k < COUNT)
            scale_element(source, destination, first + k);
    }
}
