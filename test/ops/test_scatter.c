/*
 * DML_OPERATOR_SCATTER_ELEMENTS and DML_OPERATOR_SCATTER_ND through the public API, checked byte
 * for byte against a C reference: every data type (bits moved, NaN payloads kept), the four
 * index types, negative, duplicate and out-of-range indices (64-bit values whose low word is in
 * range included), axes first, middle and last, ranks 1 to 8, strided and broadcast inputs,
 * padded outputs. Outputs sit between guard regions that must stay untouched. Duplicates:
 * vkdml's documented winner is the last candidate in row-major order (README, "Scatter"), so
 * the reference writes the candidates in that order. Then the desc rules, with their error
 * code and log line.
 */
#include <inttypes.h>

#include "dml_test_utils.h"

#define ELEMENTS DML_OPERATOR_SCATTER_ELEMENTS
#define ND DML_OPERATOR_SCATTER_ND

/* How the random indices are drawn. */
enum index_mode
{
    INDEX_IN_RANGE,                     /* [0, size), or [-size, size) for signed types */
    INDEX_OUT_OF_RANGE,                 /* in range, mixed with values past both ends */
    INDEX_DUPLICATES,                   /* in [0, 2): many candidates per target */
};

struct scatter_case
{
    DML_OPERATOR_TYPE op;
    DML_TENSOR_DATA_TYPE type, index_type;
    UINT rank;
    UINT input_sizes[8], indices_sizes[8], updates_sizes[8];
    const UINT *input_strides, *output_strides;     /* NULL: packed */
    const UINT *indices_strides, *updates_strides;
    UINT axis;                          /* ELEMENTS */
    UINT input_rank, indices_rank;      /* ND: InputDimensionCount, IndicesDimensionCount */
    enum index_mode mode;
    unsigned int seed;
};

static bool is_signed_index(DML_TENSOR_DATA_TYPE type)
{
    return type == DML_TENSOR_DATA_TYPE_INT32 || type == DML_TENSOR_DATA_TYPE_INT64;
}

static int64_t draw_index(uint32_t *state, enum index_mode mode, DML_TENSOR_DATA_TYPE type, UINT size)
{
    static const int64_t wild[] = {0x100000000ll, 0x100000001ll, -0x100000000ll, INT32_MAX, INT32_MIN, -1};
    bool wide = dml_test_element_size(type) == 8, negative = is_signed_index(type);
    uint32_t r = ref_random(state);

    if (mode == INDEX_DUPLICATES)
        return r % (size < 2 ? size : 2);
    if (mode == INDEX_OUT_OF_RANGE && r % 3 == 0)
    {
        r /= 3;
        switch (r % 4)
        {
            case 0: return size;                        /* one past the end */
            case 1: return negative ? -(int64_t)size - 1 : (int64_t)size + 7;
            case 2: return wide ? wild[(r / 4) % 3] : (int64_t)size * 3;
            default: return wide ? wild[3 + (r / 4) % 3] : (negative ? INT32_MIN : UINT32_MAX);
        }
    }
    if (negative && (r & 1))
        return -(int64_t)((r >> 1) % size) - 1;
    return (r >> 1) % size;
}

static int64_t load_index(const void *bytes, DML_TENSOR_DATA_TYPE type, UINT64 i)
{
    int64_t value = 0;
    uint32_t word;

    if (dml_test_element_size(type) == 8)
        memcpy(&value, (const uint8_t *)bytes + i * 8, 8);
    else
        memcpy(&word, (const uint8_t *)bytes + i * 4, 4), value = word;
    return value;
}

static void store_index(void *bytes, DML_TENSOR_DATA_TYPE type, UINT64 i, int64_t value)
{
    if (dml_test_element_size(type) == 8)
        memcpy((uint8_t *)bytes + i * 8, &value, 8);
    else
    {
        uint32_t word = (uint32_t)value;

        memcpy((uint8_t *)bytes + i * 4, &word, 4);
    }
}

