/* Vulkan loader, instance, validation messenger, and adapter (physical device) selection. */

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_private.h"

static const char validation_layer_name[] = "VK_LAYER_KHRONOS_validation";

/* The loader is process-wide anyway; volk opens it once and keeps vkGetInstanceProcAddr. */
static PFN_vkGetInstanceProcAddr load_vulkan_loader(void)
{
    static struct vkdml_mutex mutex = VKDML_MUTEX_INIT;
    static PFN_vkGetInstanceProcAddr loaded;
    static bool tried;
    VkResult vr;

    vkdml_mutex_lock(&mutex);
    if (!tried)
    {
        tried = true;
        if ((vr = volkInitialize()) == VK_SUCCESS)
            loaded = vkGetInstanceProcAddr;
        else
            ERR("Cannot load the Vulkan loader (libvulkan.so.1 / vulkan-1.dll): %s. "
                    "Install libvulkan1 and a Vulkan driver (mesa-vulkan-drivers for lavapipe).",
                    vkdml_vk_result_string(vr));
    }
    vkdml_mutex_unlock(&mutex);
    return loaded;
}

static bool env_flag(const char *name)
{
    const char *value = getenv(name);

    return value && *value && strcmp(value, "0");
}

static bool instance_layer_present(PFN_vkGetInstanceProcAddr gipa, const char *name)
{
    PFN_vkEnumerateInstanceLayerProperties enumerate_layers =
            (void *)gipa(VK_NULL_HANDLE, "vkEnumerateInstanceLayerProperties");
    VkLayerProperties *layers;
    uint32_t count = 0, i;
    bool found = false;

    if (!enumerate_layers || enumerate_layers(&count, NULL) != VK_SUCCESS || !count)
        return false;
    if (!(layers = calloc(count, sizeof(*layers))))
        return false;
    if (enumerate_layers(&count, layers) >= VK_SUCCESS)
    {
        for (i = 0; i < count && !found; ++i)
            found = !strcmp(layers[i].layerName, name);
    }
    free(layers);
    return found;
}

static bool instance_extension_present(PFN_vkGetInstanceProcAddr gipa, const char *layer, const char *name)
{
    PFN_vkEnumerateInstanceExtensionProperties enumerate_extensions =
            (void *)gipa(VK_NULL_HANDLE, "vkEnumerateInstanceExtensionProperties");
    VkExtensionProperties *extensions;
    uint32_t count = 0, i;
    bool found = false;

    if (!enumerate_extensions || enumerate_extensions(layer, &count, NULL) != VK_SUCCESS || !count)
        return false;
    if (!(extensions = calloc(count, sizeof(*extensions))))
        return false;
    if (enumerate_extensions(layer, &count, extensions) >= VK_SUCCESS)
    {
        for (i = 0; i < count && !found; ++i)
            found = !strcmp(extensions[i].extensionName, name);
    }
    free(extensions);
    return found;
}

static VKAPI_ATTR VkBool32 VKAPI_CALL validation_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
        VkDebugUtilsMessageTypeFlagsEXT types, const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    enum vkdml_log_level level = VKDML_LOG_INFO;

    if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)
        level = VKDML_LOG_ERR;
    else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT)
        level = VKDML_LOG_WARN;
    vkdml_log(level, VKDML_LOG_SOURCE_VALIDATION, data->pMessageIdName ? data->pMessageIdName : "vulkan",
            "%s", data->pMessage ? data->pMessage : "");
    return VK_FALSE;
}

static VkResult create_messenger(struct vkdml_vk_instance *instance)
{
    const struct vkdml_vk_instance_procs *vk_procs = &instance->procs;
    VkDebugUtilsMessengerCreateInfoEXT info =
    {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT
                | VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT
                | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT
                | VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = validation_message,
    };

    return VK_CHECK(VK_CALL(vkCreateDebugUtilsMessengerEXT(instance->vk_instance, &info, NULL, &instance->messenger)));
}

