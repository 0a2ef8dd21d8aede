/*
 * DML_OPERATOR_UPSAMPLE_2D, RESAMPLE, RESAMPLE1, RESAMPLE2 and RESAMPLE3 through the public API,
 * against a C reference of DirectML's coordinate rule (README "Resampling"): nearest (bit for
 * bit, every rounding direction, ties) and linear (fp32 sums, tolerances by their taps) with the
 * offsets of ONNX's coordinate transformations (half-pixel, PyTorch half-pixel, align-corners,
 * asymmetric, TF half-pixel for nearest), scales up, down, non-integer and not OutputSize /
 * InputSize (clamped edges), antialiasing, FLOAT16 and the integer types (both modes), ranks 1 to
 * 5, rows longer than a workgroup, strided, broadcast and strided-output tensors, NaN and
 * infinities, an OWNED_BY_DML input; then the desc rules, with their error code and log line.
 */
#include <float.h>
#include <inttypes.h>
#include <math.h>

#include "dml_test_utils.h"

#define MAX_RANK 5
#define SENTINEL 0xa5

#define F32 DML_TENSOR_DATA_TYPE_FLOAT32
#define F16 DML_TENSOR_DATA_TYPE_FLOAT16
#define NEAREST DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR
#define LINEAR DML_INTERPOLATION_MODE_LINEAR
#define UP DML_AXIS_DIRECTION_INCREASING
#define DOWN DML_AXIS_DIRECTION_DECREASING

struct resample_case
{
    DML_OPERATOR_TYPE op;
    DML_TENSOR_DATA_TYPE type;
    DML_INTERPOLATION_MODE mode;
    DML_AXIS_DIRECTION rounding;        /* RESAMPLE2, RESAMPLE3 */
    BOOL antialiased;                   /* RESAMPLE3 */
    UINT rank;
    UINT in_sizes[MAX_RANK], out_sizes[MAX_RANK];
    const UINT *in_strides, *out_strides;   /* NULL: packed */
    float scales[MAX_RANK];             /* UPSAMPLE_2D: its last two are ScaleSize's Height, Width */
    float input_offsets[MAX_RANK], output_offsets[MAX_RANK];
    bool specials;                      /* NaN and infinities among the inputs */
};

static bool is_float(DML_TENSOR_DATA_TYPE type)
{
    return type == F32 || type == F16;
}

/* ---- The reference: DirectML's rule as README "Resampling" fixes it in fp32 ---- */

struct axis_taps
{
    int index[64];
    float weight[64];
    unsigned int count;
};

/* The taps of output coordinate x along dimension d. */
static void reference_taps(const struct resample_case *c, UINT d, UINT x, struct axis_taps *taps)
{
    bool half_up = c->op != DML_OPERATOR_RESAMPLE2 && c->op != DML_OPERATOR_RESAMPLE3;
    double scale = c->scales[d], ipo = c->input_offsets[d], opo = c->output_offsets[d];
    bool nearest = c->mode == NEAREST;
    int n = c->in_sizes[d], first, start, j;
    volatile float product, coordinate;
    float inverse, bias, frac, sum, w;

    if (c->op == DML_OPERATOR_RESAMPLE || c->op == DML_OPERATOR_UPSAMPLE_2D)
        ipo = 0.5, opo = -0.5;
    if (c->op == DML_OPERATOR_UPSAMPLE_2D && d < c->rank - 2)
        scale = 1.0;
    inverse = (float)(1.0 / scale);
    bias = (float)(-opo / scale - ipo + (nearest && half_up ? 0.5 : 0.0));
    product = (float)x * inverse;
    coordinate = product + bias;
    if (nearest)
    {
        first = (int)(c->rounding == UP && !half_up ? ceilf(coordinate) : floorf(coordinate));
        taps->count = 1;
        taps->index[0] = first < 0 ? 0 : first >= n ? n - 1 : first;
        taps->weight[0] = 1.0f;
        return;
    }
    first = (int)floorf(coordinate);
    frac = coordinate - floorf(coordinate);
    if (c->op == DML_OPERATOR_RESAMPLE3 && c->antialiased && 1.0 / scale > 2.0)
    {
        start = (int)floorf(-1.0f / (float)scale) + 1;
        taps->count = 2 - 2 * start;
        assert_true(taps->count <= 64);
        for (j = 0, sum = 0.0f; j < (int)taps->count; ++j)
        {
            w = 1.0f - fabsf((float)(start + j) - frac) * (float)scale;
            taps->weight[j] = w > 0.0f ? w : 0.0f;
            taps->index[j] = first + start + j;
            sum += taps->weight[j];
        }
        for (j = 0; j < (int)taps->count; ++j)
            taps->weight[j] /= sum;
    }
    else
    {
        taps->count = 2;
        taps->index[0] = first, taps->index[1] = first + 1;
        taps->weight[0] = 1.0f - frac, taps->weight[1] = frac;
    }
    for (j = 0; j < (int)taps->count; ++j)
        taps->index[j] = taps->index[j] < 0 ? 0 : taps->index[j] >= n ? n - 1 : taps->index[j];
}

