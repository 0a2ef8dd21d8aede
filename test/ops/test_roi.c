/*
 * DML_OPERATOR_ROI_POOLING, ROI_ALIGN and ROI_ALIGN1 through the public API against a C
 * reference of README's "ROI pooling and ROI align" rules: FLOAT32 and FLOAT16, every reduction
 * x interpolation, ROI_ALIGN1's pixel offsets and AlignRegionsToCorners, adaptive and fixed
 * sample counts, regions inside, partly and wholly outside the image, inverted and empty ones,
 * UINT32 and UINT64 batch indices (out of range ones between guard regions), strided and
 * broadcast (0-stride) inputs, strided outputs, NaN and infinities, rows over several
 * workgroups, OWNED_BY_DML inputs; then the desc rules with their error code and log line.
 */
#include <inttypes.h>
#include <math.h>

#include "dml_test_utils.h"
#include "reference/roi.h"

#define F32 DML_TENSOR_DATA_TYPE_FLOAT32
#define F16 DML_TENSOR_DATA_TYPE_FLOAT16
#define U32 DML_TENSOR_DATA_TYPE_UINT32
#define U64 DML_TENSOR_DATA_TYPE_UINT64
#define AVERAGE DML_REDUCE_FUNCTION_AVERAGE
#define MAX DML_REDUCE_FUNCTION_MAX
#define NEAREST DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR
#define LINEAR DML_INTERPOLATION_MODE_LINEAR
#define SENTINEL 0x5a

struct roi_case
{
    DML_OPERATOR_TYPE op;
    DML_TENSOR_DATA_TYPE type, batch_type;
    UINT in_sizes[4], in_strides[4];
    bool in_strided;
    UINT out_h, out_w, out_strides[4];
    bool out_strided;
    UINT roi_rank, batch_rank;          /* ALIGN: ROITensor 2 to 4, BatchIndicesTensor 1 to 4 */
    UINT roi_count;
    const float *rois;                  /* roi_count x 4 (ALIGN), x 5 (POOLING) */
    const uint64_t *batches;            /* ALIGN */
    DML_REDUCE_FUNCTION reduction;
    DML_INTERPOLATION_MODE interpolation;
    float scale_x, scale_y, input_offset, output_offset, out_of_bounds;
    UINT min_samples, max_samples;
    BOOL corners;
    bool specials;                      /* NaN and infinities among the input values */
    bool owned;                         /* InputTensor and ROITensor are OWNED_BY_DML */
};

/* The reference's input: channel `channel` of the input through its strides. */
struct roi_input
{
    const struct dml_test_tensor *in;
    const float *values;                /* by element offset, as stored */
    UINT channel;
};

static float input_at(const void *context, uint32_t batch, uint32_t y, uint32_t x)
{
    const struct roi_input *input = context;
    const struct dml_test_tensor *in = input->in;
    UINT s[4];

    if (in->buffer.Strides)
        memcpy(s, in->strides, sizeof(s));
    else
        s[3] = 1, s[2] = in->sizes[3], s[1] = s[2] * in->sizes[2], s[0] = s[1] * in->sizes[1];
    return input->values[batch * s[0] + input->channel * s[1] + y * s[2] + x * s[3]];
}

static void reference_params(const struct roi_case *c, struct ref_roi_params *p)
{
    p->pooling = c->op == DML_OPERATOR_ROI_POOLING;
    p->batches = c->in_sizes[0], p->height = c->in_sizes[2], p->width = c->in_sizes[3];
    p->out_h = c->out_h, p->out_w = c->out_w;
    p->reduce_max = c->reduction == MAX;
    p->nearest = c->interpolation == NEAREST;
    p->corners = c->corners;
    p->scale_x = c->scale_x, p->scale_y = c->scale_y;
    p->input_offset = c->input_offset, p->output_offset = c->output_offset;
    p->out_of_bounds = c->out_of_bounds;
    p->min_samples = c->min_samples, p->max_samples = c->max_samples;
}

/* ---- Running a case ---- */

static void store_float(void *bytes, DML_TENSOR_DATA_TYPE type, UINT64 index, float value)
{
    if (type == F16)
        ((uint16_t *)bytes)[index] = ref_float_to_half(value);
    else
        ((float *)bytes)[index] = value;
}

static float stored(DML_TENSOR_DATA_TYPE type, float value)
{
    return type == F16 ? ref_round_to_half(value) : value;
}

static const char *op_name(DML_OPERATOR_TYPE op)
{
    return op == DML_OPERATOR_ROI_POOLING ? "ROI_POOLING" : op == DML_OPERATOR_ROI_ALIGN ? "ROI_ALIGN" : "ROI_ALIGN1";
}

