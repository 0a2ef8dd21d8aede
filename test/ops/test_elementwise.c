/*
 * The element-wise family's layouts and rules, through ELEMENT_WISE_IDENTITY, ADD, ADD1,
 * MULTIPLY and ACTIVATION_RELU: ranks 1-8 with odd sizes, padded / transposed / 0-stride
 * (broadcast) layouts, the vector path in every element size, every data type DirectML allows
 * for these operators (those the device supports), ScaleBias, ADD1 with every fusible
 * activation, NaN propagation, in-place execution, bindings at offsets, OWNED_BY_DML inputs,
 * more elements than one row of workgroups covers and more than 2^24 at a buffer offset, and the
 * desc rules (E_INVALIDARG with one log line each). Every operator and type of the family is
 * tested against its reference in test_elementwise_{unary,binary,logical,activation}.c; the
 * harness (elementwise_test.h) compares element by element and checks that no byte outside the
 * output elements changes.
 */
#include "elementwise_test.h"

#include <stddef.h>

#define MAX_INPUTS 2

/* The cases of this file: one of the five operators on tensors of one type. */
struct tolerance
{
    double abs, rel;
};

struct ew_case
{
    DML_OPERATOR_TYPE op;
    DML_TENSOR_DATA_TYPE type;
    UINT rank;
    UINT sizes[DML_TENSOR_DIMENSION_COUNT_MAX1];
    const UINT *strides[MAX_INPUTS + 1];        /* per input, then the output; NULL = packed */
    const DML_SCALE_BIAS *scale_bias;           /* IDENTITY */
    const DML_OPERATOR_DESC *activation;        /* ADD1 */
    bool in_place;                              /* the output is bound over input 0 (same layout) */
    bool owned;                                 /* the inputs are OWNED_BY_DML */
    UINT64 binding_offset;                      /* every binding starts this far into its buffer */
    float range;                                /* float inputs in [-range, range]; 0: 10 */
    struct tolerance tolerance;                 /* 0: the type's default */
};

static UINT input_count(DML_OPERATOR_TYPE op)
{
    return op == DML_OPERATOR_ELEMENT_WISE_IDENTITY || op == DML_OPERATOR_ACTIVATION_RELU ? 1 : 2;
}

/* The reference: a desc of tensors only, or IDENTITY's ScaleBias, or ADD1's activation. */
static struct ewt_value reference(const struct ewt_case *c, const struct ewt_value *x)
{
    const DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC *identity = c->desc;
    const DML_ELEMENT_WISE_ADD1_OPERATOR_DESC *add1 = c->desc;
    DML_TENSOR_DATA_TYPE type = c->types[0];
    struct ewt_value y = {0.0, 0};

    if (ewt_is_float(type))
    {
        double a = x[0].f;

        if (c->op == DML_OPERATOR_ELEMENT_WISE_IDENTITY && identity && identity->ScaleBias)
            a = a * identity->ScaleBias->Scale + identity->ScaleBias->Bias;
        if (c->op == DML_OPERATOR_ELEMENT_WISE_ADD || c->op == DML_OPERATOR_ELEMENT_WISE_ADD1)
            a += x[1].f;
        else if (c->op == DML_OPERATOR_ELEMENT_WISE_MULTIPLY)
            a *= x[1].f;
        /* The kernel rounds the sum to fp32 before the activation; so does the reference. */
        if (type != DML_TENSOR_DATA_TYPE_FLOAT64)
            a = (float)a;
        if (c->op == DML_OPERATOR_ACTIVATION_RELU)
            a = a <= 0.0 ? 0.0 : a;
        y.f = ewt_activation(c->op == DML_OPERATOR_ELEMENT_WISE_ADD1 && add1 ? add1->FusedActivation : NULL, a);
        return y;
    }
    y.u = x[0].u;
    if (c->op == DML_OPERATOR_ELEMENT_WISE_ADD)
        y.u += x[1].u;
    else if (c->op == DML_OPERATOR_ELEMENT_WISE_MULTIPLY)
        y.u *= x[1].u;
    else if (c->op == DML_OPERATOR_ACTIVATION_RELU && ewt_is_signed(type) && (int64_t)y.u < 0)
        y.u = 0;
    return y;
}

static void run_case(struct dml_test_context *context, const struct ew_case *c)
{
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity = {NULL, NULL, c->scale_bias};
    DML_ELEMENT_WISE_ADD1_OPERATOR_DESC add1 = {NULL, NULL, NULL, c->activation};
    UINT inputs = input_count(c->op), i;
    struct ewt_case e;

    ewt_case_init(&e, c->op, inputs, c->type, 1, reference);
    ewt_set_sizes(&e, c->rank, c->sizes);
    for (i = 0; i < inputs; ++i)
    {
        e.strides[i] = c->strides[i];
        e.lo[i] = c->range ? -c->range : -10.0;
        e.hi[i] = c->range ? c->range : 10.0;
        if (!ewt_is_float(c->type))
            e.lo[i] = e.hi[i] = 0.0;        /* integers over their full range, so that ADD/MULTIPLY wrap */
    }
    e.strides[EWT_OUT] = c->strides[MAX_INPUTS];
    if (c->op == DML_OPERATOR_ELEMENT_WISE_IDENTITY)
    {
        e.desc = &identity;
        e.desc_size = sizeof(identity);
    }
    else if (c->op == DML_OPERATOR_ELEMENT_WISE_ADD1)
    {
        e.desc = &add1;
        e.desc_size = sizeof(add1);
    }
    e.in_place = c->in_place;
    e.owned = c->owned;
    e.binding_offset = c->binding_offset;
    /* abs + rel |x| as ulps of the type (ulp(x) >= 2^-(mantissa bits + 1) |x|). */
    e.tolerance = (struct ewt_tolerance){c->tolerance.rel * ldexp(1.0, c->type == DML_TENSOR_DATA_TYPE_FLOAT16 ? 11
            : c->type == DML_TENSOR_DATA_TYPE_FLOAT64 ? 53 : 24), c->tolerance.abs};
    ewt_run(context, &e);
}

