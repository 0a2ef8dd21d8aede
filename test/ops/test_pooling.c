/*
 * The pooling family through the public API (AVERAGE_POOLING, AVERAGE_POOLING1, LP_POOLING,
 * LP_POOLING1, MAX_POOLING, MAX_POOLING1, MAX_POOLING2) against a C reference: 1-D (as 2-D), 2-D
 * and 3-D windows, strides, dilations, asymmetric padding, windows hanging over the end (ceil-style
 * sizes through EndPadding), IncludePadding, P = 1, 2, 3, global pooling, strided and 0-stride
 * inputs, strided outputs; max pooling in every type DirectML lists with indices of both types
 * (ties: the first index; NaN wins), FLOAT16 within tolerances scaled by the window; outputs in
 * guard regions (strided outputs and indices too); then the desc rules with their error code and
 * log line.
 */
#include <inttypes.h>
#include <math.h>

#include "dml_test_utils.h"

#define AVG DML_OPERATOR_AVERAGE_POOLING
#define AVG1 DML_OPERATOR_AVERAGE_POOLING1
#define LP DML_OPERATOR_LP_POOLING
#define LP1 DML_OPERATOR_LP_POOLING1
#define MAX DML_OPERATOR_MAX_POOLING
#define MAX1 DML_OPERATOR_MAX_POOLING1
#define MAX2 DML_OPERATOR_MAX_POOLING2
#define F32 DML_TENSOR_DATA_TYPE_FLOAT32
#define F16 DML_TENSOR_DATA_TYPE_FLOAT16
#define U32 DML_TENSOR_DATA_TYPE_UINT32
#define U64 DML_TENSOR_DATA_TYPE_UINT64

/* Input layouts. */
enum layout
{
    PACKED,
    PADDED,             /* each row and plane padded: strides larger than packed */
    BROADCAST,          /* the channel stride 0: every channel reads the same planes */
};

/* Input values. */
enum values
{
    RANDOM,             /* uniform bits (integers) or [-1, 1] (floats) */
    TIES,               /* a few small values, so windows hold equal maxima */
    SPECIAL,            /* floats with NaN, +-inf, -0 and +0 among random values */
};

struct pool_case
{
    DML_OPERATOR_TYPE op;
    DML_TENSOR_DATA_TYPE type;
    DML_TENSOR_DATA_TYPE index_type;    /* 0: no OutputIndicesTensor */
    UINT rank;                          /* 4 or 5 */
    UINT sizes[5];                      /* the input's */
    UINT window[3], strides[3], start[3], end[3], dilations[3];    /* DimensionCount = rank - 2 */
    BOOL include_padding;
    UINT p;
    enum layout layout;
    enum values values;
    bool strided_output;
};

static bool is_float(DML_TENSOR_DATA_TYPE type)
{
    return type == F32 || type == F16;
}

static bool is_signed(DML_TENSOR_DATA_TYPE type)
{
    return type == DML_TENSOR_DATA_TYPE_INT8 || type == DML_TENSOR_DATA_TYPE_INT16
            || type == DML_TENSOR_DATA_TYPE_INT32 || type == DML_TENSOR_DATA_TYPE_INT64;
}

static bool is_max(DML_OPERATOR_TYPE op)
{
    return op == MAX || op == MAX1 || op == MAX2;
}

static const char *op_name(DML_OPERATOR_TYPE op)
{
    switch (op)
    {
        case AVG: return "AVERAGE_POOLING";
        case AVG1: return "AVERAGE_POOLING1";
        case LP: return "LP_POOLING";
        case LP1: return "LP_POOLING1";
        case MAX: return "MAX_POOLING";
        case MAX1: return "MAX_POOLING1";
        default: return "MAX_POOLING2";
    }
}

static bool has_dilations(DML_OPERATOR_TYPE op)
{
    return op == AVG1 || op == LP1 || op == MAX2;
}

static UINT dilation(const struct pool_case *c, unsigned int i)
{
    return has_dilations(c->op) && c->dilations[i] ? c->dilations[i] : 1;
}

static void output_sizes(const struct pool_case *c, UINT *sizes)
{
    unsigned int i;

    sizes[0] = c->sizes[0];
    sizes[1] = c->sizes[1];
    for (i = 0; i + 2 < c->rank; ++i)
        sizes[i + 2] = (c->sizes[i + 2] + c->start[i] + c->end[i] - dilation(c, i) * (c->window[i] - 1) - 1)
                / c->strides[i] + 1;
}

/* ---- Element bits and values ---- */

static uint64_t read_bits(const uint8_t *bytes, DML_TENSOR_DATA_TYPE type, uint64_t offset)
{
    unsigned int size = dml_test_element_size(type);
    uint64_t bits = 0;

    memcpy(&bits, bytes + offset * size, size);
    return bits;
}

static void write_bits(uint8_t *bytes, DML_TENSOR_DATA_TYPE type, uint64_t offset, uint64_t bits)
{
    unsigned int size = dml_test_element_size(type);

    memcpy(bytes + offset * size, &bits, size);
}

