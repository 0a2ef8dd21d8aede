/*
 * CompileGraph's backend half (docs/graph.md): the graph's intermediate form, memory planning
 * (intermediates placed in the temporary resource by liveness), barriers only where a node reads
 * or overwrites bytes that an earlier node since the last barrier touches, one segment per node
 * (profiler entry and debug label), and the initializer part (OWNED_BY_DML inputs and constants
 * copied into the persistent resource, folded nodes run once, the families' initialize hooks).
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d3d12_private.h"
#include "graph_private.h"
#include "copy_interface.h"

/* A node as compiled into the program: what its family's initialize hook needs. */
struct graph_compiled_node
{
    uint32_t node;
    uint64_t persistent_start;
};

struct vkdml_graph
{
    struct graph_ir ir;
    uint32_t *order;                        /* executed nodes, in order */
    uint32_t order_count;
    struct graph_compiled_node *hooks;      /* nodes whose compile() reserved persistent data */
    uint32_t hook_count;
    uint64_t init_temporary_size;
    struct vkdml_vk_buffer constants;       /* every constant's bytes, read once by the initializer */
    uint64_t *constant_offsets;             /* [value_count] */
};

/* ---- The intermediate form ---- */

static bool grow(void **array, uint32_t *capacity, uint32_t count, size_t element)
{
    uint32_t grown = *capacity ? *capacity * 2 : 16;
    void *memory;

    if (count < *capacity)
        return true;
    if (!(memory = realloc(*array, grown * element)))
        return false;
    *array = memory;
    *capacity = grown;
    return true;
}

uint32_t graph_add_value(struct graph_ir *ir, enum graph_value_kind kind, uint64_t size)
{
    struct graph_value *value;

    if (!grow((void **)&ir->values, &ir->value_capacity, ir->value_count, sizeof(*ir->values)))
        return GRAPH_NO_VALUE;
    value = &ir->values[ir->value_count];
    memset(value, 0, sizeof(*value));
    value->kind = kind;
    value->size = size;
    value->alias_of = GRAPH_NO_VALUE;
    return ir->value_count++;
}

void *graph_alloc(struct graph_ir *ir, size_t size)
{
    void *memory;

    if (!grow((void **)&ir->allocations, &ir->allocation_capacity, ir->allocation_count, sizeof(*ir->allocations)))
        return NULL;
    if (!(memory = calloc(1, size ? size : 1)))
        return NULL;
    ir->allocations[ir->allocation_count++] = memory;
    return memory;
}

uint32_t graph_add_node(struct graph_ir *ir, const struct vkdml_operator_view *op, const char *label)
{
    struct graph_node *node;
    uint32_t i;

    if (!grow((void **)&ir->nodes, &ir->node_capacity, ir->node_count, sizeof(*ir->nodes)))
        return GRAPH_NO_VALUE;
    node = &ir->nodes[ir->node_count];
    memset(node, 0, sizeof(*node));
    node->op = op;
    node->label = label;
    if (!(node->inputs = graph_alloc(ir, (op->input_count + 1) * sizeof(*node->inputs)))
            || !(node->outputs = graph_alloc(ir, (op->output_count + 1) * sizeof(*node->outputs))))
        return GRAPH_NO_VALUE;
    for (i = 0; i < op->input_count; ++i)
        node->inputs[i] = GRAPH_NO_VALUE;
    for (i = 0; i < op->output_count; ++i)
        node->outputs[i] = GRAPH_NO_VALUE;
    return ir->node_count++;
}

uint32_t graph_value_readers(const struct graph_ir *ir, uint32_t value, uint32_t *first_reader)
{
    uint32_t count = 0, n, i;

    *first_reader = GRAPH_NO_VALUE;
    for (n = 0; n < ir->node_count; ++n)
    {
        const struct graph_node *node = &ir->nodes[n];

        for (i = 0; !node->removed && i < node->op->input_count; ++i)
        {
            if (node->inputs[i] != value)
                continue;
            if (!count++)
                *first_reader = n;
            break;
        }
    }
    return count;
}

uint32_t graph_value_producer(const struct graph_ir *ir, uint32_t value, uint32_t *output)
{
    uint32_t n, i;

    for (n = 0; n < ir->node_count; ++n)
    {
        const struct graph_node *node = &ir->nodes[n];

        for (i = 0; !node->removed && i < node->op->output_count; ++i)
        {
            if (node->outputs[i] != value)
                continue;
            if (output)
                *output = i;
            return n;
        }
    }
    return GRAPH_NO_VALUE;
}

uint32_t graph_value_root(const struct graph_ir *ir, uint32_t value, uint64_t *offset)
{
    uint64_t total = 0;

    while (ir->values[value].alias_of != GRAPH_NO_VALUE)
    {
        total += ir->values[value].alias_offset;
        value = ir->values[value].alias_of;
    }
    if (offset)
        *offset = total;
    return value;
}

