/*
 * The Vulkan side of an IDMLDevice (vkdml_backend.h): the shim device it runs on, the one
 * pipeline layout of all operator kernels, the pipeline cache, and access to shim resources,
 * descriptor heaps and command lists.
 */

#include <stdlib.h>
#include <string.h>

#include "d3d12_private.h"
#include "dml_private_backend.h"

/* What kernels need of the Vulkan device to read, write and compute each data type: the one table
 * behind vkdml_caps_data_type_supported() (CreateOperator, CheckFeatureSupport, the support matrix)
 * and the messages that name the missing features. */
enum data_type_feature
{
    FEATURE_FLOAT16 = 0x01,     /* shaderFloat16 */
    FEATURE_INT16 = 0x02,       /* shaderInt16 */
    FEATURE_INT8 = 0x04,        /* shaderInt8 */
    FEATURE_INT64 = 0x08,       /* shaderInt64 */
    FEATURE_FLOAT64 = 0x10,     /* shaderFloat64 */
    FEATURE_STORAGE_16 = 0x20,  /* storageBuffer16BitAccess */
    FEATURE_STORAGE_8 = 0x40,   /* storageBuffer8BitAccess */
};

static const struct data_type_requirement
{
    bool implemented;           /* UINT4/INT4 belong to QUANTIZE/DEQUANTIZE, not implemented yet */
    uint32_t features;
    const char *names;
}
data_type_requirements[] =
{
    [DML_TENSOR_DATA_TYPE_FLOAT32] = {true, 0, NULL},
    [DML_TENSOR_DATA_TYPE_UINT32] = {true, 0, NULL},
    [DML_TENSOR_DATA_TYPE_INT32] = {true, 0, NULL},
    [DML_TENSOR_DATA_TYPE_FLOAT16] = {true, FEATURE_FLOAT16 | FEATURE_STORAGE_16,
            "shaderFloat16 and storageBuffer16BitAccess"},
    [DML_TENSOR_DATA_TYPE_UINT16] = {true, FEATURE_INT16 | FEATURE_STORAGE_16,
            "shaderInt16 and storageBuffer16BitAccess"},
    [DML_TENSOR_DATA_TYPE_INT16] = {true, FEATURE_INT16 | FEATURE_STORAGE_16,
            "shaderInt16 and storageBuffer16BitAccess"},
    [DML_TENSOR_DATA_TYPE_UINT8] = {true, FEATURE_INT8 | FEATURE_STORAGE_8, "shaderInt8 and storageBuffer8BitAccess"},
    [DML_TENSOR_DATA_TYPE_INT8] = {true, FEATURE_INT8 | FEATURE_STORAGE_8, "shaderInt8 and storageBuffer8BitAccess"},
    [DML_TENSOR_DATA_TYPE_UINT64] = {true, FEATURE_INT64, "shaderInt64"},
    [DML_TENSOR_DATA_TYPE_INT64] = {true, FEATURE_INT64, "shaderInt64"},
    [DML_TENSOR_DATA_TYPE_FLOAT64] = {true, FEATURE_FLOAT64 | FEATURE_INT64, "shaderFloat64 and shaderInt64"},
};

static const struct data_type_requirement *data_type_requirement(DML_TENSOR_DATA_TYPE data_type)
{
    if ((unsigned int)data_type >= ARRAY_SIZE(data_type_requirements)
            || !data_type_requirements[data_type].implemented)
        return NULL;
    return &data_type_requirements[data_type];
}

static uint32_t caps_features(const struct vkdml_vk_caps *caps)
{
    return (caps->shader_float16 ? FEATURE_FLOAT16 : 0) | (caps->shader_int16 ? FEATURE_INT16 : 0)
            | (caps->shader_int8 ? FEATURE_INT8 : 0) | (caps->shader_int64 ? FEATURE_INT64 : 0)
            | (caps->shader_float64 ? FEATURE_FLOAT64 : 0) | (caps->storage_16bit ? FEATURE_STORAGE_16 : 0)
            | (caps->storage_8bit ? FEATURE_STORAGE_8 : 0);
}

