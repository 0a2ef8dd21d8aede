/*
 * ID3D12Resource (buffers only: committed, or placed in a heap) and ID3D12Heap, and the mapping of
 * D3D12 heap types to Vulkan memory (after vkd3d-proton): DEFAULT → device-local; UPLOAD →
 * host-visible coherent (device-local too on UMA/ReBAR); READBACK → host-visible cached; CUSTOM by
 * its CPU page property. Every buffer is a VkBuffer with storage, transfer and device-address usage;
 * host-visible memory stays mapped, so Map returns a pointer into the one persistent mapping.
 */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "d3d12_private.h"

#define PLACEMENT_ALIGNMENT ((UINT64)D3D12_DEFAULT_RESOURCE_PLACEMENT_ALIGNMENT)

/* Heap flags by value: mingw-w64 10's d3d12.h predates these names. */
#define HEAP_FLAG_ALLOW_SHADER_ATOMICS 0x400
#define HEAP_FLAG_CREATE_NOT_RESIDENT 0x800
#define HEAP_FLAG_CREATE_NOT_ZEROED 0x1000

/* Heap flags that change nothing for buffers here: sharing is a creation-time promise only (there
 * are no shared handles), residency is always on. */
#define SUPPORTED_HEAP_FLAGS (D3D12_HEAP_FLAG_SHARED | D3D12_HEAP_FLAG_DENY_RT_DS_TEXTURES \
        | D3D12_HEAP_FLAG_DENY_NON_RT_DS_TEXTURES | HEAP_FLAG_ALLOW_SHADER_ATOMICS \
        | HEAP_FLAG_CREATE_NOT_RESIDENT | HEAP_FLAG_CREATE_NOT_ZEROED)

static const struct ID3D12ResourceVtbl d3d12_resource_vtbl;
static const struct ID3D12HeapVtbl d3d12_heap_vtbl;

/* ---- Heap properties and memory kinds ---- */

static const char *heap_type_name(D3D12_HEAP_TYPE type)
{
    switch (type)
    {
        case D3D12_HEAP_TYPE_DEFAULT: return "D3D12_HEAP_TYPE_DEFAULT";
        case D3D12_HEAP_TYPE_UPLOAD: return "D3D12_HEAP_TYPE_UPLOAD";
        case D3D12_HEAP_TYPE_READBACK: return "D3D12_HEAP_TYPE_READBACK";
        case D3D12_HEAP_TYPE_CUSTOM: return "D3D12_HEAP_TYPE_CUSTOM";
        default: return vkdml_debug_sprintf("heap type %#x", type);
    }
}

static HRESULT custom_memory_kind(const D3D12_HEAP_PROPERTIES *properties, enum vkdml_vk_memory_kind *kind,
        const char *caller)
{
    if (properties->MemoryPoolPreference != D3D12_MEMORY_POOL_L0
            && properties->MemoryPoolPreference != D3D12_MEMORY_POOL_L1)
    {
        ERR("%s: pHeapProperties->MemoryPoolPreference %#x: D3D12_HEAP_TYPE_CUSTOM needs D3D12_MEMORY_POOL_L0 or L1.",
                caller, properties->MemoryPoolPreference);
        return E_INVALIDARG;
    }
    switch (properties->CPUPageProperty)
    {
        case D3D12_CPU_PAGE_PROPERTY_NOT_AVAILABLE:
            *kind = VKDML_VK_MEMORY_DEVICE;
            return S_OK;
        case D3D12_CPU_PAGE_PROPERTY_WRITE_COMBINE:
            *kind = VKDML_VK_MEMORY_UPLOAD;
            break;
        case D3D12_CPU_PAGE_PROPERTY_WRITE_BACK:
            *kind = VKDML_VK_MEMORY_READBACK;
            break;
        default:
            ERR("%s: pHeapProperties->CPUPageProperty %#x: D3D12_HEAP_TYPE_CUSTOM needs NOT_AVAILABLE, "
                    "WRITE_COMBINE or WRITE_BACK.", caller, properties->CPUPageProperty);
            return E_INVALIDARG;
    }
    if (properties->MemoryPoolPreference == D3D12_MEMORY_POOL_L1)
    {
        ERR("%s: pHeapProperties: D3D12_MEMORY_POOL_L1 is not CPU-accessible, so CPUPageProperty %#x must be "
                "D3D12_CPU_PAGE_PROPERTY_NOT_AVAILABLE.", caller, properties->CPUPageProperty);
        return E_INVALIDARG;
    }
    return S_OK;
}

HRESULT d3d12_memory_kind_from_heap_properties(const D3D12_HEAP_PROPERTIES *properties,
        enum vkdml_vk_memory_kind *kind, const char *caller)
{
    if (properties->Type == D3D12_HEAP_TYPE_CUSTOM)
        return custom_memory_kind(properties, kind, caller);
    if (properties->Type != D3D12_HEAP_TYPE_DEFAULT && properties->Type != D3D12_HEAP_TYPE_UPLOAD
            && properties->Type != D3D12_HEAP_TYPE_READBACK)
    {
        ERR("%s: pHeapProperties->Type %#x is not DEFAULT, UPLOAD, READBACK or CUSTOM.", caller, properties->Type);
        return E_INVALIDARG;
    }
    if (properties->CPUPageProperty != D3D12_CPU_PAGE_PROPERTY_UNKNOWN
            || properties->MemoryPoolPreference != D3D12_MEMORY_POOL_UNKNOWN)
    {
        ERR("%s: pHeapProperties: CPUPageProperty %#x and MemoryPoolPreference %#x must be UNKNOWN for %s; "
                "only D3D12_HEAP_TYPE_CUSTOM sets them.", caller, properties->CPUPageProperty,
                properties->MemoryPoolPreference, heap_type_name(properties->Type));
        return E_INVALIDARG;
    }
    if (properties->Type == D3D12_HEAP_TYPE_DEFAULT)
        *kind = VKDML_VK_MEMORY_DEVICE;
    else if (properties->Type == D3D12_HEAP_TYPE_UPLOAD)
        *kind = VKDML_VK_MEMORY_UPLOAD;
    else
        *kind = VKDML_VK_MEMORY_READBACK;
    return S_OK;
}

