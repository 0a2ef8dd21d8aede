/*
 * The softmax family: ACTIVATION_SOFTMAX, ACTIVATION_LOG_SOFTMAX and ACTIVATION_HARDMAX (the last
 * dimension) and their `1` forms (any set of Axes, FL 5_1): DirectML's rules, and one dispatch of
 * kernels_glsl/softmax.comp (softmax_interface.h), which GEMM's fused SOFTMAX and SOFTMAX1 also
 * use (vkdml_softmax_add_fused()).
 *
 * DirectML's rules: InputTensor and OutputTensor have the same data type (FLOAT32 or FLOAT16),
 * rank and sizes. The first forms' input must have an effective rank (its leading sizes of 1
 * dropped) of at most 2; they reduce over the last dimension. The `1` forms take Axes in
 * [0, rank), none repeated. README, "Softmax, log-softmax and hardmax", has what the pages leave
 * open (NaN, -inf rows, ties).
 */

#include <inttypes.h>
#include <string.h>

#include "ops_private.h"
#include "softmax_interface.h"

/* The first forms' descs and the `1` forms' descs share their leading fields (DirectML.h). */
_Static_assert(offsetof(DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC, Axes)
        == offsetof(DML_ACTIVATION_HARDMAX1_OPERATOR_DESC, Axes), "softmax descs");
_Static_assert(offsetof(DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC, Axes)
        == offsetof(DML_ACTIVATION_LOG_SOFTMAX1_OPERATOR_DESC, Axes), "softmax descs");

/* The columns path: rows of at most this many entries take it whatever their layout; it aims at
 * this many invocations in all (a large GPU's: 132 SMs x 2048), splitting rows into slices. */
#define SOFTMAX_SHORT_ROW 16
#define SOFTMAX_COLUMNS_TARGET_THREADS (1u << 18)
/* ... and gives a workgroup at least this many bytes of each entry (eight 32-byte memory sectors:
 * on the H200, 8192 x 8192 along axis 0 in fp32 took 283 us with 64, 213 with 128, 207 with 256). */
#define SOFTMAX_COLUMN_TILE_BYTES 256
/* ... and when that makes fewer than this many workgroups (two per SM of a large GPU), splits the
 * rows into chunks (each slice at least SOFTMAX_MIN_COLUMN_SLICE entries of one). */
#define SOFTMAX_COLUMNS_TARGET_GROUPS 256
#define SOFTMAX_MIN_COLUMN_SLICE 16
/* Rows too long for registers are split over workgroups (chunks of at least SOFTMAX_MIN_CHUNK
 * entries) while there are fewer than this many workgroups. */
#define SOFTMAX_SPLIT_TARGET_GROUPS 1024
/* Registers path: from this many rows on, rows that a subgroup can hold take a team of lanes each,
 * SOFTMAX_TEAM_THREADS / team rows per workgroup. */
#define SOFTMAX_TEAM_MIN_ROWS 1024
#define SOFTMAX_TEAM_THREADS 128
#define SOFTMAX_MIN_CHUNK 16384

static bool has_axes(DML_OPERATOR_TYPE type)
{
    return type == DML_OPERATOR_ACTIVATION_SOFTMAX1 || type == DML_OPERATOR_ACTIVATION_LOG_SOFTMAX1
            || type == DML_OPERATOR_ACTIVATION_HARDMAX1;
}

static uint32_t softmax_function(DML_OPERATOR_TYPE type)
{
    switch (type)
    {
        case DML_OPERATOR_ACTIVATION_LOG_SOFTMAX:
        case DML_OPERATOR_ACTIVATION_LOG_SOFTMAX1:
            return SOFTMAX_FUNCTION_LOG_SOFTMAX;
        case DML_OPERATOR_ACTIVATION_HARDMAX:
        case DML_OPERATOR_ACTIVATION_HARDMAX1:
            return SOFTMAX_FUNCTION_HARDMAX;
        default:
            return SOFTMAX_FUNCTION_SOFTMAX;
    }
}

/* ---- Validation ---- */

/* The first forms: DirectML's pages allow an effective rank of at most 2. */
static HRESULT validate_effective_rank(const struct vkdml_operator_view *op)
{
    const DML_BUFFER_TENSOR_DESC *input = op->inputs[0];
    uint32_t first = 0;

    while (first + 1 < input->DimensionCount && input->Sizes[first] == 1)
        ++first;
    if (input->DimensionCount - first > 2)
        return vkdml_op_error(op, E_INVALIDARG, "InputTensor's effective rank %u (DimensionCount=%u without its "
                "leading sizes of 1) must be at most 2; the `1` form of the operator takes any Axes.",
                input->DimensionCount - first, input->DimensionCount);
    return S_OK;
}