const char *vkdml_backend_data_type_requirement(DML_TENSOR_DATA_TYPE data_type)
{
    const struct data_type_requirement *requirement = data_type_requirement(data_type);

    return requirement ? requirement->names : NULL;
}

/* An engine's device may lack optional features: say once, at creation, which types that costs. */
static void log_unavailable_data_types(struct vkdml_backend_device *device)
{
    unsigned int t;

    for (t = 0; t < ARRAY_SIZE(data_type_requirements); ++t)
    {
        if (data_type_requirements[t].implemented && !vkdml_backend_data_type_supported(device, t))
            INFO("\"%s\": %s tensors are unavailable: they need %s, which the Vulkan device does not have "
                    "enabled.", device->vk->adapter.name, vkdml_data_type_name(t), data_type_requirements[t].names);
    }
}

HRESULT vkdml_backend_device_create(ID3D12Device *d3d12_iface, struct vkdml_backend_device **out, const char *caller)
{
    const struct vkdml_vk_device_procs *vk_procs;
    struct vkdml_backend_device *device;
    struct d3d12_device *d3d12;
    VkResult vr;

    if (!(d3d12 = unsafe_impl_from_ID3D12Device(d3d12_iface)))
    {
        ERR("%s: d3d12Device %p is not a vkdml D3D12 device. vkdml records into its own D3D12 objects only: create "
                "the device with D3D12CreateDevice from vkdml (Linux) or vkdml_create_d3d12_device().", caller,
                (void *)d3d12_iface);
        return E_INVALIDARG;
    }
    if (!(device = calloc(1, sizeof(*device))))
        return E_OUTOFMEMORY;
    d3d12_device_add_ref(device->d3d12 = d3d12);
    device->vk = d3d12->vk;
    vk_procs = &device->vk->procs;
    device->pipelines_mutex = (struct vkdml_mutex)VKDML_MUTEX_INIT;
    device->label_mutex = (struct vkdml_mutex)VKDML_MUTEX_INIT;
    vkdml_knobs_read(&device->knobs);

    VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, VKDML_PUSH_CONSTANT_SIZE};
    VkPipelineLayoutCreateInfo info =
    {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .pushConstantRangeCount = 1,
        .pPushConstantRanges = &range,
    };
    if ((vr = VK_CHECK(VK_CALL(vkCreatePipelineLayout(device->vk->vk_device, &info, NULL, &device->layout)))) < 0)
    {
        d3d12_device_release(d3d12);
        free(device);
        return hresult_from_vk_result(vr);
    }
    log_unavailable_data_types(device);
    *out = device;
    return S_OK;
}

void vkdml_backend_device_destroy(struct vkdml_backend_device *device)
{
    const struct vkdml_vk_device_procs *vk_procs;

    if (!device)
        return;
    vk_procs = &device->vk->procs;
    vkdml_pipeline_cache_destroy(device);
    VK_CALL(vkDestroyPipelineLayout(device->vk->vk_device, device->layout, NULL));
    /* Applications often keep the D3D12 device to the end: persist what this DML device compiled now. */
    vkdml_vk_pipeline_cache_save(device->vk);
    d3d12_device_release(device->d3d12);
    free(device);
}

bool vkdml_backend_data_type_supported(struct vkdml_backend_device *device, DML_TENSOR_DATA_TYPE data_type)
{
    return vkdml_caps_data_type_supported(&device->vk->caps, data_type);
}

bool vkdml_caps_data_type_supported(const struct vkdml_vk_caps *caps, DML_TENSOR_DATA_TYPE data_type)
{
    const struct data_type_requirement *requirement = data_type_requirement(data_type);

    return requirement && !(requirement->features & ~caps_features(caps));
}

