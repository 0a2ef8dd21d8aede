/*
 * DML_OPERATOR_TOP_K and DML_OPERATOR_TOP_K1 through the public API, against a C reference (a
 * stable sort of each row): every input type, UINT32 and UINT64 indices, both directions, ranks 1
 * to 8 with the axis anywhere, padded (strided) and broadcast (0-stride) inputs, padded outputs,
 * rows of 1 to more than a workgroup's registers hold (split in parts or not), K from 1 to the
 * axis length (sorted in shared memory or in the temporary resource), ties (lower index first in
 * both directions), NaN, infinities and signed zeros (README, "TOP_K and TOP_K1"), the threshold
 * filter's paths (ties beyond its slots, candidates overflowing shared memory), an OWNED_BY_DML
 * input, DirectML's documented examples, and the desc rules with their error codes and log lines.
 * Values must be bit for bit the input's, indices exact; a second execution must give the same
 * bytes.
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
#define TOP_K DML_OPERATOR_TOP_K
#define TOP_K1 DML_OPERATOR_TOP_K1
#define LARGEST DML_AXIS_DIRECTION_DECREASING
#define SMALLEST DML_AXIS_DIRECTION_INCREASING

#define MAX_RANK 8

/* ---- Tensors: raw bytes over their span ---- */

enum layout
{
    PACKED,
    PADDED,             /* every dimension padded with unused elements */
    BROADCAST,          /* input only: stride 0 on dimension 0 and on the axis */
};

struct tensor
{
    UINT rank, sizes[MAX_RANK], strides[MAX_RANK];
    struct dml_test_tensor t;
    size_t span, element_size;
    uint8_t *bytes;     /* [TotalTensorSizeInBytes] */
};

static void tensor_init(struct tensor *t, DML_TENSOR_DATA_TYPE type, UINT rank, const UINT *sizes,
        enum layout layout, UINT axis)
{
    UINT i, stride = 1;
    size_t last = 0;

    memset(t, 0, sizeof(*t));
    t->rank = rank;
    memcpy(t->sizes, sizes, rank * sizeof(*sizes));
    for (i = rank; i-- > 0;)
    {
        bool zero = layout == BROADCAST && (i == 0 || i == axis);

        t->strides[i] = zero ? 0 : stride;
        if (!zero)
            stride = stride * sizes[i] + (layout == PADDED ? 1 + i % 2 : 0);
    }
    for (i = 0; i < rank; ++i)
        last += (size_t)(sizes[i] - 1) * t->strides[i];
    t->span = last + 1;
    t->element_size = dml_test_element_size(type);
    dml_test_tensor_init(&t->t, type, rank, sizes, layout == PACKED ? NULL : t->strides);
    t->bytes = calloc(1, t->t.buffer.TotalTensorSizeInBytes);
    assert_non_null(t->bytes);
}

static void tensor_cleanup(struct tensor *t)
{
    free(t->bytes);
}

/* ---- Values: what the operator compares ---- */

/* An element as the reference orders it: NaN above everything, -0 equal to +0. */
struct value
{
    bool nan;
    bool is_signed;
    double f;           /* floats */
    int64_t i;
    uint64_t u;
};

static bool is_float(DML_TENSOR_DATA_TYPE type)
{
    return type == F32 || type == F16;
}

static struct value read_value(const struct tensor *t, size_t offset)
{
    const uint8_t *p = t->bytes + offset * t->element_size;
    struct value v = {0};

    switch (t->t.buffer.DataType)
    {
        case F32: { float f; memcpy(&f, p, 4); v.f = f; break; }
        case F16: { uint16_t h; memcpy(&h, p, 2); v.f = ref_half_to_float(h); break; }
        case U32: { uint32_t x; memcpy(&x, p, 4); v.u = x; break; }
        case U16: { uint16_t x; memcpy(&x, p, 2); v.u = x; break; }
        case U8: v.u = *p; break;
        case I32: { int32_t x; memcpy(&x, p, 4); v.i = x; v.is_signed = true; break; }
        case I16: { int16_t x; memcpy(&x, p, 2); v.i = x; v.is_signed = true; break; }
        case I8: v.i = (int8_t)*p; v.is_signed = true; break;
        case U64: memcpy(&v.u, p, 8); break;
        case I64: memcpy(&v.i, p, 8); v.is_signed = true; break;
        default: fail();
    }
    v.nan = is_float(t->t.buffer.DataType) && isnan(v.f);
    return v;
}

