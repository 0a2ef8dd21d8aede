#version 460
#extension GL_GOOGLE_include_directive : require
#ifdef VKDML_GEMM_FLOAT16
#extension GL_EXT_shader_16bit_storage : require
#endif
/*
 * DML_OPERATOR_GEMM, the register-tiled kernel for large matrices (gemm_interface.h has the
 * constants; gemm.c picks it when there are enough 128 x 128 output tiles), fp32 arithmetic:
 * Output = FusedActivation(Alpha * op(A) x op(B) + Beta * C). Variants (kernels_glsl/meson.build):
 * FLOAT32; VKDML_GEMM_FLOAT16, fp16 tensors (16-bit storage only), for devices without the
 * cooperative-matrix kernel. Vectors are 4 values either way (16 or 8 bytes).
 *
 * A workgroup of 256 threads computes a 128 x 128 output tile. Each thread accumulates 8 x 8
 * outputs as 2 x 2 blocks of 4 x 4, 64 rows and columns apart, so its shared-memory reads are
 * four 16-byte loads per step of K (two of A, two of B) for 64 fma. A and B are staged through
 * two shared-memory buffers, TILE_K values of K at a time: while the threads compute on one
 * buffer, the next slab's global loads are already in flight into registers, and are stored
 * into the other buffer afterwards (one barrier per slab). Shared tiles are K-major ([k][m] and
 * [k][n]); A's rows are padded by 4 floats so that transposing stores from K-contiguous A spread
 * over the banks.
 *
 * Global loads are vectors of 4 values where the layout allows (GEMM_VECTOR_ROW_MAJOR /
 * _COLUMN_MAJOR), otherwise scalars through the strides with the fastest-moving thread index
 * along the smaller stride; both keep warps coalesced. Edge tiles zero-fill what lies outside
 * the matrices; full tiles skip the checks (specialization folds them away).
 *
 * Workgroups run through the tiles in bands of GROUP_M tile rows (all columns of a band before
 * the next band), so that the A rows of a band and B stay in L2 together. With SPLIT_K > 1
 * (too few tiles for the device), SPLIT_K workgroups per tile each sum a part of K's slabs and
 * store their raw sums in the temporary resource; gemm_split_reduce.comp adds them up and runs the
 * epilogue.
 */
#include "common.glsl"
#include "dml_interface.h"
#include "gemm_interface.h"
#include "gemm_common.glsl"

layout(local_size_x = GEMM_TILED_THREADS, local_size_y = 1, local_size_z = 1) in;

#ifdef VKDML_GEMM_FLOAT16
# define SCALAR_T float16_t
# define VECTOR_T f16vec4
# define SCALAR_ALIGN 2
# define VECTOR_ALIGN 8
#else
# define SCALAR_T float
# define VECTOR_T vec4
# define SCALAR_ALIGN 4
# define VECTOR_ALIGN 16
#endif

layout(buffer_reference, std430, buffer_reference_align = SCALAR_ALIGN) readonly buffer ScalarInput
{
    SCALAR_T v[];
};
layout(buffer_reference, std430, buffer_reference_align = VECTOR_ALIGN) readonly buffer VectorInput
{
    VECTOR_T v[];
};
layout(buffer_reference, std430, buffer_reference_align = SCALAR_ALIGN) writeonly buffer ScalarOutput
{
    SCALAR_T v[];
};
layout(buffer_reference, std430, buffer_reference_align = VECTOR_ALIGN) writeonly buffer VectorOutput
{
    VECTOR_T v[];
};

layout(constant_id = GEMM_SPEC_TILE_K) const uint TILE_K = 8;
layout(constant_id = GEMM_SPEC_A_VECTOR) const uint A_VECTOR = GEMM_VECTOR_NONE;
layout(constant_id = GEMM_SPEC_B_VECTOR) const uint B_VECTOR = GEMM_VECTOR_NONE;
layout(constant_id = GEMM_SPEC_C_VECTOR) const uint C_VECTOR = GEMM_VECTOR_NONE;
layout(constant_id = GEMM_SPEC_OUT_VECTOR) const uint OUT_VECTOR = GEMM_VECTOR_NONE;
layout(constant_id = GEMM_SPEC_GROUP_M) const uint GROUP_M = 8;

