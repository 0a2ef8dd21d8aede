/*
 * DML_OPERATOR_BATCH_NORMALIZATION and DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION through the public
 * API against a C reference in double: FLOAT32 and FLOAT16, ranks 1 to 8, odd sizes, rows longer
 * than a workgroup, per-channel, per-element (not spatial), scalar and mixed parameters, padded and
 * 0-stride broadcast tensors, OWNED_BY_DML parameters (overwritten after initialization), several
 * epsilons, every fusible activation that has a reference, NaN and infinities; LRN across and
 * within channels with odd and even LocalSize; then the desc rules with their error and log line.
 */
#include <math.h>

#include "dml_test_utils.h"

#define BATCH_NORM DML_OPERATOR_BATCH_NORMALIZATION
#define LRN DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION
#define F32 DML_TENSOR_DATA_TYPE_FLOAT32
#define F16 DML_TENSOR_DATA_TYPE_FLOAT16

/* Parameter shapes: per channel {1, C, 1, ...}, per element of {C, H, W, ...} (Spatial FALSE), all
 * broadcast {1, ...}, one of each, or per channel through 0-strides over the input's sizes. */
enum param_shape
{
    PARAMS_CHANNEL,
    PARAMS_ELEMENT,
    PARAMS_SCALAR,
    PARAMS_MIXED,
    PARAMS_ZERO_STRIDES,
};

struct bn_case
{
    const char *name;
    UINT rank, sizes[8];
    enum param_shape params;
    bool padded;                        /* input and output rows padded (3 extra elements a row) */
    bool padded_params;                 /* per-channel parameters 2 elements apart */
    bool owned;
    float epsilon;
    const DML_OPERATOR_DESC *activation;
    bool special;                       /* NaN and infinities among the inputs */
};

static void param_sizes(const struct bn_case *c, unsigned int p, UINT *sizes, UINT *strides, bool *strided)
{
    enum param_shape shape = c->params == PARAMS_MIXED ? (enum param_shape)(p % 3) : c->params;
    UINT i, stride = 1;

    *strided = false;
    for (i = 0; i < c->rank; ++i)
    {
        sizes[i] = 1;
        if (shape == PARAMS_ZERO_STRIDES)
        {
            sizes[i] = c->sizes[i];
            strides[i] = i == (c->rank > 1 ? 1 : 0);
            *strided = true;
        }
        else if (shape == PARAMS_CHANNEL && i == (c->rank > 1 ? 1u : 0u))
            sizes[i] = c->sizes[i];
        else if (shape == PARAMS_ELEMENT && (i >= 1 || c->rank == 1))
            sizes[i] = c->sizes[i];
    }
    if (c->padded_params && shape == PARAMS_CHANNEL)
    {
        for (i = c->rank; i-- > 0;)
        {
            strides[i] = stride;
            stride *= sizes[i] * (sizes[i] > 1 ? 2 : 1);
        }
        *strided = true;
    }
}

/* Row-major strides with `pad` extra elements after each row of the last dimension. */
static void padded_strides(UINT rank, const UINT *sizes, UINT pad, UINT *strides)
{
    UINT i, stride = 1;

    for (i = rank; i-- > 0;)
    {
        strides[i] = stride;
        stride *= sizes[i] + (i == rank - 1 ? pad : 0);
    }
}

/* The offset of the element at `coordinates` of the input in `tensor` (broadcast where size 1). */
static size_t broadcast_offset(const struct dml_test_tensor *tensor, const UINT *coordinates)
{
    size_t offset = 0, packed = 1;
    int d;

    for (d = (int)tensor->buffer.DimensionCount - 1; d >= 0; --d)
    {
        UINT coordinate = tensor->sizes[d] == 1 ? 0 : coordinates[d];

        offset += (size_t)coordinate * (tensor->buffer.Strides ? tensor->strides[d] : packed);
        packed *= tensor->sizes[d];
    }
    return offset;
}

static bool check_value(float got, double expected, double tolerance)
{
    if (isnan(expected))
        return isnan(got);
    if (isinf(expected) || isinf(got))
        return got == expected;
    return fabs((double)got - expected) <= tolerance;
}

static void set_special(struct dml_test_float_tensor *input)
{
    static const float specials[] = {NAN, INFINITY, -INFINITY};
    size_t i;

    for (i = 0; i < ARRAY_SIZE(specials) && i * 7 < input->span; ++i)
        input->values[i * 7] = specials[i];
}

