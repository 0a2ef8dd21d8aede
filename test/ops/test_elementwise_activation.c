/*
 * The element-wise ACTIVATION_* operators: ELU, CELU, GELU, HARD_SIGMOID, HARD_SWISH, IDENTITY,
 * LEAKY_RELU, LINEAR, PARAMETERIZED_RELU (SlopeTensor, broadcast or not), PARAMETRIC_SOFTPLUS,
 * RELU, SCALED_ELU, SCALED_TANH, SHRINK, SIGMOID, SOFTPLUS, SOFTSIGN, SWISH, TANH and
 * THRESHOLDED_RELU, in every data type DirectML lists for them (RELU, PARAMETERIZED_RELU and
 * SHRINK take integers too), against their definitions in double precision: edge values (NaN
 * stays NaN, infinities go to the function's limits), random values, in-place execution and the
 * desc rules.
 *
 * Tolerances (FLOAT32; FLOAT16 allows 1 fp16 ulp): exact, zeros with their sign: IDENTITY, RELU,
 * LEAKY_RELU, THRESHOLDED_RELU, PARAMETERIZED_RELU, SHRINK; 2 ulp + 1e-7 absolute where alpha x +
 * beta cancels: LINEAR, HARD_SIGMOID, HARD_SWISH, SOFTSIGN; the transcendental ones
 * (kernels_glsl/include/activation.glsl: its helpers are within 5e-7 relative of double libm, the
 * device's exp adds its own error; lavapipe needs 7 ulp) 10 ulp + 1e-7 absolute (where elu's and softplus' tails are
 * results of exp(large negative)). Integer SHRINK compares exactly and subtracts Bias truncated
 * toward zero.
 */
#include "elementwise_test.h"

#define TYPE_BIT(t) (1u << DML_TENSOR_DATA_TYPE_##t)
#define FLOATS (TYPE_BIT(FLOAT32) | TYPE_BIT(FLOAT16))
#define SIGNED (TYPE_BIT(INT32) | TYPE_BIT(INT16) | TYPE_BIT(INT8))
#define UNSIGNED (TYPE_BIT(UINT32) | TYPE_BIT(UINT16) | TYPE_BIT(UINT8))

/* ---- References ---- */

/* Integer SHRINK: x < -Threshold gives x + trunc(Bias), x > Threshold gives x - trunc(Bias), else 0. */
static uint64_t int_shrink(DML_TENSOR_DATA_TYPE type, const DML_ACTIVATION_SHRINK_OPERATOR_DESC *s, uint64_t x)
{
    double v = ewt_is_signed(type) ? (double)(int64_t)x : (double)x;
    int64_t bias = (int64_t)trunc(s->Bias);

    if (v < -s->Threshold)
        return x + (uint64_t)bias;
    if (v > s->Threshold)
        return x - (uint64_t)bias;
    return 0;
}

static struct ewt_value reference(const struct ewt_case *c, const struct ewt_value *x)
{
    DML_OPERATOR_DESC activation = {c->op, c->desc};
    DML_TENSOR_DATA_TYPE type = c->types[0];

    if (c->op == DML_OPERATOR_ACTIVATION_PARAMETERIZED_RELU)
    {
        if (ewt_is_float(type))
            return ewt_f(x[0].f < 0.0 ? x[0].f * x[1].f : x[0].f);
        return ewt_i((int64_t)((int64_t)x[0].u < 0 ? x[0].u * x[1].u : x[0].u));
    }
    if (ewt_is_float(type))
        return ewt_f(ewt_activation(&activation, x[0].f));
    if (c->op == DML_OPERATOR_ACTIVATION_RELU)
        return ewt_i((int64_t)x[0].u < 0 ? 0 : (int64_t)x[0].u);
    return ewt_i((int64_t)int_shrink(type, c->desc, x[0].u));
}

/* ---- The operators, with typical and unusual attributes ---- */

