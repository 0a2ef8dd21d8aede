/*
 * The graph compiler's "activation" pass (docs/graph.md, "activation"): an activation node whose
 * input only it reads, written by a host operator (CONVOLUTION, GEMM, BATCH_NORMALIZATION, the
 * MEAN_VARIANCE_NORMALIZATIONs, ELEMENT_WISE_ADD1, ELEMENT_WISE_ADD as ADD1) without a
 * FusedActivation, becomes that host's FusedActivation; the host then writes the activation's
 * output, and one dispatch and one intermediate disappear.
 */

#include <string.h>

#include "graph_private.h"

/* DirectML's hosts (docs/graph.md, "activation"); ELEMENT_WISE_ADD becomes ADD1, which has the
 * same tensors and a FusedActivation field. */
static bool is_host(DML_OPERATOR_TYPE type)
{
    switch (type)
    {
        case DML_OPERATOR_CONVOLUTION:
        case DML_OPERATOR_GEMM:
        case DML_OPERATOR_BATCH_NORMALIZATION:
        case DML_OPERATOR_BATCH_NORMALIZATION_TRAINING:
        case DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION:
        case DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1:
        case DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION2:
        case DML_OPERATOR_ELEMENT_WISE_ADD1:
        case DML_OPERATOR_ELEMENT_WISE_ADD:
            return true;
        default:
            return false;
    }
}

static DML_OPERATOR_TYPE fused_host_type(DML_OPERATOR_TYPE type)
{
    return type == DML_OPERATOR_ELEMENT_WISE_ADD ? DML_OPERATOR_ELEMENT_WISE_ADD1 : type;
}

/* The byte offset of the FusedActivation field in the host's desc (schema), or -1. */
static int fused_activation_offset(DML_OPERATOR_TYPE host)
{
    const struct vkdml_op_schema *schema = vkdml_op_schema_get(host);
    uint32_t i;

    for (i = 0; schema && i < schema->field_count; ++i)
    {
        if (schema->fields[i].kind == VKDML_FIELD_OPERATOR_DESC)
            return schema->fields[i].offset;
    }
    return -1;
}

static const DML_OPERATOR_DESC *host_fused_activation(const struct vkdml_operator_view *host)
{
    int offset = fused_activation_offset(host->type);

    return offset < 0 ? NULL : *(const DML_OPERATOR_DESC *const *)((const char *)host->desc + offset);
}

/* Whether `t` is packed (row-major, no gaps; a size-1 dimension's stride never matters). */
static bool is_packed(const DML_BUFFER_TENSOR_DESC *t)
{
    uint64_t stride = 1;
    uint32_t i;

    for (i = t->DimensionCount; i-- > 0;)
    {
        if (t->Sizes[i] != 1 && vkdml_tensor_stride(t, i) != stride)
            return false;
        stride *= t->Sizes[i];
    }
    return true;
}

static uint64_t element_count(const DML_BUFFER_TENSOR_DESC *t)
{
    uint64_t count = 1;
    uint32_t i;

    for (i = 0; i < t->DimensionCount; ++i)
        count *= t->Sizes[i];
    return count;
}

/* Whether a and b address the same elements the same way: type, sizes and strides (a size-1
 * dimension's stride never matters), or both packed with as many elements (a GEMM's 4-D output
 * read as the 3-D tensor it is). */
static bool same_layout(const DML_BUFFER_TENSOR_DESC *a, const DML_BUFFER_TENSOR_DESC *b)
{
    uint32_t i;

    if (a->DataType != b->DataType)
        return false;
    if (is_packed(a) && is_packed(b) && element_count(a) == element_count(b))
        return true;
    if (a->DimensionCount != b->DimensionCount)
        return false;
    for (i = 0; i < a->DimensionCount; ++i)
    {
        if (a->Sizes[i] != b->Sizes[i])
            return false;
        if (a->Sizes[i] != 1 && vkdml_tensor_stride(a, i) != vkdml_tensor_stride(b, i))
            return false;
    }
    return true;
}

/* The activation's own fields that its fused form cannot carry: CLIP's ScaleBias (activation.c). */
static bool activation_fields_fusible(const struct vkdml_operator_view *activation)
{
    if (activation->type != DML_OPERATOR_ELEMENT_WISE_CLIP)
        return true;
    return !((const DML_ELEMENT_WISE_CLIP_OPERATOR_DESC *)activation->desc)->ScaleBias;
}

/* Where a separate dispatch beats the fused epilogue (docs/graph.md, "activation"): GELU's erf in the
 * cooperative-matrix GEMM's epilogue is exposed arithmetic, in its own kernel it hides behind memory
 * (H200, encoder d768 FFN, 4096x3072x768 FLOAT16: GEMM + GELU fused 135 us, 87 + 25 us apart;
 * FLOAT32 fused is faster, 451 against 535 + 32 us). */
