/*
 * vkdml-bench's graph presets (issue 21): ResNet-50 v1.5 and one transformer encoder layer, built
 * as DML_GRAPH_DESCs through the public API with random weights as OWNED_BY_DML graph inputs, and
 * each operator a graph node of its own (convolution, batch normalization and ReLU apart) so that
 * the compiler's fusion has work to do.
 *
 * Measured per preset: CompileGraph cold (on a fresh D3D12 and DML device: an empty pipeline
 * cache, unless VKDML_PIPELINE_CACHE_DIR holds one) and warm (the same graph again on that
 * device); the graph's RecordDispatch; and the same operators compiled one by one
 * (CompileOperator per node, weights bound as ordinary inputs) and recorded into one command list
 * with a UAV barrier after each, as an application without the graph API runs them. GPU time is
 * taken around the whole run by two tiny timed dispatches (markers) whose profiler timestamps
 * wait for all earlier work: no per-node timestamp serializes the graph. --check compares the
 * graph's output with the one-by-one run's, and for small networks (the smoke presets) the
 * one-by-one run's with a CPU evaluation of the network.
 */
#include "graph.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NODE_INPUTS 5               /* BATCH_NORMALIZATION's */
#define NO_VALUE (~0u)
#define BUFFER_ALIGNMENT 256u           /* binding offsets: DirectML asks 16, temporary/persistent 256 */
#define GRAPH_RUNS_PER_LIST 16u
#define MARKER_ELEMENTS 64u
/* The one-by-one run's node outputs (4.5 GiB for ResNet-50 at batch 32 in fp32) in buffers of at
 * most this size each: no single allocation as large as the whole. */
#define ACTIVATION_CHUNK_BYTES (1ull << 30)
#define MAX_ACTIVATION_CHUNKS 64u

static bool graph_status(struct graph_result *r, enum status status, const char *format, va_list args)
{
    vsnprintf(r->reason, sizeof(r->reason), format, args);
    r->status = status;
    return false;
}

static bool fail_graph(struct graph_result *r, const char *format, ...)
{
    va_list args;

    va_start(args, format);
    graph_status(r, STATUS_FAILED, format, args);
    va_end(args);
    return false;
}

static bool skip_graph(struct graph_result *r, const char *format, ...)
{
    va_list args;

    va_start(args, format);
    graph_status(r, STATUS_SKIPPED, format, args);
    va_end(args);
    return false;
}

/* ---- The network as it is built: values, graph inputs, nodes ---- */

/* A tensor of the network: a graph input or a node's output. */
struct net_value
{
    int node;                           /* the producer; -1: graph input `input` */
    UINT input;
    UINT64 bytes;
    UINT64 offset;                      /* in the weights buffer (graph inputs) or the eager run's activations */
    UINT chunk;                         /* which of the eager run's activation buffers */
};

struct net_input
{
    UINT value;
    float low, high;                    /* uniform random values */
    bool weight;                        /* OWNED_BY_DML in the graph */
};

/* A node's tensor as its desc reads it (every tensor of these networks has 4 dimensions). */
struct node_tensor
{
    UINT sizes[4];
    UINT strides[4];                    /* in elements */
};

struct net_node
{
    char name[48];
    DML_OPERATOR_TYPE type;
    struct node_tensor tensors[MAX_NODE_INPUTS], shape;     /* as the desc reads them */
    /* The attributes the CPU reference needs: window side, stride and start padding (CONVOLUTION,
     * pooling); GEMM's TransB and Alpha. */
    UINT window, stride, pad;
    bool trans_b;
    float alpha;
    IDMLOperator *op;                   /* the graph's: weights OWNED_BY_DML */
    IDMLOperator *plain;                /* the one-by-one run's: weights ordinary inputs */
    UINT inputs[MAX_NODE_INPUTS];       /* values in binding order; NO_VALUE: absent */
    UINT input_count;
    UINT output;                        /* value */
    IDMLCompiledOperator *compiled;
    ID3D12Resource *persistent;
    IDMLBindingTable *table;
};

struct net
{
    IDMLDevice *dml;
    DML_TENSOR_DATA_TYPE type;
    bool plain;                         /* also create the one-by-one operators */
    struct net_value *values;
    UINT value_count, value_capacity;
    struct net_input *inputs;
    UINT input_count, input_capacity;
    struct net_node *nodes;
    UINT node_count, node_capacity;
    UINT output;                        /* the graph's one output (value) */
    HRESULT hr;                         /* the first failure */
    char error[160];
};

static bool grow(void **array, UINT *capacity, UINT count, size_t size)
{
    UINT wanted = *capacity ? 2 * *capacity : 64;
    void *grown;

    if (count < *capacity)
        return true;
    if (!(grown = realloc(*array, (size_t)wanted * size)))
        return false;
    memset((char *)grown + (size_t)*capacity * size, 0, (size_t)(wanted - *capacity) * size);
    *array = grown;
    *capacity = wanted;
    return true;
}

static UINT new_value(struct net *n, int node, UINT input, UINT64 bytes)
{
    struct net_value *v;

    if (!grow((void **)&n->values, &n->value_capacity, n->value_count, sizeof(*n->values)))
    {
        n->hr = E_OUTOFMEMORY;
        return NO_VALUE;
    }
    v = &n->values[n->value_count];
    v->node = node;
    v->input = input;
    v->bytes = bytes;
    return n->value_count++;
}

/* A graph input of `t`'s size holding uniform values in [low, high); `weight`: OWNED_BY_DML. */
static UINT graph_input(struct net *n, const struct tensor *t, float low, float high, bool weight)
{
    struct net_input *input;
    UINT value;

    if (!grow((void **)&n->inputs, &n->input_capacity, n->input_count, sizeof(*n->inputs))
            || (value = new_value(n, -1, n->input_count, t->buffer.TotalTensorSizeInBytes)) == NO_VALUE)
    {
        n->hr = E_OUTOFMEMORY;
        return NO_VALUE;
    }
    input = &n->inputs[n->input_count++];
    input->value = value;
    input->low = low;
    input->high = high;
    input->weight = weight;
    return value;
}

static bool is_weight(const struct net *n, UINT value)
{
    const struct net_value *v = &n->values[value];

    return v->node < 0 && n->inputs[v->input].weight;
}

static void set_error(struct net *n, HRESULT hr, const char *what, const char *name)
{
    if (FAILED(n->hr))
        return;
    n->hr = hr;
    snprintf(n->error, sizeof(n->error), "%s of node %s: HRESULT %#x", what, name, (unsigned int)hr);
}

static void record_tensor(struct node_tensor *t, const struct tensor *tensor)
{
    UINT i, packed = 1;

    for (i = 4; i-- > 0;)
    {
        t->sizes[i] = tensor->sizes[i];
        t->strides[i] = tensor->buffer.Strides ? tensor->strides[i] : packed;
        packed *= tensor->sizes[i];
    }
}

/* What the CPU reference reads of the node's desc. */
static void record_attributes(struct net_node *node, const void *desc)
{
    const DML_CONVOLUTION_OPERATOR_DESC *convolution = desc;
    const DML_MAX_POOLING_OPERATOR_DESC *pooling = desc;     /* AVERAGE_POOLING's starts the same */
    const DML_GEMM_OPERATOR_DESC *gemm = desc;

    if (node->type == DML_OPERATOR_CONVOLUTION)
    {
        node->window = ((const DML_BUFFER_TENSOR_DESC *)convolution->FilterTensor->Desc)->Sizes[2];
        node->stride = convolution->Strides[0];
        node->pad = convolution->StartPadding[0];
    }
    else if (node->type == DML_OPERATOR_MAX_POOLING || node->type == DML_OPERATOR_AVERAGE_POOLING)
    {
        node->window = pooling->WindowSize[0];
        node->stride = pooling->Strides[0];
        node->pad = pooling->StartPadding[0];
    }
    else if (node->type == DML_OPERATOR_GEMM)
    {
        node->trans_b = gemm->TransB == DML_MATRIX_TRANSFORM_TRANSPOSE;
        node->alpha = gemm->Alpha;
    }
}

/* A node of `type` whose desc points at `tensors` (its inputs in binding order, NULL where absent);
 * creates the graph's operator, and the one-by-one run's with the weights' flags cleared. Returns
 * the output's value. */
static UINT add_node(struct net *n, const char *name, DML_OPERATOR_TYPE type, const void *desc,
        struct tensor **tensors, const UINT *inputs, UINT input_count, const struct tensor *output)
{
    DML_OPERATOR_DESC op_desc = {type, desc};
    struct net_node *node;
    HRESULT hr;
    UINT i;

    if (FAILED(n->hr))
        return NO_VALUE;
    if (!grow((void **)&n->nodes, &n->node_capacity, n->node_count, sizeof(*n->nodes)))
    {
        n->hr = E_OUTOFMEMORY;
        return NO_VALUE;
    }
    node = &n->nodes[n->node_count];
    snprintf(node->name, sizeof(node->name), "%s", name);
    node->type = type;
    node->input_count = input_count;
    record_attributes(node, desc);
    record_tensor(&node->shape, output);
    for (i = 0; i < input_count; ++i)
    {
        node->inputs[i] = inputs[i];
        if (inputs[i] == NO_VALUE)
            continue;
        record_tensor(&node->tensors[i], tensors[i]);
        /* The bench's own consistency: an edge joins tensors of one byte size. */
        if (n->values[inputs[i]].bytes != tensors[i]->buffer.TotalTensorSizeInBytes)
        {
            set_error(n, E_FAIL, "vkdml-bench: mismatched edge sizes", name);
            return NO_VALUE;
        }
        if (is_weight(n, inputs[i]))
            tensors[i]->buffer.Flags |= DML_TENSOR_FLAG_OWNED_BY_DML;
    }
    if (FAILED(hr = IDMLDevice_CreateOperator(n->dml, &op_desc, &IID_IDMLOperator, (void **)&node->op)))
    {
        set_error(n, hr, "CreateOperator", name);
        return NO_VALUE;
    }
    ++n->node_count;
    for (i = 0; i < input_count; ++i)
    {
        if (inputs[i] != NO_VALUE)
            tensors[i]->buffer.Flags &= ~DML_TENSOR_FLAG_OWNED_BY_DML;
    }
    if (n->plain && FAILED(hr = IDMLDevice_CreateOperator(n->dml, &op_desc, &IID_IDMLOperator,
            (void **)&node->plain)))
    {
        set_error(n, hr, "CreateOperator (one by one)", name);
        return NO_VALUE;
    }
    return node->output = new_value(n, (int)(node - n->nodes), 0, output->buffer.TotalTensorSizeInBytes);
}

static void release_net(struct net *n)
{
    UINT i;

    for (i = 0; i < n->node_count; ++i)
    {
        struct net_node *node = &n->nodes[i];

        if (node->table)
            IDMLBindingTable_Release(node->table);
        if (node->persistent)
            ID3D12Resource_Release(node->persistent);
        if (node->compiled)
            IDMLCompiledOperator_Release(node->compiled);
        if (node->plain)
            IDMLOperator_Release(node->plain);
        if (node->op)
            IDMLOperator_Release(node->op);
    }
    free(n->nodes);
    free(n->inputs);
    free(n->values);
    memset(n, 0, sizeof(*n));
}

/* ---- Operator nodes ---- */

/* An NCHW activation. */
struct act
{
    UINT value;
    UINT sizes[4];
};

