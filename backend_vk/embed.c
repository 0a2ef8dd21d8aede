/*
 * Embedding in engines (vkdml_vulkan.h): a shim D3D12 device (and a DML device) on an engine's
 * VkInstance/VkPhysicalDevice/VkDevice/VkQueue, and the engine's VkBuffers as ID3D12Resources.
 * The engine's objects are imported, never created or destroyed here; vkdml uses exactly the
 * features and extensions the engine says it enabled.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d3d12_private.h"
#include "vkdml_backend.h"
#include "vkdml_vulkan.h"

/* DirectML's alignment for temporary and persistent resources, which kernels' vector loads rely on
 * for every buffer's start. */
#define WRAPPED_BUFFER_ALIGNMENT 256

/* Failures are logged under the public function's name, whichever helper finds them. */
#define LOG_AS(function, ...) \
    do { if (vkdml_log_enabled(VKDML_LOG_ERR)) \
        vkdml_log(VKDML_LOG_ERR, VKDML_LOG_SOURCE_VKDML, function, __VA_ARGS__); } while (0)
#define CREATE_ERR(...) LOG_AS("vkdml_create_device_from_vulkan", __VA_ARGS__)
#define WRAP_ERR(...) LOG_AS("vkdml_wrap_vk_buffer", __VA_ARGS__)

static bool extension_listed(uint32_t count, const char *const *names, const char *name)
{
    uint32_t i;

    for (i = 0; i < count; ++i)
    {
        if (names[i] && !strcmp(names[i], name))
            return true;
    }
    return false;
}

/* ---- The desc ---- */

static HRESULT check_desc_handles(const struct vkdml_vulkan_device_desc *desc)
{
    const char *missing = NULL;

    if (!desc->get_instance_proc_addr)
        missing = "get_instance_proc_addr";
    else if (!desc->instance)
        missing = "instance";
    else if (!desc->physical_device)
        missing = "physical_device";
    else if (!desc->device)
        missing = "device";
    if (missing)
        CREATE_ERR("desc->%s is NULL; the engine's Vulkan objects are required.", missing);
    return missing ? E_INVALIDARG : S_OK;
}

static HRESULT check_desc_lists(const struct vkdml_vulkan_device_desc *desc)
{
    if (desc->enabled_instance_extension_count && !desc->enabled_instance_extensions)
    {
        CREATE_ERR("desc->enabled_instance_extensions is NULL but enabled_instance_extension_count is %u.",
                desc->enabled_instance_extension_count);
        return E_INVALIDARG;
    }
    if (desc->enabled_device_extension_count && !desc->enabled_device_extensions)
    {
        CREATE_ERR("desc->enabled_device_extensions is NULL but enabled_device_extension_count is %u.",
                desc->enabled_device_extension_count);
        return E_INVALIDARG;
    }
    if (!desc->lock_queue != !desc->unlock_queue)
    {
        CREATE_ERR("desc->lock_queue %s but desc->unlock_queue %s: give both callbacks or neither.",
                desc->lock_queue ? "is set" : "is NULL", desc->unlock_queue ? "is set" : "is NULL");
        return E_INVALIDARG;
    }
    if (desc->flags & ~(uint32_t)VKDML_VULKAN_DEVICE_FLAG_VALIDATION_LAYER)
    {
        CREATE_ERR("desc->flags %#x has unknown bits %#x.", desc->flags,
                desc->flags & ~(uint32_t)VKDML_VULKAN_DEVICE_FLAG_VALIDATION_LAYER);
        return E_INVALIDARG;
    }
    return S_OK;
}

static HRESULT check_device_desc(const struct vkdml_vulkan_device_desc *desc)
{
    HRESULT hr;

    if (!desc)
    {
        CREATE_ERR("desc is NULL; pass a struct vkdml_vulkan_device_desc describing the engine's Vulkan objects.");
        return E_INVALIDARG;
    }
    if (desc->struct_size < VKDML_VULKAN_DEVICE_DESC_SIZE_1)
    {
        CREATE_ERR("desc->struct_size %u is less than %u, the size of the first version of struct vkdml_vulkan_device_desc.",
                desc->struct_size, VKDML_VULKAN_DEVICE_DESC_SIZE_1);
        return E_INVALIDARG;
    }
    if (desc->next)
    {
        CREATE_ERR("desc->next %p must be NULL: no extension structs are defined.", desc->next);
        return E_INVALIDARG;
    }
    if (FAILED(hr = check_desc_handles(desc)) || FAILED(hr = check_desc_lists(desc)))
        return hr;
    if (desc->instance_api_version < VK_API_VERSION_1_2)
    {
        CREATE_ERR("desc->instance_api_version %u.%u: vkdml needs an instance created with apiVersion 1.2 or later.",
                VK_API_VERSION_MAJOR(desc->instance_api_version), VK_API_VERSION_MINOR(desc->instance_api_version));
        return DXGI_ERROR_UNSUPPORTED;
    }
    return S_OK;
}