void vkdml_vk_instance_load_procs(struct vkdml_vk_instance *instance)
{
    struct vkdml_vk_instance_procs *procs = &instance->procs;

#define VK_INSTANCE_PFN(name) procs->name = (PFN_##name)instance->get_instance_proc_addr(instance->vk_instance, #name);
#include "vulkan_procs.h"
}

static uint32_t loader_api_version(PFN_vkGetInstanceProcAddr gipa)
{
    PFN_vkEnumerateInstanceVersion enumerate_version = (void *)gipa(VK_NULL_HANDLE, "vkEnumerateInstanceVersion");
    uint32_t version = VK_API_VERSION_1_0;

    if (enumerate_version)
        enumerate_version(&version);
    return version;
}

/* Returns whether validation was asked for. */
static bool choose_validation(struct vkdml_vk_instance *instance, bool requested)
{
    if (!requested && !env_flag("VKDML_VALIDATION"))
        return false;
    if (instance_layer_present(instance->get_instance_proc_addr, validation_layer_name))
        instance->validation = true;
    else
        /* Under wine, or without vulkan-validationlayers: go on without it (docs/design.md, Testing). */
        WARN("Validation requested but %s is not installed (Debian: vulkan-validationlayers); continuing without it.",
                validation_layer_name);
    return true;
}

/* The messenger turns validation messages into log lines. On Windows it also goes in when the
 * layer is not listed but validation was asked for: under wine the host's loader enables the layer
 * from VK_INSTANCE_LAYERS while wine lists no layers, and its messages still arrive here. */
static bool want_messenger(const struct vkdml_vk_instance *instance, bool validation_requested)
{
    if (!instance->has_debug_utils)
        return false;
#ifdef _WIN32
    return instance->validation || validation_requested;
#else
    return instance->validation;
#endif
}

VkResult vkdml_vk_instance_create(const struct vkdml_vk_instance_options *options,
        struct vkdml_vk_instance **out)
{
    const char *extensions[2], *layers[1];
    uint32_t extension_count = 0, layer_count = 0;
    struct vkdml_vk_instance *instance;
    PFN_vkCreateInstance create_instance;
    PFN_vkGetInstanceProcAddr gipa;
    bool validation_requested;
    VkResult vr;

    *out = NULL;
    if (!(gipa = load_vulkan_loader()))
        return VK_ERROR_INITIALIZATION_FAILED;
    if (!(instance = calloc(1, sizeof(*instance))))
        return VK_ERROR_OUT_OF_HOST_MEMORY;
    instance->get_instance_proc_addr = gipa;

    instance->api_version = loader_api_version(gipa) >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3 : VK_API_VERSION_1_2;
    if (loader_api_version(gipa) < VK_API_VERSION_1_1)
    {
        ERR("The Vulkan loader supports only Vulkan 1.0; vkdml needs 1.2.");
        free(instance);
        return VK_ERROR_INCOMPATIBLE_DRIVER;
    }