static void tensor_4d(struct tensor *t, DML_TENSOR_DATA_TYPE type, UINT n, UINT c, UINT h, UINT w)
{
    UINT sizes[4] = {n, c, h, w};

    tensor_init(t, type, 4, sizes, NULL);
}

/* He-uniform weights: the activations keep their scale through the network's depth. */
static UINT weight_input(struct net *n, struct tensor *t, UINT fan_in)
{
    float bound = sqrtf(6.0f / (float)fan_in);

    return graph_input(n, t, -bound, bound, true);
}

static struct act convolution(struct net *n, const char *name, struct act x, UINT k, UINT window, UINT stride)
{
    UINT pad = window / 2, out_h = (x.sizes[2] + 2 * pad - window) / stride + 1;
    UINT out_w = (x.sizes[3] + 2 * pad - window) / stride + 1;
    UINT strides[2] = {stride, stride}, dilations[2] = {1, 1}, pads[2] = {pad, pad}, zeros[2] = {0, 0};
    struct tensor input, filter, output, *tensors[3] = {&input, &filter, NULL};
    DML_CONVOLUTION_OPERATOR_DESC desc;
    struct act y = {NO_VALUE, {x.sizes[0], k, out_h, out_w}};
    UINT inputs[3];

    tensor_4d(&input, n->type, x.sizes[0], x.sizes[1], x.sizes[2], x.sizes[3]);
    tensor_4d(&filter, n->type, k, x.sizes[1], window, window);
    tensor_4d(&output, n->type, y.sizes[0], k, out_h, out_w);
    memset(&desc, 0, sizeof(desc));
    desc.InputTensor = &input.desc;
    desc.FilterTensor = &filter.desc;
    desc.OutputTensor = &output.desc;
    desc.Mode = DML_CONVOLUTION_MODE_CROSS_CORRELATION;
    desc.Direction = DML_CONVOLUTION_DIRECTION_FORWARD;
    desc.DimensionCount = 2;
    desc.Strides = strides;
    desc.Dilations = dilations;
    desc.StartPadding = pads;
    desc.EndPadding = pads;
    desc.OutputPadding = zeros;
    desc.GroupCount = 1;
    inputs[0] = x.value;
    inputs[1] = weight_input(n, &filter, x.sizes[1] * window * window);
    inputs[2] = NO_VALUE;
    y.value = add_node(n, name, DML_OPERATOR_CONVOLUTION, &desc, tensors, inputs, 3, &output);
    return y;
}

/* Inference batch normalization with per-channel statistics near those of the activations. */
static struct act batch_norm(struct net *n, const char *name, struct act x)
{
    static const float ranges[4][2] = {{-0.1f, 0.1f}, {0.5f, 1.5f}, {0.5f, 1.0f}, {-0.1f, 0.1f}};
    struct tensor input, params[4], output, *tensors[5] = {&input, &params[0], &params[1], &params[2], &params[3]};
    DML_BATCH_NORMALIZATION_OPERATOR_DESC desc;
    UINT inputs[5], i;

    tensor_4d(&input, n->type, x.sizes[0], x.sizes[1], x.sizes[2], x.sizes[3]);
    tensor_4d(&output, n->type, x.sizes[0], x.sizes[1], x.sizes[2], x.sizes[3]);
    inputs[0] = x.value;
    for (i = 0; i < 4; ++i)
    {
        tensor_4d(&params[i], n->type, 1, x.sizes[1], 1, 1);
        inputs[i + 1] = graph_input(n, &params[i], ranges[i][0], ranges[i][1], true);
    }
    memset(&desc, 0, sizeof(desc));
    desc.InputTensor = &input.desc;
    desc.MeanTensor = &params[0].desc;
    desc.VarianceTensor = &params[1].desc;
    desc.ScaleTensor = &params[2].desc;
    desc.BiasTensor = &params[3].desc;
    desc.OutputTensor = &output.desc;
    desc.Spatial = TRUE;
    desc.Epsilon = 1e-5f;
    x.value = add_node(n, name, DML_OPERATOR_BATCH_NORMALIZATION, &desc, tensors, inputs, 5, &output);
    return x;
}

/* An operator of one input and one output of the same shape: ReLU, GELU. */
static UINT unary(struct net *n, const char *name, DML_OPERATOR_TYPE type, UINT x, UINT rank, const UINT *sizes)
{
    struct tensor input, output, *tensors[1] = {&input};
    DML_ACTIVATION_RELU_OPERATOR_DESC desc = {&input.desc, &output.desc};   /* GELU's has the same layout */

    tensor_init(&input, n->type, rank, sizes, NULL);
    tensor_init(&output, n->type, rank, sizes, NULL);
    return add_node(n, name, type, &desc, tensors, &x, 1, &output);
}

static struct act relu(struct net *n, const char *name, struct act x)
{
    x.value = unary(n, name, DML_OPERATOR_ACTIVATION_RELU, x.value, 4, x.sizes);
    return x;
}

static UINT add(struct net *n, const char *name, UINT a, UINT b, UINT rank, const UINT *sizes)
{
    struct tensor ta, tb, output, *tensors[2] = {&ta, &tb};
    DML_ELEMENT_WISE_ADD_OPERATOR_DESC desc = {&ta.desc, &tb.desc, &output.desc};
    UINT inputs[2] = {a, b};

    tensor_init(&ta, n->type, rank, sizes, NULL);
    tensor_init(&tb, n->type, rank, sizes, NULL);
    tensor_init(&output, n->type, rank, sizes, NULL);
    return add_node(n, name, DML_OPERATOR_ELEMENT_WISE_ADD, &desc, tensors, inputs, 2, &output);
}

static struct act conv_bn(struct net *n, const char *prefix, const char *conv_name, const char *bn_name,
        struct act x, UINT k, UINT window, UINT stride)
{
    char name[48];

    snprintf(name, sizeof(name), "%s%s", prefix, conv_name);
    x = convolution(n, name, x, k, window, stride);
    snprintf(name, sizeof(name), "%s%s", prefix, bn_name);
    return batch_norm(n, name, x);
}

static struct act conv_bn_relu(struct net *n, const char *prefix, const char *index, struct act x, UINT k,
        UINT window, UINT stride)
{
    char conv[16], bn[16], name[48];

    snprintf(conv, sizeof(conv), "conv%s", index);
    snprintf(bn, sizeof(bn), "bn%s", index);
    x = conv_bn(n, prefix, conv, bn, x, k, window, stride);
    snprintf(name, sizeof(name), "%srelu%s", prefix, index);
    return relu(n, name, x);
}

static struct act pooling(struct net *n, const char *name, struct act x, bool max)
{
    UINT window[2] = {3, 3}, strides[2] = {2, 2}, pads[2] = {1, 1}, zeros[2] = {0, 0};
    struct tensor input, output, *tensors[1] = {&input};
    DML_AVERAGE_POOLING_OPERATOR_DESC average;
    DML_MAX_POOLING_OPERATOR_DESC maximum;
    struct act y = x;

    if (max)
    {
        y.sizes[2] = (x.sizes[2] + 2 - 3) / 2 + 1;
        y.sizes[3] = (x.sizes[3] + 2 - 3) / 2 + 1;
    }
    else
    {
        /* Global: the window is the image. */
        window[0] = strides[0] = x.sizes[2];
        window[1] = strides[1] = x.sizes[3];
        y.sizes[2] = y.sizes[3] = 1;
    }
    tensor_init(&input, n->type, 4, x.sizes, NULL);
    tensor_init(&output, n->type, 4, y.sizes, NULL);
    memset(&maximum, 0, sizeof(maximum));
    maximum.InputTensor = average.InputTensor = &input.desc;
    maximum.OutputTensor = average.OutputTensor = &output.desc;
    maximum.DimensionCount = average.DimensionCount = 2;
    maximum.Strides = average.Strides = strides;
    maximum.WindowSize = average.WindowSize = window;
    maximum.StartPadding = maximum.EndPadding = pads;
    average.StartPadding = average.EndPadding = zeros;
    average.IncludePadding = FALSE;
    y.value = add_node(n, name, max ? DML_OPERATOR_MAX_POOLING : DML_OPERATOR_AVERAGE_POOLING,
            max ? (const void *)&maximum : (const void *)&average, tensors, &x.value, 1, &output);
    return y;
}

/* GEMM of `a` (viewed as `a_sizes`/`a_strides`) and `b` (transposed when `trans_b`), scaled, with
 * an optional bias row broadcast over the output's rows. */
struct gemm_operand
{
    UINT value;
    UINT sizes[4];
    const UINT *strides;                /* NULL: packed */
};

static UINT gemm(struct net *n, const char *name, const struct gemm_operand *a, const struct gemm_operand *b,
        bool trans_b, UINT bias, float alpha)
{
    UINT out_sizes[4] = {a->sizes[0], a->sizes[1], a->sizes[2], trans_b ? b->sizes[2] : b->sizes[3]};
    UINT bias_strides[4] = {0, 0, 0, 1}, inputs[3] = {a->value, b->value, bias};
    struct tensor ta, tb, tc, output, *tensors[3] = {&ta, &tb, &tc};
    DML_GEMM_OPERATOR_DESC desc;

    tensor_init(&ta, n->type, 4, a->sizes, a->strides);
    tensor_init(&tb, n->type, 4, b->sizes, b->strides);
    tensor_init(&tc, n->type, 4, out_sizes, bias_strides);
    tensor_init(&output, n->type, 4, out_sizes, NULL);
    memset(&desc, 0, sizeof(desc));
    desc.ATensor = &ta.desc;
    desc.BTensor = &tb.desc;
    desc.CTensor = bias == NO_VALUE ? NULL : &tc.desc;
    desc.OutputTensor = &output.desc;
    desc.TransA = DML_MATRIX_TRANSFORM_NONE;
    desc.TransB = trans_b ? DML_MATRIX_TRANSFORM_TRANSPOSE : DML_MATRIX_TRANSFORM_NONE;
    desc.Alpha = alpha;
    desc.Beta = bias == NO_VALUE ? 0.0f : 1.0f;
    return add_node(n, name, DML_OPERATOR_GEMM, &desc, tensors, inputs, 3, &output);
}

/* x {1, 1, rows, k} times a weight {1, 1, k, columns} (a graph input), plus a bias row. */
static UINT linear(struct net *n, const char *name, UINT x, UINT rows, UINT k, UINT columns)
{
    struct gemm_operand a = {x, {1, 1, rows, k}, NULL}, w = {NO_VALUE, {1, 1, k, columns}, NULL};
    UINT bias_sizes[4] = {1, 1, 1, columns};
    struct tensor t;
    UINT bias;

    tensor_init(&t, n->type, 4, w.sizes, NULL);
    w.value = weight_input(n, &t, k);
    tensor_init(&t, n->type, 4, bias_sizes, NULL);
    bias = graph_input(n, &t, -0.1f, 0.1f, true);
    return gemm(n, name, &a, &w, false, bias, 1.0f);
}

/* ---- ResNet-50 v1.5 ---- */

struct resnet_shape
{
    UINT batch, side;
    UINT blocks[4];
    UINT stages;
};

