/*
 * IDMLCommandRecorder: stateless and thread-safe. RecordDispatch records into the application's
 * open command list and nothing else: no barriers on bound resources, no descriptor heaps set,
 * no references kept. Misuse removes the DML device (it is a void method).
 */

#include <stdlib.h>

#include "dml_private.h"
/* Only the VkCommandBuffer type, for vkdml_record_dispatch_vk: this layer calls no Vulkan function. */
#define VK_NO_PROTOTYPES
#include "vkdml_vulkan.h"

static inline struct dml_command_recorder *impl_from_IDMLCommandRecorder(IDMLCommandRecorder *iface)
{
    return CONTAINING_RECORD(iface, struct dml_command_recorder, IDMLCommandRecorder_iface);
}

static HRESULT STDMETHODCALLTYPE dml_command_recorder_QueryInterface(IDMLCommandRecorder *iface,
        REFIID riid, void **object)
{
    static const IID *const iids[] = {&IID_IDMLCommandRecorder, &IID_IDMLDeviceChild, &IID_IDMLObject, &IID_IUnknown};

    TRACE("iface %p, riid %s, object %p.", (void *)iface, debugstr_guid(riid), (void *)object);
    return vkdml_query_interface((IUnknown *)iface, iids, ARRAY_SIZE(iids), riid, object);
}

static ULONG STDMETHODCALLTYPE dml_command_recorder_AddRef(IDMLCommandRecorder *iface)
{
    struct dml_command_recorder *recorder = impl_from_IDMLCommandRecorder(iface);
    ULONG refcount = vkdml_refcount_increment(&recorder->refcount);

    TRACE("%p increasing refcount to %u.", (void *)recorder, (unsigned int)refcount);
    return refcount;
}

static ULONG STDMETHODCALLTYPE dml_command_recorder_Release(IDMLCommandRecorder *iface)
{
    struct dml_command_recorder *recorder = impl_from_IDMLCommandRecorder(iface);
    ULONG refcount = vkdml_refcount_decrement(&recorder->refcount);

    TRACE("%p decreasing refcount to %u.", (void *)recorder, (unsigned int)refcount);
    if (!refcount)
    {
        struct dml_device *device = recorder->device;

        vkdml_private_store_destroy(&recorder->private_store);
        free(recorder);
        dml_device_release(device);
    }
    return refcount;
}

DML_IMPLEMENT_PRIVATE_DATA(dml_command_recorder, IDMLCommandRecorder, impl_from_IDMLCommandRecorder)
DML_IMPLEMENT_GET_DEVICE(dml_command_recorder, IDMLCommandRecorder, impl_from_IDMLCommandRecorder)

static HRESULT STDMETHODCALLTYPE dml_command_recorder_SetName(IDMLCommandRecorder *iface, PCWSTR name)
{
    char *utf8;
    HRESULT hr;

    if (SUCCEEDED(hr = dml_object_name_to_utf8(name, &utf8)))
        TRACE("iface %p, name \"%s\".", (void *)iface, utf8 ? utf8 : "(null)");
    free(utf8);
    return hr;
}

/* Initializing records the targets as initialized; executing checks it on a debug device. */
static bool check_initialization(struct dml_device *device, const struct dml_dispatchable *d, const char *caller)
{
    UINT i;

    if (d->initializer)
    {
        for (i = 0; i < d->initializer->target_count; ++i)
        {
            if (FAILED(dml_compiled_operator_mark_initialized(d->initializer->targets[i], caller)))
            {
                dml_device_remove(device, E_INVALIDARG, caller, "initializer target %u was already "
                        "initialized.", i);
                return false;
            }
        }
        return true;
    }
    if (d->properties.PersistentResourceSize && atomic_load(&d->compiled->init_state) == DML_INIT_NONE
            && dml_device_is_debug(device) && !atomic_load(&device->muted))
    {
        dml_device_remove(device, E_INVALIDARG, caller, "compiled operator %p (%s) needs initialization "
                "(an IDMLOperatorInitializer dispatch) before it executes.", (void *)d->compiled,
                d->compiled->view->name);
        return false;
    }
    return true;
}

/* A DESCRIPTORS_VOLATILE dispatch, checked when its command list is submitted. */
struct volatile_dispatch
{
    struct dml_compiled_operator *compiled;     /* holds a reference */
    D3D12_CPU_DESCRIPTOR_HANDLE table;
};

static bool volatile_dispatch_check(void *context)
{
    struct volatile_dispatch *dispatch = context;

    return dml_volatile_bindings_written(dispatch->compiled, dispatch->table, "ExecuteCommandLists");
}

static void volatile_dispatch_destroy(void *context)
{
    struct volatile_dispatch *dispatch = context;

    IDMLCompiledOperator_Release(&dispatch->compiled->IDMLCompiledOperator_iface);
    free(dispatch);
}

/* Bindings may come after recording, so they are checked on the CPU before each submission: an
 * unwritten record would have kernels read address 0. */
static HRESULT add_volatile_check(struct dml_compiled_operator *compiled, const struct dml_binding_table *table,
        ID3D12CommandList *command_list)
{
    struct volatile_dispatch *dispatch;

    if (!(dispatch = malloc(sizeof(*dispatch))))
        return E_OUTOFMEMORY;
    IDMLCompiledOperator_AddRef(&compiled->IDMLCompiledOperator_iface);
    dispatch->compiled = compiled;
    dispatch->table = table->cpu_handle;
    return vkdml_backend_add_submit_check(command_list, volatile_dispatch_check, volatile_dispatch_destroy,
            dispatch);
}

/* Where a dispatch goes: a shim command list, or an engine's VkCommandBuffer (vkdml_vulkan.h). */
struct record_target
{
    ID3D12CommandList *command_list;
    void *vk_command_buffer;            /* when command_list is NULL */
    struct vkdml_profiler *profiler;    /* for vk_command_buffer */
};

