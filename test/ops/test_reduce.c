/*
 * DML_OPERATOR_REDUCE (every DML_REDUCE_FUNCTION), DML_OPERATOR_ARGMIN and DML_OPERATOR_ARGMAX
 * through the public API, against DirectML's documented examples and a C reference: every
 * function with every data type DirectML lists for it, single, several, non-adjacent and all
 * axes, sizes 1, 7, 33, 1000 and 9000 (rows longer than a workgroup; outputs split into parts),
 * rank 8, padded and 0-stride broadcast inputs, ties in both directions, NaN and +-inf; every
 * kernel mode (reduce_interface.h) with scalar and vector loads; bit-identical repeated runs; an
 * OWNED_BY_DML input; the plans of the GPU benchmarks' shapes. Then the desc rules, each with its
 * error code and log line. Every test ends with every object's final Release returning 0 and no
 * validation message.
 */
#include <inttypes.h>
#include <math.h>

#include "dml_test_utils.h"

#define F32 DML_TENSOR_DATA_TYPE_FLOAT32
#define F16 DML_TENSOR_DATA_TYPE_FLOAT16
#define U32 DML_TENSOR_DATA_TYPE_UINT32
#define U16 DML_TENSOR_DATA_TYPE_UINT16
#define U8 DML_TENSOR_DATA_TYPE_UINT8
#define I32 DML_TENSOR_DATA_TYPE_INT32
#define I16 DML_TENSOR_DATA_TYPE_INT16
#define I8 DML_TENSOR_DATA_TYPE_INT8
#define U64 DML_TENSOR_DATA_TYPE_UINT64
#define I64 DML_TENSOR_DATA_TYPE_INT64

#define MAX_RANK 8

enum value_kind
{
    VALUES_RANDOM,          /* floats in [-2, 2); integers over a range that makes sums wrap */
    VALUES_POSITIVE,        /* floats in [0.25, 2) (LOG_SUM) */
    VALUES_NEAR_ONE,        /* floats in [0.97, 1.03) (MULTIPLY) */
    VALUES_FEW,             /* 0 to 3: many ties */
    VALUES_SPECIAL,         /* -3 to 3 with NaN, +inf, -inf and -0 in some elements */
};

enum layout_kind
{
    LAYOUT_PACKED,
    LAYOUT_PADDED,          /* every dimension's stride padded */
    LAYOUT_BROADCAST,       /* dimension 0 with stride 0 */
};

struct shape
{
    UINT rank, sizes[MAX_RANK];
    UINT axis_count, axes[MAX_RANK];
    enum layout_kind layout;
};

/* Layouts the kernel handles differently (reduce_interface.h: ROW, COLUMN, slices, parts). */
static const struct shape shapes[] =
{
    {2, {7, 33}, 1, {1}, LAYOUT_PACKED},                    /* rows */
    {2, {33, 7}, 1, {0}, LAYOUT_PACKED},                    /* columns */
    {4, {2, 3, 4, 5}, 2, {3, 1}, LAYOUT_PADDED},            /* non-adjacent axes, padded */
    {1, {1000}, 1, {0}, LAYOUT_PACKED},                     /* one long row */
    {2, {3, 1000}, 1, {1}, LAYOUT_BROADCAST},               /* rows of a broadcast input */
    {2, {300, 9}, 1, {0}, LAYOUT_PACKED},                   /* columns in slices */
    {3, {5, 1, 6}, 3, {0, 1, 2}, LAYOUT_PADDED},            /* all axes */
    {3, {4, 1, 6}, 1, {1}, LAYOUT_PACKED},                  /* a size-1 axis: nothing reduced */
    {1, {9000}, 1, {0}, LAYOUT_PACKED},                     /* a row in parts */
    {8, {2, 2, 2, 2, 2, 2, 2, 3}, 4, {0, 2, 4, 6}, LAYOUT_PACKED},   /* rank 8, interleaved axes */
    {2, {1000, 3}, 1, {1}, LAYOUT_PADDED},                  /* short rows, strided */
    {3, {40, 2, 50}, 2, {0, 2}, LAYOUT_PACKED},             /* a row per subgroup, non-adjacent */
    {2, {64, 1000}, 1, {1}, LAYOUT_BROADCAST},              /* a row per subgroup, broadcast */
    {2, {4500, 9}, 1, {0}, LAYOUT_PADDED},                  /* columns in 64 slices, 2 parts */
    {3, {50, 3, 12}, 2, {0, 1}, LAYOUT_PACKED},             /* 4 columns per invocation */
    {3, {2, 4104, 8}, 1, {1}, LAYOUT_PACKED},               /* vectors of columns, 64 slices, 2 parts */
};

struct reduce_case
{
    DML_OPERATOR_TYPE op;
    DML_REDUCE_FUNCTION function;
    DML_AXIS_DIRECTION direction;
    DML_TENSOR_DATA_TYPE in_type, out_type;
    enum value_kind values;
    const struct shape *shape;
};

/* ---- Types ---- */

static bool is_float(DML_TENSOR_DATA_TYPE type)
{
    return type == F32 || type == F16;
}

static bool is_signed(DML_TENSOR_DATA_TYPE type)
{
    return type == I8 || type == I16 || type == I32 || type == I64;
}

static unsigned int type_bits(DML_TENSOR_DATA_TYPE type)
{
    return dml_test_element_size(type) * 8;
}

/* `value` wrapped to `type` (two's complement), sign- or zero-extended to 64 bits. */
static int64_t wrap(DML_TENSOR_DATA_TYPE type, uint64_t value)
{
    unsigned int bits = type_bits(type);

    if (bits == 64)
        return (int64_t)value;
    value &= (UINT64_C(1) << bits) - 1;
    if (is_signed(type) && (value >> (bits - 1)))
        value |= ~((UINT64_C(1) << bits) - 1);
    return (int64_t)value;
}