/* -1, 0, 1 as a is less than, equal to, greater than b. */
static int compare_values(const struct value *a, const struct value *b, DML_TENSOR_DATA_TYPE type)
{
    if (is_float(type))
    {
        if (a->nan || b->nan)
            return a->nan - b->nan;
        return (a->f > b->f) - (a->f < b->f);
    }
    if (a->is_signed)
        return (a->i > b->i) - (a->i < b->i);
    return (a->u > b->u) - (a->u < b->u);
}

/* Random elements in a small range (so that rows have ties), and for floats NaN, infinities and
 * signed zeros now and then. */
static void random_element(uint8_t *p, DML_TENSOR_DATA_TYPE type, uint32_t *random, bool specials, uint32_t range)
{
    uint32_t r = ref_random(random);
    int32_t small = (int32_t)(r % range) - (int32_t)(range / 2);
    static const float special_values[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f};
    float f = (float)small * 0.25f;
    uint64_t wide;

    if (specials && ref_random(random) % 8 == 0)
        f = special_values[ref_random(random) % ARRAY_SIZE(special_values)];
    switch (type)
    {
        case F32: memcpy(p, &f, 4); break;
        case F16: { uint16_t h = ref_float_to_half(f); memcpy(p, &h, 2); break; }
        case U32: case I32: { uint32_t x = r % 3 ? (uint32_t)small : r; memcpy(p, &x, 4); break; }
        case U16: case I16: { uint16_t x = (uint16_t)(r % 3 ? (uint32_t)small : r); memcpy(p, &x, 2); break; }
        case U8: case I8: *p = (uint8_t)small; break;
        case U64: case I64:
            wide = r % 3 ? (uint64_t)(int64_t)small : ((uint64_t)ref_random(random) << 32 | r);
            if (r % 5 == 0)
                wide = (uint64_t)(int64_t)small << 32 | (r & 3);    /* ties in the high word */
            memcpy(p, &wide, 8);
            break;
        default: fail();
    }
}

/* ---- Cases ---- */

struct topk_case
{
    const char *name;
    DML_OPERATOR_TYPE op;
    DML_TENSOR_DATA_TYPE type, index_type;
    UINT rank, sizes[MAX_RANK], axis, k;
    DML_AXIS_DIRECTION direction;       /* TOP_K1 only */
    enum layout input_layout;
    bool padded_outputs, specials;
    uint32_t range;                     /* of the random values; 0 means 64 */
};

struct topk_run
{
    const struct topk_case *test;
    struct tensor input, values, indices;
    size_t *expected;                   /* [rows * K]: the chosen input index along the axis */
};

/* The reference's row being sorted: qsort has no context argument. */
static const struct tensor *sort_tensor;
static const size_t *sort_offsets;
static bool sort_largest;

static int compare_candidates(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    struct value va = read_value(sort_tensor, sort_offsets[a]), vb = read_value(sort_tensor, sort_offsets[b]);
    int order = compare_values(&va, &vb, sort_tensor->t.buffer.DataType);

    /* NaN is the largest value in both directions: last when the smallest come first. */
    if (order)
        return sort_largest ? -order : order;
    return (a > b) - (a < b);
}

/* Row r's input element j: the rows run over the input's dimensions other than the axis. */
static size_t input_logical_index(const struct topk_run *run, size_t row, size_t j)
{
    const struct topk_case *test = run->test;
    size_t index = 0, coordinate, inner = 1;
    UINT d;

    for (d = test->rank; d-- > 0;)
    {
        if (d == test->axis)
            coordinate = j;
        else
            coordinate = row % test->sizes[d], row /= test->sizes[d];
        index += coordinate * inner;
        inner *= test->sizes[d];
    }
    return index;
}

