/* shortname.c - see shortname.h. The name is read as a span of bytes with
 * bracket depth ((), <>, [], {}); "(anonymous namespace)" is one word. */
#include "shortname.h"
#include "sbuf.h"
#include "utf8.h"
#include "xalloc.h"
#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { const char *s; size_t n; } span;

static const char ANON[] = "(anonymous namespace)";
enum { ANON_LEN = sizeof ANON - 1, MAX_DEPTH = 4 };

static int id_char(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' || c >= 0x80;
}
static size_t anon_at(span x, size_t i) { return x.n - i >= ANON_LEN && !memcmp(x.s + i, ANON, ANON_LEN) ? ANON_LEN : 0; }
static int opener(char c) { return c == '(' || c == '<' || c == '[' || c == '{'; }
static int closer(char c) { return c == ')' || c == '>' || c == ']' || c == '}'; }

static span trim(span x) {
    while (x.n && x.s[0] == ' ') x.s++, x.n--;
    while (x.n && x.s[x.n - 1] == ' ') x.n--;
    return x;
}
static span sub(span x, size_t a, size_t b) { return (span){x.s + a, b - a}; }

/* index of the first byte at depth 0 that is c (x.n when none, or when a
 * bracket closes below depth 0: *bad set) */
static size_t find_top(span x, size_t from, char c, int *bad) {
    int d = 0;
    for (size_t i = from; i < x.n; i++) {
        size_t a = anon_at(x, i);
        if (a) { i += a - 1; continue; }
        char ch = x.s[i];
        if (d == 0 && ch == c) return i;
        if (ch == '-' && i + 1 < x.n && x.s[i + 1] == '>') { i++; continue; } /* "->" is no bracket */
        if (opener(ch)) d++;
        else if (closer(ch) && --d < 0) { if (bad) *bad = 1; return x.n; }
    }
    return x.n;
}
/* index of the bracket that closes the one at i (x.n when none) */
static size_t match_fwd(span x, size_t i) {
    int d = 0;
    for (size_t k = i; k < x.n; k++) {
        size_t a = anon_at(x, k);
        if (a) { k += a - 1; continue; }
        if (x.s[k] == '-' && k + 1 < x.n && x.s[k + 1] == '>') { k++; continue; }
        if (opener(x.s[k])) d++;
        else if (closer(x.s[k]) && --d == 0) return k;
    }
    return x.n;
}
/* index of the bracket that opens the one closed at i (x.n when none) */
static size_t match_back(span x, size_t i) {
    int d = 0;
    for (size_t k = i + 1; k-- > 0;) {
        if (closer(x.s[k])) d++;
        else if (opener(x.s[k]) && --d == 0) return k;
    }
    return x.n;
}
/* the last occurrence of "::" at depth 0 in x, or x.n */
static size_t last_scope(span x) {
    size_t at = x.n, i = 0;
    int bad = 0;
    while ((i = find_top(x, i, ':', &bad)) + 1 < x.n) {
        if (x.s[i + 1] == ':') at = i, i += 2;
        else i++;
    }
    return at;
}

/* x without namespace qualifiers: each word (or "(anonymous namespace)")
 * followed by "::" is left out */
static void put_compact(sbuf *b, span x) {
    size_t i = 0;
    while (i < x.n) {
        size_t a = anon_at(x, i), j = i;
        if (a) j = i + a;
        else while (j < x.n && id_char((unsigned char)x.s[j])) j++;
        if (j > i && j + 1 < x.n && x.s[j] == ':' && x.s[j + 1] == ':') { i = j + 2; continue; }
        if (j == i) j = i + 1;
        sbuf_putn(b, x.s + i, j - i);
        i = j;
    }
}

static int word_in(span w, const char *const *list) {
    for (int k = 0; list[k]; k++)
        if (strlen(list[k]) == w.n && !memcmp(list[k], w.s, w.n)) return 1;
    return 0;
}
static int ends_with(span w, const char *suf) {
    size_t m = strlen(suf);
    return w.n >= m && !memcmp(w.s + w.n - m, suf, m);
}

/* A class name: its last word before its template arguments (x trimmed).
 * *args gets the arguments inside its <...> (n 0 when none). Returns n 0 when
 * x is no class name. */
