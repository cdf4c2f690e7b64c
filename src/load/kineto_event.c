/* kineto_event.c - one traceEvents element's fields, parsed in place. */
#include "kineto_int.h"

/* ---------- event fields ---------- */

/* After a field's value was read from start with result r: a J_ERR on a
 * value that is whole JSON but not what the field holds (a number beyond
 * int64 or the field's range, INT64_MIN, "dur": {}, "ts": true) skips the
 * value and marks the event bad (kin_commit counts and drops it), so one bad
 * field costs one event; a value that is not JSON at all stays J_ERR (the
 * trace is damaged there), naming where the JSON breaks: the later of the
 * two readings' places ("-x": the number's, at x; "{1}": the value's, at 1). */
static int field_or_bad(jcur *c, const char *start, int r, evtmp *e) {
    if (r != J_ERR) return r;
    const char *at = c->p, *why = c->why;
    c->p = start;
    int s = j_skip(c, 1);
    if (s == J_OK) e->bad = 1;
    if (s == J_ERR && at > c->p) c->p = at, c->why = why;
    return s;
}

static int parse_dims3(jcur *c, uint32_t out[3], evtmp *e) {
    int r;
    if ((r = j_ws(c))) return r;
    if (*c->p != '[') return j_skip(c, 0);
    c->p++;
    for (int i = 0;; i++) {
        if ((r = j_ws(c))) return r;
        if (*c->p == ']') { c->p++; return J_OK; }
        if (i > 0) {
            if (*c->p != ',') { c->why = "expected ',' or ']'"; return J_ERR; }
            c->p++;
            if ((r = j_ws(c))) return r;
        }
        int64_t v;
        if (*c->p == '"' || *c->p == '[' || *c->p == '{') { if ((r = j_skip(c, 1))) return r; continue; }
        const char *at = c->p;
        if ((r = field_or_bad(c, at, j_int(c, &v), e))) return r;
        if (e->bad) continue;
        if (i < 3) out[i] = v < 0 ? 0 : v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
    }
}

/* A raw JSON value as compact text (whitespace outside strings removed),
 * written to the scratch area. */
static int capture_compact(jcur *c, jstr *out) {
    int r = j_ws(c);
    if (r) return r;
    const char *start = c->p;
    if ((r = j_skip(c, 1))) return r;
    char *d0 = c->scratch + c->scratch_used, *d = d0;
    int in_str = 0;
    for (const char *p = start; p < c->p; p++) {
        char ch = *p;
        if (in_str) {
            *d++ = ch;
            if (ch == '\\' && p + 1 < c->p) *d++ = *++p;
            else if (ch == '"') in_str = 0;
        } else if (ch == '"') { in_str = 1; *d++ = ch; }
        else if (ch != ' ' && ch != '\n' && ch != '\r' && ch != '\t') *d++ = ch;
    }
    out->s = d0;
    out->n = (size_t)(d - d0);
    c->scratch_used += out->n;
    return J_OK;
}

/* a number into *at (a double when dbl, else an int64_t); anything else
 * skipped; a number beyond int64 marks e bad (field_or_bad) */
static int number_or_skip(jcur *c, void *at, int dbl, evtmp *e) {
    int r = j_ws(c);
    if (r) return r;
    char ch = *c->p;
    if (ch != '-' && (ch < '0' || ch > '9')) return j_skip(c, 1);
    const char *start = c->p;
    return field_or_bad(c, start, dbl ? j_double(c, (double *)at) : j_int(c, (int64_t *)at), e);
}

/* The arguments perfcard reads (Kineto's names, both spellings where
 * versions differ), each once: its length, how it is read and where it goes. */