static void set_sizes(struct ew_case *c, UINT rank, const UINT *sizes)
{
    c->rank = rank;
    memcpy(c->sizes, sizes, rank * sizeof(*sizes));
}

static bool op_allows_type(DML_OPERATOR_TYPE op, DML_TENSOR_DATA_TYPE type);

/* ---- Shapes ---- */

static void test_shapes(void **state)
{
    static const struct { UINT rank; UINT sizes[8]; } shapes[] =
    {
        {1, {1}}, {1, {3}}, {1, {129}}, {1, {4096 + 7}},
        {2, {7, 3}}, {2, {1, 129}},
        {3, {3, 1, 7}}, {4, {2, 3, 7, 5}}, {5, {1, 3, 1, 7, 2}},
        {6, {2, 1, 3, 2, 1, 7}}, {7, {2, 3, 1, 2, 3, 1, 5}}, {8, {2, 3, 2, 1, 3, 2, 2, 3}},
        {8, {1, 1, 1, 1, 1, 1, 1, 1}},
    };
    static const DML_OPERATOR_TYPE ops[] = {DML_OPERATOR_ELEMENT_WISE_ADD, DML_OPERATOR_ELEMENT_WISE_MULTIPLY};
    struct dml_test_context *context = *state;
    unsigned int i;

    for (i = 0; i < ARRAY_SIZE(shapes); ++i)
    {
        struct ew_case c = {ops[i % ARRAY_SIZE(ops)], DML_TENSOR_DATA_TYPE_FLOAT32};

        set_sizes(&c, shapes[i].rank, shapes[i].sizes);
        run_case(context, &c);
    }
}

/* Padded, transposed and broadcast layouts on every tensor, in several types. */
static void test_strides(void **state)
{
    /* {4, 3, 5}: packed strides {15, 5, 1}. */
    static const UINT sizes[] = {4, 3, 5};
    static const UINT padded[] = {40, 8, 1};            /* rows of 8, planes of 40 */
    static const UINT padded_inner[] = {60, 20, 2};     /* every other element */
    static const UINT transposed[] = {1, 4, 12};        /* column-major */
    static const UINT permuted[] = {5, 20, 1};          /* dims 0 and 1 swapped */
    static const UINT broadcast_row[] = {0, 0, 1};      /* one row of 5 for everything */
    static const UINT broadcast_column[] = {3, 1, 0};   /* one value per (d0, d1) */
    static const UINT scalar[] = {0, 0, 0};
    static const struct { const UINT *a, *b, *out; } layouts[] =
    {
        {padded, NULL, NULL}, {NULL, padded_inner, padded}, {transposed, NULL, transposed},
        {transposed, permuted, NULL}, {NULL, broadcast_row, NULL}, {broadcast_column, transposed, padded},
        {scalar, broadcast_row, permuted}, {scalar, scalar, NULL},
    };
    static const DML_TENSOR_DATA_TYPE types[] =
    {
        DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_INT8,
        DML_TENSOR_DATA_TYPE_UINT16, DML_TENSOR_DATA_TYPE_INT64,
    };
    struct dml_test_context *context = *state;
    unsigned int i, j;

    for (j = 0; j < ARRAY_SIZE(types); ++j)
    {
        if (!dml_test_data_type_supported(context, types[j]))
            continue;
        for (i = 0; i < ARRAY_SIZE(layouts); ++i)
        {
            struct ew_case c = {i % 2 ? DML_OPERATOR_ELEMENT_WISE_MULTIPLY : DML_OPERATOR_ELEMENT_WISE_ADD, types[j]};

            set_sizes(&c, 3, sizes);
            c.strides[0] = layouts[i].a;
            c.strides[1] = layouts[i].b;
            c.strides[MAX_INPUTS] = layouts[i].out;
            run_case(context, &c);
        }
    }
}

/* Layouts that take the kernel's 16-byte vector path (and its scalar tail and fallbacks), in
 * every element size. */
