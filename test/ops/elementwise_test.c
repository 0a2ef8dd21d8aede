/* The element-wise tests' harness (elementwise_test.h). */
#include "elementwise_test.h"

#include <float.h>
#include <stdlib.h>

const DML_TENSOR_DATA_TYPE ewt_all_types[11] =
{
    DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_FLOAT64,
    DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_UINT16, DML_TENSOR_DATA_TYPE_UINT8,
    DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_INT16, DML_TENSOR_DATA_TYPE_INT8,
    DML_TENSOR_DATA_TYPE_UINT64, DML_TENSOR_DATA_TYPE_INT64,
};

/* ---- Types and values ---- */

bool ewt_is_float(DML_TENSOR_DATA_TYPE type)
{
    return type == DML_TENSOR_DATA_TYPE_FLOAT32 || type == DML_TENSOR_DATA_TYPE_FLOAT16
            || type == DML_TENSOR_DATA_TYPE_FLOAT64;
}

bool ewt_is_signed(DML_TENSOR_DATA_TYPE type)
{
    return type == DML_TENSOR_DATA_TYPE_INT8 || type == DML_TENSOR_DATA_TYPE_INT16
            || type == DML_TENSOR_DATA_TYPE_INT32 || type == DML_TENSOR_DATA_TYPE_INT64;
}

unsigned int ewt_bits(DML_TENSOR_DATA_TYPE type)
{
    return dml_test_element_size(type) * 8;
}

uint64_t ewt_wrap(DML_TENSOR_DATA_TYPE type, uint64_t u)
{
    unsigned int bits = ewt_bits(type);

    if (bits == 64)
        return u;
    u &= ((uint64_t)1 << bits) - 1;
    if (ewt_is_signed(type) && (u >> (bits - 1)))
        u |= ~(((uint64_t)1 << bits) - 1);
    return u;
}

int64_t ewt_min(DML_TENSOR_DATA_TYPE type)
{
    return ewt_is_signed(type) ? (int64_t)(UINT64_MAX << (ewt_bits(type) - 1)) : 0;
}

uint64_t ewt_max(DML_TENSOR_DATA_TYPE type)
{
    unsigned int bits = ewt_bits(type) - (ewt_is_signed(type) ? 1 : 0);

    return bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
}

double ewt_round(DML_TENSOR_DATA_TYPE type, double v)
{
    if (type == DML_TENSOR_DATA_TYPE_FLOAT32)
        return (float)v;
    if (type == DML_TENSOR_DATA_TYPE_FLOAT16)
        return ref_round_to_half((float)v);
    return v;
}

double ewt_ulp(DML_TENSOR_DATA_TYPE type, double v)
{
    int mantissa = type == DML_TENSOR_DATA_TYPE_FLOAT16 ? 10 : type == DML_TENSOR_DATA_TYPE_FLOAT32 ? 23 : 52;
    int min_exponent = type == DML_TENSOR_DATA_TYPE_FLOAT16 ? -14 : type == DML_TENSOR_DATA_TYPE_FLOAT32 ? -126 : -1022;
    int exponent;

    frexp(fabs(v), &exponent);
    return ldexp(1.0, (exponent - 1 < min_exponent ? min_exponent : exponent - 1) - mantissa);
}

struct ewt_tolerance ewt_default_tolerance(DML_TENSOR_DATA_TYPE type)
{
    /* Exact operators round once to the output type; fp16 results come through fp32. */
    struct ewt_tolerance tolerance = {type == DML_TENSOR_DATA_TYPE_FLOAT16 ? 1.0 : 0.0, 0.0};

    return tolerance;
}

