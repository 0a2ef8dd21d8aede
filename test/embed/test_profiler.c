/*
 * The profiler (vkdml.h) on vkdml's own D3D12 device and a shim command list: timestamps are
 * monotonic and non-zero, named after the operator, read back only once executed; a full profiler
 * times what it holds; lists keep their profiler alive; reset; every error path. (The example in
 * test_engine_embedding.c times dispatches recorded into an engine's command buffer.)
 */
#include "embed_utils.h"

#define BIG_COUNT (1u << 20)
#define WAS_STILL_DRAWING ((HRESULT)0x887A000A)

static void check_monotonic(const struct vkdml_profiler_entry *entries, uint32_t count)
{
    uint32_t i;

    for (i = 0; i < count; ++i)
    {
        assert_string_equal(entries[i].name, "ELEMENT_WISE_ADD");
        assert_true(entries[i].start_ns > 0);
        assert_true(entries[i].end_ns > entries[i].start_ns);
        assert_int_equal(entries[i].duration_ns, entries[i].end_ns - entries[i].start_ns);
        if (i)
            assert_true(entries[i].start_ns >= entries[i - 1].end_ns);
    }
}

/* out = a + b on 4 MiB tensors, long enough for any timer. */
struct big_add
{
    struct tensor tensor;
    IDMLCompiledOperator *op;
    IDMLBindingTable *table;
    ID3D12Resource *buffers[3], *temporary;
};

static void big_add_prepare(struct embed *e, struct big_add *add)
{
    UINT64 sizes[2];
    unsigned int i;

    tensor_init(&add->tensor, DML_TENSOR_DATA_TYPE_FLOAT32, 1, BIG_COUNT);
    check_hr(create_add(e, &add->tensor, &add->tensor, &add->tensor, &add->op), S_OK);
    for (i = 0; i < 3; ++i)
        add->buffers[i] = shim_buffer(e, add->tensor.buffer.TotalTensorSizeInBytes);
    sizes[0] = sizes[1] = add->tensor.buffer.TotalTensorSizeInBytes;
    add->table = bind_operator(e, add->op, add->buffers, sizes, 2, add->buffers[2], sizes[0], &add->temporary);
}

static void big_add_record(struct embed *e, struct big_add *add, ID3D12GraphicsCommandList *list, unsigned int times)
{
    unsigned int i;

    for (i = 0; i < times; ++i)
    {
        IDMLCommandRecorder_RecordDispatch(e->recorder, (ID3D12CommandList *)list, (IDMLDispatchable *)add->op,
                add->table);
        uav_barrier(list);
    }
}

static void big_add_release(struct big_add *add)
{
    unsigned int i;

    release_if(add->table);
    release_if(add->op);
    for (i = 0; i < 3; ++i)
        release_if(add->buffers[i]);
    release_if(add->temporary);
}

/* A full profiler times what it holds and warns once; attached lists keep it alive. */
static void test_profiler_capacity_and_lifetime(void **state)
{
    struct vkdml_profiler_entry entries[3];
    struct vkdml_profiler *profiler;
    struct big_add add;
    struct shim shim;
    struct embed e;
    uint32_t count = 3;

    shim_embed_create(&e, &shim);
    big_add_prepare(&e, &add);
    /* On the D3D12 device this time (the example creates one on the IDMLDevice). */
    check_hr(vkdml_profiler_create(shim.device, 2, &profiler), S_OK);
    check_hr(vkdml_command_list_set_profiler(shim.list, profiler), S_OK);
    big_add_record(&e, &add, shim.list, 3);
    shim_execute_and_wait(&shim, 1);
    check_hr(IDMLDevice_GetDeviceRemovedReason(e.dml), S_OK);
    check_hr(vkdml_profiler_get_results(profiler, entries, sizeof(entries[0]), &count), S_OK);
    assert_int_equal(count, 2);
    check_monotonic(entries, 2);

    /* The application's reference goes first; the list's keeps it until detached. */
    vkdml_profiler_destroy(profiler);
    check_hr(vkdml_command_list_set_profiler(shim.list, NULL), S_OK);
    big_add_release(&add);
    shim_embed_destroy(&e, &shim);
}

