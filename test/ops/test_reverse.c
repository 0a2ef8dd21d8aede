/*
 * DML_OPERATOR_REVERSE_SUBSEQUENCES through the public API against a C reference, bit for bit:
 * DirectML's two examples, every data type on the innermost, a middle and the outermost axis
 * (rows of whole 16-byte vectors and odd ones), UINT32 and UINT64 lengths (0, 1, the axis size,
 * past it, a UINT64 with its high word set), ranks 1 and 8, padded outputs and a broadcast
 * (0-stride) input, an output between guard regions; then the desc rules, with their error code
 * and log line.
 */
#include <inttypes.h>

#include "dml_test_utils.h"

#define SENTINEL 0xa5

struct reverse_case
{
    DML_TENSOR_DATA_TYPE type, length_type;
    UINT rank, sizes[8], in_strides[8], out_strides[8];
    bool in_strided, out_strided;
    UINT axis;
    const uint64_t *lengths;            /* one per sequence, row-major over the lengths' sizes */
    const void *input;                  /* NULL: a byte pattern */
    const void *output;                 /* NULL: the reference's */
};

static void run_case(struct dml_test_context *context, const struct reverse_case *c)
{
    struct dml_test_binding inputs[2] = {{NULL}}, output = {NULL};
    unsigned int size = dml_test_element_size(c->type), length_size = dml_test_element_size(c->length_type);
    uint8_t *in_bytes, *bytes, *expected, *length_bytes;
    struct dml_test_tensor in, lengths, out;
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC desc;
    UINT length_sizes[8], i;
    IDMLCompiledOperator *compiled;
    uint64_t e, count, rest, length, coordinate, axis_coordinate = 0, source, sequence;
    size_t in_total, total;

    if (!dml_test_data_type_supported(context, c->type))
    {
        print_message("%s: not supported by the device, skipped.\n", dml_test_type_name(c->type));
        return;
    }
    memcpy(length_sizes, c->sizes, sizeof(length_sizes));
    length_sizes[c->axis] = 1;
    dml_test_tensor_init(&in, c->type, c->rank, c->sizes, c->in_strided ? c->in_strides : NULL);
    dml_test_tensor_init(&lengths, c->length_type, c->rank, length_sizes, NULL);
    dml_test_tensor_init(&out, c->type, c->rank, c->sizes, c->out_strided ? c->out_strides : NULL);
    desc.InputTensor = &in.desc;
    desc.SequenceLengthsTensor = &lengths.desc;
    desc.OutputTensor = &out.desc;
    desc.Axis = c->axis;
    compiled = dml_test_compile(context, DML_OPERATOR_REVERSE_SUBSEQUENCES, &desc, DML_EXECUTION_FLAG_NONE);

    in_total = in.buffer.TotalTensorSizeInBytes;
    in_bytes = malloc(in_total);
    length_bytes = malloc(lengths.buffer.TotalTensorSizeInBytes);
    assert_true(in_bytes && length_bytes);
    for (e = 0; e < in_total; ++e)
        in_bytes[e] = (uint8_t)(e * 53 + 7);
    if (c->input)
        memcpy(in_bytes, c->input, in_total);
    for (e = 0; e < dml_test_element_count(&lengths); ++e)
        memcpy(length_bytes + e * length_size, &c->lengths[e], length_size);
    inputs[0].buffer = dml_test_create_buffer(context, in_total, in_bytes);
    inputs[1].buffer = dml_test_create_buffer(context, lengths.buffer.TotalTensorSizeInBytes, length_bytes);

    total = out.buffer.TotalTensorSizeInBytes;
    bytes = malloc(total);
    expected = malloc(total);
    assert_true(bytes && expected);
    memset(expected, SENTINEL, total);
    dml_test_create_guarded(context, total, expected, &output);
    dml_test_run(context, compiled, inputs, 2, &output, 1);
    dml_test_check_guards(context, &output);
    dml_test_read_buffer(context, output.buffer, output.offset, bytes, total);

    count = dml_test_element_count(&out);
    for (e = 0; e < count; ++e)
    {
        /* The sequence (e's coordinates, 0 on the axis) and e's axis coordinate. */
        uint64_t source_index = 0, scale = 1;

        sequence = 0;
        rest = e;
        for (i = c->rank; i-- > 0;)
        {
            coordinate = rest % c->sizes[i];
            rest /= c->sizes[i];
            if (i == c->axis)
            {
                axis_coordinate = coordinate;
                continue;
            }
            sequence += coordinate * scale;     /* the lengths' row-major index (size 1 on the axis) */
            scale *= c->sizes[i];
        }
        scale = 1;
        length = c->lengths[sequence];
        if (length > c->sizes[c->axis])
            length = c->sizes[c->axis];
        source = axis_coordinate < length ? length - 1 - axis_coordinate : axis_coordinate;
        /* e with its axis coordinate replaced by source. */
        for (i = c->rank, rest = e; i-- > 0; scale *= c->sizes[i], rest /= c->sizes[i])
            source_index += (i == c->axis ? source : rest % c->sizes[i]) * scale;
        memcpy(expected + dml_test_element_offset(&out, e) * size,
                in_bytes + dml_test_element_offset(&in, source_index) * size, size);
    }
    if (c->output)
    {
        for (e = 0; e < count; ++e)
            assert_memory_equal(expected + e * size, (const uint8_t *)c->output + e * size, size);
    }
    for (e = 0; e < total; ++e)
    {
        if (bytes[e] != expected[e])
            fail_msg("%s rank %u axis %u, %s lengths: byte %" PRIu64 " = %#x, expected %#x",
                    dml_test_type_name(c->type), c->rank, c->axis, dml_test_type_name(c->length_type), e,
                    bytes[e], expected[e]);
    }
    free(in_bytes);
    free(length_bytes);
    free(bytes);
    free(expected);
    release_last(output.buffer);
    dml_test_release_bindings(inputs, 2);
    release_last(compiled);
    assert_no_log_errors();
}

