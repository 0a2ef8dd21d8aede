/*
 * The pooling family: DML_OPERATOR_AVERAGE_POOLING (FL 1_0), AVERAGE_POOLING1 (FL 6_2, Dilations),
 * LP_POOLING (FL 1_0), LP_POOLING1 (FL 6_2, Dilations), MAX_POOLING (FL 1_0), MAX_POOLING1 (FL 2_0,
 * optional OutputIndicesTensor) and MAX_POOLING2 (FL 2_1, Dilations and indices): one dispatch of
 * kernels_glsl/pooling.comp (pooling_interface.h).
 *
 * DirectML's rules (the operators' pages): tensors {N, C, H, W} or {N, C, D, H, W} (the schema's
 * ranks; 1-D pooling is 2-D with H = 1), DimensionCount = rank - 2 spatial dimensions, Strides,
 * WindowSize and Dilations at least 1, and output sizes N, C, then per spatial dimension
 * (In + StartPadding + EndPadding - Dilation * (Window - 1) - 1) / Stride + 1, the dilated
 * window fitting the padded input (ceil-style sizes come through EndPadding). Lp's P is at least
 * 1. The indices output has the output's sizes; an index is the input's row-major logical index
 * (the input as a contiguous 1-D array). The choices DirectML leaves open are in README.md,
 * "Pooling: decisions".
 */

#include <inttypes.h>
#include <string.h>

#include "ops_private.h"
#include "pooling_interface.h"

/* The seven descs as one view: the fields they share, Dilations 1 where the desc has none. */
struct pooling_desc
{
    const DML_BUFFER_TENSOR_DESC *input, *output, *indices;
    uint32_t function;                  /* POOLING_AVERAGE, _LP, _MAX */
    uint32_t dimension_count;
    const UINT *strides, *window, *start_padding, *end_padding, *dilations;  /* dilations NULL: 1 */
    bool include_padding;
    uint32_t p;
};

static void pooling_desc_init(struct pooling_desc *d, const struct vkdml_operator_view *op)
{
    memset(d, 0, sizeof(*d));
    d->input = op->inputs[0];
    d->output = op->outputs[0];
    d->indices = op->output_count > 1 ? op->outputs[1] : NULL;
    switch (op->type)
    {
#define COMMON(desc) \
        d->dimension_count = (desc)->DimensionCount; \
        d->strides = (desc)->Strides; \
        d->window = (desc)->WindowSize; \
        d->start_padding = (desc)->StartPadding; \
        d->end_padding = (desc)->EndPadding
        case DML_OPERATOR_AVERAGE_POOLING:
        {
            const DML_AVERAGE_POOLING_OPERATOR_DESC *desc = op->desc;

            COMMON(desc);
            d->function = POOLING_AVERAGE;
            d->include_padding = desc->IncludePadding;
            break;
        }
        case DML_OPERATOR_AVERAGE_POOLING1:
        {
            const DML_AVERAGE_POOLING1_OPERATOR_DESC *desc = op->desc;

            COMMON(desc);
            d->function = POOLING_AVERAGE;
            d->dilations = desc->Dilations;
            d->include_padding = desc->IncludePadding;
            break;
        }
        case DML_OPERATOR_LP_POOLING:
        {
            const DML_LP_POOLING_OPERATOR_DESC *desc = op->desc;

            COMMON(desc);
            d->function = POOLING_LP;
            d->p = desc->P;
            break;
        }
        case DML_OPERATOR_LP_POOLING1:
        {
            const DML_LP_POOLING1_OPERATOR_DESC *desc = op->desc;

            COMMON(desc);
            d->function = POOLING_LP;
            d->dilations = desc->Dilations;
            d->p = desc->P;
            break;
        }
        case DML_OPERATOR_MAX_POOLING:
        {
            const DML_MAX_POOLING_OPERATOR_DESC *desc = op->desc;

            COMMON(desc);
            d->function = POOLING_MAX;
            break;
        }
        case DML_OPERATOR_MAX_POOLING1:
        {
            const DML_MAX_POOLING1_OPERATOR_DESC *desc = op->desc;

            COMMON(desc);
            d->function = POOLING_MAX;
            break;
        }
        default:
        {
            const DML_MAX_POOLING2_OPERATOR_DESC *desc = op->desc;

            COMMON(desc);
            d->function = POOLING_MAX;
            d->dilations = desc->Dilations;
            break;
        }
#undef COMMON
    }
}

static uint32_t dilation(const struct pooling_desc *d, unsigned int i)
{
    return d->dilations ? d->dilations[i] : 1;
}

/* ---- Validation ---- */

