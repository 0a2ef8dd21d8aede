/*
 * Interface of kernels_glsl/scatter.comp (DML_OPERATOR_SCATTER_ELEMENTS, DML_OPERATOR_SCATTER_ND),
 * shared by C (backend_vk/ops/scatter.c) and GLSL.
 *
 * One operator is output = input (a strided copy: vkdml_copy_add_dispatches()), then up to
 * three dispatches of this kernel (docs/kernels.md, "Scatter"):
 *     CLEAR  per candidate: its target's winner slot (a word of the temporary resource) = 0;
 *     CLAIM  per candidate: atomicMax(slot, candidate + 1): the highest candidate wins;
 *     WRITE  per update element: stored where its candidate won (every candidate wins when no
 *            two can share a target: CLEAR and CLAIM are then left out); SCATTER_ND's rows that
 *            are contiguous in the updates and the output move 16 bytes per invocation.
 * A candidate is an update element (SCATTER_ELEMENTS) or an index tuple with its slice
 * (SCATTER_ND). The dispatch runs over SCATTER_MAX_RANK dimensions (leading ones of size 1): an
 * invocation's coordinates c give, through per-dimension strides, its source element, the part
 * of its output element that does not depend on indices, its index tuple's first element, the
 * part of its winner slot that does not, and its candidate number. Then each of the tuple's
 * TUPLE indices, resolved against its output dimension (indices.glsl), adds its stride to the
 * output element and to the slot; an index out of range skips the candidate.
 */
#ifndef VKDML_SCATTER_INTERFACE_H
#define VKDML_SCATTER_INTERFACE_H

#define SCATTER_MAX_RANK 8
#define SCATTER_THREADS 256

#define SCATTER_MODE_CLEAR 0
#define SCATTER_MODE_CLAIM 1
#define SCATTER_MODE_WRITE 2

#define SCATTER_SPEC_MODE 0
#define SCATTER_SPEC_TYPE               (SCATTER_SPEC_MODE + 1)         /* TIO_TYPE_* of the data */
#define SCATTER_SPEC_INDEX_TYPE         (SCATTER_SPEC_TYPE + 1)         /* TIO_TYPE_* of the indices */
#define SCATTER_SPEC_DEDUP              (SCATTER_SPEC_INDEX_TYPE + 1)   /* WRITE checks the winner slot */
#define SCATTER_SPEC_COUNT_ELEMENTS     (SCATTER_SPEC_DEDUP + 1)        /* the dispatch's elements */
#define SCATTER_SPEC_VECTOR             (SCATTER_SPEC_COUNT_ELEMENTS + 1)   /* WRITE: elements per invocation */
#define SCATTER_SPEC_TUPLE              (SCATTER_SPEC_VECTOR + 1)       /* indices per tuple, 1 to 8 */
#define SCATTER_SPEC_TUPLE_STRIDE       (SCATTER_SPEC_TUPLE + 1)        /* between a tuple's indices */
/* SCATTER_MAX_RANK values each: per dispatch dimension ... */
#define SCATTER_SPEC_SIZES              (SCATTER_SPEC_TUPLE_STRIDE + 1)
#define SCATTER_SPEC_SOURCE_STRIDES     (SCATTER_SPEC_SIZES + SCATTER_MAX_RANK)
#define SCATTER_SPEC_OUT_STRIDES        (SCATTER_SPEC_SOURCE_STRIDES + SCATTER_MAX_RANK)
#define SCATTER_SPEC_INDEX_STRIDES      (SCATTER_SPEC_OUT_STRIDES + SCATTER_MAX_RANK)
#define SCATTER_SPEC_SLOT_STRIDES       (SCATTER_SPEC_INDEX_STRIDES + SCATTER_MAX_RANK)
#define SCATTER_SPEC_CANDIDATE_STRIDES  (SCATTER_SPEC_SLOT_STRIDES + SCATTER_MAX_RANK)
/* ... and per index of a tuple: its output dimension's size, element stride and slot stride. */
#define SCATTER_SPEC_AXIS_SIZES         (SCATTER_SPEC_CANDIDATE_STRIDES + SCATTER_MAX_RANK)
#define SCATTER_SPEC_AXIS_OUT_STRIDES   (SCATTER_SPEC_AXIS_SIZES + SCATTER_MAX_RANK)
#define SCATTER_SPEC_AXIS_SLOT_STRIDES  (SCATTER_SPEC_AXIS_OUT_STRIDES + SCATTER_MAX_RANK)
/* Locations (descriptor slot, byte offset low, high): the source (WRITE: updates),
 * the indices, the output and the winner slots. */
#define SCATTER_SPEC_SOURCE_LOCATION    (SCATTER_SPEC_AXIS_SLOT_STRIDES + SCATTER_MAX_RANK)
#define SCATTER_SPEC_INDEX_LOCATION     (SCATTER_SPEC_SOURCE_LOCATION + 3)
#define SCATTER_SPEC_OUT_LOCATION       (SCATTER_SPEC_INDEX_LOCATION + 3)
#define SCATTER_SPEC_SLOT_LOCATION      (SCATTER_SPEC_OUT_LOCATION + 3)
#define SCATTER_SPEC_COUNT              (SCATTER_SPEC_SLOT_LOCATION + 3)

#ifdef VULKAN

/* Bytes [0, 8): the descriptor table's device address (ops_private.h). */
layout(push_constant, std430) uniform ScatterPush
{
    uvec2 table;
} push;

#endif

#endif /* VKDML_SCATTER_INTERFACE_H */
