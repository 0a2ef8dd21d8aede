/*
 * The element-wise family (ELEMENT_WISE_IDENTITY, ADD, ADD1, MULTIPLY, ACTIVATION_RELU) through
 * the public API, against a C reference: ranks 1-8 with odd sizes, padded / transposed / 0-stride
 * (broadcast) layouts, every data type DirectML allows for each operator (those the device
 * supports), ScaleBias, ADD1 with every fusible activation, NaN propagation, in-place execution,
 * bindings at offsets, OWNED_BY_DML inputs, more elements than one row of workgroups covers,
 * and the desc rules (E_INVALIDARG with one log line each).
 *
 * Outputs are compared element by element (integers exactly, floats with per-type tolerances)
 * and every byte of the output buffer that is not an output element (padding, the bytes around
 * it) must be unchanged.
 */
#include "dml_test_utils.h"

#include <math.h>

#define MAX_INPUTS 2

/* ---- Reference values ---- */

static bool is_float(DML_TENSOR_DATA_TYPE type)
{
    return type == DML_TENSOR_DATA_TYPE_FLOAT32 || type == DML_TENSOR_DATA_TYPE_FLOAT16
            || type == DML_TENSOR_DATA_TYPE_FLOAT64;
}

static bool is_signed(DML_TENSOR_DATA_TYPE type)
{
    return type == DML_TENSOR_DATA_TYPE_INT8 || type == DML_TENSOR_DATA_TYPE_INT16
            || type == DML_TENSOR_DATA_TYPE_INT32 || type == DML_TENSOR_DATA_TYPE_INT64;
}

/* One element: floats as double, integers as their 64-bit two's complement pattern. */
struct value
{
    double f;
    uint64_t u;
};

static struct value read_value(DML_TENSOR_DATA_TYPE type, const uint8_t *bytes, UINT64 element)
{
    const uint8_t *p = bytes + element * dml_test_element_size(type);
    struct value v = {0.0, 0};
    uint16_t u16;
    uint32_t u32;
    float f32;

    switch (type)
    {
        case DML_TENSOR_DATA_TYPE_FLOAT32: memcpy(&f32, p, 4); v.f = f32; break;
        case DML_TENSOR_DATA_TYPE_FLOAT16: memcpy(&u16, p, 2); v.f = dml_test_half_to_float(u16); break;
        case DML_TENSOR_DATA_TYPE_FLOAT64: memcpy(&v.f, p, 8); break;
        case DML_TENSOR_DATA_TYPE_UINT8: v.u = *p; break;
        case DML_TENSOR_DATA_TYPE_INT8: v.u = (uint64_t)(int64_t)(int8_t)*p; break;
        case DML_TENSOR_DATA_TYPE_UINT16: memcpy(&u16, p, 2); v.u = u16; break;
        case DML_TENSOR_DATA_TYPE_INT16: memcpy(&u16, p, 2); v.u = (uint64_t)(int64_t)(int16_t)u16; break;
        case DML_TENSOR_DATA_TYPE_UINT32: memcpy(&u32, p, 4); v.u = u32; break;
        case DML_TENSOR_DATA_TYPE_INT32: memcpy(&u32, p, 4); v.u = (uint64_t)(int64_t)(int32_t)u32; break;
        default: memcpy(&v.u, p, 8); break;
    }
    return v;
}

static void write_value(DML_TENSOR_DATA_TYPE type, uint8_t *bytes, UINT64 element, struct value v)
{
    unsigned int size = dml_test_element_size(type);
    uint8_t *p = bytes + element * size;
    uint16_t u16;
    float f32;

    switch (type)
    {
        case DML_TENSOR_DATA_TYPE_FLOAT32: f32 = (float)v.f; memcpy(p, &f32, 4); break;
        case DML_TENSOR_DATA_TYPE_FLOAT16: u16 = dml_test_float_to_half((float)v.f); memcpy(p, &u16, 2); break;
        case DML_TENSOR_DATA_TYPE_FLOAT64: memcpy(p, &v.f, 8); break;
        default: memcpy(p, &v.u, size); break;      /* little-endian: the low bytes */
    }
}