/* The page's examples, on axis 3 and axis 2. */
static void test_examples(void **state)
{
    static const float input[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    static const float output3[12] = {2, 1, 3, 4, 8, 7, 6, 5, 11, 10, 9, 12};
    static const float output2[12] = {5, 10, 3, 4, 1, 6, 7, 8, 9, 2, 11, 12};
    static const uint64_t lengths3[3] = {2, 4, 3}, lengths2[4] = {2, 3, 1, 0};
    struct reverse_case c;

    memset(&c, 0, sizeof(c));
    c.type = DML_TENSOR_DATA_TYPE_FLOAT32;
    c.length_type = DML_TENSOR_DATA_TYPE_UINT32;
    c.rank = 4;
    c.sizes[0] = 1, c.sizes[1] = 1, c.sizes[2] = 3, c.sizes[3] = 4;
    c.input = input;
    c.axis = 3;
    c.lengths = lengths3;
    c.output = output3;
    run_case(*state, &c);
    c.axis = 2;
    c.lengths = lengths2;
    c.output = output2;
    run_case(*state, &c);
}

/* Lengths cycling through 0, 1, the axis size and past it (one UINT64 with its high word set). */
static void set_lengths(uint64_t *lengths, size_t count, UINT axis_size, bool wide)
{
    size_t i;

    for (i = 0; i < count; ++i)
    {
        switch (i % 6)
        {
            case 0: lengths[i] = 0; break;
            case 1: lengths[i] = 1; break;
            case 2: lengths[i] = axis_size; break;
            case 3: lengths[i] = axis_size + 5; break;
            case 4: lengths[i] = wide ? 0x100000000ull + 2 : 0xffffffffu; break;
            default: lengths[i] = (i * 7) % (axis_size + 1); break;
        }
    }
}

static void test_types(void **state)
{
    uint64_t lengths[64 * 6];
    struct reverse_case c;
    size_t t;
    UINT axis;

    for (t = 0; t < ARRAY_SIZE(dml_test_all_types); ++t)
    {
        /* {3,5,37}: each axis (outermost, middle, innermost: rows longer than many lengths). */
        for (axis = 0; axis < 3; ++axis)
        {
            memset(&c, 0, sizeof(c));
            c.type = dml_test_all_types[t];
            c.length_type = t % 2 ? DML_TENSOR_DATA_TYPE_UINT64 : DML_TENSOR_DATA_TYPE_UINT32;
            c.rank = 3;
            c.sizes[0] = 3, c.sizes[1] = 5, c.sizes[2] = 37;
            c.axis = axis;
            set_lengths(lengths, 3 * 5 * 37 / c.sizes[axis], c.sizes[axis],
                    c.length_type == DML_TENSOR_DATA_TYPE_UINT64);
            c.lengths = lengths;
            /* A padded output on the middle axis. */
            if (axis == 1)
            {
                c.out_strided = true;
                c.out_strides[0] = 5 * 40 + 3, c.out_strides[1] = 40, c.out_strides[2] = 1;
            }
            run_case(*state, &c);
        }
        /* {2,3,48}: rows of whole 16-byte vectors (every element's place from the first's), on
         * the innermost axis and across it. */
        for (axis = 1; axis < 3; ++axis)
        {
            memset(&c, 0, sizeof(c));
            c.type = dml_test_all_types[t];
            c.length_type = t % 2 ? DML_TENSOR_DATA_TYPE_UINT32 : DML_TENSOR_DATA_TYPE_UINT64;
            c.rank = 3;
            c.sizes[0] = 2, c.sizes[1] = 3, c.sizes[2] = 48;
            c.axis = axis;
            set_lengths(lengths, 2 * 3 * 48 / c.sizes[axis], c.sizes[axis],
                    c.length_type == DML_TENSOR_DATA_TYPE_UINT64);
            c.lengths = lengths;
            run_case(*state, &c);
        }
    }
}

static void test_shapes(void **state)
{
    static const UINT sizes8[8] = {1, 2, 1, 3, 2, 5, 1, 7};
    uint64_t lengths[1000];
    struct reverse_case c;
    UINT i;

    /* Rank 1: one sequence of 1000 (several workgroups), both length types. */
    memset(&c, 0, sizeof(c));
    c.type = DML_TENSOR_DATA_TYPE_FLOAT16;
    c.length_type = DML_TENSOR_DATA_TYPE_UINT32;
    c.rank = 1;
    c.sizes[0] = 1000;
    lengths[0] = 999;
    c.lengths = lengths;
    run_case(*state, &c);
    c.length_type = DML_TENSOR_DATA_TYPE_UINT64;
    lengths[0] = 0xffffffff00000001ull;
    run_case(*state, &c);

    /* Rank 8 on axis 5, a broadcast input: 0-strides on dimensions 1 and 4. */
    memset(&c, 0, sizeof(c));
    c.type = DML_TENSOR_DATA_TYPE_INT8;
    c.length_type = DML_TENSOR_DATA_TYPE_UINT32;
    c.rank = 8;
    memcpy(c.sizes, sizes8, sizeof(sizes8));
    c.axis = 5;
    c.in_strided = true;
    c.in_strides[7] = 1, c.in_strides[6] = 7, c.in_strides[5] = 7, c.in_strides[4] = 0;
    c.in_strides[3] = 35, c.in_strides[2] = 105, c.in_strides[1] = 0, c.in_strides[0] = 105;
    for (i = 0; i < 1 * 2 * 1 * 3 * 2 * 1 * 7; ++i)
        lengths[i] = i % 7;
    c.lengths = lengths;
    run_case(*state, &c);
}

static void test_invalid(void **state)
{
    static const UINT sizes[3] = {2, 3, 4}, length_sizes[3] = {2, 1, 4};
    struct dml_test_context *context = *state;
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC desc;
    struct dml_test_tensor in, lengths, out;
    struct dml_test_tensor *tensors[] = {&in, &lengths, &out};

    dml_test_tensor_init(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 3, sizes, NULL);
    dml_test_tensor_init(&lengths, DML_TENSOR_DATA_TYPE_UINT32, 3, length_sizes, NULL);
    dml_test_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 3, sizes, NULL);
    desc.InputTensor = &in.desc;
    desc.SequenceLengthsTensor = &lengths.desc;
    desc.OutputTensor = &out.desc;
    desc.Axis = 1;
    check_hr(dml_test_try_create(context, DML_OPERATOR_REVERSE_SUBSEQUENCES, &desc, tensors, 3), S_OK);
    assert_no_log_errors();
    desc.Axis = 3;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_REVERSE_SUBSEQUENCES, &desc, tensors, 3),
            "Axis=3 must be less than InputTensor.DimensionCount=3");
    desc.Axis = 2;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_REVERSE_SUBSEQUENCES, &desc, tensors, 3),
            "SequenceLengthsTensor.Sizes[1]=1 must be 3");
    desc.Axis = 1;
    out.sizes[2] = 5;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_REVERSE_SUBSEQUENCES, &desc, tensors, 3),
            "OutputTensor.Sizes[2]=5 must equal InputTensor.Sizes[2]=4");
    vkdml_test_log_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_examples, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_types, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_shapes, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_invalid, dml_test_setup, dml_test_teardown),
    };

    /* Logging first: it keeps the Vulkan driver loaded for LeakSanitizer (test_utils.c). */
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
