/* The embedding tests' engine (engine.h): plain Vulkan through the system loader, as an engine has it. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine.h"
#include "engine_scale.h"

#define VK_OK(expr) assert_int_equal((expr), VK_SUCCESS)

static const char validation_layer[] = "VK_LAYER_KHRONOS_validation";

static VKAPI_ATTR VkBool32 VKAPI_CALL engine_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
        VkDebugUtilsMessageTypeFlagsEXT types, const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    struct engine *engine = user;

    fprintf(stderr, "  [engine validation] %s: %s\n", data->pMessageIdName ? data->pMessageIdName : "",
            data->pMessage ? data->pMessage : "");
    ++engine->validation_messages;
    return VK_FALSE;
}

static bool layer_present(const char *name)
{
    VkLayerProperties layers[64];
    uint32_t count = 64, i;

    if (vkEnumerateInstanceLayerProperties(&count, layers) < 0)
        return false;
    for (i = 0; i < count; ++i)
    {
        if (!strcmp(layers[i].layerName, name))
            return true;
    }
    return false;
}

static bool instance_extension_present(const char *layer, const char *name)
{
    VkExtensionProperties extensions[128];
    uint32_t count = 128, i;

    if (vkEnumerateInstanceExtensionProperties(layer, &count, extensions) < 0)
        return false;
    for (i = 0; i < count; ++i)
    {
        if (!strcmp(extensions[i].extensionName, name))
            return true;
    }
    return false;
}

/* The same switch the test suite sets for vkdml: VKDML_VALIDATION=1. */
static bool validation_wanted(void)
{
    const char *value = getenv("VKDML_VALIDATION");

    return value && *value && strcmp(value, "0") && layer_present(validation_layer);
}

static void create_messenger(struct engine *engine)
{
    PFN_vkCreateDebugUtilsMessengerEXT create = (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
            engine->instance, "vkCreateDebugUtilsMessengerEXT");
    VkDebugUtilsMessengerCreateInfoEXT info =
    {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT
                | VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT
                | VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = engine_message,
        .pUserData = engine,
    };

    assert_non_null(create);
    VK_OK(create(engine->instance, &info, NULL, &engine->messenger));
}

static void create_instance(struct engine *engine)
{
    const char *layers[1];
    uint32_t layer_count = 0, loader_version = VK_API_VERSION_1_0;
    VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO};
    VkInstanceCreateInfo info = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};

    vkEnumerateInstanceVersion(&loader_version);
    engine->api_version = loader_version >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3 : VK_API_VERSION_1_2;
    if ((engine->validation = validation_wanted()))
        layers[layer_count++] = validation_layer;
    if (instance_extension_present(NULL, VK_EXT_DEBUG_UTILS_EXTENSION_NAME)
            || (engine->validation && instance_extension_present(validation_layer, VK_EXT_DEBUG_UTILS_EXTENSION_NAME)))
        engine->instance_extensions[engine->instance_extension_count++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    app.pApplicationName = "vkdml embedding test engine";
    app.apiVersion = engine->api_version;
    info.pApplicationInfo = &app;
    info.enabledLayerCount = layer_count;
    info.ppEnabledLayerNames = layers;
    info.enabledExtensionCount = engine->instance_extension_count;
    info.ppEnabledExtensionNames = engine->instance_extensions;
    VK_OK(vkCreateInstance(&info, NULL, &engine->instance));
    if (engine->validation && engine->instance_extension_count)
        create_messenger(engine);
}

