/*
 * vkdml-run: an ONNX model through vkdml's DirectML API (docs/onnx.md). The model is parsed,
 * lowered to one DML_GRAPH_DESC (static shapes, constants folded on the host, weights OWNED_BY_DML),
 * compiled with IDMLDevice1::CompileGraph, initialized, run, and its outputs read back: written to
 * files, compared with an ONNX test folder's expected outputs (--check), timed (--runs).
 * Exit status: 0 success (and every output matched), 1 a mismatch, 2 an error.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "execute.h"
#include "ops.h"
#include "tool_options.h"

#define MAX_NAMED 64

struct options
{
    const char *model;
    const char *input_names[MAX_NAMED], *input_files[MAX_NAMED];
    unsigned int input_count;
    const char *output_dir, *check_dir, *device, *json;
    bool npy, report;
    unsigned int runs;
    struct run_options run;
};

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: vkdml-run MODEL.onnx [options]\n"
            "Runs an ONNX model through vkdml's DirectML API (CompileGraph) on a Vulkan device.\n"
            "  --input NAME=FILE   the input NAME from a TensorProto (.pb) or NumPy (.npy) file;\n"
            "                      inputs not given get random values\n"
            "  --shape NAME=DIMS   fixes the free dimensions of input NAME (DIMS like 1x3x224x224)\n"
            "  --check DIR         compares with an ONNX test folder (model folder or test_data_set_N:\n"
            "                      input_N.pb, output_N.pb); rtol 1e-3, atol 1e-7\n"
            "  --output-dir DIR    writes each output as DIR/output_N.pb (.npy with --npy)\n"
            "  --device SEL        adapter index, UUID or name substring (default: VKDML_DEVICE, else the best)\n"
            "  --half              runs float tensors as float16 on the device\n"
            "  --runs N            times N more runs (GPU timestamps); --report adds per-node times and\n"
            "                      the graph compiler's report\n"
            "  --json FILE         writes the run's results as JSON\n"
            "  --list-ops          prints the ONNX operators vkdml-run maps\n"
            "  --help, -h          this text; --version: vkdml-run and vkdml's version\n"
            "Exit status: 0 success, 1 an output mismatched, 2 an error (bad file, unsupported node, device).\n");
}

static bool split_pair(const char *arg, const char **name, const char **value, char *storage, size_t size)
{
    char *equals;

    snprintf(storage, size, "%s", arg);
    if (!(equals = strchr(storage, '=')) || equals == storage)
        return false;
    *equals = 0;
    *name = storage;
    *value = equals + 1;
    return true;
}

static char pair_storage[2 * MAX_NAMED][1024];

static bool parse_named(const char *arg, struct options *o, bool shape)
{
    unsigned int slot = shape ? MAX_NAMED + o->run.shape_count : o->input_count;
    const char *name, *value;

    if ((shape ? o->run.shape_count : o->input_count) == MAX_NAMED
            || !split_pair(arg, &name, &value, pair_storage[slot], sizeof(pair_storage[slot])))
        return false;
    if (!shape)
    {
        o->input_names[o->input_count] = name;
        o->input_files[o->input_count++] = value;
        return true;
    }
    o->run.shape_names[o->run.shape_count] = name;
    return run_shape_parse(value, &o->run.shapes[o->run.shape_count++]);
}

static void print_op(const char *op_type, void *user)
{
    (void)user;
    printf("%s\n", op_type);
}

/* -1: go on; else the exit status. */
static int parse_options(int argc, char **argv, struct options *o)
{
    int i, status;

    memset(o, 0, sizeof(*o));
    for (i = 1; i < argc; ++i)
    {
        const char *arg = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;

        if ((status = tool_standard_option(arg, "vkdml-run", print_usage)) >= 0)
            return status;
        if (!strcmp(arg, "--list-ops"))
        {
            run_list_ops(print_op, NULL);
            return 0;
        }
        if (!strcmp(arg, "--half"))
            o->run.half = true;
        else if (!strcmp(arg, "--report"))
            o->report = true;
        else if (!strcmp(arg, "--npy"))
            o->npy = true;
        else if (arg[0] != '-' && !o->model)
            o->model = arg;
        else if (!next)
            return tool_usage_error(print_usage);
        else if (!strcmp(arg, "--input") && parse_named(next, o, false))
            ++i;
        else if (!strcmp(arg, "--shape") && parse_named(next, o, true))
            ++i;
        else if (!strcmp(arg, "--check"))
            o->check_dir = argv[++i];
        else if (!strcmp(arg, "--output-dir"))
            o->output_dir = argv[++i];
        else if (!strcmp(arg, "--device"))
            o->device = argv[++i];
        else if (!strcmp(arg, "--json"))
            o->json = argv[++i];
        else if (!strcmp(arg, "--runs"))
            o->runs = (unsigned int)strtoul(argv[++i], NULL, 10);
        else
            return tool_usage_error(print_usage);
    }
    return o->model ? -1 : tool_usage_error(print_usage);
}

