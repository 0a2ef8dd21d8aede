/*
 * IDMLCommandRecorder: stateless and thread-safe. RecordDispatch records into the application's
 * open command list and nothing else: no barriers on bound resources, no descriptor heaps set,
 * no references kept. Misuse removes the DML device (it is a void method).
 */

#include <stdlib.h>

#include "dml_private.h"

static inline struct dml_command_recorder *impl_from_IDMLCommandRecorder(IDMLCommandRecorder *iface)
{
    return CONTAINING_RECORD(iface, struct dml_command_recorder, IDMLCommandRecorder_iface);
}

static HRESULT STDMETHODCALLTYPE dml_command_recorder_QueryInterface(IDMLCommandRecorder *iface,
        REFIID riid, void **object)
{
    static const IID *const iids[] = {&IID_IDMLCommandRecorder, &IID_IDMLDeviceChild, &IID_IDMLObject, &IID_IUnknown};

    TRACE("iface %p, riid %s, object %p.", (void *)iface, debugstr_guid(riid), (void *)object);
    return dml_query_interface((IUnknown *)iface, iids, ARRAY_SIZE(iids), riid, object);
}

static ULONG STDMETHODCALLTYPE dml_command_recorder_AddRef(IDMLCommandRecorder *iface)
{
    struct dml_command_recorder *recorder = impl_from_IDMLCommandRecorder(iface);
    ULONG refcount = vkdml_refcount_increment(&recorder->refcount);

    TRACE("%p increasing refcount to %u.", (void *)recorder, refcount);
    return refcount;
}

static ULONG STDMETHODCALLTYPE dml_command_recorder_Release(IDMLCommandRecorder *iface)
{
    struct dml_command_recorder *recorder = impl_from_IDMLCommandRecorder(iface);
    ULONG refcount = vkdml_refcount_decrement(&recorder->refcount);

    TRACE("%p decreasing refcount to %u.", (void *)recorder, refcount);
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
static bool check_initialization(struct dml_device *device, const struct dml_dispatchable *d)
{
    UINT i;

    if (d->initializer)
    {
        for (i = 0; i < d->initializer->target_count; ++i)
        {
            if (FAILED(dml_compiled_operator_mark_initialized(d->initializer->targets[i], "RecordDispatch")))
            {
                dml_device_remove(device, E_INVALIDARG, "RecordDispatch", "initializer target %u was already "
                        "initialized.", i);
                return false;
            }
        }
        return true;
    }
    if (d->properties.PersistentResourceSize && atomic_load(&d->compiled->init_state) == DML_INIT_NONE
            && dml_device_is_debug(device) && !atomic_load(&device->muted))
    {
        dml_device_remove(device, E_INVALIDARG, "RecordDispatch", "compiled operator %p (%s) needs initialization "
                "(an IDMLOperatorInitializer dispatch) before it executes.", (void *)d->compiled,
                d->compiled->op->desc.view.name);
        return false;
    }
    return true;
}

static void STDMETHODCALLTYPE dml_command_recorder_RecordDispatch(IDMLCommandRecorder *iface,
        ID3D12CommandList *command_list, IDMLDispatchable *dispatchable, IDMLBindingTable *bindings)
{
    struct dml_command_recorder *recorder = impl_from_IDMLCommandRecorder(iface);
    struct dml_device *device = recorder->device;
    struct dml_binding_table *table;
    struct dml_dispatchable d;

    TRACE("iface %p, command_list %p, dispatchable %p, bindings %p.", (void *)iface, (void *)command_list,
            (void *)dispatchable, (void *)bindings);

    if (FAILED(dml_device_check_removed(device, "RecordDispatch")))
        return;
    if (!dml_dispatchable_from_iface(dispatchable, &d) || d.device != device)
    {
        dml_device_remove(device, E_INVALIDARG, "RecordDispatch", "dispatchable %p is not a compiled operator or "
                "initializer of this DML device.", (void *)dispatchable);
        return;
    }
    if (!(table = unsafe_impl_from_IDMLBindingTable(bindings)) || table->device != device
            || table->dispatchable_iface != dispatchable)
    {
        dml_device_remove(device, E_INVALIDARG, "RecordDispatch", "bindings %p is not a binding table of this "
                "dispatchable (CreateBindingTable or Reset with it as desc->Dispatchable).", (void *)bindings);
        return;
    }
    if (!d.volatile_descriptors && !dml_binding_table_ready(table, "RecordDispatch"))
        return;
    if (!check_initialization(device, &d))
        return;
    if (FAILED(vkdml_backend_record(device->backend, command_list, d.program, table->gpu_handle, "RecordDispatch")))
        dml_device_remove(device, E_INVALIDARG, "RecordDispatch", "the command list cannot take the dispatch.");
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
