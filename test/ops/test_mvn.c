/*
 * MEAN_VARIANCE_NORMALIZATION, MVN1, MVN2 and LP_NORMALIZATION through the public API, against a
 * C reference in double: FLOAT32 and FLOAT16, the forms ONNX and WebNN express through MVN1 and
 * MVN2 (layer, instance, group and RMS normalization), CrossChannel, several, non-adjacent and
 * all axes, a single element, rows longer than a workgroup and rows split over workgroups,
 * scale and bias broadcast, strided, OWNED_BY_DML or absent (each alone), NormalizeVariance off,
 * every MVN2 flag combination, epsilon, fused activations, strided and 0-stride inputs, NaN and
 * +-inf rows (README, "Mean-variance and Lp normalization"), bit-identical second runs; then the
 * desc rules with their log lines.
 */
#include <math.h>

#include "dml_test_utils.h"

#define F32 DML_TENSOR_DATA_TYPE_FLOAT32
#define F16 DML_TENSOR_DATA_TYPE_FLOAT16
#define MAX_DIMS 8

#define MVN DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION
#define MVN1 DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1
#define MVN2 DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION2
#define LP DML_OPERATOR_LP_NORMALIZATION

enum fill
{
    FILL_RANDOM,
    FILL_SPECIAL,                   /* rows with a NaN, a +inf, a -inf, constant rows, among random ones */
};

struct mvn_case
{
    const char *name;
    DML_OPERATOR_TYPE type;
    UINT rank, sizes[MAX_DIMS];
    UINT axis_count, axes[MAX_DIMS];    /* MVN1, MVN2; LP: axes[0] is Axis */
    const UINT *scale_sizes, *bias_sizes; /* NULL: absent */
    const UINT *in_strides, *out_strides, *scale_strides, *bias_strides; /* NULL: packed */
    bool cross_channel;                 /* MVN */
    bool no_mean, no_variance;          /* MVN2's UseMean, UseVariance; NormalizeVariance */
    float epsilon;
    UINT p;                             /* LP */
    float offset;                       /* added to every input value */
    const DML_OPERATOR_DESC *activation;
    DML_TENSOR_FLAGS parameter_flags;   /* scale's and bias's */
    enum fill fill;
};

static uint32_t case_mask(const struct mvn_case *test)
{
    uint32_t mask = 0;
    UINT i;

    if (test->type == MVN)
        return ((1u << test->rank) - 1) & ~(test->cross_channel ? 1u : 3u);
    if (test->type == LP)
        return 1u << test->axes[0];
    for (i = 0; i < test->axis_count; ++i)
        mask |= 1u << test->axes[i];
    return mask;
}

/* The element of a broadcast tensor (scale, bias) that logical input element `index` reads. */
static double broadcast_value(const struct mvn_case *test, const struct dml_test_float_tensor *tensor, size_t index)
{
    const DML_BUFFER_TENSOR_DESC *desc = &tensor->t.buffer;
    size_t offset = 0, packed = 1, coordinate;
    UINT i;

    for (i = test->rank; i-- > 0; index /= test->sizes[i])
    {
        coordinate = desc->Sizes[i] == 1 ? 0 : index % test->sizes[i];
        offset += coordinate * (desc->Strides ? desc->Strides[i] : packed);
        packed *= desc->Sizes[i];
    }
    return tensor->values[offset];
}

static size_t case_length(const struct mvn_case *test)
{
    uint32_t mask = case_mask(test);
    size_t length = 1;
    UINT i;

    for (i = 0; i < test->rank; ++i)
    {
        if (mask & (1u << i))
            length *= test->sizes[i];
    }
    return length;
}

static double stored_value(DML_TENSOR_DATA_TYPE type, double value)
{
    return type == F16 ? ref_half_to_float(ref_float_to_half((float)value)) : (float)value;
}

