/*
 * Backend-internal definitions behind vkdml_backend.h: the backend device, compiled programs and
 * the pipeline cache (program.c, dml.c, ops/).
 */
#ifndef VKDML_DML_PRIVATE_BACKEND_H
#define VKDML_DML_PRIVATE_BACKEND_H

#include "ops_private.h"

struct d3d12_device;
struct vkdml_pipeline_entry;

#define VKDML_PIPELINE_BUCKETS 64

struct vkdml_backend_device
{
    struct d3d12_device *d3d12;             /* holds a reference */
    struct vkdml_vk_device *vk;             /* d3d12->vk */
    VkPipelineLayout layout;                /* every operator kernel: one push range, no descriptor sets */
    struct vkdml_mutex pipelines_mutex;
    struct vkdml_pipeline_entry *pipelines[VKDML_PIPELINE_BUCKETS];
    struct vkdml_mutex label_mutex;         /* guards every program's label (SetName vs. recording) */
    struct vkdml_knobs knobs;               /* read at creation */
};

/* One recorded dispatch of a program. */
struct vkdml_dispatch
{
    VkPipeline pipeline;                    /* owned by the device's cache */
    uint32_t groups[3];
    bool barrier_before;
    uint32_t push_size;                     /* bytes after the 8-byte table address */
    uint8_t push[VKDML_MAX_OP_PUSH];
};

/* An input flagged OWNED_BY_DML: the initializer copies it into the persistent resource. */
struct vkdml_owned_input
{
    uint32_t input;
    uint64_t offset;                        /* in the persistent resource */
    uint64_t size;                          /* TotalTensorSizeInBytes */
};

struct vkdml_program
{
    struct vkdml_dispatch *dispatches;
    uint32_t dispatch_count, dispatch_capacity;
    DML_BINDING_PROPERTIES properties;
    uint32_t input_count;
    struct vkdml_owned_input *owned;
    uint32_t owned_count;
    uint64_t owned_size;                    /* the persistent resource's OWNED_BY_DML part */
    /* The operator (its compiled operator keeps it alive) and flags, for the family's initialize
     * hook; `family_init` when its compile() reserved persistent space for the hook to write. */
    const struct vkdml_operator_view *op;
    DML_EXECUTION_FLAGS flags;
    bool family_init;
    /* The name of its debug labels and profiler entries: SetName's, else type_label. */
    char label[64];
    char type_label[64];                    /* "GEMM", "INITIALIZER" */
};

/* Copies the program's label under the device's label mutex. */
void vkdml_program_get_label(struct vkdml_backend_device *device, const struct vkdml_program *program,
        char *label, size_t size);

/* The pipeline for `kernel` with these specialization constants, created on first use and shared
 * by every program of the device. */
HRESULT vkdml_pipeline_cache_get(struct vkdml_backend_device *device, enum vkdml_kernel_id kernel,
        const uint32_t *spec, uint32_t spec_count, VkPipeline *pipeline);
void vkdml_pipeline_cache_destroy(struct vkdml_backend_device *device);

#endif /* VKDML_DML_PRIVATE_BACKEND_H */
