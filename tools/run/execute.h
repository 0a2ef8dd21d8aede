/*
 * vkdml-run's device work: the D3D12 and DirectML devices, CompileGraph, the initializer, the
 * bindings, the runs (timed by vkdml's profiler) and reading the outputs back. docs/onnx.md,
 * "Running".
 */
#ifndef VKDML_RUN_EXECUTE_H
#define VKDML_RUN_EXECUTE_H


#include "lower.h"
#include "vkdml.h"

struct run_device
{
    ID3D12Device *d3d;
    ID3D12CommandQueue *queue;
    ID3D12CommandAllocator *allocator;
    ID3D12GraphicsCommandList *list;
    ID3D12Fence *fence;
    UINT64 fence_value;
    IDMLDevice *dml;
    IDMLCommandRecorder *recorder;
    struct vkdml_adapter_info adapter;
};

/* One node's GPU time over the timed runs. */
struct run_node_time
{
    char name[64];
    double median_ms;
};

struct run_stats
{
    double compile_ms, initialize_ms;   /* CompileGraph's wall time; the initializer's run */
    unsigned int runs;
    double gpu_ms, gpu_min_ms;          /* a run between two markers (execute.c), median and minimum */
    double wall_ms;                     /* submit to fence of a list of runs, per run, median */
    struct vkdml_graph_report report;
    bool have_report;
    struct run_node_time *nodes;        /* per node (--report), node_count of them */
    unsigned int node_count;
};

/* `selector` as vkdml_select_adapter() takes it (NULL: VKDML_DEVICE or the preferred adapter). */
bool run_device_create(const char *selector, struct run_device *device, char *error, size_t error_size);
void run_device_free(struct run_device *device);

/* Compiles, initializes and runs `graph` once (and `runs` more times, timed, when runs > 0);
 * `outputs` receives every model output (graph->output_count tensors, allocated here). */
bool run_graph_execute(struct run_device *device, const struct run_graph *graph, bool half, unsigned int runs,
        bool per_node, struct run_tensor *outputs, struct run_stats *stats, char *error, size_t error_size);
void run_stats_free(struct run_stats *stats);

#endif /* VKDML_RUN_EXECUTE_H */