static bool is_arg(DML_REDUCE_FUNCTION function)
{
    return function == DML_REDUCE_FUNCTION_ARGMAX || function == DML_REDUCE_FUNCTION_ARGMIN;
}

/* ---- Tensors ---- */

struct tensor
{
    UINT rank, sizes[MAX_RANK], strides[MAX_RANK];
    struct dml_test_tensor t;
    size_t span;
    double *floats;                 /* [span] for float types, as stored */
    int64_t *ints;                  /* [span] for integer types, as stored (wrapped) */
};

static void tensor_init(struct tensor *t, DML_TENSOR_DATA_TYPE type, UINT rank, const UINT *sizes,
        enum layout_kind layout)
{
    UINT i, stride = 1;
    size_t last = 0;

    memset(t, 0, sizeof(*t));
    t->rank = rank;
    memcpy(t->sizes, sizes, rank * sizeof(*sizes));
    for (i = rank; i-- > 0; stride = stride * sizes[i] + (layout == LAYOUT_PADDED ? 1 + i % 2 : 0))
        t->strides[i] = stride;
    if (layout == LAYOUT_BROADCAST)
        t->strides[0] = 0;
    for (i = 0; i < rank; ++i)
        last += (size_t)(sizes[i] - 1) * t->strides[i];
    t->span = last + 1;
    dml_test_tensor_init(&t->t, type, rank, sizes, layout == LAYOUT_PACKED ? NULL : t->strides);
    t->floats = calloc(t->span, sizeof(*t->floats));
    t->ints = calloc(t->span, sizeof(*t->ints));
    assert_true(t->floats && t->ints);
}

static void tensor_cleanup(struct tensor *t)
{
    free(t->floats);
    free(t->ints);
}

static double special_value(uint32_t *random)
{
    switch (ref_random(random) % 8)
    {
        case 0:
            return NAN;
        case 1:
            return INFINITY;
        case 2:
            return -INFINITY;
        case 3:
            return -0.0;
        default:
            return (double)(ref_random(random) % 7) - 3.0;
    }
}

static void tensor_fill(struct tensor *t, enum value_kind kind, unsigned int seed)
{
    DML_TENSOR_DATA_TYPE type = t->t.buffer.DataType;
    uint32_t random = 0x9e3779b9u * (seed + 1);
    double value;
    size_t i;

    for (i = 0; i < t->span; ++i)
    {
        if (!is_float(type))
        {
            uint64_t bits = (uint64_t)ref_random(&random) << 32 | ref_random(&random);

            t->ints[i] = wrap(type, kind == VALUES_FEW ? bits % 4 : bits);
            continue;
        }
        switch (kind)
        {
            case VALUES_POSITIVE:
                value = ref_random_float(&random, 0.25f, 2.0f);
                break;
            case VALUES_NEAR_ONE:
                value = ref_random_float(&random, 0.97f, 1.03f);
                break;
            case VALUES_FEW:
                value = ref_random(&random) % 4;
                break;
            case VALUES_SPECIAL:
                value = special_value(&random);
                break;
            default:
                value = ref_random_float(&random, -2.0f, 2.0f);
                break;
        }
        t->floats[i] = type == F16 ? ref_half_to_float(ref_float_to_half((float)value)) : (float)value;
    }
}

static void *tensor_bytes(const struct tensor *t)
{
    DML_TENSOR_DATA_TYPE type = t->t.buffer.DataType;
    uint8_t *bytes = calloc(1, t->t.buffer.TotalTensorSizeInBytes + 8);
    unsigned int size = dml_test_element_size(type);
    size_t i;

    assert_non_null(bytes);
    for (i = 0; i < t->span; ++i)
    {
        if (type == F32)
            ((float *)bytes)[i] = (float)t->floats[i];
        else if (type == F16)
            ((uint16_t *)bytes)[i] = ref_float_to_half((float)t->floats[i]);
        else
            memcpy(bytes + i * size, &t->ints[i], size);        /* little-endian low bytes */
    }
    return bytes;
}

/* ---- Reference ---- */

/* One output's reduction, in the order of the input's logical elements. */
struct accumulator
{
    bool empty;
    double sum, magnitude, product, best, lse_max;
    uint64_t isum, iproduct;
    int64_t ibest;
    uint64_t index, count;
};

/* Whether a wins over b: larger (MAX, ARGMAX) or smaller; NaN wins. */
static bool float_wins(bool largest, double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && !isnan(b);
    return largest ? a > b : a < b;
}

static bool int_wins(bool largest, bool sign, int64_t a, int64_t b)
{
    if (sign)
        return largest ? a > b : a < b;
    return largest ? (uint64_t)a > (uint64_t)b : (uint64_t)a < (uint64_t)b;
}

static bool largest(DML_REDUCE_FUNCTION function)
{
    return function == DML_REDUCE_FUNCTION_ARGMAX || function == DML_REDUCE_FUNCTION_MAX;
}

static void accumulate(struct accumulator *acc, const struct reduce_case *test, const struct tensor *in,
        size_t offset, uint64_t r)
{
    bool last = test->direction == DML_AXIS_DIRECTION_DECREASING, big = largest(test->function), win, tie;
    DML_REDUCE_FUNCTION f = test->function;

    ++acc->count;
    if (is_float(test->in_type))
    {
        double x = in->floats[offset];

        acc->sum += f == DML_REDUCE_FUNCTION_L1 ? fabs(x) : f == DML_REDUCE_FUNCTION_L2
                || f == DML_REDUCE_FUNCTION_SUM_SQUARE ? x * x : x;
        acc->magnitude += f == DML_REDUCE_FUNCTION_L2 || f == DML_REDUCE_FUNCTION_SUM_SQUARE ? x * x : fabs(x);
        acc->product *= x;
        if (!acc->empty && !isnan(acc->lse_max) && (isnan(x) || x > acc->lse_max))
            acc->lse_max = x;
        tie = !acc->empty && (x == acc->best || (isnan(x) && isnan(acc->best)));
        win = acc->empty || float_wins(big, x, acc->best);
        if (acc->empty)
            acc->lse_max = x;
        if (win || (tie && last))
            acc->best = x, acc->index = r;
    }
    else
    {
        int64_t x = in->ints[offset];

        acc->isum += f == DML_REDUCE_FUNCTION_L1 ? (uint64_t)(x < 0 && is_signed(test->in_type) ? -x : x)
                : f == DML_REDUCE_FUNCTION_SUM_SQUARE ? (uint64_t)x * (uint64_t)x : (uint64_t)x;
        acc->iproduct *= (uint64_t)x;
        tie = !acc->empty && x == acc->ibest;
        win = acc->empty || int_wins(big, is_signed(test->in_type), x, acc->ibest);
        if (win || (tie && last))
            acc->ibest = x, acc->index = r;
    }
    acc->empty = false;
}