static void fill_desc(const struct roi_case *c, struct dml_test_tensor *in, struct dml_test_tensor *rois,
        struct dml_test_tensor *batches, struct dml_test_tensor *out, void *desc)
{
    DML_ROI_ALIGN1_OPERATOR_DESC *align1 = desc;
    DML_ROI_ALIGN_OPERATOR_DESC *align = desc;
    DML_ROI_POOLING_OPERATOR_DESC *pooling = desc;

    if (c->op == DML_OPERATOR_ROI_POOLING)
    {
        memset(pooling, 0, sizeof(*pooling));
        pooling->InputTensor = &in->desc;
        pooling->ROITensor = &rois->desc;
        pooling->OutputTensor = &out->desc;
        pooling->SpatialScale = c->scale_x;
        pooling->PooledSize.Height = c->out_h;
        pooling->PooledSize.Width = c->out_w;
        return;
    }
    if (c->op == DML_OPERATOR_ROI_ALIGN)
    {
        memset(align, 0, sizeof(*align));
        align->InputTensor = &in->desc;
        align->ROITensor = &rois->desc;
        align->BatchIndicesTensor = &batches->desc;
        align->OutputTensor = &out->desc;
        align->ReductionFunction = c->reduction;
        align->InterpolationMode = c->interpolation;
        align->SpatialScaleX = c->scale_x;
        align->SpatialScaleY = c->scale_y;
        align->OutOfBoundsInputValue = c->out_of_bounds;
        align->MinimumSamplesPerOutput = c->min_samples;
        align->MaximumSamplesPerOutput = c->max_samples;
        return;
    }
    memset(align1, 0, sizeof(*align1));
    align1->InputTensor = &in->desc;
    align1->ROITensor = &rois->desc;
    align1->BatchIndicesTensor = &batches->desc;
    align1->OutputTensor = &out->desc;
    align1->ReductionFunction = c->reduction;
    align1->InterpolationMode = c->interpolation;
    align1->SpatialScaleX = c->scale_x;
    align1->SpatialScaleY = c->scale_y;
    align1->InputPixelOffset = c->input_offset;
    align1->OutputPixelOffset = c->output_offset;
    align1->OutOfBoundsInputValue = c->out_of_bounds;
    align1->MinimumSamplesPerOutput = c->min_samples;
    align1->MaximumSamplesPerOutput = c->max_samples;
    align1->AlignRegionsToCorners = c->corners;
}

/* The tensors of a case: ROITensor {.., NumROIs, 4 or 5}, BatchIndicesTensor {.., NumROIs}. */
static void init_tensors(const struct roi_case *c, struct dml_test_tensor *in, struct dml_test_tensor *rois,
        struct dml_test_tensor *batches, struct dml_test_tensor *out)
{
    bool pooling = c->op == DML_OPERATOR_ROI_POOLING;
    UINT roi_sizes[4] = {1, 1, 1, 1}, batch_sizes[4] = {1, 1, 1, 1}, out_sizes[4];
    UINT roi_rank = pooling ? 4 : c->roi_rank, batch_rank = c->batch_rank;

    dml_test_tensor_init(in, c->type, 4, c->in_sizes, c->in_strided ? c->in_strides : NULL);
    roi_sizes[roi_rank - 2] = c->roi_count;
    roi_sizes[roi_rank - 1] = pooling ? 5 : 4;
    dml_test_tensor_init(rois, c->type, roi_rank, roi_sizes, NULL);
    batch_sizes[batch_rank ? batch_rank - 1 : 0] = c->roi_count;
    dml_test_tensor_init(batches, c->batch_type ? c->batch_type : U32, batch_rank ? batch_rank : 1, batch_sizes,
            NULL);
    out_sizes[0] = c->roi_count;
    out_sizes[1] = c->in_sizes[1];
    out_sizes[2] = c->out_h;
    out_sizes[3] = c->out_w;
    dml_test_tensor_init(out, c->type, 4, out_sizes, c->out_strided ? c->out_strides : NULL);
}

