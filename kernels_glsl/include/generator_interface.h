/*
 * Interface of kernels_glsl/generator.comp (DML_OPERATOR_FILL_VALUE_CONSTANT,
 * DML_OPERATOR_FILL_VALUE_SEQUENCE, DML_OPERATOR_DIAGONAL_MATRIX and DIAGONAL_MATRIX1), shared
 * by C (backend_vk/ops/generator.c) and GLSL.
 *
 * One output of rank 1 to 8 (leading dimensions of size 1 added), written through its element
 * strides; element i (row-major logical index) gets Value (CONSTANT) or ValueStart + i *
 * ValueDelta (SEQUENCE). DIAGONAL: element (.., y, x) of the last two dimensions gets Value
 * where x - y lies in [diagonal[0], diagonal[1]] (outside it with `diagonal_invert`), else the
 * optional input's element or zero. Values travel as the bits of the tensor's type, low word then
 * high, in push constants: they change no code, so fills of one type and shape share a pipeline
 * (docs/kernels.md, "Specialization vs push constants").
 */
#ifndef VKDML_GENERATOR_INTERFACE_H
#define VKDML_GENERATOR_INTERFACE_H

#define GENERATOR_MAX_RANK 8
#define GENERATOR_THREADS 256

#define GENERATOR_SPEC_TYPE 0           /* TIO_TYPE_* (tensor_io.glsl) */
#define GENERATOR_SPEC_SEQUENCE         (GENERATOR_SPEC_TYPE + 1)       /* 1: SEQUENCE; 0: CONSTANT */
#define GENERATOR_SPEC_PACKED           (GENERATOR_SPEC_SEQUENCE + 1)   /* 1: element i is at offset i */
#define GENERATOR_SPEC_COUNT_ELEMENTS   (GENERATOR_SPEC_PACKED + 1)
#define GENERATOR_SPEC_VECTOR           (GENERATOR_SPEC_COUNT_ELEMENTS + 1)     /* elements per invocation */
#define GENERATOR_SPEC_SIZES            (GENERATOR_SPEC_VECTOR + 1)     /* GENERATOR_MAX_RANK */
#define GENERATOR_SPEC_STRIDES          (GENERATOR_SPEC_SIZES + GENERATOR_MAX_RANK)
/* The output's location: descriptor slot, then the byte offset in the binding as low, high words. */
#define GENERATOR_SPEC_OUT_LOCATION     (GENERATOR_SPEC_STRIDES + GENERATOR_MAX_RANK)
#define GENERATOR_SPEC_DIAGONAL         (GENERATOR_SPEC_OUT_LOCATION + 3)  /* 1: DIAGONAL_MATRIX, 1 */
#define GENERATOR_SPEC_HAS_INPUT        (GENERATOR_SPEC_DIAGONAL + 1)   /* DIAGONAL_MATRIX1's InputTensor */
#define GENERATOR_SPEC_IN_PACKED        (GENERATOR_SPEC_HAS_INPUT + 1)
#define GENERATOR_SPEC_IN_STRIDES       (GENERATOR_SPEC_IN_PACKED + 1)  /* GENERATOR_MAX_RANK */
#define GENERATOR_SPEC_IN_LOCATION      (GENERATOR_SPEC_IN_STRIDES + GENERATOR_MAX_RANK)
#define GENERATOR_SPEC_COUNT            (GENERATOR_SPEC_IN_LOCATION + 3)

#ifdef VULKAN

/* Bytes [0, 8): the descriptor table's device address (ops_private.h); then struct generator_push. */
layout(push_constant, std430) uniform GeneratorPush
{
    uvec2 table;
    uvec2 value;                    /* Value, ValueStart: low, high word */
    uvec2 delta;                    /* ValueDelta (SEQUENCE) */
    ivec2 diagonal;                 /* DIAGONAL: the first and last x - y that get Value */
    uint diagonal_invert;           /* DIAGONAL: Value outside that span instead */
} push;

#else

#include <stdint.h>

struct generator_push
{
    uint32_t value[2];
    uint32_t delta[2];
    int32_t diagonal[2];
    uint32_t diagonal_invert;
};

#endif

#endif /* VKDML_GENERATOR_INTERFACE_H */
