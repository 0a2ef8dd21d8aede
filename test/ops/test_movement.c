/*
 * The movement family (SLICE, SLICE1, SPLIT, JOIN, PADDING, PADDING1, TILE, SPACE_TO_DEPTH(1),
 * DEPTH_TO_SPACE(1)) through the public API, checked bit for bit against a C reference that maps
 * every output element to its input element (or the padding value): every data type (random
 * bits, NaN and infinity patterns among them: the operators move bits), ranks 1 to 8, odd sizes,
 * rows longer than a workgroup and misaligned ones, padded and 0-stride inputs, negative slice
 * strides, every padding mode with pads larger than 1, both depth/space orders, OWNED_BY_DML
 * inputs; outputs sit between guard regions (nothing is written outside them). Then each desc
 * rule with its error code and log line.
 */
#include <inttypes.h>
#include <math.h>

#include "dml_test_utils.h"

#define MAX_PARTS 4
#define SENTINEL 0x5a

#define F32 DML_TENSOR_DATA_TYPE_FLOAT32
#define F16 DML_TENSOR_DATA_TYPE_FLOAT16
#define U8 DML_TENSOR_DATA_TYPE_UINT8
#define U64 DML_TENSOR_DATA_TYPE_UINT64

/* A tensor's sizes and strides (strides[0] == 0 with `strided` false: packed). */
struct layout
{
    UINT sizes[8];
    UINT strides[8];
    bool strided;
};

struct movement_case
{
    const char *name;
    DML_OPERATOR_TYPE op;
    UINT rank;
    UINT input_count, output_count;
    struct layout inputs[MAX_PARTS], outputs[MAX_PARTS];
    UINT axis;                          /* SPLIT, JOIN */
    UINT offsets[8], sizes[8];          /* SLICE: Offsets, Sizes; SLICE1: window offsets, sizes */
    INT strides[8];                     /* SLICE, SLICE1 */
    DML_PADDING_MODE mode;
    UINT start[8], end[8];
    float value;                        /* PADDING; PADDING1 converts it as the test does */
    UINT repeats[8];
    UINT block;
    DML_DEPTH_SPACE_ORDER order;
    bool owned;                         /* input 0 OWNED_BY_DML */
    bool specials;                      /* float inputs: NaN payloads, signalling NaN, ±inf, -0 */
};

static const char *op_name(DML_OPERATOR_TYPE op)
{
    switch (op)
    {
        case DML_OPERATOR_SLICE: return "SLICE";
        case DML_OPERATOR_SLICE1: return "SLICE1";
        case DML_OPERATOR_SPLIT: return "SPLIT";
        case DML_OPERATOR_JOIN: return "JOIN";
        case DML_OPERATOR_PADDING: return "PADDING";
        case DML_OPERATOR_PADDING1: return "PADDING1";
        case DML_OPERATOR_TILE: return "TILE";
        case DML_OPERATOR_SPACE_TO_DEPTH: return "SPACE_TO_DEPTH";
        case DML_OPERATOR_SPACE_TO_DEPTH1: return "SPACE_TO_DEPTH1";
        case DML_OPERATOR_DEPTH_TO_SPACE: return "DEPTH_TO_SPACE";
        default: return "DEPTH_TO_SPACE1";
    }
}

static bool is_signed_type(DML_TENSOR_DATA_TYPE type)
{
    return type == DML_TENSOR_DATA_TYPE_INT8 || type == DML_TENSOR_DATA_TYPE_INT16
            || type == DML_TENSOR_DATA_TYPE_INT32 || type == DML_TENSOR_DATA_TYPE_INT64;
}

/* PADDING's float value in `type` (README, "Data movement"): floats rounded to nearest,
 * integers toward zero and saturated, NaN as 0. */
static uint64_t padding_bits(float value, DML_TENSOR_DATA_TYPE type)
{
    unsigned int bits = dml_test_element_size(type) * 8;
    double t = trunc(value), wide = value, low, high;
    uint64_t result = 0;
    uint16_t half;

    if (type == DML_TENSOR_DATA_TYPE_FLOAT32)
        return memcpy(&result, &value, 4), result;
    if (type == DML_TENSOR_DATA_TYPE_FLOAT64)
        return memcpy(&result, &wide, 8), result;
    if (type == DML_TENSOR_DATA_TYPE_FLOAT16)
        return half = ref_float_to_half(value), half;
    if (isnan(value))
        return 0;
    low = is_signed_type(type) ? -ldexp(1.0, bits - 1) : 0.0;
    high = is_signed_type(type) ? ldexp(1.0, bits - 1) - 1.0 : ldexp(1.0, bits) - 1.0;
    if (t <= low)
        return is_signed_type(type) ? (uint64_t)(int64_t)low : 0;
    if (t >= high)
        return is_signed_type(type) ? ((uint64_t)1 << (bits - 1)) - 1 : bits == 64 ? ~(uint64_t)0 : (uint64_t)high;
    return is_signed_type(type) ? (uint64_t)(int64_t)t : (uint64_t)t;
}

/* ---- The reference: output element (part `o`, coordinates c) -> input part and coordinates,
 * false for the padding value. ---- */

/* Folded at the edges again and again, as DirectML's PADDING1 page's examples 3 and 4 show. */
static int64_t fold(DML_PADDING_MODE mode, int64_t s, int64_t n)
{
    while (s < 0 || s >= n)
    {
        if (mode == DML_PADDING_MODE_EDGE || n == 1)
            return s < 0 ? 0 : n - 1;
        if (mode == DML_PADDING_MODE_WRAP)
            s = s < 0 ? s + n : s - n;
        else if (mode == DML_PADDING_MODE_REFLECTION)
            s = s < 0 ? -s : 2 * n - 2 - s;
        else
            s = s < 0 ? -s - 1 : 2 * n - 1 - s;
    }
    return s;
}

