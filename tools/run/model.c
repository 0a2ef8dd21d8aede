/*
 * The ONNX model (docs/onnx.md, "The model"): ModelProto unpacked by protobuf-c, the default
 * domain's opset, graph inputs (without those an initializer gives), outputs, initializers as host
 * tensors, and the nodes sorted so that producers come first (ONNX requires the file's order to be
 * one; a file that breaks it is accepted when some order exists, a cycle is an error).
 */
#include "model.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "onnx.pb-c.h"
#include "proto.h"

static bool model_error(char *error, size_t error_size, const char *format, ...)
{
    va_list args;

    va_start(args, format);
    vsnprintf(error, error_size, format, args);
    va_end(args);
    return false;
}

static bool is_default_domain(const char *domain)
{
    return !domain || !domain[0] || !strcmp(domain, "ai.onnx");
}

/* A declared input or output: its tensor type and shape; free dimensions are -1. */
static bool convert_io(const Onnx__ValueInfoProto *info, struct onnx_io *io, char *error, size_t error_size)
{
    const Onnx__TypeProto__Tensor *tensor;
    size_t i;

    memset(io, 0, sizeof(*io));
    io->name = info->name ? info->name : "";
    if (!info->type || info->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
        return true;
    tensor = info->type->tensor_type;
    io->type = tensor->has_elem_type ? tensor->elem_type : ONNX_UNDEFINED;
    if (!tensor->shape)
        return true;
    if (tensor->shape->n_dim > RUN_MAX_RANK)
        return model_error(error, error_size, "'%s' has %zu dimensions (DirectML holds at most %d)", io->name,
                tensor->shape->n_dim, RUN_MAX_RANK);
    io->has_shape = true;
    io->shape.rank = (unsigned int)tensor->shape->n_dim;
    for (i = 0; i < tensor->shape->n_dim; ++i)
    {
        const Onnx__TensorShapeProto__Dimension *dim = tensor->shape->dim[i];

        io->shape.dims[i] = dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE
                ? dim->dim_value : -1;
        if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM)
            io->dim_names[i] = dim->dim_param;
    }
    return true;
}

static bool is_initializer(const struct onnx_model *m, const char *name)
{
    unsigned int i;

    for (i = 0; i < m->initializer_count; ++i)
        if (!strcmp(m->initializers[i].name, name))
            return true;
    return false;
}

static bool convert_graph_io(const Onnx__GraphProto *g, struct onnx_model *m, char *error, size_t error_size)
{
    size_t i;

    m->inputs = calloc(g->n_input + 1, sizeof(*m->inputs));
    m->outputs = calloc(g->n_output + 1, sizeof(*m->outputs));
    if (!m->inputs || !m->outputs)
        return model_error(error, error_size, "out of memory");
    for (i = 0; i < g->n_input; ++i)
    {
        if (g->input[i]->name && is_initializer(m, g->input[i]->name))
            continue;
        if (!convert_io(g->input[i], &m->inputs[m->input_count++], error, error_size))
            return false;
    }
    for (i = 0; i < g->n_output; ++i)
        if (!convert_io(g->output[i], &m->outputs[m->output_count++], error, error_size))
            return false;
    return true;
}

static bool convert_initializers(const Onnx__GraphProto *g, const char *folder, struct onnx_model *m, char *error,
        size_t error_size)
{
    char reason[256];
    size_t i;

    if (g->n_sparse_initializer)
        return model_error(error, error_size, "sparse initializers are not supported");
    if (!(m->initializers = calloc(g->n_initializer + 1, sizeof(*m->initializers))))
        return model_error(error, error_size, "out of memory");
    for (i = 0; i < g->n_initializer; ++i)
    {
        if (!proto_tensor_convert(g->initializer[i], folder, &m->initializers[i], reason, sizeof(reason)))
            return model_error(error, error_size, "initializer %zu: %s", i, reason);
        ++m->initializer_count;
    }
    return true;
}

/* ---- Node order: Kahn's algorithm over "an input is some earlier node's output" ---- */

struct defined
{
    const char **names;
    unsigned int count, capacity;
};

static bool define(struct defined *d, const char *name)
{
    if (d->count == d->capacity)
    {
        unsigned int capacity = d->capacity ? 2 * d->capacity : 64;
        const char **names = realloc(d->names, capacity * sizeof(*names));

        if (!names)
            return false;
        d->names = names;
        d->capacity = capacity;
    }
    d->names[d->count++] = name;
    return true;
}

static bool is_defined(const struct defined *d, const char *name)
{
    unsigned int i;

    if (!name[0])
        return true;
    for (i = d->count; i-- > 0;)
        if (!strcmp(d->names[i], name))
            return true;
    return false;
}

static bool node_ready(const struct defined *d, const struct onnx_node *node)
{
    unsigned int i;

    for (i = 0; i < node->input_count; ++i)
        if (!is_defined(d, node->inputs[i]))
            return false;
    return true;
}

