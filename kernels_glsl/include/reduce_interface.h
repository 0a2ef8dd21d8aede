/*
 * Interface of kernels_glsl/reduce.comp (DML_OPERATOR_REDUCE, DML_OPERATOR_ARGMIN, DML_OPERATOR_ARGMAX),
 * shared by C (backend_vk/ops/reduce.c) and GLSL.
 *
 * The input is seen through a struct vkdml_axes_layout (ops_private.h): K outputs (the kept
 * dimensions, flattened) each reduce R input elements (the reduced dimensions, flattened in the
 * tensor's order: an ARG* index is that flattened index). The modes:
 *   ROW           a workgroup per (output, part): its invocations stride over the part's reduced
 *                 elements and combine through subgroup shuffles and shared memory (the reduced
 *                 elements are contiguous, or the kept ones are not);
 *   SUBGROUP_ROW  ROW with a subgroup per output and no parts, for rows too short to keep a
 *                 workgroup busy;
 *   COLUMN        an invocation per (output, slice, part), looping over its slice of the part's
 *                 reduced elements: adjacent invocations read adjacent elements when the innermost
 *                 kept dimension is contiguous; a workgroup holds REDUCE_THREADS / SLICES column
 *                 lanes times SLICES slices (slice s: elements s, s + SLICES ...), combined through
 *                 shared memory in a fixed tree;
 *   COMBINE       an invocation per output, combining its PARTS partial states in part order;
 *   COMBINE_ROW   COMBINE with a workgroup per output, for many parts (a whole-tensor reduction).
 * With PARTS > 1, ROW and COLUMN write partial states (REDUCE_PARTIAL_WORDS of the state) into the
 * temporary resource, part-major (COLUMN's stores and COMBINE's loads coalesce), and a COMBINE
 * or COMBINE_ROW dispatch finishes them: the order of every operation is fixed, so results are the same on
 * every run.
 */
#ifndef VKDML_REDUCE_INTERFACE_H
#define VKDML_REDUCE_INTERFACE_H

#define REDUCE_THREADS 256
/* Loads in flight per invocation (ROW and COLUMN loops): enough to cover a GPU's memory latency. */
#define REDUCE_UNROLL 8
/* Partial states in flight per invocation of COMBINE: its few invocations wait a round trip per
 * batch, and a partial state is mostly one word. */
#define REDUCE_COMBINE_UNROLL 16
#define REDUCE_MAX_DIMS 8
/* COLUMN: the most slices a workgroup splits its columns' reductions into, and the shared words
 * per invocation its tree combines in a round. */
#define REDUCE_MAX_SLICES 64
#define REDUCE_SLICE_WORDS 8

#define REDUCE_MODE_ROW 0
#define REDUCE_MODE_COLUMN 1
#define REDUCE_MODE_COMBINE 2
#define REDUCE_MODE_SUBGROUP_ROW 3
#define REDUCE_MODE_COMBINE_ROW 4

/* DML_REDUCE_FUNCTION values. */
#define REDUCE_ARGMAX 0
#define REDUCE_ARGMIN 1
#define REDUCE_AVERAGE 2
#define REDUCE_L1 3
#define REDUCE_L2 4
#define REDUCE_LOG_SUM 5
#define REDUCE_LOG_SUM_EXP 6
#define REDUCE_MAX 7
#define REDUCE_MIN 8
#define REDUCE_MULTIPLY 9
#define REDUCE_SUM 10
#define REDUCE_SUM_SQUARE 11

/* 32-bit words of a partial state by function, and whether the input is INT64 / UINT64: the value
 * (one word, two for 64-bit integers and LOG_SUM_EXP's max and sum), then ARG*'s index, padded to
 * a power of two. A part is never empty, so emptiness needs no word. */
#define REDUCE_PARTIAL_WORDS(function, long_domain) \
    ((function) == REDUCE_ARGMAX || (function) == REDUCE_ARGMIN ? ((long_domain) ? 4 : 2) \
            : (function) == REDUCE_LOG_SUM_EXP || (long_domain) ? 2 : 1)

/* Specialization constant ids, each derived from the one before. */
#define REDUCE_SPEC_MODE 0
#define REDUCE_SPEC_FUNCTION            (REDUCE_SPEC_MODE + 1)
#define REDUCE_SPEC_LAST_INDEX          (REDUCE_SPEC_FUNCTION + 1)      /* ARG* ties: 1 the last index, 0 the first */
#define REDUCE_SPEC_INPUT_TYPE          (REDUCE_SPEC_LAST_INDEX + 1)    /* DML_TENSOR_DATA_TYPE */
#define REDUCE_SPEC_OUTPUT_TYPE         (REDUCE_SPEC_INPUT_TYPE + 1)
#define REDUCE_SPEC_KEPT_COUNT          (REDUCE_SPEC_OUTPUT_TYPE + 1)   /* dimensions, 0 to REDUCE_MAX_DIMS */
#define REDUCE_SPEC_REDUCED_COUNT       (REDUCE_SPEC_KEPT_COUNT + 1)
#define REDUCE_SPEC_PARTIAL             (REDUCE_SPEC_REDUCED_COUNT + 1) /* 1: ROW / COLUMN write partial states */
#define REDUCE_SPEC_VECTOR              (REDUCE_SPEC_PARTIAL + 1)       /* elements per load: 1, 4, 8 (FLOAT16) */
#define REDUCE_SPEC_SLICES              (REDUCE_SPEC_VECTOR + 1)        /* COLUMN: a power of two, 1 to 64 */
/* Tensor locations: descriptor slot, then the byte offset in the binding as low, high words. */
#define REDUCE_SPEC_IN_LOCATION         (REDUCE_SPEC_SLICES + 1)
#define REDUCE_SPEC_OUT_LOCATION        (REDUCE_SPEC_IN_LOCATION + 3)
#define REDUCE_SPEC_TEMP_LOCATION       (REDUCE_SPEC_OUT_LOCATION + 3)  /* the partial states */
#define REDUCE_SPEC_COUNT               (REDUCE_SPEC_TEMP_LOCATION + 3)

/* Push constants after the descriptor table: 112 bytes. `dims` holds the kept sizes, input
 * strides and output strides (KEPT_COUNT each), then the reduced sizes and input strides
 * (REDUCED_COUNT each), in elements, index 0 outermost: at most 3 * 8 words (kept_count +
 * reduced_count <= 8, and kept_count <= 7 with a reduced dimension). */
#define REDUCE_PUSH_DIMS 24

#ifdef VULKAN

layout(push_constant, std430) uniform ReducePush
{
    uvec2 table;
    uint kept_elements;             /* K */
    uint reduced_elements;          /* R */
    uint parts;                     /* partial states per output (1: none) */
    uint part_size;                 /* reduced elements per part (the last may have fewer) */
    uint dims[REDUCE_PUSH_DIMS];
} push;

#else

#include <stdint.h>

struct reduce_push
{
    uint32_t kept_elements;
    uint32_t reduced_elements;
    uint32_t parts;
    uint32_t part_size;
    uint32_t dims[REDUCE_PUSH_DIMS];
};

#endif

#endif /* VKDML_REDUCE_INTERFACE_H */
