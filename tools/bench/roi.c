/*
 * vkdml-bench's workloads of the ROI operators (issue 20): ROI_POOLING, ROI_ALIGN and ROI_ALIGN1,
 * their family (tensors and attributes from a shape) and CPU reference (test/reference/roi.c,
 * which test/ops/test_roi.c checks the kernel against too).
 *
 * A shape NxCxHxW[kROIS] is the input and the number of regions (default 4); the output is
 * {ROIS, C, 7, 7} (Mask R-CNN's box head). Regions are boxes in pixels inside the image, 5% to 30%
 * of its size per side, on batches spread over N; ROI_ALIGN averages 2 x 2 bilinear samples per
 * output (torchvision's sampling_ratio 2, half-pixel offsets), ROI_POOLING has SpatialScale 1.
 * The bench measures speed: test/ops checks the corner cases.
 */
#include "operators.h"
#include "reference/roi.h"

#include <math.h>
#include <string.h>

#define FLOAT_TYPES ((1u << FP32) | (1u << FP16))
#define POOLED 7

static bool is_pooling(const struct workload *w)
{
    return w->op->type == DML_OPERATOR_ROI_POOLING;
}

static void set_float_field(struct workload *w, const char *name, float value)
{
    const struct vkdml_field_schema *field = field_named(w->op->schema, name);

    if (field)
        *(FLOAT *)(w->desc.bytes + field->offset) = value;
}

static const char *build_roi(struct workload *w)
{
    UINT rois = w->k ? w->k : 4, roi_sizes[4] = {1, 1, rois, 5}, out_sizes[4];
    const struct vkdml_field_schema *pooled;
    DML_SIZE_2D size = {POOLED, POOLED};

    if (w->dim_count != 4)
        return "ROI shapes are NxCxHxW[kROIS]";
    out_sizes[0] = rois, out_sizes[1] = w->dims[1], out_sizes[2] = out_sizes[3] = POOLED;
    tensor_init(&w->inputs[0], w->type, 4, w->dims, NULL);
    tensor_init(&w->output, w->type, 4, out_sizes, NULL);
    if (is_pooling(w))
    {
        tensor_init(&w->inputs[1], w->type, 4, roi_sizes, NULL);
        if ((pooled = field_named(w->op->schema, "PooledSize")))
            memcpy(w->desc.bytes + pooled->offset, &size, sizeof(size));
        set_float_field(w, "SpatialScale", 1.0f);
        return NULL;
    }
    roi_sizes[3] = 4;
    tensor_init(&w->inputs[1], w->type, 2, &roi_sizes[2], NULL);
    tensor_init(&w->inputs[2], DML_TENSOR_DATA_TYPE_UINT32, 1, &rois, NULL);
    w->value_high[2] = w->dims[0];
    set_uint_field(w, "ReductionFunction", DML_REDUCE_FUNCTION_AVERAGE);
    set_uint_field(w, "InterpolationMode", DML_INTERPOLATION_MODE_LINEAR);
    set_uint_field(w, "MinimumSamplesPerOutput", 2);
    set_uint_field(w, "MaximumSamplesPerOutput", 2);
    set_uint_field(w, "AlignRegionsToCorners", FALSE);
    set_float_field(w, "SpatialScaleX", 1.0f);
    set_float_field(w, "SpatialScaleY", 1.0f);
    set_float_field(w, "InputPixelOffset", 0.5f);
    set_float_field(w, "OutputPixelOffset", -0.5f);
    set_float_field(w, "OutOfBoundsInputValue", 0.0f);
    return NULL;
}