/* The value of `bits` of `type`: floats in double, integers exactly as int64 / uint64 in the
 * comparison keys below. */
static double float_value(DML_TENSOR_DATA_TYPE type, uint64_t bits)
{
    float value;
    uint32_t word = (uint32_t)bits;

    if (type == F16)
        return ref_half_to_float((uint16_t)bits);
    memcpy(&value, &word, sizeof(value));
    return value;
}

/* A key that orders integers of `type` as their values. */
static int64_t signed_key(DML_TENSOR_DATA_TYPE type, uint64_t bits)
{
    unsigned int shift = 64 - 8 * dml_test_element_size(type);

    return (int64_t)(bits << shift) >> shift;
}

/* Whether `a` is larger than `b` (bits of `type`); NaN is larger than every number. */
static bool greater(DML_TENSOR_DATA_TYPE type, uint64_t a, uint64_t b)
{
    if (is_float(type))
    {
        double x = float_value(type, a), y = float_value(type, b);

        return isnan(y) ? false : isnan(x) || x > y;
    }
    if (is_signed(type))
        return signed_key(type, a) > signed_key(type, b);
    return a > b;
}

static uint64_t lowest_bits(DML_TENSOR_DATA_TYPE type)
{
    unsigned int bits = 8 * dml_test_element_size(type);

    if (type == F32)
        return 0xff800000u;
    if (type == F16)
        return 0xfc00u;
    return is_signed(type) ? (uint64_t)1 << (bits - 1) : 0;
}

static uint64_t random_bits(const struct pool_case *c, uint32_t *rng)
{
    static const float specials[] = {NAN, INFINITY, -INFINITY, -0.0f, 0.0f};
    uint64_t bits = ((uint64_t)ref_random(rng) << 32) | ref_random(rng);
    unsigned int size = dml_test_element_size(c->type);
    float value = ref_random_float(rng, -1.0f, 1.0f);
    uint32_t word;

    if (c->values == TIES)
        value = (float)(ref_random(rng) % 4), bits = ref_random(rng) % 4;
    if (c->values == SPECIAL && ref_random(rng) % 8 == 0)
        value = specials[ref_random(rng) % ARRAY_SIZE(specials)];
    if (c->type == F16)
        return ref_float_to_half(value);
    if (c->type == F32)
        return memcpy(&word, &value, sizeof(word)), word;
    return size == 8 ? bits : bits & (((uint64_t)1 << (8 * size)) - 1);
}

/* ---- The reference ---- */

/* The input's strides for its layout (PADDED: every dimension's stride one element larger than
 * packed; BROADCAST: the channel stride 0). */
static void input_strides(const struct pool_case *c, UINT *strides)
{
    UINT stride = 1;
    int i;

    for (i = c->rank - 1; i >= 0; --i)
    {
        strides[i] = stride;
        stride = stride * c->sizes[i] + (c->layout == PADDED ? 1 : 0);
    }
    if (c->layout == BROADCAST)
        strides[1] = 0;
}

struct reference
{
    uint64_t bits;
    double value, magnitude;
    uint64_t index;
    UINT terms;
};

/* Output element (n, c, spatial...) of `c`. */
static struct reference reference_element(const struct pool_case *c, const uint8_t *in, const UINT *in_strides,
        const UINT *coords)
{
    UINT dims = c->rank - 2, volume = 1, k[3] = {0}, pos[3];
    struct reference r = {lowest_bits(c->type), 0.0, 0.0, UINT64_MAX, 0};
    uint64_t cell, cells = 1, offset, index;
    unsigned int i;
    bool inside;

    for (i = 0; i < dims; ++i)
        cells *= c->window[i];
    for (cell = 0; cell < cells; ++cell)
    {
        uint64_t rest = cell;

        for (i = dims; i-- > 0;)
        {
            k[i] = rest % c->window[i];
            rest /= c->window[i];
        }
        inside = true;
        offset = coords[0] * (uint64_t)in_strides[0] + coords[1] * (uint64_t)in_strides[1];
        index = coords[0] * (uint64_t)c->sizes[1] + coords[1];
        for (i = 0; i < dims; ++i)
        {
            int64_t p = (int64_t)coords[i + 2] * c->strides[i] - c->start[i] + (int64_t)k[i] * dilation(c, i);

            inside = inside && p >= 0 && p < c->sizes[i + 2];
            pos[i] = (UINT)p;
            offset += (uint64_t)pos[i] * in_strides[i + 2];
            index = index * c->sizes[i + 2] + pos[i];
        }
        if (!inside)
            continue;
        if (is_max(c->op))
        {
            uint64_t bits = read_bits(in, c->type, offset);

            if (r.index == UINT64_MAX || greater(c->type, bits, r.bits))
                r.bits = bits, r.index = index;
        }
        else
        {
            double x = float_value(c->type, read_bits(in, c->type, offset));

            r.value += c->op == AVG || c->op == AVG1 ? x : pow(fabs(x), c->p);
            r.magnitude += c->op == AVG || c->op == AVG1 ? fabs(x) : pow(fabs(x), c->p);
            ++r.terms;
        }
    }
    for (i = 0; i < dims; ++i)
        volume *= c->window[i];
    if (r.index == UINT64_MAX)
        r.index = 0;
    if (c->op == AVG || c->op == AVG1)
    {
        r.value /= c->include_padding ? volume : r.terms;
        r.magnitude /= c->include_padding ? volume : r.terms;
    }
    else if (c->op == LP || c->op == LP1)
    {
        r.value = pow(r.value, 1.0 / c->p);
        r.magnitude = r.value;
    }
    return r;
}

