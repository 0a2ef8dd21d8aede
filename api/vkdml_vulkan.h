/*
 * vkdml_vulkan.h: embedding vkdml in an engine that owns its Vulkan objects.
 *
 *   1. vkdml_create_device_from_vulkan(): an IDMLDevice and the D3D12 shim's ID3D12Device on the
 *      engine's VkInstance, VkPhysicalDevice, VkDevice and VkQueue. vkdml uses exactly the features
 *      and extensions the engine says it enabled, and destroys none of the engine's objects.
 *   2. vkdml_wrap_vk_buffer(): one of the engine's VkBuffers (a range of it) as an ID3D12Resource
 *      that binding tables accept, without a copy.
 *   3. vkdml_record_dispatch_vk(): IDMLCommandRecorder::RecordDispatch into the engine's open
 *      VkCommandBuffer instead of a D3D12 command list.
 * Descriptor heaps for binding tables come from the returned ID3D12Device (CreateDescriptorHeap,
 * CBV_SRV_UAV, SHADER_VISIBLE), as in any DirectML program.
 *
 * Contract of a dispatch recorded into the engine's command buffer
 *   State it changes: the COMPUTE pipeline binding (vkCmdBindPipeline), and the push constants of
 *   vkdml's pipeline layout (one range, bytes [0, 128), VK_SHADER_STAGE_COMPUTE_BIT). Push-constant
 *   values of the engine's layouts are undefined afterwards unless its layout is push-constant
 *   compatible. Nothing else: no descriptor sets are bound or disturbed (vkdml's kernels use
 *   none; the engine's compute sets stay bound), no graphics state, no render pass, no dynamic
 *   state. With a profiler it also records vkCmdResetQueryPool/vkCmdWriteTimestamp on the
 *   profiler's own query pool; with VK_EXT_debug_utils a balanced vkCmdBegin/EndDebugUtilsLabelEXT
 *   pair named after the operator. After the call the engine rebinds its compute pipeline and
 *   pushes its constants again before its next vkCmdDispatch.
 *   Barriers: none on the bound buffers (DirectML's RecordDispatch rule). The engine places, in its
 *   command buffer:
 *     before: whatever wrote the inputs -> VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT with
 *             VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT (kernels read
 *             and write through buffer device addresses: storage access); e.g. after a
 *             vkCmdFillBuffer/vkCmdCopyBuffer: src TRANSFER/TRANSFER_WRITE; after its own shader or an
 *             earlier vkdml dispatch: src COMPUTE_SHADER/SHADER_STORAGE_WRITE (a D3D12 UAV barrier);
 *             also when the dispatch overwrites something earlier work still reads (write-after-read);
 *     after:  VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT / VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT -> the
 *             reader of the outputs (COMPUTE_SHADER/SHADER_STORAGE_READ, TRANSFER/TRANSFER_READ,
 *             HOST/HOST_READ for mapped memory read after the fence, ...).
 *   A global VkMemoryBarrier2 is enough; buffer barriers work too. Between the dispatches of one
 *   operator vkdml itself records global compute-write -> compute-read/write memory barriers;
 *   they also order earlier compute work of the engine, harmlessly.
 *   Descriptors: the binding table's records live in the shim's descriptor heap (host-visible
 *   memory) and are read when the GPU executes the dispatch, so the heap and every bound buffer
 *   must live until the command buffer completes, and rebinding before submission is honoured with
 *   DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE. The dispatchable (compiled operator or initializer)
 *   must also live until then: its pipelines belong to the DML device. The call keeps no
 *   references; the binding table may be released right after it.
 *   Queue: the command buffer must come from a pool of `queue_family_index` (or of another family
 *   with compute support; timestamps then need that family's timestampValidBits). The engine
 *   submits it and synchronizes with its own fences or semaphores.
 *
 * Threading and the queue: vkdml submits to the engine's VkQueue itself only for the shim's work:
 * ID3D12CommandQueue::ExecuteCommandLists/Signal/Wait, zeroing new DEFAULT-heap committed
 * resources and heaps (one vkQueueSubmit that later submissions on the same queue are ordered
 * after), creating a profiler, and releasing a shim fence (vkQueueWaitIdle). Each such use is
 * bracketed by the engine's lock_queue/unlock_queue callbacks when it gives them; without them the
 * engine must not use the queue from another thread during those calls. Work the engine records
 * with vkdml_record_dispatch_vk that reads buffers created through the shim must be submitted to
 * the same queue (or after that queue is idle), so that their zeroing comes first.
 *
 * Lifetime: release every vkdml object (DML objects, then the ID3D12Device and its children) before
 * destroying the VkDevice and VkInstance; vkdml leaves no Vulkan object behind. vkdml does not
 * wait for the device to go idle when the last reference goes: the engine makes sure the GPU is
 * done with everything vkdml recorded first, as D3D12 requires for any object.
 *
 * This header includes <vulkan/vulkan.h> (define VK_NO_PROTOTYPES before it, as volk users do, if
 * wanted); it is valid C11 and C++17. Functions return HRESULT values as int32_t and log one line
 * naming the function, the argument and the rule for every failure.
 */
