/*
 * The element-wise operators of one input: ABS, ACOS, ACOSH, ASIN, ASINH, ATAN, ATANH, CEIL,
 * CLIP, CLIP1, COS, COSH, ERF, EXP, FLOOR, IDENTITY, LOG, NEGATE, RECIP, ROUND, SIGN, SIN, SINH,
 * SQRT, TAN, TANH, THRESHOLD and CONSTANT_POW, in every data type DirectML lists for them (those
 * the device supports), against libm in double precision: edge values (±0, ±inf, NaN,
 * denormals, the extremes, halves, integer minima and maxima), random values over each
 * function's domain, ScaleBias, attribute edge cases and the desc rules.
 *
 * Tolerances (FLOAT32 results; FLOAT16 results allow 1 fp16 ulp, the rounding of the fp32 result):
 * exact (0 ulp): ABS, CEIL, CLIP, FLOOR, IDENTITY, NEGATE, ROUND, SIGN, THRESHOLD, and zeros keep
 * their sign; SQRT, RECIP: 1 ulp (Vulkan allows more; lavapipe rounds correctly); EXP, LOG:
 * 2 ulp; ACOS, ASIN, ATAN: 3 ulp; SIN, COS, TAN: 3 ulp plus 2^-24 absolute (near their zeros the
 * error is relative to the argument); SINH, COSH, ASINH, ACOSH, ATANH: 3 ulp; TANH 3 ulp, ERF
 * 4 ulp (activation.glsl's functions, which use the device's exp); CONSTANT_POW: 3 ulp. Measured
 * with EWT_VERBOSE=1 on lavapipe (math.glsl's functions): at most 1 ulp for ACOS, ATAN, COSH,
 * EXP, LOG, SINH, TANH, POW; 2 for ACOSH, ASIN, ASINH, ATANH, COS, SIN, TAN; 3 for ERF.
 */
#include "elementwise_test.h"

#include <float.h>

#define TYPE_BIT(t) (1u << DML_TENSOR_DATA_TYPE_##t)
#define FLOATS (TYPE_BIT(FLOAT32) | TYPE_BIT(FLOAT16))
#define SIGNED (TYPE_BIT(INT32) | TYPE_BIT(INT16) | TYPE_BIT(INT8))
#define UNSIGNED (TYPE_BIT(UINT32) | TYPE_BIT(UINT16) | TYPE_BIT(UINT8))
#define INTS (SIGNED | UNSIGNED | TYPE_BIT(INT64) | TYPE_BIT(UINT64))

/* Every unary desc that has a ScaleBias has it right after its two tensors. */
struct scale_bias_desc
{
    const DML_TENSOR_DESC *InputTensor;
    const DML_TENSOR_DESC *OutputTensor;
    const DML_SCALE_BIAS *ScaleBias;
};

/* ---- References ---- */

static double sign_of(double x)
{
    return x > 0.0 ? 1.0 : x < 0.0 ? -1.0 : x;
}

/* DirectML's TOWARD_INFINITY: halves away from zero. */
static double round_mode(double x, DML_ROUNDING_MODE mode)
{
    switch (mode)
    {
        case DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN: return nearbyint(x);
        case DML_ROUNDING_MODE_TOWARD_ZERO: return trunc(x);
        default: return round(x);
    }
}

/* DirectML's CLIP, max(lo, min(x, hi)): lo where lo > hi; NaN stays NaN. */
static double clamp_nan(double x, double lo, double hi)
{
    double upper = x > hi ? hi : x;

    return upper < lo ? lo : upper;
}

static double scalar_float(DML_TENSOR_DATA_TYPE type, const DML_SCALAR_UNION *s)
{
    if (type == DML_TENSOR_DATA_TYPE_FLOAT16)
        return ref_half_to_float(s->UInt16);
    return type == DML_TENSOR_DATA_TYPE_FLOAT64 ? s->Float64 : s->Float32;
}