/* The reduced axes as a mask (bit i: axis i). */
static HRESULT reduced_mask(const struct vkdml_operator_view *op, uint32_t *mask)
{
    const DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC *desc = op->desc;
    uint32_t rank = op->inputs[0]->DimensionCount;

    if (has_axes(op->type))
        return vkdml_validate_axes(op, rank, desc->Axes, desc->AxisCount, "Axes", mask);
    *mask = 1u << (rank - 1);
    return S_OK;
}

HRESULT vkdml_softmax_validate(struct vkdml_backend_device *device, const struct vkdml_operator_view *op)
{
    uint32_t mask;
    HRESULT hr;

    if (FAILED(hr = vkdml_validate_same_sizes(op, op->outputs[0], "OutputTensor", op->inputs[0], "InputTensor")))
        return hr;
    if (!has_axes(op->type) && FAILED(hr = validate_effective_rank(op)))
        return hr;
    if (FAILED(hr = reduced_mask(op, &mask)))
        return hr;
    if (FAILED(hr = vkdml_check_subgroup_reductions(device, op)))
        return hr;
    if (FAILED(hr = vkdml_check_index_range(op, op->inputs[0], "InputTensor")))
        return hr;
    return vkdml_check_index_range(op, op->outputs[0], "OutputTensor");
}

/* ---- Compilation ---- */

/* The layout's dimensions into the kernel's last slots, the leading ones of size 1. */
static void fill_dims(uint32_t count, const uint32_t *sizes, const uint32_t (*strides)[VKDML_MAX_RANK],
        uint32_t *spec_sizes, uint32_t *spec_in_strides, uint32_t *spec_out_strides)
{
    uint32_t first = SOFTMAX_MAX_DIMS - count, i;

    for (i = 0; i < SOFTMAX_MAX_DIMS; ++i)
    {
        spec_sizes[i] = i < first ? 1 : sizes[i - first];
        spec_in_strides[i] = i < first ? 0 : strides[0][i - first];
        spec_out_strides[i] = i < first ? 0 : strides[1][i - first];
    }
}

/* The columns path suits short rows, and rows whose entries are far apart while neighbouring
 * rows are adjacent in the input (a reduction over an outer axis): invocations then read
 * coalesced. A warp's worth of rows at least. */
static bool columns_suit(const struct vkdml_axes_layout *layout)
{
    if (!layout->kept_count || layout->kept_elements < 32)
        return false;
    if (layout->reduced_elements <= SOFTMAX_SHORT_ROW)
        return true;
    return layout->kept_strides[0][layout->kept_count - 1] == 1
            && layout->reduced_strides[0][layout->reduced_count - 1] != 1;
}

/* Adjacent rows per invocation of the columns path, loaded together (up to 16 bytes): the innermost
 * kept dimension packed and a multiple of the width, every other stride too (groups stay aligned)
 * in both tensors, and the locations aligned to the load. */
static uint32_t column_width(const struct vkdml_axes_layout *layout, DML_TENSOR_DATA_TYPE type,
        const struct vkdml_tensor_location *input, const struct vkdml_tensor_location *output)
{
    uint32_t inner = layout->kept_count - 1, width = SOFTMAX_MAX_COLUMN_WIDTH, i, t;
    bool aligned;

    for (; width > 1; width /= 2)
    {
        aligned = width * vkdml_element_size(type) <= 16 && !(layout->kept_sizes[inner] % width)
                && !(input->offset % (width * vkdml_element_size(type)))
                && !(output->offset % (width * vkdml_element_size(type)));
        for (t = 0; t < 2 && aligned; ++t)
        {
            aligned = layout->kept_strides[t][inner] == 1;
            for (i = 0; i < inner; ++i)
                aligned = aligned && !(layout->kept_strides[t][i] % width);
            for (i = 0; i < layout->reduced_count; ++i)
                aligned = aligned && !(layout->reduced_strides[t][i] % width);
        }
        if (aligned)
            return width;
    }
    return 1;
}