static void run_case(struct dml_test_context *context, const struct roi_case *c)
{
    static const float specials[] = {NAN, INFINITY, -INFINITY, 3.0f};
    bool pooling = c->op == DML_OPERATOR_ROI_POOLING;
    UINT k = pooling ? 5 : 4, element = c->type == F16 ? 2 : 4, batch_element;
    struct dml_test_binding bindings[3] = {{NULL}}, owned[3] = {{NULL}}, output = {NULL};
    struct dml_test_tensor in, rois, batches, out;
    DML_ROI_ALIGN1_OPERATOR_DESC desc;
    struct ref_roi_params params;
    struct roi_input input;
    uint8_t *in_bytes, *roi_bytes, *batch_bytes, *out_bytes, *expected, *is_element;
    float *in_values, *roi_values, want, got, tolerance;
    ID3D12Resource *persistent;
    IDMLCompiledOperator *compiled;
    UINT64 in_span, total, i, offset, index;
    uint32_t seed = 7;
    UINT n, ch, y, x;

    if (dml_test_skip_float16(context, c->type, op_name(c->op)))
        return;
    init_tensors(c, &in, &rois, &batches, &out);
    if (c->owned)
        in.buffer.Flags = rois.buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    fill_desc(c, &in, &rois, &batches, &out, &desc);
    compiled = dml_test_compile(context, c->op, &desc, DML_EXECUTION_FLAG_NONE);

    in_span = in.buffer.TotalTensorSizeInBytes / element;
    in_bytes = calloc(in_span + 1, element);
    in_values = calloc(in_span + 1, sizeof(*in_values));
    roi_bytes = calloc(rois.buffer.TotalTensorSizeInBytes, 1); /* whole words: an fp16 {1, 5} takes 12 bytes */
    roi_values = calloc(c->roi_count * k, sizeof(*roi_values));
    batch_element = batches.buffer.DataType == U64 ? 8 : 4;
    batch_bytes = calloc(c->roi_count, batch_element);
    total = out.buffer.TotalTensorSizeInBytes;
    out_bytes = malloc(total);
    expected = malloc(total);
    is_element = calloc(total, 1);
    assert_true(in_bytes && in_values && roi_bytes && roi_values && batch_bytes && out_bytes && expected && is_element);
    for (i = 0; i < in_span; ++i)
    {
        in_values[i] = stored(c->type, ref_random_float(&seed, -1.0f, 1.0f));
        if (c->specials && i % 5 == 3)
            in_values[i] = specials[i / 5 % ARRAY_SIZE(specials)];
        store_float(in_bytes, c->type, i, in_values[i]);
    }
    for (i = 0; i < c->roi_count * k; ++i)
    {
        roi_values[i] = stored(c->type, c->rois[i]);
        store_float(roi_bytes, c->type, i, roi_values[i]);
    }
    for (i = 0; !pooling && i < c->roi_count; ++i)
        memcpy(batch_bytes + i * batch_element, &c->batches[i], batch_element);

    (c->owned ? owned : bindings)[0].buffer = dml_test_create_buffer(context, in.buffer.TotalTensorSizeInBytes,
            in_bytes);
    (c->owned ? owned : bindings)[1].buffer = dml_test_create_buffer(context, rois.buffer.TotalTensorSizeInBytes,
            roi_bytes);
    if (!pooling)
        dml_test_create_guarded(context, batches.buffer.TotalTensorSizeInBytes, batch_bytes, &bindings[2]);
    memset(expected, SENTINEL, total);
    dml_test_create_guarded(context, total, expected, &output);
    persistent = dml_test_initialize(context, compiled, c->owned ? owned : NULL, c->owned ? (pooling ? 2 : 3) : 0);
    if (c->owned)   /* the inputs now live in the persistent resource: their sources may change */
    {
        memset(in_bytes, 0x77, in.buffer.TotalTensorSizeInBytes);
        dml_test_write_buffer(context, owned[0].buffer, 0, in_bytes, in.buffer.TotalTensorSizeInBytes);
        memset(roi_bytes, 0x77, rois.buffer.TotalTensorSizeInBytes);
        dml_test_write_buffer(context, owned[1].buffer, 0, roi_bytes, rois.buffer.TotalTensorSizeInBytes);
    }
    dml_test_execute(context, compiled, persistent, bindings, pooling ? 2 : 3, &output, 1);
    dml_test_read_buffer(context, output.buffer, output.offset, out_bytes, total);
    dml_test_check_guards(context, &output);

    reference_params(c, &params);
    input.in = &in;
    input.values = in_values;
    for (index = 0; index < dml_test_element_count(&out); ++index)
    {
        x = index % c->out_w;
        y = index / c->out_w % c->out_h;
        ch = index / ((UINT64)c->out_w * c->out_h) % c->in_sizes[1];
        n = index / ((UINT64)c->out_w * c->out_h * c->in_sizes[1]);
        input.channel = ch;
        want = ref_roi_value(&params, &roi_values[n * k], pooling ? 0 : c->batches[n], y, x, input_at, &input);
        want = stored(c->type, want);
        offset = dml_test_element_offset(&out, index);
        memset(is_element + offset * element, 1, element);
        got = dml_test_read_float(out_bytes, c->type, offset);
        /* The output's rounding, and sample positions off by an ulp of the largest coordinate
         * (inputs in [-1, 1]: a slope of at most 2 per pixel). */
        tolerance = (c->type == F16 ? 2e-3f : 2e-6f) * fmaxf(1.0f, fabsf(want))
                + 4e-7f * (float)(c->in_sizes[2] + c->in_sizes[3]);
        if (isnan(want) ? !isnan(got) : isinf(want) ? got != want : !(fabsf(got - want) <= tolerance))
            fail_msg("%s %s roi %u channel %u (%u, %u): %.9g, expected %.9g", op_name(c->op),
                    dml_test_type_name(c->type), n, ch, y, x, got, want);
    }
    for (i = 0; i < total; ++i)
    {
        if (!is_element[i] && out_bytes[i] != SENTINEL)
            fail_msg("%s: padding byte %" PRIu64 " was written (%#x).", op_name(c->op), i, out_bytes[i]);
    }

    free(in_bytes);
    free(in_values);
    free(roi_bytes);
    free(roi_values);
    free(batch_bytes);
    free(out_bytes);
    free(expected);
    free(is_element);
    if (persistent)
        release_last(persistent);
    dml_test_release_bindings(bindings, pooling ? 2 : 3);
    dml_test_release_bindings(owned, 2);
    dml_test_release_bindings(&output, 1);
    release_last(compiled);
    assert_no_log_errors();
}

