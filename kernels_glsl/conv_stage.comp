#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
/*
 * DML_OPERATOR_CONVOLUTION's channels-last staging (fp16 only): the copies of the input and the
 * filter that conv_coopmat.comp reads with STAGED, one 16-byte vector per thread
 * (conv_interface.h has the layouts).
 */
#define CONV_COMMON_STAGED
#include "conv_common.glsl"

layout(local_size_x = CONV_STAGE_THREADS, local_size_y = 1, local_size_z = 1) in;

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
