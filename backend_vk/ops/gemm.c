/*
 * The GEMM family (DML_OPERATOR_GEMM): DirectML's shape and type rules, and one dispatch over
 * every output tile of every batch (two with split-K, below), of one of four kernels:
 *   - gemm_gemv.comp when M or N is at most GEMM_GEMV_MAX_SIDE (batch-1 inference, matrix x
 *     vector), both types, any layout: such a GEMM is bound by reading the large operand once,
 *     which this kernel does coalesced (the problem transposed, Output^T = B^T x A^T, when N is
 *     the small side, so that the kernel's M always is);
 *   - gemm_coopmat.comp (FLOAT16 on devices with 16x8x16 fp16 cooperative matrices and 32-wide
 *     subgroups; A and B in 16-byte vectors where their layouts allow, else gathered);
 *   - gemm_tiled.comp (FLOAT32, and FLOAT16 the cooperative-matrix kernel cannot take, with at
 *     least GEMM_TILED_MIN_TILES output tiles of 128 x 128, or with fewer but a long K that split-K
 *     spreads over that many workgroups);
 *   - gemm.comp, the general kernel: everything else.
 * The fast kernels take every layout their preconditions admit, and read and write vectors
 * wherever sizes, strides and offsets allow. VKDML_GEMM_KERNEL=general|tiled|coopmat|gemv
 * forces one kernel (a debugging and benchmarking knob): compilation fails with E_NOTIMPL where
 * that kernel cannot run the operator. VKDML_GEMM_TUNE="tile_m,tile_n,tile_k,stages,group_m
 * [,subgroups_m,subgroups_n[,split_k]]" (0: the default) overrides the fast kernels' tiling, for
 * tuning; a combination the kernel cannot take falls back to the default.
 *
 * Split-K: when the fast kernels' tiles are too few for a large GPU, SPLIT_K workgroups per tile
 * each sum a part of K into fp32 partial sums in the temporary resource, and a second dispatch
 * (gemm_split_reduce.comp) adds them up and runs the epilogue (Alpha, Beta * C, activation). The
 * tiled kernel splits by default (vkdml_split_k_choose, conv.c's rule); the cooperative-matrix
 * kernel only when its tiles are fewer than GEMM_COOPMAT_MIN_TILES (conv.c's cooperative-matrix
 * kernel measured slower split with more tiles on an H200), or through VKDML_GEMM_TUNE's split_k.
 *
 * DirectML's rules (DML_GEMM_OPERATOR_DESC, FL 4_0 tensor support): A {[B0], [B1], M, K} (K, M
 * with TransA), B {[B0], [B1], K, N} (N, K with TransB), optional C and Output {[B0], [B1], M, N};
 * all four have the same DataType (FLOAT32 or FLOAT16) and DimensionCount (2 to 4); C and Output
 * have the same Sizes. Batch sizes are shared by all tensors: an input broadcasts over batches,
 * and C over rows or columns, through 0-strides, never through size-1 dimensions.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops_private.h"
#include "gemm_interface.h"

_Static_assert(GEMM_COOPMAT_SUBGROUP_SIZE == VKDML_COOPMAT_SUBGROUP_SIZE, "the coopmat kernels' subgroups");
_Static_assert(GEMM_SPEC_ACTIVATION + VKDML_ACTIVATION_SPEC_COUNT == GEMM_SPEC_COUNT,
        "the fused activation's constants end gemm.comp's list");
_Static_assert(GEMM_SPLIT_SPEC_COUNT >= GEMM_GEMV_SPEC_COUNT && GEMM_GEMV_SPEC_COUNT >= GEMM_FAST_SPEC_COUNT,
        "gemm_plan's constants hold every kernel's");

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

/* Exchanges the matrix's rows and columns (the batch dimensions stay). */
static void transpose_matrix(struct gemm_matrix *matrix)
{
    uint32_t swap;

    swap = matrix->sizes[2], matrix->sizes[2] = matrix->sizes[3], matrix->sizes[3] = swap;
    swap = matrix->strides[2], matrix->strides[2] = matrix->strides[3], matrix->strides[3] = swap;
}

/* Leading dimensions DirectML leaves out (rank 2 or 3) are batches of 1; NULL strides are packed. */
static void gemm_matrix_init(struct gemm_matrix *matrix, const DML_BUFFER_TENSOR_DESC *tensor, bool transpose)
{
    uint32_t pad = 4 - tensor->DimensionCount, stride = 1, i;

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
        transpose_matrix(matrix);
}

/* ---- Validation ---- */

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

/* The four matrices as the kernels see them (transposes folded into the strides). */
struct gemm_layout
{
    struct gemm_matrix a, b, c, out;
    bool has_c;
};

static void gemm_layout_init(const struct vkdml_operator_view *op, struct gemm_layout *layout)
{
    const DML_GEMM_OPERATOR_DESC *desc = op->desc;

    gemm_matrix_init(&layout->a, gemm_tensor(op, GEMM_A), desc->TransA == DML_MATRIX_TRANSFORM_TRANSPOSE);
    gemm_matrix_init(&layout->b, gemm_tensor(op, GEMM_B), desc->TransB == DML_MATRIX_TRANSFORM_TRANSPOSE);
    gemm_matrix_init(&layout->out, gemm_tensor(op, GEMM_OUTPUT), false);
    if ((layout->has_c = !!gemm_tensor(op, GEMM_C)))
        gemm_matrix_init(&layout->c, gemm_tensor(op, GEMM_C), false);
}

