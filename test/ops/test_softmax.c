/*
 * ACTIVATION_SOFTMAX, ACTIVATION_LOG_SOFTMAX, ACTIVATION_HARDMAX and their `1` forms through the
 * public API, against a C reference in double: FLOAT32 and FLOAT16, the last dimension and any set
 * of Axes (single, several, not adjacent, all), odd sizes (1, 7, 33, 1000, rows longer than a
 * workgroup holds in registers, reductions over an outer axis), padded and 0-stride broadcast
 * layouts, in-place execution, NaN, +-inf, -0 and ties (README, "Softmax, log-softmax and
 * hardmax"), bit-identical results on a second run, an OWNED_BY_DML input; GEMM's fused SOFTMAX
 * and SOFTMAX1; then the desc rules with their log lines.
 */
#include <math.h>

#include "dml_test_utils.h"

#define F32 DML_TENSOR_DATA_TYPE_FLOAT32
#define F16 DML_TENSOR_DATA_TYPE_FLOAT16
#define MAX_DIMS 8

enum function
{
    SOFTMAX,
    LOG_SOFTMAX,
    HARDMAX,
};

static const char *const function_names[] = {"SOFTMAX", "LOG_SOFTMAX", "HARDMAX"};

/* The operator of `function`: the `1` form when the case names axes. */
static DML_OPERATOR_TYPE operator_type(enum function function, bool axes)
{
    static const DML_OPERATOR_TYPE first[] =
    {
        DML_OPERATOR_ACTIVATION_SOFTMAX, DML_OPERATOR_ACTIVATION_LOG_SOFTMAX, DML_OPERATOR_ACTIVATION_HARDMAX,
    };
    static const DML_OPERATOR_TYPE second[] =
    {
        DML_OPERATOR_ACTIVATION_SOFTMAX1, DML_OPERATOR_ACTIVATION_LOG_SOFTMAX1, DML_OPERATOR_ACTIVATION_HARDMAX1,
    };

    return axes ? second[function] : first[function];
}

/* ---- Tensors ---- */

struct tensor
{
    UINT rank, sizes[MAX_DIMS], strides[MAX_DIMS];
    struct dml_test_tensor t;
    size_t span;
    double *values;                 /* [span], as stored */
};

/* `strides` NULL: packed. */
static void tensor_init(struct tensor *t, DML_TENSOR_DATA_TYPE type, UINT rank, const UINT *sizes,
        const UINT *strides)
{
    UINT i, stride = 1;
    size_t last = 0;

    memset(t, 0, sizeof(*t));
    t->rank = rank;
    memcpy(t->sizes, sizes, rank * sizeof(*sizes));
    for (i = rank; i-- > 0; stride *= sizes[i])
        t->strides[i] = strides ? strides[i] : stride;
    for (i = 0; i < rank; ++i)
        last += (size_t)(sizes[i] - 1) * t->strides[i];
    t->span = last + 1;
    dml_test_tensor_init(&t->t, type, rank, sizes, strides);
    t->values = calloc(t->span, sizeof(*t->values));
    assert_non_null(t->values);
}

static void tensor_cleanup(struct tensor *t)
{
    free(t->values);
}

static double stored_value(DML_TENSOR_DATA_TYPE type, double value)
{
    return type == F16 ? ref_half_to_float(ref_float_to_half((float)value)) : (float)value;
}

static void *tensor_bytes(const struct tensor *t)
{
    uint8_t *bytes = calloc(1, t->t.buffer.TotalTensorSizeInBytes);
    size_t i;

    assert_non_null(bytes);
    for (i = 0; i < t->span; ++i)
    {
        if (t->t.buffer.DataType == F16)
            ((uint16_t *)bytes)[i] = ref_float_to_half((float)t->values[i]);
        else
            ((float *)bytes)[i] = (float)t->values[i];
    }
    return bytes;
}

/* ---- Cases ---- */

enum fill
{
    FILL_RANDOM,
    FILL_SPECIAL,                   /* rows of -inf, NaN, +inf, ties and signed zeros among random ones */
};

struct softmax_case
{
    const char *name;
    UINT rank, sizes[MAX_DIMS];
    UINT axis_count, axes[MAX_DIMS];    /* 0: the first form (the last dimension) */
    const UINT *in_strides, *out_strides; /* NULL: packed */
    enum fill fill;
    bool in_place;
};

