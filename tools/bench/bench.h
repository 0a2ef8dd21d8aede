/*
 * What vkdml-bench's files share: the bench's state, results, presets, and each file's entry points.
 * operators.h describes workloads; this header runs and reports them.
 */
#ifndef VKDML_BENCH_BENCH_H
#define VKDML_BENCH_BENCH_H

#define COBJMACROS
#include "operators.h"
#include "tool_d3d12.h"

#include <stdatomic.h>
#include <stdio.h>

#ifdef VKDML_BENCH_NO_VULKAN
# include "vkdml.h"
#else
# include "vkdml_vulkan.h"
#endif

#define TABLE_DESCRIPTORS 16        /* per binding-table region of the heap */
#define HEAP_REGIONS 4              /* initializer, workload, the chain's two tables */
#define MAX_BATCH 64u               /* dispatches per command list (and profiler slots) */
#define CHECK_SAMPLES 4096u
#define CHAIN_LENGTH 100u
#define CHAIN_ELEMENTS 1024u
#define RECORD_CALLS 1000u
#define RECORD_REPEATS 5u
#define MAX_ANCHORS 128u
/* A GPU raises its clocks only after sustained load: on the H200, 1 GiB ADDs ran at 42% of full
 * speed for the first 100-130 ms after the seconds of idle that filling inputs takes. So the
 * warm-up lasts this long as well as --warmup dispatches. */
#define DEFAULT_WARMUP_MS 300.0

/* Exits after a message naming `what` and the line. */
void fatal_hr(HRESULT hr, const char *what, int line);
/* For the bench's own plumbing (queues, lists, fences): nothing sensible follows a failure. */
#define CHECK(expr) do { HRESULT hr_ = (expr); if (FAILED(hr_)) fatal_hr(hr_, #expr, __LINE__); } while (0)

/* ---- Presets (presets.c) ---- */

enum group
{
    GROUP_GPU = 0x1,                    /* the default list on a GPU (tools/run-gpu-bench.sh) */
    GROUP_MEMORY = 0x2,                 /* memory-bound operators at >= 256 MiB */
    GROUP_GEMM = 0x4,
    GROUP_CONV = 0x8,
    GROUP_SMOKE = 0x10,                 /* tiny, for `meson test` on lavapipe */
    GROUP_MOVEMENT = 0x20,              /* issue 19's data movement, indexing and casting presets */
    GROUP_POOLING_NORM = 0x40,          /* issue 20's pooling, normalization and resampling presets */
    GROUP_GRAPH = 0x80,                 /* issue 21's networks through CompileGraph (graph.c) */
};

/* A --list/selection group: presets whose `groups` have a bit of `mask`. */
struct preset_group
{
    const char *name;
    unsigned int mask;
};

#define DISPATCH_OP "small-dispatch"
#define BARE_ADD_OP "bare-vulkan-add"

struct preset
{
    const char *name;
    const char *op;                     /* an --op name, or DISPATCH_OP, BARE_ADD_OP */
    DML_TENSOR_DATA_TYPE type;
    const char *shape;
    bool broadcast;
    unsigned int groups;
    double anchor;                      /* performance.md, in the family's unit; 0: none */
    const char *anchor_source;
    double target;                      /* performance.md's first bar, as a ratio to the anchor; 0: none */
    double copy_bar;                    /* ... and as a ratio to the run's copy bandwidth (COPY_PRESET); 0: none */
    const char *function;               /* the operator's mode (--mode): REDUCE's function, PADDING's mode...;
                                         * NULL: its default */
};

/* The preset whose bandwidth is the run's copy bandwidth (performance.md's bare-Vulkan copy): a
 * selection with a preset held to it (copy_bar) runs it too, first. */
#define COPY_PRESET "bare-add-256MiB"

/* Targets of the small-dispatch measurements (performance.md). */
#define TARGET_DISPATCH_US 5.0
#define TARGET_RECORD_RATIO 2.0

extern const struct preset presets[];
extern const size_t preset_count;
extern const struct preset_group groups[];
extern const size_t group_count;

/* presets[] has at most this many entries (struct selection). */
#define MAX_PRESETS 192u

/* ---- Results ---- */

enum status
{
    STATUS_OK,
    STATUS_SKIPPED,
    STATUS_FAILED,
};