/* Row r's output element i: as input_logical_index() with K along the axis. */
static size_t output_logical_index(const struct topk_run *run, size_t row, size_t i)
{
    const struct topk_case *test = run->test;
    size_t index = 0, coordinate, inner = 1, size;
    UINT d;

    for (d = test->rank; d-- > 0;)
    {
        size = d == test->axis ? test->k : test->sizes[d];
        if (d == test->axis)
            coordinate = i;
        else
            coordinate = row % size, row /= size;
        index += coordinate * inner;
        inner *= size;
    }
    return index;
}

static size_t row_count(const struct topk_case *test)
{
    size_t rows = 1;
    UINT d;

    for (d = 0; d < test->rank; ++d)
        rows *= d == test->axis ? 1 : test->sizes[d];
    return rows;
}

static bool direction_largest(const struct topk_case *test)
{
    return test->op == TOP_K || test->direction == LARGEST;
}

static void compute_reference(struct topk_run *run)
{
    const struct topk_case *test = run->test;
    UINT length = test->sizes[test->axis];
    size_t rows = row_count(test), row, j, *order, *offsets;

    order = malloc(length * sizeof(*order));
    offsets = malloc(length * sizeof(*offsets));
    assert_true(order && offsets);
    sort_tensor = &run->input;
    sort_offsets = offsets;
    sort_largest = direction_largest(test);
    for (row = 0; row < rows; ++row)
    {
        for (j = 0; j < length; ++j)
        {
            order[j] = j;
            offsets[j] = dml_test_element_offset(&run->input.t, input_logical_index(run, row, j));
        }
        qsort(order, length, sizeof(*order), compare_candidates);
        memcpy(&run->expected[row * test->k], order, test->k * sizeof(*order));
    }
    free(order);
    free(offsets);
}

static void topk_run_init(struct topk_run *run, const struct topk_case *test)
{
    UINT out_sizes[MAX_RANK];
    uint32_t random = 0x9e3779b9u ^ test->sizes[test->axis] * 77u ^ test->type;
    size_t i;

    memset(run, 0, sizeof(*run));
    run->test = test;
    memcpy(out_sizes, test->sizes, sizeof(out_sizes));
    out_sizes[test->axis] = test->k;
    tensor_init(&run->input, test->type, test->rank, test->sizes, test->input_layout, test->axis);
    tensor_init(&run->values, test->type, test->rank, out_sizes, test->padded_outputs ? PADDED : PACKED, 0);
    tensor_init(&run->indices, test->index_type, test->rank, out_sizes, test->padded_outputs ? PADDED : PACKED, 0);
    for (i = 0; i < run->input.span; ++i)
        random_element(run->input.bytes + i * run->input.element_size, test->type, &random, test->specials,
                test->range ? test->range : 64);
    run->expected = calloc(row_count(test) * test->k, sizeof(*run->expected));
    assert_non_null(run->expected);
    compute_reference(run);
}

static void topk_run_cleanup(struct topk_run *run)
{
    tensor_cleanup(&run->input);
    tensor_cleanup(&run->values);
    tensor_cleanup(&run->indices);
    free(run->expected);
}

static uint64_t read_index(const struct tensor *t, size_t offset)
{
    uint32_t narrow;
    uint64_t wide;

    if (t->t.buffer.DataType == U64)
    {
        memcpy(&wide, t->bytes + offset * 8, 8);
        return wide;
    }
    memcpy(&narrow, t->bytes + offset * 4, 4);
    return narrow;
}

static void check_outputs(const struct topk_run *run)
{
    const struct topk_case *test = run->test;
    size_t rows = row_count(test), row, i, expected, at, from;
    uint64_t got;

    for (row = 0; row < rows; ++row)
    {
        for (i = 0; i < test->k; ++i)
        {
            expected = run->expected[row * test->k + i];
            at = output_logical_index(run, row, i);
            got = read_index(&run->indices, dml_test_element_offset(&run->indices.t, at));
            if (got != expected)
                fail_msg("%s: row %zu, output %zu: index %" PRIu64 ", expected %zu", test->name, row, i, got,
                        expected);
            from = dml_test_element_offset(&run->input.t, input_logical_index(run, row, expected));
            if (memcmp(run->values.bytes + dml_test_element_offset(&run->values.t, at) * run->values.element_size,
                    run->input.bytes + from * run->input.element_size, run->input.element_size))
                fail_msg("%s: row %zu, output %zu: the value differs from input element %zu", test->name, row, i,
                        expected);
        }
    }
}

