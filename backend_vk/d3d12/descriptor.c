/*
 * ID3D12DescriptorHeap and the device's descriptor methods (buffer views, CopyDescriptors*).
 * Only CBV_SRV_UAV heaps exist, as "software descriptor heaps" of 32-byte struct vkdml_descriptor
 * records (docs/design.md, "Descriptor model"): a shader-visible heap is a host-visible, coherent Vulkan
 * buffer whose CPU handle is the host pointer and whose GPU handle is the device address of the same
 * bytes, so kernels read descriptors at execution time and copying descriptors is memcpy. A
 * non-shader-visible heap is plain host memory with GPU handle 0. Live heaps are registered with
 * their device, so every handle an application passes in is checked before it is written through.
 */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "d3d12_private.h"

/* D3D12's limit for shader-visible CBV_SRV_UAV heaps at resource binding tiers 1 and 2; applied to
 * every heap here, since both kinds cost real memory. */
#define MAX_DESCRIPTORS 1000000u

static const struct ID3D12DescriptorHeapVtbl d3d12_descriptor_heap_vtbl;

static const char *heap_type_name(D3D12_DESCRIPTOR_HEAP_TYPE type)
{
    switch (type)
    {
        case D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV: return "D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV";
        case D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER: return "D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER";
        case D3D12_DESCRIPTOR_HEAP_TYPE_RTV: return "D3D12_DESCRIPTOR_HEAP_TYPE_RTV";
        case D3D12_DESCRIPTOR_HEAP_TYPE_DSV: return "D3D12_DESCRIPTOR_HEAP_TYPE_DSV";
        default: return vkdml_debug_sprintf("descriptor heap type %#x", type);
    }
}

UINT d3d12_descriptor_increment_size(D3D12_DESCRIPTOR_HEAP_TYPE type)
{
    if ((unsigned int)type >= D3D12_DESCRIPTOR_HEAP_TYPE_NUM_TYPES)
    {
        ERR("GetDescriptorHandleIncrementSize: DescriptorHeapType %#x is not a descriptor heap type.", type);
        return 0;
    }
    /* Every type answers the record size, although only CBV_SRV_UAV heaps can be created. */
    return VKDML_DESCRIPTOR_SIZE;
}

/* ---- Handle validation ---- */

static void register_heap(struct d3d12_device *device, struct d3d12_descriptor_heap *heap)
{
    vkdml_mutex_lock(&device->heaps_mutex);
    heap->next = device->heaps;
    device->heaps = heap;
    vkdml_mutex_unlock(&device->heaps_mutex);
}

static void unregister_heap(struct d3d12_device *device, struct d3d12_descriptor_heap *heap)
{
    struct d3d12_descriptor_heap **link;

    vkdml_mutex_lock(&device->heaps_mutex);
    for (link = &device->heaps; *link; link = &(*link)->next)
    {
        if (*link == heap)
        {
            *link = heap->next;
            break;
        }
    }
    vkdml_mutex_unlock(&device->heaps_mutex);
}

/* The heap whose bytes [start, start + NumDescriptors records) hold `address`; caller holds heaps_mutex. */
static struct d3d12_descriptor_heap *find_heap(struct d3d12_device *device, uint64_t address, bool gpu)
{
    struct d3d12_descriptor_heap *heap;
    uint64_t start;

    for (heap = device->heaps; heap; heap = heap->next)
    {
        if (gpu && !heap->gpu_start.ptr)
            continue;
        start = gpu ? heap->gpu_start.ptr : (uint64_t)(uintptr_t)heap->records;
        if (address >= start && address - start < (uint64_t)heap->desc.NumDescriptors * VKDML_DESCRIPTOR_SIZE)
            return heap;
    }
    return NULL;
}

/* The rules every handle follows: inside a live heap, on a record boundary, `count` records that fit.
 * Returns the index of the handle's record, or -1 after logging the broken rule. */