/* Shapes, strides, tensor locations and attributes: gemm.comp's constants. */
static void fill_spec(const struct vkdml_compile *compile, const struct gemm_layout *layout, uint32_t *spec)
{
    const DML_GEMM_OPERATOR_DESC *desc = compile->op->desc;

    spec[GEMM_SPEC_M] = layout->out.sizes[2];
    spec[GEMM_SPEC_N] = layout->out.sizes[3];
    spec[GEMM_SPEC_K] = layout->a.sizes[3];
    spec[GEMM_SPEC_BATCH1] = layout->out.sizes[1];
    spec[GEMM_SPEC_BATCH_COUNT] = layout->out.sizes[0] * layout->out.sizes[1];
    set_strides(&spec[GEMM_SPEC_A_STRIDES], &layout->a);
    set_strides(&spec[GEMM_SPEC_B_STRIDES], &layout->b);
    set_strides(&spec[GEMM_SPEC_OUT_STRIDES], &layout->out);
    set_location(&spec[GEMM_SPEC_A_LOCATION], &compile->inputs[GEMM_A]);
    set_location(&spec[GEMM_SPEC_B_LOCATION], &compile->inputs[GEMM_B]);
    set_location(&spec[GEMM_SPEC_OUT_LOCATION], &compile->outputs[0]);
    if (layout->has_c)
    {
        set_strides(&spec[GEMM_SPEC_C_STRIDES], &layout->c);
        set_location(&spec[GEMM_SPEC_C_LOCATION], &compile->inputs[GEMM_C]);
        spec[GEMM_SPEC_HAS_C] = 1;
    }
    spec[GEMM_SPEC_ALPHA] = float_bits(desc->Alpha);
    spec[GEMM_SPEC_BETA] = float_bits(desc->Beta);
    spec[GEMM_SPEC_THREAD_M] = thread_tile(layout->out.sizes[2], GEMM_THREADS_Y);
    spec[GEMM_SPEC_THREAD_N] = thread_tile(layout->out.sizes[3], GEMM_THREADS_X);
    vkdml_fused_activation_spec(desc->FusedActivation, &spec[GEMM_SPEC_ACTIVATION]);
}

/* ---- Kernel choice ---- */

/* Below this many 128 x 128 output tiles (batches included) the general kernel's smaller tiles
 * spread better over the device than the tiled kernel's faster ones; and matrices that leave
 * most of each tile empty (many small batches) are the general kernel's too. */
#define GEMM_TILED_MIN_TILES 96
#define GEMM_TILED_MIN_FILL 0.5

enum gemm_kernel
{
    GEMM_KERNEL_AUTO,
    GEMM_KERNEL_GENERAL,
    GEMM_KERNEL_TILED,
    GEMM_KERNEL_COOPMAT,
    GEMM_KERNEL_GEMV,
};

static const char *const kernel_names[] = {"auto", "general", "tiled", "coopmat", "gemv"};

/* VKDML_GEMM_KERNEL, read at every compilation so that tests and benchmarks can switch it. */
static enum gemm_kernel requested_kernel(void)
{
    const char *value = getenv("VKDML_GEMM_KERNEL");
    unsigned int i;

    if (!value || !*value)
        return GEMM_KERNEL_AUTO;
    for (i = 0; i < ARRAY_SIZE(kernel_names); ++i)
    {
        if (!strcmp(value, kernel_names[i]))
            return i;
    }
    WARN("Ignoring VKDML_GEMM_KERNEL=%s: not auto, general, tiled, coopmat or gemv.", value);
    return GEMM_KERNEL_AUTO;
}

/* The fast kernels' tiling; VKDML_GEMM_TUNE overrides what it names (checked by the callers). */
struct gemm_tuning
{
    uint32_t tile_m, tile_n, tile_k, stages, group_m, subgroups_m, subgroups_n;
    uint32_t split_k;                   /* workgroups per tile, each summing a part of K */
};

static void read_tuning(struct gemm_tuning *tuning)
{
    const char *value = getenv("VKDML_GEMM_TUNE");
    struct gemm_tuning t = {0};
    int fields;

    if (!value || !*value)
        return;
    fields = sscanf(value, "%u,%u,%u,%u,%u,%u,%u,%u", &t.tile_m, &t.tile_n, &t.tile_k, &t.stages, &t.group_m,
            &t.subgroups_m, &t.subgroups_n, &t.split_k);
    if (fields != 5 && fields != 7 && fields != 8)
    {
        WARN("Ignoring VKDML_GEMM_TUNE=%s: want tile_m,tile_n,tile_k,stages,group_m[,subgroups_m,subgroups_n"
                "[,split_k]].", value);
        return;
    }
    tuning->tile_m = t.tile_m ? t.tile_m : tuning->tile_m;
    tuning->tile_n = t.tile_n ? t.tile_n : tuning->tile_n;
    tuning->tile_k = t.tile_k ? t.tile_k : tuning->tile_k;
    tuning->stages = t.stages ? t.stages : tuning->stages;
    tuning->group_m = t.group_m ? t.group_m : tuning->group_m;
    tuning->subgroups_m = t.subgroups_m ? t.subgroups_m : tuning->subgroups_m;
    tuning->subgroups_n = t.subgroups_n ? t.subgroups_n : tuning->subgroups_n;
    tuning->split_k = t.split_k ? t.split_k : tuning->split_k;
}