const char *vkdml_caps_coopmat_f16_missing(const struct vkdml_vk_caps *caps)
{
    if (!caps->coopmat_f16 || caps->subgroup_size != VKDML_COOPMAT_SUBGROUP_SIZE || !caps->shader_float16
            || !caps->storage_16bit)
        return "the device has no 16x8x16 fp16 cooperative matrices (VK_KHR_ or VK_NV_cooperative_matrix) with 32-wide "
                "subgroups";
    return NULL;
}

HRESULT vkdml_backend_device_removed_reason(struct vkdml_backend_device *device)
{
    return atomic_load(&device->d3d12->removed_reason);
}

const char *vkdml_backend_device_name(struct vkdml_backend_device *device)
{
    return device->vk->adapter.name;
}

bool vkdml_backend_validation_enabled(struct vkdml_backend_device *device)
{
    return device->d3d12->vk_instance->validation;
}

/* ---- Shim resources and descriptors ---- */

static D3D12_HEAP_TYPE effective_heap_type(const D3D12_HEAP_PROPERTIES *properties)
{
    if (properties->Type != D3D12_HEAP_TYPE_CUSTOM)
        return properties->Type;
    switch (properties->CPUPageProperty)
    {
        case D3D12_CPU_PAGE_PROPERTY_WRITE_COMBINE: return D3D12_HEAP_TYPE_UPLOAD;
        case D3D12_CPU_PAGE_PROPERTY_WRITE_BACK: return D3D12_HEAP_TYPE_READBACK;
        default: return D3D12_HEAP_TYPE_DEFAULT;
    }
}

HRESULT vkdml_backend_get_resource(struct vkdml_backend_device *device, ID3D12Resource *iface,
        struct vkdml_resource_info *info, const char *caller)
{
    struct d3d12_resource *resource = unsafe_impl_from_ID3D12Resource(iface);

    if (!resource || resource->device != device->d3d12)
    {
        ERR("%s: resource %p is not a buffer of this device's D3D12 device.", caller, (void *)iface);
        return E_INVALIDARG;
    }
    info->gpu_address = resource->gpu_address;
    info->size = resource->desc.Width;
    info->heap_type = effective_heap_type(&resource->heap_properties);
    return S_OK;
}

bool vkdml_backend_check_cpu_descriptors(struct vkdml_backend_device *device, D3D12_CPU_DESCRIPTOR_HANDLE handle,
        UINT count, const char *caller)
{
    return d3d12_device_descriptor_from_cpu_handle(device->d3d12, handle, count, caller) != NULL;
}

bool vkdml_backend_check_gpu_descriptors(struct vkdml_backend_device *device, D3D12_GPU_DESCRIPTOR_HANDLE handle,
        UINT count, const char *caller)
{
    return d3d12_device_heap_from_gpu_handle(device->d3d12, handle, count, caller) != NULL;
}

void vkdml_backend_write_descriptor(struct vkdml_backend_device *device, D3D12_CPU_DESCRIPTOR_HANDLE table,
        UINT slot, ID3D12Resource *resource, uint64_t offset, uint64_t size)
{
    /* The CPU handle of a software descriptor heap is the host address of its records. */
    struct vkdml_descriptor *record = (struct vkdml_descriptor *)table.ptr + slot;

    d3d12_write_buffer_descriptor(record, resource ? unsafe_impl_from_ID3D12Resource(resource) : NULL, offset, size,
            VKDML_DESCRIPTOR_KIND_UAV_BUFFER, 0);
}

bool vkdml_backend_descriptor_written(D3D12_CPU_DESCRIPTOR_HANDLE table, UINT slot)
{
    const struct vkdml_descriptor *record = (const struct vkdml_descriptor *)table.ptr + slot;

    /* Heaps start zeroed; a null descriptor has address 0 as well. */
    return record->address != 0;
}

/* ---- Recording ---- */

