/*
 * The element-wise family: DirectML's rules and one dispatch of kernels_glsl/elementwise.comp
 * (include/elementwise_interface.h describes the kernel, its variants and constants).
 *
 * DirectML's rules for these operators: every tensor has the output's DimensionCount, Sizes and
 * DataType (broadcasting is expressed with 0-strides, never with size-1 dimensions), the data
 * type is one the operator supports (its "Tensor support" table at FL 6_4), ScaleBias applies
 * to float tensors only, and ADD1's FusedActivation follows the fused-activation rules
 * (activation.c), on FLOAT32/FLOAT16 only.
 *
 * Issue 5 adds an operator by adding a row to `ops` (and, when it needs one, an op code to the
 * kernel).
 */

#include <inttypes.h>
#include <string.h>

#include "ops_private.h"
#include "elementwise_interface.h"

#define TYPE_BIT(t) (1u << DML_TENSOR_DATA_TYPE_##t)
#define FLOAT_TYPES (TYPE_BIT(FLOAT32) | TYPE_BIT(FLOAT16))
#define SIGNED_TYPES (TYPE_BIT(INT32) | TYPE_BIT(INT16) | TYPE_BIT(INT8))
#define INT_TYPES_32 (SIGNED_TYPES | TYPE_BIT(UINT32) | TYPE_BIT(UINT16) | TYPE_BIT(UINT8))
#define INT_TYPES (INT_TYPES_32 | TYPE_BIT(INT64) | TYPE_BIT(UINT64))

/* One row per operator; ScaleBias and FusedActivation fields are found through the schema. */
struct ew_operator
{
    DML_OPERATOR_TYPE type;
    uint32_t op;                        /* EW_OP_* */
    bool is_activation;                 /* an ACTIVATION_* operator: EW_OP_IDENTITY + itself as activation */
    uint32_t data_types;                /* TYPE_BIT() set of the types DirectML allows */
};

static const struct ew_operator ops[] =
{
    {DML_OPERATOR_ELEMENT_WISE_IDENTITY, EW_OP_IDENTITY, false, FLOAT_TYPES | TYPE_BIT(FLOAT64) | INT_TYPES},
    {DML_OPERATOR_ELEMENT_WISE_ADD, EW_OP_ADD, false, FLOAT_TYPES | INT_TYPES},
    {DML_OPERATOR_ELEMENT_WISE_ADD1, EW_OP_ADD, false, FLOAT_TYPES},
    {DML_OPERATOR_ELEMENT_WISE_MULTIPLY, EW_OP_MULTIPLY, false, FLOAT_TYPES | INT_TYPES},
    {DML_OPERATOR_ACTIVATION_RELU, EW_OP_IDENTITY, true, FLOAT_TYPES | SIGNED_TYPES},
};

static const struct ew_operator *find_operator(DML_OPERATOR_TYPE type)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE(ops); ++i)
    {
        if (ops[i].type == type)
            return &ops[i];
    }
    return NULL;
}

/* The pointer in the desc's field of `kind`, or NULL when the operator has no such field. */
static const void *desc_pointer(const struct vkdml_operator_view *op, enum vkdml_field_kind kind)
{
    const struct vkdml_op_schema *schema = vkdml_op_schema_get(op->type);
    uint32_t i;

    for (i = 0; schema && i < schema->field_count; ++i)
    {
        if (schema->fields[i].kind == kind)
            return *(const void *const *)((const char *)op->desc + schema->fields[i].offset);
    }
    return NULL;
}

static const DML_SCALE_BIAS *op_scale_bias(const struct vkdml_operator_view *op)
{
    return desc_pointer(op, VKDML_FIELD_SCALE_BIAS);
}

static const DML_OPERATOR_DESC *op_fused_activation(const struct vkdml_operator_view *op)
{
    return desc_pointer(op, VKDML_FIELD_OPERATOR_DESC);
}

static bool is_float_type(DML_TENSOR_DATA_TYPE type)
{
    return type == DML_TENSOR_DATA_TYPE_FLOAT32 || type == DML_TENSOR_DATA_TYPE_FLOAT16
            || type == DML_TENSOR_DATA_TYPE_FLOAT64;
}

static const char *type_name(DML_TENSOR_DATA_TYPE type)
{
    const char *name = vkdml_data_type_name(type);

    return name ? name : vkdml_debug_sprintf("%d", (int)type);
}