/* LOG_SUM_EXP's sum of exp(x - max), a second pass. */
static void accumulate_exp(struct accumulator *acc, double x)
{
    if (isinf(acc->lse_max) && x == acc->lse_max)
        acc->sum += 1.0;
    else
        acc->sum += exp(x - acc->lse_max);
}

struct expected
{
    double value, tolerance;
    int64_t ivalue;
};

static double output_epsilon(DML_TENSOR_DATA_TYPE type)
{
    return type == F16 ? 1.0 / 1024 : 1.0 / (1 << 22);
}

static struct expected finish(const struct accumulator *acc, const struct reduce_case *test)
{
    double eps = output_epsilon(test->out_type), n = (double)acc->count, sum_error;
    struct expected e = {0};

    if (is_arg(test->function))
    {
        e.ivalue = (int64_t)acc->index;
        return e;
    }
    if (!is_float(test->in_type))
    {
        if (test->function == DML_REDUCE_FUNCTION_MAX || test->function == DML_REDUCE_FUNCTION_MIN)
            e.ivalue = acc->ibest;
        else
            e.ivalue = wrap(test->out_type, test->function == DML_REDUCE_FUNCTION_MULTIPLY ? acc->iproduct : acc->isum);
        return e;
    }
    /* fp32 accumulation: rounding errors bounded by a few ulps of the magnitudes summed. */
    sum_error = 8.0 / (1 << 23) * acc->magnitude * sqrt(n) + 1e-30;
    switch (test->function)
    {
        case DML_REDUCE_FUNCTION_AVERAGE:
            e.value = acc->sum / n, e.tolerance = sum_error / n;
            break;
        case DML_REDUCE_FUNCTION_L2:
            e.value = sqrt(acc->sum), e.tolerance = sum_error / (2 * e.value + 1e-30);
            break;
        case DML_REDUCE_FUNCTION_LOG_SUM:
            e.value = log(acc->sum), e.tolerance = sum_error / acc->sum;
            break;
        case DML_REDUCE_FUNCTION_LOG_SUM_EXP:
            e.value = acc->lse_max + log(acc->sum);
            e.tolerance = 8.0 / (1 << 23) * (sqrt(n) + fabs(acc->lse_max)) + 1e-6;
            break;
        case DML_REDUCE_FUNCTION_MULTIPLY:
            e.value = acc->product, e.tolerance = fabs(acc->product) * 4.0 / (1 << 23) * n;
            break;
        case DML_REDUCE_FUNCTION_MAX:
        case DML_REDUCE_FUNCTION_MIN:
            e.value = acc->best;
            break;
        default:
            e.value = acc->sum, e.tolerance = sum_error;
            break;
    }
    e.tolerance += fabs(e.value) * eps;
    return e;
}

/* Accumulates every input element into its output's accumulator, in the input's logical order
 * (so reduced indices increase); the exp pass adds LOG_SUM_EXP's terms once the maxima are known. */
static void reference_pass(const struct reduce_case *test, const struct tensor *in, const struct tensor *out,
        struct accumulator *acc, bool exp_pass)
{
    size_t count = dml_test_element_count(&in->t), i, index, o, r;
    UINT d, coordinate[MAX_RANK];

    for (i = 0; i < count; ++i)
    {
        for (d = in->rank, index = i; d-- > 0; index /= in->sizes[d])
            coordinate[d] = index % in->sizes[d];
        for (d = 0, o = 0, r = 0; d < in->rank; ++d)
        {
            if (out->sizes[d] == 1)
                r = r * in->sizes[d] + coordinate[d];
            else
                o = o * out->sizes[d] + coordinate[d];
        }
        if (exp_pass)
            accumulate_exp(&acc[o], in->floats[dml_test_element_offset(&in->t, i)]);
        else
            accumulate(&acc[o], test, in, dml_test_element_offset(&in->t, i), r);
    }
}

/* The expected outputs, row-major over the output's logical elements. */
static struct expected *reference(const struct reduce_case *test, const struct tensor *in, const struct tensor *out)
{
    size_t count = dml_test_element_count(&out->t), o;
    struct accumulator *acc = calloc(count, sizeof(*acc));
    struct expected *expected = calloc(count, sizeof(*expected));

    assert_true(acc && expected);
    for (o = 0; o < count; ++o)
        acc[o] = (struct accumulator){.empty = true, .product = 1.0, .iproduct = 1};
    reference_pass(test, in, out, acc, false);
    if (test->function == DML_REDUCE_FUNCTION_LOG_SUM_EXP)
    {
        for (o = 0; o < count; ++o)
            acc[o].sum = 0.0;
        reference_pass(test, in, out, acc, true);
    }
    for (o = 0; o < count; ++o)
        expected[o] = finish(&acc[o], test);
    free(acc);
    return expected;
}

/* ---- Running a case ---- */

static const char *function_name(DML_REDUCE_FUNCTION function)
{
    static const char *const names[] =
    {
        "ARGMAX", "ARGMIN", "AVERAGE", "L1", "L2", "LOG_SUM", "LOG_SUM_EXP", "MAX", "MIN", "MULTIPLY", "SUM",
        "SUM_SQUARE",
    };

    return names[function];
}

