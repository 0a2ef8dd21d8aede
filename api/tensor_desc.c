/*
 * Generic operator-desc handling, driven by the generated schema (dml_op_schema.c): field-by-field
 * validation, one-allocation deep copy, and the flattened input/output tensor lists.
 */

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dml_private.h"

#define MAX_DEPTH 2     /* an operator, and the activations nested in it */

const char *debugstr_sizes(UINT count, const UINT *sizes)
{
    char buffer[256];
    size_t length = 0;
    UINT i;

    if (!sizes)
        return "(null)";
    buffer[length++] = '{';
    for (i = 0; i < count && length < sizeof(buffer) - 16; ++i)
        length += snprintf(buffer + length, sizeof(buffer) - length, "%s%u", i ? "," : "", sizes[i]);
    snprintf(buffer + length, sizeof(buffer) - length, "}");
    return vkdml_debug_sprintf("%s", buffer);
}

/* ---- Validation ---- */

struct validation
{
    const char *caller;                 /* "CreateOperator(ELEMENT_WISE_ADD)" */
    char path[128];                     /* "FusedActivation." while inside a nested desc */
};

static HRESULT invalid(const struct validation *v, const char *fmt, ...) VKDML_PRINTF(2, 3);
static HRESULT invalid(const struct validation *v, const char *fmt, ...)
{
    char message[512];
    va_list args;

    va_start(args, fmt);
    vsnprintf(message, sizeof(message), fmt, args);
    va_end(args);
    vkdml_log(VKDML_LOG_ERR, VKDML_LOG_SOURCE_VKDML, v->caller, "%s%s", v->path, message);
    return E_INVALIDARG;
}

static const void *field_pointer(const void *desc, const struct vkdml_field_schema *field)
{
    return *(const void *const *)((const char *)desc + field->offset);
}

static UINT field_count(const void *desc, const struct vkdml_op_schema *schema, const struct vkdml_field_schema *field)
{
    return *(const UINT *)((const char *)desc + schema->fields[field->count_field].offset);
}

static HRESULT validate_buffer_tensor(const struct validation *v, const char *name,
        const DML_BUFFER_TENSOR_DESC *t, enum vkdml_field_role role)
{
    uint64_t elements = 1, minimum;
    unsigned int bits;
    UINT i;

    if (!vkdml_data_type_name(t->DataType))
        return invalid(v, "%s.DataType %d is not a DML_TENSOR_DATA_TYPE.", name, (int)t->DataType);
    if (t->Flags & ~DML_TENSOR_FLAG_OWNED_BY_DML)
        return invalid(v, "%s.Flags %#x has unknown bits (only DML_TENSOR_FLAG_OWNED_BY_DML exists).", name, (unsigned int)t->Flags);
    if ((t->Flags & DML_TENSOR_FLAG_OWNED_BY_DML) && role != VKDML_ROLE_INPUT)
        return invalid(v, "%s.Flags: DML_TENSOR_FLAG_OWNED_BY_DML is allowed on input tensors only.", name);
    if (t->DimensionCount < 1 || t->DimensionCount > DML_TENSOR_DIMENSION_COUNT_MAX1)
        return invalid(v, "%s.DimensionCount %u is outside 1..%u.", name, t->DimensionCount, DML_TENSOR_DIMENSION_COUNT_MAX1);
    if (!t->Sizes)
        return invalid(v, "%s.Sizes is NULL.", name);
    for (i = 0; i < t->DimensionCount; ++i)
    {
        if (!t->Sizes[i])
            return invalid(v, "%s.Sizes[%u] is 0; sizes must be at least 1.", name, i);
        elements *= t->Sizes[i];
        if (elements > UINT32_MAX)
            return invalid(v, "%s.Sizes %s has more than 2^32-1 elements.", name, debugstr_sizes(t->DimensionCount, t->Sizes));
    }
    minimum = vkdml_calc_buffer_tensor_size(t->DataType, t->DimensionCount, t->Sizes, t->Strides);
    if (t->TotalTensorSizeInBytes < minimum)
        return invalid(v, "%s.TotalTensorSizeInBytes %" PRIu64 " is less than the %" PRIu64 " bytes its sizes %s%s imply.",
                name, (uint64_t)t->TotalTensorSizeInBytes, minimum, debugstr_sizes(t->DimensionCount, t->Sizes),
                t->Strides ? vkdml_debug_sprintf(" and strides %s", debugstr_sizes(t->DimensionCount, t->Strides)) : "");
    bits = vkdml_data_type_bits(t->DataType);
    if (t->GuaranteedBaseOffsetAlignment && ((t->GuaranteedBaseOffsetAlignment & (t->GuaranteedBaseOffsetAlignment - 1))
            || t->GuaranteedBaseOffsetAlignment * 8 < bits))
        return invalid(v, "%s.GuaranteedBaseOffsetAlignment %u must be 0 or a power of two no smaller than the element size.",
                name, t->GuaranteedBaseOffsetAlignment);
    return S_OK;
}

