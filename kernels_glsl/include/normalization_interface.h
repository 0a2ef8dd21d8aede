/*
 * Interface of kernels_glsl/batch_norm.comp (DML_OPERATOR_BATCH_NORMALIZATION) and
 * kernels_glsl/lrn.comp (DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION), shared by C
 * (backend_vk/ops/normalization.c) and GLSL.
 *
 * BATCH_NORMALIZATION: the input's dimensions, merged where every tensor allows and placed last
 * of NORM_MAX_RANK (leading sizes 1); each tensor has its element strides over them (0 where a
 * parameter broadcasts). An invocation computes NORM_VECTOR elements of the last dimension: one
 * 16-byte load and store where the input and output are contiguous there, else one by one.
 *
 * LRN: an NCHW input and output with their strides; each invocation one output element, across
 * channels in tiles of LRN_TILE_CHANNELS x LRN_TILE_SPATIAL elements a workgroup.
 */
#ifndef VKDML_NORMALIZATION_INTERFACE_H
#define VKDML_NORMALIZATION_INTERFACE_H

#define NORM_MAX_RANK 8
#define NORM_THREADS 256
/* BATCH_NORMALIZATION's tensors: the input, Mean, Variance, Scale, Bias, the output. */
#define NORM_TENSORS 6
#define NORM_PARAMS 4
/* LRN across channels: a workgroup's tile of channels x consecutive positions (NORM_THREADS). */
#define LRN_TILE_SPATIAL 32
#define LRN_TILE_CHANNELS (NORM_THREADS / LRN_TILE_SPATIAL)

#define BN_SPEC_TYPE 0                  /* TIO_TYPE_FLOAT32 or TIO_TYPE_FLOAT16 */
#define BN_SPEC_VECTOR          (BN_SPEC_TYPE + 1)      /* elements per invocation: 1, 4 (fp32), 8 (fp16) */
#define BN_SPEC_COUNT_ELEMENTS  (BN_SPEC_VECTOR + 1)
#define BN_SPEC_EPSILON         (BN_SPEC_COUNT_ELEMENTS + 1)    /* float bits */
#define BN_SPEC_SIZES           (BN_SPEC_EPSILON + 1)           /* NORM_MAX_RANK */
/* NORM_TENSORS x NORM_MAX_RANK element strides, tensor by tensor in the order above. */
#define BN_SPEC_STRIDES         (BN_SPEC_SIZES + NORM_MAX_RANK)
/* NORM_TENSORS locations: descriptor slot, byte offset low, high. */
#define BN_SPEC_LOCATIONS       (BN_SPEC_STRIDES + NORM_TENSORS * NORM_MAX_RANK)
#define BN_SPEC_ACTIVATION      (BN_SPEC_LOCATIONS + 3 * NORM_TENSORS)   /* VKDML_ACTIVATION_SPEC_COUNT */
#define BN_SPEC_COUNT           (BN_SPEC_ACTIVATION + 4)

#define LRN_SPEC_TYPE 0
#define LRN_SPEC_CROSS_CHANNEL  (LRN_SPEC_TYPE + 1)
#define LRN_SPEC_LOCAL_SIZE     (LRN_SPEC_CROSS_CHANNEL + 1)
#define LRN_SPEC_SIZES          (LRN_SPEC_LOCAL_SIZE + 1)       /* N, C, H, W */
#define LRN_SPEC_IN_STRIDES     (LRN_SPEC_SIZES + 4)
#define LRN_SPEC_OUT_STRIDES    (LRN_SPEC_IN_STRIDES + 4)
#define LRN_SPEC_IN_LOCATION    (LRN_SPEC_OUT_STRIDES + 4)
#define LRN_SPEC_OUT_LOCATION   (LRN_SPEC_IN_LOCATION + 3)
#define LRN_SPEC_COUNT          (LRN_SPEC_OUT_LOCATION + 3)

#ifdef VULKAN

/* Bytes [0, 8): the descriptor table's device address (ops_private.h); then struct lrn_push
 * (LRN; BATCH_NORMALIZATION pushes nothing else). */
layout(push_constant, std430) uniform NormalizationPush
{
    uvec2 table;
    float alpha_over_size;          /* LRN: Alpha / LocalSize */
    float beta;
    float bias;
} push;

#else

struct lrn_push
{
    float alpha_over_size;
    float beta;
    float bias;
};

#endif

#endif /* VKDML_NORMALIZATION_INTERFACE_H */