/* ---- Cases ---- */

/* Regions of a 2 x 3 x 9 x 11 input: inside, partly outside on each side, wholly outside,
 * inverted, empty, sub-pixel, the whole image. */
static const float align_rois[] =
{
    1.0f, 2.0f, 7.5f, 6.25f,
    -3.0f, -2.5f, 4.0f, 3.0f,
    8.0f, 5.0f, 14.0f, 12.0f,
    20.0f, 15.0f, 30.0f, 25.0f,
    7.0f, 6.0f, 2.0f, 1.5f,
    4.25f, 3.5f, 4.25f, 3.5f,
    2.3f, 4.1f, 2.9f, 4.6f,
    0.0f, 0.0f, 11.0f, 9.0f,
};
static const uint64_t align_batches[] = {0, 1, 1, 0, 1, 0, 1, 1};

static void align_case(struct roi_case *c, DML_OPERATOR_TYPE op, DML_TENSOR_DATA_TYPE type)
{
    memset(c, 0, sizeof(*c));
    c->op = op;
    c->type = type;
    c->batch_type = U32;
    c->in_sizes[0] = 2, c->in_sizes[1] = 3, c->in_sizes[2] = 9, c->in_sizes[3] = 11;
    c->out_h = 3, c->out_w = 4;
    c->roi_rank = 2, c->batch_rank = 1;
    c->roi_count = ARRAY_SIZE(align_batches);
    c->rois = align_rois;
    c->batches = align_batches;
    c->scale_x = c->scale_y = 1.0f;
    c->input_offset = 0.5f, c->output_offset = -0.5f;
    c->out_of_bounds = -7.0f;
    c->min_samples = 1, c->max_samples = UINT32_MAX;
    c->reduction = AVERAGE, c->interpolation = LINEAR;
}

static void test_align(void **state)
{
    static const DML_TENSOR_DATA_TYPE types[] = {F32, F16};
    static const DML_REDUCE_FUNCTION reductions[] = {AVERAGE, MAX};
    static const DML_INTERPOLATION_MODE modes[] = {LINEAR, NEAREST};
    struct roi_case c;
    size_t t, r, m;

    for (t = 0; t < ARRAY_SIZE(types); ++t)
    {
        for (r = 0; r < ARRAY_SIZE(reductions); ++r)
        {
            for (m = 0; m < ARRAY_SIZE(modes); ++m)
            {
                align_case(&c, DML_OPERATOR_ROI_ALIGN, types[t]);
                c.reduction = reductions[r];
                c.interpolation = modes[m];
                run_case(*state, &c);
                /* ONNX's fixed sampling_ratio 2, scales below 1 and unequal. */
                c.min_samples = c.max_samples = 2;
                c.scale_x = 0.5f, c.scale_y = 0.75f;
                run_case(*state, &c);
            }
        }
    }
}