static uint32_t case_mask(const struct softmax_case *test)
{
    uint32_t mask = 0;
    UINT i;

    if (!test->axis_count)
        return 1u << (test->rank - 1);
    for (i = 0; i < test->axis_count; ++i)
        mask |= 1u << test->axes[i];
    return mask;
}

static size_t case_length(const struct softmax_case *test)
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

/* The special value (or none: false) of entry `entry` of row `row`. */
static bool special_value(size_t row, size_t entry, size_t length, double *value)
{
    switch (row % 7)
    {
        case 1:
            *value = -INFINITY;
            return true;
        case 2:
            *value = NAN;
            return entry == row % length;
        case 3:
            *value = INFINITY;
            return entry == (row + 1) % length;
        case 4:                             /* ties above every random value, from the row's middle on */
            *value = 9.0;
            return entry % 2 == 1 && entry >= length / 2;
        case 5:                             /* -0 and +0 are equal: the first is the maximum */
            *value = entry % 2 ? 0.0 : -0.0;
            return true;
        case 6:
            *value = -INFINITY;
            return entry % 3 != 0;
        default:
            return false;
    }
}

static void fill_input(struct tensor *in, const struct softmax_case *test)
{
    DML_TENSOR_DATA_TYPE type = in->t.buffer.DataType;
    uint32_t random = 0x2545f491u, mask = case_mask(test);
    size_t i, row, entry, length = case_length(test);
    double value;

    for (i = 0; i < in->span; ++i)
        in->values[i] = stored_value(type, ref_random_float(&random, -8.0f, 8.0f));
    for (i = 0; test->fill == FILL_SPECIAL && i < dml_test_element_count(&in->t); ++i)
    {
        dml_test_row_and_entry(test->rank, test->sizes, mask, i, &row, &entry);
        if (special_value(row, entry, length, &value))
            in->values[dml_test_element_offset(&in->t, i)] = value;
    }
}

/* Hardmax's order: NaN above every number, -0 equal to +0. */
static bool greater(double a, double b)
{
    if (isnan(b))
        return false;
    return isnan(a) || a > b;
}

/* The expected output of every logical element, row-major. */
static double *compute_reference(const struct softmax_case *test, const struct tensor *in, enum function function)
{
    size_t count = dml_test_element_count(&in->t), rows = count / case_length(test), i, row, entry;
    double *expected = calloc(count, sizeof(*expected)), *maxima = malloc(rows * sizeof(*maxima));
    double *sums = calloc(rows, sizeof(*sums)), *best = malloc(rows * sizeof(*best)), x;
    size_t *first = calloc(rows, sizeof(*first));
    uint32_t mask = case_mask(test);

    assert_true(expected && maxima && sums && best && first);
    for (i = 0; i < rows; ++i)
        maxima[i] = -INFINITY, best[i] = NAN;
    for (i = 0; i < count; ++i)
    {
        dml_test_row_and_entry(test->rank, test->sizes, mask, i, &row, &entry);
        x = in->values[dml_test_element_offset(&in->t, i)];
        if (!isnan(x) && x > maxima[row])
            maxima[row] = x;
        if (!entry || greater(x, best[row]))
            best[row] = x, first[row] = entry;
    }
    for (i = 0; i < count; ++i)
    {
        dml_test_row_and_entry(test->rank, test->sizes, mask, i, &row, &entry);
        sums[row] += exp(in->values[dml_test_element_offset(&in->t, i)] - maxima[row]);
    }
    for (i = 0; i < count; ++i)
    {
        dml_test_row_and_entry(test->rank, test->sizes, mask, i, &row, &entry);
        x = in->values[dml_test_element_offset(&in->t, i)];
        if (function == HARDMAX)
            expected[i] = entry == first[row] ? 1.0 : 0.0;
        else if (function == LOG_SOFTMAX)
            expected[i] = x - maxima[row] - log(sums[row]);
        else
            expected[i] = exp(x - maxima[row]) / sums[row];
    }
    free(maxima);
    free(sums);
    free(best);
    free(first);
    return expected;
}

