#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_buffer_reference_uvec2 : require
#ifdef VKDML_FOLD_FLOAT16
#extension GL_EXT_shader_16bit_storage : require
#endif
/*
 * DML_OPERATOR_FOLD (col2im) and DML_OPERATOR_UNFOLD (im2col), 1 to 6 spatial dimensions
 * (fold_interface.h has the index arithmetic). One thread per output element: UNFOLD copies the
 * image element its column entry reads (or 0 for padding); FOLD sums, for its image element,
 * every column entry whose block and window position land on it. Tensors are read and written
 * through their element strides.
 *
 * Variants (kernels_glsl/meson.build): FLOAT32; VKDML_FOLD_FLOAT16: fp16 tensors, fp32 sums
 * (16-bit storage only); VKDML_FOLD_UINT32: 32-bit integers (INT32 and UINT32: their sums
 * wrap the same way), copied bit for bit.
 */
#include "common.glsl"
#include "dml_interface.h"
#include "fold_interface.h"

#if defined(VKDML_FOLD_FLOAT16)
# define TENSOR_T float16_t
# define ACC_T float
# define TENSOR_ALIGN 2
#elif defined(VKDML_FOLD_UINT32)
# define TENSOR_T uint
# define ACC_T uint
# define TENSOR_ALIGN 4
#else
# define TENSOR_T float
# define ACC_T float
# define TENSOR_ALIGN 4
#endif

layout(local_size_x = FOLD_THREADS, local_size_y = 1, local_size_z = 1) in;

layout(buffer_reference, std430, buffer_reference_align = TENSOR_ALIGN) readonly buffer FoldInput
{
    TENSOR_T v[];
};
layout(buffer_reference, std430, buffer_reference_align = TENSOR_ALIGN) writeonly buffer FoldOutput
{
    TENSOR_T v[];
};