static void test_align1(void **state)
{
    /* InputPixelOffset, OutputPixelOffset, AlignRegionsToCorners. */
    static const float modes[][3] = {{0.5f, -0.5f, 0}, {0.0f, -0.5f, 0}, {0.0f, 0.0f, 0}, {0.0f, 0.0f, 1},
            {0.5f, -0.5f, 1}, {0.25f, 0.25f, 0}};
    static const DML_TENSOR_DATA_TYPE types[] = {F32, F16};
    struct roi_case c;
    size_t t, m;

    for (t = 0; t < ARRAY_SIZE(types); ++t)
    {
        for (m = 0; m < ARRAY_SIZE(modes); ++m)
        {
            align_case(&c, DML_OPERATOR_ROI_ALIGN1, types[t]);
            c.input_offset = modes[m][0];
            c.output_offset = modes[m][1];
            c.corners = modes[m][2] != 0.0f;
            c.reduction = m % 2 ? MAX : AVERAGE;
            c.interpolation = m % 3 ? LINEAR : NEAREST;
            run_case(*state, &c);
        }
        /* TensorFlow's crop_and_resize: normalized boxes, corners aligned, one sample; 1 x 1 outputs. */
        align_case(&c, DML_OPERATOR_ROI_ALIGN1, types[t]);
        c.input_offset = c.output_offset = 0.0f;
        c.corners = TRUE;
        c.scale_x = 1.0f / 11.0f, c.scale_y = 1.0f / 9.0f;
        c.min_samples = c.max_samples = 1;
        c.reduction = AVERAGE, c.interpolation = LINEAR;
        run_case(*state, &c);
        c.out_h = c.out_w = 1;
        run_case(*state, &c);
        /* MaximumSamplesPerOutput 0 (one sample), and a minimum above the adaptive count. */
        align_case(&c, DML_OPERATOR_ROI_ALIGN1, types[t]);
        c.min_samples = c.max_samples = 0;
        run_case(*state, &c);
        c.min_samples = 3, c.max_samples = 5;
        c.reduction = MAX;
        run_case(*state, &c);
    }
}

/* Batch indices out of range: their regions read OutOfBoundsInputValue everywhere; nothing is
 * written outside the output (guards). UINT64 ones whose low word alone would be in range too. */
static void test_align_batch_out_of_range(void **state)
{
    static const uint64_t batches32[] = {0, 2, 1, 0xffffffffu, 1, 7, 0, 1};
    static const uint64_t batches64[] = {0, (uint64_t)1 << 32, 1, ((uint64_t)1 << 32) | 1, 1, ~(uint64_t)0, 0, 1};
    struct roi_case c;

    align_case(&c, DML_OPERATOR_ROI_ALIGN, F32);
    c.reduction = MAX;
    c.batches = batches32;
    run_case(*state, &c);
    c.batch_type = U64;
    c.batches = batches64;
    c.reduction = AVERAGE;
    run_case(*state, &c);
    /* UINT64 in range, ROITensor {1, 1, NumROIs, 4}, BatchIndicesTensor {1, 1, 1, NumROIs}. */
    c.batches = align_batches;
    c.roi_rank = 4, c.batch_rank = 4;
    c.op = DML_OPERATOR_ROI_ALIGN1;
    run_case(*state, &c);
}

/* Strided and broadcast inputs, strided outputs, NaN and infinities, rows over workgroups. */
static void test_align_layouts(void **state)
{
    static const DML_TENSOR_DATA_TYPE types[] = {F32, F16};
    static const float wide_rois[] = {0.0f, 0.0f, 1000.0f, 2.0f, 10.5f, 0.5f, 900.0f, 1.5f};
    static const uint64_t wide_batches[] = {0, 0};
    struct roi_case c;
    size_t t;

    for (t = 0; t < ARRAY_SIZE(types); ++t)
    {
        /* Padded rows and planes; the channel broadcast (stride 0); a padded, reordered output. */
        align_case(&c, DML_OPERATOR_ROI_ALIGN, types[t]);
        c.in_strided = true;
        c.in_strides[0] = 400, c.in_strides[1] = 0, c.in_strides[2] = 13, c.in_strides[3] = 1;
        c.out_strided = true;
        c.out_strides[0] = 3 * 4 * 3 + 5, c.out_strides[1] = 1, c.out_strides[2] = 12, c.out_strides[3] = 3;
        c.reduction = AVERAGE, c.interpolation = LINEAR;
        c.roi_rank = 3, c.batch_rank = 2;
        run_case(*state, &c);
        /* NaN and infinities: MAX propagates NaN, AVERAGE too. */
        align_case(&c, DML_OPERATOR_ROI_ALIGN1, types[t]);
        c.specials = true;
        c.reduction = MAX, c.interpolation = NEAREST;
        run_case(*state, &c);
        c.reduction = AVERAGE, c.interpolation = LINEAR;
        run_case(*state, &c);
        /* OWNED_BY_DML input and regions. */
        align_case(&c, DML_OPERATOR_ROI_ALIGN1, types[t]);
        c.owned = true;
        c.reduction = MAX;
        run_case(*state, &c);
        /* Output rows of 1000 (several workgroups), a one-row image. */
        align_case(&c, DML_OPERATOR_ROI_ALIGN, types[t]);
        c.in_sizes[0] = 1, c.in_sizes[1] = 2, c.in_sizes[2] = 3, c.in_sizes[3] = 1000;
        c.out_h = 1, c.out_w = 1000;
        c.roi_count = 2;
        c.rois = wide_rois;
        c.batches = wide_batches;
        c.reduction = AVERAGE, c.interpolation = LINEAR;
        run_case(*state, &c);
    }
}