/* The checks that need the device; `normalised` gets node masks 0 → 1, as D3D12 reports them. */
static HRESULT validate_heap_properties(struct d3d12_device *device, const D3D12_HEAP_PROPERTIES *properties,
        enum vkdml_vk_memory_kind *kind, D3D12_HEAP_PROPERTIES *normalised, const char *caller)
{
    HRESULT hr;

    if (!properties)
    {
        ERR("%s: pHeapProperties is NULL.", caller);
        return E_INVALIDARG;
    }
    if (properties->CreationNodeMask > 1 || properties->VisibleNodeMask > 1)
    {
        ERR("%s: pHeapProperties: CreationNodeMask %#x, VisibleNodeMask %#x: the device has one node (mask 0 or 1).",
                caller, properties->CreationNodeMask, properties->VisibleNodeMask);
        return E_INVALIDARG;
    }
    if (FAILED(hr = d3d12_memory_kind_from_heap_properties(properties, kind, caller)))
        return hr;
    if (properties->Type == D3D12_HEAP_TYPE_CUSTOM && properties->MemoryPoolPreference == D3D12_MEMORY_POOL_L1
            && device->memory_info.uma)
    {
        ERR("%s: pHeapProperties->MemoryPoolPreference D3D12_MEMORY_POOL_L1 exists only on NUMA (discrete) "
                "adapters; this one is UMA (D3D12_FEATURE_ARCHITECTURE): use L0.", caller);
        return E_INVALIDARG;
    }
    *normalised = *properties;
    normalised->CreationNodeMask = 1;
    normalised->VisibleNodeMask = 1;
    return S_OK;
}

D3D12_HEAP_PROPERTIES d3d12_device_custom_heap_properties(struct d3d12_device *device, D3D12_HEAP_TYPE type)
{
    const struct vkdml_vk_memory_info *info = &device->memory_info;
    D3D12_HEAP_PROPERTIES properties =
    {
        .Type = D3D12_HEAP_TYPE_CUSTOM,
        .CreationNodeMask = 1,
        .VisibleNodeMask = 1,
    };

    /* D3D12's documented equivalents: on UMA everything is L0, and on cache-coherent UMA the upload
     * heap is write-back too. */
    switch (type)
    {
        case D3D12_HEAP_TYPE_DEFAULT:
            properties.CPUPageProperty = D3D12_CPU_PAGE_PROPERTY_NOT_AVAILABLE;
            properties.MemoryPoolPreference = info->uma ? D3D12_MEMORY_POOL_L0 : D3D12_MEMORY_POOL_L1;
            break;
        case D3D12_HEAP_TYPE_UPLOAD:
            properties.CPUPageProperty = info->cache_coherent_uma ? D3D12_CPU_PAGE_PROPERTY_WRITE_BACK
                    : D3D12_CPU_PAGE_PROPERTY_WRITE_COMBINE;
            properties.MemoryPoolPreference = D3D12_MEMORY_POOL_L0;
            break;
        case D3D12_HEAP_TYPE_READBACK:
            properties.CPUPageProperty = D3D12_CPU_PAGE_PROPERTY_WRITE_BACK;
            properties.MemoryPoolPreference = D3D12_MEMORY_POOL_L0;
            break;
        default:
            ERR("GetCustomHeapProperties: heapType %s: only DEFAULT, UPLOAD and READBACK have custom equivalents.",
                    heap_type_name(type));
            break;
    }
    return properties;
}

static HRESULT validate_heap_flags(D3D12_HEAP_FLAGS flags, const char *caller)
{
    if (flags & D3D12_HEAP_FLAG_DENY_BUFFERS)
    {
        ERR("%s: HeapFlags %#x include D3D12_HEAP_FLAG_DENY_BUFFERS: the buffer-only compute subset has only buffers.",
                caller, flags);
        return E_INVALIDARG;
    }
    if (flags & ~SUPPORTED_HEAP_FLAGS)
    {
        ERR("%s: HeapFlags %#x: flags %#x (display, cross-adapter, hardware-protected, write-watch) are not supported.",
                caller, flags, flags & ~SUPPORTED_HEAP_FLAGS);
        return E_INVALIDARG;
    }
    return S_OK;
}

/* ---- Buffer descriptions ---- */

