#version 460
#extension GL_GOOGLE_include_directive : require
/*
 * The strided-copy service (movement_interface.h; backend_vk/ops/movement.c): SLICE, SLICE1,
 * SPLIT, JOIN, PADDING, PADDING1, TILE, SPACE_TO_DEPTH and DEPTH_TO_SPACE as copies of bits,
 * never converted (64-bit elements as uvec2 words: no shaderInt64 needed).
 *
 * Row path (the innermost dimension contiguous and unbounded on both sides): invocation i moves
 * the i-th 16-byte chunk of its row, one uvec4 load and store where both addresses are 16-byte
 * aligned, else 8- or 4-byte words, else element by element (a row's last, partial chunk).
 * Chunk path (a packed destination): invocation i gathers the 16 bytes of destination elements
 * from 16 * i and stores them as one uvec4. Gathered-row path (only the destination's rows
 * contiguous): the row path's chunks, gathered like the chunk path's. Element path (the rest):
 * invocation i writes
 * destination element i (row-major). Consecutive invocations write consecutive bytes in each;
 * PADDING's CONSTANT value is written by the same invocations (one pass over the output).
 *
 * Shapes and strides are specialization constants (divisions by them fold into multiplies);
 * the locations and the padding value are pushed.
 *
 * Variants (kernels_glsl/meson.build, typed_kernels): the storage that 8- and 16-bit elements
 * need; 32- and 64-bit elements move as words through any variant.
 */
#include "common.glsl"
#include "dml_interface.h"
#include "tensor_io.glsl"
#include "movement_interface.h"

layout(local_size_x = MOVEMENT_THREADS, local_size_y = 1, local_size_z = 1) in;