static void test_vector_layouts(void **state)
{
    static const UINT sizes[] = {3, 4, 32};
    static const UINT row[] = {0, 0, 1};                /* vector loads of a broadcast row */
    static const UINT column[] = {0, 1, 0};             /* one element per vector */
    static const UINT padded[] = {256, 64, 1};          /* outer strides multiples of 16 elements */
    static const UINT misaligned[] = {200, 50, 1};      /* rows start off 16-byte boundaries */
    static const UINT tail_sizes[] = {16 * 5 + 3};
    static const struct { const UINT *a, *b, *out; bool in_place; } layouts[] =
    {
        {NULL, row, NULL}, {padded, column, NULL}, {NULL, NULL, padded}, {misaligned, row, NULL},
        {padded, row, padded, true}, {column, row, NULL},
    };
    static const DML_TENSOR_DATA_TYPE types[] =
    {
        DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_INT8,
        DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_INT16, DML_TENSOR_DATA_TYPE_UINT32,
        DML_TENSOR_DATA_TYPE_INT64,
    };
    static const DML_OPERATOR_TYPE ops[] =
            {DML_OPERATOR_ELEMENT_WISE_ADD, DML_OPERATOR_ELEMENT_WISE_MULTIPLY, DML_OPERATOR_ACTIVATION_RELU};
    struct dml_test_context *context = *state;
    unsigned int i, j, k;

    for (j = 0; j < ARRAY_SIZE(types); ++j)
    {
        if (!dml_test_data_type_supported(context, types[j]))
            continue;
        /* Every layout once per type, the operators taking turns (each compiles a pipeline). */
        for (i = 0, k = j; i <= ARRAY_SIZE(layouts); ++i, ++k)
        {
            struct ew_case c = {ops[k % ARRAY_SIZE(ops)], types[j]};

            if (!op_allows_type(c.op, c.type))
                c.op = ops[0];
            if (i == ARRAY_SIZE(layouts))
            {
                set_sizes(&c, 1, tail_sizes);
                run_case(context, &c);
                continue;
            }
            set_sizes(&c, 3, sizes);
            c.strides[0] = layouts[i].a;
            c.strides[1] = input_count(c.op) > 1 ? layouts[i].b : NULL;
            c.strides[MAX_INPUTS] = layouts[i].out;
            c.in_place = layouts[i].in_place;
            run_case(context, &c);
        }
    }
    /* FLOAT64 through IDENTITY, the one operator that takes it. */
    if (dml_test_data_type_supported(context, DML_TENSOR_DATA_TYPE_FLOAT64))
    {
        struct ew_case c = {DML_OPERATOR_ELEMENT_WISE_IDENTITY, DML_TENSOR_DATA_TYPE_FLOAT64};

        set_sizes(&c, 3, sizes);
        c.strides[0] = padded;
        run_case(context, &c);
        set_sizes(&c, 1, tail_sizes);
        c.strides[0] = NULL;
        run_case(context, &c);
    }
}

/* Rank 8 with nothing to merge: every dimension > 1, output strides reversed. */
static void test_rank8_transposed(void **state)
{
    static const UINT sizes[] = {2, 3, 2, 3, 2, 2, 3, 2};
    static const UINT reversed[] = {1, 2, 6, 12, 36, 72, 144, 432};
    static const UINT broadcast[] = {0, 72, 0, 12, 0, 6, 2, 1};
    struct dml_test_context *context = *state;
    struct ew_case c = {DML_OPERATOR_ELEMENT_WISE_ADD, DML_TENSOR_DATA_TYPE_FLOAT32};

    set_sizes(&c, 8, sizes);
    c.strides[1] = broadcast;
    c.strides[MAX_INPUTS] = reversed;
    run_case(context, &c);
    c.op = DML_OPERATOR_ELEMENT_WISE_IDENTITY;
    c.strides[0] = reversed;
    c.strides[MAX_INPUTS] = NULL;
    run_case(context, &c);
}

/* ---- Data types ---- */


/* DirectML's tensor support tables (FL 6_4). */
static bool op_allows_type(DML_OPERATOR_TYPE op, DML_TENSOR_DATA_TYPE type)
{
    switch (op)
    {
        case DML_OPERATOR_ELEMENT_WISE_IDENTITY:
            return true;
        case DML_OPERATOR_ELEMENT_WISE_ADD:
        case DML_OPERATOR_ELEMENT_WISE_MULTIPLY:
            return type != DML_TENSOR_DATA_TYPE_FLOAT64;
        case DML_OPERATOR_ELEMENT_WISE_ADD1:
            return type == DML_TENSOR_DATA_TYPE_FLOAT32 || type == DML_TENSOR_DATA_TYPE_FLOAT16;
        case DML_OPERATOR_ACTIVATION_RELU:
            return type == DML_TENSOR_DATA_TYPE_FLOAT32 || type == DML_TENSOR_DATA_TYPE_FLOAT16
                    || type == DML_TENSOR_DATA_TYPE_INT32 || type == DML_TENSOR_DATA_TYPE_INT16
                    || type == DML_TENSOR_DATA_TYPE_INT8;
        default:
            return false;
    }
}

static void test_data_types(void **state)
{
    static const DML_OPERATOR_TYPE ops[] =
    {
        DML_OPERATOR_ELEMENT_WISE_IDENTITY, DML_OPERATOR_ELEMENT_WISE_ADD, DML_OPERATOR_ELEMENT_WISE_ADD1,
        DML_OPERATOR_ELEMENT_WISE_MULTIPLY, DML_OPERATOR_ACTIVATION_RELU,
    };
    static const UINT sizes[] = {3, 7, 129};
    static const UINT broadcast[] = {0, 1, 0};
    struct dml_test_context *context = *state;
    unsigned int i, j, ran = 0;

    for (j = 0; j < ARRAY_SIZE(ewt_all_types); ++j)
    {
        if (!dml_test_data_type_supported(context, ewt_all_types[j]))
        {
            fprintf(stderr, "%s tensors are not supported by this device: skipped.\n",
                    dml_test_type_name(ewt_all_types[j]));
            continue;
        }
        for (i = 0; i < ARRAY_SIZE(ops); ++i)
        {
            struct ew_case c = {ops[i], ewt_all_types[j]};

            if (!op_allows_type(ops[i], ewt_all_types[j]))
                continue;
            set_sizes(&c, 3, sizes);
            /* The second input (or the only one) broadcast along two dimensions. */
            c.strides[input_count(c.op) - 1] = broadcast;
            run_case(context, &c);
            ++ran;
        }
    }
    assert_true(ran >= 12);     /* FLOAT32 and the 32-bit integers at least */
}

