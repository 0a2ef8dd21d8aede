/*
 * A minimal "engine" for the embedding tests: it owns a Vulkan instance (with the Khronos
 * validation layer and a messenger of its own when VKDML_VALIDATION=1), a device on the adapter
 * vkdml would pick (matched by UUID), a compute queue, buffers, command buffers, fences and one
 * compute pipeline of its own (engine_scale.comp, through a descriptor set). It hands these to
 * vkdml as an engine would. Any validation message fails the test at engine_destroy().
 */
#ifndef VKDML_TEST_EMBED_ENGINE_H
#define VKDML_TEST_EMBED_ENGINE_H

#include <pthread.h>
#include <stdbool.h>

#include "vkdml_vulkan.h"

struct engine_options
{
    bool no_float16;                    /* create the device without shaderFloat16 */
    bool no_buffer_device_address;      /* ... without bufferDeviceAddress (vkdml must refuse it) */
    bool pipeline_cache;                /* create a VkPipelineCache and hand it to vkdml (desc.pipeline_cache) */
    bool desc_version_1;                /* desc.struct_size of the first version, as an older engine sets it */
};

struct engine
{
    VkInstance instance;
    uint32_t api_version;
    VkDebugUtilsMessengerEXT messenger;
    unsigned int validation_messages;
    const char *instance_extensions[1];
    uint32_t instance_extension_count;
    bool validation;

    VkPhysicalDevice physical_device;
    VkDevice device;
    uint32_t queue_family;
    uint32_t queue_count;               /* of queue_family */
    VkQueue queue;
    VkPhysicalDeviceFeatures2 features; /* the enabled chain, as given to vkCreateDevice */
    VkPhysicalDeviceVulkan11Features features11;
    VkPhysicalDeviceVulkan12Features features12;
    VkPhysicalDeviceVulkan13Features features13;
    VkPhysicalDeviceSynchronization2Features sync2;   /* on a 1.2 device, with VK_KHR_synchronization2 */
    const char *device_extensions[1];
    uint32_t device_extension_count;

    /* The queue is shared with vkdml: its submissions take this lock (desc.lock_queue). */
    pthread_mutex_t queue_mutex;
    unsigned int lock_count, unlock_count;

    VkCommandPool command_pool;
    VkDescriptorSetLayout set_layout;
    VkDescriptorPool descriptor_pool;
    VkPipelineLayout pipeline_layout;
    VkPipeline scale_pipeline;
    VkPipelineCache pipeline_cache;     /* VK_NULL_HANDLE unless engine_options.pipeline_cache */
    bool desc_version_1;
};

struct engine_buffer
{
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceSize size;
    VkBufferUsageFlags usage;
    VkDeviceAddress address;
    void *mapped;                       /* host-visible, coherent */
};

/* Everything asserts (cmocka) on failure. */
void engine_create(struct engine *engine, const struct engine_options *options);
void engine_destroy(struct engine *engine);
/* The desc an engine gives vkdml_create_device_from_vulkan (its lock callbacks included). */
void engine_device_desc(struct engine *engine, struct vkdml_vulkan_device_desc *desc);

void engine_buffer_create(struct engine *engine, VkDeviceSize size, VkBufferUsageFlags usage,
        struct engine_buffer *buffer);
void engine_buffer_destroy(struct engine *engine, struct engine_buffer *buffer);

VkCommandBuffer engine_begin(struct engine *engine);
/* Ends, submits with a fence of its own (under the queue lock), waits, frees the command buffer. */
void engine_submit_and_wait(struct engine *engine, VkCommandBuffer command_buffer);
/* A global memory barrier. */
void engine_barrier(struct engine *engine, VkCommandBuffer command_buffer, VkPipelineStageFlags2 src_stage,
        VkAccessFlags2 src_access, VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access);

/* The engine's own shader: values[i] *= scale for [offset, offset + count * 4) of `buffer`. */
VkDescriptorSet engine_scale_set(struct engine *engine, const struct engine_buffer *buffer, VkDeviceSize offset,
        VkDeviceSize size);
/* Binds the pipeline and pushes constants; binds `set` only when bind_set (else it must still be bound). */
void engine_record_scale(struct engine *engine, VkCommandBuffer command_buffer, VkDescriptorSet set, bool bind_set,
        float scale, uint32_t count);

#endif /* VKDML_TEST_EMBED_ENGINE_H */