enum { A_INT, A_DBL, A_COMPACT, A_DIMS3 };
typedef struct argkey { const char *key; unsigned char len, kind; unsigned short off; } argkey;
#define AK(k, kind, member) {k, sizeof(k) - 1, kind, offsetof(evtmp, member)}
static const argkey args_read[] = {
    AK("grid", A_DIMS3, grid),                 AK("block", A_DIMS3, block),
    AK("device", A_INT, device),               AK("stream", A_INT, stream),
    AK("correlation", A_INT, corr),            AK("External id", A_INT, ext_id),
    AK("external id", A_INT, ext_id),          AK("registers per thread", A_INT, regs),
    AK("shared memory", A_INT, smem),          AK("bytes", A_INT, bytes),
    AK("Sequence number", A_INT, seq),         AK("Fwd thread id", A_INT, fwd_tid),
    AK("Device Type", A_INT, dev_type),        AK("Device Id", A_INT, dev_id),
    AK("Bytes", A_INT, mem_bytes),             AK("Addr", A_INT, mem_addr),
    AK("Total Allocated", A_INT, total_alloc), AK("Total Reserved", A_INT, total_res),
    AK("blocks per SM", A_DBL, bps),           AK("warps per SM", A_DBL, wps),
    AK("est. achieved occupancy %", A_DBL, occ),
    AK("Input Dims", A_COMPACT, dims),         AK("Input type", A_COMPACT, types),
    AK("Concrete Inputs", A_COMPACT, concrete), AK("Input Strides", A_COMPACT, strides),
    AK("Call stack", A_COMPACT, stack),
};

enum { NARGS = sizeof args_read / sizeof *args_read, ARG_MAX_LEN = 32 };
/* args_read's entries by length: those of length n are by_len[first[n] .. first[n + 1]) */
static unsigned char by_len[NARGS], first[ARG_MAX_LEN + 2];
__attribute__((constructor)) static void index_args(void) {
    size_t n = 0;
    for (int len = 0; len <= ARG_MAX_LEN; len++) {
        first[len] = (unsigned char)n;
        for (size_t i = 0; i < NARGS; i++)
            if (args_read[i].len == len) by_len[n++] = (unsigned char)i;
    }
    first[ARG_MAX_LEN + 1] = (unsigned char)n;
}

/* the value of argument k into e when perfcard reads it, else skipped */
static int read_arg(jcur *c, evtmp *e, jstr k) {
    for (size_t i = k.n <= ARG_MAX_LEN ? first[k.n] : 0, end = k.n <= ARG_MAX_LEN ? first[k.n + 1] : 0; i < end; i++) {
        const argkey *a = &args_read[by_len[i]];
        if (a->key[0] != k.s[0] || memcmp(a->key, k.s, k.n)) continue;
        char *at = (char *)e + a->off;
        switch (a->kind) {
        case A_INT: case A_DBL: return number_or_skip(c, at, a->kind == A_DBL, e);
        case A_COMPACT: return capture_compact(c, (jstr *)(void *)at);
        default: return parse_dims3(c, (uint32_t *)(void *)at, e);
        }
    }
    return j_skip(c, 1);
}

static int parse_args(jcur *c, evtmp *e) {
    int r;
    if ((r = j_ws(c))) return r;
    if (*c->p != '{') return j_skip(c, 1);
    c->p++;
    if ((r = j_ws(c))) return r;
    if (*c->p == '}') { c->p++; return J_OK; }
    for (;;) {
        jstr k;
        if ((r = j_ws(c))) return r;
        if (*c->p != '"') { c->why = "expected a string key"; return J_ERR; }
        if ((r = j_string(c, &k))) return r;
        if ((r = j_expect(c, ':'))) return r;
        if (e->ph == 'C') {
            double v = 0;
            if ((r = j_ws(c))) return r;
            char ch = *c->p;
            if ((ch == '-' || (ch >= '0' && ch <= '9')) && e->nctr < MAX_CTR) {
                if ((r = j_double(c, &v))) return r;
                e->ctr_key[e->nctr] = k;
                e->ctr_val[e->nctr++] = v;
            } else if ((r = j_skip(c, 1))) return r;
        } else r = read_arg(c, e, k);
        if (r) return r;
        if ((r = j_after(c, '}', "expected ',' or '}'")) != J_NEXT) return r;
    }
}

