/*
 * DML_OPERATOR_FOLD (col2im) and DML_OPERATOR_UNFOLD (im2col) through the public API, checked
 * against DirectML's documented examples (exact values) and a C reference: 1 to 6 spatial
 * dimensions, windows, strides, dilations, asymmetric padding (windows that reach only padding
 * included), batches and channels, padded layouts, a columns tensor of 3 dimensions or of the
 * image's rank, FLOAT32, FLOAT16, INT32 and UINT32 (sums that wrap). Then the desc rules, each
 * with its error code and log line. Every test ends with every object's final Release returning
 * 0 and no validation message.
 */
#include <math.h>

#include "dml_test_utils.h"

#define F32 DML_TENSOR_DATA_TYPE_FLOAT32
#define F16 DML_TENSOR_DATA_TYPE_FLOAT16
#define I32 DML_TENSOR_DATA_TYPE_INT32
#define U32 DML_TENSOR_DATA_TYPE_UINT32
#define FOLD DML_OPERATOR_FOLD
#define UNFOLD DML_OPERATOR_UNFOLD

#define MAX_DIMS 6

/* ---- Tensors ---- */

struct tensor
{
    UINT rank, sizes[MAX_DIMS + 2], strides[MAX_DIMS + 2];
    struct dml_test_tensor t;
    size_t span;
    double *values;                 /* [span], as stored */
};

/* Packed, or every dimension padded with unused elements. */
static void tensor_init(struct tensor *t, DML_TENSOR_DATA_TYPE type, UINT rank, const UINT *sizes, bool padded)
{
    UINT i, stride = 1;
    size_t last = 0;

    memset(t, 0, sizeof(*t));
    t->rank = rank;
    memcpy(t->sizes, sizes, rank * sizeof(*sizes));
    for (i = rank; i-- > 0; stride = stride * sizes[i] + (padded ? 1 + i % 2 : 0))
        t->strides[i] = stride;
    for (i = 0; i < rank; ++i)
        last += (size_t)(sizes[i] - 1) * t->strides[i];
    t->span = last + 1;
    dml_test_tensor_init(&t->t, type, rank, sizes, padded ? t->strides : NULL);
    t->values = calloc(t->span, sizeof(*t->values));
    assert_non_null(t->values);
}

/* Values an element of `type` holds exactly: small integers for the float types (sums of them
 * stay exact), and for UINT32 values near 2^32 as well, so that sums wrap. */
static void tensor_fill(struct tensor *t, unsigned int seed)
{
    uint32_t random = 0x9e3779b9u * (seed + 1);
    size_t i;

    for (i = 0; i < t->span; ++i)
    {
        switch (t->t.buffer.DataType)
        {
            case U32:
                t->values[i] = ref_random(&random) % 2 ? 4294967295.0 - ref_random(&random) % 100
                        : ref_random(&random) % 1000;
                break;
            case I32:
                t->values[i] = (double)(int32_t)(ref_random(&random) % 2001) - 1000.0;
                break;
            default:
                t->values[i] = (double)(int32_t)(ref_random(&random) % 65) - 32.0;
                break;
        }
    }
}

static void tensor_cleanup(struct tensor *t)
{
    free(t->values);
}

static void *tensor_bytes(const struct tensor *t)
{
    uint8_t *bytes = calloc(1, t->t.buffer.TotalTensorSizeInBytes);
    size_t i;

    assert_non_null(bytes);
    for (i = 0; i < t->span; ++i)
    {
        switch (t->t.buffer.DataType)
        {
            case F16:
                ((uint16_t *)bytes)[i] = ref_float_to_half((float)t->values[i]);
                break;
            case F32:
                ((float *)bytes)[i] = (float)t->values[i];
                break;
            case I32:
                ((int32_t *)bytes)[i] = (int32_t)t->values[i];
                break;
            default:
                ((uint32_t *)bytes)[i] = (uint32_t)t->values[i];
                break;
        }
    }
    return bytes;
}

