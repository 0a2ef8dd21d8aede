/*
 * Mean-variance and Lp normalization: MEAN_VARIANCE_NORMALIZATION (FL 1_0), MVN1 (FL 2_1), MVN2
 * (FL 6_3) and LP_NORMALIZATION (FL 1_0). Each reduces over a set of axes, then rescales every
 * element of the row: one dispatch of kernels_glsl/mvn.comp (mvn_interface.h), or two where long
 * rows are split over workgroups.
 *
 * DirectML's rules: OutputTensor has InputTensor's sizes (the schema checks types and ranks).
 * MVN reduces over {1, 2, 3} (CrossChannel) or {2, 3}; MVN1 and MVN2 over Axes in [0, rank), none
 * repeated; LP over Axis, P 1 or 2. ScaleTensor and BiasTensor (each optional since FL 5_2) have
 * InputTensor's rank and, on every dimension, its size or 1 (broadcast). FusedActivation as for
 * any host operator. README, "Mean-variance and Lp normalization", has what the pages leave open
 * (MVN2's flags, LP's epsilon rule, NaN rows).
 */

#include <inttypes.h>
#include <string.h>

#include "ops_private.h"
#include "mvn_interface.h"

/* MVN1's and MVN2's descs begin alike (DirectML.h). */
_Static_assert(offsetof(DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC, Axes)
        == offsetof(DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC, Axes), "MVN descs");

/* Split paths: rows of at least 2 x MVN_MIN_CHUNK entries are split while the workgroups are
 * fewer than MVN_SPLIT_TARGET_GROUPS (a large GPU: 132 SMs, a few workgroups each). */
#define MVN_MIN_CHUNK 8192
/* ... and into chunks of at most this many entries, whatever the rows. */
#define MVN_MAX_CHUNK (1u << 18)
#define MVN_SPLIT_TARGET_GROUPS 512
#define MVN_SPLIT_THREADS 256
/* Rows path: invocations per workgroup for the longest rows of 16-byte loads. */
#define MVN_WIDE_THREADS 512

/* What the operator computes, from its desc. */
struct mvn_params
{
    uint32_t function;                  /* MVN_FUNCTION_* */
    uint32_t mask;                      /* reduced axes */
    bool use_mean, use_variance;
    float epsilon;
    const DML_OPERATOR_DESC *activation;
};

static bool is_lp(const struct vkdml_operator_view *op)
{
    return op->type == DML_OPERATOR_LP_NORMALIZATION;
}

static HRESULT get_params(const struct vkdml_operator_view *op, struct mvn_params *params)
{
    uint32_t rank = op->inputs[0]->DimensionCount;

    memset(params, 0, sizeof(*params));
    params->function = MVN_FUNCTION_MVN;
    params->use_mean = params->use_variance = true;
    switch (op->type)
    {
        case DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION:
        {
            const DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC *desc = op->desc;

            /* {C, H, W} or {H, W} of the 4-D input (the schema's rank). */
            params->mask = ((1u << rank) - 1) & ~(desc->CrossChannel ? 1u : 3u);
            params->use_variance = desc->NormalizeVariance;
            params->epsilon = desc->Epsilon;
            params->activation = desc->FusedActivation;
            return S_OK;
        }
        case DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1:
        {
            const DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC *desc = op->desc;

            params->use_variance = desc->NormalizeVariance;
            params->epsilon = desc->Epsilon;
            params->activation = desc->FusedActivation;
            return vkdml_validate_axes(op, rank, desc->Axes, desc->AxisCount, "Axes", &params->mask);
        }
        case DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION2:
        {
            const DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC *desc = op->desc;

            params->use_mean = desc->UseMean;
            params->use_variance = desc->UseVariance;
            params->epsilon = desc->Epsilon;
            params->activation = desc->FusedActivation;
            return vkdml_validate_axes(op, rank, desc->Axes, desc->AxisCount, "Axes", &params->mask);
        }
        default:
        {
            const DML_LP_NORMALIZATION_OPERATOR_DESC *desc = op->desc;
            HRESULT hr;

            if (desc->P != 1 && desc->P != 2)
                return vkdml_op_error(op, E_INVALIDARG, "P=%u must be 1 or 2.", desc->P);
            if (FAILED(hr = vkdml_validate_axis(op, desc->Axis, op->inputs[0], "InputTensor")))
                return hr;
            params->function = desc->P == 1 ? MVN_FUNCTION_LP1 : MVN_FUNCTION_LP2;
            params->mask = 1u << desc->Axis;
            params->epsilon = desc->Epsilon;
            return S_OK;
        }
    }
}