/* Fields of later versions are read only when the engine's struct has them. */
static VkPipelineCache desc_pipeline_cache(const struct vkdml_vulkan_device_desc *desc)
{
    return desc->struct_size >= VKDML_VULKAN_DEVICE_DESC_SIZE_2 ? desc->pipeline_cache : VK_NULL_HANDLE;
}

/* ---- The instance ---- */

static HRESULT import_instance(const struct vkdml_vulkan_device_desc *desc, struct vkdml_vk_instance **out)
{
    struct vkdml_vk_instance *instance;

    *out = NULL;
    if (!(instance = calloc(1, sizeof(*instance))))
        return E_OUTOFMEMORY;
    instance->vk_instance = desc->instance;
    instance->get_instance_proc_addr = desc->get_instance_proc_addr;
    instance->api_version = desc->instance_api_version;
    instance->imported = true;
    instance->validation = desc->flags & VKDML_VULKAN_DEVICE_FLAG_VALIDATION_LAYER;
    /* Labels and object names only when the engine enabled the extension: its functions are not
     * valid to call otherwise, even where the loader hands out pointers. */
    instance->has_debug_utils = extension_listed(desc->enabled_instance_extension_count,
            desc->enabled_instance_extensions, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    vkdml_vk_instance_load_procs(instance);
    if (!instance->procs.vkEnumeratePhysicalDevices || !instance->procs.vkGetDeviceProcAddr
            || !instance->procs.vkGetPhysicalDeviceProperties2)
    {
        CREATE_ERR("desc->get_instance_proc_addr returns NULL for core instance functions (vkEnumeratePhysicalDevices, "
                "vkGetDeviceProcAddr, vkGetPhysicalDeviceProperties2) on desc->instance %p.", (void *)desc->instance);
        free(instance);
        return E_INVALIDARG;
    }
    *out = instance;
    return S_OK;
}

/* ---- The device ---- */

/* What the engine enabled, gathered from whichever feature structs it chained into the 1.0, 1.1
 * and 1.2 structs (and synchronization2), as vkdml_vk_caps_set_features() reads them. */
struct enabled_features
{
    VkPhysicalDeviceFeatures core;
    VkPhysicalDeviceVulkan11Features vulkan11;
    VkPhysicalDeviceVulkan12Features vulkan12;
    bool synchronization2;
};

static void collect_12_features(const VkBaseInStructure *s, struct enabled_features *f)
{
    const VkPhysicalDeviceVulkan12Features *v12 = (const void *)s;

    f->vulkan12.bufferDeviceAddress |= v12->bufferDeviceAddress;
    f->vulkan12.timelineSemaphore |= v12->timelineSemaphore;
    f->vulkan12.shaderFloat16 |= v12->shaderFloat16;
    f->vulkan12.shaderInt8 |= v12->shaderInt8;
    f->vulkan12.storageBuffer8BitAccess |= v12->storageBuffer8BitAccess;
}

static void collect_feature_struct(const VkBaseInStructure *s, struct enabled_features *f)
{
    switch (s->sType)
    {
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2:
            f->core = ((const VkPhysicalDeviceFeatures2 *)(const void *)s)->features;
            break;
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES:
            f->vulkan11.storageBuffer16BitAccess |=
                    ((const VkPhysicalDeviceVulkan11Features *)(const void *)s)->storageBuffer16BitAccess;
            break;
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES:
            collect_12_features(s, f);
            break;
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES:
            f->synchronization2 |= ((const VkPhysicalDeviceVulkan13Features *)(const void *)s)->synchronization2;
            break;
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES:
            f->vulkan12.bufferDeviceAddress |=
                    ((const VkPhysicalDeviceBufferDeviceAddressFeatures *)(const void *)s)->bufferDeviceAddress;
            break;
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES:
            f->vulkan12.timelineSemaphore |=
                    ((const VkPhysicalDeviceTimelineSemaphoreFeatures *)(const void *)s)->timelineSemaphore;
            break;
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES:
            f->synchronization2 |=
                    ((const VkPhysicalDeviceSynchronization2Features *)(const void *)s)->synchronization2;
            break;
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES:
            f->vulkan12.shaderFloat16 |=
                    ((const VkPhysicalDeviceShaderFloat16Int8Features *)(const void *)s)->shaderFloat16;
            f->vulkan12.shaderInt8 |= ((const VkPhysicalDeviceShaderFloat16Int8Features *)(const void *)s)->shaderInt8;
            break;
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES:
            f->vulkan11.storageBuffer16BitAccess |=
                    ((const VkPhysicalDevice16BitStorageFeatures *)(const void *)s)->storageBuffer16BitAccess;
            break;
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES:
            f->vulkan12.storageBuffer8BitAccess |=
                    ((const VkPhysicalDevice8BitStorageFeatures *)(const void *)s)->storageBuffer8BitAccess;
            break;
        default:
            break;
    }
}

static void collect_features(const struct vkdml_vulkan_device_desc *desc, struct enabled_features *f)
{
    const VkBaseInStructure *s;
    unsigned int depth = 0;

    memset(f, 0, sizeof(*f));
    if (desc->enabled_features_1_0)
        f->core = *desc->enabled_features_1_0;
    /* Bounded, so a chain that loops back on itself cannot hang the call. */
    for (s = desc->enabled_features; s && depth < 256; s = s->pNext, ++depth)
        collect_feature_struct(s, f);
}

/* The requirements on what the engine enabled; DXGI_ERROR_UNSUPPORTED naming the first one missing. */
static HRESULT check_enabled_features(const struct vkdml_vulkan_device_desc *desc, const struct enabled_features *f,
        uint32_t api_version)
{
    const char *missing = NULL;

    if (!f->vulkan12.bufferDeviceAddress)
        missing = "bufferDeviceAddress (VkPhysicalDeviceVulkan12Features or VkPhysicalDeviceBufferDeviceAddressFeatures)";
    else if (!f->vulkan12.timelineSemaphore)
        missing = "timelineSemaphore (VkPhysicalDeviceVulkan12Features or VkPhysicalDeviceTimelineSemaphoreFeatures)";
    else if (!f->synchronization2)
        missing = "synchronization2 (VkPhysicalDeviceVulkan13Features or VkPhysicalDeviceSynchronization2Features)";
    if (missing)
    {
        CREATE_ERR("desc->enabled_features: the engine's VkDevice was created without %s; vkdml needs it. Enable it "
                "in VkDeviceCreateInfo::pNext and list that chain in desc->enabled_features.", missing);
        return DXGI_ERROR_UNSUPPORTED;
    }
    if (api_version < VK_API_VERSION_1_3 && !extension_listed(desc->enabled_device_extension_count,
            desc->enabled_device_extensions, VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME))
    {
        CREATE_ERR("desc->enabled_device_extensions: on this Vulkan %u.%u device synchronization2 needs "
                VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME ", which the engine did not enable.",
                VK_API_VERSION_MAJOR(api_version), VK_API_VERSION_MINOR(api_version));
        return DXGI_ERROR_UNSUPPORTED;
    }
    return S_OK;
}

/* desc->physical_device's index in the instance's enumeration, or -1. */
static int physical_device_index(struct vkdml_vk_instance *instance, VkPhysicalDevice physical_device)
{
    VkPhysicalDevice *devices;
    uint32_t count = 0, i;
    int index = -1;

    if (vkdml_vk_instance_get_physical_devices(instance, &count, NULL) < 0 || !count
            || !(devices = calloc(count, sizeof(*devices))))
        return -1;
    if (vkdml_vk_instance_get_physical_devices(instance, &count, devices) >= 0)
    {
        for (i = 0; i < count && index < 0; ++i)
        {
            if (devices[i] == physical_device)
                index = (int)i;
        }
    }
    free(devices);
    return index;
}

static HRESULT check_queue(struct vkdml_vk_device *device, const struct vkdml_vulkan_device_desc *desc)
{
    const struct vkdml_vk_instance_procs *vk_procs = &device->instance->procs;
    VkQueueFamilyProperties *families;
    uint32_t count = 0;
    HRESULT hr = S_OK;

    VK_CALL(vkGetPhysicalDeviceQueueFamilyProperties(device->physical_device, &count, NULL));
    if (desc->queue_family_index >= count)
    {
        CREATE_ERR("desc->queue_family_index %u is out of range: the device has %u queue families.",
                desc->queue_family_index, count);
        return E_INVALIDARG;
    }
    if (!(families = calloc(count, sizeof(*families))))
        return E_OUTOFMEMORY;
    VK_CALL(vkGetPhysicalDeviceQueueFamilyProperties(device->physical_device, &count, families));
    if (!(families[desc->queue_family_index].queueFlags & VK_QUEUE_COMPUTE_BIT))
    {
        CREATE_ERR("desc->queue_family_index %u: the family has no VK_QUEUE_COMPUTE_BIT; vkdml's work is compute.",
                desc->queue_family_index);
        hr = E_INVALIDARG;
    }
    else if (desc->queue_index >= families[desc->queue_family_index].queueCount)
    {
        CREATE_ERR("desc->queue_index %u is out of range: queue family %u has %u queues.", desc->queue_index,
                desc->queue_family_index, families[desc->queue_family_index].queueCount);
        hr = E_INVALIDARG;
    }
    free(families);
    return hr;
}

/* Caps from what the engine enabled, not from what the adapter could do. */
static void record_imported_caps(struct vkdml_vk_device *device, const struct enabled_features *f, uint32_t api_version)
{
    struct vkdml_vk_caps *caps = &device->caps;

    vkdml_vk_device_read_properties(device);
    vkdml_vk_caps_set_features(caps, &f->core, &f->vulkan11, &f->vulkan12);
    caps->synchronization2_khr = api_version < VK_API_VERSION_1_3;
}

/* Adapter facts, the Vulkan version in use, and the engine's queue; checks everything it can. */
static HRESULT import_adapter(struct vkdml_vk_device *device, const struct vkdml_vulkan_device_desc *desc,
        uint32_t *api_version)
{
    int index;

    if ((index = physical_device_index(device->instance, desc->physical_device)) < 0)
    {
        CREATE_ERR("desc->physical_device %p is not one of desc->instance's physical devices.",
                (void *)desc->physical_device);
        return E_INVALIDARG;
    }
    device->physical_device = desc->physical_device;
    vkdml_vk_get_adapter_info(device->instance, device->physical_device, (uint32_t)index, &device->adapter);
    *api_version = VKDML_MIN(desc->instance_api_version, device->adapter.api_version);
    if (*api_version < VK_API_VERSION_1_2)
    {
        CREATE_ERR("desc->physical_device \"%s\" supports Vulkan %u.%u; vkdml needs 1.2.", device->adapter.name,
                VK_API_VERSION_MAJOR(*api_version), VK_API_VERSION_MINOR(*api_version));
        return DXGI_ERROR_UNSUPPORTED;
    }
    return check_queue(device, desc);
}

static HRESULT import_device(struct vkdml_vk_instance *instance, const struct vkdml_vulkan_device_desc *desc,
        struct vkdml_vk_device **out)
{
    struct vkdml_vk_device *device;
    struct enabled_features features;
    uint32_t api_version;
    HRESULT hr;

    *out = NULL;
    if (!(device = calloc(1, sizeof(*device))))
        return E_OUTOFMEMORY;
    device->instance = instance;
    device->queue_mutex = (struct vkdml_mutex)VKDML_MUTEX_INIT;
    device->imported = true;
    collect_features(desc, &features);
    if (FAILED(hr = import_adapter(device, desc, &api_version))
            || FAILED(hr = check_enabled_features(desc, &features, api_version)))
        goto fail;
    device->vk_device = desc->device;
    device->queue_family = desc->queue_family_index;
    if (!vkdml_vk_device_load_procs(device))
    {
        CREATE_ERR("desc->device %p: the device functions above are missing; is it a device of desc->physical_device?",
                (void *)desc->device);
        hr = E_INVALIDARG;
        goto fail;
    }
    device->procs.vkGetDeviceQueue(device->vk_device, desc->queue_family_index, desc->queue_index, &device->queue);
    device->lock_queue = desc->lock_queue;
    device->unlock_queue = desc->unlock_queue;
    device->queue_lock_user_data = desc->queue_lock_user_data;
    record_imported_caps(device, &features, api_version);
    vkdml_vk_pipeline_cache_init(device, desc_pipeline_cache(desc));
    INFO("Using the engine's VkDevice %p on \"%s\" (Vulkan %u.%u), queue %u of family %u.", (void *)desc->device,
            device->adapter.name, VK_API_VERSION_MAJOR(api_version), VK_API_VERSION_MINOR(api_version),
            desc->queue_index, desc->queue_family_index);
    *out = device;
    return S_OK;

fail:
    free(device);
    return hr;
}

/* ---- Public entry points ---- */

static HRESULT create_d3d12_from_desc(const struct vkdml_vulkan_device_desc *desc, struct d3d12_device **device)
{
    struct vkdml_vk_instance *instance;
    struct vkdml_vk_device *vk;
    HRESULT hr;

    *device = NULL;
    if (FAILED(hr = check_device_desc(desc)) || FAILED(hr = import_instance(desc, &instance)))
        return hr;
    if (FAILED(hr = import_device(instance, desc, &vk)))
    {
        vkdml_vk_instance_destroy(instance);
        return hr;
    }
    /* Takes both structs, also on failure. */
    return d3d12_device_create_from_vk(instance, vk, device);
}

VKDML_API int32_t vkdml_create_device_from_vulkan(const struct vkdml_vulkan_device_desc *desc,
        uint32_t dml_create_flags, const void *dml_riid, void **dml_device,
        const void *d3d12_riid, void **d3d12_device)
{
    struct d3d12_device *device;
    ID3D12Device *iface;
    HRESULT hr;

    TRACE("desc %p, dml_create_flags %#x, dml_riid %s, dml_device %p, d3d12_riid %s, d3d12_device %p.",
            (const void *)desc, dml_create_flags, debugstr_guid(dml_riid), (void *)dml_device,
            debugstr_guid(d3d12_riid), (void *)d3d12_device);

    if (dml_device)
        *dml_device = NULL;
    if (d3d12_device)
        *d3d12_device = NULL;
    if (FAILED(hr = create_d3d12_from_desc(desc, &device)))
        return hr;
    iface = &device->ID3D12Device_iface;
    if (d3d12_device && FAILED(hr = ID3D12Device_QueryInterface(iface, d3d12_riid ? d3d12_riid : &IID_ID3D12Device,
            d3d12_device)))
        goto done;
    if (dml_device && FAILED(hr = DMLCreateDevice1(iface, (DML_CREATE_DEVICE_FLAGS)dml_create_flags,
            DML_FEATURE_LEVEL_1_0, dml_riid ? dml_riid : &IID_IDMLDevice, dml_device)))
    {
        if (d3d12_device && *d3d12_device)
        {
            IUnknown_Release((IUnknown *)*d3d12_device);
            *d3d12_device = NULL;
        }
        goto done;
    }
    /* With neither out-pointer this only checked that the devices can be created (D3D12's S_FALSE). */
    hr = dml_device || d3d12_device ? S_OK : S_FALSE;

done:
    ID3D12Device_Release(iface);
    return hr;
}

static HRESULT check_buffer_range(const struct vkdml_vulkan_buffer_desc *desc)
{
    if (!desc->size)
    {
        WRAP_ERR("desc->size is 0: a resource has at least one byte.");
        return E_INVALIDARG;
    }
    if (desc->buffer_size && (desc->offset > desc->buffer_size || desc->size > desc->buffer_size - desc->offset))
    {
        WRAP_ERR("desc->offset %" PRIu64 " + desc->size %" PRIu64 " runs past the %" PRIu64 "-byte buffer.",
                (uint64_t)desc->offset, (uint64_t)desc->size, (uint64_t)desc->buffer_size);
        return E_INVALIDARG;
    }
    return S_OK;
}

static HRESULT check_buffer_desc(const struct vkdml_vulkan_buffer_desc *desc)
{
    const VkBufferUsageFlags required = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;

    if (!desc)
    {
        WRAP_ERR("desc is NULL; pass a struct vkdml_vulkan_buffer_desc.");
        return E_INVALIDARG;
    }
    if (desc->struct_size < VKDML_VULKAN_BUFFER_DESC_SIZE_1)
    {
        WRAP_ERR("desc->struct_size %u is less than %u, the size of the first version of struct vkdml_vulkan_buffer_desc.",
                desc->struct_size, VKDML_VULKAN_BUFFER_DESC_SIZE_1);
        return E_INVALIDARG;
    }
    if (desc->next)
    {
        WRAP_ERR("desc->next %p must be NULL: no extension structs are defined.", desc->next);
        return E_INVALIDARG;
    }
    if (!desc->buffer)
    {
        WRAP_ERR("desc->buffer is VK_NULL_HANDLE.");
        return E_INVALIDARG;
    }
    if ((desc->usage & required) != required)
    {
        WRAP_ERR("desc->usage %#x lacks %s: vkdml's kernels reach buffers through their device addresses as storage "
                "buffers, so the buffer needs VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | "
                "VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT.", desc->usage,
                !(desc->usage & VK_BUFFER_USAGE_STORAGE_BUFFER_BIT) ? "VK_BUFFER_USAGE_STORAGE_BUFFER_BIT"
                : "VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT");
        return E_INVALIDARG;
    }
    return check_buffer_range(desc);
}

static HRESULT wrapped_buffer_address(struct d3d12_device *device, const struct vkdml_vulkan_buffer_desc *desc,
        VkDeviceAddress *address)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->vk->procs;
    VkBufferDeviceAddressInfo info = {VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO, NULL, desc->buffer};

    *address = VK_CALL(vkGetBufferDeviceAddress(device->vk->vk_device, &info));
    if (desc->address && desc->address != *address)
    {
        WRAP_ERR("desc->address %#" PRIx64 " is not the buffer's device address %#" PRIx64 " (vkGetBufferDeviceAddress "
                "of byte 0); pass that, or 0.", (uint64_t)desc->address, (uint64_t)*address);
        return E_INVALIDARG;
    }
    if ((*address + desc->offset) % WRAPPED_BUFFER_ALIGNMENT)
    {
        WRAP_ERR("desc->offset %" PRIu64 ": the range starts at device address %#" PRIx64 ", which is not a multiple of "
                "%u (DirectML's resource alignment).", (uint64_t)desc->offset, (uint64_t)(*address + desc->offset),
                WRAPPED_BUFFER_ALIGNMENT);
        return E_INVALIDARG;
    }
    return S_OK;
}

