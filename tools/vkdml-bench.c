/*
 * vkdml-bench: operator speed through the public DirectML API, timed with GPU timestamps.
 *
 * Each workload (a named preset, or --op/--shape/--type: any operator vkdml-bench-ops.c can build)
 * is created, compiled and initialized on a D3D12 device of vkdml's shim exactly as a DirectML
 * application does it (vkdml-demo is the pattern). Inputs hold pseudo-random values: zeros would
 * flatter GEMMs, whose tensor cores draw less power on them. One command list holds a batch of
 * RecordDispatch calls, each followed by a UAV barrier, with a vkdml profiler attached
 * (vkdml_command_list_set_profiler), which writes a GPU timestamp before and after every dispatch. The list runs for the warm-up, then until N timed
 * dispatches have run, the profiler being read after each execution. Reported: min / median / p90
 * GPU time, GB/s or TFLOP/s, the ratio to the anchor (performance.md's PyTorch/cuBLAS/cuDNN figure
 * on the H200, or the time of the same workload measured in the same run, --anchor-ms), and the
 * CPU time of one RecordDispatch (median over the batch's calls). --check compares the output
 * with a CPU reference where the bench has one (every element, or for GEMM, convolution and
 * softmax 4096 sampled ones), and says so where it has none.
 *
 * Bytes are what the operator must move at least: each input's TotalTensorSizeInBytes (a
 * broadcast input counts once) plus the output's. Flops: 2·M·N·K for GEMM, 2·N·K·OH·OW·C·R·S for
 * convolution; the other operators, and GEMMs with M or N at most 8 (GEMVs), are rated in GB/s.
 *
 * The small-dispatch workload measures fixed costs: a chain of CHAIN_LENGTH dependent ADDs of
 * CHAIN_ELEMENTS floats, ping-ponging between two buffers with a UAV barrier after each, timed by
 * the profiler around the first and the last dispatch only (per-dispatch timestamps would add
 * their own cost); and the CPU cost of RecordDispatch against a bare vkCmdBindPipeline +
 * vkCmdPushConstants + vkCmdDispatch. The bare side needs raw Vulkan: a Vulkan device of the
 * bench's own on the same GPU (system loader), with vkdml embedded on it (vkdml_vulkan.h), runs the
 * same chain recorded with vkdml_record_dispatch_vk and with a bare kernel doing the same
 * addition (vkdml-bench-bare.comp), both timed with the bench's own timestamps.
 *
 * Operators come from vkdml-bench-ops.c's catalogue (every DML_OPERATOR_TYPE, built from the
 * operator schema); named workloads are lines in `presets`.
 */
#define COBJMACROS
#include "vkdml-bench.h"
#include "tool_d3d12.h"

#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
# include <dlfcn.h>
#endif

#ifdef VKDML_BENCH_NO_VULKAN
# include "vkdml.h"
#else
# include "vkdml_vulkan.h"
# include "vkdml-bench-bare.h"
#endif

#define TABLE_DESCRIPTORS 16        /* per binding-table region of the heap */
#define HEAP_REGIONS 4              /* initializer, workload, the chain's two tables */
#define MAX_BATCH 64u               /* dispatches per command list (and profiler slots) */
#define CHECK_SAMPLES 4096u
#define CHAIN_LENGTH 100u
#define CHAIN_ELEMENTS 1024u
#define RECORD_CALLS 1000u
#define RECORD_REPEATS 5u
#define MAX_ANCHORS 64u
/* A GPU raises its clocks only after sustained load: on the H200, 1 GiB ADDs ran at 42% of full
 * speed for the first 100-130 ms after the seconds of idle that filling inputs takes. So the
 * warm-up lasts this long as well as --warmup dispatches. */
#define DEFAULT_WARMUP_MS 300.0

static void fatal_hr(HRESULT hr, const char *what, int line)
{
    fprintf(stderr, "vkdml-bench: %s failed (line %d): HRESULT %#x\n", what, line, (unsigned int)hr);
    exit(1);
}
/* For the bench's own plumbing (queues, lists, fences): nothing sensible follows a failure. */
#define CHECK(expr) do { HRESULT hr_ = (expr); if (FAILED(hr_)) fatal_hr(hr_, #expr, __LINE__); } while (0)

/* ---- Small helpers ---- */

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* Sorts `values`; nearest-rank percentiles. */
static void statistics(double *values, unsigned int count, double *min, double *median, double *p90)
{
    unsigned int rank90 = (unsigned int)ceil(0.9 * count);

    qsort(values, count, sizeof(*values), compare_doubles);
    *min = values[0];
    *median = count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
    *p90 = values[rank90 ? rank90 - 1 : 0];
}

static double median_of(double *values, unsigned int count)
{
    double min, median, p90;

    statistics(values, count, &min, &median, &p90);
    return median;
}

/* ---- Logging: validation messages fail the run ---- */

static atomic_uint validation_messages;

static void log_callback(void *user_data, enum vkdml_log_level level, enum vkdml_log_source source,
        const char *function, const char *message)
{
    static const char *const names[] = {"none", "err", "fixme", "warn", "info", "trace"};

    if (source == VKDML_LOG_SOURCE_VALIDATION)
        atomic_fetch_add(&validation_messages, 1);
    fprintf(stderr, "vkdml:%s:%s: %s\n", (unsigned int)level < ARRAY_SIZE(names) ? names[level] : "?", function,
            message);
}

/* Under ASan (the `bench smoke` test in a sanitizer build), as the tests do: the loader dlcloses
 * lavapipe, which leaks a little per load, and LeakSanitizer can only suppress (test/lsan.supp)
 * leaks of code still mapped. */
static void pin_vulkan_driver(void)
{
#if defined(__SANITIZE_ADDRESS__)
    dlopen("libvulkan_lvp.so", RTLD_NOW | RTLD_NODELETE);
#endif
}

/* ---- Presets ---- */

enum group
{
    GROUP_GPU = 0x1,                    /* the default list on a GPU (tools/run-gpu-bench.sh) */
    GROUP_MEMORY = 0x2,                 /* memory-bound operators at >= 256 MiB */
    GROUP_GEMM = 0x4,
    GROUP_CONV = 0x8,
    GROUP_SMOKE = 0x10,                 /* tiny, for `meson test` on lavapipe */
};

static const struct
{
    const char *name;
    unsigned int mask;
}
groups[] =
{
    {"gpu", GROUP_GPU}, {"memory", GROUP_MEMORY}, {"gemm", GROUP_GEMM}, {"conv", GROUP_CONV},
    {"smoke", GROUP_SMOKE}, {"all", ~0u},
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
};

#define GPU_MEM (GROUP_GPU | GROUP_MEMORY)
#define GPU_GEMM (GROUP_GPU | GROUP_GEMM)
#define GPU_CONV (GROUP_GPU | GROUP_CONV)
/* performance.md measured PyTorch's element-wise operators in fp32 only: fp16 and broadcast cases
 * are held to the same bandwidth. IDENTITY (a copy) is held to RELU's, the same traffic. */
static const struct preset presets[] =
{
    {"add-256MiB", "add", FP32, "67108864", false, GPU_MEM, 4294, "PyTorch add fp32 64Mi", 0.9},
    /* vkdml's ADD against a plain Vulkan kernel's, same bytes, same timing: what Vulkan itself allows. */
    {"bare-add-256MiB", BARE_ADD_OP, FP32, "67108864", false, GPU_MEM, 4294, "PyTorch add fp32 64Mi", 0.9},
    {"add-256MiB-fp16", "add", FP16, "134217728", false, GPU_MEM, 4294, "PyTorch add fp32 64Mi, as bandwidth", 0.9},
    {"add-broadcast-256MiB", "add", FP32, "8192x8192", true, GPU_MEM, 4294, "PyTorch add fp32 64Mi, as bandwidth",
            0.9},
    {"add-broadcast-256MiB-fp16", "add", FP16, "8192x16384", true, GPU_MEM, 4294,
            "PyTorch add fp32 64Mi, as bandwidth", 0.9},
    {"multiply-256MiB", "multiply", FP32, "67108864", false, GPU_MEM, 4294, "PyTorch add fp32 64Mi, as bandwidth", 0.9},
    {"relu-256MiB", "relu", FP32, "67108864", false, GPU_MEM, 4148, "PyTorch relu fp32 64Mi", 0.9},
    {"relu-256MiB-fp16", "relu", FP16, "134217728", false, GPU_MEM, 4148, "PyTorch relu fp32 64Mi, as bandwidth", 0.9},
    {"identity-256MiB", "identity", FP32, "67108864", false, GPU_MEM, 4148, "PyTorch relu fp32 64Mi, as bandwidth",
            0.9},
    {"identity-256MiB-fp16", "identity", FP16, "134217728", false, GPU_MEM, 4148,
            "PyTorch relu fp32 64Mi, as bandwidth", 0.9},
    /* 1 GiB per tensor: what fixed costs remain at 256 MiB. */
    {"add-1GiB", "add", FP32, "268435456", false, GPU_MEM, 4294, "PyTorch add fp32 64Mi, as bandwidth", 0.9},
    {"identity-1GiB", "identity", FP32, "268435456", false, GPU_MEM, 4148, "PyTorch relu fp32 64Mi, as bandwidth", 0.9},
    {"softmax-8192", "softmax1", FP32, "8192x8192", false, GPU_MEM, 1938, "PyTorch softmax fp32 8192^2", 0.9},
    {"gemm-4096-fp32", "gemm", FP32, "4096x4096x4096", false, GPU_GEMM, 51.4, "cuBLAS fp32 (TF32 off) 4096^3", 0.6},
    {"gemm-8192-fp32", "gemm", FP32, "8192x8192x8192", false, GPU_GEMM, 51.0, "cuBLAS fp32 (TF32 off) 8192^3", 0.6},
    {"gemm-4096-fp16", "gemm", FP16, "4096x4096x4096", false, GPU_GEMM, 748, "cuBLAS fp16 4096^3", 0.35},
    {"gemm-1024-fp16", "gemm", FP16, "1024x1024x1024", false, GPU_GEMM, 202, "cuBLAS fp16 1024^3", 0},
    {"gemm-64-fp32", "gemm", FP32, "64x64x64", false, GPU_GEMM | GROUP_SMOKE, 0, NULL, 0},
    /* Batch-1 inference (M = 1): bound by reading B once, so rated in GB/s, against add's bandwidth. */
    {"gemv-4096-fp32", "gemm", FP32, "1x4096x4096", false, GPU_GEMM, 0, NULL, 0},
    {"gemv-4096-fp16", "gemm", FP16, "1x4096x4096", false, GPU_GEMM, 0, NULL, 0},
    {"conv-resnet50", "convolution", FP32, "32x64x56x56x64x3x3", false, GPU_CONV, 30.7, "cuDNN fp32 N32 C64 56^2 K64 3x3",
            0.5},
    {"conv-resnet50-c256", "convolution", FP32, "32x256x14x14x256x3x3", false, GPU_CONV, 42.1,
            "cuDNN fp32 N32 C256 14^2 K256 3x3", 0.5},
    {"conv-resnet50-1x1", "convolution", FP32, "32x64x56x56x256x1x1", false, GPU_CONV, 26.3,
            "cuDNN fp32 N32 C64 56^2 K256 1x1", 0.5},
    {"conv-resnet50-stem", "convolution", FP32, "32x3x224x224x64x7x7x2x3", false, GPU_CONV, 20.3,
            "cuDNN fp32 N32 C3 224^2 K64 7x7 s2", 0.5},
    {"conv-resnet50-fp16", "convolution", FP16, "32x64x56x56x64x3x3", false, GPU_CONV, 139, "cuDNN fp16 N32 C64 56^2 K64 3x3",
            0.3},
    {"conv-resnet50-c256-fp16", "convolution", FP16, "32x256x14x14x256x3x3", false, GPU_CONV, 215,
            "cuDNN fp16 N32 C256 14^2 K256 3x3", 0.3},
    {"small-dispatch", DISPATCH_OP, FP32, "1024", false, GROUP_GPU | GROUP_SMOKE, 0, NULL, 0},
    /* Odd sizes, every family and layout: correctness under --check, not speed. */
    {"add-smoke", "add", FP32, "3x5x67", false, GROUP_SMOKE, 0, NULL, 0},
    {"add-smoke-fp16", "add", FP16, "1001", false, GROUP_SMOKE, 0, NULL, 0},
    {"add-broadcast-smoke", "add", FP32, "37x64", true, GROUP_SMOKE, 0, NULL, 0},
    {"add-broadcast-smoke-fp16", "add", FP16, "5x3x72", true, GROUP_SMOKE, 0, NULL, 0},
    {"multiply-smoke", "multiply", FP32, "4099", false, GROUP_SMOKE, 0, NULL, 0},
    {"relu-smoke", "relu", FP32, "4099", false, GROUP_SMOKE, 0, NULL, 0},
    {"relu-smoke-fp16", "relu", FP16, "2047", false, GROUP_SMOKE, 0, NULL, 0},
    {"identity-smoke", "identity", FP32, "7x9x11", false, GROUP_SMOKE, 0, NULL, 0},
    {"sigmoid-smoke", "sigmoid", FP32, "999", false, GROUP_SMOKE, 0, NULL, 0},
    {"gemm-smoke", "gemm", FP32, "33x17x45", false, GROUP_SMOKE, 0, NULL, 0},
    {"gemm-smoke-fp16", "gemm", FP16, "64x32x48", false, GROUP_SMOKE, 0, NULL, 0},
    {"gemv-smoke", "gemm", FP32, "3x300x37", false, GROUP_SMOKE, 0, NULL, 0},
    {"gemv-smoke-fp16", "gemm", FP16, "1x256x40", false, GROUP_SMOKE, 0, NULL, 0},
    {"conv-smoke", "convolution", FP32, "2x3x9x9x4x3x3", false, GROUP_SMOKE, 0, NULL, 0},
    {"conv-smoke-stride", "convolution", FP32, "1x5x11x11x6x3x3x2x1", false, GROUP_SMOKE, 0, NULL, 0},
    {"softmax-smoke", "softmax1", FP32, "7x33", false, GROUP_SMOKE, 0, NULL, 0},
    {"bare-add-smoke", BARE_ADD_OP, FP32, "4096", false, GROUP_SMOKE, 0, NULL, 0},
};
#undef GPU_MEM
#undef GPU_GEMM
#undef GPU_CONV

/* Targets of the small-dispatch measurements (performance.md). */
#define TARGET_DISPATCH_US 5.0
#define TARGET_RECORD_RATIO 2.0

static const struct preset *find_preset(const char *name)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE(presets); ++i)
    {
        if (!strcmp(presets[i].name, name))
            return &presets[i];
    }
    return NULL;
}

/* ---- Results ---- */

enum status
{
    STATUS_OK,
    STATUS_SKIPPED,
    STATUS_FAILED,
};

static const char *const status_names[] = {"ok", "skipped", "failed"};

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
    struct dispatch_result dispatch;
    bool dispatch_run;
    struct trace_event *trace;
    size_t trace_count, trace_capacity;
    unsigned int position, total;       /* progress */
};

static void set_reason(char *reason, size_t size, const char *format, va_list args)
{
    vsnprintf(reason, size, format, args);
}

static bool skip(struct result *r, const char *format, ...)
{
    va_list args;

    va_start(args, format);
    set_reason(r->reason, sizeof(r->reason), format, args);
    va_end(args);
    r->status = STATUS_SKIPPED;
    return false;
}

static bool fail(struct result *r, const char *format, ...)
{
    va_list args;

    va_start(args, format);
    set_reason(r->reason, sizeof(r->reason), format, args);
    va_end(args);
    r->status = STATUS_FAILED;
    return false;
}

/* ---- Progress (stderr): one line per workload, updated in place on a terminal ---- */

static void progress_begin(struct bench *b, const char *name)
{
    if (b->quiet)
        return;
    if (b->progress_tty)
        fprintf(stderr, "\r\033[K[%u/%u] %s", b->position, b->total, name);
    else
        fprintf(stderr, "vkdml-bench: [%u/%u] %s\n", b->position, b->total, name);
    fflush(stderr);
}

/* `total` 0: a stage without a count. */
static void progress_update(struct bench *b, const char *name, const char *what, unsigned int done,
        unsigned int total)
{
    if (b->quiet || !b->progress_tty)
        return;
    fprintf(stderr, "\r\033[K[%u/%u] %s: %s", b->position, b->total, name, what);
    if (total)
        fprintf(stderr, " %u/%u", done, total);
    fflush(stderr);
}