static void fill_input(const struct mvn_case *test, struct dml_test_float_tensor *in)
{
    DML_TENSOR_DATA_TYPE type = in->t.buffer.DataType;
    size_t i, row, entry, length = case_length(test);
    uint32_t mask = case_mask(test);

    for (i = 0; i < in->span; ++i)
        in->values[i] = stored_value(type, in->values[i] * 2.0 + test->offset);
    for (i = 0; test->fill == FILL_SPECIAL && i < dml_test_element_count(&in->t); ++i)
    {
        float *value = &in->values[dml_test_element_offset(&in->t, i)];

        dml_test_row_and_entry(test->rank, test->sizes, mask, i, &row, &entry);
        if (row % 5 == 1 && entry == row % length)
            *value = NAN;
        else if (row % 5 == 2 && entry == (row + 1) % length)
            *value = INFINITY;
        else if (row % 5 == 3 && entry == 0)
            *value = -INFINITY;
        else if (row % 5 == 4)
            *value = 0.75f;
    }
}

/* Each row's statistics in double: count, mean, mean of squared deviations, mean of |x|, and the
 * sums of |x| and x^2. */
struct row_stats
{
    double count, mean, variance, mean_abs, sum_abs, sum_squares;
};

static struct row_stats *compute_stats(const struct mvn_case *test, const struct dml_test_float_tensor *in,
        size_t rows)
{
    struct row_stats *stats = calloc(rows, sizeof(*stats));
    size_t count = dml_test_element_count(&in->t), i, row, entry;
    uint32_t mask = case_mask(test);
    double x;

    assert_non_null(stats);
    for (i = 0; i < count; ++i)
    {
        dml_test_row_and_entry(test->rank, test->sizes, mask, i, &row, &entry);
        x = in->values[dml_test_element_offset(&in->t, i)];
        stats[row].count += 1.0;
        stats[row].mean += x;
        stats[row].sum_abs += fabs(x);
        stats[row].sum_squares += x * x;
    }
    for (i = 0; i < rows; ++i)
    {
        stats[i].mean /= stats[i].count;
        stats[i].mean_abs = stats[i].sum_abs / stats[i].count;
    }
    for (i = 0; i < count; ++i)
    {
        dml_test_row_and_entry(test->rank, test->sizes, mask, i, &row, &entry);
        x = in->values[dml_test_element_offset(&in->t, i)] - stats[row].mean;
        stats[row].variance += x * x / stats[row].count;
    }
    return stats;
}

struct expected
{
    double value, tolerance;
};

/* The expected output of every logical element, row-major, with its tolerance: fp32 sums of the
 * row's `length` terms (dml_test_sum_tolerance) through the normalization's factor. */
static struct expected *compute_reference(const struct mvn_case *test, const struct dml_test_float_tensor *in,
        const struct dml_test_float_tensor *scale, const struct dml_test_float_tensor *bias)
{
    size_t count = dml_test_element_count(&in->t), length = case_length(test), rows = count / length, i, row, entry;
    struct expected *expected = calloc(count, sizeof(*expected));
    DML_TENSOR_DATA_TYPE type = in->t.buffer.DataType;
    struct row_stats *stats = compute_stats(test, in, rows);
    uint32_t mask = case_mask(test);
    double x, y, shift, factor, norm, slope, s, magnitude;

    assert_non_null(expected);
    for (i = 0; i < count; ++i)
    {
        dml_test_row_and_entry(test->rank, test->sizes, mask, i, &row, &entry);
        x = in->values[dml_test_element_offset(&in->t, i)];
        if (test->type == LP)
        {
            norm = test->p == 1 ? stats[row].sum_abs : sqrt(stats[row].sum_squares);
            factor = 1.0 / (norm < test->epsilon ? test->epsilon : norm);
            expected[i].value = x * factor;
            expected[i].tolerance = dml_test_sum_tolerance(type, 0, length, 2.0 * fabs(x) * factor,
                    expected[i].value, 1.0);
            continue;
        }
        shift = test->no_mean ? 0.0 : stats[row].mean;
        factor = test->no_variance ? 1.0 : 1.0 / sqrt((test->no_mean ? stats[row].variance
                + stats[row].mean * stats[row].mean : stats[row].variance) + test->epsilon);
        s = scale ? broadcast_value(test, scale, i) : 1.0;
        y = (x - shift) * factor * s + (bias ? broadcast_value(test, bias, i) : 0.0);
        expected[i].value = dml_test_fused_activation(test->activation, y, &slope);
        magnitude = (fabs(x - shift) + stats[row].mean_abs) * factor * fabs(s) + fabs(y);
        expected[i].tolerance = dml_test_sum_tolerance(type, 0, length, magnitude, expected[i].value, slope);
    }
    free(stats);
    return expected;
}