static HRESULT validate_tensor(const struct validation *v, const char *name, const DML_TENSOR_DESC *tensor,
        enum vkdml_field_role role)
{
    if (tensor->Type != DML_TENSOR_TYPE_BUFFER)
        return invalid(v, "%s.Type %d must be DML_TENSOR_TYPE_BUFFER.", name, (int)tensor->Type);
    if (!tensor->Desc)
        return invalid(v, "%s.Desc is NULL.", name);
    return validate_buffer_tensor(v, name, tensor->Desc, role);
}

static HRESULT validate_desc(struct validation *v, const DML_OPERATOR_DESC *desc, unsigned int depth, bool nested);

static HRESULT validate_tensor_field(const struct validation *v, const void *desc, const struct vkdml_op_schema *schema,
        const struct vkdml_field_schema *field, bool nested)
{
    const DML_TENSOR_DESC *tensors = field_pointer(desc, field);
    UINT count = 1, i;
    HRESULT hr;

    if (field->kind == VKDML_FIELD_TENSOR_ARRAY)
    {
        if (!(count = field_count(desc, schema, field)))
            return invalid(v, "%s is 0; at least one tensor is needed.", schema->fields[field->count_field].name);
    }
    if (!tensors)
    {
        /* The activation inside a fused desc has no tensors: the host checks that rule. */
        if (field->optional || nested)
            return S_OK;
        return invalid(v, "%s is NULL but required.", field->name);
    }
    for (i = 0; i < count; ++i)
    {
        const char *name = field->kind == VKDML_FIELD_TENSOR_ARRAY
                ? vkdml_debug_sprintf("%s[%u]", field->name, i) : field->name;

        if (FAILED(hr = validate_tensor(v, name, &tensors[i], field->role)))
            return hr;
    }
    return S_OK;
}

static HRESULT validate_nested_descs(struct validation *v, const void *desc, const struct vkdml_op_schema *schema,
        const struct vkdml_field_schema *field, unsigned int depth)
{
    const DML_OPERATOR_DESC *nested = field_pointer(desc, field);
    UINT count = field->kind == VKDML_FIELD_OPERATOR_DESC_ARRAY ? field_count(desc, schema, field) : 1, i;
    size_t saved = strlen(v->path);
    HRESULT hr = S_OK;

    if (!nested)
        return field->optional || !count ? S_OK : invalid(v, "%s is NULL but required.", field->name);
    for (i = 0; i < count && SUCCEEDED(hr); ++i)
    {
        snprintf(v->path + saved, sizeof(v->path) - saved, field->kind == VKDML_FIELD_OPERATOR_DESC_ARRAY
                ? "%s[%u]." : "%s.", field->name, i);
        hr = validate_desc(v, &nested[i], depth + 1, true);
    }
    v->path[saved] = '\0';
    return hr;
}

