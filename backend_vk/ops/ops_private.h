/*
 * What an operator family (backend_vk/ops/<family>.c) implements and may call: validation of its
 * operator-specific rules, and compilation into dispatches of its kernels. The table in
 * op_table.c maps every DML_OPERATOR_TYPE to a family entry; an empty slot is not implemented.
 *
 * Kernels take their tensors through the descriptor table (vkdml_backend.h has the slot layout):
 * push constant bytes [0, 8) hold the table's device address, set at record time; the family's own
 * constants follow (at most VKDML_MAX_OP_PUSH bytes). Shapes, strides, types and attributes are
 * specialization constants (DML shapes are fixed at compile time).
 */
#ifndef VKDML_OPS_PRIVATE_H
#define VKDML_OPS_PRIVATE_H

#include "vk_private.h"
#include "vkdml_backend.h"
#include "dml_op_schema.h"
#include "dml_interface.h"

/* Where a kernel finds a tensor: a descriptor slot and a byte offset into that binding. Inputs
 * flagged OWNED_BY_DML live in the persistent resource (copied there by the initializer). */
struct vkdml_tensor_location
{
    uint32_t slot;
    uint64_t offset;
};

struct vkdml_compile
{
    struct vkdml_backend_device *device;
    const struct vkdml_vk_device *vk;
    const struct vkdml_operator_view *op;
    DML_EXECUTION_FLAGS flags;
    const struct vkdml_tensor_location *inputs;     /* [op->input_count] */
    const struct vkdml_tensor_location *outputs;    /* [op->output_count] */
    uint32_t temporary_slot;
    uint32_t persistent_slot;
    uint64_t temporary_size;            /* a family sets what its dispatches need (256-byte aligned use) */
    struct vkdml_program *program;
};

/* Appends one dispatch: `kernel` specialized with `spec` (constant_id i = spec[i]), the family's
 * push constants (copied; at most VKDML_MAX_OP_PUSH bytes), `groups` workgroups. With
 * `barrier_before`, the dispatch waits for the program's earlier dispatches (data in the
 * temporary resource); dispatches are otherwise independent. Pipelines come from the device's
 * cache, so identical compiled operators share them. */
HRESULT vkdml_compile_add_dispatch(struct vkdml_compile *compile, enum vkdml_kernel_id kernel,
        const uint32_t *spec, uint32_t spec_count, const void *push, uint32_t push_size,
        const uint32_t groups[3], bool barrier_before);

/* Logs "CreateOperator(NAME): <message>" (ERR, or FIXME for E_NOTIMPL) and returns hr. */
HRESULT vkdml_op_error(const struct vkdml_operator_view *op, HRESULT hr, const char *fmt, ...) VKDML_PRINTF(3, 4);

struct vkdml_op_entry
{
    HRESULT (*validate)(struct vkdml_backend_device *device, const struct vkdml_operator_view *op);
    HRESULT (*compile)(struct vkdml_compile *compile);
    /* The data types the family implements where the schema records none (DirectML's page lists
     * none); else 0: the family implements every type the schema allows. For the support matrix. */
    uint32_t data_types;
};

/* FOLD and UNFOLD's data types (fold.comp). */
#define VKDML_FOLD_DATA_TYPES (VKDML_DATA_TYPE_BIT(FLOAT32) | VKDML_DATA_TYPE_BIT(FLOAT16) \
        | VKDML_DATA_TYPE_BIT(INT32) | VKDML_DATA_TYPE_BIT(UINT32))

/* Indexed by DML_OPERATOR_TYPE. */
extern const struct vkdml_op_entry vkdml_op_table[VKDML_OPERATOR_TYPE_COUNT];

/* Each family's entries, defined in its file and listed in op_table.c. */
#define VKDML_OP_FAMILY(name) \
    HRESULT vkdml_##name##_validate(struct vkdml_backend_device *device, const struct vkdml_operator_view *op); \
    HRESULT vkdml_##name##_compile(struct vkdml_compile *compile);

VKDML_OP_FAMILY(elementwise)
VKDML_OP_FAMILY(gemm)
VKDML_OP_FAMILY(conv)
VKDML_OP_FAMILY(fold)

/* ---- Helpers shared by families ---- */

/* Whether kernels can read and write tensors of `data_type` on a device with `caps`
 * (vkdml_backend_data_type_supported() for a device's own caps). */
bool vkdml_caps_data_type_supported(const struct vkdml_vk_caps *caps, DML_TENSOR_DATA_TYPE data_type);

/* The subgroup size the cooperative-matrix kernels are written for (gemm_coopmat.comp, conv.comp's
 * CONV_COOPMAT). */
#define VKDML_COOPMAT_SUBGROUP_SIZE 32

/* NULL when the device runs the 16x8x16 fp16 cooperative-matrix kernels, else why not. */
const char *vkdml_caps_coopmat_f16_missing(const struct vkdml_vk_caps *caps);

/* The device can run kernels on this tensor data type. */
bool vkdml_backend_data_type_supported(struct vkdml_backend_device *device, DML_TENSOR_DATA_TYPE data_type);
/* Specialization constants for a fused activation (kernels_glsl/include/activation.glsl):
 * VKDML_ACTIVATION_SPEC_COUNT values; `activation` may be NULL (none). Validation happens in
 * vkdml_validate_fused_activation(). */
void vkdml_fused_activation_spec(const DML_OPERATOR_DESC *activation, uint32_t spec[VKDML_ACTIVATION_SPEC_COUNT]);
/* Checks a FusedActivation field of a host operator (DirectML's list of fusible activations;
 * CLIP only for CONVOLUTION and GEMM; NULL tensors). */
HRESULT vkdml_validate_fused_activation(const struct vkdml_operator_view *op, const DML_OPERATOR_DESC *activation);

/* Split-K (split_k.c; conv.c's tiled and cooperative-matrix kernels, gemm.c's fast kernels):
 * when a GEMM-like kernel has too few output tiles to fill a large GPU, several workgroups per
 * tile each sum a part of K into fp32 partial sums in the temporary resource, and a second
 * dispatch adds them up. `outputs` counts the operator's outputs; parts of 1 to
 * VKDML_MAX_SPLIT_K, their sums at most 1 GiB (the kernels' 32-bit indices). */
#define VKDML_MAX_SPLIT_K 16
/* The partial sums' bytes in the temporary resource (0 without split-K). */
uint64_t vkdml_split_k_partial_size(uint64_t outputs, uint32_t split_k);
bool vkdml_split_k_valid(uint64_t outputs, uint32_t split_k);
/* The default number of parts for `tiles` workgroup tiles over `slabs` slabs of K. */
uint32_t vkdml_split_k_choose(uint64_t tiles, uint64_t slabs, uint64_t outputs);

#endif /* VKDML_OPS_PRIVATE_H */
