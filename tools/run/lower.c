/*
 * Lowering an ONNX model into one DML_GRAPH_DESC (docs/onnx.md, "Lowering"). Nodes are visited in
 * the model's sorted order; each one's op (ops.h) infers static output shapes, then either folds
 * on the host (all inputs constant, or an op that reads only shapes) or emits DirectML operators.
 * Values reach the device lazily: a constant becomes an OWNED_BY_DML graph input the first time an
 * operator reads it, a model input a plain graph input. Outputs with no elements are made on the
 * host (DirectML has no empty tensors).
 */
#include "lower.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "reference/fp16.h"
#include "vkdml.h"

struct arena_block
{
    struct arena_block *next;
    max_align_t data[];
};

struct run_lower
{
    IDMLDevice *dml;
    const struct run_options *options;
    const struct onnx_model *model;
    struct arena_block *arena;
    struct run_value **values;          /* every value; by name through `table` */
    unsigned int value_count, value_capacity;
    struct run_value **table;           /* open addressing on the name's hash */
    unsigned int table_size;
    struct run_graph graph;
    bool *absorbed;                     /* by position in model->nodes: lowered by an earlier node */
    DML_GRAPH_NODE_DESC *nodes;
    DML_OPERATOR_GRAPH_NODE_DESC *node_descs;
    unsigned int operator_capacity, name_capacity;
    struct run_value **produced;        /* every operator output, in the order they were made */
    unsigned int produced_count, produced_capacity;
    DML_GRAPH_EDGE_DESC *input_edges, *intermediate_edges, *output_edges;
    DML_INPUT_GRAPH_EDGE_DESC *input_edge_descs;
    DML_INTERMEDIATE_GRAPH_EDGE_DESC *intermediate_edge_descs;
    DML_OUTPUT_GRAPH_EDGE_DESC *output_edge_descs;
    unsigned int input_edge_capacity, intermediate_edge_capacity, graph_input_capacity;
    enum run_error_kind error_kind;
    char error[1024];
};

/* ---- Memory ---- */

static void *arena_alloc(struct run_lower *l, size_t size)
{
    struct arena_block *block = calloc(1, sizeof(*block) + size);

    if (!block)
        return NULL;
    block->next = l->arena;
    l->arena = block;
    return block->data;
}

/* Doubles `*array` (of `size`-byte elements) when `count` reached `*capacity`. */
static bool grow(void *array, unsigned int *capacity, unsigned int count, size_t size)
{
    void **pointer = array, *grown;
    unsigned int new_capacity;

    if (count < *capacity)
        return true;
    new_capacity = *capacity ? 2 * *capacity : 32;
    if (!(grown = realloc(*pointer, new_capacity * size)))
        return false;
    memset((char *)grown + *capacity * size, 0, (new_capacity - *capacity) * size);
    *pointer = grown;
    *capacity = new_capacity;
    return true;
}

void *run_alloc(struct run_node *n, size_t size)
{
    return arena_alloc(n->lower, size);
}

/* ---- Errors ---- */

static bool node_message(struct run_node *n, enum run_error_kind kind, const char *format, va_list args)
{
    struct run_lower *l = n->lower;
    int used;

    if (l->error_kind != RUN_OK)
        return false;
    l->error_kind = kind;
    used = snprintf(l->error, sizeof(l->error), "node '%s' (%s, opset %" PRId64 "): %s", n->onnx->name,
            n->onnx->op_type, n->opset, kind == RUN_UNSUPPORTED ? "unsupported: " : "");
    if (used > 0 && (size_t)used < sizeof(l->error))
        vsnprintf(l->error + used, sizeof(l->error) - (size_t)used, format, args);
    return false;
}

bool run_fail(struct run_node *n, const char *format, ...)
{
    va_list args;

    va_start(args, format);
    node_message(n, RUN_ERROR, format, args);
    va_end(args);
    return false;
}

bool run_unsupported(struct run_node *n, const char *format, ...)
{
    va_list args;

    va_start(args, format);
    node_message(n, RUN_UNSUPPORTED, format, args);
    va_end(args);
    return false;
}

static bool lower_fail(struct run_lower *l, enum run_error_kind kind, const char *format, ...)
{
    va_list args;

    if (l->error_kind != RUN_OK)
        return false;
    l->error_kind = kind;
    va_start(args, format);
    vsnprintf(l->error, sizeof(l->error), format, args);
    va_end(args);
    return false;
}

/* ---- Values ---- */

static unsigned int name_hash(const char *name)
{
    unsigned int hash = 2166136261u;

    while (*name)
        hash = (hash ^ (unsigned char)*name++) * 16777619u;
    return hash;
}

static struct run_value *find_value(const struct run_lower *l, const char *name)
{
    unsigned int i;

    if (!l->table_size)
        return NULL;
    for (i = name_hash(name) & (l->table_size - 1); l->table[i]; i = (i + 1) & (l->table_size - 1))
        if (!strcmp(l->table[i]->name, name))
            return l->table[i];
    return NULL;
}

static bool rehash(struct run_lower *l)
{
    unsigned int size = l->table_size ? 2 * l->table_size : 256, i, j;
    struct run_value **table = calloc(size, sizeof(*table));

    if (!table)
        return false;
    for (i = 0; i < l->value_count; ++i)
    {
        if (!l->values[i]->name[0])
            continue;
        for (j = name_hash(l->values[i]->name) & (size - 1); table[j]; j = (j + 1) & (size - 1))
            ;
        table[j] = l->values[i];
    }
    free(l->table);
    l->table = table;
    l->table_size = size;
    return true;
}

static void table_insert(struct run_lower *l, struct run_value *v)
{
    unsigned int i;

    for (i = name_hash(v->name) & (l->table_size - 1); l->table[i]; i = (i + 1) & (l->table_size - 1))
        ;
    l->table[i] = v;
}