UINT ewt_edge_values(DML_TENSOR_DATA_TYPE type, struct ewt_value *values)
{
    static const double floats[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -1.0, 0.5, -0.5, 1.5, -2.5, 3.0};
    UINT n = 0, i;

    if (ewt_is_float(type))
    {
        for (i = 0; i < ARRAY_SIZE(floats); ++i)
            values[n++] = ewt_f(floats[i]);
        /* The largest finite values, the smallest normal and a denormal of the type. */
        values[n++] = ewt_f(type == DML_TENSOR_DATA_TYPE_FLOAT16 ? 65504.0 : type == DML_TENSOR_DATA_TYPE_FLOAT32 ? FLT_MAX : DBL_MAX);
        values[n++] = ewt_f(type == DML_TENSOR_DATA_TYPE_FLOAT16 ? -65504.0 : type == DML_TENSOR_DATA_TYPE_FLOAT32 ? -FLT_MAX : -DBL_MAX);
        values[n++] = ewt_f(type == DML_TENSOR_DATA_TYPE_FLOAT16 ? ldexp(1.0, -14) : type == DML_TENSOR_DATA_TYPE_FLOAT32 ? FLT_MIN : DBL_MIN);
        values[n++] = ewt_f(type == DML_TENSOR_DATA_TYPE_FLOAT16 ? ldexp(3.0, -24) : type == DML_TENSOR_DATA_TYPE_FLOAT32 ? ldexp(3.0, -149) : ldexp(3.0, -1074));
        values[n++] = ewt_f(type == DML_TENSOR_DATA_TYPE_FLOAT16 ? -ldexp(5.0, -24) : type == DML_TENSOR_DATA_TYPE_FLOAT32 ? -ldexp(5.0, -140) : -ldexp(5.0, -1070));
        return n;
    }
    values[n++] = ewt_i(0);
    values[n++] = ewt_i(1);
    values[n++] = ewt_i(2);
    values[n++] = ewt_i(-1);
    values[n++] = ewt_i(-2);
    values[n++] = ewt_i(ewt_min(type));
    values[n++] = ewt_i((int64_t)ewt_max(type));
    values[n++] = ewt_i(ewt_min(type) + 1);
    values[n++] = ewt_i((int64_t)ewt_max(type) - 1);
    values[n++] = ewt_i(7);
    for (i = 0; i < n; ++i)
        values[i].u = ewt_wrap(type, values[i].u);
    return n;
}