/* An index resolved against `size` as DirectML reads it: false when out of range. */
static bool resolve(DML_TENSOR_DATA_TYPE type, int64_t value, UINT size, UINT *resolved)
{
    if (dml_test_element_size(type) == 4)
        value = is_signed_index(type) ? (int64_t)(int32_t)value : (int64_t)(uint32_t)value;
    else if (!is_signed_index(type) && value < 0)
        return false;
    if (value < 0)
        value += size;
    if (value < 0 || value >= size)
        return false;
    *resolved = (UINT)value;
    return true;
}

static void random_bytes(uint8_t *bytes, size_t size, uint32_t *state)
{
    size_t i;

    for (i = 0; i < size; ++i)
        bytes[i] = (uint8_t)(ref_random(state) >> 8);
}

/* Coordinates of row-major index `linear` over `sizes`. */
static void coordinates_of(UINT64 linear, const UINT *sizes, UINT rank, UINT *coordinates)
{
    UINT i;

    for (i = rank; i-- > 0;)
    {
        coordinates[i] = linear % sizes[i];
        linear /= sizes[i];
    }
}

static UINT64 linear_of(const UINT *coordinates, const UINT *sizes, UINT rank)
{
    UINT64 linear = 0;
    UINT i;

    for (i = 0; i < rank; ++i)
        linear = linear * sizes[i] + coordinates[i];
    return linear;
}

/* Writes update `u` at output coordinates `target` of the expected bytes. */
static void reference_write(const struct scatter_case *c, const struct dml_test_tensor *out, uint8_t *expected,
        const struct dml_test_tensor *upd, const uint8_t *updates, UINT64 u, const UINT *target)
{
    unsigned int size = dml_test_element_size(c->type);
    UINT64 offset = dml_test_element_offset(out, linear_of(target, c->input_sizes, c->rank));

    memcpy(expected + offset * size, updates + dml_test_element_offset(upd, u) * size, size);
}

static void reference_elements(const struct scatter_case *c, const struct dml_test_tensor *out, uint8_t *expected,
        const struct dml_test_tensor *upd, const uint8_t *updates, const int64_t *indices)
{
    UINT coordinates[8], resolved;
    UINT64 u, count = 1;
    UINT i;

    for (i = 0; i < c->rank; ++i)
        count *= c->updates_sizes[i];
    for (u = 0; u < count; ++u)
    {
        coordinates_of(u, c->updates_sizes, c->rank, coordinates);
        if (!resolve(c->index_type, indices[u], c->input_sizes[c->axis], &resolved))
            continue;
        coordinates[c->axis] = resolved;
        reference_write(c, out, expected, upd, updates, u, coordinates);
    }
}

static void reference_nd(const struct scatter_case *c, const struct dml_test_tensor *out, uint8_t *expected,
        const struct dml_test_tensor *upd, const uint8_t *updates, const int64_t *indices)
{
    UINT rank = c->rank, tuple = c->indices_sizes[rank - 1], slice = c->input_rank - tuple;
    UINT first_indexed = rank - c->input_rank, target[8], slice_coordinates[8], j;
    UINT64 tuples = 1, slice_count = 1, t, s;
    bool valid;

    for (j = 0; j < rank - 1; ++j)
        tuples *= c->indices_sizes[j];
    for (j = rank - slice; j < rank; ++j)
        slice_count *= c->input_sizes[j];
    for (t = 0; t < tuples; ++t)
    {
        memset(target, 0, sizeof(target));
        valid = true;
        for (j = 0; j < tuple && valid; ++j)
            valid = resolve(c->index_type, indices[t * tuple + j], c->input_sizes[first_indexed + j],
                    &target[first_indexed + j]);
        if (!valid)
            continue;
        for (s = 0; s < slice_count; ++s)
        {
            coordinates_of(s, &c->input_sizes[rank - slice], slice, slice_coordinates);
            memcpy(&target[rank - slice], slice_coordinates, slice * sizeof(UINT));
            reference_write(c, out, expected, upd, updates, t * slice_count + s, target);
        }
    }
}