static void check_output(const struct mvn_case *test, const struct dml_test_tensor *out, const void *bytes,
        const struct expected *expected)
{
    DML_TENSOR_DATA_TYPE type = out->buffer.DataType;
    size_t i;
    double got;

    for (i = 0; i < dml_test_element_count(out); ++i)
    {
        got = dml_test_read_float(bytes, type, dml_test_element_offset(out, i));
        if (isnan(expected[i].value) ? isnan(got) : isinf(expected[i].value) ? got == expected[i].value
                : fabs(got - expected[i].value) <= expected[i].tolerance)
            continue;
        fail_msg("%s %s: element %zu = %.9g, expected %.9g (tolerance %.3g)", dml_test_type_name(type), test->name,
                i, got, expected[i].value, expected[i].tolerance);
    }
}

/* The operator's desc, over `tensors` (input, scale, bias, output; scale and bias may be NULL). */
union mvn_desc
{
    DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC mvn;
    DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC mvn1;
    DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC mvn2;
    DML_LP_NORMALIZATION_OPERATOR_DESC lp;
};

static void make_desc(const struct mvn_case *test, const DML_TENSOR_DESC *in, const DML_TENSOR_DESC *scale,
        const DML_TENSOR_DESC *bias, const DML_TENSOR_DESC *out, union mvn_desc *desc)
{
    memset(desc, 0, sizeof(*desc));
    if (test->type == MVN)
        desc->mvn = (DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC){in, scale, bias, out, test->cross_channel,
                !test->no_variance, test->epsilon, test->activation};
    else if (test->type == MVN1)
        desc->mvn1 = (DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC){in, scale, bias, out, test->axis_count,
                test->axes, !test->no_variance, test->epsilon, test->activation};
    else if (test->type == MVN2)
        desc->mvn2 = (DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC){in, scale, bias, out, test->axis_count,
                test->axes, !test->no_mean, !test->no_variance, test->epsilon, test->activation};
    else
        desc->lp = (DML_LP_NORMALIZATION_OPERATOR_DESC){in, out, test->axes[0], test->epsilon, test->p};
}