static double tolerance(DML_TENSOR_DATA_TYPE type, enum function function, double expected)
{
    double relative = type == F16 ? ldexp(1.0, -10) : 2e-5;

    if (function == HARDMAX)
        return 0.0;
    if (function == LOG_SOFTMAX)
        return relative * (fabs(expected) + 1.0);
    return relative * fabs(expected) + (type == F16 ? 1e-6 : 1e-7);
}

static void check_output(const struct softmax_case *test, enum function function, const struct tensor *out,
        const void *bytes, const double *expected)
{
    DML_TENSOR_DATA_TYPE type = out->t.buffer.DataType;
    size_t i;
    double got;

    for (i = 0; i < dml_test_element_count(&out->t); ++i)
    {
        got = dml_test_read_float(bytes, type, dml_test_element_offset(&out->t, i));
        if (isnan(expected[i]) ? isnan(got) : isinf(expected[i]) ? got == expected[i]
                : fabs(got - expected[i]) <= tolerance(type, function, expected[i]))
            continue;
        fail_msg("%s %s %s: element %zu = %.9g, expected %.9g", function_names[function], dml_test_type_name(type),
                test->name, i, got, expected[i]);
    }
}

static void run_function(struct dml_test_context *context, const struct softmax_case *test,
        DML_TENSOR_DATA_TYPE type, enum function function)
{
    struct dml_test_binding input = {NULL}, output = {NULL};
    DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC desc;
    IDMLCompiledOperator *compiled;
    ID3D12Resource *persistent;
    struct tensor in, out;
    void *bytes, *first_bytes, *second_bytes;
    double *expected;
    size_t size;

    tensor_init(&in, type, test->rank, test->sizes, test->in_strides);
    tensor_init(&out, type, test->rank, test->sizes, test->in_place ? test->in_strides : test->out_strides);
    fill_input(&in, test);
    expected = compute_reference(test, &in, function);
    desc = (DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC){&in.t.desc, &out.t.desc, test->axis_count, test->axes};
    compiled = dml_test_compile(context, operator_type(function, test->axis_count), &desc, DML_EXECUTION_FLAG_NONE);
    bytes = tensor_bytes(&in);
    input.buffer = dml_test_create_buffer(context, in.t.buffer.TotalTensorSizeInBytes, bytes);
    output = input;
    if (!test->in_place)
        output.buffer = dml_test_create_buffer(context, out.t.buffer.TotalTensorSizeInBytes, NULL);
    persistent = dml_test_initialize(context, compiled, NULL, 0);
    dml_test_execute(context, compiled, persistent, &input, 1, &output, 1);
    size = out.t.buffer.TotalTensorSizeInBytes;
    first_bytes = malloc(size);
    second_bytes = malloc(size);
    assert_true(first_bytes && second_bytes);
    dml_test_read_buffer(context, output.buffer, 0, first_bytes, size);
    check_output(test, function, &out, first_bytes, expected);
    /* Deterministic: a second run (from the same input) gives the same bits. */
    if (test->in_place)
        dml_test_write_buffer(context, input.buffer, 0, bytes, in.t.buffer.TotalTensorSizeInBytes);
    dml_test_execute(context, compiled, persistent, &input, 1, &output, 1);
    dml_test_read_buffer(context, output.buffer, 0, second_bytes, size);
    if (memcmp(second_bytes, first_bytes, size))
        fail_msg("%s %s %s: a second run differs.", function_names[function], dml_test_type_name(type), test->name);
    free(bytes);
    free(first_bytes);
    free(second_bytes);
    free(expected);
    if (persistent)
        release_last(persistent);
    release_last(input.buffer);
    if (!test->in_place)
        release_last(output.buffer);
    release_last(compiled);
    tensor_cleanup(&in);
    tensor_cleanup(&out);
    assert_no_log_errors();
}

static void run_case(struct dml_test_context *context, const struct softmax_case *test)
{
    static const DML_TENSOR_DATA_TYPE types[] = {F32, F16};
    enum function function;
    size_t i;

    for (i = 0; i < ARRAY_SIZE(types); ++i)
    {
        if (dml_test_skip_float16(context, types[i], test->name))
            continue;
        for (function = SOFTMAX; function <= HARDMAX; ++function)
            run_function(context, test, types[i], function);
    }
}

