/*
 * Small ONNX models for vkdml-run's tests, built with protobuf-c's structs (onnx_test_model.h).
 */
#include "onnx_test_model.h"

#include "test_utils.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const Onnx__ModelProto model_init = ONNX__MODEL_PROTO__INIT;
static const Onnx__GraphProto graph_init = ONNX__GRAPH_PROTO__INIT;
static const Onnx__OperatorSetIdProto opset_init = ONNX__OPERATOR_SET_ID_PROTO__INIT;
static const Onnx__NodeProto node_init = ONNX__NODE_PROTO__INIT;
static const Onnx__ValueInfoProto value_info_init = ONNX__VALUE_INFO_PROTO__INIT;
static const Onnx__TypeProto type_init = ONNX__TYPE_PROTO__INIT;
static const Onnx__TypeProto__Tensor tensor_type_init = ONNX__TYPE_PROTO__TENSOR__INIT;
static const Onnx__TensorShapeProto shape_init = ONNX__TENSOR_SHAPE_PROTO__INIT;
static const Onnx__TensorShapeProto__Dimension dim_init = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT;
static const Onnx__TensorProto tensor_init = ONNX__TENSOR_PROTO__INIT;

void test_model_init(struct test_model *t, int64_t opset)
{
    memset(t, 0, sizeof(*t));
    t->model = model_init;
    t->graph = graph_init;
    t->opsets[0] = opset_init;
    t->opsets[0].domain = (char *)"";
    t->opsets[0].has_version = 1;
    t->opsets[0].version = opset;
    t->opset_list[0] = &t->opsets[0];
    t->model.has_ir_version = 1;
    t->model.ir_version = 8;
    t->model.producer_name = (char *)"vkdml test";
    t->model.n_opset_import = 1;
    t->model.opset_import = t->opset_list;
    t->model.graph = &t->graph;
    t->graph.name = (char *)"test";
    t->graph.node = t->node_list;
    t->graph.input = t->input_list;
    t->graph.output = t->output_list;
    t->graph.initializer = t->initializer_list;
}

static void value_info(struct test_value_info *v, const char *name, int elem_type, unsigned int rank,
        const int64_t *dims)
{
    unsigned int i;

    v->info = value_info_init;
    v->type = type_init;
    v->tensor = tensor_type_init;
    v->shape = shape_init;
    v->info.name = (char *)name;
    v->info.type = &v->type;
    v->type.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    v->type.tensor_type = &v->tensor;
    v->tensor.has_elem_type = 1;
    v->tensor.elem_type = elem_type;
    if (!dims)
        return;
    v->tensor.shape = &v->shape;
    v->shape.n_dim = rank;
    v->shape.dim = v->dim_list;
    for (i = 0; i < rank && i < TEST_MAX_DIMS; ++i)
    {
        v->dims[i] = dim_init;
        v->dim_list[i] = &v->dims[i];
        if (dims[i] >= 0)
        {
            v->dims[i].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
            v->dims[i].dim_value = dims[i];
        }
        else if (dims[i] == -1)
        {
            v->dims[i].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
            v->dims[i].dim_param = (char *)"N";
        }
    }
}

void test_model_add_input(struct test_model *t, const char *name, int elem_type, unsigned int rank,
        const int64_t *dims)
{
    struct test_value_info *v = &t->inputs[t->graph.n_input];

    value_info(v, name, elem_type, rank, dims);
    t->input_list[t->graph.n_input++] = &v->info;
}

void test_model_add_output(struct test_model *t, const char *name, int elem_type, unsigned int rank,
        const int64_t *dims)
{
    struct test_value_info *v = &t->outputs[t->graph.n_output];

    value_info(v, name, elem_type, rank, dims);
    t->output_list[t->graph.n_output++] = &v->info;
}

Onnx__NodeProto *test_model_add_node(struct test_model *t, const char *op_type, unsigned int input_count,
        const char *const *inputs, unsigned int output_count, const char *const *outputs)
{
    Onnx__NodeProto *node = &t->nodes[t->graph.n_node];

    *node = node_init;
    node->op_type = (char *)op_type;
    node->n_input = input_count;
    node->input = (char **)inputs;
    node->n_output = output_count;
    node->output = (char **)outputs;
    t->node_list[t->graph.n_node++] = node;
    return node;
}

void test_model_add_initializer(struct test_model *t, Onnx__TensorProto *tensor)
{
    t->initializer_list[t->graph.n_initializer++] = tensor;
}

void test_tensor_init(Onnx__TensorProto *p, const char *name, int type, unsigned int rank, const int64_t *dims)
{
    *p = tensor_init;
    p->name = (char *)name;
    p->has_data_type = 1;
    p->data_type = type;
    p->n_dims = rank;
    p->dims = (int64_t *)dims;
}

uint8_t *test_model_pack(const struct test_model *t, size_t *size)
{
    uint8_t *bytes;

    *size = onnx__model_proto__get_packed_size(&t->model);
    if ((bytes = malloc(*size ? *size : 1)))
        onnx__model_proto__pack(&t->model, bytes);
    return bytes;
}

bool test_write_file(const char *folder, const char *name, const void *data, size_t size)
{
    char path[4096];
    FILE *f;
    bool ok;

    snprintf(path, sizeof(path), "%s/%s", folder, name);
    if (!(f = fopen(path, "wb")))
        return false;
    ok = fwrite(data, 1, size, f) == size;
    return !fclose(f) && ok;
}

void test_model_relu(struct test_model *t)
{
    static const int64_t dims[] = {2, 3};
    static const char *const x[] = {"x"}, *const y[] = {"y"};

    test_model_init(t, 13);
    test_model_add_input(t, "x", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 2, dims);
    test_model_add_output(t, "y", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 2, dims);
    test_model_add_node(t, "Relu", 1, x, 1, y);
}

struct run_device onnx_test_device;
char onnx_test_device_error[1024];

int onnx_test_device_setup(void **state)
{
    vkdml_test_require_device();
    if (!run_device_create(NULL, &onnx_test_device, onnx_test_device_error, sizeof(onnx_test_device_error)))
    {
        fprintf(stderr, "run_device_create: %s\n", onnx_test_device_error);
        return -1;
    }
    return 0;
}

int onnx_test_device_teardown(void **state)
{
    run_device_free(&onnx_test_device);
    return 0;
}
