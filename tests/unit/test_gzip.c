/* The gzip reader (src/load/source.c) with each inflater built in: zlib
 * always, ISA-L's igzip when the build found libisal. The expected bytes are
 * the data the test compressed itself (with zlib's deflate, member by member,
 * the gzip framing written here), never what an inflater under test says;
 * and both inflaters must deliver the same bytes on every input, good, cut
 * or damaged (where they may stop at different bytes of a damaged member:
 * see gzip_inflaters_corrupt_everywhere). In a build without ISA-L (make
 * INFLATE=zlib, .ci/run) the zlib half runs alone. */
#include "test.h"
#include "fixtures.h"
#include "load/load.h"
#include "load/source.h"
#include <stdlib.h>
#include <zlib.h>

enum { BLK = 1 << 20, INBUF = 1 << 18 }; /* source.c's output blocks and input reads */

typedef struct buf { unsigned char *p; size_t n, cap; } buf;

static void put(buf *b, const void *p, size_t n) {
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
    }
    if (n) memcpy(b->p + b->n, p, n);
    b->n += n;
}
static void put_le32(buf *b, uint32_t v) {
    unsigned char q[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16), (unsigned char)(v >> 24)};
    put(b, q, 4);
}

/* One gzip member of data (RFC 1952): a header with a comment of
 * comment_len bytes when > 0 (to place the next member at a chosen offset),
 * raw deflate at level, CRC-32 and length. */
static void gz_member(buf *b, const unsigned char *data, size_t n, int level, size_t comment_len) {
    unsigned char h[10] = {0x1f, 0x8b, 8, (unsigned char)(comment_len ? 0x10 : 0), 0, 0, 0, 0, 0, 3};
    put(b, h, 10);
    for (size_t i = 0; i < comment_len; i++) put(b, i + 1 == comment_len ? "" : "c", 1);
    z_stream z;
    memset(&z, 0, sizeof z);
    deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
    size_t cap = deflateBound(&z, (uLong)n) + 16;
    unsigned char *out = malloc(cap);
    z.next_in = (unsigned char *)data;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    int r = deflate(&z, Z_FINISH);
    if (r != Z_STREAM_END) abort();
    put(b, out, cap - z.avail_out);
    deflateEnd(&z);
    free(out);
    put_le32(b, (uint32_t)crc32(0, data, (uInt)n));
    put_le32(b, (uint32_t)n);
}

/* n bytes of JSON-like text, deterministic from seed: compresses with
 * matches and Huffman codes (random bytes would be stored blocks only) */
static unsigned char *gen_text(size_t n, uint32_t seed) {
    static const char *words[] = {"{\"ph\": \"X\", ", "\"name\": \"", "aten::mm", "volta_sgemm_128x64_nn", "\", \"ts\": ",
                                  "\"dur\": ", "}, ", "\"args\": {\"stream\": 7}", "cudaLaunchKernel", "\n"};
    unsigned char *p = malloc(n + 1);
    size_t i = 0;
    while (i < n) {
        seed = seed * 1664525u + 1013904223u;
        const char *w;
        char num[16];
        if ((seed >> 28) < 3) {
            snprintf(num, sizeof num, "%u", (seed >> 8) & 0xfffff);
            w = num;
        } else w = words[(seed >> 16) % 10];
        for (size_t k = 0; w[k] && i < n; k++) p[i++] = (unsigned char)w[k];
    }
    return p;
}

static char *write_file(const char *name, const unsigned char *p, size_t n) {
    char *path = tmp_path(name);
    FILE *f = fopen(path, "wb");
    if (n) fwrite(p, 1, n, f);
    fclose(f);
    return path;
}

typedef struct got { buf out; int rc, truncated; char note[256]; } got;