/* The desc's name of input `index` ("ATensor", "InputTensor"), from the schema. */
static const char *tensor_name(const struct vkdml_operator_view *op, bool output, uint32_t index)
{
    const struct vkdml_op_schema *schema = vkdml_op_schema_get(op->type);
    enum vkdml_field_role role = output ? VKDML_ROLE_OUTPUT : VKDML_ROLE_INPUT;
    uint32_t i, seen = 0;

    for (i = 0; schema && i < schema->field_count; ++i)
    {
        if (schema->fields[i].role == role && seen++ == index)
            return schema->fields[i].name;
    }
    return vkdml_debug_sprintf("%s %u", output ? "output" : "input", index);
}

/* Strides in elements, packed row-major when the desc has none. */
static void tensor_strides(const DML_BUFFER_TENSOR_DESC *tensor, uint32_t strides[EW_MAX_RANK])
{
    uint64_t packed = 1;
    int i;

    for (i = (int)tensor->DimensionCount - 1; i >= 0; --i)
    {
        strides[i] = tensor->Strides ? tensor->Strides[i] : (uint32_t)packed;
        packed *= tensor->Sizes[i];
    }
}

/* Index of the last element the tensor addresses: the kernel's element offsets are 32-bit. */
static uint64_t last_element_index(const DML_BUFFER_TENSOR_DESC *tensor)
{
    uint32_t strides[EW_MAX_RANK];
    uint64_t last = 0;
    uint32_t i;

    tensor_strides(tensor, strides);
    for (i = 0; i < tensor->DimensionCount; ++i)
        last += (uint64_t)(tensor->Sizes[i] - 1) * strides[i];
    return last;
}

static HRESULT validate_input(const struct vkdml_operator_view *op, uint32_t index)
{
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[index], *output = op->outputs[0];
    const char *name = tensor_name(op, false, index);
    uint32_t i;

    if (!input)
        return vkdml_op_error(op, E_INVALIDARG, "%s must not be NULL.", name);
    if (input->DimensionCount != output->DimensionCount)
        return vkdml_op_error(op, E_INVALIDARG, "%s.DimensionCount=%u must equal OutputTensor.DimensionCount=%u.",
                name, input->DimensionCount, output->DimensionCount);
    for (i = 0; i < output->DimensionCount; ++i)
    {
        if (input->Sizes[i] != output->Sizes[i])
            return vkdml_op_error(op, E_INVALIDARG, "%s.Sizes[%u]=%u is not broadcastable to OutputTensor.Sizes[%u]=%u "
                    "(sizes must be equal; broadcast with 0-strides).", name, i, input->Sizes[i], i, output->Sizes[i]);
    }
    if (input->DataType != output->DataType)
        return vkdml_op_error(op, E_INVALIDARG, "%s.DataType=%s must equal OutputTensor.DataType=%s.",
                name, type_name(input->DataType), type_name(output->DataType));
    return S_OK;
}

static HRESULT validate_index_range(const struct vkdml_operator_view *op, bool output, uint32_t index,
        const DML_BUFFER_TENSOR_DESC *tensor)
{
    uint64_t last = last_element_index(tensor);

    if (last > UINT32_MAX)
        return vkdml_op_error(op, E_INVALIDARG, "%s addresses element %" PRIu64 "; element offsets must be below 2^32.",
                tensor_name(op, output, index), last);
    return S_OK;
}

HRESULT vkdml_elementwise_validate(struct vkdml_backend_device *device, const struct vkdml_operator_view *op)
{
    const struct ew_operator *info = find_operator(op->type);
    const DML_BUFFER_TENSOR_DESC *output;
    DML_TENSOR_DATA_TYPE type;
    uint32_t i;
    HRESULT hr;

    if (!info || op->output_count != 1 || !op->input_count || op->input_count > EW_MAX_INPUTS)
        return vkdml_op_error(op, E_NOTIMPL, "not an element-wise operator vkdml implements.");
    if (!(output = op->outputs[0]))
        return vkdml_op_error(op, E_INVALIDARG, "OutputTensor must not be NULL.");
    for (i = 0; i < op->input_count; ++i)
    {
        if (FAILED(hr = validate_input(op, i)))
            return hr;
    }
    type = output->DataType;
    if ((unsigned int)type >= 32 || !(info->data_types & (1u << type)))
        return vkdml_op_error(op, E_INVALIDARG, "OutputTensor.DataType=%s is not supported by this operator.",
                type_name(type));
    if (op_scale_bias(op) && !is_float_type(type))
        return vkdml_op_error(op, E_INVALIDARG, "ScaleBias must be NULL for %s tensors (float tensors only).",
                type_name(type));
    if (FAILED(hr = vkdml_validate_fused_activation(op, op_fused_activation(op))))
        return hr;
    for (i = 0; i < op->input_count; ++i)
    {
        if (FAILED(hr = validate_index_range(op, false, i, op->inputs[i])))
            return hr;
    }
    if (FAILED(hr = validate_index_range(op, true, 0, output)))
        return hr;
    if (!vkdml_backend_data_type_supported(device, type))
        return vkdml_op_error(op, E_NOTIMPL, "%s tensors are not supported by this device.", type_name(type));
    return S_OK;
}