HRESULT d3d12_validate_buffer_desc(struct d3d12_device *device, const D3D12_RESOURCE_DESC *desc, const char *caller)
{
    const struct vkdml_vk_memory_info *info = &device->memory_info;
    UINT64 limit = VKDML_MIN(info->max_allocation_size, info->max_buffer_size);

    if (!desc)
    {
        ERR("%s: pDesc is NULL.", caller);
        return E_INVALIDARG;
    }
    if (desc->Dimension != D3D12_RESOURCE_DIMENSION_BUFFER)
    {
        ERR("%s: pDesc->Dimension %#x: the D3D12 shim is the buffer-only compute subset; only "
                "D3D12_RESOURCE_DIMENSION_BUFFER resources exist.", caller, desc->Dimension);
        return E_INVALIDARG;
    }
    if (desc->Alignment && desc->Alignment != PLACEMENT_ALIGNMENT)
    {
        ERR("%s: pDesc->Alignment %" PRIu64 ": a buffer's alignment is 0 or 65536.", caller, (uint64_t)desc->Alignment);
        return E_INVALIDARG;
    }
    if (!desc->Width)
    {
        ERR("%s: pDesc->Width is 0: a buffer has at least one byte.", caller);
        return E_INVALIDARG;
    }
    if (desc->Height != 1 || desc->DepthOrArraySize != 1 || desc->MipLevels != 1)
    {
        ERR("%s: pDesc: Height %u, DepthOrArraySize %u, MipLevels %u must all be 1 for a buffer.", caller,
                desc->Height, desc->DepthOrArraySize, desc->MipLevels);
        return E_INVALIDARG;
    }
    if (desc->Format != DXGI_FORMAT_UNKNOWN || desc->SampleDesc.Count != 1 || desc->SampleDesc.Quality)
    {
        ERR("%s: pDesc: Format %#x, SampleDesc {%u, %u}: a buffer has DXGI_FORMAT_UNKNOWN and SampleDesc {1, 0}.",
                caller, desc->Format, desc->SampleDesc.Count, desc->SampleDesc.Quality);
        return E_INVALIDARG;
    }
    if (desc->Layout != D3D12_TEXTURE_LAYOUT_ROW_MAJOR)
    {
        ERR("%s: pDesc->Layout %#x: a buffer's layout is D3D12_TEXTURE_LAYOUT_ROW_MAJOR.", caller, desc->Layout);
        return E_INVALIDARG;
    }
    /* Render-target, depth, simultaneous-access and deny-SRV flags are texture-only in D3D12. */
    if (desc->Flags & ~D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS)
    {
        ERR("%s: pDesc->Flags %#x: a buffer takes only D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS here.", caller,
                desc->Flags);
        return E_INVALIDARG;
    }
    /* Past what the device can ever address (D3D12_OPTIONS' MaxGPUVirtualAddressBitsPerResource says as
     * much) is an invalid description; a size that fits but finds no memory is E_OUTOFMEMORY later. */
    if (desc->Width > limit)
    {
        ERR("%s: pDesc->Width %" PRIu64 " exceeds the device's largest buffer, %" PRIu64 " bytes "
                "(maxMemoryAllocationSize / maxBufferSize).", caller, (uint64_t)desc->Width, (uint64_t)limit);
        return E_INVALIDARG;
    }
    return S_OK;
}

/* D3D12's placement rules for buffers and initial states. */
static HRESULT validate_buffer_placement(const D3D12_HEAP_PROPERTIES *properties, const D3D12_RESOURCE_DESC *desc,
        D3D12_RESOURCE_STATES state, const char *caller)
{
    if ((properties->Type == D3D12_HEAP_TYPE_UPLOAD || properties->Type == D3D12_HEAP_TYPE_READBACK)
            && (desc->Flags & D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS))
    {
        ERR("%s: pDesc->Flags has D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS, which %s does not allow; "
                "use DEFAULT or CUSTOM.", caller, heap_type_name(properties->Type));
        return E_INVALIDARG;
    }
    if (properties->Type == D3D12_HEAP_TYPE_UPLOAD && state != D3D12_RESOURCE_STATE_GENERIC_READ)
    {
        ERR("%s: pHeapProperties->Type D3D12_HEAP_TYPE_UPLOAD needs InitialResourceState "
                "D3D12_RESOURCE_STATE_GENERIC_READ, got %#x.", caller, state);
        return E_INVALIDARG;
    }
    if (properties->Type == D3D12_HEAP_TYPE_READBACK && state != D3D12_RESOURCE_STATE_COPY_DEST)
    {
        ERR("%s: pHeapProperties->Type D3D12_HEAP_TYPE_READBACK needs InitialResourceState "
                "D3D12_RESOURCE_STATE_COPY_DEST, got %#x.", caller, state);
        return E_INVALIDARG;
    }
    return S_OK;
}

static bool is_cpu_accessible(const D3D12_HEAP_PROPERTIES *properties)
{
    if (properties->Type == D3D12_HEAP_TYPE_CUSTOM)
        return properties->CPUPageProperty != D3D12_CPU_PAGE_PROPERTY_NOT_AVAILABLE;
    return properties->Type == D3D12_HEAP_TYPE_UPLOAD || properties->Type == D3D12_HEAP_TYPE_READBACK;
}

/* D3D12 hands out committed resources and heaps zeroed unless CREATE_NOT_ZEROED: memset where the
 * CPU reaches the memory, else a GPU clear ordered before every later submission. */
static HRESULT zero_new_memory(struct d3d12_device *device, const struct vkdml_vk_memory *memory, VkDeviceSize size,
        D3D12_HEAP_FLAGS flags, const char *caller)
{
    VkResult vr;

    if (flags & HEAP_FLAG_CREATE_NOT_ZEROED)
        return S_OK;
    if (memory->mapped)
    {
        memset(memory->mapped, 0, size);
        if (!(memory->flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT))
            vkdml_vk_memory_flush(device->vk, memory->vk_memory, memory->size, 0, size);
        return S_OK;
    }
    if ((vr = vkdml_vk_clear_memory(device->vk, &device->clears, memory, size)) < 0)
    {
        ERR("%s: zeroing the new memory on the GPU failed: %s.", caller, vkdml_vk_result_string(vr));
        return d3d12_device_check_vk_result(device, vr);
    }
    return S_OK;
}

/* ---- ID3D12Heap ---- */

static inline struct d3d12_heap *impl_from_ID3D12Heap(ID3D12Heap *iface)
{
    return CONTAINING_RECORD(iface, struct d3d12_heap, ID3D12Heap_iface);
}