const char *ewt_op_name(DML_OPERATOR_TYPE op)
{
    switch (op)
    {
#define NAME(x) case DML_OPERATOR_##x: return #x;
        NAME(ELEMENT_WISE_IDENTITY) NAME(ELEMENT_WISE_ABS) NAME(ELEMENT_WISE_ACOS) NAME(ELEMENT_WISE_ADD)
        NAME(ELEMENT_WISE_ASIN) NAME(ELEMENT_WISE_ATAN) NAME(ELEMENT_WISE_CEIL) NAME(ELEMENT_WISE_CLIP)
        NAME(ELEMENT_WISE_COS) NAME(ELEMENT_WISE_DIVIDE) NAME(ELEMENT_WISE_EXP) NAME(ELEMENT_WISE_FLOOR)
        NAME(ELEMENT_WISE_LOG) NAME(ELEMENT_WISE_LOGICAL_AND) NAME(ELEMENT_WISE_LOGICAL_EQUALS)
        NAME(ELEMENT_WISE_LOGICAL_GREATER_THAN) NAME(ELEMENT_WISE_LOGICAL_LESS_THAN) NAME(ELEMENT_WISE_LOGICAL_NOT)
        NAME(ELEMENT_WISE_LOGICAL_OR) NAME(ELEMENT_WISE_LOGICAL_XOR) NAME(ELEMENT_WISE_MAX) NAME(ELEMENT_WISE_MEAN)
        NAME(ELEMENT_WISE_MIN) NAME(ELEMENT_WISE_MULTIPLY) NAME(ELEMENT_WISE_POW) NAME(ELEMENT_WISE_CONSTANT_POW)
        NAME(ELEMENT_WISE_RECIP) NAME(ELEMENT_WISE_SIN) NAME(ELEMENT_WISE_SQRT) NAME(ELEMENT_WISE_SUBTRACT)
        NAME(ELEMENT_WISE_TAN) NAME(ELEMENT_WISE_THRESHOLD) NAME(ELEMENT_WISE_SIGN) NAME(ELEMENT_WISE_IS_NAN)
        NAME(ELEMENT_WISE_ERF) NAME(ELEMENT_WISE_SINH) NAME(ELEMENT_WISE_COSH) NAME(ELEMENT_WISE_TANH)
        NAME(ELEMENT_WISE_ASINH) NAME(ELEMENT_WISE_ACOSH) NAME(ELEMENT_WISE_ATANH) NAME(ELEMENT_WISE_IF)
        NAME(ELEMENT_WISE_ADD1) NAME(ELEMENT_WISE_BIT_SHIFT_LEFT) NAME(ELEMENT_WISE_BIT_SHIFT_RIGHT)
        NAME(ELEMENT_WISE_ROUND) NAME(ELEMENT_WISE_IS_INFINITY) NAME(ELEMENT_WISE_MODULUS_TRUNCATE)
        NAME(ELEMENT_WISE_MODULUS_FLOOR) NAME(ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL)
        NAME(ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL) NAME(ELEMENT_WISE_BIT_AND) NAME(ELEMENT_WISE_BIT_OR)
        NAME(ELEMENT_WISE_BIT_XOR) NAME(ELEMENT_WISE_BIT_NOT) NAME(ELEMENT_WISE_BIT_COUNT)
        NAME(ELEMENT_WISE_ATAN_YX) NAME(ELEMENT_WISE_DIFFERENCE_SQUARE) NAME(ELEMENT_WISE_CLIP1)
        NAME(ELEMENT_WISE_NEGATE) NAME(ACTIVATION_ELU) NAME(ACTIVATION_HARD_SIGMOID) NAME(ACTIVATION_IDENTITY)
        NAME(ACTIVATION_LEAKY_RELU) NAME(ACTIVATION_LINEAR) NAME(ACTIVATION_PARAMETERIZED_RELU)
        NAME(ACTIVATION_PARAMETRIC_SOFTPLUS) NAME(ACTIVATION_RELU) NAME(ACTIVATION_SCALED_ELU)
        NAME(ACTIVATION_SCALED_TANH) NAME(ACTIVATION_SIGMOID) NAME(ACTIVATION_SOFTPLUS) NAME(ACTIVATION_SOFTSIGN)
        NAME(ACTIVATION_TANH) NAME(ACTIVATION_THRESHOLDED_RELU) NAME(ACTIVATION_SHRINK) NAME(ACTIVATION_CELU)
        NAME(ACTIVATION_GELU) NAME(ACTIVATION_SWISH) NAME(ACTIVATION_HARD_SWISH)
#undef NAME
        default: return "?";
    }
}

uint64_t ewt_int_pow(DML_TENSOR_DATA_TYPE type, uint64_t x, double e)
{
    bool s = ewt_is_signed(type);
    uint64_t r = 1, n;
    double v;

    if (isnan(e))
        return 0;
    if (floor(e) == e && fabs(e) < 4294967296.0)
    {
        if (e < 0)
        {
            if (x == 1)
                return 1;
            if (s && (int64_t)x == -1)
                return ((uint64_t)-e & 1) ? x : 1;
            return x == 0 ? UINT64_MAX : 0;
        }
        for (n = (uint64_t)e; n; n >>= 1, x *= x)
        {
            if (n & 1)
                r *= x;
        }
        return r;
    }
    v = pow(s ? (double)(int64_t)x : (double)x, e);
    if (isnan(v))
        return 0;
    if (s)
        return v >= 2147483648.0 ? INT32_MAX : v <= -2147483648.0 ? (uint64_t)(int64_t)INT32_MIN : (uint64_t)(int64_t)v;
    return v >= 4294967296.0 ? UINT32_MAX : v <= 0.0 ? 0 : (uint64_t)v;
}