/* A new value; `name` "" makes an unnamed intermediate. */
static struct run_value *new_value(struct run_lower *l, const char *name)
{
    struct run_value *v;

    if (!grow(&l->values, &l->value_capacity, l->value_count, sizeof(*l->values))
            || !(v = arena_alloc(l, sizeof(*v))))
        return NULL;
    v->name = name;
    v->dml_node = -1;
    v->dml_input = -1;
    l->values[l->value_count++] = v;
    if (!name[0])
        return v;
    if (2 * l->value_count >= l->table_size)
        return rehash(l) ? v : NULL;
    table_insert(l, v);
    return v;
}

/* ---- What the op families use ---- */

struct run_value *run_in(struct run_node *n, unsigned int i)
{
    return i < n->in_count ? n->in[i] : NULL;
}

const struct run_tensor *run_in_host(struct run_node *n, unsigned int i)
{
    struct run_value *v = run_in(n, i);

    if (v && v->host)
        return v->host;
    if (!v)
        run_fail(n, "input %u is missing", i);
    else
        run_unsupported(n, "input %u ('%s') decides a shape, and its values are not known before the run "
                "(neither a constant nor a given model input)", i, v->name);
    return NULL;
}

int run_in_ints(struct run_node *n, unsigned int i, int64_t *values, int max)
{
    const struct run_tensor *t = run_in_host(n, i);
    int64_t count, j;

    if (!t)
        return -1;
    if ((count = run_shape_elements(&t->shape)) > max)
    {
        run_fail(n, "input %u has %" PRId64 " values (at most %d)", i, count, max);
        return -1;
    }
    for (j = 0; j < count; ++j)
        values[j] = run_tensor_get_int(t, j);
    return (int)count;
}

void run_set_out(struct run_node *n, unsigned int i, int type, const struct run_shape *shape)
{
    struct run_value *v = i < n->out_count ? n->out[i] : NULL;

    if (!v)
        return;
    v->type = type;
    v->shape = *shape;
    v->inferred = true;
}

static struct run_tensor *new_host(struct run_lower *l, struct run_value *v)
{
    struct run_tensor *t = arena_alloc(l, sizeof(*t));

    if (!t || !run_tensor_alloc(t, v->type, &v->shape))
        return NULL;
    snprintf(t->name, sizeof(t->name), "%s", v->name);
    v->host = t;
    v->host_owned = true;
    v->constant = true;
    return t;
}

struct run_tensor *run_out_host(struct run_node *n, unsigned int i)
{
    struct run_value *v = i < n->out_count ? n->out[i] : NULL;
    struct run_tensor *t;

    if (!v)
    {
        run_fail(n, "output %u is not in the model", i);
        return NULL;
    }
    if (v->host)
        return v->host;
    if (!(t = new_host(n->lower, v)))
        run_fail(n, "out of memory for output %u", i);
    return t;
}

bool run_axis(struct run_node *n, int64_t axis, unsigned int rank, unsigned int *out)
{
    if (axis < -(int64_t)rank || axis >= (int64_t)rank)
        return run_fail(n, "axis %" PRId64 " is outside [-%u, %u)", axis, rank, rank);
    *out = (unsigned int)(axis < 0 ? axis + rank : axis);
    return true;
}

bool run_broadcast(struct run_node *n, const struct run_shape *a, const struct run_shape *b, struct run_shape *out)
{
    unsigned int rank = a->rank > b->rank ? a->rank : b->rank, i;

    out->rank = rank;
    for (i = 0; i < rank; ++i)
    {
        int64_t da = i + a->rank >= rank ? a->dims[i + a->rank - rank] : 1;
        int64_t db = i + b->rank >= rank ? b->dims[i + b->rank - rank] : 1;

        if (da != db && da != 1 && db != 1)
            return run_fail(n, "shapes do not broadcast (dimension %u: %" PRId64 " and %" PRId64 ")", i, da, db);
        out->dims[i] = da == 1 ? db : da;
    }
    return true;
}

int64_t run_broadcast_source(const struct run_shape *from, const struct run_shape *to, int64_t index)
{
    int64_t source = 0, stride = 1;
    unsigned int i;

    for (i = to->rank; i-- > 0;)
    {
        int64_t coordinate = index % to->dims[i];

        index /= to->dims[i];
        if (i + from->rank < to->rank)
            continue;
        if (from->dims[i + from->rank - to->rank] != 1)
            source += coordinate * stride;
        stride *= from->dims[i + from->rank - to->rank];
    }
    return source;
}

/* ---- Tensor descs ---- */

DML_TENSOR_DATA_TYPE run_dml_type(const struct run_lower *l, int type)
{
    switch (type)
    {
        case ONNX_FLOAT: return l->options->half ? DML_TENSOR_DATA_TYPE_FLOAT16 : DML_TENSOR_DATA_TYPE_FLOAT32;
        case ONNX_FLOAT16: return DML_TENSOR_DATA_TYPE_FLOAT16;
        case ONNX_DOUBLE: return DML_TENSOR_DATA_TYPE_FLOAT64;
        case ONNX_BOOL: case ONNX_UINT8: return DML_TENSOR_DATA_TYPE_UINT8;
        case ONNX_INT8: return DML_TENSOR_DATA_TYPE_INT8;
        case ONNX_UINT16: return DML_TENSOR_DATA_TYPE_UINT16;
        case ONNX_INT16: return DML_TENSOR_DATA_TYPE_INT16;
        case ONNX_INT32: return DML_TENSOR_DATA_TYPE_INT32;
        case ONNX_UINT32: return DML_TENSOR_DATA_TYPE_UINT32;
        case ONNX_INT64: return DML_TENSOR_DATA_TYPE_INT64;
        case ONNX_UINT64: return DML_TENSOR_DATA_TYPE_UINT64;
        default: return DML_TENSOR_DATA_TYPE_UNKNOWN;
    }
}