/* Fills a whole buffer with valid values of `type` (floats in [-range, range], integers over
 * their full range so that ADD/MULTIPLY wrap). */
static void fill_random(uint8_t *bytes, size_t size, DML_TENSOR_DATA_TYPE type, uint32_t *rng, float range)
{
    unsigned int element_size = dml_test_element_size(type);
    size_t i, count = size / element_size;

    for (i = 0; i < size; ++i)
        bytes[i] = (uint8_t)dml_test_random(rng);
    for (i = 0; is_float(type) && i < count; ++i)
    {
        struct value v = {dml_test_random_float(rng, -range, range), 0};

        write_value(type, bytes, i, v);
    }
}

/* ---- Activations in double, from DirectML's definitions ---- */

static double ref_activation(const DML_OPERATOR_DESC *activation, double x)
{
    const void *d = activation ? activation->Desc : NULL;

    if (!activation)
        return x;
    switch (activation->Type)
    {
        case DML_OPERATOR_ACTIVATION_IDENTITY:
            return x;
        case DML_OPERATOR_ACTIVATION_LINEAR:
        {
            const DML_ACTIVATION_LINEAR_OPERATOR_DESC *l = d;
            return l->Alpha * x + l->Beta;
        }
        case DML_OPERATOR_ACTIVATION_SIGMOID:
            return 1.0 / (1.0 + exp(-x));
        case DML_OPERATOR_ACTIVATION_HARD_SIGMOID:
        {
            const DML_ACTIVATION_HARD_SIGMOID_OPERATOR_DESC *h = d;
            return fmax(0.0, fmin(h->Alpha * x + h->Beta, 1.0));
        }
        case DML_OPERATOR_ACTIVATION_TANH:
            return tanh(x);
        case DML_OPERATOR_ACTIVATION_SCALED_TANH:
        {
            const DML_ACTIVATION_SCALED_TANH_OPERATOR_DESC *s = d;
            return s->Alpha * tanh(s->Beta * x);
        }
        case DML_OPERATOR_ACTIVATION_RELU:
            return x < 0.0 ? 0.0 : x;
        case DML_OPERATOR_ACTIVATION_LEAKY_RELU:
            return x >= 0.0 ? x : ((const DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC *)d)->Alpha * x;
        case DML_OPERATOR_ACTIVATION_THRESHOLDED_RELU:
            return x > ((const DML_ACTIVATION_THRESHOLDED_RELU_OPERATOR_DESC *)d)->Alpha ? x : 0.0;
        case DML_OPERATOR_ACTIVATION_ELU:
            return x >= 0.0 ? x : ((const DML_ACTIVATION_ELU_OPERATOR_DESC *)d)->Alpha * expm1(x);
        case DML_OPERATOR_ACTIVATION_CELU:
        {
            double alpha = ((const DML_ACTIVATION_CELU_OPERATOR_DESC *)d)->Alpha;
            return fmax(0.0, x) + fmin(0.0, alpha * expm1(x / alpha));
        }
        case DML_OPERATOR_ACTIVATION_SCALED_ELU:
        {
            const DML_ACTIVATION_SCALED_ELU_OPERATOR_DESC *s = d;
            return s->Gamma * (x > 0.0 ? x : s->Alpha * expm1(x));
        }
        case DML_OPERATOR_ACTIVATION_SOFTPLUS:
        {
            double steepness = ((const DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC *)d)->Steepness;
            return log1p(exp(steepness * x)) / steepness;
        }
        case DML_OPERATOR_ACTIVATION_PARAMETRIC_SOFTPLUS:
        {
            const DML_ACTIVATION_PARAMETRIC_SOFTPLUS_OPERATOR_DESC *p = d;
            return p->Alpha * log1p(exp(p->Beta * x));
        }
        case DML_OPERATOR_ACTIVATION_SOFTSIGN:
            return x / (1.0 + fabs(x));
        case DML_OPERATOR_ACTIVATION_SHRINK:
        {
            const DML_ACTIVATION_SHRINK_OPERATOR_DESC *s = d;
            return x < -s->Threshold ? x + s->Bias : (x > s->Threshold ? x - s->Bias : 0.0);
        }
        case DML_OPERATOR_ACTIVATION_GELU:
            /* 0.5 x (1 + erf(x / sqrt(2))), without the cancellation of 1 + erf for x < 0. */
            return 0.5 * x * erfc(-x / sqrt(2.0));
        default:
            fail_msg("no reference for activation %d", (int)activation->Type);
            return 0.0;
    }
}