static double read_element(const void *bytes, DML_TENSOR_DATA_TYPE type, size_t index)
{
    switch (type)
    {
        case F16:
            return ref_half_to_float(((const uint16_t *)bytes)[index]);
        case F32:
            return ((const float *)bytes)[index];
        case I32:
            return ((const int32_t *)bytes)[index];
        default:
            return ((const uint32_t *)bytes)[index];
    }
}

/* ---- Cases ---- */

struct fold_case
{
    const char *name;
    DML_OPERATOR_TYPE op;
    DML_TENSOR_DATA_TYPE type;
    UINT dims, batch, channels;
    UINT image[MAX_DIMS], window[MAX_DIMS];
    UINT strides[MAX_DIMS], dilations[MAX_DIMS];    /* 0 means 1 */
    UINT start_pad[MAX_DIMS], end_pad[MAX_DIMS];
    bool same_rank;                 /* the columns tensor has the image's rank, leading sizes 1 */
    bool padded;                    /* both tensors in padded layouts */
};

static UINT or_one(UINT value)
{
    return value ? value : 1;
}

struct fold_run
{
    const struct fold_case *test;
    UINT blocks[MAX_DIMS], window_volume, block_count;
    struct tensor image, columns;
    double *expected;               /* the output's logical elements, row-major */
};

/* The image tensor's logical index of (n, c, block, window position), or -1 in the padding. */
static long image_index(const struct fold_run *run, UINT n, UINT c, UINT block, UINT window)
{
    const struct fold_case *test = run->test;
    long index = (long)n * test->channels + c, at;
    UINT d, w[MAX_DIMS], b[MAX_DIMS];

    for (d = test->dims; d-- > 0;)
    {
        w[d] = window % test->window[d], window /= test->window[d];
        b[d] = block % run->blocks[d], block /= run->blocks[d];
    }
    for (d = 0; d < test->dims; ++d)
    {
        at = (long)b[d] * or_one(test->strides[d]) + (long)w[d] * or_one(test->dilations[d]) - test->start_pad[d];
        if (at < 0 || at >= (long)test->image[d])
            return -1;
        index = index * test->image[d] + at;
    }
    return index;
}

/* Wraps a UINT32 or INT32 sum the way the device does. */
static double wrap(DML_TENSOR_DATA_TYPE type, double value)
{
    if (type == U32)
        return (double)(uint32_t)(uint64_t)(int64_t)value;
    if (type == I32)
        return (double)(int32_t)(uint32_t)(uint64_t)(int64_t)value;
    return value;
}

/* Walks every column entry: UNFOLD copies it from the image, FOLD adds it to the image. */
static void compute_reference(struct fold_run *run)
{
    const struct fold_case *test = run->test;
    UINT n, c, w, b, rows = test->channels * run->window_volume;
    size_t column;
    long at;

    for (n = 0; n < test->batch; ++n)
    for (c = 0; c < test->channels; ++c)
    for (w = 0; w < run->window_volume; ++w)
    for (b = 0; b < run->block_count; ++b)
    {
        column = ((size_t)n * rows + c * run->window_volume + w) * run->block_count + b;
        at = image_index(run, n, c, b, w);
        if (test->op == UNFOLD)
            run->expected[column] = at < 0 ? 0.0 : run->image.values[dml_test_element_offset(&run->image.t, at)];
        else if (at >= 0)
            run->expected[at] += run->columns.values[dml_test_element_offset(&run->columns.t, column)];
    }
    for (column = 0; test->op == FOLD && column < dml_test_element_count(&run->image.t); ++column)
        run->expected[column] = wrap(test->type, run->expected[column]);
}