static int64_t check_handle(struct d3d12_device *device, uint64_t address, UINT count, bool gpu,
        const char *caller, struct d3d12_descriptor_heap **heap_out)
{
    const char *kind = gpu ? "GPU" : "CPU";
    struct d3d12_descriptor_heap *heap;
    uint64_t offset, index;

    if (!(heap = find_heap(device, address, gpu)))
    {
        ERR("%s: %s descriptor handle %#" PRIx64 " is not inside a live %sCBV_SRV_UAV descriptor heap of this device.",
                caller, kind, address, gpu ? "shader-visible " : "");
        return -1;
    }
    offset = address - (gpu ? heap->gpu_start.ptr : (uint64_t)(uintptr_t)heap->records);
    if (offset % VKDML_DESCRIPTOR_SIZE)
    {
        ERR("%s: %s descriptor handle %#" PRIx64 " is %" PRIu64 " bytes into heap %p, not on a descriptor boundary "
                "(the increment is %u).", caller, kind, address, offset, (void *)heap, VKDML_DESCRIPTOR_SIZE);
        return -1;
    }
    index = offset / VKDML_DESCRIPTOR_SIZE;
    if (count > heap->desc.NumDescriptors - index)
    {
        ERR("%s: %u descriptors from %s handle %#" PRIx64 " (index %" PRIu64 ") run past the end of heap %p "
                "(%u descriptors).", caller, count, kind, address, index, (void *)heap, heap->desc.NumDescriptors);
        return -1;
    }
    *heap_out = heap;
    return (int64_t)index;
}

struct vkdml_descriptor *d3d12_device_descriptor_from_cpu_handle(struct d3d12_device *device,
        D3D12_CPU_DESCRIPTOR_HANDLE handle, UINT count, const char *caller)
{
    struct vkdml_descriptor *record = NULL;
    struct d3d12_descriptor_heap *heap;
    int64_t index;

    vkdml_mutex_lock(&device->heaps_mutex);
    if ((index = check_handle(device, handle.ptr, count, false, caller, &heap)) >= 0)
        record = &heap->records[index];
    vkdml_mutex_unlock(&device->heaps_mutex);
    return record;
}

struct d3d12_descriptor_heap *d3d12_device_heap_from_gpu_handle(struct d3d12_device *device,
        D3D12_GPU_DESCRIPTOR_HANDLE handle, UINT count, const char *caller)
{
    struct d3d12_descriptor_heap *heap = NULL;

    vkdml_mutex_lock(&device->heaps_mutex);
    if (check_handle(device, handle.ptr, count, true, caller, &heap) < 0)
        heap = NULL;
    vkdml_mutex_unlock(&device->heaps_mutex);
    return heap;
}

/* ---- Records and views ---- */

void d3d12_write_buffer_descriptor(struct vkdml_descriptor *record, struct d3d12_resource *resource,
        UINT64 offset, UINT64 size, uint32_t kind, uint32_t stride)
{
    struct vkdml_descriptor value;

    memset(&value, 0, sizeof(value));
    if (resource)
    {
        value.address = resource->gpu_address + offset;
        value.size = size;
        value.kind = kind;
        value.stride = stride;
        value.resource = (uint64_t)(uintptr_t)resource;
    }
    else
    {
        /* A null descriptor: kernels must not read through it. */
        value.kind = VKDML_DESCRIPTOR_KIND_NONE;
    }
    /* Built aside and stored whole, so a shader-visible heap never holds half a record for long. */
    *record = value;
}