static bool source_of(const struct movement_case *c, UINT o, const UINT *out, UINT *part, UINT *in)
{
    UINT i, base = 0, b = c->block, channels;

    *part = 0;
    memcpy(in, out, c->rank * sizeof(*in));
    switch (c->op)
    {
        case DML_OPERATOR_SLICE:
            for (i = 0; i < c->rank; ++i)
                in[i] = c->offsets[i] + (UINT)c->strides[i] * out[i];
            return true;
        case DML_OPERATOR_SLICE1:
            for (i = 0; i < c->rank; ++i)
                in[i] = (UINT)((int64_t)c->offsets[i] + (c->strides[i] < 0 ? c->sizes[i] - 1 : 0)
                        + (int64_t)c->strides[i] * out[i]);
            return true;
        case DML_OPERATOR_SPLIT:
            for (i = 0; i < o; ++i)
                base += c->outputs[i].sizes[c->axis];
            in[c->axis] += base;
            return true;
        case DML_OPERATOR_JOIN:
            while (in[c->axis] >= c->inputs[*part].sizes[c->axis])
                in[c->axis] -= c->inputs[(*part)++].sizes[c->axis];
            return true;
        case DML_OPERATOR_PADDING:
        case DML_OPERATOR_PADDING1:
            for (i = 0; i < c->rank; ++i)
            {
                int64_t s = (int64_t)out[i] - c->start[i], n = c->inputs[0].sizes[i];

                if ((s < 0 || s >= n) && c->mode == DML_PADDING_MODE_CONSTANT)
                    return false;
                in[i] = (UINT)fold(c->mode, s, n);
            }
            return true;
        case DML_OPERATOR_TILE:
            for (i = 0; i < c->rank; ++i)
                in[i] = out[i] % c->inputs[0].sizes[i];
            return true;
        case DML_OPERATOR_DEPTH_TO_SPACE:
        case DML_OPERATOR_DEPTH_TO_SPACE1:
        {
            UINT by = out[2] % b, bx = out[3] % b;

            channels = c->outputs[0].sizes[1];
            in[1] = c->order == DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW ? (by * b + bx) * channels + out[1]
                    : (out[1] * b + by) * b + bx;
            in[2] = out[2] / b;
            in[3] = out[3] / b;
            return true;
        }
        default:
        {
            UINT d = out[1], by, bx;

            channels = c->inputs[0].sizes[1];
            if (c->order == DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW)
                in[1] = d % channels, bx = (d / channels) % b, by = d / (channels * b);
            else
                bx = d % b, by = (d / b) % b, in[1] = d / (b * b);
            in[2] = out[2] * b + by;
            in[3] = out[3] * b + bx;
            return true;
        }
    }
}

/* ---- Running a case ---- */

struct part_data
{
    struct dml_test_tensor tensor;
    uint8_t *bytes;                     /* inputs: the bytes uploaded; outputs: read back */
    struct dml_test_binding binding;
};

static uint64_t element_offset(const struct dml_test_tensor *t, const UINT *coords)
{
    uint64_t offset = 0, stride = 1;
    UINT i;

    for (i = t->buffer.DimensionCount; i-- > 0;)
    {
        offset += (uint64_t)coords[i] * (t->buffer.Strides ? t->strides[i] : stride);
        stride *= t->sizes[i];
    }
    return offset;
}

static void init_part(struct part_data *part, DML_TENSOR_DATA_TYPE type, UINT rank, const struct layout *layout)
{
    dml_test_tensor_init(&part->tensor, type, rank, layout->sizes, layout->strided ? layout->strides : NULL);
}

/* Fills the desc of `c` for `type` into `storage` (big enough for every desc). */
static void make_desc(const struct movement_case *c, DML_TENSOR_DATA_TYPE type, struct part_data *inputs,
        struct part_data *outputs, DML_TENSOR_DESC *in_descs, DML_TENSOR_DESC *out_descs, void *storage)
{
    UINT i;

    for (i = 0; i < c->input_count; ++i)
        in_descs[i] = inputs[i].tensor.desc;
    for (i = 0; i < c->output_count; ++i)
        out_descs[i] = outputs[i].tensor.desc;
    switch (c->op)
    {
        case DML_OPERATOR_SLICE:
        {
            DML_SLICE_OPERATOR_DESC *desc = storage;

            desc->InputTensor = &inputs[0].tensor.desc;
            desc->OutputTensor = &outputs[0].tensor.desc;
            desc->DimensionCount = c->rank;
            desc->Offsets = c->offsets;
            desc->Sizes = outputs[0].tensor.sizes;
            desc->Strides = (const UINT *)c->strides;
            break;
        }
        case DML_OPERATOR_SLICE1:
        {
            DML_SLICE1_OPERATOR_DESC *desc = storage;

            desc->InputTensor = &inputs[0].tensor.desc;
            desc->OutputTensor = &outputs[0].tensor.desc;
            desc->DimensionCount = c->rank;
            desc->InputWindowOffsets = c->offsets;
            desc->InputWindowSizes = c->sizes;
            desc->InputWindowStrides = c->strides;
            break;
        }
        case DML_OPERATOR_SPLIT:
        {
            DML_SPLIT_OPERATOR_DESC *desc = storage;

            desc->InputTensor = &inputs[0].tensor.desc;
            desc->OutputCount = c->output_count;
            desc->OutputTensors = out_descs;
            desc->Axis = c->axis;
            break;
        }
        case DML_OPERATOR_JOIN:
        {
            DML_JOIN_OPERATOR_DESC *desc = storage;

            desc->InputCount = c->input_count;
            desc->InputTensors = in_descs;
            desc->OutputTensor = &outputs[0].tensor.desc;
            desc->Axis = c->axis;
            break;
        }
        case DML_OPERATOR_PADDING:
        {
            DML_PADDING_OPERATOR_DESC *desc = storage;

            desc->InputTensor = &inputs[0].tensor.desc;
            desc->OutputTensor = &outputs[0].tensor.desc;
            desc->PaddingMode = c->mode;
            desc->PaddingValue = c->value;
            desc->DimensionCount = c->rank;
            desc->StartPadding = c->start;
            desc->EndPadding = c->end;
            break;
        }
        case DML_OPERATOR_PADDING1:
        {
            DML_PADDING1_OPERATOR_DESC *desc = storage;
            uint64_t bits = padding_bits(c->value, type);

            desc->InputTensor = &inputs[0].tensor.desc;
            desc->OutputTensor = &outputs[0].tensor.desc;
            desc->PaddingMode = c->mode;
            desc->PaddingValueDataType = type;
            memset(&desc->PaddingValue, 0xcc, sizeof(desc->PaddingValue));
            memcpy(desc->PaddingValue.Bytes, &bits, dml_test_element_size(type));
            desc->DimensionCount = c->rank;
            desc->StartPadding = c->start;
            desc->EndPadding = c->end;
            break;
        }
        case DML_OPERATOR_TILE:
        {
            DML_TILE_OPERATOR_DESC *desc = storage;

            desc->InputTensor = &inputs[0].tensor.desc;
            desc->OutputTensor = &outputs[0].tensor.desc;
            desc->RepeatsCount = c->rank;
            desc->Repeats = c->repeats;
            break;
        }
        default:
        {
            DML_DEPTH_TO_SPACE1_OPERATOR_DESC *desc = storage;

            desc->InputTensor = &inputs[0].tensor.desc;
            desc->OutputTensor = &outputs[0].tensor.desc;
            desc->BlockSize = c->block;
            desc->Order = c->order;
            break;
        }
    }
}