static void fold_run_init(struct fold_run *run, const struct fold_case *test)
{
    UINT image_sizes[MAX_DIMS + 2], column_sizes[MAX_DIMS + 2], column_rank, d, window;

    memset(run, 0, sizeof(*run));
    run->test = test;
    run->window_volume = run->block_count = 1;
    image_sizes[0] = test->batch;
    image_sizes[1] = test->channels;
    for (d = 0; d < test->dims; ++d)
    {
        window = or_one(test->dilations[d]) * (test->window[d] - 1) + 1;
        run->blocks[d] = (test->image[d] + test->start_pad[d] + test->end_pad[d] - window) / or_one(test->strides[d])
                + 1;
        run->window_volume *= test->window[d];
        run->block_count *= run->blocks[d];
        image_sizes[d + 2] = test->image[d];
    }
    column_rank = test->same_rank ? test->dims + 2 : 3;
    for (d = 0; d + 3 < column_rank; ++d)
        column_sizes[d] = 1;
    column_sizes[column_rank - 3] = test->batch;
    column_sizes[column_rank - 2] = test->channels * run->window_volume;
    column_sizes[column_rank - 1] = run->block_count;
    tensor_init(&run->image, test->type, test->dims + 2, image_sizes, test->padded);
    tensor_init(&run->columns, test->type, column_rank, column_sizes, test->padded);
    tensor_fill(test->op == FOLD ? &run->columns : &run->image, 1);
    run->expected = calloc(dml_test_element_count(test->op == FOLD ? &run->image.t : &run->columns.t),
            sizeof(*run->expected));
    assert_non_null(run->expected);
    compute_reference(run);
}

static void fold_run_cleanup(struct fold_run *run)
{
    tensor_cleanup(&run->image);
    tensor_cleanup(&run->columns);
    free(run->expected);
}

struct fold_attributes
{
    UINT strides[MAX_DIMS], dilations[MAX_DIMS];
};

/* FOLD and UNFOLD descs have the same fields. */
static void fill_desc(DML_FOLD_OPERATOR_DESC *desc, struct fold_attributes *a, const struct fold_run *run)
{
    const struct fold_case *test = run->test;
    UINT d;

    for (d = 0; d < MAX_DIMS; ++d)
    {
        a->strides[d] = or_one(test->strides[d]);
        a->dilations[d] = or_one(test->dilations[d]);
    }
    desc->InputTensor = test->op == FOLD ? &run->columns.t.desc : &run->image.t.desc;
    desc->OutputTensor = test->op == FOLD ? &run->image.t.desc : &run->columns.t.desc;
    desc->DimensionCount = test->dims;
    desc->WindowSizes = test->window;
    desc->Strides = a->strides;
    desc->Dilations = a->dilations;
    desc->StartPadding = test->start_pad;
    desc->EndPadding = test->end_pad;
}

/* Sums of at most prod(Window) small integers: exact in every type except FLOAT16 above 2048. */
static double tolerance(DML_TENSOR_DATA_TYPE type, double expected)
{
    return type == F16 ? fabs(expected) * ldexp(1.0, -11) : 0.0;
}

static void check_output(struct dml_test_context *context, const struct fold_run *run, ID3D12Resource *buffer)
{
    const struct tensor *output = run->test->op == FOLD ? &run->image : &run->columns;
    size_t size = output->t.buffer.TotalTensorSizeInBytes, count = dml_test_element_count(&output->t), i;
    void *bytes = malloc(size);
    double got;

    assert_non_null(bytes);
    dml_test_read_buffer(context, buffer, 0, bytes, size);
    for (i = 0; i < count; ++i)
    {
        got = read_element(bytes, run->test->type, dml_test_element_offset(&output->t, i));
        if (!(fabs(got - run->expected[i]) <= tolerance(run->test->type, run->expected[i])))
            fail_msg("%s: output element %zu = %.9g, expected %.9g", run->test->name, i, got, run->expected[i]);
    }
    free(bytes);
}