/* ---- Running a case ---- */

static void set_desc(const struct pool_case *c, struct dml_test_tensor *in, struct dml_test_tensor *out,
        struct dml_test_tensor *indices, void *storage)
{
    UINT dims = c->rank - 2;
    static UINT ones[3] = {1, 1, 1};
    const UINT *dilations = has_dilations(c->op) && c->dilations[0] ? c->dilations : ones;

    switch (c->op)
    {
        case AVG:
            *(DML_AVERAGE_POOLING_OPERATOR_DESC *)storage = (DML_AVERAGE_POOLING_OPERATOR_DESC){&in->desc,
                    &out->desc, dims, c->strides, c->window, c->start, c->end, c->include_padding};
            break;
        case AVG1:
            *(DML_AVERAGE_POOLING1_OPERATOR_DESC *)storage = (DML_AVERAGE_POOLING1_OPERATOR_DESC){&in->desc,
                    &out->desc, dims, c->strides, c->window, c->start, c->end, dilations, c->include_padding};
            break;
        case LP:
            *(DML_LP_POOLING_OPERATOR_DESC *)storage = (DML_LP_POOLING_OPERATOR_DESC){&in->desc, &out->desc, dims,
                    c->strides, c->window, c->start, c->end, c->p};
            break;
        case LP1:
            *(DML_LP_POOLING1_OPERATOR_DESC *)storage = (DML_LP_POOLING1_OPERATOR_DESC){&in->desc, &out->desc,
                    dims, c->strides, c->window, c->start, c->end, dilations, c->p};
            break;
        case MAX:
            *(DML_MAX_POOLING_OPERATOR_DESC *)storage = (DML_MAX_POOLING_OPERATOR_DESC){&in->desc, &out->desc,
                    dims, c->strides, c->window, c->start, c->end};
            break;
        case MAX1:
            *(DML_MAX_POOLING1_OPERATOR_DESC *)storage = (DML_MAX_POOLING1_OPERATOR_DESC){&in->desc, &out->desc,
                    c->index_type ? &indices->desc : NULL, dims, c->strides, c->window, c->start, c->end};
            break;
        default:
            *(DML_MAX_POOLING2_OPERATOR_DESC *)storage = (DML_MAX_POOLING2_OPERATOR_DESC){&in->desc, &out->desc,
                    c->index_type ? &indices->desc : NULL, dims, c->strides, c->window, c->start, c->end,
                    dilations};
            break;
    }
}

static void describe(const struct pool_case *c, char *text, size_t size)
{
    snprintf(text, size, "%s %s rank %u, input {%u, %u, %u, %u, %u}, window {%u, %u, %u}, strides {%u, %u, %u}, "
            "padding {%u, %u, %u} / {%u, %u, %u}, dilations {%u, %u, %u}, layout %u, values %u%s%s",
            op_name(c->op), dml_test_type_name(c->type), c->rank, c->sizes[0], c->sizes[1], c->sizes[2], c->sizes[3],
            c->sizes[4], c->window[0], c->window[1], c->window[2], c->strides[0], c->strides[1], c->strides[2],
            c->start[0], c->start[1], c->start[2], c->end[0], c->end[1], c->end[2], c->dilations[0], c->dilations[1],
            c->dilations[2], c->layout, c->values, c->include_padding ? ", IncludePadding" : "",
            c->index_type ? (c->index_type == U64 ? ", UINT64 indices" : ", UINT32 indices") : "");
}