/* log(1 + e^x) without overflow for large x. */
static double softplus(double x)
{
    return isnan(x) ? x : fmax(x, 0.0) + log1p(exp(-fabs(x)));
}

double ewt_activation(const DML_OPERATOR_DESC *activation, double x)
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
            return isnan(x) ? x : fmax(0.0, fmin(h->Alpha * x + h->Beta, 1.0));
        }
        case DML_OPERATOR_ACTIVATION_TANH:
            return tanh(x);
        case DML_OPERATOR_ACTIVATION_SCALED_TANH:
        {
            const DML_ACTIVATION_SCALED_TANH_OPERATOR_DESC *s = d;
            return s->Alpha * tanh(s->Beta * x);
        }
        case DML_OPERATOR_ACTIVATION_RELU:
            return x <= 0.0 ? 0.0 : x;          /* max(-0, 0) = +0 */
        case DML_OPERATOR_ACTIVATION_LEAKY_RELU:
            return x >= 0.0 || isnan(x) ? x : ((const DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC *)d)->Alpha * x;
        case DML_OPERATOR_ACTIVATION_THRESHOLDED_RELU:
            return x > ((const DML_ACTIVATION_THRESHOLDED_RELU_OPERATOR_DESC *)d)->Alpha || isnan(x) ? x : 0.0;
        case DML_OPERATOR_ACTIVATION_ELU:
            return x >= 0.0 || isnan(x) ? x : ((const DML_ACTIVATION_ELU_OPERATOR_DESC *)d)->Alpha * expm1(x);
        case DML_OPERATOR_ACTIVATION_CELU:
        {
            double alpha = ((const DML_ACTIVATION_CELU_OPERATOR_DESC *)d)->Alpha;
            return isnan(x) ? x : fmax(0.0, x) + fmin(0.0, alpha * expm1(x / alpha));
        }
        case DML_OPERATOR_ACTIVATION_SCALED_ELU:
        {
            const DML_ACTIVATION_SCALED_ELU_OPERATOR_DESC *s = d;
            return s->Gamma * (x > 0.0 || isnan(x) ? x : s->Alpha * expm1(x));
        }
        case DML_OPERATOR_ACTIVATION_SOFTPLUS:
        {
            double steepness = ((const DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC *)d)->Steepness;
            return softplus(steepness * x) / steepness;
        }
        case DML_OPERATOR_ACTIVATION_PARAMETRIC_SOFTPLUS:
        {
            const DML_ACTIVATION_PARAMETRIC_SOFTPLUS_OPERATOR_DESC *p = d;
            return p->Alpha * softplus(p->Beta * x);
        }
        case DML_OPERATOR_ACTIVATION_SOFTSIGN:
            return isinf(x) ? copysign(1.0, x) : x / (1.0 + fabs(x));
        case DML_OPERATOR_ACTIVATION_SHRINK:
        {
            const DML_ACTIVATION_SHRINK_OPERATOR_DESC *s = d;
            return x < -s->Threshold ? x + s->Bias : (x > s->Threshold ? x - s->Bias : (isnan(x) ? x : 0.0));
        }
        case DML_OPERATOR_ACTIVATION_GELU:
            /* 0.5 x (1 + erf(x / sqrt(2))), without the cancellation of 1 + erf for x < 0. */
            return x < -40.0 ? 0.0 : 0.5 * x * erfc(-x / sqrt(2.0));
        case DML_OPERATOR_ACTIVATION_SWISH:
        {
            double scale = ((const DML_ACTIVATION_SWISH_OPERATOR_DESC *)d)->SigmoidInputScale;
            double gate = 1.0 / (1.0 + exp(-scale * x));
            return gate == 0.0 ? 0.0 : x * gate;
        }
        case DML_OPERATOR_ACTIVATION_HARD_SWISH:
        {
            const DML_ACTIVATION_HARD_SWISH_OPERATOR_DESC *h = d;
            double gate = fmax(0.0, fmin(1.0, h->Alpha * x + h->Beta));
            return isnan(x) ? x : (gate == 0.0 ? 0.0 : x * gate);
        }
        default:
            fail_msg("no reference for activation %d", (int)activation->Type);
            return 0.0;
    }
}