static void run_case(struct dml_test_context *context, const struct fold_case *test)
{
    struct dml_test_binding input = {NULL}, output = {NULL};
    struct fold_attributes attributes;
    IDMLCompiledOperator *compiled;
    DML_FOLD_OPERATOR_DESC desc;
    struct fold_run run;
    const struct tensor *in;
    void *bytes;

    if (dml_test_skip_float16(context, test->type, test->name))
        return;
    fold_run_init(&run, test);
    fill_desc(&desc, &attributes, &run);
    compiled = dml_test_compile(context, test->op, &desc, DML_EXECUTION_FLAG_NONE);
    in = test->op == FOLD ? &run.columns : &run.image;
    bytes = tensor_bytes(in);
    input.buffer = dml_test_create_buffer(context, in->t.buffer.TotalTensorSizeInBytes, bytes);
    free(bytes);
    output.buffer = dml_test_create_buffer(context, ((const DML_BUFFER_TENSOR_DESC *)desc.OutputTensor->Desc)
            ->TotalTensorSizeInBytes, NULL);
    dml_test_run(context, compiled, &input, 1, &output, 1);
    check_output(context, &run, output.buffer);
    release_last(input.buffer);
    release_last(output.buffer);
    release_last(compiled);
    fold_run_cleanup(&run);
    assert_no_log_errors();
}

static void run_cases(void **state, const struct fold_case *cases, size_t count)
{
    size_t i;

    for (i = 0; i < count; ++i)
        run_case(*state, &cases[i]);
}

/* ---- DirectML's documented FOLD examples: inputs 0, 1, 2, ... ---- */

static void run_documented(struct dml_test_context *context, const UINT *input_sizes, const UINT *start_pad,
        const UINT *end_pad, const UINT *output_sizes, const float *expected, size_t expected_count)
{
    static const UINT window[2] = {3, 3}, ones[2] = {1, 1};
    struct dml_test_binding input = {NULL}, output = {NULL};
    struct dml_test_tensor in, out;
    IDMLCompiledOperator *compiled;
    DML_FOLD_OPERATOR_DESC desc;
    float values[144], got[32];
    size_t i, count = (size_t)input_sizes[1] * input_sizes[2];

    assert_true(count <= ARRAY_SIZE(values) && expected_count <= ARRAY_SIZE(got));
    for (i = 0; i < count; ++i)
        values[i] = (float)i;
    dml_test_tensor_init(&in, F32, 3, input_sizes, NULL);
    dml_test_tensor_init(&out, F32, 4, output_sizes, NULL);
    desc = (DML_FOLD_OPERATOR_DESC){&in.desc, &out.desc, 2, window, ones, ones, start_pad, end_pad};
    compiled = dml_test_compile(context, FOLD, &desc, DML_EXECUTION_FLAG_NONE);
    input.buffer = dml_test_create_buffer(context, in.buffer.TotalTensorSizeInBytes, values);
    output.buffer = dml_test_create_buffer(context, out.buffer.TotalTensorSizeInBytes, NULL);
    dml_test_run(context, compiled, &input, 1, &output, 1);
    dml_test_read_buffer(context, output.buffer, 0, got, expected_count * sizeof(*got));
    for (i = 0; i < expected_count; ++i)
    {
        if (got[i] != expected[i])
            fail_msg("element %zu = %.9g, expected %.9g", i, got[i], expected[i]);
    }
    release_last(input.buffer);
    release_last(output.buffer);
    release_last(compiled);
    assert_no_log_errors();
}

static void test_documented_examples(void **state)
{
    static const UINT sizes1[3] = {1, 9, 4}, sizes2[3] = {1, 9, 8}, sizes3[3] = {1, 18, 8};
    static const UINT out1[4] = {1, 1, 4, 4}, out3[4] = {1, 2, 4, 4};
    static const UINT zeros[2] = {0, 0}, pad[2] = {1, 0};
    static const float expected1[16] = {0, 5, 13, 9, 14, 38, 54, 32, 38, 86, 102, 56, 26, 57, 65, 35};
    static const float expected2[16] = {26, 70, 102, 60, 78, 183, 231, 129, 84, 195, 243, 135, 82, 182, 214, 116};
    static const float expected3[32] =
    {
        26, 70, 102, 60, 78, 183, 231, 129, 84, 195, 243, 135, 82, 182, 214, 116,
        170, 358, 390, 204, 294, 615, 663, 345, 300, 627, 675, 351, 226, 470, 502, 260,
    };

    run_documented(*state, sizes1, zeros, zeros, out1, expected1, ARRAY_SIZE(expected1));
    run_documented(*state, sizes2, pad, pad, out1, expected2, ARRAY_SIZE(expected2));
    run_documented(*state, sizes3, pad, pad, out3, expected3, ARRAY_SIZE(expected3));
}

