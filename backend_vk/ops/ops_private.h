/*
 * What an operator family (backend_vk/ops/<family>.c) implements and may call: validation of its
 * operator-specific rules, and compilation into dispatches of its kernels. The table in
 * op_table.c maps every DML_OPERATOR_TYPE to a family entry; an empty slot is not implemented.
 *
 * Kernels take their tensors through the descriptor table (vkdml_backend.h has the slot layout):
 * push constant bytes [0, 8) hold the table's device address, set at record time; the family's own
 * constants follow (at most VKDML_MAX_OP_PUSH bytes). What changes a kernel's code is a
 * specialization constant (DML shapes are fixed at compile time); element-wise shapes are pushed on
 * CPU devices (docs/kernels.md, "Specialization vs push constants").
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

/* ---- Debug knobs (toolkit.c; README "Environment"): the kernel choice, forced or tuned ---- */

enum vkdml_gemm_kernel_knob
{
    VKDML_GEMM_KERNEL_AUTO,
    VKDML_GEMM_KERNEL_GENERAL,
    VKDML_GEMM_KERNEL_TILED,
    VKDML_GEMM_KERNEL_COOPMAT,
    VKDML_GEMM_KERNEL_GEMV,
    VKDML_GEMM_KERNEL_COUNT,
};

enum vkdml_conv_kernel_knob
{
    VKDML_CONV_KERNEL_AUTO,
    VKDML_CONV_KERNEL_GEMM_1X1,
    VKDML_CONV_KERNEL_DIRECT,
    VKDML_CONV_KERNEL_IMPLICIT_GEMM,
    VKDML_CONV_KERNEL_COOPMAT,
    VKDML_CONV_KERNEL_TILED,
    VKDML_CONV_KERNEL_COOPMAT_NHWC,
    VKDML_CONV_KERNEL_COUNT,
};

/* Where element-wise shapes go (docs/kernels.md, "Specialization vs push constants"). */
enum vkdml_shapes_knob
{
    VKDML_SHAPES_AUTO,                  /* pushed on CPU devices, specialized on GPUs */
    VKDML_SHAPES_PUSH,
    VKDML_SHAPES_SPECIALIZE,
    VKDML_SHAPES_COUNT,
};

/* The values VKDML_GEMM_KERNEL, VKDML_CONV_KERNEL and VKDML_ELEMENTWISE_SHAPES take, by enum
 * value ("auto" first). */
extern const char *const vkdml_gemm_kernel_names[VKDML_GEMM_KERNEL_COUNT];
extern const char *const vkdml_conv_kernel_names[VKDML_CONV_KERNEL_COUNT];
extern const char *const vkdml_shapes_names[VKDML_SHAPES_COUNT];

/* A tiling knob: comma-separated numbers whose meaning the family gives (0: its default). */
struct vkdml_tuning_knob
{
    char text[64];                      /* the value as set, for messages */
    uint32_t values[8];
    uint32_t count;                     /* 0: unset, or unreadable (warned) */
};

/* VKDML_GEMM_KERNEL, VKDML_GEMM_TUNE, VKDML_CONV_KERNEL, VKDML_CONV_TUNE,
 * VKDML_ELEMENTWISE_SHAPES and VKDML_SOFTMAX_TUNE, read once when a
 * backend device is created (a value that does not parse: one warning then, and the default);
 * setting them later changes nothing for that device. Whether a tiling suits an operator is the
 * family's check, at compilation. (VKDML_COOPMAT picks the Vulkan extension, so device.c reads it
 * when it creates the Vulkan device.) */
struct vkdml_knobs
{
    enum vkdml_gemm_kernel_knob gemm_kernel;
    enum vkdml_conv_kernel_knob conv_kernel;
    enum vkdml_shapes_knob elementwise_shapes;
    struct vkdml_tuning_knob gemm_tune, conv_tune, softmax_tune;
    uint32_t graph_passes;              /* VKDML_GRAPH_OPT: VKDML_GRAPH_PASS_* bits (docs/graph.md) */
};