/* The statements of ROI_ALIGN's and ROI_ALIGN1's pages checked with literal values, not the
 * shared reference: on a 4 x 4 image whose value is linear in the position (4y + x + 1), an
 * average of bilinear samples is the value at the samples' centre, so the page's formula gives
 * each output exactly; an inverted region is the mirror of the upright one ("the output receives a
 * mirrored/flipped version of the input"); an empty region reads its single point everywhere. */
static void test_align_page_statements(void **state)
{
    static const float rois[] =
    {
        0.5f, 0.25f, 3.5f, 3.75f,       /* upright */
        3.5f, 0.25f, 0.5f, 3.75f,       /* x2 < x1 */
        3.5f, 3.75f, 0.5f, 0.25f,       /* x2 < x1, y2 < y1 */
        1.5f, 2.25f, 1.5f, 2.25f,       /* empty: the point (x 1.0, y 1.75) after the pixel offset */
    };
    static const uint64_t batches[] = {0, 0, 0, 0};
    struct dml_test_context *context = *state;
    struct dml_test_binding inputs[3] = {{NULL}}, output = {NULL};
    struct dml_test_tensor in, roi_tensor, batch_tensor, out;
    float image[16], results[4 * 9], yc, xc, want;
    DML_ROI_ALIGN1_OPERATOR_DESC desc;
    IDMLCompiledOperator *compiled;
    uint32_t batch_words[4] = {0};
    struct roi_case c;
    UINT y, x;

    align_case(&c, DML_OPERATOR_ROI_ALIGN, F32);
    c.in_sizes[0] = 1, c.in_sizes[1] = 1, c.in_sizes[2] = 4, c.in_sizes[3] = 4;
    c.out_h = c.out_w = 3;
    c.roi_count = 4;
    c.rois = rois;
    c.batches = batches;
    for (y = 0; y < 16; ++y)
        image[y] = (float)(4 * (y / 4) + y % 4 + 1);
    init_tensors(&c, &in, &roi_tensor, &batch_tensor, &out);
    fill_desc(&c, &in, &roi_tensor, &batch_tensor, &out, &desc);
    compiled = dml_test_compile(context, c.op, &desc, DML_EXECUTION_FLAG_NONE);
    inputs[0].buffer = dml_test_create_buffer(context, in.buffer.TotalTensorSizeInBytes, image);
    inputs[1].buffer = dml_test_create_buffer(context, roi_tensor.buffer.TotalTensorSizeInBytes, rois);
    inputs[2].buffer = dml_test_create_buffer(context, batch_tensor.buffer.TotalTensorSizeInBytes, batch_words);
    dml_test_create_guarded(context, out.buffer.TotalTensorSizeInBytes, NULL, &output);
    dml_test_run(context, compiled, inputs, 3, &output, 1);
    dml_test_read_buffer(context, output.buffer, output.offset, results, sizeof(results));
    dml_test_check_guards(context, &output);

    for (y = 0; y < 3; ++y)
    {
        for (x = 0; x < 3; ++x)
        {
            /* Bin centres: x1 + (x + 0.5) * width / 3 - InputPixelOffset, all inside the image. */
            xc = 0.5f + (x + 0.5f) * 3.0f / 3.0f - 0.5f;
            yc = 0.25f + (y + 0.5f) * 3.5f / 3.0f - 0.5f;
            want = 4.0f * yc + xc + 1.0f;
            if (!(fabsf(results[y * 3 + x] - want) <= 1e-5f))
                fail_msg("upright (%u, %u): %.9g, expected %.9g", y, x, results[y * 3 + x], want);
            if (!(fabsf(results[9 + y * 3 + x] - results[y * 3 + 2 - x]) <= 1e-5f))
                fail_msg("x-inverted (%u, %u): %.9g, not the mirror %.9g", y, x, results[9 + y * 3 + x],
                        results[y * 3 + 2 - x]);
            if (!(fabsf(results[18 + y * 3 + x] - results[(2 - y) * 3 + 2 - x]) <= 1e-5f))
                fail_msg("inverted (%u, %u): %.9g, not the mirror %.9g", y, x, results[18 + y * 3 + x],
                        results[(2 - y) * 3 + 2 - x]);
            if (results[27 + y * 3 + x] != 4.0f * 1.75f + 1.0f + 1.0f)
                fail_msg("empty (%u, %u): %.9g, expected 9", y, x, results[27 + y * 3 + x]);
        }
    }
    dml_test_release_bindings(inputs, 3);
    dml_test_release_bindings(&output, 1);
    release_last(compiled);
    assert_no_log_errors();
}

