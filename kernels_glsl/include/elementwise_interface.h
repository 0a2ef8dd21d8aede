/*
 * Interface of the element-wise kernels, shared by C (backend_vk/ops/elementwise.c) and GLSL:
 * y = activation(op(x0, x1, x2)) per element. Two sources share include/elementwise_core.glsl
 * (addressing, loads and stores, the element and vector loops) and differ in the operations
 * they define: elementwise_unary.comp (one input: math functions, CLIP, ROUND, IS_NAN, BIT_NOT,
 * the ACTIVATION_* operators...) and elementwise_binary.comp (two or three inputs: arithmetic,
 * comparisons, logical and bitwise operators, POW, ATAN_YX, PARAMETERIZED_RELU, IF).
 *
 * What changes the code is a specialization constant: op code, compute domain, rank, vector
 * width, per-tensor data type and innermost-stride kind, attributes and the fused activation; dead
 * branches (other ops, other types, unused dimensions) disappear when the pipeline is specialized.
 * The shape is not: element count, sizes, strides, byte offsets and descriptor slots are the
 * dispatch's record (below), in push constants, so that one pipeline serves every shape of a
 * rank (docs/kernels.md, "Specialization vs push constants", has the measurements).
 *
 * Variants of each source (kernels_glsl/meson.build) differ only in the SPIR-V capabilities they
 * may use, so that a kernel never declares one the device lacks; the C side picks the smallest
 * variant that holds every tensor type of the dispatch and its compute domain:
 *     (none)        FLOAT32, INT32, UINT32
 *     _s16          + FLOAT16, INT16, UINT16          (VKDML_STORAGE_16BIT: storageBuffer16BitAccess)
 *     _s8           + INT8, UINT8                     (VKDML_STORAGE_8BIT: storageBuffer8BitAccess)
 *     _s16_s8       both (FLOAT16 compared into UINT8, POW of FLOAT16 by INT8...)
 *     _i64, _i64_s8 INT64, UINT64, FLOAT64 as bits    (VKDML_INT64: shaderInt64; INT64/UINT64 domains only)
 *     _f64, _f64_s8 FLOAT64 arithmetic                (VKDML_FLOAT64: shaderFloat64; DOUBLE domain only)
 * and by operator group (EW_GROUP_*): the basic operators are in every variant; the trigonometric
 * ones (EW_GROUP_TRIG), the exponential and logarithmic ones (EW_GROUP_EXP), POW and CONSTANT_POW
 * (EW_GROUP_POW) and the float activations (EW_GROUP_ACTIVATION: ACTIVATION_* on floats, ADD1
 * with a FusedActivation) only in their group's variants, because a driver inlines every
 * function of a module before the specialization constants prune it: lavapipe takes five times
 * longer to create a pipeline of a kernel holding them all.
 *
 * Compute domains (EW_SPEC_DOMAIN): the type the arithmetic happens in, chosen from the operand
 * tensors (input 0; A of IF). FLOAT16 is computed in fp32 (the family is bandwidth-bound; that is
 * also what DirectML does without DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION); 8- and
 * 16-bit integers in 32 bits, results wrapping when stored as two's complement arithmetic in the
 * narrow type would. Bitwise operators work on the encoding (float tensors as bits of their
 * width), and pure data moves (IDENTITY without ScaleBias, ACTIVATION_IDENTITY, IF) of FLOAT16 and
 * FLOAT32 also run in the bits domain, so that they copy every bit (NaN payloads, denormals).
 * A tensor of another type than the domain's is converted on load: by value (POW's exponent,
 * IF's condition), or as bits in bitwise and move operators.
 *
 * Predicate operators (EW_SPEC_PREDICATE: comparisons, IS_NAN, IS_INFINITY, BIT_COUNT) compute a
 * uint from operands of the domain and store it into a UINT8 or UINT32 output.
 *
 * Shapes: the C side drops size-1 dimensions and merges dimensions that are contiguous in every
 * tensor, then stores the remaining ones innermost first (size 0 is the fastest-varying).
 * Strides are in elements; 0 broadcasts. Element indices of every tensor fit in 32 bits
 * (validated); byte addresses are computed in 64 bits as uvec2, so no shaderInt64 is needed.
 *
 * The record (EW_REC_*): 32-bit words for the N tensors present (inputs 0 .. N-2, then the
 * output as tensor N-1) at rank R: the element count, the descriptor slots (a byte each), the
 * byte offsets, for every dimension but the outermost its size (dimension 0: in vector items)
 * with its division multiplier (exact 32-bit division by multiply and shift, so that a size
 * costs no integer division), and the strides. It is pushed after the descriptor table's
 * address when it fits EW_PUSH_WORDS words: up to rank 6 with one input, 4 with two, 3 with
 * three. A larger one (rare after collapsing) is specialized instead (EW_SPEC_SHAPE: the same
 * values as specialization constants), so those shapes keep pipelines of their own.
 *
 * Vector mode (EW_SPEC_VECTOR = V > 1): an invocation handles V consecutive output elements,
 * V = 16 / (largest element size among the tensors), with one load of V elements (a 4-, 8- or
 * 16-byte chunk) per input whose innermost stride is 1 (inputs with innermost stride 0 load one
 * element). 8- and 16-bit elements are unpacked from 32-bit words, so narrow types also move
 * whole transactions. The C side enables it when every chunk is at least 4 bytes, the output's
 * innermost stride is 1, each input's is 0 or 1, and every chunk starts aligned to its size:
 * size 0 (rank > 1) and the outer strides of stride-1 tensors are multiples of V, byte offsets
 * multiples of the chunk size (bindings are 16-byte aligned by DirectML's rule). At rank 1 the
 * last item may hold fewer than V elements: it goes element by element.
 */
