/*
 * vkdml-bench's two halves: operators.c says what an operator workload is (which operators the
 * bench can build, their tensors and descs from a shape, their data types and values, the CPU
 * references); the other files (bench.h) run, time, check and report workloads through the
 * DirectML API.
 */
#ifndef VKDML_BENCH_OPERATORS_H
#define VKDML_BENCH_OPERATORS_H

#include <DirectML.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dml_op_schema.h"
#include "reference/fp16.h"     /* host fp16, shared with test/ops */
#include "reference/rng.h"      /* the random generator, shared with test/ops */

#define MAX_RANK 8
#define MAX_DIMS 9
#define MAX_INPUTS 3                    /* IF, GEMM (C), CONVOLUTION (bias) */
#define MAX_OUTPUTS 2                   /* TOP_K: values and indices */
#define MAX_DESC_BYTES 256
#define MAX_TYPES 11                    /* DML_TENSOR_DATA_TYPEs the bench knows: all of FL 6_4's */

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define FP32 DML_TENSOR_DATA_TYPE_FLOAT32
#define FP16 DML_TENSOR_DATA_TYPE_FLOAT16
#define UINT8 DML_TENSOR_DATA_TYPE_UINT8

/* ---- Data types and values ---- */

/* "fp32", "int8"...; "?" for a type the bench does not know. */
const char *type_name(DML_TENSOR_DATA_TYPE type);
/* A --type name; DML_TENSOR_DATA_TYPE_UNKNOWN when there is none. */
DML_TENSOR_DATA_TYPE parse_type(const char *name);
unsigned int element_size(DML_TENSOR_DATA_TYPE type);
bool is_float_type(DML_TENSOR_DATA_TYPE type);
/* `count` values into memory as `type` stores them (integers from integral floats). */
void store_values(void *dst, const float *src, size_t count, DML_TENSOR_DATA_TYPE type);
double load_value(const void *src, UINT64 index, DML_TENSOR_DATA_TYPE type);
/* Pseudo-random values as `type` stores them (see operators.c); NULL when out of memory. */
float *random_values(size_t count, DML_TENSOR_DATA_TYPE type, uint32_t seed);

/* ---- Tensors ---- */

struct tensor
{
    UINT rank;                          /* 0: absent (an optional tensor left out, bound as NONE) */
    UINT sizes[MAX_RANK];
    UINT strides[MAX_RANK];
    DML_BUFFER_TENSOR_DESC buffer;
    DML_TENSOR_DESC desc;               /* points at buffer: never copy a tensor by value */
    UINT index_range;                   /* an index tensor's: values uniform in [0, index_range); 0: none */
};

UINT64 tensor_elements(const struct tensor *t);
/* Elements the buffer holds (a broadcast tensor holds fewer than it has). */
UINT64 tensor_storage_elements(const struct tensor *t);
/* The values of `t`: random_values(), or indices uniform in [0, t->index_range). */
float *tensor_values(const struct tensor *t, size_t count, uint32_t seed);

/* ---- Operators and workloads ---- */

struct workload;

/* Shape suffixes a family takes (operators.c, parse_workload_shape). */
enum shape_suffix
{
    SUFFIX_AXES = 0x1,                  /* ":AXES": first, last, or axis numbers joined by ',' */
    SUFFIX_K = 0x2,                     /* "kK": TOP_K's K */
};

/* How a group of operators is shaped from --shape, rated and checked. */
struct family
{
    const char *name;
    const char *shape_help;
    const char *default_shape;          /* --op without --shape, on a GPU */
    const char *tiny_shape;             /* --shape tiny, and --op without --shape on a CPU device */
    bool compute_bound;                 /* rated in TFLOP/s, else in GB/s */
    bool sampled;                       /* --check samples outputs: each one is a reduction */
    /* Tensors and the attributes the family decides; NULL, or what is wrong with the shape. */
    const char *(*build)(struct workload *w);
    uint32_t types;                     /* what its operators take where vkdml does not report it */
    unsigned int suffixes;              /* enum shape_suffix */
};

struct reference;                       /* operators.c */

