/*
 * vkdml-bench's operators: which DirectML operators the bench can build, their tensors, descs and
 * data types from a shape, their input values, and the CPU references of --check.
 *
 * The catalogue holds every DML_OPERATOR_TYPE of the generated schema (api/dml_op_schema.c,
 * compiled in), with vkdml's support from vkdml_get_operator_support(). A family turns a shape into
 * tensors for a group of operators; everything else in a desc comes from the schema: tensor
 * fields point at the family's tensors in binding order, and attributes the family leaves alone
 * get defaults by kind (FLOATs and scalars by field name, enums their first value, a
 * DML_TENSOR_DATA_TYPE field the main type). So any element-wise or activation operator runs
 * without a line of its own; a new kind of operator needs a family.
 *
 * Values: float inputs are uniform in [-1, 1); integer inputs the same values spread over [-8, 8)
 * (signed) or [0, 16) (unsigned), so sums and products stay in range and shift amounts stay small.
 */
#include "operators.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "vkdml.h"

#define INT_SPREAD 8.0                  /* integer inputs: [-1, 1) times this */

/* ---- Data types and values ---- */

/* In order of preference for an operator's default type: floats, INT32, then UINT8 (the boolean
 * type of the logical operators). --type all runs them in this order too. */
static const struct
{
    DML_TENSOR_DATA_TYPE type;
    const char *name;
    unsigned int size;
    char kind;                          /* 'f'loat, 'i'nt, 'u'nsigned */
}
types[] =
{
    {FP32, "fp32", 4, 'f'}, {FP16, "fp16", 2, 'f'}, {DML_TENSOR_DATA_TYPE_INT32, "int32", 4, 'i'},
    {UINT8, "uint8", 1, 'u'}, {DML_TENSOR_DATA_TYPE_UINT32, "uint32", 4, 'u'},
    {DML_TENSOR_DATA_TYPE_INT16, "int16", 2, 'i'}, {DML_TENSOR_DATA_TYPE_UINT16, "uint16", 2, 'u'},
    {DML_TENSOR_DATA_TYPE_INT8, "int8", 1, 'i'}, {DML_TENSOR_DATA_TYPE_INT64, "int64", 8, 'i'},
    {DML_TENSOR_DATA_TYPE_UINT64, "uint64", 8, 'u'}, {DML_TENSOR_DATA_TYPE_FLOAT64, "fp64", 8, 'f'},
};

static int type_index(DML_TENSOR_DATA_TYPE type)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE(types); ++i)
    {
        if (types[i].type == type)
            return (int)i;
    }
    return -1;
}

const char *type_name(DML_TENSOR_DATA_TYPE type)
{
    int i = type_index(type);

    return i < 0 ? "?" : types[i].name;
}

DML_TENSOR_DATA_TYPE parse_type(const char *name)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE(types); ++i)
    {
        if (!strcmp(types[i].name, name))
            return types[i].type;
    }
    return DML_TENSOR_DATA_TYPE_UNKNOWN;
}

unsigned int element_size(DML_TENSOR_DATA_TYPE type)
{
    int i = type_index(type);

    return i < 0 ? 4 : types[i].size;
}

bool is_float_type(DML_TENSOR_DATA_TYPE type)
{
    int i = type_index(type);

    return i >= 0 && types[i].kind == 'f';
}

void type_set_text(uint32_t set, char *text, size_t size)
{
    size_t i, length = 0;

    text[0] = 0;
    for (i = 0; i < ARRAY_SIZE(types) && length < size; ++i)
    {
        if (set & (1u << types[i].type))
            length += snprintf(text + length, size - length, "%s%s", length ? " " : "", types[i].name);
    }
}

/* One element as `type` stores it; integers little-endian, from an integral value. */
void store_value(void *dst, double value, DML_TENSOR_DATA_TYPE type)
{
    int64_t integer = (int64_t)value;
    uint16_t half;
    float f;

    if (type == FP32)
    {
        f = (float)value;
        memcpy(dst, &f, sizeof(f));
    }
    else if (type == FP16)
    {
        half = ref_float_to_half((float)value);
        memcpy(dst, &half, sizeof(half));
    }
    else if (type == DML_TENSOR_DATA_TYPE_FLOAT64)
        memcpy(dst, &value, sizeof(value));
    else
        memcpy(dst, &integer, element_size(type));
}

void store_values(void *dst, const float *src, size_t count, DML_TENSOR_DATA_TYPE type)
{
    unsigned int size = element_size(type);
    size_t i;

    if (type == FP32)
    {
        memcpy(dst, src, count * sizeof(*src));
        return;
    }
    for (i = 0; i < count; ++i)
        store_value((char *)dst + i * size, src[i], type);
}

double load_value(const void *src, UINT64 index, DML_TENSOR_DATA_TYPE type)
{
    unsigned int size = element_size(type);
    const char *p = (const char *)src + index * size;
    uint64_t bits = 0;
    uint16_t half;
    double value;
    float f;

    if (type == FP32)
        return memcpy(&f, p, sizeof(f)), f;
    if (type == FP16)
        return memcpy(&half, p, sizeof(half)), ref_half_to_float(half);
    if (type == DML_TENSOR_DATA_TYPE_FLOAT64)
        return memcpy(&value, p, sizeof(value)), value;
    memcpy(&bits, p, size);
    if (types[type_index(type)].kind == 'i' && size < 8 && bits >> (8 * size - 1))
        bits |= ~(uint64_t)0 << (8 * size);     /* sign-extend */
    return types[type_index(type)].kind == 'i' ? (double)(int64_t)bits : (double)bits;
}

/* `value` of [-1, 1) as `type` holds it: rounded for floats, spread for integers (see the top). */
double typed_value(DML_TENSOR_DATA_TYPE type, double value)
{
    int i = type_index(type);

    if (i < 0 || types[i].kind == 'f')
        return type == FP16 ? ref_round_to_half((float)value) : type == FP32 ? (float)value : value;
    return floor((types[i].kind == 'u' ? value + 1.0 : value) * INT_SPREAD);
}

float *random_values(size_t count, DML_TENSOR_DATA_TYPE type, uint32_t seed)
{
    float *values = malloc(count ? count * sizeof(*values) : 1);
    size_t i;

    for (i = 0; values && i < count; ++i)
        values[i] = (float)typed_value(type, ref_random_float(&seed, -1.0f, 1.0f));
    return values;
}

float *input_values(const struct workload *w, UINT input, size_t count)
{
    int64_t low = w->value_low[input], high = w->value_high[input];
    uint32_t seed = 0x9e3779b9u * (input + 1);
    size_t size = count ? count * sizeof(float) : 1, j;
    float *values;

    if (w->op->family->values && (values = malloc(size)))
    {
        if (w->op->family->values(w, input, values, count))
            return values;
        free(values);
    }
    if (high <= low)
        return random_values(count, w->inputs[input].buffer.DataType, seed);
    if (!(values = malloc(size)))
        return NULL;
    for (j = 0; j < count; ++j)
        values[j] = (float)(low + (int64_t)(ref_random(&seed) % (uint64_t)(high - low)));
    return values;
}

/* ---- Tensors ---- */

void tensor_init(struct tensor *t, DML_TENSOR_DATA_TYPE type, UINT rank, const UINT *sizes,
        const UINT *strides)
{
    UINT i;

    memset(t, 0, sizeof(*t));
    t->rank = rank;
    for (i = 0; i < rank; ++i)
    {
        t->sizes[i] = sizes[i];
        t->strides[i] = strides ? strides[i] : 0;
    }
    t->buffer.DataType = type;
    t->buffer.Flags = DML_TENSOR_FLAG_NONE;
    t->buffer.DimensionCount = rank;
    t->buffer.Sizes = t->sizes;
    t->buffer.Strides = strides ? t->strides : NULL;
    t->buffer.TotalTensorSizeInBytes = vkdml_calc_buffer_tensor_size(type, rank, sizes, strides);
    t->desc.Type = DML_TENSOR_TYPE_BUFFER;
    t->desc.Desc = &t->buffer;
}