    validation_requested = choose_validation(instance, options && options->validation);
    if (instance->validation)
        layers[layer_count++] = validation_layer_name;
    if ((instance->has_debug_utils = instance_extension_present(gipa, NULL, VK_EXT_DEBUG_UTILS_EXTENSION_NAME)
            || (instance->validation && instance_extension_present(gipa, validation_layer_name,
            VK_EXT_DEBUG_UTILS_EXTENSION_NAME))))
        extensions[extension_count++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;

    VkApplicationInfo app_info =
    {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = options && options->application_name ? options->application_name : "vkdml",
        .pEngineName = "vkdml",
        .engineVersion = VKDML_VERSION,
        .apiVersion = instance->api_version,
    };
    VkInstanceCreateInfo info =
    {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pApplicationInfo = &app_info,
        .enabledLayerCount = layer_count,
        .ppEnabledLayerNames = layers,
        .enabledExtensionCount = extension_count,
        .ppEnabledExtensionNames = extensions,
    };

    create_instance = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
    if ((vr = VK_CHECK(create_instance(&info, NULL, &instance->vk_instance))) < 0)
    {
        free(instance);
        return vr;
    }
    vkdml_vk_instance_load_procs(instance);

    if (want_messenger(instance, validation_requested) && (vr = create_messenger(instance)) < 0)
    {
        vkdml_vk_instance_destroy(instance);
        return vr;
    }

    TRACE("Created instance %p, API %u.%u, validation %d.", (void *)instance->vk_instance,
            VK_API_VERSION_MAJOR(instance->api_version), VK_API_VERSION_MINOR(instance->api_version),
            instance->validation);
    *out = instance;
    return VK_SUCCESS;
}

void vkdml_vk_instance_destroy(struct vkdml_vk_instance *instance)
{
    const struct vkdml_vk_instance_procs *vk_procs;

    if (!instance)
        return;
    vk_procs = &instance->procs;
    if (instance->messenger)
        VK_CALL(vkDestroyDebugUtilsMessengerEXT(instance->vk_instance, instance->messenger, NULL));
    if (!instance->imported)
        VK_CALL(vkDestroyInstance(instance->vk_instance, NULL));
    free(instance);
}

VkResult vkdml_vk_instance_get_physical_devices(struct vkdml_vk_instance *instance,
        uint32_t *count, VkPhysicalDevice *devices)
{
    const struct vkdml_vk_instance_procs *vk_procs = &instance->procs;

    return VK_CHECK(VK_CALL(vkEnumeratePhysicalDevices(instance->vk_instance, count, devices)));
}

/* ---- Adapter information and requirements ---- */

static bool device_extension_present(const struct vkdml_vk_instance *instance, VkPhysicalDevice physical_device,
        const char *name)
{
    const struct vkdml_vk_instance_procs *vk_procs = &instance->procs;
    VkExtensionProperties *extensions;
    uint32_t count = 0, i;
    bool found = false;

    if (VK_CALL(vkEnumerateDeviceExtensionProperties(physical_device, NULL, &count, NULL)) != VK_SUCCESS)
        return false;
    if (!(extensions = calloc(count ? count : 1, sizeof(*extensions))))
        return false;
    if (VK_CALL(vkEnumerateDeviceExtensionProperties(physical_device, NULL, &count, extensions)) >= VK_SUCCESS)
    {
        for (i = 0; i < count && !found; ++i)
            found = !strcmp(extensions[i].extensionName, name);
    }
    free(extensions);
    return found;
}

static enum vkdml_adapter_type adapter_type(VkPhysicalDeviceType type)
{
    switch (type)
    {
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return VKDML_ADAPTER_TYPE_INTEGRATED_GPU;
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return VKDML_ADAPTER_TYPE_DISCRETE_GPU;
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return VKDML_ADAPTER_TYPE_VIRTUAL_GPU;
        case VK_PHYSICAL_DEVICE_TYPE_CPU: return VKDML_ADAPTER_TYPE_CPU;
        default: return VKDML_ADAPTER_TYPE_OTHER;
    }
}

/* Fills is_supported/unsupported_reason: Vulkan 1.2 with buffer device address, timeline
 * semaphores and synchronization2 (core 1.3 or VK_KHR_synchronization2). */
static void check_requirements(const struct vkdml_vk_instance *instance, VkPhysicalDevice physical_device,
        struct vkdml_adapter_info *info)
{
    const struct vkdml_vk_instance_procs *vk_procs = &instance->procs;
    VkPhysicalDeviceSynchronization2Features sync2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES};
    VkPhysicalDeviceVulkan12Features features12 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 features = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &features12};
    bool has_sync2_api = info->api_version >= VK_API_VERSION_1_3
            || device_extension_present(instance, physical_device, VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME);
    const char *reason = NULL;

    if (info->api_version < VK_API_VERSION_1_2)
    {
        snprintf(info->unsupported_reason, sizeof(info->unsupported_reason),
                "Vulkan %u.%u < 1.2", VK_API_VERSION_MAJOR(info->api_version), VK_API_VERSION_MINOR(info->api_version));
        return;
    }
    if (has_sync2_api)
        features12.pNext = &sync2;
    VK_CALL(vkGetPhysicalDeviceFeatures2(physical_device, &features));

    if (!features12.bufferDeviceAddress)
        reason = "no bufferDeviceAddress";
    else if (!features12.timelineSemaphore)
        reason = "no timelineSemaphore";
    else if (!sync2.synchronization2)
        reason = "no synchronization2";
    if (reason)
        snprintf(info->unsupported_reason, sizeof(info->unsupported_reason), "%s", reason);
    else
        info->is_supported = 1;
}

