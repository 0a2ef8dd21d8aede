/*
 * vkdml-run's bridge to protobuf-c: ONNX TensorProtos to host tensors and back. Only model.c and
 * tensor.c include it; the generated onnx.pb-c.h stays behind this header.
 */
#ifndef VKDML_RUN_PROTO_H
#define VKDML_RUN_PROTO_H

#include <stdio.h>

#include "tensor.h"

/* A TensorProto (an Onnx__TensorProto *) as a host tensor: raw_data, the typed fields, or external
 * data read from `folder` (NULL: the working folder). */
bool proto_tensor_convert(const void *proto, const char *folder, struct run_tensor *t, char *error,
        size_t error_size);
/* A serialized TensorProto (.pb file) as a host tensor. */
bool proto_tensor_load(const unsigned char *bytes, size_t size, struct run_tensor *t, char *error, size_t error_size);
/* Writes `t` as a serialized TensorProto with raw_data. */
bool proto_tensor_save(FILE *f, const struct run_tensor *t);

#endif /* VKDML_RUN_PROTO_H */