/* The integer clamp bound of a float bound: ceil(min), floor(max), saturated to the type. */
static int64_t int_bound(DML_TENSOR_DATA_TYPE type, double v, bool lower)
{
    double lo = (double)ewt_min(type), hi = (double)ewt_max(type);

    v = lower ? ceil(v) : floor(v);
    if (isnan(v))
        v = lower ? lo : hi;
    if (v <= lo)
        return ewt_min(type);
    if (v >= hi)
        return (int64_t)ewt_max(type);
    return (int64_t)v;
}

static bool int_less(DML_TENSOR_DATA_TYPE type, uint64_t a, uint64_t b)
{
    return ewt_is_signed(type) ? (int64_t)a < (int64_t)b : a < b;
}

static uint64_t int_clamp(DML_TENSOR_DATA_TYPE type, uint64_t x, uint64_t lo, uint64_t hi)
{
    if (int_less(type, hi, x))
        x = hi;
    return int_less(type, x, lo) ? lo : x;
}

static double float_function(DML_OPERATOR_TYPE op, const void *desc, DML_TENSOR_DATA_TYPE type, double x)
{
    switch (op)
    {
        case DML_OPERATOR_ELEMENT_WISE_IDENTITY: return x;
        case DML_OPERATOR_ELEMENT_WISE_ABS: return fabs(x);
        case DML_OPERATOR_ELEMENT_WISE_ACOS: return acos(x);
        case DML_OPERATOR_ELEMENT_WISE_ACOSH: return acosh(x);
        case DML_OPERATOR_ELEMENT_WISE_ASIN: return asin(x);
        case DML_OPERATOR_ELEMENT_WISE_ASINH: return asinh(x);
        case DML_OPERATOR_ELEMENT_WISE_ATAN: return atan(x);
        case DML_OPERATOR_ELEMENT_WISE_ATANH: return atanh(x);
        case DML_OPERATOR_ELEMENT_WISE_CEIL: return ceil(x);
        case DML_OPERATOR_ELEMENT_WISE_COS: return cos(x);
        case DML_OPERATOR_ELEMENT_WISE_COSH: return cosh(x);
        case DML_OPERATOR_ELEMENT_WISE_ERF: return erf(x);
        case DML_OPERATOR_ELEMENT_WISE_EXP: return exp(x);
        case DML_OPERATOR_ELEMENT_WISE_FLOOR: return floor(x);
        case DML_OPERATOR_ELEMENT_WISE_LOG: return log(x);
        case DML_OPERATOR_ELEMENT_WISE_NEGATE: return -x;
        case DML_OPERATOR_ELEMENT_WISE_RECIP: return 1.0 / x;
        case DML_OPERATOR_ELEMENT_WISE_SIGN: return sign_of(x);
        case DML_OPERATOR_ELEMENT_WISE_SIN: return sin(x);
        case DML_OPERATOR_ELEMENT_WISE_SINH: return sinh(x);
        case DML_OPERATOR_ELEMENT_WISE_SQRT: return sqrt(x);
        case DML_OPERATOR_ELEMENT_WISE_TAN: return tan(x);
        case DML_OPERATOR_ELEMENT_WISE_TANH: return tanh(x);
        case DML_OPERATOR_ELEMENT_WISE_ROUND:
            return round_mode(x, ((const DML_ELEMENT_WISE_ROUND_OPERATOR_DESC *)desc)->RoundingMode);
        case DML_OPERATOR_ELEMENT_WISE_CLIP:
        {
            const DML_ELEMENT_WISE_CLIP_OPERATOR_DESC *clip = desc;
            return clamp_nan(x, clip->Min, clip->Max);
        }
        case DML_OPERATOR_ELEMENT_WISE_CLIP1:
        {
            const DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC *clip = desc;
            return clamp_nan(x, (float)scalar_float(type, &clip->Min), (float)scalar_float(type, &clip->Max));
        }
        case DML_OPERATOR_ELEMENT_WISE_THRESHOLD:
            return clamp_nan(x, ((const DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC *)desc)->Min, INFINITY);
        case DML_OPERATOR_ELEMENT_WISE_CONSTANT_POW:
            return pow(x, ((const DML_ELEMENT_WISE_CONSTANT_POW_OPERATOR_DESC *)desc)->Exponent);
        default:
            fail_msg("no float reference for %s", ewt_op_name(op));
            return 0.0;
    }
}

