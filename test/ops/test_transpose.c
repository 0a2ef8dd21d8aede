/*
 * The tiled transpose of the strided-copy service (backend_vk/ops/transpose.c) through the
 * operator that takes it today: ELEMENT_WISE_IDENTITY / ACTIVATION_IDENTITY whose input strides
 * permute the output's dimensions (README, "Transposes"). Every data type moves bit for bit
 * (random bytes: NaN payloads, denormals); NCHW <-> NHWC, 2-D transposes of sizes that are not
 * multiples of the tile, rank 5 and 6 permutations, padded strides and binding offsets; the
 * output's neighbours are guarded. The TRACE line tells which copies took the tiled kernel and
 * which (ScaleBias, broadcast inputs, short dimensions) stayed on the element-wise kernel.
 */
#include <inttypes.h>

#include "dml_test_utils.h"

#define TRACE_PREFIX "Tiled transpose: "

struct transpose_case
{
    const char *name;
    UINT rank, sizes[8];
    UINT input_strides[8];              /* the input's strides, in output dimension order */
    const UINT *output_strides;         /* NULL: packed */
    bool tiled;                         /* the tiled kernel must take it */
    bool pairs;                         /* 2-byte types must move in pairs (aligned words) */
    bool scale_bias, activation;        /* IDENTITY with ScaleBias 1, 0; ACTIVATION_IDENTITY */
    UINT64 input_offset, output_offset; /* bytes */
};

static void fill_random(uint8_t *bytes, size_t size, uint32_t seed)
{
    size_t i;

    for (i = 0; i < size; ++i)
    {
        seed = seed * 1664525u + 1013904223u;
        bytes[i] = (uint8_t)(seed >> 24);
    }
}

static void run_case(struct dml_test_context *context, const struct transpose_case *c, DML_TENSOR_DATA_TYPE type)
{
    DML_ACTIVATION_IDENTITY_OPERATOR_DESC activation_desc;
    struct dml_test_binding input = {NULL}, output = {NULL};
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc;
    unsigned int size = dml_test_element_size(type);
    struct dml_test_tensor in, out;
    DML_SCALE_BIAS scale_bias = {1.0f, 0.0f};
    IDMLCompiledOperator *compiled;
    uint8_t *source, *result, *expected;
    char trace[256];
    UINT64 i, count;

    if (!dml_test_data_type_supported(context, type))
    {
        print_message("%s %s: not supported by the device, skipped.\n", c->name, dml_test_type_name(type));
        return;
    }
    dml_test_tensor_init(&in, type, c->rank, c->sizes, c->input_strides);
    dml_test_tensor_init(&out, type, c->rank, c->sizes, c->output_strides);
    desc.InputTensor = &in.desc;
    desc.OutputTensor = &out.desc;
    desc.ScaleBias = c->scale_bias ? &scale_bias : NULL;
    activation_desc.InputTensor = &in.desc;
    activation_desc.OutputTensor = &out.desc;
    if (c->activation)
        compiled = dml_test_compile_traced(context, DML_OPERATOR_ACTIVATION_IDENTITY, &activation_desc,
                DML_EXECUTION_FLAG_NONE, TRACE_PREFIX, trace, sizeof(trace));
    else
        compiled = dml_test_compile_traced(context, DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc,
                DML_EXECUTION_FLAG_NONE, TRACE_PREFIX, trace, sizeof(trace));
    /* Without TRACE messages compiled in (-Dtrace-messages=false) nothing tells. */
    if (trace[0] || !c->tiled)
        assert_int_equal(trace[0] != 0, c->tiled);
    if (trace[0] && c->pairs && size == 2 && !strstr(trace, "elements by 2"))
        fail_msg("%s %s: not moved in pairs: %s", c->name, dml_test_type_name(type), trace);

    source = malloc(in.buffer.TotalTensorSizeInBytes);
    expected = malloc(out.buffer.TotalTensorSizeInBytes);
    result = malloc(out.buffer.TotalTensorSizeInBytes);
    assert_true(source && expected && result);
    fill_random(source, in.buffer.TotalTensorSizeInBytes, c->rank * 977u + type);
    /* The output's padding keeps its bytes. */
    fill_random(expected, out.buffer.TotalTensorSizeInBytes, 12345u);
    input.buffer = dml_test_create_buffer(context, c->input_offset + in.buffer.TotalTensorSizeInBytes, NULL);
    input.offset = c->input_offset;
    dml_test_write_buffer(context, input.buffer, c->input_offset, source, in.buffer.TotalTensorSizeInBytes);
    dml_test_create_guarded(context, out.buffer.TotalTensorSizeInBytes, expected, &output);
    dml_test_run(context, compiled, &input, 1, &output, 1);
    dml_test_check_guards(context, &output);
    dml_test_read_buffer(context, output.buffer, output.offset, result, out.buffer.TotalTensorSizeInBytes);

    count = dml_test_element_count(&out);
    for (i = 0; i < count; ++i)
        memcpy(expected + dml_test_element_offset(&out, i) * size, source + dml_test_element_offset(&in, i) * size,
                size);
    for (i = 0; i < out.buffer.TotalTensorSizeInBytes; ++i)
    {
        if (result[i] != expected[i])
            fail_msg("%s %s: byte %" PRIu64 " = %#x, expected %#x", c->name, dml_test_type_name(type), i,
                    result[i], expected[i]);
    }
    free(source);
    free(expected);
    free(result);
    release_last(input.buffer);
    release_last(output.buffer);
    release_last(compiled);
    assert_no_log_errors();
}

