/*
 * The GEMM family (DML_OPERATOR_GEMM): DirectML's shape and type rules, and one dispatch of
 * kernels_glsl/gemm.comp over every output tile of every batch.
 *
 * DirectML's rules (DML_GEMM_OPERATOR_DESC, FL 4_0 tensor support): A {[B0], [B1], M, K} (K, M
 * with TransA), B {[B0], [B1], K, N} (N, K with TransB), optional C and Output {[B0], [B1], M, N};
 * all four have the same DataType (FLOAT32 or FLOAT16) and DimensionCount (2 to 4); C and Output
 * have the same Sizes. Batch sizes are shared by all tensors: an input broadcasts over batches,
 * and C over rows or columns, through 0-strides, never through size-1 dimensions.
 */

#include <inttypes.h>
#include <string.h>

#include "ops_private.h"
#include "gemm_interface.h"

_Static_assert(GEMM_SPEC_ACTIVATION + VKDML_ACTIVATION_SPEC_COUNT == GEMM_SPEC_COUNT,
        "the fused activation's constants end gemm.comp's list");

enum gemm_tensor
{
    GEMM_A,
    GEMM_B,
    GEMM_C,
    GEMM_OUTPUT,
    GEMM_TENSOR_COUNT,
};

static const char *const tensor_names[GEMM_TENSOR_COUNT] = {"ATensor", "BTensor", "CTensor", "OutputTensor"};

/* A tensor as the kernel sees it: 4-D {batch0, batch1, rows, columns}, transposes applied. */
struct gemm_matrix
{
    uint32_t sizes[4];
    uint32_t strides[4];
};

static const DML_BUFFER_TENSOR_DESC *gemm_tensor(const struct vkdml_operator_view *op, enum gemm_tensor which)
{
    return which == GEMM_OUTPUT ? op->outputs[0] : op->inputs[which];
}

static const char *data_type_name(DML_TENSOR_DATA_TYPE type)
{
    const char *name = vkdml_data_type_name(type);

    return name ? name : vkdml_debug_sprintf("%d", (int)type);
}

/* Leading dimensions DirectML leaves out (rank 2 or 3) are batches of 1; NULL strides are packed. */
static void gemm_matrix_init(struct gemm_matrix *matrix, const DML_BUFFER_TENSOR_DESC *tensor, bool transpose)
{
    uint32_t pad = 4 - tensor->DimensionCount, stride = 1, i, swap;

    for (i = 0; i < pad; ++i)
    {
        matrix->sizes[i] = 1;
        matrix->strides[i] = 0;
    }
    for (i = 4; i-- > pad;)
    {
        matrix->sizes[i] = tensor->Sizes[i - pad];
        matrix->strides[i] = tensor->Strides ? tensor->Strides[i - pad] : stride;
        stride *= matrix->sizes[i];
    }
    if (transpose)
    {
        swap = matrix->sizes[2], matrix->sizes[2] = matrix->sizes[3], matrix->sizes[3] = swap;
        swap = matrix->strides[2], matrix->strides[2] = matrix->strides[3], matrix->strides[3] = swap;
    }
}

/* ---- Validation ---- */

static HRESULT validate_types(struct vkdml_backend_device *device, const struct vkdml_operator_view *op)
{
    const DML_BUFFER_TENSOR_DESC *a = gemm_tensor(op, GEMM_A), *t;
    unsigned int i;

    if (a->DataType != DML_TENSOR_DATA_TYPE_FLOAT32 && a->DataType != DML_TENSOR_DATA_TYPE_FLOAT16)
        return vkdml_op_error(op, E_INVALIDARG, "ATensor.DataType=%s must be FLOAT32 or FLOAT16.",
                data_type_name(a->DataType));
    for (i = GEMM_B; i < GEMM_TENSOR_COUNT; ++i)
    {
        if ((t = gemm_tensor(op, i)) && t->DataType != a->DataType)
            return vkdml_op_error(op, E_INVALIDARG, "%s.DataType=%s must equal ATensor.DataType=%s.",
                    tensor_names[i], data_type_name(t->DataType), data_type_name(a->DataType));
    }
    if (!vkdml_backend_data_type_supported(device, a->DataType))
        return vkdml_op_error(op, E_NOTIMPL, "ATensor.DataType=%s is not supported by this device.",
                data_type_name(a->DataType));
    return S_OK;
}