const uint THREADS = GEMM_TILED_THREADS;
const uint TILE = GEMM_TILED_TILE;
const uint MAX_TILE_K = 16;
/* Global loads per thread and slab, in groups of 4 values (one vector or 4 scalars). */
const uint LOADS = TILE * TILE_K / 4 / THREADS;
const uint MAX_LOADS = TILE * MAX_TILE_K / 4 / THREADS;

const uint TILES_M = (M + TILE - 1) / TILE;
const uint TILES_N = (N + TILE - 1) / TILE;
const uint TILE_COUNT = TILES_M * TILES_N * BATCH_COUNT;
const uint SLABS = (K + TILE_K - 1) / TILE_K;
const uint SLABS_PER_PART = (SLABS + SPLIT_K - 1) / SPLIT_K;
const bool FULL_M = M % TILE == 0;
const bool FULL_N = N % TILE == 0;
const bool FULL_K = K % TILE_K == 0;
const bool A_K_FASTEST = A_STRIDE_K <= A_STRIDE_M;
const bool B_N_FASTEST = B_STRIDE_N <= B_STRIDE_K;

/* [buffer][k][m or n] as vec4s: row length (TILE + 4) / 4 for A, TILE / 4 for B. */
const uint A_LD = (TILE + 4) / 4;
const uint B_LD = TILE / 4;
shared vec4 a_tile[2 * TILE_K * A_LD];
shared vec4 b_tile[2 * TILE_K * B_LD];

vec4 a_next[MAX_LOADS], b_next[MAX_LOADS];

struct Tile
{
    uint m0, n0, b0, b1, batch;
    uint part;                          /* of K, with split-K */
};

/* Tile numbers run through bands of GROUP_M tile rows, column by column inside a band; then
 * through the parts of K. */
bool locate_tile(out Tile tile)
{
    uint group = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);
    uint per_batch = TILES_M * TILES_N, per_band = GROUP_M * TILES_N;
    uint t, band_first, band_rows, batch;

    if (group >= TILE_COUNT * SPLIT_K)
        return false;
    tile.part = group / TILE_COUNT;
    group %= TILE_COUNT;
    batch = group / per_batch;
    t = group % per_batch;
    band_first = (t / per_band) * GROUP_M;
    band_rows = min(TILES_M - band_first, GROUP_M);
    t %= per_band;
    tile.m0 = (band_first + t % band_rows) * TILE;
    tile.n0 = (t / band_rows) * TILE;
    tile.b0 = batch / BATCH1;
    tile.b1 = batch % BATCH1;
    tile.batch = batch;
    return true;
}

bool in_m(uint m)
{
    return FULL_M || m < M;
}

bool in_n(uint n)
{
    return FULL_N || n < N;
}

bool in_k(uint k)
{
    return FULL_K || k < K;
}

