/*
 * Interface of kernels_glsl/gemm.comp, shared by C (backend_vk/ops/gemm.c) and GLSL:
 * Output = FusedActivation(Alpha * op(A) x op(B) + Beta * C) over {Batch0, Batch1, M, N}.
 *
 * Everything but the descriptor table address is a specialization constant: DirectML fixes
 * shapes, strides, attributes and binding locations at compile time. Transposes are folded into
 * the strides (the kernel sees A as {M, K} and B as {K, N} and only reads through strides), so
 * transposed, broadcast (0-stride) and padded layouts all take the same path.
 */
#ifndef VKDML_GEMM_INTERFACE_H
#define VKDML_GEMM_INTERFACE_H

/* A workgroup is GEMM_THREADS_X x GEMM_THREADS_Y threads; each thread accumulates THREAD_M x
 * THREAD_N outputs (specialization constants, 1 to GEMM_MAX_THREAD_TILE: small matrices get small
 * tiles and more workgroups), so a workgroup's output tile is (16 THREAD_M) x (16 THREAD_N). A and
 * B are staged through shared memory GEMM_TILE_K values of K at a time. */
#define GEMM_THREADS_X 16
#define GEMM_THREADS_Y 16
#define GEMM_TILE_K 16
#define GEMM_MAX_THREAD_TILE 4

/* Specialization constant ids. */
#define GEMM_SPEC_M 0
#define GEMM_SPEC_N 1
#define GEMM_SPEC_K 2
#define GEMM_SPEC_BATCH1 3              /* Sizes[1] of the output (ChannelCount); Batch0 needs no constant */
#define GEMM_SPEC_BATCH_COUNT 4         /* Batch0 * Batch1 */
/* Element strides, in the kernel's logical order (after TransA/TransB). */
#define GEMM_SPEC_A_STRIDES 5           /* batch0, batch1, m, k */
#define GEMM_SPEC_B_STRIDES 9           /* batch0, batch1, k, n */
#define GEMM_SPEC_C_STRIDES 13          /* batch0, batch1, m, n */
#define GEMM_SPEC_OUT_STRIDES 17        /* batch0, batch1, m, n */
/* Tensor locations: descriptor slot, then the byte offset within the binding as low, high words. */
#define GEMM_SPEC_A_LOCATION 21
#define GEMM_SPEC_B_LOCATION 24
#define GEMM_SPEC_C_LOCATION 27
#define GEMM_SPEC_OUT_LOCATION 30
#define GEMM_SPEC_HAS_C 33              /* 0: no CTensor (Beta ignored) */
#define GEMM_SPEC_ALPHA 34              /* float bits */
#define GEMM_SPEC_BETA 35               /* float bits */
#define GEMM_SPEC_THREAD_M 36           /* outputs per thread along M, 16 rows apart */
#define GEMM_SPEC_THREAD_N 37           /* outputs per thread along N, 16 columns apart */
#define GEMM_SPEC_ACTIVATION 38         /* VKDML_ACTIVATION_SPEC_COUNT constants (dml_interface.h) */
#define GEMM_SPEC_COUNT 42

#ifdef VULKAN

/* Bytes [0, 8): the descriptor table's device address (ops_private.h); nothing else. */
layout(push_constant, std430) uniform GemmPush
{
    uvec2 table;
} push;

#else

#include <stdint.h>

/* Tile loads: every thread loads THREAD_M values of A and THREAD_N values of B per K step. */
_Static_assert(GEMM_THREADS_Y * GEMM_TILE_K == GEMM_THREADS_X * GEMM_THREADS_Y, "A tile load");
_Static_assert(GEMM_THREADS_X * GEMM_TILE_K == GEMM_THREADS_X * GEMM_THREADS_Y, "B tile load");

#endif

#endif /* VKDML_GEMM_INTERFACE_H */
