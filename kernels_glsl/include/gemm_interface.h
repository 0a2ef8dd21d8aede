/*
 * Interface of the GEMM kernels, shared by C (backend_vk/ops/gemm.c) and GLSL:
 * Output = FusedActivation(Alpha * op(A) x op(B) + Beta * C) over {Batch0, Batch1, M, N}.
 * gemm.comp is the general kernel (any layout, any size); gemm_tiled.comp (fp32) and
 * gemm_coopmat.comp (fp16 on cooperative matrices) are the fast kernels for large matrices;
 * gemm_gemv.comp takes GEMMs with one small side (M or N at most GEMM_GEMV_MAX_SIDE).
 *
 * Everything but the descriptor table address is a specialization constant: DirectML fixes
 * shapes, strides, attributes and binding locations at compile time. Transposes are folded into
 * the strides (the kernel sees A as {M, K} and B as {K, N} and only reads through strides), so
 * transposed, broadcast (0-stride) and padded layouts all take the same path.
 */
#ifndef VKDML_GEMM_INTERFACE_H
#define VKDML_GEMM_INTERFACE_H

#include "dml_interface.h"

/* A workgroup is GEMM_THREADS_X x GEMM_THREADS_Y threads; each thread accumulates THREAD_M x
 * THREAD_N outputs (specialization constants, 1 to GEMM_MAX_THREAD_TILE: small matrices get small
 * tiles and more workgroups), so a workgroup's output tile is (16 THREAD_M) x (16 THREAD_N). A and
 * B are staged through shared memory GEMM_TILE_K values of K at a time. */
#define GEMM_THREADS_X 16
#define GEMM_THREADS_Y 16
#define GEMM_TILE_K 16
#define GEMM_MAX_THREAD_TILE 4

/* Specialization constant ids, each derived from the one before (its id + its constants), so that
 * inserting one renumbers nothing by hand; glslang rejects a kernel whose ids collide. */
#define GEMM_SPEC_M 0
#define GEMM_SPEC_N                     (GEMM_SPEC_M + 1)
#define GEMM_SPEC_K                     (GEMM_SPEC_N + 1)
/* Sizes[1] of the output (ChannelCount); Batch0 needs no constant. */
#define GEMM_SPEC_BATCH1                (GEMM_SPEC_K + 1)
#define GEMM_SPEC_BATCH_COUNT           (GEMM_SPEC_BATCH1 + 1)          /* Batch0 * Batch1 */
/* Element strides, in the kernel's logical order (after TransA/TransB). */
#define GEMM_SPEC_A_STRIDES             (GEMM_SPEC_BATCH_COUNT + 1)     /* batch0, batch1, m, k */
#define GEMM_SPEC_B_STRIDES             (GEMM_SPEC_A_STRIDES + 4)       /* batch0, batch1, k, n */
#define GEMM_SPEC_C_STRIDES             (GEMM_SPEC_B_STRIDES + 4)       /* batch0, batch1, m, n */
#define GEMM_SPEC_OUT_STRIDES           (GEMM_SPEC_C_STRIDES + 4)       /* batch0, batch1, m, n */
/* Tensor locations: descriptor slot, then the byte offset within the binding as low, high words. */
#define GEMM_SPEC_A_LOCATION            (GEMM_SPEC_OUT_STRIDES + 4)
#define GEMM_SPEC_B_LOCATION            (GEMM_SPEC_A_LOCATION + 3)
#define GEMM_SPEC_C_LOCATION            (GEMM_SPEC_B_LOCATION + 3)
#define GEMM_SPEC_OUT_LOCATION          (GEMM_SPEC_C_LOCATION + 3)
#define GEMM_SPEC_HAS_C                 (GEMM_SPEC_OUT_LOCATION + 3)    /* 0: no CTensor (Beta ignored) */
#define GEMM_SPEC_ALPHA                 (GEMM_SPEC_HAS_C + 1)           /* float bits */
#define GEMM_SPEC_BETA                  (GEMM_SPEC_ALPHA + 1)           /* float bits */
/* Outputs per thread along M, 16 rows apart. */
#define GEMM_SPEC_THREAD_M              (GEMM_SPEC_BETA + 1)
/* Outputs per thread along N, 16 columns apart. */
#define GEMM_SPEC_THREAD_N              (GEMM_SPEC_THREAD_M + 1)
/* VKDML_ACTIVATION_SPEC_COUNT constants (dml_interface.h). */
#define GEMM_SPEC_ACTIVATION            (GEMM_SPEC_THREAD_N + 1)
/* gemm.comp's constants. */
#define GEMM_SPEC_COUNT                 (GEMM_SPEC_ACTIVATION + VKDML_ACTIVATION_SPEC_COUNT)

