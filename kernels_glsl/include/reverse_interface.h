/*
 * Interface of kernels_glsl/reverse.comp (DML_OPERATOR_REVERSE_SUBSEQUENCES), shared by C
 * (backend_vk/ops/reverse.c) and GLSL.
 *
 * Input, output and sequence lengths of rank 1 to 8 (leading dimensions of size 1 added), each
 * through its element strides; the lengths' stride on the axis is unused (its size there is 1).
 * Output element c gets input element c with c[axis] replaced by length - 1 - c[axis] where
 * c[axis] < length, the length (the lengths tensor's element at c, axis coordinate 0) clamped
 * to the axis size (README "Reverse subsequences"). Elements move as bits; a packed output
 * takes 16 bytes of them per invocation (VECTOR).
 */
#ifndef VKDML_REVERSE_INTERFACE_H
#define VKDML_REVERSE_INTERFACE_H

#define REVERSE_MAX_RANK 8
#define REVERSE_THREADS 256

#define REVERSE_SPEC_TYPE               0   /* TIO_TYPE_* (tensor_io.glsl) of the input and output */
#define REVERSE_SPEC_LENGTH_TYPE        (REVERSE_SPEC_TYPE + 1)     /* UINT32 or UINT64 */
#define REVERSE_SPEC_AXIS               (REVERSE_SPEC_LENGTH_TYPE + 1)  /* kernel dimension */
#define REVERSE_SPEC_COUNT_ELEMENTS     (REVERSE_SPEC_AXIS + 1)
#define REVERSE_SPEC_VECTOR             (REVERSE_SPEC_COUNT_ELEMENTS + 1)   /* output elements per invocation */
#define REVERSE_SPEC_OUT_PACKED         (REVERSE_SPEC_VECTOR + 1)   /* 1: output element i is at offset i */
#define REVERSE_SPEC_SIZES              (REVERSE_SPEC_OUT_PACKED + 1)   /* REVERSE_MAX_RANK */
#define REVERSE_SPEC_IN_STRIDES         (REVERSE_SPEC_SIZES + REVERSE_MAX_RANK)
#define REVERSE_SPEC_OUT_STRIDES        (REVERSE_SPEC_IN_STRIDES + REVERSE_MAX_RANK)
#define REVERSE_SPEC_LENGTH_STRIDES     (REVERSE_SPEC_OUT_STRIDES + REVERSE_MAX_RANK)
/* Locations: descriptor slot, then the byte offset in the binding as low, high words. */
#define REVERSE_SPEC_IN_LOCATION        (REVERSE_SPEC_LENGTH_STRIDES + REVERSE_MAX_RANK)
#define REVERSE_SPEC_LENGTH_LOCATION    (REVERSE_SPEC_IN_LOCATION + 3)
#define REVERSE_SPEC_OUT_LOCATION       (REVERSE_SPEC_LENGTH_LOCATION + 3)
#define REVERSE_SPEC_COUNT              (REVERSE_SPEC_OUT_LOCATION + 3)

#ifdef VULKAN

/* Bytes [0, 8): the descriptor table's device address (ops_private.h). */
layout(push_constant, std430) uniform ReversePush
{
    uvec2 table;
} push;

#endif

#endif /* VKDML_REVERSE_INTERFACE_H */