layout(constant_id = MOVEMENT_SPEC_ELEMENT_SIZE) const uint ELEMENT_SIZE = 4;
layout(constant_id = MOVEMENT_SPEC_PATH) const uint PATH = MOVEMENT_PATH_ELEMENTS;
layout(constant_id = MOVEMENT_SPEC_MODE) const uint MODE = MOVEMENT_MODE_NONE;
layout(constant_id = MOVEMENT_SPEC_INVOCATIONS) const uint INVOCATIONS = 1;
layout(constant_id = MOVEMENT_SPEC_ROW_CHUNKS) const uint ROW_CHUNKS = 1;
layout(constant_id = MOVEMENT_SPEC_SIZES + 0) const uint SIZE_0 = 1;
layout(constant_id = MOVEMENT_SPEC_SIZES + 1) const uint SIZE_1 = 1;
layout(constant_id = MOVEMENT_SPEC_SIZES + 2) const uint SIZE_2 = 1;
layout(constant_id = MOVEMENT_SPEC_SIZES + 3) const uint SIZE_3 = 1;
layout(constant_id = MOVEMENT_SPEC_SIZES + 4) const uint SIZE_4 = 1;
layout(constant_id = MOVEMENT_SPEC_SIZES + 5) const uint SIZE_5 = 1;
layout(constant_id = MOVEMENT_SPEC_SIZES + 6) const uint SIZE_6 = 1;
layout(constant_id = MOVEMENT_SPEC_SIZES + 7) const uint SIZE_7 = 1;
layout(constant_id = MOVEMENT_SPEC_SOURCE_STRIDES + 0) const uint SOURCE_STRIDE_0 = 0;
layout(constant_id = MOVEMENT_SPEC_SOURCE_STRIDES + 1) const uint SOURCE_STRIDE_1 = 0;
layout(constant_id = MOVEMENT_SPEC_SOURCE_STRIDES + 2) const uint SOURCE_STRIDE_2 = 0;
layout(constant_id = MOVEMENT_SPEC_SOURCE_STRIDES + 3) const uint SOURCE_STRIDE_3 = 0;
layout(constant_id = MOVEMENT_SPEC_SOURCE_STRIDES + 4) const uint SOURCE_STRIDE_4 = 0;
layout(constant_id = MOVEMENT_SPEC_SOURCE_STRIDES + 5) const uint SOURCE_STRIDE_5 = 0;
layout(constant_id = MOVEMENT_SPEC_SOURCE_STRIDES + 6) const uint SOURCE_STRIDE_6 = 0;
layout(constant_id = MOVEMENT_SPEC_SOURCE_STRIDES + 7) const uint SOURCE_STRIDE_7 = 1;
layout(constant_id = MOVEMENT_SPEC_DESTINATION_STRIDES + 0) const uint DESTINATION_STRIDE_0 = 0;
layout(constant_id = MOVEMENT_SPEC_DESTINATION_STRIDES + 1) const uint DESTINATION_STRIDE_1 = 0;
layout(constant_id = MOVEMENT_SPEC_DESTINATION_STRIDES + 2) const uint DESTINATION_STRIDE_2 = 0;
layout(constant_id = MOVEMENT_SPEC_DESTINATION_STRIDES + 3) const uint DESTINATION_STRIDE_3 = 0;
layout(constant_id = MOVEMENT_SPEC_DESTINATION_STRIDES + 4) const uint DESTINATION_STRIDE_4 = 0;
layout(constant_id = MOVEMENT_SPEC_DESTINATION_STRIDES + 5) const uint DESTINATION_STRIDE_5 = 0;
layout(constant_id = MOVEMENT_SPEC_DESTINATION_STRIDES + 6) const uint DESTINATION_STRIDE_6 = 0;
layout(constant_id = MOVEMENT_SPEC_DESTINATION_STRIDES + 7) const uint DESTINATION_STRIDE_7 = 1;
layout(constant_id = MOVEMENT_SPEC_BOUND_SIZES + 0) const uint BOUND_SIZE_0 = 0;
layout(constant_id = MOVEMENT_SPEC_BOUND_SIZES + 1) const uint BOUND_SIZE_1 = 0;
layout(constant_id = MOVEMENT_SPEC_BOUND_SIZES + 2) const uint BOUND_SIZE_2 = 0;
layout(constant_id = MOVEMENT_SPEC_BOUND_SIZES + 3) const uint BOUND_SIZE_3 = 0;
layout(constant_id = MOVEMENT_SPEC_BOUND_SIZES + 4) const uint BOUND_SIZE_4 = 0;
layout(constant_id = MOVEMENT_SPEC_BOUND_SIZES + 5) const uint BOUND_SIZE_5 = 0;
layout(constant_id = MOVEMENT_SPEC_BOUND_SIZES + 6) const uint BOUND_SIZE_6 = 0;
layout(constant_id = MOVEMENT_SPEC_BOUND_SIZES + 7) const uint BOUND_SIZE_7 = 0;
layout(constant_id = MOVEMENT_SPEC_BOUND_STARTS + 0) const uint BOUND_START_0 = 0;
layout(constant_id = MOVEMENT_SPEC_BOUND_STARTS + 1) const uint BOUND_START_1 = 0;
layout(constant_id = MOVEMENT_SPEC_BOUND_STARTS + 2) const uint BOUND_START_2 = 0;
layout(constant_id = MOVEMENT_SPEC_BOUND_STARTS + 3) const uint BOUND_START_3 = 0;
layout(constant_id = MOVEMENT_SPEC_BOUND_STARTS + 4) const uint BOUND_START_4 = 0;
layout(constant_id = MOVEMENT_SPEC_BOUND_STARTS + 5) const uint BOUND_START_5 = 0;
layout(constant_id = MOVEMENT_SPEC_BOUND_STARTS + 6) const uint BOUND_START_6 = 0;
layout(constant_id = MOVEMENT_SPEC_BOUND_STARTS + 7) const uint BOUND_START_7 = 0;

/* Dimension constant `d` (DIM(SIZE, d) is SIZE_d); `d` is a constant in the unrolled loops. */
#define DIM(name, d) ((d) == 0 ? name##_0 : (d) == 1 ? name##_1 : (d) == 2 ? name##_2 : (d) == 3 ? name##_3 \
        : (d) == 4 ? name##_4 : (d) == 5 ? name##_5 : (d) == 6 ? name##_6 : name##_7)

/* The type whose bits an element of ELEMENT_SIZE bytes (up to 4) moves as. */
const uint BITS_TYPE = ELEMENT_SIZE == 1u ? TIO_TYPE_UINT8 : ELEMENT_SIZE == 2u ? TIO_TYPE_UINT16 : TIO_TYPE_UINT32;
/* Elements per 16-byte chunk (row and chunk paths). */
const uint CHUNK = 16u / ELEMENT_SIZE;
const uint ELEMENTS = SIZE_0 * SIZE_1 * SIZE_2 * SIZE_3 * SIZE_4 * SIZE_5 * SIZE_6 * SIZE_7;

/* `s` modulo `period`, in [0, period). */
uint positive_modulo(int s, uint period)
{
    return s >= 0 ? uint(s) % period : period - 1u - uint(-s - 1) % period;
}

/* The source coordinate of destination coordinate `c` on dimension `d`; `inside` becomes false
 * where CONSTANT's value goes. REFLECTION and SYMMETRIC fold periodically (pads may exceed the
 * input: README, "Data movement"); the clamp keeps every address in the source whatever comes. */
