/*
 * Interface of the DML_OPERATOR_CONVOLUTION kernels (kernels_glsl/conv_*.comp, one per algorithm,
 * and include/conv_common.glsl), shared by C (backend_vk/ops/conv.c) and GLSL.
 *
 * The kernels see every convolution as 3-D: {N, C, D, H, W} tensors, with the spatial dimensions
 * DirectML leaves out (1-D and 2-D convolutions) given size 1. Both directions are one gather
 * per output element:
 *   FORWARD   Output[n][k][o] = sum over c, t of Input[n][c][o * Stride - StartPadding + t * Dilation]
 *                                 * Filter[k][c][t']
 *   BACKWARD  Output[n][k][o] = sum over c, t with (o + StartPadding - t * Dilation) = i * Stride of
 *                                 Input[n][c][i] * Filter[c][k][t']
 * (c and k within the group of k), t' = t for CROSS_CORRELATION and KernelSize - 1 - t (flipped)
 * for CONVOLUTION. Output positions at or past EXTENT (a forward convolution's OutputPadding tail)
 * sum nothing: they hold Bias and the activation of it. A backward convolution's OutputPadding
 * positions are ordinary outputs: its EXTENT is the output size. Then Output = FusedActivation(sum + Bias[k]).
 *
 * Everything but the descriptor table address is a specialization constant.
 */
#ifndef VKDML_CONV_INTERFACE_H
#define VKDML_CONV_INTERFACE_H

#include "dml_interface.h"

/* Implicit GEMM (conv_implicit_gemm.comp): M = N * output positions, N = output channels per group,
 * K = input channels per group * kernel volume. A workgroup is CONV_THREADS_M x CONV_THREADS_N
 * threads; each thread accumulates THREAD_M x THREAD_N outputs (1, 2 or 4 each, so that a
 * thread's tile rows stay the same across loads), CONV_TILE_K values of K at a time. */
#define CONV_THREADS_M 16
#define CONV_THREADS_N 16
#define CONV_TILE_K 16
#define CONV_MAX_THREAD_TILE 4
/* Register tiles (conv_tiled.comp, fp32 arithmetic): CONV_TILED_THREADS threads as 16 x 16, each
 * accumulating 4 x 4 blocks 64 apart: tiles of TILE_M channels by TILE_N positions, each 64, 128
 * or 256, at most CONV_TILED_MAX_BLOCKS blocks a thread; K staged TILE_K (8 or 16) values at a
 * time in two shared buffers. */
#define CONV_TILED_THREADS 256
#define CONV_TILED_BLOCK 64
#define CONV_TILED_MAX_BLOCKS 4
#define CONV_TILED_MAX_TILE_K 16
/* Cooperative matrices (conv_coopmat.comp): 16 x 8 x 16 fp16 products, K staged 32 values at a
 * time; TILE_M and TILE_N are 64, 128 or 256 with whole matrices per subgroup, 4 to 8 subgroups
 * of 32 threads (so each thread keeps its 8 input positions in every slab). */
#define CONV_COOPMAT_MATRIX 16
#define CONV_COOPMAT_MATRIX_N 8       /* B's columns: A 16 x 16, B 16 x 8 (distinct types for KHR) */
#define CONV_COOPMAT_TILE_K 32
#define CONV_COOPMAT_SUBGROUP_SIZE 32
#define CONV_COOPMAT_MAX_TILE 256
#define CONV_COOPMAT_MAX_ACCUMULATORS 16
#define CONV_COOPMAT_MIN_THREADS 128
/* Direct (conv_direct.comp): one output element per thread, in workgroups of CONV_DIRECT_THREADS;
 * conv_split_reduce.comp likewise. */
#define CONV_DIRECT_THREADS 64

/* Specialization constant ids, each derived from the one before (its id + its constants), so that
 * inserting one renumbers nothing by hand; glslang rejects a kernel whose ids collide. Spatial triples
 * are {D, H, W}; tensor strides {N, C, D, H, W}. */
