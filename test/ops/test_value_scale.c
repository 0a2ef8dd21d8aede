/*
 * DML_OPERATOR_VALUE_SCALE_2D through the public API against a C reference (fp32 arithmetic as
 * written, FLOAT16 rounded once at the store): FLOAT32 and FLOAT16, 1 and 3 channels, planes
 * that hold whole 16-byte vectors (the vector path) and odd ones, padded and broadcast (0-stride)
 * tensors, NaN and infinities, an OWNED_BY_DML input; then the desc rules, with their error code
 * and log line.
 */
#include <inttypes.h>
#include <math.h>

#include "dml_test_utils.h"

struct value_scale_case
{
    DML_TENSOR_DATA_TYPE type;
    UINT sizes[4], in_strides[4], out_strides[4];
    bool in_strided, out_strided;
    float scale, bias[3];
};

static void store_value(uint8_t *bytes, DML_TENSOR_DATA_TYPE type, uint64_t index, float value)
{
    uint16_t half;

    if (type == DML_TENSOR_DATA_TYPE_FLOAT16)
        half = ref_float_to_half(value), memcpy(bytes + index * 2, &half, 2);
    else
        memcpy(bytes + index * 4, &value, 4);
}

static void run_case(struct dml_test_context *context, const struct value_scale_case *c)
{
    struct dml_test_binding input = {NULL}, output = {NULL};
    unsigned int size = dml_test_element_size(c->type);
    DML_VALUE_SCALE_2D_OPERATOR_DESC desc;
    struct dml_test_tensor in, out;
    IDMLCompiledOperator *compiled;
    uint8_t *in_bytes, *bytes, *expected;
    volatile float product, sum;
    uint32_t seed = 12345;
    uint64_t i, count, span;
    float x, got, want;
    size_t total;

    if (dml_test_skip_float16(context, c->type, "VALUE_SCALE_2D"))
        return;
    dml_test_tensor_init(&in, c->type, 4, c->sizes, c->in_strided ? c->in_strides : NULL);
    dml_test_tensor_init(&out, c->type, 4, c->sizes, c->out_strided ? c->out_strides : NULL);
    desc.InputTensor = &in.desc;
    desc.OutputTensor = &out.desc;
    desc.Scale = c->scale;
    desc.ChannelCount = c->sizes[1];
    desc.Bias = c->bias;
    compiled = dml_test_compile(context, DML_OPERATOR_VALUE_SCALE_2D, &desc, DML_EXECUTION_FLAG_NONE);

    /* Values in [-4, 4], with NaN and infinities among them. */
    span = in.buffer.TotalTensorSizeInBytes / size;
    in_bytes = calloc(span, size);
    assert_non_null(in_bytes);
    for (i = 0; i < span; ++i)
    {
        x = (float)(ref_random(&seed) % 2001) / 250.0f - 4.0f;
        if (i % 97 == 5)
            x = NAN;
        else if (i % 89 == 3)
            x = i % 2 ? INFINITY : -INFINITY;
        store_value(in_bytes, c->type, i, x);
    }
    input.buffer = dml_test_create_buffer(context, span * size, in_bytes);
    total = out.buffer.TotalTensorSizeInBytes;
    bytes = malloc(total);
    expected = malloc(total);
    assert_true(bytes && expected);
    memset(expected, 0xa5, total);
    dml_test_create_guarded(context, total, expected, &output);
    dml_test_run(context, compiled, &input, 1, &output, 1);
    dml_test_check_guards(context, &output);
    dml_test_read_buffer(context, output.buffer, output.offset, bytes, total);

    count = dml_test_element_count(&out);
    for (i = 0; i < count; ++i)
    {
        uint64_t channel = i / ((uint64_t)c->sizes[2] * c->sizes[3]) % c->sizes[1];

        x = dml_test_read_float(in_bytes, c->type, dml_test_element_offset(&in, i));
        product = c->scale * x;
        sum = product + c->bias[channel];
        store_value(expected, c->type, dml_test_element_offset(&out, i), sum);
    }
    for (i = 0; i < total / size; ++i)
    {
        got = dml_test_read_float(bytes, c->type, i);
        want = dml_test_read_float(expected, c->type, i);
        if (memcmp(bytes + i * size, expected + i * size, size) && !(isnan(got) && isnan(want)))
            fail_msg("%s {%u,%u,%u,%u}: element %" PRIu64 " = %.9g, expected %.9g", dml_test_type_name(c->type),
                    c->sizes[0], c->sizes[1], c->sizes[2], c->sizes[3], i, got, want);
    }
    free(in_bytes);
    free(bytes);
    free(expected);
    release_last(output.buffer);
    release_last(input.buffer);
    release_last(compiled);
    assert_no_log_errors();
}

