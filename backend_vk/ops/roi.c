/*
 * The ROI family: DML_OPERATOR_ROI_POOLING (FL 1_0), ROI_ALIGN (FL 3_0) and ROI_ALIGN1 (FL 4_0),
 * one dispatch of kernels_glsl/roi.comp (roi_interface.h), one invocation per output element.
 *
 * DirectML's rules (DML_ROI_POOLING_OPERATOR_DESC, DML_ROI_ALIGN_OPERATOR_DESC,
 * DML_ROI_ALIGN1_OPERATOR_DESC; the schema already checked types, ranks and the same-type
 * group): POOLING's ROITensor is {1, 1, NumROIs, 5} ([batch, x1, y1, x2, y2]) and its output
 * {NumROIs, ChannelCount, PooledSize.Height, PooledSize.Width}. ALIGN's ROITensor is {NumROIs, 4}
 * with up to two leading ones, BatchIndicesTensor {NumROIs} with up to three, the output
 * {NumROIs, ChannelCount, OutputHeight, OutputWidth}; ReductionFunction AVERAGE or MAX,
 * InterpolationMode NEAREST_NEIGHBOR or LINEAR, MinimumSamplesPerOutput at most
 * MaximumSamplesPerOutput. ROI_ALIGN is ROI_ALIGN1 with InputPixelOffset 0.5, OutputPixelOffset
 * -0.5 and AlignRegionsToCorners FALSE (its page). What the pages leave open: README, "ROI
 * pooling and ROI align".
 */

#include <string.h>

#include "ops_private.h"
#include "roi_interface.h"

/* ROI_POOLING's bins are computed in 32 bits as quotient and remainder (roi.comp, pool_bin). */
#define ROI_MAX_POOLED 65535u

/* ROI_ALIGN1's attributes; ROI_ALIGN's with its fixed offsets. */
struct roi_align_attributes
{
    DML_REDUCE_FUNCTION reduction;
    DML_INTERPOLATION_MODE interpolation;
    float scale_x, scale_y, input_offset, output_offset, out_of_bounds;
    uint32_t min_samples, max_samples;
    bool corners;
};

static void get_align_attributes(const struct vkdml_operator_view *op, struct roi_align_attributes *a)
{
    const DML_ROI_ALIGN1_OPERATOR_DESC *desc1 = op->desc;
    const DML_ROI_ALIGN_OPERATOR_DESC *desc = op->desc;

    if (op->type == DML_OPERATOR_ROI_ALIGN1)
    {
        a->reduction = desc1->ReductionFunction;
        a->interpolation = desc1->InterpolationMode;
        a->scale_x = desc1->SpatialScaleX;
        a->scale_y = desc1->SpatialScaleY;
        a->input_offset = desc1->InputPixelOffset;
        a->output_offset = desc1->OutputPixelOffset;
        a->out_of_bounds = desc1->OutOfBoundsInputValue;
        a->min_samples = desc1->MinimumSamplesPerOutput;
        a->max_samples = desc1->MaximumSamplesPerOutput;
        a->corners = !!desc1->AlignRegionsToCorners;
        return;
    }
    a->reduction = desc->ReductionFunction;
    a->interpolation = desc->InterpolationMode;
    a->scale_x = desc->SpatialScaleX;
    a->scale_y = desc->SpatialScaleY;
    a->input_offset = 0.5f;
    a->output_offset = -0.5f;
    a->out_of_bounds = desc->OutOfBoundsInputValue;
    a->min_samples = desc->MinimumSamplesPerOutput;
    a->max_samples = desc->MaximumSamplesPerOutput;
    a->corners = false;
}

/* `tensor`'s last `kept` dimensions are `sizes` (UINT_MAX: any) and the ones before them 1. */
static HRESULT check_sizes(const struct vkdml_operator_view *op, const DML_BUFFER_TENSOR_DESC *tensor,
        const char *name, uint32_t kept, const uint32_t *sizes)
{
    uint32_t first = tensor->DimensionCount - kept, i;

    for (i = 0; i < tensor->DimensionCount; ++i)
    {
        uint32_t expected = i < first ? 1 : sizes[i - first];

        if (expected != UINT32_MAX && tensor->Sizes[i] != expected)
            return vkdml_op_error(op, E_INVALIDARG, "%s.Sizes[%u]=%u must be %u.", name, i, tensor->Sizes[i],
                    expected);
    }
    return S_OK;
}

