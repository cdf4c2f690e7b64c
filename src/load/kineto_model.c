/* kineto_model.c - a parsed event classified (2021 and current dialects) and
 * committed to the model; small top-level values through cJSON. */
#include "kineto_int.h"
#include <cjson/cJSON.h>

/* ---------- committing events to the model ---------- */

enum { C_UNKNOWN, C_KERNEL, C_MEMCPY, C_MEMSET, C_GPU_ANNOT, C_GPU_SYNC, C_CPU_OP, C_USER_ANNOT,
       C_PYFUNC, C_RUNTIME, C_DRIVER, C_DATALOADER, C_MEMORY, C_META, C_FLOW };

static int classify(jstr cat, int *is2021) {
    *is2021 = 0;
    switch (cat.n) {
    case 5:
        if (J_EQ(cat, "Trace")) return C_META;
        if (J_EQ(cat, "async")) return C_FLOW;
        break;
    case 4: if (J_EQ(cat, "ac2g")) return C_FLOW; break;
    case 6:
        if (J_EQ(cat, "kernel")) return C_KERNEL;
        if (J_EQ(cat, "Kernel")) return *is2021 = 1, C_KERNEL;
        if (J_EQ(cat, "cpu_op")) return C_CPU_OP;
        if (J_EQ(cat, "Memcpy")) return *is2021 = 1, C_MEMCPY;
        if (J_EQ(cat, "Memset")) return *is2021 = 1, C_MEMSET;
        break;
    case 7:
        if (J_EQ(cat, "Runtime")) return *is2021 = 1, C_RUNTIME;
        if (J_EQ(cat, "fwdbwd")) return C_FLOW;
        break;
    case 8:
        if (J_EQ(cat, "Operator")) return *is2021 = 1, C_CPU_OP;
        break;
    case 9: if (J_EQ(cat, "cuda_sync")) return C_GPU_SYNC; break;
    case 10:
        if (J_EQ(cat, "gpu_memcpy")) return C_MEMCPY;
        if (J_EQ(cat, "gpu_memset")) return C_MEMSET;
        if (J_EQ(cat, "DataLoader")) return *is2021 = 1, C_DATALOADER;
        break;
    case 11: if (J_EQ(cat, "cuda_driver")) return C_DRIVER; break;
    case 12: if (J_EQ(cat, "cuda_runtime")) return C_RUNTIME; break;
    case 15:
        if (J_EQ(cat, "user_annotation")) return C_USER_ANNOT;
        if (J_EQ(cat, "python_function")) return C_PYFUNC;
        break;
    case 17: if (J_EQ(cat, "cpu_instant_event")) return C_MEMORY; break;
    case 19: if (J_EQ(cat, "gpu_user_annotation")) return C_GPU_ANNOT; break;
    }
    return C_UNKNOWN;
}

/* "Memcpy HtoD (Pageable -> Device)" */
static void copy_kind(pc_gpu_event *g, jstr name) {
    const char *s = name.s;
    size_t n = name.n;
    if (!n) return;
    const char *k = memmem(s, n, "to", 2);
    if (k && k >= s + 1 && k + 3 <= s + n) g->copy_kind = (uint8_t)pc_kind_find(pc_copy_name, COPY_N, k - 1, 4);
    const char *lp = memchr(s, '(', n);
    if (lp) {
        size_t rest = n - (size_t)(lp + 1 - s);
        g->src_mem = (uint8_t)pc_kind_find(pc_mem_name, MEM_N, lp + 1, rest);
        const char *arrow = memmem(lp, rest, "-> ", 3);
        if (arrow) g->dst_mem = (uint8_t)pc_kind_find(pc_mem_name, MEM_N, arrow + 3, n - (size_t)(arrow + 3 - s));
    }
}

static int is_annotation_name(jstr n) {
    static const char *const pfx[] = {"ProfilerStep#", "enumerate(DataLoader)", "Optimizer.step#", "Optimizer.zero_grad#", NULL};
    for (int i = 0; pfx[i]; i++) {
        size_t l = strlen(pfx[i]);
        if (n.n >= l && !memcmp(n.s, pfx[i], l)) return 1;
    }
    return 0;
}

static int64_t named_id(pc_trace *t, jstr s) {
    /* non-numeric pid/tid: a stable negative id from the string table */
    return -(int64_t)strtab_intern(&t->strs, s.s, s.n);
}
/* "Input type", and after a newline "Input Strides" when some input is
 * expanded (a stride of 0: the same elements read again, as .expand() makes),
 * interned as one text (trace.h); 0 when neither. */