static void run_cases(void **state, const struct softmax_case *cases, size_t count)
{
    size_t i;

    for (i = 0; i < count; ++i)
        run_case(*state, &cases[i]);
}

/* ---- The last dimension (the first forms) ---- */

static const struct softmax_case last_dimension_cases[] =
{
    {"{1}", 1, {1}},
    {"{7, 33}, special rows", 2, {7, 33}, .fill = FILL_SPECIAL},
    {"{1, 1, 5, 1000} (effective rank 2)", 4, {1, 1, 5, 1000}},
    {"{3, 20000} (longer than the registers hold), special rows", 2, {3, 20000}, .fill = FILL_SPECIAL},
    {"{1, 7, 40000} (rows split over workgroups), special rows", 3, {1, 7, 40000}, .fill = FILL_SPECIAL},
    {"{2, 33333} (split, single-entry loads), special rows", 2, {2, 33333}, .fill = FILL_SPECIAL},
    {"{4, 9}, rows broadcast (stride 0)", 2, {4, 9}, .in_strides = (const UINT[]){0, 1}},
    {"{5, 7}, entries broadcast, padded output", 2, {5, 7}, .in_strides = (const UINT[]){1, 0},
            .out_strides = (const UINT[]){9, 1}},
    {"{2, 12000} (16-byte loads, 512 invocations), in place", 2, {2, 12000}, .in_place = true},
    {"{3, 64} 16-byte loads, special rows", 2, {3, 64}, .fill = FILL_SPECIAL},
    {"{6, 130} in place, padded, special rows", 2, {6, 130}, .in_strides = (const UINT[]){133, 1},
            .fill = FILL_SPECIAL, .in_place = true},
};

static void test_last_dimension(void **state)
{
    run_cases(state, last_dimension_cases, ARRAY_SIZE(last_dimension_cases));
}

/* ---- Axes (the `1` forms) ---- */

static const struct softmax_case axes_cases[] =
{
    {"{3, 4, 5, 6} axes {0, 2} (not adjacent)", 4, {3, 4, 5, 6}, 2, {0, 2}},
    {"{2, 3, 7} axes {2, 0, 1} (all)", 3, {2, 3, 7}, 3, {2, 0, 1}, .fill = FILL_SPECIAL},
    {"{7, 2100} axis 0 (an invocation per column), special rows", 2, {7, 2100}, 1, {0}, .fill = FILL_SPECIAL},
    {"{33, 5, 4} axes {1} (few rows of an outer axis)", 3, {33, 5, 4}, 1, {1}, .fill = FILL_SPECIAL},
    {"{2, 3, 4, 5, 2, 1, 3, 2} axes {1, 3, 6}, padded input", 8, {2, 3, 4, 5, 2, 1, 3, 2}, 3, {1, 3, 6},
            .in_strides = (const UINT[]){1000, 300, 70, 14, 7, 7, 2, 1}},
    {"{4, 1000} axis 1, input broadcast along the rows", 2, {4, 1000}, 1, {1}, .in_strides = (const UINT[]){0, 1}},
    {"{600, 40} axis 0 (16 slices per column), special rows", 2, {600, 40}, 1, {0}, .fill = FILL_SPECIAL},
    {"{3000, 5} (short rows: an invocation per row)", 2, {3000, 5}, 1, {1}},
    {"{1030, 70} (a subgroup team per row), special rows", 2, {1030, 70}, 1, {1}, .fill = FILL_SPECIAL},
    {"{2, 520, 24} axes {2} (teams, 16-byte loads) in place", 3, {2, 520, 24}, 1, {2}, .in_place = true},
    {"{3, 2048} axis 0 in place, special rows", 2, {3, 2048}, 1, {0}, .fill = FILL_SPECIAL, .in_place = true},
    {"{300, 64} axis 0 (16-byte loads, 128 slices in two levels), special rows", 2, {300, 64}, 1, {0},
            .fill = FILL_SPECIAL},
    {"{10000, 32} axis 0 (columns split into chunks) in place, special rows", 2, {10000, 32}, 1, {0},
            .fill = FILL_SPECIAL, .in_place = true},
    {"{40, 3, 34} axes {0, 1} (two rows per load), special rows", 3, {40, 3, 34}, 2, {0, 1}, .fill = FILL_SPECIAL},
};