/* Output element `coords`: outer taps (the last dimension's inner), weights of 0 skipped. */
static double reference_value(const struct resample_case *c, const struct dml_test_tensor *in, const float *values,
        const UINT *coords, unsigned int *terms)
{
    struct axis_taps taps[MAX_RANK];
    unsigned int outer = 1, t, rest, j;
    UINT64 offset, stride;
    float weight, sum, total = 0.0f;
    int d, last = c->rank - 1;

    reference_taps(c, last, coords[last], &taps[last]);
    for (d = 0; d < last; ++d)
    {
        reference_taps(c, d, coords[d], &taps[d]);
        outer *= taps[d].count;
    }
    *terms = outer * taps[last].count;
    for (t = 0; t < outer; ++t)
    {
        rest = t;
        offset = 0;
        weight = 1.0f;
        for (d = last - 1; d >= 0; --d)
        {
            j = rest % taps[d].count;
            rest /= taps[d].count;
            stride = in->buffer.Strides ? in->strides[d] : 1;
            if (!in->buffer.Strides)
            {
                for (int e = d + 1; e <= last; ++e)
                    stride *= in->sizes[e];
            }
            offset += taps[d].index[j] * stride;
            weight *= taps[d].weight[j];
        }
        if (weight == 0.0f)
            continue;
        sum = 0.0f;
        for (j = 0; j < taps[last].count; ++j)
        {
            if (taps[last].weight[j] != 0.0f)
                sum += taps[last].weight[j] * values[offset + taps[last].index[j] * (in->buffer.Strides
                        ? in->strides[last] : 1)];
        }
        total += weight * sum;
    }
    return total;
}

/* The input element the nearest rule picks (its element offset). */
static UINT64 reference_nearest(const struct resample_case *c, const struct dml_test_tensor *in, const UINT *coords)
{
    struct axis_taps taps;
    UINT64 offset = 0, stride = 1;
    int d;

    for (d = c->rank - 1; d >= 0; --d)
    {
        reference_taps(c, d, coords[d], &taps);
        offset += taps.index[0] * (in->buffer.Strides ? in->strides[d] : stride);
        stride *= in->sizes[d];
    }
    return offset;
}

/* ---- Running a case ---- */

static IDMLCompiledOperator *compile_case(struct dml_test_context *context, const struct resample_case *c,
        struct dml_test_tensor *in, struct dml_test_tensor *out)
{
    DML_RESAMPLE3_OPERATOR_DESC desc3 = {&in->desc, &out->desc, c->mode, c->rounding, c->rank, c->scales,
            c->input_offsets, c->output_offsets, c->antialiased};
    DML_RESAMPLE1_OPERATOR_DESC desc1 = {&in->desc, &out->desc, c->mode, c->rank, c->scales, c->input_offsets,
            c->output_offsets};
    DML_RESAMPLE_OPERATOR_DESC desc0 = {&in->desc, &out->desc, c->mode, c->rank, c->scales};
    DML_UPSAMPLE_2D_OPERATOR_DESC upsample = {&in->desc, &out->desc, {1, 1}, c->mode};

    switch (c->op)
    {
        case DML_OPERATOR_UPSAMPLE_2D:
            upsample.ScaleSize.Width = (UINT)c->scales[c->rank - 1];
            upsample.ScaleSize.Height = (UINT)c->scales[c->rank - 2];
            return dml_test_compile(context, c->op, &upsample, DML_EXECUTION_FLAG_NONE);
        case DML_OPERATOR_RESAMPLE:
            return dml_test_compile(context, c->op, &desc0, DML_EXECUTION_FLAG_NONE);
        case DML_OPERATOR_RESAMPLE1:
            return dml_test_compile(context, c->op, &desc1, DML_EXECUTION_FLAG_NONE);
        default:                        /* RESAMPLE2's desc is RESAMPLE3's without Antialiased */
            return dml_test_compile(context, c->op, &desc3, DML_EXECUTION_FLAG_NONE);
    }
}

static const float specials[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1e30f};

/* Random inputs of the type (FLOAT16 rounded), or specials at every third element. */
static void fill_input(const struct resample_case *c, uint8_t *bytes, float *values, size_t span)
{
    unsigned int size = dml_test_element_size(c->type);
    uint32_t random = 0x12345u + c->rank;
    uint16_t half;
    size_t i;
    float f;

    for (i = 0; i < span; ++i)
    {
        if (!is_float(c->type))
        {
            bytes[i] = (uint8_t)ref_random(&random);
            values[i] = c->type == DML_TENSOR_DATA_TYPE_INT8 ? (float)(int8_t)bytes[i] : (float)bytes[i];
            continue;
        }
        f = c->specials && i % 3 == 1 ? specials[(i / 3) % ARRAY_SIZE(specials)]
                : ref_random_float(&random, -1.0f, 1.0f);
        if (c->type == F16)
        {
            half = ref_float_to_half(f);
            memcpy(bytes + i * size, &half, 2);
            values[i] = ref_half_to_float(half);
        }
        else
        {
            memcpy(bytes + i * size, &f, 4);
            values[i] = f;
        }
    }
}

