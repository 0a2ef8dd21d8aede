/* IDMLDevice1, IDMLDebugDevice and the exported DMLCreateDevice / DMLCreateDevice1. */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dml_private.h"

static const DML_FEATURE_LEVEL feature_levels[] =
{
    DML_FEATURE_LEVEL_1_0, DML_FEATURE_LEVEL_2_0, DML_FEATURE_LEVEL_2_1, DML_FEATURE_LEVEL_3_0,
    DML_FEATURE_LEVEL_3_1, DML_FEATURE_LEVEL_4_0, DML_FEATURE_LEVEL_4_1, DML_FEATURE_LEVEL_5_0,
    DML_FEATURE_LEVEL_5_1, DML_FEATURE_LEVEL_5_2, DML_FEATURE_LEVEL_6_0, DML_FEATURE_LEVEL_6_1,
    DML_FEATURE_LEVEL_6_2, DML_FEATURE_LEVEL_6_3, DML_FEATURE_LEVEL_6_4,
};

/* ---- Helpers shared by every DML object ---- */

HRESULT dml_object_name_to_utf8(const WCHAR *name, char **utf8)
{
    *utf8 = NULL;
    if (name && !(*utf8 = vkdml_utf8_from_wide(name)))
        return E_OUTOFMEMORY;
    return S_OK;
}

/* The highest feature level whose operators are all implemented; 0 when even 1_0 is incomplete. */
static DML_FEATURE_LEVEL implemented_feature_level(unsigned int *missing_count, const char **first_missing)
{
    DML_FEATURE_LEVEL best = 0;
    unsigned int level, type;

    *missing_count = 0;
    *first_missing = NULL;
    for (level = 0; level < ARRAY_SIZE(feature_levels); ++level)
    {
        bool complete = true;

        for (type = 1; type < VKDML_OPERATOR_TYPE_COUNT; ++type)
        {
            const struct vkdml_op_schema *schema = vkdml_op_schema_get(type);

            if (schema->feature_level > (uint32_t)feature_levels[level] || vkdml_backend_operator_implemented(type))
                continue;
            complete = false;
            if (level == 0)
            {
                ++*missing_count;
                if (!*first_missing)
                    *first_missing = schema->name;
            }
        }
        if (!complete)
            break;
        best = feature_levels[level];
    }
    return best;
}

static bool feature_level_valid(DML_FEATURE_LEVEL level)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE(feature_levels); ++i)
    {
        if (feature_levels[i] == level)
            return true;
    }
    return false;
}

/* ---- IDMLDevice1 ---- */

static inline struct dml_device *impl_from_IDMLDevice1(IDMLDevice1 *iface)
{
    return CONTAINING_RECORD(iface, struct dml_device, IDMLDevice1_iface);
}

static HRESULT STDMETHODCALLTYPE dml_device_QueryInterface(IDMLDevice1 *iface, REFIID riid, void **object)
{
    static const IID *const iids[] = {&IID_IDMLDevice1, &IID_IDMLDevice, &IID_IDMLObject, &IID_IUnknown};
    struct dml_device *device = impl_from_IDMLDevice1(iface);

    TRACE("iface %p, riid %s, object %p.", (void *)iface, debugstr_guid(riid), (void *)object);

    if (object && vkdml_guid_equal(riid, &IID_IDMLDebugDevice))
    {
        if (!dml_device_is_debug(device))
        {
            WARN("IDMLDebugDevice exists only on devices created with DML_CREATE_DEVICE_FLAG_DEBUG.");
            *object = NULL;
            return E_NOINTERFACE;
        }
        IDMLDebugDevice_AddRef(&device->IDMLDebugDevice_iface);
        *object = &device->IDMLDebugDevice_iface;
        return S_OK;
    }
    return vkdml_query_interface((IUnknown *)iface, iids, ARRAY_SIZE(iids), riid, object);
}

static ULONG STDMETHODCALLTYPE dml_device_AddRef(IDMLDevice1 *iface)
{
    struct dml_device *device = impl_from_IDMLDevice1(iface);
    ULONG refcount = vkdml_refcount_increment(&device->refcount);

    TRACE("%p increasing refcount to %u.", (void *)device, (unsigned int)refcount);
    return refcount;
}