/* ---- One test case ---- */

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

static const char *op_name(DML_OPERATOR_TYPE op)
{
    switch (op)
    {
        case DML_OPERATOR_ELEMENT_WISE_IDENTITY: return "IDENTITY";
        case DML_OPERATOR_ELEMENT_WISE_ADD: return "ADD";
        case DML_OPERATOR_ELEMENT_WISE_ADD1: return "ADD1";
        case DML_OPERATOR_ELEMENT_WISE_MULTIPLY: return "MULTIPLY";
        case DML_OPERATOR_ACTIVATION_RELU: return "RELU";
        default: return "?";
    }
}

/* The desc of `c` over its tensors, in a union big enough for every operator here. */
union ew_desc
{
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity;
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC add;
    DML_ELEMENT_WISE_ADD1_OPERATOR_DESC add1;
    DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC multiply;
    DML_ACTIVATION_RELU_OPERATOR_DESC relu;
};

static void make_desc(const struct ew_case *c, const DML_TENSOR_DESC *a, const DML_TENSOR_DESC *b,
        const DML_TENSOR_DESC *out, union ew_desc *desc)
{
    memset(desc, 0, sizeof(*desc));
    switch (c->op)
    {
        case DML_OPERATOR_ELEMENT_WISE_IDENTITY:
            desc->identity = (DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC){a, out, c->scale_bias};
            break;
        case DML_OPERATOR_ACTIVATION_RELU:
            desc->relu = (DML_ACTIVATION_RELU_OPERATOR_DESC){a, out};
            break;
        case DML_OPERATOR_ELEMENT_WISE_ADD1:
            desc->add1 = (DML_ELEMENT_WISE_ADD1_OPERATOR_DESC){a, b, out, c->activation};
            break;
        default:        /* ADD and MULTIPLY share a layout */
            desc->add = (DML_ELEMENT_WISE_ADD_OPERATOR_DESC){a, b, out};
            break;
    }
}

static struct value ref_element(const struct ew_case *c, const struct value *x)
{
    struct value y = {0.0, 0};

    if (is_float(c->type))
    {
        double a = x[0].f;

        if (c->scale_bias)
            a = a * c->scale_bias->Scale + c->scale_bias->Bias;
        if (c->op == DML_OPERATOR_ELEMENT_WISE_ADD || c->op == DML_OPERATOR_ELEMENT_WISE_ADD1)
            a += x[1].f;
        else if (c->op == DML_OPERATOR_ELEMENT_WISE_MULTIPLY)
            a *= x[1].f;
        /* The kernel rounds the sum to fp32 before the activation; so does the reference. */
        if (c->type != DML_TENSOR_DATA_TYPE_FLOAT64)
            a = (float)a;
        if (c->op == DML_OPERATOR_ACTIVATION_RELU)
            a = a < 0.0 ? 0.0 : a;
        y.f = ref_activation(c->activation, a);
        return y;
    }
    y.u = x[0].u;
    if (c->op == DML_OPERATOR_ELEMENT_WISE_ADD)
        y.u += x[1].u;
    else if (c->op == DML_OPERATOR_ELEMENT_WISE_MULTIPLY)
        y.u *= x[1].u;
    else if (c->op == DML_OPERATOR_ACTIVATION_RELU && is_signed(c->type) && (int64_t)y.u < 0)
        y.u = 0;
    return y;
}