static unsigned int element_size(const struct vkdml_compile *compile)
{
    return gemm_tensor(compile->op, GEMM_A)->DataType == DML_TENSOR_DATA_TYPE_FLOAT16 ? 2 : 4;
}

/* Vectors of `lanes` elements along dimension `dim` (2: the matrix's first, 3: its second) are
 * whole inside the matrix and aligned: that dimension is contiguous and a multiple of the vector,
 * every other stride in use is a multiple of the vector, and the tensor's offset is a multiple of
 * the vector's bytes (bindings themselves are 16-byte aligned: DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT). */
static bool vectorizable_by(const struct gemm_matrix *matrix, const struct vkdml_tensor_location *location,
        unsigned int size, unsigned int dim, unsigned int lanes)
{
    unsigned int d;

    if (matrix->strides[dim] != 1 || matrix->sizes[dim] % lanes || location->offset % (lanes * size))
        return false;
    for (d = 0; d < 4; ++d)
    {
        if (d != dim && matrix->sizes[d] > 1 && matrix->strides[d] % lanes)
            return false;
    }
    return true;
}

/* The same for 16-byte vectors, the fast kernels' loads and stores. */
static bool vectorizable(const struct gemm_matrix *matrix, const struct vkdml_tensor_location *location,
        unsigned int size, unsigned int dim)
{
    return vectorizable_by(matrix, location, size, dim, 16 / size);
}

static uint32_t vector_mode(const struct gemm_matrix *matrix, const struct vkdml_tensor_location *location,
        unsigned int size, unsigned int lanes, bool column_major)
{
    if (vectorizable_by(matrix, location, size, 3, lanes))
        return GEMM_VECTOR_ROW_MAJOR;
    if (column_major && vectorizable_by(matrix, location, size, 2, lanes))
        return GEMM_VECTOR_COLUMN_MAJOR;
    return GEMM_VECTOR_NONE;
}

/* The fast kernels' vector modes for vectors of `lanes` elements (gemm_coopmat.comp: 16 bytes;
 * gemm_tiled.comp: 4 values of either type). */
static void set_vector_modes(const struct vkdml_compile *compile, const struct gemm_layout *layout,
        unsigned int lanes, uint32_t *spec)
{
    unsigned int size = element_size(compile);

    spec[GEMM_SPEC_A_VECTOR] = vector_mode(&layout->a, &compile->inputs[GEMM_A], size, lanes, true);
    spec[GEMM_SPEC_B_VECTOR] = vector_mode(&layout->b, &compile->inputs[GEMM_B], size, lanes, true);
    if (layout->has_c)
        spec[GEMM_SPEC_C_VECTOR] = vector_mode(&layout->c, &compile->inputs[GEMM_C], size, lanes, false);
    spec[GEMM_SPEC_OUT_VECTOR] = vector_mode(&layout->out, &compile->outputs[0], size, lanes, false);
}

static uint64_t tiles_of(const uint32_t *spec, uint32_t tile_m, uint32_t tile_n)
{
    return (((uint64_t)spec[GEMM_SPEC_M] + tile_m - 1) / tile_m) * (((uint64_t)spec[GEMM_SPEC_N] + tile_n - 1) / tile_n)
            * spec[GEMM_SPEC_BATCH_COUNT];
}

/* The main dispatch's kernel, constants and output tile; with split-K, its parts of K. */
struct gemm_plan
{
    enum vkdml_kernel_id kernel;
    uint32_t spec[GEMM_SPLIT_SPEC_COUNT];
    uint32_t spec_count;
    uint32_t tile_m, tile_n;
    uint32_t split_k;
};

static uint32_t shared_limit(const struct vkdml_compile *compile)
{
    return compile->vk->caps.properties.limits.maxComputeSharedMemorySize;
}

/* ---- Split-K (split_k.c) ---- */

static uint64_t gemm_outputs(const uint32_t *spec)
{
    return (uint64_t)spec[GEMM_SPEC_M] * spec[GEMM_SPEC_N] * spec[GEMM_SPEC_BATCH_COUNT];
}

/* Parts of K for tiles of tile_m x tile_n, tile_k values of K a slab: vkdml_split_k_choose's. */
static uint32_t choose_split_k(const uint32_t *spec, uint32_t tile_m, uint32_t tile_n, uint32_t tile_k)
{
    return vkdml_split_k_choose(tiles_of(spec, tile_m, tile_n), (spec[GEMM_SPEC_K] + tile_k - 1) / tile_k,
            gemm_outputs(spec));
}

/* VKDML_GEMM_TUNE's split_k (`requested`, 0 where it names none) where the kernels can take it,
 * else the default `split_k`. */
static uint32_t tuned_split_k(const uint32_t *spec, uint32_t requested, uint32_t split_k)
{
    if (!requested)
        return split_k;
    if (vkdml_split_k_valid(gemm_outputs(spec), requested))
        return requested;
    WARN("Ignoring split_k=%u of VKDML_GEMM_TUNE=%s: want 1 to %u parts whose sums take at most 1 GiB.",
            requested, getenv("VKDML_GEMM_TUNE"), VKDML_MAX_SPLIT_K);
    return split_k;
}