/* ScaleTensor and BiasTensor: InputTensor's rank, and its size or 1 on every dimension. */
static HRESULT validate_broadcast(const struct vkdml_operator_view *op, const DML_BUFFER_TENSOR_DESC *tensor,
        const char *name)
{
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[0];
    uint32_t i;

    if (tensor->DimensionCount != input->DimensionCount)
        return vkdml_op_error(op, E_INVALIDARG, "%s.DimensionCount=%u must equal InputTensor.DimensionCount=%u.",
                name, tensor->DimensionCount, input->DimensionCount);
    for (i = 0; i < tensor->DimensionCount; ++i)
    {
        if (tensor->Sizes[i] != 1 && tensor->Sizes[i] != input->Sizes[i])
            return vkdml_op_error(op, E_INVALIDARG, "%s.Sizes[%u]=%u must be 1 or InputTensor's %u.",
                    name, i, tensor->Sizes[i], input->Sizes[i]);
    }
    return vkdml_check_index_range(op, tensor, name);
}

HRESULT vkdml_mvn_validate(struct vkdml_backend_device *device, const struct vkdml_operator_view *op)
{
    static const char *const optional_names[] = {"ScaleTensor", "BiasTensor"};
    struct mvn_params params;
    unsigned int i;
    HRESULT hr;

    if (FAILED(hr = vkdml_validate_same_sizes(op, op->outputs[0], "OutputTensor", op->inputs[0], "InputTensor")))
        return hr;
    if (FAILED(hr = get_params(op, &params)))
        return hr;
    for (i = 0; !is_lp(op) && i < 2; ++i)
    {
        if (op->inputs[1 + i] && FAILED(hr = validate_broadcast(op, op->inputs[1 + i], optional_names[i])))
            return hr;
    }
    if (FAILED(hr = vkdml_validate_fused_activation(op, params.activation)))
        return hr;
    if (FAILED(hr = vkdml_check_subgroup_reductions(device, op)))
        return hr;
    if (FAILED(hr = vkdml_check_index_range(op, op->inputs[0], "InputTensor")))
        return hr;
    return vkdml_check_index_range(op, op->outputs[0], "OutputTensor");
}

/* ---- Compilation ---- */

/* The layout's dimensions into the kernel's last slots, the leading ones of size 1 (stride 0). */
static void fill_dims(uint32_t count, const uint32_t *sizes, const uint32_t (*strides)[VKDML_MAX_RANK],
        uint32_t *spec_sizes, uint32_t *spec_strides)
{
    uint32_t first = MVN_MAX_DIMS - count, i, t;

    for (i = 0; i < MVN_MAX_DIMS; ++i)
    {
        spec_sizes[i] = i < first ? 1 : sizes[i - first];
        for (t = 0; t < 4; ++t)
            spec_strides[t * MVN_MAX_DIMS + i] = i < first ? 0 : strides[t][i - first];
    }
}

/* Whether tensor t of the layout (at `location`) holds each row's entries packed (the reduced
 * dimensions row-major: an entry's flat index is its offset) and every row 16-byte aligned, so that
 * `width` entries load as one vector. */
static bool rows_packed(const struct vkdml_axes_layout *layout, unsigned int t,
        const struct vkdml_tensor_location *location, uint32_t width)
{
    uint64_t packed;
    uint32_t i;

    if (location->offset % 16)
        return false;
    for (i = layout->reduced_count, packed = 1; i-- > 0; packed *= layout->reduced_sizes[i])
    {
        if (layout->reduced_strides[t][i] != packed)
            return false;
    }
    for (i = 0; i < layout->kept_count; ++i)
    {
        if (layout->kept_strides[t][i] % width)
            return false;
    }
    return true;
}

/* Entries per load: 16 bytes where the input's and the output's rows are packed, else 1. */
static uint32_t vector_width(const struct vkdml_axes_layout *layout, DML_TENSOR_DATA_TYPE type,
        const struct vkdml_tensor_location *input, const struct vkdml_tensor_location *output)
{
    uint32_t width = 16 / vkdml_element_size(type);

    if (!layout->reduced_count || layout->reduced_elements % width || !rows_packed(layout, 0, input, width)
            || !rows_packed(layout, 1, output, width))
        return 1;
    return width;
}

static uint32_t max_threads(const struct vkdml_compile *compile)
{
    const VkPhysicalDeviceLimits *limits = &compile->vk->caps.properties.limits;
    uint32_t threads = MVN_MAX_THREADS;

    while (threads > 64 && (threads > limits->maxComputeWorkGroupInvocations
            || threads > limits->maxComputeWorkGroupSize[0]))
        threads /= 2;
    return threads;
}