static span class_word(span x, span *args) {
    static const char *const quals[] = {"const ", "volatile ", "struct ", "class ", "enum ", "typename ", NULL};
    *args = (span){x.s, 0};
    for (int again = 1; again;) {
        again = 0;
        for (int k = 0; quals[k]; k++) {
            size_t m = strlen(quals[k]);
            if (x.n > m && !memcmp(x.s, quals[k], m)) x.s += m, x.n -= m, again = 1;
        }
    }
    x = trim(x);
    if (!x.n || !id_char((unsigned char)x.s[0]) || (x.s[0] >= '0' && x.s[0] <= '9')) return (span){x.s, 0};
    char last = x.s[x.n - 1];
    if (last == '*' || last == '&' || last == ')' || last == ']') return (span){x.s, 0};
    int bad = 0;
    size_t lt = find_top(x, 0, '<', &bad);
    span head = sub(x, 0, lt);
    if (lt < x.n) {
        size_t gt = match_fwd(x, lt);
        if (gt < x.n) *args = sub(x, lt + 1, gt);
    }
    size_t sc = last_scope(head);
    span w = sc < head.n ? sub(head, sc + 2, head.n) : head;
    for (size_t i = 0; i < w.n; i++)
        if (!id_char((unsigned char)w.s[i])) return (span){x.s, 0};
    return w;
}

static const char *const builtin[] = {"int", "long", "short", "char", "float", "double", "bool", "void", "unsigned", "signed", "half",
                                      "__half", "Half", "BFloat16", "__nv_bfloat16", "__nv_bfloat162", "__half2", "float2", "float4",
                                      "int2", "int4", "uint", "size_t", "int64_t", "int32_t", "uint8_t", "int8_t", "uint32_t",
                                      "uint64_t", "true", "false", "nullptr", "decltype", "complex", "Float8_e4m3fn", "Float8_e5m2",
                                      NULL};
/* helper types that every kernel of a family shares */
static const char *const helper[] = {"Array", "TensorInfo", "OffsetCalculator", "TrivialOffsetCalculator", "LoadWithCast",
                                     "StoreWithCast", "LoadWithoutCast", "StoreWithoutCast", "TensorListMetadata",
                                     "GenericPackedTensorAccessor", "PackedTensorAccessor32", "PackedTensorAccessor64",
                                     "PhiloxCudaState", "IntDivider", "ScanTileState", "OpaqueType",
                                     "cublasGemvTensorStridedBatched", NULL};

/* What tells this kernel apart, from its template arguments x: *out gets it
 * (level 0: a word; level 1: the word with its arguments, namespaces left
 * out). Returns 0 when nothing does. */
static int distinct(span x, int level, int depth, sbuf *out) {
    if (depth > MAX_DEPTH || !x.n) return 0;
    /* a lambda: the function around it, as "f(...)::{lambda" */
    const char *l = memmem(x.s, x.n, "::{lambda", 9);
    if (l && l > x.s) {
        size_t j = (size_t)(l - x.s) - 1;
        while (j > 0 && x.s[j] == ' ') j--;
        if (j >= 5 && !memcmp(x.s + j - 4, "const", 5)) { /* ") const::{lambda" */
            j -= 5;
            while (j > 0 && x.s[j] == ' ') j--;
        }
        if (x.s[j] == ')') {
            size_t p = match_back(x, j);
            if (p < x.n && p > 0) {
                size_t e = p, tl = e; /* e: end of the name with its template arguments */
                span targs = {x.s, 0};
                if (x.s[e - 1] == '>') {
                    size_t o = match_back(x, e - 1);
                    if (o < x.n) tl = o, targs = sub(x, o + 1, e - 1);
                }
                size_t b = tl;
                while (b > 0 && id_char((unsigned char)x.s[b - 1])) b--;
                span w = sub(x, b, tl);
                if (w.n) {
                    if (targs.n && memmem(w.s, w.n, "gpu_kernel", 10) && distinct(targs, level, depth + 1, out)) return 1;
                    if (level > 0) put_compact(out, sub(x, b, e));
                    else sbuf_putn(out, w.s, w.n);
                    return 1;
                }
            }
        }
    }
    /* else the first argument that names a class other than a helper */
    size_t i = 0;
    while (i <= x.n) {
        int bad = 0;
        size_t c = find_top(x, i, ',', &bad);
        if (bad) return 0;
        span arg = trim(sub(x, i, c)), args;
        span w = class_word(arg, &args);
        if (w.n && !word_in(w, builtin) && !word_in(w, helper) && !ends_with(w, "Policy") && !ends_with(w, "Params")) {
            if (args.n && (memmem(w.s, w.n, "Functor", 7) || memmem(w.s, w.n, "wrapper", 7) || (w.n == 8 && !memcmp(w.s, "ReduceOp", 8)))) {
                if (level == 0 && distinct(args, 0, depth + 1, out)) return 1;
            }
            if (level > 0) put_compact(out, arg);
            else sbuf_putn(out, w.s, w.n);
            return 1;
        }
        i = c + 1;
    }
    return 0;
}

