/*
 * The resampling family: DML_OPERATOR_UPSAMPLE_2D (FL 1_0), RESAMPLE (FL 2_0), RESAMPLE1 (FL 2_1),
 * RESAMPLE2 (FL 5_1) and RESAMPLE3 (FL 6_4), one dispatch of kernels_glsl/resample.comp
 * (resample_interface.h).
 *
 * DirectML's rule (DML_RESAMPLE1_OPERATOR_DESC and later): OutputX = (InputX + InputPixelOffset) *
 * Scale + OutputPixelOffset, so output coordinate x reads input coordinate
 * c = (x - OutputPixelOffset) / Scale - InputPixelOffset. RESAMPLE is RESAMPLE1 with the offsets
 * 0.5 and -0.5 (pixel centres); UPSAMPLE_2D is RESAMPLE with Scales {1, .., 1, Height, Width}
 * (README "Resampling"). Nearest takes floor(c + 0.5) in RESAMPLE, RESAMPLE1 and UPSAMPLE_2D
 * (halves round up), floor(c) (RoundingDirection DECREASING) or ceil(c) (INCREASING) in RESAMPLE2
 * and RESAMPLE3. Linear weighs the two inputs around c; indices are clamped to the input (the
 * output edges repeat the input's), so any output size is valid: scales need not be
 * OutputSize / InputSize. RESAMPLE3's Antialiased widens the linear filter by 1 / Scale on the
 * dimensions whose 1 / Scale > 2 (the page's condition) into a triangle filter whose weights are
 * normalized, the edges clamped (ONNX Resize antialias=1).
 */

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "ops_private.h"
#include "resample_interface.h"

/* The antialiasing filter's taps per dimension: 2 / Scale of them (E_NOTIMPL beyond). */
#define RESAMPLE_MAX_FILTER_TAPS 1024

/* One operator's resampling rule, whatever its desc: per dimension of the tensors. */
struct resample_rule
{
    DML_INTERPOLATION_MODE mode;
    bool round_up;                      /* nearest: ceil(c) instead of floor(c) */
    bool round_half_up;                 /* nearest: floor(c + 0.5) */
    bool antialiased;
    uint32_t rank;
    float scales[RESAMPLE_MAX_RANK];
    float input_offsets[RESAMPLE_MAX_RANK], output_offsets[RESAMPLE_MAX_RANK];
};

static void rule_init(struct resample_rule *rule, const struct vkdml_operator_view *op)
{
    const DML_RESAMPLE3_OPERATOR_DESC *desc3 = op->desc;
    const DML_RESAMPLE2_OPERATOR_DESC *desc2 = op->desc;
    const DML_RESAMPLE1_OPERATOR_DESC *desc1 = op->desc;
    const DML_RESAMPLE_OPERATOR_DESC *desc0 = op->desc;
    const DML_UPSAMPLE_2D_OPERATOR_DESC *upsample = op->desc;
    const float *scales = NULL, *input_offsets = NULL, *output_offsets = NULL;
    uint32_t i;

    memset(rule, 0, sizeof(*rule));
    rule->rank = op->inputs[0]->DimensionCount;
    rule->round_half_up = true;
    rule->antialiased = op->type == DML_OPERATOR_RESAMPLE3 && desc3->Antialiased;
    switch (op->type)
    {
        case DML_OPERATOR_UPSAMPLE_2D:
            rule->mode = upsample->InterpolationMode;
            break;
        case DML_OPERATOR_RESAMPLE:
            rule->mode = desc0->InterpolationMode;
            scales = desc0->Scales;
            break;
        case DML_OPERATOR_RESAMPLE1:
            rule->mode = desc1->InterpolationMode;
            scales = desc1->Scales;
            input_offsets = desc1->InputPixelOffsets;
            output_offsets = desc1->OutputPixelOffsets;
            break;
        default:                        /* RESAMPLE2, RESAMPLE3: RESAMPLE3's fields begin as RESAMPLE2's */
            rule->mode = desc2->InterpolationMode;
            rule->round_half_up = false;
            rule->round_up = desc2->RoundingDirection == DML_AXIS_DIRECTION_INCREASING;
            scales = desc2->Scales;
            input_offsets = desc2->InputPixelOffsets;
            output_offsets = desc2->OutputPixelOffsets;
            break;
    }
    for (i = 0; i < rule->rank; ++i)
    {
        rule->scales[i] = scales ? scales[i] : 1.0f;
        rule->input_offsets[i] = input_offsets ? input_offsets[i] : 0.5f;
        rule->output_offsets[i] = output_offsets ? output_offsets[i] : -0.5f;
    }
    if (op->type == DML_OPERATOR_UPSAMPLE_2D)
    {
        rule->scales[rule->rank - 2] = upsample->ScaleSize.Height;
        rule->scales[rule->rank - 1] = upsample->ScaleSize.Width;
    }
}