static void case_name(const struct reduce_case *test, char *name, size_t size)
{
    const struct shape *s = test->shape;
    int length;
    UINT i;

    length = snprintf(name, size, "%s %s%s %s->%s sizes", test->op == DML_OPERATOR_REDUCE ? "REDUCE"
            : test->op == DML_OPERATOR_ARGMAX ? "ARGMAX op" : "ARGMIN op", function_name(test->function),
            test->direction ? " DECREASING" : "", dml_test_type_name(test->in_type),
            dml_test_type_name(test->out_type));
    for (i = 0; i < s->rank && length > 0 && (size_t)length < size; ++i)
        length += snprintf(name + length, size - length, "%s%u", i ? "x" : " ", s->sizes[i]);
    for (i = 0; i < s->axis_count && length > 0 && (size_t)length < size; ++i)
        length += snprintf(name + length, size - length, "%s%u", i ? "," : " axes ", s->axes[i]);
}

static bool skip_type(struct dml_test_context *context, DML_TENSOR_DATA_TYPE type, const char *name)
{
    if (dml_test_data_type_supported(context, type))
        return false;
    print_message("%s: %s tensors unsupported, skipped\n", name, dml_test_type_name(type));
    return true;
}

static void check_output(const struct reduce_case *test, const char *name, const void *bytes,
        const struct tensor *out, const struct expected *expected)
{
    size_t count = dml_test_element_count(&out->t), i, offset;
    unsigned int size = dml_test_element_size(test->out_type);
    int64_t got_int = 0;
    double got;

    for (i = 0; i < count; ++i)
    {
        offset = dml_test_element_offset(&out->t, i);
        if (is_arg(test->function) || !is_float(test->out_type))
        {
            memcpy(&got_int, (const uint8_t *)bytes + offset * size, size);
            got_int = wrap(test->out_type, (uint64_t)got_int);
            if (got_int != expected[i].ivalue)
                fail_msg("%s: output %zu = %" PRId64 ", expected %" PRId64, name, i, got_int, expected[i].ivalue);
            continue;
        }
        got = test->out_type == F16 ? ref_half_to_float(((const uint16_t *)bytes)[offset])
                : ((const float *)bytes)[offset];
        if (isnan(expected[i].value) ? !isnan(got) : isinf(expected[i].value) ? got != expected[i].value
                : !(fabs(got - expected[i].value) <= expected[i].tolerance))
            fail_msg("%s: output %zu = %.9g, expected %.9g (tolerance %.3g)", name, i, got, expected[i].value,
                    expected[i].tolerance);
    }
}

static void fill_desc(const struct reduce_case *test, struct tensor *in, struct tensor *out,
        DML_REDUCE_OPERATOR_DESC *reduce, DML_ARGMAX_OPERATOR_DESC *arg)
{
    const struct shape *s = test->shape;

    *reduce = (DML_REDUCE_OPERATOR_DESC){test->function, &in->t.desc, &out->t.desc, s->axis_count, s->axes};
    *arg = (DML_ARGMAX_OPERATOR_DESC){&in->t.desc, &out->t.desc, s->axis_count, s->axes, test->direction};
}

static void run_case(struct dml_test_context *context, const struct reduce_case *test, unsigned int seed)
{
    const struct shape *s = test->shape;
    struct dml_test_binding input = {NULL}, output = {NULL};
    DML_REDUCE_OPERATOR_DESC reduce;
    DML_ARGMAX_OPERATOR_DESC arg;
    IDMLCompiledOperator *compiled;
    struct expected *expected;
    struct tensor in, out;
    UINT out_sizes[MAX_RANK], i;
    void *bytes, *result;
    char name[160];
    size_t size;

    case_name(test, name, sizeof(name));
    if (skip_type(context, test->in_type, name) || skip_type(context, test->out_type, name))
        return;
    memcpy(out_sizes, s->sizes, sizeof(out_sizes));
    for (i = 0; i < s->axis_count; ++i)
        out_sizes[s->axes[i]] = 1;
    tensor_init(&in, test->in_type, s->rank, s->sizes, s->layout);
    tensor_init(&out, test->out_type, s->rank, out_sizes, s->layout == LAYOUT_PADDED ? LAYOUT_PADDED : LAYOUT_PACKED);
    tensor_fill(&in, test->values, seed);
    fill_desc(test, &in, &out, &reduce, &arg);
    compiled = dml_test_compile(context, test->op, test->op == DML_OPERATOR_REDUCE ? (void *)&reduce : (void *)&arg,
            DML_EXECUTION_FLAG_NONE);

    bytes = tensor_bytes(&in);
    input.buffer = dml_test_create_buffer(context, in.t.buffer.TotalTensorSizeInBytes, bytes);
    free(bytes);
    size = out.t.buffer.TotalTensorSizeInBytes;
    output.buffer = dml_test_create_buffer(context, size, NULL);
    dml_test_run(context, compiled, &input, 1, &output, 1);
    result = malloc(size);
    assert_non_null(result);
    dml_test_read_buffer(context, output.buffer, 0, result, size);
    expected = reference(test, &in, &out);
    check_output(test, name, result, &out, expected);

    free(expected);
    free(result);
    release_last(input.buffer);
    release_last(output.buffer);
    release_last(compiled);
    tensor_cleanup(&in);
    tensor_cleanup(&out);
    assert_no_log_errors();
}

/* ---- Every function with every type DirectML lists for it ---- */

static const DML_TENSOR_DATA_TYPE all_types[] = {F32, F16, I32, U32, I64, U64, I16, U16, I8, U8};