/* The parts of a C++ signature: the function's name with its namespaces
 * (qual), its last word (word) and its template arguments (args). Returns 0
 * when name is no signature. */
typedef struct { span qual, word, args; int has_args; } sig;
static int parse_sig(span x, sig *g) {
    int bad = 0;
    size_t p = find_top(x, 0, '(', &bad), end = x.n;
    if (bad) return 0;
    if (p < x.n) {
        if (p == 0 || x.s[p - 1] == ' ') return 0; /* "AllReduce (stream_1)": a label, not parameters */
        size_t q = match_fwd(x, p);
        if (q >= x.n) return 0;
        /* after the parameters: nothing, " const", or " [clone ...]" */
        span rest = trim(sub(x, q + 1, x.n));
        if (rest.n >= 5 && !memcmp(rest.s, "const", 5)) rest = trim(sub(rest, 5, rest.n));
        if (rest.n && rest.s[0] != '[') return 0;
        end = p;
    } else {
        if (!x.n || x.s[x.n - 1] != '>') return 0;
    }
    span head = trim(sub(x, 0, end));
    if (!head.n) return 0;
    /* the return type ends at the last space at depth 0 */
    size_t i = 0, sp = head.n;
    while ((i = find_top(head, i, ' ', &bad)) < head.n) sp = i++;
    if (bad) return 0;
    span q = sp < head.n ? sub(head, sp + 1, head.n) : head;
    size_t lt = find_top(q, 0, '<', &bad);
    span name = sub(q, 0, lt);
    g->has_args = lt < q.n;
    g->args = (span){q.s, 0};
    if (g->has_args) {
        size_t gt = match_fwd(q, lt);
        if (gt + 1 != q.n) return 0; /* "A<x>::f": not read */
        g->args = sub(q, lt + 1, gt);
    }
    size_t sc = last_scope(name);
    g->qual = name;
    g->word = sc < name.n ? sub(name, sc + 2, name.n) : name;
    if (!g->word.n || g->word.s[0] == '~' || (g->word.n >= 8 && !memcmp(g->word.s, "operator", 8))) return 0;
    for (size_t k = 0; k < g->word.n; k++)
        if (!id_char((unsigned char)g->word.s[k])) return 0;
    /* a label ("autograd::engine::evaluate_function: X", "nn.Module: X"): kept */
    if (memmem(x.s, end, ": ", 2)) return 0;
    return 1;
}

static size_t count_cps(const char *s, size_t n) {
    size_t cps = 0;
    for (size_t i = 0; i < n; i++) cps += ((unsigned char)s[i] & 0xC0) != 0x80;
    return cps;
}

/* May a cut fall at byte i of s[0..n) at this tier? Tier 1: between two
 * identifiers (never inside a run of identifier characters); tier 2: also
 * between the words of one identifier (after '_', before an upper-case letter
 * that follows a lower-case one); tier 3: also at
 * any code point's start (a word alone longer than the room). Never inside a
 * UTF-8 sequence. */
static int cut_ok(const char *s, size_t n, size_t i, int tier) {
    assert(i <= n);
    if (i == 0 || i == n) return 1;
    unsigned char a = (unsigned char)s[i - 1], c = (unsigned char)s[i];
    if ((c & 0xC0) == 0x80) return 0;
    if (!id_char(a) || !id_char(c)) return 1;
    if (tier >= 3) return 1;
    if (tier < 2 || a >= 0x80 || c >= 0x80) return 0;
    return (a == '_' && c != '_') || (islower(a) && isupper(c));
}

/* The longest head s[0..a) of at most `room` code points that ends at a cut
 * (tier 1 first; tier 2 when tier 1 keeps less than half the room; up to
 * tier `finest`, the next only when one keeps nothing); spaces before the cut
 * dropped. */