/* ---- Attributes ---- */

static void test_identity_scale_bias(void **state)
{
    static const DML_SCALE_BIAS scale_biases[] = {{2.5f, -1.25f}, {-0.5f, 3.0f}, {1.0f, 0.0f}, {0.0f, 7.0f}};
    static const DML_TENSOR_DATA_TYPE types[] =
            {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_FLOAT64};
    static const UINT sizes[] = {5, 129};
    static const UINT padded[] = {160, 1};
    struct dml_test_context *context = *state;
    unsigned int i, j;

    for (j = 0; j < ARRAY_SIZE(types); ++j)
    {
        if (!dml_test_data_type_supported(context, types[j]))
            continue;
        for (i = 0; i < ARRAY_SIZE(scale_biases); ++i)
        {
            struct ew_case c = {DML_OPERATOR_ELEMENT_WISE_IDENTITY, types[j]};

            set_sizes(&c, 2, sizes);
            c.scale_bias = &scale_biases[i];
            c.strides[i % 2 ? 0 : MAX_INPUTS] = padded;
            /* x * s + b may be fused into one fma: allow for the cancellation near 0. */
            c.tolerance = types[j] == DML_TENSOR_DATA_TYPE_FLOAT16 ? (struct tolerance){1.6e-3, 1e-3}
                    : types[j] == DML_TENSOR_DATA_TYPE_FLOAT64 ? (struct tolerance){1.6e-12, 1e-13}
                    : (struct tolerance){1.6e-5, 1e-6};
            run_case(context, &c);
        }
    }
}

/* ADD1 with every activation DirectML can fuse into it. */
static void test_add1_fused_activations(void **state)
{
    static const DML_ACTIVATION_LINEAR_OPERATOR_DESC linear = {NULL, NULL, 0.75f, -1.5f};
    static const DML_ACTIVATION_SIGMOID_OPERATOR_DESC sigmoid = {NULL, NULL};
    static const DML_ACTIVATION_HARD_SIGMOID_OPERATOR_DESC hard_sigmoid = {NULL, NULL, 0.2f, 0.5f};
    static const DML_ACTIVATION_TANH_OPERATOR_DESC tanh_desc = {NULL, NULL};
    static const DML_ACTIVATION_SCALED_TANH_OPERATOR_DESC scaled_tanh = {NULL, NULL, 1.7159f, 0.6667f};
    static const DML_ACTIVATION_RELU_OPERATOR_DESC relu = {NULL, NULL};
    static const DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC leaky_relu = {NULL, NULL, 0.1f};
    static const DML_ACTIVATION_THRESHOLDED_RELU_OPERATOR_DESC thresholded_relu = {NULL, NULL, 1.5f};
    static const DML_ACTIVATION_ELU_OPERATOR_DESC elu = {NULL, NULL, 1.3f};
    static const DML_ACTIVATION_CELU_OPERATOR_DESC celu = {NULL, NULL, 0.8f};
    static const DML_ACTIVATION_SCALED_ELU_OPERATOR_DESC scaled_elu = {NULL, NULL, 1.67326f, 1.0507f};
    static const DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC softplus = {NULL, NULL, 2.0f};
    static const DML_ACTIVATION_PARAMETRIC_SOFTPLUS_OPERATOR_DESC parametric_softplus = {NULL, NULL, 1.5f, 0.5f};
    static const DML_ACTIVATION_SOFTSIGN_OPERATOR_DESC softsign = {NULL, NULL};
    static const DML_ACTIVATION_IDENTITY_OPERATOR_DESC identity = {NULL, NULL};
    static const DML_ACTIVATION_SHRINK_OPERATOR_DESC shrink = {NULL, NULL, 0.25f, 1.0f};
    static const DML_ACTIVATION_GELU_OPERATOR_DESC gelu = {NULL, NULL};
    static const DML_OPERATOR_DESC activations[] =
    {
        {DML_OPERATOR_ACTIVATION_LINEAR, &linear},
        {DML_OPERATOR_ACTIVATION_SIGMOID, &sigmoid},
        {DML_OPERATOR_ACTIVATION_HARD_SIGMOID, &hard_sigmoid},
        {DML_OPERATOR_ACTIVATION_TANH, &tanh_desc},
        {DML_OPERATOR_ACTIVATION_SCALED_TANH, &scaled_tanh},
        {DML_OPERATOR_ACTIVATION_RELU, &relu},
        {DML_OPERATOR_ACTIVATION_LEAKY_RELU, &leaky_relu},
        {DML_OPERATOR_ACTIVATION_THRESHOLDED_RELU, &thresholded_relu},
        {DML_OPERATOR_ACTIVATION_ELU, &elu},
        {DML_OPERATOR_ACTIVATION_CELU, &celu},
        {DML_OPERATOR_ACTIVATION_SCALED_ELU, &scaled_elu},
        {DML_OPERATOR_ACTIVATION_SOFTPLUS, &softplus},
        {DML_OPERATOR_ACTIVATION_PARAMETRIC_SOFTPLUS, &parametric_softplus},
        {DML_OPERATOR_ACTIVATION_SOFTSIGN, &softsign},
        {DML_OPERATOR_ACTIVATION_IDENTITY, &identity},
        {DML_OPERATOR_ACTIVATION_SHRINK, &shrink},
        {DML_OPERATOR_ACTIVATION_GELU, &gelu},
    };
    static const DML_TENSOR_DATA_TYPE types[] = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16};
    static const UINT sizes[] = {3, 7, 129};
    static const UINT broadcast[] = {0, 1, 0};
    struct dml_test_context *context = *state;
    unsigned int i, j;

    for (j = 0; j < ARRAY_SIZE(types); ++j)
    {
        if (!dml_test_data_type_supported(context, types[j]))
            continue;
        for (i = 0; i < ARRAY_SIZE(activations); ++i)
        {
            struct ew_case c = {DML_OPERATOR_ELEMENT_WISE_ADD1, types[j]};

            set_sizes(&c, 3, sizes);
            c.activation = &activations[i];
            c.strides[1] = i % 2 ? broadcast : NULL;
            /* a + b in [-12, 12]: both tails of every function and the region around 0. */
            c.range = 6.0f;
            /* fp32: transcendental functions within a few ulp of the double reference. */
            if (types[j] == DML_TENSOR_DATA_TYPE_FLOAT32)
                c.tolerance = (struct tolerance){2e-6, 4e-6};
            run_case(context, &c);
        }
    }
}