static HRESULT check_index_ranges(const struct vkdml_operator_view *op)
{
    static const char *const names[] = {"InputTensor", "ROITensor", "BatchIndicesTensor"};
    HRESULT hr;
    uint32_t i;

    for (i = 0; i < op->input_count; ++i)
    {
        if (FAILED(hr = vkdml_check_index_range(op, op->inputs[i], names[i])))
            return hr;
    }
    return vkdml_check_index_range(op, op->outputs[0], "OutputTensor");
}

static HRESULT validate_pooling(const struct vkdml_operator_view *op)
{
    const DML_ROI_POOLING_OPERATOR_DESC *desc = op->desc;
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[0], *rois = op->inputs[1], *output = op->outputs[0];
    uint32_t roi_sizes[2] = {UINT32_MAX, 5}, output_sizes[4];
    HRESULT hr;

    if (FAILED(hr = check_sizes(op, rois, "ROITensor", 2, roi_sizes)))
        return hr;
    output_sizes[0] = rois->Sizes[2];
    output_sizes[1] = input->Sizes[1];
    output_sizes[2] = desc->PooledSize.Height;
    output_sizes[3] = desc->PooledSize.Width;
    if (FAILED(hr = check_sizes(op, output, "OutputTensor", 4, output_sizes)))
        return hr;
    if (desc->PooledSize.Height > ROI_MAX_POOLED || desc->PooledSize.Width > ROI_MAX_POOLED)
        return vkdml_op_error(op, E_NOTIMPL, "PooledSize {%u, %u} above %u.", desc->PooledSize.Height,
                desc->PooledSize.Width, ROI_MAX_POOLED);
    return S_OK;
}

static HRESULT validate_align(const struct vkdml_operator_view *op)
{
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[0], *rois = op->inputs[1], *output = op->outputs[0];
    uint32_t roi_sizes[2] = {UINT32_MAX, 4}, count, output_sizes[4];
    struct roi_align_attributes a;
    HRESULT hr;

    get_align_attributes(op, &a);
    if (a.reduction != DML_REDUCE_FUNCTION_AVERAGE && a.reduction != DML_REDUCE_FUNCTION_MAX)
        return vkdml_op_error(op, E_INVALIDARG, "ReductionFunction=%#x must be AVERAGE or MAX.", a.reduction);
    if (a.interpolation != DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR && a.interpolation != DML_INTERPOLATION_MODE_LINEAR)
        return vkdml_op_error(op, E_INVALIDARG, "InterpolationMode=%#x must be NEAREST_NEIGHBOR or LINEAR.",
                a.interpolation);
    if (a.min_samples > a.max_samples)
        return vkdml_op_error(op, E_INVALIDARG, "MinimumSamplesPerOutput=%u must be at most "
                "MaximumSamplesPerOutput=%u.", a.min_samples, a.max_samples);
    if (FAILED(hr = check_sizes(op, rois, "ROITensor", 2, roi_sizes)))
        return hr;
    count = rois->Sizes[rois->DimensionCount - 2];
    if (FAILED(hr = check_sizes(op, op->inputs[2], "BatchIndicesTensor", 1, &count)))
        return hr;
    output_sizes[0] = count;
    output_sizes[1] = input->Sizes[1];
    output_sizes[2] = output_sizes[3] = UINT32_MAX;
    return check_sizes(op, output, "OutputTensor", 4, output_sizes);
}

HRESULT vkdml_roi_validate(struct vkdml_backend_device *device, const struct vkdml_operator_view *op)
{
    HRESULT hr;

    (void)device;
    if (FAILED(hr = op->type == DML_OPERATOR_ROI_POOLING ? validate_pooling(op) : validate_align(op)))
        return hr;
    return check_index_ranges(op);
}