/* The first input of an unplaced node that no graph input, initializer or placed node defines. */
static bool order_error(const struct onnx_model *m, const struct defined *d, const bool *placed, char *error,
        size_t error_size)
{
    unsigned int i, j;

    for (i = 0; i < m->node_count; ++i)
        for (j = 0; !placed[i] && j < m->nodes[i].input_count; ++j)
            if (!is_defined(d, m->nodes[i].inputs[j]))
                return model_error(error, error_size, "node '%s' (%s): input '%s' is no graph input, initializer "
                        "or output of a node that can run before it (a cycle, or a missing input)", m->nodes[i].name,
                        m->nodes[i].op_type, m->nodes[i].inputs[j]);
    return model_error(error, error_size, "the nodes form a cycle");
}

static bool sort_nodes(struct onnx_model *m, char *error, size_t error_size)
{
    struct onnx_node *sorted = calloc(m->node_count + 1, sizeof(*sorted));
    bool *placed = calloc(m->node_count + 1, sizeof(*placed)), ok = true, progress = true;
    struct defined d = {0};
    unsigned int count = 0, i, j;

    for (i = 0; i < m->input_count && ok; ++i)
        ok = define(&d, m->inputs[i].name);
    for (i = 0; i < m->initializer_count && ok; ++i)
        ok = define(&d, m->initializers[i].name);
    if (!sorted || !placed || !ok)
        ok = model_error(error, error_size, "out of memory");
    while (ok && count < m->node_count && progress)
    {
        progress = false;
        for (i = 0; i < m->node_count && ok; ++i)
        {
            if (placed[i] || !node_ready(&d, &m->nodes[i]))
                continue;
            for (j = 0; j < m->nodes[i].output_count && ok; ++j)
                ok = !m->nodes[i].outputs[j][0] || define(&d, m->nodes[i].outputs[j]);
            sorted[count++] = m->nodes[i];
            placed[i] = progress = true;
        }
    }
    if (ok && count < m->node_count)
        ok = order_error(m, &d, placed, error, error_size);
    if (ok)
        memcpy(m->nodes, sorted, m->node_count * sizeof(*sorted));
    free(sorted);
    free(placed);
    free(d.names);
    return ok;
}

static bool convert_nodes(const Onnx__GraphProto *g, struct onnx_model *m, char *error, size_t error_size)
{
    size_t i;

    m->nodes = calloc(g->n_node + 1, sizeof(*m->nodes));
    m->names = calloc(g->n_node + 1, 16);
    if (!m->nodes || !m->names)
        return model_error(error, error_size, "out of memory");
    for (i = 0; i < g->n_node; ++i)
    {
        const Onnx__NodeProto *p = g->node[i];
        struct onnx_node *node = &m->nodes[i];

        node->index = (unsigned int)i;
        node->proto = p;
        node->op_type = p->op_type ? p->op_type : "";
        node->domain = p->domain ? p->domain : "";
        if (p->name && p->name[0])
            node->name = p->name;
        else
        {
            snprintf(m->names + 16 * i, 16, "#%u", (unsigned int)i % 100000000u);
            node->name = m->names + 16 * i;
        }
        node->input_count = (unsigned int)p->n_input;
        node->inputs = (const char *const *)p->input;
        node->output_count = (unsigned int)p->n_output;
        node->outputs = (const char *const *)p->output;
        if (!node->op_type[0])
            return model_error(error, error_size, "node '%s' has no op_type", node->name);
    }
    m->node_count = (unsigned int)g->n_node;
    return sort_nodes(m, error, error_size);
}

static void find_opset(const Onnx__ModelProto *p, struct onnx_model *m)
{
    size_t i;

    m->opset = 1;
    for (i = 0; i < p->n_opset_import; ++i)
        if (is_default_domain(p->opset_import[i]->domain) && p->opset_import[i]->has_version)
            m->opset = p->opset_import[i]->version;
}

bool onnx_model_parse(const void *data, size_t size, const char *folder, struct onnx_model *model, char *error,
        size_t error_size)
{
    Onnx__ModelProto *p;

    memset(model, 0, sizeof(*model));
    if (!(p = onnx__model_proto__unpack(NULL, size, data)))
        return model_error(error, error_size, "not an ONNX model (truncated, or not a ModelProto)");
    model->proto = p;
    if (!p->graph)
    {
        onnx_model_free(model);
        return model_error(error, error_size, "the model has no graph");
    }
    model->ir_version = p->has_ir_version ? p->ir_version : 0;
    model->producer = p->producer_name ? p->producer_name : "";
    find_opset(p, model);
    if (!convert_initializers(p->graph, folder, model, error, error_size)
            || !convert_graph_io(p->graph, model, error, error_size)
            || !convert_nodes(p->graph, model, error, error_size))
    {
        onnx_model_free(model);
        return false;
    }
    return true;
}