_Static_assert(offsetof(DML_RESAMPLE3_OPERATOR_DESC, OutputPixelOffsets)
        == offsetof(DML_RESAMPLE2_OPERATOR_DESC, OutputPixelOffsets), "RESAMPLE2 and RESAMPLE3 descs");

/* UPSAMPLE_2D: output = input * ScaleSize on the last two dimensions, the input's elsewhere. */
static HRESULT validate_upsample(const struct vkdml_operator_view *op)
{
    const DML_UPSAMPLE_2D_OPERATOR_DESC *desc = op->desc;
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[0], *output = op->outputs[0];
    uint32_t rank = input->DimensionCount, i;
    uint64_t expected;

    if (!desc->ScaleSize.Width || !desc->ScaleSize.Height)
        return vkdml_op_error(op, E_INVALIDARG, "ScaleSize={%u,%u} must be at least 1.", desc->ScaleSize.Width,
                desc->ScaleSize.Height);
    for (i = 0; i < rank; ++i)
    {
        expected = input->Sizes[i];
        if (i == rank - 2)
            expected *= desc->ScaleSize.Height;
        else if (i == rank - 1)
            expected *= desc->ScaleSize.Width;
        if (output->Sizes[i] != expected)
            return vkdml_op_error(op, E_INVALIDARG, "OutputTensor.Sizes[%u]=%u must be %" PRIu64
                    " (InputTensor.Sizes[%u] * ScaleSize).", i, output->Sizes[i], expected, i);
    }
    return S_OK;
}

static HRESULT validate_rule(const struct vkdml_operator_view *op, const struct resample_rule *rule)
{
    const char *count = op->type == DML_OPERATOR_RESAMPLE ? "ScaleCount" : "DimensionCount";
    uint32_t i;

    for (i = 0; i < rule->rank; ++i)
    {
        if (!(rule->scales[i] > 0.0f) || isinf(rule->scales[i]))
            return vkdml_op_error(op, E_INVALIDARG, "Scales[%u]=%g must be positive and finite (%s %u).", i,
                    rule->scales[i], count, rule->rank);
        if (!isfinite(rule->input_offsets[i]) || !isfinite(rule->output_offsets[i]))
            return vkdml_op_error(op, E_INVALIDARG, "InputPixelOffsets[%u]=%g and OutputPixelOffsets[%u]=%g "
                    "must be finite.", i, rule->input_offsets[i], i, rule->output_offsets[i]);
    }
    return S_OK;
}

HRESULT vkdml_resample_validate(struct vkdml_backend_device *device, const struct vkdml_operator_view *op)
{
    struct resample_rule rule;
    HRESULT hr;

    if (op->type == DML_OPERATOR_UPSAMPLE_2D && FAILED(hr = validate_upsample(op)))
        return hr;
    rule_init(&rule, op);
    if (FAILED(hr = validate_rule(op, &rule)))
        return hr;
    if (FAILED(hr = vkdml_check_index_range(op, op->inputs[0], "InputTensor")))
        return hr;
    return vkdml_check_index_range(op, op->outputs[0], "OutputTensor");
}

/* Whether c = x + bias picks input x (Scale 1): exactly for linear; for nearest, a fraction that
 * rounds away (coordinates below 2^22 keep it exact). */
static bool is_identity(const struct resample_rule *rule, float bias)
{
    if (rule->mode == DML_INTERPOLATION_MODE_LINEAR)
        return bias == 0.0f;
    return rule->round_up ? bias <= 0.0f && bias >= -0.5f : bias >= 0.0f && bias <= 0.5f;
}