static uint32_t types_and_strides(pc_trace *t, const jstr *types, const jstr *strides) {
    int zero = 0;
    for (size_t i = 0; i + 1 < strides->n && !zero; i++)
        zero = strides->s[i + 1] == '0' && (strides->s[i] == '[' || strides->s[i] == ',') && i + 2 < strides->n &&
               (strides->s[i + 2] == ',' || strides->s[i + 2] == ']');
    if (!zero) return types->n ? strtab_intern(&t->strs, types->s, types->n) : 0;
    size_t n = types->n + 1 + strides->n;
    char *buf = xmalloc(n);
    memcpy(buf, types->s, types->n);
    buf[types->n] = '\n';
    memcpy(buf + types->n + 1, strides->s, strides->n);
    uint32_t id = strtab_intern(&t->strs, buf, n);
    free(buf);
    return id;
}
/* "Call stack" (a JSON string, frames innermost first, ';'-separated) as
 * PC_STACK_MARK and the frames, unescaped (trace.h: kept in `concrete`) */
static uint32_t call_stack(pc_trace *t, const jstr *s) {
    char *buf = xmalloc(s->n + 1);
    size_t n = 0;
    buf[n++] = PC_STACK_MARK;
    for (size_t i = 1; i + 1 < s->n; i++) {
        char ch = s->s[i];
        if (ch == '\\' && i + 2 < s->n) {
            ch = s->s[++i];
            if (ch == 'n' || ch == 't' || ch == 'r') ch = ' ';
            else if (ch == 'u') { ch = '?'; i += 4 < s->n - i - 1 ? 4 : 0; }
        }
        buf[n++] = ch;
    }
    uint32_t id = strtab_intern(&t->strs, buf, n);
    free(buf);
    return id;
}