static HRESULT STDMETHODCALLTYPE d3d12_heap_QueryInterface(ID3D12Heap *iface, REFIID riid, void **object)
{
    static const IID *const iids[] =
    {
        &IID_ID3D12Heap, &IID_ID3D12Pageable, &IID_ID3D12DeviceChild, &IID_ID3D12Object, &IID_IUnknown
    };

    TRACE("iface %p, riid %s, object %p.", (void *)iface, debugstr_guid(riid), (void *)object);
    return vkdml_query_interface((IUnknown *)iface, iids, ARRAY_SIZE(iids), riid, object);
}

static ULONG STDMETHODCALLTYPE d3d12_heap_AddRef(ID3D12Heap *iface)
{
    struct d3d12_heap *heap = impl_from_ID3D12Heap(iface);
    ULONG refcount = vkdml_refcount_increment(&heap->refcount);

    TRACE("%p increasing refcount to %u.", (void *)heap, (unsigned int)refcount);
    return refcount;
}

static void d3d12_heap_destroy(struct d3d12_heap *heap)
{
    struct d3d12_device *device = heap->device;

    vkdml_private_store_destroy(&heap->private_store);
    vkdml_vk_clears_wait_memory(device->vk, &device->clears, heap->memory);
    vkdml_vk_memory_free(device->vk, &heap->allocation);
    free(heap);
    d3d12_device_release(device);
}

static void d3d12_heap_internal_release(struct d3d12_heap *heap)
{
    if (!vkdml_refcount_decrement(&heap->internal_refcount))
        d3d12_heap_destroy(heap);
}

static ULONG STDMETHODCALLTYPE d3d12_heap_Release(ID3D12Heap *iface)
{
    struct d3d12_heap *heap = impl_from_ID3D12Heap(iface);
    ULONG refcount = vkdml_refcount_decrement(&heap->refcount);

    TRACE("%p decreasing refcount to %u.", (void *)heap, (unsigned int)refcount);
    if (!refcount)
        d3d12_heap_internal_release(heap);
    return refcount;
}

VKDML_IMPLEMENT_PRIVATE_DATA(d3d12_heap, ID3D12Heap, impl_from_ID3D12Heap, const IUnknown *)

static HRESULT STDMETHODCALLTYPE d3d12_heap_SetName(ID3D12Heap *iface, const WCHAR *name)
{
    struct d3d12_heap *heap = impl_from_ID3D12Heap(iface);

    TRACE("iface %p, name %p.", (void *)iface, (const void *)name);
    return d3d12_object_set_name(heap->device, &heap->private_store, VK_OBJECT_TYPE_DEVICE_MEMORY,
            (uint64_t)heap->memory, name);
}

D3D12_IMPLEMENT_GET_DEVICE(d3d12_heap, ID3D12Heap, impl_from_ID3D12Heap)

#if VKDML_RETVAL_WIN32
static D3D12_HEAP_DESC * STDMETHODCALLTYPE d3d12_heap_GetDesc(ID3D12Heap *iface, D3D12_HEAP_DESC *desc)
{
    TRACE("iface %p, desc %p.", (void *)iface, (void *)desc);
    *desc = impl_from_ID3D12Heap(iface)->desc;
    return desc;
}
#else
static D3D12_HEAP_DESC STDMETHODCALLTYPE d3d12_heap_GetDesc(ID3D12Heap *iface)
{
    TRACE("iface %p.", (void *)iface);
    return impl_from_ID3D12Heap(iface)->desc;
}
#endif

static const struct ID3D12HeapVtbl d3d12_heap_vtbl =
{
    /* IUnknown methods */
    d3d12_heap_QueryInterface,
    d3d12_heap_AddRef,
    d3d12_heap_Release,
    /* ID3D12Object methods */
    d3d12_heap_GetPrivateData,
    d3d12_heap_SetPrivateData,
    d3d12_heap_SetPrivateDataInterface,
    d3d12_heap_SetName,
    /* ID3D12DeviceChild methods */
    d3d12_heap_GetDevice,
    /* ID3D12Heap methods */
    d3d12_heap_GetDesc,
};

struct d3d12_heap *unsafe_impl_from_ID3D12Heap(ID3D12Heap *iface)
{
    if (!iface || iface->lpVtbl != &d3d12_heap_vtbl)
        return NULL;
    return impl_from_ID3D12Heap(iface);
}

static HRESULT validate_heap_desc(struct d3d12_device *device, const D3D12_HEAP_DESC *desc,
        enum vkdml_vk_memory_kind *kind, D3D12_HEAP_DESC *normalised)
{
    static const char method[] = "CreateHeap";
    /* A heap is cleared through one buffer spanning it, so it is a buffer's size at most. */
    UINT64 limit = VKDML_MIN(device->memory_info.max_allocation_size, device->memory_info.max_buffer_size);
    HRESULT hr;

    if (!desc)
    {
        ERR("%s: pDesc is NULL.", method);
        return E_INVALIDARG;
    }
    if (!desc->SizeInBytes)
    {
        ERR("%s: pDesc->SizeInBytes is 0.", method);
        return E_INVALIDARG;
    }
    if (desc->Alignment && desc->Alignment != PLACEMENT_ALIGNMENT
            && desc->Alignment != D3D12_DEFAULT_MSAA_RESOURCE_PLACEMENT_ALIGNMENT)
    {
        ERR("%s: pDesc->Alignment %" PRIu64 ": a heap's alignment is 0, 65536 or 4194304.", method,
                (uint64_t)desc->Alignment);
        return E_INVALIDARG;
    }
    *normalised = *desc;
    if (FAILED(hr = validate_heap_properties(device, &desc->Properties, kind, &normalised->Properties, method)))
        return hr;
    if (FAILED(hr = validate_heap_flags(desc->Flags, method)))
        return hr;
    if (!normalised->Alignment)
        normalised->Alignment = PLACEMENT_ALIGNMENT;
    if (desc->SizeInBytes > limit || VKDML_ALIGN_UP(desc->SizeInBytes, normalised->Alignment) > limit)
    {
        ERR("%s: pDesc->SizeInBytes %" PRIu64 " exceeds the device's largest allocation, %" PRIu64 " bytes "
                "(maxMemoryAllocationSize / maxBufferSize).", method, (uint64_t)desc->SizeInBytes, (uint64_t)limit);
        return E_INVALIDARG;
    }
    return S_OK;
}