/* Bytes per element of the typed formats a buffer view may use; 0 for anything else. */
static unsigned int typed_format_size(DXGI_FORMAT format)
{
    switch (format)
    {
        case DXGI_FORMAT_R32G32B32A32_FLOAT:
        case DXGI_FORMAT_R32G32B32A32_UINT:
        case DXGI_FORMAT_R32G32B32A32_SINT:
            return 16;
        case DXGI_FORMAT_R32G32B32_FLOAT:
        case DXGI_FORMAT_R32G32B32_UINT:
        case DXGI_FORMAT_R32G32B32_SINT:
            return 12;
        case DXGI_FORMAT_R16G16B16A16_FLOAT:
        case DXGI_FORMAT_R16G16B16A16_UNORM:
        case DXGI_FORMAT_R16G16B16A16_UINT:
        case DXGI_FORMAT_R16G16B16A16_SNORM:
        case DXGI_FORMAT_R16G16B16A16_SINT:
        case DXGI_FORMAT_R32G32_FLOAT:
        case DXGI_FORMAT_R32G32_UINT:
        case DXGI_FORMAT_R32G32_SINT:
            return 8;
        case DXGI_FORMAT_R10G10B10A2_UNORM:
        case DXGI_FORMAT_R10G10B10A2_UINT:
        case DXGI_FORMAT_R11G11B10_FLOAT:
        case DXGI_FORMAT_R8G8B8A8_UNORM:
        case DXGI_FORMAT_R8G8B8A8_UINT:
        case DXGI_FORMAT_R8G8B8A8_SNORM:
        case DXGI_FORMAT_R8G8B8A8_SINT:
        case DXGI_FORMAT_R16G16_FLOAT:
        case DXGI_FORMAT_R16G16_UNORM:
        case DXGI_FORMAT_R16G16_UINT:
        case DXGI_FORMAT_R16G16_SNORM:
        case DXGI_FORMAT_R16G16_SINT:
        case DXGI_FORMAT_R32_FLOAT:
        case DXGI_FORMAT_R32_UINT:
        case DXGI_FORMAT_R32_SINT:
            return 4;
        case DXGI_FORMAT_R8G8_UNORM:
        case DXGI_FORMAT_R8G8_UINT:
        case DXGI_FORMAT_R8G8_SNORM:
        case DXGI_FORMAT_R8G8_SINT:
        case DXGI_FORMAT_R16_FLOAT:
        case DXGI_FORMAT_R16_UNORM:
        case DXGI_FORMAT_R16_UINT:
        case DXGI_FORMAT_R16_SNORM:
        case DXGI_FORMAT_R16_SINT:
            return 2;
        case DXGI_FORMAT_R8_UNORM:
        case DXGI_FORMAT_R8_UINT:
        case DXGI_FORMAT_R8_SNORM:
        case DXGI_FORMAT_R8_SINT:
            return 1;
        default:
            return 0;
    }
}

/* The byte range and stride of a buffer view, from the fields SRV and UAV descriptions share. */
struct buffer_view
{
    DXGI_FORMAT format;
    UINT64 first_element;
    UINT element_count;
    UINT structure_stride;
    bool raw;
    UINT64 offset, size;
    uint32_t stride;                /* 0 for raw views */
};

static bool resolve_buffer_view(const struct d3d12_resource *resource, struct buffer_view *view, const char *caller)
{
    UINT64 capacity;
    unsigned int element_size;

    if (view->raw)
    {
        if (view->format != DXGI_FORMAT_R32_TYPELESS || view->structure_stride)
        {
            ERR("%s: pDesc: a RAW buffer view needs Format DXGI_FORMAT_R32_TYPELESS and StructureByteStride 0, "
                    "got Format %#x, StructureByteStride %u.", caller, view->format, view->structure_stride);
            return false;
        }
        element_size = 4;
        view->stride = 0;
    }
    else if (view->structure_stride)
    {
        if (view->format != DXGI_FORMAT_UNKNOWN)
        {
            ERR("%s: pDesc: a structured buffer view (StructureByteStride %u) needs Format DXGI_FORMAT_UNKNOWN, "
                    "got %#x.", caller, view->structure_stride, view->format);
            return false;
        }
        element_size = view->stride = view->structure_stride;
    }
    else if ((element_size = typed_format_size(view->format)))
    {
        view->stride = element_size;
    }
    else
    {
        ERR("%s: pDesc->Format %#x: a buffer view is typed (a typed format), structured (Format UNKNOWN and "
                "StructureByteStride) or raw (R32_TYPELESS and the RAW flag).", caller, view->format);
        return false;
    }
    capacity = resource->desc.Width / element_size;
    if (!view->element_count || view->first_element > capacity || view->element_count > capacity - view->first_element)
    {
        ERR("%s: pDesc->Buffer: FirstElement %" PRIu64 ", NumElements %u of %u bytes: a view needs 1 or more elements "
                "within the buffer's %" PRIu64 " bytes.", caller, (uint64_t)view->first_element, view->element_count,
                element_size, (uint64_t)resource->desc.Width);
        return false;
    }
    view->offset = view->first_element * element_size;
    view->size = (UINT64)view->element_count * element_size;
    return true;
}

