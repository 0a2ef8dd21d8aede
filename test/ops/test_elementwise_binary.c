/*
 * The element-wise operators of two and three inputs: ADD, SUBTRACT, MULTIPLY, DIVIDE, MAX, MIN,
 * MEAN, POW (with ExponentTensor of another type), ATAN_YX, DIFFERENCE_SQUARE, MODULUS_TRUNCATE,
 * MODULUS_FLOOR and IF, in every data type DirectML lists for them (those the device supports),
 * against references in double precision and 64-bit integers: every pair of edge values (±0,
 * ±inf, NaN, denormals, extremes; integer minima, maxima, 0 and ±1, so division by zero and
 * INT_MIN / -1), random values, broadcasting, in-place execution, and the desc rules.
 *
 * vkdml's rules where DirectML leaves the result undefined: an integer quotient or remainder by
 * zero is all ones (the type's maximum, or -1), INT_MIN / -1 wraps to INT_MIN; MEAN truncates
 * toward zero like DIVIDE. Float MAX and MIN propagate NaN and order -0 < +0.
 *
 * Tolerances (FLOAT32 results; FLOAT16 results allow 1 fp16 ulp): exact, zeros with their sign:
 * ADD, SUBTRACT, MULTIPLY, MAX, MIN, MEAN, MODULUS_TRUNCATE, MODULUS_FLOOR, IF; DIVIDE 2 ulp
 * (Vulkan allows 2.5); DIFFERENCE_SQUARE 2 ulp (a - b is rounded before squaring); POW 3 ulp;
 * ATAN_YX 3 ulp. Integers are exact.
 */
#include "elementwise_test.h"

#include <stdlib.h>

#define TYPE_BIT(t) (1u << DML_TENSOR_DATA_TYPE_##t)
#define FLOATS (TYPE_BIT(FLOAT32) | TYPE_BIT(FLOAT16))
#define INTS_32 (TYPE_BIT(INT32) | TYPE_BIT(INT16) | TYPE_BIT(INT8) | TYPE_BIT(UINT32) | TYPE_BIT(UINT16) | TYPE_BIT(UINT8))
#define INTS (INTS_32 | TYPE_BIT(INT64) | TYPE_BIT(UINT64))

/* ---- References ---- */

static double fmax_nan(double a, double b)
{
    if (isnan(a) || isnan(b))
        return NAN;
    return a > b || (a == b && !signbit(a)) ? a : b;
}

static double fmin_nan(double a, double b)
{
    if (isnan(a) || isnan(b))
        return NAN;
    return a < b || (a == b && signbit(a)) ? a : b;
}

static double fmod_floor(double a, double b)
{
    double r = fmod(a, b);

    if (r != 0.0 && (r < 0.0) != (b < 0.0))
        r += b;
    return r == 0.0 ? copysign(0.0, b) : r;
}

static double float_binary(DML_OPERATOR_TYPE op, double a, double b, double c)
{
    switch (op)
    {
        case DML_OPERATOR_ELEMENT_WISE_ADD: return a + b;
        case DML_OPERATOR_ELEMENT_WISE_SUBTRACT: return a - b;
        case DML_OPERATOR_ELEMENT_WISE_MULTIPLY: return a * b;
        case DML_OPERATOR_ELEMENT_WISE_DIVIDE: return a / b;
        case DML_OPERATOR_ELEMENT_WISE_MAX: return fmax_nan(a, b);
        case DML_OPERATOR_ELEMENT_WISE_MIN: return fmin_nan(a, b);
        case DML_OPERATOR_ELEMENT_WISE_MEAN: return (a + b) / 2.0;
        case DML_OPERATOR_ELEMENT_WISE_POW: return pow(a, b);
        case DML_OPERATOR_ELEMENT_WISE_ATAN_YX: return atan2(a, b);
        case DML_OPERATOR_ELEMENT_WISE_DIFFERENCE_SQUARE: return (a - b) * (a - b);
        case DML_OPERATOR_ELEMENT_WISE_MODULUS_TRUNCATE: return fmod(a, b);
        case DML_OPERATOR_ELEMENT_WISE_MODULUS_FLOOR: return fmod_floor(a, b);
        default:
            fail_msg("no float reference for %s", ewt_op_name(op));
            return 0.0;
    }
}

static bool negative(DML_TENSOR_DATA_TYPE type, uint64_t x)
{
    return ewt_is_signed(type) && (int64_t)x < 0;
}

