/*
 * DML_OPERATOR_NONZERO_COORDINATES through the public API against a C reference: every input
 * type, -0.0 (zero) and NaN (nonzero), all-zero and all-nonzero inputs, sizes that cross the
 * kernel's blocks (1, 7, 1000, 2655, 100000 and 9 million elements), strided and broadcast inputs,
 * rows of fewer coordinates than the rank, a padded coordinates tensor. The count and the first
 * count rows must match; the rows after them stay as they were (vkdml leaves them unwritten,
 * README "NONZERO_COORDINATES"), and guard regions around both outputs must stay untouched.
 * Then the desc rules, with their error code and log line.
 */
#include <inttypes.h>

#include "dml_test_utils.h"

#define NONZERO DML_OPERATOR_NONZERO_COORDINATES
#define SENTINEL 0xa7

enum fill
{
    FILL_RANDOM,                        /* about a third zeros, -0.0 and NaN among floats */
    FILL_ZERO,
    FILL_NONZERO,
    FILL_SPARSE,                        /* one element in 1000 nonzero */
};

struct nonzero_case
{
    DML_TENSOR_DATA_TYPE type;
    UINT rank, sizes[8];
    const UINT *strides;                /* NULL: packed */
    UINT columns;                       /* N: coordinates per row */
    UINT row_padding;                   /* the coordinates tensor's row stride is N + row_padding */
    enum fill fill;
    unsigned int seed;
};

/* An element's bits: zero, a negative zero, a NaN or random nonzero bits of `type`. */
static uint64_t draw_bits(const struct nonzero_case *c, uint32_t *state)
{
    unsigned int size = dml_test_element_size(c->type);
    uint64_t mask = ((uint64_t)1 << (8 * size)) - 1, bits;
    uint32_t r = ref_random(state);

    if (c->fill == FILL_ZERO || (c->fill == FILL_SPARSE && r % 1000))
        return 0;
    if (c->fill == FILL_RANDOM && r % 3 == 0)
    {
        if (c->type == DML_TENSOR_DATA_TYPE_FLOAT32 && r % 2)
            return 0x80000000u;
        if (c->type == DML_TENSOR_DATA_TYPE_FLOAT16 && r % 2)
            return 0x8000u;
        return 0;
    }
    if (c->fill == FILL_RANDOM && r % 5 == 1)
    {
        if (c->type == DML_TENSOR_DATA_TYPE_FLOAT32)
            return 0xffc00001u;
        if (c->type == DML_TENSOR_DATA_TYPE_FLOAT16)
            return 0x7e01u;
    }
    do
    {
        bits = ref_random(state) & mask;
    }
    while (!bits || (c->type == DML_TENSOR_DATA_TYPE_FLOAT32 && bits == 0x80000000u)
            || (c->type == DML_TENSOR_DATA_TYPE_FLOAT16 && bits == 0x8000u));
    return bits;
}

static bool is_nonzero(DML_TENSOR_DATA_TYPE type, uint64_t bits)
{
    if (type == DML_TENSOR_DATA_TYPE_FLOAT32)
        return (bits & 0x7fffffffu) != 0;
    if (type == DML_TENSOR_DATA_TYPE_FLOAT16)
        return (bits & 0x7fffu) != 0;
    return bits != 0;
}