/* NaN in gives NaN out; infinities go to their limits. */
static void test_special_values(void **state)
{
    static const DML_ACTIVATION_SIGMOID_OPERATOR_DESC sigmoid = {NULL, NULL};
    static const DML_ACTIVATION_TANH_OPERATOR_DESC tanh_desc = {NULL, NULL};
    static const DML_ACTIVATION_GELU_OPERATOR_DESC gelu = {NULL, NULL};
    static const DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC softplus = {NULL, NULL, 1.0f};
    static const DML_ACTIVATION_ELU_OPERATOR_DESC elu = {NULL, NULL, 1.0f};
    static const DML_ACTIVATION_THRESHOLDED_RELU_OPERATOR_DESC thresholded_relu = {NULL, NULL, 1.0f};
    static const DML_ACTIVATION_RELU_OPERATOR_DESC relu = {NULL, NULL};
    static const DML_OPERATOR_DESC activations[] =
    {
        {DML_OPERATOR_ACTIVATION_RELU, &relu},
        {DML_OPERATOR_ACTIVATION_SIGMOID, &sigmoid},
        {DML_OPERATOR_ACTIVATION_TANH, &tanh_desc},
        {DML_OPERATOR_ACTIVATION_GELU, &gelu},
        {DML_OPERATOR_ACTIVATION_SOFTPLUS, &softplus},
        {DML_OPERATOR_ACTIVATION_ELU, &elu},
        {DML_OPERATOR_ACTIVATION_THRESHOLDED_RELU, &thresholded_relu},
    };
    static const float inputs[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1e-30f, -1e-30f, 80.0f, -80.0f};
    static const double expected[][ARRAY_SIZE(inputs)] =
    {
        /* RELU */ {NAN, NAN, INFINITY, 0.0, 0.0, 0.0, 1e-30, 0.0, 80.0, 0.0},
        /* SIGMOID */ {NAN, NAN, 1.0, 0.0, 0.5, 0.5, 0.5, 0.5, 1.0, 1.8048513878454153e-35},
        /* TANH */ {NAN, NAN, 1.0, -1.0, 0.0, 0.0, 1e-30, -1e-30, 1.0, -1.0},
        /* GELU */ {NAN, NAN, INFINITY, 0.0, 0.0, 0.0, 5e-31, -5e-31, 80.0, 0.0},
        /* SOFTPLUS */ {NAN, NAN, INFINITY, 0.0, 0.69314718055994531, 0.69314718055994531, 0.69314718055994531,
                0.69314718055994531, 80.0, 1.8048513878454153e-35},
        /* ELU */ {NAN, NAN, INFINITY, -1.0, 0.0, 0.0, 1e-30, -1e-30, 80.0, -1.0},
        /* THRESHOLDED_RELU */ {NAN, NAN, INFINITY, 0.0, 0.0, 0.0, 0.0, 0.0, 80.0, 0.0},
    };
    static const UINT sizes[] = {ARRAY_SIZE(inputs)};
    struct dml_test_context *context = *state;
    struct dml_test_tensor a, b, out;
    float zeros[ARRAY_SIZE(inputs)] = {0}, got[ARRAY_SIZE(inputs)];
    ID3D12Resource *a_buffer, *b_buffer, *out_buffer;
    unsigned int i, k;

    dml_test_tensor_init(&a, DML_TENSOR_DATA_TYPE_FLOAT32, 1, sizes, NULL);
    dml_test_tensor_init(&b, DML_TENSOR_DATA_TYPE_FLOAT32, 1, sizes, NULL);
    dml_test_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 1, sizes, NULL);
    a_buffer = dml_test_create_buffer(context, sizeof(inputs), inputs);
    b_buffer = dml_test_create_buffer(context, sizeof(zeros), zeros);
    out_buffer = dml_test_create_buffer(context, sizeof(got), NULL);
    for (i = 0; i < ARRAY_SIZE(activations); ++i)
    {
        DML_ELEMENT_WISE_ADD1_OPERATOR_DESC desc = {&a.desc, &b.desc, &out.desc, &activations[i]};
        struct dml_test_binding bindings[] = {{a_buffer}, {b_buffer}, {out_buffer}};
        IDMLCompiledOperator *compiled = dml_test_compile(context, DML_OPERATOR_ELEMENT_WISE_ADD1, &desc,
                DML_EXECUTION_FLAG_NONE);

        dml_test_run(context, compiled, bindings, 2, &bindings[2], 1);
        dml_test_read_buffer(context, out_buffer, 0, got, sizeof(got));
        for (k = 0; k < ARRAY_SIZE(inputs); ++k)
        {
            double e = expected[i][k];
            bool ok = isnan(e) ? isnan(got[k]) : isinf(e) ? got[k] == e
                    : fabs(got[k] - e) <= 1e-6 * fabs(e) + 1e-37;

            if (!ok)
                fail_msg("activation %d of %g: got %.9g, expected %.9g", (int)activations[i].Type, inputs[k],
                        got[k], e);
        }
        release_last(compiled);
    }
    release_last(out_buffer);
    release_last(b_buffer);
    release_last(a_buffer);
    assert_no_log_errors();
}

