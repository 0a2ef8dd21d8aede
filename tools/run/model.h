/*
 * vkdml-run's ONNX model: the ModelProto parsed with protobuf-c (the C code protoc-c generates at
 * build time from libonnx-dev's onnx.proto), checked and put in an order where every node comes
 * after the producers of its inputs. The rest of vkdml-run sees only these structs, never protobuf-c's.
 * docs/onnx.md, "The model".
 */
#ifndef VKDML_RUN_MODEL_H
#define VKDML_RUN_MODEL_H

#include "tensor.h"

/* A graph input or output as the model declares it. A free dimension (dim_param, or no value) is -1
 * until --shape fixes it. */
struct onnx_io
{
    const char *name;
    int type;                           /* enum onnx_type; ONNX_UNDEFINED when not a tensor */
    bool has_shape;
    struct run_shape shape;
    const char *dim_names[RUN_MAX_RANK];     /* dim_param of free dimensions, else NULL */
};

struct onnx_node
{
    unsigned int index;                 /* in the model's node list as the file has it */
    const char *name;                   /* the node's name, or "#index" when it has none */
    const char *op_type;
    const char *domain;                 /* "" for the default ONNX domain */
    unsigned int input_count, output_count;
    const char *const *inputs;          /* "" marks an absent optional input or output */
    const char *const *outputs;
    const void *proto;                  /* the Onnx__NodeProto, for model.c only */
};

struct onnx_model
{
    void *proto;                        /* the Onnx__ModelProto */
    int64_t ir_version;
    int64_t opset;                      /* of the default domain ("" or "ai.onnx") */
    const char *producer;
    struct onnx_io *inputs, *outputs;   /* inputs: not counting those an initializer gives */
    unsigned int input_count, output_count;
    struct run_tensor *initializers;
    unsigned int initializer_count;
    struct onnx_node *nodes;            /* sorted: producers before consumers */
    unsigned int node_count;
    char *names;                        /* storage of generated node names */
};

/* Reads and parses `path`; external data is read relative to its folder. On failure returns false
 * with a one-line reason in `error` (the file, and what is wrong: truncated, not a model, a type
 * vkdml-run cannot hold, a cycle, an input nothing produces). */
bool onnx_model_load(const char *path, struct onnx_model *model, char *error, size_t error_size);
/* The same from bytes in memory; `folder` is where external data lives (NULL: the working folder). */
bool onnx_model_parse(const void *data, size_t size, const char *folder, struct onnx_model *model, char *error,
        size_t error_size);
void onnx_model_free(struct onnx_model *model);

/* Attributes of a node. Each getter returns the default (or false / 0) when the attribute is absent;
 * a present attribute of the wrong kind is also answered by the default and reported by
 * onnx_attr_kind_error. */
bool onnx_attr_has(const struct onnx_node *node, const char *name);
int64_t onnx_attr_int(const struct onnx_node *node, const char *name, int64_t fallback);
float onnx_attr_float(const struct onnx_node *node, const char *name, float fallback);
/* The string (not NUL-terminated in the file: copied into `buffer`); `fallback` when absent. */
const char *onnx_attr_string(const struct onnx_node *node, const char *name, const char *fallback, char *buffer,
        size_t size);
/* Copies at most `max` values into `values`; returns how many the attribute has (-1: absent). */
int onnx_attr_ints(const struct onnx_node *node, const char *name, int64_t *values, int max);
int onnx_attr_floats(const struct onnx_node *node, const char *name, float *values, int max);
/* A TENSOR attribute as a host tensor (owned by the caller); false when absent or unreadable. */
bool onnx_attr_tensor(const struct onnx_node *node, const char *name, struct run_tensor *tensor, char *error,
        size_t error_size);
/* Whether the node has an attribute vkdml-run cannot hold (a subgraph, a sparse tensor, a type). */
const char *onnx_attr_unsupported(const struct onnx_node *node);

#endif /* VKDML_RUN_MODEL_H */