static void fill_spec(const struct vkdml_compile *compile, uint32_t spec[ROI_SPEC_COUNT])
{
    const struct vkdml_operator_view *op = compile->op;
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[0], *rois = op->inputs[1], *output = op->outputs[0];
    bool pooling = op->type == DML_OPERATOR_ROI_POOLING;
    struct roi_align_attributes a;
    uint32_t i;

    spec[ROI_SPEC_MODE] = pooling ? ROI_MODE_POOLING : ROI_MODE_ALIGN;
    spec[ROI_SPEC_TYPE] = output->DataType;     /* TIO_TYPE_* are DML's values (tensor_io.glsl) */
    spec[ROI_SPEC_COUNT_ELEMENTS] = (uint32_t)vkdml_tensor_element_count(output);
    for (i = 0; i < 4; ++i)
    {
        spec[ROI_SPEC_SIZES + i] = input->Sizes[i];
        spec[ROI_SPEC_OUT_SIZES + i] = output->Sizes[i];
        spec[ROI_SPEC_IN_STRIDES + i] = vkdml_tensor_stride(input, i);
        spec[ROI_SPEC_OUT_STRIDES + i] = vkdml_tensor_stride(output, i);
    }
    spec[ROI_SPEC_ROI_STRIDES] = vkdml_tensor_stride(rois, rois->DimensionCount - 2);
    spec[ROI_SPEC_ROI_STRIDES + 1] = vkdml_tensor_stride(rois, rois->DimensionCount - 1);
    vkdml_set_location(&spec[ROI_SPEC_IN_LOCATION], &compile->inputs[0]);
    vkdml_set_location(&spec[ROI_SPEC_ROI_LOCATION], &compile->inputs[1]);
    vkdml_set_location(&spec[ROI_SPEC_OUT_LOCATION], &compile->outputs[0]);
    if (pooling)
    {
        /* The batch-index constants stay at a valid slot: the kernel never reads them. */
        vkdml_set_location(&spec[ROI_SPEC_BATCH_LOCATION], &compile->inputs[1]);
        spec[ROI_SPEC_BATCH_TYPE] = DML_TENSOR_DATA_TYPE_UINT32;
        return;
    }
    get_align_attributes(op, &a);
    spec[ROI_SPEC_MAX] = a.reduction == DML_REDUCE_FUNCTION_MAX;
    spec[ROI_SPEC_NEAREST] = a.interpolation == DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    spec[ROI_SPEC_CORNERS] = a.corners;
    spec[ROI_SPEC_BATCH_TYPE] = op->inputs[2]->DataType;
    spec[ROI_SPEC_BATCH_STRIDE] = vkdml_tensor_stride(op->inputs[2], op->inputs[2]->DimensionCount - 1);
    vkdml_set_location(&spec[ROI_SPEC_BATCH_LOCATION], &compile->inputs[2]);
}

static void fill_push(const struct vkdml_compile *compile, struct roi_push *push)
{
    const DML_ROI_POOLING_OPERATOR_DESC *pooling = compile->op->desc;
    struct roi_align_attributes a;

    memset(push, 0, sizeof(*push));
    if (compile->op->type == DML_OPERATOR_ROI_POOLING)
    {
        push->spatial_scale[0] = push->spatial_scale[1] = pooling->SpatialScale;
        return;
    }
    get_align_attributes(compile->op, &a);
    push->spatial_scale[0] = a.scale_x;
    push->spatial_scale[1] = a.scale_y;
    push->input_offset = a.input_offset;
    push->output_offset = a.output_offset;
    push->out_of_bounds = a.out_of_bounds;
    push->max_samples = a.max_samples < ROI_MAX_SAMPLES ? a.max_samples : ROI_MAX_SAMPLES;
    push->min_samples = a.min_samples < push->max_samples ? a.min_samples : push->max_samples;
}

HRESULT vkdml_roi_compile(struct vkdml_compile *compile)
{
    DML_TENSOR_DATA_TYPE type = compile->op->outputs[0]->DataType;
    uint32_t spec[ROI_SPEC_COUNT] = {0}, groups[3];
    enum vkdml_kernel_id kernel;
    struct roi_push push;
    HRESULT hr;

    if (!vkdml_find_kernel_variant(&compile->vk->caps, "roi", NULL, vkdml_type_kernel_features(type, false), &kernel))
        return vkdml_op_error(compile->op, E_NOTIMPL, "no roi.comp variant holds %s tensors on this device.",
                debugstr_data_type(type));
    fill_spec(compile, spec);
    fill_push(compile, &push);
    if (FAILED(hr = vkdml_spread_groups(compile, vkdml_div_up(spec[ROI_SPEC_COUNT_ELEMENTS], ROI_THREADS), groups)))
        return hr;
    return vkdml_compile_add_dispatch(compile, kernel, spec, ROI_SPEC_COUNT, &push, sizeof(push), groups, false);
}
