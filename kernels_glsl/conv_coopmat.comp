#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
/*
 * DML_OPERATOR_CONVOLUTION on cooperative matrices (fp16 only; conv_interface.h has the
 * arithmetic and the constants), in NV form and, through tools/build/spirv-coopmat-khr.py, KHR form, as
 * gemm_coopmat.comp: the implicit GEMM turned around, Output{channels, positions} =
 * Filter{channels, K} x Input{K, positions} per group, on 16 x 16 by 16 x 8 fp16 products with
 * fp32 accumulation. A workgroup of SUBGROUPS_M x SUBGROUPS_N subgroups computes TILE_M channels x
 * TILE_N positions; CONV_COOPMAT_TILE_K values of K at a time go through shared memory as 16-byte
 * vectors of 8 values (filter rows along K, input rows along positions), the next slab loaded into
 * registers during the arithmetic. A thread's 8 positions are the same in every slab, so their
 * geometry is worked out once. With STAGED (forward, one group) it reads conv_stage.comp's
 * channels-last copies instead: each slab is 32 channels of one tap, a 16-byte load per 8 of them
 * with no bounds tests, B kept [n][k]. With SPLIT_K, several workgroups per tile each sum a part of
 * K, and conv_split_reduce.comp adds them up.
 */
#define CONV_COMMON_SPLIT_K
#define CONV_COMMON_STAGED
#include "conv_common.glsl"

layout(local_size_x_id = CONV_SPEC_THREADS, local_size_y = 1, local_size_z = 1) in;

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer ConvVectors
{
    uvec4 v[];
};

layout(constant_id = CONV_SPEC_TILE_M) const uint TILE_M = 64;
layout(constant_id = CONV_SPEC_TILE_N) const uint TILE_N = 128;
layout(constant_id = CONV_SPEC_SUBGROUPS_M) const uint SUBGROUPS_M = 2;
layout(constant_id = CONV_SPEC_SUBGROUPS_N) const uint SUBGROUPS_N = 4;
layout(constant_id = CONV_SPEC_FILTER_VECTOR) const bool FILTER_VECTOR = false;
layout(constant_id = CONV_SPEC_OUT_VECTOR) const bool OUT_VECTOR = false;

layout(buffer_reference, std430, buffer_reference_align = 16) writeonly buffer OutputVectors
{
    uvec4 v[];
};

const uint THREADS = gl_WorkGroupSize.x;
const uint MAT = CONV_COOPMAT_MATRIX;
const uint MAT_N = CONV_COOPMAT_MATRIX_N;      /* B and accumulator columns: 16 x 8 x 16 products */
const uint TILE_K = CONV_COOPMAT_TILE_K;
const uint HALVES = 8;                          /* fp16 values per 16-byte vector */
const uint SUB_M = TILE_M / SUBGROUPS_M;
const uint SUB_N = TILE_N / SUBGROUPS_N;
const uint ACC_ROWS = SUB_M / MAT;
const uint ACC_COLUMNS = SUB_N / MAT_N;
const uint TILES_M = (GEMM_M + TILE_M - 1) / TILE_M;
const uint TILES_N = (GEMM_N + TILE_N - 1) / TILE_N;
const uint TILE_COUNT = TILES_M * TILES_N * GROUPS;
/* K: with STAGED, each tap's C' channels, whole slabs. */
const uint REDUCTION = STAGED ? KERNEL_VOLUME * STAGED_C : GEMM_K;
const uint SLABS = (REDUCTION + TILE_K - 1) / TILE_K;
const uint SLABS_PER_PART = (SLABS + SPLIT_K - 1) / SPLIT_K;
/* Shared tiles in vectors, rows padded by one vector so that matrix loads spread over the banks:
 * A (filter) [m][k], B (gathered input) [k][n]; STAGED, B [n][k] (8 channels a vector), loaded
 * as column-major matrices. */
const uint A_ROW_VECTORS = TILE_K / HALVES;
const uint A_LD = A_ROW_VECTORS + 1;
const uint B_ROW_VECTORS = TILE_N / HALVES;
const uint B_LD = B_ROW_VECTORS + 1;
const uint A_SIZE = TILE_M * A_LD;
const uint A_VECTORS = TILE_M * A_ROW_VECTORS;
const uint B_VECTORS = TILE_K * B_ROW_VECTORS;
const uint A_LOADS = (A_VECTORS + THREADS - 1) / THREADS;
/* conv.c: THREADS divides B_VECTORS and is a multiple of B_ROW_VECTORS. */
const uint B_LOADS = B_VECTORS / THREADS;
const uint STAGED_B_ROW_VECTORS = TILE_K / HALVES;
const uint STAGED_B_LD = STAGED_B_ROW_VECTORS + 1;
const uint STAGED_B_LOADS = TILE_N * STAGED_B_ROW_VECTORS / THREADS;
const uint MAX_LOADS = CONV_COOPMAT_MAX_TILE * TILE_K / HALVES / CONV_COOPMAT_MIN_THREADS;
/* Epilogue scratch: one 16 x 16 fp32 matrix per subgroup, 4 vectors a row. */
const uint SCRATCH_LD = MAT / 4;

