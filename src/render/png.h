/* png.h - PNG files from Cairo image surfaces, written with zlib.
 *
 * Charts are flat colors on white, so fast deflate (level 1, no row
 * filter) gives files about as small as libpng's defaults in less than half
 * the time (a 760x300 chart: ~3 ms instead of ~8 ms). The file is 8-bit RGB
 * (color type 2), no interlace, with a pHYs chunk giving its density:
 * `scale` pixels per CSS pixel (96 dpi × scale; charts are drawn at 2× for
 * HiDPI screens and GitHub); written whole or not at all (fs_write_atomic).
 */
#ifndef PC_PNG_H
#define PC_PNG_H
#include <stddef.h>
#include "../util/err.h"

/* Pixels as Cairo's CAIRO_FORMAT_RGB24 or ARGB32 keep them: one native
 * uint32 per pixel, 0xAARRGGBB (alpha ignored), rows `stride` bytes apart.
 * Returns a malloc'd PNG image and its length in *n, or NULL (no memory
 * or an image larger than 16384 pixels on a side). */
unsigned char *png_encode_rgb24(const unsigned char *px, int w, int h, int stride, int scale, size_t *n);
int png_write_rgb24(const char *path, const unsigned char *px, int w, int h, int stride, int scale, pc_err *err);
#endif
