/* lists.c - the timelines' compact lists (summary.h): written and read here
 * only, so their element layout is stated once.
 *   trace_timeline.events[]:  [lane, start_ns, duration_ns, name, category, depth, args or -1]
 *   timeline.rows[].boxes[]:  [start_ns, end_ns, category]
 * (an event read from summary.json is that text, a raw item: one item, not eight)
 * A reader skips an element of another shape (a summary.json from elsewhere). */
#include "summary.h"
#include "../util/xalloc.h"
#include <stdlib.h>
#include <string.h>

cJSON *pc_tl_event_item(const pc_tl_event *e) {
    const int64_t v[PC_TL_EVENT_FIELDS] = {e->lane, e->start_ns, e->duration_ns, e->name, e->category, e->depth, e->args};
    cJSON *x = cJSON_CreateArray();
    for (int k = 0; k < PC_TL_EVENT_FIELDS; k++) cJSON_AddItemToArray(x, cJSON_CreateNumber((double)v[k]));
    return x;
}

static const cJSON *member(const cJSON *o, const char *key) { return cJSON_GetObjectItemCaseSensitive(o, key); }

/* an event read from summary.json, kept as its text (validate.c's
 * sk_events: "[n, n, ...]", numbers or null): its numbers into v; how many,
 * -1 when one is not a number or there are more than PC_TL_EVENT_FIELDS */
static int event_text(const char *t, int64_t *v) {
    int k = 0;
    for (t++; *t && *t != ']'; t += *t == ',' ? 2 : 0) {
        char *end;
        double x = strtod(t, &end);
        if (end == t || k == PC_TL_EVENT_FIELDS) return -1;
        v[k++] = (int64_t)x;
        t = end;
    }
    return k;
}

pc_tl_event *pc_summary_trace_events(const pc_summary *s, size_t *n) {
    const cJSON *ev = member(member(s->doc, "trace_timeline"), "events"), *x;
    pc_tl_event *out = xcalloc((size_t)cJSON_GetArraySize(ev) + 1, sizeof *out);
    *n = 0;
    cJSON_ArrayForEach(x, ev) {
        int64_t v[PC_TL_EVENT_FIELDS];
        int k = 0;
        const cJSON *y;
        if (cJSON_IsRaw(x)) k = event_text(x->valuestring, v);
        else cJSON_ArrayForEach(y, x) {
                if (k == PC_TL_EVENT_FIELDS || !cJSON_IsNumber(y)) { k = -1; break; }
                v[k++] = (int64_t)y->valuedouble;
            }
        if (k != PC_TL_EVENT_FIELDS) continue;
        out[(*n)++] = (pc_tl_event){v[0], v[1], v[2], v[3], v[4], v[5], v[6]};
    }
    return out;
}

cJSON *pc_tl_box_item(int64_t start_ns, int64_t end_ns, const char *category) {
    cJSON *b = cJSON_CreateArray();
    cJSON_AddItemToArray(b, cJSON_CreateNumber((double)start_ns));
    cJSON_AddItemToArray(b, cJSON_CreateNumber((double)end_ns));
    cJSON_AddItemToArray(b, sj_str_item(category));
    return b;
}

pc_tl_row *pc_summary_timeline_rows(const pc_summary *s, size_t *n) {
    const cJSON *rows = member(member(s->doc, "timeline"), "rows"), *r;
    pc_tl_row *out = xcalloc((size_t)cJSON_GetArraySize(rows) + 1, sizeof *out);
    *n = 0;
    cJSON_ArrayForEach(r, rows) {
        const cJSON *lab = member(r, "label"), *kind = member(r, "kind"), *bx = member(r, "boxes"), *b;
        pc_tl_row *o = &out[(*n)++];
        o->label = cJSON_IsString(lab) ? lab->valuestring : "";
        o->kind = cJSON_IsString(kind) ? kind->valuestring : "";
        o->boxes = xcalloc((size_t)cJSON_GetArraySize(bx) + 1, sizeof *o->boxes);
        cJSON_ArrayForEach(b, bx) {
            const cJSON *b0 = b->child, *b1 = b0 ? b0->next : NULL, *b2 = b1 ? b1->next : NULL;
            if (!cJSON_IsNumber(b0) || !cJSON_IsNumber(b1) || !cJSON_IsString(b2) || b2->next) continue;
            o->boxes[o->nboxes++] = (pc_tl_box){b0->valuedouble, b1->valuedouble, b2->valuestring};
        }
    }
    return out;
}

void pc_tl_rows_free(pc_tl_row *rows, size_t n) {
    for (size_t i = 0; i < n; i++) free(rows[i].boxes);
    free(rows);
}
