/*
 * DML_OPERATOR_CUMULATIVE_SUMMATION and DML_OPERATOR_CUMULATIVE_PRODUCT through the public API,
 * checked against DirectML's documented example and a C reference: every data type (FLOAT32,
 * FLOAT16 accumulated in fp32, UINT32, INT32, UINT64, INT64, integers wrapping), ranks 1 to 8,
 * lines of 1 to 5000 elements along the innermost and outer axes (both of the kernel's algorithms,
 * and lines cut into tiles), both directions, inclusive and exclusive, padded strides, 0-stride
 * broadcast inputs, in-place execution, OWNED_BY_DML inputs, NaN and infinities, bit-identical
 * results on a second run. Then the desc rules, each with its error code and log line.
 */
#include <inttypes.h>
#include <math.h>

#include "dml_test_utils.h"

#define F32 DML_TENSOR_DATA_TYPE_FLOAT32
#define F16 DML_TENSOR_DATA_TYPE_FLOAT16
#define U32 DML_TENSOR_DATA_TYPE_UINT32
#define I32 DML_TENSOR_DATA_TYPE_INT32
#define U64 DML_TENSOR_DATA_TYPE_UINT64
#define I64 DML_TENSOR_DATA_TYPE_INT64
#define SUM DML_OPERATOR_CUMULATIVE_SUMMATION
#define PRODUCT DML_OPERATOR_CUMULATIVE_PRODUCT

#define MAX_RANK 8

/* ---- Tensors: raw element bits on the host ---- */

enum layout
{
    PACKED,
    PADDED,             /* both tensors: every dimension padded with unused elements */
    BROADCAST,          /* the input has stride 0 on the dimensions of the case's broadcast mask */
    IN_PLACE,           /* the output bound over the input */
};

struct tensor
{
    UINT rank, sizes[MAX_RANK], strides[MAX_RANK];
    struct dml_test_tensor t;
    size_t span;
    uint64_t *raw;      /* [span] element bits, as stored */
};

static void tensor_init(struct tensor *t, DML_TENSOR_DATA_TYPE type, UINT rank, const UINT *sizes, bool padded,
        UINT broadcast)
{
    UINT i, stride = 1;
    size_t last = 0;

    memset(t, 0, sizeof(*t));
    t->rank = rank;
    memcpy(t->sizes, sizes, rank * sizeof(*sizes));
    for (i = rank; i-- > 0;)
    {
        t->strides[i] = broadcast & (1u << i) ? 0 : stride;
        if (!(broadcast & (1u << i)))
            stride = stride * sizes[i] + (padded ? 1 + i % 2 : 0);
    }
    for (i = 0; i < rank; ++i)
        last += (size_t)(sizes[i] - 1) * t->strides[i];
    t->span = last + 1;
    dml_test_tensor_init(&t->t, type, rank, sizes, padded || broadcast ? t->strides : NULL);
    t->raw = calloc(t->span, sizeof(*t->raw));
    assert_non_null(t->raw);
}

static void tensor_cleanup(struct tensor *t)
{
    free(t->raw);
}

static size_t tensor_offset(const struct tensor *t, const UINT *coordinates)
{
    size_t offset = 0;
    UINT i;

    for (i = 0; i < t->rank; ++i)
        offset += (size_t)coordinates[i] * t->strides[i];
    return offset;
}

static bool is_float(DML_TENSOR_DATA_TYPE type)
{
    return type == F32 || type == F16;
}

static uint64_t type_mask(DML_TENSOR_DATA_TYPE type)
{
    return dml_test_element_size(type) == 8 ? ~(uint64_t)0 : (1ull << (8 * dml_test_element_size(type))) - 1;
}

static double raw_to_double(DML_TENSOR_DATA_TYPE type, uint64_t raw)
{
    float value;
    uint32_t bits = (uint32_t)raw;

    if (type == F16)
        return ref_half_to_float((uint16_t)raw);
    memcpy(&value, &bits, sizeof(value));
    return value;
}

