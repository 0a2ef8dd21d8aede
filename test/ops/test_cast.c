/*
 * DML_OPERATOR_CAST through the public API, bit for bit against a C reference of the rules in
 * the README ("CAST"): every pair of the 11 data types (121 operators) on edge values (NaN with
 * payloads, ±inf, ±0, denormals, values just past each integer range, fractional negatives, the
 * largest odd integers that FLOAT16, FLOAT32 and FLOAT64 mantissas cannot hold, ties of every
 * rounding); then strided, broadcast and offset tensors on the vector and element paths.
 */
#include <inttypes.h>
#include <math.h>

#include "dml_test_utils.h"

#define F32 DML_TENSOR_DATA_TYPE_FLOAT32
#define F16 DML_TENSOR_DATA_TYPE_FLOAT16
#define F64 DML_TENSOR_DATA_TYPE_FLOAT64

/* ---- The reference ---- */

static bool is_float(DML_TENSOR_DATA_TYPE type)
{
    return type == F32 || type == F16 || type == F64;
}

static bool is_signed(DML_TENSOR_DATA_TYPE type)
{
    return type == DML_TENSOR_DATA_TYPE_INT8 || type == DML_TENSOR_DATA_TYPE_INT16
            || type == DML_TENSOR_DATA_TYPE_INT32 || type == DML_TENSOR_DATA_TYPE_INT64;
}

static unsigned int type_bits(DML_TENSOR_DATA_TYPE type)
{
    return 8 * dml_test_element_size(type);
}

static uint64_t type_mask(DML_TENSOR_DATA_TYPE type)
{
    return type_bits(type) == 64 ? UINT64_MAX : (UINT64_C(1) << type_bits(type)) - 1;
}

static double bits_to_double(DML_TENSOR_DATA_TYPE type, uint64_t bits)
{
    uint32_t u32 = (uint32_t)bits;
    double d;
    float f;

    if (type == F16)
        return ref_half_to_float((uint16_t)bits);
    if (type == F32)
        return memcpy(&f, &u32, 4), f;
    return memcpy(&d, &bits, 8), d;
}

/* The integer's 64-bit two's complement value. */
static uint64_t int_value(DML_TENSOR_DATA_TYPE type, uint64_t bits)
{
    unsigned int w = type_bits(type);

    if (w < 64 && is_signed(type) && (bits >> (w - 1)) & 1)
        return bits | ~type_mask(type);
    return bits;
}

/* Round to nearest even into FLOAT16, directly from a double (no double rounding). */
static uint64_t double_to_half(double d)
{
    uint64_t sign = signbit(d) ? 0x8000 : 0, q;
    int exponent;

    d = fabs(d);
    if (isinf(d))
        return sign | 0x7c00;
    if (d < ldexp(1.0, -14))
        return sign | (uint64_t)nearbyint(ldexp(d, 24));
    frexp(d, &exponent);
    --exponent;                         /* d in [2^exponent, 2^(exponent + 1)) */
    if (exponent > 15)
        return sign | 0x7c00;
    q = (uint64_t)nearbyint(ldexp(d, 10 - exponent));
    q += (uint64_t)(exponent + 14) << 10;
    return sign | (q >= 0x7c00 ? 0x7c00 : q);
}

/* A finite or infinite double as `type`'s bits (NaN handled by the caller). */
static uint64_t double_to_float_bits(DML_TENSOR_DATA_TYPE type, double d)
{
    uint64_t bits = 0;
    float f;

    if (type == F16)
        return double_to_half(d);
    if (type == F32)
        return f = (float)d, memcpy(&bits, &f, 4), bits;
    return memcpy(&bits, &d, 8), bits;
}

static unsigned int mantissa_bits(DML_TENSOR_DATA_TYPE type)
{
    return type == F16 ? 10 : type == F32 ? 23 : 52;
}

/* NaN: the sign and the payload's top bits kept, quiet. */
static uint64_t nan_bits(DML_TENSOR_DATA_TYPE from, DML_TENSOR_DATA_TYPE to, uint64_t bits)
{
    unsigned int mf = mantissa_bits(from), mt = mantissa_bits(to);
    uint64_t payload = bits & ((UINT64_C(1) << mf) - 1), sign = (bits >> (type_bits(from) - 1)) & 1;
    uint64_t exponent = (UINT64_C(1) << (type_bits(to) - 1 - mt)) - 1;

    payload = mt >= mf ? payload << (mt - mf) : payload >> (mf - mt);
    return sign << (type_bits(to) - 1) | exponent << mt | UINT64_C(1) << (mt - 1) | payload;
}