union any_desc
{
    DML_SLICE_OPERATOR_DESC slice;
    DML_SLICE1_OPERATOR_DESC slice1;
    DML_SPLIT_OPERATOR_DESC split;
    DML_JOIN_OPERATOR_DESC join;
    DML_PADDING_OPERATOR_DESC padding;
    DML_PADDING1_OPERATOR_DESC padding1;
    DML_TILE_OPERATOR_DESC tile;
    DML_DEPTH_TO_SPACE1_OPERATOR_DESC depth_space;
};

static void check_output(const struct movement_case *c, DML_TENSOR_DATA_TYPE type, const struct part_data *inputs,
        const struct part_data *output, UINT o)
{
    unsigned int size = dml_test_element_size(type);
    UINT coords[8] = {0}, in[8], part, i;
    uint64_t index, count = dml_test_element_count(&output->tensor), bits;
    const uint8_t *expected;

    for (index = 0; index < count; ++index)
    {
        uint64_t rest = index;

        for (i = c->rank; i-- > 0;)
        {
            coords[i] = (UINT)(rest % output->tensor.sizes[i]);
            rest /= output->tensor.sizes[i];
        }
        if (source_of(c, o, coords, &part, in))
        {
            expected = inputs[part].bytes + element_offset(&inputs[part].tensor, in) * size;
        }
        else
        {
            bits = padding_bits(c->value, type);
            expected = (const uint8_t *)&bits;
        }
        if (memcmp(output->bytes + element_offset(&output->tensor, coords) * size, expected, size))
            fail_msg("%s %s %s: output %u element %" PRIu64 " differs.", op_name(c->op), c->name,
                    dml_test_type_name(type), o, index);
    }
}

/* Special values' bits, one after the other: the operators must move them unchanged. */
static void fill_specials(uint8_t *bytes, size_t total, DML_TENSOR_DATA_TYPE type)
{
    static const uint32_t single[] = {0x7fc01234, 0x7f800001, 0x7f800000, 0xff800000, 0x80000000, 0xffffffff};
    static const uint16_t half[] = {0x7e12, 0x7c01, 0x7c00, 0xfc00, 0x8000, 0xffff};
    static const uint64_t wide[] = {0x7ff8000000001234ull, 0x7ff0000000000001ull, 0x7ff0000000000000ull,
            0xfff0000000000000ull, 0x8000000000000000ull, ~0ull};
    size_t i, size = dml_test_element_size(type);

    for (i = 0; i + size <= total; i += size)
    {
        if (type == DML_TENSOR_DATA_TYPE_FLOAT32)
            memcpy(bytes + i, &single[i / size % ARRAY_SIZE(single)], size);
        else if (type == DML_TENSOR_DATA_TYPE_FLOAT16)
            memcpy(bytes + i, &half[i / size % ARRAY_SIZE(half)], size);
        else if (type == DML_TENSOR_DATA_TYPE_FLOAT64)
            memcpy(bytes + i, &wide[i / size % ARRAY_SIZE(wide)], size);
    }
}

static void run_case_type(struct dml_test_context *context, const struct movement_case *c, DML_TENSOR_DATA_TYPE type)
{
    struct part_data inputs[MAX_PARTS], outputs[MAX_PARTS];
    DML_TENSOR_DESC in_descs[MAX_PARTS], out_descs[MAX_PARTS];
    struct dml_test_binding in_bindings[MAX_PARTS] = {{NULL}}, owned[MAX_PARTS] = {{NULL}};
    struct dml_test_binding out_bindings[MAX_PARTS];
    IDMLCompiledOperator *compiled;
    ID3D12Resource *persistent;
    uint32_t seed = 0x9e3779b9u ^ (uint32_t)type;
    union any_desc desc;
    UINT i;
    size_t k;

    if (!dml_test_data_type_supported(context, type))
    {
        print_message("%s: not supported by the device, skipped.\n", dml_test_type_name(type));
        return;
    }
    for (i = 0; i < c->input_count; ++i)
    {
        size_t total;

        init_part(&inputs[i], type, c->rank, &c->inputs[i]);
        total = inputs[i].tensor.buffer.TotalTensorSizeInBytes;
        assert_non_null(inputs[i].bytes = malloc(total));
        for (k = 0; k < total; ++k)
            inputs[i].bytes[k] = (uint8_t)(ref_random(&seed) >> 24);
        if (c->specials)
            fill_specials(inputs[i].bytes, total, type);
        if (i == 0 && c->owned)
        {
            inputs[i].tensor.buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
            owned[0].buffer = dml_test_create_buffer(context, total, inputs[i].bytes);
        }
        else
        {
            in_bindings[i].buffer = dml_test_create_buffer(context, total, inputs[i].bytes);
        }
    }
    for (i = 0; i < c->output_count; ++i)
    {
        size_t total;

        init_part(&outputs[i], type, c->rank, &c->outputs[i]);
        total = outputs[i].tensor.buffer.TotalTensorSizeInBytes;
        assert_non_null(outputs[i].bytes = malloc(total));
        memset(outputs[i].bytes, SENTINEL, total);
        dml_test_create_guarded(context, total, outputs[i].bytes, &out_bindings[i]);
    }
    memset(&desc, 0, sizeof(desc));
    make_desc(c, type, inputs, outputs, in_descs, out_descs, &desc);
    compiled = dml_test_compile(context, c->op, &desc, DML_EXECUTION_FLAG_NONE);
    persistent = dml_test_initialize(context, compiled, c->owned ? owned : NULL, c->owned ? c->input_count : 0);
    if (c->owned)
    {
        /* The operator reads its copy in the persistent resource, not the source buffer. */
        size_t total = inputs[0].tensor.buffer.TotalTensorSizeInBytes;
        uint8_t *garbage = malloc(total);

        assert_non_null(garbage);
        memset(garbage, 0xee, total);
        dml_test_write_buffer(context, owned[0].buffer, 0, garbage, total);
        free(garbage);
    }
    dml_test_execute(context, compiled, persistent, in_bindings, c->input_count, out_bindings, c->output_count);
    for (i = 0; i < c->output_count; ++i)
    {
        dml_test_read_buffer(context, out_bindings[i].buffer, out_bindings[i].offset, outputs[i].bytes,
                outputs[i].tensor.buffer.TotalTensorSizeInBytes);
        dml_test_check_guards(context, &out_bindings[i]);
        check_output(c, type, inputs, &outputs[i], i);
    }
    if (persistent)
        release_last(persistent);
    release_last(compiled);
    for (i = 0; i < c->input_count; ++i)
        free(inputs[i].bytes);
    for (i = 0; i < c->output_count; ++i)
        free(outputs[i].bytes);
    dml_test_release_bindings(in_bindings, c->input_count);
    dml_test_release_bindings(owned, c->input_count);
    dml_test_release_bindings(out_bindings, c->output_count);
    assert_no_log_errors();
}

