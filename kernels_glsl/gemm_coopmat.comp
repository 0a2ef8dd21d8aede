#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
/*
 * DML_OPERATOR_GEMM, fp16 tensors on cooperative matrices (16 x 16 A by 16 x 8 B fp16 products
 * with fp32 accumulation): Output = FusedActivation(Alpha * op(A) x op(B) + Beta * C), rounded to
 * fp16 once, at the end. gemm.c selects it only on devices with that shape and a subgroup size of
 * 32. A and B are read 16 bytes at a time where their layout allows, else gathered. Written against
 * GL_NV_cooperative_matrix (what glslang 12 compiles) and also embedded in KHR form
 * (tools/build/spirv-coopmat-khr.py), which needs A and B of different types: hence 16 x 8 B.
 *
 * A workgroup is SUBGROUPS_M x SUBGROUPS_N subgroups computing a TILE_M x TILE_N output tile;
 * each subgroup keeps a block of accumulator matrices (4 x 8 of them for a 64 x 64 block), so
 * that every A and B matrix it loads from shared memory feeds several multiply-adds. A and B
 * are staged through shared memory TILE_K (16, 32 or 64) values of K at a time, in their own
 * layout (row- or column-major, which the matrix loads take as they are), with rows padded by
 * 16 bytes so that matrix loads spread over the banks. gemm.c's default for large matrices,
 * 128 x 128 tiles of 2 x 4 subgroups with TILE_K 64 and one stage, measured fastest on an H200.
 * Global loads are 16-byte vectors kept in registers while the subgroups compute on the
 * previous slab; with STAGES = 2 shared memory is double-buffered (one barrier per slab),
 * with 1 the registers are stored after the arithmetic (two barriers, half the memory).
 *
 * Epilogue: the element layout of an accumulator is opaque, so each subgroup stores one 16 x 16
 * block (two accumulators) at a time to shared memory, and each lane then takes 8 consecutive
 * outputs of a row through Alpha, Beta * C and the activation, writing them as one 16-byte vector
 * when the output's layout allows, scalars through the strides otherwise. With SPLIT_K > 1 (only through
 * VKDML_GEMM_TUNE), SPLIT_K workgroups per tile each sum a part of K's slabs and the epilogue
 * stores their raw fp32 sums in the temporary resource instead; gemm_split_reduce.comp adds them
 * up and runs Alpha, Beta * C and the activation.
 */
#include "common.glsl"
#include "dml_interface.h"
#include "gemm_interface.h"
#include "gemm_common.glsl"

layout(local_size_x_id = GEMM_SPEC_THREADS, local_size_y = 1, local_size_z = 1) in;

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer VectorInput
{
    uvec4 v[];
};
layout(buffer_reference, std430, buffer_reference_align = 2) readonly buffer HalfInput
{
    float16_t v[];
};
layout(buffer_reference, std430, buffer_reference_align = 16) writeonly buffer VectorOutput
{
    uvec4 v[];
};
layout(buffer_reference, std430, buffer_reference_align = 2) writeonly buffer HalfOutput
{
    float16_t v[];
};

layout(constant_id = GEMM_SPEC_TILE_M) const uint TILE_M = 128;
layout(constant_id = GEMM_SPEC_TILE_N) const uint TILE_N = 128;
layout(constant_id = GEMM_SPEC_TILE_K) const uint TILE_K = 32;
layout(constant_id = GEMM_SPEC_A_VECTOR) const uint A_VECTOR = GEMM_VECTOR_ROW_MAJOR;
layout(constant_id = GEMM_SPEC_B_VECTOR) const uint B_VECTOR = GEMM_VECTOR_ROW_MAJOR;
layout(constant_id = GEMM_SPEC_C_VECTOR) const uint C_VECTOR = GEMM_VECTOR_NONE;
layout(constant_id = GEMM_SPEC_OUT_VECTOR) const uint OUT_VECTOR = GEMM_VECTOR_NONE;
layout(constant_id = GEMM_SPEC_GROUP_M) const uint GROUP_M = 8;
layout(constant_id = GEMM_SPEC_STAGES) const uint STAGES = 2;
layout(constant_id = GEMM_SPEC_SUBGROUPS_M) const uint SUBGROUPS_M = 2;
layout(constant_id = GEMM_SPEC_SUBGROUPS_N) const uint SUBGROUPS_N = 2;