/* Truncated toward zero, saturated; NaN 0. */
static uint64_t double_to_int(DML_TENSOR_DATA_TYPE to, double d)
{
    unsigned int w = type_bits(to);
    double hi = ldexp(1.0, is_signed(to) ? w - 1 : w), lo = is_signed(to) ? -hi : 0.0;

    if (isnan(d))
        return 0;
    d = trunc(d);
    if (d >= hi)
        return (is_signed(to) ? (UINT64_C(1) << (w - 1)) - 1 : type_mask(to)) & type_mask(to);
    if (d <= lo)
        return is_signed(to) ? (uint64_t)(-(int64_t)(UINT64_C(1) << (w - 2)) * 2) & type_mask(to) : 0;
    return (is_signed(to) ? (uint64_t)(int64_t)d : (uint64_t)d) & type_mask(to);
}

static uint64_t int_to_float_bits(DML_TENSOR_DATA_TYPE from, DML_TENSOR_DATA_TYPE to, uint64_t value)
{
    bool negative = is_signed(from) && (int64_t)value < 0;
    uint64_t magnitude = negative ? 0 - value : value, bits = 0;
    double d;
    float f;

    if (to == F16)
    {
        /* Exact in a double below 65520; at and past it FLOAT16 rounds to inf. */
        if (magnitude >= 65520)
            return (negative ? 0x8000 : 0) | 0x7c00;
        return double_to_half(negative ? -(double)magnitude : (double)magnitude);
    }
    if (to == F32)
    {
        f = is_signed(from) ? (float)(int64_t)value : (float)value;
        return memcpy(&bits, &f, 4), bits;
    }
    d = is_signed(from) ? (double)(int64_t)value : (double)value;
    return memcpy(&bits, &d, 8), bits;
}

static uint64_t ref_cast(DML_TENSOR_DATA_TYPE from, DML_TENSOR_DATA_TYPE to, uint64_t bits)
{
    double d;

    if (!is_float(from))
    {
        if (is_float(to))
            return int_to_float_bits(from, to, int_value(from, bits));
        return int_value(from, bits) & type_mask(to);
    }
    d = bits_to_double(from, bits);
    if (!is_float(to))
        return double_to_int(to, d);
    if (from == to)
        return bits;
    if (isnan(d))
        return nan_bits(from, to, bits);
    return double_to_float_bits(to, d);
}

/* ---- Inputs ---- */

static const double edge_doubles[] =
{
    0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.7, -0.99, 127.0, 127.9, 128.0, -128.0, -128.9, -129.0, 255.0, 255.5, 256.0,
    32767.0, 32768.0, -32768.5, -32769.0, 65504.0, 65519.99, 65520.0, 65535.0, 65536.0, 2147483647.0, 2147483648.0,
    -2147483648.0, -2147483649.0, 4294967295.0, 4294967296.0, 9.2233720368547748e18, -9.2233720368547758e18,
    -9.3e18, 1.8446744073709550e19, 1.9e19, 1e30, -1e30, 1e300, 5.9604644775390625e-08, 2.98023223876953125e-08,
    2.98023223876953126e-08, 6.1e-5, 1e-40, -1e-310, 2049.0, 2051.0, 16777217.0, 33554435.0, 0.1, -1e-8,
};

static const int64_t edge_integers[] =
{
    INT64_MIN, INT64_MIN + 1, INT64_MAX, -1, 1, 2049, 4097, 65519, 65520, -65521, 16777217, -16777219,
    (INT64_C(1) << 53) + 1, (INT64_C(1) << 54) + 6, (INT64_C(1) << 62) + 1, 0x7fffff7fffffffff,
    (int64_t)0x8000008000000001u,
    (int64_t)0xffffffffffffffffu, 0xffffffff, 0x80000000, 0x7fffffff, 0x8000, 0x7fff, 0xffff, 0x80, 0xff, 0x7f,
};

/* Raw bits for float types: NaNs with payloads (quiet, signalling, negative), infinities, the
 * largest finite values, denormals. */
static const uint64_t edge_f16[] = {0x7e00, 0x7d01, 0xfe3f, 0x7c00, 0xfc00, 0x7bff, 0xfbff, 0x0001, 0x83ff, 0x0400};
static const uint64_t edge_f32[] = {0x7fc00000, 0x7f812345, 0xffc00001, 0x7f800000, 0xff800000, 0x7f7fffff,
        0x00000001, 0x807fffff, 0x477ff000, 0x477fefff, 0x33000000, 0x33000001, 0x387fe000, 0x387fc000};