static bool read_at_execution(const struct graph_ir *ir, uint32_t value)
{
    uint32_t n, i;

    for (n = 0; n < ir->node_count; ++n)
    {
        const struct graph_node *node = &ir->nodes[n];

        for (i = 0; !node->removed && !node->at_init && i < node->op->input_count; ++i)
        {
            if (node->inputs[i] == value)
                return true;
        }
    }
    return false;
}

void graph_keep_init_only_values_temporary(struct graph_ir *ir)
{
    uint32_t n, i, v;

    for (n = 0; n < ir->node_count; ++n)
    {
        for (i = 0; !ir->nodes[n].removed && ir->nodes[n].at_init && i < ir->nodes[n].op->output_count; ++i)
        {
            if ((v = ir->nodes[n].outputs[i]) != GRAPH_NO_VALUE && !read_at_execution(ir, v))
                ir->values[v].kind = GRAPH_VALUE_INIT_TEMPORARY;
        }
    }
}

static void ir_destroy(struct graph_ir *ir)
{
    uint32_t i;

    for (i = 0; i < ir->allocation_count; ++i)
        free(ir->allocations[i]);
    free(ir->allocations);
    free(ir->values);
    free(ir->nodes);
}

/* The view's operator nodes become IR nodes, its constants and graph inputs PERSISTENT or INPUT
 * values; `node_values[i]` is view node i's first output value. */
static HRESULT ir_add_view_node(struct graph_ir *ir, uint32_t index, uint32_t *node_values)
{
    const struct vkdml_graph_node *view_node = &ir->view->nodes[index];
    const struct vkdml_operator_view *op = view_node->op;
    uint32_t node, i, value;

    if (!op)
    {
        if ((value = graph_add_value(ir, GRAPH_VALUE_PERSISTENT, view_node->data_size)) == GRAPH_NO_VALUE)
            return E_OUTOFMEMORY;
        ir->values[value].data = view_node->data;
        node_values[index] = value;
        ++ir->report.constant_node_count;
        return S_OK;
    }
    if ((node = graph_add_node(ir, op, view_node->label)) == GRAPH_NO_VALUE)
        return E_OUTOFMEMORY;
    ++ir->report.node_count;
    node_values[index] = ir->value_count;
    for (i = 0; i < op->output_count; ++i)
    {
        /* Absent optional outputs keep a value too, so that node_values + i stays output i. */
        if ((value = graph_add_value(ir, GRAPH_VALUE_TEMPORARY, op->outputs[i] ? op->outputs[i]->TotalTensorSizeInBytes
                : 0)) == GRAPH_NO_VALUE)
            return E_OUTOFMEMORY;
        if (op->outputs[i])
            ir->nodes[node].outputs[i] = value;
    }
    for (i = 0; i < op->input_count; ++i)
    {
        const struct vkdml_graph_source *source = &view_node->inputs[i];

        if (source->kind == VKDML_GRAPH_SOURCE_INPUT)
            ir->nodes[node].inputs[i] = source->index;
        else if (source->kind == VKDML_GRAPH_SOURCE_NODE)
            ir->nodes[node].inputs[i] = node_values[source->index] + source->output;
    }
    return S_OK;
}

static HRESULT ir_build(struct graph_ir *ir)
{
    const struct vkdml_graph_view *view = ir->view;
    uint32_t *node_values, i;
    HRESULT hr = S_OK;

    /* Values 0 .. input_count - 1 are the graph inputs. */
    for (i = 0; i < view->input_count; ++i)
    {
        bool owned = view->inputs[i]->Flags & DML_TENSOR_FLAG_OWNED_BY_DML;

        if (graph_add_value(ir, owned ? GRAPH_VALUE_PERSISTENT : GRAPH_VALUE_INPUT,
                view->inputs[i]->TotalTensorSizeInBytes) == GRAPH_NO_VALUE)
            return E_OUTOFMEMORY;
        ir->values[i].binding = i;
        ir->values[i].owned = owned;
    }
    if (!(node_values = calloc(view->node_count, sizeof(*node_values))))
        return E_OUTOFMEMORY;
    for (i = 0; i < view->node_count && SUCCEEDED(hr); ++i)
        hr = ir_add_view_node(ir, i, node_values);
    for (i = 0; i < view->output_count && SUCCEEDED(hr); ++i)
    {
        struct graph_value *value = &ir->values[node_values[view->outputs[i].index] + view->outputs[i].output];

        if (value->kind == GRAPH_VALUE_OUTPUT)
        {
            FIXME("CompileGraph: node %u (%s) output %u feeds graph outputs %u and %u; one node output feeding two "
                    "graph outputs is not implemented yet.", view->outputs[i].index,
                    view->nodes[view->outputs[i].index].label, view->outputs[i].output, value->binding, i);
            hr = E_NOTIMPL;
            break;
        }
        value->kind = GRAPH_VALUE_OUTPUT;
        value->binding = i;
    }
    free(node_values);
    return hr;
}

/* ---- Planning ---- */

static uint32_t value_root(const struct graph_ir *ir, uint32_t value)
{
    return graph_value_root(ir, value, NULL);
}

/* Whether values `a` and `b` share bytes: the same value, or aliases of one root whose ranges
 * meet (a JOIN's output and the inputs written into its slices). */
