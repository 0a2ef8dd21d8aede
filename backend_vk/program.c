/*
 * Compiled programs: the dispatches an operator or initializer records, built by the operator
 * families through vkdml_compile_add_dispatch(), with pipelines from a per-device cache keyed by
 * (kernel, specialization constants) so identical compiled operators share pipelines. New ones are
 * created through the Vulkan device's VkPipelineCache (pipeline_cache.c).
 */

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d3d12_private.h"
#include "dml_private_backend.h"
#include "copy_interface.h"

/* ---- Pipeline cache ---- */

struct vkdml_pipeline_entry
{
    struct vkdml_pipeline_entry *next;
    VkPipeline pipeline;
    enum vkdml_kernel_id kernel;
    uint32_t spec_count;
    uint32_t spec[];
};

static uint32_t key_hash(enum vkdml_kernel_id kernel, const uint32_t *spec, uint32_t spec_count)
{
    uint32_t hash = 2166136261u ^ kernel, i;

    for (i = 0; i < spec_count; ++i)
        hash = (hash ^ spec[i]) * 16777619u;
    return hash % VKDML_PIPELINE_BUCKETS;
}

HRESULT vkdml_pipeline_cache_get(struct vkdml_backend_device *device, enum vkdml_kernel_id kernel,
        const uint32_t *spec, uint32_t spec_count, VkPipeline *pipeline)
{
    struct vkdml_pipeline_entry **bucket = &device->pipelines[key_hash(kernel, spec, spec_count)], *entry;
    VkResult vr = VK_SUCCESS;

    /* Held across creation so two threads compiling the same operator share one pipeline. */
    vkdml_mutex_lock(&device->pipelines_mutex);
    for (entry = *bucket; entry; entry = entry->next)
    {
        if (entry->kernel == kernel && entry->spec_count == spec_count
                && (!spec_count || !memcmp(entry->spec, spec, spec_count * sizeof(*spec))))
            break;
    }
    if (!entry)
    {
        if (!(entry = calloc(1, sizeof(*entry) + spec_count * sizeof(*spec))))
            vr = VK_ERROR_OUT_OF_HOST_MEMORY;
        else if ((vr = vkdml_vk_compute_pipeline_create(device->vk, device->layout, kernel, spec, spec_count,
                &entry->pipeline)) < 0)
        {
            free(entry);
            entry = NULL;
        }
        else
        {
            entry->kernel = kernel;
            entry->spec_count = spec_count;
            if (spec_count)     /* spec may be NULL then: memcpy(NULL) is undefined even for 0 bytes */
                memcpy(entry->spec, spec, spec_count * sizeof(*spec));
            entry->next = *bucket;
            *bucket = entry;
        }
    }
    if (entry)
        *pipeline = entry->pipeline;
    vkdml_mutex_unlock(&device->pipelines_mutex);
    return vr < 0 ? hresult_from_vk_result(vr) : S_OK;
}

void vkdml_pipeline_cache_destroy(struct vkdml_backend_device *device)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->vk->procs;
    struct vkdml_pipeline_entry *entry, *next;
    unsigned int i;

    for (i = 0; i < VKDML_PIPELINE_BUCKETS; ++i)
    {
        for (entry = device->pipelines[i]; entry; entry = next)
        {
            next = entry->next;
            VK_CALL(vkDestroyPipeline(device->vk->vk_device, entry->pipeline, NULL));
            free(entry);
        }
        device->pipelines[i] = NULL;
    }
}

/* ---- Programs ---- */

static HRESULT program_add_dispatch(struct vkdml_backend_device *device, struct vkdml_program *program,
        enum vkdml_kernel_id kernel, const uint32_t *spec, uint32_t spec_count, const void *push,
        uint32_t push_size, const uint32_t groups[3], bool barrier_before)
{
    struct vkdml_dispatch *dispatch;
    HRESULT hr;

    if (push_size > VKDML_MAX_OP_PUSH || push_size % 4)
    {
        ERR("Kernel %s: %u bytes of push constants; at most %u, in whole words.", vkdml_kernel_get(kernel)->name,
                push_size, VKDML_MAX_OP_PUSH);
        return E_INVALIDARG;
    }
    if (program->dispatch_count == program->dispatch_capacity)
    {
        uint32_t capacity = program->dispatch_capacity ? program->dispatch_capacity * 2 : 4;
        void *grown = realloc(program->dispatches, capacity * sizeof(*program->dispatches));

        if (!grown)
            return E_OUTOFMEMORY;
        program->dispatches = grown;
        program->dispatch_capacity = capacity;
    }
    dispatch = &program->dispatches[program->dispatch_count];
    memset(dispatch, 0, sizeof(*dispatch));
    if (!program->count_only && FAILED(hr = vkdml_pipeline_cache_get(device, kernel, spec, spec_count,
            &dispatch->pipeline)))
        return hr;
    memcpy(dispatch->groups, groups, sizeof(dispatch->groups));
    dispatch->barrier_before = barrier_before;
    dispatch->push_size = push_size;
    if (push_size)
        memcpy(dispatch->push, push, push_size);
    ++program->dispatch_count;
    return S_OK;
}