static struct d3d12_command_list *recordable_list(struct vkdml_backend_device *device, ID3D12CommandList *iface,
        const char *caller)
{
    struct d3d12_command_list *list = unsafe_impl_from_ID3D12CommandList(iface);

    if (!list)
    {
        ERR("%s: commandList %p is not a vkdml command list (vkdml records only into its own D3D12 lists).",
                caller, (void *)iface);
        return NULL;
    }
    if (list->device != device->d3d12)
    {
        ERR("%s: commandList %p belongs to another D3D12 device than the DML device's.", caller, (void *)iface);
        return NULL;
    }
    if (!list->is_open)
    {
        ERR("%s: commandList %p is closed; Reset it before recording.", caller, (void *)iface);
        return NULL;
    }
    if (list->type != D3D12_COMMAND_LIST_TYPE_DIRECT && list->type != D3D12_COMMAND_LIST_TYPE_COMPUTE)
    {
        ERR("%s: commandList %p has type %d; DirectML records into DIRECT or COMPUTE lists.", caller,
                (void *)iface, (int)list->type);
        return NULL;
    }
    return list;
}

/* Orders a program's dispatch after the previous one (its data in the temporary resource). */
static void record_internal_barrier(const struct vkdml_vk_device_procs *vk_procs, VkCommandBuffer cmd)
{
    VkMemoryBarrier2 barrier =
    {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
        .srcStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
        .srcAccessMask = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
        .dstStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
        .dstAccessMask = VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
    };
    VkDependencyInfo dependency = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .memoryBarrierCount = 1,
            .pMemoryBarriers = &barrier};

    VK_CALL(vkCmdPipelineBarrier2(cmd, &dependency));
}

/* RenderDoc and Nsight show the operator by name (VK_EXT_debug_utils only). */
static void begin_label(struct vkdml_backend_device *device, VkCommandBuffer cmd, const char *name)
{
    const struct vkdml_vk_instance_procs *vk_procs = &device->vk->instance->procs;
    VkDebugUtilsLabelEXT label = {VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT, NULL, name, {0.2f, 0.6f, 1.0f, 1.0f}};

    if (device->vk->instance->has_debug_utils && vk_procs->vkCmdBeginDebugUtilsLabelEXT)
        VK_CALL(vkCmdBeginDebugUtilsLabelEXT(cmd, &label));
}

static void end_label(struct vkdml_backend_device *device, VkCommandBuffer cmd)
{
    const struct vkdml_vk_instance_procs *vk_procs = &device->vk->instance->procs;

    if (device->vk->instance->has_debug_utils && vk_procs->vkCmdEndDebugUtilsLabelEXT)
        VK_CALL(vkCmdEndDebugUtilsLabelEXT(cmd));
}

static void record_dispatches(struct vkdml_backend_device *device, VkCommandBuffer cmd,
        const struct vkdml_program *program, uint32_t first, uint32_t end, uint8_t *push)
{
    const struct vkdml_vk_device_procs *vk_procs = &device->vk->procs;
    uint32_t i;

    for (i = first; i < end; ++i)
    {
        const struct vkdml_dispatch *dispatch = &program->dispatches[i];

        if (dispatch->barrier_before)
            record_internal_barrier(vk_procs, cmd);
        memcpy(push + sizeof(uint64_t), dispatch->push, dispatch->push_size);
        VK_CALL(vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, dispatch->pipeline));
        VK_CALL(vkCmdPushConstants(cmd, device->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                sizeof(uint64_t) + dispatch->push_size, push));
        VK_CALL(vkCmdDispatch(cmd, dispatch->groups[0], dispatch->groups[1], dispatch->groups[2]));
    }
}

/* Dispatches [first, end) in a label of their own, timed by `profiler` when there is one. */
static void record_labelled(struct vkdml_backend_device *device, VkCommandBuffer cmd,
        const struct vkdml_program *program, uint32_t first, uint32_t end, const char *label, uint8_t *push,
        struct vkdml_profiler *profiler)
{
    int slot = -1;

