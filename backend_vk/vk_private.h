/*
 * The Vulkan backend's objects and internal prototypes: instance and adapter selection,
 * logical device, buffers, pipelines and their cache. Every Vulkan call goes through a per-object
 * function table: VK_CALL(vkCmdDispatch(...)) expects a `const struct vkdml_vk_*_procs *vk_procs`
 * in scope.
 */
#ifndef VKDML_VK_PRIVATE_H
#define VKDML_VK_PRIVATE_H

#include <volk.h>

#include "vk_coopmat_khr.h"

#include "vkdml_com.h"
#include "vkdml_kernels.h"

struct vkdml_vk_instance_procs
{
#define VK_INSTANCE_PFN(name) PFN_##name name;
#include "vulkan_procs.h"
};

struct vkdml_vk_device_procs
{
#define VK_DEVICE_PFN(name) PFN_##name name;
#include "vulkan_procs.h"
};

#define VK_CALL(f) (vk_procs->f)

const char *vkdml_vk_result_string(VkResult vr);

/* Logs a failed Vulkan call with the call's text and the result, then evaluates to the result. */
#define VK_CHECK(expr) vkdml_vk_check((expr), #expr, __func__)
VkResult vkdml_vk_check(VkResult vr, const char *expr, const char *function);
/* The HRESULT a failed Vulkan call turns into at the COM boundary. */
HRESULT hresult_from_vk_result(VkResult vr);

/* ---- Instance ---- */

struct vkdml_vk_instance
{
    VkInstance vk_instance;
    PFN_vkGetInstanceProcAddr get_instance_proc_addr;
    struct vkdml_vk_instance_procs procs;
    uint32_t api_version;
    bool has_debug_utils;
    bool validation;                /* the Khronos validation layer is enabled */
    VkDebugUtilsMessengerEXT messenger;
    bool imported;                  /* the engine's VkInstance (embed.c): never destroyed by vkdml */
};

struct vkdml_vk_instance_options
{
    bool validation;                /* also on when VKDML_VALIDATION=1 */
    const char *application_name;
};

VkResult vkdml_vk_instance_create(const struct vkdml_vk_instance_options *options,
        struct vkdml_vk_instance **instance);
void vkdml_vk_instance_destroy(struct vkdml_vk_instance *instance);
/* Fills instance->procs through instance->get_instance_proc_addr. */
void vkdml_vk_instance_load_procs(struct vkdml_vk_instance *instance);

/* Physical devices in enumeration order; *count is in/out like Vulkan's enumerations. */
VkResult vkdml_vk_instance_get_physical_devices(struct vkdml_vk_instance *instance,
        uint32_t *count, VkPhysicalDevice *devices);
void vkdml_vk_get_adapter_info(const struct vkdml_vk_instance *instance, VkPhysicalDevice physical_device,
        uint32_t index, struct vkdml_adapter_info *info);
/* The adapter index `selector` (see vkdml_select_adapter()) picks, or -1. */
int vkdml_vk_select_adapter(struct vkdml_vk_instance *instance, const char *selector);

/* ---- Device ---- */

/* What the device can do, as enabled at creation. */
struct vkdml_vk_caps
{
    VkPhysicalDeviceProperties properties;
    VkPhysicalDeviceMemoryProperties memory;
    uint32_t subgroup_size;
    bool subgroup_reductions;       /* basic, arithmetic, ballot and shuffle subgroup operations in
                                     * compute shaders */
    bool shader_float16;
    bool shader_int8;
    bool shader_int16;
    bool shader_int64;
    bool shader_float64;
    bool storage_8bit;
    bool storage_16bit;
    bool synchronization2_khr;      /* via VK_KHR_synchronization2 rather than core 1.3 */
    bool coopmat_f16;               /* cooperative matrices enabled, with 16x8x16 fp16 x fp16 + fp32
                                     * subgroup matrices in compute shaders ... */
    bool coopmat_khr;               /* ... through VK_KHR_cooperative_matrix (else the NV extension) */
};

/* The VkPipelineCache every pipeline of a device is created through (pipeline_cache.c). */
struct vkdml_vk_pipeline_cache
{
    VkPipelineCache vk_cache;       /* VK_NULL_HANDLE when it could not be created */
    bool imported;                  /* the engine's: never written or destroyed by vkdml */
    char *path;                     /* the file it persists to; NULL without VKDML_PIPELINE_CACHE_DIR */
    struct vkdml_mutex mutex;       /* one writer at a time; guards saved_size */
    size_t saved_size;              /* bytes of cache data in the file, as loaded or last written */
};

