/*
 * DML_OPERATOR_GATHER, GATHER_ELEMENTS, GATHER_ND, GATHER_ND1 and ONE_HOT through the public API,
 * checked bit for bit against a C reference: every data type (the elements move as bits, so
 * random bytes hold NaNs and infinities), the four index types, negative, duplicate and
 * out-of-range indices (64-bit ones whose low word alone would be in range), first, middle and
 * last axes, ranks 1 to 8, batch dimensions, padded and 0-stride (broadcast) inputs and indices,
 * strided outputs, an OWNED_BY_DML table; the outputs sit between guard regions and the inputs
 * too (a read outside them would show the guard pattern in the output). Then DirectML's page
 * examples and the bad descs with their log lines. Few distinct shapes per index type, since each
 * compiles a pipeline (the element types of one size share it).
 */
#include <inttypes.h>

#include "dml_test_utils.h"

#define GATHER DML_OPERATOR_GATHER
#define GATHER_ELEMENTS DML_OPERATOR_GATHER_ELEMENTS
#define GATHER_ND DML_OPERATOR_GATHER_ND
#define GATHER_ND1 DML_OPERATOR_GATHER_ND1
#define ONE_HOT DML_OPERATOR_ONE_HOT
#define OUTPUT_FILL 0x5a

struct gather_case
{
    DML_OPERATOR_TYPE op;
    DML_TENSOR_DATA_TYPE type, index_type;
    UINT rank;
    /* GATHER*: input, indices, output; ONE_HOT: values, indices, output. */
    UINT in_sizes[8], index_sizes[8], out_sizes[8];
    const UINT *in_strides, *index_strides, *out_strides;       /* NULL: packed */
    UINT axis, index_dims;              /* GATHER: Axis, IndexDimensions; ONE_HOT: Axis */
    UINT input_dims, batch;             /* GATHER_ND*: InputDimensionCount, BatchDimensionCount */
    bool owned;                         /* the input is OWNED_BY_DML */
    bool in_range;                      /* only valid indices */
};

static bool is_signed(DML_TENSOR_DATA_TYPE type)
{
    return type == DML_TENSOR_DATA_TYPE_INT32 || type == DML_TENSOR_DATA_TYPE_INT64;
}

static const char *op_name(DML_OPERATOR_TYPE op)
{
    switch (op)
    {
        case GATHER: return "GATHER";
        case GATHER_ELEMENTS: return "GATHER_ELEMENTS";
        case GATHER_ND: return "GATHER_ND";
        case GATHER_ND1: return "GATHER_ND1";
        default: return "ONE_HOT";
    }
}

static void coordinates(const UINT *sizes, UINT rank, uint64_t index, UINT *coords)
{
    UINT d;

    for (d = rank; d-- > 0;)
    {
        coords[d] = index % sizes[d];
        index /= sizes[d];
    }
}

static uint64_t offset_of(const struct dml_test_tensor *tensor, const UINT *coords)
{
    uint64_t offset = 0, stride = 1;
    UINT d;

    for (d = tensor->buffer.DimensionCount; d-- > 0;)
    {
        offset += (uint64_t)coords[d] * (tensor->buffer.Strides ? tensor->buffer.Strides[d] : stride);
        stride *= tensor->sizes[d];
    }
    return offset;
}

static int64_t read_index(const uint8_t *bytes, DML_TENSOR_DATA_TYPE type, uint64_t offset)
{
    int32_t i32;
    uint32_t u32;
    int64_t i64;

    switch (type)
    {
        case DML_TENSOR_DATA_TYPE_INT32:
            memcpy(&i32, bytes + offset * 4, 4);
            return i32;
        case DML_TENSOR_DATA_TYPE_UINT32:
            memcpy(&u32, bytes + offset * 4, 4);
            return u32;
        default:    /* UINT64 values above INT64_MAX are out of range either way */
            memcpy(&i64, bytes + offset * 8, 8);
            return type == DML_TENSOR_DATA_TYPE_UINT64 && i64 < 0 ? INT64_MAX : i64;
    }
}

static void write_index(uint8_t *bytes, DML_TENSOR_DATA_TYPE type, uint64_t offset, int64_t value)
{
    uint32_t u32 = (uint32_t)value;

    if (dml_test_element_size(type) == 8)
        memcpy(bytes + offset * 8, &value, 8);
    else
        memcpy(bytes + offset * 4, &u32, 4);
}

/* An index into an axis of `size`: mostly in range, some negative (signed types), some out of
 * range on either side, some whose low 32 bits alone are in range. */
static int64_t make_index(uint32_t *rng, DML_TENSOR_DATA_TYPE type, UINT size, bool in_range)
{
    uint32_t r = ref_random(rng), kind = r % 10;

    r >>= 4;
    if (in_range || kind >= 5)
        return is_signed(type) && kind % 2 ? -(int64_t)(r % size) - 1 : (int64_t)(r % size);
    if (kind == 0)
        return size + r % 3;
    if (kind == 1 && is_signed(type))
        return -(int64_t)size - 1 - r % 2;
    if (kind == 2)
        return dml_test_element_size(type) == 8 ? ((int64_t)1 << 32) + r % size : (int64_t)UINT32_MAX;
    if (kind == 3 && type == DML_TENSOR_DATA_TYPE_INT64)
        return -((int64_t)1 << 32) + r % size;
    return r % size;
}

