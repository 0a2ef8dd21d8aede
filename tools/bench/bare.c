/*
 * vkdml-bench's bare-Vulkan baselines. The CPU cost of RecordDispatch against a bare
 * vkCmdBindPipeline + vkCmdPushConstants + vkCmdDispatch, and vkdml's ADD against a plain Vulkan
 * kernel's bandwidth, need raw Vulkan: a Vulkan device of the bench's own on the same GPU (system
 * loader), with vkdml embedded on it (vkdml_vulkan.h), runs the same chain recorded with
 * vkdml_record_dispatch_vk and with a bare kernel doing the same addition (bare.comp), both timed
 * with the bench's own timestamps. Built without the loader, both are skipped.
 */
#include "bench.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef VKDML_BENCH_NO_VULKAN
# include "vkdml_vulkan.h"
# include "bare_spv.h"
#endif

#ifndef VKDML_BENCH_NO_VULKAN

/* ---- Raw Vulkan: a device of the bench's own, with vkdml embedded, for the bare baselines ---- */

/* bare.comp's push constants. */
struct bare_push
{
    VkDeviceAddress a, b, result;
    uint32_t count, pad;                /* count in vec4s */
};

#define BARE_GROUP_SIZE 256u            /* local_size_x */
#define BARE_MAX_GROUPS 65535u          /* maxComputeWorkGroupCount[0] guaranteed by Vulkan */
#define RAW_CHAIN_QUERIES 4u            /* two timestamps per chain, then two per bandwidth dispatch */

struct raw_buffer
{
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceAddress address;
    float *mapped;
};

enum raw_command_buffer
{
    RAW_VKDML_CHAIN,
    RAW_BARE_CHAIN,
    RAW_SCRATCH,
    RAW_COMMAND_BUFFER_COUNT,
};

enum raw_buffer_index
{
    RAW_X,
    RAW_BIAS,
    RAW_Y,
    RAW_BUFFER_COUNT,
};

struct raw
{
    bool validation;
    atomic_uint messages;
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice physical_device;
    VkPhysicalDeviceProperties properties;
    uint32_t family;
    VkDevice device;
    VkQueue queue;
    VkCommandPool pool;
    VkCommandBuffer cmd[RAW_COMMAND_BUFFER_COUNT];
    VkFence fence;
    VkQueryPool queries;
    uint64_t timestamp_mask;
    VkShaderModule module;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    struct raw_buffer buffers[RAW_BUFFER_COUNT];
    /* The bare triple through device-level entry points, as an engine using volk calls them
     * (vkdml does too): the loader's trampolines would add an indirection to the baseline. */
    PFN_vkCmdBindPipeline bind_pipeline;
    PFN_vkCmdPushConstants push_constants;
    PFN_vkCmdDispatch dispatch;

    /* vkdml on that device */
    ID3D12Device *d3d12;
    IDMLDevice *dml;
    IDMLCommandRecorder *recorder;
    ID3D12DescriptorHeap *heap;
    ID3D12Resource *wrapped[RAW_BUFFER_COUNT];
    IDMLCompiledOperator *compiled;
    IDMLBindingTable *tables[2];
};

static VKAPI_ATTR VkBool32 VKAPI_CALL raw_messenger_callback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
        VkDebugUtilsMessageTypeFlagsEXT types, const VkDebugUtilsMessengerCallbackDataEXT *data, void *user_data)
{
    struct raw *raw = user_data;

    atomic_fetch_add(&raw->messages, 1);
    fprintf(stderr, "vkdml-bench: validation (bench's own device): %s\n", data->pMessage);
    return VK_FALSE;
}

static bool layer_available(const char *name)
{
    VkLayerProperties layers[64];
    uint32_t count = ARRAY_SIZE(layers), i;

    vkEnumerateInstanceLayerProperties(&count, layers);
    for (i = 0; i < count; ++i)
    {
        if (!strcmp(layers[i].layerName, name))
            return true;
    }
    return false;
}

/* With VKDML_VALIDATION=1 (as vkdml's own devices), the validation layer and a messenger. */
static VkResult raw_create_instance(struct raw *raw)
{
    static const char *const layers[] = {"VK_LAYER_KHRONOS_validation"};
    static const char *const extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
    const char *validation = getenv("VKDML_VALIDATION");
    VkApplicationInfo application = {VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "vkdml-bench",
            .apiVersion = VK_API_VERSION_1_3};
    VkInstanceCreateInfo info = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &application};
    VkDebugUtilsMessengerCreateInfoEXT messenger = {VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
            .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT
                    | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
            .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
            .pfnUserCallback = raw_messenger_callback, .pUserData = raw};
    PFN_vkCreateDebugUtilsMessengerEXT create_messenger;
    VkResult vr;

    raw->validation = validation && !strcmp(validation, "1") && layer_available(layers[0]);
    if (raw->validation)
    {
        info.enabledLayerCount = 1;
        info.ppEnabledLayerNames = layers;
        info.enabledExtensionCount = 1;
        info.ppEnabledExtensionNames = extensions;
    }
    if ((vr = vkCreateInstance(&info, NULL, &raw->instance)) < 0 || !raw->validation)
        return vr;
    create_messenger = (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(raw->instance,
            "vkCreateDebugUtilsMessengerEXT");
    return create_messenger ? create_messenger(raw->instance, &messenger, NULL, &raw->messenger)
            : VK_ERROR_EXTENSION_NOT_PRESENT;
}

