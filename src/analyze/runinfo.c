/* Run info: what the trace is, what it holds, on which devices. */
#include "analyze.h"
#include "peaks.h"
#include "../util/utf8.h"
#include "../summary/summary.h"
#include <assert.h>
#include <string.h>
#include <time.h>

/* The run record's head: the input, its format and schema, its bytes, the
 * first event's time (and its wall-clock date when believable), the span
 * and where a truncated input ends. */
static tab_run *ri_head(const an_ctx *c, pc_summary *ps, cJSON *ri) {
    const pc_trace *t = c->t;
    const pc_analyze_opts *o = &c->o;
    tab_run *run = PC_ADD_REC(ps, ri, run);
    run->input = pc_summary_utf8(ps, o && o->input_name ? o->input_name : "");
    const char *fmt = strtab_get(&t->strs, t->source_format);
    run->format = pc_summary_utf8(ps, fmt);
    run->schema = pc_summary_utf8(ps, strcmp(fmt, "kineto-json") ? fmt : t->schema_2021 ? "kineto-2021" : "kineto-current");
    run->file_bytes = (int64_t)t->stats.file_bytes;
    run->parsed_bytes = (int64_t)t->stats.bytes;
    run->start_us = t->t_min / 1000;
    /* the first event's wall-clock time: the clock's epoch (has_epoch) plus t_min, or a Kineto
     * trace's own ts when they are at epoch scale (as Kineto wrote before baseTimeNanoseconds);
     * a date outside 2000..2100 is none */
    int64_t wall = t->has_epoch ? t->epoch_ns + t->t_min : !strcmp(fmt, "kineto-json") ? t->t_min : 0;
    if (wall >= PC_EPOCH_MIN_NS && wall < PC_EPOCH_MAX_NS) {
        time_t sec = (time_t)(wall / 1000000000);
        struct tm tm;
        char iso[32];
        if (gmtime_r(&sec, &tm) && strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%SZ", &tm)) run->start_utc = pc_summary_str(ps, iso);
    }
    run->span_ns = t->t_max - t->t_min;
    run->truncated = (tk_B)(t->truncated != 0);
    if (t->truncated) run->truncated_at_byte = (int64_t)t->truncated_at;
    return run;
}

/* run.events: the events by kind as read, and the categories perfcard
 * does not read (run.unknown_categories) with their counts. */
static void ri_events(const pc_trace *t, pc_summary *ps, cJSON *ri) {
    tab_run_events *ev = PC_ADD_REC(ps, sj_obj(ri, "events"), run_events);
    ev->total = t->stats.events;
    ev->cpu_op = t->count_cpu[CPU_OP], ev->user_annotation = t->count_cpu[CPU_USER_ANNOT];
    ev->python_function = t->count_cpu[CPU_PYFUNC], ev->cuda_runtime = t->count_cpu[CPU_RUNTIME];
    ev->cuda_driver = t->count_cpu[CPU_DRIVER], ev->dataloader = t->count_cpu[CPU_DATALOADER];
    ev->kernel = t->count_gpu[GPU_KERNEL], ev->memcpy = t->count_gpu[GPU_MEMCPY], ev->memset = t->count_gpu[GPU_MEMSET];
    ev->gpu_annotation = t->count_gpu[GPU_ANNOT], ev->gpu_sync = t->count_gpu[GPU_SYNC];
    ev->memory = (int64_t)t->nmem;
    ev->counter_samples = (int64_t)t->nctr;
    ev->flows = t->stats.flows;
    ev->metadata = t->stats.metadata;
    ev->unknown = t->stats.unknown;
    ev->invalid = t->stats.bad_fields;
    pc_table *uc = pc_summary_add_table(ps, ri, "unknown_categories", TAB_unknown_category);
    for (int i = 0; i < t->nunknown_cat; i++) {
        tab_unknown_category *u = tab_push(uc);
        u->category = t->unknown_cat[i] ? pc_summary_utf8(ps, strtab_get(&t->strs, t->unknown_cat[i])) : "(none)";
        u->count = t->unknown_cat_n[i];
    }
}

/* run.devices (each with the peaks it is matched to, and how) and
 * run.distributed (null when the trace names no rank or world size). */
static void ri_devices(const pc_trace *t, pc_summary *ps, cJSON *ri) {
    pc_table *devs = pc_summary_add_table(ps, ri, "devices", TAB_run_device);
    for (size_t i = 0; i < t->ndev; i++) {
        const pc_device *d = &t->dev[i];
        tab_run_device *j = tab_push(devs);
        j->id = d->id;
        j->name = pc_summary_utf8(ps, strtab_get(&t->strs, d->name));
        j->sms = d->num_sms;
        j->memory_bytes = d->total_mem;
        char cc[16];
        snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
        j->compute_capability = pc_summary_str(ps, cc);
        if (d->arch) j->arch = pc_summary_utf8(ps, strtab_get(&t->strs, d->arch));
        j->clock_offset_ns = d->clock_offset_ns;
        char basis[400];
        const gpu_peak *pk = peak_of_device(t, d, basis, sizeof basis);
        if (pk) j->peak = pk->label;
        if (*basis) j->peak_basis = pc_summary_utf8(ps, basis);
    }
    if (t->rank != PC_NONE || t->world_size != PC_NONE) {
        tab_run_distributed *d = PC_ADD_REC(ps, sj_obj(ri, "distributed"), run_distributed);
        d->rank = t->rank == PC_NONE ? 0 : t->rank;
        d->world_size = t->world_size == PC_NONE ? 1 : t->world_size;
        d->backend = pc_summary_utf8(ps, t->backend ? strtab_get(&t->strs, t->backend) : "");
    } else cJSON_AddNullToObject(ri, "distributed");
}

/* A warning sentence appended to run.warnings (w). */
static void ri_warn(cJSON *w, const char *msg) { cJSON_AddItemToArray(w, cJSON_CreateString(msg)); }

/* The warnings about what the input lacks: truncated or damaged, a large
 * part of it of categories perfcard does not read (the first four named,
 * each cut to 48 bytes on a character's boundary). */
static void ri_warn_input(const pc_trace *t, cJSON *w) {
    if (t->truncated) {
        char msg[512];
        if (t->truncated_why[0]) /* damaged, not cut: the cause first */
            snprintf(msg, sizeof msg, "the trace is damaged (%s): the data before it ends at byte %llu of %llu%s; the report covers the events before it",
                     t->truncated_why, (unsigned long long)t->truncated_at, (unsigned long long)t->stats.bytes,
                     t->stats.file_bytes != t->stats.bytes ? " (decompressed)" : "");
        else
            snprintf(msg, sizeof msg,
                     "the trace is truncated: complete data ends at byte %llu of %llu%s; the report covers the events before it",
                     (unsigned long long)t->truncated_at, (unsigned long long)t->stats.bytes,
                     t->stats.file_bytes != t->stats.bytes ? " (decompressed)" : "");
        ri_warn(w, msg);
    }
    if (t->stats.unknown > 0 && t->stats.unknown * 20 >= (int64_t)(t->stats.unknown + t->ncpu + t->ngpu) && t->nunknown_cat > 0) {
        /* a large part of the trace is of kinds perfcard does not read (another accelerator's events) */
        char msg[400], list[240] = "";
        size_t n = 0;
        for (int i = 0; i < t->nunknown_cat && i < 4 && n < sizeof list - 80; i++) {
            const char *cat = t->unknown_cat[i] ? strtab_get(&t->strs, t->unknown_cat[i]) : "(none)";
            size_t len = strlen(cat);
            int keep = (int)utf8_valid_prefix(cat, len < 48 ? len : 48); /* never half a character */
            n += (size_t)snprintf(list + n, sizeof list - n, "%s%.*s%s %lld", i ? ", " : "", keep, cat, (size_t)keep < len ? "..." : "",
                                  (long long)t->unknown_cat_n[i]);
            assert(n < sizeof list); /* 80 bytes left before each, an entry takes at most 2 + 48 + 3 + 1 + 20 */
        }
        snprintf(msg, sizeof msg, "%lld events (%.0f%%) are of categories perfcard does not read (%s): the report does not cover them",
                 (long long)t->stats.unknown, 100.0 * (double)t->stats.unknown / (double)(t->stats.unknown + t->ncpu + t->ngpu), list);
        ri_warn(w, msg);
    }
}

/* The warnings about how the input was recorded: CUPTI's range profiler
 * (its replays in every time), device times moved onto the host's clock, a
 * capture killed, records CUPTI dropped or left unfinished. */
static void ri_warn_recording(const pc_trace *t, cJSON *w) {
    /* CUPTI's range profiler (performance counters) replays every kernel: its timings are not the program's */
    int64_t ranges = pc_trace_unknown_count(t, "cuda_profiler_range");
    if (ranges > 0) {
        char msg[400];
        snprintf(msg, sizeof msg,
                 "this trace was taken with CUPTI's range profiler (%lld cuda_profiler_range events: performance counters), which "
                 "replays kernels: API and operator times include the replays%s; profile again with activities only to time the run",
                 (long long)ranges, t->count_gpu[GPU_KERNEL] ? "" : " and there are no kernel records");
        ri_warn(w, msg);
    }
    /* device timestamps moved onto the host's clock (model/clock.h): said once, with the offset */
    if (t->clock_aligned) ri_warn(w, strtab_get(&t->strs, t->clock_aligned));
    if (t->capture_killed)
        ri_warn(w, "the captured process did not exit normally: what it recorded after its last flush (at most one --flush-ms interval) is missing");
    if (t->capture_dropped > 0) {
        char msg[200];
        snprintf(msg, sizeof msg, "CUPTI dropped %lld activity records for lack of buffer space: device times and counts undercount",
                 (long long)t->capture_dropped);
        ri_warn(w, msg);
    }
    if (t->capture_incomplete > 0) {
        char msg[200];
        snprintf(msg, sizeof msg, "%lld activity records were not finished when the capture ended and are left out",
                 (long long)t->capture_incomplete);
        ri_warn(w, msg);
    }
}

/* The warnings about what analysis placed otherwise than the trace has it
 * (step ranges nested or overlapping, host ranges reattached: pc_summary's
 * reshaped counts them). */
static void ri_warn_reshaped(const an_ctx *c, cJSON *w) {
    if (c->steps_nested || c->steps_overlap) {
        char msg[400];
        snprintf(msg, sizeof msg,
                 "%zu step ranges lie inside another step range of another name and are left out (the outer range is one step); "
                 "%zu step ranges start before the step before them ends and are counted from its end",
                 c->steps_nested, c->steps_overlap);
        ri_warn(w, msg);
    }
    if (c->links.reattached) {
        char msg[400];
        snprintf(msg, sizeof msg,
                 "%zu host ranges nest deeper than %d levels, or under %d ranges of their own start and end on one thread; each "
                 "is placed beside the range that holds it, not inside (call stacks and operator nesting there are cut)",
                 c->links.reattached, (int)LINKS_DEPTH_MAX, (int)LINKS_SAME_MAX);
        ri_warn(w, msg);
    }
}

/* The warnings about what the reader skipped: input files, device
 * descriptions past PC_MAX_DEVICES, invalid events or rows, names not
 * valid UTF-8. */
static void ri_warn_skipped(const pc_trace *t, cJSON *w) {
    if (t->stats.files_skipped) {
        char msg[260];
        snprintf(msg, sizeof msg, "%lld input files could not be read or parsed and were skipped (the first: %s)",
                 (long long)t->stats.files_skipped, t->stats.first_skipped);
        ri_warn(w, msg);
    }
    if (t->stats.devices_dropped) {
        char msg[200];
        snprintf(msg, sizeof msg, "more than %d devices described; %lld further descriptions were not read",
                 PC_MAX_DEVICES, (long long)t->stats.devices_dropped);
        ri_warn(w, msg);
    }
    if (t->stats.bad_fields) {
        char msg[240];
        snprintf(msg, sizeof msg,
                 "%lld events or rows were skipped as invalid (a time missing, negative or beyond 2^62 ns, a field of the "
                 "wrong type or beyond its range, or a row shorter than its header): the report covers the rest", (long long)t->stats.bad_fields);
        ri_warn(w, msg);
    }
    if (t->strs.utf8_repaired) {
        char msg[200];
        snprintf(msg, sizeof msg, "%zu names in the input were not valid UTF-8; their invalid bytes are shown as U+FFFD",
                 t->strs.utf8_repaired);
        ri_warn(w, msg);
    }
}

/* The run section: the record's head, the events, the devices, then the
 * warnings every report shows first, in this order (pc_analyze adds the
 * figures it leaves empty at the end). */
void an_runinfo(const an_ctx *c, pc_summary *ps) {
    cJSON *ri = sj_obj(ps->doc, "run");
    ri_head(c, ps, ri);
    ri_events(c->t, ps, ri);
    ri_devices(c->t, ps, ri);
    cJSON *w = sj_arr(ri, "warnings");
    ri_warn_input(c->t, w);
    ri_warn_recording(c->t, w);
    ri_warn_reshaped(c, w);
    ri_warn_skipped(c->t, w);
}
