/*
 * Interface of kernels_glsl/conv.comp (DML_OPERATOR_CONVOLUTION), shared by C
 * (backend_vk/ops/conv.c) and GLSL.
 *
 * The kernel sees every convolution as 3-D: {N, C, D, H, W} tensors, with the spatial dimensions
 * DirectML leaves out (1-D and 2-D convolutions) given size 1. Both directions are one gather
 * per output element:
 *   FORWARD   Output[n][k][o] = sum over c, t of Input[n][c][o * Stride - StartPadding + t * Dilation]
 *                                 * Filter[k][c][t']
 *   BACKWARD  Output[n][k][o] = sum over c, t with (o + StartPadding - t * Dilation) = i * Stride of
 *                                 Input[n][c][i] * Filter[c][k][t']
 * (c and k within the group of k), t' = t for CROSS_CORRELATION and KernelSize - 1 - t (flipped)
 * for CONVOLUTION. Output positions at or past EXTENT (the OutputPadding tail) sum nothing: they
 * hold Bias and the activation of it. Then Output = FusedActivation(sum + Bias[k]).
 *
 * Everything but the descriptor table address is a specialization constant.
 */
#ifndef VKDML_CONV_INTERFACE_H
#define VKDML_CONV_INTERFACE_H

/* Implicit GEMM (CONV_IMPLICIT_GEMM): M = N * output positions, N = output channels per group,
 * K = input channels per group * kernel volume. A workgroup is CONV_THREADS_M x CONV_THREADS_N
 * threads; each thread accumulates THREAD_M x THREAD_N outputs (1, 2 or 4 each, so that a
 * thread's tile rows stay the same across loads), CONV_TILE_K values of K at a time. */
#define CONV_THREADS_M 16
#define CONV_THREADS_N 16
#define CONV_TILE_K 16
#define CONV_MAX_THREAD_TILE 4
/* Register tiles (CONV_TILED, fp32 arithmetic): CONV_TILED_THREADS threads as 16 x 16, each
 * accumulating 4 x 4 blocks 64 apart: tiles of TILE_M channels by TILE_N positions, each 64, 128
 * or 256, at most CONV_TILED_MAX_BLOCKS blocks a thread; K staged TILE_K (8 or 16) values at a
 * time in two shared buffers. */
#define CONV_TILED_THREADS 256
#define CONV_TILED_BLOCK 64
#define CONV_TILED_MAX_BLOCKS 4
#define CONV_TILED_MAX_TILE_K 16
/* Cooperative matrices (CONV_COOPMAT): 16 x 8 x 16 fp16 products, K staged 32 values at a
 * time; TILE_M and TILE_N are 64, 128 or 256 with whole matrices per subgroup, 4 to 8 subgroups
 * of 32 threads (so each thread keeps its 8 input positions in every slab). */
#define CONV_COOPMAT_MATRIX 16
#define CONV_COOPMAT_MATRIX_N 8       /* B's columns: A 16 x 16, B 16 x 8 (distinct types for KHR) */
#define CONV_COOPMAT_TILE_K 32
#define CONV_COOPMAT_SUBGROUP_SIZE 32
#define CONV_COOPMAT_MAX_TILE 256
#define CONV_COOPMAT_MAX_ACCUMULATORS 16
#define CONV_COOPMAT_MIN_THREADS 128
/* Direct (CONV_DIRECT): one output element per thread, in workgroups of CONV_DIRECT_THREADS;
 * CONV_SPLIT_REDUCE likewise. */
#define CONV_DIRECT_THREADS 64

