/*
 * IDMLBindingTable: checks each binding and has the backend write its descriptor into the
 * application's descriptor heap range, in the slot layout of vkdml_backend.h. Kernels read the
 * descriptors when the dispatch executes, which gives DESCRIPTORS_VOLATILE semantics for free.
 * Misuse in the void Bind* methods removes the DML device, as DirectML documents.
 */

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dml_private.h"

static inline struct dml_binding_table *impl_from_IDMLBindingTable(IDMLBindingTable *iface)
{
    return CONTAINING_RECORD(iface, struct dml_binding_table, IDMLBindingTable_iface);
}

/* ---- Slot layout (vkdml_backend.h) ---- */

static UINT target_input_count(const struct dml_dispatchable *d, UINT target)
{
    return d->initializer->targets[target]->view->input_count;
}

/* First slot of an initializer target: its inputs, then its persistent resource. */
static UINT initializer_target_base(const struct dml_dispatchable *d, UINT target)
{
    UINT base = 0, i;

    for (i = 0; i < target; ++i)
        base += target_input_count(d, i) + 1;
    return base;
}

static UINT compiled_temporary_slot(const struct dml_compiled_operator *compiled)
{
    return compiled->view->input_count + compiled->view->output_count;
}

static UINT temporary_slot(const struct dml_dispatchable *d)
{
    if (d->initializer)
        return initializer_target_base(d, d->initializer->target_count);
    return compiled_temporary_slot(d->compiled);
}

/* ---- Binding checks ---- */

struct binding_rule
{
    const char *method;                 /* "BindInputs" */
    const char *what;                   /* "bindings[2]" */
    uint64_t min_size;                  /* bytes the binding must cover */
    uint64_t alignment;                 /* of Offset */
    bool allow_upload;                  /* OWNED_BY_DML initializer inputs may live in UPLOAD heaps */
};

static void remove_device(struct dml_binding_table *table, const char *method, const char *fmt, ...) VKDML_PRINTF(3, 4);
static void remove_device(struct dml_binding_table *table, const char *method, const char *fmt, ...)
{
    char message[400];
    va_list args;

    va_start(args, fmt);
    vsnprintf(message, sizeof(message), fmt, args);
    va_end(args);
    dml_device_remove(table->device, E_INVALIDARG, method, "%s", message);
}

/* Remembers where a compiled operator's tensor lies, for check_aliasing(). */
static void set_range(struct dml_binding_table *table, UINT slot, uint64_t start, uint64_t size)
{
    if (slot < table->range_count)
    {
        table->ranges[slot].start = start;
        table->ranges[slot].size = size;
    }
}

static bool heap_allowed(D3D12_HEAP_TYPE type, bool allow_upload)
{
    return type == D3D12_HEAP_TYPE_DEFAULT || (allow_upload && type == D3D12_HEAP_TYPE_UPLOAD);
}

