/* Compute pipelines built from the embedded kernels. */

#include <stdlib.h>

#include "vk_private.h"

static VkResult create_layout(struct vkdml_vk_device *device, uint32_t push_constant_size, VkPipelineLayout *layout)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->procs;
    VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, push_constant_size};
    VkPipelineLayoutCreateInfo info =
    {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .pushConstantRangeCount = push_constant_size ? 1 : 0,
        .pPushConstantRanges = &range,
    };

    return VK_CHECK(VK_CALL(vkCreatePipelineLayout(device->vk_device, &info, NULL, layout)));
}

static VkResult create_module(struct vkdml_vk_device *device, const struct vkdml_kernel *kernel, VkShaderModule *module)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->procs;
    VkShaderModuleCreateInfo info =
    {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
        .codeSize = kernel->size,
        .pCode = kernel->code,
    };

    return VK_CHECK(VK_CALL(vkCreateShaderModule(device->vk_device, &info, NULL, module)));
}

VkResult vkdml_vk_pipeline_create(struct vkdml_vk_device *device, enum vkdml_kernel_id kernel_id,
        const struct vkdml_vk_specialization *specialization, uint32_t push_constant_size,
        struct vkdml_vk_pipeline *pipeline)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->procs;
    const struct vkdml_kernel *kernel = vkdml_kernel_get(kernel_id);
    VkSpecializationMapEntry *entries = NULL;
    VkSpecializationInfo spec_info = {0};
    VkShaderModule module;
    uint32_t spec_count = specialization ? specialization->count : 0, i;
    VkResult vr;

    pipeline->vk_pipeline = VK_NULL_HANDLE;
    pipeline->push_constant_size = push_constant_size;
    if (push_constant_size > device->caps.properties.limits.maxPushConstantsSize)
    {
        ERR("Kernel %s needs %u bytes of push constants; the device allows %u.", kernel->name,
                push_constant_size, device->caps.properties.limits.maxPushConstantsSize);
        return VK_ERROR_FEATURE_NOT_PRESENT;
    }
    if (spec_count && !(entries = calloc(spec_count, sizeof(*entries))))
        return VK_ERROR_OUT_OF_HOST_MEMORY;
    for (i = 0; i < spec_count; ++i)
        entries[i] = (VkSpecializationMapEntry){i, i * sizeof(uint32_t), sizeof(uint32_t)};
    spec_info = (VkSpecializationInfo){spec_count, entries, spec_count * sizeof(uint32_t),
            spec_count ? specialization->values : NULL};

    if ((vr = create_layout(device, push_constant_size, &pipeline->layout)) < 0)
        goto out;
    if ((vr = create_module(device, kernel, &module)) < 0)
        goto out_destroy_layout;

    VkComputePipelineCreateInfo info =
    {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage =
        {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
            .stage = VK_SHADER_STAGE_COMPUTE_BIT,
            .module = module,
            .pName = "main",
            .pSpecializationInfo = spec_count ? &spec_info : NULL,
        },
        .layout = pipeline->layout,
    };
    vr = VK_CHECK(VK_CALL(vkCreateComputePipelines(device->vk_device, VK_NULL_HANDLE, 1, &info, NULL,
            &pipeline->vk_pipeline)));
    VK_CALL(vkDestroyShaderModule(device->vk_device, module, NULL));
    if (vr >= 0)
    {
        TRACE("Created pipeline for kernel %s with %u specialization constants.", kernel->name, spec_count);
        goto out;
    }

out_destroy_layout:
    VK_CALL(vkDestroyPipelineLayout(device->vk_device, pipeline->layout, NULL));
    pipeline->layout = VK_NULL_HANDLE;
out:
    free(entries);
    return vr;
}

void vkdml_vk_pipeline_destroy(struct vkdml_vk_device *device, struct vkdml_vk_pipeline *pipeline)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->procs;

    VK_CALL(vkDestroyPipeline(device->vk_device, pipeline->vk_pipeline, NULL));
    VK_CALL(vkDestroyPipelineLayout(device->vk_device, pipeline->layout, NULL));
    pipeline->vk_pipeline = VK_NULL_HANDLE;
    pipeline->layout = VK_NULL_HANDLE;
}
