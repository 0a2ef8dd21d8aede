/*
 * DML_OPERATOR_GEMM through the public API (shim D3D12 device, DMLCreateDevice, CreateOperator,
 * CompileOperator, an initializer, binding tables, RecordDispatch), checked against a C reference
 * that accumulates in double: shapes from 1x1x1 to several tiles, ranks 2-4, batches, TransA and
 * TransB, padded / column-major / 0-stride (broadcast) layouts, C and Alpha/Beta, fused
 * activations, FLOAT32 and FLOAT16 (with and without half-precision math), and inputs flagged
 * DML_TENSOR_FLAG_OWNED_BY_DML, bound only to the initializer from an UPLOAD heap: the upload
 * buffers are overwritten after initialization and the operator must still give the same result.
 * The fast kernels run the same checks through VKDML_GEMM_KERNEL (backend_vk/ops/gemm.c): the
 * fp32 register-tiled kernel on every device (its own layouts, then the cases above), the fp16
 * cooperative-matrix kernel where the device has VK_NV_cooperative_matrix (skipped elsewhere,
 * lavapipe included). A forced kernel that cannot run a case fails its compilation, and so the test.
 * Split-K on the tiled kernel: large K over few tiles split by shape, then forced splits
 * (VKDML_GEMM_TUNE's split_k: uneven parts, more parts than slabs) over its load and store paths,
 * each checked against compilation's TRACE line; the cooperative-matrix kernel's tunings split too.
 * The GEMV kernel (M or N at most 8) runs every small side as M and as N over K = 1, 7, 300 and
 * 1000 and every TransA/TransB pair, then batches, broadcasts (C by rows and by columns), Alpha and
 * Beta, activations, FLOAT16 with and without half-precision math, OWNED_BY_DML weights and padded
 * layouts, each case chosen by its shape and then forced, the kernel checked against compilation's
 * TRACE line; the general kernel runs the small-side cases it no longer gets by default.
 * Then the desc rules, each with E_INVALIDARG and its log line. Every test ends with every
 * object's final Release returning 0 and no validation message.
 */
#include <math.h>

#include "dml_test_utils.h"

#define GEMM_INPUTS 3               /* A, B, C: C is bound (as NONE) even when absent */

/* ---- Tensors ---- */

enum layout
{
    LAYOUT_PACKED,                  /* Strides NULL */
    LAYOUT_PADDED,                  /* rows and batches padded with unused elements */
    LAYOUT_COLUMN_MAJOR,            /* the last two dimensions stored transposed */
    LAYOUT_BATCH_BROADCAST,         /* 0-strides over both batch dimensions */
    LAYOUT_ROW_BROADCAST,           /* 0-strides over batches and rows: a bias row (C) */
    LAYOUT_COLUMN_BROADCAST,        /* 0-strides over batches and columns: one value per row (C) */
    LAYOUT_SCALAR,                  /* every stride 0 */
};

struct tensor
{
    UINT sizes[4], strides[4];      /* 4-D, leading dimensions of size 1 when rank < 4 */
    struct dml_test_float_tensor data;  /* the desc (the last `rank` dimensions) and the values */
};

static void layout_strides(enum layout layout, const UINT sizes[4], UINT strides[4])
{
    UINT rows = sizes[2], columns = sizes[3];

    switch (layout)
    {
        case LAYOUT_PACKED:
        case LAYOUT_BATCH_BROADCAST:
            strides[3] = 1, strides[2] = columns;
            break;
        case LAYOUT_PADDED:
            strides[3] = 1, strides[2] = columns + 3;
            break;
        case LAYOUT_COLUMN_MAJOR:
            strides[2] = 1, strides[3] = rows;
            break;
        case LAYOUT_ROW_BROADCAST:
            strides[3] = 1, strides[2] = 0;
            break;
        case LAYOUT_COLUMN_BROADCAST:
            strides[3] = 0, strides[2] = 1;
            break;
        case LAYOUT_SCALAR:
            strides[3] = 0, strides[2] = 0;
            break;
    }
    if (layout == LAYOUT_BATCH_BROADCAST || layout == LAYOUT_ROW_BROADCAST || layout == LAYOUT_COLUMN_BROADCAST
            || layout == LAYOUT_SCALAR)
    {
        strides[1] = strides[0] = 0;
        return;
    }
    strides[1] = rows * columns + (layout == LAYOUT_PADDED ? rows * 3 + 5 : 0);
    strides[0] = strides[1] * sizes[1] + (layout == LAYOUT_PADDED ? 7 : 0);
}

/* A tensor of logical 4-D `sizes`, described with `rank` dimensions; values in [-1, 1]. */
static void tensor_init(struct tensor *t, DML_TENSOR_DATA_TYPE type, UINT rank, const UINT sizes[4],
        enum layout layout, DML_TENSOR_FLAGS flags, unsigned int seed)
{
    UINT first = 4 - rank, i;

    memset(t, 0, sizeof(*t));
    memcpy(t->sizes, sizes, sizeof(t->sizes));
    layout_strides(layout, sizes, t->strides);
    for (i = 0; i < first; ++i)
        assert_int_equal(sizes[i], 1);
    dml_test_float_tensor_init(&t->data, type, rank, &sizes[first],
            layout == LAYOUT_PACKED ? NULL : &t->strides[first], flags, seed);
    assert_int_equal(t->data.t.buffer.TotalTensorSizeInBytes,
            (t->data.span * dml_test_element_size(type) + 3) & ~(UINT64)3);
}

static size_t tensor_index(const struct tensor *t, UINT b0, UINT b1, UINT row, UINT column)
{
    return (size_t)b0 * t->strides[0] + (size_t)b1 * t->strides[1] + (size_t)row * t->strides[2]
            + (size_t)column * t->strides[3];
}

/* ---- Test cases ---- */

#define OWN_A 0x1
#define OWN_B 0x2
#define OWN_C 0x4

struct gemm_case
{
    const char *name;
    DML_TENSOR_DATA_TYPE type;
    UINT rank;
    UINT batch0, batch1, m, n, k;
    DML_MATRIX_TRANSFORM trans_a, trans_b;
    bool has_c;
    float alpha, beta;
    enum layout a_layout, b_layout, c_layout, out_layout;
    const DML_OPERATOR_DESC *activation;
    unsigned int owned;             /* OWN_*: inputs flagged DML_TENSOR_FLAG_OWNED_BY_DML */
    DML_EXECUTION_FLAGS flags;
};

struct gemm_run
{
    const struct gemm_case *test;
    struct tensor a, b, c, out;
    float *expected;                /* [out.span] */
    double *tolerance;              /* [out.span] */
};

/* Logical element A(m, k) and B(k, n), transposes applied. */
static double a_element(const struct gemm_run *run, UINT b0, UINT b1, UINT m, UINT k)
{
    bool trans = run->test->trans_a == DML_MATRIX_TRANSFORM_TRANSPOSE;

    return run->a.data.values[tensor_index(&run->a, b0, b1, trans ? k : m, trans ? m : k)];
}

static double b_element(const struct gemm_run *run, UINT b0, UINT b1, UINT k, UINT n)
{
    bool trans = run->test->trans_b == DML_MATRIX_TRANSFORM_TRANSPOSE;

    return run->b.data.values[tensor_index(&run->b, b0, b1, trans ? n : k, trans ? k : n)];
}

static void compute_reference(struct gemm_run *run)
{
    const struct gemm_case *test = run->test;
    double sum, magnitude, value, slope;
    UINT b0, b1, m, n, k;
    size_t index;

    for (b0 = 0; b0 < test->batch0; ++b0)
    for (b1 = 0; b1 < test->batch1; ++b1)
    for (m = 0; m < test->m; ++m)
    for (n = 0; n < test->n; ++n)
    {
        for (k = 0, sum = 0.0, magnitude = 0.0; k < test->k; ++k)
        {
            double product = a_element(run, b0, b1, m, k) * b_element(run, b0, b1, k, n);

            sum += product;
            magnitude += fabs(product);
        }
        value = test->alpha * sum;
        magnitude *= fabs(test->alpha);
        if (test->has_c)
        {
            double c = run->c.data.values[tensor_index(&run->c, b0, b1, m, n)];

            value += test->beta * c;
            magnitude += fabs(test->beta * c);
        }
        value = dml_test_fused_activation(test->activation, value, &slope);
        index = tensor_index(&run->out, b0, b1, m, n);
        run->expected[index] = (float)value;
        run->tolerance[index] = dml_test_sum_tolerance(test->type, test->flags, test->k, magnitude, value, slope);
    }
}