/* Dimension i's kind and constants (spec values at kernel dimension k). */
static HRESULT set_dimension(const struct vkdml_compile *compile, const struct resample_rule *rule, uint32_t i,
        uint32_t k, uint32_t spec[RESAMPLE_SPEC_COUNT])
{
    const DML_BUFFER_TENSOR_DESC *input = compile->op->inputs[0], *output = compile->op->outputs[0];
    double scale = rule->scales[i], bias = -rule->output_offsets[i] / scale - rule->input_offsets[i];
    bool nearest = rule->mode == DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    float inverse = (float)(1.0 / scale), start;
    uint32_t kind, taps;

    if (nearest && rule->round_half_up)
        bias += 0.5;
    kind = nearest ? RESAMPLE_KIND_NEAREST : RESAMPLE_KIND_LINEAR;
    if (input->Sizes[i] == output->Sizes[i] && inverse == 1.0f && is_identity(rule, (float)bias))
        kind = RESAMPLE_KIND_COPY;
    if (kind == RESAMPLE_KIND_LINEAR && rule->antialiased && 1.0 / scale > 2.0)
    {
        kind = RESAMPLE_KIND_FILTER;
        start = floorf(-1.0f / rule->scales[i]) + 1.0f;
        if (2.0f - 2.0f * start > RESAMPLE_MAX_FILTER_TAPS)
            return vkdml_op_error(compile->op, E_NOTIMPL, "Scales[%u]=%g needs an antialiasing filter of %g taps; "
                    "vkdml has %u at most.", i, rule->scales[i], 2.0f - 2.0f * start, RESAMPLE_MAX_FILTER_TAPS);
        taps = (uint32_t)(2.0f - 2.0f * start);
        spec[RESAMPLE_SPEC_AA_SCALES + k] = vkdml_float_bits(rule->scales[i]);
        spec[RESAMPLE_SPEC_AA_STARTS + k] = (uint32_t)(int32_t)start;
        spec[RESAMPLE_SPEC_AA_TAPS + k] = taps;
    }
    spec[RESAMPLE_SPEC_KINDS + k] = kind;
    spec[RESAMPLE_SPEC_INV_SCALES + k] = vkdml_float_bits(inverse);
    spec[RESAMPLE_SPEC_BIASES + k] = vkdml_float_bits((float)bias);
    spec[RESAMPLE_SPEC_IN_SIZES + k] = input->Sizes[i];
    spec[RESAMPLE_SPEC_OUT_SIZES + k] = output->Sizes[i];
    spec[RESAMPLE_SPEC_IN_STRIDES + k] = vkdml_tensor_stride(input, i);
    spec[RESAMPLE_SPEC_OUT_STRIDES + k] = vkdml_tensor_stride(output, i);
    return S_OK;
}

/* The last dimension's taps repeat every `vector` outputs when its coordinates are exact in fp32:
 * 1 / Scale a power of two with vector / Scale whole, the bias a multiple of 2^-8, the coordinates
 * below 2^20. Then output x0 + k of a group (x0 a multiple of `vector`) reads input
 * x0 / Scale + floor(k / Scale + bias), and an invocation reads a window of
 * inputs once per outer tap (README "Resampling"). Only where that window is short. */
static void set_periodic(const struct resample_rule *rule, uint32_t vector, uint32_t spec[RESAMPLE_SPEC_COUNT])
{
    uint32_t kind = spec[RESAMPLE_SPEC_KINDS + RESAMPLE_MAX_RANK - 1], k;
    float inverse, bias, c, first = 0.0f, last = 0.0f, period, places[16];
    uint64_t packed = 0;
    int exponent;

    memcpy(&inverse, &spec[RESAMPLE_SPEC_INV_SCALES + RESAMPLE_MAX_RANK - 1], sizeof(inverse));
    memcpy(&bias, &spec[RESAMPLE_SPEC_BIASES + RESAMPLE_MAX_RANK - 1], sizeof(bias));
    if (kind != RESAMPLE_KIND_NEAREST && kind != RESAMPLE_KIND_LINEAR)
        return;
    period = vector * inverse;
    if (frexpf(inverse, &exponent) != 0.5f || period != floorf(period) || bias * 256.0f != floorf(bias * 256.0f)
            || fabsf(bias) >= 1024.0f
            || (spec[RESAMPLE_SPEC_OUT_SIZES + RESAMPLE_MAX_RANK - 1] + 1.0f) * inverse >= 1048576.0f)
        return;
    for (k = 0; k < vector; ++k)
    {
        c = (float)k * inverse + bias;
        c = kind == RESAMPLE_KIND_NEAREST && rule->round_up ? ceilf(c) : floorf(c);
        if (!k)
            first = c;
        last = c + (kind == RESAMPLE_KIND_LINEAR);
        places[k] = c - first;
    }
    /* Places of 4 bits. */
    if (last - first + 1.0f > vector + 2.0f || last - first > 15.0f)
        return;
    for (k = 0; k < vector; ++k)
        packed |= (uint64_t)places[k] << (4 * k);
    spec[RESAMPLE_SPEC_PLACES_LO] = (uint32_t)packed;
    spec[RESAMPLE_SPEC_PLACES_HI] = (uint32_t)(packed >> 32);
    spec[RESAMPLE_SPEC_PERIODIC] = 1;
    spec[RESAMPLE_SPEC_WINDOW] = (uint32_t)(last - first + 1.0f);
    spec[RESAMPLE_SPEC_PERIOD] = (uint32_t)period;
    spec[RESAMPLE_SPEC_REL_MIN] = (uint32_t)(int32_t)first;
}

/* Dimension i of the tensors is kernel dimension RESAMPLE_MAX_RANK - rank + i; leading ones copy
 * size-1 dimensions. */