static void run_case(struct dml_test_context *context, const struct scatter_case *c)
{
    struct dml_test_binding inputs[3] = {{NULL}}, output = {NULL};
    struct dml_test_tensor in, idx, upd, out;
    unsigned int size = dml_test_element_size(c->type);
    uint8_t *input_bytes, *index_bytes, *update_bytes, *expected, *result;
    DML_SCATTER_ND_OPERATOR_DESC nd_desc;
    DML_SCATTER_OPERATOR_DESC desc;
    IDMLCompiledOperator *compiled;
    UINT64 i, input_count, index_count;
    uint32_t state = c->seed | 1;
    UINT axis_size;
    int64_t *indices;

    if (!dml_test_data_type_supported(context, c->type))
    {
        print_message("%s: not supported by the device, skipped.\n", dml_test_type_name(c->type));
        return;
    }
    dml_test_tensor_init(&in, c->type, c->rank, c->input_sizes, c->input_strides);
    dml_test_tensor_init(&idx, c->index_type, c->rank, c->indices_sizes, c->indices_strides);
    dml_test_tensor_init(&upd, c->type, c->rank, c->updates_sizes, c->updates_strides);
    dml_test_tensor_init(&out, c->type, c->rank, c->input_sizes, c->output_strides);
    input_count = dml_test_element_count(&in);
    index_count = dml_test_element_count(&idx);

    input_bytes = malloc(in.buffer.TotalTensorSizeInBytes);
    index_bytes = malloc(idx.buffer.TotalTensorSizeInBytes);
    update_bytes = malloc(upd.buffer.TotalTensorSizeInBytes);
    expected = malloc(out.buffer.TotalTensorSizeInBytes);
    result = malloc(out.buffer.TotalTensorSizeInBytes);
    indices = malloc(index_count * sizeof(*indices));
    assert_true(input_bytes && index_bytes && update_bytes && expected && result && indices);
    random_bytes(input_bytes, in.buffer.TotalTensorSizeInBytes, &state);
    random_bytes(update_bytes, upd.buffer.TotalTensorSizeInBytes, &state);
    memset(index_bytes, 0, idx.buffer.TotalTensorSizeInBytes);
    for (i = 0; i < index_count; ++i)
    {
        axis_size = c->op == ELEMENTS ? c->input_sizes[c->axis]
                : c->input_sizes[c->rank - c->input_rank + i % c->indices_sizes[c->rank - 1]];
        store_index(index_bytes, c->index_type, dml_test_element_offset(&idx, i),
                draw_index(&state, c->mode, c->index_type, axis_size));
    }
    /* Broadcast indices: elements sharing an address hold its last value. */
    for (i = 0; i < index_count; ++i)
        indices[i] = load_index(index_bytes, c->index_type, dml_test_element_offset(&idx, i));

    /* The padding of a strided output keeps its bytes. */
    random_bytes(expected, out.buffer.TotalTensorSizeInBytes, &state);
    for (i = 0; i < input_count; ++i)
        memcpy(expected + dml_test_element_offset(&out, i) * size,
                input_bytes + dml_test_element_offset(&in, i) * size, size);
    if (c->op == ELEMENTS)
        reference_elements(c, &out, expected, &upd, update_bytes, indices);
    else
        reference_nd(c, &out, expected, &upd, update_bytes, indices);

    if (c->op == ELEMENTS)
    {
        desc.InputTensor = &in.desc;
        desc.IndicesTensor = &idx.desc;
        desc.UpdatesTensor = &upd.desc;
        desc.OutputTensor = &out.desc;
        desc.Axis = c->axis;
        compiled = dml_test_compile(context, ELEMENTS, &desc, DML_EXECUTION_FLAG_NONE);
    }
    else
    {
        nd_desc.InputTensor = &in.desc;
        nd_desc.IndicesTensor = &idx.desc;
        nd_desc.UpdatesTensor = &upd.desc;
        nd_desc.OutputTensor = &out.desc;
        nd_desc.InputDimensionCount = c->input_rank;
        nd_desc.IndicesDimensionCount = c->indices_rank;
        compiled = dml_test_compile(context, ND, &nd_desc, DML_EXECUTION_FLAG_NONE);
    }
    inputs[0].buffer = dml_test_create_buffer(context, in.buffer.TotalTensorSizeInBytes, input_bytes);
    inputs[1].buffer = dml_test_create_buffer(context, idx.buffer.TotalTensorSizeInBytes, index_bytes);
    inputs[2].buffer = dml_test_create_buffer(context, upd.buffer.TotalTensorSizeInBytes, update_bytes);
    /* The output starts as the expected bytes scrambled where the operator must write. */
    memcpy(result, expected, out.buffer.TotalTensorSizeInBytes);
    for (i = 0; i < input_count; ++i)
        memset(result + dml_test_element_offset(&out, i) * size, 0x5a, size);
    dml_test_create_guarded(context, out.buffer.TotalTensorSizeInBytes, result, &output);
    dml_test_run(context, compiled, inputs, 3, &output, 1);
    dml_test_read_buffer(context, output.buffer, output.offset, result, out.buffer.TotalTensorSizeInBytes);
    dml_test_check_guards(context, &output);
    for (i = 0; i < out.buffer.TotalTensorSizeInBytes; ++i)
    {
        if (result[i] != expected[i])
            fail_msg("%s %s, %s indices, rank %u: byte %" PRIu64 " (element %" PRIu64 ") = %#x, expected %#x",
                    c->op == ELEMENTS ? "ELEMENTS" : "ND", dml_test_type_name(c->type),
                    dml_test_type_name(c->index_type), c->rank, i, i / size, result[i], expected[i]);
    }
    free(input_bytes);
    free(index_bytes);
    free(update_bytes);
    free(expected);
    free(result);
    free(indices);
    dml_test_release_bindings(inputs, 3);
    release_last(output.buffer);
    release_last(compiled);
    assert_no_log_errors();
}