static void fill_desc(const struct topk_run *run, DML_TOP_K1_OPERATOR_DESC *desc)
{
    desc->InputTensor = &run->input.t.desc;
    desc->OutputValueTensor = &run->values.t.desc;
    desc->OutputIndexTensor = &run->indices.t.desc;
    desc->Axis = run->test->axis;
    desc->K = run->test->k;
    desc->AxisDirection = run->test->direction;
}

static bool skip_type(struct dml_test_context *context, DML_TENSOR_DATA_TYPE type, const char *name)
{
    if (dml_test_data_type_supported(context, type))
        return false;
    print_message("%s: skipped, %s tensors are not supported by the device\n", name, dml_test_type_name(type));
    return true;
}

static void run_case(struct dml_test_context *context, const struct topk_case *test)
{
    struct dml_test_binding input = {NULL}, outputs[2] = {{NULL}};
    ID3D12Resource *persistent;
    IDMLCompiledOperator *compiled;
    DML_TOP_K1_OPERATOR_DESC desc;
    struct topk_run run;
    uint8_t *first;
    size_t size;

    if (skip_type(context, test->type, test->name) || skip_type(context, test->index_type, test->name))
        return;
    topk_run_init(&run, test);
    fill_desc(&run, &desc);
    compiled = dml_test_compile(context, test->op, &desc, DML_EXECUTION_FLAG_NONE);
    input.buffer = dml_test_create_buffer(context, run.input.t.buffer.TotalTensorSizeInBytes, run.input.bytes);
    outputs[0].buffer = dml_test_create_buffer(context, run.values.t.buffer.TotalTensorSizeInBytes, NULL);
    outputs[1].buffer = dml_test_create_buffer(context, run.indices.t.buffer.TotalTensorSizeInBytes, NULL);
    persistent = dml_test_initialize(context, compiled, NULL, 0);
    dml_test_execute(context, compiled, persistent, &input, 1, outputs, 2);
    dml_test_read_buffer(context, outputs[0].buffer, 0, run.values.bytes, run.values.t.buffer.TotalTensorSizeInBytes);
    dml_test_read_buffer(context, outputs[1].buffer, 0, run.indices.bytes,
            run.indices.t.buffer.TotalTensorSizeInBytes);
    check_outputs(&run);

    /* Determinism: a second execution writes the same bytes. */
    size = run.values.t.buffer.TotalTensorSizeInBytes;
    first = malloc(size);
    assert_non_null(first);
    memcpy(first, run.values.bytes, size);
    dml_test_execute(context, compiled, persistent, &input, 1, outputs, 2);
    dml_test_read_buffer(context, outputs[0].buffer, 0, run.values.bytes, size);
    if (memcmp(first, run.values.bytes, size))
        fail_msg("%s: a second execution gave other values", test->name);
    free(first);

    if (persistent)
        release_last(persistent);
    release_last(input.buffer);
    release_last(outputs[0].buffer);
    release_last(outputs[1].buffer);
    release_last(compiled);
    topk_run_cleanup(&run);
    assert_no_log_errors();
}

static void run_cases(void **state, const struct topk_case *cases, size_t count)
{
    size_t i;

    for (i = 0; i < count; ++i)
        run_case(*state, &cases[i]);
}

/* ---- DirectML's documented examples (DML_TOP_K_OPERATOR_DESC), and TOP_K1 on the same input ---- */

struct documented_case
{
    DML_OPERATOR_TYPE op;
    UINT axis;
    DML_AXIS_DIRECTION direction;
    UINT out_sizes[4];
    float values[8];
    uint32_t indices[8];
};