/* The ROI tensor's boxes (POOLING: after their batch index), as the type stores them. */
static bool roi_values(const struct workload *w, UINT input, float *values, size_t count)
{
    UINT k = is_pooling(w) ? 5 : 4, first = k - 4, height = w->dims[2], width = w->dims[3];
    uint32_t seed = 0x2545f491u;
    float x, y, box_w, box_h;
    size_t r;

    if (input != 1)
        return false;
    for (r = 0; r < count / k; ++r)
    {
        box_w = ref_random_float(&seed, 0.05f, 0.3f) * width;
        box_h = ref_random_float(&seed, 0.05f, 0.3f) * height;
        x = ref_random_float(&seed, 0.0f, width - box_w);
        y = ref_random_float(&seed, 0.0f, height - box_h);
        if (first)
            values[r * k] = (float)(ref_random(&seed) % w->dims[0]);
        values[r * k + first] = floorf(x);
        values[r * k + first + 1] = floorf(y);
        values[r * k + first + 2] = floorf(x + box_w);
        values[r * k + first + 3] = floorf(y + box_h);
    }
    return true;
}

struct roi_input
{
    const struct tensor *in;
    const float *values;
    UINT channel;
};

static float input_at(const void *context, uint32_t batch, uint32_t y, uint32_t x)
{
    const struct roi_input *input = context;
    const UINT *sizes = input->in->sizes;

    return input->values[(((UINT64)batch * sizes[1] + input->channel) * sizes[2] + y) * sizes[3] + x];
}

static double reference_roi(const struct workload *w, float *const *inputs, UINT output, UINT64 index,
        double *tolerance)
{
    const struct vkdml_field_schema *f;
    struct ref_roi_params p = {0};
    UINT k = is_pooling(w) ? 5 : 4;
    struct roi_input input;
    UINT64 region;
    double value;

    (void)output;
    p.pooling = is_pooling(w);
    p.batches = w->dims[0], p.height = w->dims[2], p.width = w->dims[3];
    p.out_h = p.out_w = POOLED;
    p.scale_x = p.scale_y = 1.0f;
    p.input_offset = 0.5f, p.output_offset = -0.5f;
    p.min_samples = p.max_samples = 2;
    /* What the desc says: ROI_ALIGN1's offsets, ROI_ALIGN's fixed ones. */
    if ((f = field_named(w->op->schema, "InputPixelOffset")))
        p.input_offset = *(const FLOAT *)(w->desc.bytes + f->offset);
    if ((f = field_named(w->op->schema, "OutputPixelOffset")))
        p.output_offset = *(const FLOAT *)(w->desc.bytes + f->offset);
    input.in = &w->inputs[0];
    input.values = inputs[0];
    input.channel = (UINT)(index / (POOLED * POOLED) % w->dims[1]);
    region = index / ((UINT64)POOLED * POOLED * w->dims[1]);
    value = ref_roi_value(&p, &inputs[1][region * k], p.pooling ? 0 : (uint64_t)inputs[2][region],
            (uint32_t)(index / POOLED % POOLED), (uint32_t)(index % POOLED), input_at, &input);
    /* fp32 steps as the kernel's, in another order: an ulp of the coordinates times a slope of 2. */
    *tolerance = 2e-6 * (fabs(value) + 1.0) + 4e-7 * (w->dims[2] + w->dims[3]);
    return output_rounding(w, value, tolerance);
}

static const struct family roi_workloads =
{
    "roi", "NxCxHxW[kROIS] (the input; ROIS regions, default 4, each into 7x7 outputs)", "2x256x200x336k1000",
    "2x3x9x11k5", false, true, build_roi, FLOAT_TYPES, SUFFIX_K, roi_values,
};

const struct family *roi_family(const char *schema_name)
{
    return !strcmp(schema_name, "ROI_POOLING") || !strcmp(schema_name, "ROI_ALIGN")
            || !strcmp(schema_name, "ROI_ALIGN1") ? &roi_workloads : NULL;
}

static const struct reference references[] =
{
    {DML_OPERATOR_ROI_POOLING, reference_roi},
    {DML_OPERATOR_ROI_ALIGN, reference_roi},
    {DML_OPERATOR_ROI_ALIGN1, reference_roi},
};

const struct reference *roi_reference(DML_OPERATOR_TYPE type)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE(references); ++i)
    {
        if (references[i].type == type)
            return &references[i];
    }
    return NULL;
}