/* Quotient and remainder by vkdml's rules (integers already wrapped to `type`, sign-extended). */
static uint64_t int_divide(DML_TENSOR_DATA_TYPE type, uint64_t a, uint64_t b, bool remainder)
{
    uint64_t q, r;

    if (b == 0)
        return UINT64_MAX;
    if (!ewt_is_signed(type))
        q = a / b;
    else if ((int64_t)a == INT64_MIN && (int64_t)b == -1)
        q = a;
    else
        q = (uint64_t)((int64_t)a / (int64_t)b);
    r = a - q * b;
    return remainder ? r : q;
}

static uint64_t int_binary(DML_OPERATOR_TYPE op, DML_TENSOR_DATA_TYPE type, uint64_t a, uint64_t b)
{
    bool s = ewt_is_signed(type);
    uint64_t r;

    switch (op)
    {
        case DML_OPERATOR_ELEMENT_WISE_ADD: return a + b;
        case DML_OPERATOR_ELEMENT_WISE_SUBTRACT: return a - b;
        case DML_OPERATOR_ELEMENT_WISE_MULTIPLY: return a * b;
        case DML_OPERATOR_ELEMENT_WISE_DIVIDE: return int_divide(type, a, b, false);
        case DML_OPERATOR_ELEMENT_WISE_MAX: return (s ? (int64_t)a > (int64_t)b : a > b) ? a : b;
        case DML_OPERATOR_ELEMENT_WISE_MIN: return (s ? (int64_t)a < (int64_t)b : a < b) ? a : b;
        case DML_OPERATOR_ELEMENT_WISE_MEAN:
            /* 32-bit types only: the sum is exact in 64 bits. */
            return s ? (uint64_t)(((int64_t)a + (int64_t)b) / 2) : (a + b) / 2;
        case DML_OPERATOR_ELEMENT_WISE_DIFFERENCE_SQUARE: return (a - b) * (a - b);
        case DML_OPERATOR_ELEMENT_WISE_MODULUS_TRUNCATE: return int_divide(type, a, b, true);
        case DML_OPERATOR_ELEMENT_WISE_MODULUS_FLOOR:
            r = int_divide(type, a, b, true);
            if (b && r && negative(type, r) != negative(type, b))
                r += b;
            return r;
        default:
            fail_msg("no integer reference for %s", ewt_op_name(op));
            return 0;
    }
}

/* POW's exponent, of its own type, as a double for ewt_int_pow(). */
static double exponent_value(DML_TENSOR_DATA_TYPE type, struct ewt_value e)
{
    if (ewt_is_float(type))
        return e.f;
    return ewt_is_signed(type) ? (double)(int64_t)e.u : (double)e.u;
}

static struct ewt_value reference(const struct ewt_case *c, const struct ewt_value *x)
{
    DML_TENSOR_DATA_TYPE type = c->types[0];

    if (c->op == DML_OPERATOR_ELEMENT_WISE_IF)
        return x[0].u ? x[1] : x[2];
    if (c->op == DML_OPERATOR_ELEMENT_WISE_POW)
    {
        double e = exponent_value(c->types[1], x[1]);

        if (ewt_is_float(type))
            return ewt_f(pow(x[0].f, (float)e));
        return ewt_i((int64_t)ewt_int_pow(type, x[0].u, e));
    }
    if (ewt_is_float(type))
        return ewt_f(float_binary(c->op, x[0].f, x[1].f, 0.0));
    return ewt_i((int64_t)int_binary(c->op, type, x[0].u, x[1].u));
}

/* ---- The operators ---- */

struct binary_op
{
    DML_OPERATOR_TYPE op;
    uint32_t types;                 /* DirectML's tensor-support table at FL 6_4 */
    struct ewt_tolerance fp32;
    double lo[2], hi[2];            /* random float inputs; 0: [-10, 10] */
};

static const struct binary_op binary_ops[] =
{
    {DML_OPERATOR_ELEMENT_WISE_ADD, FLOATS | INTS, {0, 0}},
    {DML_OPERATOR_ELEMENT_WISE_SUBTRACT, FLOATS | INTS, {0, 0}},
    {DML_OPERATOR_ELEMENT_WISE_MULTIPLY, FLOATS | INTS, {0, 0}},
    {DML_OPERATOR_ELEMENT_WISE_DIVIDE, FLOATS | INTS, {2, 0}},
    {DML_OPERATOR_ELEMENT_WISE_MAX, FLOATS | INTS, {0, 0}},
    {DML_OPERATOR_ELEMENT_WISE_MIN, FLOATS | INTS, {0, 0}},
    {DML_OPERATOR_ELEMENT_WISE_MEAN, FLOATS | TYPE_BIT(INT32) | TYPE_BIT(UINT32), {0, 0}},
    {DML_OPERATOR_ELEMENT_WISE_POW, FLOATS | INTS_32, {3, 0}, {0, -8}, {8, 8}},
    {DML_OPERATOR_ELEMENT_WISE_ATAN_YX, FLOATS, {3, 0}},
    {DML_OPERATOR_ELEMENT_WISE_DIFFERENCE_SQUARE, FLOATS | TYPE_BIT(INT32) | TYPE_BIT(UINT32), {2, 0}},
    {DML_OPERATOR_ELEMENT_WISE_MODULUS_TRUNCATE, FLOATS | INTS, {0, 0}},
    {DML_OPERATOR_ELEMENT_WISE_MODULUS_FLOOR, FLOATS | INTS, {0, 0}},
};