static void run_case(struct dml_test_context *context, const struct movement_case *c, bool every_type)
{
    static const DML_TENSOR_DATA_TYPE some_types[] = {F32, F16, U8, U64};
    size_t t;

    if (every_type)
    {
        for (t = 0; t < ARRAY_SIZE(dml_test_all_types); ++t)
        {
            if (c->op == DML_OPERATOR_TILE && dml_test_all_types[t] == DML_TENSOR_DATA_TYPE_FLOAT64)
                continue;       /* TILE lists no FLOAT64 */
            run_case_type(context, c, dml_test_all_types[t]);
        }
        return;
    }
    for (t = 0; t < ARRAY_SIZE(some_types); ++t)
        run_case_type(context, c, some_types[t]);
}

/* ---- Cases ---- */

static void packed(struct layout *layout, UINT rank, const UINT *sizes)
{
    memset(layout, 0, sizeof(*layout));
    memcpy(layout->sizes, sizes, rank * sizeof(*sizes));
}

/* Every dimension padded by `pad` elements beyond the next one's span. */
static void padded(struct layout *layout, UINT rank, const UINT *sizes, UINT pad)
{
    UINT i, stride = 1;

    packed(layout, rank, sizes);
    layout->strided = true;
    for (i = rank; i-- > 0;)
    {
        layout->strides[i] = stride;
        stride = stride * sizes[i] + pad;
    }
}

static void test_slice(void **state)
{
    static const UINT in4[4] = {2, 3, 5, 33}, out4[4] = {1, 3, 2, 10};
    static const UINT in1[1] = {5000}, out1[1] = {4980};
    static const UINT in8[8] = {2, 1, 3, 2, 1, 3, 2, 5}, out8[8] = {1, 1, 2, 1, 1, 2, 1, 3};
    struct movement_case c;

    memset(&c, 0, sizeof(c));
    c.name = "rank 4, strides 1..3";
    c.op = DML_OPERATOR_SLICE;
    c.rank = 4, c.input_count = 1, c.output_count = 1;
    packed(&c.inputs[0], 4, in4);
    packed(&c.outputs[0], 4, out4);
    memcpy(c.offsets, (UINT[]){1, 0, 1, 3}, 4 * sizeof(UINT));
    memcpy(c.strides, (INT[]){1, 1, 3, 2}, 4 * sizeof(INT));
    run_case(*state, &c, true);
    /* A padded input: rows of 10 contiguous elements at odd offsets. */
    c.name = "padded input";
    padded(&c.inputs[0], 4, in4, 3);
    memcpy(c.strides, (INT[]){1, 1, 2, 1}, 4 * sizeof(INT));
    run_case(*state, &c, false);
    /* One long contiguous row (several workgroups of 16-byte chunks), misaligned start. */
    memset(&c, 0, sizeof(c));
    c.name = "rank 1 of 5000";
    c.op = DML_OPERATOR_SLICE;
    c.rank = 1, c.input_count = 1, c.output_count = 1;
    packed(&c.inputs[0], 1, in1);
    packed(&c.outputs[0], 1, out1);
    c.offsets[0] = 7;
    c.strides[0] = 1;
    run_case(*state, &c, false);
    /* Rank 8. */
    memset(&c, 0, sizeof(c));
    c.name = "rank 8";
    c.op = DML_OPERATOR_SLICE;
    c.rank = 8, c.input_count = 1, c.output_count = 1;
    packed(&c.inputs[0], 8, in8);
    packed(&c.outputs[0], 8, out8);
    memcpy(c.offsets, (UINT[]){1, 0, 0, 1, 0, 1, 1, 0}, 8 * sizeof(UINT));
    memcpy(c.strides, (INT[]){1, 1, 2, 1, 1, 1, 1, 2}, 8 * sizeof(INT));
    run_case(*state, &c, false);
}

static void test_slice1(void **state)
{
    static const UINT in3[3] = {4, 7, 33}, out3[3] = {3, 4, 10};
    static const UINT in2[2] = {3, 1000}, out2[2] = {3, 1000};
    struct movement_case c;

    memset(&c, 0, sizeof(c));
    c.name = "negative strides";
    c.op = DML_OPERATOR_SLICE1;
    c.rank = 3, c.input_count = 1, c.output_count = 1;
    packed(&c.inputs[0], 3, in3);
    packed(&c.outputs[0], 3, out3);
    memcpy(c.offsets, (UINT[]){1, 0, 2}, 3 * sizeof(UINT));
    memcpy(c.sizes, (UINT[]){3, 7, 30}, 3 * sizeof(UINT));
    memcpy(c.strides, (INT[]){-1, 2, -3}, 3 * sizeof(INT));
    run_case(*state, &c, true);
    /* Fewer outputs than the window holds; a 0-stride (broadcast) input. */
    c.name = "broadcast input, partial window";
    c.inputs[0].strided = true;
    memcpy(c.inputs[0].strides, (UINT[]){0, 33, 1}, 3 * sizeof(UINT));
    memcpy(c.outputs[0].sizes, (UINT[]){2, 3, 5}, 3 * sizeof(UINT));
    run_case(*state, &c, false);
    /* Rows reversed whole: 1000 elements per row, backwards. */
    memset(&c, 0, sizeof(c));
    c.name = "reversed rows";
    c.op = DML_OPERATOR_SLICE1;
    c.rank = 2, c.input_count = 1, c.output_count = 1;
    packed(&c.inputs[0], 2, in2);
    packed(&c.outputs[0], 2, out2);
    memcpy(c.sizes, (UINT[]){3, 1000}, 2 * sizeof(UINT));
    memcpy(c.strides, (INT[]){1, -1}, 2 * sizeof(INT));
    run_case(*state, &c, false);
}