static bool values_overlap(const struct graph_ir *ir, uint32_t a, uint32_t b)
{
    uint64_t offset_a, offset_b;

    if (a == b)
        return true;
    if (graph_value_root(ir, a, &offset_a) != graph_value_root(ir, b, &offset_b))
        return false;
    return offset_a < offset_b + ir->values[b].size && offset_b < offset_a + ir->values[a].size;
}

/* Whether node `n` may read `value`: every other node writing its bytes is placed. */
static bool input_ready(const struct graph_ir *ir, const uint32_t *producer, const bool *placed, uint32_t n,
        uint32_t value)
{
    uint32_t v;

    for (v = 0; v < ir->value_count; ++v)
    {
        if (producer[v] != GRAPH_NO_VALUE && producer[v] != n && !placed[producer[v]] && values_overlap(ir, value, v))
            return false;
    }
    return true;
}

/* Executed nodes in an order where each follows the producers of its inputs (passes may append
 * nodes), as close to the IR's order as that allows. */
static HRESULT plan_order(struct vkdml_graph *graph)
{
    struct graph_ir *ir = &graph->ir;
    uint32_t *producer, n, i, v, placed_count = 0;
    bool *placed, progress = true;
    HRESULT hr = S_OK;

    producer = malloc((ir->value_count + 1) * sizeof(*producer));
    placed = calloc(ir->node_count + 1, sizeof(*placed));
    graph->order = calloc(ir->node_count + 1, sizeof(*graph->order));
    if (!producer || !placed || !graph->order)
    {
        hr = E_OUTOFMEMORY;
        goto done;
    }
    memset(producer, 0xff, (ir->value_count + 1) * sizeof(*producer));
    for (n = 0; n < ir->node_count; ++n)
    {
        for (i = 0; !ir->nodes[n].removed && !ir->nodes[n].at_init && i < ir->nodes[n].op->output_count; ++i)
        {
            if ((v = ir->nodes[n].outputs[i]) != GRAPH_NO_VALUE)
                producer[v] = n;
        }
        placed[n] = ir->nodes[n].removed || ir->nodes[n].at_init;
    }
    while (progress)
    {
        progress = false;
        for (n = 0; n < ir->node_count; ++n)
        {
            bool ready = !placed[n];

            for (i = 0; ready && i < ir->nodes[n].op->input_count; ++i)
            {
                v = ir->nodes[n].inputs[i];
                ready = v == GRAPH_NO_VALUE || input_ready(ir, producer, placed, n, v);
            }
            if (!ready)
                continue;
            placed[n] = progress = true;
            graph->order[placed_count++] = n;
        }
    }
    graph->order_count = placed_count;
    for (n = 0; n < ir->node_count; ++n)
    {
        if (!placed[n])
        {
            ERR("CompileGraph: internal error: node %u (%s) was left unordered.", n, ir->nodes[n].label);
            hr = E_FAIL;
            break;
        }
    }

done:
    free(producer);
    free(placed);
    return hr;
}

static void note_use(struct graph_ir *ir, uint32_t value, uint32_t position)
{
    struct graph_value *root;

    if (value == GRAPH_NO_VALUE)
        return;
    root = &ir->values[value_root(ir, value)];
    root->first_use = VKDML_MIN(root->first_use, position);
    root->last_use = VKDML_MAX(root->last_use, position);
}

static void plan_liveness(struct vkdml_graph *graph)
{
    struct graph_ir *ir = &graph->ir;
    uint32_t p, i;

    for (i = 0; i < ir->value_count; ++i)
    {
        ir->values[i].first_use = UINT32_MAX;
        ir->values[i].last_use = 0;
    }
    for (p = 0; p < graph->order_count; ++p)
    {
        const struct graph_node *node = &ir->nodes[graph->order[p]];

        for (i = 0; i < node->op->input_count; ++i)
            note_use(ir, node->inputs[i], p);
        for (i = 0; i < node->op->output_count; ++i)
            note_use(ir, node->outputs[i], p);
    }
}

/* Free ranges of the temporary resource, sorted by offset: best fit, else the end grows. */
struct free_list
{
    struct free_range { uint64_t offset, size; } *ranges;
    uint32_t count, capacity;
    uint64_t end;
};

static uint64_t free_list_take(struct free_list *list, uint64_t size)
{
    uint32_t best = UINT32_MAX, i;
    uint64_t offset;

    for (i = 0; i < list->count; ++i)
    {
        if (list->ranges[i].size >= size && (best == UINT32_MAX || list->ranges[i].size < list->ranges[best].size))
            best = i;
    }
    if (best == UINT32_MAX)
    {
        /* A free range at the end grows into the new one. */
        if (list->count && list->ranges[list->count - 1].offset + list->ranges[list->count - 1].size == list->end)
        {
            offset = list->ranges[--list->count].offset;
            list->end = offset + size;
            return offset;
        }
        offset = list->end;
        list->end += size;
        return offset;
    }
    offset = list->ranges[best].offset;
    list->ranges[best].offset += size;
    if (!(list->ranges[best].size -= size))
        memmove(&list->ranges[best], &list->ranges[best + 1], (--list->count - best) * sizeof(*list->ranges));
    return offset;
}

