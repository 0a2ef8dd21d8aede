/*
 * The cumulative family: DML_OPERATOR_CUMULATIVE_SUMMATION (FL 2_1) and
 * DML_OPERATOR_CUMULATIVE_PRODUCT (FL 3_1). DirectML's rules, the choice of
 * kernels_glsl/scan.comp's algorithm and tiling, and its dispatches (scan_interface.h).
 *
 * DirectML's rules (DML_CUMULATIVE_SUMMATION_OPERATOR_DESC, DML_CUMULATIVE_PRODUCT_OPERATOR_DESC):
 * Axis is less than the input's DimensionCount; the output has the input's sizes and data type
 * (the schema checks the type and rank); AxisDirection DECREASING scans from the end of the axis;
 * HasExclusiveSum / HasExclusiveProduct leaves the element itself out (the first gets 0 or 1).
 * Integers wrap; FLOAT16 accumulates in fp32. The output may be bound over the input.
 */

#include <inttypes.h>
#include <stddef.h>
#include <string.h>

#include "ops_private.h"
#include "scan_interface.h"

/* Both descs have the same layout (DirectML.h): a product's desc is read as a summation's. */
_Static_assert(sizeof(DML_CUMULATIVE_SUMMATION_OPERATOR_DESC) == sizeof(DML_CUMULATIVE_PRODUCT_OPERATOR_DESC),
        "cumulative descs");
_Static_assert(offsetof(DML_CUMULATIVE_SUMMATION_OPERATOR_DESC, HasExclusiveSum)
        == offsetof(DML_CUMULATIVE_PRODUCT_OPERATOR_DESC, HasExclusiveProduct), "cumulative descs");

/* The largest workgroups. */
#define ROW_MAX_THREADS 256
#define COLUMN_MAX_THREADS 256
/* The column algorithm's invocations along the axis at most: each adds the totals of all of them
 * in every chunk, sequentially (COLUMN_MAX_ALONG / SCAN_COLUMN_ITEMS operations per element). */
#define COLUMN_MAX_ALONG SCAN_COLUMN_ITEMS
/* Tiling (scan_interface.h): below these many workgroups a big GPU idles, so lines are cut into
 * tiles of at least ROW_MIN_TILE_CHUNKS or COLUMN_MIN_TILE_CHUNKS chunks. The column algorithm
 * also narrows its strips down to one vector per row of invocations first. */
#define ROW_TARGET_GROUPS 1024
#define ROW_MIN_TILE_CHUNKS 2
#define COLUMN_TARGET_GROUPS 256
#define COLUMN_MIN_TILE_CHUNKS 2

/* ---- Validation ---- */

HRESULT vkdml_cumulative_validate(struct vkdml_backend_device *device, const struct vkdml_operator_view *op)
{
    const DML_CUMULATIVE_SUMMATION_OPERATOR_DESC *desc = op->desc;
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[0];
    HRESULT hr;

    if (FAILED(hr = vkdml_validate_axis(op, desc->Axis, input, "InputTensor")))
        return hr;
    if (FAILED(hr = vkdml_validate_same_sizes(op, op->outputs[0], "OutputTensor", op->inputs[0], "InputTensor")))
        return hr;
    if (FAILED(hr = vkdml_check_subgroup_reductions(device, op)))
        return hr;
    if (FAILED(hr = vkdml_check_index_range(op, input, "InputTensor")))
        return hr;
    return vkdml_check_index_range(op, op->outputs[0], "OutputTensor");
}

/* ---- Compilation ---- */

struct scan_plan
{
    uint32_t algorithm, threads, across, vector, tiles, tile_length, lines, length;
    enum vkdml_kernel_id kernel;
};

/* The row algorithm where the axis is the output's innermost moving dimension (a line's loads
 * coalesce) and a line fills at least half of a subgroup's chunk; else the column algorithm
 * (neighbouring lines are neighbouring addresses, or lines too short to keep a subgroup busy). */
static bool use_rows(const struct vkdml_compile *compile, const struct vkdml_axes_layout *layout, uint32_t length)
{
    if (length < compile->vk->caps.subgroup_size * SCAN_ITEMS / 2)
        return false;
    return !layout->kept_count || layout->reduced_strides[1][0] < layout->kept_strides[1][layout->kept_count - 1];
}

