/*
 * Interface of kernels_glsl/roi.comp (DML_OPERATOR_ROI_POOLING, ROI_ALIGN and ROI_ALIGN1),
 * shared by C (backend_vk/ops/roi.c) and GLSL.
 *
 * One invocation per output element {roi, channel, y, x}, x fastest. The input is
 * {batch, channel, height, width}; a region's corners come from the ROI tensor (POOLING: element
 * 0 of a region is its batch index as a float, then x1, y1, x2, y2; ALIGN: x1, y1, x2, y2 and
 * the batch index from the batch-indices tensor, UINT32 or UINT64). Every tensor goes through
 * its element strides (0 broadcasts). Shapes and modes are specialization constants; the float
 * attributes travel in push constants, so operators that differ only in them share a pipeline
 * (docs/kernels.md, "Specialization vs push constants").
 */
#ifndef VKDML_ROI_INTERFACE_H
#define VKDML_ROI_INTERFACE_H

#define ROI_THREADS 128

#define ROI_MODE_POOLING 0              /* ROI_POOLING: max over whole pixels of a bin */
#define ROI_MODE_ALIGN 1                /* ROI_ALIGN, ROI_ALIGN1: samples interpolated and reduced */

/* The largest sample count per axis of one output element (README, "ROI pooling and ROI align"). */
#define ROI_MAX_SAMPLES 65536u

#define ROI_SPEC_MODE 0                                         /* ROI_MODE_* */
#define ROI_SPEC_TYPE                   (ROI_SPEC_MODE + 1)     /* TIO_TYPE_FLOAT32 or FLOAT16: input, ROIs, output */
#define ROI_SPEC_MAX                    (ROI_SPEC_TYPE + 1)     /* ALIGN: 1 MAX, 0 AVERAGE */
#define ROI_SPEC_NEAREST                (ROI_SPEC_MAX + 1)      /* ALIGN: 1 NEAREST_NEIGHBOR, 0 LINEAR */
#define ROI_SPEC_CORNERS                (ROI_SPEC_NEAREST + 1)  /* ALIGN1's AlignRegionsToCorners */
#define ROI_SPEC_BATCH_TYPE             (ROI_SPEC_CORNERS + 1)  /* ALIGN: TIO_TYPE_UINT32 or UINT64 */
#define ROI_SPEC_COUNT_ELEMENTS         (ROI_SPEC_BATCH_TYPE + 1)       /* output elements */
#define ROI_SPEC_SIZES                  (ROI_SPEC_COUNT_ELEMENTS + 1)   /* 4: batches, channels, height, width */
#define ROI_SPEC_OUT_SIZES              (ROI_SPEC_SIZES + 4)    /* 4: regions, channels, height, width */
#define ROI_SPEC_IN_STRIDES             (ROI_SPEC_OUT_SIZES + 4)
#define ROI_SPEC_OUT_STRIDES            (ROI_SPEC_IN_STRIDES + 4)
#define ROI_SPEC_ROI_STRIDES            (ROI_SPEC_OUT_STRIDES + 4)      /* 2: region, coordinate */
#define ROI_SPEC_BATCH_STRIDE           (ROI_SPEC_ROI_STRIDES + 2)      /* ALIGN: batch indices */
/* Locations: descriptor slot, then the byte offset in the binding as low, high words. */
#define ROI_SPEC_IN_LOCATION            (ROI_SPEC_BATCH_STRIDE + 1)
#define ROI_SPEC_ROI_LOCATION           (ROI_SPEC_IN_LOCATION + 3)
#define ROI_SPEC_BATCH_LOCATION         (ROI_SPEC_ROI_LOCATION + 3)
#define ROI_SPEC_OUT_LOCATION           (ROI_SPEC_BATCH_LOCATION + 3)
#define ROI_SPEC_COUNT                  (ROI_SPEC_OUT_LOCATION + 3)

#ifdef VULKAN

/* Bytes [0, 8): the descriptor table's device address (ops_private.h); then struct roi_push. */
layout(push_constant, std430) uniform RoiPush
{
    uvec2 table;
    vec2 spatial_scale;             /* x, y (POOLING: SpatialScale twice) */
    float input_offset;             /* ALIGN1's InputPixelOffset (ALIGN: 0.5) */
    float output_offset;            /* ALIGN1's OutputPixelOffset (ALIGN: -0.5) */
    float out_of_bounds;            /* OutOfBoundsInputValue */
    uint min_samples, max_samples;  /* per axis, max already at most ROI_MAX_SAMPLES */
} push;

#else

#include <stdint.h>

struct roi_push
{
    float spatial_scale[2];
    float input_offset;
    float output_offset;
    float out_of_bounds;
    uint32_t min_samples, max_samples;
};

#endif

#endif /* VKDML_ROI_INTERFACE_H */
