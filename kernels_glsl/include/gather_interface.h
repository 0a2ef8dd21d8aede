/*
 * Interface of kernels_glsl/gather.comp (GATHER, GATHER_ELEMENTS, GATHER_ND, GATHER_ND1 and
 * ONE_HOT), shared by C (backend_vk/ops/gather.c) and GLSL.
 *
 * Every operator is described on the output's dimensions (8, leading ones of size 1): output
 * element c (coordinates c_d) is at sum c_d * OUT_STRIDE_d; its index tuple starts at index
 * element sum c_d * INDEX_STRIDE_d, component t at + t * TUPLE_INDEX_STRIDE; the input element
 * is at sum c_d * IN_STRIDE_d + sum_t resolved_t * TUPLE_IN_STRIDE_t, component t resolved
 * against TUPLE_SIZE_t (indices.glsl). An index out of range zeroes the output element (README,
 * "Indices out of range"). ONE_HOT resolves its one index against TUPLE_SIZE_0 and copies the
 * ValuesTensor's element ON_OFFSET where it equals the coordinate of ONE_HOT_AXIS, element 0
 * (off) elsewhere.
 *
 * Elements move as bits: TYPE is the unsigned type of the element's size (64-bit ones as uvec2
 * words). VECTOR > 1: the last dimension is packed in the output (and, but for ONE_HOT, in the
 * input), its size and every other offset a multiple of VECTOR, so each item moves 16 bytes of
 * one row; else an item is one element. Each invocation moves UNROLL items, GATHER_THREADS apart.
 */
#ifndef VKDML_GATHER_INTERFACE_H
#define VKDML_GATHER_INTERFACE_H

#define GATHER_MAX_RANK 8
#define GATHER_THREADS 256
#define GATHER_MAX_UNROLL 8

#define GATHER_MODE_GATHER 0            /* GATHER, GATHER_ELEMENTS, GATHER_ND, GATHER_ND1 */
#define GATHER_MODE_ONE_HOT 1

#define GATHER_SPEC_MODE 0
#define GATHER_SPEC_TYPE                (GATHER_SPEC_MODE + 1)          /* TIO_TYPE_UINT8 ... UINT64 */
#define GATHER_SPEC_INDEX_TYPE          (GATHER_SPEC_TYPE + 1)          /* INT32, UINT32, INT64, UINT64 */
#define GATHER_SPEC_COUNT_ELEMENTS      (GATHER_SPEC_INDEX_TYPE + 1)    /* the output's */
#define GATHER_SPEC_VECTOR              (GATHER_SPEC_COUNT_ELEMENTS + 1)        /* elements per item */
#define GATHER_SPEC_UNROLL              (GATHER_SPEC_VECTOR + 1)        /* items per invocation: 1, 2, 4 or 8 */
#define GATHER_SPEC_TUPLE               (GATHER_SPEC_UNROLL + 1)        /* index components, 1 to 8 */
#define GATHER_SPEC_TUPLE_INDEX_STRIDE  (GATHER_SPEC_TUPLE + 1)
#define GATHER_SPEC_ONE_HOT_AXIS        (GATHER_SPEC_TUPLE_INDEX_STRIDE + 1)    /* kernel dimension */
#define GATHER_SPEC_ON_OFFSET           (GATHER_SPEC_ONE_HOT_AXIS + 1)  /* OnValue's element in ValuesTensor */
#define GATHER_SPEC_SIZES               (GATHER_SPEC_ON_OFFSET + 1)     /* GATHER_MAX_RANK each */
#define GATHER_SPEC_OUT_STRIDES         (GATHER_SPEC_SIZES + GATHER_MAX_RANK)
#define GATHER_SPEC_IN_STRIDES          (GATHER_SPEC_OUT_STRIDES + GATHER_MAX_RANK)
#define GATHER_SPEC_INDEX_STRIDES       (GATHER_SPEC_IN_STRIDES + GATHER_MAX_RANK)
#define GATHER_SPEC_TUPLE_SIZES         (GATHER_SPEC_INDEX_STRIDES + GATHER_MAX_RANK)
#define GATHER_SPEC_TUPLE_IN_STRIDES    (GATHER_SPEC_TUPLE_SIZES + GATHER_MAX_RANK)
/* Tensor locations: descriptor slot, then the byte offset in the binding as low, high words. The
 * input is ONE_HOT's ValuesTensor. */
#define GATHER_SPEC_IN_LOCATION         (GATHER_SPEC_TUPLE_IN_STRIDES + GATHER_MAX_RANK)
#define GATHER_SPEC_INDEX_LOCATION      (GATHER_SPEC_IN_LOCATION + 3)
#define GATHER_SPEC_OUT_LOCATION        (GATHER_SPEC_INDEX_LOCATION + 3)
#define GATHER_SPEC_COUNT               (GATHER_SPEC_OUT_LOCATION + 3)

#ifdef VULKAN

/* Bytes [0, 8): the descriptor table's device address (ops_private.h); nothing else is pushed. */
layout(push_constant, std430) uniform GatherPush
{
    uvec2 table;
} push;

#endif

#endif /* VKDML_GATHER_INTERFACE_H */