static size_t cut_head(const char *s, size_t n, size_t room, int finest) {
    size_t best = 0;
    for (int tier = 1; tier <= finest; tier++) {
        size_t k = 0, a = 0;
        for (size_t i = 0; i <= n; i++) {
            if (i < n && ((unsigned char)s[i] & 0xC0) == 0x80) continue;
            if (k > room) break; /* s[0..i) holds k code points */
            if (cut_ok(s, n, i, tier)) a = i;
            k++;
        }
        best = a;
        if (tier == 1 ? 2 * count_cps(s, a) >= room : a > 0) break;
    }
    while (best > 0 && s[best - 1] == ' ') best--;
    return best;
}
/* The longest tail s[b..n) (b >= from) of at most `room` code points that
 * starts at a cut, as cut_head; spaces after the cut dropped. */
static size_t cut_tail(const char *s, size_t n, size_t from, size_t room, int finest) {
    size_t best = n;
    for (int tier = 1; tier <= finest; tier++) {
        size_t k = 0, b = n;
        for (size_t i = n + 1; i-- > from;) {
            if (i < n && ((unsigned char)s[i] & 0xC0) == 0x80) continue;
            if (i < n) k++; /* s[i..n) holds k code points */
            if (k > room) break;
            if (cut_ok(s, n, i, tier)) b = i;
        }
        best = b;
        if (tier == 1 ? 2 * count_cps(s + b, n - b) >= room : b < n) break;
    }
    while (best < n && s[best] == ' ') best++;
    return best;
}

/* s[0..n) when it has at most `max` code points, else cut in its middle
 * ("…") to at most `max`, the head and the tail each ending or starting
 * between identifiers, or between the words of one (cut_ok): never inside a
 * word ("cunn_SoftMa…ward"), unless a word alone is longer than the room.
 * The head gets about 5/8 of the room; what the tail leaves, the head takes
 * back. */
static char *cut_middle(const char *s, size_t n, size_t max) {
    size_t cps = count_cps(s, n);
    if (max < 8) max = 8;
    if (cps <= max) {
        char *r = xmalloc(n + 1);
        memcpy(r, s, n);
        r[n] = 0;
        return r;
    }
    size_t room = max - 1, a = 0, b = n;
    for (int finest = 2; finest <= 3 && a == 0 && b == n; finest++) { /* inside a word only when nothing else is kept */
        a = cut_head(s, n, room * 5 / 8, finest);
        b = cut_tail(s, n, a, room - count_cps(s, a), finest);
        a = cut_head(s, b, room - count_cps(s + b, n - b), finest);
    }
    assert(a <= b && count_cps(s, a) + count_cps(s + b, n - b) + 1 <= max);
    sbuf o = {0};
    sbuf_putn(&o, s, a);
    sbuf_puts(&o, "…");
    sbuf_putn(&o, s + b, n - b);
    return sbuf_take(&o);
}

char *pc_short_name(const char *name, int level, size_t max) {
    if (!name) name = "";
    size_t n = strlen(name), rn;
    char *fixed = utf8_repair(name, n, &rn, NULL);
    span x = trim((span){fixed ? fixed : name, fixed ? rn : n});
    sbuf b = {0};
    sig g;
    if (parse_sig(x, &g)) {
        static const char *const launcher[] = {"Kernel", "Kernel2", "device_kernel", NULL};
        sbuf d = {0};
        int has_d = g.has_args && distinct(g.args, level > 0, 0, &d);
        if (level >= 2) {
            sbuf_putn(&b, g.qual.s, g.qual.n); /* with its namespaces */
            if (g.has_args) {
                sbuf_putc(&b, '<');
                put_compact(&b, g.args);
                sbuf_putc(&b, '>');
            }
        } else if (has_d && word_in(g.word, launcher)) {
            sbuf_putn(&b, d.data, d.len);
        } else {
            sbuf_putn(&b, g.word.s, g.word.n);
            if (g.has_args && (has_d || level == 0)) sbuf_puts(&b, "<…>");
            else if (g.has_args) {
                sbuf_putc(&b, '<');
                put_compact(&b, g.args);
                sbuf_putc(&b, '>');
            }
            if (has_d) { /* too long: the word is cut, the argument kept (up to 2/3) */
                size_t half = max * 2 / 3 > 6 ? max * 2 / 3 - 3 : 3;
                char *dc = cut_middle(d.data, d.len, half), *wc;
                size_t dn = count_cps(dc, strlen(dc)), room = max > dn + 3 + 8 ? max - dn - 3 : 8;
                wc = cut_middle(b.data, b.len, room);
                b.len = 0;
                sbuf_puts(&b, wc);
                sbuf_puts(&b, " (");
                sbuf_puts(&b, dc);
                sbuf_putc(&b, ')');
                free(dc);
                free(wc);
            }
        }
        sbuf_free(&d);
    } else {
        sbuf_putn(&b, x.s, x.n);
    }
    char *r = cut_middle(b.data ? b.data : "", b.len, max);
    sbuf_free(&b);
    free(fixed);
    return r;
}