static void run_case(struct dml_test_context *context, const struct nonzero_case *c)
{
    struct dml_test_binding input = {NULL}, outputs[2] = {{NULL}};
    UINT count_sizes[2] = {1, 1}, coordinate_sizes[2], coordinate_strides[2], coordinates[8];
    unsigned int size = dml_test_element_size(c->type);
    DML_NONZERO_COORDINATES_OPERATOR_DESC desc;
    struct dml_test_tensor in, count, coords;
    uint32_t state = c->seed | 1, *rows, *result, count_value, expected_count = 0;
    IDMLCompiledOperator *compiled;
    UINT64 i, elements, linear, row_stride;
    uint8_t *input_bytes;
    uint64_t bits;
    size_t rows_size;
    UINT j;

    if (!dml_test_data_type_supported(context, c->type))
    {
        print_message("%s: not supported by the device, skipped.\n", dml_test_type_name(c->type));
        return;
    }
    dml_test_tensor_init(&in, c->type, c->rank, c->sizes, c->strides);
    elements = dml_test_element_count(&in);
    row_stride = c->columns + c->row_padding;
    coordinate_sizes[0] = (UINT)elements;
    coordinate_sizes[1] = c->columns;
    coordinate_strides[0] = (UINT)row_stride;
    coordinate_strides[1] = 1;
    dml_test_tensor_init(&count, DML_TENSOR_DATA_TYPE_UINT32, 2, count_sizes, NULL);
    dml_test_tensor_init(&coords, DML_TENSOR_DATA_TYPE_UINT32, 2, coordinate_sizes,
            c->row_padding ? coordinate_strides : NULL);
    rows_size = coords.buffer.TotalTensorSizeInBytes;

    input_bytes = calloc(1, in.buffer.TotalTensorSizeInBytes);
    rows = malloc(rows_size);
    result = malloc(rows_size);
    assert_true(input_bytes && rows && result);
    /* Every addressed element gets bits (a broadcast one keeps its last). */
    for (i = 0; i < elements; ++i)
    {
        bits = draw_bits(c, &state);
        memcpy(input_bytes + dml_test_element_offset(&in, i) * size, &bits, size);
    }
    memset(rows, SENTINEL, rows_size);
    for (linear = 0; linear < elements; ++linear)
    {
        bits = 0;
        memcpy(&bits, input_bytes + dml_test_element_offset(&in, linear) * size, size);
        if (!is_nonzero(c->type, bits))
            continue;
        i = linear;
        for (j = c->rank; j-- > 0;)
        {
            coordinates[j] = i % c->sizes[j];
            i /= c->sizes[j];
        }
        for (j = 0; j < c->columns; ++j)
            rows[expected_count * row_stride + j] = coordinates[c->rank - c->columns + j];
        ++expected_count;
    }

    desc.InputTensor = &in.desc;
    desc.OutputCountTensor = &count.desc;
    desc.OutputCoordinatesTensor = &coords.desc;
    compiled = dml_test_compile(context, NONZERO, &desc, DML_EXECUTION_FLAG_NONE);
    input.buffer = dml_test_create_buffer(context, in.buffer.TotalTensorSizeInBytes, input_bytes);
    count_value = 0xdeadbeef;
    dml_test_create_guarded(context, sizeof(count_value), &count_value, &outputs[0]);
    memset(result, SENTINEL, rows_size);
    dml_test_create_guarded(context, rows_size, result, &outputs[1]);
    dml_test_run(context, compiled, &input, 1, outputs, 2);
    dml_test_read_buffer(context, outputs[0].buffer, outputs[0].offset, &count_value, sizeof(count_value));
    dml_test_read_buffer(context, outputs[1].buffer, outputs[1].offset, result, rows_size);
    dml_test_check_guards(context, &outputs[0]);
    dml_test_check_guards(context, &outputs[1]);
    if (count_value != expected_count)
        fail_msg("%s, %" PRIu64 " elements: count %u, expected %u", dml_test_type_name(c->type), elements,
                count_value, expected_count);
    for (i = 0; i < rows_size / sizeof(*rows); ++i)
    {
        if (result[i] != rows[i])
            fail_msg("%s, %" PRIu64 " elements: row %" PRIu64 " word %" PRIu64 " = %#x, expected %#x",
                    dml_test_type_name(c->type), elements, i / row_stride, i % row_stride, result[i], rows[i]);
    }
    free(input_bytes);
    free(rows);
    free(result);
    release_last(input.buffer);
    dml_test_release_bindings(outputs, 2);
    release_last(compiled);
    assert_no_log_errors();
}