static uint64_t double_to_raw(DML_TENSOR_DATA_TYPE type, double value)
{
    float single = (float)value;
    uint32_t bits;

    if (type == F16)
        return ref_float_to_half(single);
    memcpy(&bits, &single, sizeof(bits));
    return bits;
}

static void *tensor_bytes(const struct tensor *t)
{
    unsigned int size = dml_test_element_size(t->t.buffer.DataType);
    uint8_t *bytes = calloc(1, t->t.buffer.TotalTensorSizeInBytes);
    size_t i;

    assert_non_null(bytes);
    for (i = 0; i < t->span; ++i)
        memcpy(bytes + i * size, &t->raw[i], size);     /* little-endian */
    return bytes;
}

static uint64_t read_raw(const uint8_t *bytes, DML_TENSOR_DATA_TYPE type, size_t index)
{
    unsigned int size = dml_test_element_size(type);
    uint64_t raw = 0;

    memcpy(&raw, bytes + index * size, size);
    return raw;
}

/* ---- Values ---- */

enum values
{
    RANDOM,             /* sums: uniform in [-1, 1] or any integer; products: near +-1, or any integer */
    SPECIAL,            /* floats with some NaN, +inf, -inf and zeros among them */
};

static uint64_t random_raw(DML_TENSOR_DATA_TYPE type, DML_OPERATOR_TYPE op, enum values values, uint32_t *state)
{
    uint32_t pick = ref_random(state) % 100;
    double value;

    /* Integer products: mostly odd factors, so that the wrapped products do not all end in 0. */
    if (!is_float(type))
        return ((uint64_t)ref_random(state) << 32 | ref_random(state) | (op == PRODUCT && pick % 10)) & type_mask(type);
    if (values == SPECIAL && pick < 12)
        value = pick < 4 ? INFINITY : pick < 8 ? -INFINITY : pick < 10 ? NAN : 0.0;
    else if (op == PRODUCT)
        value = exp(ref_random_float(state, -0.01f, 0.01f)) * (pick % 10 ? 1.0 : -1.0);
    else
        value = ref_random_float(state, -1.0f, 1.0f);
    return double_to_raw(type, value);
}

/* ---- Cases ---- */

struct scan_case
{
    const char *name;
    DML_OPERATOR_TYPE op;
    DML_TENSOR_DATA_TYPE type;
    UINT rank, sizes[MAX_RANK], axis;
    bool reverse, exclusive;
    enum layout layout;
    UINT broadcast;     /* BROADCAST: input dimensions of stride 0 */
    enum values values;
};

/* What the device computes for one output element, and how far it may be off. */
struct expected
{
    uint64_t raw;       /* integers: the wrapped bits */
    double value, tolerance;
};

/* Walks every line along the axis in the scan's order. */
static void compute_reference(const struct scan_case *test, const struct tensor *input, const struct tensor *output,
        struct expected *expected)
{
    UINT coordinates[MAX_RANK], length = test->sizes[test->axis], k, i;
    size_t index, count = dml_test_element_count(&output->t), rest;
    double value, sum, magnitude;
    uint64_t raw, integer;

    for (index = 0; index < count; ++index)
    {
        for (i = test->rank, rest = index; i-- > 0; rest /= test->sizes[i])
            coordinates[i] = rest % test->sizes[i];
        if (coordinates[test->axis])
            continue;
        sum = test->op == PRODUCT ? 1.0 : 0.0;
        integer = test->op == PRODUCT ? 1 : 0;
        magnitude = 0.0;
        for (k = 0; k < length; ++k)
        {
            struct expected *e;

            coordinates[test->axis] = test->reverse ? length - 1 - k : k;
            raw = input->raw[tensor_offset(input, coordinates)];
            value = is_float(test->type) ? raw_to_double(test->type, raw) : 0.0;
            e = &expected[tensor_offset(output, coordinates)];
            if (test->exclusive)
                *e = (struct expected){integer & type_mask(test->type), sum, magnitude * (k + 1) * ldexp(1.0, -23)};
            sum = test->op == PRODUCT ? sum * value : sum + value;
            integer = test->op == PRODUCT ? integer * raw : integer + raw;
            magnitude = test->op == PRODUCT ? fabs(sum) : magnitude + fabs(value);
            if (!test->exclusive)
                *e = (struct expected){integer & type_mask(test->type), sum, magnitude * (k + 1) * ldexp(1.0, -23)};
        }
    }
}

