/*
 * vkdml-run on a device (docs/onnx.md, "Lowering", "Running"): lowering errors of hand-made models
 * (a duplicate output name, an unmapped op, another domain, a subgraph attribute, an output no node
 * makes) are reported with the right kind, and the program's exit statuses (0 pass, 1 mismatch,
 * 2 error or unsupported node) on models and test folders written here. The program to run is the
 * first argument (meson passes the built vkdml-run).
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_utils.h"

#include "execute.h"
#include "onnx_test_model.h"

extern char **environ;

static char error[1024];

static const int64_t dims_2x3[] = {2, 3};
static const char *const x_name[] = {"x"}, *const y_name[] = {"y"};
static const char *runner;

/* Lowers `t` with zeroed inputs of the declared shapes; returns the error kind (RUN_OK: lowered). */
static enum run_error_kind lower(const struct test_model *t)
{
    enum run_error_kind kind = RUN_ERROR;
    struct run_tensor inputs[TEST_MAX_IO];
    struct run_options options;
    struct onnx_model m;
    struct run_lower *l;
    unsigned int i;
    uint8_t *bytes;
    size_t size;

    bytes = test_model_pack(t, &size);
    assert_non_null(bytes);
    assert_true(onnx_model_parse(bytes, size, NULL, &m, error, sizeof(error)));
    free(bytes);
    memset(&options, 0, sizeof(options));
    memset(inputs, 0, sizeof(inputs));
    for (i = 0; i < m.input_count; ++i)
        assert_true(run_tensor_alloc(&inputs[i], m.inputs[i].type, &m.inputs[i].shape));
    error[0] = 0;
    if ((l = run_lower_model(onnx_test_device.dml, &m, &options, inputs, error, sizeof(error), &kind)))
    {
        assert_int_equal(kind, RUN_OK);
        assert_true(run_lower_graph(l)->desc.NodeCount >= 1);
        run_lower_free(l);
    }
    for (i = 0; i < m.input_count; ++i)
        run_tensor_free(&inputs[i]);
    onnx_model_free(&m);
    return kind;
}

static void assert_lower_fails(const struct test_model *t, enum run_error_kind kind, const char *message)
{
    assert_int_equal(lower(t), kind);
    if (!strstr(error, message))
        fail_msg("error '%s' does not say '%s'", error, message);
    assert_no_log_errors();
}

static void test_lower_relu(void **state)
{
    struct test_model t;

    test_model_relu(&t);
    assert_int_equal(lower(&t), RUN_OK);
    assert_no_log_errors();
}

static void test_lower_duplicate_output(void **state)
{
    struct test_model t;

    test_model_relu(&t);
    test_model_add_node(&t, "Relu", 1, x_name, 1, y_name)->name = (char *)"again";
    assert_lower_fails(&t, RUN_ERROR, "node 'again' (Relu, opset 13): output 'y' is already defined");
}

static void test_lower_input_named_twice(void **state)
{
    struct test_model t;

    test_model_relu(&t);
    test_model_add_input(&t, "x", ONNX_FLOAT, 2, dims_2x3);
    assert_lower_fails(&t, RUN_ERROR, "input 'x' is named twice");
}

static void test_lower_output_made_by_no_node(void **state)
{
    struct test_model t;

    test_model_relu(&t);
    test_model_add_output(&t, "z", ONNX_FLOAT, 2, dims_2x3);
    assert_lower_fails(&t, RUN_ERROR, "output 'z' is made by no node");
}

static void test_lower_unmapped(void **state)
{
    Onnx__GraphProto body = ONNX__GRAPH_PROTO__INIT;
    Onnx__AttributeProto a = ONNX__ATTRIBUTE_PROTO__INIT, *list[1] = {&a};
    struct test_model t;

    test_model_relu(&t);
    t.nodes[0].op_type = (char *)"NoSuchOp";
    assert_lower_fails(&t, RUN_UNSUPPORTED, "node '#0' (NoSuchOp, opset 13): unsupported: NoSuchOp is not mapped");

    test_model_relu(&t);
    t.nodes[0].domain = (char *)"com.example";
    assert_lower_fails(&t, RUN_UNSUPPORTED, "unsupported: operators of domain 'com.example' are not mapped");

    test_model_relu(&t);
    a.name = (char *)"body";
    a.has_type = 1;
    a.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
    a.g = &body;
    t.nodes[0].n_attribute = 1;
    t.nodes[0].attribute = list;
    assert_lower_fails(&t, RUN_UNSUPPORTED, "unsupported: a subgraph attribute");
}