/* Writes the record for one buffer binding after checking it; false (device removed) on misuse. */
static bool write_buffer(struct dml_binding_table *table, UINT slot, const DML_BUFFER_BINDING *binding,
        const struct binding_rule *rule)
{
    struct vkdml_resource_info info;

    if (!binding || !binding->Buffer)
    {
        remove_device(table, rule->method, "%s has no buffer, but %" PRIu64 " bytes must be bound there.",
                rule->what, rule->min_size);
        return false;
    }
    if (FAILED(vkdml_backend_get_resource(table->device->backend, binding->Buffer, &info, rule->method)))
    {
        dml_device_remove(table->device, E_INVALIDARG, rule->method, "%s: Buffer is not a buffer of this device.", rule->what);
        return false;
    }
    if (!heap_allowed(info.heap_type, rule->allow_upload))
    {
        remove_device(table, rule->method, "%s: the buffer is in heap type %d; DirectML binds DEFAULT heap buffers%s.",
                rule->what, (int)info.heap_type, rule->allow_upload ? " (or UPLOAD for initializer inputs)" : "");
        return false;
    }
    if (binding->Offset % rule->alignment)
    {
        remove_device(table, rule->method, "%s.Offset %" PRIu64 " is not a multiple of %" PRIu64 ".",
                rule->what, (uint64_t)binding->Offset, rule->alignment);
        return false;
    }
    if (binding->SizeInBytes < rule->min_size)
    {
        remove_device(table, rule->method, "%s.SizeInBytes %" PRIu64 " is less than the %" PRIu64 " bytes needed.",
                rule->what, (uint64_t)binding->SizeInBytes, rule->min_size);
        return false;
    }
    if (binding->Offset > info.size || binding->SizeInBytes > info.size - binding->Offset)
    {
        remove_device(table, rule->method, "%s: Offset %" PRIu64 " + SizeInBytes %" PRIu64 " runs past the %" PRIu64
                "-byte buffer.", rule->what, (uint64_t)binding->Offset, (uint64_t)binding->SizeInBytes, info.size);
        return false;
    }
    vkdml_backend_write_descriptor(table->device->backend, table->cpu_handle, slot, binding->Buffer, binding->Offset,
            binding->SizeInBytes);
    set_range(table, slot, info.gpu_address + binding->Offset, rule->min_size);
    return true;
}

static void write_none(struct dml_binding_table *table, UINT slot)
{
    set_range(table, slot, 0, 0);
    vkdml_backend_write_descriptor(table->device->backend, table->cpu_handle, slot, NULL, 0, 0);
}

static const DML_BUFFER_BINDING *buffer_of(const DML_BINDING_DESC *binding)
{
    return binding->Type == DML_BINDING_TYPE_BUFFER ? binding->Desc : NULL;
}

static uint64_t tensor_alignment(const DML_BUFFER_TENSOR_DESC *tensor)
{
    return VKDML_MAX(DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT, tensor->GuaranteedBaseOffsetAlignment);
}

/* One execute-time input or output of a compiled operator. */
static bool bind_tensor(struct dml_binding_table *table, UINT slot, const DML_BUFFER_TENSOR_DESC *tensor,
        const DML_BINDING_DESC *binding, const char *method, UINT index)
{
    const char *what = vkdml_debug_sprintf("bindings[%u]", index);
    struct binding_rule rule = {method, what};
    bool owned = tensor && (tensor->Flags & DML_TENSOR_FLAG_OWNED_BY_DML);

    if (binding->Type != DML_BINDING_TYPE_NONE && binding->Type != DML_BINDING_TYPE_BUFFER)
    {
        remove_device(table, method, "%s.Type %d: a compiled operator takes BUFFER or NONE bindings.", what, (int)binding->Type);
        return false;
    }
    if (!tensor || owned)
    {
        if (binding->Type != DML_BINDING_TYPE_NONE && buffer_of(binding) && buffer_of(binding)->Buffer)
        {
            remove_device(table, method, "%s must be NONE: %s.", what, owned
                    ? "an OWNED_BY_DML tensor is bound at initialization only" : "the optional tensor is absent");
            return false;
        }
        write_none(table, slot);
        return true;
    }
    rule.min_size = tensor->TotalTensorSizeInBytes;
    rule.alignment = tensor_alignment(tensor);
    return write_buffer(table, slot, buffer_of(binding), &rule);
}

static bool check_count(struct dml_binding_table *table, const char *method, UINT count, const DML_BINDING_DESC *bindings,
        UINT expected, const char *what)
{
    if (count != expected)
    {
        remove_device(table, method, "bindingCount %u must equal the %u %s (optional ones included).", count, expected, what);
        return false;
    }
    if (count && !bindings)
    {
        remove_device(table, method, "bindings is NULL but bindingCount is %u.", count);
        return false;
    }
    return true;
}