/* everything a source delivers with inflater `name`; rc -1: not built in */
static got read_with(const char *path, const char *name) {
    got g;
    memset(&g, 0, sizeof g);
    pc_source *s = NULL;
    pc_err err = {0};
    if (source_open(&s, path, &err) != 0) { g.rc = -2; return g; }
    if (source_set_inflater(s, name) != 0) { source_close(s); g.rc = -1; return g; }
    char tmp[70000];
    ssize_t r;
    while ((r = source_read(s, tmp, sizeof tmp, &err)) > 0) put(&g.out, tmp, (size_t)r);
    g.rc = r < 0 ? (int)r : 0;
    g.truncated = source_truncated(s);
    const char *note = source_error_note(s);
    snprintf(g.note, sizeof g.note, "%s", note ? note : "");
    source_close(s);
    return g;
}

static int isal_built(void) {
    static int built = -1;
    if (built < 0) {
        char *p = write_file("probe.gz", (const unsigned char *)"\x1f\x8b", 2);
        pc_source *s = NULL;
        pc_err err = {0};
        built = source_open(&s, p, &err) == 0 && source_set_inflater(s, "isal") == 0;
        source_close(s);
        free(p);
    }
    return built;
}

/* reads path with zlib and (when built) ISA-L; both must give the same
 * bytes, rc, truncation; the zlib result is returned. *same=0 on a mismatch */
static got read_both(const char *path, int *same, char *why, size_t whylen) {
    got z = read_with(path, "zlib");
    *same = 1;
    if (!isal_built()) return z;
    got i = read_with(path, "isal");
    if (i.out.n != z.out.n || (z.out.n && memcmp(i.out.p, z.out.p, z.out.n)) || i.rc != z.rc || i.truncated != z.truncated) {
        size_t k = 0;
        while (k < i.out.n && k < z.out.n && i.out.p[k] == z.out.p[k]) k++;
        snprintf(why, whylen, "zlib %zu bytes rc %d truncated %d (%.150s); isal %zu bytes rc %d truncated %d (%.150s); first difference at %zu",
                 z.out.n, z.rc, z.truncated, z.note, i.out.n, i.rc, i.truncated, i.note, k);
        *same = 0;
    }
    free(i.out.p);
    return z;
}

static int is_prefix(const got *g, const unsigned char *want, size_t n) {
    return g->out.n <= n && (g->out.n == 0 || !memcmp(g->out.p, want, g->out.n));
}

TEST(gzip_inflaters_multi_member_random) {
    /* 60 members of 0..40,000 bytes (several empty), levels 0, 1, 6, 9 */
    uint32_t seed = 12345;
    buf file = {0}, want = {0};
    for (int m = 0; m < 60; m++) {
        seed = seed * 1103515245u + 12345u;
        size_t n = m % 7 == 3 ? 0 : (seed >> 8) % 40000;
        unsigned char *d = gen_text(n, seed);
        static const int levels[] = {0, 1, 6, 9};
        gz_member(&file, d, n, levels[m % 4], m % 5 == 0 ? (size_t)m * 3 + 1 : 0);
        put(&want, d, n);
        free(d);
    }
    char *path = write_file("members.gz", file.p, file.n);
    int same;
    char why[1024] = "";
    got z = read_both(path, &same, why, sizeof why);
    CHECK_MSG(same, "%s", why);
    CHECK_EQ_I(z.rc, 0);
    CHECK(!z.truncated);
    CHECK_EQ_I(z.out.n, want.n);
    CHECK(!memcmp(z.out.p, want.p, want.n));
    free(z.out.p);
    free(path);
    free(file.p);
    free(want.p);
}

/* a member boundary on each side of the reader's 1 MiB output blocks and of
 * its 256 KiB input reads, an empty member there too */
