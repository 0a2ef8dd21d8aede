/*
 * The tiled transpose of the strided-copy service (ops_private.h, vkdml_transpose_add_dispatch):
 * a copy whose source and destination are contiguous along different dimensions goes through
 * shared memory in tiles (kernels_glsl/transpose.comp, include/transpose_interface.h), so that
 * both its reads and its writes are coalesced; an element-by-element copy reads or writes with a
 * stride there and moves a fraction of the bandwidth (README, "Transposes").
 */

#include <inttypes.h>
#include <string.h>

#include "ops_private.h"
#include "transpose_interface.h"

/* Both contiguous extents must fill this much of a tile for tiling to pay. */
#define TRANSPOSE_MIN_EXTENT 8

/* The copy after dropping size-1 dimensions and merging neighbours contiguous on both sides,
 * index 0 outermost. */
struct transpose_dims
{
    uint32_t rank;
    uint32_t sizes[VKDML_MAX_RANK];
    uint64_t source_strides[VKDML_MAX_RANK], destination_strides[VKDML_MAX_RANK];
};

/* False for what the tiled path does not take: reversed or broadcast dimensions. */
static bool merge_dims(const struct vkdml_strided_copy *copy, struct transpose_dims *dims)
{
    uint32_t n = 0, i;

    memset(dims, 0, sizeof(*dims));
    for (i = 0; i < copy->rank; ++i)
    {
        uint32_t size = copy->sizes[i];

        if (size == 1)
            continue;
        if (copy->source_strides[i] <= 0 || copy->destination_strides[i] <= 0)
            return false;
        dims->sizes[n] = size;
        dims->source_strides[n] = (uint64_t)copy->source_strides[i];
        dims->destination_strides[n] = (uint64_t)copy->destination_strides[i];
        /* Dimension n - 1 (outer) and n merge when n - 1 steps over all of n on both sides. */
        if (n && dims->source_strides[n - 1] == dims->source_strides[n] * size
                && dims->destination_strides[n - 1] == dims->destination_strides[n] * size)
        {
            dims->sizes[n - 1] *= size;
            dims->source_strides[n - 1] = dims->source_strides[n];
            dims->destination_strides[n - 1] = dims->destination_strides[n];
            continue;
        }
        ++n;
    }
    dims->rank = n;
    return true;
}

/* The element after the last one a side addresses, relative to its first. */
static uint64_t extent(const struct transpose_dims *dims, const uint64_t *strides)
{
    uint64_t end = 1;
    uint32_t i;

    for (i = 0; i < dims->rank; ++i)
        end += (uint64_t)(dims->sizes[i] - 1) * strides[i];
    return end;
}

static uint32_t find_unit_stride(const struct transpose_dims *dims, const uint64_t *strides)
{
    uint32_t i;

    for (i = 0; i < dims->rank; ++i)
    {
        if (strides[i] == 1)
            return i;
    }
    return UINT32_MAX;
}

static void set_offset(uint32_t words[2], const struct vkdml_tensor_location *location, uint64_t first,
        unsigned int element_size)
{
    uint64_t offset = location->offset + first * element_size;

    words[0] = (uint32_t)offset;
    words[1] = (uint32_t)(offset >> 32);
}

/* The push constants of a tileable copy (`outer_rank` receives the number of outer dimensions);
 * false when the copy is not one. */
static bool plan(const struct vkdml_strided_copy *copy, struct transpose_push *push, uint32_t *outer_rank)
{
    unsigned int element_size = vkdml_element_size(copy->type);
    uint32_t column_dim, row_dim, n = 0, i;
    struct transpose_dims dims;

    if (!element_size || copy->rank > VKDML_MAX_RANK || !merge_dims(copy, &dims))
        return false;
    column_dim = find_unit_stride(&dims, dims.source_strides);
    row_dim = find_unit_stride(&dims, dims.destination_strides);
    if (column_dim == UINT32_MAX || row_dim == UINT32_MAX || column_dim == row_dim
            || dims.sizes[column_dim] < TRANSPOSE_MIN_EXTENT || dims.sizes[row_dim] < TRANSPOSE_MIN_EXTENT)
        return false;
    /* The kernel's element offsets are 32-bit. */
    if (extent(&dims, dims.source_strides) > UINT32_MAX || extent(&dims, dims.destination_strides) > UINT32_MAX)
        return false;

    memset(push, 0, sizeof(*push));
    push->source_slot = copy->source.slot;
    push->destination_slot = copy->destination.slot;
    set_offset(push->source_offset, &copy->source, copy->source_first, element_size);
    set_offset(push->destination_offset, &copy->destination, copy->destination_first, element_size);
    push->columns = dims.sizes[column_dim];
    push->rows = dims.sizes[row_dim];
    push->source_row_stride = (uint32_t)dims.source_strides[row_dim];
    push->destination_column_stride = (uint32_t)dims.destination_strides[column_dim];
    push->outer_count = 1;
    for (i = 0; i < TRANSPOSE_MAX_OUTER; ++i)
        push->outer_sizes[i] = 1;
    /* The other dimensions, innermost first (rank - 2 <= TRANSPOSE_MAX_OUTER). */
    for (i = dims.rank; i-- > 0;)
    {
        if (i == column_dim || i == row_dim)
            continue;
        push->outer_sizes[n] = dims.sizes[i];
        push->outer_source_strides[n] = (uint32_t)dims.source_strides[i];
        push->outer_destination_strides[n] = (uint32_t)dims.destination_strides[i];
        push->outer_count *= dims.sizes[i];
        ++n;
    }
    *outer_rank = n;
    return true;
}