/* The physical device vkdml picked for the shim (same UUID), and a compute family with timestamps. */
static const char *raw_pick_device(struct raw *raw, const uint8_t *uuid)
{
    VkPhysicalDevice devices[16];
    VkQueueFamilyProperties families[16];
    uint32_t count = ARRAY_SIZE(devices), family_count = ARRAY_SIZE(families), i;

    if (vkEnumeratePhysicalDevices(raw->instance, &count, devices) < 0)
        return "vkEnumeratePhysicalDevices failed";
    for (i = 0; i < count && !raw->physical_device; ++i)
    {
        VkPhysicalDeviceIDProperties id = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
        VkPhysicalDeviceProperties2 properties = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &id};

        vkGetPhysicalDeviceProperties2(devices[i], &properties);
        if (!memcmp(id.deviceUUID, uuid, VK_UUID_SIZE))
        {
            raw->physical_device = devices[i];
            raw->properties = properties.properties;
        }
    }
    if (!raw->physical_device)
        return "the adapter was not found by UUID through the system Vulkan loader";
    if (raw->properties.apiVersion < VK_API_VERSION_1_3)
        return "the raw-Vulkan comparison needs a Vulkan 1.3 device";
    vkGetPhysicalDeviceQueueFamilyProperties(raw->physical_device, &family_count, families);
    for (i = 0; i < family_count; ++i)
    {
        if ((families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && families[i].timestampValidBits)
        {
            raw->family = i;
            raw->timestamp_mask = families[i].timestampValidBits >= 64 ? ~0ull
                    : (1ull << families[i].timestampValidBits) - 1;
            return NULL;
        }
    }
    return "no compute queue family with timestamps";
}

/* What vkdml requires (bufferDeviceAddress, timelineSemaphore, synchronization2), nothing more:
 * the chain is FLOAT32. */
static const char *raw_create_device(struct raw *raw, VkPhysicalDeviceFeatures2 *features,
        VkPhysicalDeviceVulkan12Features *features12, VkPhysicalDeviceVulkan13Features *features13)
{
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = raw->family,
            .queueCount = 1, .pQueuePriorities = &priority};
    VkDeviceCreateInfo info = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, features, 0, 1, &queue};

    *features13 = (VkPhysicalDeviceVulkan13Features){VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    *features12 = (VkPhysicalDeviceVulkan12Features){VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, features13};
    *features = (VkPhysicalDeviceFeatures2){VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, features12};
    vkGetPhysicalDeviceFeatures2(raw->physical_device, features);
    if (!features12->bufferDeviceAddress || !features12->timelineSemaphore || !features13->synchronization2)
        return "the device lacks bufferDeviceAddress, timelineSemaphore or synchronization2";
    /* Enable exactly the three. */
    *features13 = (VkPhysicalDeviceVulkan13Features){VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
            .synchronization2 = VK_TRUE};
    *features12 = (VkPhysicalDeviceVulkan12Features){VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, features13,
            .bufferDeviceAddress = VK_TRUE, .timelineSemaphore = VK_TRUE};
    *features = (VkPhysicalDeviceFeatures2){VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, features12};
    if (vkCreateDevice(raw->physical_device, &info, NULL, &raw->device) < 0)
        return "vkCreateDevice failed";
    vkGetDeviceQueue(raw->device, raw->family, 0, &raw->queue);
    raw->bind_pipeline = (PFN_vkCmdBindPipeline)vkGetDeviceProcAddr(raw->device, "vkCmdBindPipeline");
    raw->push_constants = (PFN_vkCmdPushConstants)vkGetDeviceProcAddr(raw->device, "vkCmdPushConstants");
    raw->dispatch = (PFN_vkCmdDispatch)vkGetDeviceProcAddr(raw->device, "vkCmdDispatch");
    return NULL;
}

static const char *raw_create_commands(struct raw *raw)
{
    VkCommandPoolCreateInfo pool = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
            .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, .queueFamilyIndex = raw->family};
    VkCommandBufferAllocateInfo allocate = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
            .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = RAW_COMMAND_BUFFER_COUNT};
    VkFenceCreateInfo fence = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkQueryPoolCreateInfo queries = {VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, .queryType = VK_QUERY_TYPE_TIMESTAMP,
            .queryCount = RAW_CHAIN_QUERIES + 2 * MAX_BATCH};

    if (vkCreateCommandPool(raw->device, &pool, NULL, &raw->pool) < 0)
        return "vkCreateCommandPool failed";
    allocate.commandPool = raw->pool;
    if (vkAllocateCommandBuffers(raw->device, &allocate, raw->cmd) < 0 || vkCreateFence(raw->device, &fence, NULL,
            &raw->fence) < 0 || vkCreateQueryPool(raw->device, &queries, NULL, &raw->queries) < 0)
        return "command buffers, fence or query pool could not be created";
    return NULL;
}