static HRESULT validate_ranks(const struct vkdml_operator_view *op)
{
    const DML_BUFFER_TENSOR_DESC *a = gemm_tensor(op, GEMM_A), *t;
    unsigned int i;

    if (a->DimensionCount < 2 || a->DimensionCount > 4)
        return vkdml_op_error(op, E_INVALIDARG, "ATensor.DimensionCount=%u must be 2 to 4.", a->DimensionCount);
    for (i = GEMM_B; i < GEMM_TENSOR_COUNT; ++i)
    {
        if ((t = gemm_tensor(op, i)) && t->DimensionCount != a->DimensionCount)
            return vkdml_op_error(op, E_INVALIDARG, "%s.DimensionCount=%u must equal ATensor.DimensionCount=%u.",
                    tensor_names[i], t->DimensionCount, a->DimensionCount);
    }
    return S_OK;
}

static HRESULT validate_transform(const struct vkdml_operator_view *op, const char *name,
        DML_MATRIX_TRANSFORM transform)
{
    if (transform != DML_MATRIX_TRANSFORM_NONE && transform != DML_MATRIX_TRANSFORM_TRANSPOSE)
        return vkdml_op_error(op, E_INVALIDARG,
                "%s=%d must be DML_MATRIX_TRANSFORM_NONE or DML_MATRIX_TRANSFORM_TRANSPOSE.", name, (int)transform);
    return S_OK;
}

/* "ATensor.Sizes[3]=5 must equal BTensor.Sizes[2]=6 (K)." */
static HRESULT check_size(const struct vkdml_operator_view *op, enum gemm_tensor x, uint32_t x_dim,
        enum gemm_tensor y, uint32_t y_dim, const char *what)
{
    uint32_t x_size = gemm_tensor(op, x)->Sizes[x_dim], y_size = gemm_tensor(op, y)->Sizes[y_dim];

    if (x_size == y_size)
        return S_OK;
    return vkdml_op_error(op, E_INVALIDARG, "%s.Sizes[%u]=%u must equal %s.Sizes[%u]=%u (%s).",
            tensor_names[x], x_dim, x_size, tensor_names[y], y_dim, y_size, what);
}

static HRESULT validate_shapes(const struct vkdml_operator_view *op, const DML_GEMM_OPERATOR_DESC *desc)
{
    uint32_t rank = gemm_tensor(op, GEMM_A)->DimensionCount, rows = rank - 2, columns = rank - 1, i;
    bool trans_a = desc->TransA == DML_MATRIX_TRANSFORM_TRANSPOSE;
    bool trans_b = desc->TransB == DML_MATRIX_TRANSFORM_TRANSPOSE;
    uint32_t a_m = trans_a ? columns : rows, a_k = trans_a ? rows : columns;
    uint32_t b_k = trans_b ? columns : rows, b_n = trans_b ? rows : columns;
    static const char batch_rule[] = "batch sizes are shared; broadcast with 0-strides";
    HRESULT hr;

    if (FAILED(hr = check_size(op, GEMM_A, a_k, GEMM_B, b_k, trans_a || trans_b
            ? vkdml_debug_sprintf("K, with TransA=%s and TransB=%s", trans_a ? "TRANSPOSE" : "NONE",
            trans_b ? "TRANSPOSE" : "NONE") : "K")))
        return hr;
    if (FAILED(hr = check_size(op, GEMM_OUTPUT, rows, GEMM_A, a_m, "M")))
        return hr;
    if (FAILED(hr = check_size(op, GEMM_OUTPUT, columns, GEMM_B, b_n, "N")))
        return hr;
    for (i = 0; i < rows; ++i)
    {
        if (FAILED(hr = check_size(op, GEMM_A, i, GEMM_OUTPUT, i, batch_rule)))
            return hr;
        if (FAILED(hr = check_size(op, GEMM_B, i, GEMM_OUTPUT, i, batch_rule)))
            return hr;
    }
    for (i = 0; gemm_tensor(op, GEMM_C) && i < rank; ++i)
    {
        if (FAILED(hr = check_size(op, GEMM_C, i, GEMM_OUTPUT, i, "CTensor and OutputTensor have the same Sizes; "
                "broadcast C with 0-strides")))
            return hr;
    }
    return S_OK;
}

