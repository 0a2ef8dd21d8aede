#version 460
#extension GL_GOOGLE_include_directive : require
/*
 * A chain of element-wise operators in one dispatch (include/elementwise_interface.h, "The chain
 * kernel"; the graph compiler's "elementwise" pass, docs/graph.md): include/elementwise_core.glsl
 * reads each input of an element once (vectors where the layouts are packed) and writes the
 * output once; in between, the steps apply the family's own operations one after the other, so
 * each step computes what its operator's kernel computes. Float activations are compiled only
 * into the EW_GROUP_ACTIVATION variants, as in the other element-wise kernels, and the other
 * costly functions into the EW_GROUP_MATH ones, which hold every group's operations (a chain may
 * mix them).
 */
#ifdef EW_GROUP_MATH
#define EW_GROUP_TRIG
#define EW_GROUP_EXP
#define EW_GROUP_POW
#define EW_GROUP_ACTIVATION
#endif
#include "elementwise_core.glsl"
#include "elementwise_unary_ops.glsl"
#include "elementwise_binary_ops.glsl"

layout(constant_id = EW_SPEC_CHAIN_STEPS) const uint EW_CHAIN_STEPS = 1u;

#define EW_DECLARE_STEP(k) \
    layout(constant_id = EW_SPEC_CHAIN_STEP(k, EW_CHAIN_OP)) const uint S##k##_OP = EW_OP_IDENTITY; \
    layout(constant_id = EW_SPEC_CHAIN_STEP(k, EW_CHAIN_A)) const uint S##k##_A = 0u; \
    layout(constant_id = EW_SPEC_CHAIN_STEP(k, EW_CHAIN_B)) const uint S##k##_B = 0u; \
    layout(constant_id = EW_SPEC_CHAIN_STEP(k, EW_CHAIN_SCALE_BIAS)) const uint S##k##_SCALE_BIAS = 0u; \
    layout(constant_id = EW_SPEC_CHAIN_STEP(k, EW_CHAIN_SCALE)) const uint S##k##_SCALE = 0x3f800000u; \
    layout(constant_id = EW_SPEC_CHAIN_STEP(k, EW_CHAIN_BIAS)) const uint S##k##_BIAS = 0u; \
    layout(constant_id = EW_SPEC_CHAIN_STEP(k, EW_CHAIN_ATTR0)) const uint S##k##_ATTR0 = 0u; \
    layout(constant_id = EW_SPEC_CHAIN_STEP(k, EW_CHAIN_ATTR2)) const uint S##k##_ATTR2 = 0u; \
    layout(constant_id = EW_SPEC_CHAIN_STEP(k, EW_CHAIN_ACTIVATION + 0)) const uint S##k##_ACT = 0u; \
    layout(constant_id = EW_SPEC_CHAIN_STEP(k, EW_CHAIN_ACTIVATION + 1)) const uint S##k##_ALPHA = 0u; \
    layout(constant_id = EW_SPEC_CHAIN_STEP(k, EW_CHAIN_ACTIVATION + 2)) const uint S##k##_BETA = 0u; \
    layout(constant_id = EW_SPEC_CHAIN_STEP(k, EW_CHAIN_ACTIVATION + 3)) const uint S##k##_GAMMA = 0u;
EW_DECLARE_STEP(0) EW_DECLARE_STEP(1) EW_DECLARE_STEP(2) EW_DECLARE_STEP(3)
EW_DECLARE_STEP(4) EW_DECLARE_STEP(5) EW_DECLARE_STEP(6) EW_DECLARE_STEP(7)

/* Operands: the chain inputs, then the steps' results (EW_CHAIN_INPUT, EW_CHAIN_RESULT). */
#define EW_CHAIN_VALUES (EW_MAX_INPUTS + EW_CHAIN_MAX_STEPS)

/* ---- FLOAT ---- */