#ifndef VKDML_ELEMENTWISE_INTERFACE_H
#define VKDML_ELEMENTWISE_INTERFACE_H

#include "dml_interface.h"

#define EW_MAX_RANK 8
#define EW_MAX_INPUTS 3
#define EW_TENSOR_COUNT (EW_MAX_INPUTS + 1)
#define EW_OUTPUT EW_MAX_INPUTS         /* tensor index of the output; inputs are 0 .. EW_MAX_INPUTS-1 */
#define EW_ATTRIBUTE_COUNT 8            /* 32-bit words; 64-bit attributes take two (low word first) */

/* ---- Operations (EW_SPEC_OP) ---- */

/* elementwise_unary.comp: y = f(x), x = input 0 after the optional ScaleBias (float domains). */
#define EW_OP_IDENTITY 0                /* y = x (ACTIVATION_* operators: + the activation) */
#define EW_OP_ABS 1
#define EW_OP_ACOS 2
#define EW_OP_ACOSH 3
#define EW_OP_ASIN 4
#define EW_OP_ASINH 5
#define EW_OP_ATAN 6
#define EW_OP_ATANH 7
#define EW_OP_CEIL 8
#define EW_OP_CLIP 9                    /* max(MIN, min(x, MAX)): CLIP, CLIP1, THRESHOLD (attributes below) */
#define EW_OP_COS 10
#define EW_OP_COSH 11
#define EW_OP_ERF 12
#define EW_OP_EXP 13
#define EW_OP_FLOOR 14
#define EW_OP_LOG 15
#define EW_OP_NEGATE 16
#define EW_OP_RECIP 17
#define EW_OP_ROUND 18                  /* attribute 0: DML_ROUNDING_MODE */
#define EW_OP_SIGN 19
#define EW_OP_SIN 20
#define EW_OP_SINH 21
#define EW_OP_SQRT 22
#define EW_OP_TAN 23
#define EW_OP_TANH 24
#define EW_OP_CONSTANT_POW 25           /* attribute 0: the exponent, float bits */
#define EW_OP_LOGICAL_NOT 26
#define EW_OP_BIT_NOT 27
#define EW_OP_IS_NAN 28                 /* predicate */
#define EW_OP_IS_INFINITY 29            /* predicate; attribute 0: DML_IS_INFINITY_MODE */
#define EW_OP_BIT_COUNT 30              /* predicate: the number of bits set */
#define EW_OP_CAST 31                   /* elementwise_cast.comp: input type -> output type (EW_GROUP_CAST) */

/* elementwise_binary.comp: y = f(a, b) (IF: f(condition, a, b)). */
#define EW_OP_ADD 64
#define EW_OP_SUBTRACT 65
#define EW_OP_MULTIPLY 66
#define EW_OP_DIVIDE 67
#define EW_OP_MAX 68
#define EW_OP_MIN 69
#define EW_OP_MEAN 70
#define EW_OP_POW 71                    /* b may have another type than a (converted by value) */
#define EW_OP_ATAN_YX 72                /* atan2(a, b) */
#define EW_OP_DIFFERENCE_SQUARE 73
#define EW_OP_MODULUS_TRUNCATE 74
#define EW_OP_MODULUS_FLOOR 75
#define EW_OP_LOGICAL_AND 76
#define EW_OP_LOGICAL_OR 77
#define EW_OP_LOGICAL_XOR 78
#define EW_OP_BIT_AND 79
#define EW_OP_BIT_OR 80
#define EW_OP_BIT_XOR 81
#define EW_OP_BIT_SHIFT_LEFT 82
#define EW_OP_BIT_SHIFT_RIGHT 83
#define EW_OP_PRELU 84                  /* a < 0 ? a * b : a (ACTIVATION_PARAMETERIZED_RELU) */
#define EW_OP_IF 85                     /* condition != 0 ? a : b */
#define EW_OP_EQUALS 86                 /* predicates */
#define EW_OP_GREATER_THAN 87
#define EW_OP_LESS_THAN 88
#define EW_OP_GREATER_THAN_OR_EQUAL 89
#define EW_OP_LESS_THAN_OR_EQUAL 90

