/* kineto_event.c - one traceEvents element's fields, parsed in place. */
#include "kineto_int.h"

/* ---------- event fields ---------- */

static int parse_dims3(jcur *c, uint32_t out[3]) {
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
        if ((r = j_int(c, &v))) return r;
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

static int num_or_skip(jcur *c, int64_t *v) {
    int r = j_ws(c);
    if (r) return r;
    char ch = *c->p;
    if (ch == '-' || (ch >= '0' && ch <= '9')) return j_int(c, v);
    return j_skip(c, 1);
}

static int dbl_or_skip(jcur *c, double *v) {
    int r = j_ws(c);
    if (r) return r;
    char ch = *c->p;
    if (ch == '-' || (ch >= '0' && ch <= '9')) return j_double(c, v);
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
        } else switch (k.n) {
        case 4:
            if (J_EQ(k, "grid")) r = parse_dims3(c, e->grid);
            else if (J_EQ(k, "Addr")) r = num_or_skip(c, &e->mem_addr);
            else r = j_skip(c, 1);
            break;
        case 5:
            if (J_EQ(k, "block")) r = parse_dims3(c, e->block);
            else if (J_EQ(k, "bytes") || J_EQ(k, "Bytes")) r = num_or_skip(c, k.s[0] == 'B' ? &e->mem_bytes : &e->bytes);
            else r = j_skip(c, 1);
            break;
        case 6:
            if (J_EQ(k, "device")) r = num_or_skip(c, &e->device);
            else if (J_EQ(k, "stream")) r = num_or_skip(c, &e->stream);
            else r = j_skip(c, 1);
            break;
        case 9:
            if (J_EQ(k, "Device Id")) r = num_or_skip(c, &e->dev_id);
            else r = j_skip(c, 1);
            break;
        case 10:
            if (J_EQ(k, "Input Dims")) r = capture_compact(c, &e->dims);
            else if (J_EQ(k, "Input type")) r = capture_compact(c, &e->types);
            else if (J_EQ(k, "Call stack")) r = capture_compact(c, &e->stack);
            else r = j_skip(c, 1);
            break;
        case 11:
            if (J_EQ(k, "correlation")) r = num_or_skip(c, &e->corr);
            else if (J_EQ(k, "External id") || J_EQ(k, "external id")) r = num_or_skip(c, &e->ext_id);
            else if (J_EQ(k, "Device Type")) r = num_or_skip(c, &e->dev_type);
            else r = j_skip(c, 1);
            break;
        case 12:
            if (J_EQ(k, "warps per SM")) r = dbl_or_skip(c, &e->wps);
            else r = j_skip(c, 1);
            break;
        case 13:
            if (J_EQ(k, "shared memory")) r = num_or_skip(c, &e->smem);
            else if (J_EQ(k, "Input Strides")) r = capture_compact(c, &e->strides);
            else if (J_EQ(k, "blocks per SM")) r = dbl_or_skip(c, &e->bps);
            else if (J_EQ(k, "Fwd thread id")) r = num_or_skip(c, &e->fwd_tid);
            else r = j_skip(c, 1);
            break;
        case 14:
            if (J_EQ(k, "Total Reserved")) r = num_or_skip(c, &e->total_res);
            else r = j_skip(c, 1);
            break;
        case 15:
            if (J_EQ(k, "Concrete Inputs")) r = capture_compact(c, &e->concrete);
            else if (J_EQ(k, "Sequence number")) r = num_or_skip(c, &e->seq);
            else if (J_EQ(k, "Total Allocated")) r = num_or_skip(c, &e->total_alloc);
            else r = j_skip(c, 1);
            break;
        case 20:
            if (J_EQ(k, "registers per thread")) r = num_or_skip(c, &e->regs);
            else r = j_skip(c, 1);
            break;
        case 25:
            if (J_EQ(k, "est. achieved occupancy %")) r = dbl_or_skip(c, &e->occ);
            else r = j_skip(c, 1);
            break;
        default: r = j_skip(c, 1);
        }
        if (r) return r;
        if ((r = j_ws(c))) return r;
        if (*c->p == ',') { c->p++; continue; }
        if (*c->p == '}') { c->p++; return J_OK; }
        c->why = "expected ',' or '}'";
        return J_ERR;
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
            if ((r = j_fixed3(c, &e->ts)) == J_OK) e->has_ts = 1;
            else if (r == J_ERR && (*c->p == '"' || *c->p == 'n')) r = j_skip(c, 1); /* "ts": null */
        } else if (J_EQ(k, "dur")) {
            if ((r = j_fixed3(c, &e->dur)) == J_OK) e->has_dur = 1;
            else if (r == J_ERR && (*c->p == '"' || *c->p == 'n')) r = j_skip(c, 1);
        } else if (J_EQ(k, "cat")) {
            r = *c->p == '"' ? j_string(c, &e->cat) : j_skip(c, 1);
        } else if (J_EQ(k, "name")) {
            r = *c->p == '"' ? j_string(c, &e->name) : j_skip(c, 1);
        } else if (J_EQ(k, "pid")) {
            if (*c->p == '"' || *c->p == '-' || (*c->p >= '0' && *c->p <= '9')) {
                r = j_id(c, &e->pid, &s, &named);
                e->pid_named = named;
            } else r = j_skip(c, 1);
        } else if (J_EQ(k, "tid")) {
            if (*c->p == '"' || *c->p == '-' || (*c->p >= '0' && *c->p <= '9')) {
                r = j_id(c, &e->tid, &e->tid_s, &named);
                e->tid_named = named;
            } else r = j_skip(c, 1);
        } else if (J_EQ(k, "args")) {
            r = parse_args(c, e);
        } else {
            r = j_skip(c, 1);
        }
        if (r) return r;
        if ((r = j_ws(c))) return r;
        if (*c->p == ',') { c->p++; continue; }
        if (*c->p == '}') { c->p++; return J_OK; }
        c->why = "expected ',' or '}' in an event";
        return J_ERR;
    }
}