static HRESULT validate_attributes(const struct vkdml_operator_view *op, const struct pooling_desc *d)
{
    unsigned int i;

    if (d->dimension_count != d->input->DimensionCount - 2)
        return vkdml_op_error(op, E_INVALIDARG, "DimensionCount=%u must equal InputTensor.DimensionCount=%u - 2 "
                "(the spatial dimensions).", d->dimension_count, d->input->DimensionCount);
    for (i = 0; i < d->dimension_count; ++i)
    {
        if (!d->strides[i])
            return vkdml_op_error(op, E_INVALIDARG, "Strides[%u]=0 must be at least 1.", i);
        if (!d->window[i])
            return vkdml_op_error(op, E_INVALIDARG, "WindowSize[%u]=0 must be at least 1.", i);
        if (!dilation(d, i))
            return vkdml_op_error(op, E_INVALIDARG, "Dilations[%u]=0 must be at least 1.", i);
    }
    if (d->function == POOLING_LP && !d->p)
        return vkdml_op_error(op, E_INVALIDARG, "P=0 must be at least 1.");
    return S_OK;
}

static HRESULT validate_sizes(const struct vkdml_operator_view *op, const struct pooling_desc *d)
{
    uint64_t expected;
    unsigned int i;

    for (i = 0; i < 2; ++i)
    {
        if (d->output->Sizes[i] != d->input->Sizes[i])
            return vkdml_op_error(op, E_INVALIDARG, "OutputTensor.Sizes[%u]=%u must equal InputTensor.Sizes[%u]=%u.",
                    i, d->output->Sizes[i], i, d->input->Sizes[i]);
    }
    for (i = 0; i < d->dimension_count; ++i)
    {
        uint32_t in = d->input->Sizes[i + 2], out = d->output->Sizes[i + 2];

        expected = vkdml_window_positions(in, d->start_padding[i], d->end_padding[i], d->window[i], dilation(d, i),
                d->strides[i]);
        if (!expected)
            return vkdml_op_error(op, E_INVALIDARG, "InputTensor.Sizes[%u]=%u + StartPadding[%u]=%u + "
                    "EndPadding[%u]=%u must be at least the dilated window Dilations[%u]=%u * (WindowSize[%u]=%u "
                    "- 1) + 1.", i + 2, in, i, d->start_padding[i], i, d->end_padding[i], i, dilation(d, i), i,
                    d->window[i]);
        if (out != expected)
            return vkdml_op_error(op, E_INVALIDARG, "OutputTensor.Sizes[%u]=%u must equal (InputTensor.Sizes[%u]=%u + "
                    "StartPadding[%u]=%u + EndPadding[%u]=%u - dilated window) / Strides[%u]=%u + 1 = %" PRIu64 ".",
                    i + 2, out, i + 2, in, i, d->start_padding[i], i, d->end_padding[i], i, d->strides[i], expected);
    }
    if (d->indices)
        return vkdml_validate_same_sizes(op, d->indices, "OutputIndicesTensor", d->output, "OutputTensor");
    return S_OK;
}

HRESULT vkdml_pooling_validate(struct vkdml_backend_device *device, const struct vkdml_operator_view *op)
{
    struct pooling_desc d;
    HRESULT hr;

    pooling_desc_init(&d, op);
    if (FAILED(hr = validate_attributes(op, &d)) || FAILED(hr = validate_sizes(op, &d)))
        return hr;
    if (FAILED(hr = vkdml_check_index_range(op, d.input, "InputTensor"))
            || FAILED(hr = vkdml_check_index_range(op, d.output, "OutputTensor"))
            || (d.indices && FAILED(hr = vkdml_check_index_range(op, d.indices, "OutputIndicesTensor"))))
        return hr;
    /* The kernel counts logical elements (and indices) in 32 bits, whatever the strides. */
    if (vkdml_tensor_element_count(d.input) > UINT32_MAX)
        return vkdml_op_error(op, E_NOTIMPL, "InputTensor has %" PRIu64 " elements; at most 2^32 - 1 are "
                "implemented.", vkdml_tensor_element_count(d.input));
    return vkdml_check_subgroup_reductions(device, op);
}

/* ---- Compilation ---- */

/* Invocations per output: a power of two up to 32 and the subgroup size, so that each lane of a
 * long window (global pooling) reads at least POOLING_LANE_CELLS cells; 1 for the small windows of
 * CNNs. Fewer lanes with more loads each beat more lanes and longer shuffles (H200: a 7x7 window is
 * fastest with 4 lanes; docs/kernels.md, "Pooling"). The kernel numbers invocations in 32 bits. */
#define POOLING_LANE_CELLS 12
static uint32_t choose_lanes(const struct vkdml_compile *compile, uint64_t outputs, uint64_t window_volume)
{
    uint32_t lanes = 1, limit = VKDML_MIN(32, compile->vk->caps.subgroup_size);

    while (lanes * 2 <= limit && lanes * 2 * POOLING_LANE_CELLS <= window_volume && outputs * lanes * 2 <= UINT32_MAX)
        lanes *= 2;
    return lanes;
}