static const char *raw_create_pipeline(struct raw *raw)
{
    VkShaderModuleCreateInfo module = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
            .codeSize = sizeof(bench_bare_spv), .pCode = bench_bare_spv};
    VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(struct bare_push)};
    VkPipelineLayoutCreateInfo layout = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
            .pushConstantRangeCount = 1, .pPushConstantRanges = &range};
    VkComputePipelineCreateInfo pipeline = {VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
            .stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_COMPUTE_BIT,
            .pName = "main"}};

    if (vkCreateShaderModule(raw->device, &module, NULL, &raw->module) < 0
            || vkCreatePipelineLayout(raw->device, &layout, NULL, &raw->layout) < 0)
        return "the bare kernel's module or layout could not be created";
    pipeline.stage.module = raw->module;
    pipeline.layout = raw->layout;
    if (vkCreateComputePipelines(raw->device, VK_NULL_HANDLE, 1, &pipeline, NULL, &raw->pipeline) < 0)
        return "the bare kernel's pipeline could not be created";
    return NULL;
}

/* Mapped buffers get host-visible memory, device-local where the device has such (the GPU then
 * reads VRAM); the others device-local memory. */
static int raw_memory_type(struct raw *raw, uint32_t type_bits, bool mapped)
{
    static const VkMemoryPropertyFlags wanted[][2] =
    {
        {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT},
        {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT
                | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT},
    };
    VkPhysicalDeviceMemoryProperties memory;
    uint32_t i, j;

    vkGetPhysicalDeviceMemoryProperties(raw->physical_device, &memory);
    for (j = 0; j < 2; ++j)
    {
        for (i = 0; i < memory.memoryTypeCount; ++i)
        {
            if ((type_bits & (1u << i))
                    && (memory.memoryTypes[i].propertyFlags & wanted[mapped][j]) == wanted[mapped][j])
                return (int)i;
        }
    }
    return -1;
}

static const char *raw_create_buffer(struct raw *raw, VkDeviceSize size, bool mapped, struct raw_buffer *buffer)
{
    VkBufferCreateInfo info = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size,
            .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT
                    | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
            .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VkMemoryAllocateFlagsInfo flags = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
            .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT};
    VkMemoryAllocateInfo allocate = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &flags};
    VkBufferDeviceAddressInfo address = {VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
    VkMemoryRequirements requirements;
    int type;

    if (vkCreateBuffer(raw->device, &info, NULL, &buffer->buffer) < 0)
        return "vkCreateBuffer failed";
    vkGetBufferMemoryRequirements(raw->device, buffer->buffer, &requirements);
    if ((type = raw_memory_type(raw, requirements.memoryTypeBits, mapped)) < 0)
        return "no suitable memory type for the bench's buffers";
    allocate.allocationSize = requirements.size;
    allocate.memoryTypeIndex = (uint32_t)type;
    if (vkAllocateMemory(raw->device, &allocate, NULL, &buffer->memory) < 0
            || vkBindBufferMemory(raw->device, buffer->buffer, buffer->memory, 0) < 0
            || (mapped && vkMapMemory(raw->device, buffer->memory, 0, VK_WHOLE_SIZE, 0, (void **)&buffer->mapped) < 0))
        return "the bench's buffer memory could not be allocated";
    address.buffer = buffer->buffer;
    buffer->address = vkGetBufferDeviceAddress(raw->device, &address);
    return NULL;
}

static void raw_submit(struct raw *raw, VkCommandBuffer cmd)
{
    VkSubmitInfo submit = {VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};

    if (vkQueueSubmit(raw->queue, 1, &submit, raw->fence) < 0
            || vkWaitForFences(raw->device, 1, &raw->fence, VK_TRUE, UINT64_MAX) < 0)
    {
        fprintf(stderr, "vkdml-bench: vkQueueSubmit/vkWaitForFences failed on the bench's own device\n");
        exit(1);
    }
    vkResetFences(raw->device, 1, &raw->fence);
}

static void raw_destroy_buffer(struct raw *raw, struct raw_buffer *buffer)
{
    if (buffer->buffer)
        vkDestroyBuffer(raw->device, buffer->buffer, NULL);
    if (buffer->memory)
        vkFreeMemory(raw->device, buffer->memory, NULL);
    memset(buffer, 0, sizeof(*buffer));
}