/* ---- Inputs ---- */

static bool file_exists(const char *path)
{
    struct stat st;

    return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* The shape of a model input with no file: declared, its free dimensions from --shape. */
static bool random_shape(const struct onnx_io *io, const struct options *o, struct run_shape *shape, char *error,
        size_t error_size)
{
    unsigned int i;

    for (i = 0; i < o->run.shape_count; ++i)
    {
        if (!strcmp(o->run.shape_names[i], io->name))
        {
            *shape = o->run.shapes[i];
            return true;
        }
    }
    if (!io->has_shape)
    {
        snprintf(error, error_size, "input '%s' declares no shape: give --shape %s=DIMS or --input", io->name,
                io->name);
        return false;
    }
    *shape = io->shape;
    for (i = 0; i < shape->rank; ++i)
    {
        if (shape->dims[i] < 0)
        {
            snprintf(error, error_size, "input '%s' has a free dimension %u ('%s'): give --shape %s=DIMS or --input",
                    io->name, i, io->dim_names[i] ? io->dim_names[i] : "?", io->name);
            return false;
        }
    }
    return true;
}

static bool check_input(const struct onnx_io *io, const struct run_tensor *t, char *error, size_t error_size)
{
    unsigned int i;

    if (io->type != ONNX_UNDEFINED && t->type != io->type)
    {
        snprintf(error, error_size, "input '%s' is %s, the model declares %s", io->name, onnx_type_name(t->type),
                onnx_type_name(io->type));
        return false;
    }
    for (i = 0; io->has_shape && i < io->shape.rank; ++i)
    {
        if (t->shape.rank != io->shape.rank || (io->shape.dims[i] >= 0 && io->shape.dims[i] != t->shape.dims[i]))
        {
            char given[96], declared[96];

            run_shape_format(&t->shape, given, sizeof(given));
            run_shape_format(&io->shape, declared, sizeof(declared));
            snprintf(error, error_size, "input '%s' has shape %s, the model declares %s (-1: free)", io->name, given,
                    declared);
            return false;
        }
    }
    return true;
}

/* Model input i: --input NAME=FILE, else the data set's input_i.pb, else random values. */
static bool load_input(const struct onnx_model *m, unsigned int i, const struct options *o, const char *set,
        struct run_tensor *t, char *error, size_t error_size)
{
    const struct onnx_io *io = &m->inputs[i];
    struct run_shape shape;
    char path[4096];
    unsigned int j;

    if (io->type == ONNX_UNDEFINED || !onnx_type_size(io->type) || io->type == ONNX_BFLOAT16)
    {
        snprintf(error, error_size, "input '%s': unsupported: %s (DirectML holds tensors of numbers and bools, no "
                "bfloat16, strings, sequences, maps or optionals)", io->name, io->type == ONNX_UNDEFINED
                ? "not a tensor" : onnx_type_name(io->type));
        return false;
    }
    for (j = 0; j < o->input_count; ++j)
        if (!strcmp(o->input_names[j], io->name))
            return run_tensor_load(o->input_files[j], t, error, error_size) && check_input(io, t, error, error_size);
    snprintf(path, sizeof(path), "%s/input_%u.pb", set ? set : "", i);
    if (set && file_exists(path))
        return run_tensor_load(path, t, error, error_size) && check_input(io, t, error, error_size);
    if (!random_shape(io, o, &shape, error, error_size))
        return false;
    if (!run_tensor_alloc(t, io->type, &shape))
    {
        snprintf(error, error_size, "input '%s': unsupported: type %s (not a tensor type DirectML holds)", io->name,
                onnx_type_name(io->type));
        return false;
    }
    run_tensor_fill_random(t, 0x5eed + i);
    return true;
}

static void free_tensors(struct run_tensor *tensors, unsigned int count)
{
    unsigned int i;

    for (i = 0; tensors && i < count; ++i)
        run_tensor_free(&tensors[i]);
    free(tensors);
}

/* ---- Outputs ---- */

static int check_outputs(const struct onnx_model *m, const char *set, const struct run_tensor *outputs)
{
    char path[4096], error[512];
    struct run_tensor expected;
    struct run_compare c;
    int status = 0;
    unsigned int i;

    for (i = 0; i < m->output_count; ++i)
    {
        snprintf(path, sizeof(path), "%s/output_%u.pb", set, i);
        if (!file_exists(path))
            continue;
        if (!run_tensor_load(path, &expected, error, sizeof(error)))
        {
            fprintf(stderr, "vkdml-run: %s\n", error);
            return 2;
        }
        if (!run_tensor_compare(&outputs[i], &expected, RUN_CHECK_RTOL, RUN_CHECK_ATOL, &c, error, sizeof(error)))
        {
            printf("output '%s': MISMATCH: %s\n", m->outputs[i].name, error);
            status = 1;
        }
        else if (c.mismatches)
        {
            printf("output '%s': MISMATCH: %" PRId64 " of %" PRId64 " values (first at %" PRId64 ": %.9g, expected "
                    "%.9g), max |error| %.3g\n", m->outputs[i].name, c.mismatches, c.checked, c.first_mismatch,
                    c.actual, c.expected, c.max_abs_error);
            status = 1;
        }
        else
        {
            printf("output '%s': OK (%" PRId64 " values, max |error| %.3g)\n", m->outputs[i].name, c.checked,
                    c.max_abs_error);
        }
        run_tensor_free(&expected);
    }
    return status;
}

static bool save_outputs(const struct options *o, const struct onnx_model *m, const struct run_tensor *outputs)
{
    char path[4096], error[512];
    unsigned int i;

    mkdir(o->output_dir, 0777);
    for (i = 0; i < m->output_count; ++i)
    {
        snprintf(path, sizeof(path), "%s/output_%u.%s", o->output_dir, i, o->npy ? "npy" : "pb");
        if (!run_tensor_save(path, &outputs[i], error, sizeof(error)))
        {
            fprintf(stderr, "vkdml-run: %s\n", error);
            return false;
        }
    }
    return true;
}

/* ---- Reports ---- */

static void print_stats(const struct options *o, const struct run_graph *g, const struct run_stats *s)
{
    const struct vkdml_graph_report *r = &s->report;
    unsigned int i;

    printf("graph: %u ONNX nodes as %u DirectML operators, %u folded on the host, %u aliases; CompileGraph %.1f ms, "
            "initialize %.1f ms\n", g->onnx_nodes, g->desc.NodeCount, g->folded_nodes, g->aliased_nodes,
            s->compile_ms, s->initialize_ms);
    if (s->runs)
        printf("runs: %u, GPU %.3f ms median (min %.3f), submit to fence %.3f ms\n", s->runs, s->gpu_ms,
                s->gpu_min_ms, s->wall_ms);
    if (!o->report)
        return;
    if (s->have_report)
        printf("compiler: %u dispatches (%u unfused), %u barriers; fused %u activations, %u element-wise; "
                "%u batch norms folded, %u nodes run at initialization, %u aliased, %u joined in place; "
                "temporary %.2f MiB (lower bound %.2f), persistent %.2f MiB\n", r->dispatch_count,
                r->dispatches_unfused, r->barrier_count, r->fused_activations, r->fused_elementwise,
                r->folded_batch_norms, r->folded_nodes, r->aliased_nodes, r->joined_in_place,
                r->temporary_size / 1048576.0, r->temporary_lower_bound / 1048576.0, r->persistent_size / 1048576.0);
    for (i = 0; i < s->node_count; ++i)
        printf("  %-48s %9.4f ms\n", s->nodes[i].name, s->nodes[i].median_ms);
}

static void json_string(FILE *f, const char *text)
{
    fputc('"', f);
    for (; *text; ++text)
    {
        if (*text == '"' || *text == '\\')
            fputc('\\', f);
        if ((unsigned char)*text >= 0x20)
            fputc(*text, f);
    }
    fputc('"', f);
}

static void write_json(const struct options *o, const struct run_device *d, const struct run_graph *g,
        const struct run_stats *s, int status)
{
    const struct vkdml_graph_report *r = &s->report;
    FILE *f = fopen(o->json, "w");
    unsigned int i;

    if (!f)
    {
        fprintf(stderr, "vkdml-run: cannot write %s\n", o->json);
        return;
    }
    fprintf(f, "{\n  \"model\": ");
    json_string(f, o->model);
    fprintf(f, ",\n  \"device\": ");
    json_string(f, d->adapter.name);
    fprintf(f, ",\n  \"half\": %s,\n  \"status\": %d,\n  \"onnx_nodes\": %u,\n  \"dml_nodes\": %u,\n"
            "  \"folded_on_host\": %u,\n  \"compile_ms\": %.3f,\n  \"initialize_ms\": %.3f,\n  \"runs\": %u,\n"
            "  \"gpu_ms\": %.4f,\n  \"gpu_min_ms\": %.4f,\n  \"wall_ms\": %.4f", o->run.half ? "true" : "false", status,
            g ? g->onnx_nodes : 0, g ? g->desc.NodeCount : 0, g ? g->folded_nodes : 0, s->compile_ms,
            s->initialize_ms, s->runs, s->gpu_ms, s->gpu_min_ms, s->wall_ms);
    if (s->have_report)
        fprintf(f, ",\n  \"report\": {\"dispatches\": %u, \"dispatches_unfused\": %u, \"barriers\": %u, "
                "\"fused_activations\": %u, \"fused_elementwise\": %u, \"folded_batch_norms\": %u, "
                "\"folded_nodes\": %u, \"aliased_nodes\": %u, \"joined_in_place\": %u, \"temporary_bytes\": %" PRIu64
                ", \"persistent_bytes\": %" PRIu64 "}", r->dispatch_count, r->dispatches_unfused, r->barrier_count,
                r->fused_activations, r->fused_elementwise, r->folded_batch_norms, r->folded_nodes, r->aliased_nodes,
                r->joined_in_place, r->temporary_size, r->persistent_size);
    fprintf(f, ",\n  \"nodes\": [");
    for (i = 0; i < s->node_count; ++i)
    {
        fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
        json_string(f, s->nodes[i].name);
        fprintf(f, ", \"gpu_ms\": %.5f}", s->nodes[i].median_ms);
    }
    fprintf(f, "%s]\n}\n", s->node_count ? "\n  " : "");
    fclose(f);
}

/* ---- Data sets: a --check folder is one data set, or a test folder of test_data_set_N ---- */

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The data set folders to run (NULL entries: one run without a folder); returns the count. */
static unsigned int find_sets(const char *dir, char ***sets)
{
    char path[4096];
    struct dirent *entry;
    unsigned int count = 0;
    DIR *d;

    *sets = calloc(64, sizeof(**sets));
    if (!dir)
        return 1;
    snprintf(path, sizeof(path), "%s/output_0.pb", dir);
    if (file_exists(path) || !(d = opendir(dir)))
    {
        (*sets)[0] = strdup(dir);
        return 1;
    }
    while ((entry = readdir(d)) && count < 64)
    {
        if (strncmp(entry->d_name, "test_data_set_", 14))
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, entry->d_name);
        (*sets)[count++] = strdup(path);
    }
    closedir(d);
    qsort(*sets, count, sizeof(**sets), compare_names);
    return count;
}

