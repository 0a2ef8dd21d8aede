/*
 * libFuzzer target over operator descs (README.md, "Fuzzing"): the input bytes decode into a
 * DML_OPERATOR_DESC of any type, field by field as the generated operator schema (dml_op_schema.h,
 * docs/schema.md) describes it, and go through CreateOperator -> CompileOperator ->
 * GetBindingProperties -> CreateOperatorInitializer -> GetBindingProperties on one DML device made
 * once per process. Any answer is fine; a crash, a leak, a sanitizer report, a removed device or a
 * failed call without an ERR or FIXME log line is a finding.
 *
 * The byte format (test/fuzz/make-corpus.py writes it, so keep both in step). A read past the end
 * gives 0, and 0 always decodes to the ordinary choice, so short inputs make plain descs:
 *   operator:  u16 type (mod VKDML_OPERATOR_TYPE_COUNT + 2: 0 and the last two are invalid), then
 *              the desc's value fields in field order, then its pointer fields in field order;
 *              at the top level a u8 of execution flags follows the desc.
 *   UINT: a count (another field's length) in 0-8 or a special; else 0-7 or a special or raw.
 *   INT, FLOAT, BOOL, ENUM, DML_SIZE_2D, DML_SCALAR_UNION: a selector byte (see decode_*).
 *   tensor:    selector (low nibble 0xF: NULL; 0x10: a TensorType byte follows; top bits 0xE0: NULL
 *              buffer desc), DataType, Flags, DimensionCount (1-8), Sizes (1-16), Strides (byte: bit 0
 *              present), TotalTensorSizeInBytes mode (computed, off by a little, raw),
 *              GuaranteedBaseOffsetAlignment; each can also be a special value (0, all ones, ...).
 *   arrays:    a byte (0xFF: NULL pointer) then the elements. A length above 16 comes with 16
 *              elements: no array vkdml reads has more, so it must refuse such a length before
 *              reading (issue 17, defect 3). Tensor and operator arrays are cut to 16 and 4.
 *   FusedActivation and ActivationDescs: a byte (0: NULL) then an operator of a fusible type
 *              (0xF0 and above: any type), two levels deep at most.
 */
#ifndef COBJMACROS
# define COBJMACROS
#endif
#include <DirectML.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dml_op_schema.h"
#include "vkdml.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARRAY_ELEMENTS 16
#define MAX_TENSOR_ARRAY 16
#define MAX_OPERATOR_ARRAY 4
#define MAX_NESTING 2
#define MAX_ALLOCATIONS 4096

struct reader
{
    const uint8_t *data;
    size_t size, position;
};

/* Every block of one input, freed after it: each one exactly as large as the desc says, so that
 * ASan sees any read past a caller's array. */
struct arena
{
    void *blocks[MAX_ALLOCATIONS];
    size_t count;
};

static ID3D12Device *d3d12_device;
static IDMLDevice *dml_device;
static DML_OPERATOR_TYPE fusible_types[VKDML_OPERATOR_TYPE_COUNT];
static unsigned int fusible_count;

static uint8_t read_u8(struct reader *r)
{
    return r->position < r->size ? r->data[r->position++] : 0;
}

static uint32_t read_u32(struct reader *r)
{
    uint32_t value = 0;
    unsigned int i;

    for (i = 0; i < 4; ++i)
        value |= (uint32_t)read_u8(r) << (8 * i);
    return value;
}

static void *arena_alloc(struct arena *arena, size_t size)
{
    void *block;

    if (arena->count == MAX_ALLOCATIONS)
        return NULL;
    /* calloc(0) may answer NULL; one byte still makes every read of an empty array an overflow. */
    if (!(block = calloc(1, size ? size : 1)))
        abort();
    arena->blocks[arena->count++] = block;
    return block;
}

static void arena_free(struct arena *arena)
{
    while (arena->count)
        free(arena->blocks[--arena->count]);
}

/* Values that break size arithmetic: zero, the top bit, all ones, large powers of two. */
static uint32_t special_u32(struct reader *r, uint8_t selector)
{
    static const uint32_t specials[] = {0, 9, 16, 64, 0x10000, 0x80000000u, 0xffffffffu};

    selector &= 7;
    return selector < sizeof(specials) / sizeof(specials[0]) ? specials[selector] : read_u32(r);
}

/* A UINT that is an array's length. */
static uint32_t decode_count(struct reader *r)
{
    uint8_t b = read_u8(r);

    return b < 0xf0 ? b % 9 : special_u32(r, b);
}