/* A global memory barrier; from compute writes, it is a D3D12 UAV barrier. */
static void raw_barrier(VkCommandBuffer cmd, VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
        VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access)
{
    VkMemoryBarrier2 barrier = {VK_STRUCTURE_TYPE_MEMORY_BARRIER_2, .srcStageMask = src_stage,
            .srcAccessMask = src_access, .dstStageMask = dst_stage, .dstAccessMask = dst_access};
    VkDependencyInfo dependency = {VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .memoryBarrierCount = 1,
            .pMemoryBarriers = &barrier};

    vkCmdPipelineBarrier2(cmd, &dependency);
}

static void raw_begin(VkCommandBuffer cmd)
{
    VkCommandBufferBeginInfo begin = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};

    vkResetCommandBuffer(cmd, 0);
    vkBeginCommandBuffer(cmd, &begin);
}

/* vkdml's device, heap, wrapped buffers, compiled ADD (initialized) and two tables. */
static const char *raw_create_vkdml(struct raw *raw, VkPhysicalDeviceFeatures2 *features)
{
    static const char *const extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
    struct vkdml_vulkan_device_desc desc = {sizeof(desc), .get_instance_proc_addr = vkGetInstanceProcAddr,
            .instance = raw->instance, .instance_api_version = VK_API_VERSION_1_3,
            .enabled_instance_extension_count = raw->validation, .enabled_instance_extensions = extensions,
            .physical_device = raw->physical_device, .device = raw->device, .queue_family_index = raw->family,
            .enabled_features = features,
            .flags = raw->validation ? VKDML_VULKAN_DEVICE_FLAG_VALIDATION_LAYER : 0};
    D3D12_DESCRIPTOR_HEAP_DESC heap = {D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, 3 * TABLE_DESCRIPTORS,
            D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, 0};
    unsigned int i;

    if (FAILED(vkdml_create_device_from_vulkan(&desc, DML_CREATE_DEVICE_FLAG_NONE, &IID_IDMLDevice,
            (void **)&raw->dml, &IID_ID3D12Device, (void **)&raw->d3d12))
            || FAILED(IDMLDevice_CreateCommandRecorder(raw->dml, &IID_IDMLCommandRecorder, (void **)&raw->recorder))
            || FAILED(ID3D12Device_CreateDescriptorHeap(raw->d3d12, &heap, &IID_ID3D12DescriptorHeap,
            (void **)&raw->heap)))
        return "vkdml could not be embedded on the bench's own device";
    for (i = 0; i < RAW_BUFFER_COUNT; ++i)
    {
        struct vkdml_vulkan_buffer_desc buffer = {sizeof(buffer), .buffer = raw->buffers[i].buffer,
                .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT,
                .size = CHAIN_ELEMENTS * sizeof(float), .address = raw->buffers[i].address};

        if (FAILED(vkdml_wrap_vk_buffer(raw->d3d12, &buffer, &IID_ID3D12Resource, (void **)&raw->wrapped[i])))
            return "vkdml_wrap_vk_buffer failed";
    }
    return NULL;
}

/* A binding table in region `region` of the embedded device's heap. */
static HRESULT raw_create_table(struct raw *raw, void *dispatchable, UINT region, IDMLBindingTable **table)
{
    D3D12_CPU_DESCRIPTOR_HANDLE cpu = ID3D12DescriptorHeap_GetCPUDescriptorHandleForHeapStart(raw->heap);
    D3D12_GPU_DESCRIPTOR_HANDLE gpu = ID3D12DescriptorHeap_GetGPUDescriptorHandleForHeapStart(raw->heap);
    UINT increment = ID3D12Device_GetDescriptorHandleIncrementSize(raw->d3d12, D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);
    DML_BINDING_TABLE_DESC desc;

    cpu.ptr += (SIZE_T)region * TABLE_DESCRIPTORS * increment;
    gpu.ptr += (UINT64)region * TABLE_DESCRIPTORS * increment;
    desc.Dispatchable = dispatchable;
    desc.CPUDescriptorHandle = cpu;
    desc.GPUDescriptorHandle = gpu;
    desc.SizeInDescriptors = TABLE_DESCRIPTORS;
    return IDMLDevice_CreateBindingTable(raw->dml, &desc, &IID_IDMLBindingTable, (void **)table);
}

/* The chain's ADD on the embedded device, initialized through vkdml_record_dispatch_vk. Only
 * operators without persistent or temporary resources are handled (the bench has no wrapped
 * buffers for those): FLOAT32 ADD needs none. */
