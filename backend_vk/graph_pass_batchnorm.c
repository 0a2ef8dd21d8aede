/*
 * The graph compiler's "batchnorm" pass (docs/graph.md, "Passes", "batchnorm"): a forward
 * CONVOLUTION whose output only a BATCH_NORMALIZATION reads becomes one CONVOLUTION with
 *   filter' = filter * m,  bias' = (bias - mean) * m + BN bias,  m = scale / sqrt(variance + epsilon)
 * per output channel, computed once by element-wise nodes that the initializer runs, and with the
 * BATCH_NORMALIZATION's FusedActivation. filter' and bias' are flagged OWNED_BY_DML, so the folded
 * convolution keeps the fast path of weights known at initialization (conv.c's initialize hook).
 */

#include <string.h>

#include "graph_private.h"

/* The element-wise ADD, SUBTRACT, MULTIPLY and DIVIDE descs are {ATensor, BTensor, OutputTensor}. */
_Static_assert(sizeof(DML_ELEMENT_WISE_ADD_OPERATOR_DESC) == sizeof(DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC)
        && sizeof(DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC) == sizeof(DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC)
        && sizeof(DML_ELEMENT_WISE_ADD_OPERATOR_DESC) == sizeof(DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC),
        "binary element-wise descs share one layout");

enum bn_input
{
    BN_INPUT,
    BN_MEAN,
    BN_VARIANCE,
    BN_SCALE,
    BN_BIAS,
};

enum conv_input
{
    CONV_INPUT,
    CONV_FILTER,
    CONV_BIAS,
};

/* A tensor desc the pass builds (graph_alloc), with room for its sizes and strides. */
struct fold_tensor
{
    DML_TENSOR_DESC desc;
    DML_BUFFER_TENSOR_DESC buffer;
    UINT sizes[DML_TENSOR_DIMENSION_COUNT_MAX], strides[DML_TENSOR_DIMENSION_COUNT_MAX];
};

/* A CONVOLUTION node and the BATCH_NORMALIZATION node that reads its output. */
struct bn_fold
{
    struct graph_ir *ir;
    uint32_t conv, bn;
    const struct vkdml_operator_view *conv_op, *bn_op;
    const DML_CONVOLUTION_OPERATOR_DESC *conv_desc;
    const DML_BATCH_NORMALIZATION_OPERATOR_DESC *bn_desc;
    DML_TENSOR_DATA_TYPE type;
    uint32_t rank, channels;
    struct fold_tensor *channel;        /* {1, K, 1, ...} packed, for the per-channel intermediates */
};

/* ---- Conditions ---- */

/* The same element at the same offset throughout (sizes, strides, data type). */
static bool same_layout(const DML_BUFFER_TENSOR_DESC *a, const DML_BUFFER_TENSOR_DESC *b)
{
    uint32_t i;

    if (a->DataType != b->DataType || a->DimensionCount != b->DimensionCount)
        return false;
    for (i = 0; i < a->DimensionCount; ++i)
    {
        if (a->Sizes[i] != b->Sizes[i] || (a->Sizes[i] > 1 && vkdml_tensor_stride(a, i) != vkdml_tensor_stride(b, i)))
            return false;
    }
    return true;
}

/* Constants, OWNED_BY_DML graph inputs and what folded nodes compute: what the initializer reads. */
static bool known_at_init(const struct graph_ir *ir, uint32_t value)
{
    return value != GRAPH_NO_VALUE && ir->values[value].kind == GRAPH_VALUE_PERSISTENT;
}

/* One value per output channel, or one for all channels, in the convolution's type. */
static bool per_channel(const struct bn_fold *f, const DML_BUFFER_TENSOR_DESC *tensor)
{
    uint32_t i;

    if (tensor->DataType != f->type || tensor->DimensionCount != f->rank)
        return false;
    for (i = 0; i < tensor->DimensionCount; ++i)
    {
        if (tensor->Sizes[i] != 1 && (i != 1 || tensor->Sizes[i] != f->channels))
            return false;
    }
    return true;
}