static void run_bn_case(struct dml_test_context *context, const struct bn_case *c, DML_TENSOR_DATA_TYPE type)
{
    struct dml_test_binding inputs[5] = {{NULL}}, owned[5] = {{NULL}}, output = {NULL};
    struct dml_test_float_tensor tensors[5];
    const struct dml_test_float_tensor *pointers[5];
    DML_BATCH_NORMALIZATION_OPERATOR_DESC desc;
    UINT sizes[8], strides[8], coordinates[8];
    IDMLCompiledOperator *compiled;
    ID3D12Resource *persistent;
    struct dml_test_tensor out;
    double x, m, v, s, b, a, y, slope, tolerance;
    unsigned int p, pass;
    UINT64 i, count, rest;
    bool strided;
    uint8_t *bytes;
    float got;
    int d;

    if (dml_test_skip_float16(context, type, c->name))
        return;
    if (c->padded)
        padded_strides(c->rank, c->sizes, 3, strides);
    dml_test_float_tensor_init(&tensors[0], type, c->rank, c->sizes, c->padded ? strides : NULL,
            DML_TENSOR_FLAG_NONE, 1);
    if (c->special)
        set_special(&tensors[0]);
    for (p = 0; p < 4; ++p)
    {
        param_sizes(c, p, sizes, strides, &strided);
        dml_test_float_tensor_init(&tensors[p + 1], type, c->rank, sizes, strided ? strides : NULL,
                c->owned ? DML_TENSOR_FLAG_OWNED_BY_DML : DML_TENSOR_FLAG_NONE, 2 + p);
    }
    /* Variances are not negative. */
    for (i = 0; i < tensors[2].span; ++i)
        tensors[2].values[i] = fabsf(tensors[2].values[i]);
    if (c->padded)
        padded_strides(c->rank, c->sizes, 3, strides);
    dml_test_tensor_init(&out, type, c->rank, c->sizes, c->padded ? strides : NULL);

    desc.InputTensor = &tensors[0].t.desc;
    desc.MeanTensor = &tensors[1].t.desc;
    desc.VarianceTensor = &tensors[2].t.desc;
    desc.ScaleTensor = &tensors[3].t.desc;
    desc.BiasTensor = &tensors[4].t.desc;
    desc.OutputTensor = &out.desc;
    desc.Spatial = c->params != PARAMS_ELEMENT;
    desc.Epsilon = c->epsilon;
    desc.FusedActivation = c->activation;
    compiled = dml_test_compile(context, BATCH_NORM, &desc, DML_EXECUTION_FLAG_NONE);

    for (p = 0; p < 5; ++p)
        pointers[p] = &tensors[p];
    dml_test_create_input_buffers(context, pointers, 5, inputs, owned);
    persistent = dml_test_initialize(context, compiled, owned, 5);
    bytes = malloc(out.buffer.TotalTensorSizeInBytes);
    assert_non_null(bytes);
    count = dml_test_element_count(&out);
    for (pass = 0; pass < (c->owned ? 2u : 1u); ++pass)
    {
        if (pass)
            dml_test_scribble_owned(owned, pointers, 5);
        output.buffer = dml_test_create_buffer(context, out.buffer.TotalTensorSizeInBytes, NULL);
        dml_test_execute(context, compiled, persistent, inputs, 5, &output, 1);
        dml_test_read_buffer(context, output.buffer, 0, bytes, out.buffer.TotalTensorSizeInBytes);
        for (i = 0; i < count; ++i)
        {
            for (rest = i, d = (int)c->rank - 1; d >= 0; --d)
            {
                coordinates[d] = rest % c->sizes[d];
                rest /= c->sizes[d];
            }
            x = tensors[0].values[broadcast_offset(&tensors[0].t, coordinates)];
            m = tensors[1].values[broadcast_offset(&tensors[1].t, coordinates)];
            v = tensors[2].values[broadcast_offset(&tensors[2].t, coordinates)];
            s = tensors[3].values[broadcast_offset(&tensors[3].t, coordinates)];
            b = tensors[4].values[broadcast_offset(&tensors[4].t, coordinates)];
            a = s / sqrt(v + (double)c->epsilon);
            y = dml_test_fused_activation(c->activation, (x - m) * a + b, &slope);
            tolerance = dml_test_sum_tolerance(type, DML_EXECUTION_FLAG_NONE, 4,
                    (fabs(x) + fabs(m)) * fabs(a) + fabs(b), y, slope);
            got = dml_test_read_float(bytes, type, dml_test_element_offset(&out, i));
            if (!check_value(got, y, tolerance))
                fail_msg("%s (%s): element %u = %.9g, expected %.9g (tolerance %.3g; x %g mean %g var %g)", c->name,
                        dml_test_type_name(type), (unsigned int)i, got, y, tolerance, x, m, v);
        }
        release_last(output.buffer);
    }
    free(bytes);
    dml_test_release_bindings(owned, 5);
    dml_test_release_bindings(inputs, 5);
    if (persistent)
        release_last(persistent);
    release_last(compiled);
    for (p = 0; p < 5; ++p)
        dml_test_float_tensor_cleanup(&tensors[p]);
    assert_no_log_errors();
}