static void progress_end(struct bench *b)
{
    if (!b->quiet && b->progress_tty)
    {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
}

/* Runs `execute` (one batch of `batch` dispatches) until both --warmup dispatches and --warmup-ms
 * milliseconds have gone by. */
static void warm_up(struct bench *b, unsigned int batch, void (*execute)(void *context), void *context)
{
    uint64_t start = now_ns();
    unsigned int done = 0;

    while (done < b->warmup || (now_ns() - start) * 1e-6 < b->warmup_ms)
    {
        execute(context);
        done += batch;
    }
}

/* ---- D3D12 plumbing ---- */

static void execute_and_wait(struct bench *b, ID3D12GraphicsCommandList *list)
{
    ID3D12CommandList *lists[] = {(ID3D12CommandList *)list};

    ID3D12CommandQueue_ExecuteCommandLists(b->queue, 1, lists);
    CHECK(ID3D12CommandQueue_Signal(b->queue, b->fence, ++b->fence_value));
    CHECK(ID3D12Fence_SetEventOnCompletion(b->fence, b->fence_value, NULL));
}

struct list_execution
{
    struct bench *b;
    ID3D12GraphicsCommandList *list;
};

static void execute_list_callback(void *context)
{
    struct list_execution *execution = context;

    execute_and_wait(execution->b, execution->list);
}

static void warm_up_list(struct bench *b, ID3D12GraphicsCommandList *list, unsigned int batch)
{
    struct list_execution execution = {b, list};

    warm_up(b, batch, execute_list_callback, &execution);
}

/* Opens a closed list for recording (the GPU is idle: every execution is waited for). */
static void begin_list(struct bench *b, ID3D12CommandAllocator *allocator, ID3D12GraphicsCommandList *list)
{
    ID3D12DescriptorHeap *heaps[] = {b->heap};

    CHECK(ID3D12CommandAllocator_Reset(allocator));
    CHECK(ID3D12GraphicsCommandList_Reset(list, allocator, NULL));
    ID3D12GraphicsCommandList_SetDescriptorHeaps(list, 1, heaps);
}

static void begin_setup(struct bench *b)
{
    begin_list(b, b->setup_allocator, b->setup_list);
}

static void finish_setup(struct bench *b)
{
    CHECK(ID3D12GraphicsCommandList_Close(b->setup_list));
    execute_and_wait(b, b->setup_list);
}

/* NULL on failure (out of memory, most likely). */
static ID3D12Resource *create_buffer(struct bench *b, D3D12_HEAP_TYPE type, UINT64 size, D3D12_RESOURCE_STATES state)
{
    ID3D12Resource *buffer;

    /* Rounded to 4 bytes: DirectML binds buffers in 32-bit units. */
    if (FAILED(tool_create_buffer(b->device, type, (size + 3) & ~(UINT64)3, state, &buffer)))
        return NULL;
    return buffer;
}

/* A DEFAULT buffer (kept in UNORDERED_ACCESS) holding `count` values of `type`; NULL on failure. */
static ID3D12Resource *upload_buffer(struct bench *b, const float *values, size_t count, DML_TENSOR_DATA_TYPE type)
{
    UINT64 size = (UINT64)count * element_size(type);
    ID3D12Resource *buffer, *upload;
    D3D12_RANGE range = {0, 0};
    void *mapped;

    if (!(buffer = create_buffer(b, D3D12_HEAP_TYPE_DEFAULT, size, D3D12_RESOURCE_STATE_UNORDERED_ACCESS)))
        return NULL;
    if (!(upload = create_buffer(b, D3D12_HEAP_TYPE_UPLOAD, size, D3D12_RESOURCE_STATE_GENERIC_READ)))
    {
        ID3D12Resource_Release(buffer);
        return NULL;
    }
    CHECK(ID3D12Resource_Map(upload, 0, &range, &mapped));
    store_values(mapped, values, count, type);
    ID3D12Resource_Unmap(upload, 0, NULL);
    begin_setup(b);
    tool_transition(b->setup_list, buffer, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_DEST);
    ID3D12GraphicsCommandList_CopyBufferRegion(b->setup_list, buffer, 0, upload, 0, size);
    tool_transition(b->setup_list, buffer, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    finish_setup(b);
    ID3D12Resource_Release(upload);
    return buffer;
}

/* A mapped READBACK copy of `buffer`'s first `size` bytes; NULL on failure. Unmap and release it. */
static ID3D12Resource *read_back(struct bench *b, ID3D12Resource *buffer, UINT64 size, void **mapped)
{
    ID3D12Resource *readback;
    D3D12_RANGE range = {0, (SIZE_T)size};

    if (!(readback = create_buffer(b, D3D12_HEAP_TYPE_READBACK, size, D3D12_RESOURCE_STATE_COPY_DEST)))
        return NULL;
    begin_setup(b);
    tool_transition(b->setup_list, buffer, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE);
    ID3D12GraphicsCommandList_CopyBufferRegion(b->setup_list, readback, 0, buffer, 0, size);
    tool_transition(b->setup_list, buffer, D3D12_RESOURCE_STATE_COPY_SOURCE, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    finish_setup(b);
    CHECK(ID3D12Resource_Map(readback, 0, &range, mapped));
    return readback;
}

static void unmap_and_release(ID3D12Resource *readback)
{
    D3D12_RANGE range = {0, 0};

    ID3D12Resource_Unmap(readback, 0, &range);
    ID3D12Resource_Release(readback);
}

static HRESULT create_table(struct bench *b, void *dispatchable, UINT region, IDMLBindingTable **table)
{
    D3D12_CPU_DESCRIPTOR_HANDLE cpu = ID3D12DescriptorHeap_GetCPUDescriptorHandleForHeapStart(b->heap);
    D3D12_GPU_DESCRIPTOR_HANDLE gpu = ID3D12DescriptorHeap_GetGPUDescriptorHandleForHeapStart(b->heap);
    DML_BINDING_PROPERTIES properties = IDMLDispatchable_GetBindingPropertiesByValue(dispatchable);
    DML_BINDING_TABLE_DESC desc;

    if (properties.RequiredDescriptorCount > TABLE_DESCRIPTORS)
        return E_OUTOFMEMORY;
    cpu.ptr += (SIZE_T)region * TABLE_DESCRIPTORS * b->increment;
    gpu.ptr += (UINT64)region * TABLE_DESCRIPTORS * b->increment;
    desc.Dispatchable = dispatchable;
    desc.CPUDescriptorHandle = cpu;
    desc.GPUDescriptorHandle = gpu;
    desc.SizeInDescriptors = TABLE_DESCRIPTORS;
    return IDMLDevice_CreateBindingTable(b->dml, &desc, &IID_IDMLBindingTable, (void **)table);
}

/* A DEFAULT buffer for a temporary or persistent resource of `size` bytes (NULL when 0). */
static HRESULT create_optional_buffer(struct bench *b, UINT64 size, ID3D12Resource **buffer)
{
    *buffer = NULL;
    if (size && !(*buffer = create_buffer(b, D3D12_HEAP_TYPE_DEFAULT, size, D3D12_RESOURCE_STATE_UNORDERED_ACCESS)))
        return E_OUTOFMEMORY;
    return S_OK;
}

/* Runs an initializer for `op` (DirectML requires one before execution); returns its persistent
 * resource, NULL when it needs none. */
static HRESULT initialize_operator(struct bench *b, IDMLCompiledOperator *op, ID3D12Resource **persistent)
{
    DML_BINDING_PROPERTIES op_properties = IDMLCompiledOperator_GetBindingPropertiesByValue(op), properties;
    IDMLOperatorInitializer *initializer;
    ID3D12Resource *temporary = NULL;
    DML_BUFFER_BINDING storage[3];
    DML_BINDING_DESC input, output, desc;
    IDMLBindingTable *table;
    HRESULT hr;

    if (FAILED(hr = create_optional_buffer(b, op_properties.PersistentResourceSize, persistent)))
        return hr;
    if (FAILED(hr = IDMLDevice_CreateOperatorInitializer(b->dml, 1, &op, &IID_IDMLOperatorInitializer,
            (void **)&initializer)))
        return hr;
    properties = IDMLOperatorInitializer_GetBindingPropertiesByValue(initializer);
    if (SUCCEEDED(hr = create_optional_buffer(b, properties.TemporaryResourceSize, &temporary))
            && SUCCEEDED(hr = create_table(b, initializer, 0, &table)))
    {
        if (temporary)
        {
            desc = tool_buffer_binding(&storage[2], temporary, properties.TemporaryResourceSize);
            IDMLBindingTable_BindTemporaryResource(table, &desc);
        }
        /* No OWNED_BY_DML inputs: one NONE for the target. */
        input = tool_buffer_binding(&storage[0], NULL, 0);
        output = tool_buffer_binding(&storage[1], *persistent, op_properties.PersistentResourceSize);
        IDMLBindingTable_BindInputs(table, 1, &input);
        IDMLBindingTable_BindOutputs(table, 1, &output);
        begin_setup(b);
        IDMLCommandRecorder_RecordDispatch(b->recorder, (ID3D12CommandList *)b->setup_list,
                (IDMLDispatchable *)initializer, table);
        finish_setup(b);
        IDMLBindingTable_Release(table);
        hr = IDMLDevice_GetDeviceRemovedReason(b->dml);
    }
    if (temporary)
        ID3D12Resource_Release(temporary);
    IDMLOperatorInitializer_Release(initializer);
    return hr;
}

/* CreateOperator + CompileOperator. */
static HRESULT compile_workload(struct bench *b, struct workload *w, IDMLCompiledOperator **compiled)
{
    DML_OPERATOR_DESC desc = {w->op->type, &w->desc};
    IDMLOperator *op;
    HRESULT hr;

    if (FAILED(hr = IDMLDevice_CreateOperator(b->dml, &desc, &IID_IDMLOperator, (void **)&op)))
        return hr;
    hr = IDMLDevice_CompileOperator(b->dml, op, DML_EXECUTION_FLAG_NONE, &IID_IDMLCompiledOperator,
            (void **)compiled);
    IDMLOperator_Release(op);
    return hr;
}

static bool type_supported(struct bench *b, DML_TENSOR_DATA_TYPE type)
{
    DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT query = {type};
    DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT data = {FALSE};

    return SUCCEEDED(IDMLDevice_CheckFeatureSupport(b->dml, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, sizeof(query),
            &query, sizeof(data), &data)) && data.IsSupported;
}

/* ---- One workload: resources, timing, check ---- */

struct run
{
    IDMLCompiledOperator *compiled;
    ID3D12Resource *persistent, *temporary;
    ID3D12Resource *inputs[MAX_INPUTS], *output;
    IDMLBindingTable *table;
    struct vkdml_profiler *profiler;
    float *host[MAX_INPUTS];            /* input values as stored (rounded to their type), for --check */
};

static void release_run(struct run *run)
{
    UINT i;

    if (run->table)
        IDMLBindingTable_Release(run->table);
    for (i = 0; i < MAX_INPUTS; ++i)
    {
        if (run->inputs[i])
            ID3D12Resource_Release(run->inputs[i]);
        free(run->host[i]);
    }
    if (run->output)
        ID3D12Resource_Release(run->output);
    if (run->temporary)
        ID3D12Resource_Release(run->temporary);
    if (run->persistent)
        ID3D12Resource_Release(run->persistent);
    if (run->compiled)
        IDMLCompiledOperator_Release(run->compiled);
    vkdml_profiler_destroy(run->profiler);
}

/* Inputs uploaded from pseudo-random values, which are kept for --check only. */
static HRESULT create_io(struct bench *b, const struct workload *w, struct run *run)
{
    UINT i;

    for (i = 0; i < w->input_count; ++i)
    {
        DML_TENSOR_DATA_TYPE type = w->inputs[i].buffer.DataType;
        size_t count = (size_t)tensor_storage_elements(&w->inputs[i]);

        if (!w->inputs[i].rank)
            continue;
        if (!(run->host[i] = random_values(count, type, 0x9e3779b9u * (i + 1)))
                || !(run->inputs[i] = upload_buffer(b, run->host[i], count, type)))
            return E_OUTOFMEMORY;
        if (!b->check)
        {
            free(run->host[i]);
            run->host[i] = NULL;
        }
    }
    if (!(run->output = create_buffer(b, D3D12_HEAP_TYPE_DEFAULT, w->output.buffer.TotalTensorSizeInBytes,
            D3D12_RESOURCE_STATE_UNORDERED_ACCESS)))
        return E_OUTOFMEMORY;
    return S_OK;
}

static HRESULT bind_run(struct bench *b, const struct workload *w, struct run *run)
{
    DML_BINDING_PROPERTIES properties = IDMLCompiledOperator_GetBindingPropertiesByValue(run->compiled);
    DML_BUFFER_BINDING storage[MAX_INPUTS + 3];
    DML_BINDING_DESC inputs[MAX_INPUTS], output, desc;
    HRESULT hr;
    UINT i;

    if (FAILED(hr = create_optional_buffer(b, properties.TemporaryResourceSize, &run->temporary))
            || FAILED(hr = create_table(b, run->compiled, 1, &run->table)))
        return hr;
    if (run->temporary)
    {
        desc = tool_buffer_binding(&storage[MAX_INPUTS + 1], run->temporary, properties.TemporaryResourceSize);
        IDMLBindingTable_BindTemporaryResource(run->table, &desc);
    }
    if (run->persistent)
    {
        desc = tool_buffer_binding(&storage[MAX_INPUTS + 2], run->persistent, properties.PersistentResourceSize);
        IDMLBindingTable_BindPersistentResource(run->table, &desc);
    }
    /* Absent (optional) inputs have no buffer: bound as NONE. */
    for (i = 0; i < w->input_count; ++i)
        inputs[i] = tool_buffer_binding(&storage[i], run->inputs[i], w->inputs[i].buffer.TotalTensorSizeInBytes);
    output = tool_buffer_binding(&storage[MAX_INPUTS], run->output, w->output.buffer.TotalTensorSizeInBytes);
    IDMLBindingTable_BindInputs(run->table, w->input_count, inputs);
    IDMLBindingTable_BindOutputs(run->table, 1, &output);
    return S_OK;
}

/* Compile, initialize, create and fill the buffers, bind. False with the result's status set. */
static bool prepare_run(struct bench *b, struct workload *w, struct run *run, struct result *r)
{
    DML_TENSOR_DATA_TYPE types[MAX_INPUTS + 1];
    UINT count = workload_types(w, types), i;
    HRESULT hr;

    for (i = 0; i < count; ++i)
    {
        if (!type_supported(b, types[i]))
            return skip(r, "%s tensors are not supported on this device", type_name(types[i]));
    }
    hr = compile_workload(b, w, &run->compiled);
    if (hr == E_NOTIMPL)
        return skip(r, "%s is not implemented in vkdml yet (E_NOTIMPL)", w->op->schema->name);
    if (FAILED(hr))
        return fail(r, "CreateOperator/CompileOperator(%s) failed: HRESULT %#x (the log says why)",
                w->op->schema->name, (unsigned int)hr);
    if (FAILED(hr = initialize_operator(b, run->compiled, &run->persistent)))
        return fail(r, "initialization failed: HRESULT %#x", (unsigned int)hr);
    progress_update(b, r->name, "uploading inputs", 0, 0);
    if (FAILED(hr = create_io(b, w, run)))
        return fail(r, "buffers for the tensors could not be created (out of memory?)");
    if (FAILED(hr = bind_run(b, w, run)))
        return fail(r, "binding failed: HRESULT %#x", (unsigned int)hr);
    return true;
}

/* Records `batch` RecordDispatch calls, each timed on the CPU and followed by a UAV barrier. */
static void record_batch(struct bench *b, struct run *run, unsigned int batch, double *record_us)
{
    unsigned int i;

    begin_list(b, b->timed_allocator, b->timed_list);
    CHECK(vkdml_command_list_set_profiler(b->timed_list, run->profiler));
    for (i = 0; i < batch; ++i)
    {
        uint64_t start = now_ns();

        IDMLCommandRecorder_RecordDispatch(b->recorder, (ID3D12CommandList *)b->timed_list,
                (IDMLDispatchable *)run->compiled, run->table);
        record_us[i] = (now_ns() - start) * 1e-3;
        tool_uav_barrier(b->timed_list);
    }
    CHECK(vkdml_command_list_set_profiler(b->timed_list, NULL));
    CHECK(ID3D12GraphicsCommandList_Close(b->timed_list));
}

static void add_trace_event(struct bench *b, const struct vkdml_profiler_entry *entry, unsigned int tid)
{
    struct trace_event *event;

    if (!b->trace_path)
        return;
    if (b->trace_count == b->trace_capacity)
    {
        size_t capacity = b->trace_capacity ? 2 * b->trace_capacity : 1024;
        struct trace_event *grown = realloc(b->trace, capacity * sizeof(*grown));

        if (!grown)
            return;
        b->trace = grown;
        b->trace_capacity = capacity;
    }
    event = &b->trace[b->trace_count++];
    snprintf(event->name, sizeof(event->name), "%s", entry->name);
    event->tid = tid;
    event->start_ns = entry->start_ns;
    event->end_ns = entry->end_ns;
}

/* Executes the batch list until `iterations` dispatches are timed; durations in µs. */
static bool time_batches(struct bench *b, struct run *run, struct result *r, unsigned int batch, double *gpu_us)
{
    struct vkdml_profiler_entry *entries = calloc(batch, sizeof(*entries));
    unsigned int samples = 0, i;
    uint32_t count;

    if (!entries)
        return fail(r, "out of memory");
    progress_update(b, r->name, "warm-up", 0, 0);
    warm_up_list(b, b->timed_list, batch);
    while (samples < b->iterations)
    {
        progress_update(b, r->name, "timed", samples, b->iterations);
        execute_and_wait(b, b->timed_list);
        count = batch;
        CHECK(vkdml_profiler_get_results(run->profiler, entries, sizeof(*entries), &count));
        if (count != batch)
        {
            free(entries);
            return fail(r, "the profiler timed %u dispatches of %u", count, batch);
        }
        snprintf(r->operator_name, sizeof(r->operator_name), "%s", entries[0].name);
        for (i = 0; i < batch && samples < b->iterations; ++i)
        {
            gpu_us[samples++] = entries[i].duration_ns * 1e-3;
            add_trace_event(b, &entries[i], (unsigned int)(r - b->results) + 1);
        }
    }
    free(entries);
    return true;
}

static double anchor_override_ms(const struct bench *b, const char *name)
{
    unsigned int i;

    for (i = 0; i < b->anchor_count; ++i)
    {
        if (!strcmp(b->anchors[i].name, name))
            return b->anchors[i].ms;
    }
    return 0.0;
}

/* GB/s or TFLOP/s, the anchor (measured in this run where given), the ratio. */
static void derive_rates(const struct bench *b, const struct preset *preset, struct result *r)
{
    double seconds = r->gpu_median_us * 1e-6, anchor_ms = preset ? anchor_override_ms(b, preset->name) : 0.0;
    double amount = r->compute_bound ? r->flops * 1e-12 : r->bytes * 1e-9;

    r->rate = amount / seconds;
    if (preset && preset->anchor)
    {
        r->anchor = r->doc_anchor = preset->anchor;
        snprintf(r->anchor_source, sizeof(r->anchor_source), "performance.md: %s", preset->anchor_source);
    }
    if (anchor_ms > 0.0)
    {
        r->anchor = amount / (anchor_ms * 1e-3);
        r->anchor_measured = true;
        snprintf(r->anchor_source, sizeof(r->anchor_source), "%s", b->anchor_source);
    }
    r->ratio = r->anchor ? r->rate / r->anchor : 0.0;
    r->doc_ratio = r->doc_anchor ? r->rate / r->doc_anchor : 0.0;
    r->target = preset ? preset->target : 0.0;
}

/* -1: no bar; else whether the first bar is met against every anchor there is (the one measured in
 * this run and performance.md's): for memory-bound operators the issue's bar is the bandwidth
 * PyTorch reaches, which PyTorch's own broadcast add falls far short of. */
static int verdict(const struct result *r)
{
    if (!r->target || !r->anchor)
        return -1;
    return r->ratio >= r->target && (!r->doc_anchor || r->doc_ratio >= r->target);
}

static bool time_run(struct bench *b, const struct workload *w, struct run *run, struct result *r)
{
    unsigned int batch = b->iterations < MAX_BATCH ? b->iterations : MAX_BATCH;
    double *gpu_us = calloc(b->iterations, sizeof(*gpu_us)), *record_us = calloc(batch, sizeof(*record_us));
    bool ok = false;

    if (!gpu_us || !record_us)
        fail(r, "out of memory");
    else if (FAILED(vkdml_profiler_create(b->dml, batch, &run->profiler)))
        fail(r, "vkdml_profiler_create failed: the device has no timestamps?");
    else
    {
        record_batch(b, run, batch, record_us);
        if (IDMLDevice_GetDeviceRemovedReason(b->dml) != S_OK)
            fail(r, "RecordDispatch removed the DML device (the log says why)");
        else if ((ok = time_batches(b, run, r, batch, gpu_us)))
        {
            statistics(gpu_us, b->iterations, &r->gpu_min_us, &r->gpu_median_us, &r->gpu_p90_us);
            r->record_us = median_of(record_us, batch);
        }
    }
    free(gpu_us);
    free(record_us);
    return ok;
}

/* Output indices to compare: all of them, or for reductions CHECK_SAMPLES spread at random. */
static UINT64 check_index(const struct workload *w, UINT64 count, UINT64 i, uint32_t *state)
{
    if (!w->op->family->sampled || count <= CHECK_SAMPLES || i == 0)
        return i;
    if (i == CHECK_SAMPLES - 1)
        return count - 1;
    return (((UINT64)random_next(state) << 32) | random_next(state)) % count;
}

static bool check_run(struct bench *b, const struct workload *w, struct run *run, struct result *r)
{
    UINT64 count = tensor_elements(&w->output), checks, i, index;
    ID3D12Resource *readback;
    uint32_t state = 12345;
    double expected, got, tolerance;
    void *mapped;

    if (!w->reference)
    {
        r->no_reference = true;
        return true;
    }
    progress_update(b, r->name, "checking", 0, 0);
    if (!(readback = read_back(b, run->output, w->output.buffer.TotalTensorSizeInBytes, &mapped)))
        return fail(r, "no memory for the readback buffer");
    checks = w->op->family->sampled && count > CHECK_SAMPLES ? CHECK_SAMPLES : count;
    for (i = 0; i < checks; ++i)
    {
        index = check_index(w, count, i, &state);
        expected = reference_value(w, run->host, index, &tolerance);
        got = load_value(mapped, index, w->output.buffer.DataType);
        if (!(fabs(got - expected) <= tolerance) && r->mismatches++ < 3)
            fprintf(stderr, "vkdml-bench: %s: element %llu: got %.9g, expected %.9g (tolerance %.3g)\n", r->name,
                    (unsigned long long)index, got, expected, tolerance);
    }
    unmap_and_release(readback);
    r->checked = checks;
    r->check = !r->mismatches;
    return true;
}

static void run_workload(struct bench *b, struct workload *w, const struct preset *preset, struct result *r)
{
    struct run run;

    memset(&run, 0, sizeof(run));
    r->bytes = w->bytes;
    r->flops = w->flops;
    r->compute_bound = r->compute_bound && !w->memory_bound;
    if (prepare_run(b, w, &run, r) && time_run(b, w, &run, r))
    {
        derive_rates(b, preset, r);
        if (b->check)
            check_run(b, w, &run, r);
        if (IDMLDevice_GetDeviceRemovedReason(b->dml) != S_OK)
            fail(r, "the DML device was removed (the log says why)");
    }
    release_run(&run);
}

/* ---- Small dispatches ---- */

/* x + CHAIN_LENGTH x bias, added one dispatch at a time in fp32 as the chain does. */
static void chain_expected(const float *x, const float *bias, float *expected)
{
    unsigned int i, step;

    for (i = 0; i < CHAIN_ELEMENTS; ++i)
    {
        float value = x[i];

        for (step = 0; step < CHAIN_LENGTH; ++step)
            value += bias[i];
        expected[i] = value;
    }
}

static bool chain_matches(const float *got, const float *expected, const char *what)
{
    unsigned int i;

    for (i = 0; i < CHAIN_ELEMENTS; ++i)
    {
        if (got[i] != expected[i])
        {
            fprintf(stderr, "vkdml-bench: %s: element %u: got %.9g, expected %.9g\n", what, i, got[i], expected[i]);
            return false;
        }
    }
    return true;
}

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

static void release_chain(struct chain *c)
{
    unsigned int i;

    for (i = 0; i < 2; ++i)
    {
        if (c->tables[i])
            IDMLBindingTable_Release(c->tables[i]);
    }
    if (c->x)
        ID3D12Resource_Release(c->x);
    if (c->bias)
        ID3D12Resource_Release(c->bias);
    if (c->y)
        ID3D12Resource_Release(c->y);
    if (c->persistent)
        ID3D12Resource_Release(c->persistent);
    if (c->compiled)
        IDMLCompiledOperator_Release(c->compiled);
}

static void chain_workload(struct workload *w)
{
    memset(w, 0, sizeof(*w));
    w->op = find_op("add");
    w->type = FP32;
    w->dims[0] = CHAIN_ELEMENTS;
    w->dim_count = 1;
    build_workload(w);
}

static HRESULT bind_chain_tables(struct bench *b, struct chain *c)
{
    ID3D12Resource *sources[2] = {c->x, c->y};
    UINT64 size = CHAIN_ELEMENTS * sizeof(float);
    DML_BUFFER_BINDING storage[4];
    DML_BINDING_DESC inputs[2], output, desc;
    unsigned int i;
    HRESULT hr;

    for (i = 0; i < 2; ++i)
    {
        if (FAILED(hr = create_table(b, c->compiled, 2 + i, &c->tables[i])))
            return hr;
        if (c->persistent)
        {
            desc = tool_buffer_binding(&storage[3], c->persistent,
                    IDMLCompiledOperator_GetBindingPropertiesByValue(c->compiled).PersistentResourceSize);
            IDMLBindingTable_BindPersistentResource(c->tables[i], &desc);
        }
        inputs[0] = tool_buffer_binding(&storage[0], sources[i], size);
        inputs[1] = tool_buffer_binding(&storage[1], c->bias, size);
        output = tool_buffer_binding(&storage[2], sources[!i], size);
        IDMLBindingTable_BindInputs(c->tables[i], 2, inputs);
        IDMLBindingTable_BindOutputs(c->tables[i], 1, &output);
    }
    return S_OK;
}

static bool create_chain(struct bench *b, struct chain *c, struct dispatch_result *d)
{
    uint32_t seed = 777;
    unsigned int i;
    HRESULT hr;

    chain_workload(&c->w);
    for (i = 0; i < CHAIN_ELEMENTS; ++i)
    {
        c->x0[i] = random_float(&seed);
        c->bias0[i] = random_float(&seed);
    }
    chain_expected(c->x0, c->bias0, c->expected);
    if (FAILED(hr = compile_workload(b, &c->w, &c->compiled))
            || FAILED(hr = initialize_operator(b, c->compiled, &c->persistent)))
    {
        snprintf(d->reason, sizeof(d->reason), "ELEMENT_WISE_ADD could not be compiled: HRESULT %#x",
                (unsigned int)hr);
        return false;
    }
    if (IDMLCompiledOperator_GetBindingPropertiesByValue(c->compiled).TemporaryResourceSize)
    {
        snprintf(d->reason, sizeof(d->reason), "the chain's ADD needs a temporary resource; the bench binds none");
        return false;
    }
    if (!(c->x = upload_buffer(b, c->x0, CHAIN_ELEMENTS, FP32)) || !(c->bias = upload_buffer(b, c->bias0,
            CHAIN_ELEMENTS, FP32)) || !(c->y = create_buffer(b, D3D12_HEAP_TYPE_DEFAULT,
            CHAIN_ELEMENTS * sizeof(float), D3D12_RESOURCE_STATE_UNORDERED_ACCESS))
            || FAILED(hr = bind_chain_tables(b, c)))
    {
        snprintf(d->reason, sizeof(d->reason), "the chain's buffers or tables could not be created");
        return false;
    }
    return true;
}

/* The chain in the timed list; the profiler times its first and last dispatch only. */
static void record_shim_chain(struct bench *b, struct chain *c, struct vkdml_profiler *profiler)
{
    unsigned int i;

    begin_list(b, b->timed_allocator, b->timed_list);
    for (i = 0; i < CHAIN_LENGTH; ++i)
    {
        CHECK(vkdml_command_list_set_profiler(b->timed_list, !i || i == CHAIN_LENGTH - 1 ? profiler : NULL));
        IDMLCommandRecorder_RecordDispatch(b->recorder, (ID3D12CommandList *)b->timed_list,
                (IDMLDispatchable *)c->compiled, c->tables[i & 1]);
        tool_uav_barrier(b->timed_list);
    }
    CHECK(vkdml_command_list_set_profiler(b->timed_list, NULL));
    CHECK(ID3D12GraphicsCommandList_Close(b->timed_list));
}

static bool check_shim_chain(struct bench *b, struct chain *c)
{
    ID3D12Resource *readback;
    float got[CHAIN_ELEMENTS];
    void *mapped;

    execute_and_wait(b, b->timed_list);
    if (!(readback = read_back(b, c->x, sizeof(got), &mapped)))
        return false;
    memcpy(got, mapped, sizeof(got));
    unmap_and_release(readback);
    return chain_matches(got, c->expected, "dispatch chain (shim)");
}

/* GPU µs per dispatch of the chain in a shim command list: median over the runs. */
static bool time_shim_chain(struct bench *b, struct chain *c, struct dispatch_result *d)
{
    struct vkdml_profiler_entry entries[2];
    struct vkdml_profiler *profiler;
    double *per_dispatch;
    unsigned int run;
    uint32_t count;

    if (FAILED(vkdml_profiler_create(b->dml, 2, &profiler)))
    {
        snprintf(d->reason, sizeof(d->reason), "vkdml_profiler_create failed");
        return false;
    }
    per_dispatch = calloc(d->runs, sizeof(*per_dispatch));
    record_shim_chain(b, c, profiler);
    d->check = !b->check ? -1 : check_shim_chain(b, c);
    warm_up_list(b, b->timed_list, CHAIN_LENGTH);
    for (run = 0; per_dispatch && run < d->runs; ++run)
    {
        progress_update(b, "small-dispatch", "shim chain", run, d->runs);
        execute_and_wait(b, b->timed_list);
        count = 2;
        CHECK(vkdml_profiler_get_results(profiler, entries, sizeof(entries[0]), &count));
        per_dispatch[run] = (entries[1].end_ns - entries[0].start_ns) * 1e-3 / CHAIN_LENGTH;
        add_trace_event(b, &entries[0], 0);
        add_trace_event(b, &entries[1], 0);
    }
    if (per_dispatch)
        d->shim_gpu_us = median_of(per_dispatch, d->runs);
    free(per_dispatch);
    vkdml_profiler_destroy(profiler);
    return true;
}

/* CPU µs per RecordDispatch into a shim list: RECORD_CALLS calls, median of RECORD_REPEATS. */
static void time_shim_recording(struct bench *b, struct chain *c, struct dispatch_result *d)
{
    double per_call[RECORD_REPEATS];
    unsigned int repeat, i;
    uint64_t start;

    for (repeat = 0; repeat < RECORD_REPEATS; ++repeat)
    {
        begin_list(b, b->timed_allocator, b->timed_list);
        start = now_ns();
        for (i = 0; i < RECORD_CALLS; ++i)
            IDMLCommandRecorder_RecordDispatch(b->recorder, (ID3D12CommandList *)b->timed_list,
                    (IDMLDispatchable *)c->compiled, c->tables[0]);
        per_call[repeat] = (now_ns() - start) * 1e-3 / RECORD_CALLS;
        CHECK(ID3D12GraphicsCommandList_Close(b->timed_list));
    }
    d->shim_record_us = median_of(per_call, RECORD_REPEATS);
}

#ifndef VKDML_BENCH_NO_VULKAN

/* ---- Raw Vulkan: a device of the bench's own, with vkdml embedded, for the bare baselines ---- */

/* vkdml-bench-bare.comp's push constants. */
struct bare_push
{
    VkDeviceAddress a, b, result;
    uint32_t count, pad;                /* count in vec4s */
};

#define BARE_GROUP_SIZE 256u            /* local_size_x */
#define BARE_MAX_GROUPS 65535u          /* maxComputeWorkGroupCount[0] guaranteed by Vulkan */
#define RAW_CHAIN_QUERIES 4u            /* two timestamps per chain, then two per bandwidth dispatch */

struct raw_buffer
{
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceAddress address;
    float *mapped;
};

enum raw_command_buffer
{
    RAW_VKDML_CHAIN,
    RAW_BARE_CHAIN,
    RAW_SCRATCH,
    RAW_COMMAND_BUFFER_COUNT,
};

enum raw_buffer_index
{
    RAW_X,
    RAW_BIAS,
    RAW_Y,
    RAW_BUFFER_COUNT,
};

struct raw
{
    bool validation;
    atomic_uint messages;
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice physical_device;
    VkPhysicalDeviceProperties properties;
    uint32_t family;
    VkDevice device;
    VkQueue queue;
    VkCommandPool pool;
    VkCommandBuffer cmd[RAW_COMMAND_BUFFER_COUNT];
    VkFence fence;
    VkQueryPool queries;
    uint64_t timestamp_mask;
    VkShaderModule module;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    struct raw_buffer buffers[RAW_BUFFER_COUNT];
    /* The bare triple through device-level entry points, as an engine using volk calls them
     * (vkdml does too): the loader's trampolines would add an indirection to the baseline. */
    PFN_vkCmdBindPipeline bind_pipeline;
    PFN_vkCmdPushConstants push_constants;
    PFN_vkCmdDispatch dispatch;

    /* vkdml on that device */
    ID3D12Device *d3d12;
    IDMLDevice *dml;
    IDMLCommandRecorder *recorder;
    ID3D12DescriptorHeap *heap;
    ID3D12Resource *wrapped[RAW_BUFFER_COUNT];
    IDMLCompiledOperator *compiled;
    IDMLBindingTable *tables[2];
};

static VKAPI_ATTR VkBool32 VKAPI_CALL raw_messenger_callback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
        VkDebugUtilsMessageTypeFlagsEXT types, const VkDebugUtilsMessengerCallbackDataEXT *data, void *user_data)
{
    struct raw *raw = user_data;

    atomic_fetch_add(&raw->messages, 1);
    fprintf(stderr, "vkdml-bench: validation (bench's own device): %s\n", data->pMessage);
    return VK_FALSE;
}

static bool layer_available(const char *name)
{
    VkLayerProperties layers[64];
    uint32_t count = ARRAY_SIZE(layers), i;

    vkEnumerateInstanceLayerProperties(&count, layers);
    for (i = 0; i < count; ++i)
    {
        if (!strcmp(layers[i].layerName, name))
            return true;
    }
    return false;
}

/* With VKDML_VALIDATION=1 (as vkdml's own devices), the validation layer and a messenger. */
static VkResult raw_create_instance(struct raw *raw)
{
    static const char *const layers[] = {"VK_LAYER_KHRONOS_validation"};
    static const char *const extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
    const char *validation = getenv("VKDML_VALIDATION");
    VkApplicationInfo application = {VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "vkdml-bench",
            .apiVersion = VK_API_VERSION_1_3};
    VkInstanceCreateInfo info = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &application};
    VkDebugUtilsMessengerCreateInfoEXT messenger = {VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
            .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT
                    | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
            .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
            .pfnUserCallback = raw_messenger_callback, .pUserData = raw};
    PFN_vkCreateDebugUtilsMessengerEXT create_messenger;
    VkResult vr;

    raw->validation = validation && !strcmp(validation, "1") && layer_available(layers[0]);
    if (raw->validation)
    {
        info.enabledLayerCount = 1;
        info.ppEnabledLayerNames = layers;
        info.enabledExtensionCount = 1;
        info.ppEnabledExtensionNames = extensions;
    }
    if ((vr = vkCreateInstance(&info, NULL, &raw->instance)) < 0 || !raw->validation)
        return vr;
    create_messenger = (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(raw->instance,
            "vkCreateDebugUtilsMessengerEXT");
    return create_messenger ? create_messenger(raw->instance, &messenger, NULL, &raw->messenger)
            : VK_ERROR_EXTENSION_NOT_PRESENT;
}

/* The physical device vkdml picked for the shim (same UUID), and a compute family with timestamps. */
static const char *raw_pick_device(struct raw *raw, const uint8_t *uuid)
{
    VkPhysicalDevice devices[16];
    VkQueueFamilyProperties families[16];
    uint32_t count = ARRAY_SIZE(devices), family_count = ARRAY_SIZE(families), i;

    if (vkEnumeratePhysicalDevices(raw->instance, &count, devices) < 0)
        return "vkEnumeratePhysicalDevices failed";
    for (i = 0; i < count && !raw->physical_device; ++i)
    {
        VkPhysicalDeviceIDProperties id = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
        VkPhysicalDeviceProperties2 properties = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &id};

        vkGetPhysicalDeviceProperties2(devices[i], &properties);
        if (!memcmp(id.deviceUUID, uuid, VK_UUID_SIZE))
        {
            raw->physical_device = devices[i];
            raw->properties = properties.properties;
        }
    }
    if (!raw->physical_device)
        return "the adapter was not found by UUID through the system Vulkan loader";
    if (raw->properties.apiVersion < VK_API_VERSION_1_3)
        return "the raw-Vulkan comparison needs a Vulkan 1.3 device";
    vkGetPhysicalDeviceQueueFamilyProperties(raw->physical_device, &family_count, families);
    for (i = 0; i < family_count; ++i)
    {
        if ((families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && families[i].timestampValidBits)
        {
            raw->family = i;
            raw->timestamp_mask = families[i].timestampValidBits >= 64 ? ~0ull
                    : (1ull << families[i].timestampValidBits) - 1;
            return NULL;
        }
    }
    return "no compute queue family with timestamps";
}

/* What vkdml requires (bufferDeviceAddress, timelineSemaphore, synchronization2), nothing more:
 * the chain is FLOAT32. */
static const char *raw_create_device(struct raw *raw, VkPhysicalDeviceFeatures2 *features,
        VkPhysicalDeviceVulkan12Features *features12, VkPhysicalDeviceVulkan13Features *features13)
{
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = raw->family,
            .queueCount = 1, .pQueuePriorities = &priority};
    VkDeviceCreateInfo info = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, features, 0, 1, &queue};

    *features13 = (VkPhysicalDeviceVulkan13Features){VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    *features12 = (VkPhysicalDeviceVulkan12Features){VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, features13};
    *features = (VkPhysicalDeviceFeatures2){VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, features12};
    vkGetPhysicalDeviceFeatures2(raw->physical_device, features);
    if (!features12->bufferDeviceAddress || !features12->timelineSemaphore || !features13->synchronization2)
        return "the device lacks bufferDeviceAddress, timelineSemaphore or synchronization2";
    /* Enable exactly the three. */
    *features13 = (VkPhysicalDeviceVulkan13Features){VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
            .synchronization2 = VK_TRUE};
    *features12 = (VkPhysicalDeviceVulkan12Features){VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, features13,
            .bufferDeviceAddress = VK_TRUE, .timelineSemaphore = VK_TRUE};
    *features = (VkPhysicalDeviceFeatures2){VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, features12};
    if (vkCreateDevice(raw->physical_device, &info, NULL, &raw->device) < 0)
        return "vkCreateDevice failed";
    vkGetDeviceQueue(raw->device, raw->family, 0, &raw->queue);
    raw->bind_pipeline = (PFN_vkCmdBindPipeline)vkGetDeviceProcAddr(raw->device, "vkCmdBindPipeline");
    raw->push_constants = (PFN_vkCmdPushConstants)vkGetDeviceProcAddr(raw->device, "vkCmdPushConstants");
    raw->dispatch = (PFN_vkCmdDispatch)vkGetDeviceProcAddr(raw->device, "vkCmdDispatch");
    return NULL;
}

static const char *raw_create_commands(struct raw *raw)
{
    VkCommandPoolCreateInfo pool = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
            .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, .queueFamilyIndex = raw->family};
    VkCommandBufferAllocateInfo allocate = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
            .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = RAW_COMMAND_BUFFER_COUNT};
    VkFenceCreateInfo fence = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkQueryPoolCreateInfo queries = {VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, .queryType = VK_QUERY_TYPE_TIMESTAMP,
            .queryCount = RAW_CHAIN_QUERIES + 2 * MAX_BATCH};

    if (vkCreateCommandPool(raw->device, &pool, NULL, &raw->pool) < 0)
        return "vkCreateCommandPool failed";
    allocate.commandPool = raw->pool;
    if (vkAllocateCommandBuffers(raw->device, &allocate, raw->cmd) < 0 || vkCreateFence(raw->device, &fence, NULL,
            &raw->fence) < 0 || vkCreateQueryPool(raw->device, &queries, NULL, &raw->queries) < 0)
        return "command buffers, fence or query pool could not be created";
    return NULL;
}