typedef struct { const char *full; char *shrt; size_t i, first; } entry;
static int cmp_entry(const void *a, const void *b) {
    const entry *x = a, *y = b;
    int c = strcmp(x->shrt, y->shrt);
    if (!c) c = strcmp(x->full, y->full);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}
/* within one short name: by the first position of the full name */
static int cmp_first(const void *a, const void *b) {
    const entry *x = a, *y = b;
    return x->first != y->first ? (x->first > y->first) - (x->first < y->first) : (x->i > y->i) - (x->i < y->i);
}

void pc_short_names(const char *const *names, size_t n, size_t max, char **out) {
    if (!n) return;
    entry *e = xcalloc(n, sizeof *e);
    for (size_t i = 0; i < n; i++) e[i] = (entry){names[i] ? names[i] : "", pc_short_name(names[i], 0, max), i, 0};
    /* names that share a short name go one level up, group by group, where
     * that tells more of them apart; twice */
    for (int level = 1; level <= 2; level++) {
        qsort(e, n, sizeof *e, cmp_entry);
        for (size_t a = 0, b; a < n; a = b) {
            int differ = 0;
            for (b = a + 1; b < n && !strcmp(e[b].shrt, e[a].shrt); b++) differ |= strcmp(e[b].full, e[a].full) != 0;
            if (!differ) continue;
            size_t m = b - a, before = 0, after = 0;
            entry *t = xcalloc(m, sizeof *t);
            for (size_t k = 0; k < m; k++) {
                t[k] = e[a + k], t[k].shrt = pc_short_name(e[a + k].full, level, max);
                before += k == 0 || strcmp(e[a + k].full, e[a + k - 1].full); /* distinct full names: sorted */
            }
            qsort(t, m, sizeof *t, cmp_entry);
            for (size_t k = 0; k < m; k++) after += k == 0 || strcmp(t[k].shrt, t[k - 1].shrt);
            (void)before;
            if (after > 1) {
                for (size_t k = 0; k < m; k++) free(e[a + k].shrt), e[a + k] = t[k];
            } else {
                for (size_t k = 0; k < m; k++) free(t[k].shrt);
            }
            free(t);
        }
    }
    /* still shared: " #2", " #3"... for the second, third... full name, in
     * the order first given; a name that cutting made equal to another group's
     * is numbered on from n + 2 (a rare case: a few rounds settle it) */
    size_t next = n + 2;
    for (int round = 0; round < 16; round++) {
        qsort(e, n, sizeof *e, cmp_entry);
        int clash = 0;
        for (size_t a = 0, b; a < n; a = b) {
            for (b = a + 1; b < n && !strcmp(e[b].shrt, e[a].shrt); b++) {}
            for (size_t k = a; k < b; k++) e[k].first = k > a && !strcmp(e[k].full, e[k - 1].full) ? e[k - 1].first : e[k].i;
            if (e[b - 1].first == e[a].first) continue; /* one full name */
            clash = 1;
            qsort(e + a, b - a, sizeof *e, cmp_first);
            size_t rank = 1;
            for (size_t k = a + 1; k < b; k++) {
                if (e[k].first != e[k - 1].first) rank++;
                if (rank == 1) continue;
                char tag[32];
                snprintf(tag, sizeof tag, " #%zu", round ? next + rank : rank);
                size_t tl = strlen(tag);
                char *base = cut_middle(e[k].shrt, strlen(e[k].shrt), max > tl + 8 ? max - tl : 8);
                sbuf t = {0};
                sbuf_puts(&t, base);
                sbuf_puts(&t, tag);
                free(base);
                free(e[k].shrt);
                e[k].shrt = sbuf_take(&t);
            }
            if (round) next += rank;
        }
        if (!clash) break;
    }
    for (size_t i = 0; i < n; i++) out[e[i].i] = e[i].shrt;
    free(e);
}

size_t pc_name_cut_before(const char *s, size_t i) {
    size_t n = strlen(s);
    if (i > n) i = n;
    for (int tier = 2; tier <= 3; tier++)
        for (size_t k = i; k-- > 1;)
            if (cut_ok(s, n, k, tier)) return k;
    return 0;
}
