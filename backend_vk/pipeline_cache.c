/*
 * Compute pipelines of the embedded kernels, all created through the device's VkPipelineCache.
 * An engine's cache (vkdml_vulkan.h) is used as given; vkdml's own is loaded from and written back
 * to a file in VKDML_PIPELINE_CACHE_DIR when that is set (README.md, "Environment variables").
 * The file is vkdml's header, then vkGetPipelineCacheData's bytes; a file whose header does not
 * match this device, driver and build of vkdml is ignored, and rewritten when the device goes.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
# include <unistd.h>
#endif

#include "vk_private.h"

#define CACHE_FILE_MAGIC "VKDMLPC"          /* 8 bytes with its NUL */
#define CACHE_FILE_VERSION 1

struct cache_file_header
{
    char magic[8];
    uint32_t header_version;
    uint32_t vendor_id;
    uint32_t device_id;
    uint32_t driver_version;
    uint8_t pipeline_cache_uuid[VK_UUID_SIZE];
    uint64_t build_id;                      /* kernel_registry_hash(): another build's kernels miss */
    uint64_t data_size;                     /* bytes after the header */
    uint64_t data_hash;                     /* hash64() of them: a torn or corrupt file is ignored */
};

_Static_assert(sizeof(struct cache_file_header) == 64, "pipeline cache file header layout");

/* FNV-1a, 64-bit. */
static uint64_t hash64(uint64_t hash, const void *data, size_t size)
{
    const uint8_t *bytes = data;
    size_t i;

    for (i = 0; i < size; ++i)
        hash = (hash ^ bytes[i]) * UINT64_C(0x100000001b3);
    return hash;
}

#define HASH64_INIT UINT64_C(0xcbf29ce484222325)

static uint64_t kernel_registry_hash(void)
{
    uint64_t hash = HASH64_INIT;
    unsigned int i;

    for (i = 0; i < VKDML_KERNEL_COUNT; ++i)
    {
        const struct vkdml_kernel *kernel = vkdml_kernel_get(i);

        hash = hash64(hash, kernel->name, strlen(kernel->name) + 1);
        hash = hash64(hash, kernel->code, kernel->size);
    }
    return hash;
}

/* What a file must say to be loaded on this device; data_size and data_hash stay 0. */
static void expected_header(const struct vkdml_vk_device *device, struct cache_file_header *header)
{
    const VkPhysicalDeviceProperties *properties = &device->caps.properties;

    memset(header, 0, sizeof(*header));
    memcpy(header->magic, CACHE_FILE_MAGIC, sizeof(header->magic));
    header->header_version = CACHE_FILE_VERSION;
    header->vendor_id = properties->vendorID;
    header->device_id = properties->deviceID;
    header->driver_version = properties->driverVersion;
    memcpy(header->pipeline_cache_uuid, properties->pipelineCacheUUID, VK_UUID_SIZE);
    header->build_id = kernel_registry_hash();
}

/* <dir>/vkdml-<vendor>-<device>-<deviceUUID>.cache: one file per physical device, which a new
 * driver or vkdml build overwrites rather than adds to. NULL without VKDML_PIPELINE_CACHE_DIR. */
static char *cache_file_path(const struct vkdml_vk_device *device)
{
    const char *dir = getenv("VKDML_PIPELINE_CACHE_DIR");
    char uuid[2 * sizeof(device->adapter.device_uuid) + 1];
    size_t size, i;
    char *path;

    if (!dir || !*dir)
        return NULL;
    for (i = 0; i < sizeof(device->adapter.device_uuid); ++i)
        snprintf(uuid + 2 * i, 3, "%02x", device->adapter.device_uuid[i]);
    size = strlen(dir) + strlen(uuid) + 64;
    if (!(path = malloc(size)))
        return NULL;
    snprintf(path, size, "%s/vkdml-%04x-%04x-%s.cache", dir, device->caps.properties.vendorID,
            device->caps.properties.deviceID, uuid);
    return path;
}

/* Why the file cannot be used, or NULL. */
static const char *check_file(const uint8_t *contents, size_t file_size, const struct cache_file_header *expected)
{
    const struct cache_file_header *header = (const struct cache_file_header *)contents;

    if (file_size < sizeof(*header) || memcmp(header->magic, expected->magic, sizeof(header->magic)))
        return "not a vkdml pipeline cache";
    if (header->header_version != expected->header_version)
        return "another header version";
    if (header->vendor_id != expected->vendor_id || header->device_id != expected->device_id)
        return "written for another device";
    if (header->driver_version != expected->driver_version
            || memcmp(header->pipeline_cache_uuid, expected->pipeline_cache_uuid, VK_UUID_SIZE))
        return "written by another driver";
    if (header->build_id != expected->build_id)
        return "written by a vkdml build with other kernels";
    if (header->data_size != file_size - sizeof(*header))
        return "truncated";
    if (header->data_hash != hash64(HASH64_INIT, contents + sizeof(*header), header->data_size))
        return "corrupt";
    return NULL;
}