static void check_float(const struct resample_case *c, double expected, float got, unsigned int terms,
        UINT64 index)
{
    double tolerance = dml_test_sum_tolerance(c->type, DML_EXECUTION_FLAG_NONE, terms, 1.0, expected, 1.0);

    if (isnan(expected) && isnan(got))
        return;
    if (isinf(expected) && got == expected)
        return;
    if (!(fabs(got - expected) <= tolerance * 4.0))
        fail_msg("op %#x %s mode %u rank %u: output %" PRIu64 " = %.9g, expected %.9g", c->op,
                dml_test_type_name(c->type), c->mode, c->rank, index, got, expected);
}

static void run_case(struct dml_test_context *context, const struct resample_case *c)
{
    struct dml_test_binding input = {NULL}, output = {NULL};
    unsigned int size = dml_test_element_size(c->type), terms;
    struct dml_test_tensor in, out;
    IDMLCompiledOperator *compiled;
    UINT coords[MAX_RANK];
    uint8_t *in_bytes, *out_bytes;
    UINT64 i, count, offset, rest;
    size_t in_span;
    float *values;
    int d;

    if (!dml_test_data_type_supported(context, c->type))
    {
        print_message("%s: not supported by the device, skipped.\n", dml_test_type_name(c->type));
        return;
    }
    dml_test_tensor_init(&in, c->type, c->rank, c->in_sizes, c->in_strides);
    dml_test_tensor_init(&out, c->type, c->rank, c->out_sizes, c->out_strides);
    compiled = compile_case(context, c, &in, &out);
    in_span = dml_test_element_offset(&in, dml_test_element_count(&in) - 1) + 1;
    in_bytes = calloc(1, in.buffer.TotalTensorSizeInBytes);
    values = calloc(in_span, sizeof(*values));
    out_bytes = malloc(out.buffer.TotalTensorSizeInBytes);
    assert_true(in_bytes && values && out_bytes);
    fill_input(c, in_bytes, values, in_span);
    memset(out_bytes, SENTINEL, out.buffer.TotalTensorSizeInBytes);
    input.buffer = dml_test_create_buffer(context, in.buffer.TotalTensorSizeInBytes, in_bytes);
    output.buffer = dml_test_create_buffer(context, out.buffer.TotalTensorSizeInBytes, out_bytes);
    dml_test_run(context, compiled, &input, 1, &output, 1);
    dml_test_read_buffer(context, output.buffer, 0, out_bytes, out.buffer.TotalTensorSizeInBytes);

    count = dml_test_element_count(&out);
    for (i = 0; i < count; ++i)
    {
        for (d = c->rank - 1, rest = i; d >= 0; --d)
        {
            coords[d] = rest % c->out_sizes[d];
            rest /= c->out_sizes[d];
        }
        offset = dml_test_element_offset(&out, i) * size;
        if (c->mode == NEAREST)
        {
            UINT64 source = reference_nearest(c, &in, coords) * size;

            if (memcmp(out_bytes + offset, in_bytes + source, size))
                fail_msg("op %#x %s rank %u: output %" PRIu64 " differs from input element %" PRIu64, c->op,
                        dml_test_type_name(c->type), c->rank, i, source / size);
        }
        else if (!is_float(c->type))
        {
            double expected = reference_value(c, &in, values, coords, &terms);
            int got = c->type == DML_TENSOR_DATA_TYPE_INT8 ? (int8_t)out_bytes[offset] : out_bytes[offset];

            /* Rounded to nearest (ties: test_integer_linear_ties); the fp32 sums may differ a little. */
            if (!(fabs(got - expected) <= 0.5 + 1e-3))
                fail_msg("op %#x %s rank %u: output %" PRIu64 " = %d, expected %.6g rounded", c->op,
                        dml_test_type_name(c->type), c->rank, i, got, expected);
        }
        else
        {
            double expected = reference_value(c, &in, values, coords, &terms);

            check_float(c, expected, dml_test_read_float(out_bytes, c->type, offset / size), terms, i);
        }
    }
    free(in_bytes);
    free(values);
    free(out_bytes);
    release_last(input.buffer);
    release_last(output.buffer);
    release_last(compiled);
    assert_no_log_errors();
}

/* ---- Cases ---- */

static void set_sizes(struct resample_case *c, UINT rank, const UINT *in, const UINT *out)
{
    c->rank = rank;
    memcpy(c->in_sizes, in, rank * sizeof(*in));
    memcpy(c->out_sizes, out, rank * sizeof(*out));
}