static void set_sizes(UINT *target, UINT rank, const UINT *sizes)
{
    memcpy(target, sizes, rank * sizeof(*sizes));
}

/* Every data type, the index types in turn: ELEMENTS on a middle axis with duplicates and
 * out-of-range indices. */
static void test_elements_types(void **state)
{
    static const UINT input[3] = {3, 5, 7}, indices[3] = {3, 4, 7};
    struct scatter_case c;
    size_t t;

    for (t = 0; t < ARRAY_SIZE(dml_test_all_types); ++t)
    {
        memset(&c, 0, sizeof(c));
        c.op = ELEMENTS;
        c.type = dml_test_all_types[t];
        c.index_type = dml_test_index_types[t % ARRAY_SIZE(dml_test_index_types)];
        c.rank = 3;
        set_sizes(c.input_sizes, 3, input);
        set_sizes(c.indices_sizes, 3, indices);
        set_sizes(c.updates_sizes, 3, indices);
        c.axis = 1;
        c.mode = INDEX_OUT_OF_RANGE;
        c.seed = 11 + t;
        run_case(*state, &c);
    }
}

/* Every data type: ND with 2-coordinate tuples into rows of a rank-3 input, rows of 9 elements
 * and of 16 (whole 16-byte vectors for every type). */
static void test_nd_types(void **state)
{
    static const UINT indices[3] = {1, 6, 2};
    struct scatter_case c;
    UINT row;
    size_t t;

    for (t = 0; t < ARRAY_SIZE(dml_test_all_types); ++t)
    {
        row = t % 2 ? 9 : 16;
        memset(&c, 0, sizeof(c));
        c.op = ND;
        c.type = dml_test_all_types[t];
        c.index_type = dml_test_index_types[(t + 1) % ARRAY_SIZE(dml_test_index_types)];
        c.rank = 3;
        c.input_sizes[0] = 4, c.input_sizes[1] = 5, c.input_sizes[2] = row;
        set_sizes(c.indices_sizes, 3, indices);
        c.updates_sizes[0] = 1, c.updates_sizes[1] = 6, c.updates_sizes[2] = row;
        c.input_rank = 3;
        c.indices_rank = 2;
        c.mode = INDEX_OUT_OF_RANGE;
        c.seed = 31 + t;
        run_case(*state, &c);
    }
}

/* ELEMENTS: every index type with negative and out-of-range values; axes first and last;
 * duplicates; rank 1 of 1000 (several workgroups) and rank 8. */
