/*
 * vkdml-run's device work (docs/onnx.md, "Running"), as any DirectML application does it: one
 * upload of every graph input (weights and model inputs, each at a 256-byte aligned offset), the
 * initializer with the weights bound as its input array, the graph's dispatch into one command list,
 * and one readback of every output. --runs times the graph as vkdml-bench's graph presets do
 * (README.md, "Benchmarks"): between two tiny timed dispatches (markers), runs back to back after a
 * warm-up, no per-node timestamp in between; --report's per-node times are a second, profiled pass.
 */
#include "execute.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reference/fp16.h"
#include "tool_d3d12.h"

#define RUN_ALIGNMENT 256
#define RUNS_PER_LIST 16u               /* timed runs recorded back to back in one command list */
#define WARM_UP_MS 300.0                /* an idle GPU runs at reduced clocks at first */
#define MARKER_ELEMENTS 64u

static bool exec_error(char *error, size_t error_size, const char *what, HRESULT hr)
{
    snprintf(error, error_size, "%s failed: HRESULT %#x", what, (unsigned int)hr);
    return false;
}

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

bool run_device_create(const char *selector, struct run_device *d, char *error, size_t error_size)
{
    D3D12_COMMAND_QUEUE_DESC queue_desc = {D3D12_COMMAND_LIST_TYPE_DIRECT, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    int adapter;
    HRESULT hr;

    memset(d, 0, sizeof(*d));
    if ((adapter = vkdml_select_adapter(selector)) < 0)
    {
        snprintf(error, error_size, "no Vulkan device matches '%s'", selector ? selector : "(default)");
        return false;
    }
    vkdml_get_adapter_info((uint32_t)adapter, &d->adapter, sizeof(d->adapter));
    if (FAILED(hr = vkdml_create_d3d12_device(selector, &IID_ID3D12Device, (void **)&d->d3d)))
        return exec_error(error, error_size, "creating the D3D12 device", hr);
    if (FAILED(hr = ID3D12Device_CreateCommandQueue(d->d3d, &queue_desc, &IID_ID3D12CommandQueue, (void **)&d->queue))
            || FAILED(hr = ID3D12Device_CreateCommandAllocator(d->d3d, D3D12_COMMAND_LIST_TYPE_DIRECT,
                    &IID_ID3D12CommandAllocator, (void **)&d->allocator))
            || FAILED(hr = ID3D12Device_CreateCommandList(d->d3d, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, d->allocator, NULL,
                    &IID_ID3D12GraphicsCommandList, (void **)&d->list))
            || FAILED(hr = ID3D12GraphicsCommandList_Close(d->list))
            || FAILED(hr = ID3D12Device_CreateFence(d->d3d, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence,
                    (void **)&d->fence))
            || FAILED(hr = DMLCreateDevice(d->d3d, DML_CREATE_DEVICE_FLAG_NONE, &IID_IDMLDevice, (void **)&d->dml))
            || FAILED(hr = IDMLDevice_CreateCommandRecorder(d->dml, &IID_IDMLCommandRecorder, (void **)&d->recorder)))
    {
        run_device_free(d);
        return exec_error(error, error_size, "creating the queue, command list or DirectML device", hr);
    }
    return true;
}

void run_device_free(struct run_device *d)
{
    if (d->recorder)
        IDMLCommandRecorder_Release(d->recorder);
    if (d->dml)
        IDMLDevice_Release(d->dml);
    if (d->fence)
        ID3D12Fence_Release(d->fence);
    if (d->list)
        ID3D12GraphicsCommandList_Release(d->list);
    if (d->allocator)
        ID3D12CommandAllocator_Release(d->allocator);
    if (d->queue)
        ID3D12CommandQueue_Release(d->queue);
    if (d->d3d)
        ID3D12Device_Release(d->d3d);
    memset(d, 0, sizeof(*d));
}

/* ---- One run of the graph's resources ---- */

struct exec
{
    struct run_device *d;
    const struct run_graph *g;
    bool half;
    IDMLCompiledOperator *compiled;
    IDMLOperatorInitializer *initializer;
    ID3D12DescriptorHeap *heap;
    ID3D12Resource *upload, *inputs, *outputs, *readback, *temporary, *persistent;
    UINT64 *input_offsets, *output_offsets, upload_size, output_size, readback_size;
    IDMLBindingTable *table;
};

static bool is_half(const struct exec *e, int type)
{
    return type == ONNX_FLOAT && e->half;
}

/* Bytes of `v` on the device: float16 for float with --half, rounded up to 4 as DirectML does. */
static UINT64 device_size(const struct exec *e, const struct run_value *v)
{
    UINT64 bytes = (UINT64)run_shape_elements(&v->shape) * (is_half(e, v->type) ? 2 : onnx_type_size(v->type));

    return (bytes + 3) & ~(UINT64)3;
}

static UINT64 align(UINT64 offset)
{
    return (offset + RUN_ALIGNMENT - 1) & ~(UINT64)(RUN_ALIGNMENT - 1);
}

static void write_device(const struct exec *e, const struct run_tensor *t, void *destination)
{
    int64_t count = run_shape_elements(&t->shape), i;

    if (!is_half(e, t->type))
    {
        memcpy(destination, t->data, run_tensor_bytes(t));
        return;
    }
    for (i = 0; i < count; ++i)
        ((uint16_t *)destination)[i] = ref_float_to_half(((const float *)t->data)[i]);
}

static void read_device(const struct exec *e, const void *source, struct run_tensor *t)
{
    int64_t count = run_shape_elements(&t->shape), i;

    if (!is_half(e, t->type))
    {
        memcpy(t->data, source, run_tensor_bytes(t));
        return;
    }
    for (i = 0; i < count; ++i)
        ((float *)t->data)[i] = ref_half_to_float(((const uint16_t *)source)[i]);
}

static HRESULT wait_idle(struct run_device *d)
{
    HRESULT hr;

    if (FAILED(hr = ID3D12CommandQueue_Signal(d->queue, d->fence, ++d->fence_value))
            || FAILED(hr = ID3D12Fence_SetEventOnCompletion(d->fence, d->fence_value, NULL)))
        return hr;
    return IDMLDevice_GetDeviceRemovedReason(d->dml);
}

static HRESULT begin_list(struct run_device *d)
{
    HRESULT hr;

    if (FAILED(hr = ID3D12CommandAllocator_Reset(d->allocator)))
        return hr;
    return ID3D12GraphicsCommandList_Reset(d->list, d->allocator, NULL);
}

static HRESULT submit_and_wait(struct run_device *d)
{
    ID3D12CommandList *lists[1] = {(ID3D12CommandList *)d->list};
    HRESULT hr;

    if (FAILED(hr = ID3D12GraphicsCommandList_Close(d->list)))
        return hr;
    ID3D12CommandQueue_ExecuteCommandLists(d->queue, 1, lists);
    return wait_idle(d);
}

static HRESULT optional_buffer(struct exec *e, UINT64 size, ID3D12Resource **buffer)
{
    *buffer = NULL;
    return size ? tool_create_buffer(e->d->d3d, D3D12_HEAP_TYPE_DEFAULT, size, D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
            buffer) : S_OK;
}

/* Every graph input in one upload buffer, copied into one default buffer. */
static HRESULT upload_inputs(struct exec *e)
{
    const struct run_graph *g = e->g;
    D3D12_RANGE range = {0, 0};
    unsigned char *mapped;
    unsigned int i;
    HRESULT hr;

    if (!(e->input_offsets = calloc(g->input_count + 1, sizeof(*e->input_offsets))))
        return E_OUTOFMEMORY;
    for (i = 0; i < g->input_count; ++i)
    {
        e->input_offsets[i] = e->upload_size;
        e->upload_size = align(e->upload_size + device_size(e, g->inputs[i].value));
    }
    if (!e->upload_size)
        return S_OK;
    if (FAILED(hr = tool_create_buffer(e->d->d3d, D3D12_HEAP_TYPE_UPLOAD, e->upload_size,
            D3D12_RESOURCE_STATE_GENERIC_READ, &e->upload))
            || FAILED(hr = optional_buffer(e, e->upload_size, &e->inputs))
            || FAILED(hr = ID3D12Resource_Map(e->upload, 0, &range, (void **)&mapped)))
        return hr;
    for (i = 0; i < g->input_count; ++i)
        write_device(e, g->inputs[i].value->host, mapped + e->input_offsets[i]);
    ID3D12Resource_Unmap(e->upload, 0, NULL);
    if (FAILED(hr = begin_list(e->d)))
        return hr;
    tool_transition(e->d->list, e->inputs, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_DEST);
    ID3D12GraphicsCommandList_CopyBufferRegion(e->d->list, e->inputs, 0, e->upload, 0, e->upload_size);
    tool_transition(e->d->list, e->inputs, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    return submit_and_wait(e->d);
}

static HRESULT create_output_buffers(struct exec *e)
{
    const struct run_graph *g = e->g;
    unsigned int i;
    HRESULT hr;

    if (!(e->output_offsets = calloc(g->output_count + g->discarded_count + 1, sizeof(*e->output_offsets))))
        return E_OUTOFMEMORY;
    for (i = 0; i < g->output_count; ++i)
    {
        if (g->outputs[i].dml_output < 0)
            continue;
        e->output_offsets[i] = e->output_size;
        e->output_size = align(e->output_size + device_size(e, g->outputs[i].value));
    }
    /* The outputs nothing reads (run_graph's `discarded`) after them, never read back. */
    e->readback_size = e->output_size;
    for (i = 0; i < g->discarded_count; ++i)
    {
        e->output_offsets[g->output_count + i] = e->output_size;
        e->output_size = align(e->output_size + device_size(e, g->discarded[i]));
    }
    if (!e->output_size)
        return S_OK;
    if (FAILED(hr = optional_buffer(e, e->output_size, &e->outputs)) || !e->readback_size)
        return hr;
    return tool_create_buffer(e->d->d3d, D3D12_HEAP_TYPE_READBACK, e->readback_size, D3D12_RESOURCE_STATE_COPY_DEST,
            &e->readback);
}

static UINT descriptor_count(void *dispatchable)
{
    DML_BINDING_PROPERTIES properties = IDMLDispatchable_GetBindingPropertiesByValue((IDMLDispatchable *)dispatchable);

    return properties.RequiredDescriptorCount;
}

/* A binding table for `dispatchable` at the start of `heap`, replacing `*table`. */
static HRESULT create_table_in(struct exec *e, ID3D12DescriptorHeap *heap, void *dispatchable,
        IDMLBindingTable **table)
{
    DML_BINDING_TABLE_DESC desc;

    if (*table)
        IDMLBindingTable_Release(*table);
    *table = NULL;
    desc.Dispatchable = dispatchable;
    desc.CPUDescriptorHandle = ID3D12DescriptorHeap_GetCPUDescriptorHandleForHeapStart(heap);
    desc.GPUDescriptorHandle = ID3D12DescriptorHeap_GetGPUDescriptorHandleForHeapStart(heap);
    desc.SizeInDescriptors = descriptor_count(dispatchable);
    return IDMLDevice_CreateBindingTable(e->d->dml, &desc, &IID_IDMLBindingTable, (void **)table);
}

static HRESULT create_table(struct exec *e, void *dispatchable)
{
    return create_table_in(e, e->heap, dispatchable, &e->table);
}

static HRESULT bind_temporary(struct exec *e, void *dispatchable, ID3D12Resource **temporary)
{
    DML_BINDING_PROPERTIES properties = IDMLDispatchable_GetBindingPropertiesByValue((IDMLDispatchable *)dispatchable);
    DML_BUFFER_BINDING storage;
    DML_BINDING_DESC desc;
    HRESULT hr;

    if (*temporary)
        ID3D12Resource_Release(*temporary);
    if (FAILED(hr = optional_buffer(e, properties.TemporaryResourceSize, temporary)) || !*temporary)
        return hr;
    desc = tool_buffer_binding(&storage, *temporary, properties.TemporaryResourceSize);
    IDMLBindingTable_BindTemporaryResource(e->table, &desc);
    return S_OK;
}

static DML_BUFFER_BINDING input_binding(const struct exec *e, unsigned int i)
{
    DML_BUFFER_BINDING binding = {e->inputs, e->input_offsets[i], device_size(e, e->g->inputs[i].value)};

    return binding;
}

static HRESULT record_dispatch(struct exec *e, void *dispatchable)
{
    ID3D12DescriptorHeap *heaps[1] = {e->heap};

    ID3D12GraphicsCommandList_SetDescriptorHeaps(e->d->list, 1, heaps);
    IDMLCommandRecorder_RecordDispatch(e->d->recorder, (ID3D12CommandList *)e->d->list,
            (IDMLDispatchable *)dispatchable, e->table);
    tool_uav_barrier(e->d->list);
    return S_OK;
}

/* The initializer: weights as its input array (model inputs bound NONE), the persistent resource as
 * its output. */
static HRESULT initialize(struct exec *e, double *ms)
{
    const struct run_graph *g = e->g;
    DML_BINDING_PROPERTIES properties = IDMLCompiledOperator_GetBindingPropertiesByValue(e->compiled);
    DML_BUFFER_BINDING *bindings = calloc(g->input_count + 1, sizeof(*bindings)), storage;
    DML_BUFFER_ARRAY_BINDING array = {g->input_count, bindings};
    DML_BINDING_DESC input = {DML_BINDING_TYPE_BUFFER_ARRAY, &array}, output;
    ID3D12Resource *temporary = NULL;
    double start = now_ms();
    unsigned int i;
    HRESULT hr;

    if (!bindings)
        return E_OUTOFMEMORY;
    for (i = 0; i < g->input_count; ++i)
        if (g->inputs[i].weight)
            bindings[i] = input_binding(e, i);
    if (SUCCEEDED(hr = optional_buffer(e, properties.PersistentResourceSize, &e->persistent))
            && SUCCEEDED(hr = create_table(e, e->initializer))
            && SUCCEEDED(hr = bind_temporary(e, e->initializer, &temporary)))
    {
        output = tool_buffer_binding(&storage, e->persistent, properties.PersistentResourceSize);
        if (g->input_count)
            IDMLBindingTable_BindInputs(e->table, 1, &input);
        IDMLBindingTable_BindOutputs(e->table, 1, &output);
        if (SUCCEEDED(hr = begin_list(e->d)) && SUCCEEDED(hr = record_dispatch(e, e->initializer)))
            hr = submit_and_wait(e->d);
    }
    *ms = now_ms() - start;
    if (temporary)
        ID3D12Resource_Release(temporary);
    free(bindings);
    return hr;
}

/* The execution table: model inputs bound, weights NONE; every DirectML output. */
static HRESULT bind_execution(struct exec *e)
{
    const struct run_graph *g = e->g;
    DML_BINDING_PROPERTIES properties = IDMLCompiledOperator_GetBindingPropertiesByValue(e->compiled);
    DML_BUFFER_BINDING *storage = calloc(g->input_count + g->output_count + g->discarded_count + 1, sizeof(*storage)),
            persistent;
    DML_BINDING_DESC *inputs = calloc(g->input_count + 1, sizeof(*inputs)),
            *outputs = calloc(g->desc.OutputCount + 1, sizeof(*outputs)), desc;
    unsigned int i;
    HRESULT hr = E_OUTOFMEMORY;

    if (storage && inputs && outputs && SUCCEEDED(hr = create_table(e, e->compiled))
            && SUCCEEDED(hr = bind_temporary(e, e->compiled, &e->temporary)))
    {
        for (i = 0; i < g->input_count; ++i)
        {
            storage[i] = input_binding(e, i);
            inputs[i] = tool_buffer_binding(&storage[i], g->inputs[i].weight ? NULL : e->inputs,
                    storage[i].SizeInBytes);
            storage[i].Offset = e->input_offsets[i];
        }
        for (i = 0; i < g->output_count; ++i)
        {
            DML_BUFFER_BINDING *binding = &storage[g->input_count + i];
            int index = g->outputs[i].dml_output;

            if (index < 0)
                continue;
            outputs[index] = tool_buffer_binding(binding, e->outputs, device_size(e, g->outputs[i].value));
            binding->Offset = e->output_offsets[i];
        }
        for (i = 0; i < g->discarded_count; ++i)
        {
            DML_BUFFER_BINDING *binding = &storage[g->input_count + g->output_count + i];

            outputs[g->desc.OutputCount - g->discarded_count + i] = tool_buffer_binding(binding, e->outputs,
                    device_size(e, g->discarded[i]));
            binding->Offset = e->output_offsets[g->output_count + i];
        }
        if (g->input_count)
            IDMLBindingTable_BindInputs(e->table, g->input_count, inputs);
        IDMLBindingTable_BindOutputs(e->table, g->desc.OutputCount, outputs);
        if (e->persistent)
        {
            desc = tool_buffer_binding(&persistent, e->persistent, properties.PersistentResourceSize);
            IDMLBindingTable_BindPersistentResource(e->table, &desc);
        }
    }
    free(storage);
    free(inputs);
    free(outputs);
    return hr;
}

/* The graph's dispatch, then (readback) every output copied to the readback buffer. */
static HRESULT record_run(struct exec *e, bool readback)
{
    HRESULT hr;

    if (FAILED(hr = begin_list(e->d)) || FAILED(hr = record_dispatch(e, e->compiled)))
        return hr;
    if (readback && e->readback)
    {
        tool_transition(e->d->list, e->outputs, D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                D3D12_RESOURCE_STATE_COPY_SOURCE);
        ID3D12GraphicsCommandList_CopyBufferRegion(e->d->list, e->readback, 0, e->outputs, 0, e->readback_size);
        tool_transition(e->d->list, e->outputs, D3D12_RESOURCE_STATE_COPY_SOURCE,
                D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    }
    return ID3D12GraphicsCommandList_Close(e->d->list);
}

static HRESULT execute_list(struct exec *e)
{
    ID3D12CommandList *lists[1] = {(ID3D12CommandList *)e->d->list};

    ID3D12CommandQueue_ExecuteCommandLists(e->d->queue, 1, lists);
    return wait_idle(e->d);
}

static bool read_outputs(struct exec *e, struct run_tensor *outputs, char *error, size_t error_size)
{
    const struct run_graph *g = e->g;
    D3D12_RANGE range = {0, (SIZE_T)e->readback_size};
    unsigned char *mapped = NULL;
    unsigned int i;
    HRESULT hr;

    if (e->readback && FAILED(hr = ID3D12Resource_Map(e->readback, 0, &range, (void **)&mapped)))
        return exec_error(error, error_size, "mapping the readback buffer", hr);
    for (i = 0; i < g->output_count; ++i)
    {
        const struct run_value *v = g->outputs[i].value;

        if (!run_tensor_alloc(&outputs[i], v->type, &v->shape))
        {
            snprintf(error, error_size, "out of memory for output '%s'", v->name);
            break;
        }
        snprintf(outputs[i].name, sizeof(outputs[i].name), "%s", v->name);
        if (g->outputs[i].dml_output < 0)
            memcpy(outputs[i].data, v->host->data, run_tensor_bytes(&outputs[i]));
        else
            read_device(e, mapped + e->output_offsets[i], &outputs[i]);
    }
    if (mapped)
        ID3D12Resource_Unmap(e->readback, 0, NULL);
    return i == g->output_count;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static double median(double *values, unsigned int count)
{
    qsort(values, count, sizeof(*values), compare_doubles);
    return count ? values[count / 2] : 0.0;
}

/* `runs` executions of the graph with the profiler attached: each node's time (--report). */
static bool time_nodes(struct exec *e, unsigned int runs, struct run_stats *stats, char *error, size_t error_size)
{
    unsigned int entry_capacity = e->g->desc.NodeCount * 4 + 16, i, j, count;
    struct vkdml_profiler_entry *entries = calloc(entry_capacity, sizeof(*entries));
    struct vkdml_profiler *profiler = NULL;
    double *node_times = NULL;
    HRESULT hr = E_OUTOFMEMORY;
    bool ok = false;

    if (!entries)
        goto done;
    if (FAILED(hr = vkdml_profiler_create(e->d->dml, entry_capacity, &profiler))
            || FAILED(hr = begin_list(e->d))
            || FAILED(hr = vkdml_command_list_set_profiler(e->d->list, profiler))
            || FAILED(hr = ID3D12GraphicsCommandList_Close(e->d->list))
            || FAILED(hr = record_run(e, false)))
        goto done;
    for (i = 0; i < runs; ++i)
    {
        count = entry_capacity;
        if (FAILED(hr = execute_list(e))
                || FAILED(hr = vkdml_profiler_get_results(profiler, entries, sizeof(*entries), &count)) || !count)
            goto done;
        if (!stats->nodes)
        {
            stats->nodes = calloc(count, sizeof(*stats->nodes));
            node_times = calloc((size_t)count * runs, sizeof(*node_times));
            if (!stats->nodes || !node_times)
                goto done;
            stats->node_count = count;
            for (j = 0; j < count; ++j)
                snprintf(stats->nodes[j].name, sizeof(stats->nodes[j].name), "%s", entries[j].name);
        }
        for (j = 0; j < count && j < stats->node_count; ++j)
            node_times[(size_t)j * runs + i] = entries[j].duration_ns * 1e-6;
    }
    for (j = 0; j < stats->node_count; ++j)
        stats->nodes[j].median_ms = median(node_times + (size_t)j * runs, runs);
    ok = true;
done:
    if (!ok)
        exec_error(error, error_size, "timing the nodes", hr);
    /* The list keeps a reference to the profiler until it is reset without one. */
    if (profiler && SUCCEEDED(begin_list(e->d)))
    {
        vkdml_command_list_set_profiler(e->d->list, NULL);
        ID3D12GraphicsCommandList_Close(e->d->list);
    }
    vkdml_profiler_destroy(profiler);
    free(entries);
    free(node_times);
    return ok;
}

/* ---- The whole graph's time: markers around each run ---- */

/* A tiny IDENTITY whose profiler timestamps wait for all earlier work (vkdml.h, "Profiling"). */
struct marker
{
    IDMLCompiledOperator *op;
    ID3D12DescriptorHeap *heap;
    IDMLBindingTable *table;
    ID3D12Resource *buffer;             /* the input, then the output at RUN_ALIGNMENT */
};

static void release_marker(struct marker *m)
{
    if (m->table)
        IDMLBindingTable_Release(m->table);
    if (m->heap)
        ID3D12DescriptorHeap_Release(m->heap);
    if (m->buffer)
        ID3D12Resource_Release(m->buffer);
    if (m->op)
        IDMLCompiledOperator_Release(m->op);
}

static HRESULT compile_marker(struct exec *e, struct marker *m)
{
    UINT sizes[4] = {1, 1, 1, MARKER_ELEMENTS};
    DML_BUFFER_TENSOR_DESC buffer = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, sizes, NULL,
            MARKER_ELEMENTS * sizeof(float), 0};
    DML_TENSOR_DESC tensor = {DML_TENSOR_TYPE_BUFFER, &buffer};
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity = {&tensor, &tensor, NULL};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_ELEMENT_WISE_IDENTITY, &identity};
    IDMLOperator *op;
    HRESULT hr;

    if (FAILED(hr = IDMLDevice_CreateOperator(e->d->dml, &desc, &IID_IDMLOperator, (void **)&op)))
        return hr;
    hr = IDMLDevice_CompileOperator(e->d->dml, op, DML_EXECUTION_FLAG_NONE, &IID_IDMLCompiledOperator,
            (void **)&m->op);
    IDMLOperator_Release(op);
    return hr;
}

static HRESULT create_marker_table(struct exec *e, struct marker *m, void *dispatchable)
{
    return create_table_in(e, m->heap, dispatchable, &m->table);
}

static void record_marker(struct exec *e, struct marker *m, struct vkdml_profiler *profiler, void *dispatchable)
{
    ID3D12DescriptorHeap *heaps[1] = {m->heap};

    vkdml_command_list_set_profiler(e->d->list, profiler);
    ID3D12GraphicsCommandList_SetDescriptorHeaps(e->d->list, 1, heaps);
    IDMLCommandRecorder_RecordDispatch(e->d->recorder, (ID3D12CommandList *)e->d->list,
            (IDMLDispatchable *)dispatchable, m->table);
    vkdml_command_list_set_profiler(e->d->list, NULL);
    tool_uav_barrier(e->d->list);
}

/* The marker compiled, initialized (it has nothing to initialize, but DirectML asks it) and bound. */
static HRESULT create_marker(struct exec *e, struct marker *m)
{
    D3D12_DESCRIPTOR_HEAP_DESC heap = {D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, 0,
            D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, 0};
    IDMLOperatorInitializer *initializer = NULL;
    DML_BUFFER_BINDING storage[2];
    DML_BINDING_DESC input, output;
    HRESULT hr;

    if (FAILED(hr = compile_marker(e, m))
            || FAILED(hr = IDMLDevice_CreateOperatorInitializer(e->d->dml, 1, &m->op, &IID_IDMLOperatorInitializer,
                    (void **)&initializer)))
        return hr;
    heap.NumDescriptors = descriptor_count(initializer) > descriptor_count(m->op) ? descriptor_count(initializer)
            : descriptor_count(m->op);
    heap.NumDescriptors += !heap.NumDescriptors;
    if (SUCCEEDED(hr = ID3D12Device_CreateDescriptorHeap(e->d->d3d, &heap, &IID_ID3D12DescriptorHeap,
            (void **)&m->heap))
            && SUCCEEDED(hr = optional_buffer(e, 2 * RUN_ALIGNMENT, &m->buffer))
            && SUCCEEDED(hr = create_marker_table(e, m, initializer))
            && SUCCEEDED(hr = begin_list(e->d)))
    {
        record_marker(e, m, NULL, initializer);
        hr = submit_and_wait(e->d);
    }
    IDMLOperatorInitializer_Release(initializer);
    if (FAILED(hr) || FAILED(hr = create_marker_table(e, m, m->op)))
        return hr;
    input = tool_buffer_binding(&storage[0], m->buffer, MARKER_ELEMENTS * sizeof(float));
    output = tool_buffer_binding(&storage[1], m->buffer, MARKER_ELEMENTS * sizeof(float));
    storage[1].Offset = RUN_ALIGNMENT;
    IDMLBindingTable_BindInputs(m->table, 1, &input);
    IDMLBindingTable_BindOutputs(m->table, 1, &output);
    return S_OK;
}

/* `count` runs of the graph, each between two markers; the graph itself is not profiled. */
static HRESULT record_marked_runs(struct exec *e, struct marker *m, struct vkdml_profiler *profiler,
        unsigned int count)
{
    unsigned int i;
    HRESULT hr;

    if (FAILED(hr = vkdml_profiler_reset(profiler)) || FAILED(hr = begin_list(e->d)))
        return hr;
    for (i = 0; i < count; ++i)
    {
        record_marker(e, m, profiler, m->op);
        record_dispatch(e, e->compiled);
        record_marker(e, m, profiler, m->op);
    }
    return ID3D12GraphicsCommandList_Close(e->d->list);
}

/* Lists of up to RUNS_PER_LIST runs until `runs` are timed, after WARM_UP_MS of untimed ones. */
static HRESULT time_marked_runs(struct exec *e, struct marker *m, struct vkdml_profiler *profiler,
        unsigned int runs, double *gpu, double *wall)
{
    unsigned int per_list = runs < RUNS_PER_LIST ? runs : RUNS_PER_LIST, samples = 0, i, lists = 0;
    struct vkdml_profiler_entry entries[2 * RUNS_PER_LIST];
    double start = now_ms(), list_ms;
    uint32_t count;
    HRESULT hr;

    if (FAILED(hr = record_marked_runs(e, m, profiler, per_list)))
        return hr;
    while (now_ms() - start < WARM_UP_MS || !lists++)
        if (FAILED(hr = execute_list(e)))
            return hr;
    while (samples < runs)
    {
        start = now_ms();
        if (FAILED(hr = execute_list(e)))
            return hr;
        list_ms = (now_ms() - start) / per_list;
        count = 2 * per_list;
        if (FAILED(hr = vkdml_profiler_get_results(profiler, entries, sizeof(entries[0]), &count)))
            return hr;
        if (count != 2 * per_list)
            return E_FAIL;
        for (i = 0; i < per_list && samples < runs; ++i, ++samples)
        {
            gpu[samples] = (entries[2 * i + 1].start_ns - entries[2 * i].end_ns) * 1e-6;
            wall[samples] = list_ms;
        }
    }
    return S_OK;
}

/* The graph's time per run, from the end of one marker to the start of the next. */
static bool time_graph(struct exec *e, unsigned int runs, struct run_stats *stats, char *error, size_t error_size)
{
    double *gpu = calloc(runs, sizeof(*gpu)), *wall = calloc(runs, sizeof(*wall));
    struct vkdml_profiler *profiler = NULL;
    struct marker m;
    HRESULT hr = E_OUTOFMEMORY;

    memset(&m, 0, sizeof(m));
    if (gpu && wall && SUCCEEDED(hr = create_marker(e, &m))
            && SUCCEEDED(hr = vkdml_profiler_create(e->d->dml, 2 * RUNS_PER_LIST, &profiler))
            && SUCCEEDED(hr = time_marked_runs(e, &m, profiler, runs, gpu, wall)))
    {
        stats->runs = runs;
        stats->wall_ms = median(wall, runs);
        stats->gpu_ms = median(gpu, runs);
        stats->gpu_min_ms = gpu[0];
    }
    else
    {
        exec_error(error, error_size, "timing the runs", hr);
    }
    /* The list keeps a reference to the profiler until it is reset without one. */
    if (profiler && SUCCEEDED(begin_list(e->d)))
        ID3D12GraphicsCommandList_Close(e->d->list);
    if (profiler)
        vkdml_profiler_destroy(profiler);
    release_marker(&m);
    free(gpu);
    free(wall);
    return SUCCEEDED(hr);
}

static void release_exec(struct exec *e)
{
    ID3D12Resource *resources[] = {e->upload, e->inputs, e->outputs, e->readback, e->temporary, e->persistent};
    unsigned int i;

    for (i = 0; i < sizeof(resources) / sizeof(resources[0]); ++i)
        if (resources[i])
            ID3D12Resource_Release(resources[i]);
    if (e->table)
        IDMLBindingTable_Release(e->table);
    if (e->heap)
        ID3D12DescriptorHeap_Release(e->heap);
    if (e->initializer)
        IDMLOperatorInitializer_Release(e->initializer);
    if (e->compiled)
        IDMLCompiledOperator_Release(e->compiled);
    free(e->input_offsets);
    free(e->output_offsets);
}

static HRESULT compile(struct exec *e, struct run_stats *stats)
{
    IDMLCompiledOperator *operators[1];
    D3D12_DESCRIPTOR_HEAP_DESC heap = {D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, 0,
            D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, 0};
    IDMLDevice1 *dml1;
    double start = now_ms();
    HRESULT hr;

    if (FAILED(hr = IDMLDevice_QueryInterface(e->d->dml, &IID_IDMLDevice1, (void **)&dml1)))
        return hr;
    hr = IDMLDevice1_CompileGraph(dml1, &e->g->desc, DML_EXECUTION_FLAG_NONE, &IID_IDMLCompiledOperator,
            (void **)&e->compiled);
    IDMLDevice1_Release(dml1);
    stats->compile_ms = now_ms() - start;
    if (FAILED(hr))
        return hr;
    stats->have_report = !vkdml_get_graph_report(e->compiled, &stats->report, sizeof(stats->report));
    operators[0] = e->compiled;
    if (FAILED(hr = IDMLDevice_CreateOperatorInitializer(e->d->dml, 1, operators, &IID_IDMLOperatorInitializer,
            (void **)&e->initializer)))
        return hr;
    heap.NumDescriptors = descriptor_count(e->initializer) > descriptor_count(e->compiled)
            ? descriptor_count(e->initializer) : descriptor_count(e->compiled);
    heap.NumDescriptors += !heap.NumDescriptors;
    return ID3D12Device_CreateDescriptorHeap(e->d->d3d, &heap, &IID_ID3D12DescriptorHeap, (void **)&e->heap);
}

bool run_graph_execute(struct run_device *device, const struct run_graph *graph, bool half, unsigned int runs,
        bool per_node, struct run_tensor *outputs, struct run_stats *stats, char *error, size_t error_size)
{
    struct exec e;
    bool ok = false;
    HRESULT hr;

    memset(&e, 0, sizeof(e));
    memset(stats, 0, sizeof(*stats));
    e.d = device;
    e.g = graph;
    e.half = half;
    if (!graph->desc.NodeCount)
        return read_outputs(&e, outputs, error, error_size);
    if (FAILED(hr = compile(&e, stats)))
        exec_error(error, error_size, "CompileGraph", hr);
    else if (FAILED(hr = upload_inputs(&e)) || FAILED(hr = create_output_buffers(&e)))
        exec_error(error, error_size, "uploading the inputs", hr);
    else if (FAILED(hr = initialize(&e, &stats->initialize_ms)))
        exec_error(error, error_size, "initializing the graph", hr);
    else if (FAILED(hr = bind_execution(&e)) || FAILED(hr = record_run(&e, true)) || FAILED(hr = execute_list(&e)))
        exec_error(error, error_size, "running the graph", hr);
    else
        ok = read_outputs(&e, outputs, error, error_size) && (!runs || (time_graph(&e, runs, stats, error,
                error_size) && (!per_node || time_nodes(&e, runs, stats, error, error_size))));
    release_exec(&e);
    return ok;
}

void run_stats_free(struct run_stats *stats)
{
    free(stats->nodes);
    stats->nodes = NULL;
}