static const char *parse_resnet(const char *text, struct resnet_shape *s)
{
    const char *axes = strchr(text, ':');
    char *end;

    memset(s, 0, sizeof(*s));
    s->batch = strtoul(text, &end, 10);
    if (*end != 'x' || !axes)
        return "ResNet shapes are NxSIDE:BLOCKS,... (\"32x224:3,4,6,3\")";
    s->side = strtoul(end + 1, &end, 10);
    if (end != axes || !s->batch || s->side < 32)
        return "ResNet shapes are NxSIDE:BLOCKS,... with N >= 1 and SIDE >= 32";
    for (text = axes + 1; *text && s->stages < 4; text = *end ? end + 1 : end)
    {
        if (!(s->blocks[s->stages++] = strtoul(text, &end, 10)) || (*end && *end != ','))
            return "ResNet blocks per stage are 1 or more, separated by ','";
    }
    return s->stages && !*text ? NULL : "ResNet-50 has 1 to 4 stages";
}

/* A bottleneck: 1x1, 3x3 (the stride, v1.5), 1x1 expanding 4x; a projection where the shape changes. */
static struct act bottleneck(struct net *n, UINT stage, UINT block, struct act x, UINT width, UINT stride)
{
    struct act shortcut = x, y;
    char prefix[24], name[48];

    snprintf(prefix, sizeof(prefix), "layer%u.%u.", stage + 1, block);
    y = conv_bn_relu(n, prefix, "1", x, width, 1, 1);
    y = conv_bn_relu(n, prefix, "2", y, width, 3, stride);
    y = conv_bn(n, prefix, "conv3", "bn3", y, 4 * width, 1, 1);
    if (x.sizes[1] != 4 * width || stride != 1)
        shortcut = conv_bn(n, prefix, "downsample.0", "downsample.1", x, 4 * width, 1, stride);
    snprintf(name, sizeof(name), "%sadd", prefix);
    y.value = add(n, name, y.value, shortcut.value, 4, y.sizes);
    snprintf(name, sizeof(name), "%srelu3", prefix);
    return relu(n, name, y);
}

static void build_resnet(struct net *n, const struct resnet_shape *s)
{
    struct act x = {NO_VALUE, {s->batch, 3, s->side, s->side}};
    struct tensor image;
    UINT stage, block;

    tensor_init(&image, n->type, 4, x.sizes, NULL);
    x.value = graph_input(n, &image, -1.0f, 1.0f, false);
    x = convolution(n, "conv1", x, 64, 7, 2);
    x = batch_norm(n, "bn1", x);
    x = relu(n, "relu", x);
    x = pooling(n, "maxpool", x, true);
    for (stage = 0; stage < s->stages; ++stage)
    {
        for (block = 0; block < s->blocks[stage]; ++block)
            x = bottleneck(n, stage, block, x, 64u << stage, stage && !block ? 2 : 1);
    }
    x = pooling(n, "avgpool", x, false);
    /* The pooled {N, C, 1, 1} read as {1, 1, N, C}: the same bytes. */
    n->output = linear(n, "fc", x.value, s->batch, x.sizes[1], 1000);
}

/* ---- One transformer encoder layer (post-norm, as BERT) ---- */

#define HEAD_SIZE 64u

struct encoder_shape
{
    UINT batch, sequence, hidden;
};

static const char *parse_encoder(const char *text, struct encoder_shape *s)
{
    UINT dims[MAX_DIMS];

    if (parse_shape(text, dims) != 3 || !dims[0] || !dims[1] || !dims[2] || dims[2] % HEAD_SIZE)
        return "encoder shapes are BATCHxSEQUENCExHIDDEN, HIDDEN a multiple of 64 (the head size)";
    s->batch = dims[0];
    s->sequence = dims[1];
    s->hidden = dims[2];
    return NULL;
}

static UINT layer_norm(struct net *n, const char *name, UINT x, UINT rows, UINT d)
{
    UINT sizes[4] = {1, 1, rows, d}, param_sizes[4] = {1, 1, 1, d}, axes[1] = {3}, inputs[3];
    struct tensor input, scale, bias, output, *tensors[3] = {&input, &scale, &bias};
    DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC desc;

    tensor_init(&input, n->type, 4, sizes, NULL);
    tensor_init(&scale, n->type, 4, param_sizes, NULL);
    tensor_init(&bias, n->type, 4, param_sizes, NULL);
    tensor_init(&output, n->type, 4, sizes, NULL);
    inputs[0] = x;
    inputs[1] = graph_input(n, &scale, 0.5f, 1.5f, true);
    inputs[2] = graph_input(n, &bias, -0.1f, 0.1f, true);
    memset(&desc, 0, sizeof(desc));
    desc.InputTensor = &input.desc;
    desc.ScaleTensor = &scale.desc;
    desc.BiasTensor = &bias.desc;
    desc.OutputTensor = &output.desc;
    desc.AxisCount = 1;
    desc.Axes = axes;
    desc.NormalizeVariance = TRUE;
    desc.Epsilon = 1e-5f;
    return add_node(n, name, DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1, &desc, tensors, inputs, 3, &output);
}

static UINT softmax(struct net *n, const char *name, UINT x, const UINT *sizes)
{
    struct tensor input, output, *tensors[1] = {&input};
    UINT axes[1] = {3};
    DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC desc = {&input.desc, &output.desc, 1, axes};

    tensor_init(&input, n->type, 4, sizes, NULL);
    tensor_init(&output, n->type, 4, sizes, NULL);
    return add_node(n, name, DML_OPERATOR_ACTIVATION_SOFTMAX1, &desc, tensors, &x, 1, &output);
}

/* {B, H, S, 64} (heads apart) to {B, S, H, 64} (= {B·S, D}): an IDENTITY reading through strides. */
static UINT merge_heads(struct net *n, const char *name, UINT x, const struct encoder_shape *s)
{
    UINT heads = s->hidden / HEAD_SIZE, sizes[4] = {s->batch, s->sequence, heads, HEAD_SIZE};
    UINT strides[4] = {heads * s->sequence * HEAD_SIZE, HEAD_SIZE, s->sequence * HEAD_SIZE, 1};
    struct tensor input, output, *tensors[1] = {&input};
    DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC desc = {&input.desc, &output.desc, NULL};

    tensor_init(&input, n->type, 4, sizes, strides);
    tensor_init(&output, n->type, 4, sizes, NULL);
    return add_node(n, name, DML_OPERATOR_ELEMENT_WISE_IDENTITY, &desc, tensors, &x, 1, &output);
}

/* Attention of all heads: each projection's {B·S, D} output read as {B, H, S, 64} through strides. */
static UINT attention(struct net *n, UINT q, UINT k, UINT v, const struct encoder_shape *s)
{
    UINT heads = s->hidden / HEAD_SIZE, d = s->hidden;
    UINT head_strides[4] = {s->sequence * d, HEAD_SIZE, d, 1};
    struct gemm_operand qh = {q, {s->batch, heads, s->sequence, HEAD_SIZE}, head_strides};
    struct gemm_operand kh = {k, {s->batch, heads, s->sequence, HEAD_SIZE}, head_strides};
    struct gemm_operand vh = {v, {s->batch, heads, s->sequence, HEAD_SIZE}, head_strides};
    struct gemm_operand probabilities = {NO_VALUE, {s->batch, heads, s->sequence, s->sequence}, NULL};
    UINT scores;

    scores = gemm(n, "attention.scores", &qh, &kh, true, NO_VALUE, 1.0f / sqrtf((float)HEAD_SIZE));
    probabilities.value = softmax(n, "attention.softmax", scores, probabilities.sizes);
    return merge_heads(n, "attention.merge_heads", gemm(n, "attention.context", &probabilities, &vh, false,
            NO_VALUE, 1.0f), s);
}

static void build_encoder(struct net *n, const struct encoder_shape *s)
{
    UINT rows = s->batch * s->sequence, d = s->hidden, sizes[4] = {1, 1, rows, d}, ffn_sizes[4] = {1, 1, rows, 4 * d};
    UINT x, q, k, v, y, norm1, hidden;
    struct tensor input;

    tensor_init(&input, n->type, 4, sizes, NULL);
    x = graph_input(n, &input, -1.0f, 1.0f, false);
    q = linear(n, "attention.query", x, rows, d, d);
    k = linear(n, "attention.key", x, rows, d, d);
    v = linear(n, "attention.value", x, rows, d, d);
    y = linear(n, "attention.output", attention(n, q, k, v, s), rows, d, d);
    norm1 = layer_norm(n, "attention.norm", add(n, "attention.residual", x, y, 4, sizes), rows, d);
    hidden = linear(n, "ffn.intermediate", norm1, rows, d, 4 * d);
    hidden = unary(n, "ffn.gelu", DML_OPERATOR_ACTIVATION_GELU, hidden, 4, ffn_sizes);
    y = linear(n, "ffn.output", hidden, rows, 4 * d, d);
    n->output = layer_norm(n, "ffn.norm", add(n, "ffn.residual", norm1, y, 4, sizes), rows, d);
}

/* ---- The preset's network ---- */

struct graph_spec
{
    bool resnet;
    struct resnet_shape resnet_shape;
    struct encoder_shape encoder_shape;
};

static const char *parse_spec(const struct preset *p, struct graph_spec *spec, struct graph_result *r)
{
    const char *problem;

    memset(spec, 0, sizeof(*spec));
    if ((spec->resnet = !strcmp(p->op, GRAPH_RESNET)))
    {
        if ((problem = parse_resnet(p->shape, &spec->resnet_shape)))
            return problem;
        snprintf(r->network, sizeof(r->network), "resnet50");
        r->unit = "images/s";
        r->items = spec->resnet_shape.batch;
        return NULL;
    }
    if ((problem = parse_encoder(p->shape, &spec->encoder_shape)))
        return problem;
    snprintf(r->network, sizeof(r->network), "encoder");
    r->unit = "sequences/s";
    r->items = spec->encoder_shape.batch;
    return NULL;
}

static HRESULT build_net(struct net *n, IDMLDevice *dml, DML_TENSOR_DATA_TYPE type, bool plain,
        const struct graph_spec *spec)
{
    memset(n, 0, sizeof(*n));
    n->dml = dml;
    n->type = type;
    n->plain = plain;
    if (spec->resnet)
        build_resnet(n, &spec->resnet_shape);
    else
        build_encoder(n, &spec->encoder_shape);
    if (SUCCEEDED(n->hr) && n->output == NO_VALUE)
        n->hr = E_FAIL;
    return n->hr;
}

/* ---- The graph desc ---- */

struct graph_desc
{
    DML_GRAPH_DESC desc;
    DML_GRAPH_NODE_DESC *nodes;
    DML_OPERATOR_GRAPH_NODE_DESC *operators;
    DML_GRAPH_EDGE_DESC *input_edges, *intermediate_edges, output_edge;
    DML_INPUT_GRAPH_EDGE_DESC *inputs;
    DML_INTERMEDIATE_GRAPH_EDGE_DESC *intermediates;
    DML_OUTPUT_GRAPH_EDGE_DESC output;
};

static void free_graph_desc(struct graph_desc *g)
{
    free(g->nodes);
    free(g->operators);
    free(g->input_edges);
    free(g->intermediate_edges);
    free(g->inputs);
    free(g->intermediates);
}

