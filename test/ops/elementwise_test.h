/*
 * Shared harness of the element-wise tests (test_elementwise*.c): one case is one operator on
 * tensors of any shape, layout and types, run through the public API and checked element by
 * element against a C reference in double precision (floats) or 64-bit arithmetic (integers).
 *
 * A case names its operator, its tensor types, a desc template (the operator's DML_*_DESC with
 * every attribute set and the tensor pointers left NULL: every element-wise desc begins with its
 * tensors in binding order, inputs then output) and a reference function. Inputs are random
 * values of their type, preceded by the case's special values (edge cases) in logical order.
 *
 * Float outputs pass within `tolerance`: |got - expected| <= ulps * ulp(expected) + abs, where
 * ulp is the output type's unit in the last place at the expected value (the smallest normal
 * ulp below the normal range). NaN must give NaN, infinities exactly. Devices may flush fp32
 * denormals (Vulkan allows it), in some operations and not in others: an fp32 denormal result
 * matches any denormal or zero, and an fp32 denormal input also accepts the result for a zero
 * input. Integer outputs must be exact. Bytes of the output buffer
 * that are not output elements (padding, the bytes around the tensor) must be unchanged.
 */
#ifndef VKDML_TEST_OPS_ELEMENTWISE_TEST_H
#define VKDML_TEST_OPS_ELEMENTWISE_TEST_H

#include "dml_test_utils.h"

#include <math.h>

#define EWT_INPUTS 3
#define EWT_OUT 3                   /* tensor index of the output */
#define EWT_TENSORS 4
#define EWT_MAX_SPECIALS 64

/* One element: floats as double, integers as their two's complement pattern, sign-extended from
 * signed types. */
struct ewt_value
{
    double f;
    uint64_t u;
};

struct ewt_tolerance
{
    double ulps;
    double abs;
};

struct ewt_case;
/* y for inputs x[0..inputs-1] (already of their tensor types). */
typedef struct ewt_value (*ewt_reference)(const struct ewt_case *c, const struct ewt_value *x);

struct ewt_case
{
    DML_OPERATOR_TYPE op;
    UINT inputs;                                /* input bindings, 1 to 3 */
    DML_TENSOR_DATA_TYPE types[EWT_TENSORS];    /* inputs, then the output at EWT_OUT */
    UINT rank;
    UINT sizes[DML_TENSOR_DIMENSION_COUNT_MAX1];
    const UINT *strides[EWT_TENSORS];           /* NULL: packed */
    const void *desc;                           /* the template; NULL: a desc of tensors only */
    size_t desc_size;
    ewt_reference reference;
    bool in_place;                              /* the output is bound over input 0 (same layout) */
    bool owned;                                 /* the inputs are OWNED_BY_DML */
    UINT64 binding_offset;                      /* every binding starts this far into its buffer */
    double lo[EWT_INPUTS], hi[EWT_INPUTS];      /* random inputs in [lo, hi]; both 0: [-10, 10] floats,
                                                 * every bit pattern for integers */
    const struct ewt_value *specials[EWT_INPUTS];   /* the first special_count elements of input i */
    UINT special_count;
    struct ewt_tolerance tolerance;             /* float outputs; 0, 0: ewt_default_tolerance() */
    bool zero_sign;                             /* a zero must have the expected sign */
};

/* A case of `op` with every tensor of `type`, `inputs` inputs, shape {n} and the given reference. */
void ewt_case_init(struct ewt_case *c, DML_OPERATOR_TYPE op, UINT inputs, DML_TENSOR_DATA_TYPE type, UINT n,
        ewt_reference reference);
void ewt_set_sizes(struct ewt_case *c, UINT rank, const UINT *sizes);
/* Runs the case and checks it (cmocka assertions). */
void ewt_run(struct dml_test_context *context, const struct ewt_case *c);
/* Whether the device runs this case's tensor types (CheckFeatureSupport). */
bool ewt_types_supported(struct dml_test_context *context, const struct ewt_case *c);

/* ---- Types and values ---- */

extern const DML_TENSOR_DATA_TYPE ewt_all_types[11];

bool ewt_is_float(DML_TENSOR_DATA_TYPE type);
bool ewt_is_signed(DML_TENSOR_DATA_TYPE type);
unsigned int ewt_bits(DML_TENSOR_DATA_TYPE type);
/* The pattern `u` reduced to the type's width, sign-extended for signed types. */
uint64_t ewt_wrap(DML_TENSOR_DATA_TYPE type, uint64_t u);
int64_t ewt_min(DML_TENSOR_DATA_TYPE type);
uint64_t ewt_max(DML_TENSOR_DATA_TYPE type);
/* `v` rounded to the float type (FLOAT32, FLOAT16; FLOAT64 unchanged), as the device would store it. */
double ewt_round(DML_TENSOR_DATA_TYPE type, double v);
double ewt_ulp(DML_TENSOR_DATA_TYPE type, double v);
struct ewt_tolerance ewt_default_tolerance(DML_TENSOR_DATA_TYPE type);
const char *ewt_op_name(DML_OPERATOR_TYPE op);

static inline struct ewt_value ewt_f(double f)
{
    struct ewt_value v = {f, 0};
    return v;
}

static inline struct ewt_value ewt_i(int64_t i)
{
    struct ewt_value v = {0.0, (uint64_t)i};
    return v;
}

/* Edge values of a type: floats ±0, ±inf, NaN, denormals, the extremes, ±1, ±0.5, halves;
 * integers 0, ±1, -2, the minimum and maximum. Returns the count (at most EWT_MAX_SPECIALS). */
UINT ewt_edge_values(DML_TENSOR_DATA_TYPE type, struct ewt_value *values);

/* x^e on integers of `type` by vkdml's rules (elementwise.c): exact (wrapping) for an integral e,
 * 1 / x^n truncated for a negative one (1 / 0: all ones); otherwise pow of the value, truncated
 * toward zero, saturated at the 32-bit limits, NaN as 0. */
uint64_t ewt_int_pow(DML_TENSOR_DATA_TYPE type, uint64_t x, double e);

/* A fused or ACTIVATION_* activation of x in double, from DirectML's definitions; NULL: x. */
double ewt_activation(const DML_OPERATOR_DESC *activation, double x);

/* Reports the largest float error of each case in ulps when EWT_VERBOSE is set (to document the
 * bounds); the test then only checks the tolerance. */
bool ewt_verbose(void);

#endif /* VKDML_TEST_OPS_ELEMENTWISE_TEST_H */
