/*
 * vkdml-bench: operator speed through the public DirectML API, timed with GPU timestamps.
 *
 * Each workload (a named preset, or --op/--shape/--type: any operator operators.c can build)
 * is created, compiled and initialized on a D3D12 device of vkdml's shim exactly as a DirectML
 * application does it (vkdml-demo is the pattern). Inputs hold pseudo-random values: zeros would
 * flatter GEMMs, whose tensor cores draw less power on them. One command list holds a batch of
 * RecordDispatch calls, each followed by a UAV barrier, with a vkdml profiler attached
 * (vkdml_command_list_set_profiler), which writes a GPU timestamp before and after every dispatch.
 * The list runs for the warm-up, then until N timed dispatches have run, the profiler being read
 * after each execution. Reported: min / median / p90 GPU time, GB/s or TFLOP/s, the ratio to the
 * anchor (performance.md's PyTorch/cuBLAS/cuDNN figure on the H200, or the time of the same
 * workload measured in the same run, --anchor-ms), and the CPU time of one RecordDispatch (median
 * over the batch's calls). --check compares the output with a CPU reference where the bench has
 * one (every element, or for GEMM, convolution, reductions, softmax, top-k and scans 4096 sampled
 * ones), and says so where it has none. Memory-bound presets may also be held to the run's copy
 * bandwidth (COPY_PRESET).
 *
 * Bytes are what the operator must move at least: each input's TotalTensorSizeInBytes (a
 * broadcast input counts once) plus the outputs' (TOP_K's indices too); SLICE and the gathers read
 * only what they output (twice the output, plus the indices). Flops: 2·M·N·K for GEMM, 2·N·K·OH·OW·C·R·S for
 * convolution; the other operators, and GEMMs with M or N at most 8 (GEMVs), are rated in GB/s.
 *
 * Files: main.c (this: logging, the run from options to exit status), options.c (the command
 * line, --list), presets.c (named workloads and groups), runner.c (one workload: resources,
 * timing, check), device.c (the shim device and D3D12 plumbing), dispatch.c (the small-dispatch
 * workload on the shim), bare.c (the bare-Vulkan baselines), graph.c (issue 21's networks through
 * CompileGraph, beside their operators one by one), report.c (table, JSON, markdown, Chrome
 * trace), operators.c (the operator catalogue: descs, values, CPU references).
 */
#include "graph.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
# include <dlfcn.h>
#endif

void fatal_hr(HRESULT hr, const char *what, int line)
{
    fprintf(stderr, "vkdml-bench: %s failed (line %d): HRESULT %#x\n", what, line, (unsigned int)hr);
    exit(1);
}

/* ---- Logging: validation messages fail the run ---- */

atomic_uint validation_messages;

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
    ok &= graphs_ok(b);
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
    select_copy_baseline(&selection);
    b.total = selection.count + plan.count;
    if (!(b.results = calloc(b.total ? b.total : 1, sizeof(*b.results))))
        return 1;
    run_selection(&b, &selection, &plan);
    ok = finish(&b);
    free(plan.jobs);
    free(b.results);
    free(b.graphs);
    free(b.trace);
    return ok ? 0 : 1;
}
