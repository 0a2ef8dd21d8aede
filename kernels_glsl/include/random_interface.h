/*
 * Interface of kernels_glsl/random.comp (DML_OPERATOR_RANDOM_GENERATOR, Philox 4x32-10), shared
 * by C (backend_vk/ops/random.c) and GLSL.
 *
 * The state tensors hold six UINT32 words (README "Random numbers"): a 128-bit counter, least
 * significant word first, then the 64-bit key, low word first. Output element i (row-major
 * logical index) is word i % 4 of Philox(counter + i / 4, key); the output state is the input
 * state with the counter advanced by ceil(count / 4). One invocation computes one Philox block
 * (four consecutive elements). Everything is a specialization constant: the operator has no
 * values to push.
 */
#ifndef VKDML_RANDOM_INTERFACE_H
#define VKDML_RANDOM_INTERFACE_H

#define RANDOM_MAX_RANK 8
#define RANDOM_THREADS 256
#define RANDOM_STATE_WORDS 6

#define RANDOM_SPEC_COUNT_ELEMENTS      0
#define RANDOM_SPEC_PACKED              (RANDOM_SPEC_COUNT_ELEMENTS + 1)    /* 1: element i is at offset i */
#define RANDOM_SPEC_SIZES               (RANDOM_SPEC_PACKED + 1)            /* RANDOM_MAX_RANK */
#define RANDOM_SPEC_STRIDES             (RANDOM_SPEC_SIZES + RANDOM_MAX_RANK)
/* Locations: descriptor slot, then the byte offset in the binding as low, high words. */
#define RANDOM_SPEC_OUT_LOCATION        (RANDOM_SPEC_STRIDES + RANDOM_MAX_RANK)
#define RANDOM_SPEC_IN_STATE_LOCATION   (RANDOM_SPEC_OUT_LOCATION + 3)
#define RANDOM_SPEC_IN_STATE_STRIDE     (RANDOM_SPEC_IN_STATE_LOCATION + 3)  /* elements between words */
#define RANDOM_SPEC_HAS_OUT_STATE       (RANDOM_SPEC_IN_STATE_STRIDE + 1)
#define RANDOM_SPEC_OUT_STATE_LOCATION  (RANDOM_SPEC_HAS_OUT_STATE + 1)
#define RANDOM_SPEC_OUT_STATE_STRIDE    (RANDOM_SPEC_OUT_STATE_LOCATION + 3)
#define RANDOM_SPEC_COUNT               (RANDOM_SPEC_OUT_STATE_STRIDE + 1)

#ifdef VULKAN

/* Bytes [0, 8): the descriptor table's device address (ops_private.h). */
layout(push_constant, std430) uniform RandomPush
{
    uvec2 table;
} push;

#endif

#endif /* VKDML_RANDOM_INTERFACE_H */