static void gemm_run_init(struct gemm_run *run, const struct gemm_case *test)
{
    UINT a_sizes[4] = {test->batch0, test->batch1, test->m, test->k};
    UINT b_sizes[4] = {test->batch0, test->batch1, test->k, test->n};
    UINT out_sizes[4] = {test->batch0, test->batch1, test->m, test->n};
    UINT swap;

    memset(run, 0, sizeof(*run));
    run->test = test;
    if (test->trans_a == DML_MATRIX_TRANSFORM_TRANSPOSE)
        swap = a_sizes[2], a_sizes[2] = a_sizes[3], a_sizes[3] = swap;
    if (test->trans_b == DML_MATRIX_TRANSFORM_TRANSPOSE)
        swap = b_sizes[2], b_sizes[2] = b_sizes[3], b_sizes[3] = swap;
    tensor_init(&run->a, test->type, test->rank, a_sizes, test->a_layout,
            (test->owned & OWN_A) ? DML_TENSOR_FLAG_OWNED_BY_DML : 0, 1);
    tensor_init(&run->b, test->type, test->rank, b_sizes, test->b_layout,
            (test->owned & OWN_B) ? DML_TENSOR_FLAG_OWNED_BY_DML : 0, 2);
    if (test->has_c)
        tensor_init(&run->c, test->type, test->rank, out_sizes, test->c_layout,
                (test->owned & OWN_C) ? DML_TENSOR_FLAG_OWNED_BY_DML : 0, 3);
    tensor_init(&run->out, test->type, test->rank, out_sizes, test->out_layout, 0, 4);
    run->expected = calloc(run->out.data.span, sizeof(*run->expected));
    run->tolerance = calloc(run->out.data.span, sizeof(*run->tolerance));
    assert_true(run->expected && run->tolerance);
    compute_reference(run);
}

static void gemm_run_cleanup(struct gemm_run *run)
{
    dml_test_float_tensor_cleanup(&run->a.data);
    dml_test_float_tensor_cleanup(&run->b.data);
    if (run->test->has_c)
        dml_test_float_tensor_cleanup(&run->c.data);
    dml_test_float_tensor_cleanup(&run->out.data);
    free(run->expected);
    free(run->tolerance);
}

/* ---- Which kernel compilation picked: its TRACE line, captured around CompileOperator ---- */

/* When set, run_case checks that compilation picked a kernel whose registry name starts with it
 * (nothing tells when TRACE messages are compiled out: -Dtrace-messages=false), and, when
 * expected_parts is too, that it split K into that many parts. */
static const char *expected_kernel;
static unsigned int expected_parts;

/* Compiles; `kernel` receives the kernel's name and `parts` the parts of K from gemm.c's TRACE
 * line "GEMM <n> batches of {M,N,K}: <kernel>, ..., K in <parts> part(s), ..." ("" and 0 without
 * one). */
static IDMLCompiledOperator *compile_traced(struct dml_test_context *context, const DML_GEMM_OPERATOR_DESC *desc,
        DML_EXECUTION_FLAGS flags, char kernel[64], unsigned int *parts)
{
    static const char kernel_tag[] = "}: ", parts_tag[] = "K in ";
    IDMLCompiledOperator *compiled;
    const char *found;
    char trace[256];

    compiled = dml_test_compile_traced(context, DML_OPERATOR_GEMM, desc, flags, "GEMM ", trace, sizeof(trace));
    kernel[0] = 0;
    *parts = 0;
    if ((found = strstr(trace, kernel_tag)))
    {
        found += sizeof(kernel_tag) - 1;
        snprintf(kernel, 64, "%.*s", (int)strcspn(found, ","), found);
        if ((found = strstr(found, parts_tag)))
            *parts = strtoul(found + sizeof(parts_tag) - 1, NULL, 10);
    }
    return compiled;
}

static IDMLCompiledOperator *create_gemm(struct dml_test_context *context, const struct gemm_run *run)
{
    const struct gemm_case *test = run->test;
    DML_GEMM_OPERATOR_DESC desc =
    {
        &run->a.data.t.desc, &run->b.data.t.desc, test->has_c ? &run->c.data.t.desc : NULL, &run->out.data.t.desc,
        test->trans_a, test->trans_b, test->alpha, test->beta, test->activation,
    };
    IDMLCompiledOperator *compiled;
    unsigned int parts;
    char kernel[64];

    if (!expected_kernel)
        return dml_test_compile(context, DML_OPERATOR_GEMM, &desc, test->flags);
    compiled = compile_traced(context, &desc, test->flags, kernel, &parts);
    if (kernel[0] && strncmp(kernel, expected_kernel, strlen(expected_kernel)))
        fail_msg("%s: compiled for %s, expected %s", test->name, kernel, expected_kernel);
    if (kernel[0] && expected_parts && parts != expected_parts)
        fail_msg("%s: K in %u part(s), expected %u", test->name, parts, expected_parts);
    return compiled;
}

/* Compares every output element (the padding of strided outputs is not checked). */
static void check_output(struct dml_test_context *context, const struct gemm_run *run, ID3D12Resource *output,
        const char *when)
{
    const struct gemm_case *test = run->test;
    size_t size = run->out.data.t.buffer.TotalTensorSizeInBytes, index;
    void *bytes = malloc(size);
    UINT b0, b1, m, n;
    float got;

    assert_non_null(bytes);
    dml_test_read_buffer(context, output, 0, bytes, size);
    for (b0 = 0; b0 < test->batch0; ++b0)
    for (b1 = 0; b1 < test->batch1; ++b1)
    for (m = 0; m < test->m; ++m)
    for (n = 0; n < test->n; ++n)
    {
        index = tensor_index(&run->out, b0, b1, m, n);
        got = dml_test_read_float(bytes, test->type, index);
        if (!(fabs((double)got - run->expected[index]) <= run->tolerance[index]))
            fail_msg("%s (%s): output[%u][%u][%u][%u] = %.9g, expected %.9g (tolerance %.3g)", test->name, when,
                    b0, b1, m, n, got, run->expected[index], run->tolerance[index]);
    }
    free(bytes);
}

static void run_case(struct dml_test_context *context, const struct gemm_case *test)
{
    struct dml_test_binding inputs[GEMM_INPUTS] = {{NULL}}, owned[GEMM_INPUTS] = {{NULL}}, output = {NULL};
    const struct dml_test_float_tensor *tensors[GEMM_INPUTS];
    IDMLCompiledOperator *compiled;
    ID3D12Resource *persistent;
    struct gemm_run run;

    if (dml_test_skip_float16(context, test->type, test->name))
        return;
    gemm_run_init(&run, test);
    tensors[0] = &run.a.data, tensors[1] = &run.b.data, tensors[2] = test->has_c ? &run.c.data : NULL;
    compiled = create_gemm(context, &run);
    if (test->owned)
        assert_true(IDMLDispatchable_GetBindingPropertiesByValue((IDMLDispatchable *)compiled)
                .PersistentResourceSize > 0);

    /* OWNED_BY_DML inputs exist only in upload buffers bound to the initializer (the other
     * entries of its BUFFER_ARRAY stay empty) and are NONE at execute; the others live in
     * DEFAULT buffers bound at execute. */
    dml_test_create_input_buffers(context, tensors, GEMM_INPUTS, inputs, owned);
    persistent = dml_test_initialize(context, compiled, owned, GEMM_INPUTS);

    output.buffer = dml_test_create_buffer(context, run.out.data.t.buffer.TotalTensorSizeInBytes, NULL);
    dml_test_execute(context, compiled, persistent, inputs, GEMM_INPUTS, &output, 1);
    check_output(context, &run, output.buffer, "first execution");
    release_last(output.buffer);

    if (test->owned)
    {
        dml_test_scribble_owned(owned, tensors, GEMM_INPUTS);
        output.buffer = dml_test_create_buffer(context, run.out.data.t.buffer.TotalTensorSizeInBytes, NULL);
        dml_test_execute(context, compiled, persistent, inputs, GEMM_INPUTS, &output, 1);
        check_output(context, &run, output.buffer, "after overwriting the OWNED_BY_DML sources");
        release_last(output.buffer);
    }

    dml_test_release_bindings(owned, GEMM_INPUTS);
    dml_test_release_bindings(inputs, GEMM_INPUTS);
    if (persistent)
        release_last(persistent);
    release_last(compiled);
    gemm_run_cleanup(&run);
    assert_no_log_errors();
}