const uint THREADS = gl_WorkGroupSize.x;
const uint MAT = GEMM_COOPMAT_MATRIX;
const uint MAT_N = GEMM_COOPMAT_MATRIX_N;      /* B and accumulator columns: 16 x 8 x 16 products */
const uint HALVES = 8;                          /* fp16 values per 16-byte vector */
const uint SUB_M = TILE_M / SUBGROUPS_M;
const uint SUB_N = TILE_N / SUBGROUPS_N;
const uint ACC_ROWS = SUB_M / MAT;
const uint ACC_COLUMNS = SUB_N / MAT_N;

/* Shared layouts: A [m][k] or [k][m], B [k][n] or [n][k], as the matrix reads along its contiguous
 * dimension; A or B without 16-byte vectors (GEMM_VECTOR_NONE) are gathered 8 values at a time
 * along their unit stride where they have one (gemm.c's coopmat_row_major). */
const bool A_SCALAR = A_VECTOR == GEMM_VECTOR_NONE;
const bool B_SCALAR = B_VECTOR == GEMM_VECTOR_NONE;
/* A selection: glslang 12 compiles || and && of spec constants here into control flow outside any
 * function (invalid SPIR-V). */
const bool A_ROW_MAJOR = A_SCALAR ? A_STRIDE_M != 1 : A_VECTOR == GEMM_VECTOR_ROW_MAJOR;
const bool B_ROW_MAJOR = B_SCALAR ? B_STRIDE_K != 1 : B_VECTOR == GEMM_VECTOR_ROW_MAJOR;
/* Shared tiles in vectors: rows of the stored layout, each padded by one vector. */
const uint A_ROWS = A_ROW_MAJOR ? TILE_M : TILE_K;
const uint A_ROW_VECTORS = (A_ROW_MAJOR ? TILE_K : TILE_M) / HALVES;
const uint A_LD = A_ROW_VECTORS + 1;
const uint B_ROWS = B_ROW_MAJOR ? TILE_K : TILE_N;
const uint B_ROW_VECTORS = (B_ROW_MAJOR ? TILE_N : TILE_K) / HALVES;
const uint B_LD = B_ROW_VECTORS + 1;
const uint A_SIZE = A_ROWS * A_LD;
const uint STAGE_SIZE = A_SIZE + B_ROWS * B_LD;
const uint A_LOADS = A_ROWS * A_ROW_VECTORS / THREADS;
const uint B_LOADS = B_ROWS * B_ROW_VECTORS / THREADS;
const uint MAX_LOADS = 256 * 64 / HALVES / 128;           /* the largest tiles, the fewest threads */
/* Epilogue scratch: one 16 x 16 fp32 matrix per subgroup, 4 vectors a row. */
const uint SCRATCH_LD = MAT / 4;

const uint TILES_M = (M + TILE_M - 1) / TILE_M;
const uint TILES_N = (N + TILE_N - 1) / TILE_N;
const uint TILE_COUNT = TILES_M * TILES_N * BATCH_COUNT;
const uint SLABS = (K + TILE_K - 1) / TILE_K;
const uint SLABS_PER_PART = (SLABS + SPLIT_K - 1) / SPLIT_K;
const bool FULL_M = M % TILE_M == 0;
const bool FULL_N = N % TILE_N == 0;
const bool FULL_K = K % TILE_K == 0;

shared uvec4 smem[STAGES * STAGE_SIZE];

uvec4 a_next[MAX_LOADS], b_next[MAX_LOADS];

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
    tile.m0 = (band_first + t % band_rows) * TILE_M;
    tile.n0 = (t / band_rows) * TILE_N;
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

/* The first `count` (at most 8) values `stride` apart from `first`, zero after them. */
uvec4 gather(HalfInput tensor, uint first, uint stride, uint count)
{
    float16_t values[HALVES];

    [[unroll]] for (uint e = 0; e < HALVES; ++e)
        values[e] = e < count ? tensor.v[first + e * stride] : float16_t(0.0);
    return uvec4(packFloat2x16(f16vec2(values[0], values[1])), packFloat2x16(f16vec2(values[2], values[3])),
            packFloat2x16(f16vec2(values[4], values[5])), packFloat2x16(f16vec2(values[6], values[7])));
}

