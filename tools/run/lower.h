/*
 * Lowering: the ONNX model's nodes, in order, become DirectML operators of one DML_GRAPH_DESC.
 * For each node the op table (ops.h) gives three steps: infer (output types and static shapes),
 * fold (the outputs computed on the host, when every input is a constant) and emit (DirectML
 * operators). This header is what the op families use. docs/onnx.md, "Lowering".
 */
#ifndef VKDML_RUN_LOWER_H
#define VKDML_RUN_LOWER_H

#ifndef COBJMACROS
# define COBJMACROS
#endif
#include <DirectML.h>

#include "model.h"

/* A tensor of the model: a graph input, an initializer, a node's output, or an intermediate of
 * one node lowered into several DirectML operators. */
struct run_value
{
    const char *name;
    int type;                           /* enum onnx_type, as the model computes it */
    struct run_shape shape;             /* static: set by the producer's infer step */
    bool inferred;                      /* type and shape are known */
    struct run_tensor *host;            /* the values, when known on the host */
    bool constant;                      /* fixed at CompileGraph: an initializer, Constant, folded */
    bool graph_input;                   /* a model input (its host values are this run's) */
    bool host_owned;                    /* `host` is the lowering's to free */
    /* Where the DirectML graph has it: a node's output, a graph input, or nowhere yet. */
    int dml_node;                       /* -1: none */
    unsigned int dml_output;
    int dml_input;                      /* graph input index, -1: none */
    struct run_value *alias_of;         /* shares this model input's graph input (run_alias) */
    /* A view (run_view): the elements of `view_of` at these strides (elements), never on its own on
     * the device; copied out only where a consumer cannot read it through its descs. */
    struct run_value *view_of;
    int64_t view_strides[RUN_MAX_RANK];
};

#define RUN_MAX_NODE_TENSORS 64

/* One ONNX node as the op families see it. */
struct run_node
{
    const struct onnx_node *onnx;
    int64_t opset;                      /* the model's opset of the node's domain */
    struct run_value *in[RUN_MAX_NODE_TENSORS];     /* NULL: an absent optional input */
    unsigned int in_count;
    struct run_value *out[RUN_MAX_NODE_TENSORS];    /* NULL: an output the model leaves out */
    unsigned int out_count;
    struct run_lower *lower;
    unsigned int emitted;               /* DirectML nodes made for it so far */
};

/* ---- Errors: each returns false, so a step ends with `return run_fail(n, ...)` ---- */