HRESULT vkdml_compile_add_dispatch(struct vkdml_compile *compile, enum vkdml_kernel_id kernel,
        const uint32_t *spec, uint32_t spec_count, const void *push, uint32_t push_size,
        const uint32_t groups[3], bool barrier_before)
{
    return program_add_dispatch(compile->device, compile->program, kernel, spec, spec_count, push, push_size,
            groups, barrier_before);
}

struct vkdml_tensor_location vkdml_compile_reserve_persistent(struct vkdml_compile *compile, uint64_t size)
{
    struct vkdml_tensor_location location = {compile->persistent_slot};

    location.offset = VKDML_ALIGN_UP(compile->persistent_size, DML_PERSISTENT_BUFFER_ALIGNMENT);
    compile->persistent_size = location.offset + size;
    return location;
}

HRESULT vkdml_op_error(const struct vkdml_operator_view *op, HRESULT hr, const char *fmt, ...)
{
    char message[512];
    va_list args;

    va_start(args, fmt);
    vsnprintf(message, sizeof(message), fmt, args);
    va_end(args);
    vkdml_log(hr == E_NOTIMPL ? VKDML_LOG_FIXME : VKDML_LOG_ERR, VKDML_LOG_SOURCE_VKDML,
            vkdml_debug_sprintf("CreateOperator(%s)", op->name), "%s", message);
    return hr;
}

bool vkdml_backend_operator_implemented(DML_OPERATOR_TYPE type)
{
    return (unsigned int)type < VKDML_OPERATOR_TYPE_COUNT && vkdml_op_table[type].compile;
}

HRESULT vkdml_backend_validate_operator(struct vkdml_backend_device *device, const struct vkdml_operator_view *op)
{
    const struct vkdml_op_entry *entry = &vkdml_op_table[op->type];

    return entry->validate ? entry->validate(device, op) : S_OK;
}

void vkdml_backend_program_destroy(struct vkdml_backend_device *device, struct vkdml_program *program)
{
    if (!program)
        return;
    free(program->dispatches);
    free(program->owned);
    free(program->segments);
    vkdml_graph_destroy(program->graph);
    free(program);
}

DML_BINDING_PROPERTIES vkdml_backend_program_binding_properties(const struct vkdml_program *program)
{
    return program->properties;
}

void vkdml_backend_program_set_name(struct vkdml_backend_device *device, struct vkdml_program *program,
        const char *name)
{
    uint32_t i;

    /* Pipelines are shared between identical operators: the last name given wins. */
    for (i = 0; program && name && i < program->dispatch_count; ++i)
        d3d12_device_set_vk_object_name(device->d3d12, VK_OBJECT_TYPE_PIPELINE,
                (uint64_t)(uintptr_t)program->dispatches[i].pipeline, name);
    if (!program)
        return;
    /* Labels and profiler entries are the program's own; NULL (D3D12: no name) restores the type. */
    vkdml_mutex_lock(&device->label_mutex);
    snprintf(program->label, sizeof(program->label), "%s", name && *name ? name : program->type_label);
    vkdml_mutex_unlock(&device->label_mutex);
}

void vkdml_program_get_label(struct vkdml_backend_device *device, const struct vkdml_program *program,
        char *label, size_t size)
{
    vkdml_mutex_lock(&device->label_mutex);
    snprintf(label, size, "%s", program->label);
    vkdml_mutex_unlock(&device->label_mutex);
}

static void program_set_type_label(struct vkdml_program *program, const char *type)
{
    snprintf(program->type_label, sizeof(program->type_label), "%s", type);
    memcpy(program->label, program->type_label, sizeof(program->label));
}