static const char *raw_create_pipeline(struct raw *raw)
{
    VkShaderModuleCreateInfo module = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
            .codeSize = sizeof(bench_bare_spv), .pCode = bench_bare_spv};
    VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(struct bare_push)};
    VkPipelineLayoutCreateInfo layout = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
            .pushConstantRangeCount = 1, .pPushConstantRanges = &range};
    VkComputePipelineCreateInfo pipeline = {VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
            .stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_COMPUTE_BIT,
            .pName = "main"}};

    if (vkCreateShaderModule(raw->device, &module, NULL, &raw->module) < 0
            || vkCreatePipelineLayout(raw->device, &layout, NULL, &raw->layout) < 0)
        return "the bare kernel's module or layout could not be created";
    pipeline.stage.module = raw->module;
    pipeline.layout = raw->layout;
    if (vkCreateComputePipelines(raw->device, VK_NULL_HANDLE, 1, &pipeline, NULL, &raw->pipeline) < 0)
        return "the bare kernel's pipeline could not be created";
    return NULL;
}

/* Mapped buffers get host-visible memory, device-local where the device has such (the GPU then
 * reads VRAM); the others device-local memory. */
static int raw_memory_type(struct raw *raw, uint32_t type_bits, bool mapped)
{
    static const VkMemoryPropertyFlags wanted[][2] =
    {
        {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT},
        {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT
                | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT},
    };
    VkPhysicalDeviceMemoryProperties memory;
    uint32_t i, j;

    vkGetPhysicalDeviceMemoryProperties(raw->physical_device, &memory);
    for (j = 0; j < 2; ++j)
    {
        for (i = 0; i < memory.memoryTypeCount; ++i)
        {
            if ((type_bits & (1u << i))
                    && (memory.memoryTypes[i].propertyFlags & wanted[mapped][j]) == wanted[mapped][j])
                return (int)i;
        }
    }
    return -1;
}