/* The graph compiler's optimisations, each off through VKDML_GRAPH_OPT (docs/graph.md). */
enum vkdml_graph_pass
{
    VKDML_GRAPH_PASS_ACTIVATION = 0x1,
    VKDML_GRAPH_PASS_ELEMENTWISE = 0x2,
    VKDML_GRAPH_PASS_BATCHNORM = 0x4,
    VKDML_GRAPH_PASS_CONSTANTS = 0x8,
    VKDML_GRAPH_PASS_ALIAS = 0x10,
    VKDML_GRAPH_PASS_JOIN = 0x20,
    VKDML_GRAPH_PASS_MEMORY = 0x40,
    VKDML_GRAPH_PASS_BARRIERS = 0x80,
    VKDML_GRAPH_PASS_ALL = 0xff,
};

/* VKDML_GRAPH_OPT's pass names, bit i for entry i. */
#define VKDML_GRAPH_PASS_COUNT 8
extern const char *const vkdml_graph_pass_names[VKDML_GRAPH_PASS_COUNT];

void vkdml_knobs_read(struct vkdml_knobs *knobs);

struct vkdml_compile
{
    struct vkdml_backend_device *device;
    const struct vkdml_vk_device *vk;
    const struct vkdml_operator_view *op;
    DML_EXECUTION_FLAGS flags;
    const struct vkdml_knobs *knobs;                /* the device's */
    const struct vkdml_tensor_location *inputs;     /* [op->input_count] */
    const struct vkdml_tensor_location *outputs;    /* [op->output_count] */
    uint32_t temporary_slot;
    uint32_t persistent_slot;
    uint64_t persistent_size;           /* the persistent resource so far (vkdml_compile_reserve_persistent) */
    uint64_t temporary_size;            /* what the dispatches use so far: a family (or a service it calls)
                                         * places its data after it, 256-byte aligned, and grows it */
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

/* Reserves `size` bytes of the operator's persistent resource (after its OWNED_BY_DML inputs,
 * 256-byte aligned) for data that the family's `initialize` hook writes, and returns where. The
 * hook, run when an initializer is compiled, makes the same reservations in the same order and
 * gets the same offsets (in the initializer's slot of the persistent resource). */
struct vkdml_tensor_location vkdml_compile_reserve_persistent(struct vkdml_compile *compile, uint64_t size);

/* Logs "CreateOperator(NAME): <message>" (ERR, or FIXME for E_NOTIMPL) and returns hr. */
HRESULT vkdml_op_error(const struct vkdml_operator_view *op, HRESULT hr, const char *fmt, ...) VKDML_PRINTF(3, 4);

struct vkdml_op_entry
{
    HRESULT (*validate)(struct vkdml_backend_device *device, const struct vkdml_operator_view *op);
    HRESULT (*compile)(struct vkdml_compile *compile);
    /* The data types the family implements where the schema records none (DirectML's page lists
     * none); else 0: the family implements every type the schema allows. For the support matrix. */
    uint32_t data_types;
    /* Optional: for an operator whose compile() reserved persistent space, adds the initializer's
     * dispatches that write it once (transformed weights; README "DirectML in vkdml: decisions").
     * `compile` then describes the initializer: op and flags are the operator's, inputs[i] the
     * initializer's binding of input i (bound only when OWNED_BY_DML), persistent_slot the
     * operator's persistent resource, temporary_slot the initializer's temporary resource; it has
     * no outputs (they point at the temporary slot). Dispatches run after the OWNED_BY_DML copies
     * only with barrier_before. */
    HRESULT (*initialize)(struct vkdml_compile *compile);
};

/* FOLD and UNFOLD's data types (fold.comp). */
#define VKDML_FOLD_DATA_TYPES (VKDML_DATA_TYPE_BIT(FLOAT32) | VKDML_DATA_TYPE_BIT(FLOAT16) \
        | VKDML_DATA_TYPE_BIT(INT32) | VKDML_DATA_TYPE_BIT(UINT32))

/* ---- Backend-internal operators: types beyond DirectML's range, which only the graph compiler
 * builds (docs/graph.md); CreateOperator and the support matrix never see them ---- */

/* Element-wise nodes of a graph in one dispatch (docs/graph.md, "elementwise"): each step is a
 * node's operator that vkdml_elementwise_chain_accepts(), its operands chain inputs
 * (VKDML_CHAIN_INPUT: the view's inputs, at most VKDML_CHAIN_MAX_INPUTS) or earlier steps'
 * results (VKDML_CHAIN_RESULT); the view's output is the last step's. Every tensor of every step
 * has the Sizes and data type of that output, and each result a later step reads is packed. */
