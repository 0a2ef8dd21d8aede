/*
 * ID3D12Device of the D3D12 shim: creation (D3D12CreateDevice, vkdml_create_d3d12_device), the
 * device's own methods, CheckFeatureSupport and the small queries. Resources and heaps are made in
 * resource.c, descriptor heaps and views in descriptor.c, queues in queue.c, allocators in
 * command_allocator.c, lists in command_list.c, fences in fence.c; the methods here validate what
 * they can and hand over.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d3d12_private.h"

/* ORT asks for this compute-only ("generic ML") level; DirectX-Headers 1.606 does not name it, and
 * mingw-w64 10's d3d12.h does not name 1_0_CORE either. */
#define FEATURE_LEVEL_1_0_GENERIC ((D3D_FEATURE_LEVEL)0x100)
#define FEATURE_LEVEL_1_0_CORE ((D3D_FEATURE_LEVEL)0x1000)
#define HIGHEST_FEATURE_LEVEL D3D_FEATURE_LEVEL_12_1
/* What CheckFeatureSupport(SHADER_MODEL) answers at most. */
#define HIGHEST_SHADER_MODEL D3D_SHADER_MODEL_6_0
/* The device address range reported per process (the D3D12 minimum is 40 bits). */
#define GPU_VIRTUAL_ADDRESS_BITS 40

/* WKPDID_D3DDebugObjectNameW, where D3D12's SetName keeps the name (older mingw-w64 headers lack it). */
static const GUID debug_object_name_w = {0x4cca5fd8, 0x921f, 0x42c8, {0x85, 0x66, 0x70, 0xca, 0xf2, 0xa9, 0xb7, 0x41}};

static const struct ID3D12DeviceVtbl d3d12_device_vtbl;

static inline struct d3d12_device *impl_from_ID3D12Device(ID3D12Device *iface)
{
    return CONTAINING_RECORD(iface, struct d3d12_device, ID3D12Device_iface);
}

/* ---- Shared helpers ---- */

HRESULT d3d12_device_check_vk_result(struct d3d12_device *device, VkResult vr)
{
    int expected = S_OK;

    if (vr == VK_ERROR_DEVICE_LOST && atomic_compare_exchange_strong(&device->removed_reason, &expected,
            (int)DXGI_ERROR_DEVICE_REMOVED))
        ERR("The Vulkan device was lost (VK_ERROR_DEVICE_LOST): the D3D12 device is removed; "
                "GetDeviceRemovedReason() now returns DXGI_ERROR_DEVICE_REMOVED.");
    return hresult_from_vk_result(vr);
}

void d3d12_device_lose_next_submission(struct d3d12_device *device)
{
    atomic_store(&device->lose_next_submission, true);
}

void d3d12_device_set_vk_object_name(struct d3d12_device *device, VkObjectType type, uint64_t handle, const char *name)
{
    const struct vkdml_vk_instance_procs *vk_procs = &device->vk_instance->procs;
    VkDebugUtilsObjectNameInfoEXT info =
    {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT,
        .objectType = type,
        .objectHandle = handle,
        .pObjectName = name,
    };
    VkResult vr;

    /* vkSetDebugUtilsObjectNameEXT is loaded with the instance: NULL without VK_EXT_debug_utils. */
    if (!handle || !device->vk_instance->has_debug_utils || !vk_procs->vkSetDebugUtilsObjectNameEXT)
        return;
    vkdml_mutex_lock(&device->object_name_mutex);
    vr = VK_CALL(vkSetDebugUtilsObjectNameEXT(device->vk->vk_device, &info));
    vkdml_mutex_unlock(&device->object_name_mutex);
    if (vr < 0)
        WARN("Naming Vulkan object %#" PRIx64 " \"%s\" failed: %s.", handle, name ? name : "",
                vkdml_vk_result_string(vr));
}

HRESULT d3d12_object_set_name(struct d3d12_device *device, struct vkdml_private_store *store,
        VkObjectType type, uint64_t handle, const WCHAR *name)
{
    char *utf8 = NULL;
    size_t length = 0;
    HRESULT hr;

    if (name)
    {
        while (name[length])
            ++length;
        if (!(utf8 = vkdml_utf8_from_wide(name)))
            return E_OUTOFMEMORY;
    }
    TRACE("Name \"%s\".", utf8 ? utf8 : "(null)");
    /* D3D12 keeps the name, terminator included, where GetPrivateData finds it; NULL removes it. */
    if (FAILED(hr = vkdml_private_store_set(store, &debug_object_name_w,
            name ? (UINT)((length + 1) * sizeof(WCHAR)) : 0, name)))
    {
        free(utf8);
        return hr;
    }
    d3d12_device_set_vk_object_name(device, type, handle, utf8);
    free(utf8);
    return S_OK;
}

/* Every Create* method: out-pointer cleared first (D3D12 returns E_POINTER where it is not optional,
 * and S_FALSE after a successful creation where it is), riid required, nothing new on a removed device. */
static HRESULT begin_create(struct d3d12_device *device, const char *method, REFIID riid, void **out,
        bool out_optional)
{
    HRESULT removed;

    if (out)
        *out = NULL;
    else if (!out_optional)
    {
        ERR("%s: the out-pointer for the new object is NULL.", method);
        return E_POINTER;
    }
    if (!riid)
    {
        ERR("%s: riid is NULL; it must name the interface to return.", method);
        return E_INVALIDARG;
    }
    if ((removed = atomic_load(&device->removed_reason)) != S_OK)
    {
        ERR("%s: the device was removed (Vulkan device lost); nothing can be created on it.", method);
        return removed;
    }
    return S_OK;
}

/* Out-pointer cleared, E_NOTIMPL and one FIXME line: the slots outside the buffer-only compute subset. */
static HRESULT not_implemented(const char *method, void **out)
{
    if (out)
        *out = NULL;
    FIXME("%s is not implemented: the D3D12 shim is the buffer-only compute subset of Direct3D 12 "
            "(no HLSL/DXIL, textures, queries or shared handles).", method);
    return E_NOTIMPL;
}

/* ---- IUnknown ---- */

static HRESULT STDMETHODCALLTYPE d3d12_device_QueryInterface(ID3D12Device *iface, REFIID riid, void **object)
{
    /* Not ID3D12Device1+ or ID3D12DebugDevice: applications probe for them and carry on. */
    static const IID *const iids[] = {&IID_ID3D12Device, &IID_ID3D12Object, &IID_IUnknown};

    TRACE("iface %p, riid %s, object %p.", (void *)iface, debugstr_guid(riid), (void *)object);
    return vkdml_query_interface((IUnknown *)iface, iids, ARRAY_SIZE(iids), riid, object);
}

static ULONG STDMETHODCALLTYPE d3d12_device_AddRef(ID3D12Device *iface)
{
    struct d3d12_device *device = impl_from_ID3D12Device(iface);
    ULONG refcount = vkdml_refcount_increment(&device->refcount);

    TRACE("%p increasing refcount to %u.", (void *)device, (unsigned int)refcount);
    return refcount;
}

/* Mirrors d3d12_device_init. */
static void d3d12_device_cleanup(struct d3d12_device *device)
{
    vkdml_private_store_destroy(&device->private_store);
    d3d12_device_stop_fence_waiter(device);
    if (device->heaps)
        ERR("Descriptor heaps outlived their device.");
    vkdml_vk_clears_destroy(device->vk, &device->clears);
    vkdml_vk_device_destroy(device->vk);
    vkdml_vk_instance_destroy(device->vk_instance);
}