/* ONNX Resize's coordinate_transformation_mode as offsets and scales (ONNX Runtime's DirectML
 * provider does the same): output x reads (x - OutputPixelOffset) / Scale - InputPixelOffset. */
enum transform
{
    HALF_PIXEL,
    PYTORCH_HALF_PIXEL,
    ALIGN_CORNERS,
    ASYMMETRIC,
    TF_HALF_PIXEL_FOR_NN,
};

static void set_transform(struct resample_case *c, enum transform transform)
{
    UINT d;

    for (d = 0; d < c->rank; ++d)
    {
        float scale = (float)c->out_sizes[d] / c->in_sizes[d];

        c->scales[d] = scale;
        c->input_offsets[d] = 0.5f;
        c->output_offsets[d] = -0.5f;
        if (transform == PYTORCH_HALF_PIXEL && c->in_sizes[d] <= 1)
            c->scales[d] = FLT_MAX, c->input_offsets[d] = c->output_offsets[d] = 0.0f;
        if (transform == ALIGN_CORNERS)
        {
            c->input_offsets[d] = c->output_offsets[d] = 0.0f;
            c->scales[d] = c->in_sizes[d] <= 1 || c->out_sizes[d] <= 1 ? FLT_MAX
                    : (float)(c->out_sizes[d] - 1) / (c->in_sizes[d] - 1);
        }
        if (transform == ASYMMETRIC)
            c->input_offsets[d] = c->output_offsets[d] = 0.0f;
        if (transform == TF_HALF_PIXEL_FOR_NN)
            c->input_offsets[d] = 0.0f;
    }
}

static void test_resample_modes(void **state)
{
    static const UINT in[4] = {1, 2, 5, 7}, up[4] = {1, 2, 10, 14}, odd[4] = {1, 2, 12, 9}, down[4] = {1, 2, 3, 4};
    static const DML_TENSOR_DATA_TYPE types[] = {F32, F16};
    static const UINT *const outs[] = {up, odd, down};
    struct resample_case c;
    size_t t, o, m;

    for (t = 0; t < ARRAY_SIZE(types); ++t)
    {
        for (o = 0; o < ARRAY_SIZE(outs); ++o)
        {
            for (m = 0; m < 2; ++m)
            {
                memset(&c, 0, sizeof(c));
                c.op = DML_OPERATOR_RESAMPLE;
                c.type = types[t];
                c.mode = m ? LINEAR : NEAREST;
                set_sizes(&c, 4, in, outs[o]);
                set_transform(&c, HALF_PIXEL);
                run_case(*state, &c);
            }
        }
    }
    /* Scales that are not OutputSize / InputSize: the output is cropped or its edges clamped. */
    memset(&c, 0, sizeof(c));
    c.op = DML_OPERATOR_RESAMPLE;
    c.type = F32;
    c.mode = LINEAR;
    set_sizes(&c, 4, in, odd);
    c.scales[0] = c.scales[1] = 1.0f;
    c.scales[2] = 1.3f, c.scales[3] = 3.0f;
    run_case(*state, &c);
    c.mode = NEAREST;
    c.scales[2] = 0.7f, c.scales[3] = 1.1f;
    run_case(*state, &c);
}

static void test_resample1_transforms(void **state)
{
    static const UINT in[4] = {2, 1, 4, 6}, out[4] = {2, 3, 7, 15}, down_out[4] = {2, 1, 3, 2};
    static const enum transform transforms[] = {HALF_PIXEL, PYTORCH_HALF_PIXEL, ALIGN_CORNERS, ASYMMETRIC,
            TF_HALF_PIXEL_FOR_NN};
    struct resample_case c;
    size_t t, m;

    for (t = 0; t < ARRAY_SIZE(transforms); ++t)
    {
        for (m = 0; m < 2; ++m)
        {
            memset(&c, 0, sizeof(c));
            c.op = DML_OPERATOR_RESAMPLE1;
            c.type = m ? F16 : F32;
            c.mode = m ? LINEAR : NEAREST;
            set_sizes(&c, 4, in, t % 2 ? down_out : out);
            set_transform(&c, transforms[t]);
            run_case(*state, &c);
        }
    }
}

/* RESAMPLE2: floor and ceil, and ONNX's nearest modes through them (round_prefer_floor: ceil of
 * c - 0.5, an input offset 0.5 more; round_prefer_ceil: floor of c + 0.5), with exact ties. */