/* The kernel indexes elements with 32-bit signed SPIR-V access chains. */
static HRESULT validate_index_range(const struct vkdml_operator_view *op)
{
    const DML_BUFFER_TENSOR_DESC *t;
    struct gemm_matrix matrix;
    uint64_t last;
    unsigned int i, d;

    for (i = 0; i < GEMM_TENSOR_COUNT; ++i)
    {
        if (!(t = gemm_tensor(op, i)))
            continue;
        gemm_matrix_init(&matrix, t, false);
        for (d = 0, last = 0; d < 4; ++d)
            last += (uint64_t)(matrix.sizes[d] - 1) * matrix.strides[d];
        if (last > INT32_MAX)
            return vkdml_op_error(op, E_NOTIMPL, "%s spans %" PRIu64 " elements; at most 2^31 are implemented.",
                    tensor_names[i], last + 1);
    }
    return S_OK;
}

static HRESULT validate_activation(const struct vkdml_operator_view *op, const DML_OPERATOR_DESC *activation)
{
    HRESULT hr;

    if (!activation)
        return S_OK;
    if (FAILED(hr = vkdml_validate_fused_activation(op, activation)))
        return hr;
    /* Legal since FL 6_1, but a softmax reduces over rows: not an element-wise epilogue. */
    if (activation->Type == DML_OPERATOR_ACTIVATION_SOFTMAX || activation->Type == DML_OPERATOR_ACTIVATION_SOFTMAX1)
        return vkdml_op_error(op, E_NOTIMPL, "FusedActivation.Type=%s is not implemented for GEMM.",
                activation->Type == DML_OPERATOR_ACTIVATION_SOFTMAX ? "ACTIVATION_SOFTMAX" : "ACTIVATION_SOFTMAX1");
    return S_OK;
}

HRESULT vkdml_gemm_validate(struct vkdml_backend_device *device, const struct vkdml_operator_view *op)
{
    const DML_GEMM_OPERATOR_DESC *desc = op->desc;
    HRESULT hr;

    if (FAILED(hr = validate_ranks(op)))
        return hr;
    if (FAILED(hr = validate_transform(op, "TransA", desc->TransA)))
        return hr;
    if (FAILED(hr = validate_transform(op, "TransB", desc->TransB)))
        return hr;
    if (FAILED(hr = validate_shapes(op, desc)))
        return hr;
    if (FAILED(hr = validate_activation(op, desc->FusedActivation)))
        return hr;
    if (FAILED(hr = validate_types(device, op)))
        return hr;
    return validate_index_range(op);
}

/* ---- Compilation ---- */

static uint32_t float_bits(float value)
{
    uint32_t bits;

    memcpy(&bits, &value, sizeof(bits));
    return bits;
}

static void set_strides(uint32_t *spec, const struct gemm_matrix *matrix)
{
    memcpy(spec, matrix->strides, sizeof(matrix->strides));
}

static void set_location(uint32_t *spec, const struct vkdml_tensor_location *location)
{
    spec[0] = location->slot;
    spec[1] = (uint32_t)location->offset;
    spec[2] = (uint32_t)(location->offset >> 32);
}

static enum vkdml_kernel_id choose_kernel(const struct vkdml_compile *compile, DML_TENSOR_DATA_TYPE type)
{
    if (type == DML_TENSOR_DATA_TYPE_FLOAT32)
        return VKDML_KERNEL_GEMM_F32;
    /* Half-precision accumulation is a permission, not a request: only where fp16 math exists. */
    if ((compile->flags & DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION) && compile->vk->caps.shader_float16)
        return VKDML_KERNEL_GEMM_F16_HALF_COMPUTE;
    return VKDML_KERNEL_GEMM_F16;
}

/* Outputs per thread along a dimension of `size`: up to GEMM_MAX_THREAD_TILE, fewer when the
 * matrix is smaller than a full tile (more, smaller workgroups keep the device busy). */
static uint32_t thread_tile(uint32_t size, uint32_t threads)
{
    return (uint32_t)VKDML_MIN((size + (uint64_t)threads - 1) / threads, GEMM_MAX_THREAD_TILE);
}

/* Spreads `tiles` workgroups over as few layers (z), then rows (y), as maxComputeWorkGroupCount
 * allows, with rows as even as possible; the kernel linearizes the group id and skips the few
 * surplus groups of the rounding. */
static HRESULT tile_groups(const struct vkdml_compile *compile, uint64_t tiles, uint32_t groups[3])
{
    const uint32_t *max = compile->vk->caps.properties.limits.maxComputeWorkGroupCount;
    uint64_t x, y, z;

    z = (tiles + (uint64_t)max[0] * max[1] - 1) / ((uint64_t)max[0] * max[1]);
    y = (tiles + max[0] * z - 1) / (max[0] * z);
    x = (tiles + y * z - 1) / (y * z);
    if (z > max[2] || x * y * z > UINT32_MAX)
        return vkdml_op_error(compile->op, E_NOTIMPL,
                "%" PRIu64 " output tiles exceed the device's workgroup counts.", tiles);
    groups[0] = (uint32_t)x;
    groups[1] = (uint32_t)y;
    groups[2] = (uint32_t)z;
    return S_OK;
}