/* The whole file in a malloc'd buffer; NULL (logged) when it cannot be read. */
static uint8_t *read_file(const char *path, size_t *size)
{
    uint8_t *contents = NULL;
    long length;
    FILE *file;

    if (!(file = fopen(path, "rb")))
    {
        if (errno == ENOENT)
            INFO("No pipeline cache file %s yet: it is written when the device is destroyed.", path);
        else
            WARN("Cannot open the pipeline cache file %s: %s.", path, strerror(errno));
        return NULL;
    }
    if (fseek(file, 0, SEEK_END) || (length = ftell(file)) < 0 || fseek(file, 0, SEEK_SET)
            || !(contents = malloc(length ? (size_t)length : 1))
            || fread(contents, 1, (size_t)length, file) != (size_t)length)
    {
        WARN("Cannot read the pipeline cache file %s.", path);
        free(contents);
        contents = NULL;
    }
    *size = contents ? (size_t)length : 0;
    fclose(file);
    return contents;
}

/* The data to create the cache with; NULL (logged at INFO) when the file is missing or does not fit. */
static uint8_t *load_cache_file(const struct vkdml_vk_device *device, const char *path, size_t *data_size)
{
    struct cache_file_header expected;
    const char *reason;
    uint8_t *contents;
    size_t size;

    *data_size = 0;
    if (!(contents = read_file(path, &size)))
        return NULL;
    expected_header(device, &expected);
    if ((reason = check_file(contents, size, &expected)))
    {
        INFO("Ignoring the pipeline cache file %s: %s.", path, reason);
        free(contents);
        return NULL;
    }
    *data_size = size - sizeof(expected);
    return contents;
}

static VkPipelineCache create_vk_cache(struct vkdml_vk_device *device, const void *data, size_t size)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->procs;
    VkPipelineCacheCreateInfo info = {VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO, NULL, 0, size, data};
    VkPipelineCache cache = VK_NULL_HANDLE;
    VkResult vr;

    /* Not fatal: pipelines are then created without a cache. */
    if ((vr = VK_CALL(vkCreatePipelineCache(device->vk_device, &info, NULL, &cache))) < 0)
        WARN("vkCreatePipelineCache failed (%s); pipelines are created without a cache.", vkdml_vk_result_string(vr));
    return cache;
}

void vkdml_vk_pipeline_cache_init(struct vkdml_vk_device *device, VkPipelineCache engine_cache)
{
    struct vkdml_vk_pipeline_cache *cache = &device->pipeline_cache;
    uint8_t *contents = NULL;
    size_t data_size = 0;

    memset(cache, 0, sizeof(*cache));
    cache->mutex = (struct vkdml_mutex)VKDML_MUTEX_INIT;
    if (engine_cache)
    {
        cache->vk_cache = engine_cache;
        cache->imported = true;
        return;
    }
    if ((cache->path = cache_file_path(device)))
        contents = load_cache_file(device, cache->path, &data_size);
    cache->vk_cache = create_vk_cache(device, contents ? contents + sizeof(struct cache_file_header) : NULL,
            data_size);
    if (contents && cache->vk_cache)
    {
        INFO("Loaded %zu bytes of pipeline cache from %s.", data_size, cache->path);
        cache->saved_size = data_size;
    }
    free(contents);
}

/* vkGetPipelineCacheData after a header, in one malloc'd block; NULL when it cannot be had. */
static uint8_t *cache_file_contents(struct vkdml_vk_device *device, size_t *file_size)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->procs;
    VkPipelineCache vk_cache = device->pipeline_cache.vk_cache;
    struct cache_file_header header;
    size_t data_size = 0;
    uint8_t *contents;
    VkResult vr;

    if (VK_CALL(vkGetPipelineCacheData(device->vk_device, vk_cache, &data_size, NULL)) < 0
            || !(contents = malloc(sizeof(header) + data_size)))
        return NULL;
    /* VK_INCOMPLETE (the cache grew meanwhile) still leaves valid data of data_size bytes. */
    if ((vr = VK_CALL(vkGetPipelineCacheData(device->vk_device, vk_cache, &data_size, contents + sizeof(header)))) < 0)
    {
        WARN("vkGetPipelineCacheData failed: %s.", vkdml_vk_result_string(vr));
        free(contents);
        return NULL;
    }
    expected_header(device, &header);
    header.data_size = data_size;
    header.data_hash = hash64(HASH64_INIT, contents + sizeof(header), data_size);
    memcpy(contents, &header, sizeof(header));
    *file_size = sizeof(header) + data_size;
    return contents;
}