static HRESULT validate_field(struct validation *v, const void *desc, const struct vkdml_op_schema *schema,
        const struct vkdml_field_schema *field, unsigned int depth, bool nested)
{
    const void *pointer;
    int value;

    switch (field->kind)
    {
        case VKDML_FIELD_TENSOR:
        case VKDML_FIELD_TENSOR_ARRAY:
            return validate_tensor_field(v, desc, schema, field, nested);
        case VKDML_FIELD_OPERATOR_DESC:
        case VKDML_FIELD_OPERATOR_DESC_ARRAY:
            return validate_nested_descs(v, desc, schema, field, depth);
        case VKDML_FIELD_SCALE_BIAS:
            return S_OK;
        case VKDML_FIELD_UINT_ARRAY:
        case VKDML_FIELD_INT_ARRAY:
        case VKDML_FIELD_FLOAT_ARRAY:
            pointer = field_pointer(desc, field);
            if (!pointer && field_count(desc, schema, field) && !field->optional)
                return invalid(v, "%s is NULL but %s is %u.", field->name, schema->fields[field->count_field].name,
                        field_count(desc, schema, field));
            return S_OK;
        case VKDML_FIELD_ENUM:
            value = *(const int *)((const char *)desc + field->offset);
            if (!vkdml_enum_value_name(field->enum_id, value))
                return invalid(v, "%s %d is not a %s value.", field->name, value, vkdml_enum_name(field->enum_id));
            return S_OK;
        default:
            return S_OK;
    }
}

static HRESULT validate_desc(struct validation *v, const DML_OPERATOR_DESC *desc, unsigned int depth, bool nested)
{
    const struct vkdml_op_schema *schema;
    HRESULT hr;
    UINT i;

    if (!(schema = vkdml_op_schema_get(desc->Type)))
        return invalid(v, "Type %d is not a DML_OPERATOR_TYPE.", (int)desc->Type);
    if (!desc->Desc)
        return invalid(v, "Desc is NULL; it must point to a %s.", schema->desc_name);
    if (depth >= MAX_DEPTH)
        return invalid(v, "%s may not nest further operator descs.", schema->name);
    for (i = 0; i < schema->field_count; ++i)
    {
        if (FAILED(hr = validate_field(v, desc->Desc, schema, &schema->fields[i], depth, nested)))
            return hr;
    }
    return S_OK;
}

/* ---- Tensor support: DirectML's per-operator tables (tools/directml-schema.json, docs/schema.md) ---- */

enum tensor_property
{
    PROPERTY_RANK,
    PROPERTY_DATA_TYPE,
};

static UINT field_tensor_count(const void *desc, const struct vkdml_op_schema *schema,
        const struct vkdml_field_schema *field)
{
    return field->kind == VKDML_FIELD_TENSOR_ARRAY ? field_count(desc, schema, field) : 1;
}

/* NULL for an absent optional tensor. */
static const DML_BUFFER_TENSOR_DESC *field_tensor(const void *desc, const struct vkdml_field_schema *field, UINT index)
{
    const DML_TENSOR_DESC *tensors = field_pointer(desc, field);

    return tensors ? tensors[index].Desc : NULL;
}

static const char *field_tensor_name(const struct vkdml_field_schema *field, UINT index)
{
    return field->kind == VKDML_FIELD_TENSOR_ARRAY ? vkdml_debug_sprintf("%s[%u]", field->name, index) : field->name;
}

static UINT property_value(const DML_BUFFER_TENSOR_DESC *tensor, enum tensor_property property)
{
    return property == PROPERTY_RANK ? tensor->DimensionCount : (UINT)tensor->DataType;
}

/* "DimensionCount=4", "DataType=FLOAT16" */
static const char *debugstr_property(const DML_BUFFER_TENSOR_DESC *tensor, enum tensor_property property)
{
    if (property == PROPERTY_RANK)
        return vkdml_debug_sprintf("DimensionCount=%u", tensor->DimensionCount);
    return vkdml_debug_sprintf("DataType=%s", debugstr_data_type(tensor->DataType));
}

/* "FLOAT32, FLOAT16 or INT32" */
static const char *debugstr_data_types(uint32_t set)
{
    unsigned int count = 0, seen = 0, t;
    char buffer[192] = "";

    for (t = 0; t < 32; ++t)
        count += !!(set & (1u << t));
    for (t = 0; t < 32; ++t)
    {
        if (!(set & (1u << t)))
            continue;
        snprintf(buffer + strlen(buffer), sizeof(buffer) - strlen(buffer), "%s%s",
                !seen ? "" : seen + 1 == count ? " or " : ", ", debugstr_data_type((DML_TENSOR_DATA_TYPE)t));
        ++seen;
    }
    return vkdml_debug_sprintf("%s", buffer);
}