static const DML_TENSOR_DATA_TYPE input_types[] =
{
    DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_UINT32,
    DML_TENSOR_DATA_TYPE_UINT16, DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_INT32,
    DML_TENSOR_DATA_TYPE_INT16, DML_TENSOR_DATA_TYPE_INT8,
};

/* Every type, random with -0.0 and NaN, 2655 elements (two blocks, a partial chunk), a padded row
 * stride. */
static void test_types(void **state)
{
    struct nonzero_case c;
    size_t t;

    for (t = 0; t < ARRAY_SIZE(input_types); ++t)
    {
        memset(&c, 0, sizeof(c));
        c.type = input_types[t];
        c.rank = 3;
        c.sizes[0] = 3, c.sizes[1] = 5, c.sizes[2] = 177;
        c.columns = 3;
        c.row_padding = t % 2;
        c.fill = FILL_RANDOM;
        c.seed = 3 + t;
        run_case(*state, &c);
    }
}

static void test_fills(void **state)
{
    static const UINT sizes[3][4] = {{1}, {7}, {1000}};
    struct nonzero_case c;
    size_t s;

    for (s = 0; s < ARRAY_SIZE(sizes); ++s)
    {
        memset(&c, 0, sizeof(c));
        c.type = DML_TENSOR_DATA_TYPE_FLOAT32;
        c.rank = 1;
        c.sizes[0] = sizes[s][0];
        c.columns = 1;
        c.fill = FILL_ZERO;
        run_case(*state, &c);
        c.fill = FILL_NONZERO;
        c.seed = 5;
        run_case(*state, &c);
    }
    /* 100000 elements, all nonzero: 98 blocks, every row written. */
    memset(&c, 0, sizeof(c));
    c.type = DML_TENSOR_DATA_TYPE_INT8;
    c.rank = 2;
    c.sizes[0] = 100, c.sizes[1] = 1000;
    c.columns = 2;
    c.fill = FILL_NONZERO;
    c.seed = 9;
    run_case(*state, &c);
    /* 9 million elements, sparse: 4399 blocks, the scan's invocations each take several. */
    memset(&c, 0, sizeof(c));
    c.type = DML_TENSOR_DATA_TYPE_UINT8;
    c.rank = 3;
    c.sizes[0] = 9, c.sizes[1] = 1000, c.sizes[2] = 1001;
    c.columns = 3;
    c.fill = FILL_SPARSE;
    c.seed = 13;
    run_case(*state, &c);
}

static void test_shapes(void **state)
{
    static const UINT padded[4] = {1000, 200, 20, 2}, broadcast[3] = {0, 1, 0};
    struct nonzero_case c;

    /* Leading sizes of 1: rows of the effective rank (2), then of 3 (a zero first). */
    memset(&c, 0, sizeof(c));
    c.type = DML_TENSOR_DATA_TYPE_FLOAT16;
    c.rank = 4;
    c.sizes[0] = 1, c.sizes[1] = 1, c.sizes[2] = 33, c.sizes[3] = 9;
    c.columns = 2;
    c.fill = FILL_RANDOM;
    c.seed = 17;
    run_case(*state, &c);
    c.columns = 3;
    run_case(*state, &c);
    /* A strided input. */
    memset(&c, 0, sizeof(c));
    c.type = DML_TENSOR_DATA_TYPE_INT32;
    c.rank = 4;
    c.sizes[0] = 2, c.sizes[1] = 5, c.sizes[2] = 9, c.sizes[3] = 7;
    c.strides = padded;
    c.columns = 4;
    c.fill = FILL_RANDOM;
    c.seed = 19;
    run_case(*state, &c);
    /* A broadcast input: every row of the middle dimension reads one value. */
    memset(&c, 0, sizeof(c));
    c.type = DML_TENSOR_DATA_TYPE_UINT16;
    c.rank = 3;
    c.sizes[0] = 4, c.sizes[1] = 300, c.sizes[2] = 3;
    c.strides = broadcast;
    c.columns = 3;
    c.fill = FILL_RANDOM;
    c.seed = 23;
    run_case(*state, &c);
    /* Rank 8. */
    memset(&c, 0, sizeof(c));
    c.type = DML_TENSOR_DATA_TYPE_FLOAT32;
    c.rank = 8;
    c.sizes[0] = 2, c.sizes[1] = 1, c.sizes[2] = 3, c.sizes[3] = 2;
    c.sizes[4] = 1, c.sizes[5] = 5, c.sizes[6] = 2, c.sizes[7] = 3;
    c.columns = 8;
    c.fill = FILL_RANDOM;
    c.seed = 29;
    run_case(*state, &c);
}