/* VK_EXT_memory_budget: the heap budgets and usage of this process, summed over device-local heaps. */
static void get_memory_budget(const struct vkdml_vk_instance *instance, VkPhysicalDevice physical_device,
        struct vkdml_adapter_info *info)
{
    const struct vkdml_vk_instance_procs *vk_procs = &instance->procs;
    VkPhysicalDeviceMemoryBudgetPropertiesEXT budget = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
    VkPhysicalDeviceMemoryProperties2 memory = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2, &budget};
    uint32_t i;

    /* Chaining the budget struct is valid only when the device exposes the extension. */
    if (!vk_procs->vkGetPhysicalDeviceMemoryProperties2
            || !device_extension_present(instance, physical_device, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME))
        return;
    VK_CALL(vkGetPhysicalDeviceMemoryProperties2(physical_device, &memory));
    for (i = 0; i < memory.memoryProperties.memoryHeapCount; ++i)
    {
        if (!(memory.memoryProperties.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT))
            continue;
        info->memory_budget += budget.heapBudget[i];
        info->memory_usage += budget.heapUsage[i];
    }
    info->has_memory_budget = 1;
}

void vkdml_vk_get_adapter_info(const struct vkdml_vk_instance *instance, VkPhysicalDevice physical_device,
        uint32_t index, struct vkdml_adapter_info *info)
{
    const struct vkdml_vk_instance_procs *vk_procs = &instance->procs;
    VkPhysicalDeviceDriverProperties driver = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceIDProperties id = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
    VkPhysicalDeviceProperties2 properties = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &id};
    VkPhysicalDeviceMemoryProperties memory;
    VkPhysicalDeviceProperties basic;
    uint32_t i;

    memset(info, 0, sizeof(*info));
    info->index = index;
    VK_CALL(vkGetPhysicalDeviceProperties(physical_device, &basic));
    /* VkPhysicalDeviceDriverProperties is valid to chain only on 1.2 devices or with the extension. */
    if (basic.apiVersion >= VK_API_VERSION_1_2
            || device_extension_present(instance, physical_device, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME))
        id.pNext = &driver;
    VK_CALL(vkGetPhysicalDeviceProperties2(physical_device, &properties));

    snprintf(info->name, sizeof(info->name), "%s", basic.deviceName);
    info->vendor_id = basic.vendorID;
    info->device_id = basic.deviceID;
    info->type = adapter_type(basic.deviceType);
    info->api_version = basic.apiVersion;
    info->driver_version = basic.driverVersion;
    snprintf(info->driver_name, sizeof(info->driver_name), "%s", driver.driverName);
    snprintf(info->driver_info, sizeof(info->driver_info), "%s", driver.driverInfo);
    memcpy(info->device_uuid, id.deviceUUID, sizeof(info->device_uuid));
    info->is_software = basic.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;

    VK_CALL(vkGetPhysicalDeviceMemoryProperties(physical_device, &memory));
    for (i = 0; i < memory.memoryHeapCount; ++i)
    {
        if (memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
            info->device_local_memory += memory.memoryHeaps[i].size;
    }
    get_memory_budget(instance, physical_device, info);
    check_requirements(instance, physical_device, info);
}

/* ---- Selection ---- */