UINT64 tensor_elements(const struct tensor *t)
{
    UINT64 count = 1;
    UINT i;

    for (i = 0; i < t->rank; ++i)
        count *= t->sizes[i];
    return count;
}

UINT64 tensor_storage_elements(const struct tensor *t)
{
    return t->buffer.TotalTensorSizeInBytes / element_size(t->buffer.DataType);
}

UINT64 tensor_offset(const struct tensor *t, UINT64 index)
{
    UINT64 offset = 0, packed = 1;
    int d;

    for (d = (int)t->rank - 1; d >= 0; --d)
    {
        offset += index % t->sizes[d] * (t->buffer.Strides ? t->strides[d] : packed);
        index /= t->sizes[d];
        packed *= t->sizes[d];
    }
    return offset;
}

UINT parse_shape(const char *text, UINT *dims)
{
    UINT count = 0;
    char *end;

    while (count < MAX_DIMS)
    {
        unsigned long value = strtoul(text, &end, 10);

        if (end == text || !value || value > UINT32_MAX)
            return 0;
        dims[count++] = (UINT)value;
        if (!*end)
            return count;
        if (*end != 'x' && *end != ',')
            return 0;
        text = end + 1;
    }
    return 0;
}

/* The shape's axes after its ':': "first", "last" or "A,B,..."; NULL or what is wrong. */
static const char *parse_axes(const char *text, struct workload *w)
{
    char *end;

    if (!strcmp(text, "first") || !strcmp(text, "last"))
    {
        w->axes[0] = text[0] == 'f' ? 0 : w->dim_count - 1;
        w->axis_count = 1;
        return NULL;
    }
    while (w->axis_count < MAX_RANK)
    {
        unsigned long axis = strtoul(text, &end, 10);
        UINT i;

        if (end == text || axis >= w->dim_count)
            return "an axis (:AXES) is not below the shape's rank";
        for (i = 0; i < w->axis_count; ++i)
        {
            if (w->axes[i] == axis)
                return "an axis (:AXES) is repeated";
        }
        w->axes[w->axis_count++] = (UINT)axis;
        if (!*end)
            return NULL;
        if (*end != ',')
            break;
        text = end + 1;
    }
    return "malformed axes (:first, :last, or axis numbers joined by ',')";
}

const char *parse_workload_shape(const char *text, struct workload *w)
{
    size_t length = strcspn(text, "k@:");
    char dims[128], *end;

    w->k = w->axis_count = 0;
    w->other_type = DML_TENSOR_DATA_TYPE_UNKNOWN;
    if (length >= sizeof(dims))
        return "too many dimensions";
    memcpy(dims, text, length);
    dims[length] = 0;
    if (!(w->dim_count = parse_shape(dims, w->dims)))
        return "malformed dimensions";
    text += length;
    if (*text == 'k')
    {
        unsigned long k = strtoul(text + 1, &end, 10);

        if (end == text + 1 || !k || k > UINT32_MAX)
            return "K (kK) is not a positive number";
        w->k = (UINT)k;
        text = end;
    }
    if (*text == '@')
    {
        length = strcspn(++text, ":");
        snprintf(dims, sizeof(dims), "%.*s", (int)length, text);
        if ((w->other_type = parse_type(dims)) == DML_TENSOR_DATA_TYPE_UNKNOWN)
            return "no such type after '@'";
        text += length;
    }
    if (*text == ':')
        return parse_axes(text + 1, w);
    return *text ? "malformed suffix (kK, then @TYPE, then :AXES)" : NULL;
}

/* An enum value's name without the enum's prefix, lower case, '-' for '_': DML_REDUCE_FUNCTION_SUM_SQUARE's
 * "sum-square", DML_PADDING_MODE_REFLECTION's "reflection"; false for a value the enum lacks. */
static bool enum_value_text(enum vkdml_enum_id id, int value, char *text, size_t size)
{
    const char *name = vkdml_enum_value_name(id, value), *prefix = vkdml_enum_name(id);
    size_t skip = prefix ? strlen(prefix) + 1 : 0, i;

    if (!name || strlen(name) <= skip)
        return false;
    for (i = 0; name[skip + i] && i + 1 < size; ++i)
        text[i] = name[skip + i] == '_' ? '-' : (char)(name[skip + i] | 0x20);
    text[i] = 0;
    return true;
}

static int parse_enum_value(enum vkdml_enum_id id, const char *name)
{
    char text[40];
    int value;

    for (value = 0; value < 64; ++value)
    {
        if (enum_value_text(id, value, text, sizeof(text)) && !strcmp(text, name))
            return value;
    }
    return -1;
}

int parse_reduce_function(const char *name)
{
    return parse_enum_value(VKDML_ENUM_DML_REDUCE_FUNCTION, name);
}

/* ---- Families: tensors from the shape ---- */

/* Operators whose output is boolean (UINT8; DirectML also takes UINT32) from inputs of another type. */
static bool writes_booleans(DML_OPERATOR_TYPE type)
{
    switch (type)
    {
        case DML_OPERATOR_ELEMENT_WISE_LOGICAL_EQUALS:
        case DML_OPERATOR_ELEMENT_WISE_LOGICAL_GREATER_THAN:
        case DML_OPERATOR_ELEMENT_WISE_LOGICAL_LESS_THAN:
        case DML_OPERATOR_ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL:
        case DML_OPERATOR_ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL:
        case DML_OPERATOR_ELEMENT_WISE_IS_NAN:
        case DML_OPERATOR_ELEMENT_WISE_IS_INFINITY:
        case DML_OPERATOR_ELEMENT_WISE_BIT_COUNT:
            return true;
        default:
            return false;
    }
}

/* The main type, but for boolean tensors: those outputs, and IF's ConditionTensor. */
static DML_TENSOR_DATA_TYPE tensor_type(const struct workload *w, const struct vkdml_field_schema *field)
{
    if (!strcmp(field->name, "ConditionTensor") || (field->role == VKDML_ROLE_OUTPUT && writes_booleans(w->op->type)))
        return UINT8;
    return w->type;
}

const struct vkdml_field_schema *field_named(const struct vkdml_op_schema *schema, const char *name)
{
    UINT i;

    for (i = 0; i < schema->field_count; ++i)
    {
        if (!strcmp(schema->fields[i].name, name))
            return &schema->fields[i];
    }
    return NULL;
}

void set_array_field(struct workload *w, const char *name, const void *values, UINT count)
{
    const struct vkdml_field_schema *field = field_named(w->op->schema, name);

    if (!field)
        return;
    *(const void **)(w->desc.bytes + field->offset) = values;
    *(UINT *)(w->desc.bytes + w->op->schema->fields[field->count_field].offset) = count;
}

/* ":PERM" of an element-wise shape: the inputs are stored packed in the shape's order and read in
 * the order PERM gives (x.permute(PERM) in PyTorch), into `sizes` and `strides`; the output is packed
 * in that order: a transpose (NCHW to NHWC: 32x256x56x56:0,2,3,1). */
static const char *permuted_layout(const struct workload *w, UINT *sizes, UINT *strides)
{
    UINT packed[MAX_RANK], stride = 1, i;
    int d;

    if (w->axis_count != w->dim_count)
        return "an element-wise shape's :PERM names every axis once (0,2,3,1: NCHW read as NHWC)";
    for (d = (int)w->dim_count - 1; d >= 0; --d)
    {
        packed[d] = stride;
        stride *= w->dims[d];
    }
    for (i = 0; i < w->dim_count; ++i)
    {
        sizes[i] = w->dims[w->axes[i]];
        strides[i] = packed[w->axes[i]];
    }
    return NULL;
}

/* Every tensor has the shape; optional inputs are left out. --broadcast gives every input after the
 * first one innermost row, repeated over the other dimensions (0-strides); `permute`: the shape's
 * axes are ":PERM", which reads every input transposed (permuted_layout). */
