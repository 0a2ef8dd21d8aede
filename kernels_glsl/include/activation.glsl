/*
 * Activation functions of dml_interface.h (VKDML_ACTIVATION_*), in fp32, for fused activations
 * (ELEMENT_WISE_ADD1, GEMM, CONVOLUTION, BATCH_NORMALIZATION, MVN) and the ACTIVATION_* operators.
 *
 * The including kernel #defines ACTIVATION_SPEC_BASE: the activation is the four
 * specialization constants ACTIVATION_SPEC_BASE .. +3 (kind, then alpha, beta, gamma as float
 * bits; backend_vk/ops/activation.c fills them), so the unused kinds are dead code once the
 * pipeline is specialized. Kernels that need several activations (RNN gates) call
 * vkdml_activation_apply() with constants of their own.
 *
 * Numerics: NaN inputs give NaN (comparisons are written so that NaN takes the pass-through
 * side; none uses min/max, whose NaN result is undefined in GLSL). Formulas are the stable ones:
 * sigmoid and softplus go through exp(-|x|), never overflowing; expm1, log1p, tanh and erf have
 * their own polynomials near 0, where exp(x) - 1, log(1 + x) or 1 - erfc(x) would cancel.
 * Relative error of the helpers in fp32 arithmetic against double libm, with a correctly
 * rounded exp() (measured on a C copy of this file over [-20, 20]):
 *     expm1 1.2e-7, log1p (0 <= u <= 1) 1.7e-7, tanh 1.5e-7, sigmoid 1.2e-7, softplus 2.3e-7,
 *     erfc 4.8e-7 (|x| < 9), erf 3.8e-7.
 * The device's exp() adds its own error (Vulkan allows 3 + 2|x| ulp); through ADD1 on lavapipe
 * and on NVIDIA (driver 580) every activation stays within 3e-7 relative of the double
 * reference (1e-7 absolute where alpha * x + beta cancels), except for tiny results of
 * exp(large negative): 1e-6 for sigmoid/softplus near 1e-9, 1.3e-5 for GELU near 1e-28. erfc is the Chebyshev fit of Numerical Recipes (erfcc,
 * fractional error < 1.2e-7 in exact arithmetic) with exp(-z^2) split as
 * exp(-zh^2) * exp((zh - z)(zh + z)) so that z^2 is not rounded (zh = z with 12 mantissa bits,
 * zh^2 exact); without the split GELU loses 2z^2 ulp in its tail.
 */
#ifndef VKDML_ACTIVATION_GLSL
#define VKDML_ACTIVATION_GLSL

#include "dml_interface.h"

#ifndef ACTIVATION_SPEC_BASE
# error "Define ACTIVATION_SPEC_BASE (the first of the activation's 4 specialization constant ids) first."
#endif

layout(constant_id = ACTIVATION_SPEC_BASE + 0) const uint VKDML_ACTIVATION_KIND = VKDML_ACTIVATION_NONE;
layout(constant_id = ACTIVATION_SPEC_BASE + 1) const uint VKDML_ACTIVATION_ALPHA_BITS = 0u;
layout(constant_id = ACTIVATION_SPEC_BASE + 2) const uint VKDML_ACTIVATION_BETA_BITS = 0u;
layout(constant_id = ACTIVATION_SPEC_BASE + 3) const uint VKDML_ACTIVATION_GAMMA_BITS = 0u;

/* exp(x) - 1; Taylor to x^9 for |x| < 0.5 (truncation < 3e-10 relative). */
float vkdml_expm1(float x)
{
    if (abs(x) < 0.5)
    {
        float p = 1.0 / 362880.0;
        p = p * x + 1.0 / 40320.0;
        p = p * x + 1.0 / 5040.0;
        p = p * x + 1.0 / 720.0;
        p = p * x + 1.0 / 120.0;
        p = p * x + 1.0 / 24.0;
        p = p * x + 1.0 / 6.0;
        p = p * x + 0.5;
        return x + x * x * p;
    }
    return exp(x) - 1.0;
}

/* log(1 + u) for 0 <= u <= 1: 2 atanh(s), s = u / (2 + u) <= 1/3, series to s^17
 * (truncation < 1e-9 relative). Needs no log(), whose accuracy near 1 Vulkan leaves loose. */