static bool free_list_give(struct free_list *list, uint64_t offset, uint64_t size)
{
    uint32_t i = 0;

    while (i < list->count && list->ranges[i].offset < offset)
        ++i;
    if (i && list->ranges[i - 1].offset + list->ranges[i - 1].size == offset)
    {
        list->ranges[i - 1].size += size;
        if (i < list->count && offset + size == list->ranges[i].offset)
        {
            list->ranges[i - 1].size += list->ranges[i].size;
            memmove(&list->ranges[i], &list->ranges[i + 1], (--list->count - i) * sizeof(*list->ranges));
        }
        return true;
    }
    if (i < list->count && offset + size == list->ranges[i].offset)
    {
        list->ranges[i].offset = offset;
        list->ranges[i].size += size;
        return true;
    }
    if (!grow((void **)&list->ranges, &list->capacity, list->count, sizeof(*list->ranges)))
        return false;
    memmove(&list->ranges[i + 1], &list->ranges[i], (list->count++ - i) * sizeof(*list->ranges));
    list->ranges[i] = (struct free_range){offset, size};
    return true;
}

static uint64_t aligned_size(const struct graph_value *value)
{
    return VKDML_ALIGN_UP(VKDML_MAX(value->size, 1), DML_TEMPORARY_BUFFER_ALIGNMENT);
}

static bool is_planned_temporary(const struct graph_ir *ir, uint32_t value)
{
    return ir->values[value].kind == GRAPH_VALUE_TEMPORARY && ir->values[value].alias_of == GRAPH_NO_VALUE
            && ir->values[value].first_use != UINT32_MAX;
}

/* Intermediates by liveness: a node's outputs are placed before its last-read inputs are freed,
 * so no node writes over what it reads. Returns the plan's size. */
static HRESULT plan_temporaries(struct vkdml_graph *graph, uint64_t *size)
{
    struct graph_ir *ir = &graph->ir;
    struct free_list list = {0};
    uint64_t live = 0;
    uint32_t p, v;
    bool reuse = ir->passes & VKDML_GRAPH_PASS_MEMORY;

    for (p = 0; p < graph->order_count; ++p)
    {
        for (v = 0; v < ir->value_count; ++v)
        {
            if (!is_planned_temporary(ir, v) || ir->values[v].first_use != p)
                continue;
            ir->values[v].location.offset = free_list_take(&list, aligned_size(&ir->values[v]));
            live += aligned_size(&ir->values[v]);
        }
        ir->report.temporary_lower_bound = VKDML_MAX(ir->report.temporary_lower_bound, live);
        for (v = 0; v < ir->value_count; ++v)
        {
            if (!is_planned_temporary(ir, v) || ir->values[v].last_use != p)
                continue;
            live -= aligned_size(&ir->values[v]);
            if (reuse && !free_list_give(&list, ir->values[v].location.offset, aligned_size(&ir->values[v])))
            {
                free(list.ranges);
                return E_OUTOFMEMORY;
            }
        }
    }
    free(list.ranges);
    *size = list.end;
    return S_OK;
}

/* Every value's location (slots: inputs, outputs, temporary, persistent; vkdml_backend.h). */
static void plan_locations(struct vkdml_graph *graph, uint64_t *persistent_size)
{
    struct graph_ir *ir = &graph->ir;
    uint32_t temporary_slot = ir->view->input_count + ir->view->output_count, v;
    uint64_t persistent = 0;

    for (v = 0; v < ir->value_count; ++v)
    {
        struct graph_value *value = &ir->values[v];

        switch (value->kind)
        {
            case GRAPH_VALUE_INPUT:
                value->location = (struct vkdml_tensor_location){value->binding, 0};
                break;
            case GRAPH_VALUE_OUTPUT:
                value->location = (struct vkdml_tensor_location){ir->view->input_count + value->binding, 0};
                break;
            case GRAPH_VALUE_TEMPORARY:
                value->location.slot = temporary_slot;
                break;
            case GRAPH_VALUE_PERSISTENT:
                value->location = (struct vkdml_tensor_location){temporary_slot + 1, persistent};
                persistent = VKDML_ALIGN_UP(persistent + value->size, DML_PERSISTENT_BUFFER_ALIGNMENT);
                break;
            case GRAPH_VALUE_INIT_TEMPORARY:
                value->location = (struct vkdml_tensor_location){temporary_slot, graph->init_temporary_size};
                graph->init_temporary_size += aligned_size(value);
                break;
        }
    }
    for (v = 0; v < ir->value_count; ++v)
    {
        uint64_t offset;
        uint32_t root = graph_value_root(ir, v, &offset);

        if (root != v)
        {
            ir->values[v].location = ir->values[root].location;
            ir->values[v].location.offset += offset;
        }
    }
    *persistent_size = persistent;
}

/* ---- Barriers ---- */

/* Bytes of a binding that dispatches since the last barrier read or wrote. */
struct access
{
    uint32_t slot;
    uint64_t start, end;
    bool write;
};