static const char *elementwise_tensors(struct workload *w, bool permute)
{
    const struct vkdml_op_schema *schema = w->op->schema;
    UINT rank = w->dim_count, row[MAX_RANK], sizes[MAX_RANK], permuted[MAX_RANK], input = 0, i;
    const UINT *strides;
    const char *why;

    if (rank > MAX_RANK)
        return "element-wise shapes have 1 to 8 dimensions";
    if (permute && w->broadcast)
        return "--broadcast and :PERM do not go together";
    memcpy(sizes, w->dims, rank * sizeof(*sizes));
    if (permute && (why = permuted_layout(w, sizes, permuted)))
        return why;
    for (i = 0; i < rank; ++i)
        row[i] = i + 1 == rank;
    for (i = 0; i < schema->field_count; ++i)
    {
        const struct vkdml_field_schema *f = &schema->fields[i];

        if (f->kind != VKDML_FIELD_TENSOR)
            continue;
        strides = permute ? permuted : w->broadcast && input ? row : NULL;
        if (f->role == VKDML_ROLE_OUTPUT)
            tensor_init(&w->output, tensor_type(w, f), rank, sizes, NULL);
        else if (input < MAX_INPUTS && !f->optional)
            tensor_init(&w->inputs[input], tensor_type(w, f), rank, sizes, strides);
        input += f->role == VKDML_ROLE_INPUT;
    }
    if (w->broadcast && input < 2)
        return "--broadcast needs an operator with two inputs or more";
    w->flops = (double)tensor_elements(&w->output);
    return NULL;
}

static const char *build_elementwise(struct workload *w)
{
    return elementwise_tensors(w, w->axis_count != 0);
}

void set_uint_field(struct workload *w, const char *name, UINT value)
{
    const struct vkdml_field_schema *field = field_named(w->op->schema, name);

    if (field)
        *(UINT *)(w->desc.bytes + field->offset) = value;
}

const char *reduction_axes(struct workload *w)
{
    if (w->dim_count > MAX_RANK)
        return "shapes have 1 to 8 dimensions";
    if (!w->axis_count)
    {
        w->axes[0] = w->dim_count - 1;
        w->axis_count = 1;
    }
    return NULL;
}

/* The desc's Axes, or its single Axis; operators with neither (SOFTMAX's first form) work along
 * the last axis. */
static const char *write_axes(struct workload *w)
{
    const char *why = reduction_axes(w);

    if (why)
        return why;
    if (field_named(w->op->schema, "Axes"))
        set_array_field(w, "Axes", w->axes, w->axis_count);
    else if (field_named(w->op->schema, "Axis") && w->axis_count == 1)
        set_uint_field(w, "Axis", w->axes[0]);
    else if (w->axis_count != 1 || w->axes[0] != w->dim_count - 1)
        return field_named(w->op->schema, "Axis") ? "the operator takes one axis" : "the operator works along the "
                "last axis only (its '1' form takes Axes)";
    return NULL;
}

/* Element-wise tensors, along the shape's axes: the softmax family and the cumulative operators. */
static const char *build_axis(struct workload *w)
{
    const char *why = elementwise_tensors(w, false);

    return why ? why : write_axes(w);
}

/* Whether the operator's output holds indices (UINT32, the first type DirectML lists for them). */
static bool writes_indices(const struct workload *w)
{
    DML_OPERATOR_TYPE type = w->op->type;

    return type == DML_OPERATOR_ARGMIN || type == DML_OPERATOR_ARGMAX || (type == DML_OPERATOR_REDUCE
            && (w->reduce_function == DML_REDUCE_FUNCTION_ARGMIN || w->reduce_function == DML_REDUCE_FUNCTION_ARGMAX));
}

/* REDUCE, ARGMIN, ARGMAX: the output keeps the input's rank, its reduced axes of size 1. REDUCE's
 * Function is --reduce-function's or the preset's, else SUM; AxisDirection is left INCREASING (ties
 * go to the lowest index). */
static const char *build_reduce(struct workload *w)
{
    UINT sizes[MAX_RANK], i;
    const char *why;

    w->reduce_function = w->function ? parse_reduce_function(w->function) : DML_REDUCE_FUNCTION_SUM;
    if ((why = reduction_axes(w)))
        return why;
    memcpy(sizes, w->dims, w->dim_count * sizeof(*sizes));
    for (i = 0; i < w->axis_count; ++i)
        sizes[w->axes[i]] = 1;
    tensor_init(&w->inputs[0], w->type, w->dim_count, w->dims, NULL);
    tensor_init(&w->output, writes_indices(w) ? DML_TENSOR_DATA_TYPE_UINT32 : w->type, w->dim_count, sizes, NULL);
    set_array_field(w, "Axes", w->axes, w->axis_count);
    set_uint_field(w, "Function", w->reduce_function);
    w->flops = (double)tensor_elements(&w->inputs[0]);
    return NULL;
}

/* TOP_K, TOP_K1: the K largest along the axis (TOP_K1's AxisDirection DECREASING, as TOP_K), with
 * UINT32 indices. */
static const char *build_top_k(struct workload *w)
{
    UINT sizes[MAX_RANK];
    const char *why;

    if ((why = reduction_axes(w)))
        return why;
    if (w->axis_count != 1)
        return "TOP_K takes one axis";
    if (!w->k || w->k > w->dims[w->axes[0]])
        return "TOP_K shapes end in kK, K from 1 to the axis' size";
    memcpy(sizes, w->dims, w->dim_count * sizeof(*sizes));
    sizes[w->axes[0]] = w->k;
    tensor_init(&w->inputs[0], w->type, w->dim_count, w->dims, NULL);
    tensor_init(&w->output, w->type, w->dim_count, sizes, NULL);
    tensor_init(&w->more_outputs[0], DML_TENSOR_DATA_TYPE_UINT32, w->dim_count, sizes, NULL);
    set_uint_field(w, "Axis", w->axes[0]);
    set_uint_field(w, "K", w->k);
    set_uint_field(w, "AxisDirection", DML_AXIS_DIRECTION_DECREASING);
    w->flops = 0.0;
    return NULL;
}

static const char *build_gemm(struct workload *w)
{
    DML_GEMM_OPERATOR_DESC *desc = (DML_GEMM_OPERATOR_DESC *)w->desc.bytes;
    UINT m, k, n, a[4], b[4], out[4];

    if (w->dim_count != 3)
        return "GEMM shapes are MxKxN";
    m = w->dims[0];
    k = w->dims[1];
    n = w->dims[2];
    a[0] = b[0] = out[0] = a[1] = b[1] = out[1] = 1;
    a[2] = out[2] = m;
    a[3] = b[2] = k;
    b[3] = out[3] = n;
    tensor_init(&w->inputs[0], w->type, 4, a, NULL);
    tensor_init(&w->inputs[1], w->type, 4, b, NULL);
    tensor_init(&w->output, w->type, 4, out, NULL);
    desc->Alpha = 1.0f;                 /* TransA, TransB: the enums' first value, NONE */
    desc->Beta = 0.0f;
    w->flops = 2.0 * m * n * k;
    /* With a side of at most 8 (vkdml's GEMV kernel) a GEMM does at most 16 flops per element of
     * the large operand: reading it is what takes the time. */
    w->memory_bound = m <= 8 || n <= 8;
    return NULL;
}

/* Convolution-like shapes go on after the image {N, C, H, W} with a window RxS[xSTRIDE[xPAD]] at
 * dims[first]; PAD defaults to (R-1)/2 and (S-1)/2: the output keeps the image's size at stride 1.
 * Fills the 2-D attribute arrays, the desc's fields that take them, and the output's spatial sizes. */