/* Resolves an index against `size` (negative ones from the end for signed types); false when out of range. */
static bool resolve(int64_t value, DML_TENSOR_DATA_TYPE type, UINT size, UINT *resolved)
{
    if (value < 0 && is_signed(type))
        value += size;
    if (value < 0 || value >= size)
        return false;
    *resolved = (UINT)value;
    return true;
}

/* The input size the index element at `coords` of the indices is resolved against. */
static UINT index_limit(const struct gather_case *c, const UINT *index_coords)
{
    UINT first_input = c->rank - c->input_dims;

    switch (c->op)
    {
        case GATHER:
        case GATHER_ELEMENTS:
            return c->in_sizes[c->axis];
        case ONE_HOT:
            return c->out_sizes[c->axis];
        default:
            return c->in_sizes[first_input + c->batch + index_coords[c->rank - 1]];
    }
}

/* The output's coordinates as the last of `count` source coordinates (DirectML's right
 * alignment: cropped leading ones stay 0). */
static void right_align(UINT *source, UINT count, const UINT *out_coords, UINT rank)
{
    UINT o;

    for (o = 0; o < rank; ++o)
    {
        if (o + count >= rank)
            source[o + count - rank] = out_coords[o];
    }
}

/* The reference: output element `out_coords` comes from input element *offset (true), or is zero
 * (false: an index out of range). ONE_HOT: *offset is the ValuesTensor's element. */
static bool reference_source(const struct gather_case *c, const struct dml_test_tensor *in,
        const struct dml_test_tensor *indices, const uint8_t *index_bytes, const UINT *out_coords, uint64_t *offset)
{
    UINT in_coords[8] = {0}, index_coords[8] = {0}, source[16] = {0}, count, t, i, r, on_dim;
    UINT rank = c->rank, tuple, first_input, first_index;
    bool valid = true;

    switch (c->op)
    {
        case GATHER:
            /* Input dims before Axis, IndexDimensions index dims, the rest, right-aligned. */
            count = rank - 1 + c->index_dims;
            right_align(source, count, out_coords, rank);
            for (i = 0; i < c->axis; ++i)
                in_coords[i] = source[i];
            for (i = 0; i < c->index_dims; ++i)
                index_coords[rank - c->index_dims + i] = source[c->axis + i];
            for (i = c->axis + 1; i < rank; ++i)
                in_coords[i] = source[i - 1 + c->index_dims];
            valid = resolve(read_index(index_bytes, c->index_type, offset_of(indices, index_coords)), c->index_type,
                    c->in_sizes[c->axis], &in_coords[c->axis]);
            break;
        case GATHER_ELEMENTS:
            memcpy(in_coords, out_coords, sizeof(in_coords));
            memcpy(index_coords, out_coords, sizeof(index_coords));
            valid = resolve(read_index(index_bytes, c->index_type, offset_of(indices, index_coords)), c->index_type,
                    c->in_sizes[c->axis], &in_coords[c->axis]);
            break;
        case ONE_HOT:
            memcpy(index_coords, out_coords, sizeof(index_coords));
            index_coords[c->axis] = 0;
            valid = resolve(read_index(index_bytes, c->index_type, offset_of(indices, index_coords)), c->index_type,
                    c->out_sizes[c->axis], &r) && r == out_coords[c->axis];
            *offset = 0;
            for (on_dim = rank; valid && on_dim-- > 0;)
            {
                if (c->in_sizes[on_dim] > 1)
                {
                    memset(in_coords, 0, sizeof(in_coords));
                    in_coords[on_dim] = 1;
                    *offset = offset_of(in, in_coords);
                    break;
                }
            }
            return true;
        default:
            tuple = c->index_sizes[rank - 1];
            first_input = rank - c->input_dims;
            first_index = rank - c->index_dims;
            count = c->index_dims - 1 + c->input_dims - c->batch - tuple;
            right_align(source, count, out_coords, rank);
            for (i = 0; i + 1 < c->index_dims; ++i)
                index_coords[first_index + i] = source[i];
            for (i = 0; i < c->batch; ++i)
                in_coords[first_input + i] = source[i];
            for (i = first_input + c->batch + tuple; i < rank; ++i)
                in_coords[i] = source[c->index_dims - 1 + i - (first_input + c->batch + tuple)];
            for (t = 0; t < tuple; ++t)
            {
                index_coords[rank - 1] = t;
                valid = resolve(read_index(index_bytes, c->index_type, offset_of(indices, index_coords)),
                        c->index_type, c->in_sizes[first_input + c->batch + t], &in_coords[first_input + c->batch + t])
                        && valid;
            }
            break;
    }
    *offset = offset_of(in, in_coords);
    return valid;
}

static void set_desc(const struct gather_case *c, const struct dml_test_tensor *in,
        const struct dml_test_tensor *indices, const struct dml_test_tensor *out, DML_GATHER_ND1_OPERATOR_DESC *nd,
        void **desc)
{
    static DML_GATHER_OPERATOR_DESC gather;
    static DML_GATHER_ELEMENTS_OPERATOR_DESC elements;
    static DML_ONE_HOT_OPERATOR_DESC one_hot;

    switch (c->op)
    {
        case GATHER:
            gather = (DML_GATHER_OPERATOR_DESC){&in->desc, &indices->desc, &out->desc, c->axis, c->index_dims};
            *desc = &gather;
            break;
        case GATHER_ELEMENTS:
            elements = (DML_GATHER_ELEMENTS_OPERATOR_DESC){&in->desc, &indices->desc, &out->desc, c->axis};
            *desc = &elements;
            break;
        case ONE_HOT:
            one_hot = (DML_ONE_HOT_OPERATOR_DESC){&indices->desc, &in->desc, &out->desc, c->axis};
            *desc = &one_hot;
            break;
        default:
            *nd = (DML_GATHER_ND1_OPERATOR_DESC){&in->desc, &indices->desc, &out->desc, c->input_dims, c->index_dims,
                    c->batch};
            *desc = nd;
            break;
    }
}