static int run_set(const struct options *o, const struct onnx_model *m, struct run_device *d, const char *set,
        bool timed)
{
    struct run_tensor *inputs = calloc(m->input_count + 1, sizeof(*inputs)), *outputs = NULL;
    enum run_error_kind kind = RUN_ERROR;
    struct run_lower *l = NULL;
    struct run_stats stats;
    char error[1024] = "out of memory";
    int status = 2;
    unsigned int i;

    memset(&stats, 0, sizeof(stats));
    for (i = 0; inputs && i < m->input_count; ++i)
        if (!load_input(m, i, o, set, &inputs[i], error, sizeof(error)))
            goto done;
    if (!inputs || !(l = run_lower_model(d->dml, m, &o->run, inputs, error, sizeof(error), &kind)))
        goto done;
    if (!(outputs = calloc(m->output_count + 1, sizeof(*outputs)))
            || !run_graph_execute(d, run_lower_graph(l), o->run.half, timed ? o->runs : 0, o->report, outputs, &stats,
                    error, sizeof(error)))
        goto done;
    status = set ? check_outputs(m, set, outputs) : 0;
    if (o->output_dir && !save_outputs(o, m, outputs))
        status = 2;
    if (timed)
        print_stats(o, run_lower_graph(l), &stats);
    if (timed && o->json)
        write_json(o, d, run_lower_graph(l), &stats, status);
    error[0] = 0;
done:
    if (error[0])
        fprintf(stderr, "vkdml-run: %s%s\n", kind == RUN_UNSUPPORTED || strstr(error, "unsupported:") ? "" : "error: ",
                error);
    run_stats_free(&stats);
    free_tensors(outputs, m->output_count);
    run_lower_free(l);
    free_tensors(inputs, m->input_count);
    return status;
}