static void check_element(const struct pool_case *c, const struct reference *r, const uint8_t *out, uint64_t offset,
        const uint8_t *indices, uint64_t index_offset, uint64_t i)
{
    uint64_t bits = read_bits(out, c->type, offset), index;
    double value, tolerance;
    char text[400];

    if (is_max(c->op))
    {
        if (bits != r->bits)
        {
            describe(c, text, sizeof(text));
            fail_msg("%s: output %" PRIu64 " = %#" PRIx64 ", expected %#" PRIx64, text, i, bits, r->bits);
        }
        if (!c->index_type)
            return;
        index = read_bits(indices, c->index_type, index_offset);
        if (index != r->index)
        {
            describe(c, text, sizeof(text));
            fail_msg("%s: index %" PRIu64 " = %" PRIu64 ", expected %" PRIu64, text, i, index, r->index);
        }
        return;
    }
    value = float_value(c->type, bits);
    if (isnan(r->value) && isnan(value))
        return;
    if (isinf(r->value) && value == r->value)
        return;
    tolerance = dml_test_sum_tolerance(c->type, DML_EXECUTION_FLAG_NONE, r->terms ? r->terms : 1, r->magnitude,
            r->value, 1.0);
    if (c->op == LP || c->op == LP1)
        tolerance += fabs(r->value) * (c->type == F16 ? 2e-3 : 1e-5);
    if (!(fabs(value - r->value) <= tolerance))
    {
        describe(c, text, sizeof(text));
        fail_msg("%s: output %" PRIu64 " = %.9g, expected %.9g (tolerance %.3g)", text, i, value, r->value, tolerance);
    }
}

static void run_case(struct dml_test_context *context, const struct pool_case *c, uint32_t seed)
{
    struct dml_test_binding input = {NULL}, outputs[2] = {{NULL}};
    struct dml_test_tensor in, out, indices;
    UINT in_strides[5], out_sizes[5], out_strides[5], coords[5], stride;
    uint8_t *in_bytes, *out_bytes, *index_bytes = NULL;
    IDMLCompiledOperator *compiled;
    uint64_t i, rest, count, span, offset, index_offset;
    uint8_t storage[128];
    uint32_t rng = seed;
    struct reference r;
    int d;

    if (!dml_test_data_type_supported(context, c->type))
    {
        print_message("%s: not supported by the device, skipped.\n", dml_test_type_name(c->type));
        return;
    }
    input_strides(c, in_strides);
    output_sizes(c, out_sizes);
    stride = 1;
    for (d = c->rank - 1; d >= 0; --d)
    {
        out_strides[d] = stride;
        stride = stride * out_sizes[d] + (c->strided_output ? 2 : 0);
    }
    dml_test_tensor_init(&in, c->type, c->rank, c->sizes, in_strides);
    dml_test_tensor_init(&out, c->type, c->rank, out_sizes, c->strided_output ? out_strides : NULL);
    if (c->index_type)
        dml_test_tensor_init(&indices, c->index_type, c->rank, out_sizes, c->strided_output ? out_strides : NULL);
    set_desc(c, &in, &out, &indices, storage);
    compiled = dml_test_compile(context, c->op, storage, DML_EXECUTION_FLAG_NONE);

    span = in.buffer.TotalTensorSizeInBytes / dml_test_element_size(c->type);
    in_bytes = calloc(1, in.buffer.TotalTensorSizeInBytes);
    out_bytes = malloc(out.buffer.TotalTensorSizeInBytes);
    assert_true(in_bytes && out_bytes);
    for (i = 0; i < span; ++i)
        write_bits(in_bytes, c->type, i, random_bits(c, &rng));
    dml_test_create_guarded(context, in.buffer.TotalTensorSizeInBytes, in_bytes, &input);
    dml_test_create_guarded(context, out.buffer.TotalTensorSizeInBytes, NULL, &outputs[0]);
    if (c->index_type)
    {
        index_bytes = malloc(indices.buffer.TotalTensorSizeInBytes);
        assert_non_null(index_bytes);
        dml_test_create_guarded(context, indices.buffer.TotalTensorSizeInBytes, NULL, &outputs[1]);
    }
    dml_test_run(context, compiled, &input, 1, outputs, c->index_type ? 2 : 1);
    dml_test_read_buffer(context, outputs[0].buffer, outputs[0].offset, out_bytes, out.buffer.TotalTensorSizeInBytes);
    dml_test_check_guards(context, &outputs[0]);
    if (c->index_type)
    {
        dml_test_read_buffer(context, outputs[1].buffer, outputs[1].offset, index_bytes,
                indices.buffer.TotalTensorSizeInBytes);
        dml_test_check_guards(context, &outputs[1]);
    }

    count = dml_test_element_count(&out);
    for (i = 0; i < count; ++i)
    {
        rest = i;
        offset = 0;
        for (d = c->rank - 1; d >= 0; --d)
        {
            coords[d] = rest % out_sizes[d];
            rest /= out_sizes[d];
        }
        offset = dml_test_element_offset(&out, i);
        index_offset = c->index_type ? dml_test_element_offset(&indices, i) : 0;
        r = reference_element(c, in_bytes, in_strides, coords);
        check_element(c, &r, out_bytes, offset, index_bytes, index_offset, i);
    }
    free(in_bytes);
    free(out_bytes);
    free(index_bytes);
    dml_test_release_bindings(&input, 1);
    dml_test_release_bindings(outputs, 2);
    release_last(compiled);
    assert_no_log_errors();
}

/* ---- Tests ---- */