/* Slab k0 of A's tile rows m0.. into a_next. */
void fetch_a(uint base, uint m0, uint k0)
{
    ScalarInput scalar = ScalarInput(tensor_address(A_SLOT, A_OFFSET_LO, A_OFFSET_HI));
    VectorInput vector = VectorInput(scalar);

    [[unroll]] for (uint q = 0; q < LOADS; ++q)
    {
        uint v = gl_LocalInvocationIndex + q * THREADS;

        if (A_VECTOR == GEMM_VECTOR_ROW_MAJOR)
        {
            uint m = m0 + v / (TILE_K / 4), k = k0 + (v % (TILE_K / 4)) * 4;
            a_next[q] = vec4(0.0);
            if (in_m(m) && in_k(k))
                a_next[q] = vec4(vector.v[(base + m * A_STRIDE_M + k) / 4]);
        }
        else if (A_VECTOR == GEMM_VECTOR_COLUMN_MAJOR)
        {
            uint k = k0 + v / (TILE / 4), m = m0 + (v % (TILE / 4)) * 4;
            a_next[q] = vec4(0.0);
            if (in_m(m) && in_k(k))
                a_next[q] = vec4(vector.v[(base + k * A_STRIDE_K + m) / 4]);
        }
        else
        {
            [[unroll]] for (uint c = 0; c < 4; ++c)
            {
                uint e = gl_LocalInvocationIndex + (q * 4 + c) * THREADS;
                uint m = m0 + (A_K_FASTEST ? e / TILE_K : e % TILE);
                uint k = k0 + (A_K_FASTEST ? e % TILE_K : e / TILE);
                a_next[q][c] = 0.0;
                if (in_m(m) && in_k(k))
                    a_next[q][c] = float(scalar.v[base + m * A_STRIDE_M + k * A_STRIDE_K]);
            }
        }
    }
}

void store_a(uint stage)
{
    uint first = stage * TILE_K * A_LD;

    [[unroll]] for (uint q = 0; q < LOADS; ++q)
    {
        uint v = gl_LocalInvocationIndex + q * THREADS;

        if (A_VECTOR == GEMM_VECTOR_ROW_MAJOR)
        {
            /* Four values of K for one m: a transposing store. */
            uint m = v / (TILE_K / 4), k = (v % (TILE_K / 4)) * 4;
            [[unroll]] for (uint c = 0; c < 4; ++c)
                a_tile[first + (k + c) * A_LD + m / 4][m % 4] = a_next[q][c];
        }
        else if (A_VECTOR == GEMM_VECTOR_COLUMN_MAJOR)
        {
            uint k = v / (TILE / 4), m = (v % (TILE / 4)) * 4;
            a_tile[first + k * A_LD + m / 4] = a_next[q];
        }
        else
        {
            [[unroll]] for (uint c = 0; c < 4; ++c)
            {
                uint e = gl_LocalInvocationIndex + (q * 4 + c) * THREADS;
                uint m = A_K_FASTEST ? e / TILE_K : e % TILE;
                uint k = A_K_FASTEST ? e % TILE_K : e / TILE;
                a_tile[first + k * A_LD + m / 4][m % 4] = a_next[q][c];
            }
        }
    }
}

/* Slab k0 of B's tile columns n0.. into b_next. */
void fetch_b(uint base, uint n0, uint k0)
{
    ScalarInput scalar = ScalarInput(tensor_address(B_SLOT, B_OFFSET_LO, B_OFFSET_HI));
    VectorInput vector = VectorInput(scalar);

    [[unroll]] for (uint q = 0; q < LOADS; ++q)
    {
        uint v = gl_LocalInvocationIndex + q * THREADS;

        if (B_VECTOR == GEMM_VECTOR_ROW_MAJOR)
        {
            uint k = k0 + v / (TILE / 4), n = n0 + (v % (TILE / 4)) * 4;
            b_next[q] = vec4(0.0);
            if (in_n(n) && in_k(k))
                b_next[q] = vec4(vector.v[(base + k * B_STRIDE_K + n) / 4]);
        }
        else if (B_VECTOR == GEMM_VECTOR_COLUMN_MAJOR)
        {
            uint n = n0 + v / (TILE_K / 4), k = k0 + (v % (TILE_K / 4)) * 4;
            b_next[q] = vec4(0.0);
            if (in_n(n) && in_k(k))
                b_next[q] = vec4(vector.v[(base + n * B_STRIDE_N + k) / 4]);
        }
        else
        {
            [[unroll]] for (uint c = 0; c < 4; ++c)
            {
                uint e = gl_LocalInvocationIndex + (q * 4 + c) * THREADS;
                uint n = n0 + (B_N_FASTEST ? e % TILE : e / TILE_K);
                uint k = k0 + (B_N_FASTEST ? e / TILE : e % TILE_K);
                b_next[q][c] = 0.0;
                if (in_n(n) && in_k(k))
                    b_next[q][c] = float(scalar.v[base + k * B_STRIDE_K + n * B_STRIDE_N]);
            }
        }
    }
}