struct access_list
{
    struct access *accesses;
    uint32_t count, capacity;
};

static bool accesses_conflict(const struct access *a, const struct access *b)
{
    return (a->write || b->write) && a->slot == b->slot && a->start < b->end && b->start < a->end;
}

static bool access_list_add(struct access_list *list, struct access access)
{
    if (access.start == access.end)
        return true;
    if (!grow((void **)&list->accesses, &list->capacity, list->count, sizeof(*list->accesses)))
        return false;
    list->accesses[list->count++] = access;
    return true;
}

/* What node `node` touches: its inputs read, its outputs written, its scratch both. */
static HRESULT node_accesses(const struct graph_ir *ir, const struct graph_node *node, uint32_t temporary_slot,
        uint64_t scratch_start, uint64_t scratch_end, struct access_list *list)
{
    bool ok = access_list_add(list, (struct access){temporary_slot, scratch_start, scratch_end, true});
    uint32_t i;

    for (i = 0; ok && i < node->op->input_count + node->op->output_count; ++i)
    {
        bool write = i >= node->op->input_count;
        uint32_t v = write ? node->outputs[i - node->op->input_count] : node->inputs[i];
        const struct graph_value *value;

        if (v == GRAPH_NO_VALUE)
            continue;
        value = &ir->values[v];
        ok = access_list_add(list, (struct access){value->location.slot, value->location.offset,
                value->location.offset + value->size, write});
    }
    return ok ? S_OK : E_OUTOFMEMORY;
}

static bool needs_barrier(const struct access_list *pending, const struct access_list *node)
{
    uint32_t i, j;

    for (i = 0; i < node->count; ++i)
    {
        for (j = 0; j < pending->count; ++j)
        {
            if (accesses_conflict(&node->accesses[i], &pending->accesses[j]))
                return true;
        }
    }
    return false;
}

/* ---- Compilation ---- */

static HRESULT compile_node(struct vkdml_graph *graph, struct vkdml_program *program, const struct graph_node *node,
        uint64_t scratch_start, uint64_t *persistent_size, uint64_t *scratch_end)
{
    struct graph_ir *ir = &graph->ir;
    const struct vkdml_op_entry *entry = &vkdml_op_table[node->op->type];
    uint32_t count = node->op->input_count + node->op->output_count, i;
    struct vkdml_tensor_location *locations;
    struct vkdml_compile compile = {0};
    HRESULT hr;

    if (!entry->compile)
        return vkdml_op_error(node->op, E_NOTIMPL, "the operator is not implemented yet (graph node %s).", node->label);
    if (!(locations = calloc(count + 1, sizeof(*locations))))
        return E_OUTOFMEMORY;
    for (i = 0; i < count; ++i)
    {
        uint32_t v = i < node->op->input_count ? node->inputs[i] : node->outputs[i - node->op->input_count];

        locations[i] = v == GRAPH_NO_VALUE ? (struct vkdml_tensor_location){0} : ir->values[v].location;
    }
    compile.device = ir->device;
    compile.vk = ir->device->vk;
    compile.op = node->op;
    compile.flags = ir->flags;
    compile.knobs = &ir->device->knobs;
    compile.inputs = locations;
    compile.outputs = locations + node->op->input_count;
    compile.temporary_slot = ir->view->input_count + ir->view->output_count;
    compile.persistent_slot = compile.temporary_slot + 1;
    compile.persistent_size = *persistent_size;
    compile.temporary_size = scratch_start;
    compile.program = program;
    if (FAILED(hr = entry->compile(&compile)))
        WARN("CompileGraph: node %s (%s) does not compile: %#x.", node->label, node->op->name, (unsigned int)hr);
    *persistent_size = compile.persistent_size;
    *scratch_end = compile.temporary_size;
    free(locations);
    return hr;
}

static HRESULT add_segment(struct vkdml_program *program, const struct graph_node *node, uint32_t first_dispatch)
{
    struct vkdml_program_segment *segment;
    uint32_t capacity = program->segment_count;

    if (!(segment = realloc(program->segments, (capacity + 1) * sizeof(*segment))))
        return E_OUTOFMEMORY;
    program->segments = segment;
    segment = &program->segments[program->segment_count++];
    segment->first_dispatch = first_dispatch;
    snprintf(segment->label, sizeof(segment->label), "%s", node->label);
    return S_OK;
}

static HRESULT note_hook(struct vkdml_graph *graph, uint32_t node, uint64_t persistent_start)
{
    struct graph_compiled_node *hooks = realloc(graph->hooks, (graph->hook_count + 1) * sizeof(*hooks));

    if (!hooks)
        return E_OUTOFMEMORY;
    graph->hooks = hooks;
    hooks[graph->hook_count++] = (struct graph_compiled_node){node, persistent_start};
    return S_OK;
}

