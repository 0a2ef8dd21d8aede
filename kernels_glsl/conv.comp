#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_buffer_reference_uvec2 : require
#if defined(VKDML_CONV_FLOAT16) || defined(VKDML_CONV_HALF_COMPUTE)
#extension GL_EXT_shader_16bit_storage : require
#endif
#if defined(VKDML_CONV_HALF_COMPUTE) || defined(CONV_COOPMAT) || defined(CONV_STAGE)
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#endif
#ifdef CONV_COOPMAT
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#endif
/*
 * DML_OPERATOR_CONVOLUTION: 1-D to 3-D, forward and backward (transposed), both modes, strides,
 * dilations, asymmetric padding, OutputPadding, groups, bias and fused activation
 * (conv_interface.h has the arithmetic and the constants). Two kernels from this source:
 *
 * CONV_IMPLICIT_GEMM: the convolution as a GEMM whose A operand is never materialised. A
 * workgroup of 16x16 threads computes an output tile of (16 THREAD_M) positions x (16 THREAD_N)
 * output channels of one group; A (input values gathered through the convolution's geometry,
 * zero where it reads padding) and B (filter values) go through shared memory 16 reduction
 * values at a time, the next 16 loaded into registers while the current ones are multiplied,
 * and each thread accumulates THREAD_M x THREAD_N outputs 16 apart, positions along x so that
 * neighbouring threads read and write neighbouring addresses.
 *
 * CONV_TILED: the implicit GEMM for large shapes, turned around as CONV_COOPMAT below and in
 * gemm_tiled.comp's register tiles (4 x 4 blocks per thread, 16-byte shared-memory reads); with
 * SPLIT_K, several workgroups per tile each sum a part of K, and CONV_SPLIT_REDUCE adds them up.
 *
 * CONV_DIRECT: one output element per thread, the reduction in registers, kernel taps outside
 * and channels inside so that each tap's bounds and stride test runs once. For the shapes whose
 * GEMM tiles would be mostly empty (depthwise and other few-channel groups, tiny reductions) or
 * too few to fill the device (small outputs: a thread per output gives 4 times the workgroups).
 *
 * CONV_COOPMAT (fp16 only, cooperative matrices in NV and KHR form as gemm_coopmat.comp): the same
 * implicit GEMM turned around, Output{channels, positions} = Filter{channels, K} x Input{K, positions}
 * per group, on 16 x 16 by 16 x 8 fp16 products with fp32 accumulation. A workgroup of SUBGROUPS_M x
 * SUBGROUPS_N subgroups computes TILE_M channels x TILE_N positions; CONV_COOPMAT_TILE_K values of
 * K at a time go through shared memory as 16-byte vectors of 8 values (filter rows along K,
 * input rows along positions), the next slab loaded into registers during the arithmetic. A
 * thread's 8 positions are the same in every slab, so their geometry is worked out once. With
 * STAGED (forward, one group) it reads CONV_STAGE's channels-last copies instead: each slab is 32
 * channels of one tap, a 16-byte load per 8 of them with no bounds tests, B kept [n][k].
 *
 * CONV_STAGE: those copies, one 16-byte vector per thread (conv_interface.h has the layouts).
 *
 * All of them read every tensor through its element strides (padded, transposed and broadcast
 * layouts need no special case) and share the gather below, so they compute the same thing.
 *
 * Precision variants (kernels_glsl/meson.build): FLOAT32; VKDML_CONV_FLOAT16: fp16 tensors, fp32
 * arithmetic (16-bit storage only); VKDML_CONV_HALF_COMPUTE: fp16 accumulation too
 * (DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION on shaderFloat16 devices).
 */
#include "common.glsl"
#include "dml_interface.h"
#include "conv_interface.h"

#define ACTIVATION_SPEC_BASE CONV_SPEC_ACTIVATION
#include "activation.glsl"

#if defined(VKDML_CONV_FLOAT16) || defined(VKDML_CONV_HALF_COMPUTE)
# define TENSOR_T float16_t
# define TENSOR_ALIGN 2
#else
# define TENSOR_T float
# define TENSOR_ALIGN 4
#endif
#ifdef VKDML_CONV_HALF_COMPUTE
# define ACC_T float16_t
#else
# define ACC_T float
#endif

