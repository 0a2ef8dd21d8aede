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
#define MAX_INPUTS 5                    /* BATCH_NORMALIZATION's five; JOIN's four (join-4x64MiB) */
#define MAX_OUTPUTS 4                   /* SPLIT's four parts; TOP_K, NONZERO_COORDINATES: two */
#define MAX_DESC_BYTES 256
#define MAX_TYPES 11                    /* DML_TENSOR_DATA_TYPEs the bench knows: all of FL 6_4's */

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define FP32 DML_TENSOR_DATA_TYPE_FLOAT32
#define FP16 DML_TENSOR_DATA_TYPE_FLOAT16
#define UINT8 DML_TENSOR_DATA_TYPE_UINT8

struct workload;

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
/* Input `input`'s `count` values: the family's, integers of the range it gives (indices), else
 * random_values(); NULL when out of memory. */
float *input_values(const struct workload *w, UINT input, size_t count);

/* ---- Tensors ---- */

struct tensor
{
    UINT rank;                          /* 0: absent (an optional tensor left out, bound as NONE) */
    UINT sizes[MAX_RANK];
    UINT strides[MAX_RANK];
    DML_BUFFER_TENSOR_DESC buffer;
    DML_TENSOR_DESC desc;               /* points at buffer: never copy a tensor by value */
};

UINT64 tensor_elements(const struct tensor *t);
/* Elements the buffer holds (a broadcast tensor holds fewer than it has). */
UINT64 tensor_storage_elements(const struct tensor *t);

/* ---- Operators and workloads ---- */