/* Initializer inputs: one BUFFER_ARRAY (or NONE) per target, with an entry per target input. */
static bool bind_initializer_inputs(struct dml_binding_table *table, UINT count, const DML_BINDING_DESC *bindings)
{
    const struct dml_dispatchable *d = &table->dispatchable;
    UINT t, j;

    if (!check_count(table, "BindInputs", count, bindings, d->initializer->target_count, "target operators"))
        return false;
    for (t = 0; t < count; ++t)
    {
        const struct vkdml_operator_view *view = d->initializer->targets[t]->view;
        const DML_BUFFER_ARRAY_BINDING *array = bindings[t].Type == DML_BINDING_TYPE_BUFFER_ARRAY ? bindings[t].Desc : NULL;
        UINT base = initializer_target_base(d, t);

        if (bindings[t].Type != DML_BINDING_TYPE_NONE && bindings[t].Type != DML_BINDING_TYPE_BUFFER_ARRAY)
        {
            remove_device(table, "BindInputs", "bindings[%u].Type %d: initializer inputs are BUFFER_ARRAY (or NONE).",
                    t, (int)bindings[t].Type);
            return false;
        }
        if (array && array->BindingCount && array->BindingCount != view->input_count)
        {
            remove_device(table, "BindInputs", "bindings[%u] has %u entries; its operator (%s) has %u inputs.",
                    t, array->BindingCount, view->name, view->input_count);
            return false;
        }
        for (j = 0; j < view->input_count; ++j)
        {
            const DML_BUFFER_TENSOR_DESC *tensor = view->inputs[j];
            struct binding_rule rule = {"BindInputs", vkdml_debug_sprintf("bindings[%u].Bindings[%u]", t, j)};

            if (!tensor || !(tensor->Flags & DML_TENSOR_FLAG_OWNED_BY_DML))
            {
                write_none(table, base + j);
                continue;
            }
            rule.min_size = tensor->TotalTensorSizeInBytes;
            rule.alignment = tensor_alignment(tensor);
            rule.allow_upload = true;
            if (!write_buffer(table, base + j,
                    array && array->BindingCount ? &array->Bindings[j] : NULL, &rule))
                return false;
        }
    }
    return true;
}

/* The README's element-wise operators ("ELEMENT_WISE_*", "ACTIVATION_*") and the cumulative ones
 * execute in place. */
static bool supports_in_place(const struct vkdml_operator_view *view)
{
    return !strncmp(view->name, "ELEMENT_WISE_", strlen("ELEMENT_WISE_"))
            || !strncmp(view->name, "ACTIVATION_", strlen("ACTIVATION_"))
            || view->type == DML_OPERATOR_CUMULATIVE_SUMMATION || view->type == DML_OPERATOR_CUMULATIVE_PRODUCT;
}

static bool ranges_overlap(const struct dml_bound_range *a, const struct dml_bound_range *b)
{
    return a->size && b->size && a->start < b->start + b->size && b->start < a->start + a->size;
}

/* Two outputs never share bytes (TOP_K's values and indices): what one writes, the other would
 * overwrite. */
static bool check_output_overlap(struct dml_binding_table *table, const char *method, UINT o)
{
    const struct vkdml_operator_view *view = table->dispatchable.compiled->view;
    const struct dml_bound_range *out = &table->ranges[view->input_count + o];
    UINT p;

    for (p = 0; p < o; ++p)
    {
        if (!ranges_overlap(out, &table->ranges[view->input_count + p]))
            continue;
        remove_device(table, method, "output %u overlaps output %u in one buffer; outputs never share bytes.", o, p);
        return false;
    }
    return true;
}

/* DirectML's aliasing rule: inputs may overlap each other; an output may share bytes with an input
 * only in place, over exactly the input's range, where the operator supports that. */
