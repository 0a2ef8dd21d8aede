/*
 * Interface of kernels_glsl/elementwise.comp, shared by C (backend_vk/ops/elementwise.c) and
 * GLSL: one kernel for the element-wise family, y = activation(op(x0, x1, x2)) per element.
 *
 * Everything but the descriptor table is a specialization constant: op code, compute domain,
 * shape, per-tensor data type / descriptor slot / byte offset / strides, attributes and the
 * fused activation. Dead branches (other ops, other types, unused dimensions) disappear when the
 * pipeline is specialized. Push constants hold only the descriptor table's address.
 *
 * Variants of the one source (kernels_glsl/meson.build) differ only in the SPIR-V capabilities
 * they may use, so that a kernel never declares one the device lacks:
 *     elementwise        FLOAT32, INT32, UINT32           (no extra capability)
 *     elementwise_s16    + FLOAT16, INT16, UINT16         (EW_STORAGE_16BIT: storageBuffer16BitAccess)
 *     elementwise_s8     + INT8, UINT8                    (EW_STORAGE_8BIT: storageBuffer8BitAccess)
 *     elementwise_i64    + INT64, UINT64                  (EW_INT64: shaderInt64)
 *     elementwise_f64    + FLOAT64                        (EW_FLOAT64: shaderFloat64)
 * Arithmetic is fp32 for FLOAT16 storage (the family is bandwidth-bound; fp32 is also what
 * DirectML does without DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION), 32-bit for 8/16-bit
 * integers (results wrap when stored, as two's complement arithmetic in the narrow type would).
 *
 * Shapes: the C side drops size-1 dimensions and merges dimensions that are contiguous in every
 * tensor, then stores the remaining ones innermost first (SIZE0 is the fastest-varying).
 * Strides are in elements; 0 broadcasts. Element indices of every tensor fit in 32 bits
 * (validated); byte addresses are computed in 64 bits as uvec2, so no shaderInt64 is needed.
 *
 * Vector mode (EW_SPEC_VECTOR): an invocation handles 16 bytes of output at a time,
 * V = 16 / element size elements, with one 16-byte load per input whose innermost stride is 1
 * (inputs with innermost stride 0 load one element). 8- and 16-bit elements are unpacked from
 * 32-bit words, so narrow types also move whole 16-byte transactions. The C side enables it when
 * every tensor has the output's element size, the output's innermost stride is 1, each input's
 * is 0 or 1, and every vector starts 16-byte aligned: SIZE0 (rank > 1) and the outer strides of
 * stride-1 tensors are multiples of V, byte offsets multiples of 16 (bindings are 16-byte aligned
 * by DirectML's rule). At rank 1 the last ELEMENT_COUNT % V elements take the scalar path.
 */
#ifndef VKDML_ELEMENTWISE_INTERFACE_H
#define VKDML_ELEMENTWISE_INTERFACE_H

#include "dml_interface.h"

#define EW_MAX_RANK 8
#define EW_MAX_INPUTS 3
#define EW_TENSOR_COUNT (EW_MAX_INPUTS + 1)
#define EW_OUTPUT EW_MAX_INPUTS         /* tensor index of the output; inputs are 0 .. EW_MAX_INPUTS-1 */
#define EW_ATTRIBUTE_COUNT 8            /* 32-bit words; 64-bit attributes take two (low word first) */

/* Operations (EW_SPEC_OP). Unary ops read tensor 0, after the optional scale/bias. Issue 5 adds
 * the rest of the element-wise, activation, logical and bitwise operators as new codes. */
#define EW_OP_IDENTITY 0                /* y = x (ACTIVATION_* operators: + the activation) */
#define EW_OP_ADD 1                     /* y = a + b */
#define EW_OP_MULTIPLY 2                /* y = a * b */