static void run_case(struct dml_test_context *context, const struct gather_case *c, uint32_t seed)
{
    struct dml_test_binding bindings[2] = {{NULL}}, owned[2] = {{NULL}}, output = {NULL};
    struct dml_test_tensor in, indices, out;
    uint8_t *in_bytes, *index_bytes, *bytes, *expected;
    unsigned int size = dml_test_element_size(c->type);
    UINT coords[8], in_slot, index_slot;
    DML_GATHER_ND1_OPERATOR_DESC nd;
    IDMLCompiledOperator *compiled;
    ID3D12Resource *persistent;
    uint64_t i, count, offset;
    uint32_t rng = seed;
    size_t total;
    void *desc;

    if (!dml_test_data_type_supported(context, c->type) || !dml_test_data_type_supported(context, c->index_type))
    {
        print_message("%s: not supported by the device, skipped.\n", dml_test_type_name(c->type));
        return;
    }
    dml_test_tensor_init(&in, c->type, c->rank, c->in_sizes, c->in_strides);
    dml_test_tensor_init(&indices, c->index_type, c->rank, c->index_sizes, c->index_strides);
    dml_test_tensor_init(&out, c->type, c->rank, c->out_sizes, c->out_strides);
    if (c->owned)
        in.buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    set_desc(c, &in, &indices, &out, &nd, &desc);
    compiled = dml_test_compile(context, c->op, desc, DML_EXECUTION_FLAG_NONE);

    in_bytes = malloc(in.buffer.TotalTensorSizeInBytes);
    index_bytes = malloc(indices.buffer.TotalTensorSizeInBytes);
    total = out.buffer.TotalTensorSizeInBytes;
    bytes = malloc(total);
    expected = malloc(total);
    assert_true(in_bytes && index_bytes && bytes && expected);
    for (i = 0; i < in.buffer.TotalTensorSizeInBytes; ++i)
        in_bytes[i] = ref_random(&rng) >> 24;
    memset(index_bytes, 0xee, indices.buffer.TotalTensorSizeInBytes);
    count = dml_test_element_count(&indices);
    for (i = 0; i < count; ++i)
    {
        coordinates(c->index_sizes, c->rank, i, coords);
        write_index(index_bytes, c->index_type, offset_of(&indices, coords),
                make_index(&rng, c->index_type, index_limit(c, coords), c->in_range));
    }

    /* ONE_HOT's inputs are IndicesTensor, ValuesTensor. */
    in_slot = c->op == ONE_HOT ? 1 : 0;
    index_slot = 1 - in_slot;
    dml_test_create_guarded(context, in.buffer.TotalTensorSizeInBytes, in_bytes,
            c->owned ? &owned[in_slot] : &bindings[in_slot]);
    dml_test_create_guarded(context, indices.buffer.TotalTensorSizeInBytes, index_bytes, &bindings[index_slot]);
    memset(expected, OUTPUT_FILL, total);
    dml_test_create_guarded(context, total, expected, &output);
    persistent = dml_test_initialize(context, compiled, c->owned ? owned : NULL, c->owned ? 2 : 0);
    if (c->owned)   /* the table now lives in the persistent resource: its source may change */
    {
        uint8_t *scribble = malloc(in.buffer.TotalTensorSizeInBytes);

        assert_non_null(scribble);
        memset(scribble, 0x77, in.buffer.TotalTensorSizeInBytes);
        dml_test_write_buffer(context, owned[in_slot].buffer, owned[in_slot].offset, scribble,
                in.buffer.TotalTensorSizeInBytes);
        free(scribble);
    }
    dml_test_execute(context, compiled, persistent, bindings, 2, &output, 1);
    dml_test_read_buffer(context, output.buffer, output.offset, bytes, total);
    dml_test_check_guards(context, &output);

    count = dml_test_element_count(&out);
    for (i = 0; i < count; ++i)
    {
        coordinates(c->out_sizes, c->rank, i, coords);
        if (reference_source(c, &in, &indices, index_bytes, coords, &offset))
            memcpy(expected + offset_of(&out, coords) * size, in_bytes + offset * size, size);
        else
            memset(expected + offset_of(&out, coords) * size, 0, size);
    }
    for (i = 0; i < total; ++i)
    {
        if (bytes[i] != expected[i])
            fail_msg("%s %s, %s indices, rank %u: byte %" PRIu64 " = %#x, expected %#x", op_name(c->op),
                    dml_test_type_name(c->type), dml_test_type_name(c->index_type), c->rank, i, bytes[i],
                    expected[i]);
    }
    free(in_bytes);
    free(index_bytes);
    free(bytes);
    free(expected);
    if (persistent)
        release_last(persistent);
    dml_test_release_bindings(bindings, 2);
    dml_test_release_bindings(owned, 2);
    dml_test_release_bindings(&output, 1);
    release_last(compiled);
    assert_no_log_errors();
}

#define SIZES(...) {__VA_ARGS__}