static uint64_t int_function(DML_OPERATOR_TYPE op, const void *desc, DML_TENSOR_DATA_TYPE type, uint64_t x)
{
    bool s = ewt_is_signed(type);

    switch (op)
    {
        case DML_OPERATOR_ELEMENT_WISE_IDENTITY: return x;
        case DML_OPERATOR_ELEMENT_WISE_ABS: return s && (int64_t)x < 0 ? 0 - x : x;
        case DML_OPERATOR_ELEMENT_WISE_NEGATE: return 0 - x;
        case DML_OPERATOR_ELEMENT_WISE_SIGN:
            return s ? ((int64_t)x > 0 ? 1 : (int64_t)x < 0 ? UINT64_MAX : 0) : x != 0;
        case DML_OPERATOR_ELEMENT_WISE_CLIP:
        {
            const DML_ELEMENT_WISE_CLIP_OPERATOR_DESC *clip = desc;
            return int_clamp(type, x, int_bound(type, clip->Min, true), int_bound(type, clip->Max, false));
        }
        case DML_OPERATOR_ELEMENT_WISE_CLIP1:
        {
            const DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC *clip = desc;
            return int_clamp(type, x, ewt_wrap(type, clip->Min.UInt64), ewt_wrap(type, clip->Max.UInt64));
        }
        case DML_OPERATOR_ELEMENT_WISE_THRESHOLD:
            return int_clamp(type, x, int_bound(type, ((const DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC *)desc)->Min, true),
                    ewt_max(type));
        case DML_OPERATOR_ELEMENT_WISE_CONSTANT_POW:
            return ewt_int_pow(type, x, ((const DML_ELEMENT_WISE_CONSTANT_POW_OPERATOR_DESC *)desc)->Exponent);
        default:
            fail_msg("no integer reference for %s", ewt_op_name(op));
            return 0;
    }
}

static bool has_scale_bias(DML_OPERATOR_TYPE op)
{
    switch (op)
    {
        case DML_OPERATOR_ELEMENT_WISE_NEGATE:
        case DML_OPERATOR_ELEMENT_WISE_SIGN:
        case DML_OPERATOR_ELEMENT_WISE_ROUND:
            return false;
        default:
            return true;
    }
}

static struct ewt_value reference(const struct ewt_case *c, const struct ewt_value *x)
{
    const struct scale_bias_desc *desc = c->desc;
    DML_TENSOR_DATA_TYPE type = c->types[0];
    double a = x[0].f;

    if (!ewt_is_float(type))
        return ewt_i((int64_t)int_function(c->op, c->desc, type, x[0].u));
    if (desc && has_scale_bias(c->op) && desc->ScaleBias)
    {
        a = a * desc->ScaleBias->Scale + desc->ScaleBias->Bias;
        /* The kernel scales in fp32 (fp16 tensors too). */
        if (type != DML_TENSOR_DATA_TYPE_FLOAT64)
            a = (float)a;
    }
    return ewt_f(float_function(c->op, c->desc, type, a));
}

/* ---- The operators ---- */

struct unary_op
{
    DML_OPERATOR_TYPE op;
    uint32_t types;             /* DirectML's tensor-support table at FL 6_4 */
    double lo, hi;              /* random float inputs */
    struct ewt_tolerance fp32;  /* FLOAT32 results */
    bool periodic;              /* edge values beyond |x| = 8192 are the device's built-ins' */
};