static void run_type(struct dml_test_context *context, const struct mvn_case *test, DML_TENSOR_DATA_TYPE type)
{
    struct dml_test_binding inputs[3] = {{NULL}}, owned[3] = {{NULL}}, output = {NULL};
    struct dml_test_float_tensor in, scale, bias;
    const struct dml_test_float_tensor *tensors[3];
    IDMLCompiledOperator *compiled;
    ID3D12Resource *persistent;
    struct dml_test_tensor out;
    struct expected *expected;
    union mvn_desc desc;
    void *first, *second;
    size_t size;

    dml_test_float_tensor_init(&in, type, test->rank, test->sizes, test->in_strides, DML_TENSOR_FLAG_NONE, 1);
    fill_input(test, &in);
    if (test->scale_sizes)
        dml_test_float_tensor_init(&scale, type, test->rank, test->scale_sizes, test->scale_strides,
                test->parameter_flags, 2);
    if (test->bias_sizes)
        dml_test_float_tensor_init(&bias, type, test->rank, test->bias_sizes, test->bias_strides,
                test->parameter_flags, 3);
    dml_test_tensor_init(&out, type, test->rank, test->sizes, test->out_strides);
    make_desc(test, &in.t.desc, test->scale_sizes ? &scale.t.desc : NULL, test->bias_sizes ? &bias.t.desc : NULL,
            &out.desc, &desc);
    expected = compute_reference(test, &in, test->scale_sizes ? &scale : NULL, test->bias_sizes ? &bias : NULL);
    compiled = dml_test_compile(context, test->type, &desc, DML_EXECUTION_FLAG_NONE);
    tensors[0] = &in;
    tensors[1] = test->scale_sizes ? &scale : NULL;
    tensors[2] = test->bias_sizes ? &bias : NULL;
    dml_test_create_input_buffers(context, tensors, 3, inputs, owned);
    persistent = dml_test_initialize(context, compiled, owned, test->type == LP ? 1 : 3);
    dml_test_scribble_owned(owned, tensors, 3);
    size = out.buffer.TotalTensorSizeInBytes;
    dml_test_create_guarded(context, size, NULL, &output);
    dml_test_execute(context, compiled, persistent, inputs, test->type == LP ? 1 : 3, &output, 1);
    first = malloc(size);
    second = malloc(size);
    assert_true(first && second);
    dml_test_read_buffer(context, output.buffer, output.offset, first, size);
    dml_test_check_guards(context, &output);
    check_output(test, &out, first, expected);
    /* Deterministic: a second run gives the same bits. */
    dml_test_execute(context, compiled, persistent, inputs, test->type == LP ? 1 : 3, &output, 1);
    dml_test_read_buffer(context, output.buffer, output.offset, second, size);
    if (memcmp(first, second, size))
        fail_msg("%s %s: a second run differs.", dml_test_type_name(type), test->name);
    free(first);
    free(second);
    free(expected);
    dml_test_release_bindings(owned, 3);
    dml_test_release_bindings(inputs, 3);
    release_last(output.buffer);
    if (persistent)
        release_last(persistent);
    release_last(compiled);
    dml_test_float_tensor_cleanup(&in);
    if (test->scale_sizes)
        dml_test_float_tensor_cleanup(&scale);
    if (test->bias_sizes)
        dml_test_float_tensor_cleanup(&bias);
    assert_no_log_errors();
}

static void run_cases(void **state, const struct mvn_case *cases, size_t count)
{
    static const DML_TENSOR_DATA_TYPE types[] = {F32, F16};
    size_t i, t;

    for (i = 0; i < count; ++i)
    {
        for (t = 0; t < ARRAY_SIZE(types); ++t)
        {
            if (!dml_test_skip_float16(*state, types[t], cases[i].name))
                run_type(*state, &cases[i], types[t]);
        }
    }
}

/* ---- The forms of ONNX and WebNN ---- */