/* The adapter vkdml would choose, found by UUID (indices may differ between instances). */
static void choose_physical_device(struct engine *engine)
{
    VkPhysicalDevice devices[16];
    struct vkdml_adapter_info adapter;
    uint32_t count = 16, i;
    int index = vkdml_select_adapter(NULL);

    assert_true(index >= 0);
    assert_int_equal(vkdml_get_adapter_info((uint32_t)index, &adapter, sizeof(adapter)), 0);
    assert_true(vkEnumeratePhysicalDevices(engine->instance, &count, devices) >= 0);
    for (i = 0; i < count; ++i)
    {
        VkPhysicalDeviceIDProperties id = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
        VkPhysicalDeviceProperties2 properties = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &id};

        vkGetPhysicalDeviceProperties2(devices[i], &properties);
        if (!memcmp(id.deviceUUID, adapter.device_uuid, VK_UUID_SIZE))
        {
            engine->physical_device = devices[i];
            if (properties.properties.apiVersion < engine->api_version)
                engine->api_version = VK_API_VERSION_1_2;
            return;
        }
    }
    fail_msg("the adapter vkdml selects (\"%s\") is not among this instance's devices", adapter.name);
}

static void choose_queue_family(struct engine *engine)
{
    VkQueueFamilyProperties families[16];
    uint32_t count = 16, i;

    vkGetPhysicalDeviceQueueFamilyProperties(engine->physical_device, &count, families);
    for (i = 0; i < count; ++i)
    {
        if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT)
        {
            engine->queue_family = i;
            engine->queue_count = families[i].queueCount;
            return;
        }
    }
    fail_msg("no compute queue family");
}

/* What an engine typically turns on, minus what the test switches off. */
static void choose_features(struct engine *engine, const struct engine_options *options)
{
    VkPhysicalDeviceVulkan12Features available12 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceVulkan11Features available11 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES,
            &available12};
    VkPhysicalDeviceFeatures2 available = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &available11};

    vkGetPhysicalDeviceFeatures2(engine->physical_device, &available);
    engine->features = (VkPhysicalDeviceFeatures2){VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &engine->features11};
    engine->features11 = (VkPhysicalDeviceVulkan11Features){VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES,
            &engine->features12};
    engine->features12 = (VkPhysicalDeviceVulkan12Features){VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    engine->features.features.shaderInt16 = available.features.shaderInt16;
    engine->features11.storageBuffer16BitAccess = available11.storageBuffer16BitAccess;
    engine->features12.shaderFloat16 = available12.shaderFloat16 && !options->no_float16;
    engine->features12.bufferDeviceAddress = !options->no_buffer_device_address;
    engine->features12.timelineSemaphore = VK_TRUE;
    if (engine->api_version >= VK_API_VERSION_1_3)
    {
        engine->features13 = (VkPhysicalDeviceVulkan13Features){VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
        engine->features13.synchronization2 = VK_TRUE;
        engine->features12.pNext = &engine->features13;
    }
    else
    {
        engine->sync2 = (VkPhysicalDeviceSynchronization2Features){
                VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES};
        engine->sync2.synchronization2 = VK_TRUE;
        engine->features12.pNext = &engine->sync2;
        engine->device_extensions[engine->device_extension_count++] = VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME;
    }
}

static void create_device(struct engine *engine, const struct engine_options *options)
{
    float priorities[2] = {1.0f, 1.0f};
    VkDeviceQueueCreateInfo queue = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    VkDeviceCreateInfo info = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};

    choose_queue_family(engine);
    choose_features(engine, options);
    queue.queueFamilyIndex = engine->queue_family;
    queue.queueCount = 1;
    queue.pQueuePriorities = priorities;
    info.pNext = &engine->features;
    info.queueCreateInfoCount = 1;
    info.pQueueCreateInfos = &queue;
    info.enabledExtensionCount = engine->device_extension_count;
    info.ppEnabledExtensionNames = engine->device_extensions;
    VK_OK(vkCreateDevice(engine->physical_device, &info, NULL, &engine->device));
    vkGetDeviceQueue(engine->device, engine->queue_family, 0, &engine->queue);
}