static void test_resample2_rounding(void **state)
{
    static const UINT in[3] = {3, 4, 5}, out[3] = {3, 8, 10}, down[3] = {2, 2, 3};
    static const float adjust[] = {0.0f, 0.5f, -0.5f};
    struct resample_case c;
    size_t r, a, d;

    for (r = 0; r < 2; ++r)
    {
        for (a = 0; a < ARRAY_SIZE(adjust); ++a)
        {
            memset(&c, 0, sizeof(c));
            c.op = DML_OPERATOR_RESAMPLE2;
            c.type = a == 1 ? F16 : F32;
            c.mode = NEAREST;
            c.rounding = r ? UP : DOWN;
            set_sizes(&c, 3, in, a == 2 ? down : out);
            set_transform(&c, a ? HALF_PIXEL : ASYMMETRIC);
            for (d = 0; d < 3; ++d)
                c.input_offsets[d] += adjust[a];
            run_case(*state, &c);
        }
    }
    /* Linear ignores the rounding direction. */
    c.mode = LINEAR;
    run_case(*state, &c);
}

static void test_resample3_antialias(void **state)
{
    static const UINT in[4] = {1, 2, 17, 23}, out[4] = {1, 2, 4, 9}, out_up[4] = {1, 2, 34, 9};
    struct resample_case c;
    size_t t;

    for (t = 0; t < 4; ++t)
    {
        memset(&c, 0, sizeof(c));
        c.op = DML_OPERATOR_RESAMPLE3;
        c.type = t % 2 ? F16 : F32;
        c.mode = LINEAR;
        c.antialiased = TRUE;
        set_sizes(&c, 4, in, t < 2 ? out : out_up);
        set_transform(&c, t == 3 ? ASYMMETRIC : HALF_PIXEL);
        run_case(*state, &c);
    }
    /* Scales 0.25 and 0.45 (filtered), 0.5 (the page's 1 / Scale > 2 fails: plain linear). */
    c.scales[2] = 0.25f, c.scales[3] = 0.45f;
    c.out_sizes[2] = 4, c.out_sizes[3] = 10;
    run_case(*state, &c);
    c.scales[2] = 0.5f;
    c.out_sizes[2] = 8;
    run_case(*state, &c);
    /* Not antialiased, or nearest: RESAMPLE2. */
    c.antialiased = FALSE;
    run_case(*state, &c);
    c.antialiased = TRUE;
    c.mode = NEAREST;
    run_case(*state, &c);
}

static void test_upsample_2d(void **state)
{
    static const UINT in4[4] = {2, 3, 5, 7}, out4[4] = {2, 3, 10, 21}, in5[5] = {1, 2, 3, 4, 5},
            out5[5] = {1, 2, 3, 4, 15};
    struct resample_case c;
    size_t t, m;

    for (t = 0; t < 2; ++t)
    {
        for (m = 0; m < 2; ++m)
        {
            memset(&c, 0, sizeof(c));
            c.op = DML_OPERATOR_UPSAMPLE_2D;
            c.type = t ? F16 : F32;
            c.mode = m ? LINEAR : NEAREST;
            if (t)
            {
                set_sizes(&c, 5, in5, out5);
                c.scales[3] = 1.0f, c.scales[4] = 3.0f;
            }
            else
            {
                set_sizes(&c, 4, in4, out4);
                c.scales[2] = 2.0f, c.scales[3] = 3.0f;
            }
            run_case(*state, &c);
        }
    }
}

/* Nearest moves the bits of INT8 and UINT8 (RESAMPLE, RESAMPLE1, RESAMPLE3; RESAMPLE2 since
 * FL 6_2, DirectML's version history). */
static void test_integer_types(void **state)
{
    static const DML_OPERATOR_TYPE ops[] = {DML_OPERATOR_RESAMPLE, DML_OPERATOR_RESAMPLE1, DML_OPERATOR_RESAMPLE3,
            DML_OPERATOR_RESAMPLE2};
    static const UINT in[4] = {1, 3, 6, 35}, out[4] = {1, 3, 13, 70};
    struct resample_case c;
    size_t o;

    for (o = 0; o < ARRAY_SIZE(ops); ++o)
    {
        memset(&c, 0, sizeof(c));
        c.op = ops[o];
        c.type = o % 2 ? DML_TENSOR_DATA_TYPE_UINT8 : DML_TENSOR_DATA_TYPE_INT8;
        c.mode = NEAREST;
        c.rounding = UP;
        set_sizes(&c, 4, in, out);
        set_transform(&c, HALF_PIXEL);
        run_case(*state, &c);
    }
}

/* The pages list INT8 and UINT8 for every mode: linear sums in fp32 and rounds once (README
 * "Resampling"), antialiased too; packed rows (vector stores) and a strided output. */
