/*
 * vkdml-run's lowering choices on a device (docs/onnx.md, "Lowering"): a Transpose read by MatMul is a
 * view (no copy), one read by anything else or returned is copied once, views of views compose, a
 * MatMul absorbs its bias Add as GEMM's C and a scalar Mul as its Alpha, GELU written out in Erf is
 * one operator, and an output nothing reads becomes a discarded graph
 * output. Each model runs and its outputs are checked against a C reference. Also the op table:
 * every op type in one family only.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_utils.h"

#include "execute.h"
#include "onnx_test_model.h"
#include "ops.h"

static char error[1024];

/* Values i * 0.25 - 1 (exact in float), the test's inputs and weights. */
static void fill(float *values, unsigned int count, float start)
{
    unsigned int i;

    for (i = 0; i < count; ++i)
        values[i] = start + (float)(i % 13) * 0.25f - 1.0f;
}

static void float_initializer(struct test_model *t, Onnx__TensorProto *p, const char *name, unsigned int rank,
        const int64_t *dims, float *values)
{
    test_tensor_init(p, name, ONNX_FLOAT, rank, dims);
    p->n_float_data = 1;
    for (unsigned int i = 0; i < rank; ++i)
        p->n_float_data *= (size_t)dims[i];
    p->float_data = values;
    test_model_add_initializer(t, p);
}

static void perm_attribute(Onnx__NodeProto *node, Onnx__AttributeProto *a, Onnx__AttributeProto **list,
        int64_t *perm, unsigned int rank)
{
    a->name = (char *)"perm";
    a->has_type = 1;
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
    a->n_ints = rank;
    a->ints = perm;
    list[0] = a;
    node->n_attribute = 1;
    node->attribute = list;
}

struct lowered
{
    unsigned int dml_nodes, discarded, dispatches;
    struct run_tensor output;
};

/* Lowers and runs `t` with input `x` (float, `x_shape`); the first output and the graph's counts. */
static void lower_and_run(const struct test_model *t, const float *x, const struct run_shape *x_shape,
        struct lowered *result)
{
    enum run_error_kind kind = RUN_ERROR;
    struct run_tensor inputs[1], outputs[TEST_MAX_IO];
    struct run_options options;
    struct run_stats stats;
    struct onnx_model m;
    struct run_lower *l;
    uint8_t *bytes;
    unsigned int i;
    size_t size;

    bytes = test_model_pack(t, &size);
    assert_non_null(bytes);
    assert_true(onnx_model_parse(bytes, size, NULL, &m, error, sizeof(error)));
    free(bytes);
    memset(&options, 0, sizeof(options));
    memset(outputs, 0, sizeof(outputs));
    assert_true(run_tensor_alloc(&inputs[0], ONNX_FLOAT, x_shape));
    memcpy(inputs[0].data, x, run_tensor_bytes(&inputs[0]));
    l = run_lower_model(onnx_test_device.dml, &m, &options, inputs, error, sizeof(error), &kind);
    if (!l)
        fail_msg("lowering failed: %s", error);
    result->dml_nodes = run_lower_graph(l)->desc.NodeCount;
    result->discarded = run_lower_graph(l)->discarded_count;
    if (!run_graph_execute(&onnx_test_device, run_lower_graph(l), false, 0, false, outputs, &stats, error, sizeof(error)))
        fail_msg("running failed: %s", error);
    result->output = outputs[0];
    result->dispatches = stats.have_report ? stats.report.dispatch_count : 0;
    for (i = 1; i < m.output_count; ++i)
        run_tensor_free(&outputs[i]);
    run_stats_free(&stats);
    run_lower_free(l);
    run_tensor_free(&inputs[0]);
    onnx_model_free(&m);
    assert_no_log_errors();
}

static void assert_output(const struct lowered *r, const float *expected, unsigned int count)
{
    unsigned int i;

    assert_int_equal(run_shape_elements(&r->output.shape), count);
    for (i = 0; i < count; ++i)
        if (fabsf(((const float *)r->output.data)[i] - expected[i]) > 1e-4f * (1.0f + fabsf(expected[i])))
            fail_msg("element %u: %.6g, expected %.6g", i, ((const float *)r->output.data)[i], expected[i]);
}