static ULONG STDMETHODCALLTYPE d3d12_device_Release(ID3D12Device *iface)
{
    struct d3d12_device *device = impl_from_ID3D12Device(iface);
    ULONG refcount = vkdml_refcount_decrement(&device->refcount);

    TRACE("%p decreasing refcount to %u.", (void *)device, (unsigned int)refcount);
    if (!refcount)
    {
        d3d12_device_cleanup(device);
        free(device);
    }
    return refcount;
}

/* ---- ID3D12Object ---- */

VKDML_IMPLEMENT_PRIVATE_DATA(d3d12_device, ID3D12Device, impl_from_ID3D12Device, const IUnknown *)

static HRESULT STDMETHODCALLTYPE d3d12_device_SetName(ID3D12Device *iface, const WCHAR *name)
{
    struct d3d12_device *device = impl_from_ID3D12Device(iface);

    TRACE("iface %p, name %p.", (void *)iface, (const void *)name);
    /* An engine's VkDevice keeps the name the engine gave it. */
    return d3d12_object_set_name(device, &device->private_store, VK_OBJECT_TYPE_DEVICE,
            device->vk->imported ? 0 : (uint64_t)(uintptr_t)device->vk->vk_device, name);
}

/* ---- ID3D12Device: object creation ---- */

static UINT STDMETHODCALLTYPE d3d12_device_GetNodeCount(ID3D12Device *iface)
{
    TRACE("iface %p.", (void *)iface);
    return 1;
}

static HRESULT STDMETHODCALLTYPE d3d12_device_CreateCommandQueue(ID3D12Device *iface,
        const D3D12_COMMAND_QUEUE_DESC *desc, REFIID riid, void **command_queue)
{
    struct d3d12_device *device = impl_from_ID3D12Device(iface);
    struct d3d12_command_queue *object;
    HRESULT hr;

    TRACE("iface %p, desc %p, riid %s, command_queue %p.", (void *)iface, (const void *)desc,
            debugstr_guid(riid), (void *)command_queue);

    if (FAILED(hr = begin_create(device, "CreateCommandQueue", riid, command_queue, false)))
        return hr;
    if (!desc)
    {
        ERR("CreateCommandQueue: pDesc is NULL.");
        return E_INVALIDARG;
    }
    if (FAILED(hr = d3d12_command_queue_create(device, desc, &object)))
        return hr;
    return vkdml_return_interface((IUnknown *)&object->ID3D12CommandQueue_iface, riid, command_queue);
}

static HRESULT STDMETHODCALLTYPE d3d12_device_CreateCommandAllocator(ID3D12Device *iface,
        D3D12_COMMAND_LIST_TYPE type, REFIID riid, void **command_allocator)
{
    struct d3d12_device *device = impl_from_ID3D12Device(iface);
    struct d3d12_command_allocator *object;
    HRESULT hr;

    TRACE("iface %p, type %#x, riid %s, command_allocator %p.", (void *)iface, type, debugstr_guid(riid),
            (void *)command_allocator);

    if (FAILED(hr = begin_create(device, "CreateCommandAllocator", riid, command_allocator, false)))
        return hr;
    if (FAILED(hr = d3d12_command_allocator_create(device, type, &object)))
        return hr;
    return vkdml_return_interface((IUnknown *)&object->ID3D12CommandAllocator_iface, riid, command_allocator);
}

static HRESULT STDMETHODCALLTYPE d3d12_device_CreateGraphicsPipelineState(ID3D12Device *iface,
        const D3D12_GRAPHICS_PIPELINE_STATE_DESC *desc, REFIID riid, void **pipeline_state)
{
    TRACE("iface %p, desc %p, riid %s, pipeline_state %p.", (void *)iface, (const void *)desc,
            debugstr_guid(riid), (void *)pipeline_state);
    return not_implemented("CreateGraphicsPipelineState", pipeline_state);
}

static HRESULT STDMETHODCALLTYPE d3d12_device_CreateComputePipelineState(ID3D12Device *iface,
        const D3D12_COMPUTE_PIPELINE_STATE_DESC *desc, REFIID riid, void **pipeline_state)
{
    TRACE("iface %p, desc %p, riid %s, pipeline_state %p.", (void *)iface, (const void *)desc,
            debugstr_guid(riid), (void *)pipeline_state);
    return not_implemented("CreateComputePipelineState", pipeline_state);
}

static HRESULT STDMETHODCALLTYPE d3d12_device_CreateCommandList(ID3D12Device *iface, UINT node_mask,
        D3D12_COMMAND_LIST_TYPE type, ID3D12CommandAllocator *command_allocator,
        ID3D12PipelineState *initial_pipeline_state, REFIID riid, void **command_list)
{
    struct d3d12_device *device = impl_from_ID3D12Device(iface);
    struct d3d12_command_list *object;
    HRESULT hr;

    TRACE("iface %p, node_mask %#x, type %#x, command_allocator %p, initial_pipeline_state %p, riid %s, "
            "command_list %p.", (void *)iface, node_mask, type, (void *)command_allocator,
            (void *)initial_pipeline_state, debugstr_guid(riid), (void *)command_list);

    if (FAILED(hr = begin_create(device, "CreateCommandList", riid, command_list, false)))
        return hr;
    if (FAILED(hr = d3d12_command_list_create(device, node_mask, type, command_allocator,
            initial_pipeline_state, &object)))
        return hr;
    return vkdml_return_interface((IUnknown *)&object->ID3D12GraphicsCommandList_iface, riid, command_list);
}

/* ---- CheckFeatureSupport ---- */

static bool check_feature_size(const char *feature, UINT size, size_t expected)
{
    if (size == expected)
        return true;
    ERR("CheckFeatureSupport: %s: FeatureSupportDataSize %u, expected %u.", feature, size, (unsigned int)expected);
    return false;
}

/* Bits of the largest resource the device can hold, capped at what D3D12 reports per process. */
static UINT virtual_address_bits_per_resource(const struct d3d12_device *device)
{
    VkDeviceSize max_size = VKDML_MIN(device->memory_info.max_allocation_size, device->memory_info.max_buffer_size);
    UINT bits = 0;

    while (bits < GPU_VIRTUAL_ADDRESS_BITS && ((VkDeviceSize)1 << (bits + 1)) - 1 <= max_size)
        ++bits;
    return VKDML_MAX(bits, 31);
}

static HRESULT feature_options(struct d3d12_device *device, void *data, UINT size)
{
    const struct vkdml_vk_caps *caps = &device->vk->caps;
    D3D12_FEATURE_DATA_D3D12_OPTIONS *options = data;

    if (!check_feature_size("D3D12_FEATURE_D3D12_OPTIONS", size, sizeof(*options)))
        return E_INVALIDARG;
    memset(options, 0, sizeof(*options));
    options->DoublePrecisionFloatShaderOps = caps->shader_float64;
    options->MinPrecisionSupport = caps->shader_float16 ? D3D12_SHADER_MIN_PRECISION_SUPPORT_16_BIT
            : D3D12_SHADER_MIN_PRECISION_SUPPORT_NONE;
    /* No tiled resources: ORT then places buffers in heaps instead of reserved resources. */
    options->TiledResourcesTier = D3D12_TILED_RESOURCES_TIER_NOT_SUPPORTED;
    /* Software descriptor heaps have no per-stage limits. */
    options->ResourceBindingTier = D3D12_RESOURCE_BINDING_TIER_3;
    options->ConservativeRasterizationTier = D3D12_CONSERVATIVE_RASTERIZATION_TIER_NOT_SUPPORTED;
    options->MaxGPUVirtualAddressBitsPerResource = virtual_address_bits_per_resource(device);
    options->CrossNodeSharingTier = D3D12_CROSS_NODE_SHARING_TIER_NOT_SUPPORTED;
    /* Heaps hold any mix of (buffer) resources. */
    options->ResourceHeapTier = D3D12_RESOURCE_HEAP_TIER_2;
    return S_OK;
}