/* ---- Exit statuses of the program ---- */

struct program_result
{
    int status;                         /* the exit status, or -1: killed by a signal */
    char out[8192], err[8192];
};

static void read_text(const char *path, char *text, size_t size)
{
    FILE *f = fopen(path, "rb");
    size_t length = f ? fread(text, 1, size - 1, f) : 0;

    text[length] = 0;
    if (f)
        fclose(f);
    unlink(path);
}

/* Runs vkdml-run with `args` (NULL-terminated), its output into files in `folder`. */
static void run_program(const char *folder, const char *const *args, struct program_result *r)
{
    char out_path[4096], err_path[4096];
    const char *argv[16] = {runner};
    posix_spawn_file_actions_t actions;
    unsigned int i;
    pid_t pid;
    int status;

    for (i = 0; args[i] && i + 2 < 16; ++i)
        argv[i + 1] = args[i];
    snprintf(out_path, sizeof(out_path), "%s/stdout.txt", folder);
    snprintf(err_path, sizeof(err_path), "%s/stderr.txt", folder);
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_int_equal(posix_spawn(&pid, runner, &actions, NULL, (char *const *)argv, environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    r->status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    read_text(out_path, r->out, sizeof(r->out));
    read_text(err_path, r->err, sizeof(r->err));
    if (strstr(r->err, ":validation:"))
        fail_msg("validation message: %s", r->err);
}

static void expect_program(const char *folder, const char *const *args, int status, const char *message)
{
    struct program_result r;

    run_program(folder, args, &r);
    if (r.status != status || (message && !strstr(r.out, message) && !strstr(r.err, message)))
        fail_msg("exit status %d (expected %d, '%s'); stdout: %s; stderr: %s", r.status, status,
                message ? message : "", r.out, r.err);
}

static void write_model(const char *folder, const char *name, const struct test_model *t)
{
    size_t size;
    uint8_t *bytes = test_model_pack(t, &size);

    assert_non_null(bytes);
    assert_true(test_write_file(folder, name, bytes, size));
    free(bytes);
}

/* A data set folder `name` with input_0.pb (x = -2.5 .. 2.5) and output_0.pb: Relu(x), with the
 * element at `wrong` (-1: none) off by one, of `shape`. */
static void write_set(const char *folder, const char *name, int wrong, const char *shape_text)
{
    struct run_tensor x, y;
    struct run_shape shape;
    char path[4096];
    unsigned int i;

    snprintf(path, sizeof(path), "%s/%s", folder, name);
    assert_int_equal(mkdir(path, 0755), 0);
    assert_true(run_shape_parse("2x3", &shape));
    assert_true(run_tensor_alloc(&x, ONNX_FLOAT, &shape));
    assert_true(run_shape_parse(shape_text, &shape));
    assert_true(run_tensor_alloc(&y, ONNX_FLOAT, &shape));
    for (i = 0; i < 6; ++i)
        run_tensor_set_double(&x, i, (double)i - 2.5);
    for (i = 0; i < run_shape_elements(&shape); ++i)
        run_tensor_set_double(&y, i, (i < 6 && i > 2 ? (double)i - 2.5 : 0.0) + ((int)i == wrong));
    snprintf(path, sizeof(path), "%s/%s/input_0.pb", folder, name);
    assert_true(run_tensor_save(path, &x, error, sizeof(error)));
    snprintf(path, sizeof(path), "%s/%s/output_0.pb", folder, name);
    assert_true(run_tensor_save(path, &y, error, sizeof(error)));
    run_tensor_free(&x);
    run_tensor_free(&y);
}

static void remove_set(const char *folder, const char *name)
{
    char path[4096];

    snprintf(path, sizeof(path), "%s/%s/input_0.pb", folder, name);
    unlink(path);
    snprintf(path, sizeof(path), "%s/%s/output_0.pb", folder, name);
    unlink(path);
    snprintf(path, sizeof(path), "%s/%s", folder, name);
    rmdir(path);
}

static void test_exit_statuses(void **state)
{
    static const uint8_t garbage[] = {0x3a, 0x7f, 0x0a, 0xff};
    char folder[] = "/tmp/vkdml-onnx-run-XXXXXX", model[4096], path[4096], bad_model[4096];
    char unsupported_model[4096], empty[4096], missing[4096];
    struct test_model t;

    assert_non_null(mkdtemp(folder));
    test_model_relu(&t);
    write_model(folder, "model.onnx", &t);
    t.nodes[0].op_type = (char *)"NoSuchOp";
    write_model(folder, "unsupported.onnx", &t);
    assert_true(test_write_file(folder, "bad.onnx", garbage, sizeof(garbage)));
    write_set(folder, "test_data_set_0", -1, "2x3");
    write_set(folder, "wrong_value", 4, "2x3");
    write_set(folder, "wrong_shape", -1, "3x2");
    snprintf(empty, sizeof(empty), "%s/empty", folder);
    assert_int_equal(mkdir(empty, 0755), 0);
    snprintf(model, sizeof(model), "%s/model.onnx", folder);
    snprintf(bad_model, sizeof(bad_model), "%s/bad.onnx", folder);
    snprintf(unsupported_model, sizeof(unsupported_model), "%s/unsupported.onnx", folder);
    snprintf(missing, sizeof(missing), "%s/missing.onnx", folder);

    /* The test folder (its test_data_set_0), and the data set folder itself. */
    expect_program(folder, (const char *[]){model, "--check", folder, NULL}, 0, "output 'y': OK");
    snprintf(path, sizeof(path), "%s/test_data_set_0", folder);
    expect_program(folder, (const char *[]){model, "--check", path, NULL}, 0, "output 'y': OK");
    /* No inputs given: random ones, no check. */
    expect_program(folder, (const char *[]){model, NULL}, 0, NULL);

    snprintf(path, sizeof(path), "%s/wrong_value", folder);
    expect_program(folder, (const char *[]){model, "--check", path, NULL}, 1,
            "MISMATCH: 1 of 6 values (first at 4");
    snprintf(path, sizeof(path), "%s/wrong_shape", folder);
    expect_program(folder, (const char *[]){model, "--check", path, NULL}, 1,
            "MISMATCH: got float 2x3, expected float 3x2");

    expect_program(folder, (const char *[]){bad_model, NULL}, 2, "vkdml-run: error: ");
    expect_program(folder, (const char *[]){missing, NULL}, 2, "cannot read the file");
    expect_program(folder, (const char *[]){unsupported_model, "--check", folder, NULL}, 2,
            "unsupported: NoSuchOp is not mapped");
    expect_program(folder, (const char *[]){model, "--check", empty, NULL}, 2, "holds no output_N.pb");
    expect_program(folder, (const char *[]){model, "--no-such-option", NULL}, 2, NULL);

    remove_set(folder, "test_data_set_0");
    remove_set(folder, "wrong_value");
    remove_set(folder, "wrong_shape");
    rmdir(empty);
    unlink(model);
    unlink(bad_model);
    unlink(unsupported_model);
    rmdir(folder);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_teardown(test_lower_relu, vkdml_test_log_teardown),
        cmocka_unit_test_teardown(test_lower_duplicate_output, vkdml_test_log_teardown),
        cmocka_unit_test_teardown(test_lower_input_named_twice, vkdml_test_log_teardown),
        cmocka_unit_test_teardown(test_lower_output_made_by_no_node, vkdml_test_log_teardown),
        cmocka_unit_test_teardown(test_lower_unmapped, vkdml_test_log_teardown),
        cmocka_unit_test(test_exit_statuses),
    };

    if (argc != 2)
    {
        fprintf(stderr, "Usage: %s VKDML-RUN\n", argv[0]);
        return 2;
    }
    runner = argv[1];
    vkdml_test_init_logging();
    return cmocka_run_group_tests(tests, onnx_test_device_setup, onnx_test_device_teardown);
}
