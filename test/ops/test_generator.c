/*
 * DML_OPERATOR_FILL_VALUE_CONSTANT and DML_OPERATOR_FILL_VALUE_SEQUENCE through the public API,
 * checked bit for bit against a C reference: every data type, ranks 1 and 8, odd sizes, padded
 * strides (the padding keeps its bytes), a 0-stride output, 100000 elements, negative deltas,
 * integer wrap-around and FLOAT16 rounding; DML_OPERATOR_DIAGONAL_MATRIX and DIAGONAL_MATRIX1
 * likewise (every type, batches, non-square matrices, negative offsets, inverted and empty spans,
 * FLOAT values truncated and saturated, with and without an input, strided and broadcast);
 * then the desc rules, with their error code and log line. Every test ends with every object's
 * final Release returning 0 and no validation message.
 */
#include <inttypes.h>
#include <math.h>

#include "dml_test_utils.h"

#define CONSTANT DML_OPERATOR_FILL_VALUE_CONSTANT
#define SEQUENCE DML_OPERATOR_FILL_VALUE_SEQUENCE
#define SENTINEL 0xa5

struct fill_case
{
    DML_OPERATOR_TYPE op;
    DML_TENSOR_DATA_TYPE type;
    UINT rank, sizes[8], strides[8];
    bool strided;                       /* false: packed (no Strides) */
    UINT64 offset;                      /* the output binding's offset in bytes */
    double start, delta;                /* float types; integers use start_bits, delta_bits */
    uint64_t start_bits, delta_bits;
    bool use_bits;
};

static bool is_float(DML_TENSOR_DATA_TYPE type)
{
    return type == DML_TENSOR_DATA_TYPE_FLOAT32 || type == DML_TENSOR_DATA_TYPE_FLOAT16
            || type == DML_TENSOR_DATA_TYPE_FLOAT64;
}

/* The scalar as DirectML reads it: the bits of `type` in the first bytes; the bytes after them
 * hold garbage, which the operator must ignore. */
static DML_SCALAR_UNION make_scalar(DML_TENSOR_DATA_TYPE type, double value, uint64_t bits, bool use_bits)
{
    DML_SCALAR_UNION scalar;
    uint16_t half;
    float single;

    memset(&scalar, 0xcc, sizeof(scalar));
    if (use_bits || !is_float(type))
        memcpy(scalar.Bytes, &bits, dml_test_element_size(type));
    else if (type == DML_TENSOR_DATA_TYPE_FLOAT16)
        half = ref_float_to_half((float)value), memcpy(scalar.Bytes, &half, 2);
    else if (type == DML_TENSOR_DATA_TYPE_FLOAT32)
        single = (float)value, memcpy(scalar.Bytes, &single, 4);
    else
        scalar.Float64 = value;
    return scalar;
}

/* Element `index`'s bits: the value, or start + index * delta (fp32 for floats, wrapping integers). */
static uint64_t expected_bits(const struct fill_case *c, const DML_SCALAR_UNION *start,
        const DML_SCALAR_UNION *delta, uint64_t index)
{
    unsigned int size = dml_test_element_size(c->type);
    uint64_t s = 0, d = 0, mask = size == 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * size)) - 1;
    volatile float product, sum;
    uint32_t bits32;
    uint16_t half;

    memcpy(&s, start->Bytes, size);
    if (c->op == CONSTANT)
        return s;
    memcpy(&d, delta->Bytes, size);
    if (c->type == DML_TENSOR_DATA_TYPE_FLOAT32)
    {
        product = (float)index * delta->Float32;
        sum = start->Float32 + product;
        memcpy(&bits32, (const void *)&sum, 4);
        return bits32;
    }
    if (c->type == DML_TENSOR_DATA_TYPE_FLOAT16)
    {
        memcpy(&half, start->Bytes, 2);
        sum = ref_half_to_float(half);
        memcpy(&half, delta->Bytes, 2);
        product = (float)index * ref_half_to_float(half);
        sum = sum + product;
        return ref_float_to_half(sum);
    }
    return (s + index * d) & mask;
}