/* TILE_N * STAGED_B_LD is at least TILE_K * B_LD: room for either layout of B. */
shared uvec4 smem[A_SIZE + TILE_N * STAGED_B_LD];

uvec4 a_next[MAX_LOADS], b_next[MAX_LOADS];
fcoopmatNV<32, gl_ScopeSubgroup, MAT, MAT_N> acc[ACC_ROWS][ACC_COLUMNS];

/* This thread's 8 positions of the B tile: where each reads its image and group, and where its
 * window starts (NO_INPUT past the matrix and in a forward OutputPadding tail). */
uint column_base[HALVES];
ivec3 column_start[HALVES];
/* STAGED: where the windows of this thread's positions start in the input's copy, plus its
 * channels' offset in a slab; NO_POSITION past the matrix and in a forward OutputPadding tail. */
const uint NO_POSITION = 0xffffffffu;
uint staged_base[MAX_LOADS];

void init_columns(uint n, uint g)
{
    [[unroll]] for (uint e = 0; e < HALVES; ++e)
    {
        uvec3 position = split_position((n + e) % OUT_POSITIONS);

        column_start[e] = window_start(position, n + e < GEMM_N && in_extent(position));
        column_base[e] = ((n + e) / OUT_POSITIONS) * IN_STRIDE_N + g * IN_C_PER_GROUP * IN_STRIDE_C;
    }
}

void init_staged(uint n0)
{
    [[unroll]] for (uint q = 0; q < STAGED_B_LOADS; ++q)
    {
        uint n = n0 + (gl_LocalInvocationIndex + q * THREADS) / STAGED_B_ROW_VECTORS;
        uvec3 position = split_position(n % OUT_POSITIONS);
        uint image = n / OUT_POSITIONS;

        staged_base[q] = NO_POSITION;
        if (n < GEMM_N && in_extent(position))
            staged_base[q] = (((image * STAGED_D + position.x * STRIDE_D) * STAGED_H + position.y * STRIDE_H) * STAGED_W
                    + position.z * STRIDE_W) * STAGED_C + (gl_LocalInvocationIndex % STAGED_B_ROW_VECTORS) * HALVES;
    }
}

/* Row k0.. of the filter for channels m0.., 8 values of K per vector, zero outside the matrix;
 * STAGED, rows of the filter's copy. */
void fetch_a(ConvInput filter_tensor, uint g, uint m0, uint k0)
{
    [[unroll]] for (uint q = 0; q < A_LOADS; ++q)
    {
        uint v = gl_LocalInvocationIndex + q * THREADS;
        uint m = m0 + v / A_ROW_VECTORS, k = k0 + (v % A_ROW_VECTORS) * HALVES;
        float16_t values[HALVES];

        a_next[q] = uvec4(0);
        if (v >= A_VECTORS || m >= GEMM_M)
            continue;
        if (FILTER_VECTOR || STAGED)
        {
            /* conv.c: packed {channels, K} rows, K a multiple of 8, 16-byte aligned. */
            uint row = STAGED ? m * REDUCTION : filter_channel_offset(g, 0, m);

            if (k < REDUCTION)
                a_next[q] = ConvVectors(filter_tensor).v[(row + k) / HALVES];
            continue;
        }
        [[unroll]] for (uint e = 0; e < HALVES; ++e)
        {
            uint kk = k + e;

            values[e] = float16_t(0.0);
            if (kk < GEMM_K)
                values[e] = filter_tensor.v[filter_channel_offset(g, kk / KERNEL_VOLUME, m)
                        + filter_tap_offset(split_tap(kk % KERNEL_VOLUME))];
        }
        a_next[q] = pack_vector(values);
    }
}

/* Rows k0.. of the implicit im2col matrix at this thread's 8 positions, zero where a tap reads
 * padding (or, backward, no input position). */
void fetch_b(ConvInput input_tensor, uint k0)
{
    [[unroll]] for (uint q = 0; q < B_LOADS; ++q)
    {
        uint k = k0 + (gl_LocalInvocationIndex + q * THREADS) / B_ROW_VECTORS;
        ivec3 step = tap_step(split_tap(k % KERNEL_VOLUME));
        uint channel_offset = (k / KERNEL_VOLUME) * IN_STRIDE_C;
        float16_t values[HALVES];

        [[unroll]] for (uint e = 0; e < HALVES; ++e)
        {
            uint in_offset;

            values[e] = float16_t(0.0);
            if (k < GEMM_K && window_offset(column_start[e], step, in_offset))
                values[e] = input_tensor.v[column_base[e] + channel_offset + in_offset];
        }
        b_next[q] = pack_vector(values);
    }
}