/* Slices per row (a power of 2, at most the row's length) to reach the target invocations. */
static uint32_t column_slices(const struct vkdml_axes_layout *layout, uint32_t width)
{
    uint64_t lanes = layout->kept_elements / width;
    uint32_t slices = 1;

    while (slices < SOFTMAX_MAX_SLICES && 2 * slices <= layout->reduced_elements
            && lanes * slices * 2 <= SOFTMAX_COLUMNS_TARGET_THREADS)
        slices *= 2;
    return slices;
}

static uint32_t max_threads(const struct vkdml_compile *compile)
{
    const VkPhysicalDeviceLimits *limits = &compile->vk->caps.properties.limits;
    uint32_t threads = SOFTMAX_MAX_THREADS;

    while (threads > 64 && (threads > limits->maxComputeWorkGroupInvocations
            || threads > limits->maxComputeWorkGroupSize[0]))
        threads /= 2;
    return threads;
}

/* Entries per load of the registers path: 16 bytes where each row is contiguous and 16-byte
 * aligned in both tensors (DirectML binding offsets are multiples of 16), else 1. */
static uint32_t vector_width(const struct vkdml_axes_layout *layout, DML_TENSOR_DATA_TYPE type,
        const struct vkdml_tensor_location *input, const struct vkdml_tensor_location *output)
{
    uint32_t width = 16 / vkdml_element_size(type), i, t;

    if (layout->reduced_count != 1 || layout->reduced_elements % width || input->offset % 16 || output->offset % 16)
        return 1;
    for (t = 0; t < 2; ++t)
    {
        if (layout->reduced_strides[t][0] != 1)
            return 1;
        for (i = 0; i < layout->kept_count; ++i)
        {
            if (layout->kept_strides[t][i] % width)
                return 1;
        }
    }
    return width;
}

/* Splits long rows over workgroups while they are too few for a large GPU. */
static void choose_chunks(const struct vkdml_axes_layout *layout, uint32_t vector, uint32_t spec[SOFTMAX_SPEC_COUNT],
        uint64_t *workgroups)
{
    uint64_t length = layout->reduced_elements, chunks, chunk_length;

    chunks = (SOFTMAX_SPLIT_TARGET_GROUPS + layout->kept_elements - 1) / layout->kept_elements;
    chunks = VKDML_MIN(chunks, length / SOFTMAX_MIN_CHUNK);
    if (chunks < 2)
        return;
    /* Whole vectors per chunk. */
    chunk_length = VKDML_ALIGN_UP((length + chunks - 1) / chunks, vector);
    chunks = (length + chunk_length - 1) / chunk_length;
    spec[SOFTMAX_SPEC_PATH] = SOFTMAX_PATH_SPLIT_STATS;
    spec[SOFTMAX_SPEC_CHUNKS] = (uint32_t)chunks;
    spec[SOFTMAX_SPEC_CHUNK_LENGTH] = (uint32_t)chunk_length;
    *workgroups = layout->kept_elements * chunks;
}

/* Lanes per row of the registers path's team mode (a power of 2, at most 32 and the subgroup
 * size): the fewest that hold the row in 16 registers each, then up to 32; 0 (a workgroup per
 * row) for long rows, or rows too few to keep a large GPU busy that way. */
static uint32_t team_size(const struct vkdml_compile *compile, const struct vkdml_axes_layout *layout)
{
    uint32_t subgroup = compile->vk->caps.subgroup_size, largest = VKDML_MIN(32, subgroup), team = 1;

    if (layout->kept_elements < SOFTMAX_TEAM_MIN_ROWS || !subgroup || SOFTMAX_TEAM_THREADS % subgroup
            || layout->reduced_elements > (uint64_t)largest * SOFTMAX_MAX_PER_THREAD)
        return 0;
    while (team < largest && layout->reduced_elements > (uint64_t)team * SOFTMAX_MAX_PER_THREAD / 2)
        team *= 2;
    return team;
}

/* VKDML_SOFTMAX_TUNE=column_bytes,loads_per_invocation (0: the default) overrides
 * SOFTMAX_COLUMN_TILE_BYTES and the registers path's loads per invocation before it grows. */
static uint32_t tuned(const struct vkdml_compile *compile, unsigned int i, uint32_t fallback)
{
    const struct vkdml_tuning_knob *knob = &compile->knobs->softmax_tune;

    return i < knob->count && knob->values[i] ? knob->values[i] : fallback;
}