/* ---- Execution ---- */

/* The output bound to the same buffer range as input 0. */
static void test_in_place(void **state)
{
    static const UINT sizes[] = {3, 7, 129};
    static const UINT padded[] = {1024, 130, 1};
    static const UINT broadcast[] = {0, 1, 0};
    static const DML_SCALE_BIAS scale_bias = {0.5f, 2.0f};
    static const DML_ACTIVATION_TANH_OPERATOR_DESC tanh_desc = {NULL, NULL};
    static const DML_OPERATOR_DESC activation = {DML_OPERATOR_ACTIVATION_TANH, &tanh_desc};
    struct dml_test_context *context = *state;
    struct ew_case c = {DML_OPERATOR_ELEMENT_WISE_ADD, DML_TENSOR_DATA_TYPE_FLOAT32};

    set_sizes(&c, 3, sizes);
    c.in_place = true;
    run_case(context, &c);
    c.strides[1] = broadcast;
    run_case(context, &c);
    c.strides[0] = c.strides[MAX_INPUTS] = padded;
    c.op = DML_OPERATOR_ELEMENT_WISE_ADD1;
    c.activation = &activation;
    c.tolerance = (struct tolerance){2e-6, 4e-6};
    run_case(context, &c);
    c = (struct ew_case){DML_OPERATOR_ELEMENT_WISE_IDENTITY, DML_TENSOR_DATA_TYPE_FLOAT32};
    set_sizes(&c, 3, sizes);
    c.in_place = true;
    c.scale_bias = &scale_bias;
    run_case(context, &c);
    c = (struct ew_case){DML_OPERATOR_ELEMENT_WISE_MULTIPLY, DML_TENSOR_DATA_TYPE_INT8};
    set_sizes(&c, 3, sizes);
    c.in_place = true;
    c.strides[1] = broadcast;
    if (dml_test_data_type_supported(context, DML_TENSOR_DATA_TYPE_INT8))
        run_case(context, &c);
}

/* Bindings that start inside their buffers (the descriptor address carries the offset). */
static void test_binding_offsets(void **state)
{
    static const UINT sizes[] = {5, 33};
    struct dml_test_context *context = *state;
    struct ew_case c = {DML_OPERATOR_ELEMENT_WISE_ADD, DML_TENSOR_DATA_TYPE_FLOAT32};

    set_sizes(&c, 2, sizes);
    c.binding_offset = 256;
    run_case(context, &c);
    c.type = DML_TENSOR_DATA_TYPE_UINT16;
    c.binding_offset = 16;
    if (dml_test_data_type_supported(context, DML_TENSOR_DATA_TYPE_UINT16))
        run_case(context, &c);
}

/* OWNED_BY_DML inputs: read from the persistent resource at the offsets the initializer chose. */
static void test_owned_inputs(void **state)
{
    static const UINT sizes[] = {3, 45};
    static const UINT broadcast[] = {0, 1};
    struct dml_test_context *context = *state;
    struct ew_case c = {DML_OPERATOR_ELEMENT_WISE_MULTIPLY, DML_TENSOR_DATA_TYPE_FLOAT32};

    set_sizes(&c, 2, sizes);
    c.owned = true;
    run_case(context, &c);
    c.op = DML_OPERATOR_ELEMENT_WISE_ADD;
    c.type = DML_TENSOR_DATA_TYPE_INT32;
    c.strides[1] = broadcast;
    run_case(context, &c);
}

/* More elements than 65535 workgroups of the kernel's width: the grid-stride loop. */
static void test_many_elements(void **state)
{
    static const UINT sizes[] = {2, 65535 * 128 / 2 + 1001};
    static const UINT broadcast[] = {0, 1};
    struct dml_test_context *context = *state;
    struct ew_case c = {DML_OPERATOR_ELEMENT_WISE_ADD, DML_TENSOR_DATA_TYPE_UINT8};

    if (!dml_test_data_type_supported(context, DML_TENSOR_DATA_TYPE_UINT8))
        c.type = DML_TENSOR_DATA_TYPE_UINT32;
    set_sizes(&c, 2, sizes);
    c.strides[1] = broadcast;
    run_case(context, &c);
}

/* More than 2^24 elements (beyond fp32's exact integers), bound 256 bytes into their buffers,
 * through the vector path and a broadcast input. */
