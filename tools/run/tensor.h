/*
 * vkdml-run's host tensors: ONNX element types, shapes, and the files tensors come in and go out as
 * (ONNX TensorProto .pb files, NumPy .npy files). docs/onnx.md, "Tensors and files".
 */
#ifndef VKDML_RUN_TENSOR_H
#define VKDML_RUN_TENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ONNX's TensorProto.DataType values (onnx.proto). */
enum onnx_type
{
    ONNX_UNDEFINED = 0, ONNX_FLOAT = 1, ONNX_UINT8 = 2, ONNX_INT8 = 3, ONNX_UINT16 = 4, ONNX_INT16 = 5,
    ONNX_INT32 = 6, ONNX_INT64 = 7, ONNX_STRING = 8, ONNX_BOOL = 9, ONNX_FLOAT16 = 10, ONNX_DOUBLE = 11,
    ONNX_UINT32 = 12, ONNX_UINT64 = 13, ONNX_COMPLEX64 = 14, ONNX_COMPLEX128 = 15, ONNX_BFLOAT16 = 16,
};

/* DirectML's tensors have at most 8 dimensions (DML_TENSOR_DIMENSION_COUNT_MAX1). */
#define RUN_MAX_RANK 8

/* The most elements (and bytes) a tensor of a file may have: bounds the arithmetic on shapes. */
#define RUN_MAX_ELEMENTS (INT64_C(1) << 40)

/* A shape: rank 0 is a scalar (one element). */
struct run_shape
{
    unsigned int rank;
    int64_t dims[RUN_MAX_RANK];
};

/* A tensor in host memory, packed, row-major; `data` is malloc'ed and owned by the tensor. */
struct run_tensor
{
    int type;                           /* enum onnx_type */
    struct run_shape shape;
    void *data;
    char name[128];                     /* the TensorProto's name, when it has one */
};

/* Bytes per element, 0 for types vkdml-run cannot hold (string, complex). Bool is one byte. */
size_t onnx_type_size(int type);
const char *onnx_type_name(int type);
/* The number of elements (1 for a scalar). */
int64_t run_shape_elements(const struct run_shape *shape);
bool run_shape_equal(const struct run_shape *a, const struct run_shape *b);
/* "1x3x224x224", "scalar". */
void run_shape_format(const struct run_shape *shape, char *text, size_t size);
/* Whether a shape read from a file has at most RUN_MAX_ELEMENTS elements of 8 bytes (no overflow
 * in later arithmetic); false with the reason in `error`. */
bool run_shape_check(const struct run_shape *shape, char *error, size_t error_size);
/* Parses "1x3x224x224"; false on a bad text. */
bool run_shape_parse(const char *text, struct run_shape *shape);
/* Bytes of the packed tensor. */
uint64_t run_tensor_bytes(const struct run_tensor *t);
void run_tensor_free(struct run_tensor *t);
/* A zeroed tensor of `type` and `shape`; false when out of memory or the type has no size. */
bool run_tensor_alloc(struct run_tensor *t, int type, const struct run_shape *shape);

/* Element i as a double / int64, whatever the type (half and bool included). */
double run_tensor_get_double(const struct run_tensor *t, int64_t i);
int64_t run_tensor_get_int(const struct run_tensor *t, int64_t i);
/* Element i set from a double / int64, converted to the tensor's type. */
void run_tensor_set_double(struct run_tensor *t, int64_t i, double value);
void run_tensor_set_int(struct run_tensor *t, int64_t i, int64_t value);
/* Uniform random values (floats in [-1, 1), integers in [0, 10), bools 0/1) from `seed`. */
void run_tensor_fill_random(struct run_tensor *t, uint32_t seed);

/* The whole file in a malloc'ed buffer; false with a reason in `error`. */
bool run_read_file(const char *path, unsigned char **bytes, size_t *size, char *error, size_t error_size);
/* Loads a TensorProto (.pb) or NumPy (.npy, by the extension) file. On failure returns false and
 * writes a one-line reason to `error`. */
bool run_tensor_load(const char *path, struct run_tensor *t, char *error, size_t error_size);
/* Writes `t` as .pb or .npy, by the extension of `path`. */
bool run_tensor_save(const char *path, const struct run_tensor *t, char *error, size_t error_size);

/* The comparison --check makes (ONNX's backend tests: |actual - expected| <= atol + rtol * |expected|,
 * NaN equal to NaN, integers and bools exactly). */
#define RUN_CHECK_RTOL 1e-3
#define RUN_CHECK_ATOL 1e-7
struct run_compare
{
    int64_t checked, mismatches;
    int64_t first_mismatch;             /* -1: none */
    double max_abs_error;
    double actual, expected;            /* at the first mismatch */
};
/* Compares `actual` with `expected`; false when shape or type differ (explained in `error`). */
bool run_tensor_compare(const struct run_tensor *actual, const struct run_tensor *expected, double rtol,
        double atol, struct run_compare *result, char *error, size_t error_size);

#endif /* VKDML_RUN_TENSOR_H */
