/*
 * The TOP_K family (DML_OPERATOR_TOP_K, FL 1_0, and DML_OPERATOR_TOP_K1, FL 2_1): DirectML's
 * rules, and one dispatch of kernels_glsl/top_k.comp (top_k_interface.h), one workgroup per row.
 *
 * DirectML's rules (DML_TOP_K_OPERATOR_DESC, DML_TOP_K1_OPERATOR_DESC): Axis is less than the
 * input's rank; both outputs have the input's sizes except K along Axis; K is at least 1 and at
 * most the axis length (README, "TOP_K and TOP_K1"). TOP_K selects the largest K, TOP_K1 the
 * largest with DML_AXIS_DIRECTION_DECREASING and the smallest with INCREASING, sorted in that
 * direction; ties keep the lower index first whatever the direction; indices count from the start
 * of their row. Types and ranks are the generic layer's checks (the schema).
 */

#include <inttypes.h>
#include <string.h>

#include "ops_private.h"
#include "top_k_interface.h"

#define VALUE_TENSOR 0
#define INDEX_TENSOR 1

static const char *const output_names[2] = {"OutputValueTensor", "OutputIndexTensor"};

struct topk_attributes
{
    uint32_t axis, k;
    bool largest;
};

static struct topk_attributes topk_attributes(const struct vkdml_operator_view *op)
{
    struct topk_attributes a;

    if (op->type == DML_OPERATOR_TOP_K1)
    {
        const DML_TOP_K1_OPERATOR_DESC *desc = op->desc;

        a.axis = desc->Axis;
        a.k = desc->K;
        a.largest = desc->AxisDirection == DML_AXIS_DIRECTION_DECREASING;
    }
    else
    {
        const DML_TOP_K_OPERATOR_DESC *desc = op->desc;

        a.axis = desc->Axis;
        a.k = desc->K;
        a.largest = true;
    }
    return a;
}

/* ---- Validation ---- */

static HRESULT validate_attributes(const struct vkdml_operator_view *op, const struct topk_attributes *a)
{
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[0];
    HRESULT hr;

    if (FAILED(hr = vkdml_validate_axis(op, a->axis, input, "InputTensor")))
        return hr;
    if (!a->k)
        return vkdml_op_error(op, E_INVALIDARG, "K=0 must be at least 1.");
    if (a->k > input->Sizes[a->axis])
        return vkdml_op_error(op, E_INVALIDARG, "K=%u must be at most InputTensor.Sizes[%u]=%u (the axis length).",
                a->k, a->axis, input->Sizes[a->axis]);
    return S_OK;
}

static HRESULT validate_output_sizes(const struct vkdml_operator_view *op, const struct topk_attributes *a)
{
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[0];
    uint32_t t, i, expected;

    for (t = 0; t < 2; ++t)
    {
        const DML_BUFFER_TENSOR_DESC *output = op->outputs[t];

        for (i = 0; i < output->DimensionCount; ++i)
        {
            expected = i == a->axis ? a->k : input->Sizes[i];
            if (output->Sizes[i] != expected)
                return vkdml_op_error(op, E_INVALIDARG, "%s.Sizes[%u]=%u must be %u (%s).", output_names[t], i,
                        output->Sizes[i], expected, i == a->axis ? "K along Axis" : "the input's size");
        }
    }
    return S_OK;
}

HRESULT vkdml_topk_validate(struct vkdml_backend_device *device, const struct vkdml_operator_view *op)
{
    struct topk_attributes a = topk_attributes(op);
    HRESULT hr;
    uint32_t t;

    if (FAILED(hr = validate_attributes(op, &a)))
        return hr;
    if (FAILED(hr = validate_output_sizes(op, &a)))
        return hr;
    if (FAILED(hr = vkdml_check_index_range(op, op->inputs[0], "InputTensor")))
        return hr;
    for (t = 0; t < 2; ++t)
    {
        if (FAILED(hr = vkdml_check_index_range(op, op->outputs[t], output_names[t])))
            return hr;
    }
    return vkdml_check_subgroup_reductions(device, op);
}