/* One edge per connected node input: from a graph input or from the producing node. */
static HRESULT describe_graph(const struct net *n, struct graph_desc *g)
{
    UINT edges = 0, i, j;

    memset(g, 0, sizeof(*g));
    for (i = 0; i < n->node_count; ++i)
        edges += n->nodes[i].input_count;
    g->nodes = calloc(n->node_count, sizeof(*g->nodes));
    g->operators = calloc(n->node_count, sizeof(*g->operators));
    g->input_edges = calloc(edges, sizeof(*g->input_edges));
    g->intermediate_edges = calloc(edges, sizeof(*g->intermediate_edges));
    g->inputs = calloc(edges, sizeof(*g->inputs));
    g->intermediates = calloc(edges, sizeof(*g->intermediates));
    if (!g->nodes || !g->operators || !g->input_edges || !g->intermediate_edges || !g->inputs || !g->intermediates)
        return E_OUTOFMEMORY;
    for (i = 0; i < n->node_count; ++i)
    {
        const struct net_node *node = &n->nodes[i];

        g->operators[i].Operator = node->op;
        g->operators[i].Name = node->name;
        g->nodes[i].Type = DML_GRAPH_NODE_TYPE_OPERATOR;
        g->nodes[i].Desc = &g->operators[i];
        for (j = 0; j < node->input_count; ++j)
        {
            const struct net_value *v;

            if (node->inputs[j] == NO_VALUE)
                continue;
            v = &n->values[node->inputs[j]];
            if (v->node < 0)
            {
                DML_INPUT_GRAPH_EDGE_DESC edge = {v->input, i, j, NULL};

                g->inputs[g->desc.InputEdgeCount] = edge;
                g->input_edges[g->desc.InputEdgeCount].Type = DML_GRAPH_EDGE_TYPE_INPUT;
                g->input_edges[g->desc.InputEdgeCount].Desc = &g->inputs[g->desc.InputEdgeCount];
                ++g->desc.InputEdgeCount;
            }
            else
            {
                DML_INTERMEDIATE_GRAPH_EDGE_DESC edge = {(UINT)v->node, 0, i, j, NULL};

                g->intermediates[g->desc.IntermediateEdgeCount] = edge;
                g->intermediate_edges[g->desc.IntermediateEdgeCount].Type = DML_GRAPH_EDGE_TYPE_INTERMEDIATE;
                g->intermediate_edges[g->desc.IntermediateEdgeCount].Desc =
                        &g->intermediates[g->desc.IntermediateEdgeCount];
                ++g->desc.IntermediateEdgeCount;
            }
        }
    }
    g->output.FromNodeIndex = (UINT)n->values[n->output].node;
    g->output.GraphOutputIndex = 0;
    g->output_edge.Type = DML_GRAPH_EDGE_TYPE_OUTPUT;
    g->output_edge.Desc = &g->output;
    g->desc.InputCount = n->input_count;
    g->desc.OutputCount = 1;
    g->desc.NodeCount = n->node_count;
    g->desc.Nodes = g->nodes;
    g->desc.InputEdges = g->input_edges;
    g->desc.OutputEdgeCount = 1;
    g->desc.OutputEdges = &g->output_edge;
    g->desc.IntermediateEdges = g->intermediate_edges;
    return S_OK;
}

static HRESULT compile_graph(const struct net *n, IDMLCompiledOperator **compiled, double *ms)
{
    struct graph_desc g;
    IDMLDevice1 *dml1;
    uint64_t start;
    HRESULT hr;

    *compiled = NULL;
    if (FAILED(hr = IDMLDevice_QueryInterface(n->dml, &IID_IDMLDevice1, (void **)&dml1)))
        return hr;
    if (SUCCEEDED(hr = describe_graph(n, &g)))
    {
        start = now_ns();
        hr = IDMLDevice1_CompileGraph(dml1, &g.desc, DML_EXECUTION_FLAG_NONE, &IID_IDMLCompiledOperator,
                (void **)compiled);
        *ms = (now_ns() - start) * 1e-6;
    }
    free_graph_desc(&g);
    IDMLDevice1_Release(dml1);
    return hr;
}

/* ---- CompileGraph, cold and warm ---- */

/* On a fresh D3D12 and DML device: the first CompileGraph creates every pipeline, the second finds
 * them in the device's cache. */
static HRESULT time_compilation(struct bench *b, const struct graph_spec *spec, struct graph_result *r)
{
    IDMLCompiledOperator *cold = NULL, *warm = NULL;
    ID3D12Device *device;
    IDMLDevice *dml;
    struct net n;
    HRESULT hr;

    if (FAILED(hr = vkdml_create_d3d12_device(b->selector, &IID_ID3D12Device, (void **)&device)))
        return hr;
    if (SUCCEEDED(hr = DMLCreateDevice(device, DML_CREATE_DEVICE_FLAG_NONE, &IID_IDMLDevice, (void **)&dml)))
    {
        if (SUCCEEDED(hr = build_net(&n, dml, r->type, false, spec))
                && SUCCEEDED(hr = compile_graph(&n, &cold, &r->compile_cold_ms)))
            hr = compile_graph(&n, &warm, &r->compile_warm_ms);
        if (warm)
            IDMLCompiledOperator_Release(warm);
        if (cold)
            IDMLCompiledOperator_Release(cold);
        release_net(&n);
        IDMLDevice_Release(dml);
    }
    ID3D12Device_Release(device);
    return hr;
}

/* ---- The run on the bench's device: the graph and the same operators one by one ---- */

struct graph_run
{
    struct net net;
    IDMLCompiledOperator *graph;
    ID3D12Resource *graph_persistent, *graph_temporary, *graph_output;
    ID3D12Resource *weights;            /* every graph input, at its value's offset */
    ID3D12Resource *activations[MAX_ACTIVATION_CHUNKS];     /* the one-by-one run's node outputs */
    ID3D12Resource *eager_temporary, *eager_output;
    float *host;                        /* the graph inputs' values, as uploaded, for the CPU reference */
    UINT64 eager_temporary_size;
    IDMLBindingTable *graph_table;
    ID3D12DescriptorHeap *heap;         /* every table of the run: a list sees one heap */
    UINT heap_size, heap_used;
    /* The markers: a tiny IDENTITY timed before and after each run. */
    struct workload marker;
    IDMLCompiledOperator *marker_op;
    ID3D12Resource *marker_persistent, *marker_buffers[2];
    IDMLBindingTable *marker_table;
    struct vkdml_profiler *profiler;
};

static void release_resource(ID3D12Resource *resource)
{
    if (resource)
        ID3D12Resource_Release(resource);
}

static void release_graph_run(struct graph_run *g)
{
    UINT i;

    if (g->profiler)
        vkdml_profiler_destroy(g->profiler);
    if (g->marker_table)
        IDMLBindingTable_Release(g->marker_table);
    if (g->marker_op)
        IDMLCompiledOperator_Release(g->marker_op);
    release_resource(g->marker_persistent);
    release_resource(g->marker_buffers[0]);
    release_resource(g->marker_buffers[1]);
    if (g->graph_table)
        IDMLBindingTable_Release(g->graph_table);
    if (g->graph)
        IDMLCompiledOperator_Release(g->graph);
    release_resource(g->graph_persistent);
    release_resource(g->graph_temporary);
    release_resource(g->graph_output);
    release_resource(g->weights);
    for (i = 0; i < MAX_ACTIVATION_CHUNKS; ++i)
        release_resource(g->activations[i]);
    release_resource(g->eager_temporary);
    release_resource(g->eager_output);
    release_net(&g->net);
    free(g->host);
    if (g->heap)
        ID3D12DescriptorHeap_Release(g->heap);
}

static UINT64 align_offset(UINT64 offset)
{
    return (offset + BUFFER_ALIGNMENT - 1) & ~(UINT64)(BUFFER_ALIGNMENT - 1);
}

/* Opens a list with the run's descriptor heap. */
static void begin_graph_list(struct bench *b, struct graph_run *g, ID3D12CommandAllocator *allocator,
        ID3D12GraphicsCommandList *list)
{
    begin_list(b, allocator, list);
    ID3D12GraphicsCommandList_SetDescriptorHeaps(list, 1, &g->heap);
}

static void finish_graph_setup(struct bench *b)
{
    CHECK(ID3D12GraphicsCommandList_Close(b->setup_list));
    execute_and_wait(b, b->setup_list);
}

static HRESULT heap_table(struct bench *b, struct graph_run *g, void *dispatchable, IDMLBindingTable **table)
{
    D3D12_CPU_DESCRIPTOR_HANDLE cpu = ID3D12DescriptorHeap_GetCPUDescriptorHandleForHeapStart(g->heap);
    D3D12_GPU_DESCRIPTOR_HANDLE gpu = ID3D12DescriptorHeap_GetGPUDescriptorHandleForHeapStart(g->heap);
    DML_BINDING_PROPERTIES properties = IDMLDispatchable_GetBindingPropertiesByValue(dispatchable);
    UINT count = properties.RequiredDescriptorCount ? properties.RequiredDescriptorCount : 1;
    DML_BINDING_TABLE_DESC desc;

    if (g->heap_used + count > g->heap_size)
        return E_OUTOFMEMORY;
    cpu.ptr += (SIZE_T)g->heap_used * b->increment;
    gpu.ptr += (UINT64)g->heap_used * b->increment;
    desc.Dispatchable = dispatchable;
    desc.CPUDescriptorHandle = cpu;
    desc.GPUDescriptorHandle = gpu;
    desc.SizeInDescriptors = count;
    g->heap_used += count;
    return IDMLDevice_CreateBindingTable(b->dml, &desc, &IID_IDMLBindingTable, (void **)table);
}

static UINT descriptor_count(void *dispatchable)
{
    UINT count = IDMLDispatchable_GetBindingPropertiesByValue(dispatchable).RequiredDescriptorCount;

    return count ? count : 1;
}

static HRESULT create_heap(struct bench *b, struct graph_run *g, IDMLOperatorInitializer *initializer)
{
    D3D12_DESCRIPTOR_HEAP_DESC desc = {D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, 0,
            D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, 0};
    UINT i;

    g->heap_size = descriptor_count(initializer) + descriptor_count(g->marker_op) + descriptor_count(g->graph);
    for (i = 0; i < g->net.node_count; ++i)
        g->heap_size += descriptor_count(g->net.nodes[i].compiled);
    desc.NumDescriptors = g->heap_size;
    return ID3D12Device_CreateDescriptorHeap(b->device, &desc, &IID_ID3D12DescriptorHeap, (void **)&g->heap);
}

/* Every graph input's random values in one buffer, each at an aligned offset. */
static HRESULT upload_weights(struct bench *b, struct graph_run *g)
{
    UINT element = element_size(g->net.type), i;
    UINT64 size = 0, j;
    uint32_t seed = 0x9e3779b9u;
    for (i = 0; i < g->net.input_count; ++i)
    {
        struct net_value *v = &g->net.values[g->net.inputs[i].value];

        v->offset = size;
        size = align_offset(size + v->bytes);
    }
    if (!(g->host = calloc(size / element, sizeof(*g->host))))
        return E_OUTOFMEMORY;
    for (i = 0; i < g->net.input_count; ++i)
    {
        const struct net_input *input = &g->net.inputs[i];
        const struct net_value *v = &g->net.values[input->value];

        for (j = 0; j < v->bytes / element; ++j)
            g->host[v->offset / element + j] = typed_value(g->net.type, ref_random_float(&seed, input->low,
                    input->high));
    }
    g->weights = upload_buffer(b, g->host, size / element, g->net.type);
    return g->weights ? S_OK : E_OUTOFMEMORY;
}

/* The one-by-one run's node outputs in chunks of ACTIVATION_CHUNK_BYTES at most (the graph's
 * output in a buffer of its own, to read back), and one temporary resource that the nodes share:
 * they run one after another. */