static void check_element(const struct scan_case *test, const struct expected *e, uint64_t raw, size_t index)
{
    double got, tolerance;

    if (!is_float(test->type))
    {
        if (raw != e->raw)
            fail_msg("%s: output element %zu = %#" PRIx64 ", expected %#" PRIx64, test->name, index, raw, e->raw);
        return;
    }
    got = raw_to_double(test->type, raw);
    tolerance = e->tolerance + (test->type == F16 ? fabs(e->value) * ldexp(1.0, -11) + ldexp(1.0, -24) : 0.0);
    if (isnan(e->value) ? !isnan(got) : isinf(e->value) ? got != e->value : !(fabs(got - e->value) <= tolerance))
        fail_msg("%s: output element %zu = %.9g, expected %.9g", test->name, index, got, e->value);
}

static void check_output(const struct scan_case *test, const struct tensor *output, const struct expected *expected,
        const uint8_t *bytes)
{
    UINT coordinates[MAX_RANK], i;
    size_t index, count = dml_test_element_count(&output->t), rest, offset;

    for (index = 0; index < count; ++index)
    {
        for (i = test->rank, rest = index; i-- > 0; rest /= test->sizes[i])
            coordinates[i] = rest % test->sizes[i];
        offset = tensor_offset(output, coordinates);
        check_element(test, &expected[offset], read_raw(bytes, test->type, offset), index);
    }
}

static bool skip_type(struct dml_test_context *context, const struct scan_case *test)
{
    if (dml_test_data_type_supported(context, test->type))
        return false;
    print_message("Skipping %s: the device has no %s tensors.\n", test->name, dml_test_type_name(test->type));
    return true;
}

/* Runs the case; a second execution of the same compiled operator must give the same bits. */
static void run_case(struct dml_test_context *context, const struct scan_case *test)
{
    struct dml_test_binding input = {NULL}, output = {NULL};
    struct tensor in, out;
    DML_CUMULATIVE_SUMMATION_OPERATOR_DESC desc;
    IDMLCompiledOperator *compiled;
    ID3D12Resource *persistent;
    struct expected *expected;
    uint8_t *bytes, *again;
    uint32_t state = 0x9e3779b9u;
    size_t i, size;

    if (skip_type(context, test))
        return;
    tensor_init(&in, test->type, test->rank, test->sizes, test->layout == PADDED,
            test->layout == BROADCAST ? test->broadcast : 0);
    tensor_init(&out, test->type, test->rank, test->sizes, test->layout == PADDED, 0);
    for (i = 0; i < in.span; ++i)
        in.raw[i] = random_raw(test->type, test->op, test->values, &state);
    expected = calloc(out.span, sizeof(*expected));
    assert_non_null(expected);
    compute_reference(test, &in, &out, expected);

    desc = (DML_CUMULATIVE_SUMMATION_OPERATOR_DESC){&in.t.desc, &out.t.desc, test->axis,
            test->reverse ? DML_AXIS_DIRECTION_DECREASING : DML_AXIS_DIRECTION_INCREASING, test->exclusive};
    compiled = dml_test_compile(context, test->op, &desc, DML_EXECUTION_FLAG_NONE);
    bytes = tensor_bytes(&in);
    input.buffer = dml_test_create_buffer(context, in.t.buffer.TotalTensorSizeInBytes, bytes);
    output.buffer = test->layout == IN_PLACE ? input.buffer
            : dml_test_create_buffer(context, out.t.buffer.TotalTensorSizeInBytes, NULL);
    free(bytes);
    size = out.t.buffer.TotalTensorSizeInBytes;
    bytes = malloc(size);
    assert_non_null(bytes);
    persistent = dml_test_initialize(context, compiled, NULL, 0);
    dml_test_execute(context, compiled, persistent, &input, 1, &output, 1);
    dml_test_read_buffer(context, output.buffer, 0, bytes, size);
    check_output(test, &out, expected, bytes);
    if (test->layout != IN_PLACE)
    {
        again = malloc(size);
        assert_non_null(again);
        dml_test_execute(context, compiled, persistent, &input, 1, &output, 1);
        dml_test_read_buffer(context, output.buffer, 0, again, size);
        if (memcmp(bytes, again, size))
            fail_msg("%s: a second run gave different bits.", test->name);
        free(again);
        release_last(output.buffer);
    }
    if (persistent)
        release_last(persistent);
    release_last(input.buffer);
    release_last(compiled);
    free(bytes);
    free(expected);
    tensor_cleanup(&in);
    tensor_cleanup(&out);
    assert_no_log_errors();
}