struct result
{
    char name[96];
    char op[48];
    char operator_name[64];             /* the profiler's name: the DML operator type */
    DML_TENSOR_DATA_TYPE type;
    char shape[64];
    bool broadcast;
    enum status status;
    char reason[256];
    bool strict;                        /* a preset's: E_NOTIMPL fails it */
    unsigned int iterations, warmup;
    double gpu_min_us, gpu_median_us, gpu_p90_us;
    double record_us;                   /* CPU, one RecordDispatch */
    double bytes, flops, rate;
    bool compute_bound;                 /* rate in TFLOP/s, else GB/s */
    double anchor;                      /* in the rate's unit; 0: none */
    char anchor_source[128];
    bool anchor_measured;               /* from --anchor-ms, in this run */
    double doc_anchor;                  /* performance.md's, kept beside a measured one */
    double ratio, doc_ratio, target;
    double copy_rate, copy_ratio, copy_bar; /* the run's copy bandwidth (GB/s; 0: not measured), rate / it */
    int check;                          /* -1 not run, 0 mismatch, 1 pass */
    bool no_reference;                  /* --check, but the bench has no CPU reference for it */
    UINT64 checked, mismatches;
};

struct dispatch_result
{
    enum status status;
    char reason[256];
    unsigned int chain_length, elements, runs;
    double shim_gpu_us;                 /* per dispatch, shim command list (profiler first/last) */
    double shim_record_us;              /* CPU per IDMLCommandRecorder::RecordDispatch */
    bool have_raw;
    char raw_reason[256];               /* why the raw-Vulkan part did not run */
    double embed_gpu_us, bare_gpu_us;   /* per dispatch, own timestamps */
    double embed_record_us, bare_record_us;
    int check;
};

struct trace_event
{
    char name[64];
    unsigned int tid;
    uint64_t start_ns, end_ns;
};

struct anchor_override
{
    char name[64];
    double ms;
};

struct graph_result;

/* ---- The bench: options, the shim device, what was measured ---- */

struct bench
{
    /* Options */
    const char *selector;
    unsigned int iterations, warmup;
    double warmup_ms;
    bool check, quiet, progress_tty;
    const char *json_path, *markdown_path, *trace_path;
    const char *anchor_source;
    struct anchor_override anchors[MAX_ANCHORS];
    unsigned int anchor_count;
    FILE *text;                         /* the table: stdout, or stderr when JSON goes to stdout */

    /* The device */
    int adapter_index;
    struct vkdml_adapter_info adapter;
    ID3D12Device *device;
    ID3D12CommandQueue *queue;
    ID3D12Fence *fence;
    UINT64 fence_value;
    ID3D12CommandAllocator *setup_allocator, *timed_allocator;
    ID3D12GraphicsCommandList *setup_list, *timed_list;   /* both closed when idle */
    ID3D12DescriptorHeap *heap;
    UINT increment;
    IDMLDevice *dml;
    IDMLCommandRecorder *recorder;

    /* Results */
    struct result *results;
    unsigned int result_count;
    double copy_rate;                   /* GB/s of COPY_PRESET in this run; 0: not measured (yet) */
    struct dispatch_result dispatch;
    bool dispatch_run;
    struct graph_result *graphs;        /* graph.c's presets */
    unsigned int graph_count;
    struct trace_event *trace;
    size_t trace_count, trace_capacity;
    unsigned int position, total;       /* progress */
};

/* The chain's ADD (x, bias -> y), compiled and initialized on the shim device, its buffers, and
 * its two tables: x + bias -> y (even steps) and y + bias -> x (odd steps). */
struct chain
{
    struct workload w;
    IDMLCompiledOperator *compiled;
    ID3D12Resource *persistent, *x, *bias, *y;
    IDMLBindingTable *tables[2];
    float x0[CHAIN_ELEMENTS], bias0[CHAIN_ELEMENTS], expected[CHAIN_ELEMENTS];
};

struct selection
{
    bool chosen[MAX_PRESETS];
    unsigned int count;
    const char *ops, *shape;            /* --op, --shape */
    DML_TENSOR_DATA_TYPE type;          /* UNKNOWN: each operator's default */
    const char *function;               /* --reduce-function; NULL: none */
    bool all_types, broadcast, list;
};


/* The --op workloads: an operator in one type each. */
struct op_job
{
    const struct op_info *op;
    DML_TENSOR_DATA_TYPE type;
};

struct plan
{
    struct op_job *jobs;
    unsigned int count, capacity;
};


