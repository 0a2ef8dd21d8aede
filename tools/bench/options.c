/*
 * vkdml-bench's command line: options, preset and group names, --op jobs, --list.
 */
#include "bench.h"
#include "tool_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Options ---- */

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: vkdml-bench [options] [PRESET|GROUP ...]\n"
            "Times vkdml operators through the DirectML API with GPU timestamps (vkdml's profiler).\n"
            "  PRESET|GROUP ...        what to run (also --preset NAME[,NAME]); --list shows them. Default: the\n"
            "                          group 'gpu' on a GPU, 'smoke' on a CPU device (lavapipe)\n"
            "  --op OP[,OP...]|all     workloads of any operators (--list: names, types, shapes); 'all': every\n"
            "                          operator vkdml implements\n"
            "  --shape S|tiny          their shape; 'tiny': each family's small odd shape. Default: the family's\n"
            "                          default shape on a GPU, its tiny one on a CPU device. Reductions, softmax,\n"
            "                          scans and top-k take suffixes: 8192x8192k8 (TOP_K's K), 8192x8192:first\n"
            "                          (the axes: first, last, or A,B,...; default last)\n"
            "  --type T|all            fp32, fp16, fp64, int8..int64, uint8..uint64, or every type the operator\n"
            "                          takes; default: the operator's first (fp32 where it takes it)\n"
            "  --broadcast             inputs after the first repeat their innermost row over the other dimensions\n"
            "  --reduce-function F     REDUCE's function: sum (the default), max, average, sum-square, argmax...\n"
            "  --mode M                the operator's mode: REDUCE's function, PADDING's (constant, edge,\n"
            "                          reflection, symmetric, wrap), the depth/space order (depth-column-row,\n"
            "                          column-row-depth)\n"
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
            "  --help, -h              this text\n"
            "  --version               vkdml's version\n"
            "Exit status: 0 when every workload ran or was skipped (not implemented, type unsupported), every\n"
            "check passed and no validation message was logged; 1 otherwise; 2 for a usage error; 77 when\n"
            "there is no Vulkan device at all.\n");
}

void list_presets(void)
{
    size_t i, j;

    printf("presets (name: op type shape [groups]):\n");
    for (i = 0; i < preset_count; ++i)
    {
        printf("  %-28s %-20s %s %s%s%s%s [", presets[i].name, presets[i].op, type_name(presets[i].type),
                presets[i].shape, presets[i].broadcast ? " broadcast" : "", presets[i].function ? " " : "",
                presets[i].function ? presets[i].function : "");
        for (j = 0; j + 1 < group_count; ++j)
        {
            if (presets[i].groups & groups[j].mask)
                printf(" %s", groups[j].name);
        }
        printf(" ]\n");
    }
    printf("groups:");
    for (j = 0; j < group_count; ++j)
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
        snprintf(text, size, "vkdml-bench cannot build it: it needs a family in tools/bench/operators.c");
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
void list_operators(const char *selector)
{
    int adapter = vkdml_get_adapter_count() > 0 ? vkdml_select_adapter(selector) : -1;
    unsigned int count = catalogue_init(adapter), buildable = 0, implemented = 0, i;
    const struct family *shown[32];
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
                op->family ? op->family->name : "-", op_reference_types(op), text);
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

void select_copy_baseline(struct selection *s)
{
    size_t i;

    for (i = 0; i < preset_count; ++i)
    {
        if (s->chosen[i] && presets[i].copy_bar)
        {
            select_names(s, COPY_PRESET);
            return;
        }
    }
}

/* A preset or group name, or a comma-separated list of them. */
bool select_names(struct selection *s, const char *list)
{
    char name[128];
    size_t i, j, length;

    while (*list)
    {
        length = strcspn(list, ",");
        snprintf(name, sizeof(name), "%.*s", (int)length, list);
        list += length + (list[length] == ',');
        for (j = 0; j < group_count && strcmp(groups[j].name, name); ++j)
            ;
        for (i = 0; i < preset_count; ++i)
        {
            if (j < group_count ? !!(presets[i].groups & groups[j].mask) : !strcmp(presets[i].name, name))
            {
                s->count += !s->chosen[i];
                s->chosen[i] = true;
                if (j == group_count)
                    break;
            }
        }
        if (j == group_count && i == preset_count)
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
    if (!strcmp(arg, "--reduce-function"))
        return parse_reduce_function(s->function = value) >= 0;
    if (!strcmp(arg, "--mode"))
        s->function = value;
    else if (!strcmp(arg, "--op"))
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
int parse_options(struct bench *b, struct selection *s, int argc, char **argv)
{
    int status, i;

    for (i = 1; i < argc; ++i)
    {
        const char *arg = argv[i];

        if ((status = tool_standard_option(arg, "vkdml-bench", print_usage)) >= 0)
            return status;
        else if (!strcmp(arg, "--check") || !strcmp(arg, "--quiet") || !strcmp(arg, "--broadcast")
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
            return tool_usage_error(print_usage);
    }
    if ((s->shape || s->function) && !s->ops)
    {
        fprintf(stderr, "vkdml-bench: --shape, --mode and --reduce-function go with --op\n");
        return 2;
    }
    return -1;
}

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
int plan_op_jobs(struct plan *plan, const struct selection *s)
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
const char *job_shape(const struct bench *b, const struct selection *s, const struct op_info *op)
{
    if (!op->family)
        return s->shape ? s->shape : "";
    if (s->shape && strcmp(s->shape, "tiny"))
        return s->shape;
    return s->shape || b->adapter.is_software ? op->family->tiny_shape : op->family->default_shape;
}
