/*
 * Interface of kernels_glsl/movement.comp (the strided-copy service, backend_vk/ops/movement.c),
 * shared by C and GLSL.
 *
 * One copy of rank 1 to 8 (leading dimensions of size 1 added): destination element c (index 0
 * outermost) gets source element source.w + sum s_i * SOURCE_STRIDE_i, where s_i is c_i, or,
 * on a bounded dimension (BOUND_SIZE_i > 0), c_i - BOUND_START_i mapped into [0, BOUND_SIZE_i)
 * by MODE (MOVEMENT_MODE_*): CONSTANT writes the pushed value outside, the others fold the
 * coordinate back (PADDING's modes; WRAP is TILE's too). Offsets count elements; 32-bit
 * arithmetic wraps, so negative strides (SLICE1) are two's complement.
 *
 * Four paths (MOVEMENT_SPEC_PATH, MOVEMENT_PATH_*): rows, where the innermost dimension is
 * contiguous and unbounded on both sides, 16 bytes per invocation (ROW_CHUNKS of them per row);
 * chunks, where the destination is packed, 16 bytes of consecutive destination elements per
 * invocation (sources gathered element by element); gathered rows, where only the destination's
 * innermost dimension is contiguous, 16 bytes of a row per invocation (ROW_CHUNKS of them per
 * row, sources gathered); else one destination element per invocation. Consecutive
 * invocations write consecutive destination bytes in each.
 */
#ifndef VKDML_MOVEMENT_INTERFACE_H
#define VKDML_MOVEMENT_INTERFACE_H

#define MOVEMENT_MAX_RANK 8
#define MOVEMENT_THREADS 256

#define MOVEMENT_MODE_NONE 0
#define MOVEMENT_MODE_CONSTANT 1
#define MOVEMENT_MODE_EDGE 2
#define MOVEMENT_MODE_REFLECTION 3
#define MOVEMENT_MODE_SYMMETRIC 4
#define MOVEMENT_MODE_WRAP 5

#define MOVEMENT_PATH_ELEMENTS 0
#define MOVEMENT_PATH_ROWS 1
#define MOVEMENT_PATH_CHUNKS 2
#define MOVEMENT_PATH_GATHER_ROWS 3

#define MOVEMENT_SPEC_ELEMENT_SIZE 0                                        /* bytes: 1, 2, 4, 8 */
#define MOVEMENT_SPEC_PATH              (MOVEMENT_SPEC_ELEMENT_SIZE + 1)    /* MOVEMENT_PATH_* */
#define MOVEMENT_SPEC_MODE              (MOVEMENT_SPEC_PATH + 1)            /* MOVEMENT_MODE_* */
#define MOVEMENT_SPEC_INVOCATIONS       (MOVEMENT_SPEC_MODE + 1)
#define MOVEMENT_SPEC_ROW_CHUNKS        (MOVEMENT_SPEC_INVOCATIONS + 1)     /* row path: 16-byte chunks a row */
#define MOVEMENT_SPEC_SIZES             (MOVEMENT_SPEC_ROW_CHUNKS + 1)      /* MOVEMENT_MAX_RANK */
#define MOVEMENT_SPEC_SOURCE_STRIDES    (MOVEMENT_SPEC_SIZES + MOVEMENT_MAX_RANK)
#define MOVEMENT_SPEC_DESTINATION_STRIDES (MOVEMENT_SPEC_SOURCE_STRIDES + MOVEMENT_MAX_RANK)
#define MOVEMENT_SPEC_BOUND_SIZES       (MOVEMENT_SPEC_DESTINATION_STRIDES + MOVEMENT_MAX_RANK)
#define MOVEMENT_SPEC_BOUND_STARTS      (MOVEMENT_SPEC_BOUND_SIZES + MOVEMENT_MAX_RANK)
#define MOVEMENT_SPEC_COUNT             (MOVEMENT_SPEC_BOUND_STARTS + MOVEMENT_MAX_RANK)

#ifdef VULKAN

/* Bytes [0, 8): the descriptor table's device address (ops_private.h); then struct movement_push.
 * Locations are pushed, not specialized: the copies of a JOIN or SPLIT of equal shapes share one
 * pipeline. */
layout(push_constant, std430) uniform MovementPush
{
    uvec2 table;
    uvec2 value;        /* CONSTANT: 8 bytes of the value's bits repeated (low, high word) */
    uvec4 source;       /* descriptor slot, byte offset in the binding (low, high), first element */
    uvec4 destination;
} push;

#else

#include <stdint.h>

struct movement_push
{
    uint32_t value[2];
    uint32_t source[4];
    uint32_t destination[4];
};

#endif

#endif /* VKDML_MOVEMENT_INTERFACE_H */
