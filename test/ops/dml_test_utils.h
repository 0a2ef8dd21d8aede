/*
 * A small harness for operator conformance tests, black-box through the public API: a shim
 * D3D12 device (vkdml_create_d3d12_device) with a queue, allocator, list and fence
 * (../d3d12/d3d12_test.h), a DML device, a command recorder and a shader-visible descriptor heap;
 * tensor descs; UAV buffers with upload/readback; and "run this compiled operator on these
 * buffers" (initialize once, bind, RecordDispatch, execute, wait). Host fp16 conversion and the
 * deterministic random generator come from test/reference, which vkdml-bench shares.
 *
 * Every helper asserts (cmocka) on failure; the teardown fails the test unless every object's
 * final Release returns 0 and nothing unexpected was logged. dml_test_utils.c defines the
 * DirectML and D3D12 IIDs (INITGUID): a test linking it must not define INITGUID itself.
 */
#ifndef VKDML_TEST_OPS_DML_TEST_UTILS_H
#define VKDML_TEST_OPS_DML_TEST_UTILS_H

#ifndef COBJMACROS
# define COBJMACROS
#endif
#include <DirectML.h>

#include "d3d12/d3d12_test.h"
#include "reference/fp16.h"
#include "reference/rng.h"

#ifndef ARRAY_SIZE
# define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#define DML_TEST_DESCRIPTORS 64

struct dml_test_context
{
    struct test_context d3d;            /* first: d3d12_test.h's helpers take &context->d3d */
    IDMLDevice *dml;
    IDMLCommandRecorder *recorder;
    ID3D12DescriptorHeap *heap;         /* shader-visible CBV_SRV_UAV, DML_TEST_DESCRIPTORS */
    UINT increment;
};

/* cmocka setup/teardown of a fresh context per test (state is a struct dml_test_context *). */
int dml_test_setup(void **state);
int dml_test_teardown(void **state);

/* CheckFeatureSupport(DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT). */
bool dml_test_data_type_supported(struct dml_test_context *context, DML_TENSOR_DATA_TYPE type);

/* ---- Tensors ---- */

struct dml_test_tensor
{
    UINT sizes[DML_TENSOR_DIMENSION_COUNT_MAX1];
    UINT strides[DML_TENSOR_DIMENSION_COUNT_MAX1];
    DML_BUFFER_TENSOR_DESC buffer;
    DML_TENSOR_DESC desc;               /* points at buffer: never copy a dml_test_tensor by value */
};

/* `strides` NULL: packed (Strides = NULL in the desc). TotalTensorSizeInBytes is
 * DMLCalcBufferTensorSize's value. */
void dml_test_tensor_init(struct dml_test_tensor *tensor, DML_TENSOR_DATA_TYPE type, UINT rank, const UINT *sizes,
        const UINT *strides);
/* The 11 data types DirectML has, and the 4 types index tensors take (INT32, UINT32, INT64,
 * UINT64): the loops of tests that cover every type. */
extern const DML_TENSOR_DATA_TYPE dml_test_all_types[11];
extern const DML_TENSOR_DATA_TYPE dml_test_index_types[4];
/* Bytes per element (FLOAT16: 2, ...). */
unsigned int dml_test_element_size(DML_TENSOR_DATA_TYPE type);
UINT64 dml_test_element_count(const struct dml_test_tensor *tensor);
/* Element offset (in elements) of the element with row-major linear index `index`. */
UINT64 dml_test_element_offset(const struct dml_test_tensor *tensor, UINT64 index);
/* Where logical element `index` of a {rank, sizes} tensor sits for a reduction over the axes in
 * `mask`: its row (the kept coordinates, row-major) and its entry (the reduced ones, row-major). */
void dml_test_row_and_entry(UINT rank, const UINT *sizes, uint32_t mask, size_t index, size_t *row, size_t *entry);
const char *dml_test_type_name(DML_TENSOR_DATA_TYPE type);

/* ---- Buffers: DEFAULT heap, ALLOW_UNORDERED_ACCESS, kept in UNORDERED_ACCESS ---- */

/* `size` bytes (rounded up to 4), initialized from `data` (`size` bytes) or zero-filled. */
ID3D12Resource *dml_test_create_buffer(struct dml_test_context *context, UINT64 size, const void *data);
void dml_test_write_buffer(struct dml_test_context *context, ID3D12Resource *buffer, UINT64 offset,
        const void *data, size_t size);