static const struct unary_op unary_ops[] =
{
    {DML_OPERATOR_ELEMENT_WISE_IDENTITY, FLOATS | TYPE_BIT(FLOAT64) | INTS, -10, 10, {0, 0}},
    {DML_OPERATOR_ELEMENT_WISE_ABS, FLOATS | SIGNED | TYPE_BIT(INT64), -10, 10, {0, 0}},
    {DML_OPERATOR_ELEMENT_WISE_ACOS, FLOATS, -1, 1, {3, 0}},
    {DML_OPERATOR_ELEMENT_WISE_ACOSH, FLOATS, 1, 1000, {3, 0}},
    {DML_OPERATOR_ELEMENT_WISE_ASIN, FLOATS, -1, 1, {3, 0}},
    {DML_OPERATOR_ELEMENT_WISE_ASINH, FLOATS, -1000, 1000, {3, 0}},
    {DML_OPERATOR_ELEMENT_WISE_ATAN, FLOATS, -100, 100, {3, 0}},
    {DML_OPERATOR_ELEMENT_WISE_ATANH, FLOATS, -0.999, 0.999, {3, 0}},
    {DML_OPERATOR_ELEMENT_WISE_CEIL, FLOATS, -1000, 1000, {0, 0}},
    {DML_OPERATOR_ELEMENT_WISE_COS, FLOATS, -20, 20, {3, 0x1p-24}, true},
    {DML_OPERATOR_ELEMENT_WISE_COSH, FLOATS, -20, 20, {3, 0}},
    {DML_OPERATOR_ELEMENT_WISE_ERF, FLOATS, -5, 5, {4, 0}},
    {DML_OPERATOR_ELEMENT_WISE_EXP, FLOATS, -87, 88, {2, 0}},
    {DML_OPERATOR_ELEMENT_WISE_FLOOR, FLOATS, -1000, 1000, {0, 0}},
    {DML_OPERATOR_ELEMENT_WISE_LOG, FLOATS, 0, 100, {2, 0}},
    {DML_OPERATOR_ELEMENT_WISE_NEGATE, FLOATS | SIGNED | TYPE_BIT(INT64), -10, 10, {0, 0}},
    {DML_OPERATOR_ELEMENT_WISE_RECIP, FLOATS, -100, 100, {1, 0}},
    {DML_OPERATOR_ELEMENT_WISE_SIGN, FLOATS | INTS, -10, 10, {0, 0}},
    {DML_OPERATOR_ELEMENT_WISE_SIN, FLOATS, -20, 20, {3, 0x1p-24}, true},
    {DML_OPERATOR_ELEMENT_WISE_SINH, FLOATS, -20, 20, {3, 0}},
    {DML_OPERATOR_ELEMENT_WISE_SQRT, FLOATS, 0, 1e6, {1, 0}},
    {DML_OPERATOR_ELEMENT_WISE_TAN, FLOATS, -1.5, 1.5, {3, 0x1p-24}, true},
    {DML_OPERATOR_ELEMENT_WISE_TANH, FLOATS, -10, 10, {3, 0}},
};

static bool is_exact(const struct unary_op *u)
{
    return !u->fp32.ulps && !u->fp32.abs;
}

/* The type's edge values (elementwise_test.h), without those a periodic function does not handle
 * itself. */
static UINT edge_values(const struct unary_op *u, DML_TENSOR_DATA_TYPE type, struct ewt_value *values)
{
    UINT n = ewt_edge_values(type, values), i, kept = 0;

    for (i = 0; i < n; ++i)
    {
        if (!u->periodic || !isfinite(values[i].f) || fabs(values[i].f) <= 8192.0)
            values[kept++] = values[i];
    }
    return kept;
}

/* FLOAT16 inputs and results stay in range. */
static void fp16_range(DML_OPERATOR_TYPE op, double *lo, double *hi)
{
    if (op == DML_OPERATOR_ELEMENT_WISE_EXP)
        *lo = -16, *hi = 11;
    else if (op == DML_OPERATOR_ELEMENT_WISE_COSH || op == DML_OPERATOR_ELEMENT_WISE_SINH)
        *lo = -11, *hi = 11;
    else if (op == DML_OPERATOR_ELEMENT_WISE_SQRT)
        *hi = 60000;
}

