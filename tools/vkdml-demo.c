/*
 * vkdml-demo: a small DirectML chain on the default device (or --device SELECTOR),
 *     Y = relu(A × B + bias) * scale
 * as GEMM → ELEMENT_WISE_ADD1 with a fused ReLU (bias broadcast over the rows with a 0 stride) →
 * ELEMENT_WISE_MULTIPLY, checked against a CPU reference. Prints the device, each operator's GPU
 * time and OK/MISMATCH; exits 0 only when every result matches.
 *
 * Timing: the whole chain is recorded once into one command list with a vkdml profiler attached
 * (vkdml_command_list_set_profiler), which writes GPU timestamps before and after each operator;
 * every run reads them back (vkdml_profiler_get_results) after the fence. Each operator's line is
 * its median GPU time over the runs; the chain's GPU time runs from the first operator's start to
 * the last one's end, and its submit→fence wall time (submission and wake-up included) is shown
 * beside it.
 */
#define COBJMACROS
#include <DirectML.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vkdml.h"
#include "tool_d3d12.h"
#include "tool_options.h"

#define OP_COUNT 3
#define LIST_COUNT 2        /* the chain, and setup/copies */
#define DESCRIPTORS_PER_TABLE 16

static int failed(HRESULT hr, const char *what, int line)
{
    fprintf(stderr, "vkdml-demo: %s failed (line %d): HRESULT %#x\n", what, line, (unsigned int)hr);
    return 1;
}
#define CHECK(expr) do { HRESULT hr_ = (expr); if (FAILED(hr_)) exit(failed(hr_, #expr, __LINE__)); } while (0)

struct tensor
{
    UINT sizes[4];
    UINT strides[4];
    DML_BUFFER_TENSOR_DESC buffer;
    DML_TENSOR_DESC desc;
};

static void tensor_init(struct tensor *t, UINT rows, UINT columns, int broadcast_rows)
{
    memset(t, 0, sizeof(*t));
    t->sizes[0] = 1;
    t->sizes[1] = 1;
    t->sizes[2] = rows;
    t->sizes[3] = columns;
    t->buffer.DataType = DML_TENSOR_DATA_TYPE_FLOAT32;
    t->buffer.Flags = DML_TENSOR_FLAG_NONE;
    t->buffer.DimensionCount = 4;
    t->buffer.Sizes = t->sizes;
    if (broadcast_rows)
    {
        /* One row, repeated: stride 0 along the rows. */
        t->strides[3] = 1;
        t->buffer.Strides = t->strides;
    }
    t->buffer.TotalTensorSizeInBytes = vkdml_calc_buffer_tensor_size(t->buffer.DataType, 4, t->sizes,
            t->buffer.Strides);
    t->desc.Type = DML_TENSOR_TYPE_BUFFER;
    t->desc.Desc = &t->buffer;
}

struct demo
{
    ID3D12Device *device;
    ID3D12CommandQueue *queue;
    ID3D12Fence *fence;
    UINT64 fence_value;
    ID3D12DescriptorHeap *heap;
    UINT increment;
    IDMLDevice *dml;
    IDMLCommandRecorder *recorder;
};

static double now_ms(void)
{
#ifdef _WIN32
    /* mingw's clock_gettime lives in libwinpthread; the performance counter is Windows' own. */
    LARGE_INTEGER frequency, counter;

    QueryPerformanceFrequency(&frequency);
    QueryPerformanceCounter(&counter);
    return (double)counter.QuadPart * 1e3 / (double)frequency.QuadPart;
#else
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
#endif
}

/* Executes one closed list and blocks until the GPU is done; returns submit→fence milliseconds. */
static double execute_and_wait(struct demo *demo, ID3D12GraphicsCommandList *list)
{
    ID3D12CommandList *lists[] = {(ID3D12CommandList *)list};
    double start = now_ms();

    ID3D12CommandQueue_ExecuteCommandLists(demo->queue, 1, lists);
    CHECK(ID3D12CommandQueue_Signal(demo->queue, demo->fence, ++demo->fence_value));
    CHECK(ID3D12Fence_SetEventOnCompletion(demo->fence, demo->fence_value, NULL));
    return now_ms() - start;
}

static ID3D12Resource *create_buffer(struct demo *demo, D3D12_HEAP_TYPE type, UINT64 size,
        D3D12_RESOURCE_STATES state)
{
    ID3D12Resource *buffer;

    CHECK(tool_create_buffer(demo->device, type, size, state, &buffer));
    return buffer;
}