/* [batch, x1, y1, x2, y2] over a 2 x 3 x 9 x 11 input (SpatialScale 1 or 0.5). */
static const float pool_rois[] =
{
    0.0f, 1.0f, 2.0f, 7.0f, 6.0f,
    1.0f, -3.0f, -2.0f, 4.0f, 3.0f,
    1.0f, 8.0f, 5.0f, 14.0f, 12.0f,
    0.0f, 20.0f, 15.0f, 30.0f, 25.0f,
    1.0f, 7.0f, 6.0f, 2.0f, 1.0f,
    0.0f, 4.4f, 3.5f, 4.6f, 3.5f,
    1.9f, 0.0f, 0.0f, 10.0f, 8.0f,
    2.0f, 0.0f, 0.0f, 10.0f, 8.0f,
    -1.0f, 0.0f, 0.0f, 10.0f, 8.0f,
    1.0f, 2.5f, -2.5f, 5.5f, 1.5f,
};

static void test_pooling(void **state)
{
    static const DML_TENSOR_DATA_TYPE types[] = {F32, F16};
    static const float nan_roi[] = {0.0f, NAN, 0.0f, 3.0f, 3.0f};
    struct roi_case c;
    size_t t;

    for (t = 0; t < ARRAY_SIZE(types); ++t)
    {
        memset(&c, 0, sizeof(c));
        c.op = DML_OPERATOR_ROI_POOLING;
        c.type = types[t];
        c.in_sizes[0] = 2, c.in_sizes[1] = 3, c.in_sizes[2] = 9, c.in_sizes[3] = 11;
        c.out_h = 3, c.out_w = 4;
        c.roi_count = ARRAY_SIZE(pool_rois) / 5;
        c.rois = pool_rois;
        c.scale_x = 1.0f;
        run_case(*state, &c);
        /* Bins smaller than a pixel (repeated pixels), SpatialScale 0.5, NaN and infinities. */
        c.out_h = 7, c.out_w = 6;
        c.scale_x = 0.5f;
        c.specials = true;
        run_case(*state, &c);
        /* Strided and broadcast input, strided output, a NaN corner. */
        c.specials = false;
        c.in_strided = true;
        c.in_strides[0] = 0, c.in_strides[1] = 120, c.in_strides[2] = 12, c.in_strides[3] = 1;
        c.out_strided = true;
        c.out_strides[0] = 130, c.out_strides[1] = 1, c.out_strides[2] = 3 * 6, c.out_strides[3] = 3;
        run_case(*state, &c);
        c.owned = true;
        run_case(*state, &c);
        c.owned = false;
        c.roi_count = 1;
        c.rois = nan_roi;
        run_case(*state, &c);
    }
}

/* ---- Bad descs ---- */