/* Whether every stride in `strides[count]` of both tensors is a multiple of `lanes`, `skip` aside. */
static bool strides_multiple_of(const uint32_t strides[][VKDML_MAX_RANK], uint32_t count, uint32_t skip,
        uint32_t lanes)
{
    uint32_t t, i;

    for (t = 0; t < 2; ++t)
    {
        for (i = 0; i < count; ++i)
        {
            if (i != skip && strides[t][i] % lanes)
                return false;
        }
    }
    return true;
}

/* Elements per access (scan_interface.h, VECTOR: 16 bytes, SCAN_COLUMN_MAX_VECTOR elements at
 * most across lines) where every access stays whole and aligned, else 1: the contiguous dimension
 * (the axis for rows, the innermost kept dimension for columns) has stride 1 in both tensors and a
 * size multiple of the vector, every other stride is a multiple of it, and both tensors' offsets
 * are multiples of 16 bytes (bindings themselves are: DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT). */
static uint32_t vector_elements(const struct vkdml_compile *compile, const struct vkdml_axes_layout *layout,
        bool along_axis)
{
    unsigned int size = vkdml_element_size(compile->op->inputs[0]->DataType);
    uint32_t lanes = size ? SCAN_VECTOR_BYTES / size : 1, last = layout->kept_count - 1;

    if (!along_axis && lanes > SCAN_COLUMN_MAX_VECTOR)
        lanes = SCAN_COLUMN_MAX_VECTOR;

    if (lanes < 2 || lanes > SCAN_MAX_VECTOR || compile->inputs[0].offset % SCAN_VECTOR_BYTES
            || compile->outputs[0].offset % SCAN_VECTOR_BYTES)
        return 1;
    if (along_axis)
    {
        if (!layout->reduced_count || layout->reduced_strides[0][0] != 1 || layout->reduced_strides[1][0] != 1
                || layout->reduced_elements % lanes)
            return 1;
        return strides_multiple_of(layout->kept_strides, layout->kept_count, UINT32_MAX, lanes) ? lanes : 1;
    }
    if (!layout->kept_count || layout->kept_strides[0][last] != 1 || layout->kept_strides[1][last] != 1
            || layout->kept_sizes[last] % lanes)
        return 1;
    if (!strides_multiple_of(layout->reduced_strides, layout->reduced_count, UINT32_MAX, lanes))
        return 1;
    return strides_multiple_of(layout->kept_strides, layout->kept_count, last, lanes) ? lanes : 1;
}

/* `wanted`, or the largest power of 2 below it that the device's workgroups hold. */
static uint32_t fit_threads(const struct vkdml_compile *compile, uint32_t wanted)
{
    const VkPhysicalDeviceLimits *limits = &compile->vk->caps.properties.limits;

    while (wanted > 1 && (wanted > limits->maxComputeWorkGroupSize[0]
            || wanted > limits->maxComputeWorkGroupInvocations))
        wanted >>= 1;
    return wanted;
}

/* Tiles of whole chunks, enough for `target` workgroups over `units` of them (lines or strips). */
static void plan_tiles(struct scan_plan *plan, uint32_t units, uint32_t target, uint32_t chunk,
        uint32_t min_tile_chunks)
{
    uint32_t chunks = vkdml_div_up(plan->length, chunk), wanted, per_tile;

    wanted = units >= target ? 1 : vkdml_div_up(target, units);
    per_tile = vkdml_div_up(chunks, wanted);
    per_tile = per_tile < min_tile_chunks ? min_tile_chunks : per_tile;
    plan->tiles = vkdml_div_up(chunks, per_tile);
    plan->tile_length = plan->tiles > 1 ? per_tile * chunk : plan->length;
}

/* Vectors where the line is long enough to give each lane a vector per group of the chunk. */
static void plan_rows(const struct vkdml_compile *compile, const struct vkdml_axes_layout *layout,
        struct scan_plan *plan)
{
    uint32_t subgroup = compile->vk->caps.subgroup_size, max_threads = fit_threads(compile, ROW_MAX_THREADS);
    uint32_t chunk;

    plan->algorithm = SCAN_ALGORITHM_ROW;
    plan->across = 1;
    plan->vector = vector_elements(compile, layout, true);
    if (plan->length < subgroup * SCAN_ITEMS * plan->vector / 2)
        plan->vector = 1;
    plan->threads = vkdml_pow2_at_least(vkdml_div_up(plan->length, SCAN_ITEMS * plan->vector));
    plan->threads = plan->threads > max_threads ? max_threads : plan->threads;
    plan->threads = plan->threads < subgroup ? subgroup : plan->threads;
    chunk = plan->threads * SCAN_ITEMS * plan->vector;
    plan_tiles(plan, plan->lines, ROW_TARGET_GROUPS, chunk, ROW_MIN_TILE_CHUNKS);
}

