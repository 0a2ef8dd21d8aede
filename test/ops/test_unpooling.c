/*
 * DML_OPERATOR_MAX_UNPOOLING through the public API, checked bit for bit against a C reference:
 * round trips of a C max pooling (ties: first index; overlapping 3x3 windows of stride 2 name
 * one element several times) in every data type with UINT32 and UINT64 indices; duplicate
 * indices with different values (the last input element in row-major order wins), indices out
 * of range (skipped: README "Indices out of range") with guard regions around the output, padded
 * and 0-stride broadcast tensors, an output larger than the pooling input; then the desc rules.
 */
#include <inttypes.h>

#include "dml_test_utils.h"

#define UNPOOL DML_OPERATOR_MAX_UNPOOLING
#define OUTPUT_PATTERN 0xcd

struct unpool_case
{
    const char *name;
    DML_TENSOR_DATA_TYPE type, index_type;
    UINT in_sizes[4], out_sizes[4];
    const UINT *in_strides, *index_strides, *out_strides;
    const uint64_t *index_values;       /* [input elements], row-major */
    const uint64_t *values;             /* the input's bits, row-major */
};

static void write_element(uint8_t *bytes, UINT64 offset, unsigned int size, uint64_t bits)
{
    memcpy(bytes + offset * size, &bits, size);
}

static void run_case(struct dml_test_context *context, const struct unpool_case *c)
{
    unsigned int size = dml_test_element_size(c->type), index_size = dml_test_element_size(c->index_type);
    struct dml_test_binding bindings[2] = {{NULL}}, output = {NULL};
    DML_MAX_UNPOOLING_OPERATOR_DESC desc;
    struct dml_test_tensor in, indices, out;
    uint8_t *in_bytes, *index_bytes, *out_bytes, *expected;
    UINT64 i, in_count, out_count, *winner;
    IDMLCompiledOperator *compiled;
    size_t out_total;

    if (!dml_test_data_type_supported(context, c->type))
    {
        print_message("%s: %s not supported by the device, skipped.\n", c->name, dml_test_type_name(c->type));
        return;
    }
    dml_test_tensor_init(&in, c->type, 4, c->in_sizes, c->in_strides);
    dml_test_tensor_init(&indices, c->index_type, 4, c->in_sizes, c->index_strides);
    dml_test_tensor_init(&out, c->type, 4, c->out_sizes, c->out_strides);
    desc.InputTensor = &in.desc;
    desc.IndicesTensor = &indices.desc;
    desc.OutputTensor = &out.desc;
    compiled = dml_test_compile(context, UNPOOL, &desc, DML_EXECUTION_FLAG_NONE);

    in_count = dml_test_element_count(&in);
    out_count = dml_test_element_count(&out);
    in_bytes = calloc(1, in.buffer.TotalTensorSizeInBytes);
    index_bytes = calloc(1, indices.buffer.TotalTensorSizeInBytes);
    out_total = out.buffer.TotalTensorSizeInBytes;
    out_bytes = malloc(out_total);
    expected = malloc(out_total);
    winner = calloc(out_count, sizeof(*winner));
    assert_true(in_bytes && index_bytes && out_bytes && expected && winner);
    /* 0-strides: the last element written to a shared address is the one every reader sees. */
    for (i = 0; i < in_count; ++i)
    {
        write_element(in_bytes, dml_test_element_offset(&in, i), size, c->values[i]);
        write_element(index_bytes, dml_test_element_offset(&indices, i), index_size, c->index_values[i]);
    }
    for (i = 0; i < in_count; ++i)
    {
        uint64_t index = 0;

        memcpy(&index, index_bytes + dml_test_element_offset(&indices, i) * index_size, index_size);
        if (index < out_count)
            winner[index] = i + 1;
    }
    memset(expected, OUTPUT_PATTERN, out_total);
    for (i = 0; i < out_count; ++i)
    {
        uint64_t bits = 0;

        if (winner[i])
            memcpy(&bits, in_bytes + dml_test_element_offset(&in, winner[i] - 1) * size, size);
        write_element(expected, dml_test_element_offset(&out, i), size, bits);
    }

    bindings[0].buffer = dml_test_create_buffer(context, in.buffer.TotalTensorSizeInBytes, in_bytes);
    bindings[1].buffer = dml_test_create_buffer(context, indices.buffer.TotalTensorSizeInBytes, index_bytes);
    memset(out_bytes, OUTPUT_PATTERN, out_total);
    dml_test_create_guarded(context, out_total, out_bytes, &output);
    dml_test_run(context, compiled, bindings, 2, &output, 1);
    dml_test_check_guards(context, &output);
    dml_test_read_buffer(context, output.buffer, output.offset, out_bytes, out_total);
    for (i = 0; i < out_total; ++i)
    {
        if (out_bytes[i] != expected[i])
            fail_msg("%s (%s, %s indices): byte %" PRIu64 " = %#x, expected %#x", c->name, dml_test_type_name(c->type),
                    dml_test_type_name(c->index_type), i, out_bytes[i], expected[i]);
    }
    free(in_bytes);
    free(index_bytes);
    free(out_bytes);
    free(expected);
    free(winner);
    release_last(output.buffer);
    dml_test_release_bindings(bindings, 2);
    release_last(compiled);
    assert_no_log_errors();
}