static void run_case(struct dml_test_context *context, const struct fill_case *c)
{
    struct dml_test_binding output = {NULL};
    DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC desc;
    unsigned int size = dml_test_element_size(c->type);
    DML_SCALAR_UNION start, delta;
    IDMLCompiledOperator *compiled;
    struct dml_test_tensor out;
    uint8_t *bytes, *expected;
    uint64_t i, count, bits;
    size_t total;

    if (!dml_test_data_type_supported(context, c->type))
    {
        print_message("%s: not supported by the device, skipped.\n", dml_test_type_name(c->type));
        return;
    }
    dml_test_tensor_init(&out, c->type, c->rank, c->sizes, c->strided ? c->strides : NULL);
    start = make_scalar(c->type, c->start, c->start_bits, c->use_bits);
    delta = make_scalar(c->type, c->delta, c->delta_bits, c->use_bits);
    desc.OutputTensor = &out.desc;
    desc.ValueDataType = c->type;
    desc.ValueStart = start;
    desc.ValueDelta = delta;
    /* CONSTANT's desc is SEQUENCE's without ValueDelta. */
    compiled = dml_test_compile(context, c->op, &desc, DML_EXECUTION_FLAG_NONE);
    total = out.buffer.TotalTensorSizeInBytes;
    bytes = malloc(total);
    expected = malloc(total);
    assert_true(bytes && expected);
    memset(expected, SENTINEL, total);
    output.buffer = dml_test_create_buffer(context, c->offset + total, NULL);
    output.offset = c->offset;
    dml_test_write_buffer(context, output.buffer, c->offset, expected, total);
    dml_test_run(context, compiled, NULL, 0, &output, 1);
    dml_test_read_buffer(context, output.buffer, c->offset, bytes, total);
    count = dml_test_element_count(&out);
    for (i = 0; i < count; ++i)
    {
        bits = expected_bits(c, &start, &delta, i);
        memcpy(expected + dml_test_element_offset(&out, i) * size, &bits, size);
    }
    for (i = 0; i < total; ++i)
    {
        if (bytes[i] != expected[i])
            fail_msg("%s %s rank %u: byte %" PRIu64 " = %#x, expected %#x", c->op == CONSTANT ? "CONSTANT"
                    : "SEQUENCE", dml_test_type_name(c->type), c->rank, i, bytes[i], expected[i]);
    }
    free(bytes);
    free(expected);
    release_last(output.buffer);
    release_last(compiled);
    assert_no_log_errors();
}

/* Rank 8, odd sizes, every dimension padded. */
static void set_rank8_padded(struct fill_case *c)
{
    static const UINT sizes[8] = {1, 2, 1, 3, 1, 5, 2, 7};
    UINT i, stride = 1;

    c->rank = 8;
    memcpy(c->sizes, sizes, sizeof(sizes));
    for (i = 8; i-- > 0; stride = stride * sizes[i] + 1 + i % 2)
        c->strides[i] = stride;
    c->strided = true;
}

static void test_constant(void **state)
{
    struct fill_case c;
    size_t t;

    for (t = 0; t < ARRAY_SIZE(dml_test_all_types); ++t)
    {
        memset(&c, 0, sizeof(c));
        c.op = CONSTANT;
        c.type = dml_test_all_types[t];
        c.start = -2.75;
        c.start_bits = 0x8123456789abcdefull;
        set_rank8_padded(&c);
        run_case(*state, &c);
    }
}

