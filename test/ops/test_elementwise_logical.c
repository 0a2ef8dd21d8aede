/*
 * The logical, comparison and bitwise element-wise operators: LOGICAL_AND, OR, XOR, NOT;
 * LOGICAL_EQUALS, GREATER_THAN, LESS_THAN, GREATER_THAN_OR_EQUAL, LESS_THAN_OR_EQUAL (every
 * input type, UINT8 and UINT32 outputs); IS_NAN and IS_INFINITY (every mode); BIT_AND, OR, XOR,
 * NOT, SHIFT_LEFT, SHIFT_RIGHT and BIT_COUNT (every type: float tensors as their bits), against
 * exact references: every pair of edge values (NaN compares false, -0 == +0, integer extremes),
 * random values, broadcasting and the desc rules.
 *
 * vkdml's rule where DirectML is silent: shifting by the element's width or more gives 0.
 */
#include "elementwise_test.h"

#include <stdlib.h>

#define TYPE_BIT(t) (1u << DML_TENSOR_DATA_TYPE_##t)

/* ---- References ---- */

/* A float element's bits (FLOAT16 as binary16), zero-extended. */
static uint64_t float_bits(DML_TENSOR_DATA_TYPE type, double v)
{
    uint64_t bits = 0;
    float f = (float)v;

    if (type == DML_TENSOR_DATA_TYPE_FLOAT16)
        return ref_float_to_half(f);
    if (type == DML_TENSOR_DATA_TYPE_FLOAT32)
    {
        memcpy(&bits, &f, 4);
        return bits;
    }
    memcpy(&bits, &v, 8);
    return bits;
}

static double bits_float(DML_TENSOR_DATA_TYPE type, uint64_t bits)
{
    uint32_t u32 = (uint32_t)bits;
    double d;
    float f;

    if (type == DML_TENSOR_DATA_TYPE_FLOAT16)
        return ref_half_to_float((uint16_t)bits);
    if (type == DML_TENSOR_DATA_TYPE_FLOAT32)
    {
        memcpy(&f, &u32, 4);
        return f;
    }
    memcpy(&d, &bits, 8);
    return d;
}

/* An element as the bits of its encoding, of the type's width. */
static uint64_t encoding(DML_TENSOR_DATA_TYPE type, struct ewt_value v)
{
    unsigned int bits = ewt_bits(type);
    uint64_t u = ewt_is_float(type) ? float_bits(type, v.f) : v.u;

    return bits == 64 ? u : u & (((uint64_t)1 << bits) - 1);
}

static struct ewt_value from_encoding(DML_TENSOR_DATA_TYPE type, uint64_t u)
{
    if (ewt_is_float(type))
        return ewt_f(bits_float(type, u));
    return ewt_i((int64_t)ewt_wrap(type, u));
}

/* -1, 0 or 1 (2: unordered, a NaN). */
static int compare(DML_TENSOR_DATA_TYPE type, struct ewt_value a, struct ewt_value b)
{
    if (ewt_is_float(type))
        return isnan(a.f) || isnan(b.f) ? 2 : a.f < b.f ? -1 : a.f > b.f;
    if (ewt_is_signed(type))
        return (int64_t)a.u < (int64_t)b.u ? -1 : (int64_t)a.u > (int64_t)b.u;
    return a.u < b.u ? -1 : a.u > b.u;
}

static uint64_t shift(DML_OPERATOR_TYPE op, DML_TENSOR_DATA_TYPE type, uint64_t a, uint64_t b)
{
    unsigned int bits = ewt_bits(type);

    if (b >= bits)
        return 0;
    return op == DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_LEFT ? a << b : a >> b;
}

static struct ewt_value reference(const struct ewt_case *c, const struct ewt_value *x)
{
    DML_TENSOR_DATA_TYPE type = c->types[0];
    int order = c->inputs > 1 ? compare(type, x[0], x[1]) : 0;
    uint64_t a = encoding(type, x[0]), b = c->inputs > 1 ? encoding(type, x[1]) : 0;