bool ewt_verbose(void)
{
    const char *value = getenv("EWT_VERBOSE");

    return value && *value && strcmp(value, "0");
}

/* ---- Element I/O ---- */

static struct ewt_value read_value(DML_TENSOR_DATA_TYPE type, const uint8_t *bytes, UINT64 element)
{
    const uint8_t *p = bytes + element * dml_test_element_size(type);
    struct ewt_value v = {0.0, 0};
    uint16_t u16;
    float f32;

    switch (type)
    {
        case DML_TENSOR_DATA_TYPE_FLOAT32: memcpy(&f32, p, 4); v.f = f32; break;
        case DML_TENSOR_DATA_TYPE_FLOAT16: memcpy(&u16, p, 2); v.f = ref_half_to_float(u16); break;
        case DML_TENSOR_DATA_TYPE_FLOAT64: memcpy(&v.f, p, 8); break;
        default:
            memcpy(&v.u, p, dml_test_element_size(type));      /* little-endian: the low bytes */
            v.u = ewt_wrap(type, v.u);
            break;
    }
    return v;
}

static void write_value(DML_TENSOR_DATA_TYPE type, uint8_t *bytes, UINT64 element, struct ewt_value v)
{
    unsigned int size = dml_test_element_size(type);
    uint8_t *p = bytes + element * size;
    uint16_t u16;
    float f32;

    switch (type)
    {
        case DML_TENSOR_DATA_TYPE_FLOAT32: f32 = (float)v.f; memcpy(p, &f32, 4); break;
        case DML_TENSOR_DATA_TYPE_FLOAT16: u16 = ref_float_to_half((float)v.f); memcpy(p, &u16, 2); break;
        case DML_TENSOR_DATA_TYPE_FLOAT64: memcpy(p, &v.f, 8); break;
        default: memcpy(p, &v.u, size); break;
    }
}

static uint64_t random64(uint32_t *rng)
{
    uint64_t hi = ref_random(rng);

    return hi << 32 | ref_random(rng);
}

static struct ewt_value random_value(const struct ewt_case *c, UINT input, uint32_t *rng)
{
    DML_TENSOR_DATA_TYPE type = c->types[input];
    double lo = c->lo[input], hi = c->hi[input];
    uint64_t span;

    if (ewt_is_float(type))
    {
        if (lo == 0.0 && hi == 0.0)
            lo = -10.0, hi = 10.0;
        return ewt_f(lo + (hi - lo) * (ref_random(rng) / 4294967296.0));
    }
    if (lo == 0.0 && hi == 0.0)
        return ewt_i((int64_t)ewt_wrap(type, random64(rng)));
    span = (uint64_t)(hi - lo) + 1;
    return ewt_i((int64_t)lo + (int64_t)(random64(rng) % span));
}

/* ---- One case ---- */

struct case_buffers
{
    struct dml_test_tensor tensors[EWT_TENSORS];
    uint8_t *initial[EWT_TENSORS];      /* buffer contents before the dispatch */
    UINT64 size[EWT_TENSORS];
};

static void fill_input(const struct ewt_case *c, struct case_buffers *b, UINT i, uint32_t *rng)
{
    const struct dml_test_tensor *tensor = &b->tensors[i];
    uint8_t *data = b->initial[i] + c->binding_offset;
    UINT64 count = dml_test_element_count(tensor), index;

    for (index = 0; index < count; ++index)
    {
        struct ewt_value v = index < c->special_count && c->specials[i] ? c->specials[i][index]
                : random_value(c, i, rng);

        if (!ewt_is_float(c->types[i]))
            v.u = ewt_wrap(c->types[i], v.u);
        write_value(c->types[i], data, dml_test_element_offset(tensor, index), v);
    }
}

