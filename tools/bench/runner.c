/*
 * vkdml-bench's runner: one workload through the DirectML API (compile, initialize, bind, time
 * with the profiler, check against the CPU reference), presets and --op jobs in order, progress.
 */
#include "graph.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- Small helpers ---- */

uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* Sorts `values`; nearest-rank percentiles. */
void statistics(double *values, unsigned int count, double *min, double *median, double *p90)
{
    unsigned int rank90 = (unsigned int)ceil(0.9 * count);

    qsort(values, count, sizeof(*values), compare_doubles);
    *min = values[0];
    *median = count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
    *p90 = values[rank90 ? rank90 - 1 : 0];
}

double median_of(double *values, unsigned int count)
{
    double min, median, p90;

    statistics(values, count, &min, &median, &p90);
    return median;
}
static void set_reason(char *reason, size_t size, const char *format, va_list args)
{
    vsnprintf(reason, size, format, args);
}

bool skip(struct result *r, const char *format, ...)
{
    va_list args;

    va_start(args, format);
    set_reason(r->reason, sizeof(r->reason), format, args);
    va_end(args);
    r->status = STATUS_SKIPPED;
    return false;
}

bool fail(struct result *r, const char *format, ...)
{
    va_list args;

    va_start(args, format);
    set_reason(r->reason, sizeof(r->reason), format, args);
    va_end(args);
    r->status = STATUS_FAILED;
    return false;
}

/* ---- Progress (stderr): one line per workload, updated in place on a terminal ---- */

static void progress_begin(struct bench *b, const char *name)
{
    if (b->quiet)
        return;
    if (b->progress_tty)
        fprintf(stderr, "\r\033[K[%u/%u] %s", b->position, b->total, name);
    else
        fprintf(stderr, "vkdml-bench: [%u/%u] %s\n", b->position, b->total, name);
    fflush(stderr);
}

/* `total` 0: a stage without a count. */
void progress_update(struct bench *b, const char *name, const char *what, unsigned int done,
        unsigned int total)
{
    if (b->quiet || !b->progress_tty)
        return;
    fprintf(stderr, "\r\033[K[%u/%u] %s: %s", b->position, b->total, name, what);
    if (total)
        fprintf(stderr, " %u/%u", done, total);
    fflush(stderr);
}