/* OWNED_BY_DML inputs live in the persistent resource, one after another, 256-byte aligned. */
static HRESULT place_owned_inputs(const struct vkdml_operator_view *op, struct vkdml_program *program,
        struct vkdml_tensor_location *inputs, uint32_t persistent_slot)
{
    uint64_t offset = 0;
    uint32_t i;

    if (op->input_count && !(program->owned = calloc(op->input_count, sizeof(*program->owned))))
        return E_OUTOFMEMORY;
    for (i = 0; i < op->input_count; ++i)
    {
        const DML_BUFFER_TENSOR_DESC *tensor = op->inputs[i];

        inputs[i] = (struct vkdml_tensor_location){i, 0};
        if (!tensor || !(tensor->Flags & DML_TENSOR_FLAG_OWNED_BY_DML))
            continue;
        inputs[i] = (struct vkdml_tensor_location){persistent_slot, offset};
        program->owned[program->owned_count++] = (struct vkdml_owned_input){i, offset, tensor->TotalTensorSizeInBytes};
        offset = VKDML_ALIGN_UP(offset + tensor->TotalTensorSizeInBytes, DML_PERSISTENT_BUFFER_ALIGNMENT);
    }
    program->owned_size = offset;
    return S_OK;
}

HRESULT vkdml_backend_compile_operator(struct vkdml_backend_device *device, const struct vkdml_operator_view *op,
        DML_EXECUTION_FLAGS flags, struct vkdml_program **out)
{
    const struct vkdml_op_entry *entry = &vkdml_op_table[op->type];
    struct vkdml_tensor_location *locations;
    struct vkdml_compile compile = {0};
    struct vkdml_program *program;
    uint32_t i, slots = op->input_count + op->output_count;
    HRESULT hr = E_OUTOFMEMORY;

    if (!entry->compile)
        return vkdml_op_error(op, E_NOTIMPL, "the operator is not implemented yet.");
    if (!(program = calloc(1, sizeof(*program))))
        return E_OUTOFMEMORY;
    program_set_type_label(program, op->name);
    if (!(locations = calloc(slots ? slots : 1, sizeof(*locations))))
        goto fail;
    compile.device = device;
    compile.vk = device->vk;
    compile.op = op;
    compile.flags = flags;
    compile.knobs = &device->knobs;
    compile.inputs = locations;
    compile.outputs = locations + op->input_count;
    compile.temporary_slot = slots;
    compile.persistent_slot = slots + 1;
    compile.program = program;
    if (FAILED(hr = place_owned_inputs(op, program, locations, compile.persistent_slot)))
        goto fail;
    compile.persistent_size = program->owned_size;
    for (i = 0; i < op->output_count; ++i)
        locations[op->input_count + i] = (struct vkdml_tensor_location){op->input_count + i, 0};
    if (FAILED(hr = entry->compile(&compile)))
        goto fail;

    program->input_count = op->input_count;
    program->op = op;
    program->flags = flags;
    program->family_init = compile.persistent_size != program->owned_size;
    program->properties.PersistentResourceSize = compile.persistent_size;
    program->properties.RequiredDescriptorCount = slots + 2;
    program->properties.TemporaryResourceSize = compile.temporary_size;
    free(locations);
    *out = program;
    return S_OK;

fail:
    free(locations);
    vkdml_backend_program_destroy(device, program);
    return hr;
}

HRESULT vkdml_program_add_copy(struct vkdml_backend_device *device, struct vkdml_program *program,
        uint32_t source_slot, uint64_t source_address, uint32_t destination_slot, uint64_t destination_offset,
        uint64_t size, bool barrier_before)
{
    const uint32_t words_per_group = COPY_WORKGROUP_SIZE * COPY_WORDS_PER_INVOCATION;
    uint32_t max_x = device->vk->caps.properties.limits.maxComputeWorkGroupCount[0];
    uint64_t words = size / 4;
    uint32_t rows = (uint32_t)((words + words_per_group - 1) / words_per_group);
    struct vkdml_copy_push push =
    {
        .src_slot = source_slot,
        .dst_slot = destination_slot,
        .dst_offset = destination_offset,
        .word_count = (uint32_t)words,
        .src_address = source_address,
    };
    uint32_t groups[3] = {VKDML_MIN(rows, max_x), (rows + max_x - 1) / max_x, 1};

    if (!words)
        return S_OK;
    return program_add_dispatch(device, program, VKDML_KERNEL_COPY, NULL, 0, &push, sizeof(push), groups,
            barrier_before);
}

