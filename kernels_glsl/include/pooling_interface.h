/*
 * Interface of kernels_glsl/pooling.comp (DML_OPERATOR_AVERAGE_POOLING, AVERAGE_POOLING1,
 * LP_POOLING, LP_POOLING1, MAX_POOLING, MAX_POOLING1, MAX_POOLING2), shared by C
 * (backend_vk/ops/pooling.c) and GLSL.
 *
 * Tensors are 5-D {N, C, D, H, W} (a 4-D operator has D = 1) with element strides. Output element
 * (n, c, od, oh, ow) pools the input cells (n, c, od * S + kd * Dil - Pad, ...) for window offsets
 * k < Window in each spatial dimension; cells outside the input are padding (never the max, 0 for
 * average and Lp). The shape, the window and the function are specialization constants: one
 * pipeline per operator shape, none per run (docs/kernels.md, "Pooling").
 */
#ifndef VKDML_POOLING_INTERFACE_H
#define VKDML_POOLING_INTERFACE_H

#define POOLING_RANK 5
#define POOLING_SPATIAL 3
#define POOLING_THREADS 256

#define POOLING_AVERAGE 0
#define POOLING_LP 1
#define POOLING_MAX 2

#define POOLING_SPEC_FUNCTION 0                                 /* POOLING_AVERAGE, _LP, _MAX */
#define POOLING_SPEC_TYPE               (POOLING_SPEC_FUNCTION + 1)     /* TIO_TYPE_* */
#define POOLING_SPEC_INDEX_TYPE         (POOLING_SPEC_TYPE + 1)         /* 0: no indices; TIO_TYPE_UINT32/64 */
#define POOLING_SPEC_INCLUDE_PADDING    (POOLING_SPEC_INDEX_TYPE + 1)   /* average: divide by the window volume */
#define POOLING_SPEC_P                  (POOLING_SPEC_INCLUDE_PADDING + 1)
#define POOLING_SPEC_OUTPUT_COUNT       (POOLING_SPEC_P + 1)            /* output elements */
#define POOLING_SPEC_IN_SIZES           (POOLING_SPEC_OUTPUT_COUNT + 1)         /* POOLING_RANK */
#define POOLING_SPEC_OUT_SIZES          (POOLING_SPEC_IN_SIZES + POOLING_RANK)
#define POOLING_SPEC_IN_STRIDES         (POOLING_SPEC_OUT_SIZES + POOLING_RANK)
#define POOLING_SPEC_OUT_STRIDES        (POOLING_SPEC_IN_STRIDES + POOLING_RANK)
#define POOLING_SPEC_INDEX_STRIDES      (POOLING_SPEC_OUT_STRIDES + POOLING_RANK)
#define POOLING_SPEC_WINDOW             (POOLING_SPEC_INDEX_STRIDES + POOLING_RANK)     /* POOLING_SPATIAL */
#define POOLING_SPEC_STRIDES            (POOLING_SPEC_WINDOW + POOLING_SPATIAL)
#define POOLING_SPEC_PADDING            (POOLING_SPEC_STRIDES + POOLING_SPATIAL)        /* StartPadding */
#define POOLING_SPEC_DILATIONS          (POOLING_SPEC_PADDING + POOLING_SPATIAL)
/* Tensor locations: descriptor slot, then the byte offset in the binding as low, high words. */
#define POOLING_SPEC_IN_LOCATION        (POOLING_SPEC_DILATIONS + POOLING_SPATIAL)
#define POOLING_SPEC_OUT_LOCATION       (POOLING_SPEC_IN_LOCATION + 3)
#define POOLING_SPEC_INDEX_LOCATION     (POOLING_SPEC_OUT_LOCATION + 3)
/* Invocations per output: 1, or a power of two up to the subgroup size where one output's window
 * is a long contiguous run (global pooling): the lanes split it and combine by shuffles. */
#define POOLING_SPEC_LANES              (POOLING_SPEC_INDEX_LOCATION + 3)
/* Max pooling may read padding cells at clamped coordinates: dilations 1, StartPadding and
 * EndPadding narrower than the window (every window then holds an input cell in each dimension). */
#define POOLING_SPEC_CLAMP_READS        (POOLING_SPEC_LANES + 1)
/* Row path: outputs per invocation along W (1: off), read as whole 16-byte vectors of the input
 * row (docs/kernels.md, "Pooling"). At most POOLING_ROW_OUTPUTS_MAX outputs and
 * POOLING_ROW_VECTORS_MAX vectors per window row. */
#define POOLING_SPEC_ROW_OUTPUTS        (POOLING_SPEC_CLAMP_READS + 1)
/* Row path: the outputs of an invocation stored as one 8- or 16-byte word (bool). */
#define POOLING_SPEC_ROW_STORE          (POOLING_SPEC_ROW_OUTPUTS + 1)
#define POOLING_SPEC_COUNT              (POOLING_SPEC_ROW_STORE + 1)

#define POOLING_ROW_OUTPUTS_MAX 8
#define POOLING_ROW_VECTORS_MAX 4

#ifdef VULKAN

/* Bytes [0, 8): the descriptor table's device address (ops_private.h). */
layout(push_constant, std430) uniform PoolingPush
{
    uvec2 table;
} push;

#endif

#endif /* VKDML_POOLING_INTERFACE_H */