/* Slab k0 of the tile's A rows (m0..) into a_next, zero outside the matrix; vectors run along
 * the contiguous dimension, so a vector is either whole inside or whole outside (gathered ones
 * may end part of the way). */
void fetch_a(VectorInput a, uint base, uint m0, uint k0)
{
    [[unroll]] for (uint q = 0; q < A_LOADS; ++q)
    {
        uint v = gl_LocalInvocationIndex + q * THREADS;
        uint row = v / A_ROW_VECTORS, column = (v % A_ROW_VECTORS) * HALVES;
        uint m = m0 + (A_ROW_MAJOR ? row : column), k = k0 + (A_ROW_MAJOR ? column : row);

        a_next[q] = uvec4(0);
        if (A_SCALAR && m < M && k < K)
            a_next[q] = gather(HalfInput(a), base + m * A_STRIDE_M + k * A_STRIDE_K,
                    A_ROW_MAJOR ? A_STRIDE_K : A_STRIDE_M, A_ROW_MAJOR ? K - k : M - m);
        else if (!A_SCALAR && in_m(m) && in_k(k))
            a_next[q] = a.v[(base + m * A_STRIDE_M + k * A_STRIDE_K) / HALVES];
    }
}

void fetch_b(VectorInput b, uint base, uint n0, uint k0)
{
    [[unroll]] for (uint q = 0; q < B_LOADS; ++q)
    {
        uint v = gl_LocalInvocationIndex + q * THREADS;
        uint row = v / B_ROW_VECTORS, column = (v % B_ROW_VECTORS) * HALVES;
        uint k = k0 + (B_ROW_MAJOR ? row : column), n = n0 + (B_ROW_MAJOR ? column : row);

        b_next[q] = uvec4(0);
        if (B_SCALAR && n < N && k < K)
            b_next[q] = gather(HalfInput(b), base + k * B_STRIDE_K + n * B_STRIDE_N,
                    B_ROW_MAJOR ? B_STRIDE_N : B_STRIDE_K, B_ROW_MAJOR ? N - n : K - k);
        else if (!B_SCALAR && in_n(n) && in_k(k))
            b_next[q] = b.v[(base + k * B_STRIDE_K + n * B_STRIDE_N) / HALVES];
    }
}

void store_tiles(uint stage)
{
    uint a_first = stage * STAGE_SIZE, b_first = a_first + A_SIZE;

    [[unroll]] for (uint q = 0; q < A_LOADS; ++q)
    {
        uint v = gl_LocalInvocationIndex + q * THREADS;
        smem[a_first + (v / A_ROW_VECTORS) * A_LD + v % A_ROW_VECTORS] = a_next[q];
    }
    [[unroll]] for (uint q = 0; q < B_LOADS; ++q)
    {
        uint v = gl_LocalInvocationIndex + q * THREADS;
        smem[b_first + (v / B_ROW_VECTORS) * B_LD + v % B_ROW_VECTORS] = b_next[q];
    }
}

fcoopmatNV<32, gl_ScopeSubgroup, MAT, MAT_N> acc[ACC_ROWS][ACC_COLUMNS];

/* The products of one slab: rows sm.. and columns sn.. of the tile are this subgroup's. */
void multiply(uint stage, uint sm, uint sn)
{
    uint a_first = stage * STAGE_SIZE, b_first = a_first + A_SIZE;

    [[unroll]] for (uint k = 0; k < TILE_K; k += MAT)
    {
        fcoopmatNV<16, gl_ScopeSubgroup, MAT, MAT> a[ACC_ROWS];
        fcoopmatNV<16, gl_ScopeSubgroup, MAT, MAT_N> b;

        [[unroll]] for (uint i = 0; i < ACC_ROWS; ++i)
        {
            uint m = sm + i * MAT;
            uint start = A_ROW_MAJOR ? m * A_LD + k / HALVES : k * A_LD + m / HALVES;
            coopMatLoadNV(a[i], smem, a_first + start, A_LD, !A_ROW_MAJOR);
        }
        [[unroll]] for (uint j = 0; j < ACC_COLUMNS; ++j)
        {
            uint n = sn + j * MAT_N;
            uint start = B_ROW_MAJOR ? k * B_LD + n / HALVES : n * B_LD + k / HALVES;
            coopMatLoadNV(b, smem, b_first + start, B_LD, !B_ROW_MAJOR);
            [[unroll]] for (uint i = 0; i < ACC_ROWS; ++i)
                acc[i][j] = coopMatMulAddNV(a[i], b, acc[i][j]);
        }
    }
}