/* ---- The fast kernels ---- */

/* split_k 0: chosen by the shape (choose_split_k). */
static const struct gemm_tuning tiled_default = {GEMM_TILED_TILE, GEMM_TILED_TILE, 8, 2, 8, 0, 0, 0};

/* NULL when gemm_tiled.comp can run the operator (then the plan is filled), else why not. */
static const char *plan_tiled(const struct vkdml_compile *compile, const struct gemm_layout *layout,
        struct gemm_plan *plan)
{
    struct gemm_tuning tuning = tiled_default;
    uint32_t shared;

    read_tuning(&tuning);
    if (tuning.tile_k != 8 && tuning.tile_k != 16)
        tuning.tile_k = 8;
    /* Two stages of A (rows padded by 4 floats) and B, K-major. */
    shared = 2 * tuning.tile_k * (2 * GEMM_TILED_TILE + 4) * 4;
    if (shared > shared_limit(compile) && tuning.tile_k > 8)
        shared = 2 * (tuning.tile_k = 8) * (2 * GEMM_TILED_TILE + 4) * 4;
    if (shared > shared_limit(compile))
        return "the device has too little shared memory";
    /* fp32 arithmetic for FLOAT16 too: half precision is a permission. */
    plan->kernel = element_size(compile) == 2 ? VKDML_KERNEL_GEMM_TILED_F16 : VKDML_KERNEL_GEMM_TILED_F32;
    plan->spec_count = GEMM_SPLIT_SPEC_COUNT;
    plan->tile_m = plan->tile_n = GEMM_TILED_TILE;
    plan->spec[GEMM_SPEC_TILE_M] = plan->spec[GEMM_SPEC_TILE_N] = GEMM_TILED_TILE;
    plan->spec[GEMM_SPEC_TILE_K] = tuning.tile_k;
    plan->spec[GEMM_SPEC_GROUP_M] = tuning.group_m;
    set_vector_modes(compile, layout, GEMM_TILED_VECTOR, plan->spec);
    plan->split_k = tuned_split_k(plan->spec, tuning.split_k,
            choose_split_k(plan->spec, GEMM_TILED_TILE, GEMM_TILED_TILE, tuning.tile_k));
    return NULL;
}

/* Whether gemm_coopmat.comp stages a matrix in its second dimension's order (A [m][k], B [k][n]):
 * when it reads 16-byte vectors along it, or gathers values along it (no vectors, and the first
 * dimension's stride is not 1). */
static bool coopmat_row_major(uint32_t vector_mode, uint32_t first_stride)
{
    return vector_mode == GEMM_VECTOR_ROW_MAJOR || (vector_mode == GEMM_VECTOR_NONE && first_stride != 1);
}

/* Shared memory of gemm_coopmat.comp: the stages of A and B in 16-byte vectors, each stored row
 * padded by one vector (as the kernel lays them out), which also hold the epilogue's scratch. */
static uint32_t coopmat_shared_size(const uint32_t *spec, const struct gemm_tuning *t)
{
    uint32_t k = t->tile_k, a, b;

    a = coopmat_row_major(spec[GEMM_SPEC_A_VECTOR], spec[GEMM_SPEC_A_STRIDES + 2])
            ? t->tile_m * (k / 8 + 1) : k * (t->tile_m / 8 + 1);
    b = coopmat_row_major(spec[GEMM_SPEC_B_VECTOR], spec[GEMM_SPEC_B_STRIDES + 2])
            ? k * (t->tile_n / 8 + 1) : t->tile_n * (k / 8 + 1);
    return t->stages * (a + b) * 16;
}

static bool valid_coopmat_tile(uint32_t size)
{
    return size == 64 || size == 128 || size == 256;
}

/* What gemm_coopmat.comp can take: 4 to 8 subgroups, each with whole 16 x 16 matrices (at most
 * GEMM_COOPMAT_MAX_ACCUMULATORS), tile loads spread evenly over the threads, the epilogue's
 * scratch (16 x 16 fp32 per subgroup) inside the tiles' shared memory. */
static bool valid_coopmat_tuning(const uint32_t *spec, const struct gemm_tuning *t, uint32_t shared_limit)
{
    uint32_t subgroups = t->subgroups_m * t->subgroups_n, threads = subgroups * GEMM_COOPMAT_SUBGROUP_SIZE;
    uint32_t sub_m, sub_n, scratch = subgroups * GEMM_COOPMAT_MATRIX * GEMM_COOPMAT_MATRIX * 4;

    if (!valid_coopmat_tile(t->tile_m) || !valid_coopmat_tile(t->tile_n) || subgroups < 4 || subgroups > 8
            || (t->tile_k != 16 && t->tile_k != 32 && t->tile_k != 64)
            || !t->subgroups_m || !t->subgroups_n || !t->stages || t->stages > 2 || !t->group_m)
        return false;
    sub_m = t->tile_m / t->subgroups_m;
    sub_n = t->tile_n / t->subgroups_n;
    if (sub_m % GEMM_COOPMAT_MATRIX || sub_n % GEMM_COOPMAT_MATRIX || !sub_m || !sub_n
            || (sub_m / GEMM_COOPMAT_MATRIX) * (sub_n / GEMM_COOPMAT_MATRIX) > GEMM_COOPMAT_MAX_ACCUMULATORS)
        return false;
    if ((t->tile_m * t->tile_k / 8) % threads || (t->tile_n * t->tile_k / 8) % threads)
        return false;
    return coopmat_shared_size(spec, t) <= shared_limit && scratch <= coopmat_shared_size(spec, t);
}

