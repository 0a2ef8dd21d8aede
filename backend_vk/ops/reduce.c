/*
 * The reduce family: DML_OPERATOR_REDUCE (every DML_REDUCE_FUNCTION), DML_OPERATOR_ARGMIN and
 * DML_OPERATOR_ARGMAX. DirectML's rules, and the dispatches of kernels_glsl/reduce.comp
 * (reduce_interface.h: ROW, COLUMN and COMBINE modes; docs/kernels.md, "Reductions").
 *
 * DirectML's rules (DML_REDUCE_OPERATOR_DESC, DML_ARGMIN/ARGMAX_OPERATOR_DESC): Axes in
 * [0, rank), none repeated, at least one; the output has the input's rank and sizes, 1 on the
 * reduced axes. REDUCE's types depend on Function (the newest rows of its tensor-support
 * table; the schema holds their union): input and output share a type except for ARGMIN and
 * ARGMAX, whose outputs are UINT32, INT32, UINT64 or INT64 indices. REDUCE's ARGMIN / ARGMAX
 * are the operators' with AxisDirection INCREASING. (The generic layer checks the enums.)
 */

#include <inttypes.h>
#include <string.h>

#include "ops_private.h"
#include "dml_private_backend.h"
#include "reduce_interface.h"

#define TYPE_BIT(name) VKDML_DATA_TYPE_BIT(name)
#define FLOAT_TYPES (TYPE_BIT(FLOAT32) | TYPE_BIT(FLOAT16))
#define INT32_TYPES (TYPE_BIT(INT32) | TYPE_BIT(UINT32))
#define INT64_TYPES (TYPE_BIT(INT64) | TYPE_BIT(UINT64))
#define NARROW_INT_TYPES (TYPE_BIT(INT16) | TYPE_BIT(UINT16) | TYPE_BIT(INT8) | TYPE_BIT(UINT8))
#define ALL_TYPES (FLOAT_TYPES | INT32_TYPES | INT64_TYPES | NARROW_INT_TYPES)
#define INDEX_TYPES (INT32_TYPES | INT64_TYPES)

/* Enough workgroups to fill a large GPU (132 SMs) several times over: fewer outputs than this
 * split their reductions into parts (docs/kernels.md, "Reductions"). */
#define REDUCE_TARGET_GROUPS 1024
/* The fewest reduced elements a part gets: ROW parts, COLUMN parts. */
#define REDUCE_MIN_ROW_PART (REDUCE_THREADS * 16)
#define REDUCE_MIN_COLUMN_PART 64
/* COLUMN: the fewest reduced elements a slice gets (the loop keeps REDUCE_UNROLL loads in flight). */
#define REDUCE_MIN_SLICE_ROWS (2 * REDUCE_UNROLL)
/* COLUMN mode also takes reductions this short whose kept elements are not contiguous: an
 * invocation per output beats a mostly idle workgroup per output. */
#define REDUCE_SHORT_REDUCTION 32
/* Bytes per vector load: 4 32-bit elements, 8 FLOAT16 (vector_elements()). Parts are made of
 * whole vectors of the longest, REDUCE_MAX_VECTOR elements. */
#define REDUCE_VECTOR_BYTES 16
#define REDUCE_MAX_VECTOR 8
/* The most parts an invocation combines alone (COMBINE, REDUCE_COMBINE_UNROLL at a time); more get
 * a workgroup (COMBINE_ROW). */
#define REDUCE_COMBINE_LOOP_MAX 64
/* The longest rows a subgroup reduces alone (SUBGROUP_ROW); longer ones get a workgroup, unless
 * there are so many that their subgroups alone fill a large GPU (as many invocations as
 * REDUCE_TARGET_GROUPS workgroups with subgroups of 32): then the workgroup's barriers and shared
 * memory would cost more than they save. */
#define REDUCE_SUBGROUP_ROW_MAX 2048
#define REDUCE_SUBGROUP_ROW_OUTPUTS (REDUCE_TARGET_GROUPS * REDUCE_THREADS / 32)

