/*
 * Operator descs a careless or hostile caller writes (issue 17's defects 3, 4 and 6), black-box:
 * CreateOperator must answer E_INVALIDARG with one log line naming the field and the rule, read no
 * further than the caller's arrays (the attribute arrays here are heap blocks of their true length,
 * so an ASan build catches any read past them) and allocate nothing on the strength of a wild count.
 */
#include <stdlib.h>

#include "dml/dml_rules_utils.h"

/* `count` UINTs of `value` in a block of exactly that size. */
static UINT *uint_array(UINT count, UINT value)
{
    UINT *array = malloc(count * sizeof(*array)), i;

    assert_non_null(array);
    for (i = 0; i < count; ++i)
        array[i] = value;
    return array;
}

static void expect_invalid(struct dml_context *context, DML_OPERATOR_TYPE type, const void *desc,
        const char *message)
{
    IDMLOperator *op = (IDMLOperator *)(uintptr_t)0xdeadbeef;
    DML_OPERATOR_DESC op_desc = {type, desc};
    HRESULT hr;

    vkdml_test_log_reset();
    hr = IDMLDevice_CreateOperator(context->dml, &op_desc, &IID_IDMLOperator, (void **)&op);
    assert_int_equal(hr, E_INVALIDARG);
    assert_null(op);
    assert_int_equal(vkdml_test_log_counts()->errors, 1);
    assert_logged_error(message);
    dml_check_not_removed(context->dml);
}

/* A CONVOLUTION of `rank`-D tensors whose attribute arrays hold `array_length` elements each. */
struct conv_fixture
{
    struct dml_tensor input, filter, output;
    DML_CONVOLUTION_OPERATOR_DESC desc;
    UINT *strides, *dilations, *start_padding, *end_padding, *output_padding;
};

static void conv_fixture_init(struct conv_fixture *f, UINT rank, UINT array_length)
{
    static const UINT input_sizes[] = {1, 2, 5, 5, 5}, filter_sizes[] = {4, 2, 3, 3, 3};
    static const UINT output_sizes[] = {1, 4, 3, 3, 3};

    dml_tensor_init(&f->input, DML_TENSOR_DATA_TYPE_FLOAT32, rank, input_sizes, 0);
    dml_tensor_init(&f->filter, DML_TENSOR_DATA_TYPE_FLOAT32, rank, filter_sizes, 0);
    dml_tensor_init(&f->output, DML_TENSOR_DATA_TYPE_FLOAT32, rank, output_sizes, 0);
    f->strides = uint_array(array_length, 1);
    f->dilations = uint_array(array_length, 1);
    f->start_padding = uint_array(array_length, 0);
    f->end_padding = uint_array(array_length, 0);
    f->output_padding = uint_array(array_length, 0);
    f->desc = (DML_CONVOLUTION_OPERATOR_DESC){&f->input.desc, &f->filter.desc, NULL, &f->output.desc,
            DML_CONVOLUTION_MODE_CROSS_CORRELATION, DML_CONVOLUTION_DIRECTION_FORWARD, array_length, f->strides,
            f->dilations, f->start_padding, f->end_padding, f->output_padding, 1, NULL};
}

static void conv_fixture_cleanup(struct conv_fixture *f)
{
    free(f->strides);
    free(f->dilations);
    free(f->start_padding);
    free(f->end_padding);
    free(f->output_padding);
}

/* Defect 3: DimensionCount 64 with 3-element arrays; and one too many for 2-element arrays. */
static void test_conv_dimension_count_past_arrays(void **state)
{
    struct dml_context *context = *state;
    struct conv_fixture f;
    IDMLOperator *op;

    conv_fixture_init(&f, 5, 3);
    op = dml_create_operator(context->dml, DML_OPERATOR_CONVOLUTION, &f.desc);
    IDMLOperator_Release(op);
    f.desc.DimensionCount = 64;
    expect_invalid(context, DML_OPERATOR_CONVOLUTION, &f.desc, "CreateOperator(CONVOLUTION): DimensionCount=64 must "
            "be InputTensor.DimensionCount=5 - 2: it is the length of Strides, Dilations, StartPadding, EndPadding "
            "and OutputPadding.");
    conv_fixture_cleanup(&f);

    conv_fixture_init(&f, 4, 2);
    f.desc.DimensionCount = 3;
    expect_invalid(context, DML_OPERATOR_CONVOLUTION, &f.desc,
            "DimensionCount=3 must be InputTensor.DimensionCount=4 - 2");
    conv_fixture_cleanup(&f);
}