const char *window_geometry(struct workload *w, UINT first, UINT *spatial)
{
    const UINT *d = w->dims;
    UINT stride = w->dim_count > first + 2 ? d[first + 2] : 1, i;

    for (i = 0; i < 2; ++i)
    {
        UINT pad = w->dim_count > first + 3 ? d[first + 3] : (d[first + i] - 1) / 2;

        w->window[i] = d[first + i];
        w->strides[i] = stride;
        w->dilations[i] = 1;
        w->start_padding[i] = w->end_padding[i] = pad;
        if (d[2 + i] + 2 * pad < w->window[i])
            return "the window is larger than the padded image";
        spatial[i] = (d[2 + i] + 2 * pad - w->window[i]) / stride + 1;
    }
    set_array_field(w, "WindowSizes", w->window, 2);
    set_array_field(w, "WindowSize", w->window, 2);     /* the pooling operators' name */
    set_array_field(w, "Strides", w->strides, 2);
    set_array_field(w, "Dilations", w->dilations, 2);
    set_array_field(w, "StartPadding", w->start_padding, 2);
    set_array_field(w, "EndPadding", w->end_padding, 2);
    set_array_field(w, "OutputPadding", w->output_padding, 2);
    return NULL;
}

static const char *build_conv(struct workload *w)
{
    DML_CONVOLUTION_OPERATOR_DESC *desc = (DML_CONVOLUTION_OPERATOR_DESC *)w->desc.bytes;
    const UINT *d = w->dims;
    UINT filter[4], out[4];
    const char *why;

    if (w->dim_count < 7 || w->dim_count > 9)
        return "convolution shapes are NxCxHxWxKxRxS[xSTRIDE[xPAD]]";
    if ((why = window_geometry(w, 5, &out[2])))
        return why;
    filter[0] = out[1] = d[4];
    filter[1] = d[1];
    filter[2] = w->window[0];
    filter[3] = w->window[1];
    out[0] = d[0];
    tensor_init(&w->inputs[0], w->type, 4, d, NULL);
    tensor_init(&w->inputs[1], w->type, 4, filter, NULL);
    tensor_init(&w->output, w->type, 4, out, NULL);
    desc->Mode = DML_CONVOLUTION_MODE_CROSS_CORRELATION;  /* the enum's first value flips the kernel */
    desc->GroupCount = 1;               /* Direction: the enum's first value, FORWARD */
    w->flops = 2.0 * out[0] * out[1] * out[2] * out[3] * d[1] * filter[2] * filter[3];
    return NULL;
}

/* The image {N, C, H, W} and the columns {N, C x R x S, blocks}: FOLD's output and input, UNFOLD's
 * input and output. */
static const char *build_fold(struct workload *w)
{
    bool fold = w->op->type == DML_OPERATOR_FOLD;
    UINT spatial[2], columns[3];
    const char *why;

    if (w->dim_count < 6 || w->dim_count > 8)
        return "FOLD and UNFOLD shapes are NxCxHxWxRxS[xSTRIDE[xPAD]] (the image, then the window)";
    if ((why = window_geometry(w, 4, spatial)))
        return why;
    columns[0] = w->dims[0];
    columns[1] = w->dims[1] * w->window[0] * w->window[1];
    columns[2] = spatial[0] * spatial[1];
    tensor_init(fold ? &w->output : &w->inputs[0], w->type, 4, w->dims, NULL);
    tensor_init(fold ? &w->inputs[0] : &w->output, w->type, 3, columns, NULL);
    w->flops = 0.0;
    return NULL;
}

#define FLOAT_TYPES ((1u << FP32) | (1u << FP16))
#define INT32_TYPES ((1u << DML_TENSOR_DATA_TYPE_INT32) | (1u << DML_TENSOR_DATA_TYPE_UINT32))

/* `types`: what the family's operators take when vkdml does not report it. */
static const struct family elementwise_family =
        {"element-wise", "N or DxDx...[:PERM] (1 to 8 dimensions; PERM: inputs read transposed, 0,2,3,1: NCHW "
        "as NHWC)", "16777216", "5x7x9", false, false, build_elementwise, 0, SUFFIX_AXES};
static const struct family axis_family =
        {"axis", "DxDx...[:AXES] (AXES: first, last, or A,B,...; default last)", "4096x4096", "7x33", false, true,
        build_axis, FLOAT_TYPES, SUFFIX_AXES};
static const struct family scan_family =
        {"scan", "DxDx...[:AXIS] (first, last or A; default last)", "8192x8192", "7x33", false, true, build_axis,
        FLOAT_TYPES | INT32_TYPES, SUFFIX_AXES};
static const struct family reduce_family =
        {"reduce", "DxDx...[:AXES] (first, last, or A,B,...; default last)", "8192x8192", "5x33x7:0,2", false, true,
        build_reduce, FLOAT_TYPES | INT32_TYPES, SUFFIX_AXES};
static const struct family top_k_family =
        {"top-k", "DxDx...kK[:AXIS] (K per row, along the last axis by default)", "8192x8192k8", "7x33k5", false,
        true, build_top_k, FLOAT_TYPES | INT32_TYPES, SUFFIX_AXES | SUFFIX_K};
/* GEMM's C and convolution's bias are left out. */
static const struct family gemm_family =
        {"gemm", "MxKxN", "1024x1024x1024", "33x17x45", true, true, build_gemm, FLOAT_TYPES};
static const struct family conv_family =
        {"convolution", "NxCxHxWxKxRxS[xSTRIDE[xPAD]] (NCHW; PAD defaults to (R-1)/2)", "16x64x56x56x64x3x3",
        "2x3x9x9x4x3x3", true, true, build_conv, FLOAT_TYPES};
static const struct family fold_family =
        {"fold", "NxCxHxWxRxS[xSTRIDE[xPAD]] (the image, then the window)", "16x64x56x56x3x3", "2x3x7x6x3x2", false,
        false, build_fold, FLOAT_TYPES | INT32_TYPES};
/* FILL_VALUE_CONSTANT and FILL_VALUE_SEQUENCE: the element-wise shapes, an output and no input. */
static const struct family generator_family =
        {"generator", "N or DxDx... (1 to 8 dimensions)", "16777216", "5x7x9", false, false, build_elementwise, 0};

/* Operators outside the element-wise family; ELEMENT_WISE_* and ACTIVATION_* not named here have
 * tensors of one shape. The quantized ones have none: their scale and zero-point tensors need
 * types and shapes of their own. */
static const struct
{
    const char *name;
    const struct family *family;
}
named_families[] =
{
    {"GEMM", &gemm_family}, {"CONVOLUTION", &conv_family}, {"FOLD", &fold_family}, {"UNFOLD", &fold_family},
    {"ACTIVATION_SOFTMAX", &axis_family}, {"ACTIVATION_SOFTMAX1", &axis_family},
    {"ACTIVATION_LOG_SOFTMAX", &axis_family}, {"ACTIVATION_LOG_SOFTMAX1", &axis_family},
    {"ACTIVATION_HARDMAX", &axis_family}, {"ACTIVATION_HARDMAX1", &axis_family},
    {"REDUCE", &reduce_family}, {"ARGMIN", &reduce_family}, {"ARGMAX", &reduce_family},
    {"TOP_K", &top_k_family}, {"TOP_K1", &top_k_family},
    {"CUMULATIVE_SUMMATION", &scan_family}, {"CUMULATIVE_PRODUCT", &scan_family},
    {"FILL_VALUE_CONSTANT", &generator_family}, {"FILL_VALUE_SEQUENCE", &generator_family},
    {"ELEMENT_WISE_QUANTIZE_LINEAR", NULL}, {"ELEMENT_WISE_DEQUANTIZE_LINEAR", NULL},
    {"ELEMENT_WISE_QUANTIZED_LINEAR_ADD", NULL},
};

/* Families in files of their own (operators.h lists them): one row each. */
static const struct
{
    const struct family *(*family)(const char *schema_name);
    const struct reference *(*reference)(DML_OPERATOR_TYPE type);
}
family_files[] =
{
    {movement_family, movement_reference},
    {roi_family, roi_reference},
    {mvn_family, mvn_reference},
    {resample_family, resample_reference},
    {pooling_family, pooling_reference},
    {normalization_family, normalization_reference},
};

