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

/* A part of a program with its own profiler entry and debug label: a compiled graph's node. */
struct vkdml_program_segment
{
    uint32_t first_dispatch;                /* runs to the next segment's first dispatch */
    char label[64];
};

struct vkdml_graph;

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
    char type_label[64];                    /* "GEMM", "INITIALIZER", "GRAPH" */
    /* A compiled graph's: its nodes' segments and what its initializer needs (graph.c). */
    struct vkdml_program_segment *segments;
    uint32_t segment_count;
    struct vkdml_graph *graph;
    /* Counts dispatches without creating pipelines (the graph report's unfused count). */
    bool count_only;
};

/* Appends a dispatch of the copy kernel: `size` bytes (a multiple of 4) from slot `source_slot`
 * (or, with COPY_SOURCE_ADDRESS, from `source_address`) to `destination_offset` of slot
 * `destination_slot`. */
HRESULT vkdml_program_add_copy(struct vkdml_backend_device *device, struct vkdml_program *program,
        uint32_t source_slot, uint64_t source_address, uint32_t destination_slot, uint64_t destination_offset,
        uint64_t size, bool barrier_before);

/* graph.c: a graph program's initializer part (its OWNED_BY_DML inputs and constants copied into the
 * persistent resource, nodes run once, the families' initialize hooks), its slots from `base_slot`
 * (inputs, then the persistent resource) and the initializer's temporary resource at `temporary_slot`. */
HRESULT vkdml_graph_add_initializer(struct vkdml_backend_device *device, struct vkdml_program *init,
        const struct vkdml_program *target, uint32_t base_slot, uint32_t temporary_slot);
void vkdml_graph_destroy(struct vkdml_graph *graph);
/* The family initialize hook of `op` (compiled with `flags`, its persistent data from
 * `persistent_start`) added to `init`; `inputs` are where the initializer finds the op's inputs. */
HRESULT vkdml_program_add_family_init(struct vkdml_backend_device *device, struct vkdml_program *init,
        const struct vkdml_operator_view *op, DML_EXECUTION_FLAGS flags, const struct vkdml_tensor_location *inputs,
        uint32_t persistent_slot, uint64_t persistent_start, uint32_t temporary_slot);

/* Copies the program's label under the device's label mutex. */
void vkdml_program_get_label(struct vkdml_backend_device *device, const struct vkdml_program *program,
        char *label, size_t size);

/* The pipeline for `kernel` with these specialization constants, created on first use and shared
 * by every program of the device. */
HRESULT vkdml_pipeline_cache_get(struct vkdml_backend_device *device, enum vkdml_kernel_id kernel,
        const uint32_t *spec, uint32_t spec_count, VkPipeline *pipeline);
void vkdml_pipeline_cache_destroy(struct vkdml_backend_device *device);

#endif /* VKDML_DML_PRIVATE_BACKEND_H */