static void create_list(struct demo *demo, ID3D12CommandAllocator **allocator, ID3D12GraphicsCommandList **list)
{
    ID3D12DescriptorHeap *heaps[] = {demo->heap};

    CHECK(ID3D12Device_CreateCommandAllocator(demo->device, D3D12_COMMAND_LIST_TYPE_DIRECT,
            &IID_ID3D12CommandAllocator, (void **)allocator));
    CHECK(ID3D12Device_CreateCommandList(demo->device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, *allocator, NULL,
            &IID_ID3D12GraphicsCommandList, (void **)list));
    ID3D12GraphicsCommandList_SetDescriptorHeaps(*list, 1, heaps);
}

static IDMLBindingTable *create_table(struct demo *demo, void *dispatchable, UINT slot)
{
#ifdef _WIN32
    /* The standard COM ABI: struct-returning methods take an explicit RetVal in C. */
    D3D12_CPU_DESCRIPTOR_HANDLE cpu;
    D3D12_GPU_DESCRIPTOR_HANDLE gpu;
    ID3D12DescriptorHeap_GetCPUDescriptorHandleForHeapStart(demo->heap, &cpu);
    ID3D12DescriptorHeap_GetGPUDescriptorHandleForHeapStart(demo->heap, &gpu);
#else
    D3D12_CPU_DESCRIPTOR_HANDLE cpu = ID3D12DescriptorHeap_GetCPUDescriptorHandleForHeapStart(demo->heap);
    D3D12_GPU_DESCRIPTOR_HANDLE gpu = ID3D12DescriptorHeap_GetGPUDescriptorHandleForHeapStart(demo->heap);
#endif
    DML_BINDING_PROPERTIES properties = IDMLDispatchable_GetBindingPropertiesByValue(dispatchable);
    DML_BINDING_TABLE_DESC desc;
    IDMLBindingTable *table;

    if (properties.RequiredDescriptorCount > DESCRIPTORS_PER_TABLE)
    {
        fprintf(stderr, "vkdml-demo: %u descriptors needed, %u reserved\n", properties.RequiredDescriptorCount,
                DESCRIPTORS_PER_TABLE);
        exit(1);
    }
    cpu.ptr += (SIZE_T)slot * DESCRIPTORS_PER_TABLE * demo->increment;
    gpu.ptr += (UINT64)slot * DESCRIPTORS_PER_TABLE * demo->increment;
    desc.Dispatchable = dispatchable;
    desc.CPUDescriptorHandle = cpu;
    desc.GPUDescriptorHandle = gpu;
    desc.SizeInDescriptors = DESCRIPTORS_PER_TABLE;
    CHECK(IDMLDevice_CreateBindingTable(demo->dml, &desc, &IID_IDMLBindingTable, (void **)&table));
    return table;
}

static void fill(float *data, size_t count, unsigned int seed, float range)
{
    uint32_t x = seed * 2654435761u + 1;
    size_t i;

    for (i = 0; i < count; ++i)
    {
        x = x * 1664525u + 1013904223u;
        data[i] = range * ((float)(x >> 8) / (float)(1u << 24) * 2.0f - 1.0f);
    }
}

