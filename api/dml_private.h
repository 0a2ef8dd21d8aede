/*
 * The DirectML object layer: IDMLDevice1, IDMLOperator, IDMLCompiledOperator,
 * IDMLOperatorInitializer, IDMLBindingTable, IDMLCommandRecorder, in the C COM style of the
 * D3D12 shim. Backend-independent: Vulkan work goes through vkdml_backend.h.
 *
 * Files: dml_device.c (device, debug device, DMLCreateDevice*), dml_operator.c (operators and
 * compiled operators), dml_initializer.c, dml_binding_table.c, dml_command_recorder.c,
 * tensor_desc.c (generic desc validation and deep copy, driven by dml_op_schema.c).
 */
#ifndef VKDML_DML_PRIVATE_H
#define VKDML_DML_PRIVATE_H

#include <stdatomic.h>

#include "vkdml_com.h"
#include "DirectML.h"
#include "dml_op_schema.h"
#include "vkdml_backend.h"

/* ---- Device ---- */

struct dml_device
{
    IDMLDevice1 IDMLDevice1_iface;
    IDMLDebugDevice IDMLDebugDevice_iface;
    atomic_uint refcount;

    ID3D12Device *d3d12_device;             /* holds a reference (DirectML keeps its D3D12 device alive) */
    struct vkdml_backend_device *backend;
    DML_CREATE_DEVICE_FLAGS flags;
    DML_FEATURE_LEVEL feature_level;        /* the highest level whose operators are all implemented, or 0 */
    atomic_bool muted;                      /* IDMLDebugDevice::SetMuteDebugOutput */
    /* Set by a void method's misuse (DirectML removes the device) or by device loss. */
    atomic_int removed_reason;              /* HRESULT; S_OK while usable */
    struct vkdml_private_store private_store;
};

struct dml_device *unsafe_impl_from_IDMLDevice(IDMLDevice *iface);
void dml_device_add_ref(struct dml_device *device);
void dml_device_release(struct dml_device *device);
/* DXGI_ERROR_DEVICE_REMOVED (and logs as `caller` once) when removed, else S_OK. */
HRESULT dml_device_check_removed(struct dml_device *device, const char *caller);
/* For misuse in void methods: logs (ERR) and removes the DML device with `reason`. */
void dml_device_remove(struct dml_device *device, HRESULT reason, const char *caller, const char *fmt, ...)
        VKDML_PRINTF(4, 5);
/* Extra validation of the debug device (DML_CREATE_DEVICE_FLAG_DEBUG). */
static inline bool dml_device_is_debug(const struct dml_device *device)
{
    return device->flags & DML_CREATE_DEVICE_FLAG_DEBUG;
}

/* ---- Tensor descs (tensor_desc.c) ---- */

/* Checks every field of `desc` of operator `type` against the schema: tensor descs (type, data
 * type, flags, rank 1..8, sizes, strides, TotalTensorSizeInBytes, GuaranteedBaseOffsetAlignment),
 * arrays, enums, nested fused activations; then, for an operator whose schema records DirectML's
 * tensor support, each tensor's rank and data type and the tensors that must share them. One ERR
 * line "CreateOperator(NAME): field: rule". */
HRESULT vkdml_validate_operator_desc(const DML_OPERATOR_DESC *desc, const char *caller);

/* A validated desc copied into one allocation, with its tensors flattened in binding order. */
struct vkdml_desc_copy
{
    void *memory;                           /* everything below points into it; free() it */
    struct vkdml_operator_view view;
};
HRESULT vkdml_copy_operator_desc(const DML_OPERATOR_DESC *desc, struct vkdml_desc_copy *copy);

/* "{2,3,4}" */
const char *debugstr_sizes(UINT count, const UINT *sizes);

/* ---- Operators and compiled operators (dml_operator.c) ---- */