void store_b(uint stage)
{
    uint first = stage * TILE_K * B_LD;

    [[unroll]] for (uint q = 0; q < LOADS; ++q)
    {
        uint v = gl_LocalInvocationIndex + q * THREADS;

        if (B_VECTOR == GEMM_VECTOR_ROW_MAJOR)
        {
            uint k = v / (TILE / 4), n = (v % (TILE / 4)) * 4;
            b_tile[first + k * B_LD + n / 4] = b_next[q];
        }
        else if (B_VECTOR == GEMM_VECTOR_COLUMN_MAJOR)
        {
            uint n = v / (TILE_K / 4), k = (v % (TILE_K / 4)) * 4;
            [[unroll]] for (uint c = 0; c < 4; ++c)
                b_tile[first + (k + c) * B_LD + n / 4][n % 4] = b_next[q][c];
        }
        else
        {
            [[unroll]] for (uint c = 0; c < 4; ++c)
            {
                uint e = gl_LocalInvocationIndex + (q * 4 + c) * THREADS;
                uint n = B_N_FASTEST ? e % TILE : e / TILE_K;
                uint k = B_N_FASTEST ? e / TILE : e % TILE_K;
                b_tile[first + k * B_LD + n / 4][n % 4] = b_next[q][c];
            }
        }
    }
}

/* Split-K: a part's raw sums of outputs (m, n..n + 3), those inside the matrix. */
void store_partial(Tile tile, uint m, uint n, vec4 sums)
{
    PartialSums scalar = PartialSums(tensor_address(PARTIAL_SLOT, PARTIAL_OFFSET_LO, PARTIAL_OFFSET_HI));
    uint index = partial_index(tile.part, tile.batch, m, n);

    if (N % 4 == 0)
    {
        PartialVectors(scalar).v[index / 4] = sums;
        return;
    }
    [[unroll]] for (uint e = 0; e < 4; ++e)
    {
        if (in_n(n + e))
            scalar.v[index + e] = sums[e];
    }
}

/* A warp is 8 x 4 threads (tx x ty), so that its shared reads are 8 + 4 distinct vectors. */
uvec2 thread_position()
{
    uint lane = gl_LocalInvocationIndex % 32, warp = gl_LocalInvocationIndex / 32;

    return uvec2(lane % 8 + 8 * (warp % 2), lane / 8 + 4 * (warp / 2));
}