/* ---- Compilation ---- */

static uint32_t bit_length(uint32_t value)
{
    uint32_t bits = 0;

    for (; value; value >>= 1)
        ++bits;
    return bits;
}

/* Threads per row: enough for TOPK_MAX_CACHE keys each, within the device's limits. */
static uint32_t choose_threads(const struct vkdml_vk_caps *caps, uint32_t length)
{
    const VkPhysicalDeviceLimits *limits = &caps->properties.limits;
    uint32_t threads = vkdml_pow2_at_least((length + TOPK_MAX_CACHE - 1) / TOPK_MAX_CACHE);
    uint32_t limit = TOPK_MAX_THREADS;

    while (limit > limits->maxComputeWorkGroupInvocations || limit > limits->maxComputeWorkGroupSize[0])
        limit >>= 1;
    if (threads < TOPK_MIN_THREADS)
        threads = TOPK_MIN_THREADS;
    return threads > limit ? limit : threads;
}

static void fill_layout_spec(const struct vkdml_compile *compile, uint32_t axis, uint32_t spec[TOPK_SPEC_COUNT],
        uint64_t *rows)
{
    const struct vkdml_operator_view *op = compile->op;
    const DML_BUFFER_TENSOR_DESC *tensors[TOPK_TENSORS] = {op->inputs[0], op->outputs[0], op->outputs[1]};
    struct vkdml_axes_layout layout;
    uint32_t t, i;

    vkdml_axes_layout_init(&layout, tensors, TOPK_TENSORS, 1u << axis);
    spec[TOPK_SPEC_KEPT_COUNT] = layout.kept_count;
    for (i = 0; i < TOPK_MAX_KEPT; ++i)
        spec[TOPK_SPEC_KEPT_SIZES + i] = i < layout.kept_count ? layout.kept_sizes[i] : 1;
    for (t = 0; t < TOPK_TENSORS; ++t)
    {
        spec[TOPK_SPEC_AXIS_STRIDES + t] = vkdml_tensor_stride(tensors[t], axis);
        for (i = 0; i < layout.kept_count; ++i)
            spec[TOPK_SPEC_KEPT_STRIDES + t * TOPK_MAX_KEPT + i] = layout.kept_strides[t][i];
    }
    *rows = layout.kept_elements;
}

/* A workgroup that scans `count` elements: its threads and keys in registers. */
static void fill_workgroup_spec(const struct vkdml_compile *compile, uint32_t count, uint32_t spec[TOPK_SPEC_COUNT])
{
    uint32_t threads = choose_threads(&compile->vk->caps, count), cache = (count + threads - 1) / threads;

    spec[TOPK_SPEC_THREADS] = threads;
    spec[TOPK_SPEC_CACHE] = cache > TOPK_MAX_CACHE ? TOPK_MAX_CACHE : cache;
}

/* The K selected elements of a row sort in SORT slots of shared memory when they fit there, else
 * in the temporary resource (after what the program uses so far); E_NOTIMPL beyond the kernel's
 * 32-bit word indices. */
static HRESULT place_sort_slots(struct vkdml_compile *compile, uint32_t k, uint64_t rows,
        uint32_t spec[TOPK_SPEC_COUNT])
{
    uint32_t sort = vkdml_pow2_at_least(k);
    bool global = TOPK_SHARED_BYTES + (uint64_t)sort * TOPK_SORT_SLOT_BYTES
            > compile->vk->caps.properties.limits.maxComputeSharedMemorySize;
    struct vkdml_tensor_location temp = {compile->temporary_slot, (compile->temporary_size + 255) & ~(uint64_t)255};

    spec[TOPK_SPEC_SORT] = sort;
    spec[TOPK_SPEC_GLOBAL_SORT] = global;
    if (!global)
        return S_OK;
    if (rows * sort * TOPK_CANDIDATE_WORDS > UINT32_MAX)
        return vkdml_op_error(compile->op, E_NOTIMPL, "%" PRIu64 " rows x K=%u exceed the sort slots implemented "
                "(2^32 words).", rows, k);
    compile->temporary_size = temp.offset + rows * sort * TOPK_SORT_SLOT_BYTES;
    vkdml_set_location(&spec[TOPK_SPEC_TEMP_LOCATION], &temp);
    return S_OK;
}