/* The row path's outputs per invocation (pooling.comp, pool_row), 1 where it does not apply: average
 * and Lp pooling (max pooling measured slower there: docs/kernels.md, "Pooling"), input rows
 * contiguous and whole 16-byte vectors, every other stride in use and the offset aligned (bindings
 * are 16-byte aligned: DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT), dilation 1 along W. The outputs of an
 * invocation span a whole number of vectors, so every invocation's first column has the same place
 * in its first vector; 16 bytes of outputs where that fits, for one 16-byte store. */
static uint32_t choose_row_outputs(const struct vkdml_compile *compile, const uint32_t spec[POOLING_SPEC_COUNT])
{
    uint32_t size = vkdml_element_size(spec[POOLING_SPEC_TYPE]), per_vector, outputs, lead, i;
    uint64_t vectors;
    uint32_t stride = spec[POOLING_SPEC_STRIDES + 2], window = spec[POOLING_SPEC_WINDOW + 2];

    if (spec[POOLING_SPEC_FUNCTION] == POOLING_MAX || (spec[POOLING_SPEC_TYPE] != DML_TENSOR_DATA_TYPE_FLOAT32
            && spec[POOLING_SPEC_TYPE] != DML_TENSOR_DATA_TYPE_FLOAT16) || spec[POOLING_SPEC_LANES] != 1
            || spec[POOLING_SPEC_IN_STRIDES + 4] != 1
            || spec[POOLING_SPEC_DILATIONS + 2] != 1 || compile->inputs[0].offset % 16)
        return 1;
    per_vector = 16 / size;
    if (spec[POOLING_SPEC_IN_SIZES + 4] % per_vector)
        return 1;
    for (i = 0; i < POOLING_RANK - 1; ++i)
    {
        if (spec[POOLING_SPEC_IN_SIZES + i] > 1 && spec[POOLING_SPEC_IN_STRIDES + i] % per_vector)
            return 1;
    }
    lead = (per_vector - spec[POOLING_SPEC_PADDING + 2] % per_vector) % per_vector;
    for (outputs = VKDML_MIN(per_vector, POOLING_ROW_OUTPUTS_MAX); outputs > 1; outputs /= 2)
    {
        vectors = vkdml_div_up(lead + (uint64_t)(outputs - 1) * stride + window, per_vector);
        if (!((uint64_t)outputs * stride % per_vector) && vectors <= POOLING_ROW_VECTORS_MAX)
            return outputs;
    }
    return 1;
}

/* Whether the row path stores an invocation's outputs as one 8- or 16-byte word (pooling.comp,
 * store_row): the output's rows contiguous and whole words of `outputs` elements, every other
 * stride and the offset aligned to them. */
static bool choose_row_store(const struct vkdml_compile *compile, const uint32_t spec[POOLING_SPEC_COUNT],
        uint32_t outputs)
{
    uint32_t bytes = outputs * vkdml_element_size(spec[POOLING_SPEC_TYPE]), i;

    if (outputs == 1 || (bytes != 8 && bytes != 16) || spec[POOLING_SPEC_OUT_STRIDES + 4] != 1
            || spec[POOLING_SPEC_OUT_SIZES + 4] % outputs || compile->outputs[0].offset % bytes)
        return false;
    for (i = 0; i < POOLING_RANK - 1; ++i)
    {
        if (spec[POOLING_SPEC_OUT_SIZES + i] > 1 && spec[POOLING_SPEC_OUT_STRIDES + i] % outputs)
            return false;
    }
    return true;
}

/* Tensor dimension i of a 4-D operator is kernel dimension i (N, C) or i + 1 (H, W): D is 1. */
static void set_dims(uint32_t spec[POOLING_SPEC_COUNT], uint32_t sizes_index, uint32_t strides_index,
        const DML_BUFFER_TENSOR_DESC *tensor)
{
    uint32_t i, k;

    for (i = 0; i < POOLING_RANK; ++i)
    {
        if (sizes_index)
            spec[sizes_index + i] = 1;
        spec[strides_index + i] = 0;
    }
    for (i = 0; i < tensor->DimensionCount; ++i)
    {
        k = tensor->DimensionCount == 4 && i >= 2 ? i + 1 : i;
        if (sizes_index)
            spec[sizes_index + k] = tensor->Sizes[i];
        spec[strides_index + k] = vkdml_tensor_stride(tensor, i);
    }
}