/* ---- Compilation ---- */

/* The iteration space after dropping size-1 dimensions and merging dimensions that are
 * contiguous in every tensor; innermost first, as the kernel reads it. */
struct ew_shape
{
    uint32_t rank;
    uint32_t sizes[EW_MAX_RANK];
    uint32_t strides[EW_TENSOR_COUNT][EW_MAX_RANK];
};

static void collapse_shape(const struct vkdml_operator_view *op, struct ew_shape *shape)
{
    const DML_BUFFER_TENSOR_DESC *output = op->outputs[0];
    uint32_t strides[EW_TENSOR_COUNT][EW_MAX_RANK] = {{0}};
    uint32_t t, n = 0;
    int d;

    memset(shape, 0, sizeof(*shape));
    for (t = 0; t < op->input_count; ++t)
        tensor_strides(op->inputs[t], strides[t]);
    tensor_strides(output, strides[EW_OUTPUT]);
    for (d = (int)output->DimensionCount - 1; d >= 0; --d)
    {
        bool mergeable = n > 0;

        if (output->Sizes[d] == 1)
            continue;
        /* Absent tensors have 0-strides everywhere, which always merge. */
        for (t = 0; mergeable && t < EW_TENSOR_COUNT; ++t)
            mergeable = strides[t][d] == (uint64_t)shape->strides[t][n - 1] * shape->sizes[n - 1];
        if (mergeable)
        {
            shape->sizes[n - 1] *= output->Sizes[d];
            continue;
        }
        shape->sizes[n] = output->Sizes[d];
        for (t = 0; t < EW_TENSOR_COUNT; ++t)
            shape->strides[t][n] = strides[t][d];
        ++n;
    }
    if (!n)
        shape->sizes[n++] = 1;
    shape->rank = n;
    for (; n < EW_MAX_RANK; ++n)
        shape->sizes[n] = 1;
}

static uint32_t domain_of(DML_TENSOR_DATA_TYPE type)
{
    switch (type)
    {
        case DML_TENSOR_DATA_TYPE_INT32:
        case DML_TENSOR_DATA_TYPE_INT16:
        case DML_TENSOR_DATA_TYPE_INT8:
            return EW_DOMAIN_INT;
        case DML_TENSOR_DATA_TYPE_UINT32:
        case DML_TENSOR_DATA_TYPE_UINT16:
        case DML_TENSOR_DATA_TYPE_UINT8:
            return EW_DOMAIN_UINT;
        case DML_TENSOR_DATA_TYPE_INT64:
            return EW_DOMAIN_INT64;
        case DML_TENSOR_DATA_TYPE_UINT64:
            return EW_DOMAIN_UINT64;
        case DML_TENSOR_DATA_TYPE_FLOAT64:
            return EW_DOMAIN_DOUBLE;
        default:
            return EW_DOMAIN_FLOAT;
    }
}

/* Kernel variants and the capabilities they declare (kernels_glsl/meson.build). */
enum ew_feature
{
    EW_FEATURE_16BIT = 1u << 0,
    EW_FEATURE_8BIT = 1u << 1,
    EW_FEATURE_INT64 = 1u << 2,
    EW_FEATURE_FLOAT64 = 1u << 3,
};

static const struct
{
    uint32_t features;
    enum vkdml_kernel_id kernel;
}
variants[] =
{
    /* Smallest first: the first variant that has every feature needed wins. */
    {0, VKDML_KERNEL_ELEMENTWISE},
    {EW_FEATURE_16BIT, VKDML_KERNEL_ELEMENTWISE_S16},
    {EW_FEATURE_8BIT, VKDML_KERNEL_ELEMENTWISE_S8},
    {EW_FEATURE_INT64, VKDML_KERNEL_ELEMENTWISE_I64},
    {EW_FEATURE_FLOAT64, VKDML_KERNEL_ELEMENTWISE_F64},
};