/* STAGED: slab k0 (one tap, TILE_K channels) of the input's copy at this thread's positions. */
void fetch_staged_b(StagedVectors staged, uint k0)
{
    uvec3 step = uvec3(tap_step(split_tap(k0 / STAGED_C)));
    uint offset = ((step.x * STAGED_H + step.y) * STAGED_W + step.z) * STAGED_C + k0 % STAGED_C;

    [[unroll]] for (uint q = 0; q < STAGED_B_LOADS; ++q)
    {
        b_next[q] = uvec4(0);
        if (staged_base[q] != NO_POSITION)
            b_next[q] = staged.v[(staged_base[q] + offset) / HALVES];
    }
}

void fetch_slab(ConvInput filter_tensor, ConvInput input_tensor, StagedVectors staged, uint g, uint m0, uint k0)
{
    fetch_a(filter_tensor, g, m0, k0);
    if (STAGED)
        fetch_staged_b(staged, k0);
    else
        fetch_b(input_tensor, k0);
}

void store_tiles()
{
    [[unroll]] for (uint q = 0; q < A_LOADS; ++q)
    {
        uint v = gl_LocalInvocationIndex + q * THREADS;

        if (v < A_VECTORS)
            smem[(v / A_ROW_VECTORS) * A_LD + v % A_ROW_VECTORS] = a_next[q];
    }
    [[unroll]] for (uint q = 0; q < (STAGED ? STAGED_B_LOADS : B_LOADS); ++q)
    {
        uint v = gl_LocalInvocationIndex + q * THREADS;

        if (STAGED)
            smem[A_SIZE + (v / STAGED_B_ROW_VECTORS) * STAGED_B_LD + v % STAGED_B_ROW_VECTORS] = b_next[q];
        else
            smem[A_SIZE + (v / B_ROW_VECTORS) * B_LD + v % B_ROW_VECTORS] = b_next[q];
    }
}

/* The products of one slab: channels sm.. and positions sn.. of the tile are this subgroup's. */
void multiply(uint sm, uint sn)
{
    [[unroll]] for (uint k = 0; k < TILE_K; k += MAT)
    {
        fcoopmatNV<16, gl_ScopeSubgroup, MAT, MAT> a[ACC_ROWS];
        fcoopmatNV<16, gl_ScopeSubgroup, MAT, MAT_N> b;

        [[unroll]] for (uint i = 0; i < ACC_ROWS; ++i)
            coopMatLoadNV(a[i], smem, (sm + i * MAT) * A_LD + k / HALVES, A_LD, false);
        [[unroll]] for (uint j = 0; j < ACC_COLUMNS; ++j)
        {
            if (STAGED)
                coopMatLoadNV(b, smem, A_SIZE + (sn + j * MAT_N) * STAGED_B_LD + k / HALVES, STAGED_B_LD, true);
            else
                coopMatLoadNV(b, smem, A_SIZE + k * B_LD + (sn + j * MAT_N) / HALVES, B_LD, false);
            [[unroll]] for (uint i = 0; i < ACC_ROWS; ++i)
                acc[i][j] = coopMatMulAddNV(a[i], b, acc[i][j]);
        }
    }
}

/* OUT_VECTOR: the sums of positions n..n + 7 of `channel` through bias and activation, one store. */
void store_vector(uint channel, uint n, uvec4 low, uvec4 high)
{
    OutputVectors out_vectors = OutputVectors(tensor_address(OUT_SLOT, OUT_OFFSET_LO, OUT_OFFSET_HI));
    float16_t values[HALVES];
    float bias = 0.0;

    if (HAS_BIAS)
        bias = float(ConvInput(tensor_address(BIAS_SLOT, BIAS_OFFSET_LO, BIAS_OFFSET_HI)).v[channel * BIAS_STRIDE]);
    [[unroll]] for (uint e = 0; e < HALVES; ++e)
        values[e] = float16_t(vkdml_activation(uintBitsToFloat(e < 4 ? low[e] : high[e - 4]) + bias));
    out_vectors.v[output_offset(n / OUT_POSITIONS, channel, split_position(n % OUT_POSITIONS)) / HALVES]
            = pack_vector(values);
}

/* Lane l takes channel l / 2 and positions (l % 2) * 8.. of each 16 x 16 block (two accumulators
 * side by side): bias, activation and store, or with split-K this part's sums into the temporary
 * resource. */