#if defined(CONV_DIRECT) || defined(CONV_SPLIT_REDUCE)
layout(local_size_x = CONV_DIRECT_THREADS, local_size_y = 1, local_size_z = 1) in;
#elif defined(CONV_IMPLICIT_GEMM)
layout(local_size_x = CONV_THREADS_M, local_size_y = CONV_THREADS_N, local_size_z = 1) in;
#elif defined(CONV_TILED)
layout(local_size_x = CONV_TILED_THREADS, local_size_y = 1, local_size_z = 1) in;
#elif defined(CONV_COOPMAT)
layout(local_size_x_id = CONV_SPEC_THREADS, local_size_y = 1, local_size_z = 1) in;
#elif defined(CONV_STAGE)
layout(local_size_x = CONV_STAGE_THREADS, local_size_y = 1, local_size_z = 1) in;
#else
# error "Define CONV_DIRECT, CONV_IMPLICIT_GEMM, CONV_TILED, CONV_SPLIT_REDUCE, CONV_COOPMAT or CONV_STAGE."
#endif

layout(buffer_reference, std430, buffer_reference_align = TENSOR_ALIGN) readonly buffer ConvInput
{
    TENSOR_T v[];
};
layout(buffer_reference, std430, buffer_reference_align = TENSOR_ALIGN) writeonly buffer ConvOutput
{
    TENSOR_T v[];
};

layout(constant_id = CONV_SPEC_BATCH) const uint BATCH = 1;
layout(constant_id = CONV_SPEC_IN_CHANNELS) const uint IN_C = 1;
layout(constant_id = CONV_SPEC_IN_SIZES + 0) const uint IN_D = 1;
layout(constant_id = CONV_SPEC_IN_SIZES + 1) const uint IN_H = 1;
layout(constant_id = CONV_SPEC_IN_SIZES + 2) const uint IN_W = 1;
layout(constant_id = CONV_SPEC_IN_STRIDES + 0) const uint IN_STRIDE_N = 0;
layout(constant_id = CONV_SPEC_IN_STRIDES + 1) const uint IN_STRIDE_C = 0;
layout(constant_id = CONV_SPEC_IN_STRIDES + 2) const uint IN_STRIDE_D = 0;
layout(constant_id = CONV_SPEC_IN_STRIDES + 3) const uint IN_STRIDE_H = 0;
layout(constant_id = CONV_SPEC_IN_STRIDES + 4) const uint IN_STRIDE_W = 1;
layout(constant_id = CONV_SPEC_OUT_CHANNELS) const uint OUT_C = 1;
layout(constant_id = CONV_SPEC_OUT_SIZES + 0) const uint OUT_D = 1;
layout(constant_id = CONV_SPEC_OUT_SIZES + 1) const uint OUT_H = 1;
layout(constant_id = CONV_SPEC_OUT_SIZES + 2) const uint OUT_W = 1;
layout(constant_id = CONV_SPEC_OUT_STRIDES + 0) const uint OUT_STRIDE_N = 0;
layout(constant_id = CONV_SPEC_OUT_STRIDES + 1) const uint OUT_STRIDE_C = 0;
layout(constant_id = CONV_SPEC_OUT_STRIDES + 2) const uint OUT_STRIDE_D = 0;
layout(constant_id = CONV_SPEC_OUT_STRIDES + 3) const uint OUT_STRIDE_H = 0;
layout(constant_id = CONV_SPEC_OUT_STRIDES + 4) const uint OUT_STRIDE_W = 1;
layout(constant_id = CONV_SPEC_FILTER_STRIDES + 0) const uint FILTER_STRIDE_0 = 0;
layout(constant_id = CONV_SPEC_FILTER_STRIDES + 1) const uint FILTER_STRIDE_1 = 0;
layout(constant_id = CONV_SPEC_FILTER_STRIDES + 2) const uint FILTER_STRIDE_D = 0;
layout(constant_id = CONV_SPEC_FILTER_STRIDES + 3) const uint FILTER_STRIDE_H = 0;
layout(constant_id = CONV_SPEC_FILTER_STRIDES + 4) const uint FILTER_STRIDE_W = 1;
layout(constant_id = CONV_SPEC_KERNEL_SIZES + 0) const uint KERNEL_D = 1;
layout(constant_id = CONV_SPEC_KERNEL_SIZES + 1) const uint KERNEL_H = 1;
layout(constant_id = CONV_SPEC_KERNEL_SIZES + 2) const uint KERNEL_W = 1;
layout(constant_id = CONV_SPEC_STRIDES + 0) const uint STRIDE_D = 1;
layout(constant_id = CONV_SPEC_STRIDES + 1) const uint STRIDE_H = 1;
layout(constant_id = CONV_SPEC_STRIDES + 2) const uint STRIDE_W = 1;
layout(constant_id = CONV_SPEC_DILATIONS + 0) const uint DILATION_D = 1;
layout(constant_id = CONV_SPEC_DILATIONS + 1) const uint DILATION_H = 1;
layout(constant_id = CONV_SPEC_DILATIONS + 2) const uint DILATION_W = 1;
layout(constant_id = CONV_SPEC_START_PADDING + 0) const uint PAD_D = 0;
layout(constant_id = CONV_SPEC_START_PADDING + 1) const uint PAD_H = 0;
layout(constant_id = CONV_SPEC_START_PADDING + 2) const uint PAD_W = 0;
layout(constant_id = CONV_SPEC_EXTENTS + 0) const uint EXTENT_D = 1;
layout(constant_id = CONV_SPEC_EXTENTS + 1) const uint EXTENT_H = 1;
layout(constant_id = CONV_SPEC_EXTENTS + 2) const uint EXTENT_W = 1;
layout(constant_id = CONV_SPEC_GROUPS) const uint GROUPS = 1;
layout(constant_id = CONV_SPEC_BACKWARD) const bool BACKWARD = false;
layout(constant_id = CONV_SPEC_FLIP) const bool FLIP = false;
layout(constant_id = CONV_SPEC_HAS_BIAS) const bool HAS_BIAS = false;
layout(constant_id = CONV_SPEC_BIAS_STRIDE) const uint BIAS_STRIDE = 1;