/* Compute domains (EW_SPEC_DOMAIN): the type the arithmetic happens in. */
#define EW_DOMAIN_FLOAT 0               /* fp32: FLOAT32, FLOAT16 */
#define EW_DOMAIN_INT 1                 /* int32: INT32, INT16, INT8 */
#define EW_DOMAIN_UINT 2                /* uint32: UINT32, UINT16, UINT8 */
#define EW_DOMAIN_INT64 3               /* int64_t: INT64 (EW_INT64 variants) */
#define EW_DOMAIN_UINT64 4              /* uint64_t: UINT64 (EW_INT64 variants) */
#define EW_DOMAIN_DOUBLE 5              /* double: FLOAT64 (EW_FLOAT64 variants) */

/* Tensor element types (EW_SPEC_TENSOR_TYPE) are DML_TENSOR_DATA_TYPE values. */
#define EW_TYPE_FLOAT32 1
#define EW_TYPE_FLOAT16 2
#define EW_TYPE_UINT32 3
#define EW_TYPE_UINT16 4
#define EW_TYPE_UINT8 5
#define EW_TYPE_INT32 6
#define EW_TYPE_INT16 7
#define EW_TYPE_INT8 8
#define EW_TYPE_FLOAT64 9
#define EW_TYPE_UINT64 10
#define EW_TYPE_INT64 11

/* Specialization constant ids (32-bit each). */
#define EW_SPEC_LOCAL_SIZE_X 0
#define EW_SPEC_OP 1
#define EW_SPEC_DOMAIN 2
#define EW_SPEC_RANK 3                  /* 1 .. EW_MAX_RANK, after collapsing */
#define EW_SPEC_ELEMENT_COUNT 4         /* output elements, < 2^32 */
#define EW_SPEC_SCALE_BIAS 5            /* bool: apply x * scale + bias to tensor 0 (float domains) */
#define EW_SPEC_SCALE 6                 /* float bits */
#define EW_SPEC_BIAS 7                  /* float bits */
#define EW_SPEC_VECTOR 8                /* bool: 16-byte vector mode (below) */
#define EW_SPEC_ATTRIBUTES 9            /* EW_ATTRIBUTE_COUNT words, op-specific */
#define EW_SPEC_SIZES (EW_SPEC_ATTRIBUTES + EW_ATTRIBUTE_COUNT)     /* EW_MAX_RANK sizes, innermost first */
#define EW_SPEC_TENSORS (EW_SPEC_SIZES + EW_MAX_RANK)              /* EW_TENSOR_COUNT blocks: */
#define EW_SPEC_TENSOR_TYPE 0           /*   EW_TYPE_*; 0 for an absent tensor */
#define EW_SPEC_TENSOR_SLOT 1           /*   descriptor slot in the binding table */
#define EW_SPEC_TENSOR_OFFSET_LO 2      /*   byte offset from the descriptor's address */
#define EW_SPEC_TENSOR_OFFSET_HI 3
#define EW_SPEC_TENSOR_STRIDES 4        /*   EW_MAX_RANK strides in elements, innermost first */
#define EW_SPEC_TENSOR_SIZE (EW_SPEC_TENSOR_STRIDES + EW_MAX_RANK)
#define EW_SPEC_TENSOR(t, field) (EW_SPEC_TENSORS + (t) * EW_SPEC_TENSOR_SIZE + (field))
#define EW_SPEC_ACTIVATION (EW_SPEC_TENSORS + EW_TENSOR_COUNT * EW_SPEC_TENSOR_SIZE)  /* VKDML_ACTIVATION_SPEC_COUNT */
#define EW_SPEC_COUNT (EW_SPEC_ACTIVATION + VKDML_ACTIVATION_SPEC_COUNT)

#define EW_DEFAULT_LOCAL_SIZE 128

#ifdef VULKAN

layout(push_constant, std430) uniform ElementwisePush
{
    VkdmlDescriptorTable table;
} push;

#endif

#endif /* VKDML_ELEMENTWISE_INTERFACE_H */