/* Elements where |got - expected| > tolerance[i]; prints the first. */
static size_t count_mismatches(const char *name, const float *got, const float *expected, const float *tolerance,
        size_t count)
{
    size_t i, bad = 0;

    for (i = 0; i < count; ++i)
    {
        if (!(fabsf(got[i] - expected[i]) <= tolerance[i]))
        {
            if (!bad++)
                fprintf(stderr, "  %s: element %zu: got %.9g, expected %.9g (tolerance %.3g)\n", name, i, got[i],
                        expected[i], tolerance[i]);
        }
    }
    return bad;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static double median(double *values, unsigned int count)
{
    qsort(values, count, sizeof(*values), compare_doubles);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

/* The chain's run `run`: each operator's GPU time into times[op * runs + run], the chain's (first start
 * to last end) into times[OP_COUNT * runs + run]. */
static void read_profile(struct vkdml_profiler *profiler, double *times, unsigned int runs, unsigned int run)
{
    struct vkdml_profiler_entry entries[OP_COUNT];
    uint32_t count = OP_COUNT, i;

    CHECK(vkdml_profiler_get_results(profiler, entries, sizeof(entries[0]), &count));
    if (count != OP_COUNT)
    {
        fprintf(stderr, "vkdml-demo: the profiler timed %u operators, expected %u\n", count, OP_COUNT);
        exit(1);
    }
    for (i = 0; i < OP_COUNT; ++i)
        times[i * runs + run] = entries[i].duration_ns * 1e-6;
    times[OP_COUNT * runs + run] = (entries[OP_COUNT - 1].end_ns - entries[0].start_ns) * 1e-6;
}

static void print_usage(FILE *out)
{
    fprintf(out, "usage: vkdml-demo [--device SELECTOR] [--size MxKxN] [--runs N] [--help] [--version]\n"
            "Runs Y = relu(A x B + bias) * scale as GEMM -> ADD1 (fused ReLU) -> MULTIPLY through vkdml's\n"
            "DirectML API, checks it against the CPU and prints each operator's GPU time.\n"
            "SELECTOR: an adapter index, UUID or name substring (default: VKDML_DEVICE, else the best one).\n"
            "Defaults: --size 256x512x256 --runs 10. Exit status 0 only when every result matches.\n");
}

/* --device, --size MxKxN and --runs into the given variables; -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, const char **selector, unsigned int sizes[3], unsigned int *runs)
{
    int status, i;

    for (i = 1; i < argc; ++i)
    {
        if (!strcmp(argv[i], "--device") && i + 1 < argc)
            *selector = argv[++i];
        else if (!strcmp(argv[i], "--size") && i + 1 < argc)
        {
            if (sscanf(argv[++i], "%ux%ux%u", &sizes[0], &sizes[1], &sizes[2]) != 3 || !sizes[0] || !sizes[1]
                    || !sizes[2] || sizes[0] > 8192 || sizes[1] > 8192 || sizes[2] > 8192)
                return tool_usage_error(print_usage);
        }
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
        {
            *runs = (unsigned int)strtoul(argv[++i], NULL, 10);
            if (!*runs || *runs > 100000)
                return tool_usage_error(print_usage);
        }
        else if ((status = tool_standard_option(argv[i], "vkdml-demo", print_usage)) >= 0)
            return status;
        else
            return tool_usage_error(print_usage);
    }
    return -1;
}

int main(int argc, char **argv)
{
    static const char *const op_names[OP_COUNT] = {"GEMM", "ADD1+ReLU", "MULTIPLY"};
    unsigned int sizes[3] = {256, 512, 256}, runs = 10, m, k, n, run, i;
    const char *selector = NULL;
    struct tensor a, b, bias, gemm_out, scale;
    struct demo demo;
    struct vkdml_adapter_info info;
    D3D12_COMMAND_QUEUE_DESC queue_desc;
    D3D12_DESCRIPTOR_HEAP_DESC heap_desc;
    DML_GEMM_OPERATOR_DESC gemm_desc;
    DML_ACTIVATION_RELU_OPERATOR_DESC relu_desc;
    DML_OPERATOR_DESC relu_op_desc, op_desc;
    DML_ELEMENT_WISE_ADD1_OPERATOR_DESC add_desc;
    DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC mul_desc;
    IDMLCompiledOperator *ops[OP_COUNT];
    IDMLOperatorInitializer *initializer;
    IDMLBindingTable *tables[OP_COUNT], *init_table;
    ID3D12CommandAllocator *allocators[LIST_COUNT];
    ID3D12GraphicsCommandList *lists[LIST_COUNT];
    ID3D12Resource *persistent[OP_COUNT], *temporary[OP_COUNT], *init_temporary = NULL;
    ID3D12Resource *in_a, *in_b, *in_bias, *in_scale, *out_gemm, *out_add, *out_mul, *upload, *readback;
    DML_BUFFER_BINDING storage[1 + 2 * OP_COUNT];
    DML_BINDING_DESC inputs[3], outputs[1], desc;
    DML_BINDING_PROPERTIES properties;
    float *host_a, *host_b, *host_bias, *host_scale, *gpu[OP_COUNT], *expected[OP_COUNT], *tolerance[OP_COUNT];
    double *times, op_ms[OP_COUNT], chain_ms, chain_wall_ms;
    struct vkdml_profiler *profiler;
    size_t mismatches[OP_COUNT], chain_mismatches;
    UINT64 bytes_a, bytes_b, bytes_bias, bytes_out, offset;
    char size_text[3][64];
    int adapter, status, all_ok = 1;
    uint8_t *mapped;
    D3D12_RANGE range;
    ULONG refs;
    HRESULT hr;

    if ((status = parse_options(argc, argv, &selector, sizes, &runs)) >= 0)
        return status;
    m = sizes[0];
    k = sizes[1];
    n = sizes[2];

    /* ---- Devices ---- */
    if ((adapter = vkdml_select_adapter(selector)) < 0
            || vkdml_get_adapter_info((uint32_t)adapter, &info, sizeof(info)))
    {
        fprintf(stderr, "vkdml-demo: no usable Vulkan device%s%s\n", selector ? " matches " : "",
                selector ? selector : "");
        return 1;
    }
    memset(&demo, 0, sizeof(demo));
    if (FAILED(hr = vkdml_create_d3d12_device(selector, &IID_ID3D12Device, (void **)&demo.device)))
        return failed(hr, "vkdml_create_d3d12_device", __LINE__);
    memset(&queue_desc, 0, sizeof(queue_desc));
    queue_desc.Type = D3D12_COMMAND_LIST_TYPE_DIRECT;
    CHECK(ID3D12Device_CreateCommandQueue(demo.device, &queue_desc, &IID_ID3D12CommandQueue, (void **)&demo.queue));
    CHECK(ID3D12Device_CreateFence(demo.device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&demo.fence));
    memset(&heap_desc, 0, sizeof(heap_desc));
    heap_desc.Type = D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV;
    heap_desc.NumDescriptors = (OP_COUNT + 1) * DESCRIPTORS_PER_TABLE;
    heap_desc.Flags = D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE;
    CHECK(ID3D12Device_CreateDescriptorHeap(demo.device, &heap_desc, &IID_ID3D12DescriptorHeap,
            (void **)&demo.heap));
    demo.increment = ID3D12Device_GetDescriptorHandleIncrementSize(demo.device, D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);
    CHECK(DMLCreateDevice(demo.device, DML_CREATE_DEVICE_FLAG_NONE, &IID_IDMLDevice, (void **)&demo.dml));
    CHECK(IDMLDevice_CreateCommandRecorder(demo.dml, &IID_IDMLCommandRecorder, (void **)&demo.recorder));

    printf("vkdml-demo: Y = relu(A x B + bias) * scale, FLOAT32, M=%u K=%u N=%u\n", m, k, n);
    printf("device: [%d] %s (%s%s%s), vkdml %s\n", adapter, info.name,
            info.driver_name[0] ? info.driver_name : "unknown driver", info.driver_info[0] ? " " : "",
            info.driver_info, vkdml_get_version_string());

    /* ---- Operators ---- */
    tensor_init(&a, m, k, 0);
    tensor_init(&b, k, n, 0);
    tensor_init(&gemm_out, m, n, 0);
    tensor_init(&bias, m, n, 1);
    tensor_init(&scale, m, n, 0);
    bytes_a = a.buffer.TotalTensorSizeInBytes;
    bytes_b = b.buffer.TotalTensorSizeInBytes;
    bytes_bias = bias.buffer.TotalTensorSizeInBytes;
    bytes_out = gemm_out.buffer.TotalTensorSizeInBytes;

    memset(&gemm_desc, 0, sizeof(gemm_desc));
    gemm_desc.ATensor = &a.desc;
    gemm_desc.BTensor = &b.desc;
    gemm_desc.CTensor = NULL;
    gemm_desc.OutputTensor = &gemm_out.desc;
    gemm_desc.TransA = DML_MATRIX_TRANSFORM_NONE;
    gemm_desc.TransB = DML_MATRIX_TRANSFORM_NONE;
    gemm_desc.Alpha = 1.0f;
    gemm_desc.Beta = 0.0f;
    gemm_desc.FusedActivation = NULL;
    relu_desc.InputTensor = NULL;       /* fused activations take no tensors */
    relu_desc.OutputTensor = NULL;
    relu_op_desc.Type = DML_OPERATOR_ACTIVATION_RELU;
    relu_op_desc.Desc = &relu_desc;
    add_desc.ATensor = &gemm_out.desc;
    add_desc.BTensor = &bias.desc;
    add_desc.OutputTensor = &gemm_out.desc;
    add_desc.FusedActivation = &relu_op_desc;
    mul_desc.ATensor = &gemm_out.desc;
    mul_desc.BTensor = &scale.desc;
    mul_desc.OutputTensor = &gemm_out.desc;
    {
        static const DML_OPERATOR_TYPE types[OP_COUNT] = {DML_OPERATOR_GEMM, DML_OPERATOR_ELEMENT_WISE_ADD1,
                DML_OPERATOR_ELEMENT_WISE_MULTIPLY};
        const void *descs[OP_COUNT] = {&gemm_desc, &add_desc, &mul_desc};

        for (i = 0; i < OP_COUNT; ++i)
        {
            IDMLOperator *op;

            op_desc.Type = types[i];
            op_desc.Desc = descs[i];
            if (FAILED(hr = IDMLDevice_CreateOperator(demo.dml, &op_desc, &IID_IDMLOperator, (void **)&op)))
            {
                fprintf(stderr, "vkdml-demo: CreateOperator(%s) failed: HRESULT %#x\n", op_names[i], (unsigned int)hr);
                return 1;
            }
            CHECK(IDMLDevice_CompileOperator(demo.dml, op, DML_EXECUTION_FLAG_NONE, &IID_IDMLCompiledOperator,
                    (void **)&ops[i]));
            IDMLOperator_Release(op);
        }
    }

    /* ---- Data ---- */
    host_a = malloc(bytes_a);
    host_b = malloc(bytes_b);
    host_bias = malloc(bytes_bias);
    host_scale = malloc(bytes_out);
    times = malloc((OP_COUNT + 2) * (size_t)runs * sizeof(*times));     /* per op, chain GPU, chain wall */
    for (i = 0; i < OP_COUNT; ++i)
    {
        gpu[i] = malloc(bytes_out);
        expected[i] = malloc(bytes_out);
        tolerance[i] = malloc(bytes_out);
        if (!gpu[i] || !expected[i] || !tolerance[i])
            return 1;
    }
    if (!host_a || !host_b || !host_bias || !host_scale || !times)
        return 1;
    fill(host_a, (size_t)m * k, 1, 1.0f);
    fill(host_b, (size_t)k * n, 2, 1.0f);
    fill(host_bias, n, 3, 2.0f);
    fill(host_scale, (size_t)m * n, 4, 3.0f);

    for (i = 0; i < LIST_COUNT; ++i)
        create_list(&demo, &allocators[i], &lists[i]);
#define SETUP_LIST lists[1]
#define CHAIN_LIST lists[0]

    in_a = create_buffer(&demo, D3D12_HEAP_TYPE_DEFAULT, bytes_a, D3D12_RESOURCE_STATE_COPY_DEST);
    in_b = create_buffer(&demo, D3D12_HEAP_TYPE_DEFAULT, bytes_b, D3D12_RESOURCE_STATE_COPY_DEST);
    in_bias = create_buffer(&demo, D3D12_HEAP_TYPE_DEFAULT, bytes_bias, D3D12_RESOURCE_STATE_COPY_DEST);
    in_scale = create_buffer(&demo, D3D12_HEAP_TYPE_DEFAULT, bytes_out, D3D12_RESOURCE_STATE_COPY_DEST);
    out_gemm = create_buffer(&demo, D3D12_HEAP_TYPE_DEFAULT, bytes_out, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    out_add = create_buffer(&demo, D3D12_HEAP_TYPE_DEFAULT, bytes_out, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    out_mul = create_buffer(&demo, D3D12_HEAP_TYPE_DEFAULT, bytes_out, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    upload = create_buffer(&demo, D3D12_HEAP_TYPE_UPLOAD, bytes_a + bytes_b + bytes_bias + bytes_out,
            D3D12_RESOURCE_STATE_GENERIC_READ);
    readback = create_buffer(&demo, D3D12_HEAP_TYPE_READBACK, 3 * bytes_out, D3D12_RESOURCE_STATE_COPY_DEST);

    range.Begin = range.End = 0;
    CHECK(ID3D12Resource_Map(upload, 0, &range, (void **)&mapped));
    memcpy(mapped, host_a, bytes_a);
    memcpy(mapped + bytes_a, host_b, bytes_b);
    memcpy(mapped + bytes_a + bytes_b, host_bias, bytes_bias);
    memcpy(mapped + bytes_a + bytes_b + bytes_bias, host_scale, bytes_out);
    ID3D12Resource_Unmap(upload, 0, NULL);
    offset = 0;
    ID3D12GraphicsCommandList_CopyBufferRegion(SETUP_LIST, in_a, 0, upload, offset, bytes_a);
    offset += bytes_a;
    ID3D12GraphicsCommandList_CopyBufferRegion(SETUP_LIST, in_b, 0, upload, offset, bytes_b);
    offset += bytes_b;
    ID3D12GraphicsCommandList_CopyBufferRegion(SETUP_LIST, in_bias, 0, upload, offset, bytes_bias);
    offset += bytes_bias;
    ID3D12GraphicsCommandList_CopyBufferRegion(SETUP_LIST, in_scale, 0, upload, offset, bytes_out);
    tool_transition(SETUP_LIST, in_a, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    tool_transition(SETUP_LIST, in_b, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    tool_transition(SETUP_LIST, in_bias, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    tool_transition(SETUP_LIST, in_scale, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    tool_uav_barrier(SETUP_LIST);

    /* ---- Initialize all three with one initializer (in the setup list) ---- */
    CHECK(IDMLDevice_CreateOperatorInitializer(demo.dml, OP_COUNT, ops, &IID_IDMLOperatorInitializer,
            (void **)&initializer));
    init_table = create_table(&demo, initializer, OP_COUNT);
    properties = IDMLOperatorInitializer_GetBindingPropertiesByValue(initializer);
    if (properties.TemporaryResourceSize)
    {
        init_temporary = create_buffer(&demo, D3D12_HEAP_TYPE_DEFAULT, properties.TemporaryResourceSize,
                D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
        desc = tool_buffer_binding(&storage[0], init_temporary, properties.TemporaryResourceSize);
        IDMLBindingTable_BindTemporaryResource(init_table, &desc);
    }
    {
        DML_BINDING_DESC init_outputs[OP_COUNT];

        for (i = 0; i < OP_COUNT; ++i)
        {
            DML_BINDING_PROPERTIES op_properties = IDMLCompiledOperator_GetBindingPropertiesByValue(ops[i]);

            persistent[i] = op_properties.PersistentResourceSize ? create_buffer(&demo, D3D12_HEAP_TYPE_DEFAULT,
                    op_properties.PersistentResourceSize, D3D12_RESOURCE_STATE_UNORDERED_ACCESS) : NULL;
            temporary[i] = op_properties.TemporaryResourceSize ? create_buffer(&demo, D3D12_HEAP_TYPE_DEFAULT,
                    op_properties.TemporaryResourceSize, D3D12_RESOURCE_STATE_UNORDERED_ACCESS) : NULL;
            init_outputs[i] = tool_buffer_binding(&storage[1 + i], persistent[i], op_properties.PersistentResourceSize);
        }
        IDMLBindingTable_BindOutputs(init_table, OP_COUNT, init_outputs);
        /* No OWNED_BY_DML inputs: one NONE per target (what DxDispatch binds). */
        for (i = 0; i < OP_COUNT; ++i)
            init_outputs[i] = tool_buffer_binding(&storage[1 + OP_COUNT + i], NULL, 0);
        IDMLBindingTable_BindInputs(init_table, OP_COUNT, init_outputs);
    }
    IDMLCommandRecorder_RecordDispatch(demo.recorder, (ID3D12CommandList *)SETUP_LIST,
            (IDMLDispatchable *)initializer, init_table);
    CHECK(ID3D12GraphicsCommandList_Close(SETUP_LIST));
    execute_and_wait(&demo, SETUP_LIST);
    IDMLBindingTable_Release(init_table);
    /* GPU timestamps around every operator recorded into the chain from here on. */
    CHECK(vkdml_profiler_create(demo.dml, OP_COUNT, &profiler));
    CHECK(vkdml_command_list_set_profiler(CHAIN_LIST, profiler));
    IDMLOperatorInitializer_Release(initializer);
    if (init_temporary)
        ID3D12Resource_Release(init_temporary);
    if ((hr = IDMLDevice_GetDeviceRemovedReason(demo.dml)) != S_OK)
        return failed(hr, "initialization (the DML device was removed)", __LINE__);

    /* ---- Bind and record: one list per operator, and the whole chain in one more ---- */
    for (i = 0; i < OP_COUNT; ++i)
    {
        DML_BINDING_PROPERTIES op_properties = IDMLCompiledOperator_GetBindingPropertiesByValue(ops[i]);
        UINT input_count = i == 0 ? 3 : 2;

        tables[i] = create_table(&demo, ops[i], i);
        if (temporary[i])
        {
            desc = tool_buffer_binding(&storage[0], temporary[i], op_properties.TemporaryResourceSize);
            IDMLBindingTable_BindTemporaryResource(tables[i], &desc);
        }
        if (persistent[i])
        {
            desc = tool_buffer_binding(&storage[1], persistent[i], op_properties.PersistentResourceSize);
            IDMLBindingTable_BindPersistentResource(tables[i], &desc);
        }
        switch (i)
        {
            case 0:
                inputs[0] = tool_buffer_binding(&storage[2], in_a, bytes_a);
                inputs[1] = tool_buffer_binding(&storage[3], in_b, bytes_b);
                inputs[2] = tool_buffer_binding(&storage[4], NULL, 0);    /* no C */
                outputs[0] = tool_buffer_binding(&storage[5], out_gemm, bytes_out);
                break;
            case 1:
                inputs[0] = tool_buffer_binding(&storage[2], out_gemm, bytes_out);
                inputs[1] = tool_buffer_binding(&storage[3], in_bias, bytes_bias);
                outputs[0] = tool_buffer_binding(&storage[5], out_add, bytes_out);
                break;
            default:
                inputs[0] = tool_buffer_binding(&storage[2], out_add, bytes_out);
                inputs[1] = tool_buffer_binding(&storage[3], in_scale, bytes_out);
                outputs[0] = tool_buffer_binding(&storage[5], out_mul, bytes_out);
                break;
        }
        IDMLBindingTable_BindInputs(tables[i], input_count, inputs);
        IDMLBindingTable_BindOutputs(tables[i], 1, outputs);
        IDMLCommandRecorder_RecordDispatch(demo.recorder, (ID3D12CommandList *)CHAIN_LIST,
                (IDMLDispatchable *)ops[i], tables[i]);
        tool_uav_barrier(CHAIN_LIST);
    }
    CHECK(ID3D12GraphicsCommandList_Close(CHAIN_LIST));
    if ((hr = IDMLDevice_GetDeviceRemovedReason(demo.dml)) != S_OK)
        return failed(hr, "binding/recording (the DML device was removed)", __LINE__);

    /* ---- Run: a warm-up, then `runs` timed runs of the chain ---- */
    execute_and_wait(&demo, CHAIN_LIST);
    for (run = 0; run < runs; ++run)
    {
        times[(OP_COUNT + 1) * runs + run] = execute_and_wait(&demo, CHAIN_LIST);
        read_profile(profiler, times, runs, run);
    }
    for (i = 0; i < OP_COUNT; ++i)
        op_ms[i] = median(times + i * runs, runs);
    chain_ms = median(times + OP_COUNT * runs, runs);
    chain_wall_ms = median(times + (OP_COUNT + 1) * runs, runs);

    /* ---- Read back all three outputs ---- */
    CHECK(ID3D12CommandAllocator_Reset(allocators[1]));
    CHECK(ID3D12GraphicsCommandList_Reset(SETUP_LIST, allocators[1], NULL));
    tool_transition(SETUP_LIST, out_gemm, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE);
    tool_transition(SETUP_LIST, out_add, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE);
    tool_transition(SETUP_LIST, out_mul, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE);
    ID3D12GraphicsCommandList_CopyBufferRegion(SETUP_LIST, readback, 0, out_gemm, 0, bytes_out);
    ID3D12GraphicsCommandList_CopyBufferRegion(SETUP_LIST, readback, bytes_out, out_add, 0, bytes_out);
    ID3D12GraphicsCommandList_CopyBufferRegion(SETUP_LIST, readback, 2 * bytes_out, out_mul, 0, bytes_out);
    CHECK(ID3D12GraphicsCommandList_Close(SETUP_LIST));
    execute_and_wait(&demo, SETUP_LIST);
    range.Begin = 0;
    range.End = 3 * bytes_out;
    CHECK(ID3D12Resource_Map(readback, 0, &range, (void **)&mapped));
    for (i = 0; i < OP_COUNT; ++i)
        memcpy(gpu[i], mapped + i * bytes_out, bytes_out);
    range.End = 0;
    ID3D12Resource_Unmap(readback, 0, &range);

    /* ---- CPU reference: each operator on the GPU's own input (so errors don't compound) ---- */
    {
        size_t row, column, j, count = (size_t)m * n;

        for (row = 0; row < m; ++row)
        {
            for (column = 0; column < n; ++column)
            {
                double sum = 0.0, magnitude = 0.0;

                for (j = 0; j < k; ++j)
                {
                    double term = (double)host_a[row * k + j] * host_b[j * n + column];

                    sum += term;
                    magnitude += fabs(term);
                }
                expected[0][row * n + column] = (float)sum;
                /* float accumulation in any order: a few ulps of the absolute sum */
                tolerance[0][row * n + column] = (float)(magnitude * 4e-6 + 1e-6);
            }
        }
        for (j = 0; j < count; ++j)
        {
            float sum = gpu[0][j] + host_bias[j % n];

            expected[1][j] = sum > 0.0f ? sum : 0.0f;
            tolerance[1][j] = fabsf(expected[1][j]) * 2e-7f;
            expected[2][j] = gpu[1][j] * host_scale[j];
            tolerance[2][j] = fabsf(expected[2][j]) * 2e-7f;
        }
        for (i = 0; i < OP_COUNT; ++i)
        {
            mismatches[i] = count_mismatches(op_names[i], gpu[i], expected[i], tolerance[i], count);
            if (mismatches[i])
                all_ok = 0;
        }
        /* The chain end to end against the CPU alone. */
        chain_mismatches = 0;
        for (j = 0; j < count; ++j)
        {
            float sum = expected[0][j] + host_bias[j % n], relu = sum > 0.0f ? sum : 0.0f;
            float reference = relu * host_scale[j];
            float bound = (tolerance[0][j] + fabsf(sum) * 1e-6f) * fabsf(host_scale[j]) + 1e-6f;

            if (!(fabsf(gpu[2][j] - reference) <= bound) && !chain_mismatches++)
                fprintf(stderr, "  chain: element %zu: got %.9g, expected %.9g\n", j, gpu[2][j], reference);
        }
        if (chain_mismatches)
            all_ok = 0;
    }

    snprintf(size_text[0], sizeof(size_text[0]), "[%ux%u] x [%ux%u]", m, k, k, n);
    snprintf(size_text[1], sizeof(size_text[1]), "[%ux%u] + [1x%u]", m, n, n);
    snprintf(size_text[2], sizeof(size_text[2]), "[%ux%u] * [%ux%u]", m, n, m, n);
    printf("GPU time (GPU timestamps around each operator), median of %u runs of the chain:\n", runs);
    for (i = 0; i < OP_COUNT; ++i)
    {
        printf("  %-10s %-26s %10.3f ms   ", op_names[i], size_text[i], op_ms[i]);
        if (mismatches[i])
            printf("MISMATCH (%zu of %zu elements)\n", mismatches[i], (size_t)m * n);
        else
            printf("OK\n");
    }
    printf("  %-37s %10.3f ms   %s\n", "chain (one submission)", chain_ms, chain_mismatches ? "MISMATCH" : "OK");
    printf("  %-37s %10.3f ms\n", "chain submit→fence (wall clock)", chain_wall_ms);
    if (!mismatches[0])
        printf("GEMM: %.2f GFLOP/s (GPU time)\n", 2.0 * m * n * k / (op_ms[0] * 1e6));

    /* ---- Clean up: everything to zero ---- */
    for (i = 0; i < OP_COUNT; ++i)
    {
        IDMLBindingTable_Release(tables[i]);
        IDMLCompiledOperator_Release(ops[i]);
        if (persistent[i])
            ID3D12Resource_Release(persistent[i]);
        if (temporary[i])
            ID3D12Resource_Release(temporary[i]);
        free(gpu[i]);
        free(expected[i]);
        free(tolerance[i]);
    }
    for (i = 0; i < LIST_COUNT; ++i)
    {
        ID3D12GraphicsCommandList_Release(lists[i]);
        ID3D12CommandAllocator_Release(allocators[i]);
    }
    ID3D12Resource_Release(in_a);
    ID3D12Resource_Release(in_b);
    ID3D12Resource_Release(in_bias);
    ID3D12Resource_Release(in_scale);
    ID3D12Resource_Release(out_gemm);
    ID3D12Resource_Release(out_add);
    ID3D12Resource_Release(out_mul);
    ID3D12Resource_Release(upload);
    ID3D12Resource_Release(readback);
    IDMLCommandRecorder_Release(demo.recorder);
    vkdml_profiler_destroy(profiler);   /* its reference to the D3D12 device goes with it */
    if ((refs = IDMLDevice_Release(demo.dml)))
    {
        fprintf(stderr, "vkdml-demo: the DML device's final Release returned %u\n", (unsigned int)refs);
        all_ok = 0;
    }
    ID3D12DescriptorHeap_Release(demo.heap);
    ID3D12Fence_Release(demo.fence);
    ID3D12CommandQueue_Release(demo.queue);
    if ((refs = ID3D12Device_Release(demo.device)))
    {
        fprintf(stderr, "vkdml-demo: the D3D12 device's final Release returned %u\n", (unsigned int)refs);
        all_ok = 0;
    }
    free(host_a);
    free(host_b);
    free(host_bias);
    free(host_scale);
    free(times);

    printf("result: %s\n", all_ok ? "OK" : "MISMATCH");
    return all_ok ? 0 : 1;
}