/* Splits the columns path's rows into chunks of entries while its workgroups are too few. */
static void choose_column_chunks(const struct vkdml_axes_layout *layout, uint32_t slices,
        uint32_t spec[SOFTMAX_SPEC_COUNT], uint64_t *workgroups)
{
    uint64_t length = layout->reduced_elements, chunks, chunk_length;

    chunks = (SOFTMAX_COLUMNS_TARGET_GROUPS + *workgroups - 1) / *workgroups;
    chunks = VKDML_MIN(chunks, length / ((uint64_t)slices * SOFTMAX_MIN_COLUMN_SLICE));
    if (chunks < 2)
        return;
    chunk_length = (length + chunks - 1) / chunks;
    chunks = (length + chunk_length - 1) / chunk_length;
    spec[SOFTMAX_SPEC_PATH] = SOFTMAX_PATH_COLUMN_STATS;
    spec[SOFTMAX_SPEC_CHUNKS] = (uint32_t)chunks;
    spec[SOFTMAX_SPEC_CHUNK_LENGTH] = (uint32_t)chunk_length;
    *workgroups *= chunks;
}

/* The columns path: `slices` invocations per row, a workgroup of rows adjacent in memory, at least
 * SOFTMAX_COLUMN_TILE_BYTES of each entry (fewer slices if need be). */
static void choose_columns(const struct vkdml_compile *compile, const struct vkdml_axes_layout *layout,
        DML_TENSOR_DATA_TYPE type, uint32_t width, uint32_t spec[SOFTMAX_SPEC_COUNT], uint64_t *workgroups)
{
    uint32_t slices = column_slices(layout, width), cap, threads, lanes;
    uint32_t bytes = width * vkdml_element_size(type);

    /* Shared memory: two words per slice and row (width per invocation), four per invocation for the
     * workgroup reductions the kernel declares. */
    for (cap = max_threads(compile); cap > 64 && cap * (2 * width + 4) * sizeof(uint32_t)
            > compile->vk->caps.properties.limits.maxComputeSharedMemorySize; cap /= 2)
        ;
    for (;;)
    {
        threads = slices <= 4 ? 128 : VKDML_MIN(cap, 32 * slices);
        lanes = VKDML_MAX(threads / slices, 1);
        if (slices <= 4 || lanes * bytes >= tuned(compile, 0, SOFTMAX_COLUMN_TILE_BYTES))
            break;
        slices /= 2;
    }
    spec[SOFTMAX_SPEC_PATH] = SOFTMAX_PATH_COLUMNS;
    spec[SOFTMAX_SPEC_THREADS] = lanes * slices;
    spec[SOFTMAX_SPEC_SLICES] = slices;
    spec[SOFTMAX_SPEC_COLUMN_WIDTH] = width;
    spec[SOFTMAX_SPEC_PER_THREAD] = spec[SOFTMAX_SPEC_VECTOR] = 1;
    *workgroups = (layout->kept_elements + lanes * width - 1) / (lanes * width);
    choose_column_chunks(layout, slices, spec, workgroups);
}