static void test_batch_norm(void **state)
{
    static const struct bn_case cases[] =
    {
        {"channels, odd rows", 4, {2, 3, 5, 7}, PARAMS_CHANNEL, .epsilon = 1e-5f},
        {"channels, vector rows", 4, {2, 5, 4, 8}, PARAMS_CHANNEL, .epsilon = 0.5f},
        {"not spatial", 4, {3, 4, 3, 8}, PARAMS_ELEMENT, .epsilon = 1e-3f},
        {"rank 1 scalar", 1, {1000}, PARAMS_SCALAR, .epsilon = 1e-5f},
        {"rank 1 elements", 1, {33}, PARAMS_ELEMENT, .epsilon = 1e-2f},
        {"rank 8 mixed", 8, {2, 3, 1, 2, 1, 3, 2, 5}, PARAMS_MIXED, .epsilon = 1e-5f},
        {"5-D", 5, {2, 3, 2, 3, 4}, PARAMS_CHANNEL, .epsilon = 1e-5f},
        {"padded rows", 4, {2, 3, 4, 8}, PARAMS_CHANNEL, true, .epsilon = 1e-5f},
        {"padded parameters", 4, {2, 7, 3, 5}, PARAMS_CHANNEL, .padded_params = true, .epsilon = 1e-5f},
        {"0-stride parameters", 4, {2, 3, 4, 4}, PARAMS_ZERO_STRIDES, .epsilon = 1e-5f},
        {"owned", 4, {2, 6, 3, 8}, PARAMS_MIXED, .owned = true, .epsilon = 1e-5f},
        {"long rows", 4, {1, 3, 33, 40}, PARAMS_CHANNEL, .epsilon = 0.0f},
        {"special values", 4, {1, 2, 3, 8}, PARAMS_CHANNEL, .epsilon = 1e-5f, .special = true},
        {"special values, scalar path", 4, {1, 2, 3, 7}, PARAMS_CHANNEL, .epsilon = 1e-5f, .special = true},
    };
    static const DML_TENSOR_DATA_TYPE types[] = {F32, F16};
    size_t i, t;

    for (t = 0; t < ARRAY_SIZE(types); ++t)
    {
        for (i = 0; i < ARRAY_SIZE(cases); ++i)
            run_bn_case(*state, &cases[i], types[t]);
    }
}

static void test_batch_norm_activations(void **state)
{
    const DML_OPERATOR_DESC *activations[] =
    {
        &dml_test_relu, &dml_test_sigmoid, &dml_test_tanh, &dml_test_leaky_relu, &dml_test_elu, &dml_test_linear,
        &dml_test_hard_sigmoid,
    };
    struct bn_case c = {"activation", 4, {2, 3, 2, 8}, PARAMS_CHANNEL, .epsilon = 1e-5f};
    size_t i;

    for (i = 0; i < ARRAY_SIZE(activations); ++i)
    {
        c.activation = activations[i];
        run_bn_case(*state, &c, i % 2 ? F16 : F32);
    }
}