TEST(gzip_inflaters_member_at_block_boundaries) {
    unsigned char *d = gen_text(3 * BLK, 777);
    int cases = 0;
    for (int side = 0; side < 2; side++)
        for (long delta = -2; delta <= 2; delta++)
            for (int empty = 0; empty < 2; empty++) {
                buf file = {0}, want = {0};
                size_t n1;
                if (side == 0) {
                    /* output side: the first member inflates to BLK + delta bytes */
                    n1 = (size_t)(BLK + delta);
                    gz_member(&file, d, n1, 6, 0);
                } else {
                    /* input side: the first member ends at compressed byte INBUF + delta,
                     * its header's comment filling what its deflate data leaves */
                    n1 = 200000;
                    buf probe = {0};
                    gz_member(&probe, d, n1, 1, 0);
                    size_t pad = (size_t)(INBUF + delta) - probe.n;
                    free(probe.p);
                    gz_member(&file, d, n1, 1, pad);
                    CHECK_EQ_I(file.n, INBUF + delta);
                }
                put(&want, d, n1);
                if (empty) gz_member(&file, d, 0, 6, 0);
                gz_member(&file, d + n1, 5000, 6, 0);
                put(&want, d + n1, 5000);
                char *path = write_file("boundary.gz", file.p, file.n);
                int same;
                char why[1024] = "";
                got z = read_both(path, &same, why, sizeof why);
                CHECK_MSG(same, "side %d delta %ld empty %d: %s", side, delta, empty, why);
                CHECK_MSG(z.rc == 0 && !z.truncated && z.out.n == want.n && !memcmp(z.out.p, want.p, want.n),
                          "side %d delta %ld empty %d: %zu bytes, truncated %d, expected %zu", side, delta, empty, z.out.n,
                          z.truncated, want.n);
                free(z.out.p);
                free(path);
                free(file.p);
                free(want.p);
                cases++;
            }
    free(d);
    CHECK_EQ_I(cases, 20);
}

/* cut at every byte of a three-member file, and around the reader's input
 * reads in a larger one: the bytes delivered are a prefix of the data, at
 * least every member that ended before the cut; truncated unless the cut
 * falls on a member's end */
TEST(gzip_inflaters_truncated_everywhere) {
    buf file = {0}, want = {0};
    size_t ends[3], out_ends[3];
    for (int m = 0; m < 3; m++) {
        size_t n = m == 1 ? 0 : 3000;
        unsigned char *d = gen_text(n, 99u + (uint32_t)m);
        gz_member(&file, d, n, 6, 0);
        put(&want, d, n);
        ends[m] = file.n;
        out_ends[m] = want.n;
        free(d);
    }
    int checked = 0;
    for (size_t cut = 2; cut <= file.n; cut++) {
        char *path = write_file("cut.gz", file.p, cut);
        int same;
        char why[1024] = "";
        got z = read_both(path, &same, why, sizeof why);
        CHECK_MSG(same, "cut %zu: %s", cut, why);
        int at_end = cut == ends[0] || cut == ends[1] || cut == ends[2];
        CHECK_MSG(z.rc == 0 && z.truncated == !at_end, "cut %zu: rc %d truncated %d", cut, z.rc, z.truncated);
        CHECK_MSG(is_prefix(&z, want.p, want.n), "cut %zu: not a prefix of the data", cut);
        size_t least = 0;
        for (int m = 0; m < 3; m++)
            if (ends[m] <= cut) least = out_ends[m];
        CHECK_MSG(z.out.n >= least, "cut %zu: %zu bytes, members before it hold %zu", cut, z.out.n, least);
        free(z.out.p);
        free(path);
        checked++;
    }
    CHECK_EQ_I(checked, (long long)file.n - 1);
    free(file.p);
    free(want.p);

    /* a 2.5 MB text in one member, cut around the 256 KiB reads and 1 MiB blocks */
    buf big = {0};
    size_t n = 2500000;
    unsigned char *d = gen_text(n, 4242);
    gz_member(&big, d, n, 1, 0);
    size_t cuts[] = {INBUF - 1, INBUF, INBUF + 1, 2 * INBUF, 3 * INBUF + 7, big.n - 9, big.n - 8, big.n - 4, big.n - 1};
    for (size_t k = 0; k < sizeof cuts / sizeof *cuts; k++) {
        if (cuts[k] >= big.n) continue;
        char *path = write_file("bigcut.gz", big.p, cuts[k]);
        int same;
        char why[1024] = "";
        got z = read_both(path, &same, why, sizeof why);
        CHECK_MSG(same, "cut %zu of %zu: %s", cuts[k], big.n, why);
        CHECK_MSG(z.rc == 0 && z.truncated && is_prefix(&z, d, n), "cut %zu: rc %d truncated %d", cuts[k], z.rc, z.truncated);
        /* cut inside the 8-byte trailer: all the data was there */
        if (cuts[k] >= big.n - 8) CHECK_MSG(z.out.n == n, "cut %zu in the trailer: %zu bytes, expected %zu", cuts[k], z.out.n, n);
        free(z.out.p);
        free(path);
    }
    free(d);
    free(big.p);
}

