/* IDMLOperator (a validated, deep-copied desc) and IDMLCompiledOperator (its compiled program). */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dml_private.h"

/* ---- IDMLOperator ---- */

static inline struct dml_operator *impl_from_IDMLOperator(IDMLOperator *iface)
{
    return CONTAINING_RECORD(iface, struct dml_operator, IDMLOperator_iface);
}

static HRESULT STDMETHODCALLTYPE dml_operator_QueryInterface(IDMLOperator *iface, REFIID riid, void **object)
{
    static const IID *const iids[] = {&IID_IDMLOperator, &IID_IDMLDeviceChild, &IID_IDMLObject, &IID_IUnknown};

    TRACE("iface %p, riid %s, object %p.", (void *)iface, debugstr_guid(riid), (void *)object);
    return vkdml_query_interface((IUnknown *)iface, iids, ARRAY_SIZE(iids), riid, object);
}

static ULONG STDMETHODCALLTYPE dml_operator_AddRef(IDMLOperator *iface)
{
    struct dml_operator *op = impl_from_IDMLOperator(iface);
    ULONG refcount = vkdml_refcount_increment(&op->refcount);

    TRACE("%p increasing refcount to %u.", (void *)op, (unsigned int)refcount);
    return refcount;
}

static ULONG STDMETHODCALLTYPE dml_operator_Release(IDMLOperator *iface)
{
    struct dml_operator *op = impl_from_IDMLOperator(iface);
    ULONG refcount = vkdml_refcount_decrement(&op->refcount);

    TRACE("%p decreasing refcount to %u.", (void *)op, (unsigned int)refcount);
    if (!refcount)
    {
        struct dml_device *device = op->device;

        vkdml_private_store_destroy(&op->private_store);
        free(op->desc.memory);
        free(op);
        dml_device_release(device);
    }
    return refcount;
}

DML_IMPLEMENT_PRIVATE_DATA(dml_operator, IDMLOperator, impl_from_IDMLOperator)
DML_IMPLEMENT_GET_DEVICE(dml_operator, IDMLOperator, impl_from_IDMLOperator)

static HRESULT STDMETHODCALLTYPE dml_operator_SetName(IDMLOperator *iface, PCWSTR name)
{
    char *utf8;
    HRESULT hr;

    if (SUCCEEDED(hr = dml_object_name_to_utf8(name, &utf8)))
        TRACE("iface %p, name \"%s\".", (void *)iface, utf8 ? utf8 : "(null)");
    free(utf8);
    return hr;
}

static const struct IDMLOperatorVtbl dml_operator_vtbl =
{
    dml_operator_QueryInterface,
    dml_operator_AddRef,
    dml_operator_Release,
    dml_operator_GetPrivateData,
    dml_operator_SetPrivateData,
    dml_operator_SetPrivateDataInterface,
    dml_operator_SetName,
    dml_operator_GetDevice,
};

struct dml_operator *unsafe_impl_from_IDMLOperator(IDMLOperator *iface)
{
    if (!iface || iface->lpVtbl != &dml_operator_vtbl)
        return NULL;
    return impl_from_IDMLOperator(iface);
}

/* Every input/output tensor's data type must be one the device can use. */
static HRESULT check_data_types(struct dml_device *device, const struct vkdml_operator_view *view, const char *caller)
{
    UINT i;

    for (i = 0; i < view->input_count + view->output_count; ++i)
    {
        const DML_BUFFER_TENSOR_DESC *tensor = i < view->input_count
                ? view->inputs[i] : view->outputs[i - view->input_count];

        if (tensor && !vkdml_backend_data_type_supported(device->backend, tensor->DataType))
        {
            const char *requirement = vkdml_backend_data_type_requirement(tensor->DataType);

            /* Name the Vulkan features: on an engine's device they are the engine's to enable. */
            FIXME("%s: %s tensors are not supported on \"%s\"%s%s%s (CheckFeatureSupport says so too).", caller,
                    debugstr_data_type(tensor->DataType), vkdml_backend_device_name(device->backend),
                    requirement ? ": they need " : "", requirement ? requirement : "",
                    requirement ? ", which the Vulkan device does not have enabled" : "");
            return E_NOTIMPL;
        }
    }
    return S_OK;
}

