/*
 * The boundary between the DirectML object layer (api/dml_*.c) and the Vulkan backend: the DML
 * objects call only these functions, never Vulkan or the D3D12 shim's internals. It lives with
 * the layer that consumes it; backend_vk/ implements it (dml.c, program.c, embed.c, profiler.c).
 *
 * Descriptor layout of a compiled operator's binding table (RequiredDescriptorCount =
 * input_count + output_count + 2):
 *     [0, input_count)                       inputs, in binding order (arrays flattened)
 *     [input_count, input_count + outputs)   outputs
 *     input_count + output_count             temporary resource
 *     input_count + output_count + 1         persistent resource
 * Descriptor layout of an initializer's table: per target t, in order,
 *     input_count(t) slots for its initialization inputs, then 1 slot for its persistent resource;
 * then 1 slot for the initializer's temporary resource.
 * Every slot holds a descriptor the backend writes (vkdml_backend_write_descriptor) for the binding
 * table and kernels read when the dispatch executes; its layout is the backend's own.
 */
#ifndef VKDML_BACKEND_H
#define VKDML_BACKEND_H

#include "vkdml_com.h"
#include "DirectML.h"

struct vkdml_backend_device;
struct vkdml_graph_report;            /* the Vulkan side of one IDMLDevice */
struct vkdml_program;                   /* a compiled operator or initializer: dispatches to record */

/* ---- Device ---- */

/* Fails with E_INVALIDARG (logged as `caller`) when d3d12_device is not a vkdml shim device. */
HRESULT vkdml_backend_device_create(ID3D12Device *d3d12_device, struct vkdml_backend_device **device,
        const char *caller);
void vkdml_backend_device_destroy(struct vkdml_backend_device *device);
/* Whether kernels can read and write tensors of `data_type` on this device (shaderFloat16,
 * 8/16-bit storage, shaderInt64, shaderFloat64...). */
bool vkdml_backend_data_type_supported(struct vkdml_backend_device *device, DML_TENSOR_DATA_TYPE data_type);
/* S_OK, or DXGI_ERROR_DEVICE_REMOVED once the Vulkan device is lost. */
HRESULT vkdml_backend_device_removed_reason(struct vkdml_backend_device *device);
const char *vkdml_backend_device_name(struct vkdml_backend_device *device);
/* Whether the Khronos validation layer is active on the underlying Vulkan device. */
bool vkdml_backend_validation_enabled(struct vkdml_backend_device *device);
/* The Vulkan features kernels need for `data_type` ("shaderFloat16 and storageBuffer16BitAccess"),
 * for messages; NULL for types no kernel handles. */
const char *vkdml_backend_data_type_requirement(DML_TENSOR_DATA_TYPE data_type);

/* ---- Resources and descriptors of the D3D12 shim ---- */

struct vkdml_resource_info
{
    uint64_t gpu_address;               /* buffer device address of byte 0 */
    uint64_t size;                      /* D3D12_RESOURCE_DESC::Width */
    D3D12_HEAP_TYPE heap_type;          /* CUSTOM heaps are reported by their page property:
                                         * WRITE_COMBINE as UPLOAD, WRITE_BACK as READBACK, NOT_AVAILABLE as DEFAULT */
};

/* E_INVALIDARG (logged as `caller`) for NULL, a foreign resource, or one of another device. */
HRESULT vkdml_backend_get_resource(struct vkdml_backend_device *device, ID3D12Resource *resource,
        struct vkdml_resource_info *info, const char *caller);
/* Whether [handle, handle + count) lies in one live CBV_SRV_UAV heap (logged if not). */
bool vkdml_backend_check_cpu_descriptors(struct vkdml_backend_device *device, D3D12_CPU_DESCRIPTOR_HANDLE handle,
        UINT count, const char *caller);
/* Whether [handle, handle + count) lies in one live shader-visible CBV_SRV_UAV heap (logged if not). */
bool vkdml_backend_check_gpu_descriptors(struct vkdml_backend_device *device, D3D12_GPU_DESCRIPTOR_HANDLE handle,
        UINT count, const char *caller);
/* Writes descriptor `slot` of the range at `table` (checked by vkdml_backend_check_cpu_descriptors):
 * a view of bytes [offset, offset + size) of `resource` (checked by vkdml_backend_get_resource), or
 * an empty slot, which kernels must not read, when `resource` is NULL. */
void vkdml_backend_write_descriptor(struct vkdml_backend_device *device, D3D12_CPU_DESCRIPTOR_HANDLE table,
        UINT slot, ID3D12Resource *resource, uint64_t offset, uint64_t size);

/* ---- Operators ---- */

/* An operator as the backend sees it: the desc, already validated field by field and deep-copied
 * by the object layer, with its tensors flattened in binding order. */
struct vkdml_operator_view
{
    DML_OPERATOR_TYPE type;
    const char *name;                   /* "ELEMENT_WISE_ADD" */
    const void *desc;                   /* the DML_*_OPERATOR_DESC */
    UINT input_count, output_count;     /* bindings, optional tensors included */
    const DML_BUFFER_TENSOR_DESC *const *inputs;    /* [input_count]; NULL for an absent optional tensor */
    const DML_BUFFER_TENSOR_DESC *const *outputs;   /* [output_count] */
};