/* every byte of a two-member file flipped in turn, and garbage after the
 * last member: never a crash; both inflaters find the damage (or, in the
 * header's time and OS fields, both deliver the data whole); a damaged stream
 * is a truncation whose note names the compressed offset, and the members
 * before the damage are delivered whole. The bytes inflated from the damaged
 * member before the damage shows may differ: ISA-L does not check that a
 * block's Huffman code lengths form a complete code, zlib does, so ISA-L can
 * decode a few wrong bytes where zlib stops (the member's CRC-32 then fails):
 * garbage either way, as zlib's own is once its checks pass a bad block */
TEST(gzip_inflaters_corrupt_everywhere) {
    buf file = {0}, want = {0};
    size_t end0 = 0;
    for (int m = 0; m < 2; m++) {
        unsigned char *d = gen_text(1500, 7u + (uint32_t)m);
        gz_member(&file, d, 1500, m ? 9 : 1, 0);
        put(&want, d, 1500);
        if (!m) end0 = file.n;
        free(d);
    }
    int errors = 0, differ = 0;
    for (size_t at = 2; at < file.n; at++) { /* at 0 and 1 it is not gzip: read as is */
        unsigned char *bad = malloc(file.n);
        memcpy(bad, file.p, file.n);
        bad[at] ^= 0x5a;
        char *path = write_file("bad.gz", bad, file.n);
        got g[2] = {read_with(path, "zlib"), read_with(path, "isal")};
        int n = g[1].rc == -1 ? 1 : 2; /* ISA-L not built in */
        for (int k = 0; k < n; k++) {
            const char *who = k ? "isal" : "zlib";
            CHECK_MSG(g[k].rc == 0, "flip at %zu, %s: rc %d", at, who, g[k].rc);
            CHECK_MSG(g[k].truncated == g[0].truncated, "flip at %zu: zlib truncated %d, isal %d (%s)", at, g[0].truncated,
                      g[k].truncated, g[k].note);
            if (!g[k].truncated) {
                CHECK_MSG(g[k].out.n == want.n && !memcmp(g[k].out.p, want.p, want.n), "flip at %zu, %s: not the data", at, who);
                continue;
            }
            if (at >= end0) CHECK_MSG(g[k].out.n >= 1500 && !memcmp(g[k].out.p, want.p, 1500), "flip at %zu, %s: first member lost", at, who);
            if (!g[k].note[0]) continue; /* ran out of input: a flag byte made the header swallow it */
            /* "gzip data|header|trailer error at byte N": where the inflater stopped, at or after the flip, or the
             * start of the field that failed (the 8-byte trailer, a header field) */
            char part[16];
            unsigned long long off;
            CHECK_MSG(sscanf(g[k].note, "gzip %15s error at byte %llu", part, &off) == 2 &&
                          (!strcmp(part, "data") || !strcmp(part, "header") || !strcmp(part, "trailer")),
                      "flip at %zu, %s: %s", at, who, g[k].note);
            CHECK_MSG(off + 8 >= at && off <= file.n, "flip at %zu, %s: offset %llu beyond the file's %zu bytes", at, who, off, file.n);
            if (k == 0) errors++;
        }
        if (n == 2 && (g[0].out.n != g[1].out.n || (g[0].out.n && memcmp(g[0].out.p, g[1].out.p, g[0].out.n)))) {
            /* they differ only in where they stop: one's bytes begin the other's */
            const got *shorter = &g[g[1].out.n < g[0].out.n], *longer = &g[g[1].out.n >= g[0].out.n];
            CHECK_MSG(shorter->out.n == 0 || !memcmp(shorter->out.p, longer->out.p, shorter->out.n),
                      "flip at %zu: zlib's %zu bytes and isal's %zu differ before either stops", at, g[0].out.n, g[1].out.n);
            differ++;
        }
        free(g[0].out.p);
        free(g[1].out.p);
        free(path);
        free(bad);
    }
    /* measured: the stopping points differ on 211 of the 848 flips (zlib's 1.2.13, ISA-L 2.30) */
    CHECK_MSG(differ * 3 < (int)file.n, "the stopping points differ on %d of %zu flips", differ, file.n);
    CHECK_MSG(errors > (int)file.n / 2, "only %d of %zu flips detected", errors, file.n);
    /* zero padding after the last member (tape blocks): today's rule, a truncation, the note at the padding */
    buf padded = {0};
    put(&padded, file.p, file.n);
    put(&padded, "\0\0\0\0\0\0\0\0", 8);
    char *path = write_file("padded.gz", padded.p, padded.n);
    int same;
    char why[1024] = "";
    got z = read_both(path, &same, why, sizeof why);
    CHECK_MSG(same, "%s", why);
    CHECK(z.out.n == want.n && !memcmp(z.out.p, want.p, want.n));
    CHECK(z.truncated);
    /* the offset where the inflater saw it: zlib reads the two magic bytes first */
    CHECK_MSG(!strncmp(z.note, "gzip header error at byte ", 26), "note '%s'", z.note);
    unsigned long long off = strtoull(z.note + 26, NULL, 10);
    CHECK_MSG(off >= file.n && off <= file.n + 2, "note '%s', expected an offset from %zu to %zu", z.note, file.n, file.n + 2);
    free(z.out.p);
    free(path);
    free(padded.p);
    free(file.p);
    free(want.p);
}

