#version 460
#extension GL_GOOGLE_include_directive : require
/*
 * DML_OPERATOR_CONVOLUTION's register-tiled kernel for large shapes (conv_interface.h has the
 * arithmetic and the constants), fp32 arithmetic for fp32 and fp16 tensors; with SPLIT_K, several
 * workgroups per tile each sum a part of K, and conv_split_reduce.comp adds them up.
 */
#define CONV_COMMON_SPLIT_K
#include "conv_common.glsl"

layout(local_size_x = CONV_TILED_THREADS, local_size_y = 1, local_size_z = 1) in;

/* The implicit GEMM turned around, Output{channels, positions} = Filter{channels, K} x
 * Input{K, positions} per group, in gemm_tiled.comp's register tiles: 16 x 16 threads, each
 * accumulating 4 x 4 blocks 64 apart (BLOCKS_M x BLOCKS_N of them), reading shared memory in
 * 16-byte vectors; two shared buffers of TILE_K values of K, the next slab's global loads in
 * flight during the arithmetic. */
layout(constant_id = CONV_SPEC_TILE_M) const uint TILE_M = 128;     /* channels */
layout(constant_id = CONV_SPEC_TILE_N) const uint TILE_N = 64;      /* positions */
layout(constant_id = CONV_SPEC_TILE_K) const uint TILE_K = 8;

const uint THREADS = CONV_TILED_THREADS;
const uint BLOCK = CONV_TILED_BLOCK;
const uint MAX_BLOCKS = CONV_TILED_MAX_BLOCKS;
const bool FULL_K = GEMM_K % TILE_K == 0;
const uint BLOCKS_M = TILE_M / BLOCK, BLOCKS_N = TILE_N / BLOCK;
const uint TILES_M = (GEMM_M + TILE_M - 1) / TILE_M;
const uint TILES_N = (GEMM_N + TILE_N - 1) / TILE_N;
const uint TILE_COUNT = TILES_M * TILES_N * GROUPS;
const uint SLABS = (GEMM_K + TILE_K - 1) / TILE_K;
const uint SLABS_PER_PART = (SLABS + SPLIT_K - 1) / SPLIT_K;
/* Loads per thread and slab: the filter K-fastest (a packed forward filter's rows are
 * contiguous along K), the input positions-fastest (each thread keeps one position). */
const uint FILTER_LOADS = TILE_M * TILE_K / THREADS;
const uint INPUT_LOADS = TILE_N * TILE_K / THREADS;
const uint INPUT_K_STEP = THREADS / TILE_N;
const uint MAX_LOADS = MAX_BLOCKS * BLOCK * CONV_TILED_MAX_TILE_K / THREADS;
/* [buffer][k][channel or position] in vec4s, rows padded by 4 values against bank conflicts. */
const uint A_LD = (TILE_M + 4) / 4;
const uint B_LD = (TILE_N + 4) / 4;

shared vec4 a_tile[2 * TILE_K * A_LD];
shared vec4 b_tile[2 * TILE_K * B_LD];

float a_next[MAX_LOADS], b_next[MAX_LOADS];

/* The K index kk as input channel and the spatial step of its tap. */
void channel_and_step(uint kk, out uint channel, out ivec3 step)
{
    channel = kk / KERNEL_VOLUME;
    step = tap_step(split_tap(kk % KERNEL_VOLUME));
}

void fetch_filter(ConvInput filter_tensor, uint g, uint m0, uint k0)
{
    [[unroll]] for (uint q = 0; q < MAX_LOADS; ++q)
    {
        uint l = gl_LocalInvocationIndex + q * THREADS;
        uint m = m0 + l / TILE_K, kk = k0 + l % TILE_K;

        if (q >= FILTER_LOADS)
            break;
        a_next[q] = 0.0;
        if (m < GEMM_M && (FULL_K || kk < GEMM_K))
            a_next[q] = float(filter_tensor.v[filter_channel_offset(g, kk / KERNEL_VOLUME, m)
                    + filter_tap_offset(split_tap(kk % KERNEL_VOLUME))]);
    }
}