/* out[b][i][j] = sum_k a(b, i, k) * w[k][j] (+ bias[j]), a read through `a_strides` of x. */
static void reference_matmul(const float *x, const int64_t *a_strides, const float *w, const float *bias,
        unsigned int batch, unsigned int m, unsigned int k, unsigned int n, float *out)
{
    unsigned int b, i, j, l;

    for (b = 0; b < batch; ++b)
        for (i = 0; i < m; ++i)
            for (j = 0; j < n; ++j)
            {
                float sum = bias ? bias[j] : 0.0f;

                for (l = 0; l < k; ++l)
                    sum += x[b * a_strides[0] + i * a_strides[1] + l * a_strides[2]] * w[l * n + j];
                out[(b * m + i) * n + j] = sum;
            }
}

/* x [2, 3, 4] -> Transpose (0, 2, 1) -> [2, 4, 3] -> MatMul w [3, 5] (-> Add bias [5]). */
static void transposed_matmul(bool bias, struct lowered *r, float *expected)
{
    static const int64_t x_dims[] = {2, 3, 4}, y_dims[] = {2, 4, 5}, w_dims[] = {3, 5}, b_dims[] = {5};
    static const int64_t strides[] = {12, 1, 4};
    static const char *const t_in[] = {"x"}, *const t_out[] = {"xt"}, *const mm_in[] = {"xt", "w"},
            *const mm_out[] = {"p"}, *const mm_y[] = {"y"}, *const add_in[] = {"p", "b"}, *const add_out[] = {"y"};
    struct run_shape x_shape = {3, {2, 3, 4}};
    Onnx__AttributeProto a = ONNX__ATTRIBUTE_PROTO__INIT, *list[1];
    Onnx__TensorProto w_proto, b_proto;
    float x[24], w[15], b[5];
    int64_t perm[] = {0, 2, 1};
    struct test_model t;

    fill(x, 24, 0.0f);
    fill(w, 15, 0.5f);
    fill(b, 5, 2.0f);
    test_model_init(&t, 13);
    test_model_add_input(&t, "x", ONNX_FLOAT, 3, x_dims);
    test_model_add_output(&t, "y", ONNX_FLOAT, 3, y_dims);
    float_initializer(&t, &w_proto, "w", 2, w_dims, w);
    perm_attribute(test_model_add_node(&t, "Transpose", 1, t_in, 1, t_out), &a, list, perm, 3);
    test_model_add_node(&t, "MatMul", 2, mm_in, 1, bias ? mm_out : mm_y);
    if (bias)
    {
        float_initializer(&t, &b_proto, "b", 1, b_dims, b);
        test_model_add_node(&t, "Add", 2, add_in, 1, add_out);
    }
    lower_and_run(&t, x, &x_shape, r);
    reference_matmul(x, strides, w, bias ? b : NULL, 2, 4, 3, 5, expected);
}

static void test_transpose_view_into_matmul(void **state)
{
    struct lowered r;
    float expected[40];

    transposed_matmul(false, &r, expected);
    assert_int_equal(r.dml_nodes, 1);           /* the GEMM reads x through the transposed strides */
    assert_output(&r, expected, 40);
    run_tensor_free(&r.output);
}

static void test_matmul_absorbs_bias(void **state)
{
    struct lowered r;
    float expected[40];

    transposed_matmul(true, &r, expected);
    assert_int_equal(r.dml_nodes, 1);           /* GEMM with the bias as C */
    assert_output(&r, expected, 40);
    run_tensor_free(&r.output);
}

static void scalar_initializer(struct test_model *t, Onnx__TensorProto *p, const char *name, float *value)
{
    test_tensor_init(p, name, ONNX_FLOAT, 0, NULL);
    p->n_float_data = 1;
    p->float_data = value;
    test_model_add_initializer(t, p);
}