static bool is_exact(const struct binary_op *b)
{
    return !b->fp32.ulps && !b->fp32.abs;
}

/* Every pair of the type's edge values, as the first elements of A and B. */
struct pairs
{
    struct ewt_value a[EWT_MAX_SPECIALS * EWT_MAX_SPECIALS], b[EWT_MAX_SPECIALS * EWT_MAX_SPECIALS];
    UINT count;
};

static void edge_pairs(DML_TENSOR_DATA_TYPE type, struct pairs *p)
{
    struct ewt_value values[EWT_MAX_SPECIALS];
    UINT n = ewt_edge_values(type, values), i, j;

    p->count = 0;
    for (i = 0; i < n; ++i)
    {
        for (j = 0; j < n; ++j)
        {
            p->a[p->count] = values[i];
            p->b[p->count++] = values[j];
        }
    }
}

static void init_binary(struct ewt_case *c, const struct binary_op *b, DML_TENSOR_DATA_TYPE type, UINT n,
        struct pairs *p)
{
    UINT i;

    ewt_case_init(c, b->op, 2, type, n, reference);
    edge_pairs(type, p);
    c->specials[0] = p->a;
    c->specials[1] = p->b;
    c->special_count = p->count;
    for (i = 0; i < 2 && ewt_is_float(type); ++i)
    {
        c->lo[i] = b->lo[i] || b->hi[i] ? b->lo[i] : -10.0;
        c->hi[i] = b->lo[i] || b->hi[i] ? b->hi[i] : 10.0;
    }
    if (ewt_is_float(type))
        c->zero_sign = is_exact(b);
    if (type == DML_TENSOR_DATA_TYPE_FLOAT32)
        c->tolerance = b->fp32;
    /* Integer POW: small bases and exponents, so that not everything wraps to 0. */
    if (b->op == DML_OPERATOR_ELEMENT_WISE_POW && !ewt_is_float(type))
    {
        c->lo[0] = ewt_is_signed(type) ? -9 : 0;
        c->hi[0] = 9;
        c->lo[1] = ewt_is_signed(type) ? -3 : 0;
        c->hi[1] = 12;
    }
}

/* Every operator in every type it takes, with every pair of edge values. */
static void test_types(void **state)
{
    struct dml_test_context *context = *state;
    unsigned int i, t, ran = 0;
    struct pairs *pairs;

    assert_non_null(pairs = malloc(sizeof(*pairs)));
    for (i = 0; i < ARRAY_SIZE(binary_ops); ++i)
    {
        for (t = 0; t < ARRAY_SIZE(ewt_all_types); ++t)
        {
            DML_TENSOR_DATA_TYPE type = ewt_all_types[t];
            struct ewt_case c;

            if (!(binary_ops[i].types & (1u << type)) || !dml_test_data_type_supported(context, type))
                continue;
            init_binary(&c, &binary_ops[i], type, 613, pairs);
            ewt_run(context, &c);
            ++ran;
        }
    }
    free(pairs);
    assert_true(ran >= 30);
}

/* Broadcasting (0-strides on either input), odd shapes and in-place execution. */
static void test_layouts(void **state)
{
    static const UINT sizes[] = {3, 5, 37};
    static const UINT row[] = {0, 0, 1}, column[] = {5, 1, 0}, transposed[] = {1, 3, 15};
    static const DML_TENSOR_DATA_TYPE types[] = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_INT16};
    struct dml_test_context *context = *state;
    unsigned int i, t;
    struct pairs *pairs;

    assert_non_null(pairs = malloc(sizeof(*pairs)));
    for (t = 0; t < ARRAY_SIZE(types); ++t)
    {
        if (!dml_test_data_type_supported(context, types[t]))
            continue;
        for (i = 0; i < ARRAY_SIZE(binary_ops); ++i)
        {
            struct ewt_case c;

            if (!(binary_ops[i].types & (1u << types[t])))
                continue;
            init_binary(&c, &binary_ops[i], types[t], 1, pairs);
            c.special_count = 0;
            ewt_set_sizes(&c, 3, sizes);
            c.strides[i % 2] = i % 4 < 2 ? row : column;
            c.strides[(i + 1) % 2] = i % 3 ? NULL : transposed;
            /* In place over A when A is not broadcast. */
            c.in_place = i % 2 && !c.strides[0];
            ewt_run(context, &c);
        }
    }
    free(pairs);
}