/* The fast kernels take the constants above (THREAD_M and THREAD_N unused) and these. */
#define GEMM_SPEC_TILE_M                GEMM_SPEC_COUNT                 /* workgroup output tile rows */
#define GEMM_SPEC_TILE_N                (GEMM_SPEC_TILE_M + 1)          /* workgroup output tile columns */
/* Values of K staged through shared memory per step. */
#define GEMM_SPEC_TILE_K                (GEMM_SPEC_TILE_N + 1)
#define GEMM_SPEC_A_VECTOR              (GEMM_SPEC_TILE_K + 1)          /* GEMM_VECTOR_*: how tile loads read A */
#define GEMM_SPEC_B_VECTOR              (GEMM_SPEC_A_VECTOR + 1)        /* ... B */
/* GEMM_VECTOR_NONE or _ROW_MAJOR: C in the epilogue. */
#define GEMM_SPEC_C_VECTOR              (GEMM_SPEC_B_VECTOR + 1)
#define GEMM_SPEC_OUT_VECTOR            (GEMM_SPEC_C_VECTOR + 1)        /* ... and the output stores */
/* Tile rows per band of the tile order (L2 reuse). */
#define GEMM_SPEC_GROUP_M               (GEMM_SPEC_OUT_VECTOR + 1)
/* gemm_coopmat.comp: shared-memory buffers, 1 or 2. */
#define GEMM_SPEC_STAGES                (GEMM_SPEC_GROUP_M + 1)
/* gemm_coopmat.comp: subgroups along M ... */
#define GEMM_SPEC_SUBGROUPS_M           (GEMM_SPEC_STAGES + 1)
#define GEMM_SPEC_SUBGROUPS_N           (GEMM_SPEC_SUBGROUPS_M + 1)     /* ... and along N */
/* gemm_coopmat.comp: workgroup size, 32 x SUBGROUPS_M x SUBGROUPS_N. */
#define GEMM_SPEC_THREADS               (GEMM_SPEC_SUBGROUPS_N + 1)
#define GEMM_FAST_SPEC_COUNT            (GEMM_SPEC_THREADS + 1)

/* gemm_gemv.comp takes the constants up to GEMM_FAST_SPEC_COUNT (only A_VECTOR and B_VECTOR of
 * the fast kernels' own; B's GEMM_VECTOR_ROW_MAJOR vectors are COLUMNS values wide, 4 to 16
 * bytes) and these. gemm.c transposes the problem when N is the small side, so the kernel always
 * sees M <= GEMM_GEMV_MAX_SIDE: A is the small operand, B the large one. */
/* Threads along N in a workgroup; GEMM_GEMV_THREADS / this along K. */
#define GEMM_SPEC_GEMV_THREADS_N        GEMM_FAST_SPEC_COUNT
/* Output columns per thread (the lanes of B's vectors along N). */
#define GEMM_SPEC_GEMV_COLUMNS          (GEMM_SPEC_GEMV_THREADS_N + 1)
/* bool: the thread index runs along K (B is K-contiguous). */
#define GEMM_SPEC_GEMV_K_FASTEST        (GEMM_SPEC_GEMV_COLUMNS + 1)
#define GEMM_GEMV_SPEC_COUNT            (GEMM_SPEC_GEMV_K_FASTEST + 1)

