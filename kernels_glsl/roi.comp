#version 460
#extension GL_GOOGLE_include_directive : require
/*
 * DML_OPERATOR_ROI_POOLING, ROI_ALIGN and ROI_ALIGN1 (roi_interface.h): one invocation per
 * output element, consecutive invocations on consecutive x of one output row, so stores are
 * coalesced and neighbouring invocations read neighbouring input pixels of the same region
 * (the region's values are the same for the whole row: one cached read each). fp32 arithmetic
 * for both FLOAT32 and FLOAT16 tensors. The rules are README's "ROI pooling and ROI align":
 *
 * POOLING: the corners rounded half away from zero after SpatialScale, the region at least one
 * pixel; bin edges by integer division (floor for the start, ceiling for the end, DirectML's
 * formulas), clamped to the image; the max of the bin's pixels (NaN propagates), 0 when the bin
 * is empty or the region's batch index or corners are unusable.
 *
 * ALIGN: per axis ceil(|region| / output size) samples, clamped to [min, max] and at least 1, at
 * x1 + (sample - OutputPixelOffset) * step - InputPixelOffset with step = region / samples in
 * the row (AlignRegionsToCorners: / (samples - 1)); a sample outside [-1, size] reads
 * OutOfBoundsInputValue, inside it the position is clamped to the image and read nearest
 * (floor(x + 0.5)) or bilinearly; the samples averaged or their max taken.
 *
 * Variants (kernels_glsl/meson.build, typed_kernels): 16-bit storage for FLOAT16; UINT64 batch
 * indices are read as words (indices.glsl), which needs no int64 variant.
 */
#include "common.glsl"
#include "dml_interface.h"
#include "tensor_io.glsl"
#include "indices.glsl"
#include "roi_interface.h"

layout(local_size_x = ROI_THREADS, local_size_y = 1, local_size_z = 1) in;

layout(constant_id = ROI_SPEC_MODE) const uint MODE = ROI_MODE_ALIGN;
layout(constant_id = ROI_SPEC_TYPE) const uint TYPE = TIO_TYPE_FLOAT32;
layout(constant_id = ROI_SPEC_MAX) const bool REDUCE_MAX = false;
layout(constant_id = ROI_SPEC_NEAREST) const bool NEAREST = false;
layout(constant_id = ROI_SPEC_CORNERS) const bool CORNERS = false;
layout(constant_id = ROI_SPEC_BATCH_TYPE) const uint BATCH_TYPE = TIO_TYPE_UINT32;
layout(constant_id = ROI_SPEC_COUNT_ELEMENTS) const uint COUNT = 1;
layout(constant_id = ROI_SPEC_SIZES + 0) const uint BATCHES = 1;
layout(constant_id = ROI_SPEC_SIZES + 1) const uint CHANNELS = 1;
layout(constant_id = ROI_SPEC_SIZES + 2) const uint IN_H = 1;
layout(constant_id = ROI_SPEC_SIZES + 3) const uint IN_W = 1;
layout(constant_id = ROI_SPEC_OUT_SIZES + 0) const uint REGIONS = 1;
layout(constant_id = ROI_SPEC_OUT_SIZES + 1) const uint OUT_C = 1;
layout(constant_id = ROI_SPEC_OUT_SIZES + 2) const uint OUT_H = 1;
layout(constant_id = ROI_SPEC_OUT_SIZES + 3) const uint OUT_W = 1;
layout(constant_id = ROI_SPEC_IN_STRIDES + 0) const uint IN_STRIDE_N = 0;
layout(constant_id = ROI_SPEC_IN_STRIDES + 1) const uint IN_STRIDE_C = 0;
layout(constant_id = ROI_SPEC_IN_STRIDES + 2) const uint IN_STRIDE_H = 0;
layout(constant_id = ROI_SPEC_IN_STRIDES + 3) const uint IN_STRIDE_W = 1;
layout(constant_id = ROI_SPEC_OUT_STRIDES + 0) const uint OUT_STRIDE_N = 0;
layout(constant_id = ROI_SPEC_OUT_STRIDES + 1) const uint OUT_STRIDE_C = 0;
layout(constant_id = ROI_SPEC_OUT_STRIDES + 2) const uint OUT_STRIDE_H = 0;
layout(constant_id = ROI_SPEC_OUT_STRIDES + 3) const uint OUT_STRIDE_W = 1;
layout(constant_id = ROI_SPEC_ROI_STRIDES + 0) const uint ROI_STRIDE_N = 0;
layout(constant_id = ROI_SPEC_ROI_STRIDES + 1) const uint ROI_STRIDE_K = 1;
layout(constant_id = ROI_SPEC_BATCH_STRIDE) const uint BATCH_STRIDE = 1;
layout(constant_id = ROI_SPEC_IN_LOCATION + 0) const uint IN_SLOT = 0;
layout(constant_id = ROI_SPEC_IN_LOCATION + 1) const uint IN_OFFSET_LO = 0;
layout(constant_id = ROI_SPEC_IN_LOCATION + 2) const uint IN_OFFSET_HI = 0;
layout(constant_id = ROI_SPEC_ROI_LOCATION + 0) const uint ROI_SLOT = 0;
layout(constant_id = ROI_SPEC_ROI_LOCATION + 1) const uint ROI_OFFSET_LO = 0;
layout(constant_id = ROI_SPEC_ROI_LOCATION + 2) const uint ROI_OFFSET_HI = 0;
layout(constant_id = ROI_SPEC_BATCH_LOCATION + 0) const uint BATCH_SLOT = 0;
layout(constant_id = ROI_SPEC_BATCH_LOCATION + 1) const uint BATCH_OFFSET_LO = 0;
layout(constant_id = ROI_SPEC_BATCH_LOCATION + 2) const uint BATCH_OFFSET_HI = 0;
layout(constant_id = ROI_SPEC_OUT_LOCATION + 0) const uint OUT_SLOT = 0;
layout(constant_id = ROI_SPEC_OUT_LOCATION + 1) const uint OUT_OFFSET_LO = 0;
layout(constant_id = ROI_SPEC_OUT_LOCATION + 2) const uint OUT_OFFSET_HI = 0;