static uint32_t decode_uint(struct reader *r)
{
    uint8_t b = read_u8(r);

    return b < 0xf0 ? b % 8 : special_u32(r, b);
}

/* A tensor size: 1-16, or a special. */
static uint32_t decode_dimension(struct reader *r)
{
    uint8_t b = read_u8(r);

    return b < 0xf0 ? 1 + b % 16 : special_u32(r, b);
}

/* A DimensionCount: 1-8, or a special (0, 9, 16, 64, ...). */
static uint32_t decode_rank(struct reader *r)
{
    uint8_t b = read_u8(r);

    return b < 0xf0 ? 1 + b % 8 : special_u32(r, b);
}

static int32_t decode_int(struct reader *r)
{
    uint8_t b = read_u8(r);

    return b < 0xf0 ? (int32_t)(b % 9) - 4 : (int32_t)special_u32(r, b);
}

static float decode_float(struct reader *r)
{
    static const float specials[] = {NAN, INFINITY, -INFINITY, FLT_MAX, 1e-45f, -0.0f, 1e30f};
    uint8_t b = read_u8(r);
    uint32_t bits;
    float value;

    if (b < 0xf0)
        return ((int)(b % 16) - 4) * 0.5f;
    if ((b & 7) < sizeof(specials) / sizeof(specials[0]))
        return specials[b & 7];
    bits = read_u32(r);
    memcpy(&value, &bits, sizeof(value));
    return value;
}

static BOOL decode_bool(struct reader *r)
{
    uint8_t b = read_u8(r);

    return b < 0xf0 ? b & 1 : (BOOL)special_u32(r, b);
}

static uint32_t decode_enum(struct reader *r)
{
    uint8_t b = read_u8(r);

    return b < 0xf0 ? b % 16 : special_u32(r, b);
}

/* Elements the caller's array really has for a length: at most MAX_ARRAY_ELEMENTS. */
static uint32_t array_elements(uint32_t count)
{
    return count < MAX_ARRAY_ELEMENTS ? count : MAX_ARRAY_ELEMENTS;
}

static uint64_t decode_total_size(struct reader *r, const DML_BUFFER_TENSOR_DESC *buffer)
{
    uint8_t b = read_u8(r);
    uint64_t size = 0;

    if (buffer->DimensionCount <= DML_TENSOR_DIMENSION_COUNT_MAX1)
        size = vkdml_calc_buffer_tensor_size(buffer->DataType, buffer->DimensionCount, buffer->Sizes,
                buffer->Strides);
    if (b < 0xc0)
        return size;
    if (b < 0xe0)
        return size + (b & 0x1f) - 16;
    return read_u32(r) | (uint64_t)read_u32(r) << 32;
}

static void decode_buffer_tensor(struct reader *r, struct arena *arena, DML_BUFFER_TENSOR_DESC *buffer)
{
    uint32_t i, elements;
    UINT *sizes, *strides;
    uint8_t b;

    buffer->DataType = (DML_TENSOR_DATA_TYPE)((read_u8(r) + 1) % 15);
    b = read_u8(r);
    buffer->Flags = (DML_TENSOR_FLAGS)(b < 0xf0 ? b & 3 : special_u32(r, b));
    buffer->DimensionCount = decode_rank(r);
    elements = array_elements(buffer->DimensionCount);
    if (!(sizes = arena_alloc(arena, elements * sizeof(*sizes))))
        return;
    for (i = 0; i < elements; ++i)
        sizes[i] = decode_dimension(r);
    buffer->Sizes = sizes;
    if (read_u8(r) & 1)
    {
        if (!(strides = arena_alloc(arena, elements * sizeof(*strides))))
            return;
        for (i = 0; i < elements; ++i)
            strides[i] = decode_uint(r);
        buffer->Strides = strides;
    }
    buffer->TotalTensorSizeInBytes = decode_total_size(r, buffer);
    b = read_u8(r);
    buffer->GuaranteedBaseOffsetAlignment = b < 0xf0 ? 0 : special_u32(r, b);
}

/* Fills *tensor; answers FALSE when the field should be a NULL pointer instead. */
static BOOL decode_tensor(struct reader *r, struct arena *arena, DML_TENSOR_DESC *tensor)
{
    DML_BUFFER_TENSOR_DESC *buffer;
    uint8_t selector = read_u8(r);

    if ((selector & 0x0f) == 0x0f)
        return FALSE;
    tensor->Type = selector & 0x10 ? (DML_TENSOR_TYPE)(read_u8(r) % 3) : DML_TENSOR_TYPE_BUFFER;
    tensor->Desc = NULL;
    if ((selector & 0xe0) == 0xe0)
        return TRUE;
    if (!(buffer = arena_alloc(arena, sizeof(*buffer))))
        return TRUE;
    decode_buffer_tensor(r, arena, buffer);
    tensor->Desc = buffer;
    return TRUE;
}