layout(constant_id = FOLD_SPEC_FOLD) const bool FOLD = false;
layout(constant_id = FOLD_SPEC_BATCH) const uint BATCH = 1;
layout(constant_id = FOLD_SPEC_CHANNELS) const uint CHANNELS = 1;
layout(constant_id = FOLD_SPEC_IMAGE_SIZES + 0) const uint SIZE_0 = 1;
layout(constant_id = FOLD_SPEC_IMAGE_SIZES + 1) const uint SIZE_1 = 1;
layout(constant_id = FOLD_SPEC_IMAGE_SIZES + 2) const uint SIZE_2 = 1;
layout(constant_id = FOLD_SPEC_IMAGE_SIZES + 3) const uint SIZE_3 = 1;
layout(constant_id = FOLD_SPEC_IMAGE_SIZES + 4) const uint SIZE_4 = 1;
layout(constant_id = FOLD_SPEC_IMAGE_SIZES + 5) const uint SIZE_5 = 1;
layout(constant_id = FOLD_SPEC_IMAGE_STRIDES + 0) const uint IMAGE_STRIDE_N = 0;
layout(constant_id = FOLD_SPEC_IMAGE_STRIDES + 1) const uint IMAGE_STRIDE_C = 0;
layout(constant_id = FOLD_SPEC_IMAGE_STRIDES + 2) const uint IMAGE_STRIDE_0 = 0;
layout(constant_id = FOLD_SPEC_IMAGE_STRIDES + 3) const uint IMAGE_STRIDE_1 = 0;
layout(constant_id = FOLD_SPEC_IMAGE_STRIDES + 4) const uint IMAGE_STRIDE_2 = 0;
layout(constant_id = FOLD_SPEC_IMAGE_STRIDES + 5) const uint IMAGE_STRIDE_3 = 0;
layout(constant_id = FOLD_SPEC_IMAGE_STRIDES + 6) const uint IMAGE_STRIDE_4 = 0;
layout(constant_id = FOLD_SPEC_IMAGE_STRIDES + 7) const uint IMAGE_STRIDE_5 = 1;
layout(constant_id = FOLD_SPEC_COLUMN_STRIDES + 0) const uint COLUMN_STRIDE_N = 0;
layout(constant_id = FOLD_SPEC_COLUMN_STRIDES + 1) const uint COLUMN_STRIDE_ROW = 0;
layout(constant_id = FOLD_SPEC_COLUMN_STRIDES + 2) const uint COLUMN_STRIDE_BLOCK = 1;
layout(constant_id = FOLD_SPEC_WINDOW + 0) const uint WINDOW_0 = 1;
layout(constant_id = FOLD_SPEC_WINDOW + 1) const uint WINDOW_1 = 1;
layout(constant_id = FOLD_SPEC_WINDOW + 2) const uint WINDOW_2 = 1;
layout(constant_id = FOLD_SPEC_WINDOW + 3) const uint WINDOW_3 = 1;
layout(constant_id = FOLD_SPEC_WINDOW + 4) const uint WINDOW_4 = 1;
layout(constant_id = FOLD_SPEC_WINDOW + 5) const uint WINDOW_5 = 1;
layout(constant_id = FOLD_SPEC_STRIDES + 0) const uint STRIDE_0 = 1;
layout(constant_id = FOLD_SPEC_STRIDES + 1) const uint STRIDE_1 = 1;
layout(constant_id = FOLD_SPEC_STRIDES + 2) const uint STRIDE_2 = 1;
layout(constant_id = FOLD_SPEC_STRIDES + 3) const uint STRIDE_3 = 1;
layout(constant_id = FOLD_SPEC_STRIDES + 4) const uint STRIDE_4 = 1;
layout(constant_id = FOLD_SPEC_STRIDES + 5) const uint STRIDE_5 = 1;
layout(constant_id = FOLD_SPEC_DILATIONS + 0) const uint DILATION_0 = 1;
layout(constant_id = FOLD_SPEC_DILATIONS + 1) const uint DILATION_1 = 1;
layout(constant_id = FOLD_SPEC_DILATIONS + 2) const uint DILATION_2 = 1;
layout(constant_id = FOLD_SPEC_DILATIONS + 3) const uint DILATION_3 = 1;
layout(constant_id = FOLD_SPEC_DILATIONS + 4) const uint DILATION_4 = 1;
layout(constant_id = FOLD_SPEC_DILATIONS + 5) const uint DILATION_5 = 1;
layout(constant_id = FOLD_SPEC_START_PADDING + 0) const uint PAD_0 = 0;
layout(constant_id = FOLD_SPEC_START_PADDING + 1) const uint PAD_1 = 0;
layout(constant_id = FOLD_SPEC_START_PADDING + 2) const uint PAD_2 = 0;
layout(constant_id = FOLD_SPEC_START_PADDING + 3) const uint PAD_3 = 0;
layout(constant_id = FOLD_SPEC_START_PADDING + 4) const uint PAD_4 = 0;
layout(constant_id = FOLD_SPEC_START_PADDING + 5) const uint PAD_5 = 0;
layout(constant_id = FOLD_SPEC_BLOCKS + 0) const uint BLOCKS_0 = 1;
layout(constant_id = FOLD_SPEC_BLOCKS + 1) const uint BLOCKS_1 = 1;
layout(constant_id = FOLD_SPEC_BLOCKS + 2) const uint BLOCKS_2 = 1;
layout(constant_id = FOLD_SPEC_BLOCKS + 3) const uint BLOCKS_3 = 1;
layout(constant_id = FOLD_SPEC_BLOCKS + 4) const uint BLOCKS_4 = 1;
layout(constant_id = FOLD_SPEC_BLOCKS + 5) const uint BLOCKS_5 = 1;
layout(constant_id = FOLD_SPEC_IN_LOCATION + 0) const uint IN_SLOT = 0;
layout(constant_id = FOLD_SPEC_IN_LOCATION + 1) const uint IN_OFFSET_LO = 0;
layout(constant_id = FOLD_SPEC_IN_LOCATION + 2) const uint IN_OFFSET_HI = 0;
layout(constant_id = FOLD_SPEC_OUT_LOCATION + 0) const uint OUT_SLOT = 0;
layout(constant_id = FOLD_SPEC_OUT_LOCATION + 1) const uint OUT_OFFSET_LO = 0;
layout(constant_id = FOLD_SPEC_OUT_LOCATION + 2) const uint OUT_OFFSET_HI = 0;

/* Spatial constant `d` of a family (SPATIAL(SIZE, d) is SIZE_d). The loops over dimensions are
 * unrolled, so `d` is a constant there and the chain folds away. */
#define SPATIAL(name, d) ((d) == 0 ? name##_0 : (d) == 1 ? name##_1 : (d) == 2 ? name##_2 \
        : (d) == 3 ? name##_3 : (d) == 4 ? name##_4 : name##_5)

const uint WINDOW_VOLUME = WINDOW_0 * WINDOW_1 * WINDOW_2 * WINDOW_3 * WINDOW_4 * WINDOW_5;
const uint BLOCK_COUNT = BLOCKS_0 * BLOCKS_1 * BLOCKS_2 * BLOCKS_3 * BLOCKS_4 * BLOCKS_5;
const uint IMAGE_POSITIONS = SIZE_0 * SIZE_1 * SIZE_2 * SIZE_3 * SIZE_4 * SIZE_5;
const uint ROWS = CHANNELS * WINDOW_VOLUME;
const uint OUT_COUNT = FOLD ? BATCH * CHANNELS * IMAGE_POSITIONS : BATCH * ROWS * BLOCK_COUNT;