/* 8 values of C from (m, n) on, zero outside the matrix. */
void load_c(uint base, uint m, uint n, out float c[HALVES])
{
    HalfInput scalar = HalfInput(tensor_address(C_SLOT, C_OFFSET_LO, C_OFFSET_HI));

    if (C_VECTOR == GEMM_VECTOR_ROW_MAJOR)
    {
        uvec4 packed = VectorInput(scalar).v[(base + m * C_STRIDE_M + n) / HALVES];
        [[unroll]] for (uint e = 0; e < HALVES; e += 2)
        {
            f16vec2 pair = unpackFloat2x16(packed[e / 2]);
            c[e] = float(pair.x);
            c[e + 1] = float(pair.y);
        }
        return;
    }
    [[unroll]] for (uint e = 0; e < HALVES; ++e)
    {
        c[e] = 0.0;
        if (in_n(n + e))
            c[e] = float(scalar.v[base + m * C_STRIDE_M + (n + e) * C_STRIDE_N]);
    }
}

void store_output(uint base, uint m, uint n, float value[HALVES])
{
    HalfOutput scalar = HalfOutput(tensor_address(OUT_SLOT, OUT_OFFSET_LO, OUT_OFFSET_HI));

    if (OUT_VECTOR == GEMM_VECTOR_ROW_MAJOR)
    {
        uvec4 packed;
        [[unroll]] for (uint e = 0; e < HALVES; e += 2)
            packed[e / 2] = packFloat2x16(f16vec2(value[e], value[e + 1]));
        VectorOutput(scalar).v[(base + m * OUT_STRIDE_M + n) / HALVES] = packed;
        return;
    }
    [[unroll]] for (uint e = 0; e < HALVES; ++e)
    {
        if (in_n(n + e))
            scalar.v[base + m * OUT_STRIDE_M + (n + e) * OUT_STRIDE_N] = float16_t(value[e]);
    }
}

/* Split-K: a part's raw sums of outputs (m, n..n + 7), those inside the matrix. */
void store_partial(Tile tile, uint m, uint n, uvec4 low, uvec4 high)
{
    PartialSums scalar = PartialSums(tensor_address(PARTIAL_SLOT, PARTIAL_OFFSET_LO, PARTIAL_OFFSET_HI));
    uint index = partial_index(tile.part, tile.batch, m, n);

    if (N % 4 == 0)
    {
        PartialVectors(scalar).v[index / 4] = uintBitsToFloat(low);
        PartialVectors(scalar).v[index / 4 + 1] = uintBitsToFloat(high);
        return;
    }
    [[unroll]] for (uint e = 0; e < HALVES; ++e)
    {
        if (in_n(n + e))
            scalar.v[index + e] = uintBitsToFloat(e < 4 ? low[e] : high[e - 4]);
    }
}

/* Lane l takes row l / 2, columns (l % 2) * 8.. of each 16 x 16 block (two accumulators side by
 * side): Alpha, Beta * C, activation and store, or with split-K this part's sums into the
 * temporary resource. */
