/*
 * Interface of kernels_glsl/fold.comp (DML_OPERATOR_FOLD and DML_OPERATOR_UNFOLD), shared by C
 * (backend_vk/ops/fold.c) and GLSL.
 *
 * Two tensors: the image {N, C, S0 .. S5} and the columns {N, C x prod(Window), Blocks}, whose
 * rows are (channel, window position) and whose columns are the sliding blocks, both in
 * row-major order over the spatial dimensions. Spatial dimension d of block b and window position
 * w is the image coordinate b[d] * Stride[d] - StartPadding[d] + w[d] * Dilation[d].
 *   UNFOLD (im2col): columns[n][c, w][b] = image[n][c][coordinate], 0 where it is padding.
 *   FOLD (col2im):   image[n][c][x] = sum of columns[n][c, w][b] over the (w, b) that reach x:
 *                    each output element gathers its sum, so no atomics are needed.
 * The desc's DimensionCount dimensions fill the last slots of FOLD_MAX_SPATIAL; the leading ones
 * have size, window, stride, dilation and blocks 1 and no padding.
 */
#ifndef VKDML_FOLD_INTERFACE_H
#define VKDML_FOLD_INTERFACE_H

#define FOLD_MAX_SPATIAL 6
#define FOLD_THREADS 64

/* Specialization constant ids, each derived from the one before (its id + its constants), so that
 * inserting one renumbers nothing by hand; glslang rejects a kernel whose ids collide. */
#define FOLD_SPEC_FOLD 0                /* 1: FOLD (write the image); 0: UNFOLD (write the columns) */
#define FOLD_SPEC_BATCH                 (FOLD_SPEC_FOLD + 1)
#define FOLD_SPEC_CHANNELS              (FOLD_SPEC_BATCH + 1)
#define FOLD_SPEC_IMAGE_SIZES           (FOLD_SPEC_CHANNELS + 1)                        /* FOLD_MAX_SPATIAL */
#define FOLD_SPEC_IMAGE_STRIDES         (FOLD_SPEC_IMAGE_SIZES + FOLD_MAX_SPATIAL)      /* N, C, then spatial */
#define FOLD_SPEC_COLUMN_STRIDES        (FOLD_SPEC_IMAGE_STRIDES + 2 + FOLD_MAX_SPATIAL) /* N, row, block */
/* Window, strides, dilations, start padding and blocks per dimension: FOLD_MAX_SPATIAL each. */
#define FOLD_SPEC_WINDOW                (FOLD_SPEC_COLUMN_STRIDES + 3)
#define FOLD_SPEC_STRIDES               (FOLD_SPEC_WINDOW + FOLD_MAX_SPATIAL)
#define FOLD_SPEC_DILATIONS             (FOLD_SPEC_STRIDES + FOLD_MAX_SPATIAL)
#define FOLD_SPEC_START_PADDING         (FOLD_SPEC_DILATIONS + FOLD_MAX_SPATIAL)
#define FOLD_SPEC_BLOCKS                (FOLD_SPEC_START_PADDING + FOLD_MAX_SPATIAL)    /* blocks per dimension */
/* Tensor locations: descriptor slot, then the byte offset in the binding as low, high words. */
#define FOLD_SPEC_IN_LOCATION           (FOLD_SPEC_BLOCKS + FOLD_MAX_SPATIAL)
#define FOLD_SPEC_OUT_LOCATION          (FOLD_SPEC_IN_LOCATION + 3)
#define FOLD_SPEC_COUNT                 (FOLD_SPEC_OUT_LOCATION + 3)

#ifdef VULKAN

/* Bytes [0, 8): the descriptor table's device address (ops_private.h); nothing else. */
layout(push_constant, std430) uniform FoldPush
{
    uvec2 table;
} push;

#endif

#endif /* VKDML_FOLD_INTERFACE_H */