/* The input types of DML_REDUCE_OPERATOR_DESC's tensor-support table. */
static size_t function_types(DML_REDUCE_FUNCTION function)
{
    switch (function)
    {
        case DML_REDUCE_FUNCTION_AVERAGE:
        case DML_REDUCE_FUNCTION_L2:
        case DML_REDUCE_FUNCTION_LOG_SUM:
        case DML_REDUCE_FUNCTION_LOG_SUM_EXP:
            return 2;
        case DML_REDUCE_FUNCTION_L1:
        case DML_REDUCE_FUNCTION_SUM_SQUARE:
        case DML_REDUCE_FUNCTION_MULTIPLY:
        case DML_REDUCE_FUNCTION_SUM:
            return 6;
        default:
            return 10;
    }
}

static enum value_kind function_values(DML_REDUCE_FUNCTION function)
{
    switch (function)
    {
        case DML_REDUCE_FUNCTION_LOG_SUM:
            return VALUES_POSITIVE;
        case DML_REDUCE_FUNCTION_MULTIPLY:
            return VALUES_NEAR_ONE;
        case DML_REDUCE_FUNCTION_ARGMAX:
        case DML_REDUCE_FUNCTION_ARGMIN:
            return VALUES_FEW;
        default:
            return VALUES_RANDOM;
    }
}

/* Each function x type once, the shapes taken in turn so that every function meets several. */
static void test_functions(void **state)
{
    static const DML_TENSOR_DATA_TYPE index_types[] = {U32, I32, U64, I64};
    unsigned int function, t, n = 0;
    struct reduce_case test;

    for (function = 0; function <= DML_REDUCE_FUNCTION_SUM_SQUARE; ++function)
    {
        for (t = 0; t < function_types(function); ++t, ++n)
        {
            test = (struct reduce_case){DML_OPERATOR_REDUCE, function, DML_AXIS_DIRECTION_INCREASING,
                    all_types[t], all_types[t], function_values(function), &shapes[n % ARRAY_SIZE(shapes)]};
            if (is_arg(function))
                test.out_type = index_types[n % ARRAY_SIZE(index_types)];
            run_case(*state, &test, n);
        }
    }
}

/* ARGMIN / ARGMAX operators: both directions on ties, every shape. */
static void test_arg_operators(void **state)
{
    static const DML_TENSOR_DATA_TYPE in_types[] = {F32, I32, F16, U8, I64};
    static const DML_TENSOR_DATA_TYPE index_types[] = {U32, I64, I32, U64};
    struct reduce_case test;
    unsigned int i;

    for (i = 0; i < 2 * ARRAY_SIZE(shapes); ++i)
    {
        test = (struct reduce_case){i % 2 ? DML_OPERATOR_ARGMIN : DML_OPERATOR_ARGMAX,
                i % 2 ? DML_REDUCE_FUNCTION_ARGMIN : DML_REDUCE_FUNCTION_ARGMAX,
                (i / 2) % 2 ? DML_AXIS_DIRECTION_DECREASING : DML_AXIS_DIRECTION_INCREASING,
                in_types[i % ARRAY_SIZE(in_types)], index_types[i % ARRAY_SIZE(index_types)], VALUES_FEW,
                &shapes[i / 2]};
        run_case(*state, &test, 100 + i);
    }
}

/* Every shape with FLOAT32 SUM and MAX. */
static void test_shapes(void **state)
{
    struct reduce_case test;
    unsigned int i;

    for (i = 0; i < ARRAY_SIZE(shapes); ++i)
    {
        test = (struct reduce_case){DML_OPERATOR_REDUCE, i % 2 ? DML_REDUCE_FUNCTION_MAX : DML_REDUCE_FUNCTION_SUM,
                DML_AXIS_DIRECTION_INCREASING, F32, F32, VALUES_RANDOM, &shapes[i]};
        run_case(*state, &test, 200 + i);
    }
}

/* NaN wins MIN, MAX and ARG*; infinities; -0 ties +0 for ARG* (README, "Reductions (REDUCE, ARGMIN,
 * ARGMAX)"). */
static void test_special_values(void **state)
{
    static const struct shape rows = {2, {7, 40}, 1, {1}, LAYOUT_PACKED};
    static const struct shape columns = {2, {40, 7}, 1, {0}, LAYOUT_PACKED};
    /* FLOAT16 in loads of 8: rows, then 8 columns per invocation; then a row per subgroup. */
    static const struct shape vector_shapes[2] = {{2, {5, 64}, 1, {1}, LAYOUT_PACKED},
            {2, {64, 16}, 1, {0}, LAYOUT_PACKED}};
    static const struct shape subgroup_rows = {2, {40, 64}, 1, {1}, LAYOUT_PACKED};
    static const DML_REDUCE_FUNCTION functions[] =
    {
        DML_REDUCE_FUNCTION_MAX, DML_REDUCE_FUNCTION_MIN, DML_REDUCE_FUNCTION_ARGMAX, DML_REDUCE_FUNCTION_ARGMIN,
        DML_REDUCE_FUNCTION_SUM, DML_REDUCE_FUNCTION_LOG_SUM_EXP,
    };
    struct reduce_case test;
    unsigned int i;

    for (i = 0; i < 2 * ARRAY_SIZE(functions); ++i)
    {
        test = (struct reduce_case){DML_OPERATOR_REDUCE, functions[i / 2], DML_AXIS_DIRECTION_INCREASING,
                i % 2 ? F16 : F32, i % 2 ? F16 : F32, VALUES_SPECIAL, i % 2 ? &columns : &rows};
        if (is_arg(test.function))
            test.out_type = U32;
        run_case(*state, &test, 300 + i);
        test.in_type = F16;
        test.out_type = is_arg(test.function) ? I32 : F16;
        test.shape = &vector_shapes[i % 2];
        if (is_arg(test.function))
        {
            /* The ARG* operators, each direction over rows and over columns. */
            test.op = test.function == DML_REDUCE_FUNCTION_ARGMAX ? DML_OPERATOR_ARGMAX : DML_OPERATOR_ARGMIN;
            test.direction = (i / 2 + i) % 2 ? DML_AXIS_DIRECTION_DECREASING : DML_AXIS_DIRECTION_INCREASING;
        }
        run_case(*state, &test, 330 + i);
        /* The integer subgroup reductions of MIN, MAX and ARG*. */
        if (test.function == DML_REDUCE_FUNCTION_SUM || test.function == DML_REDUCE_FUNCTION_LOG_SUM_EXP)
            continue;
        test.in_type = F32;
        test.out_type = is_arg(test.function) ? U64 : F32;
        test.shape = &subgroup_rows;
        run_case(*state, &test, 350 + i);
    }
    /* ARG* operators over NaN, the last index on ties. */
    test = (struct reduce_case){DML_OPERATOR_ARGMAX, DML_REDUCE_FUNCTION_ARGMAX, DML_AXIS_DIRECTION_DECREASING,
            F32, I64, VALUES_SPECIAL, &rows};
    run_case(*state, &test, 320);
    test = (struct reduce_case){DML_OPERATOR_ARGMIN, DML_REDUCE_FUNCTION_ARGMIN, DML_AXIS_DIRECTION_DECREASING,
            F32, U32, VALUES_SPECIAL, &columns};
    run_case(*state, &test, 321);
}