static void run_documented(struct dml_test_context *context, const struct documented_case *test)
{
    static const UINT in_sizes[4] = {1, 1, 3, 4};
    static const float input[12] = {0, 1, 10, 11, 3, 2, 9, 8, 4, 5, 6, 7};
    struct dml_test_binding in = {NULL}, outputs[2] = {{NULL}};
    struct dml_test_tensor t_in, t_values, t_indices;
    IDMLCompiledOperator *compiled;
    DML_TOP_K1_OPERATOR_DESC desc;
    uint32_t indices[8];
    float values[8];
    size_t count = (size_t)test->out_sizes[2] * test->out_sizes[3];

    dml_test_tensor_init(&t_in, F32, 4, in_sizes, NULL);
    dml_test_tensor_init(&t_values, F32, 4, test->out_sizes, NULL);
    dml_test_tensor_init(&t_indices, U32, 4, test->out_sizes, NULL);
    desc = (DML_TOP_K1_OPERATOR_DESC){&t_in.desc, &t_values.desc, &t_indices.desc, test->axis, 2, test->direction};
    compiled = dml_test_compile(context, test->op, &desc, DML_EXECUTION_FLAG_NONE);
    in.buffer = dml_test_create_buffer(context, sizeof(input), input);
    outputs[0].buffer = dml_test_create_buffer(context, count * sizeof(*values), NULL);
    outputs[1].buffer = dml_test_create_buffer(context, count * sizeof(*indices), NULL);
    dml_test_run(context, compiled, &in, 1, outputs, 2);
    dml_test_read_buffer(context, outputs[0].buffer, 0, values, count * sizeof(*values));
    dml_test_read_buffer(context, outputs[1].buffer, 0, indices, count * sizeof(*indices));
    assert_memory_equal(values, test->values, count * sizeof(*values));
    assert_memory_equal(indices, test->indices, count * sizeof(*indices));
    release_last(in.buffer);
    release_last(outputs[0].buffer);
    release_last(outputs[1].buffer);
    release_last(compiled);
    assert_no_log_errors();
}

static void test_documented_examples(void **state)
{
    static const struct documented_case cases[] =
    {
        {TOP_K, 3, 0, {1, 1, 3, 2}, {11, 10, 9, 8, 7, 6}, {3, 2, 2, 3, 3, 2}},
        {TOP_K, 2, 0, {1, 1, 2, 4}, {4, 5, 10, 11, 3, 2, 9, 8}, {2, 2, 0, 0, 1, 1, 1, 1}},
        {TOP_K1, 3, SMALLEST, {1, 1, 3, 2}, {0, 1, 2, 3, 4, 5}, {0, 1, 1, 0, 0, 1}},
        {TOP_K1, 2, LARGEST, {1, 1, 2, 4}, {4, 5, 10, 11, 3, 2, 9, 8}, {2, 2, 0, 0, 1, 1, 1, 1}},
    };
    size_t i;

    for (i = 0; i < ARRAY_SIZE(cases); ++i)
        run_documented(*state, &cases[i]);
}

/* ---- Reference cases ---- */

static const struct topk_case type_cases[] =
{
    {"FLOAT32 largest", TOP_K, F32, U32, 2, {5, 33}, 1, 7},
    {"FLOAT32 smallest, UINT64 indices", TOP_K1, F32, U64, 2, {4, 33}, 1, 7, SMALLEST},
    {"FLOAT16 largest", TOP_K1, F16, U32, 2, {3, 40}, 1, 9, LARGEST},
    {"FLOAT16 smallest", TOP_K1, F16, U32, 2, {3, 40}, 1, 9, SMALLEST},
    {"UINT32", TOP_K1, U32, U32, 2, {3, 50}, 1, 10, LARGEST},
    {"UINT32 smallest", TOP_K1, U32, U32, 2, {3, 50}, 1, 10, SMALLEST},
    {"INT32", TOP_K1, I32, U64, 2, {3, 50}, 1, 10, LARGEST},
    {"INT32 smallest", TOP_K1, I32, U32, 2, {3, 50}, 1, 10, SMALLEST},
    {"UINT16", TOP_K1, U16, U32, 2, {2, 37}, 1, 5, SMALLEST},
    {"INT16", TOP_K1, I16, U32, 2, {2, 37}, 1, 5, LARGEST},
    {"UINT8", TOP_K1, U8, U32, 2, {2, 37}, 1, 6, LARGEST},
    {"INT8", TOP_K1, I8, U64, 2, {2, 37}, 1, 6, SMALLEST},
    {"UINT64", TOP_K1, U64, U32, 2, {3, 45}, 1, 8, LARGEST},
    {"UINT64 smallest", TOP_K1, U64, U64, 2, {3, 45}, 1, 8, SMALLEST},
    {"INT64", TOP_K1, I64, U32, 2, {3, 45}, 1, 8, LARGEST},
    {"INT64 smallest", TOP_K1, I64, U32, 2, {3, 45}, 1, 8, SMALLEST},
};