static void run_all_types(struct dml_test_context *context, const struct transpose_case *c)
{
    size_t t;

    for (t = 0; t < ARRAY_SIZE(dml_test_all_types); ++t)
        run_case(context, c, dml_test_all_types[t]);
}

/* Input strides of a packed tensor of `sizes` (input order) read through `permutation`: output
 * dimension i is input dimension permutation[i]. */
static void set_permuted(struct transpose_case *c, UINT rank, const UINT *input_sizes, const UINT *permutation)
{
    UINT strides[8], stride = 1, i;

    for (i = rank; i-- > 0; stride *= input_sizes[i])
        strides[i] = stride;
    c->rank = rank;
    for (i = 0; i < rank; ++i)
    {
        c->sizes[i] = input_sizes[permutation[i]];
        c->input_strides[i] = strides[permutation[i]];
    }
}

/* NCHW -> NHWC (the layout change every channels-last graph needs), and back. */
static void test_nchw_nhwc(void **state)
{
    static const UINT nchw[] = {2, 33, 7, 9}, to_nhwc[] = {0, 2, 3, 1};
    static const UINT nhwc[] = {3, 5, 7, 40}, to_nchw[] = {0, 3, 1, 2};
    struct transpose_case c = {"NCHW->NHWC"};

    c.tiled = true;
    set_permuted(&c, 4, nchw, to_nhwc);
    run_all_types(*state, &c);
    c.name = "NHWC->NCHW";
    set_permuted(&c, 4, nhwc, to_nchw);
    run_all_types(*state, &c);
}

/* 2-D transposes whose sides are not multiples of the tile, one longer than a workgroup. */
static void test_matrix(void **state)
{
    static const UINT sizes[] = {1000, 33}, swap[] = {1, 0};
    static const DML_TENSOR_DATA_TYPE types[] = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16,
            DML_TENSOR_DATA_TYPE_INT8, DML_TENSOR_DATA_TYPE_INT64};
    static const UINT square[] = {65, 65};
    struct transpose_case c = {"1000x33"};
    size_t t;

    c.tiled = true;
    set_permuted(&c, 2, sizes, swap);
    for (t = 0; t < ARRAY_SIZE(types); ++t)
        run_case(*state, &c, types[t]);
    /* ACTIVATION_IDENTITY (float types) takes the same path; bindings at offsets. */
    c.name = "65x65 offsets";
    c.activation = true;
    c.input_offset = 256;
    set_permuted(&c, 2, square, swap);
    run_case(*state, &c, DML_TENSOR_DATA_TYPE_FLOAT32);
    run_case(*state, &c, DML_TENSOR_DATA_TYPE_FLOAT16);
    c.activation = false;
    run_case(*state, &c, DML_TENSOR_DATA_TYPE_INT8);
    run_case(*state, &c, DML_TENSOR_DATA_TYPE_INT64);
}