uint source_coordinate(uint c, int d, inout bool inside)
{
    int n = int(DIM(BOUND_SIZE, d)), s;
    uint u;

    if (MODE == MOVEMENT_MODE_NONE || n == 0)
        return c;
    s = int(c) - int(DIM(BOUND_START, d));
    if (s >= 0 && s < n)
        return uint(s);
    if (MODE == MOVEMENT_MODE_CONSTANT)
    {
        inside = false;
        return 0u;
    }
    if (MODE == MOVEMENT_MODE_EDGE || n == 1)
        return s < 0 ? 0u : uint(n - 1);
    if (MODE == MOVEMENT_MODE_REFLECTION)
    {
        u = positive_modulo(s, uint(2 * n - 2));
        u = u < uint(n) ? u : uint(2 * n - 2) - u;
    }
    else if (MODE == MOVEMENT_MODE_SYMMETRIC)
    {
        u = positive_modulo(s, uint(2 * n));
        u = u < uint(n) ? u : uint(2 * n - 1) - u;
    }
    else
    {
        u = positive_modulo(s, uint(n));
    }
    return min(u, uint(n - 1));
}

/* The destination and source element offsets of row `row` (dimensions 0 to 6; the innermost
 * dimension, 7, is the row). */
void row_offsets(uint row, out uint destination, out uint source, out bool inside)
{
    destination = push.destination.w;
    source = push.source.w;
    inside = true;
    [[unroll]] for (int d = MOVEMENT_MAX_RANK - 2; d >= 0; --d)
    {
        uint c = row % DIM(SIZE, d);

        row /= DIM(SIZE, d);
        destination += c * DIM(DESTINATION_STRIDE, d);
        /* Wrapping uint arithmetic: negative strides are two's complement. */
        source += source_coordinate(c, d, inside) * DIM(SOURCE_STRIDE, d);
    }
}

/* Element `c` of a row whose source starts at `source`. */
uint row_source(uint source, uint c, inout bool inside)
{
    return source + source_coordinate(c, MOVEMENT_MAX_RANK - 1, inside) * SOURCE_STRIDE_7;
}

/* The element's bits (CONSTANT's value outside), zero-extended; 64-bit ones as (low, high). */
uvec2 load_element(uvec2 source_base, uint source, bool inside)
{
    if (!inside)
        return ELEMENT_SIZE == 8u ? push.value : uvec2(push.value.x & tio_type_mask(BITS_TYPE), 0u);
    if (ELEMENT_SIZE == 8u)
        return TioPair(tio_element_address(source_base, source, 8u)).v;
    return uvec2(tio_load_bits(BITS_TYPE, source_base, source) & tio_type_mask(BITS_TYPE), 0u);
}

void store_element(uvec2 destination_base, uint destination, uvec2 bits)
{
    if (ELEMENT_SIZE == 8u)
        TioPair(tio_element_address(destination_base, destination, 8u)).v = bits;
    else
        tio_store_bits(BITS_TYPE, destination_base, destination, bits.x);
}

/* The row path: chunk `index` of the rows, 16 bytes (or the row's rest). */
void copy_row_chunk(uvec2 source_base, uvec2 destination_base, uint index)
{
    uint row = index / ROW_CHUNKS, first = (index % ROW_CHUNKS) * CHUNK, count, destination, source, k;
    uvec2 destination_address, source_address;
    uint alignment;
    bool inside;

    row_offsets(row, destination, source, inside);
    destination += first;
    source += first;
    count = min(CHUNK, SIZE_7 - first);
    destination_address = tio_element_address(destination_base, destination, ELEMENT_SIZE);
    source_address = tio_element_address(source_base, source, ELEMENT_SIZE);
    alignment = destination_address.x | (inside ? source_address.x : 0u);
    if (count == CHUNK && (alignment & 15u) == 0u)
    {
        TioVector(destination_address).v = inside ? TioVector(source_address).v : push.value.xyxy;
        return;
    }
    if (count == CHUNK && (alignment & 7u) == 0u)
    {
        [[unroll]] for (k = 0; k < 2u; ++k)
            TioPair(tio_add64(destination_address, 8u * k, 0u)).v = inside
                    ? TioPair(tio_add64(source_address, 8u * k, 0u)).v : push.value;
        return;
    }
    if (count == CHUNK && (alignment & 3u) == 0u)
    {
        [[unroll]] for (k = 0; k < 4u; ++k)
            TioWord(tio_add64(destination_address, 4u * k, 0u)).v = inside
                    ? TioWord(tio_add64(source_address, 4u * k, 0u)).v : push.value[k % 2u];
        return;
    }
    for (k = 0; k < count; ++k)
        store_element(destination_base, destination + k, load_element(source_base, source + k, inside));
}