static const DML_TENSOR_DESC *decode_tensor_pointer(struct reader *r, struct arena *arena)
{
    DML_TENSOR_DESC *tensor;

    if (!(tensor = arena_alloc(arena, sizeof(*tensor))))
        return NULL;
    return decode_tensor(r, arena, tensor) ? tensor : NULL;
}

static BOOL decode_operator(struct reader *r, struct arena *arena, unsigned int depth, BOOL fused,
        DML_OPERATOR_DESC *op);

static DML_OPERATOR_TYPE decode_operator_type(struct reader *r, BOOL fused)
{
    uint8_t b;

    if (fused && fusible_count)
    {
        b = read_u8(r);
        if (b < 0xf0)
            return fusible_types[b % fusible_count];
    }
    return (DML_OPERATOR_TYPE)((read_u8(r) | read_u8(r) << 8) % (VKDML_OPERATOR_TYPE_COUNT + 2));
}

static const DML_OPERATOR_DESC *decode_fused_activation(struct reader *r, struct arena *arena,
        unsigned int depth)
{
    DML_OPERATOR_DESC *op;

    if (!read_u8(r) || depth >= MAX_NESTING || !(op = arena_alloc(arena, sizeof(*op))))
        return NULL;
    decode_operator(r, arena, depth + 1, TRUE, op);
    return op;
}

static void *decode_numeric_array(struct reader *r, struct arena *arena, const struct vkdml_field_schema *field,
        uint32_t count)
{
    uint32_t i, elements = array_elements(count);
    uint32_t *values;

    if (read_u8(r) == 0xff || !(values = arena_alloc(arena, elements * sizeof(*values))))
        return NULL;
    for (i = 0; i < elements; ++i)
    {
        if (field->kind == VKDML_FIELD_FLOAT_ARRAY)
        {
            float value = decode_float(r);
            memcpy(&values[i], &value, sizeof(value));
        }
        else if (field->kind == VKDML_FIELD_INT_ARRAY)
            values[i] = (uint32_t)decode_int(r);
        else
            values[i] = decode_uint(r);
    }
    return values;
}

/* A tensor or operator array's length, cut so that the array has every element it claims. */
static uint32_t clamp_count(uint8_t *desc, const struct vkdml_field_schema *count_field, uint32_t max)
{
    uint32_t count;

    memcpy(&count, desc + count_field->offset, sizeof(count));
    if (count > max)
    {
        count = max;
        memcpy(desc + count_field->offset, &count, sizeof(count));
    }
    return count;
}

static void *decode_tensor_array(struct reader *r, struct arena *arena, uint32_t count)
{
    DML_TENSOR_DESC *tensors;
    uint32_t i;

    if (read_u8(r) == 0xff || !(tensors = arena_alloc(arena, count * sizeof(*tensors))))
        return NULL;
    for (i = 0; i < count; ++i)
    {
        if (!decode_tensor(r, arena, &tensors[i]))
            tensors[i].Desc = NULL;
    }
    return tensors;
}

static void *decode_operator_array(struct reader *r, struct arena *arena, unsigned int depth, uint32_t count)
{
    DML_OPERATOR_DESC *ops;
    uint32_t i;

    if (read_u8(r) == 0xff || depth >= MAX_NESTING || !(ops = arena_alloc(arena, count * sizeof(*ops))))
        return NULL;
    for (i = 0; i < count; ++i)
        decode_operator(r, arena, depth + 1, TRUE, &ops[i]);
    return ops;
}

static BOOL is_count_field(const struct vkdml_op_schema *schema, unsigned int index)
{
    unsigned int i;

    for (i = 0; i < schema->field_count; ++i)
    {
        if (schema->fields[i].count_field == (int)index)
            return TRUE;
    }
    return FALSE;
}