/* Random bits of each input element (the type's width). */
static uint64_t *random_values(UINT64 count, DML_TENSOR_DATA_TYPE type, unsigned int seed)
{
    unsigned int size = dml_test_element_size(type);
    uint64_t *values = malloc(count * sizeof(*values)), mask = size == 8 ? ~(uint64_t)0 : ((uint64_t)1 << 8 * size) - 1;
    uint32_t state = 0x12345u + seed;
    UINT64 i;

    assert_non_null(values);
    for (i = 0; i < count; ++i)
        values[i] = (((uint64_t)ref_random(&state) << 32) | ref_random(&state)) & mask;
    return values;
}

/* Max pooling of `values` (sizes `sizes`, interpreted in `type`; compared as floats or integers)
 * with a square window and stride, no padding: the pooled bits and the flat indices of their
 * maxima (first of equal ones) into the pooling input. */
static bool greater(DML_TENSOR_DATA_TYPE type, uint64_t a, uint64_t b)
{
    unsigned int bits = 8 * dml_test_element_size(type);
    float fa, fb;
    uint32_t a32 = (uint32_t)a, b32 = (uint32_t)b;

    switch (type)
    {
        case DML_TENSOR_DATA_TYPE_FLOAT32:
            memcpy(&fa, &a32, 4), memcpy(&fb, &b32, 4);
            return fa > fb;
        case DML_TENSOR_DATA_TYPE_FLOAT16:
            return ref_half_to_float((uint16_t)a) > ref_half_to_float((uint16_t)b);
        case DML_TENSOR_DATA_TYPE_FLOAT64:
        {
            double da, db;

            memcpy(&da, &a, 8), memcpy(&db, &b, 8);
            return da > db;
        }
        case DML_TENSOR_DATA_TYPE_INT8: case DML_TENSOR_DATA_TYPE_INT16: case DML_TENSOR_DATA_TYPE_INT32:
        case DML_TENSOR_DATA_TYPE_INT64:
            /* Sign-extend from the type's width. */
            return (int64_t)(a << (64 - bits)) > (int64_t)(b << (64 - bits));
        default:
            return a > b;
    }
}

static void max_pool(DML_TENSOR_DATA_TYPE type, const UINT *sizes, const uint64_t *values, UINT window, UINT stride,
        const UINT *pooled_sizes, uint64_t *pooled, uint64_t *indices)
{
    UINT n, c, y, x, i, j;
    uint64_t best, at, o = 0;

    for (n = 0; n < sizes[0]; ++n)
    for (c = 0; c < sizes[1]; ++c)
    for (y = 0; y < pooled_sizes[2]; ++y)
    for (x = 0; x < pooled_sizes[3]; ++x, ++o)
    {
        best = ~(uint64_t)0;
        for (i = 0; i < window; ++i)
        for (j = 0; j < window; ++j)
        {
            at = (((uint64_t)n * sizes[1] + c) * sizes[2] + y * stride + i) * sizes[3] + x * stride + j;
            /* NaNs (random float bits) never win a comparison: a NaN first stays, as C's > would. */
            if (best == ~(uint64_t)0 || greater(type, values[at], values[best]))
                best = at;
        }
        pooled[o] = values[best];
        indices[o] = best;
    }
}

