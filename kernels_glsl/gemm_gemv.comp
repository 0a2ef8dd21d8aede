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
 * DML_OPERATOR_GEMM with one small side, M <= GEMM_GEMV_MAX_SIDE (gemm.c transposes the problem,
 * Output^T = B^T x A^T, when N is the small one): Output = FusedActivation(Alpha * op(A) x op(B)
 * + Beta * C), with A the small operand and B the large one. Such a GEMM does at most 2 M flops
 * per element of B, so it is bound by reading B once; the kernel's job is to read B coalesced,
 * in 16-byte vectors where the layout allows, with enough loads in flight.
 *
 * A workgroup of 256 threads computes every row of THREADS_N x COLUMNS output columns: THREADS_N
 * threads along N times THREADS_K along K. Each thread walks K in blocks of 16 bytes (VEC
 * values), THREADS_K blocks apart, multiplying the M x VEC block of A by the VEC x COLUMNS block
 * of B into M x COLUMNS partial sums; the workgroup then sums the THREADS_K partials of each
 * output in shared memory and applies the epilogue. Which thread index runs fastest follows B's
 * contiguous direction (K_FASTEST), so that neighbouring threads read neighbouring addresses:
 *   - B K-contiguous (a linear layer's weight {N, K} with TransB): threads along K, each
 *     reading one 16-byte vector of K per column and step: a dot product per output column;
 *   - B N-contiguous ({K, N}): threads along N, each reading a vector of COLUMNS values of a row
 *     of B per value of K: the rows of A broadcast to the threads that share a block of K.
 * The reduction needs no subgroup operations (any subgroup size, any mapping of invocations):
 * a tree over shared memory, four partials per step. A's blocks come from the caches: every
 * workgroup reads all of A, which is at most 8 rows.
 *
 * Loads are 16-byte vectors along K (A and B K-contiguous) or COLUMNS-wide vectors along N (B),
 * where gemm.c found sizes, strides and offsets that keep every vector whole and aligned
 * (GEMM_SPEC_A_VECTOR, GEMM_SPEC_B_VECTOR); otherwise scalars through the strides, which also
 * takes padded, transposed and 0-stride (broadcast) layouts. Vectors are loaded as 32-bit words:
 * one fp32 value or two fp16 values each.
 *
 * Variants (kernels_glsl/meson.build), as gemm.comp's: FLOAT32; VKDML_GEMM_FLOAT16: fp16
 * tensors, fp32 arithmetic (16-bit storage only); VKDML_GEMM_HALF_COMPUTE: fp16 tensors and fp16
 * arithmetic (DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION on shaderFloat16 devices).
 */
#include "common.glsl"
#include "dml_interface.h"
#include "gemm_interface.h"
#include "gemm_common.glsl"

#if defined(VKDML_GEMM_FLOAT16) || defined(VKDML_GEMM_HALF_COMPUTE)
# define TENSOR_T float16_t
# define ELEMENT_SIZE 2
#else
# define TENSOR_T float
# define ELEMENT_SIZE 4
#endif
#ifdef VKDML_GEMM_HALF_COMPUTE
# define ACC_T float16_t
#else
# define ACC_T float
#endif
/* Values per 16-byte vector: the block of K a thread takes per step. */
#define VEC (16 / ELEMENT_SIZE)

layout(local_size_x = GEMM_GEMV_THREADS, local_size_y = 1, local_size_z = 1) in;

layout(buffer_reference, std430, buffer_reference_align = ELEMENT_SIZE) readonly buffer ScalarInput
{
    TENSOR_T v[];
};
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Words4
{
    uvec4 v[];
};
layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer Words2
{
    uvec2 v[];
};
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer Words1
{
    uint v[];
};
layout(buffer_reference, std430, buffer_reference_align = ELEMENT_SIZE) writeonly buffer ScalarOutput
{
    TENSOR_T v[];
};

layout(constant_id = GEMM_SPEC_A_VECTOR) const uint A_VECTOR = GEMM_VECTOR_NONE;
layout(constant_id = GEMM_SPEC_B_VECTOR) const uint B_VECTOR = GEMM_VECTOR_NONE;
layout(constant_id = GEMM_SPEC_GEMV_THREADS_N) const uint THREADS_N = 1;
layout(constant_id = GEMM_SPEC_GEMV_COLUMNS) const uint COLUMNS = 1;
layout(constant_id = GEMM_SPEC_GEMV_K_FASTEST) const bool K_FASTEST = true;

const uint THREADS = GEMM_GEMV_THREADS;
const uint THREADS_K = THREADS / THREADS_N;
const uint K_BLOCKS = (K + VEC - 1) / VEC;
const bool FULL_K = K % VEC == 0;
const uint TILE_N = THREADS_N * COLUMNS;
const uint TILES_N = (N + TILE_N - 1) / TILE_N;
const uint TILE_COUNT = TILES_N * BATCH_COUNT;
/* Partial sums per thread, and outputs per workgroup. */
const uint PARTIALS = M * COLUMNS;
const uint OUTPUTS = THREADS_N * PARTIALS;
/* Partials summed per thread and step of the reduction: fewer barriers than pairs. */
const uint REDUCE_FAN = 4;

shared ACC_T partials[THREADS * PARTIALS];

/* Element e of packed words: fp32 takes a word, fp16 half of one (the low half first). */
ACC_T unpack_element(uvec4 words, uint e)
{
#if defined(VKDML_GEMM_HALF_COMPUTE)
    return unpackFloat2x16(words[e / 2])[e % 2];
#elif defined(VKDML_GEMM_FLOAT16)
    return unpackHalf2x16(words[e / 2])[e % 2];
#else
    return uintBitsToFloat(words[e]);
#endif
}

/* `lanes` values (16, 8 or 4 bytes) from element `index`, a multiple of `lanes`. */
uvec4 load_words(uvec2 address, uint index, uint lanes)
{
    /* In words, without multiplying the element index (it may reach 2^31). */
    uint word = ELEMENT_SIZE == 4 ? index : index / 2;
    uint words = lanes * ELEMENT_SIZE / 4;

    if (words == 4)
        return Words4(address).v[word / 4];
    if (words == 2)
        return uvec4(Words2(address).v[word / 2], 0u, 0u);
    return uvec4(Words1(address).v[word], 0u, 0u, 0u);
}

/* The M x VEC block of A at K offset k (zeros beyond K). */
void load_a_block(uvec2 address, uint base, uint k, out ACC_T a[GEMM_GEMV_MAX_SIDE][VEC])
{
    ScalarInput scalar = ScalarInput(address);

    [[unroll]] for (uint m = 0; m < M; ++m)
    {
        uint row = base + m * A_STRIDE_M;

        if (A_VECTOR == GEMM_VECTOR_ROW_MAJOR)
        {
            uvec4 words = load_words(address, row + k, VEC);
            [[unroll]] for (uint j = 0; j < VEC; ++j)
                a[m][j] = unpack_element(words, j);
        }
        else
        {
            [[unroll]] for (uint j = 0; j < VEC; ++j)
                a[m][j] = FULL_K || k + j < K ? ACC_T(scalar.v[row + (k + j) * A_STRIDE_K]) : ACC_T(0.0);
        }
    }
}

/* K-contiguous B: column n's VEC values from K offset k (zeros beyond K), into every row's
 * partials of that column. */
void dot_column(uvec2 address, uint base, uint n, uint k, uint column, ACC_T a[GEMM_GEMV_MAX_SIDE][VEC],
        inout ACC_T acc[GEMM_GEMV_MAX_PARTIALS])
{
    ScalarInput scalar = ScalarInput(address);
    uint first = base + n * B_STRIDE_N;
    ACC_T b[VEC];

    if (B_VECTOR == GEMM_VECTOR_COLUMN_MAJOR)
    {
        uvec4 words = load_words(address, first + k, VEC);
        [[unroll]] for (uint j = 0; j < VEC; ++j)
            b[j] = unpack_element(words, j);
    }
    else
    {
        [[unroll]] for (uint j = 0; j < VEC; ++j)
            b[j] = FULL_K || k + j < K ? ACC_T(scalar.v[first + (k + j) * B_STRIDE_K]) : ACC_T(0.0);
    }
    [[unroll]] for (uint m = 0; m < M; ++m)
        [[unroll]] for (uint j = 0; j < VEC; ++j)
            acc[m * COLUMNS + column] += a[m][j] * b[j];
}

/* N-contiguous B: row k's COLUMNS values from column n (zeros beyond N), times each row's value
 * of A at that k. */
void axpy_row(uvec2 address, uint base, uint n, uint k, uint j, ACC_T a[GEMM_GEMV_MAX_SIDE][VEC],
        inout ACC_T acc[GEMM_GEMV_MAX_PARTIALS])
{
    ScalarInput scalar = ScalarInput(address);
    uint first = base + k * B_STRIDE_K;
    ACC_T b[GEMM_GEMV_MAX_COLUMNS];

    if (B_VECTOR == GEMM_VECTOR_ROW_MAJOR)
    {
        uvec4 words = load_words(address, first + n, COLUMNS);
        [[unroll]] for (uint c = 0; c < COLUMNS; ++c)
            b[c] = unpack_element(words, c);
    }
    else
    {
        [[unroll]] for (uint c = 0; c < COLUMNS; ++c)
            b[c] = n + c < N ? ACC_T(scalar.v[first + (n + c) * B_STRIDE_N]) : ACC_T(0.0);
    }
    [[unroll]] for (uint m = 0; m < M; ++m)
        [[unroll]] for (uint c = 0; c < COLUMNS; ++c)
            acc[m * COLUMNS + c] += a[m][j] * b[c];
}

/* Where partial sum `o` of the workgroup's outputs from thread `tk` along K lives: consecutive
 * threads write consecutive words, and so do the reduction's reads. */
uint partial_index(uint o, uint tk)
{
    return K_FASTEST ? o * THREADS_K + tk : tk * OUTPUTS + o;
}

/* Output o of the workgroup, from thread tn's partial p (p = m * COLUMNS + c): numbered along
 * the threads that write neighbouring words. */
uint output_of(uint tn, uint p)
{
    return K_FASTEST ? tn * PARTIALS + p : p * THREADS_N + tn;
}

/* Sums every output's THREADS_K partials into its first, REDUCE_FAN at a time: each step leaves
 * `next` partials per output, the sums of partials next apart. */
void reduce_partials()
{
    for (uint width = THREADS_K; width > 1;)
    {
        uint fan = min(width, REDUCE_FAN), next = width / fan;

        for (uint i = gl_LocalInvocationIndex; i < OUTPUTS * next; i += THREADS)
        {
            uint o = K_FASTEST ? i / next : i % OUTPUTS;
            uint j = K_FASTEST ? i % next : i / OUTPUTS;
            ACC_T sum = partials[partial_index(o, j)];

            for (uint e = 1; e < fan; ++e)
                sum += partials[partial_index(o, j + e * next)];
            partials[partial_index(o, j)] = sum;
        }
        barrier();
        width = next;
    }
}

void main()
{
    /* Tiles are numbered N fastest, then batch; the dispatch may spread them over y and z
     * (maxComputeWorkGroupCount) and round up, so surplus workgroups leave at once (all their
     * threads: the barriers below stay in uniform control flow). */
    uint group = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);
    if (group >= TILE_COUNT)
        return;

    uint n0 = (group % TILES_N) * TILE_N;
    uint batch = group / TILES_N;
    uint b0 = batch / BATCH1, b1 = batch % BATCH1;
    uint thread = gl_LocalInvocationIndex;
    uint tk = K_FASTEST ? thread % THREADS_K : thread / THREADS_N;
    uint tn = K_FASTEST ? thread / THREADS_K : thread % THREADS_N;
    uint n_first = n0 + tn * COLUMNS;

    uvec2 a_address = tensor_address(A_SLOT, A_OFFSET_LO, A_OFFSET_HI);
    uvec2 b_address = tensor_address(B_SLOT, B_OFFSET_LO, B_OFFSET_HI);
    uint a_base = b0 * A_STRIDE_B0 + b1 * A_STRIDE_B1;
    uint b_base = b0 * B_STRIDE_B0 + b1 * B_STRIDE_B1;

    ACC_T acc[GEMM_GEMV_MAX_PARTIALS];
    [[unroll]] for (uint p = 0; p < PARTIALS; ++p)
        acc[p] = ACC_T(0.0);

    /* Threads whose columns all lie beyond N skip the loads; their partials stay 0. */
    if (n_first < N)
    {
        for (uint kb = tk; kb < K_BLOCKS; kb += THREADS_K)
        {
            uint k = kb * VEC;
            ACC_T a[GEMM_GEMV_MAX_SIDE][VEC];

            load_a_block(a_address, a_base, k, a);
            if (K_FASTEST)
            {
                [[unroll]] for (uint c = 0; c < COLUMNS; ++c)
                {
                    if (n_first + c < N)
                        dot_column(b_address, b_base, n_first + c, k, c, a, acc);
                }
            }
            else
            {
                [[unroll]] for (uint j = 0; j < VEC; ++j)
                {
                    if (FULL_K || k + j < K)
                        axpy_row(b_address, b_base, n_first, k + j, j, a, acc);
                }
            }
        }
    }

    [[unroll]] for (uint p = 0; p < PARTIALS; ++p)
        partials[partial_index(output_of(tn, p), tk)] = acc[p];
    barrier();
    reduce_partials();

    ScalarOutput out_tensor = ScalarOutput(tensor_address(OUT_SLOT, OUT_OFFSET_LO, OUT_OFFSET_HI));
    ScalarInput c_tensor = ScalarInput(HAS_C ? tensor_address(C_SLOT, C_OFFSET_LO, C_OFFSET_HI) : uvec2(0, 0));
    uint out_base = b0 * OUT_STRIDE_B0 + b1 * OUT_STRIDE_B1;
    uint c_base = b0 * C_STRIDE_B0 + b1 * C_STRIDE_B1;

    for (uint o = thread; o < OUTPUTS; o += THREADS)
    {
        uint owner = K_FASTEST ? o / PARTIALS : o % THREADS_N;
        uint p = K_FASTEST ? o % PARTIALS : o / THREADS_N;
        uint m = p / COLUMNS, n = n0 + owner * COLUMNS + p % COLUMNS;
        float value;

        if (n >= N)
            continue;
        value = gemm_epilogue(float(partials[partial_index(o, 0)]),
                HAS_C ? float(c_tensor.v[c_base + m * C_STRIDE_M + n * C_STRIDE_N]) : 0.0);
        out_tensor.v[out_base + m * OUT_STRIDE_M + n * OUT_STRIDE_N] = TENSOR_T(value);
    }
}