static void progress_end(struct bench *b)
{
    if (!b->quiet && b->progress_tty)
    {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
}

/* Runs `execute` (one batch of `batch` dispatches) until both --warmup dispatches and --warmup-ms
 * milliseconds have gone by. */
void warm_up(struct bench *b, unsigned int batch, void (*execute)(void *context), void *context)
{
    uint64_t start = now_ns();
    unsigned int done = 0;

    while (done < b->warmup || (now_ns() - start) * 1e-6 < b->warmup_ms)
    {
        execute(context);
        done += batch;
    }
}
/* ---- One workload: resources, timing, check ---- */

struct run
{
    IDMLCompiledOperator *compiled;
    ID3D12Resource *persistent, *temporary;
    ID3D12Resource *inputs[MAX_INPUTS], *outputs[MAX_OUTPUTS];
    IDMLBindingTable *table;
    struct vkdml_profiler *profiler;
    float *host[MAX_INPUTS];            /* input values as stored (rounded to their type), for --check */
};

static void release_run(struct run *run)
{
    UINT i;

    if (run->table)
        IDMLBindingTable_Release(run->table);
    for (i = 0; i < MAX_INPUTS; ++i)
    {
        if (run->inputs[i])
            ID3D12Resource_Release(run->inputs[i]);
        free(run->host[i]);
    }
    for (i = 0; i < MAX_OUTPUTS; ++i)
    {
        if (run->outputs[i])
            ID3D12Resource_Release(run->outputs[i]);
    }
    if (run->temporary)
        ID3D12Resource_Release(run->temporary);
    if (run->persistent)
        ID3D12Resource_Release(run->persistent);
    if (run->compiled)
        IDMLCompiledOperator_Release(run->compiled);
    vkdml_profiler_destroy(run->profiler);
}

/* Inputs uploaded from pseudo-random values, which are kept for --check only. */
static HRESULT create_io(struct bench *b, const struct workload *w, struct run *run)
{
    const struct tensor *outputs[MAX_OUTPUTS];
    UINT count = workload_outputs(w, outputs), i;

    for (i = 0; i < w->input_count; ++i)
    {
        DML_TENSOR_DATA_TYPE type = w->inputs[i].buffer.DataType;
        size_t count = (size_t)tensor_storage_elements(&w->inputs[i]);

        if (!w->inputs[i].rank)
            continue;
        if (!(run->host[i] = input_values(w, i, count))
                || !(run->inputs[i] = upload_buffer(b, run->host[i], count, type)))
            return E_OUTOFMEMORY;
        if (!b->check)
        {
            free(run->host[i]);
            run->host[i] = NULL;
        }
    }
    for (i = 0; i < count; ++i)
    {
        if (outputs[i]->rank && !(run->outputs[i] = create_buffer(b, D3D12_HEAP_TYPE_DEFAULT,
                outputs[i]->buffer.TotalTensorSizeInBytes, D3D12_RESOURCE_STATE_UNORDERED_ACCESS)))
            return E_OUTOFMEMORY;
    }
    return S_OK;
}

static HRESULT bind_run(struct bench *b, const struct workload *w, struct run *run)
{
    DML_BINDING_PROPERTIES properties = IDMLCompiledOperator_GetBindingPropertiesByValue(run->compiled);
    DML_BUFFER_BINDING storage[MAX_INPUTS + MAX_OUTPUTS + 2];
    DML_BINDING_DESC inputs[MAX_INPUTS], outputs[MAX_OUTPUTS], desc;
    const struct tensor *tensors[MAX_OUTPUTS];
    UINT count = workload_outputs(w, tensors), i;
    HRESULT hr;

    if (FAILED(hr = create_optional_buffer(b, properties.TemporaryResourceSize, &run->temporary))
            || FAILED(hr = create_table(b, run->compiled, 1, &run->table)))
        return hr;
    if (run->temporary)
    {
        desc = tool_buffer_binding(&storage[MAX_INPUTS + MAX_OUTPUTS], run->temporary,
                properties.TemporaryResourceSize);
        IDMLBindingTable_BindTemporaryResource(run->table, &desc);
    }
    if (run->persistent)
    {
        desc = tool_buffer_binding(&storage[MAX_INPUTS + MAX_OUTPUTS + 1], run->persistent,
                properties.PersistentResourceSize);
        IDMLBindingTable_BindPersistentResource(run->table, &desc);
    }
    /* Absent (optional) inputs have no buffer: bound as NONE. */
    for (i = 0; i < w->input_count; ++i)
        inputs[i] = tool_buffer_binding(&storage[i], run->inputs[i], w->inputs[i].buffer.TotalTensorSizeInBytes);
    for (i = 0; i < count; ++i)
        outputs[i] = tool_buffer_binding(&storage[MAX_INPUTS + i], run->outputs[i],
                tensors[i]->buffer.TotalTensorSizeInBytes);
    IDMLBindingTable_BindInputs(run->table, w->input_count, inputs);
    IDMLBindingTable_BindOutputs(run->table, count, outputs);
    return S_OK;
}

/* Compile, initialize, create and fill the buffers, bind. False with the result's status set. */
static bool prepare_run(struct bench *b, struct workload *w, struct run *run, struct result *r)
{
    DML_TENSOR_DATA_TYPE types[MAX_INPUTS + MAX_OUTPUTS];
    UINT count = workload_types(w, types), i;
    HRESULT hr;

    for (i = 0; i < count; ++i)
    {
        if (!type_supported(b, types[i]))
            return skip(r, "%s tensors are not supported on this device", type_name(types[i]));
    }
    hr = compile_workload(b, w, &run->compiled);
    if (hr == E_NOTIMPL && !r->strict)
        return skip(r, "%s is not implemented in vkdml yet (E_NOTIMPL)", w->op->schema->name);
    if (hr == E_NOTIMPL)
        return fail(r, "%s answers E_NOTIMPL: the preset's operator is implemented (the log says which path is "
                "not)", w->op->schema->name);
    if (FAILED(hr))
        return fail(r, "CreateOperator/CompileOperator(%s) failed: HRESULT %#x (the log says why)",
                w->op->schema->name, (unsigned int)hr);
    if (FAILED(hr = initialize_operator(b, run->compiled, &run->persistent)))
        return fail(r, "initialization failed: HRESULT %#x", (unsigned int)hr);
    progress_update(b, r->name, "uploading inputs", 0, 0);
    if (FAILED(hr = create_io(b, w, run)))
        return fail(r, "buffers for the tensors could not be created (out of memory?)");
    if (FAILED(hr = bind_run(b, w, run)))
        return fail(r, "binding failed: HRESULT %#x", (unsigned int)hr);
    return true;
}

/* Records `batch` RecordDispatch calls, each timed on the CPU and followed by a UAV barrier. */
static void record_batch(struct bench *b, struct run *run, unsigned int batch, double *record_us)
{
    unsigned int i;

    begin_list(b, b->timed_allocator, b->timed_list);
    CHECK(vkdml_command_list_set_profiler(b->timed_list, run->profiler));
    for (i = 0; i < batch; ++i)
    {
        uint64_t start = now_ns();

        IDMLCommandRecorder_RecordDispatch(b->recorder, (ID3D12CommandList *)b->timed_list,
                (IDMLDispatchable *)run->compiled, run->table);
        record_us[i] = (now_ns() - start) * 1e-3;
        tool_uav_barrier(b->timed_list);
    }
    CHECK(vkdml_command_list_set_profiler(b->timed_list, NULL));
    CHECK(ID3D12GraphicsCommandList_Close(b->timed_list));
}

void add_trace_event(struct bench *b, const struct vkdml_profiler_entry *entry, unsigned int tid)
{
    struct trace_event *event;

    if (!b->trace_path)
        return;
    if (b->trace_count == b->trace_capacity)
    {
        size_t capacity = b->trace_capacity ? 2 * b->trace_capacity : 1024;
        struct trace_event *grown = realloc(b->trace, capacity * sizeof(*grown));

        if (!grown)
            return;
        b->trace = grown;
        b->trace_capacity = capacity;
    }
    event = &b->trace[b->trace_count++];
    snprintf(event->name, sizeof(event->name), "%s", entry->name);
    event->tid = tid;
    event->start_ns = entry->start_ns;
    event->end_ns = entry->end_ns;
}

/* Executes the batch list until `iterations` dispatches are timed; durations in µs. */
static bool time_batches(struct bench *b, struct run *run, struct result *r, unsigned int batch, double *gpu_us)
{
    struct vkdml_profiler_entry *entries = calloc(batch, sizeof(*entries));
    unsigned int samples = 0, i;
    uint32_t count;

    if (!entries)
        return fail(r, "out of memory");
    progress_update(b, r->name, "warm-up", 0, 0);
    warm_up_list(b, b->timed_list, batch);
    while (samples < b->iterations)
    {
        progress_update(b, r->name, "timed", samples, b->iterations);
        execute_and_wait(b, b->timed_list);
        count = batch;
        CHECK(vkdml_profiler_get_results(run->profiler, entries, sizeof(*entries), &count));
        if (count != batch)
        {
            free(entries);
            return fail(r, "the profiler timed %u dispatches of %u", count, batch);
        }
        snprintf(r->operator_name, sizeof(r->operator_name), "%s", entries[0].name);
        for (i = 0; i < batch && samples < b->iterations; ++i)
        {
            gpu_us[samples++] = entries[i].duration_ns * 1e-3;
            add_trace_event(b, &entries[i], (unsigned int)(r - b->results) + 1);
        }
    }
    free(entries);
    return true;
}

double anchor_override_ms(const struct bench *b, const char *name)
{
    unsigned int i;

    for (i = 0; i < b->anchor_count; ++i)
    {
        if (!strcmp(b->anchors[i].name, name))
            return b->anchors[i].ms;
    }
    return 0.0;
}

/* GB/s or TFLOP/s, the anchor (measured in this run where given), the ratio. */
void derive_rates(const struct bench *b, const struct preset *preset, struct result *r)
{
    double seconds = r->gpu_median_us * 1e-6, anchor_ms = preset ? anchor_override_ms(b, preset->name) : 0.0;
    double amount = r->compute_bound ? r->flops * 1e-12 : r->bytes * 1e-9;

    r->rate = amount / seconds;
    if (preset && preset->anchor)
    {
        r->anchor = r->doc_anchor = preset->anchor;
        snprintf(r->anchor_source, sizeof(r->anchor_source), "performance.md: %s", preset->anchor_source);
    }
    if (anchor_ms > 0.0)
    {
        r->anchor = amount / (anchor_ms * 1e-3);
        r->anchor_measured = true;
        snprintf(r->anchor_source, sizeof(r->anchor_source), "%s", b->anchor_source);
    }
    r->ratio = r->anchor ? r->rate / r->anchor : 0.0;
    r->doc_ratio = r->doc_anchor ? r->rate / r->doc_anchor : 0.0;
    r->target = preset ? preset->target : 0.0;
    r->copy_bar = preset ? preset->copy_bar : 0.0;
    if (!r->compute_bound && b->copy_rate)
    {
        r->copy_rate = b->copy_rate;
        r->copy_ratio = r->rate / b->copy_rate;
    }
}

/* -1: no bar; else whether the first bar is met against every anchor there is (the one measured in
 * this run and performance.md's): for memory-bound operators the bar is the bandwidth
 * PyTorch reaches, which PyTorch's own broadcast add falls far short of. A preset held to the copy
 * bandwidth must reach that share of it as well (performance.md's rule for memory-bound
 * operators); where the run has no copy figure, the anchors alone decide. */
int verdict(const struct result *r)
{
    bool anchors = r->target && r->anchor, copy = r->copy_bar && r->copy_rate;

    if (!anchors && !copy)
        return -1;
    if (copy && r->copy_ratio < r->copy_bar)
        return 0;
    return !anchors || (r->ratio >= r->target && (!r->doc_anchor || r->doc_ratio >= r->target));
}

static bool time_run(struct bench *b, const struct workload *w, struct run *run, struct result *r)
{
    unsigned int batch = b->iterations < MAX_BATCH ? b->iterations : MAX_BATCH;
    double *gpu_us = calloc(b->iterations, sizeof(*gpu_us)), *record_us = calloc(batch, sizeof(*record_us));
    bool ok = false;

    if (!gpu_us || !record_us)
        fail(r, "out of memory");
    else if (FAILED(vkdml_profiler_create(b->dml, batch, &run->profiler)))
        fail(r, "vkdml_profiler_create failed: the device has no timestamps?");
    else
    {
        record_batch(b, run, batch, record_us);
        if (IDMLDevice_GetDeviceRemovedReason(b->dml) != S_OK)
            fail(r, "RecordDispatch removed the DML device (the log says why)");
        else if ((ok = time_batches(b, run, r, batch, gpu_us)))
        {
            statistics(gpu_us, b->iterations, &r->gpu_min_us, &r->gpu_median_us, &r->gpu_p90_us);
            r->record_us = median_of(record_us, batch);
        }
    }
    free(gpu_us);
    free(record_us);
    return ok;
}

/* Output indices to compare: all of them, or for reductions CHECK_SAMPLES spread at random. */
static UINT64 check_index(const struct workload *w, UINT64 count, UINT64 i, uint32_t *state)
{
    if (!w->op->family->sampled || count <= CHECK_SAMPLES || i == 0)
        return i;
    if (i == CHECK_SAMPLES - 1)
        return count - 1;
    return (((UINT64)ref_random(state) << 32) | ref_random(state)) % count;
}

/* Compares output `output` with the reference. */
static bool check_output(struct bench *b, const struct workload *w, struct run *run, struct result *r, UINT output)
{
    const struct tensor *tensors[MAX_OUTPUTS], *t;
    UINT64 count, checks, i, index;
    ID3D12Resource *readback;
    uint32_t state = 12345;
    double expected, got, tolerance;
    void *mapped;

    workload_outputs(w, tensors);
    if (!(t = tensors[output])->rank)
        return true;                    /* an optional output left out */
    count = tensor_elements(t);
    if (!(readback = read_back(b, run->outputs[output], t->buffer.TotalTensorSizeInBytes, &mapped)))
        return fail(r, "no memory for the readback buffer");
    checks = w->op->family->sampled && count > CHECK_SAMPLES ? CHECK_SAMPLES : count;
    for (i = 0; i < checks; ++i)
    {
        index = check_index(w, count, i, &state);
        expected = reference_value(w, run->host, output, index, &tolerance);
        got = load_value(mapped, index, t->buffer.DataType);
        if (!(fabs(got - expected) <= tolerance) && !(isnan(got) && isnan(expected)) && r->mismatches++ < 3)
            fprintf(stderr, "vkdml-bench: %s: output %u element %llu: got %.9g, expected %.9g (tolerance %.3g)\n",
                    r->name, output, (unsigned long long)index, got, expected, tolerance);
    }
    unmap_and_release(readback);
    r->checked += checks;
    return true;
}

static bool check_run(struct bench *b, const struct workload *w, struct run *run, struct result *r)
{
    UINT outputs = reference_outputs(w), i;

    if (!outputs)
    {
        r->no_reference = true;
        return true;
    }
    progress_update(b, r->name, "checking", 0, 0);
    for (i = 0; i < outputs; ++i)
    {
        if (!check_output(b, w, run, r, i))
            return false;
    }
    r->check = !r->mismatches;
    return true;
}

static void run_workload(struct bench *b, struct workload *w, const struct preset *preset, struct result *r)
{
    struct run run;

    memset(&run, 0, sizeof(run));
    r->bytes = w->bytes;
    r->flops = w->flops;
    r->compute_bound = r->compute_bound && !w->memory_bound;
    if (prepare_run(b, w, &run, r) && time_run(b, w, &run, r))
    {
        derive_rates(b, preset, r);
        if (b->check)
            check_run(b, w, &run, r);
        if (IDMLDevice_GetDeviceRemovedReason(b->dml) != S_OK)
            fail(r, "the DML device was removed (the log says why)");
    }
    release_run(&run);
}
/* ---- Running the selection ---- */

/* A result slot named after the preset, or after the op/shape/type for --op. */
static struct result *new_result(struct bench *b, const char *name, const char *op, DML_TENSOR_DATA_TYPE type,
        const char *shape, bool broadcast)
{
    struct result *r = &b->results[b->result_count++];

    memset(r, 0, sizeof(*r));
    snprintf(r->name, sizeof(r->name), "%s", name);
    snprintf(r->op, sizeof(r->op), "%s", op);
    snprintf(r->shape, sizeof(r->shape), "%s", shape);
    r->type = type;
    r->broadcast = broadcast;
    r->iterations = b->iterations;
    r->warmup = b->warmup;
    r->check = -1;
    return r;
}

/* Whether two workloads have the same shape, suffixes included (after build_workload). */
static bool same_shape(const struct workload *a, const struct workload *b)
{
    return a->dim_count == b->dim_count && !memcmp(a->dims, b->dims, a->dim_count * sizeof(UINT)) && a->k == b->k
            && a->other_type == b->other_type
            && a->axis_count == b->axis_count && !memcmp(a->axes, b->axes, a->axis_count * sizeof(UINT));
}

/* The preset with the same workload, for its anchor: --op add --shape 67108864 gets add-256MiB's. */
static const struct preset *matching_preset(const struct workload *w)
{
    struct workload *p_w = calloc(1, sizeof(*p_w));
    const struct preset *found = NULL;
    size_t i;

    for (i = 0; p_w && !found && i < preset_count; ++i)
    {
        const struct preset *p = &presets[i];

        memset(p_w, 0, sizeof(*p_w));
        p_w->op = find_op(p->op);
        p_w->type = p->type;
        p_w->function = p->function;
        if (p_w->op == w->op && p->type == w->type && p->broadcast == w->broadcast
                && !parse_workload_shape(p->shape, p_w) && !build_workload(p_w)
                && p_w->reduce_function == w->reduce_function && p_w->mode == w->mode && same_shape(p_w, w))
            found = p;
    }
    free(p_w);
    return found;
}

/* Why `op` cannot run in `type` with that shape, NULL when it can; `*refused` says whether that is a
 * failure rather than a skip: implemented but not buildable, or a shape its family rejects
 * (`lenient`, for several operators from one --op: a skip too). */
static const char *unfit(const struct op_info *op, DML_TENSOR_DATA_TYPE type, struct workload *w, const char *shape,
        bool lenient, bool *refused, char *why, size_t size)
{
    const char *problem;
    char types[128];

    *refused = false;
    if (!op->family)
    {
        *refused = op->implemented;
        snprintf(why, size, op->implemented ? "%s is implemented in vkdml, but vkdml-bench cannot build it: give it a "
                "family in tools/bench/operators.c" : "%s is not implemented in vkdml, nor can vkdml-bench build it",
                op->schema->name);
    }
    else if (!op_takes_type(op, type))
    {
        type_set_text(op_types(op), types, sizeof(types));
        snprintf(why, size, "%s does not take %s tensors (%s)", op->schema->name, type_name(type), types);
    }
    else if ((problem = parse_workload_shape(shape, w)))
    {
        *refused = !lenient;
        snprintf(why, size, "shape '%s': %s (%s: %s)", shape, problem, op->family->name, op->family->shape_help);
    }
    else
        return NULL;
    return why;
}

/* One workload of `op_name`, of `preset` or of --op (NULL); `function`: its mode (NULL: its default);
 * `lenient` as unfit() takes it. E_NOTIMPL skips --op workloads and fails
 * presets. */
static void run_one(struct bench *b, const struct preset *preset, const char *name, const char *op_name,
        DML_TENSOR_DATA_TYPE type, const char *shape, const char *function, bool broadcast, bool lenient)
{
    struct result *r = new_result(b, name, op_name, type, shape, broadcast);
    struct workload *w = calloc(1, sizeof(*w));
    const struct op_info *op = find_op(op_name);
    const char *problem;
    bool refused;
    char why[256];

    r->strict = preset != NULL;
    progress_begin(b, name);
    if (!w)
        fail(r, "out of memory");
    else if (!op)
        fail(r, "unknown operator '%s' (--list shows them)", op_name);
    else if (unfit(op, type, w, shape, lenient, &refused, why, sizeof(why)))
        (refused ? fail : skip)(r, "%s", why);
    else
    {
        snprintf(r->operator_name, sizeof(r->operator_name), "%s", op->schema->name);
        w->op = op;
        w->type = type;
        w->broadcast = broadcast;
        w->function = function;
        r->compute_bound = op->family->compute_bound;
        if ((problem = build_workload(w)))
            (lenient ? skip : fail)(r, "%s", problem);
        else
            run_workload(b, w, matching_preset(w), r);
    }
    free(w);
    progress_end(b);
    print_result(b, r);
}

static void run_preset(struct bench *b, const struct preset *p)
{
    struct result *r;

    if (!strcmp(p->op, BARE_ADD_OP))
    {
        r = new_result(b, p->name, p->op, p->type, p->shape, false);
        snprintf(r->operator_name, sizeof(r->operator_name), "bare Vulkan vec4 add");
        progress_begin(b, p->name);
        run_bare_add(b, p, r);
        if (r->status == STATUS_OK && !strcmp(p->name, COPY_PRESET))
            b->copy_rate = r->rate;
        progress_end(b);
        print_result(b, r);
        return;
    }
    if (p->groups & GROUP_GRAPH)
    {
        progress_begin(b, p->name);
        run_graph_preset(b, p);
        progress_end(b);
        return;
    }
    if (strcmp(p->op, DISPATCH_OP))
    {
        run_one(b, p, p->name, p->op, p->type, p->shape, p->function, p->broadcast, false);
        return;
    }
    progress_begin(b, p->name);
    run_small_dispatch(b);
    progress_end(b);
    print_dispatch(b, &b->dispatch);
}

void run_selection(struct bench *b, const struct selection *s, const struct plan *plan)
{
    const struct op_job *jobs = plan->jobs;
    const char *shape;
    char name[160], function[40] = "";
    unsigned int i;

    print_header(b);
    for (i = 0; i < preset_count; ++i)
    {
        if (s->chosen[i])
        {
            ++b->position;
            run_preset(b, &presets[i]);
        }
    }
    for (i = 0; i < plan->count; ++i)
    {
        ++b->position;
        shape = job_shape(b, s, jobs[i].op);
        if (s->function)
            snprintf(function, sizeof(function), "-%s", s->function);
        snprintf(name, sizeof(name), "%s%s-%s%s%s%s", jobs[i].op->name, function, shape, shape[0] ? "-" : "",
                type_name(jobs[i].type), s->broadcast ? "-broadcast" : "");
        run_one(b, NULL, name, jobs[i].op->name, jobs[i].type, shape, s->function, s->broadcast, plan->count > 1);
    }
}
