#version 460
#extension GL_GOOGLE_include_directive : require
/*
 * DML_OPERATOR_REVERSE_SUBSEQUENCES (reverse_interface.h): a packed output gives each invocation
 * 16 bytes of elements, gathered one by one and stored as one uvec4 where the output is 16-byte
 * aligned; a strided one, one element. Consecutive invocations take consecutive logical
 * elements, so stores are coalesced and loads too (a reversed run of a row still covers the same
 * lines). Each element reads its sequence's length (include/indices.glsl: 64-bit lengths as
 * words), clamps it to the axis and gathers its source's bits: no address comes from an
 * unclamped length.
 *
 * Variants (kernels_glsl/meson.build, typed_kernels): the storage the tensor type needs; 64-bit
 * elements move as uvec2 through any variant.
 */
#include "common.glsl"
#include "dml_interface.h"
#include "tensor_io.glsl"
#include "indices.glsl"
#include "reverse_interface.h"

layout(local_size_x = REVERSE_THREADS, local_size_y = 1, local_size_z = 1) in;

layout(constant_id = REVERSE_SPEC_TYPE) const uint TYPE = TIO_TYPE_FLOAT32;
layout(constant_id = REVERSE_SPEC_LENGTH_TYPE) const uint LENGTH_TYPE = TIO_TYPE_UINT32;
layout(constant_id = REVERSE_SPEC_AXIS) const int AXIS = REVERSE_MAX_RANK - 1;
layout(constant_id = REVERSE_SPEC_COUNT_ELEMENTS) const uint COUNT = 1;
layout(constant_id = REVERSE_SPEC_VECTOR) const uint VECTOR = 1;
layout(constant_id = REVERSE_SPEC_OUT_PACKED) const bool OUT_PACKED = false;
layout(constant_id = REVERSE_SPEC_SIZES + 0) const uint SIZE_0 = 1;
layout(constant_id = REVERSE_SPEC_SIZES + 1) const uint SIZE_1 = 1;
layout(constant_id = REVERSE_SPEC_SIZES + 2) const uint SIZE_2 = 1;
layout(constant_id = REVERSE_SPEC_SIZES + 3) const uint SIZE_3 = 1;
layout(constant_id = REVERSE_SPEC_SIZES + 4) const uint SIZE_4 = 1;
layout(constant_id = REVERSE_SPEC_SIZES + 5) const uint SIZE_5 = 1;
layout(constant_id = REVERSE_SPEC_SIZES + 6) const uint SIZE_6 = 1;
layout(constant_id = REVERSE_SPEC_SIZES + 7) const uint SIZE_7 = 1;
layout(constant_id = REVERSE_SPEC_IN_STRIDES + 0) const uint IN_STRIDE_0 = 0;
layout(constant_id = REVERSE_SPEC_IN_STRIDES + 1) const uint IN_STRIDE_1 = 0;
layout(constant_id = REVERSE_SPEC_IN_STRIDES + 2) const uint IN_STRIDE_2 = 0;
layout(constant_id = REVERSE_SPEC_IN_STRIDES + 3) const uint IN_STRIDE_3 = 0;
layout(constant_id = REVERSE_SPEC_IN_STRIDES + 4) const uint IN_STRIDE_4 = 0;
layout(constant_id = REVERSE_SPEC_IN_STRIDES + 5) const uint IN_STRIDE_5 = 0;
layout(constant_id = REVERSE_SPEC_IN_STRIDES + 6) const uint IN_STRIDE_6 = 0;
layout(constant_id = REVERSE_SPEC_IN_STRIDES + 7) const uint IN_STRIDE_7 = 1;
layout(constant_id = REVERSE_SPEC_OUT_STRIDES + 0) const uint OUT_STRIDE_0 = 0;
layout(constant_id = REVERSE_SPEC_OUT_STRIDES + 1) const uint OUT_STRIDE_1 = 0;
layout(constant_id = REVERSE_SPEC_OUT_STRIDES + 2) const uint OUT_STRIDE_2 = 0;
layout(constant_id = REVERSE_SPEC_OUT_STRIDES + 3) const uint OUT_STRIDE_3 = 0;
layout(constant_id = REVERSE_SPEC_OUT_STRIDES + 4) const uint OUT_STRIDE_4 = 0;
layout(constant_id = REVERSE_SPEC_OUT_STRIDES + 5) const uint OUT_STRIDE_5 = 0;
layout(constant_id = REVERSE_SPEC_OUT_STRIDES + 6) const uint OUT_STRIDE_6 = 0;
layout(constant_id = REVERSE_SPEC_OUT_STRIDES + 7) const uint OUT_STRIDE_7 = 1;
layout(constant_id = REVERSE_SPEC_LENGTH_STRIDES + 0) const uint LENGTH_STRIDE_0 = 0;
layout(constant_id = REVERSE_SPEC_LENGTH_STRIDES + 1) const uint LENGTH_STRIDE_1 = 0;
layout(constant_id = REVERSE_SPEC_LENGTH_STRIDES + 2) const uint LENGTH_STRIDE_2 = 0;
layout(constant_id = REVERSE_SPEC_LENGTH_STRIDES + 3) const uint LENGTH_STRIDE_3 = 0;
layout(constant_id = REVERSE_SPEC_LENGTH_STRIDES + 4) const uint LENGTH_STRIDE_4 = 0;
layout(constant_id = REVERSE_SPEC_LENGTH_STRIDES + 5) const uint LENGTH_STRIDE_5 = 0;
layout(constant_id = REVERSE_SPEC_LENGTH_STRIDES + 6) const uint LENGTH_STRIDE_6 = 0;
layout(constant_id = REVERSE_SPEC_LENGTH_STRIDES + 7) const uint LENGTH_STRIDE_7 = 1;
layout(constant_id = REVERSE_SPEC_IN_LOCATION + 0) const uint IN_SLOT = 0;
layout(constant_id = REVERSE_SPEC_IN_LOCATION + 1) const uint IN_OFFSET_LO = 0;
layout(constant_id = REVERSE_SPEC_IN_LOCATION + 2) const uint IN_OFFSET_HI = 0;
layout(constant_id = REVERSE_SPEC_LENGTH_LOCATION + 0) const uint LENGTH_SLOT = 0;
layout(constant_id = REVERSE_SPEC_LENGTH_LOCATION + 1) const uint LENGTH_OFFSET_LO = 0;
layout(constant_id = REVERSE_SPEC_LENGTH_LOCATION + 2) const uint LENGTH_OFFSET_HI = 0;
layout(constant_id = REVERSE_SPEC_OUT_LOCATION + 0) const uint OUT_SLOT = 0;
layout(constant_id = REVERSE_SPEC_OUT_LOCATION + 1) const uint OUT_OFFSET_LO = 0;
layout(constant_id = REVERSE_SPEC_OUT_LOCATION + 2) const uint OUT_OFFSET_HI = 0;