static void test_axes(void **state)
{
    run_cases(state, axes_cases, ARRAY_SIZE(axes_cases));
}

/* ---- DirectML's HARDMAX1 example: {2, 2, 2}, axes {1} and {0, 2} ---- */

static void run_hardmax_example(struct dml_test_context *context, UINT axis_count, const UINT *axes,
        const float *expected)
{
    static const UINT sizes[3] = {2, 2, 2};
    static const float values[8] = {12, 0, -101, 11, 3, 234, 0, -101};
    struct dml_test_binding input = {NULL}, output = {NULL};
    DML_ACTIVATION_HARDMAX1_OPERATOR_DESC desc;
    IDMLCompiledOperator *compiled;
    struct dml_test_tensor in, out;
    float got[8];
    size_t i;

    dml_test_tensor_init(&in, F32, 3, sizes, NULL);
    dml_test_tensor_init(&out, F32, 3, sizes, NULL);
    desc = (DML_ACTIVATION_HARDMAX1_OPERATOR_DESC){&in.desc, &out.desc, axis_count, axes};
    compiled = dml_test_compile(context, DML_OPERATOR_ACTIVATION_HARDMAX1, &desc, DML_EXECUTION_FLAG_NONE);
    input.buffer = dml_test_create_buffer(context, sizeof(values), values);
    output.buffer = dml_test_create_buffer(context, sizeof(got), NULL);
    dml_test_run(context, compiled, &input, 1, &output, 1);
    dml_test_read_buffer(context, output.buffer, 0, got, sizeof(got));
    for (i = 0; i < ARRAY_SIZE(got); ++i)
    {
        if (got[i] != expected[i])
            fail_msg("element %zu = %g, expected %g", i, got[i], expected[i]);
    }
    release_last(input.buffer);
    release_last(output.buffer);
    release_last(compiled);
    assert_no_log_errors();
}

static void test_hardmax_example(void **state)
{
    static const UINT axis1[1] = {1}, axes02[2] = {0, 2};
    static const float expected1[8] = {1, 0, 0, 1, 1, 1, 0, 0};
    static const float expected02[8] = {0, 0, 0, 1, 0, 1, 0, 0};

    run_hardmax_example(*state, 1, axis1, expected1);
    run_hardmax_example(*state, 2, axes02, expected02);
}

/* ---- An OWNED_BY_DML input: read from the persistent resource, the upload buffer overwritten ---- */

static void test_owned_input(void **state)
{
    static const struct softmax_case test = {"{5, 37} axis 1, OWNED_BY_DML", 2, {5, 37}, 1, {1}};
    struct dml_test_binding inputs[1] = {{NULL}}, owned[1] = {{NULL}}, output = {NULL};
    const struct dml_test_float_tensor *tensors[1];
    DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC desc;
    struct dml_test_context *context = *state;
    struct dml_test_float_tensor in;
    IDMLCompiledOperator *compiled;
    ID3D12Resource *persistent;
    struct tensor reference, out;
    double *expected;
    void *bytes;
    size_t i;

    dml_test_float_tensor_init(&in, F32, test.rank, test.sizes, NULL, DML_TENSOR_FLAG_OWNED_BY_DML, 5);
    tensor_init(&reference, F32, test.rank, test.sizes, NULL);
    tensor_init(&out, F32, test.rank, test.sizes, NULL);
    for (i = 0; i < reference.span; ++i)
        reference.values[i] = in.values[i];
    expected = compute_reference(&test, &reference, SOFTMAX);
    desc = (DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC){&in.t.desc, &out.t.desc, test.axis_count, test.axes};
    compiled = dml_test_compile(context, DML_OPERATOR_ACTIVATION_SOFTMAX1, &desc, DML_EXECUTION_FLAG_NONE);
    tensors[0] = &in;
    dml_test_create_input_buffers(context, tensors, 1, inputs, owned);
    persistent = dml_test_initialize(context, compiled, owned, 1);
    dml_test_scribble_owned(owned, tensors, 1);
    output.buffer = dml_test_create_buffer(context, out.t.buffer.TotalTensorSizeInBytes, NULL);
    dml_test_execute(context, compiled, persistent, inputs, 1, &output, 1);
    bytes = malloc(out.t.buffer.TotalTensorSizeInBytes);
    assert_non_null(bytes);
    dml_test_read_buffer(context, output.buffer, 0, bytes, out.t.buffer.TotalTensorSizeInBytes);
    check_output(&test, SOFTMAX, &out, bytes, expected);
    free(bytes);
    free(expected);
    dml_test_release_bindings(owned, 1);
    dml_test_release_bindings(inputs, 1);
    release_last(output.buffer);
    if (persistent)
        release_last(persistent);
    release_last(compiled);
    dml_test_float_tensor_cleanup(&in);
    tensor_cleanup(&reference);
    tensor_cleanup(&out);
    assert_no_log_errors();
}

