#include "png.h"
#include "../util/fsutil.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static void put32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* A chunk whose data already sits at p + 8: length, type, then the CRC of
 * type and data after it. Returns the bytes written (12 + n). */
static size_t chunk(unsigned char *p, const char *type, size_t n) {
    put32(p, (uint32_t)n);
    memcpy(p + 4, type, 4);
    put32(p + 8 + n, (uint32_t)crc32(0, p + 4, (uInt)(n + 4)));
    return 12 + n;
}

unsigned char *png_encode_rgb24(const unsigned char *px, int w, int h, int stride, int scale, size_t *n) {
    if (w <= 0 || h <= 0 || w > 16384 || h > 16384 || stride < 4 * w) return NULL;
    size_t row = 1 + 3 * (size_t)w, rawn = row * (size_t)h;
    unsigned char *raw = malloc(rawn);
    if (!raw) return NULL;
    for (int y = 0; y < h; y++) {
        unsigned char *o = raw + (size_t)y * row;
        const uint32_t *s = (const uint32_t *)(const void *)(px + (size_t)y * (size_t)stride);
        *o++ = 0; /* filter type None */
        for (int x = 0; x < w; x++, o += 3) {
            uint32_t v = s[x];
            o[0] = (unsigned char)(v >> 16);
            o[1] = (unsigned char)(v >> 8);
            o[2] = (unsigned char)v;
        }
    }
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit(&z, 1) != Z_OK) { free(raw); return NULL; }
    size_t zcap = deflateBound(&z, (uLong)rawn);
    /* signature, IHDR (12 + 13), pHYs (12 + 9), IDAT (12 + data), IEND (12) */
    unsigned char *png = malloc(8 + 25 + 21 + 12 + zcap + 12);
    if (!png) { deflateEnd(&z); free(raw); return NULL; }
    memcpy(png, "\x89PNG\r\n\x1a\n", 8);
    unsigned char *ih = png + 8 + 8;
    put32(ih, (uint32_t)w);
    put32(ih + 4, (uint32_t)h);
    ih[8] = 8;  /* bits per sample */
    ih[9] = 2;  /* RGB */
    ih[10] = ih[11] = ih[12] = 0; /* deflate, adaptive filtering, no interlace */
    size_t at = 8 + chunk(png + 8, "IHDR", 13);
    uint32_t ppm = (uint32_t)(3780 * (scale > 0 && scale < 16 ? scale : 1)); /* 96 dpi: 3780 pixels a metre */
    put32(png + at + 8, ppm);
    put32(png + at + 12, ppm);
    png[at + 16] = 1; /* the unit is the metre */
    at += chunk(png + at, "pHYs", 9);
    z.next_in = raw;
    z.avail_in = (uInt)rawn;
    z.next_out = png + at + 8;
    z.avail_out = (uInt)zcap;
    int zr = deflate(&z, Z_FINISH);
    size_t zn = z.total_out;
    deflateEnd(&z);
    free(raw);
    if (zr != Z_STREAM_END) { free(png); return NULL; }
    at += chunk(png + at, "IDAT", zn);
    at += chunk(png + at, "IEND", 0);
    *n = at;
    return png;
}

int png_write_rgb24(const char *path, const unsigned char *px, int w, int h, int stride, int scale, pc_err *err) {
    size_t n;
    unsigned char *png = png_encode_rgb24(px, w, h, stride, scale, &n);
    if (!png) return PC_ERRF(err, PC_EIO, "%s: cannot encode a %dx%d PNG", path, w, h);
    int rc = fs_write_atomic(path, (const char *)png, n, err);
    free(png);
    return rc;
}