static bool fusion_pays(const struct vkdml_operator_view *host, const struct vkdml_operator_view *activation)
{
    return !(host->type == DML_OPERATOR_GEMM && activation->type == DML_OPERATOR_ACTIVATION_GELU
            && host->outputs[0]->DataType == DML_TENSOR_DATA_TYPE_FLOAT16);
}

/* The host node that may take activation node `a` as its FusedActivation, or GRAPH_NO_VALUE. */
static uint32_t find_host(const struct graph_ir *ir, const struct graph_node *a)
{
    uint32_t input = a->inputs[0], output = a->outputs[0], reader, host, host_output;
    const struct graph_value *value;
    const struct graph_node *h;

    if (input == GRAPH_NO_VALUE || output == GRAPH_NO_VALUE || !activation_fields_fusible(a->op))
        return GRAPH_NO_VALUE;
    value = &ir->values[input];
    /* Its bytes must be nobody else's: an intermediate the activation alone reads. */
    if (value->kind != GRAPH_VALUE_TEMPORARY || value->alias_of != GRAPH_NO_VALUE
            || graph_value_readers(ir, input, &reader) != 1)
        return GRAPH_NO_VALUE;
    if ((host = graph_value_producer(ir, input, &host_output)) == GRAPH_NO_VALUE || host_output)
        return GRAPH_NO_VALUE;
    h = &ir->nodes[host];
    if (h->at_init || !is_host(h->op->type) || host_fused_activation(h->op)
            || !vkdml_activation_fusible_into(fused_host_type(h->op->type), a->op->type) || !fusion_pays(h->op, a->op))
        return GRAPH_NO_VALUE;
    if (!same_layout(h->op->outputs[0], a->op->inputs[0]) || !same_layout(a->op->inputs[0], a->op->outputs[0]))
        return GRAPH_NO_VALUE;
    /* The host writes the activation's output value with its own desc: the bytes must fit. */
    if (h->op->outputs[0]->TotalTensorSizeInBytes > ir->values[output].size)
        return GRAPH_NO_VALUE;
    return host;
}

/* A copy of the activation's desc with NULL tensors (every activation desc starts with
 * InputTensor and OutputTensor), as a DML_OPERATOR_DESC. */
static const DML_OPERATOR_DESC *fused_desc(struct graph_ir *ir, const struct vkdml_operator_view *activation)
{
    const struct vkdml_op_schema *schema = vkdml_op_schema_get(activation->type);
    DML_OPERATOR_DESC *fused;
    const DML_TENSOR_DESC **tensors;

    if (!(fused = graph_alloc(ir, sizeof(*fused))) || !(tensors = graph_alloc(ir, schema->desc_size)))
        return NULL;
    memcpy(tensors, activation->desc, schema->desc_size);
    tensors[0] = tensors[1] = NULL;
    fused->Type = activation->type;
    fused->Desc = tensors;
    return fused;
}

/* The host's view again, with the activation in its FusedActivation (ADD as ADD1). */
static const struct vkdml_operator_view *fused_host(struct graph_ir *ir, const struct vkdml_operator_view *host,
        const struct vkdml_operator_view *activation)
{
    DML_OPERATOR_TYPE type = fused_host_type(host->type);
    const struct vkdml_op_schema *schema = vkdml_op_schema_get(type);
    const struct vkdml_op_schema *host_schema = vkdml_op_schema_get(host->type);
    int offset = fused_activation_offset(type);
    const DML_OPERATOR_DESC *fused;
    struct vkdml_operator_view *view;
    char *desc;

    if (offset < 0 || !(fused = fused_desc(ir, activation)) || !(view = graph_alloc(ir, sizeof(*view)))
            || !(desc = graph_alloc(ir, schema->desc_size)))
        return NULL;
    /* ADD's fields are ADD1's first ones. */
    memcpy(desc, host->desc, host_schema->desc_size);
    memcpy(desc + offset, &fused, sizeof(fused));
    *view = *host;
    view->type = type;
    view->name = schema->name;
    view->desc = desc;
    return view;
}

HRESULT graph_pass_activation(struct graph_ir *ir)
{
    const struct vkdml_operator_view *view;
    uint32_t n, host;

    for (n = 0; n < ir->node_count; ++n)
    {
        struct graph_node *a = &ir->nodes[n];

        if (a->removed || a->at_init || !vkdml_op_schema_get(a->op->type)->fusible)
            continue;
        if ((host = find_host(ir, a)) == GRAPH_NO_VALUE)
            continue;
        if (!(view = fused_host(ir, ir->nodes[host].op, a->op)))
            return E_OUTOFMEMORY;
        ir->nodes[host].op = view;
        ir->nodes[host].outputs[0] = a->outputs[0];
        a->removed = true;
        ++ir->report.fused_activations;
    }
    return S_OK;
}
