#version 460
#extension GL_GOOGLE_include_directive : require
/*
 * DML_OPERATOR_CONVOLUTION's direct kernel (conv_interface.h has the arithmetic and the
 * constants): one output element per thread, the reduction in registers, kernel taps outside
 * and channels inside so that each tap's bounds and stride test runs once. For the shapes whose
 * GEMM tiles would be mostly empty (depthwise and other few-channel groups, tiny reductions) or
 * too few to fill the device (small outputs: a thread per output gives 4 times the workgroups).
 */
#include "conv_common.glsl"

layout(local_size_x = CONV_DIRECT_THREADS, local_size_y = 1, local_size_z = 1) in;

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
