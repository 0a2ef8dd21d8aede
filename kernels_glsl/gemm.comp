#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_buffer_reference_uvec2 : require
#if defined(VKDML_GEMM_FLOAT16) || defined(VKDML_GEMM_HALF_COMPUTE)
#extension GL_EXT_shader_16bit_storage : require
#endif
#ifdef VKDML_GEMM_HALF_COMPUTE
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#endif
/*
 * DML_OPERATOR_GEMM, the straightforward kernel: Output = FusedActivation(Alpha * op(A) x op(B)
 * + Beta * C) for every {batch0, batch1} matrix (gemm_interface.h has the constants).
 *
 * One workgroup of 16x16 threads computes an output tile of up to 64x64; A and B are staged
 * through shared memory 16 values of K at a time, and each thread accumulates a block of up to
 * 4x4 outputs whose rows and columns are 16 apart (so neighbouring threads store neighbouring
 * outputs). The block shrinks for small M or N, so that small matrices get more workgroups.
 * Tensors are read only through their element strides, so transposes, padding and 0-stride
 * broadcast need no special case; the tile loads pick their fastest-moving thread index from
 * whichever of the two strides is smaller, which keeps transposed inputs coalesced.
 *
 * Variants (kernels_glsl/meson.build): FLOAT32; VKDML_GEMM_FLOAT16: fp16 tensors, fp32 arithmetic
 * (16-bit storage only, no Float16 capability); VKDML_GEMM_HALF_COMPUTE: fp16 tensors and fp16
 * accumulation (DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION on shaderFloat16 devices).
 */
#include "common.glsl"
#include "dml_interface.h"
#include "gemm_interface.h"

#include "gemm_common.glsl"

#if defined(VKDML_GEMM_FLOAT16) || defined(VKDML_GEMM_HALF_COMPUTE)
# define TENSOR_T float16_t
# define TENSOR_ALIGN 2
#else
# define TENSOR_T float
# define TENSOR_ALIGN 4
#endif
#ifdef VKDML_GEMM_HALF_COMPUTE
# define ACC_T float16_t
#else
# define ACC_T float
#endif

layout(local_size_x = GEMM_THREADS_X, local_size_y = GEMM_THREADS_Y, local_size_z = 1) in;

layout(buffer_reference, std430, buffer_reference_align = TENSOR_ALIGN) readonly buffer GemmInput
{
    TENSOR_T v[];
};
layout(buffer_reference, std430, buffer_reference_align = TENSOR_ALIGN) writeonly buffer GemmOutput
{
    TENSOR_T v[];
};

layout(constant_id = GEMM_SPEC_THREAD_M) const uint THREAD_M = GEMM_MAX_THREAD_TILE;
layout(constant_id = GEMM_SPEC_THREAD_N) const uint THREAD_N = GEMM_MAX_THREAD_TILE;

const uint THREADS = GEMM_THREADS_X * GEMM_THREADS_Y;
const uint MAX_TILE = GEMM_MAX_THREAD_TILE;
const uint TILE_M = GEMM_THREADS_Y * THREAD_M;
const uint TILE_N = GEMM_THREADS_X * THREAD_N;
/* One padding column, so that loads along K (transposed layouts) hit different banks. */
const uint A_LD = TILE_M + 1;
const uint B_LD = TILE_N + 1;

const uint TILES_M = (M + TILE_M - 1) / TILE_M;
const uint TILES_N = (N + TILE_N - 1) / TILE_N;
const uint TILE_COUNT = TILES_M * TILES_N * BATCH_COUNT;
/* Which thread index runs along the contiguous direction of each tile load. */
const bool A_K_FASTEST = A_STRIDE_K <= A_STRIDE_M;
const bool B_N_FASTEST = B_STRIDE_N <= B_STRIDE_K;

shared ACC_T a_tile[GEMM_TILE_K * (GEMM_THREADS_Y * GEMM_MAX_THREAD_TILE + 1)];  /* [k][m], A_LD apart */
shared ACC_T b_tile[GEMM_TILE_K * (GEMM_THREADS_X * GEMM_MAX_THREAD_TILE + 1)];  /* [k][n], B_LD apart */

void load_a_tile(GemmInput a, uint base, uint m0, uint k0, uint thread)
{
    /* The tile holds TILE_M x 16 = THREAD_M x THREADS values. */
    [[unroll]] for (uint r = 0; r < MAX_TILE; ++r)
    {
        uint l = thread + r * THREADS;
        uint m = A_K_FASTEST ? l / GEMM_TILE_K : l % TILE_M;
        uint k = A_K_FASTEST ? l % GEMM_TILE_K : l / TILE_M;
        ACC_T value = ACC_T(0.0);

        if (r >= THREAD_M)
            break;

        if (m0 + m < M && k0 + k < K)
            value = ACC_T(a.v[base + (m0 + m) * A_STRIDE_M + (k0 + k) * A_STRIDE_K]);
        a_tile[k * A_LD + m] = value;
    }
}