/* The default tiling: the first candidate that gives every multiprocessor of a large GPU work
 * (GEMM_COOPMAT_MIN_TILES tiles), has K enough and fits the device's shared memory, else the
 * smallest. Measured in KHR form on an H200 (fp16 TFLOP/s): 128 x 128 tiles of 8 subgroups
 * (64 x 32 each) taking K 64 at a time 269 at 4096^3, 283 at 8192^3, but short K loses (2048^3:
 * 243 against 259), so 4 subgroups with K 32 below that; 4 subgroups with K 64 are register-bound
 * (156), 128 x 256 of 8 with K 32 gives 245, 16 subgroups at most 255. */
#define GEMM_COOPMAT_MIN_TILES 128
/* The most parts of K the cooperative-matrix kernel splits into by default (plan_coopmat). */
#define GEMM_COOPMAT_MAX_DEFAULT_SPLIT 4

static void default_coopmat_tuning(const uint32_t *spec, uint32_t shared_limit, struct gemm_tuning *tuning)
{
    static const struct
    {
        struct gemm_tuning tuning;
        uint32_t min_k;
    }
    candidates[] =
    {
        {{128, 128, 64, 1, 8, 2, 4}, 4096},
        {{128, 128, 32, 1, 8, 2, 2}, 0},
        {{64, 64, 32, 2, 8, 2, 2}, 0},
    };
    unsigned int i;

    for (i = 0; i < ARRAY_SIZE(candidates); ++i)
    {
        *tuning = candidates[i].tuning;
        if (tiles_of(spec, tuning->tile_m, tuning->tile_n) >= GEMM_COOPMAT_MIN_TILES
                && spec[GEMM_SPEC_K] >= candidates[i].min_k && valid_coopmat_tuning(spec, tuning, shared_limit))
            return;
    }
}

static const char *plan_coopmat(const struct vkdml_compile *compile, const struct gemm_layout *layout,
        struct gemm_plan *plan)
{
    const char *tune = getenv("VKDML_GEMM_TUNE"), *why_not;
    struct gemm_tuning tuning, requested;

    if (gemm_tensor(compile->op, GEMM_A)->DataType != DML_TENSOR_DATA_TYPE_FLOAT16)
        return "it is the FLOAT16 kernel";
    if ((why_not = vkdml_caps_coopmat_f16_missing(&compile->vk->caps)))
        return why_not;
    set_vector_modes(compile, layout, 16 / element_size(compile), plan->spec);
    default_coopmat_tuning(plan->spec, shared_limit(compile), &tuning);
    requested = tuning;
    read_tuning(&requested);
    if (valid_coopmat_tuning(plan->spec, &requested, shared_limit(compile)))
        tuning = requested;
    else if (tune)
        WARN("Ignoring VKDML_GEMM_TUNE=%s: gemm_coopmat.comp cannot take that tiling here.", tune);
    if (!valid_coopmat_tuning(plan->spec, &tuning, shared_limit(compile)))
        return "the device has too little shared memory";
    plan->kernel = compile->vk->caps.coopmat_khr ? VKDML_KERNEL_GEMM_COOPMAT_F16_KHR : VKDML_KERNEL_GEMM_COOPMAT_F16;
    plan->spec_count = GEMM_SPLIT_SPEC_COUNT;
    plan->tile_m = plan->spec[GEMM_SPEC_TILE_M] = tuning.tile_m;
    plan->tile_n = plan->spec[GEMM_SPEC_TILE_N] = tuning.tile_n;
    plan->spec[GEMM_SPEC_TILE_K] = tuning.tile_k;
    plan->spec[GEMM_SPEC_STAGES] = tuning.stages;
    plan->spec[GEMM_SPEC_GROUP_M] = tuning.group_m;
    plan->spec[GEMM_SPEC_SUBGROUPS_M] = tuning.subgroups_m;
    plan->spec[GEMM_SPEC_SUBGROUPS_N] = tuning.subgroups_n;
    plan->spec[GEMM_SPEC_THREADS] = tuning.subgroups_m * tuning.subgroups_n * GEMM_COOPMAT_SUBGROUP_SIZE;
    /* Whole K unless the tiles are fewer than a large GPU's units: conv.c's cooperative-matrix
     * kernel measured slower split at 196 tiles, while 512x16384x512 here (64 tiles of 64x64) went
     * from 31.0 to 89.1 TFLOP/s in 4 parts (H200); more parts are unmeasured, hence the cap. */
    plan->split_k = tuned_split_k(plan->spec, tuning.split_k,
            tiles_of(plan->spec, tuning.tile_m, tuning.tile_n) < GEMM_COOPMAT_MIN_TILES
            ? VKDML_MIN(choose_split_k(plan->spec, tuning.tile_m, tuning.tile_n, tuning.tile_k),
            GEMM_COOPMAT_MAX_DEFAULT_SPLIT) : 1);
    return NULL;
}