static void test_round_trip(void **state)
{
    static const UINT sizes[4] = {2, 3, 9, 11}, pooled_sizes[4] = {2, 3, 4, 5};
    static const DML_TENSOR_DATA_TYPE index_types[] = {DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_UINT64};
    uint64_t pooled[2 * 3 * 4 * 5], indices[ARRAY_SIZE(pooled)], *values;
    struct unpool_case c;
    size_t t;

    for (t = 0; t < ARRAY_SIZE(dml_test_all_types); ++t)
    {
        if (dml_test_all_types[t] == DML_TENSOR_DATA_TYPE_FLOAT64)
            continue;                   /* not a MAX_UNPOOLING type */
        values = random_values(2 * 3 * 9 * 11, dml_test_all_types[t], (unsigned int)t);
        /* 3x3 windows of stride 2 overlap: a maximum on a shared row or column is named twice. */
        max_pool(dml_test_all_types[t], sizes, values, 3, 2, pooled_sizes, pooled, indices);
        memset(&c, 0, sizeof(c));
        c.name = "round trip";
        c.type = dml_test_all_types[t];
        c.index_type = index_types[t % 2];
        memcpy(c.in_sizes, pooled_sizes, sizeof(pooled_sizes));
        memcpy(c.out_sizes, sizes, sizeof(sizes));
        c.index_values = indices;
        c.values = pooled;
        run_case(*state, &c);
        free(values);
    }
}

static void test_duplicates_and_range(void **state)
{
    static const UINT in_sizes[4] = {1, 2, 3, 7}, out_sizes[4] = {2, 1, 5, 5};
    static const UINT padded[4] = {64, 30, 9, 1}, broadcast[4] = {0, 0, 0, 1}, out_padded[4] = {40, 40, 8, 1};
    uint64_t index_values[42], *values;
    struct unpool_case c;
    unsigned int i, t;

    for (t = 0; t < 2; ++t)
    {
        memset(&c, 0, sizeof(c));
        c.name = "duplicates and indices out of range";
        c.type = t ? DML_TENSOR_DATA_TYPE_UINT64 : DML_TENSOR_DATA_TYPE_FLOAT16;
        c.index_type = t ? DML_TENSOR_DATA_TYPE_UINT64 : DML_TENSOR_DATA_TYPE_UINT32;
        memcpy(c.in_sizes, in_sizes, sizeof(in_sizes));
        memcpy(c.out_sizes, out_sizes, sizeof(out_sizes));
        for (i = 0; i < 42; ++i)
            index_values[i] = (i * 7) % 13;         /* every target named 3 or 4 times */
        index_values[5] = 50;                       /* the output's element count: outside */
        index_values[6] = 0xffffffffu;
        index_values[7] = t ? 0x100000003ull : 49;  /* UINT64: 3 + 2^32 is outside, not 3 */
        values = random_values(42, c.type, 10 + t);
        c.index_values = index_values;
        c.values = values;
        run_case(*state, &c);
        /* Padded input and output, broadcast indices (every element names the same few). */
        c.name = "padded, broadcast indices";
        c.in_strides = padded;
        c.out_strides = out_padded;
        c.index_strides = broadcast;
        run_case(*state, &c);
        free(values);
    }
}

static void test_invalid(void **state)
{
    static const UINT sizes[4] = {1, 2, 3, 4}, out_sizes[4] = {1, 2, 6, 8};
    struct dml_test_context *context = *state;
    DML_MAX_UNPOOLING_OPERATOR_DESC desc;
    struct dml_test_tensor in, indices, out;
    struct dml_test_tensor *tensors[] = {&in, &indices, &out};

    dml_test_tensor_init(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 4, sizes, NULL);
    dml_test_tensor_init(&indices, DML_TENSOR_DATA_TYPE_UINT32, 4, sizes, NULL);
    dml_test_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, out_sizes, NULL);
    desc.InputTensor = &in.desc;
    desc.IndicesTensor = &indices.desc;
    desc.OutputTensor = &out.desc;
    check_hr(dml_test_try_create(context, UNPOOL, &desc, tensors, 3), S_OK);
    assert_no_log_errors();
    indices.sizes[3] = 5;
    dml_test_check_bad(dml_test_try_create(context, UNPOOL, &desc, tensors, 3),
            "IndicesTensor.Sizes[3]=5 must equal InputTensor.Sizes[3]=4");
    indices.sizes[3] = 4;
    indices.buffer.DataType = DML_TENSOR_DATA_TYPE_INT32;
    dml_test_check_bad(dml_test_try_create(context, UNPOOL, &desc, tensors, 3), "IndicesTensor");
    indices.buffer.DataType = DML_TENSOR_DATA_TYPE_UINT32;
    out.buffer.DataType = DML_TENSOR_DATA_TYPE_FLOAT16;
    dml_test_check_bad(dml_test_try_create(context, UNPOOL, &desc, tensors, 3), "OutputTensor");
    vkdml_test_log_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_round_trip, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_duplicates_and_range, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_invalid, dml_test_setup, dml_test_teardown),
    };

    /* Logging first: it keeps the Vulkan driver loaded for LeakSanitizer (test_utils.c). */
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