static const char *raw_compile(struct raw *raw, struct workload *w)
{
    DML_OPERATOR_DESC desc = {w->op->type, &w->desc};
    DML_BINDING_DESC none = {DML_BINDING_TYPE_NONE, NULL};
    IDMLOperatorInitializer *initializer;
    DML_BINDING_PROPERTIES properties;
    IDMLBindingTable *table;
    IDMLOperator *op;
    HRESULT hr;

    if (FAILED(IDMLDevice_CreateOperator(raw->dml, &desc, &IID_IDMLOperator, (void **)&op)))
        return "CreateOperator(ELEMENT_WISE_ADD) failed on the embedded device";
    hr = IDMLDevice_CompileOperator(raw->dml, op, DML_EXECUTION_FLAG_NONE, &IID_IDMLCompiledOperator,
            (void **)&raw->compiled);
    IDMLOperator_Release(op);
    if (FAILED(hr))
        return "CompileOperator(ELEMENT_WISE_ADD) failed on the embedded device";
    properties = IDMLCompiledOperator_GetBindingPropertiesByValue(raw->compiled);
    if (properties.PersistentResourceSize || properties.TemporaryResourceSize)
        return "the chain's ADD needs a persistent or temporary resource; the raw path binds none";
    if (FAILED(IDMLDevice_CreateOperatorInitializer(raw->dml, 1, &raw->compiled, &IID_IDMLOperatorInitializer,
            (void **)&initializer)))
        return "CreateOperatorInitializer failed on the embedded device";
    hr = raw_create_table(raw, initializer, 2, &table);
    if (SUCCEEDED(hr))
    {
        IDMLBindingTable_BindInputs(table, 1, &none);
        IDMLBindingTable_BindOutputs(table, 1, &none);
        raw_begin(raw->cmd[RAW_SCRATCH]);
        hr = vkdml_record_dispatch_vk(raw->recorder, raw->cmd[RAW_SCRATCH], initializer, table, NULL);
        vkEndCommandBuffer(raw->cmd[RAW_SCRATCH]);
        raw_submit(raw, raw->cmd[RAW_SCRATCH]);
        IDMLBindingTable_Release(table);
    }
    IDMLOperatorInitializer_Release(initializer);
    return FAILED(hr) ? "the initializer could not be recorded on the embedded device" : NULL;
}

/* Tables 0 (x + bias -> y) and 1 (y + bias -> x), as in the shim chain. */
static const char *raw_bind(struct raw *raw)
{
    ID3D12Resource *sources[2] = {raw->wrapped[RAW_X], raw->wrapped[RAW_Y]};
    DML_BUFFER_BINDING storage[3];
    DML_BINDING_DESC inputs[2], output;
    unsigned int i;

    for (i = 0; i < 2; ++i)
    {
        if (FAILED(raw_create_table(raw, raw->compiled, i, &raw->tables[i])))
            return "binding tables could not be created on the embedded device";
        inputs[0] = tool_buffer_binding(&storage[0], sources[i], CHAIN_ELEMENTS * sizeof(float));
        inputs[1] = tool_buffer_binding(&storage[1], raw->wrapped[RAW_BIAS], CHAIN_ELEMENTS * sizeof(float));
        output = tool_buffer_binding(&storage[2], sources[!i], CHAIN_ELEMENTS * sizeof(float));
        IDMLBindingTable_BindInputs(raw->tables[i], 2, inputs);
        IDMLBindingTable_BindOutputs(raw->tables[i], 1, &output);
    }
    return NULL;
}

/* The bare triple: result = a + b over `count` floats (a multiple of 4). */
static void raw_record_add(struct raw *raw, VkCommandBuffer cmd, VkDeviceAddress a, VkDeviceAddress b,
        VkDeviceAddress result, UINT64 count)
{
    struct bare_push push = {a, b, result, (uint32_t)(count / 4), 0};
    UINT64 groups = (push.count + BARE_GROUP_SIZE - 1) / BARE_GROUP_SIZE;

    raw->bind_pipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, raw->pipeline);
    raw->push_constants(cmd, raw->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), &push);
    raw->dispatch(cmd, (uint32_t)(groups < BARE_MAX_GROUPS ? groups : BARE_MAX_GROUPS), 1, 1);
}

/* Step `step` of the chain: x + bias -> y on even steps, y + bias -> x on odd ones. */
static void raw_record_bare(struct raw *raw, VkCommandBuffer cmd, unsigned int step)
{
    VkDeviceAddress x = raw->buffers[RAW_X].address, y = raw->buffers[RAW_Y].address;

    raw_record_add(raw, cmd, step & 1 ? y : x, raw->buffers[RAW_BIAS].address, step & 1 ? x : y, CHAIN_ELEMENTS);
}

static void raw_uav_barrier(VkCommandBuffer cmd)
{
    raw_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
            VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
            VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
}

/* The chain between two timestamps (queries 2 * which, 2 * which + 1), then made visible to the host. */
static bool raw_record_chain(struct raw *raw, enum raw_command_buffer which)
{
    VkCommandBuffer cmd = raw->cmd[which];
    uint32_t query = 2 * (uint32_t)which;
    unsigned int step;
    bool ok = true;

    raw_begin(cmd);
    vkCmdResetQueryPool(cmd, raw->queries, query, 2);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, raw->queries, query);
    for (step = 0; step < CHAIN_LENGTH; ++step)
    {
        if (which == RAW_BARE_CHAIN)
            raw_record_bare(raw, cmd, step);
        else
            ok &= SUCCEEDED(vkdml_record_dispatch_vk(raw->recorder, cmd, raw->compiled, raw->tables[step & 1],
                    NULL));
        raw_uav_barrier(cmd);
    }
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, raw->queries, query + 1);
    raw_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
            VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
    return vkEndCommandBuffer(cmd) >= 0 && ok;
}