/* ---- Attributes (EW_SPEC_ATTRIBUTES + i) ---- */

/* CLIP: words 0-1 the lower bound, 2-3 the upper bound, in the domain's type (float bits in word 0
 * and 2 for the float domain; 32-bit integers in word 0 and 2; 64-bit integers low word first). */
#define EW_ATTR_CLIP_MIN 0
#define EW_ATTR_CLIP_MAX 2
/* Integer ACTIVATION_SHRINK (the float one is an activation): x <= LOW gives x + BIAS, else
 * x >= HIGH gives x - BIAS, else 0; FLAGS says which comparison can never hold. */
#define EW_ATTR_SHRINK_LOW 0
#define EW_ATTR_SHRINK_HIGH 1
#define EW_ATTR_SHRINK_BIAS 2
#define EW_ATTR_SHRINK_FLAGS 3
#define EW_SHRINK_NO_LOW 0x1u
#define EW_SHRINK_NO_HIGH 0x2u

/* ---- Compute domains (EW_SPEC_DOMAIN) ---- */

#define EW_DOMAIN_FLOAT 0               /* fp32: FLOAT32, FLOAT16 */
#define EW_DOMAIN_INT 1                 /* int32: INT32, INT16, INT8 */
#define EW_DOMAIN_UINT 2                /* uint32: UINT32, UINT16, UINT8; bits of FLOAT32, FLOAT16 */
#define EW_DOMAIN_INT64 3               /* int64_t: INT64 (VKDML_INT64 variants) */
#define EW_DOMAIN_UINT64 4              /* uint64_t: UINT64; bits of FLOAT64, INT64 (VKDML_INT64 variants) */
#define EW_DOMAIN_DOUBLE 5              /* double: FLOAT64 (VKDML_FLOAT64 variants) */


/* ---- Specialization constant ids (32-bit each) ---- */

#define EW_SPEC_LOCAL_SIZE_X 0
#define EW_SPEC_OP 1
#define EW_SPEC_DOMAIN 2
#define EW_SPEC_RANK 3                  /* 1 .. EW_MAX_RANK, after collapsing */
#define EW_SPEC_SCALE_BIAS 4            /* bool: apply x * scale + bias to tensor 0 (float domains) */
#define EW_SPEC_SCALE 5                 /* float bits */
#define EW_SPEC_BIAS 6                  /* float bits */
#define EW_SPEC_VECTOR 7                /* elements per vector item (vector mode above); 0 or 1: off */
#define EW_SPEC_PREDICATE 8             /* bool: a predicate operator (UINT8/UINT32 output) */
#define EW_SPEC_ATTRIBUTES 9            /* EW_ATTRIBUTE_COUNT words, op-specific */
#define EW_SPEC_SHAPE (EW_SPEC_ATTRIBUTES + EW_ATTRIBUTE_COUNT)   /* bool: the record is specialized: */
#define EW_SPEC_ELEMENT_COUNT (EW_SPEC_SHAPE + 1)                   /*   EW_REC_COUNT */
#define EW_SPEC_SIZES (EW_SPEC_ELEMENT_COUNT + 1)       /*   EW_MAX_RANK - 1 sizes of EW_REC_DIVISOR */
#define EW_SPEC_TENSORS (EW_SPEC_SIZES + EW_MAX_RANK - 1)          /* EW_TENSOR_COUNT blocks: */
#define EW_SPEC_TENSOR_TYPE 0           /*   DML_TENSOR_DATA_TYPE; 0 for an absent tensor */
#define EW_SPEC_TENSOR_INNER 1          /*   EW_INNER_*: its innermost stride */
#define EW_SPEC_TENSOR_SLOT 2           /*   EW_SPEC_SHAPE only: descriptor slot, */
#define EW_SPEC_TENSOR_OFFSET_LO 3      /*   byte offset from the descriptor's address, */
#define EW_SPEC_TENSOR_OFFSET_HI 4
#define EW_SPEC_TENSOR_STRIDES 5        /*   EW_MAX_RANK strides */
#define EW_SPEC_TENSOR_SIZE (EW_SPEC_TENSOR_STRIDES + EW_MAX_RANK)
#define EW_SPEC_TENSOR(t, field) (EW_SPEC_TENSORS + (t) * EW_SPEC_TENSOR_SIZE + (field))
#define EW_SPEC_ACTIVATION (EW_SPEC_TENSORS + EW_TENSOR_COUNT * EW_SPEC_TENSOR_SIZE)  /* VKDML_ACTIVATION_SPEC_COUNT */
#define EW_SPEC_COUNT (EW_SPEC_ACTIVATION + VKDML_ACTIVATION_SPEC_COUNT)

