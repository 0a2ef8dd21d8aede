/*
 * Helpers shared by the DirectML execution-model tests (test_dml_*.c): a D3D12 context (from
 * ../d3d12/d3d12_test.h) plus a DML device, a command recorder and a shader-visible descriptor
 * heap; tensor descs; buffers in UNORDERED_ACCESS state; initialize/bind/record/execute; fake
 * (foreign) COM objects; refcount-to-zero teardown. Black-box: DirectML.h, d3d12.h and vkdml.h.
 */
#ifndef VKDML_TEST_DML_RULES_UTILS_H
#define VKDML_TEST_DML_RULES_UTILS_H

#ifndef COBJMACROS
# define COBJMACROS
#endif
#include <DirectML.h>

#include "d3d12/d3d12_test.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Descriptors in the context's heap: enough for several tables side by side. */
#define DML_CONTEXT_DESCRIPTORS 256

struct dml_context
{
    struct test_context d3d;            /* first member: d3d12_test.h's helpers take &context->d3d */
    IDMLDevice *dml;
    IDMLCommandRecorder *recorder;
    ID3D12DescriptorHeap *heap;         /* shader-visible CBV_SRV_UAV, DML_CONTEXT_DESCRIPTORS */
    UINT increment;
    DML_CREATE_DEVICE_FLAGS flags;
};

/* cmocka setup/teardown: a fresh D3D12 device and DML device per test (DML_CREATE_DEVICE_FLAG_NONE,
 * or DEBUG). Teardown waits for the queue, then releases the recorder, the heap, the DML device
 * and every D3D12 object, and fails unless each final Release returns 0 and nothing unexpected
 * was logged. A test that replaced context->dml releases what it created itself. */
int dml_context_setup(void **state);
int dml_debug_context_setup(void **state);
int dml_context_teardown(void **state);

/* Calls SetDescriptorHeaps(context heap) on the open list (DirectML never sets heaps). */
void dml_set_heap(struct dml_context *context);
/* Close, execute, wait, reset, reopen (d3d12_test.h), then SetDescriptorHeaps again. */
void dml_execute_and_wait(struct dml_context *context);

/* ---- Tensors ---- */

struct dml_tensor
{
    UINT sizes[8];
    UINT strides[8];
    DML_BUFFER_TENSOR_DESC buffer;
    DML_TENSOR_DESC desc;               /* points at buffer: never copy a dml_tensor by value */
};

/* Packed tensor; TotalTensorSizeInBytes from vkdml_calc_buffer_tensor_size. */
void dml_tensor_init(struct dml_tensor *tensor, DML_TENSOR_DATA_TYPE type, UINT rank, const UINT *sizes,
        DML_TENSOR_FLAGS flags);
/* FLOAT32 {1,2,3,4}, HelloDirectML's tensor. */
void dml_tensor_init_hello(struct dml_tensor *tensor);
static inline UINT64 dml_tensor_bytes(const struct dml_tensor *tensor)
{
    return tensor->buffer.TotalTensorSizeInBytes;
}
static inline UINT dml_tensor_elements(const struct dml_tensor *tensor)
{
    UINT i, count = 1;

    for (i = 0; i < tensor->buffer.DimensionCount; ++i)
        count *= tensor->sizes[i];
    return count;
}

/* ---- Operators ---- */

IDMLOperator *dml_create_operator(IDMLDevice *device, DML_OPERATOR_TYPE type, const void *desc);
IDMLOperator *dml_create_identity(IDMLDevice *device, const struct dml_tensor *input, const struct dml_tensor *output);
IDMLOperator *dml_create_add(IDMLDevice *device, const struct dml_tensor *a, const struct dml_tensor *b,
        const struct dml_tensor *output);
IDMLOperator *dml_create_gemm(IDMLDevice *device, const struct dml_tensor *a, const struct dml_tensor *b,
        const struct dml_tensor *c, const struct dml_tensor *output, float alpha, float beta);
/* Compiles and releases `op` (the compiled operator keeps its own reference). */
IDMLCompiledOperator *dml_compile(IDMLDevice *device, IDMLOperator *op, DML_EXECUTION_FLAGS flags);

static inline DML_BINDING_PROPERTIES dml_properties(void *dispatchable)
{
    return IDMLDispatchable_GetBindingPropertiesByValue((IDMLDispatchable *)dispatchable);
}

/* ---- Buffers (DEFAULT heap, ALLOW_UNORDERED_ACCESS, left in UNORDERED_ACCESS) ---- */

/* A UAV buffer of `size` bytes, filled with `data` (`data_size` bytes at `offset`) or zeros. */
ID3D12Resource *dml_create_buffer(struct dml_context *context, UINT64 size, UINT64 offset, const void *data,
        size_t data_size);