#define CONV_SPEC_BATCH 0
#define CONV_SPEC_IN_CHANNELS           (CONV_SPEC_BATCH + 1)
#define CONV_SPEC_IN_SIZES              (CONV_SPEC_IN_CHANNELS + 1)         /* D, H, W */
#define CONV_SPEC_IN_STRIDES            (CONV_SPEC_IN_SIZES + 3)            /* N, C, D, H, W */
#define CONV_SPEC_OUT_CHANNELS          (CONV_SPEC_IN_STRIDES + 5)
#define CONV_SPEC_OUT_SIZES             (CONV_SPEC_OUT_CHANNELS + 1)        /* D, H, W */
#define CONV_SPEC_OUT_STRIDES           (CONV_SPEC_OUT_SIZES + 3)           /* N, C, D, H, W */
/* Sizes[0], Sizes[1], D, H, W of the filter tensor. */
#define CONV_SPEC_FILTER_STRIDES        (CONV_SPEC_OUT_STRIDES + 5)
#define CONV_SPEC_KERNEL_SIZES          (CONV_SPEC_FILTER_STRIDES + 5)      /* D, H, W */
#define CONV_SPEC_STRIDES               (CONV_SPEC_KERNEL_SIZES + 3)        /* the convolution's Strides: D, H, W */
#define CONV_SPEC_DILATIONS             (CONV_SPEC_STRIDES + 3)
#define CONV_SPEC_START_PADDING         (CONV_SPEC_DILATIONS + 3)
/* Output positions that take input: Output sizes, less OutputPadding for a forward convolution. */
#define CONV_SPEC_EXTENTS               (CONV_SPEC_START_PADDING + 3)
#define CONV_SPEC_GROUPS                (CONV_SPEC_EXTENTS + 3)
#define CONV_SPEC_BACKWARD              (CONV_SPEC_GROUPS + 1)              /* DML_CONVOLUTION_DIRECTION_BACKWARD */
#define CONV_SPEC_FLIP                  (CONV_SPEC_BACKWARD + 1)            /* DML_CONVOLUTION_MODE_CONVOLUTION */
#define CONV_SPEC_HAS_BIAS              (CONV_SPEC_FLIP + 1)
/* Element stride of BiasTensor's channel dimension. */
#define CONV_SPEC_BIAS_STRIDE           (CONV_SPEC_HAS_BIAS + 1)
/* Tensor locations: descriptor slot, then the byte offset in the binding as low, high words. */
#define CONV_SPEC_IN_LOCATION           (CONV_SPEC_BIAS_STRIDE + 1)
#define CONV_SPEC_FILTER_LOCATION       (CONV_SPEC_IN_LOCATION + 3)
#define CONV_SPEC_BIAS_LOCATION         (CONV_SPEC_FILTER_LOCATION + 3)
#define CONV_SPEC_OUT_LOCATION          (CONV_SPEC_BIAS_LOCATION + 3)
/* Implicit GEMM only: outputs per thread along M. */
#define CONV_SPEC_THREAD_M              (CONV_SPEC_OUT_LOCATION + 3)
/* Implicit GEMM only: outputs per thread along N. */
#define CONV_SPEC_THREAD_N              (CONV_SPEC_THREAD_M + 1)
/* VKDML_ACTIVATION_SPEC_COUNT constants (dml_interface.h). */
#define CONV_SPEC_ACTIVATION            (CONV_SPEC_THREAD_N + 1)
#define CONV_SPEC_COUNT                 (CONV_SPEC_ACTIVATION + VKDML_ACTIVATION_SPEC_COUNT)
/* conv_tiled.comp and conv_coopmat.comp take the constants above (THREAD_M and THREAD_N unused) and these. */
#define CONV_SPEC_TILE_M                CONV_SPEC_COUNT                     /* output channels per workgroup tile */
/* Output positions (over all images) per workgroup tile. */
#define CONV_SPEC_TILE_N                (CONV_SPEC_TILE_M + 1)
/* conv_tiled.comp: K values per shared-memory slab. */
#define CONV_SPEC_TILE_K                (CONV_SPEC_TILE_N + 1)
/* conv_tiled.comp and conv_coopmat.comp with SPLIT_K > 1 sum parts of K in SPLIT_K workgroups per
 * tile, into fp32 partial sums {SPLIT_K, GROUPS, channels per group, positions} in the temporary
 * resource (its slot here); conv_split_reduce.comp (the same constants up to here) adds them up,
 * then bias, activation and store. */