static void dml_device_destroy(struct dml_device *device)
{
    vkdml_private_store_destroy(&device->private_store);
    vkdml_backend_device_destroy(device->backend);
    ID3D12Device_Release(device->d3d12_device);
    free(device);
}

static ULONG STDMETHODCALLTYPE dml_device_Release(IDMLDevice1 *iface)
{
    struct dml_device *device = impl_from_IDMLDevice1(iface);
    ULONG refcount = vkdml_refcount_decrement(&device->refcount);

    TRACE("%p decreasing refcount to %u.", (void *)device, (unsigned int)refcount);
    if (!refcount)
        dml_device_destroy(device);
    return refcount;
}

void dml_device_add_ref(struct dml_device *device)
{
    dml_device_AddRef(&device->IDMLDevice1_iface);
}

void dml_device_release(struct dml_device *device)
{
    dml_device_Release(&device->IDMLDevice1_iface);
}

static inline struct dml_device *dml_device_self(IDMLDevice1 *iface)
{
    return impl_from_IDMLDevice1(iface);
}

DML_IMPLEMENT_PRIVATE_DATA(dml_device, IDMLDevice1, dml_device_self)

static HRESULT STDMETHODCALLTYPE dml_device_SetName(IDMLDevice1 *iface, const WCHAR *name)
{
    char *utf8;
    HRESULT hr;

    if (SUCCEEDED(hr = dml_object_name_to_utf8(name, &utf8)))
        TRACE("iface %p, name \"%s\".", (void *)iface, utf8 ? utf8 : "(null)");
    free(utf8);
    return hr;
}

HRESULT dml_device_check_removed(struct dml_device *device, const char *caller)
{
    HRESULT reason = atomic_load(&device->removed_reason);

    if (SUCCEEDED(reason) && FAILED(reason = vkdml_backend_device_removed_reason(device->backend)))
        atomic_store(&device->removed_reason, reason);
    if (FAILED(reason))
    {
        WARN("%s: the DML device was removed (reason %#x); recreate it and its objects.", caller, (unsigned int)reason);
        return DXGI_ERROR_DEVICE_REMOVED;
    }
    return S_OK;
}

void dml_device_remove(struct dml_device *device, HRESULT reason, const char *caller, const char *fmt, ...)
{
    char message[512];
    int expected = S_OK;
    va_list args;

    va_start(args, fmt);
    vsnprintf(message, sizeof(message), fmt, args);
    va_end(args);
    vkdml_log(VKDML_LOG_ERR, VKDML_LOG_SOURCE_VKDML, caller, "%s The DML device is removed (DirectML's rule for "
            "misuse in a method without a result).", message);
    atomic_compare_exchange_strong(&device->removed_reason, &expected, reason);
}

static HRESULT check_feature_levels(struct dml_device *device, UINT query_size, const void *query,
        UINT data_size, void *data)
{
    const DML_FEATURE_QUERY_FEATURE_LEVELS *request = query;
    DML_FEATURE_DATA_FEATURE_LEVELS *answer = data;
    DML_FEATURE_LEVEL best = 0;
    UINT i;

    if (query_size != sizeof(*request) || !request || data_size != sizeof(*answer) || !answer)
    {
        ERR("CheckFeatureSupport(FEATURE_LEVELS): query %p of %u bytes and data %p of %u bytes; need %zu and %zu.",
                query, query_size, data, data_size, sizeof(*request), sizeof(*answer));
        return E_INVALIDARG;
    }
    if (!request->RequestedFeatureLevelCount || !request->RequestedFeatureLevels)
    {
        ERR("CheckFeatureSupport(FEATURE_LEVELS): RequestedFeatureLevels is empty.");
        return E_INVALIDARG;
    }
    for (i = 0; i < request->RequestedFeatureLevelCount; ++i)
    {
        DML_FEATURE_LEVEL level = request->RequestedFeatureLevels[i];

        if (!feature_level_valid(level))
        {
            ERR("CheckFeatureSupport(FEATURE_LEVELS): RequestedFeatureLevels[%u] %#x is not a DML_FEATURE_LEVEL.",
                    i, (unsigned int)level);
            return E_INVALIDARG;
        }
        if (level <= device->feature_level && level > best)
            best = level;
    }
    if (!best)
    {
        INFO("CheckFeatureSupport(FEATURE_LEVELS): none of the requested levels has all its operators implemented.");
        return DXGI_ERROR_UNSUPPORTED;
    }
    answer->MaxSupportedFeatureLevel = best;
    return S_OK;
}

