#include "summary.h"
#include "../util/fsutil.h"
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

cJSON *pc_summary_new(void) {
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "schema", PC_SUMMARY_SCHEMA);
    return s;
}

cJSON *sj_obj(cJSON *p, const char *k) { return cJSON_AddObjectToObject(p, k); }
cJSON *sj_arr(cJSON *p, const char *k) { return cJSON_AddArrayToObject(p, k); }
void sj_int(cJSON *o, const char *k, int64_t v) { cJSON_AddNumberToObject(o, k, (double)v); }
/* Figures keep 15 significant digits: the value in memory is then exactly
 * what summary.json holds (cJSON prints 15 digits when they round-trip
 * within its tolerance), so a diff of summaries equals a diff of traces. */
static double round15(double v) {
    char buf[32];
    snprintf(buf, sizeof buf, "%.15g", v);
    return strtod(buf, NULL);
}

void sj_num(cJSON *o, const char *k, double v) {
    if (isfinite(v)) cJSON_AddNumberToObject(o, k, round15(v));
    else cJSON_AddNullToObject(o, k);
}
void sj_str(cJSON *o, const char *k, const char *s) { cJSON_AddStringToObject(o, k, s ? s : ""); }
void sj_bool(cJSON *o, const char *k, int v) { cJSON_AddBoolToObject(o, k, v); }

const cJSON *sj_get(const cJSON *o, const char *path) {
    char key[128];
    while (o && *path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        if (n >= sizeof key) return NULL;
        memcpy(key, path, n);
        key[n] = 0;
        if (cJSON_IsArray(o)) {
            char *end;
            long i = strtol(key, &end, 10);
            o = *end ? NULL : cJSON_GetArrayItem(o, (int)i);
        } else o = cJSON_GetObjectItemCaseSensitive(o, key);
        path += n + (dot ? 1 : 0);
        if (!dot) break;
    }
    return o;
}
double sj_getnum(const cJSON *o, const char *path, double d) {
    const cJSON *v = sj_get(o, path);
    return cJSON_IsNumber(v) ? v->valuedouble : d;
}
const char *sj_getstr(const cJSON *o, const char *path, const char *d) {
    const cJSON *v = sj_get(o, path);
    return cJSON_IsString(v) ? v->valuestring : d;
}

int pc_summary_write(const cJSON *s, const char *path, pc_err *err) {
    char *txt = cJSON_Print(s);
    if (!txt) return PC_ERRF(err, PC_EIO, "%s: cannot serialize the summary", path);
    int rc = fs_write_atomic(path, txt, strlen(txt), err);
    free(txt);
    return rc;
}

int pc_summary_read(const char *path, cJSON **out, pc_err *err) {
    *out = NULL;
    size_t n;
    char *txt;
    int rc = fs_read_all(path, &txt, &n, (size_t)1 << 30, err);
    if (rc) return rc;
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(txt, n, &end, 0);
    if (!j) {
        uint64_t off = end ? (uint64_t)(end - txt) : 0;
        free(txt);
        return PC_ERRF_AT(err, PC_EINPUT, off, "not valid JSON at byte %llu", (unsigned long long)off);
    }
    free(txt);
    const char *schema = sj_getstr(j, "schema", "");
    if (strncmp(schema, "perfcard.summary/", 17) != 0) {
        cJSON_Delete(j);
        return PC_ERRF(err, PC_EINPUT, "not a perfcard summary (no \"schema\": \"perfcard.summary/N\")");
    }
    if (atoi(schema + 17) != 1) {
        cJSON_Delete(j);
        return PC_ERRF(err, PC_EUNSUP, "summary schema %s is not supported (this perfcard reads %s)", schema, PC_SUMMARY_SCHEMA);
    }
    *out = j;
    return 0;
}