static bool check_aliasing(struct dml_binding_table *table, const char *method)
{
    const struct vkdml_operator_view *view = table->dispatchable.compiled->view;
    const struct dml_bound_range *in, *out;
    UINT i, o;

    for (o = 0; o < view->output_count; ++o)
    {
        if (!check_output_overlap(table, method, o))
            return false;
        out = &table->ranges[view->input_count + o];
        for (i = 0; i < view->input_count && out->size; ++i)
        {
            in = &table->ranges[i];
            if (!ranges_overlap(in, out))
                continue;
            if (in->start == out->start && in->size == out->size && supports_in_place(view))
                continue;
            remove_device(table, method, "output %u overlaps input %u in one buffer (their ranges start %" PRIu64
                    " bytes apart); %s.", o, i, out->start > in->start ? out->start - in->start
                    : in->start - out->start, supports_in_place(view) ? "in-place execution takes the same range"
                    : vkdml_debug_sprintf("%s does not execute in place", view->name));
            return false;
        }
    }
    return true;
}

static void STDMETHODCALLTYPE dml_binding_table_BindInputs(IDMLBindingTable *iface, UINT count,
        const DML_BINDING_DESC *bindings)
{
    struct dml_binding_table *table = impl_from_IDMLBindingTable(iface);
    const struct vkdml_operator_view *view;
    UINT i;

    TRACE("iface %p, count %u, bindings %p.", (void *)iface, count, (const void *)bindings);
    if (!table->dispatchable_iface || FAILED(dml_device_check_removed(table->device, "BindInputs")))
        return;
    table->inputs_bound = false;
    if (table->dispatchable.initializer)
    {
        table->inputs_bound = bind_initializer_inputs(table, count, bindings);
        return;
    }
    view = table->dispatchable.compiled->view;
    for (i = 0; i < view->input_count; ++i)
        set_range(table, i, 0, 0);
    if (!count)
        return;     /* BindInputs(0, NULL) unbinds every input. */
    if (!check_count(table, "BindInputs", count, bindings, view->input_count, "inputs"))
        return;
    for (i = 0; i < count; ++i)
    {
        if (!bind_tensor(table, i, view->inputs[i], &bindings[i], "BindInputs", i))
            return;
    }
    table->inputs_bound = true;
}

/* Initializer outputs: each target's persistent resource (or NONE when it needs none). */
static bool bind_initializer_outputs(struct dml_binding_table *table, UINT count, const DML_BINDING_DESC *bindings)
{
    const struct dml_dispatchable *d = &table->dispatchable;
    UINT t;

    if (!check_count(table, "BindOutputs", count, bindings, d->initializer->target_count, "target operators"))
        return false;
    for (t = 0; t < count; ++t)
    {
        const struct dml_compiled_operator *target = d->initializer->targets[t];
        UINT slot = initializer_target_base(d, t) + target->view->input_count;
        struct binding_rule rule = {"BindOutputs", vkdml_debug_sprintf("bindings[%u] (persistent resource of %s)",
                t, target->view->name), target->properties.PersistentResourceSize,
                DML_PERSISTENT_BUFFER_ALIGNMENT};

        if (!target->properties.PersistentResourceSize)
        {
            write_none(table, slot);
            continue;
        }
        if (bindings[t].Type != DML_BINDING_TYPE_BUFFER
                || !write_buffer(table, slot, buffer_of(&bindings[t]), &rule))
        {
            if (bindings[t].Type != DML_BINDING_TYPE_BUFFER)
                remove_device(table, "BindOutputs", "%s must be a BUFFER binding.", rule.what);
            return false;
        }
    }
    return true;
}