/* The convolution's output: only the BATCH_NORMALIZATION reads it, and it is no graph output. */
static bool private_edge(const struct bn_fold *f)
{
    const struct graph_ir *ir = f->ir;
    uint32_t value = ir->nodes[f->bn].inputs[BN_INPUT], reader;

    return ir->nodes[f->conv].outputs[0] == value && ir->values[value].kind == GRAPH_VALUE_TEMPORARY
            && ir->values[value].alias_of == GRAPH_NO_VALUE && graph_value_readers(ir, value, &reader) == 1
            && same_layout(f->conv_op->outputs[0], f->bn_op->inputs[BN_INPUT])
            && same_layout(f->bn_op->outputs[0], f->bn_op->inputs[BN_INPUT]);
}

/* FLOAT32 convolutions keep their normalization (docs/graph.md, "batchnorm"): on the H200 the
 * folded ResNet-50 ran 2.4x slower at batch 32 (30.7 against 12.4 ms unfolded; the cause, in
 * the tiled kernels with the new bias, is not found yet) and no faster at batch 1 (1.307 against
 * 1.304 ms); FLOAT16 gains (batch 32 5.02 against 5.54 ms, batch 1 1.13 against 1.27 ms). */
static bool fold_pays(const struct bn_fold *f)
{
    return f->type == DML_TENSOR_DATA_TYPE_FLOAT16;
}

static bool foldable_conv(const struct bn_fold *f)
{
    const struct graph_node *node = &f->ir->nodes[f->conv];

    return fold_pays(f) && f->conv_desc->Direction == DML_CONVOLUTION_DIRECTION_FORWARD
            && !f->conv_desc->FusedActivation
            && known_at_init(f->ir, node->inputs[CONV_FILTER])
            && (!f->conv_op->inputs[CONV_BIAS] || known_at_init(f->ir, node->inputs[CONV_BIAS]));
}

static bool foldable_bn(const struct bn_fold *f)
{
    const struct graph_node *node = &f->ir->nodes[f->bn];
    uint32_t i;

    for (i = BN_MEAN; i <= BN_BIAS; ++i)
    {
        if (!known_at_init(f->ir, node->inputs[i]) || !per_channel(f, f->bn_op->inputs[i]))
            return false;
    }
    return true;
}

/* Whether node `bn` is a BATCH_NORMALIZATION that folds into the convolution before it. */
static bool find_pair(struct graph_ir *ir, uint32_t bn, struct bn_fold *f)
{
    const struct graph_node *node = &ir->nodes[bn];
    uint32_t output;

    memset(f, 0, sizeof(*f));
    f->ir = ir;
    f->bn = bn;
    if (node->removed || node->at_init || node->op->type != DML_OPERATOR_BATCH_NORMALIZATION)
        return false;
    if ((f->conv = graph_value_producer(ir, node->inputs[BN_INPUT], &output)) == GRAPH_NO_VALUE || output
            || ir->nodes[f->conv].at_init || ir->nodes[f->conv].op->type != DML_OPERATOR_CONVOLUTION)
        return false;
    f->conv_op = ir->nodes[f->conv].op;
    f->bn_op = node->op;
    f->conv_desc = f->conv_op->desc;
    f->bn_desc = f->bn_op->desc;
    f->type = f->conv_op->outputs[0]->DataType;
    f->rank = f->conv_op->outputs[0]->DimensionCount;
    f->channels = f->conv_op->outputs[0]->Sizes[1];
    return private_edge(f) && foldable_conv(f) && foldable_bn(f);
}

/* ---- Building ---- */

/* A tensor of the convolution's type; strides NULL: packed; total 0: the least for the layout. */
static struct fold_tensor *new_tensor(struct bn_fold *f, const UINT *sizes, const UINT *strides, UINT64 total,
        DML_TENSOR_FLAGS flags)
{
    struct fold_tensor *t;

    if (!(t = graph_alloc(f->ir, sizeof(*t))))
        return NULL;
    memcpy(t->sizes, sizes, f->rank * sizeof(*sizes));
    if (strides)
        memcpy(t->strides, strides, f->rank * sizeof(*strides));
    t->buffer.DataType = f->type;
    t->buffer.Flags = flags;
    t->buffer.DimensionCount = f->rank;
    t->buffer.Sizes = t->sizes;
    t->buffer.Strides = strides ? t->strides : NULL;
    t->buffer.TotalTensorSizeInBytes = total ? total : vkdml_calc_buffer_tensor_size(f->type, f->rank, sizes, strides);
    t->desc.Type = DML_TENSOR_TYPE_BUFFER;
    t->desc.Desc = &t->buffer;
    return t;
}