static const struct family *family_of(const struct vkdml_op_schema *schema)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE(named_families); ++i)
    {
        if (!strcmp(named_families[i].name, schema->name))
            return named_families[i].family;
    }
    for (i = 0; i < ARRAY_SIZE(family_files); ++i)
    {
        if (family_files[i].family(schema->name))
            return family_files[i].family(schema->name);
    }
    if (!strncmp(schema->name, "ELEMENT_WISE_", 13) || !strncmp(schema->name, "ACTIVATION_", 11))
        return &elementwise_family;
    return NULL;
}

/* ---- Descs: attribute defaults and tensor fields from the schema ---- */

/* FLOAT and DML_SCALAR_UNION attributes a family leaves alone, by field name; any other gets 0.5:
 * inside the inputs' range, so thresholds split them, and not 0, so scales keep them apart. */
static const struct
{
    const char *field;
    double value;
}
attribute_values[] =
{
    {"Min", -0.5}, {"Max", 0.5},        /* CLIP, CLIP1, THRESHOLD: ordered bounds */
    {"Exponent", 2.0},                  /* CONSTANT_POW: defined for negative inputs */
    {"Steepness", 1.0},                 /* SOFTPLUS: its usual value */
};

static double attribute_value(const char *field)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE(attribute_values); ++i)
    {
        if (!strcmp(attribute_values[i].field, field))
            return attribute_values[i].value;
    }
    return 0.5;
}

static int first_enum_value(enum vkdml_enum_id id)
{
    int value;

    for (value = 0; value < 256; ++value)
    {
        if (vkdml_enum_value_name(id, value))
            return value;
    }
    return 0;
}

/* Zero for pointers (optional fields absent), counts and booleans; values for the rest. */
static void write_default_attributes(struct workload *w)
{
    const struct vkdml_op_schema *schema = w->op->schema;
    UINT i;

    memset(&w->desc, 0, sizeof(w->desc));
    for (i = 0; i < schema->field_count; ++i)
    {
        const struct vkdml_field_schema *f = &schema->fields[i];
        void *field = w->desc.bytes + f->offset;

        if (f->kind == VKDML_FIELD_FLOAT)
            *(FLOAT *)field = (FLOAT)attribute_value(f->name);
        else if (f->kind == VKDML_FIELD_SCALAR_UNION)
            store_value(field, typed_value(w->type, attribute_value(f->name)), w->type);
        else if (f->kind == VKDML_FIELD_ENUM)
            *(int *)field = f->enum_id == VKDML_ENUM_DML_TENSOR_DATA_TYPE ? (int)w->type : first_enum_value(f->enum_id);
    }
}

/* The output bound `index`-th: the output, then the others (TOP_K's indices, SPLIT's parts). */
static struct tensor *output_tensor(struct workload *w, UINT index)
{
    return index ? &w->more_outputs[index - 1] : &w->output;
}

/* Points a tensor-array field (JOIN's inputs, SPLIT's outputs) at copies of the family's first
 * `array_count` inputs or outputs, and sets its count field. */
static const char *write_tensor_array(struct workload *w, const struct vkdml_field_schema *f)
{
    bool output = f->role == VKDML_ROLE_OUTPUT;
    UINT i;

    if (!w->array_count || w->array_count > (output ? MAX_OUTPUTS : MAX_INPUTS))
        return "vkdml-bench's family for the operator gives its tensor array no tensors";
    for (i = 0; i < w->array_count; ++i)
        w->tensor_array[i] = output ? output_tensor(w, i)->desc : w->inputs[i].desc;
    *(const DML_TENSOR_DESC **)(w->desc.bytes + f->offset) = w->tensor_array;
    *(UINT *)(w->desc.bytes + w->op->schema->fields[f->count_field].offset) = w->array_count;
    if (output)
        w->output_count = w->array_count;
    else
        w->input_count = w->array_count;
    return NULL;
}

/* Points the desc's tensor fields at the family's tensors, in binding order. */
static const char *write_tensor_fields(struct workload *w)
{
    const struct vkdml_op_schema *schema = w->op->schema;
    UINT i;

    w->input_count = w->output_count = 0;
    for (i = 0; i < schema->field_count; ++i)
    {
        const struct vkdml_field_schema *f = &schema->fields[i];
        const char *why;
        struct tensor *t;

        if (f->kind == VKDML_FIELD_TENSOR_ARRAY && f->role != VKDML_ROLE_ATTRIBUTE)
        {
            if ((why = write_tensor_array(w, f)))
                return why;
            continue;
        }
        if (f->kind != VKDML_FIELD_TENSOR)
            continue;
        if (f->role == VKDML_ROLE_OUTPUT ? w->output_count == MAX_OUTPUTS : w->input_count == MAX_INPUTS)
            return "the operator has more tensors than vkdml-bench binds";
        if (f->role == VKDML_ROLE_OUTPUT)
            t = output_tensor(w, w->output_count++);
        else
            t = &w->inputs[w->input_count++];
        if (!t->rank && !f->optional)
            return "vkdml-bench's family for the operator leaves a tensor out";
        *(const DML_TENSOR_DESC **)(w->desc.bytes + f->offset) = t->rank ? &t->desc : NULL;
    }
    return NULL;
}

/* The operator's mode attribute, which --mode sets: REDUCE's Function, PADDING's PaddingMode,
 * DEPTH_TO_SPACE1's Order; NULL: none. */
static const struct vkdml_field_schema *mode_field(const struct vkdml_op_schema *schema)
{
    static const char *const names[] = {"Function", "PaddingMode", "Order", "InterpolationMode"};
    const struct vkdml_field_schema *field;
    size_t i;

    for (i = 0; i < ARRAY_SIZE(names); ++i)
    {
        if ((field = field_named(schema, names[i])) && field->kind == VKDML_FIELD_ENUM)
            return field;
    }
    return NULL;
}

int parse_mode(const struct op_info *op, const char *name)
{
    const struct vkdml_field_schema *field = mode_field(op->schema);

    return field ? parse_enum_value(field->enum_id, name) : -1;
}

static const struct reference *find_reference(const struct workload *w);

const char *build_workload(struct workload *w)
{
    const char *why;
    UINT i;

    if (w->op->schema->desc_size > MAX_DESC_BYTES)
        return "the operator's desc is larger than vkdml-bench holds";
    if (w->k && !(w->op->family->suffixes & SUFFIX_K))
        return "only TOP_K's shapes take kK";
    if (w->axis_count && !(w->op->family->suffixes & SUFFIX_AXES))
        return "the operator's shapes take no :AXES";
    if (w->other_type && !(w->op->family->suffixes & SUFFIX_TYPE))
        return "the operator's shapes take no @TYPE";
    if (w->function && !mode_field(w->op->schema))
        return "--mode (--reduce-function) goes with REDUCE, PADDING, SPACE_TO_DEPTH1 and DEPTH_TO_SPACE1";
    w->mode = w->function ? parse_mode(w->op, w->function) : -1;
    if (w->function && w->mode < 0)
        return "no such mode (--mode) for the operator";
    write_default_attributes(w);
    if (w->mode >= 0)
        *(int *)(w->desc.bytes + mode_field(w->op->schema)->offset) = w->mode;
    w->bytes = 0.0;
    if ((why = w->op->family->build(w)) || (why = write_tensor_fields(w)))
        return why;
    if (w->bytes == 0.0)    /* a family that moves less than its whole tensors set its own */
    {
        for (i = 0; i < w->output_count; ++i)
            w->bytes += output_tensor(w, i)->buffer.TotalTensorSizeInBytes;
        for (i = 0; i < w->input_count; ++i)
            w->bytes += w->inputs[i].buffer.TotalTensorSizeInBytes;
    }
    w->reference = find_reference(w);
    return NULL;
}