static void STDMETHODCALLTYPE dml_binding_table_BindOutputs(IDMLBindingTable *iface, UINT count,
        const DML_BINDING_DESC *bindings)
{
    struct dml_binding_table *table = impl_from_IDMLBindingTable(iface);
    const struct vkdml_operator_view *view;
    UINT i;

    TRACE("iface %p, count %u, bindings %p.", (void *)iface, count, (const void *)bindings);
    if (!table->dispatchable_iface || FAILED(dml_device_check_removed(table->device, "BindOutputs")))
        return;
    table->outputs_bound = false;
    if (table->dispatchable.initializer)
    {
        table->outputs_bound = bind_initializer_outputs(table, count, bindings);
        return;
    }
    view = table->dispatchable.compiled->view;
    for (i = 0; i < view->output_count; ++i)
        set_range(table, view->input_count + i, 0, 0);
    if (!count)
        return;
    if (!check_count(table, "BindOutputs", count, bindings, view->output_count, "outputs"))
        return;
    for (i = 0; i < count; ++i)
    {
        if (!bind_tensor(table, view->input_count + i, view->outputs[i], &bindings[i], "BindOutputs", i))
            return;
    }
    /* Applications bind inputs first: the outputs complete the pair. RecordDispatch checks the other order. */
    table->outputs_bound = check_aliasing(table, "BindOutputs");
}

/* Temporary and persistent resources: NULL/NONE when the size is 0, else a 256-aligned BUFFER. */
static bool bind_resource(struct dml_binding_table *table, UINT slot, const DML_BINDING_DESC *binding,
        uint64_t size, uint64_t alignment, const char *method)
{
    struct binding_rule rule = {method, "binding", size, alignment};

    if (!binding || binding->Type == DML_BINDING_TYPE_NONE)
    {
        if (size)
        {
            remove_device(table, method, "the dispatchable needs %" PRIu64 " bytes here; NULL/NONE is only for size 0.", size);
            return false;
        }
        write_none(table, slot);
        return true;
    }
    if (binding->Type != DML_BINDING_TYPE_BUFFER)
    {
        remove_device(table, method, "binding->Type %d must be BUFFER or NONE.", (int)binding->Type);
        return false;
    }
    if (!binding->Desc)
    {
        remove_device(table, method, "binding->Desc is NULL for a BUFFER binding (NONE binds nothing).");
        return false;
    }
    if (!size && !(buffer_of(binding) && buffer_of(binding)->Buffer))
    {
        write_none(table, slot);
        return true;
    }
    return write_buffer(table, slot, buffer_of(binding), &rule);
}

static void STDMETHODCALLTYPE dml_binding_table_BindTemporaryResource(IDMLBindingTable *iface,
        const DML_BINDING_DESC *binding)
{
    struct dml_binding_table *table = impl_from_IDMLBindingTable(iface);

    TRACE("iface %p, binding %p.", (void *)iface, (const void *)binding);
    if (!table->dispatchable_iface || FAILED(dml_device_check_removed(table->device, "BindTemporaryResource")))
        return;
    table->temporary_bound = bind_resource(table, temporary_slot(&table->dispatchable), binding,
            table->dispatchable.properties.TemporaryResourceSize, DML_TEMPORARY_BUFFER_ALIGNMENT, "BindTemporaryResource");
}

static void STDMETHODCALLTYPE dml_binding_table_BindPersistentResource(IDMLBindingTable *iface,
        const DML_BINDING_DESC *binding)
{
    struct dml_binding_table *table = impl_from_IDMLBindingTable(iface);
    const struct dml_dispatchable *d = &table->dispatchable;

    TRACE("iface %p, binding %p.", (void *)iface, (const void *)binding);
    if (!table->dispatchable_iface || FAILED(dml_device_check_removed(table->device, "BindPersistentResource")))
        return;
    if (d->initializer)
    {
        /* An initializer's persistent size is always 0: its targets' resources are its outputs. */
        if (binding && binding->Type != DML_BINDING_TYPE_NONE && buffer_of(binding) && buffer_of(binding)->Buffer)
        {
            remove_device(table, "BindPersistentResource", "an initializer has no persistent resource; bind its "
                    "targets' persistent resources with BindOutputs.");
            return;
        }
        table->persistent_bound = true;
        return;
    }
    table->persistent_bound = bind_resource(table, temporary_slot(d) + 1, binding,
            d->properties.PersistentResourceSize, DML_PERSISTENT_BUFFER_ALIGNMENT, "BindPersistentResource");
}