/* Defect 4: a wild DimensionCount is refused at once, without an allocation of its size. */
static void test_conv_dimension_count_huge(void **state)
{
    struct dml_context *context = *state;
    struct conv_fixture f;

    conv_fixture_init(&f, 4, 2);
    f.desc.DimensionCount = 0xffffffff;
    expect_invalid(context, DML_OPERATOR_CONVOLUTION, &f.desc, "DimensionCount=4294967295 must be "
            "InputTensor.DimensionCount=4 - 2");
    conv_fixture_cleanup(&f);
}

/* FOLD's image is its output, UNFOLD's its input: {N, C, spatial}; the columns {N, C x window, blocks}. */
static void check_fold_dimension_count(struct dml_context *context, DML_OPERATOR_TYPE type)
{
    static const UINT image_sizes[] = {1, 2, 4, 4}, column_sizes[] = {1, 8, 9};
    struct dml_tensor image, columns;
    DML_FOLD_OPERATOR_DESC desc;
    UINT *window = uint_array(2, 2), *strides = uint_array(2, 1), *dilations = uint_array(2, 1);
    UINT *start_padding = uint_array(2, 0), *end_padding = uint_array(2, 0);
    const char *image_name = type == DML_OPERATOR_FOLD ? "OutputTensor" : "InputTensor";
    char message[160];
    IDMLOperator *op;

    dml_tensor_init(&image, DML_TENSOR_DATA_TYPE_FLOAT32, 4, image_sizes, 0);
    dml_tensor_init(&columns, DML_TENSOR_DATA_TYPE_FLOAT32, 3, column_sizes, 0);
    /* DML_UNFOLD_OPERATOR_DESC has the same fields in the same order. */
    desc = (DML_FOLD_OPERATOR_DESC){type == DML_OPERATOR_FOLD ? &columns.desc : &image.desc,
            type == DML_OPERATOR_FOLD ? &image.desc : &columns.desc, 2, window, strides, dilations, start_padding,
            end_padding};
    op = dml_create_operator(context->dml, type, &desc);
    IDMLOperator_Release(op);

    desc.DimensionCount = 7;
    snprintf(message, sizeof(message), "DimensionCount=7 must be %s.DimensionCount=4 - 2: it is the length of "
            "WindowSizes, Strides, Dilations, StartPadding and EndPadding.", image_name);
    expect_invalid(context, type, &desc, message);
    desc.DimensionCount = 0xffffffff;
    snprintf(message, sizeof(message), "DimensionCount=4294967295 must be %s.DimensionCount=4 - 2", image_name);
    expect_invalid(context, type, &desc, message);

    free(window);
    free(strides);
    free(dilations);
    free(start_padding);
    free(end_padding);
}

static void test_fold_dimension_count(void **state)
{
    check_fold_dimension_count(*state, DML_OPERATOR_FOLD);
}

static void test_unfold_dimension_count(void **state)
{
    check_fold_dimension_count(*state, DML_OPERATOR_UNFOLD);
}

/* Defect 6: a type outside DirectML's fusible list is E_INVALIDARG, and the log line gives the rule. */
static void test_conv_fused_softmax(void **state)
{
    static const DML_ACTIVATION_SOFTMAX_OPERATOR_DESC softmax = {NULL, NULL};
    static const DML_OPERATOR_DESC activation = {DML_OPERATOR_ACTIVATION_SOFTMAX, &softmax};
    struct dml_context *context = *state;
    struct conv_fixture f;

    conv_fixture_init(&f, 4, 2);
    f.desc.FusedActivation = &activation;
    expect_invalid(context, DML_OPERATOR_CONVOLUTION, &f.desc, "FusedActivation.Type=ACTIVATION_SOFTMAX is not a "
            "fusible activation: the fusible ones are the ACTIVATION_* types LINEAR, SIGMOID");
    conv_fixture_cleanup(&f);
}