/* The bytes `v` takes on the device, packed (DirectML rounds buffer sizes up to 4 bytes). */
static UINT64 device_bytes(const struct run_lower *l, const struct run_value *v)
{
    UINT sizes[1] = {(UINT)run_shape_elements(&v->shape)};

    return vkdml_calc_buffer_tensor_size(run_dml_type(l, v->type), 1, sizes, NULL);
}

struct desc_storage
{
    DML_TENSOR_DESC desc;
    DML_BUFFER_TENSOR_DESC buffer;
    UINT sizes[RUN_MAX_RANK];
    UINT strides[RUN_MAX_RANK];
};

static bool materialize(struct run_node *n, struct run_value *v);
static bool compose_view(const struct run_value *v, unsigned int rank, const uint32_t *sizes, const uint32_t *strides,
        uint32_t *composed);

DML_TENSOR_DESC *run_desc_view(struct run_node *n, const struct run_value *v, unsigned int rank,
        const uint32_t *sizes, const uint32_t *strides, DML_TENSOR_DATA_TYPE type)
{
    struct desc_storage *s = run_alloc(n, sizeof(*s));
    uint32_t composed[RUN_MAX_RANK];

    if (!s)
    {
        run_fail(n, "out of memory");
        return NULL;
    }
    if (v->view_of)
    {
        /* Read the viewed tensor directly when the desc's strides compose with the view's. */
        if (compose_view(v, rank, sizes, strides, composed))
        {
            strides = composed;
            v = v->view_of;
        }
        else if (!materialize(n, (struct run_value *)v))
        {
            return NULL;
        }
    }
    memcpy(s->sizes, sizes, rank * sizeof(*sizes));
    s->buffer.DataType = type != DML_TENSOR_DATA_TYPE_UNKNOWN ? type : run_dml_type(n->lower, v->type);
    s->buffer.Flags = v->constant ? DML_TENSOR_FLAG_OWNED_BY_DML : DML_TENSOR_FLAG_NONE;
    s->buffer.DimensionCount = rank;
    s->buffer.Sizes = s->sizes;
    if (strides)
    {
        memcpy(s->strides, strides, rank * sizeof(*strides));
        s->buffer.Strides = s->strides;
    }
    s->buffer.TotalTensorSizeInBytes = device_bytes(n->lower, v);
    s->desc.Type = DML_TENSOR_TYPE_BUFFER;
    s->desc.Desc = &s->buffer;
    return &s->desc;
}

/* `rank` for a desc of `v`: at least v's rank and 1. */
static unsigned int desc_rank(const struct run_value *v, unsigned int rank)
{
    rank = rank > v->shape.rank ? rank : v->shape.rank;
    return rank ? rank : 1;
}

DML_TENSOR_DESC *run_desc(struct run_node *n, const struct run_value *v, unsigned int rank)
{
    UINT sizes[RUN_MAX_RANK];
    unsigned int i;

    rank = desc_rank(v, rank);
    if (rank > RUN_MAX_RANK)
    {
        run_unsupported(n, "'%s' has %u dimensions", v->name, rank);
        return NULL;
    }
    for (i = 0; i < rank; ++i)
        sizes[i] = i + v->shape.rank >= rank ? (UINT)v->shape.dims[i + v->shape.rank - rank] : 1;
    return run_desc_view(n, v, rank, sizes, NULL, DML_TENSOR_DATA_TYPE_UNKNOWN);
}

DML_TENSOR_DESC *run_desc_broadcast(struct run_node *n, const struct run_value *v, unsigned int rank,
        const int64_t *sizes)
{
    UINT view_sizes[RUN_MAX_RANK], strides[RUN_MAX_RANK], stride = 1;
    unsigned int i;

    if (rank < v->shape.rank || rank > RUN_MAX_RANK)
    {
        run_fail(n, "'%s' (rank %u) read with %u dimensions", v->name, v->shape.rank, rank);
        return NULL;
    }
    for (i = rank; i-- > 0;)
    {
        int64_t own = i + v->shape.rank >= rank ? v->shape.dims[i + v->shape.rank - rank] : 1;

        view_sizes[i] = (UINT)sizes[i];
        strides[i] = own == 1 && sizes[i] != 1 ? 0 : stride;
        stride *= (UINT)own;
    }
    return run_desc_view(n, v, rank, view_sizes, strides, DML_TENSOR_DATA_TYPE_UNKNOWN);
}

DML_SCALAR_UNION run_scalar(DML_TENSOR_DATA_TYPE type, double value)
{
    DML_SCALAR_UNION scalar;

    memset(&scalar, 0, sizeof(scalar));
    switch (type)
    {
        case DML_TENSOR_DATA_TYPE_FLOAT32: scalar.Float32 = (FLOAT)value; break;
        case DML_TENSOR_DATA_TYPE_FLOAT64: scalar.Float64 = value; break;
        case DML_TENSOR_DATA_TYPE_FLOAT16: scalar.UInt16 = ref_float_to_half((float)value); break;
        case DML_TENSOR_DATA_TYPE_INT8: scalar.Int8 = (INT8)value; break;
        case DML_TENSOR_DATA_TYPE_UINT8: scalar.UInt8 = (UINT8)value; break;
        case DML_TENSOR_DATA_TYPE_INT16: scalar.Int16 = (INT16)value; break;
        case DML_TENSOR_DATA_TYPE_UINT16: scalar.UInt16 = (UINT16)value; break;
        case DML_TENSOR_DATA_TYPE_INT32: scalar.Int32 = (INT32)value; break;
        case DML_TENSOR_DATA_TYPE_UINT32: scalar.UInt32 = (UINT32)value; break;
        case DML_TENSOR_DATA_TYPE_INT64: scalar.Int64 = (INT64)value; break;
        case DML_TENSOR_DATA_TYPE_UINT64: scalar.UInt64 = (UINT64)value; break;
        default: break;
    }
    return scalar;
}