static void run_cases(void **state, const struct scan_case *cases, size_t count)
{
    size_t i;

    for (i = 0; i < count; ++i)
        run_case(*state, &cases[i]);
}

/* Lines along the innermost axis (the row algorithm from 32 elements on lavapipe), along outer axes (the
 * column algorithm), long lines cut into tiles (1 x 5000 rows, 1000 x 3 columns). */
static const struct scan_case sum_cases[] =
{
    {"SUM 1-D of 1", SUM, F32, 1, {1}, 0},
    {"SUM 1-D of 7", SUM, F32, 1, {7}, 0},
    {"SUM 1-D of 33, exclusive", SUM, F32, 1, {33}, 0, .exclusive = true},
    {"SUM 1-D of 1000, reversed", SUM, F32, 1, {1000}, 0, .reverse = true},
    {"SUM 1 x 5000, exclusive, reversed (tiles)", SUM, F32, 2, {1, 5000}, 1, true, true},
    {"SUM 2 x 3000 (rows longer than a workgroup)", SUM, F32, 2, {2, 3000}, 1},
    {"SUM 1 x 20000, INT32, reversed (5 tiles)", SUM, I32, 2, {1, 20000}, 1, .reverse = true},
    {"SUM 2 x 9000, UINT64, exclusive (tiles)", SUM, U64, 2, {2, 9000}, 1, .exclusive = true},
    {"SUM 33 x 1000, last axis", SUM, F32, 2, {33, 1000}, 1},
    {"SUM 1000 x 3, first axis (tiles)", SUM, F32, 2, {1000, 3}, 0, .exclusive = true},
    {"SUM 5 x 7 x 33, middle axis, INT32", SUM, I32, 3, {5, 7, 33}, 1, .reverse = true},
    {"SUM axis of size 1, exclusive", SUM, F32, 3, {5, 1, 3}, 1, .exclusive = true},
    {"SUM 4-D, padded, FLOAT16", SUM, F16, 4, {2, 3, 40, 5}, 2, true, true, PADDED},
    {"SUM 3 x 2000, FLOAT16", SUM, F16, 2, {3, 2000}, 1},
    {"SUM 8-D, UINT32", SUM, U32, 8, {2, 1, 3, 2, 1, 4, 2, 3}, 5},
    {"SUM 8-D, last axis, padded, INT32", SUM, I32, 8, {2, 1, 3, 2, 1, 2, 2, 40}, 7, .layout = PADDED},
    {"SUM 4 x 500, UINT64, exclusive", SUM, U64, 2, {4, 500}, 1, .exclusive = true},
    {"SUM 7 x 33, INT64, reversed", SUM, I64, 2, {7, 33}, 1, .reverse = true},
    {"SUM 50 x 9, first axis, INT64, padded", SUM, I64, 2, {50, 9}, 0, .layout = PADDED},
    {"SUM broadcast rows", SUM, F32, 2, {6, 100}, 1, .layout = BROADCAST, .broadcast = 1u << 0},
    {"SUM broadcast along the axis", SUM, F32, 2, {6, 50}, 1, .layout = BROADCAST, .broadcast = 1u << 1},
    {"SUM broadcast, first axis, INT32", SUM, I32, 3, {40, 3, 5}, 0, .layout = BROADCAST, .broadcast = 1u << 1},
    {"SUM in place, exclusive", SUM, F32, 2, {9, 300}, 1, .exclusive = true, .layout = IN_PLACE},
    {"SUM in place, first axis, INT64, reversed", SUM, I64, 2, {100, 9}, 0, .reverse = true, .layout = IN_PLACE},
    {"SUM in place, tiles, UINT32", SUM, U32, 1, {5000}, 0, .layout = IN_PLACE},
    /* 16-byte vectors (docs/kernels.md, "Cumulative operators"): along the axis (rows), across
     * neighbouring lines (columns), with several invocations along the axis and tiles. */
    {"SUM rows of vectors, exclusive, reversed", SUM, F32, 2, {5, 1028}, 1, true, true},
    {"SUM rows of vectors, FLOAT16, exclusive, reversed", SUM, F16, 2, {3, 520}, 1, true, true},
    {"SUM rows of vectors, INT64, reversed", SUM, I64, 2, {3, 130}, 1, .reverse = true},
    {"SUM rows of vectors, in place, UINT32", SUM, U32, 2, {4, 2052}, 1, .layout = IN_PLACE},
    {"SUM columns of vectors, exclusive", SUM, F32, 2, {300, 12}, 0, .exclusive = true},
    {"SUM columns of vectors, reversed, FLOAT16", SUM, F16, 2, {70, 16}, 0, .reverse = true},
    {"SUM columns of vectors, INT64, exclusive, reversed", SUM, I64, 2, {50, 6}, 0, true, true},
    {"SUM columns of vectors, middle axis, INT32", SUM, I32, 3, {3, 50, 8}, 1},
    {"SUM columns of vectors, tiles, reversed", SUM, F32, 2, {3000, 8}, 0, .reverse = true},
    {"SUM columns of vectors, wide strips", SUM, F32, 2, {40, 4100}, 0},
    {"SUM columns of vectors, in place, FLOAT16", SUM, F16, 2, {33, 24}, 0, .exclusive = true, .layout = IN_PLACE},
    {"SUM NaN and infinities", SUM, F32, 2, {4, 40}, 1, .values = SPECIAL},
    {"SUM NaN and infinities, exclusive, FLOAT16", SUM, F16, 2, {40, 4}, 0, .exclusive = true, .values = SPECIAL},
};