/* ---- Reference cases ---- */

static const struct fold_case unfold_cases[] =
{
    {"UNFOLD 2-D 3x3", UNFOLD, F32, 2, 1, 1, {4, 4}, {3, 3}},
    {"UNFOLD 1-D, stride 2, dilation 2, asymmetric padding", UNFOLD, F32, 1, 2, 3, {9}, {3}, {2}, {2}, {3}, {1}},
    {"UNFOLD 2-D, batches and channels, strides, padding, padded layouts", UNFOLD, F32, 2, 2, 3, {5, 6}, {2, 3},
            {2, 1}, {1, 2}, {1, 2}, {2, 0}, .padded = true},
    {"UNFOLD 3-D, columns of the image's rank", UNFOLD, F32, 3, 1, 2, {3, 4, 3}, {2, 2, 2}, {1, 2, 1}, {0},
            {1, 0, 1}, {0, 1, 1}, .same_rank = true},
    {"UNFOLD 6-D", UNFOLD, F32, 6, 1, 2, {2, 3, 2, 2, 3, 2}, {1, 2, 2, 1, 2, 2}, {1, 1, 1, 1, 2, 1}},
    {"UNFOLD windows in the padding only", UNFOLD, F32, 2, 1, 1, {2, 2}, {2, 2}, {3, 3}, {0}, {3, 3}, {3, 3}},
    {"UNFOLD FLOAT16", UNFOLD, F16, 2, 2, 2, {5, 4}, {3, 2}, {1, 2}, {1, 1}, {1, 0}, {1, 1}, .padded = true},
    {"UNFOLD INT32", UNFOLD, I32, 2, 1, 3, {4, 5}, {2, 2}, {2, 2}, {0}, {0, 1}, {1, 0}},
    {"UNFOLD UINT32, 4-D", UNFOLD, U32, 4, 1, 1, {3, 2, 3, 2}, {2, 1, 2, 2}, {1}, {0}, {0, 0, 1, 0}, {0, 1, 0, 0},
            .same_rank = true},
};

static const struct fold_case fold_cases[] =
{
    {"FOLD 2-D 3x3", FOLD, F32, 2, 1, 1, {4, 4}, {3, 3}},
    {"FOLD 1-D, stride 2, dilation 2, asymmetric padding", FOLD, F32, 1, 2, 3, {9}, {3}, {2}, {2}, {3}, {1}},
    {"FOLD 2-D, overlapping dilated windows, padded layouts", FOLD, F32, 2, 2, 3, {6, 7}, {3, 2}, {1, 1}, {2, 3},
            {2, 1}, {1, 2}, .padded = true},
    {"FOLD 3-D, columns of the image's rank", FOLD, F32, 3, 2, 2, {4, 3, 4}, {2, 3, 2}, {2, 1, 1}, {1, 1, 2},
            {1, 1, 0}, {0, 1, 1}, .same_rank = true},
    {"FOLD 5-D", FOLD, F32, 5, 1, 1, {3, 2, 3, 2, 3}, {2, 2, 2, 1, 2}, {1, 1, 2, 1, 1}},
    {"FOLD 6-D", FOLD, F32, 6, 1, 2, {2, 3, 2, 2, 3, 2}, {1, 2, 2, 1, 2, 2}, {1, 1, 1, 1, 2, 1}, .same_rank = true},
    {"FOLD stride larger than the window (gaps)", FOLD, F32, 2, 1, 2, {7, 7}, {2, 2}, {3, 3}},
    {"FOLD FLOAT16", FOLD, F16, 2, 2, 2, {5, 4}, {3, 2}, {1, 2}, {1, 1}, {1, 0}, {1, 1}, .padded = true},
    {"FOLD INT32", FOLD, I32, 2, 1, 3, {5, 5}, {3, 3}, {1, 1}, {0}, {1, 1}, {1, 1}},
    {"FOLD UINT32 (sums wrap)", FOLD, U32, 2, 2, 1, {4, 5}, {3, 3}, {1, 1}, {1, 2}, {2, 2}, {2, 2}},
};