/* FLOAT16 arithmetic: half-precision accumulation is a permission, not a request, taken only where
 * fp16 math exists. */
static bool half_compute(const struct vkdml_compile *compile)
{
    return (compile->flags & DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION) && compile->vk->caps.shader_float16;
}

static void plan_general(const struct vkdml_compile *compile, struct gemm_plan *plan)
{
    DML_TENSOR_DATA_TYPE type = gemm_tensor(compile->op, GEMM_A)->DataType;

    plan->spec_count = GEMM_SPEC_COUNT;
    plan->tile_m = GEMM_THREADS_Y * plan->spec[GEMM_SPEC_THREAD_M];
    plan->tile_n = GEMM_THREADS_X * plan->spec[GEMM_SPEC_THREAD_N];
    if (type == DML_TENSOR_DATA_TYPE_FLOAT32)
        plan->kernel = VKDML_KERNEL_GEMM_F32;
    else if (half_compute(compile))
        plan->kernel = VKDML_KERNEL_GEMM_F16_HALF_COMPUTE;
    else
        plan->kernel = VKDML_KERNEL_GEMM_F16;
}

/* ---- GEMV: one small side ---- */

/* With at most 8 rows (or columns) a GEMM does at most 16 flops per element of the large operand
 * it reads: memory-bound on every device, where the tiled kernels would leave most of each tile
 * empty (a 1-row A wastes 15/16 of a 16 x 16 cooperative matrix). gemm_gemv.comp reads the large
 * operand once, coalesced. */
#define GEMM_GEMV_COLUMNS 4             /* columns per thread when B is read by scalars or along K:
                                         * each block of A a thread loads serves that many */
#define GEMM_GEMV_MIN_STEPS 4           /* blocks of K per thread, where K has them: their loads
                                         * overlap, and fewer threads along K idle */
#define GEMM_GEMV_MIN_ROW_BYTES 64      /* threads along N read at least this much of each row of an
                                         * N-contiguous B: whole DRAM bursts */

static uint32_t round_up_pow2(uint32_t value)
{
    uint32_t pow2 = 1;

    while (pow2 < value)
        pow2 <<= 1;
    return pow2;
}

static uint32_t round_down_pow2(uint32_t value)
{
    uint32_t pow2 = 1;

    while (pow2 * 2 <= value)
        pow2 <<= 1;
    return pow2;
}

/* Output^T = B^T x A^T: the same GEMM with M and N (and A and B) exchanged. */
static void transpose_layout(const struct gemm_layout *layout, struct gemm_layout *transposed)
{
    transposed->a = layout->b;
    transposed->b = layout->a;
    transposed->c = layout->c;
    transposed->out = layout->out;
    transposed->has_c = layout->has_c;
    transpose_matrix(&transposed->a);
    transpose_matrix(&transposed->b);
    transpose_matrix(&transposed->out);
    if (layout->has_c)
        transpose_matrix(&transposed->c);
}

static void swap_spec(uint32_t *spec, unsigned int x, unsigned int y, unsigned int count)
{
    uint32_t swap;
    unsigned int i;

    for (i = 0; i < count; ++i)
        swap = spec[x + i], spec[x + i] = spec[y + i], spec[y + i] = swap;
}

/* How gemm_gemv.comp reads B (the kernel's large operand, {K, N}) and splits its threads. */
struct gemv_shape
{
    bool k_fastest;                     /* the thread index runs along K */
    uint32_t b_vector;                  /* GEMM_VECTOR_COLUMN_MAJOR: 16 bytes along K; _ROW_MAJOR:
                                         * `columns` values along N; _NONE: scalars */
    uint32_t columns, threads_n;
};

static void choose_gemv_shape(const struct gemm_matrix *b, const struct vkdml_tensor_location *b_location,
        unsigned int size, uint32_t small, struct gemv_shape *shape)
{
    uint32_t max_columns = GEMM_GEMV_MAX_PARTIALS / small, k = b->sizes[2], n = b->sizes[3];
    uint32_t k_blocks = (k + 16 / size - 1) / (16 / size), threads_k, lanes;

    memset(shape, 0, sizeof(*shape));
    shape->columns = VKDML_MIN(GEMM_GEMV_COLUMNS, max_columns);
    shape->b_vector = GEMM_VECTOR_NONE;
    /* Threads run along B's contiguous direction: along K when B has 16-byte vectors there, else
     * along its smaller stride; N on a tie (K = 1: B is one row, with vectors along N). */
    if ((shape->k_fastest = vectorizable(b, b_location, size, 2)))
        shape->b_vector = GEMM_VECTOR_COLUMN_MAJOR;
    else if (!(shape->k_fastest = b->strides[2] < b->strides[3]))
    {
        /* The widest vector along N, 16 bytes down to 4, whose partials (rows x lanes) fit. */
        for (lanes = VKDML_MIN(16 / size, round_down_pow2(max_columns)); lanes >= 2 && lanes * size >= 4; lanes /= 2)
        {
            if (vectorizable_by(b, b_location, size, 3, lanes))
            {
                shape->b_vector = GEMM_VECTOR_ROW_MAJOR;
                shape->columns = lanes;
                break;
            }
        }
    }

    /* Enough threads along K that each takes about GEMM_GEMV_MIN_STEPS blocks of it, the rest
     * along N, but no more along N than the columns need, nor fewer than whole row segments. */
    threads_k = VKDML_MIN(round_up_pow2((k_blocks + GEMM_GEMV_MIN_STEPS - 1) / GEMM_GEMV_MIN_STEPS), GEMM_GEMV_THREADS);
    shape->threads_n = GEMM_GEMV_THREADS / threads_k;
    if (!shape->k_fastest)
        shape->threads_n = VKDML_MAX(shape->threads_n,
                round_up_pow2(GEMM_GEMV_MIN_ROW_BYTES / (shape->columns * size)));
    shape->threads_n = VKDML_MIN(shape->threads_n, round_up_pow2((n + shape->columns - 1) / shape->columns));
}

