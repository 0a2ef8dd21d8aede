/* The logical device: required and optional features, one compute queue, the function table. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_private.h"

/* Feature structs queried from the adapter and then passed, trimmed, to vkCreateDevice. */
struct device_features
{
    VkPhysicalDeviceFeatures2 features;
    VkPhysicalDeviceVulkan11Features vulkan11;
    VkPhysicalDeviceVulkan12Features vulkan12;
    VkPhysicalDeviceSynchronization2Features sync2;
    /* Chained only for the cooperative-matrix extension in use. */
    VkPhysicalDeviceCooperativeMatrixFeaturesNV coopmat_nv;
    VkPhysicalDeviceCooperativeMatrixFeaturesKHR coopmat_khr;
};

/* Which cooperative-matrix extension the fp16 kernels run on: the KHR one where the driver has
 * it (on NVIDIA's driver 580 its compiled code is the faster one), else NVIDIA's original. */
enum coopmat_extension
{
    COOPMAT_NONE,
    COOPMAT_NV,
    COOPMAT_KHR,
};

/* A feature struct of an extension the adapter lacks must not be chained (validation error). */
static void chain_features(struct device_features *f, enum coopmat_extension coopmat)
{
    f->features = (VkPhysicalDeviceFeatures2){VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f->vulkan11};
    f->vulkan11 = (VkPhysicalDeviceVulkan11Features){VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, &f->vulkan12};
    f->vulkan12 = (VkPhysicalDeviceVulkan12Features){VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, &f->sync2};
    f->sync2 = (VkPhysicalDeviceSynchronization2Features){VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES};
    f->coopmat_nv = (VkPhysicalDeviceCooperativeMatrixFeaturesNV)
            {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
    f->coopmat_khr = (VkPhysicalDeviceCooperativeMatrixFeaturesKHR)
            {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR};
    if (coopmat == COOPMAT_NV)
        f->sync2.pNext = &f->coopmat_nv;
    else if (coopmat == COOPMAT_KHR)
        f->sync2.pNext = &f->coopmat_khr;
}

/* Keeps only what vkdml uses: required features stay on (the adapter was checked to have
 * them), optional ones stay on where present, everything else goes off. */
static void select_features(const struct device_features *available, struct device_features *enabled,
        enum coopmat_extension coopmat)
{
    const VkPhysicalDeviceFeatures *core = &available->features.features;

    chain_features(enabled, coopmat);
    enabled->features.features.shaderInt16 = core->shaderInt16;
    enabled->features.features.shaderInt64 = core->shaderInt64;
    enabled->features.features.shaderFloat64 = core->shaderFloat64;
    enabled->vulkan11.storageBuffer16BitAccess = available->vulkan11.storageBuffer16BitAccess;
    enabled->vulkan12.storageBuffer8BitAccess = available->vulkan12.storageBuffer8BitAccess;
    enabled->vulkan12.shaderFloat16 = available->vulkan12.shaderFloat16;
    enabled->vulkan12.shaderInt8 = available->vulkan12.shaderInt8;
    enabled->vulkan12.bufferDeviceAddress = VK_TRUE;
    enabled->vulkan12.timelineSemaphore = VK_TRUE;
    enabled->sync2.synchronization2 = VK_TRUE;
    enabled->coopmat_nv.cooperativeMatrix = coopmat == COOPMAT_NV;
    enabled->coopmat_khr.cooperativeMatrix = coopmat == COOPMAT_KHR;
}

/* What the reduction kernels use (kernels_glsl/include/reduce_common.glsl). */
#define SUBGROUP_REDUCTION_OPERATIONS (VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT \
        | VK_SUBGROUP_FEATURE_BALLOT_BIT | VK_SUBGROUP_FEATURE_SHUFFLE_BIT)