/* ---- DirectML's documented examples ---- */

static void run_example(struct dml_test_context *context, DML_OPERATOR_TYPE type, const void *desc,
        const struct dml_test_tensor *in, const float *values, const struct dml_test_tensor *out,
        const void *expected, size_t expected_size)
{
    struct dml_test_binding input = {NULL}, output = {NULL};
    IDMLCompiledOperator *compiled;
    uint8_t got[64];

    compiled = dml_test_compile(context, type, desc, DML_EXECUTION_FLAG_NONE);
    input.buffer = dml_test_create_buffer(context, in->buffer.TotalTensorSizeInBytes, values);
    output.buffer = dml_test_create_buffer(context, out->buffer.TotalTensorSizeInBytes, NULL);
    dml_test_run(context, compiled, &input, 1, &output, 1);
    dml_test_read_buffer(context, output.buffer, 0, got, expected_size);
    assert_memory_equal(got, expected, expected_size);
    release_last(input.buffer);
    release_last(output.buffer);
    release_last(compiled);
    assert_no_log_errors();
}

static void test_documented_examples(void **state)
{
    static const float sum_input[9] = {1, 2, 3, 3, 0, 4, 2, 4, 2}, arg_input[9] = {1, 2, 3, 3, 0, 4, 2, 5, 2};
    static const float ties[5] = {3, 2, 1, 2, 3}, columns_sum[3] = {6, 6, 9}, rows_sum[3] = {6, 7, 8};
    static const uint32_t columns_argmax[3] = {1, 2, 1}, rows_argmax[3] = {2, 2, 1}, all_argmax[1] = {7};
    static const uint32_t first[1] = {0}, last[1] = {4};
    static const UINT sizes[2] = {3, 3}, row[2] = {1, 3}, column[2] = {3, 1}, one[2] = {1, 1};
    static const UINT ties_sizes[1] = {5}, ties_out[1] = {1}, axis0[1] = {0}, axis1[1] = {1}, both[2] = {0, 1};
    struct dml_test_context *context = *state;
    struct dml_test_tensor in, out;
    DML_REDUCE_OPERATOR_DESC reduce;
    DML_ARGMAX_OPERATOR_DESC arg;

    dml_test_tensor_init(&in, F32, 2, sizes, NULL);
    dml_test_tensor_init(&out, F32, 2, row, NULL);
    reduce = (DML_REDUCE_OPERATOR_DESC){DML_REDUCE_FUNCTION_SUM, &in.desc, &out.desc, 1, axis0};
    run_example(context, DML_OPERATOR_REDUCE, &reduce, &in, sum_input, &out, columns_sum, sizeof(columns_sum));
    dml_test_tensor_init(&out, F32, 2, column, NULL);
    reduce.Axes = axis1;
    run_example(context, DML_OPERATOR_REDUCE, &reduce, &in, sum_input, &out, rows_sum, sizeof(rows_sum));

    dml_test_tensor_init(&out, U32, 2, row, NULL);
    arg = (DML_ARGMAX_OPERATOR_DESC){&in.desc, &out.desc, 1, axis0, DML_AXIS_DIRECTION_INCREASING};
    run_example(context, DML_OPERATOR_ARGMAX, &arg, &in, arg_input, &out, columns_argmax, sizeof(columns_argmax));
    dml_test_tensor_init(&out, U32, 2, column, NULL);
    arg.Axes = axis1;
    run_example(context, DML_OPERATOR_ARGMAX, &arg, &in, arg_input, &out, rows_argmax, sizeof(rows_argmax));
    dml_test_tensor_init(&out, U32, 2, one, NULL);
    arg.AxisCount = 2, arg.Axes = both;
    run_example(context, DML_OPERATOR_ARGMAX, &arg, &in, arg_input, &out, all_argmax, sizeof(all_argmax));

    dml_test_tensor_init(&in, F32, 1, ties_sizes, NULL);
    dml_test_tensor_init(&out, U32, 1, ties_out, NULL);
    arg = (DML_ARGMAX_OPERATOR_DESC){&in.desc, &out.desc, 1, axis0, DML_AXIS_DIRECTION_INCREASING};
    run_example(context, DML_OPERATOR_ARGMAX, &arg, &in, ties, &out, first, sizeof(first));
    arg.AxisDirection = DML_AXIS_DIRECTION_DECREASING;
    run_example(context, DML_OPERATOR_ARGMAX, &arg, &in, ties, &out, last, sizeof(last));
}

/* ---- Determinism and OWNED_BY_DML ---- */

/* The same input twice gives bit-identical outputs: a row split into parts, whose partial states a
 * second dispatch combines in a fixed order; columns split into slices, combined in a fixed tree. */