/* The resource of a view: NULL (a null descriptor) or one of this device's; false after logging. */
static bool view_resource(struct d3d12_device *device, ID3D12Resource *iface, struct d3d12_resource **resource,
        const char *caller)
{
    if (!iface)
    {
        *resource = NULL;
        return true;
    }
    if (!(*resource = unsafe_impl_from_ID3D12Resource(iface)) || (*resource)->device != device)
    {
        ERR("%s: pResource %p is not a resource of this vkdml device.", caller, (void *)iface);
        return false;
    }
    return true;
}

/* What both view methods check first, once the record and the resource are known: pDesc is required
 * (a buffer's format is UNKNOWN, so D3D12 cannot derive a default view, and null views need pDesc);
 * pResource NULL writes a null descriptor. True when a buffer's view is left to describe. */
static bool begin_buffer_view(struct vkdml_descriptor *record, const struct d3d12_resource *resource,
        const void *desc, const char *caller)
{
    if (!desc)
    {
        ERR("%s: pDesc is NULL: %s.", caller, resource ? "a buffer has no default view; describe it"
                : "a null descriptor (pResource NULL) needs pDesc");
        return false;
    }
    if (!resource)
    {
        d3d12_write_buffer_descriptor(record, NULL, 0, 0, VKDML_DESCRIPTOR_KIND_NONE, 0);
        return false;
    }
    return true;
}

/* Only buffer views exist: `dimension` must be `buffer_dimension`, called `buffer_name` in the log. */
static bool check_view_dimension(unsigned int dimension, unsigned int buffer_dimension, const char *buffer_name,
        const char *caller)
{
    if (dimension == buffer_dimension)
        return true;
    ERR("%s: pDesc->ViewDimension %#x: only %s views exist in the buffer-only compute subset.", caller, dimension,
            buffer_name);
    return false;
}

void d3d12_device_create_unordered_access_view(struct d3d12_device *device, ID3D12Resource *resource_iface,
        ID3D12Resource *counter, const D3D12_UNORDERED_ACCESS_VIEW_DESC *desc, D3D12_CPU_DESCRIPTOR_HANDLE handle)
{
    static const char method[] = "CreateUnorderedAccessView";
    struct vkdml_descriptor *record;
    struct d3d12_resource *resource;
    struct buffer_view view;

    if (!(record = d3d12_device_descriptor_from_cpu_handle(device, handle, 1, method))
            || !view_resource(device, resource_iface, &resource, method))
        return;
    if (counter)
    {
        FIXME("%s: pCounterResource %p: UAV counters are not implemented (buffer-only compute subset).", method,
                (void *)counter);
        return;
    }
    if (!begin_buffer_view(record, resource, desc, method) || !check_view_dimension(desc->ViewDimension,
            D3D12_UAV_DIMENSION_BUFFER, "D3D12_UAV_DIMENSION_BUFFER", method))
        return;
    if (!(resource->desc.Flags & D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS))
    {
        ERR("%s: pResource %p was created without D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS.", method,
                (void *)resource_iface);
        return;
    }
    if (desc->Buffer.CounterOffsetInBytes || (desc->Buffer.Flags & ~D3D12_BUFFER_UAV_FLAG_RAW))
    {
        ERR("%s: pDesc->Buffer: CounterOffsetInBytes %" PRIu64 " must be 0 without a counter resource, Flags %#x "
                "may only be D3D12_BUFFER_UAV_FLAG_RAW.", method, (uint64_t)desc->Buffer.CounterOffsetInBytes,
                desc->Buffer.Flags);
        return;
    }
    view = (struct buffer_view){desc->Format, desc->Buffer.FirstElement, desc->Buffer.NumElements,
            desc->Buffer.StructureByteStride, desc->Buffer.Flags & D3D12_BUFFER_UAV_FLAG_RAW};
    if (!resolve_buffer_view(resource, &view, method))
        return;
    d3d12_write_buffer_descriptor(record, resource, view.offset, view.size, VKDML_DESCRIPTOR_KIND_UAV_BUFFER,
            view.stride);
}

