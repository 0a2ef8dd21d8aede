/*
 * vkdml-bench's workloads of issue 20's normalization and unpooling operators:
 * BATCH_NORMALIZATION (per-channel parameters, as a CNN has them), LOCAL_RESPONSE_NORMALIZATION
 * (across channels, AlexNet's attributes) and MAX_UNPOOLING (2x2 windows, the maximum's index
 * spread over the window): their families (tensors and attributes from a shape) and CPU
 * references. The descs follow DirectML's pages; test/ops checks the corner cases.
 */
#include "operators.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FLOAT_TYPES ((1u << FP32) | (1u << FP16))
#define MOVED_TYPES (0x0ffeu & ~(1u << DML_TENSOR_DATA_TYPE_FLOAT64))  /* MAX_UNPOOLING's: no FLOAT64 */
#define BN_EPSILON 1e-5f
#define LRN_SIZE 5
#define LRN_ALPHA 1e-4f
#define LRN_BETA 0.75f
#define LRN_BIAS 1.0f

static void set_float_field(struct workload *w, const char *name, FLOAT value)
{
    const struct vkdml_field_schema *field = field_named(w->op->schema, name);

    if (field)
        *(FLOAT *)(w->desc.bytes + field->offset) = value;
}

/* The channel of element `index` (dimension 1; the only one of a 1-D tensor). */
static UINT64 channel_of(const struct tensor *t, UINT64 index)
{
    UINT64 inner = 1;
    UINT d;

    if (t->rank == 1)
        return index;
    for (d = 2; d < t->rank; ++d)
        inner *= t->sizes[d];
    return index / inner % t->sizes[1];
}

/* ---- BATCH_NORMALIZATION ---- */

/* The input's shape; Mean, Variance, Scale and Bias per channel {1, C, 1, ...}. */
static const char *build_batch_norm(struct workload *w)
{
    UINT sizes[MAX_RANK], d, i;

    if (w->dim_count > MAX_RANK)
        return "BATCH_NORMALIZATION shapes have 1 to 8 dimensions";
    for (d = 0; d < w->dim_count; ++d)
        sizes[d] = d == (w->dim_count > 1 ? 1u : 0u) ? w->dims[d] : 1;
    tensor_init(&w->inputs[0], w->type, w->dim_count, w->dims, NULL);
    for (i = 1; i <= 4; ++i)
        tensor_init(&w->inputs[i], w->type, w->dim_count, sizes, NULL);
    tensor_init(&w->output, w->type, w->dim_count, w->dims, NULL);
    set_uint_field(w, "Spatial", 1);
    set_float_field(w, "Epsilon", BN_EPSILON);
    return NULL;
}

/* Variances are not negative. */
static bool batch_norm_values(const struct workload *w, UINT input, float *values, size_t count)
{
    float *random;
    size_t i;

    if (input != 2 || !(random = random_values(count, w->type, 0x5eedu)))
        return false;
    for (i = 0; i < count; ++i)
        values[i] = fabsf(random[i]);
    free(random);
    return true;
}

static double reference_batch_norm(const struct workload *w, float *const *inputs, UINT output, UINT64 index,
        double *tolerance)
{
    UINT64 c = channel_of(&w->inputs[0], index);
    double x = inputs[0][index], mean = inputs[1][c], a = inputs[3][c] / sqrt(inputs[2][c] + (double)BN_EPSILON);
    double value = (x - mean) * a + inputs[4][c];

    *tolerance = 4e-7 * ((fabs(x) + fabs(mean)) * fabs(a) + fabs(inputs[4][c])) + 1e-6;
    return output_rounding(w, value, tolerance);
}

/* ---- LOCAL_RESPONSE_NORMALIZATION ---- */

static const char *build_lrn(struct workload *w)
{
    if (w->dim_count != 4)
        return "LOCAL_RESPONSE_NORMALIZATION shapes are NxCxHxW";
    tensor_init(&w->inputs[0], w->type, 4, w->dims, NULL);
    tensor_init(&w->output, w->type, 4, w->dims, NULL);
    set_uint_field(w, "CrossChannel", 1);
    set_uint_field(w, "LocalSize", LRN_SIZE);
    set_float_field(w, "Alpha", LRN_ALPHA);
    set_float_field(w, "Beta", LRN_BETA);
    set_float_field(w, "Bias", LRN_BIAS);
    return NULL;
}

static double reference_lrn(const struct workload *w, float *const *inputs, UINT output, UINT64 index,
        double *tolerance)
{
    const UINT *sizes = w->inputs[0].sizes;
    UINT64 plane = (UINT64)sizes[2] * sizes[3], c = index / plane % sizes[1], first, last, i;
    double sum = 0.0, x, value;

    first = c >= (LRN_SIZE - 1) / 2 ? c - (LRN_SIZE - 1) / 2 : 0;
    last = c + LRN_SIZE / 2 < sizes[1] ? c + LRN_SIZE / 2 : sizes[1] - 1;
    for (i = first; i <= last; ++i)
    {
        x = inputs[0][index + (i - c) * plane];
        sum += x * x;
    }
    value = inputs[0][index] / pow(LRN_BIAS + LRN_ALPHA / LRN_SIZE * sum, LRN_BETA);
    *tolerance = 4e-6 * fabs(value) + 1e-7;
    return output_rounding(w, value, tolerance);
}