static void create_scale_pipeline(struct engine *engine)
{
    VkDescriptorSetLayoutBinding binding = {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL};
    VkDescriptorSetLayoutCreateInfo set_info = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, NULL, 0, 1, &binding};
    VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 8};
    VkPipelineLayoutCreateInfo layout_info = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    VkShaderModuleCreateInfo module_info = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, NULL, 0,
            sizeof(engine_scale_spv), engine_scale_spv};
    VkDescriptorPoolSize pool_size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 8};
    VkDescriptorPoolCreateInfo pool_info = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, NULL, 0, 8, 1, &pool_size};
    VkComputePipelineCreateInfo pipeline_info = {VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    VkShaderModule module;

    VK_OK(vkCreateDescriptorSetLayout(engine->device, &set_info, NULL, &engine->set_layout));
    layout_info.setLayoutCount = 1;
    layout_info.pSetLayouts = &engine->set_layout;
    layout_info.pushConstantRangeCount = 1;
    layout_info.pPushConstantRanges = &range;
    VK_OK(vkCreatePipelineLayout(engine->device, &layout_info, NULL, &engine->pipeline_layout));
    VK_OK(vkCreateDescriptorPool(engine->device, &pool_info, NULL, &engine->descriptor_pool));
    VK_OK(vkCreateShaderModule(engine->device, &module_info, NULL, &module));
    pipeline_info.stage = (VkPipelineShaderStageCreateInfo){VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
            NULL, 0, VK_SHADER_STAGE_COMPUTE_BIT, module, "main", NULL};
    pipeline_info.layout = engine->pipeline_layout;
    VK_OK(vkCreateComputePipelines(engine->device, VK_NULL_HANDLE, 1, &pipeline_info, NULL, &engine->scale_pipeline));
    vkDestroyShaderModule(engine->device, module, NULL);
}

void engine_create(struct engine *engine, const struct engine_options *options)
{
    static const struct engine_options defaults;
    VkCommandPoolCreateInfo pool_info = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    VkPipelineCacheCreateInfo cache_info = {VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};

    if (!options)
        options = &defaults;
    memset(engine, 0, sizeof(*engine));
    pthread_mutex_init(&engine->queue_mutex, NULL);
    create_instance(engine);
    choose_physical_device(engine);
    create_device(engine, options);
    pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pool_info.queueFamilyIndex = engine->queue_family;
    VK_OK(vkCreateCommandPool(engine->device, &pool_info, NULL, &engine->command_pool));
    create_scale_pipeline(engine);
    if (options->pipeline_cache)
        VK_OK(vkCreatePipelineCache(engine->device, &cache_info, NULL, &engine->pipeline_cache));
    engine->desc_version_1 = options->desc_version_1;
}