#define VKDML_OPERATOR_ELEMENT_WISE_CHAIN ((DML_OPERATOR_TYPE)VKDML_OPERATOR_TYPE_COUNT)
#define VKDML_CHAIN_MAX_STEPS 8
#define VKDML_CHAIN_MAX_INPUTS 3
#define VKDML_CHAIN_INPUT(i) (i)
#define VKDML_CHAIN_RESULT(k) (VKDML_CHAIN_MAX_INPUTS + (k))

struct vkdml_elementwise_chain_step
{
    const struct vkdml_operator_view *op;
    uint32_t operands[2];               /* input 0 and (binary operators) input 1 */
};

struct vkdml_elementwise_chain_desc
{
    uint32_t step_count;
    struct vkdml_elementwise_chain_step steps[VKDML_CHAIN_MAX_STEPS];
};

/* Whether a (validated) operator can be a chain's step: an element-wise operator (no predicate,
 * CAST or IF; POW and activations on floats only) over tensors of one data type the chain kernel
 * holds (FLOAT32, FLOAT16, integers of 32 bits or less). */
bool vkdml_elementwise_chain_accepts(const struct vkdml_operator_view *op);
HRESULT vkdml_elementwise_chain_compile(struct vkdml_compile *compile);

#define VKDML_OP_TABLE_SIZE (VKDML_OPERATOR_TYPE_COUNT + 1)

/* Indexed by DML_OPERATOR_TYPE, then the backend-internal types. */
extern const struct vkdml_op_entry vkdml_op_table[VKDML_OP_TABLE_SIZE];

/* Each family's entries, defined in its file and listed in op_table.c. */
#define VKDML_OP_FAMILY(name) \
    HRESULT vkdml_##name##_validate(struct vkdml_backend_device *device, const struct vkdml_operator_view *op); \
    HRESULT vkdml_##name##_compile(struct vkdml_compile *compile);

VKDML_OP_FAMILY(elementwise)
VKDML_OP_FAMILY(gemm)
VKDML_OP_FAMILY(conv)
VKDML_OP_FAMILY(fold)
VKDML_OP_FAMILY(cumulative)
VKDML_OP_FAMILY(topk)
VKDML_OP_FAMILY(softmax)
VKDML_OP_FAMILY(reduce)
VKDML_OP_FAMILY(generator)
VKDML_OP_FAMILY(gather)
VKDML_OP_FAMILY(scatter)
VKDML_OP_FAMILY(nonzero)
VKDML_OP_FAMILY(random)
VKDML_OP_FAMILY(reverse)
VKDML_OP_FAMILY(value_scale)
VKDML_OP_FAMILY(movement)
VKDML_OP_FAMILY(roi)
VKDML_OP_FAMILY(mvn)
VKDML_OP_FAMILY(resample)
VKDML_OP_FAMILY(pooling)
VKDML_OP_FAMILY(normalization)
VKDML_OP_FAMILY(unpooling)

HRESULT vkdml_conv_initialize(struct vkdml_compile *compile);

/* ---- The ops toolkit (toolkit.c): helpers every family uses the same way ---- */

/* Spreads `count` workgroups over x, then y and z, as maxComputeWorkGroupCount allows, with rows
 * as even as possible; the kernels linearize the group id and skip the few surplus groups of the
 * rounding. E_NOTIMPL (logged) beyond the device's counts. */
HRESULT vkdml_spread_groups(const struct vkdml_compile *compile, uint64_t count, uint32_t groups[3]);
/* A tensor location as the kernels' three specialization constants: slot, offset low, high. */
void vkdml_set_location(uint32_t spec[3], const struct vkdml_tensor_location *location);
/* The element stride of dimension `dim`; packed (row-major) when the desc has no Strides. */
uint32_t vkdml_tensor_stride(const DML_BUFFER_TENSOR_DESC *tensor, uint32_t dim);
/* Whether element i (row-major logical index) is at element offset i: no Strides, or row-major
 * ones (size-1 dimensions' strides aside). */
bool vkdml_tensor_is_packed(const DML_BUFFER_TENSOR_DESC *tensor);
/* The element offset of a tensor's last element: sum of (size - 1) * stride. */
uint64_t vkdml_tensor_last_element(const DML_BUFFER_TENSOR_DESC *tensor);
/* The kernels index elements with 32-bit signed SPIR-V access chains: E_NOTIMPL (logged, naming
 * the tensor `name`) when the tensor spans more than 2^31 elements. */