/* By REDUCE_MODE_*, for trace messages (the tests read them). */
static const char *const mode_names[] = {"row", "column", "combine", "subgroup-row", "combine-row"};

/* The attributes of the three operators, in one form. */
struct reduce_params
{
    DML_REDUCE_FUNCTION function;
    const UINT *axes;
    UINT axis_count;
    DML_AXIS_DIRECTION direction;
};

_Static_assert(sizeof(DML_ARGMIN_OPERATOR_DESC) == sizeof(DML_ARGMAX_OPERATOR_DESC), "ARGMIN and ARGMAX descs");

static struct reduce_params reduce_params(const struct vkdml_operator_view *op)
{
    const DML_REDUCE_OPERATOR_DESC *reduce = op->desc;
    const DML_ARGMAX_OPERATOR_DESC *arg = op->desc;     /* ARGMIN's has the same layout */
    struct reduce_params p;

    if (op->type == DML_OPERATOR_REDUCE)
    {
        p.function = reduce->Function;
        p.axes = reduce->Axes;
        p.axis_count = reduce->AxisCount;
        p.direction = DML_AXIS_DIRECTION_INCREASING;
        return p;
    }
    p.function = op->type == DML_OPERATOR_ARGMIN ? DML_REDUCE_FUNCTION_ARGMIN : DML_REDUCE_FUNCTION_ARGMAX;
    p.axes = arg->Axes;
    p.axis_count = arg->AxisCount;
    p.direction = arg->AxisDirection;
    return p;
}

static bool is_arg(DML_REDUCE_FUNCTION function)
{
    return function == DML_REDUCE_FUNCTION_ARGMAX || function == DML_REDUCE_FUNCTION_ARGMIN;
}

/* ---- Validation ---- */

static const char *function_name(DML_REDUCE_FUNCTION function)
{
    static const char *const names[] =
    {
        "ARGMAX", "ARGMIN", "AVERAGE", "L1", "L2", "LOG_SUM", "LOG_SUM_EXP", "MAX", "MIN", "MULTIPLY", "SUM",
        "SUM_SQUARE",
    };

    return function < ARRAY_SIZE(names) ? names[function] : "?";
}

/* The input types of DML_REDUCE_OPERATOR_DESC's tensor-support table, per Function. */
static uint32_t function_input_types(DML_REDUCE_FUNCTION function)
{
    switch (function)
    {
        case DML_REDUCE_FUNCTION_AVERAGE:
        case DML_REDUCE_FUNCTION_L2:
        case DML_REDUCE_FUNCTION_LOG_SUM:
        case DML_REDUCE_FUNCTION_LOG_SUM_EXP:
            return FLOAT_TYPES;
        case DML_REDUCE_FUNCTION_L1:
        case DML_REDUCE_FUNCTION_SUM_SQUARE:
        case DML_REDUCE_FUNCTION_MULTIPLY:
        case DML_REDUCE_FUNCTION_SUM:
            return FLOAT_TYPES | INT32_TYPES | INT64_TYPES;
        default:
            return ALL_TYPES;
    }
}

static HRESULT validate_types(const struct vkdml_operator_view *op, const struct reduce_params *p)
{
    DML_TENSOR_DATA_TYPE in = op->inputs[0]->DataType, out = op->outputs[0]->DataType;

    if (!(function_input_types(p->function) & (1u << in)))
        return vkdml_op_error(op, E_INVALIDARG, "InputTensor.DataType=%s is not allowed with Function %s.",
                debugstr_data_type(in), function_name(p->function));
    if (is_arg(p->function))
    {
        if (!(INDEX_TYPES & (1u << out)))
            return vkdml_op_error(op, E_INVALIDARG, "OutputTensor.DataType=%s must be UINT32, INT32, UINT64 or INT64 "
                    "(indices).", debugstr_data_type(out));
        return S_OK;
    }
    if (out != in)
        return vkdml_op_error(op, E_INVALIDARG, "OutputTensor.DataType=%s must equal InputTensor.DataType=%s.",
                debugstr_data_type(out), debugstr_data_type(in));
    return S_OK;
}