void engine_destroy(struct engine *engine)
{
    PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger;

    vkDeviceWaitIdle(engine->device);
    vkDestroyPipeline(engine->device, engine->scale_pipeline, NULL);
    vkDestroyPipelineLayout(engine->device, engine->pipeline_layout, NULL);
    vkDestroyDescriptorPool(engine->device, engine->descriptor_pool, NULL);
    vkDestroyDescriptorSetLayout(engine->device, engine->set_layout, NULL);
    vkDestroyCommandPool(engine->device, engine->command_pool, NULL);
    /* vkdml never destroys the engine's cache: destroying it twice would be reported. */
    vkDestroyPipelineCache(engine->device, engine->pipeline_cache, NULL);
    /* The validation layer reports every object vkdml left behind on the engine's device here. */
    vkDestroyDevice(engine->device, NULL);
    if (engine->messenger)
    {
        destroy_messenger = (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(engine->instance,
                "vkDestroyDebugUtilsMessengerEXT");
        destroy_messenger(engine->instance, engine->messenger, NULL);
    }
    vkDestroyInstance(engine->instance, NULL);
    pthread_mutex_destroy(&engine->queue_mutex);
    assert_int_equal(engine->lock_count, engine->unlock_count);
    assert_int_equal(engine->validation_messages, 0);
}

static void lock_queue(void *user_data, VkQueue queue)
{
    struct engine *engine = user_data;

    assert_ptr_equal(queue, engine->queue);
    pthread_mutex_lock(&engine->queue_mutex);
    ++engine->lock_count;
}

static void unlock_queue(void *user_data, VkQueue queue)
{
    struct engine *engine = user_data;

    assert_ptr_equal(queue, engine->queue);
    ++engine->unlock_count;
    pthread_mutex_unlock(&engine->queue_mutex);
}

void engine_device_desc(struct engine *engine, struct vkdml_vulkan_device_desc *desc)
{
    memset(desc, 0, sizeof(*desc));
    desc->struct_size = sizeof(*desc);
    desc->get_instance_proc_addr = vkGetInstanceProcAddr;
    desc->instance = engine->instance;
    desc->instance_api_version = engine->api_version;
    desc->enabled_instance_extension_count = engine->instance_extension_count;
    desc->enabled_instance_extensions = engine->instance_extensions;
    desc->physical_device = engine->physical_device;
    desc->device = engine->device;
    desc->queue_family_index = engine->queue_family;
    desc->queue_index = 0;
    desc->enabled_features = &engine->features;
    desc->enabled_device_extension_count = engine->device_extension_count;
    desc->enabled_device_extensions = engine->device_extensions;
    desc->lock_queue = lock_queue;
    desc->unlock_queue = unlock_queue;
    desc->queue_lock_user_data = engine;
    desc->flags = engine->validation ? VKDML_VULKAN_DEVICE_FLAG_VALIDATION_LAYER : 0;
    desc->pipeline_cache = engine->pipeline_cache;
    if (engine->desc_version_1)
        desc->struct_size = VKDML_VULKAN_DEVICE_DESC_SIZE_1;
}

static uint32_t host_memory_type(struct engine *engine, uint32_t type_bits)
{
    const VkMemoryPropertyFlags wanted = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    VkPhysicalDeviceMemoryProperties memory;
    uint32_t i;

    vkGetPhysicalDeviceMemoryProperties(engine->physical_device, &memory);
    for (i = 0; i < memory.memoryTypeCount; ++i)
    {
        if ((type_bits & (1u << i)) && (memory.memoryTypes[i].propertyFlags & wanted) == wanted)
            return i;
    }
    fail_msg("no host-visible coherent memory type");
    return 0;
}

void engine_buffer_create(struct engine *engine, VkDeviceSize size, VkBufferUsageFlags usage,
        struct engine_buffer *buffer)
{
    VkBufferCreateInfo info = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    VkMemoryAllocateFlagsInfo flags = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
    VkMemoryAllocateInfo allocate = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    VkBufferDeviceAddressInfo address = {VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
    VkMemoryRequirements requirements;

    memset(buffer, 0, sizeof(*buffer));
    info.size = size;
    info.usage = usage;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VK_OK(vkCreateBuffer(engine->device, &info, NULL, &buffer->buffer));
    vkGetBufferMemoryRequirements(engine->device, buffer->buffer, &requirements);
    if (usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT)
    {
        flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
        allocate.pNext = &flags;
    }
    allocate.allocationSize = requirements.size;
    allocate.memoryTypeIndex = host_memory_type(engine, requirements.memoryTypeBits);
    VK_OK(vkAllocateMemory(engine->device, &allocate, NULL, &buffer->memory));
    VK_OK(vkBindBufferMemory(engine->device, buffer->buffer, buffer->memory, 0));
    VK_OK(vkMapMemory(engine->device, buffer->memory, 0, VK_WHOLE_SIZE, 0, &buffer->mapped));
    buffer->size = size;
    buffer->usage = usage;
    if (usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT)
    {
        address.buffer = buffer->buffer;
        buffer->address = vkGetBufferDeviceAddress(engine->device, &address);
    }
}

void engine_buffer_destroy(struct engine *engine, struct engine_buffer *buffer)
{
    vkDestroyBuffer(engine->device, buffer->buffer, NULL);
    vkFreeMemory(engine->device, buffer->memory, NULL);
    memset(buffer, 0, sizeof(*buffer));
}

VkCommandBuffer engine_begin(struct engine *engine)
{
    VkCommandBufferAllocateInfo allocate = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL,
            engine->command_pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
    VkCommandBufferBeginInfo begin = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, NULL,
            VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL};
    VkCommandBuffer command_buffer;

    VK_OK(vkAllocateCommandBuffers(engine->device, &allocate, &command_buffer));
    VK_OK(vkBeginCommandBuffer(command_buffer, &begin));
    return command_buffer;
}

void engine_submit_and_wait(struct engine *engine, VkCommandBuffer command_buffer)
{
    VkFenceCreateInfo fence_info = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkSubmitInfo submit = {VK_STRUCTURE_TYPE_SUBMIT_INFO};
    VkFence fence;

    VK_OK(vkEndCommandBuffer(command_buffer));
    VK_OK(vkCreateFence(engine->device, &fence_info, NULL, &fence));
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &command_buffer;
    pthread_mutex_lock(&engine->queue_mutex);
    VK_OK(vkQueueSubmit(engine->queue, 1, &submit, fence));
    pthread_mutex_unlock(&engine->queue_mutex);
    VK_OK(vkWaitForFences(engine->device, 1, &fence, VK_TRUE, UINT64_MAX));
    vkDestroyFence(engine->device, fence, NULL);
    vkFreeCommandBuffers(engine->device, engine->command_pool, 1, &command_buffer);
}

void engine_barrier(struct engine *engine, VkCommandBuffer command_buffer, VkPipelineStageFlags2 src_stage,
        VkAccessFlags2 src_access, VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access)
{
    VkMemoryBarrier2 barrier = {VK_STRUCTURE_TYPE_MEMORY_BARRIER_2, NULL, src_stage, src_access, dst_stage, dst_access};
    VkDependencyInfo dependency = {VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    PFN_vkCmdPipelineBarrier2 barrier2 = (PFN_vkCmdPipelineBarrier2)vkGetDeviceProcAddr(engine->device,
            engine->api_version >= VK_API_VERSION_1_3 ? "vkCmdPipelineBarrier2" : "vkCmdPipelineBarrier2KHR");

    dependency.memoryBarrierCount = 1;
    dependency.pMemoryBarriers = &barrier;
    barrier2(command_buffer, &dependency);
}

VkDescriptorSet engine_scale_set(struct engine *engine, const struct engine_buffer *buffer, VkDeviceSize offset,
        VkDeviceSize size)
{
    VkDescriptorSetAllocateInfo allocate = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, NULL,
            engine->descriptor_pool, 1, &engine->set_layout};
    VkDescriptorBufferInfo info = {buffer->buffer, offset, size};
    VkWriteDescriptorSet write = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    VkDescriptorSet set;

    VK_OK(vkAllocateDescriptorSets(engine->device, &allocate, &set));
    write.dstSet = set;
    write.descriptorCount = 1;
    write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    write.pBufferInfo = &info;
    vkUpdateDescriptorSets(engine->device, 1, &write, 0, NULL);
    return set;
}

void engine_record_scale(struct engine *engine, VkCommandBuffer command_buffer, VkDescriptorSet set, bool bind_set,
        float scale, uint32_t count)
{
    struct { float scale; uint32_t count; } push = {scale, count};

    vkCmdBindPipeline(command_buffer, VK_PIPELINE_BIND_POINT_COMPUTE, engine->scale_pipeline);
    if (bind_set)
        vkCmdBindDescriptorSets(command_buffer, VK_PIPELINE_BIND_POINT_COMPUTE, engine->pipeline_layout, 0, 1, &set,
                0, NULL);
    vkCmdPushConstants(command_buffer, engine->pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), &push);
    vkCmdDispatch(command_buffer, (count + 63) / 64, 1, 1);
}