/* vkdml_binding_address through this kernel's descriptor table. */
uvec2 tensor_address(uint slot, uint offset_lo, uint offset_hi)
{
    return vkdml_binding_address(VkdmlDescriptorTable(push.table), slot, offset_lo, offset_hi);
}

/* UNFOLD: the image element of block `block` and window position `window` of channel `c`, or
 * 0 in the padding. Through ACC_T, which holds every TENSOR_T value exactly. */
ACC_T unfold_element(FoldInput image, uint n, uint c, uint window, uint block)
{
    uint offset = n * IMAGE_STRIDE_N + c * IMAGE_STRIDE_C;

    [[unroll]] for (int d = FOLD_MAX_SPATIAL - 1; d >= 0; --d)
    {
        int at = int((block % SPATIAL(BLOCKS, d)) * SPATIAL(STRIDE, d) + (window % SPATIAL(WINDOW, d)) * SPATIAL(DILATION, d)) - int(SPATIAL(PAD, d));

        if (at < 0 || at >= int(SPATIAL(SIZE, d)))
            return ACC_T(0);
        offset += uint(at) * SPATIAL(IMAGE_STRIDE, d);
        block /= SPATIAL(BLOCKS, d);
        window /= SPATIAL(WINDOW, d);
    }
    return ACC_T(image.v[offset]);
}

/* FOLD: the block index whose window position `window` lands on image position `position`
 * (per-dimension coordinates packed row-major), or false when none does. */
bool fold_block(uint position, uint window, out uint block)
{
    uint scale = 1;

    block = 0;
    [[unroll]] for (int d = FOLD_MAX_SPATIAL - 1; d >= 0; --d)
    {
        int shifted = int(position % SPATIAL(SIZE, d) + SPATIAL(PAD, d)) - int((window % SPATIAL(WINDOW, d)) * SPATIAL(DILATION, d));
        uint b = uint(shifted) / SPATIAL(STRIDE, d);

        if (shifted < 0 || uint(shifted) % SPATIAL(STRIDE, d) != 0 || b >= SPATIAL(BLOCKS, d))
            return false;
        block += b * scale;
        scale *= SPATIAL(BLOCKS, d);
        position /= SPATIAL(SIZE, d);
        window /= SPATIAL(WINDOW, d);
    }
    return true;
}

uint image_offset(uint n, uint c, uint position)
{
    uint offset = n * IMAGE_STRIDE_N + c * IMAGE_STRIDE_C;

    [[unroll]] for (int d = FOLD_MAX_SPATIAL - 1; d >= 0; --d)
    {
        offset += (position % SPATIAL(SIZE, d)) * SPATIAL(IMAGE_STRIDE, d);
        position /= SPATIAL(SIZE, d);
    }
    return offset;
}

void unfold(FoldInput image, FoldOutput columns, uint index)
{
    uint block = index % BLOCK_COUNT, row = (index / BLOCK_COUNT) % ROWS, n = index / (BLOCK_COUNT * ROWS);

    columns.v[n * COLUMN_STRIDE_N + row * COLUMN_STRIDE_ROW + block * COLUMN_STRIDE_BLOCK]
            = TENSOR_T(unfold_element(image, n, row / WINDOW_VOLUME, row % WINDOW_VOLUME, block));
}

void fold(FoldInput columns, FoldOutput image, uint index)
{
    uint position = index % IMAGE_POSITIONS, c = (index / IMAGE_POSITIONS) % CHANNELS;
    uint n = index / (IMAGE_POSITIONS * CHANNELS), base = n * COLUMN_STRIDE_N + c * WINDOW_VOLUME * COLUMN_STRIDE_ROW;
    ACC_T sum = ACC_T(0);

    for (uint window = 0; window < WINDOW_VOLUME; ++window)
    {
        uint block;

        if (fold_block(position, window, block))
            sum += ACC_T(columns.v[base + window * COLUMN_STRIDE_ROW + block * COLUMN_STRIDE_BLOCK]);
    }
    image.v[image_offset(n, c, position)] = TENSOR_T(sum);
}

void main()
{
    uint group = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);
    uint index = group * FOLD_THREADS + gl_LocalInvocationIndex;
    FoldInput input_tensor = FoldInput(tensor_address(IN_SLOT, IN_OFFSET_LO, IN_OFFSET_HI));
    FoldOutput output_tensor = FoldOutput(tensor_address(OUT_SLOT, OUT_OFFSET_LO, OUT_OFFSET_HI));

    if (index >= OUT_COUNT)
        return;
    if (FOLD)
        fold(input_tensor, output_tensor, index);
    else
        unfold(input_tensor, output_tensor, index);
}
