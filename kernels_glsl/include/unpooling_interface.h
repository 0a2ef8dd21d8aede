/*
 * Interface of kernels_glsl/unpooling.comp (DML_OPERATOR_MAX_UNPOOLING), shared by C
 * (backend_vk/ops/unpooling.c) and GLSL.
 *
 * Three dispatches: CLEAR zeroes one winner word per output element in the temporary resource; CLAIM takes input element i (row-major logical index) whose
 * index names output element o (row-major, the output as one contiguous array) and sets
 * winner[o] = max(winner[o], i + 1) with atomicMax, so the last input element naming an output
 * element wins whatever the order of execution; GATHER writes every output element: the bits of
 * input element winner - 1, or zero where no input named it.
 */
#ifndef VKDML_UNPOOLING_INTERFACE_H
#define VKDML_UNPOOLING_INTERFACE_H

#define UNPOOL_RANK 4
#define UNPOOL_THREADS 256
#define UNPOOL_GRAIN 4                  /* CLEAR, GATHER: output elements an invocation */

#define UNPOOL_MODE_CLEAR 0
#define UNPOOL_MODE_CLAIM 1
#define UNPOOL_MODE_GATHER 2

#define UNPOOL_SPEC_MODE 0
#define UNPOOL_SPEC_TYPE            (UNPOOL_SPEC_MODE + 1)         /* TIO_TYPE_* of the input and output */
#define UNPOOL_SPEC_INDEX_TYPE      (UNPOOL_SPEC_TYPE + 1)         /* TIO_TYPE_UINT32 or TIO_TYPE_UINT64 */
#define UNPOOL_SPEC_OUT_PACKED      (UNPOOL_SPEC_INDEX_TYPE + 1)   /* 1: output element i at offset i */
#define UNPOOL_SPEC_IN_SIZES        (UNPOOL_SPEC_OUT_PACKED + 1)   /* UNPOOL_RANK */
#define UNPOOL_SPEC_IN_STRIDES      (UNPOOL_SPEC_IN_SIZES + UNPOOL_RANK)
#define UNPOOL_SPEC_INDEX_STRIDES   (UNPOOL_SPEC_IN_STRIDES + UNPOOL_RANK)
#define UNPOOL_SPEC_OUT_SIZES       (UNPOOL_SPEC_INDEX_STRIDES + UNPOOL_RANK)
#define UNPOOL_SPEC_OUT_STRIDES     (UNPOOL_SPEC_OUT_SIZES + UNPOOL_RANK)
/* Locations (descriptor slot, byte offset low, high): input, indices, output, winners. */
#define UNPOOL_SPEC_LOCATIONS       (UNPOOL_SPEC_OUT_STRIDES + UNPOOL_RANK)
#define UNPOOL_SPEC_COUNT           (UNPOOL_SPEC_LOCATIONS + 4 * 3)

#ifdef VULKAN

/* Bytes [0, 8): the descriptor table's device address (ops_private.h); nothing else. */
layout(push_constant, std430) uniform UnpoolingPush
{
    uvec2 table;
} push;

#endif

#endif /* VKDML_UNPOOLING_INTERFACE_H */