static void test_invalid(void **state)
{
    static const UINT in_sizes[4] = {2, 3, 5, 6}, roi_sizes[2] = {4, 4}, batch_sizes[1] = {4};
    static const UINT out_sizes[4] = {4, 3, 2, 2}, pool_roi_sizes[4] = {1, 1, 4, 5};
    struct dml_test_context *context = *state;
    struct dml_test_tensor in, rois, batches, out;
    struct dml_test_tensor *tensors[] = {&in, &rois, &batches, &out};
    struct dml_test_tensor *pool_tensors[] = {&in, &rois, &out};
    DML_ROI_ALIGN1_OPERATOR_DESC desc;
    DML_ROI_POOLING_OPERATOR_DESC pool;

    dml_test_tensor_init(&in, F32, 4, in_sizes, NULL);
    dml_test_tensor_init(&rois, F32, 2, roi_sizes, NULL);
    dml_test_tensor_init(&batches, U32, 1, batch_sizes, NULL);
    dml_test_tensor_init(&out, F32, 4, out_sizes, NULL);
    memset(&desc, 0, sizeof(desc));
    desc.InputTensor = &in.desc;
    desc.ROITensor = &rois.desc;
    desc.BatchIndicesTensor = &batches.desc;
    desc.OutputTensor = &out.desc;
    desc.ReductionFunction = AVERAGE;
    desc.InterpolationMode = LINEAR;
    desc.SpatialScaleX = desc.SpatialScaleY = 1.0f;
    desc.MinimumSamplesPerOutput = 1;
    desc.MaximumSamplesPerOutput = 4;
    check_hr(dml_test_try_create(context, DML_OPERATOR_ROI_ALIGN1, &desc, tensors, 4), S_OK);
    check_hr(dml_test_try_create(context, DML_OPERATOR_ROI_ALIGN, &desc, tensors, 4), S_OK);
    assert_no_log_errors();

    desc.MinimumSamplesPerOutput = 5;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_ROI_ALIGN1, &desc, tensors, 4),
            "MinimumSamplesPerOutput=5 must be at most MaximumSamplesPerOutput=4");
    desc.MinimumSamplesPerOutput = 1;
    desc.ReductionFunction = DML_REDUCE_FUNCTION_SUM;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_ROI_ALIGN, &desc, tensors, 4),
            "ReductionFunction");
    desc.ReductionFunction = MAX;
    rois.sizes[1] = 5;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_ROI_ALIGN1, &desc, tensors, 4),
            "ROITensor.Sizes[1]=5 must be 4");
    rois.sizes[1] = 4;
    batches.sizes[0] = 3;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_ROI_ALIGN1, &desc, tensors, 4),
            "BatchIndicesTensor.Sizes[0]=3 must be 4");
    batches.sizes[0] = 4;
    out.sizes[1] = 2;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_ROI_ALIGN1, &desc, tensors, 4),
            "OutputTensor.Sizes[1]=2 must be 3");
    out.sizes[1] = 3;
    out.sizes[0] = 5;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_ROI_ALIGN1, &desc, tensors, 4),
            "OutputTensor.Sizes[0]=5 must be 4");
    out.sizes[0] = 4;
    /* A leading dimension other than 1 (ROITensor {2, 4, 4}). */
    dml_test_tensor_init(&rois, F32, 3, (const UINT[]){2, 4, 4}, NULL);
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_ROI_ALIGN1, &desc, tensors, 4),
            "ROITensor.Sizes[0]=2 must be 1");
    dml_test_tensor_init(&rois, F32, 2, roi_sizes, NULL);
    /* Types: the schema's (INT32 batch indices; ROIs of another type than the input). */
    batches.buffer.DataType = DML_TENSOR_DATA_TYPE_INT32;
    check_hr(dml_test_try_create(context, DML_OPERATOR_ROI_ALIGN1, &desc, tensors, 4), E_INVALIDARG);
    vkdml_test_log_reset();
    batches.buffer.DataType = U32;
    rois.buffer.DataType = F16;
    check_hr(dml_test_try_create(context, DML_OPERATOR_ROI_ALIGN1, &desc, tensors, 4), E_INVALIDARG);
    vkdml_test_log_reset();
    rois.buffer.DataType = F32;

    dml_test_tensor_init(&rois, F32, 4, pool_roi_sizes, NULL);
    memset(&pool, 0, sizeof(pool));
    pool.InputTensor = &in.desc;
    pool.ROITensor = &rois.desc;
    pool.OutputTensor = &out.desc;
    pool.SpatialScale = 1.0f;
    pool.PooledSize.Height = 2, pool.PooledSize.Width = 2;
    check_hr(dml_test_try_create(context, DML_OPERATOR_ROI_POOLING, &pool, pool_tensors, 3), S_OK);
    assert_no_log_errors();
    pool.PooledSize.Width = 3;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_ROI_POOLING, &pool, pool_tensors, 3),
            "OutputTensor.Sizes[3]=2 must be 3");
    pool.PooledSize.Width = 2;
    rois.sizes[3] = 4;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_ROI_POOLING, &pool, pool_tensors, 3),
            "ROITensor.Sizes[3]=4 must be 5");
    rois.sizes[3] = 5;
    rois.sizes[1] = 4, rois.sizes[2] = 1;
    dml_test_check_bad(dml_test_try_create(context, DML_OPERATOR_ROI_POOLING, &pool, pool_tensors, 3),
            "ROITensor.Sizes[1]=4 must be 1");
    vkdml_test_log_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] =
    {
        cmocka_unit_test_setup_teardown(test_align, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_align1, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_align_batch_out_of_range, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_align_layouts, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_align_page_statements, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_pooling, dml_test_setup, dml_test_teardown),
        cmocka_unit_test_setup_teardown(test_invalid, dml_test_setup, dml_test_teardown),
    };

    /* Logging first: it keeps the Vulkan driver loaded for LeakSanitizer (test_utils.c). */
    vkdml_test_init_logging();
    vkdml_test_require_device();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