/* RecordDispatch's rules for either target: misuse removes the DML device (DXGI_ERROR_DEVICE_REMOVED). */
static HRESULT record_dispatch(struct dml_device *device, const struct record_target *target,
        IDMLDispatchable *dispatchable, IDMLBindingTable *bindings, const char *caller)
{
    struct dml_binding_table *table;
    struct dml_dispatchable d;

    if (FAILED(dml_device_check_removed(device, caller)))
        return DXGI_ERROR_DEVICE_REMOVED;
    if (!dml_dispatchable_from_iface(dispatchable, &d) || d.device != device)
    {
        dml_device_remove(device, E_INVALIDARG, caller, "dispatchable %p is not a compiled operator or "
                "initializer of this DML device.", (void *)dispatchable);
        return DXGI_ERROR_DEVICE_REMOVED;
    }
    if (!(table = unsafe_impl_from_IDMLBindingTable(bindings)) || table->device != device
            || table->dispatchable_iface != dispatchable)
    {
        dml_device_remove(device, E_INVALIDARG, caller, "bindings %p is not a binding table of this "
                "dispatchable (CreateBindingTable or Reset with it as desc->Dispatchable).", (void *)bindings);
        return DXGI_ERROR_DEVICE_REMOVED;
    }
    if ((!d.volatile_descriptors && !dml_binding_table_ready(table, caller)) || !check_initialization(device, &d, caller))
        return DXGI_ERROR_DEVICE_REMOVED;
    if (target->vk_command_buffer)
    {
        vkdml_backend_record_vk(device->backend, target->vk_command_buffer, d.program, table->gpu_handle,
                target->profiler);
        return S_OK;
    }
    if (FAILED(vkdml_backend_record(device->backend, target->command_list, d.program, table->gpu_handle, caller)))
    {
        dml_device_remove(device, E_INVALIDARG, caller, "the command list cannot take the dispatch.");
        return DXGI_ERROR_DEVICE_REMOVED;
    }
    if (d.volatile_descriptors && FAILED(add_volatile_check(d.compiled, table, target->command_list)))
    {
        dml_device_remove(device, E_OUTOFMEMORY, caller, "out of memory for the DESCRIPTORS_VOLATILE check.");
        return DXGI_ERROR_DEVICE_REMOVED;
    }
    return S_OK;
}

static void STDMETHODCALLTYPE dml_command_recorder_RecordDispatch(IDMLCommandRecorder *iface,
        ID3D12CommandList *command_list, IDMLDispatchable *dispatchable, IDMLBindingTable *bindings)
{
    struct dml_command_recorder *recorder = impl_from_IDMLCommandRecorder(iface);
    struct record_target target = {command_list, NULL, NULL};

    TRACE("iface %p, command_list %p, dispatchable %p, bindings %p.", (void *)iface, (void *)command_list,
            (void *)dispatchable, (void *)bindings);

    record_dispatch(recorder->device, &target, dispatchable, bindings, "RecordDispatch");
}

static const struct IDMLCommandRecorderVtbl dml_command_recorder_vtbl =
{
    dml_command_recorder_QueryInterface,
    dml_command_recorder_AddRef,
    dml_command_recorder_Release,
    dml_command_recorder_GetPrivateData,
    dml_command_recorder_SetPrivateData,
    dml_command_recorder_SetPrivateDataInterface,
    dml_command_recorder_SetName,
    dml_command_recorder_GetDevice,
    dml_command_recorder_RecordDispatch,
};

HRESULT dml_command_recorder_create(struct dml_device *device, struct dml_command_recorder **out)
{
    struct dml_command_recorder *recorder;

    if (!(recorder = calloc(1, sizeof(*recorder))))
        return E_OUTOFMEMORY;
    recorder->IDMLCommandRecorder_iface.lpVtbl = &dml_command_recorder_vtbl;
    atomic_init(&recorder->refcount, 1);
    dml_device_add_ref(recorder->device = device);
    vkdml_private_store_init(&recorder->private_store);
    *out = recorder;
    return S_OK;
}

static struct dml_command_recorder *unsafe_impl_from_IDMLCommandRecorder(IDMLCommandRecorder *iface)
{
    if (!iface || iface->lpVtbl != &dml_command_recorder_vtbl)
        return NULL;
    return impl_from_IDMLCommandRecorder(iface);
}

VKDML_API int32_t vkdml_record_dispatch_vk(void *command_recorder, VkCommandBuffer command_buffer,
        void *dispatchable, void *binding_table, struct vkdml_profiler *profiler)
{
    static const char caller[] = "vkdml_record_dispatch_vk";
    struct dml_command_recorder *recorder = unsafe_impl_from_IDMLCommandRecorder(command_recorder);
    struct record_target target = {NULL, (void *)command_buffer, profiler};

    TRACE("command_recorder %p, command_buffer %p, dispatchable %p, binding_table %p, profiler %p.",
            command_recorder, (void *)command_buffer, dispatchable, binding_table, (void *)profiler);

    /* Argument errors of this function, unlike RecordDispatch's rules, leave the device alone. */
    if (!recorder)
    {
        ERR("command_recorder %p is not an IDMLCommandRecorder of vkdml.", command_recorder);
        return E_INVALIDARG;
    }
    if (!command_buffer)
    {
        ERR("command_buffer is VK_NULL_HANDLE; pass the engine's VkCommandBuffer in the recording state.");
        return E_INVALIDARG;
    }
    if (FAILED(vkdml_backend_check_vk_record(recorder->device->backend, profiler, caller)))
        return E_INVALIDARG;
    return record_dispatch(recorder->device, &target, dispatchable, binding_table, caller);
}
