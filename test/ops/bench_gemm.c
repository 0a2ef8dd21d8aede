/*
 * GEMM speed through the public API (shim D3D12 device, DirectML), for GPU runs; not a test
 * (meson builds it, `meson test` does not run it).
 *
 *     bench_gemm [TYPE:M:N:K[:KERNEL[:TUNE]] ...]
 *
 * TYPE f32 or f16; KERNEL auto, general, tiled, coopmat or gemv (VKDML_GEMM_KERNEL); TUNE is
 * VKDML_GEMM_TUNE ("tile_m,tile_n,tile_k,stages,group_m", 0 for the default). Without arguments,
 * the shapes. Packed row-major A {M, K}, B {K, N}, no C, random data in [-1, 1].
 *
 * Timing: the shim has no timestamp queries yet, so each figure is wall clock around
 * ExecuteCommandLists + fence wait of one command list holding R dispatches, each followed by a UAV
 * barrier (dependent GEMMs, as in a network). The list is timed with R and 2R dispatches, three
 * times each, after a warm-up; the time per GEMM is the median of (T(2R) - T(R)) / R, which cancels
 * the submission and wake-up cost. R is chosen so that T(R) is about 25 ms. A spot check of 64
 * outputs against a double-precision reference guards against timing a wrong kernel.
 */
#include <math.h>

#include "bench_utils.h"

struct config
{
    DML_TENSOR_DATA_TYPE type;
    UINT m, n, k;
    const char *kernel, *tune;
};

/* Largest |got - expected| / (sum of |products|) over 64 outputs. */
static double spot_check(struct dml_test_context *context, const struct config *c, ID3D12Resource *output,
        const float *a, const float *b)
{
    size_t bytes = (size_t)c->m * c->n * dml_test_element_size(c->type);
    void *data = malloc(bytes);
    uint32_t random = 12345;
    double worst = 0.0;
    unsigned int i, k;

    assert_non_null(data);
    dml_test_read_buffer(context, output, 0, data, bytes);
    for (i = 0; i < 64; ++i)
    {
        UINT m = ref_random(&random) % c->m, n = ref_random(&random) % c->n;
        size_t index = (size_t)m * c->n + n;
        double sum = 0.0, magnitude = 0.0, got;

        for (k = 0; k < c->k; ++k)
        {
            sum += (double)a[(size_t)m * c->k + k] * b[(size_t)k * c->n + n];
            magnitude += fabs((double)a[(size_t)m * c->k + k] * b[(size_t)k * c->n + n]);
        }
        got = dml_test_read_float(data, c->type, index);
        worst = fmax(worst, isnan(got) ? INFINITY : fabs(got - sum) / fmax(magnitude, 1e-30));
    }
    free(data);
    return worst;
}