static void test_constant_special(void **state)
{
    struct fill_case c;

    /* Rank 1 of 1000, NaN's bits kept (a payload). */
    memset(&c, 0, sizeof(c));
    c.op = CONSTANT;
    c.type = DML_TENSOR_DATA_TYPE_FLOAT32;
    c.rank = 1;
    c.sizes[0] = 1000;
    c.use_bits = true;
    c.start_bits = 0x7fc01234;
    run_case(*state, &c);
    /* -inf in FLOAT16, on a 0-stride output: every element shares one address. */
    c.type = DML_TENSOR_DATA_TYPE_FLOAT16;
    c.start_bits = 0xfc00;
    c.rank = 3;
    c.sizes[0] = 4, c.sizes[1] = 33, c.sizes[2] = 5;
    c.strides[0] = 0, c.strides[1] = 0, c.strides[2] = 1;
    c.strided = true;
    run_case(*state, &c);
    /* Every element at one address. */
    c.type = DML_TENSOR_DATA_TYPE_UINT64;
    c.start_bits = 0xfedcba9876543210ull;
    c.strides[2] = 0;
    run_case(*state, &c);
    /* One element. */
    memset(&c, 0, sizeof(c));
    c.op = CONSTANT;
    c.type = DML_TENSOR_DATA_TYPE_INT8;
    c.rank = 1;
    c.sizes[0] = 1;
    c.start_bits = 0x80;
    run_case(*state, &c);
}

static void test_sequence(void **state)
{
    struct fill_case c;
    size_t t;

    for (t = 0; t < ARRAY_SIZE(dml_test_all_types); ++t)
    {
        if (dml_test_all_types[t] == DML_TENSOR_DATA_TYPE_FLOAT64)
            continue;
        /* Rank 1 of 1000 (several workgroups), a negative delta: integers go below 0 and wrap. */
        memset(&c, 0, sizeof(c));
        c.op = SEQUENCE;
        c.type = dml_test_all_types[t];
        c.rank = 1;
        c.sizes[0] = 1000;
        c.start = 3.5;
        c.delta = -0.25;
        c.start_bits = 7;
        c.delta_bits = (uint64_t)-3;
        run_case(*state, &c);
        /* Rank 8, padded strides. */
        set_rank8_padded(&c);
        c.start = -1.0;
        c.delta = 0.125;
        c.start_bits = 250;
        c.delta_bits = 1;
        run_case(*state, &c);
    }
}

static void test_sequence_large(void **state)
{
    struct fill_case c;

    /* 100000 elements: start + i * delta, not a running sum, in fp32. */
    memset(&c, 0, sizeof(c));
    c.op = SEQUENCE;
    c.type = DML_TENSOR_DATA_TYPE_FLOAT32;
    c.rank = 2;
    c.sizes[0] = 100, c.sizes[1] = 1000;
    c.start = 0.1;
    c.delta = 0.3;
    run_case(*state, &c);
    /* INT32 that wraps past 2^31. */
    c.type = DML_TENSOR_DATA_TYPE_INT32;
    c.start_bits = 0x7fff0000;
    c.delta_bits = 0x10001;
    run_case(*state, &c);
    /* Bound at an offset in its buffer (a multiple of 16, as DirectML requires). */
    c.offset = 48;
    run_case(*state, &c);
    c.offset = 0;
    /* UINT64: products past 2^64, carries between the words. */
    c.type = DML_TENSOR_DATA_TYPE_UINT64;
    c.start_bits = 0xfffffffffff00000ull;
    c.delta_bits = 0x00000001fffffff7ull;
    run_case(*state, &c);
    /* FLOAT16: values past 2048 round to even steps; a negative delta reaches -inf. */
    c.type = DML_TENSOR_DATA_TYPE_FLOAT16;
    c.rank = 1;
    c.sizes[0] = 7000;
    c.start = 2040.0;
    c.delta = -9.5;
    run_case(*state, &c);
}

/* ---- DIAGONAL_MATRIX and DIAGONAL_MATRIX1 ---- */

struct diagonal_case
{
    DML_OPERATOR_TYPE op;
    DML_TENSOR_DATA_TYPE type;
    UINT rank, sizes[4], strides[4], in_strides[4];
    bool strided, has_input, in_strided;
    float value;                        /* DIAGONAL_MATRIX */
    uint64_t value_bits;                /* DIAGONAL_MATRIX1 */
    INT begin, end;                     /* DIAGONAL_MATRIX: begin is Offset */
};