HRESULT vkdml_check_index_range(const struct vkdml_operator_view *op, const DML_BUFFER_TENSOR_DESC *tensor,
        const char *name);
/* The bits of a float, for a specialization constant the kernel reads with uintBitsToFloat. */
uint32_t vkdml_float_bits(float value);
/* Bytes per element (vkdml_data_type_bits / 8; 0 for sub-byte and unknown types). */
unsigned int vkdml_element_size(DML_TENSOR_DATA_TYPE type);
/* FLOAT16 arithmetic: DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION is a permission, not a
 * request, taken only where the device has fp16 math. */
bool vkdml_half_compute(const struct vkdml_compile *compile);

/* What loading and storing `type` needs (VKDML_KERNEL_FEATURE_*: kernels_glsl/include/tensor_io.glsl);
 * FLOAT64 needs FLOAT64 arithmetic with `double_arithmetic`, else INT64 (moved as bits). */
uint32_t vkdml_type_kernel_features(DML_TENSOR_DATA_TYPE type, bool double_arithmetic);
/* What moving elements of `type` as bits needs: 8- or 16-bit storage for narrow types; 32- and
 * 64-bit elements move as 32-bit words (64-bit ones as uvec2), which needs nothing. */
uint32_t vkdml_move_kernel_features(DML_TENSOR_DATA_TYPE type);
bool vkdml_caps_have_kernel_features(const struct vkdml_vk_caps *caps, uint32_t features);
/* The registry's variant of `family` (and `group`, unless NULL) with the fewest features that
 * holds `features` and runs on the device (kernels_glsl/meson.build declares variants); false
 * when none does. */
bool vkdml_find_kernel_variant(const struct vkdml_vk_caps *caps, const char *family, const char *group,
        uint32_t features, enum vkdml_kernel_id *kernel);

/* Positions of a sliding window along a dimension of `size` (FOLD, UNFOLD, the pooling family):
 * (size + start + end - (dilation * (window - 1) + 1)) / stride + 1, or 0 when the dilated window
 * does not fit the padded size. Window, dilation and stride are at least 1. */
uint64_t vkdml_window_positions(uint64_t size, uint32_t start_padding, uint32_t end_padding, uint32_t window,
        uint32_t dilation, uint32_t stride);

/* E_NOTIMPL (logged) unless the device has the subgroup operations of reduce_common.glsl
 * (caps->subgroup_reductions), which the reduction families' kernels use. */
HRESULT vkdml_check_subgroup_reductions(struct vkdml_backend_device *device, const struct vkdml_operator_view *op);

/* ---- Reduction axes (REDUCE, ARGMIN/ARGMAX, the softmax family, TOP_K, cumulative ops) ---- */

#define VKDML_MAX_RANK 8
/* The tensors a layout describes at most (input, outputs; MVN's scale and bias). */
#define VKDML_AXES_LAYOUT_TENSORS 4

uint64_t vkdml_tensor_element_count(const DML_BUFFER_TENSOR_DESC *tensor);
/* Axes (named `name` in messages, ending in "Axes": "Axes", "FusedActivation.Axes") in [0, rank),
 * at least one and none repeated: E_INVALIDARG with one log line otherwise; `mask` gets bit i for
 * axis i. */
HRESULT vkdml_validate_axes(const struct vkdml_operator_view *op, uint32_t rank, const UINT *axes, uint32_t count,
        const char *name, uint32_t *mask);
/* An Axis field below `tensor`'s (named `name`) DimensionCount: E_INVALIDARG with one log line otherwise. */
HRESULT vkdml_validate_axis(const struct vkdml_operator_view *op, uint32_t axis, const DML_BUFFER_TENSOR_DESC *tensor,
        const char *name);
/* A tensor's real rank `real_rank` (named `field`: GATHER_ND's and SCATTER_ND's InputDimensionCount,
 * IndicesDimensionCount) is 1 to its DimensionCount, and the dimensions before those are 1 (DirectML's
 * "irrelevant leading ones"): E_INVALIDARG with one log line otherwise. */