static void test_value_scale(void **state)
{
    static const DML_TENSOR_DATA_TYPE types[] = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16};
    struct value_scale_case c;
    size_t t;

    for (t = 0; t < ARRAY_SIZE(types); ++t)
    {
        /* RGB planes of 40 x 33 (whole vectors in both types), several workgroups. */
        memset(&c, 0, sizeof(c));
        c.type = types[t];
        c.sizes[0] = 2, c.sizes[1] = 3, c.sizes[2] = 40, c.sizes[3] = 33;
        c.scale = 1.0f / 255.0f;
        c.bias[0] = -0.485f, c.bias[1] = -0.456f, c.bias[2] = 0.406f;
        run_case(*state, &c);
        /* Odd planes (7 x 5): element by element. */
        c.sizes[2] = 7, c.sizes[3] = 5;
        c.scale = -2.5f;
        run_case(*state, &c);
        /* One channel, planes of 1 x 1000 (vectors), and of 1 x 1. */
        c.sizes[0] = 3, c.sizes[1] = 1, c.sizes[2] = 1, c.sizes[3] = 1000;
        c.scale = 3.0f;
        c.bias[0] = 100.0f;
        run_case(*state, &c);
        c.sizes[0] = 7, c.sizes[3] = 1;
        run_case(*state, &c);
        /* A padded output over a broadcast input (one row for every row and batch). */
        c.sizes[0] = 2, c.sizes[1] = 3, c.sizes[2] = 4, c.sizes[3] = 33;
        c.bias[0] = 1.0f, c.bias[1] = -1.0f, c.bias[2] = 0.5f;
        c.in_strided = true;
        c.in_strides[0] = 0, c.in_strides[1] = 33, c.in_strides[2] = 0, c.in_strides[3] = 1;
        c.out_strided = true;
        c.out_strides[0] = 3 * 4 * 40 + 8, c.out_strides[1] = 4 * 40, c.out_strides[2] = 40, c.out_strides[3] = 1;
        run_case(*state, &c);
    }
}

/* An OWNED_BY_DML input: read from the persistent resource, the upload buffer overwritten. */
static void test_owned_input(void **state)
{
    static const UINT sizes[4] = {2, 3, 4, 9};
    static const float bias[3] = {0.5f, -1.0f, 2.0f};
    struct dml_test_binding inputs[1] = {{NULL}}, owned[1] = {{NULL}}, output = {NULL};
    struct dml_test_context *context = *state;
    const struct dml_test_float_tensor *tensors[1];
    DML_VALUE_SCALE_2D_OPERATOR_DESC desc;
    struct dml_test_float_tensor in;
    IDMLCompiledOperator *compiled;
    ID3D12Resource *persistent;
    struct dml_test_tensor out;
    volatile float product, sum;
    float values[2 * 3 * 4 * 9];
    size_t i;

    dml_test_float_tensor_init(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 4, sizes, NULL, DML_TENSOR_FLAG_OWNED_BY_DML, 7);
    dml_test_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, sizes, NULL);
    desc.InputTensor = &in.t.desc;
    desc.OutputTensor = &out.desc;
    desc.Scale = 3.0f;
    desc.ChannelCount = 3;
    desc.Bias = bias;
    compiled = dml_test_compile(context, DML_OPERATOR_VALUE_SCALE_2D, &desc, DML_EXECUTION_FLAG_NONE);
    tensors[0] = &in;
    dml_test_create_input_buffers(context, tensors, 1, inputs, owned);
    persistent = dml_test_initialize(context, compiled, owned, 1);
    dml_test_scribble_owned(owned, tensors, 1);
    output.buffer = dml_test_create_buffer(context, sizeof(values), NULL);
    dml_test_execute(context, compiled, persistent, inputs, 1, &output, 1);
    dml_test_read_buffer(context, output.buffer, 0, values, sizeof(values));
    for (i = 0; i < ARRAY_SIZE(values); ++i)
    {
        product = 3.0f * in.values[i];
        sum = product + bias[i / 36 % 3];
        if (values[i] != sum)
            fail_msg("element %zu = %.9g, expected %.9g", i, values[i], sum);
    }
    dml_test_release_bindings(owned, 1);
    dml_test_release_bindings(inputs, 1);
    release_last(output.buffer);
    if (persistent)
        release_last(persistent);
    release_last(compiled);
    dml_test_float_tensor_cleanup(&in);
    assert_no_log_errors();
}

static void test_invalid(void **state)
{
    static const UINT sizes[4] = {1, 3, 2, 5};
    static const float bias[4] = {1, 2, 3, 4};
    struct dml_test_context *context = *state;
    DML_VALUE_SCALE_2D_OPERATOR_DESC desc;
    struct dml_test_tensor in, out;
    struct dml_test_tensor *tensors[] = {&in, &out};

    dml_test_tensor_init(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 4, sizes, NULL);
    dml_test_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 4, sizes, NULL);
    desc.InputTensor = &in.desc;
    desc.OutputTensor = &out.desc;
    desc.Scale = 2.0f;
    desc.ChannelCount = 3;
    desc.Bias = bias;
    check_hr(dml_test_try_create(context, DML_OPERATOR_VALUE_SCALE_2D, &desc, tensors, 2), S_OK);
    assert_no_log_errors();
    desc.ChannelCount = 2;
    in.sizes[1] = out.sizes[1] = 2;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_VALUE_SCALE_2D, &desc, tensors, 2),
            "ChannelCount=2 must be 1 or 3");
    desc.ChannelCount = 1;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_VALUE_SCALE_2D, &desc, tensors, 2),
            "ChannelCount=1 must equal InputTensor.Sizes[1]=2");
    in.sizes[1] = out.sizes[1] = 1;
    out.sizes[3] = 4;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_VALUE_SCALE_2D, &desc, tensors, 2),
            "OutputTensor.Sizes[3]=4 must equal InputTensor.Sizes[3]=5");
    vkdml_test_log_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_value_scale, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_owned_input, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_invalid, dml_test_setup, dml_test_teardown),
    };

    /* Logging first: it keeps the Vulkan driver loaded for LeakSanitizer (test_utils.c). */
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
