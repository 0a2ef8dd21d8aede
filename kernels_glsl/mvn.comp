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
 * A NaN or infinite entry makes its whole row NaN (README, "Mean-variance and Lp normalization").
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

/* Entries v * VECTOR .. + VECTOR - 1 of a row into x[at ..]: one 16-byte load where VECTOR > 1
 * (the entries are packed then). */
void load_entries(uvec4 row, uint v, inout float x[MVN_MAX_VALUES], uint at)
{
    uvec4 bits;
    uint k;

    if (VECTOR == 1u)
    {
        x[at] = tio_load_float(TYPE, in_base, row.x + entry_offsets(v).x);
        return;
    }
    bits = TioVector(tio_element_address(in_base, row.x + v * VECTOR, tio_element_size(TYPE))).v;
    [[unroll]] for (k = 0u; k < VECTOR; ++k)
        x[at + k] = TYPE == TIO_TYPE_FLOAT16 ? unpackHalf2x16(bits[k / 2u])[k % 2u] : uintBitsToFloat(bits[k]);
}

void store_entries(uvec4 row, uint v, float y[MVN_MAX_VALUES], uint at)
{
    uvec4 bits = uvec4(0u);
    uint k;

    if (VECTOR == 1u)
    {
        tio_store_float(TYPE, out_base, row.y + entry_offsets(v).y, y[at]);
        return;
    }
    [[unroll]] for (k = 0u; k < 4u; ++k)
    {
        if (TYPE == TIO_TYPE_FLOAT16)
            bits[k] = packHalf2x16(vec2(y[at + 2u * k], y[at + 2u * k + 1u]));
        else
            bits[k] = floatBitsToUint(y[at + k]);
    }
    TioVector(tio_element_address(out_base, row.y + v * VECTOR, tio_element_size(TYPE))).v = bits;
}

/* ---- Statistics: (count, mean, M2) for MVN, (count, sum, 0) for LP ---- */

/* What LP sums: |x| (P 1) or x^2 (P 2). */
float lp_term(float x)
{
    return FUNCTION == MVN_FUNCTION_LP1 ? abs(x) : x * x;
}

/* Chan et al.'s pairwise merge; an empty side leaves the other unchanged. */
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

/* The statistics of x[0 .. VECTOR - 1], exactly: the mean first, then the squared deviations. */
vec3 vector_stats(float x[MVN_MAX_VALUES])
{
    float sum = 0.0, m2 = 0.0, mean;
    uint k;

    [[unroll]] for (k = 0u; k < VECTOR; ++k)
        sum += IS_LP ? lp_term(x[k]) : x[k];
    if (IS_LP)
        return vec3(float(VECTOR), sum, 0.0);
    mean = sum / float(VECTOR);
    [[unroll]] for (k = 0u; k < VECTOR; ++k)
        m2 += (x[k] - mean) * (x[k] - mean);
    return vec3(float(VECTOR), mean, m2);
}

/* Whether the rows path's load i of the invocation is inside the row. */
bool has_load(uint i)
{
    return gl_LocalInvocationIndex + i * THREADS < LOADS;
}

/* The statistics of the invocation's loads in the rows path, the same way. Loops over constants
 * only, so that x stays in registers. */
vec3 held_stats(float x[MVN_MAX_VALUES])
{
    float sum = 0.0, m2 = 0.0, count = 0.0, mean;
    uint i, k;

    for (i = 0u; i < PER_THREAD; ++i)
    {
        if (!has_load(i))
            continue;
        count += float(VECTOR);
        [[unroll]] for (k = 0u; k < VECTOR; ++k)
            sum += IS_LP ? lp_term(x[i * VECTOR + k]) : x[i * VECTOR + k];
    }
    if (IS_LP || count == 0.0)
        return vec3(count, sum, 0.0);
    mean = sum / count;
    for (i = 0u; i < PER_THREAD; ++i)
    {
        if (!has_load(i))
            continue;
        [[unroll]] for (k = 0u; k < VECTOR; ++k)
            m2 += (x[i * VECTOR + k] - mean) * (x[i * VECTOR + k] - mean);
    }
    return vec3(count, mean, m2);
}

