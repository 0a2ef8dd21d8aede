/*
 * vkdml-bench's graph presets (graph.c): whole networks through IDMLDevice1::CompileGraph, beside
 * the same operators compiled and dispatched one by one.
 */
#ifndef VKDML_BENCH_GRAPH_H
#define VKDML_BENCH_GRAPH_H

#include "bench.h"

/* The op of a graph preset (struct preset); its shape names the network's size:
 * GRAPH_RESNET "NxHW:B1,B2..." (batch, image side, bottlenecks per stage, at most 4 stages),
 * GRAPH_ENCODER "BxSxD" (batch, sequence, hidden size; D / 64 heads of 64). */
#define GRAPH_RESNET "graph-resnet50"
#define GRAPH_ENCODER "graph-encoder"

/* Chrome trace threads: graph i's run at GRAPH_TRACE_TID + 2i, its one-by-one run next. */
#define GRAPH_TRACE_TID 1000u

/* performance.md's bar for CompileGraph of ResNet-50 with a warm cache. */
#define TARGET_RESNET_COMPILE_MS 50.0

struct graph_result
{
    char name[64];
    char network[16];                   /* "resnet50", "encoder" */
    DML_TENSOR_DATA_TYPE type;
    char shape[32];
    const char *unit;                   /* "images/s", "sequences/s" */
    unsigned int items;                 /* images or sequences per run */
    enum status status;
    char reason[256];
    unsigned int nodes, weights;        /* operator nodes; OWNED_BY_DML graph inputs */
    bool have_report;                   /* vkdml_get_graph_report answered */
    unsigned int dispatches, dispatches_unfused, barriers;
    unsigned int fused_activations, fused_elementwise, folded_batch_norms, folded_nodes, aliased_nodes;
    double temporary_mib, temporary_lower_bound_mib, persistent_mib;
    double compile_cold_ms, compile_warm_ms;    /* CompileGraph: fresh device, then again on it */
    double eager_compile_ms;            /* CompileOperator of every node, on the bench's device */
    unsigned int iterations;
    double graph_ms, graph_min_ms, graph_p90_ms;    /* one RecordDispatch of the graph */
    double eager_ms, eager_min_ms, eager_p90_ms;    /* the nodes one by one, one command list */
    double rate, eager_rate;            /* items / s */
    double anchor_ms, doc_anchor_ms;    /* PyTorch eager: this run's (--anchor-ms), performance.md's */
    bool anchor_measured;
    double ratio, doc_ratio, target;    /* anchor / graph time: a speed ratio */
    int check;                          /* -1 not run, 0 mismatch, 1 the graph's output equals the eager one's */
    UINT64 checked, mismatches;
    double max_error;                   /* the largest |graph - eager| in tolerances */
    int reference_check;                /* -1 not run, else whether the eager output equals the CPU reference's */
    UINT64 reference_checked, reference_mismatches;
    double reference_max_error;
};

void run_graph_preset(struct bench *b, const struct preset *p);
/* Whether every graph preset ran and checked; the text, JSON and markdown of them. */
bool graphs_ok(const struct bench *b);
void print_graph(struct bench *b, const struct graph_result *r);
void json_graphs(const struct bench *b, FILE *f);
void markdown_graphs(const struct bench *b, FILE *f);
/* The Chrome trace's thread names of the graphs' runs. */
void trace_graph_names(const struct bench *b, FILE *f);

#endif /* VKDML_BENCH_GRAPH_H */