static void run_cases(void **state, const struct gemm_case *cases, size_t count)
{
    size_t i;

    for (i = 0; i < count; ++i)
        run_case(*state, &cases[i]);
}

#define F32 DML_TENSOR_DATA_TYPE_FLOAT32
#define F16 DML_TENSOR_DATA_TYPE_FLOAT16
#define NONE DML_MATRIX_TRANSFORM_NONE
#define TRANS DML_MATRIX_TRANSFORM_TRANSPOSE
#define PACKED LAYOUT_PACKED
#define PADDED LAYOUT_PADDED
#define COLUMNS LAYOUT_COLUMN_MAJOR
#define BROADCAST LAYOUT_BATCH_BROADCAST
#define ROW LAYOUT_ROW_BROADCAST
#define PER_ROW LAYOUT_COLUMN_BROADCAST
#define SCALAR LAYOUT_SCALAR

/* name, type, rank, batch0, batch1, M, N, K, TransA, TransB, C, Alpha, Beta, layouts A B C Output,
 * activation, owned, flags */
static const struct gemm_case shape_cases[] =
{
    {"1x1x1", F32, 4, 1, 1, 1, 1, 1, NONE, NONE, false, 1.0f, 0.0f, PACKED, PACKED, PACKED, PACKED},
    {"64x64x64", F32, 4, 1, 1, 64, 64, 64, NONE, NONE, false, 1.0f, 0.0f, PACKED, PACKED, PACKED, PACKED},
    {"odd M=7 K=13 N=5, rank 2", F32, 2, 1, 1, 7, 5, 13, NONE, NONE, false, 1.0f, 0.0f,
            PACKED, PACKED, PACKED, PACKED},
    {"rank 3, several tiles", F32, 3, 1, 3, 130, 70, 100, NONE, NONE, false, 1.0f, 0.0f,
            PACKED, PACKED, PACKED, PACKED},
    {"TransA", F32, 4, 1, 2, 33, 65, 17, TRANS, NONE, false, 1.0f, 0.0f, PACKED, PACKED, PACKED, PACKED},
    {"TransB", F32, 4, 2, 1, 20, 9, 70, NONE, TRANS, false, 1.0f, 0.0f, PACKED, PACKED, PACKED, PACKED},
    {"TransA and TransB", F32, 4, 1, 1, 31, 47, 29, TRANS, TRANS, false, 1.0f, 0.0f, PACKED, PACKED, PACKED, PACKED},
    {"column-major A and B (strided transposes)", F32, 4, 1, 1, 40, 24, 19, NONE, NONE, false, 1.0f, 0.0f,
            COLUMNS, COLUMNS, PACKED, PACKED},
    {"padded strides everywhere, batches 2x3", F32, 4, 2, 3, 9, 40, 31, NONE, TRANS, true, 1.0f, 1.0f,
            PADDED, PADDED, PADDED, PADDED},
    {"B broadcast over batches (0-strides)", F32, 4, 2, 3, 17, 18, 21, NONE, NONE, false, 1.0f, 0.0f,
            PACKED, BROADCAST, PACKED, PACKED},
    {"A broadcast over batches, TransA", F32, 4, 3, 2, 12, 66, 20, TRANS, NONE, false, 1.0f, 0.0f,
            BROADCAST, PACKED, PACKED, PACKED},
    {"column-major output", F32, 4, 1, 2, 19, 23, 8, NONE, NONE, false, 1.0f, 0.0f, PACKED, PACKED, PACKED, COLUMNS},
};

static const struct gemm_case c_cases[] =
{
    {"C, Alpha and Beta", F32, 4, 1, 1, 25, 33, 41, NONE, NONE, true, 0.5f, -2.0f, PACKED, PACKED, PACKED, PACKED},
    {"C as a bias row (0-strides)", F32, 4, 2, 2, 30, 70, 16, NONE, NONE, true, 1.0f, 1.0f,
            PACKED, PACKED, ROW, PACKED},
    {"C as a scalar (0-strides)", F32, 3, 1, 2, 5, 6, 7, NONE, TRANS, true, -1.25f, 3.0f,
            PACKED, PACKED, SCALAR, PACKED},
    {"C broadcast over batches, rank 2", F32, 2, 1, 1, 66, 3, 2, NONE, NONE, true, 2.0f, 0.5f, PACKED, PACKED,
            BROADCAST, PACKED},
    {"Beta ignored without C", F32, 4, 1, 1, 8, 8, 8, NONE, NONE, false, 1.5f, 100.0f,
            PACKED, PACKED, PACKED, PACKED},
    {"Alpha 0", F32, 4, 1, 1, 8, 9, 10, NONE, NONE, true, 0.0f, 1.0f, PACKED, PACKED, PACKED, PACKED},
};

static const struct gemm_case activation_cases[] =
{
    {"RELU", F32, 4, 1, 1, 19, 21, 23, NONE, NONE, true, 1.0f, 1.0f, PACKED, PACKED, ROW, PACKED, &dml_test_relu},
    {"SIGMOID", F32, 4, 1, 1, 19, 21, 23, NONE, NONE, true, 1.0f, 1.0f, PACKED, PACKED, ROW, PACKED, &dml_test_sigmoid},
    {"TANH", F32, 4, 1, 1, 19, 21, 23, TRANS, NONE, false, 1.0f, 0.0f, PACKED, PACKED, PACKED, PACKED,
            &dml_test_tanh},
    {"LEAKY_RELU", F32, 4, 1, 1, 19, 21, 23, NONE, TRANS, true, 1.0f, -1.0f, PACKED, PACKED, PACKED, PACKED,
            &dml_test_leaky_relu},
    {"ELU", F32, 4, 1, 2, 19, 21, 23, NONE, NONE, true, 2.0f, 1.0f, PACKED, PACKED, PACKED, PACKED, &dml_test_elu},
    {"LINEAR", F32, 4, 1, 1, 19, 21, 23, NONE, NONE, false, 1.0f, 0.0f, PACKED, PACKED, PACKED, PACKED,
            &dml_test_linear},
    {"HARD_SIGMOID", F32, 4, 1, 1, 19, 21, 23, NONE, NONE, false, 1.0f, 0.0f, PACKED, PACKED, PACKED, PACKED,
            &dml_test_hard_sigmoid},
    {"CLIP", F32, 4, 1, 1, 19, 21, 23, NONE, NONE, true, 1.0f, 1.0f, PACKED, PACKED, PACKED, PACKED, &dml_test_clip},
};

static const struct gemm_case float16_cases[] =
{
    {"FLOAT16 1x1x1", F16, 4, 1, 1, 1, 1, 1, NONE, NONE, false, 1.0f, 0.0f, PACKED, PACKED, PACKED, PACKED},
    {"FLOAT16 64x64x64", F16, 4, 1, 1, 64, 64, 64, NONE, NONE, false, 1.0f, 0.0f, PACKED, PACKED, PACKED, PACKED},
    {"FLOAT16 odd, rank 2", F16, 2, 1, 1, 7, 5, 13, NONE, NONE, false, 1.0f, 0.0f, PACKED, PACKED, PACKED, PACKED},
    {"FLOAT16 K=200, TransA, TransB, C bias row", F16, 4, 2, 1, 21, 37, 200, TRANS, TRANS, true, 0.5f, 1.0f,
            PACKED, PACKED, ROW, PACKED},
    {"FLOAT16 padded, B broadcast, odd output width", F16, 4, 1, 3, 9, 11, 33, NONE, NONE, true, 1.0f, -0.5f,
            PADDED, BROADCAST, PADDED, PADDED, &dml_test_sigmoid},
    {"FLOAT16 half-precision math", F16, 4, 1, 2, 40, 24, 48, NONE, TRANS, true, 1.0f, 1.0f,
            PACKED, PACKED, PACKED, PACKED, &dml_test_relu, 0, DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION},
};