/* Average and Lp pooling, FLOAT32 and FLOAT16: the window shapes of CNNs and their corners. */
static void test_average_lp(void **state)
{
    static const struct pool_case cases[] =
    {
        /* 2-D 2x2 stride 2, odd sizes (the last column and row hang over without EndPadding). */
        {AVG, F32, 0, 4, {2, 3, 7, 9}, {2, 2}, {2, 2}},
        /* 3x3 stride 2 padding 1 both ways, with and without IncludePadding. */
        {AVG, F32, 0, 4, {1, 2, 9, 8}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, .include_padding = TRUE},
        {AVG, F32, 0, 4, {1, 2, 9, 8}, {3, 3}, {2, 2}, {1, 1}, {1, 1}},
        /* Ceil-style sizes: EndPadding lets the last window hang over the end. */
        {AVG, F32, 0, 4, {1, 1, 8, 8}, {3, 3}, {2, 2}, {0, 0}, {1, 1}},
        {AVG, F32, 0, 4, {1, 1, 8, 8}, {3, 3}, {2, 2}, {0, 0}, {1, 1}, .include_padding = TRUE},
        /* Asymmetric padding; a window larger than the input. */
        {AVG, F32, 0, 4, {1, 2, 5, 6}, {4, 3}, {1, 2}, {2, 0}, {1, 2}},
        {AVG, F32, 0, 4, {1, 1, 3, 3}, {5, 5}, {1, 1}, {1, 1}, {1, 1}},
        /* 1-D as 2-D; 3-D. */
        {AVG, F32, 0, 4, {2, 3, 1, 33}, {1, 5}, {1, 3}, {0, 2}, {0, 2}, .include_padding = TRUE},
        {AVG, F32, 0, 5, {1, 2, 5, 6, 7}, {2, 3, 2}, {2, 1, 2}, {1, 1, 0}, {0, 1, 1}},
        {AVG, F32, 0, 5, {1, 2, 5, 6, 7}, {2, 3, 2}, {2, 1, 2}, {1, 1, 0}, {0, 1, 1}, .include_padding = TRUE},
        /* Dilations (AVERAGE_POOLING1). */
        {AVG1, F32, 0, 4, {1, 2, 9, 10}, {3, 2}, {1, 2}, {2, 1}, {1, 1}, {2, 3}},
        {AVG1, F32, 0, 4, {1, 2, 9, 10}, {3, 2}, {1, 2}, {2, 1}, {1, 1}, {2, 3}, .include_padding = TRUE},
        {AVG1, F32, 0, 5, {1, 1, 6, 5, 7}, {2, 2, 3}, {1, 2, 1}, {0, 1, 1}, {1, 0, 1}, {3, 1, 2}},
        /* Strided, broadcast inputs and strided outputs. */
        {AVG, F32, 0, 4, {2, 3, 7, 9}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, .layout = PADDED, .strided_output = true},
        {AVG, F32, 0, 4, {2, 3, 7, 9}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, .layout = BROADCAST},
        /* Global pooling (a window of the whole image), small and long enough for several lanes. */
        {AVG, F32, 0, 4, {2, 5, 7, 7}, {7, 7}, {1, 1}},
        {AVG, F32, 0, 4, {1, 3, 40, 33}, {40, 33}, {1, 1}},
        {AVG, F32, 0, 4, {1, 3, 40, 33}, {40, 33}, {1, 1}, .layout = PADDED},
        /* A large window with padding through the lanes path. */
        {AVG, F32, 0, 4, {1, 2, 12, 12}, {8, 8}, {2, 3}, {1, 2}, {3, 1}},
        {AVG1, F32, 0, 4, {1, 2, 20, 21}, {6, 7}, {3, 2}, {1, 2}, {3, 1}, {2, 2}, .include_padding = TRUE},
        /* Lp: P = 1, 2, 3; dilations (LP_POOLING1); a long window. */
        {LP, F32, 0, 4, {2, 3, 7, 9}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, .p = 1},
        {LP, F32, 0, 4, {2, 3, 7, 9}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, .p = 2},
        {LP, F32, 0, 5, {1, 2, 4, 5, 6}, {2, 2, 2}, {1, 2, 2}, {0, 1, 0}, {1, 0, 1}, .p = 3},
        {LP1, F32, 0, 4, {1, 2, 9, 10}, {3, 2}, {1, 2}, {2, 1}, {1, 1}, {2, 3}, .p = 2},
        {LP, F32, 0, 4, {1, 2, 16, 16}, {16, 16}, {1, 1}, .p = 2, .layout = BROADCAST},
        {LP, F32, 0, 4, {2, 1, 1, 1000}, {1, 1000}, {1, 1}, .p = 1},
        /* Rows of whole 16-byte vectors: the row path (several outputs per invocation), with borders
         * in the first and last vectors, a last invocation past the row's end, 3-D. */
        {AVG, F32, 0, 4, {2, 3, 6, 16}, {3, 3}, {2, 2}, {1, 1}, {1, 1}},
        {AVG, F32, 0, 4, {2, 3, 6, 16}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, .include_padding = TRUE},
        {AVG, F32, 0, 4, {1, 3, 5, 32}, {2, 2}, {2, 2}},
        {AVG, F32, 0, 4, {1, 2, 4, 16}, {3, 3}, {3, 3}, {1, 1}, {1, 1}},
        {LP, F32, 0, 5, {1, 2, 3, 4, 16}, {2, 3, 3}, {1, 1, 1}, {0, 1, 1}, {1, 1, 1}, .p = 2},
        /* Packed global pooling, windows of whole vectors. */
        {AVG, F32, 0, 4, {2, 8, 7, 7}, {7, 7}, {1, 1}},
    };
    struct dml_test_context *context = *state;
    struct pool_case c;
    unsigned int i, t;

    for (i = 0; i < ARRAY_SIZE(cases); ++i)
    {
        for (t = 0; t < 2; ++t)
        {
            c = cases[i];
            c.type = t ? F16 : F32;
            if (dml_test_skip_float16(context, c.type, op_name(c.op)))
                continue;
            run_case(context, &c, 17 + i);
        }
    }
}