static void test_split_join(void **state)
{
    static const UINT whole[3] = {3, 10, 7}, a[3] = {3, 3, 7}, b[3] = {3, 1, 7}, d[3] = {3, 6, 7};
    static const UINT whole2[3] = {2, 5, 1000}, e[3] = {2, 5, 333}, f[3] = {2, 5, 1}, g[3] = {2, 5, 666};
    struct movement_case c;

    memset(&c, 0, sizeof(c));
    c.name = "axis 1";
    c.op = DML_OPERATOR_SPLIT;
    c.rank = 3, c.input_count = 1, c.output_count = 3, c.axis = 1;
    packed(&c.inputs[0], 3, whole);
    packed(&c.outputs[0], 3, a);
    packed(&c.outputs[1], 3, b);
    packed(&c.outputs[2], 3, d);
    run_case(*state, &c, true);
    /* The innermost axis, long misaligned rows; a padded output. */
    c.name = "innermost axis";
    c.axis = 2;
    packed(&c.inputs[0], 3, whole2);
    packed(&c.outputs[0], 3, e);
    packed(&c.outputs[1], 3, f);
    padded(&c.outputs[2], 3, g, 5);
    run_case(*state, &c, false);

    memset(&c, 0, sizeof(c));
    c.name = "axis 1";
    c.op = DML_OPERATOR_JOIN;
    c.rank = 3, c.input_count = 3, c.output_count = 1, c.axis = 1;
    packed(&c.inputs[0], 3, a);
    packed(&c.inputs[1], 3, b);
    packed(&c.inputs[2], 3, d);
    packed(&c.outputs[0], 3, whole);
    run_case(*state, &c, true);
    /* The innermost axis, a broadcast input and a padded one; OWNED_BY_DML input 0. */
    c.name = "innermost axis, broadcast, OWNED_BY_DML";
    c.axis = 2;
    c.owned = true;
    packed(&c.inputs[0], 3, e);
    c.inputs[0].strided = true;
    memcpy(c.inputs[0].strides, (UINT[]){0, 0, 1}, 3 * sizeof(UINT));
    padded(&c.inputs[1], 3, f, 2);
    packed(&c.inputs[2], 3, g);
    packed(&c.outputs[0], 3, whole2);
    run_case(*state, &c, false);
    /* Rank 8, a middle axis, both ways. */
    memset(&c, 0, sizeof(c));
    c.name = "rank 8, axis 5";
    c.op = DML_OPERATOR_JOIN;
    c.rank = 8, c.input_count = 2, c.output_count = 1, c.axis = 5;
    packed(&c.inputs[0], 8, (UINT[]){2, 1, 3, 1, 2, 1, 3, 5});
    packed(&c.inputs[1], 8, (UINT[]){2, 1, 3, 1, 2, 4, 3, 5});
    packed(&c.outputs[0], 8, (UINT[]){2, 1, 3, 1, 2, 5, 3, 5});
    run_case(*state, &c, false);
    c.op = DML_OPERATOR_SPLIT;
    c.input_count = 1, c.output_count = 2;
    packed(&c.outputs[0], 8, (UINT[]){2, 1, 3, 1, 2, 1, 3, 5});
    packed(&c.outputs[1], 8, (UINT[]){2, 1, 3, 1, 2, 4, 3, 5});
    packed(&c.inputs[0], 8, (UINT[]){2, 1, 3, 1, 2, 5, 3, 5});
    run_case(*state, &c, false);
    /* A transposed input (innermost stride 5) into its slab of the rows: gathered rows. */
    memset(&c, 0, sizeof(c));
    c.name = "transposed input";
    c.op = DML_OPERATOR_JOIN;
    c.rank = 3, c.input_count = 2, c.output_count = 1, c.axis = 2;
    packed(&c.inputs[0], 3, (UINT[]){3, 5, 20});
    c.inputs[0].strided = true;
    memcpy(c.inputs[0].strides, (UINT[]){100, 1, 5}, 3 * sizeof(UINT));
    packed(&c.inputs[1], 3, (UINT[]){3, 5, 13});
    packed(&c.outputs[0], 3, (UINT[]){3, 5, 33});
    run_case(*state, &c, true);
    /* Special float values, moved as bits (rows and chunks paths). */
    memset(&c, 0, sizeof(c));
    c.name = "special values";
    c.op = DML_OPERATOR_JOIN;
    c.rank = 2, c.input_count = 2, c.output_count = 1, c.axis = 1;
    c.specials = true;
    packed(&c.inputs[0], 2, (UINT[]){3, 17});
    packed(&c.inputs[1], 2, (UINT[]){3, 6});
    packed(&c.outputs[0], 2, (UINT[]){3, 23});
    run_case(*state, &c, true);
    /* One input, axis 0 (a plain copy). */
    memset(&c, 0, sizeof(c));
    c.name = "one input";
    c.op = DML_OPERATOR_JOIN;
    c.rank = 3, c.input_count = 1, c.output_count = 1;
    packed(&c.inputs[0], 3, whole2);
    packed(&c.outputs[0], 3, whole2);
    run_case(*state, &c, false);
}