layout(constant_id = CONV_SPEC_IN_LOCATION + 0) const uint IN_SLOT = 0;
layout(constant_id = CONV_SPEC_IN_LOCATION + 1) const uint IN_OFFSET_LO = 0;
layout(constant_id = CONV_SPEC_IN_LOCATION + 2) const uint IN_OFFSET_HI = 0;
layout(constant_id = CONV_SPEC_FILTER_LOCATION + 0) const uint FILTER_SLOT = 0;
layout(constant_id = CONV_SPEC_FILTER_LOCATION + 1) const uint FILTER_OFFSET_LO = 0;
layout(constant_id = CONV_SPEC_FILTER_LOCATION + 2) const uint FILTER_OFFSET_HI = 0;
layout(constant_id = CONV_SPEC_BIAS_LOCATION + 0) const uint BIAS_SLOT = 0;
layout(constant_id = CONV_SPEC_BIAS_LOCATION + 1) const uint BIAS_OFFSET_LO = 0;
layout(constant_id = CONV_SPEC_BIAS_LOCATION + 2) const uint BIAS_OFFSET_HI = 0;
layout(constant_id = CONV_SPEC_OUT_LOCATION + 0) const uint OUT_SLOT = 0;
layout(constant_id = CONV_SPEC_OUT_LOCATION + 1) const uint OUT_OFFSET_LO = 0;
layout(constant_id = CONV_SPEC_OUT_LOCATION + 2) const uint OUT_OFFSET_HI = 0;

layout(constant_id = CONV_SPEC_THREAD_M) const uint THREAD_M = CONV_MAX_THREAD_TILE;
layout(constant_id = CONV_SPEC_THREAD_N) const uint THREAD_N = CONV_MAX_THREAD_TILE;

/* Channels per group: input channels (the reduction) and output channels (the GEMM's N). */
const uint IN_C_PER_GROUP = IN_C / GROUPS;
const uint OUT_C_PER_GROUP = OUT_C / GROUPS;
const uint KERNEL_VOLUME = KERNEL_D * KERNEL_H * KERNEL_W;
const uint OUT_POSITIONS = OUT_D * OUT_H * OUT_W;