/* POW's ExponentTensor in another type than InputTensor: converted by value. */
static void test_pow_mixed_types(void **state)
{
    static const DML_TENSOR_DATA_TYPE pairs[][2] =
    {
        {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_INT32},
        {DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_INT8},
        {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_UINT16},
        {DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_FLOAT32},
        {DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_FLOAT16},
        {DML_TENSOR_DATA_TYPE_INT16, DML_TENSOR_DATA_TYPE_UINT8},
        {DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_INT8},
    };
    struct dml_test_context *context = *state;
    unsigned int i;

    for (i = 0; i < ARRAY_SIZE(pairs); ++i)
    {
        struct ewt_case c;

        ewt_case_init(&c, DML_OPERATOR_ELEMENT_WISE_POW, 2, pairs[i][0], 499, reference);
        c.types[1] = pairs[i][1];
        if (!ewt_types_supported(context, &c))
            continue;
        /* Bases and exponents small enough not to wrap to 0. */
        c.lo[0] = ewt_is_signed(pairs[i][0]) || ewt_is_float(pairs[i][0]) ? -6 : 0;
        c.hi[0] = 6;
        c.lo[1] = ewt_is_signed(pairs[i][1]) || ewt_is_float(pairs[i][1]) ? -4 : 0;
        c.hi[1] = 9;
        /* Float exponents of integer bases go through fp32 pow and truncate: keep x^f in (1, 2)
         * for x in [2, 6], away from every integer. */
        if (ewt_is_float(pairs[i][1]) && !ewt_is_float(pairs[i][0]))
            c.lo[1] = 0.05, c.hi[1] = 0.3;
        if (pairs[i][0] == DML_TENSOR_DATA_TYPE_FLOAT32)
            c.tolerance = (struct ewt_tolerance){3, 0};
        ewt_run(context, &c);
    }
}

/* Integral exponents as floats for integer bases: exact; a fractional one through fp32 pow. */
static struct ewt_value integral_exponents[] = {{2.0, 0}, {3.0, 0}, {-1.0, 0}, {0.0, 0}, {-2.5, 0}, {NAN, 0}};

static void test_pow_integer_float_exponent(void **state)
{
    struct dml_test_context *context = *state;
    struct ewt_value bases[ARRAY_SIZE(integral_exponents)];
    struct ewt_case c;
    unsigned int i;

    for (i = 0; i < ARRAY_SIZE(bases); ++i)
        bases[i] = ewt_i((int64_t)i - 2);
    ewt_case_init(&c, DML_OPERATOR_ELEMENT_WISE_POW, 2, DML_TENSOR_DATA_TYPE_INT32, 64, reference);
    c.types[1] = DML_TENSOR_DATA_TYPE_FLOAT32;
    c.specials[0] = bases;
    c.specials[1] = integral_exponents;
    c.special_count = ARRAY_SIZE(integral_exponents);
    c.lo[0] = -20;
    c.hi[0] = 20;
    /* x^f in (1, 2.5) for x in [2, 20]: never near an integer but for x = 0, 1 (exact). */
    c.lo[1] = 0.05;
    c.hi[1] = 0.3;
    ewt_run(context, &c);
}

/* IF: a UINT8 condition picks A or B, in every type (floats as bits: NaN payloads survive). */
static void test_if(void **state)
{
    static const UINT sizes[] = {4, 97};
    static const UINT broadcast[] = {0, 1};
    struct dml_test_context *context = *state;
    unsigned int t;

    for (t = 0; t < ARRAY_SIZE(ewt_all_types); ++t)
    {
        struct ewt_value specials[2][EWT_MAX_SPECIALS];
        struct ewt_case c;

        ewt_case_init(&c, DML_OPERATOR_ELEMENT_WISE_IF, 3, ewt_all_types[t], 1, reference);
        c.types[0] = DML_TENSOR_DATA_TYPE_UINT8;
        if (!ewt_types_supported(context, &c))
            continue;
        ewt_set_sizes(&c, 2, sizes);
        c.lo[0] = 0;
        c.hi[0] = 2;
        c.special_count = ewt_edge_values(ewt_all_types[t], specials[0]);
        ewt_edge_values(ewt_all_types[t], specials[1]);
        c.specials[1] = specials[0];
        c.specials[2] = specials[1];
        c.strides[t % 3] = t % 2 ? broadcast : NULL;
        c.zero_sign = true;
        ewt_run(context, &c);
    }
}