/* ---- Emitting ---- */

struct run_value *run_temp(struct run_node *n, int type, const struct run_shape *shape)
{
    struct run_value *v = new_value(n->lower, "");

    if (!v)
    {
        run_fail(n, "out of memory");
        return NULL;
    }
    v->type = type;
    v->shape = *shape;
    v->inferred = true;
    return v;
}

/* `v` as a graph input: a constant becomes a weight (OWNED_BY_DML), a model input a runtime one. */
static bool place_graph_input(struct run_node *n, struct run_value *v)
{
    struct run_lower *l = n->lower;
    struct run_graph *g = &l->graph;

    if (v->alias_of)
    {
        if (v->alias_of->dml_input < 0 && !place_graph_input(n, v->alias_of))
            return false;
        v->dml_input = v->alias_of->dml_input;
        return true;
    }
    if (!v->constant && !v->graph_input)
        return run_fail(n, "'%s' is needed before any operator makes it", v->name);
    if (!grow(&g->inputs, &l->graph_input_capacity, g->input_count, sizeof(*g->inputs)))
        return run_fail(n, "out of memory");
    g->inputs[g->input_count].value = v;
    g->inputs[g->input_count].weight = v->constant;
    v->dml_input = (int)g->input_count++;
    return true;
}

static bool add_input_edge(struct run_node *n, struct run_value *v, UINT node, UINT index)
{
    struct run_lower *l = n->lower;
    DML_GRAPH_DESC *d = &l->graph.desc;

    if (v->view_of)
        v = v->view_of;
    if (v->dml_node >= 0)
    {
        DML_INTERMEDIATE_GRAPH_EDGE_DESC edge = {(UINT)v->dml_node, v->dml_output, node, index, NULL};

        if (!grow(&l->intermediate_edge_descs, &l->intermediate_edge_capacity, d->IntermediateEdgeCount,
                sizeof(edge)))
            return run_fail(n, "out of memory");
        l->intermediate_edge_descs[d->IntermediateEdgeCount++] = edge;
        return true;
    }
    if (v->dml_input < 0 && !place_graph_input(n, v))
        return false;
    {
        DML_INPUT_GRAPH_EDGE_DESC edge = {(UINT)v->dml_input, node, index, NULL};

        if (!grow(&l->input_edge_descs, &l->input_edge_capacity, d->InputEdgeCount, sizeof(edge)))
            return run_fail(n, "out of memory");
        l->input_edge_descs[d->InputEdgeCount++] = edge;
    }
    return true;
}

static const char *hresult_name(HRESULT hr)
{
    switch (hr)
    {
        case E_NOTIMPL: return "E_NOTIMPL";
        case E_INVALIDARG: return "E_INVALIDARG";
        case E_OUTOFMEMORY: return "E_OUTOFMEMORY";
        default: return "an error";
    }
}

static bool add_node(struct run_node *n, IDMLOperator *op)
{
    struct run_lower *l = n->lower;
    struct run_graph *g = &l->graph;
    unsigned int index = g->desc.NodeCount;
    char *name;

    if (!grow(&g->operators, &l->operator_capacity, index, sizeof(*g->operators))
            || !grow(&g->node_names, &l->name_capacity, index, sizeof(*g->node_names))
            || !(name = arena_alloc(l, strlen(n->onnx->name) + 16)))
    {
        IDMLOperator_Release(op);
        return run_fail(n, "out of memory");
    }
    sprintf(name, n->emitted ? "%s/%u" : "%s", n->onnx->name, n->emitted);
    g->operators[index] = op;
    g->node_names[index] = name;
    ++g->desc.NodeCount;
    ++n->emitted;
    return true;
}

bool run_emit(struct run_node *n, DML_OPERATOR_TYPE type, const void *desc, struct run_value *const *inputs,
        unsigned int input_count, struct run_value *const *outputs, unsigned int output_count)
{
    struct run_lower *l = n->lower;
    DML_OPERATOR_DESC op_desc = {type, desc};
    IDMLOperator *op;
    unsigned int i, node;
    HRESULT hr;

    if (l->error_kind != RUN_OK)
        return false;
    for (i = 0; i < input_count; ++i)
        if (inputs[i] && !run_shape_elements(&inputs[i]->shape))
            return run_unsupported(n, "input '%s' has no elements (DirectML has no empty tensors)", inputs[i]->name);
    if (FAILED(hr = IDMLDevice_CreateOperator(l->dml, &op_desc, &IID_IDMLOperator, (void **)&op)))
    {
        if (hr == E_NOTIMPL)
            return run_unsupported(n, "DirectML operator %d: CreateOperator answered E_NOTIMPL", type);
        return run_fail(n, "DirectML operator %d: CreateOperator answered %s (%#x)", type, hresult_name(hr),
                (unsigned int)hr);
    }
    node = l->graph.desc.NodeCount;
    if (!add_node(n, op))
        return false;
    for (i = 0; i < input_count; ++i)
        if (inputs[i] && !add_input_edge(n, inputs[i], node, i))
            return false;
    for (i = 0; i < output_count; ++i)
    {
        if (!outputs[i])
            continue;
        outputs[i]->dml_node = (int)node;
        outputs[i]->dml_output = i;
        if (!grow(&l->produced, &l->produced_capacity, l->produced_count, sizeof(*l->produced)))
            return run_fail(n, "out of memory");
        l->produced[l->produced_count++] = outputs[i];
    }
    return true;
}

