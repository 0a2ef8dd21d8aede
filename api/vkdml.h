/*
 * vkdml.h: vkdml's own API, beside the DirectML API in DirectML.h.
 *
 * Version, logging, tensor-size helper, adapter (Vulkan physical device) enumeration, D3D12 shim
 * device creation and GPU profiling. Embedding in an engine that owns its Vulkan objects (a DML
 * device on the engine's VkDevice, recording into its VkCommandBuffer, wrapping its VkBuffers) is
 * in vkdml_vulkan.h, which includes <vulkan/vulkan.h>.
 * Every function here is exported from libvkdml.so.0 / vkdml.dll with the prefix vkdml_.
 * This header needs only the C standard headers; it is valid C11 and C++17.
 */
#ifndef VKDML_H
#define VKDML_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef VKDML_API
# if defined(_WIN32)
#  define VKDML_API
# elif defined(__GNUC__)
#  define VKDML_API __attribute__((visibility("default")))
# else
#  define VKDML_API
# endif
#endif

/* Semantic version of the library these headers belong to. */
#define VKDML_VERSION_MAJOR 0
#define VKDML_VERSION_MINOR 1
#define VKDML_VERSION_PATCH 0
#define VKDML_MAKE_VERSION(major, minor, patch) (((uint32_t)(major) << 22) | ((uint32_t)(minor) << 12) | (uint32_t)(patch))
#define VKDML_VERSION VKDML_MAKE_VERSION(VKDML_VERSION_MAJOR, VKDML_VERSION_MINOR, VKDML_VERSION_PATCH)
#define VKDML_VERSION_GET_MAJOR(v) ((uint32_t)(v) >> 22)
#define VKDML_VERSION_GET_MINOR(v) (((uint32_t)(v) >> 12) & 0x3ffu)
#define VKDML_VERSION_GET_PATCH(v) ((uint32_t)(v) & 0xfffu)

/* The version of the library loaded at run time (compare with VKDML_VERSION). */
VKDML_API uint32_t vkdml_get_version(void);
/* The same as "major.minor.patch", plus the build's git description when known. */
VKDML_API const char *vkdml_get_version_string(void);

/* ---- Logging ---------------------------------------------------------------------------- */

/* Severity, most severe first. The default level is WARN; VKDML_DEBUG=none|err|fixme|warn|info|trace
 * overrides it at the first log call, vkdml_set_log_level() at any time. */
enum vkdml_log_level
{
    VKDML_LOG_NONE = 0,
    VKDML_LOG_ERR = 1,   /* a call failed; the message says which argument broke which rule */
    VKDML_LOG_FIXME = 2, /* something is not implemented (the call returned E_NOTIMPL) */
    VKDML_LOG_WARN = 3,  /* something works, but not as well as asked (e.g. a layer is missing) */
    VKDML_LOG_INFO = 4,  /* one-off facts: the device picked, the features enabled */
    VKDML_LOG_TRACE = 5, /* every call with its arguments */
};

/* Where messages come from: vkdml itself, or the Vulkan validation layer (VKDML_VALIDATION=1). */
enum vkdml_log_source
{
    VKDML_LOG_SOURCE_VKDML = 0,
    VKDML_LOG_SOURCE_VALIDATION = 1,
};

/* Receives one message: `function` is the vkdml function (or the validation message id) that
 * logged it, `message` has no trailing newline. Called from the thread that logged, possibly
 * several threads at once; it must not call back into vkdml. */
typedef void (*vkdml_log_callback)(void *user_data, enum vkdml_log_level level,
        enum vkdml_log_source source, const char *function, const char *message);

/* Route messages to `callback` (NULL: back to the default, stderr). Thread-safe. */
VKDML_API void vkdml_set_log_callback(vkdml_log_callback callback, void *user_data);
/* Messages above `level` are dropped before formatting. Thread-safe. */
VKDML_API void vkdml_set_log_level(enum vkdml_log_level level);
VKDML_API enum vkdml_log_level vkdml_get_log_level(void);

/* ---- Tensors ---------------------------------------------------------------------------- */

/* DMLCalcBufferTensorSize: the least DML_BUFFER_TENSOR_DESC::TotalTensorSizeInBytes for a tensor of
 * `data_type` (a DML_TENSOR_DATA_TYPE value) with `dimension_count` `sizes` and optional `strides`
 * (NULL = packed), rounded up to 4 bytes. Computed in 64 bits throughout (DirectMLX's version
 * sums the last index in 32 bits). Returns 0 for an unknown data type, NULL sizes or a zero size. */