/* The byte address `offset` into the binding in descriptor `slot`, without 64-bit integers. */
uvec2 tensor_address(uint slot, uint offset_lo, uint offset_hi)
{
    VkdmlDescriptorTable table = VkdmlDescriptorTable(push.table);
    uvec2 base = table.records[slot].address;
    uint carry;
    uint lo = uaddCarry(base.x, offset_lo, carry);

    return uvec2(lo, base.y + offset_hi + carry);
}

/* Output position {d, h, w} of a flattened position index (W fastest); dimensions of size 1
 * give constant 0s, so that their arithmetic folds away once the pipeline is specialized. */
uvec3 split_position(uint position)
{
    uint w = OUT_W == 1 ? 0 : position % OUT_W, hd = OUT_W == 1 ? position : position / OUT_W;

    return uvec3(OUT_D == 1 ? 0 : hd / OUT_H, OUT_H == 1 ? 0 : hd % OUT_H, w);
}

uvec3 split_tap(uint tap)
{
    uint w = KERNEL_W == 1 ? 0 : tap % KERNEL_W, hd = KERNEL_W == 1 ? tap : tap / KERNEL_W;

    return uvec3(KERNEL_D == 1 ? 0 : hd / KERNEL_H, KERNEL_H == 1 ? 0 : hd % KERNEL_H, w);
}

/* Positions of the OutputPadding tail take no input. */
bool in_extent(uvec3 position)
{
    return all(lessThan(position, uvec3(EXTENT_D, EXTENT_H, EXTENT_W)));
}

/* A start no tap brings inside the input: for positions that take none. */
const int NO_INPUT = -(1 << 28);

/* Where output position `position`'s window starts in the input: forward position * Strides -
 * StartPadding, taps then step forward; backward position + StartPadding, taps step back. Kept
 * per position, so that the K loops do only additions. */
ivec3 window_start(uvec3 position, bool takes_input)
{
    /* Not const: a vector specialization-constant conversion would not survive the folding of
     * specialization (a validation error). */
    uvec3 padding = uvec3(PAD_D, PAD_H, PAD_W);

    if (!takes_input)
        return ivec3(NO_INPUT);
    if (BACKWARD)
        return ivec3(position + padding);
    return ivec3(position * uvec3(STRIDE_D, STRIDE_H, STRIDE_W)) - ivec3(padding);
}

ivec3 tap_step(uvec3 tap)
{
    return ivec3(tap * uvec3(DILATION_D, DILATION_H, DILATION_W));
}

/* Where the tap `step` (tap_step()) of the window from `start` reads the input: the spatial
 * element offset, or false when it reads padding (forward) or no input position maps there
 * (backward). Unsigned comparisons take negative positions as too large. */
bool window_offset(ivec3 start, ivec3 step, out uint offset)
{
    const uvec3 in_sizes = uvec3(IN_D, IN_H, IN_W);
    const uvec3 strides = uvec3(STRIDE_D, STRIDE_H, STRIDE_W);
    ivec3 at;

    if (BACKWARD)
    {
        ivec3 shifted = start - step;

        if (any(lessThan(shifted, ivec3(0))) || any(notEqual(uvec3(shifted) % strides, uvec3(0))))
            return false;
        at = ivec3(uvec3(shifted) / strides);
    }
    else
    {
        at = start + step;
    }
    if (any(greaterThanEqual(uvec3(at), in_sizes)))
        return false;
    offset = uint(at.x) * IN_STRIDE_D + uint(at.y) * IN_STRIDE_H + uint(at.z) * IN_STRIDE_W;
    return true;
}

bool input_offset(uvec3 position, uvec3 tap, out uint offset)
{
    return window_offset(window_start(position, true), tap_step(tap), offset);
}

/* The filter's spatial element offset of kernel tap `tap` (flipped in CONVOLUTION mode). */
uint filter_tap_offset(uvec3 tap)
{
    uvec3 t = FLIP ? uvec3(KERNEL_D - 1, KERNEL_H - 1, KERNEL_W - 1) - tap : tap;

    return t.x * FILTER_STRIDE_D + t.y * FILTER_STRIDE_H + t.z * FILTER_STRIDE_W;
}