bool run_alias(struct run_node *n, unsigned int out, struct run_value *in)
{
    struct run_value *v = out < n->out_count ? n->out[out] : NULL;
    struct run_tensor *t;

    if (!v)
        return true;
    if (run_shape_elements(&v->shape) != run_shape_elements(&in->shape) || v->type != in->type)
        return run_fail(n, "output %u (%s) cannot alias '%s'", out, v->name, in->name);
    if (in->view_of && !materialize(n, in))
        return false;
    if (in->constant)
    {
        if (!(t = run_out_host(n, out)))
            return false;
        memcpy(t->data, in->host->data, run_tensor_bytes(t));
        return true;
    }
    if (in->dml_node < 0 && in->dml_input < 0)
    {
        /* A model input no operator has read yet: it becomes a graph input only when one does. */
        v->graph_input = true;
        v->host = in->host;
        v->alias_of = in->alias_of ? in->alias_of : in;
        ++n->lower->graph.aliased_nodes;
        return true;
    }
    v->dml_node = in->dml_node;
    v->dml_output = in->dml_output;
    v->dml_input = in->dml_input;
    ++n->lower->graph.aliased_nodes;
    return true;
}

/* ---- Absorbing a consumer ---- */

static bool reads(const struct onnx_node *node, const char *name)
{
    unsigned int i;

    for (i = 0; i < node->input_count; ++i)
        if (!strcmp(node->inputs[i], name))
            return true;
    return false;
}

const struct onnx_node *run_sole_consumer(struct run_node *n, const struct run_value *v)
{
    const struct onnx_model *m = n->lower->model;
    const struct onnx_node *consumer = NULL;
    unsigned int i;

    if (!v || !v->name[0])
        return NULL;
    for (i = 0; i < m->output_count; ++i)
        if (!strcmp(m->outputs[i].name, v->name))
            return NULL;
    for (i = (unsigned int)(n->onnx - m->nodes) + 1; i < m->node_count; ++i)
    {
        if (!reads(&m->nodes[i], v->name))
            continue;
        if (consumer || n->lower->absorbed[i])
            return NULL;
        consumer = &m->nodes[i];
    }
    return consumer;
}

struct run_value *run_find(struct run_node *n, const char *name)
{
    return find_value(n->lower, name);
}

struct run_value *run_absorb(struct run_node *n, const struct onnx_node *consumer, const struct run_value *like)
{
    struct run_lower *l = n->lower;
    struct run_value *v;

    if (!consumer->output_count || !consumer->outputs[0][0] || find_value(l, consumer->outputs[0]))
    {
        run_fail(n, "cannot take over node '%s'", consumer->name);
        return NULL;
    }
    if (!(v = new_value(l, consumer->outputs[0])))
    {
        run_fail(n, "out of memory");
        return NULL;
    }
    v->type = like->type;
    v->shape = like->shape;
    v->inferred = true;
    l->absorbed[consumer - l->model->nodes] = true;
    ++l->graph.onnx_nodes;
    return v;
}

bool run_constant_scalar(struct run_node *n, const char *name, double *value)
{
    const struct run_value *v = find_value(n->lower, name);

    if (!v || !v->constant || run_shape_elements(&v->shape) != 1)
        return false;
    *value = run_tensor_get_double(v->host, 0);
    return true;
}

/* ---- Views (docs/onnx.md, "Lowering") ---- */

static void packed_strides(unsigned int rank, const uint32_t *sizes, uint32_t *strides)
{
    uint32_t stride = 1;
    unsigned int i;

    for (i = rank; i-- > 0;)
    {
        strides[i] = stride;
        stride *= sizes[i];
    }
}

/* The stride in the viewed tensor of a desc dimension that reads view `v` with `size` elements `stride`
 * apart in v's packed layout: one dimension of v, or several that the view keeps contiguous. */
static bool compose_dimension(const struct run_value *v, const int64_t *packed, uint32_t size, uint32_t stride,
        uint32_t *out)
{
    const int64_t *dims = v->shape.dims;
    int64_t remaining = size;
    unsigned int j = v->shape.rank, next;

    *out = 0;
    if (size == 1 || !stride)
        return true;
    while (j-- > 0 && !(packed[j] == stride && dims[j] > 1))
        ;
    if (j >= v->shape.rank)
        return false;
    *out = (uint32_t)v->view_strides[j];
    while (remaining > dims[j])
    {
        if (remaining % dims[j])
            return false;
        remaining /= dims[j];
        for (next = j; next > 0 && dims[next - 1] == 1; --next)
            ;
        if (!next || v->view_strides[next - 1] != v->view_strides[j] * dims[j])
            return false;
        j = next - 1;
    }
    return true;
}

/* Element `offset` of v's packed layout, in the viewed tensor. */
static int64_t view_offset(const struct run_value *v, int64_t offset)
{
    int64_t result = 0;
    unsigned int i;

    for (i = v->shape.rank; i-- > 0;)
    {
        result += offset % v->shape.dims[i] * v->view_strides[i];
        offset /= v->shape.dims[i];
    }
    return result;
}

/* A desc over view `v` (sizes, strides in v's packed layout; NULL: packed) as strides of the viewed
 * tensor; checked at each dimension's last element and at the desc's last element. */
static bool compose_view(const struct run_value *v, unsigned int rank, const uint32_t *sizes, const uint32_t *strides,
        uint32_t *composed)
{
    int64_t packed[RUN_MAX_RANK], last = 0, composed_last = 0;
    uint32_t own_strides[RUN_MAX_RANK];
    unsigned int i;

    if (!strides)
    {
        packed_strides(rank, sizes, own_strides);
        strides = own_strides;
    }
    for (i = v->shape.rank, last = 1; i-- > 0;)
    {
        packed[i] = last;
        last *= v->shape.dims[i];
    }
    last = 0;
    for (i = 0; i < rank; ++i)
    {
        int64_t end = (int64_t)(sizes[i] - 1) * strides[i];

        if (!compose_dimension(v, packed, sizes[i], strides[i], &composed[i])
                || end >= run_shape_elements(&v->shape)
                || view_offset(v, end) != (int64_t)(sizes[i] - 1) * composed[i])
            return false;
        last += end;
        composed_last += (int64_t)(sizes[i] - 1) * composed[i];
    }
    return last < run_shape_elements(&v->shape) && view_offset(v, last) == composed_last;
}

