/*
 * Interface of kernels_glsl/value_scale.comp (DML_OPERATOR_VALUE_SCALE_2D), shared by C
 * (backend_vk/ops/value_scale.c) and GLSL.
 *
 * Input and output {N, C, H, W} of FLOAT32 or FLOAT16 through their element strides: output =
 * Scale * input + Bias[c], in fp32 (FLOAT16 rounded once, at the store). Where both tensors are
 * packed and every channel plane (H * W) holds whole 16-byte vectors, one invocation moves 16
 * bytes (VECTOR elements). Scale and Bias change no code: they are pushed.
 */
#ifndef VKDML_VALUE_SCALE_INTERFACE_H
#define VKDML_VALUE_SCALE_INTERFACE_H

#define VALUE_SCALE_THREADS 256
#define VALUE_SCALE_MAX_CHANNELS 3

#define VALUE_SCALE_SPEC_TYPE           0   /* TIO_TYPE_FLOAT32 or TIO_TYPE_FLOAT16 */
#define VALUE_SCALE_SPEC_COUNT_ELEMENTS (VALUE_SCALE_SPEC_TYPE + 1)
#define VALUE_SCALE_SPEC_VECTOR         (VALUE_SCALE_SPEC_COUNT_ELEMENTS + 1)  /* elements per invocation */
#define VALUE_SCALE_SPEC_PACKED         (VALUE_SCALE_SPEC_VECTOR + 1)   /* 1: both tensors row-major */
#define VALUE_SCALE_SPEC_SIZES          (VALUE_SCALE_SPEC_PACKED + 1)   /* 4: N, C, H, W */
#define VALUE_SCALE_SPEC_IN_STRIDES     (VALUE_SCALE_SPEC_SIZES + 4)
#define VALUE_SCALE_SPEC_OUT_STRIDES    (VALUE_SCALE_SPEC_IN_STRIDES + 4)
/* Locations: descriptor slot, then the byte offset in the binding as low, high words. */
#define VALUE_SCALE_SPEC_IN_LOCATION    (VALUE_SCALE_SPEC_OUT_STRIDES + 4)
#define VALUE_SCALE_SPEC_OUT_LOCATION   (VALUE_SCALE_SPEC_IN_LOCATION + 3)
#define VALUE_SCALE_SPEC_COUNT          (VALUE_SCALE_SPEC_OUT_LOCATION + 3)

#ifdef VULKAN

/* Bytes [0, 8): the descriptor table's device address (ops_private.h); then struct value_scale_push. */
layout(push_constant, std430) uniform ValueScalePush
{
    uvec2 table;
    float scale;
    float bias[VALUE_SCALE_MAX_CHANNELS];
} push;

#else

struct value_scale_push
{
    float scale;
    float bias[VALUE_SCALE_MAX_CHANNELS];
};

#endif

#endif /* VKDML_VALUE_SCALE_INTERFACE_H */