HRESULT d3d12_heap_create(struct d3d12_device *device, const D3D12_HEAP_DESC *desc, struct d3d12_heap **heap)
{
    enum vkdml_vk_memory_kind kind;
    struct d3d12_heap *object;
    VkDeviceSize size;
    VkResult vr;
    HRESULT hr;

    *heap = NULL;
    if (!(object = calloc(1, sizeof(*object))))
    {
        ERR("CreateHeap: out of host memory.");
        return E_OUTOFMEMORY;
    }
    if (FAILED(hr = validate_heap_desc(device, desc, &kind, &object->desc)))
        goto fail;
    /* The memory is whole placement-alignment units, so any placed buffer fits as D3D12 computes it. */
    size = VKDML_ALIGN_UP(object->desc.SizeInBytes, object->desc.Alignment);
    if ((vr = vkdml_vk_memory_allocate(device->vk, size, device->memory_info.buffer_type_bits, kind,
            &object->allocation)) < 0)
    {
        ERR("CreateHeap: allocating %" PRIu64 " bytes for a %s heap failed: %s.", (uint64_t)size,
                heap_type_name(object->desc.Properties.Type), vkdml_vk_result_string(vr));
        hr = d3d12_device_check_vk_result(device, vr);
        goto fail;
    }
    if (FAILED(hr = zero_new_memory(device, &object->allocation, size, object->desc.Flags, "CreateHeap")))
    {
        vkdml_vk_memory_free(device->vk, &object->allocation);
        goto fail;
    }
    object->ID3D12Heap_iface.lpVtbl = &d3d12_heap_vtbl;
    atomic_init(&object->refcount, 1);
    atomic_init(&object->internal_refcount, 1);
    object->memory = object->allocation.vk_memory;
    object->mapped = object->allocation.mapped;
    vkdml_private_store_init(&object->private_store);
    d3d12_device_add_ref(object->device = device);
    TRACE("Created heap %p, %" PRIu64 " bytes of memory type %u.", (void *)object, (uint64_t)size,
            object->allocation.type_index);
    *heap = object;
    return S_OK;

fail:
    free(object);
    return hr;
}

/* ---- ID3D12Resource ---- */

static inline struct d3d12_resource *impl_from_ID3D12Resource(ID3D12Resource *iface)
{
    return CONTAINING_RECORD(iface, struct d3d12_resource, ID3D12Resource_iface);
}

static HRESULT STDMETHODCALLTYPE d3d12_resource_QueryInterface(ID3D12Resource *iface, REFIID riid, void **object)
{
    static const IID *const iids[] =
    {
        &IID_ID3D12Resource, &IID_ID3D12Pageable, &IID_ID3D12DeviceChild, &IID_ID3D12Object, &IID_IUnknown
    };

    TRACE("iface %p, riid %s, object %p.", (void *)iface, debugstr_guid(riid), (void *)object);
    return vkdml_query_interface((IUnknown *)iface, iids, ARRAY_SIZE(iids), riid, object);
}

static ULONG STDMETHODCALLTYPE d3d12_resource_AddRef(ID3D12Resource *iface)
{
    struct d3d12_resource *resource = impl_from_ID3D12Resource(iface);
    ULONG refcount = vkdml_refcount_increment(&resource->refcount);

    TRACE("%p increasing refcount to %u.", (void *)resource, (unsigned int)refcount);
    return refcount;
}

/* Mirrors resource_init plus the buffer: the VkBuffer, its own memory (committed) or the heap's reference. */
static void d3d12_resource_destroy(struct d3d12_resource *resource)
{
    struct d3d12_device *device = resource->device;
    struct vkdml_vk_buffer buffer = {.vk_buffer = resource->vk_buffer, .memory = resource->memory};

    vkdml_private_store_destroy(&resource->private_store);
    if (resource->memory)
        vkdml_vk_clears_wait_memory(device->vk, &device->clears, resource->memory);
    /* A placed buffer has memory VK_NULL_HANDLE, which vkFreeMemory ignores; a wrapped one is the engine's. */
    if (!resource->wrapped)
        vkdml_vk_buffer_destroy(device->vk, &buffer);
    if (resource->heap)
        d3d12_heap_internal_release(resource->heap);
    free(resource);
    d3d12_device_release(device);
}

static ULONG STDMETHODCALLTYPE d3d12_resource_Release(ID3D12Resource *iface)
{
    struct d3d12_resource *resource = impl_from_ID3D12Resource(iface);
    ULONG refcount = vkdml_refcount_decrement(&resource->refcount);

    TRACE("%p decreasing refcount to %u.", (void *)resource, (unsigned int)refcount);
    if (!refcount)
        d3d12_resource_destroy(resource);
    return refcount;
}

VKDML_IMPLEMENT_PRIVATE_DATA(d3d12_resource, ID3D12Resource, impl_from_ID3D12Resource, const IUnknown *)

static HRESULT STDMETHODCALLTYPE d3d12_resource_SetName(ID3D12Resource *iface, const WCHAR *name)
{
    struct d3d12_resource *resource = impl_from_ID3D12Resource(iface);

    TRACE("iface %p, name %p.", (void *)iface, (const void *)name);
    /* A wrapped buffer keeps the name its engine gave it. */
    return d3d12_object_set_name(resource->device, &resource->private_store, VK_OBJECT_TYPE_BUFFER,
            resource->wrapped ? 0 : (uint64_t)resource->vk_buffer, name);
}