/* Invocations along the axis for the line's length (COLUMN_MAX_ALONG at most), then across as
 * many vectors of lines as keep COLUMN_TARGET_GROUPS strips (or fill a subgroup), as the
 * workgroup and its shared memory (two totals per invocation and line) allow. */
static void plan_columns(const struct vkdml_compile *compile, const struct vkdml_axes_layout *layout,
        struct scan_plan *plan)
{
    uint32_t max_threads = fit_threads(compile, COLUMN_MAX_THREADS), along, across, vectors;
    uint32_t shared = compile->vk->caps.properties.limits.maxComputeSharedMemorySize;

    plan->algorithm = SCAN_ALGORITHM_COLUMN;
    plan->vector = vector_elements(compile, layout, false);
    vectors = plan->lines / plan->vector;
    along = vkdml_pow2_at_least(vkdml_div_up(plan->length, SCAN_COLUMN_ITEMS));
    along = along > COLUMN_MAX_ALONG ? COLUMN_MAX_ALONG : along;
    along = along > max_threads ? max_threads : along;
    across = vkdml_pow2_at_most(vectors / COLUMN_TARGET_GROUPS ? vectors / COLUMN_TARGET_GROUPS : 1);
    while (across * along < compile->vk->caps.subgroup_size && across < vectors)
        across <<= 1;
    while (across > 1 && (across * along > max_threads
            || (uint64_t)across * along * plan->vector * 2 * sizeof(uint32_t[2]) > shared))
        across >>= 1;
    plan->across = across;
    plan->threads = across * along;
    plan_tiles(plan, vkdml_div_up(vectors, across), COLUMN_TARGET_GROUPS, along * SCAN_COLUMN_ITEMS,
            COLUMN_MIN_TILE_CHUNKS);
}

/* The layout's kept dimensions fill the last SCAN_MAX_KEPT slots; the leading ones keep size 1. */
static void fill_layout_spec(const struct vkdml_axes_layout *layout, uint32_t spec[SCAN_SPEC_COUNT])
{
    uint32_t first = SCAN_MAX_KEPT - layout->kept_count, i;

    for (i = 0; i < SCAN_MAX_KEPT; ++i)
        spec[SCAN_SPEC_KEPT_SIZES + i] = 1;
    for (i = 0; i < layout->kept_count; ++i)
    {
        spec[SCAN_SPEC_KEPT_SIZES + first + i] = layout->kept_sizes[i];
        spec[SCAN_SPEC_IN_KEPT_STRIDES + first + i] = layout->kept_strides[0][i];
        spec[SCAN_SPEC_OUT_KEPT_STRIDES + first + i] = layout->kept_strides[1][i];
    }
    if (layout->reduced_count)
    {
        spec[SCAN_SPEC_AXIS_STRIDES + 0] = layout->reduced_strides[0][0];
        spec[SCAN_SPEC_AXIS_STRIDES + 1] = layout->reduced_strides[1][0];
    }
}

static void fill_spec(const struct vkdml_compile *compile, const struct scan_plan *plan,
        const struct vkdml_axes_layout *layout, uint32_t spec[SCAN_SPEC_COUNT])
{
    const DML_CUMULATIVE_SUMMATION_OPERATOR_DESC *desc = compile->op->desc;

    spec[SCAN_SPEC_ALGORITHM] = plan->algorithm;
    spec[SCAN_SPEC_THREADS] = plan->threads;
    spec[SCAN_SPEC_TYPE] = compile->op->inputs[0]->DataType;
    spec[SCAN_SPEC_PRODUCT] = compile->op->type == DML_OPERATOR_CUMULATIVE_PRODUCT;
    spec[SCAN_SPEC_EXCLUSIVE] = !!desc->HasExclusiveSum;
    spec[SCAN_SPEC_REVERSE] = desc->AxisDirection == DML_AXIS_DIRECTION_DECREASING;
    spec[SCAN_SPEC_LENGTH] = plan->length;
    spec[SCAN_SPEC_LINES] = plan->lines;
    spec[SCAN_SPEC_TILES] = plan->tiles;
    spec[SCAN_SPEC_TILE_LENGTH] = plan->tile_length;
    spec[SCAN_SPEC_VECTOR] = plan->vector;
    spec[SCAN_SPEC_ACROSS] = plan->across;
    fill_layout_spec(layout, spec);
    vkdml_set_location(&spec[SCAN_SPEC_IN_LOCATION], &compile->inputs[0]);
    vkdml_set_location(&spec[SCAN_SPEC_OUT_LOCATION], &compile->outputs[0]);
}