/* Specialization constant ids. Spatial triples are {D, H, W}; tensor strides {N, C, D, H, W}. */
#define CONV_SPEC_BATCH 0
#define CONV_SPEC_IN_CHANNELS 1
#define CONV_SPEC_IN_SIZES 2            /* D, H, W */
#define CONV_SPEC_IN_STRIDES 5          /* N, C, D, H, W */
#define CONV_SPEC_OUT_CHANNELS 10
#define CONV_SPEC_OUT_SIZES 11          /* D, H, W */
#define CONV_SPEC_OUT_STRIDES 14        /* N, C, D, H, W */
#define CONV_SPEC_FILTER_STRIDES 19     /* Sizes[0], Sizes[1], D, H, W of the filter tensor */
#define CONV_SPEC_KERNEL_SIZES 24       /* D, H, W */
#define CONV_SPEC_STRIDES 27            /* the convolution's Strides: D, H, W */
#define CONV_SPEC_DILATIONS 30
#define CONV_SPEC_START_PADDING 33
#define CONV_SPEC_EXTENTS 36            /* output positions computed: Output sizes - OutputPadding */
#define CONV_SPEC_GROUPS 39
#define CONV_SPEC_BACKWARD 40           /* DML_CONVOLUTION_DIRECTION_BACKWARD */
#define CONV_SPEC_FLIP 41               /* DML_CONVOLUTION_MODE_CONVOLUTION */
#define CONV_SPEC_HAS_BIAS 42
#define CONV_SPEC_BIAS_STRIDE 43        /* element stride of BiasTensor's channel dimension */
/* Tensor locations: descriptor slot, then the byte offset in the binding as low, high words. */
#define CONV_SPEC_IN_LOCATION 44
#define CONV_SPEC_FILTER_LOCATION 47
#define CONV_SPEC_BIAS_LOCATION 50
#define CONV_SPEC_OUT_LOCATION 53
#define CONV_SPEC_THREAD_M 56           /* implicit GEMM only: outputs per thread along M */
#define CONV_SPEC_THREAD_N 57           /* implicit GEMM only: outputs per thread along N */
#define CONV_SPEC_ACTIVATION 58         /* VKDML_ACTIVATION_SPEC_COUNT constants (dml_interface.h) */
#define CONV_SPEC_COUNT 62
/* CONV_TILED and CONV_COOPMAT take the constants above (THREAD_M and THREAD_N unused) and these. */
#define CONV_SPEC_TILE_M 62             /* output channels per workgroup tile */
#define CONV_SPEC_TILE_N 63             /* output positions (over all images) per workgroup tile */
#define CONV_SPEC_TILE_K 64             /* CONV_TILED: K values per shared-memory slab */
/* CONV_TILED and CONV_COOPMAT with SPLIT_K > 1 sum parts of K in SPLIT_K workgroups per tile,
 * into fp32 partial sums {SPLIT_K, GROUPS, channels per group, positions} in the temporary
 * resource (its slot here); CONV_SPLIT_REDUCE (the same constants up to here) adds them up,
 * then bias, activation and store. */
#define CONV_SPEC_SPLIT_K 65
#define CONV_SPEC_PARTIAL_SLOT 66
#define CONV_TILED_SPEC_COUNT 67
/* CONV_COOPMAT's own. */
#define CONV_SPEC_SUBGROUPS_M 67        /* subgroups along the channels ... */
#define CONV_SPEC_SUBGROUPS_N 68        /* ... and along the positions */
#define CONV_SPEC_FILTER_VECTOR 69      /* the filter reads as packed {channels, K} rows in 16-byte vectors */
#define CONV_SPEC_THREADS 70            /* workgroup size: 32 x SUBGROUPS_M x SUBGROUPS_N */
/* Channels-last staging (forward, one group): CONV_STAGE copies the input into the temporary
 * resource as {N, D', H', W', C'} with the padding written out as zeros (D', H', W': the span the
 * windows read) and C' the channels rounded up to CONV_COOPMAT_TILE_K, and the filter as
 * {OutputChannels, taps, C'} (flipped for CONVOLUTION mode). CONV_COOPMAT with STAGED then runs
 * K = taps x C' as plain cross-correlation: every slab one tap, 16-byte loads along the channels,
 * no bounds tests. */
#define CONV_SPEC_STAGED 71
#define CONV_SPEC_STAGED_CHANNELS 72    /* C' */
#define CONV_SPEC_STAGED_SIZES 73       /* D', H', W' */
#define CONV_SPEC_STAGED_IN_LOCATION 76
#define CONV_SPEC_STAGED_FILTER_LOCATION 79
/* Each 8 positions a thread stores lie whole and contiguous in one image's channel row, 16-byte
 * aligned: one vector store. */
#define CONV_SPEC_OUT_VECTOR 82
#define CONV_COOPMAT_SPEC_COUNT 83
/* CONV_STAGE: the constants above and which of the two it copies. */
#define CONV_SPEC_STAGE_FILTER 83
#define CONV_STAGE_SPEC_COUNT 84
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

#endif

#endif /* VKDML_CONV_INTERFACE_H */
