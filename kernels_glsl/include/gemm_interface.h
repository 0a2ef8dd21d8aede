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

/* Output tile of one workgroup and the K step staged through shared memory; the workgroup is
 * GEMM_THREADS_X x GEMM_THREADS_Y threads, each computing (TILE_M / THREADS_Y) x (TILE_N / THREADS_X)
 * outputs. */
#define GEMM_TILE_M 64
#define GEMM_TILE_N 64
#define GEMM_TILE_K 16
#define GEMM_THREADS_X 16
#define GEMM_THREADS_Y 16

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
#define GEMM_SPEC_ACTIVATION 36         /* VKDML_ACTIVATION_SPEC_COUNT constants (dml_interface.h) */
#define GEMM_SPEC_COUNT 40

#ifdef VULKAN

/* Bytes [0, 8): the descriptor table's device address (ops_private.h); nothing else. */
layout(push_constant, std430) uniform GemmPush
{
    uvec2 table;
} push;

#else

#include <stdint.h>

_Static_assert(GEMM_TILE_M % GEMM_THREADS_Y == 0 && GEMM_TILE_N % GEMM_THREADS_X == 0, "thread tile");
_Static_assert((GEMM_TILE_M * GEMM_TILE_K) % (GEMM_THREADS_X * GEMM_THREADS_Y) == 0, "A tile load");
_Static_assert((GEMM_TILE_K * GEMM_TILE_N) % (GEMM_THREADS_X * GEMM_THREADS_Y) == 0, "B tile load");

#endif

#endif /* VKDML_GEMM_INTERFACE_H */