static const struct topk_case special_cases[] =
{
    {"FLOAT32 NaN, infinities, signed zeros, largest", TOP_K1, F32, U32, 2, {6, 24}, 1, 24, LARGEST,
            .specials = true, .range = 4},
    {"FLOAT32 NaN, infinities, signed zeros, smallest", TOP_K1, F32, U32, 2, {6, 24}, 1, 24, SMALLEST,
            .specials = true, .range = 4},
    {"FLOAT16 NaN, infinities, signed zeros", TOP_K, F16, U32, 2, {6, 24}, 1, 13, .specials = true, .range = 4},
    {"FLOAT16 NaN, infinities, signed zeros, smallest", TOP_K1, F16, U32, 2, {6, 24}, 1, 13, SMALLEST,
            .specials = true, .range = 4},
    {"INT32 many ties, smallest", TOP_K1, I32, U32, 2, {4, 100}, 1, 60, SMALLEST, .range = 3},
};

static const struct topk_case shape_cases[] =
{
    {"rank 1, K 1 of 1", TOP_K, F32, U32, 1, {1}, 0, 1},
    {"rank 1, K = the axis length", TOP_K1, F32, U32, 1, {7}, 0, 7, SMALLEST},
    {"rank 1, 1000, K 33", TOP_K, F32, U32, 1, {1000}, 0, 33},
    {"rows longer than the registers hold, split in parts", TOP_K1, F32, U32, 2, {2, 9000}, 1, 5, LARGEST,
            .range = 100000},
    {"a last part shorter than K", TOP_K, F32, U32, 1, {8195}, 0, 5, .range = 100000},
    {"split rows, ties across parts, INT64", TOP_K1, I64, U64, 2, {2, 17000}, 1, 100, SMALLEST, .range = 50},
    {"split in 5 parts, K 64, smallest", TOP_K1, F32, U64, 1, {40000}, 0, 64, SMALLEST, .range = 100000},
    {"split rows, FLOAT16 NaN and infinities", TOP_K1, F16, U32, 2, {3, 10000}, 1, 50, LARGEST, .specials = true},
    {"rows longer than the registers hold, not split (K 200)", TOP_K1, U32, U32, 1, {9000}, 0, 200, SMALLEST,
            .range = 1000},
    {"axis 0 of 3, strided reads", TOP_K1, F32, U32, 3, {33, 3, 5}, 0, 4, SMALLEST},
    {"rank 8, axis in the middle, padded input and outputs", TOP_K1, I32, U64, 8, {2, 1, 3, 2, 5, 1, 2, 3}, 4, 3,
            LARGEST, PADDED, true},
    {"rank 4, broadcast input", TOP_K1, F32, U32, 4, {3, 2, 6, 2}, 2, 4, LARGEST, BROADCAST},
    {"rank 5, last axis, padded input", TOP_K, F16, U32, 5, {2, 3, 1, 2, 17}, 4, 16, 0, PADDED},
    {"K = 64 of 8192", TOP_K, F32, U32, 2, {2, 8192}, 1, 64, .range = 1000000},
    {"K = 8 of 8192, FLOAT16 smallest", TOP_K1, F16, U32, 2, {2, 8192}, 1, 8, SMALLEST},
    {"K = 1 of 7000, INT16 smallest", TOP_K1, I16, U32, 2, {3, 7000}, 1, 1, SMALLEST, .range = 100000},
    {"K = 128 of 6000, UINT8: ties beyond the filter's slots", TOP_K1, U8, U32, 2, {2, 6000}, 1, 128, LARGEST},
    {"K = 60 of 8000, three values: the filter overflows", TOP_K1, F32, U32, 2, {2, 8000}, 1, 60, LARGEST,
            .range = 3},
    {"K = 2048 of 2100 (shared-memory sort)", TOP_K1, U16, U32, 1, {2100}, 0, 2048, SMALLEST, .range = 5000},
    {"K = 2100 of 2500 (sorted in the temporary resource)", TOP_K1, F32, U32, 1, {2500}, 0, 2100, LARGEST,
            .range = 3000},
    {"a full sort of 3 rows of 2200, padded", TOP_K1, I16, U64, 2, {3, 2200}, 1, 2200, SMALLEST, PADDED, true,
            .range = 500},
};