/* Permutations of rank 5 and 6 (SPACE_TO_DEPTH's kind) with the contiguous dimensions long. */
static void test_high_rank(void **state)
{
    static const UINT sizes5[] = {2, 9, 3, 10, 12}, perm5[] = {0, 4, 2, 1, 3};
    static const UINT sizes6[] = {2, 3, 2, 17, 2, 11}, perm6[] = {2, 4, 0, 5, 1, 3};
    struct transpose_case c = {"rank 5"};

    c.tiled = true;
    set_permuted(&c, 5, sizes5, perm5);
    run_case(*state, &c, DML_TENSOR_DATA_TYPE_FLOAT32);
    run_case(*state, &c, DML_TENSOR_DATA_TYPE_FLOAT16);
    c.name = "rank 6";
    set_permuted(&c, 6, sizes6, perm6);
    run_case(*state, &c, DML_TENSOR_DATA_TYPE_UINT8);
    run_case(*state, &c, DML_TENSOR_DATA_TYPE_FLOAT64);
}

/* 2-byte elements in pairs: even strides, several and partial tiles, and rows and columns of odd
 * length (padded strides keep the words aligned), whose last element moves alone. */
static void test_pairs(void **state)
{
    static const UINT nchw[] = {2, 34, 5, 14}, to_nhwc[] = {0, 2, 3, 1};
    static const UINT nchw_long[] = {2, 66, 6, 11};
    static const UINT wide[] = {130, 132}, swap[] = {1, 0};
    static const UINT padded_out[] = {38, 1};
    struct transpose_case c = {"pairs NCHW->NHWC"};

    c.tiled = c.pairs = true;
    set_permuted(&c, 4, nchw, to_nhwc);
    run_case(*state, &c, DML_TENSOR_DATA_TYPE_FLOAT16);
    run_case(*state, &c, DML_TENSOR_DATA_TYPE_INT16);
    c.name = "pairs NCHW->NHWC 66 channels";
    set_permuted(&c, 4, nchw_long, to_nhwc);
    run_case(*state, &c, DML_TENSOR_DATA_TYPE_UINT16);
    c.name = "pairs 132x130";
    set_permuted(&c, 2, wide, swap);
    run_case(*state, &c, DML_TENSOR_DATA_TYPE_FLOAT16);
    c.name = "pairs odd 33x37";
    c.rank = 2;
    c.sizes[0] = 33, c.sizes[1] = 37;
    c.input_strides[0] = 1, c.input_strides[1] = 34;
    c.output_strides = padded_out;
    run_case(*state, &c, DML_TENSOR_DATA_TYPE_FLOAT16);
    run_case(*state, &c, DML_TENSOR_DATA_TYPE_UINT16);
    run_case(*state, &c, DML_TENSOR_DATA_TYPE_FLOAT32);
    c.name = "pairs offset 35x37";
    c.sizes[0] = 35;
    c.input_strides[1] = 36;
    c.input_offset = 16;
    run_case(*state, &c, DML_TENSOR_DATA_TYPE_FLOAT16);
}

/* Padded output rows, and what stays on the element-wise kernel. */
static void test_padded_and_fallbacks(void **state)
{
    static const UINT sizes[] = {4, 20, 24}, perm[] = {0, 2, 1};
    static const UINT padded[] = {24 * 23, 23, 1};
    static const UINT short_sizes[] = {5, 3, 40}, short_perm[] = {0, 2, 1};
    struct transpose_case c = {"padded output"};

    c.tiled = true;
    set_permuted(&c, 3, sizes, perm);
    c.output_strides = padded;
    run_case(*state, &c, DML_TENSOR_DATA_TYPE_FLOAT32);
    run_case(*state, &c, DML_TENSOR_DATA_TYPE_UINT16);

    /* ScaleBias computes: the element-wise kernel. */
    c.name = "ScaleBias";
    c.tiled = false;
    c.scale_bias = true;
    c.output_strides = NULL;
    run_case(*state, &c, DML_TENSOR_DATA_TYPE_FLOAT32);
    c.scale_bias = false;

    /* A destination contiguous over 3 elements: too short to tile. */
    c.name = "short";
    set_permuted(&c, 3, short_sizes, short_perm);
    run_case(*state, &c, DML_TENSOR_DATA_TYPE_FLOAT32);

    /* A broadcast input (0-stride) is not a transpose. */
    c.name = "broadcast";
    set_permuted(&c, 3, sizes, perm);
    c.input_strides[0] = 0;
    run_case(*state, &c, DML_TENSOR_DATA_TYPE_FLOAT32);
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_nchw_nhwc, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_matrix, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_high_rank, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_pairs, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_padded_and_fallbacks, dml_test_setup, dml_test_teardown),
    };

    /* Logging first: it keeps the Vulkan driver loaded for LeakSanitizer (test_utils.c). */
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