float ew_chain_float_step(uint op, float a, float b, uint scale_bias, uint scale, uint bias, uint attr0, uint attr2,
        uint activation, uint alpha, uint beta, uint gamma)
{
    float y;

    if (scale_bias != 0u)
        a = a * uintBitsToFloat(scale) + uintBitsToFloat(bias);
    y = op < EW_OP_ADD ? ew_float_unary(op, a, attr0, attr2) : ew_float_binary(op, a, b, 0.0);
#ifdef EW_GROUP_ACTIVATION
    y = vkdml_activation_apply(activation, uintBitsToFloat(alpha), uintBitsToFloat(beta), uintBitsToFloat(gamma), y);
#endif
    return y;
}

#define EW_CHAIN_FLOAT_STEP(k) \
    if (EW_CHAIN_STEPS > k) \
        v[EW_CHAIN_RESULT(k)] = ew_chain_float_step(S##k##_OP, v[S##k##_A], v[S##k##_B], S##k##_SCALE_BIAS, \
                S##k##_SCALE, S##k##_BIAS, S##k##_ATTR0, S##k##_ATTR2, S##k##_ACT, S##k##_ALPHA, S##k##_BETA, \
                S##k##_GAMMA);

float ew_float_value(float x0, float x1, float x2)
{
    float v[EW_CHAIN_VALUES];

    [[unroll]] for (uint i = 0u; i < EW_CHAIN_VALUES; ++i)
        v[i] = 0.0;
    v[0] = x0;
    v[1] = x1;
    v[2] = x2;
    EW_CHAIN_FLOAT_STEP(0) EW_CHAIN_FLOAT_STEP(1) EW_CHAIN_FLOAT_STEP(2) EW_CHAIN_FLOAT_STEP(3)
    EW_CHAIN_FLOAT_STEP(4) EW_CHAIN_FLOAT_STEP(5) EW_CHAIN_FLOAT_STEP(6) EW_CHAIN_FLOAT_STEP(7)
    return v[EW_CHAIN_RESULT(EW_CHAIN_STEPS - 1u)];
}

uint ew_float_predicate(float x0, float x1)
{
    return 0u;                  /* chains hold no predicates */
}

/* ---- INT, UINT ---- */

/* A step's result as the chain's type holds it: narrow integers wrap and are sign- or
 * zero-extended again, as storing and loading the intermediate tensor would do. */
uint ew_chain_wrap(uint y)
{
    int bits = int(8u * tio_element_size(T3_TYPE));

    if (bits == 32)
        return y;
    return tio_is_signed(T3_TYPE) ? uint(bitfieldExtract(int(y), 0, bits)) : bitfieldExtract(y, 0, bits);
}

uint ew_chain_uint_step(uint op, uint a, uint b, uint attr0, uint attr2)
{
    return ew_chain_wrap(op < EW_OP_ADD ? ew_uint_unary(op, a, attr0, attr2) : ew_uint_binary(op, a, b, 0u));
}

#define EW_CHAIN_UINT_STEP(k) \
    if (EW_CHAIN_STEPS > k) \
        v[EW_CHAIN_RESULT(k)] = ew_chain_uint_step(S##k##_OP, v[S##k##_A], v[S##k##_B], S##k##_ATTR0, S##k##_ATTR2);

uint ew_uint_value(uint x0, uint x1, uint x2)
{
    uint v[EW_CHAIN_VALUES];

    [[unroll]] for (uint i = 0u; i < EW_CHAIN_VALUES; ++i)
        v[i] = 0u;
    v[0] = x0;
    v[1] = x1;
    v[2] = x2;
    EW_CHAIN_UINT_STEP(0) EW_CHAIN_UINT_STEP(1) EW_CHAIN_UINT_STEP(2) EW_CHAIN_UINT_STEP(3)
    EW_CHAIN_UINT_STEP(4) EW_CHAIN_UINT_STEP(5) EW_CHAIN_UINT_STEP(6) EW_CHAIN_UINT_STEP(7)
    return v[EW_CHAIN_RESULT(EW_CHAIN_STEPS - 1u)];
}

uint ew_uint_predicate(uint x0, uint x1)
{
    return 0u;
}