static const struct mvn_case normalization_forms[] =
{
    {"layer norm {4, 33} last axis, scale and bias {1, 33}", MVN1, 2, {4, 33}, 1, {1},
            .scale_sizes = (const UINT[]){1, 33}, .bias_sizes = (const UINT[]){1, 33}, .epsilon = 1e-5f,
            .offset = 3.0f},
    {"layer norm {2, 3, 5, 7} last two axes, scale and bias {1, 1, 5, 7}", MVN1, 4, {2, 3, 5, 7}, 2, {2, 3},
            .scale_sizes = (const UINT[]){1, 1, 5, 7}, .bias_sizes = (const UINT[]){1, 1, 5, 7}, .epsilon = 1e-5f},
    {"instance norm {2, 3, 7, 9} axes {2, 3}, per-channel scale and bias", MVN1, 4, {2, 3, 7, 9}, 2, {2, 3},
            .scale_sizes = (const UINT[]){1, 3, 1, 1}, .bias_sizes = (const UINT[]){1, 3, 1, 1}, .epsilon = 1e-5f},
    {"group norm {2, 4, 3, 25} (N, G, C/G, HW) axes {2, 3}, scale and bias {1, 4, 3, 1}", MVN1, 4, {2, 4, 3, 25},
            2, {2, 3}, .scale_sizes = (const UINT[]){1, 4, 3, 1}, .bias_sizes = (const UINT[]){1, 4, 3, 1},
            .epsilon = 1e-5f},
    {"group norm {1, 2, 4, 64}, per-group scale and bias {1, 2, 1, 1}, 16-byte loads", MVN1, 4, {1, 2, 4, 64}, 2,
            {2, 3}, .scale_sizes = (const UINT[]){1, 2, 1, 1}, .bias_sizes = (const UINT[]){1, 2, 1, 1},
            .epsilon = 1e-5f},
    {"group norm {2, 2, 3, 16}, per-channel scale and bias {1, 2, 3, 1}, 16-byte loads", MVN1, 4, {2, 2, 3, 16}, 2,
            {2, 3}, .scale_sizes = (const UINT[]){1, 2, 3, 1}, .bias_sizes = (const UINT[]){1, 2, 3, 1},
            .epsilon = 1e-5f},
    {"{2, 4, 6} axes {1, 2}, padded scale {1, 4, 6}, bias {2, 1, 6}", MVN1, 3, {2, 4, 6}, 2, {1, 2},
            .scale_sizes = (const UINT[]){1, 4, 6}, .scale_strides = (const UINT[]){32, 8, 1},
            .bias_sizes = (const UINT[]){2, 1, 6}, .epsilon = 1e-5f},
    {"RMS norm {5, 40} (MVN2, UseMean off), scale {1, 40}", MVN2, 2, {5, 40}, 1, {1},
            .scale_sizes = (const UINT[]){1, 40}, .no_mean = true, .epsilon = 1e-6f, .offset = 0.5f},
    {"MVN2 layer norm {3, 64}, scale and bias", MVN2, 2, {3, 64}, 1, {1}, .scale_sizes = (const UINT[]){1, 64},
            .bias_sizes = (const UINT[]){1, 64}, .epsilon = 1e-5f},
    {"MVN2 {3, 17}, UseMean only", MVN2, 2, {3, 17}, 1, {1}, .no_variance = true, .epsilon = 1e-5f},
    {"MVN2 {3, 17}, neither flag, bias only", MVN2, 2, {3, 17}, 1, {1}, .bias_sizes = (const UINT[]){1, 17},
            .no_mean = true, .no_variance = true},
};

static void test_normalization_forms(void **state)
{
    run_cases(state, normalization_forms, ARRAY_SIZE(normalization_forms));
}

/* ---- Axes, sizes, layouts ---- */