/* Rounded coordinates stay in [-2^29, 2^29]: regions up to 2^30 + 1 pixels, no int overflow. */
const float POOL_COORDINATE_LIMIT = 536870912.0;
#define NEGATIVE_INFINITY uintBitsToFloat(0xff800000u)

uvec2 input_base, roi_base;

float roi_value(uint region, uint k)
{
    return tio_load_float(TYPE, roi_base, region * ROI_STRIDE_N + k * ROI_STRIDE_K);
}

float input_value(uint plane, uint y, uint x)
{
    return tio_load_float(TYPE, input_base, plane + y * IN_STRIDE_H + x * IN_STRIDE_W);
}

/* Max that propagates NaN: once NaN, `current > NaN` stays false. */
float max_nan(float current, float value)
{
    return isnan(value) || value > current ? value : current;
}

/* ---- POOLING ---- */

/* C's round(): half away from zero, then kept within POOL_COORDINATE_LIMIT. */
int pool_coordinate(float value)
{
    float rounded = sign(value) * floor(abs(value) + 0.5);

    return int(clamp(rounded, -POOL_COORDINATE_LIMIT, POOL_COORDINATE_LIMIT));
}

/* The bin [first, last) of output index `index` of `bins` (at most 65535, roi.c) over a region of
 * `size` pixels from `start`, clamped to [0, limit): floor(index * size / bins) and
 * ceil((index + 1) * size / bins), in 32 bits as quotient and remainder. */
ivec2 pool_bin(uint index, uint bins, uint size, int start, uint limit)
{
    uint whole = size / bins, part = size % bins;
    uint first = index * whole + index * part / bins;
    uint last = (index + 1u) * whole + ((index + 1u) * part + bins - 1u) / bins;

    return clamp(ivec2(int(first), int(last)) + start, 0, int(limit));
}

float pool(uint region, uint channel, uint y, uint x)
{
    float batch = roi_value(region, 0u), corners[4], result = NEGATIVE_INFINITY;
    int rounded[4];
    ivec2 rows, columns;
    uint plane, i, j;

    for (i = 0u; i < 4u; ++i)
    {
        corners[i] = roi_value(region, i + 1u) * push.spatial_scale.x;
        if (isnan(corners[i]))
            return 0.0;
        rounded[i] = pool_coordinate(corners[i]);
    }
    /* The batch index is a float: truncated, and in [0, BATCHES) (NaN is not). */
    if (!(batch >= 0.0 && batch < float(BATCHES)))
        return 0.0;
    plane = min(uint(batch), BATCHES - 1u) * IN_STRIDE_N + channel * IN_STRIDE_C;
    rows = pool_bin(y, OUT_H, uint(max(rounded[3] - rounded[1] + 1, 1)), rounded[1], IN_H);
    columns = pool_bin(x, OUT_W, uint(max(rounded[2] - rounded[0] + 1, 1)), rounded[0], IN_W);
    if (rows.x >= rows.y || columns.x >= columns.y)
        return 0.0;
    for (i = uint(rows.x); i < uint(rows.y); ++i)
    {
        for (j = uint(columns.x); j < uint(columns.y); ++j)
            result = max_nan(result, input_value(plane, i, j));
    }
    return result;
}

/* ---- ALIGN ---- */

/* Samples per output element along an axis: ceil(|region| / outputs) in [min, max], at least 1;
 * NaN takes the minimum. */
