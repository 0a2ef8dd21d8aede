/*
 * The graph compiler's intermediate form (docs/graph.md): values (blobs of bytes) and the nodes
 * that read and write them. graph.c builds it from a vkdml_graph_view, runs the optimisation
 * passes (graph_passes.c) on it, plans memory and barriers, and compiles every node through its
 * family into one program.
 */
#ifndef VKDML_GRAPH_PRIVATE_H
#define VKDML_GRAPH_PRIVATE_H

#include "dml_private_backend.h"
#include "vkdml.h"

#define GRAPH_NO_VALUE UINT32_MAX

enum graph_value_kind
{
    GRAPH_VALUE_INPUT,                  /* a graph input's binding (`binding`) */
    GRAPH_VALUE_OUTPUT,                 /* a graph output's binding */
    GRAPH_VALUE_TEMPORARY,              /* an intermediate, placed in the temporary resource */
    GRAPH_VALUE_PERSISTENT,             /* OWNED_BY_DML input, constant, or what the initializer computes */
    GRAPH_VALUE_INIT_TEMPORARY,         /* an intermediate of the initializer's nodes */
};

struct graph_value
{
    enum graph_value_kind kind;
    uint32_t binding;                   /* INPUT, OUTPUT: the graph input or output index */
    uint64_t size;                      /* bytes */
    const void *data;                   /* a constant's bytes (PERSISTENT; copied by the initializer) */
    bool owned;                         /* INPUT flagged OWNED_BY_DML: PERSISTENT, copied from `binding` */
    /* An alias lives inside another value (`alias_of`, at `alias_offset` bytes): IDENTITY without
     * arithmetic, a JOIN input written into its slice. GRAPH_NO_VALUE: none. */
    uint32_t alias_of;
    uint64_t alias_offset;
    /* Set by planning. */
    struct vkdml_tensor_location location;
    uint32_t first_use, last_use;       /* positions in execution order */
};

struct graph_node
{
    const struct vkdml_operator_view *op;
    const char *label;
    uint32_t *inputs;                   /* [op->input_count] values; GRAPH_NO_VALUE: absent */
    uint32_t *outputs;                  /* [op->output_count] */
    bool removed;                       /* merged into another node by a pass */
    bool at_init;                       /* runs once, in the initializer (folded constants) */
};

struct graph_ir
{
    struct vkdml_backend_device *device;
    const struct vkdml_graph_view *view;
    DML_EXECUTION_FLAGS flags;
    uint32_t passes;                    /* VKDML_GRAPH_PASS_* enabled */
    struct graph_value *values;
    uint32_t value_count, value_capacity;
    struct graph_node *nodes;
    uint32_t node_count, node_capacity;
    /* What passes allocate (fused descs, their tensors): freed with the program. */
    void **allocations;
    uint32_t allocation_count, allocation_capacity;
    struct vkdml_graph_report report;
};

/* Adds a value or node (fields zero, alias_of GRAPH_NO_VALUE); GRAPH_NO_VALUE when out of memory. */
uint32_t graph_add_value(struct graph_ir *ir, enum graph_value_kind kind, uint64_t size);
uint32_t graph_add_node(struct graph_ir *ir, const struct vkdml_operator_view *op, const char *label);
/* calloc'd memory that lives as long as the compiled graph; NULL when out of memory. */
void *graph_alloc(struct graph_ir *ir, size_t size);
/* The nodes reading `value` (not removed), counted, and the first one's index. */
uint32_t graph_value_readers(const struct graph_ir *ir, uint32_t value, uint32_t *first_reader);
/* The outputs of the initializer's nodes (at_init) that no executed node reads go to the
 * initializer's temporary resource: they need no room in the persistent one. */
void graph_keep_init_only_values_temporary(struct graph_ir *ir);
/* The node (not removed) writing `value`, and which of its outputs (may be NULL); GRAPH_NO_VALUE: none. */
uint32_t graph_value_producer(const struct graph_ir *ir, uint32_t value, uint32_t *output);
/* The value that `value` is an alias inside (itself when none), through aliases of aliases, and
 * `value`'s byte offset there (may be NULL). */
uint32_t graph_value_root(const struct graph_ir *ir, uint32_t value, uint64_t *offset);

/* The optimisation passes (docs/graph.md, "Passes"), run by graph_run_passes() (graph_passes.c) in
 * this order, each when its VKDML_GRAPH_PASS_* bit is set; one file each (graph_pass_<name>.c). */
HRESULT graph_run_passes(struct graph_ir *ir);
HRESULT graph_pass_constants(struct graph_ir *ir);
HRESULT graph_pass_batchnorm(struct graph_ir *ir);
HRESULT graph_pass_activation(struct graph_ir *ir);
HRESULT graph_pass_alias(struct graph_ir *ir);
HRESULT graph_pass_join(struct graph_ir *ir);
HRESULT graph_pass_elementwise(struct graph_ir *ir);

#endif /* VKDML_GRAPH_PRIVATE_H */