static const struct mvn_case axes_cases[] =
{
    {"MVN {2, 3, 4, 5} CrossChannel, per-channel scale and bias", MVN, 4, {2, 3, 4, 5},
            .scale_sizes = (const UINT[]){1, 3, 1, 1}, .bias_sizes = (const UINT[]){1, 3, 1, 1}, .cross_channel = true,
            .epsilon = 1e-5f},
    {"MVN {2, 3, 4, 5} per channel, NormalizeVariance off, relu", MVN, 4, {2, 3, 4, 5}, .no_variance = true,
            .activation = &dml_test_relu},
    {"MVN {2, 2, 6, 6} epsilon 0.5, scale only {2, 1, 1, 1} broadcast", MVN, 4, {2, 2, 6, 6},
            .scale_sizes = (const UINT[]){2, 1, 1, 1}, .epsilon = 0.5f},
    {"{1} a single element", MVN1, 1, {1}, 1, {0}, .epsilon = 1e-5f},
    {"{3, 4, 5} non-adjacent axes {0, 2}, sigmoid", MVN1, 3, {3, 4, 5}, 2, {2, 0},
            .scale_sizes = (const UINT[]){3, 1, 5}, .bias_sizes = (const UINT[]){1, 4, 1}, .epsilon = 1e-5f,
            .activation = &dml_test_sigmoid},
    {"{3, 4, 5} all axes", MVN1, 3, {3, 4, 5}, 3, {0, 1, 2}, .epsilon = 1e-5f},
    {"{8, 1000}, rows of special values", MVN1, 2, {8, 1000}, 1, {1}, .epsilon = 1e-5f, .fill = FILL_SPECIAL},
    {"{3, 7000} (a row per 1024-invocation workgroup), scale and bias", MVN1, 2, {3, 7000}, 1, {1},
            .scale_sizes = (const UINT[]){1, 7000}, .bias_sizes = (const UINT[]){1, 7000}, .epsilon = 1e-5f,
            .offset = 2.0f},
    {"{512, 16388} (512 invocations of 9 loads a row), scale and bias", MVN1, 2, {512, 16388}, 1, {1},
            .scale_sizes = (const UINT[]){1, 16388}, .bias_sizes = (const UINT[]){512, 1}, .epsilon = 1e-5f},
    {"{5, 20000} (rows split over workgroups), special rows", MVN1, 2, {5, 20000}, 1, {1}, .epsilon = 1e-5f,
            .fill = FILL_SPECIAL, .offset = 1.0f},
    {"{1, 40001} (split, single-entry loads), scale and bias", MVN1, 2, {1, 40001}, 1, {1},
            .scale_sizes = (const UINT[]){1, 40001}, .bias_sizes = (const UINT[]){1, 1}, .epsilon = 1e-5f},
    {"{33, 7} over axis 0 (strided entries)", MVN1, 2, {33, 7}, 1, {0}, .epsilon = 1e-5f},
    {"{4, 9} rows broadcast (input stride 0), padded output", MVN1, 2, {4, 9}, 1, {1},
            .in_strides = (const UINT[]){0, 1}, .out_strides = (const UINT[]){11, 1}, .epsilon = 1e-5f},
    {"{5, 8} padded input, strided scale and bias", MVN1, 2, {5, 8}, 1, {1}, .in_strides = (const UINT[]){10, 1},
            .scale_sizes = (const UINT[]){1, 8}, .scale_strides = (const UINT[]){8, 2},
            .bias_sizes = (const UINT[]){5, 8}, .bias_strides = (const UINT[]){1, 5}, .epsilon = 1e-5f},
    {"{3, 64} OWNED_BY_DML scale and bias", MVN1, 2, {3, 64}, 1, {1}, .scale_sizes = (const UINT[]){1, 64},
            .bias_sizes = (const UINT[]){1, 64}, .parameter_flags = DML_TENSOR_FLAG_OWNED_BY_DML, .epsilon = 1e-5f},
};

static void test_axes(void **state)
{
    run_cases(state, axes_cases, ARRAY_SIZE(axes_cases));
}

/* ---- LP_NORMALIZATION ---- */

static const struct mvn_case lp_cases[] =
{
    {"LP1 {4, 33} axis 1", LP, 2, {4, 33}, 0, {1}, .p = 1, .epsilon = 1e-5f},
    {"LP2 {10, 33} axis 1, special rows", LP, 2, {10, 33}, 0, {1}, .p = 2, .epsilon = 1e-5f, .fill = FILL_SPECIAL},
    {"LP2 {3, 5, 7} axis 0", LP, 3, {3, 5, 7}, 0, {0}, .p = 2, .epsilon = 1e-5f},
    {"LP1 {2, 3, 4, 5} axis 2", LP, 4, {2, 3, 4, 5}, 0, {2}, .p = 1, .epsilon = 1e-5f},
    {"LP2 {6, 4} axis 1, epsilon above some norms", LP, 2, {6, 4}, 0, {1}, .p = 2, .epsilon = 2.5f},
    {"LP2 {2, 20000} split", LP, 2, {2, 20000}, 0, {1}, .p = 2, .epsilon = 1e-5f},
};

static void test_lp(void **state)
{
    run_cases(state, lp_cases, ARRAY_SIZE(lp_cases));
}

/* ---- The pages' "Tensor support" ranks: MVN 4; MVN1, MVN2 and LP 1 to 8 ---- */