#ifndef VKDML_VULKAN_H
#define VKDML_VULKAN_H

#include <vulkan/vulkan.h>

#include "vkdml.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The first version of struct vkdml_vulkan_device_desc ends after `flags`; later versions append
 * fields and keep accepting this size (fields past struct_size count as zero). */
#define VKDML_VULKAN_DEVICE_DESC_SIZE_1 ((uint32_t)offsetof(struct vkdml_vulkan_device_desc, flags) + 4u)
/* The second version ends after `pipeline_cache`. */
#define VKDML_VULKAN_DEVICE_DESC_SIZE_2 \
    ((uint32_t)(offsetof(struct vkdml_vulkan_device_desc, pipeline_cache) + sizeof(VkPipelineCache)))

/* flags of struct vkdml_vulkan_device_desc */
enum vkdml_vulkan_device_flags
{
    VKDML_VULKAN_DEVICE_FLAG_NONE = 0,
    /* The engine created its instance with VK_LAYER_KHRONOS_validation: a DML debug device
     * (DML_CREATE_DEVICE_FLAG_DEBUG) then does not warn that validation is off. */
    VKDML_VULKAN_DEVICE_FLAG_VALIDATION_LAYER = 0x1,
};

/* Engine callbacks around vkdml's use of the VkQueue (see "Threading and the queue" above). */
typedef void (*vkdml_queue_lock_callback)(void *user_data, VkQueue queue);

