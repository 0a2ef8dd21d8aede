/*
 * What every DirectML operator kernel shares, in C and GLSL: the push-constant budget, the
 * descriptor table (records of descriptor_interface.h, read at execution time) and the fused
 * activation encoding (activation.glsl implements it).
 */
#ifndef VKDML_DML_INTERFACE_H
#define VKDML_DML_INTERFACE_H

#include "descriptor_interface.h"

/* One pipeline layout for all operator kernels: a 128-byte push range (every Vulkan device has
 * at least 128). Bytes [0, 8): the descriptor table's device address; the rest is the kernel's. */
#define VKDML_PUSH_CONSTANT_SIZE 128
#define VKDML_MAX_OP_PUSH (VKDML_PUSH_CONSTANT_SIZE - 8)

/* A fused activation is VKDML_ACTIVATION_SPEC_COUNT specialization constants starting at the id
 * the kernel picks (ACTIVATION_SPEC_BASE): kind, then alpha, beta, gamma as float bits. */
#define VKDML_ACTIVATION_SPEC_COUNT 4

#define VKDML_ACTIVATION_NONE 0
#define VKDML_ACTIVATION_IDENTITY 1
#define VKDML_ACTIVATION_LINEAR 2               /* alpha * x + beta */
#define VKDML_ACTIVATION_SIGMOID 3
#define VKDML_ACTIVATION_HARD_SIGMOID 4         /* max(0, min(alpha * x + beta, 1)) */
#define VKDML_ACTIVATION_TANH 5
#define VKDML_ACTIVATION_SCALED_TANH 6          /* alpha * tanh(beta * x) */
#define VKDML_ACTIVATION_RELU 7
#define VKDML_ACTIVATION_LEAKY_RELU 8           /* x > 0 ? x : alpha * x */
#define VKDML_ACTIVATION_THRESHOLDED_RELU 9     /* x > alpha ? x : 0 */
#define VKDML_ACTIVATION_ELU 10                 /* x > 0 ? x : alpha * (exp(x) - 1) */
#define VKDML_ACTIVATION_CELU 11                /* max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) */
#define VKDML_ACTIVATION_SCALED_ELU 12          /* gamma * (x > 0 ? x : alpha * (exp(x) - 1)) */
#define VKDML_ACTIVATION_SOFTPLUS 13            /* log(1 + exp(alpha * x)) / alpha (alpha = Steepness) */
#define VKDML_ACTIVATION_PARAMETRIC_SOFTPLUS 14 /* alpha * log(1 + exp(beta * x)) */
#define VKDML_ACTIVATION_SOFTSIGN 15            /* x / (1 + |x|) */
#define VKDML_ACTIVATION_SHRINK 16              /* x < -alpha ? x + beta : x > alpha ? x - beta : 0 (alpha = Threshold, beta = Bias) */
#define VKDML_ACTIVATION_GELU 17                /* 0.5 * x * (1 + erf(x / sqrt(2))) */
#define VKDML_ACTIVATION_CLIP 18                /* max(alpha, min(x, beta)) */
#define VKDML_ACTIVATION_SWISH 19               /* x * sigmoid(alpha * x) */
#define VKDML_ACTIVATION_HARD_SWISH 20          /* x * max(0, min(1, alpha * x + beta)) */

#ifdef VULKAN

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer VkdmlDescriptorTable
{
    VkdmlDescriptor records[];
};

/* The byte address `offset` (low and high words) into the binding in descriptor `slot`: 64-bit
 * arithmetic on two words, so kernels need no shaderInt64. */
uvec2 vkdml_binding_address(VkdmlDescriptorTable table, uint slot, uint offset_lo, uint offset_hi)
{
    uvec2 base = table.records[slot].address;
    uint carry;
    uint lo = uaddCarry(base.x, offset_lo, carry);

    return uvec2(lo, base.y + offset_hi + carry);
}

#endif

#endif /* VKDML_DML_INTERFACE_H */