static void init_buffers(const struct ewt_case *c, struct case_buffers *b, uint32_t *rng)
{
    UINT t, i;

    for (t = 0; t < EWT_TENSORS; ++t)
    {
        struct dml_test_tensor *tensor = &b->tensors[t];

        if (t >= c->inputs && t != EWT_OUT)
            continue;
        dml_test_tensor_init(tensor, c->types[t], c->rank, c->sizes, c->strides[t]);
        if (c->owned && t != EWT_OUT)
            tensor->buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
        /* Room around the tensor, so stray writes show up as changed bytes. */
        b->size[t] = c->binding_offset + ((tensor->buffer.TotalTensorSizeInBytes + 64 + 3) & ~3ull);
        assert_non_null(b->initial[t] = malloc(b->size[t]));
        for (i = 0; i < b->size[t]; ++i)
            b->initial[t][i] = (uint8_t)ref_random(rng);
        if (t != EWT_OUT)
            fill_input(c, b, t, rng);
    }
}

static void free_buffers(struct case_buffers *b)
{
    UINT t;

    for (t = 0; t < EWT_TENSORS; ++t)
        free(b->initial[t]);
}

union any_desc
{
    const DML_TENSOR_DESC *tensors[EWT_TENSORS];
    uint8_t bytes[128];
};

/* The template with the tensor pointers filled in (every element-wise desc starts with them). */
static void make_desc(const struct ewt_case *c, struct case_buffers *b, union any_desc *desc)
{
    UINT i;

    memset(desc, 0, sizeof(*desc));
    assert_true(c->desc_size <= sizeof(*desc));
    if (c->desc)
        memcpy(desc, c->desc, c->desc_size);
    for (i = 0; i < c->inputs; ++i)
        desc->tensors[i] = &b->tensors[i].desc;
    desc->tensors[c->inputs] = &b->tensors[EWT_OUT].desc;
}

static bool is_denormal32(double v)
{
    return v != 0.0 && fabs(v) < FLT_MIN;
}

static bool float_matches(const struct ewt_case *c, double got, double expected, struct ewt_tolerance tol)
{
    DML_TENSOR_DATA_TYPE type = c->types[EWT_OUT];

    if (isnan(expected))
        return isnan(got);
    if (isinf(expected))
        return got == expected;
    /* A device that flushes denormals may flush any of them, or none (a value moved through a
     * select): every fp32 denormal and zero count as one value. */
    if (type == DML_TENSOR_DATA_TYPE_FLOAT32 && fabs(got) < FLT_MIN && fabs(expected) < FLT_MIN
            && (is_denormal32(got) || is_denormal32(expected)))
        return true;
    if (c->zero_sign && expected == 0.0 && got == 0.0 && signbit(got) != signbit(expected))
        return false;
    return fabs(got - expected) <= tol.ulps * ewt_ulp(type, expected) + tol.abs;
}

/* The expected output for inputs x; with `flush`, fp32 denormal inputs read as zeros. */
static struct ewt_value expected_value(const struct ewt_case *c, const struct ewt_value *x, bool flush)
{
    struct ewt_value in[EWT_INPUTS], y;
    UINT i;

    for (i = 0; i < c->inputs; ++i)
    {
        in[i] = x[i];
        if (flush && c->types[i] == DML_TENSOR_DATA_TYPE_FLOAT32 && is_denormal32(in[i].f))
            in[i].f = copysign(0.0, in[i].f);
    }
    y = c->reference(c, in);
    if (ewt_is_float(c->types[EWT_OUT]))
        y.f = ewt_round(c->types[EWT_OUT], y.f);
    else
        y.u = ewt_wrap(c->types[EWT_OUT], y.u);
    return y;
}

static bool has_denormal_input(const struct ewt_case *c, const struct ewt_value *x)
{
    UINT i;

    for (i = 0; i < c->inputs; ++i)
    {
        if (c->types[i] == DML_TENSOR_DATA_TYPE_FLOAT32 && is_denormal32(x[i].f))
            return true;
    }
    return false;
}