static HRESULT fill_spec(const struct vkdml_compile *compile, const struct resample_rule *rule,
        uint32_t spec[RESAMPLE_SPEC_COUNT])
{
    const DML_BUFFER_TENSOR_DESC *output = compile->op->outputs[0];
    uint32_t first = RESAMPLE_MAX_RANK - rule->rank, i, size = vkdml_element_size(output->DataType), vector, rows;
    uint32_t width, height;
    HRESULT hr;

    for (i = 0; i < RESAMPLE_MAX_RANK; ++i)
    {
        spec[RESAMPLE_SPEC_IN_SIZES + i] = spec[RESAMPLE_SPEC_OUT_SIZES + i] = 1;
        spec[RESAMPLE_SPEC_KINDS + i] = RESAMPLE_KIND_COPY;
        spec[RESAMPLE_SPEC_INV_SCALES + i] = spec[RESAMPLE_SPEC_AA_SCALES + i] = vkdml_float_bits(1.0f);
        spec[RESAMPLE_SPEC_AA_TAPS + i] = 2;
    }
    for (i = 0; i < rule->rank; ++i)
    {
        if (FAILED(hr = set_dimension(compile, rule, i, first + i, spec)))
            return hr;
    }
    spec[RESAMPLE_SPEC_TYPE] = output->DataType;   /* TIO_TYPE_* are DML's values (tensor_io.glsl) */
    spec[RESAMPLE_SPEC_ROUND_UP] = rule->round_up;
    spec[RESAMPLE_SPEC_OUT_PACKED] = vkdml_tensor_is_packed(output);
    /* 16 bytes of a row per invocation (one vector store), fewer for a shorter row; two rows
     * each, which share the last dimension's taps (docs/kernels.md, "Resampling": 2 beat 1, 3, 4
     * and 8, and 32 bytes per row lost, on an H200). */
    width = output->Sizes[rule->rank - 1];
    height = rule->rank > 1 ? output->Sizes[rule->rank - 2] : 1;
    vector = 16 / size;
    if (width < vector)
        vector = width;
    rows = height < 2 ? height : 2;
    spec[RESAMPLE_SPEC_VECTOR] = vector;
    spec[RESAMPLE_SPEC_ROWS] = rows;
    spec[RESAMPLE_SPEC_WINDOW] = spec[RESAMPLE_SPEC_PERIOD] = 1;
    set_periodic(rule, vector, spec);
    spec[RESAMPLE_SPEC_INVOCATIONS] = (uint32_t)(vkdml_tensor_element_count(output) / width / height
            * vkdml_div_up(height, rows) * vkdml_div_up(width, vector));
    vkdml_set_location(&spec[RESAMPLE_SPEC_IN_LOCATION], &compile->inputs[0]);
    vkdml_set_location(&spec[RESAMPLE_SPEC_OUT_LOCATION], &compile->outputs[0]);
    return S_OK;
}

HRESULT vkdml_resample_compile(struct vkdml_compile *compile)
{
    DML_TENSOR_DATA_TYPE type = compile->op->outputs[0]->DataType;
    uint32_t spec[RESAMPLE_SPEC_COUNT] = {0}, groups[3];
    struct resample_rule rule;
    enum vkdml_kernel_id kernel;
    HRESULT hr;

    if (!vkdml_find_kernel_variant(&compile->vk->caps, "resample", NULL, vkdml_type_kernel_features(type, false),
            &kernel))
        return vkdml_op_error(compile->op, E_NOTIMPL, "no resample.comp variant holds %s tensors on this device.",
                debugstr_data_type(type));
    rule_init(&rule, compile->op);
    if (FAILED(hr = fill_spec(compile, &rule, spec)))
        return hr;
    TRACE("resample: rank %u, kinds {%u,%u,%u,%u,%u}, %u x %u outputs per invocation, periodic %u (window %u), "
            "%u invocations.", rule.rank, spec[RESAMPLE_SPEC_KINDS], spec[RESAMPLE_SPEC_KINDS + 1],
            spec[RESAMPLE_SPEC_KINDS + 2], spec[RESAMPLE_SPEC_KINDS + 3], spec[RESAMPLE_SPEC_KINDS + 4],
            spec[RESAMPLE_SPEC_ROWS], spec[RESAMPLE_SPEC_VECTOR], spec[RESAMPLE_SPEC_PERIODIC],
            spec[RESAMPLE_SPEC_WINDOW], spec[RESAMPLE_SPEC_INVOCATIONS]);
    if (FAILED(hr = vkdml_spread_groups(compile, vkdml_div_up(spec[RESAMPLE_SPEC_INVOCATIONS], RESAMPLE_THREADS),
            groups)))
        return hr;
    return vkdml_compile_add_dispatch(compile, kernel, spec, RESAMPLE_SPEC_COUNT, NULL, 0, groups, false);
}