    switch (c->op)
    {
        case DML_OPERATOR_ELEMENT_WISE_LOGICAL_AND: return ewt_i(a && b);
        case DML_OPERATOR_ELEMENT_WISE_LOGICAL_OR: return ewt_i(a || b);
        case DML_OPERATOR_ELEMENT_WISE_LOGICAL_XOR: return ewt_i(!a != !b);
        case DML_OPERATOR_ELEMENT_WISE_LOGICAL_NOT: return ewt_i(!a);
        case DML_OPERATOR_ELEMENT_WISE_LOGICAL_EQUALS: return ewt_i(order == 0);
        case DML_OPERATOR_ELEMENT_WISE_LOGICAL_GREATER_THAN: return ewt_i(order == 1);
        case DML_OPERATOR_ELEMENT_WISE_LOGICAL_LESS_THAN: return ewt_i(order == -1);
        case DML_OPERATOR_ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL: return ewt_i(order == 0 || order == 1);
        case DML_OPERATOR_ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL: return ewt_i(order == 0 || order == -1);
        /* glibc's isinf() is -1 for -inf. */
        case DML_OPERATOR_ELEMENT_WISE_IS_NAN: return ewt_i(isnan(x[0].f) != 0);
        case DML_OPERATOR_ELEMENT_WISE_IS_INFINITY:
            switch (((const DML_ELEMENT_WISE_IS_INFINITY_OPERATOR_DESC *)c->desc)->InfinityMode)
            {
                case DML_IS_INFINITY_MODE_POSITIVE: return ewt_i(x[0].f == INFINITY);
                case DML_IS_INFINITY_MODE_NEGATIVE: return ewt_i(x[0].f == -INFINITY);
                default: return ewt_i(isinf(x[0].f) != 0);
            }
        case DML_OPERATOR_ELEMENT_WISE_BIT_AND: return from_encoding(type, a & b);
        case DML_OPERATOR_ELEMENT_WISE_BIT_OR: return from_encoding(type, a | b);
        case DML_OPERATOR_ELEMENT_WISE_BIT_XOR: return from_encoding(type, a ^ b);
        case DML_OPERATOR_ELEMENT_WISE_BIT_NOT: return from_encoding(type, ~a);
        case DML_OPERATOR_ELEMENT_WISE_BIT_COUNT: return ewt_i(__builtin_popcountll(a));
        case DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_LEFT:
        case DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_RIGHT:
            return from_encoding(type, shift(c->op, type, a, b));
        default:
            fail_msg("no reference for %s", ewt_op_name(c->op));
            return ewt_i(0);
    }
}

/* ---- Cases ---- */

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

/* One case of `op` on inputs of `type` into `output` (0: the input type), with the type's edge
 * values (pairs for two inputs) first. */
static void run_op(struct dml_test_context *context, DML_OPERATOR_TYPE op, UINT inputs, DML_TENSOR_DATA_TYPE type,
        DML_TENSOR_DATA_TYPE output, const void *desc, size_t desc_size, struct pairs *pairs)
{
    struct ewt_case c;

    ewt_case_init(&c, op, inputs, type, 503, reference);
    if (output)
        c.types[EWT_OUT] = output;
    if (!ewt_types_supported(context, &c))
        return;
    c.desc = desc;
    c.desc_size = desc_size;
    edge_pairs(type, pairs);
    c.specials[0] = pairs->a;
    c.specials[1] = pairs->b;
    c.special_count = pairs->count;
    /* Logical operators: mostly 0 and 1, some other non-zero values. */
    if (op == DML_OPERATOR_ELEMENT_WISE_LOGICAL_AND || op == DML_OPERATOR_ELEMENT_WISE_LOGICAL_OR
            || op == DML_OPERATOR_ELEMENT_WISE_LOGICAL_XOR || op == DML_OPERATOR_ELEMENT_WISE_LOGICAL_NOT)
        c.lo[0] = c.lo[1] = 0, c.hi[0] = c.hi[1] = 3;
    /* Shifts: amounts around the element's width. */
    if (op == DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_LEFT || op == DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_RIGHT)
        c.lo[1] = 0, c.hi[1] = ewt_bits(type) + 8;
    /* Comparisons of floats: few distinct values, so that equality happens. */
    if (ewt_is_float(type) && output)
        c.lo[0] = c.lo[1] = -2, c.hi[0] = c.hi[1] = 2;
    ewt_run(context, &c);
}