static void test_padding(void **state)
{
    static const UINT in[3] = {3, 4, 5}, out[3] = {6, 9, 6};
    static const UINT wide_in[2] = {2, 300}, wide_out[2] = {4, 302};
    static const DML_PADDING_MODE modes[] =
    {
        DML_PADDING_MODE_CONSTANT, DML_PADDING_MODE_EDGE, DML_PADDING_MODE_REFLECTION,
        DML_PADDING_MODE_SYMMETRIC, DML_PADDING_MODE_WRAP,
    };
    struct movement_case c;
    size_t m;

    memset(&c, 0, sizeof(c));
    c.op = DML_OPERATOR_PADDING;
    c.rank = 3, c.input_count = 1, c.output_count = 1;
    packed(&c.inputs[0], 3, in);
    packed(&c.outputs[0], 3, out);
    memcpy(c.start, (UINT[]){1, 2, 0}, 3 * sizeof(UINT));
    memcpy(c.end, (UINT[]){2, 3, 1}, 3 * sizeof(UINT));
    c.value = -2.75f;
    for (m = 0; m < ARRAY_SIZE(modes); ++m)
    {
        c.name = "rank 3, pads up to 3";
        c.mode = modes[m];
        run_case(*state, &c, m == 0 || m == 2);
    }
    /* PADDING1: the typed value, every type. */
    c.name = "typed value";
    c.op = DML_OPERATOR_PADDING1;
    c.mode = DML_PADDING_MODE_CONSTANT;
    c.value = 100.0f;
    run_case(*state, &c, true);
    /* Values that saturate or are NaN in integer types. */
    c.op = DML_OPERATOR_PADDING;
    c.name = "saturating value";
    c.value = 1e10f;
    run_case(*state, &c, true);
    c.name = "NaN value";
    c.value = NAN;
    run_case(*state, &c, false);
    c.name = "negative value";
    c.value = -1e10f;
    run_case(*state, &c, false);
    /* WRAP and EDGE with pads larger than the input; a padded input. */
    c.name = "pads past the input";
    c.value = 0.0f;
    padded(&c.inputs[0], 3, in, 1);
    memcpy(c.start, (UINT[]){0, 7, 1}, 3 * sizeof(UINT));
    memcpy(c.end, (UINT[]){5, 0, 9}, 3 * sizeof(UINT));
    memcpy(c.outputs[0].sizes, (UINT[]){8, 11, 15}, 3 * sizeof(UINT));
    for (m = 1; m < ARRAY_SIZE(modes); ++m)
    {
        c.mode = modes[m];
        run_case(*state, &c, false);
    }
    /* DirectML's PADDING1 examples 3 and 4 (REFLECTION, SYMMETRIC), and pads around a size 1. */
    c.name = "DirectML's examples";
    packed(&c.inputs[0], 3, (UINT[]){1, 4, 4});
    packed(&c.outputs[0], 3, (UINT[]){3, 8, 10});
    memcpy(c.start, (UINT[]){1, 1, 2}, 3 * sizeof(UINT));
    memcpy(c.end, (UINT[]){1, 3, 4}, 3 * sizeof(UINT));
    for (m = 0; m < ARRAY_SIZE(modes); ++m)
    {
        c.mode = modes[m];
        run_case(*state, &c, false);
    }
    /* Rows long enough for 16-byte interior chunks at every shift (the padded-row path). */
    c.name = "long padded rows";
    c.value = -7.0f;
    packed(&c.inputs[0], 3, (UINT[]){2, 3, 37});
    packed(&c.outputs[0], 3, (UINT[]){2, 6, 41});
    memcpy(c.start, (UINT[]){0, 1, 3}, 3 * sizeof(UINT));
    memcpy(c.end, (UINT[]){0, 2, 1}, 3 * sizeof(UINT));
    for (m = 0; m < ARRAY_SIZE(modes); ++m)
    {
        c.mode = modes[m];
        run_case(*state, &c, m == 0);
    }
    /* Long rows (the row path with padded outer dimensions). */
    memset(&c, 0, sizeof(c));
    c.name = "outer pads, long rows";
    c.op = DML_OPERATOR_PADDING;
    c.rank = 2, c.input_count = 1, c.output_count = 1;
    packed(&c.inputs[0], 2, wide_in);
    packed(&c.outputs[0], 2, wide_out);
    memcpy(c.start, (UINT[]){1, 1}, 2 * sizeof(UINT));
    memcpy(c.end, (UINT[]){1, 1}, 2 * sizeof(UINT));
    c.value = 3.5f;
    run_case(*state, &c, false);
    c.outputs[0].sizes[1] = 300;
    c.start[1] = c.end[1] = 0;
    run_case(*state, &c, false);
}

static void test_tile(void **state)
{
    static const UINT in[3] = {2, 3, 5}, out[3] = {4, 3, 15};
    static const UINT in8[8] = {2, 1, 2, 1, 2, 1, 2, 3}, out8[8] = {4, 2, 4, 2, 4, 2, 4, 6};
    static const UINT row_in[2] = {3, 112}, row_out[2] = {6, 224};
    struct movement_case c;

    memset(&c, 0, sizeof(c));
    c.name = "rank 3";
    c.op = DML_OPERATOR_TILE;
    c.rank = 3, c.input_count = 1, c.output_count = 1;
    packed(&c.inputs[0], 3, in);
    packed(&c.outputs[0], 3, out);
    memcpy(c.repeats, (UINT[]){2, 1, 3}, 3 * sizeof(UINT));
    run_case(*state, &c, true);
    /* Rank 8, every dimension repeated: more than 8 split dimensions, so some wrap. */
    c.name = "rank 8";
    c.rank = 8;
    packed(&c.inputs[0], 8, in8);
    packed(&c.outputs[0], 8, out8);
    memcpy(c.repeats, (UINT[]){2, 2, 2, 2, 2, 2, 2, 2}, 8 * sizeof(UINT));
    run_case(*state, &c, false);
    /* A 0-stride (broadcast) input. */
    c.name = "broadcast input";
    c.rank = 3;
    packed(&c.inputs[0], 3, in);
    c.inputs[0].strided = true;
    memcpy(c.inputs[0].strides, (UINT[]){5, 0, 1}, 3 * sizeof(UINT));
    packed(&c.outputs[0], 3, out);
    memcpy(c.repeats, (UINT[]){2, 1, 3}, 3 * sizeof(UINT));
    run_case(*state, &c, false);
    /* 2x2 of long rows (the row path). */
    c.name = "2x2 rows";
    c.rank = 2;
    packed(&c.inputs[0], 2, row_in);
    packed(&c.outputs[0], 2, row_out);
    memcpy(c.repeats, (UINT[]){2, 2}, 2 * sizeof(UINT));
    run_case(*state, &c, false);
}

static void test_depth_space(void **state)
{
    static const UINT space[4] = {2, 3, 4, 6}, depth[4] = {2, 12, 2, 3};
    static const UINT space3[4] = {1, 2, 9, 3}, depth3[4] = {1, 18, 3, 1};
    static const DML_OPERATOR_TYPE ops[] =
    {
        DML_OPERATOR_DEPTH_TO_SPACE1, DML_OPERATOR_SPACE_TO_DEPTH1,
    };
    struct movement_case c;
    size_t o;

    for (o = 0; o < ARRAY_SIZE(ops); ++o)
    {
        bool to_space = ops[o] == DML_OPERATOR_DEPTH_TO_SPACE1;

        memset(&c, 0, sizeof(c));
        c.op = ops[o];
        c.rank = 4, c.input_count = 1, c.output_count = 1;
        packed(&c.inputs[0], 4, to_space ? depth : space);
        packed(&c.outputs[0], 4, to_space ? space : depth);
        c.block = 2;
        c.name = "DCR, block 2";
        c.order = DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW;
        run_case(*state, &c, true);
        c.name = "CRD, block 2";
        c.order = DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH;
        run_case(*state, &c, false);
        c.name = "CRD, block 3, padded input";
        c.block = 3;
        padded(&c.inputs[0], 4, to_space ? depth3 : space3, 2);
        packed(&c.outputs[0], 4, to_space ? space3 : depth3);
        run_case(*state, &c, false);
        /* The first forms are DCR. */
        c.name = "first form, block 3";
        c.op = to_space ? DML_OPERATOR_DEPTH_TO_SPACE : DML_OPERATOR_SPACE_TO_DEPTH;
        c.order = DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW;
        run_case(*state, &c, false);
    }
}