float vkdml_log1p_unit(float u)
{
    float s = u / (2.0 + u), s2 = s * s;
    float p = 1.0 / 17.0;

    p = p * s2 + 1.0 / 15.0;
    p = p * s2 + 1.0 / 13.0;
    p = p * s2 + 1.0 / 11.0;
    p = p * s2 + 1.0 / 9.0;
    p = p * s2 + 1.0 / 7.0;
    p = p * s2 + 1.0 / 5.0;
    p = p * s2 + 1.0 / 3.0;
    return 2.0 * s + 2.0 * s * s2 * p;
}

/* isnan() and isinf() on the bits. Without SignedZeroInfNanPreserve a driver may assume that no
 * float is NaN or infinite and fold the built-ins away (NVIDIA does, in selects: it turns
 * `isnan(x) ? x : x < lo ? lo : x` into max(x, lo), whose NaN result is lo); integer tests it
 * must keep. */
bool vkdml_isnan(float x)
{
    return (floatBitsToUint(x) & 0x7fffffffu) > 0x7f800000u;
}

bool vkdml_isinf(float x)
{
    return (floatBitsToUint(x) & 0x7fffffffu) == 0x7f800000u;
}

/* NaN-propagating max(x, 0) and min(x, 0); max(-0, 0) is +0 (IEEE 754-2019 maximum, and what
 * a driver's max gives when it turns the select into one). */
float vkdml_relu(float x)
{
    return vkdml_isnan(x) ? x : (x <= 0.0 ? 0.0 : x);
}

float vkdml_min0(float x)
{
    return vkdml_isnan(x) ? x : (x > 0.0 ? 0.0 : x);
}

/* NaN-propagating clamp. */
/* max(lo, min(x, hi)), DirectML's CLIP: lo wins where lo > hi. NaN stays NaN. */
float vkdml_clamp(float x, float lo, float hi)
{
    float upper = x > hi ? hi : x;

    return vkdml_isnan(x) ? x : (upper < lo ? lo : upper);
}

float vkdml_sigmoid(float x)
{
    float e = exp(-abs(x)), r = 1.0 / (1.0 + e);

    return x >= 0.0 ? r : e * r;
}

/* Cephes' tanhf: an odd polynomial below 0.625, 1 - 2 / (exp(2|x|) + 1) above (no overflow:
 * exp(inf) = inf gives 1). */
float vkdml_tanh(float x)
{
    float a = abs(x), r;

    if (a < 0.625)
    {
        float z = x * x;
        float p = (((-5.70498872745e-3 * z + 2.06390887954e-2) * z - 5.37397155531e-2) * z
                + 1.33314422036e-1) * z - 3.33332819422e-1;
        return x + x * z * p;
    }
    r = 1.0 - 2.0 / (exp(2.0 * a) + 1.0);
    return x < 0.0 ? -r : r;
}

/* log(1 + exp(x)) without overflow: max(x, 0) + log1p(exp(-|x|)). */
float vkdml_softplus(float x)
{
    return vkdml_relu(x) + vkdml_log1p_unit(exp(-abs(x)));
}

/* Complementary error function (see the header comment for the error bound). */
float vkdml_erfc(float x)
{
    float z = abs(x), t = 1.0 / (1.0 + 0.5 * z), r;
    float zh = uintBitsToFloat(floatBitsToUint(z) & 0xfffff000u);
    float p = -0.82215223 + t * 0.17087277;

    p = 1.48851587 + t * p;
    p = -1.13520398 + t * p;
    p = 0.27886807 + t * p;
    p = -0.18628806 + t * p;
    p = 0.09678418 + t * p;
    p = 0.37409196 + t * p;
    p = 1.00002368 + t * p;
    p = -1.26551223 + t * p;
    r = t * exp(-zh * zh) * exp((zh - z) * (zh + z) + p);
    /* erfc(10) < 1e-44 is 0 in fp32; also keeps z = inf from computing inf - inf. */
    r = z > 10.0 ? 0.0 : r;
    return x < 0.0 ? 2.0 - r : r;
}

/* Error function: Taylor to x^15 below 0.5 (relative accuracy near 0), 1 - erfc(|x|) above. */
float vkdml_erf(float x)
{
    if (abs(x) < 0.5)
    {
        float z = x * x;
        float p = -1.0 / 75600.0;
        p = p * z + 1.0 / 9360.0;
        p = p * z - 1.0 / 1320.0;
        p = p * z + 1.0 / 216.0;
        p = p * z - 1.0 / 42.0;
        p = p * z + 1.0 / 10.0;
        p = p * z - 1.0 / 3.0;
        return 1.1283791670955126 * (x + x * z * p);
    }
    float r = 1.0 - vkdml_erfc(abs(x));
    return x < 0.0 ? -r : r;
}