static void test_gather_types(void **state)
{
    /* Input {1,7,6}, Axis 1, IndexDimensions 2 over indices {1,3,4}: {1, 3,4, 6} right-aligned
     * to {3,4,6} (the leading 1 cropped). */
    struct gather_case c = {GATHER, 0, DML_TENSOR_DATA_TYPE_INT32, 3, SIZES(1, 7, 6), SIZES(1, 3, 4), SIZES(3, 4, 6),
            .axis = 1, .index_dims = 2};
    size_t t;

    for (t = 0; t < ARRAY_SIZE(dml_test_all_types); ++t)
    {
        c.type = dml_test_all_types[t];
        run_case(*state, &c, 1 + t);
    }
    for (t = 1; t < ARRAY_SIZE(dml_test_index_types); ++t)
    {
        c.type = DML_TENSOR_DATA_TYPE_FLOAT16;
        c.index_type = dml_test_index_types[t];
        run_case(*state, &c, 20 + t);
    }
}

/* Embedding lookups: whole rows, 16 bytes per invocation. */
static void test_gather_rows(void **state)
{
    struct gather_case c = {GATHER, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_INT64, 2, SIZES(100, 64),
            SIZES(1, 33), SIZES(33, 64), .axis = 0, .index_dims = 1};
    size_t t;

    for (t = 0; t < ARRAY_SIZE(dml_test_all_types); ++t)
    {
        c.type = dml_test_all_types[t];
        run_case(*state, &c, 30 + t);
    }
    /* Rows longer than a workgroup, all indices valid; an OWNED_BY_DML table. */
    c.type = DML_TENSOR_DATA_TYPE_FLOAT32;
    c.index_type = DML_TENSOR_DATA_TYPE_UINT32;
    c.in_sizes[0] = 20, c.in_sizes[1] = 1000;
    c.index_sizes[1] = 7;
    c.out_sizes[0] = 7, c.out_sizes[1] = 1000;
    c.in_range = true;
    run_case(*state, &c, 50);
    c.in_range = false;
    c.owned = true;
    run_case(*state, &c, 51);
}

static void test_gather_shapes(void **state)
{
    static const UINT padded_in[3] = {70, 10, 1}, broadcast_index[3] = {0, 0, 1}, padded_out[3] = {30, 10, 1};
    struct gather_case c;

    /* Last axis. */
    c = (struct gather_case){GATHER, DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_INT32, 3, SIZES(4, 5, 9),
            SIZES(1, 1, 7), SIZES(4, 5, 7), .axis = 2, .index_dims = 1};
    run_case(*state, &c, 60);
    /* Rank 1. */
    c = (struct gather_case){GATHER, DML_TENSOR_DATA_TYPE_INT8, DML_TENSOR_DATA_TYPE_UINT64, 1, SIZES(10), SIZES(33),
            SIZES(33), .axis = 0, .index_dims = 1};
    run_case(*state, &c, 61);
    /* IndexDimensions 0: one index, the axis removed ({3} right-aligned to {1,3}). */
    c = (struct gather_case){GATHER, DML_TENSOR_DATA_TYPE_INT16, DML_TENSOR_DATA_TYPE_INT32, 2, SIZES(3, 5),
            SIZES(1, 1), SIZES(1, 3), .axis = 1, .index_dims = 0, .in_range = true};
    run_case(*state, &c, 62);
    /* Padded input rows, broadcast indices, a padded output. */
    c = (struct gather_case){GATHER, DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_INT32, 3, SIZES(1, 6, 8),
            SIZES(1, 2, 3), SIZES(2, 3, 8), padded_in, broadcast_index, padded_out, .axis = 1, .index_dims = 2};
    run_case(*state, &c, 63);
    /* Rank 8, a middle axis. */
    c = (struct gather_case){GATHER, DML_TENSOR_DATA_TYPE_UINT64, DML_TENSOR_DATA_TYPE_INT64, 8,
            SIZES(1, 1, 1, 2, 1, 3, 4, 5), SIZES(1, 1, 1, 1, 1, 1, 1, 6), SIZES(1, 1, 1, 2, 1, 3, 6, 5), .axis = 6,
            .index_dims = 1};
    run_case(*state, &c, 64);
}

static void test_gather_elements(void **state)
{
    static const UINT broadcast_in[3] = {0, 5, 1}, padded_index[3] = {60, 6, 1};
    struct gather_case c = {GATHER_ELEMENTS, 0, DML_TENSOR_DATA_TYPE_INT32, 3, SIZES(4, 7, 5), SIZES(4, 9, 5),
            SIZES(4, 9, 5), .axis = 1};
    size_t t;

    for (t = 0; t < ARRAY_SIZE(dml_test_all_types); ++t)
    {
        c.type = dml_test_all_types[t];
        run_case(*state, &c, 70 + t);
    }
    c.type = DML_TENSOR_DATA_TYPE_FLOAT32;
    c.index_type = DML_TENSOR_DATA_TYPE_UINT64;
    run_case(*state, &c, 90);
    /* First axis, a broadcast input, padded indices. */
    c = (struct gather_case){GATHER_ELEMENTS, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_INT64, 3,
            SIZES(3, 7, 5), SIZES(8, 7, 5), SIZES(8, 7, 5), broadcast_in, padded_index, .axis = 0};
    run_case(*state, &c, 91);
    /* Last axis, rank 8, 1000 wide. */
    c = (struct gather_case){GATHER_ELEMENTS, DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_UINT32, 8,
            SIZES(1, 2, 1, 1, 1, 1, 3, 17), SIZES(1, 2, 1, 1, 1, 1, 3, 1000), SIZES(1, 2, 1, 1, 1, 1, 3, 1000),
            .axis = 7};
    run_case(*state, &c, 92);
}