/* ---- GEMM's fused SOFTMAX and SOFTMAX1 (FL 6_1): a softmax over GEMM's output ---- */

struct gemm_softmax_case
{
    const char *name;
    UINT rank, batches[2], m, k, n;
    UINT axis_count, axes[4];           /* 0: ACTIVATION_SOFTMAX (the last dimension) */
};

/* The output of a packed GEMM (Alpha 1, no C), as stored in `type`. */
static void gemm_reference(const struct gemm_softmax_case *test, const struct dml_test_float_tensor *a,
        const struct dml_test_float_tensor *b, struct tensor *out)
{
    UINT batch, i, j, l, batches = test->batches[0] * test->batches[1];
    double sum;

    for (batch = 0; batch < batches; ++batch)
    for (i = 0; i < test->m; ++i)
    for (j = 0; j < test->n; ++j)
    {
        for (l = 0, sum = 0.0; l < test->k; ++l)
            sum += (double)a->values[(batch * test->m + i) * test->k + l]
                    * b->values[(batch * test->k + l) * test->n + j];
        out->values[(batch * test->m + i) * test->n + j] = stored_value(out->t.buffer.DataType, sum);
    }
}

static void run_gemm_softmax(struct dml_test_context *context, const struct gemm_softmax_case *test,
        DML_TENSOR_DATA_TYPE type)
{
    UINT pad = 4 - test->rank, a_sizes[4] = {test->batches[0], test->batches[1], test->m, test->k};
    UINT b_sizes[4] = {test->batches[0], test->batches[1], test->k, test->n};
    UINT out_sizes[4] = {test->batches[0], test->batches[1], test->m, test->n};
    struct dml_test_binding inputs[3] = {{NULL}}, output = {NULL};
    DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC softmax1 = {NULL, NULL, test->axis_count, test->axes};
    DML_ACTIVATION_SOFTMAX_OPERATOR_DESC softmax = {NULL, NULL};
    struct softmax_case as_softmax = {test->name, test->rank};
    const struct dml_test_float_tensor *operands[3];
    struct dml_test_float_tensor a, b;
    DML_OPERATOR_DESC activation;
    IDMLCompiledOperator *compiled;
    DML_GEMM_OPERATOR_DESC desc;
    struct tensor out, gemm;
    double *expected;
    void *bytes;

    dml_test_float_tensor_init(&a, type, test->rank, &a_sizes[pad], NULL, DML_TENSOR_FLAG_NONE, 3);
    dml_test_float_tensor_init(&b, type, test->rank, &b_sizes[pad], NULL, DML_TENSOR_FLAG_NONE, 4);
    tensor_init(&out, type, test->rank, &out_sizes[pad], NULL);
    tensor_init(&gemm, type, test->rank, &out_sizes[pad], NULL);
    gemm_reference(test, &a, &b, &gemm);
    memcpy(as_softmax.sizes, &out_sizes[pad], test->rank * sizeof(UINT));
    as_softmax.axis_count = test->axis_count;
    memcpy(as_softmax.axes, test->axes, sizeof(test->axes));
    expected = compute_reference(&as_softmax, &gemm, SOFTMAX);

    activation = test->axis_count ? (DML_OPERATOR_DESC){DML_OPERATOR_ACTIVATION_SOFTMAX1, &softmax1}
            : (DML_OPERATOR_DESC){DML_OPERATOR_ACTIVATION_SOFTMAX, &softmax};
    desc = (DML_GEMM_OPERATOR_DESC){&a.t.desc, &b.t.desc, NULL, &out.t.desc, DML_MATRIX_TRANSFORM_NONE,
            DML_MATRIX_TRANSFORM_NONE, 1.0f, 0.0f, &activation};
    compiled = dml_test_compile(context, DML_OPERATOR_GEMM, &desc, DML_EXECUTION_FLAG_NONE);
    operands[0] = &a, operands[1] = &b, operands[2] = NULL;
    dml_test_create_input_buffers(context, operands, 3, inputs, NULL);
    output.buffer = dml_test_create_buffer(context, out.t.buffer.TotalTensorSizeInBytes, NULL);
    dml_test_run(context, compiled, inputs, 3, &output, 1);
    bytes = malloc(out.t.buffer.TotalTensorSizeInBytes);
    assert_non_null(bytes);
    dml_test_read_buffer(context, output.buffer, 0, bytes, out.t.buffer.TotalTensorSizeInBytes);
    check_output(&as_softmax, SOFTMAX, &out, bytes, expected);
    free(bytes);
    free(expected);
    dml_test_release_bindings(inputs, 3);
    release_last(output.buffer);
    release_last(compiled);
    dml_test_float_tensor_cleanup(&a);
    dml_test_float_tensor_cleanup(&b);
    tensor_cleanup(&out);
    tensor_cleanup(&gemm);
    assert_no_log_errors();
}