static void describe(const struct ewt_case *c, UINT64 index, const struct ewt_value *x, struct ewt_value got,
        struct ewt_value expected)
{
    bool out_float = ewt_is_float(c->types[EWT_OUT]);
    UINT i;

    fprintf(stderr, "%s %s rank %u, element %llu:", ewt_op_name(c->op), dml_test_type_name(c->types[0]), c->rank,
            (unsigned long long)index);
    for (i = 0; i < c->inputs; ++i)
    {
        if (ewt_is_float(c->types[i]))
            fprintf(stderr, " x%u=%.9g", i, x[i].f);
        else
            fprintf(stderr, " x%u=%lld", i, (long long)x[i].u);
    }
    if (out_float)
        fprintf(stderr, ": got %.9g, expected %.9g (%s)\n", got.f, expected.f, dml_test_type_name(c->types[EWT_OUT]));
    else
        fprintf(stderr, ": got %lld, expected %lld (%s)\n", (long long)got.u, (long long)expected.u,
                dml_test_type_name(c->types[EWT_OUT]));
}

/* Compares every output element; returns the number of mismatches (the first few are printed). */
static unsigned int check_elements(const struct ewt_case *c, const struct case_buffers *b, const uint8_t *got_bytes,
        uint8_t *is_element)
{
    const struct dml_test_tensor *out = &b->tensors[EWT_OUT];
    struct ewt_tolerance tol = c->tolerance.ulps || c->tolerance.abs ? c->tolerance
            : ewt_default_tolerance(c->types[EWT_OUT]);
    unsigned int size = dml_test_element_size(c->types[EWT_OUT]), failures = 0;
    UINT64 count = dml_test_element_count(out), index;
    double worst = 0.0;
    UINT i;

    for (index = 0; index < count; ++index)
    {
        UINT64 element = dml_test_element_offset(out, index);
        struct ewt_value x[EWT_INPUTS], got, expected;
        bool ok;

        for (i = 0; i < c->inputs; ++i)
            x[i] = read_value(c->types[i], b->initial[i] + c->binding_offset,
                    dml_test_element_offset(&b->tensors[i], index));
        got = read_value(c->types[EWT_OUT], got_bytes + c->binding_offset, element);
        expected = expected_value(c, x, false);
        memset(is_element + c->binding_offset + element * size, 1, size);
        if (!ewt_is_float(c->types[EWT_OUT]))
        {
            ok = got.u == expected.u || (has_denormal_input(c, x) && got.u == expected_value(c, x, true).u);
        }
        else
        {
            ok = float_matches(c, got.f, expected.f, tol);
            if (!ok && has_denormal_input(c, x))
                ok = float_matches(c, got.f, expected_value(c, x, true).f, tol);
            if (isfinite(expected.f) && isfinite(got.f))
                worst = fmax(worst, fabs(got.f - expected.f) / ewt_ulp(c->types[EWT_OUT], expected.f));
        }
        if (!ok && failures++ < 8)
            describe(c, index, x, got, expected);
    }
    if (ewt_verbose() && ewt_is_float(c->types[EWT_OUT]))
        fprintf(stderr, "%s %s: largest error %.2f ulp\n", ewt_op_name(c->op), dml_test_type_name(c->types[EWT_OUT]),
                worst);
    return failures;
}

static void check_output(const struct ewt_case *c, const struct case_buffers *b, const uint8_t *got)
{
    UINT out = c->in_place ? 0 : EWT_OUT;
    const uint8_t *initial = b->initial[out];
    unsigned int failures;
    uint8_t *is_element;
    UINT64 byte;

    assert_non_null(is_element = calloc(1, b->size[out]));
    failures = check_elements(c, b, got, is_element);
    for (byte = 0; byte < b->size[out]; ++byte)
    {
        if (!is_element[byte] && got[byte] != initial[byte] && failures++ < 8)
            fprintf(stderr, "%s: byte %llu, not an element, changed from 0x%02x to 0x%02x\n", ewt_op_name(c->op),
                    (unsigned long long)byte, initial[byte], got[byte]);
    }
    free(is_element);
    if (failures)
        fail_msg("%s %s: %u mismatches", ewt_op_name(c->op), dml_test_type_name(c->types[0]), failures);
}