/* ---- Targeting (creation and Reset) ---- */

static void clear_target(struct dml_binding_table *table)
{
    if (table->dispatchable_iface)
        IDMLDispatchable_Release(table->dispatchable_iface);
    table->dispatchable_iface = NULL;
    memset(&table->dispatchable, 0, sizeof(table->dispatchable));
    table->cpu_handle.ptr = 0;
    table->inputs_bound = table->outputs_bound = table->temporary_bound = table->persistent_bound = false;
    free(table->ranges);
    table->ranges = NULL;
    table->range_count = 0;
}

static HRESULT set_target(struct dml_binding_table *table, const DML_BINDING_TABLE_DESC *desc, const char *caller)
{
    struct dml_bound_range *ranges = NULL;
    struct dml_dispatchable dispatchable;
    UINT range_count = 0;

    if (!desc)
    {
        clear_target(table);
        return S_OK;
    }
    if (!dml_dispatchable_from_iface(desc->Dispatchable, &dispatchable) || dispatchable.device != table->device)
    {
        ERR("%s: desc->Dispatchable %p is not a compiled operator or initializer of this DML device.", caller,
                (void *)desc->Dispatchable);
        return E_INVALIDARG;
    }
    if (desc->SizeInDescriptors < dispatchable.properties.RequiredDescriptorCount)
    {
        ERR("%s: desc->SizeInDescriptors %u is less than the dispatchable's RequiredDescriptorCount %u.", caller,
                desc->SizeInDescriptors, dispatchable.properties.RequiredDescriptorCount);
        return E_INVALIDARG;
    }
    if (!vkdml_backend_check_cpu_descriptors(table->device->backend, desc->CPUDescriptorHandle,
            desc->SizeInDescriptors, caller)
            || !vkdml_backend_check_gpu_descriptors(table->device->backend, desc->GPUDescriptorHandle,
            desc->SizeInDescriptors, caller))
        return E_INVALIDARG;
    if (dispatchable.compiled)
    {
        const struct vkdml_operator_view *view = dispatchable.compiled->view;

        range_count = view->input_count + view->output_count;
        if (range_count && !(ranges = calloc(range_count, sizeof(*ranges))))
            return E_OUTOFMEMORY;
    }

    IDMLDispatchable_AddRef(desc->Dispatchable);
    clear_target(table);
    table->ranges = ranges;
    table->range_count = range_count;
    table->dispatchable_iface = desc->Dispatchable;
    table->dispatchable = dispatchable;
    table->cpu_handle = desc->CPUDescriptorHandle;
    table->gpu_handle = desc->GPUDescriptorHandle;
    table->size_in_descriptors = desc->SizeInDescriptors;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE dml_binding_table_Reset(IDMLBindingTable *iface, const DML_BINDING_TABLE_DESC *desc)
{
    struct dml_binding_table *table = impl_from_IDMLBindingTable(iface);
    HRESULT hr;

    TRACE("iface %p, desc %p.", (void *)iface, (const void *)desc);
    if (FAILED(hr = dml_device_check_removed(table->device, "IDMLBindingTable::Reset")))
        return hr;
    return set_target(table, desc, "IDMLBindingTable::Reset");
}

/* ---- IUnknown, IDMLObject ---- */

static HRESULT STDMETHODCALLTYPE dml_binding_table_QueryInterface(IDMLBindingTable *iface, REFIID riid, void **object)
{
    static const IID *const iids[] = {&IID_IDMLBindingTable, &IID_IDMLDeviceChild, &IID_IDMLObject, &IID_IUnknown};

    TRACE("iface %p, riid %s, object %p.", (void *)iface, debugstr_guid(riid), (void *)object);
    return vkdml_query_interface((IUnknown *)iface, iids, ARRAY_SIZE(iids), riid, object);
}

static ULONG STDMETHODCALLTYPE dml_binding_table_AddRef(IDMLBindingTable *iface)
{
    struct dml_binding_table *table = impl_from_IDMLBindingTable(iface);
    ULONG refcount = vkdml_refcount_increment(&table->refcount);

    TRACE("%p increasing refcount to %u.", (void *)table, (unsigned int)refcount);
    return refcount;
}

static ULONG STDMETHODCALLTYPE dml_binding_table_Release(IDMLBindingTable *iface)
{
    struct dml_binding_table *table = impl_from_IDMLBindingTable(iface);
    ULONG refcount = vkdml_refcount_decrement(&table->refcount);

    TRACE("%p decreasing refcount to %u.", (void *)table, (unsigned int)refcount);
    if (!refcount)
    {
        struct dml_device *device = table->device;

        clear_target(table);
        vkdml_private_store_destroy(&table->private_store);
        free(table);
        dml_device_release(device);
    }
    return refcount;
}

DML_IMPLEMENT_PRIVATE_DATA(dml_binding_table, IDMLBindingTable, impl_from_IDMLBindingTable)
DML_IMPLEMENT_GET_DEVICE(dml_binding_table, IDMLBindingTable, impl_from_IDMLBindingTable)

static HRESULT STDMETHODCALLTYPE dml_binding_table_SetName(IDMLBindingTable *iface, PCWSTR name)
{
    char *utf8;
    HRESULT hr;

    if (SUCCEEDED(hr = dml_object_name_to_utf8(name, &utf8)))
        TRACE("iface %p, name \"%s\".", (void *)iface, utf8 ? utf8 : "(null)");
    free(utf8);
    return hr;
}

static const struct IDMLBindingTableVtbl dml_binding_table_vtbl =
{
    dml_binding_table_QueryInterface,
    dml_binding_table_AddRef,
    dml_binding_table_Release,
    dml_binding_table_GetPrivateData,
    dml_binding_table_SetPrivateData,
    dml_binding_table_SetPrivateDataInterface,
    dml_binding_table_SetName,
    dml_binding_table_GetDevice,
    dml_binding_table_BindInputs,
    dml_binding_table_BindOutputs,
    dml_binding_table_BindTemporaryResource,
    dml_binding_table_BindPersistentResource,
    dml_binding_table_Reset,
};

struct dml_binding_table *unsafe_impl_from_IDMLBindingTable(IDMLBindingTable *iface)
{
    if (!iface || iface->lpVtbl != &dml_binding_table_vtbl)
        return NULL;
    return impl_from_IDMLBindingTable(iface);
}

HRESULT dml_binding_table_create(struct dml_device *device, const DML_BINDING_TABLE_DESC *desc,
        struct dml_binding_table **out)
{
    struct dml_binding_table *table;
    HRESULT hr;

    if (!(table = calloc(1, sizeof(*table))))
        return E_OUTOFMEMORY;
    table->IDMLBindingTable_iface.lpVtbl = &dml_binding_table_vtbl;
    atomic_init(&table->refcount, 1);
    table->device = device;
    if (FAILED(hr = set_target(table, desc, "CreateBindingTable")))
    {
        free(table);
        return hr;
    }
    dml_device_add_ref(device);
    vkdml_private_store_init(&table->private_store);
    *out = table;
    return S_OK;
}

/* ---- For the recorder ---- */

/* Whether a view has an input that must be bound: at execute, a present one not OWNED_BY_DML;
 * at initialization, an OWNED_BY_DML one. */
static bool has_input_to_bind(const struct vkdml_operator_view *view, bool initialization)
{
    UINT i;

    for (i = 0; i < view->input_count; ++i)
    {
        if (view->inputs[i] && !!(view->inputs[i]->Flags & DML_TENSOR_FLAG_OWNED_BY_DML) == initialization)
            return true;
    }
    return false;
}

/* An initializer needs BindInputs only when a target has OWNED_BY_DML inputs, and BindOutputs only
 * when a target has a persistent resource (HelloDirectML binds neither for IDENTITY). */
static void initializer_needs(const struct dml_initializer *initializer, bool *inputs, bool *outputs)
{
    UINT i;

    *inputs = *outputs = false;
    for (i = 0; i < initializer->target_count; ++i)
    {
        *inputs |= has_input_to_bind(initializer->targets[i]->view, true);
        *outputs |= initializer->targets[i]->properties.PersistentResourceSize != 0;
    }
}

bool dml_binding_table_ready(struct dml_binding_table *table, const char *caller)
{
    const struct dml_dispatchable *d = &table->dispatchable;
    const char *missing = NULL;
    bool inputs, outputs;

    if (d->initializer)
        initializer_needs(d->initializer, &inputs, &outputs);
    else
    {
        inputs = has_input_to_bind(d->compiled->view, false);
        outputs = d->compiled->view->output_count != 0;
    }
    if (inputs && !table->inputs_bound)
        missing = "inputs (BindInputs)";
    else if (outputs && !table->outputs_bound)
        missing = "outputs (BindOutputs)";
    else if (d->properties.TemporaryResourceSize && !table->temporary_bound)
        missing = "the temporary resource (BindTemporaryResource)";
    else if (d->properties.PersistentResourceSize && !table->persistent_bound)
        missing = "the persistent resource (BindPersistentResource)";
    if (missing)
    {
        dml_device_remove(table->device, E_INVALIDARG, caller, "the binding table lacks %s; without "
                "DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE every binding must be set before RecordDispatch.", missing);
        return false;
    }
    return d->initializer || check_aliasing(table, caller);
}

/* The execute-time slots a compiled operator reads: its present inputs not OWNED_BY_DML, its outputs,
 * and its temporary and persistent resources when it has them. NULL when all hold a buffer. */
static const char *first_unwritten_slot(const struct dml_compiled_operator *compiled, D3D12_CPU_DESCRIPTOR_HANDLE table)
{
    const struct vkdml_operator_view *view = compiled->view;
    UINT temporary = compiled_temporary_slot(compiled), i;

    for (i = 0; i < view->input_count; ++i)
    {
        if (view->inputs[i] && !(view->inputs[i]->Flags & DML_TENSOR_FLAG_OWNED_BY_DML)
                && !vkdml_backend_descriptor_written(table, i))
            return vkdml_debug_sprintf("input %u (BindInputs)", i);
    }
    for (i = 0; i < view->output_count; ++i)
    {
        if (view->outputs[i] && !vkdml_backend_descriptor_written(table, view->input_count + i))
            return vkdml_debug_sprintf("output %u (BindOutputs)", i);
    }
    if (compiled->properties.TemporaryResourceSize && !vkdml_backend_descriptor_written(table, temporary))
        return "the temporary resource (BindTemporaryResource)";
    if (compiled->properties.PersistentResourceSize && !vkdml_backend_descriptor_written(table, temporary + 1))
        return "the persistent resource (BindPersistentResource)";
    return NULL;
}

bool dml_volatile_bindings_written(struct dml_compiled_operator *compiled, D3D12_CPU_DESCRIPTOR_HANDLE table,
        const char *caller)
{
    const char *missing;

    if (!(missing = first_unwritten_slot(compiled, table)))
        return true;
    dml_device_remove(compiled->device, E_INVALIDARG, caller, "a DESCRIPTORS_VOLATILE dispatch of %s (compiled "
            "operator %p) has nothing bound as %s when it executes; nothing was submitted.",
            compiled->view->name, (void *)compiled, missing);
    return false;
}