void d3d12_device_create_shader_resource_view(struct d3d12_device *device, ID3D12Resource *resource_iface,
        const D3D12_SHADER_RESOURCE_VIEW_DESC *desc, D3D12_CPU_DESCRIPTOR_HANDLE handle)
{
    static const char method[] = "CreateShaderResourceView";
    struct vkdml_descriptor *record;
    struct d3d12_resource *resource;
    struct buffer_view view;

    if (!(record = d3d12_device_descriptor_from_cpu_handle(device, handle, 1, method))
            || !view_resource(device, resource_iface, &resource, method))
        return;
    if (!begin_buffer_view(record, resource, desc, method) || !check_view_dimension(desc->ViewDimension,
            D3D12_SRV_DIMENSION_BUFFER, "D3D12_SRV_DIMENSION_BUFFER", method))
        return;
    if (desc->Buffer.Flags & ~D3D12_BUFFER_SRV_FLAG_RAW)
    {
        ERR("%s: pDesc->Buffer.Flags %#x may only be D3D12_BUFFER_SRV_FLAG_RAW.", method, desc->Buffer.Flags);
        return;
    }
    view = (struct buffer_view){desc->Format, desc->Buffer.FirstElement, desc->Buffer.NumElements,
            desc->Buffer.StructureByteStride, desc->Buffer.Flags & D3D12_BUFFER_SRV_FLAG_RAW};
    if (!resolve_buffer_view(resource, &view, method))
        return;
    d3d12_write_buffer_descriptor(record, resource, view.offset, view.size, VKDML_DESCRIPTOR_KIND_SRV_BUFFER,
            view.stride);
}

/* ---- CopyDescriptors ---- */

static bool check_copy_type(D3D12_DESCRIPTOR_HEAP_TYPE type, const char *caller)
{
    if (type == D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV)
        return true;
    ERR("%s: DescriptorHeapsType %s: only CBV_SRV_UAV descriptors exist in the buffer-only compute subset.",
            caller, heap_type_name(type));
    return false;
}

void d3d12_device_copy_descriptors_simple(struct d3d12_device *device, UINT count, D3D12_CPU_DESCRIPTOR_HANDLE dst,
        D3D12_CPU_DESCRIPTOR_HANDLE src, D3D12_DESCRIPTOR_HEAP_TYPE type)
{
    static const char method[] = "CopyDescriptorsSimple";
    struct vkdml_descriptor *dst_records, *src_records;

    if (!check_copy_type(type, method) || !count)
        return;
    if (!(dst_records = d3d12_device_descriptor_from_cpu_handle(device, dst, count, method))
            || !(src_records = d3d12_device_descriptor_from_cpu_handle(device, src, count, method)))
        return;
    /* Descriptors are memory: copying them is copying the records. */
    memmove(dst_records, src_records, (size_t)count * VKDML_DESCRIPTOR_SIZE);
}

/* Checks every range and returns the total descriptor count, or -1 after logging. */
static int64_t check_ranges(struct d3d12_device *device, UINT range_count, const D3D12_CPU_DESCRIPTOR_HANDLE *starts,
        const UINT *sizes, const char *what, const char *caller)
{
    uint64_t total = 0;
    UINT i, size;

    if (range_count && !starts)
    {
        ERR("%s: p%sDescriptorRangeStarts is NULL but there are %u ranges.", caller, what, range_count);
        return -1;
    }
    for (i = 0; i < range_count; ++i)
    {
        /* No sizes: every range is one descriptor. */
        size = sizes ? sizes[i] : 1;
        if (size && !d3d12_device_descriptor_from_cpu_handle(device, starts[i], size, caller))
            return -1;
        total += size;
    }
    return (int64_t)total;
}