/* DIAGONAL_MATRIX's FLOAT Value in `type` (README "Generators"): truncated toward zero and
 * saturated for integers, NaN 0. */
static uint64_t converted_value(DML_TENSOR_DATA_TYPE type, float value)
{
    unsigned int bits = 8 * dml_test_element_size(type);
    double v = isnan(value) ? 0.0 : trunc(value), wide = value;
    bool is_signed = type == DML_TENSOR_DATA_TYPE_INT8 || type == DML_TENSOR_DATA_TYPE_INT16
            || type == DML_TENSOR_DATA_TYPE_INT32 || type == DML_TENSOR_DATA_TYPE_INT64;
    uint64_t result, mask = bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
    uint32_t single;

    if (type == DML_TENSOR_DATA_TYPE_FLOAT32)
        return memcpy(&single, &value, 4), single;
    if (type == DML_TENSOR_DATA_TYPE_FLOAT16)
        return ref_float_to_half(value);
    if (type == DML_TENSOR_DATA_TYPE_FLOAT64)
        return memcpy(&result, &wide, 8), result;
    if (is_signed)
    {
        double limit = ldexp(1.0, bits - 1);

        result = v <= -limit ? (uint64_t)1 << (bits - 1) : v >= limit ? ((uint64_t)1 << (bits - 1)) - 1
                : (uint64_t)(int64_t)v;
    }
    else
    {
        result = v <= 0.0 ? 0 : v >= ldexp(1.0, bits) ? ~(uint64_t)0 : (uint64_t)v;
    }
    return result & mask;
}

static void run_diagonal_case(struct dml_test_context *context, const struct diagonal_case *c)
{
    struct dml_test_binding input = {NULL}, output = {NULL};
    unsigned int size = dml_test_element_size(c->type);
    DML_DIAGONAL_MATRIX1_OPERATOR_DESC desc1;
    DML_DIAGONAL_MATRIX_OPERATOR_DESC desc;
    uint8_t *bytes, *expected, *in_bytes = NULL;
    uint64_t i, count, bits, value;
    IDMLCompiledOperator *compiled;
    struct dml_test_tensor out, in;
    int64_t x, y, top_x;
    size_t total, in_total = 0;
    bool use;

    if (!dml_test_data_type_supported(context, c->type))
    {
        print_message("%s: not supported by the device, skipped.\n", dml_test_type_name(c->type));
        return;
    }
    dml_test_tensor_init(&out, c->type, c->rank, c->sizes, c->strided ? c->strides : NULL);
    dml_test_tensor_init(&in, c->type, c->rank, c->sizes, c->in_strided ? c->in_strides : NULL);
    if (c->op == DML_OPERATOR_DIAGONAL_MATRIX)
    {
        desc.OutputTensor = &out.desc;
        desc.Offset = c->begin;
        desc.Value = c->value;
        compiled = dml_test_compile(context, c->op, &desc, DML_EXECUTION_FLAG_NONE);
        value = converted_value(c->type, c->value);
    }
    else
    {
        desc1.InputTensor = c->has_input ? &in.desc : NULL;
        desc1.OutputTensor = &out.desc;
        desc1.ValueDataType = c->type;
        memset(&desc1.Value, 0xcc, sizeof(desc1.Value));
        memcpy(desc1.Value.Bytes, &c->value_bits, size);
        desc1.DiagonalFillBegin = c->begin;
        desc1.DiagonalFillEnd = c->end;
        compiled = dml_test_compile(context, c->op, &desc1, DML_EXECUTION_FLAG_NONE);
        value = c->value_bits;
    }
    if (c->has_input)
    {
        in_total = in.buffer.TotalTensorSizeInBytes;
        in_bytes = malloc(in_total);
        assert_non_null(in_bytes);
        for (i = 0; i < in_total; ++i)
            in_bytes[i] = (uint8_t)(i * 37 + 11);
        input.buffer = dml_test_create_buffer(context, in_total, in_bytes);
    }
    total = out.buffer.TotalTensorSizeInBytes;
    bytes = malloc(total);
    expected = malloc(total);
    assert_true(bytes && expected);
    memset(expected, SENTINEL, total);
    output.buffer = dml_test_create_buffer(context, total, expected);
    dml_test_run(context, compiled, &input, c->op == DML_OPERATOR_DIAGONAL_MATRIX1, &output, 1);
    dml_test_read_buffer(context, output.buffer, 0, bytes, total);
    count = dml_test_element_count(&out);
    for (i = 0; i < count; ++i)
    {
        /* DirectML's pseudocode for DIAGONAL_MATRIX1 (DIAGONAL_MATRIX: the span [Offset, Offset + 1)). */
        x = i % c->sizes[c->rank - 1];
        y = i / c->sizes[c->rank - 1] % c->sizes[c->rank - 2];
        top_x = x - y;
        if (c->op == DML_OPERATOR_DIAGONAL_MATRIX)
            use = top_x == c->begin;
        else
            use = (c->end >= c->begin) ^ (top_x >= c->begin) ^ (top_x < c->end);
        bits = 0;
        if (use)
            bits = value;
        else if (c->has_input)
            memcpy(&bits, in_bytes + dml_test_element_offset(&in, i) * size, size);
        memcpy(expected + dml_test_element_offset(&out, i) * size, &bits, size);
    }
    for (i = 0; i < total; ++i)
    {
        if (bytes[i] != expected[i])
            fail_msg("%s %s {%u,..,%u} [%d, %d): byte %" PRIu64 " = %#x, expected %#x",
                    c->op == DML_OPERATOR_DIAGONAL_MATRIX ? "DIAGONAL_MATRIX" : "DIAGONAL_MATRIX1",
                    dml_test_type_name(c->type), c->sizes[0], c->sizes[c->rank - 1], c->begin, c->end, i,
                    bytes[i], expected[i]);
    }
    free(bytes);
    free(expected);
    free(in_bytes);
    if (input.buffer)
        release_last(input.buffer);
    release_last(output.buffer);
    release_last(compiled);
    assert_no_log_errors();
}