D3D12_IMPLEMENT_GET_DEVICE(d3d12_resource, ID3D12Resource, impl_from_ID3D12Resource)

/* Flush (host writes → device) or invalidate (device writes → host) [begin, end) of non-coherent memory. */
static void sync_host_range(struct d3d12_resource *resource, UINT64 begin, UINT64 end, bool flush)
{
    struct vkdml_vk_device *vk = resource->device->vk;
    VkDeviceMemory memory = resource->heap ? resource->heap->memory : resource->memory;
    VkDeviceSize memory_size = resource->heap ? resource->heap->allocation.size : VK_WHOLE_SIZE;
    VkDeviceSize offset = resource->heap_offset + begin;
    VkResult vr;

    if (resource->host_coherent || end <= begin)
        return;
    if (flush)
        vr = vkdml_vk_memory_flush(vk, memory, memory_size, offset, end - begin);
    else
        vr = vkdml_vk_memory_invalidate(vk, memory, memory_size, offset, end - begin);
    d3d12_device_check_vk_result(resource->device, vr);
}

/* A NULL range is the whole buffer; End <= Begin is an empty range (D3D12_RANGE rules). */
static bool check_range(const struct d3d12_resource *resource, const D3D12_RANGE *range, const char *what,
        UINT64 *begin, UINT64 *end)
{
    *begin = range ? range->Begin : 0;
    *end = range ? range->End : resource->desc.Width;
    if (*end <= *begin)
    {
        *begin = *end = 0;
        return true;
    }
    if (*end > resource->desc.Width)
    {
        ERR("%s [%" PRIu64 ", %" PRIu64 ") runs past the buffer's %" PRIu64 " bytes.", what, *begin, *end,
                (uint64_t)resource->desc.Width);
        return false;
    }
    return true;
}

static HRESULT STDMETHODCALLTYPE d3d12_resource_Map(ID3D12Resource *iface, UINT sub_resource,
        const D3D12_RANGE *read_range, void **data)
{
    struct d3d12_resource *resource = impl_from_ID3D12Resource(iface);
    UINT64 begin, end;

    TRACE("iface %p, sub_resource %u, read_range %p, data %p.", (void *)iface, sub_resource,
            (const void *)read_range, (void *)data);

    if (data)
        *data = NULL;
    if (sub_resource)
    {
        ERR("Map: Subresource %u: a buffer has only subresource 0.", sub_resource);
        return E_INVALIDARG;
    }
    if (!is_cpu_accessible(&resource->heap_properties))
    {
        ERR("Map on a %s heap%s: only UPLOAD, READBACK and CPU-visible CUSTOM heaps can be mapped; copy through "
                "an upload or readback buffer.", resource->heap_properties.Type == D3D12_HEAP_TYPE_DEFAULT ? "DEFAULT"
                : "CUSTOM", resource->heap_properties.Type == D3D12_HEAP_TYPE_CUSTOM
                ? " with CPUPageProperty NOT_AVAILABLE" : "");
        return E_INVALIDARG;
    }
    if (!check_range(resource, read_range, "Map: pReadRange", &begin, &end))
        return E_INVALIDARG;
    /* The memory stays mapped: D3D12 allows nested Map calls and keeps pointers valid while mapped. */
    sync_host_range(resource, begin, end, false);
    vkdml_refcount_increment(&resource->map_count);
    if (data)
        *data = resource->mapped;
    return S_OK;
}

static void STDMETHODCALLTYPE d3d12_resource_Unmap(ID3D12Resource *iface, UINT sub_resource,
        const D3D12_RANGE *written_range)
{
    struct d3d12_resource *resource = impl_from_ID3D12Resource(iface);
    unsigned int count;
    UINT64 begin, end;

    TRACE("iface %p, sub_resource %u, written_range %p.", (void *)iface, sub_resource, (const void *)written_range);

    if (sub_resource)
    {
        ERR("Unmap: Subresource %u: a buffer has only subresource 0.", sub_resource);
        return;
    }
    count = atomic_load(&resource->map_count);
    do
    {
        if (!count)
        {
            ERR("Unmap: the resource is not mapped (more Unmap than Map calls).");
            return;
        }
    } while (!atomic_compare_exchange_weak(&resource->map_count, &count, count - 1));
    if (check_range(resource, written_range, "Unmap: pWrittenRange", &begin, &end))
        sync_host_range(resource, begin, end, true);
}

#if VKDML_RETVAL_WIN32
static D3D12_RESOURCE_DESC * STDMETHODCALLTYPE d3d12_resource_GetDesc(ID3D12Resource *iface,
        D3D12_RESOURCE_DESC *desc)
{
    TRACE("iface %p, desc %p.", (void *)iface, (void *)desc);
    *desc = impl_from_ID3D12Resource(iface)->desc;
    return desc;
}
#else
static D3D12_RESOURCE_DESC STDMETHODCALLTYPE d3d12_resource_GetDesc(ID3D12Resource *iface)
{
    TRACE("iface %p.", (void *)iface);
    return impl_from_ID3D12Resource(iface)->desc;
}
#endif

static D3D12_GPU_VIRTUAL_ADDRESS STDMETHODCALLTYPE d3d12_resource_GetGPUVirtualAddress(ID3D12Resource *iface)
{
    TRACE("iface %p.", (void *)iface);
    /* The real buffer device address: kernels and vkd3d-proton-style interop use it directly. */
    return impl_from_ID3D12Resource(iface)->gpu_address;
}