static void test_unfold(void **state)
{
    run_cases(state, unfold_cases, ARRAY_SIZE(unfold_cases));
}

static void test_fold(void **state)
{
    run_cases(state, fold_cases, ARRAY_SIZE(fold_cases));
}

/* ---- Invalid descs ---- */

struct bad_desc
{
    struct dml_test_tensor image, columns;
    UINT window[MAX_DIMS], strides[MAX_DIMS], dilations[MAX_DIMS], start_pad[MAX_DIMS], end_pad[MAX_DIMS];
    DML_FOLD_OPERATOR_DESC desc;
};

/* A valid 2-D desc: image {2, 3, 5, 4}, window 3x2, columns {2, 18, 9}. */
static void bad_desc_init(struct bad_desc *bad, DML_OPERATOR_TYPE op, DML_TENSOR_DATA_TYPE type)
{
    static const UINT image_sizes[4] = {2, 3, 5, 4}, column_sizes[3] = {2, 18, 9};
    UINT d;

    memset(bad, 0, sizeof(*bad));
    dml_test_tensor_init(&bad->image, type, 4, image_sizes, NULL);
    dml_test_tensor_init(&bad->columns, type, 3, column_sizes, NULL);
    for (d = 0; d < MAX_DIMS; ++d)
        bad->window[d] = bad->strides[d] = bad->dilations[d] = 1;
    bad->window[0] = 3;
    bad->window[1] = 2;
    bad->desc.InputTensor = op == FOLD ? &bad->columns.desc : &bad->image.desc;
    bad->desc.OutputTensor = op == FOLD ? &bad->image.desc : &bad->columns.desc;
    bad->desc.DimensionCount = 2;
    bad->desc.WindowSizes = bad->window;
    bad->desc.Strides = bad->strides;
    bad->desc.Dilations = bad->dilations;
    bad->desc.StartPadding = bad->start_pad;
    bad->desc.EndPadding = bad->end_pad;
}

static HRESULT create_bad(struct dml_test_context *context, DML_OPERATOR_TYPE op, struct bad_desc *bad)
{
    struct dml_test_tensor *tensors[] = {&bad->image, &bad->columns};

    return dml_test_try_create(context, op, &bad->desc, tensors, ARRAY_SIZE(tensors));
}

#define check_bad(context, op, bad, message) dml_test_check_bad(create_bad(context, op, bad), message)