static const struct scan_case product_cases[] =
{
    {"PRODUCT 1-D of 1000", PRODUCT, F32, 1, {1000}, 0},
    {"PRODUCT 3 x 300, exclusive, reversed", PRODUCT, F32, 2, {3, 300}, 1, true, true},
    {"PRODUCT 1 x 5000 (tiles)", PRODUCT, F32, 2, {1, 5000}, 1},
    {"PRODUCT 4 x 60, FLOAT16", PRODUCT, F16, 2, {4, 60}, 1},
    {"PRODUCT 5 x 40, UINT32", PRODUCT, U32, 2, {5, 40}, 1},
    {"PRODUCT 40 x 5, first axis, INT32, exclusive", PRODUCT, I32, 2, {40, 5}, 0, .exclusive = true},
    {"PRODUCT 3 x 100, UINT64", PRODUCT, U64, 2, {3, 100}, 1},
    {"PRODUCT 100 x 3, first axis, INT64, exclusive, reversed", PRODUCT, I64, 2, {100, 3}, 0, true, true},
    {"PRODUCT 2 x 3 x 7, padded, FLOAT16", PRODUCT, F16, 3, {2, 3, 7}, 2, .layout = PADDED},
    {"PRODUCT in place, INT32", PRODUCT, I32, 2, {6, 64}, 1, .layout = IN_PLACE},
    {"PRODUCT in place, reversed, FLOAT16", PRODUCT, F16, 2, {3, 90}, 1, .reverse = true, .layout = IN_PLACE},
    {"PRODUCT 8-D, first axis, broadcast, UINT64", PRODUCT, U64, 8, {9, 2, 1, 3, 1, 2, 1, 2}, 0,
            .layout = BROADCAST, .broadcast = 1u << 5},
    {"PRODUCT rows of vectors, FLOAT16, exclusive", PRODUCT, F16, 2, {2, 264}, 1, .exclusive = true},
    {"PRODUCT columns of vectors, UINT64, reversed", PRODUCT, U64, 2, {40, 4}, 0, .reverse = true},
    {"PRODUCT NaN, infinities and zeros", PRODUCT, F32, 2, {4, 40}, 1, .reverse = true, .values = SPECIAL},
    {"PRODUCT NaN, infinities and zeros, vectors", PRODUCT, F32, 2, {4, 1024}, 1, .values = SPECIAL},
};