void epilogue(uint part, uint g, uint m0, uint n0, uint sm, uint sn)
{
    uint scratch = gl_SubgroupID * MAT * SCRATCH_LD;
    uint lane = gl_SubgroupInvocationID, row = lane / 2, column = (lane % 2) * HALVES;
    ConvOutput out_tensor = ConvOutput(tensor_address(OUT_SLOT, OUT_OFFSET_LO, OUT_OFFSET_HI));
    PartialSums partial = PartialSums(tensor_address(PARTIAL_SLOT, PARTIAL_OFFSET_LO, PARTIAL_OFFSET_HI));

    [[unroll]] for (uint i = 0; i < ACC_ROWS; ++i)
    {
        [[unroll]] for (uint j = 0; j < ACC_COLUMNS; j += 2)
        {
            uint m = m0 + sm + i * MAT + row, n = n0 + sn + j * MAT_N + column;

            coopMatStoreNV(acc[i][j], smem, scratch, SCRATCH_LD, false);
            coopMatStoreNV(acc[i][j + 1], smem, scratch + MAT_N / 4, SCRATCH_LD, false);
            subgroupBarrier();
            uvec4 low = smem[scratch + row * SCRATCH_LD + column / 4];
            uvec4 high = smem[scratch + row * SCRATCH_LD + column / 4 + 1];
            /* The next accumulators overwrite the scratch. */
            subgroupBarrier();

            if (m >= GEMM_M)
                continue;
            if (OUT_VECTOR && SPLIT_K == 1)
            {
                if (n < GEMM_N)
                    store_vector(g * OUT_C_PER_GROUP + m, n, low, high);
                continue;
            }
            [[unroll]] for (uint e = 0; e < HALVES; ++e)
            {
                uint p = n + e;
                float sum = uintBitsToFloat(e < 4 ? low[e] : high[e - 4]);

                if (p >= GEMM_N)
                    continue;
                if (SPLIT_K > 1)
                    partial.v[partial_index(part, g, m, p)] = sum;
                else
                    store_output(out_tensor, p / OUT_POSITIONS, g * OUT_C_PER_GROUP + m,
                            split_position(p % OUT_POSITIONS), sum);
            }
        }
    }
}

void main()
{
    /* Tiles are numbered channels fastest, so that neighbouring workgroups share input columns;
     * then positions, group, part of K. */
    uint group = linear_group();
    if (group >= TILE_COUNT * SPLIT_K)
        return;

    uint tile = group % TILE_COUNT, part = group / TILE_COUNT;
    uint m0 = (tile % TILES_M) * TILE_M;
    uint n0 = ((tile / TILES_M) % TILES_N) * TILE_N;
    uint g = tile / (TILES_M * TILES_N);
    /* This part's slabs: all of them without split-K. */
    uint s_first = SPLIT_K == 1 ? 0 : min(part * SLABS_PER_PART, SLABS);
    uint s_end = SPLIT_K == 1 ? SLABS : min(s_first + SLABS_PER_PART, SLABS);
    uint sm = (gl_SubgroupID / SUBGROUPS_N) * SUB_M;
    uint sn = (gl_SubgroupID % SUBGROUPS_N) * SUB_N;
    ConvInput input_tensor = ConvInput(tensor_address(IN_SLOT, IN_OFFSET_LO, IN_OFFSET_HI));
    StagedVectors staged = StagedVectors(tensor_address(STAGED_IN_SLOT, STAGED_IN_OFFSET_LO, STAGED_IN_OFFSET_HI));
    ConvInput filter_tensor = ConvInput(STAGED
            ? tensor_address(STAGED_FILTER_SLOT, STAGED_FILTER_OFFSET_LO, STAGED_FILTER_OFFSET_HI)
            : tensor_address(FILTER_SLOT, FILTER_OFFSET_LO, FILTER_OFFSET_HI));

    if (STAGED)
        init_staged(n0);
    else
        init_columns(n0 + (gl_LocalInvocationIndex % B_ROW_VECTORS) * HALVES, g);
    [[unroll]] for (uint i = 0; i < ACC_ROWS; ++i)
    {
        [[unroll]] for (uint j = 0; j < ACC_COLUMNS; ++j)
            acc[i][j] = fcoopmatNV<32, gl_ScopeSubgroup, MAT, MAT_N>(0.0);
    }

    /* A part past the last slab (more parts than slabs) only writes zeros. */
    if (s_first < s_end)
    {
        fetch_slab(filter_tensor, input_tensor, staged, g, m0, s_first * TILE_K);
    }
    for (uint s = s_first; s < s_end; ++s)
    {
        /* Every subgroup is done reading the previous slab. */
        barrier();
        store_tiles();
        barrier();
        /* Issued before the arithmetic, so that their latency hides behind it. */
        if (s + 1 < s_end)
        {
            fetch_slab(filter_tensor, input_tensor, staged, g, m0, (s + 1) * TILE_K);
        }
        multiply(sm, sn);
    }

    /* The scratch overlays the tiles. */
    barrier();
    epilogue(part, g, m0, n0, sm, sn);
}