static const struct mvn_case rank_cases[] =
{
    {"LP2 {7} rank 1", LP, 1, {7}, 0, {0}, .p = 2, .epsilon = 1e-5f},
    {"LP1 {2, 1, 3, 1, 2, 1, 2, 5} rank 8 axis 7", LP, 8, {2, 1, 3, 1, 2, 1, 2, 5}, 0, {7}, .p = 1,
            .epsilon = 1e-5f},
    {"MVN1 {2, 1, 3, 1, 2, 1, 2, 5} rank 8 axes {2, 7}, scale", MVN1, 8, {2, 1, 3, 1, 2, 1, 2, 5}, 2, {2, 7},
            .scale_sizes = (const UINT[]){1, 1, 3, 1, 1, 1, 1, 5}, .epsilon = 1e-5f},
    {"MVN2 {2, 3, 2, 2, 5} rank 5 axes {3, 4}, bias", MVN2, 5, {2, 3, 2, 2, 5}, 2, {3, 4},
            .bias_sizes = (const UINT[]){1, 3, 1, 1, 1}, .epsilon = 1e-5f},
    {"MVN2 {9} rank 1, RMS", MVN2, 1, {9}, 1, {0}, .no_mean = true, .epsilon = 1e-5f},
};

static void test_ranks(void **state)
{
    run_cases(state, rank_cases, ARRAY_SIZE(rank_cases));
}

/* ---- Desc rules ---- */

struct bad_desc
{
    struct dml_test_tensor in, scale, bias, out;
    UINT axes[4];
    union mvn_desc desc;
    struct mvn_case test;
};

static void bad_desc_init(struct bad_desc *bad, DML_OPERATOR_TYPE type)
{
    static const UINT sizes[4] = {2, 3, 4, 5}, parameter_sizes[4] = {1, 3, 1, 1};

    memset(bad, 0, sizeof(*bad));
    dml_test_tensor_init(&bad->in, F32, 4, sizes, NULL);
    dml_test_tensor_init(&bad->out, F32, 4, sizes, NULL);
    dml_test_tensor_init(&bad->scale, F32, 4, parameter_sizes, NULL);
    dml_test_tensor_init(&bad->bias, F32, 4, parameter_sizes, NULL);
    bad->axes[0] = 2;
    bad->axes[1] = 3;
    bad->test.type = type;
    bad->test.axis_count = 2;
    bad->test.p = 2;
}

static HRESULT create_bad(struct dml_test_context *context, struct bad_desc *bad)
{
    struct dml_test_tensor *tensors[] = {&bad->in, &bad->scale, &bad->bias, &bad->out};
    bool lp = bad->test.type == LP;

    memcpy(bad->test.axes, bad->axes, sizeof(bad->axes));
    make_desc(&bad->test, &bad->in.desc, lp ? NULL : &bad->scale.desc, lp ? NULL : &bad->bias.desc, &bad->out.desc,
            &bad->desc);
    return dml_test_try_create(context, bad->test.type, &bad->desc, tensors, ARRAY_SIZE(tensors));
}

#define check_bad(context, bad, message) dml_test_check_bad(create_bad(context, bad), message)

static void check_common_rules(struct dml_test_context *context, DML_OPERATOR_TYPE type)
{
    struct bad_desc bad;

    bad_desc_init(&bad, type);
    check_hr(create_bad(context, &bad), S_OK);
    assert_no_log_errors();

    bad_desc_init(&bad, type);
    bad.out.sizes[1] = 4;
    check_bad(context, &bad, "OutputTensor.Sizes[1]=4 must equal InputTensor.Sizes[1]=3");

    if (type == LP)
        return;
    bad_desc_init(&bad, type);
    bad.scale.sizes[1] = 2;
    check_bad(context, &bad, "ScaleTensor.Sizes[1]=2 must be 1 or InputTensor's 3");

    bad_desc_init(&bad, type);
    bad.bias.sizes[3] = 3;
    check_bad(context, &bad, "BiasTensor.Sizes[3]=3 must be 1 or InputTensor's 5");

    bad_desc_init(&bad, type);
    bad.test.activation = &dml_test_clip;   /* CONVOLUTION's and GEMM's only */
    check_hr(create_bad(context, &bad), E_INVALIDARG);
    assert_int_equal(vkdml_test_log_counts()->errors, 1);
    vkdml_test_log_reset();
}