/* Dimension constant `d` (DIM(SIZE, d) is SIZE_d); `d` is a constant in the unrolled loop. */
#define DIM(name, d) ((d) == 0 ? name##_0 : (d) == 1 ? name##_1 : (d) == 2 ? name##_2 : (d) == 3 ? name##_3 \
        : (d) == 4 ? name##_4 : (d) == 5 ? name##_5 : (d) == 6 ? name##_6 : name##_7)

const bool WIDE = TYPE == TIO_TYPE_FLOAT64 || TYPE == TIO_TYPE_UINT64 || TYPE == TIO_TYPE_INT64;
const uint AXIS_SIZE = DIM(SIZE, AXIS);
const uint AXIS_IN_STRIDE = DIM(IN_STRIDE, AXIS);
/* Vectors never straddle two innermost rows. */
const bool ROW_VECTORS = SIZE_7 % VECTOR == 0u;

uvec2 input_base, output_base, length_base;

/* Where output element `index` is: its output offset, its input offset without the axis term,
 * its sequence's offset in the lengths and its coordinate on the axis. */
struct Place
{
    uint output_offset, input_offset, length_offset, axis_coordinate;
};

Place locate(uint index)
{
    Place place = Place(0u, 0u, 0u, 0u);
    uint rest = index, coordinate;

    [[unroll]] for (int d = REVERSE_MAX_RANK - 1; d >= 0; --d)
    {
        coordinate = rest % DIM(SIZE, d);
        rest /= DIM(SIZE, d);
        place.output_offset += coordinate * DIM(OUT_STRIDE, d);
        if (d == AXIS)
        {
            place.axis_coordinate = coordinate;
            continue;
        }
        place.input_offset += coordinate * DIM(IN_STRIDE, d);
        place.length_offset += coordinate * DIM(LENGTH_STRIDE, d);
    }
    if (OUT_PACKED)
        place.output_offset = index;
    return place;
}