/* NaN and infinities propagate through average and Lp pooling. */
static void test_average_lp_special(void **state)
{
    static const struct pool_case cases[] =
    {
        {AVG, F32, 0, 4, {2, 3, 7, 9}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, .values = SPECIAL},
        {LP, F32, 0, 4, {2, 3, 7, 9}, {2, 2}, {1, 1}, .p = 2, .values = SPECIAL},
    };
    struct dml_test_context *context = *state;
    unsigned int i;

    for (i = 0; i < ARRAY_SIZE(cases); ++i)
        run_case(context, &cases[i], 5 + i);
}

/* Max pooling, every type DirectML lists, indices of both types. */
static void test_max_types(void **state)
{
    static const DML_TENSOR_DATA_TYPE types[] =
    {
        DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_UINT32,
        DML_TENSOR_DATA_TYPE_UINT16, DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_INT32,
        DML_TENSOR_DATA_TYPE_INT16, DML_TENSOR_DATA_TYPE_INT8, DML_TENSOR_DATA_TYPE_UINT64,
        DML_TENSOR_DATA_TYPE_INT64,
    };
    static const struct pool_case shapes[] =
    {
        {MAX2, F32, U32, 4, {2, 3, 9, 8}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}},
        {MAX1, F32, U64, 4, {1, 2, 7, 7}, {2, 3}, {2, 1}, {0, 1}, {1, 1}, .values = TIES},
        {MAX, F32, 0, 4, {1, 2, 7, 7}, {7, 7}, {1, 1}, .values = TIES},
        /* Rows of whole 16-byte vectors (the row path's shapes; max stays on the general path). */
        {MAX2, F32, U32, 4, {1, 2, 5, 32}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, .values = TIES},
        {MAX1, F32, U32, 4, {2, 8, 7, 7}, {7, 7}, {1, 1}, .values = TIES},
    };
    struct dml_test_context *context = *state;
    struct pool_case c;
    unsigned int i, t;

    for (t = 0; t < ARRAY_SIZE(types); ++t)
    {
        for (i = 0; i < ARRAY_SIZE(shapes); ++i)
        {
            c = shapes[i];
            c.type = types[t];
            if (dml_test_skip_float16(context, c.type, op_name(c.op)))
                continue;
            run_case(context, &c, 3 + t * 7 + i);
        }
    }
}

/* Max pooling's shapes: ties (the first index), NaN and infinities, padding that never wins
 * (all-negative inputs), windows over the end, 1-D, 3-D, dilations, strided and broadcast
 * inputs, global windows through the lanes path. */