static const DML_ACTIVATION_ELU_OPERATOR_DESC elu = {NULL, NULL, 1.3f};
static const DML_ACTIVATION_CELU_OPERATOR_DESC celu = {NULL, NULL, 0.8f};
static const DML_ACTIVATION_GELU_OPERATOR_DESC gelu = {NULL, NULL};
static const DML_ACTIVATION_HARD_SIGMOID_OPERATOR_DESC hard_sigmoid = {NULL, NULL, 0.2f, 0.5f};
static const DML_ACTIVATION_HARD_SWISH_OPERATOR_DESC hard_swish = {NULL, NULL, 1.0f / 6.0f, 0.5f};
static const DML_ACTIVATION_IDENTITY_OPERATOR_DESC identity = {NULL, NULL};
static const DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC leaky_relu = {NULL, NULL, 0.01f};
static const DML_ACTIVATION_LINEAR_OPERATOR_DESC linear = {NULL, NULL, 0.75f, -1.5f};
static const DML_ACTIVATION_PARAMETERIZED_RELU_OPERATOR_DESC prelu = {NULL, NULL, NULL};
static const DML_ACTIVATION_PARAMETRIC_SOFTPLUS_OPERATOR_DESC parametric_softplus = {NULL, NULL, 1.5f, 0.5f};
static const DML_ACTIVATION_RELU_OPERATOR_DESC relu = {NULL, NULL};
static const DML_ACTIVATION_SCALED_ELU_OPERATOR_DESC scaled_elu = {NULL, NULL, 1.67326f, 1.0507f};
static const DML_ACTIVATION_SCALED_TANH_OPERATOR_DESC scaled_tanh = {NULL, NULL, 1.7159f, 0.6667f};
static const DML_ACTIVATION_SHRINK_OPERATOR_DESC shrink = {NULL, NULL, 1.0f, 0.25f};
static const DML_ACTIVATION_SIGMOID_OPERATOR_DESC sigmoid = {NULL, NULL};
static const DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC softplus = {NULL, NULL, 2.0f};
static const DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC softplus_gentle = {NULL, NULL, 0.5f};     /* Steepness < 1: FL 6_4 */
static const DML_ACTIVATION_SOFTSIGN_OPERATOR_DESC softsign = {NULL, NULL};
static const DML_ACTIVATION_SWISH_OPERATOR_DESC swish = {NULL, NULL, 1.702f};
static const DML_ACTIVATION_TANH_OPERATOR_DESC tanh_desc = {NULL, NULL};
static const DML_ACTIVATION_THRESHOLDED_RELU_OPERATOR_DESC thresholded_relu = {NULL, NULL, 1.5f};

struct activation
{
    DML_OPERATOR_TYPE op;
    const void *desc;
    size_t desc_size;
    uint32_t types;             /* DirectML's tensor-support table at FL 6_4 */
    struct ewt_tolerance fp32;
};

#define EXACT {0, 0}
#define AFFINE {2, 1e-7}
#define TRANSCENDENTAL {10, 1e-7}
#define ACTIVATION(name, desc, types, tolerance) {DML_OPERATOR_ACTIVATION_##name, &desc, sizeof(desc), types, tolerance}

static const struct activation activations[] =
{
    ACTIVATION(ELU, elu, FLOATS, TRANSCENDENTAL),
    ACTIVATION(CELU, celu, FLOATS, TRANSCENDENTAL),
    ACTIVATION(GELU, gelu, FLOATS, TRANSCENDENTAL),
    ACTIVATION(HARD_SIGMOID, hard_sigmoid, FLOATS, AFFINE),
    ACTIVATION(HARD_SWISH, hard_swish, FLOATS, AFFINE),
    ACTIVATION(IDENTITY, identity, FLOATS, EXACT),
    ACTIVATION(LEAKY_RELU, leaky_relu, FLOATS, EXACT),
    ACTIVATION(LINEAR, linear, FLOATS, AFFINE),
    ACTIVATION(PARAMETERIZED_RELU, prelu, FLOATS | SIGNED, EXACT),
    ACTIVATION(PARAMETRIC_SOFTPLUS, parametric_softplus, FLOATS, TRANSCENDENTAL),
    ACTIVATION(RELU, relu, FLOATS | SIGNED, EXACT),
    ACTIVATION(SCALED_ELU, scaled_elu, FLOATS, TRANSCENDENTAL),
    ACTIVATION(SCALED_TANH, scaled_tanh, FLOATS, TRANSCENDENTAL),
    ACTIVATION(SHRINK, shrink, FLOATS | SIGNED | UNSIGNED, EXACT),
    ACTIVATION(SIGMOID, sigmoid, FLOATS, TRANSCENDENTAL),
    ACTIVATION(SOFTPLUS, softplus, FLOATS, TRANSCENDENTAL),
    ACTIVATION(SOFTPLUS, softplus_gentle, TYPE_BIT(FLOAT32), TRANSCENDENTAL),
    ACTIVATION(SOFTSIGN, softsign, FLOATS, AFFINE),
    ACTIVATION(SWISH, swish, FLOATS, TRANSCENDENTAL),
    ACTIVATION(TANH, tanh_desc, FLOATS, TRANSCENDENTAL),
    ACTIVATION(THRESHOLDED_RELU, thresholded_relu, FLOATS, EXACT),
};