/* Sets the barrier before a node's first dispatch where it touches what pending dispatches did. */
static HRESULT place_barrier(struct vkdml_graph *graph, struct vkdml_program *program, const struct graph_node *node,
        uint32_t first, uint64_t scratch_start, uint64_t scratch_end, struct access_list *pending)
{
    struct graph_ir *ir = &graph->ir;
    struct access_list mine = {0};
    bool internal = false;
    uint32_t i;
    HRESULT hr;

    if (FAILED(hr = node_accesses(ir, node, ir->view->input_count + ir->view->output_count, scratch_start,
            scratch_end, &mine)))
        return hr;
    if (first < program->dispatch_count && pending->count
            && (!(ir->passes & VKDML_GRAPH_PASS_BARRIERS) || needs_barrier(pending, &mine)))
    {
        program->dispatches[first].barrier_before = true;
        pending->count = 0;
    }
    for (i = first + 1; i < program->dispatch_count; ++i)
        internal |= program->dispatches[i].barrier_before;
    if (internal)
        pending->count = 0;
    for (i = 0; i < mine.count && SUCCEEDED(hr); ++i)
        hr = access_list_add(pending, mine.accesses[i]) ? S_OK : E_OUTOFMEMORY;
    free(mine.accesses);
    return hr;
}

static HRESULT compile_nodes(struct vkdml_graph *graph, struct vkdml_program *program, uint64_t scratch_start,
        uint64_t *persistent_size)
{
    struct graph_ir *ir = &graph->ir;
    struct access_list pending = {0};
    uint64_t temporary = scratch_start;
    HRESULT hr = S_OK;
    uint32_t p;

    for (p = 0; p < graph->order_count && SUCCEEDED(hr); ++p)
    {
        const struct graph_node *node = &ir->nodes[graph->order[p]];
        uint64_t persistent_start = *persistent_size, scratch_end = scratch_start;
        uint32_t first = program->dispatch_count;

        if (FAILED(hr = compile_node(graph, program, node, scratch_start, persistent_size, &scratch_end)))
            break;
        temporary = VKDML_MAX(temporary, scratch_end);
        if (*persistent_size != persistent_start)
            hr = note_hook(graph, graph->order[p], persistent_start);
        if (SUCCEEDED(hr) && !program->count_only)
            hr = add_segment(program, node, first);
        if (SUCCEEDED(hr))
            hr = place_barrier(graph, program, node, first, scratch_start, scratch_end, &pending);
    }
    free(pending.accesses);
    program->properties.TemporaryResourceSize = temporary;
    return hr;
}

static HRESULT upload_constants(struct vkdml_graph *graph)
{
    struct graph_ir *ir = &graph->ir;
    uint64_t size = 0;
    uint32_t v;
    VkResult vr;

    if (!(graph->constant_offsets = calloc(ir->value_count + 1, sizeof(*graph->constant_offsets))))
        return E_OUTOFMEMORY;
    for (v = 0; v < ir->value_count; ++v)
    {
        if (!ir->values[v].data)
            continue;
        graph->constant_offsets[v] = size;
        size = VKDML_ALIGN_UP(size + ir->values[v].size, 16);
    }
    if (!size)
        return S_OK;
    if ((vr = vkdml_vk_buffer_create(ir->device->vk, size, VKDML_VK_MEMORY_UPLOAD, &graph->constants)) < 0)
        return hresult_from_vk_result(vr);
    /* Copies move whole words: the bytes after each constant's end are zeros. */
    memset(graph->constants.mapped, 0, size);
    for (v = 0; v < ir->value_count; ++v)
    {
        if (ir->values[v].data)
            memcpy((uint8_t *)graph->constants.mapped + graph->constant_offsets[v], ir->values[v].data,
                    ir->values[v].size);
    }
    vr = vkdml_vk_memory_flush(ir->device->vk, graph->constants.memory, graph->constants.memory_size, 0, size);
    return vr < 0 ? hresult_from_vk_result(vr) : S_OK;
}

static void log_report(const struct vkdml_graph_report *report)
{
    INFO("CompileGraph: %u nodes (%u constant), %u dispatches (%u one by one), %u barriers; fused %u activations, "
            "%u element-wise nodes; folded %u batch normalizations, %u constant nodes; %u aliases, %u joins in place; "
            "temporary %" PRIu64 " bytes (intermediates alive at once: %" PRIu64 "), persistent %" PRIu64 ".",
            report->node_count, report->constant_node_count, report->dispatch_count, report->dispatches_unfused,
            report->barrier_count, report->fused_activations, report->fused_elementwise, report->folded_batch_norms,
            report->folded_nodes, report->aliased_nodes, report->joined_in_place, report->temporary_size,
            report->temporary_lower_bound, report->persistent_size);
}