static bool replace_file(const char *from, const char *to)
{
#ifdef _WIN32
    return MoveFileExA(from, to, MOVEFILE_REPLACE_EXISTING);
#else
    return !rename(from, to);
#endif
}

static unsigned long process_id(void)
{
#ifdef _WIN32
    return GetCurrentProcessId();
#else
    return (unsigned long)getpid();
#endif
}

/* Through a file of this process's own, renamed over the old one: readers never see half a file. */
static void write_cache_file(const char *path, const uint8_t *contents, size_t size)
{
    size_t temp_size = strlen(path) + 32;
    char *temp;
    FILE *file;
    bool ok;

    if (!(temp = malloc(temp_size)))
        return;
    snprintf(temp, temp_size, "%s.%lu.tmp", path, process_id());
    if (!(file = fopen(temp, "wb")))
    {
        WARN("Cannot write the pipeline cache file %s: %s.", temp, strerror(errno));
        free(temp);
        return;
    }
    ok = fwrite(contents, 1, size, file) == size;
    ok = !fclose(file) && ok;
    if (!ok || !replace_file(temp, path))
    {
        WARN("Cannot write the pipeline cache file %s.", path);
        remove(temp);
    }
    else
    {
        INFO("Wrote %zu bytes of pipeline cache to %s.", size - sizeof(struct cache_file_header), path);
    }
    free(temp);
}

void vkdml_vk_pipeline_cache_save(struct vkdml_vk_device *device)
{
    struct vkdml_vk_pipeline_cache *cache = &device->pipeline_cache;
    uint8_t *contents;
    size_t size;

    if (!cache->path || !cache->vk_cache)
        return;
    vkdml_mutex_lock(&cache->mutex);
    if ((contents = cache_file_contents(device, &size)))
    {
        /* Nothing new since it was loaded or written: leave the file alone. */
        if (size - sizeof(struct cache_file_header) != cache->saved_size)
        {
            write_cache_file(cache->path, contents, size);
            cache->saved_size = size - sizeof(struct cache_file_header);
        }
        free(contents);
    }
    vkdml_mutex_unlock(&cache->mutex);
}

void vkdml_vk_pipeline_cache_cleanup(struct vkdml_vk_device *device)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->procs;
    struct vkdml_vk_pipeline_cache *cache = &device->pipeline_cache;

    if (cache->imported)
        return;
    vkdml_vk_pipeline_cache_save(device);
    if (cache->vk_cache)
        VK_CALL(vkDestroyPipelineCache(device->vk_device, cache->vk_cache, NULL));
    free(cache->path);
    memset(cache, 0, sizeof(*cache));
}

VkResult vkdml_vk_compute_pipeline_create(struct vkdml_vk_device *device, VkPipelineLayout layout,
        enum vkdml_kernel_id kernel, const uint32_t *spec, uint32_t spec_count, VkPipeline *pipeline)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->procs;
    const struct vkdml_kernel *code = vkdml_kernel_get(kernel);
    VkSpecializationMapEntry *entries = NULL;
    VkShaderModule module;
    uint32_t i;
    VkResult vr;

    if (spec_count && !(entries = calloc(spec_count, sizeof(*entries))))
        return VK_ERROR_OUT_OF_HOST_MEMORY;
    for (i = 0; i < spec_count; ++i)
        entries[i] = (VkSpecializationMapEntry){i, i * sizeof(uint32_t), sizeof(uint32_t)};
    VkSpecializationInfo spec_info = {spec_count, entries, spec_count * sizeof(uint32_t), spec};
    VkShaderModuleCreateInfo module_info =
    {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
        .codeSize = code->size,
        .pCode = code->code,
    };

    if ((vr = VK_CHECK(VK_CALL(vkCreateShaderModule(device->vk_device, &module_info, NULL, &module)))) < 0)
    {
        free(entries);
        return vr;
    }
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
        .layout = layout,
    };
    vr = VK_CHECK(VK_CALL(vkCreateComputePipelines(device->vk_device, device->pipeline_cache.vk_cache, 1, &info,
            NULL, pipeline)));
    VK_CALL(vkDestroyShaderModule(device->vk_device, module, NULL));
    free(entries);
    if (vr >= 0)
        TRACE("Created a %s pipeline with %u specialization constants.", code->name, spec_count);
    return vr;
}