static void test_deterministic(void **state)
{
    static const UINT row[1] = {9000}, columns[2] = {300, 9}, one[1] = {1}, column_out[2] = {1, 9};
    static const UINT axis0[1] = {0};
    struct dml_test_context *context = *state;
    struct dml_test_binding input = {NULL}, outputs[2] = {{NULL}, {NULL}};
    uint8_t first[64], second[64];
    IDMLCompiledOperator *compiled;
    DML_REDUCE_OPERATOR_DESC desc;
    ID3D12Resource *persistent;
    struct tensor in, out;
    unsigned int i, run;
    void *bytes;

    for (i = 0; i < 2; ++i)
    {
        tensor_init(&in, F32, i ? 2 : 1, i ? columns : row, LAYOUT_PACKED);
        tensor_init(&out, F32, i ? 2 : 1, i ? column_out : one, LAYOUT_PACKED);
        tensor_fill(&in, VALUES_RANDOM, 400 + i);
        desc = (DML_REDUCE_OPERATOR_DESC){i ? DML_REDUCE_FUNCTION_LOG_SUM_EXP : DML_REDUCE_FUNCTION_SUM, &in.t.desc,
                &out.t.desc, 1, axis0};
        compiled = dml_test_compile(context, DML_OPERATOR_REDUCE, &desc, DML_EXECUTION_FLAG_NONE);
        bytes = tensor_bytes(&in);
        input.buffer = dml_test_create_buffer(context, in.t.buffer.TotalTensorSizeInBytes, bytes);
        free(bytes);
        persistent = dml_test_initialize(context, compiled, NULL, 0);
        for (run = 0; run < 2; ++run)
        {
            outputs[run].buffer = dml_test_create_buffer(context, out.t.buffer.TotalTensorSizeInBytes, NULL);
            dml_test_execute(context, compiled, persistent, &input, 1, &outputs[run], 1);
        }
        if (persistent)
            release_last(persistent);
        dml_test_read_buffer(context, outputs[0].buffer, 0, first, out.t.buffer.TotalTensorSizeInBytes);
        dml_test_read_buffer(context, outputs[1].buffer, 0, second, out.t.buffer.TotalTensorSizeInBytes);
        assert_memory_equal(first, second, out.t.buffer.TotalTensorSizeInBytes);
        release_last(input.buffer);
        release_last(outputs[0].buffer);
        release_last(outputs[1].buffer);
        release_last(compiled);
        tensor_cleanup(&in);
        tensor_cleanup(&out);
    }
    assert_no_log_errors();
}

/* An OWNED_BY_DML input is read from the persistent resource: overwriting its source after
 * initialization changes nothing. */
static void test_owned_input(void **state)
{
    static const float values[6] = {1, 5, 2, 7, 7, 3}, zeros[6] = {0};
    static const UINT sizes[2] = {2, 3}, out_sizes[2] = {2, 1}, axis1[1] = {1};
    static const int64_t expected[2] = {1, 0};     /* row 1 ties: the first */
    struct dml_test_context *context = *state;
    struct dml_test_binding owned = {NULL}, input = {NULL}, output = {NULL};
    struct dml_test_tensor in, out;
    IDMLCompiledOperator *compiled;
    ID3D12Resource *persistent;
    DML_ARGMAX_OPERATOR_DESC desc;
    int64_t got[2];

    dml_test_tensor_init(&in, F32, 2, sizes, NULL);
    in.buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    dml_test_tensor_init(&out, I64, 2, out_sizes, NULL);
    desc = (DML_ARGMAX_OPERATOR_DESC){&in.desc, &out.desc, 1, axis1, DML_AXIS_DIRECTION_INCREASING};
    compiled = dml_test_compile(context, DML_OPERATOR_ARGMAX, &desc, DML_EXECUTION_FLAG_NONE);
    owned.buffer = dml_test_create_buffer(context, in.buffer.TotalTensorSizeInBytes, values);
    output.buffer = dml_test_create_buffer(context, out.buffer.TotalTensorSizeInBytes, NULL);
    persistent = dml_test_initialize(context, compiled, &owned, 1);
    dml_test_write_buffer(context, owned.buffer, 0, zeros, sizeof(zeros));
    dml_test_execute(context, compiled, persistent, &input, 1, &output, 1);
    dml_test_read_buffer(context, output.buffer, 0, got, sizeof(got));
    assert_memory_equal(got, expected, sizeof(expected));
    release_last(owned.buffer);
    release_last(output.buffer);
    if (persistent)
        release_last(persistent);
    release_last(compiled);
    assert_no_log_errors();
}

/* ---- The plans of the GPU benchmarks' shapes (compiled, not run) ---- */

static void check_plan(struct dml_test_context *context, DML_TENSOR_DATA_TYPE type, UINT axis_count,
        const UINT *axes, const char *expected)
{
    static const UINT sizes[2] = {8192, 8192};
    UINT out_sizes[2] = {8192, 8192}, i;
    struct dml_test_tensor in, out;
    IDMLCompiledOperator *compiled;
    DML_REDUCE_OPERATOR_DESC desc;
    char trace[256];

    for (i = 0; i < axis_count; ++i)
        out_sizes[axes[i]] = 1;
    dml_test_tensor_init(&in, type, 2, sizes, NULL);
    dml_test_tensor_init(&out, type, 2, out_sizes, NULL);
    desc = (DML_REDUCE_OPERATOR_DESC){DML_REDUCE_FUNCTION_SUM, &in.desc, &out.desc, axis_count, axes};
    compiled = dml_test_compile_traced(context, DML_OPERATOR_REDUCE, &desc, DML_EXECUTION_FLAG_NONE,
            "Reduce kernel: ", trace, sizeof(trace));
    if (trace[0] && strcmp(trace, expected))
        fail_msg("8192x8192 over %u axes: \"%s\", expected \"%s\"", axis_count, trace, expected);
    release_last(compiled);
}

/* Rows: a subgroup each, enough of them, 16-byte loads; the first axis: 16-byte loads of 4
 * FLOAT32 or 8 FLOAT16 columns, 256 workgroups of 32 or 64 slices, no parts; everything: 1024 parts. */