/* 2-byte elements move in pairs (one word) where every pair is 4-byte aligned. */
static uint32_t vector_width(const struct transpose_push *push, unsigned int element_size)
{
    uint32_t odd = push->source_offset[0] % 4 | push->destination_offset[0] % 4
            | push->source_row_stride % 2 | push->destination_column_stride % 2, i;

    for (i = 0; i < TRANSPOSE_MAX_OUTER; ++i)
        odd |= push->outer_source_strides[i] % 2 | push->outer_destination_strides[i] % 2;
    return element_size == 2 && !odd ? 2 : 1;
}

/* Specialized shapes on GPUs, pushed ones on CPU devices, as element-wise shapes (elementwise.c,
 * VKDML_ELEMENTWISE_SHAPES): IDENTITY is an element-wise operator. */
static bool specialize_shapes(const struct vkdml_compile *compile)
{
    if (compile->knobs->elementwise_shapes != VKDML_SHAPES_AUTO)
        return compile->knobs->elementwise_shapes == VKDML_SHAPES_SPECIALIZE;
    return !compile->vk->adapter.is_software;
}

static void fill_spec(const struct vkdml_compile *compile, const struct transpose_push *push, uint32_t outer_rank,
        unsigned int element_size, uint32_t spec[TRANSPOSE_SPEC_COUNT])
{
    uint32_t tile, i;

    memset(spec, 0, TRANSPOSE_SPEC_COUNT * sizeof(*spec));
    spec[TRANSPOSE_SPEC_ELEMENT_SIZE] = element_size;
    spec[TRANSPOSE_SPEC_VECTOR] = vector_width(push, element_size);
    /* Two tiles' width for 4-byte elements: +2% on the H200; 2- and 8-byte ones, which hold
     * twice the registers per access, lose occupancy with it (docs/kernels.md). */
    spec[TRANSPOSE_SPEC_SPAN] = element_size == 4 ? 2 : 1;
    spec[TRANSPOSE_SPEC_OUTER_RANK] = outer_rank;
    tile = TRANSPOSE_LANES * spec[TRANSPOSE_SPEC_VECTOR];
    spec[TRANSPOSE_SPEC_COLUMN_TILES] = 1;
    spec[TRANSPOSE_SPEC_ROW_TILES] = 1;
    for (i = 0; i < TRANSPOSE_MAX_OUTER; ++i)
        spec[TRANSPOSE_SPEC_OUTER_SIZES + i] = 1;
    if (!specialize_shapes(compile))
        return;
    spec[TRANSPOSE_SPEC_SPECIALIZED] = 1;
    spec[TRANSPOSE_SPEC_COLUMN_TILES] = (uint32_t)vkdml_div_up(push->columns, tile * spec[TRANSPOSE_SPEC_SPAN]);
    spec[TRANSPOSE_SPEC_ROW_TILES] = (uint32_t)vkdml_div_up(push->rows, tile);
    for (i = 0; i < TRANSPOSE_MAX_OUTER; ++i)
        spec[TRANSPOSE_SPEC_OUTER_SIZES + i] = push->outer_sizes[i];
}

HRESULT vkdml_transpose_add_dispatch(struct vkdml_compile *compile, const struct vkdml_strided_copy *copy)
{
    unsigned int element_size = vkdml_element_size(copy->type);
    uint32_t spec[TRANSPOSE_SPEC_COUNT], groups[3], outer_rank, tile;
    struct transpose_push push;
    enum vkdml_kernel_id kernel;
    uint64_t tiles;
    HRESULT hr;

    if (!plan(copy, &push, &outer_rank))
        return S_FALSE;
    if (!vkdml_find_kernel_variant(&compile->vk->caps, "transpose", NULL, vkdml_move_kernel_features(copy->type),
            &kernel))
        return S_FALSE;
    fill_spec(compile, &push, outer_rank, element_size, spec);
    tile = TRANSPOSE_LANES * spec[TRANSPOSE_SPEC_VECTOR];
    tiles = vkdml_div_up(push.columns, tile * spec[TRANSPOSE_SPEC_SPAN]) * vkdml_div_up(push.rows, tile)
            * (uint64_t)push.outer_count;
    if (FAILED(hr = vkdml_spread_groups(compile, tiles, groups)))
        return hr;
    TRACE("Tiled transpose: %u-byte elements by %u, %u columns x %u rows x %u, %" PRIu64 " tiles of %u.",
            element_size, spec[TRANSPOSE_SPEC_VECTOR], push.columns, push.rows, push.outer_count, tiles, tile);
    return vkdml_compile_add_dispatch(compile, kernel, spec, TRANSPOSE_SPEC_COUNT, &push, sizeof(push), groups, false);
}
