/*
 * Small ONNX models for vkdml-run's tests, built with protobuf-c's generated structs (onnx.pb-c.h)
 * and packed to bytes, so no binary model is checked in. One struct holds every part of a model;
 * the strings it points to (names, op types) must outlive the packing.
 */
#ifndef VKDML_TEST_ONNX_TEST_MODEL_H
#define VKDML_TEST_ONNX_TEST_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "execute.h"
#include "onnx.pb-c.h"

#define TEST_MAX_NODES 8
#define TEST_MAX_IO 4
#define TEST_MAX_DIMS 10
#define TEST_MAX_INITIALIZERS 8

struct test_value_info
{
    Onnx__ValueInfoProto info;
    Onnx__TypeProto type;
    Onnx__TypeProto__Tensor tensor;
    Onnx__TensorShapeProto shape;
    Onnx__TensorShapeProto__Dimension dims[TEST_MAX_DIMS], *dim_list[TEST_MAX_DIMS];
};

struct test_model
{
    Onnx__ModelProto model;
    Onnx__GraphProto graph;
    Onnx__OperatorSetIdProto opsets[2], *opset_list[2];
    Onnx__NodeProto nodes[TEST_MAX_NODES], *node_list[TEST_MAX_NODES];
    struct test_value_info inputs[TEST_MAX_IO], outputs[TEST_MAX_IO];
    Onnx__ValueInfoProto *input_list[TEST_MAX_IO], *output_list[TEST_MAX_IO];
    Onnx__TensorProto *initializer_list[TEST_MAX_INITIALIZERS];
};

/* An empty model of the default domain at `opset`. */
void test_model_init(struct test_model *t, int64_t opset);
/* A graph input or output of `elem_type` and `rank` dimensions: dims[i] >= 0 a value, -1 the
 * dim_param "N", -2 a dimension with neither; dims NULL: no shape. */
void test_model_add_input(struct test_model *t, const char *name, int elem_type, unsigned int rank,
        const int64_t *dims);
void test_model_add_output(struct test_model *t, const char *name, int elem_type, unsigned int rank,
        const int64_t *dims);
/* A node; `inputs` and `outputs` (arrays of names) must outlive the packing. */
Onnx__NodeProto *test_model_add_node(struct test_model *t, const char *op_type, unsigned int input_count,
        const char *const *inputs, unsigned int output_count, const char *const *outputs);
void test_model_add_initializer(struct test_model *t, Onnx__TensorProto *tensor);

/* A TensorProto named `name` of `type` and shape (no data yet). */
void test_tensor_init(Onnx__TensorProto *p, const char *name, int type, unsigned int rank, const int64_t *dims);

/* The model packed (malloc'ed; the caller frees it). */
uint8_t *test_model_pack(const struct test_model *t, size_t *size);
/* Writes `size` bytes to `folder`/`name`; false on failure. */
bool test_write_file(const char *folder, const char *name, const void *data, size_t size);

/* The device the device tests lower and run on: cmocka group setup (skips without a device) and
 * teardown; `onnx_test_device_error` holds run_device_create's reason when setup fails. */
extern struct run_device onnx_test_device;
extern char onnx_test_device_error[1024];
int onnx_test_device_setup(void **state);
int onnx_test_device_teardown(void **state);

/* The model "x (float 2x3) -> Relu -> y". */
void test_model_relu(struct test_model *t);

#endif /* VKDML_TEST_ONNX_TEST_MODEL_H */