/* What the kernel variant needs: the input's storage, and the output's (indices are stored as
 * 32-bit words). */
static uint32_t kernel_features(const struct vkdml_operator_view *op, const struct reduce_params *p)
{
    uint32_t features = vkdml_type_kernel_features(op->inputs[0]->DataType, false);

    if (!is_arg(p->function))
        features |= vkdml_type_kernel_features(op->outputs[0]->DataType, false);
    return features;
}

static HRESULT validate_device(struct vkdml_backend_device *device, const struct vkdml_operator_view *op,
        const struct reduce_params *p)
{
    const struct vkdml_vk_caps *caps = &device->vk->caps;
    enum vkdml_kernel_id kernel;
    HRESULT hr;

    if (FAILED(hr = vkdml_check_subgroup_reductions(device, op)))
        return hr;
    if (!vkdml_find_kernel_variant(caps, "reduce", NULL, kernel_features(op, p), &kernel))
        return vkdml_op_error(op, E_NOTIMPL, "%s to %s is not supported by this device.",
                debugstr_data_type(op->inputs[0]->DataType), debugstr_data_type(op->outputs[0]->DataType));
    return S_OK;
}

HRESULT vkdml_reduce_validate(struct vkdml_backend_device *device, const struct vkdml_operator_view *op)
{
    struct reduce_params p = reduce_params(op);
    uint32_t mask;
    HRESULT hr;

    if (FAILED(hr = vkdml_validate_axes(op, op->inputs[0]->DimensionCount, p.axes, p.axis_count, "Axes", &mask)))
        return hr;
    if (FAILED(hr = vkdml_validate_reduced_sizes(op, op->inputs[0], op->outputs[0], "OutputTensor", mask)))
        return hr;
    if (op->type == DML_OPERATOR_REDUCE && FAILED(hr = validate_types(op, &p)))
        return hr;
    if (FAILED(hr = vkdml_check_index_range(op, op->inputs[0], "InputTensor"))
            || FAILED(hr = vkdml_check_index_range(op, op->outputs[0], "OutputTensor")))
        return hr;
    return validate_device(device, op, &p);
}

/* ---- Compilation ---- */

struct reduce_plan
{
    struct vkdml_axes_layout layout;
    uint32_t mode;
    uint32_t parts, part_size;
    uint32_t rows_per_group;            /* SUBGROUP_ROW: a subgroup per output */
    uint32_t vector;                    /* elements per load: 1 or vector_elements() */
    uint32_t slices;                    /* COLUMN: slices per workgroup */
    uint32_t partial_words;             /* REDUCE_PARTIAL_WORDS */
};

static uint32_t axes_mask(const struct reduce_params *p)
{
    uint32_t mask = 0, i;

    for (i = 0; i < p->axis_count; ++i)
        mask |= 1u << p->axes[i];
    return mask;
}

/* Elements per vector load of the input's type, 0 where it is not read in vectors. */
static uint32_t vector_elements(DML_TENSOR_DATA_TYPE type)
{
    if (type != DML_TENSOR_DATA_TYPE_FLOAT32 && type != DML_TENSOR_DATA_TYPE_FLOAT16
            && type != DML_TENSOR_DATA_TYPE_INT32 && type != DML_TENSOR_DATA_TYPE_UINT32)
        return 0;
    return REDUCE_VECTOR_BYTES / vkdml_element_size(type);
}

/* Whether every vector load of `vector` elements stays aligned: the binding's offset is (16
 * bytes: DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT; persistent inputs 256), and every input stride but
 * the contiguous one that the vectors run along is a multiple of the vector. */
static bool vectors_aligned(const struct vkdml_compile *compile, const struct reduce_plan *plan, uint32_t vector,
        bool along_kept)
{
    const struct vkdml_axes_layout *layout = &plan->layout;
    uint32_t i;

    if (compile->inputs[0].offset % REDUCE_VECTOR_BYTES || layout->reduced_count != 1)
        return false;
    for (i = 0; i < layout->kept_count; ++i)
    {
        if (layout->kept_strides[0][i] % vector && !(along_kept && i == layout->kept_count - 1))
            return false;
    }
    /* Columns: each row of the vectors starts aligned; rows: the caller wants a contiguous row. */
    return !along_kept || !(layout->reduced_strides[0][0] % vector);
}