/* Reads `size` bytes at `offset` of a UAV buffer (waits for the queue; the list stays open). */
void dml_read_buffer(struct dml_context *context, ID3D12Resource *buffer, UINT64 offset, void *data, size_t size);
/* Records a UAV barrier on all resources into the open list. */
void dml_uav_barrier(struct dml_context *context);

/* ---- Bindings ---- */

static inline DML_BUFFER_BINDING dml_buffer_binding(ID3D12Resource *buffer, UINT64 offset, UINT64 size)
{
    DML_BUFFER_BINDING binding;

    binding.Buffer = buffer;
    binding.Offset = offset;
    binding.SizeInBytes = size;
    return binding;
}
static inline DML_BINDING_DESC dml_binding(const DML_BUFFER_BINDING *buffer)
{
    DML_BINDING_DESC desc;

    desc.Type = buffer ? DML_BINDING_TYPE_BUFFER : DML_BINDING_TYPE_NONE;
    desc.Desc = buffer;
    return desc;
}

/* A table over descriptors [first, first + count) of the context heap; count 0 = the
 * dispatchable's RequiredDescriptorCount (at least 1). */
DML_BINDING_TABLE_DESC dml_table_desc(struct dml_context *context, void *dispatchable, UINT first, UINT count);
IDMLBindingTable *dml_create_table(struct dml_context *context, void *dispatchable, UINT first, UINT count);

/* Records `dispatchable` with `table` into the open list. */
void dml_record(struct dml_context *context, void *dispatchable, IDMLBindingTable *table);

/* Initializes `count` compiled operators with one initializer and waits. `persistent[i]` receives
 * a buffer of operator i's PersistentResourceSize (NULL when 0); `inputs` (may be NULL) gives per
 * operator the BUFFER_ARRAY of its OWNED_BY_DML inputs (BindingCount 0 = NONE). Asserts that
 * the DML device is not removed afterwards. */
void dml_initialize(struct dml_context *context, IDMLCompiledOperator *const *ops, UINT count,
        ID3D12Resource **persistent, const DML_BUFFER_ARRAY_BINDING *inputs);

/* Binds (temporary resource created as needed), records, executes and waits. `inputs`/`outputs`
 * are DML_BINDING_DESCs; `persistent` may be NULL. Asserts the device is not removed. */
void dml_execute(struct dml_context *context, IDMLCompiledOperator *op, const DML_BINDING_DESC *inputs,
        UINT input_count, const DML_BINDING_DESC *outputs, UINT output_count, ID3D12Resource *persistent);

/* ---- Device state and logging ---- */

/* GetDeviceRemovedReason is S_OK. */
void dml_check_not_removed_(IDMLDevice *device, const char *file, int line);
#define dml_check_not_removed(device) dml_check_not_removed_(device, __FILE__, __LINE__)
/* The device is removed: GetDeviceRemovedReason fails and an HRESULT method answers
 * DXGI_ERROR_DEVICE_REMOVED. Returns the reason. */
HRESULT dml_check_removed_(IDMLDevice *device, const char *file, int line);
#define dml_check_removed(device) dml_check_removed_(device, __FILE__, __LINE__)
/* At least one vkdml error (and no validation message) was logged since the last reset; resets. */
void dml_check_errors_logged_(const char *file, int line);
#define dml_check_errors_logged() dml_check_errors_logged_(__FILE__, __LINE__)

/* Replaces context->dml by a fresh device of the same D3D12 device (after a removal), releasing
 * the old one and its recorder (each to 0). */
void dml_context_recreate_device(struct dml_context *context);

/* ---- Foreign COM objects ---- */

/* A COM object of no library: QueryInterface answers `iid` (and IUnknown) with itself, AddRef and
 * Release count; every other slot of its 128-slot vtable counts the call and returns E_NOTIMPL. */
struct fake_com_object
{
    void *lpVtbl;
    LONG refcount;
    IID iid;
};
void fake_com_object_init(struct fake_com_object *object, REFIID iid);
/* Calls into slots 3 and above of any fake object (the stubs cannot trust their first argument:
 * struct-returning methods pass a hidden pointer there). */
extern unsigned int fake_com_other_calls;

/* ---- Float data ---- */

/* Deterministic values in [-range, range], distinct per seed. */
void dml_fill_floats(float *data, size_t count, unsigned int seed, float range);
/* Index of the first element with |got - expected| > abs_tol + rel_tol * |expected|, or -1. */
long dml_compare_floats(const float *got, const float *expected, size_t count, float abs_tol, float rel_tol);

#endif /* VKDML_TEST_DML_RULES_UTILS_H */