static void test_gemm_fused(void **state)
{
    static const struct gemm_softmax_case cases[] =
    {
        {"GEMM {5, 8} x {8, 33}, SOFTMAX", 4, {1, 1}, 5, 8, 33},
        {"GEMM {2, 3} batches of {4, 6} x {6, 7}, SOFTMAX1 axes {1, 3}", 4, {2, 3}, 4, 6, 7, 2, {1, 3}},
        {"GEMM {9, 16} x {16, 40}, SOFTMAX1 axis 0", 2, {1, 1}, 9, 16, 40, 1, {0}},
    };
    static const DML_TENSOR_DATA_TYPE types[] = {F32, F16};
    size_t i, t;

    for (i = 0; i < ARRAY_SIZE(cases); ++i)
    {
        for (t = 0; t < ARRAY_SIZE(types); ++t)
        {
            if (!dml_test_skip_float16(*state, types[t], cases[i].name))
                run_gemm_softmax(*state, &cases[i], types[t]);
        }
    }
}

static void test_gemm_fused_invalid(void **state)
{
    static const UINT a_sizes[2] = {4, 8}, b_sizes[2] = {8, 5}, out_sizes[2] = {4, 5};
    static const UINT bad_axes[2] = {2, 0}, repeated[2] = {1, 1};
    DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC softmax1 = {NULL, NULL, 1, bad_axes};
    DML_OPERATOR_DESC activation = {DML_OPERATOR_ACTIVATION_SOFTMAX1, &softmax1};
    struct dml_test_tensor a, b, out;
    DML_GEMM_OPERATOR_DESC desc;

    dml_test_tensor_init(&a, F32, 2, a_sizes, NULL);
    dml_test_tensor_init(&b, F32, 2, b_sizes, NULL);
    dml_test_tensor_init(&out, F32, 2, out_sizes, NULL);
    desc = (DML_GEMM_OPERATOR_DESC){&a.desc, &b.desc, NULL, &out.desc, DML_MATRIX_TRANSFORM_NONE,
            DML_MATRIX_TRANSFORM_NONE, 1.0f, 0.0f, &activation};
    dml_test_expect_invalid(*state, DML_OPERATOR_GEMM, &desc, "FusedActivation.Axes[0]=2 must be less than the rank 2");
    softmax1.AxisCount = 2;
    softmax1.Axes = repeated;
    dml_test_expect_invalid(*state, DML_OPERATOR_GEMM, &desc, "FusedActivation.Axes[1]=1 repeats an axis");
}

/* ---- Invalid descs ---- */

struct bad_desc
{
    struct dml_test_tensor in, out;
    UINT axes[MAX_DIMS];
    DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC desc;
};