static void run_unary(struct dml_test_context *context, const struct unary_op *u, DML_TENSOR_DATA_TYPE type,
        const DML_SCALE_BIAS *scale_bias)
{
    struct scale_bias_desc desc = {NULL, NULL, has_scale_bias(u->op) ? scale_bias : NULL};
    struct ewt_value specials[EWT_MAX_SPECIALS];
    struct ewt_case c;

    ewt_case_init(&c, u->op, 1, type, 1021, reference);
    c.desc = &desc;
    c.desc_size = has_scale_bias(u->op) ? sizeof(desc) : 2 * sizeof(void *);
    c.special_count = edge_values(u, type, specials);
    c.specials[0] = specials;
    if (ewt_is_float(type))
    {
        c.lo[0] = u->lo;
        c.hi[0] = u->hi;
        if (type == DML_TENSOR_DATA_TYPE_FLOAT16)
            fp16_range(u->op, &c.lo[0], &c.hi[0]);
        if (type == DML_TENSOR_DATA_TYPE_FLOAT32)
            c.tolerance = u->fp32;
        c.zero_sign = is_exact(u);
    }
    ewt_run(context, &c);
}

/* Every operator in every type it takes: FLOAT32 plain, FLOAT16 with an exact ScaleBias (so
 * that both paths are covered without doubling the pipelines), integers plain. */
static void test_types(void **state)
{
    static const DML_SCALE_BIAS fp16_scale_bias = {0.5f, 0.125f};
    struct dml_test_context *context = *state;
    unsigned int i, t, ran = 0;

    for (i = 0; i < ARRAY_SIZE(unary_ops); ++i)
    {
        for (t = 0; t < ARRAY_SIZE(ewt_all_types); ++t)
        {
            DML_TENSOR_DATA_TYPE type = ewt_all_types[t];

            if (!(unary_ops[i].types & (1u << type)) || !dml_test_data_type_supported(context, type))
                continue;
            /* The inputs of a function with a restricted domain stay in it after the scaling. */
            run_unary(context, &unary_ops[i], type, type == DML_TENSOR_DATA_TYPE_FLOAT16
                    && unary_ops[i].lo >= -10 && unary_ops[i].hi <= 1000 ? &fp16_scale_bias : NULL);
            ++ran;
        }
    }
    assert_true(ran >= 40);
}

/* ScaleBias on FLOAT32: x * scale + bias, then the function (may be one fused multiply-add). */
static void test_scale_bias(void **state)
{
    static const DML_SCALE_BIAS scale_biases[] = {{2.5f, -1.25f}, {-0.25f, 0.5f}, {0.0f, 7.0f}};
    static const DML_OPERATOR_TYPE ops[] =
    {
        DML_OPERATOR_ELEMENT_WISE_IDENTITY, DML_OPERATOR_ELEMENT_WISE_ABS, DML_OPERATOR_ELEMENT_WISE_EXP,
        DML_OPERATOR_ELEMENT_WISE_SQRT, DML_OPERATOR_ELEMENT_WISE_ATAN, DML_OPERATOR_ELEMENT_WISE_CEIL,
    };
    struct dml_test_context *context = *state;
    unsigned int i, j;

    for (i = 0; i < ARRAY_SIZE(ops); ++i)
    {
        for (j = 0; j < ARRAY_SIZE(unary_ops); ++j)
        {
            struct scale_bias_desc desc = {NULL, NULL, &scale_biases[i % ARRAY_SIZE(scale_biases)]};
            struct ewt_case c;

            if (unary_ops[j].op != ops[i])
                continue;
            ewt_case_init(&c, ops[i], 1, DML_TENSOR_DATA_TYPE_FLOAT32, 517, reference);
            c.desc = &desc;
            c.desc_size = sizeof(desc);
            c.lo[0] = ops[i] == DML_OPERATOR_ELEMENT_WISE_SQRT ? 1.0 : -4.0;
            c.hi[0] = 4.0;
            /* A fused multiply-add rounds once where the reference rounds the product too. */
            c.tolerance = (struct ewt_tolerance){unary_ops[j].fp32.ulps + 1, 1e-6};
            ewt_run(context, &c);
        }
    }
}

/* ---- Attributes ---- */