VKDML_API uint64_t vkdml_calc_buffer_tensor_size(uint32_t data_type, uint32_t dimension_count,
        const uint32_t *sizes, const uint32_t *strides);

/* ---- Adapters (Vulkan physical devices) ------------------------------------------------- */

enum vkdml_adapter_type
{
    VKDML_ADAPTER_TYPE_OTHER = 0,
    VKDML_ADAPTER_TYPE_INTEGRATED_GPU = 1,
    VKDML_ADAPTER_TYPE_DISCRETE_GPU = 2,
    VKDML_ADAPTER_TYPE_VIRTUAL_GPU = 3,
    VKDML_ADAPTER_TYPE_CPU = 4,
};

struct vkdml_adapter_info
{
    uint32_t index;                 /* position in Vulkan's enumeration order */
    char name[256];                 /* VkPhysicalDeviceProperties::deviceName */
    uint32_t vendor_id;
    uint32_t device_id;
    enum vkdml_adapter_type type;
    uint32_t api_version;           /* Vulkan version the driver supports (VK_MAKE_API_VERSION) */
    uint32_t driver_version;        /* vendor-encoded */
    char driver_name[256];          /* VkPhysicalDeviceDriverProperties, e.g. "llvmpipe", "NVIDIA" */
    char driver_info[256];
    uint8_t device_uuid[16];
    uint64_t device_local_memory;   /* bytes in device-local heaps */
    int is_software;                /* a CPU implementation (lavapipe, SwiftShader) */
    int is_supported;               /* meets vkdml's requirements (Vulkan 1.2, BDA, timeline semaphores, sync2) */
    char unsupported_reason[128];   /* why not, when is_supported == 0 */
    /* VK_EXT_memory_budget, summed over the device-local heaps, at the time of the call; all 0 when
     * the driver lacks the extension (lavapipe 22.3). Appended in 0.1: an older, smaller struct
     * simply does not receive them. */
    int has_memory_budget;
    uint64_t memory_budget;         /* bytes this process can allocate before running out (heapBudget) */
    uint64_t memory_usage;          /* bytes this process uses now (heapUsage) */
};

/* Number of Vulkan physical devices, or -1 when Vulkan cannot be loaded (logged). */
VKDML_API int vkdml_get_adapter_count(void);

/* Fills `info` (of `info_size` bytes: pass sizeof(struct vkdml_adapter_info); a smaller, older
 * struct is filled as far as it goes) for adapter `index`. Returns 0, or -1 (logged). */
VKDML_API int vkdml_get_adapter_info(uint32_t index, struct vkdml_adapter_info *info, size_t info_size);

/* The adapter vkdml uses for a device created without an explicit choice: `selector` (an index,
 * a UUID as 32 hex digits, or a case-insensitive name substring; NULL: the VKDML_DEVICE
 * environment variable, if set), else the first supported adapter by preference: discrete GPU,
 * integrated, virtual, other, CPU. Returns the index, or -1 when none matches (logged). */
VKDML_API int vkdml_select_adapter(const char *selector);

/* ---- D3D12 shim ------------------------------------------------------------------------- */

/* Creates a device of vkdml's D3D12 shim: the buffer-only compute subset of Direct3D 12 that
 * DirectML applications use (queues, allocators, command lists, fences, buffers in committed or
 * placed resources, CBV_SRV_UAV descriptor heaps, buffer views), on Vulkan.
 *
 * `adapter_selector` picks the Vulkan adapter as vkdml_select_adapter() does: an index, a UUID
 * (32 hex digits) or a case-insensitive name substring; NULL: the VKDML_DEVICE environment
 * variable, else the preferred adapter. `riid` is a `const IID *` (IID_ID3D12Device; NULL means
 * that too). `*device` receives the interface (an ID3D12Device * for IID_ID3D12Device), or NULL on
 * failure; with `device` NULL the call only checks that the device can be created and returns
 * S_FALSE, as D3D12CreateDevice does. Returns an HRESULT: S_OK; DXGI_ERROR_UNSUPPORTED
 * (0x887A0004) when no usable adapter matches or Vulkan is missing; E_NOINTERFACE for an
 * interface the device lacks (only IUnknown, ID3D12Object and ID3D12Device exist); E_OUTOFMEMORY.
 * Failures are logged. With VKDML_VALIDATION=1 the device's instance has the validation layer on.
 * Available on every platform.
 *
 * On non-Windows builds libvkdml also exports D3D12CreateDevice(pAdapter, MinimumFeatureLevel,
 * riid, ppDevice), declared by DirectX-Headers' <directx/d3d12.h>, so DirectML code creates its
 * device unchanged. pAdapter must be NULL (vkdml has no DXGI adapters: the default adapter is used
 * and VKDML_DEVICE selects it; call vkdml_create_d3d12_device() to choose in code), else
 * E_INVALIDARG. MinimumFeatureLevel may be D3D_FEATURE_LEVEL_11_0 to 12_1 or 1_0_CORE; lower or
 * higher levels give E_INVALIDARG. On Windows, D3D12CreateDevice stays d3d12.dll's. */