static void test_batch_norm_invalid(void **state)
{
    static const UINT sizes[4] = {2, 3, 4, 5}, channel[4] = {1, 3, 1, 1};
    struct dml_test_context *context = *state;
    DML_BATCH_NORMALIZATION_OPERATOR_DESC desc;
    struct dml_test_tensor in, mean, variance, scale, bias, out;
    struct dml_test_tensor *tensors[] = {&in, &mean, &variance, &scale, &bias, &out};
    DML_ELEMENT_WISE_CLIP_OPERATOR_DESC clip = {NULL, NULL, NULL, 0.0f, 1.0f};
    DML_OPERATOR_DESC clip_desc = {DML_OPERATOR_ELEMENT_WISE_CLIP, &clip};

    dml_test_tensor_init(&in, F32, 4, sizes, NULL);
    dml_test_tensor_init(&mean, F32, 4, channel, NULL);
    dml_test_tensor_init(&variance, F32, 4, channel, NULL);
    dml_test_tensor_init(&scale, F32, 4, channel, NULL);
    dml_test_tensor_init(&bias, F32, 4, sizes, NULL);
    dml_test_tensor_init(&out, F32, 4, sizes, NULL);
    memset(&desc, 0, sizeof(desc));
    desc.InputTensor = &in.desc;
    desc.MeanTensor = &mean.desc;
    desc.VarianceTensor = &variance.desc;
    desc.ScaleTensor = &scale.desc;
    desc.BiasTensor = &bias.desc;
    desc.OutputTensor = &out.desc;
    desc.Spatial = TRUE;
    check_hr(dml_test_try_create(context, BATCH_NORM, &desc, tensors, 6), S_OK);
    assert_no_log_errors();
    variance.sizes[1] = 2;
    dml_test_check_bad(dml_test_try_create(context, BATCH_NORM, &desc, tensors, 6),
            "VarianceTensor.Sizes[1]=2 must be 1 or InputTensor.Sizes[1]=3");
    variance.sizes[1] = 3;
    out.sizes[3] = 6;
    dml_test_check_bad(dml_test_try_create(context, BATCH_NORM, &desc, tensors, 6),
            "OutputTensor.Sizes[3]=6 must equal InputTensor.Sizes[3]=5");
    out.sizes[3] = 5;
    desc.FusedActivation = &clip_desc;
    dml_test_check_bad(dml_test_try_create(context, BATCH_NORM, &desc, tensors, 6), "ELEMENT_WISE_CLIP");
    vkdml_test_log_reset();
    desc.FusedActivation = NULL;

    /* The page's "Tensor constraints": one DataType and one DimensionCount for all six tensors. */
    mean.buffer.DataType = DML_TENSOR_DATA_TYPE_FLOAT16;
    check_hr(dml_test_try_create(context, BATCH_NORM, &desc, tensors, 6), E_INVALIDARG);
    assert_int_equal(vkdml_test_log_counts()->errors, 1);
    vkdml_test_log_reset();
    dml_test_tensor_init(&mean, F32, 2, (const UINT[]){1, 3}, NULL);
    check_hr(dml_test_try_create(context, BATCH_NORM, &desc, tensors, 6), E_INVALIDARG);
    assert_int_equal(vkdml_test_log_counts()->errors, 1);
    vkdml_test_log_reset();
}

/* ---- LOCAL_RESPONSE_NORMALIZATION ---- */

struct lrn_case
{
    const char *name;
    UINT sizes[4];
    bool cross_channel;
    UINT local_size;
    float alpha, beta, bias;
    bool padded, special;
};