/* DirectML's DEPTH_TO_SPACE1 page, examples 1 (DCR) and 2 (CRD), word for word: the order
 * mapping checked against the page itself, not against this file's reference. */
static void test_depth_space_page(void **state)
{
    static const UINT depth_sizes[4] = {1, 8, 2, 3}, space_sizes[4] = {1, 2, 4, 6};
    static const uint32_t dcr[48] =
    {
        0, 18, 1, 19, 2, 20, 36, 54, 37, 55, 38, 56, 3, 21, 4, 22, 5, 23, 39, 57, 40, 58, 41, 59,
        9, 27, 10, 28, 11, 29, 45, 63, 46, 64, 47, 65, 12, 30, 13, 31, 14, 32, 48, 66, 49, 67, 50, 68,
    };
    static const uint32_t crd[48] =
    {
        0, 9, 1, 10, 2, 11, 18, 27, 19, 28, 20, 29, 3, 12, 4, 13, 5, 14, 21, 30, 22, 31, 23, 32,
        36, 45, 37, 46, 38, 47, 54, 63, 55, 64, 56, 65, 39, 48, 40, 49, 41, 50, 57, 66, 58, 67, 59, 68,
    };
    struct dml_test_context *context = *state;
    struct dml_test_binding input = {NULL}, output = {NULL};
    DML_DEPTH_TO_SPACE1_OPERATOR_DESC desc;
    struct dml_test_tensor in, out;
    IDMLCompiledOperator *compiled;
    uint32_t values[48], result[48];
    unsigned int order, i;

    for (i = 0; i < 48; ++i)
        values[i] = 9 * (i / 6) + i % 6;
    dml_test_tensor_init(&in, DML_TENSOR_DATA_TYPE_UINT32, 4, depth_sizes, NULL);
    dml_test_tensor_init(&out, DML_TENSOR_DATA_TYPE_UINT32, 4, space_sizes, NULL);
    for (order = 0; order < 2; ++order)
    {
        desc.InputTensor = &in.desc;
        desc.OutputTensor = &out.desc;
        desc.BlockSize = 2;
        desc.Order = order ? DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH : DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW;
        compiled = dml_test_compile(context, DML_OPERATOR_DEPTH_TO_SPACE1, &desc, DML_EXECUTION_FLAG_NONE);
        input.buffer = dml_test_create_buffer(context, sizeof(values), values);
        output.buffer = dml_test_create_buffer(context, sizeof(result), NULL);
        dml_test_run(context, compiled, &input, 1, &output, 1);
        dml_test_read_buffer(context, output.buffer, 0, result, sizeof(result));
        for (i = 0; i < 48; ++i)
            assert_int_equal(result[i], order ? crd[i] : dcr[i]);
        release_last(input.buffer);
        release_last(output.buffer);
        release_last(compiled);
    }
    assert_no_log_errors();
}

/* ---- Bad descs ---- */

/* CreateOperator of `c` on FLOAT32 tensors, with the desc's DimensionCount / RepeatsCount set to
 * `count` (0: the rank) and PADDING1's PaddingValueDataType to `value_type` (0: FLOAT32):
 * S_OK for a NULL `message`, else E_INVALIDARG with one log line containing it. */
static void check_bad_desc(struct dml_test_context *context, const struct movement_case *c, UINT count,
        DML_TENSOR_DATA_TYPE value_type, const char *message)
{
    struct part_data inputs[MAX_PARTS], outputs[MAX_PARTS];
    DML_TENSOR_DESC in_descs[MAX_PARTS], out_descs[MAX_PARTS];
    struct dml_test_tensor *tensors[2 * MAX_PARTS];
    union any_desc desc;
    UINT i, n = 0;

    for (i = 0; i < c->input_count; ++i)
        init_part(&inputs[i], F32, c->rank, &c->inputs[i]), tensors[n++] = &inputs[i].tensor;
    for (i = 0; i < c->output_count; ++i)
        init_part(&outputs[i], F32, c->rank, &c->outputs[i]), tensors[n++] = &outputs[i].tensor;
    memset(&desc, 0, sizeof(desc));
    make_desc(c, F32, inputs, outputs, in_descs, out_descs, &desc);
    if (count && c->op == DML_OPERATOR_SLICE)
        desc.slice.DimensionCount = count;
    if (count && c->op == DML_OPERATOR_TILE)
        desc.tile.RepeatsCount = count;
    if (value_type)
        desc.padding1.PaddingValueDataType = value_type;
    /* The tensor descs in the arrays are copies that share the tensors' buffers (sizes updated). */
    if (message)
        dml_test_check_bad(dml_test_try_create(context, c->op, &desc, tensors, n), message);
    else
        check_hr(dml_test_try_create(context, c->op, &desc, tensors, n), S_OK);
    vkdml_test_log_reset();
}

static void check_bad_case(struct dml_test_context *context, const struct movement_case *c, const char *message)
{
    check_bad_desc(context, c, 0, 0, message);
}

static void check_bad_case_counted(struct dml_test_context *context, const struct movement_case *c, UINT count,
        const char *message)
{
    check_bad_desc(context, c, count, 0, message);
}

static void check_bad_case_typed(struct dml_test_context *context, const struct movement_case *c,
        DML_TENSOR_DATA_TYPE value_type, const char *message)
{
    check_bad_desc(context, c, 0, value_type, message);
}