void d3d12_device_copy_descriptors(struct d3d12_device *device, UINT dst_range_count,
        const D3D12_CPU_DESCRIPTOR_HANDLE *dst_starts, const UINT *dst_sizes, UINT src_range_count,
        const D3D12_CPU_DESCRIPTOR_HANDLE *src_starts, const UINT *src_sizes, D3D12_DESCRIPTOR_HEAP_TYPE type)
{
    static const char method[] = "CopyDescriptors";
    UINT dst_index = 0, src_index = 0, dst_size, src_size, count;
    UINT64 dst_offset = 0, src_offset = 0;
    int64_t dst_total, src_total;

    if (!check_copy_type(type, method))
        return;
    /* Everything is checked before anything is written. */
    if ((dst_total = check_ranges(device, dst_range_count, dst_starts, dst_sizes, "Dest", method)) < 0
            || (src_total = check_ranges(device, src_range_count, src_starts, src_sizes, "Src", method)) < 0)
        return;
    if (dst_total != src_total)
    {
        ERR("%s: the destination ranges hold %" PRId64 " descriptors and the source ranges %" PRId64 "; "
                "the totals must match.", method, dst_total, src_total);
        return;
    }
    /* Walk both range lists at once; a validated CPU handle is the address of its record. */
    while (dst_index < dst_range_count && src_index < src_range_count)
    {
        dst_size = dst_sizes ? dst_sizes[dst_index] : 1;
        src_size = src_sizes ? src_sizes[src_index] : 1;
        if (dst_offset == dst_size)
        {
            ++dst_index;
            dst_offset = 0;
            continue;
        }
        if (src_offset == src_size)
        {
            ++src_index;
            src_offset = 0;
            continue;
        }
        count = VKDML_MIN(dst_size - dst_offset, src_size - src_offset);
        memmove((struct vkdml_descriptor *)dst_starts[dst_index].ptr + dst_offset,
                (const struct vkdml_descriptor *)src_starts[src_index].ptr + src_offset,
                (size_t)count * VKDML_DESCRIPTOR_SIZE);
        dst_offset += count;
        src_offset += count;
    }
}

/* ---- ID3D12DescriptorHeap ---- */

static inline struct d3d12_descriptor_heap *impl_from_ID3D12DescriptorHeap(ID3D12DescriptorHeap *iface)
{
    return CONTAINING_RECORD(iface, struct d3d12_descriptor_heap, ID3D12DescriptorHeap_iface);
}

static HRESULT STDMETHODCALLTYPE d3d12_descriptor_heap_QueryInterface(ID3D12DescriptorHeap *iface,
        REFIID riid, void **object)
{
    static const IID *const iids[] =
    {
        &IID_ID3D12DescriptorHeap, &IID_ID3D12Pageable, &IID_ID3D12DeviceChild, &IID_ID3D12Object, &IID_IUnknown
    };

    TRACE("iface %p, riid %s, object %p.", (void *)iface, debugstr_guid(riid), (void *)object);
    return vkdml_query_interface((IUnknown *)iface, iids, ARRAY_SIZE(iids), riid, object);
}

static ULONG STDMETHODCALLTYPE d3d12_descriptor_heap_AddRef(ID3D12DescriptorHeap *iface)
{
    struct d3d12_descriptor_heap *heap = impl_from_ID3D12DescriptorHeap(iface);
    ULONG refcount = vkdml_refcount_increment(&heap->refcount);

    TRACE("%p increasing refcount to %u.", (void *)heap, (unsigned int)refcount);
    return refcount;
}

/* Mirrors d3d12_descriptor_heap_create. */
static void d3d12_descriptor_heap_destroy(struct d3d12_descriptor_heap *heap)
{
    struct d3d12_device *device = heap->device;

    unregister_heap(device, heap);
    vkdml_private_store_destroy(&heap->private_store);
    if (heap->buffer.vk_buffer)
        vkdml_vk_buffer_destroy(device->vk, &heap->buffer);
    else
        free(heap->records);
    free(heap);
    d3d12_device_release(device);
}

static ULONG STDMETHODCALLTYPE d3d12_descriptor_heap_Release(ID3D12DescriptorHeap *iface)
{
    struct d3d12_descriptor_heap *heap = impl_from_ID3D12DescriptorHeap(iface);
    ULONG refcount = vkdml_refcount_decrement(&heap->refcount);

    TRACE("%p decreasing refcount to %u.", (void *)heap, (unsigned int)refcount);
    if (!refcount)
        d3d12_descriptor_heap_destroy(heap);
    return refcount;
}

VKDML_IMPLEMENT_PRIVATE_DATA(d3d12_descriptor_heap, ID3D12DescriptorHeap, impl_from_ID3D12DescriptorHeap,
        const IUnknown *)

static HRESULT STDMETHODCALLTYPE d3d12_descriptor_heap_SetName(ID3D12DescriptorHeap *iface, const WCHAR *name)
{
    struct d3d12_descriptor_heap *heap = impl_from_ID3D12DescriptorHeap(iface);

    TRACE("iface %p, name %p.", (void *)iface, (const void *)name);
    /* Only shader-visible heaps have a Vulkan object to name. */
    return d3d12_object_set_name(heap->device, &heap->private_store, VK_OBJECT_TYPE_BUFFER,
            (uint64_t)heap->buffer.vk_buffer, name);
}