/* x [2, 3, 4] -> MatMul w [4, 5] -> Add bias [5] -> Mul 0.125 (attention's scaling of Q): one GEMM. */
static void test_matmul_absorbs_bias_and_scale(void **state)
{
    static const int64_t x_dims[] = {2, 3, 4}, y_dims[] = {2, 3, 5}, w_dims[] = {4, 5}, b_dims[] = {5};
    static const int64_t strides[] = {12, 4, 1};
    static const char *const mm_in[] = {"x", "w"}, *const mm_out[] = {"p"}, *const add_in[] = {"b", "p"},
            *const add_out[] = {"q"}, *const mul_in[] = {"q", "s"}, *const mul_out[] = {"y"};
    struct run_shape x_shape = {3, {2, 3, 4}};
    Onnx__TensorProto w_proto, b_proto, s_proto;
    float x[24], w[20], b[5], scale = 0.125f, expected[30];
    struct test_model t;
    struct lowered r;
    unsigned int i;

    fill(x, 24, 0.0f);
    fill(w, 20, 0.5f);
    fill(b, 5, 2.0f);
    test_model_init(&t, 13);
    test_model_add_input(&t, "x", ONNX_FLOAT, 3, x_dims);
    test_model_add_output(&t, "y", ONNX_FLOAT, 3, y_dims);
    float_initializer(&t, &w_proto, "w", 2, w_dims, w);
    float_initializer(&t, &b_proto, "b", 1, b_dims, b);
    scalar_initializer(&t, &s_proto, "s", &scale);
    test_model_add_node(&t, "MatMul", 2, mm_in, 1, mm_out);
    test_model_add_node(&t, "Add", 2, add_in, 1, add_out);
    test_model_add_node(&t, "Mul", 2, mul_in, 1, mul_out);
    lower_and_run(&t, x, &x_shape, &r);
    reference_matmul(x, strides, w, b, 2, 3, 4, 5, expected);
    for (i = 0; i < 30; ++i)
        expected[i] *= scale;
    assert_int_equal(r.dml_nodes, 1);           /* GEMM: Alpha and Beta 0.125, the bias as C */
    assert_output(&r, expected, 30);
    run_tensor_free(&r.output);
}