static void bench(struct dml_test_context *context, const struct config *c)
{
    UINT a_sizes[2] = {c->m, c->k}, b_sizes[2] = {c->k, c->n}, out_sizes[2] = {c->m, c->n};
    struct dml_test_tensor a, b, out;
    DML_GEMM_OPERATOR_DESC desc = {&a.desc, &b.desc, NULL, &out.desc, DML_MATRIX_TRANSFORM_NONE,
            DML_MATRIX_TRANSFORM_NONE, 1.0f, 0.0f, NULL};
    IDMLCompiledOperator *compiled = NULL;
    ID3D12Resource *buffers[3], *persistent, *temporary;
    IDMLBindingTable *table;
    void *a_bytes, *b_bytes;
    float *a_values, *b_values;
    double seconds, error;
    IDMLOperator *op;
    HRESULT hr;
    int i;

    dml_test_set_knob(context, "VKDML_GEMM_KERNEL", c->kernel);
    dml_test_set_knob(context, "VKDML_GEMM_TUNE", c->tune);
    dml_test_tensor_init(&a, c->type, 2, a_sizes, NULL);
    dml_test_tensor_init(&b, c->type, 2, b_sizes, NULL);
    dml_test_tensor_init(&out, c->type, 2, out_sizes, NULL);
    check_hr(dml_test_create_operator(context, DML_OPERATOR_GEMM, &desc, &op), S_OK);
    hr = IDMLDevice_CompileOperator(context->dml, op, DML_EXECUTION_FLAG_NONE, &IID_IDMLCompiledOperator,
            (void **)&compiled);
    /* The compiled operator keeps its own reference. */
    IDMLOperator_Release(op);
    if (hr == E_NOTIMPL)
    {
        printf("%s %ux%ux%u %s %s: not available\n", dml_test_type_name(c->type), c->m, c->n, c->k,
                c->kernel ? c->kernel : "auto", c->tune ? c->tune : "-");
        vkdml_test_log_reset();
        return;
    }
    check_hr(hr, S_OK);
    persistent = dml_test_initialize(context, compiled, NULL, 0);

    a_values = bench_random_values(c->type, (size_t)c->m * c->k, 1, &a_bytes);
    b_values = bench_random_values(c->type, (size_t)c->k * c->n, 2, &b_bytes);
    buffers[0] = dml_test_create_buffer(context, a.buffer.TotalTensorSizeInBytes, a_bytes);
    buffers[1] = dml_test_create_buffer(context, b.buffer.TotalTensorSizeInBytes, b_bytes);
    buffers[2] = dml_test_create_buffer(context, out.buffer.TotalTensorSizeInBytes, NULL);
    free(a_bytes);
    free(b_bytes);
    table = bench_bind_two_inputs(context, compiled, buffers, &temporary);

    seconds = bench_time_per_dispatch(context, compiled, table);
    error = spot_check(context, c, buffers[2], a_values, b_values);
    printf("%s %ux%ux%u %s %s: %.4f ms, %.2f TFLOP/s, spot-check error %.2g\n", dml_test_type_name(c->type),
            c->m, c->n, c->k, c->kernel ? c->kernel : "auto", c->tune ? c->tune : "-", seconds * 1e3,
            2.0 * c->m * c->n * c->k / seconds * 1e-12, error);
    fflush(stdout);

    release_last(table);
    if (temporary)
        release_last(temporary);
    for (i = 0; i < 3; ++i)
        release_last(buffers[i]);
    if (persistent)
        release_last(persistent);
    release_last(compiled);
    free(a_values);
    free(b_values);
}

static struct config *configs;
static unsigned int config_count;

static void run(void **state)
{
    unsigned int i;

    for (i = 0; i < config_count; ++i)
        bench(*state, &configs[i]);
}

/* "f32:4096:4096:4096[:kernel[:tune]]"; the strings stay in argv. */
static bool parse_config(char *text, struct config *c)
{
    char *type = strtok(text, ":"), *m = strtok(NULL, ":"), *n = strtok(NULL, ":"), *k = strtok(NULL, ":");

    if (!type || !m || !n || !k || (strcmp(type, "f32") && strcmp(type, "f16")))
        return false;
    c->type = strcmp(type, "f32") ? DML_TENSOR_DATA_TYPE_FLOAT16 : DML_TENSOR_DATA_TYPE_FLOAT32;
    c->m = atoi(m), c->n = atoi(n), c->k = atoi(k);
    c->kernel = strtok(NULL, ":");
    c->tune = strtok(NULL, ":");
    return c->m && c->n && c->k;
}

int main(int argc, char **argv)
{
    static char defaults[][32] =
    {
        "f32:4096:4096:4096", "f32:4096:4096:4096:general", "f16:4096:4096:4096", "f16:4096:4096:4096:general",
        "f32:64:64:64", "f32:64:64:64:general", "f16:64:64:64", "f16:64:64:64:general",
    };
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(run, dml_test_setup, dml_test_teardown),
    };
    unsigned int i, count = argc > 1 ? (unsigned int)argc - 1 : (unsigned int)ARRAY_SIZE(defaults);

    configs = calloc(count, sizeof(*configs));
    for (i = 0; i < count; ++i)
    {
        if (!parse_config(argc > 1 ? argv[i + 1] : defaults[i], &configs[config_count++]))
        {
            fprintf(stderr, "bench_gemm: bad configuration %s (want TYPE:M:N:K[:KERNEL[:TUNE]])\n", argv[i + 1]);
            return 2;
        }
    }
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