/* The row's (shift, factor): y = (x - shift) * factor, then scale, bias and the activation. */
vec2 row_transform(vec3 stats)
{
    float epsilon = uintBitsToFloat(EPSILON_BITS), norm, variance;

    if (IS_LP)
    {
        norm = FUNCTION == MVN_FUNCTION_LP1 ? stats.y : sqrt(stats.y);
        /* max(norm, epsilon), a NaN norm kept. */
        return vec2(0.0, 1.0 / (norm < epsilon ? epsilon : norm));
    }
    variance = stats.z / stats.x;
    if (!USE_MEAN)
        variance += stats.y * stats.y;
    return vec2(USE_MEAN ? stats.y : 0.0, USE_VARIANCE ? 1.0 / sqrt(variance + epsilon) : 1.0);
}

float output_value(uvec4 row, uint entry, float x, vec2 transform)
{
    float y = (x - transform.x) * transform.y;
    uvec4 at;

    if (HAS_SCALE || HAS_BIAS)
        at = row + entry_offsets(entry);
    if (HAS_SCALE)
        y *= tio_load_float(TYPE, scale_base, at.z);
    if (HAS_BIAS)
        y += tio_load_float(TYPE, bias_base, at.w);
    return vkdml_activation(y);
}

/* Entries v * VECTOR .. of a row written from their values x[at ..]. */
void write_entries(uvec4 row, uint v, inout float x[MVN_MAX_VALUES], uint at, vec2 transform)
{
    uint k;

    [[unroll]] for (k = 0u; k < VECTOR; ++k)
        x[at + k] = output_value(row, v * VECTOR + k, x[at + k], transform);
    store_entries(row, v, x, at);
}

/* ---- Rows path: a workgroup per row, held in registers ---- */

void row_in_registers(uint row_index)
{
    uint tid = gl_LocalInvocationIndex, i;
    uvec4 row = row_offsets(row_index);
    float x[MVN_MAX_VALUES];
    vec2 transform;

    for (i = 0u; i < PER_THREAD; ++i)
    {
        if (has_load(i))
            load_entries(row, tid + i * THREADS, x, i * VECTOR);
    }
    transform = row_transform(workgroup_stats(held_stats(x)));
    for (i = 0u; i < PER_THREAD; ++i)
    {
        if (has_load(i))
            write_entries(row, tid + i * THREADS, x, i * VECTOR, transform);
    }
}

/* ---- Split paths: CHUNKS workgroups per row, the chunks' triples through temp_base ---- */

void split_stats(uint row_index, uint chunk)
{
    uint tid = gl_LocalInvocationIndex, end = min(LENGTH, (chunk + 1u) * CHUNK_LENGTH) / VECTOR, v;
    uvec4 row = row_offsets(row_index);
    vec3 stats = vec3(0.0);
    float x[MVN_MAX_VALUES];

    for (v = chunk * CHUNK_LENGTH / VECTOR + tid; v < end; v += THREADS)
    {
        load_entries(row, v, x, 0u);
        stats = merge_stats(stats, vector_stats(x));
    }
    stats = workgroup_stats(stats);
    if (tid == 0u)
    {
        uvec4 words = uvec4(floatBitsToUint(stats), 0u);

        TioVector(tio_element_address(temp_base, row_index * CHUNKS + chunk, 16u)).v = words;
    }
}

void split_normalize(uint row_index, uint chunk)
{
    uint tid = gl_LocalInvocationIndex, end = min(LENGTH, (chunk + 1u) * CHUNK_LENGTH) / VECTOR, v, c;
    uvec4 row = row_offsets(row_index);
    vec3 stats = vec3(0.0);
    float x[MVN_MAX_VALUES];
    vec2 transform;

    /* Every invocation merges the row's chunks in chunk order: the same result everywhere. */
    for (c = 0u; c < CHUNKS; ++c)
        stats = merge_stats(stats, uintBitsToFloat(TioVector(tio_element_address(temp_base, row_index * CHUNKS + c,
                16u)).v.xyz));
    transform = row_transform(stats);
    for (v = chunk * CHUNK_LENGTH / VECTOR + tid; v < end; v += THREADS)
    {
        load_entries(row, v, x, 0u);
        write_entries(row, v, x, 0u, transform);
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