void kin_commit(reader *rd, evtmp *e) {
    pc_trace *t = rd->t;
    t->stats.events++;
    if (e->bad) { t->stats.bad_fields++; return; } /* one bad field costs its event, not the trace */
    char ph = e->ph;
    if (ph == 'M') { t->stats.metadata++; return; }
    if (ph == 's' || ph == 'f' || ph == 't') { t->stats.flows++; return; }
    /* times and sizes are checked once, here (PC_TIME_LIMIT) */
    const int64_t lim = PC_TIME_LIMIT;
    if ((e->has_ts && (e->ts <= -lim || e->ts >= lim)) || (e->has_dur && e->dur >= lim)) { t->stats.bad_fields++; return; }
    /* sizes likewise: bytes of a copy within [0, 2^62), a memory event's change within +-2^62 */
    if ((e->bytes != PC_NONE && (e->bytes < 0 || e->bytes >= lim)) || e->mem_bytes <= -lim || e->mem_bytes >= lim) {
        t->stats.bad_fields++;
        return;
    }
    if (e->has_dur && e->dur >= 0 && !pc_trace_take_dur(t, e->dur)) return;
    if (e->total_alloc < PC_NONE || e->total_alloc >= lim) e->total_alloc = PC_NONE;
    if (e->total_res < PC_NONE || e->total_res >= lim) e->total_res = PC_NONE;
    if (ph == 'C') {
        if (!e->has_ts) { t->stats.bad_fields++; return; }
        uint32_t name = strtab_intern(&t->strs, e->name.s, e->name.n);
        for (int i = 0; i < e->nctr; i++) {
            pc_counter *k = pc_trace_add_counter(t);
            k->ts = e->ts;
            k->value = e->ctr_val[i];
            k->name = name;
            k->series = strtab_intern(&t->strs, e->ctr_key[i].s, e->ctr_key[i].n);
            k->pid = e->pid;
        }
        return;
    }
    int is2021;
    int cls = classify(e->cat, &is2021);
    if (ph == 'i' || ph == 'I') {
        if (J_EQ(e->name, "[memory]") && e->has_ts) {
            pc_mem_event *m = pc_trace_add_mem(t);
            m->ts = e->ts;
            m->bytes = e->mem_bytes == PC_NONE ? 0 : e->mem_bytes;
            m->total_allocated = e->total_alloc;
            m->addr = e->mem_addr;
            m->total_reserved = e->total_res;
            m->tid = e->tid;
            m->device_type = (int32_t)(e->dev_type == PC_NONE ? 0 : e->dev_type);
            m->device_id = (int32_t)e->dev_id;
            return;
        }
        t->stats.metadata++;
        return;
    }
    if (ph == 0 || (ph != 'X')) {
        if (cls == C_FLOW) t->stats.flows++;
        else if (cls == C_META) t->stats.metadata++;
        else pc_trace_note_unknown(t, strtab_intern(&t->strs, e->cat.s, e->cat.n));
        return;
    }
    if (cls == C_META) {
        /* "PyTorch Profiler (0)": the window the profiler recorded */
        if (e->has_ts && e->has_dur && e->dur > 0) {
            if (!t->prof_end || e->ts < t->prof_start) t->prof_start = e->ts;
            if (e->ts + e->dur > t->prof_end) t->prof_end = e->ts + e->dur;
        }
        t->stats.metadata++;
        return;
    }
    if (cls == C_FLOW) { t->stats.flows++; return; }
    if (cls == C_UNKNOWN || cls == C_MEMORY) {
        pc_trace_note_unknown(t, strtab_intern(&t->strs, e->cat.s, e->cat.n));
        return;
    }
    if (!e->has_ts || (e->has_dur && e->dur < 0)) { t->stats.bad_fields++; return; }
    if (is2021) t->schema_2021 = 1;
    uint32_t name = strtab_intern(&t->strs, e->name.s, e->name.n);
    if (cls <= C_GPU_SYNC) {
        pc_gpu_event *g = pc_trace_add_gpu(t);
        g->ts = e->ts;
        g->dur = e->has_dur ? e->dur : 0;
        g->name = name;
        g->kind = cls == C_KERNEL ? GPU_KERNEL : cls == C_MEMCPY ? GPU_MEMCPY : cls == C_MEMSET ? GPU_MEMSET
                  : cls == C_GPU_ANNOT ? GPU_ANNOT : GPU_SYNC;
        g->corr = e->corr;
        g->ext_id = e->ext_id;
        g->bytes = e->bytes;
        g->device = (int32_t)(e->device != PC_NONE ? e->device : e->pid_named ? PC_NONE : e->pid);
        g->stream = (int32_t)(e->stream != PC_NONE ? e->stream : e->tid_named ? PC_NONE : e->tid);
        memcpy(g->grid, e->grid, sizeof g->grid);
        for (int q = 0; q < 3; q++) g->block[q] = e->block[q] > 65535 ? 65535 : (uint16_t)e->block[q];
        g->regs = e->regs >= 0 && e->regs < 32767 ? (int16_t)e->regs : PC_NONE;
        g->smem = (int32_t)e->smem;
        g->blocks_per_sm = (float)e->bps;
        g->occupancy = (float)e->occ;
        if (g->kind == GPU_MEMCPY || g->kind == GPU_MEMSET) copy_kind(g, e->name);
        return;
    }
    pc_cpu_event *c = pc_trace_add_cpu(t);
    c->ts = e->ts;
    c->dur = e->has_dur ? e->dur : 0;
    c->name = name;
    c->pid = e->pid_named ? PC_NONE : (int32_t)e->pid;
    c->tid = e->tid_named ? (int32_t)named_id(t, e->tid_s) : (int32_t)e->tid;
    c->ext_id = e->ext_id;
    c->corr = e->corr;
    c->seq = e->seq >= INT32_MIN && e->seq <= INT32_MAX ? (int32_t)e->seq : PC_NONE;
    c->fwd_tid = e->fwd_tid >= INT16_MIN && e->fwd_tid <= INT16_MAX ? (int16_t)e->fwd_tid : PC_NONE;
    if (e->dims.n) c->input_dims = strtab_intern(&t->strs, e->dims.s, e->dims.n);
    c->input_types = types_and_strides(t, &e->types, &e->strides);
    if (e->concrete.n) c->concrete = strtab_intern(&t->strs, e->concrete.s, e->concrete.n);
    else if (e->stack.n > 2 && e->stack.s[0] == '"') c->concrete = call_stack(t, &e->stack);
    /* the 2021 schema files record_function ranges as Operators too */
    if (cls == C_CPU_OP && is2021 && is_annotation_name(e->name)) cls = C_USER_ANNOT;
    c->kind = cls == C_CPU_OP ? CPU_OP : cls == C_USER_ANNOT ? CPU_USER_ANNOT : cls == C_PYFUNC ? CPU_PYFUNC
              : cls == C_RUNTIME ? CPU_RUNTIME : cls == C_DRIVER ? CPU_DRIVER : CPU_DATALOADER;
}

/* ---------- top-level values through cJSON ---------- */

