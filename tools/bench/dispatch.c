/*
 * vkdml-bench's small-dispatch workload: fixed costs. A chain of CHAIN_LENGTH dependent ADDs of
 * CHAIN_ELEMENTS floats, ping-ponging between two buffers with a UAV barrier after each, timed by
 * the profiler around the first and the last dispatch only (per-dispatch timestamps would add
 * their own cost); and the CPU cost of RecordDispatch. The bare-Vulkan side is in bare.c.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Small dispatches ---- */

/* x + CHAIN_LENGTH x bias, added one dispatch at a time in fp32 as the chain does. */
static void chain_expected(const float *x, const float *bias, float *expected)
{
    unsigned int i, step;

    for (i = 0; i < CHAIN_ELEMENTS; ++i)
    {
        float value = x[i];

        for (step = 0; step < CHAIN_LENGTH; ++step)
            value += bias[i];
        expected[i] = value;
    }
}

bool chain_matches(const float *got, const float *expected, const char *what)
{
    unsigned int i;

    for (i = 0; i < CHAIN_ELEMENTS; ++i)
    {
        if (got[i] != expected[i])
        {
            fprintf(stderr, "vkdml-bench: %s: element %u: got %.9g, expected %.9g\n", what, i, got[i], expected[i]);
            return false;
        }
    }
    return true;
}

static void release_chain(struct chain *c)
{
    unsigned int i;

    for (i = 0; i < 2; ++i)
    {
        if (c->tables[i])
            IDMLBindingTable_Release(c->tables[i]);
    }
    if (c->x)
        ID3D12Resource_Release(c->x);
    if (c->bias)
        ID3D12Resource_Release(c->bias);
    if (c->y)
        ID3D12Resource_Release(c->y);
    if (c->persistent)
        ID3D12Resource_Release(c->persistent);
    if (c->compiled)
        IDMLCompiledOperator_Release(c->compiled);
}

static void chain_workload(struct workload *w)
{
    memset(w, 0, sizeof(*w));
    w->op = find_op("add");
    w->type = FP32;
    w->dims[0] = CHAIN_ELEMENTS;
    w->dim_count = 1;
    build_workload(w);
}

static HRESULT bind_chain_tables(struct bench *b, struct chain *c)
{
    ID3D12Resource *sources[2] = {c->x, c->y};
    UINT64 size = CHAIN_ELEMENTS * sizeof(float);
    DML_BUFFER_BINDING storage[4];
    DML_BINDING_DESC inputs[2], output, desc;
    unsigned int i;
    HRESULT hr;

    for (i = 0; i < 2; ++i)
    {
        if (FAILED(hr = create_table(b, c->compiled, 2 + i, &c->tables[i])))
            return hr;
        if (c->persistent)
        {
            desc = tool_buffer_binding(&storage[3], c->persistent,
                    IDMLCompiledOperator_GetBindingPropertiesByValue(c->compiled).PersistentResourceSize);
            IDMLBindingTable_BindPersistentResource(c->tables[i], &desc);
        }
        inputs[0] = tool_buffer_binding(&storage[0], sources[i], size);
        inputs[1] = tool_buffer_binding(&storage[1], c->bias, size);
        output = tool_buffer_binding(&storage[2], sources[!i], size);
        IDMLBindingTable_BindInputs(c->tables[i], 2, inputs);
        IDMLBindingTable_BindOutputs(c->tables[i], 1, &output);
    }
    return S_OK;
}

static bool create_chain(struct bench *b, struct chain *c, struct dispatch_result *d)
{
    uint32_t seed = 777;
    unsigned int i;
    HRESULT hr;

    chain_workload(&c->w);
    for (i = 0; i < CHAIN_ELEMENTS; ++i)
    {
        c->x0[i] = ref_random_float(&seed, -1.0f, 1.0f);
        c->bias0[i] = ref_random_float(&seed, -1.0f, 1.0f);
    }
    chain_expected(c->x0, c->bias0, c->expected);
    if (FAILED(hr = compile_workload(b, &c->w, &c->compiled))
            || FAILED(hr = initialize_operator(b, c->compiled, &c->persistent)))
    {
        snprintf(d->reason, sizeof(d->reason), "ELEMENT_WISE_ADD could not be compiled: HRESULT %#x",
                (unsigned int)hr);
        return false;
    }
    if (IDMLCompiledOperator_GetBindingPropertiesByValue(c->compiled).TemporaryResourceSize)
    {
        snprintf(d->reason, sizeof(d->reason), "the chain's ADD needs a temporary resource; the bench binds none");
        return false;
    }
    if (!(c->x = upload_buffer(b, c->x0, CHAIN_ELEMENTS, FP32)) || !(c->bias = upload_buffer(b, c->bias0,
            CHAIN_ELEMENTS, FP32)) || !(c->y = create_buffer(b, D3D12_HEAP_TYPE_DEFAULT,
            CHAIN_ELEMENTS * sizeof(float), D3D12_RESOURCE_STATE_UNORDERED_ACCESS))
            || FAILED(hr = bind_chain_tables(b, c)))
    {
        snprintf(d->reason, sizeof(d->reason), "the chain's buffers or tables could not be created");
        return false;
    }
    return true;
}