/* Rows read in vectors (vector_elements()): contiguous rows, each row and part starting at a
 * multiple of the vector. Columns: a vector of adjacent outputs per invocation, the contiguous
 * kept dimension a multiple of the vector. */
static uint32_t vector_width(const struct vkdml_compile *compile, const struct reduce_plan *plan)
{
    const struct vkdml_axes_layout *layout = &plan->layout;
    uint32_t vector = vector_elements(compile->op->inputs[0]->DataType);

    if (!vector || !vectors_aligned(compile, plan, vector, plan->mode == REDUCE_MODE_COLUMN))
        return 1;
    if (plan->mode == REDUCE_MODE_COLUMN)
        return layout->kept_strides[0][layout->kept_count - 1] == 1
                && !(layout->kept_sizes[layout->kept_count - 1] % vector) ? vector : 1;
    if (plan->mode != REDUCE_MODE_ROW && plan->mode != REDUCE_MODE_SUBGROUP_ROW)
        return 1;
    return layout->reduced_strides[0][0] == 1 && !(layout->reduced_elements % vector)
            && !(plan->part_size % vector) ? vector : 1;
}

/* COLUMN's slices: the fewest (a power of two) that give as many invocations as
 * REDUCE_TARGET_GROUPS workgroups of one column each (a 16-byte vector counting as 4 columns, as
 * many bytes in flight), each slice of at least REDUCE_MIN_SLICE_ROWS elements. The slices'
 * combine stays inside the workgroup: no COMBINE dispatch where they suffice. */
static uint32_t column_slices(uint64_t invocations, uint32_t vector, uint64_t reduced)
{
    uint64_t weight = VKDML_MIN(vector, 4);
    uint32_t slices = 1;

    while (slices < REDUCE_MAX_SLICES && invocations * slices * weight < REDUCE_TARGET_GROUPS * REDUCE_THREADS
            && 2 * slices * REDUCE_MIN_SLICE_ROWS <= reduced)
        slices *= 2;
    return slices;
}

/* COLUMN when adjacent invocations read adjacent elements (the innermost kept dimension is
 * contiguous) or the reductions are short; SUBGROUP_ROW for rows up to REDUCE_SUBGROUP_ROW_MAX
 * over enough outputs to fill its workgroups, or for REDUCE_SUBGROUP_ROW_OUTPUTS rows of any
 * length; ROW otherwise. COLUMN first splits its reductions into slices inside a workgroup; then
 * parts when the outputs alone would leave a large GPU idle; then the vector width. */