static void test_invalid(void **state)
{
    static const UINT s345[3] = {3, 4, 5}, s355[3] = {3, 5, 5}, s315[3] = {3, 1, 5}, s325[3] = {3, 2, 5};
    static const UINT s245[3] = {2, 4, 5}, s689[3] = {6, 8, 9};
    static const UINT d4[4] = {1, 8, 2, 3}, sp4[4] = {1, 2, 4, 6}, sp5[4] = {1, 2, 4, 5};
    struct dml_test_context *context = *state;
    struct movement_case c;

    /* SLICE: a window past the input; Sizes not the output's; DimensionCount. */
    memset(&c, 0, sizeof(c));
    c.op = DML_OPERATOR_SLICE;
    c.rank = 3, c.input_count = 1, c.output_count = 1;
    packed(&c.inputs[0], 3, s345);
    packed(&c.outputs[0], 3, s325);
    memcpy(c.strides, (INT[]){1, 2, 1}, 3 * sizeof(INT));
    check_bad_case(context, &c, NULL);
    c.offsets[1] = 2;
    check_bad_case(context, &c, "Offsets[1]=2 + (Sizes[1]=2 - 1) * Strides[1]=2 reads past InputTensor.Sizes[1]=4");
    c.offsets[1] = 0;
    check_bad_case_counted(context, &c, 2, "DimensionCount=2 must equal the tensors' DimensionCount=3");
    c.strides[1] = 0;
    check_bad_case(context, &c, "Strides[1] must not be 0");
    /* SLICE1: a window past the input; more outputs than the window holds; stride 0. */
    memset(&c, 0, sizeof(c));
    c.op = DML_OPERATOR_SLICE1;
    c.rank = 3, c.input_count = 1, c.output_count = 1;
    packed(&c.inputs[0], 3, s345);
    packed(&c.outputs[0], 3, s325);
    memcpy(c.sizes, (UINT[]){3, 4, 5}, 3 * sizeof(UINT));
    memcpy(c.strides, (INT[]){1, -2, 1}, 3 * sizeof(INT));
    check_bad_case(context, &c, NULL);
    c.offsets[2] = 1;
    check_bad_case(context, &c, "extends past InputTensor.Sizes[2]=5");
    c.offsets[2] = 0;
    c.strides[1] = -4;
    check_bad_case(context, &c, "OutputTensor.Sizes[1]=2 exceeds the 1 elements the window holds at stride -4");
    c.strides[1] = 0;
    check_bad_case(context, &c, "must not be 0");
    /* SPLIT: sizes that do not add up; another dimension differs; the axis. */
    memset(&c, 0, sizeof(c));
    c.op = DML_OPERATOR_SPLIT;
    c.rank = 3, c.input_count = 1, c.output_count = 2, c.axis = 1;
    packed(&c.inputs[0], 3, s345);
    packed(&c.outputs[0], 3, s315);
    packed(&c.outputs[1], 3, s325);
    check_bad_case(context, &c, "add up to 3, not InputTensor.Sizes[1]=4");
    packed(&c.outputs[1], 3, s345);
    c.outputs[1].sizes[1] = 3;
    c.outputs[1].sizes[2] = 4;
    check_bad_case(context, &c, "OutputTensors[1].Sizes[2]=4 must equal InputTensor.Sizes[2]=5");
    c.axis = 3;
    check_bad_case(context, &c, "Axis=3 must be less than InputTensor.DimensionCount=3");
    /* JOIN: sizes that do not add up. */
    memset(&c, 0, sizeof(c));
    c.op = DML_OPERATOR_JOIN;
    c.rank = 3, c.input_count = 2, c.output_count = 1, c.axis = 1;
    packed(&c.inputs[0], 3, s315);
    packed(&c.inputs[1], 3, s325);
    packed(&c.outputs[0], 3, s355);
    check_bad_case(context, &c, "add up to 3, not OutputTensor.Sizes[1]=5");
    packed(&c.inputs[1], 3, s245);
    check_bad_case(context, &c, "InputTensors[1].Sizes[0]=2 must equal OutputTensor.Sizes[0]=3");
    /* PADDING: the output size; REFLECTION and SYMMETRIC reach. */
    memset(&c, 0, sizeof(c));
    c.op = DML_OPERATOR_PADDING;
    c.rank = 3, c.input_count = 1, c.output_count = 1;
    packed(&c.inputs[0], 3, s345);
    packed(&c.outputs[0], 3, s689);
    memcpy(c.start, (UINT[]){3, 4, 0}, 3 * sizeof(UINT));
    memcpy(c.end, (UINT[]){0, 0, 4}, 3 * sizeof(UINT));
    /* Pads past the input are valid in every mode (DirectML folds REFLECTION and SYMMETRIC again). */
    c.mode = DML_PADDING_MODE_REFLECTION;
    c.start[0] = 4, c.end[0] = 0;
    c.outputs[0].sizes[0] = 7;
    check_bad_case(context, &c, NULL);
    c.mode = DML_PADDING_MODE_CONSTANT;
    c.outputs[0].sizes[0] = 8;
    check_bad_case(context, &c, "OutputTensor.Sizes[0]=8 must be InputTensor.Sizes[0]=3 + StartPadding[0]=4");
    c.outputs[0].sizes[0] = 7;
    c.op = DML_OPERATOR_PADDING1;
    check_bad_case(context, &c, NULL);
    check_bad_case_typed(context, &c, DML_TENSOR_DATA_TYPE_INT32,
            "PaddingValueDataType=INT32 must equal OutputTensor.DataType=FLOAT32");
    /* TILE: the output size. */
    memset(&c, 0, sizeof(c));
    c.op = DML_OPERATOR_TILE;
    c.rank = 3, c.input_count = 1, c.output_count = 1;
    packed(&c.inputs[0], 3, s345);
    packed(&c.outputs[0], 3, s689);
    memcpy(c.repeats, (UINT[]){2, 2, 2}, 3 * sizeof(UINT));
    check_bad_case(context, &c, "OutputTensor.Sizes[2]=9 must be InputTensor.Sizes[2]=5 * Repeats[2]=2");
    check_bad_case_counted(context, &c, 4, "RepeatsCount=4 must equal the tensors' DimensionCount=3");
    /* DEPTH_TO_SPACE: a block that does not divide; a bad order. */
    memset(&c, 0, sizeof(c));
    c.op = DML_OPERATOR_DEPTH_TO_SPACE1;
    c.rank = 4, c.input_count = 1, c.output_count = 1;
    packed(&c.inputs[0], 4, d4);
    packed(&c.outputs[0], 4, sp4);
    c.block = 2;
    check_bad_case(context, &c, NULL);
    c.block = 3;
    check_bad_case(context, &c, "with BlockSize=3, the depth tensor {1,8,2,3}");
    c.block = 2;
    c.order = (DML_DEPTH_SPACE_ORDER)2;
    check_bad_case(context, &c, "Order 2 is not a DML_DEPTH_SPACE_ORDER value");
    /* SPACE_TO_DEPTH: a width the block does not divide. */
    c.op = DML_OPERATOR_SPACE_TO_DEPTH;
    c.order = DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW;
    packed(&c.inputs[0], 4, sp5);
    packed(&c.outputs[0], 4, d4);
    check_bad_case(context, &c, "with BlockSize=2, the depth tensor {1,8,2,3} must be the space tensor {1,2,4,5}");
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_slice, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_slice1, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_split_join, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_padding, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_tile, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_depth_space, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_depth_space_page, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_invalid, dml_test_setup, dml_test_teardown),
    };

    /* Logging first: it keeps the Vulkan driver loaded for LeakSanitizer (test_utils.c). */
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