/* The path, workgroup size, loads per invocation and their width; the number of workgroups. */
static void choose_path(const struct vkdml_compile *compile, const struct vkdml_axes_layout *layout,
        DML_TENSOR_DATA_TYPE type, uint32_t vector, uint32_t width, uint32_t spec[SOFTMAX_SPEC_COUNT],
        uint64_t *workgroups)
{
    uint64_t loads = layout->reduced_elements / vector;
    uint32_t threads = 64, limit = max_threads(compile), team, most;

    spec[SOFTMAX_SPEC_SLICES] = spec[SOFTMAX_SPEC_CHUNKS] = spec[SOFTMAX_SPEC_CHUNK_LENGTH] = 1;
    spec[SOFTMAX_SPEC_TEAM] = 0;
    spec[SOFTMAX_SPEC_COLUMN_WIDTH] = 1;
    if (columns_suit(layout))
    {
        choose_columns(compile, layout, type, width, spec, workgroups);
        return;
    }
    if ((team = team_size(compile, layout)))
    {
        spec[SOFTMAX_SPEC_PATH] = SOFTMAX_PATH_REGISTERS;
        spec[SOFTMAX_SPEC_THREADS] = SOFTMAX_TEAM_THREADS;
        spec[SOFTMAX_SPEC_TEAM] = team;
        spec[SOFTMAX_SPEC_VECTOR] = vector;
        spec[SOFTMAX_SPEC_PER_THREAD] = (uint32_t)((loads + team - 1) / team);
        *workgroups = (layout->kept_elements + SOFTMAX_TEAM_THREADS / team - 1) / (SOFTMAX_TEAM_THREADS / team);
        return;
    }
    /* The fewest invocations that hold the row in half their registers' share each (16 words: 4
     * vectors, 16 entries), then up to all of it. */
    most = vector > 1 ? SOFTMAX_MAX_VECTORS_PER_THREAD : SOFTMAX_MAX_PER_THREAD;
    while (threads < limit && loads > (uint64_t)threads * tuned(compile, 1, most / 2))
        threads *= 2;
    spec[SOFTMAX_SPEC_THREADS] = threads;
    *workgroups = layout->kept_elements;
    if (loads <= (uint64_t)threads * most)
    {
        spec[SOFTMAX_SPEC_PATH] = SOFTMAX_PATH_REGISTERS;
        spec[SOFTMAX_SPEC_VECTOR] = vector;
        spec[SOFTMAX_SPEC_PER_THREAD] = (uint32_t)((loads + threads - 1) / threads);
        return;
    }
    spec[SOFTMAX_SPEC_PATH] = SOFTMAX_PATH_TWO_PASS;
    spec[SOFTMAX_SPEC_PER_THREAD] = 1;
    spec[SOFTMAX_SPEC_VECTOR] = vector;
    choose_chunks(layout, vector, spec, workgroups);
}

/* The paths that write chunks' states into the temporary resource; the next path reads them. */
static bool is_stats_path(uint32_t path)
{
    return path == SOFTMAX_PATH_SPLIT_STATS || path == SOFTMAX_PATH_COLUMN_STATS;
}

/* The split paths' two words per chunk go after what the temporary resource already holds. */
static void place_chunk_stats(struct vkdml_compile *compile, uint64_t chunks, uint32_t spec[SOFTMAX_SPEC_COUNT])
{
    struct vkdml_tensor_location location;

    location.slot = compile->temporary_slot;
    location.offset = VKDML_ALIGN_UP(compile->temporary_size, 256);
    compile->temporary_size = location.offset + chunks * 2 * sizeof(uint32_t);
    vkdml_set_location(&spec[SOFTMAX_SPEC_TEMP_LOCATION], &location);
}