/* ---- MAX_UNPOOLING ---- */

/* The shape is the output's, NxCxHxW with even H and W; the input and the indices ("@TYPE",
 * uint32 or uint64) are NxCx(H/2)x(W/2), each index in its 2x2 window (bench_values). */
static const char *build_unpooling(struct workload *w)
{
    UINT sizes[4] = {w->dims[0], w->dims[1], w->dims[2] / 2, w->dims[3] / 2};
    DML_TENSOR_DATA_TYPE type = w->other_type ? w->other_type : DML_TENSOR_DATA_TYPE_UINT32;

    if (w->dim_count != 4 || w->dims[2] % 2 || w->dims[3] % 2)
        return "MAX_UNPOOLING shapes are NxCxHxW (the output) with even H and W";
    if (type != DML_TENSOR_DATA_TYPE_UINT32 && type != DML_TENSOR_DATA_TYPE_UINT64)
        return "the index type (@TYPE) is uint32 or uint64";
    tensor_init(&w->inputs[0], w->type, 4, sizes, NULL);
    tensor_init(&w->inputs[1], type, 4, sizes, NULL);
    tensor_init(&w->output, w->type, 4, w->dims, NULL);
    return NULL;
}

/* Input element i of the pooled NxCxhxw input names element (2y + i % 2, 2x + i / 2 % 2) of its
 * window in the output. The bench keeps input values in floats: --check needs fewer than 2^24
 * outputs (the default shape has 6.4 M). */
static UINT64 unpooled_index(const struct workload *w, UINT64 i)
{
    const UINT *out = w->output.sizes, *in = w->inputs[0].sizes;
    UINT64 x = i % in[3], y = i / in[3] % in[2], plane = i / ((UINT64)in[2] * in[3]);

    return (plane * out[2] + 2 * y + i % 2) * out[3] + 2 * x + i / 2 % 2;
}

static bool unpooling_values(const struct workload *w, UINT input, float *values, size_t count)
{
    size_t i;

    if (input != 1)
        return false;
    for (i = 0; i < count; ++i)
        values[i] = (float)unpooled_index(w, i);
    return true;
}

static double reference_unpooling(const struct workload *w, float *const *inputs, UINT output, UINT64 index,
        double *tolerance)
{
    const UINT *out = w->output.sizes, *in = w->inputs[0].sizes;
    UINT64 x = index % out[3], y = index / out[3] % out[2], plane = index / ((UINT64)out[2] * out[3]);
    UINT64 source = (plane * in[2] + y / 2) * in[3] + x / 2;

    *tolerance = 0.0;
    return y / 2 < in[2] && x / 2 < in[3] && inputs[1][source] == (float)index ? inputs[0][source] : 0.0;
}

/* ---- The families and references ---- */

static const struct family batch_norm =
{
    "batch_norm", "DxDx... (the input, 1 to 8 dimensions; per-channel parameters along the second)",
    "32x256x56x56", "2x3x5x8", false, false, build_batch_norm, FLOAT_TYPES, 0, batch_norm_values,
};
static const struct family lrn =
{
    "lrn", "NxCxHxW (across channels, LocalSize 5)", "32x64x56x56", "2x7x5x6", false, false, build_lrn,
    FLOAT_TYPES, 0, NULL,
};
static const struct family unpooling =
{
    "unpooling", "NxCxHxW[@ITYPE] (the output, H and W even; 2x2 windows; ITYPE uint32 or uint64)",
    "8x64x112x112", "2x3x6x10", false, false, build_unpooling, MOVED_TYPES, SUFFIX_TYPE, unpooling_values,
};

const struct family *normalization_family(const char *schema_name)
{
    if (!strcmp(schema_name, "BATCH_NORMALIZATION"))
        return &batch_norm;
    if (!strcmp(schema_name, "LOCAL_RESPONSE_NORMALIZATION"))
        return &lrn;
    if (!strcmp(schema_name, "MAX_UNPOOLING"))
        return &unpooling;
    return NULL;
}

static const struct reference references[] =
{
    {DML_OPERATOR_BATCH_NORMALIZATION, reference_batch_norm},
    {DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION, reference_lrn},
    {DML_OPERATOR_MAX_UNPOOLING, reference_unpooling, NULL, 0.0, true},
};

const struct reference *normalization_reference(DML_OPERATOR_TYPE type)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE(references); ++i)
    {
        if (references[i].type == type)
            return &references[i];
    }
    return NULL;
}