static void test_logical(void **state)
{
    static const DML_OPERATOR_TYPE ops[] =
    {
        DML_OPERATOR_ELEMENT_WISE_LOGICAL_AND, DML_OPERATOR_ELEMENT_WISE_LOGICAL_OR,
        DML_OPERATOR_ELEMENT_WISE_LOGICAL_XOR, DML_OPERATOR_ELEMENT_WISE_LOGICAL_NOT,
    };
    static const DML_TENSOR_DATA_TYPE types[] = {DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_UINT32};
    struct dml_test_context *context = *state;
    struct pairs *pairs;
    unsigned int i, t;

    assert_non_null(pairs = malloc(sizeof(*pairs)));
    for (i = 0; i < ARRAY_SIZE(ops); ++i)
    {
        for (t = 0; t < ARRAY_SIZE(types); ++t)
            run_op(context, ops[i], i == 3 ? 1 : 2, types[t], 0, NULL, 0, pairs);
    }
    free(pairs);
}

/* Every comparison in every input type, into UINT8 or UINT32 (alternately). */
static void test_comparisons(void **state)
{
    static const DML_OPERATOR_TYPE ops[] =
    {
        DML_OPERATOR_ELEMENT_WISE_LOGICAL_EQUALS, DML_OPERATOR_ELEMENT_WISE_LOGICAL_GREATER_THAN,
        DML_OPERATOR_ELEMENT_WISE_LOGICAL_LESS_THAN, DML_OPERATOR_ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL,
        DML_OPERATOR_ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL,
    };
    struct dml_test_context *context = *state;
    unsigned int i, t, n = 0;
    struct pairs *pairs;

    assert_non_null(pairs = malloc(sizeof(*pairs)));
    for (i = 0; i < ARRAY_SIZE(ops); ++i)
    {
        for (t = 0; t < ARRAY_SIZE(ewt_all_types); ++t)
        {
            if (ewt_all_types[t] == DML_TENSOR_DATA_TYPE_FLOAT64)
                continue;
            run_op(context, ops[i], 2, ewt_all_types[t],
                    n++ % 2 ? DML_TENSOR_DATA_TYPE_UINT32 : DML_TENSOR_DATA_TYPE_UINT8, NULL, 0, pairs);
        }
    }
    free(pairs);
}

static void test_is_nan_is_infinity(void **state)
{
    static const DML_IS_INFINITY_MODE modes[] =
            {DML_IS_INFINITY_MODE_EITHER, DML_IS_INFINITY_MODE_POSITIVE, DML_IS_INFINITY_MODE_NEGATIVE};
    static const DML_TENSOR_DATA_TYPE types[] = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16};
    struct dml_test_context *context = *state;
    struct pairs *pairs;
    unsigned int i, t;

    assert_non_null(pairs = malloc(sizeof(*pairs)));
    for (t = 0; t < ARRAY_SIZE(types); ++t)
    {
        run_op(context, DML_OPERATOR_ELEMENT_WISE_IS_NAN, 1, types[t], DML_TENSOR_DATA_TYPE_UINT8, NULL, 0, pairs);
        run_op(context, DML_OPERATOR_ELEMENT_WISE_IS_NAN, 1, types[t], DML_TENSOR_DATA_TYPE_UINT32, NULL, 0, pairs);
        for (i = 0; i < ARRAY_SIZE(modes); ++i)
        {
            DML_ELEMENT_WISE_IS_INFINITY_OPERATOR_DESC desc = {NULL, NULL, modes[i]};

            run_op(context, DML_OPERATOR_ELEMENT_WISE_IS_INFINITY, 1, types[t], DML_TENSOR_DATA_TYPE_UINT8,
                    &desc, sizeof(desc), pairs);
        }
    }
    free(pairs);
}

