/*
 * vkdml-bench's workloads of the mean-variance and Lp normalizations (issue 20):
 * MEAN_VARIANCE_NORMALIZATION, MVN1, MVN2 and LP_NORMALIZATION, their family (tensors and
 * attributes from a shape) and CPU references.
 *
 * Shapes are the input's, DxDx...[kK][:AXES], the axes reduced (default the last: layer
 * normalization). MVN1 and MVN2 get a scale and a bias: without kK over the reduced axes (layer
 * normalization's weights), with kK over axes 1 to K (k1: per channel, instance normalization of
 * NxCxHxW:2,3; k2: group normalization of NxGx(C/G)x(HW):2,3, PyTorch's per-channel weights).
 * MEAN_VARIANCE_NORMALIZATION takes NxCxHxW, :2,3 (the default) or :1,2,3 (CrossChannel), per
 * channel scale and bias; LP_NORMALIZATION one axis, kP its P (default 2). Epsilon 1e-5, both
 * MVN2 flags set, no fused activation.
 */
#include "operators.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FLOAT_TYPES ((1u << FP32) | (1u << FP16))
#define EPSILON 1e-5f

static bool is_lp(const struct workload *w)
{
    return w->op->type == DML_OPERATOR_LP_NORMALIZATION;
}

static void set_epsilon(struct workload *w)
{
    float epsilon = EPSILON;

    memcpy(w->desc.bytes + field_named(w->op->schema, "Epsilon")->offset, &epsilon, sizeof(epsilon));
}

/* MEAN_VARIANCE_NORMALIZATION's axes: {2, 3} (the default) or {1, 2, 3} (CrossChannel). */
static const char *mvn_axes(struct workload *w)
{
    if (w->dim_count != 4)
        return "MEAN_VARIANCE_NORMALIZATION shapes are NxCxHxW";
    if (!w->axis_count)
    {
        w->axes[0] = 2;
        w->axes[1] = 3;
        w->axis_count = 2;
    }
    if (w->axis_count == 3 && w->axes[0] == 1 && w->axes[1] == 2 && w->axes[2] == 3)
        set_uint_field(w, "CrossChannel", 1);
    else if (w->axis_count != 2 || w->axes[0] != 2 || w->axes[1] != 3)
        return "MEAN_VARIANCE_NORMALIZATION reduces :2,3 or :1,2,3 (CrossChannel)";
    if (w->k > 1)
        return "MEAN_VARIANCE_NORMALIZATION's scale and bias are per channel (k1)";
    w->k = 1;
    return NULL;
}

static bool is_reduced(const struct workload *w, UINT axis)
{
    UINT i;

    for (i = 0; i < w->axis_count; ++i)
    {
        if (w->axes[i] == axis)
            return true;
    }
    return false;
}

static const char *build_lp(struct workload *w)
{
    const char *why = reduction_axes(w);

    if (why)
        return why;
    if (w->axis_count != 1)
        return "LP_NORMALIZATION takes one axis";
    if (w->k > 2)
        return "LP_NORMALIZATION's P (kP) is 1 or 2";
    set_uint_field(w, "Axis", w->axes[0]);
    set_uint_field(w, "P", w->k ? w->k : 2);
    return NULL;
}

static const char *build_mvn(struct workload *w)
{
    UINT sizes[MAX_RANK], i;
    const char *why;

    if (w->op->type == DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION && (why = mvn_axes(w)))
        return why;
    if ((why = reduction_axes(w)))
        return why;
    if (w->k >= w->dim_count)
        return "kK: scale and bias over axes 1 to K, fewer than the shape's";
    tensor_init(&w->inputs[0], w->type, w->dim_count, w->dims, NULL);
    tensor_init(&w->output, w->type, w->dim_count, w->dims, NULL);
    set_epsilon(w);
    if (is_lp(w))
        return build_lp(w);
    for (i = 0; i < w->dim_count; ++i)
        sizes[i] = (w->k ? i >= 1 && i <= w->k : is_reduced(w, i)) ? w->dims[i] : 1;
    tensor_init(&w->inputs[1], w->type, w->dim_count, sizes, NULL);
    tensor_init(&w->inputs[2], w->type, w->dim_count, sizes, NULL);
    set_array_field(w, "Axes", w->axes, w->axis_count);
    set_uint_field(w, "NormalizeVariance", 1);
    set_uint_field(w, "UseMean", 1);
    set_uint_field(w, "UseVariance", 1);
    return NULL;
}

/* ---- Reference ---- */