static void decode_value_field(struct reader *r, const struct vkdml_op_schema *schema, unsigned int index,
        uint8_t *field)
{
    uint32_t u32[2];
    float f;
    int32_t i;
    BOOL b;

    switch (schema->fields[index].kind)
    {
        case VKDML_FIELD_UINT:
            u32[0] = is_count_field(schema, index) ? decode_count(r) : decode_uint(r);
            memcpy(field, &u32[0], sizeof(u32[0]));
            break;
        case VKDML_FIELD_INT:
            i = decode_int(r);
            memcpy(field, &i, sizeof(i));
            break;
        case VKDML_FIELD_FLOAT:
            f = decode_float(r);
            memcpy(field, &f, sizeof(f));
            break;
        case VKDML_FIELD_BOOL:
            b = decode_bool(r);
            memcpy(field, &b, sizeof(b));
            break;
        case VKDML_FIELD_ENUM:
            u32[0] = decode_enum(r);
            memcpy(field, &u32[0], sizeof(u32[0]));
            break;
        case VKDML_FIELD_SIZE_2D:
            u32[0] = decode_uint(r);
            u32[1] = decode_uint(r);
            memcpy(field, u32, sizeof(u32));
            break;
        case VKDML_FIELD_SCALAR_UNION:
            u32[0] = read_u32(r);
            u32[1] = read_u32(r);
            memcpy(field, u32, sizeof(u32));
            break;
        default:
            break;
    }
}

static void decode_pointer_field(struct reader *r, struct arena *arena, const struct vkdml_op_schema *schema,
        unsigned int index, unsigned int depth, uint8_t *desc)
{
    const struct vkdml_field_schema *field = &schema->fields[index];
    const struct vkdml_field_schema *count_field = field->count_field >= 0 ? &schema->fields[field->count_field] : NULL;
    DML_SCALE_BIAS *scale_bias;
    const void *pointer = NULL;
    uint32_t count = 0;

    if (count_field)
        memcpy(&count, desc + count_field->offset, sizeof(count));
    switch (field->kind)
    {
        case VKDML_FIELD_TENSOR:
            pointer = decode_tensor_pointer(r, arena);
            break;
        case VKDML_FIELD_TENSOR_ARRAY:
            pointer = decode_tensor_array(r, arena, clamp_count(desc, count_field, MAX_TENSOR_ARRAY));
            break;
        case VKDML_FIELD_OPERATOR_DESC:
            pointer = decode_fused_activation(r, arena, depth);
            break;
        case VKDML_FIELD_OPERATOR_DESC_ARRAY:
            pointer = decode_operator_array(r, arena, depth, clamp_count(desc, count_field, MAX_OPERATOR_ARRAY));
            break;
        case VKDML_FIELD_SCALE_BIAS:
            if (read_u8(r) && (scale_bias = arena_alloc(arena, sizeof(*scale_bias))))
            {
                scale_bias->Scale = decode_float(r);
                scale_bias->Bias = decode_float(r);
                pointer = scale_bias;
            }
            break;
        case VKDML_FIELD_UINT_ARRAY:
        case VKDML_FIELD_INT_ARRAY:
        case VKDML_FIELD_FLOAT_ARRAY:
            pointer = decode_numeric_array(r, arena, field, count);
            break;
        default:
            return;
    }
    memcpy(desc + field->offset, &pointer, sizeof(pointer));
}

/* Value fields first, so that every array's length is known when the array is decoded. */
static BOOL decode_operator(struct reader *r, struct arena *arena, unsigned int depth, BOOL fused,
        DML_OPERATOR_DESC *op)
{
    const struct vkdml_op_schema *schema;
    unsigned int i;
    uint8_t *desc;

    op->Type = decode_operator_type(r, fused);
    schema = vkdml_op_schema_get(op->Type);
    /* An invalid type still gets a desc, of one byte: the library must not read it. */
    if (!(desc = arena_alloc(arena, schema ? schema->desc_size : 1)))
        return FALSE;
    op->Desc = desc;
    if (!schema)
        return TRUE;
    for (i = 0; i < schema->field_count; ++i)
        decode_value_field(r, schema, i, desc + schema->fields[i].offset);
    for (i = 0; i < schema->field_count; ++i)
        decode_pointer_field(r, arena, schema, i, depth, desc);
    return TRUE;
}

static DML_EXECUTION_FLAGS decode_execution_flags(struct reader *r)
{
    uint8_t b = read_u8(r);

    return (DML_EXECUTION_FLAGS)(b < 0xf0 ? b & 7 : special_u32(r, b));
}

/* Every failing call logs one line (issue 17): ERR and FIXME lines are counted; VKDML_FUZZ_LOG=1 also
 * prints them, to read what an input was refused for. */
static unsigned int failure_lines;
static BOOL print_log;