static void fill_spec(const struct vkdml_compile *compile, const struct topk_attributes *a,
        uint32_t spec[TOPK_SPEC_COUNT], uint64_t *rows)
{
    const struct vkdml_operator_view *op = compile->op;
    DML_TENSOR_DATA_TYPE type = op->inputs[0]->DataType;
    uint32_t length = op->inputs[0]->Sizes[a->axis];

    fill_layout_spec(compile, a->axis, spec, rows);
    spec[TOPK_SPEC_TYPE] = type;
    spec[TOPK_SPEC_KEY_BITS] = 8 * vkdml_element_size(type);
    spec[TOPK_SPEC_INDEX_64] = op->outputs[INDEX_TENSOR]->DataType == DML_TENSOR_DATA_TYPE_UINT64;
    spec[TOPK_SPEC_LARGEST] = a->largest;
    spec[TOPK_SPEC_LENGTH] = length;
    spec[TOPK_SPEC_K] = a->k;
    spec[TOPK_SPEC_INDEX_BITS] = bit_length(length);
    spec[TOPK_SPEC_ROWS] = (uint32_t)*rows;
    vkdml_set_location(&spec[TOPK_SPEC_IN_LOCATION], &compile->inputs[0]);
    vkdml_set_location(&spec[TOPK_SPEC_VALUE_LOCATION], &compile->outputs[VALUE_TENSOR]);
    vkdml_set_location(&spec[TOPK_SPEC_INDEX_LOCATION], &compile->outputs[INDEX_TENSOR]);
}

/* The threshold filter (top_k.comp, filter_select) for keys of up to 32 bits and small K:
 * FILTER_GROUPS, a power of two >= K, groups of whole lanes of every subgroup; 0 where it does
 * not apply (the radix select over the row does it all). */
static uint32_t choose_filter_groups(const struct vkdml_compile *compile, const struct topk_attributes *a,
        const uint32_t spec[TOPK_SPEC_COUNT])
{
    const struct vkdml_vk_caps *caps = &compile->vk->caps;
    uint32_t threads = spec[TOPK_SPEC_THREADS], groups = vkdml_pow2_at_least(a->k);
    uint64_t shared = TOPK_SHARED_BYTES + 2ull * spec[TOPK_SPEC_SORT] * TOPK_SORT_SLOT_BYTES
            + TOPK_FILTER_CAPACITY * 8u + threads * 4u;

    if (spec[TOPK_SPEC_KEY_BITS] > 32 || a->k > TOPK_SMALL_K || groups > threads || caps->subgroup_size > threads
            || shared > caps->properties.limits.maxComputeSharedMemorySize)
        return 0;
    return groups;
}

/* Rows longer than a workgroup's registers split into parts of TOPK_SEGMENT, each on its own
 * workgroup (a GPU full of them even for a few rows, each part read once), when their candidates
 * (K each) are few next to the row and small K counts them in place; 1: not split. */
static uint32_t choose_parts(const struct topk_attributes *a, uint32_t length, uint64_t rows)
{
    uint32_t parts = (length + TOPK_SEGMENT - 1) / TOPK_SEGMENT;

    if (parts < 2 || a->k > TOPK_SMALL_K || (uint64_t)parts * a->k * 4 > length
            || rows * parts * a->k * TOPK_CANDIDATE_WORDS > UINT32_MAX)
        return 1;
    return parts;
}

static HRESULT add_dispatch(struct vkdml_compile *compile, enum vkdml_kernel_id kernel, const uint32_t *spec,
        uint64_t groups, bool barrier_before)
{
    uint32_t spread[3];
    HRESULT hr;

    if (FAILED(hr = vkdml_spread_groups(compile, groups, spread)))
        return hr;
    return vkdml_compile_add_dispatch(compile, kernel, spec, TOPK_SPEC_COUNT, NULL, 0, spread, barrier_before);
}