static void plan_reduction(const struct vkdml_compile *compile, struct reduce_plan *plan)
{
    const struct vkdml_axes_layout *layout = &plan->layout;
    uint64_t kept = layout->kept_elements, reduced = layout->reduced_elements, groups, parts;
    bool column = layout->kept_count && (layout->kept_strides[0][layout->kept_count - 1] == 1
            || reduced <= REDUCE_SHORT_REDUCTION);

    plan->rows_per_group = REDUCE_THREADS / compile->vk->caps.subgroup_size;
    plan->slices = 1;
    plan->mode = column ? REDUCE_MODE_COLUMN : REDUCE_MODE_ROW;
    if (!column && (reduced <= REDUCE_SUBGROUP_ROW_MAX ? kept >= plan->rows_per_group
            : kept >= REDUCE_SUBGROUP_ROW_OUTPUTS))
    {
        plan->mode = REDUCE_MODE_SUBGROUP_ROW;
        plan->parts = 1;
        plan->part_size = (uint32_t)reduced;
        plan->vector = vector_width(compile, plan);
        return;
    }
    /* Columns' vectors do not depend on the parts. An invocation of 8 FLOAT16 columns owns twice
     * the outputs of one of 4 32-bit columns, with as many bytes in flight: count it twice, so that
     * as many invocations run; likewise an invocation's slice of its columns. */
    plan->vector = column ? vector_width(compile, plan) : 1;
    if (column)
        plan->slices = column_slices(kept / plan->vector, plan->vector, reduced);
    groups = column ? vkdml_div_up(kept * plan->slices, REDUCE_THREADS * VKDML_MAX(plan->vector / 4, 1)) : kept;
    parts = 1;
    if (groups < REDUCE_TARGET_GROUPS)
    {
        parts = vkdml_div_up(REDUCE_TARGET_GROUPS, groups);
        parts = VKDML_MIN(parts, vkdml_div_up(reduced,
                column ? (uint64_t)plan->slices * REDUCE_MIN_COLUMN_PART : REDUCE_MIN_ROW_PART));
        parts = VKDML_MAX(parts, 1);
    }
    /* Parts of whole vectors, should the rows be read in vectors. */
    plan->part_size = (uint32_t)VKDML_ALIGN_UP(vkdml_div_up(reduced, parts), REDUCE_MAX_VECTOR);
    plan->parts = (uint32_t)vkdml_div_up(reduced, plan->part_size);
    if (!column)
        plan->vector = vector_width(compile, plan);
}

static void fill_push(const struct reduce_plan *plan, struct reduce_push *push)
{
    const struct vkdml_axes_layout *layout = &plan->layout;
    uint32_t kc = layout->kept_count, rc = layout->reduced_count, i;

    memset(push, 0, sizeof(*push));
    push->kept_elements = (uint32_t)layout->kept_elements;
    push->reduced_elements = (uint32_t)layout->reduced_elements;
    push->parts = plan->parts;
    push->part_size = plan->part_size;
    for (i = 0; i < kc; ++i)
    {
        push->dims[i] = layout->kept_sizes[i];
        push->dims[kc + i] = layout->kept_strides[0][i];
        push->dims[2 * kc + i] = layout->kept_strides[1][i];
    }
    for (i = 0; i < rc; ++i)
    {
        push->dims[3 * kc + i] = layout->reduced_sizes[i];
        push->dims[3 * kc + rc + i] = layout->reduced_strides[0][i];
    }
}

static void fill_spec(const struct vkdml_compile *compile, const struct reduce_params *p,
        const struct reduce_plan *plan, const struct vkdml_tensor_location *temp, uint32_t spec[REDUCE_SPEC_COUNT])
{
    const struct vkdml_operator_view *op = compile->op;

    spec[REDUCE_SPEC_FUNCTION] = p->function;
    spec[REDUCE_SPEC_LAST_INDEX] = p->direction == DML_AXIS_DIRECTION_DECREASING;
    spec[REDUCE_SPEC_INPUT_TYPE] = op->inputs[0]->DataType;
    spec[REDUCE_SPEC_OUTPUT_TYPE] = op->outputs[0]->DataType;
    spec[REDUCE_SPEC_KEPT_COUNT] = plan->layout.kept_count;
    spec[REDUCE_SPEC_REDUCED_COUNT] = plan->layout.reduced_count;
    spec[REDUCE_SPEC_PARTIAL] = plan->parts > 1;
    spec[REDUCE_SPEC_VECTOR] = plan->vector;
    spec[REDUCE_SPEC_SLICES] = plan->slices;
    vkdml_set_location(&spec[REDUCE_SPEC_IN_LOCATION], &compile->inputs[0]);
    vkdml_set_location(&spec[REDUCE_SPEC_OUT_LOCATION], &compile->outputs[0]);
    vkdml_set_location(&spec[REDUCE_SPEC_TEMP_LOCATION], temp);
}

/* The partial states go after what the temporary resource already holds. */
static struct vkdml_tensor_location place_partials(struct vkdml_compile *compile, const struct reduce_plan *plan)
{
    struct vkdml_tensor_location temp = {compile->temporary_slot, 0};