/* Both chains from x0 must give the CPU's sums exactly. */
static bool raw_check(struct raw *raw, const struct chain *c)
{
    static const char *const names[] = {"dispatch chain (vkdml_record_dispatch_vk)", "dispatch chain (bare Vulkan)"};
    bool ok = true;
    unsigned int i;

    memcpy(raw->buffers[RAW_BIAS].mapped, c->bias0, sizeof(c->bias0));
    for (i = RAW_VKDML_CHAIN; i <= RAW_BARE_CHAIN; ++i)
    {
        memcpy(raw->buffers[RAW_X].mapped, c->x0, sizeof(c->x0));
        raw_submit(raw, raw->cmd[i]);
        ok &= chain_matches(raw->buffers[RAW_X].mapped, c->expected, names[i]);
    }
    return ok;
}

/* GPU µs per dispatch of one run of chain `which`. */
static double raw_time_chain(struct raw *raw, enum raw_command_buffer which)
{
    uint64_t ticks[2];

    raw_submit(raw, raw->cmd[which]);
    vkGetQueryPoolResults(raw->device, raw->queries, 2 * (uint32_t)which, 2, sizeof(ticks), ticks, sizeof(ticks[0]),
            VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    return (double)((ticks[1] - ticks[0]) & raw->timestamp_mask) * raw->properties.limits.timestampPeriod * 1e-3
            / CHAIN_LENGTH;
}

struct raw_execution
{
    struct raw *raw;
    VkCommandBuffer cmd;
};

static void raw_execute_callback(void *context)
{
    struct raw_execution *execution = context;

    raw_submit(execution->raw, execution->cmd);
}

static void raw_time_chains(struct bench *b, struct raw *raw, struct dispatch_result *d)
{
    struct raw_execution execution = {raw, raw->cmd[RAW_BARE_CHAIN]};
    double *samples[2];
    unsigned int run, i;

    samples[0] = calloc(d->runs, sizeof(double));
    samples[1] = calloc(d->runs, sizeof(double));
    warm_up(b, CHAIN_LENGTH, raw_execute_callback, &execution);
    /* Alternated, so clock changes during the runs affect both alike. */
    for (run = 0; samples[0] && samples[1] && run < d->runs; ++run)
    {
        progress_update(b, "small-dispatch", "raw chains", run, d->runs);
        for (i = 0; i < 2; ++i)
            samples[i][run] = raw_time_chain(raw, i);
    }
    if (samples[0] && samples[1])
    {
        d->embed_gpu_us = median_of(samples[0], d->runs);
        d->bare_gpu_us = median_of(samples[1], d->runs);
    }
    free(samples[0]);
    free(samples[1]);
}

/* CPU µs per vkdml_record_dispatch_vk and per bare triple, into the scratch command buffer. */
static void raw_time_recording(struct raw *raw, struct dispatch_result *d)
{
    double vkdml_us[RECORD_REPEATS], bare_us[RECORD_REPEATS];
    VkCommandBuffer cmd = raw->cmd[RAW_SCRATCH];
    unsigned int repeat, i;
    uint64_t start;

    for (repeat = 0; repeat < RECORD_REPEATS; ++repeat)
    {
        raw_begin(cmd);
        start = now_ns();
        for (i = 0; i < RECORD_CALLS; ++i)
            vkdml_record_dispatch_vk(raw->recorder, cmd, raw->compiled, raw->tables[0], NULL);
        vkdml_us[repeat] = (now_ns() - start) * 1e-3 / RECORD_CALLS;
        vkEndCommandBuffer(cmd);
        raw_begin(cmd);
        start = now_ns();
        for (i = 0; i < RECORD_CALLS; ++i)
            raw_record_bare(raw, cmd, 0);
        bare_us[repeat] = (now_ns() - start) * 1e-3 / RECORD_CALLS;
        vkEndCommandBuffer(cmd);
    }
    d->embed_record_us = median_of(vkdml_us, RECORD_REPEATS);
    d->bare_record_us = median_of(bare_us, RECORD_REPEATS);
}

static unsigned int release_unknown(IUnknown *object)
{
    return object ? object->lpVtbl->Release(object) : 0;
}

static void raw_destroy(struct raw *raw)
{
    unsigned int i;

    if (raw->device)
        vkDeviceWaitIdle(raw->device);
    for (i = 0; i < 2; ++i)
        release_unknown((IUnknown *)raw->tables[i]);
    release_unknown((IUnknown *)raw->compiled);
    for (i = 0; i < RAW_BUFFER_COUNT; ++i)
        release_unknown((IUnknown *)raw->wrapped[i]);
    release_unknown((IUnknown *)raw->heap);
    release_unknown((IUnknown *)raw->recorder);
    release_unknown((IUnknown *)raw->dml);
    if (release_unknown((IUnknown *)raw->d3d12))
        fprintf(stderr, "vkdml-bench: the embedded D3D12 device still has references\n");
    for (i = 0; raw->device && i < RAW_BUFFER_COUNT; ++i)
        raw_destroy_buffer(raw, &raw->buffers[i]);
    if (raw->device)
    {
        vkDestroyPipeline(raw->device, raw->pipeline, NULL);
        vkDestroyPipelineLayout(raw->device, raw->layout, NULL);
        vkDestroyShaderModule(raw->device, raw->module, NULL);
        vkDestroyQueryPool(raw->device, raw->queries, NULL);
        vkDestroyFence(raw->device, raw->fence, NULL);
        vkDestroyCommandPool(raw->device, raw->pool, NULL);
        vkDestroyDevice(raw->device, NULL);
    }
    if (raw->messenger)
    {
        PFN_vkDestroyDebugUtilsMessengerEXT destroy = (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
                raw->instance, "vkDestroyDebugUtilsMessengerEXT");

        if (destroy)
            destroy(raw->instance, raw->messenger, NULL);
    }
    if (raw->instance)
        vkDestroyInstance(raw->instance, NULL);
}

/* Instance, device on the shim's adapter, command buffers, the bare pipeline; NULL, or why the raw
 * part cannot run here. `features` receives the enabled feature chain. */
static const char *raw_open(struct bench *b, struct raw *raw, VkPhysicalDeviceFeatures2 *features,
        VkPhysicalDeviceVulkan12Features *features12, VkPhysicalDeviceVulkan13Features *features13)
{
    const char *why;

    if (raw_create_instance(raw) < 0)
        return "no Vulkan 1.3 instance through the system loader";
    if ((why = raw_pick_device(raw, b->adapter.device_uuid)) || (why = raw_create_device(raw, features, features12,
            features13)) || (why = raw_create_commands(raw)) || (why = raw_create_pipeline(raw)))
        return why;
    return NULL;
}

/* Everything up to recorded chains; NULL, or why the raw part cannot run here. */
static const char *raw_setup(struct bench *b, struct raw *raw, struct chain *c)
{
    VkPhysicalDeviceVulkan13Features features13;
    VkPhysicalDeviceVulkan12Features features12;
    VkPhysicalDeviceFeatures2 features;
    const char *why;
    unsigned int i;

    if ((why = raw_open(b, raw, &features, &features12, &features13)))
        return why;
    for (i = 0; i < RAW_BUFFER_COUNT; ++i)
    {
        if ((why = raw_create_buffer(raw, CHAIN_ELEMENTS * sizeof(float), true, &raw->buffers[i])))
            return why;
    }
    if ((why = raw_create_vkdml(raw, &features)) || (why = raw_compile(raw, &c->w)) || (why = raw_bind(raw)))
        return why;
    if (!raw_record_chain(raw, RAW_VKDML_CHAIN) || !raw_record_chain(raw, RAW_BARE_CHAIN))
        return "vkdml_record_dispatch_vk failed (the log says why)";
    return NULL;
}

void run_raw_dispatch(struct bench *b, struct chain *c, struct dispatch_result *d)
{
    struct raw raw;
    const char *why;

    memset(&raw, 0, sizeof(raw));
    if ((why = raw_setup(b, &raw, c)))
        snprintf(d->raw_reason, sizeof(d->raw_reason), "%s", why);
    else
    {
        if (b->check && !raw_check(&raw, c))
            d->check = 0;
        raw_time_chains(b, &raw, d);
        raw_time_recording(&raw, d);
        d->have_raw = true;
    }
    raw_destroy(&raw);
    if (atomic_load(&raw.messages))
        atomic_fetch_add(&validation_messages, atomic_load(&raw.messages));
}

/* ---- The bare-Vulkan bandwidth baseline: result = a + b on large device-local buffers ---- */

enum bare_buffer
{
    BARE_A,
    BARE_B,
    BARE_RESULT,
    BARE_BUFFER_COUNT,
};

/* Inputs of 1.0 and 2.0 (vkCmdFillBuffer): values do not change a streaming kernel's speed. */
static const char *bare_add_create(struct raw *raw, UINT64 count, struct raw_buffer *buffers)
{
    static const uint32_t patterns[BARE_BUFFER_COUNT] = {0x3f800000u, 0x40000000u, 0};
    VkCommandBuffer cmd = raw->cmd[RAW_SCRATCH];
    const char *why;
    unsigned int i;

    for (i = 0; i < BARE_BUFFER_COUNT; ++i)
    {
        if ((why = raw_create_buffer(raw, count * sizeof(float), false, &buffers[i])))
            return why;
    }
    raw_begin(cmd);
    for (i = 0; i < BARE_BUFFER_COUNT; ++i)
        vkCmdFillBuffer(cmd, buffers[i].buffer, 0, VK_WHOLE_SIZE, patterns[i]);
    raw_barrier(cmd, VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
            VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
            VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    vkEndCommandBuffer(cmd);
    raw_submit(raw, cmd);
    return NULL;
}

/* `batch` adds, each between two timestamps (as vkdml's profiler places them) and followed by a
 * UAV barrier, in the scratch command buffer. */
static void bare_add_record(struct raw *raw, UINT64 count, const struct raw_buffer *buffers, unsigned int batch)
{
    VkCommandBuffer cmd = raw->cmd[RAW_SCRATCH];
    unsigned int i;

    raw_begin(cmd);
    vkCmdResetQueryPool(cmd, raw->queries, RAW_CHAIN_QUERIES, 2 * batch);
    for (i = 0; i < batch; ++i)
    {
        vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, raw->queries, RAW_CHAIN_QUERIES + 2 * i);
        raw_record_add(raw, cmd, buffers[BARE_A].address, buffers[BARE_B].address, buffers[BARE_RESULT].address,
                count);
        vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, raw->queries, RAW_CHAIN_QUERIES + 2 * i + 1);
        raw_uav_barrier(cmd);
    }
    vkEndCommandBuffer(cmd);
}