static void test_types(void **state)
{
    run_cases(state, type_cases, ARRAY_SIZE(type_cases));
}

static void test_special_values(void **state)
{
    run_cases(state, special_cases, ARRAY_SIZE(special_cases));
}

static void test_shapes(void **state)
{
    run_cases(state, shape_cases, ARRAY_SIZE(shape_cases));
}

/* An OWNED_BY_DML input: the initializer copies it, and the results must not change after the
 * source is overwritten. */
static void test_owned_input(void **state)
{
    static const struct topk_case test = {"OWNED_BY_DML input", TOP_K1, F32, U64, 2, {3, 50}, 1, 6, SMALLEST};
    struct dml_test_binding inputs[1] = {{NULL}}, owned[1] = {{NULL}}, outputs[2] = {{NULL}};
    struct dml_test_context *context = *state;
    const struct dml_test_float_tensor *tensors[1];
    struct dml_test_float_tensor input;
    IDMLCompiledOperator *compiled;
    DML_TOP_K1_OPERATOR_DESC desc;
    ID3D12Resource *persistent;
    struct topk_run run;

    topk_run_init(&run, &test);
    dml_test_float_tensor_init(&input, F32, test.rank, test.sizes, NULL, DML_TENSOR_FLAG_OWNED_BY_DML, 7);
    memcpy(run.input.bytes, input.values, input.span * sizeof(*input.values));
    compute_reference(&run);
    fill_desc(&run, &desc);
    desc.InputTensor = &input.t.desc;
    compiled = dml_test_compile(context, TOP_K1, &desc, DML_EXECUTION_FLAG_NONE);
    tensors[0] = &input;
    dml_test_create_input_buffers(context, tensors, 1, inputs, owned);
    persistent = dml_test_initialize(context, compiled, owned, 1);
    dml_test_scribble_owned(owned, tensors, 1);
    outputs[0].buffer = dml_test_create_buffer(context, run.values.t.buffer.TotalTensorSizeInBytes, NULL);
    outputs[1].buffer = dml_test_create_buffer(context, run.indices.t.buffer.TotalTensorSizeInBytes, NULL);
    dml_test_execute(context, compiled, persistent, inputs, 1, outputs, 2);
    dml_test_read_buffer(context, outputs[0].buffer, 0, run.values.bytes, run.values.t.buffer.TotalTensorSizeInBytes);
    dml_test_read_buffer(context, outputs[1].buffer, 0, run.indices.bytes,
            run.indices.t.buffer.TotalTensorSizeInBytes);
    check_outputs(&run);
    dml_test_release_bindings(owned, 1);
    dml_test_release_bindings(inputs, 1);
    dml_test_release_bindings(outputs, 2);
    if (persistent)
        release_last(persistent);
    release_last(compiled);
    dml_test_float_tensor_cleanup(&input);
    topk_run_cleanup(&run);
    assert_no_log_errors();
}

/* ---- Invalid descs ---- */

