/*
 * ROI_POOLING, ROI_ALIGN and ROI_ALIGN1 on the CPU (roi.h): kernels_glsl/roi.comp's steps in fp32.
 */
#include "roi.h"

#include <math.h>

static float max_nan(float current, float value)
{
    return isnan(value) || value > current ? value : current;
}

/* ---- POOLING ---- */

/* C's round(), kept within [-2^29, 2^29]. */
static int pool_coordinate(float value)
{
    return (int)fminf(fmaxf(roundf(value), -536870912.0f), 536870912.0f);
}

/* [bin[0], bin[1]): floor(index * size / bins) and ceil((index + 1) * size / bins) from `start`,
 * clamped to [0, limit]. */
static void pool_bin(uint32_t index, uint32_t bins, int size, int start, uint32_t limit, int bin[2])
{
    int64_t first = (int64_t)index * size / bins + start;
    int64_t last = ((int64_t)(index + 1) * size + bins - 1) / bins + start;

    bin[0] = (int)(first < 0 ? 0 : first > limit ? limit : first);
    bin[1] = (int)(last < 0 ? 0 : last > limit ? limit : last);
}

static float pool(const struct ref_roi_params *p, const float *roi, uint32_t y, uint32_t x,
        ref_roi_input_fn *input, const void *context)
{
    int rounded[4], rows[2], columns[2], i, j;
    float result = -INFINITY, corner;

    for (i = 0; i < 4; ++i)
    {
        corner = roi[i + 1] * p->scale_x;
        if (isnan(corner))
            return 0.0f;
        rounded[i] = pool_coordinate(corner);
    }
    if (!(roi[0] >= 0.0f && roi[0] < (float)p->batches))
        return 0.0f;
    pool_bin(y, p->out_h, rounded[3] - rounded[1] + 1 > 1 ? rounded[3] - rounded[1] + 1 : 1, rounded[1],
            p->height, rows);
    pool_bin(x, p->out_w, rounded[2] - rounded[0] + 1 > 1 ? rounded[2] - rounded[0] + 1 : 1, rounded[0],
            p->width, columns);
    if (rows[0] >= rows[1] || columns[0] >= columns[1])
        return 0.0f;
    for (i = rows[0]; i < rows[1]; ++i)
    {
        for (j = columns[0]; j < columns[1]; ++j)
            result = max_nan(result, input(context, (uint32_t)roi[0], i, j));
    }
    return result;
}

/* ---- ALIGN ---- */

static uint32_t sample_count(const struct ref_roi_params *p, float size, uint32_t outputs)
{
    uint32_t max = p->max_samples < REF_ROI_MAX_SAMPLES ? p->max_samples : REF_ROI_MAX_SAMPLES;
    uint32_t min = p->min_samples < max ? p->min_samples : max, count;
    float wanted = ceilf(fabsf(size) / (float)outputs);

    count = wanted >= (float)max ? max : wanted >= (float)min ? (uint32_t)wanted : min;
    return count ? count : 1;
}

static float sample_position(const struct ref_roi_params *p, float start, float size, uint32_t outputs,
        uint32_t samples, uint32_t index, uint32_t which)
{
    float row = (float)outputs * (float)samples, step;

    if (p->corners && row <= 1.0f)
        return start + 0.5f * size - p->input_offset;
    step = size / (p->corners ? row - 1.0f : row);
    return start + ((float)index * (float)samples + (float)which - p->output_offset) * step - p->input_offset;
}

static float interpolate(const struct ref_roi_params *p, uint32_t batch, float y, float x,
        ref_roi_input_fn *input, const void *context)
{
    uint32_t h = p->height, w = p->width, y0, x0, y1, x1;
    float ly, lx, hy, hx;

    if (!(y >= -1.0f && y <= (float)h && x >= -1.0f && x <= (float)w))
        return p->out_of_bounds;
    y = fminf(fmaxf(y, 0.0f), (float)(h - 1));
    x = fminf(fmaxf(x, 0.0f), (float)(w - 1));
    if (p->nearest)
    {
        y0 = (uint32_t)floorf(y + 0.5f);
        x0 = (uint32_t)floorf(x + 0.5f);
        return input(context, batch, y0 < h ? y0 : h - 1, x0 < w ? x0 : w - 1);
    }
    y0 = (uint32_t)y, x0 = (uint32_t)x;
    y1 = y0 + 1 < h ? y0 + 1 : h - 1;
    x1 = x0 + 1 < w ? x0 + 1 : w - 1;
    ly = y - (float)y0, lx = x - (float)x0;
    hy = 1.0f - ly, hx = 1.0f - lx;
    return hy * hx * input(context, batch, y0, x0) + hy * lx * input(context, batch, y0, x1)
            + ly * hx * input(context, batch, y1, x0) + ly * lx * input(context, batch, y1, x1);
}

static float align(const struct ref_roi_params *p, const float *roi, uint64_t batch, uint32_t y, uint32_t x,
        ref_roi_input_fn *input, const void *context)
{
    float x1 = roi[0] * p->scale_x, y1 = roi[1] * p->scale_y;
    float width = roi[2] * p->scale_x - x1, height = roi[3] * p->scale_y - y1, value, sy;
    uint32_t rows = sample_count(p, height, p->out_h), columns = sample_count(p, width, p->out_w), i, j;
    float result = p->reduce_max ? -INFINITY : 0.0f;

    if (batch >= p->batches)
        return p->out_of_bounds;
    for (i = 0; i < rows; ++i)
    {
        sy = sample_position(p, y1, height, p->out_h, rows, y, i);
        for (j = 0; j < columns; ++j)
        {
            value = interpolate(p, (uint32_t)batch, sy, sample_position(p, x1, width, p->out_w, columns, x, j),
                    input, context);
            result = p->reduce_max ? max_nan(result, value) : result + value;
        }
    }
    return p->reduce_max ? result : result / ((float)rows * (float)columns);
}

float ref_roi_value(const struct ref_roi_params *p, const float *roi, uint64_t batch, uint32_t y, uint32_t x,
        ref_roi_input_fn *input, const void *context)
{
    return p->pooling ? pool(p, roi, y, x, input, context) : align(p, roi, batch, y, x, input, context);
}