/* The engine's Vulkan objects. Zero-initialize it, set struct_size, fill the fields. */
struct vkdml_vulkan_device_desc
{
    /* sizeof(struct vkdml_vulkan_device_desc) as the engine was compiled (at least
     * VKDML_VULKAN_DEVICE_DESC_SIZE_1). */
    uint32_t struct_size;
    /* Reserved for extension structs: must be NULL. */
    const void *next;
    /* The engine's vkGetInstanceProcAddr (from its loader or volk). vkdml loads every instance and
     * device function through it, into tables of its own: nothing global, nothing shared with the
     * engine's volk. Required. */
    PFN_vkGetInstanceProcAddr get_instance_proc_addr;
    /* The engine's instance. Required; never destroyed by vkdml. */
    VkInstance instance;
    /* VkApplicationInfo::apiVersion the instance was created with: at least VK_API_VERSION_1_2.
     * vkdml uses min(this, the physical device's apiVersion) as the device's Vulkan version. */
    uint32_t instance_api_version;
    /* VkInstanceCreateInfo's enabled extensions. VK_EXT_debug_utils here makes vkdml label its
     * dispatches and name its objects; vkdml never uses an instance extension not listed. */
    uint32_t enabled_instance_extension_count;
    const char *const *enabled_instance_extensions;
    /* One of the instance's physical devices (checked). Required. */
    VkPhysicalDevice physical_device;
    /* The engine's device on physical_device. Required; never destroyed by vkdml. It must have been
     * created with bufferDeviceAddress, timelineSemaphore and synchronization2 (core 1.3, or
     * VK_KHR_synchronization2 on a 1.2 device), or creation fails naming the missing one. */
    VkDevice device;
    /* The queue vkdml submits to (vkGetDeviceQueue(device, family, index)): a family with
     * VK_QUEUE_COMPUTE_BIT, and an index the engine created in VkDeviceQueueCreateInfo. */
    uint32_t queue_family_index;
    uint32_t queue_index;
    /* The feature structs enabled at vkCreateDevice: the VkDeviceCreateInfo::pNext chain as given
     * (VkPhysicalDeviceFeatures2 and/or VkPhysicalDeviceVulkan11/12/13Features, or the individual
     * structs: BufferDeviceAddress, TimelineSemaphore, Synchronization2, ShaderFloat16Int8,
     * 16BitStorage, 8BitStorage features; others are skipped). vkdml uses exactly what is enabled
     * there: without shaderFloat16 and storageBuffer16BitAccess, FLOAT16 tensors are refused, and so
     * on (CheckFeatureSupport(DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT) tells, and creation logs the
     * unavailable types at INFO). NULL means none. Read during the call only. */
    const void *enabled_features;
    /* VkDeviceCreateInfo::pEnabledFeatures, if the engine used it instead of a
     * VkPhysicalDeviceFeatures2 in the chain (shaderInt16, shaderInt64, shaderFloat64); NULL otherwise. */
    const VkPhysicalDeviceFeatures *enabled_features_1_0;
    /* VkDeviceCreateInfo's enabled extensions (VK_KHR_synchronization2 on a 1.2 device). */
    uint32_t enabled_device_extension_count;
    const char *const *enabled_device_extensions;
    /* Optional: called before and after each vkdml use of the queue, from the thread that uses it.
     * Both or neither. They must not call vkdml. */
    vkdml_queue_lock_callback lock_queue;
    vkdml_queue_lock_callback unlock_queue;
    void *queue_lock_user_data;
    /* enum vkdml_vulkan_device_flags. */
    uint32_t flags;
    /* Version 2. Optional: the engine's VkPipelineCache on `device`, which vkdml then creates all its
     * pipelines through instead of a cache of its own (and ignores VKDML_PIPELINE_CACHE_DIR); the
     * engine persists it. vkdml never destroys it. It must outlive the ID3D12Device and must not
     * have been created with VK_PIPELINE_CACHE_CREATE_EXTERNALLY_SYNCHRONIZED_BIT: vkdml uses it
     * from whichever threads compile operators. VK_NULL_HANDLE: none. */
    VkPipelineCache pipeline_cache;
};

/* Creates vkdml's D3D12 shim device (ID3D12Device) on the engine's Vulkan objects and, when
 * `dml_device` is not NULL, an IDMLDevice on it, as DMLCreateDevice(d3d12, dml_create_flags, ...)
 * would (DML_FEATURE_LEVEL_1_0 minimum; call DMLCreateDevice1 on the ID3D12Device for more).
 * `dml_riid` (a const IID *, NULL: IID_IDMLDevice) and `d3d12_riid` (NULL: IID_ID3D12Device) name
 * the interfaces to return; either out-pointer may be NULL (the IDMLDevice keeps its ID3D12Device
 * alive, as DirectML does; IDMLDevice::GetParentDevice returns it); with both NULL the call only
 * checks that the devices can be created and returns S_FALSE. Two calls on two engines' devices
 * give fully independent vkdml devices in one process.
 * Returns S_OK; E_INVALIDARG for a bad desc field (NULL handle, struct_size, next, a queue family or
 * index out of range or without compute, a physical device not of the instance, unknown flags,
 * one lock callback without the other); DXGI_ERROR_UNSUPPORTED (0x887A0004) when the engine's
 * device lacks something vkdml requires (Vulkan 1.2, bufferDeviceAddress, timelineSemaphore,
 * synchronization2: the log names it and where to enable it); what DMLCreateDevice returns for the
 * DML device; E_OUTOFMEMORY. */
VKDML_API int32_t vkdml_create_device_from_vulkan(const struct vkdml_vulkan_device_desc *desc,
        uint32_t dml_create_flags, const void *dml_riid, void **dml_device,
        const void *d3d12_riid, void **d3d12_device);

/* The first version of struct vkdml_vulkan_buffer_desc ends after `buffer_size`. */
#define VKDML_VULKAN_BUFFER_DESC_SIZE_1 ((uint32_t)offsetof(struct vkdml_vulkan_buffer_desc, buffer_size) + 8u)