/* Warm-up, then the batch until `iterations` adds are timed (µs into gpu_us). */
static void bare_add_time(struct bench *b, struct raw *raw, unsigned int batch, double *gpu_us, const char *name)
{
    struct raw_execution execution = {raw, raw->cmd[RAW_SCRATCH]};
    double period = raw->properties.limits.timestampPeriod;
    uint64_t ticks[2 * MAX_BATCH];
    unsigned int samples = 0, i;

    warm_up(b, batch, raw_execute_callback, &execution);
    while (samples < b->iterations)
    {
        progress_update(b, name, "timed", samples, b->iterations);
        raw_submit(raw, raw->cmd[RAW_SCRATCH]);
        vkGetQueryPoolResults(raw->device, raw->queries, RAW_CHAIN_QUERIES, 2 * batch, sizeof(ticks), ticks,
                sizeof(ticks[0]), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
        for (i = 0; i < batch && samples < b->iterations; ++i)
            gpu_us[samples++] = (double)((ticks[2 * i + 1] - ticks[2 * i]) & raw->timestamp_mask) * period * 1e-3;
    }
}

/* What a plain Vulkan kernel gets from memory, timed as vkdml's operators are: the ceiling for
 * vkdml's ELEMENT_WISE_ADD of the same size, measured in the same run. */
void run_bare_add(struct bench *b, const struct preset *p, struct result *r)
{
    unsigned int batch = b->iterations < MAX_BATCH ? b->iterations : MAX_BATCH;
    struct raw_buffer buffers[BARE_BUFFER_COUNT];
    VkPhysicalDeviceVulkan13Features features13;
    VkPhysicalDeviceVulkan12Features features12;
    VkPhysicalDeviceFeatures2 features;
    UINT dims[MAX_DIMS];
    struct raw raw;
    double *gpu_us = calloc(b->iterations, sizeof(*gpu_us));
    const char *why;
    unsigned int i;

    memset(&raw, 0, sizeof(raw));
    memset(buffers, 0, sizeof(buffers));
    if (parse_shape(p->shape, dims) != 1 || dims[0] % 4)
        fail(r, "the bare add takes one dimension, a multiple of 4");
    else if (!gpu_us)
        fail(r, "out of memory");
    else if ((why = raw_open(b, &raw, &features, &features12, &features13))
            || (why = bare_add_create(&raw, dims[0], buffers)))
        skip(r, "%s", why);
    else
    {
        bare_add_record(&raw, dims[0], buffers, batch);
        bare_add_time(b, &raw, batch, gpu_us, r->name);
        statistics(gpu_us, b->iterations, &r->gpu_min_us, &r->gpu_median_us, &r->gpu_p90_us);
        r->bytes = 3.0 * dims[0] * sizeof(float);
        r->flops = dims[0];
        derive_rates(b, p, r);
    }
    for (i = 0; raw.device && i < BARE_BUFFER_COUNT; ++i)
        raw_destroy_buffer(&raw, &buffers[i]);
    raw_destroy(&raw);
    if (atomic_load(&raw.messages))
        atomic_fetch_add(&validation_messages, atomic_load(&raw.messages));
    free(gpu_us);
}

#else

void run_raw_dispatch(struct bench *b, struct chain *c, struct dispatch_result *d)
{
    snprintf(d->raw_reason, sizeof(d->raw_reason), "built without the Vulkan loader (no bare baseline)");
}

void run_bare_add(struct bench *b, const struct preset *p, struct result *r)
{
    skip(r, "built without the Vulkan loader (no bare baseline)");
}

#endif /* VKDML_BENCH_NO_VULKAN */