static void test_elements_shapes(void **state)
{
    static const UINT input8[8] = {2, 1, 3, 2, 1, 2, 3, 5}, indices8[8] = {2, 1, 3, 2, 1, 2, 3, 4};
    struct scatter_case c;
    size_t t;

    for (t = 0; t < ARRAY_SIZE(dml_test_index_types); ++t)
    {
        memset(&c, 0, sizeof(c));
        c.op = ELEMENTS;
        c.type = DML_TENSOR_DATA_TYPE_FLOAT32;
        c.index_type = dml_test_index_types[t];
        c.rank = 1;
        c.input_sizes[0] = 1000;
        c.indices_sizes[0] = c.updates_sizes[0] = 700;
        c.mode = INDEX_OUT_OF_RANGE;
        c.seed = 51 + t;
        run_case(*state, &c);
    }
    /* Axis 0 of a 2D input, many duplicates: the last candidate in row-major order wins. */
    memset(&c, 0, sizeof(c));
    c.op = ELEMENTS;
    c.type = DML_TENSOR_DATA_TYPE_UINT64;
    c.index_type = DML_TENSOR_DATA_TYPE_INT32;
    c.rank = 2;
    c.input_sizes[0] = 7, c.input_sizes[1] = 33;
    c.indices_sizes[0] = c.updates_sizes[0] = 9;
    c.indices_sizes[1] = c.updates_sizes[1] = 33;
    c.mode = INDEX_DUPLICATES;
    c.seed = 61;
    run_case(*state, &c);
    /* The last axis of rank 8, duplicates among few candidates. */
    memset(&c, 0, sizeof(c));
    c.op = ELEMENTS;
    c.type = DML_TENSOR_DATA_TYPE_INT16;
    c.index_type = DML_TENSOR_DATA_TYPE_UINT64;
    c.rank = 8;
    set_sizes(c.input_sizes, 8, input8);
    set_sizes(c.indices_sizes, 8, indices8);
    set_sizes(c.updates_sizes, 8, indices8);
    c.axis = 7;
    c.mode = INDEX_DUPLICATES;
    c.seed = 71;
    run_case(*state, &c);
    /* One index along the axis: no two candidates share a target (a single pass). */
    memset(&c, 0, sizeof(c));
    c.op = ELEMENTS;
    c.type = DML_TENSOR_DATA_TYPE_FLOAT16;
    c.index_type = DML_TENSOR_DATA_TYPE_INT64;
    c.rank = 2;
    c.input_sizes[0] = 33, c.input_sizes[1] = 300;
    c.indices_sizes[0] = c.updates_sizes[0] = 1;
    c.indices_sizes[1] = c.updates_sizes[1] = 300;
    c.mode = INDEX_OUT_OF_RANGE;
    c.seed = 81;
    run_case(*state, &c);
}