/* Validation messages logged so far (vkdml's and the bare device's): any fails the run. */
extern atomic_uint validation_messages;

/* ---- The command line (options.c) ---- */

void list_presets(void);
void list_operators(const char *selector);
bool select_names(struct selection *s, const char *list);
/* Adds COPY_PRESET to a selection with a preset held to the copy bandwidth. */
void select_copy_baseline(struct selection *s);
int parse_options(struct bench *b, struct selection *s, int argc, char **argv);
int plan_op_jobs(struct plan *plan, const struct selection *s);
const char *job_shape(const struct bench *b, const struct selection *s, const struct op_info *op);

/* ---- Presets (presets.c) ---- */

const struct preset *find_preset(const char *name);
/* Whether the preset's operator is still being written (presets.c's list): E_NOTIMPL skips such a
 * preset and fails any other. */

/* ---- Running workloads (runner.c) ---- */

uint64_t now_ns(void);
void statistics(double *values, unsigned int count, double *min, double *median, double *p90);
double median_of(double *values, unsigned int count);
bool skip(struct result *r, const char *format, ...);
bool fail(struct result *r, const char *format, ...);
void progress_update(struct bench *b, const char *name, const char *what, unsigned int done,
        unsigned int total);
void warm_up(struct bench *b, unsigned int batch, void (*execute)(void *context), void *context);
void add_trace_event(struct bench *b, const struct vkdml_profiler_entry *entry, unsigned int tid);
/* The preset's --anchor-ms figure; 0 when none was given. */
double anchor_override_ms(const struct bench *b, const char *name);
void derive_rates(const struct bench *b, const struct preset *preset, struct result *r);
int verdict(const struct result *r);
void run_selection(struct bench *b, const struct selection *s, const struct plan *plan);

/* ---- The shim device and D3D12 plumbing (device.c) ---- */

void execute_and_wait(struct bench *b, ID3D12GraphicsCommandList *list);
void warm_up_list(struct bench *b, ID3D12GraphicsCommandList *list, unsigned int batch);
void begin_list(struct bench *b, ID3D12CommandAllocator *allocator, ID3D12GraphicsCommandList *list);
ID3D12Resource *create_buffer(struct bench *b, D3D12_HEAP_TYPE type, UINT64 size, D3D12_RESOURCE_STATES state);
ID3D12Resource *upload_buffer(struct bench *b, const float *values, size_t count, DML_TENSOR_DATA_TYPE type);
ID3D12Resource *read_back(struct bench *b, ID3D12Resource *buffer, UINT64 size, void **mapped);
void unmap_and_release(ID3D12Resource *readback);
HRESULT create_table(struct bench *b, void *dispatchable, UINT region, IDMLBindingTable **table);
HRESULT create_optional_buffer(struct bench *b, UINT64 size, ID3D12Resource **buffer);
HRESULT initialize_operator(struct bench *b, IDMLCompiledOperator *op, ID3D12Resource **persistent);
HRESULT compile_workload(struct bench *b, struct workload *w, IDMLCompiledOperator **compiled);
bool type_supported(struct bench *b, DML_TENSOR_DATA_TYPE type);
int create_device(struct bench *b);
bool destroy_device(struct bench *b);

/* ---- The small-dispatch workload (dispatch.c) ---- */

bool chain_matches(const float *got, const float *expected, const char *what);
void run_small_dispatch(struct bench *b);

/* ---- Bare-Vulkan baselines (bare.c) ---- */

void run_raw_dispatch(struct bench *b, struct chain *c, struct dispatch_result *d);
void run_bare_add(struct bench *b, const struct preset *p, struct result *r);

/* ---- Outputs (report.c) ---- */

extern const char *const status_names[];  /* by enum status */
/* "-" (not run), "pass" or "MISMATCH". */
const char *check_text(int check);
void json_string(FILE *f, const char *s);
void json_number(FILE *f, double value, bool zero_is_null);
void print_header(struct bench *b);
void print_result(struct bench *b, const struct result *r);
void print_dispatch(struct bench *b, const struct dispatch_result *d);
bool write_file(struct bench *b, const char *path, void (*writer)(struct bench *b, FILE *f, bool ok), bool ok);
void json_writer(struct bench *b, FILE *f, bool ok);
void markdown_writer(struct bench *b, FILE *f, bool ok);
void trace_writer(struct bench *b, FILE *f, bool ok);

#endif /* VKDML_BENCH_BENCH_H */
