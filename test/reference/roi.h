/*
 * ROI_POOLING, ROI_ALIGN and ROI_ALIGN1 on the CPU, by the rules of README's "ROI pooling and
 * ROI align" (what kernels_glsl/roi.comp computes, in the same fp32 steps): test/ops/test_roi.c
 * and vkdml-bench's --check share it.
 */
#ifndef VKDML_REFERENCE_ROI_H
#define VKDML_REFERENCE_ROI_H

#include <stdbool.h>
#include <stdint.h>

/* roi.comp's ROI_MAX_SAMPLES: the sample count per axis is at most this. */
#define REF_ROI_MAX_SAMPLES 65536u

struct ref_roi_params
{
    bool pooling;                       /* ROI_POOLING (scale_x is SpatialScale), else ROI_ALIGN(1) */
    uint32_t batches, height, width;    /* the input's sizes but channels */
    uint32_t out_h, out_w;
    bool reduce_max, nearest, corners;  /* ALIGN: MAX (else AVERAGE), NEAREST_NEIGHBOR (else LINEAR) */
    float scale_x, scale_y, input_offset, output_offset, out_of_bounds;
    uint32_t min_samples, max_samples;
};

/* The input element (batch, y, x) of the caller's channel. */
typedef float ref_roi_input_fn(const void *context, uint32_t batch, uint32_t y, uint32_t x);

/* Output element (y, x) of a region: `roi` is {batch, x1, y1, x2, y2} (POOLING) or {x1, y1, x2,
 * y2} with `batch` its batch index (ALIGN), as stored. */
float ref_roi_value(const struct ref_roi_params *p, const float *roi, uint64_t batch, uint32_t y, uint32_t x,
        ref_roi_input_fn *input, const void *context);

#endif /* VKDML_REFERENCE_ROI_H */
