/*
 * vkdml-bench's workloads of issue 20's pooling operators (AVERAGE_POOLING, AVERAGE_POOLING1,
 * LP_POOLING, LP_POOLING1, MAX_POOLING, MAX_POOLING1, MAX_POOLING2): their family (tensors and
 * attributes from a shape) and CPU references.
 *
 * Shapes: NxCxHxW pools each image whole (global pooling); NxCxHxWxRxS[xSTRIDE[xPAD]] slides an
 * RxS window, as the convolution shapes do (window_geometry). "@TYPE" (uint32, uint64) adds
 * MAX_POOLING1/2's indices output. Average pooling counts the padding (PyTorch's default), Lp
 * pooling takes P = 2. The bytes that must move: the input read once, the outputs written once.
 */
#include "operators.h"

#include <math.h>
#include <string.h>

#define MAX_TYPES_MASK 0x0ffeu          /* FLOAT32 to INT64: bits 1 to 11, less FLOAT64 below */
#define FLOAT_TYPES ((1u << FP32) | (1u << FP16))
#define LP_P 2

static bool is_max(const struct workload *w)
{
    DML_OPERATOR_TYPE type = w->op->type;

    return type == DML_OPERATOR_MAX_POOLING || type == DML_OPERATOR_MAX_POOLING1 || type == DML_OPERATOR_MAX_POOLING2;
}

static bool is_lp(const struct workload *w)
{
    return w->op->type == DML_OPERATOR_LP_POOLING || w->op->type == DML_OPERATOR_LP_POOLING1;
}

static const char *build_pooling(struct workload *w)
{
    const UINT *d = w->dims;
    UINT out[4], i;
    const char *why;

    if (w->dim_count != 4 && (w->dim_count < 6 || w->dim_count > 8))
        return "pooling shapes are NxCxHxW (global) or NxCxHxWxRxS[xSTRIDE[xPAD]]";
    out[0] = d[0];
    out[1] = d[1];
    if (w->dim_count == 4)
    {
        for (i = 0; i < 2; ++i)
        {
            w->window[i] = d[2 + i];
            w->strides[i] = w->dilations[i] = 1;
            w->start_padding[i] = w->end_padding[i] = 0;
            out[2 + i] = 1;
        }
        set_array_field(w, "WindowSize", w->window, 2);
        set_array_field(w, "Strides", w->strides, 2);
        set_array_field(w, "Dilations", w->dilations, 2);
        set_array_field(w, "StartPadding", w->start_padding, 2);
        set_array_field(w, "EndPadding", w->end_padding, 2);
    }
    else if ((why = window_geometry(w, 4, &out[2])))
    {
        return why;
    }
    if (w->other_type && (!is_max(w) || w->op->type == DML_OPERATOR_MAX_POOLING
            || (w->other_type != DML_TENSOR_DATA_TYPE_UINT32 && w->other_type != DML_TENSOR_DATA_TYPE_UINT64)))
        return "@TYPE (uint32 or uint64) is MAX_POOLING1 and MAX_POOLING2's indices output";
    tensor_init(&w->inputs[0], w->type, 4, d, NULL);
    tensor_init(&w->output, w->type, 4, out, NULL);
    if (w->other_type)
        tensor_init(&w->more_outputs[0], w->other_type, 4, out, NULL);
    set_uint_field(w, "IncludePadding", 1);
    set_uint_field(w, "P", LP_P);
    return NULL;
}

/* Output element `index` (or its index, output 1) of the window at its coordinates. */
static double reference_pooling(const struct workload *w, float *const *inputs, UINT output, UINT64 index,
        double *tolerance)
{
    const struct tensor *in = &w->inputs[0];
    UINT64 rest = index, c[4], plane, best_index = 0;
    double sum = 0.0, magnitude = 0.0, best = -INFINITY, x;
    UINT volume = w->window[0] * w->window[1], terms = 0, kh, kw;
    bool found = false;
    int d;

    for (d = 3; d >= 0; --d)
    {
        c[d] = rest % w->output.sizes[d];
        rest /= w->output.sizes[d];
    }
    plane = (c[0] * in->sizes[1] + c[1]) * in->sizes[2] * in->sizes[3];
    for (kh = 0; kh < w->window[0]; ++kh)
    {
        for (kw = 0; kw < w->window[1]; ++kw)
        {
            int64_t h = (int64_t)(c[2] * w->strides[0] + kh * w->dilations[0]) - w->start_padding[0];
            int64_t x_pos = (int64_t)(c[3] * w->strides[1] + kw * w->dilations[1]) - w->start_padding[1];
            UINT64 cell;

            if (h < 0 || h >= in->sizes[2] || x_pos < 0 || x_pos >= in->sizes[3])
                continue;
            cell = plane + (UINT64)h * in->sizes[3] + (UINT64)x_pos;
            x = inputs[0][cell];
            ++terms;
            if (is_max(w))
            {
                if (!found || (!isnan(best) && (isnan(x) || x > best)))
                    best = x, best_index = cell, found = true;
                continue;
            }
            sum += is_lp(w) ? x * x : x;
            magnitude += is_lp(w) ? x * x : fabs(x);
        }
    }
    *tolerance = 0.0;
    if (is_max(w))
        return output ? (double)best_index : best;
    *tolerance = 1e-6 * (terms + 1) * magnitude / (is_lp(w) ? 1.0 : volume);
    if (is_lp(w))
    {
        *tolerance = 1e-6 * (terms + 1) * sqrt(magnitude) + 1e-6;
        return output_rounding(w, sqrt(sum), tolerance);
    }
    *tolerance += 1e-7;
    return output_rounding(w, sum / volume, tolerance);
}

static const struct family pooling = {"pooling", "NxCxHxW (global) or NxCxHxWxRxS[xSTRIDE[xPAD]] (an RxS window, "
        "STRIDE default 1, PAD default (R-1)/2 and (S-1)/2)[@ITYPE] (MAX_POOLING1/2's indices: uint32, uint64)",
        "32x64x112x112x3x3x2x1", "2x3x9x8x3x3x2x1", false, false, build_pooling, MAX_TYPES_MASK & ~(1u << 9),
        SUFFIX_TYPE, NULL};

static const char *const names[] =
{
    "AVERAGE_POOLING", "AVERAGE_POOLING1", "LP_POOLING", "LP_POOLING1", "MAX_POOLING", "MAX_POOLING1", "MAX_POOLING2",
};

const struct family *pooling_family(const char *schema_name)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE(names); ++i)
    {
        if (!strcmp(names[i], schema_name))
            return &pooling;
    }
    return NULL;
}

/* Max pooling's references check the indices output too. */
static const struct reference references[] =
{
    {DML_OPERATOR_AVERAGE_POOLING, reference_pooling},
    {DML_OPERATOR_AVERAGE_POOLING1, reference_pooling},
    {DML_OPERATOR_LP_POOLING, reference_pooling},
    {DML_OPERATOR_LP_POOLING1, reference_pooling},
    {DML_OPERATOR_MAX_POOLING, reference_pooling, NULL, 0.0, false, true},
    {DML_OPERATOR_MAX_POOLING1, reference_pooling, NULL, 0.0, false, true},
    {DML_OPERATOR_MAX_POOLING2, reference_pooling, NULL, 0.0, false, true},
};

const struct reference *pooling_reference(DML_OPERATOR_TYPE type)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE(references); ++i)
    {
        if (references[i].type == type)
            return &references[i];
    }
    return NULL;
}