/* BIT_AND, OR, XOR, NOT in every type (floats as bits), shifts in the unsigned types, BIT_COUNT
 * of every type into UINT8 and UINT32. */
static void test_bitwise(void **state)
{
    static const DML_OPERATOR_TYPE ops[] =
    {
        DML_OPERATOR_ELEMENT_WISE_BIT_AND, DML_OPERATOR_ELEMENT_WISE_BIT_OR, DML_OPERATOR_ELEMENT_WISE_BIT_XOR,
        DML_OPERATOR_ELEMENT_WISE_BIT_NOT,
    };
    static const uint32_t shift_types = TYPE_BIT(UINT8) | TYPE_BIT(UINT16) | TYPE_BIT(UINT32) | TYPE_BIT(UINT64);
    struct dml_test_context *context = *state;
    unsigned int i, t;
    struct pairs *pairs;

    assert_non_null(pairs = malloc(sizeof(*pairs)));
    for (t = 0; t < ARRAY_SIZE(ewt_all_types); ++t)
    {
        DML_TENSOR_DATA_TYPE type = ewt_all_types[t];

        /* One of the four per type, all four in 32- and 64-bit types. */
        for (i = 0; i < ARRAY_SIZE(ops); ++i)
        {
            if (ewt_bits(type) >= 32 || i == t % ARRAY_SIZE(ops))
                run_op(context, ops[i], i == 3 ? 1 : 2, type, 0, NULL, 0, pairs);
        }
        if (shift_types & (1u << type))
        {
            run_op(context, DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_LEFT, 2, type, 0, NULL, 0, pairs);
            run_op(context, DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_RIGHT, 2, type, 0, NULL, 0, pairs);
        }
        run_op(context, DML_OPERATOR_ELEMENT_WISE_BIT_COUNT, 1, type,
                t % 2 ? DML_TENSOR_DATA_TYPE_UINT32 : DML_TENSOR_DATA_TYPE_UINT8, NULL, 0, pairs);
    }
    free(pairs);
}

/* Broadcast inputs and a transposed output, into UINT8 (the vector path from wider inputs). */
static void test_layouts(void **state)
{
    static const UINT sizes[] = {4, 6, 32};
    static const UINT row[] = {0, 0, 1}, transposed[] = {1, 4, 24};
    static const DML_TENSOR_DATA_TYPE types[] =
            {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_INT64};
    struct dml_test_context *context = *state;
    unsigned int t, layout;

    for (t = 0; t < ARRAY_SIZE(types); ++t)
    {
        for (layout = 0; layout < 3; ++layout)
        {
            struct ewt_case c;

            ewt_case_init(&c, DML_OPERATOR_ELEMENT_WISE_LOGICAL_LESS_THAN, 2, types[t], 1, reference);
            c.types[EWT_OUT] = DML_TENSOR_DATA_TYPE_UINT8;
            if (!ewt_types_supported(context, &c))
                continue;
            ewt_set_sizes(&c, 3, sizes);
            c.strides[1] = layout != 1 ? row : NULL;
            c.strides[EWT_OUT] = layout == 2 ? transposed : NULL;
            c.lo[0] = c.lo[1] = -3;
            c.hi[0] = c.hi[1] = 3;
            ewt_run(context, &c);
        }
    }
}

/* ---- Desc rules ---- */