/* a trace split in members, one of them empty (cat a.gz empty.gz b.gz),
 * loaded with the build's inflater: every event read */
TEST(gzip_multi_member_trace_loads) {
    enum { N = 300 };
    long ends[N];
    char *doc = fix_kernels(N, ends);
    size_t len = strlen(doc), a = (size_t)ends[N / 2];
    buf file = {0};
    gz_member(&file, (unsigned char *)doc, a, 6, 0);
    gz_member(&file, (unsigned char *)doc, 0, 6, 0);
    gz_member(&file, (unsigned char *)doc + a, len - a, 1, 0);
    char *path = write_file("trace.json.gz", file.p, file.n);
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK_MSG(pc_load(path, NULL, &t, &err) == 0, "%s", err.msg);
    CHECK_EQ_I(t->ngpu, N);
    CHECK(!t->truncated);
    CHECK_EQ_I(t->stats.bytes, len);
    pc_trace_free(t);
    free(path);
    free(file.p);
    free(doc);
}

/* the real traces: both inflaters give the bytes Python's gzip module gives
 * (their length and CRC-32, from python3 -c "d = gzip.open(f).read();
 * print(len(d), hex(zlib.crc32(d)))") */
TEST(gzip_inflaters_real_traces) {
    const char *dir = shared_data();
    if (!dir) SKIP("../shared/data is absent");
    static const struct { const char *file; size_t len; uint32_t crc; } files[] = {
        {"kineto/param-misc/resnet_kineto.json.gz", 25771112, 0x4725bd9a},
        {"kineto/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz", 66897, 0x8481b723},
        {"kineto/resnet50-v100-workers0/worker0.1623143566756.pt.trace.json.gz", 35212340, 0x9974960b},
    };
    int read = 0;
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, files[i].file);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        fclose(f);
        int same;
        char why[1024] = "";
        got z = read_both(path, &same, why, sizeof why);
        CHECK_MSG(same, "%s: %s", files[i].file, why);
        CHECK_MSG(z.rc == 0 && !z.truncated, "%s: rc %d truncated %d", files[i].file, z.rc, z.truncated);
        CHECK_EQ_I(z.out.n, files[i].len);
        CHECK_EQ_I(crc32(0, z.out.p, (uInt)z.out.n), files[i].crc);
        free(z.out.p);
        read++;
    }
    CHECK_MSG(read > 0, "none of the real .json.gz traces found under %s", dir);
}