static void check_axes_rules(struct dml_test_context *context, DML_OPERATOR_TYPE type)
{
    struct bad_desc bad;

    bad_desc_init(&bad, type);
    bad.axes[1] = 4;
    check_bad(context, &bad, "Axes[1]=4 must be less than the rank 4");

    bad_desc_init(&bad, type);
    bad.axes[1] = 2;
    check_bad(context, &bad, "Axes[1]=2 repeats an axis");

    bad_desc_init(&bad, type);
    bad.test.axis_count = 0;
    check_hr(create_bad(context, &bad), E_INVALIDARG);
    assert_int_equal(vkdml_test_log_counts()->errors, 1);
    vkdml_test_log_reset();

    /* Scale and bias have the input's rank. */
    bad_desc_init(&bad, type);
    bad.scale.buffer.DimensionCount = 3;
    check_hr(create_bad(context, &bad), E_INVALIDARG);
    assert_int_equal(vkdml_test_log_counts()->errors, 1);
    vkdml_test_log_reset();
}

/* The pages' "Tensor support" tables and "Tensor constraints": types FLOAT32 and FLOAT16, one
 * DataType for all tensors, MVN's rank 4; anything else is E_INVALIDARG. */
static void check_tensor_support(struct dml_test_context *context, DML_OPERATOR_TYPE type)
{
    static const UINT sizes[3] = {3, 4, 5};
    struct bad_desc bad;

    bad_desc_init(&bad, type);
    bad.in.buffer.DataType = bad.out.buffer.DataType = DML_TENSOR_DATA_TYPE_INT32;
    bad.scale.buffer.DataType = bad.bias.buffer.DataType = DML_TENSOR_DATA_TYPE_INT32;
    check_hr(create_bad(context, &bad), E_INVALIDARG);
    assert_int_equal(vkdml_test_log_counts()->errors, 1);
    vkdml_test_log_reset();

    bad_desc_init(&bad, type);
    bad.out.buffer.DataType = F16;
    check_hr(create_bad(context, &bad), E_INVALIDARG);
    assert_int_equal(vkdml_test_log_counts()->errors, 1);
    vkdml_test_log_reset();

    if (type != LP)
    {
        bad_desc_init(&bad, type);
        bad.scale.buffer.DataType = F16;
        check_hr(create_bad(context, &bad), E_INVALIDARG);
        assert_int_equal(vkdml_test_log_counts()->errors, 1);
        vkdml_test_log_reset();
    }
    if (type != MVN)
        return;
    bad_desc_init(&bad, type);
    dml_test_tensor_init(&bad.in, F32, 3, sizes, NULL);
    dml_test_tensor_init(&bad.out, F32, 3, sizes, NULL);
    dml_test_tensor_init(&bad.scale, F32, 3, sizes, NULL);
    dml_test_tensor_init(&bad.bias, F32, 3, sizes, NULL);
    check_hr(create_bad(context, &bad), E_INVALIDARG);
    assert_int_equal(vkdml_test_log_counts()->errors, 1);
    vkdml_test_log_reset();
}

static void test_invalid(void **state)
{
    struct dml_test_context *context = *state;
    struct bad_desc bad;

    check_common_rules(context, MVN);
    check_common_rules(context, MVN1);
    check_common_rules(context, MVN2);
    check_common_rules(context, LP);
    check_axes_rules(context, MVN1);
    check_axes_rules(context, MVN2);
    check_tensor_support(context, MVN);
    check_tensor_support(context, MVN1);
    check_tensor_support(context, MVN2);
    check_tensor_support(context, LP);

    bad_desc_init(&bad, LP);
    bad.test.p = 3;
    check_bad(context, &bad, "P=3 must be 1 or 2");

    bad_desc_init(&bad, LP);
    bad.axes[0] = 4;
    check_hr(create_bad(context, &bad), E_INVALIDARG);
    assert_int_equal(vkdml_test_log_counts()->errors, 1);
    vkdml_test_log_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_normalization_forms, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_axes, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_lp, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_ranks, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_invalid, dml_test_setup, dml_test_teardown),
    };

    /* Logging first: it keeps the Vulkan driver loaded for LeakSanitizer (test_utils.c). */
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