/* Strided and broadcast inputs, indices and updates; padded outputs. */
static void test_strides(void **state)
{
    static const UINT broadcast[3] = {0, 1, 0}, padded[3] = {64, 9, 1}, wide[3] = {1, 24, 8};
    static const UINT strided_indices[3] = {80, 20, 2}, broadcast_updates[3] = {9, 0, 1};
    static const UINT padded_tuples[3] = {0, 5, 2}, broadcast_rows[3] = {0, 0, 1};
    struct scatter_case c;

    memset(&c, 0, sizeof(c));
    c.op = ELEMENTS;
    c.type = DML_TENSOR_DATA_TYPE_FLOAT32;
    c.index_type = DML_TENSOR_DATA_TYPE_INT32;
    c.rank = 3;
    c.input_sizes[0] = 3, c.input_sizes[1] = 7, c.input_sizes[2] = 8;
    c.indices_sizes[0] = c.updates_sizes[0] = 3;
    c.indices_sizes[1] = c.updates_sizes[1] = 7;
    c.indices_sizes[2] = c.updates_sizes[2] = 5;
    c.axis = 2;
    c.input_strides = broadcast;
    c.output_strides = padded;
    c.mode = INDEX_OUT_OF_RANGE;
    c.seed = 91;
    run_case(*state, &c);
    /* ND into a transposed output: a strided input, 64-bit data. */
    memset(&c, 0, sizeof(c));
    c.op = ND;
    c.type = DML_TENSOR_DATA_TYPE_INT64;
    c.index_type = DML_TENSOR_DATA_TYPE_INT64;
    c.rank = 3;
    c.input_sizes[0] = 8, c.input_sizes[1] = 3, c.input_sizes[2] = 3;
    c.indices_sizes[0] = 1, c.indices_sizes[1] = 5, c.indices_sizes[2] = 1;
    c.updates_sizes[0] = 5, c.updates_sizes[1] = 3, c.updates_sizes[2] = 3;
    c.input_rank = 3;
    c.indices_rank = 2;
    c.input_strides = wide;
    c.output_strides = wide;
    c.mode = INDEX_OUT_OF_RANGE;
    c.seed = 93;
    run_case(*state, &c);
    /* Strided indices and broadcast updates: ELEMENTS on the first axis, ND with a padded tuple. */
    memset(&c, 0, sizeof(c));
    c.op = ELEMENTS;
    c.type = DML_TENSOR_DATA_TYPE_UINT8;
    c.index_type = DML_TENSOR_DATA_TYPE_UINT64;
    c.rank = 3;
    c.input_sizes[0] = 5, c.input_sizes[1] = 4, c.input_sizes[2] = 9;
    c.indices_sizes[0] = c.updates_sizes[0] = 6;
    c.indices_sizes[1] = c.updates_sizes[1] = 4;
    c.indices_sizes[2] = c.updates_sizes[2] = 9;
    c.indices_strides = strided_indices;
    c.updates_strides = broadcast_updates;
    c.mode = INDEX_OUT_OF_RANGE;
    c.seed = 97;
    run_case(*state, &c);
    memset(&c, 0, sizeof(c));
    c.op = ND;
    c.type = DML_TENSOR_DATA_TYPE_FLOAT32;
    c.index_type = DML_TENSOR_DATA_TYPE_INT32;
    c.rank = 3;
    c.input_sizes[0] = 6, c.input_sizes[1] = 7, c.input_sizes[2] = 9;
    c.indices_sizes[0] = 1, c.indices_sizes[1] = 10, c.indices_sizes[2] = 2;
    c.updates_sizes[0] = 1, c.updates_sizes[1] = 10, c.updates_sizes[2] = 9;
    c.input_rank = 3;
    c.indices_rank = 2;
    c.indices_strides = padded_tuples;
    c.updates_strides = broadcast_rows;
    c.mode = INDEX_DUPLICATES;
    c.seed = 99;
    run_case(*state, &c);
}

/* ND: full tuples (single elements) with duplicates, rank-1 tuples (whole rows), leading
 * dimensions of size 1 (real ranks below DimensionCount), rank 8, long rows. */