static const struct gemm_case owned_cases[] =
{
    {"OWNED_BY_DML B", F32, 4, 1, 1, 33, 17, 29, NONE, NONE, true, 1.0f, 1.0f, PACKED, PACKED, ROW, PACKED,
            NULL, OWN_B},
    {"OWNED_BY_DML A, B and C", F32, 4, 2, 1, 20, 30, 40, NONE, TRANS, true, 0.75f, -1.0f, PACKED, PACKED, PACKED,
            PACKED, &dml_test_leaky_relu, OWN_A | OWN_B | OWN_C},
    {"OWNED_BY_DML A, strided and broadcast", F32, 3, 1, 3, 12, 70, 9, TRANS, NONE, false, 1.0f, 0.0f,
            BROADCAST, PADDED, PACKED, PACKED, NULL, OWN_A},
    {"OWNED_BY_DML B and C, C a bias row", F32, 2, 1, 1, 65, 10, 4, NONE, NONE, true, 1.0f, 1.0f,
            PACKED, COLUMNS, ROW, PACKED, &dml_test_relu, OWN_B | OWN_C},
    {"FLOAT16 OWNED_BY_DML B", F16, 4, 1, 2, 24, 19, 50, NONE, TRANS, true, 1.0f, 1.0f, PACKED, PADDED, ROW,
            PACKED, NULL, OWN_B},
};

static void test_shapes(void **state)
{
    run_cases(state, shape_cases, ARRAY_SIZE(shape_cases));
}

static void test_c_alpha_beta(void **state)
{
    run_cases(state, c_cases, ARRAY_SIZE(c_cases));
}

static void test_fused_activations(void **state)
{
    run_cases(state, activation_cases, ARRAY_SIZE(activation_cases));
}

static void test_float16(void **state)
{
    run_cases(state, float16_cases, ARRAY_SIZE(float16_cases));
}

static void test_owned_by_dml(void **state)
{
    run_cases(state, owned_cases, ARRAY_SIZE(owned_cases));
}

/* More output tiles than a dispatch dimension holds (65535 on most devices, lavapipe included):
 * the tiles spread over x and y, and batch numbers above 65535 split into batch0 and batch1. */
static void test_many_batches(void **state)
{
    static const struct gemm_case many[] =
    {
        {"65538 batches of 1x1x1", F32, 4, 2, 32769, 1, 1, 1, NONE, NONE, true, 2.0f, 1.0f,
                PACKED, PACKED, PACKED, PACKED},
    };

    run_cases(state, many, ARRAY_SIZE(many));
}

/* ---- The fast kernels, forced through VKDML_GEMM_KERNEL ---- */

/* The DML device reads the knobs when it is created: a setup sets them first. */
static int tiled_setup(void **state)
{
    dml_test_set_env("VKDML_GEMM_KERNEL", "tiled");
    return dml_test_setup(state);
}

static int coopmat_setup(void **state)
{
    dml_test_set_env("VKDML_GEMM_KERNEL", "coopmat");
    return dml_test_setup(state);
}

static int general_setup(void **state)
{
    dml_test_set_env("VKDML_GEMM_KERNEL", "general");
    return dml_test_setup(state);
}

static void set_gemm_kernel(struct dml_test_context *context, const char *kernel)
{
    dml_test_set_knob(context, "VKDML_GEMM_KERNEL", kernel);
}

static int kernel_teardown(void **state)
{
    expected_kernel = NULL;
    expected_parts = 0;
    return dml_test_teardown(state);
}

/* Layouts that take each of the tiled kernel's load and store paths: 16-byte vectors along K or
 * M (A), N or K (B), N (C, output); scalars through the strides; edge tiles and partial slabs. */
static const struct gemm_case tiled_cases[] =
{
    {"tiled: 128x128x64, full tiles, vectors everywhere", F32, 2, 1, 1, 128, 128, 64, NONE, NONE, false, 1.0f, 0.0f,
            PACKED, PACKED, PACKED, PACKED},
    {"tiled: edge tiles, K=36 (a partial slab)", F32, 4, 1, 1, 200, 136, 36, NONE, NONE, true, 0.5f, -1.0f,
            PACKED, PACKED, PACKED, PACKED},
    {"tiled: TransA and TransB (vectors along M and K)", F32, 4, 1, 2, 132, 68, 24, TRANS, TRANS, false, 1.0f, 0.0f,
            PACKED, PACKED, PACKED, PACKED},
    {"tiled: column-major A and B", F32, 4, 1, 1, 136, 140, 20, NONE, NONE, false, 1.0f, 0.0f,
            COLUMNS, COLUMNS, PACKED, PACKED},
    {"tiled: padded strides (scalar loads and stores), C, ELU", F32, 4, 2, 1, 70, 90, 33, NONE, TRANS, true, 1.0f, 1.0f,
            PADDED, PADDED, PADDED, PADDED, &dml_test_elu},
    {"tiled: batches, B broadcast, C bias row (vector C), RELU", F32, 4, 2, 3, 64, 72, 40, NONE, NONE, true, 1.0f, 1.0f,
            PACKED, BROADCAST, ROW, PACKED, &dml_test_relu},
    {"tiled: odd sizes, K below one slab", F32, 3, 1, 2, 129, 131, 7, NONE, NONE, true, -1.0f, 2.0f,
            PACKED, PACKED, SCALAR, PACKED},
    {"tiled: column-major output", F32, 4, 1, 1, 150, 44, 52, TRANS, NONE, false, 1.0f, 0.0f,
            PACKED, PACKED, PACKED, COLUMNS},
    {"tiled: OWNED_BY_DML A and B", F32, 2, 1, 1, 100, 96, 64, NONE, TRANS, true, 1.0f, 1.0f,
            PACKED, PACKED, ROW, PACKED, &dml_test_tanh, OWN_A | OWN_B},
    {"tiled: FLOAT16, vectors everywhere, edge tiles", F16, 4, 1, 2, 136, 132, 48, NONE, NONE, true, 0.5f, -1.0f,
            PACKED, PACKED, PACKED, PACKED},
    {"tiled: FLOAT16, TransA and TransB, partial slab", F16, 4, 1, 1, 132, 68, 28, TRANS, TRANS, false, 1.0f, 0.0f,
            PACKED, PACKED, PACKED, PACKED},
    {"tiled: FLOAT16, padded strides (scalars), odd sizes, C, ELU", F16, 4, 2, 1, 70, 91, 33, NONE, TRANS, true,
            1.0f, 1.0f, PADDED, PADDED, PADDED, PADDED, &dml_test_elu},
    {"tiled: FLOAT16, column-major A, B and output", F16, 4, 1, 1, 136, 140, 20, NONE, NONE, false, 1.0f, 0.0f,
            COLUMNS, COLUMNS, PACKED, COLUMNS},
};

/* Both types: FLOAT16 through 8-byte vectors and 2-byte scalars. */
static void test_tiled_kernel(void **state)
{
    run_cases(state, tiled_cases, ARRAY_SIZE(tiled_cases));
    run_cases(state, shape_cases, ARRAY_SIZE(shape_cases));
    run_cases(state, c_cases, ARRAY_SIZE(c_cases));
    run_cases(state, activation_cases, ARRAY_SIZE(activation_cases));
    run_cases(state, owned_cases, ARRAY_SIZE(owned_cases));
}