HRESULT dml_operator_create(struct dml_device *device, const DML_OPERATOR_DESC *desc, struct dml_operator **out)
{
    const struct vkdml_op_schema *schema = vkdml_op_schema_get(desc->Type);
    const char *caller = vkdml_debug_sprintf("CreateOperator(%s)", schema ? schema->name : "?");
    struct dml_operator *op;
    HRESULT hr;

    if (FAILED(hr = vkdml_validate_operator_desc(desc, caller)))
        return hr;
    if (!vkdml_backend_operator_implemented(desc->Type))
    {
        FIXME("%s: operator %s is not implemented yet.", caller, schema->name);
        return E_NOTIMPL;
    }
    if (!(op = calloc(1, sizeof(*op))))
        return E_OUTOFMEMORY;
    if (FAILED(hr = vkdml_copy_operator_desc(desc, &op->desc)))
        goto fail;
    if (FAILED(hr = check_data_types(device, &op->desc.view, caller))
            || FAILED(hr = vkdml_backend_validate_operator(device->backend, &op->desc.view)))
        goto fail;

    op->IDMLOperator_iface.lpVtbl = &dml_operator_vtbl;
    atomic_init(&op->refcount, 1);
    dml_device_add_ref(op->device = device);
    vkdml_private_store_init(&op->private_store);
    TRACE("Created %s operator %p.", schema->name, (void *)op);
    *out = op;
    return S_OK;

fail:
    free(op->desc.memory);
    free(op);
    return hr;
}

/* ---- IDMLCompiledOperator ---- */

static inline struct dml_compiled_operator *impl_from_IDMLCompiledOperator(IDMLCompiledOperator *iface)
{
    return CONTAINING_RECORD(iface, struct dml_compiled_operator, IDMLCompiledOperator_iface);
}

static HRESULT STDMETHODCALLTYPE dml_compiled_operator_QueryInterface(IDMLCompiledOperator *iface,
        REFIID riid, void **object)
{
    static const IID *const iids[] = {&IID_IDMLCompiledOperator, &IID_IDMLDispatchable, &IID_IDMLPageable,
            &IID_IDMLDeviceChild, &IID_IDMLObject, &IID_IUnknown};

    TRACE("iface %p, riid %s, object %p.", (void *)iface, debugstr_guid(riid), (void *)object);
    return vkdml_query_interface((IUnknown *)iface, iids, ARRAY_SIZE(iids), riid, object);
}

static ULONG STDMETHODCALLTYPE dml_compiled_operator_AddRef(IDMLCompiledOperator *iface)
{
    struct dml_compiled_operator *compiled = impl_from_IDMLCompiledOperator(iface);
    ULONG refcount = vkdml_refcount_increment(&compiled->refcount);

    TRACE("%p increasing refcount to %u.", (void *)compiled, (unsigned int)refcount);
    return refcount;
}

static ULONG STDMETHODCALLTYPE dml_compiled_operator_Release(IDMLCompiledOperator *iface)
{
    struct dml_compiled_operator *compiled = impl_from_IDMLCompiledOperator(iface);
    ULONG refcount = vkdml_refcount_decrement(&compiled->refcount);

    TRACE("%p decreasing refcount to %u.", (void *)compiled, (unsigned int)refcount);
    if (!refcount)
    {
        struct dml_device *device = compiled->device;

        vkdml_private_store_destroy(&compiled->private_store);
        vkdml_backend_program_destroy(device->backend, compiled->program);
        dml_graph_destroy(compiled->graph);
        if (compiled->op)
            IDMLOperator_Release(&compiled->op->IDMLOperator_iface);
        free(compiled);
        dml_device_release(device);
    }
    return refcount;
}

DML_IMPLEMENT_PRIVATE_DATA(dml_compiled_operator, IDMLCompiledOperator, impl_from_IDMLCompiledOperator)
DML_IMPLEMENT_GET_DEVICE(dml_compiled_operator, IDMLCompiledOperator, impl_from_IDMLCompiledOperator)

static HRESULT STDMETHODCALLTYPE dml_compiled_operator_SetName(IDMLCompiledOperator *iface, PCWSTR name)
{
    struct dml_compiled_operator *compiled = impl_from_IDMLCompiledOperator(iface);
    char *utf8;
    HRESULT hr;

    if (FAILED(hr = dml_object_name_to_utf8(name, &utf8)))
        return hr;
    TRACE("iface %p, name \"%s\".", (void *)iface, utf8 ? utf8 : "(null)");
    vkdml_backend_program_set_name(compiled->device->backend, compiled->program, utf8);
    free(utf8);
    return S_OK;
}