static bool parse_uuid(const char *text, uint8_t uuid[16])
{
    unsigned int nibbles = 0;

    for (; *text; ++text)
    {
        int value;

        if (*text == '-')
            continue;
        if (!isxdigit((unsigned char)*text) || nibbles == 32)
            return false;
        value = isdigit((unsigned char)*text) ? *text - '0' : tolower((unsigned char)*text) - 'a' + 10;
        uuid[nibbles / 2] = nibbles % 2 ? (uuid[nibbles / 2] | value) : value << 4;
        ++nibbles;
    }
    return nibbles == 32;
}

static bool contains_ignoring_case(const char *haystack, const char *needle)
{
    size_t needle_length = strlen(needle), i;

    for (; *haystack; ++haystack)
    {
        for (i = 0; i < needle_length && tolower((unsigned char)haystack[i]) == tolower((unsigned char)needle[i]); ++i)
            ;
        if (i == needle_length)
            return true;
    }
    return false;
}

static bool is_decimal(const char *text)
{
    if (!*text)
        return false;
    for (; *text; ++text)
    {
        if (!isdigit((unsigned char)*text))
            return false;
    }
    return true;
}

static bool selector_matches(const char *selector, const struct vkdml_adapter_info *info)
{
    uint8_t uuid[16];

    if (is_decimal(selector))
        return strtoul(selector, NULL, 10) == info->index;
    if (parse_uuid(selector, uuid))
        return !memcmp(uuid, info->device_uuid, sizeof(uuid));
    return contains_ignoring_case(info->name, selector);
}

/* Lower is preferred: discrete, integrated, virtual, other, CPU. */
static unsigned int type_rank(enum vkdml_adapter_type type)
{
    switch (type)
    {
        case VKDML_ADAPTER_TYPE_DISCRETE_GPU: return 0;
        case VKDML_ADAPTER_TYPE_INTEGRATED_GPU: return 1;
        case VKDML_ADAPTER_TYPE_VIRTUAL_GPU: return 2;
        case VKDML_ADAPTER_TYPE_CPU: return 4;
        default: return 3;
    }
}

static int select_from(const struct vkdml_adapter_info *infos, uint32_t count, const char *selector)
{
    int best = -1;
    uint32_t i;

    for (i = 0; i < count; ++i)
    {
        if (selector && !selector_matches(selector, &infos[i]))
            continue;
        if (!infos[i].is_supported)
        {
            if (selector)
                WARN("Adapter %u \"%s\" matches \"%s\" but is unusable: %s.", i, infos[i].name, selector,
                        infos[i].unsupported_reason);
            continue;
        }
        if (best < 0 || type_rank(infos[i].type) < type_rank(infos[best].type))
            best = i;
    }
    return best;
}

int vkdml_vk_select_adapter(struct vkdml_vk_instance *instance, const char *selector)
{
    struct vkdml_adapter_info *infos = NULL;
    VkPhysicalDevice *devices = NULL;
    uint32_t count = 0, i;
    int index = -1;

    if (!selector && (selector = getenv("VKDML_DEVICE")) && !*selector)
        selector = NULL;

    if (vkdml_vk_instance_get_physical_devices(instance, &count, NULL) < 0 || !count)
    {
        ERR("No Vulkan device found. Install a Vulkan driver (mesa-vulkan-drivers provides lavapipe).");
        return -1;
    }
    if (!(devices = calloc(count, sizeof(*devices))) || !(infos = calloc(count, sizeof(*infos))))
        goto done;
    if (vkdml_vk_instance_get_physical_devices(instance, &count, devices) < 0)
        goto done;
    for (i = 0; i < count; ++i)
        vkdml_vk_get_adapter_info(instance, devices[i], i, &infos[i]);

    if ((index = select_from(infos, count, selector)) < 0)
    {
        if (selector)
            ERR("No usable Vulkan device matches \"%s\" (an index, a 32-hex-digit UUID or a name substring).", selector);
        else
            ERR("None of the %u Vulkan devices meets vkdml's requirements (Vulkan 1.2, bufferDeviceAddress, "
                    "timelineSemaphore, synchronization2).", count);
    }

done:
    free(infos);
    free(devices);
    return index;
}