static void test_plans(void **state)
{
    static const UINT last[1] = {1}, first[1] = {0}, both[2] = {0, 1};

    check_plan(*state, F32, 1, last, "subgroup-row, 8192 outputs of 8192 elements (1 kept, 1 reduced dimensions), "
            "1 part(s), 1 slice(s), loads of 4 element(s).");
    check_plan(*state, F16, 1, last, "subgroup-row, 8192 outputs of 8192 elements (1 kept, 1 reduced dimensions), "
            "1 part(s), 1 slice(s), loads of 8 element(s).");
    check_plan(*state, F32, 1, first, "column, 8192 outputs of 8192 elements (1 kept, 1 reduced dimensions), "
            "1 part(s), 32 slice(s), loads of 4 element(s).");
    check_plan(*state, F16, 1, first, "column, 8192 outputs of 8192 elements (1 kept, 1 reduced dimensions), "
            "1 part(s), 64 slice(s), loads of 8 element(s).");
    check_plan(*state, F32, 2, both, "row, 1 outputs of 67108864 elements (0 kept, 1 reduced dimensions), "
            "1024 part(s), 1 slice(s), loads of 4 element(s).");
    assert_no_log_errors();
}

/* ---- Desc rules ---- */

static void test_invalid(void **state)
{
    static const UINT sizes[3] = {2, 3, 4}, reduced[3] = {2, 1, 4}, wrong[3] = {2, 1, 3};
    static const UINT axis1[1] = {1}, axis3[1] = {3}, repeated[2] = {1, 1};
    struct dml_test_context *context = *state;
    struct dml_test_tensor in, out;
    struct dml_test_tensor *tensors[2] = {&in, &out};
    DML_REDUCE_OPERATOR_DESC reduce;
    DML_ARGMAX_OPERATOR_DESC arg;

    dml_test_tensor_init(&in, F32, 3, sizes, NULL);
    dml_test_tensor_init(&out, F32, 3, reduced, NULL);
    reduce = (DML_REDUCE_OPERATOR_DESC){DML_REDUCE_FUNCTION_SUM, &in.desc, &out.desc, 1, axis3};
    dml_test_expect_invalid(context, DML_OPERATOR_REDUCE, &reduce, "Axes[0]=3 must be less than the rank 3.");
    reduce.AxisCount = 2, reduce.Axes = repeated;
    dml_test_expect_invalid(context, DML_OPERATOR_REDUCE, &reduce, "Axes[1]=1 repeats an axis.");
    reduce.AxisCount = 0, reduce.Axes = NULL;
    dml_test_expect_invalid(context, DML_OPERATOR_REDUCE, &reduce, "at least one axis is needed.");
    reduce.AxisCount = 1, reduce.Axes = axis1;
    reduce.Function = (DML_REDUCE_FUNCTION)12;
    dml_test_expect_invalid(context, DML_OPERATOR_REDUCE, &reduce, "Function 12 is not a DML_REDUCE_FUNCTION value.");
    reduce.Function = DML_REDUCE_FUNCTION_SUM;

    dml_test_tensor_init(&out, F32, 3, wrong, NULL);
    dml_test_expect_invalid(context, DML_OPERATOR_REDUCE, &reduce, "OutputTensor.Sizes[2]=3 must be 4");
    dml_test_tensor_init(&out, F32, 3, sizes, NULL);
    dml_test_expect_invalid(context, DML_OPERATOR_REDUCE, &reduce, "OutputTensor.Sizes[1]=3 must be 1");

    /* Types by Function. */
    dml_test_tensor_init(&out, F16, 3, reduced, NULL);
    dml_test_expect_invalid(context, DML_OPERATOR_REDUCE, &reduce,
            "OutputTensor.DataType=FLOAT16 must equal InputTensor.DataType=FLOAT32.");
    in.buffer.DataType = out.buffer.DataType = I32;
    dml_test_update_sizes(tensors, 2);
    reduce.Function = DML_REDUCE_FUNCTION_AVERAGE;
    dml_test_expect_invalid(context, DML_OPERATOR_REDUCE, &reduce,
            "InputTensor.DataType=INT32 is not allowed with Function AVERAGE.");
    in.buffer.DataType = out.buffer.DataType = I8;
    dml_test_update_sizes(tensors, 2);
    reduce.Function = DML_REDUCE_FUNCTION_SUM;
    dml_test_expect_invalid(context, DML_OPERATOR_REDUCE, &reduce,
            "InputTensor.DataType=INT8 is not allowed with Function SUM.");
    in.buffer.DataType = F32, out.buffer.DataType = F32;
    dml_test_update_sizes(tensors, 2);
    reduce.Function = DML_REDUCE_FUNCTION_ARGMAX;
    dml_test_expect_invalid(context, DML_OPERATOR_REDUCE, &reduce,
            "OutputTensor.DataType=FLOAT32 must be UINT32, INT32, UINT64 or INT64 (indices).");

    /* The ARGMAX operator. */
    out.buffer.DataType = U32;
    dml_test_update_sizes(tensors, 2);
    arg = (DML_ARGMAX_OPERATOR_DESC){&in.desc, &out.desc, 1, axis1, (DML_AXIS_DIRECTION)2};
    dml_test_expect_invalid(context, DML_OPERATOR_ARGMAX, &arg, "AxisDirection 2 is not a DML_AXIS_DIRECTION value.");
    arg.AxisDirection = DML_AXIS_DIRECTION_INCREASING;
    arg.Axes = axis3;
    dml_test_expect_invalid(context, DML_OPERATOR_ARGMIN, &arg, "Axes[0]=3 must be less than the rank 3.");
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_documented_examples, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_functions, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_arg_operators, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_shapes, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_special_values, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_deterministic, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_owned_input, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_plans, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_invalid, dml_test_setup, dml_test_teardown),
    };

    /* Logging first: it keeps the Vulkan driver loaded for LeakSanitizer (test_utils.c). */
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