struct dml_operator
{
    IDMLOperator IDMLOperator_iface;
    atomic_uint refcount;
    struct dml_device *device;              /* holds a reference */
    struct vkdml_private_store private_store;
    struct vkdml_desc_copy desc;
};

struct dml_operator *unsafe_impl_from_IDMLOperator(IDMLOperator *iface);

enum dml_init_state
{
    DML_INIT_NONE,                          /* not initialized */
    DML_INIT_RECORDED,                      /* an initializer dispatch that targets it was recorded */
};

struct dml_graph;

struct dml_compiled_operator
{
    IDMLCompiledOperator IDMLCompiledOperator_iface;
    atomic_uint refcount;
    struct dml_device *device;              /* holds a reference */
    struct dml_operator *op;                /* holds a reference (CompileOperator keeps it); NULL for a graph */
    struct dml_graph *graph;                /* CompileGraph's: what the program and `view` point into; else NULL */
    const struct vkdml_operator_view *view; /* its bindings: the operator's, or the graph's inputs and outputs */
    struct vkdml_private_store private_store;
    DML_EXECUTION_FLAGS flags;
    struct vkdml_program *program;
    DML_BINDING_PROPERTIES properties;
    atomic_int init_state;                  /* enum dml_init_state */
};

struct dml_compiled_operator *unsafe_impl_from_IDMLCompiledOperator(IDMLCompiledOperator *iface);
/* Marks the operator initialized; fails (logged) when an initializer already targeted it. */
HRESULT dml_compiled_operator_mark_initialized(struct dml_compiled_operator *compiled, const char *caller);

/* ---- Initializers (dml_initializer.c) ---- */

struct dml_initializer
{
    IDMLOperatorInitializer IDMLOperatorInitializer_iface;
    atomic_uint refcount;
    struct dml_device *device;              /* holds a reference */
    struct vkdml_private_store private_store;
    UINT target_count;
    struct dml_compiled_operator **targets; /* each holds a reference */
    struct vkdml_program *program;
    DML_BINDING_PROPERTIES properties;
};

struct dml_initializer *unsafe_impl_from_IDMLOperatorInitializer(IDMLOperatorInitializer *iface);

/* What binding tables and the recorder need of either kind of dispatchable. */
struct dml_dispatchable
{
    struct dml_device *device;
    struct dml_compiled_operator *compiled; /* exactly one of compiled / initializer */
    struct dml_initializer *initializer;
    const struct vkdml_program *program;
    DML_BINDING_PROPERTIES properties;
    bool volatile_descriptors;              /* DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE */
    IDMLDispatchable *iface;
};
/* Fills `dispatchable` for one of ours; false (nothing logged) for a foreign or NULL object. */
bool dml_dispatchable_from_iface(IDMLDispatchable *iface, struct dml_dispatchable *dispatchable);

/* ---- Binding tables (dml_binding_table.c) ---- */

/* Bytes a compiled operator's input or output tensor occupies: GPU address and the tensor's
 * TotalTensorSizeInBytes; size 0 while nothing is bound there. For the aliasing rule. */
struct dml_bound_range
{
    uint64_t start, size;
};

struct dml_binding_table
{
    IDMLBindingTable IDMLBindingTable_iface;
    atomic_uint refcount;
    struct dml_device *device;              /* holds a reference */
    struct vkdml_private_store private_store;
    IDMLDispatchable *dispatchable_iface;   /* holds a reference */
    struct dml_dispatchable dispatchable;
    D3D12_CPU_DESCRIPTOR_HANDLE cpu_handle; /* the descriptor range; 0 without a dispatchable */
    D3D12_GPU_DESCRIPTOR_HANDLE gpu_handle;
    UINT size_in_descriptors;
    /* Which slots hold a binding, for the completeness check at RecordDispatch. */
    bool inputs_bound, outputs_bound, temporary_bound, persistent_bound;
    /* A compiled operator's inputs, then its outputs; NULL for an initializer. */
    struct dml_bound_range *ranges;
    UINT range_count;
};

