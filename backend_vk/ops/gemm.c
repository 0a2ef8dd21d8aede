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
 *     spreads over that many workgroups or into GEMM_TILED_SPLIT_PAYS parts: batch-1 rows);
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

static const DML_BUFFER_TENSOR_DESC *gemm_tensor(const struct vkdml_operator_view *op, enum gemm_tensor which)
{
    return which == GEMM_OUTPUT ? op->outputs[0] : op->inputs[which];
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

/* The kernels index elements with 32-bit signed SPIR-V access chains. */
static HRESULT validate_index_range(const struct vkdml_operator_view *op)
{
    const DML_BUFFER_TENSOR_DESC *t;
    unsigned int i;
    HRESULT hr;

    for (i = 0; i < GEMM_TENSOR_COUNT; ++i)
    {
        if ((t = gemm_tensor(op, i)) && FAILED(hr = vkdml_check_index_range(op, t, tensor_names[i])))
            return hr;
    }
    return S_OK;
}

/* A fused SOFTMAX (FL 6_1) reduces over rows: not an element-wise epilogue, but a softmax dispatch
 * over the output once the GEMM has written it (vkdml_softmax_add_fused()). */
static bool is_fused_softmax(const DML_OPERATOR_DESC *activation)
{
    return activation && (activation->Type == DML_OPERATOR_ACTIVATION_SOFTMAX
            || activation->Type == DML_OPERATOR_ACTIVATION_SOFTMAX1);
}

static HRESULT validate_activation(struct vkdml_backend_device *device, const struct vkdml_operator_view *op,
        const DML_OPERATOR_DESC *activation)
{
    HRESULT hr;

    if (!activation)
        return S_OK;
    if (FAILED(hr = vkdml_validate_fused_activation(op, activation)))
        return hr;
    if (is_fused_softmax(activation))
        return vkdml_softmax_validate_fused(device, op, activation, gemm_tensor(op, GEMM_OUTPUT));
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
    if (FAILED(hr = validate_activation(device, op, desc->FusedActivation)))
        return hr;
    return validate_index_range(op);
}

/* ---- The GEMM service: a problem's matrices ---- */

/* A matrix as the kernels see it: 4-D {batch0, batch1, rows, columns} and where it lives. */
struct gemm_matrix
{
    uint32_t sizes[4];
    uint32_t strides[4];
    struct vkdml_tensor_location location;
};

/* Exchanges the matrix's rows and columns (the batch dimensions stay). */
static void transpose_matrix(struct gemm_matrix *matrix)
{
    uint32_t swap;

    swap = matrix->sizes[2], matrix->sizes[2] = matrix->sizes[3], matrix->sizes[3] = swap;
    swap = matrix->strides[2], matrix->strides[2] = matrix->strides[3], matrix->strides[3] = swap;
}

static void set_strides(uint32_t *spec, const struct gemm_matrix *matrix)
{
    memcpy(spec, matrix->strides, sizeof(matrix->strides));
}

/* Outputs per thread along a dimension of `size`: up to GEMM_MAX_THREAD_TILE, fewer when the
 * matrix is smaller than a full tile (more, smaller workgroups keep the device busy). */
static uint32_t thread_tile(uint32_t size, uint32_t threads)
{
    return (uint32_t)VKDML_MIN((size + (uint64_t)threads - 1) / threads, GEMM_MAX_THREAD_TILE);
}

/* The four matrices of a problem, and the problem. */
struct gemm_layout
{
    const struct vkdml_gemm_problem *problem;
    struct gemm_matrix a, b, c, out;
    bool has_c;
};

static void matrix_init(struct gemm_matrix *matrix, const struct vkdml_gemm_problem *problem,
        const struct vkdml_gemm_operand *operand, uint32_t rows, uint32_t columns)
{
    matrix->sizes[0] = problem->batches[0];
    matrix->sizes[1] = problem->batches[1];
    matrix->sizes[2] = rows;
    matrix->sizes[3] = columns;
    memcpy(matrix->strides, operand->strides, sizeof(matrix->strides));
    matrix->location = operand->location;
}

static void gemm_layout_init(const struct vkdml_gemm_problem *problem, struct gemm_layout *layout)
{
    memset(layout, 0, sizeof(*layout));
    layout->problem = problem;
    matrix_init(&layout->a, problem, &problem->a, problem->m, problem->k);
    matrix_init(&layout->b, problem, &problem->b, problem->k, problem->n);
    matrix_init(&layout->out, problem, &problem->output, problem->m, problem->n);
    if ((layout->has_c = problem->has_c))
        matrix_init(&layout->c, problem, &problem->c, problem->m, problem->n);
}

/* Shapes, strides, tensor locations and attributes: gemm.comp's constants. */
static void fill_spec(const struct gemm_layout *layout, uint32_t *spec)
{
    const struct vkdml_gemm_problem *problem = layout->problem;

    spec[GEMM_SPEC_M] = layout->out.sizes[2];
    spec[GEMM_SPEC_N] = layout->out.sizes[3];
    spec[GEMM_SPEC_K] = layout->a.sizes[3];
    spec[GEMM_SPEC_BATCH1] = layout->out.sizes[1];
    spec[GEMM_SPEC_BATCH_COUNT] = layout->out.sizes[0] * layout->out.sizes[1];
    set_strides(&spec[GEMM_SPEC_A_STRIDES], &layout->a);
    set_strides(&spec[GEMM_SPEC_B_STRIDES], &layout->b);
    set_strides(&spec[GEMM_SPEC_OUT_STRIDES], &layout->out);
    vkdml_set_location(&spec[GEMM_SPEC_A_LOCATION], &layout->a.location);
    vkdml_set_location(&spec[GEMM_SPEC_B_LOCATION], &layout->b.location);
    vkdml_set_location(&spec[GEMM_SPEC_OUT_LOCATION], &layout->out.location);
    if (layout->has_c)
    {
        set_strides(&spec[GEMM_SPEC_C_STRIDES], &layout->c);
        vkdml_set_location(&spec[GEMM_SPEC_C_LOCATION], &layout->c.location);
        spec[GEMM_SPEC_HAS_C] = 1;
    }
    spec[GEMM_SPEC_ALPHA] = vkdml_float_bits(problem->alpha);
    spec[GEMM_SPEC_BETA] = vkdml_float_bits(problem->beta);
    spec[GEMM_SPEC_THREAD_M] = thread_tile(layout->out.sizes[2], GEMM_THREADS_Y);
    spec[GEMM_SPEC_THREAD_N] = thread_tile(layout->out.sizes[3], GEMM_THREADS_X);
    vkdml_fused_activation_spec(problem->activation, &spec[GEMM_SPEC_ACTIVATION]);
}

/* ---- Kernel choice ---- */

/* Below this many 128 x 128 output tiles (batches included) the general kernel's smaller tiles
 * spread better over the device than the tiled kernel's faster ones; and matrices that leave
 * most of each tile empty (many small batches) are the general kernel's too. */
#define GEMM_TILED_MIN_TILES 96
#define GEMM_TILED_MIN_FILL 0.5

/* The fast kernels' tiling; VKDML_GEMM_TUNE overrides what it names (checked by the callers). */
struct gemm_tuning
{
    uint32_t tile_m, tile_n, tile_k, stages, group_m, subgroups_m, subgroups_n;
    uint32_t split_k;                   /* workgroups per tile, each summing a part of K */
};

/* VKDML_GEMM_TUNE's numbers, where it has them, over `tuning`. */
static void read_tuning(const struct vkdml_compile *compile, struct gemm_tuning *tuning)
{
    const struct vkdml_tuning_knob *knob = &compile->knobs->gemm_tune;
    uint32_t *fields[] = {&tuning->tile_m, &tuning->tile_n, &tuning->tile_k, &tuning->stages, &tuning->group_m,
            &tuning->subgroups_m, &tuning->subgroups_n, &tuning->split_k};
    unsigned int i;

    for (i = 0; i < knob->count && i < ARRAY_SIZE(fields); ++i)
    {
        if (knob->values[i])
            *fields[i] = knob->values[i];
    }
}

static unsigned int element_size(const struct gemm_layout *layout)
{
    return vkdml_element_size(layout->problem->data_type);
}

/* Vectors of `lanes` elements along dimension `dim` (2: the matrix's first, 3: its second) are
 * whole inside the matrix and aligned: that dimension is contiguous and a multiple of the vector,
 * every other stride in use is a multiple of the vector, and the tensor's offset is a multiple of
 * the vector's bytes (bindings themselves are 16-byte aligned: DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT). */
static bool vectorizable_by(const struct gemm_matrix *matrix, unsigned int size, unsigned int dim, unsigned int lanes)
{
    unsigned int d;

    if (matrix->strides[dim] != 1 || matrix->sizes[dim] % lanes || matrix->location.offset % (lanes * size))
        return false;
    for (d = 0; d < 4; ++d)
    {
        if (d != dim && matrix->sizes[d] > 1 && matrix->strides[d] % lanes)
            return false;
    }
    return true;
}

/* The same for 16-byte vectors, the fast kernels' loads and stores. */
static bool vectorizable(const struct gemm_matrix *matrix, unsigned int size, unsigned int dim)
{
    return vectorizable_by(matrix, size, dim, 16 / size);
}

static uint32_t vector_mode(const struct gemm_matrix *matrix, unsigned int size, unsigned int lanes, bool column_major)
{
    if (vectorizable_by(matrix, size, 3, lanes))
        return GEMM_VECTOR_ROW_MAJOR;
    if (column_major && vectorizable_by(matrix, size, 2, lanes))
        return GEMM_VECTOR_COLUMN_MAJOR;
    return GEMM_VECTOR_NONE;
}

/* The fast kernels' vector modes for vectors of `lanes` elements (gemm_coopmat.comp: 16 bytes;
 * gemm_tiled.comp: 4 values of either type). */
static void set_vector_modes(const struct gemm_layout *layout, unsigned int lanes, uint32_t *spec)
{
    unsigned int size = element_size(layout);

    spec[GEMM_SPEC_A_VECTOR] = vector_mode(&layout->a, size, lanes, true);
    spec[GEMM_SPEC_B_VECTOR] = vector_mode(&layout->b, size, lanes, true);
    if (layout->has_c)
        spec[GEMM_SPEC_C_VECTOR] = vector_mode(&layout->c, size, lanes, false);
    spec[GEMM_SPEC_OUT_VECTOR] = vector_mode(&layout->out, size, lanes, false);
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
static uint32_t tuned_split_k(const struct vkdml_compile *compile, const uint32_t *spec, uint32_t requested,
        uint32_t split_k)
{
    if (!requested)
        return split_k;
    if (vkdml_split_k_valid(gemm_outputs(spec), requested))
        return requested;
    WARN("Ignoring split_k=%u of VKDML_GEMM_TUNE=%s: want 1 to %u parts whose sums take at most 1 GiB.",
            requested, compile->knobs->gemm_tune.text, VKDML_MAX_SPLIT_K);
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

    read_tuning(compile, &tuning);
    if (tuning.tile_k != 8 && tuning.tile_k != 16)
        tuning.tile_k = 8;
    /* Two stages of A (rows padded by 4 floats) and B, K-major. */
    shared = 2 * tuning.tile_k * (2 * GEMM_TILED_TILE + 4) * 4;
    if (shared > shared_limit(compile) && tuning.tile_k > 8)
        shared = 2 * (tuning.tile_k = 8) * (2 * GEMM_TILED_TILE + 4) * 4;
    if (shared > shared_limit(compile))
        return "the device has too little shared memory";
    /* fp32 arithmetic for FLOAT16 too: half precision is a permission. */
    plan->kernel = element_size(layout) == 2 ? VKDML_KERNEL_GEMM_TILED_F16 : VKDML_KERNEL_GEMM_TILED_F32;
    plan->spec_count = GEMM_SPLIT_SPEC_COUNT;
    plan->tile_m = plan->tile_n = GEMM_TILED_TILE;
    plan->spec[GEMM_SPEC_TILE_M] = plan->spec[GEMM_SPEC_TILE_N] = GEMM_TILED_TILE;
    plan->spec[GEMM_SPEC_TILE_K] = tuning.tile_k;
    plan->spec[GEMM_SPEC_GROUP_M] = tuning.group_m;
    set_vector_modes(layout, GEMM_TILED_VECTOR, plan->spec);
    plan->split_k = tuned_split_k(compile, plan->spec, tuning.split_k,
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
    const char *tune = compile->knobs->gemm_tune.text, *why_not;
    struct gemm_tuning tuning, requested;

    if (layout->problem->data_type != DML_TENSOR_DATA_TYPE_FLOAT16)
        return "it is the FLOAT16 kernel";
    if ((why_not = vkdml_caps_coopmat_f16_missing(&compile->vk->caps)))
        return why_not;
    set_vector_modes(layout, 16 / element_size(layout), plan->spec);
    default_coopmat_tuning(plan->spec, shared_limit(compile), &tuning);
    requested = tuning;
    read_tuning(compile, &requested);
    if (valid_coopmat_tuning(plan->spec, &requested, shared_limit(compile)))
        tuning = requested;
    else if (*tune)
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
    plan->split_k = tuned_split_k(compile, plan->spec, tuning.split_k,
            tiles_of(plan->spec, tuning.tile_m, tuning.tile_n) < GEMM_COOPMAT_MIN_TILES
            ? VKDML_MIN(choose_split_k(plan->spec, tuning.tile_m, tuning.tile_n, tuning.tile_k),
            GEMM_COOPMAT_MAX_DEFAULT_SPLIT) : 1);
    return NULL;
}

static void plan_general(const struct vkdml_compile *compile, const struct gemm_layout *layout,
        struct gemm_plan *plan)
{
    DML_TENSOR_DATA_TYPE type = layout->problem->data_type;

    plan->spec_count = GEMM_SPEC_COUNT;
    plan->tile_m = GEMM_THREADS_Y * plan->spec[GEMM_SPEC_THREAD_M];
    plan->tile_n = GEMM_THREADS_X * plan->spec[GEMM_SPEC_THREAD_N];
    if (type == DML_TENSOR_DATA_TYPE_FLOAT32)
        plan->kernel = VKDML_KERNEL_GEMM_F32;
    else if (vkdml_half_compute(compile))
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

/* How gemm_gemv.comp reads B (the kernel's large operand, {K, N}) and splits its threads. */
struct gemv_shape
{
    bool k_fastest;                     /* the thread index runs along K */
    uint32_t b_vector;                  /* GEMM_VECTOR_COLUMN_MAJOR: 16 bytes along K; _ROW_MAJOR:
                                         * `columns` values along N; _NONE: scalars */
    uint32_t columns, threads_n;
};

static void choose_gemv_shape(const struct gemm_matrix *b, unsigned int size, uint32_t small,
        struct gemv_shape *shape)
{
    uint32_t max_columns = GEMM_GEMV_MAX_PARTIALS / small, k = b->sizes[2], n = b->sizes[3];
    uint32_t k_blocks = (k + 16 / size - 1) / (16 / size), threads_k, lanes;

    memset(shape, 0, sizeof(*shape));
    shape->columns = VKDML_MIN(GEMM_GEMV_COLUMNS, max_columns);
    shape->b_vector = GEMM_VECTOR_NONE;
    /* Threads run along B's contiguous direction: along K when B has 16-byte vectors there, else
     * along its smaller stride; N on a tie (K = 1: B is one row, with vectors along N). */
    if ((shape->k_fastest = vectorizable(b, size, 2)))
        shape->b_vector = GEMM_VECTOR_COLUMN_MAJOR;
    else if (!(shape->k_fastest = b->strides[2] < b->strides[3]))
    {
        /* The widest vector along N, 16 bytes down to 4, whose partials (rows x lanes) fit. */
        for (lanes = VKDML_MIN(16 / size, vkdml_pow2_at_most(max_columns)); lanes >= 2 && lanes * size >= 4; lanes /= 2)
        {
            if (vectorizable_by(b, size, 3, lanes))
            {
                shape->b_vector = GEMM_VECTOR_ROW_MAJOR;
                shape->columns = lanes;
                break;
            }
        }
    }

    /* Enough threads along K that each takes about GEMM_GEMV_MIN_STEPS blocks of it, the rest
     * along N, but no more along N than the columns need, nor fewer than whole row segments. */
    threads_k = VKDML_MIN(vkdml_pow2_at_least((k_blocks + GEMM_GEMV_MIN_STEPS - 1) / GEMM_GEMV_MIN_STEPS), GEMM_GEMV_THREADS);
    shape->threads_n = GEMM_GEMV_THREADS / threads_k;
    if (!shape->k_fastest)
        shape->threads_n = VKDML_MAX(shape->threads_n,
                vkdml_pow2_at_least(GEMM_GEMV_MIN_ROW_BYTES / (shape->columns * size)));
    shape->threads_n = VKDML_MIN(shape->threads_n, vkdml_pow2_at_least((n + shape->columns - 1) / shape->columns));
}

/* NULL when gemm_gemv.comp can run the operator (then the plan is filled), else why not. */
static const char *plan_gemv(const struct vkdml_compile *compile, const struct gemm_layout *layout,
        struct gemm_plan *plan)
{
    DML_TENSOR_DATA_TYPE type = layout->problem->data_type;
    uint32_t m = layout->out.sizes[2], n = layout->out.sizes[3], small = VKDML_MIN(m, n), shared;
    unsigned int size = element_size(layout);
    bool transposed = n < m, half = type == DML_TENSOR_DATA_TYPE_FLOAT16 && vkdml_half_compute(compile);
    struct gemm_layout view = *layout;
    struct gemv_shape shape;

    if (small > GEMM_GEMV_MAX_SIDE)
        return vkdml_debug_sprintf("M=%u and N=%u are both above GEMM_GEMV_MAX_SIDE=%u", m, n, GEMM_GEMV_MAX_SIDE);
    /* The kernel's M is the small side. */
    if (transposed)
        transpose_layout(layout, &view);
    choose_gemv_shape(&view.b, size, small, &shape);
    shared = GEMM_GEMV_THREADS * small * shape.columns * (half ? 2 : 4);
    if (shared > shared_limit(compile))
        return "the device has too little shared memory";

    fill_spec(&view, plan->spec);
    plan->spec[GEMM_SPEC_A_VECTOR] = vectorizable(&view.a, size, 3)
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
/* Parts of K (the default split) from which the tiled kernel wins however few its tiles. */
#define GEMM_TILED_SPLIT_PAYS 8

static bool tiled_pays(const struct vkdml_compile *compile, const struct gemm_layout *layout, const uint32_t *spec)
{
    uint64_t tiles = tiles_of(spec, GEMM_TILED_TILE, GEMM_TILED_TILE);
    unsigned int size = element_size(layout);
    uint32_t split_k = 1;

    /* FLOAT16 with neither A nor B in vectors loses to the general kernel (H200, no cooperative
     * matrices: 4095^3 16.7 against 24.4 TFLOP/s; A in vectors, 333x4096x777: 17.5 against 8.0). */
    if (size == 2 && !vector_mode(&layout->a, size, GEMM_TILED_VECTOR, true)
            && !vector_mode(&layout->b, size, GEMM_TILED_VECTOR, true))
        return false;
    /* Few tiles (rows or columns of batch-1 inference) and a long K: split-K's parts keep the
     * GPU busy, however empty the tiles (H200, FLOAT32, us: 49x2048x512 126.1 on the general kernel
     * against 26.7 in 16 parts; 196x1024x256 66.9 against 28.5 in 8; 16x4096x4096 256.3 against
     * 144.5 in 16). */
    if (choose_split_k(spec, GEMM_TILED_TILE, GEMM_TILED_TILE, tiled_default.tile_k) >= GEMM_TILED_SPLIT_PAYS)
        return true;
    if (gemm_outputs(spec) < GEMM_TILED_MIN_FILL * tiles * GEMM_TILED_TILE * GEMM_TILED_TILE)
        return false;
    if (spec[GEMM_SPEC_K] >= GEMM_TILED_SPLIT_MIN_K)
        split_k = choose_split_k(spec, GEMM_TILED_TILE, GEMM_TILED_TILE, tiled_default.tile_k);
    return tiles * split_k >= GEMM_TILED_MIN_TILES;
}

/* The fastest kernel whose preconditions hold, or the one VKDML_GEMM_KERNEL names. */
static HRESULT plan_gemm(const struct vkdml_compile *compile, const struct gemm_layout *layout, struct gemm_plan *plan)
{
    enum vkdml_gemm_kernel_knob requested = compile->knobs->gemm_kernel;
    const char *why_not = NULL;

    /* First: with one small side the cooperative-matrix and tiled kernels' tiles are mostly empty. */
    if (requested == VKDML_GEMM_KERNEL_GEMV || requested == VKDML_GEMM_KERNEL_AUTO)
    {
        if (!(why_not = plan_gemv(compile, layout, plan)))
            return S_OK;
    }
    if (requested == VKDML_GEMM_KERNEL_COOPMAT || requested == VKDML_GEMM_KERNEL_AUTO)
    {
        if (!(why_not = plan_coopmat(compile, layout, plan)))
            return S_OK;
    }
    if (requested == VKDML_GEMM_KERNEL_TILED
            || (requested == VKDML_GEMM_KERNEL_AUTO && tiled_pays(compile, layout, plan->spec)))
    {
        if (!(why_not = plan_tiled(compile, layout, plan)))
            return S_OK;
    }
    if (requested != VKDML_GEMM_KERNEL_AUTO && requested != VKDML_GEMM_KERNEL_GENERAL)
        return vkdml_op_error(compile->op, E_NOTIMPL, "VKDML_GEMM_KERNEL=%s cannot run this operator: %s.",
                vkdml_gemm_kernel_names[requested], why_not);
    plan_general(compile, layout, plan);
    return S_OK;
}

/* After a fast kernel that wrote split_k parts' sums (at GEMM_SPEC_PARTIAL_OFFSET): the dispatch
 * that adds them up, one thread per output (the main kernel's constants). */
static HRESULT add_split_reduce(struct vkdml_compile *compile, const struct gemm_layout *layout,
        const struct gemm_plan *plan)
{
    uint64_t count = (gemm_outputs(plan->spec) + GEMM_SPLIT_REDUCE_THREADS - 1) / GEMM_SPLIT_REDUCE_THREADS;
    bool fp32 = layout->problem->data_type == DML_TENSOR_DATA_TYPE_FLOAT32;
    uint32_t groups[3];
    HRESULT hr;

    if (plan->split_k == 1)
        return S_OK;
    if (FAILED(hr = vkdml_spread_groups(compile, count, groups)))
        return hr;
    return vkdml_compile_add_dispatch(compile, fp32 ? VKDML_KERNEL_GEMM_SPLIT_REDUCE_F32
            : VKDML_KERNEL_GEMM_SPLIT_REDUCE_F16, plan->spec, GEMM_SPLIT_SPEC_COUNT, NULL, 0, groups, true);
}

/* Split-K's partial sums go after what the caller already keeps in the temporary resource. */
static void place_partial_sums(struct vkdml_compile *compile, struct gemm_plan *plan)
{
    uint64_t offset = VKDML_ALIGN_UP(compile->temporary_size, 256);

    plan->spec[GEMM_SPEC_SPLIT_K] = plan->split_k;
    plan->spec[GEMM_SPEC_PARTIAL_SLOT] = compile->temporary_slot;
    if (plan->split_k == 1)
        return;
    plan->spec[GEMM_SPEC_PARTIAL_OFFSET] = (uint32_t)offset;
    plan->spec[GEMM_SPEC_PARTIAL_OFFSET + 1] = (uint32_t)(offset >> 32);
    compile->temporary_size = offset + vkdml_split_k_partial_size(gemm_outputs(plan->spec), plan->split_k);
}

HRESULT vkdml_gemm_add_dispatches(struct vkdml_compile *compile, const struct vkdml_gemm_problem *problem)
{
    struct gemm_layout layout;
    struct gemm_plan plan;
    uint32_t groups[3];
    uint64_t tiles;
    HRESULT hr;

    memset(&plan, 0, sizeof(plan));
    plan.split_k = 1;
    gemm_layout_init(problem, &layout);
    fill_spec(&layout, plan.spec);
    if (FAILED(hr = plan_gemm(compile, &layout, &plan)))
        return hr;
    place_partial_sums(compile, &plan);
    tiles = tiles_of(plan.spec, plan.tile_m, plan.tile_n);
    if (FAILED(hr = vkdml_spread_groups(compile, tiles * plan.split_k, groups)))
        return hr;
    TRACE("GEMM %u batches of {%u,%u,%u}: %s, %ux%u tiles, K in %u part(s), %u x %u x %u workgroups.",
            plan.spec[GEMM_SPEC_BATCH_COUNT], problem->m, problem->n, problem->k,
            vkdml_kernel_get(plan.kernel)->name, plan.tile_m, plan.tile_n, plan.split_k, groups[0], groups[1],
            groups[2]);
    if (FAILED(hr = vkdml_compile_add_dispatch(compile, plan.kernel, plan.spec, plan.spec_count, NULL, 0, groups,
            false)))
        return hr;
    return add_split_reduce(compile, &layout, &plan);
}

/* ---- DML_OPERATOR_GEMM: its desc as a problem ---- */

/* Leading dimensions DirectML leaves out (rank 2 or 3) are batches of 1 (stride 0); the transpose
 * is folded into the strides. */
static void gemm_operand_init(struct vkdml_gemm_operand *operand, const DML_BUFFER_TENSOR_DESC *tensor,
        const struct vkdml_tensor_location *location, bool transpose)
{
    uint32_t pad = 4 - tensor->DimensionCount, swap, i;

    memset(operand->strides, 0, sizeof(operand->strides));
    for (i = pad; i < 4; ++i)
        operand->strides[i] = vkdml_tensor_stride(tensor, i - pad);
    if (transpose)
        swap = operand->strides[2], operand->strides[2] = operand->strides[3], operand->strides[3] = swap;
    operand->location = *location;
}

HRESULT vkdml_gemm_compile(struct vkdml_compile *compile)
{
    const struct vkdml_operator_view *op = compile->op;
    const DML_BUFFER_TENSOR_DESC *output = gemm_tensor(op, GEMM_OUTPUT), *a = gemm_tensor(op, GEMM_A);
    const DML_GEMM_OPERATOR_DESC *desc = op->desc;
    bool trans_a = desc->TransA == DML_MATRIX_TRANSFORM_TRANSPOSE;
    uint32_t rank = output->DimensionCount;
    struct vkdml_gemm_problem problem;
    HRESULT hr;

    memset(&problem, 0, sizeof(problem));
    problem.data_type = output->DataType;
    problem.m = output->Sizes[rank - 2];
    problem.n = output->Sizes[rank - 1];
    problem.k = a->Sizes[trans_a ? rank - 2 : rank - 1];
    problem.batches[0] = rank == 4 ? output->Sizes[0] : 1;
    problem.batches[1] = rank >= 3 ? output->Sizes[rank - 3] : 1;
    gemm_operand_init(&problem.a, a, &compile->inputs[GEMM_A], trans_a);
    gemm_operand_init(&problem.b, gemm_tensor(op, GEMM_B), &compile->inputs[GEMM_B],
            desc->TransB == DML_MATRIX_TRANSFORM_TRANSPOSE);
    gemm_operand_init(&problem.output, output, &compile->outputs[0], false);
    if ((problem.has_c = !!gemm_tensor(op, GEMM_C)))
        gemm_operand_init(&problem.c, gemm_tensor(op, GEMM_C), &compile->inputs[GEMM_C], false);
    problem.alpha = desc->Alpha;
    problem.beta = desc->Beta;
    problem.activation = is_fused_softmax(desc->FusedActivation) ? NULL : desc->FusedActivation;
    if (FAILED(hr = vkdml_gemm_add_dispatches(compile, &problem)) || !is_fused_softmax(desc->FusedActivation))
        return hr;
    return vkdml_softmax_add_fused(compile, desc->FusedActivation, output, &compile->outputs[0]);
}