/* The tiles' totals go after what the temporary resource already holds. */
static void place_totals(struct vkdml_compile *compile, const struct scan_plan *plan, uint32_t spec[SCAN_SPEC_COUNT])
{
    struct vkdml_tensor_location totals = {compile->temporary_slot, VKDML_ALIGN_UP(compile->temporary_size, 256)};

    vkdml_set_location(&spec[SCAN_SPEC_TOTALS_LOCATION], &totals);
    if (plan->tiles > 1)
        compile->temporary_size = totals.offset + (uint64_t)plan->lines * plan->tiles * sizeof(uint32_t[2]);
}

static HRESULT add_dispatches(struct vkdml_compile *compile, const struct scan_plan *plan,
        uint32_t spec[SCAN_SPEC_COUNT])
{
    uint64_t units = (uint64_t)plan->lines * plan->tiles;
    uint32_t groups[3];
    HRESULT hr;

    if (plan->algorithm == SCAN_ALGORITHM_COLUMN)
        units = (uint64_t)vkdml_div_up(plan->lines, plan->across * plan->vector) * plan->tiles;
    if (FAILED(hr = vkdml_spread_groups(compile, units, groups)))
        return hr;
    TRACE("%s: %s, %s, %u lines of %u, %u tile(s) of %u, vectors of %u, %u threads (%u across), "
            "%u x %u x %u workgroups.",
            compile->op->type == DML_OPERATOR_CUMULATIVE_PRODUCT ? "CUMULATIVE_PRODUCT" : "CUMULATIVE_SUMMATION",
            vkdml_kernel_get(plan->kernel)->name, plan->algorithm == SCAN_ALGORITHM_ROW ? "rows" : "columns",
            plan->lines, plan->length, plan->tiles, plan->tile_length, plan->vector, plan->threads, plan->across,
            groups[0], groups[1], groups[2]);
    if (plan->tiles > 1)
    {
        spec[SCAN_SPEC_PASS] = SCAN_PASS_TOTALS;
        if (FAILED(hr = vkdml_compile_add_dispatch(compile, plan->kernel, spec, SCAN_SPEC_COUNT, NULL, 0, groups,
                false)))
            return hr;
    }
    spec[SCAN_SPEC_PASS] = SCAN_PASS_SCAN;
    return vkdml_compile_add_dispatch(compile, plan->kernel, spec, SCAN_SPEC_COUNT, NULL, 0, groups, plan->tiles > 1);
}

HRESULT vkdml_cumulative_compile(struct vkdml_compile *compile)
{
    const DML_CUMULATIVE_SUMMATION_OPERATOR_DESC *desc = compile->op->desc;
    const DML_BUFFER_TENSOR_DESC *tensors[2] = {compile->op->inputs[0], compile->op->outputs[0]};
    DML_TENSOR_DATA_TYPE type = tensors[0]->DataType;
    uint32_t spec[SCAN_SPEC_COUNT] = {0};
    struct vkdml_axes_layout layout;
    struct scan_plan plan;

    if (!vkdml_find_kernel_variant(&compile->vk->caps, "scan", NULL, vkdml_type_kernel_features(type, false),
            &plan.kernel))
        return vkdml_op_error(compile->op, E_NOTIMPL, "no scan kernel for %s tensors on this device.",
                debugstr_data_type(type));
    vkdml_axes_layout_init(&layout, tensors, ARRAY_SIZE(tensors), 1u << desc->Axis);
    plan.lines = (uint32_t)layout.kept_elements;
    plan.length = (uint32_t)layout.reduced_elements;
    if (use_rows(compile, &layout, plan.length))
        plan_rows(compile, &layout, &plan);
    else
        plan_columns(compile, &layout, &plan);
    fill_spec(compile, &plan, &layout, spec);
    place_totals(compile, &plan, spec);
    return add_dispatches(compile, &plan, spec);
}