/* Enough 128 x 128 tiles that the tiled kernel is chosen without VKDML_GEMM_KERNEL. */
static void test_tiled_by_size(void **state)
{
    static const struct gemm_case large[] =
    {
        {"2x16 batches of 250x136x20", F32, 4, 2, 16, 250, 136, 20, NONE, NONE, true, 1.0f, 1.0f,
                PACKED, PACKED, ROW, PACKED, &dml_test_sigmoid},
        /* The tiled kernel where the device has no cooperative-matrix one (lavapipe). */
        {"FLOAT16: 2x16 batches of 250x136x20", F16, 4, 2, 16, 250, 136, 20, NONE, NONE, true, 1.0f, 1.0f,
                PACKED, PACKED, ROW, PACKED, &dml_test_sigmoid},
    };

    run_cases(state, large, ARRAY_SIZE(large));
}

/* ---- Split-K on the tiled kernel ---- */

/* A case with too few tiles for a large GPU, and the parts of K it must run in: chosen by its
 * shape (tune NULL), or forced through VKDML_GEMM_TUNE's split_k (with VKDML_GEMM_KERNEL=tiled
 * where the shape alone would not pick the tiled kernel). */
struct split_case
{
    const char *kernel;             /* VKDML_GEMM_KERNEL */
    const char *tune;               /* VKDML_GEMM_TUNE */
    unsigned int parts;
    struct gemm_case test;
};

static const struct split_case split_cases[] =
{
    /* By shape: 6 tiles (half full: edge tiles), K = 4096 (gemm.c's GEMM_TILED_SPLIT_MIN_K) in 16
     * parts of 32 slabs. */
    {NULL, NULL, 16, {"split-K by shape: 2 batches of 65x384x4096, C bias row", F32, 3, 1, 2, 65, 384, 4096,
            NONE, NONE, true, 1.0f, 1.0f, PACKED, PACKED, ROW, PACKED}},
    /* By shape: few tiles (batch-1 rows or columns) and K long enough for 8 parts or more. */
    {NULL, NULL, 8, {"split-K by shape: few rows, 49x512x1024, C bias row", F32, 2, 1, 1, 49, 512, 1024,
            NONE, NONE, true, 1.0f, 1.0f, PACKED, PACKED, ROW, PACKED}},
    {NULL, NULL, 16, {"split-K by shape: few columns, 512x20x2048, TransA", F32, 2, 1, 1, 512, 20, 2048,
            TRANS, NONE, false, 1.0f, 0.0f, PACKED, PACKED, PACKED, PACKED, &dml_test_relu}},
    /* The tiled kernel forced, its default split: parts of at least 16 slabs of 8. */
    {"tiled", NULL, 16, {"split-K default: 128x128x2048, 16 parts", F32, 2, 1, 1, 128, 128, 2048, NONE, NONE, false,
            1.0f, 0.0f, PACKED, PACKED, PACKED, PACKED}},
    {"tiled", NULL, 2, {"split-K default: K=300 (a partial slab), TransA and TransB", F32, 4, 1, 1, 150, 140, 300,
            TRANS, TRANS, false, 1.0f, 0.0f, PACKED, PACKED, PACKED, PACKED}},
    /* Forced splits: uneven parts, every load and store path, the epilogue in the reduction. */
    {"tiled", "0,0,0,0,0,0,0,2", 2, {"split 2: 128x128x64, full tiles, vectors everywhere", F32, 2, 1, 1,
            128, 128, 64, NONE, NONE, false, 1.0f, 0.0f, PACKED, PACKED, PACKED, PACKED}},
    {"tiled", "0,0,0,0,0,0,0,3", 3, {"split 3: batches, B broadcast, C bias row, Alpha, Beta, RELU", F32, 4, 2, 3,
            64, 72, 200, NONE, NONE, true, 0.5f, -2.0f, PACKED, BROADCAST, ROW, PACKED, &dml_test_relu}},
    {"tiled", "0,0,0,0,0,0,0,5", 5, {"split 5: padded strides (scalar paths), odd N, C, ELU", F32, 4, 2, 1,
            70, 91, 333, NONE, TRANS, true, 1.0f, 1.0f, PADDED, PADDED, PADDED, PADDED, &dml_test_elu}},
    {"tiled", "0,0,0,0,0,0,0,4", 4, {"split 4: column-major A, B and output, C a scalar", F32, 4, 1, 1,
            136, 140, 100, NONE, NONE, true, -1.0f, 0.5f, COLUMNS, COLUMNS, SCALAR, COLUMNS}},
    {"tiled", "0,0,16,0,0,0,0,3", 3, {"split 3, slabs of 16: A broadcast, TransA, C broadcast over batches", F32, 4,
            3, 1, 130, 66, 150, TRANS, NONE, true, 1.0f, 1.0f, BROADCAST, PACKED, BROADCAST, PACKED, &dml_test_tanh}},
    {"tiled", "0,0,0,0,0,0,0,16", 16, {"split 16 over 5 slabs (more parts than slabs), K=36", F32, 4, 1, 2,
            129, 131, 36, NONE, NONE, true, 1.0f, 1.0f, PACKED, PACKED, PER_ROW, PACKED, &dml_test_sigmoid}},
    {"tiled", "0,0,0,0,0,0,0,4", 4, {"split 4 over one partial slab, K=7, rank 3", F32, 3, 1, 2, 100, 40, 7,
            NONE, NONE, true, -1.0f, 2.0f, PACKED, PACKED, PACKED, PACKED}},
    {"tiled", "0,0,0,0,0,0,0,3", 3, {"split 3: OWNED_BY_DML A and B", F32, 2, 1, 1, 100, 96, 64, NONE, TRANS, true,
            1.0f, 1.0f, PACKED, PACKED, ROW, PACKED, &dml_test_clip, OWN_A | OWN_B}},
    {"tiled", "0,0,0,0,0,0,0,3", 3, {"split 3: FLOAT16, C bias row, odd N", F16, 4, 1, 2, 70, 91, 150, NONE, NONE, true,
            1.0f, 1.0f, PACKED, PACKED, ROW, PACKED, &dml_test_relu}},
    /* A split the kernels cannot take is ignored: the default. */
    {"tiled", "0,0,0,0,0,0,0,17", 1, {"split 17 ignored", F32, 2, 1, 1, 64, 64, 32, NONE, NONE, false, 1.0f, 0.0f,
            PACKED, PACKED, PACKED, PACKED}},
};

static void test_split_k(void **state)
{
    size_t i;

    expected_kernel = "gemm_tiled";
    for (i = 0; i < ARRAY_SIZE(split_cases); ++i)
    {
        set_gemm_kernel(*state, split_cases[i].kernel);
        dml_test_set_knob(*state, "VKDML_GEMM_TUNE", split_cases[i].tune);
        expected_parts = split_cases[i].parts;
        run_case(*state, &split_cases[i].test);
    }
}

/* Cooperative-matrix layouts: A and B contiguous along either dimension (K, M, N a multiple of 8),
 * or gathered (odd sizes, padded strides); the epilogue's vector and strided paths; edge tiles and
 * a partial slab of K. */
static const struct gemm_case coopmat_cases[] =
{
    {"coopmat: 128x128x64, full tiles", F16, 2, 1, 1, 128, 128, 64, NONE, NONE, false, 1.0f, 0.0f,
            PACKED, PACKED, PACKED, PACKED},
    {"coopmat: edge tiles, K=72, C bias row, SIGMOID", F16, 4, 1, 1, 200, 136, 72, NONE, NONE, true, 0.5f, 1.0f,
            PACKED, PACKED, ROW, PACKED, &dml_test_sigmoid},
    {"coopmat: TransA, TransB, batches, B broadcast", F16, 4, 2, 2, 64, 80, 48, TRANS, TRANS, false, 1.0f, 0.0f,
            PACKED, BROADCAST, PACKED, PACKED},
    {"coopmat: padded C and output (strided epilogue)", F16, 4, 1, 2, 72, 40, 16, NONE, NONE, true, -1.0f, 0.5f,
            PACKED, PACKED, PADDED, PADDED, &dml_test_leaky_relu},
    {"coopmat: column-major output, odd width", F16, 4, 1, 1, 24, 13, 8, TRANS, TRANS, true, 1.0f, 1.0f,
            PACKED, PACKED, SCALAR, COLUMNS},
    {"coopmat: OWNED_BY_DML B", F16, 4, 1, 1, 96, 64, 32, NONE, TRANS, true, 1.0f, 1.0f, PACKED, PACKED, ROW,
            PACKED, &dml_test_clip, OWN_B},
    {"coopmat: half-precision permission", F16, 4, 1, 2, 40, 24, 48, NONE, TRANS, true, 1.0f, 1.0f,
            PACKED, PACKED, PACKED, PACKED, &dml_test_relu, 0, DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION},
    {"coopmat: 264x256x256, rank 3", F16, 3, 1, 2, 264, 256, 256, NONE, NONE, false, 1.0f, 0.0f,
            PACKED, PACKED, PACKED, PACKED},
    {"coopmat: gathered A and B, odd K and N, padded strides", F16, 4, 2, 1, 70, 91, 333, NONE, TRANS, true,
            1.0f, 1.0f, PADDED, PADDED, PADDED, PADDED, &dml_test_elu},
    {"coopmat: gathered along M (TransA, odd M) and K (column-major B, odd K)", F16, 4, 1, 2, 45, 40, 53, TRANS,
            NONE, false, 1.0f, 0.0f, PACKED, COLUMNS, PACKED, PACKED},
    {"coopmat: gathered, A broadcast over batches, B one scalar", F16, 4, 3, 1, 33, 24, 19, NONE, NONE, true,
            2.0f, 1.0f, BROADCAST, SCALAR, ROW, PACKED},
};