static void test_gather_nd(void **state)
{
    static const UINT padded_index[4] = {300, 31, 3, 1};
    /* Input {3,4,5,6}; 2-coordinate tuples in a {2,3} array: output {2,3} + {5,6}. */
    struct gather_case c = {GATHER_ND, 0, DML_TENSOR_DATA_TYPE_INT64, 4, SIZES(3, 4, 5, 6), SIZES(1, 2, 3, 2),
            SIZES(2, 3, 5, 6), .input_dims = 4, .index_dims = 3};
    size_t t;

    for (t = 0; t < ARRAY_SIZE(dml_test_all_types); ++t)
    {
        c.type = dml_test_all_types[t];
        c.op = t % 2 ? GATHER_ND1 : GATHER_ND;
        run_case(*state, &c, 100 + t);
    }
    c.type = DML_TENSOR_DATA_TYPE_FLOAT32;
    c.index_type = DML_TENSOR_DATA_TYPE_UINT32;
    run_case(*state, &c, 120);
    /* Whole-tensor tuples (one element per tuple), 3 coordinates, padded indices; the input's
     * leading 1 outside InputDimensionCount. */
    c = (struct gather_case){GATHER_ND, DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_INT32, 4, SIZES(1, 4, 5, 6),
            SIZES(1, 7, 10, 3), SIZES(1, 1, 7, 10), NULL, padded_index, .input_dims = 3, .index_dims = 3};
    run_case(*state, &c, 121);
    /* Batches: {3} batches of {7} 1-tuples into {3,4,5}: output {3,7,5}. */
    c = (struct gather_case){GATHER_ND1, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_INT32, 4,
            SIZES(1, 3, 4, 5), SIZES(1, 3, 7, 1), SIZES(1, 3, 7, 5), .input_dims = 3, .index_dims = 3, .batch = 1};
    run_case(*state, &c, 122);
    /* Two batch dimensions, 2-tuples: {2,3} batches of {5} into {4,6}: output {2,3,5}. */
    c = (struct gather_case){GATHER_ND1, DML_TENSOR_DATA_TYPE_UINT64, DML_TENSOR_DATA_TYPE_UINT64, 5,
            SIZES(1, 2, 3, 4, 6), SIZES(1, 2, 3, 5, 2), SIZES(1, 1, 2, 3, 5), .input_dims = 4, .index_dims = 4,
            .batch = 2};
    run_case(*state, &c, 123);
    /* Rank 8: {2} batches of {3,2} 2-tuples into {2,4,5} rows of {3}. */
    c = (struct gather_case){GATHER_ND1, DML_TENSOR_DATA_TYPE_INT16, DML_TENSOR_DATA_TYPE_INT32, 8,
            SIZES(1, 1, 1, 1, 2, 4, 5, 3), SIZES(1, 1, 1, 1, 2, 3, 2, 2), SIZES(1, 1, 1, 1, 2, 3, 2, 3),
            .input_dims = 4, .index_dims = 4, .batch = 1};
    run_case(*state, &c, 124);
}

static void test_one_hot(void **state)
{
    static const UINT values_strided[2] = {5, 1}, padded_out8[8] = {400, 200, 60, 20, 20, 20, 4, 1};
    struct gather_case c = {ONE_HOT, 0, DML_TENSOR_DATA_TYPE_INT32, 3, SIZES(1, 1, 2), SIZES(3, 1, 4),
            SIZES(3, 6, 4), .axis = 1};
    size_t t;

    for (t = 0; t < ARRAY_SIZE(dml_test_all_types); ++t)
    {
        c.type = dml_test_all_types[t];
        run_case(*state, &c, 130 + t);
    }
    for (t = 1; t < ARRAY_SIZE(dml_test_index_types); ++t)
    {
        c.type = DML_TENSOR_DATA_TYPE_FLOAT32;
        c.index_type = dml_test_index_types[t];
        run_case(*state, &c, 150 + t);
    }
    /* Axis 0, values {2,1} strided {5,1}: OnValue is element 5. */
    c = (struct gather_case){ONE_HOT, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_INT64, 2, SIZES(2, 1),
            SIZES(1, 33), SIZES(7, 33), values_strided, .axis = 0};
    run_case(*state, &c, 160);
    /* Packed rows, 16 bytes per invocation: along Axis (the last dimension)... */
    c = (struct gather_case){ONE_HOT, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_UINT64, 2, SIZES(1, 2),
            SIZES(5, 1), SIZES(5, 64), .axis = 1};
    run_case(*state, &c, 162);
    c.type = DML_TENSOR_DATA_TYPE_INT64;
    run_case(*state, &c, 163);
    /* ... and across it (an index per element). */
    c = (struct gather_case){ONE_HOT, DML_TENSOR_DATA_TYPE_INT8, DML_TENSOR_DATA_TYPE_INT32, 2, SIZES(1, 2),
            SIZES(1, 32), SIZES(7, 32), .axis = 0};
    run_case(*state, &c, 164);
    /* Rank 8, a padded output. */
    c = (struct gather_case){ONE_HOT, DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_INT32, 8,
            SIZES(1, 1, 1, 1, 1, 1, 1, 2), SIZES(2, 1, 3, 1, 1, 2, 1, 3), SIZES(2, 1, 3, 1, 1, 2, 5, 3), NULL, NULL,
            padded_out8, .axis = 6};
    run_case(*state, &c, 165);
    /* The last axis, 1000 wide, rank 1. */
    c = (struct gather_case){ONE_HOT, DML_TENSOR_DATA_TYPE_INT8, DML_TENSOR_DATA_TYPE_INT32, 1, SIZES(3), SIZES(1),
            SIZES(1000), .axis = 0};
    run_case(*state, &c, 161);
}