/* Row-major coordinates of element `index` of the (packed) input. */
static void coordinates_of(const struct tensor *t, UINT64 index, UINT64 *c)
{
    int d;

    for (d = (int)t->rank - 1; d >= 0; --d)
    {
        c[d] = index % t->sizes[d];
        index /= t->sizes[d];
    }
}

/* The packed offset of coordinates `c` in `t`, its dimensions of size 1 broadcast. */
static UINT64 broadcast_offset(const struct tensor *t, const UINT64 *c)
{
    UINT64 offset = 0, packed = 1;
    int d;

    for (d = (int)t->rank - 1; d >= 0; --d)
    {
        offset += (t->sizes[d] == 1 ? 0 : c[d]) * packed;
        packed *= t->sizes[d];
    }
    return offset;
}

/* The sums of the row of element `index` (x, x^2 about `center`, |x|) and its length. */
static UINT64 row_sums(const struct workload *w, const float *x, UINT64 index, double center, double *sum,
        double *squares, double *magnitude)
{
    const struct tensor *in = &w->inputs[0];
    UINT64 c[MAX_RANK], count = 1, j, rest;
    double v;
    int d;

    coordinates_of(in, index, c);
    for (d = 0; d < (int)in->rank; ++d)
        count *= is_reduced(w, d) ? in->sizes[d] : 1;
    *sum = *squares = *magnitude = 0.0;
    for (j = 0; j < count; ++j)
    {
        for (d = (int)in->rank - 1, rest = j; d >= 0; --d)
        {
            if (!is_reduced(w, d))
                continue;
            c[d] = rest % in->sizes[d];
            rest /= in->sizes[d];
        }
        v = x[broadcast_offset(in, c)];
        *sum += v;
        *squares += (v - center) * (v - center);
        *magnitude += fabs(v);
    }
    return count;
}

static double reference_mvn(const struct workload *w, float *const *inputs, UINT output, UINT64 index,
        double *tolerance)
{
    double sum, squares, magnitude, mean, x = inputs[0][index], value, norm, scale, bias;
    UINT64 count = row_sums(w, inputs[0], index, 0.0, &sum, &squares, &magnitude), c[MAX_RANK];

    if (is_lp(w))
    {
        norm = w->k == 1 ? magnitude : sqrt(squares);
        value = x / (norm < EPSILON ? EPSILON : norm);
        *tolerance = 1e-5 * (fabs(value) + 1e-3);
        return output_rounding(w, value, tolerance);
    }
    mean = sum / count;
    row_sums(w, inputs[0], index, mean, &sum, &squares, &magnitude);
    coordinates_of(&w->inputs[0], index, c);
    scale = inputs[1][broadcast_offset(&w->inputs[1], c)];
    bias = inputs[2][broadcast_offset(&w->inputs[2], c)];
    value = (x - mean) / sqrt(squares / count + EPSILON) * scale + bias;
    *tolerance = 1e-5 * (fabs(value) + 1.0);
    return output_rounding(w, value, tolerance);
}

/* ---- The family ---- */

static const struct family mvn =
{
    "mvn", "DxDx...[kK][:AXES] (reduced AXES, default last; scale and bias over AXES, or over axes 1 to K; "
    "LP_NORMALIZATION: one axis, kP)", "8192x8192", "7x33", false, true, build_mvn, FLOAT_TYPES,
    SUFFIX_K | SUFFIX_AXES, NULL,
};
/* MEAN_VARIANCE_NORMALIZATION: 4-D only. */
static const struct family mvn_4d =
{
    "mvn-4d", "NxCxHxW[:2,3|:1,2,3] (per channel, default; or CrossChannel)", "32x256x56x56", "2x3x5x7", false, true,
    build_mvn, FLOAT_TYPES, SUFFIX_K | SUFFIX_AXES, NULL,
};

static const char *const names[] =
{
    "MEAN_VARIANCE_NORMALIZATION1", "MEAN_VARIANCE_NORMALIZATION2", "LP_NORMALIZATION",
};

const struct family *mvn_family(const char *schema_name)
{
    size_t i;

    if (!strcmp(schema_name, "MEAN_VARIANCE_NORMALIZATION"))
        return &mvn_4d;
    for (i = 0; i < ARRAY_SIZE(names); ++i)
    {
        if (!strcmp(names[i], schema_name))
            return &mvn;
    }
    return NULL;
}

static const struct reference references[] =
{
    {DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION, reference_mvn},
    {DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1, reference_mvn},
    {DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION2, reference_mvn},
    {DML_OPERATOR_LP_NORMALIZATION, reference_mvn},
};

const struct reference *mvn_reference(DML_OPERATOR_TYPE type)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE(references); ++i)
    {
        if (references[i].type == type)
            return &references[i];
    }
    return NULL;
}