/* The filter's element offset of (input channel `c`, output channel `k`) within group `g`: the
 * filter is {OutputChannels, InputChannels / Groups, ...} forward and {InputChannels,
 * OutputChannels / Groups, ...} backward. */
uint filter_channel_offset(uint g, uint c, uint k)
{
    return BACKWARD ? (g * IN_C_PER_GROUP + c) * FILTER_STRIDE_0 + k * FILTER_STRIDE_1
            : (g * OUT_C_PER_GROUP + k) * FILTER_STRIDE_0 + c * FILTER_STRIDE_1;
}

uint output_offset(uint image, uint channel, uvec3 position)
{
    return image * OUT_STRIDE_N + channel * OUT_STRIDE_C + position.x * OUT_STRIDE_D + position.y * OUT_STRIDE_H
            + position.z * OUT_STRIDE_W;
}

/* Bias, activation, store. */
void store_output(ConvOutput out_tensor, uint image, uint channel, uvec3 position, float sum)
{
    if (HAS_BIAS)
    {
        ConvInput bias = ConvInput(tensor_address(BIAS_SLOT, BIAS_OFFSET_LO, BIAS_OFFSET_HI));
        sum += float(bias.v[channel * BIAS_STRIDE]);
    }
    out_tensor.v[output_offset(image, channel, position)] = TENSOR_T(vkdml_activation(sum));
}

/* Workgroups are numbered x fastest, then y, then z (the C side spreads large counts). */
uint linear_group()
{
    return gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);
}

#if defined(CONV_TILED) || defined(CONV_SPLIT_REDUCE) || defined(CONV_COOPMAT)

layout(constant_id = CONV_SPEC_SPLIT_K) const uint SPLIT_K = 1;
layout(constant_id = CONV_SPEC_PARTIAL_SLOT) const uint PARTIAL_SLOT = 0;

/* The GEMM the tiled and coopmat kernels compute per group: channels x positions, K = the reduction. */
const uint GEMM_M = OUT_C_PER_GROUP;
const uint GEMM_N = BATCH * OUT_POSITIONS;
const uint GEMM_K = IN_C_PER_GROUP * KERNEL_VOLUME;

layout(buffer_reference, std430, buffer_reference_align = 4) buffer PartialSums
{
    float v[];
};

/* Partial sums {SPLIT_K, GROUPS, GEMM_M, GEMM_N} at the start of the temporary resource. */
uint partial_index(uint part, uint g, uint m, uint n)
{
    return ((part * GROUPS + g) * GEMM_M + m) * GEMM_N + n;
}

#endif

#if defined(CONV_COOPMAT) || defined(CONV_STAGE)

/* The channels-last copies (conv_interface.h), in 16-byte vectors of 8 channels. */
layout(constant_id = CONV_SPEC_STAGED) const bool STAGED = false;
layout(constant_id = CONV_SPEC_STAGED_CHANNELS) const uint STAGED_C = 32;
layout(constant_id = CONV_SPEC_STAGED_SIZES + 0) const uint STAGED_D = 1;
layout(constant_id = CONV_SPEC_STAGED_SIZES + 1) const uint STAGED_H = 1;
layout(constant_id = CONV_SPEC_STAGED_SIZES + 2) const uint STAGED_W = 1;
layout(constant_id = CONV_SPEC_STAGED_IN_LOCATION + 0) const uint STAGED_IN_SLOT = 0;
layout(constant_id = CONV_SPEC_STAGED_IN_LOCATION + 1) const uint STAGED_IN_OFFSET_LO = 0;
layout(constant_id = CONV_SPEC_STAGED_IN_LOCATION + 2) const uint STAGED_IN_OFFSET_HI = 0;
layout(constant_id = CONV_SPEC_STAGED_FILTER_LOCATION + 0) const uint STAGED_FILTER_SLOT = 0;
layout(constant_id = CONV_SPEC_STAGED_FILTER_LOCATION + 1) const uint STAGED_FILTER_OFFSET_LO = 0;
layout(constant_id = CONV_SPEC_STAGED_FILTER_LOCATION + 2) const uint STAGED_FILTER_OFFSET_HI = 0;

