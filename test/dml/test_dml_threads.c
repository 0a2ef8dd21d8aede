/*
 * Threads sharing one DML device, one command recorder and one queue (README.md, "Sanitizers"):
 * each creates and compiles the same operator (so their compiled operators share one pipeline),
 * names it in a loop, initializes it and records it into its own command list, and executes that
 * list on the shared queue. Meant for ThreadSanitizer (CI's TSan job, test/tsan.supp) as much as
 * for the answers it checks: every thread's output is right, nothing is logged, nothing leaks.
 */
#include "dml/dml_rules_utils.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#define THREAD_COUNT 4
#define ELEMENTS 32
#define NAMES_PER_THREAD 256
#define DISPATCHES_PER_THREAD 4
#define DESCRIPTORS_PER_THREAD 16

struct worker
{
    struct dml_context *context;
    pthread_barrier_t *barrier;
    const struct dml_tensor *tensor;
    ID3D12Resource *input, *output;
    ID3D12CommandAllocator *allocator;
    ID3D12GraphicsCommandList *list;
    IDMLCompiledOperator *compiled;
    unsigned int index;
    const char *failed;                 /* the step that failed, or NULL */
    HRESULT hr;
};

/* A table over the worker's own descriptors of the shared heap. */
static HRESULT create_table(struct worker *w, IDMLDispatchable *dispatchable, IDMLBindingTable **table)
{
    struct dml_context *context = w->context;
    DML_BINDING_TABLE_DESC desc;

    desc.Dispatchable = dispatchable;
    desc.CPUDescriptorHandle = cpu_handle(context->heap, context->increment, w->index * DESCRIPTORS_PER_THREAD);
    desc.GPUDescriptorHandle = gpu_handle(context->heap, context->increment, w->index * DESCRIPTORS_PER_THREAD);
    desc.SizeInDescriptors = DESCRIPTORS_PER_THREAD;
    return IDMLDevice_CreateBindingTable(context->dml, &desc, &IID_IDMLBindingTable, (void **)table);
}

static BOOL check_step(struct worker *w, HRESULT hr, const char *step)
{
    if (SUCCEEDED(hr))
        return TRUE;
    w->hr = hr;
    w->failed = step;
    return FALSE;
}

static BOOL create_and_compile(struct worker *w)
{
    DML_ELEMENT_WISE_SQRT_OPERATOR_DESC desc = {&w->tensor->desc, &w->tensor->desc, NULL};
    DML_OPERATOR_DESC op_desc = {DML_OPERATOR_ELEMENT_WISE_SQRT, &desc};
    IDMLOperator *op;
    HRESULT hr;

    if (!check_step(w, IDMLDevice_CreateOperator(w->context->dml, &op_desc, &IID_IDMLOperator, (void **)&op),
            "CreateOperator"))
        return FALSE;
    hr = IDMLDevice_CompileOperator(w->context->dml, op, DML_EXECUTION_FLAG_NONE, &IID_IDMLCompiledOperator,
            (void **)&w->compiled);
    IDMLOperator_Release(op);
    return check_step(w, hr, "CompileOperator");
}

/* Identical compiled operators share one pipeline: every thread names the same one. */
static BOOL name_in_loop(struct worker *w)
{
    wchar_t name[32];
    unsigned int i;

    for (i = 0; i < NAMES_PER_THREAD; ++i)
    {
        swprintf(name, ARRAY_SIZE(name), L"sqrt thread %u name %u", w->index, i);
        if (!check_step(w, IDMLCompiledOperator_SetName(w->compiled, name), "SetName"))
            return FALSE;
    }
    return TRUE;
}

static BOOL record_initializer(struct worker *w)
{
    IDMLOperatorInitializer *initializer;
    IDMLBindingTable *table;
    HRESULT hr;

    if (!check_step(w, IDMLDevice_CreateOperatorInitializer(w->context->dml, 1, &w->compiled,
            &IID_IDMLOperatorInitializer, (void **)&initializer), "CreateOperatorInitializer"))
        return FALSE;
    if (SUCCEEDED(hr = create_table(w, (IDMLDispatchable *)initializer, &table)))
    {
        IDMLCommandRecorder_RecordDispatch(w->context->recorder, (ID3D12CommandList *)w->list,
                (IDMLDispatchable *)initializer, table);
        IDMLBindingTable_Release(table);
    }
    IDMLOperatorInitializer_Release(initializer);
    return check_step(w, hr, "CreateBindingTable (initializer)");
}

static BOOL record_dispatches(struct worker *w)
{
    DML_BUFFER_BINDING in_binding = dml_buffer_binding(w->input, 0, dml_tensor_bytes(w->tensor));
    DML_BUFFER_BINDING out_binding = dml_buffer_binding(w->output, 0, dml_tensor_bytes(w->tensor));
    DML_BINDING_DESC in_desc = dml_binding(&in_binding), out_desc = dml_binding(&out_binding);
    IDMLBindingTable *table;
    unsigned int i;

    if (!check_step(w, create_table(w, (IDMLDispatchable *)w->compiled, &table), "CreateBindingTable"))
        return FALSE;
    IDMLBindingTable_BindInputs(table, 1, &in_desc);
    IDMLBindingTable_BindOutputs(table, 1, &out_desc);
    for (i = 0; i < DISPATCHES_PER_THREAD; ++i)
    {
        uav_barrier(w->list, NULL);
        IDMLCommandRecorder_RecordDispatch(w->context->recorder, (ID3D12CommandList *)w->list,
                (IDMLDispatchable *)w->compiled, table);
    }
    IDMLBindingTable_Release(table);
    return TRUE;
}