static HRESULT create_eager_buffers(struct bench *b, struct graph_run *g)
{
    UINT64 sizes[MAX_ACTIVATION_CHUNKS] = {0};
    UINT chunk = 0, i;

    for (i = 0; i < g->net.node_count; ++i)
    {
        const struct net_node *node = &g->net.nodes[i];
        struct net_value *v = &g->net.values[node->output];
        UINT64 temporary = IDMLCompiledOperator_GetBindingPropertiesByValue(node->compiled).TemporaryResourceSize;

        g->eager_temporary_size = temporary > g->eager_temporary_size ? temporary : g->eager_temporary_size;
        if (node->output == g->net.output)
            continue;
        if (sizes[chunk] && sizes[chunk] + v->bytes > ACTIVATION_CHUNK_BYTES && ++chunk == MAX_ACTIVATION_CHUNKS)
            return E_OUTOFMEMORY;
        v->chunk = chunk;
        v->offset = sizes[chunk];
        sizes[chunk] = align_offset(sizes[chunk] + v->bytes);
    }
    for (i = 0; i <= chunk; ++i)
    {
        if (FAILED(create_optional_buffer(b, sizes[i], &g->activations[i])))
            return E_OUTOFMEMORY;
    }
    if (FAILED(create_optional_buffer(b, g->eager_temporary_size, &g->eager_temporary))
            || FAILED(create_optional_buffer(b, g->net.values[g->net.output].bytes, &g->eager_output))
            || FAILED(create_optional_buffer(b, g->net.values[g->net.output].bytes, &g->graph_output)))
        return E_OUTOFMEMORY;
    return S_OK;
}

/* Where value `value` lives in the one-by-one run. */
static DML_BINDING_DESC eager_binding(const struct graph_run *g, UINT value, DML_BUFFER_BINDING *storage)
{
    const struct net_value *v = &g->net.values[value];
    DML_BINDING_DESC desc = {DML_BINDING_TYPE_BUFFER, storage};

    storage->Buffer = v->node < 0 ? g->weights : value == g->net.output ? g->eager_output : g->activations[v->chunk];
    storage->Offset = value == g->net.output ? 0 : v->offset;
    storage->SizeInBytes = v->bytes;
    return desc;
}

static HRESULT bind_node(struct bench *b, struct graph_run *g, struct net_node *node)
{
    DML_BINDING_PROPERTIES properties = IDMLCompiledOperator_GetBindingPropertiesByValue(node->compiled);
    DML_BUFFER_BINDING storage[MAX_NODE_INPUTS + 3];
    DML_BINDING_DESC inputs[MAX_NODE_INPUTS], output, desc;
    HRESULT hr;
    UINT i;

    if (FAILED(hr = heap_table(b, g, node->compiled, &node->table)))
        return hr;
    for (i = 0; i < node->input_count; ++i)
        inputs[i] = node->inputs[i] == NO_VALUE ? tool_buffer_binding(&storage[i], NULL, 0)
                : eager_binding(g, node->inputs[i], &storage[i]);
    output = eager_binding(g, node->output, &storage[MAX_NODE_INPUTS]);
    IDMLBindingTable_BindInputs(node->table, node->input_count, inputs);
    IDMLBindingTable_BindOutputs(node->table, 1, &output);
    if (properties.TemporaryResourceSize)
    {
        desc = tool_buffer_binding(&storage[MAX_NODE_INPUTS + 1], g->eager_temporary, g->eager_temporary_size);
        IDMLBindingTable_BindTemporaryResource(node->table, &desc);
    }
    if (node->persistent)
    {
        desc = tool_buffer_binding(&storage[MAX_NODE_INPUTS + 2], node->persistent,
                properties.PersistentResourceSize);
        IDMLBindingTable_BindPersistentResource(node->table, &desc);
    }
    return S_OK;
}

/* The graph's initializer: the OWNED_BY_DML inputs (every weight) bound in one array. */
static HRESULT initialize_graph(struct bench *b, struct graph_run *g, IDMLOperatorInitializer *initializer)
{
    DML_BINDING_PROPERTIES properties = IDMLOperatorInitializer_GetBindingPropertiesByValue(initializer);
    DML_BUFFER_BINDING *bindings = calloc(g->net.input_count, sizeof(*bindings)), storage[2];
    DML_BUFFER_ARRAY_BINDING array = {g->net.input_count, bindings};
    DML_BINDING_DESC input = {DML_BINDING_TYPE_BUFFER_ARRAY, &array}, output, desc;
    ID3D12Resource *temporary = NULL;
    IDMLBindingTable *table = NULL;
    HRESULT hr;
    UINT i;

    if (!bindings)
        return E_OUTOFMEMORY;
    for (i = 0; i < g->net.input_count; ++i)
    {
        const struct net_value *v = &g->net.values[g->net.inputs[i].value];

        if (!g->net.inputs[i].weight)
            continue;
        bindings[i].Buffer = g->weights;
        bindings[i].Offset = v->offset;
        bindings[i].SizeInBytes = v->bytes;
    }
    if (SUCCEEDED(hr = create_optional_buffer(b, properties.TemporaryResourceSize, &temporary))
            && SUCCEEDED(hr = heap_table(b, g, initializer, &table)))
    {
        if (temporary)
        {
            desc = tool_buffer_binding(&storage[1], temporary, properties.TemporaryResourceSize);
            IDMLBindingTable_BindTemporaryResource(table, &desc);
        }
        output = tool_buffer_binding(&storage[0], g->graph_persistent,
                IDMLCompiledOperator_GetBindingPropertiesByValue(g->graph).PersistentResourceSize);
        IDMLBindingTable_BindInputs(table, 1, &input);
        IDMLBindingTable_BindOutputs(table, 1, &output);
        begin_graph_list(b, g, b->setup_allocator, b->setup_list);
        IDMLCommandRecorder_RecordDispatch(b->recorder, (ID3D12CommandList *)b->setup_list,
                (IDMLDispatchable *)initializer, table);
        finish_graph_setup(b);
        hr = IDMLDevice_GetDeviceRemovedReason(b->dml);
    }
    if (table)
        IDMLBindingTable_Release(table);
    release_resource(temporary);
    free(bindings);
    return hr;
}

/* The graph's execution table: graph inputs in GraphInputIndex order, the weights (OWNED_BY_DML)
 * bound as NONE; the one output. */
static HRESULT bind_graph(struct bench *b, struct graph_run *g)
{
    DML_BINDING_PROPERTIES properties = IDMLCompiledOperator_GetBindingPropertiesByValue(g->graph);
    DML_BUFFER_BINDING *storage = calloc(g->net.input_count + 3, sizeof(*storage));
    DML_BINDING_DESC *inputs = calloc(g->net.input_count, sizeof(*inputs)), output, desc;
    HRESULT hr = E_OUTOFMEMORY;
    UINT i;

    if (storage && inputs && SUCCEEDED(hr = heap_table(b, g, g->graph, &g->graph_table))
            && SUCCEEDED(hr = create_optional_buffer(b, properties.TemporaryResourceSize, &g->graph_temporary)))
    {
        for (i = 0; i < g->net.input_count; ++i)
            inputs[i] = g->net.inputs[i].weight ? tool_buffer_binding(&storage[i], NULL, 0)
                    : eager_binding(g, g->net.inputs[i].value, &storage[i]);
        output = tool_buffer_binding(&storage[g->net.input_count], g->graph_output,
                g->net.values[g->net.output].bytes);
        IDMLBindingTable_BindInputs(g->graph_table, g->net.input_count, inputs);
        IDMLBindingTable_BindOutputs(g->graph_table, 1, &output);
        if (g->graph_temporary)
        {
            desc = tool_buffer_binding(&storage[g->net.input_count + 1], g->graph_temporary,
                    properties.TemporaryResourceSize);
            IDMLBindingTable_BindTemporaryResource(g->graph_table, &desc);
        }
        if (g->graph_persistent)
        {
            desc = tool_buffer_binding(&storage[g->net.input_count + 2], g->graph_persistent,
                    properties.PersistentResourceSize);
            IDMLBindingTable_BindPersistentResource(g->graph_table, &desc);
        }
    }
    free(storage);
    free(inputs);
    return hr;
}

/* The marker: IDENTITY of MARKER_ELEMENTS floats, its own buffers. */
static HRESULT create_marker(struct bench *b, struct graph_run *g)
{
    HRESULT hr;

    g->marker.op = find_op("identity");
    g->marker.type = FP32;
    g->marker.dims[0] = MARKER_ELEMENTS;
    g->marker.dim_count = 1;
    if (!g->marker.op || build_workload(&g->marker))
        return E_FAIL;
    if (FAILED(hr = compile_workload(b, &g->marker, &g->marker_op))
            || FAILED(hr = initialize_operator(b, g->marker_op, &g->marker_persistent)))
        return hr;
    if (!(g->marker_buffers[0] = create_buffer(b, D3D12_HEAP_TYPE_DEFAULT, MARKER_ELEMENTS * sizeof(float),
            D3D12_RESOURCE_STATE_UNORDERED_ACCESS)) || !(g->marker_buffers[1] = create_buffer(b,
            D3D12_HEAP_TYPE_DEFAULT, MARKER_ELEMENTS * sizeof(float), D3D12_RESOURCE_STATE_UNORDERED_ACCESS)))
        return E_OUTOFMEMORY;
    return S_OK;
}

static HRESULT bind_marker(struct bench *b, struct graph_run *g)
{
    DML_BUFFER_BINDING storage[3];
    DML_BINDING_DESC input, output, desc;
    HRESULT hr;

    if (FAILED(hr = heap_table(b, g, g->marker_op, &g->marker_table)))
        return hr;
    input = tool_buffer_binding(&storage[0], g->marker_buffers[0], MARKER_ELEMENTS * sizeof(float));
    output = tool_buffer_binding(&storage[1], g->marker_buffers[1], MARKER_ELEMENTS * sizeof(float));
    IDMLBindingTable_BindInputs(g->marker_table, 1, &input);
    IDMLBindingTable_BindOutputs(g->marker_table, 1, &output);
    if (g->marker_persistent)
    {
        desc = tool_buffer_binding(&storage[2], g->marker_persistent,
                IDMLCompiledOperator_GetBindingPropertiesByValue(g->marker_op).PersistentResourceSize);
        IDMLBindingTable_BindPersistentResource(g->marker_table, &desc);
    }
    return S_OK;
}

/* Every node compiled on its own (CompileOperator), and initialized. */
static bool compile_nodes(struct bench *b, struct graph_run *g, struct graph_result *r)
{
    uint64_t start = now_ns();
    HRESULT hr;
    UINT i;

    for (i = 0; i < g->net.node_count; ++i)
    {
        struct net_node *node = &g->net.nodes[i];

        progress_update(b, r->name, "CompileOperator", i, g->net.node_count);
        if (FAILED(hr = IDMLDevice_CompileOperator(b->dml, node->plain, DML_EXECUTION_FLAG_NONE,
                &IID_IDMLCompiledOperator, (void **)&node->compiled)))
            return fail_graph(r, "CompileOperator of node %s failed: HRESULT %#x (the log says why)", node->name,
                    (unsigned int)hr);
    }
    r->eager_compile_ms = (now_ns() - start) * 1e-6;
    for (i = 0; i < g->net.node_count; ++i)
    {
        WCHAR name[ARRAY_SIZE(g->net.nodes[i].name)];
        size_t c;

        /* Named as the graph's node, for the profiler (the trace's one-by-one run). */
        for (c = 0; c < ARRAY_SIZE(name); ++c)
            name[c] = (unsigned char)g->net.nodes[i].name[c];
        IDMLCompiledOperator_SetName(g->net.nodes[i].compiled, name);
        if (FAILED(hr = initialize_operator(b, g->net.nodes[i].compiled, &g->net.nodes[i].persistent)))
            return fail_graph(r, "initializing node %s failed: HRESULT %#x", g->net.nodes[i].name,
                    (unsigned int)hr);
    }
    return true;
}