/* A range of one of the engine's VkBuffers. Zero-initialize it, set struct_size, fill the fields. */
struct vkdml_vulkan_buffer_desc
{
    /* sizeof(struct vkdml_vulkan_buffer_desc) (at least VKDML_VULKAN_BUFFER_DESC_SIZE_1). */
    uint32_t struct_size;
    /* Reserved: must be NULL. */
    const void *next;
    /* A buffer of the device the ID3D12Device was created on, with memory bound (allocated with
     * VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT). Never destroyed by vkdml; it must outlive the resource
     * and every GPU use of it. */
    VkBuffer buffer;
    /* The VkBufferCreateInfo::usage it was created with: it must include
     * VK_BUFFER_USAGE_STORAGE_BUFFER_BIT and VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT (kernels reach
     * it through its device address). TRANSFER_SRC/DST make shim copies and clears of it valid. */
    VkBufferUsageFlags usage;
    /* The wrapped range: bytes [offset, offset + size) of the buffer become bytes [0, size) of the
     * resource (its Width). address + offset must be a multiple of 256 (DirectML's resource
     * alignment, which kernels' vector loads rely on); size must not be 0. */
    VkDeviceSize offset;
    VkDeviceSize size;
    /* vkGetBufferDeviceAddress of the buffer (of its byte 0, not of offset), or 0 to let vkdml query
     * it. A non-zero value is checked against the query. */
    VkDeviceAddress address;
    /* VkBufferCreateInfo::size, to check that the range fits; 0 when unknown (not checked). */
    VkDeviceSize buffer_size;
};

/* Wraps a range of an engine's VkBuffer as an ID3D12Resource of `d3d12_device` (an ID3D12Device *
 * returned by vkdml_create_device_from_vulkan): a DEFAULT-heap buffer with
 * ALLOW_UNORDERED_ACCESS, Width = size, GetGPUVirtualAddress() = address + offset, that binding
 * tables accept as any other (a binding larger than the range is refused there, as for every
 * buffer: DirectML then removes the DML device). No copy is made, and synchronisation stays with
 * the engine (see the barriers above). It cannot be mapped (use the engine's own mapping). `riid`
 * is a const IID * (NULL: IID_ID3D12Resource). Returns S_OK; E_INVALIDARG (logged) for a NULL or
 * foreign device, a device vkdml created itself (its VkDevice is not the engine's), or a bad
 * desc; E_POINTER for a NULL `resource`; E_OUTOFMEMORY. */
VKDML_API int32_t vkdml_wrap_vk_buffer(void *d3d12_device, const struct vkdml_vulkan_buffer_desc *desc,
        const void *riid, void **resource);

/* IDMLCommandRecorder::RecordDispatch(command_recorder, ..., dispatchable, binding_table) into an
 * engine's VkCommandBuffer in the recording state, under the contract above; `profiler` (may be
 * NULL) times it as vkdml_command_list_set_profiler does for a shim command list. The recorder,
 * dispatchable, binding table and profiler must belong to one device. `command_recorder` is an
 * IDMLCommandRecorder *, `dispatchable` an IDMLDispatchable * (IDMLCompiledOperator * or
 * IDMLOperatorInitializer *), `binding_table` an IDMLBindingTable *, all of vkdml.
 * Returns S_OK; E_INVALIDARG (logged, nothing recorded, the device unaffected) for a NULL or foreign
 * recorder, a NULL command buffer, a recorder whose DML device is not on an engine's VkDevice
 * (vkdml_create_device_from_vulkan) or a profiler of another device; DXGI_ERROR_DEVICE_REMOVED
 * when the DML device was removed before, or is removed now because the dispatchable or binding
 * table breaks a rule RecordDispatch would remove the device for (DirectML's rule: not this
 * device's objects, bindings incomplete without DESCRIPTORS_VOLATILE, initializing twice). */
VKDML_API int32_t vkdml_record_dispatch_vk(void *command_recorder, VkCommandBuffer command_buffer,
        void *dispatchable, void *binding_table, struct vkdml_profiler *profiler);

#ifdef __cplusplus
}
#endif

#endif /* VKDML_VULKAN_H */