bool onnx_model_load(const char *path, struct onnx_model *model, char *error, size_t error_size)
{
    char folder[4096], reason[512];
    unsigned char *bytes;
    const char *slash;
    size_t size;
    bool ok;

    memset(model, 0, sizeof(*model));
    if (!run_read_file(path, &bytes, &size, error, error_size))
        return false;
    slash = strrchr(path, '/');
    snprintf(folder, sizeof(folder), "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    ok = onnx_model_parse(bytes, size, folder, model, reason, sizeof(reason));
    free(bytes);
    if (!ok)
        snprintf(error, error_size, "%s: %s", path, reason);
    return ok;
}

void onnx_model_free(struct onnx_model *model)
{
    unsigned int i;

    for (i = 0; i < model->initializer_count; ++i)
        run_tensor_free(&model->initializers[i]);
    free(model->initializers);
    free(model->inputs);
    free(model->outputs);
    free(model->nodes);
    free(model->names);
    if (model->proto)
        onnx__model_proto__free_unpacked(model->proto, NULL);
    memset(model, 0, sizeof(*model));
}

/* ---- Attributes ---- */

static const Onnx__AttributeProto *find_attr(const struct onnx_node *node, const char *name)
{
    const Onnx__NodeProto *p = node->proto;
    size_t i;

    for (i = 0; i < p->n_attribute; ++i)
        if (p->attribute[i]->name && !strcmp(p->attribute[i]->name, name))
            return p->attribute[i];
    return NULL;
}

/* The attribute's kind: the type field, or (files that leave it out) the field that is set. */
static int attr_kind(const Onnx__AttributeProto *a)
{
    if (a->has_type)
        return a->type;
    if (a->has_f)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
    if (a->has_i)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
    if (a->has_s)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
    if (a->t)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
    if (a->n_ints)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
    if (a->n_floats)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS;
    if (a->g || a->n_graphs)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
    if (a->sparse_tensor || a->n_sparse_tensors)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSOR;
    return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED;
}

bool onnx_attr_has(const struct onnx_node *node, const char *name)
{
    return find_attr(node, name) != NULL;
}

int64_t onnx_attr_int(const struct onnx_node *node, const char *name, int64_t fallback)
{
    const Onnx__AttributeProto *a = find_attr(node, name);

    return a && attr_kind(a) == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT ? a->i : fallback;
}

float onnx_attr_float(const struct onnx_node *node, const char *name, float fallback)
{
    const Onnx__AttributeProto *a = find_attr(node, name);

    if (a && attr_kind(a) == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT)
        return a->f;
    if (a && attr_kind(a) == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT)
        return (float)a->i;
    return fallback;
}

const char *onnx_attr_string(const struct onnx_node *node, const char *name, const char *fallback, char *buffer,
        size_t size)
{
    const Onnx__AttributeProto *a = find_attr(node, name);

    if (!a || attr_kind(a) != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING)
        return fallback;
    snprintf(buffer, size, "%.*s", (int)a->s.len, a->s.data ? (const char *)a->s.data : "");
    return buffer;
}

int onnx_attr_ints(const struct onnx_node *node, const char *name, int64_t *values, int max)
{
    const Onnx__AttributeProto *a = find_attr(node, name);
    size_t i;

    if (!a || (attr_kind(a) != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS
            && attr_kind(a) != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED))
        return -1;
    for (i = 0; i < a->n_ints && (int)i < max; ++i)
        values[i] = a->ints[i];
    return (int)a->n_ints;
}

int onnx_attr_floats(const struct onnx_node *node, const char *name, float *values, int max)
{
    const Onnx__AttributeProto *a = find_attr(node, name);
    size_t i;

    if (!a || (attr_kind(a) != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS
            && attr_kind(a) != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED))
        return -1;
    for (i = 0; i < a->n_floats && (int)i < max; ++i)
        values[i] = a->floats[i];
    return (int)a->n_floats;
}

bool onnx_attr_tensor(const struct onnx_node *node, const char *name, struct run_tensor *tensor, char *error,
        size_t error_size)
{
    const Onnx__AttributeProto *a = find_attr(node, name);

    memset(tensor, 0, sizeof(*tensor));
    if (!a || !a->t)
    {
        snprintf(error, error_size, "no tensor attribute '%s'", name);
        return false;
    }
    return proto_tensor_convert(a->t, NULL, tensor, error, error_size);
}

const char *onnx_attr_unsupported(const struct onnx_node *node)
{
    const Onnx__NodeProto *p = node->proto;
    size_t i;

    for (i = 0; i < p->n_attribute; ++i)
    {
        switch (attr_kind(p->attribute[i]))
        {
            case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH:
            case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS:
                return "a subgraph attribute";
            case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSOR:
            case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSORS:
                return "a sparse tensor attribute";
            default:
                break;
        }
        if (p->attribute[i]->ref_attr_name)
            return "an attribute reference (functions)";
    }
    return NULL;
}