const uint STAGED_ROW_VECTORS = STAGED_C / 8;

layout(buffer_reference, std430, buffer_reference_align = 16) buffer StagedVectors
{
    uvec4 v[];
};

uvec4 pack_vector(float16_t values[8])
{
    return uvec4(packFloat2x16(f16vec2(values[0], values[1])), packFloat2x16(f16vec2(values[2], values[3])),
            packFloat2x16(f16vec2(values[4], values[5])), packFloat2x16(f16vec2(values[6], values[7])));
}

#endif

#ifdef CONV_DIRECT

const uint OUT_COUNT = BATCH * OUT_C * OUT_POSITIONS;

void main()
{
    uint index = linear_group() * CONV_DIRECT_THREADS + gl_LocalInvocationIndex;
    if (index >= OUT_COUNT)
        return;

    /* Outputs are numbered as a packed NCDHW tensor, so neighbouring threads share rows. */
    uvec3 position = split_position(index % OUT_POSITIONS);
    uint channel = (index / OUT_POSITIONS) % OUT_C, image = index / (OUT_POSITIONS * OUT_C);
    uint g = channel / OUT_C_PER_GROUP, k = channel % OUT_C_PER_GROUP;
    uint input_base = image * IN_STRIDE_N + g * IN_C_PER_GROUP * IN_STRIDE_C;
    uint filter_base = filter_channel_offset(g, 0, k);
    /* The filter's step from one input channel to the next. */
    const uint filter_c_stride = BACKWARD ? FILTER_STRIDE_0 : FILTER_STRIDE_1;
    ConvInput input_tensor = ConvInput(tensor_address(IN_SLOT, IN_OFFSET_LO, IN_OFFSET_HI));
    ConvInput filter_tensor = ConvInput(tensor_address(FILTER_SLOT, FILTER_OFFSET_LO, FILTER_OFFSET_HI));
    ACC_T acc = ACC_T(0.0);

    for (uint t = 0; in_extent(position) && t < KERNEL_VOLUME; ++t)
    {
        uvec3 tap = split_tap(t);
        uint in_offset, in_index, filter_index;

        if (!input_offset(position, tap, in_offset))
            continue;
        in_index = input_base + in_offset;
        filter_index = filter_base + filter_tap_offset(tap);
        for (uint c = 0; c < IN_C_PER_GROUP; ++c)
        {
            acc += ACC_T(input_tensor.v[in_index]) * ACC_T(filter_tensor.v[filter_index]);
            in_index += IN_STRIDE_C;
            filter_index += filter_c_stride;
        }
    }
    store_output(ConvOutput(tensor_address(OUT_SLOT, OUT_OFFSET_LO, OUT_OFFSET_HI)), image, channel, position,
            float(acc));
}

#elif defined(CONV_IMPLICIT_GEMM)

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
    ivec3 start;                /* window_start(); NO_INPUT past the matrix and in the OutputPadding tail */
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

#elif defined(CONV_TILED)

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
    PartialSums partial = PartialSums(tensor_address(PARTIAL_SLOT, 0, 0));

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

#elif defined(CONV_SPLIT_REDUCE)

/* One output per thread, positions fastest (the partial sums' and an NCHW output's order). */
void main()
{
    uint index = linear_group() * CONV_DIRECT_THREADS + gl_LocalInvocationIndex;
    if (index >= GROUPS * GEMM_M * GEMM_N)
        return;

    uint n = index % GEMM_N, m = (index / GEMM_N) % GEMM_M, g = index / (GEMM_N * GEMM_M);
    PartialSums partial = PartialSums(tensor_address(PARTIAL_SLOT, 0, 0));
    float sum = 0.0;

    for (uint part = 0; part < SPLIT_K; ++part)
        sum += partial.v[partial_index(part, g, m, n)];
    store_output(ConvOutput(tensor_address(OUT_SLOT, OUT_OFFSET_LO, OUT_OFFSET_HI)), n / OUT_POSITIONS,
            g * OUT_C_PER_GROUP + m, split_position(n % OUT_POSITIONS), sum);
}

