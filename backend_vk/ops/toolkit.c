/*
 * The ops toolkit: what every operator family needs the same way (ops_private.h documents each
 * helper) — dispatch sizes, tensor locations and strides as specialization constants, the 32-bit
 * index range of the kernels, float bits, element sizes, the half-precision permission, kernel
 * variants by device feature, reduction axes and the debug knobs of the kernel choice.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dml_private_backend.h"

HRESULT vkdml_spread_groups(const struct vkdml_compile *compile, uint64_t count, uint32_t groups[3])
{
    const uint32_t *max = compile->vk->caps.properties.limits.maxComputeWorkGroupCount;
    uint64_t x, y, z;

    z = (count + (uint64_t)max[0] * max[1] - 1) / ((uint64_t)max[0] * max[1]);
    y = (count + max[0] * z - 1) / (max[0] * z);
    x = (count + y * z - 1) / (y * z);
    if (z > max[2] || x * y * z > UINT32_MAX)
        return vkdml_op_error(compile->op, E_NOTIMPL,
                "%" PRIu64 " workgroups exceed the device's workgroup counts.", count);
    groups[0] = (uint32_t)x;
    groups[1] = (uint32_t)y;
    groups[2] = (uint32_t)z;
    return S_OK;
}

void vkdml_set_location(uint32_t spec[3], const struct vkdml_tensor_location *location)
{
    spec[0] = location->slot;
    spec[1] = (uint32_t)location->offset;
    spec[2] = (uint32_t)(location->offset >> 32);
}

uint32_t vkdml_tensor_stride(const DML_BUFFER_TENSOR_DESC *tensor, uint32_t dim)
{
    uint32_t stride = 1, i;

    if (tensor->Strides)
        return tensor->Strides[dim];
    for (i = dim + 1; i < tensor->DimensionCount; ++i)
        stride *= tensor->Sizes[i];
    return stride;
}

uint64_t vkdml_tensor_last_element(const DML_BUFFER_TENSOR_DESC *tensor)
{
    uint64_t last = 0;
    uint32_t i;

    for (i = 0; i < tensor->DimensionCount; ++i)
        last += (uint64_t)(tensor->Sizes[i] - 1) * vkdml_tensor_stride(tensor, i);
    return last;
}

bool vkdml_tensor_is_packed(const DML_BUFFER_TENSOR_DESC *tensor)
{
    uint64_t packed_stride = 1;
    uint32_t i;

    for (i = tensor->DimensionCount; i-- > 0;)
    {
        if (tensor->Sizes[i] != 1 && vkdml_tensor_stride(tensor, i) != packed_stride)
            return false;
        packed_stride *= tensor->Sizes[i];
    }
    return true;
}

HRESULT vkdml_check_index_range(const struct vkdml_operator_view *op, const DML_BUFFER_TENSOR_DESC *tensor,
        const char *name)
{
    uint64_t last = vkdml_tensor_last_element(tensor);

    if (last > INT32_MAX)
        return vkdml_op_error(op, E_NOTIMPL, "%s spans %" PRIu64 " elements; at most 2^31 are implemented.",
                name, last + 1);
    return S_OK;
}

uint32_t vkdml_float_bits(float value)
{
    uint32_t bits;

    memcpy(&bits, &value, sizeof(bits));
    return bits;
}

unsigned int vkdml_element_size(DML_TENSOR_DATA_TYPE type)
{
    return vkdml_data_type_bits(type) / 8;
}

bool vkdml_half_compute(const struct vkdml_compile *compile)
{
    return (compile->flags & DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION) && compile->vk->caps.shader_float16;
}

/* ---- Debug knobs ---- */

const char *const vkdml_gemm_kernel_names[VKDML_GEMM_KERNEL_COUNT] = {"auto", "general", "tiled", "coopmat", "gemv"};
const char *const vkdml_conv_kernel_names[VKDML_CONV_KERNEL_COUNT] =
        {"auto", "gemm-1x1", "direct", "implicit-gemm", "coopmat", "tiled", "coopmat-nhwc"};
const char *const vkdml_shapes_names[VKDML_SHAPES_COUNT] = {"auto", "push", "specialize"};

/* "auto, general, tiled, coopmat or gemv". */
static const char *name_list(const char *const *names, unsigned int count)
{
    char list[256];
    size_t length = 0;
    unsigned int i;

    list[0] = '\0';
    for (i = 0; i < count && length < sizeof(list); ++i)
        length += snprintf(list + length, sizeof(list) - length, "%s%s", i ? (i + 1 == count ? " or " : ", ") : "",
                names[i]);
    return vkdml_debug_sprintf("%s", list);
}