#define CONV_SPEC_SPLIT_K               (CONV_SPEC_TILE_K + 1)
#define CONV_SPEC_PARTIAL_LOCATION      (CONV_SPEC_SPLIT_K + 1)             /* split-K's sums: slot, offset lo, hi */
#define CONV_TILED_SPEC_COUNT           (CONV_SPEC_PARTIAL_LOCATION + 3)
/* conv_coopmat.comp's own. */
#define CONV_SPEC_SUBGROUPS_M           CONV_TILED_SPEC_COUNT               /* subgroups along the channels ... */
#define CONV_SPEC_SUBGROUPS_N           (CONV_SPEC_SUBGROUPS_M + 1)         /* ... and along the positions */
/* The filter reads as packed {channels, K} rows in 16-byte vectors. */
#define CONV_SPEC_FILTER_VECTOR         (CONV_SPEC_SUBGROUPS_N + 1)
/* Workgroup size: 32 x SUBGROUPS_M x SUBGROUPS_N. */
#define CONV_SPEC_THREADS               (CONV_SPEC_FILTER_VECTOR + 1)
/* Channels-last staging (forward, one group): conv_stage.comp copies the input into the temporary
 * resource as {N, D', H', W', C'} with the padding written out as zeros (D', H', W': the span the
 * windows read) and C' the channels rounded up to CONV_COOPMAT_TILE_K, and the filter as
 * {OutputChannels, taps, C'} (flipped for CONVOLUTION mode). conv_coopmat.comp with STAGED then
 * runs K = taps x C' as plain cross-correlation: every slab one tap, 16-byte loads along the
 * channels, no bounds tests. */
#define CONV_SPEC_STAGED                (CONV_SPEC_THREADS + 1)
#define CONV_SPEC_STAGED_CHANNELS       (CONV_SPEC_STAGED + 1)              /* C' */
#define CONV_SPEC_STAGED_SIZES          (CONV_SPEC_STAGED_CHANNELS + 1)     /* D', H', W' */
#define CONV_SPEC_STAGED_IN_LOCATION    (CONV_SPEC_STAGED_SIZES + 3)
#define CONV_SPEC_STAGED_FILTER_LOCATION (CONV_SPEC_STAGED_IN_LOCATION + 3)
/* Each 8 positions a thread stores lie whole and contiguous in one image's channel row, 16-byte
 * aligned: one vector store. */
#define CONV_SPEC_OUT_VECTOR            (CONV_SPEC_STAGED_FILTER_LOCATION + 3)
#define CONV_COOPMAT_SPEC_COUNT         (CONV_SPEC_OUT_VECTOR + 1)
/* conv_stage.comp: the constants above and which of the two it copies. */
#define CONV_SPEC_STAGE_FILTER          CONV_COOPMAT_SPEC_COUNT
#define CONV_STAGE_SPEC_COUNT           (CONV_SPEC_STAGE_FILTER + 1)
#define CONV_STAGE_THREADS 256

#ifdef VULKAN

/* Bytes [0, 8): the descriptor table's device address (ops_private.h); nothing else. */
layout(push_constant, std430) uniform ConvPush
{
    uvec2 table;
} push;

#else

/* Each thread's A-tile rows are the same in every load round only if TILE_M divides the
 * workgroup size (THREAD_M of 1, 2 or 4). */
_Static_assert((CONV_THREADS_M * CONV_THREADS_N) % (CONV_THREADS_M * CONV_MAX_THREAD_TILE) == 0, "A tile rows");
_Static_assert(CONV_THREADS_M * CONV_THREADS_N == CONV_TILE_K * CONV_THREADS_N, "B tile load");
/* Each kernel's constants extend the set before (conv.c copies one set into the next): every count is
 * the id after its set's last constant, and the next set starts there. */
_Static_assert(CONV_SPEC_COUNT <= CONV_TILED_SPEC_COUNT && CONV_TILED_SPEC_COUNT <= CONV_COOPMAT_SPEC_COUNT
        && CONV_COOPMAT_SPEC_COUNT <= CONV_STAGE_SPEC_COUNT, "nested constant sets");

#endif

#endif /* VKDML_CONV_INTERFACE_H */