HRESULT vkdml_validate_real_rank(const struct vkdml_operator_view *op, const DML_BUFFER_TENSOR_DESC *tensor,
        const char *name, uint32_t real_rank, const char *field);
/* `tensor` has the sizes of `reference` (their ranks are equal: the schema's same_rank). */
HRESULT vkdml_validate_same_sizes(const struct vkdml_operator_view *op, const DML_BUFFER_TENSOR_DESC *tensor,
        const char *name, const DML_BUFFER_TENSOR_DESC *reference, const char *reference_name);
/* The output of a reduction over the axes in `mask`: size 1 on them, the input's size elsewhere. */
HRESULT vkdml_validate_reduced_sizes(const struct vkdml_operator_view *op, const DML_BUFFER_TENSOR_DESC *input,
        const DML_BUFFER_TENSOR_DESC *output, const char *output_name, uint32_t mask);

/* The dimensions of tensors[0] split into the reduced ones (bits of `mask`) and the kept ones,
 * each side in the tensors' order, size-1 dimensions dropped and neighbours on one side merged
 * where every tensor's strides allow (the flattened index of a side is unchanged). Sizes are
 * tensors[0]'s; the other tensors have its sizes on kept dimensions and either them or 1 (stride
 * 0 here: a reduction's output) on reduced ones. Element (kept k, reduced r) of tensor t is at
 * sum kept_strides[t][i] * k_i + sum reduced_strides[t][i] * r_i, index 0 outermost; a side
 * with count 0 has one element. */
struct vkdml_axes_layout
{
    uint32_t kept_count, reduced_count;
    uint32_t kept_sizes[VKDML_MAX_RANK], reduced_sizes[VKDML_MAX_RANK];
    uint32_t kept_strides[VKDML_AXES_LAYOUT_TENSORS][VKDML_MAX_RANK];
    uint32_t reduced_strides[VKDML_AXES_LAYOUT_TENSORS][VKDML_MAX_RANK];
    uint64_t kept_elements, reduced_elements;
};

void vkdml_axes_layout_init(struct vkdml_axes_layout *layout, const DML_BUFFER_TENSOR_DESC *const *tensors,
        uint32_t tensor_count, uint32_t mask);

/* ---- GEMM as a service (gemm.c) ---- */

/* An operand: where it lives and its element strides {batch0, batch1, rows, columns}, a transpose
 * already folded in (exchange the last two); 0-strides broadcast. */
struct vkdml_gemm_operand
{
    struct vkdml_tensor_location location;
    uint32_t strides[4];
};

/* Output = activation(alpha * A x B + beta * C) over batches[0] x batches[1] matrices: A is
 * M x K, B K x N, C (optional) and Output M x N, all of `data_type` (FLOAT32 or FLOAT16). */
struct vkdml_gemm_problem
{
    DML_TENSOR_DATA_TYPE data_type;
    uint32_t m, n, k;
    uint32_t batches[2];
    struct vkdml_gemm_operand a, b, c, output;
    bool has_c;
    float alpha, beta;
    const DML_OPERATOR_DESC *activation;            /* fused (validated by the caller), or NULL */
};

/* Adds the dispatches of the problem's kernel, chosen as for DML_OPERATOR_GEMM (gemm.c: GEMV,
 * cooperative matrix, tiled or general; split-K and its reduction; VKDML_GEMM_KERNEL and
 * VKDML_GEMM_TUNE apply). Split-K's partial sums go into the temporary resource after
 * compile->temporary_size, which grows by them; the first dispatch does not wait for earlier
 * ones. The caller checks the index range of its tensors (vkdml_check_index_range). */
HRESULT vkdml_gemm_add_dispatches(struct vkdml_compile *compile, const struct vkdml_gemm_problem *problem);

/* ---- Softmax as a service (softmax.c): GEMM's fused SOFTMAX and SOFTMAX1 (FL 6_1) ---- */

/* Checks `activation`'s Axes (SOFTMAX1) against `output` and that the device runs the kernel. */
HRESULT vkdml_softmax_validate_fused(struct vkdml_backend_device *device, const struct vkdml_operator_view *op,
        const DML_OPERATOR_DESC *activation, const DML_BUFFER_TENSOR_DESC *output);
/* Adds a softmax over `output` in place (SOFTMAX: its last dimension; SOFTMAX1: its Axes), after
 * the dispatches that wrote it. */