/* Shapes, strides (transposes folded in), tensor locations and attributes. */
static void fill_spec(const struct vkdml_compile *compile, uint32_t spec[GEMM_SPEC_COUNT])
{
    const struct vkdml_operator_view *op = compile->op;
    const DML_GEMM_OPERATOR_DESC *desc = op->desc;
    struct gemm_matrix a, b, c, out;

    gemm_matrix_init(&a, gemm_tensor(op, GEMM_A), desc->TransA == DML_MATRIX_TRANSFORM_TRANSPOSE);
    gemm_matrix_init(&b, gemm_tensor(op, GEMM_B), desc->TransB == DML_MATRIX_TRANSFORM_TRANSPOSE);
    gemm_matrix_init(&out, gemm_tensor(op, GEMM_OUTPUT), false);
    spec[GEMM_SPEC_M] = out.sizes[2];
    spec[GEMM_SPEC_N] = out.sizes[3];
    spec[GEMM_SPEC_K] = a.sizes[3];
    spec[GEMM_SPEC_BATCH1] = out.sizes[1];
    spec[GEMM_SPEC_BATCH_COUNT] = out.sizes[0] * out.sizes[1];
    set_strides(&spec[GEMM_SPEC_A_STRIDES], &a);
    set_strides(&spec[GEMM_SPEC_B_STRIDES], &b);
    set_strides(&spec[GEMM_SPEC_OUT_STRIDES], &out);
    set_location(&spec[GEMM_SPEC_A_LOCATION], &compile->inputs[GEMM_A]);
    set_location(&spec[GEMM_SPEC_B_LOCATION], &compile->inputs[GEMM_B]);
    set_location(&spec[GEMM_SPEC_OUT_LOCATION], &compile->outputs[0]);
    if (gemm_tensor(op, GEMM_C))
    {
        gemm_matrix_init(&c, gemm_tensor(op, GEMM_C), false);
        set_strides(&spec[GEMM_SPEC_C_STRIDES], &c);
        set_location(&spec[GEMM_SPEC_C_LOCATION], &compile->inputs[GEMM_C]);
        spec[GEMM_SPEC_HAS_C] = 1;
    }
    spec[GEMM_SPEC_ALPHA] = float_bits(desc->Alpha);
    spec[GEMM_SPEC_BETA] = float_bits(desc->Beta);
    spec[GEMM_SPEC_THREAD_M] = thread_tile(out.sizes[2], GEMM_THREADS_Y);
    spec[GEMM_SPEC_THREAD_N] = thread_tile(out.sizes[3], GEMM_THREADS_X);
    vkdml_fused_activation_spec(desc->FusedActivation, &spec[GEMM_SPEC_ACTIVATION]);
}

/* One dispatch over every output tile of every batch. */
HRESULT vkdml_gemm_compile(struct vkdml_compile *compile)
{
    uint32_t spec[GEMM_SPEC_COUNT] = {0}, groups[3], tile_m, tile_n;
    uint64_t tiles;
    HRESULT hr;

    fill_spec(compile, spec);
    tile_m = GEMM_THREADS_Y * spec[GEMM_SPEC_THREAD_M];
    tile_n = GEMM_THREADS_X * spec[GEMM_SPEC_THREAD_N];
    tiles = ((uint64_t)spec[GEMM_SPEC_M] + tile_m - 1) / tile_m;
    tiles *= ((uint64_t)spec[GEMM_SPEC_N] + tile_n - 1) / tile_n;
    tiles *= spec[GEMM_SPEC_BATCH_COUNT];
    if (FAILED(hr = tile_groups(compile, tiles, groups)))
        return hr;
    TRACE("GEMM %u batches of {%u,%u,%u}: %ux%u tiles, %u x %u x %u workgroups.", spec[GEMM_SPEC_BATCH_COUNT],
            spec[GEMM_SPEC_M], spec[GEMM_SPEC_N], spec[GEMM_SPEC_K], tile_m, tile_n, groups[0], groups[1], groups[2]);
    return vkdml_compile_add_dispatch(compile, choose_kernel(compile, gemm_tensor(compile->op, GEMM_A)->DataType),
            spec, GEMM_SPEC_COUNT, NULL, 0, groups, false);
}