static const char *raw_create_buffer(struct raw *raw, VkDeviceSize size, bool mapped, struct raw_buffer *buffer)
{
    VkBufferCreateInfo info = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size,
            .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT
                    | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
            .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VkMemoryAllocateFlagsInfo flags = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
            .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT};
    VkMemoryAllocateInfo allocate = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &flags};
    VkBufferDeviceAddressInfo address = {VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
    VkMemoryRequirements requirements;
    int type;

    if (vkCreateBuffer(raw->device, &info, NULL, &buffer->buffer) < 0)
        return "vkCreateBuffer failed";
    vkGetBufferMemoryRequirements(raw->device, buffer->buffer, &requirements);
    if ((type = raw_memory_type(raw, requirements.memoryTypeBits, mapped)) < 0)
        return "no suitable memory type for the bench's buffers";
    allocate.allocationSize = requirements.size;
    allocate.memoryTypeIndex = (uint32_t)type;
    if (vkAllocateMemory(raw->device, &allocate, NULL, &buffer->memory) < 0
            || vkBindBufferMemory(raw->device, buffer->buffer, buffer->memory, 0) < 0
            || (mapped && vkMapMemory(raw->device, buffer->memory, 0, VK_WHOLE_SIZE, 0, (void **)&buffer->mapped) < 0))
        return "the bench's buffer memory could not be allocated";
    address.buffer = buffer->buffer;
    buffer->address = vkGetBufferDeviceAddress(raw->device, &address);
    return NULL;
}

static void raw_submit(struct raw *raw, VkCommandBuffer cmd)
{
    VkSubmitInfo submit = {VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};

    if (vkQueueSubmit(raw->queue, 1, &submit, raw->fence) < 0
            || vkWaitForFences(raw->device, 1, &raw->fence, VK_TRUE, UINT64_MAX) < 0)
    {
        fprintf(stderr, "vkdml-bench: vkQueueSubmit/vkWaitForFences failed on the bench's own device\n");
        exit(1);
    }
    vkResetFences(raw->device, 1, &raw->fence);
}

static void raw_destroy_buffer(struct raw *raw, struct raw_buffer *buffer)
{
    if (buffer->buffer)
        vkDestroyBuffer(raw->device, buffer->buffer, NULL);
    if (buffer->memory)
        vkFreeMemory(raw->device, buffer->memory, NULL);
    memset(buffer, 0, sizeof(*buffer));
}

/* A global memory barrier; from compute writes, it is a D3D12 UAV barrier. */
static void raw_barrier(VkCommandBuffer cmd, VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
        VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access)
{
    VkMemoryBarrier2 barrier = {VK_STRUCTURE_TYPE_MEMORY_BARRIER_2, .srcStageMask = src_stage,
            .srcAccessMask = src_access, .dstStageMask = dst_stage, .dstAccessMask = dst_access};
    VkDependencyInfo dependency = {VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .memoryBarrierCount = 1,
            .pMemoryBarriers = &barrier};

    vkCmdPipelineBarrier2(cmd, &dependency);
}

static void raw_begin(VkCommandBuffer cmd)
{
    VkCommandBufferBeginInfo begin = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};

    vkResetCommandBuffer(cmd, 0);
    vkBeginCommandBuffer(cmd, &begin);
}

/* vkdml's device, heap, wrapped buffers, compiled ADD (initialized) and two tables. */
static const char *raw_create_vkdml(struct raw *raw, VkPhysicalDeviceFeatures2 *features)
{
    static const char *const extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
    struct vkdml_vulkan_device_desc desc = {sizeof(desc), .get_instance_proc_addr = vkGetInstanceProcAddr,
            .instance = raw->instance, .instance_api_version = VK_API_VERSION_1_3,
            .enabled_instance_extension_count = raw->validation, .enabled_instance_extensions = extensions,
            .physical_device = raw->physical_device, .device = raw->device, .queue_family_index = raw->family,
            .enabled_features = features,
            .flags = raw->validation ? VKDML_VULKAN_DEVICE_FLAG_VALIDATION_LAYER : 0};
    D3D12_DESCRIPTOR_HEAP_DESC heap = {D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, 3 * TABLE_DESCRIPTORS,
            D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, 0};
    unsigned int i;

    if (FAILED(vkdml_create_device_from_vulkan(&desc, DML_CREATE_DEVICE_FLAG_NONE, &IID_IDMLDevice,
            (void **)&raw->dml, &IID_ID3D12Device, (void **)&raw->d3d12))
            || FAILED(IDMLDevice_CreateCommandRecorder(raw->dml, &IID_IDMLCommandRecorder, (void **)&raw->recorder))
            || FAILED(ID3D12Device_CreateDescriptorHeap(raw->d3d12, &heap, &IID_ID3D12DescriptorHeap,
            (void **)&raw->heap)))
        return "vkdml could not be embedded on the bench's own device";
    for (i = 0; i < RAW_BUFFER_COUNT; ++i)
    {
        struct vkdml_vulkan_buffer_desc buffer = {sizeof(buffer), .buffer = raw->buffers[i].buffer,
                .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT,
                .size = CHAIN_ELEMENTS * sizeof(float), .address = raw->buffers[i].address};

        if (FAILED(vkdml_wrap_vk_buffer(raw->d3d12, &buffer, &IID_ID3D12Resource, (void **)&raw->wrapped[i])))
            return "vkdml_wrap_vk_buffer failed";
    }
    return NULL;
}