/* {1, K, 1, ...}: packed, or a per-channel parameter's bytes seen with that shape (a 0 stride
 * broadcasts one value to every channel). */
static struct fold_tensor *channel_tensor(struct bn_fold *f, const DML_BUFFER_TENSOR_DESC *parameter,
        DML_TENSOR_FLAGS flags)
{
    UINT sizes[DML_TENSOR_DIMENSION_COUNT_MAX] = {0}, strides[DML_TENSOR_DIMENSION_COUNT_MAX] = {0};
    uint32_t i;

    for (i = 0; i < f->rank; ++i)
        sizes[i] = i == 1 ? f->channels : 1;
    if (!parameter)
        return new_tensor(f, sizes, NULL, 0, flags);
    strides[1] = parameter->Sizes[1] == 1 ? 0 : vkdml_tensor_stride(parameter, 1);
    return new_tensor(f, sizes, strides, parameter->TotalTensorSizeInBytes, flags);
}

/* The filter's shape, {K, C / GroupCount, ...} (K first: forward): its own layout, packed, or the
 * packed per-channel factors broadcast along everything but K. */
static struct fold_tensor *filter_tensor(struct bn_fold *f, bool own_layout, bool per_channel_factors,
        DML_TENSOR_FLAGS flags)
{
    const DML_BUFFER_TENSOR_DESC *filter = f->conv_op->inputs[CONV_FILTER];
    UINT strides[DML_TENSOR_DIMENSION_COUNT_MAX] = {0};
    uint32_t i;

    if (own_layout)
    {
        for (i = 0; i < f->rank; ++i)
            strides[i] = vkdml_tensor_stride(filter, i);
        return new_tensor(f, filter->Sizes, strides, filter->TotalTensorSizeInBytes, flags);
    }
    if (!per_channel_factors)
        return new_tensor(f, filter->Sizes, NULL, 0, flags);
    strides[0] = 1;
    return new_tensor(f, filter->Sizes, strides, f->channel->buffer.TotalTensorSizeInBytes, flags);
}

/* A node the initializer runs: `tensors` and `values` list its inputs, then its one output. */
static HRESULT add_init_node(struct bn_fold *f, DML_OPERATOR_TYPE type, const void *desc, uint32_t input_count,
        struct fold_tensor *const *tensors, const uint32_t *values)
{
    const DML_BUFFER_TENSOR_DESC **list;
    struct vkdml_operator_view *op;
    uint32_t node, i;

    if (!(op = graph_alloc(f->ir, sizeof(*op))) || !(list = graph_alloc(f->ir, (input_count + 1) * sizeof(*list))))
        return E_OUTOFMEMORY;
    for (i = 0; i <= input_count; ++i)
        list[i] = &tensors[i]->buffer;
    *op = (struct vkdml_operator_view){type, vkdml_op_schema_get(type)->name, desc, input_count, 1, list,
            list + input_count};
    if ((node = graph_add_node(f->ir, op, f->ir->nodes[f->bn].label)) == GRAPH_NO_VALUE)
        return E_OUTOFMEMORY;
    memcpy(f->ir->nodes[node].inputs, values, input_count * sizeof(*values));
    f->ir->nodes[node].outputs[0] = values[input_count];
    f->ir->nodes[node].at_init = true;
    return S_OK;
}

/* out = a (type) b; a new value of `out`'s size and `kind`, or GRAPH_NO_VALUE when out of memory. */
static uint32_t add_binary(struct bn_fold *f, DML_OPERATOR_TYPE type, struct fold_tensor *a, uint32_t a_value,
        struct fold_tensor *b, uint32_t b_value, struct fold_tensor *out, enum graph_value_kind kind)
{
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC *desc;
    uint32_t values[3] = {a_value, b_value};