struct bad_desc
{
    struct dml_test_tensor input, values, indices;
    DML_TOP_K1_OPERATOR_DESC desc;
};

/* A valid desc: input {2, 5, 3}, K 2 along axis 1. */
static void bad_desc_init(struct bad_desc *bad)
{
    static const UINT in_sizes[3] = {2, 5, 3}, out_sizes[3] = {2, 2, 3};

    memset(bad, 0, sizeof(*bad));
    dml_test_tensor_init(&bad->input, F32, 3, in_sizes, NULL);
    dml_test_tensor_init(&bad->values, F32, 3, out_sizes, NULL);
    dml_test_tensor_init(&bad->indices, U32, 3, out_sizes, NULL);
    bad->desc = (DML_TOP_K1_OPERATOR_DESC){&bad->input.desc, &bad->values.desc, &bad->indices.desc, 1, 2, LARGEST};
}

static HRESULT create_bad(struct dml_test_context *context, DML_OPERATOR_TYPE op, struct bad_desc *bad)
{
    struct dml_test_tensor *tensors[] = {&bad->input, &bad->values, &bad->indices};

    return dml_test_try_create(context, op, &bad->desc, tensors, ARRAY_SIZE(tensors));
}

#define check_bad(context, op, bad, message) dml_test_check_bad(create_bad(context, op, bad), message)

static void check_rules(struct dml_test_context *context, DML_OPERATOR_TYPE op)
{
    struct bad_desc bad;

    bad_desc_init(&bad);
    check_hr(create_bad(context, op, &bad), S_OK);
    assert_no_log_errors();

    bad_desc_init(&bad);
    bad.desc.Axis = 3;
    check_bad(context, op, &bad, "Axis=3 must be less than InputTensor.DimensionCount=3");

    bad_desc_init(&bad);
    bad.desc.K = 0;
    bad.values.sizes[1] = bad.indices.sizes[1] = 0;
    check_hr(create_bad(context, op, &bad), E_INVALIDARG);
    vkdml_test_log_reset();

    bad_desc_init(&bad);
    bad.desc.K = 6;
    bad.values.sizes[1] = bad.indices.sizes[1] = 6;
    check_bad(context, op, &bad, "K=6 must be at most InputTensor.Sizes[1]=5 (the axis length)");

    /* K = the axis length is allowed (ONNX TopK; README). */
    bad.desc.K = 5;
    bad.values.sizes[1] = bad.indices.sizes[1] = 5;
    check_hr(create_bad(context, op, &bad), S_OK);
    assert_no_log_errors();

    bad_desc_init(&bad);
    bad.values.sizes[1] = 3;
    check_bad(context, op, &bad, "OutputValueTensor.Sizes[1]=3 must be 2 (K along Axis)");

    bad_desc_init(&bad);
    bad.indices.sizes[2] = 4;
    check_bad(context, op, &bad, "OutputIndexTensor.Sizes[2]=4 must be 3 (the input's size)");

    bad_desc_init(&bad);
    bad.indices.buffer.DataType = I32;
    check_hr(create_bad(context, op, &bad), E_INVALIDARG);
    vkdml_test_log_reset();

    bad_desc_init(&bad);
    bad.values.buffer.DataType = F16;
    check_hr(create_bad(context, op, &bad), E_INVALIDARG);
    vkdml_test_log_reset();

    if (op == TOP_K1)
    {
        bad_desc_init(&bad);
        bad.desc.AxisDirection = 2;
        check_bad(context, op, &bad, "AxisDirection 2 is not a DML_AXIS_DIRECTION value");
    }
}

static void test_invalid_top_k(void **state)
{
    check_rules(*state, TOP_K);
}

static void test_invalid_top_k1(void **state)
{
    check_rules(*state, TOP_K1);
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_documented_examples, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_types, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_special_values, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_shapes, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_owned_input, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_invalid_top_k, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_invalid_top_k1, dml_test_setup, dml_test_teardown),
    };

    /* Logging first: it keeps the Vulkan driver loaded for LeakSanitizer (test_utils.c). */
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