static HRESULT feature_options1(struct d3d12_device *device, void *data, UINT size)
{
    const struct vkdml_vk_caps *caps = &device->vk->caps;
    D3D12_FEATURE_DATA_D3D12_OPTIONS1 *options = data;

    if (!check_feature_size("D3D12_FEATURE_D3D12_OPTIONS1", size, sizeof(*options)))
        return E_INVALIDARG;
    memset(options, 0, sizeof(*options));
    options->WaveOps = TRUE;
    options->WaveLaneCountMin = caps->subgroup_size;
    options->WaveLaneCountMax = caps->subgroup_size;
    options->TotalLaneCount = caps->subgroup_size;
    options->ExpandedComputeResourceStates = TRUE;
    options->Int64ShaderOps = caps->shader_int64;
    return S_OK;
}

static HRESULT feature_options4(struct d3d12_device *device, void *data, UINT size)
{
    const struct vkdml_vk_caps *caps = &device->vk->caps;
    D3D12_FEATURE_DATA_D3D12_OPTIONS4 *options = data;

    if (!check_feature_size("D3D12_FEATURE_D3D12_OPTIONS4", size, sizeof(*options)))
        return E_INVALIDARG;
    memset(options, 0, sizeof(*options));
    options->SharedResourceCompatibilityTier = D3D12_SHARED_RESOURCE_COMPATIBILITY_TIER_0;
    /* ORT runs float16 models natively only with this. */
    options->Native16BitShaderOpsSupported = caps->shader_float16 && caps->storage_16bit;
    return S_OK;
}

static HRESULT feature_architecture(struct d3d12_device *device, D3D12_FEATURE feature, void *data, UINT size)
{
    D3D12_FEATURE_DATA_ARCHITECTURE1 *architecture = data;
    bool extended = feature == D3D12_FEATURE_ARCHITECTURE1;
    const char *name = extended ? "D3D12_FEATURE_ARCHITECTURE1" : "D3D12_FEATURE_ARCHITECTURE";

    /* ARCHITECTURE is ARCHITECTURE1 without the last member. */
    if (!check_feature_size(name, size, extended ? sizeof(D3D12_FEATURE_DATA_ARCHITECTURE1)
            : sizeof(D3D12_FEATURE_DATA_ARCHITECTURE)))
        return E_INVALIDARG;
    if (architecture->NodeIndex)
    {
        ERR("CheckFeatureSupport: %s: NodeIndex %u, but the device has one node (0).", name, architecture->NodeIndex);
        return E_INVALIDARG;
    }
    architecture->TileBasedRenderer = FALSE;
    architecture->UMA = device->memory_info.uma;
    architecture->CacheCoherentUMA = device->memory_info.cache_coherent_uma;
    if (extended)
        architecture->IsolatedMMU = TRUE;
    return S_OK;
}

static bool is_supported_feature_level(D3D_FEATURE_LEVEL level)
{
    /* Unsigned: 1_0_GENERIC is not one of the enum's values. */
    switch ((unsigned int)level)
    {
        case FEATURE_LEVEL_1_0_GENERIC:
        case FEATURE_LEVEL_1_0_CORE:
        case D3D_FEATURE_LEVEL_9_1:
        case D3D_FEATURE_LEVEL_9_2:
        case D3D_FEATURE_LEVEL_9_3:
        case D3D_FEATURE_LEVEL_10_0:
        case D3D_FEATURE_LEVEL_10_1:
        case D3D_FEATURE_LEVEL_11_0:
        case D3D_FEATURE_LEVEL_11_1:
        case D3D_FEATURE_LEVEL_12_0:
        case D3D_FEATURE_LEVEL_12_1:
            return true;
        default:
            return false;
    }
}

static HRESULT feature_levels(struct d3d12_device *device, void *data, UINT size)
{
    D3D12_FEATURE_DATA_FEATURE_LEVELS *levels = data;
    bool found = false;
    UINT i;

    if (!check_feature_size("D3D12_FEATURE_FEATURE_LEVELS", size, sizeof(*levels)))
        return E_INVALIDARG;
    if (!levels->NumFeatureLevels || !levels->pFeatureLevelsRequested)
    {
        ERR("CheckFeatureSupport: D3D12_FEATURE_FEATURE_LEVELS: NumFeatureLevels %u, pFeatureLevelsRequested %p: "
                "at least one requested level is needed.", levels->NumFeatureLevels,
                (const void *)levels->pFeatureLevelsRequested);
        return E_INVALIDARG;
    }
    /* The numeric order of the levels is their order: 1_0_GENERIC < 1_0_CORE < 9_1 < ... < 12_1. */
    for (i = 0; i < levels->NumFeatureLevels; ++i)
    {
        D3D_FEATURE_LEVEL level = levels->pFeatureLevelsRequested[i];

        if (is_supported_feature_level(level) && (!found || level > levels->MaxSupportedFeatureLevel))
        {
            levels->MaxSupportedFeatureLevel = level;
            found = true;
        }
    }
    if (!found)
    {
        WARN("CheckFeatureSupport: D3D12_FEATURE_FEATURE_LEVELS: none of the %u requested levels is supported "
                "(the highest is 12_1).", levels->NumFeatureLevels);
        return DXGI_ERROR_UNSUPPORTED;
    }
    return S_OK;
}

static HRESULT feature_shader_model(struct d3d12_device *device, void *data, UINT size)
{
    D3D12_FEATURE_DATA_SHADER_MODEL *model = data;

    if (!check_feature_size("D3D12_FEATURE_SHADER_MODEL", size, sizeof(*model)))
        return E_INVALIDARG;
    if (model->HighestShaderModel < D3D_SHADER_MODEL_5_1)
    {
        ERR("CheckFeatureSupport: D3D12_FEATURE_SHADER_MODEL: HighestShaderModel %#x is not a shader model "
                "(5_1 = 0x51 is the lowest).", model->HighestShaderModel);
        return E_INVALIDARG;
    }
    /* The application sends the highest model it knows and gets back the highest both know. */
    model->HighestShaderModel = VKDML_MIN(model->HighestShaderModel, HIGHEST_SHADER_MODEL);
    return S_OK;
}