static void test_gemm_fused_not_fusible(void **state)
{
    static const DML_ACTIVATION_LOG_SOFTMAX_OPERATOR_DESC log_softmax = {NULL, NULL};
    static const DML_OPERATOR_DESC activation = {DML_OPERATOR_ACTIVATION_LOG_SOFTMAX, &log_softmax};
    static const UINT a_sizes[] = {1, 1, 4, 8}, b_sizes[] = {1, 1, 8, 4}, out_sizes[] = {1, 1, 4, 4};
    struct dml_context *context = *state;
    struct dml_tensor a, b, out;
    DML_GEMM_OPERATOR_DESC desc;

    dml_tensor_init(&a, DML_TENSOR_DATA_TYPE_FLOAT32, 4, a_sizes, 0);
    dml_tensor_init(&b, DML_TENSOR_DATA_TYPE_FLOAT32, 4, b_sizes, 0);
    dml_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, out_sizes, 0);
    desc = (DML_GEMM_OPERATOR_DESC){&a.desc, &b.desc, NULL, &out.desc, DML_MATRIX_TRANSFORM_NONE,
            DML_MATRIX_TRANSFORM_NONE, 1.0f, 0.0f, &activation};
    expect_invalid(context, DML_OPERATOR_GEMM, &desc, "CreateOperator(GEMM): "
            "FusedActivation.Type=ACTIVATION_LOG_SOFTMAX is not a fusible activation: the fusible ones are");
}

/* Found by the fuzzer (test/fuzz/corpus/operator_desc/regress-nested-array-count): a nested desc's
 * array count is refused before the copy reads past the caller's array; its NULL tensors give no
 * rank to check against, so the bound is the largest rank. */
static void test_gemm_fused_array_count(void **state)
{
    static const UINT a_sizes[] = {1, 1, 4, 8}, b_sizes[] = {1, 1, 8, 4}, out_sizes[] = {1, 1, 4, 4};
    struct dml_context *context = *state;
    DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC softmax;
    DML_OPERATOR_DESC activation = {DML_OPERATOR_ACTIVATION_SOFTMAX1, &softmax};
    struct dml_tensor a, b, out;
    DML_GEMM_OPERATOR_DESC desc;
    UINT *axes = uint_array(8, 0);

    softmax = (DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC){NULL, NULL, 64, axes};
    dml_tensor_init(&a, DML_TENSOR_DATA_TYPE_FLOAT32, 4, a_sizes, 0);
    dml_tensor_init(&b, DML_TENSOR_DATA_TYPE_FLOAT32, 4, b_sizes, 0);
    dml_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, out_sizes, 0);
    desc = (DML_GEMM_OPERATOR_DESC){&a.desc, &b.desc, NULL, &out.desc, DML_MATRIX_TRANSFORM_NONE,
            DML_MATRIX_TRANSFORM_NONE, 1.0f, 0.0f, &activation};
    expect_invalid(context, DML_OPERATOR_GEMM, &desc, "ACTIVATION_SOFTMAX1: AxisCount=64 must be at most 8: Axes "
            "holds a value per dimension or axis.");
    free(axes);
}

int main(void)
{
#define TEST(name) cmocka_unit_test_setup_teardown(name, dml_context_setup, dml_context_teardown)
    const struct CMUnitTest tests[] =
    {
        TEST(test_conv_dimension_count_past_arrays),
        TEST(test_conv_dimension_count_huge),
        TEST(test_fold_dimension_count),
        TEST(test_unfold_dimension_count),
        TEST(test_conv_fused_softmax),
        TEST(test_gemm_fused_not_fusible),
        TEST(test_gemm_fused_array_count),
    };
#undef TEST

    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
