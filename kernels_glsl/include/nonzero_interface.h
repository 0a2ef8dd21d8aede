/*
 * Interface of kernels_glsl/nonzero.comp (DML_OPERATOR_NONZERO_COORDINATES), shared by C
 * (backend_vk/ops/nonzero.c) and GLSL.
 *
 * Three dispatches, no atomics (docs/kernels.md, "NONZERO_COORDINATES"):
 *     COUNT  workgroup b counts the nonzero elements of block b (BLOCK consecutive logical
 *            elements, whole chunks of NONZERO_CHUNK: NONZERO_ITEMS consecutive elements per
 *            invocation) into word b of the temporary resource;
 *     SCAN   one workgroup turns those counts into exclusive offsets (in place) and writes the
 *            total to OutputCountTensor;
 *     WRITE  workgroup b reads block b again and writes the coordinates of its nonzero elements
 *            from row offsets[b] on, in row-major order.
 * The input has rank 1 to 8 (leading dimensions of size 1 added); a coordinates row holds its
 * last COORDINATES coordinates.
 */
#ifndef VKDML_NONZERO_INTERFACE_H
#define VKDML_NONZERO_INTERFACE_H

#define NONZERO_MAX_RANK 8
#define NONZERO_THREADS 256
#define NONZERO_ITEMS 4
#define NONZERO_CHUNK (NONZERO_THREADS * NONZERO_ITEMS)
/* SCAN's blocks per invocation: at most NONZERO_THREADS * NONZERO_SCAN_ITEMS blocks. */
#define NONZERO_SCAN_ITEMS 32
#define NONZERO_MAX_BLOCKS (NONZERO_THREADS * NONZERO_SCAN_ITEMS)

#define NONZERO_MODE_COUNT 0
#define NONZERO_MODE_SCAN 1
#define NONZERO_MODE_WRITE 2

#define NONZERO_SPEC_MODE 0
#define NONZERO_SPEC_TYPE               (NONZERO_SPEC_MODE + 1)         /* TIO_TYPE_* of the input */
#define NONZERO_SPEC_PACKED             (NONZERO_SPEC_TYPE + 1)         /* 1: element i at offset i */
#define NONZERO_SPEC_COUNT_ELEMENTS     (NONZERO_SPEC_PACKED + 1)
#define NONZERO_SPEC_BLOCK              (NONZERO_SPEC_COUNT_ELEMENTS + 1)   /* a multiple of NONZERO_CHUNK */
#define NONZERO_SPEC_BLOCKS             (NONZERO_SPEC_BLOCK + 1)
#define NONZERO_SPEC_COORDINATES        (NONZERO_SPEC_BLOCKS + 1)       /* per row, 1 to 8 */
#define NONZERO_SPEC_ROW_STRIDE         (NONZERO_SPEC_COORDINATES + 1)  /* of OutputCoordinatesTensor */
#define NONZERO_SPEC_COLUMN_STRIDE      (NONZERO_SPEC_ROW_STRIDE + 1)
#define NONZERO_SPEC_SIZES              (NONZERO_SPEC_COLUMN_STRIDE + 1)    /* NONZERO_MAX_RANK */
#define NONZERO_SPEC_STRIDES            (NONZERO_SPEC_SIZES + NONZERO_MAX_RANK)
/* Locations (descriptor slot, byte offset low, high): input, count, coordinates, block words. */
#define NONZERO_SPEC_IN_LOCATION        (NONZERO_SPEC_STRIDES + NONZERO_MAX_RANK)
#define NONZERO_SPEC_COUNT_LOCATION     (NONZERO_SPEC_IN_LOCATION + 3)
#define NONZERO_SPEC_COORDINATES_LOCATION (NONZERO_SPEC_COUNT_LOCATION + 3)
#define NONZERO_SPEC_BLOCKS_LOCATION    (NONZERO_SPEC_COORDINATES_LOCATION + 3)
#define NONZERO_SPEC_COUNT              (NONZERO_SPEC_BLOCKS_LOCATION + 3)

#ifdef VULKAN

/* Bytes [0, 8): the descriptor table's device address (ops_private.h). */
layout(push_constant, std430) uniform NonzeroPush
{
    uvec2 table;
} push;

#endif

#endif /* VKDML_NONZERO_INTERFACE_H */