int main(int argc, char **argv)
{
    struct onnx_model model;
    struct run_device device;
    struct options o;
    char error[1024], **sets;
    unsigned int set_count, i;
    int status;

    if ((status = parse_options(argc, argv, &o)) >= 0)
        return status;
    status = 0;
    if (!onnx_model_load(o.model, &model, error, sizeof(error)))
    {
        fprintf(stderr, "vkdml-run: error: %s\n", error);
        return 2;
    }
    if (!run_device_create(o.device, &device, error, sizeof(error)))
    {
        fprintf(stderr, "vkdml-run: error: %s\n", error);
        onnx_model_free(&model);
        return 2;
    }
    printf("model: %s (opset %" PRId64 ", %u nodes), device: %s%s\n", o.model, model.opset, model.node_count,
            device.adapter.name, o.run.half ? ", float16" : "");
    set_count = find_sets(o.check_dir, &sets);
    if (!set_count)
    {
        fprintf(stderr, "vkdml-run: error: %s holds no output_N.pb and no test_data_set_N folder\n", o.check_dir);
        status = 2;
    }
    for (i = 0; i < set_count && status != 2; ++i)
    {
        int set_status = run_set(&o, &model, &device, sets[i], i == 0);

        status = set_status > status ? set_status : status;
    }
    for (i = 0; i < set_count; ++i)
        free(sets[i]);
    free(sets);
    run_device_free(&device);
    onnx_model_free(&model);
    return status;
}