#ifdef _WIN32
static DML_BINDING_PROPERTIES *STDMETHODCALLTYPE dml_compiled_operator_GetBindingProperties(
        IDMLCompiledOperator *iface, DML_BINDING_PROPERTIES *properties)
{
    TRACE("iface %p, properties %p.", (void *)iface, (void *)properties);
    *properties = impl_from_IDMLCompiledOperator(iface)->properties;
    return properties;
}
#else
static DML_BINDING_PROPERTIES STDMETHODCALLTYPE dml_compiled_operator_GetBindingProperties(IDMLCompiledOperator *iface)
{
    TRACE("iface %p.", (void *)iface);
    return impl_from_IDMLCompiledOperator(iface)->properties;
}
#endif

static const struct IDMLCompiledOperatorVtbl dml_compiled_operator_vtbl =
{
    dml_compiled_operator_QueryInterface,
    dml_compiled_operator_AddRef,
    dml_compiled_operator_Release,
    dml_compiled_operator_GetPrivateData,
    dml_compiled_operator_SetPrivateData,
    dml_compiled_operator_SetPrivateDataInterface,
    dml_compiled_operator_SetName,
    dml_compiled_operator_GetDevice,
    dml_compiled_operator_GetBindingProperties,
};

struct dml_compiled_operator *unsafe_impl_from_IDMLCompiledOperator(IDMLCompiledOperator *iface)
{
    if (!iface || iface->lpVtbl != &dml_compiled_operator_vtbl)
        return NULL;
    return impl_from_IDMLCompiledOperator(iface);
}

HRESULT dml_compiled_operator_mark_initialized(struct dml_compiled_operator *compiled, const char *caller)
{
    int expected = DML_INIT_NONE;

    if (!atomic_compare_exchange_strong(&compiled->init_state, &expected, DML_INIT_RECORDED))
    {
        ERR("%s: compiled operator %p (%s) is already initialized; DirectML initializes an operator exactly once.",
                caller, (void *)compiled, compiled->view->name);
        return E_INVALIDARG;
    }
    return S_OK;
}

HRESULT dml_compiled_operator_wrap(struct dml_device *device, struct dml_operator *op, struct dml_graph *graph,
        const struct vkdml_operator_view *view, DML_EXECUTION_FLAGS flags, struct vkdml_program *program,
        struct dml_compiled_operator **out)
{
    struct dml_compiled_operator *compiled;

    if (!(compiled = calloc(1, sizeof(*compiled))))
    {
        vkdml_backend_program_destroy(device->backend, program);
        dml_graph_destroy(graph);
        return E_OUTOFMEMORY;
    }
    compiled->IDMLCompiledOperator_iface.lpVtbl = &dml_compiled_operator_vtbl;
    atomic_init(&compiled->refcount, 1);
    dml_device_add_ref(compiled->device = device);
    if ((compiled->op = op))
        IDMLOperator_AddRef(&op->IDMLOperator_iface);
    compiled->graph = graph;
    compiled->view = view;
    compiled->program = program;
    vkdml_private_store_init(&compiled->private_store);
    compiled->flags = flags;
    compiled->properties = vkdml_backend_program_binding_properties(compiled->program);
    atomic_init(&compiled->init_state, DML_INIT_NONE);
    TRACE("Compiled %s %p: %u descriptors, %" PRIu64 " temporary and %" PRIu64 " persistent bytes.",
            view->name, (void *)compiled, compiled->properties.RequiredDescriptorCount,
            (uint64_t)compiled->properties.TemporaryResourceSize,
            (uint64_t)compiled->properties.PersistentResourceSize);
    *out = compiled;
    return S_OK;
}

HRESULT dml_compiled_operator_create(struct dml_device *device, struct dml_operator *op, DML_EXECUTION_FLAGS flags,
        struct dml_compiled_operator **out)
{
    struct vkdml_program *program;
    HRESULT hr;

    if (FAILED(hr = vkdml_backend_compile_operator(device->backend, &op->desc.view, flags, &program)))
        return hr;
    return dml_compiled_operator_wrap(device, op, NULL, &op->desc.view, flags, program, out);
}