/* The device has the cooperative-matrix kernel when a plain fp16 GEMM compiles with it forced. */
static bool coopmat_available(struct dml_test_context *context)
{
    UINT sizes[2] = {64, 64};
    struct dml_test_tensor t;
    DML_GEMM_OPERATOR_DESC desc = {&t.desc, &t.desc, NULL, &t.desc, NONE, NONE, 1.0f, 0.0f, NULL};
    IDMLCompiledOperator *compiled = NULL;
    IDMLOperator *op;
    HRESULT hr;

    dml_test_tensor_init(&t, F16, 2, sizes, NULL);
    check_hr(dml_test_create_operator(context, DML_OPERATOR_GEMM, &desc, &op), S_OK);
    hr = IDMLDevice_CompileOperator(context->dml, op, DML_EXECUTION_FLAG_NONE, &IID_IDMLCompiledOperator,
            (void **)&compiled);
    if (hr != E_NOTIMPL)
        check_hr(hr, S_OK);
    if (compiled)
        release_last(compiled);
    release_last(op);
    return hr == S_OK;
}

static void test_coopmat_kernel(void **state)
{
    /* The default tiling of these small matrices, then the large matrices' tilings, then split-K
     * (VKDML_GEMM_TUNE: tile_m,tile_n,tile_k,stages,group_m,subgroups_m,subgroups_n[,split_k]),
     * into uneven parts and into more parts than slabs, on both stage counts. */
    static const char *const tunings[] = {NULL, "128,256,32,1,8,2,4", "128,256,16,2,8,2,4", "128,128,64,1,8,2,2",
            "64,64,32,2,1,2,2", "64,64,16,2,8,2,2,2", "64,64,16,1,8,2,2,3", "128,128,32,2,8,2,2,5",
            "64,64,32,1,8,2,2,16"};
    struct dml_test_context *context = *state;
    unsigned int i;

    if (!dml_test_data_type_supported(context, F16) || !coopmat_available(context))
    {
        print_message("Skipping: the device has no cooperative-matrix GEMM kernel.\n");
        return;
    }
    for (i = 0; i < ARRAY_SIZE(tunings); ++i)
    {
        dml_test_set_knob(context, "VKDML_GEMM_TUNE", tunings[i]);
        run_cases(state, coopmat_cases, ARRAY_SIZE(coopmat_cases));
    }
    dml_test_set_knob(context, "VKDML_GEMM_TUNE", NULL);
    print_message("Ran %u cases on the cooperative-matrix kernel, %u tilings.\n",
            (unsigned int)ARRAY_SIZE(coopmat_cases), (unsigned int)ARRAY_SIZE(tunings));
}

/* ---- The GEMV kernel: one side at most GEMV_MAX_SIDE ---- */

#define HALF DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION
#define GEMV_MAX_SIDE 8             /* gemm_interface.h's GEMM_GEMV_MAX_SIDE */

/* Each of the kernel's ways to read B (K-contiguous: along K; N-contiguous: 16-, 8- and 4-byte
 * vectors along N; scalars), with N the small side too (the problem transposed), batches,
 * broadcasts, C, Alpha/Beta, activations, FLOAT16, OWNED_BY_DML inputs and padded layouts. */
static const struct gemm_case gemv_cases[] =
{
    {"M=1, batches 2x3, B broadcast over batches, C bias row, RELU", F32, 4, 2, 3, 1, 72, 64, NONE, NONE, true,
            1.0f, 1.0f, PACKED, BROADCAST, ROW, PACKED, &dml_test_relu},
    {"N=1, batches 3x2, A broadcast over batches, C one value per row, SIGMOID", F32, 4, 3, 2, 90, 1, 33, NONE, NONE,
            true, 0.5f, -2.0f, BROADCAST, PACKED, PER_ROW, PACKED, &dml_test_sigmoid},
    {"M=3, a linear layer (TransB), C bias row, Alpha, Beta, ELU", F32, 2, 1, 1, 3, 100, 256, NONE, TRANS, true,
            -0.75f, 0.5f, PACKED, PACKED, ROW, PACKED, &dml_test_elu},
    {"N=4, C one value per row, batches", F32, 3, 1, 2, 70, 4, 48, NONE, TRANS, true, 1.0f, 1.0f,
            PACKED, PACKED, PER_ROW, PACKED},
    {"M=2, C one value per row, B N-contiguous", F32, 4, 2, 1, 2, 96, 40, NONE, NONE, true, 1.0f, -1.0f,
            PACKED, PACKED, PER_ROW, PACKED, &dml_test_hard_sigmoid},
    {"N=2, TransA, C scalar, CLIP", F32, 3, 1, 2, 67, 2, 45, TRANS, NONE, true, 1.0f, 1.0f,
            PACKED, PACKED, SCALAR, PACKED, &dml_test_clip},
    {"M=5, padded everywhere (scalar loads), TransB", F32, 4, 2, 1, 5, 33, 70, NONE, TRANS, true, 1.0f, 1.0f,
            PADDED, PADDED, PADDED, PADDED},
    {"N=6, padded everywhere, TANH", F32, 4, 1, 2, 41, 6, 70, NONE, NONE, true, 1.0f, 1.0f,
            PADDED, PADDED, PADDED, PADDED, &dml_test_tanh},
    {"M=8, column-major A, B and output", F32, 4, 1, 1, 8, 52, 36, NONE, NONE, false, 1.0f, 0.0f,
            COLUMNS, COLUMNS, PACKED, COLUMNS},
    {"N=7, TransA and TransB, column-major output", F32, 4, 1, 1, 29, 7, 24, TRANS, TRANS, false, 1.0f, 0.0f,
            PACKED, PACKED, PACKED, COLUMNS},
    {"M=2, A a 0-stride scalar", F32, 3, 1, 2, 2, 48, 20, NONE, NONE, false, 1.0f, 0.0f,
            SCALAR, PACKED, PACKED, PACKED},
    {"1x1 output, K=5000 (every thread along K)", F32, 2, 1, 1, 1, 1, 5000, NONE, TRANS, true, 1.0f, 1.0f,
            PACKED, PACKED, PACKED, PACKED},
    {"M=1, N=3000, K=16: many workgroups", F32, 2, 1, 1, 1, 3000, 16, NONE, NONE, true, 1.0f, 1.0f,
            PACKED, PACKED, ROW, PACKED, &dml_test_linear},
    {"N=8, M=1000, K=1", F32, 2, 1, 1, 1000, 8, 1, TRANS, NONE, false, 1.0f, 0.0f, PACKED, PACKED, PACKED, PACKED},
    {"OWNED_BY_DML B and C: a linear layer's weights and bias", F32, 2, 1, 1, 2, 64, 128, NONE, TRANS, true,
            1.0f, 1.0f, PACKED, PACKED, ROW, PACKED, &dml_test_relu, OWN_B | OWN_C},
    {"OWNED_BY_DML A, N=1", F32, 3, 1, 2, 50, 1, 40, NONE, NONE, false, 1.0f, 0.0f, PACKED, PACKED, PACKED, PACKED,
            NULL, OWN_A},
    {"FLOAT16 M=1, K=1000, K-contiguous B", F16, 2, 1, 1, 1, 48, 1000, NONE, TRANS, true, 1.0f, 1.0f,
            PACKED, PACKED, ROW, PACKED},
    {"FLOAT16 M=1, K=1000, N-contiguous B (16-byte vectors)", F16, 2, 1, 1, 1, 48, 1000, NONE, NONE, false,
            1.0f, 0.0f, PACKED, PACKED, PACKED, PACKED},
    {"FLOAT16 M=4, K=1000, N-contiguous B (8-byte vectors), C bias row", F16, 2, 1, 1, 4, 64, 1000, NONE, NONE, true,
            1.0f, 1.0f, PACKED, PACKED, ROW, PACKED},
    {"FLOAT16 M=6, N-contiguous B (4-byte vectors), batches", F16, 3, 1, 2, 6, 34, 77, NONE, NONE, false,
            1.0f, 0.0f, PACKED, PACKED, PACKED, PACKED},
    {"FLOAT16 N=3, K=301, padded, LEAKY_RELU", F16, 4, 2, 1, 45, 3, 301, TRANS, NONE, true, 1.0f, -0.5f,
            PADDED, PADDED, PADDED, PADDED, &dml_test_leaky_relu},
    {"FLOAT16 half-precision math, M=8, K-contiguous B", F16, 4, 1, 2, 8, 40, 96, NONE, TRANS, true, 1.0f, 1.0f,
            PACKED, PACKED, PACKED, PACKED, &dml_test_relu, 0, HALF},
    {"FLOAT16 half-precision math, N=2, N-contiguous B", F16, 2, 1, 1, 40, 2, 300, TRANS, NONE, true, 1.0f, 1.0f,
            PACKED, PACKED, PER_ROW, PACKED, NULL, 0, HALF},
    {"FLOAT16 half-precision math, scalar loads", F16, 2, 1, 1, 3, 21, 13, NONE, NONE, false, 1.0f, 0.0f,
            PACKED, PACKED, PACKED, PACKED, NULL, 0, HALF},
    {"FLOAT16 OWNED_BY_DML B, M=2", F16, 4, 1, 1, 2, 80, 64, NONE, TRANS, true, 1.0f, 1.0f,
            PACKED, PACKED, ROW, PACKED, NULL, OWN_B},
};