static void test_integer_linear(void **state)
{
    static const DML_OPERATOR_TYPE ops[] = {DML_OPERATOR_RESAMPLE, DML_OPERATOR_RESAMPLE1, DML_OPERATOR_RESAMPLE2,
            DML_OPERATOR_RESAMPLE3};
    static const UINT in[4] = {1, 3, 6, 35}, out[4] = {1, 3, 13, 70}, down[4] = {1, 2, 25, 40};
    static const UINT small[4] = {1, 2, 5, 7}, small_out_strides[4] = {200, 100, 15, 2};
    struct resample_case c;
    size_t o;

    for (o = 0; o < ARRAY_SIZE(ops); ++o)
    {
        memset(&c, 0, sizeof(c));
        c.op = ops[o];
        c.type = o % 2 ? DML_TENSOR_DATA_TYPE_UINT8 : DML_TENSOR_DATA_TYPE_INT8;
        c.mode = LINEAR;
        set_sizes(&c, 4, in, out);
        set_transform(&c, o == 1 ? ALIGN_CORNERS : HALF_PIXEL);
        run_case(*state, &c);
    }
    memset(&c, 0, sizeof(c));
    c.op = DML_OPERATOR_RESAMPLE3;
    c.type = DML_TENSOR_DATA_TYPE_UINT8;
    c.mode = LINEAR;
    c.antialiased = TRUE;
    set_sizes(&c, 4, down, small);
    set_transform(&c, HALF_PIXEL);
    c.out_strides = small_out_strides;
    run_case(*state, &c);
}

/* Halves round to even: UINT8 {1, 2, 3, 6} and INT8 {-1, -2, -3, -6} doubled, asymmetric. */
static void test_integer_linear_ties(void **state)
{
    static const int8_t signed_in[4] = {-1, -2, -3, -6}, signed_out[8] = {-1, -2, -2, -2, -3, -4, -6, -6};
    static const uint8_t unsigned_in[4] = {1, 2, 3, 6}, unsigned_out[8] = {1, 2, 2, 2, 3, 4, 6, 6};
    struct dml_test_context *context = *state;
    struct dml_test_binding input = {NULL}, output = {NULL};
    static const UINT in_size = 4, out_size = 8;
    struct dml_test_tensor in, out;
    IDMLCompiledOperator *compiled;
    struct resample_case c;
    uint8_t bytes[8];
    unsigned int t;

    for (t = 0; t < 2; ++t)
    {
        memset(&c, 0, sizeof(c));
        c.op = DML_OPERATOR_RESAMPLE1;
        c.type = t ? DML_TENSOR_DATA_TYPE_INT8 : DML_TENSOR_DATA_TYPE_UINT8;
        c.mode = LINEAR;
        set_sizes(&c, 1, &in_size, &out_size);
        set_transform(&c, ASYMMETRIC);
        if (!dml_test_data_type_supported(context, c.type))
            continue;
        dml_test_tensor_init(&in, c.type, 1, c.in_sizes, NULL);
        dml_test_tensor_init(&out, c.type, 1, c.out_sizes, NULL);
        compiled = compile_case(context, &c, &in, &out);
        input.buffer = dml_test_create_buffer(context, in.buffer.TotalTensorSizeInBytes,
                t ? (const void *)signed_in : (const void *)unsigned_in);
        output.buffer = dml_test_create_buffer(context, out.buffer.TotalTensorSizeInBytes, NULL);
        dml_test_run(context, compiled, &input, 1, &output, 1);
        dml_test_read_buffer(context, output.buffer, 0, bytes, sizeof(bytes));
        assert_memory_equal(bytes, t ? (const void *)signed_out : (const void *)unsigned_out, sizeof(bytes));
        release_last(input.buffer);
        release_last(output.buffer);
        release_last(compiled);
    }
    assert_no_log_errors();
}

/* Ranks 1 to 3, every dimension resized, rows longer than a workgroup, a size-1 input. */
static void test_ranks(void **state)
{
    static const UINT in1[1] = {1000}, out1[1] = {2001}, in1b[1] = {1}, out1b[1] = {33};
    static const UINT in2[2] = {7, 33}, out2[2] = {3, 100}, in3[3] = {3, 5, 7}, out3[3] = {7, 2, 11};
    struct resample_case c;
    size_t m;

    for (m = 0; m < 2; ++m)
    {
        memset(&c, 0, sizeof(c));
        c.op = DML_OPERATOR_RESAMPLE1;
        c.type = F32;
        c.mode = m ? LINEAR : NEAREST;
        set_sizes(&c, 1, in1, out1);
        set_transform(&c, HALF_PIXEL);
        run_case(*state, &c);
        set_sizes(&c, 1, in1b, out1b);
        set_transform(&c, ALIGN_CORNERS);
        run_case(*state, &c);
        set_sizes(&c, 2, in2, out2);
        set_transform(&c, HALF_PIXEL);
        run_case(*state, &c);
        c.op = DML_OPERATOR_RESAMPLE2;
        set_sizes(&c, 3, in3, out3);
        set_transform(&c, ASYMMETRIC);
        run_case(*state, &c);
    }
}