/* x [2, 8] -> Div sqrt(2) -> Erf -> Add 1 -> Mul x -> Mul 0.5 (GELU before opset 20): one GELU. */
static void test_erf_chain_is_gelu(void **state)
{
    static const int64_t x_dims[] = {2, 8};
    static const char *const div_in[] = {"x", "sqrt2"}, *const div_out[] = {"d"}, *const erf_in[] = {"d"},
            *const erf_out[] = {"e"}, *const add_in[] = {"e", "one"}, *const add_out[] = {"a"},
            *const add_in_gelu[] = {"e", "one"}, *const add_out_gelu[] = {"a"},
            *const mul_in[] = {"x", "a"}, *const mul_out[] = {"m"}, *const half_in[] = {"m", "half"},
            *const half_out[] = {"y"};
    struct run_shape x_shape = {2, {2, 8}};
    Onnx__TensorProto sqrt2_proto, one_proto, half_proto;
    float x[16], sqrt2 = 1.41421356f, one = 1.0f, half = 0.5f, expected[16];
    struct test_model t;
    struct lowered r;
    unsigned int i;

    fill(x, 16, -0.5f);
    test_model_init(&t, 13);
    test_model_add_input(&t, "x", ONNX_FLOAT, 2, x_dims);
    test_model_add_output(&t, "y", ONNX_FLOAT, 2, x_dims);
    scalar_initializer(&t, &sqrt2_proto, "sqrt2", &sqrt2);
    scalar_initializer(&t, &one_proto, "one", &one);
    scalar_initializer(&t, &half_proto, "half", &half);
    test_model_add_node(&t, "Div", 2, div_in, 1, div_out);
    test_model_add_node(&t, "Erf", 1, erf_in, 1, erf_out);
    test_model_add_node(&t, "Add", 2, add_in, 1, add_out);
    test_model_add_node(&t, "Mul", 2, mul_in, 1, mul_out);
    test_model_add_node(&t, "Mul", 2, half_in, 1, half_out);
    lower_and_run(&t, x, &x_shape, &r);
    for (i = 0; i < 16; ++i)
        expected[i] = 0.5f * x[i] * (1.0f + erff(x[i] / sqrt2));
    assert_int_equal(r.dml_nodes, 1);
    assert_output(&r, expected, 16);
    run_tensor_free(&r.output);

    /* x [2, 8] -> MatMul w [8, 8] + bias first: CompileGraph fuses the FLOAT32 GELU into the GEMM,
     * whose 4-D output is the 2-D tensor GELU reads (docs/graph.md, "activation"). */
    {
        static const int64_t w_dims[] = {8, 8}, b_dims[] = {8};
        static const int64_t strides[] = {0, 8, 1};
        static const char *const mm_in[] = {"x0", "w"}, *const mm_out[] = {"p"}, *const add_in[] = {"p", "b"},
                *const add_out[] = {"x"};
        Onnx__TensorProto w_proto, b_proto;
        float w[64], b[8], product[16];
        struct test_model g;

        fill(w, 64, 0.25f);
        fill(b, 8, 1.0f);
        test_model_init(&g, 13);
        test_model_add_input(&g, "x0", ONNX_FLOAT, 2, x_dims);
        test_model_add_output(&g, "y", ONNX_FLOAT, 2, x_dims);
        float_initializer(&g, &w_proto, "w", 2, w_dims, w);
        float_initializer(&g, &b_proto, "b", 1, b_dims, b);
        scalar_initializer(&g, &sqrt2_proto, "sqrt2", &sqrt2);
        scalar_initializer(&g, &one_proto, "one", &one);
        scalar_initializer(&g, &half_proto, "half", &half);
        test_model_add_node(&g, "MatMul", 2, mm_in, 1, mm_out);
        test_model_add_node(&g, "Add", 2, add_in, 1, add_out);
        test_model_add_node(&g, "Div", 2, div_in, 1, div_out);
        test_model_add_node(&g, "Erf", 1, erf_in, 1, erf_out);
        test_model_add_node(&g, "Add", 2, add_in_gelu, 1, add_out_gelu);
        test_model_add_node(&g, "Mul", 2, mul_in, 1, mul_out);
        test_model_add_node(&g, "Mul", 2, half_in, 1, half_out);
        lower_and_run(&g, x, &x_shape, &r);
        reference_matmul(x, strides, w, b, 1, 2, 8, 8, product);
        for (i = 0; i < 16; ++i)
            expected[i] = 0.5f * product[i] * (1.0f + erff(product[i] / sqrt2));
        assert_int_equal(r.dml_nodes, 2);
        assert_int_equal(r.dispatches, 1);
        assert_output(&r, expected, 16);
        run_tensor_free(&r.output);
        for (i = 0; i < 16; ++i)
            expected[i] = 0.5f * x[i] * (1.0f + erff(x[i] / sqrt2));
    }

    /* The chain's middle read by a model output too: nothing is absorbed. */
    test_model_add_output(&t, "e", ONNX_FLOAT, 2, x_dims);
    lower_and_run(&t, x, &x_shape, &r);
    assert_true(r.dml_nodes > 1);
    assert_output(&r, expected, 16);
    run_tensor_free(&r.output);
}