static HRESULT STDMETHODCALLTYPE d3d12_resource_WriteToSubresource(ID3D12Resource *iface, UINT dst_sub_resource,
        const D3D12_BOX *dst_box, const void *src_data, UINT src_row_pitch, UINT src_slice_pitch)
{
    TRACE("iface %p, dst_sub_resource %u, dst_box %p, src_data %p, src_row_pitch %u, src_slice_pitch %u.",
            (void *)iface, dst_sub_resource, (const void *)dst_box, src_data, src_row_pitch, src_slice_pitch);
    FIXME("WriteToSubresource is not implemented: it is for textures; map buffers with Map.");
    return E_NOTIMPL;
}

static HRESULT STDMETHODCALLTYPE d3d12_resource_ReadFromSubresource(ID3D12Resource *iface, void *dst_data,
        UINT dst_row_pitch, UINT dst_slice_pitch, UINT src_sub_resource, const D3D12_BOX *src_box)
{
    TRACE("iface %p, dst_data %p, dst_row_pitch %u, dst_slice_pitch %u, src_sub_resource %u, src_box %p.",
            (void *)iface, dst_data, dst_row_pitch, dst_slice_pitch, src_sub_resource, (const void *)src_box);
    FIXME("ReadFromSubresource is not implemented: it is for textures; map buffers with Map.");
    return E_NOTIMPL;
}

static HRESULT STDMETHODCALLTYPE d3d12_resource_GetHeapProperties(ID3D12Resource *iface,
        D3D12_HEAP_PROPERTIES *heap_properties, D3D12_HEAP_FLAGS *heap_flags)
{
    struct d3d12_resource *resource = impl_from_ID3D12Resource(iface);

    TRACE("iface %p, heap_properties %p, heap_flags %p.", (void *)iface, (void *)heap_properties, (void *)heap_flags);

    /* Placed resources copied their heap's at creation. */
    if (heap_properties)
        *heap_properties = resource->heap_properties;
    if (heap_flags)
        *heap_flags = resource->heap_flags;
    return S_OK;
}

static const struct ID3D12ResourceVtbl d3d12_resource_vtbl =
{
    /* IUnknown methods */
    d3d12_resource_QueryInterface,
    d3d12_resource_AddRef,
    d3d12_resource_Release,
    /* ID3D12Object methods */
    d3d12_resource_GetPrivateData,
    d3d12_resource_SetPrivateData,
    d3d12_resource_SetPrivateDataInterface,
    d3d12_resource_SetName,
    /* ID3D12DeviceChild methods */
    d3d12_resource_GetDevice,
    /* ID3D12Resource methods */
    d3d12_resource_Map,
    d3d12_resource_Unmap,
    d3d12_resource_GetDesc,
    d3d12_resource_GetGPUVirtualAddress,
    d3d12_resource_WriteToSubresource,
    d3d12_resource_ReadFromSubresource,
    d3d12_resource_GetHeapProperties,
};

struct d3d12_resource *unsafe_impl_from_ID3D12Resource(ID3D12Resource *iface)
{
    if (!iface || iface->lpVtbl != &d3d12_resource_vtbl)
        return NULL;
    return impl_from_ID3D12Resource(iface);
}

/* What committed and placed resources share; the buffer itself is set by the caller. */
static void resource_init(struct d3d12_resource *resource, struct d3d12_device *device,
        const D3D12_RESOURCE_DESC *desc, const D3D12_HEAP_PROPERTIES *properties, D3D12_HEAP_FLAGS flags,
        D3D12_RESOURCE_STATES initial_state)
{
    resource->ID3D12Resource_iface.lpVtbl = &d3d12_resource_vtbl;
    atomic_init(&resource->refcount, 1);
    atomic_init(&resource->map_count, 0);
    resource->desc = *desc;
    resource->heap_properties = *properties;
    resource->heap_flags = flags;
    resource->initial_state = initial_state;
    vkdml_private_store_init(&resource->private_store);
    d3d12_device_add_ref(resource->device = device);
}

HRESULT d3d12_committed_resource_create(struct d3d12_device *device, const D3D12_HEAP_PROPERTIES *heap_properties,
        D3D12_HEAP_FLAGS heap_flags, const D3D12_RESOURCE_DESC *desc, D3D12_RESOURCE_STATES initial_state,
        struct d3d12_resource **resource)
{
    static const char method[] = "CreateCommittedResource";
    struct vkdml_vk_buffer buffer;
    struct vkdml_vk_memory memory;
    D3D12_HEAP_PROPERTIES properties;
    enum vkdml_vk_memory_kind kind;
    struct d3d12_resource *object;
    VkResult vr;
    HRESULT hr;

    *resource = NULL;
    if (FAILED(hr = validate_heap_properties(device, heap_properties, &kind, &properties, method))
            || FAILED(hr = validate_heap_flags(heap_flags, method))
            || FAILED(hr = d3d12_validate_buffer_desc(device, desc, method))
            || FAILED(hr = validate_buffer_placement(&properties, desc, initial_state, method)))
        return hr;
    if (!(object = calloc(1, sizeof(*object))))
    {
        ERR("%s: out of host memory.", method);
        return E_OUTOFMEMORY;
    }
    /* Whole dwords, so fills and dword loads cover the last bytes of any Width. */
    if ((vr = vkdml_vk_buffer_create(device->vk, VKDML_ALIGN_UP(desc->Width, 4), kind, &buffer)) < 0)
    {
        ERR("%s: allocating a %" PRIu64 "-byte buffer in a %s heap failed: %s.", method, (uint64_t)desc->Width,
                heap_type_name(properties.Type), vkdml_vk_result_string(vr));
        free(object);
        return d3d12_device_check_vk_result(device, vr);
    }
    memory = (struct vkdml_vk_memory){buffer.memory, buffer.memory_size, buffer.memory_type, buffer.memory_flags,
            buffer.mapped};
    if (FAILED(hr = zero_new_memory(device, &memory, buffer.size, heap_flags, method)))
    {
        vkdml_vk_buffer_destroy(device->vk, &buffer);
        free(object);
        return hr;
    }
    resource_init(object, device, desc, &properties, heap_flags, initial_state);
    object->vk_buffer = buffer.vk_buffer;
    object->memory = buffer.memory;
    object->gpu_address = buffer.address;
    object->mapped = buffer.mapped;
    object->host_coherent = buffer.memory_flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    TRACE("Created committed resource %p, %" PRIu64 " bytes at %#" PRIx64 ".", (void *)object,
            (uint64_t)desc->Width, (uint64_t)object->gpu_address);
    *resource = object;
    return S_OK;
}