/* Dispatches big enough for several items per invocation (gather.c, choose_unroll), their last
 * workgroup partly outside the output: 2 row vectors (136750 of them), 8 elements (547000). */
static void test_unrolled(void **state)
{
    struct gather_case c = {GATHER, DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_INT32, 2, SIZES(300, 1000),
            SIZES(1, 547), SIZES(547, 1000), .axis = 0, .index_dims = 1};

    run_case(*state, &c, 170);
    c = (struct gather_case){GATHER_ELEMENTS, DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_INT64, 2,
            SIZES(547, 33), SIZES(547, 1000), SIZES(547, 1000), .axis = 1};
    run_case(*state, &c, 171);
    c.type = DML_TENSOR_DATA_TYPE_FLOAT16;
    c.index_type = DML_TENSOR_DATA_TYPE_UINT32;
    run_case(*state, &c, 172);
    /* ONE_HOT: 4 row vectors (273250). */
    c = (struct gather_case){ONE_HOT, DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_INT64, 2, SIZES(1, 2),
            SIZES(1093, 1), SIZES(1093, 1000), .axis = 1};
    run_case(*state, &c, 173);
}

/* A page example: FLOAT32 data, 32-bit indices, the output compared with `expected`. */
static void run_example(struct dml_test_context *context, DML_OPERATOR_TYPE op, const void *desc,
        const struct dml_test_tensor *first, const void *first_data, const struct dml_test_tensor *second,
        const void *second_data, const struct dml_test_tensor *out, const float *expected)
{
    struct dml_test_binding inputs[2] = {{NULL}}, output = {NULL};
    IDMLCompiledOperator *compiled = dml_test_compile(context, op, desc, DML_EXECUTION_FLAG_NONE);
    UINT64 i, count = dml_test_element_count(out);
    float values[64];

    assert_true(count <= ARRAY_SIZE(values));
    inputs[0].buffer = dml_test_create_buffer(context, first->buffer.TotalTensorSizeInBytes, first_data);
    inputs[1].buffer = dml_test_create_buffer(context, second->buffer.TotalTensorSizeInBytes, second_data);
    output.buffer = dml_test_create_buffer(context, out->buffer.TotalTensorSizeInBytes, NULL);
    dml_test_run(context, compiled, inputs, 2, &output, 1);
    dml_test_read_buffer(context, output.buffer, 0, values, count * sizeof(float));
    for (i = 0; i < count; ++i)
    {
        if (values[i] != expected[i])
            fail_msg("%s example: element %" PRIu64 " = %g, expected %g", op_name(op), i, values[i], expected[i]);
    }
    dml_test_release_bindings(inputs, 2);
    dml_test_release_bindings(&output, 1);
    release_last(compiled);
    assert_no_log_errors();
}

/* The examples of DirectML's pages. */
static void test_examples(void **state)
{
    static const float nd_input[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    static const UINT32 nd_indices[12] = {0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 0};
    static const float nd_expected[6] = {0, 3, 7, 4, 9, 10};
    static const float elements_input[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    static const UINT32 elements_indices[6] = {1, 2, 0, 2, 0, 0};
    static const float elements_expected[6] = {4, 8, 3, 7, 2, 3};
    static const INT32 hot_indices[3] = {-3, 100, 3};
    static const float hot_values[2] = {0, 1};
    static const float hot_expected[12] = {0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    static const UINT nd_sizes[4] = {1, 3, 2, 2}, nd_out_sizes[4] = {1, 1, 3, 2};
    static const UINT elements_sizes[2] = {3, 3}, elements_index_sizes[2] = {2, 3};
    static const UINT hot_index_sizes[4] = {1, 1, 3, 1}, hot_value_sizes[4] = {1, 1, 1, 2};
    static const UINT hot_out_sizes[4] = {1, 1, 3, 4};
    struct dml_test_tensor in, indices, out;
    DML_GATHER_ND1_OPERATOR_DESC nd;
    DML_GATHER_ELEMENTS_OPERATOR_DESC elements;
    DML_ONE_HOT_OPERATOR_DESC hot;

    /* GATHER_ND1, example 2: 3 batches of 2-coordinate tuples. */
    dml_test_tensor_init(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 4, nd_sizes, NULL);
    dml_test_tensor_init(&indices, DML_TENSOR_DATA_TYPE_UINT32, 4, nd_sizes, NULL);
    dml_test_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, nd_out_sizes, NULL);
    nd = (DML_GATHER_ND1_OPERATOR_DESC){&in.desc, &indices.desc, &out.desc, 3, 3, 1};
    run_example(*state, GATHER_ND1, &nd, &in, nd_input, &indices, nd_indices, &out, nd_expected);
    /* GATHER_ELEMENTS, Axis 0. */
    dml_test_tensor_init(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 2, elements_sizes, NULL);
    dml_test_tensor_init(&indices, DML_TENSOR_DATA_TYPE_UINT32, 2, elements_index_sizes, NULL);
    dml_test_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, elements_index_sizes, NULL);
    elements = (DML_GATHER_ELEMENTS_OPERATOR_DESC){&in.desc, &indices.desc, &out.desc, 0};
    run_example(*state, GATHER_ELEMENTS, &elements, &in, elements_input, &indices, elements_indices, &out,
            elements_expected);
    /* ONE_HOT, example 4: negative and out-of-range indices. */
    dml_test_tensor_init(&indices, DML_TENSOR_DATA_TYPE_INT32, 4, hot_index_sizes, NULL);
    dml_test_tensor_init(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 4, hot_value_sizes, NULL);
    dml_test_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, hot_out_sizes, NULL);
    hot = (DML_ONE_HOT_OPERATOR_DESC){&indices.desc, &in.desc, &out.desc, 3};
    run_example(*state, ONE_HOT, &hot, &indices, hot_indices, &in, hot_values, &out, hot_expected);
}