static void test_invalid_descs(void **state)
{
    static const UINT sizes[] = {4, 5};
    struct dml_test_context *context = *state;
    struct dml_test_tensor f32, i32, u8, u16, u32, f64;
    DML_ELEMENT_WISE_LOGICAL_EQUALS_OPERATOR_DESC equals;
    DML_ELEMENT_WISE_LOGICAL_AND_OPERATOR_DESC and;
    DML_ELEMENT_WISE_IS_INFINITY_OPERATOR_DESC is_infinity;
    DML_ELEMENT_WISE_BIT_SHIFT_LEFT_OPERATOR_DESC shift_left;
    DML_ELEMENT_WISE_BIT_COUNT_OPERATOR_DESC bit_count;

    dml_test_tensor_init(&f32, DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, NULL);
    dml_test_tensor_init(&i32, DML_TENSOR_DATA_TYPE_INT32, 2, sizes, NULL);
    dml_test_tensor_init(&u8, DML_TENSOR_DATA_TYPE_UINT8, 2, sizes, NULL);
    dml_test_tensor_init(&u16, DML_TENSOR_DATA_TYPE_UINT16, 2, sizes, NULL);
    dml_test_tensor_init(&u32, DML_TENSOR_DATA_TYPE_UINT32, 2, sizes, NULL);
    dml_test_tensor_init(&f64, DML_TENSOR_DATA_TYPE_FLOAT64, 2, sizes, NULL);

    equals = (DML_ELEMENT_WISE_LOGICAL_EQUALS_OPERATOR_DESC){&f32.desc, &i32.desc, &u8.desc};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_LOGICAL_EQUALS, &equals,
            "CreateOperator(ELEMENT_WISE_LOGICAL_EQUALS): BTensor.DataType=INT32 must equal ATensor.DataType=FLOAT32.");
    equals = (DML_ELEMENT_WISE_LOGICAL_EQUALS_OPERATOR_DESC){&f32.desc, &f32.desc, &f32.desc};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_LOGICAL_EQUALS, &equals,
            "OutputTensor.DataType=FLOAT32 must be UINT32 or UINT8.");
    equals = (DML_ELEMENT_WISE_LOGICAL_EQUALS_OPERATOR_DESC){&f64.desc, &f64.desc, &u8.desc};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_LOGICAL_EQUALS, &equals,
            "ATensor.DataType=FLOAT64 must be FLOAT32, FLOAT16, UINT32, UINT16, UINT8, INT32, INT16, INT8, UINT64 "
            "or INT64.");
    and = (DML_ELEMENT_WISE_LOGICAL_AND_OPERATOR_DESC){&u16.desc, &u16.desc, &u16.desc};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_LOGICAL_AND, &and,
            "CreateOperator(ELEMENT_WISE_LOGICAL_AND): OutputTensor.DataType=UINT16 must be UINT32 or UINT8.");
    is_infinity = (DML_ELEMENT_WISE_IS_INFINITY_OPERATOR_DESC){&f32.desc, &u32.desc, DML_IS_INFINITY_MODE_EITHER};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_IS_INFINITY, &is_infinity,
            "OutputTensor.DataType=UINT32 must be UINT8.");
    shift_left = (DML_ELEMENT_WISE_BIT_SHIFT_LEFT_OPERATOR_DESC){&i32.desc, &i32.desc, &i32.desc};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_LEFT, &shift_left,
            "OutputTensor.DataType=INT32 must be UINT32, UINT16, UINT8 or UINT64.");
    bit_count = (DML_ELEMENT_WISE_BIT_COUNT_OPERATOR_DESC){&u32.desc, &u16.desc};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_BIT_COUNT, &bit_count,
            "CreateOperator(ELEMENT_WISE_BIT_COUNT): OutputTensor.DataType=UINT16 must be UINT32 or UINT8.");
    assert_no_log_errors();
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
#define TEST(name) cmocka_unit_test_setup_teardown(name, dml_test_setup, dml_test_teardown)
        TEST(test_logical),
        TEST(test_comparisons),
        TEST(test_is_nan_is_infinity),
        TEST(test_bitwise),
        TEST(test_layouts),
        TEST(test_invalid_descs),
#undef TEST
    };

    /* Logging first: it keeps the Vulkan driver loaded for LeakSanitizer (test_utils.c). */
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
