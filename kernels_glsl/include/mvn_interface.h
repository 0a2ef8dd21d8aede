/*
 * Interface of kernels_glsl/mvn.comp (MEAN_VARIANCE_NORMALIZATION, MVN1, MVN2, LP_NORMALIZATION),
 * shared by C (backend_vk/ops/mvn.c) and GLSL.
 *
 * The tensors (input, output, scale, bias) are seen through struct vkdml_axes_layout
 * (ops_private.h): a "row" is one kept element, the reduced elements are its entries; scale and
 * bias broadcast with 0-strides. Both sides have MVN_MAX_DIMS dimensions, the layout's filling the
 * last slots (index 0 outermost), the leading ones of size 1.
 *
 * The variance is the mean of the squared deviations from the mean (population variance),
 * computed without the cancellation of E[x^2] - E[x]^2; fp32 sums. Paths (MVN_SPEC_PATH):
 *   MVN_PATH_ROWS       a workgroup per row, the row held in registers (PER_THREAD loads of
 *                       VECTOR entries per invocation): one read, one write. Two exact passes over
 *                       the registers, each a workgroup sum: the mean, then the squared deviations.
 *   MVN_PATH_SPLIT_*    rows too long for registers, or too few to fill the GPU: CHUNKS workgroups
 *                       per row, each over CHUNK_LENGTH entries. SPLIT_STATS writes each chunk's
 *                       (count, mean, M2) triple (M2: the sum of squared deviations from the mean,
 *                       exact per load, merged by Chan et al.'s pairwise formula; LP: (count, sum
 *                       of |x| or x^2)) into the temporary resource, four words each;
 *                       SPLIT_NORMALIZE, after a barrier, merges the row's triples in chunk order
 *                       (the same in every workgroup), then reads its chunk again and writes it.
 * VECTOR > 1 (16-byte loads and stores) where the reduced entries are packed in both the input
 * and the output and every row starts 16-byte aligned; PARAMETER_VECTORS where the scale and bias
 * are too (layer normalization's weights).
 */
#ifndef VKDML_MVN_INTERFACE_H
#define VKDML_MVN_INTERFACE_H

#define MVN_MAX_DIMS 8

#define MVN_FUNCTION_MVN 0
#define MVN_FUNCTION_LP1 1
#define MVN_FUNCTION_LP2 2

#define MVN_PATH_ROWS 0
#define MVN_PATH_SPLIT_STATS 1
#define MVN_PATH_SPLIT_NORMALIZE 2

/* Rows path: entries an invocation holds at most (PER_THREAD, VECTOR 1), 16-byte loads it holds at
 * most (PER_THREAD, VECTOR > 1); invocations per workgroup at most. */
#define MVN_MAX_VALUES 32
#define MVN_MAX_LOADS 16
#define MVN_MAX_THREADS 1024
/* Words per chunk triple in the temporary resource (count, mean, M2, unused). */
#define MVN_CHUNK_WORDS 4

/* Specialization constant ids, each derived from the one before. */
#define MVN_SPEC_FUNCTION           0                               /* MVN_FUNCTION_* */
#define MVN_SPEC_TYPE               (MVN_SPEC_FUNCTION + 1)         /* DML_TENSOR_DATA_TYPE of every tensor */
#define MVN_SPEC_PATH               (MVN_SPEC_TYPE + 1)             /* MVN_PATH_* */
#define MVN_SPEC_THREADS            (MVN_SPEC_PATH + 1)             /* local_size_x */
#define MVN_SPEC_PER_THREAD         (MVN_SPEC_THREADS + 1)          /* rows path: loads per invocation */
#define MVN_SPEC_VECTOR             (MVN_SPEC_PER_THREAD + 1)       /* entries per load */
#define MVN_SPEC_CHUNKS             (MVN_SPEC_VECTOR + 1)           /* split paths: workgroups per row */
#define MVN_SPEC_CHUNK_LENGTH       (MVN_SPEC_CHUNKS + 1)           /* split paths: entries per chunk */
#define MVN_SPEC_ROWS               (MVN_SPEC_CHUNK_LENGTH + 1)     /* kept elements */
#define MVN_SPEC_LENGTH             (MVN_SPEC_ROWS + 1)             /* reduced elements per row */
#define MVN_SPEC_USE_MEAN           (MVN_SPEC_LENGTH + 1)           /* MVN: subtract the mean */
#define MVN_SPEC_USE_VARIANCE       (MVN_SPEC_USE_MEAN + 1)         /* MVN: divide by sqrt(variance + epsilon) */
#define MVN_SPEC_EPSILON            (MVN_SPEC_USE_VARIANCE + 1)     /* float bits */
#define MVN_SPEC_HAS_SCALE          (MVN_SPEC_EPSILON + 1)
#define MVN_SPEC_HAS_BIAS           (MVN_SPEC_HAS_SCALE + 1)
#define MVN_SPEC_PARAMETER_VECTORS  (MVN_SPEC_HAS_BIAS + 1)         /* scale and bias read in VECTORs too */
/* Sizes, then element strides of the input, output, scale and bias, of the kept and the reduced
 * dimensions. */
#define MVN_SPEC_KEPT_SIZES         (MVN_SPEC_PARAMETER_VECTORS + 1)
#define MVN_SPEC_KEPT_STRIDES       (MVN_SPEC_KEPT_SIZES + MVN_MAX_DIMS)
#define MVN_SPEC_REDUCED_SIZES      (MVN_SPEC_KEPT_STRIDES + 4 * MVN_MAX_DIMS)
#define MVN_SPEC_REDUCED_STRIDES    (MVN_SPEC_REDUCED_SIZES + MVN_MAX_DIMS)
/* Tensor locations: descriptor slot, then the byte offset in the binding as low, high words. */
#define MVN_SPEC_IN_LOCATION        (MVN_SPEC_REDUCED_STRIDES + 4 * MVN_MAX_DIMS)
#define MVN_SPEC_OUT_LOCATION       (MVN_SPEC_IN_LOCATION + 3)
#define MVN_SPEC_SCALE_LOCATION     (MVN_SPEC_OUT_LOCATION + 3)
#define MVN_SPEC_BIAS_LOCATION      (MVN_SPEC_SCALE_LOCATION + 3)
#define MVN_SPEC_TEMP_LOCATION      (MVN_SPEC_BIAS_LOCATION + 3)    /* split paths: the chunks' triples */
#define MVN_SPEC_ACTIVATION         (MVN_SPEC_TEMP_LOCATION + 3)    /* VKDML_ACTIVATION_SPEC_COUNT constants */
#define MVN_SPEC_COUNT              (MVN_SPEC_ACTIVATION + VKDML_ACTIVATION_SPEC_COUNT)

#ifdef VULKAN

/* Bytes [0, 8): the descriptor table's device address (ops_private.h); nothing else. */
layout(push_constant, std430) uniform MvnPush
{
    uvec2 table;
} push;

#endif

#endif /* VKDML_MVN_INTERFACE_H */