/* One DML_OPERATOR_TYPE as the bench sees it. */
struct op_info
{
    char name[48];                      /* --op: "add", "logical-and", "activation-tanh" */
    DML_OPERATOR_TYPE type;
    const struct vkdml_op_schema *schema;
    const struct family *family;        /* NULL: the bench cannot build it */
    bool implemented;                   /* vkdml_get_operator_support()'s answers */
    uint32_t data_types, device_data_types;
};

struct workload
{
    const struct op_info *op;
    DML_TENSOR_DATA_TYPE type;          /* the operator's main type (--type) */
    UINT dims[MAX_DIMS];
    UINT dim_count;
    UINT k;                             /* the shape's "kK"; 0: none */
    UINT axis_count;                    /* the shape's ":AXES"; 0: the family's default (the last axis) */
    const char *function;               /* REDUCE's function, a --reduce-function name; NULL: SUM */
    DML_REDUCE_FUNCTION reduce_function; /* REDUCE's, from `function` (build_workload) */
    bool broadcast;
    struct tensor inputs[MAX_INPUTS];   /* in binding order */
    UINT input_count;                   /* input bindings, the absent ones included */
    struct tensor output;
    struct tensor index_output;         /* TOP_K's OutputIndexTensor; rank 0: none */
    union
    {
        uint64_t align;
        unsigned char bytes[MAX_DESC_BYTES];
    } desc;                             /* the operator's DML_*_OPERATOR_DESC */
    /* Array attributes the descs point at */
    UINT strides[2], dilations[2], start_padding[2], end_padding[2], output_padding[2], window[2];
    UINT axes[MAX_RANK];
    double bytes, flops;
    bool memory_bound;                  /* rated in GB/s although its family is in TFLOP/s (a GEMV) */
    const struct reference *reference;  /* NULL: the bench has no CPU reference for it */
};

/* Fills the catalogue: every DML_OPERATOR_TYPE, with vkdml's support on adapter `adapter_index`
 * (negative: none known). Returns the number of entries. */
unsigned int catalogue_init(int adapter_index);
const struct op_info *catalogue_entry(unsigned int index);
/* By --op name, or by DirectML name with or without DML_OPERATOR_ (any case); NULL: none. */
const struct op_info *find_op(const char *name);
/* The types vkdml reports for the operator, else those of its family (bits by DML_TENSOR_DATA_TYPE). */
uint32_t op_types(const struct op_info *op);
/* The types an operator takes, in order of preference (at most MAX_TYPES); returns the count. */
unsigned int op_type_list(const struct op_info *op, DML_TENSOR_DATA_TYPE *list);
/* The type an operator runs in when --type is not given: the first of op_type_list(). */
DML_TENSOR_DATA_TYPE default_type(const struct op_info *op);
/* Whether the type is among those vkdml implements for the operator (true when not reported). */
bool op_takes_type(const struct op_info *op, DML_TENSOR_DATA_TYPE type);
/* "fp32 fp16 int32" for a set of type bits; "" for none. */
void type_set_text(uint32_t types, char *text, size_t size);

/* Dimensions joined by 'x' or ','; returns the count, or 0 when malformed. */
UINT parse_shape(const char *text, UINT *dims);
/* A workload's --shape: dimensions, then the suffixes "kK" and ":AXES" (enum shape_suffix) in
 * that order, into w's dims, k, axes; NULL, or what is wrong with it. */
const char *parse_workload_shape(const char *text, struct workload *w);
/* A --reduce-function name, DML_REDUCE_FUNCTION_SUM_SQUARE's "sum-square"; -1 when there is none. */
int parse_reduce_function(const char *name);
/* Tensors, desc, bytes and flops of `w` (op, type, dims, broadcast set); NULL or what is wrong. */
const char *build_workload(struct workload *w);
/* Every tensor's data type, inputs then the output, into `types`; returns the count. */
UINT workload_types(const struct workload *w, DML_TENSOR_DATA_TYPE *types);
/* Output element `index` from the inputs (as stored, in floats), and how far off it may be;
 * w->reference must be set. */
double reference_value(const struct workload *w, float *const *inputs, UINT64 index, double *tolerance);
/* Whether the operator has a reference for some type (fp32 and fp16, all of them so far). */
bool op_has_reference(const struct op_info *op);

#endif /* VKDML_BENCH_OPERATORS_H */