void dml_test_read_buffer(struct dml_test_context *context, ID3D12Resource *buffer, UINT64 offset,
        void *data, size_t size);

/* ---- Operators ---- */

/* IDMLDevice::CreateOperator; returns its HRESULT (the operator is NULL on failure). */
HRESULT dml_test_create_operator(struct dml_test_context *context, DML_OPERATOR_TYPE type, const void *desc,
        IDMLOperator **op);
/* CreateOperator + CompileOperator, asserting success; the operator is released (the compiled
 * operator keeps its own reference). */
IDMLCompiledOperator *dml_test_compile(struct dml_test_context *context, DML_OPERATOR_TYPE type, const void *desc,
        DML_EXECUTION_FLAGS flags);
/* dml_test_compile with TRACE logging captured during compilation, which is how tests see the
 * kernel a family picked: an error or validation message logged meanwhile fails the test, and
 * `trace` receives the rest of the last TRACE message that starts with `prefix` ("" when none:
 * -Dtrace-messages=false compiles them out). */
IDMLCompiledOperator *dml_test_compile_traced(struct dml_test_context *context, DML_OPERATOR_TYPE type,
        const void *desc, DML_EXECUTION_FLAGS flags, const char *prefix, char *trace, size_t trace_size);

/* A binding table for `dispatchable` (a compiled operator or initializer) at the start of the
 * context's descriptor heap. */
IDMLBindingTable *dml_test_create_table(struct dml_test_context *context, void *dispatchable);
/* Binds a fresh temporary resource when the dispatchable needs one; returns it (or NULL). */
ID3D12Resource *dml_test_bind_temporary(struct dml_test_context *context, IDMLBindingTable *table, void *dispatchable);

/* A buffer range to bind; buffer NULL binds DML_BINDING_TYPE_NONE. size 0 means "to the end". */
struct dml_test_binding
{
    ID3D12Resource *buffer;
    UINT64 offset;
    UINT64 size;
};

/* Guard regions (issue 19's safety tests): a buffer with DML_TEST_GUARD_BYTES of a known pattern
 * on both sides of `size` bytes (initialized from `data` or zeroed); `binding` gets the range in
 * between. dml_test_check_guards() fails the test if a kernel wrote outside it. */
#define DML_TEST_GUARD_BYTES 4096
#define DML_TEST_GUARD_PATTERN 0xa5
void dml_test_create_guarded(struct dml_test_context *context, UINT64 size, const void *data,
        struct dml_test_binding *binding);
void dml_test_check_guards(struct dml_test_context *context, const struct dml_test_binding *binding);


/* Runs an initializer for `op`; returns its persistent resource (NULL when it needs none).
 * `owned` (may be NULL) binds the operator's OWNED_BY_DML inputs, `owned_count` of them. */
ID3D12Resource *dml_test_initialize(struct dml_test_context *context, IDMLCompiledOperator *op,
        const struct dml_test_binding *owned, UINT owned_count);
/* Binds (temporary resource as needed), records, executes and waits; asserts no device removal. */
void dml_test_execute(struct dml_test_context *context, IDMLCompiledOperator *op, ID3D12Resource *persistent,
        const struct dml_test_binding *inputs, UINT input_count, const struct dml_test_binding *outputs,
        UINT output_count);
/* Initialize + execute once + release the persistent resource. */
void dml_test_run(struct dml_test_context *context, IDMLCompiledOperator *op, const struct dml_test_binding *inputs,
        UINT input_count, const struct dml_test_binding *outputs, UINT output_count);

/* CreateOperator of a desc a test just edited: the tensors' buffer sizes are updated first
 * (dml_test_update_sizes: only the rule under test may fail, not the buffer size) and the log
 * cleared; an operator created is released. Returns CreateOperator's HRESULT. */
HRESULT dml_test_try_create(struct dml_test_context *context, DML_OPERATOR_TYPE type, const void *desc,
        struct dml_test_tensor *const *tensors, UINT tensor_count);
/* `hr` (dml_test_try_create) is E_INVALIDARG, with exactly one error log line containing `message`. */
#define dml_test_check_bad(hr, message) \
    do { \
        check_hr(hr, E_INVALIDARG); \
        check_one_error(message); \
    } while (0)
/* CreateOperator fails with E_INVALIDARG, returns no operator and logs `message` (a desc rule). */
void dml_test_expect_invalid(struct dml_test_context *context, DML_OPERATOR_TYPE type, const void *desc,
        const char *message);
