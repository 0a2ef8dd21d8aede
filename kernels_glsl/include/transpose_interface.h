/*
 * Interface of kernels_glsl/transpose.comp (the tiled transpose of the strided-copy service,
 * backend_vk/ops/transpose.c), shared by C and GLSL.
 *
 * A copy whose source is contiguous along one dimension ("columns", source stride 1) and whose
 * destination is contiguous along another ("rows", destination stride 1): a workgroup moves a
 * TILE x TILE tile through shared memory, reading rows of the tile along the source's contiguous
 * dimension and writing columns of it along the destination's, both coalesced (a tile row may
 * span SPAN tiles' width). The other
 * dimensions (at most TRANSPOSE_MAX_OUTER, innermost first, size 1 when unused) are walked by the
 * workgroup grid: group g is row tile g % row_tiles, then column tile, then outer index.
 *
 * Elements move as bits of 1, 2, 4 or 8 bytes (8: two 32-bit words). The shape is pushed: it is
 * read once per workgroup, so a division by it costs nothing per element, and every shape of an
 * element size shares one pipeline.
 */
#ifndef VKDML_TRANSPOSE_INTERFACE_H
#define VKDML_TRANSPOSE_INTERFACE_H

#define TRANSPOSE_THREADS 256
#define TRANSPOSE_MAX_OUTER 6

#define TRANSPOSE_LANES 32              /* invocations along a tile row (or column) */
#define TRANSPOSE_STEP (TRANSPOSE_THREADS / TRANSPOSE_LANES)

#define TRANSPOSE_SPEC_ELEMENT_SIZE 0                           /* bytes: 1, 2, 4, 8 */
/* Elements an invocation moves as one access (1, or 2 for 2-byte elements: a word); the tile is
 * TRANSPOSE_LANES * VECTOR elements square. 2 requires every word to be 4-byte aligned: even
 * strides outside the contiguous dimensions, offsets multiple of 4 bytes. */
#define TRANSPOSE_SPEC_VECTOR (TRANSPOSE_SPEC_ELEMENT_SIZE + 1)
/* Tile columns per tile row, in units of the tile's height (1 or 2): more bytes per workgroup. */
#define TRANSPOSE_SPEC_SPAN (TRANSPOSE_SPEC_VECTOR + 1)
/* GPUs: the divisors of the workgroup's decomposition as constants (divisions become
 * multiplications); 0 on CPU devices, where they are read from the push constants so that
 * shapes share pipelines (docs/kernels.md, "Specialization vs push constants"). */
#define TRANSPOSE_SPEC_SPECIALIZED (TRANSPOSE_SPEC_SPAN + 1)
#define TRANSPOSE_SPEC_OUTER_RANK (TRANSPOSE_SPEC_SPECIALIZED + 1)      /* outer dimensions used */
#define TRANSPOSE_SPEC_COLUMN_TILES (TRANSPOSE_SPEC_OUTER_RANK + 1)
#define TRANSPOSE_SPEC_ROW_TILES (TRANSPOSE_SPEC_COLUMN_TILES + 1)
#define TRANSPOSE_SPEC_OUTER_SIZES (TRANSPOSE_SPEC_ROW_TILES + 1)       /* TRANSPOSE_MAX_OUTER */
#define TRANSPOSE_SPEC_COUNT (TRANSPOSE_SPEC_OUTER_SIZES + TRANSPOSE_MAX_OUTER)

#ifdef VULKAN

/* Bytes [0, 8): the descriptor table's device address (ops_private.h); then struct transpose_push. */
layout(push_constant, std430) uniform TransposePush
{
    uvec2 table;
    uint source_slot, destination_slot;
    uvec2 source_offset, destination_offset;        /* bytes from the binding's start: low, high */
    uint columns, rows;
    uint source_row_stride, destination_column_stride;
    uint outer_count;                               /* product of outer_sizes */
    uint outer_sizes[TRANSPOSE_MAX_OUTER];
    uint outer_source_strides[TRANSPOSE_MAX_OUTER];
    uint outer_destination_strides[TRANSPOSE_MAX_OUTER];
} push;

#else

#include <stdint.h>

struct transpose_push
{
    uint32_t source_slot, destination_slot;
    uint32_t source_offset[2], destination_offset[2];
    uint32_t columns, rows;                         /* the source's contiguous extent, the destination's */
    uint32_t source_row_stride, destination_column_stride;
    uint32_t outer_count;
    uint32_t outer_sizes[TRANSPOSE_MAX_OUTER];
    uint32_t outer_source_strides[TRANSPOSE_MAX_OUTER];
    uint32_t outer_destination_strides[TRANSPOSE_MAX_OUTER];
};

#endif

#endif /* VKDML_TRANSPOSE_INTERFACE_H */