uint sample_count(float size, uint outputs)
{
    float wanted = ceil(abs(size) / float(outputs));
    uint count = wanted >= float(push.max_samples) ? push.max_samples
            : wanted >= float(push.min_samples) ? uint(wanted) : push.min_samples;

    return max(count, 1u);
}

/* Where sample `which` of output `index` (of `outputs`, `samples` each) reads, in input pixels. */
float sample_position(float start, float size, uint outputs, uint samples, uint index, uint which)
{
    float row = float(outputs) * float(samples), step;

    if (CORNERS && row <= 1.0)
        return start + 0.5 * size - push.input_offset;
    step = size / (CORNERS ? row - 1.0 : row);
    return start + (float(index) * float(samples) + float(which) - push.output_offset) * step - push.input_offset;
}

float interpolate(uint plane, float y, float x)
{
    float hy, hx, ly, lx;
    uint y0, x0, y1, x1;

    /* NaN is outside too. */
    if (!(y >= -1.0 && y <= float(IN_H) && x >= -1.0 && x <= float(IN_W)))
        return push.out_of_bounds;
    y = clamp(y, 0.0, float(IN_H - 1u));
    x = clamp(x, 0.0, float(IN_W - 1u));
    if (NEAREST)
        return input_value(plane, min(uint(floor(y + 0.5)), IN_H - 1u), min(uint(floor(x + 0.5)), IN_W - 1u));
    y0 = uint(y);
    x0 = uint(x);
    y1 = min(y0 + 1u, IN_H - 1u);
    x1 = min(x0 + 1u, IN_W - 1u);
    ly = y - float(y0);
    lx = x - float(x0);
    hy = 1.0 - ly;
    hx = 1.0 - lx;
    return hy * hx * input_value(plane, y0, x0) + hy * lx * input_value(plane, y0, x1)
            + ly * hx * input_value(plane, y1, x0) + ly * lx * input_value(plane, y1, x1);
}

float align(uint region, uint channel, uint y, uint x)
{
    uvec2 batch_base = vkdml_binding_address(VkdmlDescriptorTable(push.table), BATCH_SLOT, BATCH_OFFSET_LO,
            BATCH_OFFSET_HI);
    float x1 = roi_value(region, 0u) * push.spatial_scale.x, y1 = roi_value(region, 1u) * push.spatial_scale.y;
    float width = roi_value(region, 2u) * push.spatial_scale.x - x1;
    float height = roi_value(region, 3u) * push.spatial_scale.y - y1;
    uint rows = sample_count(height, OUT_H), columns = sample_count(width, OUT_W), batch, plane, i, j;
    float result = REDUCE_MAX ? NEGATIVE_INFINITY : 0.0, value, sy;

    /* An index outside [0, BATCHES): every sample is out of bounds (README, "Indices out of range"). */
    if (!idx_resolve(BATCH_TYPE, batch_base, region * BATCH_STRIDE, BATCHES, false, batch))
        return push.out_of_bounds;
    plane = batch * IN_STRIDE_N + channel * IN_STRIDE_C;
    for (i = 0u; i < rows; ++i)
    {
        sy = sample_position(y1, height, OUT_H, rows, y, i);
        for (j = 0u; j < columns; ++j)
        {
            value = interpolate(plane, sy, sample_position(x1, width, OUT_W, columns, x, j));
            result = REDUCE_MAX ? max_nan(result, value) : result + value;
        }
    }
    return REDUCE_MAX ? result : result / (float(rows) * float(columns));
}

void main()
{
    uint group = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);
    uint index = group * ROI_THREADS + gl_LocalInvocationIndex, x, y, channel, region;
    uvec2 output_base;
    float value;

    if (index >= COUNT)
        return;
    x = index % OUT_W;
    y = index / OUT_W % OUT_H;
    channel = index / (OUT_W * OUT_H) % OUT_C;
    region = index / (OUT_W * OUT_H * OUT_C);
    input_base = vkdml_binding_address(VkdmlDescriptorTable(push.table), IN_SLOT, IN_OFFSET_LO, IN_OFFSET_HI);
    roi_base = vkdml_binding_address(VkdmlDescriptorTable(push.table), ROI_SLOT, ROI_OFFSET_LO, ROI_OFFSET_HI);
    output_base = vkdml_binding_address(VkdmlDescriptorTable(push.table), OUT_SLOT, OUT_OFFSET_LO, OUT_OFFSET_HI);
    value = MODE == ROI_MODE_POOLING ? pool(region, channel, y, x) : align(region, channel, y, x);
    tio_store_float(TYPE, output_base, region * OUT_STRIDE_N + channel * OUT_STRIDE_C + y * OUT_STRIDE_H
            + x * OUT_STRIDE_W, value);
}