/* ---- The chain kernel (elementwise_chain.comp): the graph compiler's element-wise chains
 * (docs/graph.md, "elementwise"). It is the core above with EW_OP_IDENTITY, no ScaleBias and no
 * activation of its own, whose operation applies up to EW_CHAIN_MAX_STEPS steps to the inputs of
 * one element: step k computes activation(op(a * scale + bias, b)) of an EW_OP_* code (unary or
 * binary, of include/elementwise_unary_ops.glsl or elementwise_binary_ops.glsl), its operands
 * chain inputs or earlier steps' results; the last step's result is stored. All of a chain's
 * tensors share one data type of 32 bits or less; FLOAT16 is computed in fp32 throughout, integer
 * results wrap to the type after every step, as storing them would. ---- */

#define EW_CHAIN_MAX_STEPS 8
#define EW_CHAIN_INPUT(i) (i)                       /* an operand: chain input i (< EW_MAX_INPUTS) */
#define EW_CHAIN_RESULT(k) (EW_MAX_INPUTS + (k))    /* an operand: step k's result */
#define EW_SPEC_CHAIN_STEPS EW_SPEC_COUNT           /* steps, 1 .. EW_CHAIN_MAX_STEPS */
#define EW_SPEC_CHAIN (EW_SPEC_CHAIN_STEPS + 1)     /* EW_CHAIN_MAX_STEPS blocks: */
#define EW_CHAIN_OP 0                   /*   EW_OP_* */
#define EW_CHAIN_A 1                    /*   operands */
#define EW_CHAIN_B 2
#define EW_CHAIN_SCALE_BIAS 3           /*   bool: a = a * scale + bias (float domain) */
#define EW_CHAIN_SCALE 4                /*   float bits */
#define EW_CHAIN_BIAS 5
#define EW_CHAIN_ATTR0 6                /*   attribute words 0 and 2 (EW_ATTR_CLIP_MIN, EW_ATTR_CLIP_MAX, ...) */
#define EW_CHAIN_ATTR2 7
#define EW_CHAIN_ACTIVATION 8           /*   VKDML_ACTIVATION_SPEC_COUNT words (float domain) */
#define EW_CHAIN_STEP_SIZE (EW_CHAIN_ACTIVATION + VKDML_ACTIVATION_SPEC_COUNT)
#define EW_SPEC_CHAIN_STEP(k, field) (EW_SPEC_CHAIN + (k) * EW_CHAIN_STEP_SIZE + (field))
#define EW_SPEC_CHAIN_COUNT EW_SPEC_CHAIN_STEP(EW_CHAIN_MAX_STEPS, 0)

/* Innermost stride kinds: they decide how vector mode loads a tensor. */
#define EW_INNER_BROADCAST 0            /* stride 0 */
#define EW_INNER_CONTIGUOUS 1           /* stride 1 */
#define EW_INNER_STRIDED 2              /* any other: the record has it */

/* ---- The record (word indices); n tensors present, rank r, k a tensor's place among them ---- */

#define EW_REC_COUNT 0                  /* output elements, < 2^32 */
#define EW_REC_SLOTS 1                  /* byte k: tensor k's descriptor slot */
#define EW_REC_OFFSET(k) (2 + 2 * (k))  /* its byte offset from the descriptor's address: low, high */
#define EW_REC_DIVISOR(n, d) (2 + 2 * (n) + 2 * (d))   /* d < r - 1: size, multiplier */
#define EW_REC_STRIDE(n, r, k, d) (EW_REC_DIVISOR(n, (r) - 1) + (k) * (r) + (d))
#define EW_REC_WORDS(n, r) EW_REC_STRIDE(n, r, n, 0)
#define EW_PUSH_WORDS (VKDML_MAX_OP_PUSH / 4)

#define EW_DEFAULT_LOCAL_SIZE 128

#ifdef VULKAN

layout(push_constant, std430) uniform ElementwisePush
{
    VkdmlDescriptorTable table;
    uint words[EW_PUSH_WORDS];          /* the record's first words */
} push;

#endif

#endif /* VKDML_ELEMENTWISE_INTERFACE_H */
