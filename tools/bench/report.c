/*
 * vkdml-bench's outputs: the text table, JSON, markdown, and the profiler's Chrome trace.
 */
#include "graph.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

const char *const status_names[] = {"ok", "skipped", "failed"};

/* ---- Output: the text table ---- */

static const char *unit_of(bool compute_bound)
{
    return compute_bound ? "TFLOP/s" : "GB/s";
}

const char *check_text(int check)
{
    return check < 0 ? "-" : check ? "pass" : "MISMATCH";
}

static const char *result_check_text(const struct result *r)
{
    return r->no_reference ? "no reference" : check_text(r->check);
}

void print_header(struct bench *b)
{
    fprintf(b->text, "vkdml-bench %s on [%d] %s (%s%s%s, Vulkan %u.%u.%u)\n", vkdml_get_version_string(),
            b->adapter_index, b->adapter.name, b->adapter.driver_name, b->adapter.driver_info[0] ? " " : "",
            b->adapter.driver_info, b->adapter.api_version >> 22 & 0x7fu, b->adapter.api_version >> 12 & 0x3ffu,
            b->adapter.api_version & 0xfffu);
    fprintf(b->text, "GPU time: vkdml profiler timestamps around each dispatch, %u timed after a warm-up of %u and "
            "%.0f ms; rate from the median\n\n", b->iterations, b->warmup, b->warmup_ms);
    fprintf(b->text, "%-30s %-6s %-23s %10s %10s %10s %16s %13s %6s %6s %10s %10s %8s %s\n", "workload", "type",
            "shape", "median us", "min us", "p90 us", "rate", "anchor", "ratio", "doc", "copy/bar", "bar", "rec us",
            "check");
}

void print_result(struct bench *b, const struct result *r)
{
    char rate[32] = "", anchor[32] = "", ratio[16] = "", doc_ratio[16] = "", target[24] = "", record[16] = "-";
    char copy[24] = "";

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
    if (r->copy_rate && r->copy_bar)
        snprintf(copy, sizeof(copy), "%.3f/%.2f", r->copy_ratio, r->copy_bar);
    else if (r->copy_rate)
        snprintf(copy, sizeof(copy), "%.3f", r->copy_ratio);
    if (verdict(r) >= 0)
        snprintf(target, sizeof(target), "%.2f %s", r->target, verdict(r) ? "met" : "MISS");
    if (r->record_us)
        snprintf(record, sizeof(record), "%.2f", r->record_us);
    fprintf(b->text, "%-30s %-6s %-23s %10.2f %10.2f %10.2f %16s %13s %6s %6s %10s %10s %8s %s\n", r->name,
            type_name(r->type), r->shape, r->gpu_median_us, r->gpu_min_us, r->gpu_p90_us, rate, anchor, ratio,
            doc_ratio, copy, target, record, result_check_text(r));
    fflush(b->text);
}

void print_dispatch(struct bench *b, const struct dispatch_result *d)
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

void json_string(FILE *f, const char *s)
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
void json_number(FILE *f, double value, bool zero_is_null)
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
        fputs(",\n      \"copy_bandwidth\": ", f);
        json_number(f, r->copy_rate, true);
        fputs(", \"copy_ratio\": ", f);
        json_number(f, r->copy_ratio, true);
        fputs(", \"copy_target\": ", f);
        json_number(f, r->copy_bar, true);
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
    json_graphs(b, f);
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
        fprintf(f, "| %s | %s: %s | | | | | | |\n", r->name, status_names[r->status], r->reason);
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
    if (r->copy_rate)
        fprintf(f, " %.2fx of %.4g GB/s |", r->copy_ratio, r->copy_rate);
    else
        fputs(" |", f);
    if (verdict(r) < 0)
        fputs(" |\n", f);
    else if (r->copy_bar && r->copy_rate && r->target)
        fprintf(f, " >= %.2fx of copy, >= %.2fx: %s |\n", r->copy_bar, r->target, verdict(r) ? "met" : "**missed**");
    else if (r->copy_bar && r->copy_rate)
        fprintf(f, " >= %.2fx of copy: %s |\n", r->copy_bar, verdict(r) ? "met" : "**missed**");
    else
        fprintf(f, " >= %.2fx: %s |\n", r->target, verdict(r) ? "met" : "**missed**");
}

static void markdown_dispatch(FILE *f, const struct dispatch_result *d)
{
    if (d->status != STATUS_OK)
    {
        fprintf(f, "| small-dispatch | failed: %s | | | | | | |\n", d->reason);
        return;
    }
    fprintf(f, "| chain of %u dependent small dispatches | %.2f us per dispatch", d->chain_length, d->shim_gpu_us);
    if (d->have_raw)
        fprintf(f, " (bare Vulkan %.2f)", d->bare_gpu_us);
    fprintf(f, " | | | | | | <= %.0f us: %s |\n", TARGET_DISPATCH_US, d->shim_gpu_us <= TARGET_DISPATCH_US ? "met"
            : "**missed**");
    if (!d->have_raw)
    {
        fprintf(f, "| RecordDispatch, CPU | %.3f us (no bare baseline: %s) | | | | | | |\n", d->shim_record_us,
                d->raw_reason);
        return;
    }
    fprintf(f, "| RecordDispatch, CPU | %.3f us (bare bind+push+dispatch %.3f us) | | %.2fx | | | | <= %.0fx: %s |\n",
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
    if (b->copy_rate)
        fprintf(f, "Copy bandwidth: %s's, %.4g GB/s in this run; memory-bound operators held to it must reach the "
                "share the first bar names (performance.md's rule) as well as their anchors.\n\n", COPY_PRESET,
                b->copy_rate);
    fputs("| workload | vkdml | anchor, this run | ratio | performance.md | ratio | of copy bandwidth | first bar |\n"
            "|---|---|---|---|---|---|---|---|\n", f);
    for (i = 0; i < b->result_count; ++i)
        markdown_result(f, &b->results[i]);
    if (b->dispatch_run)
        markdown_dispatch(f, &b->dispatch);
    markdown_graphs(b, f);
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
    trace_graph_names(b, f);
    for (i = 0; i < b->trace_count; ++i)
    {
        fputs(",\n  {\"name\": ", f);
        json_string(f, b->trace[i].name);
        fprintf(f, ", \"ph\": \"X\", \"pid\": 1, \"tid\": %u, \"ts\": %.3f, \"dur\": %.3f}", b->trace[i].tid,
                (b->trace[i].start_ns - origin) * 1e-3, (b->trace[i].end_ns - b->trace[i].start_ns) * 1e-3);
    }
    fputs("\n]}\n", f);
}

bool write_file(struct bench *b, const char *path, void (*writer)(struct bench *b, FILE *f, bool ok), bool ok)
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

void json_writer(struct bench *b, FILE *f, bool ok)
{
    write_json(b, f, ok);
}

void markdown_writer(struct bench *b, FILE *f, bool ok)
{
    write_markdown(b, f);
}

void trace_writer(struct bench *b, FILE *f, bool ok)
{
    write_trace(b, f);
}