static void test_profiler_results(void **state)
{
    struct vkdml_profiler_entry entries[3], small[1];
    struct vkdml_profiler *profiler;
    struct big_add add;
    struct shim shim;
    struct embed e;
    uint32_t count;
    unsigned int i;

    shim_embed_create(&e, &shim);
    big_add_prepare(&e, &add);
    check_hr(vkdml_profiler_create(e.dml, 3, &profiler), S_OK);
    check_hr(vkdml_command_list_set_profiler(shim.list, profiler), S_OK);
    big_add_record(&e, &add, shim.list, 3);
    /* Recorded, not executed: not ready. */
    count = 3;
    check_hr(vkdml_profiler_get_results(profiler, entries, sizeof(entries[0]), &count), WAS_STILL_DRAWING);
    shim_execute_and_wait(&shim, 1);
    check_hr(IDMLDevice_GetDeviceRemovedReason(e.dml), S_OK);

    count = 0;
    check_hr(vkdml_profiler_get_results(profiler, NULL, 0, &count), S_OK);
    assert_int_equal(count, 3);
    count = 3;
    check_hr(vkdml_profiler_get_results(profiler, entries, sizeof(entries[0]), &count), S_OK);
    assert_int_equal(count, 3);
    for (i = 0; i < 3; ++i)
        fprintf(stderr, "  %s: %llu ns\n", entries[i].name, (unsigned long long)entries[i].duration_ns);
    check_monotonic(entries, 3);
    count = 1;
    check_hr(vkdml_profiler_get_results(profiler, small, sizeof(small[0]), &count), S_FALSE);
    assert_int_equal(count, 3);
    assert_int_equal(small[0].start_ns, entries[0].start_ns);

    /* Reset: the slots start over. */
    check_hr(vkdml_profiler_reset(profiler), S_OK);
    count = 3;
    check_hr(vkdml_profiler_get_results(profiler, entries, sizeof(entries[0]), &count), S_OK);
    assert_int_equal(count, 0);

    vkdml_profiler_destroy(profiler);   /* the list's reference keeps it until the list goes */
    big_add_release(&add);
    shim_embed_destroy(&e, &shim);
}

static void test_profiler_errors(void **state)
{
    struct vkdml_profiler_entry entries[1];
    struct vkdml_profiler *profiler, *other;
    ID3D12Resource *buffer;
    ID3D12Device *second;
    struct shim shim;
    struct embed e;
    uint32_t count = 1;

    shim_embed_create(&e, &shim);
    check_hr(vkdml_profiler_create(shim.device, 4, &profiler), S_OK);
    buffer = shim_buffer(&e, 256);

    other = profiler;
    check_hr(vkdml_profiler_create(NULL, 4, &other), E_INVALIDARG);
    assert_null(other);
    check_one_error("device is NULL");
    check_hr(vkdml_profiler_create(shim.device, 4, NULL), E_POINTER);
    check_one_error("profiler is NULL");
    check_hr(vkdml_profiler_create(shim.device, 0, &other), E_INVALIDARG);
    check_one_error("max_dispatches 0");
    check_hr(vkdml_profiler_create(shim.device, (1u << 20) + 1, &other), E_INVALIDARG);
    check_one_error("max_dispatches");
    check_hr(vkdml_profiler_create(buffer, 4, &other), E_INVALIDARG);
    check_one_error("neither an IDMLDevice nor an ID3D12Device");

    check_hr(vkdml_profiler_get_results(NULL, entries, sizeof(entries[0]), &count), E_INVALIDARG);
    check_one_error("profiler is NULL");
    check_hr(vkdml_profiler_get_results(profiler, entries, sizeof(entries[0]), NULL), E_INVALIDARG);
    check_one_error("count is NULL");
    check_hr(vkdml_profiler_get_results(profiler, entries, 8, &count), E_INVALIDARG);
    check_one_error("entry_size 8");
    check_hr(vkdml_profiler_reset(NULL), E_INVALIDARG);
    check_one_error("profiler is NULL");

    check_hr(vkdml_command_list_set_profiler(NULL, profiler), E_INVALIDARG);
    check_one_error("not an ID3D12GraphicsCommandList");
    check_hr(vkdml_command_list_set_profiler(e.dml, profiler), E_INVALIDARG);
    check_one_error("not an ID3D12GraphicsCommandList");
    check_hr(vkdml_create_d3d12_device(NULL, &IID_ID3D12Device, (void **)&second), S_OK);
    check_hr(vkdml_profiler_create(second, 4, &other), S_OK);
    check_hr(vkdml_command_list_set_profiler(shim.list, other), E_INVALIDARG);
    check_one_error("another D3D12 device");
    vkdml_profiler_destroy(other);
    assert_int_equal(ID3D12Device_Release(second), 0);
    vkdml_profiler_destroy(NULL);

    vkdml_profiler_destroy(profiler);
    release_if(buffer);
    shim_embed_destroy(&e, &shim);
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_profiler_capacity_and_lifetime, vkdml_test_log_setup,
                vkdml_test_log_teardown),
        cmocka_unit_test_setup_teardown(test_profiler_results, vkdml_test_log_setup, vkdml_test_log_teardown),
        cmocka_unit_test_setup_teardown(test_profiler_errors, vkdml_test_log_setup, vkdml_test_log_teardown),
    };

    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