static struct tolerance default_tolerance(DML_TENSOR_DATA_TYPE type)
{
    switch (type)
    {
        case DML_TENSOR_DATA_TYPE_FLOAT16: return (struct tolerance){1e-4, 1e-3};   /* 1 ulp: 2^-10 */
        case DML_TENSOR_DATA_TYPE_FLOAT64: return (struct tolerance){1e-13, 1e-13};
        default: return (struct tolerance){1e-6, 1e-6};
    }
}

static bool values_match(DML_TENSOR_DATA_TYPE type, struct value got, struct value expected, struct tolerance tol)
{
    unsigned int bits = dml_test_element_size(type) * 8;
    uint64_t mask = bits == 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1);

    if (!is_float(type))
        return (got.u & mask) == (expected.u & mask);
    if (isnan(expected.f))
        return isnan(got.f);
    if (isinf(expected.f))
        return got.f == expected.f;
    return fabs(got.f - expected.f) <= tol.abs + tol.rel * fabs(expected.f);
}

struct case_tensors
{
    struct dml_test_tensor tensors[MAX_INPUTS + 1];
    uint8_t *initial[MAX_INPUTS + 1];           /* buffer contents before the dispatch */
    UINT64 buffer_size[MAX_INPUTS + 1];
};

static void init_case_tensors(const struct ew_case *c, struct case_tensors *t, uint32_t *rng)
{
    UINT inputs = input_count(c->op), i;

    for (i = 0; i <= MAX_INPUTS; ++i)
    {
        UINT slot = i == inputs ? MAX_INPUTS : i;
        struct dml_test_tensor *tensor = &t->tensors[slot];

        if (i > inputs)
            break;
        dml_test_tensor_init(tensor, c->type, c->rank, c->sizes, c->strides[slot]);
        if (c->owned && slot != MAX_INPUTS)
            tensor->buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
        /* Room around the tensor, so stray writes show up as changed bytes. */
        t->buffer_size[slot] = c->binding_offset + ((tensor->buffer.TotalTensorSizeInBytes + 64 + 3) & ~3ull);
        assert_non_null(t->initial[slot] = malloc(t->buffer_size[slot]));
        fill_random(t->initial[slot], t->buffer_size[slot], c->type, rng, c->range ? c->range : 10.0f);
    }
}

static void free_case_tensors(struct case_tensors *t)
{
    unsigned int i;

    for (i = 0; i <= MAX_INPUTS; ++i)
        free(t->initial[i]);
}

/* Expected output buffer, and which of its bytes are elements (compared with tolerance). */
static void compute_expected(const struct ew_case *c, const struct case_tensors *t, uint8_t *expected,
        uint8_t *is_element)
{
    const struct dml_test_tensor *out = &t->tensors[MAX_INPUTS];
    const uint8_t *out_initial = c->in_place ? t->initial[0] : t->initial[MAX_INPUTS];
    unsigned int size = dml_test_element_size(c->type);
    UINT64 count = dml_test_element_count(out), index, out_size = t->buffer_size[c->in_place ? 0 : MAX_INPUTS];
    UINT inputs = input_count(c->op), i;

    memcpy(expected, out_initial, out_size);
    memset(is_element, 0, out_size);
    for (index = 0; index < count; ++index)
    {
        struct value x[MAX_INPUTS];
        UINT64 element = dml_test_element_offset(out, index);

        for (i = 0; i < inputs; ++i)
            x[i] = read_value(c->type, t->initial[i] + c->binding_offset,
                    dml_test_element_offset(&t->tensors[i], index));
        write_value(c->type, expected + c->binding_offset, element, ref_element(c, x));
        memset(is_element + c->binding_offset + element * size, 1, size);
    }
}

