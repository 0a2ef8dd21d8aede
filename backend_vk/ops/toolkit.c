/*
 * The ops toolkit: what every operator family needs the same way (ops_private.h documents each
 * helper) — dispatch sizes, tensor locations and strides as specialization constants, the 32-bit
 * index range of the kernels, float bits, element sizes, the half-precision permission and the
 * debug knobs of the kernel choice.
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

void vkdml_knobs_read(struct vkdml_knobs *knobs)
{
    knobs->gemm_kernel = read_kernel_knob("VKDML_GEMM_KERNEL", vkdml_gemm_kernel_names, VKDML_GEMM_KERNEL_COUNT);
    knobs->conv_kernel = read_kernel_knob("VKDML_CONV_KERNEL", vkdml_conv_kernel_names, VKDML_CONV_KERNEL_COUNT);
    knobs->elementwise_shapes = read_kernel_knob("VKDML_ELEMENTWISE_SHAPES", vkdml_shapes_names, VKDML_SHAPES_COUNT);
    read_tuning_knob("VKDML_GEMM_TUNE", 1u << 5 | 1u << 7 | 1u << 8,
            "tile_m,tile_n,tile_k,stages,group_m[,subgroups_m,subgroups_n[,split_k]]", &knobs->gemm_tune);
    read_tuning_knob("VKDML_CONV_TUNE", 1u << 2 | 1u << 3 | 1u << 4 | 1u << 5,
            "tile_m,tile_n[,tile_k[,split_k]] (tiled) or tile_m,tile_n,subgroups_m,subgroups_n[,split_k] (coopmat)",
            &knobs->conv_tune);
}