struct vkdml_vk_device
{
    struct vkdml_vk_instance *instance;
    VkPhysicalDevice physical_device;
    VkDevice vk_device;
    struct vkdml_vk_device_procs procs;
    struct vkdml_vk_caps caps;
    uint32_t queue_family;
    VkQueue queue;
    struct vkdml_mutex queue_mutex;  /* VkQueue access must be externally synchronized */
    struct vkdml_adapter_info adapter;
    /* An engine's VkDevice and VkQueue (embed.c): never destroyed by vkdml, and every use of the
     * queue is bracketed by the engine's lock callbacks (vkdml_vk_queue_lock/unlock). */
    bool imported;
    void (*lock_queue)(void *user_data, VkQueue queue);
    void (*unlock_queue)(void *user_data, VkQueue queue);
    void *queue_lock_user_data;
    struct vkdml_vk_pipeline_cache pipeline_cache;
};

/* Around every vkQueue* call, inside queue_mutex: the engine's lock when it shares the queue. */
static inline void vkdml_vk_queue_lock(struct vkdml_vk_device *device)
{
    if (device->lock_queue)
        device->lock_queue(device->queue_lock_user_data, device->queue);
}

static inline void vkdml_vk_queue_unlock(struct vkdml_vk_device *device)
{
    if (device->unlock_queue)
        device->unlock_queue(device->queue_lock_user_data, device->queue);
}

/* The one mapping from Vulkan features to the flags of struct vkdml_vk_caps that they give: for a
 * device vkdml creates (what it enabled), an engine's device (what the engine enabled) and an
 * adapter without a device (what it has: the support matrix). Other members are left alone. */
void vkdml_vk_caps_set_features(struct vkdml_vk_caps *caps, const VkPhysicalDeviceFeatures *core,
        const VkPhysicalDeviceVulkan11Features *vulkan11, const VkPhysicalDeviceVulkan12Features *vulkan12);

/* Creates a logical device with one compute queue on adapter `index` of `instance`. */
VkResult vkdml_vk_device_create(struct vkdml_vk_instance *instance, uint32_t index,
        struct vkdml_vk_device **device);
void vkdml_vk_device_destroy(struct vkdml_vk_device *device);
/* The adapter's properties, memory properties and subgroup size into device->caps (the features
 * are the caller's: what it enabled). */
void vkdml_vk_device_read_properties(struct vkdml_vk_device *device);
/* Fills device->procs from device->vk_device; false (logged) when an entry point is missing. */
bool vkdml_vk_device_load_procs(struct vkdml_vk_device *device);

/* ---- Memory and buffers ---- */

enum vkdml_vk_memory_kind
{
    VKDML_VK_MEMORY_DEVICE,         /* D3D12_HEAP_TYPE_DEFAULT: device-local */
    VKDML_VK_MEMORY_UPLOAD,         /* D3D12_HEAP_TYPE_UPLOAD: host-visible, coherent (write-combined);
                                     * device-local too on UMA and ReBAR devices */
    VKDML_VK_MEMORY_READBACK,       /* D3D12_HEAP_TYPE_READBACK: host-visible, cached (coherent preferred) */
    VKDML_VK_MEMORY_HOST_DEVICE,    /* host-visible and coherent, device-local where the device has such a
                                     * type: memory both sides touch often (descriptor heaps) */
    VKDML_VK_MEMORY_KIND_COUNT,
};

/* One VkDeviceMemory allocation; host-visible memory is mapped for its whole life. */
struct vkdml_vk_memory
{
    VkDeviceMemory vk_memory;
    VkDeviceSize size;
    uint32_t type_index;
    VkMemoryPropertyFlags flags;    /* of the memory type chosen */
    void *mapped;                   /* non-NULL when flags has HOST_VISIBLE */
};

/* A buffer with a dedicated allocation of its own. */
struct vkdml_vk_buffer
{
    VkBuffer vk_buffer;
    VkDeviceMemory memory;
    VkDeviceSize size;
    VkDeviceAddress address;
    void *mapped;                   /* non-NULL when the memory is host-visible (every upload/readback kind) */
    VkMemoryPropertyFlags memory_flags;
    uint32_t memory_type;
    VkDeviceSize memory_size;
};

/* The memory facts the D3D12 shim reports (CheckFeatureSupport) and checks sizes against. */
struct vkdml_vk_memory_info
{
    VkDeviceSize max_allocation_size;   /* VkPhysicalDeviceMaintenance3Properties::maxMemoryAllocationSize */
    VkDeviceSize max_buffer_size;       /* VkPhysicalDeviceMaintenance4Properties::maxBufferSize (1.3), else unlimited */
    VkDeviceSize non_coherent_atom_size;
    uint32_t buffer_type_bits;          /* the memory types a vkdml buffer may be bound to */
    bool uma;                           /* every DEVICE_LOCAL type is also HOST_VISIBLE */
    bool cache_coherent_uma;            /* ... and HOST_COHERENT */
};