/* The split paths' chunks: rows too long for registers, or long rows too few for a large GPU.
 * False when the rows path suits. */
static bool choose_split(const struct vkdml_axes_layout *layout, uint32_t vector, bool fits,
        uint32_t spec[MVN_SPEC_COUNT], uint64_t *workgroups)
{
    uint64_t length = layout->reduced_elements, chunks, chunk_length;

    chunks = vkdml_div_up(MVN_SPLIT_TARGET_GROUPS, layout->kept_elements);
    chunks = VKDML_MIN(chunks, length / MVN_MIN_CHUNK);
    if (!fits)
        chunks = VKDML_MAX(chunks, VKDML_MAX(2, vkdml_div_up(length, MVN_MAX_CHUNK)));
    if (chunks < 2)
        return false;
    /* Whole vectors per chunk. */
    chunk_length = VKDML_ALIGN_UP(vkdml_div_up(length, chunks), vector);
    chunks = vkdml_div_up(length, chunk_length);
    spec[MVN_SPEC_PATH] = MVN_PATH_SPLIT_STATS;
    spec[MVN_SPEC_THREADS] = MVN_SPLIT_THREADS;
    spec[MVN_SPEC_PER_THREAD] = 1;
    spec[MVN_SPEC_CHUNKS] = (uint32_t)chunks;
    spec[MVN_SPEC_CHUNK_LENGTH] = (uint32_t)chunk_length;
    *workgroups = layout->kept_elements * chunks;
    return true;
}

/* The path, workgroup size and loads per invocation; the number of workgroups. */
static void choose_path(const struct vkdml_compile *compile, const struct vkdml_axes_layout *layout,
        uint32_t vector, uint32_t spec[MVN_SPEC_COUNT], uint64_t *workgroups)
{
    uint64_t loads = layout->reduced_elements / vector;
    uint32_t threads = 64, limit = max_threads(compile), most = vector > 1 ? MVN_MAX_LOADS / 2 : MVN_MAX_VALUES;

    spec[MVN_SPEC_VECTOR] = vector;
    spec[MVN_SPEC_CHUNKS] = spec[MVN_SPEC_CHUNK_LENGTH] = 1;
    if (choose_split(layout, vector, loads <= (uint64_t)limit * most, spec, workgroups))
        return;
    /* The fewest invocations that hold the row in half the registers' share each, then up to all (on
     * the H200, fp16 layer norm of 8192^2 took 74 us so, 82 us filling the share). */
    while (threads < limit && loads > (uint64_t)threads * most / 2)
        threads *= 2;
    /* Rows that MVN_WIDE_THREADS invocations cannot hold in their share: that many invocations of up
     * to MVN_MAX_LOADS loads instead of more invocations (H200, group norm's rows of 25088 fp32:
     * 60.3 us as 512 x 13, 62.3 us as 1024 x 7). */
    if (vector > 1 && limit >= MVN_WIDE_THREADS && loads > (uint64_t)MVN_WIDE_THREADS * most)
        threads = MVN_WIDE_THREADS;
    spec[MVN_SPEC_PATH] = MVN_PATH_ROWS;
    spec[MVN_SPEC_THREADS] = threads;
    spec[MVN_SPEC_PER_THREAD] = (uint32_t)vkdml_div_up(loads, threads);
    *workgroups = layout->kept_elements;
}

/* The chunks' triples go after what the temporary resource already holds. */
static void place_chunk_stats(struct vkdml_compile *compile, uint64_t chunks, uint32_t spec[MVN_SPEC_COUNT])
{
    struct vkdml_tensor_location location;

    location.slot = compile->temporary_slot;
    location.offset = VKDML_ALIGN_UP(compile->temporary_size, 256);
    compile->temporary_size = location.offset + chunks * MVN_CHUNK_WORDS * sizeof(uint32_t);
    vkdml_set_location(&spec[MVN_SPEC_TEMP_LOCATION], &location);
}

/* The kernel variant that holds the tensors' type. */
static HRESULT find_kernel(const struct vkdml_compile *compile, DML_TENSOR_DATA_TYPE type,
        enum vkdml_kernel_id *kernel)
{
    if (!vkdml_find_kernel_variant(&compile->vk->caps, "mvn", NULL, vkdml_type_kernel_features(type, false), kernel))
        return vkdml_op_error(compile->op, E_NOTIMPL, "no mvn.comp variant holds %s tensors on this device.",
                debugstr_data_type(type));
    return S_OK;
}

