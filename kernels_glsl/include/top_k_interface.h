/*
 * Interface of kernels_glsl/top_k.comp (DML_OPERATOR_TOP_K and DML_OPERATOR_TOP_K1), shared by C
 * (backend_vk/ops/topk.c) and GLSL.
 *
 * One workgroup per row: a row is one position of the kept (non-axis) dimensions, the input's
 * `LENGTH` elements along the axis, the outputs' K. Rows are numbered row-major over the kept
 * dimensions (merged where strides allow: vkdml_axes_layout_init), TOPK_MAX_KEPT of them at most;
 * element (row, j) of tensor t is at sum kept_strides[t][i] * coordinate_i + j * axis_stride[t].
 * Tensors: 0 the input, 1 the values, 2 the indices.
 */
#ifndef VKDML_TOP_K_INTERFACE_H
#define VKDML_TOP_K_INTERFACE_H

#define TOPK_MAX_KEPT 7
#define TOPK_TENSORS 3
/* Threads per workgroup: a power of two in [TOPK_MIN_THREADS, TOPK_MAX_THREADS]; each keeps up
 * to TOPK_MAX_CACHE of its row's keys in registers, the rest are read again on every pass. */
#define TOPK_MIN_THREADS 64
#define TOPK_MAX_THREADS 512
#define TOPK_MAX_CACHE 16
/* 8-bit digits: histograms of 256 bins; a subgroup adds its most common bins with one atomic
 * each, up to TOPK_AGGREGATE of them per element it holds (top_k.comp, count_digit). */
#define TOPK_RADIX 256
#define TOPK_AGGREGATE 4
/* Shared bytes per sort slot (key high and low words, reversed index) and besides the slots. */
#define TOPK_SORT_SLOT_BYTES 12
#define TOPK_SHARED_BYTES (2 * TOPK_RADIX * 4 + 64)
/* Up to this K the selected elements find their places by counting (K x K comparisons spread over
 * the workgroup, no barrier); more are sorted (a bitonic sort: a barrier per step). */
#define TOPK_SMALL_K 128
/* The threshold filter's candidates in shared memory (key and index, 8 bytes each): more and the
 * row goes to the radix select over all its elements. */
#define TOPK_FILTER_CAPACITY 2048

/* Specialization constant ids, each derived from the one before. */
#define TOPK_SPEC_THREADS 0                 /* local_size_x */
#define TOPK_SPEC_CACHE             (TOPK_SPEC_THREADS + 1)         /* register keys per thread, >= 1 */
#define TOPK_SPEC_SORT              (TOPK_SPEC_CACHE + 1)           /* sort slots: a power of two >= K */
#define TOPK_SPEC_GLOBAL_SORT       (TOPK_SPEC_SORT + 1)            /* the slots in the temporary resource */
#define TOPK_SPEC_TYPE              (TOPK_SPEC_GLOBAL_SORT + 1)     /* DML_TENSOR_DATA_TYPE of input and values */
#define TOPK_SPEC_KEY_BITS          (TOPK_SPEC_TYPE + 1)            /* the type's bits: 8, 16, 32 or 64 */
#define TOPK_SPEC_INDEX_64          (TOPK_SPEC_KEY_BITS + 1)        /* UINT64 indices (else UINT32) */
#define TOPK_SPEC_LARGEST           (TOPK_SPEC_INDEX_64 + 1)        /* largest first (else smallest) */
#define TOPK_SPEC_LENGTH            (TOPK_SPEC_LARGEST + 1)         /* the axis length */
#define TOPK_SPEC_K                 (TOPK_SPEC_LENGTH + 1)
#define TOPK_SPEC_INDEX_BITS        (TOPK_SPEC_K + 1)               /* bits of LENGTH - 1 */
#define TOPK_SPEC_ROWS              (TOPK_SPEC_INDEX_BITS + 1)
#define TOPK_SPEC_AXIS_STRIDES      (TOPK_SPEC_ROWS + 1)            /* TOPK_TENSORS */
#define TOPK_SPEC_KEPT_COUNT        (TOPK_SPEC_AXIS_STRIDES + TOPK_TENSORS)
#define TOPK_SPEC_KEPT_SIZES        (TOPK_SPEC_KEPT_COUNT + 1)      /* TOPK_MAX_KEPT, outermost first */
#define TOPK_SPEC_KEPT_STRIDES      (TOPK_SPEC_KEPT_SIZES + TOPK_MAX_KEPT)  /* [tensor][dimension] */
/* Tensor locations: descriptor slot, then the byte offset in the binding as low, high words. */
#define TOPK_SPEC_IN_LOCATION       (TOPK_SPEC_KEPT_STRIDES + TOPK_TENSORS * TOPK_MAX_KEPT)
#define TOPK_SPEC_VALUE_LOCATION    (TOPK_SPEC_IN_LOCATION + 3)
#define TOPK_SPEC_INDEX_LOCATION    (TOPK_SPEC_VALUE_LOCATION + 3)
/* The temporary resource: the candidates of split rows, or the sort slots that do not fit in
 * shared memory (SORT x TOPK_CANDIDATE_WORDS words a row: key high, key low, reversed index). */
#define TOPK_SPEC_TEMP_LOCATION     (TOPK_SPEC_INDEX_LOCATION + 3)
/* Long rows split over workgroups: TOPK_STAGE_PARTS writes each part's K best as candidates
 * (key high, key low, index: 3 words; parts shorter than K fill up with (0, 0, LENGTH), which
 * is below every element), TOPK_STAGE_CANDIDATES selects a row's K among its PARTS x K. */
#define TOPK_SPEC_STAGE             (TOPK_SPEC_TEMP_LOCATION + 3)
#define TOPK_SPEC_PARTS             (TOPK_SPEC_STAGE + 1)
/* The threshold filter (top_k.comp, filter_select): 0 (off), or its groups: a power of two >= K
 * that divides THREADS. */
#define TOPK_SPEC_FILTER_GROUPS     (TOPK_SPEC_PARTS + 1)
#define TOPK_SPEC_COUNT             (TOPK_SPEC_FILTER_GROUPS + 1)

#define TOPK_STAGE_ROWS 0                   /* a workgroup per row */
#define TOPK_STAGE_PARTS 1
#define TOPK_STAGE_CANDIDATES 2
/* A part: what one workgroup holds in registers. */
#define TOPK_SEGMENT (TOPK_MAX_THREADS * TOPK_MAX_CACHE)
#define TOPK_CANDIDATE_WORDS 3

#ifdef VULKAN

/* Bytes [0, 8): the descriptor table's device address (ops_private.h); nothing else. */
layout(push_constant, std430) uniform TopKPush
{
    uvec2 table;
} push;

#endif

#endif /* VKDML_TOP_K_INTERFACE_H */