/* Copies view `v` out into a packed tensor (ELEMENT_WISE_IDENTITY); v is that tensor from then on. */
static bool materialize(struct run_node *n, struct run_value *v)
{
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc;
    uint32_t sizes[RUN_MAX_RANK] = {1}, strides[RUN_MAX_RANK] = {0};
    unsigned int rank = v->shape.rank ? v->shape.rank : 1, i;
    struct run_value *copy;

    memset(&desc, 0, sizeof(desc));
    for (i = 0; i < v->shape.rank; ++i)
    {
        sizes[i] = (uint32_t)v->shape.dims[i];
        strides[i] = (uint32_t)v->view_strides[i];
    }
    if (!(copy = run_temp(n, v->type, &v->shape))
            || !(desc.InputTensor = run_desc_view(n, v->view_of, rank, sizes, strides, DML_TENSOR_DATA_TYPE_UNKNOWN))
            || !(desc.OutputTensor = run_desc(n, copy, 0))
            || !run_emit(n, DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc, &v->view_of, 1, &copy, 1))
        return false;
    v->view_of = NULL;
    v->dml_node = copy->dml_node;
    v->dml_output = copy->dml_output;
    return true;
}

bool run_view(struct run_node *n, unsigned int out, struct run_value *in, unsigned int rank, const uint32_t *sizes,
        const uint32_t *strides)
{
    struct run_value *v = out < n->out_count ? n->out[out] : NULL;
    uint32_t composed[RUN_MAX_RANK];
    unsigned int i;

    if (!v)
        return true;
    if (rank != (v->shape.rank ? v->shape.rank : 1) || run_shape_elements(&v->shape) != run_shape_elements(&in->shape))
        return run_fail(n, "output %u (%s) is no view of '%s'", out, v->name, in->name);
    /* A view of a view reads the first one's tensor. */
    if (in->view_of && !compose_view(in, rank, sizes, strides, composed) && !materialize(n, in))
        return false;
    for (i = 0; i < rank; ++i)
        v->view_strides[i] = in->view_of ? composed[i] : strides[i];
    v->view_of = in->view_of ? in->view_of : in;
    return true;
}

/* ---- The driver ---- */

static bool add_model_values(struct run_lower *l, const struct onnx_model *m, struct run_tensor *inputs)
{
    struct run_value *v;
    unsigned int i;

    for (i = 0; i < m->initializer_count; ++i)
    {
        if (!(v = new_value(l, m->initializers[i].name)))
            return lower_fail(l, RUN_ERROR, "out of memory");
        v->type = m->initializers[i].type;
        v->shape = m->initializers[i].shape;
        v->inferred = v->constant = true;
        v->host = &m->initializers[i];
    }
    for (i = 0; i < m->input_count; ++i)
    {
        if (find_value(l, m->inputs[i].name))
            return lower_fail(l, RUN_ERROR, "input '%s' is named twice", m->inputs[i].name);
        if (!(v = new_value(l, m->inputs[i].name)))
            return lower_fail(l, RUN_ERROR, "out of memory");
        v->type = inputs[i].type;
        v->shape = inputs[i].shape;
        v->inferred = v->graph_input = true;
        v->host = &inputs[i];
    }
    return true;
}

static bool bind_node_values(struct run_lower *l, const struct onnx_node *onnx, struct run_node *n)
{
    unsigned int i;

    if (onnx->input_count > RUN_MAX_NODE_TENSORS || onnx->output_count > RUN_MAX_NODE_TENSORS)
        return run_unsupported(n, "more than %d inputs or outputs", RUN_MAX_NODE_TENSORS);
    n->in_count = onnx->input_count;
    for (i = 0; i < n->in_count; ++i)
    {
        if (!onnx->inputs[i][0])
            continue;
        if (!(n->in[i] = find_value(l, onnx->inputs[i])))
            return run_fail(n, "input '%s' is not defined", onnx->inputs[i]);
    }
    n->out_count = onnx->output_count;
    for (i = 0; i < n->out_count; ++i)
    {
        if (!onnx->outputs[i][0])
            continue;
        if (find_value(l, onnx->outputs[i]))
            return run_fail(n, "output '%s' is already defined (ONNX names each value once)", onnx->outputs[i]);
        if (!(n->out[i] = new_value(l, onnx->outputs[i])))
            return run_fail(n, "out of memory");
    }
    return true;
}

static bool inputs_constant(const struct run_node *n)
{
    unsigned int i;

    for (i = 0; i < n->in_count; ++i)
        if (n->in[i] && !n->in[i]->constant)
            return false;
    return true;
}

/* Outputs with no elements, when any, are made on the host: all of them, or the node fails. */
static bool make_empty_outputs(struct run_node *n, bool *done)
{
    unsigned int i, empty = 0, present = 0;

    *done = false;
    for (i = 0; i < n->out_count; ++i)
    {
        if (!n->out[i])
            continue;
        ++present;
        empty += !run_shape_elements(&n->out[i]->shape);
    }
    if (!empty)
        return true;
    if (empty < present)
        return run_unsupported(n, "some outputs have no elements and some do");
    for (i = 0; i < n->out_count; ++i)
        if (n->out[i] && !run_out_host(n, i))
            return false;
    *done = true;
    return true;
}

