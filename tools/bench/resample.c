/*
 * vkdml-bench's workloads of the resampling operators (issue 20): UPSAMPLE_2D, RESAMPLE,
 * RESAMPLE1, RESAMPLE2 and RESAMPLE3 scale the last two dimensions of NxCxHxW by an integer K
 * (default 2), and their CPU references.
 *
 * Nearest (--mode nearest-neighbor, the default) is PyTorch's F.interpolate(mode="nearest") where
 * the operator has the offsets and a rounding direction (RESAMPLE1/2/3: asymmetric, floor); linear
 * (--mode linear) is PyTorch's bilinear with align_corners=False (half-pixel offsets). UPSAMPLE_2D
 * and RESAMPLE take DirectML's pixel centres (README "Resampling"). The bytes that must move are
 * the input read once and the output written once.
 */
#include "operators.h"

#include <math.h>
#include <string.h>

#define FLOAT_TYPES ((1u << FP32) | (1u << FP16))
#define NEAREST_TYPES (FLOAT_TYPES | (1u << DML_TENSOR_DATA_TYPE_INT8) | (1u << UINT8))

/* The desc arrays live in the workload's FLOAT array (VALUE_SCALE_2D's Bias elsewhere). */
#define SCALES 0
#define INPUT_OFFSETS 4
#define OUTPUT_OFFSETS 8

static bool is_linear(const struct workload *w)
{
    return w->mode == DML_INTERPOLATION_MODE_LINEAR;
}

/* The operators with offsets: RESAMPLE1, RESAMPLE2, RESAMPLE3. */
static bool has_offsets(const struct workload *w)
{
    return w->op->type != DML_OPERATOR_UPSAMPLE_2D && w->op->type != DML_OPERATOR_RESAMPLE;
}

static const char *build_resample(struct workload *w)
{
    UINT scale = w->k ? w->k : 2, sizes[4], d;
    bool linear = is_linear(w);

    if (w->dim_count != 4)
        return "resampling shapes are NxCxHxW";
    if (!linear && w->type != FP32 && w->type != FP16 && w->op->type == DML_OPERATOR_UPSAMPLE_2D)
        return "UPSAMPLE_2D takes FLOAT32 and FLOAT16";
    if (linear && w->type != FP32 && w->type != FP16)
        return "linear resampling takes FLOAT32 and FLOAT16";
    for (d = 0; d < 4; ++d)
    {
        sizes[d] = w->dims[d] * (d >= 2 ? scale : 1);
        w->bias[SCALES + d] = d >= 2 ? (FLOAT)scale : 1.0f;
        w->bias[INPUT_OFFSETS + d] = linear ? 0.5f : 0.0f;
        w->bias[OUTPUT_OFFSETS + d] = linear ? -0.5f : 0.0f;
    }
    tensor_init(&w->inputs[0], w->type, 4, w->dims, NULL);
    tensor_init(&w->output, w->type, 4, sizes, NULL);
    if (w->op->type == DML_OPERATOR_UPSAMPLE_2D)
    {
        DML_UPSAMPLE_2D_OPERATOR_DESC *desc = (DML_UPSAMPLE_2D_OPERATOR_DESC *)w->desc.bytes;

        desc->ScaleSize.Width = desc->ScaleSize.Height = scale;
        return NULL;
    }
    set_array_field(w, "Scales", &w->bias[SCALES], 4);
    set_array_field(w, "InputPixelOffsets", &w->bias[INPUT_OFFSETS], 4);
    set_array_field(w, "OutputPixelOffsets", &w->bias[OUTPUT_OFFSETS], 4);
    set_uint_field(w, "RoundingDirection", DML_AXIS_DIRECTION_DECREASING);
    set_uint_field(w, "Antialiased", FALSE);
    return NULL;
}

/* Output coordinate x's input coordinate along a scaled dimension, in fp32 as the kernel has it. */
static float input_coordinate(const struct workload *w, UINT d, UINT x)
{
    double scale = w->bias[SCALES + d], ipo = 0.5, opo = -0.5;
    float inverse, bias;

    if (has_offsets(w))
        ipo = w->bias[INPUT_OFFSETS + d], opo = w->bias[OUTPUT_OFFSETS + d];
    inverse = (float)(1.0 / scale);
    bias = (float)(-opo / scale - ipo + (!is_linear(w) && w->op->type != DML_OPERATOR_RESAMPLE2
            && w->op->type != DML_OPERATOR_RESAMPLE3 ? 0.5 : 0.0));
    return (float)x * inverse + bias;
}

static UINT clamped(double index, UINT size)
{
    return index < 0.0 ? 0 : index >= size ? size - 1 : (UINT)index;
}

static double reference_resample(const struct workload *w, float *const *inputs, UINT output, UINT64 index,
        double *tolerance)
{
    UINT i0[4], i1[4], d, corner;
    double frac[4], value = 0.0, weight;
    UINT64 rest = index, offset;

    for (d = 4; d-- > 0;)
    {
        float coordinate = input_coordinate(w, d, (UINT)(rest % w->output.sizes[d]));

        rest /= w->output.sizes[d];
        frac[d] = coordinate - floorf(coordinate);
        i0[d] = clamped(floorf(coordinate), w->inputs[0].sizes[d]);
        i1[d] = is_linear(w) ? clamped(floorf(coordinate) + 1.0, w->inputs[0].sizes[d]) : i0[d];
    }
    *tolerance = 0.0;
    if (!is_linear(w))
        return inputs[0][tensor_offset(&w->inputs[0], ((i0[0] * (UINT64)w->dims[1] + i0[1]) * w->dims[2] + i0[2])
                * w->dims[3] + i0[3])];
    for (corner = 0; corner < 16; ++corner)
    {
        offset = 0;
        weight = 1.0;
        for (d = 0; d < 4; ++d)
        {
            bool high = corner >> (3 - d) & 1;

            offset = offset * w->dims[d] + (high ? i1[d] : i0[d]);
            weight *= high ? frac[d] : 1.0 - frac[d];
        }
        if (weight != 0.0)
            value += weight * inputs[0][tensor_offset(&w->inputs[0], offset)];
    }
    *tolerance = 1e-5;
    return output_rounding(w, value, tolerance);
}

static const struct family resample =
{
    "resample", "NxCxHxW[kSCALE] (H and W scaled by SCALE, default 2; --mode nearest-neighbor or linear)",
    "32x64x112x112", "2x3x5x7", false, false, build_resample, NEAREST_TYPES, SUFFIX_K, NULL,
};

const struct family *resample_family(const char *schema_name)
{
    static const char *const names[] = {"UPSAMPLE_2D", "RESAMPLE", "RESAMPLE1", "RESAMPLE2", "RESAMPLE3"};
    size_t i;

    for (i = 0; i < ARRAY_SIZE(names); ++i)
    {
        if (!strcmp(names[i], schema_name))
            return &resample;
    }
    return NULL;
}

/* Exact for nearest in every type (it moves elements); linear takes floats only. */
#define RESAMPLER(op) {DML_OPERATOR_##op, reference_resample, NULL, 0.0, true, false}
static const struct reference references[] =
{
    RESAMPLER(UPSAMPLE_2D),
    RESAMPLER(RESAMPLE),
    RESAMPLER(RESAMPLE1),
    RESAMPLER(RESAMPLE2),
    RESAMPLER(RESAMPLE3),
};
#undef RESAMPLER

const struct reference *resample_reference(DML_OPERATOR_TYPE type)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE(references); ++i)
    {
        if (references[i].type == type)
            return &references[i];
    }
    return NULL;
}