/* Padded and broadcast (0-stride) inputs, a padded output. */
static void test_strides(void **state)
{
    static const UINT in[4] = {2, 3, 4, 5}, out[4] = {2, 3, 8, 10};
    static const UINT padded[4] = {100, 30, 7, 1}, broadcast[4] = {0, 5, 0, 1}, out_padded[4] = {400, 130, 12, 1};
    struct resample_case c;
    size_t m;

    for (m = 0; m < 2; ++m)
    {
        memset(&c, 0, sizeof(c));
        c.op = DML_OPERATOR_RESAMPLE;
        c.type = m ? F32 : F16;
        c.mode = m ? LINEAR : NEAREST;
        set_sizes(&c, 4, in, out);
        set_transform(&c, HALF_PIXEL);
        c.in_strides = padded;
        run_case(*state, &c);
        c.in_strides = broadcast;
        c.out_strides = out_padded;
        run_case(*state, &c);
    }
}

static void test_specials(void **state)
{
    static const UINT in[4] = {1, 1, 6, 9}, out[4] = {1, 1, 13, 18}, down[4] = {1, 1, 2, 2};
    struct resample_case c;

    memset(&c, 0, sizeof(c));
    c.op = DML_OPERATOR_RESAMPLE1;
    c.type = F32;
    c.mode = LINEAR;
    c.specials = true;
    set_sizes(&c, 4, in, out);
    set_transform(&c, HALF_PIXEL);
    run_case(*state, &c);
    /* Identity dimensions: an infinity next door with weight 0 does not turn into NaN. */
    c.out_sizes[2] = 6;
    c.scales[2] = 1.0f;
    run_case(*state, &c);
    c.op = DML_OPERATOR_RESAMPLE3;
    c.antialiased = TRUE;
    c.type = F16;
    set_sizes(&c, 4, in, down);
    set_transform(&c, HALF_PIXEL);
    run_case(*state, &c);
    c.mode = NEAREST;
    run_case(*state, &c);
}

/* An OWNED_BY_DML input: read from the persistent resource, the same after its source is overwritten. */
static void test_owned_input(void **state)
{
    static const UINT in_sizes[4] = {1, 3, 5, 6}, out_sizes[4] = {1, 3, 10, 12};
    struct dml_test_binding inputs[1] = {{NULL}}, owned[1] = {{NULL}}, output = {NULL};
    struct dml_test_context *context = *state;
    const struct dml_test_float_tensor *tensors[1];
    struct dml_test_float_tensor in;
    IDMLCompiledOperator *compiled;
    ID3D12Resource *persistent;
    struct dml_test_tensor out;
    struct resample_case c;
    unsigned int pass, terms;
    UINT coords[MAX_RANK];
    float *got;
    UINT64 i, count;

    memset(&c, 0, sizeof(c));
    c.op = DML_OPERATOR_RESAMPLE1;
    c.type = F32;
    c.mode = LINEAR;
    set_sizes(&c, 4, in_sizes, out_sizes);
    set_transform(&c, HALF_PIXEL);
    dml_test_float_tensor_init(&in, F32, 4, in_sizes, NULL, DML_TENSOR_FLAG_OWNED_BY_DML, 7);
    dml_test_tensor_init(&out, F32, 4, out_sizes, NULL);
    compiled = compile_case(context, &c, &in.t, &out);
    tensors[0] = &in;
    dml_test_create_input_buffers(context, tensors, 1, inputs, owned);
    persistent = dml_test_initialize(context, compiled, owned, 1);
    count = dml_test_element_count(&out);
    got = malloc(count * sizeof(*got));
    assert_non_null(got);
    for (pass = 0; pass < 2; ++pass)
    {
        if (pass)
            dml_test_scribble_owned(owned, tensors, 1);
        output.buffer = dml_test_create_buffer(context, out.buffer.TotalTensorSizeInBytes, NULL);
        dml_test_execute(context, compiled, persistent, inputs, 1, &output, 1);
        dml_test_read_buffer(context, output.buffer, 0, got, count * sizeof(*got));
        for (i = 0; i < count; ++i)
        {
            coords[0] = 0, coords[1] = (UINT)(i / 120), coords[2] = (UINT)(i / 12 % 10), coords[3] = (UINT)(i % 12);
            check_float(&c, reference_value(&c, &in.t, in.values, coords, &terms), got[i], terms, i);
        }
        release_last(output.buffer);
    }
    free(got);
    dml_test_release_bindings(owned, 1);
    dml_test_release_bindings(inputs, 1);
    if (persistent)
        release_last(persistent);
    release_last(compiled);
    dml_test_float_tensor_cleanup(&in);
    assert_no_log_errors();
}

/* ---- Desc rules ---- */