D3D12_IMPLEMENT_GET_DEVICE(d3d12_descriptor_heap, ID3D12DescriptorHeap, impl_from_ID3D12DescriptorHeap)

static D3D12_CPU_DESCRIPTOR_HANDLE cpu_start(const struct d3d12_descriptor_heap *heap)
{
    D3D12_CPU_DESCRIPTOR_HANDLE handle = {(SIZE_T)(uintptr_t)heap->records};

    return handle;
}

#if VKDML_RETVAL_WIN32
static D3D12_DESCRIPTOR_HEAP_DESC * STDMETHODCALLTYPE d3d12_descriptor_heap_GetDesc(ID3D12DescriptorHeap *iface,
        D3D12_DESCRIPTOR_HEAP_DESC *desc)
{
    TRACE("iface %p, desc %p.", (void *)iface, (void *)desc);
    *desc = impl_from_ID3D12DescriptorHeap(iface)->desc;
    return desc;
}

static D3D12_CPU_DESCRIPTOR_HANDLE * STDMETHODCALLTYPE d3d12_descriptor_heap_GetCPUDescriptorHandleForHeapStart(
        ID3D12DescriptorHeap *iface, D3D12_CPU_DESCRIPTOR_HANDLE *handle)
{
    TRACE("iface %p, handle %p.", (void *)iface, (void *)handle);
    *handle = cpu_start(impl_from_ID3D12DescriptorHeap(iface));
    return handle;
}

static D3D12_GPU_DESCRIPTOR_HANDLE * STDMETHODCALLTYPE d3d12_descriptor_heap_GetGPUDescriptorHandleForHeapStart(
        ID3D12DescriptorHeap *iface, D3D12_GPU_DESCRIPTOR_HANDLE *handle)
{
    TRACE("iface %p, handle %p.", (void *)iface, (void *)handle);
    *handle = impl_from_ID3D12DescriptorHeap(iface)->gpu_start;
    return handle;
}
#else
static D3D12_DESCRIPTOR_HEAP_DESC STDMETHODCALLTYPE d3d12_descriptor_heap_GetDesc(ID3D12DescriptorHeap *iface)
{
    TRACE("iface %p.", (void *)iface);
    return impl_from_ID3D12DescriptorHeap(iface)->desc;
}

static D3D12_CPU_DESCRIPTOR_HANDLE STDMETHODCALLTYPE d3d12_descriptor_heap_GetCPUDescriptorHandleForHeapStart(
        ID3D12DescriptorHeap *iface)
{
    TRACE("iface %p.", (void *)iface);
    return cpu_start(impl_from_ID3D12DescriptorHeap(iface));
}

static D3D12_GPU_DESCRIPTOR_HANDLE STDMETHODCALLTYPE d3d12_descriptor_heap_GetGPUDescriptorHandleForHeapStart(
        ID3D12DescriptorHeap *iface)
{
    TRACE("iface %p.", (void *)iface);
    /* 0 for a non-shader-visible heap, as in D3D12. */
    return impl_from_ID3D12DescriptorHeap(iface)->gpu_start;
}
#endif

static const struct ID3D12DescriptorHeapVtbl d3d12_descriptor_heap_vtbl =
{
    /* IUnknown methods */
    d3d12_descriptor_heap_QueryInterface,
    d3d12_descriptor_heap_AddRef,
    d3d12_descriptor_heap_Release,
    /* ID3D12Object methods */
    d3d12_descriptor_heap_GetPrivateData,
    d3d12_descriptor_heap_SetPrivateData,
    d3d12_descriptor_heap_SetPrivateDataInterface,
    d3d12_descriptor_heap_SetName,
    /* ID3D12DeviceChild methods */
    d3d12_descriptor_heap_GetDevice,
    /* ID3D12DescriptorHeap methods */
    d3d12_descriptor_heap_GetDesc,
    d3d12_descriptor_heap_GetCPUDescriptorHandleForHeapStart,
    d3d12_descriptor_heap_GetGPUDescriptorHandleForHeapStart,
};

struct d3d12_descriptor_heap *unsafe_impl_from_ID3D12DescriptorHeap(ID3D12DescriptorHeap *iface)
{
    if (!iface || iface->lpVtbl != &d3d12_descriptor_heap_vtbl)
        return NULL;
    return impl_from_ID3D12DescriptorHeap(iface);
}