static void test_diagonal_matrix(void **state)
{
    static const float values[] = {1.0f, 10.6f, -3.7f, 1e30f, NAN};
    static const INT offsets[] = {0, 2, -3, 40, -2147483647 - 1};
    struct diagonal_case c;
    size_t t, i;

    for (t = 0; t < ARRAY_SIZE(dml_test_all_types); ++t)
    {
        /* A batch of non-square matrices, several workgroups. */
        memset(&c, 0, sizeof(c));
        c.op = DML_OPERATOR_DIAGONAL_MATRIX;
        c.type = dml_test_all_types[t];
        c.rank = 4;
        c.sizes[0] = 2, c.sizes[1] = 3, c.sizes[2] = 7, c.sizes[3] = 33;
        for (i = 0; i < ARRAY_SIZE(values); ++i)
        {
            c.value = values[i];
            c.begin = offsets[i];
            run_diagonal_case(*state, &c);
        }
        /* Rank 2, taller than wide, padded rows. */
        c.rank = 2;
        c.sizes[0] = 9, c.sizes[1] = 5;
        c.strided = true;
        c.strides[0] = 7, c.strides[1] = 1;
        c.value = -2.5f;
        c.begin = -1;
        run_diagonal_case(*state, &c);
    }
}

static void test_diagonal_matrix1(void **state)
{
    static const INT spans[][2] = {{0, 1}, {-2, 3}, {3, -2}, {4, 4}, {-2147483647 - 1, 2147483647}, {1, 0}};
    struct diagonal_case c;
    size_t t, i;

    for (t = 0; t < ARRAY_SIZE(dml_test_all_types); ++t)
    {
        memset(&c, 0, sizeof(c));
        c.op = DML_OPERATOR_DIAGONAL_MATRIX1;
        c.type = dml_test_all_types[t];
        c.rank = 3;
        c.sizes[0] = 3, c.sizes[1] = 6, c.sizes[2] = 37;
        c.value_bits = 0x3c003f800000ull ^ 0x8877665544332211ull;
        for (i = 0; i < ARRAY_SIZE(spans); ++i)
        {
            c.begin = spans[i][0];
            c.end = spans[i][1];
            c.has_input = i % 2 == 0;
            run_diagonal_case(*state, &c);
        }
        /* A padded output over a broadcast input (one row for every batch and row). */
        c.has_input = true;
        c.strided = true;
        c.strides[0] = 6 * 40, c.strides[1] = 40, c.strides[2] = 1;
        c.in_strided = true;
        c.in_strides[0] = 0, c.in_strides[1] = 0, c.in_strides[2] = 1;
        c.begin = -1, c.end = 2;
        run_diagonal_case(*state, &c);
    }
}