static HRESULT graph_compile(struct vkdml_graph *graph, struct vkdml_program *program)
{
    struct graph_ir *ir = &graph->ir;
    uint64_t plan_size, persistent_size;
    uint32_t slots = ir->view->input_count + ir->view->output_count, i;
    HRESULT hr;

    if (FAILED(hr = ir_build(ir)) || FAILED(hr = graph_run_passes(ir)) || FAILED(hr = plan_order(graph)))
        return hr;
    plan_liveness(graph);
    if (FAILED(hr = plan_temporaries(graph, &plan_size)))
        return hr;
    plan_locations(graph, &persistent_size);
    if (FAILED(hr = compile_nodes(graph, program, plan_size, &persistent_size)))
        return hr;
    if (!program->count_only && FAILED(hr = upload_constants(graph)))
        return hr;
    program->input_count = ir->view->input_count;
    program->flags = ir->flags;
    program->properties.PersistentResourceSize = persistent_size;
    program->properties.RequiredDescriptorCount = slots + 2;
    ir->report.dispatch_count = program->dispatch_count;
    for (i = 1; i < program->dispatch_count; ++i)
        ir->report.barrier_count += program->dispatches[i].barrier_before;
    ir->report.temporary_size = program->properties.TemporaryResourceSize;
    ir->report.persistent_size = persistent_size;
    return S_OK;
}

void vkdml_graph_destroy(struct vkdml_graph *graph)
{
    if (!graph)
        return;
    if (graph->constants.vk_buffer)
        vkdml_vk_buffer_destroy(graph->ir.device->vk, &graph->constants);
    ir_destroy(&graph->ir);
    free(graph->order);
    free(graph->hooks);
    free(graph->constant_offsets);
    free(graph);
}

static struct vkdml_graph *graph_create(struct vkdml_backend_device *device, const struct vkdml_graph_view *view,
        DML_EXECUTION_FLAGS flags, uint32_t passes)
{
    struct vkdml_graph *graph;

    if (!(graph = calloc(1, sizeof(*graph))))
        return NULL;
    graph->ir.device = device;
    graph->ir.view = view;
    graph->ir.flags = flags;
    graph->ir.passes = passes;
    return graph;
}

/* The dispatches the graph's nodes record with every optimisation off (the report's baseline). */
static HRESULT count_unfused(struct vkdml_backend_device *device, const struct vkdml_graph_view *view,
        DML_EXECUTION_FLAGS flags, uint32_t *count)
{
    struct vkdml_program program = {.count_only = true};
    struct vkdml_graph *graph;
    HRESULT hr;

    if (!(graph = graph_create(device, view, flags, 0)))
        return E_OUTOFMEMORY;
    hr = graph_compile(graph, &program);
    *count = program.dispatch_count;
    free(program.dispatches);
    free(program.segments);
    vkdml_graph_destroy(graph);
    return hr;
}

/* The initializer's part compiles when an initializer is created: tried now (counting dispatches,
 * creating no pipeline) so that CompileGraph answers what a folded node's family refuses. */
static HRESULT check_initializer(struct vkdml_backend_device *device, const struct vkdml_program *program)
{
    struct vkdml_program dry = {.count_only = true};
    HRESULT hr;

    hr = vkdml_graph_add_initializer(device, &dry, program, 0, program->input_count + 1);
    free(dry.dispatches);
    return hr;
}

HRESULT vkdml_backend_compile_graph(struct vkdml_backend_device *device, const struct vkdml_graph_view *graph_view,
        DML_EXECUTION_FLAGS flags, struct vkdml_program **out)
{
    uint32_t unfused = 0;
    struct vkdml_program *program;
    HRESULT hr;

    if (!(program = calloc(1, sizeof(*program))))
        return E_OUTOFMEMORY;
    snprintf(program->type_label, sizeof(program->type_label), "GRAPH");
    memcpy(program->label, program->type_label, sizeof(program->label));
    if (!(program->graph = graph_create(device, graph_view, flags, device->knobs.graph_passes)))
        hr = E_OUTOFMEMORY;
    else if (SUCCEEDED(hr = graph_compile(program->graph, program))
            && SUCCEEDED(hr = check_initializer(device, program)) && device->knobs.graph_passes)
        hr = count_unfused(device, graph_view, flags, &unfused);
    if (FAILED(hr))
    {
        vkdml_backend_program_destroy(device, program);
        return hr;
    }
    program->graph->ir.report.dispatches_unfused = device->knobs.graph_passes ? unfused : program->dispatch_count;
    log_report(&program->graph->ir.report);
    *out = program;
    return S_OK;
}

void vkdml_backend_program_graph_report(const struct vkdml_program *program, struct vkdml_graph_report *report)
{
    memset(report, 0, sizeof(*report));
    if (program->graph)
        *report = program->graph->ir.report;
}

/* ---- The initializer part ---- */

/* Where the initializer finds a value: OWNED_BY_DML inputs in their binding, the rest in the
 * target's persistent resource or the initializer's temporary one. */
static struct vkdml_tensor_location init_location(const struct graph_ir *ir, uint32_t value, uint32_t base_slot,
        uint32_t temporary_slot)
{
    const struct graph_value *v;
    struct vkdml_tensor_location location;

    if (value == GRAPH_NO_VALUE)
        return (struct vkdml_tensor_location){temporary_slot, 0};
    v = &ir->values[value_root(ir, value)];
    location = ir->values[value].location;
    if (v->owned)
        return (struct vkdml_tensor_location){base_slot + v->binding, location.offset - v->location.offset};
    if (v->kind == GRAPH_VALUE_PERSISTENT)
        location.slot = base_slot + ir->view->input_count;
    else if (v->kind == GRAPH_VALUE_INPUT)
        location.slot = base_slot + v->binding;
    else
        location.slot = temporary_slot;
    return location;
}