/* A binding table in region `region` of the embedded device's heap. */
static HRESULT raw_create_table(struct raw *raw, void *dispatchable, UINT region, IDMLBindingTable **table)
{
    D3D12_CPU_DESCRIPTOR_HANDLE cpu = ID3D12DescriptorHeap_GetCPUDescriptorHandleForHeapStart(raw->heap);
    D3D12_GPU_DESCRIPTOR_HANDLE gpu = ID3D12DescriptorHeap_GetGPUDescriptorHandleForHeapStart(raw->heap);
    UINT increment = ID3D12Device_GetDescriptorHandleIncrementSize(raw->d3d12, D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);
    DML_BINDING_TABLE_DESC desc;

    cpu.ptr += (SIZE_T)region * TABLE_DESCRIPTORS * increment;
    gpu.ptr += (UINT64)region * TABLE_DESCRIPTORS * increment;
    desc.Dispatchable = dispatchable;
    desc.CPUDescriptorHandle = cpu;
    desc.GPUDescriptorHandle = gpu;
    desc.SizeInDescriptors = TABLE_DESCRIPTORS;
    return IDMLDevice_CreateBindingTable(raw->dml, &desc, &IID_IDMLBindingTable, (void **)table);
}

/* The chain's ADD on the embedded device, initialized through vkdml_record_dispatch_vk. Only
 * operators without persistent or temporary resources are handled (the bench has no wrapped
 * buffers for those): FLOAT32 ADD needs none. */
static const char *raw_compile(struct raw *raw, struct workload *w)
{
    DML_OPERATOR_DESC desc = {w->op->type, &w->desc};
    DML_BINDING_DESC none = {DML_BINDING_TYPE_NONE, NULL};
    IDMLOperatorInitializer *initializer;
    DML_BINDING_PROPERTIES properties;
    IDMLBindingTable *table;
    IDMLOperator *op;
    HRESULT hr;

    if (FAILED(IDMLDevice_CreateOperator(raw->dml, &desc, &IID_IDMLOperator, (void **)&op)))
        return "CreateOperator(ELEMENT_WISE_ADD) failed on the embedded device";
    hr = IDMLDevice_CompileOperator(raw->dml, op, DML_EXECUTION_FLAG_NONE, &IID_IDMLCompiledOperator,
            (void **)&raw->compiled);
    IDMLOperator_Release(op);
    if (FAILED(hr))
        return "CompileOperator(ELEMENT_WISE_ADD) failed on the embedded device";
    properties = IDMLCompiledOperator_GetBindingPropertiesByValue(raw->compiled);
    if (properties.PersistentResourceSize || properties.TemporaryResourceSize)
        return "the chain's ADD needs a persistent or temporary resource; the raw path binds none";
    if (FAILED(IDMLDevice_CreateOperatorInitializer(raw->dml, 1, &raw->compiled, &IID_IDMLOperatorInitializer,
            (void **)&initializer)))
        return "CreateOperatorInitializer failed on the embedded device";
    hr = raw_create_table(raw, initializer, 2, &table);
    if (SUCCEEDED(hr))
    {
        IDMLBindingTable_BindInputs(table, 1, &none);
        IDMLBindingTable_BindOutputs(table, 1, &none);
        raw_begin(raw->cmd[RAW_SCRATCH]);
        hr = vkdml_record_dispatch_vk(raw->recorder, raw->cmd[RAW_SCRATCH], initializer, table, NULL);
        vkEndCommandBuffer(raw->cmd[RAW_SCRATCH]);
        raw_submit(raw, raw->cmd[RAW_SCRATCH]);
        IDMLBindingTable_Release(table);
    }
    IDMLOperatorInitializer_Release(initializer);
    return FAILED(hr) ? "the initializer could not be recorded on the embedded device" : NULL;
}

/* Tables 0 (x + bias -> y) and 1 (y + bias -> x), as in the shim chain. */
static const char *raw_bind(struct raw *raw)
{
    ID3D12Resource *sources[2] = {raw->wrapped[RAW_X], raw->wrapped[RAW_Y]};
    DML_BUFFER_BINDING storage[3];
    DML_BINDING_DESC inputs[2], output;
    unsigned int i;

    for (i = 0; i < 2; ++i)
    {
        if (FAILED(raw_create_table(raw, raw->compiled, i, &raw->tables[i])))
            return "binding tables could not be created on the embedded device";
        inputs[0] = tool_buffer_binding(&storage[0], sources[i], CHAIN_ELEMENTS * sizeof(float));
        inputs[1] = tool_buffer_binding(&storage[1], raw->wrapped[RAW_BIAS], CHAIN_ELEMENTS * sizeof(float));
        output = tool_buffer_binding(&storage[2], sources[!i], CHAIN_ELEMENTS * sizeof(float));
        IDMLBindingTable_BindInputs(raw->tables[i], 2, inputs);
        IDMLBindingTable_BindOutputs(raw->tables[i], 1, &output);
    }
    return NULL;
}

/* The bare triple: result = a + b over `count` floats (a multiple of 4). */
static void raw_record_add(struct raw *raw, VkCommandBuffer cmd, VkDeviceAddress a, VkDeviceAddress b,
        VkDeviceAddress result, UINT64 count)
{
    struct bare_push push = {a, b, result, (uint32_t)(count / 4), 0};
    UINT64 groups = (push.count + BARE_GROUP_SIZE - 1) / BARE_GROUP_SIZE;

    raw->bind_pipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, raw->pipeline);
    raw->push_constants(cmd, raw->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), &push);
    raw->dispatch(cmd, (uint32_t)(groups < BARE_MAX_GROUPS ? groups : BARE_MAX_GROUPS), 1, 1);
}

/* Step `step` of the chain: x + bias -> y on even steps, y + bias -> x on odd ones. */
static void raw_record_bare(struct raw *raw, VkCommandBuffer cmd, unsigned int step)
{
    VkDeviceAddress x = raw->buffers[RAW_X].address, y = raw->buffers[RAW_Y].address;

    raw_record_add(raw, cmd, step & 1 ? y : x, raw->buffers[RAW_BIAS].address, step & 1 ? x : y, CHAIN_ELEMENTS);
}

static void raw_uav_barrier(VkCommandBuffer cmd)
{
    raw_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
            VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
            VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
}

/* The chain between two timestamps (queries 2 * which, 2 * which + 1), then made visible to the host. */
static bool raw_record_chain(struct raw *raw, enum raw_command_buffer which)
{
    VkCommandBuffer cmd = raw->cmd[which];
    uint32_t query = 2 * (uint32_t)which;
    unsigned int step;
    bool ok = true;

    raw_begin(cmd);
    vkCmdResetQueryPool(cmd, raw->queries, query, 2);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, raw->queries, query);
    for (step = 0; step < CHAIN_LENGTH; ++step)
    {
        if (which == RAW_BARE_CHAIN)
            raw_record_bare(raw, cmd, step);
        else
            ok &= SUCCEEDED(vkdml_record_dispatch_vk(raw->recorder, cmd, raw->compiled, raw->tables[step & 1],
                    NULL));
        raw_uav_barrier(cmd);
    }
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, raw->queries, query + 1);
    raw_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
            VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
    return vkEndCommandBuffer(cmd) >= 0 && ok;
}

/* Both chains from x0 must give the CPU's sums exactly. */
static bool raw_check(struct raw *raw, const struct chain *c)
{
    static const char *const names[] = {"dispatch chain (vkdml_record_dispatch_vk)", "dispatch chain (bare Vulkan)"};
    bool ok = true;
    unsigned int i;

    memcpy(raw->buffers[RAW_BIAS].mapped, c->bias0, sizeof(c->bias0));
    for (i = RAW_VKDML_CHAIN; i <= RAW_BARE_CHAIN; ++i)
    {
        memcpy(raw->buffers[RAW_X].mapped, c->x0, sizeof(c->x0));
        raw_submit(raw, raw->cmd[i]);
        ok &= chain_matches(raw->buffers[RAW_X].mapped, c->expected, names[i]);
    }
    return ok;
}

/* GPU µs per dispatch of one run of chain `which`. */
static double raw_time_chain(struct raw *raw, enum raw_command_buffer which)
{
    uint64_t ticks[2];

    raw_submit(raw, raw->cmd[which]);
    vkGetQueryPoolResults(raw->device, raw->queries, 2 * (uint32_t)which, 2, sizeof(ticks), ticks, sizeof(ticks[0]),
            VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    return (double)((ticks[1] - ticks[0]) & raw->timestamp_mask) * raw->properties.limits.timestampPeriod * 1e-3
            / CHAIN_LENGTH;
}

struct raw_execution
{
    struct raw *raw;
    VkCommandBuffer cmd;
};

static void raw_execute_callback(void *context)
{
    struct raw_execution *execution = context;

    raw_submit(execution->raw, execution->cmd);
}

static void raw_time_chains(struct bench *b, struct raw *raw, struct dispatch_result *d)
{
    struct raw_execution execution = {raw, raw->cmd[RAW_BARE_CHAIN]};
    double *samples[2];
    unsigned int run, i;

    samples[0] = calloc(d->runs, sizeof(double));
    samples[1] = calloc(d->runs, sizeof(double));
    warm_up(b, CHAIN_LENGTH, raw_execute_callback, &execution);
    /* Alternated, so clock changes during the runs affect both alike. */
    for (run = 0; samples[0] && samples[1] && run < d->runs; ++run)
    {
        progress_update(b, "small-dispatch", "raw chains", run, d->runs);
        for (i = 0; i < 2; ++i)
            samples[i][run] = raw_time_chain(raw, i);
    }
    if (samples[0] && samples[1])
    {
        d->embed_gpu_us = median_of(samples[0], d->runs);
        d->bare_gpu_us = median_of(samples[1], d->runs);
    }
    free(samples[0]);
    free(samples[1]);
}

/* CPU µs per vkdml_record_dispatch_vk and per bare triple, into the scratch command buffer. */
static void raw_time_recording(struct raw *raw, struct dispatch_result *d)
{
    double vkdml_us[RECORD_REPEATS], bare_us[RECORD_REPEATS];
    VkCommandBuffer cmd = raw->cmd[RAW_SCRATCH];
    unsigned int repeat, i;
    uint64_t start;

    for (repeat = 0; repeat < RECORD_REPEATS; ++repeat)
    {
        raw_begin(cmd);
        start = now_ns();
        for (i = 0; i < RECORD_CALLS; ++i)
            vkdml_record_dispatch_vk(raw->recorder, cmd, raw->compiled, raw->tables[0], NULL);
        vkdml_us[repeat] = (now_ns() - start) * 1e-3 / RECORD_CALLS;
        vkEndCommandBuffer(cmd);
        raw_begin(cmd);
        start = now_ns();
        for (i = 0; i < RECORD_CALLS; ++i)
            raw_record_bare(raw, cmd, 0);
        bare_us[repeat] = (now_ns() - start) * 1e-3 / RECORD_CALLS;
        vkEndCommandBuffer(cmd);
    }
    d->embed_record_us = median_of(vkdml_us, RECORD_REPEATS);
    d->bare_record_us = median_of(bare_us, RECORD_REPEATS);
}

static unsigned int release_unknown(IUnknown *object)
{
    return object ? object->lpVtbl->Release(object) : 0;
}

static void raw_destroy(struct raw *raw)
{
    unsigned int i;

    if (raw->device)
        vkDeviceWaitIdle(raw->device);
    for (i = 0; i < 2; ++i)
        release_unknown((IUnknown *)raw->tables[i]);
    release_unknown((IUnknown *)raw->compiled);
    for (i = 0; i < RAW_BUFFER_COUNT; ++i)
        release_unknown((IUnknown *)raw->wrapped[i]);
    release_unknown((IUnknown *)raw->heap);
    release_unknown((IUnknown *)raw->recorder);
    release_unknown((IUnknown *)raw->dml);
    if (release_unknown((IUnknown *)raw->d3d12))
        fprintf(stderr, "vkdml-bench: the embedded D3D12 device still has references\n");
    for (i = 0; raw->device && i < RAW_BUFFER_COUNT; ++i)
        raw_destroy_buffer(raw, &raw->buffers[i]);
    if (raw->device)
    {
        vkDestroyPipeline(raw->device, raw->pipeline, NULL);
        vkDestroyPipelineLayout(raw->device, raw->layout, NULL);
        vkDestroyShaderModule(raw->device, raw->module, NULL);
        vkDestroyQueryPool(raw->device, raw->queries, NULL);
        vkDestroyFence(raw->device, raw->fence, NULL);
        vkDestroyCommandPool(raw->device, raw->pool, NULL);
        vkDestroyDevice(raw->device, NULL);
    }
    if (raw->messenger)
    {
        PFN_vkDestroyDebugUtilsMessengerEXT destroy = (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
                raw->instance, "vkDestroyDebugUtilsMessengerEXT");

        if (destroy)
            destroy(raw->instance, raw->messenger, NULL);
    }
    if (raw->instance)
        vkDestroyInstance(raw->instance, NULL);
}

/* Instance, device on the shim's adapter, command buffers, the bare pipeline; NULL, or why the raw
 * part cannot run here. `features` receives the enabled feature chain. */
static const char *raw_open(struct bench *b, struct raw *raw, VkPhysicalDeviceFeatures2 *features,
        VkPhysicalDeviceVulkan12Features *features12, VkPhysicalDeviceVulkan13Features *features13)
{
    const char *why;

    if (raw_create_instance(raw) < 0)
        return "no Vulkan 1.3 instance through the system loader";
    if ((why = raw_pick_device(raw, b->adapter.device_uuid)) || (why = raw_create_device(raw, features, features12,
            features13)) || (why = raw_create_commands(raw)) || (why = raw_create_pipeline(raw)))
        return why;
    return NULL;
}

/* Everything up to recorded chains; NULL, or why the raw part cannot run here. */
static const char *raw_setup(struct bench *b, struct raw *raw, struct chain *c)
{
    VkPhysicalDeviceVulkan13Features features13;
    VkPhysicalDeviceVulkan12Features features12;
    VkPhysicalDeviceFeatures2 features;
    const char *why;
    unsigned int i;

    if ((why = raw_open(b, raw, &features, &features12, &features13)))
        return why;
    for (i = 0; i < RAW_BUFFER_COUNT; ++i)
    {
        if ((why = raw_create_buffer(raw, CHAIN_ELEMENTS * sizeof(float), true, &raw->buffers[i])))
            return why;
    }
    if ((why = raw_create_vkdml(raw, &features)) || (why = raw_compile(raw, &c->w)) || (why = raw_bind(raw)))
        return why;
    if (!raw_record_chain(raw, RAW_VKDML_CHAIN) || !raw_record_chain(raw, RAW_BARE_CHAIN))
        return "vkdml_record_dispatch_vk failed (the log says why)";
    return NULL;
}

static void run_raw_dispatch(struct bench *b, struct chain *c, struct dispatch_result *d)
{
    struct raw raw;
    const char *why;

    memset(&raw, 0, sizeof(raw));
    if ((why = raw_setup(b, &raw, c)))
        snprintf(d->raw_reason, sizeof(d->raw_reason), "%s", why);
    else
    {
        if (b->check && !raw_check(&raw, c))
            d->check = 0;
        raw_time_chains(b, &raw, d);
        raw_time_recording(&raw, d);
        d->have_raw = true;
    }
    raw_destroy(&raw);
    if (atomic_load(&raw.messages))
        atomic_fetch_add(&validation_messages, atomic_load(&raw.messages));
}

/* ---- The bare-Vulkan bandwidth baseline: result = a + b on large device-local buffers ---- */

enum bare_buffer
{
    BARE_A,
    BARE_B,
    BARE_RESULT,
    BARE_BUFFER_COUNT,
};

/* Inputs of 1.0 and 2.0 (vkCmdFillBuffer): values do not change a streaming kernel's speed. */
static const char *bare_add_create(struct raw *raw, UINT64 count, struct raw_buffer *buffers)
{
    static const uint32_t patterns[BARE_BUFFER_COUNT] = {0x3f800000u, 0x40000000u, 0};
    VkCommandBuffer cmd = raw->cmd[RAW_SCRATCH];
    const char *why;
    unsigned int i;

    for (i = 0; i < BARE_BUFFER_COUNT; ++i)
    {
        if ((why = raw_create_buffer(raw, count * sizeof(float), false, &buffers[i])))
            return why;
    }
    raw_begin(cmd);
    for (i = 0; i < BARE_BUFFER_COUNT; ++i)
        vkCmdFillBuffer(cmd, buffers[i].buffer, 0, VK_WHOLE_SIZE, patterns[i]);
    raw_barrier(cmd, VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
            VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
            VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    vkEndCommandBuffer(cmd);
    raw_submit(raw, cmd);
    return NULL;
}

/* `batch` adds, each between two timestamps (as vkdml's profiler places them) and followed by a
 * UAV barrier, in the scratch command buffer. */
static void bare_add_record(struct raw *raw, UINT64 count, const struct raw_buffer *buffers, unsigned int batch)
{
    VkCommandBuffer cmd = raw->cmd[RAW_SCRATCH];
    unsigned int i;

    raw_begin(cmd);
    vkCmdResetQueryPool(cmd, raw->queries, RAW_CHAIN_QUERIES, 2 * batch);
    for (i = 0; i < batch; ++i)
    {
        vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, raw->queries, RAW_CHAIN_QUERIES + 2 * i);
        raw_record_add(raw, cmd, buffers[BARE_A].address, buffers[BARE_B].address, buffers[BARE_RESULT].address,
                count);
        vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, raw->queries, RAW_CHAIN_QUERIES + 2 * i + 1);
        raw_uav_barrier(cmd);
    }
    vkEndCommandBuffer(cmd);
}