static void test_invalid(void **state)
{
    static const UINT sizes[2] = {3, 5};
    struct dml_test_context *context = *state;
    DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC desc;
    struct dml_test_tensor out;
    struct dml_test_tensor *tensors[] = {&out};

    dml_test_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, NULL);
    memset(&desc, 0, sizeof(desc));
    desc.OutputTensor = &out.desc;
    desc.ValueDataType = DML_TENSOR_DATA_TYPE_FLOAT32;
    check_hr(dml_test_try_create(context, CONSTANT, &desc, tensors, 1), S_OK);
    check_hr(dml_test_try_create(context, SEQUENCE, &desc, tensors, 1), S_OK);
    assert_no_log_errors();
    desc.ValueDataType = DML_TENSOR_DATA_TYPE_INT32;
    dml_test_check_bad(dml_test_try_create(context, CONSTANT, &desc, tensors, 1),
            "ValueDataType=INT32 must equal OutputTensor.DataType=FLOAT32");
    dml_test_check_bad(dml_test_try_create(context, SEQUENCE, &desc, tensors, 1),
            "ValueDataType=INT32 must equal OutputTensor.DataType=FLOAT32");
    vkdml_test_log_reset();
}

static void test_diagonal_invalid(void **state)
{
    static const UINT sizes[4] = {1, 2, 3, 5};
    struct dml_test_context *context = *state;
    DML_DIAGONAL_MATRIX1_OPERATOR_DESC desc;
    struct dml_test_tensor in, out;
    struct dml_test_tensor *tensors[] = {&in, &out};

    dml_test_tensor_init(&in, DML_TENSOR_DATA_TYPE_INT32, 4, sizes, NULL);
    dml_test_tensor_init(&out, DML_TENSOR_DATA_TYPE_INT32, 4, sizes, NULL);
    memset(&desc, 0, sizeof(desc));
    desc.InputTensor = &in.desc;
    desc.OutputTensor = &out.desc;
    desc.ValueDataType = DML_TENSOR_DATA_TYPE_INT32;
    check_hr(dml_test_try_create(context, DML_OPERATOR_DIAGONAL_MATRIX1, &desc, tensors, 2), S_OK);
    assert_no_log_errors();
    desc.ValueDataType = DML_TENSOR_DATA_TYPE_UINT32;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_DIAGONAL_MATRIX1, &desc, tensors, 2),
            "ValueDataType=UINT32 must equal OutputTensor.DataType=INT32");
    desc.ValueDataType = DML_TENSOR_DATA_TYPE_INT32;
    in.sizes[2] = 4;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_DIAGONAL_MATRIX1, &desc, tensors, 2),
            "InputTensor");
    vkdml_test_log_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_constant, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_constant_special, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_sequence, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_sequence_large, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_diagonal_matrix, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_diagonal_matrix1, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_invalid, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_diagonal_invalid, dml_test_setup, dml_test_teardown),
    };

    /* Logging first: it keeps the Vulkan driver loaded for LeakSanitizer (test_utils.c). */
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