static void test_nd_shapes(void **state)
{
    static const UINT input8[8] = {1, 1, 3, 2, 3, 1, 2, 5}, indices8[8] = {1, 1, 1, 1, 1, 2, 3, 2};
    struct scatter_case c;

    /* Tuples of 3 coordinates: one element each, many duplicates. */
    memset(&c, 0, sizeof(c));
    c.op = ND;
    c.type = DML_TENSOR_DATA_TYPE_FLOAT64;
    c.index_type = DML_TENSOR_DATA_TYPE_UINT32;
    c.rank = 3;
    c.input_sizes[0] = 2, c.input_sizes[1] = 2, c.input_sizes[2] = 2;
    c.indices_sizes[0] = 1, c.indices_sizes[1] = 40, c.indices_sizes[2] = 3;
    c.updates_sizes[0] = 1, c.updates_sizes[1] = 1, c.updates_sizes[2] = 40;
    c.input_rank = 3;
    c.indices_rank = 2;
    c.mode = INDEX_DUPLICATES;
    c.seed = 101;
    run_case(*state, &c);
    /* Rows of 1000 (longer than a workgroup), negative and wild indices. */
    memset(&c, 0, sizeof(c));
    c.op = ND;
    c.type = DML_TENSOR_DATA_TYPE_FLOAT16;
    c.index_type = DML_TENSOR_DATA_TYPE_INT64;
    c.rank = 4;
    c.input_sizes[0] = 1, c.input_sizes[1] = 1, c.input_sizes[2] = 7, c.input_sizes[3] = 1000;
    c.indices_sizes[0] = 1, c.indices_sizes[1] = 3, c.indices_sizes[2] = 4, c.indices_sizes[3] = 1;
    c.updates_sizes[0] = 1, c.updates_sizes[1] = 3, c.updates_sizes[2] = 4, c.updates_sizes[3] = 1000;
    c.input_rank = 2;
    c.indices_rank = 3;
    c.mode = INDEX_OUT_OF_RANGE;
    c.seed = 103;
    run_case(*state, &c);
    /* Rank 8, 2-coordinate tuples into the middle of the input, duplicates. */
    memset(&c, 0, sizeof(c));
    c.op = ND;
    c.type = DML_TENSOR_DATA_TYPE_UINT8;
    c.index_type = DML_TENSOR_DATA_TYPE_INT32;
    c.rank = 8;
    set_sizes(c.input_sizes, 8, input8);
    set_sizes(c.indices_sizes, 8, indices8);
    /* InputDimensionCount 6 ({3, 2, 3, 1, 2, 5}): tuples index {3, 2}; slices {3, 1, 2, 5}. */
    c.updates_sizes[0] = 1, c.updates_sizes[1] = 1, c.updates_sizes[2] = 2, c.updates_sizes[3] = 3;
    c.updates_sizes[4] = 3, c.updates_sizes[5] = 1, c.updates_sizes[6] = 2, c.updates_sizes[7] = 5;
    c.input_rank = 6;
    c.indices_rank = 3;
    c.mode = INDEX_DUPLICATES;
    c.seed = 107;
    run_case(*state, &c);
    /* IndicesDimensionCount 1: one tuple, one row of updates. */
    memset(&c, 0, sizeof(c));
    c.op = ND;
    c.type = DML_TENSOR_DATA_TYPE_INT32;
    c.index_type = DML_TENSOR_DATA_TYPE_INT64;
    c.rank = 3;
    c.input_sizes[0] = 4, c.input_sizes[1] = 5, c.input_sizes[2] = 9;
    c.indices_sizes[0] = 1, c.indices_sizes[1] = 1, c.indices_sizes[2] = 2;
    c.updates_sizes[0] = 1, c.updates_sizes[1] = 1, c.updates_sizes[2] = 9;
    c.input_rank = 3;
    c.indices_rank = 1;
    c.mode = INDEX_IN_RANGE;
    c.seed = 109;
    run_case(*state, &c);
}

static void init_elements(struct dml_test_tensor *t, DML_SCATTER_OPERATOR_DESC *desc, DML_TENSOR_DATA_TYPE index_type)
{
    static const UINT input[3] = {4, 5, 6}, indices[3] = {4, 2, 6};

    dml_test_tensor_init(&t[0], DML_TENSOR_DATA_TYPE_FLOAT32, 3, input, NULL);
    dml_test_tensor_init(&t[1], index_type, 3, indices, NULL);
    dml_test_tensor_init(&t[2], DML_TENSOR_DATA_TYPE_FLOAT32, 3, indices, NULL);
    dml_test_tensor_init(&t[3], DML_TENSOR_DATA_TYPE_FLOAT32, 3, input, NULL);
    desc->InputTensor = &t[0].desc;
    desc->IndicesTensor = &t[1].desc;
    desc->UpdatesTensor = &t[2].desc;
    desc->OutputTensor = &t[3].desc;
    desc->Axis = 1;
}

static void test_invalid_elements(void **state)
{
    struct dml_test_context *context = *state;
    DML_SCATTER_OPERATOR_DESC desc;
    struct dml_test_tensor t[4];
    struct dml_test_tensor *tensors[] = {&t[0], &t[1], &t[2], &t[3]};

    init_elements(t, &desc, DML_TENSOR_DATA_TYPE_INT32);
    check_hr(dml_test_try_create(context, ELEMENTS, &desc, tensors, 4), S_OK);
    assert_no_log_errors();
    desc.Axis = 3;
    dml_test_check_bad(dml_test_try_create(context, ELEMENTS, &desc, tensors, 4),
            "Axis=3 must be less than InputTensor.DimensionCount=3");
    desc.Axis = 0;
    dml_test_check_bad(dml_test_try_create(context, ELEMENTS, &desc, tensors, 4),
            "IndicesTensor.Sizes[1]=2 must equal InputTensor.Sizes[1]=5 (all but Axis=0)");
    desc.Axis = 1;
    t[2].sizes[2] = 5;
    dml_test_check_bad(dml_test_try_create(context, ELEMENTS, &desc, tensors, 4), "UpdatesTensor");
    t[2].sizes[2] = 6;
    t[3].sizes[0] = 3;
    dml_test_check_bad(dml_test_try_create(context, ELEMENTS, &desc, tensors, 4), "OutputTensor");
    t[3].sizes[0] = 4;
    t[1].buffer.DataType = DML_TENSOR_DATA_TYPE_INT16;
    dml_test_check_bad(dml_test_try_create(context, ELEMENTS, &desc, tensors, 4), "IndicesTensor.DataType");
    t[1].buffer.DataType = DML_TENSOR_DATA_TYPE_INT32;
    t[2].buffer.DataType = DML_TENSOR_DATA_TYPE_FLOAT16;
    dml_test_check_bad(dml_test_try_create(context, ELEMENTS, &desc, tensors, 4), "UpdatesTensor.DataType");
    vkdml_test_log_reset();
}