UINT workload_types(const struct workload *w, DML_TENSOR_DATA_TYPE *types_out)
{
    UINT i, count = 0;

    for (i = 0; i < w->input_count; ++i)
    {
        if (w->inputs[i].rank)
            types_out[count++] = w->inputs[i].buffer.DataType;
    }
    for (i = 0; i < w->output_count; ++i)
    {
        if (output_tensor((struct workload *)w, i)->rank)
            types_out[count++] = output_tensor((struct workload *)w, i)->buffer.DataType;
    }
    return count;
}

UINT workload_outputs(const struct workload *w, const struct tensor **outputs)
{
    UINT i;

    for (i = 0; i < w->output_count; ++i)
        outputs[i] = output_tensor((struct workload *)w, i);
    return w->output_count;
}

/* ---- The catalogue ---- */

static struct op_info catalogue[VKDML_OPERATOR_TYPE_COUNT];
static unsigned int catalogue_count;

/* Other names --op takes (the bench's earlier ones). */
static const struct
{
    const char *alias, *name;
}
aliases[] =
{
    {"conv", "CONVOLUTION"},
};

static const struct vkdml_op_schema *schema_named(const char *name)
{
    const struct vkdml_op_schema *schema;
    unsigned int t;

    if (!strncasecmp(name, "DML_OPERATOR_", 13))
        name += 13;
    for (t = 1; t < VKDML_OPERATOR_TYPE_COUNT; ++t)
    {
        if ((schema = vkdml_op_schema_get(t)) && !strcasecmp(schema->name, name))
            return schema;
    }
    return NULL;
}

/* The DirectML name in lower case with '-' for '_', less ELEMENT_WISE_ or ACTIVATION_; an
 * activation whose name an element-wise operator has too (IDENTITY, TANH) keeps "activation-". */
static void op_name(const struct vkdml_op_schema *schema, char *name, size_t size)
{
    const char *base = schema->name;
    char twin[64];
    size_t i;

    if (!strncmp(base, "ELEMENT_WISE_", 13))
        base += 13;
    else if (!strncmp(base, "ACTIVATION_", 11))
    {
        snprintf(twin, sizeof(twin), "ELEMENT_WISE_%s", base + 11);
        base += schema_named(twin) ? 0 : 11;
    }
    for (i = 0; base[i] && i + 1 < size; ++i)
        name[i] = base[i] == '_' ? '-' : (char)(base[i] | 0x20);
    name[i] = 0;
}

unsigned int catalogue_init(int adapter_index)
{
    static struct vkdml_operator_support support[VKDML_OPERATOR_TYPE_COUNT];
    uint32_t count = vkdml_get_operator_type_count(), t;
    bool known;

    count = count < VKDML_OPERATOR_TYPE_COUNT ? count : VKDML_OPERATOR_TYPE_COUNT;
    known = adapter_index >= 0 && !vkdml_get_operator_support(adapter_index, count, support, sizeof(support[0]));
    catalogue_count = 0;
    for (t = 1; t < VKDML_OPERATOR_TYPE_COUNT; ++t)
    {
        struct op_info *op = &catalogue[catalogue_count];

        if (!(op->schema = vkdml_op_schema_get(t)))
            continue;
        ++catalogue_count;
        op->type = t;
        op->family = family_of(op->schema);
        op_name(op->schema, op->name, sizeof(op->name));
        op->implemented = known && t < count && support[t].implemented;
        op->data_types = op->implemented ? support[t].data_types : 0;
        op->device_data_types = op->implemented ? support[t].device_data_types : 0;
    }
    return catalogue_count;
}

const struct op_info *catalogue_entry(unsigned int index)
{
    return index < catalogue_count ? &catalogue[index] : NULL;
}

const struct op_info *find_op(const char *name)
{
    const struct vkdml_op_schema *schema;
    unsigned int i;
    size_t a;

    for (a = 0; a < ARRAY_SIZE(aliases); ++a)
        name = strcmp(aliases[a].alias, name) ? name : aliases[a].name;
    schema = schema_named(name);
    for (i = 0; i < catalogue_count; ++i)
    {
        if (!strcmp(catalogue[i].name, name) || catalogue[i].schema == schema)
            return &catalogue[i];
    }
    return NULL;
}

/* The types DirectML's page lists for the tensor the operator computes on, as vkdml's support table
 * picks it (backend_vk/ops/op_support.c): the first of its first same-type group, else its first
 * input, else its output; 0: not recorded. */
static uint32_t schema_types(const struct vkdml_op_schema *schema)
{
    UINT i, role;

    if (!schema->tensor_support)
        return 0;
    if (schema->same_type_count)
        return schema->fields[schema->same_type[0].fields[0]].data_types;
    for (role = VKDML_ROLE_INPUT; role <= VKDML_ROLE_OUTPUT; ++role)
    {
        for (i = 0; i < schema->field_count; ++i)
        {
            if (schema->fields[i].role == role)
                return schema->fields[i].data_types;
        }
    }
    return 0;
}

/* Where vkdml reports none: the family's, within those DirectML lists. */
uint32_t op_types(const struct op_info *op)
{
    uint32_t listed = schema_types(op->schema), family = op->family ? op->family->types : 0;

    if (op->data_types)
        return op->data_types;
    return listed && family & listed ? family & listed : family;
}

_Static_assert(ARRAY_SIZE(types) == MAX_TYPES, "MAX_TYPES");

unsigned int op_type_list(const struct op_info *op, DML_TENSOR_DATA_TYPE *list)
{
    unsigned int count = 0;
    size_t i;

    for (i = 0; i < ARRAY_SIZE(types); ++i)
    {
        if (op_types(op) & (1u << types[i].type))
            list[count++] = types[i].type;
    }
    if (!count)
        list[count++] = FP32;
    return count;
}

DML_TENSOR_DATA_TYPE default_type(const struct op_info *op)
{
    DML_TENSOR_DATA_TYPE list[MAX_TYPES];

    op_type_list(op, list);
    return list[0];
}

bool op_takes_type(const struct op_info *op, DML_TENSOR_DATA_TYPE type)
{
    return !op_types(op) || (op_types(op) & (1u << type));
}

/* ---- CPU references ---- */

double output_rounding(const struct workload *w, double value, double *tolerance)
{
    if (w->output.buffer.DataType == FP32)
        return (float)value;
    if (w->output.buffer.DataType != FP16)
        return value;                   /* indices */
    value = ref_round_to_half((float)value);
    *tolerance += fabs(value) * (1.0 / 1024.0) + 1.0 / 16777216.0;
    return value;
}

static double reference_elementwise(const struct workload *w, float *const *inputs, UINT output, UINT64 index,
        double *tolerance)
{
    double a = inputs[0][tensor_offset(&w->inputs[0], index)], b = 0.0, value;

    if (w->inputs[1].rank)
        b = inputs[1][tensor_offset(&w->inputs[1], index)];
    value = (float)w->reference->cpu(a, b);
    *tolerance = w->reference->tolerance * (fabs(value) + 0.1);
    return output_rounding(w, value, tolerance);
}

/* A float sum of `count` terms in any order: a few ulps per term of the random walk. */
static double sum_tolerance(double magnitude, UINT64 count)
{
    return magnitude * sqrt((double)count) * (1.0 / 4194304.0) + 1e-6;
}

static double reference_gemm(const struct workload *w, float *const *inputs, UINT output, UINT64 index,
        double *tolerance)
{
    UINT k = w->dims[1], n = w->dims[2], j;
    UINT64 row = index / n, column = index % n;
    double sum = 0.0, magnitude = 0.0;

    for (j = 0; j < k; ++j)
    {
        double term = (double)inputs[0][row * k + j] * inputs[1][(UINT64)j * n + column];

        sum += term;
        magnitude += fabs(term);
    }
    *tolerance = sum_tolerance(magnitude, k);
    return output_rounding(w, sum, tolerance);
}