static HRESULT validate_placement(const struct d3d12_heap *heap, UINT64 offset, const D3D12_RESOURCE_DESC *desc)
{
    static const char method[] = "CreatePlacedResource";
    UINT64 size = VKDML_ALIGN_UP(desc->Width, PLACEMENT_ALIGNMENT);

    if (offset % PLACEMENT_ALIGNMENT)
    {
        ERR("%s: HeapOffset %" PRIu64 " must be a multiple of 65536 (D3D12_DEFAULT_RESOURCE_PLACEMENT_ALIGNMENT).",
                method, (uint64_t)offset);
        return E_INVALIDARG;
    }
    /* D3D12 measures the buffer by its allocation size, Width rounded up to the placement alignment. */
    if (offset >= heap->allocation.size || size > heap->allocation.size - offset)
    {
        ERR("%s: HeapOffset %" PRIu64 " + %" PRIu64 " bytes (Width %" PRIu64 " rounded up to 65536) runs past the "
                "heap's %" PRIu64 " bytes.", method, (uint64_t)offset, (uint64_t)size, (uint64_t)desc->Width,
                (uint64_t)heap->allocation.size);
        return E_INVALIDARG;
    }
    return S_OK;
}

HRESULT d3d12_placed_resource_create(struct d3d12_device *device, struct d3d12_heap *heap, UINT64 heap_offset,
        const D3D12_RESOURCE_DESC *desc, D3D12_RESOURCE_STATES initial_state, struct d3d12_resource **resource)
{
    static const char method[] = "CreatePlacedResource";
    struct d3d12_resource *object;
    VkDeviceAddress address;
    VkBuffer buffer;
    VkResult vr;
    HRESULT hr;

    *resource = NULL;
    if (FAILED(hr = d3d12_validate_buffer_desc(device, desc, method))
            || FAILED(hr = validate_buffer_placement(&heap->desc.Properties, desc, initial_state, method))
            || FAILED(hr = validate_placement(heap, heap_offset, desc)))
        return hr;
    if (!(object = calloc(1, sizeof(*object))))
    {
        ERR("%s: out of host memory.", method);
        return E_OUTOFMEMORY;
    }
    /* Buffers may alias: several may share any range of the heap. */
    if ((vr = vkdml_vk_buffer_create_placed(device->vk, VKDML_ALIGN_UP(desc->Width, 4), &heap->allocation, heap_offset,
            &buffer, &address)) < 0)
    {
        ERR("%s: binding a %" PRIu64 "-byte buffer at offset %" PRIu64 " failed: %s.", method,
                (uint64_t)desc->Width, (uint64_t)heap_offset, vkdml_vk_result_string(vr));
        free(object);
        return d3d12_device_check_vk_result(device, vr);
    }
    resource_init(object, device, desc, &heap->desc.Properties, heap->desc.Flags, initial_state);
    object->vk_buffer = buffer;
    object->gpu_address = address;
    object->heap = heap;
    object->heap_offset = heap_offset;
    object->mapped = heap->mapped ? (uint8_t *)heap->mapped + heap_offset : NULL;
    object->host_coherent = heap->allocation.flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    /* The heap lives as long as a resource placed in it, whatever its own refcount says. */
    vkdml_refcount_increment(&heap->internal_refcount);
    TRACE("Created placed resource %p, %" PRIu64 " bytes at offset %" PRIu64 " of heap %p.", (void *)object,
            (uint64_t)desc->Width, (uint64_t)heap_offset, (void *)heap);
    *resource = object;
    return S_OK;
}

HRESULT d3d12_wrapped_resource_create(struct d3d12_device *device, VkBuffer buffer, VkDeviceSize offset,
        VkDeviceSize size, VkDeviceAddress address, struct d3d12_resource **resource)
{
    /* What a DEFAULT-heap UAV buffer reports: DirectML binds only those (and UPLOAD for initializer inputs). */
    const D3D12_HEAP_PROPERTIES properties = {D3D12_HEAP_TYPE_DEFAULT, D3D12_CPU_PAGE_PROPERTY_UNKNOWN,
            D3D12_MEMORY_POOL_UNKNOWN, 1, 1};
    const D3D12_RESOURCE_DESC desc = {D3D12_RESOURCE_DIMENSION_BUFFER, 0, size, 1, 1, 1, DXGI_FORMAT_UNKNOWN,
            {1, 0}, D3D12_TEXTURE_LAYOUT_ROW_MAJOR, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS};
    struct d3d12_resource *object;

    *resource = NULL;
    if (!(object = calloc(1, sizeof(*object))))
        return E_OUTOFMEMORY;
    resource_init(object, device, &desc, &properties, D3D12_HEAP_FLAG_NONE, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    object->vk_buffer = buffer;
    object->vk_offset = offset;
    object->gpu_address = address + offset;
    object->wrapped = true;
    TRACE("Wrapped %" PRIu64 " bytes at offset %" PRIu64 " of VkBuffer %#" PRIx64 " as resource %p.",
            (uint64_t)size, (uint64_t)offset, (uint64_t)buffer, (void *)object);
    *resource = object;
    return S_OK;
}