/* The chain in the timed list; the profiler times its first and last dispatch only. */
static void record_shim_chain(struct bench *b, struct chain *c, struct vkdml_profiler *profiler)
{
    unsigned int i;

    begin_list(b, b->timed_allocator, b->timed_list);
    for (i = 0; i < CHAIN_LENGTH; ++i)
    {
        CHECK(vkdml_command_list_set_profiler(b->timed_list, !i || i == CHAIN_LENGTH - 1 ? profiler : NULL));
        IDMLCommandRecorder_RecordDispatch(b->recorder, (ID3D12CommandList *)b->timed_list,
                (IDMLDispatchable *)c->compiled, c->tables[i & 1]);
        tool_uav_barrier(b->timed_list);
    }
    CHECK(vkdml_command_list_set_profiler(b->timed_list, NULL));
    CHECK(ID3D12GraphicsCommandList_Close(b->timed_list));
}

static bool check_shim_chain(struct bench *b, struct chain *c)
{
    ID3D12Resource *readback;
    float got[CHAIN_ELEMENTS];
    void *mapped;

    execute_and_wait(b, b->timed_list);
    if (!(readback = read_back(b, c->x, sizeof(got), &mapped)))
        return false;
    memcpy(got, mapped, sizeof(got));
    unmap_and_release(readback);
    return chain_matches(got, c->expected, "dispatch chain (shim)");
}

/* GPU µs per dispatch of the chain in a shim command list: median over the runs. */
static bool time_shim_chain(struct bench *b, struct chain *c, struct dispatch_result *d)
{
    struct vkdml_profiler_entry entries[2];
    struct vkdml_profiler *profiler;
    double *per_dispatch;
    unsigned int run;
    uint32_t count;

    if (FAILED(vkdml_profiler_create(b->dml, 2, &profiler)))
    {
        snprintf(d->reason, sizeof(d->reason), "vkdml_profiler_create failed");
        return false;
    }
    per_dispatch = calloc(d->runs, sizeof(*per_dispatch));
    record_shim_chain(b, c, profiler);
    d->check = !b->check ? -1 : check_shim_chain(b, c);
    warm_up_list(b, b->timed_list, CHAIN_LENGTH);
    for (run = 0; per_dispatch && run < d->runs; ++run)
    {
        progress_update(b, "small-dispatch", "shim chain", run, d->runs);
        execute_and_wait(b, b->timed_list);
        count = 2;
        CHECK(vkdml_profiler_get_results(profiler, entries, sizeof(entries[0]), &count));
        per_dispatch[run] = (entries[1].end_ns - entries[0].start_ns) * 1e-3 / CHAIN_LENGTH;
        add_trace_event(b, &entries[0], 0);
        add_trace_event(b, &entries[1], 0);
    }
    if (per_dispatch)
        d->shim_gpu_us = median_of(per_dispatch, d->runs);
    free(per_dispatch);
    vkdml_profiler_destroy(profiler);
    return true;
}

/* CPU µs per RecordDispatch into a shim list: RECORD_CALLS calls, median of RECORD_REPEATS. */
static void time_shim_recording(struct bench *b, struct chain *c, struct dispatch_result *d)
{
    double per_call[RECORD_REPEATS];
    unsigned int repeat, i;
    uint64_t start;

    for (repeat = 0; repeat < RECORD_REPEATS; ++repeat)
    {
        begin_list(b, b->timed_allocator, b->timed_list);
        start = now_ns();
        for (i = 0; i < RECORD_CALLS; ++i)
            IDMLCommandRecorder_RecordDispatch(b->recorder, (ID3D12CommandList *)b->timed_list,
                    (IDMLDispatchable *)c->compiled, c->tables[0]);
        per_call[repeat] = (now_ns() - start) * 1e-3 / RECORD_CALLS;
        CHECK(ID3D12GraphicsCommandList_Close(b->timed_list));
    }
    d->shim_record_us = median_of(per_call, RECORD_REPEATS);
}

void run_small_dispatch(struct bench *b)
{
    struct dispatch_result *d = &b->dispatch;
    struct chain *c = calloc(1, sizeof(*c));

    memset(d, 0, sizeof(*d));
    b->dispatch_run = true;
    d->chain_length = CHAIN_LENGTH;
    d->elements = CHAIN_ELEMENTS;
    d->runs = b->iterations;
    d->check = -1;
    d->status = STATUS_FAILED;
    if (!c)
        snprintf(d->reason, sizeof(d->reason), "out of memory");
    else if (create_chain(b, c, d) && time_shim_chain(b, c, d))
    {
        time_shim_recording(b, c, d);
        run_raw_dispatch(b, c, d);
        d->status = STATUS_OK;
    }
    if (c)
        release_chain(c);
    free(c);
}
