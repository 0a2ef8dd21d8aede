/*
 * The graph compiler's element-wise chains against one element-wise ADD (docs/graph.md,
 * "elementwise"): (x + y) * z - x over BENCH_ELEMENTS (default 2^26: 256 MiB per FLOAT32 tensor)
 * as a graph with the pass (one dispatch reading three inputs and writing one output: 16 bytes
 * per element) and without it (three dispatches: 36 bytes), and one ADD (12 bytes). With the
 * pass the chain should move its bytes at the ADD's bandwidth. Not a test (meson builds it,
 * `meson test` does not run it); wall clock as bench_elementwise.c, BENCH_K dispatches per list.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench_utils.h"
#include "dml_graph_utils.h"
#include "vkdml.h"

#define RANK 1

struct bench_case
{
    struct dml_test_tensor tensor;
    UINT64 elements;
    int k;
};

static IDMLCompiledOperator *compile_chain(struct dml_test_context *context, const struct dml_test_tensor *t)
{
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC add = {&t->desc, &t->desc, &t->desc}, mul = add, sub = add;
    struct dml_graph_builder builder = {0};
    UINT a, m, s;

    a = dml_graph_add_op(context, &builder, DML_OPERATOR_ELEMENT_WISE_ADD, &add);
    m = dml_graph_add_op(context, &builder, DML_OPERATOR_ELEMENT_WISE_MULTIPLY, &mul);
    s = dml_graph_add_op(context, &builder, DML_OPERATOR_ELEMENT_WISE_SUBTRACT, &sub);
    dml_graph_connect_input(&builder, 0, a, 0);
    dml_graph_connect_input(&builder, 1, a, 1);
    dml_graph_connect(&builder, a, 0, m, 0);
    dml_graph_connect_input(&builder, 2, m, 1);
    dml_graph_connect(&builder, m, 0, s, 0);
    dml_graph_connect_input(&builder, 0, s, 1);
    dml_graph_connect_output(&builder, s, 0, 0);
    return dml_graph_compile(context, &builder, DML_EXECUTION_FLAG_NONE);
}

/* Times `compiled` over `input_count` inputs and one output, all `c->tensor` sized. */
static void time_compiled(struct dml_test_context *context, const struct bench_case *c, IDMLCompiledOperator *compiled,
        UINT input_count, const char *name, double bytes_per_element)
{
    UINT64 size = c->tensor.buffer.TotalTensorSizeInBytes;
    ID3D12Resource *buffers[4], *temporary, *persistent;
    DML_BUFFER_BINDING bb[4];
    DML_BINDING_DESC bd[4];
    IDMLBindingTable *table;
    double seconds;
    UINT i;

    persistent = dml_test_initialize(context, compiled, NULL, 0);
    for (i = 0; i <= input_count; ++i)
    {
        buffers[i] = dml_test_create_buffer(context, size, NULL);
        bb[i] = (DML_BUFFER_BINDING){buffers[i], 0, size};
        bd[i] = (DML_BINDING_DESC){DML_BINDING_TYPE_BUFFER, &bb[i]};
    }
    table = dml_test_create_table(context, compiled);
    IDMLBindingTable_BindInputs(table, input_count, bd);
    IDMLBindingTable_BindOutputs(table, 1, &bd[input_count]);
    temporary = dml_test_bind_temporary(context, table, compiled);
    bench_time_dispatches(context, compiled, table, 2);
    seconds = bench_time_dispatches(context, compiled, table, c->k) / c->k;
    printf("%-40s %10llu elements: %8.3f ms, %7.1f GB/s\n", name, (unsigned long long)c->elements, seconds * 1e3,
            bytes_per_element * c->elements / seconds / 1e9);
    fflush(stdout);
    IDMLBindingTable_Release(table);
    if (temporary)
        ID3D12Resource_Release(temporary);
    if (persistent)
        ID3D12Resource_Release(persistent);
    for (i = 0; i <= input_count; ++i)
        ID3D12Resource_Release(buffers[i]);
}

static void time_chain(struct dml_test_context *context, const struct bench_case *c, const char *name)
{
    UINT element_size = dml_test_element_size(c->tensor.buffer.DataType);
    IDMLCompiledOperator *compiled = compile_chain(context, &c->tensor);
    struct vkdml_graph_report report;

    assert_int_equal(vkdml_get_graph_report(compiled, &report, sizeof(report)), S_OK);
    /* DRAM traffic: each dispatch reads its inputs and writes its output once. */
    time_compiled(context, c, compiled, 3, name, (report.dispatch_count == 1 ? 4.0 : 9.0) * element_size);
    printf("%-40s %u dispatches, %u nodes fused\n", "", report.dispatch_count, report.fused_elementwise);
    assert_int_equal(IDMLCompiledOperator_Release(compiled), 0);
}

static void run_type(struct dml_test_context *context, DML_TENSOR_DATA_TYPE type, UINT64 elements, int k)
{
    struct bench_case c = {.elements = elements, .k = k};
    UINT element_size = dml_test_element_size(type), sizes[RANK] = {(UINT)elements};
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC add = {&c.tensor.desc, &c.tensor.desc, &c.tensor.desc};
    IDMLCompiledOperator *compiled;
    const char *type_name = dml_test_type_name(type);
    char name[64];

    if (dml_test_skip_float16(context, type, "bench"))
        return;
    dml_test_tensor_init(&c.tensor, type, RANK, sizes, NULL);
    compiled = dml_test_compile(context, DML_OPERATOR_ELEMENT_WISE_ADD, &add, DML_EXECUTION_FLAG_NONE);
    snprintf(name, sizeof(name), "ADD %s", type_name);
    time_compiled(context, &c, compiled, 2, name, 3.0 * element_size);
    IDMLCompiledOperator_Release(compiled);
    snprintf(name, sizeof(name), "(x + y) * z - x %s, chain", type_name);
    time_chain(context, &c, name);
    dml_test_set_knob(context, "VKDML_GRAPH_OPT", "-elementwise");
    snprintf(name, sizeof(name), "(x + y) * z - x %s, one by one", type_name);
    time_chain(context, &c, name);
    dml_test_set_knob(context, "VKDML_GRAPH_OPT", NULL);
}

static void run(void **state)
{
    UINT64 elements = getenv("BENCH_ELEMENTS") ? strtoull(getenv("BENCH_ELEMENTS"), NULL, 0) : UINT64_C(1) << 26;
    int k = getenv("BENCH_K") ? atoi(getenv("BENCH_K")) : 20;

    run_type(*state, DML_TENSOR_DATA_TYPE_FLOAT32, elements, k);
    run_type(*state, DML_TENSOR_DATA_TYPE_FLOAT16, elements, k);
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(run, dml_test_setup, dml_test_teardown),
    };

    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
