#version 460
#extension GL_GOOGLE_include_directive : require
/*
 * DML_OPERATOR_BATCH_NORMALIZATION (normalization_interface.h): Output = activation(Scale *
 * (Input - Mean) / sqrt(Variance + Epsilon) + Bias), in fp32 whatever the tensors' type.
 *
 * One pass over memory: each invocation reads NORM_VECTOR consecutive input elements of the
 * last (merged) dimension, one 16-byte load where the input and output are contiguous and
 * 16-byte aligned, and writes them likewise; consecutive invocations take consecutive vectors,
 * so loads and stores coalesce. The four parameters are tiny and broadcast (per channel in the
 * usual case): their loads hit the cache, and the normalization costs one reciprocal square root
 * per vector where its elements share them (the special-function units would otherwise bound
 * FLOAT16, 8 elements a vector, on a large GPU).
 */
#include "common.glsl"
#include "dml_interface.h"
#include "tensor_io.glsl"
#include "normalization_interface.h"

#define ACTIVATION_SPEC_BASE BN_SPEC_ACTIVATION
#include "activation.glsl"

layout(local_size_x = NORM_THREADS, local_size_y = 1, local_size_z = 1) in;

layout(constant_id = BN_SPEC_TYPE) const uint TYPE = TIO_TYPE_FLOAT32;
layout(constant_id = BN_SPEC_VECTOR) const uint VECTOR = 1;
layout(constant_id = BN_SPEC_COUNT_ELEMENTS) const uint COUNT = 1;
layout(constant_id = BN_SPEC_EPSILON) const uint EPSILON_BITS = 0;
layout(constant_id = BN_SPEC_SIZES + 0) const uint SIZE_0 = 1;
layout(constant_id = BN_SPEC_SIZES + 1) const uint SIZE_1 = 1;
layout(constant_id = BN_SPEC_SIZES + 2) const uint SIZE_2 = 1;
layout(constant_id = BN_SPEC_SIZES + 3) const uint SIZE_3 = 1;
layout(constant_id = BN_SPEC_SIZES + 4) const uint SIZE_4 = 1;
layout(constant_id = BN_SPEC_SIZES + 5) const uint SIZE_5 = 1;
layout(constant_id = BN_SPEC_SIZES + 6) const uint SIZE_6 = 1;
layout(constant_id = BN_SPEC_SIZES + 7) const uint SIZE_7 = 1;

/* Strides of tensor t (0: input, 1-4: Mean, Variance, Scale, Bias, 5: output) over dimension d. */
#define STRIDE_CONSTANTS(t) \
    layout(constant_id = BN_SPEC_STRIDES + (t) * NORM_MAX_RANK + 0) const uint STRIDE_##t##_0 = 0; \
    layout(constant_id = BN_SPEC_STRIDES + (t) * NORM_MAX_RANK + 1) const uint STRIDE_##t##_1 = 0; \
    layout(constant_id = BN_SPEC_STRIDES + (t) * NORM_MAX_RANK + 2) const uint STRIDE_##t##_2 = 0; \
    layout(constant_id = BN_SPEC_STRIDES + (t) * NORM_MAX_RANK + 3) const uint STRIDE_##t##_3 = 0; \
    layout(constant_id = BN_SPEC_STRIDES + (t) * NORM_MAX_RANK + 4) const uint STRIDE_##t##_4 = 0; \
    layout(constant_id = BN_SPEC_STRIDES + (t) * NORM_MAX_RANK + 5) const uint STRIDE_##t##_5 = 0; \
    layout(constant_id = BN_SPEC_STRIDES + (t) * NORM_MAX_RANK + 6) const uint STRIDE_##t##_6 = 0; \
    layout(constant_id = BN_SPEC_STRIDES + (t) * NORM_MAX_RANK + 7) const uint STRIDE_##t##_7 = 0; \
    layout(constant_id = BN_SPEC_LOCATIONS + 3 * (t) + 0) const uint SLOT_##t = 0; \
    layout(constant_id = BN_SPEC_LOCATIONS + 3 * (t) + 1) const uint OFFSET_LO_##t = 0; \
    layout(constant_id = BN_SPEC_LOCATIONS + 3 * (t) + 2) const uint OFFSET_HI_##t = 0;
STRIDE_CONSTANTS(0)
STRIDE_CONSTANTS(1)
STRIDE_CONSTANTS(2)
STRIDE_CONSTANTS(3)
STRIDE_CONSTANTS(4)
STRIDE_CONSTANTS(5)