    if (!a || !b || !out || !(desc = graph_alloc(f->ir, sizeof(*desc)))
            || (values[2] = graph_add_value(f->ir, kind, out->buffer.TotalTensorSizeInBytes)) == GRAPH_NO_VALUE)
        return GRAPH_NO_VALUE;
    *desc = (DML_ELEMENT_WISE_ADD_OPERATOR_DESC){&a->desc, &b->desc, &out->desc};
    if (FAILED(add_init_node(f, type, desc, 2, (struct fold_tensor *const[]){a, b, out}, values)))
        return GRAPH_NO_VALUE;
    return values[2];
}

/* m = scale / sqrt(variance + epsilon), per channel, in the initializer's temporary resource. */
static uint32_t add_factors(struct bn_fold *f)
{
    const struct graph_node *bn = &f->ir->nodes[f->bn];
    uint32_t variance = bn->inputs[BN_VARIANCE], scale = bn->inputs[BN_SCALE], values[2] = {variance};
    DML_ELEMENT_WISE_SQRT_OPERATOR_DESC *desc;
    struct fold_tensor *input;
    DML_SCALE_BIAS *scale_bias;

    if (!(input = channel_tensor(f, f->bn_op->inputs[BN_VARIANCE], 0)) || !(desc = graph_alloc(f->ir, sizeof(*desc)))
            || !(scale_bias = graph_alloc(f->ir, sizeof(*scale_bias)))
            || (values[1] = graph_add_value(f->ir, GRAPH_VALUE_INIT_TEMPORARY,
            f->channel->buffer.TotalTensorSizeInBytes)) == GRAPH_NO_VALUE)
        return GRAPH_NO_VALUE;
    *scale_bias = (DML_SCALE_BIAS){1.0f, f->bn_desc->Epsilon};
    *desc = (DML_ELEMENT_WISE_SQRT_OPERATOR_DESC){&input->desc, &f->channel->desc, scale_bias};
    if (FAILED(add_init_node(f, DML_OPERATOR_ELEMENT_WISE_SQRT, desc, 1, (struct fold_tensor *const[]){input,
            f->channel}, values)))
        return GRAPH_NO_VALUE;
    return add_binary(f, DML_OPERATOR_ELEMENT_WISE_DIVIDE, channel_tensor(f, f->bn_op->inputs[BN_SCALE], 0), scale,
            f->channel, values[1], f->channel, GRAPH_VALUE_INIT_TEMPORARY);
}

/* filter' = filter * m, packed, flagged OWNED_BY_DML. */
static uint32_t add_filter(struct bn_fold *f, uint32_t factors, struct fold_tensor **filter)
{
    if (!(*filter = filter_tensor(f, false, false, DML_TENSOR_FLAG_OWNED_BY_DML)))
        return GRAPH_NO_VALUE;
    return add_binary(f, DML_OPERATOR_ELEMENT_WISE_MULTIPLY, filter_tensor(f, true, false, 0),
            f->ir->nodes[f->conv].inputs[CONV_FILTER], filter_tensor(f, false, true, 0), factors, *filter,
            GRAPH_VALUE_PERSISTENT);
}