/* No cmocka asserts in threads (they longjmp): the failed step is left in the worker. */
static void *worker_main(void *arg)
{
    ID3D12DescriptorHeap *heaps[1];
    struct worker *w = arg;
    ID3D12CommandList *list;
    BOOL compiled;

    heaps[0] = w->context->heap;
    pthread_barrier_wait(w->barrier);
    compiled = create_and_compile(w);
    /* Every thread reaches the second barrier, so that the names are set at once. */
    pthread_barrier_wait(w->barrier);
    if (!compiled || !name_in_loop(w))
        return NULL;
    ID3D12GraphicsCommandList_SetDescriptorHeaps(w->list, 1, heaps);
    if (!record_initializer(w) || !record_dispatches(w))
        return NULL;
    if (!check_step(w, ID3D12GraphicsCommandList_Close(w->list), "Close"))
        return NULL;
    list = (ID3D12CommandList *)w->list;
    ID3D12CommandQueue_ExecuteCommandLists(w->context->d3d.queue, 1, &list);
    return NULL;
}

static void init_worker(struct dml_context *context, struct worker *w, unsigned int index,
        pthread_barrier_t *barrier, const struct dml_tensor *tensor, const float *data)
{
    memset(w, 0, sizeof(*w));
    w->context = context;
    w->barrier = barrier;
    w->tensor = tensor;
    w->index = index;
    w->input = dml_create_buffer(context, dml_tensor_bytes(tensor), 0, data, ELEMENTS * sizeof(*data));
    w->output = dml_create_buffer(context, dml_tensor_bytes(tensor), 0, NULL, 0);
    check_hr(ID3D12Device_CreateCommandAllocator(context->d3d.device, D3D12_COMMAND_LIST_TYPE_DIRECT,
            &IID_ID3D12CommandAllocator, (void **)&w->allocator), S_OK);
    check_hr(ID3D12Device_CreateCommandList(context->d3d.device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT,
            w->allocator, NULL, &IID_ID3D12GraphicsCommandList, (void **)&w->list), S_OK);
}

static void check_worker(struct dml_context *context, struct worker *w, const float *data)
{
    float result[ELEMENTS];
    unsigned int i;

    if (w->failed)
        fail_msg("thread %u: %s failed, hr %#x", w->index, w->failed, (unsigned int)w->hr);
    dml_read_buffer(context, w->output, 0, result, sizeof(result));
    for (i = 0; i < ELEMENTS; ++i)
    {
        if (fabsf(result[i] - sqrtf(data[i])) > 1e-6f * sqrtf(data[i]))
            fail_msg("thread %u: element %u is %.9g, expected sqrt(%.9g)", w->index, i, result[i], data[i]);
    }
    release_last(w->compiled);
    release_last(w->list);
    release_last(w->allocator);
    release_last(w->input);
    release_last(w->output);
}

static void test_threads_share_device_recorder_queue(void **state)
{
    struct dml_context *context = *state;
    float data[THREAD_COUNT][ELEMENTS];
    struct worker workers[THREAD_COUNT];
    pthread_t handles[THREAD_COUNT];
    pthread_barrier_t barrier;
    struct dml_tensor tensor;
    UINT sizes[1] = {ELEMENTS};
    unsigned int i, j;

    assert_true(THREAD_COUNT * DESCRIPTORS_PER_THREAD <= DML_CONTEXT_DESCRIPTORS);
    dml_tensor_init(&tensor, DML_TENSOR_DATA_TYPE_FLOAT32, 1, sizes, DML_TENSOR_FLAG_NONE);
    pthread_barrier_init(&barrier, NULL, THREAD_COUNT);
    for (i = 0; i < THREAD_COUNT; ++i)
    {
        for (j = 0; j < ELEMENTS; ++j)
            data[i][j] = (float)(i * ELEMENTS + j);
        init_worker(context, &workers[i], i, &barrier, &tensor, data[i]);
    }
    /* The buffers' uploads and transitions are in the context's list: run them first. */
    dml_execute_and_wait(context);

    for (i = 0; i < THREAD_COUNT; ++i)
        assert_int_equal(pthread_create(&handles[i], NULL, worker_main, &workers[i]), 0);
    for (i = 0; i < THREAD_COUNT; ++i)
        assert_int_equal(pthread_join(handles[i], NULL), 0);
    pthread_barrier_destroy(&barrier);
    wait_queue_idle(&context->d3d);
    dml_check_not_removed(context->dml);

    for (i = 0; i < THREAD_COUNT; ++i)
        check_worker(context, &workers[i], data[i]);
    assert_no_log_errors();
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_threads_share_device_recorder_queue, dml_context_setup,
                dml_context_teardown),
    };

    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