void vkdml_vk_device_read_properties(struct vkdml_vk_device *device)
{
    const struct vkdml_vk_instance_procs *vk_procs = &device->instance->procs;
    VkPhysicalDeviceSubgroupProperties subgroup = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    VkPhysicalDeviceProperties2 properties = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &subgroup};
    struct vkdml_vk_caps *caps = &device->caps;

    VK_CALL(vkGetPhysicalDeviceProperties2(device->physical_device, &properties));
    VK_CALL(vkGetPhysicalDeviceMemoryProperties(device->physical_device, &caps->memory));
    caps->properties = properties.properties;
    caps->subgroup_size = subgroup.subgroupSize;
    caps->subgroup_reductions = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT)
            && (subgroup.supportedOperations & SUBGROUP_REDUCTION_OPERATIONS) == SUBGROUP_REDUCTION_OPERATIONS;
}

void vkdml_vk_caps_set_features(struct vkdml_vk_caps *caps, const VkPhysicalDeviceFeatures *core,
        const VkPhysicalDeviceVulkan11Features *vulkan11, const VkPhysicalDeviceVulkan12Features *vulkan12)
{
    caps->shader_float16 = vulkan12->shaderFloat16;
    caps->shader_int8 = vulkan12->shaderInt8;
    caps->shader_int16 = core->shaderInt16;
    caps->shader_int64 = core->shaderInt64;
    caps->shader_float64 = core->shaderFloat64;
    caps->storage_8bit = vulkan12->storageBuffer8BitAccess;
    caps->storage_16bit = vulkan11->storageBuffer16BitAccess;
}

static void record_caps(struct vkdml_vk_device *device, const struct device_features *enabled)
{
    struct vkdml_vk_caps *caps = &device->caps;

    vkdml_vk_device_read_properties(device);
    vkdml_vk_caps_set_features(caps, &enabled->features.features, &enabled->vulkan11, &enabled->vulkan12);
    caps->coopmat_khr = enabled->coopmat_khr.cooperativeMatrix;
    caps->coopmat_f16 = enabled->coopmat_nv.cooperativeMatrix || caps->coopmat_khr;
}