/* 0.5 x (1 + erf(x / sqrt(2))) = 0.5 x erfc(-x / sqrt(2)): no cancellation for negative x. */
float vkdml_gelu(float x)
{
    if (x < -14.0)
        return 0.0;             /* the product underflows; avoids -inf * 0 */
    return 0.5 * x * vkdml_erfc(-x * 0.70710678118654752);
}

/* `kind` is a VKDML_ACTIVATION_*; alpha, beta, gamma as dml_interface.h documents per kind. */
float vkdml_activation_apply(uint kind, float alpha, float beta, float gamma, float x)
{
    switch (kind)
    {
        case VKDML_ACTIVATION_LINEAR:
            return alpha * x + beta;
        case VKDML_ACTIVATION_SIGMOID:
            return vkdml_sigmoid(x);
        case VKDML_ACTIVATION_HARD_SIGMOID:
            return vkdml_clamp(alpha * x + beta, 0.0, 1.0);
        case VKDML_ACTIVATION_TANH:
            return vkdml_tanh(x);
        case VKDML_ACTIVATION_SCALED_TANH:
            return alpha * vkdml_tanh(beta * x);
        case VKDML_ACTIVATION_RELU:
            return vkdml_relu(x);
        case VKDML_ACTIVATION_LEAKY_RELU:
            return x < 0.0 ? alpha * x : x;
        case VKDML_ACTIVATION_THRESHOLDED_RELU:
            return x <= alpha ? 0.0 : x;
        case VKDML_ACTIVATION_ELU:
            return x > 0.0 ? x : alpha * vkdml_expm1(x);
        case VKDML_ACTIVATION_CELU:
            return vkdml_relu(x) + vkdml_min0(alpha * vkdml_expm1(x / alpha));
        case VKDML_ACTIVATION_SCALED_ELU:
            return gamma * (x > 0.0 ? x : alpha * vkdml_expm1(x));
        case VKDML_ACTIVATION_SOFTPLUS:
            /* max(alpha x, 0) / alpha is max(x, 0) for alpha > 0, which alpha x cannot overflow. */
            if (alpha > 0.0)
                return vkdml_relu(x) + vkdml_log1p_unit(exp(-abs(alpha * x))) / alpha;
            return vkdml_softplus(alpha * x) / alpha;
        case VKDML_ACTIVATION_PARAMETRIC_SOFTPLUS:
            return alpha * vkdml_softplus(beta * x);
        case VKDML_ACTIVATION_SOFTSIGN:
            /* ±1 in fp32 beyond 2^24; also where GPUs' x * (1 / (1 + |x|)) would flush (and at ±inf). */
            return abs(x) > 16777216.0 ? (x < 0.0 ? -1.0 : 1.0) : x / (1.0 + abs(x));
        case VKDML_ACTIVATION_SHRINK:
            return x < -alpha ? x + beta : (x > alpha ? x - beta : (vkdml_isnan(x) ? x : 0.0));
        case VKDML_ACTIVATION_GELU:
            return vkdml_gelu(x);
        case VKDML_ACTIVATION_CLIP:
            return vkdml_clamp(x, alpha, beta);
        /* The gate is exactly 0 for x = -inf: the limit 0, not -inf * 0. */
        case VKDML_ACTIVATION_SWISH:
        {
            float gate = vkdml_sigmoid(alpha * x);
            return gate == 0.0 ? 0.0 : x * gate;
        }
        case VKDML_ACTIVATION_HARD_SWISH:
        {
            float gate = vkdml_clamp(alpha * x + beta, 0.0, 1.0);
            return gate == 0.0 ? 0.0 : x * gate;
        }
        default:                /* NONE, IDENTITY */
            return x;
    }
}

/* The kernel's fused activation, from its specialization constants. */
float vkdml_activation(float x)
{
    return vkdml_activation_apply(VKDML_ACTIVATION_KIND, uintBitsToFloat(VKDML_ACTIVATION_ALPHA_BITS),
            uintBitsToFloat(VKDML_ACTIVATION_BETA_BITS), uintBitsToFloat(VKDML_ACTIVATION_GAMMA_BITS), x);
}

#endif /* VKDML_ACTIVATION_GLSL */