/* Shape suffixes a family takes (operators.c, parse_workload_shape). */
enum shape_suffix
{
    SUFFIX_AXES = 0x1,                  /* ":AXES": first, last, or axis numbers joined by ',' */
    SUFFIX_K = 0x2,                     /* "kK": TOP_K's K, or the family's count (parts, pads, repeats...) */
    SUFFIX_TYPE = 0x4,                  /* "@TYPE": CAST's output type, or the index tensors' type */
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
    /* Input `input`'s values (as stored, in floats) where the family chooses them; false: the usual
     * ones (input_values). NULL: none. */
    bool (*values)(const struct workload *w, UINT input, float *values, size_t count);
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
    DML_TENSOR_DATA_TYPE other_type;    /* the shape's "@TYPE"; UNKNOWN: the family's default */
    const char *function;               /* the operator's mode (--mode): REDUCE's Function, PADDING's
                                         * PaddingMode, DEPTH_TO_SPACE1's Order; NULL: the default */
    DML_REDUCE_FUNCTION reduce_function; /* REDUCE's, from `function` (build_workload) */
    int mode;                           /* the value of `function` in the operator's mode enum; -1: none */
    bool broadcast;
    struct tensor inputs[MAX_INPUTS];   /* in binding order */
    UINT input_count;                   /* input bindings, the absent ones included */
    struct tensor output;
    struct tensor more_outputs[MAX_OUTPUTS - 1]; /* TOP_K's indices, SPLIT's other parts...; rank 0: none */
    UINT output_count;                  /* output bindings (write_tensor_fields) */
    UINT array_count;                   /* JOIN's inputs, SPLIT's outputs: the desc's tensor array */
    DML_TENSOR_DESC tensor_array[MAX_INPUTS > MAX_OUTPUTS ? MAX_INPUTS : MAX_OUTPUTS];
    /* Inputs holding indices (or other integers): uniform in [low, high) where high > low */
    int64_t value_low[MAX_INPUTS], value_high[MAX_INPUTS];
    union
    {
        uint64_t align;
        unsigned char bytes[MAX_DESC_BYTES];
    } desc;                             /* the operator's DML_*_OPERATOR_DESC */
    /* Array attributes the descs point at */
    UINT strides[2], dilations[2], start_padding[2], end_padding[2], output_padding[2], window[2];
    UINT axes[MAX_RANK];
    UINT offsets[MAX_RANK], sizes[MAX_RANK], steps[MAX_RANK];    /* SLICE's, SLICE1's (signed_strides) */
    INT signed_strides[MAX_RANK];
    UINT repeats[MAX_RANK], start_pads[MAX_RANK], end_pads[MAX_RANK]; /* TILE's, PADDING's */
    FLOAT bias[64];                     /* VALUE_SCALE_2D's */
    double bytes, flops;                /* bytes: what must move; a family that reads part of its input
                                         * sets it, else every tensor counts once */
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
/* A --mode name in the operator's mode enum (REDUCE's Function, PaddingMode, Order); -1: none. */
int parse_mode(const struct op_info *op, const char *name);
/* Tensors, desc, bytes and flops of `w` (op, type, dims, broadcast set); NULL or what is wrong. */
const char *build_workload(struct workload *w);
/* Every tensor's data type, inputs then the output, into `types`; returns the count. */
UINT workload_types(const struct workload *w, DML_TENSOR_DATA_TYPE *types);
/* The workload's output tensors in binding order (TOP_K's indices, SPLIT's parts); returns the count. */
UINT workload_outputs(const struct workload *w, const struct tensor **outputs);
/* How many outputs the reference checks (from the first): 0 without a reference. */
UINT reference_outputs(const struct workload *w);
/* Element `index` of output `output` from the inputs (as stored, in floats), and how far off it
 * may be; w->reference must be set. */
double reference_value(const struct workload *w, float *const *inputs, UINT output, UINT64 index,
        double *tolerance);
/* Whether the operator has a reference for some type (fp32 and fp16, all of them so far). */
bool op_has_reference(const struct op_info *op);
/* What --list says of it: "fp32 fp16", "all types" or "no reference". */
const char *op_reference_types(const struct op_info *op);

/* ---- For the families (operators.c and the families' own files below) ---- */

typedef double reference_fn(const struct workload *w, float *const *inputs, UINT output, UINT64 index,
        double *tolerance);

struct reference
{
    DML_OPERATOR_TYPE type;
    reference_fn *value;
    double (*cpu)(double a, double b);  /* element-wise: the operation */
    double tolerance;                   /* element-wise: relative, on top of fp16 output rounding */
    bool all_types;                     /* exact in every type (movers: the values are small integers or
                                         * floats of the type); else FLOAT32 and FLOAT16 only */
    bool all_outputs;                   /* checks every output (SPLIT's parts); else the first only */
};

/* One element as `type` stores it; integers little-endian, from an integral value. */
void store_value(void *dst, double value, DML_TENSOR_DATA_TYPE type);
/* `value` of [-1, 1) as `type` holds it: rounded for floats, spread for integers (operators.c's top). */
double typed_value(DML_TENSOR_DATA_TYPE type, double value);
/* `strides` NULL: packed. */
void tensor_init(struct tensor *t, DML_TENSOR_DATA_TYPE type, UINT rank, const UINT *sizes, const UINT *strides);
/* Element offset of the element with row-major linear index `index`. */
UINT64 tensor_offset(const struct tensor *t, UINT64 index);
const struct vkdml_field_schema *field_named(const struct vkdml_op_schema *schema, const char *name);
/* Points the desc's array `name` (UINT, INT or FLOAT), when it has one, at `values`; sets its count field. */
void set_array_field(struct workload *w, const char *name, const void *values, UINT count);
/* Sets the desc's UINT, INT, BOOL or enum attribute `name`, when it has one. */
void set_uint_field(struct workload *w, const char *name, UINT value);
/* The shape's axes, the last one when it names none. */
const char *reduction_axes(struct workload *w);
/* Convolution-like shapes: the window RxS[xSTRIDE[xPAD]] at dims[first] after the image {N, C, H, W};
 * fills the 2-D attribute arrays, the desc's fields that take them, and the output's spatial sizes.
 * NULL, or what is wrong. */
const char *window_geometry(struct workload *w, UINT first, UINT *spatial);
/* Rounds a reference value as the output type stores it, widening the tolerance by that rounding. */
double output_rounding(const struct workload *w, double value, double *tolerance);

/* The families' own files: the family of a schema name (NULL: not theirs) and the reference of an
 * operator type (NULL: none), one row each in operators.c's family_files. */

/* movement.c: issue 19's operators (data movement, indexing, casting, generators). */
const struct family *movement_family(const char *schema_name);
const struct reference *movement_reference(DML_OPERATOR_TYPE type);
/* roi.c: ROI_POOLING, ROI_ALIGN, ROI_ALIGN1. */
const struct family *roi_family(const char *schema_name);
const struct reference *roi_reference(DML_OPERATOR_TYPE type);
/* mvn.c: issue 20's mean-variance and Lp normalizations. */
const struct family *mvn_family(const char *schema_name);
const struct reference *mvn_reference(DML_OPERATOR_TYPE type);
/* resample.c: issue 20's resampling operators (UPSAMPLE_2D, RESAMPLE to RESAMPLE3). */
const struct family *resample_family(const char *schema_name);
const struct reference *resample_reference(DML_OPERATOR_TYPE type);
/* pooling.c: issue 20's pooling operators. */
const struct family *pooling_family(const char *schema_name);
const struct reference *pooling_reference(DML_OPERATOR_TYPE type);
/* normalization.c: issue 20's BATCH_NORMALIZATION, LOCAL_RESPONSE_NORMALIZATION, MAX_UNPOOLING. */
const struct family *normalization_family(const char *schema_name);
const struct reference *normalization_reference(DML_OPERATOR_TYPE type);

#endif /* VKDML_BENCH_OPERATORS_H */