static HRESULT add_init_copies(struct vkdml_backend_device *device, struct vkdml_program *init,
        const struct vkdml_graph *graph, uint32_t base_slot)
{
    const struct graph_ir *ir = &graph->ir;
    uint32_t persistent_slot = base_slot + ir->view->input_count, v;
    HRESULT hr = S_OK;

    for (v = 0; v < ir->value_count && SUCCEEDED(hr); ++v)
    {
        const struct graph_value *value = &ir->values[v];

        if (value->owned)
            hr = vkdml_program_add_copy(device, init, base_slot + value->binding, 0, persistent_slot,
                    value->location.offset, value->size, false);
        else if (value->data)
            hr = vkdml_program_add_copy(device, init, COPY_SOURCE_ADDRESS,
                    graph->constants.address + graph->constant_offsets[v], persistent_slot, value->location.offset,
                    VKDML_ALIGN_UP(value->size, 4), false);
    }
    return hr;
}

/* Folded nodes run once, in IR order (producers first), each after a barrier. */
static HRESULT add_init_nodes(struct vkdml_backend_device *device, struct vkdml_program *init,
        const struct vkdml_graph *graph, uint32_t base_slot, uint32_t temporary_slot)
{
    const struct graph_ir *ir = &graph->ir;
    struct vkdml_tensor_location *locations;
    struct vkdml_compile compile = {0};
    uint32_t n, i, first;
    HRESULT hr = S_OK;

    for (n = 0; n < ir->node_count && SUCCEEDED(hr); ++n)
    {
        const struct graph_node *node = &ir->nodes[n];
        uint32_t count = node->op->input_count + node->op->output_count;

        if (node->removed || !node->at_init)
            continue;
        if (!(locations = calloc(count + 1, sizeof(*locations))))
            return E_OUTOFMEMORY;
        for (i = 0; i < count; ++i)
            locations[i] = init_location(ir, i < node->op->input_count ? node->inputs[i]
                    : node->outputs[i - node->op->input_count], base_slot, temporary_slot);
        memset(&compile, 0, sizeof(compile));
        compile.device = device;
        compile.vk = device->vk;
        compile.op = node->op;
        compile.flags = ir->flags;
        compile.knobs = &device->knobs;
        compile.inputs = locations;
        compile.outputs = locations + node->op->input_count;
        compile.temporary_slot = temporary_slot;
        compile.persistent_slot = base_slot + ir->view->input_count;
        compile.temporary_size = VKDML_MAX(init->properties.TemporaryResourceSize, graph->init_temporary_size);
        compile.program = init;
        first = init->dispatch_count;
        hr = vkdml_op_table[node->op->type].compile(&compile);
        if (SUCCEEDED(hr) && first < init->dispatch_count)
            init->dispatches[first].barrier_before = true;
        init->properties.TemporaryResourceSize = VKDML_MAX(init->properties.TemporaryResourceSize,
                compile.temporary_size);
        free(locations);
    }
    return hr;
}

static HRESULT add_init_hooks(struct vkdml_backend_device *device, struct vkdml_program *init,
        const struct vkdml_graph *graph, uint32_t base_slot, uint32_t temporary_slot)
{
    const struct graph_ir *ir = &graph->ir;
    struct vkdml_tensor_location *inputs;
    uint32_t h, i, first;
    HRESULT hr = S_OK;

    for (h = 0; h < graph->hook_count && SUCCEEDED(hr); ++h)
    {
        const struct graph_node *node = &ir->nodes[graph->hooks[h].node];

        if (!(inputs = calloc(node->op->input_count + 1, sizeof(*inputs))))
            return E_OUTOFMEMORY;
        for (i = 0; i < node->op->input_count; ++i)
            inputs[i] = init_location(ir, node->inputs[i], base_slot, temporary_slot);
        first = init->dispatch_count;
        hr = vkdml_program_add_family_init(device, init, node->op, ir->flags, inputs,
                base_slot + ir->view->input_count, graph->hooks[h].persistent_start, temporary_slot);
        if (SUCCEEDED(hr) && first < init->dispatch_count)
            init->dispatches[first].barrier_before = true;
        free(inputs);
    }
    return hr;
}

HRESULT vkdml_graph_add_initializer(struct vkdml_backend_device *device, struct vkdml_program *init,
        const struct vkdml_program *target, uint32_t base_slot, uint32_t temporary_slot)
{
    const struct vkdml_graph *graph = target->graph;
    HRESULT hr;

    if (FAILED(hr = add_init_copies(device, init, graph, base_slot))
            || FAILED(hr = add_init_nodes(device, init, graph, base_slot, temporary_slot)))
        return hr;
    init->properties.TemporaryResourceSize = VKDML_MAX(init->properties.TemporaryResourceSize,
            graph->init_temporary_size);
    return add_init_hooks(device, init, graph, base_slot, temporary_slot);
}
