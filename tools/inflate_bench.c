/* inflate_bench - decompression speed of one inflater on one .gz file, for
 * docs/benchmarks-inflate.md (tools/inflate_bench.sh runs the table).
 *
 *   inflate_bench zlib|isal|libdeflate FILE [MIN_MB]
 *
 * zlib and isal stream as src/load/source.c does: 256 KiB reads from the
 * file, 1 MiB of output at a time (discarded), every gzip member in turn.
 * libdeflate has no streaming API: it reads the whole file and inflates each
 * member into one buffer as large as the member's output (its ISIZE), so its
 * peak memory grows with the trace. A file whose output is under MIN_MB
 * (default 200) is inflated again until MIN_MB is reached, so small real
 * traces time more than a few milliseconds. Best of 3 passes; prints
 *   inflater bytes_out best_wall_s best_user_s peak_rss_kib crc32
 * (crc32 of the output with INFLATE_BENCH_CRC=1, to check that every
 * inflater gives the same bytes; 0 otherwise, as checksumming slows it).
 * Built by `make build/inflate_bench` with whichever libraries are there. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#if PC_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif
#if PC_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

enum { INBUF = 1 << 18, OUTBUF = 1 << 20 };
static int want_crc; /* INFLATE_BENCH_CRC=1: checksum the output (slower: off for timings) */

static void die(const char *m) { fprintf(stderr, "inflate_bench: %s\n", m); exit(1); }

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
static double user_s(void) {
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return (double)r.ru_utime.tv_sec + (double)r.ru_utime.tv_usec * 1e-6;
}

static uint64_t zlib_pass(int fd, uLong *crc) {
    z_stream z;
    memset(&z, 0, sizeof z);
    static unsigned char in[INBUF], out[OUTBUF];
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) die("zlib init");
    uint64_t total = 0;
    int eof = 0;
    for (;;) {
        if (z.avail_in == 0 && !eof) {
            ssize_t n = read(fd, in, INBUF);
            if (n < 0) die("read");
            if (n == 0) eof = 1;
            z.next_in = in;
            z.avail_in = (unsigned)n;
        }
        if (z.avail_in == 0 && eof) break;
        z.next_out = out;
        z.avail_out = OUTBUF;
        int r = inflate(&z, Z_NO_FLUSH);
        size_t got = OUTBUF - z.avail_out;
        if (want_crc) *crc = crc32(*crc, out, (uInt)got);
        total += got;
        if (r == Z_STREAM_END) { inflateReset(&z); continue; }
        if (r != Z_OK && r != Z_BUF_ERROR) die("zlib: corrupt");
    }
    inflateEnd(&z);
    return total;
}

#if PC_HAVE_ISAL
static uint64_t isal_pass(int fd, uLong *crc) {
    static struct inflate_state st;
    static unsigned char in[INBUF], out[OUTBUF];
    isal_inflate_init(&st);
    st.crc_flag = ISAL_GZIP;
    uint64_t total = 0;
    int eof = 0;
    for (;;) {
        if (st.avail_in == 0 && !eof) {
            ssize_t n = read(fd, in, INBUF);
            if (n < 0) die("read");
            if (n == 0) eof = 1;
            st.next_in = in;
            st.avail_in = (uint32_t)n;
        }
        if (st.avail_in == 0 && eof) break;
        st.next_out = out;
        st.avail_out = OUTBUF;
        int r = isal_inflate(&st);
        size_t got = OUTBUF - st.avail_out;
        if (want_crc) *crc = crc32(*crc, out, (uInt)got);
        total += got;
        if (r != ISAL_DECOMP_OK) die("isal: corrupt");
        if (st.block_state == ISAL_BLOCK_FINISH) {
            uint8_t *ni = st.next_in;
            uint32_t ai = st.avail_in;
            isal_inflate_reset(&st);
            st.crc_flag = ISAL_GZIP;
            st.next_in = ni;
            st.avail_in = ai;
        }
    }
    return total;
}
#endif

#if PC_HAVE_LIBDEFLATE
static uint64_t deflate_pass(int fd, uLong *crc) {
    struct stat sb;
    if (fstat(fd, &sb) != 0) die("stat");
    size_t n = (size_t)sb.st_size, got = 0;
    unsigned char *in = malloc(n ? n : 1);
    if (!in) die("out of memory");
    while (got < n) {
        ssize_t r = read(fd, in + got, n - got);
        if (r <= 0) die("read");
        got += (size_t)r;
    }
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    uint64_t total = 0;
    size_t pos = 0;
    unsigned char *out = NULL;
    size_t cap = 0;
    while (pos < n) {
        /* the member's size is in its trailer, but only the last member's
         * trailer is at the file's end: grow on LIBDEFLATE_INSUFFICIENT_SPACE */
        size_t want = n - pos >= 4 ? (size_t)in[n - 4] | (size_t)in[n - 3] << 8 | (size_t)in[n - 2] << 16 | (size_t)in[n - 1] << 24 : 1;
        if (want < (1 << 20)) want = 1 << 20;
        for (;;) {
            if (cap < want) {
                free(out);
                out = malloc(want);
                if (!out) die("out of memory");
                cap = want;
            }
            size_t in_used = 0, out_len = 0;
            enum libdeflate_result r = libdeflate_gzip_decompress_ex(d, in + pos, n - pos, out, cap, &in_used, &out_len);
            if (r == LIBDEFLATE_INSUFFICIENT_SPACE) { want = cap * 2; continue; }
            if (r != LIBDEFLATE_SUCCESS) die("libdeflate: corrupt");
            for (size_t o = 0; want_crc && o < out_len; o += OUTBUF) *crc = crc32(*crc, out + o, (uInt)(out_len - o < OUTBUF ? out_len - o : OUTBUF));
            total += out_len;
            pos += in_used;
            break;
        }
    }
    libdeflate_free_decompressor(d);
    free(out);
    free(in);
    return total;
}
#endif

int main(int argc, char **argv) {
    if (argc < 3) die("usage: inflate_bench zlib|isal|libdeflate FILE [MIN_MB]");
    uint64_t (*pass)(int, uLong *) = NULL;
    if (!strcmp(argv[1], "zlib")) pass = zlib_pass;
#if PC_HAVE_ISAL
    if (!strcmp(argv[1], "isal")) pass = isal_pass;
#endif
#if PC_HAVE_LIBDEFLATE
    if (!strcmp(argv[1], "libdeflate")) pass = deflate_pass;
#endif
    if (!pass) die("inflater not built in");
    want_crc = getenv("INFLATE_BENCH_CRC") != NULL;
    double min_bytes = (argc > 3 ? atof(argv[3]) : 200) * 1e6;
    double best_wall = 1e30, best_user = 1e30;
    uint64_t bytes = 0;
    uLong crc_first = 0;
    for (int round = 0; round < 3; round++) {
        double w0 = now(), u0 = user_s();
        uint64_t out = 0;
        int passes = 0;
        do {
            int fd = open(argv[2], O_RDONLY);
            if (fd < 0) die("cannot open the file");
            uLong crc = crc32(0, NULL, 0);
            out += pass(fd, &crc);
            close(fd);
            if (round == 0 && passes == 0) crc_first = crc;
            passes++;
        } while ((double)out < min_bytes);
        double w = now() - w0, u = user_s() - u0;
        if (w < best_wall) best_wall = w;
        if (u < best_user) best_user = u;
        bytes = out;
    }
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    printf("%s %llu %.4f %.4f %ld %08lx\n", argv[1], (unsigned long long)bytes, best_wall, best_user, r.ru_maxrss,
           (unsigned long)crc_first);
    return 0;
}