/* NULL when gemm_gemv.comp can run the operator (then the plan is filled), else why not. */
static const char *plan_gemv(const struct vkdml_compile *compile, const struct gemm_layout *layout,
        struct gemm_plan *plan)
{
    const struct vkdml_tensor_location *a_location = &compile->inputs[GEMM_A], *b_location = &compile->inputs[GEMM_B];
    DML_TENSOR_DATA_TYPE type = gemm_tensor(compile->op, GEMM_A)->DataType;
    uint32_t m = layout->out.sizes[2], n = layout->out.sizes[3], small = VKDML_MIN(m, n), shared;
    unsigned int size = element_size(compile);
    bool transposed = n < m, half = type == DML_TENSOR_DATA_TYPE_FLOAT16 && half_compute(compile);
    struct gemm_layout view = *layout;
    struct gemv_shape shape;

    if (small > GEMM_GEMV_MAX_SIDE)
        return vkdml_debug_sprintf("M=%u and N=%u are both above GEMM_GEMV_MAX_SIDE=%u", m, n, GEMM_GEMV_MAX_SIDE);
    /* The kernel's M is the small side. */
    if (transposed)
    {
        transpose_layout(layout, &view);
        a_location = &compile->inputs[GEMM_B];
        b_location = &compile->inputs[GEMM_A];
    }
    choose_gemv_shape(&view.b, b_location, size, small, &shape);
    shared = GEMM_GEMV_THREADS * small * shape.columns * (half ? 2 : 4);
    if (shared > shared_limit(compile))
        return "the device has too little shared memory";

    fill_spec(compile, &view, plan->spec);
    if (transposed)
        swap_spec(plan->spec, GEMM_SPEC_A_LOCATION, GEMM_SPEC_B_LOCATION, 3);
    plan->spec[GEMM_SPEC_A_VECTOR] = vectorizable(&view.a, a_location, size, 3)
            ? GEMM_VECTOR_ROW_MAJOR : GEMM_VECTOR_NONE;
    plan->spec[GEMM_SPEC_B_VECTOR] = shape.b_vector;
    plan->spec[GEMM_SPEC_GEMV_THREADS_N] = shape.threads_n;
    plan->spec[GEMM_SPEC_GEMV_COLUMNS] = shape.columns;
    plan->spec[GEMM_SPEC_GEMV_K_FASTEST] = shape.k_fastest;
    plan->spec_count = GEMM_GEMV_SPEC_COUNT;
    plan->tile_m = small;
    plan->tile_n = shape.threads_n * shape.columns;
    if (type == DML_TENSOR_DATA_TYPE_FLOAT32)
        plan->kernel = VKDML_KERNEL_GEMM_GEMV_F32;
    else
        plan->kernel = half ? VKDML_KERNEL_GEMM_GEMV_F16_HALF_COMPUTE : VKDML_KERNEL_GEMM_GEMV_F16;
    TRACE("GEMV%s: threads along %s, %u x %u (N x K), %u columns each; A %s, B %s.",
            transposed ? " of the transposed problem" : "", shape.k_fastest ? "K" : "N", shape.threads_n,
            GEMM_GEMV_THREADS / shape.threads_n, shape.columns,
            plan->spec[GEMM_SPEC_A_VECTOR] ? "in 16-byte vectors" : "by scalars",
            shape.b_vector == GEMM_VECTOR_COLUMN_MAJOR ? "in 16-byte vectors along K"
            : shape.b_vector == GEMM_VECTOR_ROW_MAJOR ? "in vectors along N" : "by scalars");
    return NULL;
}


/* Enough tiles, mostly full; or, below GEMM_TILED_MIN_TILES, a K long enough that split-K gives
 * the tiled kernel that many workgroups. Not measured against the general kernel, so taken only
 * where it clearly loses: with K of at least GEMM_TILED_SPLIT_MIN_K, the general kernel's few
 * workgroups (4 per tiled tile) each run a long reduction while much of a large GPU idles, and the
 * partial sums' traffic (written and read: 8 bytes per part and output, at most 1/32 byte per
 * multiply-add) is small against the arithmetic. */
#define GEMM_TILED_SPLIT_MIN_K 4096