static double reference_conv(const struct workload *w, float *const *inputs, UINT output, UINT64 index,
        double *tolerance)
{
    const UINT *in = w->inputs[0].sizes, *f = w->inputs[1].sizes, *out = w->output.sizes;
    UINT64 x = index % out[3], y = index / out[3] % out[2], k = index / out[3] / out[2] % out[1];
    UINT64 n = index / out[3] / out[2] / out[1], c, r, s;
    double sum = 0.0, magnitude = 0.0;

    for (c = 0; c < in[1]; ++c)
    {
        for (r = 0; r < f[2]; ++r)
        {
            int64_t iy = (int64_t)(y * w->strides[0] + r) - w->start_padding[0];

            for (s = 0; iy >= 0 && iy < in[2] && s < f[3]; ++s)
            {
                int64_t ix = (int64_t)(x * w->strides[1] + s) - w->start_padding[1];
                double term;

                if (ix < 0 || ix >= in[3])
                    continue;
                term = (double)inputs[0][((n * in[1] + c) * in[2] + (UINT64)iy) * in[3] + (UINT64)ix]
                        * inputs[1][((k * f[1] + c) * f[2] + r) * f[3] + s];
                sum += term;
                magnitude += fabs(term);
            }
        }
    }
    *tolerance = sum_tolerance(magnitude, (UINT64)in[1] * f[2] * f[3]);
    return output_rounding(w, sum, tolerance);
}

/* ---- References along axes: the input elements one output element depends on ---- */

/* The elements of the (packed) input along the workload's axes that meet at one output element:
 * a reduction's inputs, a softmax row, a scan's line. */
struct group
{
    UINT64 base;                        /* offset of its first element */
    UINT64 count;
    UINT rank;                          /* the axes, in increasing order */
    UINT sizes[MAX_RANK];
    UINT64 strides[MAX_RANK];
};

/* The group of output element `index`; returns the element's position along the axes (row-major
 * over them in the output's sizes): 0 for a reduction, the place in the row for a softmax or scan,
 * the rank for top-k. */
static UINT64 group_of(const struct workload *w, UINT64 index, struct group *g)
{
    const struct tensor *in = &w->inputs[0], *out = &w->output;
    UINT64 strides[MAX_RANK], packed = 1, position = 0, place = 1;
    bool along[MAX_RANK] = {false};
    UINT i;
    int d;

    for (i = 0; i < w->axis_count; ++i)
        along[w->axes[i]] = true;
    g->base = 0;
    g->count = 1;
    g->rank = 0;
    for (d = (int)in->rank - 1; d >= 0; --d)
    {
        UINT64 coordinate = index % out->sizes[d];

        index /= out->sizes[d];
        strides[d] = packed;
        packed *= in->sizes[d];
        if (!along[d])
            g->base += coordinate * strides[d];
        else
        {
            position += coordinate * place;
            place *= out->sizes[d];
        }
    }
    for (d = 0; d < (int)in->rank; ++d)
    {
        if (!along[d])
            continue;
        g->sizes[g->rank] = in->sizes[d];
        g->strides[g->rank++] = strides[d];
        g->count *= in->sizes[d];
    }
    return position;
}

/* Element `j` of the group (row-major over its axes), as stored. */
static double group_element(const struct group *g, const float *values, UINT64 j)
{
    UINT64 offset = g->base;
    int a;

    for (a = (int)g->rank - 1; a >= 0; --a)
    {
        offset += j % g->sizes[a] * g->strides[a];
        j /= g->sizes[a];
    }
    return values[offset];
}

/* The first of the group's largest (`sign` 1) or smallest (-1) elements: ties go to the lowest
 * index (AxisDirection INCREASING, as the families leave it; HARDMAX's first maximum). */
static UINT64 group_extreme(const struct group *g, const float *values, double sign)
{
    UINT64 best = 0, j;

    for (j = 1; j < g->count; ++j)
    {
        if (sign * group_element(g, values, j) > sign * group_element(g, values, best))
            best = j;
    }
    return best;
}

/* SOFTMAX, LOG_SOFTMAX, HARDMAX and their '1' forms, along the workload's axes. */
static double reference_softmax(const struct workload *w, float *const *inputs, UINT output, UINT64 index,
        double *tolerance)
{
    DML_OPERATOR_TYPE type = w->op->type;
    struct group g;
    UINT64 position = group_of(w, index, &g), first = group_extreme(&g, inputs[0], 1.0), j;
    double max = group_element(&g, inputs[0], first), sum = 0.0, x, value;

    *tolerance = 0.0;
    if (type == DML_OPERATOR_ACTIVATION_HARDMAX || type == DML_OPERATOR_ACTIVATION_HARDMAX1)
        return position == first;
    for (j = 0; j < g.count; ++j)
        sum += exp(group_element(&g, inputs[0], j) - max);
    x = group_element(&g, inputs[0], position);
    if (type == DML_OPERATOR_ACTIVATION_LOG_SOFTMAX || type == DML_OPERATOR_ACTIVATION_LOG_SOFTMAX1)
    {
        value = x - max - log(sum);
        *tolerance = 1e-5 * (fabs(value) + 1.0);
    }
    else
    {
        value = exp(x - max) / sum;
        *tolerance = 1e-5 * value + 1e-7;
    }
    return output_rounding(w, value, tolerance);
}

/* What a reduction accumulates over its group. */
struct totals
{
    double sum, magnitude, squares, product, max, min;
};

static void group_totals(const struct group *g, const float *values, struct totals *t)
{
    UINT64 j;

    t->sum = t->magnitude = t->squares = 0.0;
    t->product = 1.0;
    t->max = -INFINITY;
    t->min = INFINITY;
    for (j = 0; j < g->count; ++j)
    {
        double x = group_element(g, values, j);

        t->sum += x;
        t->magnitude += fabs(x);
        t->squares += x * x;
        t->product *= x;
        t->max = fmax(t->max, x);
        t->min = fmin(t->min, x);
    }
}

/* One DML_REDUCE_FUNCTION of a group; the tolerance of a float sum in any order. */
static double reduce_value(int function, const struct group *g, const float *values, double *tolerance)
{
    double n = (double)g->count, exps = 0.0, value;
    struct totals t;
    UINT64 j;

    group_totals(g, values, &t);
    *tolerance = sum_tolerance(t.magnitude, g->count);
    switch (function)
    {
        case DML_REDUCE_FUNCTION_ARGMAX:
        case DML_REDUCE_FUNCTION_ARGMIN:
            *tolerance = 0.0;
            return (double)group_extreme(g, values, function == DML_REDUCE_FUNCTION_ARGMAX ? 1.0 : -1.0);
        case DML_REDUCE_FUNCTION_AVERAGE:
            *tolerance /= n;
            return t.sum / n;
        case DML_REDUCE_FUNCTION_L1:
            return t.magnitude;
        case DML_REDUCE_FUNCTION_L2:
            value = sqrt(t.squares);
            *tolerance = sum_tolerance(value, g->count);
            return value;
        case DML_REDUCE_FUNCTION_LOG_SUM:
            *tolerance /= fabs(t.sum);  /* a negative sum's log is NaN, which matches NaN */
            return log(t.sum);
        case DML_REDUCE_FUNCTION_LOG_SUM_EXP:
            for (j = 0; j < g->count; ++j)
                exps += exp(group_element(g, values, j) - t.max);
            value = t.max + log(exps);
            *tolerance = sum_tolerance(1.0, g->count) + 1e-6 * fabs(value);
            return value;
        case DML_REDUCE_FUNCTION_MAX:
            *tolerance = 0.0;
            return t.max;
        case DML_REDUCE_FUNCTION_MIN:
            *tolerance = 0.0;
            return t.min;
        case DML_REDUCE_FUNCTION_MULTIPLY:
            /* Each factor rounds once; GPUs may flush what underflows to zero. */
            *tolerance = fabs(t.product) * n * (1.0 / 4194304.0) + 1e-30;
            return t.product;
        case DML_REDUCE_FUNCTION_SUM_SQUARE:
            *tolerance = sum_tolerance(t.squares, g->count);
            return t.squares;
        default:
            return t.sum;
    }
}

