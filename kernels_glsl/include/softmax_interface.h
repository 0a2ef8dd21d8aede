/*
 * Interface of kernels_glsl/softmax.comp (ACTIVATION_SOFTMAX, ACTIVATION_LOG_SOFTMAX,
 * ACTIVATION_HARDMAX and their `1` forms), shared by C (backend_vk/ops/softmax.c) and GLSL.
 *
 * The tensors are seen through struct vkdml_axes_layout (ops_private.h): a "row" is one kept
 * element, the reduced elements are its entries. Both sides have SOFTMAX_MAX_DIMS dimensions,
 * the layout's filling the last slots (index 0 outermost); the leading ones have size 1.
 * Paths (SOFTMAX_SPEC_PATH):
 * Rows contiguous in both tensors and 16-byte aligned are read and written in vectors of VECTOR
 * entries (16 bytes) on the registers, two-pass and split paths; else VECTOR is 1.
 *   SOFTMAX_PATH_REGISTERS  a workgroup per row, the row held in registers as loaded (PER_THREAD
 *                           vectors per invocation, FLOAT16 packed): one read, one write. Rows
 *                           of at most 32 x TEAM entries, many of them: a row per team of TEAM
 *                           adjacent lanes of a subgroup (TEAM at most the subgroup size),
 *                           reduced with subgroup shuffles, no barriers.
 *   SOFTMAX_PATH_TWO_PASS   a workgroup per row too long for registers: an online max-and-sum
 *                           (one read), then a pass that reads again and writes.
 *   SOFTMAX_PATH_COLUMNS    THREADS / SLICES x COLUMN_WIDTH rows per workgroup and SLICES
 *                           invocations per row, for rows whose entries are far apart in memory
 *                           and whose neighbours are adjacent (a reduction over an outer axis),
 *                           and for short rows: each invocation an online max-and-sum over every
 *                           SLICES-th entry of COLUMN_WIDTH adjacent rows (loaded together, up
 *                           to 16 bytes), the slices combined through shared memory in two
 *                           levels, then the writing pass from the slice's last entry down.
 *   SOFTMAX_PATH_SPLIT_*    long rows too few to fill the GPU: CHUNKS workgroups per row, each
 *                           over CHUNK_LENGTH entries. SPLIT_STATS writes each chunk's (max,
 *                           sum) (hardmax: its (key, first entry)) into the temporary resource;
 *                           SPLIT_NORMALIZE, after a barrier, combines the row's chunks in the
 *                           same order in every workgroup of the row, then writes its chunk.
 *   SOFTMAX_PATH_COLUMN_*   the columns path with too few workgroups: CHUNKS workgroups per tile
 *                           of rows, each over CHUNK_LENGTH entries, as the split paths do.
 */
#ifndef VKDML_SOFTMAX_INTERFACE_H
#define VKDML_SOFTMAX_INTERFACE_H

#define SOFTMAX_MAX_DIMS 8

#define SOFTMAX_FUNCTION_SOFTMAX 0
#define SOFTMAX_FUNCTION_LOG_SOFTMAX 1
#define SOFTMAX_FUNCTION_HARDMAX 2

#define SOFTMAX_PATH_REGISTERS 0
#define SOFTMAX_PATH_TWO_PASS 1
#define SOFTMAX_PATH_COLUMNS 2
#define SOFTMAX_PATH_SPLIT_STATS 3
#define SOFTMAX_PATH_SPLIT_NORMALIZE 4
#define SOFTMAX_PATH_COLUMN_STATS 5
#define SOFTMAX_PATH_COLUMN_NORMALIZE 6

/* Registers path: loads per invocation at most (PER_THREAD: 16-byte vectors of VECTOR entries, or
 * single entries); invocations per workgroup at most. */
#define SOFTMAX_MAX_PER_THREAD 32
#define SOFTMAX_MAX_VECTORS_PER_THREAD 8
#define SOFTMAX_MAX_THREADS 512
/* Columns path: slices per row at most; rows per invocation at most (16 bytes of FLOAT16). */
#define SOFTMAX_MAX_SLICES 128
#define SOFTMAX_MAX_COLUMN_WIDTH 8