static HRESULT validate_descriptor_heap_desc(const D3D12_DESCRIPTOR_HEAP_DESC *desc)
{
    static const char method[] = "CreateDescriptorHeap";

    if (!desc)
    {
        ERR("%s: pDescriptorHeapDesc is NULL.", method);
        return E_INVALIDARG;
    }
    if (desc->Type != D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV)
    {
        ERR("%s: pDescriptorHeapDesc->Type %s: the D3D12 shim is the buffer-only compute subset; only "
                "D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV heaps exist.", method, heap_type_name(desc->Type));
        return E_INVALIDARG;
    }
    if (desc->Flags & ~D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE)
    {
        ERR("%s: pDescriptorHeapDesc->Flags %#x may only be D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE.", method,
                desc->Flags);
        return E_INVALIDARG;
    }
    if (desc->NodeMask > 1)
    {
        ERR("%s: pDescriptorHeapDesc->NodeMask %#x: the device has one node (mask 0 or 1).", method, desc->NodeMask);
        return E_INVALIDARG;
    }
    if (!desc->NumDescriptors || desc->NumDescriptors > MAX_DESCRIPTORS)
    {
        ERR("%s: pDescriptorHeapDesc->NumDescriptors %u must be 1 to %u.", method, desc->NumDescriptors,
                MAX_DESCRIPTORS);
        return E_INVALIDARG;
    }
    return S_OK;
}

/* Shader-visible records live in host-visible, coherent memory (device-local where the device has
 * such memory): the CPU writes them, kernels read them, no flush in between. */
static HRESULT allocate_records(struct d3d12_device *device, struct d3d12_descriptor_heap *heap)
{
    VkDeviceSize size = (VkDeviceSize)heap->desc.NumDescriptors * VKDML_DESCRIPTOR_SIZE;
    VkResult vr;

    if (!(heap->desc.Flags & D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE))
    {
        if (!(heap->records = calloc(heap->desc.NumDescriptors, VKDML_DESCRIPTOR_SIZE)))
        {
            ERR("CreateDescriptorHeap: out of host memory for %u descriptors.", heap->desc.NumDescriptors);
            return E_OUTOFMEMORY;
        }
        return S_OK;
    }
    if ((vr = vkdml_vk_buffer_create(device->vk, size, VKDML_VK_MEMORY_HOST_DEVICE, &heap->buffer)) < 0)
    {
        ERR("CreateDescriptorHeap: allocating %" PRIu64 " bytes of host-visible memory for %u descriptors failed: %s.",
                (uint64_t)size, heap->desc.NumDescriptors, vkdml_vk_result_string(vr));
        return d3d12_device_check_vk_result(device, vr);
    }
    heap->records = heap->buffer.mapped;
    memset(heap->records, 0, size);
    heap->gpu_start.ptr = heap->buffer.address;
    return S_OK;
}

HRESULT d3d12_descriptor_heap_create(struct d3d12_device *device, const D3D12_DESCRIPTOR_HEAP_DESC *desc,
        struct d3d12_descriptor_heap **heap)
{
    struct d3d12_descriptor_heap *object;
    HRESULT hr;

    *heap = NULL;
    if (FAILED(hr = validate_descriptor_heap_desc(desc)))
        return hr;
    if (!(object = calloc(1, sizeof(*object))))
    {
        ERR("CreateDescriptorHeap: out of host memory.");
        return E_OUTOFMEMORY;
    }
    object->desc = *desc;
    if (FAILED(hr = allocate_records(device, object)))
    {
        free(object);
        return hr;
    }
    object->ID3D12DescriptorHeap_iface.lpVtbl = &d3d12_descriptor_heap_vtbl;
    atomic_init(&object->refcount, 1);
    vkdml_private_store_init(&object->private_store);
    d3d12_device_add_ref(object->device = device);
    register_heap(device, object);
    TRACE("Created descriptor heap %p, %u descriptors, CPU start %p, GPU start %#" PRIx64 ".", (void *)object,
            desc->NumDescriptors, (void *)object->records, (uint64_t)object->gpu_start.ptr);
    *heap = object;
    return S_OK;
}