void main()
{
    Tile tile;
    uvec2 position = thread_position();
    uint tx = position.x, ty = position.y;

    if (!locate_tile(tile))
        return;

    uint a_base = tile.b0 * A_STRIDE_B0 + tile.b1 * A_STRIDE_B1;
    uint b_base = tile.b0 * B_STRIDE_B0 + tile.b1 * B_STRIDE_B1;
    /* This part's slabs: all of them without split-K. */
    uint k_first = SPLIT_K == 1 ? 0 : min(tile.part * SLABS_PER_PART, SLABS) * TILE_K;
    uint k_end = SPLIT_K == 1 ? K : min(k_first + SLABS_PER_PART * TILE_K, K);
    /* acc[i][j]: row ty * 4 + i % 4 + 64 * (i / 4), columns tx * 4 + 64 * j + 0..3. */
    vec4 acc[8][2];

    [[unroll]] for (uint i = 0; i < 8; ++i)
        acc[i][0] = acc[i][1] = vec4(0.0);

    /* A part past the last slab (more parts than slabs) only writes zeros. */
    if (k_first < k_end)
    {
        fetch_a(a_base, tile.m0, k_first);
        fetch_b(b_base, tile.n0, k_first);
        store_a(0);
        store_b(0);
    }
    barrier();

    for (uint k0 = k_first, stage = 0; k0 < k_end; k0 += TILE_K, stage ^= 1)
    {
        bool more = k0 + TILE_K < k_end;

        /* Issued before the arithmetic, so that their latency hides behind it. */
        if (more)
        {
            fetch_a(a_base, tile.m0, k0 + TILE_K);
            fetch_b(b_base, tile.n0, k0 + TILE_K);
        }

        [[unroll]] for (uint k = 0; k < TILE_K; ++k)
        {
            uint a_row = (stage * TILE_K + k) * A_LD, b_row = (stage * TILE_K + k) * B_LD;
            vec4 a0 = a_tile[a_row + ty], a1 = a_tile[a_row + 16 + ty];
            vec4 b0 = b_tile[b_row + tx], b1 = b_tile[b_row + 16 + tx];

            [[unroll]] for (uint i = 0; i < 4; ++i)
            {
                acc[i][0] = fma(vec4(a0[i]), b0, acc[i][0]);
                acc[i][1] = fma(vec4(a0[i]), b1, acc[i][1]);
                acc[i + 4][0] = fma(vec4(a1[i]), b0, acc[i + 4][0]);
                acc[i + 4][1] = fma(vec4(a1[i]), b1, acc[i + 4][1]);
            }
        }

        /* The other buffer was last read before the previous barrier. */
        if (more)
        {
            store_a(stage ^ 1);
            store_b(stage ^ 1);
        }
        barrier();
    }

    ScalarInput c_scalar = ScalarInput(HAS_C ? tensor_address(C_SLOT, C_OFFSET_LO, C_OFFSET_HI) : uvec2(0, 0));
    VectorInput c_vector = VectorInput(c_scalar);
    ScalarOutput out_scalar = ScalarOutput(tensor_address(OUT_SLOT, OUT_OFFSET_LO, OUT_OFFSET_HI));
    VectorOutput out_vector = VectorOutput(out_scalar);
    uint c_base = tile.b0 * C_STRIDE_B0 + tile.b1 * C_STRIDE_B1;
    uint out_base = tile.b0 * OUT_STRIDE_B0 + tile.b1 * OUT_STRIDE_B1;

    [[unroll]] for (uint i = 0; i < 8; ++i)
    {
        uint m = tile.m0 + ty * 4 + i % 4 + 64 * (i / 4);

        [[unroll]] for (uint j = 0; j < 2; ++j)
        {
            uint n = tile.n0 + tx * 4 + 64 * j;
            vec4 c = vec4(0.0), value;

            if (!in_m(m) || !in_n(n))
                continue;
            if (SPLIT_K > 1)
            {
                store_partial(tile, m, n, acc[i][j]);
                continue;
            }
            if (HAS_C && C_VECTOR == GEMM_VECTOR_ROW_MAJOR)
                c = vec4(c_vector.v[(c_base + m * C_STRIDE_M + n) / 4]);
            else if (HAS_C)
            {
                [[unroll]] for (uint e = 0; e < 4; ++e)
                {
                    if (in_n(n + e))
                        c[e] = float(c_scalar.v[c_base + m * C_STRIDE_M + (n + e) * C_STRIDE_N]);
                }
            }
            [[unroll]] for (uint e = 0; e < 4; ++e)
                value[e] = gemm_epilogue(acc[i][j][e], c[e]);

            if (OUT_VECTOR == GEMM_VECTOR_ROW_MAJOR)
                out_vector.v[(out_base + m * OUT_STRIDE_M + n) / 4] = VECTOR_T(value);
            else
            {
                [[unroll]] for (uint e = 0; e < 4; ++e)
                {
                    if (in_n(n + e))
                        out_scalar.v[out_base + m * OUT_STRIDE_M + (n + e) * OUT_STRIDE_N] = SCALAR_T(value[e]);
                }
            }
        }
    }
}