/* An error of the model or of this node ("node 'name' (Op, opset N): message"): exit status 2. */
bool run_fail(struct run_node *n, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* What vkdml-run or DirectML cannot do for this node (an attribute value, a type, a rank):
 * exit status 2, and the message says "unsupported" so the test suite counts it by op type. */
bool run_unsupported(struct run_node *n, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* ---- Inputs, outputs, attributes ---- */

/* Input i, or NULL (absent or beyond the count). */
struct run_value *run_in(struct run_node *n, unsigned int i);
/* Input i's host values; NULL (and the node fails, naming the input) when it is not known before the
 * run: the inputs that decide a shape (Reshape's shape, Slice's starts...) must be constants or
 * given model inputs. */
const struct run_tensor *run_in_host(struct run_node *n, unsigned int i);
/* Input i's values as int64s (a shape, axes, pads), at most `max`; returns the count, -1 on failure
 * (failed as run_in_host does, or more than `max`). */
int run_in_ints(struct run_node *n, unsigned int i, int64_t *values, int max);
/* Sets output i's type and shape (infer step); ignored for an output the model leaves out. */
void run_set_out(struct run_node *n, unsigned int i, int type, const struct run_shape *shape);
/* Output i's host tensor, allocated with the type and shape infer set, marked constant (fold step);
 * NULL (the node failed) for an output the model leaves out or out of memory. */
struct run_tensor *run_out_host(struct run_node *n, unsigned int i);
/* A normalized axis in [0, rank): negative counts from the end; fails outside [-rank, rank). */
bool run_axis(struct run_node *n, int64_t axis, unsigned int rank, unsigned int *out);
/* Numpy broadcasting of two shapes; fails when they do not broadcast. */
bool run_broadcast(struct run_node *n, const struct run_shape *a, const struct run_shape *b, struct run_shape *out);
/* The element of a tensor of shape `from` that element `index` of shape `to` reads under numpy
 * broadcasting (host folds). */
int64_t run_broadcast_source(const struct run_shape *from, const struct run_shape *to, int64_t index);
/* Memory that lives until the whole model is lowered (zeroed). */
void *run_alloc(struct run_node *n, size_t size);

/* ---- DirectML tensor descs (memory owned by the lowering) ---- */

/* The DML_TENSOR_DATA_TYPE that holds ONNX `type` on the device (bool: UINT8; float: FLOAT16 with
 * --half), or DML_TENSOR_DATA_TYPE_UNKNOWN. */
DML_TENSOR_DATA_TYPE run_dml_type(const struct run_lower *l, int type);
/* `v` packed, its shape right-aligned into `rank` dimensions (1s in front; rank 0 or below v's rank:
 * v's own rank, at least 1). Constants carry DML_TENSOR_FLAG_OWNED_BY_DML. */
DML_TENSOR_DESC *run_desc(struct run_node *n, const struct run_value *v, unsigned int rank);
/* `v` read as `sizes` (numpy broadcasting: v's shape right-aligned; dimensions where v has 1 and
 * sizes more get stride 0). */
DML_TENSOR_DESC *run_desc_broadcast(struct run_node *n, const struct run_value *v, unsigned int rank,
        const int64_t *sizes);
/* `v` read through explicit sizes and strides (elements): a view. `type` overrides the data type
 * (DML_TENSOR_DATA_TYPE_UNKNOWN: v's). */
DML_TENSOR_DESC *run_desc_view(struct run_node *n, const struct run_value *v, unsigned int rank,
        const uint32_t *sizes, const uint32_t *strides, DML_TENSOR_DATA_TYPE type);
/* A DirectML scalar union holding `value` in `type`. */
DML_SCALAR_UNION run_scalar(DML_TENSOR_DATA_TYPE type, double value);

/* ---- Emitting DirectML operators ---- */

/* An intermediate tensor for a node lowered into several operators. */
struct run_value *run_temp(struct run_node *n, int type, const struct run_shape *shape);
/* Creates the operator `type` with `desc` and adds it to the graph; `inputs` and `outputs` list the
 * values in the desc's binding order (NULL: an absent optional tensor). A failure of
 * CreateOperator fails the node with the HRESULT (E_NOTIMPL and E_INVALIDARG as unsupported). */
bool run_emit(struct run_node *n, DML_OPERATOR_TYPE type, const void *desc, struct run_value *const *inputs,
        unsigned int input_count, struct run_value *const *outputs, unsigned int output_count);
/* Output `out` is input `in` unchanged (Identity, a Reshape): no operator; the value is shared. */
bool run_alias(struct run_node *n, unsigned int out, struct run_value *in);
/* The one ONNX node after `n` that reads `v` (an output of n, or of a node n absorbed), when no other
 * node reads it and it is no model output; NULL otherwise. For an op that can do its consumers' work
 * too (MatMul and a bias Add, a GELU written out in Erf). */
const struct onnx_node *run_sole_consumer(struct run_node *n, const struct run_value *v);
/* The value named `name` if a node lowered before `n` defines it (or an initializer, a model input). */
struct run_value *run_find(struct run_node *n, const char *name);
/* `n` does the work of `consumer` (from run_sole_consumer): its output 0 gets `like`'s type and
 * shape and is returned for n to write; lowering skips the consumer. */
struct run_value *run_absorb(struct run_node *n, const struct onnx_node *consumer, const struct run_value *like);
/* The constant scalar (one element) named `name`, as a double; false when it is none. */
bool run_constant_scalar(struct run_node *n, const char *name, double *value);
/* Output `out` is `in` read through `sizes` and `strides` (elements of in's packed layout; a
 * Transpose): no operator now. Consumers read the view through their descs' strides; where one
 * cannot (a reshape, a graph output), an ELEMENT_WISE_IDENTITY copies it out once. */
bool run_view(struct run_node *n, unsigned int out, struct run_value *in, unsigned int rank, const uint32_t *sizes,
        const uint32_t *strides);


/* ---- The whole model (main.c, execute.c) ---- */

struct run_options
{
    bool half;                          /* float tensors as FLOAT16 on the device */
    unsigned int shape_count;           /* --shape NAME=DIMS */
    const char *shape_names[64];
    struct run_shape shapes[64];
};

/* A DirectML graph input: a model input, or a constant bound OWNED_BY_DML at initialization. */
struct run_graph_input
{
    struct run_value *value;
    bool weight;
};

/* A model output: a graph output, or a constant known on the host (dml_output -1). */
struct run_graph_output
{
    struct run_value *value;
    int dml_output;
};

struct run_graph
{
    DML_GRAPH_DESC desc;                /* NodeCount 0: every output is a constant */
    IDMLOperator **operators;
    const char **node_names;
    struct run_graph_input *inputs;
    unsigned int input_count;
    struct run_graph_output *outputs;
    unsigned int output_count;
    /* Operator outputs that nothing reads: CompileGraph wants every output connected, so they are
     * graph outputs after the model's, bound to scratch memory and never read back. */
    struct run_value **discarded;
    unsigned int discarded_count;
    unsigned int onnx_nodes, folded_nodes, aliased_nodes;
};

enum run_error_kind { RUN_OK, RUN_ERROR, RUN_UNSUPPORTED };

struct run_lower;
/* Lowers `model` for `dml`; `inputs` holds every model input's values (model->input_count tensors,
 * in order; their shapes are the run's). On failure returns NULL with the message in `error` and
 * the kind in `*kind`. */
struct run_lower *run_lower_model(IDMLDevice *dml, const struct onnx_model *model, const struct run_options *options,
        struct run_tensor *inputs, char *error, size_t error_size, enum run_error_kind *kind);
const struct run_graph *run_lower_graph(const struct run_lower *l);
void run_lower_free(struct run_lower *l);

/* ---- movement: required operands ---- */

/* Fails the node (a malformed model) unless inputs 0 to inputs - 1 and outputs 0 to outputs - 1 are
 * present: the steps of an op read them without checking. */
bool run_need_io(struct run_node *n, unsigned int inputs, unsigned int outputs);

#endif /* VKDML_RUN_LOWER_H */