static void check_rules(struct dml_test_context *context, DML_OPERATOR_TYPE op)
{
    const char *image = op == FOLD ? "OutputTensor" : "InputTensor", *columns = op == FOLD ? "InputTensor" : "OutputTensor";
    struct bad_desc bad;
    char message[256];

    bad_desc_init(&bad, op, F32);
    check_hr(create_bad(context, op, &bad), S_OK);
    assert_no_log_errors();

    bad_desc_init(&bad, op, F32);
    bad.desc.DimensionCount = 7;
    snprintf(message, sizeof(message), "DimensionCount=7 must be %s.DimensionCount=4 - 2", image);
    check_bad(context, op, &bad, message);

    bad_desc_init(&bad, op, F32);
    bad.window[1] = 0;
    check_bad(context, op, &bad, "WindowSizes[1]=0 must be at least 1");

    bad_desc_init(&bad, op, F32);
    bad.strides[0] = 0;
    check_bad(context, op, &bad, "Strides[0]=0 must be at least 1");

    bad_desc_init(&bad, op, F32);
    bad.dilations[1] = 0;
    check_bad(context, op, &bad, "Dilations[1]=0 must be at least 1");

    bad_desc_init(&bad, op, F32);
    bad.desc.DimensionCount = 1;
    snprintf(message, sizeof(message), "DimensionCount=1 must be %s.DimensionCount=4 - 2", image);
    check_bad(context, op, &bad, message);

    bad_desc_init(&bad, op, F32);
    bad.columns.buffer.DimensionCount = 2;
    bad.columns.buffer.Sizes = &bad.columns.sizes[1];
    snprintf(message, sizeof(message), "%s.DimensionCount=2 must be at least 3", columns);
    check_bad(context, op, &bad, message);

    /* Leading dimensions of a columns tensor of higher rank must be 1. */
    bad_desc_init(&bad, op, F32);
    bad.columns.sizes[3] = bad.columns.sizes[2], bad.columns.sizes[2] = bad.columns.sizes[1];
    bad.columns.sizes[1] = bad.columns.sizes[0], bad.columns.sizes[0] = 2;
    bad.columns.buffer.DimensionCount = 4;
    snprintf(message, sizeof(message), "%s.Sizes[0]=2 must be 1", columns);
    check_bad(context, op, &bad, message);
    bad.columns.sizes[0] = 1;
    check_hr(create_bad(context, op, &bad), S_OK);
    assert_no_log_errors();

    bad_desc_init(&bad, op, F32);
    bad.dilations[0] = 3;
    snprintf(message, sizeof(message), "%s.Sizes[2]=5 + StartPadding[0]=0 + EndPadding[0]=0 must be at least the "
            "dilated window", image);
    check_bad(context, op, &bad, message);

    bad_desc_init(&bad, op, F32);
    bad.columns.sizes[0] = 3;
    snprintf(message, sizeof(message), "%s.Sizes[0]=3 must equal %s.Sizes[0]=2 (batch)", columns, image);
    check_bad(context, op, &bad, message);

    bad_desc_init(&bad, op, F32);
    bad.columns.sizes[1] = 9;
    snprintf(message, sizeof(message), "%s.Sizes[1]=9 must equal %s.Sizes[1]=3 * prod(WindowSizes)=6", columns, image);
    check_bad(context, op, &bad, message);

    /* Strides and padding change the block count: 5 + 2 - 3 = 4 / 2 + 1 = 3 rows, 3 columns. */
    bad_desc_init(&bad, op, F32);
    bad.strides[0] = 2;
    bad.start_pad[0] = 2;
    snprintf(message, sizeof(message), "%s.Sizes[2]=9 must equal the block count 9", columns);
    check_hr(create_bad(context, op, &bad), S_OK);
    assert_no_log_errors();
    bad.end_pad[1] = 1;
    snprintf(message, sizeof(message), "%s.Sizes[2]=9 must equal the block count 12", columns);
    check_bad(context, op, &bad, message);

    bad_desc_init(&bad, op, F32);
    bad.columns.buffer.DataType = F16;
    check_bad(context, op, &bad, op == FOLD ? "OutputTensor.DataType=FLOAT32 must equal InputTensor.DataType=FLOAT16"
            : "OutputTensor.DataType=FLOAT16 must equal InputTensor.DataType=FLOAT32");

    /* A type DirectML may allow but vkdml does not implement: E_NOTIMPL and a FIXME line. */
    bad_desc_init(&bad, op, DML_TENSOR_DATA_TYPE_INT8);
    check_hr(create_bad(context, op, &bad), E_NOTIMPL);
    assert_int_equal(vkdml_test_log_counts()->errors, 0);
    assert_int_equal(vkdml_test_log_counts()->fixmes, 1);
    vkdml_test_log_reset();
}

static void test_invalid_fold(void **state)
{
    check_rules(*state, FOLD);
}

static void test_invalid_unfold(void **state)
{
    check_rules(*state, UNFOLD);
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_documented_examples, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_unfold, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_fold, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_invalid_fold, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_invalid_unfold, dml_test_setup, dml_test_teardown),
    };

    /* Logging first: it keeps the Vulkan driver loaded for LeakSanitizer (test_utils.c). */
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