static const UINT halves_count = 14;
/* Halves, the float below 0.5 (which x + 0.5 would round up), 2^23 + 1 and + 0.5, signed zeros. */
static const double halves[] =
{
    0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, -0.49999997, 8388609.0, 8388608.5, -0.0, 0.0, INFINITY, NAN,
};

/* Every DML_ROUNDING_MODE, exactly, at the halves and where x + 0.5 would round up. */
static void test_round(void **state)
{
    static const DML_ROUNDING_MODE modes[] =
    {
        DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN, DML_ROUNDING_MODE_TOWARD_ZERO, DML_ROUNDING_MODE_TOWARD_INFINITY,
    };
    static const DML_TENSOR_DATA_TYPE types[] = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16};
    struct dml_test_context *context = *state;
    struct ewt_value specials[ARRAY_SIZE(halves)];
    unsigned int i, j;

    for (i = 0; i < halves_count; ++i)
        specials[i] = ewt_f(halves[i]);
    for (j = 0; j < ARRAY_SIZE(types); ++j)
    {
        if (!dml_test_data_type_supported(context, types[j]))
            continue;
        for (i = 0; i < ARRAY_SIZE(modes); ++i)
        {
            DML_ELEMENT_WISE_ROUND_OPERATOR_DESC desc = {NULL, NULL, modes[i]};
            struct ewt_case c;

            ewt_case_init(&c, DML_OPERATOR_ELEMENT_WISE_ROUND, 1, types[j], 777, reference);
            c.desc = &desc;
            c.desc_size = sizeof(desc);
            c.specials[0] = specials;
            c.special_count = halves_count;
            c.lo[0] = -64.0;
            c.hi[0] = 64.0;
            c.zero_sign = true;
            c.tolerance = (struct ewt_tolerance){0, 0};
            ewt_run(context, &c);
        }
    }
}

/* An operator of `type` with attributes (`desc`, its tensors NULL) over the type's edge values and
 * [-4, 4] (floats) or every integer; zeros must keep their sign. */
static void run_with_attributes(struct dml_test_context *context, DML_OPERATOR_TYPE op, DML_TENSOR_DATA_TYPE type,
        const void *desc, size_t desc_size)
{
    struct ewt_value specials[EWT_MAX_SPECIALS];
    struct ewt_case c;

    ewt_case_init(&c, op, 1, type, 301, reference);
    c.desc = desc;
    c.desc_size = desc_size;
    c.special_count = ewt_edge_values(type, specials);
    c.specials[0] = specials;
    c.lo[0] = ewt_is_float(type) ? -4.0 : 0.0;
    c.hi[0] = ewt_is_float(type) ? 4.0 : 0.0;
    c.zero_sign = true;
    ewt_run(context, &c);
}

/* CLIP's float bounds on every type (integers clamp to ceil(Min), floor(Max)), NaN staying NaN; Min > Max
 * gives Min (DirectML defines max(Min, min(x, Max)) and has no Min <= Max rule). */
static void test_clip(void **state)
{
    static const float bounds[][2] = {{-1.5f, 2.25f}, {-1e30f, 1e30f}, {3.0f, 3.0f}, {0.2f, 0.8f}, {2.5f, -1.25f}};
    struct dml_test_context *context = *state;
    unsigned int i, t;

    for (t = 0; t < ARRAY_SIZE(ewt_all_types); ++t)
    {
        DML_TENSOR_DATA_TYPE type = ewt_all_types[t];

        if (type == DML_TENSOR_DATA_TYPE_FLOAT64 || !dml_test_data_type_supported(context, type))
            continue;
        for (i = 0; i < ARRAY_SIZE(bounds); ++i)
        {
            DML_ELEMENT_WISE_CLIP_OPERATOR_DESC desc = {NULL, NULL, NULL, bounds[i][0], bounds[i][1]};

            /* Floats: plain and degenerate bounds; integers: fractional, out-of-range and empty. */
            if (ewt_is_float(type) ? i % 2 : i == 2)
                continue;
            run_with_attributes(context, DML_OPERATOR_ELEMENT_WISE_CLIP, type, &desc, sizeof(desc));
        }
    }
}

