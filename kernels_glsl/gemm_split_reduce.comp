#version 460
#extension GL_GOOGLE_include_directive : require
#ifdef VKDML_GEMM_FLOAT16
#extension GL_EXT_shader_16bit_storage : require
#endif
/*
 * DML_OPERATOR_GEMM's split-K reduction (gemm_interface.h): after gemm_tiled.comp or
 * gemm_coopmat.comp summed SPLIT_K parts of K into fp32 partial sums {SPLIT_K, BATCH_COUNT, M, N}
 * in the temporary resource, one thread per output adds them up, then Alpha, Beta * C, the fused
 * activation and the store, through C's and the output's strides (0-strides broadcast C). It
 * takes the main kernel's constants, so that both agree on the layout and the epilogue.
 *
 * Variants (kernels_glsl/meson.build): FLOAT32; VKDML_GEMM_FLOAT16: fp16 C and output (16-bit
 * storage only), fp32 sums.
 */
#include "common.glsl"
#include "dml_interface.h"
#include "gemm_interface.h"

#include "gemm_common.glsl"

#ifdef VKDML_GEMM_FLOAT16
# define TENSOR_T float16_t
# define TENSOR_ALIGN 2
#else
# define TENSOR_T float
# define TENSOR_ALIGN 4
#endif

layout(local_size_x = GEMM_SPLIT_REDUCE_THREADS, local_size_y = 1, local_size_z = 1) in;

layout(buffer_reference, std430, buffer_reference_align = TENSOR_ALIGN) readonly buffer GemmInput
{
    TENSOR_T v[];
};
layout(buffer_reference, std430, buffer_reference_align = TENSOR_ALIGN) writeonly buffer GemmOutput
{
    TENSOR_T v[];
};

/* N fastest: neighbouring threads read neighbouring partial sums. */
void main()
{
    uint group = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);
    uint index = group * GEMM_SPLIT_REDUCE_THREADS + gl_LocalInvocationIndex;
    if (index >= BATCH_COUNT * M * N)
        return;

    uint n = index % N, m = (index / N) % M, batch = index / (N * M);
    uint b0 = batch / BATCH1, b1 = batch % BATCH1;
    PartialSums partial = PartialSums(tensor_address(PARTIAL_SLOT, PARTIAL_OFFSET_LO, PARTIAL_OFFSET_HI));
    float sum = 0.0, c = 0.0;

    for (uint part = 0; part < SPLIT_K; ++part)
        sum += partial.v[partial_index(part, batch, m, n)];
    if (HAS_C)
        c = float(GemmInput(tensor_address(C_SLOT, C_OFFSET_LO, C_OFFSET_HI))
                .v[b0 * C_STRIDE_B0 + b1 * C_STRIDE_B1 + m * C_STRIDE_M + n * C_STRIDE_N]);
    GemmOutput(tensor_address(OUT_SLOT, OUT_OFFSET_LO, OUT_OFFSET_HI))
            .v[b0 * OUT_STRIDE_B0 + b1 * OUT_STRIDE_B1 + m * OUT_STRIDE_M + n * OUT_STRIDE_N]
            = TENSOR_T(gemm_epilogue(sum, c));
}