static bool find_compute_queue_family(struct vkdml_vk_device *device)
{
    const struct vkdml_vk_instance_procs *vk_procs = &device->instance->procs;
    VkQueueFamilyProperties *families;
    uint32_t count = 0, i;
    bool found = false;

    VK_CALL(vkGetPhysicalDeviceQueueFamilyProperties(device->physical_device, &count, NULL));
    if (!(families = calloc(count ? count : 1, sizeof(*families))))
        return false;
    VK_CALL(vkGetPhysicalDeviceQueueFamilyProperties(device->physical_device, &count, families));
    /* The first compute family; on every known driver it is the universal one, which also
     * supports timestamps. */
    for (i = 0; i < count && !found; ++i)
    {
        if ((families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && families[i].queueCount)
        {
            device->queue_family = i;
            found = true;
        }
    }
    free(families);
    return found;
}

static PFN_vkVoidFunction device_proc(struct vkdml_vk_device *device, const char *name)
{
    PFN_vkGetDeviceProcAddr get_device_proc_addr = device->instance->procs.vkGetDeviceProcAddr;
    PFN_vkVoidFunction function;
    char khr_name[128];

    if ((function = get_device_proc_addr(device->vk_device, name)))
        return function;
    /* On a Vulkan 1.2 device, core-1.3 entry points exist only under their KHR names. */
    snprintf(khr_name, sizeof(khr_name), "%sKHR", name);
    return get_device_proc_addr(device->vk_device, khr_name);
}

bool vkdml_vk_device_load_procs(struct vkdml_vk_device *device)
{
    struct vkdml_vk_device_procs *procs = &device->procs;
    bool complete = true;

#define VK_DEVICE_PFN(name) \
    if (!(procs->name = (PFN_##name)device_proc(device, #name))) \
    { \
        ERR("The driver does not provide %s.", #name); \
        complete = false; \
    }
#include "vulkan_procs.h"
    return complete;
}

/* For a device whose function table could not be loaded. */
static void destroy_incomplete_device(struct vkdml_vk_device *device)
{
    PFN_vkDestroyDevice destroy_device = (PFN_vkDestroyDevice)device_proc(device, "vkDestroyDevice");

    if (destroy_device)
        destroy_device(device->vk_device, NULL);
}

/* ---- Cooperative matrices ---- */

static bool has_device_extension(struct vkdml_vk_device *device, const char *name)
{
    const struct vkdml_vk_instance_procs *vk_procs = &device->instance->procs;
    VkExtensionProperties *extensions;
    uint32_t count = 0, i;
    bool found = false;

    if (VK_CALL(vkEnumerateDeviceExtensionProperties(device->physical_device, NULL, &count, NULL)) != VK_SUCCESS)
        return false;
    if (!(extensions = calloc(count ? count : 1, sizeof(*extensions))))
        return false;
    if (VK_CALL(vkEnumerateDeviceExtensionProperties(device->physical_device, NULL, &count, extensions)) >= VK_SUCCESS)
    {
        for (i = 0; i < count && !found; ++i)
            found = !strcmp(extensions[i].extensionName, name);
    }
    free(extensions);
    return found;
}

/* The kernels' shape (gemm_coopmat.comp, conv_coopmat.comp): A 16x16, B 16x8, fp16 x fp16
 * + fp32 -> fp32, subgroup scope. The NV and KHR enums have the same values. */
static bool is_kernel_shape(uint32_t m, uint32_t n, uint32_t k, VkComponentTypeNV a, VkComponentTypeNV b,
        VkComponentTypeNV c, VkComponentTypeNV result, VkScopeNV scope)
{
    return m == 16 && n == 8 && k == 16 && scope == VK_SCOPE_SUBGROUP_NV && a == VK_COMPONENT_TYPE_FLOAT16_NV
            && b == VK_COMPONENT_TYPE_FLOAT16_NV && c == VK_COMPONENT_TYPE_FLOAT32_NV
            && result == VK_COMPONENT_TYPE_FLOAT32_NV;
}

/* Fills an extension's properties struct (the shader stages with cooperative matrices). */
static void read_extension_properties(struct vkdml_vk_device *device, void *extension_properties)
{
    const struct vkdml_vk_instance_procs *vk_procs = &device->instance->procs;
    VkPhysicalDeviceProperties2 properties = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, extension_properties};

    VK_CALL(vkGetPhysicalDeviceProperties2(device->physical_device, &properties));
}

static bool has_nv_shape(struct vkdml_vk_device *device)
{
    const struct vkdml_vk_instance_procs *vk_procs = &device->instance->procs;
    VkPhysicalDeviceCooperativeMatrixPropertiesNV stages =
            {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_PROPERTIES_NV};
    VkCooperativeMatrixPropertiesNV *shapes;
    uint32_t count = 0, i;
    bool found = false;

    if (!vk_procs->vkGetPhysicalDeviceCooperativeMatrixPropertiesNV)
        return false;
    read_extension_properties(device, &stages);
    if (!(stages.cooperativeMatrixSupportedStages & VK_SHADER_STAGE_COMPUTE_BIT))
        return false;
    if (VK_CALL(vkGetPhysicalDeviceCooperativeMatrixPropertiesNV(device->physical_device, &count, NULL)) != VK_SUCCESS)
        return false;
    if (!(shapes = calloc(count ? count : 1, sizeof(*shapes))))
        return false;
    for (i = 0; i < count; ++i)
        shapes[i].sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV;
    if (VK_CALL(vkGetPhysicalDeviceCooperativeMatrixPropertiesNV(device->physical_device, &count, shapes))
            >= VK_SUCCESS)
    {
        for (i = 0; i < count && !found; ++i)
            found = is_kernel_shape(shapes[i].MSize, shapes[i].NSize, shapes[i].KSize, shapes[i].AType,
                    shapes[i].BType, shapes[i].CType, shapes[i].DType, shapes[i].scope);
    }
    free(shapes);
    return found;
}

static bool has_khr_shape(struct vkdml_vk_device *device)
{
    const struct vkdml_vk_instance_procs *vk_procs = &device->instance->procs;
    VkPhysicalDeviceCooperativeMatrixPropertiesKHR stages =
            {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_PROPERTIES_KHR};
    VkCooperativeMatrixPropertiesKHR *shapes;
    uint32_t count = 0, i;
    bool found = false;

    if (!vk_procs->vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR)
        return false;
    read_extension_properties(device, &stages);
    if (!(stages.cooperativeMatrixSupportedStages & VK_SHADER_STAGE_COMPUTE_BIT))
        return false;
    if (VK_CALL(vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR(device->physical_device, &count, NULL)) != VK_SUCCESS)
        return false;
    if (!(shapes = calloc(count ? count : 1, sizeof(*shapes))))
        return false;
    for (i = 0; i < count; ++i)
        shapes[i].sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR;
    if (VK_CALL(vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR(device->physical_device, &count, shapes))
            >= VK_SUCCESS)
    {
        for (i = 0; i < count && !found; ++i)
            found = is_kernel_shape(shapes[i].MSize, shapes[i].NSize, shapes[i].KSize, shapes[i].AType,
                    shapes[i].BType, shapes[i].CType, shapes[i].ResultType, shapes[i].scope);
    }
    free(shapes);
    return found;
}

/* VKDML_COOPMAT=khr|nv|off picks or refuses an extension (for comparing their kernels). */
static enum coopmat_extension choose_coopmat(struct vkdml_vk_device *device)
{
    const struct vkdml_vk_instance_procs *vk_procs = &device->instance->procs;
    const char *wanted = getenv("VKDML_COOPMAT");
    struct device_features available;

    if (wanted && !strcmp(wanted, "off"))
        return COOPMAT_NONE;
    if (wanted && strcmp(wanted, "khr") && strcmp(wanted, "nv"))
    {
        WARN("Ignoring VKDML_COOPMAT=%s: not khr, nv or off.", wanted);
        wanted = NULL;
    }
    if ((!wanted || !strcmp(wanted, "khr")) && has_device_extension(device, VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME))
    {
        chain_features(&available, COOPMAT_KHR);
        VK_CALL(vkGetPhysicalDeviceFeatures2(device->physical_device, &available.features));
        if (available.coopmat_khr.cooperativeMatrix && has_khr_shape(device))
            return COOPMAT_KHR;
    }
    if ((!wanted || !strcmp(wanted, "nv")) && has_device_extension(device, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME))
    {
        chain_features(&available, COOPMAT_NV);
        VK_CALL(vkGetPhysicalDeviceFeatures2(device->physical_device, &available.features));
        if (available.coopmat_nv.cooperativeMatrix && has_nv_shape(device))
            return COOPMAT_NV;
    }
    return COOPMAT_NONE;
}

static VkResult create_vk_device(struct vkdml_vk_device *device)
{
    const struct vkdml_vk_instance_procs *vk_procs = &device->instance->procs;
    struct device_features available, enabled;
    const char *extensions[2];
    uint32_t extension_count = 0;
    float priority = 1.0f;
    enum coopmat_extension coopmat = choose_coopmat(device);
    VkResult vr;

    chain_features(&available, coopmat);
    VK_CALL(vkGetPhysicalDeviceFeatures2(device->physical_device, &available.features));
    select_features(&available, &enabled, coopmat);
    if (device->adapter.api_version < VK_API_VERSION_1_3)
        extensions[extension_count++] = VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME;
    device->caps.synchronization2_khr = extension_count > 0;
    if (coopmat == COOPMAT_NV)
        extensions[extension_count++] = VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME;
    else if (coopmat == COOPMAT_KHR)
        extensions[extension_count++] = VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME;

    VkDeviceQueueCreateInfo queue_info =
    {
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
        .queueFamilyIndex = device->queue_family,
        .queueCount = 1,
        .pQueuePriorities = &priority,
    };
    VkDeviceCreateInfo info =
    {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .pNext = &enabled.features,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &queue_info,
        .enabledExtensionCount = extension_count,
        .ppEnabledExtensionNames = extensions,
    };

    if ((vr = VK_CHECK(VK_CALL(vkCreateDevice(device->physical_device, &info, NULL, &device->vk_device)))) < 0)
        return vr;
    record_caps(device, &enabled);
    if (device->caps.coopmat_f16)
        INFO("%s enabled: 16x8x16 fp16 matrices with fp32 accumulation.", device->caps.coopmat_khr
                ? VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME : VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
    return VK_SUCCESS;
}

VkResult vkdml_vk_device_create(struct vkdml_vk_instance *instance, uint32_t index,
        struct vkdml_vk_device **out)
{
    struct vkdml_vk_device *device;
    VkPhysicalDevice *physical_devices = NULL;
    uint32_t count = 0;
    VkResult vr;

    *out = NULL;
    if (!(device = calloc(1, sizeof(*device))))
        return VK_ERROR_OUT_OF_HOST_MEMORY;
    device->instance = instance;
    device->queue_mutex = (struct vkdml_mutex)VKDML_MUTEX_INIT;

    if ((vr = vkdml_vk_instance_get_physical_devices(instance, &count, NULL)) < 0)
        goto out_free;
    vr = VK_ERROR_INITIALIZATION_FAILED;
    if (index >= count)
    {
        ERR("Adapter index %u is out of range: there are %u Vulkan devices.", index, count);
        goto out_free;
    }
    if (!(physical_devices = calloc(count, sizeof(*physical_devices))))
        goto out_free;
    if ((vr = vkdml_vk_instance_get_physical_devices(instance, &count, physical_devices)) < 0)
        goto out_free;
    device->physical_device = physical_devices[index];
    vkdml_vk_get_adapter_info(instance, device->physical_device, index, &device->adapter);
    vr = VK_ERROR_FEATURE_NOT_PRESENT;
    if (!device->adapter.is_supported)
    {
        ERR("Adapter %u \"%s\" cannot run vkdml: %s.", index, device->adapter.name, device->adapter.unsupported_reason);
        goto out_free;
    }
    if (!find_compute_queue_family(device))
    {
        ERR("Adapter %u \"%s\" has no compute queue.", index, device->adapter.name);
        goto out_free;
    }
    if ((vr = create_vk_device(device)) < 0)
        goto out_free;
    if (!vkdml_vk_device_load_procs(device))
    {
        vr = VK_ERROR_INITIALIZATION_FAILED;
        goto out_destroy_device;
    }
    device->procs.vkGetDeviceQueue(device->vk_device, device->queue_family, 0, &device->queue);
    vkdml_vk_pipeline_cache_init(device, VK_NULL_HANDLE);

    INFO("Using adapter %u \"%s\" (%s, Vulkan %u.%u), queue family %u, %u bytes of shared memory per workgroup.",
            index, device->adapter.name, device->adapter.driver_name, VK_API_VERSION_MAJOR(device->adapter.api_version),
            VK_API_VERSION_MINOR(device->adapter.api_version), device->queue_family,
            device->caps.properties.limits.maxComputeSharedMemorySize);
    free(physical_devices);
    *out = device;
    return VK_SUCCESS;

out_destroy_device:
    destroy_incomplete_device(device);
out_free:
    free(physical_devices);
    free(device);
    return vr;
}

void vkdml_vk_device_destroy(struct vkdml_vk_device *device)
{
    const struct vkdml_vk_device_procs *vk_procs;

    if (!device)
        return;
    vk_procs = &device->procs;
    vkdml_vk_pipeline_cache_cleanup(device);
    /* An engine's device stays: its queues may be busy with the engine's own work, which
     * vkDeviceWaitIdle would race with. */
    if (!device->imported)
    {
        VK_CALL(vkDeviceWaitIdle(device->vk_device));
        VK_CALL(vkDestroyDevice(device->vk_device, NULL));
    }
    free(device);
}