/* The index of the variable's value among `names`; 0 (auto) when unset or unknown (warned). */
static unsigned int read_kernel_knob(const char *variable, const char *const *names, unsigned int count)
{
    const char *value = getenv(variable);
    unsigned int i;

    if (!value || !*value)
        return 0;
    for (i = 0; i < count; ++i)
    {
        if (!strcmp(value, names[i]))
            return i;
    }
    WARN("Ignoring %s=%s: not %s.", variable, value, name_list(names, count));
    return 0;
}

/* Comma-separated unsigned numbers, as many as `valid_counts` allows (a bit per count); none
 * (warned) when the value does not read so. */
static void read_tuning_knob(const char *variable, uint32_t valid_counts, const char *format,
        struct vkdml_tuning_knob *knob)
{
    const char *value = getenv(variable), *p;
    unsigned long number;
    char *end;

    memset(knob, 0, sizeof(*knob));
    if (!value || !*value)
        return;
    snprintf(knob->text, sizeof(knob->text), "%s", value);
    for (p = value; knob->count < ARRAY_SIZE(knob->values); p = end + 1)
    {
        number = strtoul(p, &end, 10);
        if (end == p || number > UINT32_MAX || (*end && *end != ','))
            break;
        knob->values[knob->count++] = (uint32_t)number;
        if (!*end)
        {
            if (valid_counts & (1u << knob->count))
                return;
            break;
        }
    }
    WARN("Ignoring %s=%s: want %s.", variable, value, format);
    knob->count = 0;
}

const char *const vkdml_graph_pass_names[VKDML_GRAPH_PASS_COUNT] =
{
    "activation", "elementwise", "batchnorm", "constants", "alias", "join", "memory", "barriers",
};

static int graph_pass_index(const char *name, size_t length)
{
    int i;

    for (i = 0; i < VKDML_GRAPH_PASS_COUNT; ++i)
    {
        if (strlen(vkdml_graph_pass_names[i]) == length && !strncmp(vkdml_graph_pass_names[i], name, length))
            return i;
    }
    return -1;
}

/* "all" (the default), "none", names to keep, or "-name" to drop one from all. */
static uint32_t read_graph_passes(void)
{
    const char *value = getenv("VKDML_GRAPH_OPT"), *item, *end;
    uint32_t kept = 0, dropped = 0;
    bool keep_all = true;

    if (!value || !*value)
        return VKDML_GRAPH_PASS_ALL;
    for (item = value; *item; item = *end ? end + 1 : end)
    {
        bool drop = *item == '-';
        size_t length;
        int index;

        end = strchr(item, ',');
        end = end ? end : item + strlen(item);
        length = (size_t)(end - item) - drop;
        if (length == 3 && !strncmp(item, "all", 3))
            continue;
        if (length == 4 && !strncmp(item, "none", 4))
        {
            keep_all = false;
            continue;
        }
        if ((index = graph_pass_index(item + drop, length)) < 0)
        {
            WARN("VKDML_GRAPH_OPT=%s: unknown pass \"%.*s\"; every pass stays on.", value, (int)length, item + drop);
            return VKDML_GRAPH_PASS_ALL;
        }
        if (drop)
            dropped |= 1u << index;
        else
            kept |= 1u << index, keep_all = false;
    }
    return ((keep_all ? VKDML_GRAPH_PASS_ALL : 0) | kept) & ~dropped;
}

void vkdml_knobs_read(struct vkdml_knobs *knobs)
{
    knobs->graph_passes = read_graph_passes();
    knobs->gemm_kernel = read_kernel_knob("VKDML_GEMM_KERNEL", vkdml_gemm_kernel_names, VKDML_GEMM_KERNEL_COUNT);
    knobs->conv_kernel = read_kernel_knob("VKDML_CONV_KERNEL", vkdml_conv_kernel_names, VKDML_CONV_KERNEL_COUNT);
    knobs->elementwise_shapes = read_kernel_knob("VKDML_ELEMENTWISE_SHAPES", vkdml_shapes_names, VKDML_SHAPES_COUNT);
    read_tuning_knob("VKDML_GEMM_TUNE", 1u << 5 | 1u << 7 | 1u << 8,
            "tile_m,tile_n,tile_k,stages,group_m[,subgroups_m,subgroups_n[,split_k]]", &knobs->gemm_tune);
    read_tuning_knob("VKDML_CONV_TUNE", 1u << 2 | 1u << 3 | 1u << 4 | 1u << 5,
            "tile_m,tile_n[,tile_k[,split_k]] (tiled) or tile_m,tile_n,subgroups_m,subgroups_n[,split_k] (coopmat)",
            &knobs->conv_tune);
    read_tuning_knob("VKDML_SOFTMAX_TUNE", 1u << 2, "column_bytes,loads_per_invocation", &knobs->softmax_tune);
}