/* Specialization constant ids, each derived from the one before. */
#define SOFTMAX_SPEC_FUNCTION 0                                         /* SOFTMAX_FUNCTION_* */
#define SOFTMAX_SPEC_TYPE               (SOFTMAX_SPEC_FUNCTION + 1)     /* DML_TENSOR_DATA_TYPE of both tensors */
#define SOFTMAX_SPEC_PATH               (SOFTMAX_SPEC_TYPE + 1)         /* SOFTMAX_PATH_* */
#define SOFTMAX_SPEC_THREADS            (SOFTMAX_SPEC_PATH + 1)         /* local_size_x */
#define SOFTMAX_SPEC_PER_THREAD         (SOFTMAX_SPEC_THREADS + 1)      /* registers path: vectors per invocation */
#define SOFTMAX_SPEC_VECTOR             (SOFTMAX_SPEC_PER_THREAD + 1)   /* entries per load (not columns path) */
#define SOFTMAX_SPEC_SLICES             (SOFTMAX_SPEC_VECTOR + 1)       /* columns path: invocations per row */
#define SOFTMAX_SPEC_COLUMN_WIDTH       (SOFTMAX_SPEC_SLICES + 1)       /* columns path: adjacent rows per lane */
#define SOFTMAX_SPEC_TEAM               (SOFTMAX_SPEC_COLUMN_WIDTH + 1) /* registers path: lanes per row, 0: all */
#define SOFTMAX_SPEC_CHUNKS             (SOFTMAX_SPEC_TEAM + 1)         /* split paths: workgroups per row */
#define SOFTMAX_SPEC_CHUNK_LENGTH       (SOFTMAX_SPEC_CHUNKS + 1)       /* split paths: entries per chunk */
#define SOFTMAX_SPEC_ROWS               (SOFTMAX_SPEC_CHUNK_LENGTH + 1) /* kept elements */
#define SOFTMAX_SPEC_LENGTH             (SOFTMAX_SPEC_ROWS + 1)         /* reduced elements per row */
/* Sizes and element strides (input, output) of the kept and the reduced dimensions. */
#define SOFTMAX_SPEC_KEPT_SIZES         (SOFTMAX_SPEC_LENGTH + 1)
#define SOFTMAX_SPEC_KEPT_IN_STRIDES    (SOFTMAX_SPEC_KEPT_SIZES + SOFTMAX_MAX_DIMS)
#define SOFTMAX_SPEC_KEPT_OUT_STRIDES   (SOFTMAX_SPEC_KEPT_IN_STRIDES + SOFTMAX_MAX_DIMS)
#define SOFTMAX_SPEC_REDUCED_SIZES      (SOFTMAX_SPEC_KEPT_OUT_STRIDES + SOFTMAX_MAX_DIMS)
#define SOFTMAX_SPEC_REDUCED_IN_STRIDES (SOFTMAX_SPEC_REDUCED_SIZES + SOFTMAX_MAX_DIMS)
#define SOFTMAX_SPEC_REDUCED_OUT_STRIDES (SOFTMAX_SPEC_REDUCED_IN_STRIDES + SOFTMAX_MAX_DIMS)
/* Tensor locations: descriptor slot, then the byte offset in the binding as low, high words. */
#define SOFTMAX_SPEC_IN_LOCATION        (SOFTMAX_SPEC_REDUCED_OUT_STRIDES + SOFTMAX_MAX_DIMS)
#define SOFTMAX_SPEC_OUT_LOCATION       (SOFTMAX_SPEC_IN_LOCATION + 3)
#define SOFTMAX_SPEC_TEMP_LOCATION      (SOFTMAX_SPEC_OUT_LOCATION + 3) /* split paths: two words per chunk */
#define SOFTMAX_SPEC_COUNT              (SOFTMAX_SPEC_TEMP_LOCATION + 3)

#ifdef VULKAN

/* Bytes [0, 8): the descriptor table's device address (ops_private.h); nothing else. */
layout(push_constant, std430) uniform SoftmaxPush
{
    uvec2 table;
} push;

#endif

#endif /* VKDML_SOFTMAX_INTERFACE_H */