int kin_parse_event(jcur *c, evtmp *e) {
    int r;
    /* field by field: the counter arrays are large and only nctr matters */
    e->ph = 0;
    e->cat = e->name = e->tid_s = e->dims = e->types = e->concrete = e->strides = e->stack = (jstr){0};
    e->has_ts = e->has_dur = 0;
    e->ts = e->dur = e->pid = e->tid = 0;
    e->pid_named = e->tid_named = 0;
    memset(e->grid, 0, sizeof e->grid);
    memset(e->block, 0, sizeof e->block);
    e->nctr = 0;
    e->device = e->stream = e->corr = e->ext_id = e->regs = e->smem = e->bytes = e->seq = e->fwd_tid = PC_NONE;
    e->dev_type = e->dev_id = e->mem_bytes = e->mem_addr = e->total_alloc = e->total_res = PC_NONE;
    e->bps = e->wps = e->occ = -1;
    e->bad = 0;
    if ((r = j_ws(c))) return r;
    if (*c->p != '{') {
        e->ph = 0; /* not an object: skipped and counted as unknown */
        return j_skip(c, 0);
    }
    c->p++;
    if ((r = j_ws(c))) return r;
    if (*c->p == '}') { c->p++; return J_OK; }
    for (;;) {
        jstr k, s;
        int named;
        if ((r = j_ws(c))) return r;
        if (*c->p != '"') { c->why = "expected a string key"; return J_ERR; }
        if ((r = j_string(c, &k))) return r;
        if ((r = j_expect(c, ':'))) return r;
        if ((r = j_ws(c))) return r;
        if (k.n == 2 && k.s[0] == 'p' && k.s[1] == 'h') {
            if (*c->p != '"') r = j_skip(c, 1);
            else if ((r = j_string(c, &s)) == J_OK) e->ph = s.n ? s.s[0] : '?';
        } else if (k.n == 2 && k.s[0] == 't' && k.s[1] == 's') {
            const char *at = c->p;
            if (*c->p == '"' || *c->p == 'n') r = j_skip(c, 1); /* "ts": null, "ts": "12": no time */
            else if ((r = field_or_bad(c, at, j_fixed3(c, &e->ts), e)) == J_OK && !e->bad) e->has_ts = 1;
        } else if (J_EQ(k, "dur")) {
            const char *at = c->p;
            if (*c->p == '"' || *c->p == 'n') r = j_skip(c, 1);
            else if ((r = field_or_bad(c, at, j_fixed3(c, &e->dur), e)) == J_OK && !e->bad) e->has_dur = 1;
        } else if (J_EQ(k, "cat")) {
            r = *c->p == '"' ? j_string(c, &e->cat) : j_skip(c, 1);
        } else if (J_EQ(k, "name")) {
            r = *c->p == '"' ? j_string(c, &e->name) : j_skip(c, 1);
        } else if (J_EQ(k, "pid")) {
            if (*c->p == '"' || *c->p == '-' || (*c->p >= '0' && *c->p <= '9')) {
                const char *at = c->p;
                r = field_or_bad(c, at, j_id(c, &e->pid, &s, &named), e);
                e->pid_named = named;
            } else r = j_skip(c, 1);
        } else if (J_EQ(k, "tid")) {
            if (*c->p == '"' || *c->p == '-' || (*c->p >= '0' && *c->p <= '9')) {
                const char *at = c->p;
                r = field_or_bad(c, at, j_id(c, &e->tid, &e->tid_s, &named), e);
                e->tid_named = named;
            } else r = j_skip(c, 1);
        } else if (J_EQ(k, "args")) {
            r = parse_args(c, e);
        } else {
            r = j_skip(c, 1);
        }
        if (r) return r;
        if ((r = j_after(c, '}', "expected ',' or '}' in an event")) != J_NEXT) return r;
    }
}