void epilogue(Tile tile, uint sm, uint sn)
{
    uint scratch = gl_SubgroupID * MAT * SCRATCH_LD;
    uint lane = gl_SubgroupInvocationID, row = lane / 2, column = (lane % 2) * HALVES;
    uint c_base = tile.b0 * C_STRIDE_B0 + tile.b1 * C_STRIDE_B1;
    uint out_base = tile.b0 * OUT_STRIDE_B0 + tile.b1 * OUT_STRIDE_B1;

    [[unroll]] for (uint i = 0; i < ACC_ROWS; ++i)
    {
        [[unroll]] for (uint j = 0; j < ACC_COLUMNS; j += 2)
        {
            uint m = tile.m0 + sm + i * MAT + row, n = tile.n0 + sn + j * MAT_N + column;
            float c[HALVES], value[HALVES];

            coopMatStoreNV(acc[i][j], smem, scratch, SCRATCH_LD, false);
            coopMatStoreNV(acc[i][j + 1], smem, scratch + MAT_N / 4, SCRATCH_LD, false);
            subgroupBarrier();
            uvec4 low = smem[scratch + row * SCRATCH_LD + column / 4];
            uvec4 high = smem[scratch + row * SCRATCH_LD + column / 4 + 1];
            /* The next accumulators overwrite the scratch. */
            subgroupBarrier();

            if (!in_m(m) || !in_n(n))
                continue;
            if (SPLIT_K > 1)
            {
                store_partial(tile, m, n, low, high);
                continue;
            }
            [[unroll]] for (uint e = 0; e < HALVES; ++e)
                c[e] = 0.0;
            if (HAS_C)
                load_c(c_base, m, n, c);
            [[unroll]] for (uint e = 0; e < 4; ++e)
            {
                value[e] = gemm_epilogue(uintBitsToFloat(low[e]), c[e]);
                value[e + 4] = gemm_epilogue(uintBitsToFloat(high[e]), c[e + 4]);
            }
            store_output(out_base, m, n, value);
        }
    }
}

void main()
{
    Tile tile;

    if (!locate_tile(tile))
        return;

    uint sm = (gl_SubgroupID / SUBGROUPS_N) * SUB_M;
    uint sn = (gl_SubgroupID % SUBGROUPS_N) * SUB_N;
    VectorInput a = VectorInput(tensor_address(A_SLOT, A_OFFSET_LO, A_OFFSET_HI));
    VectorInput b = VectorInput(tensor_address(B_SLOT, B_OFFSET_LO, B_OFFSET_HI));
    uint a_base = tile.b0 * A_STRIDE_B0 + tile.b1 * A_STRIDE_B1;
    uint b_base = tile.b0 * B_STRIDE_B0 + tile.b1 * B_STRIDE_B1;
    /* This part's slabs: all of them without split-K. */
    uint s_first = SPLIT_K == 1 ? 0 : min(tile.part * SLABS_PER_PART, SLABS);
    uint s_end = SPLIT_K == 1 ? SLABS : min(s_first + SLABS_PER_PART, SLABS);

    [[unroll]] for (uint i = 0; i < ACC_ROWS; ++i)
    {
        [[unroll]] for (uint j = 0; j < ACC_COLUMNS; ++j)
            acc[i][j] = fcoopmatNV<32, gl_ScopeSubgroup, MAT, MAT_N>(0.0);
    }

    /* A part past the last slab (more parts than slabs) only writes zeros. */
    if (s_first < s_end)
    {
        fetch_a(a, a_base, tile.m0, s_first * TILE_K);
        fetch_b(b, b_base, tile.n0, s_first * TILE_K);
        if (STAGES == 2)
            store_tiles(0);
    }
    if (STAGES == 2)
        barrier();
    for (uint s = s_first; s < s_end; ++s)
    {
        bool more = s + 1 < s_end;
        uint stage = STAGES == 2 ? (s - s_first) % 2 : 0;

        if (STAGES == 1)
        {
            /* Every subgroup is done reading the previous slab. */
            barrier();
            store_tiles(0);
            barrier();
        }
        /* Issued before the arithmetic, so that their latency hides behind it. */
        if (more)
        {
            fetch_a(a, a_base, tile.m0, (s + 1) * TILE_K);
            fetch_b(b, b_base, tile.n0, (s + 1) * TILE_K);
        }
        multiply(stage, sm, sn);
        if (STAGES == 2)
        {
            /* The other buffer was last read before the previous barrier. */
            if (more)
                store_tiles(stage ^ 1);
            barrier();
        }
    }

    /* The scratch overlays the tiles. */
    barrier();
    epilogue(tile, sm, sn);
}
