#version 460
#extension GL_GOOGLE_include_directive : require
/*
 * DML_OPERATOR_CONVOLUTION as a GEMM whose A operand is never materialised (conv_interface.h has
 * the arithmetic and the constants). A workgroup of 16x16 threads computes an output tile of
 * (16 THREAD_M) positions x (16 THREAD_N) output channels of one group; A (input values gathered
 * through the convolution's geometry, zero where it reads padding) and B (filter values) go
 * through shared memory 16 reduction values at a time, the next 16 loaded into registers while
 * the current ones are multiplied, and each thread accumulates THREAD_M x THREAD_N outputs 16
 * apart, positions along x so that neighbouring threads read and write neighbouring addresses.
 */
#include "conv_common.glsl"

layout(local_size_x = CONV_THREADS_M, local_size_y = CONV_THREADS_N, local_size_z = 1) in;

const uint THREADS = CONV_THREADS_M * CONV_THREADS_N;
const uint MAX_TILE = CONV_MAX_THREAD_TILE;
const uint GEMM_M = BATCH * OUT_POSITIONS;
const uint GEMM_N = OUT_C_PER_GROUP;
const uint GEMM_K = IN_C_PER_GROUP * KERNEL_VOLUME;
const uint TILE_M = CONV_THREADS_M * THREAD_M;
const uint TILE_N = CONV_THREADS_N * THREAD_N;
const uint TILES_M = (GEMM_M + TILE_M - 1) / TILE_M;
const uint TILES_N = (GEMM_N + TILE_N - 1) / TILE_N;
const uint TILE_COUNT = TILES_M * TILES_N * GROUPS;
/* One padding column: the B tile is written K-fastest, 16 threads down a column. */
const uint A_LD = TILE_M + 1;
const uint B_LD = TILE_N + 1;
/* A is loaded positions-fastest: a thread keeps its row (position) and steps down K. */
const uint A_K_STEP = THREADS / TILE_M;

shared ACC_T a_tile[CONV_TILE_K * (CONV_THREADS_M * CONV_MAX_THREAD_TILE + 1)];   /* [k][m], A_LD apart */
shared ACC_T b_tile[CONV_TILE_K * (CONV_THREADS_N * CONV_MAX_THREAD_TILE + 1)];   /* [k][n], B_LD apart */

/* This thread's row of the A tile: an output position of an image, fixed for the whole K loop. */
struct ARow
{
    ivec3 start;                /* window_start(); NO_INPUT past the matrix and in a forward OutputPadding tail */
    uint input_base;            /* image and group of the input */
};

ARow a_row_init(uint m, uint g)
{
    uvec3 position = split_position(m % OUT_POSITIONS);
    ARow row;

    row.start = window_start(position, m < GEMM_M && in_extent(position));
    row.input_base = (m / OUT_POSITIONS) * IN_STRIDE_N + g * IN_C_PER_GROUP * IN_STRIDE_C;
    return row;
}

/* The next K slab's tile values, loaded into registers while the current slab is computed. */
ACC_T a_next[MAX_TILE], b_next[MAX_TILE];

void fetch_a_tile(ConvInput input_tensor, ARow row, uint k0, uint thread)
{
    [[unroll]] for (uint r = 0; r < MAX_TILE; ++r)
    {
        uint kk = k0 + thread / TILE_M + r * A_K_STEP, in_offset;

        if (r >= THREAD_M)
            break;
        a_next[r] = ACC_T(0.0);
        if (kk < GEMM_K && window_offset(row.start, tap_step(split_tap(kk % KERNEL_VOLUME)), in_offset))
            a_next[r] = ACC_T(input_tensor.v[row.input_base + (kk / KERNEL_VOLUME) * IN_STRIDE_C + in_offset]);
    }
}

void store_a_tile(uint row_index, uint thread)
{
    [[unroll]] for (uint r = 0; r < MAX_TILE; ++r)
    {
        if (r >= THREAD_M)
            break;
        a_tile[(thread / TILE_M + r * A_K_STEP) * A_LD + row_index] = a_next[r];
    }
}

void fetch_b_tile(ConvInput filter_tensor, uint g, uint n0, uint k0, uint thread)
{
    [[unroll]] for (uint r = 0; r < MAX_TILE; ++r)
    {
        uint l = thread + r * THREADS;
        uint n = n0 + l / CONV_TILE_K, kk = k0 + l % CONV_TILE_K;

        if (r >= THREAD_N)
            break;
        b_next[r] = ACC_T(0.0);
        if (n < GEMM_N && kk < GEMM_K)
            b_next[r] = ACC_T(filter_tensor.v[filter_channel_offset(g, kk / KERNEL_VOLUME, n)
                    + filter_tap_offset(split_tap(kk % KERNEL_VOLUME))]);
    }
}