static HRESULT feature_virtual_address(struct d3d12_device *device, void *data, UINT size)
{
    D3D12_FEATURE_DATA_GPU_VIRTUAL_ADDRESS_SUPPORT *support = data;

    if (!check_feature_size("D3D12_FEATURE_GPU_VIRTUAL_ADDRESS_SUPPORT", size, sizeof(*support)))
        return E_INVALIDARG;
    support->MaxGPUVirtualAddressBitsPerResource = virtual_address_bits_per_resource(device);
    support->MaxGPUVirtualAddressBitsPerProcess = GPU_VIRTUAL_ADDRESS_BITS;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE d3d12_device_CheckFeatureSupport(ID3D12Device *iface, D3D12_FEATURE feature,
        void *data, UINT data_size)
{
    struct d3d12_device *device = impl_from_ID3D12Device(iface);

    TRACE("iface %p, feature %#x, data %p, data_size %u.", (void *)iface, feature, data, data_size);

    if (!data)
    {
        ERR("CheckFeatureSupport: pFeatureSupportData is NULL (feature %#x).", feature);
        return E_INVALIDARG;
    }
    switch (feature)
    {
        case D3D12_FEATURE_D3D12_OPTIONS:
            return feature_options(device, data, data_size);
        case D3D12_FEATURE_D3D12_OPTIONS1:
            return feature_options1(device, data, data_size);
        case D3D12_FEATURE_D3D12_OPTIONS4:
            return feature_options4(device, data, data_size);
        case D3D12_FEATURE_ARCHITECTURE:
        case D3D12_FEATURE_ARCHITECTURE1:
            return feature_architecture(device, feature, data, data_size);
        case D3D12_FEATURE_FEATURE_LEVELS:
            return feature_levels(device, data, data_size);
        case D3D12_FEATURE_SHADER_MODEL:
            return feature_shader_model(device, data, data_size);
        case D3D12_FEATURE_GPU_VIRTUAL_ADDRESS_SUPPORT:
            return feature_virtual_address(device, data, data_size);
        default:
            FIXME("CheckFeatureSupport: feature %#x is not supported by the buffer-only compute subset; "
                    "returning E_INVALIDARG.", feature);
            return E_INVALIDARG;
    }
}

/* ---- Descriptors (descriptor.c) ---- */

static HRESULT STDMETHODCALLTYPE d3d12_device_CreateDescriptorHeap(ID3D12Device *iface,
        const D3D12_DESCRIPTOR_HEAP_DESC *desc, REFIID riid, void **descriptor_heap)
{
    struct d3d12_device *device = impl_from_ID3D12Device(iface);
    struct d3d12_descriptor_heap *object;
    HRESULT hr;

    TRACE("iface %p, desc %p, riid %s, descriptor_heap %p.", (void *)iface, (const void *)desc,
            debugstr_guid(riid), (void *)descriptor_heap);

    if (FAILED(hr = begin_create(device, "CreateDescriptorHeap", riid, descriptor_heap, false)))
        return hr;
    if (FAILED(hr = d3d12_descriptor_heap_create(device, desc, &object)))
        return hr;
    return vkdml_return_interface((IUnknown *)&object->ID3D12DescriptorHeap_iface, riid, descriptor_heap);
}

static UINT STDMETHODCALLTYPE d3d12_device_GetDescriptorHandleIncrementSize(ID3D12Device *iface,
        D3D12_DESCRIPTOR_HEAP_TYPE descriptor_heap_type)
{
    TRACE("iface %p, descriptor_heap_type %#x.", (void *)iface, descriptor_heap_type);
    return d3d12_descriptor_increment_size(descriptor_heap_type);
}

static HRESULT STDMETHODCALLTYPE d3d12_device_CreateRootSignature(ID3D12Device *iface, UINT node_mask,
        const void *bytecode, SIZE_T bytecode_length, REFIID riid, void **root_signature)
{
    TRACE("iface %p, node_mask %#x, bytecode %p, bytecode_length %" PRIu64 ", riid %s, root_signature %p.",
            (void *)iface, node_mask, bytecode, (uint64_t)bytecode_length, debugstr_guid(riid), (void *)root_signature);
    return not_implemented("CreateRootSignature", root_signature);
}

static void STDMETHODCALLTYPE d3d12_device_CreateConstantBufferView(ID3D12Device *iface,
        const D3D12_CONSTANT_BUFFER_VIEW_DESC *desc, D3D12_CPU_DESCRIPTOR_HANDLE descriptor)
{
    TRACE("iface %p, desc %p, descriptor %#" PRIx64 ".", (void *)iface, (const void *)desc, (uint64_t)descriptor.ptr);
    not_implemented("CreateConstantBufferView", NULL);
}

static void STDMETHODCALLTYPE d3d12_device_CreateShaderResourceView(ID3D12Device *iface,
        ID3D12Resource *resource, const D3D12_SHADER_RESOURCE_VIEW_DESC *desc, D3D12_CPU_DESCRIPTOR_HANDLE descriptor)
{
    TRACE("iface %p, resource %p, desc %p, descriptor %#" PRIx64 ".", (void *)iface, (void *)resource, (const void *)desc,
            (uint64_t)descriptor.ptr);
    d3d12_device_create_shader_resource_view(impl_from_ID3D12Device(iface), resource, desc, descriptor);
}

static void STDMETHODCALLTYPE d3d12_device_CreateUnorderedAccessView(ID3D12Device *iface,
        ID3D12Resource *resource, ID3D12Resource *counter_resource, const D3D12_UNORDERED_ACCESS_VIEW_DESC *desc,
        D3D12_CPU_DESCRIPTOR_HANDLE descriptor)
{
    TRACE("iface %p, resource %p, counter_resource %p, desc %p, descriptor %#" PRIx64 ".", (void *)iface, (void *)resource,
            (void *)counter_resource, (const void *)desc, (uint64_t)descriptor.ptr);
    d3d12_device_create_unordered_access_view(impl_from_ID3D12Device(iface), resource, counter_resource,
            desc, descriptor);
}

static void STDMETHODCALLTYPE d3d12_device_CreateRenderTargetView(ID3D12Device *iface,
        ID3D12Resource *resource, const D3D12_RENDER_TARGET_VIEW_DESC *desc, D3D12_CPU_DESCRIPTOR_HANDLE descriptor)
{
    TRACE("iface %p, resource %p, desc %p, descriptor %#" PRIx64 ".", (void *)iface, (void *)resource, (const void *)desc,
            (uint64_t)descriptor.ptr);
    not_implemented("CreateRenderTargetView", NULL);
}

static void STDMETHODCALLTYPE d3d12_device_CreateDepthStencilView(ID3D12Device *iface,
        ID3D12Resource *resource, const D3D12_DEPTH_STENCIL_VIEW_DESC *desc, D3D12_CPU_DESCRIPTOR_HANDLE descriptor)
{
    TRACE("iface %p, resource %p, desc %p, descriptor %#" PRIx64 ".", (void *)iface, (void *)resource, (const void *)desc,
            (uint64_t)descriptor.ptr);
    not_implemented("CreateDepthStencilView", NULL);
}

static void STDMETHODCALLTYPE d3d12_device_CreateSampler(ID3D12Device *iface,
        const D3D12_SAMPLER_DESC *desc, D3D12_CPU_DESCRIPTOR_HANDLE descriptor)
{
    TRACE("iface %p, desc %p, descriptor %#" PRIx64 ".", (void *)iface, (const void *)desc, (uint64_t)descriptor.ptr);
    not_implemented("CreateSampler", NULL);
}

static void STDMETHODCALLTYPE d3d12_device_CopyDescriptors(ID3D12Device *iface,
        UINT dst_descriptor_range_count, const D3D12_CPU_DESCRIPTOR_HANDLE *dst_descriptor_range_offsets,
        const UINT *dst_descriptor_range_sizes, UINT src_descriptor_range_count,
        const D3D12_CPU_DESCRIPTOR_HANDLE *src_descriptor_range_offsets, const UINT *src_descriptor_range_sizes,
        D3D12_DESCRIPTOR_HEAP_TYPE descriptor_heap_type)
{
    TRACE("iface %p, dst_descriptor_range_count %u, dst_descriptor_range_offsets %p, dst_descriptor_range_sizes %p, "
            "src_descriptor_range_count %u, src_descriptor_range_offsets %p, src_descriptor_range_sizes %p, "
            "descriptor_heap_type %#x.", (void *)iface, dst_descriptor_range_count,
            (const void *)dst_descriptor_range_offsets, (const void *)dst_descriptor_range_sizes,
            src_descriptor_range_count, (const void *)src_descriptor_range_offsets,
            (const void *)src_descriptor_range_sizes, descriptor_heap_type);
    d3d12_device_copy_descriptors(impl_from_ID3D12Device(iface), dst_descriptor_range_count,
            dst_descriptor_range_offsets, dst_descriptor_range_sizes, src_descriptor_range_count,
            src_descriptor_range_offsets, src_descriptor_range_sizes, descriptor_heap_type);
}

static void STDMETHODCALLTYPE d3d12_device_CopyDescriptorsSimple(ID3D12Device *iface, UINT descriptor_count,
        D3D12_CPU_DESCRIPTOR_HANDLE dst_descriptor_range_offset, D3D12_CPU_DESCRIPTOR_HANDLE src_descriptor_range_offset,
        D3D12_DESCRIPTOR_HEAP_TYPE descriptor_heap_type)
{
    TRACE("iface %p, descriptor_count %u, dst_descriptor_range_offset %#" PRIx64 ", src_descriptor_range_offset %#" PRIx64 ", "
            "descriptor_heap_type %#x.", (void *)iface, descriptor_count, (uint64_t)dst_descriptor_range_offset.ptr,
            (uint64_t)src_descriptor_range_offset.ptr, descriptor_heap_type);
    d3d12_device_copy_descriptors_simple(impl_from_ID3D12Device(iface), descriptor_count,
            dst_descriptor_range_offset, src_descriptor_range_offset, descriptor_heap_type);
}

/* ---- Resources and heaps (resource.c) ---- */

static D3D12_RESOURCE_ALLOCATION_INFO resource_allocation_info(struct d3d12_device *device, UINT visible_mask,
        UINT count, const D3D12_RESOURCE_DESC *descs)
{
    static const char method[] = "GetResourceAllocationInfo";
    D3D12_RESOURCE_ALLOCATION_INFO info = {UINT64_MAX, D3D12_DEFAULT_RESOURCE_PLACEMENT_ALIGNMENT};
    UINT64 total = 0, size;
    UINT i;

    /* D3D12 reports an invalid description as SizeInBytes = UINT64_MAX. */
    if (visible_mask > 1)
    {
        ERR("%s: visibleMask %#x: the device has one node (mask 0 or 1).", method, visible_mask);
        return info;
    }
    if (!count || !descs)
    {
        ERR("%s: numResourceDescs %u, pResourceDescs %p: at least one description is needed.", method, count,
                (const void *)descs);
        return info;
    }
    for (i = 0; i < count; ++i)
    {
        if (FAILED(d3d12_validate_buffer_desc(device, &descs[i], method)))
            return info;
        /* Placement alignment: a heap holds buffers at 64 KiB boundaries. */
        size = VKDML_ALIGN_UP(descs[i].Width, (UINT64)D3D12_DEFAULT_RESOURCE_PLACEMENT_ALIGNMENT);
        if (size > UINT64_MAX - total)
        {
            ERR("%s: the %u descriptions add up to more than 2^64 bytes.", method, count);
            return info;
        }
        total += size;
    }
    info.SizeInBytes = total;
    return info;
}

#if VKDML_RETVAL_WIN32
static D3D12_RESOURCE_ALLOCATION_INFO * STDMETHODCALLTYPE d3d12_device_GetResourceAllocationInfo(ID3D12Device *iface,
        D3D12_RESOURCE_ALLOCATION_INFO *info, UINT visible_mask, UINT count, const D3D12_RESOURCE_DESC *descs)
{
    TRACE("iface %p, info %p, visible_mask %#x, count %u, descs %p.", (void *)iface, (void *)info, visible_mask,
            count, (const void *)descs);
    *info = resource_allocation_info(impl_from_ID3D12Device(iface), visible_mask, count, descs);
    return info;
}
#else
static D3D12_RESOURCE_ALLOCATION_INFO STDMETHODCALLTYPE d3d12_device_GetResourceAllocationInfo(ID3D12Device *iface,
        UINT visible_mask, UINT count, const D3D12_RESOURCE_DESC *descs)
{
    TRACE("iface %p, visible_mask %#x, count %u, descs %p.", (void *)iface, visible_mask, count, (const void *)descs);
    return resource_allocation_info(impl_from_ID3D12Device(iface), visible_mask, count, descs);
}
#endif

static D3D12_HEAP_PROPERTIES custom_heap_properties(struct d3d12_device *device, UINT node_mask,
        D3D12_HEAP_TYPE heap_type)
{
    if (node_mask > 1)
        ERR("GetCustomHeapProperties: nodeMask %#x: the device has one node (mask 0 or 1); answering for node 0.",
                node_mask);
    return d3d12_device_custom_heap_properties(device, heap_type);
}

#if VKDML_RETVAL_WIN32
static D3D12_HEAP_PROPERTIES * STDMETHODCALLTYPE d3d12_device_GetCustomHeapProperties(ID3D12Device *iface,
        D3D12_HEAP_PROPERTIES *properties, UINT node_mask, D3D12_HEAP_TYPE heap_type)
{
    TRACE("iface %p, properties %p, node_mask %#x, heap_type %#x.", (void *)iface, (void *)properties, node_mask,
            heap_type);
    *properties = custom_heap_properties(impl_from_ID3D12Device(iface), node_mask, heap_type);
    return properties;
}
#else
static D3D12_HEAP_PROPERTIES STDMETHODCALLTYPE d3d12_device_GetCustomHeapProperties(ID3D12Device *iface,
        UINT node_mask, D3D12_HEAP_TYPE heap_type)
{
    TRACE("iface %p, node_mask %#x, heap_type %#x.", (void *)iface, node_mask, heap_type);
    return custom_heap_properties(impl_from_ID3D12Device(iface), node_mask, heap_type);
}
#endif

/* Buffers take no optimized clear value (textures fail later, as textures). */
static bool check_clear_value(const char *method, const D3D12_RESOURCE_DESC *desc, const D3D12_CLEAR_VALUE *clear)
{
    if (!clear || !desc || desc->Dimension != D3D12_RESOURCE_DIMENSION_BUFFER)
        return true;
    ERR("%s: pOptimizedClearValue %p must be NULL for a buffer.", method, (const void *)clear);
    return false;
}

static HRESULT STDMETHODCALLTYPE d3d12_device_CreateCommittedResource(ID3D12Device *iface,
        const D3D12_HEAP_PROPERTIES *heap_properties, D3D12_HEAP_FLAGS heap_flags, const D3D12_RESOURCE_DESC *desc,
        D3D12_RESOURCE_STATES initial_state, const D3D12_CLEAR_VALUE *optimized_clear_value, REFIID riid,
        void **resource)
{
    struct d3d12_device *device = impl_from_ID3D12Device(iface);
    struct d3d12_resource *object;
    HRESULT hr;

    TRACE("iface %p, heap_properties %p, heap_flags %#x, desc %p, initial_state %#x, optimized_clear_value %p, "
            "riid %s, resource %p.", (void *)iface, (const void *)heap_properties, heap_flags, (const void *)desc,
            initial_state, (const void *)optimized_clear_value, debugstr_guid(riid), (void *)resource);

    if (FAILED(hr = begin_create(device, "CreateCommittedResource", riid, resource, true)))
        return hr;
    if (!check_clear_value("CreateCommittedResource", desc, optimized_clear_value))
        return E_INVALIDARG;
    if (FAILED(hr = d3d12_committed_resource_create(device, heap_properties, heap_flags, desc, initial_state, &object)))
        return hr;
    return vkdml_return_interface((IUnknown *)&object->ID3D12Resource_iface, riid, resource);
}

static HRESULT STDMETHODCALLTYPE d3d12_device_CreateHeap(ID3D12Device *iface, const D3D12_HEAP_DESC *desc,
        REFIID riid, void **heap)
{
    struct d3d12_device *device = impl_from_ID3D12Device(iface);
    struct d3d12_heap *object;
    HRESULT hr;

    TRACE("iface %p, desc %p, riid %s, heap %p.", (void *)iface, (const void *)desc, debugstr_guid(riid), (void *)heap);

    if (FAILED(hr = begin_create(device, "CreateHeap", riid, heap, true)))
        return hr;
    if (FAILED(hr = d3d12_heap_create(device, desc, &object)))
        return hr;
    return vkdml_return_interface((IUnknown *)&object->ID3D12Heap_iface, riid, heap);
}

static HRESULT STDMETHODCALLTYPE d3d12_device_CreatePlacedResource(ID3D12Device *iface, ID3D12Heap *heap,
        UINT64 heap_offset, const D3D12_RESOURCE_DESC *desc, D3D12_RESOURCE_STATES initial_state,
        const D3D12_CLEAR_VALUE *optimized_clear_value, REFIID riid, void **resource)
{
    struct d3d12_device *device = impl_from_ID3D12Device(iface);
    struct d3d12_resource *object;
    struct d3d12_heap *heap_object;
    HRESULT hr;

    TRACE("iface %p, heap %p, heap_offset %#" PRIx64 ", desc %p, initial_state %#x, optimized_clear_value %p, "
            "riid %s, resource %p.", (void *)iface, (void *)heap, (uint64_t)heap_offset, (const void *)desc,
            initial_state, (const void *)optimized_clear_value, debugstr_guid(riid), (void *)resource);

    if (FAILED(hr = begin_create(device, "CreatePlacedResource", riid, resource, true)))
        return hr;
    if (!(heap_object = unsafe_impl_from_ID3D12Heap(heap)) || heap_object->device != device)
    {
        ERR("CreatePlacedResource: pHeap %p is NULL, not a vkdml heap, or a heap of another device.", (void *)heap);
        return E_INVALIDARG;
    }
    if (!check_clear_value("CreatePlacedResource", desc, optimized_clear_value))
        return E_INVALIDARG;
    if (FAILED(hr = d3d12_placed_resource_create(device, heap_object, heap_offset, desc, initial_state, &object)))
        return hr;
    return vkdml_return_interface((IUnknown *)&object->ID3D12Resource_iface, riid, resource);
}

static HRESULT STDMETHODCALLTYPE d3d12_device_CreateReservedResource(ID3D12Device *iface,
        const D3D12_RESOURCE_DESC *desc, D3D12_RESOURCE_STATES initial_state,
        const D3D12_CLEAR_VALUE *optimized_clear_value, REFIID riid, void **resource)
{
    TRACE("iface %p, desc %p, initial_state %#x, optimized_clear_value %p, riid %s, resource %p.", (void *)iface,
            (const void *)desc, initial_state, (const void *)optimized_clear_value, debugstr_guid(riid),
            (void *)resource);
    /* D3D12_OPTIONS reports TiledResourcesTier NOT_SUPPORTED. */
    return not_implemented("CreateReservedResource", resource);
}

static HRESULT STDMETHODCALLTYPE d3d12_device_CreateSharedHandle(ID3D12Device *iface, ID3D12DeviceChild *object,
        const SECURITY_ATTRIBUTES *attributes, DWORD access, const WCHAR *name, HANDLE *handle)
{
    TRACE("iface %p, object %p, attributes %p, access %#x, name %p, handle %p.", (void *)iface, (void *)object,
            (const void *)attributes, (unsigned int)access, (const void *)name, (void *)handle);
    return not_implemented("CreateSharedHandle", (void **)handle);
}

static HRESULT STDMETHODCALLTYPE d3d12_device_OpenSharedHandle(ID3D12Device *iface, HANDLE handle,
        REFIID riid, void **object)
{
    TRACE("iface %p, handle %p, riid %s, object %p.", (void *)iface, handle, debugstr_guid(riid), (void *)object);
    return not_implemented("OpenSharedHandle", object);
}

static HRESULT STDMETHODCALLTYPE d3d12_device_OpenSharedHandleByName(ID3D12Device *iface, const WCHAR *name,
        DWORD access, HANDLE *handle)
{
    TRACE("iface %p, name %p, access %#x, handle %p.", (void *)iface, (const void *)name, (unsigned int)access,
            (void *)handle);
    return not_implemented("OpenSharedHandleByName", (void **)handle);
}

/* Memory is always resident: MakeResident and Evict only check their arguments. */
static HRESULT check_pageables(const char *method, UINT count, ID3D12Pageable *const *objects)
{
    UINT i;

    if (count && !objects)
    {
        ERR("%s: ppObjects is NULL but NumObjects is %u.", method, count);
        return E_INVALIDARG;
    }
    for (i = 0; i < count; ++i)
    {
        if (!objects[i])
        {
            ERR("%s: ppObjects[%u] is NULL.", method, i);
            return E_INVALIDARG;
        }
    }
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE d3d12_device_MakeResident(ID3D12Device *iface, UINT object_count,
        ID3D12Pageable *const *objects)
{
    TRACE("iface %p, object_count %u, objects %p.", (void *)iface, object_count, (const void *)objects);
    return check_pageables("MakeResident", object_count, objects);
}

static HRESULT STDMETHODCALLTYPE d3d12_device_Evict(ID3D12Device *iface, UINT object_count,
        ID3D12Pageable *const *objects)
{
    TRACE("iface %p, object_count %u, objects %p.", (void *)iface, object_count, (const void *)objects);
    return check_pageables("Evict", object_count, objects);
}

static HRESULT STDMETHODCALLTYPE d3d12_device_CreateFence(ID3D12Device *iface, UINT64 initial_value,
        D3D12_FENCE_FLAGS flags, REFIID riid, void **fence)
{
    struct d3d12_device *device = impl_from_ID3D12Device(iface);
    struct d3d12_fence *object;
    HRESULT hr;

    TRACE("iface %p, initial_value %#" PRIx64 ", flags %#x, riid %s, fence %p.", (void *)iface,
            (uint64_t)initial_value, flags, debugstr_guid(riid), (void *)fence);

    if (FAILED(hr = begin_create(device, "CreateFence", riid, fence, false)))
        return hr;
    if (FAILED(hr = d3d12_fence_create(device, initial_value, flags, &object)))
        return hr;
    return vkdml_return_interface((IUnknown *)&object->ID3D12Fence_iface, riid, fence);
}

static HRESULT STDMETHODCALLTYPE d3d12_device_GetDeviceRemovedReason(ID3D12Device *iface)
{
    struct d3d12_device *device = impl_from_ID3D12Device(iface);

    TRACE("iface %p.", (void *)iface);
    return atomic_load(&device->removed_reason);
}

/* A buffer is one subresource: one row of Width bytes. */
static void STDMETHODCALLTYPE d3d12_device_GetCopyableFootprints(ID3D12Device *iface,
        const D3D12_RESOURCE_DESC *desc, UINT first_subresource, UINT subresource_count, UINT64 base_offset,
        D3D12_PLACED_SUBRESOURCE_FOOTPRINT *layouts, UINT *row_counts, UINT64 *row_sizes, UINT64 *total_bytes)
{
    static const char method[] = "GetCopyableFootprints";
    UINT64 width;

    TRACE("iface %p, desc %p, first_subresource %u, subresource_count %u, base_offset %#" PRIx64 ", layouts %p, "
            "row_counts %p, row_sizes %p, total_bytes %p.", (void *)iface, (const void *)desc, first_subresource,
            subresource_count, (uint64_t)base_offset, (void *)layouts, (void *)row_counts, (void *)row_sizes,
            (void *)total_bytes);

    /* D3D12 answers invalid input with *pTotalBytes = UINT64_MAX. */
    if (total_bytes)
        *total_bytes = UINT64_MAX;
    if (!desc)
    {
        ERR("%s: pResourceDesc is NULL.", method);
        return;
    }
    if (desc->Dimension != D3D12_RESOURCE_DIMENSION_BUFFER)
    {
        ERR("%s: pResourceDesc->Dimension %#x: only buffers exist in the buffer-only compute subset.", method,
                desc->Dimension);
        return;
    }
    if (first_subresource > 1 || subresource_count > 1 - first_subresource)
    {
        ERR("%s: FirstSubresource %u, NumSubresources %u: a buffer has one subresource (0).", method,
                first_subresource, subresource_count);
        return;
    }
    width = desc->Width;
    /* The footprint's Width and RowPitch are UINTs; RowPitch is 256-aligned as for every footprint. */
    if (!width || width > UINT32_MAX - (D3D12_TEXTURE_DATA_PITCH_ALIGNMENT - 1))
    {
        ERR("%s: pResourceDesc->Width %" PRIu64 " must be 1 to %u for a footprint.", method, (uint64_t)width,
                UINT32_MAX - (D3D12_TEXTURE_DATA_PITCH_ALIGNMENT - 1));
        return;
    }
    if (subresource_count)
    {
        if (layouts)
        {
            layouts[0].Offset = base_offset;
            layouts[0].Footprint.Format = desc->Format;
            layouts[0].Footprint.Width = (UINT)width;
            layouts[0].Footprint.Height = 1;
            layouts[0].Footprint.Depth = 1;
            layouts[0].Footprint.RowPitch = (UINT)VKDML_ALIGN_UP(width, D3D12_TEXTURE_DATA_PITCH_ALIGNMENT);
        }
        if (row_counts)
            row_counts[0] = 1;
        if (row_sizes)
            row_sizes[0] = width;
    }
    if (total_bytes)
        *total_bytes = subresource_count ? width : 0;
}

static HRESULT STDMETHODCALLTYPE d3d12_device_CreateQueryHeap(ID3D12Device *iface, const D3D12_QUERY_HEAP_DESC *desc,
        REFIID riid, void **heap)
{
    TRACE("iface %p, desc %p, riid %s, heap %p.", (void *)iface, (const void *)desc, debugstr_guid(riid), (void *)heap);
    return not_implemented("CreateQueryHeap", heap);
}

static HRESULT STDMETHODCALLTYPE d3d12_device_SetStablePowerState(ID3D12Device *iface, BOOL enable)
{
    TRACE("iface %p, enable %d.", (void *)iface, enable);
    /* Clocks are the driver's business in Vulkan; accepting keeps benchmarking tools going. */
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE d3d12_device_CreateCommandSignature(ID3D12Device *iface,
        const D3D12_COMMAND_SIGNATURE_DESC *desc, ID3D12RootSignature *root_signature, REFIID riid,
        void **command_signature)
{
    TRACE("iface %p, desc %p, root_signature %p, riid %s, command_signature %p.", (void *)iface, (const void *)desc,
            (void *)root_signature, debugstr_guid(riid), (void *)command_signature);
    return not_implemented("CreateCommandSignature", command_signature);
}

static void STDMETHODCALLTYPE d3d12_device_GetResourceTiling(ID3D12Device *iface, ID3D12Resource *resource,
        UINT *total_tile_count, D3D12_PACKED_MIP_INFO *packed_mip_info, D3D12_TILE_SHAPE *standard_tile_shape,
        UINT *sub_resource_tiling_count, UINT first_sub_resource_tiling,
        D3D12_SUBRESOURCE_TILING *sub_resource_tilings)
{
    TRACE("iface %p, resource %p, total_tile_count %p, packed_mip_info %p, standard_tile_shape %p, "
            "sub_resource_tiling_count %p, first_sub_resource_tiling %u, sub_resource_tilings %p.", (void *)iface,
            (void *)resource, (void *)total_tile_count, (void *)packed_mip_info, (void *)standard_tile_shape,
            (void *)sub_resource_tiling_count, first_sub_resource_tiling, (void *)sub_resource_tilings);
    not_implemented("GetResourceTiling", NULL);
}

#if VKDML_RETVAL_WIN32
static LUID * STDMETHODCALLTYPE d3d12_device_GetAdapterLuid(ID3D12Device *iface, LUID *luid)
{
    TRACE("iface %p, luid %p.", (void *)iface, (void *)luid);
    *luid = impl_from_ID3D12Device(iface)->adapter_luid;
    return luid;
}
#else
static LUID STDMETHODCALLTYPE d3d12_device_GetAdapterLuid(ID3D12Device *iface)
{
    TRACE("iface %p.", (void *)iface);
    return impl_from_ID3D12Device(iface)->adapter_luid;
}
#endif

static const struct ID3D12DeviceVtbl d3d12_device_vtbl =
{
    /* IUnknown methods */
    d3d12_device_QueryInterface,
    d3d12_device_AddRef,
    d3d12_device_Release,
    /* ID3D12Object methods */
    d3d12_device_GetPrivateData,
    d3d12_device_SetPrivateData,
    d3d12_device_SetPrivateDataInterface,
    d3d12_device_SetName,
    /* ID3D12Device methods */
    d3d12_device_GetNodeCount,
    d3d12_device_CreateCommandQueue,
    d3d12_device_CreateCommandAllocator,
    d3d12_device_CreateGraphicsPipelineState,
    d3d12_device_CreateComputePipelineState,
    d3d12_device_CreateCommandList,
    d3d12_device_CheckFeatureSupport,
    d3d12_device_CreateDescriptorHeap,
    d3d12_device_GetDescriptorHandleIncrementSize,
    d3d12_device_CreateRootSignature,
    d3d12_device_CreateConstantBufferView,
    d3d12_device_CreateShaderResourceView,
    d3d12_device_CreateUnorderedAccessView,
    d3d12_device_CreateRenderTargetView,
    d3d12_device_CreateDepthStencilView,
    d3d12_device_CreateSampler,
    d3d12_device_CopyDescriptors,
    d3d12_device_CopyDescriptorsSimple,
    d3d12_device_GetResourceAllocationInfo,
    d3d12_device_GetCustomHeapProperties,
    d3d12_device_CreateCommittedResource,
    d3d12_device_CreateHeap,
    d3d12_device_CreatePlacedResource,
    d3d12_device_CreateReservedResource,
    d3d12_device_CreateSharedHandle,
    d3d12_device_OpenSharedHandle,
    d3d12_device_OpenSharedHandleByName,
    d3d12_device_MakeResident,
    d3d12_device_Evict,
    d3d12_device_CreateFence,
    d3d12_device_GetDeviceRemovedReason,
    d3d12_device_GetCopyableFootprints,
    d3d12_device_CreateQueryHeap,
    d3d12_device_SetStablePowerState,
    d3d12_device_CreateCommandSignature,
    d3d12_device_GetResourceTiling,
    d3d12_device_GetAdapterLuid,
};

_Static_assert(sizeof(struct ID3D12DeviceVtbl) == 44 * sizeof(void *), "ID3D12Device has 44 slots");

struct d3d12_device *unsafe_impl_from_ID3D12Device(ID3D12Device *iface)
{
    if (!iface || iface->lpVtbl != &d3d12_device_vtbl)
        return NULL;
    return impl_from_ID3D12Device(iface);
}

/* ---- Creation ---- */

/* D3D12 identifies adapters by LUID: Vulkan's deviceLUID where the driver has one (Windows), else
 * a value folded from the device UUID, stable across processes like a LUID within a boot. */
static LUID adapter_luid(struct vkdml_vk_device *vk)
{
    const struct vkdml_vk_instance_procs *vk_procs = &vk->instance->procs;
    VkPhysicalDeviceIDProperties id = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
    VkPhysicalDeviceProperties2 properties = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &id};
    uint8_t bytes[VK_LUID_SIZE];
    LUID luid;
    unsigned int i;

    VK_CALL(vkGetPhysicalDeviceProperties2(vk->physical_device, &properties));
    if (id.deviceLUIDValid)
    {
        memcpy(bytes, id.deviceLUID, sizeof(bytes));
    }
    else
    {
        for (i = 0; i < sizeof(bytes); ++i)
            bytes[i] = id.deviceUUID[i] ^ id.deviceUUID[i + sizeof(bytes)];
    }
    memcpy(&luid.LowPart, bytes, sizeof(luid.LowPart));
    memcpy(&luid.HighPart, bytes + sizeof(luid.LowPart), sizeof(luid.HighPart));
    return luid;
}

static HRESULT hresult_from_creation_failure(VkResult vr)
{
    if (vr == VK_ERROR_OUT_OF_HOST_MEMORY || vr == VK_ERROR_OUT_OF_DEVICE_MEMORY)
        return E_OUTOFMEMORY;
    /* No loader, no driver, no adapter with vkdml's requirements: all logged where found. */
    return DXGI_ERROR_UNSUPPORTED;
}

/* What every shim device needs once its Vulkan instance and device exist. */
static VkResult d3d12_device_init_common(struct d3d12_device *device)
{
    VkResult vr;

    device->ID3D12Device_iface.lpVtbl = &d3d12_device_vtbl;
    atomic_init(&device->refcount, 1);
    atomic_init(&device->removed_reason, S_OK);
    atomic_init(&device->lose_next_submission, false);
    device->object_name_mutex = (struct vkdml_mutex)VKDML_MUTEX_INIT;
    device->heaps_mutex = (struct vkdml_mutex)VKDML_MUTEX_INIT;
    device->heaps = NULL;
    device->waiter = NULL;
    if ((vr = vkdml_vk_get_memory_info(device->vk, &device->memory_info)) < 0)
        return vr;
    device->adapter_luid = adapter_luid(device->vk);
    vkdml_vk_clears_init(&device->clears);
    vkdml_private_store_init(&device->private_store);
    return VK_SUCCESS;
}

static HRESULT d3d12_device_init(struct d3d12_device *device, const char *selector)
{
    struct vkdml_vk_instance_options options = {.application_name = "vkdml D3D12 shim"};
    int index;
    VkResult vr;

    /* VKDML_VALIDATION=1 turns the validation layer on inside vkdml_vk_instance_create. */
    if ((vr = vkdml_vk_instance_create(&options, &device->vk_instance)) < 0)
        return hresult_from_creation_failure(vr);
    if ((index = vkdml_vk_select_adapter(device->vk_instance, selector)) < 0)
    {
        vr = VK_ERROR_INITIALIZATION_FAILED;
        goto out_destroy_instance;
    }
    if ((vr = vkdml_vk_device_create(device->vk_instance, index, &device->vk)) < 0)
        goto out_destroy_instance;
    if ((vr = d3d12_device_init_common(device)) < 0)
        goto out_destroy_device;
    return S_OK;

out_destroy_device:
    vkdml_vk_device_destroy(device->vk);
out_destroy_instance:
    vkdml_vk_instance_destroy(device->vk_instance);
    return hresult_from_creation_failure(vr);
}

HRESULT d3d12_device_create_from_vk(struct vkdml_vk_instance *instance, struct vkdml_vk_device *vk,
        struct d3d12_device **out)
{
    struct d3d12_device *device;
    VkResult vr = VK_ERROR_OUT_OF_HOST_MEMORY;

    *out = NULL;
    if (!(device = calloc(1, sizeof(*device))))
        goto fail;
    device->vk_instance = instance;
    device->vk = vk;
    if ((vr = d3d12_device_init_common(device)) < 0)
        goto fail;
    TRACE("Created device %p on the engine's VkDevice %p (\"%s\").", (void *)device, (void *)vk->vk_device,
            vk->adapter.name);
    *out = device;
    return S_OK;

fail:
    free(device);
    vkdml_vk_device_destroy(vk);
    vkdml_vk_instance_destroy(instance);
    return hresult_from_creation_failure(vr);
}

/* `selector` as in vkdml_select_adapter(); NULL: VKDML_DEVICE, else the preferred adapter. */
static HRESULT d3d12_device_create_from_selector(const char *selector, struct d3d12_device **device)
{
    struct d3d12_device *object;
    HRESULT hr;

    *device = NULL;
    if (!(object = calloc(1, sizeof(*object))))
        return E_OUTOFMEMORY;
    if (FAILED(hr = d3d12_device_init(object, selector)))
    {
        free(object);
        return hr;
    }
    TRACE("Created device %p on adapter %u \"%s\".", (void *)object, object->vk->adapter.index,
            object->vk->adapter.name);
    *device = object;
    return S_OK;
}

HRESULT d3d12_device_create(int adapter_index, struct d3d12_device **device)
{
    char selector[16];

    /* A decimal selector picks exactly that index, and still checks vkdml's requirements. */
    if (adapter_index < 0)
        return d3d12_device_create_from_selector(NULL, device);
    snprintf(selector, sizeof(selector), "%d", adapter_index);
    return d3d12_device_create_from_selector(selector, device);
}

static HRESULT create_device_interface(const char *selector, REFIID riid, void **out)
{
    struct d3d12_device *device;
    HRESULT hr;

    if (FAILED(hr = d3d12_device_create_from_selector(selector, &device)))
        return hr;
    /* With out == NULL this only checks that the device could be created: S_FALSE, as D3D12. */
    return vkdml_return_interface((IUnknown *)&device->ID3D12Device_iface, riid, out);
}

VKDML_API int32_t vkdml_create_d3d12_device(const char *adapter_selector, const void *riid, void **device)
{
    TRACE("adapter_selector \"%s\", riid %s, device %p.", adapter_selector ? adapter_selector : "(null)",
            debugstr_guid(riid), (void *)device);

    if (device)
        *device = NULL;
    return create_device_interface(adapter_selector, riid ? riid : &IID_ID3D12Device, device);
}

#ifndef _WIN32
/* On Windows D3D12CreateDevice is d3d12.dll's; the shim is reached through vkdml_create_d3d12_device. */
__attribute__((visibility("default"))) HRESULT WINAPI D3D12CreateDevice(IUnknown *adapter,
        D3D_FEATURE_LEVEL minimum_feature_level, REFIID riid, void **device)
{
    TRACE("adapter %p, minimum_feature_level %#x, riid %s, device %p.", (void *)adapter, minimum_feature_level,
            debugstr_guid(riid), (void *)device);

    if (device)
        *device = NULL;
    if (adapter)
    {
        ERR("D3D12CreateDevice: pAdapter %p: vkdml has no DXGI adapters; pass NULL for the default adapter "
                "(VKDML_DEVICE selects it) or call vkdml_create_d3d12_device() with an adapter selector.",
                (void *)adapter);
        return E_INVALIDARG;
    }
    if (minimum_feature_level != FEATURE_LEVEL_1_0_CORE && minimum_feature_level != FEATURE_LEVEL_1_0_GENERIC
            && (minimum_feature_level < D3D_FEATURE_LEVEL_11_0 || minimum_feature_level > HIGHEST_FEATURE_LEVEL))
    {
        ERR("D3D12CreateDevice: MinimumFeatureLevel %#x: D3D12 devices are created at 11_0 (0xb000) to 12_1 "
                "(0xc100), or 1_0_CORE (0x1000).", minimum_feature_level);
        return E_INVALIDARG;
    }
    if (!riid)
    {
        ERR("D3D12CreateDevice: riid is NULL; it must name the interface to return (IID_ID3D12Device).");
        return E_INVALIDARG;
    }
    return create_device_interface(NULL, riid, device);
}
#endif