static void test_summation(void **state)
{
    run_cases(state, sum_cases, ARRAY_SIZE(sum_cases));
}

static void test_product(void **state)
{
    run_cases(state, product_cases, ARRAY_SIZE(product_cases));
}

/* ---- DirectML's documented example: {1, 1, 3, 4} along axis 3 ---- */

static void run_documented(struct dml_test_context *context, DML_OPERATOR_TYPE op, DML_AXIS_DIRECTION direction,
        BOOL exclusive, const float *expected)
{
    static const UINT sizes[4] = {1, 1, 3, 4};
    static const float values[12] = {2, 1, 3, 5, 3, 8, 7, 3, 9, 6, 2, 4};
    struct dml_test_binding input = {NULL}, output = {NULL};
    DML_CUMULATIVE_SUMMATION_OPERATOR_DESC desc;
    IDMLCompiledOperator *compiled;
    struct dml_test_tensor in, out;
    float got[12];
    unsigned int i;

    dml_test_tensor_init(&in, F32, 4, sizes, NULL);
    dml_test_tensor_init(&out, F32, 4, sizes, NULL);
    desc = (DML_CUMULATIVE_SUMMATION_OPERATOR_DESC){&in.desc, &out.desc, 3, direction, exclusive};
    compiled = dml_test_compile(context, op, &desc, DML_EXECUTION_FLAG_NONE);
    input.buffer = dml_test_create_buffer(context, in.buffer.TotalTensorSizeInBytes, values);
    output.buffer = dml_test_create_buffer(context, out.buffer.TotalTensorSizeInBytes, NULL);
    dml_test_run(context, compiled, &input, 1, &output, 1);
    dml_test_read_buffer(context, output.buffer, 0, got, sizeof(got));
    for (i = 0; i < ARRAY_SIZE(got); ++i)
    {
        if (got[i] != expected[i])
            fail_msg("element %u = %.9g, expected %.9g", i, got[i], expected[i]);
    }
    release_last(input.buffer);
    release_last(output.buffer);
    release_last(compiled);
    assert_no_log_errors();
}

static void test_documented_examples(void **state)
{
    static const float sum[12] = {2, 3, 6, 11, 3, 11, 18, 21, 9, 15, 17, 21};
    static const float sum_exclusive_reversed[12] = {9, 8, 5, 0, 18, 10, 3, 0, 12, 6, 4, 0};
    static const float product[12] = {2, 2, 6, 30, 3, 24, 168, 504, 9, 54, 108, 432};
    static const float product_exclusive_reversed[12] = {15, 15, 5, 1, 168, 21, 3, 1, 48, 8, 4, 1};

    run_documented(*state, SUM, DML_AXIS_DIRECTION_INCREASING, FALSE, sum);
    run_documented(*state, SUM, DML_AXIS_DIRECTION_DECREASING, TRUE, sum_exclusive_reversed);
    run_documented(*state, PRODUCT, DML_AXIS_DIRECTION_INCREASING, FALSE, product);
    run_documented(*state, PRODUCT, DML_AXIS_DIRECTION_DECREASING, TRUE, product_exclusive_reversed);
}

/* ---- OWNED_BY_DML: the input is read from the persistent resource ---- */

