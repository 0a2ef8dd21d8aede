#version 460
#extension GL_GOOGLE_include_directive : require
/*
 * DML_OPERATOR_CONVOLUTION's split-K reduction (conv_interface.h): after conv_tiled.comp or
 * conv_coopmat.comp summed SPLIT_K parts of K into fp32 partial sums in the temporary resource,
 * one thread per output adds them up, then bias, the fused activation and the store. It takes
 * the main kernel's constants, so that both agree on the layout and the epilogue.
 */
#define CONV_COMMON_SPLIT_K
#include "conv_common.glsl"

layout(local_size_x = CONV_DIRECT_THREADS, local_size_y = 1, local_size_z = 1) in;

/* One output per thread, positions fastest (the partial sums' and an NCHW output's order). */
void main()
{
    uint index = linear_group() * CONV_DIRECT_THREADS + gl_LocalInvocationIndex;
    if (index >= GROUPS * GEMM_M * GEMM_N)
        return;

    uint n = index % GEMM_N, m = (index / GEMM_N) % GEMM_M, g = index / (GEMM_N * GEMM_M);
    PartialSums partial = PartialSums(tensor_address(PARTIAL_SLOT, PARTIAL_OFFSET_LO, PARTIAL_OFFSET_HI));
    float sum = 0.0;

    for (uint part = 0; part < SPLIT_K; ++part)
        sum += partial.v[partial_index(part, g, m, n)];
    store_output(ConvOutput(tensor_address(OUT_SLOT, OUT_OFFSET_LO, OUT_OFFSET_HI)), n / OUT_POSITIONS,
            g * OUT_C_PER_GROUP + m, split_position(n % OUT_POSITIONS), sum);
}