static void test_invalid(void **state)
{
    static const UINT input_sizes[4] = {1, 2, 3, 4}, count_sizes[1] = {1}, coordinate_sizes[3] = {1, 24, 3};
    struct dml_test_context *context = *state;
    DML_NONZERO_COORDINATES_OPERATOR_DESC desc;
    struct dml_test_tensor in, count, coords;
    struct dml_test_tensor *tensors[] = {&in, &count, &coords};

    dml_test_tensor_init(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 4, input_sizes, NULL);
    dml_test_tensor_init(&count, DML_TENSOR_DATA_TYPE_UINT32, 1, count_sizes, NULL);
    dml_test_tensor_init(&coords, DML_TENSOR_DATA_TYPE_UINT32, 3, coordinate_sizes, NULL);
    desc.InputTensor = &in.desc;
    desc.OutputCountTensor = &count.desc;
    desc.OutputCoordinatesTensor = &coords.desc;
    check_hr(dml_test_try_create(context, NONZERO, &desc, tensors, 3), S_OK);
    coords.sizes[2] = 4;
    check_hr(dml_test_try_create(context, NONZERO, &desc, tensors, 3), S_OK);
    assert_no_log_errors();
    coords.sizes[2] = 2;
    dml_test_check_bad(dml_test_try_create(context, NONZERO, &desc, tensors, 3),
            "OutputCoordinatesTensor.Sizes[2]=2 must be from the input's effective rank 3 to its DimensionCount=4");
    coords.sizes[2] = 5;
    dml_test_check_bad(dml_test_try_create(context, NONZERO, &desc, tensors, 3),
            "OutputCoordinatesTensor.Sizes[2]=5 must be from the input's effective rank 3 to its DimensionCount=4");
    coords.sizes[2] = 3;
    coords.sizes[1] = 25;
    dml_test_check_bad(dml_test_try_create(context, NONZERO, &desc, tensors, 3),
            "OutputCoordinatesTensor.Sizes[1]=25 must be the input's element count 24");
    coords.sizes[1] = 24;
    coords.sizes[0] = 2;
    dml_test_check_bad(dml_test_try_create(context, NONZERO, &desc, tensors, 3),
            "OutputCoordinatesTensor.Sizes[0]=2 must be 1 (all but the last two)");
    coords.sizes[0] = 1;
    count.sizes[0] = 2;
    dml_test_check_bad(dml_test_try_create(context, NONZERO, &desc, tensors, 3),
            "OutputCountTensor.Sizes[0]=2 must be 1");
    count.sizes[0] = 1;
    count.buffer.DataType = DML_TENSOR_DATA_TYPE_INT32;
    dml_test_check_bad(dml_test_try_create(context, NONZERO, &desc, tensors, 3), "OutputCountTensor.DataType");
    count.buffer.DataType = DML_TENSOR_DATA_TYPE_UINT32;
    coords.buffer.DataType = DML_TENSOR_DATA_TYPE_UINT64;
    dml_test_check_bad(dml_test_try_create(context, NONZERO, &desc, tensors, 3), "OutputCoordinatesTensor.DataType");
    vkdml_test_log_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_types, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_fills, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_shapes, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_invalid, dml_test_setup, dml_test_teardown),
    };

    /* Logging first: it keeps the Vulkan driver loaded for LeakSanitizer (test_utils.c). */
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