static HRESULT check_data_type(struct dml_device *device, UINT query_size, const void *query,
        UINT data_size, void *data)
{
    const DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT *request = query;
    DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT *answer = data;

    if (query_size != sizeof(*request) || !request || data_size != sizeof(*answer) || !answer)
    {
        ERR("CheckFeatureSupport(TENSOR_DATA_TYPE_SUPPORT): query %p of %u bytes and data %p of %u bytes; need %zu and %zu.",
                query, query_size, data, data_size, sizeof(*request), sizeof(*answer));
        return E_INVALIDARG;
    }
    if (!vkdml_data_type_name(request->DataType))
    {
        ERR("CheckFeatureSupport(TENSOR_DATA_TYPE_SUPPORT): DataType %d is not a DML_TENSOR_DATA_TYPE.", (int)request->DataType);
        return E_INVALIDARG;
    }
    answer->IsSupported = vkdml_backend_data_type_supported(device->backend, request->DataType);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE dml_device_CheckFeatureSupport(IDMLDevice1 *iface, DML_FEATURE feature,
        UINT query_size, const void *query, UINT data_size, void *data)
{
    struct dml_device *device = impl_from_IDMLDevice1(iface);
    HRESULT hr;

    TRACE("iface %p, feature %#x, query_size %u, query %p, data_size %u, data %p.", (void *)iface,
            (unsigned int)feature, query_size, query, data_size, data);

    if (FAILED(hr = dml_device_check_removed(device, "CheckFeatureSupport")))
        return hr;
    switch (feature)
    {
        case DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT:
            return check_data_type(device, query_size, query, data_size, data);
        case DML_FEATURE_FEATURE_LEVELS:
            return check_feature_levels(device, query_size, query, data_size, data);
        default:
            WARN("CheckFeatureSupport: feature %#x is not a DML_FEATURE.", (unsigned int)feature);
            return DXGI_ERROR_UNSUPPORTED;
    }
}

/* Common tail of the Create* methods: out-pointer rules, then the QueryInterface hand-off. */
static HRESULT hand_off(IUnknown *object, REFIID riid, void **out)
{
    return vkdml_return_interface(object, riid, out);
}

static HRESULT STDMETHODCALLTYPE dml_device_CreateOperator(IDMLDevice1 *iface, const DML_OPERATOR_DESC *desc,
        REFIID riid, void **out)
{
    struct dml_device *device = impl_from_IDMLDevice1(iface);
    struct dml_operator *op;
    HRESULT hr;

    TRACE("iface %p, desc %p, riid %s, out %p.", (void *)iface, (const void *)desc, debugstr_guid(riid), (void *)out);

    if (out)
        *out = NULL;
    if (FAILED(hr = dml_device_check_removed(device, "CreateOperator")))
        return hr;
    if (!desc)
    {
        ERR("CreateOperator: desc is NULL.");
        return E_INVALIDARG;
    }
    if (FAILED(hr = dml_operator_create(device, desc, &op)))
        return hr;
    return hand_off((IUnknown *)&op->IDMLOperator_iface, riid, out);
}

static HRESULT STDMETHODCALLTYPE dml_device_CompileOperator(IDMLDevice1 *iface, IDMLOperator *op_iface,
        DML_EXECUTION_FLAGS flags, REFIID riid, void **out)
{
    struct dml_device *device = impl_from_IDMLDevice1(iface);
    struct dml_compiled_operator *compiled;
    struct dml_operator *op;
    HRESULT hr;

    TRACE("iface %p, op %p, flags %#x, riid %s, out %p.", (void *)iface, (void *)op_iface, (unsigned int)flags,
            debugstr_guid(riid), (void *)out);

    if (out)
        *out = NULL;
    if (FAILED(hr = dml_device_check_removed(device, "CompileOperator")))
        return hr;
    if (!(op = unsafe_impl_from_IDMLOperator(op_iface)) || op->device != device)
    {
        ERR("CompileOperator: op %p is not an operator of this DML device.", (void *)op_iface);
        return E_INVALIDARG;
    }
    if (flags & ~(DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION | DML_EXECUTION_FLAG_DISABLE_META_COMMANDS
            | DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE))
    {
        ERR("CompileOperator(%s): flags %#x has unknown DML_EXECUTION_FLAGS bits.", op->desc.view.name, (unsigned int)flags);
        return E_INVALIDARG;
    }
    if (FAILED(hr = dml_compiled_operator_create(device, op, flags, &compiled)))
        return hr;
    return hand_off((IUnknown *)&compiled->IDMLCompiledOperator_iface, riid, out);
}

static HRESULT STDMETHODCALLTYPE dml_device_CreateOperatorInitializer(IDMLDevice1 *iface, UINT count,
        IDMLCompiledOperator *const *operators, REFIID riid, void **out)
{
    struct dml_device *device = impl_from_IDMLDevice1(iface);
    struct dml_initializer *initializer;
    HRESULT hr;

    TRACE("iface %p, count %u, operators %p, riid %s, out %p.", (void *)iface, count, (const void *)operators,
            debugstr_guid(riid), (void *)out);

    if (!out)
    {
        ERR("CreateOperatorInitializer: ppv is NULL.");
        return E_POINTER;
    }
    *out = NULL;
    if (FAILED(hr = dml_device_check_removed(device, "CreateOperatorInitializer")))
        return hr;
    if (FAILED(hr = dml_initializer_create(device, count, operators, &initializer)))
        return hr;
    return hand_off((IUnknown *)&initializer->IDMLOperatorInitializer_iface, riid, out);
}

static HRESULT STDMETHODCALLTYPE dml_device_CreateCommandRecorder(IDMLDevice1 *iface, REFIID riid, void **out)
{
    struct dml_device *device = impl_from_IDMLDevice1(iface);
    struct dml_command_recorder *recorder;
    HRESULT hr;

    TRACE("iface %p, riid %s, out %p.", (void *)iface, debugstr_guid(riid), (void *)out);

    if (!out)
    {
        ERR("CreateCommandRecorder: ppv is NULL.");
        return E_POINTER;
    }
    *out = NULL;
    if (FAILED(hr = dml_device_check_removed(device, "CreateCommandRecorder")))
        return hr;
    if (FAILED(hr = dml_command_recorder_create(device, &recorder)))
        return hr;
    return hand_off((IUnknown *)&recorder->IDMLCommandRecorder_iface, riid, out);
}

static HRESULT STDMETHODCALLTYPE dml_device_CreateBindingTable(IDMLDevice1 *iface, const DML_BINDING_TABLE_DESC *desc,
        REFIID riid, void **out)
{
    struct dml_device *device = impl_from_IDMLDevice1(iface);
    struct dml_binding_table *table;
    HRESULT hr;

    TRACE("iface %p, desc %p, riid %s, out %p.", (void *)iface, (const void *)desc, debugstr_guid(riid), (void *)out);

    if (!out)
    {
        ERR("CreateBindingTable: ppv is NULL.");
        return E_POINTER;
    }
    *out = NULL;
    if (FAILED(hr = dml_device_check_removed(device, "CreateBindingTable")))
        return hr;
    if (FAILED(hr = dml_binding_table_create(device, desc, &table)))
        return hr;
    return hand_off((IUnknown *)&table->IDMLBindingTable_iface, riid, out);
}

/* Evict/MakeResident: compiled operators and initializers own no memory that could be paged out
 * separately (their pipelines live in the device's cache), so residency has nothing to do. */
static HRESULT check_pageables(struct dml_device *device, UINT count, IDMLPageable *const *objects, const char *caller)
{
    UINT i;

    if (count && !objects)
    {
        ERR("%s: ppObjects is NULL but count is %u.", caller, count);
        return E_INVALIDARG;
    }
    for (i = 0; i < count; ++i)
    {
        struct dml_dispatchable dispatchable;

        if (!dml_dispatchable_from_iface((IDMLDispatchable *)objects[i], &dispatchable)
                || dispatchable.device != device)
        {
            ERR("%s: ppObjects[%u] %p is not a compiled operator or initializer of this device.", caller, i,
                    (void *)objects[i]);
            return E_INVALIDARG;
        }
    }
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE dml_device_Evict(IDMLDevice1 *iface, UINT count, IDMLPageable *const *objects)
{
    struct dml_device *device = impl_from_IDMLDevice1(iface);
    HRESULT hr;

    TRACE("iface %p, count %u, objects %p.", (void *)iface, count, (const void *)objects);
    if (FAILED(hr = dml_device_check_removed(device, "Evict")))
        return hr;
    return check_pageables(device, count, objects, "Evict");
}

static HRESULT STDMETHODCALLTYPE dml_device_MakeResident(IDMLDevice1 *iface, UINT count, IDMLPageable *const *objects)
{
    struct dml_device *device = impl_from_IDMLDevice1(iface);
    HRESULT hr;

    TRACE("iface %p, count %u, objects %p.", (void *)iface, count, (const void *)objects);
    if (FAILED(hr = dml_device_check_removed(device, "MakeResident")))
        return hr;
    return check_pageables(device, count, objects, "MakeResident");
}

static HRESULT STDMETHODCALLTYPE dml_device_GetDeviceRemovedReason(IDMLDevice1 *iface)
{
    struct dml_device *device = impl_from_IDMLDevice1(iface);
    HRESULT reason = atomic_load(&device->removed_reason);

    TRACE("iface %p.", (void *)iface);
    if (SUCCEEDED(reason) && FAILED(reason = vkdml_backend_device_removed_reason(device->backend)))
        atomic_store(&device->removed_reason, reason);
    return reason;
}

static HRESULT STDMETHODCALLTYPE dml_device_GetParentDevice(IDMLDevice1 *iface, REFIID riid, void **out)
{
    struct dml_device *device = impl_from_IDMLDevice1(iface);

    TRACE("iface %p, riid %s, out %p.", (void *)iface, debugstr_guid(riid), (void *)out);
    if (!out)
    {
        ERR("GetParentDevice: ppv is NULL.");
        return E_POINTER;
    }
    return ID3D12Device_QueryInterface(device->d3d12_device, riid, out);
}

static HRESULT STDMETHODCALLTYPE dml_device_CompileGraph(IDMLDevice1 *iface, const DML_GRAPH_DESC *desc,
        DML_EXECUTION_FLAGS flags, REFIID riid, void **out)
{
    struct dml_device *device = impl_from_IDMLDevice1(iface);
    struct dml_compiled_operator *compiled;
    HRESULT hr;

    TRACE("iface %p, desc %p, flags %#x, riid %s, out %p.", (void *)iface, (const void *)desc, (unsigned int)flags,
            debugstr_guid(riid), (void *)out);
    if (out)
        *out = NULL;
    if (FAILED(hr = dml_device_check_removed(device, "CompileGraph")))
        return hr;
    if (flags & ~(DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION | DML_EXECUTION_FLAG_DISABLE_META_COMMANDS
            | DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE))
    {
        ERR("CompileGraph: flags %#x has unknown DML_EXECUTION_FLAGS bits.", (unsigned int)flags);
        return E_INVALIDARG;
    }
    if (FAILED(hr = dml_graph_compile(device, desc, flags, &compiled)))
        return hr;
    return hand_off((IUnknown *)&compiled->IDMLCompiledOperator_iface, riid, out);
}

static const struct IDMLDevice1Vtbl dml_device_vtbl =
{
    dml_device_QueryInterface,
    dml_device_AddRef,
    dml_device_Release,
    dml_device_GetPrivateData,
    dml_device_SetPrivateData,
    dml_device_SetPrivateDataInterface,
    dml_device_SetName,
    dml_device_CheckFeatureSupport,
    dml_device_CreateOperator,
    dml_device_CompileOperator,
    dml_device_CreateOperatorInitializer,
    dml_device_CreateCommandRecorder,
    dml_device_CreateBindingTable,
    dml_device_Evict,
    dml_device_MakeResident,
    dml_device_GetDeviceRemovedReason,
    dml_device_GetParentDevice,
    dml_device_CompileGraph,
};

struct dml_device *unsafe_impl_from_IDMLDevice(IDMLDevice *iface)
{
    if (!iface || iface->lpVtbl != (const void *)&dml_device_vtbl)
        return NULL;
    return impl_from_IDMLDevice1((IDMLDevice1 *)iface);
}

/* ---- IDMLDebugDevice: shares the device's identity and refcount ---- */

static inline struct dml_device *impl_from_IDMLDebugDevice(IDMLDebugDevice *iface)
{
    return CONTAINING_RECORD(iface, struct dml_device, IDMLDebugDevice_iface);
}

static HRESULT STDMETHODCALLTYPE dml_debug_device_QueryInterface(IDMLDebugDevice *iface, REFIID riid, void **object)
{
    return dml_device_QueryInterface(&impl_from_IDMLDebugDevice(iface)->IDMLDevice1_iface, riid, object);
}

static ULONG STDMETHODCALLTYPE dml_debug_device_AddRef(IDMLDebugDevice *iface)
{
    return dml_device_AddRef(&impl_from_IDMLDebugDevice(iface)->IDMLDevice1_iface);
}

static ULONG STDMETHODCALLTYPE dml_debug_device_Release(IDMLDebugDevice *iface)
{
    return dml_device_Release(&impl_from_IDMLDebugDevice(iface)->IDMLDevice1_iface);
}

/* Mutes the debug device's own extra messages (the checks only a debug device makes); errors
 * are still returned, and vkdml's log level and callback are unaffected. */
static void STDMETHODCALLTYPE dml_debug_device_SetMuteDebugOutput(IDMLDebugDevice *iface, BOOL mute)
{
    TRACE("iface %p, mute %d.", (void *)iface, (int)mute);
    atomic_store(&impl_from_IDMLDebugDevice(iface)->muted, mute != FALSE);
}

static const struct IDMLDebugDeviceVtbl dml_debug_device_vtbl =
{
    dml_debug_device_QueryInterface,
    dml_debug_device_AddRef,
    dml_debug_device_Release,
    dml_debug_device_SetMuteDebugOutput,
};

/* ---- Creation ---- */

static HRESULT check_create_arguments(ID3D12Device *d3d12_device, DML_CREATE_DEVICE_FLAGS flags,
        DML_FEATURE_LEVEL minimum_level)
{
    if (!d3d12_device)
    {
        ERR("DMLCreateDevice1: d3d12Device is NULL.");
        return E_INVALIDARG;
    }
    if (flags & ~DML_CREATE_DEVICE_FLAG_DEBUG)
    {
        ERR("DMLCreateDevice1: flags %#x has unknown DML_CREATE_DEVICE_FLAGS bits.", (unsigned int)flags);
        return E_INVALIDARG;
    }
    if (!feature_level_valid(minimum_level))
    {
        /* Perhaps a level newer than 6_4: not an error of the caller, just not available. */
        WARN("DMLCreateDevice1: minimumFeatureLevel %#x is not a feature level vkdml knows.", (unsigned int)minimum_level);
        return DXGI_ERROR_UNSUPPORTED;
    }
    return S_OK;
}

/* DML_FEATURE_LEVEL_1_0 is accepted even while some 1_0 operators are missing (they answer
 * E_NOTIMPL one by one); a higher minimum needs every operator up to it. */
static HRESULT check_minimum_level(DML_FEATURE_LEVEL minimum_level, DML_FEATURE_LEVEL *supported)
{
    unsigned int missing;
    const char *first_missing;

    /* 1_0 is the floor every DML device reports; a missing 1_0 operator answers E_NOTIMPL
     * by itself (and vkdml-info lists them). */
    *supported = VKDML_MAX(implemented_feature_level(&missing, &first_missing), DML_FEATURE_LEVEL_1_0);
    if (missing)
        INFO("%u DML_FEATURE_LEVEL_1_0 operators are not implemented yet (the first: %s); they answer E_NOTIMPL.",
                missing, first_missing);
    if (minimum_level > DML_FEATURE_LEVEL_1_0 && minimum_level > *supported)
    {
        WARN("DMLCreateDevice1: minimumFeatureLevel %#x is not supported: vkdml implements every operator only up to "
                "feature level %#x.", (unsigned int)minimum_level, (unsigned int)*supported);
        return DXGI_ERROR_UNSUPPORTED;
    }
    return S_OK;
}

static void warn_missing_validation(struct vkdml_backend_device *backend)
{
    if (!vkdml_backend_validation_enabled(backend))
        WARN("DML_CREATE_DEVICE_FLAG_DEBUG: the Vulkan validation layer is not active on this D3D12 device; create "
                "the D3D12 device with VKDML_VALIDATION=1 (and vulkan-validationlayers installed) to get it.");
}

static HRESULT dml_device_create(ID3D12Device *d3d12_device, DML_CREATE_DEVICE_FLAGS flags,
        DML_FEATURE_LEVEL minimum_level, struct dml_device **out)
{
    struct dml_device *device;
    DML_FEATURE_LEVEL supported;
    HRESULT hr;

    if (FAILED(hr = check_create_arguments(d3d12_device, flags, minimum_level))
            || FAILED(hr = check_minimum_level(minimum_level, &supported)))
        return hr;
    if (!(device = calloc(1, sizeof(*device))))
        return E_OUTOFMEMORY;
    if (FAILED(hr = vkdml_backend_device_create(d3d12_device, &device->backend, "DMLCreateDevice1")))
    {
        free(device);
        return hr;
    }
    if (FAILED(hr = vkdml_backend_device_removed_reason(device->backend)))
    {
        ERR("DMLCreateDevice1: the D3D12 device was removed (reason %#x); create a new one.", (unsigned int)hr);
        vkdml_backend_device_destroy(device->backend);
        free(device);
        return DXGI_ERROR_DEVICE_REMOVED;
    }
    device->IDMLDevice1_iface.lpVtbl = &dml_device_vtbl;
    device->IDMLDebugDevice_iface.lpVtbl = &dml_debug_device_vtbl;
    atomic_init(&device->refcount, 1);
    device->d3d12_device = d3d12_device;
    ID3D12Device_AddRef(d3d12_device);
    device->flags = flags;
    device->feature_level = supported;
    atomic_init(&device->removed_reason, S_OK);
    vkdml_private_store_init(&device->private_store);
    if (dml_device_is_debug(device))
        warn_missing_validation(device->backend);

    INFO("Created DML device %p on \"%s\"%s.", (void *)device, vkdml_backend_device_name(device->backend),
            dml_device_is_debug(device) ? " (debug)" : "");
    *out = device;
    return S_OK;
}

VKDML_DML_API HRESULT STDAPICALLTYPE DMLCreateDevice1(ID3D12Device *d3d12_device, DML_CREATE_DEVICE_FLAGS flags,
        DML_FEATURE_LEVEL minimum_level, REFIID riid, void **out)
{
    struct dml_device *device;
    HRESULT hr;

    TRACE("d3d12_device %p, flags %#x, minimum_level %#x, riid %s, out %p.", (void *)d3d12_device,
            (unsigned int)flags, (unsigned int)minimum_level, debugstr_guid(riid), (void *)out);

    if (out)
        *out = NULL;
    if (FAILED(hr = dml_device_create(d3d12_device, flags, minimum_level, &device)))
        return hr;
    return vkdml_return_interface((IUnknown *)&device->IDMLDevice1_iface, riid, out);
}

VKDML_DML_API HRESULT STDAPICALLTYPE DMLCreateDevice(ID3D12Device *d3d12_device, DML_CREATE_DEVICE_FLAGS flags,
        REFIID riid, void **out)
{
    return DMLCreateDevice1(d3d12_device, flags, DML_FEATURE_LEVEL_1_0, riid, out);
}