static void test_invalid(void **state)
{
    static const UINT in_sizes[4] = {1, 2, 3, 4}, out_sizes[4] = {1, 2, 6, 8};
    float scales[4] = {1.0f, 1.0f, 2.0f, 2.0f}, input_offsets[4] = {0.5f, 0.5f, 0.5f, 0.5f};
    float output_offsets[4] = {-0.5f, -0.5f, -0.5f, -0.5f};
    struct dml_test_context *context = *state;
    struct dml_test_tensor in, out;
    struct dml_test_tensor *tensors[] = {&in, &out};
    DML_RESAMPLE2_OPERATOR_DESC desc2;
    DML_UPSAMPLE_2D_OPERATOR_DESC upsample;
    DML_RESAMPLE_OPERATOR_DESC desc0;

    dml_test_tensor_init(&in, F32, 4, in_sizes, NULL);
    dml_test_tensor_init(&out, F32, 4, out_sizes, NULL);
    desc2 = (DML_RESAMPLE2_OPERATOR_DESC){&in.desc, &out.desc, LINEAR, DOWN, 4, scales, input_offsets, output_offsets};
    check_hr(dml_test_try_create(context, DML_OPERATOR_RESAMPLE2, &desc2, tensors, 2), S_OK);
    assert_no_log_errors();
    desc2.DimensionCount = 3;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_RESAMPLE2, &desc2, tensors, 2),
            "DimensionCount=3 must be InputTensor.DimensionCount=4");
    desc2.DimensionCount = 4;
    scales[2] = 0.0f;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_RESAMPLE2, &desc2, tensors, 2),
            "Scales[2]=0 must be positive and finite");
    scales[2] = -2.0f;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_RESAMPLE2, &desc2, tensors, 2),
            "Scales[2]=-2 must be positive");
    scales[2] = NAN;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_RESAMPLE2, &desc2, tensors, 2), "Scales[2]=nan");
    scales[2] = 2.0f;
    output_offsets[3] = INFINITY;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_RESAMPLE2, &desc2, tensors, 2),
            "OutputPixelOffsets[3]=inf must be finite");
    output_offsets[3] = -0.5f;
    desc2.InterpolationMode = (DML_INTERPOLATION_MODE)2;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_RESAMPLE2, &desc2, tensors, 2),
            "InterpolationMode 2 is not a DML_INTERPOLATION_MODE");
    desc2.InterpolationMode = NEAREST;
    desc2.RoundingDirection = (DML_AXIS_DIRECTION)2;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_RESAMPLE2, &desc2, tensors, 2),
            "RoundingDirection 2 is not a DML_AXIS_DIRECTION");
    desc2.InterpolationMode = LINEAR;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_RESAMPLE2, &desc2, tensors, 2),
            "RoundingDirection 2 is not a DML_AXIS_DIRECTION");
    desc2.RoundingDirection = DOWN;

    /* INT8 in both modes (the pages list it); ScaleCount is the rank. */
    in.buffer.DataType = out.buffer.DataType = DML_TENSOR_DATA_TYPE_INT8;
    desc0 = (DML_RESAMPLE_OPERATOR_DESC){&in.desc, &out.desc, LINEAR, 4, scales};
    check_hr(dml_test_try_create(context, DML_OPERATOR_RESAMPLE, &desc0, tensors, 2), S_OK);
    desc0.InterpolationMode = NEAREST;
    check_hr(dml_test_try_create(context, DML_OPERATOR_RESAMPLE, &desc0, tensors, 2), S_OK);
    assert_no_log_errors();
    desc0.ScaleCount = 5;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_RESAMPLE, &desc0, tensors, 2),
            "ScaleCount=5 must be InputTensor.DimensionCount=4");

    /* UPSAMPLE_2D: the output is the input times ScaleSize. */
    in.buffer.DataType = out.buffer.DataType = F32;
    upsample = (DML_UPSAMPLE_2D_OPERATOR_DESC){&in.desc, &out.desc, {2, 2}, LINEAR};
    check_hr(dml_test_try_create(context, DML_OPERATOR_UPSAMPLE_2D, &upsample, tensors, 2), S_OK);
    assert_no_log_errors();
    upsample.ScaleSize.Width = 3;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_UPSAMPLE_2D, &upsample, tensors, 2),
            "OutputTensor.Sizes[3]=8 must be 12");
    upsample.ScaleSize.Width = 0;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_UPSAMPLE_2D, &upsample, tensors, 2),
            "ScaleSize={0,2} must be at least 1");
    upsample.ScaleSize.Width = 2;
    upsample.InterpolationMode = (DML_INTERPOLATION_MODE)-1;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_UPSAMPLE_2D, &upsample, tensors, 2),
            "InterpolationMode -1 is not a DML_INTERPOLATION_MODE");
    upsample.InterpolationMode = LINEAR;
    out.sizes[1] = 3;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_UPSAMPLE_2D, &upsample, tensors, 2),
            "OutputTensor.Sizes[1]=3 must be 2");
    vkdml_test_log_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_resample_modes, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_resample1_transforms, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_resample2_rounding, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_resample3_antialias, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_upsample_2d, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_integer_types, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_integer_linear, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_integer_linear_ties, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_ranks, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_strides, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_specials, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_owned_input, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_invalid, dml_test_setup, dml_test_teardown),
    };

    /* Logging first: it keeps the Vulkan driver loaded for LeakSanitizer (test_utils.c). */
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