static void run_lrn_case(struct dml_test_context *context, const struct lrn_case *c, DML_TENSOR_DATA_TYPE type)
{
    DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC desc;
    struct dml_test_binding input = {NULL}, output = {NULL};
    const struct dml_test_float_tensor *pointers[1];
    struct dml_test_float_tensor in;
    UINT strides[4], n, k, h, w, lo[3], hi[3], at[4], terms;
    IDMLCompiledOperator *compiled;
    struct dml_test_tensor out;
    double sum, x, y, tolerance;
    uint8_t *bytes;
    size_t index;
    float got;

    if (dml_test_skip_float16(context, type, c->name))
        return;
    if (c->padded)
        padded_strides(4, c->sizes, 2, strides);
    dml_test_float_tensor_init(&in, type, 4, c->sizes, c->padded ? strides : NULL, DML_TENSOR_FLAG_NONE, 7);
    if (c->special)
        set_special(&in);
    dml_test_tensor_init(&out, type, 4, c->sizes, NULL);
    desc.InputTensor = &in.t.desc;
    desc.OutputTensor = &out.desc;
    desc.CrossChannel = c->cross_channel;
    desc.LocalSize = c->local_size;
    desc.Alpha = c->alpha;
    desc.Beta = c->beta;
    desc.Bias = c->bias;
    compiled = dml_test_compile(context, LRN, &desc, DML_EXECUTION_FLAG_NONE);
    pointers[0] = &in;
    dml_test_create_input_buffers(context, pointers, 1, &input, NULL);
    output.buffer = dml_test_create_buffer(context, out.buffer.TotalTensorSizeInBytes, NULL);
    dml_test_run(context, compiled, &input, 1, &output, 1);
    bytes = malloc(out.buffer.TotalTensorSizeInBytes);
    assert_non_null(bytes);
    dml_test_read_buffer(context, output.buffer, 0, bytes, out.buffer.TotalTensorSizeInBytes);
    for (n = 0; n < c->sizes[0]; ++n)
    for (k = 0; k < c->sizes[1]; ++k)
    for (h = 0; h < c->sizes[2]; ++h)
    for (w = 0; w < c->sizes[3]; ++w)
    {
        UINT centre[3] = {k, h, w}, d;

        /* The window: (LocalSize - 1) / 2 before, LocalSize / 2 after, clipped. */
        for (d = 0; d < 3; ++d)
        {
            bool summed = c->cross_channel ? d == 0 : d > 0;
            UINT before = summed ? (c->local_size - 1) / 2 : 0, after = summed ? c->local_size / 2 : 0;

            lo[d] = centre[d] >= before ? centre[d] - before : 0;
            hi[d] = centre[d] + after < c->sizes[d + 1] ? centre[d] + after : c->sizes[d + 1] - 1;
        }
        sum = 0.0;
        terms = 0;
        at[0] = n;
        for (at[1] = lo[0]; at[1] <= hi[0]; ++at[1])
        for (at[2] = lo[1]; at[2] <= hi[1]; ++at[2])
        for (at[3] = lo[2]; at[3] <= hi[2]; ++at[3])
        {
            x = in.values[broadcast_offset(&in.t, at)];
            sum += x * x;
            ++terms;
        }
        at[1] = k, at[2] = h, at[3] = w;
        x = in.values[broadcast_offset(&in.t, at)];
        y = x / pow(c->bias + c->alpha / c->local_size * sum, c->beta);
        /* The sum's error, raised to Beta, and exp2(log2()) of the power. */
        tolerance = dml_test_sum_tolerance(type, DML_EXECUTION_FLAG_NONE, terms, fabs(y * c->beta), y, 1.0)
                + fabs(y) * 4e-6;
        index = ((n * c->sizes[1] + k) * c->sizes[2] + h) * c->sizes[3] + w;
        got = dml_test_read_float(bytes, type, index);
        if (!check_value(got, y, tolerance))
            fail_msg("%s (%s): output[%u][%u][%u][%u] = %.9g, expected %.9g (tolerance %.3g)", c->name,
                    dml_test_type_name(type), n, k, h, w, got, y, tolerance);
    }
    free(bytes);
    release_last(output.buffer);
    dml_test_release_bindings(&input, 1);
    release_last(compiled);
    dml_test_float_tensor_cleanup(&in);
    assert_no_log_errors();
}