/* A valid desc: {2, 3, 4} in and out, axes {1}. */
static void bad_desc_init(struct bad_desc *bad, UINT rank, const UINT *sizes)
{
    memset(bad, 0, sizeof(*bad));
    dml_test_tensor_init(&bad->in, F32, rank, sizes, NULL);
    dml_test_tensor_init(&bad->out, F32, rank, sizes, NULL);
    bad->axes[0] = 1;
    bad->desc = (DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC){&bad->in.desc, &bad->out.desc, 1, bad->axes};
}

static HRESULT create_bad(struct dml_test_context *context, DML_OPERATOR_TYPE type, struct bad_desc *bad)
{
    struct dml_test_tensor *tensors[] = {&bad->in, &bad->out};

    return dml_test_try_create(context, type, &bad->desc, tensors, ARRAY_SIZE(tensors));
}

#define check_bad(context, type, bad, message) dml_test_check_bad(create_bad(context, type, bad), message)

static void check_first_form_rules(struct dml_test_context *context, DML_OPERATOR_TYPE type)
{
    static const UINT rank3[3] = {2, 3, 4}, leading_ones[4] = {1, 1, 3, 4}, rank1[1] = {5};
    struct bad_desc bad;

    bad_desc_init(&bad, 4, leading_ones);
    check_hr(create_bad(context, type, &bad), S_OK);
    assert_no_log_errors();
    bad_desc_init(&bad, 1, rank1);
    check_hr(create_bad(context, type, &bad), S_OK);
    assert_no_log_errors();

    bad_desc_init(&bad, 3, rank3);
    check_bad(context, type, &bad, "InputTensor's effective rank 3 (DimensionCount=3 without its leading sizes of 1) "
            "must be at most 2");

    bad_desc_init(&bad, 4, leading_ones);
    bad.out.sizes[3] = 5;
    check_bad(context, type, &bad, "OutputTensor.Sizes[3]=5 must equal InputTensor.Sizes[3]=4");
}

static void check_axes_rules(struct dml_test_context *context, DML_OPERATOR_TYPE type)
{
    static const UINT sizes[3] = {2, 3, 4};
    struct bad_desc bad;

    bad_desc_init(&bad, 3, sizes);
    check_hr(create_bad(context, type, &bad), S_OK);
    assert_no_log_errors();

    bad_desc_init(&bad, 3, sizes);
    bad.axes[0] = 3;
    check_bad(context, type, &bad, "Axes[0]=3 must be less than the rank 3");

    bad_desc_init(&bad, 3, sizes);
    bad.axes[1] = 1;
    bad.desc.AxisCount = 2;
    check_bad(context, type, &bad, "Axes[1]=1 repeats an axis");

    bad_desc_init(&bad, 3, sizes);
    bad.desc.AxisCount = 0;
    bad.desc.Axes = NULL;
    check_hr(create_bad(context, type, &bad), E_INVALIDARG);
    assert_int_equal(vkdml_test_log_counts()->errors, 1);

    bad_desc_init(&bad, 3, sizes);
    bad.out.sizes[1] = 1;
    check_bad(context, type, &bad, "OutputTensor.Sizes[1]=1 must equal InputTensor.Sizes[1]=3");

    bad_desc_init(&bad, 3, sizes);
    bad.out.buffer.DataType = F16;
    check_hr(create_bad(context, type, &bad), E_INVALIDARG);
    assert_int_equal(vkdml_test_log_counts()->errors, 1);

    bad_desc_init(&bad, 3, sizes);
    bad.in.buffer.DataType = bad.out.buffer.DataType = DML_TENSOR_DATA_TYPE_INT32;
    check_hr(create_bad(context, type, &bad), E_INVALIDARG);
    assert_int_equal(vkdml_test_log_counts()->errors, 1);
    vkdml_test_log_reset();
}

static void test_invalid(void **state)
{
    enum function function;

    for (function = SOFTMAX; function <= HARDMAX; ++function)
    {
        check_first_form_rules(*state, operator_type(function, false));
        check_axes_rules(*state, operator_type(function, true));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_last_dimension, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_axes, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_hardmax_example, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_owned_input, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_gemm_fused, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_gemm_fused_invalid, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_invalid, dml_test_setup, dml_test_teardown),
    };

    /* Logging first: it keeps the Vulkan driver loaded for LeakSanitizer (test_utils.c). */
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