    if (first == end)
        return;
    begin_label(device, cmd, label);
    if (profiler)
        slot = vkdml_profiler_begin(profiler, cmd, label);
    record_dispatches(device, cmd, program, first, end, push);
    if (slot >= 0)
        vkdml_profiler_end(profiler, cmd, slot);
    end_label(device, cmd);
}

/* The program's dispatches in a debug label, timed by `profiler` when there is one (per node for
 * a compiled graph, in the graph's label). Shared by shim command lists and engines' command
 * buffers: the Vulkan state it changes is exactly what vkdml_vulkan.h documents (compute
 * pipeline, push constants, labels, the profiler's queries). */
static void record_program(struct vkdml_backend_device *device, VkCommandBuffer cmd,
        const struct vkdml_program *program, D3D12_GPU_DESCRIPTOR_HANDLE table, struct vkdml_profiler *profiler)
{
    uint8_t push[VKDML_PUSH_CONSTANT_SIZE];
    char label[64];
    uint32_t i;

    /* Nothing to run (an initializer with nothing to copy): no label, no timing. */
    if (!program->dispatch_count)
        return;
    vkdml_program_get_label(device, program, label, sizeof(label));
    memcpy(push, &table.ptr, sizeof(table.ptr));
    if (!program->segment_count)
    {
        record_labelled(device, cmd, program, 0, program->dispatch_count, label, push, profiler);
        return;
    }
    begin_label(device, cmd, label);
    for (i = 0; i < program->segment_count; ++i)
    {
        uint32_t end = i + 1 < program->segment_count ? program->segments[i + 1].first_dispatch
                : program->dispatch_count;

        record_labelled(device, cmd, program, program->segments[i].first_dispatch, end,
                program->segments[i].label, push, profiler);
    }
    end_label(device, cmd);
}

HRESULT vkdml_backend_record(struct vkdml_backend_device *device, ID3D12CommandList *iface,
        const struct vkdml_program *program, D3D12_GPU_DESCRIPTOR_HANDLE table, const char *caller)
{
    struct d3d12_command_list *list;

    if (!(list = recordable_list(device, iface, caller)))
        return E_INVALIDARG;
    /* Barriers the application placed before this dispatch apply to it. */
    d3d12_command_list_flush_barriers(list);
    record_program(device, list->vk_command_buffer, program, table, list->profiler);
    return S_OK;
}

HRESULT vkdml_backend_add_submit_check(ID3D12CommandList *iface, bool (*check)(void *context),
        void (*destroy)(void *context), void *context)
{
    struct d3d12_command_list *list = unsafe_impl_from_ID3D12CommandList(iface);
    struct d3d12_submit_check submit_check = {check, destroy, context};

    return d3d12_command_list_add_submit_check(list, &submit_check);
}

HRESULT vkdml_backend_check_vk_record(struct vkdml_backend_device *device, struct vkdml_profiler *profiler,
        const char *caller)
{
    /* No engine holds a command buffer of a VkDevice vkdml made itself. */
    if (!device->vk->imported)
    {
        vkdml_log(VKDML_LOG_ERR, VKDML_LOG_SOURCE_VKDML, caller, "the DML device runs on a VkDevice vkdml created "
                "itself, which no engine command buffer belongs to; create it with vkdml_create_device_from_vulkan(), "
                "or record with IDMLCommandRecorder::RecordDispatch into a command list of its D3D12 device.");
        return E_INVALIDARG;
    }
    if (profiler && vkdml_profiler_device(profiler) != device->d3d12)
    {
        vkdml_log(VKDML_LOG_ERR, VKDML_LOG_SOURCE_VKDML, caller, "profiler %p belongs to another D3D12 device "
                "than the DML device's.", (void *)profiler);
        return E_INVALIDARG;
    }
    return S_OK;
}

void vkdml_backend_record_vk(struct vkdml_backend_device *device, void *command_buffer,
        const struct vkdml_program *program, D3D12_GPU_DESCRIPTOR_HANDLE table, struct vkdml_profiler *profiler)
{
    record_program(device, (VkCommandBuffer)command_buffer, program, table, profiler);
}