static void count_log(void *user_data, enum vkdml_log_level level, enum vkdml_log_source source,
        const char *function, const char *message)
{
    if (level == VKDML_LOG_ERR || level == VKDML_LOG_FIXME)
        ++failure_lines;
    if (print_log)
        fprintf(stderr, "vkdml:%d:%s: %s\n", (int)level, function, message);
}

/* A call that failed without an ERR or FIXME line is a finding. */
static BOOL check_failure_logged(HRESULT hr, unsigned int lines_before, const char *call)
{
    if (SUCCEEDED(hr))
        return TRUE;
    if (failure_lines == lines_before)
    {
        fprintf(stderr, "fuzz: %s failed (hr %#x) without an error line in the log.\n", call, (unsigned int)hr);
        abort();
    }
    return FALSE;
}

static void collect_fusible_types(void)
{
    const struct vkdml_op_schema *schema;
    unsigned int type;

    for (type = 0; type < VKDML_OPERATOR_TYPE_COUNT; ++type)
    {
        if ((schema = vkdml_op_schema_get((DML_OPERATOR_TYPE)type)) && schema->fusible)
            fusible_types[fusible_count++] = (DML_OPERATOR_TYPE)type;
    }
}

/* One device for the whole run; the validation layer stays off (speed), the log is dropped
 * (VKDML_FUZZ_LOG=1 keeps it on stderr, to read what an input was refused for). */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    HRESULT hr;

    setenv("VKDML_VALIDATION", "0", 1);
    print_log = !!getenv("VKDML_FUZZ_LOG");
    vkdml_set_log_callback(count_log, NULL);
    if (vkdml_get_log_level() < VKDML_LOG_FIXME)
        vkdml_set_log_level(VKDML_LOG_FIXME);
    collect_fusible_types();
    if (FAILED(hr = vkdml_create_d3d12_device(NULL, &IID_ID3D12Device, (void **)&d3d12_device))
            || FAILED(hr = DMLCreateDevice(d3d12_device, DML_CREATE_DEVICE_FLAG_NONE, &IID_IDMLDevice,
            (void **)&dml_device)))
    {
        fprintf(stderr, "fuzz: no DML device (hr %#x): the fuzzer needs a Vulkan device.\n", (unsigned int)hr);
        exit(1);
    }
    return 0;
}

static void check_binding_properties(IDMLDispatchable *dispatchable)
{
    DML_BINDING_PROPERTIES properties;

#ifdef _WIN32
    IDMLDispatchable_GetBindingProperties(dispatchable, &properties);
#else
    properties = IDMLDispatchable_GetBindingProperties(dispatchable);
#endif
    (void)properties;
}

static void run_operator(const DML_OPERATOR_DESC *desc, DML_EXECUTION_FLAGS flags)
{
    IDMLOperatorInitializer *initializer;
    IDMLCompiledOperator *compiled;
    unsigned int lines = failure_lines;
    IDMLOperator *op;
    HRESULT hr;

    hr = IDMLDevice_CreateOperator(dml_device, desc, &IID_IDMLOperator, (void **)&op);
    if (!check_failure_logged(hr, lines, "CreateOperator"))
        return;
    lines = failure_lines;
    hr = IDMLDevice_CompileOperator(dml_device, op, flags, &IID_IDMLCompiledOperator, (void **)&compiled);
    IDMLOperator_Release(op);
    if (!check_failure_logged(hr, lines, "CompileOperator"))
        return;
    check_binding_properties((IDMLDispatchable *)compiled);
    lines = failure_lines;
    hr = IDMLDevice_CreateOperatorInitializer(dml_device, 1, &compiled, &IID_IDMLOperatorInitializer,
            (void **)&initializer);
    if (check_failure_logged(hr, lines, "CreateOperatorInitializer"))
    {
        check_binding_properties((IDMLDispatchable *)initializer);
        IDMLOperatorInitializer_Release(initializer);
    }
    IDMLCompiledOperator_Release(compiled);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct reader reader = {data, size, 0};
    static struct arena arena;
    DML_OPERATOR_DESC desc;
    HRESULT hr;

    if (decode_operator(&reader, &arena, 0, FALSE, &desc))
        run_operator(&desc, decode_execution_flags(&reader));
    arena_free(&arena);
    /* No desc is misuse that removes the device: a removed device is a finding. */
    if (FAILED(hr = IDMLDevice_GetDeviceRemovedReason(dml_device)))
    {
        fprintf(stderr, "fuzz: the DML device was removed (hr %#x).\n", (unsigned int)hr);
        abort();
    }
    return 0;
}