/* One copy dispatch per OWNED_BY_DML input of a target, into its persistent resource. */
static HRESULT add_owned_copies(struct vkdml_backend_device *device, struct vkdml_program *init,
        const struct vkdml_program *target, uint32_t base_slot)
{
    uint32_t i;
    HRESULT hr;

    for (i = 0; i < target->owned_count; ++i)
    {
        const struct vkdml_owned_input *owned = &target->owned[i];

        if (FAILED(hr = vkdml_program_add_copy(device, init, base_slot + owned->input, 0,
                base_slot + target->input_count, owned->offset, owned->size, false)))
            return hr;
    }
    return S_OK;
}

HRESULT vkdml_program_add_family_init(struct vkdml_backend_device *device, struct vkdml_program *init,
        const struct vkdml_operator_view *op, DML_EXECUTION_FLAGS flags, const struct vkdml_tensor_location *inputs,
        uint32_t persistent_slot, uint64_t persistent_start, uint32_t temporary_slot)
{
    const struct vkdml_op_entry *entry = &vkdml_op_table[op->type];
    struct vkdml_tensor_location *locations;
    struct vkdml_compile compile = {0};
    uint32_t i, count = op->input_count + op->output_count;
    HRESULT hr;

    if (!entry->initialize)
        return vkdml_op_error(op, E_NOTIMPL, "the family has no initializer for its persistent data.");
    if (!(locations = calloc(count ? count : 1, sizeof(*locations))))
        return E_OUTOFMEMORY;
    for (i = 0; i < count; ++i)
        locations[i] = i < op->input_count ? inputs[i] : (struct vkdml_tensor_location){temporary_slot};
    compile.device = device;
    compile.vk = device->vk;
    compile.op = op;
    compile.flags = flags;
    compile.knobs = &device->knobs;
    compile.inputs = locations;
    compile.outputs = locations + op->input_count;
    compile.temporary_slot = temporary_slot;
    compile.persistent_slot = persistent_slot;
    compile.persistent_size = persistent_start;
    compile.temporary_size = init->properties.TemporaryResourceSize;
    compile.program = init;
    hr = entry->initialize(&compile);
    init->properties.TemporaryResourceSize = VKDML_MAX(init->properties.TemporaryResourceSize, compile.temporary_size);
    free(locations);
    return hr;
}

/* The family's initializer dispatches for a target whose compile() reserved persistent space:
 * its `initialize` hook with a compilation of the initializer (ops_private.h). */
static HRESULT add_family_init(struct vkdml_backend_device *device, struct vkdml_program *init,
        const struct vkdml_program *target, uint32_t base_slot, uint32_t temporary_slot)
{
    struct vkdml_tensor_location *inputs;
    uint32_t i, count = target->op->input_count;
    HRESULT hr;

    if (!(inputs = calloc(count ? count : 1, sizeof(*inputs))))
        return E_OUTOFMEMORY;
    for (i = 0; i < count; ++i)
        inputs[i] = (struct vkdml_tensor_location){base_slot + i};
    hr = vkdml_program_add_family_init(device, init, target->op, target->flags, inputs,
            base_slot + target->input_count, target->owned_size, temporary_slot);
    free(inputs);
    return hr;
}

HRESULT vkdml_backend_compile_initializer(struct vkdml_backend_device *device, UINT target_count,
        const struct vkdml_program *const *targets, struct vkdml_program **out)
{
    struct vkdml_program *program;
    uint32_t slot = 0, slots = 0, i;
    HRESULT hr = S_OK;

    if (!(program = calloc(1, sizeof(*program))))
        return E_OUTOFMEMORY;
    program_set_type_label(program, "INITIALIZER");
    /* Per target: its inputs and its persistent resource; then the temporary resource. */
    for (i = 0; i < target_count; ++i)
        slots += targets[i]->input_count + 1;
    for (i = 0; i < target_count && SUCCEEDED(hr); ++i)
    {
        if (targets[i]->graph)
            hr = vkdml_graph_add_initializer(device, program, targets[i], slot, slots);
        else
            hr = add_owned_copies(device, program, targets[i], slot);
        if (SUCCEEDED(hr) && targets[i]->family_init)
            hr = add_family_init(device, program, targets[i], slot, slots);
        slot += targets[i]->input_count + 1;
    }
    if (FAILED(hr))
    {
        vkdml_backend_program_destroy(device, program);
        return hr;
    }
    program->properties.RequiredDescriptorCount = slots + 1;
    *out = program;
    return S_OK;
}