void load_b_tile(GemmInput b, uint base, uint n0, uint k0, uint thread)
{
    [[unroll]] for (uint r = 0; r < MAX_TILE; ++r)
    {
        uint l = thread + r * THREADS;
        uint n = B_N_FASTEST ? l % TILE_N : l / GEMM_TILE_K;
        uint k = B_N_FASTEST ? l / TILE_N : l % GEMM_TILE_K;
        ACC_T value = ACC_T(0.0);

        if (r >= THREAD_N)
            break;

        if (n0 + n < N && k0 + k < K)
            value = ACC_T(b.v[base + (k0 + k) * B_STRIDE_K + (n0 + n) * B_STRIDE_N]);
        b_tile[k * B_LD + n] = value;
    }
}

void main()
{
    /* Tiles are numbered N fastest, then M, then batch; the dispatch may spread them over
     * y and z (maxComputeWorkGroupCount) and round up, so surplus workgroups leave at once. */
    uint group = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);
    if (group >= TILE_COUNT)
        return;

    uint n0 = (group % TILES_N) * TILE_N;
    uint m0 = ((group / TILES_N) % TILES_M) * TILE_M;
    uint batch = group / (TILES_N * TILES_M);
    uint b0 = batch / BATCH1, b1 = batch % BATCH1;
    uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
    uint thread = gl_LocalInvocationIndex;

    GemmInput a = GemmInput(tensor_address(A_SLOT, A_OFFSET_LO, A_OFFSET_HI));
    GemmInput b = GemmInput(tensor_address(B_SLOT, B_OFFSET_LO, B_OFFSET_HI));
    uint a_base = b0 * A_STRIDE_B0 + b1 * A_STRIDE_B1;
    uint b_base = b0 * B_STRIDE_B0 + b1 * B_STRIDE_B1;

    /* Loops run to MAX_TILE with THREAD_M / THREAD_N guards: fully unrolled, the unused parts
     * fold away once the pipeline is specialized. */
    ACC_T acc[MAX_TILE][MAX_TILE];
    [[unroll]] for (uint i = 0; i < MAX_TILE; ++i)
        [[unroll]] for (uint j = 0; j < MAX_TILE; ++j)
            acc[i][j] = ACC_T(0.0);

    for (uint k0 = 0; k0 < K; k0 += GEMM_TILE_K)
    {
        load_a_tile(a, a_base, m0, k0, thread);
        load_b_tile(b, b_base, n0, k0, thread);
        barrier();

        [[unroll]] for (uint k = 0; k < GEMM_TILE_K; ++k)
        {
            ACC_T a_values[MAX_TILE], b_values[MAX_TILE];

            [[unroll]] for (uint i = 0; i < MAX_TILE; ++i)
                a_values[i] = i < THREAD_M ? a_tile[k * A_LD + ty + i * GEMM_THREADS_Y] : ACC_T(0.0);
            [[unroll]] for (uint j = 0; j < MAX_TILE; ++j)
                b_values[j] = j < THREAD_N ? b_tile[k * B_LD + tx + j * GEMM_THREADS_X] : ACC_T(0.0);
            [[unroll]] for (uint i = 0; i < MAX_TILE; ++i)
                [[unroll]] for (uint j = 0; j < MAX_TILE; ++j)
                    if (i < THREAD_M && j < THREAD_N)
                        acc[i][j] += a_values[i] * b_values[j];
        }
        /* The next iteration overwrites the tiles. */
        barrier();
    }

    GemmOutput out_tensor = GemmOutput(tensor_address(OUT_SLOT, OUT_OFFSET_LO, OUT_OFFSET_HI));
    GemmInput c = GemmInput(HAS_C ? tensor_address(C_SLOT, C_OFFSET_LO, C_OFFSET_HI) : uvec2(0, 0));
    uint out_base = b0 * OUT_STRIDE_B0 + b1 * OUT_STRIDE_B1;
    uint c_base = b0 * C_STRIDE_B0 + b1 * C_STRIDE_B1;

    [[unroll]] for (uint i = 0; i < MAX_TILE; ++i)
    {
        uint m = m0 + ty + i * GEMM_THREADS_Y;

        [[unroll]] for (uint j = 0; j < MAX_TILE; ++j)
        {
            uint n = n0 + tx + j * GEMM_THREADS_X;
            float value;

            if (i >= THREAD_M || j >= THREAD_N || m >= M || n >= N)
                continue;
            value = gemm_epilogue(float(acc[i][j]), HAS_C ? float(c.v[c_base + m * C_STRIDE_M + n * C_STRIDE_N]) : 0.0);
            out_tensor.v[out_base + m * OUT_STRIDE_M + n * OUT_STRIDE_N] = TENSOR_T(value);
        }
    }
}