VkResult vkdml_vk_get_memory_info(struct vkdml_vk_device *device, struct vkdml_vk_memory_info *info);

/* Allocates `size` bytes of one of `type_bits` for `kind`, trying the kind's preferred property flags
 * first and falling back when a heap is too small or full; maps host-visible memory. Allocation
 * failure is logged as a warning only (callers report it); VK_ERROR_OUT_OF_DEVICE_MEMORY when no type fits. */
VkResult vkdml_vk_memory_allocate(struct vkdml_vk_device *device, VkDeviceSize size, uint32_t type_bits,
        enum vkdml_vk_memory_kind kind, struct vkdml_vk_memory *memory);
void vkdml_vk_memory_free(struct vkdml_vk_device *device, struct vkdml_vk_memory *memory);
/* Host writes to [offset, offset + size) of non-coherent mapped memory → device (flush), device writes →
 * host (invalidate). The range is widened to nonCoherentAtomSize; `memory_size` bounds it (VK_WHOLE_SIZE
 * when unknown: the range then runs to the end of the allocation). */
VkResult vkdml_vk_memory_flush(struct vkdml_vk_device *device, VkDeviceMemory memory, VkDeviceSize memory_size,
        VkDeviceSize offset, VkDeviceSize size);
VkResult vkdml_vk_memory_invalidate(struct vkdml_vk_device *device, VkDeviceMemory memory, VkDeviceSize memory_size,
        VkDeviceSize offset, VkDeviceSize size);

/* Zeroing memory the CPU cannot reach (D3D12 hands out zeroed committed resources and heaps):
 * vkCmdFillBuffer submitted to the device's queue without waiting, through a buffer of its own,
 * and ordered before every later submission by a barrier. The memory must not be freed before its
 * clear completes: vkdml_vk_clears_wait_memory() first. */
struct vkdml_vk_clear;
struct vkdml_vk_clears
{
    struct vkdml_mutex mutex;
    struct vkdml_vk_clear *pending;
};

void vkdml_vk_clears_init(struct vkdml_vk_clears *clears);
VkResult vkdml_vk_clear_memory(struct vkdml_vk_device *device, struct vkdml_vk_clears *clears,
        const struct vkdml_vk_memory *memory, VkDeviceSize size);
void vkdml_vk_clears_wait_memory(struct vkdml_vk_device *device, struct vkdml_vk_clears *clears, VkDeviceMemory memory);
/* Waits for every pending clear and frees them all (before the device goes). */
void vkdml_vk_clears_destroy(struct vkdml_vk_device *device, struct vkdml_vk_clears *clears);

/* A buffer of `size` bytes with its own allocation (usage: storage, transfer, device address). */
VkResult vkdml_vk_buffer_create(struct vkdml_vk_device *device, VkDeviceSize size,
        enum vkdml_vk_memory_kind kind, struct vkdml_vk_buffer *buffer);
void vkdml_vk_buffer_destroy(struct vkdml_vk_device *device, struct vkdml_vk_buffer *buffer);
/* A buffer of `size` bytes bound at `offset` of existing `memory` (placed resources; aliasing allowed).
 * Fails when the offset breaks the buffer's alignment or the buffer would run past the allocation. */
VkResult vkdml_vk_buffer_create_placed(struct vkdml_vk_device *device, VkDeviceSize size,
        const struct vkdml_vk_memory *memory, VkDeviceSize offset, VkBuffer *buffer, VkDeviceAddress *address);

/* ---- Pipelines (pipeline_cache.c) ---- */

/* Creates the device's pipeline cache, loaded from VKDML_PIPELINE_CACHE_DIR when that is set, or
 * takes `engine_cache`, the engine's (VK_NULL_HANDLE: none). Never fails: without a cache,
 * pipelines are created from scratch (logged). */
void vkdml_vk_pipeline_cache_init(struct vkdml_vk_device *device, VkPipelineCache engine_cache);
/* Writes vkdml's own cache to its file when it has grown since it was loaded or last written;
 * failures are warnings. */
void vkdml_vk_pipeline_cache_save(struct vkdml_vk_device *device);
/* Saves vkdml's own cache and destroys it (an engine's stays as it is). */
void vkdml_vk_pipeline_cache_cleanup(struct vkdml_vk_device *device);

/* A compute pipeline of an embedded kernel through the device's cache: constant_id i of the
 * kernel gets spec[i] (32-bit each). */
VkResult vkdml_vk_compute_pipeline_create(struct vkdml_vk_device *device, VkPipelineLayout layout,
        enum vkdml_kernel_id kernel, const uint32_t *spec, uint32_t spec_count, VkPipeline *pipeline);

#endif /* VKDML_VK_PRIVATE_H */