HRESULT vkdml_mvn_compile(struct vkdml_compile *compile)
{
    const struct vkdml_operator_view *op = compile->op;
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[0];
    const DML_BUFFER_TENSOR_DESC *scale = is_lp(op) ? NULL : op->inputs[1], *bias = is_lp(op) ? NULL : op->inputs[2];
    const DML_BUFFER_TENSOR_DESC *tensors[4];
    uint32_t spec[MVN_SPEC_COUNT] = {0}, groups[3];
    struct vkdml_axes_layout layout;
    enum vkdml_kernel_id kernel;
    struct mvn_params params;
    uint64_t workgroups;
    HRESULT hr;

    if (FAILED(hr = get_params(op, &params)) || FAILED(hr = find_kernel(compile, input->DataType, &kernel)))
        return hr;
    /* Absent scale or bias: the input's strides, never read. */
    tensors[0] = input;
    tensors[1] = op->outputs[0];
    tensors[2] = scale ? scale : input;
    tensors[3] = bias ? bias : input;
    vkdml_axes_layout_init(&layout, tensors, 4, params.mask);
    spec[MVN_SPEC_FUNCTION] = params.function;
    spec[MVN_SPEC_TYPE] = input->DataType;
    spec[MVN_SPEC_ROWS] = (uint32_t)layout.kept_elements;
    spec[MVN_SPEC_LENGTH] = (uint32_t)layout.reduced_elements;
    spec[MVN_SPEC_USE_MEAN] = params.use_mean;
    spec[MVN_SPEC_USE_VARIANCE] = params.use_variance;
    spec[MVN_SPEC_EPSILON] = vkdml_float_bits(params.epsilon);
    spec[MVN_SPEC_HAS_SCALE] = !!scale;
    spec[MVN_SPEC_HAS_BIAS] = !!bias;
    fill_dims(layout.kept_count, layout.kept_sizes, layout.kept_strides, &spec[MVN_SPEC_KEPT_SIZES],
            &spec[MVN_SPEC_KEPT_STRIDES]);
    fill_dims(layout.reduced_count, layout.reduced_sizes, layout.reduced_strides, &spec[MVN_SPEC_REDUCED_SIZES],
            &spec[MVN_SPEC_REDUCED_STRIDES]);
    vkdml_set_location(&spec[MVN_SPEC_IN_LOCATION], &compile->inputs[0]);
    vkdml_set_location(&spec[MVN_SPEC_OUT_LOCATION], &compile->outputs[0]);
    if (scale)
        vkdml_set_location(&spec[MVN_SPEC_SCALE_LOCATION], &compile->inputs[1]);
    if (bias)
        vkdml_set_location(&spec[MVN_SPEC_BIAS_LOCATION], &compile->inputs[2]);
    vkdml_fused_activation_spec(params.activation, &spec[MVN_SPEC_ACTIVATION]);
    choose_path(compile, &layout, vector_width(&layout, input->DataType, &compile->inputs[0], &compile->outputs[0]),
            spec, &workgroups);
    spec[MVN_SPEC_PARAMETER_VECTORS] = (!scale || rows_packed(&layout, 2, &compile->inputs[1], spec[MVN_SPEC_VECTOR]))
            && (!bias || rows_packed(&layout, 3, &compile->inputs[2], spec[MVN_SPEC_VECTOR]));
    if (FAILED(hr = vkdml_spread_groups(compile, workgroups, groups)))
        return hr;
    TRACE("mvn: function %u, path %u, %u threads x %u x %u, %u chunks of %u, %" PRIu64 " rows of %" PRIu64 ".",
            params.function, spec[MVN_SPEC_PATH], spec[MVN_SPEC_THREADS], spec[MVN_SPEC_PER_THREAD],
            spec[MVN_SPEC_VECTOR], spec[MVN_SPEC_CHUNKS], spec[MVN_SPEC_CHUNK_LENGTH], layout.kept_elements,
            layout.reduced_elements);
    if (spec[MVN_SPEC_PATH] == MVN_PATH_SPLIT_STATS)
        place_chunk_stats(compile, workgroups, spec);
    if (FAILED(hr = vkdml_compile_add_dispatch(compile, kernel, spec, MVN_SPEC_COUNT, NULL, 0, groups, false))
            || spec[MVN_SPEC_PATH] != MVN_PATH_SPLIT_STATS)
        return hr;
    spec[MVN_SPEC_PATH] = MVN_PATH_SPLIT_NORMALIZE;
    return vkdml_compile_add_dispatch(compile, kernel, spec, MVN_SPEC_COUNT, NULL, 0, groups, true);
}