static uint32_t type_features(DML_TENSOR_DATA_TYPE type)
{
    switch (type)
    {
        case DML_TENSOR_DATA_TYPE_FLOAT16:
        case DML_TENSOR_DATA_TYPE_UINT16:
        case DML_TENSOR_DATA_TYPE_INT16:
            return EW_FEATURE_16BIT;
        case DML_TENSOR_DATA_TYPE_UINT8:
        case DML_TENSOR_DATA_TYPE_INT8:
            return EW_FEATURE_8BIT;
        case DML_TENSOR_DATA_TYPE_UINT64:
        case DML_TENSOR_DATA_TYPE_INT64:
            return EW_FEATURE_INT64;
        case DML_TENSOR_DATA_TYPE_FLOAT64:
            return EW_FEATURE_FLOAT64;
        default:
            return 0;
    }
}

static bool device_has_features(const struct vkdml_vk_caps *caps, uint32_t features)
{
    return (!(features & EW_FEATURE_16BIT) || caps->storage_16bit)
            && (!(features & EW_FEATURE_8BIT) || caps->storage_8bit)
            && (!(features & EW_FEATURE_INT64) || caps->shader_int64)
            && (!(features & EW_FEATURE_FLOAT64) || caps->shader_float64);
}

static HRESULT choose_kernel(const struct vkdml_compile *compile, enum vkdml_kernel_id *kernel)
{
    const struct vkdml_operator_view *op = compile->op;
    uint32_t features = type_features(op->outputs[0]->DataType), i;
    size_t v;

    for (i = 0; i < op->input_count; ++i)
        features |= type_features(op->inputs[i]->DataType);
    if (!device_has_features(&compile->vk->caps, features))
        return vkdml_op_error(op, E_NOTIMPL, "the device lacks the storage or arithmetic features of %s tensors.",
                type_name(op->outputs[0]->DataType));
    for (v = 0; v < ARRAY_SIZE(variants); ++v)
    {
        if ((variants[v].features & features) == features)
        {
            *kernel = variants[v].kernel;
            return S_OK;
        }
    }
    return vkdml_op_error(op, E_NOTIMPL, "no element-wise kernel variant holds this mix of data types.");
}

static uint32_t float_bits(float value)
{
    uint32_t bits;

    memcpy(&bits, &value, sizeof(bits));
    return bits;
}

static unsigned int element_size(DML_TENSOR_DATA_TYPE type)
{
    return vkdml_data_type_bits(type) / 8;
}

/* Vector mode (elementwise_interface.h): every vector of V = 16 / size elements starts 16-byte
 * aligned in every stride-1 tensor, and the output is contiguous along dimension 0. */
static bool can_vectorize(const struct vkdml_compile *compile, const struct ew_shape *shape)
{
    const struct vkdml_operator_view *op = compile->op;
    unsigned int size = element_size(op->outputs[0]->DataType), vector;
    uint32_t t, d;

    if (!size || size > 8)
        return false;
    vector = 16 / size;
    if (shape->strides[EW_OUTPUT][0] != 1 || shape->sizes[0] < vector || (shape->rank > 1 && shape->sizes[0] % vector))
        return false;
    for (t = 0; t < EW_TENSOR_COUNT; ++t)
    {
        bool present = t == EW_OUTPUT || t < op->input_count;
        const DML_BUFFER_TENSOR_DESC *tensor = t == EW_OUTPUT ? op->outputs[0] : present ? op->inputs[t] : NULL;
        const struct vkdml_tensor_location *location = t == EW_OUTPUT ? &compile->outputs[0] : &compile->inputs[t];

        if (!present)
            continue;
        if (element_size(tensor->DataType) != size || shape->strides[t][0] > 1)
            return false;
        if (shape->strides[t][0] == 0)
            continue;               /* broadcast along dimension 0: scalar loads, any alignment */
        if (location->offset % 16)
            return false;
        for (d = 1; d < shape->rank; ++d)
        {
            if (shape->strides[t][d] % vector)
                return false;
        }
    }
    return true;
}