void store_filter(uint stage)
{
    [[unroll]] for (uint q = 0; q < MAX_LOADS; ++q)
    {
        uint l = gl_LocalInvocationIndex + q * THREADS, m = l / TILE_K;

        if (q >= FILTER_LOADS)
            break;
        a_tile[(stage * TILE_K + l % TILE_K) * A_LD + m / 4][m % 4] = a_next[q];
    }
}

/* This thread's input position: window_start() and the image and group's input base. */
struct Column
{
    ivec3 start;
    uint input_base;
};

Column column_init(uint n, uint g)
{
    uvec3 position = split_position(n % OUT_POSITIONS);
    Column column;

    column.start = window_start(position, n < GEMM_N && in_extent(position));
    column.input_base = (n / OUT_POSITIONS) * IN_STRIDE_N + g * IN_C_PER_GROUP * IN_STRIDE_C;
    return column;
}

void fetch_input(ConvInput input_tensor, Column column, uint k0)
{
    [[unroll]] for (uint q = 0; q < MAX_LOADS; ++q)
    {
        uint kk = k0 + gl_LocalInvocationIndex / TILE_N + q * INPUT_K_STEP, channel, in_offset;
        ivec3 step;

        if (q >= INPUT_LOADS)
            break;
        b_next[q] = 0.0;
        channel_and_step(kk, channel, step);
        if ((FULL_K || kk < GEMM_K) && window_offset(column.start, step, in_offset))
            b_next[q] = float(input_tensor.v[column.input_base + channel * IN_STRIDE_C + in_offset]);
    }
}

void store_input(uint stage)
{
    uint n = gl_LocalInvocationIndex % TILE_N;

    [[unroll]] for (uint q = 0; q < MAX_LOADS; ++q)
    {
        uint kk = gl_LocalInvocationIndex / TILE_N + q * INPUT_K_STEP;

        if (q >= INPUT_LOADS)
            break;
        b_tile[(stage * TILE_K + kk) * B_LD + n / 4][n % 4] = b_next[q];
    }
}

/* A warp is 8 x 4 threads (tx along positions, ty along channels): 8 + 4 distinct vectors a read. */
uvec2 thread_position()
{
    uint lane = gl_LocalInvocationIndex % 32, warp = gl_LocalInvocationIndex / 32;

    return uvec2(lane % 8 + 8 * (warp % 2), lane / 8 + 4 * (warp / 2));
}