/* CLIP1's typed bounds (DML_SCALAR_UNION in MinMaxDataType) in every type, to the types' extremes; then
 * swapped, Min > Max giving Min. */
static void test_clip1(void **state)
{
    struct dml_test_context *context = *state;
    unsigned int t;

    for (t = 0; t < ARRAY_SIZE(ewt_all_types); ++t)
    {
        DML_TENSOR_DATA_TYPE type = ewt_all_types[t];
        DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC desc = {NULL, NULL, NULL, type};
        DML_SCALAR_UNION swap;

        if (type == DML_TENSOR_DATA_TYPE_FLOAT64 || !dml_test_data_type_supported(context, type))
            continue;
        if (type == DML_TENSOR_DATA_TYPE_FLOAT32)
        {
            desc.Min.Float32 = -2.5f;
            desc.Max.Float32 = 1e-3f;
        }
        else if (type == DML_TENSOR_DATA_TYPE_FLOAT16)
        {
            desc.Min.UInt16 = ref_float_to_half(-0.75f);
            desc.Max.UInt16 = ref_float_to_half(2.0f);
        }
        else
        {
            /* One above the minimum, one below the maximum: the extremes are clamped. */
            desc.Min.UInt64 = ewt_wrap(type, (uint64_t)(ewt_min(type) + 1));
            desc.Max.UInt64 = ewt_wrap(type, ewt_max(type) - 1);
            if (ewt_is_signed(type) && ewt_bits(type) <= 16)
                desc.Min.UInt64 = ewt_wrap(type, (uint64_t)-100), desc.Max.UInt64 = 27;
        }
        run_with_attributes(context, DML_OPERATOR_ELEMENT_WISE_CLIP1, type, &desc, sizeof(desc));
        swap = desc.Min;
        desc.Min = desc.Max;
        desc.Max = swap;
        run_with_attributes(context, DML_OPERATOR_ELEMENT_WISE_CLIP1, type, &desc, sizeof(desc));
    }
}

static void test_threshold(void **state)
{
    static const float mins[] = {-0.75f, 1e12f, -1e12f};
    struct dml_test_context *context = *state;
    unsigned int i, t;

    for (t = 0; t < ARRAY_SIZE(ewt_all_types); ++t)
    {
        DML_TENSOR_DATA_TYPE type = ewt_all_types[t];

        if (ewt_bits(type) == 64 || !dml_test_data_type_supported(context, type))
            continue;
        for (i = 0; i < (ewt_is_float(type) ? 1 : ARRAY_SIZE(mins)); ++i)
        {
            DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC desc = {NULL, NULL, NULL, mins[i]};

            run_with_attributes(context, DML_OPERATOR_ELEMENT_WISE_THRESHOLD, type, &desc, sizeof(desc));
        }
    }
}

/* CONSTANT_POW: integral, fractional, zero and negative exponents; negative bases; integers (no
 * fraction whose power lands on an integer: fp32 pow may land a hair below it, then truncate). */
static void test_constant_pow(void **state)
{
    static const float exponents[] = {2.0f, -2.5f, -1.0f, 3.0f, 0.0f, 0.5f};
    struct dml_test_context *context = *state;
    struct ewt_value specials[EWT_MAX_SPECIALS];
    unsigned int i, t;

    for (t = 0; t < ARRAY_SIZE(ewt_all_types); ++t)
    {
        DML_TENSOR_DATA_TYPE type = ewt_all_types[t];

        if (ewt_bits(type) == 64 || !dml_test_data_type_supported(context, type))
            continue;
        for (i = 0; i < ARRAY_SIZE(exponents); ++i)
        {
            DML_ELEMENT_WISE_CONSTANT_POW_OPERATOR_DESC desc = {NULL, NULL, NULL, exponents[i]};
            struct ewt_case c;

            /* Integers: no 0.5; every other exponent in INT32, two in the other types. */
            if (!ewt_is_float(type) && (i == 5 || (type != DML_TENSOR_DATA_TYPE_INT32 && i > 1)))
                continue;
            ewt_case_init(&c, DML_OPERATOR_ELEMENT_WISE_CONSTANT_POW, 1, type, 301, reference);
            c.desc = &desc;
            c.desc_size = sizeof(desc);
            c.special_count = ewt_edge_values(type, specials);
            c.specials[0] = specials;
            c.lo[0] = ewt_is_float(type) ? -8.0 : -50.0;
            c.hi[0] = ewt_is_float(type) ? 8.0 : 50.0;
            if (type == DML_TENSOR_DATA_TYPE_FLOAT32)
                c.tolerance = (struct ewt_tolerance){3, 0};
            ewt_run(context, &c);
        }
    }
}