static void test_huge(void **state)
{
    static const UINT sizes[] = {(1u << 24) + 3};
    static const UINT scalar[] = {0};
    struct dml_test_context *context = *state;
    struct ew_case c = {DML_OPERATOR_ELEMENT_WISE_ADD, DML_TENSOR_DATA_TYPE_UINT8};

    /* UINT8: the cheapest elements to fill and check on the CPU. */
    if (!dml_test_data_type_supported(context, c.type))
        c.type = DML_TENSOR_DATA_TYPE_UINT32;
    set_sizes(&c, 1, sizes);
    c.strides[1] = scalar;
    c.binding_offset = 256;
    run_case(context, &c);
}

/* ---- Desc rules ---- */

static void test_invalid_descs(void **state)
{
    static const UINT sizes[] = {2, 3, 4}, sizes5[] = {2, 3, 5}, sizes2[] = {3, 4};
    static const UINT huge_strides[] = {0x80000000u, 0x80000000u, 1};
    static const DML_SCALE_BIAS scale_bias = {2.0f, 1.0f};
    struct dml_test_context *context = *state;
    struct dml_test_tensor f32, f32_b5, f32_rank2, i32, u32, huge;
    DML_ACTIVATION_SOFTMAX_OPERATOR_DESC softmax = {NULL, NULL};
    DML_ELEMENT_WISE_CLIP_OPERATOR_DESC clip = {NULL, NULL, NULL, -1.0f, 1.0f};
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC not_an_activation = {NULL, NULL, NULL};
    DML_ACTIVATION_RELU_OPERATOR_DESC relu_with_input = {NULL, NULL};
    DML_OPERATOR_DESC activation;
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity;
    DML_ELEMENT_WISE_ADD1_OPERATOR_DESC add1;
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC add;
    DML_ACTIVATION_RELU_OPERATOR_DESC relu;
    IDMLCompiledOperator *compiled;

    dml_test_tensor_init(&f32, DML_TENSOR_DATA_TYPE_FLOAT32, 3, sizes, NULL);
    dml_test_tensor_init(&f32_b5, DML_TENSOR_DATA_TYPE_FLOAT32, 3, sizes5, NULL);
    dml_test_tensor_init(&f32_rank2, DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes2, NULL);
    dml_test_tensor_init(&i32, DML_TENSOR_DATA_TYPE_INT32, 3, sizes, NULL);
    dml_test_tensor_init(&u32, DML_TENSOR_DATA_TYPE_UINT32, 3, sizes, NULL);
    dml_test_tensor_init(&huge, DML_TENSOR_DATA_TYPE_FLOAT32, 3, sizes, huge_strides);

    add = (DML_ELEMENT_WISE_ADD_OPERATOR_DESC){&f32.desc, &f32_b5.desc, &f32.desc};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_ADD, &add,
            "CreateOperator(ELEMENT_WISE_ADD): BTensor.Sizes[2]=5 is not broadcastable to OutputTensor.Sizes[2]=4");
    add = (DML_ELEMENT_WISE_ADD_OPERATOR_DESC){&f32_b5.desc, &f32.desc, &f32.desc};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_MULTIPLY, &add,
            "CreateOperator(ELEMENT_WISE_MULTIPLY): ATensor.Sizes[2]=5 is not broadcastable");
    add = (DML_ELEMENT_WISE_ADD_OPERATOR_DESC){&f32.desc, &f32_rank2.desc, &f32.desc};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_ADD, &add,
            "BTensor.DimensionCount=2 must equal OutputTensor");
    add = (DML_ELEMENT_WISE_ADD_OPERATOR_DESC){&f32.desc, &i32.desc, &f32.desc};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_ADD, &add,
            "BTensor.DataType=INT32 must equal OutputTensor.DataType=FLOAT32");
    identity = (DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC){&f32.desc, &i32.desc, NULL};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_IDENTITY, &identity,
            "InputTensor.DataType=FLOAT32 must equal");

    /* Types the operator does not take. */
    add1 = (DML_ELEMENT_WISE_ADD1_OPERATOR_DESC){&i32.desc, &i32.desc, &i32.desc, NULL};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_ADD1, &add1,
            "CreateOperator(ELEMENT_WISE_ADD1): OutputTensor.DataType=INT32 must be FLOAT32 or FLOAT16.");
    relu = (DML_ACTIVATION_RELU_OPERATOR_DESC){&u32.desc, &u32.desc};
    dml_test_expect_invalid(context, DML_OPERATOR_ACTIVATION_RELU, &relu,
            "CreateOperator(ACTIVATION_RELU): OutputTensor.DataType=UINT32 must be FLOAT32, FLOAT16, INT32, INT16 "
            "or INT8.");

    /* ScaleBias on integers. */
    identity = (DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC){&i32.desc, &i32.desc, &scale_bias};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_IDENTITY, &identity, "ScaleBias must be NULL for INT32");

    /* Fused activations DirectML does not fuse into ADD1. */
    add1 = (DML_ELEMENT_WISE_ADD1_OPERATOR_DESC){&f32.desc, &f32.desc, &f32.desc, &activation};
    activation = (DML_OPERATOR_DESC){DML_OPERATOR_ACTIVATION_SOFTMAX, &softmax};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_ADD1, &add1,
            "CreateOperator(ELEMENT_WISE_ADD1): FusedActivation.Type=ACTIVATION_SOFTMAX is not a fusible activation");
    activation = (DML_OPERATOR_DESC){DML_OPERATOR_ELEMENT_WISE_CLIP, &clip};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_ADD1, &add1, "ELEMENT_WISE_CLIP may be fused only into");
    activation = (DML_OPERATOR_DESC){DML_OPERATOR_ELEMENT_WISE_ADD, &not_an_activation};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_ADD1, &add1, "FusedActivation.Type=ELEMENT_WISE_ADD");

    /* A fused activation has no tensors of its own. */
    relu_with_input = (DML_ACTIVATION_RELU_OPERATOR_DESC){&f32.desc, NULL};
    activation = (DML_OPERATOR_DESC){DML_OPERATOR_ACTIVATION_RELU, &relu_with_input};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_ADD1, &add1, "FusedActivation.InputTensor must be NULL");
    relu_with_input = (DML_ACTIVATION_RELU_OPERATOR_DESC){NULL, &f32.desc};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_ADD1, &add1,
            "FusedActivation.OutputTensor must be NULL");

    /* Element offsets must fit the kernel's 32 bits. */
    add = (DML_ELEMENT_WISE_ADD_OPERATOR_DESC){&huge.desc, &f32.desc, &f32.desc};
    dml_test_expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_ADD, &add, "ATensor addresses element 6442450947");

    /* The device is still usable. */
    add = (DML_ELEMENT_WISE_ADD_OPERATOR_DESC){&f32.desc, &f32.desc, &f32.desc};
    compiled = dml_test_compile(context, DML_OPERATOR_ELEMENT_WISE_ADD, &add, DML_EXECUTION_FLAG_NONE);
    release_last(compiled);
    assert_no_log_errors();
}