static void describe_failure(const struct ew_case *c, UINT64 byte, const uint8_t *got, const uint8_t *expected,
        bool element)
{
    unsigned int size = dml_test_element_size(c->type);

    if (element && is_float(c->type))
    {
        UINT64 e = (byte - c->binding_offset) / size;
        fprintf(stderr, "%s %s rank %u: element at offset %llu: got %.9g, expected %.9g\n", op_name(c->op),
                dml_test_type_name(c->type), c->rank, (unsigned long long)e,
                read_value(c->type, got + c->binding_offset, e).f, read_value(c->type, expected + c->binding_offset, e).f);
    }
    else
    {
        fprintf(stderr, "%s %s rank %u: byte %llu (%s): got 0x%02x, expected 0x%02x\n", op_name(c->op),
                dml_test_type_name(c->type), c->rank, (unsigned long long)byte, element ? "element" : "not an element",
                got[byte], expected[byte]);
    }
}

static void check_output(const struct ew_case *c, const uint8_t *got, const uint8_t *expected,
        const uint8_t *is_element, UINT64 size)
{
    struct tolerance tol = c->tolerance.abs || c->tolerance.rel ? c->tolerance : default_tolerance(c->type);
    unsigned int element_size = dml_test_element_size(c->type);
    UINT64 byte;

    for (byte = 0; byte < size; ++byte)
    {
        if (!is_element[byte])
        {
            if (got[byte] != expected[byte])
            {
                describe_failure(c, byte, got, expected, false);
                fail();
            }
            continue;
        }
        /* Elements start at binding_offset + k * element_size. */
        if ((byte - c->binding_offset) % element_size)
            continue;
        if (!values_match(c->type, read_value(c->type, got, byte / element_size),
                read_value(c->type, expected, byte / element_size), tol))
        {
            describe_failure(c, byte, got, expected, true);
            fail();
        }
    }
}

static ID3D12Resource *create_input_buffer(struct dml_test_context *context, const struct case_tensors *t, UINT i)
{
    return dml_test_create_buffer(context, t->buffer_size[i], t->initial[i]);
}

static void execute_case(struct dml_test_context *context, const struct ew_case *c, IDMLCompiledOperator *compiled,
        ID3D12Resource *const *buffers, ID3D12Resource *output)
{
    struct dml_test_binding inputs[MAX_INPUTS], out = {output, c->binding_offset, 0};
    UINT count = input_count(c->op), i;
    ID3D12Resource *persistent;

    for (i = 0; i < count; ++i)
        inputs[i] = (struct dml_test_binding){buffers[i], c->binding_offset, 0};
    if (!c->owned)
    {
        dml_test_run(context, compiled, inputs, count, &out, 1);
        return;
    }
    /* OWNED_BY_DML inputs go to the initializer only; execution binds them as NONE. */
    persistent = dml_test_initialize(context, compiled, inputs, count);
    for (i = 0; i < count; ++i)
        inputs[i] = (struct dml_test_binding){NULL, 0, 0};
    dml_test_execute(context, compiled, persistent, inputs, count, &out, 1);
    if (persistent)
        release_last(persistent);
}

static void run_case(struct dml_test_context *context, const struct ew_case *c)
{
    ID3D12Resource *buffers[MAX_INPUTS + 1] = {NULL}, *output;
    static uint32_t rng = 0x12345678u;
    uint8_t *expected, *is_element, *got;
    IDMLCompiledOperator *compiled;
    struct case_tensors t = {0};
    union ew_desc desc;
    UINT inputs = input_count(c->op), i;
    UINT64 out_size;

    init_case_tensors(c, &t, &rng);
    make_desc(c, &t.tensors[0].desc, inputs > 1 ? &t.tensors[1].desc : NULL, &t.tensors[MAX_INPUTS].desc, &desc);
    compiled = dml_test_compile(context, c->op, &desc, DML_EXECUTION_FLAG_NONE);

    for (i = 0; i < inputs; ++i)
        buffers[i] = create_input_buffer(context, &t, i);
    output = c->in_place ? buffers[0] : (buffers[MAX_INPUTS] = create_input_buffer(context, &t, MAX_INPUTS));
    out_size = t.buffer_size[c->in_place ? 0 : MAX_INPUTS];
    execute_case(context, c, compiled, buffers, output);

    assert_non_null(expected = malloc(out_size));
    assert_non_null(is_element = malloc(out_size));
    assert_non_null(got = malloc(out_size));
    dml_test_read_buffer(context, output, 0, got, out_size);
    compute_expected(c, &t, expected, is_element);
    check_output(c, got, expected, is_element, out_size);

    free(got);
    free(is_element);
    free(expected);
    for (i = 0; i <= MAX_INPUTS; ++i)
    {
        if (buffers[i])
            release_last(buffers[i]);
    }
    release_last(compiled);
    free_case_tensors(&t);
    assert_no_log_errors();
}