#undef ACTIVATION

static void init_activation(struct ewt_case *c, const struct activation *a, DML_TENSOR_DATA_TYPE type,
        struct ewt_value *specials)
{
    bool prelu_op = a->op == DML_OPERATOR_ACTIVATION_PARAMETERIZED_RELU;

    ewt_case_init(c, a->op, prelu_op ? 2 : 1, type, 509, reference);
    c->desc = a->desc;
    c->desc_size = a->desc_size;
    c->special_count = ewt_edge_values(type, specials);
    c->specials[0] = specials;
    if (ewt_is_float(type))
    {
        /* Both tails of every function and the region around 0. */
        c->lo[0] = -12.0;
        c->hi[0] = 12.0;
        c->lo[1] = -2.0;
        c->hi[1] = 2.0;
        c->zero_sign = !a->fp32.ulps && !a->fp32.abs;
    }
    if (type == DML_TENSOR_DATA_TYPE_FLOAT32)
        c->tolerance = a->fp32;
    if (prelu_op && !ewt_is_float(type))
        c->lo[1] = -5, c->hi[1] = 5;
}

static void test_types(void **state)
{
    struct dml_test_context *context = *state;
    struct ewt_value specials[EWT_MAX_SPECIALS];
    unsigned int i, t, ran = 0;

    for (i = 0; i < ARRAY_SIZE(activations); ++i)
    {
        for (t = 0; t < ARRAY_SIZE(ewt_all_types); ++t)
        {
            DML_TENSOR_DATA_TYPE type = ewt_all_types[t];
            struct ewt_case c;

            if (!(activations[i].types & (1u << type)) || !dml_test_data_type_supported(context, type))
                continue;
            init_activation(&c, &activations[i], type, specials);
            ewt_run(context, &c);
            ++ran;
        }
    }
    assert_true(ran >= 20);
}

/* PARAMETERIZED_RELU's slope broadcast per channel, in place over the input. */
static void test_prelu_broadcast(void **state)
{
    static const UINT sizes[] = {2, 3, 5, 7};
    static const UINT per_channel[] = {0, 1, 0, 0};
    static const DML_TENSOR_DATA_TYPE types[] = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_INT8};
    struct dml_test_context *context = *state;
    struct ewt_value specials[EWT_MAX_SPECIALS];
    unsigned int t;

    for (t = 0; t < ARRAY_SIZE(types); ++t)
    {
        struct ewt_case c;

        if (!dml_test_data_type_supported(context, types[t]))
            continue;
        init_activation(&c, &activations[8], types[t], specials);
        ewt_set_sizes(&c, 4, sizes);
        c.special_count = 0;
        c.strides[1] = per_channel;
        c.in_place = true;
        ewt_run(context, &c);
    }
}

/* SHRINK on integers with thresholds and biases that are not integers, negative, or beyond the
 * type's range. */