/* Parts write their candidates into the temporary resource; a second dispatch selects among them. */
static HRESULT add_split_dispatches(struct vkdml_compile *compile, enum vkdml_kernel_id kernel,
        const struct topk_attributes *a, uint32_t spec[TOPK_SPEC_COUNT], uint64_t rows, uint32_t parts)
{
    struct vkdml_tensor_location temp = {compile->temporary_slot, (compile->temporary_size + 255) & ~(uint64_t)255};
    HRESULT hr;

    compile->temporary_size = temp.offset + rows * parts * a->k * TOPK_CANDIDATE_WORDS * sizeof(uint32_t);
    vkdml_set_location(&spec[TOPK_SPEC_TEMP_LOCATION], &temp);
    spec[TOPK_SPEC_PARTS] = parts;
    spec[TOPK_SPEC_STAGE] = TOPK_STAGE_PARTS;
    spec[TOPK_SPEC_SORT] = vkdml_pow2_at_least(a->k);
    fill_workgroup_spec(compile, TOPK_SEGMENT, spec);
    spec[TOPK_SPEC_FILTER_GROUPS] = choose_filter_groups(compile, a, spec);
    TRACE("TOP_K: parts of %u, filter groups %u.", TOPK_SEGMENT, spec[TOPK_SPEC_FILTER_GROUPS]);
    if (FAILED(hr = add_dispatch(compile, kernel, spec, rows * parts, false)))
        return hr;
    spec[TOPK_SPEC_STAGE] = TOPK_STAGE_CANDIDATES;
    fill_workgroup_spec(compile, parts * a->k, spec);
    spec[TOPK_SPEC_FILTER_GROUPS] = choose_filter_groups(compile, a, spec);
    TRACE("TOP_K: candidates %u a row, filter groups %u.", parts * a->k, spec[TOPK_SPEC_FILTER_GROUPS]);
    return add_dispatch(compile, kernel, spec, rows, true);
}

HRESULT vkdml_topk_compile(struct vkdml_compile *compile)
{
    DML_TENSOR_DATA_TYPE type = compile->op->inputs[0]->DataType;
    struct topk_attributes a = topk_attributes(compile->op);
    uint32_t length = compile->op->inputs[0]->Sizes[a.axis];
    uint32_t spec[TOPK_SPEC_COUNT] = {0}, parts;
    enum vkdml_kernel_id kernel;
    uint64_t rows;
    HRESULT hr;

    if (!vkdml_find_kernel_variant(&compile->vk->caps, "top_k", NULL, vkdml_move_kernel_features(type), &kernel))
        return vkdml_op_error(compile->op, E_NOTIMPL, "no top_k.comp variant holds %s tensors on this device.",
                debugstr_data_type(type));
    fill_spec(compile, &a, spec, &rows);
    parts = choose_parts(&a, length, rows);
    if (parts > 1)
    {
        TRACE("TOP_K: %" PRIu64 " rows of %u, K %u: %u parts a row, then their candidates.", rows, length, a.k,
                parts);
        return add_split_dispatches(compile, kernel, &a, spec, rows, parts);
    }
    fill_workgroup_spec(compile, length, spec);
    if (FAILED(hr = place_sort_slots(compile, a.k, rows, spec)))
        return hr;
    spec[TOPK_SPEC_FILTER_GROUPS] = choose_filter_groups(compile, &a, spec);
    TRACE("TOP_K: %" PRIu64 " rows of %u, K %u: %u threads, %u keys each in registers, sorted in %s, filter groups "
            "%u.", rows, length, a.k, spec[TOPK_SPEC_THREADS], spec[TOPK_SPEC_CACHE],
            spec[TOPK_SPEC_GLOBAL_SORT] ? "the temporary resource" : "shared memory", spec[TOPK_SPEC_FILTER_GROUPS]);
    return add_dispatch(compile, kernel, spec, rows, false);
}