#define DIM(name, d) ((d) == 0 ? name##_0 : (d) == 1 ? name##_1 : (d) == 2 ? name##_2 : (d) == 3 ? name##_3 \
        : (d) == 4 ? name##_4 : (d) == 5 ? name##_5 : (d) == 6 ? name##_6 : name##_7)
#define STRIDE(t, d) ((t) == 0 ? DIM(STRIDE_0, d) : (t) == 1 ? DIM(STRIDE_1, d) : (t) == 2 ? DIM(STRIDE_2, d) \
        : (t) == 3 ? DIM(STRIDE_3, d) : (t) == 4 ? DIM(STRIDE_4, d) : DIM(STRIDE_5, d))
#define BASE(t) vkdml_binding_address(table, SLOT_##t, OFFSET_LO_##t, OFFSET_HI_##t)

const uint INPUT = 0u, MEAN = 1u, VARIANCE = 2u, SCALE = 3u, BIAS = 4u, OUTPUT = 5u;
const bool SHARED_PARAMETERS = STRIDE_1_7 == 0u && STRIDE_2_7 == 0u && STRIDE_3_7 == 0u && STRIDE_4_7 == 0u;

void main()
{
    uint group = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);
    uint first = (group * NORM_THREADS + gl_LocalInvocationIndex) * VECTOR, index = first;
    VkdmlDescriptorTable table = VkdmlDescriptorTable(push.table);
    uvec2 base[NORM_TENSORS] = uvec2[](BASE(0), BASE(1), BASE(2), BASE(3), BASE(4), BASE(5));
    uint offset[NORM_TENSORS] = uint[](0u, 0u, 0u, 0u, 0u, 0u);
    float epsilon = uintBitsToFloat(EPSILON_BITS), values[8], mean, variance, scale, bias, factor;
    uvec4 words;

    if (first >= COUNT)
        return;
    /* The vector's coordinates: it lies within one row of the last dimension (C side). */
    [[unroll]] for (int d = NORM_MAX_RANK - 1; d >= 0; --d)
    {
        uint coordinate = index % DIM(SIZE, d);

        [[unroll]] for (uint t = 0; t < NORM_TENSORS; ++t)
            offset[t] += coordinate * STRIDE(t, d);
        index /= DIM(SIZE, d);
    }

    bool vector_io = VECTOR > 1u && ((base[INPUT].x | base[OUTPUT].x) & 15u) == 0u;
    if (vector_io)
    {
        words = TioVector(tio_element_address(base[INPUT], offset[INPUT], tio_element_size(TYPE))).v;
        [[unroll]] for (uint k = 0; k < VECTOR; ++k)
        {
            values[k] = TYPE == TIO_TYPE_FLOAT16 ? unpackHalf2x16(words[k / 2u] >> (16u * (k % 2u))).x
                    : uintBitsToFloat(words[k]);
        }
    }
    else
    {
        [[unroll]] for (uint k = 0; k < VECTOR; ++k)
            values[k] = tio_load_float(TYPE, base[INPUT], offset[INPUT] + k * STRIDE_0_7);
    }

    [[unroll]] for (uint k = 0; k < VECTOR; ++k)
    {
        /* Per-channel parameters are the vector's for all its elements: one reciprocal square root. */
        if (k == 0u || !SHARED_PARAMETERS)
        {
            mean = tio_load_float(TYPE, base[MEAN], offset[MEAN] + k * STRIDE_1_7);
            variance = tio_load_float(TYPE, base[VARIANCE], offset[VARIANCE] + k * STRIDE_2_7);
            scale = tio_load_float(TYPE, base[SCALE], offset[SCALE] + k * STRIDE_3_7);
            bias = tio_load_float(TYPE, base[BIAS], offset[BIAS] + k * STRIDE_4_7);
            factor = scale * inversesqrt(variance + epsilon);
        }
        values[k] = vkdml_activation((values[k] - mean) * factor + bias);
    }

    if (vector_io)
    {
        words = uvec4(0u);
        [[unroll]] for (uint k = 0; k < VECTOR; ++k)
        {
            if (TYPE == TIO_TYPE_FLOAT16)
                words[k / 2u] |= (packHalf2x16(vec2(values[k], 0.0)) & 0xffffu) << (16u * (k % 2u));
            else
                words[k] = floatBitsToUint(values[k]);
        }
        TioVector(tio_element_address(base[OUTPUT], offset[OUTPUT], tio_element_size(TYPE))).v = words;
    }
    else
    {
        [[unroll]] for (uint k = 0; k < VECTOR; ++k)
            tio_store_float(TYPE, base[OUTPUT], offset[OUTPUT] + k * STRIDE_5_7, values[k]);
    }
}