    if (plan->parts == 1)
        return temp;
    temp.offset = VKDML_ALIGN_UP(compile->temporary_size, 256);
    compile->temporary_size = temp.offset + plan->layout.kept_elements * plan->parts * sizeof(uint32_t) * plan->partial_words;
    return temp;
}

/* Workgroups of a dispatch in `mode`, over all parts for ROW and COLUMN. */
static uint64_t mode_groups(const struct reduce_plan *plan, uint32_t mode)
{
    uint64_t kept = plan->layout.kept_elements;

    switch (mode)
    {
        case REDUCE_MODE_ROW:
            return kept * plan->parts;
        case REDUCE_MODE_COLUMN:
            return vkdml_div_up(kept / plan->vector, REDUCE_THREADS / plan->slices) * plan->parts;
        case REDUCE_MODE_SUBGROUP_ROW:
            return vkdml_div_up(kept, plan->rows_per_group);
        case REDUCE_MODE_COMBINE_ROW:
            return kept;
        default:
            return vkdml_div_up(kept, REDUCE_THREADS);
    }
}

static HRESULT add_dispatch(struct vkdml_compile *compile, enum vkdml_kernel_id kernel, const struct reduce_plan *plan,
        uint32_t spec[REDUCE_SPEC_COUNT], const struct reduce_push *push, uint32_t mode)
{
    uint32_t groups[3];
    HRESULT hr;

    spec[REDUCE_SPEC_MODE] = mode;
    if (FAILED(hr = vkdml_spread_groups(compile, mode_groups(plan, mode), groups)))
        return hr;
    return vkdml_compile_add_dispatch(compile, kernel, spec, REDUCE_SPEC_COUNT, push, sizeof(*push), groups,
            mode == REDUCE_MODE_COMBINE || mode == REDUCE_MODE_COMBINE_ROW);
}

HRESULT vkdml_reduce_compile(struct vkdml_compile *compile)
{
    const struct vkdml_operator_view *op = compile->op;
    const DML_BUFFER_TENSOR_DESC *tensors[2] = {op->inputs[0], op->outputs[0]};
    struct reduce_params p = reduce_params(op);
    uint32_t spec[REDUCE_SPEC_COUNT] = {0};
    struct vkdml_tensor_location temp;
    enum vkdml_kernel_id kernel;
    struct reduce_push push;
    struct reduce_plan plan;
    HRESULT hr;

    if (!vkdml_find_kernel_variant(&compile->vk->caps, "reduce", NULL, kernel_features(op, &p), &kernel))
        return vkdml_op_error(op, E_NOTIMPL, "no reduce kernel variant holds these types on this device.");
    vkdml_axes_layout_init(&plan.layout, tensors, 2, axes_mask(&p));
    plan_reduction(compile, &plan);
    plan.partial_words = REDUCE_PARTIAL_WORDS(p.function, op->inputs[0]->DataType == DML_TENSOR_DATA_TYPE_INT64
            || op->inputs[0]->DataType == DML_TENSOR_DATA_TYPE_UINT64);
    TRACE("Reduce kernel: %s, %" PRIu64 " outputs of %" PRIu64 " elements (%u kept, %u reduced dimensions), "
            "%u part(s), %u slice(s), loads of %u element(s).", mode_names[plan.mode], plan.layout.kept_elements,
            plan.layout.reduced_elements, plan.layout.kept_count, plan.layout.reduced_count, plan.parts, plan.slices,
            plan.vector);
    temp = place_partials(compile, &plan);
    fill_spec(compile, &p, &plan, &temp, spec);
    fill_push(&plan, &push);
    if (FAILED(hr = add_dispatch(compile, kernel, &plan, spec, &push, plan.mode)) || plan.parts == 1)
        return hr;
    spec[REDUCE_SPEC_PARTIAL] = 0;
    return add_dispatch(compile, kernel, &plan, spec, &push,
            plan.parts > REDUCE_COMBINE_LOOP_MAX ? REDUCE_MODE_COMBINE_ROW : REDUCE_MODE_COMBINE);
}