/* A case with a side of at most GEMV_MAX_SIDE: the GEMV kernel chosen by its shape, then forced. */
static void run_gemv_case(void **state, const struct gemm_case *test)
{
    expected_kernel = "gemm_gemv";
    run_case(*state, test);
    set_gemm_kernel(*state, "gemv");
    run_case(*state, test);
    set_gemm_kernel(*state, NULL);
    expected_kernel = NULL;
}

/* Every small side 1..GEMV_MAX_SIDE as M and as N; the TransA/TransB pair and K (1, 7, 300, 1000)
 * cycle with it, so that each side meets every pair twice and the two sides every (K, pair). */
static void run_gemv_sweep(void **state)
{
    static const UINT k_values[] = {1, 7, 300, 1000};
    static const UINT large_values[] = {37, 40, 130};
    struct gemm_case test;
    UINT side, small, large, pair;
    char name[96];

    for (side = 0; side < 2; ++side)
    for (small = 1; small <= GEMV_MAX_SIDE; ++small)
    {
        memset(&test, 0, sizeof(test));
        large = large_values[(small + side) % ARRAY_SIZE(large_values)];
        pair = (small - 1 + 2 * side) % 4;
        test.type = F32;
        test.rank = 2 + small % 3;
        test.batch0 = test.batch1 = 1;
        test.m = side ? large : small;
        test.n = side ? small : large;
        test.k = k_values[(small - 1) / 2];
        test.trans_a = pair & 1 ? TRANS : NONE;
        test.trans_b = pair & 2 ? TRANS : NONE;
        test.alpha = 1.0f;
        snprintf(name, sizeof(name), "sweep M=%u N=%u K=%u%s%s", test.m, test.n, test.k,
                test.trans_a == TRANS ? " TransA" : "", test.trans_b == TRANS ? " TransB" : "");
        test.name = name;
        run_gemv_case(state, &test);
    }
}

/* Forced onto a GEMM with both sides above GEMV_MAX_SIDE, the GEMV kernel refuses: E_NOTIMPL. */
static void check_gemv_refuses(struct dml_test_context *context)
{
    UINT sizes[2] = {GEMV_MAX_SIDE + 1, GEMV_MAX_SIDE + 1};
    struct dml_test_tensor t;
    DML_GEMM_OPERATOR_DESC desc = {&t.desc, &t.desc, NULL, &t.desc, NONE, NONE, 1.0f, 0.0f, NULL};
    IDMLCompiledOperator *compiled = NULL;
    IDMLOperator *op;

    dml_test_tensor_init(&t, F32, 2, sizes, NULL);
    set_gemm_kernel(context, "gemv");
    check_hr(dml_test_create_operator(context, DML_OPERATOR_GEMM, &desc, &op), S_OK);
    check_hr(IDMLDevice_CompileOperator(context->dml, op, DML_EXECUTION_FLAG_NONE, &IID_IDMLCompiledOperator,
            (void **)&compiled), E_NOTIMPL);
    assert_null(compiled);
    release_last(op);
    set_gemm_kernel(context, NULL);
}

static void test_gemv_kernel(void **state)
{
    size_t i;

    run_gemv_sweep(state);
    for (i = 0; i < ARRAY_SIZE(gemv_cases); ++i)
        run_gemv_case(state, &gemv_cases[i]);
    check_gemv_refuses(*state);
}

/* Every case of `cases` with a side of at most GEMV_MAX_SIDE. */
static void run_small_side_cases(void **state, const struct gemm_case *cases, size_t count)
{
    size_t i;

    for (i = 0; i < count; ++i)
    {
        if (cases[i].m <= GEMV_MAX_SIDE || cases[i].n <= GEMV_MAX_SIDE)
            run_case(*state, &cases[i]);
    }
}

/* The general kernel (forced by general_setup) still runs the cases above that the GEMV kernel
 * takes by default. */
static void test_general_small_sides(void **state)
{
    run_small_side_cases(state, shape_cases, ARRAY_SIZE(shape_cases));
    run_small_side_cases(state, c_cases, ARRAY_SIZE(c_cases));
    run_small_side_cases(state, float16_cases, ARRAY_SIZE(float16_cases));
}

/* ---- Invalid descs ---- */

struct bad_desc
{
    struct dml_test_tensor a, b, c, out;   /* sizes are the descs' own (rank dimensions) */
    DML_GEMM_OPERATOR_DESC desc;
};

/* A valid GEMM of `rank`-D tensors {.., M, K} x {.., K, N} + C; tests then break one rule. */
static void bad_desc_init(struct bad_desc *bad, DML_TENSOR_DATA_TYPE type, UINT rank, UINT m, UINT n, UINT k)
{
    UINT a_sizes[4] = {1, 1, m, k}, b_sizes[4] = {1, 1, k, n}, out_sizes[4] = {1, 1, m, n}, first = 4 - rank;

    dml_test_tensor_init(&bad->a, type, rank, &a_sizes[first], NULL);
    dml_test_tensor_init(&bad->b, type, rank, &b_sizes[first], NULL);
    dml_test_tensor_init(&bad->c, type, rank, &out_sizes[first], NULL);
    dml_test_tensor_init(&bad->out, type, rank, &out_sizes[first], NULL);
    memset(&bad->desc, 0, sizeof(bad->desc));
    bad->desc.ATensor = &bad->a.desc;
    bad->desc.BTensor = &bad->b.desc;
    bad->desc.CTensor = &bad->c.desc;
    bad->desc.OutputTensor = &bad->out.desc;
    bad->desc.Alpha = 1.0f;
}