/* ---- Desc rules ---- */

static void test_invalid_descs(void **state)
{
    static const UINT sizes[] = {4, 5};
    static const DML_SCALE_BIAS scale_bias = {2.0f, 1.0f};
    struct dml_test_context *context = *state;
    struct dml_test_tensor f32, f16, i32, u32;
    DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC clip1;
    DML_ELEMENT_WISE_SQRT_OPERATOR_DESC sqrt_desc;
    DML_ELEMENT_WISE_ROUND_OPERATOR_DESC round_desc;
    DML_ELEMENT_WISE_ABS_OPERATOR_DESC abs_desc;
    DML_ELEMENT_WISE_NEGATE_OPERATOR_DESC negate;

    dml_test_tensor_init(&f32, DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, NULL);
    dml_test_tensor_init(&f16, DML_TENSOR_DATA_TYPE_FLOAT16, 2, sizes, NULL);
    dml_test_tensor_init(&i32, DML_TENSOR_DATA_TYPE_INT32, 2, sizes, NULL);
    dml_test_tensor_init(&u32, DML_TENSOR_DATA_TYPE_UINT32, 2, sizes, NULL);

    clip1 = (DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC){&i32.desc, &i32.desc, NULL, DML_TENSOR_DATA_TYPE_FLOAT32};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_CLIP1, &clip1,
            "CreateOperator(ELEMENT_WISE_CLIP1): MinMaxDataType=FLOAT32 must equal OutputTensor.DataType=INT32.");
    sqrt_desc = (DML_ELEMENT_WISE_SQRT_OPERATOR_DESC){&i32.desc, &i32.desc, NULL};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_SQRT, &sqrt_desc,
            "CreateOperator(ELEMENT_WISE_SQRT): OutputTensor.DataType=INT32 must be FLOAT32 or FLOAT16.");
    round_desc = (DML_ELEMENT_WISE_ROUND_OPERATOR_DESC){&f32.desc, &f16.desc, DML_ROUNDING_MODE_TOWARD_ZERO};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_ROUND, &round_desc,
            "InputTensor.DataType=FLOAT32 must equal OutputTensor.DataType=FLOAT16.");
    abs_desc = (DML_ELEMENT_WISE_ABS_OPERATOR_DESC){&i32.desc, &i32.desc, &scale_bias};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_ABS, &abs_desc,
            "ScaleBias must be NULL for INT32 tensors");
    negate = (DML_ELEMENT_WISE_NEGATE_OPERATOR_DESC){&u32.desc, &u32.desc};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_NEGATE, &negate,
            "CreateOperator(ELEMENT_WISE_NEGATE): OutputTensor.DataType=UINT32 must be FLOAT32, FLOAT16, INT32, INT16, "
            "INT8 or INT64.");
    assert_no_log_errors();
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
#define TEST(name) cmocka_unit_test_setup_teardown(name, dml_test_setup, dml_test_teardown)
        TEST(test_types),
        TEST(test_scale_bias),
        TEST(test_round),
        TEST(test_clip),
        TEST(test_clip1),
        TEST(test_threshold),
        TEST(test_constant_pow),
        TEST(test_invalid_descs),
#undef TEST
    };

    /* Logging first: it keeps the Vulkan driver loaded for LeakSanitizer (test_utils.c). */
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