static void test_lrn(void **state)
{
    static const struct lrn_case cases[] =
    {
        {"across, 5", {2, 7, 3, 5}, true, 5, 1e-4f, 0.75f, 1.0f},
        {"across, 4 (even)", {1, 9, 2, 33}, true, 4, 0.5f, 0.75f, 1.0f},
        {"across, 1", {1, 3, 2, 2}, true, 1, 2.0f, 0.5f, 2.0f},
        {"across, wider than C", {2, 3, 1, 7}, true, 8, 1.0f, 1.0f, 0.5f},
        {"within, 3", {2, 2, 5, 6}, false, 3, 0.3f, 0.75f, 1.0f},
        {"within, 2 (even)", {1, 3, 4, 7}, false, 2, 1.0f, 0.6f, 1.5f},
        {"within, long rows", {1, 1, 3, 300}, false, 5, 1.0f, 0.75f, 1.0f},
        {"within, wider than H and W", {2, 3, 4, 3}, false, 9, 0.5f, 0.75f, 1.0f},
        {"across, tiles of channels", {2, 19, 5, 9}, true, 7, 0.5f, 0.75f, 1.0f},
        {"padded input, beta 0", {2, 5, 3, 4}, true, 3, 1.0f, 0.0f, 1.0f, true},
        {"special values", {1, 4, 3, 8}, true, 3, 1.0f, 0.75f, 1.0f, .special = true},
        /* DirectML sets no upper bound on LocalSize: windows too long to unroll. */
        {"across, 1001", {1, 5, 2, 3}, true, 1001, 1.0f, 0.75f, 1.0f},
        {"across, 66 (even)", {1, 70, 1, 3}, true, 66, 0.5f, 0.75f, 1.0f},
        {"within, 65", {1, 2, 5, 6}, false, 65, 1.0f, 0.75f, 1.0f},
        {"within, 10 (even)", {1, 2, 13, 12}, false, 10, 1.0f, 0.75f, 1.0f},
    };
    static const DML_TENSOR_DATA_TYPE types[] = {F32, F16};
    size_t i, t;

    for (t = 0; t < ARRAY_SIZE(types); ++t)
    {
        for (i = 0; i < ARRAY_SIZE(cases); ++i)
            run_lrn_case(*state, &cases[i], types[t]);
    }
}

static void test_lrn_invalid(void **state)
{
    static const UINT sizes[4] = {2, 3, 4, 5};
    struct dml_test_context *context = *state;
    DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC desc;
    struct dml_test_tensor in, out;
    struct dml_test_tensor *tensors[] = {&in, &out};

    dml_test_tensor_init(&in, F32, 4, sizes, NULL);
    dml_test_tensor_init(&out, F32, 4, sizes, NULL);
    memset(&desc, 0, sizeof(desc));
    desc.InputTensor = &in.desc;
    desc.OutputTensor = &out.desc;
    desc.LocalSize = 3;
    desc.Alpha = 1.0f;
    desc.Beta = 0.75f;
    desc.Bias = 1.0f;
    check_hr(dml_test_try_create(context, LRN, &desc, tensors, 2), S_OK);
    assert_no_log_errors();
    desc.LocalSize = 0;
    dml_test_check_bad(dml_test_try_create(context, LRN, &desc, tensors, 2), "LocalSize=0 must be at least 1");
    desc.LocalSize = 3;
    out.sizes[2] = 3;
    dml_test_check_bad(dml_test_try_create(context, LRN, &desc, tensors, 2),
            "OutputTensor.Sizes[2]=3 must equal InputTensor.Sizes[2]=4");
    vkdml_test_log_reset();

    /* The page's "Tensor support": 4 dimensions, FLOAT32 or FLOAT16, one DataType. */
    dml_test_tensor_init(&in, F32, 5, (const UINT[]){2, 3, 4, 5, 1}, NULL);
    dml_test_tensor_init(&out, F32, 5, (const UINT[]){2, 3, 4, 5, 1}, NULL);
    check_hr(dml_test_try_create(context, LRN, &desc, tensors, 2), E_INVALIDARG);
    assert_int_equal(vkdml_test_log_counts()->errors, 1);
    vkdml_test_log_reset();
    dml_test_tensor_init(&in, F32, 4, sizes, NULL);
    dml_test_tensor_init(&out, F16, 4, sizes, NULL);
    check_hr(dml_test_try_create(context, LRN, &desc, tensors, 2), E_INVALIDARG);
    assert_int_equal(vkdml_test_log_counts()->errors, 1);
    vkdml_test_log_reset();
    dml_test_tensor_init(&in, DML_TENSOR_DATA_TYPE_INT32, 4, sizes, NULL);
    dml_test_tensor_init(&out, DML_TENSOR_DATA_TYPE_INT32, 4, sizes, NULL);
    check_hr(dml_test_try_create(context, LRN, &desc, tensors, 2), E_INVALIDARG);
    assert_int_equal(vkdml_test_log_counts()->errors, 1);
    vkdml_test_log_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_batch_norm, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_batch_norm_activations, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_batch_norm_invalid, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_lrn, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_lrn_invalid, dml_test_setup, dml_test_teardown),
    };

    /* Logging first: it keeps the Vulkan driver loaded for LeakSanitizer (test_utils.c). */
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