/* `function` from `input` to `output` (the same location works in place) over the axes in `mask`. */
static HRESULT add_dispatch(struct vkdml_compile *compile, uint32_t function,
        const DML_BUFFER_TENSOR_DESC *input, const struct vkdml_tensor_location *input_location,
        const DML_BUFFER_TENSOR_DESC *output, const struct vkdml_tensor_location *output_location,
        uint32_t mask, bool barrier_before)
{
    enum vkdml_kernel_id kernel = input->DataType == DML_TENSOR_DATA_TYPE_FLOAT16
            ? VKDML_KERNEL_SOFTMAX_F16 : VKDML_KERNEL_SOFTMAX_F32;
    const DML_BUFFER_TENSOR_DESC *tensors[2] = {input, output};
    uint32_t spec[SOFTMAX_SPEC_COUNT] = {0}, groups[3];
    struct vkdml_axes_layout layout;
    uint64_t workgroups;
    HRESULT hr;

    vkdml_axes_layout_init(&layout, tensors, 2, mask);
    spec[SOFTMAX_SPEC_FUNCTION] = function;
    spec[SOFTMAX_SPEC_TYPE] = input->DataType;
    spec[SOFTMAX_SPEC_ROWS] = (uint32_t)layout.kept_elements;
    spec[SOFTMAX_SPEC_LENGTH] = (uint32_t)layout.reduced_elements;
    fill_dims(layout.kept_count, layout.kept_sizes, layout.kept_strides, &spec[SOFTMAX_SPEC_KEPT_SIZES],
            &spec[SOFTMAX_SPEC_KEPT_IN_STRIDES], &spec[SOFTMAX_SPEC_KEPT_OUT_STRIDES]);
    fill_dims(layout.reduced_count, layout.reduced_sizes, layout.reduced_strides, &spec[SOFTMAX_SPEC_REDUCED_SIZES],
            &spec[SOFTMAX_SPEC_REDUCED_IN_STRIDES], &spec[SOFTMAX_SPEC_REDUCED_OUT_STRIDES]);
    vkdml_set_location(&spec[SOFTMAX_SPEC_IN_LOCATION], input_location);
    vkdml_set_location(&spec[SOFTMAX_SPEC_OUT_LOCATION], output_location);
    choose_path(compile, &layout, input->DataType, vector_width(&layout, input->DataType, input_location,
            output_location), layout.kept_count ? column_width(&layout, input->DataType, input_location,
            output_location) : 1, spec, &workgroups);
    if (FAILED(hr = vkdml_spread_groups(compile, workgroups, groups)))
        return hr;
    TRACE("softmax: function %u, path %u, %u threads x %u x %u, team %u, %u slices x %u rows, %u chunks, %"
            PRIu64 " rows of %" PRIu64 ".", function, spec[SOFTMAX_SPEC_PATH], spec[SOFTMAX_SPEC_THREADS],
            spec[SOFTMAX_SPEC_PER_THREAD], spec[SOFTMAX_SPEC_VECTOR], spec[SOFTMAX_SPEC_TEAM],
            spec[SOFTMAX_SPEC_SLICES], spec[SOFTMAX_SPEC_COLUMN_WIDTH],
            spec[SOFTMAX_SPEC_CHUNKS], layout.kept_elements, layout.reduced_elements);
    if (is_stats_path(spec[SOFTMAX_SPEC_PATH]))
        place_chunk_stats(compile, layout.kept_elements * spec[SOFTMAX_SPEC_CHUNKS], spec);
    if (FAILED(hr = vkdml_compile_add_dispatch(compile, kernel, spec, SOFTMAX_SPEC_COUNT, NULL, 0, groups,
            barrier_before)) || !is_stats_path(spec[SOFTMAX_SPEC_PATH]))
        return hr;
    /* SPLIT_NORMALIZE, COLUMN_NORMALIZE. */
    ++spec[SOFTMAX_SPEC_PATH];
    return vkdml_compile_add_dispatch(compile, kernel, spec, SOFTMAX_SPEC_COUNT, NULL, 0, groups, true);
}

HRESULT vkdml_softmax_compile(struct vkdml_compile *compile)
{
    const struct vkdml_operator_view *op = compile->op;
    uint32_t mask;
    HRESULT hr;

    if (FAILED(hr = reduced_mask(op, &mask)))
        return hr;
    return add_dispatch(compile, softmax_function(op->type), op->inputs[0], &compile->inputs[0], op->outputs[0],
            &compile->outputs[0], mask, false);
}

/* ---- GEMM's fused SOFTMAX and SOFTMAX1 ---- */

/* SOFTMAX: the last dimension of GEMM's output, as the operator reduces over its input's (the
 * effective-rank rule is about an InputTensor, which a fused activation lacks); SOFTMAX1: its Axes. */
static HRESULT fused_mask(const struct vkdml_operator_view *op, const DML_OPERATOR_DESC *activation,
        const DML_BUFFER_TENSOR_DESC *output, uint32_t *mask)
{
    const DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC *desc = activation->Desc;

    if (activation->Type == DML_OPERATOR_ACTIVATION_SOFTMAX1)
        return vkdml_validate_axes(op, output->DimensionCount, desc->Axes, desc->AxisCount, "FusedActivation.Axes",
                mask);
    *mask = 1u << (output->DimensionCount - 1);
    return S_OK;
}

HRESULT vkdml_softmax_validate_fused(struct vkdml_backend_device *device, const struct vkdml_operator_view *op,
        const DML_OPERATOR_DESC *activation, const DML_BUFFER_TENSOR_DESC *output)
{
    uint32_t mask;
    HRESULT hr;

    if (FAILED(hr = fused_mask(op, activation, output, &mask)))
        return hr;
    return vkdml_check_subgroup_reductions(device, op);
}

HRESULT vkdml_softmax_add_fused(struct vkdml_compile *compile, const DML_OPERATOR_DESC *activation,
        const DML_BUFFER_TENSOR_DESC *output, const struct vkdml_tensor_location *location)
{
    uint32_t mask;
    HRESULT hr;

    if (FAILED(hr = fused_mask(compile->op, activation, output, &mask)))
        return hr;
    /* In place over the output the earlier dispatches wrote. */
    return add_dispatch(compile, SOFTMAX_FUNCTION_SOFTMAX, output, location, output, location, mask, true);
}