static void test_owned_input(void **state)
{
    static const UINT sizes[2] = {3, 70};
    struct dml_test_binding inputs[1] = {{NULL}}, owned[1] = {{NULL}}, output = {NULL};
    const struct dml_test_float_tensor *tensors[1];
    struct dml_test_context *context = *state;
    DML_CUMULATIVE_SUMMATION_OPERATOR_DESC desc;
    struct dml_test_float_tensor in;
    IDMLCompiledOperator *compiled;
    struct dml_test_tensor out;
    ID3D12Resource *persistent;
    float got[210], expected;
    unsigned int row, i;
    double sum;

    dml_test_float_tensor_init(&in, F32, 2, sizes, NULL, DML_TENSOR_FLAG_OWNED_BY_DML, 5);
    dml_test_tensor_init(&out, F32, 2, sizes, NULL);
    tensors[0] = &in;
    desc = (DML_CUMULATIVE_SUMMATION_OPERATOR_DESC){&in.t.desc, &out.desc, 1, DML_AXIS_DIRECTION_INCREASING, FALSE};
    compiled = dml_test_compile(context, SUM, &desc, DML_EXECUTION_FLAG_NONE);
    dml_test_create_input_buffers(context, tensors, 1, inputs, owned);
    output.buffer = dml_test_create_buffer(context, out.buffer.TotalTensorSizeInBytes, NULL);
    persistent = dml_test_initialize(context, compiled, owned, 1);
    dml_test_scribble_owned(owned, tensors, 1);
    dml_test_execute(context, compiled, persistent, inputs, 1, &output, 1);
    dml_test_read_buffer(context, output.buffer, 0, got, sizeof(got));
    for (row = 0; row < sizes[0]; ++row)
    {
        for (i = 0, sum = 0.0; i < sizes[1]; ++i)
        {
            sum += in.values[row * sizes[1] + i];
            expected = (float)sum;
            if (!(fabs(got[row * sizes[1] + i] - expected) <= (i + 1) * ldexp(1.0, -20)))
                fail_msg("element %u, %u = %.9g, expected %.9g", row, i, got[row * sizes[1] + i], expected);
        }
    }
    release_last(persistent);
    dml_test_release_bindings(owned, 1);
    release_last(output.buffer);
    release_last(compiled);
    dml_test_float_tensor_cleanup(&in);
    assert_no_log_errors();
}

/* ---- Invalid descs ---- */

static void test_invalid(void **state)
{
    static const UINT sizes[4] = {2, 3, 4, 5}, other[4] = {2, 6, 4, 5};
    struct dml_test_context *context = *state;
    DML_CUMULATIVE_PRODUCT_OPERATOR_DESC product;
    DML_CUMULATIVE_SUMMATION_OPERATOR_DESC sum;
    struct dml_test_tensor in, out, wrong;

    dml_test_tensor_init(&in, F32, 4, sizes, NULL);
    dml_test_tensor_init(&out, F32, 4, sizes, NULL);
    dml_test_tensor_init(&wrong, F32, 4, other, NULL);

    sum = (DML_CUMULATIVE_SUMMATION_OPERATOR_DESC){&in.desc, &out.desc, 4, DML_AXIS_DIRECTION_INCREASING, FALSE};
    dml_test_expect_invalid(context, SUM, &sum, "Axis=4 must be less than InputTensor.DimensionCount=4");
    product = (DML_CUMULATIVE_PRODUCT_OPERATOR_DESC){&in.desc, &out.desc, 7, DML_AXIS_DIRECTION_DECREASING, TRUE};
    dml_test_expect_invalid(context, PRODUCT, &product, "Axis=7 must be less than InputTensor.DimensionCount=4");

    sum = (DML_CUMULATIVE_SUMMATION_OPERATOR_DESC){&in.desc, &wrong.desc, 0, DML_AXIS_DIRECTION_INCREASING, FALSE};
    dml_test_expect_invalid(context, SUM, &sum, "OutputTensor.Sizes[1]=6 must equal InputTensor.Sizes[1]=3");
    product = (DML_CUMULATIVE_PRODUCT_OPERATOR_DESC){&wrong.desc, &in.desc, 3, DML_AXIS_DIRECTION_INCREASING, FALSE};
    dml_test_expect_invalid(context, PRODUCT, &product, "OutputTensor.Sizes[1]=3 must equal InputTensor.Sizes[1]=6");
    assert_no_log_errors();
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_documented_examples, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_summation, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_product, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_owned_input, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_invalid, dml_test_setup, dml_test_teardown),
    };

    /* Logging first: it keeps the Vulkan driver loaded for LeakSanitizer (test_utils.c). */
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