/* Sets each desc's TotalTensorSizeInBytes for its current type, sizes and strides: after a test
 * changed them, only the rule under test may fail, not the buffer size. */
void dml_test_update_sizes(struct dml_test_tensor *const *tensors, UINT count);

/* ---- FLOAT32 / FLOAT16 tensors with host values (the GEMM and CONVOLUTION references) ---- */

/* Shared by the tests whose references read random inputs through their own strides. */
struct dml_test_float_tensor
{
    struct dml_test_tensor t;
    size_t span;                        /* elements from index 0 to the last one addressed */
    float *values;                      /* [span], as stored (already rounded to FLOAT16) */
};

/* `rank` dimensions (strides NULL: packed), flagged `flags`; every value of the span uniform in
 * [-1, 1] from `seed`. */
void dml_test_float_tensor_init(struct dml_test_float_tensor *tensor, DML_TENSOR_DATA_TYPE type, UINT rank,
        const UINT *sizes, const UINT *strides, DML_TENSOR_FLAGS flags, unsigned int seed);
void dml_test_float_tensor_cleanup(struct dml_test_float_tensor *tensor);
/* The buffer's bytes: `values` in the tensor's data type, zero padded to TotalTensorSizeInBytes
 * (free()); constant nodes of graphs take them. */
void *dml_test_float_tensor_bytes(const struct dml_test_float_tensor *tensor);
/* Element `index` of FLOAT32 or FLOAT16 `bytes`. */
float dml_test_read_float(const void *bytes, DML_TENSOR_DATA_TYPE type, size_t index);
/* True, with a message, for a FLOAT16 case on a device without FLOAT16 tensors (other types run). */
bool dml_test_skip_float16(struct dml_test_context *context, DML_TENSOR_DATA_TYPE type, const char *name);

/* The buffers of an operator's `count` inputs; NULL tensors stay unbound. OWNED_BY_DML ones go
 * only into UPLOAD buffers (GENERIC_READ, what DirectML allows for them) bound to the initializer
 * (`owned`), the others into DEFAULT buffers bound at execution (`inputs`); both arrays start
 * zeroed. */
void dml_test_create_input_buffers(struct dml_test_context *context,
        const struct dml_test_float_tensor *const *tensors, UINT count, struct dml_test_binding *inputs,
        struct dml_test_binding *owned);
/* Overwrites the `owned` upload buffers after initialization: the weights now live in the
 * persistent resource, and the operator must still give the same results. */
void dml_test_scribble_owned(const struct dml_test_binding *owned, const struct dml_test_float_tensor *const *tensors,
        UINT count);
/* Final Release of each bound buffer (the bindings are left empty). */
void dml_test_release_bindings(struct dml_test_binding *bindings, UINT count);

/* Fusible activations with fixed attributes, for the FusedActivation of GEMM and CONVOLUTION. */
extern const DML_OPERATOR_DESC dml_test_relu, dml_test_sigmoid, dml_test_tanh, dml_test_leaky_relu, dml_test_elu,
        dml_test_linear, dml_test_hard_sigmoid, dml_test_clip;
/* `activation` (NULL: none) of x in double, and a bound of its slope (for the tolerance). */
double dml_test_fused_activation(const DML_OPERATOR_DESC *activation, double x, double *slope);
/* The tolerance of an output that sums `terms` products (their magnitudes summing to `magnitude`)
 * into `value` after an activation of slope `slope`, in `type`, accumulated in fp32, or in fp16
 * where `flags` allow half-precision computation. */
double dml_test_sum_tolerance(DML_TENSOR_DATA_TYPE type, DML_EXECUTION_FLAGS flags, UINT terms, double magnitude,
        double value, double slope);

/* ---- Host data (fp16 conversion and the random generator: reference/fp16.h, reference/rng.h) ---- */

/* Sets (value NULL: removes) an environment variable. */
void dml_test_set_env(const char *name, const char *value);
/* Sets (NULL: removes) a debug knob that a DML device reads when it is created (VKDML_GEMM_KERNEL,
 * VKDML_GEMM_TUNE, VKDML_CONV_KERNEL, VKDML_CONV_TUNE, VKDML_GRAPH_OPT) and, when that changes its value, gives the
 * context a new DML device and recorder that read it: every object of the old device must be
 * released by then (asserted). dml_test_teardown removes these knobs, so a failed test leaves
 * none set. */
void dml_test_set_knob(struct dml_test_context *context, const char *name, const char *value);

#endif /* VKDML_TEST_OPS_DML_TEST_UTILS_H */
