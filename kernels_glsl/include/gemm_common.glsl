/*
 * What every GEMM kernel (gemm.comp, gemm_tiled.comp, gemm_coopmat.comp, gemm_gemv.comp,
 * gemm_split_reduce.comp) declares alike: the specialization constants of gemm_interface.h, the
 * fused activation, tensor addresses and split-K's partial sums.
 * The including kernel has included common.glsl, dml_interface.h and gemm_interface.h.
 */
#ifndef VKDML_GEMM_COMMON_GLSL
#define VKDML_GEMM_COMMON_GLSL

#define ACTIVATION_SPEC_BASE GEMM_SPEC_ACTIVATION
#include "activation.glsl"

layout(constant_id = GEMM_SPEC_M) const uint M = 1;
layout(constant_id = GEMM_SPEC_N) const uint N = 1;
layout(constant_id = GEMM_SPEC_K) const uint K = 1;
layout(constant_id = GEMM_SPEC_BATCH1) const uint BATCH1 = 1;
layout(constant_id = GEMM_SPEC_BATCH_COUNT) const uint BATCH_COUNT = 1;

layout(constant_id = GEMM_SPEC_A_STRIDES + 0) const uint A_STRIDE_B0 = 0;
layout(constant_id = GEMM_SPEC_A_STRIDES + 1) const uint A_STRIDE_B1 = 0;
layout(constant_id = GEMM_SPEC_A_STRIDES + 2) const uint A_STRIDE_M = 1;
layout(constant_id = GEMM_SPEC_A_STRIDES + 3) const uint A_STRIDE_K = 1;
layout(constant_id = GEMM_SPEC_B_STRIDES + 0) const uint B_STRIDE_B0 = 0;
layout(constant_id = GEMM_SPEC_B_STRIDES + 1) const uint B_STRIDE_B1 = 0;
layout(constant_id = GEMM_SPEC_B_STRIDES + 2) const uint B_STRIDE_K = 1;
layout(constant_id = GEMM_SPEC_B_STRIDES + 3) const uint B_STRIDE_N = 1;
layout(constant_id = GEMM_SPEC_C_STRIDES + 0) const uint C_STRIDE_B0 = 0;
layout(constant_id = GEMM_SPEC_C_STRIDES + 1) const uint C_STRIDE_B1 = 0;
layout(constant_id = GEMM_SPEC_C_STRIDES + 2) const uint C_STRIDE_M = 1;
layout(constant_id = GEMM_SPEC_C_STRIDES + 3) const uint C_STRIDE_N = 1;
layout(constant_id = GEMM_SPEC_OUT_STRIDES + 0) const uint OUT_STRIDE_B0 = 0;
layout(constant_id = GEMM_SPEC_OUT_STRIDES + 1) const uint OUT_STRIDE_B1 = 0;
layout(constant_id = GEMM_SPEC_OUT_STRIDES + 2) const uint OUT_STRIDE_M = 1;
layout(constant_id = GEMM_SPEC_OUT_STRIDES + 3) const uint OUT_STRIDE_N = 1;

layout(constant_id = GEMM_SPEC_A_LOCATION + 0) const uint A_SLOT = 0;
layout(constant_id = GEMM_SPEC_A_LOCATION + 1) const uint A_OFFSET_LO = 0;
layout(constant_id = GEMM_SPEC_A_LOCATION + 2) const uint A_OFFSET_HI = 0;
layout(constant_id = GEMM_SPEC_B_LOCATION + 0) const uint B_SLOT = 0;
layout(constant_id = GEMM_SPEC_B_LOCATION + 1) const uint B_OFFSET_LO = 0;
layout(constant_id = GEMM_SPEC_B_LOCATION + 2) const uint B_OFFSET_HI = 0;
layout(constant_id = GEMM_SPEC_C_LOCATION + 0) const uint C_SLOT = 0;
layout(constant_id = GEMM_SPEC_C_LOCATION + 1) const uint C_OFFSET_LO = 0;
layout(constant_id = GEMM_SPEC_C_LOCATION + 2) const uint C_OFFSET_HI = 0;
layout(constant_id = GEMM_SPEC_OUT_LOCATION + 0) const uint OUT_SLOT = 0;
layout(constant_id = GEMM_SPEC_OUT_LOCATION + 1) const uint OUT_OFFSET_LO = 0;
layout(constant_id = GEMM_SPEC_OUT_LOCATION + 2) const uint OUT_OFFSET_HI = 0;

layout(constant_id = GEMM_SPEC_HAS_C) const bool HAS_C = false;
/* The C side passes the FLOAT attributes' bits unchanged. */
layout(constant_id = GEMM_SPEC_ALPHA) const float ALPHA = 1.0;
layout(constant_id = GEMM_SPEC_BETA) const float BETA = 0.0;

/* Split-K (gemm_interface.h): the fast kernels' partial sums and gemm_split_reduce.comp's. */
layout(constant_id = GEMM_SPEC_SPLIT_K) const uint SPLIT_K = 1;
layout(constant_id = GEMM_SPEC_PARTIAL_SLOT) const uint PARTIAL_SLOT = 0;
layout(constant_id = GEMM_SPEC_PARTIAL_OFFSET) const uint PARTIAL_OFFSET_LO = 0;
layout(constant_id = GEMM_SPEC_PARTIAL_OFFSET + 1) const uint PARTIAL_OFFSET_HI = 0;

layout(buffer_reference, std430, buffer_reference_align = 4) buffer PartialSums
{
    float v[];
};
layout(buffer_reference, std430, buffer_reference_align = 16) writeonly buffer PartialVectors
{
    vec4 v[];
};

/* Partial sums {SPLIT_K, BATCH_COUNT, M, N} at PARTIAL_OFFSET in the temporary resource. */
uint partial_index(uint part, uint batch, uint m, uint n)
{
    return ((part * BATCH_COUNT + batch) * M + m) * N + n;
}

/* vkdml_binding_address through this kernel's descriptor table. */
uvec2 tensor_address(uint slot, uint offset_lo, uint offset_hi)
{
    return vkdml_binding_address(VkdmlDescriptorTable(push.table), slot, offset_lo, offset_hi);
}

/* Alpha * product + Beta * C, then the fused activation: the epilogue of every kernel. */
float gemm_epilogue(float product, float c)
{
    float value = ALPHA * product;

    if (HAS_C)
        value += BETA * c;
    return vkdml_activation(value);
}

#endif /* VKDML_GEMM_COMMON_GLSL */