/* ---- Desc rules ---- */

static void test_invalid_descs(void **state)
{
    static const UINT sizes[] = {4, 5}, sizes2[] = {4, 6};
    struct dml_test_context *context = *state;
    struct dml_test_tensor f32, f32b, i32, u8, f64, i64;
    DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC sub;
    DML_ELEMENT_WISE_POW_OPERATOR_DESC pow_desc;
    DML_ELEMENT_WISE_IF_OPERATOR_DESC if_desc;
    DML_ELEMENT_WISE_MEAN_OPERATOR_DESC mean;
    DML_ELEMENT_WISE_ATAN_YX_OPERATOR_DESC atan_yx;

    dml_test_tensor_init(&f32, DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, NULL);
    dml_test_tensor_init(&f32b, DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes2, NULL);
    dml_test_tensor_init(&i32, DML_TENSOR_DATA_TYPE_INT32, 2, sizes, NULL);
    dml_test_tensor_init(&u8, DML_TENSOR_DATA_TYPE_UINT8, 2, sizes, NULL);
    dml_test_tensor_init(&f64, DML_TENSOR_DATA_TYPE_FLOAT64, 2, sizes, NULL);
    dml_test_tensor_init(&i64, DML_TENSOR_DATA_TYPE_INT64, 2, sizes, NULL);

    sub = (DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC){&f32.desc, &f32b.desc, &f32.desc};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_SUBTRACT, &sub,
            "CreateOperator(ELEMENT_WISE_SUBTRACT): BTensor.Sizes[1]=6 is not broadcastable to OutputTensor.Sizes[1]=5");
    sub = (DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC){&f64.desc, &f64.desc, &f64.desc};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_SUBTRACT, &sub,
            "OutputTensor.DataType=FLOAT64 must be FLOAT32, FLOAT16, UINT32, UINT16, UINT8, INT32, INT16, INT8, "
            "UINT64 or INT64.");
    pow_desc = (DML_ELEMENT_WISE_POW_OPERATOR_DESC){&f32.desc, &i64.desc, &f32.desc, NULL};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_POW, &pow_desc,
            "CreateOperator(ELEMENT_WISE_POW): ExponentTensor.DataType=INT64 must be FLOAT32, FLOAT16, UINT32, UINT16, "
            "UINT8, INT32, INT16 or INT8.");
    pow_desc = (DML_ELEMENT_WISE_POW_OPERATOR_DESC){&f32.desc, &i32.desc, &i32.desc, NULL};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_POW, &pow_desc,
            "InputTensor.DataType=FLOAT32 must equal OutputTensor.DataType=INT32.");
    if_desc = (DML_ELEMENT_WISE_IF_OPERATOR_DESC){&f32.desc, &f32.desc, &f32.desc, &f32.desc};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_IF, &if_desc,
            "CreateOperator(ELEMENT_WISE_IF): ConditionTensor.DataType=FLOAT32 must be UINT8.");
    if_desc = (DML_ELEMENT_WISE_IF_OPERATOR_DESC){&u8.desc, &f32.desc, &i32.desc, &f32.desc};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_IF, &if_desc,
            "BTensor.DataType=INT32 must equal OutputTensor.DataType=FLOAT32.");
    mean = (DML_ELEMENT_WISE_MEAN_OPERATOR_DESC){&u8.desc, &u8.desc, &u8.desc};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_MEAN, &mean,
            "CreateOperator(ELEMENT_WISE_MEAN): OutputTensor.DataType=UINT8 must be FLOAT32, FLOAT16, UINT32 "
            "or INT32.");
    atan_yx = (DML_ELEMENT_WISE_ATAN_YX_OPERATOR_DESC){&i32.desc, &i32.desc, &i32.desc};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_ATAN_YX, &atan_yx,
            "OutputTensor.DataType=INT32 must be FLOAT32 or FLOAT16.");
    assert_no_log_errors();
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
#define TEST(name) cmocka_unit_test_setup_teardown(name, dml_test_setup, dml_test_teardown)
        TEST(test_types),
        TEST(test_layouts),
        TEST(test_pow_mixed_types),
        TEST(test_pow_integer_float_exponent),
        TEST(test_if),
        TEST(test_invalid_descs),
#undef TEST
    };

    /* Logging first: it keeps the Vulkan driver loaded for LeakSanitizer (test_utils.c). */
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