static bool tiled_pays(const struct vkdml_compile *compile, const struct gemm_layout *layout, const uint32_t *spec)
{
    uint64_t tiles = tiles_of(spec, GEMM_TILED_TILE, GEMM_TILED_TILE);
    unsigned int size = element_size(compile);
    uint32_t split_k = 1;

    if (gemm_outputs(spec) < GEMM_TILED_MIN_FILL * tiles * GEMM_TILED_TILE * GEMM_TILED_TILE)
        return false;
    /* FLOAT16 with neither A nor B in vectors loses to the general kernel (H200, no cooperative
     * matrices: 4095^3 16.7 against 24.4 TFLOP/s; A in vectors, 333x4096x777: 17.5 against 8.0). */
    if (size == 2 && !vector_mode(&layout->a, &compile->inputs[GEMM_A], size, GEMM_TILED_VECTOR, true)
            && !vector_mode(&layout->b, &compile->inputs[GEMM_B], size, GEMM_TILED_VECTOR, true))
        return false;
    if (spec[GEMM_SPEC_K] >= GEMM_TILED_SPLIT_MIN_K)
        split_k = choose_split_k(spec, GEMM_TILED_TILE, GEMM_TILED_TILE, tiled_default.tile_k);
    return tiles * split_k >= GEMM_TILED_MIN_TILES;
}

/* The fastest kernel whose preconditions hold, or the one VKDML_GEMM_KERNEL names. */
static HRESULT plan_gemm(const struct vkdml_compile *compile, const struct gemm_layout *layout, struct gemm_plan *plan)
{
    enum gemm_kernel requested = requested_kernel();
    const char *why_not = NULL;

    /* First: with one small side the cooperative-matrix and tiled kernels' tiles are mostly empty. */
    if (requested == GEMM_KERNEL_GEMV || requested == GEMM_KERNEL_AUTO)
    {
        if (!(why_not = plan_gemv(compile, layout, plan)))
            return S_OK;
    }
    if (requested == GEMM_KERNEL_COOPMAT || requested == GEMM_KERNEL_AUTO)
    {
        if (!(why_not = plan_coopmat(compile, layout, plan)))
            return S_OK;
    }
    if (requested == GEMM_KERNEL_TILED || (requested == GEMM_KERNEL_AUTO && tiled_pays(compile, layout, plan->spec)))
    {
        if (!(why_not = plan_tiled(compile, layout, plan)))
            return S_OK;
    }
    if (requested != GEMM_KERNEL_AUTO && requested != GEMM_KERNEL_GENERAL)
        return vkdml_op_error(compile->op, E_NOTIMPL, "VKDML_GEMM_KERNEL=%s cannot run this operator: %s.",
                kernel_names[requested], why_not);
    plan_general(compile, plan);
    return S_OK;
}

/* After a fast kernel that wrote split_k parts' sums: the temporary resource they need, and the
 * dispatch that adds them up, one thread per output (the main kernel's constants). */
static HRESULT add_split_reduce(struct vkdml_compile *compile, struct gemm_plan *plan)
{
    uint64_t count = (gemm_outputs(plan->spec) + GEMM_SPLIT_REDUCE_THREADS - 1) / GEMM_SPLIT_REDUCE_THREADS;
    bool fp32 = gemm_tensor(compile->op, GEMM_A)->DataType == DML_TENSOR_DATA_TYPE_FLOAT32;
    uint32_t groups[3];
    HRESULT hr;

    if (plan->split_k == 1)
        return S_OK;
    compile->temporary_size = vkdml_split_k_partial_size(gemm_outputs(plan->spec), plan->split_k);
    if (FAILED(hr = tile_groups(compile, count, groups)))
        return hr;
    return vkdml_compile_add_dispatch(compile, fp32 ? VKDML_KERNEL_GEMM_SPLIT_REDUCE_F32
            : VKDML_KERNEL_GEMM_SPLIT_REDUCE_F16, plan->spec, GEMM_SPLIT_SPEC_COUNT, NULL, 0, groups, true);
}

/* One dispatch over every output tile of every batch (and part of K, then the parts' sum). */
HRESULT vkdml_gemm_compile(struct vkdml_compile *compile)
{
    struct gemm_layout layout;
    struct gemm_plan plan;
    uint32_t groups[3];
    uint64_t tiles;
    HRESULT hr;

    memset(&plan, 0, sizeof(plan));
    plan.split_k = 1;
    gemm_layout_init(compile->op, &layout);
    fill_spec(compile, &layout, plan.spec);
    if (FAILED(hr = plan_gemm(compile, &layout, &plan)))
        return hr;
    plan.spec[GEMM_SPEC_SPLIT_K] = plan.split_k;
    plan.spec[GEMM_SPEC_PARTIAL_SLOT] = compile->temporary_slot;
    tiles = tiles_of(plan.spec, plan.tile_m, plan.tile_n);
    if (FAILED(hr = tile_groups(compile, tiles * plan.split_k, groups)))
        return hr;
    TRACE("GEMM %u batches of {%u,%u,%u}: %s, %ux%u tiles, K in %u part(s), %u x %u x %u workgroups.",
            plan.spec[GEMM_SPEC_BATCH_COUNT], layout.out.sizes[2], layout.out.sizes[3], layout.a.sizes[3],
            vkdml_kernel_get(plan.kernel)->name, plan.tile_m, plan.tile_n, plan.split_k, groups[0], groups[1],
            groups[2]);
    if (FAILED(hr = vkdml_compile_add_dispatch(compile, plan.kernel, plan.spec, plan.spec_count, NULL, 0, groups,
            false)))
        return hr;
    return add_split_reduce(compile, &plan);
}