/* The tensor's own row of the table: its rank range or its data types. */
static HRESULT check_tensor_support(const struct validation *v, const char *name, const DML_BUFFER_TENSOR_DESC *t,
        const struct vkdml_field_schema *field, enum tensor_property property)
{
    if (property == PROPERTY_RANK && (t->DimensionCount < field->min_rank || t->DimensionCount > field->max_rank))
        return field->min_rank == field->max_rank
                ? invalid(v, "%s.DimensionCount=%u must be %u.", name, t->DimensionCount, field->min_rank)
                : invalid(v, "%s.DimensionCount=%u must be %u to %u.", name, t->DimensionCount, field->min_rank,
                        field->max_rank);
    if (property == PROPERTY_DATA_TYPE && field->data_types
            && ((unsigned int)t->DataType >= 32 || !(field->data_types & (1u << t->DataType))))
        return invalid(v, "%s.DataType=%s must be %s.", name, debugstr_data_type(t->DataType),
                debugstr_data_types(field->data_types));
    return S_OK;
}

/* The group's first present tensor must follow its own row; the others must equal it. */
static HRESULT check_tensor_group(const struct validation *v, const void *desc, const struct vkdml_op_schema *schema,
        const struct vkdml_tensor_group *group, enum tensor_property property)
{
    const DML_BUFFER_TENSOR_DESC *first = NULL, *t;
    const char *first_name = NULL;
    UINT g, i;
    HRESULT hr;

    for (g = 0; g < group->count; ++g)
    {
        const struct vkdml_field_schema *field = &schema->fields[group->fields[g]];

        for (i = 0; i < field_tensor_count(desc, schema, field); ++i)
        {
            if (!(t = field_tensor(desc, field, i)))
                continue;
            if (!first)
            {
                first = t;
                first_name = field_tensor_name(field, i);
                if (FAILED(hr = check_tensor_support(v, first_name, first, field, property)))
                    return hr;
            }
            else if (property_value(t, property) != property_value(first, property))
            {
                return invalid(v, "%s.%s must equal %s.%s.", field_tensor_name(field, i),
                        debugstr_property(t, property), first_name, debugstr_property(first, property));
            }
        }
    }
    return S_OK;
}

static HRESULT check_tensor_property(const struct validation *v, const void *desc, const struct vkdml_op_schema *schema,
        enum tensor_property property)
{
    const struct vkdml_tensor_group *groups = property == PROPERTY_RANK ? schema->same_rank : schema->same_type;
    UINT count = property == PROPERTY_RANK ? schema->same_rank_count : schema->same_type_count, f, i;
    const DML_BUFFER_TENSOR_DESC *t;
    HRESULT hr;

    for (i = 0; i < count; ++i)
    {
        if (FAILED(hr = check_tensor_group(v, desc, schema, &groups[i], property)))
            return hr;
    }
    for (f = 0; f < schema->field_count; ++f)
    {
        const struct vkdml_field_schema *field = &schema->fields[f];

        if (field->role == VKDML_ROLE_ATTRIBUTE)
            continue;
        for (i = 0; i < field_tensor_count(desc, schema, field); ++i)
        {
            if ((t = field_tensor(desc, field, i))
                    && FAILED(hr = check_tensor_support(v, field_tensor_name(field, i), t, field, property)))
                return hr;
        }
    }
    return S_OK;
}

/* Ranks, then data types; each: the groups (so that a mismatch names the tensor the others follow),
 * then every tensor's own row. */
static HRESULT validate_tensor_support(const struct validation *v, const DML_OPERATOR_DESC *desc)
{
    const struct vkdml_op_schema *schema = vkdml_op_schema_get(desc->Type);
    HRESULT hr;

    if (!schema->tensor_support)
        return S_OK;
    if (FAILED(hr = check_tensor_property(v, desc->Desc, schema, PROPERTY_RANK)))
        return hr;
    return check_tensor_property(v, desc->Desc, schema, PROPERTY_DATA_TYPE);
}

/* ---- Attribute-array lengths (tools/directml-schema.json's array_lengths, docs/schema.md) ---- */