/* ---- Kernel variants by the device features their data types need ---- */

uint32_t vkdml_type_kernel_features(DML_TENSOR_DATA_TYPE type, bool double_arithmetic)
{
    switch (vkdml_element_size(type))
    {
        case 1: return VKDML_KERNEL_FEATURE_STORAGE8;
        case 2: return VKDML_KERNEL_FEATURE_STORAGE16;
        case 8: return double_arithmetic && type == DML_TENSOR_DATA_TYPE_FLOAT64
                ? VKDML_KERNEL_FEATURE_FLOAT64 : VKDML_KERNEL_FEATURE_INT64;
        default: return 0;
    }
}

uint32_t vkdml_move_kernel_features(DML_TENSOR_DATA_TYPE type)
{
    return vkdml_element_size(type) == 8 ? 0 : vkdml_type_kernel_features(type, false);
}

bool vkdml_caps_have_kernel_features(const struct vkdml_vk_caps *caps, uint32_t features)
{
    return (!(features & VKDML_KERNEL_FEATURE_STORAGE16) || caps->storage_16bit)
            && (!(features & VKDML_KERNEL_FEATURE_STORAGE8) || caps->storage_8bit)
            && (!(features & VKDML_KERNEL_FEATURE_INT64) || caps->shader_int64)
            && (!(features & VKDML_KERNEL_FEATURE_FLOAT64) || caps->shader_float64);
}

static unsigned int feature_count(uint32_t features)
{
    unsigned int count = 0;

    for (; features; features &= features - 1)
        ++count;
    return count;
}

bool vkdml_find_kernel_variant(const struct vkdml_vk_caps *caps, const char *family, const char *group,
        uint32_t features, enum vkdml_kernel_id *kernel)
{
    unsigned int best = ~0u, id;

    for (id = 0; id < VKDML_KERNEL_COUNT; ++id)
    {
        const struct vkdml_kernel *variant = vkdml_kernel_get(id);

        if (!variant->family || strcmp(variant->family, family) || (group && strcmp(variant->group, group))
                || (variant->features & features) != features
                || !vkdml_caps_have_kernel_features(caps, variant->features)
                || feature_count(variant->features) >= best)
            continue;
        best = feature_count(variant->features);
        *kernel = id;
    }
    return best != ~0u;
}

uint64_t vkdml_window_positions(uint64_t size, uint32_t start_padding, uint32_t end_padding, uint32_t window,
        uint32_t dilation, uint32_t stride)
{
    uint64_t padded = size + start_padding + end_padding, dilated = (uint64_t)dilation * (window - 1) + 1;

    return padded < dilated ? 0 : (padded - dilated) / stride + 1;
}

HRESULT vkdml_check_subgroup_reductions(struct vkdml_backend_device *device, const struct vkdml_operator_view *op)
{
    if (!device->vk->caps.subgroup_reductions)
        return vkdml_op_error(op, E_NOTIMPL, "the device lacks the subgroup operations its kernel needs (basic, "
                "arithmetic, ballot and shuffle in compute shaders).");
    return S_OK;
}

/* ---- Reduction axes ---- */

uint64_t vkdml_tensor_element_count(const DML_BUFFER_TENSOR_DESC *tensor)
{
    uint64_t count = 1;
    uint32_t i;

    for (i = 0; i < tensor->DimensionCount; ++i)
        count *= tensor->Sizes[i];
    return count;
}

HRESULT vkdml_validate_axes(const struct vkdml_operator_view *op, uint32_t rank, const UINT *axes, uint32_t count,
        const char *name, uint32_t *mask)
{
    uint32_t i;

    *mask = 0;
    if (!count)
        return vkdml_op_error(op, E_INVALIDARG, "%.*sAxisCount=0: at least one axis is needed.",
                (int)(strlen(name) - strlen("Axes")), name);
    for (i = 0; i < count; ++i)
    {
        if (axes[i] >= rank)
            return vkdml_op_error(op, E_INVALIDARG, "%s[%u]=%u must be less than the rank %u.", name, i, axes[i], rank);
        if (*mask & (1u << axes[i]))
            return vkdml_op_error(op, E_INVALIDARG, "%s[%u]=%u repeats an axis.", name, i, axes[i]);
        *mask |= 1u << axes[i];
    }
    return S_OK;
}

HRESULT vkdml_validate_axis(const struct vkdml_operator_view *op, uint32_t axis, const DML_BUFFER_TENSOR_DESC *tensor,
        const char *name)
{
    if (axis >= tensor->DimensionCount)
        return vkdml_op_error(op, E_INVALIDARG, "Axis=%u must be less than %s.DimensionCount=%u.", axis, name,
                tensor->DimensionCount);
    return S_OK;
}