void store_b_tile(uint thread)
{
    [[unroll]] for (uint r = 0; r < MAX_TILE; ++r)
    {
        uint l = thread + r * THREADS;

        if (r >= THREAD_N)
            break;
        b_tile[(l % CONV_TILE_K) * B_LD + l / CONV_TILE_K] = b_next[r];
    }
}

void main()
{
    /* Tiles are numbered N fastest, then M, then group; surplus workgroups of the rounding leave. */
    uint group = linear_group();
    if (group >= TILE_COUNT)
        return;

    uint n0 = (group % TILES_N) * TILE_N;
    uint m0 = ((group / TILES_N) % TILES_M) * TILE_M;
    uint g = group / (TILES_N * TILES_M);
    uint tm = gl_LocalInvocationID.x, tn = gl_LocalInvocationID.y;
    uint thread = gl_LocalInvocationIndex;
    ConvInput input_tensor = ConvInput(tensor_address(IN_SLOT, IN_OFFSET_LO, IN_OFFSET_HI));
    ConvInput filter_tensor = ConvInput(tensor_address(FILTER_SLOT, FILTER_OFFSET_LO, FILTER_OFFSET_HI));
    uint a_row_index = thread % TILE_M;
    ARow a_row = a_row_init(m0 + a_row_index, g);

    /* Loops run to MAX_TILE with THREAD_M / THREAD_N guards: fully unrolled, the unused parts
     * fold away once the pipeline is specialized. */
    ACC_T acc[MAX_TILE][MAX_TILE];
    [[unroll]] for (uint i = 0; i < MAX_TILE; ++i)
        [[unroll]] for (uint j = 0; j < MAX_TILE; ++j)
            acc[i][j] = ACC_T(0.0);

    fetch_a_tile(input_tensor, a_row, 0, thread);
    fetch_b_tile(filter_tensor, g, n0, 0, thread);
    for (uint k0 = 0; k0 < GEMM_K; k0 += CONV_TILE_K)
    {
        store_a_tile(a_row_index, thread);
        store_b_tile(thread);
        barrier();
        /* Issued before the arithmetic, so that their latency hides behind it. */
        if (k0 + CONV_TILE_K < GEMM_K)
        {
            fetch_a_tile(input_tensor, a_row, k0 + CONV_TILE_K, thread);
            fetch_b_tile(filter_tensor, g, n0, k0 + CONV_TILE_K, thread);
        }

        [[unroll]] for (uint k = 0; k < CONV_TILE_K; ++k)
        {
            ACC_T a_values[MAX_TILE], b_values[MAX_TILE];

            [[unroll]] for (uint i = 0; i < MAX_TILE; ++i)
                a_values[i] = i < THREAD_M ? a_tile[k * A_LD + tm + i * CONV_THREADS_M] : ACC_T(0.0);
            [[unroll]] for (uint j = 0; j < MAX_TILE; ++j)
                b_values[j] = j < THREAD_N ? b_tile[k * B_LD + tn + j * CONV_THREADS_N] : ACC_T(0.0);
            [[unroll]] for (uint i = 0; i < MAX_TILE; ++i)
                [[unroll]] for (uint j = 0; j < MAX_TILE; ++j)
                    if (i < THREAD_M && j < THREAD_N)
                        acc[i][j] += a_values[i] * b_values[j];
        }
        /* The next iteration overwrites the tiles. */
        barrier();
    }

    ConvOutput out_tensor = ConvOutput(tensor_address(OUT_SLOT, OUT_OFFSET_LO, OUT_OFFSET_HI));

    [[unroll]] for (uint i = 0; i < MAX_TILE; ++i)
    {
        uint m = m0 + tm + i * CONV_THREADS_M;

        if (i >= THREAD_M || m >= GEMM_M)
            continue;
        [[unroll]] for (uint j = 0; j < MAX_TILE; ++j)
        {
            uint n = n0 + tn + j * CONV_THREADS_N;

            if (j >= THREAD_N || n >= GEMM_N)
                continue;
            store_output(out_tensor, m / OUT_POSITIONS, g * OUT_C_PER_GROUP + n, split_position(m % OUT_POSITIONS),
                    float(acc[i][j]));
        }
    }
}