/* ---- The support matrix (vkdml_get_operator_support) ---- */

static void test_support_matrix(void **state)
{
    struct vkdml_operator_support support[256];
    struct dml_test_context *context = *state;
    uint32_t count = vkdml_get_operator_type_count(), t, implemented = 0;
    int adapter = vkdml_select_adapter(NULL);

    assert_int_equal(count, DML_OPERATOR_UNFOLD + 1);
    assert_true(adapter >= 0);
    assert_int_equal(vkdml_get_operator_support(adapter, count, support, sizeof(support[0])), 0);
    assert_null(support[DML_OPERATOR_INVALID].name);
    for (t = 1; t < count; ++t)
    {
        assert_int_equal(support[t].operator_type, t);
        assert_non_null(support[t].name);
        implemented += support[t].implemented != 0;
        /* What a device runs, it implements, for types DirectML lists. */
        assert_int_equal(support[t].device_data_types & ~support[t].data_types, 0);
        if (!support[t].implemented)
            assert_int_equal(support[t].data_types, 0);
    }
    assert_true(implemented >= 80);
    assert_string_equal(support[DML_OPERATOR_ELEMENT_WISE_ATAN_YX].name, "ELEMENT_WISE_ATAN_YX");
    assert_int_equal(support[DML_OPERATOR_ELEMENT_WISE_ATAN_YX].feature_level, DML_FEATURE_LEVEL_3_1);
    assert_int_equal(support[DML_OPERATOR_ELEMENT_WISE_ATAN_YX].data_types,
            1u << DML_TENSOR_DATA_TYPE_FLOAT32 | 1u << DML_TENSOR_DATA_TYPE_FLOAT16);
    assert_int_equal(support[DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_LEFT].data_types,
            1u << DML_TENSOR_DATA_TYPE_UINT8 | 1u << DML_TENSOR_DATA_TYPE_UINT16 | 1u << DML_TENSOR_DATA_TYPE_UINT32
            | 1u << DML_TENSOR_DATA_TYPE_UINT64);
    assert_false(support[DML_OPERATOR_LSTM].implemented);
    /* The device's answer agrees with CheckFeatureSupport(TENSOR_DATA_TYPE_SUPPORT). */
    for (t = 1; t <= DML_TENSOR_DATA_TYPE_INT64; ++t)
    {
        bool listed = support[DML_OPERATOR_ELEMENT_WISE_IDENTITY].device_data_types & (1u << t);

        assert_int_equal(listed, dml_test_data_type_supported(context, t));
    }

    /* A smaller, older struct is filled as far as it goes. */
    memset(support, 0xcc, sizeof(support));
    assert_int_equal(vkdml_get_operator_support(adapter, 8, support, offsetof(struct vkdml_operator_support, data_types)), 0);
    assert_int_equal(((uint8_t *)support)[offsetof(struct vkdml_operator_support, data_types) * 8], 0xcc);

    assert_int_equal(vkdml_get_operator_support(adapter, count + 1, support, sizeof(support[0])), -1);
    assert_logged_error("need up to 178 entries");
    assert_int_equal(vkdml_get_operator_support(1000, count, support, sizeof(support[0])), -1);
    assert_logged_error("Adapter index 1000 is out of range");
    assert_no_log_errors();
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
#define TEST(name) cmocka_unit_test_setup_teardown(name, dml_test_setup, dml_test_teardown)
        TEST(test_shapes),
        TEST(test_strides),
        TEST(test_rank8_transposed),
        TEST(test_vector_layouts),
        TEST(test_data_types),
        TEST(test_identity_scale_bias),
        TEST(test_add1_fused_activations),
        TEST(test_special_values),
        TEST(test_in_place),
        TEST(test_binding_offsets),
        TEST(test_owned_inputs),
        TEST(test_many_elements),
        TEST(test_huge),
        TEST(test_invalid_descs),
        TEST(test_support_matrix),
#undef TEST
    };

    /* Logging first: it keeps the Vulkan driver loaded for LeakSanitizer (test_utils.c). */
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
