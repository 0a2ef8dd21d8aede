/* IDMLOperatorInitializer: initializes 0..N compiled operators in one dispatch. */

#include <stdlib.h>
#include <string.h>

#include "dml_private.h"

static inline struct dml_initializer *impl_from_IDMLOperatorInitializer(IDMLOperatorInitializer *iface)
{
    return CONTAINING_RECORD(iface, struct dml_initializer, IDMLOperatorInitializer_iface);
}

static HRESULT STDMETHODCALLTYPE dml_initializer_QueryInterface(IDMLOperatorInitializer *iface,
        REFIID riid, void **object)
{
    static const IID *const iids[] = {&IID_IDMLOperatorInitializer, &IID_IDMLDispatchable, &IID_IDMLPageable,
            &IID_IDMLDeviceChild, &IID_IDMLObject, &IID_IUnknown};

    TRACE("iface %p, riid %s, object %p.", (void *)iface, debugstr_guid(riid), (void *)object);
    return vkdml_query_interface((IUnknown *)iface, iids, ARRAY_SIZE(iids), riid, object);
}

static ULONG STDMETHODCALLTYPE dml_initializer_AddRef(IDMLOperatorInitializer *iface)
{
    struct dml_initializer *initializer = impl_from_IDMLOperatorInitializer(iface);
    ULONG refcount = vkdml_refcount_increment(&initializer->refcount);

    TRACE("%p increasing refcount to %u.", (void *)initializer, (unsigned int)refcount);
    return refcount;
}

static void release_targets(struct dml_initializer *initializer)
{
    UINT i;

    for (i = 0; i < initializer->target_count; ++i)
        IDMLCompiledOperator_Release(&initializer->targets[i]->IDMLCompiledOperator_iface);
    free(initializer->targets);
    initializer->targets = NULL;
    initializer->target_count = 0;
    vkdml_backend_program_destroy(initializer->device->backend, initializer->program);
    initializer->program = NULL;
}

static ULONG STDMETHODCALLTYPE dml_initializer_Release(IDMLOperatorInitializer *iface)
{
    struct dml_initializer *initializer = impl_from_IDMLOperatorInitializer(iface);
    ULONG refcount = vkdml_refcount_decrement(&initializer->refcount);

    TRACE("%p decreasing refcount to %u.", (void *)initializer, (unsigned int)refcount);
    if (!refcount)
    {
        struct dml_device *device = initializer->device;

        release_targets(initializer);
        vkdml_private_store_destroy(&initializer->private_store);
        free(initializer);
        dml_device_release(device);
    }
    return refcount;
}

DML_IMPLEMENT_PRIVATE_DATA(dml_initializer, IDMLOperatorInitializer, impl_from_IDMLOperatorInitializer)
DML_IMPLEMENT_GET_DEVICE(dml_initializer, IDMLOperatorInitializer, impl_from_IDMLOperatorInitializer)

static HRESULT STDMETHODCALLTYPE dml_initializer_SetName(IDMLOperatorInitializer *iface, PCWSTR name)
{
    struct dml_initializer *initializer = impl_from_IDMLOperatorInitializer(iface);
    char *utf8;
    HRESULT hr;

    if (FAILED(hr = dml_object_name_to_utf8(name, &utf8)))
        return hr;
    TRACE("iface %p, name \"%s\".", (void *)iface, utf8 ? utf8 : "(null)");
    vkdml_backend_program_set_name(initializer->device->backend, initializer->program, utf8);
    free(utf8);
    return S_OK;
}

#ifdef _WIN32
static DML_BINDING_PROPERTIES *STDMETHODCALLTYPE dml_initializer_GetBindingProperties(
        IDMLOperatorInitializer *iface, DML_BINDING_PROPERTIES *properties)
{
    TRACE("iface %p, properties %p.", (void *)iface, (void *)properties);
    *properties = impl_from_IDMLOperatorInitializer(iface)->properties;
    return properties;
}
#else
static DML_BINDING_PROPERTIES STDMETHODCALLTYPE dml_initializer_GetBindingProperties(IDMLOperatorInitializer *iface)
{
    TRACE("iface %p.", (void *)iface);
    return impl_from_IDMLOperatorInitializer(iface)->properties;
}
#endif