static void fill_spec(const struct vkdml_compile *compile, const struct pooling_desc *d,
        uint32_t spec[POOLING_SPEC_COUNT], uint64_t *window_volume)
{
    uint32_t first = POOLING_SPATIAL - d->dimension_count, i;

    spec[POOLING_SPEC_FUNCTION] = d->function;
    spec[POOLING_SPEC_TYPE] = d->input->DataType;   /* TIO_TYPE_* are DML's values (tensor_io.glsl) */
    spec[POOLING_SPEC_INDEX_TYPE] = d->indices ? d->indices->DataType : 0;
    spec[POOLING_SPEC_INCLUDE_PADDING] = d->include_padding;
    spec[POOLING_SPEC_P] = d->p;
    spec[POOLING_SPEC_OUTPUT_COUNT] = (uint32_t)vkdml_tensor_element_count(d->output);
    set_dims(spec, POOLING_SPEC_IN_SIZES, POOLING_SPEC_IN_STRIDES, d->input);
    set_dims(spec, POOLING_SPEC_OUT_SIZES, POOLING_SPEC_OUT_STRIDES, d->output);
    if (d->indices)
        set_dims(spec, 0, POOLING_SPEC_INDEX_STRIDES, d->indices);
    *window_volume = 1;
    for (i = 0; i < POOLING_SPATIAL; ++i)
    {
        bool present = i >= first;

        spec[POOLING_SPEC_WINDOW + i] = present ? d->window[i - first] : 1;
        spec[POOLING_SPEC_STRIDES + i] = present ? d->strides[i - first] : 1;
        spec[POOLING_SPEC_PADDING + i] = present ? d->start_padding[i - first] : 0;
        spec[POOLING_SPEC_DILATIONS + i] = present ? dilation(d, i - first) : 1;
        *window_volume *= spec[POOLING_SPEC_WINDOW + i];
    }
    vkdml_set_location(&spec[POOLING_SPEC_IN_LOCATION], &compile->inputs[0]);
    vkdml_set_location(&spec[POOLING_SPEC_OUT_LOCATION], &compile->outputs[0]);
    if (d->indices)
        vkdml_set_location(&spec[POOLING_SPEC_INDEX_LOCATION], &compile->outputs[1]);
    spec[POOLING_SPEC_LANES] = choose_lanes(compile, spec[POOLING_SPEC_OUTPUT_COUNT], *window_volume);
    spec[POOLING_SPEC_CLAMP_READS] = d->function == POOLING_MAX;
    for (i = 0; i < d->dimension_count; ++i)
    {
        if (dilation(d, i) != 1 || d->start_padding[i] >= d->window[i] || d->end_padding[i] >= d->window[i])
            spec[POOLING_SPEC_CLAMP_READS] = 0;
    }
    spec[POOLING_SPEC_ROW_OUTPUTS] = choose_row_outputs(compile, spec);
    spec[POOLING_SPEC_ROW_STORE] = choose_row_store(compile, spec, spec[POOLING_SPEC_ROW_OUTPUTS]);
}

HRESULT vkdml_pooling_compile(struct vkdml_compile *compile)
{
    uint32_t spec[POOLING_SPEC_COUNT] = {0}, groups[3];
    struct pooling_desc d;
    enum vkdml_kernel_id kernel;
    uint64_t window_volume, invocations;
    HRESULT hr;

    pooling_desc_init(&d, compile->op);
    if (!vkdml_find_kernel_variant(&compile->vk->caps, "pooling", NULL, vkdml_move_kernel_features(d.input->DataType),
            &kernel))
        return vkdml_op_error(compile->op, E_NOTIMPL, "no pooling.comp variant holds %s tensors on this device.",
                debugstr_data_type(d.input->DataType));
    fill_spec(compile, &d, spec, &window_volume);
    invocations = (uint64_t)spec[POOLING_SPEC_OUTPUT_COUNT] * spec[POOLING_SPEC_LANES];
    if (spec[POOLING_SPEC_ROW_OUTPUTS] > 1)
        invocations = (uint64_t)spec[POOLING_SPEC_OUTPUT_COUNT] / spec[POOLING_SPEC_OUT_SIZES + 4]
                * vkdml_div_up(spec[POOLING_SPEC_OUT_SIZES + 4], spec[POOLING_SPEC_ROW_OUTPUTS]);
    TRACE("%s: %u lane(s) per output, %u per invocation along W%s, window of %" PRIu64 " cells.\n",
            compile->op->name, spec[POOLING_SPEC_LANES], spec[POOLING_SPEC_ROW_OUTPUTS],
            spec[POOLING_SPEC_ROW_STORE] ? " (one store)" : "", window_volume);
    if (FAILED(hr = vkdml_spread_groups(compile, vkdml_div_up(invocations, POOLING_THREADS), groups)))
        return hr;
    return vkdml_compile_add_dispatch(compile, kernel, spec, POOLING_SPEC_COUNT, NULL, 0,
            groups, false);
}