HRESULT vkdml_validate_real_rank(const struct vkdml_operator_view *op, const DML_BUFFER_TENSOR_DESC *tensor,
        const char *name, uint32_t real_rank, const char *field)
{
    uint32_t i;

    if (!real_rank || real_rank > tensor->DimensionCount)
        return vkdml_op_error(op, E_INVALIDARG, "%s=%u must be 1 to %s.DimensionCount=%u.", field, real_rank,
                name, tensor->DimensionCount);
    for (i = 0; i < tensor->DimensionCount - real_rank; ++i)
    {
        if (tensor->Sizes[i] != 1)
            return vkdml_op_error(op, E_INVALIDARG, "%s.Sizes[%u]=%u must be 1 (before the last %s=%u).",
                    name, i, tensor->Sizes[i], field, real_rank);
    }
    return S_OK;
}

HRESULT vkdml_validate_same_sizes(const struct vkdml_operator_view *op, const DML_BUFFER_TENSOR_DESC *tensor,
        const char *name, const DML_BUFFER_TENSOR_DESC *reference, const char *reference_name)
{
    uint32_t i;

    for (i = 0; i < tensor->DimensionCount && i < reference->DimensionCount; ++i)
    {
        if (tensor->Sizes[i] != reference->Sizes[i])
            return vkdml_op_error(op, E_INVALIDARG, "%s.Sizes[%u]=%u must equal %s.Sizes[%u]=%u.", name, i,
                    tensor->Sizes[i], reference_name, i, reference->Sizes[i]);
    }
    return S_OK;
}

HRESULT vkdml_validate_reduced_sizes(const struct vkdml_operator_view *op, const DML_BUFFER_TENSOR_DESC *input,
        const DML_BUFFER_TENSOR_DESC *output, const char *output_name, uint32_t mask)
{
    uint32_t i, expected;

    for (i = 0; i < output->DimensionCount; ++i)
    {
        expected = mask & (1u << i) ? 1 : input->Sizes[i];
        if (output->Sizes[i] != expected)
            return vkdml_op_error(op, E_INVALIDARG, "%s.Sizes[%u]=%u must be %u (%s).", output_name, i,
                    output->Sizes[i], expected, mask & (1u << i) ? "a reduced axis keeps size 1"
                    : "the input's size on a kept axis");
    }
    return S_OK;
}

/* Appends dimension `dim` of every tensor to one side of the layout, merged into the side's
 * innermost dimension so far when every tensor's strides allow. */
static void axes_layout_add(uint32_t *count, uint32_t *sizes, uint32_t (*strides)[VKDML_MAX_RANK],
        const DML_BUFFER_TENSOR_DESC *const *tensors, uint32_t tensor_count, uint32_t dim)
{
    uint32_t size = tensors[0]->Sizes[dim], n = *count, t;
    bool mergeable = n > 0;

    for (t = 0; t < tensor_count && mergeable; ++t)
    {
        uint32_t stride = tensors[t]->Sizes[dim] == 1 ? 0 : vkdml_tensor_stride(tensors[t], dim);

        mergeable = strides[t][n - 1] == (uint64_t)stride * size;
    }
    if (mergeable)
    {
        sizes[n - 1] *= size;
        for (t = 0; t < tensor_count; ++t)
            strides[t][n - 1] = tensors[t]->Sizes[dim] == 1 ? 0 : vkdml_tensor_stride(tensors[t], dim);
        return;
    }
    sizes[n] = size;
    for (t = 0; t < tensor_count; ++t)
        strides[t][n] = tensors[t]->Sizes[dim] == 1 ? 0 : vkdml_tensor_stride(tensors[t], dim);
    *count = n + 1;
}

void vkdml_axes_layout_init(struct vkdml_axes_layout *layout, const DML_BUFFER_TENSOR_DESC *const *tensors,
        uint32_t tensor_count, uint32_t mask)
{
    uint32_t dim;

    memset(layout, 0, sizeof(*layout));
    layout->kept_elements = layout->reduced_elements = 1;
    for (dim = 0; dim < tensors[0]->DimensionCount; ++dim)
    {
        bool reduced = mask & (1u << dim);

        if (tensors[0]->Sizes[dim] == 1)
            continue;
        if (reduced)
        {
            layout->reduced_elements *= tensors[0]->Sizes[dim];
            axes_layout_add(&layout->reduced_count, layout->reduced_sizes, layout->reduced_strides, tensors,
                    tensor_count, dim);
        }
        else
        {
            layout->kept_elements *= tensors[0]->Sizes[dim];
            axes_layout_add(&layout->kept_count, layout->kept_sizes, layout->kept_strides, tensors,
                    tensor_count, dim);
        }
    }
}