/* bias' = (bias - mean) * m + BN bias; without a convolution bias, BN bias - mean * m. */
static uint32_t add_bias(struct bn_fold *f, uint32_t factors, struct fold_tensor **bias)
{
    const DML_BUFFER_TENSOR_DESC *conv_bias = f->conv_op->inputs[CONV_BIAS];
    const struct graph_node *bn = &f->ir->nodes[f->bn];
    uint32_t mean = bn->inputs[BN_MEAN], bn_bias = bn->inputs[BN_BIAS], centred = mean, scaled;
    struct fold_tensor *mean_tensor = channel_tensor(f, f->bn_op->inputs[BN_MEAN], 0), *centred_tensor = mean_tensor;

    if (!(*bias = channel_tensor(f, NULL, DML_TENSOR_FLAG_OWNED_BY_DML)))
        return GRAPH_NO_VALUE;
    if (conv_bias)
    {
        centred_tensor = f->channel;
        if ((centred = add_binary(f, DML_OPERATOR_ELEMENT_WISE_SUBTRACT, channel_tensor(f, conv_bias, 0),
                f->ir->nodes[f->conv].inputs[CONV_BIAS], mean_tensor, mean, f->channel,
                GRAPH_VALUE_INIT_TEMPORARY)) == GRAPH_NO_VALUE)
            return GRAPH_NO_VALUE;
    }
    if ((scaled = add_binary(f, DML_OPERATOR_ELEMENT_WISE_MULTIPLY, centred_tensor, centred, f->channel, factors,
            f->channel, GRAPH_VALUE_INIT_TEMPORARY)) == GRAPH_NO_VALUE)
        return GRAPH_NO_VALUE;
    if (conv_bias)
        return add_binary(f, DML_OPERATOR_ELEMENT_WISE_ADD, f->channel, scaled,
                channel_tensor(f, f->bn_op->inputs[BN_BIAS], 0), bn_bias, *bias, GRAPH_VALUE_PERSISTENT);
    return add_binary(f, DML_OPERATOR_ELEMENT_WISE_SUBTRACT, channel_tensor(f, f->bn_op->inputs[BN_BIAS], 0),
            bn_bias, f->channel, scaled, *bias, GRAPH_VALUE_PERSISTENT);
}

/* The convolution reads filter' and bias', writes the BATCH_NORMALIZATION's output with its
 * FusedActivation; the BATCH_NORMALIZATION goes. */
static HRESULT rewrite_conv(struct bn_fold *f, struct fold_tensor *filter, uint32_t filter_value,
        struct fold_tensor *bias, uint32_t bias_value)
{
    const DML_BUFFER_TENSOR_DESC **list;
    DML_CONVOLUTION_OPERATOR_DESC *desc;
    struct vkdml_operator_view *op;
    struct graph_node *node;

    if (!(desc = graph_alloc(f->ir, sizeof(*desc))) || !(op = graph_alloc(f->ir, sizeof(*op)))
            || !(list = graph_alloc(f->ir, 4 * sizeof(*list))))
        return E_OUTOFMEMORY;
    *desc = *f->conv_desc;
    desc->FilterTensor = &filter->desc;
    desc->BiasTensor = &bias->desc;
    desc->OutputTensor = f->bn_desc->OutputTensor;
    desc->FusedActivation = f->bn_desc->FusedActivation;
    list[CONV_INPUT] = f->conv_op->inputs[CONV_INPUT];
    list[CONV_FILTER] = &filter->buffer;
    list[CONV_BIAS] = &bias->buffer;
    list[3] = f->bn_op->outputs[0];
    *op = (struct vkdml_operator_view){DML_OPERATOR_CONVOLUTION, f->conv_op->name, desc, 3, 1, list, list + 3};
    node = &f->ir->nodes[f->conv];
    node->op = op;
    node->inputs[CONV_FILTER] = filter_value;
    node->inputs[CONV_BIAS] = bias_value;
    node->outputs[0] = f->ir->nodes[f->bn].outputs[0];
    f->ir->nodes[f->bn].removed = true;
    return S_OK;
}

static HRESULT fold_pair(struct bn_fold *f)
{
    struct fold_tensor *filter, *bias;
    uint32_t factors, filter_value, bias_value;

    if (!(f->channel = channel_tensor(f, NULL, 0))
            || (factors = add_factors(f)) == GRAPH_NO_VALUE
            || (filter_value = add_filter(f, factors, &filter)) == GRAPH_NO_VALUE
            || (bias_value = add_bias(f, factors, &bias)) == GRAPH_NO_VALUE)
        return E_OUTOFMEMORY;
    return rewrite_conv(f, filter, filter_value, bias, bias_value);
}

HRESULT graph_pass_batchnorm(struct graph_ir *ir)
{
    uint32_t count = ir->node_count, n;
    struct bn_fold fold;
    HRESULT hr;

    for (n = 0; n < count; ++n)
    {
        if (!find_pair(ir, n, &fold))
            continue;
        if (FAILED(hr = fold_pair(&fold)))
            return hr;
        ++ir->report.folded_batch_norms;
    }
    /* Weights that folded nodes computed are now read by the folding nodes only. */
    graph_keep_init_only_values_temporary(ir);
    return S_OK;
}