/* ---- Shapes ---- */

static bool op_allows_type(DML_OPERATOR_TYPE op, DML_TENSOR_DATA_TYPE type);

static void set_sizes(struct ew_case *c, UINT rank, const UINT *sizes)
{
    c->rank = rank;
    memcpy(c->sizes, sizes, rank * sizeof(*sizes));
}

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
        for (k = 0; k < ARRAY_SIZE(ops); ++k)
        {
            struct ew_case c = {ops[k], types[j]};

            if (!op_allows_type(c.op, c.type))
                continue;
            set_sizes(&c, 1, tail_sizes);
            run_case(context, &c);
            for (i = 0; i < ARRAY_SIZE(layouts); ++i)
            {
                c = (struct ew_case){ops[k], types[j]};
                set_sizes(&c, 3, sizes);
                c.strides[0] = layouts[i].a;
                c.strides[1] = input_count(c.op) > 1 ? layouts[i].b : NULL;
                c.strides[MAX_INPUTS] = layouts[i].out;
                c.in_place = layouts[i].in_place;
                run_case(context, &c);
            }
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

static const DML_TENSOR_DATA_TYPE all_types[] =
{
    DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_FLOAT64,
    DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_UINT16, DML_TENSOR_DATA_TYPE_UINT8,
    DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_INT16, DML_TENSOR_DATA_TYPE_INT8,
    DML_TENSOR_DATA_TYPE_UINT64, DML_TENSOR_DATA_TYPE_INT64,
};

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

    for (j = 0; j < ARRAY_SIZE(all_types); ++j)
    {
        if (!dml_test_data_type_supported(context, all_types[j]))
        {
            fprintf(stderr, "%s tensors are not supported by this device: skipped.\n",
                    dml_test_type_name(all_types[j]));
            continue;
        }
        for (i = 0; i < ARRAY_SIZE(ops); ++i)
        {
            struct ew_case c = {ops[i], all_types[j]};

            if (!op_allows_type(ops[i], all_types[j]))
                continue;
            set_sizes(&c, 3, sizes);
            run_case(context, &c);
            /* And with the second input (or the only one) broadcast. */
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
            c.tolerance = default_tolerance(types[j]);
            c.tolerance.abs *= 16;
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

/* ---- Desc rules ---- */

static void expect_invalid(struct dml_test_context *context, DML_OPERATOR_TYPE type, const void *desc,
        const char *message)
{
    IDMLOperator *op = (IDMLOperator *)(uintptr_t)0xdeadbeef;

    check_hr(dml_test_create_operator(context, type, desc, &op), E_INVALIDARG);
    assert_null(op);
    assert_logged_error(message);
}

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
    expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_ADD, &add,
            "CreateOperator(ELEMENT_WISE_ADD): BTensor.Sizes[2]=5 is not broadcastable to OutputTensor.Sizes[2]=4");
    add = (DML_ELEMENT_WISE_ADD_OPERATOR_DESC){&f32_b5.desc, &f32.desc, &f32.desc};
    expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_MULTIPLY, &add,
            "CreateOperator(ELEMENT_WISE_MULTIPLY): ATensor.Sizes[2]=5 is not broadcastable");
    add = (DML_ELEMENT_WISE_ADD_OPERATOR_DESC){&f32.desc, &f32_rank2.desc, &f32.desc};
    expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_ADD, &add, "BTensor.DimensionCount=2 must equal OutputTensor");
    add = (DML_ELEMENT_WISE_ADD_OPERATOR_DESC){&f32.desc, &i32.desc, &f32.desc};
    expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_ADD, &add,
            "BTensor.DataType=INT32 must equal OutputTensor.DataType=FLOAT32");
    identity = (DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC){&f32.desc, &i32.desc, NULL};
    expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_IDENTITY, &identity, "InputTensor.DataType=FLOAT32 must equal");

    /* Types the operator does not take. */
    add1 = (DML_ELEMENT_WISE_ADD1_OPERATOR_DESC){&i32.desc, &i32.desc, &i32.desc, NULL};
    expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_ADD1, &add1,
            "CreateOperator(ELEMENT_WISE_ADD1): OutputTensor.DataType=INT32 is not supported");
    relu = (DML_ACTIVATION_RELU_OPERATOR_DESC){&u32.desc, &u32.desc};
    expect_invalid(context, DML_OPERATOR_ACTIVATION_RELU, &relu,
            "CreateOperator(ACTIVATION_RELU): OutputTensor.DataType=UINT32 is not supported");

    /* ScaleBias on integers. */
    identity = (DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC){&i32.desc, &i32.desc, &scale_bias};
    expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_IDENTITY, &identity, "ScaleBias must be NULL for INT32");

    /* Fused activations DirectML does not fuse into ADD1. */
    add1 = (DML_ELEMENT_WISE_ADD1_OPERATOR_DESC){&f32.desc, &f32.desc, &f32.desc, &activation};
    activation = (DML_OPERATOR_DESC){DML_OPERATOR_ACTIVATION_SOFTMAX, &softmax};
    expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_ADD1, &add1,
            "CreateOperator(ELEMENT_WISE_ADD1): FusedActivation.Type=ACTIVATION_SOFTMAX is not a fusible activation");
    activation = (DML_OPERATOR_DESC){DML_OPERATOR_ELEMENT_WISE_CLIP, &clip};
    expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_ADD1, &add1, "ELEMENT_WISE_CLIP may be fused only into");
    activation = (DML_OPERATOR_DESC){DML_OPERATOR_ELEMENT_WISE_ADD, &not_an_activation};
    expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_ADD1, &add1, "FusedActivation.Type=ELEMENT_WISE_ADD");

    /* A fused activation has no tensors of its own. */
    relu_with_input = (DML_ACTIVATION_RELU_OPERATOR_DESC){&f32.desc, NULL};
    activation = (DML_OPERATOR_DESC){DML_OPERATOR_ACTIVATION_RELU, &relu_with_input};
    expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_ADD1, &add1, "FusedActivation.InputTensor must be NULL");
    relu_with_input = (DML_ACTIVATION_RELU_OPERATOR_DESC){NULL, &f32.desc};
    expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_ADD1, &add1, "FusedActivation.OutputTensor must be NULL");

    /* Element offsets must fit the kernel's 32 bits. */
    add = (DML_ELEMENT_WISE_ADD_OPERATOR_DESC){&huge.desc, &f32.desc, &f32.desc};
    expect_invalid(context, DML_OPERATOR_ELEMENT_WISE_ADD, &add, "ATensor addresses element 6442450947");

    /* The device is still usable. */
    add = (DML_ELEMENT_WISE_ADD_OPERATOR_DESC){&f32.desc, &f32.desc, &f32.desc};
    compiled = dml_test_compile(context, DML_OPERATOR_ELEMENT_WISE_ADD, &add, DML_EXECUTION_FLAG_NONE);
    release_last(compiled);
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
        TEST(test_invalid_descs),
#undef TEST
    };

    /* Logging first: it keeps the Vulkan driver loaded for LeakSanitizer (test_utils.c). */
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