HRESULT vkdml_softmax_add_fused(struct vkdml_compile *compile, const DML_OPERATOR_DESC *activation,
        const DML_BUFFER_TENSOR_DESC *output, const struct vkdml_tensor_location *location);

/* ---- Strided copies as a service (movement.c, transpose.c): the data-movement operators ---- */

/* What a bounded dimension of a strided copy does outside its source range (PADDING's modes;
 * WRAP is TILE's too). Values as MOVEMENT_MODE_* (movement_interface.h). */
enum vkdml_copy_bounds
{
    VKDML_COPY_BOUNDS_NONE,             /* a plain copy */
    VKDML_COPY_BOUNDS_CONSTANT,         /* constant_bits */
    VKDML_COPY_BOUNDS_EDGE,
    VKDML_COPY_BOUNDS_REFLECTION,
    VKDML_COPY_BOUNDS_SYMMETRIC,
    VKDML_COPY_BOUNDS_WRAP,
};

/* A box of `sizes` elements of one type copied between two strided views: element c (c_i <
 * sizes[i], index 0 outermost) goes from source element source_first + sum c_i * source_strides[i]
 * to destination element destination_first + sum c_i * destination_strides[i]. Offsets count
 * elements from the tensor locations; the caller has checked that every address stays inside
 * its binding. With bounds_mode, a dimension with source_bounds[i] > 0 reads source coordinate
 * c_i - bound_starts[i] instead of c_i, folded into [0, source_bounds[i]) by the mode (CONSTANT:
 * the element gets constant_bits); zero fields are a plain copy. */
struct vkdml_strided_copy
{
    DML_TENSOR_DATA_TYPE type;
    uint32_t rank;                                  /* 1 to VKDML_MAX_RANK */
    uint32_t sizes[VKDML_MAX_RANK];
    struct vkdml_tensor_location source, destination;
    uint64_t source_first, destination_first;
    int32_t source_strides[VKDML_MAX_RANK];         /* negative: reversed (SLICE1) */
    int32_t destination_strides[VKDML_MAX_RANK];
    enum vkdml_copy_bounds bounds_mode;
    uint32_t source_bounds[VKDML_MAX_RANK];         /* 0: unbounded */
    uint32_t bound_starts[VKDML_MAX_RANK];
    uint64_t constant_bits;                         /* the element's bits (CONSTANT) */
};

/* A plain copy of `sizes`'s sizes from `source` to `destination`, each through its own strides
 * (below 2^31: vkdml_check_index_range), of the destination's type. */
void vkdml_strided_copy_init(struct vkdml_strided_copy *copy, const DML_BUFFER_TENSOR_DESC *sizes,
        const DML_BUFFER_TENSOR_DESC *source, const struct vkdml_tensor_location *source_location,
        const DML_BUFFER_TENSOR_DESC *destination, const struct vkdml_tensor_location *destination_location);
/* Adds the dispatch(es) of one strided copy, the kernel chosen by its shape (movement.c): packed
 * runs as vectors, a transposed pair of dimensions through shared memory (transpose.c), the rest
 * element by element. Does not wait for earlier dispatches. */
HRESULT vkdml_copy_add_dispatches(struct vkdml_compile *compile, const struct vkdml_strided_copy *copy);
/* The tiled path: S_FALSE (nothing added) when the copy is not a transpose it handles. */
HRESULT vkdml_transpose_add_dispatch(struct vkdml_compile *compile, const struct vkdml_strided_copy *copy);

/* ---- Helpers shared by families ---- */

/* Whether kernels can read and write tensors of `data_type` on a device with `caps`
 * (vkdml_backend_data_type_supported() for a device's own caps). */
bool vkdml_caps_data_type_supported(const struct vkdml_vk_caps *caps, DML_TENSOR_DATA_TYPE data_type);

/* The subgroup size the cooperative-matrix kernels are written for (gemm_coopmat.comp,
 * conv_coopmat.comp). */
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
/* Whether `host` takes an `activation` of this type as its FusedActivation without conditions on
 * the activation's own fields (DirectML's list; CLIP in CONVOLUTION and GEMM; not GEMM's SOFTMAX,
 * which depends on its Axes). */
bool vkdml_activation_fusible_into(DML_OPERATOR_TYPE host, DML_OPERATOR_TYPE activation);

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