/* The input offset of the source of the element at `place`. */
uint source_of(Place place)
{
    uvec2 length_words = idx_load_words(LENGTH_TYPE, length_base, place.length_offset);
    /* Lengths past the axis (high word set included) count as the axis size. */
    uint length = length_words.y != 0u || length_words.x > AXIS_SIZE ? AXIS_SIZE : length_words.x;
    uint axis_coordinate = place.axis_coordinate;

    return place.input_offset
            + (axis_coordinate < length ? length - 1u - axis_coordinate : axis_coordinate) * AXIS_IN_STRIDE;
}

void move_element(uint index)
{
    Place place = locate(index);
    uint output_offset = place.output_offset, input_offset = source_of(place);

    if (WIDE)
        TioPair(tio_element_address(output_base, output_offset, 8u)).v
                = TioPair(tio_element_address(input_base, input_offset, 8u)).v;
    else
        tio_store_bits(TYPE, output_base, output_offset, tio_load_bits(TYPE, input_base, input_offset));
}

/* VECTOR (16 bytes' worth) consecutive output elements from `first`, packed into words. Where
 * every vector lies in one innermost row, the first element's place gives the others'. */
uvec4 vector_words(uint first)
{
    uint size = tio_element_size(TYPE), input_offset;
    Place place = locate(first), element;
    uvec4 words = uvec4(0u);

    [[unroll]] for (uint k = 0; k < VECTOR; ++k)
    {
        element = place;
        if (!ROW_VECTORS)
            element = locate(first + k);
        else if (AXIS == REVERSE_MAX_RANK - 1)
            element.axis_coordinate += k;
        else
            element.input_offset += k * IN_STRIDE_7, element.length_offset += k * LENGTH_STRIDE_7;
        input_offset = source_of(element);
        if (WIDE)
        {
            uvec2 value = TioPair(tio_element_address(input_base, input_offset, 8u)).v;

            words[2u * k] = value.x;
            words[2u * k + 1u] = value.y;
        }
        else
        {
            words[k * size / 4u] |= (tio_load_bits(TYPE, input_base, input_offset) & tio_type_mask(TYPE))
                    << (8u * (k * size % 4u));
        }
    }
    return words;
}

void main()
{
    uint group = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);
    uint first = (group * REVERSE_THREADS + gl_LocalInvocationIndex) * VECTOR;
    VkdmlDescriptorTable table = VkdmlDescriptorTable(push.table);

    if (first >= COUNT)
        return;
    input_base = vkdml_binding_address(table, IN_SLOT, IN_OFFSET_LO, IN_OFFSET_HI);
    output_base = vkdml_binding_address(table, OUT_SLOT, OUT_OFFSET_LO, OUT_OFFSET_HI);
    length_base = vkdml_binding_address(table, LENGTH_SLOT, LENGTH_OFFSET_LO, LENGTH_OFFSET_HI);
    /* A packed output: one 16-byte store where it starts 16-byte aligned (uniform) and the vector
     * is whole. */
    if (VECTOR > 1u && (output_base.x & 15u) == 0u && first + VECTOR <= COUNT)
    {
        TioVector(tio_element_address(output_base, first, tio_element_size(TYPE))).v = vector_words(first);
        return;
    }
    [[unroll]] for (uint k = 0; k < VECTOR; ++k)
    {
        if (first + k < COUNT)
            move_element(first + k);
    }
}