static bool is_array_of(const struct vkdml_op_schema *schema, const struct vkdml_field_schema *field,
        const struct vkdml_field_schema *length)
{
    return field->count_field >= 0 && &schema->fields[field->count_field] == length;
}

/* "Strides, Dilations, StartPadding, EndPadding and OutputPadding": the arrays a length field sizes. */
static const char *debugstr_arrays_of(const struct vkdml_op_schema *schema, const struct vkdml_field_schema *length)
{
    unsigned int count = 0, seen = 0, i;
    char buffer[256] = "";

    for (i = 0; i < schema->field_count; ++i)
        count += is_array_of(schema, &schema->fields[i], length);
    for (i = 0; i < schema->field_count; ++i)
    {
        if (!is_array_of(schema, &schema->fields[i], length))
            continue;
        snprintf(buffer + strlen(buffer), sizeof(buffer) - strlen(buffer), "%s%s",
                !seen ? "" : seen + 1 == count ? " and " : ", ", schema->fields[i].name);
        ++seen;
    }
    return vkdml_debug_sprintf("%s", buffer);
}

/* A length whose rule the schema records is checked before anything reads its arrays: the tensor's rank is
 * the caller's only trustworthy statement of their size. */
static HRESULT validate_array_length(const struct validation *v, const void *desc,
        const struct vkdml_op_schema *schema, const struct vkdml_field_schema *field)
{
    const struct vkdml_field_schema *tensor_field = &schema->fields[field->rank_field];
    const DML_BUFFER_TENSOR_DESC *tensor = field_tensor(desc, tensor_field, 0);
    UINT value = *(const UINT *)((const char *)desc + field->offset), expected;

    /* The field-by-field pass has checked the tensor; a rank below the rule's leaves no arrays to read. */
    expected = tensor->DimensionCount > field->rank_minus ? tensor->DimensionCount - field->rank_minus : 0;
    if (value == expected)
        return S_OK;
    return invalid(v, "%s=%u must be %s.DimensionCount=%u - %u: it is the length of %s.", field->name, value,
            tensor_field->name, tensor->DimensionCount, field->rank_minus, debugstr_arrays_of(schema, field));
}

/* Operators with such lengths are never nested (fused activations have no arrays). */
static HRESULT validate_array_lengths(const struct validation *v, const DML_OPERATOR_DESC *desc)
{
    const struct vkdml_op_schema *schema = vkdml_op_schema_get(desc->Type);
    HRESULT hr;
    UINT i;

    for (i = 0; i < schema->field_count; ++i)
    {
        if (schema->fields[i].rank_field >= 0
                && FAILED(hr = validate_array_length(v, desc->Desc, schema, &schema->fields[i])))
            return hr;
    }
    return S_OK;
}

/* Every numeric attribute array of DirectML holds one value per dimension, axis or channel
 * (DimensionCount, AxisCount, RepeatsCount, ScaleCount; VALUE_SCALE_2D's ChannelCount is 1 or 3),
 * so none is longer than a tensor's rank: a longer count is refused before the copy reads that many
 * values, in nested descs (fused activations) too, whose tensors give no rank to check against. */
static HRESULT validate_array_bounds(struct validation *v, const DML_OPERATOR_DESC *desc)
{
    const struct vkdml_op_schema *schema = vkdml_op_schema_get(desc->Type);
    const struct vkdml_field_schema *field;
    const DML_OPERATOR_DESC *nested;
    HRESULT hr;
    UINT i, j, count;

    for (i = 0; i < schema->field_count; ++i)
    {
        field = &schema->fields[i];
        switch (field->kind)
        {
            case VKDML_FIELD_UINT_ARRAY:
            case VKDML_FIELD_INT_ARRAY:
            case VKDML_FIELD_FLOAT_ARRAY:
                if ((count = field_count(desc->Desc, schema, field)) > DML_TENSOR_DIMENSION_COUNT_MAX1)
                    return invalid(v, "%s: %s=%u must be at most %u: %s holds a value per dimension or axis.",
                            schema->name, schema->fields[field->count_field].name, count,
                            DML_TENSOR_DIMENSION_COUNT_MAX1, field->name);
                break;
            case VKDML_FIELD_OPERATOR_DESC:
            case VKDML_FIELD_OPERATOR_DESC_ARRAY:
                nested = field_pointer(desc->Desc, field);
                count = field->kind == VKDML_FIELD_OPERATOR_DESC_ARRAY ? field_count(desc->Desc, schema, field) : 1;
                for (j = 0; nested && j < count; ++j)
                {
                    if (FAILED(hr = validate_array_bounds(v, &nested[j])))
                        return hr;
                }
                break;
            default:
                break;
        }
    }
    return S_OK;
}