static void set_tensor_spec(uint32_t *spec, uint32_t t, DML_TENSOR_DATA_TYPE type,
        const struct vkdml_tensor_location *location, const struct ew_shape *shape)
{
    uint32_t d;

    spec[EW_SPEC_TENSOR(t, EW_SPEC_TENSOR_TYPE)] = type;
    spec[EW_SPEC_TENSOR(t, EW_SPEC_TENSOR_SLOT)] = location->slot;
    spec[EW_SPEC_TENSOR(t, EW_SPEC_TENSOR_OFFSET_LO)] = (uint32_t)location->offset;
    spec[EW_SPEC_TENSOR(t, EW_SPEC_TENSOR_OFFSET_HI)] = (uint32_t)(location->offset >> 32);
    for (d = 0; d < EW_MAX_RANK; ++d)
        spec[EW_SPEC_TENSOR(t, EW_SPEC_TENSOR_STRIDES + d)] = shape->strides[t][d];
}

static void set_activation_spec(uint32_t *spec, const struct ew_operator *info, const struct vkdml_operator_view *op)
{
    DML_OPERATOR_DESC self = {op->type, op->desc};

    /* An ACTIVATION_* operator maps its own desc exactly as a fused one would be mapped. */
    vkdml_fused_activation_spec(info->is_activation ? &self : op_fused_activation(op),
            &spec[EW_SPEC_ACTIVATION]);
}

/* Workgroups along x only; the kernel's grid-stride loop covers what one row of groups can't.
 * `items` are elements, or vectors in vector mode. */
static void dispatch_size(const struct vkdml_compile *compile, uint32_t items, uint32_t groups[3])
{
    uint32_t max_x = compile->vk->caps.properties.limits.maxComputeWorkGroupCount[0];
    uint64_t needed = ((uint64_t)items + EW_DEFAULT_LOCAL_SIZE - 1) / EW_DEFAULT_LOCAL_SIZE;

    groups[0] = (uint32_t)VKDML_MAX(1, VKDML_MIN(needed, (uint64_t)VKDML_MIN(max_x, 65535u)));
    groups[1] = 1;
    groups[2] = 1;
}

HRESULT vkdml_elementwise_compile(struct vkdml_compile *compile)
{
    const struct vkdml_operator_view *op = compile->op;
    const struct ew_operator *info = find_operator(op->type);
    const DML_BUFFER_TENSOR_DESC *output = op->outputs[0];
    const DML_SCALE_BIAS *scale_bias;
    uint32_t spec[EW_SPEC_COUNT] = {0}, groups[3], element_count = 1, items, d, t;
    enum vkdml_kernel_id kernel = VKDML_KERNEL_ELEMENTWISE;
    struct ew_shape shape;
    HRESULT hr;

    if (!info)
        return vkdml_op_error(op, E_NOTIMPL, "not an element-wise operator vkdml implements.");
    if (FAILED(hr = choose_kernel(compile, &kernel)))
        return hr;
    collapse_shape(op, &shape);
    for (d = 0; d < output->DimensionCount; ++d)
        element_count *= output->Sizes[d];

    spec[EW_SPEC_LOCAL_SIZE_X] = EW_DEFAULT_LOCAL_SIZE;
    spec[EW_SPEC_OP] = info->op;
    spec[EW_SPEC_DOMAIN] = domain_of(output->DataType);
    spec[EW_SPEC_RANK] = shape.rank;
    spec[EW_SPEC_ELEMENT_COUNT] = element_count;
    spec[EW_SPEC_SCALE] = float_bits(1.0f);
    if ((scale_bias = op_scale_bias(op)))
    {
        spec[EW_SPEC_SCALE_BIAS] = 1;
        spec[EW_SPEC_SCALE] = float_bits(scale_bias->Scale);
        spec[EW_SPEC_BIAS] = float_bits(scale_bias->Bias);
    }
    for (d = 0; d < EW_MAX_RANK; ++d)
        spec[EW_SPEC_SIZES + d] = shape.sizes[d];
    for (t = 0; t < op->input_count; ++t)
        set_tensor_spec(spec, t, op->inputs[t]->DataType, &compile->inputs[t], &shape);
    set_tensor_spec(spec, EW_OUTPUT, output->DataType, &compile->outputs[0], &shape);
    set_activation_spec(spec, info, op);
    items = element_count;
    if (can_vectorize(compile, &shape))
    {
        spec[EW_SPEC_VECTOR] = 1;
        items = element_count / (16 / element_size(output->DataType));
    }

    dispatch_size(compile, items, groups);
    return vkdml_compile_add_dispatch(compile, kernel, spec, EW_SPEC_COUNT, NULL, 0, groups, false);
}