VKDML_API int32_t vkdml_create_d3d12_device(const char *adapter_selector, const void *riid, void **device);

/* ---- Profiling: per-dispatch GPU timestamps ------------------------------------------- */

/* A profiler times dispatches on the GPU: for each timed RecordDispatch (or
 * vkdml_record_dispatch_vk) it records a timestamp before the operator's first dispatch and one
 * after its last, and remembers the operator's name. Both timestamps wait for all earlier work in
 * the command buffer (VK_PIPELINE_STAGE_ALL_COMMANDS_BIT), so a duration is the operator's own
 * time, and profiling serializes dispatches that could otherwise overlap. A dispatch that records
 * no GPU work (an initializer with nothing to copy) is not timed.
 *
 * The profiler also works with tools: whenever the Vulkan instance has VK_EXT_debug_utils (vkdml's
 * own with VKDML_VALIDATION=1 or whenever the loader offers it; an engine's when it says so), every
 * recorded operator is wrapped in a debug label with its name, profiler or not, so RenderDoc and
 * Nsight show operators by name.
 *
 * Threading: every function may be called from any thread; recording into several command lists
 * with one profiler at the same time is allowed (the slots are taken in recording order). */
struct vkdml_profiler;

/* One timed dispatch. Timestamps are the GPU's clock (ticks x VkPhysicalDeviceLimits::timestampPeriod)
 * in nanoseconds from an arbitrary origin, comparable within one device; a Chrome trace event is
 * {"name": name, "ph": "X", "ts": start_ns / 1000.0, "dur": duration_ns / 1000.0}. */
struct vkdml_profiler_entry
{
    char name[64];                  /* the compiled operator's SetName name if it has one, else the
                                     * operator type ("GEMM", "ELEMENT_WISE_ADD"), or "INITIALIZER" */
    uint64_t start_ns;
    uint64_t end_ns;
    uint64_t duration_ns;           /* end_ns - start_ns */
};

/* Creates a profiler with room for `max_dispatches` (1 to 1048576) timed dispatches between resets.
 * `device` is an IDMLDevice * or an ID3D12Device * of vkdml (passed as void *: this header has no
 * COM types); the profiler holds a reference to the D3D12 device. Returns an HRESULT: S_OK;
 * E_INVALIDARG for a NULL or foreign device or a bad count; E_POINTER for a NULL `profiler`;
 * DXGI_ERROR_UNSUPPORTED (0x887A0004) when the device's queue family has no timestamps
 * (timestampValidBits 0); E_OUTOFMEMORY. The query pool is reset on the device's queue before the
 * call returns. */
VKDML_API int32_t vkdml_profiler_create(void *device, uint32_t max_dispatches, struct vkdml_profiler **profiler);

/* Drops the application's reference. The profiler lives on while command lists it is attached to
 * still exist; its query pool must not be in use by the GPU when the last reference goes (wait for
 * the work that wrote timestamps). NULL is ignored. */
VKDML_API void vkdml_profiler_destroy(struct vkdml_profiler *profiler);

/* Times every RecordDispatch recorded into `command_list` (an ID3D12GraphicsCommandList * of vkdml's
 * D3D12 shim) from now on, until another profiler or NULL is set; the list keeps a reference to
 * the profiler, and the setting survives the list's Reset. The profiler must belong to the list's
 * D3D12 device. Returns S_OK or E_INVALIDARG (logged). */
VKDML_API int32_t vkdml_command_list_set_profiler(void *command_list, struct vkdml_profiler *profiler);

/* Forgets the timed dispatches, so the next one recorded takes slot 0 again. Call it after reading
 * the results and before recording new timed work; command buffers already recorded keep writing
 * their old slots when executed again. Returns S_OK or E_INVALIDARG (NULL profiler). */
VKDML_API int32_t vkdml_profiler_reset(struct vkdml_profiler *profiler);