static HRESULT create_bad(struct dml_test_context *context, struct bad_desc *bad)
{
    struct dml_test_tensor *tensors[] = {&bad->a, &bad->b, &bad->c, &bad->out};
    IDMLOperator *op = NULL;
    HRESULT hr;

    /* Sizes, ranks and types were changed: only the rule under test may fail, not the buffer size. */
    dml_test_update_sizes(tensors, ARRAY_SIZE(tensors));
    vkdml_test_log_reset();
    hr = dml_test_create_operator(context, DML_OPERATOR_GEMM, &bad->desc, &op);
    assert_null(op);
    return hr;
}

/* CreateOperator fails with E_INVALIDARG and one log line naming the rule. */
#define check_bad(context, bad, message) \
    do { \
        check_hr(create_bad(context, bad), E_INVALIDARG); \
        check_one_error(message); \
    } while (0)

static void test_invalid_shapes(void **state)
{
    struct dml_test_context *context = *state;
    struct bad_desc bad;

    bad_desc_init(&bad, F32, 4, 2, 3, 5);
    bad.b.sizes[2] = 6;
    check_bad(context, &bad, "CreateOperator(GEMM): ATensor.Sizes[3]=5 must equal BTensor.Sizes[2]=6");

    /* With TransA, K is A's dimension 2. */
    bad_desc_init(&bad, F32, 4, 2, 3, 5);
    bad.desc.TransA = TRANS;
    check_bad(context, &bad, "ATensor.Sizes[2]=2 must equal BTensor.Sizes[2]=5");

    bad_desc_init(&bad, F32, 3, 2, 3, 5);
    bad.desc.TransB = TRANS;
    check_bad(context, &bad, "ATensor.Sizes[2]=5 must equal BTensor.Sizes[2]=3");

    bad_desc_init(&bad, F32, 4, 2, 3, 5);
    bad.out.sizes[2] = 4;
    bad.c.sizes[2] = 4;
    check_bad(context, &bad, "OutputTensor.Sizes[2]=4 must equal ATensor.Sizes[2]=2 (M)");

    bad_desc_init(&bad, F32, 2, 2, 3, 5);
    bad.out.sizes[1] = 4;
    bad.c.sizes[1] = 4;
    check_bad(context, &bad, "OutputTensor.Sizes[1]=4 must equal BTensor.Sizes[1]=3 (N)");

    /* Batches broadcast through 0-strides, not through size 1. */
    bad_desc_init(&bad, F32, 4, 2, 3, 5);
    bad.a.sizes[0] = bad.c.sizes[0] = bad.out.sizes[0] = 2;
    check_bad(context, &bad, "BTensor.Sizes[0]=1 must equal OutputTensor.Sizes[0]=2");

    bad_desc_init(&bad, F32, 4, 2, 3, 5);
    bad.a.sizes[1] = 3;
    check_bad(context, &bad, "ATensor.Sizes[1]=3 must equal OutputTensor.Sizes[1]=1");

    /* C has the output's sizes; a bias is a 0-stride C. */
    bad_desc_init(&bad, F32, 4, 2, 3, 5);
    bad.c.sizes[2] = 1;
    check_bad(context, &bad, "CTensor.Sizes[2]=1 must equal OutputTensor.Sizes[2]=2");
}

static void test_invalid_ranks_and_types(void **state)
{
    struct dml_test_context *context = *state;
    static const UINT sizes5[5] = {1, 1, 1, 2, 2};
    struct bad_desc bad;

    bad_desc_init(&bad, F32, 4, 2, 2, 2);
    bad.b.buffer.DimensionCount = 3;
    bad.b.buffer.Sizes = &bad.b.sizes[1];
    check_bad(context, &bad, "BTensor.DimensionCount=3 must equal ATensor.DimensionCount=4");

    bad_desc_init(&bad, F32, 4, 2, 2, 2);
    bad.desc.CTensor = NULL;
    bad.a.buffer.DimensionCount = bad.b.buffer.DimensionCount = bad.out.buffer.DimensionCount = 5;
    bad.a.buffer.Sizes = bad.b.buffer.Sizes = bad.out.buffer.Sizes = sizes5;
    check_bad(context, &bad, "ATensor.DimensionCount=5 must be 2 to 4");

    bad_desc_init(&bad, F32, 2, 1, 2, 2);
    bad.desc.CTensor = NULL;
    bad.a.buffer.DimensionCount = bad.out.buffer.DimensionCount = 1;
    bad.a.buffer.Sizes = &bad.a.sizes[1];
    bad.out.buffer.Sizes = &bad.out.sizes[1];
    check_bad(context, &bad, "ATensor.DimensionCount=1 must be 2 to 4");

    bad_desc_init(&bad, DML_TENSOR_DATA_TYPE_INT32, 4, 2, 2, 2);
    check_bad(context, &bad, "ATensor.DataType=INT32 must be FLOAT32 or FLOAT16");

    bad_desc_init(&bad, F32, 4, 2, 2, 2);
    bad.b.buffer.DataType = F16;
    check_bad(context, &bad, "BTensor.DataType=FLOAT16 must equal ATensor.DataType=FLOAT32");

    bad_desc_init(&bad, F16, 4, 2, 2, 2);
    bad.out.buffer.DataType = F32;
    check_bad(context, &bad, "OutputTensor.DataType=FLOAT32 must equal ATensor.DataType=FLOAT16");

    bad_desc_init(&bad, F32, 4, 2, 2, 2);
    bad.desc.TransB = (DML_MATRIX_TRANSFORM)2;
    check_bad(context, &bad, "TransB");
}

static void test_invalid_activations(void **state)
{
    static const DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity_desc = {NULL, NULL, NULL};
    static const DML_OPERATOR_DESC not_fusible = {DML_OPERATOR_ELEMENT_WISE_IDENTITY, &identity_desc};
    struct dml_test_context *context = *state;
    DML_ACTIVATION_RELU_OPERATOR_DESC relu_with_tensor;
    DML_OPERATOR_DESC activation;
    struct bad_desc bad;

    bad_desc_init(&bad, F32, 4, 2, 2, 2);
    bad.desc.FusedActivation = &not_fusible;
    check_bad(context, &bad, "FusedActivation");

    /* A fused activation has no tensors of its own. */
    bad_desc_init(&bad, F32, 4, 2, 2, 2);
    relu_with_tensor.InputTensor = &bad.out.desc;
    relu_with_tensor.OutputTensor = NULL;
    activation.Type = DML_OPERATOR_ACTIVATION_RELU;
    activation.Desc = &relu_with_tensor;
    bad.desc.FusedActivation = &activation;
    check_bad(context, &bad, "FusedActivation");
}

/* Everything below is still valid: the rules above reject exactly what they name. */
static void test_valid_edge_descs(void **state)
{
    struct dml_test_context *context = *state;
    IDMLOperator *op = NULL;
    struct bad_desc good;

    bad_desc_init(&good, F32, 2, 3, 4, 5);
    good.desc.CTensor = NULL;
    vkdml_test_log_reset();
    check_hr(dml_test_create_operator(context, DML_OPERATOR_GEMM, &good.desc, &op), S_OK);
    release_last(op);
    assert_no_log_errors();
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_shapes, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_c_alpha_beta, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_fused_activations, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_float16, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_owned_by_dml, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_many_batches, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_tiled_kernel, tiled_setup, kernel_teardown),
        cmocka_unit_test_setup_teardown(test_tiled_by_size, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_split_k, dml_test_setup, kernel_teardown),
        cmocka_unit_test_setup_teardown(test_coopmat_kernel, coopmat_setup, kernel_teardown),
        cmocka_unit_test_setup_teardown(test_gemv_kernel, dml_test_setup, kernel_teardown),
        cmocka_unit_test_setup_teardown(test_general_small_sides, general_setup, kernel_teardown),
        cmocka_unit_test_setup_teardown(test_invalid_shapes, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_invalid_ranks_and_types, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_invalid_activations, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_valid_edge_descs, dml_test_setup, dml_test_teardown),
    };

    /* Logging first: it keeps the Vulkan driver loaded for LeakSanitizer (test_utils.c). */
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