/* The gathered-row path (the destination's rows contiguous, the source's not): chunk `index`
 * of the rows, gathered element by element, one uvec4 store where the destination is 16-byte
 * aligned and the chunk whole. */
void gather_row_chunk(uvec2 source_base, uvec2 destination_base, uint index)
{
    uint row = index / ROW_CHUNKS, first = (index % ROW_CHUNKS) * CHUNK, count, destination, source, k;
    uvec2 address;
    uvec4 words = uvec4(0u);
    bool inside, whole;

    row_offsets(row, destination, source, inside);
    count = min(CHUNK, SIZE_7 - first);
    address = tio_element_address(destination_base, destination + first, ELEMENT_SIZE);
    whole = count == CHUNK && (address.x & 15u) == 0u;
    [[unroll]] for (k = 0; k < CHUNK; ++k)
    {
        bool element_inside = inside;
        uvec2 bits;

        if (k >= count)
            break;
        bits = load_element(source_base, row_source(source, first + k, element_inside), element_inside);
        if (!whole)
            store_element(destination_base, destination + first + k, bits);
        else if (ELEMENT_SIZE == 8u)
            words[2u * k] = bits.x, words[2u * k + 1u] = bits.y;
        else
            words[k * ELEMENT_SIZE / 4u] |= bits.x << (8u * (k * ELEMENT_SIZE % 4u));
    }
    if (whole)
        TioVector(address).v = words;
}

/* The chunk path (a packed destination): elements [first, first + CHUNK), gathered one by one,
 * stored as one uvec4 where the destination is 16-byte aligned (the same for every invocation).
 * Rows are followed incrementally; a row's end recomputes the outer offsets. */
void copy_packed_chunk(uvec2 source_base, uvec2 destination_base, uint first)
{
    uint row = first / SIZE_7, c = first % SIZE_7, destination, source, k;
    uvec2 address = tio_element_address(destination_base, push.destination.w + first, ELEMENT_SIZE);
    bool whole = first + CHUNK <= ELEMENTS && (address.x & 15u) == 0u, inside;
    uvec4 words = uvec4(0u);

    row_offsets(row, destination, source, inside);
    [[unroll]] for (k = 0; k < CHUNK; ++k)
    {
        bool element_inside = inside;
        uvec2 bits;

        if (first + k >= ELEMENTS)
            break;
        bits = load_element(source_base, row_source(source, c, element_inside), element_inside);
        if (!whole)
            store_element(destination_base, push.destination.w + first + k, bits);
        else if (ELEMENT_SIZE == 8u)
            words[2u * k] = bits.x, words[2u * k + 1u] = bits.y;
        else
            words[k * ELEMENT_SIZE / 4u] |= bits.x << (8u * (k * ELEMENT_SIZE % 4u));
        if (++c == SIZE_7 && k + 1u < CHUNK)
        {
            c = 0u;
            row_offsets(++row, destination, source, inside);
        }
    }
    if (whole)
        TioVector(address).v = words;
}

void main()
{
    uint group = gl_WorkGroupID.x + gl_NumWorkGroups.x * (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);
    uint index = group * MOVEMENT_THREADS + gl_LocalInvocationIndex;
    VkdmlDescriptorTable table = VkdmlDescriptorTable(push.table);
    uvec2 source_base = vkdml_binding_address(table, push.source.x, push.source.y, push.source.z);
    uvec2 destination_base = vkdml_binding_address(table, push.destination.x, push.destination.y,
            push.destination.z);
    uint destination, source, c;
    bool inside;

    if (index >= INVOCATIONS)
        return;
    if (PATH == MOVEMENT_PATH_ROWS)
    {
        copy_row_chunk(source_base, destination_base, index);
        return;
    }
    if (PATH == MOVEMENT_PATH_GATHER_ROWS)
    {
        gather_row_chunk(source_base, destination_base, index);
        return;
    }
    if (PATH == MOVEMENT_PATH_CHUNKS)
    {
        copy_packed_chunk(source_base, destination_base, index * CHUNK);
        return;
    }
    c = index % SIZE_7;
    row_offsets(index / SIZE_7, destination, source, inside);
    source = row_source(source, c, inside);
    store_element(destination_base, destination + c * DESTINATION_STRIDE_7, load_element(source_base, source, inside));
}