/* Sets a tensor's rank and sizes (packed). */
static void set_sizes(struct dml_test_tensor *tensor, DML_TENSOR_DATA_TYPE type, UINT rank, const UINT *sizes)
{
    dml_test_tensor_init(tensor, type, rank, sizes, NULL);
}

static void test_invalid(void **state)
{
    static const UINT in_sizes[3] = {1, 7, 6}, index_sizes[3] = {1, 3, 4}, out_sizes[3] = {3, 4, 6};
    static const UINT wide_in[3] = {2, 7, 6}, elements_index[3] = {5, 7, 6}, short_out[3] = {3, 4, 5};
    static const UINT nd_in[4] = {3, 4, 5, 6}, nd_index[4] = {1, 2, 3, 2}, nd_out[4] = {2, 3, 5, 6};
    static const UINT nd_in_rank1[4] = {1, 1, 1, 6}, nd_batch_in[4] = {1, 4, 5, 6};
    static const UINT nd_batch_index[4] = {1, 4, 3, 1}, nd_batch_out[4] = {1, 4, 3, 6};
    static const UINT hot_index[3] = {3, 1, 4}, hot_values[3] = {1, 1, 2}, hot_out[3] = {3, 6, 4};
    static const UINT hot_one_value[3] = {1, 1, 1}, hot_bad_index[3] = {3, 2, 4}, hot_bad_out[3] = {3, 6, 5};
    struct dml_test_context *context = *state;
    struct dml_test_tensor in, indices, out;
    struct dml_test_tensor *tensors[] = {&in, &indices, &out};
    DML_GATHER_OPERATOR_DESC gather = {&in.desc, &indices.desc, &out.desc, 1, 2};
    DML_GATHER_ELEMENTS_OPERATOR_DESC elements = {&in.desc, &indices.desc, &out.desc, 1};
    DML_GATHER_ND1_OPERATOR_DESC nd = {&in.desc, &indices.desc, &out.desc, 4, 3, 0};
    DML_ONE_HOT_OPERATOR_DESC hot = {&indices.desc, &in.desc, &out.desc, 1};

    set_sizes(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 3, in_sizes);
    set_sizes(&indices, DML_TENSOR_DATA_TYPE_INT32, 3, index_sizes);
    set_sizes(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 3, out_sizes);
    check_hr(dml_test_try_create(context, GATHER, &gather, tensors, 3), S_OK);
    assert_no_log_errors();
    gather.Axis = 3;
    dml_test_check_bad(dml_test_try_create(context, GATHER, &gather, tensors, 3),
            "Axis=3 must be less than InputTensor.DimensionCount=3");
    gather.Axis = 1;
    gather.IndexDimensions = 4;
    dml_test_check_bad(dml_test_try_create(context, GATHER, &gather, tensors, 3),
            "IndexDimensions=4 must be at most IndicesTensor.DimensionCount=3");
    gather.IndexDimensions = 2;
    set_sizes(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 3, short_out);
    dml_test_check_bad(dml_test_try_create(context, GATHER, &gather, tensors, 3), "OutputTensor.Sizes[2]=5 must be 6");
    set_sizes(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 3, out_sizes);
    set_sizes(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 3, wide_in);
    dml_test_check_bad(dml_test_try_create(context, GATHER, &gather, tensors, 3),
            "the output has 4 dimensions, more than OutputTensor.DimensionCount=3");
    set_sizes(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 3, in_sizes);
    set_sizes(&indices, DML_TENSOR_DATA_TYPE_FLOAT32, 3, index_sizes);
    dml_test_check_bad(dml_test_try_create(context, GATHER, &gather, tensors, 3), "IndicesTensor");
    set_sizes(&indices, DML_TENSOR_DATA_TYPE_INT32, 3, index_sizes);
    set_sizes(&out, DML_TENSOR_DATA_TYPE_FLOAT16, 3, out_sizes);
    dml_test_check_bad(dml_test_try_create(context, GATHER, &gather, tensors, 3), "OutputTensor");

    /* GATHER_ELEMENTS: the indices' sizes but on Axis, the output's. */
    set_sizes(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 3, wide_in);
    set_sizes(&indices, DML_TENSOR_DATA_TYPE_INT32, 3, elements_index);
    set_sizes(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 3, elements_index);
    dml_test_check_bad(dml_test_try_create(context, GATHER_ELEMENTS, &elements, tensors, 3),
            "IndicesTensor.Sizes[0]=5 must equal InputTensor.Sizes[0]=2");
    elements.Axis = 0;
    check_hr(dml_test_try_create(context, GATHER_ELEMENTS, &elements, tensors, 3), S_OK);
    assert_no_log_errors();
    set_sizes(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 3, wide_in);
    dml_test_check_bad(dml_test_try_create(context, GATHER_ELEMENTS, &elements, tensors, 3),
            "OutputTensor.Sizes[0]=2 must be 5");
    elements.Axis = 5;
    dml_test_check_bad(dml_test_try_create(context, GATHER_ELEMENTS, &elements, tensors, 3),
            "Axis=5 must be less than InputTensor.DimensionCount=3");

    /* GATHER_ND, GATHER_ND1: the counts. */
    set_sizes(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 4, nd_in);
    set_sizes(&indices, DML_TENSOR_DATA_TYPE_INT64, 4, nd_index);
    set_sizes(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, nd_out);
    check_hr(dml_test_try_create(context, GATHER_ND, &nd, tensors, 3), S_OK);
    check_hr(dml_test_try_create(context, GATHER_ND1, &nd, tensors, 3), S_OK);
    assert_no_log_errors();
    nd.InputDimensionCount = 5;
    dml_test_check_bad(dml_test_try_create(context, GATHER_ND, &nd, tensors, 3),
            "InputDimensionCount=5 must be 1 to InputTensor.DimensionCount=4");
    nd.InputDimensionCount = 1;
    dml_test_check_bad(dml_test_try_create(context, GATHER_ND1, &nd, tensors, 3),
            "InputTensor.Sizes[0]=3 must be 1 (before the last InputDimensionCount=1)");
    set_sizes(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 4, nd_in_rank1);
    dml_test_check_bad(dml_test_try_create(context, GATHER_ND1, &nd, tensors, 3),
            "plus the index tuple's size 2 (the last of IndicesTensor.Sizes) must be at most InputDimensionCount=1");
    set_sizes(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 4, nd_in);
    nd.InputDimensionCount = 4;
    nd.IndicesDimensionCount = 0;
    dml_test_check_bad(dml_test_try_create(context, GATHER_ND, &nd, tensors, 3),
            "IndicesDimensionCount=0 must be 1 to IndicesTensor.DimensionCount=4");
    nd.IndicesDimensionCount = 3;
    nd.BatchDimensionCount = 3;
    dml_test_check_bad(dml_test_try_create(context, GATHER_ND1, &nd, tensors, 3),
            "BatchDimensionCount=3 must be less than IndicesDimensionCount=3");
    nd.BatchDimensionCount = 1;
    dml_test_check_bad(dml_test_try_create(context, GATHER_ND1, &nd, tensors, 3),
            "batch dimension 0: IndicesTensor.Sizes[1]=2 must equal InputTensor.Sizes[0]=3");
    /* One batch of {4}: {4,3} 1-tuples into {5,6}... */
    set_sizes(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 4, nd_batch_in);
    set_sizes(&indices, DML_TENSOR_DATA_TYPE_INT64, 4, nd_batch_index);
    set_sizes(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, nd_batch_out);
    nd.InputDimensionCount = 3;
    nd.IndicesDimensionCount = 3;
    check_hr(dml_test_try_create(context, GATHER_ND1, &nd, tensors, 3), S_OK);
    assert_no_log_errors();
    nd.IndicesDimensionCount = 2;
    dml_test_check_bad(dml_test_try_create(context, GATHER_ND1, &nd, tensors, 3),
            "IndicesTensor.Sizes[1]=4 must be 1 (before the last IndicesDimensionCount=2)");

    /* ONE_HOT */
    set_sizes(&indices, DML_TENSOR_DATA_TYPE_UINT32, 3, hot_index);
    set_sizes(&in, DML_TENSOR_DATA_TYPE_FLOAT16, 3, hot_values);
    set_sizes(&out, DML_TENSOR_DATA_TYPE_FLOAT16, 3, hot_out);
    check_hr(dml_test_try_create(context, ONE_HOT, &hot, tensors, 3), S_OK);
    assert_no_log_errors();
    hot.Axis = 3;
    dml_test_check_bad(dml_test_try_create(context, ONE_HOT, &hot, tensors, 3),
            "Axis=3 must be less than IndicesTensor.DimensionCount=3");
    hot.Axis = 2;
    dml_test_check_bad(dml_test_try_create(context, ONE_HOT, &hot, tensors, 3),
            "IndicesTensor.Sizes[Axis=2]=4 must be 1");
    hot.Axis = 1;
    set_sizes(&in, DML_TENSOR_DATA_TYPE_FLOAT16, 3, hot_one_value);
    dml_test_check_bad(dml_test_try_create(context, ONE_HOT, &hot, tensors, 3),
            "ValuesTensor must hold at least 2 elements");
    set_sizes(&in, DML_TENSOR_DATA_TYPE_FLOAT16, 3, hot_values);
    set_sizes(&indices, DML_TENSOR_DATA_TYPE_UINT32, 3, hot_bad_index);
    dml_test_check_bad(dml_test_try_create(context, ONE_HOT, &hot, tensors, 3),
            "IndicesTensor.Sizes[Axis=1]=2 must be 1");
    set_sizes(&indices, DML_TENSOR_DATA_TYPE_UINT32, 3, hot_index);
    set_sizes(&out, DML_TENSOR_DATA_TYPE_FLOAT16, 3, hot_bad_out);
    dml_test_check_bad(dml_test_try_create(context, ONE_HOT, &hot, tensors, 3),
            "IndicesTensor.Sizes[2]=4 must equal OutputTensor.Sizes[2]=5");
    set_sizes(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 3, hot_out);
    dml_test_check_bad(dml_test_try_create(context, ONE_HOT, &hot, tensors, 3), "OutputTensor");
    vkdml_test_log_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_gather_types, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_gather_rows, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_gather_shapes, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_gather_elements, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_gather_nd, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_one_hot, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_unrolled, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_examples, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_invalid, dml_test_setup, dml_test_teardown),
    };

    /* Logging first: it keeps the Vulkan driver loaded for LeakSanitizer (test_utils.c). */
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
