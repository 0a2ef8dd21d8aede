/*
 * What every CONVOLUTION kernel (conv_direct.comp, conv_implicit_gemm.comp, conv_tiled.comp,
 * conv_split_reduce.comp, conv_coopmat.comp, conv_stage.comp) declares alike: the precision
 * variants, the specialization constants of conv_interface.h, tensor addresses, the gather
 * geometry and the epilogue (bias, fused activation, store). The kernel includes it first, after
 * its own #extension lines, and picks the optional parts by defining before the include:
 *   CONV_COMMON_SPLIT_K  the GEMM turned around (channels x positions) and its split-K partial sums
 *                        (conv_tiled.comp, conv_split_reduce.comp, conv_coopmat.comp)
 *   CONV_COMMON_STAGED   the channels-last copies (conv_coopmat.comp, conv_stage.comp)
 *
 * Every kernel reads every tensor through its element strides (padded, transposed and broadcast
 * layouts need no special case) and shares the gather below, so they compute the same thing.
 *
 * Precision variants (kernels_glsl/meson.build): FLOAT32; VKDML_CONV_FLOAT16: fp16 tensors, fp32
 * arithmetic (16-bit storage only); VKDML_CONV_HALF_COMPUTE: fp16 accumulation too
 * (DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION on shaderFloat16 devices).
 */
#ifndef VKDML_CONV_COMMON_GLSL
#define VKDML_CONV_COMMON_GLSL

#if defined(VKDML_CONV_FLOAT16) || defined(VKDML_CONV_HALF_COMPUTE)
#extension GL_EXT_shader_16bit_storage : require
#endif
#ifdef VKDML_CONV_HALF_COMPUTE
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#endif

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

/* vkdml_binding_address through this kernel's descriptor table. */
uvec2 tensor_address(uint slot, uint offset_lo, uint offset_hi)
{
    return vkdml_binding_address(VkdmlDescriptorTable(push.table), slot, offset_lo, offset_hi);
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

/* Positions of a forward convolution's OutputPadding tail take no input (EXTENT, conv_interface.h). */
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

#ifdef CONV_COMMON_SPLIT_K

layout(constant_id = CONV_SPEC_SPLIT_K) const uint SPLIT_K = 1;
layout(constant_id = CONV_SPEC_PARTIAL_LOCATION + 0) const uint PARTIAL_SLOT = 0;
layout(constant_id = CONV_SPEC_PARTIAL_LOCATION + 1) const uint PARTIAL_OFFSET_LO = 0;
layout(constant_id = CONV_SPEC_PARTIAL_LOCATION + 2) const uint PARTIAL_OFFSET_HI = 0;

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

#ifdef CONV_COMMON_STAGED

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

#endif /* VKDML_CONV_COMMON_GLSL */