/* Reads the timed dispatches recorded since the last reset, in recording order, once the GPU has
 * executed them (wait for the fence first). `*count` is in/out: in, the number of entries
 * `entries` holds (ignored when `entries` is NULL); out, the number recorded. `entry_size` is
 * sizeof(struct vkdml_profiler_entry); later versions may append fields and still accept this
 * size. A command list executed several times reports its last execution.
 * Returns S_OK; S_FALSE when `entries` held fewer than were recorded (those were filled);
 * DXGI_ERROR_WAS_STILL_DRAWING (0x887A000A) when some timed dispatch has not executed yet (nothing
 * is filled); E_INVALIDARG for a NULL profiler or count or a too small entry_size;
 * DXGI_ERROR_DEVICE_REMOVED after device loss. */
VKDML_API int32_t vkdml_profiler_get_results(struct vkdml_profiler *profiler, struct vkdml_profiler_entry *entries,
        size_t entry_size, uint32_t *count);

/* ---- Operator support ------------------------------------------------------------------ */

/* What vkdml does with one DML_OPERATOR_TYPE, from its operator table and an adapter's features.
 * A data type set has bit (1u << t) for each DML_TENSOR_DATA_TYPE value t. */
struct vkdml_operator_support
{
    uint32_t operator_type;         /* the DML_OPERATOR_TYPE value */
    const char *name;               /* "ELEMENT_WISE_ADD" (static storage); NULL for 0, DML_OPERATOR_INVALID */
    uint32_t feature_level;         /* the DML_FEATURE_LEVEL that introduced it (0x1000 is 1_0) */
    int implemented;                /* CreateOperator takes it; otherwise it answers E_NOTIMPL */
    uint32_t data_types;            /* the types DirectML lists (FL 6_4) for the tensors the operator
                                     * computes on (InputTensor, ATensor; IF's ATensor) that vkdml
                                     * implements; 0 when vkdml has not recorded them */
    uint32_t device_data_types;     /* those of data_types the adapter runs (8- and 16-bit storage,
                                     * shaderInt64, shaderFloat64...); 0 on an unusable adapter */
};

/* The number of DML_OPERATOR_TYPE values vkdml knows: 178 (0 to 177, DML_FEATURE_LEVEL_6_4). */
VKDML_API uint32_t vkdml_get_operator_type_count(void);

/* Fills entry t of `support` for every operator type t below `count` (at most
 * vkdml_get_operator_type_count()), for adapter `adapter_index` (vkdml_get_adapter_info()'s
 * index). Entries are `entry_size` bytes apart: pass sizeof(struct vkdml_operator_support); a
 * smaller, older struct is filled as far as it goes. Returns 0, or -1 (logged) when Vulkan is
 * missing, the index or count is out of range, or `support` is NULL. */
VKDML_API int vkdml_get_operator_support(uint32_t adapter_index, uint32_t count, struct vkdml_operator_support *support,
        size_t entry_size);

/* ---- Compiled graphs ---------------------------------------------------------------------- */

/* What CompileGraph did with a graph (docs/graph.md): VKDML_DEBUG=info logs it at compilation;
 * the VKDML_GRAPH_OPT knob (README "Environment") turns the optimisations off one by one. */
struct vkdml_graph_report
{
    uint32_t node_count;                /* operator nodes of the DML_GRAPH_DESC */
    uint32_t constant_node_count;
    uint32_t dispatches_unfused;        /* dispatches with every optimisation off */
    uint32_t dispatch_count;            /* the compiled graph's dispatches per RecordDispatch */
    uint32_t barrier_count;             /* ... and barriers between them */
    uint32_t fused_activations;         /* activation nodes become their host's FusedActivation */
    uint32_t fused_elementwise;         /* element-wise nodes merged into a chain's dispatch */
    uint32_t folded_batch_norms;        /* BATCH_NORMALIZATION folded into a CONVOLUTION */
    uint32_t folded_nodes;              /* nodes fed only by constants, run once by the initializer */
    uint32_t aliased_nodes;             /* IDENTITY/reshape nodes that became aliases */
    uint32_t joined_in_place;           /* JOIN inputs written in place by their producers */
    uint64_t temporary_size;            /* the intermediates' plan plus the nodes' scratch */
    uint64_t temporary_lower_bound;     /* the most intermediate bytes alive at once */
    uint64_t persistent_size;
};

/* Fills `report` (report_size bytes: sizeof(struct vkdml_graph_report); a smaller, older struct is
 * filled as far as it goes) for an IDMLCompiledOperator that IDMLDevice1::CompileGraph returned.
 * Returns 0 (S_OK), or E_INVALIDARG (logged) for anything else. */
VKDML_API int32_t vkdml_get_graph_report(void *compiled_operator, struct vkdml_graph_report *report,
        size_t report_size);

#ifdef __cplusplus
}
#endif

#endif /* VKDML_H */