/* ---- Timing: markers around each run ---- */

static void record_marker(struct bench *b, struct graph_run *g)
{
    CHECK(vkdml_command_list_set_profiler(b->timed_list, g->profiler));
    IDMLCommandRecorder_RecordDispatch(b->recorder, (ID3D12CommandList *)b->timed_list,
            (IDMLDispatchable *)g->marker_op, g->marker_table);
    CHECK(vkdml_command_list_set_profiler(b->timed_list, NULL));
    tool_uav_barrier(b->timed_list);
}

/* One run: the graph (one RecordDispatch) or its nodes one by one, each followed by a UAV barrier. */
static void record_run(struct bench *b, struct graph_run *g, bool graph)
{
    UINT i;

    if (graph)
    {
        IDMLCommandRecorder_RecordDispatch(b->recorder, (ID3D12CommandList *)b->timed_list,
                (IDMLDispatchable *)g->graph, g->graph_table);
        tool_uav_barrier(b->timed_list);
    }
    for (i = 0; !graph && i < g->net.node_count; ++i)
    {
        IDMLCommandRecorder_RecordDispatch(b->recorder, (ID3D12CommandList *)b->timed_list,
                (IDMLDispatchable *)g->net.nodes[i].compiled, g->net.nodes[i].table);
        tool_uav_barrier(b->timed_list);
    }
}

/* `runs` runs, each between markers. */
static void record_runs(struct bench *b, struct graph_run *g, bool graph, unsigned int runs)
{
    unsigned int run;

    CHECK(vkdml_profiler_reset(g->profiler));
    begin_graph_list(b, g, b->timed_allocator, b->timed_list);
    for (run = 0; run < runs; ++run)
    {
        record_marker(b, g);
        record_run(b, g, graph);
        record_marker(b, g);
    }
    CHECK(ID3D12GraphicsCommandList_Close(b->timed_list));
}

/* Median, min and p90 of a run in ms, from the end of one marker to the start of the next. */
static bool time_runs(struct bench *b, struct graph_run *g, struct graph_result *r, bool graph, double *median,
        double *min, double *p90)
{
    unsigned int runs = b->iterations < GRAPH_RUNS_PER_LIST ? b->iterations : GRAPH_RUNS_PER_LIST;
    struct vkdml_profiler_entry entries[2 * GRAPH_RUNS_PER_LIST];
    double *ms = calloc(b->iterations, sizeof(*ms));
    unsigned int samples = 0, i;
    uint32_t count;

    if (!ms)
        return fail_graph(r, "out of memory");
    record_runs(b, g, graph, runs);
    progress_update(b, r->name, graph ? "graph warm-up" : "one-by-one warm-up", 0, 0);
    warm_up_list(b, b->timed_list, runs);
    while (samples < b->iterations)
    {
        progress_update(b, r->name, graph ? "graph" : "one by one", samples, b->iterations);
        execute_and_wait(b, b->timed_list);
        count = 2 * runs;
        CHECK(vkdml_profiler_get_results(g->profiler, entries, sizeof(entries[0]), &count));
        if (count != 2 * runs)
        {
            free(ms);
            return fail_graph(r, "the profiler timed %u markers of %u", count, 2 * runs);
        }
        for (i = 0; i < runs && samples < b->iterations; ++i)
            ms[samples++] = (entries[2 * i + 1].start_ns - entries[2 * i].end_ns) * 1e-6;
    }
    statistics(ms, b->iterations, min, median, p90);
    free(ms);
    return true;
}

/* ---- The CPU reference of small networks (the smoke presets) ---- */

#define REFERENCE_MAX_ELEMENTS (1u << 22)   /* every value together: the smoke networks, not ResNet-50 */

static double element(const double *data, const struct node_tensor *t, UINT a, UINT b, UINT c, UINT d)
{
    return data[(size_t)a * t->strides[0] + (size_t)b * t->strides[1] + (size_t)c * t->strides[2]
            + (size_t)d * t->strides[3]];
}

static double reference_convolution(const struct net_node *node, const double *const *in, UINT n, UINT k, UINT y,
        UINT x)
{
    const struct node_tensor *image = &node->tensors[0], *filter = &node->tensors[1];
    double sum = 0.0;
    UINT c, r, s;
    int iy, ix;

    for (c = 0; c < image->sizes[1]; ++c)
    {
        for (r = 0; r < node->window; ++r)
        {
            for (s = 0; s < node->window; ++s)
            {
                iy = (int)(y * node->stride + r) - (int)node->pad;
                ix = (int)(x * node->stride + s) - (int)node->pad;
                if (iy >= 0 && ix >= 0 && iy < (int)image->sizes[2] && ix < (int)image->sizes[3])
                    sum += element(in[0], image, n, c, iy, ix) * element(in[1], filter, k, c, r, s);
            }
        }
    }
    return sum;
}

/* MAX_POOLING, or AVERAGE_POOLING without the padding. */
static double reference_pooling(const struct net_node *node, const double *const *in, UINT n, UINT c, UINT y,
        UINT x)
{
    const struct node_tensor *image = &node->tensors[0];
    double result = node->type == DML_OPERATOR_MAX_POOLING ? -INFINITY : 0.0;
    UINT r, s, count = 0;
    int iy, ix;

    for (r = 0; r < node->window; ++r)
    {
        for (s = 0; s < node->window; ++s)
        {
            iy = (int)(y * node->stride + r) - (int)node->pad;
            ix = (int)(x * node->stride + s) - (int)node->pad;
            if (iy < 0 || ix < 0 || iy >= (int)image->sizes[2] || ix >= (int)image->sizes[3])
                continue;
            if (node->type == DML_OPERATOR_MAX_POOLING)
                result = fmax(result, element(in[0], image, n, c, iy, ix));
            else
                result += element(in[0], image, n, c, iy, ix);
            ++count;
        }
    }
    return node->type == DML_OPERATOR_MAX_POOLING ? result : result / count;
}

static double reference_gemm(const struct net_node *node, const double *const *in, UINT a, UINT b, UINT m, UINT n)
{
    const struct node_tensor *ta = &node->tensors[0], *tb = &node->tensors[1];
    double sum = 0.0;
    UINT k;

    for (k = 0; k < ta->sizes[3]; ++k)
        sum += element(in[0], ta, a, b, m, k) * (node->trans_b ? element(in[1], tb, a, b, n, k)
                : element(in[1], tb, a, b, k, n));
    sum *= node->alpha;
    return node->inputs[2] == NO_VALUE ? sum : sum + element(in[2], &node->tensors[2], a, b, m, n);
}

/* SOFTMAX1 and MVN1 over the last axis. */
static double reference_row(const struct net_node *node, const double *const *in, UINT a, UINT b, UINT c, UINT d)
{
    const struct node_tensor *t = &node->tensors[0];
    double x = element(in[0], t, a, b, c, d), max = -INFINITY, sum = 0.0, squares = 0.0, mean;
    UINT i, count = t->sizes[3];

    for (i = 0; i < count; ++i)
    {
        max = fmax(max, element(in[0], t, a, b, c, i));
        sum += element(in[0], t, a, b, c, i);
    }
    if (node->type == DML_OPERATOR_ACTIVATION_SOFTMAX1)
    {
        for (i = 0, sum = 0.0; i < count; ++i)
            sum += exp(element(in[0], t, a, b, c, i) - max);
        return exp(x - max) / sum;
    }
    mean = sum / count;
    for (i = 0; i < count; ++i)
        squares += (element(in[0], t, a, b, c, i) - mean) * (element(in[0], t, a, b, c, i) - mean);
    return (x - mean) / sqrt(squares / count + 1e-5) * element(in[1], &node->tensors[1], 0, 0, 0, d)
            + element(in[2], &node->tensors[2], 0, 0, 0, d);
}

static double reference_element(const struct net_node *node, const double *const *in, UINT a, UINT b, UINT c,
        UINT d)
{
    const struct node_tensor *t = node->tensors;
    double x = node->type == DML_OPERATOR_CONVOLUTION || node->type == DML_OPERATOR_GEMM ? 0.0
            : element(in[0], &t[0], a, b, c, d);

    switch (node->type)
    {
        case DML_OPERATOR_CONVOLUTION:
            return reference_convolution(node, in, a, b, c, d);
        case DML_OPERATOR_BATCH_NORMALIZATION:
            return (x - element(in[1], &t[1], 0, b, 0, 0)) / sqrt(element(in[2], &t[2], 0, b, 0, 0) + 1e-5)
                    * element(in[3], &t[3], 0, b, 0, 0) + element(in[4], &t[4], 0, b, 0, 0);
        case DML_OPERATOR_ACTIVATION_RELU:
            return fmax(x, 0.0);
        case DML_OPERATOR_ACTIVATION_GELU:
            return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
        case DML_OPERATOR_ELEMENT_WISE_ADD:
            return x + element(in[1], &t[1], a, b, c, d);
        case DML_OPERATOR_ELEMENT_WISE_IDENTITY:
            return x;
        case DML_OPERATOR_MAX_POOLING:
        case DML_OPERATOR_AVERAGE_POOLING:
            return reference_pooling(node, in, a, b, c, d);
        case DML_OPERATOR_GEMM:
            return reference_gemm(node, in, a, b, c, d);
        default:
            return reference_row(node, in, a, b, c, d);
    }
}

/* Each node's output in packed order, rounded to the type as the one-by-one run stores it. */
static void reference_node(const struct net_node *node, DML_TENSOR_DATA_TYPE type, const double *const *in,
        double *out)
{
    const UINT *sizes = node->shape.sizes;
    size_t index = 0;
    UINT a, b, c, d;

    for (a = 0; a < sizes[0]; ++a)
        for (b = 0; b < sizes[1]; ++b)
            for (c = 0; c < sizes[2]; ++c)
                for (d = 0; d < sizes[3]; ++d)
                    out[index++] = typed_value(type, reference_element(node, in, a, b, c, d));
}

/* Value `i`'s storage; a graph input's from the uploaded values. */
static double *reference_value_storage(const struct graph_run *g, UINT i)
{
    const struct net_value *v = &g->net.values[i];
    UINT64 count = v->bytes / element_size(g->net.type), k;
    double *values = malloc(count * sizeof(*values));

    for (k = 0; values && v->node < 0 && k < count; ++k)
        values[k] = g->host[v->offset / element_size(g->net.type) + k];
    return values;
}

/* The network's output on the CPU, node by node in their (topological) order; NULL when too large
 * or out of memory. */