/* an int from the trace: dflt when missing, not finite or outside [lo, INT_MAX] */
static int jint_in(const cJSON *o, const char *k, int dflt, double lo) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= lo && v->valuedouble <= 2147483647.0)) return dflt;
    return (int)v->valuedouble;
}
static int jint(const cJSON *o, const char *k, int dflt) { return jint_in(o, k, dflt, -2147483648.0); }
/* a count or size: never negative */
static int jcount(const cJSON *o, const char *k, int dflt) { return jint_in(o, k, dflt, 0); }

static void read_devices(pc_trace *t, const cJSON *arr) {
    const cJSON *d;
    cJSON_ArrayForEach(d, arr) {
        int id = jint(d, "id", (int)t->ndev);
        if (!cJSON_IsObject(d) || id < 0) { t->stats.bad_fields++; continue; } /* device ids are never negative */
        pc_device *dev = pc_trace_device(t, id);
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(d, "name");
        if (cJSON_IsString(name)) dev->name = strtab_intern(&t->strs, name->valuestring, strlen(name->valuestring));
        /* the ISA target (hipDeviceProp_t.gcnArchName, "gfx942:sramecc+:xnack-"), where a ROCm trace writes it */
        const cJSON *arch = cJSON_GetObjectItemCaseSensitive(d, "gcnArchName");
        if (cJSON_IsString(arch) && *arch->valuestring) dev->arch = strtab_intern(&t->strs, arch->valuestring, strlen(arch->valuestring));
        const cJSON *mem = cJSON_GetObjectItemCaseSensitive(d, "totalGlobalMem");
        if (cJSON_IsNumber(mem) && mem->valuedouble >= 0 && mem->valuedouble < PC_TIME_LIMIT_D) dev->total_mem = (int64_t)mem->valuedouble;
        /* deviceProperties, and the older computeProperties spellings; counts are never negative */
        dev->cc_major = jcount(d, "computeMajor", jcount(d, "major", 0));
        dev->cc_minor = jcount(d, "computeMinor", jcount(d, "minor", 0));
        dev->num_sms = jcount(d, "numSms", jcount(d, "multiProcessorCount", 0));
        dev->max_threads_per_sm = jcount(d, "maxThreadsPerMultiprocessor", jcount(d, "maxThreadsPerMultiProcessor", 0));
        dev->max_threads_per_block = jcount(d, "maxThreadsPerBlock", 0);
        dev->regs_per_sm = jcount(d, "regsPerMultiprocessor", 0);
        dev->regs_per_block = jcount(d, "regsPerBlock", 0);
        dev->smem_per_sm = jcount(d, "sharedMemPerMultiprocessor", 0);
        dev->smem_per_block = jcount(d, "sharedMemPerBlock", 0);
        dev->warp_size = jcount(d, "warpSize", 32);
        if (dev->warp_size <= 0) dev->warp_size = 32;
    }
}

void kin_read_top_value(pc_trace *t, jstr key, const char *v, size_t n) {
    int devs = J_EQ(key, "deviceProperties") || J_EQ(key, "computeProperties");
    int dist = J_EQ(key, "distributedInfo"), cap = J_EQ(key, "perfcard_capture");
    if (J_EQ(key, "baseTimeNanoseconds")) {
        /* the epoch ns of ts 0 (recent Kineto, perfcard capture): digits only, read exactly (no double) */
        int64_t b = 0;
        size_t i = 0;
        while (i < n && v[i] >= '0' && v[i] <= '9' && b <= PC_EPOCH_MAX_NS) b = b * 10 + (v[i++] - '0');
        if (i == n && n > 0 && b >= PC_EPOCH_MIN_NS && b < PC_EPOCH_MAX_NS) t->epoch_ns = b, t->has_epoch = 1;
        return;
    }
    if (!devs && !dist && !cap) return;
    cJSON *j = cJSON_ParseWithLength(v, n);
    if (!j) return;
    if (devs && cJSON_IsArray(j)) read_devices(t, j);
    if (dist && cJSON_IsObject(j)) {
        /* a rank is >= 0, a world at least 1: anything else leaves them unknown */
        int rank = jcount(j, "rank", PC_NONE), world = jcount(j, "world_size", PC_NONE);
        if (rank >= 0) t->rank = rank;
        if (world >= 1) t->world_size = world;
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(j, "backend");
        if (cJSON_IsString(x)) t->backend = strtab_intern(&t->strs, x->valuestring, strlen(x->valuestring));
    }
    if (cap && cJSON_IsObject(j)) {
        /* perfcard capture's own counts: what the trace is missing */
        t->capture_dropped = jcount(j, "dropped_records", 0);
        t->capture_incomplete = jcount(j, "incomplete_records", 0);
        t->capture_killed = cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(j, "complete"));
    }
    cJSON_Delete(j);
}