static bool check_inferred(struct run_node *n)
{
    unsigned int i;

    for (i = 0; i < n->out_count; ++i)
    {
        if (!n->out[i])
            continue;
        if (!n->out[i]->inferred)
            return run_fail(n, "output %u's shape was not inferred", i);
        if (n->out[i]->shape.rank > RUN_MAX_RANK)
            return run_unsupported(n, "output %u has %u dimensions", i, n->out[i]->shape.rank);
    }
    return true;
}

/* Views among the node's inputs are copied out unless the op reads them (one input slot each: a
 * view read twice is copied, so that every slot's desc and edge agree). */
static bool materialize_inputs(struct run_node *n, bool reads_views)
{
    unsigned int i, j;

    for (i = 0; i < n->in_count; ++i)
    {
        bool repeated = false;

        if (!n->in[i] || !n->in[i]->view_of)
            continue;
        for (j = 0; j < n->in_count; ++j)
            repeated |= j != i && n->in[j] == n->in[i];
        if ((!reads_views || repeated) && !materialize(n, n->in[i]))
            return false;
    }
    return true;
}

static bool lower_node(struct run_lower *l, const struct onnx_node *onnx)
{
    struct run_node n;
    const struct run_op *op;
    const char *reason;
    bool done;

    memset(&n, 0, sizeof(n));
    n.onnx = onnx;
    n.opset = l->model->opset;
    n.lower = l;
    if (onnx->domain[0] && strcmp(onnx->domain, "ai.onnx"))
        return run_unsupported(&n, "operators of domain '%s' are not mapped", onnx->domain);
    if (!(op = run_find_op(onnx->domain, onnx->op_type)))
        return run_unsupported(&n, "%s is not mapped to DirectML by vkdml-run", onnx->op_type);
    if ((reason = onnx_attr_unsupported(onnx)))
        return run_unsupported(&n, "%s", reason);
    if (!bind_node_values(l, onnx, &n) || !op->infer(&n) || !check_inferred(&n) || !make_empty_outputs(&n, &done))
        return false;
    if (done)
        return true;
    if (op->fold && (op->fold_always || inputs_constant(&n)))
    {
        ++l->graph.folded_nodes;
        return op->fold(&n) && l->error_kind == RUN_OK;
    }
    if (!op->emit)
        return run_unsupported(&n, "only constant inputs are supported");
    if (!materialize_inputs(&n, op->reads_views))
        return false;
    ++l->graph.onnx_nodes;
    return op->emit(&n) && l->error_kind == RUN_OK;
}

/* A model output that is a model input or a view: DirectML graphs connect outputs to operators only. */
static bool copy_to_output(struct run_lower *l, struct run_value *v)
{
    static const struct onnx_node copy_node = {0, "output copy", "Identity", "", 0, 0, NULL, NULL, NULL};
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc;
    struct run_value *copy;
    struct run_node n;

    memset(&n, 0, sizeof(n));
    n.onnx = &copy_node;
    n.opset = l->model->opset;
    n.lower = l;
    memset(&desc, 0, sizeof(desc));
    if (!(copy = run_temp(&n, v->type, &v->shape)) || !(desc.InputTensor = run_desc(&n, v, 0))
            || !(desc.OutputTensor = run_desc(&n, copy, 0))
            || !run_emit(&n, DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc, &v, 1, &copy, 1))
        return false;
    v->view_of = NULL;
    v->dml_node = copy->dml_node;
    v->dml_output = copy->dml_output;
    return true;
}

static bool output_read(const struct run_lower *l, UINT node, UINT output)
{
    const DML_GRAPH_DESC *d = &l->graph.desc;
    unsigned int i;

    for (i = 0; i < d->IntermediateEdgeCount; ++i)
        if (l->intermediate_edge_descs[i].FromNodeIndex == node
                && l->intermediate_edge_descs[i].FromNodeOutputIndex == output)
            return true;
    for (i = 0; i < d->OutputEdgeCount; ++i)
        if (l->output_edge_descs[i].FromNodeIndex == node && l->output_edge_descs[i].FromNodeOutputIndex == output)
            return true;
    return false;
}

/* Operator outputs nothing reads become graph outputs of their own (run_graph's `discarded`). */
static bool discard_unread_outputs(struct run_lower *l)
{
    struct run_graph *g = &l->graph;
    DML_GRAPH_DESC *d = &g->desc;
    unsigned int i, capacity = d->OutputEdgeCount;

    if (!(g->discarded = calloc(l->produced_count + 1, sizeof(*g->discarded))))
        return lower_fail(l, RUN_ERROR, "out of memory");
    for (i = 0; i < l->produced_count; ++i)
    {
        struct run_value *v = l->produced[i];
        UINT node = (UINT)v->dml_node, output = v->dml_output;
        DML_OUTPUT_GRAPH_EDGE_DESC edge = {node, output, d->OutputCount};

        if (output_read(l, node, output))
            continue;
        if (!grow(&l->output_edge_descs, &capacity, d->OutputEdgeCount, sizeof(edge)))
            return lower_fail(l, RUN_ERROR, "out of memory");
        l->output_edge_descs[d->OutputEdgeCount++] = edge;
        g->discarded[g->discarded_count++] = v;
        ++d->OutputCount;
    }
    return true;
}