/* Whether the operator table has an implementation. */
bool vkdml_backend_operator_implemented(DML_OPERATOR_TYPE type);
/* Operator-specific rules (shapes, types, attributes) beyond the generic tensor checks; logs one
 * line "CreateOperator(NAME): <field and rule>" and returns E_INVALIDARG, or E_NOTIMPL when the
 * operator or this combination is not implemented. */
HRESULT vkdml_backend_validate_operator(struct vkdml_backend_device *device, const struct vkdml_operator_view *op);
/* Picks kernels, bakes specialization constants, creates or reuses pipelines. */
HRESULT vkdml_backend_compile_operator(struct vkdml_backend_device *device, const struct vkdml_operator_view *op,
        DML_EXECUTION_FLAGS flags, struct vkdml_program **program);
/* The dispatches that initialize `targets` (their OWNED_BY_DML inputs copied into their
 * persistent resources); target_count may be 0 (an empty program). */
HRESULT vkdml_backend_compile_initializer(struct vkdml_backend_device *device, UINT target_count,
        const struct vkdml_program *const *targets, struct vkdml_program **program);
void vkdml_backend_program_destroy(struct vkdml_backend_device *device, struct vkdml_program *program);
/* Descriptor count, temporary and persistent sizes. */
DML_BINDING_PROPERTIES vkdml_backend_program_binding_properties(const struct vkdml_program *program);
/* SetName: names the program's Vulkan pipelines (debug utils) for tools like RenderDoc. */
void vkdml_backend_program_set_name(struct vkdml_backend_device *device, struct vkdml_program *program,
        const char *name);

/* A validated DML graph (dml_graph.c), nodes in an order where every node comes after the nodes
 * that feed it. A source is where a node input or a graph output takes its bytes. */
enum vkdml_graph_source_kind
{
    VKDML_GRAPH_SOURCE_NONE,                /* an absent optional tensor */
    VKDML_GRAPH_SOURCE_INPUT,               /* graph input `index` */
    VKDML_GRAPH_SOURCE_NODE,                /* output `output` of node `index` (0 for a constant node) */
};

struct vkdml_graph_source
{
    enum vkdml_graph_source_kind kind;
    uint32_t index, output;
};

struct vkdml_graph_node
{
    const struct vkdml_operator_view *op;   /* NULL for a constant node */
    const void *data;                       /* a constant node's bytes (the graph's copy) */
    uint64_t data_size;
    const char *label;                      /* for messages and profiler entries: Name, else the type */
    const struct vkdml_graph_source *inputs;    /* [op->input_count] */
};

struct vkdml_graph_view
{
    uint32_t input_count, output_count, node_count;
    const struct vkdml_graph_node *nodes;
    const struct vkdml_graph_source *outputs;   /* [output_count], each a NODE source */
    const DML_BUFFER_TENSOR_DESC *const *inputs;    /* [input_count]; NULL: unused */
};

/* CompileGraph's backend part: one program running the whole graph (docs/graph.md). */
HRESULT vkdml_backend_compile_graph(struct vkdml_backend_device *device, const struct vkdml_graph_view *graph,
        DML_EXECUTION_FLAGS flags, struct vkdml_program **program);
/* What the graph compiler did (vkdml.h); zeros for an operator's program. */
void vkdml_backend_program_graph_report(const struct vkdml_program *program, struct vkdml_graph_report *report);

/* Records the program into an open DIRECT or COMPUTE shim command list: binds its pipelines,
 * pushes the table address and constants, dispatches. No barriers on bound resources; barriers
 * only between a program's own dependent dispatches. E_INVALIDARG (logged as `caller`) for a
 * foreign, closed or wrong-type list. */
HRESULT vkdml_backend_record(struct vkdml_backend_device *device, ID3D12CommandList *command_list,
        const struct vkdml_program *program, D3D12_GPU_DESCRIPTOR_HANDLE table, const char *caller);
/* DESCRIPTORS_VOLATILE dispatches read descriptors written after recording: the shim queue calls
 * check(context) before it submits `command_list` (which vkdml_backend_record recorded into), and
 * submits nothing when it returns false. destroy(context) runs when the list is reset or released,
 * or at once when this fails (E_OUTOFMEMORY; the list's Close then fails too). */
HRESULT vkdml_backend_add_submit_check(ID3D12CommandList *command_list, bool (*check)(void *context),
        void (*destroy)(void *context), void *context);
/* Whether descriptor `slot` of the range at `table` views a buffer (false: empty or never written). */
bool vkdml_backend_descriptor_written(D3D12_CPU_DESCRIPTOR_HANDLE table, UINT slot);

/* For vkdml_record_dispatch_vk (vkdml_vulkan.h): E_INVALIDARG (logged as `caller`) when the device
 * is not on an engine's VkDevice, or `profiler` (may be NULL) is not of this device. */
HRESULT vkdml_backend_check_vk_record(struct vkdml_backend_device *device, struct vkdml_profiler *profiler,
        const char *caller);
/* Records the program into an engine's VkCommandBuffer (passed as void *: this header has no Vulkan
 * types), timed by `profiler` when not NULL; the same commands as vkdml_backend_record, without the
 * shim list's pending barriers. */
void vkdml_backend_record_vk(struct vkdml_backend_device *device, void *command_buffer,
        const struct vkdml_program *program, D3D12_GPU_DESCRIPTOR_HANDLE table, struct vkdml_profiler *profiler);

#endif /* VKDML_BACKEND_H */