void main()
{
    /* Tiles are numbered channels fastest, so that the workgroups gathering one input tile run
     * together; then positions, then group, then part of K. */
    uint group = linear_group();
    if (group >= TILE_COUNT * SPLIT_K)
        return;

    uint tile = group % TILE_COUNT, part = group / TILE_COUNT;
    uint m0 = (tile % TILES_M) * TILE_M;
    uint n0 = ((tile / TILES_M) % TILES_N) * TILE_N;
    uint g = tile / (TILES_M * TILES_N);
    /* This part's slabs: all of them without split-K. */
    uint k_first = SPLIT_K == 1 ? 0 : min(part * SLABS_PER_PART, SLABS) * TILE_K;
    uint k_end = SPLIT_K == 1 ? GEMM_K : min(k_first + SLABS_PER_PART * TILE_K, GEMM_K);
    uvec2 position = thread_position();
    uint tx = position.x, ty = position.y;
    ConvInput input_tensor = ConvInput(tensor_address(IN_SLOT, IN_OFFSET_LO, IN_OFFSET_HI));
    ConvInput filter_tensor = ConvInput(tensor_address(FILTER_SLOT, FILTER_OFFSET_LO, FILTER_OFFSET_HI));
    Column column = column_init(n0 + gl_LocalInvocationIndex % TILE_N, g);
    /* acc[i][j]: channel ty * 4 + i % 4 + 64 * (i / 4), positions tx * 4 + 64 * j + 0..3; the
     * blocks past BLOCKS_M x BLOCKS_N fold away once the pipeline is specialized. */
    vec4 acc[4 * MAX_BLOCKS][MAX_BLOCKS];

    [[unroll]] for (uint i = 0; i < 4 * MAX_BLOCKS; ++i)
        [[unroll]] for (uint j = 0; j < MAX_BLOCKS; ++j)
            acc[i][j] = vec4(0.0);

    /* A part past the last slab (more parts than slabs) only writes zeros. */
    if (k_first < k_end)
    {
        fetch_filter(filter_tensor, g, m0, k_first);
        fetch_input(input_tensor, column, k_first);
        store_filter(0);
        store_input(0);
    }
    barrier();

    for (uint k0 = k_first, stage = 0; k0 < k_end; k0 += TILE_K, stage ^= 1)
    {
        bool more = k0 + TILE_K < k_end;

        /* Issued before the arithmetic, so that their latency hides behind it. */
        if (more)
        {
            fetch_filter(filter_tensor, g, m0, k0 + TILE_K);
            fetch_input(input_tensor, column, k0 + TILE_K);
        }

        [[unroll]] for (uint k = 0; k < TILE_K; ++k)
        {
            uint a_row = (stage * TILE_K + k) * A_LD, b_row = (stage * TILE_K + k) * B_LD;
            vec4 a[MAX_BLOCKS], b[MAX_BLOCKS];

            [[unroll]] for (uint h = 0; h < MAX_BLOCKS; ++h)
            {
                a[h] = h < BLOCKS_M ? a_tile[a_row + 16 * h + ty] : vec4(0.0);
                b[h] = h < BLOCKS_N ? b_tile[b_row + 16 * h + tx] : vec4(0.0);
            }
            [[unroll]] for (uint i = 0; i < 4 * MAX_BLOCKS; ++i)
            {
                [[unroll]] for (uint j = 0; j < MAX_BLOCKS; ++j)
                {
                    if (i / 4 < BLOCKS_M && j < BLOCKS_N)
                        acc[i][j] = fma(vec4(a[i / 4][i % 4]), b[j], acc[i][j]);
                }
            }
        }

        /* The other buffer was last read before the previous barrier. */
        if (more)
        {
            store_filter(stage ^ 1);
            store_input(stage ^ 1);
        }
        barrier();
    }

    /* Bias, activation and store; or, with split-K, this part's sums into the temporary resource. */
    ConvOutput out_tensor = ConvOutput(tensor_address(OUT_SLOT, OUT_OFFSET_LO, OUT_OFFSET_HI));
    PartialSums partial = PartialSums(tensor_address(PARTIAL_SLOT, PARTIAL_OFFSET_LO, PARTIAL_OFFSET_HI));

    [[unroll]] for (uint i = 0; i < 4 * MAX_BLOCKS; ++i)
    {
        uint m = m0 + ty * 4 + i % 4 + BLOCK * (i / 4);

        if (i / 4 >= BLOCKS_M || m >= GEMM_M)
            continue;
        [[unroll]] for (uint j = 0; j < MAX_BLOCKS; ++j)
        {
            [[unroll]] for (uint e = 0; e < 4; ++e)
            {
                uint n = n0 + tx * 4 + BLOCK * j + e;

                if (j >= BLOCKS_N || n >= GEMM_N)
                    continue;
                if (SPLIT_K > 1)
                    partial.v[partial_index(part, g, m, n)] = acc[i][j][e];
                else
                    store_output(out_tensor, n / OUT_POSITIONS, g * OUT_C_PER_GROUP + m,
                            split_position(n % OUT_POSITIONS), acc[i][j][e]);
            }
        }
    }
}
