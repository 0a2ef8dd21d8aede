#version 460
#extension GL_GOOGLE_include_directive : require
/*
 * MEAN_VARIANCE_NORMALIZATION, MVN1, MVN2 and LP_NORMALIZATION: each row's statistics over the
 * reduced axes, then every entry rescaled (mvn_interface.h has the layout and the paths). fp32
 * math for FLOAT32 and FLOAT16 tensors.
 *
 * MVN:  y = activation(scale * (x - mean) / sqrt(variance + epsilon) + bias), mean 0 without
 *       UseMean (the variance then is the mean of x^2: RMS normalization), no division without
 *       UseVariance (NormalizeVariance); population variance.
 * LP:   y = x / max(norm, epsilon), norm the sum of |x| (P 1) or the square root of the sum of x^2.
 * A NaN or infinite entry makes its whole MVN row NaN; LP divides by an infinite norm (README,
 * "Mean-variance and Lp normalization").
 */
#include "common.glsl"
#include "dml_interface.h"
#include "tensor_io.glsl"
#include "reduce_common.glsl"
#include "mvn_interface.h"
#define ACTIVATION_SPEC_BASE MVN_SPEC_ACTIVATION
#include "activation.glsl"

layout(local_size_x_id = MVN_SPEC_THREADS, local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(constant_id = MVN_SPEC_FUNCTION) const uint FUNCTION = MVN_FUNCTION_MVN;
layout(constant_id = MVN_SPEC_TYPE) const uint TYPE = TIO_TYPE_FLOAT32;
layout(constant_id = MVN_SPEC_PATH) const uint PATH = MVN_PATH_ROWS;
layout(constant_id = MVN_SPEC_PER_THREAD) const uint PER_THREAD = 1;
layout(constant_id = MVN_SPEC_VECTOR) const uint VECTOR = 1;
layout(constant_id = MVN_SPEC_CHUNKS) const uint CHUNKS = 1;
layout(constant_id = MVN_SPEC_CHUNK_LENGTH) const uint CHUNK_LENGTH = 1;
layout(constant_id = MVN_SPEC_ROWS) const uint ROWS = 1;
layout(constant_id = MVN_SPEC_LENGTH) const uint LENGTH = 1;
layout(constant_id = MVN_SPEC_USE_MEAN) const bool USE_MEAN = true;
layout(constant_id = MVN_SPEC_USE_VARIANCE) const bool USE_VARIANCE = true;
layout(constant_id = MVN_SPEC_EPSILON) const uint EPSILON_BITS = 0;
layout(constant_id = MVN_SPEC_HAS_SCALE) const bool HAS_SCALE = false;
layout(constant_id = MVN_SPEC_HAS_BIAS) const bool HAS_BIAS = false;
layout(constant_id = MVN_SPEC_PARAMETER_VECTORS) const bool PARAMETER_VECTORS = false;

#define DECLARE_DIMS(base, name, value) \
    layout(constant_id = base + 0) const uint name##_0 = value; \
    layout(constant_id = base + 1) const uint name##_1 = value; \
    layout(constant_id = base + 2) const uint name##_2 = value; \
    layout(constant_id = base + 3) const uint name##_3 = value; \
    layout(constant_id = base + 4) const uint name##_4 = value; \
    layout(constant_id = base + 5) const uint name##_5 = value; \
    layout(constant_id = base + 6) const uint name##_6 = value; \
    layout(constant_id = base + 7) const uint name##_7 = value;

DECLARE_DIMS(MVN_SPEC_KEPT_SIZES, KEPT_SIZE, 1)
DECLARE_DIMS(MVN_SPEC_KEPT_STRIDES + 0 * MVN_MAX_DIMS, KEPT_IN, 0)
DECLARE_DIMS(MVN_SPEC_KEPT_STRIDES + 1 * MVN_MAX_DIMS, KEPT_OUT, 0)
DECLARE_DIMS(MVN_SPEC_KEPT_STRIDES + 2 * MVN_MAX_DIMS, KEPT_SCALE, 0)
DECLARE_DIMS(MVN_SPEC_KEPT_STRIDES + 3 * MVN_MAX_DIMS, KEPT_BIAS, 0)
DECLARE_DIMS(MVN_SPEC_REDUCED_SIZES, REDUCED_SIZE, 1)
DECLARE_DIMS(MVN_SPEC_REDUCED_STRIDES + 0 * MVN_MAX_DIMS, REDUCED_IN, 0)
DECLARE_DIMS(MVN_SPEC_REDUCED_STRIDES + 1 * MVN_MAX_DIMS, REDUCED_OUT, 0)
DECLARE_DIMS(MVN_SPEC_REDUCED_STRIDES + 2 * MVN_MAX_DIMS, REDUCED_SCALE, 0)
DECLARE_DIMS(MVN_SPEC_REDUCED_STRIDES + 3 * MVN_MAX_DIMS, REDUCED_BIAS, 0)

layout(constant_id = MVN_SPEC_IN_LOCATION + 0) const uint IN_SLOT = 0;
layout(constant_id = MVN_SPEC_IN_LOCATION + 1) const uint IN_OFFSET_LO = 0;
layout(constant_id = MVN_SPEC_IN_LOCATION + 2) const uint IN_OFFSET_HI = 0;
layout(constant_id = MVN_SPEC_OUT_LOCATION + 0) const uint OUT_SLOT = 0;
layout(constant_id = MVN_SPEC_OUT_LOCATION + 1) const uint OUT_OFFSET_LO = 0;
layout(constant_id = MVN_SPEC_OUT_LOCATION + 2) const uint OUT_OFFSET_HI = 0;
layout(constant_id = MVN_SPEC_SCALE_LOCATION + 0) const uint SCALE_SLOT = 0;
layout(constant_id = MVN_SPEC_SCALE_LOCATION + 1) const uint SCALE_OFFSET_LO = 0;
layout(constant_id = MVN_SPEC_SCALE_LOCATION + 2) const uint SCALE_OFFSET_HI = 0;
layout(constant_id = MVN_SPEC_BIAS_LOCATION + 0) const uint BIAS_SLOT = 0;
layout(constant_id = MVN_SPEC_BIAS_LOCATION + 1) const uint BIAS_OFFSET_LO = 0;
layout(constant_id = MVN_SPEC_BIAS_LOCATION + 2) const uint BIAS_OFFSET_HI = 0;
layout(constant_id = MVN_SPEC_TEMP_LOCATION + 0) const uint TEMP_SLOT = 0;
layout(constant_id = MVN_SPEC_TEMP_LOCATION + 1) const uint TEMP_OFFSET_LO = 0;
layout(constant_id = MVN_SPEC_TEMP_LOCATION + 2) const uint TEMP_OFFSET_HI = 0;

const uint THREADS = gl_WorkGroupSize.x;
const uint LOADS = LENGTH / VECTOR;
const bool IS_LP = FUNCTION != MVN_FUNCTION_MVN;
#define MVN_MAX_VECTOR 8                /* 16 bytes of FLOAT16 */

/* ---- Element offsets (input, output, scale, bias) of a row and of an entry of a row ---- */

#define OFFSET_STEP(index, offsets, SIZE, S, d) \
    offsets += (index % SIZE##_##d) * uvec4(S##_IN_##d, S##_OUT_##d, S##_SCALE_##d, S##_BIAS_##d); \
    index /= SIZE##_##d;

#define OFFSETS_OF(index, offsets, SIZE, S) \
    OFFSET_STEP(index, offsets, SIZE, S, 7) OFFSET_STEP(index, offsets, SIZE, S, 6) \
    OFFSET_STEP(index, offsets, SIZE, S, 5) OFFSET_STEP(index, offsets, SIZE, S, 4) \
    OFFSET_STEP(index, offsets, SIZE, S, 3) OFFSET_STEP(index, offsets, SIZE, S, 2) \
    OFFSET_STEP(index, offsets, SIZE, S, 1) OFFSET_STEP(index, offsets, SIZE, S, 0)

uvec4 row_offsets(uint row)
{
    uvec4 offsets = uvec4(0u);

    OFFSETS_OF(row, offsets, KEPT_SIZE, KEPT)
    return offsets;
}

uvec4 entry_offsets(uint entry)
{
    uvec4 offsets = uvec4(0u);

    OFFSETS_OF(entry, offsets, REDUCED_SIZE, REDUCED)
    return offsets;
}

uvec2 in_base, out_base, scale_base, bias_base, temp_base;

/* ---- Loads and stores of VECTOR entries (16 bytes where VECTOR > 1: the entries are packed) ---- */

float unpack_entry(uvec4 bits, uint k)
{
    return TYPE == TIO_TYPE_FLOAT16 ? unpackHalf2x16(bits[k / 2u])[k % 2u] : uintBitsToFloat(bits[k % 4u]);
}

/* The VECTOR entries (16 bytes) at element `first` of `base`. */
void load_vector(uvec2 base, uint first, out float v[MVN_MAX_VECTOR])
{
    uvec4 bits = TioVector(tio_element_address(base, first, tio_element_size(TYPE))).v;
    uint k;

    [[unroll]] for (k = 0u; k < MVN_MAX_VECTOR; ++k)
        v[k] = unpack_entry(bits, k);
}

/* Entries v * VECTOR .. + VECTOR - 1 of a row. */
void load_entries(uvec4 row, uint v, out float x[MVN_MAX_VECTOR])
{
    if (VECTOR == 1u)
        x[0] = tio_load_float(TYPE, in_base, row.x + entry_offsets(v).x);
    else
        load_vector(in_base, row.x + v * VECTOR, x);
}

void store_entries(uvec4 row, uint v, float y[MVN_MAX_VECTOR])
{
    uvec4 bits = uvec4(0u);
    uint k;

    if (VECTOR == 1u)
    {
        tio_store_float(TYPE, out_base, row.y + entry_offsets(v).y, y[0]);
        return;
    }
    [[unroll]] for (k = 0u; k < 4u; ++k)
    {
        if (TYPE == TIO_TYPE_FLOAT16)
            bits[k] = packHalf2x16(vec2(y[2u * k], y[2u * k + 1u]));
        else
            bits[k] = floatBitsToUint(y[k]);
    }
    TioVector(tio_element_address(out_base, row.y + v * VECTOR, tio_element_size(TYPE))).v = bits;
}

/* The scale's or bias's (`component` 2 or 3 of the offsets) values of entries v * VECTOR .. of a
 * row: one 16-byte load where PARAMETER_VECTORS (their entries packed too); else the first
 * entry's offset, then steps along the innermost reduced dimension where the vector stays in it
 * (one load where the tensor broadcasts there: group normalization's per-channel weights). */
void load_parameters(uvec2 base, uint row_offset, uint component, uint v, out float p[MVN_MAX_VECTOR])
{
    uint step = component == 2u ? REDUCED_SCALE_7 : REDUCED_BIAS_7, at, k;

    if (PARAMETER_VECTORS && VECTOR > 1u)
    {
        load_vector(base, row_offset + v * VECTOR, p);
        return;
    }
    if (REDUCED_SIZE_7 % VECTOR == 0u)
    {
        at = row_offset + entry_offsets(v * VECTOR)[component];
        p[0] = tio_load_float(TYPE, base, at);
        [[unroll]] for (k = 1u; k < MVN_MAX_VECTOR; ++k)
        {
            if (k < VECTOR)
                p[k] = step == 0u ? p[0] : tio_load_float(TYPE, base, at + k * step);
        }
        return;
    }
    [[unroll]] for (k = 0u; k < MVN_MAX_VECTOR; ++k)
    {
        if (k < VECTOR)
            p[k] = tio_load_float(TYPE, base, row_offset + entry_offsets(v * VECTOR + k)[component]);
    }
}

/* ---- Statistics ---- */

/* The row's (shift, factor) from its center (the mean, or 0) and its total (the sum of the squared
 * deviations from the center; LP: of the terms): y = (x - shift) * factor, then scale, bias and
 * the activation. */
vec2 row_transform(float center, float total)
{
    float epsilon = uintBitsToFloat(EPSILON_BITS), norm;

    if (IS_LP)
    {
        norm = FUNCTION == MVN_FUNCTION_LP1 ? total : sqrt(total);
        /* max(norm, epsilon), a NaN norm kept: tested on the bits, as a driver may assume no NaN
         * (activation.glsl) and fold the comparison into a max that drops it. */
        return vec2(0.0, 1.0 / (vkdml_isnan(norm) || norm >= epsilon ? norm : epsilon));
    }
    return vec2(center, USE_VARIANCE ? 1.0 / sqrt(total / float(LENGTH) + epsilon) : 1.0);
}

/* Entries v * VECTOR .. of a row written from their values (y holds them, then the results). */
void write_entries(uvec4 row, uint v, inout float y[MVN_MAX_VECTOR], vec2 transform)
{
    float scale[MVN_MAX_VECTOR], bias[MVN_MAX_VECTOR];
    uint k;

    if (HAS_SCALE)
        load_parameters(scale_base, row.z, 2u, v, scale);
    if (HAS_BIAS)
        load_parameters(bias_base, row.w, 3u, v, bias);
    [[unroll]] for (k = 0u; k < VECTOR; ++k)
    {
        y[k] = (y[k] - transform.x) * transform.y;
        if (HAS_SCALE)
            y[k] *= scale[k];
        if (HAS_BIAS)
            y[k] += bias[k];
        y[k] = vkdml_activation(y[k]);
    }
    store_entries(row, v, y);
}

/* What the reduction sums of x - center: |.| for LP 1, the square otherwise. */
float term(float d)
{
    return FUNCTION == MVN_FUNCTION_LP1 ? abs(d) : d * d;
}

float add(float a, float b)
{
    return a + b;
}

VKDML_DEFINE_WORKGROUP_REDUCE(workgroup_sum, float, subgroupAdd, add, 0.0)

/* ---- Rows path: a workgroup per row, held in registers ---- */

/* The invocation's loads as stored (VECTOR > 1: FLOAT16 stays packed, half the registers), or
 * its entries (VECTOR 1). Indexed by constants only once PER_THREAD loops unroll, so they stay
 * in registers. */
uvec4 held_loads[MVN_MAX_LOADS];
float held_entries[MVN_MAX_VALUES];

bool has_load(uint i)
{
    return gl_LocalInvocationIndex + i * THREADS < LOADS;
}

float held_value(uint i, uint k)
{
    return VECTOR == 1u ? held_entries[i] : unpack_entry(held_loads[i], k);
}

/* The invocation's sum of x - center (plain), or of its term. */
float held_sum(float center, bool plain)
{
    float sum = 0.0, d;
    uint i, k;

    for (i = 0u; i < PER_THREAD; ++i)
    {
        if (!has_load(i))
            continue;
        [[unroll]] for (k = 0u; k < VECTOR; ++k)
        {
            d = held_value(i, k) - center;
            sum += plain ? d : term(d);
        }
    }
    return sum;
}

/* Two exact passes over the registers: the mean, then the squared deviations from it. */
void row_in_registers(uint row_index)
{
    uint tid = gl_LocalInvocationIndex, i, k;
    uvec4 row = row_offsets(row_index);
    float center = 0.0, total = 0.0, y[MVN_MAX_VECTOR];
    vec2 transform;

    for (i = 0u; i < PER_THREAD; ++i)
    {
        if (!has_load(i))
            continue;
        if (VECTOR == 1u)
            held_entries[i] = tio_load_float(TYPE, in_base, row.x + entry_offsets(tid + i * THREADS).x);
        else
            held_loads[i] = TioVector(tio_element_address(in_base, row.x + (tid + i * THREADS) * VECTOR,
                    tio_element_size(TYPE))).v;
    }
    if (!IS_LP && USE_MEAN)
        center = workgroup_sum(held_sum(0.0, true)) / float(LENGTH);
    if (IS_LP || USE_VARIANCE)
        total = workgroup_sum(held_sum(center, false));
    transform = row_transform(center, total);
    for (i = 0u; i < PER_THREAD; ++i)
    {
        if (!has_load(i))
            continue;
        [[unroll]] for (k = 0u; k < MVN_MAX_VECTOR; ++k)
            y[k] = held_value(i, k);
        write_entries(row, tid + i * THREADS, y, transform);
    }
}

/* ---- Split paths: CHUNKS workgroups per row, the chunks' (count, mean, M2) through temp_base ---- */

/* Chan et al.'s pairwise merge; an empty side leaves the other unchanged. LP: (count, sum). */
vec3 merge_stats(vec3 a, vec3 b)
{
    float n = a.x + b.x, delta, weight;

    if (IS_LP)
        return vec3(n, a.y + b.y, 0.0);
    if (b.x == 0.0)
        return a;
    if (a.x == 0.0)
        return b;
    delta = b.y - a.y;
    weight = b.x / n;
    return vec3(n, a.y + delta * weight, a.z + b.z + delta * delta * a.x * weight);
}

VKDML_DEFINE_WORKGROUP_COMBINE(workgroup_stats, vec3, merge_stats)

/* The statistics of y[0 .. VECTOR - 1], exactly: the mean first, then the squared deviations. */
vec3 vector_stats(float y[MVN_MAX_VECTOR])
{
    float sum = 0.0, m2 = 0.0, mean;
    uint k;

    [[unroll]] for (k = 0u; k < VECTOR; ++k)
        sum += IS_LP ? term(y[k]) : y[k];
    if (IS_LP)
        return vec3(float(VECTOR), sum, 0.0);
    mean = sum / float(VECTOR);
    [[unroll]] for (k = 0u; k < VECTOR; ++k)
        m2 += (y[k] - mean) * (y[k] - mean);
    return vec3(float(VECTOR), mean, m2);
}

void split_stats(uint row_index, uint chunk)
{
    uint tid = gl_LocalInvocationIndex, end = min(LENGTH, (chunk + 1u) * CHUNK_LENGTH) / VECTOR, v;
    uvec4 row = row_offsets(row_index);
    vec3 stats = vec3(0.0);
    float y[MVN_MAX_VECTOR];

    for (v = chunk * CHUNK_LENGTH / VECTOR + tid; v < end; v += THREADS)
    {
        load_entries(row, v, y);
        stats = merge_stats(stats, vector_stats(y));
    }
    stats = workgroup_stats(stats);
    if (tid == 0u)
        TioVector(tio_element_address(temp_base, row_index * CHUNKS + chunk, 16u)).v
                = uvec4(floatBitsToUint(stats), 0u);
}

void split_normalize(uint row_index, uint chunk)
{
    uint tid = gl_LocalInvocationIndex, end = min(LENGTH, (chunk + 1u) * CHUNK_LENGTH) / VECTOR, v, c;
    uvec4 row = row_offsets(row_index);
    vec3 stats = vec3(0.0);
    float y[MVN_MAX_VECTOR];
    vec2 transform;

    /* Every invocation merges the row's chunks in chunk order: the same result everywhere. */
    for (c = 0u; c < CHUNKS; ++c)
        stats = merge_stats(stats, uintBitsToFloat(TioVector(tio_element_address(temp_base, row_index * CHUNKS + c,
                16u)).v.xyz));
    /* (count, mean, M2) as center and total (M2 + count * mean^2 about 0); LP: (count, sum of terms). */
    if (IS_LP)
        transform = row_transform(0.0, stats.y);
    else
        transform = row_transform(USE_MEAN ? stats.y : 0.0, USE_MEAN ? stats.z : stats.z + stats.x * stats.y * stats.y);
    for (v = chunk * CHUNK_LENGTH / VECTOR + tid; v < end; v += THREADS)
    {
        load_entries(row, v, y);
        write_entries(row, v, y, transform);
    }
}

void main()
{
    VkdmlDescriptorTable table = VkdmlDescriptorTable(push.table);
    uint group = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);

    /* Whole workgroups leave together, so the barriers stay uniform. */
    if (group >= ROWS * CHUNKS)
        return;
    in_base = vkdml_binding_address(table, IN_SLOT, IN_OFFSET_LO, IN_OFFSET_HI);
    out_base = vkdml_binding_address(table, OUT_SLOT, OUT_OFFSET_LO, OUT_OFFSET_HI);
    if (HAS_SCALE)
        scale_base = vkdml_binding_address(table, SCALE_SLOT, SCALE_OFFSET_LO, SCALE_OFFSET_HI);
    if (HAS_BIAS)
        bias_base = vkdml_binding_address(table, BIAS_SLOT, BIAS_OFFSET_LO, BIAS_OFFSET_HI);
    if (PATH == MVN_PATH_ROWS)
    {
        row_in_registers(group);
        return;
    }
    temp_base = vkdml_binding_address(table, TEMP_SLOT, TEMP_OFFSET_LO, TEMP_OFFSET_HI);
    if (PATH == MVN_PATH_SPLIT_STATS)
        split_stats(group / CHUNKS, group % CHUNKS);
    else
        split_normalize(group / CHUNKS, group % CHUNKS);
}