/* Fields, then tensor support (so that a rank outside the operator's range is named as such), then the
 * array lengths, which the copy (vkdml_copy_operator_desc) relies on. */
HRESULT vkdml_validate_operator_desc(const DML_OPERATOR_DESC *desc, const char *caller)
{
    struct validation v = {.caller = caller};
    HRESULT hr;

    if (FAILED(hr = validate_desc(&v, desc, 0, false)))
        return hr;
    if (FAILED(hr = validate_tensor_support(&v, desc)))
        return hr;
    if (FAILED(hr = validate_array_lengths(&v, desc)))
        return hr;
    return validate_array_bounds(&v, desc);
}

/* ---- Deep copy ---- */

/* A bump allocator over one block; with no block it only measures. */
struct arena
{
    char *base;
    size_t used;
};

static void *arena_alloc(struct arena *arena, size_t size)
{
    void *p = arena->base ? arena->base + arena->used : NULL;

    arena->used += VKDML_ALIGN_UP(size, 8);
    return p;
}

static void *arena_copy(struct arena *arena, const void *data, size_t size)
{
    void *p = arena_alloc(arena, size);

    if (p)
        memcpy(p, data, size);
    return p;
}

static void copy_buffer_tensor(struct arena *arena, DML_TENSOR_DESC *tensor)
{
    const DML_BUFFER_TENSOR_DESC *source = tensor->Desc;
    DML_BUFFER_TENSOR_DESC *copy = arena_copy(arena, source, sizeof(*source));
    size_t dims = source->DimensionCount * sizeof(UINT);
    UINT *sizes = arena_copy(arena, source->Sizes, dims);
    UINT *strides = source->Strides ? arena_copy(arena, source->Strides, dims) : NULL;

    if (!copy)
        return;
    copy->Sizes = sizes;
    copy->Strides = strides;
    tensor->Desc = copy;
}

static void copy_desc_fields(struct arena *arena, DML_OPERATOR_DESC *desc);

static void copy_field(struct arena *arena, void *desc, const struct vkdml_op_schema *schema,
        const struct vkdml_field_schema *field)
{
    void **slot = (void **)((char *)desc + field->offset);
    static const size_t element_sizes[] =
    {
        [VKDML_FIELD_TENSOR] = sizeof(DML_TENSOR_DESC), [VKDML_FIELD_TENSOR_ARRAY] = sizeof(DML_TENSOR_DESC),
        [VKDML_FIELD_OPERATOR_DESC] = sizeof(DML_OPERATOR_DESC),
        [VKDML_FIELD_OPERATOR_DESC_ARRAY] = sizeof(DML_OPERATOR_DESC),
        [VKDML_FIELD_SCALE_BIAS] = sizeof(DML_SCALE_BIAS), [VKDML_FIELD_UINT_ARRAY] = sizeof(UINT),
        [VKDML_FIELD_INT_ARRAY] = sizeof(INT), [VKDML_FIELD_FLOAT_ARRAY] = sizeof(FLOAT),
    };
    bool is_array = field->count_field >= 0;
    UINT count = is_array ? field_count(desc, schema, field) : 1, i;
    void *copy;

    if (field->kind >= ARRAY_SIZE(element_sizes) || !element_sizes[field->kind] || !*slot || !count)
        return;
    copy = arena_copy(arena, *slot, element_sizes[field->kind] * count);
    for (i = 0; i < count; ++i)
    {
        if (field->kind == VKDML_FIELD_TENSOR || field->kind == VKDML_FIELD_TENSOR_ARRAY)
            copy_buffer_tensor(arena, copy ? (DML_TENSOR_DESC *)copy + i : (DML_TENSOR_DESC *)*slot + i);
        else if (field->kind == VKDML_FIELD_OPERATOR_DESC || field->kind == VKDML_FIELD_OPERATOR_DESC_ARRAY)
            copy_desc_fields(arena, copy ? (DML_OPERATOR_DESC *)copy + i : (DML_OPERATOR_DESC *)*slot + i);
    }
    if (copy)
        *slot = copy;
}