static void test_integer_shrink(void **state)
{
    static const DML_ACTIVATION_SHRINK_OPERATOR_DESC shrinks[] =
    {
        {NULL, NULL, 2.0f, 3.0f}, {NULL, NULL, -1.5f, 0.5f}, {NULL, NULL, 0.75f, -2.5f}, {NULL, NULL, 1.0f, 1e10f},
    };
    static const DML_TENSOR_DATA_TYPE types[] =
            {DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_INT16};
    struct dml_test_context *context = *state;
    struct ewt_value specials[EWT_MAX_SPECIALS];
    unsigned int i;

    for (i = 0; i < ARRAY_SIZE(shrinks); ++i)
    {
        struct activation a = {DML_OPERATOR_ACTIVATION_SHRINK, &shrinks[i], sizeof(shrinks[i]), 0, EXACT};
        DML_TENSOR_DATA_TYPE type = types[i % ARRAY_SIZE(types)];
        struct ewt_case c;

        if (!dml_test_data_type_supported(context, type))
            continue;
        init_activation(&c, &a, type, specials);
        c.lo[0] = -20;
        c.hi[0] = 20;
        if (!ewt_is_signed(type))
            c.lo[0] = 0;
        ewt_run(context, &c);
    }
}

/* ---- Desc rules ---- */

static void test_invalid_descs(void **state)
{
    static const UINT sizes[] = {4, 5}, sizes2[] = {4, 1};
    struct dml_test_context *context = *state;
    struct dml_test_tensor f32, f32b, i32, u32, f16;
    DML_ACTIVATION_PARAMETERIZED_RELU_OPERATOR_DESC prelu_desc;
    DML_ACTIVATION_SIGMOID_OPERATOR_DESC sigmoid_desc;
    DML_ACTIVATION_RELU_OPERATOR_DESC relu_desc;

    dml_test_tensor_init(&f32, DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, NULL);
    dml_test_tensor_init(&f32b, DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes2, NULL);
    dml_test_tensor_init(&i32, DML_TENSOR_DATA_TYPE_INT32, 2, sizes, NULL);
    dml_test_tensor_init(&u32, DML_TENSOR_DATA_TYPE_UINT32, 2, sizes, NULL);
    dml_test_tensor_init(&f16, DML_TENSOR_DATA_TYPE_FLOAT16, 2, sizes, NULL);

    prelu_desc = (DML_ACTIVATION_PARAMETERIZED_RELU_OPERATOR_DESC){&f32.desc, &f32b.desc, &f32.desc};
    dml_test_expect_invalid(context, DML_OPERATOR_ACTIVATION_PARAMETERIZED_RELU, &prelu_desc,
            "CreateOperator(ACTIVATION_PARAMETERIZED_RELU): SlopeTensor.Sizes[1]=1 is not broadcastable "
            "to OutputTensor.Sizes[1]=5");
    prelu_desc = (DML_ACTIVATION_PARAMETERIZED_RELU_OPERATOR_DESC){&u32.desc, &u32.desc, &u32.desc};
    dml_test_expect_invalid(context, DML_OPERATOR_ACTIVATION_PARAMETERIZED_RELU, &prelu_desc,
            "OutputTensor.DataType=UINT32 must be FLOAT32, FLOAT16, INT32, INT16 or INT8.");
    sigmoid_desc = (DML_ACTIVATION_SIGMOID_OPERATOR_DESC){&i32.desc, &i32.desc};
    dml_test_expect_invalid(context, DML_OPERATOR_ACTIVATION_SIGMOID, &sigmoid_desc,
            "CreateOperator(ACTIVATION_SIGMOID): OutputTensor.DataType=INT32 must be FLOAT32 or FLOAT16.");
    relu_desc = (DML_ACTIVATION_RELU_OPERATOR_DESC){&f32.desc, &f16.desc};
    dml_test_expect_invalid(context, DML_OPERATOR_ACTIVATION_RELU, &relu_desc,
            "InputTensor.DataType=FLOAT32 must equal OutputTensor.DataType=FLOAT16.");
    assert_no_log_errors();
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
#define TEST(name) cmocka_unit_test_setup_teardown(name, dml_test_setup, dml_test_teardown)
        TEST(test_types),
        TEST(test_prelu_broadcast),
        TEST(test_integer_shrink),
        TEST(test_invalid_descs),
#undef TEST
    };

    /* Logging first: it keeps the Vulkan driver loaded for LeakSanitizer (test_utils.c). */
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