static double *reference_network(const struct graph_run *g)
{
    const struct net *n = &g->net;
    const double *in[MAX_NODE_INPUTS];
    double **values, *output = NULL;
    UINT64 total = 0;
    bool ok = true;
    UINT i, j;

    for (i = 0; i < n->value_count; ++i)
        total += n->values[i].bytes / element_size(n->type);
    if (total > REFERENCE_MAX_ELEMENTS || !(values = calloc(n->value_count, sizeof(*values))))
        return NULL;
    for (i = 0; ok && i < n->value_count; ++i)
        ok = (values[i] = reference_value_storage(g, i)) != NULL;
    for (i = 0; ok && i < n->node_count; ++i)
    {
        const struct net_node *node = &n->nodes[i];

        for (j = 0; j < node->input_count; ++j)
            in[j] = node->inputs[j] == NO_VALUE ? NULL : values[node->inputs[j]];
        reference_node(node, n->type, in, values[node->output]);
    }
    if (ok)
    {
        output = values[n->output];
        values[n->output] = NULL;
    }
    for (i = 0; i < n->value_count; ++i)
        free(values[i]);
    free(values);
    return output;
}

/* With --chrome-trace: one run of each with every dispatch timed (the graph's one entry per
 * executed node, named after it), so the trace shows what the compiler fused. */
static void trace_runs(struct bench *b, struct graph_run *g, struct graph_result *r)
{
    struct vkdml_profiler_entry *entries = calloc(g->net.node_count, sizeof(*entries));
    unsigned int tid = GRAPH_TRACE_TID + 2 * (unsigned int)(r - b->graphs), pass;
    struct vkdml_profiler *profiler;
    uint32_t count, i;

    if (!entries || FAILED(vkdml_profiler_create(b->dml, g->net.node_count, &profiler)))
    {
        free(entries);
        return;
    }
    for (pass = 0; pass < 2; ++pass)
    {
        begin_graph_list(b, g, b->timed_allocator, b->timed_list);
        CHECK(vkdml_command_list_set_profiler(b->timed_list, profiler));
        record_run(b, g, !pass);
        CHECK(vkdml_command_list_set_profiler(b->timed_list, NULL));
        CHECK(ID3D12GraphicsCommandList_Close(b->timed_list));
        execute_and_wait(b, b->timed_list);
        count = g->net.node_count;
        if (SUCCEEDED(vkdml_profiler_get_results(profiler, entries, sizeof(*entries), &count)))
        {
            for (i = 0; i < count && i < g->net.node_count; ++i)
                add_trace_event(b, &entries[i], tid + pass);
        }
        CHECK(vkdml_profiler_reset(profiler));
    }
    vkdml_profiler_destroy(profiler);
    free(entries);
}

void trace_graph_names(const struct bench *b, FILE *f)
{
    unsigned int i, pass;
    char name[96];

    for (i = 0; i < b->graph_count; ++i)
    {
        for (pass = 0; pass < 2; ++pass)
        {
            snprintf(name, sizeof(name), "%s, %s", b->graphs[i].name, pass ? "one by one" : "graph");
            fprintf(f, ",\n  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": %u, \"args\": "
                    "{\"name\": ", GRAPH_TRACE_TID + 2 * i + pass);
            json_string(f, name);
            fputs("}}", f);
        }
    }
}

/* ---- Check: the graph's output against the one-by-one run's ---- */

/* An output buffer's values, NULL when out of memory. */
static double *read_output(struct bench *b, ID3D12Resource *buffer, DML_TENSOR_DATA_TYPE type, UINT64 count)
{
    double *values = malloc(count * sizeof(*values));
    ID3D12Resource *readback;
    void *mapped;
    UINT64 i;

    if (!values || !(readback = read_back(b, buffer, count * element_size(type), &mapped)))
    {
        free(values);
        return NULL;
    }
    for (i = 0; i < count; ++i)
        values[i] = load_value(mapped, i, type);
    unmap_and_release(readback);
    return values;
}

/* 1 when `got` matches `expected` within `rtol` of each element's magnitude plus the output's
 * largest one (fusion and folding round differently), else 0; the worst error in tolerances. */
static int compare(const struct graph_result *r, const char *what, const double *got, const double *expected,
        UINT64 count, UINT64 *mismatches, double *max_error)
{
    double rtol = r->type == FP16 ? 2e-2 : 1e-3, scale = 1e-3, error, tolerance;
    UINT64 i;

    for (i = 0; i < count; ++i)
        scale = fmax(scale, fabs(expected[i]));
    for (i = 0; i < count; ++i)
    {
        tolerance = rtol * (fabs(expected[i]) + scale);
        error = fabs(got[i] - expected[i]) / tolerance;
        *max_error = isnan(error) ? INFINITY : fmax(*max_error, error);
        if (!(error <= 1.0) && (*mismatches)++ < 3)
            fprintf(stderr, "vkdml-bench: %s: output element %llu: %s %.9g, expected %.9g (tolerance %.3g)\n",
                    r->name, (unsigned long long)i, what, got[i], expected[i], tolerance);
    }
    return !*mismatches;
}

/* The graph's output against the one-by-one run's, and that against the CPU reference where the
 * network is small enough for one. */
static bool check_outputs(struct bench *b, struct graph_run *g, struct graph_result *r)
{
    UINT64 count = g->net.values[g->net.output].bytes / element_size(r->type);
    double *eager, *graph = NULL, *reference;

    progress_update(b, r->name, "checking", 0, 0);
    if (!(eager = read_output(b, g->eager_output, r->type, count))
            || !(graph = read_output(b, g->graph_output, r->type, count)))
    {
        free(eager);
        return fail_graph(r, "no memory for the readback buffers");
    }
    r->check = compare(r, "graph", graph, eager, count, &r->mismatches, &r->max_error);
    r->checked = count;
    if ((reference = reference_network(g)))
    {
        r->reference_check = compare(r, "one by one", eager, reference, count, &r->reference_mismatches,
                &r->reference_max_error);
        r->reference_checked = count;
    }
    free(reference);
    free(graph);
    free(eager);
    return true;
}

/* ---- A preset ---- */

static struct graph_result *new_graph_result(struct bench *b, const struct preset *p)
{
    struct graph_result *grown = realloc(b->graphs, (b->graph_count + 1) * sizeof(*grown)), *r;

    if (!grown)
        fatal_hr(E_OUTOFMEMORY, "a graph result", __LINE__);
    b->graphs = grown;
    r = &b->graphs[b->graph_count++];
    memset(r, 0, sizeof(*r));
    snprintf(r->name, sizeof(r->name), "%s", p->name);
    snprintf(r->shape, sizeof(r->shape), "%s", p->shape);
    r->type = p->type;
    r->check = r->reference_check = -1;
    r->iterations = b->iterations;
    r->doc_anchor_ms = p->anchor;
    r->target = p->target;
    return r;
}

/* What the compiler did (vkdml.h's report). */
static void read_report(IDMLCompiledOperator *graph, struct graph_result *r)
{
    struct vkdml_graph_report report;

    if (vkdml_get_graph_report(graph, &report, sizeof(report)))
        return;
    r->have_report = true;
    r->dispatches = report.dispatch_count;
    r->dispatches_unfused = report.dispatches_unfused;
    r->barriers = report.barrier_count;
    r->fused_activations = report.fused_activations;
    r->fused_elementwise = report.fused_elementwise;
    r->folded_batch_norms = report.folded_batch_norms;
    r->folded_nodes = report.folded_nodes;
    r->aliased_nodes = report.aliased_nodes;
    r->temporary_mib = report.temporary_size / 1048576.0;
    r->temporary_lower_bound_mib = report.temporary_lower_bound / 1048576.0;
    r->persistent_mib = report.persistent_size / 1048576.0;
}

/* The graph compiled and initialized on the bench's device. */
static bool prepare_graph(struct bench *b, struct graph_run *g, struct graph_result *r,
        IDMLOperatorInitializer **initializer)
{
    double ms;
    HRESULT hr;

    progress_update(b, r->name, "CompileGraph", 0, 0);
    if (FAILED(hr = compile_graph(&g->net, &g->graph, &ms)))
        return fail_graph(r, "CompileGraph failed: HRESULT %#x (the log says why)", (unsigned int)hr);
    read_report(g->graph, r);
    if (FAILED(hr = IDMLDevice_CreateOperatorInitializer(b->dml, 1, &g->graph, &IID_IDMLOperatorInitializer,
            (void **)initializer)))
        return fail_graph(r, "CreateOperatorInitializer of the graph failed: HRESULT %#x", (unsigned int)hr);
    if (FAILED(create_optional_buffer(b, IDMLCompiledOperator_GetBindingPropertiesByValue(g->graph)
            .PersistentResourceSize, &g->graph_persistent)))
        return fail_graph(r, "no memory for the graph's persistent resource");
    return true;
}

static bool prepare_run(struct bench *b, const struct graph_spec *spec, struct graph_run *g,
        struct graph_result *r)
{
    IDMLOperatorInitializer *initializer = NULL;
    bool ok = false;
    HRESULT hr;
    UINT i;

    if (FAILED(hr = build_net(&g->net, b->dml, r->type, true, spec)))
        return fail_graph(r, "building the network failed: %s", g->net.error[0] ? g->net.error : "out of memory");
    r->nodes = g->net.node_count;
    for (i = 0; i < g->net.input_count; ++i)
        r->weights += g->net.inputs[i].weight;
    if (!prepare_graph(b, g, r, &initializer) || !compile_nodes(b, g, r))
        goto done;
    if (FAILED(hr = create_marker(b, g)) || FAILED(hr = vkdml_profiler_create(b->dml, 2 * GRAPH_RUNS_PER_LIST,
            &g->profiler)))
    {
        fail_graph(r, "the timing markers could not be set up: HRESULT %#x", (unsigned int)hr);
        goto done;
    }
    progress_update(b, r->name, "uploading weights", 0, 0);
    if (FAILED(hr = create_heap(b, g, initializer)) || FAILED(hr = upload_weights(b, g))
            || FAILED(hr = create_eager_buffers(b, g)) || FAILED(hr = bind_marker(b, g)))
    {
        fail_graph(r, "buffers or descriptors could not be created: HRESULT %#x", (unsigned int)hr);
        goto done;
    }
    for (i = 0; i < g->net.node_count; ++i)
    {
        if (FAILED(hr = bind_node(b, g, &g->net.nodes[i])))
        {
            fail_graph(r, "binding node %s failed: HRESULT %#x", g->net.nodes[i].name, (unsigned int)hr);
            goto done;
        }
    }
    if (FAILED(hr = initialize_graph(b, g, initializer)) || FAILED(hr = bind_graph(b, g)))
    {
        fail_graph(r, "initializing or binding the graph failed: HRESULT %#x", (unsigned int)hr);
        goto done;
    }
    ok = true;
done:
    if (initializer)
        IDMLOperatorInitializer_Release(initializer);
    return ok;
}

/* Items per second, and the speed ratios to PyTorch eager (this run's, else performance.md's). */
static void derive_graph_rates(const struct bench *b, struct graph_result *r)
{
    double measured = anchor_override_ms(b, r->name);

    r->eager_rate = r->items / (r->eager_ms * 1e-3);
    if (r->graph_ms > 0.0)
        r->rate = r->items / (r->graph_ms * 1e-3);
    r->anchor_ms = measured ? measured : r->doc_anchor_ms;
    r->anchor_measured = measured > 0.0;
    if (r->graph_ms > 0.0 && r->anchor_ms)
        r->ratio = r->anchor_ms / r->graph_ms;
    if (r->graph_ms > 0.0 && r->doc_anchor_ms)
        r->doc_ratio = r->doc_anchor_ms / r->graph_ms;
}