static HRESULT check_wrap_device(struct d3d12_device *device, void *iface)
{
    if (!device)
    {
        WRAP_ERR("d3d12_device %p is not an ID3D12Device of vkdml.", iface);
        return E_INVALIDARG;
    }
    if (!device->vk->imported)
    {
        WRAP_ERR("d3d12_device %p runs on a VkDevice vkdml created itself, which no engine buffer belongs to; create "
                "it with vkdml_create_device_from_vulkan().", iface);
        return E_INVALIDARG;
    }
    if (atomic_load(&device->removed_reason) != S_OK)
    {
        WRAP_ERR("d3d12_device %p was removed (Vulkan device lost).", iface);
        return DXGI_ERROR_DEVICE_REMOVED;
    }
    return S_OK;
}

VKDML_API int32_t vkdml_wrap_vk_buffer(void *d3d12_iface, const struct vkdml_vulkan_buffer_desc *desc,
        const void *riid, void **resource)
{
    struct d3d12_device *device = unsafe_impl_from_ID3D12Device(d3d12_iface);
    struct d3d12_resource *object;
    VkDeviceAddress address;
    HRESULT hr;

    TRACE("d3d12_device %p, desc %p, riid %s, resource %p.", d3d12_iface, (const void *)desc, debugstr_guid(riid),
            (void *)resource);

    if (!resource)
    {
        WRAP_ERR("resource is NULL; it receives the new ID3D12Resource.");
        return E_POINTER;
    }
    *resource = NULL;
    if (FAILED(hr = check_wrap_device(device, d3d12_iface)) || FAILED(hr = check_buffer_desc(desc))
            || FAILED(hr = wrapped_buffer_address(device, desc, &address)))
        return hr;
    if (FAILED(hr = d3d12_wrapped_resource_create(device, desc->buffer, desc->offset, desc->size, address, &object)))
        return hr;
    return vkdml_return_interface((IUnknown *)&object->ID3D12Resource_iface, riid ? riid : &IID_ID3D12Resource,
            resource);
}
