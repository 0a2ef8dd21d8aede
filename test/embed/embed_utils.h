/*
 * Helpers of the embedding and profiler tests: a vkdml device on the test engine (engine.h), or on
 * vkdml's own D3D12 device (`shim`); FLOAT32 tensors; ADD and GEMM; binding tables in slots of one
 * shader-visible heap; wrapped engine buffers and shim buffers; RecordDispatch into an engine's
 * command buffer. Every helper asserts (cmocka) on failure.
 */
#ifndef VKDML_TEST_EMBED_UTILS_H
#define VKDML_TEST_EMBED_UTILS_H

#ifndef COBJMACROS
# define COBJMACROS
#endif
#include <DirectML.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_utils.h"
#include "engine.h"

#define check_hr(hr, expected) assert_int_equal((uint32_t)(HRESULT)(hr), (uint32_t)(HRESULT)(expected))
/* Exactly one vkdml error line since the last check, containing `what`. */
#define check_one_error(what) do { \
        assert_int_equal(vkdml_test_log_counts()->errors, 1); \
        assert_logged_error(what); \
    } while (0)

#define TABLE_DESCRIPTORS 16    /* per binding table */
#define TABLES 8                /* binding tables in the heap */

/* A DML device with a recorder and a descriptor heap, on an engine's device or (engine unused) on
 * vkdml's own D3D12 device. */
struct embed
{
    struct engine engine;
    IDMLDevice *dml;
    ID3D12Device *d3d12;
    IDMLCommandRecorder *recorder;
    ID3D12DescriptorHeap *heap;
    UINT increment;
    UINT next_table;
};

/* A 1x1xROWSxCOLUMNS packed tensor. */
struct tensor
{
    UINT sizes[4];
    DML_BUFFER_TENSOR_DESC buffer;
    DML_TENSOR_DESC desc;
};

/* vkdml's own D3D12 device with a queue, an open list and a fence. */
struct shim
{
    ID3D12Device *device;
    ID3D12CommandQueue *queue;
    ID3D12CommandAllocator *allocator;
    ID3D12GraphicsCommandList *list;
    ID3D12Fence *fence;
};

/* The engine, then vkdml_create_device_from_vulkan on it. */
void embed_create(struct embed *e, const struct engine_options *options);
/* The same, handing vkdml `get_instance_proc_addr` instead of the loader's (to watch its calls). */
void embed_create_with_loader(struct embed *e, const struct engine_options *options,
        PFN_vkGetInstanceProcAddr get_instance_proc_addr);
/* Releases vkdml's objects (each to refcount 0), then the engine destroys its own. */
void embed_destroy(struct embed *e);
void tensor_init(struct tensor *t, DML_TENSOR_DATA_TYPE type, UINT rows, UINT columns);
/* ELEMENT_WISE_ADD, compiled; returns CreateOperator's or CompileOperator's HRESULT. */
HRESULT create_add(struct embed *e, struct tensor *a, struct tensor *b, struct tensor *out,
        IDMLCompiledOperator **compiled);
IDMLCompiledOperator *compile_gemm(struct embed *e, struct tensor *a, struct tensor *b, struct tensor *out);
/* A binding table in the next free slot of the heap. */
IDMLBindingTable *create_table(struct embed *e, void *dispatchable);
void buffer_desc_init(struct vkdml_vulkan_buffer_desc *desc, const struct engine_buffer *buffer,
        VkDeviceSize offset, VkDeviceSize size);
/* vkdml_wrap_vk_buffer of [offset, offset + size) of an engine buffer. */
ID3D12Resource *wrap(struct embed *e, const struct engine_buffer *buffer, VkDeviceSize offset, VkDeviceSize size);
/* A DEFAULT-heap UAV buffer of the shim (zeroed by a submission on the device's queue). */
ID3D12Resource *shim_buffer(struct embed *e, UINT64 size);
DML_BINDING_DESC buffer_binding(DML_BUFFER_BINDING *storage, ID3D12Resource *buffer, UINT64 size);
/* Binds inputs, one output and (made here) a temporary resource; no persistent resource. */
IDMLBindingTable *bind_operator(struct embed *e, IDMLCompiledOperator *op, ID3D12Resource *const *inputs,
        const UINT64 *input_sizes, UINT input_count, ID3D12Resource *output, UINT64 output_size,
        ID3D12Resource **temporary);
/* Initializes the operators in an engine's command buffer; keep the initializer until it completed. */
IDMLOperatorInitializer *record_initializer(struct embed *e, VkCommandBuffer command_buffer,
        IDMLCompiledOperator **ops, UINT count, ID3D12Resource **temporary);
/* Releases a COM object to refcount 0; NULL is ignored. */
void release_if(void *object);
/* Compute read/write -> compute read/write, in an engine's command buffer. */
void compute_barrier(struct embed *e, VkCommandBuffer command_buffer);
/* Deterministic values in [-1, 1]. */
void fill_random(float *values, size_t count, uint32_t seed);
void shim_create(struct shim *shim);
/* Closes, executes, signals `value` and waits. */
void shim_execute_and_wait(struct shim *shim, UINT64 value);
void shim_destroy(struct shim *shim);
/* A global UAV barrier (D3D12's, between dependent dispatches). */
void uav_barrier(ID3D12GraphicsCommandList *list);
/* `embed` on vkdml's own D3D12 device (no engine), with the heap set on the shim's list. */
void shim_embed_create(struct embed *e, struct shim *shim);
void shim_embed_destroy(struct embed *e, struct shim *shim);

#endif /* VKDML_TEST_EMBED_UTILS_H */