static void test_invalid_nd(void **state)
{
    static const UINT input[4] = {1, 4, 5, 6}, indices[4] = {1, 3, 2, 2}, updates[4] = {1, 3, 2, 6};
    struct dml_test_context *context = *state;
    DML_SCATTER_ND_OPERATOR_DESC desc;
    struct dml_test_tensor t[4];
    struct dml_test_tensor *tensors[] = {&t[0], &t[1], &t[2], &t[3]};

    dml_test_tensor_init(&t[0], DML_TENSOR_DATA_TYPE_UINT8, 4, input, NULL);
    dml_test_tensor_init(&t[1], DML_TENSOR_DATA_TYPE_UINT64, 4, indices, NULL);
    dml_test_tensor_init(&t[2], DML_TENSOR_DATA_TYPE_UINT8, 4, updates, NULL);
    dml_test_tensor_init(&t[3], DML_TENSOR_DATA_TYPE_UINT8, 4, input, NULL);
    desc.InputTensor = &t[0].desc;
    desc.IndicesTensor = &t[1].desc;
    desc.UpdatesTensor = &t[2].desc;
    desc.OutputTensor = &t[3].desc;
    desc.InputDimensionCount = 3;
    desc.IndicesDimensionCount = 3;
    check_hr(dml_test_try_create(context, ND, &desc, tensors, 4), S_OK);
    assert_no_log_errors();
    desc.InputDimensionCount = 5;
    dml_test_check_bad(dml_test_try_create(context, ND, &desc, tensors, 4),
            "InputDimensionCount=5 must be 1 to InputTensor.DimensionCount=4");
    desc.InputDimensionCount = 2;
    dml_test_check_bad(dml_test_try_create(context, ND, &desc, tensors, 4),
            "InputTensor.Sizes[1]=4 must be 1 (before the last InputDimensionCount=2)");
    desc.InputDimensionCount = 3;
    desc.IndicesDimensionCount = 0;
    dml_test_check_bad(dml_test_try_create(context, ND, &desc, tensors, 4),
            "IndicesDimensionCount=0 must be 1 to IndicesTensor.DimensionCount=4");
    desc.IndicesDimensionCount = 3;
    t[1].sizes[3] = 4;
    dml_test_check_bad(dml_test_try_create(context, ND, &desc, tensors, 4),
            "IndicesTensor.Sizes[3]=4 (coordinates per index) must be at most InputDimensionCount=3");
    t[1].sizes[3] = 2;
    t[2].sizes[3] = 5;
    dml_test_check_bad(dml_test_try_create(context, ND, &desc, tensors, 4),
            "UpdatesTensor.Sizes[3]=5 must be 6");
    t[2].sizes[3] = 6;
    t[3].sizes[3] = 7;
    dml_test_check_bad(dml_test_try_create(context, ND, &desc, tensors, 4), "OutputTensor");
    t[3].sizes[3] = 6;
    t[1].buffer.DataType = DML_TENSOR_DATA_TYPE_FLOAT32;
    dml_test_check_bad(dml_test_try_create(context, ND, &desc, tensors, 4), "IndicesTensor.DataType");
    vkdml_test_log_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_elements_types, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_nd_types, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_elements_shapes, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_strides, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_nd_shapes, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_invalid_elements, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_invalid_nd, dml_test_setup, dml_test_teardown),
    };

    /* Logging first: it keeps the Vulkan driver loaded for LeakSanitizer (test_utils.c). */
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