/* REDUCE in its Function (build_reduce's), ARGMIN, ARGMAX. */
static double reference_reduce(const struct workload *w, float *const *inputs, UINT output, UINT64 index,
        double *tolerance)
{
    int function = w->op->type == DML_OPERATOR_ARGMAX ? DML_REDUCE_FUNCTION_ARGMAX
            : w->op->type == DML_OPERATOR_ARGMIN ? DML_REDUCE_FUNCTION_ARGMIN : (int)w->reduce_function;
    struct group g;

    group_of(w, index, &g);
    return output_rounding(w, reduce_value(function, &g, inputs[0], tolerance), tolerance);
}

static int compare_descending(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? 1 : x > y ? -1 : 0;
}

/* TOP_K's values: the element of rank `position` among the group's largest (as build_top_k asks).
 * The first ranks are kept in order as the group goes by; deep ranks sort a copy. */
static double reference_top_k(const struct workload *w, float *const *inputs, UINT output, UINT64 index,
        double *tolerance)
{
    struct group g;
    UINT64 position = group_of(w, index, &g), kept = 0, j, i;
    bool sort = position >= 256;
    UINT64 size = sort ? g.count : position + 1;
    double *best = malloc(size * sizeof(*best)), value;

    *tolerance = 0.0;
    if (!best)
        return NAN;
    for (j = 0; j < g.count; ++j)
    {
        double x = group_element(&g, inputs[0], j);

        if (sort)
        {
            best[j] = x;
            continue;
        }
        if (kept == size && !(x > best[size - 1]))
            continue;
        for (i = kept < size ? kept++ : size - 1; i > 0 && best[i - 1] < x; --i)
            best[i] = best[i - 1];
        best[i] = x;
    }
    if (sort)
        qsort(best, size, sizeof(*best), compare_descending);
    value = best[position];
    free(best);
    return value;
}

/* CUMULATIVE_SUMMATION, CUMULATIVE_PRODUCT as the family leaves them: inclusive, INCREASING. */
static double reference_cumulative(const struct workload *w, float *const *inputs, UINT output, UINT64 index,
        double *tolerance)
{
    struct group g;
    UINT64 position = group_of(w, index, &g), j;
    double sum = 0.0, magnitude = 0.0, product = 1.0, x;

    for (j = 0; j <= position; ++j)
    {
        x = group_element(&g, inputs[0], j);
        sum += x;
        magnitude += fabs(x);
        product *= x;
    }
    if (w->op->type == DML_OPERATOR_CUMULATIVE_PRODUCT)
    {
        *tolerance = fabs(product) * (position + 1) * (1.0 / 4194304.0) + 1e-30;
        return output_rounding(w, product, tolerance);
    }
    *tolerance = sum_tolerance(magnitude, position + 1);
    return output_rounding(w, sum, tolerance);
}

static double cpu_add(double a, double b) { return a + b; }
static double cpu_subtract(double a, double b) { return a - b; }
static double cpu_multiply(double a, double b) { return a * b; }
static double cpu_divide(double a, double b) { return a / b; }
static double cpu_max(double a, double b) { return fmax(a, b); }
static double cpu_min(double a, double b) { return fmin(a, b); }
static double cpu_identity(double a, double b) { return a; }
static double cpu_abs(double a, double b) { return fabs(a); }
static double cpu_negate(double a, double b) { return -a; }
static double cpu_exp(double a, double b) { return exp(a); }
static double cpu_relu(double a, double b) { return a > 0.0 ? a : 0.0; }
static double cpu_sigmoid(double a, double b) { return 1.0 / (1.0 + exp(-a)); }
static double cpu_tanh(double a, double b) { return tanh(a); }

/* The operators --check can verify, in FLOAT32 and FLOAT16 (test/ops checks every operator and
 * type). Exact operations are compared exactly; Vulkan lets division and transcendentals be a few
 * ulps off. */
#define EW(op, cpu, tolerance) {DML_OPERATOR_##op, reference_elementwise, cpu, tolerance}
static const struct reference references[] =
{
    EW(ELEMENT_WISE_ADD, cpu_add, 0.0),
    EW(ELEMENT_WISE_ADD1, cpu_add, 0.0),
    EW(ELEMENT_WISE_SUBTRACT, cpu_subtract, 0.0),
    EW(ELEMENT_WISE_MULTIPLY, cpu_multiply, 0.0),
    EW(ELEMENT_WISE_DIVIDE, cpu_divide, 4e-7),
    EW(ELEMENT_WISE_MAX, cpu_max, 0.0),
    EW(ELEMENT_WISE_MIN, cpu_min, 0.0),
    {DML_OPERATOR_ELEMENT_WISE_IDENTITY, reference_elementwise, cpu_identity, 0.0, true}, /* a copy: every type */
    EW(ACTIVATION_IDENTITY, cpu_identity, 0.0),
    EW(ELEMENT_WISE_ABS, cpu_abs, 0.0),
    EW(ELEMENT_WISE_NEGATE, cpu_negate, 0.0),
    EW(ELEMENT_WISE_EXP, cpu_exp, 2e-6),
    EW(ACTIVATION_RELU, cpu_relu, 0.0),
    EW(ACTIVATION_SIGMOID, cpu_sigmoid, 4e-6),
    EW(ELEMENT_WISE_TANH, cpu_tanh, 1e-4),
    EW(ACTIVATION_TANH, cpu_tanh, 1e-4),
    {DML_OPERATOR_ACTIVATION_SOFTMAX, reference_softmax},
    {DML_OPERATOR_ACTIVATION_SOFTMAX1, reference_softmax},
    {DML_OPERATOR_ACTIVATION_LOG_SOFTMAX, reference_softmax},
    {DML_OPERATOR_ACTIVATION_LOG_SOFTMAX1, reference_softmax},
    {DML_OPERATOR_ACTIVATION_HARDMAX, reference_softmax},
    {DML_OPERATOR_ACTIVATION_HARDMAX1, reference_softmax},
    {DML_OPERATOR_REDUCE, reference_reduce},
    {DML_OPERATOR_ARGMIN, reference_reduce},
    {DML_OPERATOR_ARGMAX, reference_reduce},
    {DML_OPERATOR_TOP_K, reference_top_k},
    {DML_OPERATOR_TOP_K1, reference_top_k},
    {DML_OPERATOR_CUMULATIVE_SUMMATION, reference_cumulative},
    {DML_OPERATOR_CUMULATIVE_PRODUCT, reference_cumulative},
    {DML_OPERATOR_GEMM, reference_gemm},
    {DML_OPERATOR_CONVOLUTION, reference_conv},
};
#undef EW

static const struct reference *reference_of(DML_OPERATOR_TYPE type)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE(references); ++i)
    {
        if (references[i].type == type)
            return &references[i];
    }
    for (i = 0; i < ARRAY_SIZE(family_files); ++i)
    {
        if (family_files[i].reference(type))
            return family_files[i].reference(type);
    }
    return NULL;
}

/* The references compute in floats (the arg-reductions' UINT32 indices too): other types have none,
 * but for the movers', exact in every type. */
static const struct reference *find_reference(const struct workload *w)
{
    const struct reference *reference = reference_of(w->op->type);
    DML_TENSOR_DATA_TYPE out = w->output.buffer.DataType;
    bool floats = (w->type == FP32 || w->type == FP16)
            && (out == FP32 || out == FP16 || out == DML_TENSOR_DATA_TYPE_UINT32);

    return reference && (floats || reference->all_types) ? reference : NULL;
}

UINT reference_outputs(const struct workload *w)
{
    return !w->reference ? 0 : w->reference->all_outputs ? w->output_count : 1;
}

bool op_has_reference(const struct op_info *op)
{
    return reference_of(op->type) != NULL;
}

const char *op_reference_types(const struct op_info *op)
{
    const struct reference *reference = reference_of(op->type);

    return !reference ? "no reference" : reference->all_types ? "all types" : "fp32 fp16";
}

double reference_value(const struct workload *w, float *const *inputs, UINT output, UINT64 index,
        double *tolerance)
{
    return w->reference->value(w, inputs, output, index, tolerance);
}