/* Copies desc->Desc and everything it points to, then points desc->Desc at the copy.
 * In measuring mode (no block) nothing is written; the walk still follows the originals. */
static void copy_desc_fields(struct arena *arena, DML_OPERATOR_DESC *desc)
{
    const struct vkdml_op_schema *schema = vkdml_op_schema_get(desc->Type);
    void *copy = arena_copy(arena, desc->Desc, schema->desc_size);
    void *fields = copy ? copy : (void *)desc->Desc;
    UINT i;

    for (i = 0; i < schema->field_count; ++i)
        copy_field(arena, fields, schema, &schema->fields[i]);
    if (copy)
        desc->Desc = copy;
}

static UINT count_tensors(const void *desc, const struct vkdml_op_schema *schema, enum vkdml_field_role role,
        const DML_BUFFER_TENSOR_DESC **list)
{
    UINT count = 0, i, j;

    for (i = 0; i < schema->field_count; ++i)
    {
        const struct vkdml_field_schema *field = &schema->fields[i];
        const DML_TENSOR_DESC *tensors;
        UINT n;

        /* Only tensor fields hold pointers: reading 8 bytes at a UINT field is misaligned (UB). */
        if (field->role != role)
            continue;
        tensors = field_pointer(desc, field);
        n = field->kind == VKDML_FIELD_TENSOR_ARRAY ? field_count(desc, schema, field) : 1;
        for (j = 0; j < n; ++j, ++count)
        {
            if (list)
                list[count] = tensors ? tensors[j].Desc : NULL;
        }
    }
    return count;
}

bool vkdml_operator_output_optional(const struct vkdml_operator_view *view, UINT index)
{
    const struct vkdml_op_schema *schema = vkdml_op_schema_get(view->type);
    UINT count = 0, i;

    for (i = 0; schema && i < schema->field_count; ++i)
    {
        const struct vkdml_field_schema *field = &schema->fields[i];

        if (field->role != VKDML_ROLE_OUTPUT)
            continue;
        count += field->kind == VKDML_FIELD_TENSOR_ARRAY ? field_count(view->desc, schema, field) : 1;
        if (index < count)
            return field->optional;
    }
    return false;
}

HRESULT vkdml_copy_operator_desc(const DML_OPERATOR_DESC *desc, struct vkdml_desc_copy *copy)
{
    const struct vkdml_op_schema *schema = vkdml_op_schema_get(desc->Type);
    struct arena arena = {NULL, 0};
    DML_OPERATOR_DESC *root, measure = *desc;
    struct vkdml_operator_view *view = &copy->view;
    size_t lists_size;

    memset(copy, 0, sizeof(*copy));
    arena_alloc(&arena, sizeof(*root));
    copy_desc_fields(&arena, &measure);
    view->input_count = count_tensors(desc->Desc, schema, VKDML_ROLE_INPUT, NULL);
    view->output_count = count_tensors(desc->Desc, schema, VKDML_ROLE_OUTPUT, NULL);
    lists_size = (view->input_count + view->output_count) * sizeof(void *);

    if (!(copy->memory = calloc(1, arena.used + lists_size)))
        return E_OUTOFMEMORY;
    arena = (struct arena){copy->memory, 0};
    root = arena_copy(&arena, desc, sizeof(*desc));
    copy_desc_fields(&arena, root);

    view->type = desc->Type;
    view->name = schema->name;
    view->desc = root->Desc;
    view->inputs = (const DML_BUFFER_TENSOR_DESC *const *)(arena.base + arena.used);
    view->outputs = view->inputs + view->input_count;
    count_tensors(root->Desc, schema, VKDML_ROLE_INPUT, (const DML_BUFFER_TENSOR_DESC **)view->inputs);
    count_tensors(root->Desc, schema, VKDML_ROLE_OUTPUT, (const DML_BUFFER_TENSOR_DESC **)view->outputs);
    return S_OK;
}