/* x [2, 3, 4] -> Transpose `perm` -> (Transpose `perm2` ->) `consumer` ("" : the output itself). */
static void transposes(const int64_t *perm2, const char *consumer, struct lowered *r, float *expected)
{
    static const int64_t x_dims[] = {2, 3, 4};
    static const char *const t_in[] = {"x"}, *const t_out[] = {"t"}, *const t2_out[] = {"u"}, *const t_y[] = {"y"};
    struct run_shape x_shape = {3, {2, 3, 4}};
    Onnx__AttributeProto a[2] = {ONNX__ATTRIBUTE_PROTO__INIT, ONNX__ATTRIBUTE_PROTO__INIT}, *list[2][1];
    const char *const mid_in[] = {"t"}, *const consumer_in[] = {perm2 ? "u" : "t"};
    int64_t perm[] = {1, 2, 0}, second[3];
    int64_t dims[3], strides[3], packed[3] = {12, 4, 1};
    unsigned int i, c0, c1, c2;
    struct test_model t;
    float x[24];

    fill(x, 24, 0.0f);
    test_model_init(&t, 13);
    test_model_add_input(&t, "x", ONNX_FLOAT, 3, x_dims);
    perm_attribute(test_model_add_node(&t, "Transpose", 1, t_in, 1, perm2 || consumer[0] ? t_out : t_y), &a[0],
            list[0], perm, 3);
    for (i = 0; i < 3; ++i)
    {
        dims[i] = x_dims[perm[i]];
        strides[i] = packed[perm[i]];
    }
    if (perm2)
    {
        int64_t d[3], s[3];

        memcpy(second, perm2, sizeof(second));
        perm_attribute(test_model_add_node(&t, "Transpose", 1, mid_in, 1, consumer[0] ? t2_out : t_y), &a[1],
                list[1], second, 3);
        for (i = 0; i < 3; ++i)
        {
            d[i] = dims[perm2[i]];
            s[i] = strides[perm2[i]];
        }
        memcpy(dims, d, sizeof(d));
        memcpy(strides, s, sizeof(s));
    }
    if (consumer[0])
        test_model_add_node(&t, consumer, 1, consumer_in, 1, t_y);
    test_model_add_output(&t, "y", ONNX_FLOAT, 3, dims);
    lower_and_run(&t, x, &x_shape, r);
    i = 0;
    for (c0 = 0; c0 < dims[0]; ++c0)
        for (c1 = 0; c1 < dims[1]; ++c1)
            for (c2 = 0; c2 < dims[2]; ++c2)
            {
                float v = x[c0 * strides[0] + c1 * strides[1] + c2 * strides[2]];

                expected[i++] = !strcmp(consumer, "Relu") && v < 0.0f ? 0.0f : v;
            }
}

static void test_transpose_copied_where_not_viewable(void **state)
{
    static const int64_t back[] = {2, 0, 1};
    struct lowered r;
    float expected[24];

    transposes(NULL, "Relu", &r, expected);     /* RELU takes no view: one copy, then RELU */
    assert_int_equal(r.dml_nodes, 2);
    assert_output(&r, expected, 24);
    run_tensor_free(&r.output);

    transposes(NULL, "", &r, expected);         /* a model output: one copy */
    assert_int_equal(r.dml_nodes, 1);
    assert_output(&r, expected, 24);
    run_tensor_free(&r.output);

    transposes(back, "Relu", &r, expected);     /* a view of a view composes: still one copy */
    assert_int_equal(r.dml_nodes, 2);
    assert_output(&r, expected, 24);
    run_tensor_free(&r.output);

    transposes(NULL, "Identity", &r, expected); /* an alias of a view is copied once */
    assert_int_equal(r.dml_nodes, 1);
    assert_output(&r, expected, 24);
    run_tensor_free(&r.output);
}

/* x -> TopK (k 2) -> values, indices that nothing reads; x -> Relu -> y. */
static void test_unread_outputs_discarded(void **state)
{
    static const int64_t x_dims[] = {3, 4}, k_dims[] = {1};
    static const char *const topk_in[] = {"x", "k"}, *const topk_out[] = {"values", "indices"},
            *const relu_in[] = {"x"}, *const relu_out[] = {"y"};
    struct run_shape x_shape = {2, {3, 4}};
    Onnx__TensorProto k_proto;
    int64_t k[1] = {2};
    float x[12], expected[12];
    struct test_model t;
    struct lowered r;
    unsigned int i;

    fill(x, 12, 0.0f);
    test_model_init(&t, 13);
    test_model_add_input(&t, "x", ONNX_FLOAT, 2, x_dims);
    test_model_add_output(&t, "y", ONNX_FLOAT, 2, x_dims);
    test_tensor_init(&k_proto, "k", ONNX_INT64, 1, k_dims);
    k_proto.n_int64_data = 1;
    k_proto.int64_data = k;
    test_model_add_initializer(&t, &k_proto);
    test_model_add_node(&t, "TopK", 2, topk_in, 2, topk_out);
    test_model_add_node(&t, "Relu", 1, relu_in, 1, relu_out);
    lower_and_run(&t, x, &x_shape, &r);
    assert_int_equal(r.dml_nodes, 2);
    assert_int_equal(r.discarded, 2);
    for (i = 0; i < 12; ++i)
        expected[i] = x[i] > 0.0f ? x[i] : 0.0f;
    assert_output(&r, expected, 12);
    run_tensor_free(&r.output);
}