static const uint64_t edge_f64[] = {0x7ff8000000000000, 0x7ff0000000000001, 0xfff8000000000123, 0x7ff0000000000000,
        0xfff0000000000000, 0x7fefffffffffffff, 0x0000000000000001, 0x47efffffe0000000, 0x47efffffe0000001,
        0x36a0000000000000, 0x40effc0000000000, 0x40effbffffffffff, 0xc3e0000000000000, 0x43f0000000000000};

#define MAX_INPUTS 128

static size_t make_inputs(DML_TENSOR_DATA_TYPE type, uint64_t *values)
{
    const uint64_t *raw = type == F16 ? edge_f16 : type == F32 ? edge_f32 : edge_f64;
    size_t raw_count = type == F16 ? ARRAY_SIZE(edge_f16) : type == F32 ? ARRAY_SIZE(edge_f32) : ARRAY_SIZE(edge_f64);
    size_t n = 0, i;
    uint64_t bits;

    for (i = 0; i < ARRAY_SIZE(edge_doubles); ++i)
    {
        memcpy(&bits, &edge_doubles[i], 8);
        values[n++] = ref_cast(F64, type, bits);
    }
    for (i = 0; i < ARRAY_SIZE(edge_integers); ++i)
        values[n++] = ref_cast(DML_TENSOR_DATA_TYPE_INT64, type, (uint64_t)edge_integers[i]);
    for (i = 0; is_float(type) && i < raw_count; ++i)
        values[n++] = raw[i];
    assert_true(n <= MAX_INPUTS);
    return n;
}

/* ---- Running ---- */

struct cast_layout
{
    UINT rank, sizes[4];
    const UINT *input_strides, *output_strides;     /* NULL: packed */
    UINT64 input_offset;                            /* bytes */
};

/* Casts `values` (input element i holds values[i % count]) and checks every output byte. */
static void run_cast(struct dml_test_context *context, DML_TENSOR_DATA_TYPE from, DML_TENSOR_DATA_TYPE to,
        const struct cast_layout *layout, const uint64_t *values, size_t count)
{
    struct dml_test_binding input = {NULL}, output = {NULL};
    unsigned int in_size = dml_test_element_size(from), out_size = dml_test_element_size(to);
    DML_CAST_OPERATOR_DESC desc;
    struct dml_test_tensor in, out;
    IDMLCompiledOperator *compiled;
    uint8_t *source, *expected, *result;
    UINT64 i, n, total_in, total_out;

    dml_test_tensor_init(&in, from, layout->rank, layout->sizes, layout->input_strides);
    dml_test_tensor_init(&out, to, layout->rank, layout->sizes, layout->output_strides);
    desc.InputTensor = &in.desc;
    desc.OutputTensor = &out.desc;
    compiled = dml_test_compile(context, DML_OPERATOR_CAST, &desc, DML_EXECUTION_FLAG_NONE);
    total_in = in.buffer.TotalTensorSizeInBytes;
    total_out = out.buffer.TotalTensorSizeInBytes;
    source = calloc(1, total_in);
    expected = malloc(total_out);
    result = malloc(total_out);
    assert_true(source && expected && result);
    memset(expected, 0x5a, total_out);
    n = dml_test_element_count(&in);
    /* Broadcast elements share an address: the last write wins, as the reference reads it. */
    for (i = 0; i < n; ++i)
        memcpy(source + dml_test_element_offset(&in, i) * in_size, &values[i % count], in_size);
    for (i = 0; i < n; ++i)
    {
        uint64_t bits = 0;

        memcpy(&bits, source + dml_test_element_offset(&in, i) * in_size, in_size);
        bits = ref_cast(from, to, bits);
        memcpy(expected + dml_test_element_offset(&out, i) * out_size, &bits, out_size);
    }
    input.buffer = dml_test_create_buffer(context, layout->input_offset + total_in, NULL);
    input.offset = layout->input_offset;
    dml_test_write_buffer(context, input.buffer, input.offset, source, total_in);
    dml_test_create_guarded(context, total_out, expected, &output);
    dml_test_run(context, compiled, &input, 1, &output, 1);
    dml_test_check_guards(context, &output);
    dml_test_read_buffer(context, output.buffer, output.offset, result, total_out);
    for (i = 0; i < n; ++i)
    {
        UINT64 o = dml_test_element_offset(&out, i) * out_size;
        uint64_t got = 0, want = 0, x = 0;

        memcpy(&got, result + o, out_size);
        memcpy(&want, expected + o, out_size);
        memcpy(&x, source + dml_test_element_offset(&in, i) * in_size, in_size);
        if (got != want)
            fail_msg("CAST %s -> %s, element %" PRIu64 " (%#" PRIx64 "): %#" PRIx64 ", expected %#" PRIx64,
                    dml_test_type_name(from), dml_test_type_name(to), i, x, got, want);
    }
    assert_memory_equal(result, expected, total_out);
    free(source);
    free(expected);
    free(result);
    release_last(input.buffer);
    release_last(output.buffer);
    release_last(compiled);
    assert_no_log_errors();
}

