/*
 * Interface of kernels_glsl/resample.comp (DML_OPERATOR_UPSAMPLE_2D, RESAMPLE, RESAMPLE1,
 * RESAMPLE2 and RESAMPLE3), shared by C (backend_vk/ops/resample.c) and GLSL.
 *
 * Every operator is reduced to one rule per dimension d (rank 1 to RESAMPLE_MAX_RANK, leading
 * dimensions of size 1 added): output coordinate x reads the input around the fp32 coordinate
 * c = x * INV_SCALE_d + BIAS_d (both rounded from double on the host: README "Resampling").
 *   RESAMPLE_KIND_COPY     input index x (same size, the identity map)
 *   RESAMPLE_KIND_NEAREST  input index floor(c) (ROUND_UP: ceil(c)), clamped to [0, size)
 *   RESAMPLE_KIND_LINEAR   the two inputs floor(c) and floor(c) + 1, weights 1 - f and f
 *                          (f = c - floor(c)), indices clamped to [0, size)
 *   RESAMPLE_KIND_FILTER   antialiased linear: taps floor(c) + j for j in [AA_START_d,
 *                          AA_START_d + AA_TAPS_d), weights max(0, 1 - |j - f| * AA_SCALE_d)
 *                          normalized by their sum, indices clamped
 * An output element is the sum over the taps of every dimension of the product of their weights
 * times the input element (fp32); nearest and copy dimensions have one tap of weight 1, and an
 * operator with no linear dimension moves bits. Each invocation writes VECTOR consecutive
 * elements of ROWS consecutive output rows (the last dimension; rows along dimension 3).
 */
#ifndef VKDML_RESAMPLE_INTERFACE_H
#define VKDML_RESAMPLE_INTERFACE_H

#define RESAMPLE_MAX_RANK 5
#define RESAMPLE_THREADS 128

#define RESAMPLE_KIND_COPY 0
#define RESAMPLE_KIND_NEAREST 1
#define RESAMPLE_KIND_LINEAR 2
#define RESAMPLE_KIND_FILTER 3

#define RESAMPLE_SPEC_TYPE 0            /* TIO_TYPE_* (tensor_io.glsl) */
#define RESAMPLE_SPEC_ROUND_UP          (RESAMPLE_SPEC_TYPE + 1)        /* nearest: ceil instead of floor */
#define RESAMPLE_SPEC_VECTOR            (RESAMPLE_SPEC_ROUND_UP + 1)    /* outputs per invocation */
#define RESAMPLE_SPEC_OUT_PACKED        (RESAMPLE_SPEC_VECTOR + 1)      /* output element i at offset i */
#define RESAMPLE_SPEC_ROWS              (RESAMPLE_SPEC_OUT_PACKED + 1)  /* rows (kernel dimension 3) per invocation */
/* The last dimension's taps repeat every VECTOR outputs, PERIOD inputs further (README "Resampling"):
 * an invocation reads the WINDOW inputs from REL_MIN on (clamped to the input) once per outer tap. */
#define RESAMPLE_SPEC_PERIODIC          (RESAMPLE_SPEC_ROWS + 1)
#define RESAMPLE_SPEC_WINDOW            (RESAMPLE_SPEC_PERIODIC + 1)
#define RESAMPLE_SPEC_PERIOD            (RESAMPLE_SPEC_WINDOW + 1)
#define RESAMPLE_SPEC_REL_MIN           (RESAMPLE_SPEC_PERIOD + 1)      /* int */
/* Output k's first tap in the window: 4 bits each, k < 8 in PLACES_LO, the others in PLACES_HI. */
#define RESAMPLE_SPEC_PLACES_LO         (RESAMPLE_SPEC_REL_MIN + 1)
#define RESAMPLE_SPEC_PLACES_HI         (RESAMPLE_SPEC_PLACES_LO + 1)
#define RESAMPLE_SPEC_INVOCATIONS       (RESAMPLE_SPEC_PLACES_HI + 1)
#define RESAMPLE_SPEC_IN_SIZES          (RESAMPLE_SPEC_INVOCATIONS + 1) /* RESAMPLE_MAX_RANK each */
#define RESAMPLE_SPEC_OUT_SIZES         (RESAMPLE_SPEC_IN_SIZES + RESAMPLE_MAX_RANK)
#define RESAMPLE_SPEC_IN_STRIDES        (RESAMPLE_SPEC_OUT_SIZES + RESAMPLE_MAX_RANK)
#define RESAMPLE_SPEC_OUT_STRIDES       (RESAMPLE_SPEC_IN_STRIDES + RESAMPLE_MAX_RANK)
#define RESAMPLE_SPEC_KINDS             (RESAMPLE_SPEC_OUT_STRIDES + RESAMPLE_MAX_RANK)
#define RESAMPLE_SPEC_INV_SCALES        (RESAMPLE_SPEC_KINDS + RESAMPLE_MAX_RANK)      /* float bits */
#define RESAMPLE_SPEC_BIASES            (RESAMPLE_SPEC_INV_SCALES + RESAMPLE_MAX_RANK) /* float bits */
#define RESAMPLE_SPEC_AA_SCALES         (RESAMPLE_SPEC_BIASES + RESAMPLE_MAX_RANK)     /* float bits */
#define RESAMPLE_SPEC_AA_STARTS         (RESAMPLE_SPEC_AA_SCALES + RESAMPLE_MAX_RANK)  /* int */
#define RESAMPLE_SPEC_AA_TAPS           (RESAMPLE_SPEC_AA_STARTS + RESAMPLE_MAX_RANK)
/* The tensors' locations: descriptor slot, then the byte offset in the binding as low, high words. */
#define RESAMPLE_SPEC_IN_LOCATION       (RESAMPLE_SPEC_AA_TAPS + RESAMPLE_MAX_RANK)
#define RESAMPLE_SPEC_OUT_LOCATION      (RESAMPLE_SPEC_IN_LOCATION + 3)
#define RESAMPLE_SPEC_COUNT             (RESAMPLE_SPEC_OUT_LOCATION + 3)

#ifdef VULKAN

/* Bytes [0, 8): the descriptor table's device address (ops_private.h); nothing else. */
layout(push_constant, std430) uniform ResamplePush
{
    uvec2 table;
} push;

#endif

#endif /* VKDML_RESAMPLE_INTERFACE_H */