/* Warm-up, then the batch until `iterations` adds are timed (µs into gpu_us). */
static void bare_add_time(struct bench *b, struct raw *raw, unsigned int batch, double *gpu_us, const char *name)
{
    struct raw_execution execution = {raw, raw->cmd[RAW_SCRATCH]};
    double period = raw->properties.limits.timestampPeriod;
    uint64_t ticks[2 * MAX_BATCH];
    unsigned int samples = 0, i;

    warm_up(b, batch, raw_execute_callback, &execution);
    while (samples < b->iterations)
    {
        progress_update(b, name, "timed", samples, b->iterations);
        raw_submit(raw, raw->cmd[RAW_SCRATCH]);
        vkGetQueryPoolResults(raw->device, raw->queries, RAW_CHAIN_QUERIES, 2 * batch, sizeof(ticks), ticks,
                sizeof(ticks[0]), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
        for (i = 0; i < batch && samples < b->iterations; ++i)
            gpu_us[samples++] = (double)((ticks[2 * i + 1] - ticks[2 * i]) & raw->timestamp_mask) * period * 1e-3;
    }
}

/* What a plain Vulkan kernel gets from memory, timed as vkdml's operators are: the ceiling for
 * vkdml's ELEMENT_WISE_ADD of the same size, measured in the same run. */
static void run_bare_add(struct bench *b, const struct preset *p, struct result *r)
{
    unsigned int batch = b->iterations < MAX_BATCH ? b->iterations : MAX_BATCH;
    struct raw_buffer buffers[BARE_BUFFER_COUNT];
    VkPhysicalDeviceVulkan13Features features13;
    VkPhysicalDeviceVulkan12Features features12;
    VkPhysicalDeviceFeatures2 features;
    UINT dims[MAX_DIMS];
    struct raw raw;
    double *gpu_us = calloc(b->iterations, sizeof(*gpu_us));
    const char *why;
    unsigned int i;

    memset(&raw, 0, sizeof(raw));
    memset(buffers, 0, sizeof(buffers));
    if (parse_shape(p->shape, dims) != 1 || dims[0] % 4)
        fail(r, "the bare add takes one dimension, a multiple of 4");
    else if (!gpu_us)
        fail(r, "out of memory");
    else if ((why = raw_open(b, &raw, &features, &features12, &features13))
            || (why = bare_add_create(&raw, dims[0], buffers)))
        skip(r, "%s", why);
    else
    {
        bare_add_record(&raw, dims[0], buffers, batch);
        bare_add_time(b, &raw, batch, gpu_us, r->name);
        statistics(gpu_us, b->iterations, &r->gpu_min_us, &r->gpu_median_us, &r->gpu_p90_us);
        r->bytes = 3.0 * dims[0] * sizeof(float);
        r->flops = dims[0];
        derive_rates(b, p, r);
    }
    for (i = 0; raw.device && i < BARE_BUFFER_COUNT; ++i)
        raw_destroy_buffer(&raw, &buffers[i]);
    raw_destroy(&raw);
    if (atomic_load(&raw.messages))
        atomic_fetch_add(&validation_messages, atomic_load(&raw.messages));
    free(gpu_us);
}

#else

static void run_raw_dispatch(struct bench *b, struct chain *c, struct dispatch_result *d)
{
    snprintf(d->raw_reason, sizeof(d->raw_reason), "built without the Vulkan loader (no bare baseline)");
}

static void run_bare_add(struct bench *b, const struct preset *p, struct result *r)
{
    skip(r, "built without the Vulkan loader (no bare baseline)");
}

#endif /* VKDML_BENCH_NO_VULKAN */

static void run_small_dispatch(struct bench *b)
{
    struct dispatch_result *d = &b->dispatch;
    struct chain *c = calloc(1, sizeof(*c));

    memset(d, 0, sizeof(*d));
    b->dispatch_run = true;
    d->chain_length = CHAIN_LENGTH;
    d->elements = CHAIN_ELEMENTS;
    d->runs = b->iterations;
    d->check = -1;
    d->status = STATUS_FAILED;
    if (!c)
        snprintf(d->reason, sizeof(d->reason), "out of memory");
    else if (create_chain(b, c, d) && time_shim_chain(b, c, d))
    {
        time_shim_recording(b, c, d);
        run_raw_dispatch(b, c, d);
        d->status = STATUS_OK;
    }
    if (c)
        release_chain(c);
    free(c);
}

/* ---- Output: the text table ---- */

static const char *unit_of(bool compute_bound)
{
    return compute_bound ? "TFLOP/s" : "GB/s";
}

static const char *check_text(int check)
{
    return check < 0 ? "-" : check ? "pass" : "MISMATCH";
}

static const char *result_check_text(const struct result *r)
{
    return r->no_reference ? "no reference" : check_text(r->check);
}

static void print_header(struct bench *b)
{
    fprintf(b->text, "vkdml-bench %s on [%d] %s (%s%s%s, Vulkan %u.%u.%u)\n", vkdml_get_version_string(),
            b->adapter_index, b->adapter.name, b->adapter.driver_name, b->adapter.driver_info[0] ? " " : "",
            b->adapter.driver_info, b->adapter.api_version >> 22 & 0x7fu, b->adapter.api_version >> 12 & 0x3ffu,
            b->adapter.api_version & 0xfffu);
    fprintf(b->text, "GPU time: vkdml profiler timestamps around each dispatch, %u timed after a warm-up of %u and "
            "%.0f ms; rate from the median\n\n", b->iterations, b->warmup, b->warmup_ms);
    fprintf(b->text, "%-30s %-6s %-23s %10s %10s %10s %16s %13s %6s %6s %10s %8s %s\n", "workload", "type", "shape",
            "median us", "min us", "p90 us", "rate", "anchor", "ratio", "doc", "bar", "rec us", "check");
}

static void print_result(struct bench *b, const struct result *r)
{
    char rate[32] = "", anchor[32] = "", ratio[16] = "", doc_ratio[16] = "", target[24] = "", record[16] = "-";

    if (r->status != STATUS_OK)
    {
        fprintf(b->text, "%-30s %-6s %-23s %s: %s\n", r->name, type_name(r->type), r->shape, status_names[r->status],
                r->reason);
        return;
    }
    snprintf(rate, sizeof(rate), "%.4g %s", r->rate, unit_of(r->compute_bound));
    if (r->anchor)
    {
        snprintf(anchor, sizeof(anchor), "%.4g%s", r->anchor, r->anchor_measured ? " (run)" : " (doc)");
        snprintf(ratio, sizeof(ratio), "%.3f", r->ratio);
    }
    if (r->anchor_measured && r->doc_anchor)
        snprintf(doc_ratio, sizeof(doc_ratio), "%.3f", r->doc_ratio);
    if (verdict(r) >= 0)
        snprintf(target, sizeof(target), "%.2f %s", r->target, verdict(r) ? "met" : "MISS");
    if (r->record_us)
        snprintf(record, sizeof(record), "%.2f", r->record_us);
    fprintf(b->text, "%-30s %-6s %-23s %10.2f %10.2f %10.2f %16s %13s %6s %6s %10s %8s %s\n", r->name,
            type_name(r->type), r->shape, r->gpu_median_us, r->gpu_min_us, r->gpu_p90_us, rate, anchor, ratio,
            doc_ratio, target, record, result_check_text(r));
    fflush(b->text);
}

static void print_dispatch(struct bench *b, const struct dispatch_result *d)
{
    if (d->status != STATUS_OK)
    {
        fprintf(b->text, "%-26s failed: %s\n", "small-dispatch", d->reason);
        return;
    }
    fprintf(b->text, "\nsmall dispatches: %u dependent ELEMENT_WISE_ADDs of %u floats, UAV barrier after each "
            "(median of %u runs), check: %s\n", d->chain_length, d->elements, d->runs, check_text(d->check));
    fprintf(b->text, "  GPU per dispatch, shim command list:        %8.2f us (target <= %.0f us)\n", d->shim_gpu_us,
            TARGET_DISPATCH_US);
    if (d->have_raw)
    {
        fprintf(b->text, "  GPU per dispatch, vkdml_record_dispatch_vk: %8.2f us\n", d->embed_gpu_us);
        fprintf(b->text, "  GPU per dispatch, bare Vulkan:              %8.2f us\n", d->bare_gpu_us);
    }
    fprintf(b->text, "  CPU per RecordDispatch (shim list):         %8.3f us", d->shim_record_us);
    if (d->have_raw)
        fprintf(b->text, " = %.2fx bare (target <= %.0fx)", d->shim_record_us / d->bare_record_us,
                TARGET_RECORD_RATIO);
    fputc('\n', b->text);
    if (d->have_raw)
    {
        fprintf(b->text, "  CPU per vkdml_record_dispatch_vk:           %8.3f us = %.2fx bare\n", d->embed_record_us,
                d->embed_record_us / d->bare_record_us);
        fprintf(b->text, "  CPU per bare bind + push + dispatch:        %8.3f us\n", d->bare_record_us);
    }
    else
        fprintf(b->text, "  no bare-Vulkan baseline: %s\n", d->raw_reason);
    fflush(b->text);
}

/* ---- Output: JSON ---- */

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; ++s)
    {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", (unsigned int)(unsigned char)*s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

/* A number, or null for "none" (0) and non-finite values. */
static void json_number(FILE *f, double value, bool zero_is_null)
{
    if (!isfinite(value) || (zero_is_null && value == 0.0))
        fputs("null", f);
    else
        fprintf(f, "%.6g", value);
}

static void date_text(char *text, size_t size)
{
    time_t now = time(NULL);
    struct tm tm;

    gmtime_r(&now, &tm);
    strftime(text, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void json_result(FILE *f, const struct result *r)
{
    fputs("    {\"name\": ", f);
    json_string(f, r->name);
    fputs(", \"op\": ", f);
    json_string(f, r->op);
    fputs(", \"operator\": ", f);
    json_string(f, r->operator_name);
    fprintf(f, ", \"type\": \"%s\", \"shape\": ", type_name(r->type));
    json_string(f, r->shape);
    fprintf(f, ", \"broadcast\": %s, \"status\": \"%s\", \"reason\": ", r->broadcast ? "true" : "false",
            status_names[r->status]);
    json_string(f, r->reason);
    if (r->status == STATUS_OK)
    {
        fprintf(f, ",\n      \"iterations\": %u, \"warmup\": %u, \"gpu_us\": {\"min\": %.4f, \"median\": %.4f, "
                "\"p90\": %.4f}, \"record_dispatch_cpu_us\": %.4f,\n      \"bytes\": %.0f, \"flops\": %.0f, "
                "\"rate\": %.6g, \"unit\": \"%s\", \"anchor\": ", r->iterations, r->warmup, r->gpu_min_us,
                r->gpu_median_us, r->gpu_p90_us, r->record_us, r->bytes, r->flops, r->rate, unit_of(r->compute_bound));
        json_number(f, r->anchor, true);
        fputs(", \"anchor_source\": ", f);
        json_string(f, r->anchor_source);
        fputs(", \"anchor_performance_md\": ", f);
        json_number(f, r->doc_anchor, true);
        fputs(", \"ratio\": ", f);
        json_number(f, r->ratio, true);
        fputs(", \"ratio_performance_md\": ", f);
        json_number(f, r->doc_ratio, true);
        fputs(", \"target\": ", f);
        json_number(f, r->target, true);
        fprintf(f, ", \"meets_target\": %s", verdict(r) < 0 ? "null" : verdict(r) ? "true" : "false");
        if (r->check >= 0)
            fprintf(f, ",\n      \"check\": {\"status\": \"%s\", \"checked\": %llu, \"mismatches\": %llu}",
                    r->check ? "pass" : "mismatch", (unsigned long long)r->checked,
                    (unsigned long long)r->mismatches);
        else if (r->no_reference)
            fputs(",\n      \"check\": {\"status\": \"no reference\", \"checked\": 0, \"mismatches\": 0}", f);
    }
    fputs("}", f);
}

static void json_dispatch(FILE *f, const struct dispatch_result *d)
{
    fprintf(f, "  \"small_dispatch\": {\"status\": \"%s\", \"reason\": ", status_names[d->status]);
    json_string(f, d->reason);
    if (d->status == STATUS_OK)
    {
        fprintf(f, ", \"chain_length\": %u, \"elements\": %u, \"runs\": %u,\n    \"gpu_us_per_dispatch\": "
                "{\"shim\": %.4f, \"vkdml_record_dispatch_vk\": ", d->chain_length, d->elements, d->runs,
                d->shim_gpu_us);
        json_number(f, d->have_raw ? d->embed_gpu_us : 0.0, true);
        fputs(", \"bare_vulkan\": ", f);
        json_number(f, d->have_raw ? d->bare_gpu_us : 0.0, true);
        fprintf(f, "}, \"target_gpu_us_per_dispatch\": %.1f,\n    \"record_cpu_us\": {\"shim\": %.4f, "
                "\"vkdml_record_dispatch_vk\": ", TARGET_DISPATCH_US, d->shim_record_us);
        json_number(f, d->have_raw ? d->embed_record_us : 0.0, true);
        fputs(", \"bare_vulkan\": ", f);
        json_number(f, d->have_raw ? d->bare_record_us : 0.0, true);
        fputs("}, \"record_ratio_to_bare\": ", f);
        json_number(f, d->have_raw ? d->shim_record_us / d->bare_record_us : 0.0, true);
        fprintf(f, ", \"target_record_ratio\": %.1f, \"raw_vulkan_note\": ", TARGET_RECORD_RATIO);
        json_string(f, d->raw_reason);
        fprintf(f, ", \"check\": %s", d->check < 0 ? "null" : d->check ? "\"pass\"" : "\"mismatch\"");
    }
    fputs("},\n", f);
}

static void write_json(struct bench *b, FILE *f, bool ok)
{
    char date[32];
    unsigned int i;

    date_text(date, sizeof(date));
    fputs("{\n  \"tool\": \"vkdml-bench\", \"vkdml_version\": ", f);
    json_string(f, vkdml_get_version_string());
    fprintf(f, ", \"date\": \"%s\",\n  \"device\": {\"index\": %d, \"name\": ", date, b->adapter_index);
    json_string(f, b->adapter.name);
    fputs(", \"driver_name\": ", f);
    json_string(f, b->adapter.driver_name);
    fputs(", \"driver_info\": ", f);
    json_string(f, b->adapter.driver_info);
    fprintf(f, ", \"vulkan\": \"%u.%u.%u\", \"vendor_id\": %u, \"device_id\": %u, \"is_software\": %s},\n",
            b->adapter.api_version >> 22 & 0x7fu, b->adapter.api_version >> 12 & 0x3ffu,
            b->adapter.api_version & 0xfffu, b->adapter.vendor_id, b->adapter.device_id,
            b->adapter.is_software ? "true" : "false");
    fprintf(f, "  \"settings\": {\"iterations\": %u, \"warmup\": %u, \"warmup_ms\": %.0f, \"check\": %s, "
            "\"timing\": \"vkdml profiler GPU timestamps around each dispatch, UAV barrier between dispatches\"},\n",
            b->iterations, b->warmup, b->warmup_ms, b->check ? "true" : "false");
    fputs("  \"results\": [\n", f);
    for (i = 0; i < b->result_count; ++i)
    {
        json_result(f, &b->results[i]);
        fputs(i + 1 < b->result_count ? ",\n" : "\n", f);
    }
    fputs("  ],\n", f);
    if (b->dispatch_run)
        json_dispatch(f, &b->dispatch);
    fprintf(f, "  \"validation_messages\": %u, \"ok\": %s\n}\n", atomic_load(&validation_messages),
            ok ? "true" : "false");
}

/* ---- Output: markdown ---- */

static void markdown_result(FILE *f, const struct result *r)
{
    const char *unit = unit_of(r->compute_bound);

    if (r->status != STATUS_OK)
    {
        fprintf(f, "| %s | %s: %s | | | | | |\n", r->name, status_names[r->status], r->reason);
        return;
    }
    fprintf(f, "| %s | %.4g %s (%.4g ms) |", r->name, r->rate, unit, r->gpu_median_us * 1e-3);
    if (r->anchor_measured)
        fprintf(f, " %.4g %s | %.2fx |", r->anchor, unit, r->ratio);
    else
        fputs(" | |", f);
    if (r->doc_anchor)
        fprintf(f, " %.4g %s | %.2fx |", r->doc_anchor, unit, r->doc_ratio);
    else
        fputs(" | |", f);
    if (verdict(r) >= 0)
        fprintf(f, " >= %.2fx: %s |\n", r->target, verdict(r) ? "met" : "**missed**");
    else
        fputs(" |\n", f);
}

static void markdown_dispatch(FILE *f, const struct dispatch_result *d)
{
    if (d->status != STATUS_OK)
    {
        fprintf(f, "| small-dispatch | failed: %s | | | | | |\n", d->reason);
        return;
    }
    fprintf(f, "| chain of %u dependent small dispatches | %.2f us per dispatch", d->chain_length, d->shim_gpu_us);
    if (d->have_raw)
        fprintf(f, " (bare Vulkan %.2f)", d->bare_gpu_us);
    fprintf(f, " | | | | | <= %.0f us: %s |\n", TARGET_DISPATCH_US, d->shim_gpu_us <= TARGET_DISPATCH_US ? "met"
            : "**missed**");
    if (!d->have_raw)
    {
        fprintf(f, "| RecordDispatch, CPU | %.3f us (no bare baseline: %s) | | | | | |\n", d->shim_record_us,
                d->raw_reason);
        return;
    }
    fprintf(f, "| RecordDispatch, CPU | %.3f us (bare bind+push+dispatch %.3f us) | | %.2fx | | | <= %.0fx: %s |\n",
            d->shim_record_us, d->bare_record_us, d->shim_record_us / d->bare_record_us, TARGET_RECORD_RATIO,
            d->shim_record_us / d->bare_record_us <= TARGET_RECORD_RATIO ? "met" : "**missed**");
}

static void write_markdown(struct bench *b, FILE *f)
{
    char date[32];
    unsigned int i;

    date_text(date, sizeof(date));
    fprintf(f, "vkdml-bench %s, %.10s: **%s**, driver %s %s, Vulkan %u.%u.%u. GPU time from vkdml's profiler "
            "(timestamps around each dispatch), median of %u after a warm-up of %u and %.0f ms.\n\n",
            vkdml_get_version_string(), date, b->adapter.name, b->adapter.driver_name, b->adapter.driver_info,
            b->adapter.api_version >> 22 & 0x7fu, b->adapter.api_version >> 12 & 0x3ffu,
            b->adapter.api_version & 0xfffu, b->iterations, b->warmup, b->warmup_ms);
    if (b->anchor_count)
        fprintf(f, "Anchors: %s; and performance.md's figures (PyTorch 2.11 on an H200; element-wise fp16 and "
                "broadcast cases held to the fp32 add's bandwidth). A first bar is met only against both.\n\n",
                b->anchor_source);
    else
        fputs("Anchors: performance.md's figures (PyTorch 2.11 on an H200; element-wise fp16 and broadcast cases held "
                "to the fp32 add's bandwidth).\n\n", f);
    fputs("| workload | vkdml | anchor, this run | ratio | performance.md | ratio | first bar |\n"
            "|---|---|---|---|---|---|---|\n", f);
    for (i = 0; i < b->result_count; ++i)
        markdown_result(f, &b->results[i]);
    if (b->dispatch_run)
        markdown_dispatch(f, &b->dispatch);
}

/* ---- Output: Chrome trace ---- */

static void write_trace(struct bench *b, FILE *f)
{
    uint64_t origin = UINT64_MAX;
    size_t i;

    for (i = 0; i < b->trace_count; ++i)
        origin = b->trace[i].start_ns < origin ? b->trace[i].start_ns : origin;
    fputs("{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n", f);
    fputs("  {\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": ", f);
    json_string(f, b->adapter.name);
    fputs("}}", f);
    /* tid 0: the small-dispatch chain (its first and last dispatch); tid i + 1: result i. */
    if (b->dispatch_run)
        fputs(",\n  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 0, \"args\": "
                "{\"name\": \"small-dispatch\"}}", f);
    for (i = 0; i < b->result_count; ++i)
    {
        fprintf(f, ",\n  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": %zu, \"args\": {\"name\": ",
                i + 1);
        json_string(f, b->results[i].name);
        fputs("}}", f);
    }
    for (i = 0; i < b->trace_count; ++i)
    {
        fputs(",\n  {\"name\": ", f);
        json_string(f, b->trace[i].name);
        fprintf(f, ", \"ph\": \"X\", \"pid\": 1, \"tid\": %u, \"ts\": %.3f, \"dur\": %.3f}", b->trace[i].tid,
                (b->trace[i].start_ns - origin) * 1e-3, (b->trace[i].end_ns - b->trace[i].start_ns) * 1e-3);
    }
    fputs("\n]}\n", f);
}

static bool write_file(struct bench *b, const char *path, void (*writer)(struct bench *b, FILE *f, bool ok), bool ok)
{
    FILE *f = !strcmp(path, "-") ? stdout : fopen(path, "w");

    if (!f)
    {
        fprintf(stderr, "vkdml-bench: cannot write %s\n", path);
        return false;
    }
    writer(b, f, ok);
    return f == stdout ? !fflush(f) : !fclose(f);
}

static void json_writer(struct bench *b, FILE *f, bool ok)
{
    write_json(b, f, ok);
}

static void markdown_writer(struct bench *b, FILE *f, bool ok)
{
    write_markdown(b, f);
}

static void trace_writer(struct bench *b, FILE *f, bool ok)
{
    write_trace(b, f);
}

/* ---- Running the selection ---- */

/* A result slot named after the preset, or after the op/shape/type for --op. */
static struct result *new_result(struct bench *b, const char *name, const char *op, DML_TENSOR_DATA_TYPE type,
        const char *shape, bool broadcast)
{
    struct result *r = &b->results[b->result_count++];

    memset(r, 0, sizeof(*r));
    snprintf(r->name, sizeof(r->name), "%s", name);
    snprintf(r->op, sizeof(r->op), "%s", op);
    snprintf(r->shape, sizeof(r->shape), "%s", shape);
    r->type = type;
    r->broadcast = broadcast;
    r->iterations = b->iterations;
    r->warmup = b->warmup;
    r->check = -1;
    return r;
}

/* The preset with the same workload, for its anchor: --op add --shape 67108864 gets add-256MiB's. */
static const struct preset *matching_preset(const struct workload *w)
{
    UINT dims[MAX_DIMS];
    size_t i;

    for (i = 0; i < ARRAY_SIZE(presets); ++i)
    {
        const struct preset *p = &presets[i];

        if (find_op(p->op) == w->op && p->type == w->type && p->broadcast == w->broadcast
                && parse_shape(p->shape, dims) == w->dim_count && !memcmp(dims, w->dims, w->dim_count * sizeof(UINT)))
            return p;
    }
    return NULL;
}

/* Why `op` cannot run in `type` with that shape, NULL when it can; `*refused` says whether that is a
 * failure rather than a skip: implemented but not buildable, or a shape its family rejects
 * (`lenient`, for several operators from one --op: a skip too). */
static const char *unfit(const struct op_info *op, DML_TENSOR_DATA_TYPE type, struct workload *w, const char *shape,
        bool lenient, bool *refused, char *why, size_t size)
{
    char types[128];

    *refused = false;
    if (!op->family)
    {
        *refused = op->implemented;
        snprintf(why, size, op->implemented ? "%s is implemented in vkdml, but vkdml-bench cannot build it: give it a "
                "family in tools/vkdml-bench-ops.c" : "%s is not implemented in vkdml, nor can vkdml-bench build it",
                op->schema->name);
    }
    else if (!op_takes_type(op, type))
    {
        type_set_text(op_types(op), types, sizeof(types));
        snprintf(why, size, "%s does not take %s tensors (%s)", op->schema->name, type_name(type), types);
    }
    else if (!(w->dim_count = parse_shape(shape, w->dims)))
    {
        *refused = !lenient;
        snprintf(why, size, "malformed shape '%s' (%s: %s)", shape, op->family->name, op->family->shape_help);
    }
    else
        return NULL;
    return why;
}

/* One workload of `op_name`; `lenient` as unfit() takes it. */
static void run_one(struct bench *b, const char *name, const char *op_name, DML_TENSOR_DATA_TYPE type,
        const char *shape, bool broadcast, bool lenient)
{
    struct result *r = new_result(b, name, op_name, type, shape, broadcast);
    struct workload *w = calloc(1, sizeof(*w));
    const struct op_info *op = find_op(op_name);
    const char *problem;
    bool refused;
    char why[256];

    progress_begin(b, name);
    if (!w)
        fail(r, "out of memory");
    else if (!op)
        fail(r, "unknown operator '%s' (--list shows them)", op_name);
    else if (unfit(op, type, w, shape, lenient, &refused, why, sizeof(why)))
        (refused ? fail : skip)(r, "%s", why);
    else
    {
        snprintf(r->operator_name, sizeof(r->operator_name), "%s", op->schema->name);
        w->op = op;
        w->type = type;
        w->broadcast = broadcast;
        r->compute_bound = op->family->compute_bound;
        if ((problem = build_workload(w)))
            (lenient ? skip : fail)(r, "%s", problem);
        else
            run_workload(b, w, matching_preset(w), r);
    }
    free(w);
    progress_end(b);
    print_result(b, r);
}

static void run_preset(struct bench *b, const struct preset *p)
{
    struct result *r;

    if (!strcmp(p->op, BARE_ADD_OP))
    {
        r = new_result(b, p->name, p->op, p->type, p->shape, false);
        snprintf(r->operator_name, sizeof(r->operator_name), "bare Vulkan vec4 add");
        progress_begin(b, p->name);
        run_bare_add(b, p, r);
        progress_end(b);
        print_result(b, r);
        return;
    }
    if (strcmp(p->op, DISPATCH_OP))
    {
        run_one(b, p->name, p->op, p->type, p->shape, p->broadcast, false);
        return;
    }
    progress_begin(b, p->name);
    run_small_dispatch(b);
    progress_end(b);
    print_dispatch(b, &b->dispatch);
}

/* ---- Device ---- */

/* 0, 1 when no adapter matches, 77 when there is no Vulkan device at all (meson's "skipped"). */
static int create_device(struct bench *b)
{
    D3D12_COMMAND_QUEUE_DESC queue_desc = {D3D12_COMMAND_LIST_TYPE_DIRECT};
    D3D12_DESCRIPTOR_HEAP_DESC heap_desc = {D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV,
            HEAP_REGIONS * TABLE_DESCRIPTORS, D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, 0};
    HRESULT hr;

    if (vkdml_get_adapter_count() <= 0)
    {
        fprintf(stderr, "vkdml-bench: no Vulkan device\n");
        return 77;
    }
    if ((b->adapter_index = vkdml_select_adapter(b->selector)) < 0
            || vkdml_get_adapter_info((uint32_t)b->adapter_index, &b->adapter, sizeof(b->adapter)))
    {
        fprintf(stderr, "vkdml-bench: no usable Vulkan device%s%s\n", b->selector ? " matches " : "",
                b->selector ? b->selector : "");
        return 1;
    }
    if (FAILED(hr = vkdml_create_d3d12_device(b->selector, &IID_ID3D12Device, (void **)&b->device)))
        fatal_hr(hr, "vkdml_create_d3d12_device", __LINE__);
    CHECK(ID3D12Device_CreateCommandQueue(b->device, &queue_desc, &IID_ID3D12CommandQueue, (void **)&b->queue));
    CHECK(ID3D12Device_CreateFence(b->device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&b->fence));
    CHECK(ID3D12Device_CreateDescriptorHeap(b->device, &heap_desc, &IID_ID3D12DescriptorHeap, (void **)&b->heap));
    b->increment = ID3D12Device_GetDescriptorHandleIncrementSize(b->device, D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);
    CHECK(ID3D12Device_CreateCommandAllocator(b->device, D3D12_COMMAND_LIST_TYPE_DIRECT, &IID_ID3D12CommandAllocator,
            (void **)&b->setup_allocator));
    CHECK(ID3D12Device_CreateCommandAllocator(b->device, D3D12_COMMAND_LIST_TYPE_DIRECT, &IID_ID3D12CommandAllocator,
            (void **)&b->timed_allocator));
    CHECK(ID3D12Device_CreateCommandList(b->device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, b->setup_allocator, NULL,
            &IID_ID3D12GraphicsCommandList, (void **)&b->setup_list));
    CHECK(ID3D12Device_CreateCommandList(b->device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, b->timed_allocator, NULL,
            &IID_ID3D12GraphicsCommandList, (void **)&b->timed_list));
    CHECK(ID3D12GraphicsCommandList_Close(b->setup_list));
    CHECK(ID3D12GraphicsCommandList_Close(b->timed_list));
    CHECK(DMLCreateDevice(b->device, DML_CREATE_DEVICE_FLAG_NONE, &IID_IDMLDevice, (void **)&b->dml));
    CHECK(IDMLDevice_CreateCommandRecorder(b->dml, &IID_IDMLCommandRecorder, (void **)&b->recorder));
    return 0;
}

/* Everything to zero references; false when something leaked one. */
static bool destroy_device(struct bench *b)
{
    bool ok;

    ID3D12GraphicsCommandList_Release(b->timed_list);
    ID3D12GraphicsCommandList_Release(b->setup_list);
    ID3D12CommandAllocator_Release(b->timed_allocator);
    ID3D12CommandAllocator_Release(b->setup_allocator);
    IDMLCommandRecorder_Release(b->recorder);
    ok = !IDMLDevice_Release(b->dml);
    ID3D12DescriptorHeap_Release(b->heap);
    ID3D12Fence_Release(b->fence);
    ID3D12CommandQueue_Release(b->queue);
    ok &= !ID3D12Device_Release(b->device);
    if (!ok)
        fprintf(stderr, "vkdml-bench: a device's final Release left references\n");
    return ok;
}

/* ---- Options ---- */

static int usage(void)
{
    fprintf(stderr,
            "usage: vkdml-bench [options] [PRESET|GROUP ...]\n"
            "Times vkdml operators through the DirectML API with GPU timestamps (vkdml's profiler).\n"
            "  PRESET|GROUP ...        what to run (also --preset NAME[,NAME]); --list shows them. Default: the\n"
            "                          group 'gpu' on a GPU, 'smoke' on a CPU device (lavapipe)\n"
            "  --op OP[,OP...]|all     workloads of any operators (--list: names, types, shapes); 'all': every\n"
            "                          operator vkdml implements\n"
            "  --shape S|tiny          their shape; 'tiny': each family's small odd shape. Default: the family's\n"
            "                          default shape on a GPU, its tiny one on a CPU device\n"
            "  --type T|all            fp32, fp16, fp64, int8..int64, uint8..uint64, or every type the operator\n"
            "                          takes; default: the operator's first (fp32 where it takes it)\n"
            "  --broadcast             inputs after the first repeat their innermost row over the other dimensions\n"
            "  --iterations N          timed dispatches (default 100)\n"
            "  --warmup N              dispatches run before timing (default 10)\n"
            "  --warmup-ms MS          ... and for at least this long, so the GPU's clocks are up (default 300)\n"
            "  --check                 compare every output with a CPU reference (sampled for reductions); the\n"
            "                          table says 'no reference' for operators the bench has none for\n"
            "  --device SELECTOR       adapter index, UUID or name substring (default: VKDML_DEVICE, else the best)\n"
            "  --json FILE             results as JSON ('-': stdout, the table then goes to stderr)\n"
            "  --markdown FILE         a short markdown table: date, GPU, driver, figures, ratios\n"
            "  --chrome-trace FILE     the profiler's entries as a Chrome trace (chrome://tracing, Perfetto)\n"
            "  --anchor-ms PRESET=MS   the preset's time in another framework measured in this run: the ratio\n"
            "                          uses it instead of performance.md's figure (repeatable)\n"
            "  --anchor-source TEXT    what measured the --anchor-ms figures\n"
            "  --quiet                 no progress lines on stderr\n"
            "  --list                  presets, groups, and the operators with their support on the device\n"
            "Exit status: 0 when every workload ran or was skipped (not implemented, type unsupported), every\n"
            "check passed and no validation message was logged; 1 otherwise; 2 for a usage error; 77 when\n"
            "there is no Vulkan device at all.\n");
    return 2;
}

static void list_presets(void)
{
    size_t i, j;

    printf("presets (name: op type shape [groups]):\n");
    for (i = 0; i < ARRAY_SIZE(presets); ++i)
    {
        printf("  %-28s %-15s %s %s%s [", presets[i].name, presets[i].op, type_name(presets[i].type),
                presets[i].shape, presets[i].broadcast ? " broadcast" : "");
        for (j = 0; j + 1 < ARRAY_SIZE(groups); ++j)
        {
            if (presets[i].groups & groups[j].mask)
                printf(" %s", groups[j].name);
        }
        printf(" ]\n");
    }
    printf("groups:");
    for (j = 0; j < ARRAY_SIZE(groups); ++j)
        printf(" %s", groups[j].name);
    printf("\n");
}

/* The types the device runs the operator in; those it lacks a feature for in parentheses. */
static void support_text(const struct op_info *op, char *text, size_t size)
{
    char here[128], missing[128];

    if (!op->implemented)
        snprintf(text, size, "-");
    else if (!op->family)
        snprintf(text, size, "vkdml-bench cannot build it: it needs a family in tools/vkdml-bench-ops.c");
    else if (!op->data_types)
    {
        type_set_text(op_types(op), here, sizeof(here));
        snprintf(text, size, "%s (vkdml does not report its types)", here);
    }
    else
    {
        type_set_text(op->device_data_types, here, sizeof(here));
        type_set_text(op->data_types & ~op->device_data_types, missing, sizeof(missing));
        snprintf(text, size, "%s%s%s%s", here, missing[0] ? " (not on this device: " : "", missing,
                missing[0] ? ")" : "");
    }
}

/* Every operator the bench can build, and every one vkdml implements, with its support on the
 * device --device selects: one line each, the name and "yes" or "no" first (test/meson.build
 * reads them). */
static void list_operators(const char *selector)
{
    int adapter = vkdml_get_adapter_count() > 0 ? vkdml_select_adapter(selector) : -1;
    unsigned int count = catalogue_init(adapter), buildable = 0, implemented = 0, i;
    const struct family *shown[8];
    struct vkdml_adapter_info info;
    size_t families = 0, f;
    char text[384];

    if (adapter >= 0 && !vkdml_get_adapter_info(adapter, &info, sizeof(info)))
        printf("\noperators on [%d] %s (--op NAME[,NAME...], or all: every implemented one):\n", adapter, info.name);
    else
        printf("\noperators (no usable Vulkan device: which are implemented is unknown):\n");
    printf("  %-30s %-11s %-42s %-12s %-12s %s\n", "--op", "implemented", "DML_OPERATOR_", "family", "--check",
            "types on this device");
    for (i = 0; i < count; ++i)
    {
        const struct op_info *op = catalogue_entry(i);

        if (!op->family && !op->implemented)
            continue;
        buildable += op->family != NULL;
        implemented += op->implemented;
        support_text(op, text, sizeof(text));
        printf("  %-30s %-11s %-42s %-12s %-12s %s\n", op->name, op->implemented ? "yes" : "no", op->schema->name,
                op->family ? op->family->name : "-", op_has_reference(op) ? "fp32 fp16" : "no reference", text);
        for (f = 0; op->family && f < families && shown[f] != op->family; ++f)
            ;
        if (op->family && f == families && families < ARRAY_SIZE(shown))
            shown[families++] = op->family;
    }
    printf("%u operators vkdml-bench can build, %u implemented by vkdml; the other DirectML operators are "
            "neither.\nshapes (--shape; the default on a GPU, and 'tiny', the default on a CPU device):\n", buildable,
            implemented);
    for (f = 0; f < families; ++f)
        printf("  %-12s %s; default %s, tiny %s\n", shown[f]->name, shown[f]->shape_help, shown[f]->default_shape,
                shown[f]->tiny_shape);
}

struct selection
{
    bool chosen[ARRAY_SIZE(presets)];
    unsigned int count;
    const char *ops, *shape;            /* --op, --shape */
    DML_TENSOR_DATA_TYPE type;          /* UNKNOWN: each operator's default */
    bool all_types, broadcast, list;
};

/* A preset or group name, or a comma-separated list of them. */
static bool select_names(struct selection *s, const char *list)
{
    char name[128];
    size_t i, j, length;

    while (*list)
    {
        length = strcspn(list, ",");
        snprintf(name, sizeof(name), "%.*s", (int)length, list);
        list += length + (list[length] == ',');
        for (j = 0; j < ARRAY_SIZE(groups) && strcmp(groups[j].name, name); ++j)
            ;
        for (i = 0; i < ARRAY_SIZE(presets); ++i)
        {
            if (j < ARRAY_SIZE(groups) ? !!(presets[i].groups & groups[j].mask) : !strcmp(presets[i].name, name))
            {
                s->count += !s->chosen[i];
                s->chosen[i] = true;
                if (j == ARRAY_SIZE(groups))
                    break;
            }
        }
        if (j == ARRAY_SIZE(groups) && i == ARRAY_SIZE(presets))
        {
            fprintf(stderr, "vkdml-bench: no preset or group '%s' (--list shows them)\n", name);
            return false;
        }
    }
    return true;
}

static bool parse_count(const char *text, unsigned int min, unsigned int max, unsigned int *value)
{
    char *end;
    unsigned long parsed = strtoul(text, &end, 10);

    if (end == text || *end || parsed < min || parsed > max)
        return false;
    *value = (unsigned int)parsed;
    return true;
}

static bool parse_anchor(struct bench *b, const char *text)
{
    const char *equals = strchr(text, '=');
    struct anchor_override *anchor;
    char *end;

    if (!equals || equals == text || b->anchor_count == MAX_ANCHORS)
        return false;
    anchor = &b->anchors[b->anchor_count];
    snprintf(anchor->name, sizeof(anchor->name), "%.*s", (int)(equals - text), text);
    anchor->ms = strtod(equals + 1, &end);
    if (*end || !(anchor->ms > 0.0))
        return false;
    if (!find_preset(anchor->name))
        fprintf(stderr, "vkdml-bench: --anchor-ms: no preset '%s'; ignored\n", anchor->name);
    else
        ++b->anchor_count;
    return true;
}

/* An option with a value; false when the option is unknown or its value malformed. */
static bool parse_value_option(struct bench *b, struct selection *s, const char *arg, const char *value)
{
    unsigned int warmup_ms;

    if (!strcmp(arg, "--preset"))
        return select_names(s, value);
    if (!strcmp(arg, "--type"))
    {
        s->all_types = !strcmp(value, "all");
        s->type = parse_type(value);
        return s->all_types || s->type != DML_TENSOR_DATA_TYPE_UNKNOWN;
    }
    if (!strcmp(arg, "--iterations"))
        return parse_count(value, 1, 1000000, &b->iterations);
    if (!strcmp(arg, "--warmup"))
        return parse_count(value, 0, 1000000, &b->warmup);
    if (!strcmp(arg, "--warmup-ms"))
    {
        if (!parse_count(value, 0, 100000, &warmup_ms))
            return false;
        b->warmup_ms = warmup_ms;
        return true;
    }
    if (!strcmp(arg, "--anchor-ms"))
        return parse_anchor(b, value);
    if (!strcmp(arg, "--op"))
        s->ops = value;
    else if (!strcmp(arg, "--shape"))
        s->shape = value;
    else if (!strcmp(arg, "--device"))
        b->selector = value;
    else if (!strcmp(arg, "--json"))
        b->json_path = value;
    else if (!strcmp(arg, "--markdown"))
        b->markdown_path = value;
    else if (!strcmp(arg, "--chrome-trace"))
        b->trace_path = value;
    else if (!strcmp(arg, "--anchor-source"))
        b->anchor_source = value;
    else
        return false;
    return true;
}

/* Returns -1 to go on, else the exit status. */
static int parse_options(struct bench *b, struct selection *s, int argc, char **argv)
{
    int i;

    for (i = 1; i < argc; ++i)
    {
        const char *arg = argv[i];

        if (!strcmp(arg, "--check") || !strcmp(arg, "--quiet") || !strcmp(arg, "--broadcast")
                || !strcmp(arg, "--list"))
        {
            b->check |= arg[2] == 'c';
            b->quiet |= arg[2] == 'q';
            s->broadcast |= arg[2] == 'b';
            s->list |= arg[2] == 'l';
        }
        else if (arg[0] != '-')
        {
            if (!select_names(s, arg))
                return 2;
        }
        else if (i + 1 == argc || !parse_value_option(b, s, arg, argv[++i]))
            return usage();
    }
    if (s->shape && !s->ops)
    {
        fprintf(stderr, "vkdml-bench: --shape goes with --op\n");
        return 2;
    }
    return -1;
}

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

/* `op` in --type, in every type it takes (--type all), or in its default; false when out of memory. */
static bool add_jobs(struct plan *plan, const struct selection *s, const struct op_info *op)
{
    DML_TENSOR_DATA_TYPE types[MAX_TYPES];
    unsigned int count = 1, i;
    struct op_job *grown;

    if (s->all_types)
        count = op_type_list(op, types);
    else
        types[0] = s->type != DML_TENSOR_DATA_TYPE_UNKNOWN ? s->type : default_type(op);
    if (plan->count + count > plan->capacity)
    {
        if (!(grown = realloc(plan->jobs, (plan->capacity + 256) * sizeof(*grown))))
            return false;
        plan->jobs = grown;
        plan->capacity += 256;
    }
    for (i = 0; i < count; ++i)
    {
        plan->jobs[plan->count].op = op;
        plan->jobs[plan->count++].type = types[i];
    }
    return true;
}

/* Each operator --op names, or every implemented one for "all"; 0, or the exit status after a
 * message. */
static int plan_op_jobs(struct plan *plan, const struct selection *s)
{
    const char *list = s->ops;
    const struct op_info *op;
    bool ok = true;
    char name[64];
    size_t length;
    unsigned int i;

    while (*list && ok)
    {
        length = strcspn(list, ",");
        snprintf(name, sizeof(name), "%.*s", (int)length, list);
        list += length + (list[length] == ',');
        for (i = 0; !strcmp(name, "all") && (op = catalogue_entry(i)); ++i)
            ok &= !op->implemented || add_jobs(plan, s, op);
        if (strcmp(name, "all") && !(op = find_op(name)))
        {
            fprintf(stderr, "vkdml-bench: no operator '%s' (--list shows them)\n", name);
            return 2;
        }
        ok &= !strcmp(name, "all") || add_jobs(plan, s, op);
    }
    return ok ? 0 : 1;
}

/* --shape, the family's tiny shape for "tiny", else its default (the tiny one on a CPU device:
 * default shapes would take minutes there). */
static const char *job_shape(const struct bench *b, const struct selection *s, const struct op_info *op)
{
    if (!op->family)
        return s->shape ? s->shape : "";
    if (s->shape && strcmp(s->shape, "tiny"))
        return s->shape;
    return s->shape || b->adapter.is_software ? op->family->tiny_shape : op->family->default_shape;
}

static void run_selection(struct bench *b, const struct selection *s, const struct plan *plan)
{
    const struct op_job *jobs = plan->jobs;
    const char *shape;
    char name[160];
    unsigned int i;

    print_header(b);
    for (i = 0; i < ARRAY_SIZE(presets); ++i)
    {
        if (s->chosen[i])
        {
            ++b->position;
            run_preset(b, &presets[i]);
        }
    }
    for (i = 0; i < plan->count; ++i)
    {
        ++b->position;
        shape = job_shape(b, s, jobs[i].op);
        snprintf(name, sizeof(name), "%s-%s%s%s%s", jobs[i].op->name, shape, shape[0] ? "-" : "",
                type_name(jobs[i].type), s->broadcast ? "-broadcast" : "");
        run_one(b, name, jobs[i].op->name, jobs[i].type, shape, s->broadcast, plan->count > 1);
    }
}

/* Names the workloads --check could not check, so that no one takes "-" for "passed": operators
 * with their types ("acos fp32/fp16"). */
static void print_unchecked(struct bench *b)
{
    const char *last = NULL;
    unsigned int i;

    for (i = 0; i < b->result_count; ++i)
    {
        const struct result *r = &b->results[i];

        if (!r->no_reference)
            continue;
        if (last && !strcmp(last, r->op))
            fprintf(b->text, "/%s", type_name(r->type));
        else
            fprintf(b->text, "%s%s %s", last ? ", " : "\n--check: no CPU reference in vkdml-bench (timed, not "
                    "checked): ", r->op, type_name(r->type));
        last = r->op;
    }
    if (last)
        fputc('\n', b->text);
}

/* Releases the device, writes the files; whether everything ran, checked and released cleanly. */
static bool finish(struct bench *b)
{
    bool ok = true;
    unsigned int i;

    print_unchecked(b);
    for (i = 0; i < b->result_count; ++i)
        ok &= b->results[i].status != STATUS_FAILED && b->results[i].check != 0;
    if (b->dispatch_run)
        ok &= b->dispatch.status == STATUS_OK && b->dispatch.check != 0;
    ok &= destroy_device(b);
    if (atomic_load(&validation_messages))
    {
        fprintf(stderr, "vkdml-bench: %u validation messages\n", atomic_load(&validation_messages));
        ok = false;
    }
    if (b->json_path)
        ok &= write_file(b, b->json_path, json_writer, ok);
    if (b->markdown_path)
        ok &= write_file(b, b->markdown_path, markdown_writer, ok);
    if (b->trace_path)
        ok &= write_file(b, b->trace_path, trace_writer, ok);
    fprintf(b->text, "\nresult: %s\n", ok ? "OK" : "FAILED");
    return ok;
}

int main(int argc, char **argv)
{
    struct plan plan = {NULL, 0, 0};
    struct selection selection;
    struct bench b;
    int status;
    bool ok;

    memset(&b, 0, sizeof(b));
    memset(&selection, 0, sizeof(selection));
    b.iterations = 100;
    b.warmup = 10;
    b.warmup_ms = DEFAULT_WARMUP_MS;
    b.anchor_source = "measured in this run";
    if ((status = parse_options(&b, &selection, argc, argv)) >= 0)
        return status;
    b.text = b.json_path && !strcmp(b.json_path, "-") ? stderr : stdout;
    b.progress_tty = isatty(2) && b.text != stderr;
    pin_vulkan_driver();
    vkdml_set_log_callback(log_callback, NULL);
    if (selection.list)
    {
        list_presets();
        list_operators(b.selector);
        return 0;
    }
    if ((status = create_device(&b)))
        return status;
    catalogue_init(b.adapter_index);
    if (selection.ops && (status = plan_op_jobs(&plan, &selection)))
    {
        destroy_device(&b);
        free(plan.jobs);
        return status;
    }
    /* On a CPU device the GPU presets would take many minutes: the smoke group is the default there. */
    if (!selection.count && !selection.ops)
        select_names(&selection, b.adapter.is_software ? "smoke" : "gpu");
    b.total = selection.count + plan.count;
    if (!(b.results = calloc(b.total ? b.total : 1, sizeof(*b.results))))
        return 1;
    run_selection(&b, &selection, &plan);
    ok = finish(&b);
    free(plan.jobs);
    free(b.results);
    free(b.trace);
    return ok ? 0 : 1;
}