/* Each kind of damage is named with its byte, by both inflaters: a CRC-32
 * that does not match (the trailer of the 1,500-byte member starts at byte
 * n - 8; zlib names the CRC field, the same byte) is a trailer error, not a
 * truncation; a compression method of 7 (byte 2) and reserved flag bits
 * (FLG 0xe0, byte 3: RFC 1952 says a decoder must refuse them; ISA-L alone
 * accepted them) are header errors, and a trace of such a file is refused
 * with that reason, never "empty input"; a trace whose CRC fails keeps its
 * events, truncated, with the reason in truncated_why. */
TEST(gzip_errors_name_the_cause) {
    buf file = {0};
    unsigned char *d = gen_text(1500, 3);
    gz_member(&file, d, 1500, 6, 0);
    free(d);
    char want[128];
    static const struct { size_t at; unsigned char x; const char *part; const char *what; } cases[] = {
        {0, 0xff, "trailer", "does not match"}, {2, 7 ^ 8, "header", "compression method 7, not deflate (8)"},
        {3, 0xe0, "header", "reserved flag bits set (FLG 0xe0)"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        unsigned char *bad = malloc(file.n);
        memcpy(bad, file.p, file.n);
        size_t at = cases[i].at ? cases[i].at : file.n - 8;
        bad[at] ^= cases[i].x;
        char *path = write_file("cause.gz", bad, file.n);
        snprintf(want, sizeof want, "gzip %s error at byte %zu of the file: ", cases[i].part, at);
        for (int k = 0; k < 2; k++) {
            got g = read_with(path, k ? "isal" : "zlib");
            if (g.rc == -1) continue;
            CHECK_MSG(g.truncated && !strncmp(g.note, want, strlen(want)) && strstr(g.note, cases[i].what), "case %zu, %s: '%s', want '%s...%s'",
                      i, k ? "isal" : "zlib", g.note, want, cases[i].what);
            CHECK_EQ_I(g.out.n, cases[i].at ? 0 : 1500);
            free(g.out.p);
        }
        free(path);
        free(bad);
    }
    /* as traces: FIX_CURRENT with its CRC flipped, then with a bad method */
    buf t = {0};
    gz_member(&t, (const unsigned char *)FIX_CURRENT, strlen(FIX_CURRENT), 6, 0);
    t.p[t.n - 8] ^= 1;
    char *path = write_file("crc.json.gz", t.p, t.n);
    pc_trace *tr = NULL;
    pc_err err = {0};
    CHECK_MSG(pc_load(path, NULL, &tr, &err) == 0, "%s", err.msg);
    CHECK(tr->truncated && tr->ngpu == 5);
    snprintf(want, sizeof want, "gzip trailer error at byte %zu of the file", t.n - 8);
    CHECK_MSG(!strncmp(tr->truncated_why, want, strlen(want)), "'%s'", tr->truncated_why);
    pc_trace_free(tr);
    free(path);
    t.p[t.n - 8] ^= 1;
    t.p[2] = 7;
    path = write_file("method.json.gz", t.p, t.n);
    CHECK(pc_load(path, NULL, &tr, &err) == PC_EINPUT);
    CHECK_MSG(strstr(err.msg, "gzip header error at byte 2 of the file: compression method 7") && !strstr(err.msg, "empty input"), "'%s'", err.msg);
    free(path);
    free(t.p);
    free(file.p);
}
