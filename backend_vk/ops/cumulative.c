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

#include "dml_private_backend.h"
#include "scan_interface.h"

/* Both descs have the same layout (DirectML.h): a product's desc is read as a summation's. */
_Static_assert(sizeof(DML_CUMULATIVE_SUMMATION_OPERATOR_DESC) == sizeof(DML_CUMULATIVE_PRODUCT_OPERATOR_DESC),
        "cumulative descs");
_Static_assert(offsetof(DML_CUMULATIVE_SUMMATION_OPERATOR_DESC, HasExclusiveSum)
        == offsetof(DML_CUMULATIVE_PRODUCT_OPERATOR_DESC, HasExclusiveProduct), "cumulative descs");

/* The row algorithm's largest workgroup. */
#define ROW_MAX_THREADS 256
/* Tiling (scan_interface.h): below these many workgroups (row) or invocations (column) a big GPU
 * idles, so lines are cut into tiles of at least ROW_MIN_TILE_CHUNKS chunks or
 * COLUMN_MIN_TILE_LENGTH positions. */
#define ROW_TARGET_GROUPS 1024
#define ROW_MIN_TILE_CHUNKS 2
#define COLUMN_TARGET_INVOCATIONS 65536
#define COLUMN_MIN_TILE_LENGTH 32

/* ---- Validation ---- */

static HRESULT validate_sizes(const struct vkdml_operator_view *op)
{
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[0], *output = op->outputs[0];
    uint32_t i;

    for (i = 0; i < input->DimensionCount; ++i)
    {
        if (output->Sizes[i] != input->Sizes[i])
            return vkdml_op_error(op, E_INVALIDARG, "OutputTensor.Sizes[%u]=%u must equal InputTensor.Sizes[%u]=%u.",
                    i, output->Sizes[i], i, input->Sizes[i]);
    }
    return S_OK;
}

HRESULT vkdml_cumulative_validate(struct vkdml_backend_device *device, const struct vkdml_operator_view *op)
{
    const DML_CUMULATIVE_SUMMATION_OPERATOR_DESC *desc = op->desc;
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[0];
    HRESULT hr;

    if (desc->Axis >= input->DimensionCount)
        return vkdml_op_error(op, E_INVALIDARG, "Axis=%u must be less than InputTensor.DimensionCount=%u.",
                desc->Axis, input->DimensionCount);
    if (FAILED(hr = validate_sizes(op)))
        return hr;
    if (!device->vk->caps.subgroup_reductions)
        return vkdml_op_error(op, E_NOTIMPL, "the device lacks the subgroup operations the scan kernel needs.");
    if (FAILED(hr = vkdml_check_index_range(op, input, "InputTensor")))
        return hr;
    return vkdml_check_index_range(op, op->outputs[0], "OutputTensor");
}

/* ---- Compilation ---- */

struct scan_plan
{
    uint32_t algorithm, threads, tiles, tile_length, lines, length;
    enum vkdml_kernel_id kernel;
};

static uint32_t round_up_pow2(uint32_t value)
{
    uint32_t result = 1;

    while (result < value)
        result <<= 1;
    return result;
}

static uint32_t div_up(uint64_t a, uint64_t b)
{
    return (uint32_t)((a + b - 1) / b);
}

/* The row algorithm where the axis is the output's innermost moving dimension (a line's loads
 * coalesce) and a line fills at least half of a subgroup's chunk; else the column algorithm
 * (neighbouring lines are neighbouring addresses, or lines too short to keep a subgroup busy). */
static bool use_rows(const struct vkdml_compile *compile, const struct vkdml_axes_layout *layout, uint32_t length)
{
    if (length < compile->vk->caps.subgroup_size * SCAN_ITEMS / 2)
        return false;
    return !layout->kept_count || layout->reduced_strides[1][0] < layout->kept_strides[1][layout->kept_count - 1];
}

/* ROW_MAX_THREADS, or the largest power of 2 the device's workgroups hold. */
static uint32_t row_max_threads(const struct vkdml_compile *compile)
{
    const VkPhysicalDeviceLimits *limits = &compile->vk->caps.properties.limits;
    uint32_t threads = ROW_MAX_THREADS;

    while (threads > limits->maxComputeWorkGroupSize[0] || threads > limits->maxComputeWorkGroupInvocations)
        threads >>= 1;
    return threads;
}

static void plan_rows(const struct vkdml_compile *compile, struct scan_plan *plan)
{
    uint32_t subgroup = compile->vk->caps.subgroup_size, max_threads = row_max_threads(compile);
    uint32_t chunk, chunks, wanted, per_tile;

    plan->algorithm = SCAN_ALGORITHM_ROW;
    plan->threads = round_up_pow2(div_up(plan->length, SCAN_ITEMS));
    plan->threads = plan->threads > max_threads ? max_threads : plan->threads;
    plan->threads = plan->threads < subgroup ? subgroup : plan->threads;
    chunk = plan->threads * SCAN_ITEMS;
    chunks = div_up(plan->length, chunk);
    wanted = plan->lines >= ROW_TARGET_GROUPS ? 1 : div_up(ROW_TARGET_GROUPS, plan->lines);
    per_tile = div_up(chunks, wanted);
    per_tile = per_tile < ROW_MIN_TILE_CHUNKS ? ROW_MIN_TILE_CHUNKS : per_tile;
    plan->tiles = div_up(chunks, per_tile);
    plan->tile_length = plan->tiles > 1 ? per_tile * chunk : plan->length;
}

static void plan_columns(struct scan_plan *plan)
{
    uint32_t wanted;

    plan->algorithm = SCAN_ALGORITHM_COLUMN;
    plan->threads = SCAN_COLUMN_THREADS;
    wanted = plan->lines >= COLUMN_TARGET_INVOCATIONS ? 1 : div_up(COLUMN_TARGET_INVOCATIONS, plan->lines);
    if (wanted > plan->length / COLUMN_MIN_TILE_LENGTH)
        wanted = plan->length / COLUMN_MIN_TILE_LENGTH;
    plan->tile_length = wanted > 1 ? div_up(plan->length, wanted) : plan->length;
    plan->tiles = div_up(plan->length, plan->tile_length);
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
        units = (units + plan->threads - 1) / plan->threads;
    if (FAILED(hr = vkdml_spread_groups(compile, units, groups)))
        return hr;
    TRACE("%s: %s, %s, %u lines of %u, %u tile(s) of %u, %u threads, %u x %u x %u workgroups.",
            compile->op->type == DML_OPERATOR_CUMULATIVE_PRODUCT ? "CUMULATIVE_PRODUCT" : "CUMULATIVE_SUMMATION",
            vkdml_kernel_get(plan->kernel)->name, plan->algorithm == SCAN_ALGORITHM_ROW ? "rows" : "columns",
            plan->lines, plan->length, plan->tiles, plan->tile_length, plan->threads, groups[0], groups[1], groups[2]);
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
        plan_rows(compile, &plan);
    else
        plan_columns(&plan);
    fill_spec(compile, &plan, &layout, spec);
    place_totals(compile, &plan, spec);
    return add_dispatches(compile, &plan, spec);
}