static bool supported(struct dml_test_context *context, DML_TENSOR_DATA_TYPE type)
{
    if (dml_test_data_type_supported(context, type))
        return true;
    print_message("%s: not supported by the device, skipped.\n", dml_test_type_name(type));
    return false;
}

/* Every pair on the edge values, packed (vector mode with a partial last item). */
static void test_all_pairs(void **state)
{
    struct dml_test_context *context = *state;
    uint64_t values[MAX_INPUTS];
    struct cast_layout layout = {1};
    size_t f, t, count;

    for (f = 0; f < ARRAY_SIZE(dml_test_all_types); ++f)
    {
        if (!supported(context, dml_test_all_types[f]))
            continue;
        count = make_inputs(dml_test_all_types[f], values);
        layout.sizes[0] = (UINT)count;
        for (t = 0; t < ARRAY_SIZE(dml_test_all_types); ++t)
        {
            if (supported(context, dml_test_all_types[t]))
                run_cast(context, dml_test_all_types[f], dml_test_all_types[t], &layout, values, count);
        }
    }
}

/* Strided and broadcast inputs, padded outputs, offsets, rows longer than a workgroup. */
static void test_layouts(void **state)
{
    static const struct
    {
        DML_TENSOR_DATA_TYPE from, to;
    }
    pairs[] =
    {
        {F32, F16}, {F16, F32}, {DML_TENSOR_DATA_TYPE_INT64, F32}, {F64, DML_TENSOR_DATA_TYPE_INT8},
        {DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_INT64},
    };
    static const UINT padded_in[] = {0, 7 * 40, 40, 1}, padded_out[] = {0, 7 * 33 + 5, 33, 1};
    static const UINT broadcast_in[] = {0, 0, 1, 0}, strided_in[] = {0, 3, 7 * 3 * 33, 7 * 3};
    struct dml_test_context *context = *state;
    struct cast_layout layout;
    uint64_t values[MAX_INPUTS];
    size_t p, count;

    for (p = 0; p < ARRAY_SIZE(pairs); ++p)
    {
        if (!supported(context, pairs[p].from) || !supported(context, pairs[p].to))
            continue;
        count = make_inputs(pairs[p].from, values);
        /* 1000 packed elements at a 16-byte input offset. */
        layout = (struct cast_layout){1, {1000}, NULL, NULL, 16};
        run_cast(context, pairs[p].from, pairs[p].to, &layout, values, count);
        /* Padded rows on both sides. */
        layout = (struct cast_layout){4, {1, 3, 7, 33}, padded_in, padded_out, 0};
        run_cast(context, pairs[p].from, pairs[p].to, &layout, values, count);
        /* A row broadcast along two dimensions, and a transposed (strided) input. */
        layout = (struct cast_layout){4, {1, 3, 7, 33}, broadcast_in, NULL, 0};
        run_cast(context, pairs[p].from, pairs[p].to, &layout, values, count);
        layout = (struct cast_layout){4, {1, 3, 7, 33}, strided_in, NULL, 0};
        run_cast(context, pairs[p].from, pairs[p].to, &layout, values, count);
    }
}

/* The sizes rule (a desc the element-wise family checks). */
static void test_invalid(void **state)
{
    static const UINT sizes[] = {2, 3}, other[] = {3, 2};
    struct dml_test_context *context = *state;
    struct dml_test_tensor in, out, *tensors[] = {&in, &out};
    DML_CAST_OPERATOR_DESC desc = {&in.desc, &out.desc};

    dml_test_tensor_init(&in, F32, 2, sizes, NULL);
    dml_test_tensor_init(&out, DML_TENSOR_DATA_TYPE_INT8, 2, other, NULL);
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_CAST, &desc, tensors, 2),
            "InputTensor.Sizes[0]=2 is not broadcastable to OutputTensor.Sizes[0]=3");
    vkdml_test_log_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_all_pairs, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_layouts, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_invalid, dml_test_setup, dml_test_teardown),
    };

    /* Logging first: it keeps the Vulkan driver loaded for LeakSanitizer (test_utils.c). */
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