static void measure(struct bench *b, const struct graph_spec *spec, struct graph_result *r)
{
    struct graph_run *g = calloc(1, sizeof(*g));

    if (!g)
    {
        fail_graph(r, "out of memory");
        return;
    }
    if (prepare_run(b, spec, g, r))
    {
        if (time_runs(b, g, r, false, &r->eager_ms, &r->eager_min_ms, &r->eager_p90_ms)
                && time_runs(b, g, r, true, &r->graph_ms, &r->graph_min_ms, &r->graph_p90_ms))
        {
            derive_graph_rates(b, r);
            if (b->trace_path)
                trace_runs(b, g, r);
            if (b->check)
                check_outputs(b, g, r);
        }
        if (IDMLDevice_GetDeviceRemovedReason(b->dml) != S_OK)
            fail_graph(r, "the DML device was removed (the log says why)");
    }
    release_graph_run(g);
    free(g);
}

void run_graph_preset(struct bench *b, const struct preset *p)
{
    struct graph_result *r = new_graph_result(b, p);
    struct graph_spec spec;
    const char *problem;
    HRESULT hr;

    if ((problem = parse_spec(p, &spec, r)))
        fail_graph(r, "shape '%s': %s", p->shape, problem);
    else if (!type_supported(b, p->type))
        skip_graph(r, "%s tensors are not supported on this device", type_name(p->type));
    else
    {
        progress_update(b, r->name, "CompileGraph on a fresh device", 0, 0);
        if (FAILED(hr = time_compilation(b, &spec, r)))
            fail_graph(r, "CompileGraph on a fresh device failed: HRESULT %#x (the log says why)", (unsigned int)hr);
        else
            measure(b, &spec, r);
    }
    print_graph(b, r);
}

bool graphs_ok(const struct bench *b)
{
    bool ok = true;
    unsigned int i;

    for (i = 0; i < b->graph_count; ++i)
        ok &= b->graphs[i].status != STATUS_FAILED && b->graphs[i].check != 0 && b->graphs[i].reference_check != 0;
    return ok;
}

/* ---- Outputs ---- */

static void print_compile(struct bench *b, const struct graph_result *r)
{
    fprintf(b->text, "  CompileGraph:  cold %.1f ms (fresh device), warm %.2f ms", r->compile_cold_ms,
            r->compile_warm_ms);
    if (!strcmp(r->network, "resnet50"))
        fprintf(b->text, " (bar <= %.0f ms: %s)", TARGET_RESNET_COMPILE_MS,
                r->compile_warm_ms <= TARGET_RESNET_COMPILE_MS ? "met" : "MISS");
    fprintf(b->text, "; CompileOperator x%u on the bench's device %.1f ms\n", r->nodes, r->eager_compile_ms);
}

static void print_fusion(struct bench *b, const struct graph_result *r)
{
    if (!r->have_report)
    {
        fputs("  compiler:      no report (vkdml_get_graph_report)\n", b->text);
        return;
    }
    fprintf(b->text, "  compiler:      %u dispatches (%u unfused), %u barriers; temporary %.2f MiB (lower bound "
            "%.2f), persistent %.2f MiB\n", r->dispatches, r->dispatches_unfused, r->barriers, r->temporary_mib,
            r->temporary_lower_bound_mib, r->persistent_mib);
    fprintf(b->text, "  fusion:        %u activations and %u element-wise nodes fused, %u batch norms and %u constant "
            "nodes folded, %u aliases\n", r->fused_activations, r->fused_elementwise, r->folded_batch_norms,
            r->folded_nodes, r->aliased_nodes);
}

static void print_anchor(struct bench *b, const struct graph_result *r)
{
    if (!r->anchor_ms)
        return;
    fprintf(b->text, "  PyTorch eager: %.3f ms (%s) -> %.2fx", r->anchor_ms, r->anchor_measured ? "this run"
            : "performance.md", r->ratio);
    if (r->anchor_measured && r->doc_anchor_ms)
        fprintf(b->text, "; performance.md's %.3f ms -> %.2fx", r->doc_anchor_ms, r->doc_ratio);
    if (r->target)
        fprintf(b->text, " (bar >= %.2fx: %s)", r->target, r->ratio >= r->target
                && (!r->doc_ratio || r->doc_ratio >= r->target) ? "met" : "MISS");
    fputc('\n', b->text);
}

void print_graph(struct bench *b, const struct graph_result *r)
{
    fprintf(b->text, "\ngraph %s (%s, %s %s): %u nodes, %u OWNED_BY_DML weights", r->name, type_name(r->type),
            r->network, r->shape, r->nodes, r->weights);
    if (r->status != STATUS_OK)
        fprintf(b->text, "; %s: %s", status_names[r->status], r->reason);
    fputc('\n', b->text);
    if (r->eager_ms <= 0.0)
        return;
    /* The rule: a compiled graph is never slower than its operators one by one. */
    if (r->graph_ms > 0.0)
        fprintf(b->text, "  graph:         %10.3f ms (min %.3f, p90 %.3f) %10.4g %s; %.2fx the one-by-one run's "
                "speed%s\n", r->graph_ms, r->graph_min_ms, r->graph_p90_ms, r->rate, r->unit, r->eager_ms / r->graph_ms,
                r->graph_ms > r->eager_ms ? " (SLOWER)" : "");
    fprintf(b->text, "  one by one:    %10.3f ms (min %.3f, p90 %.3f) %10.4g %s; %u dispatches\n", r->eager_ms,
            r->eager_min_ms, r->eager_p90_ms, r->eager_rate, r->unit, r->nodes);
    if (r->graph_ms > 0.0)
    {
        print_compile(b, r);
        print_fusion(b, r);
        print_anchor(b, r);
    }
    if (r->check >= 0)
        fprintf(b->text, "  check:         %s: the graph against the one-by-one run, %llu elements, largest error "
                "%.3g of the tolerance\n", check_text(r->check), (unsigned long long)r->checked, r->max_error);
    if (r->reference_check >= 0)
        fprintf(b->text, "  check:         %s: the one-by-one run against the CPU reference, %llu elements, largest "
                "error %.3g of the tolerance\n", check_text(r->reference_check),
                (unsigned long long)r->reference_checked, r->reference_max_error);
    fflush(b->text);
}

/* `"key": "text"`, and `, "key": number` (null where not measured). */
static void json_text(FILE *f, const char *key, const char *text)
{
    fprintf(f, "\"%s\": ", key);
    json_string(f, text);
}

static void json_value(FILE *f, const char *key, double value)
{
    fprintf(f, ", \"%s\": ", key);
    json_number(f, value, true);
}

static void json_graph(FILE *f, const struct graph_result *r)
{
    fputs("    {", f);
    json_text(f, "name", r->name);
    fprintf(f, ", \"network\": \"%s\", \"type\": \"%s\", ", r->network, type_name(r->type));
    json_text(f, "shape", r->shape);
    fprintf(f, ", \"status\": \"%s\", ", status_names[r->status]);
    json_text(f, "reason", r->reason);
    fprintf(f, ",\n      \"unit\": \"%s\", \"items\": %u, \"nodes\": %u, \"weights\": %u, \"iterations\": %u",
            r->unit ? r->unit : "", r->items, r->nodes, r->weights, r->iterations);
    json_value(f, "graph_ms", r->graph_ms);
    json_value(f, "graph_min_ms", r->graph_min_ms);
    json_value(f, "graph_p90_ms", r->graph_p90_ms);
    json_value(f, "rate", r->rate);
    json_value(f, "one_by_one_ms", r->eager_ms);
    json_value(f, "one_by_one_rate", r->eager_rate);
    json_value(f, "compile_cold_ms", r->compile_cold_ms);
    json_value(f, "compile_warm_ms", r->compile_warm_ms);
    json_value(f, "compile_operators_ms", r->eager_compile_ms);
    if (r->have_report)
        fprintf(f, ",\n      \"dispatches\": %u, \"dispatches_unfused\": %u, \"barriers\": %u, \"fused_activations\": "
                "%u, \"fused_elementwise\": %u, \"folded_batch_norms\": %u, \"folded_nodes\": %u, \"aliased_nodes\": "
                "%u, \"temporary_mib\": %.4f, \"temporary_lower_bound_mib\": %.4f, \"persistent_mib\": %.4f",
                r->dispatches, r->dispatches_unfused, r->barriers, r->fused_activations, r->fused_elementwise,
                r->folded_batch_norms, r->folded_nodes, r->aliased_nodes, r->temporary_mib,
                r->temporary_lower_bound_mib, r->persistent_mib);
    fputs(",\n      ", f);
    json_text(f, "anchor_source", r->anchor_measured ? "this run" : r->anchor_ms ? "performance.md" : "");
    json_value(f, "anchor_ms", r->anchor_ms);
    json_value(f, "anchor_performance_md_ms", r->doc_anchor_ms);
    json_value(f, "ratio", r->ratio);
    json_value(f, "ratio_performance_md", r->doc_ratio);
    json_value(f, "target", r->target);
    if (r->check >= 0)
        fprintf(f, ",\n      \"check\": {\"status\": \"%s\", \"checked\": %llu, \"mismatches\": %llu}",
                r->check ? "pass" : "mismatch", (unsigned long long)r->checked, (unsigned long long)r->mismatches);
    if (r->reference_check >= 0)
        fprintf(f, ",\n      \"reference_check\": {\"status\": \"%s\", \"checked\": %llu, \"mismatches\": %llu}",
                r->reference_check ? "pass" : "mismatch", (unsigned long long)r->reference_checked,
                (unsigned long long)r->reference_mismatches);
    fputs("}", f);
}

void json_graphs(const struct bench *b, FILE *f)
{
    unsigned int i;

    if (!b->graph_count)
        return;
    fputs("  \"graphs\": [\n", f);
    for (i = 0; i < b->graph_count; ++i)
    {
        json_graph(f, &b->graphs[i]);
        fputs(i + 1 < b->graph_count ? ",\n" : "\n", f);
    }
    fputs("  ],\n", f);
}

void markdown_graphs(const struct bench *b, FILE *f)
{
    unsigned int i;

    if (!b->graph_count)
        return;
    fputs("\n| graph | graph ms | rate | one by one ms | dispatches (unfused) | CompileGraph cold / warm ms "
            "| PyTorch eager ms | ratio | bar |\n|---|---|---|---|---|---|---|---|---|\n", f);
    for (i = 0; i < b->graph_count; ++i)
    {
        const struct graph_result *r = &b->graphs[i];

        if (r->graph_ms <= 0.0)
        {
            fprintf(f, "| %s | %s: %s | | | | | | | |\n", r->name, status_names[r->status], r->reason);
            continue;
        }
        fprintf(f, "| %s | %.3f | %.4g %s | %.3f |", r->name, r->graph_ms, r->rate, r->unit, r->eager_ms);
        if (r->have_report)
            fprintf(f, " %u (%u) |", r->dispatches, r->dispatches_unfused);
        else
            fputs(" |", f);
        fprintf(f, " %.1f / %.2f |", r->compile_cold_ms, r->compile_warm_ms);
        if (r->anchor_ms)
            fprintf(f, " %.3f (%s) | %.2fx |", r->anchor_ms, r->anchor_measured ? "this run" : "performance.md",
                    r->ratio);
        else
            fputs(" | |", f);
        if (r->target)
            fprintf(f, " >= %.2fx: %s |\n", r->target, r->ratio >= r->target ? "met" : "**missed**");
        else
            fputs(" |\n", f);
    }
}