static bool add_outputs(struct run_lower *l, const struct onnx_model *m)
{
    struct run_graph *g = &l->graph;
    unsigned int i, dml_outputs = 0;

    if (!(g->outputs = calloc(m->output_count + 1, sizeof(*g->outputs)))
            || !(l->output_edge_descs = calloc(m->output_count + 1, sizeof(*l->output_edge_descs))))
        return lower_fail(l, RUN_ERROR, "out of memory");
    for (i = 0; i < m->output_count; ++i)
    {
        struct run_value *v = find_value(l, m->outputs[i].name);

        if (!v)
            return lower_fail(l, RUN_ERROR, "output '%s' is made by no node", m->outputs[i].name);
        g->outputs[i].value = v;
        g->outputs[i].dml_output = -1;
        ++g->output_count;
        if (v->constant)
            continue;
        if (v->dml_node < 0 && !copy_to_output(l, v))
            return false;
        l->output_edge_descs[dml_outputs].FromNodeIndex = (UINT)v->dml_node;
        l->output_edge_descs[dml_outputs].FromNodeOutputIndex = v->dml_output;
        l->output_edge_descs[dml_outputs].GraphOutputIndex = dml_outputs;
        g->outputs[i].dml_output = (int)dml_outputs++;
    }
    g->desc.OutputCount = dml_outputs;
    g->desc.OutputEdgeCount = dml_outputs;
    return discard_unread_outputs(l);
}

/* The DML_GRAPH_DESC's arrays of node and edge descs, once every node is there. */
static bool describe_graph(struct run_lower *l)
{
    struct run_graph *g = &l->graph;
    DML_GRAPH_DESC *d = &g->desc;
    unsigned int i;

    l->nodes = calloc(d->NodeCount + 1, sizeof(*l->nodes));
    l->node_descs = calloc(d->NodeCount + 1, sizeof(*l->node_descs));
    l->input_edges = calloc(d->InputEdgeCount + 1, sizeof(*l->input_edges));
    l->intermediate_edges = calloc(d->IntermediateEdgeCount + 1, sizeof(*l->intermediate_edges));
    l->output_edges = calloc(d->OutputEdgeCount + 1, sizeof(*l->output_edges));
    if (!l->nodes || !l->node_descs || !l->input_edges || !l->intermediate_edges || !l->output_edges)
        return lower_fail(l, RUN_ERROR, "out of memory");
    for (i = 0; i < d->NodeCount; ++i)
    {
        l->node_descs[i].Operator = g->operators[i];
        l->node_descs[i].Name = g->node_names[i];
        l->nodes[i].Type = DML_GRAPH_NODE_TYPE_OPERATOR;
        l->nodes[i].Desc = &l->node_descs[i];
    }
    for (i = 0; i < d->InputEdgeCount; ++i)
    {
        l->input_edges[i].Type = DML_GRAPH_EDGE_TYPE_INPUT;
        l->input_edges[i].Desc = &l->input_edge_descs[i];
    }
    for (i = 0; i < d->IntermediateEdgeCount; ++i)
    {
        l->intermediate_edges[i].Type = DML_GRAPH_EDGE_TYPE_INTERMEDIATE;
        l->intermediate_edges[i].Desc = &l->intermediate_edge_descs[i];
    }
    for (i = 0; i < d->OutputEdgeCount; ++i)
    {
        l->output_edges[i].Type = DML_GRAPH_EDGE_TYPE_OUTPUT;
        l->output_edges[i].Desc = &l->output_edge_descs[i];
    }
    d->InputCount = g->input_count;
    d->Nodes = l->nodes;
    d->InputEdges = l->input_edges;
    d->IntermediateEdges = l->intermediate_edges;
    d->OutputEdges = l->output_edges;
    return true;
}

struct run_lower *run_lower_model(IDMLDevice *dml, const struct onnx_model *model, const struct run_options *options,
        struct run_tensor *inputs, char *error, size_t error_size, enum run_error_kind *kind)
{
    struct run_lower *l = calloc(1, sizeof(*l));
    unsigned int i;
    bool ok;

    *kind = RUN_ERROR;
    if (!l)
    {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    l->dml = dml;
    l->options = options;
    l->model = model;
    if (!(l->absorbed = calloc(model->node_count + 1, sizeof(*l->absorbed))))
        ok = lower_fail(l, RUN_ERROR, "out of memory");
    else
        ok = add_model_values(l, model, inputs);
    for (i = 0; ok && i < model->node_count; ++i)
        ok = l->absorbed[i] || lower_node(l, &model->nodes[i]);
    ok = ok && add_outputs(l, model) && describe_graph(l);
    if (ok)
    {
        *kind = RUN_OK;
        return l;
    }
    *kind = l->error_kind == RUN_OK ? RUN_ERROR : l->error_kind;
    snprintf(error, error_size, "%s", l->error[0] ? l->error : "lowering failed");
    run_lower_free(l);
    return NULL;
}

const struct run_graph *run_lower_graph(const struct run_lower *l)
{
    return &l->graph;
}

void run_lower_free(struct run_lower *l)
{
    struct arena_block *block, *next;
    unsigned int i;

    if (!l)
        return;
    for (i = 0; i < l->graph.desc.NodeCount; ++i)
        IDMLOperator_Release(l->graph.operators[i]);
    for (i = 0; i < l->value_count; ++i)
        if (l->values[i]->host_owned)
            run_tensor_free(l->values[i]->host);
    for (block = l->arena; block; block = next)
    {
        next = block->next;
        free(block);
    }
    free(l->absorbed);
    free(l->produced);
    free(l->graph.discarded);
    free(l->values);
    free(l->table);
    free(l->graph.operators);
    free(l->graph.node_names);
    free(l->graph.inputs);
    free(l->graph.outputs);
    free(l->nodes);
    free(l->node_descs);
    free(l->input_edges);
    free(l->intermediate_edges);
    free(l->output_edges);
    free(l->input_edge_descs);
    free(l->intermediate_edge_descs);
    free(l->output_edge_descs);
    free(l);
}

/* ---- movement: required operands ---- */

bool run_need_io(struct run_node *n, unsigned int inputs, unsigned int outputs)
{
    unsigned int i;

    for (i = 0; i < inputs; ++i)
        if (!run_in(n, i))
            return run_fail(n, "input %u is missing", i);
    for (i = 0; i < outputs; ++i)
        if (i >= n->out_count || !n->out[i])
            return run_fail(n, "output %u is missing", i);
    return true;
}