#elif defined(CONV_STAGE)

layout(constant_id = CONV_SPEC_STAGE_FILTER) const bool STAGE_FILTER = false;

const uint STAGED_POSITIONS = BATCH * STAGED_D * STAGED_H * STAGED_W;

/* Vector `index` of the input's copy: 8 channels of one position of the padded span, positions
 * fastest so that neighbouring threads read neighbouring input elements; zero in the padding and
 * past the channels. */
void stage_input(uint index)
{
    if (index >= STAGED_POSITIONS * STAGED_ROW_VECTORS)
        return;

    uint position = index % STAGED_POSITIONS, c0 = (index / STAGED_POSITIONS) * 8;
    uint w = position % STAGED_W, rest = position / STAGED_W;
    uint h = rest % STAGED_H, d = (rest / STAGED_H) % STAGED_D, image = rest / (STAGED_H * STAGED_D);
    /* Unsigned: positions in the start padding wrap to large values. */
    uint in_d = d - PAD_D, in_h = h - PAD_H, in_w = w - PAD_W;
    bool inside = in_d < IN_D && in_h < IN_H && in_w < IN_W;
    uint base = image * IN_STRIDE_N + in_d * IN_STRIDE_D + in_h * IN_STRIDE_H + in_w * IN_STRIDE_W;
    ConvInput input_tensor = ConvInput(tensor_address(IN_SLOT, IN_OFFSET_LO, IN_OFFSET_HI));
    StagedVectors staged = StagedVectors(tensor_address(STAGED_IN_SLOT, STAGED_IN_OFFSET_LO, STAGED_IN_OFFSET_HI));
    float16_t values[8];

    [[unroll]] for (uint e = 0; e < 8; ++e)
    {
        values[e] = float16_t(0.0);
        if (inside && c0 + e < IN_C)
            values[e] = input_tensor.v[base + (c0 + e) * IN_STRIDE_C];
    }
    staged.v[position * STAGED_ROW_VECTORS + c0 / 8] = pack_vector(values);
}

/* Vector `index` of the filter's copy {channels, taps, C'}: the tap flipped in CONVOLUTION mode
 * (filter_tap_offset), so that the convolution runs as cross-correlation. */
void stage_filter(uint index)
{
    if (index >= OUT_C * KERNEL_VOLUME * STAGED_ROW_VECTORS)
        return;

    uint row = index / STAGED_ROW_VECTORS, c0 = (index % STAGED_ROW_VECTORS) * 8;
    uint k = row / KERNEL_VOLUME, tap = filter_tap_offset(split_tap(row % KERNEL_VOLUME));
    ConvInput filter_tensor = ConvInput(tensor_address(FILTER_SLOT, FILTER_OFFSET_LO, FILTER_OFFSET_HI));
    StagedVectors staged = StagedVectors(tensor_address(STAGED_FILTER_SLOT, STAGED_FILTER_OFFSET_LO,
            STAGED_FILTER_OFFSET_HI));
    float16_t values[8];

    [[unroll]] for (uint e = 0; e < 8; ++e)
    {
        values[e] = float16_t(0.0);
        if (c0 + e < IN_C)
            values[e] = filter_tensor.v[filter_channel_offset(0, c0 + e, k) + tap];
    }
    staged.v[index] = pack_vector(values);
}

void main()
{
    uint index = linear_group() * CONV_STAGE_THREADS + gl_LocalInvocationIndex;

    if (STAGE_FILTER)
        stage_filter(index);
    else
        stage_input(index);
}

#else /* CONV_COOPMAT */

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
const uint B_LOADS = B_VECTORS / THREADS;       /* conv.c: THREADS divides B_VECTORS and is a multiple of B_ROW_VECTORS */
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
 * window starts (NO_INPUT past the matrix and in the OutputPadding tail). */
uint column_base[HALVES];
ivec3 column_start[HALVES];
/* STAGED: where the windows of this thread's positions start in the input's copy, plus its
 * channels' offset in a slab; NO_POSITION past the matrix and in the OutputPadding tail. */
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
    PartialSums partial = PartialSums(tensor_address(PARTIAL_SLOT, 0, 0));

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

#endif