/* Split-K (gemm_tiled.comp, gemm_coopmat.comp): with SPLIT_K > 1, SPLIT_K workgroups per tile
 * each sum a part of K into fp32 partial sums {SPLIT_K, BATCH_COUNT, M, N} (N fastest) in the
 * temporary resource (its descriptor slot and the byte offset there, after what the calling
 * family keeps in it), instead of the epilogue and store; gemm_split_reduce.comp (one thread per
 * output, the same constants) adds them up and runs the epilogue. The fast kernels take the
 * constants up to GEMM_SPLIT_SPEC_COUNT (the GEMV ones unused). */
#define GEMM_SPEC_SPLIT_K               GEMM_GEMV_SPEC_COUNT
#define GEMM_SPEC_PARTIAL_SLOT          (GEMM_SPEC_SPLIT_K + 1)
#define GEMM_SPEC_PARTIAL_OFFSET        (GEMM_SPEC_PARTIAL_SLOT + 1)   /* low, high (16-byte aligned) */
#define GEMM_SPLIT_SPEC_COUNT           (GEMM_SPEC_PARTIAL_OFFSET + 2)
#define GEMM_SPLIT_REDUCE_THREADS 256

/* Vector access: 16 bytes at a time along the matrix's rows (its second logical dimension: K for
 * A, N for B, C and the output) or along its columns (the first: M for A, K for B). Every vector
 * is then whole inside the matrix or outside it, and 16-byte aligned (gemm.c checks sizes,
 * strides and offsets). gemm_coopmat.comp needs A and B vectorized. */
#define GEMM_VECTOR_NONE 0              /* scalar accesses through both strides */
#define GEMM_VECTOR_ROW_MAJOR 1         /* along the second dimension (its stride is 1) */
#define GEMM_VECTOR_COLUMN_MAJOR 2      /* along the first dimension (its stride is 1) */

/* gemm_tiled.comp: 16 x 16 threads, each computing 8 x 8 outputs as 2 x 2 blocks of 4 x 4
 * (rows and columns 64 apart), so a workgroup's tile is 128 x 128; TILE_K is 8 or 16. */
#define GEMM_TILED_THREADS 256
#define GEMM_TILED_TILE 128
#define GEMM_TILED_VECTOR 4             /* values per vector load and store (fp32 and fp16 tensors) */

/* gemm_coopmat.comp: SUBGROUPS_M x SUBGROUPS_N subgroups of 32 (4 to 8 of them), each computing
 * (TILE_M / SUBGROUPS_M) x (TILE_N / SUBGROUPS_N) outputs as 16 x 16 fp32 accumulator matrices
 * (at most GEMM_COOPMAT_MAX_ACCUMULATORS); TILE_M and TILE_N are 64, 128 or 256, TILE_K is 16,
 * 32 or 64. */
#define GEMM_COOPMAT_SUBGROUP_SIZE 32
#define GEMM_COOPMAT_MATRIX 16
#define GEMM_COOPMAT_MATRIX_N 8       /* B's columns: A 16 x 16, B 16 x 8 (distinct types for KHR) */
#define GEMM_COOPMAT_MAX_ACCUMULATORS 16

/* gemm_gemv.comp: GEMM_GEMV_THREADS threads, THREADS_N along N times (GEMM_GEMV_THREADS /
 * THREADS_N) along K, both powers of two. Each thread multiplies M x (16 bytes of K) blocks of A
 * by (16 bytes of K) x COLUMNS blocks of B into M x COLUMNS partial sums (at most
 * GEMM_GEMV_MAX_PARTIALS: they go through shared memory for the reduction over K, 16 KiB at most,
 * Vulkan's minimum), for the workgroup's THREADS_N x COLUMNS output columns. */
#define GEMM_GEMV_MAX_SIDE 8
#define GEMM_GEMV_THREADS 256
#define GEMM_GEMV_MAX_COLUMNS 8         /* a 16-byte vector of fp16 */
#define GEMM_GEMV_MAX_PARTIALS 16

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
/* gemm_gemv.comp's partial sums fit in the shared memory every Vulkan device has. */
_Static_assert(GEMM_GEMV_THREADS * GEMM_GEMV_MAX_PARTIALS * 4 <= 16384, "GEMV reduction");

#endif

#endif /* VKDML_GEMM_INTERFACE_H */