/* TopK (k 2) whose values the model leaves out: TOP_K1 writes them to a discarded intermediate. */
static void test_left_out_output(void **state)
{
    static const int64_t x_dims[] = {3, 4}, k_dims[] = {1}, y_dims[] = {3, 2};
    static const char *const topk_in[] = {"x", "k"}, *const topk_out[] = {"", "indices"};
    struct run_shape x_shape = {2, {3, 4}};
    float x[12] = {0.5f, -1.0f, 2.0f, 1.5f, 3.0f, 0.0f, -2.0f, 1.0f, -0.5f, 0.25f, 0.75f, -3.0f};
    const int64_t expected[6] = {2, 3, 0, 3, 2, 1};
    Onnx__TensorProto k_proto;
    int64_t k[1] = {2};
    struct test_model t;
    struct lowered r;

    test_model_init(&t, 13);
    test_model_add_input(&t, "x", ONNX_FLOAT, 2, x_dims);
    test_model_add_output(&t, "indices", ONNX_INT64, 2, y_dims);
    test_tensor_init(&k_proto, "k", ONNX_INT64, 1, k_dims);
    k_proto.n_int64_data = 1;
    k_proto.int64_data = k;
    test_model_add_initializer(&t, &k_proto);
    test_model_add_node(&t, "TopK", 2, topk_in, 2, topk_out);
    lower_and_run(&t, x, &x_shape, &r);
    assert_int_equal(r.dml_nodes, 1);
    assert_int_equal(r.discarded, 1);
    assert_int_equal(r.output.type, ONNX_INT64);
    assert_memory_equal(r.output.data, expected, sizeof(expected));
    run_tensor_free(&r.output);
}

struct op_names
{
    const char *names[512];
    unsigned int count;
};

static void collect_op(const char *op_type, void *user)
{
    struct op_names *ops = user;
    unsigned int i;

    for (i = 0; i < ops->count; ++i)
        if (!strcmp(ops->names[i], op_type))
            fail_msg("%s is in two op families (tools/run/op_table.c)", op_type);
    assert_true(ops->count < 512);
    ops->names[ops->count++] = op_type;
    assert_ptr_equal(run_find_op("", op_type), run_find_op("ai.onnx", op_type));
    assert_non_null(run_find_op("", op_type));
}

/* The op table: each ONNX op type in one family only, found in both spellings of the default domain. */
static void test_op_table(void **state)
{
    struct op_names ops = {{0}, 0};

    run_list_ops(collect_op, &ops);
    assert_true(ops.count > 100);
    assert_null(run_find_op("com.example", "Relu"));
    assert_null(run_find_op("", "NoSuchOp"));
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_teardown(test_transpose_view_into_matmul, vkdml_test_log_teardown),
        cmocka_unit_test_teardown(test_matmul_absorbs_bias, vkdml_test_log_teardown),
        cmocka_unit_test_teardown(test_matmul_absorbs_bias_and_scale, vkdml_test_log_teardown),
        cmocka_unit_test_teardown(test_erf_chain_is_gelu, vkdml_test_log_teardown),
        cmocka_unit_test_teardown(test_transpose_copied_where_not_viewable, vkdml_test_log_teardown),
        cmocka_unit_test_teardown(test_unread_outputs_discarded, vkdml_test_log_teardown),
        cmocka_unit_test_teardown(test_left_out_output, vkdml_test_log_teardown),
        cmocka_unit_test(test_op_table),
    };

    vkdml_test_init_logging();
    return cmocka_run_group_tests(tests, onnx_test_device_setup, onnx_test_device_teardown);
}