static void test_max_shapes(void **state)
{
    static const struct pool_case cases[] =
    {
        {MAX1, F32, U32, 4, {2, 3, 7, 9}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, .values = TIES},
        {MAX2, F32, U64, 4, {2, 3, 7, 9}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {2, 1}, .values = SPECIAL},
        {MAX2, F32, U32, 4, {1, 2, 8, 8}, {3, 3}, {2, 2}, {0, 0}, {1, 1}, {1, 1}, .values = TIES},
        {MAX1, F32, U32, 4, {2, 3, 1, 33}, {1, 4}, {1, 3}, {0, 2}, {0, 3}, .values = TIES},
        {MAX2, F32, U32, 5, {1, 2, 5, 6, 7}, {2, 3, 2}, {2, 1, 2}, {1, 1, 0}, {0, 1, 1}, {2, 1, 3}, .values = TIES},
        {MAX2, F32, U64, 4, {2, 3, 7, 9}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, .layout = PADDED,
                .strided_output = true},
        {MAX2, F32, U32, 4, {2, 3, 7, 9}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, .layout = BROADCAST},
        {MAX1, F32, U32, 4, {1, 3, 40, 33}, {40, 33}, {1, 1}, .values = TIES},
        {MAX1, F32, U64, 4, {1, 3, 40, 33}, {40, 33}, {1, 1}, .values = SPECIAL},
        {MAX2, F32, U32, 4, {1, 2, 20, 21}, {6, 7}, {3, 2}, {1, 2}, {3, 1}, {2, 2}, .values = TIES},
        /* Rows of whole 16-byte vectors: NaN at the borders; dilated rows (no clamped reads). */
        {MAX2, F32, U64, 4, {2, 3, 9, 16}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, .values = SPECIAL},
        {MAX2, F32, U32, 4, {1, 2, 9, 16}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {2, 1}, .values = TIES},
        /* Windows entirely in the padding: the type's lowest value, index 0. */
        {MAX1, F32, U32, 4, {1, 1, 2, 2}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
        {MAX1, DML_TENSOR_DATA_TYPE_INT8, U32, 4, {1, 1, 2, 2}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
        {MAX1, F32, U32, 4, {1, 2, 3, 3}, {2, 2}, {1, 1}, {0, 1}, {2, 2}},
        {MAX2, F16, U64, 5, {1, 1, 3, 3, 4}, {1, 2, 2}, {1, 1, 2}, {0, 1, 1}, {1, 2, 1}, {1, 1, 1}},
    };
    struct dml_test_context *context = *state;
    unsigned int i;

    for (i = 0; i < ARRAY_SIZE(cases); ++i)
        run_case(context, &cases[i], 100 + i);
}

/* Average and Lp pooling of windows entirely in the padding: 0 with IncludePadding (or Lp), NaN
 * (0 / 0) without. */
static void test_padding_only(void **state)
{
    static const struct pool_case cases[] =
    {
        {AVG, F32, 0, 4, {1, 1, 2, 2}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, .include_padding = TRUE},
        {AVG, F32, 0, 4, {1, 1, 2, 2}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
        {LP, F32, 0, 4, {1, 1, 2, 2}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, .p = 2},
    };
    struct dml_test_context *context = *state;
    unsigned int i;

    for (i = 0; i < ARRAY_SIZE(cases); ++i)
        run_case(context, &cases[i], 200 + i);
}

/* MAX_POOLING2's page with literal values: indices are zero-based positions in the input seen as
 * one contiguous array (the batch included), and among equal values the first one encountered
 * in the window wins. */
static void test_max_page_statements(void **state)
{
    static const UINT in_sizes[] = {2, 1, 3, 3}, out_sizes[] = {2, 1, 2, 2};
    static const UINT window[] = {2, 2}, strides[] = {1, 1}, padding[] = {0, 0}, dilations[] = {1, 1};
    static const float image[] =
    {
        1.0f, 5.0f, 5.0f,  5.0f, 2.0f, 0.0f,  3.0f, 3.0f, 3.0f,
        -1.0f, -1.0f, -1.0f,  -1.0f, -1.0f, -1.0f,  -1.0f, -1.0f, -1.0f,
    };
    static const float want_values[] = {5.0f, 5.0f, 5.0f, 3.0f, -1.0f, -1.0f, -1.0f, -1.0f};
    static const uint32_t want_indices[] = {1, 1, 3, 7, 9, 10, 12, 13};
    struct dml_test_context *context = *state;
    struct dml_test_binding input = {NULL}, outputs[2] = {{NULL}};
    struct dml_test_tensor in, out, indices;
    DML_MAX_POOLING2_OPERATOR_DESC desc;
    IDMLCompiledOperator *compiled;
    uint32_t got_indices[8];
    float got_values[8];
    unsigned int i;

    dml_test_tensor_init(&in, F32, 4, in_sizes, NULL);
    dml_test_tensor_init(&out, F32, 4, out_sizes, NULL);
    dml_test_tensor_init(&indices, U32, 4, out_sizes, NULL);
    desc = (DML_MAX_POOLING2_OPERATOR_DESC){&in.desc, &out.desc, &indices.desc, 2, strides, window, padding, padding,
            dilations};
    compiled = dml_test_compile(context, MAX2, &desc, DML_EXECUTION_FLAG_NONE);
    input.buffer = dml_test_create_buffer(context, sizeof(image), image);
    dml_test_create_guarded(context, sizeof(got_values), NULL, &outputs[0]);
    dml_test_create_guarded(context, sizeof(got_indices), NULL, &outputs[1]);
    dml_test_run(context, compiled, &input, 1, outputs, 2);
    dml_test_read_buffer(context, outputs[0].buffer, outputs[0].offset, got_values, sizeof(got_values));
    dml_test_read_buffer(context, outputs[1].buffer, outputs[1].offset, got_indices, sizeof(got_indices));
    dml_test_check_guards(context, &outputs[0]);
    dml_test_check_guards(context, &outputs[1]);
    for (i = 0; i < ARRAY_SIZE(want_values); ++i)
    {
        if (got_values[i] != want_values[i] || got_indices[i] != want_indices[i])
            fail_msg("output %u: %.9g at %u, expected %.9g at %u", i, got_values[i], got_indices[i], want_values[i],
                    want_indices[i]);
    }
    dml_test_release_bindings(&input, 1);
    dml_test_release_bindings(outputs, 2);
    release_last(compiled);
    assert_no_log_errors();
}

static void test_invalid(void **state)
{
    static const UINT in_sizes[] = {1, 2, 5, 5}, out_sizes[] = {1, 2, 3, 3};
    struct dml_test_context *context = *state;
    /* A third element for the DimensionCount=3 case: the desc's arrays are read to their count. */
    UINT window[] = {3, 3, 3}, strides[] = {2, 2, 2}, start[] = {1, 1, 1}, end[] = {1, 1, 1}, dilations[] = {1, 1, 1};
    struct dml_test_tensor in, out, indices;
    struct dml_test_tensor *tensors[] = {&in, &out, &indices};
    DML_MAX_POOLING2_OPERATOR_DESC max2;
    DML_LP_POOLING_OPERATOR_DESC lp;

    dml_test_tensor_init(&in, F32, 4, in_sizes, NULL);
    dml_test_tensor_init(&out, F32, 4, out_sizes, NULL);
    dml_test_tensor_init(&indices, U32, 4, out_sizes, NULL);
    max2 = (DML_MAX_POOLING2_OPERATOR_DESC){&in.desc, &out.desc, &indices.desc, 2, strides, window, start, end,
            dilations};
    check_hr(dml_test_try_create(context, MAX2, &max2, tensors, 3), S_OK);
    assert_no_log_errors();

    max2.DimensionCount = 3;
    dml_test_check_bad(dml_test_try_create(context, MAX2, &max2, tensors, 3), "DimensionCount=3 must equal");
    max2.DimensionCount = 2;
    strides[1] = 0;
    dml_test_check_bad(dml_test_try_create(context, MAX2, &max2, tensors, 3), "Strides[1]=0");
    strides[1] = 2;
    window[0] = 0;
    dml_test_check_bad(dml_test_try_create(context, MAX2, &max2, tensors, 3), "WindowSize[0]=0");
    window[0] = 3;
    dilations[0] = 0;
    dml_test_check_bad(dml_test_try_create(context, MAX2, &max2, tensors, 3), "Dilations[0]=0");
    dilations[0] = 1;
    /* The window larger than the padded input. */
    window[1] = 8;
    dml_test_check_bad(dml_test_try_create(context, MAX2, &max2, tensors, 3), "must be at least the dilated window");
    window[1] = 3;
    dilations[1] = 4;
    dml_test_check_bad(dml_test_try_create(context, MAX2, &max2, tensors, 3), "must be at least the dilated window");
    dilations[1] = 1;
    /* Output sizes not matching the rule. */
    out.sizes[3] = 4;
    indices.sizes[3] = 4;
    dml_test_check_bad(dml_test_try_create(context, MAX2, &max2, tensors, 3), "OutputTensor.Sizes[3]=4 must equal");
    out.sizes[3] = 3;
    indices.sizes[3] = 3;
    out.sizes[1] = 3;
    indices.sizes[1] = 3;
    dml_test_check_bad(dml_test_try_create(context, MAX2, &max2, tensors, 3), "OutputTensor.Sizes[1]=3 must equal");
    out.sizes[1] = 2;
    indices.sizes[1] = 2;
    /* The indices' shape and type. */
    indices.sizes[2] = 2;
    dml_test_check_bad(dml_test_try_create(context, MAX2, &max2, tensors, 3), "OutputIndicesTensor");
    indices.sizes[2] = 3;
    indices.buffer.DataType = DML_TENSOR_DATA_TYPE_INT32;
    dml_test_check_bad(dml_test_try_create(context, MAX2, &max2, tensors, 3), "OutputIndicesTensor");
    indices.buffer.DataType = DML_TENSOR_DATA_TYPE_FLOAT32;
    dml_test_check_bad(dml_test_try_create(context, MAX2, &max2, tensors, 3), "OutputIndicesTensor");
    indices.buffer.DataType = U64;
    check_hr(dml_test_try_create(context, MAX2, &max2, tensors, 3), S_OK);
    assert_no_log_errors();

    /* Lp's P. */
    lp = (DML_LP_POOLING_OPERATOR_DESC){&in.desc, &out.desc, 2, strides, window, start, end, 0};
    dml_test_check_bad(dml_test_try_create(context, LP, &lp, tensors, 2), "P=0");
    lp.P = 2;
    check_hr(dml_test_try_create(context, LP, &lp, tensors, 2), S_OK);
    assert_no_log_errors();
    /* Average and Lp pooling have no integer types. */
    in.buffer.DataType = out.buffer.DataType = DML_TENSOR_DATA_TYPE_INT32;
    dml_test_check_bad(dml_test_try_create(context, LP, &lp, tensors, 2), "InputTensor");
    vkdml_test_log_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_average_lp, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_average_lp_special, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_max_types, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_max_shapes, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_padding_only, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_max_page_statements, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_invalid, dml_test_setup, dml_test_teardown),
    };

    /* Logging first: it keeps the Vulkan driver loaded for LeakSanitizer (test_utils.c). */
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