/* Takes references to the targets and builds the program that initializes them. */
static HRESULT set_targets(struct dml_initializer *initializer, UINT count, IDMLCompiledOperator *const *operators,
        const char *caller)
{
    const struct vkdml_program **programs = NULL;
    struct dml_compiled_operator **targets = NULL;
    struct vkdml_program *program;
    HRESULT hr = E_OUTOFMEMORY;
    UINT i, j;

    if (count && !operators)
    {
        ERR("%s: operators is NULL but operatorCount is %u.", caller, count);
        return E_INVALIDARG;
    }
    if (count && (!(targets = calloc(count, sizeof(*targets))) || !(programs = calloc(count, sizeof(*programs)))))
        goto done;
    for (i = 0; i < count; ++i)
    {
        hr = E_INVALIDARG;
        if (!(targets[i] = unsafe_impl_from_IDMLCompiledOperator(operators[i])) || targets[i]->device != initializer->device)
        {
            ERR("%s: operators[%u] %p is not a compiled operator of this DML device.", caller, i, (void *)operators[i]);
            goto done;
        }
        for (j = 0; j < i; ++j)
        {
            if (targets[j] == targets[i])
            {
                ERR("%s: operators[%u] and operators[%u] are the same operator; each is initialized once.", caller, j, i);
                goto done;
            }
        }
        programs[i] = targets[i]->program;
    }
    if (FAILED(hr = vkdml_backend_compile_initializer(initializer->device->backend, count, programs, &program)))
        goto done;

    release_targets(initializer);
    for (i = 0; i < count; ++i)
        IDMLCompiledOperator_AddRef(&targets[i]->IDMLCompiledOperator_iface);
    initializer->targets = targets;
    initializer->target_count = count;
    initializer->program = program;
    initializer->properties = vkdml_backend_program_binding_properties(program);
    targets = NULL;

done:
    free(programs);
    free(targets);
    return hr;
}

static HRESULT STDMETHODCALLTYPE dml_initializer_Reset(IDMLOperatorInitializer *iface, UINT count,
        IDMLCompiledOperator *const *operators)
{
    struct dml_initializer *initializer = impl_from_IDMLOperatorInitializer(iface);
    HRESULT hr;

    TRACE("iface %p, count %u, operators %p.", (void *)iface, count, (const void *)operators);
    if (FAILED(hr = dml_device_check_removed(initializer->device, "IDMLOperatorInitializer::Reset")))
        return hr;
    return set_targets(initializer, count, operators, "IDMLOperatorInitializer::Reset");
}

static const struct IDMLOperatorInitializerVtbl dml_initializer_vtbl =
{
    dml_initializer_QueryInterface,
    dml_initializer_AddRef,
    dml_initializer_Release,
    dml_initializer_GetPrivateData,
    dml_initializer_SetPrivateData,
    dml_initializer_SetPrivateDataInterface,
    dml_initializer_SetName,
    dml_initializer_GetDevice,
    dml_initializer_GetBindingProperties,
    dml_initializer_Reset,
};

struct dml_initializer *unsafe_impl_from_IDMLOperatorInitializer(IDMLOperatorInitializer *iface)
{
    if (!iface || iface->lpVtbl != &dml_initializer_vtbl)
        return NULL;
    return impl_from_IDMLOperatorInitializer(iface);
}

HRESULT dml_initializer_create(struct dml_device *device, UINT count, IDMLCompiledOperator *const *operators,
        struct dml_initializer **out)
{
    struct dml_initializer *initializer;
    HRESULT hr;

    if (!(initializer = calloc(1, sizeof(*initializer))))
        return E_OUTOFMEMORY;
    initializer->IDMLOperatorInitializer_iface.lpVtbl = &dml_initializer_vtbl;
    atomic_init(&initializer->refcount, 1);
    initializer->device = device;
    if (FAILED(hr = set_targets(initializer, count, operators, "CreateOperatorInitializer")))
    {
        free(initializer);
        return hr;
    }
    dml_device_add_ref(device);
    vkdml_private_store_init(&initializer->private_store);
    *out = initializer;
    return S_OK;
}

bool dml_dispatchable_from_iface(IDMLDispatchable *iface, struct dml_dispatchable *dispatchable)
{
    struct dml_compiled_operator *compiled = unsafe_impl_from_IDMLCompiledOperator((IDMLCompiledOperator *)iface);
    struct dml_initializer *initializer = unsafe_impl_from_IDMLOperatorInitializer((IDMLOperatorInitializer *)iface);

    memset(dispatchable, 0, sizeof(*dispatchable));
    dispatchable->iface = iface;
    if (compiled)
    {
        dispatchable->device = compiled->device;
        dispatchable->compiled = compiled;
        dispatchable->program = compiled->program;
        dispatchable->properties = compiled->properties;
        dispatchable->volatile_descriptors = compiled->flags & DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE;
        return true;
    }
    if (initializer)
    {
        dispatchable->device = initializer->device;
        dispatchable->initializer = initializer;
        dispatchable->program = initializer->program;
        dispatchable->properties = initializer->properties;
        return true;
    }
    return false;
}