struct dml_binding_table *unsafe_impl_from_IDMLBindingTable(IDMLBindingTable *iface);
/* Without DESCRIPTORS_VOLATILE every binding must be set before RecordDispatch; removes the
 * device (logged as `caller`) and returns false when one is missing. */
bool dml_binding_table_ready(struct dml_binding_table *table, const char *caller);
/* With DESCRIPTORS_VOLATILE, at submission: whether the descriptor records at `table` hold every
 * binding `compiled` reads; else removes the device (logged as `caller`) and returns false. */
bool dml_volatile_bindings_written(struct dml_compiled_operator *compiled, D3D12_CPU_DESCRIPTOR_HANDLE table,
        const char *caller);

/* ---- Command recorder (dml_command_recorder.c) ---- */

struct dml_command_recorder
{
    IDMLCommandRecorder IDMLCommandRecorder_iface;
    atomic_uint refcount;
    struct dml_device *device;              /* holds a reference */
    struct vkdml_private_store private_store;
};

/* ---- Constructors, called from IDMLDevice1 ---- */

HRESULT dml_operator_create(struct dml_device *device, const DML_OPERATOR_DESC *desc, struct dml_operator **op);
HRESULT dml_compiled_operator_create(struct dml_device *device, struct dml_operator *op, DML_EXECUTION_FLAGS flags,
        struct dml_compiled_operator **compiled);
/* CompileGraph (dml_graph.c): validates the DML_GRAPH_DESC and compiles it into one compiled operator. */
HRESULT dml_graph_compile(struct dml_device *device, const DML_GRAPH_DESC *desc, DML_EXECUTION_FLAGS flags,
        struct dml_compiled_operator **compiled);
/* Wraps a compiled program (taking ownership of it and of `graph`, either may be NULL on failure)
 * into a compiled operator whose bindings are `view`'s. */
HRESULT dml_compiled_operator_wrap(struct dml_device *device, struct dml_operator *op, struct dml_graph *graph,
        const struct vkdml_operator_view *view, DML_EXECUTION_FLAGS flags, struct vkdml_program *program,
        struct dml_compiled_operator **compiled);
void dml_graph_destroy(struct dml_graph *graph);
HRESULT dml_initializer_create(struct dml_device *device, UINT count, IDMLCompiledOperator *const *operators,
        struct dml_initializer **initializer);
HRESULT dml_binding_table_create(struct dml_device *device, const DML_BINDING_TABLE_DESC *desc,
        struct dml_binding_table **table);
HRESULT dml_command_recorder_create(struct dml_device *device, struct dml_command_recorder **recorder);

/* IDMLObject and IDMLDeviceChild methods, the same for every object: `prefix` names the
 * functions (prefix_GetPrivateData...), `impl_from` maps the interface to the object, which has
 * `private_store` and `device` members. SetName stays per object (some name pipelines). */
#define DML_IMPLEMENT_PRIVATE_DATA(prefix, iface_type, impl_from) \
    VKDML_IMPLEMENT_PRIVATE_DATA(prefix, iface_type, impl_from, IUnknown *)

#define DML_IMPLEMENT_GET_DEVICE(prefix, iface_type, impl_from) \
    static HRESULT STDMETHODCALLTYPE prefix##_GetDevice(iface_type *iface, REFIID riid, void **device) \
    { \
        TRACE("iface %p, riid %s, device %p.", (void *)iface, debugstr_guid(riid), (void *)device); \
        if (!device) \
        { \
            ERR("GetDevice: ppv is NULL."); \
            return E_POINTER; \
        } \
        return IDMLDevice1_QueryInterface(&impl_from(iface)->device->IDMLDevice1_iface, riid, device); \
    }

/* SetName's common part: checks and converts the name; *utf8 is malloc'd (NULL for a NULL name). */
HRESULT dml_object_name_to_utf8(const WCHAR *name, char **utf8);

#endif /* VKDML_DML_PRIVATE_H */