static void execute(struct dml_test_context *context, const struct ewt_case *c, IDMLCompiledOperator *compiled,
        ID3D12Resource *const *buffers, ID3D12Resource *output)
{
    struct dml_test_binding inputs[EWT_INPUTS], out = {output, c->binding_offset, 0};
    ID3D12Resource *persistent;
    UINT i;

    for (i = 0; i < c->inputs; ++i)
        inputs[i] = (struct dml_test_binding){buffers[i], c->binding_offset, 0};
    if (!c->owned)
    {
        dml_test_run(context, compiled, inputs, c->inputs, &out, 1);
        return;
    }
    /* OWNED_BY_DML inputs go to the initializer only; execution binds them as NONE. */
    persistent = dml_test_initialize(context, compiled, inputs, c->inputs);
    for (i = 0; i < c->inputs; ++i)
        inputs[i] = (struct dml_test_binding){NULL, 0, 0};
    dml_test_execute(context, compiled, persistent, inputs, c->inputs, &out, 1);
    if (persistent)
        release_last(persistent);
}

void ewt_run(struct dml_test_context *context, const struct ewt_case *c)
{
    ID3D12Resource *buffers[EWT_TENSORS] = {NULL}, *output;
    static uint32_t rng = 0x12345678u;
    IDMLCompiledOperator *compiled;
    struct case_buffers b = {0};
    union any_desc desc;
    UINT out = c->in_place ? 0 : EWT_OUT, i;
    uint8_t *got;

    init_buffers(c, &b, &rng);
    make_desc(c, &b, &desc);
    compiled = dml_test_compile(context, c->op, &desc, DML_EXECUTION_FLAG_NONE);
    for (i = 0; i < c->inputs; ++i)
        buffers[i] = dml_test_create_buffer(context, b.size[i], b.initial[i]);
    output = c->in_place ? buffers[0] : (buffers[EWT_OUT] = dml_test_create_buffer(context, b.size[EWT_OUT],
            b.initial[EWT_OUT]));
    execute(context, c, compiled, buffers, output);

    assert_non_null(got = malloc(b.size[out]));
    dml_test_read_buffer(context, output, 0, got, b.size[out]);
    check_output(c, &b, got);

    free(got);
    for (i = 0; i < EWT_TENSORS; ++i)
    {
        if (buffers[i])
            release_last(buffers[i]);
    }
    release_last(compiled);
    free_buffers(&b);
    assert_no_log_errors();
}

bool ewt_types_supported(struct dml_test_context *context, const struct ewt_case *c)
{
    UINT i;

    for (i = 0; i < c->inputs; ++i)
    {
        if (!dml_test_data_type_supported(context, c->types[i]))
            return false;
    }
    return dml_test_data_type_supported(context, c->types[EWT_OUT]);
}

void ewt_set_sizes(struct ewt_case *c, UINT rank, const UINT *sizes)
{
    c->rank = rank;
    memcpy(c->sizes, sizes, rank * sizeof(*sizes));
}

void ewt_case_init(struct ewt_case *c, DML_OPERATOR_TYPE op, UINT inputs, DML_TENSOR_DATA_TYPE type, UINT n,
        ewt_reference reference)
{
    UINT i;

    memset(c, 0, sizeof(*c));
    c->op = op;
    c->inputs = inputs;
    for (i = 0; i < EWT_TENSORS; ++i)
        c->types[i] = type;
    c->rank = 1;
    c->sizes[0] = n;
    c->reference = reference;
}
